/* layer_cost.c — time and activation memory of one transformer layer (layer_cost.h) */
#include "estimator/layer_cost.h"

#include <math.h>
#include <string.h>

#include "estimator/collective.h"

/* FC1 matrices: two (gate and up) for gated MLPs (SwiGLU, GeGLU), else one */
static double fc1_mats(const model_shape *s) { return s->gated_mlp ? 2.0 : 1.0; }

/* GEMM tile of cuBLAS/CUTLASS bf16 and fp8 kernels on Ampere, Hopper and Blackwell
 * (CUTLASS default threadblock 128×128; NVIDIA "Matrix Multiplication Background" user
 * guide, tile quantization) and the K-depth a 16-bit tile's pipeline fill and epilogue cost
 * (a multistage mainloop of 4 stages × 32 K: about 128 of K before the first MMA) */
#define GEMM_TILE 128.0

/* K-depth of the fill for GEMM operands of elem_bytes bytes: a mainloop stage loads a fixed
 * 128 bytes of K per row (CUTLASS Hopper tiles 128×128×64 for 16-bit operands, 128×128×128
 * for FP8: examples 48_hopper_warp_specialized_gemm and 54_hopper_fp8_warp_specialized_gemm),
 * and the prologue and the bf16 epilogue take the same time at either precision while the
 * mainloop runs twice as fast in FP8, so the fill is worth twice the K: 256 for 1-byte
 * operands.  FP8 GEMMs with a short K (TP-split FC2 and projections) thus reach a smaller
 * share of the FP8 peak than bf16 GEMMs of theirs. */
double layer_gemm_k_fill(double elem_bytes)
{
    return LAYER_GEMM_K_FILL * (elem_bytes < 2.0 ? 2.0 : 1.0);
}

/* Useful share of one GEMM's tensor-core work (NVIDIA Deep Learning Performance guide,
 * "Matrix Multiplication Background": tile and wave quantization): the output is cut into
 * ceil(M/128)·ceil(N/128) tiles, padded to whole tiles (M·N over the padded area), which
 * run in waves of one tile per SM (tiles over ceil(tiles/SMs)·SMs); each tile's K loop
 * pays a pipeline fill, K/(K + k_fill). */
double layer_gemm_shape_k(double sms, double M, double K, double N, double k_fill)
{
    double tm = ceil(M / GEMM_TILE), tn = ceil(N / GEMM_TILE), tiles = tm * tn;
    double tile_q = M * N / (tm * tn * GEMM_TILE * GEMM_TILE);
    double waves = tiles / sms, wave_q = waves / ceil(waves);
    return tile_q * wave_q * K / (K + k_fill);
}

double layer_gemm_shape(double sms, double M, double K, double N)
{
    return layer_gemm_shape_k(sms, M, K, N, LAYER_GEMM_K_FILL);
}

/* The catalog's gemm_eff describes large GEMMs (the 8192³ reference, d->gemm_ref, at the
 * device's operand width); a GEMM reaches that times its shape's share relative to the
 * reference, never more than it */
double layer_gemm_eff(const est_device *d, double M, double K, double N)
{
    double rel = layer_gemm_shape_k(d->sms, M, K, N, d->k_fill) / d->gemm_ref;
    return d->gemm_eff * (rel < 1.0 ? rel : 1.0);
}

/* the same for a bf16 GEMM on this GPU, whatever the run's GEMM precision: what Transformer
 * Engine leaves outside FP8 (the output layer) and batched attention GEMMs run at */
double layer_gemm_eff16(const est_device *d, double M, double K, double N)
{
    double rel = layer_gemm_shape_k(d->sms, M, K, N, LAYER_GEMM_K_FILL) / d->gemm_ref16;
    return d->gemm_eff16 * (rel < 1.0 ? rel : 1.0);
}

/* One GEMM (M×K)·(K×N): roofline of FLOPs at the achievable fraction of peak vs
 * operand traffic over HBM, with a launch floor (Williams et al. 2009 roofline). */
double layer_gemm_s(const est_device *d, double M, double K, double N, double eff_scale)
{
    if (M <= 0 || K <= 0 || N <= 0) return 0.0;
    double flops = 2.0 * M * K * N;
    double t_math = flops / (d->peak * layer_gemm_eff(d, M, K, N) * eff_scale);
    double t_mem = d->elem_bytes * (M * K + K * N + M * N) / d->hbm;
    double t = t_math > t_mem ? t_math : t_mem;
    double floor = d->cal->min_kernel_us * 1e-6;
    return t > floor ? t : floor;
}

/* One batched GEMM (batch × (M×K)·(K×N)) in bf16, as torch.bmm/baddbmm run the unfused
 * attention: roofline of its FLOPs at the device's GEMM efficiency for that shape
 * (layer_gemm_eff16) vs its operand traffic, one launch for the batch */
static double bmm16_s(const est_device *d, double batch, double M, double K, double N)
{
    if (batch <= 0 || M <= 0 || K <= 0 || N <= 0) return 0.0;
    double t_math = 2.0 * batch * M * K * N / (d->peak16 * layer_gemm_eff16(d, batch * M, K, N)); /* tiles of every matrix share the waves */
    double t_mem = 2.0 * batch * (M * K + K * N + M * N) / d->hbm;
    double t = fmax(t_math, t_mem);
    return fmax(t, d->cal->min_kernel_us * 1e-6);
}

/* One bf16 GEMM, as layer_gemm_s: FP8 training under Transformer Engine quantizes only the
 * GEMMs of TE modules (te.pytorch.Linear, LayerNormLinear, …) inside fp8_autocast;
 * Megatron-Core's output layer is a tensor_parallel.ColumnParallelLinear, not a TE module,
 * so the logits GEMMs run in bf16 (Megatron-Core gpt_model.py output_layer; TE docs, "FP8
 * primer": only TE modules run in FP8) */
double layer_gemm16_s(const est_device *d, double M, double K, double N)
{
    return bmm16_s(d, 1.0, M, K, N);
}

/* Mean keys a query attends in a sequence of s tokens: s without a mask; causal
 * (s+1)/2 ≈ s/2; causal with a window of W: query i sees min(i, W) keys, so the
 * mean is (W(W+1)/2 + (s−W)·W)/s = W − W(W−1)/(2s) (Beltagy et al. 2020, sliding
 * window cost O(s·W)); a bidirectional window sees min(s, W). */
double est_attn_keys(double s, bool causal, double window)
{
    if (window <= 0 || window >= s) return causal ? s / 2.0 : s;
    if (!causal) return window;
    return window - window * (window - 1.0) / (2.0 * s);
}

/* Keys per query the attention kernel computes: FlashAttention walks whole blocks of
 * EST_ATTN_KEY_BLOCK keys (Dao 2023 §3.1; FA3 and cuDNN use 128 on Hopper and Blackwell),
 * skips the blocks a causal mask hides entirely and masks inside the others, so causal
 * attention computes the diagonal block in full: query block i of n = s/128 computes i + 1
 * key blocks, 128·(n + 1)/2 = s/2 + 64 keys per query on average, not s/2 (+3 % at s = 4096,
 * +6 % at 2048); a query block of a sliding window of W keys computes the W/128 blocks its
 * window covers plus the diagonal one: W + 128 keys, not W. */
double est_attn_keys_computed(double s, bool causal, double window)
{
    double full = causal ? fmin(s, s / 2.0 + EST_ATTN_KEY_BLOCK / 2.0) : s;
    if (window <= 0 || window >= s) return full;
    return fmin(full, window + EST_ATTN_KEY_BLOCK);
}

/* GEMM rate of NVFP4 training: it runs a share f of each GEMM's work at the FP4 rate and
 * the rest (block scaling, random Hadamard transforms, layers kept in BF16) at the FP8
 * rate, so its speedup over FP8 is Amdahl's 1/((1 − f) + f/r) with r the FP4/FP8 peak
 * ratio.  fp4_speedup is that speedup on Blackwell (r = 2), which fixes f = 2(1 − 1/s);
 * Blackwell Ultra raises r to 3 (GB300: 15 dense FP4 PFLOP/s over 5 FP8), so the same
 * share gains more: 1.8× instead of 1.5×. */
