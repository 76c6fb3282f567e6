/* named.c — architectures by published name (named.h). */
#include "model/named.h"

#include <ctype.h>
#include <string.h>

#include "model/family.h"

/* served architectures beyond the presets; numbers from each model's config.json */
static const struct {
    const char *key; /* normalised name */
    int layers, hidden, heads, groups, head_dim, vocab, ffn;
    int experts, topk, moe_ffn, shared_ffn, dense_layers;
    const char *source;
} NAMED[] = {
    /* Qwen/Qwen3-30B-A3B config.json: 48 layers, hidden 2048, 32 heads, 4 KV heads, head_dim 128,
     * vocab 151936, 128 experts top-8 of moe_intermediate_size 768, tie_word_embeddings false */
    { "qwen330ba3b", 48, 2048, 32, 4, 128, 151936, 6144, 128, 8, 768, 0, 0, "Qwen/Qwen3-30B-A3B config.json" },
    /* Qwen/Qwen3-235B-A22B config.json: 94 layers, hidden 4096, 64 heads, 4 KV heads, head_dim 128,
     * 128 experts top-8 of 1536 */
    { "qwen3235ba22b", 94, 4096, 64, 4, 128, 151936, 12288, 128, 8, 1536, 0, 0, "Qwen/Qwen3-235B-A22B config.json" },
    /* meta-llama/Llama-4-Scout-17B-16E text_config: 48 layers, hidden 5120, 40 heads, 8 KV heads,
     * head_dim 128, vocab 202048, 16 experts top-1 of intermediate_size 8192 plus a shared expert of
     * 8192 in every layer (interleave_moe_layer_step 1) */
    { "llama4scout", 48, 5120, 40, 8, 128, 202048, 16384, 16, 1, 8192, 8192, 0, "meta-llama/Llama-4-Scout-17B-16E config.json" },
    /* meta-llama/Llama-4-Maverick-17B-128E text_config: as Scout with 128 experts, MoE on every other
     * layer (interleave_moe_layer_step 2), the other 24 dense with intermediate_size_mlp 16384 */
    { "llama4maverick", 48, 5120, 40, 8, 128, 202048, 16384, 128, 1, 8192, 8192, 24,
      "meta-llama/Llama-4-Maverick-17B-128E config.json" },
};

/* words a published name may carry that do not change the architecture */
static const char *const SUFFIXES[] = { "instruct", "chat", "hf", "fp8", "fp4", "nvfp4", "bf16", "fp16", "17b16e", "17b128e" };

/* lower-case letters and digits only */
static void normalise(const char *in, char *out, size_t len)
{
    size_t o = 0;
    for (; *in && o + 1 < len; in++)
        if (isalnum((unsigned char)*in)) out[o++] = (char)tolower((unsigned char)*in);
    out[o] = '\0';
}

/* drops known suffixes from the end, repeatedly */
static void strip_suffixes(char *k)
{
    for (int again = 1; again;) {
        again = 0;
        size_t n = strlen(k);
        for (size_t i = 0; i < sizeof SUFFIXES / sizeof *SUFFIXES; i++) {
            size_t m = strlen(SUFFIXES[i]);
            if (n > m && !strcmp(k + n - m, SUFFIXES[i])) { k[n - m] = '\0'; again = 1; break; }
        }
    }
}

static int from_preset(const char *key, model_shape *s, const char **source)
{
    char names[1024];
    model_preset_arch_names(names, sizeof names);
    char *save = NULL;
    for (char *tok = strtok_r(names, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
        char k[64];
        normalise(tok, k, sizeof k);
        if (strcmp(k, key)) continue;
        const model_preset_arch *pa = model_preset_arch_find(tok);
        if (!pa) return -1;
        model_preset_shape(pa, pa->vocab, pa->seq, s);
        if (source) *source = pa->source;
        return 0;
    }
    return -1;
}

int model_named_shape(const char *name, model_shape *s, const char **source)
{
    char key[128];
    if (!name) return -1;
    normalise(name, key, sizeof key);
    strip_suffixes(key);
    if (!key[0]) return -1;
    if (from_preset(key, s, source) == 0) return 0;
    for (size_t i = 0; i < sizeof NAMED / sizeof *NAMED; i++) {
        if (strcmp(NAMED[i].key, key)) continue;
        memset(s, 0, sizeof *s);
        s->arch = ARCH_DECODER;
        s->num_layers = NAMED[i].layers;
        s->hidden = NAMED[i].hidden;
        s->heads = NAMED[i].heads;
        s->query_groups = NAMED[i].groups;
        s->kv_channels = NAMED[i].head_dim;
        s->vocab = NAMED[i].vocab;
        s->ffn_hidden = NAMED[i].ffn;
        s->num_experts = NAMED[i].experts;
        s->moe_topk = NAMED[i].topk;
        s->moe_ffn_hidden = NAMED[i].moe_ffn;
        s->moe_shared_ffn = NAMED[i].shared_ffn;
        s->moe_dense_layers = NAMED[i].dense_layers;
        s->gated_mlp = s->untied_embeddings = true;
        if (source) *source = NAMED[i].source;
        return 0;
    }
    return -1;
}
