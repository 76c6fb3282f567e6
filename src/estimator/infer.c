/* infer.c — the analytical inference model (infer.h).
 *
 * Design: one pass of the model over `tokens` tokens (a prefill chunk or a
 * decode step) is priced per transformer layer as the sum of its kernels, each
 * a roofline with a launch floor, plus two tensor-parallel all-reduces; a
 * pipeline stage holds L/pp layers; the request is one prefill pass and
 * output_len decode passes.  Memory is weights + KV cache + workspace per GPU.
 */
#include "estimator/infer.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "estimator/layer_cost.h"
#include "model/layer.h"

#define GB 1e9

/* Decode GEMVs and attention stream weights and KV cache at about 80 % of the HBM
 * peak (memory-bound kernels reach 80-90 % of datasheet bandwidth; STREAM-like
 * copies on A100/H100 ~85-90 %, real GEMV with small N somewhat less). */
static const double INFER_HBM_EFF = 0.80;
/* Fixed host-side cost per generated token: sampling over the vocabulary
 * (top-k/top-p sort), stop-condition check and the host/device sync of the
 * decode loop (FasterTransformer and TensorRT-LLM both sync once per step). */
static const double INFER_STEP_OVERHEAD_S = 1.0e-3;
/* Latency of one small all-reduce in an engine's own one-shot kernel (TensorRT-LLM
 * and vLLM custom all-reduce: every rank reads its peers' buffers over NVLink in one
 * kernel, so the latency does not grow with the ranks; ~20-30 us with launch); across
 * nodes a second, network stage adds as much again. */
static const double INFER_AR_LATENCY_S = 25e-6;
/* NCCL ring all-reduce (FasterTransformer): latency = launch + 2(p − 1) pipelined steps
 * (Thakur et al. 2005; NCCL's LL protocol for small messages), each step one
 * flag-synchronised hop: the launch of an NCCL kernel behind the previous one on the
 * stream (~8 us), a hop over NVLink (~3 us: NVLink latency ~1-2 us plus the LL flag
 * poll), a hop over InfiniBand (~10 us: IB verbs latency plus the proxy thread). */
static const double INFER_NCCL_LAUNCH_S = 8e-6;
static const double INFER_NCCL_HOP_NVLINK_S = 3e-6;
static const double INFER_NCCL_HOP_NET_S = 10e-6;
/* Latency of one pipeline hop (send/recv of one activation tensor, NCCL p2p). */
static const double INFER_P2P_LATENCY_S = 20e-6;
/* Per-kernel floor when the decode step is replayed as a CUDA graph (TensorRT-LLM):
 * no CPU launch, ~2 us of GPU-side scheduling per kernel (CUDA graph docs). */
static const double INFER_GRAPH_KERNEL_S = 2e-6;
/* Non-GEMM kernels per layer, the generic count: two layernorms, bias+activation, two
 * residual adds, QKV bias/rotary/KV-cache write.  (FasterTransformer's decoder fuses them
 * into 4 a layer; its context phase has its own list, ft_elementwise_s; docs/serving.md.) */
static const double INFER_ELEM_KERNELS = 6.0;
/* Inference runs the forward half of the training non-GEMM traffic (est_cal
 * elementwise_units counts forward + backward). */
static const double INFER_ELEM_FWD_SHARE = 0.5;
/* Bytes of the embedding and output layer per parameter: engines keep them in
 * 16-bit even when the transformer GEMMs are quantised (TensorRT-LLM, ModelOpt). */
static const double INFER_EMB_BYTES = 2.0;
/* Bytes of activations kept per prefill token per layer width for the workspace:
 * QKV, attention output, FFN input/output buffers of one layer (reused). */
static const double INFER_WORKSPACE_UNITS = 6.0;
/* Share of the free memory a serving runtime gives the paged KV cache at max load
 * (TensorRT-LLM kv_cache_free_gpu_mem_fraction 0.90-0.95 in its perf runs). */
static const double INFER_MAX_LOAD_KV_FRAC = 0.90;

typedef struct {
    const est_infer_input *in;
    const model_shape *s;
    est_cal cal;
    double peak, gemm_eff, hbm, floor_s, wbytes, kvbytes;
    double attn_peak; /* attention math: 16-bit tensor cores, fp8 with an fp8 KV cache (never fp4) */
    double sms, gemm_ref; /* SMs and the 8192³ GEMM's shape share (layer_cost.h) */
    bool ft_engine;       /* FasterTransformer static batches: its micro-batches, unfused context attention */
    int kv_heads_gpu; /* KV heads on one GPU */
    double kv_elems_gpu; /* cached elements per token per layer on one GPU (K and V; MLA: its latent) */
    layer_attn at;       /* attention widths (model/layer.h) */
} dev_ctx;

void est_infer_input_init(est_infer_input *in, const model_shape *s, const gpu_spec *g)
{
    memset(in, 0, sizeof *in);
    if (s) in->shape = *s;
    in->gpu = g;
    in->tp = in->pp = in->bs = 1;
    in->input_len = 128;
    in->output_len = 32;
    in->precision = PREC_FP16;
}

/* weight bytes per parameter of the quantised GEMMs: fp8 1 byte; NVFP4 4 bits
 * plus one fp8 scale per 16 values = 0.5625 (NVIDIA NVFP4 format) */
static double weight_bytes(est_precision p)
{
    switch (p) {
    case PREC_FP8: return 1.0;
    case PREC_FP4: return 0.5625;
    case PREC_FP32: return 4.0;
    default: return 2.0;
    }
}

