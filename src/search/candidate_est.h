/* candidate_est.h — from configs and search candidates to estimator inputs.
 *
 * The seam between the search and the estimator: the cluster, GPU and model
 * of an autoconfig run become an est_input once (candidate_est_base); each
 * grid candidate then only overwrites its knobs (candidate_est_apply, no
 * allocation), so scoring the whole space costs microseconds per candidate.
 * candidate_est_from_nemo reads a written NeMo candidate config back (the
 * emulated training job and calibration use it).
 */
#ifndef AC_SEARCH_CANDIDATE_EST_H
#define AC_SEARCH_CANDIDATE_EST_H

#include "config/cfg.h"
#include "config/node.h"
#include "estimator/est.h"
#include "model/basecfg.h"
#include "search/grid.h"
#include "util/err.h"

/* The GPU a config asks for: train_settings.gpu from the catalog (unknown names
 * are AC_E_INPUT listing the known ones, with a "did you mean"), else the A100
 * of gpu_memory_gb. */
/* the training stack train_settings.framework names (megatron-core when unset); NULL with
 * an AC_E_INPUT error naming file:line and a "did you mean" for an unknown name */
const est_stack *candidate_stack(const ac_config *c, ac_err *e);
/* the same for a name from elsewhere (--framework): file, line and key for the error */
const est_stack *candidate_stack_named(const char *name, const char *file, int line, const char *key, ac_err *e);
const gpu_spec *candidate_gpu(const ac_config *c, ac_err *e);

/* cluster, GPU, model and the base config's defaults (TP, PP, GBS, SP,
 * distributed optimizer, precision, recompute) as an estimator input */
int candidate_est_base(const ac_config *c, const model_base_config *b, est_input *in, ac_err *e);
/* a JAX remat policy's name to its saves (est_remat_policy_parse): 0, or -1 naming file, line and
 * key, with the nearest known policy */
int candidate_remat_parse(const char *value, const char *file, int line, const char *key, unsigned *saves, ac_err *e);
/* a remat policy (the config's train_settings.remat_policy, or the command line's flag when not
 * NULL) only on a stack whose recompute keeps named outputs (data/stacks.csv remat_policies):
 * 0, or -1 with the key (file and line) or the flag; called once the run's stack is final */
int candidate_remat_check(const ac_config *c, const est_input *in, const char *flag, ac_err *e);

/* a grid candidate's knobs over a base input (act_method: the base config's
 * activations_checkpoint_method, which gives act_ckpt_layers its meaning) */
void candidate_est_apply(est_input *in, const search_candidate *k, search_act_method act_method);

/* The per-cluster calibration file `autoconfig calibrate` writes and later
 * searches read: <conf>/cluster/calibration_<cluster>.csv (<cluster> the
 * defaults list's cluster choice, "bcm" by default). */
int candidate_cal_path(const ac_config *c, char *buf, size_t len, ac_err *e);
/* the compiled-in constants, overlaid by that file when it exists (*loaded set) */
int candidate_cal_load(const ac_config *c, est_cal *cal, bool *loaded, ac_err *e);

/* a NeMo training config (a candidate YAML) as an estimator input; gpu NULL → A100 80 GB */
int candidate_est_from_nemo(const node *cfg, const gpu_spec *gpu, est_input *in, ac_err *e);

#endif
