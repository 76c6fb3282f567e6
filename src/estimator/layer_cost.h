/* layer_cost.h — one transformer layer, one micro-batch, one GPU: the time of its
 * GEMMs (roofline), its attention core (FlashAttention), its elementwise and FP8-cast
 * traffic, its routed experts and their host launches, its TP, CP and EP collectives
 * before any overlap, and the activation bytes it keeps for the backward (Korthikanti
 * et al. 2022 §4).  est_evaluate (est.c) builds stages, the pipeline and the step
 * from these.
 */
#ifndef AC_ESTIMATOR_LAYER_COST_H
#define AC_ESTIMATOR_LAYER_COST_H

#include <stdbool.h>

#include "estimator/est.h"
#include "model/layer.h"

/* the GPU as the layer model sees it, derived once per evaluation (est_evaluate) */
typedef struct {
    double peak;        /* FLOP/s of the GEMM precision */
    double peak16;      /* FLOP/s in bf16 (attention runs in bf16 even in fp8 training) */
    double gemm_eff;    /* achievable fraction of peak for large GEMMs (catalog, per precision) */
    double sms;         /* the GPU's SM count (tiles per wave) */
    double gemm_ref;    /* layer_gemm_shape_k of the reference 8192³ GEMM the catalog's gemm_eff describes */
    double k_fill;      /* K-depth of a GEMM tile's pipeline fill at this operand width (layer_gemm_k_fill) */
    double gemm_eff16, gemm_ref16; /* the same for bf16 GEMMs (output layer under FP8: est.c) */
    double hbm;         /* bytes/s HBM kernels sustain */
    double host;        /* bytes/s to host memory (catalog host_gbps): CPU offload */
    double elem_bytes;  /* bytes per GEMM operand element */
    const est_cal *cal;
    layer_attn at;      /* the model's attention widths, derived once per evaluation */
} est_device;

/* the device an evaluation runs on: peaks and GEMM efficiency of the run's precision, HBM
 * and host bandwidth, the model's attention widths (est.c) */
void est_device_of(const est_input *in, const est_cal *c, est_device *dev);

typedef struct {
    double fwd, bwd;          /* compute seconds per layer per micro-batch */
    double attn_core_fwd;     /* attention-core part of fwd (selective recompute, CP overlap) */
    double attn_core_bwd;     /* attention-core part of bwd (CP overlap) */
    double mla_up_fwd;        /* MLA up-projections' part of fwd (recompute_mla_up_proj) */
    double module_recomp;     /* recompute_layernorm / recompute_moe_act: their forward again */
    double tp_comm, ep_comm;          /* fwd+bwd seconds, before overlap */
    double cp_fwd, cp_bwd;            /* the CP ring exchange's forward and backward seconds, before overlap */
    double host_moe;                  /* host time of the expert block, fwd+bwd (moe_host_s) */
    double act_full, act_ckpt;        /* activation bytes kept per layer per micro-batch */
    double act_peak;                  /* the largest one layer's act_full (a mix's or a hybrid's
                                       * average is not): what exists at once while a
                                       * recomputed layer runs its backward */
    double sac_recomp, act_sac;       /* op-level selective checkpointing (stack selective_op_sac):
                                       * forward seconds it repeats, bytes it keeps (layer_sac) */
    double named_recomp, act_named;   /* full recompute under a JAX remat policy (est_input.remat_saves):
                                       * forward seconds it repeats, bytes it keeps (layer_remat_named) */
} layer_cost;

/* the fraction of peak a GEMM of this shape reaches: the catalog's gemm_eff for large
 * GEMMs, times tile and wave quantization and the short-K fall-off (layer_cost.c) */
double layer_gemm_eff(const est_device *d, double M, double K, double N);
/* K-depth of the pipeline fill of a 16-bit GEMM tile (layer_cost.c) */
#define LAYER_GEMM_K_FILL 128.0
/* the fill at an operand width: 128 for 16-bit, 256 for FP8/FP4 (layer_cost.c) */
double layer_gemm_k_fill(double elem_bytes);
/* the shape's share of the tensor cores' work that is useful: tile × wave quantization ×
 * K/(K + k_fill) (layer_cost.c); layer_gemm_shape: 16-bit operands */
double layer_gemm_shape_k(double sms, double M, double K, double N, double k_fill);
double layer_gemm_shape(double sms, double M, double K, double N);
/* seconds of one GEMM (M×K)·(K×N) at eff_scale × the device's GEMM efficiency */
double layer_gemm_s(const est_device *d, double M, double K, double N, double eff_scale);
/* the same in bf16 whatever the run's precision (outside Transformer Engine's FP8 modules) */
double layer_gemm_eff16(const est_device *d, double M, double K, double N);
double layer_gemm16_s(const est_device *d, double M, double K, double N);
/* sequence-parallel divisor: norms, dropout masks, residuals and the embedding output are
 * split over TP ranks only with sequence parallelism (Korthikanti et al. 2022 §4.2.2) */
static inline double layer_sp_div(const est_input *in) { return in->sequence_parallel && in->tp > 1 ? in->tp : 1.0; }

/* One layer over seq_q query tokens attending seq_kv keys (causal or not); `cross` adds
 * T5's cross-attention over cross_seq encoder tokens; moe_layer: routed experts instead
 * of the dense MLP. */
void layer_cost_compute(const est_input *in, const est_device *dev, double seq_q, double seq_kv, bool causal,
                        bool cross, double cross_seq, bool moe_layer, layer_cost *out);

/* One Mamba-2 mixer block of a hybrid stack over T tokens (layer_cost.c) */
void layer_cost_mamba(const est_input *in, const est_device *dev, double T, layer_cost *out);

/* What an MLP sub-layer's entry costs whatever its width: its norm, residual and dropout
 * traffic, the norm and FC1 inputs it keeps, and the FP8 casts of the FC1 input and the
 * FC2 output gradient.  layer_cost_compute on a shape with an empty MLP still counts it;
 * a hybrid stack's attention block is that layer without it (est.c) */
void layer_cost_mlp_entry(const est_input *in, const est_device *dev, double T, layer_cost *out);

/* out += w · x, field by field (activations too: a weighted mean of the blocks a stage holds;
 * act_peak is left to the caller) */
void layer_cost_add(layer_cost *out, const layer_cost *x, double w);

/* the average of two kinds of layer, a share w_x of the first */
void layer_cost_mix(const layer_cost *x, const layer_cost *y, double w_x, layer_cost *out);

#endif
