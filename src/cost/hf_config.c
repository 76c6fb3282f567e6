/* hf_config.c — a Hugging Face-style config.json as a model shape.
 *
 * The fields are a table (key spellings of the Llama/Mistral/Mixtral and GPT-2
 * families, bounds, required or not); generic code reads and checks them.  The
 * model_type decides what the file does not say: gated MLP, tied embeddings and
 * learned positions.  Errors name the file and the key.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost/cost.h"
#include "model/layer.h"
#include "util/fsutil.h"

enum {
    F_HIDDEN, F_LAYERS, F_HEADS, F_KV, F_FFN, F_VOCAB, F_MAXPOS, F_EXPERTS, F_TOPK, F_MOE_FFN, F_HEAD_DIM,
    F_Q_LORA, F_KV_LORA, F_QK_NOPE, F_QK_ROPE, F_V_HEAD, F_SHARED, F_SHARED_FFN, F_DENSE_FIRST, F_GROUPS, F_GROUP_TOPK,
    F_MAMBA_HEADS, F_MAMBA_HEAD_DIM, F_MAMBA_STATE, F_MAMBA_GROUPS, F_MOE_LATENT, F_N
};

static const struct {
    const char *keys; /* '|'-separated spellings, first found wins */
    bool required;
    double lo, hi;
} HF_FIELDS[F_N] = {
    [F_HIDDEN] = {"hidden_size|n_embd|d_model", true, 1, 1 << 20},
    [F_LAYERS] = {"num_hidden_layers|n_layer|num_layers|n_layers", true, 1, 100000},
    [F_HEADS] = {"num_attention_heads|n_head|n_heads", true, 1, 65536},
    [F_KV] = {"num_key_value_heads|num_kv_heads", false, 1, 65536},
    [F_FFN] = {"intermediate_size|n_inner|ffn_dim", false, 1, 1 << 22},
    [F_VOCAB] = {"vocab_size", true, 1, 1 << 24},
    [F_MAXPOS] = {"max_position_embeddings|n_positions|max_sequence_length|max_seq_len|seq_length", true, 1, 1 << 24},
    [F_EXPERTS] = {"num_local_experts|num_experts|n_routed_experts", false, 1, 65536},
    [F_TOPK] = {"num_experts_per_tok|moe_topk", false, 1, 65536},
    [F_MOE_FFN] = {"moe_intermediate_size", false, 1, 1 << 22},
    [F_HEAD_DIM] = {"head_dim|attention_head_dim", false, 1, 65536},
    /* multi-head latent attention and DeepSeekMoE (DeepSeek-V2/V3 and Kimi-K2 configs) */
    [F_Q_LORA] = {"q_lora_rank", false, 1, 1 << 20},
    [F_KV_LORA] = {"kv_lora_rank", false, 1, 1 << 20},
    [F_QK_NOPE] = {"qk_nope_head_dim", false, 1, 65536},
    [F_QK_ROPE] = {"qk_rope_head_dim", false, 0, 65536},
    [F_V_HEAD] = {"v_head_dim", false, 1, 65536},
    [F_SHARED] = {"n_shared_experts|num_shared_experts", false, 0, 65536},
    [F_SHARED_FFN] = {"shared_expert_intermediate_size|moe_shared_expert_intermediate_size", false, 0, 1 << 22},
    [F_DENSE_FIRST] = {"first_k_dense_replace", false, 0, 100000},
    /* group-limited routing (DeepSeek-V3 §2.1.2): experts in n_group groups, a token's in topk_group */
    [F_GROUPS] = {"n_group", false, 1, 65536},
    [F_GROUP_TOPK] = {"topk_group", false, 1, 65536},
    /* hybrid Mamba-2 blocks (NemotronHConfig: hybrid_override_pattern, read in read_hybrid) */
    [F_MAMBA_HEADS] = {"mamba_num_heads", false, 1, 65536},
    [F_MAMBA_HEAD_DIM] = {"mamba_head_dim", false, 1, 65536},
    [F_MAMBA_STATE] = {"ssm_state_size", false, 1, 65536},
    [F_MAMBA_GROUPS] = {"n_groups|mamba_n_groups", false, 1, 65536},
    /* LatentMoE (Nemotron 3 Super): the experts' latent width */
    [F_MOE_LATENT] = {"moe_latent_size", false, 1, 1 << 20},
};

/* what config.json leaves implicit, by model_type (HF transformers defaults; expert_bias:
 * the routed experts' linear layers carry biases, as GptOssExperts' gate_up_proj_bias and
 * down_proj_bias) */
