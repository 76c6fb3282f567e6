/* recipe.h — gradient and parameter precision of published benchmark recipes.
 *
 * NVIDIA's benchmark tables are produced by framework recipes that change two
 * Megatron defaults the tables do not print: gradients reduced in bf16 instead of
 * fp32 (grad_reduce_in_fp32 off, NeMo's grad_sync_dtype bf16), and FP8 weights
 * all-gathered in FP8 (fp8_param_gather).  data/recipes.csv (compiled in) maps the
 * framework a benchmark row names to those switches, with the recipe file that
 * sets them.  Used by `autoconfig validate`.
 */
#ifndef AC_ESTIMATOR_RECIPE_H
#define AC_ESTIMATOR_RECIPE_H

#include <stdbool.h>
#include "util/err.h"

typedef struct {
    char framework[64];       /* substring of a benchmark row's framework cell */
    bool grad_reduce_in_fp32; /* false: 2-byte gradients */
    bool fp8_param_gather;    /* per-tensor FP8 runs keep and gather 1-byte weights */
    char source[320];
} recipe_defaults;

/* Loads the compiled-in table once.  -1 only when the data file is malformed. */
int recipe_table_load(ac_err *e);
/* the first row whose framework text occurs in `framework` (case-insensitive);
 * NULL: Megatron-LM's own defaults (fp32 reduction under bf16, bf16 gathers) */
const recipe_defaults *recipe_match(const char *framework);

#endif