double est_fp4_gemm_tflops(const gpu_spec *g, double fp4_speedup)
{
    double fp8 = g->fp8_tflops > 0 ? g->fp8_tflops : g->bf16_tflops;
    if (g->fp4_tflops <= 0 || fp8 <= 0 || fp4_speedup <= 0) return fp8;
    double r = g->fp4_tflops / fp8;
    double f = fmin(1.0, fmax(0.0, 2.0 * (1.0 - 1.0 / fp4_speedup)));
    return fp8 / ((1.0 - f) + f / r);
}

/* Key blocks per query block at the reference key range attn_eff is quoted at */
static double attn_ref_key_blocks(void)
{
    return est_attn_keys_computed(EST_ATTN_REF_SEQ, true, 0) / EST_ATTN_KEY_BLOCK;
}

/* Share of an attention forward's time its softmax exponentials take at 128-wide heads on this
 * GPU: each score costs one exponential on the special-function units and 2·(d_qk + d_v) MMA
 * FLOPs, so with x_ref the share at Hopper's 256 MMA FLOPs per exponential (calibration.csv
 * attn_exp_share, from cuDNN's H200 benchmarks) a GPU with ρ times Hopper's ratio spends
 * x = x_ref·ρ / ((1 − x_ref) + x_ref·ρ) (Blackwell, ρ = 2: 0.46; Ampere, ρ = 0.5: 0.18) */
static double attn_exp_share(double exp_share_ref, const gpu_spec *g)
{
    double rho = g->mma_per_exp > 0 ? g->mma_per_exp / EST_ATTN_REF_MMA_PER_EXP : 1.0;
    return exp_share_ref * rho / ((1.0 - exp_share_ref) + exp_share_ref * rho);
}

/* Fraction of the bf16 peak an attention forward reaches at the reference key range (8192 causal
 * tokens): attn_eff, times attn_speedup on GPUs whose softmax exponentials run faster than their
 * MMA peak implies (Blackwell Ultra; data/gpus.csv); no kernel's long-range rate exceeds 95 % of
 * peak, so the cap at the reference range is 95 % less the per-query-block overhead
 * (est_attn_range_factor).  attn_eff holds for d_qk + d_v = 256 (128-wide heads); narrower heads
 * do fewer MMA FLOPs per exponential, so of a score's time the MMA share (1 − x) shrinks with the
 * width w = (d_qk + d_v)/256 and the exponential's x does not: the FLOP rate is w/((1 − x)·w + x)
 * of the reference (x from attn_exp_share; 64-wide heads on H200: 0.77 of it, as cuDNN measures;
 * on GB200 0.68, measured 0.62-0.64).  Wider heads (MLA's 192 + 128) run no faster.  head_dims
 * ≤ 0: the reference width. */
double est_attn_fwd_eff(double attn_eff, double exp_share_ref, double block_overhead, const gpu_spec *g, double head_dims)
{
    double w = head_dims > 0 ? fmin(1.0, head_dims / EST_ATTN_REF_HEAD_DIMS) : 1.0;
    double x = attn_exp_share(exp_share_ref, g), width = w / ((1.0 - x) * w + x);
    double kb = attn_ref_key_blocks();
    return fmin(0.95 * kb / (kb + block_overhead), attn_eff * g->attn_speedup * width);
}

/* The reference GPUs' cuDNN kernels reach attn_ref_burst of peak at 8192 tokens and a training
 * step keeps attn_eff of it at the GPU's clock; a GPU with its own measurement keeps the same
 * share of its burst, which was measured at its own clock (so clock_scale is taken out again) */
double est_attn_gpu_scale(const est_cal *c, const gpu_spec *g)
{
    if (!g || g->attn_burst_8k <= 0 || c->attn_ref_burst <= 0) return 1.0;
    return g->attn_burst_8k / (c->attn_ref_burst * (g->clock_scale > 0 ? g->clock_scale : 1.0));
}

/* The same law for the backward: a score's one exponential (P recomputed) against 2.5x the
 * forward's MMA FLOPs (FlashAttention's five backward GEMMs), so the exponentials' share at
 * 128-wide heads is x_b = x / (2.5·(1 − x) + x) and narrower heads run at w/((1 − x_b)·w + x_b)
 * of the 128-wide rate (Hopper: 0.87 at 64-wide heads, cuDNN's H200 measures 0.84-0.86; Blackwell
 * 0.80, GB200 measures 0.82-0.83) */
double est_attn_bwd_width(double exp_share_ref, const gpu_spec *g, double head_dims)
{
    double w = head_dims > 0 ? fmin(1.0, head_dims / EST_ATTN_REF_HEAD_DIMS) : 1.0;
    double x = attn_exp_share(exp_share_ref, g), xb = x / (2.5 * (1.0 - x) + x);
    return w / ((1.0 - xb) * w + xb);
}

/* A fused attention kernel walks each query block's key blocks in a pipeline whose start and
 * end (loading Q, filling the TMA/MMA/softmax stages, the final rescale, writing O) cost about
 * block_overhead key blocks' time whatever the range (calibration.csv attn_block_overhead, from
 * NVIDIA's cuDNN SDPA benchmarks): a query block computing kb key blocks in `calls` kernel calls
 * takes max(kb, 1) + calls·o (a range shorter than one block still computes a whole padded
 * block), so the time per FLOP is that over kb, here relative to the reference range's (one
 * call) */
double est_attn_calls_range_factor(double keys, double block_overhead, double calls)
{
    double kb = keys > 0 ? keys / EST_ATTN_KEY_BLOCK : 1.0, ref = attn_ref_key_blocks();
    return (fmax(kb, 1.0) + calls * block_overhead) / kb / ((ref + block_overhead) / ref);
}

double est_attn_range_factor(double keys, double block_overhead)
{
    return est_attn_calls_range_factor(keys, block_overhead, 1.0);
}

/* Kernel calls a query block's attention takes under context parallelism: a ring (Megatron-
 * Core / Transformer Engine's p2p exchange, PyTorch's context_parallel whichever way it rotates
 * K/V) calls the kernel once per step on the chunk that arrived; with the causal load balancing
 * both use (each rank holds chunks i and 2cp−1−i) step 0 runs every local query block, and of
 * the cp − 1 later steps half run all of them against half the chunk and half only the second
 * query chunk against all of it: 1 + 0.75·(cp − 1) calls on average (TE AttnFuncWithCPAndKVP2P;
 * torch.distributed.tensor.experimental._attention _templated_ring_attention).  A stack that
 * all-gathers K/V and then attends once per query chunk (stacks.csv cp_single_call) takes one. */
static double attn_calls_per_query_block(const est_input *in)
{
    if (in->cp <= 1 || (in->stack && in->stack->cp_single_call)) return 1.0;
    return 1.0 + 0.75 * ((double)in->cp - 1.0);
}

double est_attn_block_overhead(const est_cal *c, const gpu_spec *g, bool flash2)
{
    return flash2 || g->sm_arch < 90 ? c->attn_block_overhead_fa2 : c->attn_block_overhead;
}

double est_attn_gpu_block_overhead(const est_cal *c, const gpu_spec *g)
{
    return g->attn_block_overhead > 0 ? g->attn_block_overhead : est_attn_block_overhead(c, g, false);
}

/* Elements one GPU casts to FP8/FP4 per layer for T tokens.  Transformer Engine
 * quantizes every GEMM input: forward the activation entering QKV, the attention
 * projection, FC1 and FC2; backward the output gradient of each of them (for the data-
 * and weight-gradient GEMMs).  Each cast reads 2 B and writes a row-wise and a
 * column-wise (transposed, for the weight gradient) 1-byte copy: 4 B per element.
 * Weights are cast once per step and cached, so they are left out. MoE experts see
 * est_moe_tokens routed copies, F/etp wide inside. */
