/* family.c — the family and built-in architecture tables (see family.h). */
#include "model/family.h"

#include <stdio.h>
#include <string.h>

/* build/gen/base_<name>.c: base_configs/<name>.yaml compiled in */
extern const char ac_base_gpt3[], ac_base_t5[], ac_base_mt5[], ac_base_bert[], ac_base_llama[], ac_base_mixtral[];

static const model_family FAMILIES[FAM_COUNT] = {
    /* id         name       arch                   mult template   (compiled in)   size  time  auto  gated untied learnpos dec */
    { FAM_GPT3, "gpt3", ARCH_DECODER, 1, "gpt3.yaml", ac_base_gpt3, 1.0, 1.0, true, false, false, true, 0 },
    { FAM_T5, "t5", ARCH_ENCODER_DECODER, 2, "t5.yaml", ac_base_t5, 1.0, 1.0, true, true, false, false, 128 },
    { FAM_MT5, "mt5", ARCH_ENCODER_DECODER, 2, "mt5.yaml", ac_base_mt5, 0.87, 1.15, true, true, false, false, 128 },
    { FAM_BERT, "bert", ARCH_ENCODER, 1, "bert.yaml", ac_base_bert, 1.0, 1.0, true, false, false, true, 0 },
    { FAM_LLAMA, "llama", ARCH_DECODER, 1, "llama.yaml", ac_base_llama, 1.0, 1.0, false, true, true, false, 0 },
    { FAM_MIXTRAL, "mixtral", ARCH_DECODER, 1, "mixtral.yaml", ac_base_mixtral, 1.0, 1.0, false, true, true, false, 0 },
};

const model_family *model_family_find(const char *name)
{
    for (int i = 0; i < FAM_COUNT; i++)
        if (!strcmp(FAMILIES[i].name, name)) return &FAMILIES[i];
    return NULL;
}

const model_family *model_family_get(family_id id)
{
    return id >= 0 && id < FAM_COUNT ? &FAMILIES[id] : NULL;
}

const char *model_family_names(void)
{
    return "gpt3, t5, mt5, bert, llama, mixtral";
}

/* Published architectures (config.json of each Hugging Face release; Mixtral
 * from the Mistral AI release notes). lr as in the NeMo/FL recipes.  The last
 * four columns follow the NeMo launcher's training config of the model: its
 * global batch (Mixtral 8x7B: 256; 8x22B's GBS of 1 is a smoke-test value, so the
 * family's 4M-token rule stays), init_method_std, and the tokenizer each release
 * ships (Llama 3: a tiktoken BPE file loaded through Hugging Face, never SentencePiece;
 * docs/original-bugs.md lists where we differ from the launcher on purpose). */
