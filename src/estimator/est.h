/* est.h — the analytical estimator: memory per GPU and step time of one
 * training candidate, in microseconds of CPU, with no cluster.
 *
 * Inputs are a model shape, a parallel layout (TP, PP, VP, CP, EP, DP), batch
 * sizes, recompute, optimizer sharding and precision, and a GPU from the
 * catalog.  Every output is broken down so a user sees why a candidate is slow
 * or does not fit.  Every formula lives in one function with its source (est.c:
 * stages and the step; layer_cost.c: one layer; collective.c: collectives); the
 * efficiency constants come from data/calibration.csv (est_cal).
 * Numbers from here are predictions and are always labelled so.
 */
#ifndef AC_ESTIMATOR_EST_H
#define AC_ESTIMATOR_EST_H

#include <stdbool.h>
#include <stddef.h>

#include "estimator/gpu.h"
#include "estimator/stack.h"
#include "model/shape.h"
#include "util/err.h"

#define EST_GIB (1024.0 * 1024.0 * 1024.0)

typedef enum { PREC_BF16 = 0, PREC_FP16, PREC_FP8, PREC_FP4, PREC_FP32 } est_precision;
typedef enum { RECOMPUTE_NONE = 0, RECOMPUTE_SELECTIVE, RECOMPUTE_FULL } est_recompute;
/* pipeline layer split: even (ceil(L/p) per stage), remainder on the last chunk
 * (DeepSeek-V3 layouts), embedding and loss counted as layers (Megatron-Core
 * account_for_embedding/loss_in_pipeline_split); est_stage_layers */
typedef enum { EST_PP_EVEN = 0, EST_PP_REMAINDER_LAST, EST_PP_EMBEDDING_LOSS } est_pp_layout;

/* "bf16", "fp8", ...; est_precision_parse takes the names configs use (bf16, bfloat16, fp16,
 * fp8, mxfp8, nvfp4, fp32, NeMo's bf16-mixed); tables' other spellings are validation's
 * (src/validate/spelling.c) */
const char *est_precision_name(est_precision p);
int est_precision_parse(const char *text, est_precision *out);
/* "none", "selective", "full" (NeMo's activations_checkpoint_granularity, with none for off);
 * est_recompute_parse: 0 with *out set, or -1 leaving it for any other text */
const char *est_recompute_name(est_recompute r);
int est_recompute_parse(const char *text, est_recompute *out);

/* JAX remat policies (MaxText remat_policy): full recompute of a layer except the named
 * GEMM outputs jax.checkpoint_policies.save_only_these_names keeps (MaxText layers/models.py):
 * query/key/value projections, the attention output projection, the MLP's input projections
 * (wi_0, wi_1) and its output projection (wo).  est_input.remat_saves, with RECOMPUTE_FULL. */
enum { EST_SAVE_QKV = 1, EST_SAVE_OUT = 2, EST_SAVE_MLPWI = 4, EST_SAVE_MLPWO = 8 };
#define EST_REMAT_POLICIES "full, minimal, save_qkv_proj, save_out_proj, save_dot_except_mlp, save_dot_except_mlpwi"
/* a MaxText remat_policy name to the saves it keeps (full: none): 0, or -1 for any other text */
int est_remat_policy_parse(const char *text, unsigned *saves);
/* the known policy nearest a mistyped name ("did you mean"), or NULL */
const char *est_remat_policy_suggest(const char *text);
struct est_input;
/* a run whose full recompute is JAX's remat (its stack's remat_policies) in a plain decoder: the
 * backward re-runs only what it needs, keeping the layer input and what remat_saves names
 * (layer_cost.c layer_remat_named); encoder-decoder and hybrid stacks price a whole recompute */
bool est_layer_remat_named(const struct est_input *in);
/* a run whose trainable parameters are fp32 and the optimizer's master (its stack's fp32_params;
 * not under LoRA, whose frozen base stays in the training dtype) */
bool est_fp32_master(const struct est_input *in);

