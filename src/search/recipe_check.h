/* recipe_check.h — NeMo's published performance recipes as search candidates.
 *
 * NVIDIA publishes the layouts its performance recipes train with
 * (../shared/reference/nemo-configs/recipes/model_configs_<gpu>.csv: model, GPU, GPU
 * count, precision, TP/PP/CP/EP/VP, MBS, GBS and switches).  For a pre-training row
 * of a model with a preset, search_recipe_find walks the exhaustive space with the
 * recipe's precision and switches searched and reports whether the recipe's layout is
 * a candidate and whether it is predicted to fit.  Rows the target release (NeMo
 * v2.0.0, Megatron-Core 0.9) cannot run are named with the reason (Megatron FSDP,
 * layer splits that need account_for_embedding/loss_in_pipeline_split), and the
 * nearest layout it can run is checked instead.  The acceptance test
 * (tests/unit/test_recipes.c) and the bench table (bench/bench_recipes.c) use it.
 */
#ifndef AC_SEARCH_RECIPE_CHECK_H
#define AC_SEARCH_RECIPE_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "config/cfg.h"
#include "estimator/est.h"
#include "model/basecfg.h"
#include "search/grid.h"
#include "util/err.h"

typedef struct {
    char model[32], size[16], system[16], dtype[16];
    int num_gpus, seq, tp, pp, cp, ep, vp, mbs, gbs, etp;
    bool cuda_graphs, fsdp;
    int recompute_layers, offload_layers;
    char recompute_modules[64];
    int line; /* in the CSV */
} search_recipe;

/* the pre_train rows of one recipes CSV; *n set, rows allocated (free()) */
int search_recipes_load(const char *path, search_recipe **rows, size_t *n, ac_err *e);

/* the preset ("llama/llama3_70b") of a recipe's model, NULL when there is none */
const char *search_recipe_preset(const search_recipe *r);
/* the catalog GPU of a recipe's system ("h100" → "h100") */
const char *search_recipe_gpu(const search_recipe *r);
/* "llama3 70b h100 bf16 64 GPUs" */
void search_recipe_label(const search_recipe *r, char *buf, size_t len);

/* the command-line overrides that load the recipe's preset on its cluster with its
 * sequence length, global batch, precision and switches searched (exhaustive mode);
 * returns the count (≤ cap), each in ov[i] */
int search_recipe_overrides(const search_recipe *r, int gpus_per_node, char ov[][160], int cap);

typedef struct {
    bool found;            /* the recipe's (or the nearest runnable) layout is a candidate */
    bool fits;             /* ... predicted to fit */
    search_candidate cand; /* the matching candidate (the best-fitting variant) */
    est_result est;
    char departure[200];   /* what the check changed from the recipe, and why ("" = nothing) */
    char excluded[200];    /* the row cannot be checked at all in the target release, and why */
} search_recipe_match;

/* Walks the exhaustive space of the loaded config for the recipe's layout. */
int search_recipe_find(const ac_config *c, const model_base_config *b, const search_recipe *r, search_recipe_match *m,
                       ac_err *e);

#endif
