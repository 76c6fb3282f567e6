/* named.h — a model's architecture from its published name.
 *
 * Benchmark tables often name a model ("Llama 3.1 8B", "Qwen3-235B-A22B")
 * without its shape.  model_named_shape() resolves the name: first the
 * built-in presets (family.h: llama3_1_8b, mixtral_8x7b, ...), then the
 * architectures of data/models.csv (GPT-3, OPT, BLOOM, LLaMA, MPT, Falcon, Qwen,
 * Nemotron-4, Grok-1, DeepSeek-V3, Kimi K2, ...), each row from the model's published
 * config.json or paper, with the positions its release supports (context).  Names match ignoring case, blanks, dots, dashes and
 * underscores ("Llama-3.1-8B-Instruct" → llama3_1_8b; suffixes such as Instruct,
 * FP8 are dropped); a name that does not match is tried again without its
 * parenthesised remarks and repeated words ("Grok-1 314B (MoE) 314B").
 */
#ifndef AC_MODEL_NAMED_H
#define AC_MODEL_NAMED_H

#include <stddef.h>

#include "model/shape.h"
#include "util/err.h"

/* loads data/models.csv once (model_named_shape does it on first use); -1 on a malformed row */
int model_named_load(ac_err *e);

/* parses and checks a models table in data/models.csv's form as model_named_load does, without
 * loading it (a copy being edited, tests): 0 and its row count, or -1 at the first malformed
 * cell with file, line and column */
int model_named_check_text(const char *text, size_t len, const char *file, size_t *rows, ac_err *e);

/* what a name resolves to: a preset or a data/models.csv row */
typedef struct {
    model_shape shape;  /* decoder, vocab set, seq_length 0 */
    const char *source; /* where the numbers come from */
    const char *canon;  /* the listed name, as `autoconfig models` prints it */
    int context;        /* max_position_embeddings; 0 = unpublished */
} model_named_hit;

/* 0 and *h, or -1 when the name is unknown (one lookup for all a caller needs of it) */
int model_named_find(const char *name, model_named_hit *h);

/* the listed name (data/models.csv row or preset) nearest an unknown one, when it is a few edits
 * away ("nemotron_h_8" → nemotron_h_8b); NULL when none is */
const char *model_named_suggest(const char *name);

/* 0 and *s (decoder, vocab set, seq_length 0) and *source (where the numbers come from), or
 * -1 when unknown */
int model_named_shape(const char *name, model_shape *s, const char **source);

/* the listed name (data/models.csv row or preset) a name matches, as `autoconfig models`
 * prints it ("Nemotron-H 8B" → nemotron_h_8b); NULL when unknown */
const char *model_named_canonical(const char *name);

/* the positions a name's release supports (max_position_embeddings: the data/models.csv row's
 * context, the preset's max_context); 0 when none is published or the name is unknown */
int model_named_context(const char *name);

/* the rows of data/models.csv (after model_named_load): their count, and row i's name,
 * architecture, context (0 = unpublished) and source; -1 past the end */
size_t model_named_count(void);
int model_named_at(size_t i, const char **name, model_shape *s, int *context, const char **source);

#endif
