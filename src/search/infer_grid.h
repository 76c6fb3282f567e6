/* infer_grid.h — the inference-search grid: TP × PP × batch size.
 *
 * Enumerates the original's sweep (reference §7): the cartesian product of
 * tensor_parallel_sizes × pipeline_parallel_sizes × batch_sizes, in that order,
 * filtered per (tp, pp) with the original's rules, G = gpus_per_node:
 *   heads         A % tp == 0
 *   kv_heads      GQA only (ours): g % tp == 0 or tp % g == 0 (KV heads split
 *                 evenly or replicated); always true for multi-head attention
 *   layers        L % pp == 0
 *   partial_node  pp == 1, or pp > 1 and tp ≥ G (a pipeline stage owns whole nodes)
 *   nodes         nodes_needed(G, tp, pp) > 0 (tp > G must be a multiple of G)
 * Every rejected (tp, pp) is listed with the first rule it breaks (the batch
 * sizes do not take part in any rule, so a pair is rejected for all of them).
 * Repeated list values are used once, first occurrence (the original would
 * launch the same job twice).  Nothing valid → AC_E_INPUT naming the rules.
 */
#ifndef AC_SEARCH_INFER_GRID_H
#define AC_SEARCH_INFER_GRID_H

#include <stddef.h>

#include "model/shape.h"
#include "util/err.h"

typedef enum {
    SEARCH_IRULE_HEADS = 0,
    SEARCH_IRULE_KV_HEADS,
    SEARCH_IRULE_LAYERS,
    SEARCH_IRULE_PARTIAL_NODE,
    SEARCH_IRULE_NODES,
    SEARCH_IRULE_COUNT,
    SEARCH_IRULE_NONE = -1 /* valid */
} search_infer_rule;

/* "heads", "kv_heads", "layers", "partial_node", "nodes" */
const char *search_infer_rule_name(search_infer_rule r);
/* the rule as a formula, e.g. "num_attention_heads % tp == 0" */
const char *search_infer_rule_text(search_infer_rule r);

typedef struct {
    int tp, pp, bs;
    int nodes;          /* nodes_needed(G, tp, pp) */
    int tasks_per_node; /* min(G, tp) */
} search_infer_cfg;

typedef struct {
    int tp, pp;
    search_infer_rule rule;
    char why[192]; /* "tp 3: num_attention_heads 32 % 3 = 2" */
} search_infer_reject;

typedef struct {
    search_infer_cfg *items; /* valid configurations, tp-major, then pp, then bs */
    size_t n;
    search_infer_reject *rejected; /* rejected (tp, pp) pairs, in grid order */
    size_t n_rejected;
    int n_bs; /* distinct batch sizes (each rejected pair stands for this many configs) */
} search_infer_grid;

/* nodes for one model replica (reference §7): pp if tp ≤ G; 0 if tp > G and
 * tp % G ≠ 0; else max(pp, pp·tp / G).  0 also for non-positive inputs. */
int search_infer_nodes_needed(int gpus_per_node, int tp, int pp);
/* Slurm tasks per node (reference §7): min(G, tp) */
int search_infer_tasks_per_node(int gpus_per_node, int tp);

/* the first rule (tp, pp) breaks, or SEARCH_IRULE_NONE; why (may be NULL) says how */
search_infer_rule search_infer_check(const model_shape *s, int gpus_per_node, int tp, int pp, char *why, size_t why_len);

/* builds the grid; values must be ≥ 1 (AC_E_INPUT otherwise).  On error g is empty. */
int search_infer_grid_build(const model_shape *s, int gpus_per_node, const int *tp, int ntp, const int *pp, int npp,
                            const int *bs, int nbs, search_infer_grid *g, ac_err *e);
void search_infer_grid_free(search_infer_grid *g);

#endif
