/* job_config.h — the config file a training job hands to NeMo, and the
 * environment around it, made as the NeMo launcher makes them.
 *
 * The launcher composes its conf/config.yaml with the training config under
 * `training`, resolves every interpolation itself (with its own resolvers:
 * multiply, divide_ceil, divide_floor) and saves the stage's block, fully
 * resolved, as <results_dir>/<run name>_hydra.yaml, which NeMo's
 * megatron_*_pretraining.py loads with --config-path/--config-name
 * (NeMo-Framework-Launcher, launcher_scripts/nemo_launcher/core/stages.py:
 * save_stage_hydra_config, _hydra_interpolation).  NeMo registers only the
 * `multiply` resolver and has no `training` or `data_dir` key, so a file left
 * unresolved fails at start-up.
 *
 * The environment follows the same file: the launcher's env_vars (non-null
 * values), CUDA_DEVICE_MAX_CONNECTIONS=1 when TP > 1 or CP > 1 without FSDP,
 * CUDA_VISIBLE_DEVICES, the LayerNorm SM margin with interleaved pipelining,
 * and the AllGather-overlap switch with TP communication overlap.
 */
#ifndef AC_EXEC_JOB_CONFIG_H
#define AC_EXEC_JOB_CONFIG_H

#include "config/cfg.h"
#include "config/node.h"
#include "util/err.h"
#include "util/strbuf.h"

/* The resolved NeMo config of one search run: the candidate at candidate_path
 * with run.results_dir = run_dir (so NeMo logs to run_dir/results), no
 * checkpoints (a search run measures step time only), and every ${...}
 * resolved against data_dir, base_results_dir and launcher_scripts_path made
 * absolute.  *out is owned by the caller (node_free). */
int exec_job_config(const ac_config *c, const char *candidate_path, const char *run_dir, node **out, ac_err *e);
/* the same from a candidate in memory (candidate_path only names it in errors) */
int exec_job_config_of(const ac_config *c, const node *candidate, const char *candidate_path, const char *run_dir,
                       node **out, ac_err *e);

/* "<run_dir>/<name>_hydra.yaml", the launcher's file name */
int exec_job_config_path(const char *run_dir, const char *name, char *buf, size_t len, ac_err *e);

/* The first string under n that still holds "${": its dotted path into where
 * (empty when none).  Returns 1 when one was found. */
int exec_find_unresolved(const node *n, char *where, size_t len);

/* Appends the job's environment to sb as shell lines ("export NAME='value'"),
 * from the config (env_vars over the launcher's defaults) and the resolved job
 * config (TP, CP, PP, VP, fsdp, ub_tp_comm_overlap, fp8, trainer.devices).
 * A bad env_vars name or value is AC_E_INPUT naming file and line. */
int exec_job_env(const ac_config *c, const node *job_cfg, strbuf *sb, ac_err *e);

/* 1 when the job needs srun --mpi=pmix (TP communication overlap through
 * userbuffers bootstraps over MPI; the launcher adds it for ub_tp_comm_overlap) */
int exec_job_needs_pmix(const node *job_cfg);

/* The container image of Slurm jobs: cluster.container_image, else
 * training_container ("" when neither is set). */
const char *exec_container_image(const ac_config *c);

#endif
