/* pick.h — the recommendation: which scored candidate the optimal config is.
 *
 * The search scores the original's grid and walks the wider space (grid.h).  The
 * recommendation is the best of both, read with the estimator's own uncertainty:
 * every candidate whose predicted score is within the tie band of the best
 * (search_tie_band) is a tie, and among ties one under 98 % of GPU memory (the original's
 * advice against a crash on a memory spike) wins, then the conventional layout, in this
 * order: TP inside one node, fewest model-parallel GPUs (TP·PP·CP), TP·CP inside one
 * node, no recompute, larger DP; then the higher score.  Candidates that are the same
 * run (a recompute that recomputes nothing) are counted once.  On a real cluster the
 * best measured run is the recommendation (search_pick_measured); a prediction is
 * recommended only where nothing was measured.
 *
 * Beside the pick: the fastest candidate, the original's choice (the best of its grid),
 * the best candidate under 98 % of GPU memory when the pick needs more (the original's
 * advice), and the node count that meets max_training_days when the pick does not.
 */
#ifndef AC_SEARCH_PICK_H
#define AC_SEARCH_PICK_H

#include <stdbool.h>

#include "config/cfg.h"
#include "estimator/est.h"
#include "search/grid.h"
#include "util/err.h"

struct search_train_result;

typedef struct {
    bool found;
    search_candidate cand;
    est_result est;
    char name[256];
} search_pick_entry;

/* why a tie went to the pick rather than the fastest (first criterion that differs) */
typedef enum {
    PICK_WHY_FASTEST = 0,   /* the pick is the fastest */
    PICK_WHY_TP_IN_NODE,
    PICK_WHY_FEWER_MP,
    PICK_WHY_TPCP_IN_NODE,
    PICK_WHY_NO_RECOMPUTE,
    PICK_WHY_LARGER_DP,
    PICK_WHY_UNDER_MEM,     /* under mem_warn_frac of GPU memory, where the fastest is not */
} search_pick_why;

typedef struct {
    search_pick_entry pick;      /* the recommendation */
    search_pick_entry fastest;   /* the best predicted score of everything scored */
    search_pick_entry original;  /* the original's choice: best of its grid (found false when it has none) */
    search_pick_entry under_mem; /* the best candidate under mem_warn_frac (when pick.mem_warn) */
    bool measured;               /* the pick is a measured run; measured_step_s its step time */
    double measured_step_s;
    double band;                 /* the relative tie band used */
    long n_ties;                 /* distinct candidates within the band (the fastest included) */
    search_pick_why why;
    bool mem_warn;               /* the pick needs more than mem_warn_frac of GPU memory */
    double mem_frac;             /* the pick's memory need over the GPU's memory */
    bool over_budget;            /* predicted days > max_training_days */
    int budget_nodes;            /* nodes that meet max_training_days at the pick's layout; 0 = none found */
    double budget_days;          /* predicted days at budget_nodes */
} search_pick;

/* the memory share above which the pick is flagged (the original's advice) */
#define SEARCH_MEM_WARN_FRAC 0.98

/* The relative band inside which two predicted scores are a tie: the estimator's ranking band
 * for this GPU and stack (est_rank_band_rel, data/bands.csv: how far runs of one model on one
 * GPU scatter around their shared error), or 5 % for a result without one. */
double search_tie_band(const est_result *r);

/* the conventional order of the tie-break: < 0 when a is the more conventional */
int search_conventional_cmp(const search_candidate *a, const search_candidate *b, int gpus_per_node,
                            search_pick_why *why);

/* whether a candidate that recomputes is the same run as without (the estimator sees
 * no difference: selective recompute under flash attention, 0 checkpointed layers);
 * in is scratch, overwritten */
bool search_pick_is_twin(const struct search_train_result *r, est_input *in, const search_candidate *k,
                         const est_result *res);

/* What the pick needs of the wider space, gathered during the search's one walk of it so
 * the space is not walked twice: the candidates within the tie band of the best seen so
 * far (pruned as the best rises, kept in visit order), the original's best and the best
 * under mem_warn_frac. */
typedef struct {
    search_candidate cand;
    est_result est;
    double score;
} search_pick_seen;

typedef struct {
    const ac_config *c;
    const struct search_train_result *r;
    search_pick_seen *ties;
    size_t n_ties, cap;
    double best, band;
    bool failed;                 /* out of memory: the ties are incomplete */
    search_pick_seen original, under_mem;
    bool have_original, have_under_mem;
} search_pick_walk;

void search_pick_walk_init(search_pick_walk *w, const ac_config *c, const struct search_train_result *r);
/* one candidate of the walk predicted to fit */
void search_pick_walk_add(search_pick_walk *w, const search_candidate *k, const est_result *res);
void search_pick_walk_free(search_pick_walk *w);

/* The predicted pick of a scored search (grid items and, when walk is given and the walk
 * finished, the wider space), with the memory and budget checks.  Called by search_train_run. */
int search_pick_predicted(const ac_config *c, struct search_train_result *r, const search_pick_walk *walk, ac_err *e);

/* After real runs: the best measured run becomes the pick (nothing changes when none
 * was measured). */
void search_pick_measured(const ac_config *c, struct search_train_result *r);

/* "TP inside a node", ... for messages */
const char *search_pick_why_text(search_pick_why w);

#endif