int est_infer_check(const est_infer_input *in, char *why, size_t len)
{
    const model_shape *s = &in->shape;
    char d[8];
    if (!why) { why = d; len = sizeof d; }
    why[0] = '\0';
    if (!in->gpu) { snprintf(why, len, "no GPU"); return -1; }
    if (s->arch != ARCH_DECODER) { snprintf(why, len, "only decoder models (GPT-3, Llama, Mixtral) are modelled for inference"); return -1; }
    if (s->num_layers < 1 || s->hidden < 1 || s->heads < 1 || s->vocab < 1) { snprintf(why, len, "model shape incomplete"); return -1; }
    if (shape_is_hybrid(s)) {
        snprintf(why, len, "hybrid Mamba-Transformer models (Mamba-2 state caches) are not modelled for inference");
        return -1;
    }
    if (s->moe_latent > 0) {
        snprintf(why, len, "LatentMoE experts (moe_latent_size) are not modelled for inference");
        return -1;
    }
    if (in->tp < 1 || in->pp < 1 || in->bs < 1 || in->input_len < 1 || in->output_len < 1) {
        snprintf(why, len, "tp, pp, batch size and lengths must be >= 1");
        return -1;
    }
    if ((long long)in->tp * in->pp > EST_INFER_MAX_GPUS) {
        snprintf(why, len, "TP %d x PP %d exceeds %d GPUs per replica", in->tp, in->pp, EST_INFER_MAX_GPUS);
        return -1;
    }
    if (s->heads % in->tp) { snprintf(why, len, "TP %d does not divide %d attention heads", in->tp, s->heads); return -1; }
    if (s->num_layers % in->pp) { snprintf(why, len, "PP %d does not divide %d layers", in->pp, s->num_layers); return -1; }
    if (in->ep > 1) {
        if (!shape_is_moe(s)) { snprintf(why, len, "EP %d: the model has no experts", in->ep); return -1; }
        if (in->tp % in->ep) { snprintf(why, len, "EP %d does not divide TP %d (experts are spread over the TP ranks)", in->ep, in->tp); return -1; }
        if (s->num_experts % in->ep) { snprintf(why, len, "EP %d does not divide %d experts", in->ep, s->num_experts); return -1; }
    }
    return 0;
}

/* roofline of one kernel at a peak: max(floor, FLOPs / (peak·eff), bytes / (HBM·eff)) (Williams et al. 2009, Roofline) */
static double roofline_at_s(const dev_ctx *d, double peak, double flops, double bytes, double eff)
{
    double t = fmax(flops / (peak * eff), bytes / d->hbm);
    return fmax(t, d->floor_s);
}

/* the same at the GEMMs' peak (the weights' precision) */
static double roofline_s(const dev_ctx *d, double flops, double bytes, double eff)
{
    return roofline_at_s(d, d->peak, flops, bytes, eff);
}

/* the catalog's efficiency holds for large GEMMs; a [tokens × k]·[k × n] GEMM reaches its tile/wave-quantisation
 * share of it relative to the 8192³ reference (layer_gemm_shape: NVIDIA "Matrix Multiplication Background"), never
 * more; below one 128-row tile cuBLAS runs GEMV / small-tile kernels bound by the weight read, not tile waste */
static double gemm_share(const dev_ctx *d, double tokens, double k, double n)
{
    return fmin(layer_gemm_shape(d->sms, fmax(tokens, 128.0), k, n) / d->gemm_ref, 1.0);
}

/* the same share from tile and K quantisation alone (one SM: no wave quantisation), for batched and grouped GEMMs
 * whose many matrices fill the waves together */
static double tile_share(double m, double k, double n)
{
    return fmin(layer_gemm_shape(1.0, m, k, n) / layer_gemm_shape(1.0, 8192.0, 8192.0, 8192.0), 1.0);
}

/* one GEMM [tokens × k]·[k × n] with quantised weights: 2·tokens·k·n FLOPs, k·n weight bytes + 16-bit activations,
 * at its shape's share of the efficiency (gemm_share) */
static double gemm_s(const dev_ctx *d, double tokens, double k, double n, double wbytes, double eff)
{
    return roofline_s(d, 2.0 * tokens * k * n, k * n * wbytes + tokens * (k + n) * 2.0, eff * gemm_share(d, tokens, k, n));
}

/* latency term of one all-reduce over `local` GPUs of an NVLink domain times `nodes` domains:
 * custom one-shot kernel α (x2 across nodes), or NCCL ring launch + 2(local−1) NVLink hops +
 * 2(nodes−1) network hops (Thakur et al. 2005 ring schedule) */
static double allreduce_latency_s(const dev_ctx *d, int local, double nodes)
{
    if (d->in->custom_allreduce) return nodes > 1.0 ? 2.0 * INFER_AR_LATENCY_S : INFER_AR_LATENCY_S;
    return INFER_NCCL_LAUNCH_S + 2.0 * (local - 1) * INFER_NCCL_HOP_NVLINK_S + 2.0 * (nodes - 1.0) * INFER_NCCL_HOP_NET_S;
}

/* ring all-reduce of msg bytes over tp GPUs: α + 2(tp−1)/tp·msg/bw (Thakur et al. 2005); beyond one NVLink
 * domain hierarchical: reduce-scatter/all-gather in the domain + all-reduce of msg/D across nodes (NCCL tree/ring) */
static double allreduce_s(const dev_ctx *d, double msg)
{
    int tp = d->in->tp;
    const gpu_spec *g = d->in->gpu;
    if (tp <= 1) return 0.0;
    double eff = d->cal.collective_eff;
    int D = g->nvlink_domain > 1 ? g->nvlink_domain : 1;
    if (tp <= D) return allreduce_latency_s(d, tp, 1.0) + 2.0 * (tp - 1) / tp * msg / (g->nvlink_gbps * GB * eff);
    double nodes = (double)tp / D;
    double intra = D > 1 ? 2.0 * (D - 1) / D * msg / (g->nvlink_gbps * GB * eff) : 0.0;
    return allreduce_latency_s(d, D, nodes) + intra + 2.0 * (nodes - 1) / nodes * (msg / D) / (g->scaleout_gbps * GB * eff);
}

/* MoE: expected distinct experts hit when `tokens` tokens each pick top-k of E uniformly: E·(1 − (1 − k/E)^tokens)
 * (balls into bins; balanced routing as Switch Transformer's auxiliary loss aims for) */
static double experts_touched(int E, int k, double tokens)
{
    if (E <= 1) return 1.0;
    double p = (double)(k > 0 ? k : 1) / E;
    if (p >= 1.0) return E;
    return E * (1.0 - pow(1.0 - p, tokens));
}

/* routing imbalance over ep ranks: `per_rank` routed tokens per rank on average; the busiest rank gets about
 * μ + sqrt(2·μ·ln ep) (balls into bins with μ >> ln ep, Raab & Steger 1998), at most all of them (ep·μ) */