static const struct {
    const char *type;
    bool gated, tied, learned_pos, expert_bias;
} HF_TYPES[] = {
    {"gpt2", false, true, true},      {"gpt_neox", false, false, false}, {"gptj", false, false, false},
    {"opt", false, true, true},       {"bloom", false, true, false},     {"falcon", false, true, false},
    {"phi", false, false, false},     {"gemma", true, true, false},      {"gemma2", true, true, false},
    {"llama", true, false, false},    {"mistral", true, false, false},   {"mixtral", true, false, false},
    {"qwen", true, false, false},     {"qwen2", true, false, false},     {"mpt", false, true, false},    {"qwen2_moe", true, false, false}, {"phi3", true, false, false},
    {"deepseek_v2", true, false, false}, {"deepseek_v3", true, false, false}, {"kimi_k2", true, false, false},
    {"gpt_oss", true, false, false, true},
    {"nemotron_h", false, false, false}, /* squared-ReLU MLPs and experts (NemotronHConfig mlp_hidden_act relu2) */
};

/* A hybrid Mamba-Transformer (NemotronHConfig): "hybrid_override_pattern" gives each block's
 * kind, one character per layer ('M' Mamba-2, '*' attention, '-' MLP, 'E' experts), and the
 * Mamba-2 sizes come from their own keys; 0 when the file has no pattern */
static int read_hybrid(const cJSON *root, const char *file, const char *type, const long *v, const bool *have,
                       model_shape *s, ac_err *e)
{
    const cJSON *pat = cJSON_GetObjectItemCaseSensitive(root, "hybrid_override_pattern");
    /* the list spelling (Nemotron 3.5: "layers_block_type": ["mamba", "moe", ...]) is not read:
     * refused rather than taken for a transformer */
    if (!pat && cJSON_GetObjectItemCaseSensitive(root, "layers_block_type"))
        return ac_err_at(e, AC_E_INPUT, file, 0, 0, "layers_block_type",
                         "a hybrid stack given as a list of block types is not read: give hybrid_override_pattern");
    /* NemotronHConfig's own default pattern is one model's (8B): a file of that type without
     * the key would be read as a plain transformer, so it is refused */
    if (!pat && !strcmp(type, "nemotron_h"))
        return ac_err_at(e, AC_E_INPUT, file, 0, 0, "hybrid_override_pattern",
                         "missing: a nemotron_h config.json gives each block's kind in hybrid_override_pattern");
    if (!pat) return 0;
    int layers = s->num_layers;
    if (!cJSON_IsString(pat) || !pat->valuestring || layer_hybrid_pattern(s, pat->valuestring) || s->num_layers != layers)
        return ac_err_at(e, AC_E_INPUT, file, 0, 0, "hybrid_override_pattern",
                         "expects one of 'M', '*', '-', 'E' for each of the %d layers", layers);
    if (s->hyb_mamba > 0) {
        s->mamba_heads = have[F_MAMBA_HEADS] ? (int)v[F_MAMBA_HEADS] : 0;
        s->mamba_head_dim = have[F_MAMBA_HEAD_DIM] ? (int)v[F_MAMBA_HEAD_DIM] : 0;
        s->mamba_state = have[F_MAMBA_STATE] ? (int)v[F_MAMBA_STATE] : 0;
        s->mamba_groups = have[F_MAMBA_GROUPS] ? (int)v[F_MAMBA_GROUPS] : 0;
    }
    const char *key, *why = layer_hybrid_check(s, &key);
    return why ? ac_err_at(e, AC_E_INPUT, file, 0, 0, key, "%s", why) : 0;
}

/* Sliding-window attention: "sliding_window" keys per query (off when "use_sliding_window"
 * is false, as Qwen2 configs ship it), on the layers "layer_types" marks
 * "sliding_attention" (GPT-OSS alternates), else on every layer (Mistral) */
static void read_window(const cJSON *root, model_shape *s)
{
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(root, "sliding_window");
    const cJSON *use = cJSON_GetObjectItemCaseSensitive(root, "use_sliding_window");
    /* a window as long as the sequence trained on is full attention (est_attn_keys) */
    if (!cJSON_IsNumber(w) || !isfinite(w->valuedouble) || w->valuedouble < 1 || w->valuedouble > 1 << 24) return;
    if (cJSON_IsBool(use) && !cJSON_IsTrue(use)) return;
    double share = 1.0;
    const cJSON *types = cJSON_GetObjectItemCaseSensitive(root, "layer_types");
    if (cJSON_IsArray(types) && cJSON_GetArraySize(types) > 0) {
        int n = 0, sliding = 0;
        const cJSON *t;
        cJSON_ArrayForEach(t, types) {
            n++;
            sliding += cJSON_IsString(t) && t->valuestring && !strcmp(t->valuestring, "sliding_attention");
        }
        share = (double)sliding / n;
    }
    if (share <= 0) return;
    s->swa_window = (int)w->valuedouble;
    s->swa_share = share;
}

