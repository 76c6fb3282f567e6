/* layer.c — widths and weights inside one transformer layer (layer.h) */
#include "model/layer.h"

#include <stddef.h>
#include <string.h>

bool layer_is_mla(const model_shape *s) { return s->kv_lora_rank > 0; }

void layer_attn_of(const model_shape *s, layer_attn *out)
{
    double h = s->hidden, a = s->heads, d = shape_head_dim(s);
    *out = (layer_attn){0};
    if (!layer_is_mla(s)) {
        /* Megatron-Core self-attention: fused QKV h·(a + 2g)·d, output a·d·h; GQA shares
         * each K/V head among a/g query heads (Ainslie et al. 2023) */
        double g = shape_query_groups(s);
        out->qk_dim = out->v_dim = d;
        out->q = a * d;
        out->k = out->v = g * d;
        out->ctx = a * d;
        out->weights = h * (out->q + out->k + out->v) + out->ctx * h;
        out->cache = 2.0 * g * d;
        out->cache_qk = out->cache_v = d;
        return;
    }
    /* MLA (DeepSeek-V2 §2.1.2-2.1.3, Megatron-Core MLASelfAttention): a down-projection
     * h → q latent (or the queries directly) + kv latent + one RoPE key shared by all
     * heads; up-projections q latent → a·(d_nope + d_rope) and kv latent → a·(d_nope + d_v);
     * output a·d_v·h.  Training materialises per-head K and V; inference caches only the
     * kv latent and the RoPE key and folds the up-projections into the query and output
     * (weight absorption, §2.1.2), so a decode step works on kv_lora + d_rope channels. */
    double rope = s->qk_rope_dim, dv = s->v_head_dim > 0 ? s->v_head_dim : d;
    double qr = s->q_lora_rank, kvr = s->kv_lora_rank;
    out->qk_dim = d + rope;
    out->v_dim = dv;
    out->q = a * out->qk_dim;
    out->k = a * out->qk_dim;
    out->v = a * dv;
    out->ctx = a * dv;
    out->q_latent = qr;
    out->kv_latent = kvr;
    out->down = qr + kvr + rope;
    double q_weights = qr > 0 ? h * qr + qr * out->q : h * out->q; /* without a q latent h projects straight to queries */
    double kv_weights = h * (kvr + rope) + kvr * a * (d + dv);
    out->weights = q_weights + kv_weights + out->ctx * h;
    if (qr <= 0) out->down = kvr + rope;
    out->cache = kvr + rope;
    out->cache_qk = kvr + rope;
    out->cache_v = kvr;
}

void layer_mamba_of(const model_shape *s, layer_mamba *out)
{
    *out = (layer_mamba){0};
    if (s->hyb_mamba <= 0) return;
    double h = s->hidden, H = s->mamba_heads, GN = (double)s->mamba_groups * s->mamba_state;
    out->inner = H * s->mamba_head_dim;
    out->xbc = out->inner + 2.0 * GN;
    out->in_proj = out->inner + out->xbc + H;
    out->weights = h * out->in_proj + out->inner * h;
    /* conv taps and bias per channel, A_log, D and dt_bias per head, the gated norm over
     * d_inner and the block's own norm over h */
    out->params = out->weights + out->xbc * (LAYER_MAMBA_CONV + 1.0) + 3.0 * H + out->inner + h;
}

double layer_mamba_scan_flops(const model_shape *s)
{
    double Q = LAYER_MAMBA_CHUNK, N = s->mamba_state, P = s->mamba_head_dim;
    return s->mamba_groups * 2.0 * Q * N + s->mamba_heads * (2.0 * Q * P + 4.0 * N * P);
}

int layer_hybrid_pattern(model_shape *s, const char *pattern)
{
    int n[4] = {0};
    static const char KINDS[] = "M*-E";
    size_t len = 0;
    for (const char *c = pattern; c && *c; c++, len++) {
        const char *k = strchr(KINDS, *c);
        if (!k) return -1;
        n[k - KINDS]++;
    }
    if (len == 0 || len > 100000) return -1;
    s->hyb_mamba = n[0], s->hyb_attn = n[1], s->hyb_mlp = n[2], s->hyb_moe = n[3];
    s->num_layers = (int)len;
    return 0;
}

