/* candidate_cfg.h — one training candidate as a runnable NeMo config: the base
 * config with the candidate's parallelism, batch and recompute written in
 * (the original's modify_cfg, reference §4.4, plus our extension knobs). */
#ifndef AC_RESULTS_CANDIDATE_CFG_H
#define AC_RESULTS_CANDIDATE_CFG_H

#include "config/cfg.h"
#include "config/node.h"
#include "model/basecfg.h"
#include "search/grid.h"
#include "util/err.h"

/* a deep copy of base->cfg with the candidate applied; NULL on error */
node *results_candidate_config(const model_base_config *base, const ac_config *c, const search_candidate *cand,
                               const char *run_name, ac_err *e);

/* The optimal config as the full training run: the candidate's config with
 * trainer.max_steps = int(num_tokens_in_b·1e9 / (GBS·seq)) as the base config, the time limit
 * (max_training_days as run.time_limit and trainer.max_time), validation every 2000 steps
 * (NeMo launcher's default) and checkpointing on; NULL on error */
node *results_full_run_config(const model_base_config *base, const ac_config *c, const search_candidate *cand,
                              const char *run_name, ac_err *e);
/* the full run's steps: int(tokens / (GBS · seq)) */
long long results_full_run_steps(double num_tokens_in_b, int gbs, int seq_length);

/* Slurm time limit "D-HH:MM:SS" for a number of minutes (the original divided
 * minutes by 3600 for the day and did not zero-pad: quirk 2) */
void results_time_limit_minutes(int minutes, char *buf, size_t len);

#endif
