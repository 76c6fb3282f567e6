/* backend.h — what exec.c needs from a scheduler backend (slurm.c, local.c).
 * Internal to src/exec. */
#ifndef AC_EXEC_BACKEND_H
#define AC_EXEC_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "exec/exec.h"
#include "results/ledger.h"

typedef struct {
    const ac_config *c;       /* NULL for cancel/refresh from the ledger alone */
    char logs_dir[1024];
    int time_limit_s;         /* local backend: kill after this long (0: none) */
} exec_ctx;

typedef struct {
    const char *name;         /* "bcm" | "local" */
    int max_active;           /* 0: no limit (the scheduler queues) */
    /* starts the job whose script is run_dir/job.sh; job_id out */
    int (*submit)(const exec_ctx *x, const exec_job *j, const char *run_dir, char *job_id, size_t len, ac_err *e);
    /* state of a submitted job; reason filled for failures */
    int (*poll)(const exec_ctx *x, const ledger_row *r, const char *run_dir, exec_state *st, char *reason,
                size_t rlen, ac_err *e);
    int (*cancel)(const exec_ctx *x, const ledger_row *r, const char *run_dir, ac_err *e);
    /* a job of this run started by an earlier, killed run of the tool: *found, job_id */
    int (*find)(const exec_ctx *x, const ledger_row *r, const char *run_dir, char *job_id, size_t len, int *found,
                ac_err *e);
} exec_backend;

extern const exec_backend exec_backend_slurm;
extern const exec_backend exec_backend_local;
/* local concurrency: AUTOCONFIG_LOCAL_PARALLEL, default 4 */
int exec_local_max_active(void);

/* "<logs>/training_logs/<name>" */
int exec_run_dir(const char *logs_dir, const char *name, char *buf, size_t len, ac_err *e);
/* Slurm job name: cluster.job_name_prefix + name */
void exec_slurm_job_name(const char *prefix, const char *name, char *buf, size_t len);

/* Pure parsers of what the schedulers and jobs leave (fuzzed: fuzz_slurm_output, fuzz_job_files) */
/* sbatch --parsable output ("id" or "id;cluster") → job_id; -1 when it holds none */
int exec_slurm_parse_sbatch(const char *out, char *job_id, size_t len);
/* squeue -o %T|%r|%j (first line), scontrol -o show job: 1 when state, reason and name were found */
int exec_slurm_parse_squeue(const char *out, char *state, char *reason, char *name, size_t len);
int exec_slurm_parse_scontrol(const char *out, char *state, char *reason, char *name, size_t len);
/* squeue -o %i|%Z|%j lines: the highest id run from run_dir named want (want NULL: ending in
 * suffix); -1 when none */
long exec_slurm_find_job(const char *out, const char *run_dir, const char *want, const char *suffix);
/* /proc/<pid>/stat text: start time (field 22) and zombie state; 0, or -1 when malformed */
int exec_local_parse_stat(const char *buf, unsigned long long *start, int *zombie);
/* a local job id "<pid>:<start>"; 0, or -1 */
int exec_local_parse_id(const char *id, pid_t *pid, unsigned long long *start);
/* run_dir/exit_code: one status 0..255 on its line; 0, or -1 when it is anything else */
int exec_local_parse_exit_code(const char *text, int *code);
/* run_dir/job.pid: the pid (> 1), or 0 when the text is not one */
long exec_local_parse_pid(const char *text);

#endif