static double cast_elems(const est_input *in, const layer_attn *at, double T, bool backward, bool moe_layer)
{
    const model_shape *s = &in->shape;
    double t = in->tp, h = s->hidden;
    double mats_in = fc1_mats(s);
    /* MLA adds the up-projections' latent inputs and the down-projection's output gradient */
    double attn = backward ? T * ((at->q + at->k + at->v + h) / t + at->down)
                           : T * ((h + at->ctx) / t + at->q_latent + at->kv_latent);
    double mlp;
    if (moe_layer) {
        /* est_moe_tokens routed token copies per GPU, each h (LatentMoE: latent) wide in and
         * F/etp wide inside; LatentMoE's projections cast their inputs on the T/t tokens */
        double F = s->moe_ffn_hidden, et = in->etp, Tm = est_moe_tokens(in, T), w = shape_expert_width(s);
        mlp = backward ? Tm * (mats_in * F / et + w) : Tm * (w + F / et);
        if (s->moe_latent > 0) mlp += T / t * (h + s->moe_latent);
        double Fs = s->moe_shared_ffn; /* shared experts: a dense MLP every token passes */
        if (Fs > 0) mlp += backward ? T * (mats_in * Fs + h) / t : T * (h + Fs) / t;
    } else {
        double F = s->ffn_hidden;
        mlp = backward ? T * (mats_in * F + h) / t : T * (h + F) / t;
    }
    return attn + mlp;
}

double est_cast_elems(const est_input *in, double T, bool backward, bool moe_layer)
{
    layer_attn at;
    layer_attn_of(&in->shape, &at);
    return cast_elems(in, &at, T, backward, moe_layer);
}

/* Routed token copies one GPU's experts process per micro-batch when each GPU holds T
 * tokens of the sequence.  With TP > 1 Megatron-Core requires sequence parallelism for
 * MoE, so a GPU enters the MoE layer with T/tp tokens; each is sent to top-k experts,
 * and expert-TP ranks all-gather their inputs, so the GPUs of an expert-TP group each
 * see etp times their share (Megatron-Core MoE docs, "expert tensor parallelism";
 * token dispatcher all-to-all then ETP all-gather).  Balanced routing spreads these
 * evenly over the EP group. */
double est_moe_tokens(const est_input *in, double T)
{
    const model_shape *s = &in->shape;
    return T * shape_moe_topk(s) * in->etp / in->tp;
}

/* Host time of one MoE layer's expert block per micro-batch, forward + backward.
 * Grouped expert GEMMs are issued one expert at a time (Transformer Engine
 * GroupedLinear loops over the local experts): 2 GEMMs forward and 4 backward per
 * expert, plus an input cast before each forward GEMM and a gradient cast before
 * each backward pair under FP8/FP4 (TE quantizes per expert).  Each of these
 * launches costs moe_launch_us of host time (Python module + quantizer setup +
 * cuBLAS call in eager PyTorch). */
static double moe_host_s(const est_input *in, const est_cal *c, double local_experts)
{
    bool low_precision = in->precision == PREC_FP8 || in->precision == PREC_FP4;
    double launches_per_expert = 6.0 + (low_precision ? 4.0 : 0.0);
    return local_experts * launches_per_expert * c->moe_launch_us * 1e-6;
}

/* HBM bytes per routed token copy that the experts' work outside their GEMMs adds, beyond
 * one fused activation (counted with the other elementwise traffic), forward or backward.
 * F = the expert FFN width on this GPU, 2 B per element.
 * - Clamped gated activation (GPT-OSS; Megatron-Core MLP glu() with
 *   activation_func_clamp_value): the two clamps, the linear half's "+ offset" and the
 *   product run as separate PyTorch ops around the fused activation.  Forward: clamp 2F +
 *   clamp 2F + activation 2F + add 2F + product 3F = 11F element reads and writes against
 *   the fused kernel's 3F: 8F more.  Backward (autograd): product 5F, activation 3F, two
 *   clamps 3F each, the chunk's concatenation 4F = 18F against 5F: 13F more.
 * - Expert biases: grouped GEMMs have no bias epilogue (Transformer Engine GroupedLinear;
 *   TE issue #2766), so the forward adds the FC1 and FC2 biases in passes of their own
 *   (read + write of mats·F + h) and the backward reduces the output gradients for the bias
 *   gradients (one read of mats·F + h).
 * A fused grouped MLP (fused_expert_mlp) does both in its epilogue: nothing added.
 * Saved extra tensors of the unfused clamps are left out of the memory model. */
/* the clamps' share: element reads and writes per routed copy (moe_act recompute re-runs
 * the forward's) */
static double clamp_elems(const est_input *in, bool backward)
{
    const model_shape *s = &in->shape;
    if (in->fused_expert_mlp || !s->moe_glu_clamp || !s->gated_mlp) return 0.0;
    double F = (double)s->moe_ffn_hidden / in->etp;
    return backward ? 13.0 * F : 8.0 * F;
}

static double expert_epilogue_bytes(const est_input *in, bool backward)
{
    const model_shape *s = &in->shape;
    if (in->fused_expert_mlp) return 0.0;
    double F = (double)s->moe_ffn_hidden / in->etp, h = shape_expert_width(s), mats = fc1_mats(s);
    double elems = clamp_elems(in, backward);
    if (s->moe_expert_bias) elems += backward ? mats * F + h : 2.0 * (mats * F + h);
    return 2.0 * elems;
}


/* Forward GEMMs of the attention block for T tokens: the fused QKV projection (column
 * parallel) and the output projection (row parallel).  MLA replaces QKV with a down-
 * projection replicated across TP ranks (Megatron-Core MLA "duplicated" linear) and
 * column-parallel up-projections, whose part *mla_up receives. */
static double attn_proj_fwd_s(const est_input *in, const est_device *dev, double T, double *mla_up)
{
    const model_shape *s = &in->shape;
    const layer_attn *at = &dev->at;
    double t = in->tp, h = s->hidden, a = s->heads, d = shape_head_dim(s);
    double f = layer_gemm_s(dev, T, at->ctx / t, h, 1.0); /* output projection */
    *mla_up = 0.0;
    if (layer_is_mla(s)) {
        double up = layer_gemm_s(dev, T, at->kv_latent, a * (d + at->v_dim) / t, 1.0);
        if (at->q_latent > 0) up += layer_gemm_s(dev, T, at->q_latent, at->q / t, 1.0);
        f += layer_gemm_s(dev, T, h, at->down, 1.0) + up + (at->q_latent > 0 ? 0.0 : layer_gemm_s(dev, T, h, at->q / t, 1.0));
        *mla_up = up;
    } else {
        f += layer_gemm_s(dev, T, h, (at->q + at->k + at->v) / t, 1.0);
    }
    return f;
}

/* Forward GEMMs of a dense MLP: FC1 (column parallel) and FC2 (row parallel) */
static double dense_mlp_fwd_s(const est_input *in, const est_device *dev, double T)
{
    const model_shape *s = &in->shape;
    double t = in->tp, h = s->hidden, F = s->ffn_hidden;
    return layer_gemm_s(dev, T, h, fc1_mats(s) * F / t, 1.0) + layer_gemm_s(dev, T, F / t, h, 1.0);
}

/* How much longer than the mean expert the busiest one takes: dropless routing waits for
 * it (moe_imbalance) where experts run on different GPUs at once (EP > 1: the combine
 * all-to-all waits for the busiest expert rank); benchmark runs that force a balanced token
 * distribution, or drop tokens beyond a fixed capacity, do not wait.  With EP 1 one GPU runs
 * all its experts one after another (Transformer Engine GroupedLinear loops over the local
 * experts; Hugging Face MixtralSparseMoeBlock loops `for expert_idx in range(num_experts)`):
 * the time is the sum of the experts' loads, the same however the tokens are spread */
static double moe_wait(const est_input *in, const est_cal *c)
{
    if (in->ep <= 1) return 1.0;
    return in->moe_force_balanced || in->moe_token_drop ? 1.0 : c->moe_imbalance;
}

/* Forward of an expert layer's MLP on one GPU: its E/ep local experts' grouped GEMMs over
 * the routed copies est_moe_tokens spreads evenly over them (balanced routing), paced by
 * moe_wait; the router GEMM and the token permutation over HBM (moe_permute_units); and
 * shared experts, a dense MLP of moe_shared_ffn every token passes, TP-split (DeepSeekMoE,
 * Dai et al. 2024 §3.2; Megatron-Core SharedExpertMLP). */
