/* shape.h — the architecture of one model, as every later stage sees it.
 *
 * One struct for every family: decoder-only GPT/Llama/Mixtral, encoder-decoder
 * T5/mT5 (two equal stacks) and encoder-only BERT.  The base-config generator
 * fills it; the estimator, the grid and the FLOP formulas read it.
 */
#ifndef AC_MODEL_SHAPE_H
#define AC_MODEL_SHAPE_H

#include <stdbool.h>

typedef enum {
    ARCH_DECODER = 0,      /* GPT-3, Llama, Mixtral: causal decoder stack      */
    ARCH_ENCODER_DECODER,  /* T5, mT5: encoder and decoder of num_layers each  */
    ARCH_ENCODER           /* BERT: bidirectional encoder                      */
} model_arch;

typedef struct {
    model_arch arch;
    int num_layers;     /* per stack for T5/mT5 (encoder layers = decoder layers) */
    int hidden;         /* h */
    int ffn_hidden;     /* F; for MoE the dense FFN size (unused when experts > 1) */
    int heads;          /* A, attention heads */
    int query_groups;   /* g, KV heads (GQA); == heads for multi-head attention */
    int kv_channels;    /* head dimension; hidden / heads when the family has none */
    int vocab;          /* V (unpadded) */
    int seq_length;     /* s (encoder sequence for T5) */
    int dec_seq_length; /* T5 decoder sequence (data.seq_length_dec), else 0 */
    bool gated_mlp;     /* SwiGLU/GeGLU: three FFN matrices instead of two */
    bool untied_embeddings; /* separate output projection (Llama, Mixtral) */
    bool learned_pos_emb;   /* learned absolute position table (GPT-3, BERT); false for RoPE/relative */
    int num_experts;    /* 0 or 1: dense */
    int moe_topk;       /* experts per token */
    int moe_ffn_hidden; /* FFN size of one expert */
    int swa_window;     /* sliding-window attention: keys a query sees (0 = full attention) */
    double swa_share;   /* share of layers using the window (GPT-OSS alternates: 0.5; Mistral: 1) */
    /* multi-head latent attention (DeepSeek-V2 §2.1; Megatron-Core MLASelfAttention), on when
     * kv_lora_rank > 0: queries pass a rank-q_lora_rank bottleneck (0 = none), keys and values
     * come from one kv_lora_rank-wide latent per token; each head attends with kv_channels
     * (no-RoPE part) + qk_rope_dim query/key channels and v_head_dim value channels */
    int q_lora_rank, kv_lora_rank, qk_rope_dim, v_head_dim;
    int moe_shared_ffn;   /* FFN width of the shared experts every token also passes (0 = none) */
    int moe_dense_layers; /* leading layers with a dense FFN of ffn_hidden instead of experts */
    int mtp_layers;       /* multi-token prediction modules after the last layer (DeepSeek-V3 §2.2) */
    /* group-limited routing (DeepSeek-V3 §2.1.2 node-limited routing; Megatron-Core
     * moe_router_num_groups / moe_router_group_topk): the experts form moe_router_groups
     * equal groups and a token's top-k experts come from its moe_group_topk best groups
     * (0 = unlimited) */
    int moe_router_groups, moe_group_topk;
    /* chunked local attention (Llama 4 iRoPE: config.json attention_chunk_size on the RoPE layers, the NoPE
     * layers global): on attn_chunk_layers of the layers a query sees only the keys of its own
     * attn_chunk-token chunk (0 = full attention everywhere) */
    int attn_chunk, attn_chunk_layers;
    /* GPT-OSS experts (OpenAI gpt-oss model card 2025; Megatron-Core MLP with
     * activation_func_clamp_value and add_bias_linear): the routed experts' linear layers
     * carry biases, and the gated activation clamps both halves of the FC1 output first */
    bool moe_expert_bias, moe_glu_clamp;
    /* hybrid Mamba-Transformer stacks (Megatron-Core MambaModel's hybrid_override_pattern:
     * Nemotron-H, Nemotron 3): each of the num_layers blocks is one residual sub-layer with
     * its own norm, hyb_mamba of them Mamba-2 mixers ('M'), hyb_attn self-attention ('*'),
     * hyb_mlp dense MLPs ('-') and hyb_moe expert MLPs ('E'); all 0: every layer is the
     * usual attention + MLP pair */
    int hyb_mamba, hyb_attn, hyb_mlp, hyb_moe;
    /* Mamba-2 mixer sizes (Dao & Gu 2024 §7; Megatron-Core MambaMixer): heads × head_dim
     * inner channels, state size N, and the groups that share B and C (like GQA's KV heads) */
    int mamba_heads, mamba_head_dim, mamba_state, mamba_groups;
    /* LatentMoE (Nemotron 3 Super; Megatron-Core moe_latent_size): the routed experts work in
     * a moe_latent-wide space: each token is projected h → latent before the dispatch and
     * latent → h after the combine, so expert GEMMs and the all-to-all are latent wide; the
     * router and the shared experts stay at h (0 = experts at h) */
    int moe_latent;
} model_shape;

/* Derived sizes every stage reads the same way. */
/* g: KV heads; multi-head attention has one group per head */
static inline int shape_query_groups(const model_shape *s) { return s->query_groups > 0 ? s->query_groups : s->heads; }
/* channels per attention head: kv_channels when given, else h/a */
static inline double shape_head_dim(const model_shape *s)
{
    return s->kv_channels > 0 ? s->kv_channels : (double)s->hidden / (s->heads > 0 ? s->heads : 1);
}
static inline bool shape_is_moe(const model_shape *s) { return s->num_experts > 1; }
/* the width of a token as the routed experts and the all-to-all see it: h, or LatentMoE's latent */
static inline double shape_expert_width(const model_shape *s) { return s->moe_latent > 0 ? s->moe_latent : s->hidden; }
/* experts each token is routed to (k of top-k; 1 when unset) */
static inline double shape_moe_topk(const model_shape *s) { return s->moe_topk > 0 ? s->moe_topk : 1; }
static inline bool shape_is_hybrid(const model_shape *s)
{
    return s->hyb_mamba + s->hyb_attn + s->hyb_mlp + s->hyb_moe > 0;
}
/* transformer layers of the whole model (both stacks for T5) */
static inline int shape_total_layers(const model_shape *s)
{
    return s->arch == ARCH_ENCODER_DECODER ? 2 * s->num_layers : s->num_layers;
}

#endif
