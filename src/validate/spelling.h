/* spelling.h — how real benchmark tables write the cells `validate` reads.
 *
 * Tables from different stacks spell one thing many ways: precision ("amp_bf16",
 * "bf16-mixed", Lightning's "16-mixed" (fp16 AMP), "fp8-hybrid", "mixed precision
 * (FP16)"), switches ("y", "yes", "true", "1"), optimizer sharding ("ZeRO-3",
 * "distributed_fused_adam", "FULL_SHARD", "no (fused_adam)"), recompute (a blank
 * act_recompute with "full activation recompute" in the notes) and the FLOP count a
 * published TFLOP/s figure was computed with ("6ND", Megatron's formula, a 4-pass
 * count with recompute).  Each reader is a table of spellings; a cell none of them
 * recognises is reported, never guessed.
 */
#ifndef AC_VALIDATE_SPELLING_H
#define AC_VALIDATE_SPELLING_H

#include <stdbool.h>

#include "estimator/est.h"

/* Cells that say nothing: "-", "—", "n/a", "N/A", "na", "?", "unknown", "not stated",
 * "not published" (read as blank) */
bool spell_blank(const char *cell);

/* Precision of a table cell.  0 and *out (and *block_scaled: MXFP8 / block-scaled FP8),
 * -1 when the cell names no precision this table knows. */
int spell_precision(const char *cell, est_precision *out, bool *block_scaled);

/* Per-tensor current scaling named in an FP8 precision cell ("FP8 (per-tensor current
 * scaling)", "FP8-CS", Megatron's --fp8-recipe tensorwise); delayed scaling otherwise */
bool spell_fp8_current_scaling(const char *cell);

/* Whether a cell names one of the phrases (NULL-terminated; case, '_' and '-' alike): 1 when
 * it does, -1 when an occurrence is negated before or after it ("no torch.compile", "without
 * torch_compile", "torch.compile: off", "torch.compile not stated"), 0 when none occurs */
int spell_named(const char *cell, const char *const *phrases);

/* A yes/no cell by its first word (y, yes, true, t, 1, on, enabled / n, no, false, f, 0,
 * off, disabled, none): 1 with *out set, 0 when blank or unrecognised. */
int spell_bool(const char *cell, bool *out);

/* A memory reading as tables print it, in GiB: "71.9", "71.9 GiB", "69.6 GB" (10^9 bytes),
 * "58500 MB", "97871 MiB", "76/80 GiB" (used of total: the first number); 1 with *gib set,
 * 0 when the cell holds no such number */
int spell_memory_gib(const char *cell, double *gib);

/* Optimizer/weight sharding from the dist_opt_zero and fsdp cells: 0 plain DDP, 1
 * distributed optimizer (ZeRO-1), 2 + gradients, 3 FSDP / + parameters.  Blank cells
 * leave *stage as it is (the stack's default).  0, or -1 with the unreadable cell's
 * column named in *which ("dist_opt_zero" or "fsdp"). */
int spell_zero_stage(const char *dist_opt, const char *fsdp, int *stage, const char **which);

/* Recompute from the act_recompute cell, or, when it is blank, from a phrase in the notes
 * ("full activation recompute", "gradient checkpointing", "selective recompute"; a "no"
 * or "without" right before the phrase negates it).  0 with *out set, or left as it is when
 * neither says anything (the stack's default); -1 when the cell is filled but unrecognised. */
int spell_recompute(const char *cell, const char *notes, est_recompute *out);

/* The FLOP count behind a published TFLOP/s figure (the flops_formula cell) */
typedef enum {
    FLOPS_MEGATRON = 0, /* the original's / Megatron's formula, non-causal attention (est_model_flops) */
    FLOPS_CAUSAL_HALF,  /* the same with causal self-attention counted at 1/2 (Megatron-Bridge >= 25.09) */
    FLOPS_6ND,          /* 6 FLOPs per parameter per token, no attention term (Kaplan et al. 2020) */
    FLOPS_8ND,          /* 4 passes (forward recomputed): 8 per parameter per token (hardware FLOPs, HFU) */
} spell_flops;
spell_flops spell_flops_formula(const char *cell);

#endif