/* the efficiency constants (data/calibration.csv) */
typedef struct {
    double collective_eff, p2p_eff, attn_eff, moe_gemm_eff, elementwise_units, min_kernel_us;
    double tp_overlap, dp_tail, cuda_context_gb, fragmentation, memory_limit_frac, step_overhead_s;
    double moe_imbalance, moe_permute_units, fp4_speedup, layer_overhead_us, moe_launch_us;
    double attn_bwd_ratio; /* attention backward's fraction of peak over the forward's (FlashAttention-2 §4.1) */
    double attn_block_overhead;     /* key blocks' time a fused attention kernel spends per query block beyond its keys */
    double attn_block_overhead_fa2; /* the same for FlashAttention-2-class kernels (sm80, or a flash2 stack) */
    double attn_exp_share;          /* share of an attention forward the exponentials take on Hopper (128-wide heads) */
    double attn_ref_burst;          /* burst fraction of peak the reference GPUs' attention forward measures at 8192 tokens */
    double nccl_ctas;      /* SMs a data-parallel NCCL collective holds while it overlaps compute */
    double infer_memory_limit_frac; /* the inference engines' share of GPU memory (infer.c) */
    double compute_scale; /* sustained tensor-core rate vs the catalog; fitted per cluster by `autoconfig calibrate` */
    double pageable_copy_share; /* host copies from/to pageable memory: their share of the pinned rate */
} est_cal;

/* the compiled-in defaults; -1 only if the data file is malformed */
int est_cal_default(est_cal *out, ac_err *e);
/* applies "key,value" rows of a calibration CSV (per-cluster file) over *c */
int est_cal_load_file(const char *path, est_cal *c, ac_err *e);
/* the same from CSV text (name for messages) */
int est_cal_load_text(const char *text, size_t len, const char *name, est_cal *c, ac_err *e);
int est_cal_write_file(const char *path, const est_cal *c, const char *why, ac_err *e);

