/* arch.h — from a requested size to an architecture, the original's way
 * (reference §3.2–3.5): hidden/heads/ffn/lr by size, the layer count that
 * lands within a margin of the size, parameter counts per family, and the
 * default global batch / TP / PP by size. */
#ifndef AC_MODEL_ARCH_H
#define AC_MODEL_ARCH_H

#include "model/family.h"
#include "model/shape.h"
#include "util/err.h"

typedef struct {
    model_shape shape;
    double lr;
    bool ffn_given;  /* the size table fixes ffn (T5/BERT/ours); GPT keeps the template's 4h */
    bool kv_given;   /* the size table fixes kv_channels (T5) */
} model_arch_choice;

/* Parameters in billions for the given shape (§3.4 for the original's
 * families; our own counts for llama/mixtral). */
double model_param_count_b(family_id fam, const model_shape *s);
/* parameters of a decoder from its shape alone, as a config.json or a published name gives it
 * (its own MLP gating, hybrid blocks, experts, tied or untied embeddings), billions */
double model_param_count_shape_b(const model_shape *s);

/* hidden/heads/ffn/kv/lr for size_b (§3.3) and the layer count found by the
 * §3.5 search; vocab and seq come from the caller. */
int model_arch_for_size(family_id fam, double size_b, int vocab, int seq, model_arch_choice *out, ac_err *e);

/* §3.2: default global batch size, TP and PP for a size (errors outside the table) */
int model_gbs_tp_pp(family_id fam, double size_b, int seq, int gpu_memory_gb, int *gbs, int *tp, int *pp, ac_err *e);

#endif