static double moe_imbalance(double per_rank, double ep)
{
    if (ep <= 1.0 || per_rank <= 0) return 1.0;
    return fmin(1.0 + sqrt(2.0 * log(ep) / per_rank), ep);
}

typedef struct {
    double compute, comm;
} pass_time;

/* FasterTransformer's unfused context attention keeps the scores in HBM (GptContextAttentionLayer): ParallelGpt
 * sets is_context_qk_buf_float_, so the QKᵀ batched GEMM writes seqs·heads·ctx² fp32 scores (4 bytes), the
 * masked softmax (invokeMaskedSoftMax) reads them with the 16-bit attention mask [seqs, ctx, ctx] and writes
 * 16-bit probabilities (4 + 2), the AV GEMM reads those (2): 12 bytes a score, the mask once a sequence */
static double unfused_scores_bytes(double seqs, double ctx, double heads_gpu)
{
    return seqs * ctx * ctx * (heads_gpu * (4.0 + 4.0 + 2.0 + 2.0) + 2.0);
}

/* FasterTransformer's non-GEMM kernels of one GPT layer's context phase over `tokens` tokens
 * (ParallelGptContextDecoder, GptContextAttentionLayer of v5.0), each a roofline with the launch floor, in 16-bit
 * elements read + written per token (h hidden, f FFN, tp ranks): invokeGeneralLayerNorm 2h,
 * invokeAddFusedQKVBiasTranspose 6h/tp, invokeTranspose4dBatchMajor (K and V into the cache) 4h/tp,
 * invokeTransposeQKV 2h/tp, invokeGeneralAddBiasResidualPreLayerNorm 4h, invokeAddBiasGelu 2f/tp,
 * invokeAddBiasResidual 3h.  (Its decoder launches four of them a layer, the QKV bias and the cache write
 * fused into the masked MHA kernel; decode keeps the generic INFER_ELEM_KERNELS count: docs/serving.md.) */
static double ft_elementwise_s(const dev_ctx *d, double tokens)
{
    if (tokens <= 0) return 0.0;
    double h = d->s->hidden, tp = d->in->tp, f = d->s->ffn_hidden > 0 ? d->s->ffn_hidden : 4.0 * h;
    const double elems[] = { 2.0 * h, 6.0 * h / tp, 4.0 * h / tp, 2.0 * h / tp, 4.0 * h, 2.0 * f / tp, 3.0 * h };
    double t = 0.0;
    for (size_t k = 0; k < sizeof elems / sizeof *elems; k++) t += roofline_s(d, 0.0, tokens * elems[k] * 2.0, 1.0);
    return t;
}

/* chunked local attention (model_shape.attn_chunk, Llama 4: config.json attention_chunk_size 8192 on the RoPE
 * layers, the NoPE layers global; TensorRT-LLM's attention op takes attention_chunk_size): on the share
 * attn_chunk_layers / layers of the layers a token attends only within its own chunk of C tokens */
static double chunk_share(const model_shape *s)
{
    if (s->attn_chunk <= 0 || s->attn_chunk_layers <= 0 || s->num_layers <= 0) return 0.0;
    return fmin((double)s->attn_chunk_layers / s->num_layers, 1.0);
}

/* the query-key square of a prompt of n tokens, averaged over the layers: n² with full attention; a chunked
 * layer attends within each chunk, floor(n/C)·C² + (n mod C)² */
static double prompt_square(const model_shape *s, double n)
{
    double share = chunk_share(s), C = s->attn_chunk;
    if (share <= 0.0 || n <= C) return n * n;
    double whole = floor(n / C), rem = n - whole * C;
    return (1.0 - share) * n * n + share * (whole * C * C + rem * rem);
}

/* the keys a decoding sequence at mean context ctx reads per layer, averaged over the layers: ctx with full
 * attention; a chunked layer reads the current chunk only, half a chunk on average once the sequence has
 * passed its first chunk (the decode positions spread over the chunk) */
static double decode_keys(const model_shape *s, double ctx)
{
    double share = chunk_share(s), C = s->attn_chunk;
    if (share <= 0.0 || ctx <= C) return ctx;
    return (1.0 - share) * ctx + share * C / 2.0;
}

/* a dense MLP of width f over `tokens` tokens on one GPU: up (+ gate) column parallel, down row parallel */
static double mlp_s(const dev_ctx *d, double tokens, double f)
{
    const model_shape *s = d->s;
    double tp = d->in->tp, h = s->hidden, mats = s->gated_mlp ? 3.0 : 2.0;
    return gemm_s(d, tokens, h, f * (mats - 1.0) / tp, d->wbytes, d->gemm_eff) + gemm_s(d, tokens, f / tp, h, d->wbytes, d->gemm_eff);
}

/* one transformer layer on one GPU over one engine iteration that mixes dec_seqs decode tokens (context
 * dec_ctx each) and pf_tokens prefill tokens of pf_seqs sequences (context pf_ctx): the GEMMs run once over
 * all dec_seqs + pf_tokens tokens (continuous batching fuses both, Yu et al. 2022 Orca §4.2; Agrawal et al.
 * 2024 Sarathi-Serve), attention per phase; QKV, output projection, MLP (dense or MoE), non-GEMM kernels,
 * 2 all-reduces (Megatron TP, Shoeybi 2019) */