typedef struct est_input {
    model_shape shape;
    /* parallel layout; dp = 0 → derived from num_gpus / (tp·pp·cp) */
    int tp, pp, vp, cp, ep, etp, dp;
    int num_gpus;       /* 0 → tp·pp·cp·dp */
    int gpus_per_node;  /* 0 → the GPU's catalog value */
    double node_network_gbps; /* a node's scale-out, all its NICs together in Gb/s (400 for 4 x 100 Gb/s
                               * Omni-Path or EFA); 0 → the GPU's catalog node (data/gpus.csv) */
    int mbs, gbs;
    bool sequence_parallel;
    est_recompute recompute;
    /* full recompute: layers per pipeline stage (per virtual chunk) that recompute,
     * 0 = all; the original's partial keys (−1 = unset): */
    int recompute_layers;
    int num_mbs_act;    /* micro-batches that recompute (others keep activations) */
    int act_per_pipe;   /* layers per pipeline stage recomputed in those micro-batches */
    int zero_stage;     /* 0 plain DDP, 1 distributed optimizer, 2 + grads, 3 FSDP / + params */
    bool offload_optimizer, offload_params;
    bool offload_pageable; /* DeepSpeed offload buffers not page-locked (offload_*.pin_memory false) */
    int lora_rank;      /* 0 = full training */
    int lora_targets;   /* linear layers per transformer layer with adapters (4 = q,k,v,o) */
    /* the adapted widths one token passes, in the same units (MoE: its top-k experts' MLP
     * adapters, not all experts'); 0 → lora_targets.  For the adapters' unfused passes */
    double lora_token_targets;
    double grad_bytes;  /* bytes per gradient element: 0 → 4 (Megatron's fp32 main grads);
                         * 2 for DeepSpeed ZeRO's bf16/fp16 gradients (Rajbhandari et al. 2020 §3: 2Ψ)
                         * and for Megatron with grad_reduce_in_fp32 off (NeMo's grad_sync_dtype bf16),
                         * which NVIDIA's published benchmark recipes use */
    /* Megatron fp8_param_gather (NeMo fp8_params): under FP8 the transformer layers' weights
     * live as 1-byte FP8 tensors and the distributed optimizer all-gathers them in FP8 */
    bool fp8_param_gather;
    /* MXFP8 / block-scaled FP8: scales per block along one dimension, so a weight needs a
     * row-wise and a column-wise quantized copy on every GPU (per-tensor FP8 needs the
     * transpose only where GEMMs take TN operands: catalog fp8_weight_copies) */
    bool fp8_block_scaled;
    /* per-tensor current scaling (Transformer Engine Float8CurrentScaling, Megatron
     * --fp8-recipe tensorwise): the scale comes from the tensor being cast, so an amax pass
     * reads it before the cast; delayed scaling takes the amax inside the cast kernel */
    bool fp8_current_scaling;
    est_precision precision;
    bool flash_attention; /* true in every NeMo/Megatron-Core release since 2023 */
    /* MoE routing: dropless routing syncs with the host every layer to size the expert
     * GEMMs (Megatron-Core alltoall dispatcher); token dropping (fixed capacity) does
     * not.  Forced-balanced routing (benchmark runs) has no busiest-expert wait. */
    bool moe_token_drop, moe_force_balanced;
    /* Megatron-Core overlap_moe_expert_parallel_comm: one micro-batch's dispatch/combine
     * runs under another's compute (needs two or more micro-batches per step) */
    bool moe_a2a_overlap;
    /* Megatron-Core recompute_modules "mla_up_proj": multi-head latent attention keeps only
     * its latents and recomputes the up-projected Q, K and V in backward */
    bool recompute_mla_up_proj;
    /* Megatron-Core recompute_modules "layernorm" and "moe_act": the two norms' outputs
     * (the QKV and FC1 inputs) and the routed experts' activation output (the FC2 input)
     * are dropped after the forward and recomputed from what stays (the norm inputs, the
     * FC1 output) before their backward: elementwise work for GEMM-input memory */
    bool recompute_layernorm, recompute_moe_act;
    /* EST_SAVE_* flags under RECOMPUTE_FULL: a JAX remat policy that keeps these GEMM outputs
     * and recomputes the rest of each decoder layer (est_remat_policy_parse; 0: nothing kept
     * but the layer input, Megatron's full recompute) */
    unsigned remat_saves;
    /* the routed experts' FC1, activation and FC2 run as one fused grouped kernel with the
     * activation's clamps and the biases in its epilogue (Megatron-Bridge 26.06 CuTeDSL fused
     * grouped MLP): no separate clamp or bias pass runs */
    bool fused_expert_mlp;
    /* CUDA graphs over whole layers (Megatron-Core cuda_graph_impl / enable_cuda_graph): one
     * launch replays a layer, so host dispatch cost and dropless per-expert launches leave
     * the critical path */
    bool cuda_graphs;
    /* the model's blocks run under torch.compile (torchtitan compile, Accelerate/HF
     * torch_compile): Inductor fuses each block's pointwise chains, so the stack's
     * compiled_elementwise_units and compiled_fp8_cast_bytes apply where it states them */
    bool torch_compile;
    /* TP communication overlapped with GEMMs (NeMo ub_tp_comm_overlap, Transformer Engine
     * userbuffers): calibration tp_overlap of it hidden; off, all of it is exposed.  On by
     * default (published benchmark recipes overlap); a NeMo config is read as it says */
    bool tp_comm_overlap;
    /* Megatron-Core cpu_offloading_num_layers: activations of this many layers of a stage go
     * to host memory after their forward and return before their backward (0 = none) */
    int offload_act_layers;
    /* Megatron-Core overlap_grad_reduce / NeMo optim.overlap_grad_sync off: the gradient
     * reduction runs after the backward instead of under it (the stack's dp_overlap otherwise) */
    bool dp_overlap_off;
    /* Megatron-LM --no-gradient-accumulation-fusion (NeMo gradient_accumulation_fusion: false) on
     * a stack that fuses it: each micro-batch's weight gradient is accumulated in a pass of its own
     * (est.c: a 16-bit gradient written and read, the main gradient read and written) */
    bool grad_accum_unfused;
    /* the run's config switches that overlap on where its stack leaves it off by default
     * (DeepSpeed zero_optimization.overlap_comm: true, which the cost stage's ds_config.json writes) */
    bool dp_overlap_on;
    /* the model passes SDPA an explicit 4-D attention mask instead of is_causal (Hugging Face
     * Transformers 4.38.0-4.39.3 always, later releases when a batch holds padding): PyTorch's
     * flash backend refuses an attn_mask, so the memory-efficient kernel runs over the full
     * square, reading the mask (layer_cost.c masked_sdpa_s; the stack's masked_attn_eff_ratio) */
    bool attn_explicit_mask;
    /* how a framework splits layers over pipeline stages (est_stage_layers) */
    est_pp_layout pp_layout;
    bool allow_uneven_pp;  /* layers not divisible by PP: the bottleneck stage gets ceil(L/PP) (Megatron-Core uneven split) */
    const gpu_spec *gpu;
    double memory_limit_gb; /* 0 → the GPU's memory */
    double num_tokens_b;    /* for days to train; 0 = skip */
    double price_per_gpu_hour; /* 0 → catalog price */
    const est_cal *cal;     /* NULL → defaults */
    const est_stack *stack; /* the training stack's mechanisms (data/stacks.csv); NULL → megatron-core */
} est_input;

