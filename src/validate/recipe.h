/* recipe.h — switches of published benchmark recipes that the tables do not print.
 *
 * NVIDIA's benchmark tables come from framework recipes that change Megatron
 * defaults: gradients reduced in bf16 instead of fp32 (grad_reduce_in_fp32 off,
 * NeMo's grad_sync_dtype bf16), FP8 weights all-gathered in FP8 (fp8_param_gather),
 * for some workloads activation offload to host memory, and from some release on
 * full-iteration CUDA graphs with the MoE all-to-all overlapped.  data/recipes.csv
 * (compiled in) lists them, each row with the recipe file or pull request that sets
 * it; a row applies to a benchmark row whose framework, model, GPU and precision
 * contain its texts at the start of a word, whose TP/PP/FSDP equal its numbers
 * (empty cells match anything) and, when the row names a first release, whose
 * container release is that one or later.  Each switch comes from the first
 * applicable row that sets it.  Used by `validate`.
 */
#ifndef AC_VALIDATE_RECIPE_H
#define AC_VALIDATE_RECIPE_H

#include <stdbool.h>
#include <stddef.h>
#include "util/err.h"

/* what a benchmark row says about itself */
typedef struct {
    const char *framework, *model, *gpu, *precision;
    const char *release; /* container release such as "26.06.01"; NULL or "" when unknown */
    int tp, pp;
    bool fsdp;
} recipe_query;

/* switches; -1 where no applicable recipe row sets them */
typedef struct {
    int grad_reduce_in_fp32;       /* 0: 2-byte gradients */
    int fp8_param_gather;          /* 1: FP8 runs keep FP8 weights (no bf16 copy) and gather 1 byte */
    int cpu_offloading_num_layers; /* activation offload of that many layers */
    int cuda_graphs;               /* 1: the whole iteration replayed as a CUDA graph */
    int moe_a2a_overlap;           /* 1: MoE all-to-all hidden behind another micro-batch */
    int recompute_mla_up_proj;     /* 1: MLA's up-projected Q, K, V recomputed in backward */
    int recompute_layernorm;       /* 1: the norms' outputs recomputed in backward */
    int recompute_moe_act;         /* 1: the routed experts' activation output recomputed */
    int fused_expert_mlp;          /* 1: experts' FC1, activation and FC2 in one fused grouped kernel */
    int pp_layout;                 /* an est_pp_layout: how layers split over pipeline stages */
    int overlap_grad_sync;         /* 0: gradients reduced after the backward (NeMo optim.overlap_grad_sync) */
    int remat_saves;               /* a JAX remat policy's EST_SAVE_* flags (est_remat_policy_parse) */
} recipe_switches;

/* Loads the compiled-in table once.  -1 only when the data file is malformed. */
int recipe_table_load(ac_err *e);
/* the switches the table gives a row (all -1 when none applies) */
recipe_switches recipe_lookup(const recipe_query *q);

/* The first release number in a text ("... NeMo container 26.06.01)" -> "26.06.01"):
 * two digits, a dot, two digits, optionally more dot-separated numbers, not part of a
 * longer number or version ("2026.06", "0.26.06").  Copies it to out and returns true;
 * false (out = "") when there is none or it does not fit. */
bool recipe_release_in_text(const char *text, char *out, size_t n);
/* release a is b or later, comparing dot-separated numbers (26.06.01 > 26.06 > 26.04.01) */
bool recipe_release_at_least(const char *a, const char *b);

#endif