static pass_time layer_mix_s(const dev_ctx *d, double dec_seqs, double dec_ctx, double pf_tokens, double pf_seqs,
                             double pf_ctx)
{
    const model_shape *s = d->s;
    double tp = d->in->tp, h = s->hidden, dh = shape_head_dim(s);
    double g = shape_query_groups(s);
    double q = s->heads * dh, eff = d->gemm_eff, wb = d->wbytes;
    double tokens = dec_seqs + pf_tokens;
    pass_time t = { 0, 0 };
    const layer_attn *at = &d->at;
    if (layer_is_mla(s)) {
        /* MLA's projections (down, up, output; absorbed or not) as one GEMM of the same
         * weights and FLOPs */
        t.compute += gemm_s(d, tokens, h, at->weights / h / tp, wb, eff);
    } else {
        t.compute += gemm_s(d, tokens, h, (q + 2.0 * g * dh) / tp, wb, eff); /* QKV (column parallel) */
        t.compute += gemm_s(d, tokens, q / tp, h, wb, eff);                  /* output projection (row parallel) */
    }
    double a_gpu = s->heads / tp;
    if (pf_tokens > 0) {
        /* scores and weighted sum: 2·seqs·ctx²·heads·(d_qk + d_v) FLOPs (QKᵀ and AV over the whole
         * square, as unfused context attention computes it; Vaswani 2017) */
        double sq = prompt_square(s, pf_ctx); /* pf_ctx² without chunked attention */
        double fl = 2.0 * pf_seqs * sq * a_gpu * (at->qk_dim + at->v_dim);
        double bytes = pf_tokens * (at->q + at->k + at->v) / tp * 2.0 * 2.0;
        if (d->ft_engine) {
            /* unfused: QKᵀ and AV are cuBLAS strided-batched GEMMs, one [ctx × d] · [d × ctx] and one
             * [ctx × ctx] · [ctx × d] per head and sequence, at the GEMM efficiency of that shape (tile and
             * K quantisation: a head_dim of 64 or 128 is a short K and a narrow N; NVIDIA "Matrix Multiplication
             * Background"), the many heads filling the waves; the masked softmax streams the scores */
            double rqk = tile_share(pf_ctx, at->qk_dim, pf_ctx), rav = tile_share(pf_ctx, pf_ctx, at->v_dim);
            double per_dim = 2.0 * pf_seqs * sq * a_gpu;
            double peak = d->attn_peak * d->gemm_eff;
            t.compute += per_dim * at->qk_dim / (peak * rqk) + per_dim * at->v_dim / (peak * rav) +
                         (bytes + unfused_scores_bytes(pf_seqs, pf_ctx, a_gpu)) / d->hbm + 3.0 * d->floor_s;
        } else {
            /* a fused kernel's query blocks each pay the per-block overhead (est_attn_range_factor) */
            double o = est_attn_block_overhead(&d->cal, d->in->gpu, false);
            t.compute += roofline_at_s(d, d->attn_peak, fl * est_attn_range_factor(pf_ctx, o), bytes,
                                       est_attn_fwd_eff(d->cal.attn_eff, d->cal.attn_exp_share, o, d->in->gpu, at->qk_dim + at->v_dim));
        }
    }
    if (dec_seqs > 0) {
        /* decode: reads every cached K and V (MLA: latent) of every sequence once (Pope et al.
         * 2022 §2); MLA scores and sums over the latent's widths (DeepSeek-V2 §2.1.2) */
        double keys = decode_keys(s, dec_ctx);
        double kv = dec_seqs * keys * d->kv_elems_gpu * d->kvbytes;
        /* TensorRT-LLM's masked MHA before 0.7 runs a thread block per query head and sequence, each
         * loading its KV head's cache: a group's query heads read it once each.  0.7 brought "MMHA
         * optimization for MQA and GQA" and the XQA kernel (CHANGELOG 0.7.0/0.7.1; the XQA-kernel
         * blog: "reducing data loading").  What L2 catches of the repeated reads is not modelled */
        if (d->in->kv_per_query_head && g > 0) kv *= (double)s->heads / g;
        t.compute += roofline_at_s(d, d->attn_peak, 2.0 * dec_seqs * keys * a_gpu * (at->cache_qk + at->cache_v), kv, d->cal.attn_eff);
    }
    double mats = s->gated_mlp ? 3.0 : 2.0;
    double f = s->ffn_hidden > 0 ? s->ffn_hidden : 4.0 * h;
    double dense = mlp_s(d, tokens, f);
    if (shape_is_moe(s)) {
        double fe = s->moe_ffn_hidden > 0 ? s->moe_ffn_hidden : s->ffn_hidden;
        double k = shape_moe_topk(s);
        double touched = experts_touched(s->num_experts, (int)k, tokens);
        /* EP: each of ep ranks holds E/ep whole-width experts split tp/ep ways (vLLM --enable-expert-parallel,
         * TensorRT-LLM moe_ep_size x moe_tp_size = tp); the same FLOPs and weight bytes per GPU as TP, but
         * the busiest rank sets the pace and each expert's GEMM is ep times wider */
        double ep = d->in->ep > 1 ? d->in->ep : 1.0, width = fe * ep / tp;
        double flops = 2.0 * tokens * k * mats * h * fe / tp * moe_imbalance(tokens * k / ep, ep);
        double bytes = touched * mats * h * fe / tp * wb + tokens * k * (h + fe / tp) * 2.0 * 2.0;
        /* a grouped GEMM: every expert's rows (tokens·k/E on average) and columns fill whole tiles; the experts'
         * tiles fill the waves together (tile_share) */
        double me = fmax(tokens * k / s->num_experts, 128.0);
        double rel = tile_share(me, h, width * (mats - 1.0));
        double moe = roofline_s(d, flops, bytes, eff * d->cal.moe_gemm_eff * rel);
        moe += gemm_s(d, tokens, h, s->num_experts, 2.0, eff); /* router */
        /* shared experts every token also passes: a dense MLP of moe_shared_ffn (DeepSeekMoE, Dai et al.
         * 2024; Llama 4 config.json intermediate_size) */
        double sf = s->moe_shared_ffn;
        if (sf > 0) moe += mlp_s(d, tokens, sf);
        /* layers with a dense FFN instead of experts (moe_dense_layers of L): their share of the stage */
        double dl = s->moe_dense_layers > 0 && s->num_layers > 0 ? fmin((double)s->moe_dense_layers / s->num_layers, 1.0) : 0.0;
        t.compute += dl * dense + (1.0 - dl) * moe;
    } else {
        t.compute += dense;
    }
    /* non-GEMM kernels: elementwise bytes = units·2h per token (est_cal elementwise_units, forward share);
     * FasterTransformer's context phase: its own unfused kernels (ft_elementwise_s) */
    bool ft_ctx = d->ft_engine && !shape_is_moe(s);
    double elem_tokens = ft_ctx ? dec_seqs : tokens;
    if (ft_ctx) t.compute += ft_elementwise_s(d, pf_tokens);
    if (elem_tokens > 0) {
        double elem_bytes = d->cal.elementwise_units * INFER_ELEM_FWD_SHARE * 2.0 * h * elem_tokens;
        t.compute += INFER_ELEM_KERNELS * roofline_s(d, 0.0, elem_bytes / INFER_ELEM_KERNELS, 1.0);
    }
    t.comm += 2.0 * allreduce_s(d, tokens * h * 2.0);
    return t;
}

