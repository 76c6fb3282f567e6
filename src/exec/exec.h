/* exec.h — running candidates as real training jobs (Slurm or local processes).
 *
 * The search stage ranks candidates, writes their configs and calls
 * exec_run_all, which drives every job to completion through one backend
 * interface (submit, poll, cancel, find) and the common collect step:
 *
 *   ledger (SQLite, <logs>/ledger.sqlite) ── resume: final rows are kept,
 *        │                                   running rows are polled again,
 *        │                                   "submitting" rows are looked up by name
 *   backend.submit → job id ── backend.poll → pending/running/done/failed
 *        │
 *   collect: <logs>/training_logs/<name>/ *.err scanned for CUDA OOM text,
 *            results/events* read for "train_step_timing in s" (reference §6)
 *
 * Every job runs a bash script written to its run directory; each value in
 * it that comes from the user (names, paths, images, mounts, srun args) is
 * single-quoted (util/shell.h), and per-job text that Slurm would read
 * unquoted (job name, output paths) is passed as sbatch argv, never parsed by
 * a shell.
 *
 * With wandb.enable and wandb.api_key_file the script exports WANDB_API_KEY
 * read from that file when the job starts: the key itself is never written to
 * a script, an argv, a log or a result.
 *
 * The job hands NeMo the candidate resolved as the launcher resolves it,
 * <run_dir>/<name>_hydra.yaml, inside the launcher's environment (job_config.h).
 *
 * The job's command comes from a template (AUTOCONFIG_JOB_TEMPLATE in the
 * environment, else <conf>/cluster/job_command.txt, else the launcher's NeMo
 * training command).  Placeholders, each replaced by a shell-quoted value:
 *   {config} (the resolved file) {config_dir} {config_name} {candidate} (the
 *   candidate as the search wrote it) {name} {run_dir} {results_dir} {nodes}
 *   {gpus_per_node} {max_steps} {max_minutes} {predicted_step_s} {autoconfig}
 *   {launcher_scripts_path} {data_dir} {train_script} {gpu} (the catalog GPU of the search)
 * and {srun}: "srun <container flags> <srun_args>" on Slurm, "" locally.
 * "${...}" is left to the shell.
 */
#ifndef AC_EXEC_EXEC_H
#define AC_EXEC_EXEC_H

#include <stdio.h>

#include "config/cfg.h"
#include "estimator/est.h"
#include "util/err.h"

/* the failure reason `autoconfig cancel` leaves on the runs it stops */
#define EXEC_CANCELLED_REASON "cancelled by autoconfig cancel"

typedef struct {
    char name[256];         /* run name: the directory under training_logs */
    char config_path[1024]; /* the candidate's NeMo config (yaml) */
    int nodes;
    int gpus_per_node;
    double predicted_step_s;
    const node *candidate;  /* the candidate in memory before it is written; NULL: read config_path */
    /* a ready job script run with bash in place of the NeMo command (the inference sweep's
     * benchmark jobs, which carry their own srun and container); NULL: a NeMo training job */
    const char *script;
    int time_limit_s;       /* 0: max_minutes_per_run */
    int tasks_per_node;     /* Slurm tasks per node; 0: gpus_per_node (one rank per GPU) */
} exec_job;

typedef enum { EXEC_PENDING, EXEC_RUNNING, EXEC_DONE, EXEC_FAILED } exec_state;

typedef struct {
    exec_state state;
    char job_id[64];
    double step_time_s; /* measured (reference §6 average), 0 when none */
    int n_steps;        /* timing values found */
    char reason[256];   /* why it failed: "CUDA out of memory", "TIMEOUT", ... */
} exec_outcome;

/* Runs every job to completion on c->cluster_type (bcm or local), with resume
 * from the ledger in logs_dir; a progress line on a terminal (plain lines when
 * not a tty) to progress (NULL: none).  Returns 0 when every job reached a
 * final state (failed jobs are outcomes, not errors); -1 when the scheduler
 * refused a submission or could not be reached (jobs already submitted keep
 * running and a second call resumes them). */
int exec_run_all(const ac_config *c, const char *logs_dir, const exec_job *jobs, size_t n, exec_outcome *out,
                 FILE *progress, ac_err *e);

/* Slurm only: submits every job not yet submitted (the same resume rules) and
 * returns at once; out holds each job's id and state (pending for new ones). */
int exec_submit_all(const ac_config *c, const char *logs_dir, const exec_job *jobs, size_t n, exec_outcome *out,
                    ac_err *e);

/* Slurm only: the summary job.  Writes <logs>/summary_job.sh, which runs
 * cmd_argv (each word single-quoted) in directory cwd, and submits it with
 * --dependency=afterany on the ids given (jobs already ended are left out: Slurm
 * may have forgotten them), output <logs>/summary-<id>.out.  *job_id out. */
int exec_submit_summary(const ac_config *c, const char *logs_dir, const char *cwd, const char *const *cmd_argv,
                        const exec_outcome *jobs, size_t n, char *job_id, size_t len, ac_err *e);

/* Cancels every job of the ledger in logs_dir that is not final (scancel for
 * Slurm jobs whose name still matches, SIGTERM to the process group of local
 * ones) and marks it failed "cancelled".  *n_cancelled counts them. */
int exec_cancel_all(const char *logs_dir, int *n_cancelled, ac_err *e);

/* Refreshes non-final ledger rows from the scheduler without submitting
 * anything (for `autoconfig status`). */
int exec_refresh(const char *logs_dir, ac_err *e);

const char *exec_state_name(exec_state s);

/* Writes the job script of one job (exposed for tests and `--dry-run`):
 * into *script (malloc'd), plus the sbatch argv words (NULL-terminated,
 * malloc'd, free with exec_argv_free) when cluster_type is bcm, plus the
 * resolved NeMo config the script hands over (job_config.h; NULL: not wanted,
 * else the caller frees it).  The candidate config at j->config_path is read. */
int exec_job_script(const ac_config *c, const char *logs_dir, const exec_job *j, char **script, char ***sbatch_argv,
                    node **job_cfg, ac_err *e);
void exec_argv_free(char **argv);

/* wandb.api_key_file made absolute into abs (jobs start in their run directory),
 * after checking it is a readable file whose first line (the key) is not empty. */
int exec_wandb_key_path(const ac_config *c, char *abs, size_t len, ac_err *e);

/* Writes what a submission would, without submitting: <logs>/training_logs/<name>/
 * job.sh, job.argv (Slurm) and <name>_hydra.yaml, each atomically (`launch --dry-run`). */
int exec_write_job_files(const ac_config *c, const char *logs_dir, const exec_job *j, ac_err *e);

/* The estimator's prediction for a written candidate config (read back with
 * candidate_est_from_nemo, scored with est_evaluate): step time, memory need
 * and fit.  gpu_name is a catalog name ("" or NULL: A100 80 GB, the
 * original's default); cal NULL: the compiled-in constants.  An emulated job
 * reports these numbers as if measured; launch uses them as the prediction. */
typedef struct {
    double step_s;
    double mem_gib, limit_gib;
    int fits;
    char gpu[32];
    char run_name[256]; /* run.name of the config */
} exec_prediction;
int exec_predict_candidate(const char *candidate_yaml, const char *gpu_name, const est_cal *cal, exec_prediction *p,
                           ac_err *e);

/* The emulation's perturbation of a candidate's step time: scale x (1 + noise x u)
 * with u in [-1, 1] fixed by a hash of the run name (deterministic, so a test
 * knows what a calibration should recover).  Emulation only. */
double exec_emulate_factor(const char *run_name, double scale, double noise);

#endif
