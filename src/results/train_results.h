/* train_results.h — the training search's result files (reference §5.3, §6).
 *
 *   <logs>/candidate_configs/<name>.yaml              every grid candidate
 *   <logs>/final_result/final_summary_<N>nodes.csv    launched runs, fastest first
 *   <logs>/final_result/failed_jobs_<N>nodes.csv      failed runs with the reason
 *   <logs>/final_result/optimal_config_<size>b_<N>nodes.yaml
 *   <logs>/final_result/summary.json                  all of it for machines
 * The CSVs keep the original's columns in its order and append ours (result
 * source, predicted time, memory, MFU, tokens/s, days, cost).  Every file is
 * written atomically; a second run over the same logs dir replaces them and
 * removes candidate files of the previous run.
 */
#ifndef AC_RESULTS_TRAIN_RESULTS_H
#define AC_RESULTS_TRAIN_RESULTS_H

#include <stdbool.h>
#include <stdio.h>

#include "config/cfg.h"
#include "model/basecfg.h"
#include "search/train_search.h"
#include "util/err.h"

/* the original's config_name: tp1_pp1_mbs1_act_0_num_mbs_act_None_act_per_pipe_None (+ our knobs) */
void results_config_name(const search_scored *s, char *buf, size_t len);

/* writes every candidate YAML (candidate_configs/) */
int results_write_candidates(const ac_config *c, const model_base_config *b, const search_train_result *r,
                             const char *logs, ac_err *e);

/* writes final_result/ (summary CSV, failed jobs CSV, optimal config, summary.json) */
int results_write_final(const ac_config *c, const model_base_config *b, const search_train_result *r, const char *logs,
                        ac_err *e);

/* the top output_top_n list and the optimal config, as the original prints them (times fixed) */
void results_print_top(FILE *out, const ac_config *c, const model_base_config *b, const search_train_result *r,
                       const char *logs);

/* the recommendation (search/pick.h): the optimal config, why it won its ties, the
 * original's choice, the memory and budget warnings */
void results_print_pick(FILE *out, const ac_config *c, const model_base_config *b, const search_train_result *r,
                        const char *logs);

/* the launched results sorted by tokens per second (GBS x seq_length / step time,
 * fastest first; ties keep the search's order), O(n log n); returns the count */
size_t results_sorted_runs(const search_train_result *r, size_t *idx, size_t cap);
/* a run's result in tokens per second: GBS x seq_length / its (measured or predicted) step time */
double results_run_tokens_per_s(const search_train_result *r, const search_scored *s);

#endif