/* one layer over `tokens` tokens of `seqs` sequences of one phase (prefill or decode) */
static pass_time layer_s(const dev_ctx *d, double tokens, double seqs, double ctx, bool prefill)
{
    return prefill ? layer_mix_s(d, 0.0, 0.0, tokens, seqs, ctx) : layer_mix_s(d, tokens, ctx, 0.0, 0.0, 0.0);
}

/* output layer: [tokens × h]·[h × V/tp] (vocab-parallel logits, Megatron) */
static double logits_s(const dev_ctx *d, double tokens)
{
    return gemm_s(d, tokens, d->s->hidden, (double)d->s->vocab / d->in->tp, INFER_EMB_BYTES, d->gemm_eff);
}

/* FasterTransformer's vocabulary padded as ParallelGpt pads it: up to a multiple of tp, then of 8 (16-bit) */
static double ft_vocab_padded(const dev_ctx *d)
{
    double tp = d->in->tp, v = ceil(d->s->vocab / tp) * tp;
    return ceil(v / 8.0) * 8.0;
}

/* ring all-gather of `total` bytes (each of tp ranks contributes total/tp): launch + (tp−1) hops, then
 * (tp−1)/tp·total over the link (Thakur et al. 2005; NCCL ring all-gather: half the steps of an all-reduce) */
static double allgather_s(const dev_ctx *d, double total)
{
    int tp = d->in->tp;
    const gpu_spec *g = d->in->gpu;
    if (tp <= 1) return 0.0;
    int D = g->nvlink_domain > 1 ? g->nvlink_domain : 1;
    double eff = d->cal.collective_eff;
    if (tp <= D)
        return INFER_NCCL_LAUNCH_S + (tp - 1) * INFER_NCCL_HOP_NVLINK_S + (tp - 1.0) / tp * total / (g->nvlink_gbps * GB * eff);
    double nodes = (double)tp / D;
    return INFER_NCCL_LAUNCH_S + (D - 1) * INFER_NCCL_HOP_NVLINK_S + (nodes - 1.0) * INFER_NCCL_HOP_NET_S +
           (nodes - 1.0) / nodes * total / (g->scaleout_gbps * GB * eff);
}

/* FasterTransformer's logits of `seqs` sequences (ParallelGpt::forward, once a micro-batch a step): the
 * GEMM takes 16-bit operands and writes fp32 logits (cublas Gemm with CUDA_R_32F C); with TP each rank
 * computes V/tp of them, ftNcclAllGather gathers the fp32 [seqs × V] on every rank, cudaStreamSynchronize
 * waits for it (one launch latency before the next kernel) and invokeTransposeAxis01 reorders them
 * (read + write, 8 bytes a logit).  *comm gets the all-gather. */
static double ft_logits_s(const dev_ctx *d, double seqs, double *comm)
{
    double h = d->s->hidden, vp = ft_vocab_padded(d), vl = vp / d->in->tp;
    double t = roofline_s(d, 2.0 * seqs * h * vl, h * vl * INFER_EMB_BYTES + seqs * h * 2.0 + seqs * vl * 4.0,
                          d->gemm_eff * gemm_share(d, seqs, h, vl));
    if (d->in->tp > 1) {
        double ag = allgather_s(d, seqs * vp * 4.0);
        if (comm) *comm += ag;
        t += ag + d->floor_s + roofline_s(d, 0.0, seqs * vp * 8.0, 1.0);
    }
    return t;
}

/* FasterTransformer's top-p sampling of `seqs` sequences over the padded vocabulary, fp32 (TopPSamplingLayer::
 * runSampling, invokeBatchTopPSampling), each kernel a roofline with the launch floor; bytes per logit:
 * invokeTopPInitialize writes the int32 ids (4); invokeAddBiasSoftMax reads and writes fp32 (8);
 * topp_beam_topk_kernel reads them (4); cub::DeviceSegmentedRadixSort::SortPairsDescending sorts 32-bit keys
 * with int32 values in passes of 6 bits (CUB SEGMENTED_RADIX_BITS = 6 for keys over a byte: 6 passes), each
 * pass reading the keys to count digits (4) and reading and writing keys and values (16); topp_sampling
 * reads the sorted probabilities up to p (at most 4) */
static double ft_sampling_s(const dev_ctx *d, double seqs)
{
    static const double bytes_per_logit[] = { 4.0, 8.0, 4.0, 20.0, 20.0, 20.0, 20.0, 20.0, 20.0, 4.0 };
    double n = seqs * ft_vocab_padded(d), t = 0.0;
    for (size_t k = 0; k < sizeof bytes_per_logit / sizeof *bytes_per_logit; k++)
        t += roofline_s(d, 0.0, n * bytes_per_logit[k], 1.0);
    return t;
}

/* pipeline hop of one micro-batch's activations: α + tokens·h·2 / (bw·p2p_eff); FasterTransformer's TP ranks
 * each send their 1/tp slice to the next stage (ftNcclSend/ftNcclRecv of local_batch·seq·h/tp) and the receivers
 * all-gather it over TP (ftNcclAllGather; ParallelGptContextDecoder and ParallelGptDecoder) */
static double hop_s(const dev_ctx *d, double tokens)
{
    const gpu_spec *g = d->in->gpu;
    int D = g->nvlink_domain > 1 ? g->nvlink_domain : 1;
    double bw = d->in->tp * d->in->pp > D ? g->scaleout_gbps : g->nvlink_gbps, bytes = tokens * d->s->hidden * 2.0;
    if (d->ft_engine && d->in->tp > 1)
        return INFER_P2P_LATENCY_S + bytes / d->in->tp / (bw * GB * d->cal.p2p_eff) + allgather_s(d, bytes);
    return INFER_P2P_LATENCY_S + bytes / (bw * GB * d->cal.p2p_eff);
}