/* TFLOP/s NVFP4 GEMMs reach before efficiency: FP8 peak × an Amdahl speedup from the
 * calibrated fp4_speedup (measured where FP4 peaks at 2× FP8) and this GPU's FP4/FP8 ratio */
double est_fp4_gemm_tflops(const gpu_spec *g, double fp4_speedup);
/* "even", "remainder_last", "embedding_loss" (data/recipes.csv pp_layout, estimate --pp-layout);
 * parse returns -1 for any other name */
const char *est_pp_layout_name(est_pp_layout layout);
int est_pp_layout_parse(const char *name, est_pp_layout *out);
/* the names est_pp_layout_parse takes, for its callers' error messages */
#define EST_PP_LAYOUT_CHOICES "even, remainder_last or embedding_loss"
/* decoder layers on the first, the largest and the last pipeline stage under in->pp_layout */
void est_stage_layers(const est_input *in, double *first, double *largest, double *last);
/* layer-activations pipeline rank `rank` holds at its peak with m micro-batches a step
 * (the pipeline schedule's forwards before its first backward, chunk by chunk) */
double est_stage_inflight_layers(const est_input *in, int m, int rank);

/* fills an input with defaults: all sizes 1, bf16, flash attention, no recompute */
void est_input_init(est_input *in, const model_shape *shape, const gpu_spec *gpu);

/* pipeline stages est_evaluate sizes memory for (mem_peak_stage) */
enum { EST_STAGE_FIRST, EST_STAGE_LAST, EST_STAGE_MIDDLE, EST_MEM_STAGES };
/* "first", "last" or "middle" */
const char *est_stage_name(int stage);

typedef struct {
    /* memory per GPU in bytes (the stage with the highest total: first, last or, with
     * PP > 2, the middle stage of pipeline rank 1) */
    double mem_weights, mem_grads, mem_optimizer, mem_activations, mem_logits, mem_comm_buffers, mem_allowance;
    double mem_total, mem_limit;     /* total needed vs usable (limit_frac · GPU memory) */
    int mem_peak_stage;              /* EST_STAGE_FIRST, _LAST or _MIDDLE */
    double cpu_mem_per_gpu;          /* offloaded optimizer/params, bytes */
    double inflight_microbatches;    /* activations held on the peak stage, in micro-batch units */
    bool fits;
    /* step time in seconds */
    double t_compute_fwd, t_compute_bwd, t_recompute; /* per step on the slowest stage, incl. embedding/logits */
    double t_tp_comm, t_cp_comm, t_ep_comm;           /* exposed, per step */
    double t_moe_host;                                /* expert launches on the critical path (dropless MoE) */
    double t_act_offload;                             /* activation copies to/from host not hidden by compute */
    double t_pp_bubble, t_pp_p2p;
    double t_dp_comm, t_dp_exposed;                   /* total traffic time and the exposed part */
    double t_tied_embed;                              /* of which the tied embedding's all-reduce between the
                                                       * first and last stage (exposed) */
    double t_optimizer, t_overhead;
    double step_time;
    int num_microbatches;
    /* throughput */
    double tokens_per_s, samples_per_s, tokens_per_s_per_gpu;
    double model_flops_per_step; /* the original's convention (§6), est_model_flops */
    double tflops_per_gpu, mfu;  /* mfu vs the dense peak of the training precision */
    double days_to_train;        /* num_tokens_b / tokens_per_s; 0 when not asked */
    double cost_usd;             /* days · 24 · GPUs · price */
    double params_b;             /* total parameters, billions */
    /* uncertainty (data/bands.csv, derived from validation residuals of this GPU and stack):
     * the step time lies within step_time·(1 ± band_time_rel) for 80 % of the published runs
     * validated, memory within mem_total·(1 ± band_mem_rel); band_rows: runs behind it */
    double band_time_rel, band_mem_rel;
    /* how far two candidates of one model on one GPU may be mis-ordered: the 80th percentile of
     * a run's error around the median error of its own (table, model, GPU) group, where the
     * GPU's and stack's shared bias cancels */
    double band_rank_rel;
    int band_rows;
    char why[256];               /* when est_evaluate fails: the rule the candidate breaks */
} est_result;

