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
