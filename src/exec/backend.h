/* backend.h — what exec.c needs from a scheduler backend (slurm.c, local.c).
 * Internal to src/exec. */
#ifndef AC_EXEC_BACKEND_H
#define AC_EXEC_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

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

#endif