/* The relative tie band of a prediction's step time (and so of its throughput): two
 * candidates whose predicted step times differ by less than this share cannot be told
 * apart by the estimator.  It is r->band_time_rel, the 80th percentile of |step-time
 * error| of the validated published runs of the result's GPU and stack (data/bands.csv);
 * 0 for a result est_evaluate did not fill. */
double est_band_rel(const est_result *r);
/* The relative band inside which two candidates of the same search cannot be ranked:
 * r->band_rank_rel (data/bands.csv rank_band_rel); 0 for a result est_evaluate did not fill.
 * Smaller than est_band_rel: a bias shared by every layout of a model on a GPU moves them alike. */
double est_rank_band_rel(const est_result *r);

/* The parallel layout's rules (TP divides heads and query groups, PP divides layers,
 * VP divides layers per stage, CP·2 divides seq, EP divides experts, GBS divisible by
 * MBS·DP, GPUs = TP·PP·CP·DP, …).  0 when valid, else -1 with why set, e.g.
 * "TP 3 does not divide 32 attention heads". */
int est_check(const est_input *in, char *why, size_t why_len);
/* whether Megatron runs fp8_param_gather for this input: FP8 compute, a sharded optimizer
 * (distributed optimizer or FSDP) and full training; est_check refuses it otherwise, so
 * readers of configs and tables that name it turn it on only when this holds */
bool est_fp8_gather_allowed(const est_input *in);
/* whether Megatron-Core runs overlap_moe_expert_parallel_comm here: an MoE model with
 * EP > 1 and, under pipeline parallelism, an interleaved schedule (est_check refuses it
 * otherwise) */
bool est_a2a_overlap_allowed(const est_input *in);

/* Scores one candidate: 0, or -1 with out->why when est_check fails.  A candidate
 * that does not fit still gets its times (fits = false).  Pure and thread-safe. */
int est_evaluate(const est_input *in, est_result *out);

/* Model FLOPs per global step with the original's formulas (reference §6):
 * GPT (and Llama/MoE with Megatron's generalisation, which equals the GPT formula
 * for MHA, 4h GELU MLPs), BERT, T5/mT5.  Non-causal attention, no recompute. */
double est_model_flops(const model_shape *s, double gbs);

/* mean keys per query of attention over s tokens (causal mask, sliding window of
 * `window` keys; 0 = none): the attention-core FLOPs scale with it */
double est_attn_keys(double s, bool causal, double window);
/* keys per query the kernel computes: a sliding window's whole key blocks (W + 128) */
#define EST_ATTN_KEY_BLOCK 128.0
double est_attn_keys_computed(double s, bool causal, double window);

/* what a candidate recomputes, as Megatron-Core names it: "full" ("full (save_qkv_proj)" under a
 * JAX remat policy keeping named outputs), or the selective modules joined by '+' (core_attn,
 * mla_up_proj, layernorm, moe_act); "" for none */