static double moe_mlp_fwd_s(const est_input *in, const est_device *dev, double T)
{
    const model_shape *s = &in->shape;
    const est_cal *c = dev->cal;
    double t = in->tp, h = s->hidden, mats_in = fc1_mats(s);
    double etp = in->etp, ep = in->ep, E = s->num_experts, k = shape_moe_topk(s);
    double F = s->moe_ffn_hidden, w = shape_expert_width(s);
    double local_experts = E / ep;
    double T_in = T / t; /* sequence-parallel share entering the layer */
    double m_e = est_moe_tokens(in, T) / local_experts;
    double f = moe_wait(in, c) * local_experts *
                   (layer_gemm_s(dev, m_e, w, mats_in * F / etp, c->moe_gemm_eff) + layer_gemm_s(dev, m_e, F / etp, w, c->moe_gemm_eff)) +
               layer_gemm_s(dev, T_in, h, E, 1.0) + /* router */
               c->moe_permute_units * 2.0 * T_in * k * w / dev->hbm;
    if (s->moe_latent > 0) /* LatentMoE: h → latent before the dispatch, latent → h after the combine */
        f += layer_gemm_s(dev, T_in, h, s->moe_latent, 1.0) + layer_gemm_s(dev, T_in, s->moe_latent, h, 1.0);
    double Fs = s->moe_shared_ffn;
    if (Fs > 0) f += layer_gemm_s(dev, T, h, mats_in * Fs / t, 1.0) + layer_gemm_s(dev, T, Fs / t, h, 1.0);
    return f;
}

/* EP all-to-all of one expert layer: dispatch and combine, forward and backward
 * (Megatron-Core token dispatcher), paced by the busiest expert (moe_wait); expert ranks
 * are consecutive within the expert-TP groups (Megatron-Core expert rank order
 * tp-ep-dp-pp with tp = expert TP) */
static double moe_ep_comm_s(const est_input *in, const est_device *dev, double T)
{
    const model_shape *s = &in->shape;
    if (in->ep <= 1) return 0.0;
    double k = shape_moe_topk(s);
    return 4.0 * moe_wait(in, dev->cal) * coll_dispatch_s(in, T / in->tp, k, shape_expert_width(s) * 2.0, in->ep, in->etp, dev->cal);
}

/* Forward GEMMs of T5's cross-attention: Q from the decoder's T tokens, K and V from the
 * cross_seq encoder tokens, and the output projection */
static double cross_attn_fwd_s(const est_input *in, const est_device *dev, double T, double cross_seq)
{
    const model_shape *s = &in->shape;
    double t = in->tp, h = s->hidden, a = s->heads, g = shape_query_groups(s), d = shape_head_dim(s);
    double Te = in->mbs * cross_seq / in->cp;
    return layer_gemm_s(dev, T, h, a * d / t, 1.0) + layer_gemm_s(dev, Te, h, 2 * g * d / t, 1.0) + layer_gemm_s(dev, T, a * d / t, h, 1.0);
}

/* Attention-core FLOPs of the forward: QKᵀ over qk_dim and AV over v_dim for the mean keys
 * a query's kernel computes (est_attn_keys_computed: causal masks and sliding windows skip
 * the blocks they hide entirely, as FlashAttention does, and compute the diagonal ones whole),
 * plus T5's cross-attention over all encoder tokens */
static double attn_core_flops(const est_input *in, const est_device *dev, double T, double seq_kv, bool causal,
                              bool cross, double cross_seq)
{
    const model_shape *s = &in->shape;
    double t = in->tp, a = s->heads, d = shape_head_dim(s);
    double keys = s->swa_window > 0 ? s->swa_share * est_attn_keys_computed(seq_kv, causal, s->swa_window) +
                                          (1.0 - s->swa_share) * est_attn_keys_computed(seq_kv, causal, 0)
                                    : est_attn_keys_computed(seq_kv, causal, 0);
    double flops = 2.0 * T * keys * a * (dev->at.qk_dim + dev->at.v_dim) / t;
    if (cross) flops += 4.0 * T * cross_seq * a * d / t;
    return flops;
}

/* The attention kernels' time over the reference-range time of the same FLOPs
 * (est_attn_calls_range_factor), weighted by FLOPs: sliding-window layers, full ones, and T5's
 * cross-attention over all encoder tokens each run their own key range, in the kernel calls
 * context parallelism splits them into */
static double attn_core_range_factor(const est_input *in, const est_device *dev, double o, double seq_kv, bool causal,
                                     bool cross, double cross_seq)
{
    const model_shape *s = &in->shape;
    double w = dev->at.qk_dim + dev->at.v_dim, sum = 0.0, flops = 0.0;
    double calls = attn_calls_per_query_block(in);
    double shares[2] = {s->swa_window > 0 ? s->swa_share : 0.0, s->swa_window > 0 ? 1.0 - s->swa_share : 1.0};
    double windows[2] = {s->swa_window, 0};
    for (int i = 0; i < 2; i++) {
        double keys = est_attn_keys_computed(seq_kv, causal, windows[i]), f = shares[i] * keys * w;
        sum += f * est_attn_calls_range_factor(keys, o, calls);
        flops += f;
    }
    if (cross) {
        double f = 2.0 * cross_seq * shape_head_dim(s);
        sum += f * est_attn_calls_range_factor(cross_seq, o, calls);
        flops += f;
    }
    return flops > 0 ? sum / flops : 1.0;
}

/* elementwise_units of one layer: the stack's model code (data/stacks.csv elementwise_units:
 * eager HF/torchtitan code runs norms, RoPE and activations as several torch ops;
 * compiled_elementwise_units under torch.compile), else the fused kernels' */
static double layer_elementwise_units(const est_input *in, const est_cal *c)
{
    double units = est_stack_elementwise_units(in);
    return units > 0 ? units : c->elementwise_units;
}

/* bytes per element of h a dropout mask keeps: GPT-3/BERT/T5 templates use dropout;
 * Llama/Mixtral do not, nor hybrid Mamba stacks (Megatron-Bridge MambaModelProvider:
 * hidden_dropout and attention_dropout 0.0), nor a stack whose configs set p = 0 */
static double dropout_mask_bytes(const est_input *in)
{
    const model_shape *s = &in->shape;
    return s->gated_mlp || shape_is_hybrid(s) || (in->stack && in->stack->no_dropout) ? 0.0 : 1.0;
}

/* Bytes the non-GEMM ops of one layer move over HBM in the forward: elementwise_units ×
 * 2h per token (norms, dropout, residual, RoPE, casts), and the MLP activation reading its
 * input and writing its output (gated: 2F in, F out).  The activation stays for a fused
 * grouped MLP too: training saves the FC1 output for the backward, so it reaches HBM
 * either way. */
static double elementwise_bytes(const est_input *in, const est_cal *c, double T, bool moe_layer)
{
    const model_shape *s = &in->shape;
    double bytes = layer_elementwise_units(in, c) * 2.0 * T * s->hidden / layer_sp_div(in);
    double F_act = moe_layer ? s->moe_ffn_hidden * shape_moe_topk(s) + s->moe_shared_ffn : s->ffn_hidden;
    bytes += 2.0 * 2.0 * T * F_act * (s->gated_mlp ? 1.5 : 1.0) / in->tp;
    return bytes;
}

/* Selective module recompute (Megatron-Core recompute_modules) in the backward, seconds:
 * each norm reads its input and writes its output again (2·h + 2·h bytes per token); the
 * experts' activation reads the FC1 output again and writes its output (gated: 2·2F +
 * 2F), and unfused clamps (clamp_elems) run again too */
static double module_recompute_s(const est_input *in, const est_device *dev, double T, bool moe_layer)
{
    const model_shape *s = &in->shape;
    double r = 0.0;
    if (in->recompute_layernorm) r += 2.0 * 4.0 * s->hidden * T / layer_sp_div(in) / dev->hbm;
    if (in->recompute_moe_act && moe_layer) {
        r += est_moe_tokens(in, T) * 2.0 * (fc1_mats(s) + 1.0) * s->moe_ffn_hidden / in->etp / dev->hbm;
        r += est_moe_tokens(in, T) * 2.0 * clamp_elems(in, false) / dev->hbm;
    }
    return r;
}