static int read_field(const cJSON *root, int f, const char *file, long *out, bool *found, ac_err *e)
{
    char buf[96];
    snprintf(buf, sizeof buf, "%s", HF_FIELDS[f].keys);
    *found = false;
    for (char *save = NULL, *k = strtok_r(buf, "|", &save); k; k = strtok_r(NULL, "|", &save)) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, k);
        if (!v || cJSON_IsNull(v)) continue;
        double x = cJSON_IsNumber(v) ? v->valuedouble : NAN;
        if (!isfinite(x) || x != floor(x) || x < HF_FIELDS[f].lo || x > HF_FIELDS[f].hi)
            return ac_err_at(e, AC_E_INPUT, file, 0, 0, k, "expects an integer from %.0f to %.0f", HF_FIELDS[f].lo,
                             HF_FIELDS[f].hi);
        *out = (long)x;
        *found = true;
        return 0;
    }
    if (HF_FIELDS[f].required) {
        char first[48];
        snprintf(first, sizeof first, "%.*s", (int)strcspn(HF_FIELDS[f].keys, "|"), HF_FIELDS[f].keys);
        return ac_err_at(e, AC_E_INPUT, file, 0, 0, first, "missing (also accepted: %s)", HF_FIELDS[f].keys);
    }
    return 0;
}