const char *layer_hybrid_check(const model_shape *s, const char **key)
{
    *key = "hybrid_override_pattern";
    if ((s->hyb_moe > 0) != (s->num_experts > 1)) return "expert blocks ('E') need experts, and experts need 'E' blocks";
    if (s->hyb_mamba == 0) return NULL;
    static const struct {
        size_t off;
        const char *key;
    } SIZES[] = {{offsetof(model_shape, mamba_heads), "mamba_num_heads"},
                 {offsetof(model_shape, mamba_head_dim), "mamba_head_dim"},
                 {offsetof(model_shape, mamba_state), "ssm_state_size"},
                 {offsetof(model_shape, mamba_groups), "n_groups"}};
    for (size_t i = 0; i < sizeof SIZES / sizeof *SIZES; i++)
        if (*(const int *)((const char *)s + SIZES[i].off) < 1) {
            *key = SIZES[i].key;
            return "missing or not positive: Mamba-2 blocks ('M') need it";
        }
    *key = "n_groups";
    return s->mamba_heads % s->mamba_groups ? "the B/C groups do not divide the Mamba heads" : NULL;
}

int layer_attn_count(const model_shape *s) { return shape_is_hybrid(s) ? s->hyb_attn : s->num_layers; }

int layer_dense_mlp_count(const model_shape *s)
{
    return shape_is_hybrid(s) ? s->hyb_mlp : s->num_layers - layer_moe_count(s);
}

int layer_moe_count(const model_shape *s)
{
    if (s->num_experts <= 1) return 0;
    if (shape_is_hybrid(s)) return s->hyb_moe;
    int dense = s->moe_dense_layers > 0 ? s->moe_dense_layers : 0;
    return dense < s->num_layers ? s->num_layers - dense : 0;
}

double layer_expert_weights(const model_shape *s)
{
    if (s->num_experts <= 1) return 0.0;
    double fe = s->moe_ffn_hidden > 0 ? s->moe_ffn_hidden : s->ffn_hidden;
    return s->num_experts * (s->gated_mlp ? 3.0 : 2.0) * shape_expert_width(s) * fe;
}

double layer_mlp_weights(const model_shape *s, bool moe_layer, double *active)
{
    double h = s->hidden, mats = s->gated_mlp ? 3.0 : 2.0;
    if (!moe_layer || s->num_experts <= 1) {
        double f = s->ffn_hidden > 0 ? s->ffn_hidden : 4.0 * h;
        if (active) *active = mats * h * f;
        return mats * h * f;
    }
    double k = shape_moe_topk(s), fe = s->moe_ffn_hidden > 0 ? s->moe_ffn_hidden : s->ffn_hidden;
    double shared = mats * h * s->moe_shared_ffn, router = h * s->num_experts;
    double latent = 2.0 * h * s->moe_latent; /* LatentMoE's h → latent and latent → h projections */
    if (active) *active = k * mats * shape_expert_width(s) * fe + shared + router + latent;
    return layer_expert_weights(s) + shared + router + latent;
}

double layer_mlp_gemm_active(const model_shape *s, bool moe_layer)
{
    double active;
    layer_mlp_weights(s, moe_layer, &active);
    bool router = moe_layer && shape_is_moe(s); /* a GEMV the FLOP rule does not count */
    return router ? active - s->hidden * (double)s->num_experts : active;
}

double layer_stack_mlp_weights(const model_shape *s, double *active)
{
    double moe = layer_moe_count(s), dense = layer_dense_mlp_count(s);
    double dense_act, moe_act = 0.0;
    double total = dense * layer_mlp_weights(s, false, &dense_act);
    if (moe > 0) total += moe * layer_mlp_weights(s, true, &moe_act);
    if (active) *active = dense * dense_act + moe * moe_act;
    return total;
}

double layer_stack_active_gemm_weights(const model_shape *s)
{
    layer_attn at;
    layer_attn_of(s, &at);
    layer_mamba mb;
    layer_mamba_of(s, &mb);
    int moe = layer_moe_count(s);
    return layer_attn_count(s) * at.weights + s->hyb_mamba * mb.weights +
           layer_dense_mlp_count(s) * layer_mlp_gemm_active(s, false) + moe * layer_mlp_gemm_active(s, true);
}