/* TP collectives of one layer, forward and backward, before overlap: one all-reduce per block
 * each way, or with SP an all-gather and a reduce-scatter (the same volume, twice the calls),
 * of T·h·2 bytes (Korthikanti et al. 2022 §4.2.2); T5's decoder has a third block,
 * cross-attention */
static double tp_comm_s(const est_input *in, const est_cal *c, double T, bool cross)
{
    if (in->tp <= 1) return 0.0;
    double blocks = cross ? 3.0 : 2.0, bytes = T * in->shape.hidden * 2.0;
    coll_group g = coll_group_of(in, in->tp, 1);
    double per_block = in->sequence_parallel ? 2.0 * coll_gather_s(bytes, 1.0, &g, c) : coll_allreduce_s(bytes, 1.0, &g, c);
    return 2.0 * blocks * per_block;
}

/* CP ring exchange of one layer: K and V chunks pass the cp−1 other ranks in the forward
 * (one third of the total); the backward passes them again and returns dK, dV (two thirds)
 * (Megatron-Core context parallel, Liu et al. 2023 ring attention) */
static void cp_comm_s(const est_input *in, const est_device *dev, double T, double *fwd, double *bwd)
{
    *fwd = *bwd = 0.0;
    if (in->cp <= 1) return;
    const est_stack *st = in->stack;
    /* a stack that expands GQA's K/V to every query head before the attention call exchanges
     * them at that width (torchtitan's repeat_kv ahead of SDPA) */
    double widen = st && st->cp_kv_all_heads ? (double)in->shape.heads / shape_query_groups(&in->shape) : 1.0;
    double kv_bytes = T * (dev->at.k + dev->at.v) * widen / in->tp * 2.0;
    double bw = coll_p2p_bw(in, in->cp, in->tp);
    double step = ((double)in->cp - 1) * kv_bytes / (bw * dev->cal->p2p_eff);
    double dkv = st && st->cp_dkv_bytes > 0 ? st->cp_dkv_bytes : 2.0;
    /* forward: K/V; backward: K/V again and dK/dV at the stack's width */
    *fwd = step;
    *bwd = step * (1.0 + dkv / 2.0);
}

/* Korthikanti et al. 2022 §4.1 activation inventory, bytes per token of one layer,
 * generalised: attention keeps the norm input, QKV input, Q/K/V (GQA: g·d for K and V),
 * the context and a dropout mask; without FlashAttention also 5·a·s bytes of scores,
 * softmax and its dropout mask (removed by selective recompute); the MLP keeps its input,
 * FC1 output (two for gated MLPs), activation output and a mask.  Norm inputs, masks and
 * FC inputs are split by TP only with sequence parallelism.  GEMM inputs kept for the
 * weight gradient: under FP8/FP4 Transformer Engine keeps the quantized copy (1 B per
 * element) it computed in the forward, not the bf16 tensor. */
static double act_bytes_per_token(const est_input *in, const est_device *dev, double seq_q, double seq_kv, bool cross,
                                  double cross_seq, bool moe_layer)
{
    const model_shape *s = &in->shape;
    const layer_attn *at = &dev->at;
    double t = in->tp, spd = layer_sp_div(in), mats_in = fc1_mats(s);
    double h = s->hidden, a = s->heads, g = shape_query_groups(s), d = shape_head_dim(s);
    double mask = dropout_mask_bytes(in);
    double gin = dev->elem_bytes < 2.0 ? 1.0 : 2.0;
    double per_tok = 0.0;
    per_tok += (2 * h + gin * h + mask * h) / spd;          /* norm input, QKV input, attention dropout mask */
    if (in->recompute_layernorm) per_tok -= 2.0 * gin * h / spd; /* both norms' outputs recomputed */
    /* Q, K, V (MLA with recompute_mla_up_proj: recomputed from the latents instead) and the
     * context (projection input) */
    if (!(in->recompute_mla_up_proj && layer_is_mla(s))) per_tok += 2.0 * (at->q + at->k + at->v) / t;
    per_tok += gin * at->ctx / t;
    per_tok += gin * (at->q_latent + at->kv_latent);                /* MLA: latents the up-projections read */
    if (!in->flash_attention && in->recompute != RECOMPUTE_SELECTIVE)
        per_tok += 5.0 * a * seq_kv / t;                     /* scores, softmax, dropout (Korthikanti 5as/h) */
    per_tok += (2 * h + gin * h + mask * h) / spd;          /* norm input, FC1 input, MLP dropout mask */
    if (moe_layer) {
        /* dispatched tokens (FC1 input, h wide), FC1 output and activation output (FC2 input) */
        double F = s->moe_ffn_hidden, per_T = est_moe_tokens(in, 1.0), Fs = s->moe_shared_ffn;
        per_tok += per_T * (gin * shape_expert_width(s) + (2.0 * mats_in * F + (in->recompute_moe_act ? 0.0 : gin * F)) / in->etp);
        if (s->moe_latent > 0) per_tok += gin * s->moe_latent / t; /* the combined latent entering latent → h */
        per_tok += (2.0 * mats_in * Fs + gin * Fs) / t; /* shared experts (their input is the MLP input above) */
    } else {
        per_tok += (2.0 * mats_in * s->ffn_hidden + gin * s->ffn_hidden) / t;
    }
    if (cross) per_tok += (2 * h + mask * h) / spd + 2.0 * a * d / t * 2 + 4.0 * g * d / t * (cross_seq / seq_q);
    return per_tok;
}

/* Attention without a fused kernel (NeMo 1.x 2022 CoreAttention; HF eager): QK^T and AV
 * as batched GEMMs over the full seq_q × seq_kv square (the causal mask is applied to
 * computed scores, nothing is skipped), per micro-batch and local head; the scores, the
 * softmax and dropout round-trip HBM at the stack's bytes per score element (apex fused
 * scale-mask-softmax then torch dropout).  Backward: dP = dO·Vᵀ, dV = Pᵀ·dO, dQ = dS·K,
 * dK = dSᵀ·Q, and the dropout and softmax backward passes.  T5 cross-attention adds a
 * seq_q × cross_seq square of its own. */
static void unfused_attn_s(const est_input *in, const est_device *dev, double seq_q, double seq_kv, bool cross,
                           double cross_seq, double *fwd, double *bwd)
{
    const est_stack *st = in->stack;
    double heads = (double)in->shape.heads / in->tp, batch = in->mbs * heads;
    double dq = dev->at.qk_dim, dv = dev->at.v_dim;
    double sm_f = st ? st->softmax_fwd_bytes : 9.0, sm_b = st ? st->softmax_bwd_bytes : 11.0;
    *fwd = *bwd = 0.0;
    for (int k = 0; k < (cross ? 2 : 1); k++) {
        double skv = k ? cross_seq : seq_kv, d_k = k ? shape_head_dim(&in->shape) : dq, d_v = k ? d_k : dv;
        double scores = batch * seq_q * skv;
        *fwd += bmm16_s(dev, batch, seq_q, d_k, skv) + bmm16_s(dev, batch, seq_q, skv, d_v) + scores * sm_f / dev->hbm;
        *bwd += bmm16_s(dev, batch, seq_q, d_v, skv) + bmm16_s(dev, batch, skv, seq_q, d_v) +
                bmm16_s(dev, batch, seq_q, skv, d_k) + bmm16_s(dev, batch, skv, seq_q, d_k) + scores * sm_b / dev->hbm;
    }
}

/* Op-level selective activation checkpointing as torchtitan applies it (torchtitan
 * parallelize apply_ac, selective_ac_option "op"): inside each checkpointed block the outputs
 * of matmuls, attention kernels and reduce-scatters are saved, except every second matmul, and
 * every other op (norms, RoPE, activations, residual adds) is recomputed in the backward.  The
 * block's matmuls run in order Q, K, V, O, then gate, up, down (gated MLP) or fc1, fc2: the
 * even ones (K, O, up or fc2) are dropped and recomputed.  *share: their share of the layer's
 * matmul FLOPs (each is h·width, the down/fc2 projection f·h); *kept: bytes kept per token
 * (bf16): the block input, the odd matmuls' outputs and the attention output.  MoE expert
 * matmuls are grouped GEMMs, not aten.mm, so they are recomputed: a MoE layer keeps only its
 * attention part and repeats the whole expert MLP. */