static int build_shape(const cJSON *root, const char *file, cost_model *m, ac_err *e)
{
    long v[F_N] = {0};
    bool have[F_N] = {0};
    for (int f = 0; f < F_N; f++)
        if (read_field(root, f, file, &v[f], &have[f], e)) return -1;
    const cJSON *mt = cJSON_GetObjectItemCaseSensitive(root, "model_type");
    const char *type = cJSON_IsString(mt) && mt->valuestring ? mt->valuestring : "";
    bool gated = true, tied = false, learned = false, expert_bias = false;
    for (size_t i = 0; i < sizeof HF_TYPES / sizeof *HF_TYPES; i++)
        if (!strcmp(HF_TYPES[i].type, type)) {
            gated = HF_TYPES[i].gated;
            tied = HF_TYPES[i].tied;
            learned = HF_TYPES[i].learned_pos;
            expert_bias = HF_TYPES[i].expert_bias;
        }
    const cJSON *tie = cJSON_GetObjectItemCaseSensitive(root, "tie_word_embeddings");
    if (cJSON_IsBool(tie)) tied = cJSON_IsTrue(tie);
    else if (tie && !cJSON_IsNull(tie)) /* "yes" is no JSON boolean: transformers would not read it as one either */
        return ac_err_at(e, AC_E_INPUT, file, 0, 0, "tie_word_embeddings", "expects true or false");

    model_shape *s = &m->shape;
    memset(s, 0, sizeof *s);
    s->arch = ARCH_DECODER;
    s->hidden = (int)v[F_HIDDEN];
    s->num_layers = (int)v[F_LAYERS];
    s->heads = (int)v[F_HEADS];
    s->query_groups = have[F_KV] ? (int)v[F_KV] : s->heads;
    if (s->query_groups > s->heads || s->heads % s->query_groups)
        return ac_err_at(e, AC_E_INPUT, file, 0, 0, "num_key_value_heads", "%d does not divide the %d attention heads",
                         s->query_groups, s->heads);
    if (have[F_HEAD_DIM]) {
        s->kv_channels = (int)v[F_HEAD_DIM];
    } else {
        if (s->hidden % s->heads && !have[F_KV_LORA]) /* MLA sets its head sizes below */
            return ac_err_at(e, AC_E_INPUT, file, 0, 0, "num_attention_heads",
                             "%d heads do not divide hidden_size %d (give head_dim)", s->heads, s->hidden);
        s->kv_channels = s->hidden / s->heads;
    }
    s->ffn_hidden = have[F_FFN] ? (int)v[F_FFN] : 4 * s->hidden;
    s->vocab = (int)v[F_VOCAB];
    s->seq_length = (int)v[F_MAXPOS];
    s->gated_mlp = gated;
    s->untied_embeddings = !tied;
    s->learned_pos_emb = learned;
    if (have[F_EXPERTS] && v[F_EXPERTS] > 1) {
        s->num_experts = (int)v[F_EXPERTS];
        s->moe_topk = have[F_TOPK] ? (int)v[F_TOPK] : 2;
        if (s->moe_topk > s->num_experts)
            return ac_err_at(e, AC_E_INPUT, file, 0, 0, "num_experts_per_tok", "%d exceeds the %d experts", s->moe_topk,
                             s->num_experts);
        s->moe_ffn_hidden = have[F_MOE_FFN] ? (int)v[F_MOE_FFN] : s->ffn_hidden;
        /* shared experts: a count of expert-sized MLPs (DeepSeek) or one width (Qwen2-MoE) */
        double shared = have[F_SHARED_FFN] ? (double)v[F_SHARED_FFN] : (double)v[F_SHARED] * s->moe_ffn_hidden;
        if (shared > HF_FIELDS[F_SHARED_FFN].hi)
            return ac_err_at(e, AC_E_INPUT, file, 0, 0, "n_shared_experts", "%ld shared experts of %d make an FFN wider than %.0f",
                             v[F_SHARED], s->moe_ffn_hidden, HF_FIELDS[F_SHARED_FFN].hi);
        s->moe_shared_ffn = (int)shared;
        s->moe_dense_layers = (int)v[F_DENSE_FIRST];
        s->moe_latent = have[F_MOE_LATENT] ? (int)v[F_MOE_LATENT] : 0;
        s->moe_expert_bias = expert_bias;
        /* "swiglu_limit": the gated activation clamps its inputs (GPT-OSS) */
        const cJSON *limit = cJSON_GetObjectItemCaseSensitive(root, "swiglu_limit");
        s->moe_glu_clamp = gated && cJSON_IsNumber(limit) && limit->valuedouble > 0;
        if (have[F_GROUPS] && v[F_GROUPS] > 1) {
            int groups = (int)v[F_GROUPS], group_topk = have[F_GROUP_TOPK] ? (int)v[F_GROUP_TOPK] : groups;
            if (s->num_experts % groups)
                return ac_err_at(e, AC_E_INPUT, file, 0, 0, "n_group", "%d groups do not divide the %d experts", groups,
                                 s->num_experts);
            if (group_topk > groups)
                return ac_err_at(e, AC_E_INPUT, file, 0, 0, "topk_group", "%d exceeds the %d expert groups", group_topk, groups);
            s->moe_router_groups = groups;
            s->moe_group_topk = group_topk;
        }
        if (s->moe_dense_layers >= s->num_layers)
            return ac_err_at(e, AC_E_INPUT, file, 0, 0, "first_k_dense_replace", "%d leaves none of the %d layers to the experts",
                             s->moe_dense_layers, s->num_layers);
    }
    if (have[F_KV_LORA]) {
        /* MLA: per-head key/query channels are the no-RoPE part + the RoPE part */
        if (!have[F_QK_NOPE] || !have[F_V_HEAD])
            return ac_err_at(e, AC_E_INPUT, file, 0, 0, have[F_QK_NOPE] ? "v_head_dim" : "qk_nope_head_dim",
                             "missing: kv_lora_rank (multi-head latent attention) needs qk_nope_head_dim and v_head_dim");
        s->kv_lora_rank = (int)v[F_KV_LORA];
        s->q_lora_rank = (int)v[F_Q_LORA];
        s->kv_channels = (int)v[F_QK_NOPE];
        s->qk_rope_dim = (int)v[F_QK_ROPE];
        s->v_head_dim = (int)v[F_V_HEAD];
        s->query_groups = s->heads; /* every head gets its own keys from the latent */
    }
    read_window(root, s);
    if (read_hybrid(root, file, type, v, have, s, e)) return -1;
    /* num_nextn_predict_layers (DeepSeek-V3's MTP module) is left out: Hugging Face
     * transformers does not load or train it, so fine-tuning from this file does not either */
    m->max_context = s->seq_length;
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(root, "_name_or_path");
    const char *name = cJSON_IsString(nm) && nm->valuestring && *nm->valuestring ? nm->valuestring
                       : *type                                                  ? type
                                                                                : "hf_model";
    snprintf(m->name, sizeof m->name, "%s", name);
    return 0;
}

int cost_hf_config_parse(const char *text, size_t len, const char *file, cost_model *out, ac_err *e)
{
    if (!file) file = "config.json";
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
    if (!root) {
        long off = end && end >= text ? (long)(end - text) : 0;
        int line = 1;
        for (long i = 0; i < off && (size_t)i < len; i++) line += text[i] == '\n';
        return ac_err_at(e, AC_E_INPUT, file, line, 0, NULL, "not valid JSON (near byte %ld)", off);
    }
    int rc;
    if (!cJSON_IsObject(root)) rc = ac_err_at(e, AC_E_INPUT, file, 1, 0, NULL, "expects a JSON object");
    else {
        cost_model m;
        memset(&m, 0, sizeof m);
        rc = build_shape(root, file, &m, e);
        if (!rc) *out = m;
    }
    cJSON_Delete(root);
    return rc;
}

int cost_hf_config_load(const char *path, cost_model *out, ac_err *e)
{
    size_t len;
    char *text = fs_read_file(path, &len, e);
    if (!text) return -1;
    int rc = cost_hf_config_parse(text, len, path, out, e);
    free(text);
    return rc;
}
