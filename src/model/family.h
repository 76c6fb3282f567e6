/* family.h — the model families autoconfig knows, as one data table.
 *
 * gpt3, t5, mt5 and bert are the original's; llama (GQA, SwiGLU, RoPE,
 * untied embeddings) and mixtral (mixture of experts) are ours.  Each row says
 * how the family is built (architecture, template, FLOP formula) and which of
 * the original's size rules apply.
 */
#ifndef AC_MODEL_FAMILY_H
#define AC_MODEL_FAMILY_H

#include <stddef.h>
#include <stdbool.h>

#include "model/shape.h"

typedef enum { FAM_GPT3, FAM_T5, FAM_MT5, FAM_BERT, FAM_LLAMA, FAM_MIXTRAL, FAM_COUNT } family_id;

typedef struct {
    family_id id;
    const char *name;          /* as in search_config=<name>/<size> */
    model_arch arch;
    int layer_multiplier;      /* 2 for encoder-decoder (the original's "multiplier") */
    const char *template_file; /* base_configs/<file> */
    const char *template_text; /* the same file compiled in (Makefile: ac_base_<name>) */
    double size_penalty;       /* §2: model size from budget × this (0.87 for mT5) */
    double time_penalty;       /* §2: training days × this (1.15 for mT5) */
    bool original_autosize;    /* the original recommends sizes for this family */
    bool gated_mlp, untied_embeddings, learned_pos_emb;
    int default_dec_seq;       /* T5 data.seq_length_dec */
} model_family;

const model_family *model_family_find(const char *name);
const model_family *model_family_get(family_id id);
/* "gpt3, t5, mt5, bert, llama, mixtral" */
const char *model_family_names(void);

/* a built-in architecture (llama2_7b, mixtral_8x7b, ...) */
typedef struct {
    const char *name;
    family_id family;
    double size_b; /* nominal size, as the preset names it */
    int layers, hidden, ffn, heads, query_groups, vocab, seq;
    int experts, topk;
    int max_context; /* max_position_embeddings: the longest context the release supports */
    double lr;
    const char *source; /* where the numbers come from */
    /* training settings of the NeMo launcher's config for this model (conf/training/<family>/<name>.yaml)
     * where it is sensible; 0 / NULL = the family's rule or template */
    int gbs;
    double init_std;
    const char *tokenizer_library, *tokenizer_type;
} model_preset_arch;

const model_preset_arch *model_preset_arch_find(const char *name);
/* the i-th built-in architecture (0, 1, ...), NULL past the last: to walk them all */
const model_preset_arch *model_preset_arch_at(size_t i);
/* the decoder shape of a built-in architecture (GQA, gated MLP, untied embeddings, experts),
 * with the vocabulary and sequence length the caller trains or serves it at */
void model_preset_shape(const model_preset_arch *pa, int vocab, int seq, model_shape *s);
/* every built-in architecture's name, ", "-separated (for errors) */
void model_preset_arch_names(char *buf, size_t len);

#endif