static void layer_sac(const est_input *in, const layer_attn *at, bool moe_layer, double *share, double *kept)
{
    const model_shape *s = &in->shape;
    double h = s->hidden, t = in->tp, sp = layer_sp_div(in);
    double f = s->ffn_hidden;
    /* output widths per token of the block's matmuls, in call order, and their K */
    double w[7], k[7];
    int n = 0;
    w[n] = at->q / t, k[n++] = h;
    w[n] = at->k / t, k[n++] = h;
    w[n] = at->v / t, k[n++] = h;
    w[n] = h / sp, k[n++] = at->ctx / t;
    double all = 0, dropped = 0, keep = 2.0 * h / sp + 2.0 * at->ctx / t; /* input, attention output */
    if (!moe_layer) {
        if (s->gated_mlp) { w[n] = f / t, k[n++] = h; }
        w[n] = f / t, k[n++] = h;
        w[n] = h / sp, k[n++] = f / t;
    }
    for (int i = 0; i < n; i++) {
        all += w[i] * k[i];
        if (i % 2) dropped += w[i] * k[i]; /* the 2nd, 4th, ... matmul */
        else keep += 2.0 * w[i];
    }
    *share = all > 0 ? dropped / all : 0.0;
    if (moe_layer) *share = -1.0; /* the caller repeats the whole expert MLP and the dropped attention matmuls */
    *kept = keep;
}

/* Full recompute of a dense decoder layer under JAX's remat (est_layer_remat_named: a stack
 * whose remat_policies says so, with or without a policy keeping named GEMM outputs: MaxText's
 * remat_policy, jax.checkpoint_policies save_only_these_names).  jax.checkpoint re-runs in the
 * backward only what the backward needs and cannot read (JAX docs, "Control autodiff's saved
 * values with jax.checkpoint"): the norms, RoPE, activation and residual adds (the layer's
 * elementwise passes); the attention core, whose output no policy names; the Q/K/V
 * projections unless kept; the output projection unless kept, as its output sums into the
 * residual the second norm's backward reads; the MLP's input projections (wi_0, wi_1) unless
 * kept, as the activation's backward reads them.  The MLP's output projection is never re-run
 * and never kept: nothing in the backward reads its output, so it is no residual (a policy
 * naming mlpwo changes nothing).  Megatron's full recompute re-runs the whole forward, wo
 * included.  FP8 casts are repeated in proportion to the GEMM time repeated.  Kept per token:
 * the layer input and each saved residual, 2 B per element.
 * *fwd_again: forward seconds repeated; *kept: bytes per token. */
static void layer_remat_named(const est_input *in, const est_device *dev, double T, double t_attn, double t_elem,
                              double t_cast_fwd, double *fwd_again, double *kept)
{
    const model_shape *s = &in->shape;
    const layer_attn *at = &dev->at;
    double t = in->tp, h = s->hidden, F = s->ffn_hidden, sp = layer_sp_div(in);
    unsigned keep = in->remat_saves;
    double qkv = layer_gemm_s(dev, T, h, (at->q + at->k + at->v) / t, 1.0);
    double out = layer_gemm_s(dev, T, at->ctx / t, h, 1.0);
    double wi = F > 0 ? layer_gemm_s(dev, T, h, fc1_mats(s) * F / t, 1.0) : 0.0;
    double wo = F > 0 ? layer_gemm_s(dev, T, F / t, h, 1.0) : 0.0;
    double gemms = qkv + out + wi + wo;
    double again = (keep & EST_SAVE_QKV ? 0.0 : qkv) + (keep & EST_SAVE_OUT ? 0.0 : out) + (keep & EST_SAVE_MLPWI ? 0.0 : wi);
    *fwd_again = again + t_attn + t_elem + (gemms > 0 ? again / gemms : 0.0) * t_cast_fwd;
    *kept = 2.0 * h / sp + (keep & EST_SAVE_QKV ? 2.0 * (at->q + at->k + at->v) / t : 0.0) + (keep & EST_SAVE_OUT ? 2.0 * h / sp : 0.0) +
            (keep & EST_SAVE_MLPWI ? 2.0 * fc1_mats(s) * F / t : 0.0);
}

/* Attention when the model hands PyTorch SDPA an explicit 4-D mask (est_input.attn_explicit_mask):
 * SDPA's flash backend takes no attn_mask, so the memory-efficient backend (xformers' CUTLASS
 * kernel, a FlashAttention-1-generation design) runs instead (PyTorch scaled_dot_product_attention
 * docs; transformers PR #30070 "Re-enable SDPA's FA2 path": 4.38-4.39 always passed the mask).
 * It cannot know the mask is causal, so it computes every key block of the s x s square, at the
 * stack's masked_attn_eff_ratio of FlashAttention-2's fraction of peak (Dao 2023: FlashAttention-2
 * ~2x FlashAttention, 50-73 % of A100 peak against 25-40 %).  It reads the bf16 mask, broadcast
 * over heads, once per local head in the forward and again in the backward (2 B per score each),
 * and Transformers makes Q, K and V contiguous before the call (a read and a write of each,
 * 2 + 2 B per element: LlamaSdpaAttention, "SDPA with memory-efficient backend is bugged with
 * non-contiguous inputs and custom attn_mask").  Causal skipping is lost for sliding windows too. */
static void masked_sdpa_s(const est_input *in, const est_device *dev, double T, double seq_kv, double ae, double *fwd, double *bwd)
{
    const est_cal *c = dev->cal;
    const layer_attn *at = &dev->at;
    double heads = (double)in->shape.heads / in->tp;
    double flops = 2.0 * T * seq_kv * heads * (at->qk_dim + at->v_dim);
    double eff = ae * in->stack->masked_attn_eff_ratio;
    double mask_bytes = 2.0 * T * seq_kv * heads;
    double copy_bytes = 4.0 * T * (at->q + at->k + at->v) / in->tp;
    /* xformers' kernel is FlashAttention-2-class; every key block is computed */
    double o = c->attn_block_overhead_fa2, range = est_attn_range_factor(seq_kv, o);
    *fwd = flops * range / (dev->peak16 * est_attn_fwd_eff(eff, c->attn_exp_share, o, in->gpu, at->qk_dim + at->v_dim)) +
           (mask_bytes + copy_bytes) / dev->hbm;
    *bwd = 2.5 * flops * range /
               (dev->peak16 * eff * c->attn_bwd_ratio * est_attn_bwd_width(c->attn_exp_share, in->gpu, at->qk_dim + at->v_dim)) +
           mask_bytes / dev->hbm;
}

