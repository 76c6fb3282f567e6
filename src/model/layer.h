/* layer.h — what one transformer layer holds and moves, the same for every stage
 * that asks (estimator, inference, cost, parameter counts): attention widths and
 * weights for multi-head, grouped-query and multi-head latent attention, MLP
 * weights for dense, routed-expert and shared-expert layers, KV-cache elements.
 */
#ifndef AC_MODEL_LAYER_H
#define AC_MODEL_LAYER_H

#include <stdbool.h>

#include "model/shape.h"

typedef struct {
    double qk_dim, v_dim; /* channels per head: queries/keys, values */
    double q, k, v;       /* widths per token of Q, K and V as attention reads them */
    double ctx;           /* heads · v_dim: the context entering the output projection */
    /* MLA only (0 otherwise): the replicated down-projection's output width (q and kv
     * latents + the shared RoPE key) and the latents the up-projections read */
    double down, q_latent, kv_latent;
    double weights;       /* attention weights of one layer (no biases, no norms) */
    /* decode: elements cached per token per layer, and the per-head key and value
     * widths a decode step multiplies against them (MLA decodes in latent space) */
    double cache, cache_qk, cache_v;
} layer_attn;

/* One Mamba-2 mixer block (Dao & Gu 2024 §7.1 "parallel" Mamba-2 block; Megatron-Core
 * MambaMixer): in_proj h → [z, x, B, C, dt], a depthwise causal conv over [x, B, C], the
 * SSD scan, a z-gated RMSNorm and out_proj d_inner → h. */
typedef struct {
    double inner;    /* d_inner = heads · head_dim: the x (and z) width */
    double xbc;      /* channels the conv runs over: x + B + C = d_inner + 2·groups·state */
    double in_proj;  /* in_proj's output width: z + xBC + dt = 2·d_inner + 2·groups·state + heads */
    double weights;  /* GEMM weights of the block: in_proj + out_proj */
    double params;   /* every parameter of the block: GEMMs, conv (4 taps + bias), A, D, dt bias, norms */
} layer_mamba;

/* the Mamba-2 sizes of a hybrid shape (all 0 without Mamba blocks) */
void layer_mamba_of(const model_shape *s, layer_mamba *out);

/* the Mamba-2 conv's taps (Megatron-Core MambaMixer d_conv, mamba_ssm default) and the SSD
 * chunk length (MambaMixer chunk_size) */
#define LAYER_MAMBA_CONV 4.0
#define LAYER_MAMBA_CHUNK 128.0

/* Forward FLOPs of the SSD scan per token of one block (Dao & Gu 2024 §6, chunked "state
 * space dual" algorithm over chunks of Q tokens): C·Bᵀ within each chunk (2·Q·N per group),
 * its product with x (2·Q·P per head), the chunk states (2·N·P per head) and their
 * contribution to the outputs (2·N·P per head) */
double layer_mamba_scan_flops(const model_shape *s);

/* Reads a hybrid layer pattern as Megatron-Core writes it (hybrid_override_pattern: 'M'
 * Mamba-2, '*' attention, '-' dense MLP, 'E' expert MLP, one character per block) into the
 * shape's block counts and num_layers; -1 (shape untouched) on any other character or an
 * empty pattern */
int layer_hybrid_pattern(model_shape *s, const char *pattern);

/* What is wrong with a hybrid shape's blocks and Mamba-2 sizes, or NULL when they hold
 * together: expert blocks ('E') exactly when the shape has experts, and with Mamba-2 blocks
 * their four sizes positive and the groups dividing the heads (Megatron-Core MambaMixer).
 * *key gets the config.json key the problem is about. */
const char *layer_hybrid_check(const model_shape *s, const char **key);

/* blocks of each kind: attention (every layer without a hybrid pattern), Mamba-2,
 * dense MLP and expert MLP */
int layer_attn_count(const model_shape *s);
int layer_dense_mlp_count(const model_shape *s);

bool layer_is_mla(const model_shape *s);
void layer_attn_of(const model_shape *s, layer_attn *out);

/* layers with routed experts (all but the leading dense ones; 0 for dense models) */
int layer_moe_count(const model_shape *s);

/* the routed experts' weights of one expert layer (0 for a dense model) */
double layer_expert_weights(const model_shape *s);

/* MLP weights of one layer: a dense layer (moe_layer false) or an expert layer
 * (all experts + shared experts + router); *active (may be NULL) gets the weights one
 * token passes (top-k experts + shared + router) */
double layer_mlp_weights(const model_shape *s, bool moe_layer, double *active);

/* the GEMM weights one token passes in one layer's MLP: layer_mlp_weights' active
 * without the router (a GEMV the FLOP rule does not count) */
double layer_mlp_gemm_active(const model_shape *s, bool moe_layer);

/* MLP weights summed over the stack (leading dense layers and expert layers);
 * *active (may be NULL) the same sum of layer_mlp_weights' active */
double layer_stack_mlp_weights(const model_shape *s, double *active);

/* GEMM weights of the whole decoder stack one token passes, without the router and
 * embeddings: the N of the 6·N·tokens FLOP rule (Kaplan et al. 2020 §2.1) */
double layer_stack_active_gemm_weights(const model_shape *s);

#endif
