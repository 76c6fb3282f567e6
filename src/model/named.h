/* named.h — a model's architecture from its published name.
 *
 * Benchmark tables often name a model ("Llama 3.1 8B", "Qwen3-235B-A22B")
 * without its shape.  model_named_shape() resolves the name: first the
 * built-in presets (family.h: llama3_1_8b, mixtral_8x7b, ...), then a table of
 * served architectures the presets do not hold (MoE layouts with shared
 * experts or interleaved dense layers), each row from the model's published
 * Hugging Face config.json.  Names match ignoring case, blanks, dots, dashes
 * and underscores ("Llama-3.1-8B-Instruct" → llama3_1_8b; suffixes such as
 * Instruct, FP8 are dropped).
 */
#ifndef AC_MODEL_NAMED_H
#define AC_MODEL_NAMED_H

#include <stddef.h>

#include "model/shape.h"

/* 0 and *s (decoder, vocab set) and *source (where the numbers come from), or -1 when unknown */
int model_named_shape(const char *name, model_shape *s, const char **source);

#endif