/* FasterTransformer with PP, once a step: the last stage broadcasts the new ids, lengths and finished flags to
 * the other stages (three ftNcclBroadCast in one NCCL group), then cudaStreamSynchronize (ParallelGpt::forward):
 * launch + (pp−1) ring hops, over the network when the pipeline spans NVLink domains, and a launch latency */
static double ft_pp_broadcast_s(const dev_ctx *d)
{
    int pp = d->in->pp, D = d->in->gpu->nvlink_domain > 1 ? d->in->gpu->nvlink_domain : 1;
    if (pp <= 1) return 0.0;
    double hop = d->in->tp * pp > D ? INFER_NCCL_HOP_NET_S : INFER_NCCL_HOP_NVLINK_S;
    return INFER_NCCL_LAUNCH_S + (pp - 1) * hop + d->floor_s;
}

/* FasterTransformer's micro-batches of a pass (getLocalBatchSize, src/fastertransformer/utils/nccl_utils.cc of
 * v5.0, commit 0311bc6a, the version whose ParallelGpt this file follows; ParallelGptContextDecoder and the decode
 * loop call it with pp): the local batch is bs/pp when pp divides bs, else bs, then halved while local·tokens >
 * 2048 and even; the pass runs bs/local micro-batches, with PP 1 too (a large context batch runs as a loop of
 * ~2048-token chunks, each reading the weights and launching every kernel again).  A power-of-two decode batch
 * on PP 3 is never split. */
static double ft_micro_batches(double seqs, double tok_per_seq, int pp)
{
    long bs = lround(seqs), local = bs;
    if (bs < 1) return 1.0;
    if (local % pp == 0) local /= pp;
    while ((double)local * tok_per_seq > 2048.0 && local % 2 == 0) local /= 2;
    return (double)(bs / local);
}

/* one pass through the whole pipeline over `seqs` sequences of `tok_per_seq` new tokens at context ctx:
 * the batch runs as m = min(pp, seqs) micro-batches (FasterTransformer: ft_micro_batches), so a pass costs
 * (m + pp − 1) stage times + (pp − 1) hops (GPipe fill/drain, Huang 2019) */
static double pass_s(const dev_ctx *d, double seqs, double tok_per_seq, double ctx, bool prefill, double *comm_tp,
                     double *comm_pp)
{
    int pp = d->in->pp, L = d->s->num_layers;
    double m = d->ft_engine ? ft_micro_batches(seqs, tok_per_seq, pp) : pp > 1 ? fmin(pp, ceil(seqs)) : 1.0;
    double mseqs = seqs / m, mtok = mseqs * tok_per_seq;
    pass_time lt = layer_s(d, mtok, mseqs, ctx, prefill);
    double stage = (lt.compute + lt.comm) * L / pp;
    double hops = (pp - 1) * hop_s(d, mtok);
    /* logits (all micro-batches) only for the last position of each sequence; FasterTransformer computes them
     * and samples in its step loop, by the decode's micro-batches also right after the context
     * (ParallelGpt::forward at step == max_input_length) */
    double ag = 0.0, head;
    if (d->ft_engine) {
        double mh = ft_micro_batches(seqs, 1.0, pp);
        head = (ft_logits_s(d, seqs / mh, &ag) + ft_sampling_s(d, seqs / mh)) * mh;
        ag *= mh;
    } else {
        head = logits_s(d, mseqs) * m;
    }
    double bcast = d->ft_engine ? ft_pp_broadcast_s(d) : 0.0;
    if (comm_pp) *comm_pp += bcast;
    double t = (m + pp - 1) * stage + hops + head + bcast;
    if (comm_tp) *comm_tp += (m + pp - 1) * lt.comm * L / pp + ag;
    if (comm_pp) *comm_pp += hops;
    return t;
}

static void ctx_init(dev_ctx *d, const est_infer_input *in)
{
    memset(d, 0, sizeof *d);
    d->in = in;
    d->s = &in->shape;
    if (in->cal) d->cal = *in->cal;
    else {
        ac_err e;
        if (est_cal_default(&d->cal, &e) != 0) memset(&d->cal, 0, sizeof d->cal); /* malformed data file: caught by tests */
    }
    const gpu_spec *g = in->gpu;
    bool low = in->precision == PREC_FP8 || in->precision == PREC_FP4;
    d->peak = est_gemm_tflops(g, in->precision, d->cal.fp4_speedup) * 1e12;
    d->gemm_eff = est_gemm_eff(g, in->precision);
    d->sms = g->sm_count > 0 ? g->sm_count : 100;
    d->gemm_ref = layer_gemm_shape(d->sms, 8192.0, 8192.0, 8192.0);
    d->hbm = g->hbm_gbps * GB * INFER_HBM_EFF;
    d->floor_s = in->cuda_graphs ? INFER_GRAPH_KERNEL_S : d->cal.min_kernel_us * 1e-6;
    d->wbytes = weight_bytes(in->precision);
    d->kvbytes = in->kv_bytes > 0 ? in->kv_bytes : (low ? 1.0 : 2.0);
    /* attention's matmuls read Q, K, V in the KV cache's type: 16-bit, or fp8 with an fp8 cache where the GPU
     * has fp8 tensor cores (TensorRT-LLM fp8 context FMHA, FlashAttention-3 fp8); FP4 weights never make
     * attention FP4 (NVFP4 checkpoints quantise the linear layers only, ModelOpt) */
    d->attn_peak = est_peak_tflops(g, d->kvbytes < 2.0 && g->fp8_tflops > 0 ? PREC_FP8 : PREC_BF16) * 1e12;
    if (in->precision == PREC_FP32) d->attn_peak = d->peak;
    d->peak *= g->clock_scale; /* tensor cores at the clock the part runs at (gpu_spec) */
    d->attn_peak *= g->clock_scale;
    int g_heads = shape_query_groups(d->s);
    /* KV heads split over TP; with fewer groups than TP ranks each rank keeps a copy of one (Megatron GQA) */
    d->kv_heads_gpu = g_heads >= in->tp ? g_heads / in->tp : 1;
    layer_attn_of(d->s, &d->at);
    /* MLA's latent serves every head: each TP rank caches all of it */
    d->kv_elems_gpu = layer_is_mla(d->s) ? d->at.cache : 2.0 * d->kv_heads_gpu * d->at.qk_dim;
}