void layer_cost_compute(const est_input *in, const est_device *dev, double seq_q, double seq_kv, bool causal,
                        bool cross, double cross_seq, bool moe_layer, layer_cost *lc)
{
    const est_cal *c = dev->cal;
    const layer_attn *at = &dev->at;
    double T = in->mbs * seq_q / in->cp; /* tokens per GPU per micro-batch */
    memset(lc, 0, sizeof *lc);

    /* GEMMs, forward */
    double f_attn = attn_proj_fwd_s(in, dev, T, &lc->mla_up_fwd);
    double f_mlp = moe_layer ? moe_mlp_fwd_s(in, dev, T) : dense_mlp_fwd_s(in, dev, T);
    double f_cross = cross ? cross_attn_fwd_s(in, dev, T, cross_seq) : 0.0;
    if (moe_layer) {
        lc->ep_comm = moe_ep_comm_s(in, dev, T);
        lc->host_moe = moe_host_s(in, c, (double)in->shape.num_experts / in->ep);
    }

    /* attention core: the forward is exp-bound (est_attn_fwd_eff); the backward
     * (FlashAttention: 2.5× the forward's work, 5 of its 7 GEMMs) is MMA-bound, and peaks
     * below the forward (attn_bwd_ratio) */
    double t_attn, t_attn_bwd;
    if (in->flash_attention) {
        /* cuDNN-class kernels at this GPU's own measured rate and per-block overhead where it is
         * measured (est_attn_gpu_scale, est_attn_gpu_block_overhead); FlashAttention-2's kernels
         * (the stack's flash2) on Hopper and Blackwell at their measured fraction of peak */
        bool flash2 = in->stack && in->stack->flash2;
        double ae = flash2 ? c->attn_eff : c->attn_eff * est_attn_gpu_scale(c, in->gpu);
        if (flash2 && in->gpu->sm_arch >= 90 && in->stack->fa2_sm90_eff < ae) ae = in->stack->fa2_sm90_eff;
        if (in->attn_explicit_mask && in->stack && in->stack->masked_attn_eff_ratio > 0 && !cross) {
            masked_sdpa_s(in, dev, T, seq_kv, ae, &t_attn, &t_attn_bwd);
        } else {
            double attn_flops = attn_core_flops(in, dev, T, seq_kv, causal, cross, cross_seq);
            double o = flash2 ? est_attn_block_overhead(c, in->gpu, true) : est_attn_gpu_block_overhead(c, in->gpu);
            double range = attn_core_range_factor(in, dev, o, seq_kv, causal, cross, cross_seq);
            /* a stack whose kernel is slower than FlashAttention-2 by a published ratio (Triton
             * FlashAttention: FA2 is 1.3-1.5x faster forward, ~2x backward, Dao 2023 §4.1) */
            double rel_f = in->stack && in->stack->attn_fwd_rel > 0 ? in->stack->attn_fwd_rel : 1.0;
            double rel_b = in->stack && in->stack->attn_bwd_rel > 0 ? in->stack->attn_bwd_rel : 1.0;
            t_attn = attn_flops * range / (dev->peak16 * est_attn_fwd_eff(ae, c->attn_exp_share, o, in->gpu, at->qk_dim + at->v_dim) * rel_f);
            /* the backward at attn_bwd_ratio of the forward's fraction of peak (calibration.csv),
             * its query blocks' pipelines started and drained as the forward's */
            double bw = est_attn_bwd_width(c->attn_exp_share, in->gpu, at->qk_dim + at->v_dim);
            t_attn_bwd = 2.5 * attn_flops * range / (dev->peak16 * ae * c->attn_bwd_ratio * bw * rel_b);
        }
    } else {
        unfused_attn_s(in, dev, seq_q / in->cp, seq_kv, cross, cross_seq, &t_attn, &t_attn_bwd);
    }

    /* elementwise traffic, and the experts' unfused clamps and bias passes
     * (expert_epilogue_bytes) */
    double t_elem = elementwise_bytes(in, c, T, moe_layer) / dev->hbm;
    double t_epi_fwd = 0.0, t_epi_bwd = 0.0;
    if (moe_layer) {
        double routed = est_moe_tokens(in, T);
        t_epi_fwd = routed * expert_epilogue_bytes(in, false) / dev->hbm;
        t_epi_bwd = routed * expert_epilogue_bytes(in, true) / dev->hbm;
    }
    lc->module_recomp = module_recompute_s(in, dev, T, moe_layer);
    /* LoRA adapters as PEFT / torchtune run them, unfused (the stack's lora_fwd_bytes and
     * lora_bwd_bytes per element of the adapted matrices' input + output widths a token passes,
     * lora_token_targets in units of 2h): their dropout, rank-r GEMM inputs and outputs, scaling
     * and the add into the frozen layer's output; the rank-r FLOPs themselves are left out */
    double t_lora_fwd = 0.0, t_lora_bwd = 0.0;
    if (in->lora_rank > 0 && in->stack) {
        double lora_tok = in->lora_token_targets > 0 ? in->lora_token_targets : in->lora_targets;
        double lora_w = lora_tok * 2.0 * in->shape.hidden / in->tp * T / dev->hbm;
        t_lora_fwd = lora_w * in->stack->lora_fwd_bytes;
        t_lora_bwd = lora_w * in->stack->lora_bwd_bytes;
    }

    /* FP8/FP4 quantization (est_cast_elems): est_stack_fp8_cast_bytes per cast element at HBM speed */
    double t_cast_fwd = 0.0, t_cast_bwd = 0.0;
    if (dev->elem_bytes < 2.0) {
        double cast_b = est_stack_fp8_cast_bytes(in);
        t_cast_fwd = cast_b * cast_elems(in, at, T, false, moe_layer) / dev->hbm;
        t_cast_bwd = cast_b * cast_elems(in, at, T, true, moe_layer) / dev->hbm;
    }

    double gemm_fwd = f_attn + f_mlp + f_cross;
    lc->attn_core_fwd = t_attn;
    lc->attn_core_bwd = t_attn_bwd;
    lc->fwd = gemm_fwd + t_attn + t_elem + t_cast_fwd + t_epi_fwd + t_lora_fwd;
    /* backward: data and weight gradients double the GEMMs; FlashAttention's backward
     * recomputes the scores, 2.5× the forward (Dao 2023); elementwise ×2.  With LoRA
     * the frozen weights get no weight gradients: only the data-gradient GEMMs run, one
     * forward's worth (Hu et al. 2021 §4.2: frozen weights need no gradients; the rank-r
     * adapters add r/h of a layer's GEMM work and are left out) */
    double bwd_gemms = in->lora_rank > 0 ? 1.0 : 2.0;
    lc->bwd = bwd_gemms * gemm_fwd + t_attn_bwd + 2.0 * t_elem + t_cast_bwd + t_epi_bwd + t_lora_bwd;

    lc->tp_comm = tp_comm_s(in, c, T, cross);
    cp_comm_s(in, dev, T, &lc->cp_fwd, &lc->cp_bwd);

    /* activation bytes per layer per micro-batch; full recompute keeps only the layer input */
    lc->act_full = act_bytes_per_token(in, dev, seq_q, seq_kv, cross, cross_seq, moe_layer) * T;
    lc->act_peak = lc->act_full;
    lc->act_ckpt = 2.0 * in->shape.hidden / layer_sp_div(in) * T;
    /* JAX's remat (est_layer_remat_named): what it re-runs and keeps; elsewhere a whole recompute */
    lc->named_recomp = lc->fwd;
    lc->act_named = lc->act_ckpt;
    if (est_layer_remat_named(in) && !moe_layer && !cross && !layer_is_mla(&in->shape)) {
        double fwd_again, kept;
        layer_remat_named(in, dev, T, t_attn, t_elem, t_cast_fwd, &fwd_again, &kept);
        lc->named_recomp = fwd_again;
        lc->act_named = fmin(kept * T, lc->act_full);
    }
    if (in->stack && in->stack->selective_op_sac) {
        double share, kept;
        layer_sac(in, at, moe_layer, &share, &kept);
        /* the dropped matmuls again, and every non-matmul op of the forward; a MoE layer
         * repeats its expert MLP whole and half of its attention projections */
        double gemm_again = share >= 0 ? share * gemm_fwd : 0.5 * f_attn + f_mlp;
        double cast_share = gemm_fwd > 0 ? gemm_again / gemm_fwd : 0.0;
        lc->sac_recomp = gemm_again + t_elem + cast_share * t_cast_fwd + t_epi_fwd;
        lc->act_sac = fmin(kept * T, lc->act_full);
    }
}

/* One Mamba-2 mixer block (layer_mamba; Megatron-Core MambaMixer over mamba_ssm's kernels)
 * for T tokens on one GPU.  TP splits heads, groups and d_inner like attention heads: in_proj
 * column-parallel, out_proj row-parallel, one collective pair each way as an attention block.
 * Non-GEMM work is HBM traffic at 2 B per element (fp32 where the kernels keep it):
 * - the block's norm and residual: half a layer's elementwise_units of 2h;
 * - causal_conv1d + SiLU over xBC: read and write forward, read input and gradient and
 *   write the gradient backward;
 * - the SSD scan (mamba_ssm ssd_combined, chunk Q = 128), gated by z inside the kernel
 *   (MambaMixer passes no rmsnorm_weight to mamba_split_conv1d_scan_combined): the forward's
 *   chunk-state and chunk-scan kernels each read x and B or C (2·d_inner + 4·G·N), read z
 *   and write y (2·d_inner), and the fp32 chunk states (heads·P·N/Q per token) are written,
 *   read and written by the state passing and read by the scan (4 passes), the fp32 C·Bᵀ
 *   blocks (G·Q) written and read; the backward recomputes those and reads dy twice,
 *   writes dx, dB, dC and dz, and passes the states' gradients the same 4 times;
 * - MambaMixer's RMSNorm over y, separate from the scan: reads y and writes its output;
 *   backward reads y and the gradient and writes dy.
 * The SSD's tensor-core FLOPs (layer_mamba_scan_flops) run at attention's bf16 rate when
 * they, not the traffic, bound the scan.  Activations kept: the block's norm input and
 * in_proj input (the latter recomputed under recompute_layernorm), in_proj's output and the
 * scan's output (mamba_split_conv1d_scan_combined saves zxbcdt and out_x and recomputes the
 * conv in the backward: one more conv forward there), the norm's input y and its output
 * (the out_proj input). */
