/* train_search.h — the training HP search: grid → estimator → ranking.
 *
 * Builds the original's candidate grid (grid.h) from the config and the base
 * config, scores every candidate with the estimator, marks those predicted
 * not to fit (> memory_limit_frac of GPU memory, the original's 98 % advice)
 * as failed with the reason, ranks the rest by predicted throughput (or cost)
 * and selects the top limit_search_runs for launching.  Optionally walks the
 * whole extended space (exhaustive mode) and reports how much better its
 * best is.  No cluster is touched here: the caller launches (exec) or, on
 * cluster_type sim, takes the predictions as the results.
 */
#ifndef AC_SEARCH_TRAIN_SEARCH_H
#define AC_SEARCH_TRAIN_SEARCH_H

#include <stdbool.h>
#include <stddef.h>

#include "config/cfg.h"
#include "estimator/est.h"
#include "model/basecfg.h"
#include "search/grid.h"
#include "search/pick.h"
#include "util/err.h"

typedef enum { RUN_PREDICTED = 0, RUN_MEASURED } search_run_source;

typedef struct {
    search_candidate cand;
    char name[256];      /* the candidate's file name without .yaml */
    est_result est;      /* the prediction */
    int rank;            /* 1 = best predicted; 0 = not ranked (does not fit) */
    bool launched;       /* among the top limit_search_runs, or borderline (below) */
    bool borderline;     /* predicted over the memory limit by less than the estimator's memory
                          * uncertainty and launched to be measured (launch_over_memory) */
    /* results: predicted on sim, measured on a cluster */
    search_run_source source;
    bool failed;
    char reason[320];
    double step_time_s;  /* the result's step time (measured when source is measured) */
    int measured_nodes;  /* nodes of the run that measured it when fewer than num_nodes, else 0 */
    double measured_raw_s; /* the step time measured there, before scaling to num_nodes */
} search_scored;

typedef struct search_train_result {
    search_grid grid;
    est_input base;          /* cluster, GPU, model; each candidate overwrites its knobs */
    est_cal cal;             /* the constants base.cal points to: compiled-in, or the cluster's calibration */
    bool cal_loaded;         /* <conf>/cluster/calibration_<cluster>.csv was applied */
    search_inputs inputs;
    search_gbs_choice gbs;   /* the global batch searched: the configured one, or the nearest that splits */
    search_act_method act_method;
    search_scored *items;    /* grid order */
    size_t n, n_fit, n_oom, n_launch;
    size_t n_borderline;     /* of n_launch: predicted over the memory limit, launched anyway */
    size_t *order;           /* indices into items: ranked fits first, then the rest */
    /* exhaustive walk of the extended space (always done; the mode decides what is launched) */
    bool exhaustive_done;
    long exhaustive_count;
    search_candidate exhaustive_best;
    est_result exhaustive_best_est;
    char exhaustive_best_name[256];
    bool exhaustive_found;
    double exhaustive_gain;  /* best exhaustive tokens/s ÷ best grid tokens/s − 1 */
    double elapsed_s;
    char name_family[64];    /* candidate names start "<name_family>_<size_text>b_": the family and size, */
    char size_text[32];      /* or the full model name (llama3_70b) with an empty size text */
    search_pick pick;        /* the recommendation (pick.h) */
    search_pick_walk walk;   /* scratch: the walk's share of the pick, freed once it is made */
} search_train_result;

/* whether k's layout runs on this many GPUs: TP·PP·CP divides them, the global batch splits
 * into micro-batches over the data-parallel replicas and EP divides DP·CP; *dp_out (may be
 * NULL) gets the data-parallel size */
bool search_layout_splits(const search_candidate *k, long long gpus, long long *dp_out);

/* the config's family as the grid's family id; -1 when the family has no grid */
int search_family_of(const char *family);

/* the ranking key of a prediction, larger is better: tokens/s, or minus the
 * full run's cost under rank_by=cost */
double search_train_score(const ac_config *c, const est_result *r);

/* the grid inputs for this config and base config */
int search_train_inputs(const ac_config *c, const model_base_config *b, search_inputs *in, search_act_method *method,
                        ac_err *e);

/* The counts of one search in the one vocabulary the console, summary.json and the report use:
 * candidates scored, valid (the estimator could read them), predicted to fit, predicted out of
 * memory, launched (real clusters only; sim launches nothing and ranks its top `ranked`),
 * measured and failed (launched runs by outcome). */
typedef struct {
    size_t candidates, valid, predicted_fit, predicted_oom, ranked, launched, measured, failed;
} search_counts;
void search_train_counts(const ac_config *c, const search_train_result *r, search_counts *out);

/* The nodes one search run of candidate k uses (train_settings.search_num_nodes): num_nodes
 * when unset; "auto" the fewest whole nodes that hold one model replica (TP x PP x CP GPUs)
 * and split the global batch (GBS a multiple of MBS x DP there), a number that many (at most
 * num_nodes, same rule).  AC_E_INPUT when the value is neither. */
int search_run_nodes(const ac_config *c, const search_candidate *k, int *nodes, ac_err *e);

/* The estimator's step time of candidate k on `nodes` nodes (the rest of r->base as searched):
 * what carries a step time measured there to num_nodes. */
int search_step_time_at(const search_train_result *r, const search_candidate *k, int nodes, int gpus_per_node,
                        double *step_s, ac_err *e);

/* The relative uncertainty of a memory prediction: a candidate predicted to need up to
 * limit x (1 + this) may still fit, so on a real cluster it is measured rather than
 * discarded.  The estimator's memory band of the result's GPU and stack (est_result
 * band_mem_rel, data/bands.csv), or a stated 5 % when the result carries none. */
double search_memory_band_rel(const est_result *r);

/* builds, scores and ranks; free with search_train_free.  AC_E_INPUT when the
 * grid is empty (the rule that removed everything) or nothing fits (the memory
 * the smallest candidate would need). */
int search_train_run(const ac_config *c, const model_base_config *b, search_train_result *r, ac_err *e);
void search_train_free(search_train_result *r);

#endif
