/* local.c — the local backend: each job is `bash job.sh` in its own process
 * group (proc_spawn), at most max_active at once.  The job id is
 * "<pid>:<start time>" (from /proc/<pid>/stat), so a recycled pid is never
 * mistaken for the job.  The script itself records its exit code in
 * run_dir/exit_code, which a resumed tool (no longer the parent) can read. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exec/backend.h"
#include "util/fsutil.h"
#include "util/proc.h"

#define LOCAL_MAX_ACTIVE_DEFAULT 4

int exec_local_parse_stat(const char *buf, unsigned long long *start, int *zombie)
{
    const char *p = strrchr(buf, ')'); /* the command name may hold ')' and blanks: the last one ends it */
    if (!p || p[1] != ' ') return -1;
    p += 2;
    *zombie = *p == 'Z' || *p == 'X';
    for (int field = 3; field < 22; field++) {
        p = strchr(p, ' ');
        if (!p) return -1;
        p++;
    }
    char *end;
    *start = strtoull(p, &end, 10);
    return end == p ? -1 : 0;
}

/* field 22 of /proc/pid/stat (start time in clock ticks), and whether it is a zombie */
static int proc_start(pid_t pid, unsigned long long *start, int *zombie)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return exec_local_parse_stat(buf, start, zombie);
}

int exec_local_parse_id(const char *id, pid_t *pid, unsigned long long *start)
{
    char *end;
    errno = 0;
    long p = strtol(id, &end, 10);
    if (end == id || *end != ':' || p <= 1 || p > INT_MAX || errno) return -1;
    *pid = (pid_t)p;
    *start = strtoull(end + 1, NULL, 10);
    return 0;
}

/* a number on its own line: optional blanks, an int, optional blanks and newline */
static int parse_int_line(const char *text, long lo, long hi, long *v)
{
    char *end;
    errno = 0;
    long x = strtol(text, &end, 10);
    if (end == text || errno || x < lo || x > hi) return -1;
    end += strspn(end, " \t\r\n");
    if (*end) return -1;
    *v = x;
    return 0;
}

int exec_local_parse_exit_code(const char *text, int *code)
{
    long v;
    if (parse_int_line(text, 0, 255, &v)) return -1; /* a shell exit status is 0..255 */
    *code = (int)v;
    return 0;
}

long exec_local_parse_pid(const char *text)
{
    long v;
    return parse_int_line(text, 2, INT_MAX, &v) ? 0 : v;
}

/* 1 when the job's process (group leader) still runs */
static int job_alive(const char *id)
{
    pid_t pid;
    unsigned long long want, got;
    int zombie;
    if (exec_local_parse_id(id, &pid, &want) < 0) return 0;
    waitpid(pid, NULL, WNOHANG); /* reap it if it was our child */
    if (proc_start(pid, &got, &zombie) < 0) return 0;
    return got == want && !zombie;
}

static int read_exit_code(const char *run_dir, int *code)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/exit_code", run_dir);
    ac_err e;
    size_t len;
    char *t = fs_read_file(path, &len, &e);
    if (!t) return -1;
    int rc = exec_local_parse_exit_code(t, code); /* unreadable: as if absent */
    free(t);
    return rc;
}

static int local_submit(const exec_ctx *x, const exec_job *j, const char *run_dir, char *job_id, size_t len, ac_err *e)
{
    (void)x; (void)j;
    char script[1400], out[1400], err[1400];
    snprintf(script, sizeof script, "%s/job.sh", run_dir);
    snprintf(out, sizeof out, "%s/log-local.out", run_dir);
    snprintf(err, sizeof err, "%s/log-local.err", run_dir);
    const char *argv[] = { "bash", script, NULL };
    pid_t pid = proc_spawn(argv, run_dir, out, err, e);
    if (pid < 0) return -1;
    unsigned long long start = 0;
    int zombie;
    if (proc_start(pid, &start, &zombie) < 0) start = 0;
    snprintf(job_id, len, "%d:%llu", (int)pid, start);
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void kill_group(const char *id)
{
    pid_t pid;
    unsigned long long start;
    if (exec_local_parse_id(id, &pid, &start) < 0 || !job_alive(id)) return;
    kill(-pid, SIGTERM);
    for (int i = 0; i < 50 && job_alive(id); i++) {
        struct timespec ts = { 0, 100000000L };
        nanosleep(&ts, NULL);
    }
    if (job_alive(id)) kill(-pid, SIGKILL);
    waitpid(pid, NULL, WNOHANG);
}

static int local_poll(const exec_ctx *x, const ledger_row *row, const char *run_dir, exec_state *st, char *reason,
                      size_t rlen, ac_err *e)
{
    (void)e;
    int code;
    if (read_exit_code(run_dir, &code) == 0) {
        *st = code == 0 ? EXEC_DONE : EXEC_FAILED;
        if (code) snprintf(reason, rlen, "FAILED (exit code %d)", code);
        return 0;
    }
    if (job_alive(row->job_id)) {
        if (x->time_limit_s > 0 && row->submitted_at > 0 && now_s() - row->submitted_at > x->time_limit_s) {
            kill_group(row->job_id);
            *st = EXEC_FAILED;
            snprintf(reason, rlen, "TIMEOUT (ran over %d s)", x->time_limit_s);
            return 0;
        }
        *st = EXEC_RUNNING;
        return 0;
    }
    if (read_exit_code(run_dir, &code) == 0) { /* it ended between the two looks */
        *st = code == 0 ? EXEC_DONE : EXEC_FAILED;
        if (code) snprintf(reason, rlen, "FAILED (exit code %d)", code);
        return 0;
    }
    *st = EXEC_FAILED;
    snprintf(reason, rlen, "killed (the process ended without an exit code)");
    return 0;
}

static int local_cancel(const exec_ctx *x, const ledger_row *row, const char *run_dir, ac_err *e)
{
    (void)x; (void)run_dir; (void)e;
    kill_group(row->job_id);
    return 0;
}

static int local_find(const exec_ctx *x, const ledger_row *row, const char *run_dir, char *job_id, size_t len,
                      int *found, ac_err *e)
{
    (void)x; (void)row; (void)e;
    char path[1400];
    size_t n;
    ac_err fe;
    *found = 0;
    snprintf(path, sizeof path, "%s/job.pid", run_dir);
    char *t = fs_read_file(path, &n, &fe);
    if (!t) return 0; /* the script never started: submit again */
    long pid = exec_local_parse_pid(t);
    free(t);
    if (pid <= 1) return 0;
    unsigned long long start = 0;
    int zombie;
    if (proc_start((pid_t)pid, &start, &zombie) < 0) start = 0;
    snprintf(job_id, len, "%ld:%llu", pid, start);
    *found = 1;
    return 0;
}

static int local_max_active(void)
{
    const char *env = getenv("AUTOCONFIG_LOCAL_PARALLEL");
    int v = env ? atoi(env) : 0;
    return v > 0 ? v : LOCAL_MAX_ACTIVE_DEFAULT;
}

const exec_backend exec_backend_local = {
    .name = "local", .max_active = LOCAL_MAX_ACTIVE_DEFAULT,
    .submit = local_submit, .poll = local_poll, .cancel = local_cancel, .find = local_find,
};

int exec_local_max_active(void) { return local_max_active(); }
