/* fuzz_slurm_output.c — what sbatch, squeue and scontrol print, parsed as the
 * Slurm backend parses it (job id, state|reason|name, JobName=/JobState=/Reason=,
 * the resume lookup by run directory and name).  Nothing may crash or overrun:
 * every field fits its buffer and a job id is digits only. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/backend.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *out = strndup((const char *)data, size);
    if (!out) return 0;
    char id[64], state[512], reason[512], name[512];
    if (exec_slurm_parse_sbatch(out, id, sizeof id) == 0 && (!id[0] || strspn(id, "0123456789") != strlen(id))) abort();
    if (exec_slurm_parse_squeue(out, state, reason, name, sizeof state) &&
        (strlen(state) >= sizeof state || strlen(name) >= sizeof name))
        abort();
    (void)exec_slurm_parse_scontrol(out, state, reason, name, sizeof state);
    /* small buffers too: the parsers must truncate, not overrun */
    char s2[4], r2[4], n2[4];
    (void)exec_slurm_parse_squeue(out, s2, r2, n2, sizeof s2);
    (void)exec_slurm_parse_scontrol(out, s2, r2, n2, sizeof s2);
    (void)exec_slurm_find_job(out, "/logs/training_logs/run", "nemo_megatron_autoconfig:run", "run");
    (void)exec_slurm_find_job(out, "/logs/training_logs/run", NULL, "run");
    free(out);
    return 0;
}