void layer_cost_mamba(const est_input *in, const est_device *dev, double T, layer_cost *lc)
{
    const model_shape *s = &in->shape;
    const est_cal *c = dev->cal;
    layer_mamba mb;
    layer_mamba_of(s, &mb);
    double t = in->tp, h = s->hidden, spd = layer_sp_div(in);
    double inner = mb.inner / t, xbc = mb.xbc / t, proj = mb.in_proj / t;
    double GN = (double)s->mamba_groups * s->mamba_state / t, states = inner * s->mamba_state / LAYER_MAMBA_CHUNK;
    double cb = s->mamba_groups / t * LAYER_MAMBA_CHUNK;
    memset(lc, 0, sizeof *lc);

    double gemm = layer_gemm_s(dev, T, h, proj, 1.0) + layer_gemm_s(dev, T, inner, h, 1.0);
    double norm_f = 0.5 * layer_elementwise_units(in, c) * 2.0 * h / spd;
    double conv_f = 2.0 * 2.0 * xbc, conv_b = 3.0 * 2.0 * xbc;
    double ssd_f = 2.0 * (2.0 * inner + 4.0 * GN + 2.0 * inner) + 4.0 * (4.0 * states + 2.0 * cb);
    double ssd_b = ssd_f + 2.0 * (2.0 * inner + inner + 2.0 * GN + inner) + 4.0 * 4.0 * states;
    double gnorm_f = 2.0 * 2.0 * inner, gnorm_b = 3.0 * 2.0 * inner;
    double scan_flops = T * layer_mamba_scan_flops(s) / t;
    /* the chunked scan's exponentials and small per-chunk GEMMs run at the fused-attention
     * forward's reference rate (attn_eff: 8192 causal tokens' worth of key blocks per query block) */
    double ssd_math = scan_flops / (dev->peak16 * c->attn_eff);
    double t_ssd_f = fmax(T * ssd_f / dev->hbm, ssd_math);
    double t_ssd_b = fmax(T * ssd_b / dev->hbm, 2.0 * ssd_math);
    double t_cast_f = 0.0, t_cast_b = 0.0;
    if (dev->elem_bytes < 2.0) { /* Transformer Engine quantizes each GEMM input (cast_elems) */
        double cast_b = est_stack_fp8_cast_bytes(in);
        t_cast_f = cast_b * T * (h / spd + inner) / dev->hbm;
        t_cast_b = cast_b * T * (proj + h / spd) / dev->hbm;
    }
    lc->fwd = gemm + t_ssd_f + T * (norm_f + conv_f + gnorm_f) / dev->hbm + t_cast_f;
    lc->bwd = 2.0 * gemm + t_ssd_b + T * (2.0 * norm_f + conv_f + conv_b + gnorm_b) / dev->hbm + t_cast_b;
    lc->tp_comm = 0.5 * tp_comm_s(in, c, T, false);
    double gin = dev->elem_bytes < 2.0 ? 1.0 : 2.0;
    double norm_out = in->recompute_layernorm ? 0.0 : gin * h / spd;
    lc->act_full = T * (2.0 * h / spd + norm_out + 2.0 * proj + 2.0 * inner + 2.0 * inner + gin * inner);
    lc->act_peak = lc->act_full;
    lc->act_ckpt = 2.0 * h / spd * T;
    lc->module_recomp = in->recompute_layernorm ? 4.0 * h * T / spd / dev->hbm : 0.0;
}

void layer_cost_mlp_entry(const est_input *in, const est_device *dev, double T, layer_cost *lc)
{
    const model_shape *s = &in->shape;
    double h = s->hidden, spd = layer_sp_div(in), t = in->tp;
    memset(lc, 0, sizeof *lc);
    /* half the layer's elementwise_units: one norm, one residual, one dropout */
    double elem = 0.5 * layer_elementwise_units(in, dev->cal) * 2.0 * h / spd * T / dev->hbm;
    double cast = dev->elem_bytes < 2.0 ? est_stack_fp8_cast_bytes(in) * T * h / t / dev->hbm : 0.0;
    lc->fwd = elem + cast;
    lc->bwd = 2.0 * elem + cast;
    /* act_bytes_per_token's MLP entry: norm input, FC1 input (the norm's output, recomputed
     * under recompute_layernorm) and the dropout mask */
    double gin = dev->elem_bytes < 2.0 ? 1.0 : 2.0;
    lc->act_full = T * (2.0 * h + (in->recompute_layernorm ? 0.0 : gin * h) + dropout_mask_bytes(in) * h) / spd;
    lc->module_recomp = in->recompute_layernorm ? 4.0 * h * T / spd / dev->hbm : 0.0;
}

/* the average of two kinds of layer, a share w_x of the first: times add up, the larger
 * activation sets the memory a stage must hold */
void layer_cost_mix(const layer_cost *x, const layer_cost *y, double w_x, layer_cost *out)
{
    double w_y = 1.0 - w_x;
    out->fwd = w_x * x->fwd + w_y * y->fwd;
    out->bwd = w_x * x->bwd + w_y * y->bwd;
    out->attn_core_fwd = w_x * x->attn_core_fwd + w_y * y->attn_core_fwd;
    out->attn_core_bwd = w_x * x->attn_core_bwd + w_y * y->attn_core_bwd;
    out->mla_up_fwd = w_x * x->mla_up_fwd + w_y * y->mla_up_fwd;
    out->module_recomp = w_x * x->module_recomp + w_y * y->module_recomp;
    out->tp_comm = w_x * x->tp_comm + w_y * y->tp_comm;
    out->cp_fwd = w_x * x->cp_fwd + w_y * y->cp_fwd;
    out->cp_bwd = w_x * x->cp_bwd + w_y * y->cp_bwd;
    out->ep_comm = w_x * x->ep_comm + w_y * y->ep_comm;
    out->host_moe = w_x * x->host_moe + w_y * y->host_moe;
    out->act_full = fmax(x->act_full, y->act_full);
    out->act_peak = fmax(x->act_peak, y->act_peak);
    out->act_ckpt = fmax(x->act_ckpt, y->act_ckpt);
    out->sac_recomp = w_x * x->sac_recomp + w_y * y->sac_recomp;
    out->act_sac = fmax(x->act_sac, y->act_sac);
    out->named_recomp = w_x * x->named_recomp + w_y * y->named_recomp;
    out->act_named = fmax(x->act_named, y->act_named);
}

void layer_cost_add(layer_cost *out, const layer_cost *x, double w)
{
    out->fwd += w * x->fwd;
    out->bwd += w * x->bwd;
    out->attn_core_fwd += w * x->attn_core_fwd;
    out->attn_core_bwd += w * x->attn_core_bwd;
    out->mla_up_fwd += w * x->mla_up_fwd;
    out->module_recomp += w * x->module_recomp;
    out->tp_comm += w * x->tp_comm;
    out->cp_fwd += w * x->cp_fwd;
    out->cp_bwd += w * x->cp_bwd;
    out->ep_comm += w * x->ep_comm;
    out->host_moe += w * x->host_moe;
    out->act_full += w * x->act_full;
    out->act_ckpt += w * x->act_ckpt;
    out->sac_recomp += w * x->sac_recomp;
    out->act_sac += w * x->act_sac;
    out->named_recomp += w * x->named_recomp;
    out->act_named += w * x->act_named;
}