/* parameters of an average transformer layer (attention + MLP; all experts for MoE,
 * leading dense layers in their share; model/layer.h), Narayanan 2021 eq. (2) generalised */
static double layer_params(const model_shape *s, double *active)
{
    layer_attn at;
    layer_attn_of(s, &at);
    double L = s->num_layers, mlp_active;
    double mlp = layer_stack_mlp_weights(s, &mlp_active);
    if (active) *active = at.weights + mlp_active / L;
    return at.weights + mlp / L;
}

/* memory per GPU (bytes) of the busiest stage: weights/(tp·pp) + embeddings + KV cache + workspace + CUDA context */
static void memory_bytes(const dev_ctx *d, double bs, double seq_len, double prefill_tokens, est_infer_result *r)
{
    const est_infer_input *in = d->in;
    const model_shape *s = d->s;
    double L = s->num_layers, h = s->hidden;
    double emb = (double)s->vocab * h / in->tp * INFER_EMB_BYTES;
    /* pp == 1: input and output matrices on the same GPU (one when tied); pp > 1: one per end stage */
    double out = in->pp == 1 && s->untied_embeddings ? emb : 0.0;
    r->mem_weights = layer_params(s, NULL) / in->tp * (L / in->pp) * d->wbytes + emb + out;
    if (s->learned_pos_emb) r->mem_weights += (double)(s->seq_length > 0 ? s->seq_length : seq_len) * h * INFER_EMB_BYTES;
    /* KV cache: 2 (K, V) · kv heads on this GPU · dh · bytes per token per layer (Pope et al. 2022) */
    r->mem_kv = bs * seq_len * d->kv_elems_gpu * d->kvbytes * (L / in->pp);
    double f = shape_is_moe(s) ? (s->moe_ffn_hidden > 0 ? s->moe_ffn_hidden : s->ffn_hidden) * shape_moe_topk(s)
                                  : (s->ffn_hidden > 0 ? s->ffn_hidden : 4 * h);
    /* context attention scores, materialised per head by unfused kernels: bs·heads/tp·input² 16-bit values;
     * FasterTransformer keeps an fp32 copy beside them (qk_buf_float_, GptContextAttentionLayer): 6 bytes */
    double scores = prefill_tokens > 0 && bs > 0 ? bs * (double)s->heads / in->tp * pow(prefill_tokens / bs, 2) * (d->ft_engine ? 6.0 : 2.0) : 0.0;
    r->mem_workspace = prefill_tokens * (INFER_WORKSPACE_UNITS * h + 2.0 * f / in->tp) * 2.0 + scores +
                       bs * (double)s->vocab / in->tp * 4.0 + d->cal.cuda_context_gb * EST_GIB;
    r->mem_total = r->mem_weights + r->mem_kv + r->mem_workspace;
    r->mem_limit = (in->memory_limit_gb > 0 ? in->memory_limit_gb : in->gpu->memory_gb) * EST_GIB * d->cal.infer_memory_limit_frac; /* GiB: see est.c */
    r->fits = r->mem_total <= r->mem_limit;
}

static void params_of(const model_shape *s, est_infer_result *r)
{
    double act;
    double lp = layer_params(s, &act);
    double emb = (double)s->vocab * s->hidden * (s->untied_embeddings ? 2.0 : 1.0);
    r->params_b = (lp * s->num_layers + emb) / 1e9;
    r->active_params_b = (act * s->num_layers + emb) / 1e9;
}

/* one engine iteration from its GPU time and the sequences it serves: the fixed host step (sampling, sync:
 * INFER_STEP_OVERHEAD_S) plus host_per_seq_s for each sequence on the busiest executor (ceil(seqs / attn_dp));
 * with the overlap scheduler the host runs one iteration ahead of the GPU, so the slower of the two sets the
 * pace (TensorRT-LLM docs torch/features/overlap_scheduler.md), else they add up */
static double iteration_s(const est_infer_input *in, double gpu_s, double seqs)
{
    double dp = in->attn_dp > 1 ? in->attn_dp : 1.0;
    double host = INFER_STEP_OVERHEAD_S + in->host_per_seq_s * ceil(fmax(seqs, 0.0) / dp);
    return in->overlap_host ? fmax(gpu_s, host) : gpu_s + host;
}

int est_infer_evaluate(const est_infer_input *in, est_infer_result *r, char *why, size_t len)
{
    memset(r, 0, sizeof *r);
    if (est_infer_check(in, why, len) != 0) return -1;
    dev_ctx d;
    ctx_init(&d, in);
    d.ft_engine = true; /* a static batch: FasterTransformer's engine */
    double bs = in->bs, I = in->input_len, O = in->output_len;
    r->prefill_s = pass_s(&d, bs, I, I, true, &r->tp_comm_s, &r->pp_comm_s) + INFER_STEP_OVERHEAD_S;
    /* decode steps priced at the mean context (the KV term is linear in ctx) */
    double tpc = 0, ppc = 0;
    r->decode_step_s = pass_s(&d, bs, 1.0, I + O / 2.0, false, &tpc, &ppc) + INFER_STEP_OVERHEAD_S;
    /* the prefill pass yields the first token; output_len − 1 more steps (FasterTransformer's decode loop) */
    r->decode_s = (O - 1.0) * r->decode_step_s;
    r->tp_comm_s += (O - 1.0) * tpc;
    r->pp_comm_s += (O - 1.0) * ppc;
    r->latency_s = r->prefill_s + r->decode_s;
    memory_bytes(&d, bs, I + O, bs * I, r);
    r->tokens_per_s = bs * O / r->latency_s;
    r->samples_per_s_per_gpu = bs / r->latency_s / (in->tp * in->pp);
    params_of(&in->shape, r);
    return 0;
}

