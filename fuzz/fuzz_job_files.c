/* fuzz_job_files.c — what a local job leaves and the local backend reads back:
 * run_dir/job.pid, run_dir/exit_code, the job id "<pid>:<start>" and
 * /proc/<pid>/stat.  Accepted values are in range: an exit status 0..255, a pid > 1. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/backend.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = strndup((const char *)data, size);
    if (!text) return 0;
    int code;
    if (exec_local_parse_exit_code(text, &code) == 0 && (code < 0 || code > 255)) abort();
    long pid = exec_local_parse_pid(text);
    if (pid != 0 && pid < 2) abort();
    pid_t p;
    unsigned long long start;
    if (exec_local_parse_id(text, &p, &start) == 0 && p < 2) abort();
    int zombie;
    (void)exec_local_parse_stat(text, &start, &zombie);
    free(text);
    return 0;
}
