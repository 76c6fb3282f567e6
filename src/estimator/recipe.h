/* recipe.h — switches of published benchmark recipes that the tables do not print.
 *
 * NVIDIA's benchmark tables come from framework recipes that change Megatron
 * defaults: gradients reduced in bf16 instead of fp32 (grad_reduce_in_fp32 off,
 * NeMo's grad_sync_dtype bf16), FP8 weights all-gathered in FP8 (fp8_param_gather),
 * and for some workloads activation offload to host memory.  data/recipes.csv
 * (compiled in) lists them, each row with the recipe file that sets it; a row
 * applies to a benchmark row whose framework, model, GPU and precision contain its
 * texts and whose TP/PP/FSDP equal its numbers (empty cells match anything).  Each
 * switch comes from the first applicable row that sets it.  Used by `validate`.
 */
#ifndef AC_ESTIMATOR_RECIPE_H
#define AC_ESTIMATOR_RECIPE_H

#include <stdbool.h>
#include "util/err.h"

/* what a benchmark row says about itself */
typedef struct {
    const char *framework, *model, *gpu, *precision;
    int tp, pp;
    bool fsdp;
} recipe_query;

/* switches; -1 where no applicable recipe row sets them */
typedef struct {
    int grad_reduce_in_fp32;       /* 0: 2-byte gradients */
    int fp8_param_gather;          /* 1: FP8 runs keep FP8 weights (no bf16 copy) and gather 1 byte */
    int cpu_offloading_num_layers; /* activation offload of that many layers */
} recipe_switches;

/* Loads the compiled-in table once.  -1 only when the data file is malformed. */
int recipe_table_load(ac_err *e);
/* the switches the table gives a row (all -1 when none applies) */
recipe_switches recipe_lookup(const recipe_query *q);

#endif