int est_infer_max_load(const est_infer_input *in0, int max_batch, int max_num_tokens, est_infer_result *r, int *batch,
                       char *why, size_t len)
{
    est_infer_input in = *in0;
    in.bs = 1;
    memset(r, 0, sizeof *r);
    *batch = 0;
    if (est_infer_check(&in, why, len) != 0) return -1;
    if (max_batch < 1 || max_num_tokens < 1) { snprintf(why, len, "max batch and max tokens must be >= 1"); return -1; }
    dev_ctx d;
    ctx_init(&d, &in);
    double I = in.input_len, O = in.output_len;
    /* KV capacity: the runtime gives kv_frac of the memory left after weights and workspace to the cache */
    est_infer_result one;
    memory_bytes(&d, 1.0, I + O, fmin(max_num_tokens, I), &one);
    double free_b = one.mem_limit - one.mem_weights - one.mem_workspace;
    double per_seq = one.mem_kv;
    double cap = free_b > 0 ? INFER_MAX_LOAD_KV_FRAC * free_b / per_seq : 0.0;
    if (cap < 1.0) {
        snprintf(why, len, "weights %.1f GiB leave no room for one sequence's KV cache", one.mem_weights / EST_GIB);
        return -1;
    }
    double B = fmin(floor(cap), max_batch);
    /* prefill of B·I tokens in chunks of max_num_tokens */
    double total = B * I, chunk = fmin(total, max_num_tokens);
    double seqs_chunk = chunk / I;
    r->prefill_s = total / chunk * iteration_s(&in, pass_s(&d, seqs_chunk, I, I, true, &r->tp_comm_s, &r->pp_comm_s), seqs_chunk);
    r->decode_step_s = iteration_s(&in, pass_s(&d, B, 1.0, I + O / 2.0, false, NULL, NULL), B);
    r->decode_s = O * r->decode_step_s;
    r->latency_s = r->prefill_s + r->decode_s;
    memory_bytes(&d, B, I + O, chunk, r);
    r->fits = true;
    r->tokens_per_s = B * O / r->latency_s;
    r->samples_per_s_per_gpu = B / r->latency_s / (in.tp * in.pp);
    params_of(&in.shape, r);
    *batch = (int)B;
    return 0;
}

double est_infer_step_s(const est_infer_input *in, double dec_seqs, double dec_ctx, double pf_tokens, double pf_ctx)
{
    if (est_infer_check(in, NULL, 0) != 0 || dec_seqs + pf_tokens <= 0) return 0.0;
    dev_ctx d;
    ctx_init(&d, in);
    int pp = in->pp, L = d.s->num_layers;
    double pf_seqs = pf_tokens > 0 && pf_ctx > 0 ? pf_tokens / pf_ctx : 0.0;
    double seqs = dec_seqs + (pf_tokens > 0 ? 1.0 : 0.0);
    double m = pp > 1 ? fmin(pp, ceil(seqs)) : 1.0;
    pass_time lt = layer_mix_s(&d, dec_seqs / m, dec_ctx, pf_tokens / m, pf_seqs / m, pf_ctx);
    double stage = (lt.compute + lt.comm) * L / pp;
    /* in-flight batching keeps pp micro-batches in the pipeline (vLLM virtual engines, TensorRT-LLM
     * micro-batch scheduler): a round of every micro-batch costs max(m, pp) stage times, no fill/drain */
    double hops = (pp - 1) * hop_s(&d, (dec_seqs + pf_tokens) / m);
    double gpu = fmax(m, pp) * stage + hops + logits_s(&d, (dec_seqs + pf_seqs) / m) * m;
    return iteration_s(in, gpu, dec_seqs + (pf_tokens > 0 ? fmax(pf_seqs, 1.0) : 0.0));
}

int est_infer_kv_capacity(const est_infer_input *in, int seq_tokens, int block_tokens, int chunk_tokens, double kv_frac,
                          est_infer_kv *kv, char *why, size_t len)
{
    memset(kv, 0, sizeof *kv);
    if (est_infer_check(in, why, len) != 0) return -1;
    if (seq_tokens < 1 || chunk_tokens < 1 || kv_frac <= 0) { snprintf(why, len, "sequence length, chunk and KV share must be > 0"); return -1; }
    dev_ctx d;
    ctx_init(&d, in);
    /* paged KV cache: a sequence holds whole blocks of block_tokens tokens (Kwon et al. 2023, PagedAttention §4.2) */
    double tokens = block_tokens > 0 ? ceil((double)seq_tokens / block_tokens) * block_tokens : seq_tokens;
    est_infer_result one;
    memory_bytes(&d, 1.0, tokens, chunk_tokens, &one);
    kv->weights_b = one.mem_weights;
    kv->workspace_b = one.mem_workspace;
    kv->limit_b = one.mem_limit;
    kv->per_seq_b = one.mem_kv;
    double free_b = one.mem_limit - one.mem_weights - one.mem_workspace;
    kv->pool_b = free_b > 0 ? kv_frac * free_b : 0.0;
    kv->seqs = kv->per_seq_b > 0 ? (int)fmin(floor(kv->pool_b / kv->per_seq_b), 1e9) : 0;
    if (kv->seqs < 1) {
        snprintf(why, len, "weights %.1f GiB + workspace %.1f GiB per GPU leave no room for one sequence's KV cache "
                 "(%.1f GiB usable): %.1f GiB short",
                 one.mem_weights / EST_GIB, one.mem_workspace / EST_GIB, one.mem_limit / EST_GIB,
                 (one.mem_weights + one.mem_workspace + one.mem_kv / kv_frac - one.mem_limit) / EST_GIB);
        return -1;
    }
    return 0;
}

double est_infer_ft_sampling_s(const est_infer_input *in, double seqs)
{
    if (est_infer_check(in, NULL, 0) != 0 || seqs <= 0) return 0.0;
    dev_ctx d;
    ctx_init(&d, in);
    return ft_sampling_s(&d, seqs);
}

double est_infer_ft_context_elementwise_s(const est_infer_input *in, double tokens)
{
    if (est_infer_check(in, NULL, 0) != 0 || tokens <= 0) return 0.0;
    dev_ctx d;
    ctx_init(&d, in);
    return ft_elementwise_s(&d, tokens);
}