void est_recompute_text(const est_input *in, char *buf, size_t n);
/* full recompute as est_recompute_text names it, under the given remat saves: "full", or
 * "full (save_qkv_proj)" */
void est_full_recompute_text(unsigned remat_saves, char *buf, size_t n);
/* elements one GPU casts to FP8/FP4 per layer for T tokens (every GEMM input forward,
 * every output gradient backward; weights cached); 4 B of HBM traffic each.  moe_layer:
 * a layer with routed experts (MoE models may lead with dense layers) */
double est_cast_elems(const est_input *in, double T, bool backward, bool moe_layer);
/* fraction of the bf16 peak an attention forward reaches on this GPU with heads of head_dims =
 * d_qk + d_v channels (≤ 0: the 256 of 128-wide heads), at the reference key range attn_eff is
 * quoted at (EST_ATTN_REF_SEQ causal tokens); exp_share_ref: the exponentials' share of it at
 * Hopper's EST_ATTN_REF_MMA_PER_EXP MMA FLOPs per exponential (calibration attn_exp_share) */
#define EST_ATTN_REF_HEAD_DIMS 256.0
#define EST_ATTN_REF_MMA_PER_EXP 256.0
#define EST_ATTN_REF_SEQ 8192.0 /* calibration.csv attn_block_overhead */
double est_attn_fwd_eff(double attn_eff, double exp_share_ref, double block_overhead, const gpu_spec *g, double head_dims);
/* a training attention kernel's rate on this GPU relative to attn_eff at its clock: 1, or for a GPU
 * whose own kernel is measured (gpus.csv attn_burst_8k) that burst over the reference GPUs'
 * (calibration attn_ref_burst) at this GPU's clock_scale */
double est_attn_gpu_scale(const est_cal *c, const gpu_spec *g);
/* the backward's rate at head_dims relative to 128-wide heads (the same exponential law, its MMAs
 * 2.5x the forward's) */
double est_attn_bwd_width(double exp_share_ref, const gpu_spec *g, double head_dims);
/* time of a fused attention kernel whose query blocks compute `keys` keys each on average,
 * relative to the same FLOPs at the reference key range: (kb + o)/kb over (kb_ref + o)/kb_ref
 * with kb = keys/EST_ATTN_KEY_BLOCK and o = block_overhead (1 at the reference, > 1 for short
 * key ranges such as sliding windows, < 1 for long sequences) */
double est_attn_range_factor(double keys, double block_overhead);
/* the same for a query block whose keys take `calls` kernel calls (a context-parallel ring's
 * steps), each paying the overhead */
double est_attn_calls_range_factor(double keys, double block_overhead, double calls);
/* that overhead for the kernel a stack runs on this GPU: FlashAttention-2-class kernels (every
 * sm80 kernel, and a flash2 stack's everywhere) or Hopper/Blackwell's warp-specialized ones */
double est_attn_block_overhead(const est_cal *c, const gpu_spec *g, bool flash2);
/* the same for a training step's cuDNN-class kernel: the GPU's own measured overhead where its
 * curve is measured (gpus.csv attn_block_overhead), else est_attn_block_overhead's */
double est_attn_gpu_block_overhead(const est_cal *c, const gpu_spec *g);
/* Routed token copies one GPU's experts process for T tokens per GPU of the sequence. */
double est_moe_tokens(const est_input *in, double T);

/* dense peak TFLOP/s of the GPU in a precision (fp8/fp4 fall back to bf16 when
 * the GPU has no such units) */
double est_peak_tflops(const gpu_spec *g, est_precision p);
/* the GEMM rate a run of precision p is modelled at: the peak, except NVFP4 training's
 * mixed FP4/FP8 rate (est_fp4_gemm_tflops); and the achievable fraction of it (the
 * catalog's fp8_gemm_eff for FP8/FP4 where given, else gemm_eff) */
double est_gemm_tflops(const gpu_spec *g, est_precision p, double fp4_speedup);
double est_gemm_eff(const gpu_spec *g, est_precision p);

#endif