#define HF "huggingface"
static const model_preset_arch PRESETS[] = {
    /* name            family       size   L   h     F      A   g  V       seq   E  k  max_ctx lr      source
     *                 gbs  init_std  tokenizer library, type */
    { "llama2_7b", FAM_LLAMA, 7, 32, 4096, 11008, 32, 32, 32000, 4096, 0, 0, 4096, 3.0e-4, "meta-llama/Llama-2-7b-hf config.json",
      0, 0, NULL, NULL },
    { "llama2_13b", FAM_LLAMA, 13, 40, 5120, 13824, 40, 40, 32000, 4096, 0, 0, 4096, 3.0e-4, "meta-llama/Llama-2-13b-hf config.json",
      0, 0, NULL, NULL },
    { "llama2_70b", FAM_LLAMA, 70, 80, 8192, 28672, 64, 8, 32000, 4096, 0, 0, 4096, 1.5e-4, "meta-llama/Llama-2-70b-hf config.json",
      0, 0.008944, NULL, NULL },
    { "llama3_8b", FAM_LLAMA, 8, 32, 4096, 14336, 32, 8, 128256, 8192, 0, 0, 8192, 3.0e-4, "meta-llama/Meta-Llama-3-8B config.json",
      0, 0, HF, "meta-llama/Meta-Llama-3-8B" },
    { "llama3_70b", FAM_LLAMA, 70, 80, 8192, 28672, 64, 8, 128256, 8192, 0, 0, 8192, 1.5e-4, "meta-llama/Meta-Llama-3-70B config.json",
      0, 0.008944, HF, "meta-llama/Meta-Llama-3-70B" },
    { "llama3_1_8b", FAM_LLAMA, 8, 32, 4096, 14336, 32, 8, 128256, 8192, 0, 0, 131072, 3.0e-4, "meta-llama/Llama-3.1-8B config.json",
      0, 0.01, HF, "meta-llama/Meta-Llama-3-8B" },
    { "llama3_1_70b", FAM_LLAMA, 70, 80, 8192, 28672, 64, 8, 128256, 8192, 0, 0, 131072, 1.5e-4, "meta-llama/Llama-3.1-70B config.json",
      0, 0.008944, HF, "meta-llama/Meta-Llama-3-8B" },
    { "llama3_1_405b", FAM_LLAMA, 405, 126, 16384, 53248, 128, 8, 128256, 8192, 0, 0, 131072, 8.0e-5, "meta-llama/Llama-3.1-405B config.json",
      0, 0.02, HF, "meta-llama/Meta-Llama-3-8B" },
    { "llama3_3_70b", FAM_LLAMA, 70, 80, 8192, 28672, 64, 8, 128256, 8192, 0, 0, 131072, 1.5e-4, "meta-llama/Llama-3.3-70B-Instruct config.json",
      0, 0.008944, HF, "meta-llama/Meta-Llama-3-8B" },
    { "mixtral_8x7b", FAM_MIXTRAL, 46.7, 32, 4096, 14336, 32, 8, 32000, 4096, 8, 2, 32768, 1.0e-4, "mistralai/Mixtral-8x7B-v0.1 config.json",
      256, 0.02, HF, "mistralai/Mixtral-8x7B-v0.1" },
    { "mixtral_8x22b", FAM_MIXTRAL, 140.6, 56, 6144, 16384, 48, 8, 32768, 4096, 8, 2, 65536, 1.0e-4, "mistralai/Mixtral-8x22B-v0.1 config.json",
      0, 0.02, HF, "mistral-community/Mixtral-8x22B-v0.1" },
};
#undef HF

const model_preset_arch *model_preset_arch_find(const char *name)
{
    for (size_t i = 0; i < sizeof PRESETS / sizeof PRESETS[0]; i++)
        if (!strcmp(PRESETS[i].name, name)) return &PRESETS[i];
    return NULL;
}

const model_preset_arch *model_preset_arch_at(size_t i)
{
    return i < sizeof PRESETS / sizeof PRESETS[0] ? &PRESETS[i] : NULL;
}

void model_preset_arch_names(char *buf, size_t len)
{
    size_t o = 0;
    if (len) buf[0] = '\0';
    for (size_t i = 0; i < sizeof PRESETS / sizeof PRESETS[0] && o < len; i++) {
        int w = snprintf(buf + o, len - o, "%s%s", i ? ", " : "", PRESETS[i].name);
        if (w < 0) break;
        o += (size_t)w;
    }
}

void model_preset_shape(const model_preset_arch *pa, int vocab, int seq, model_shape *s)
{
    memset(s, 0, sizeof *s);
    s->arch = ARCH_DECODER;
    s->num_layers = pa->layers;
    s->hidden = pa->hidden;
    s->ffn_hidden = pa->ffn;
    s->heads = pa->heads;
    s->query_groups = pa->query_groups;
    s->kv_channels = pa->hidden / pa->heads;
    s->vocab = vocab;
    s->seq_length = seq;
    s->gated_mlp = s->untied_embeddings = true;
    if (pa->experts > 1) {
        s->num_experts = pa->experts;
        s->moe_topk = pa->topk;
        s->moe_ffn_hidden = pa->ffn;
    }
}
