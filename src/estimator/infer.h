/* infer.h — the analytical inference model: latency, throughput and memory of
 * serving one decoder model with tensor and pipeline parallelism on one GPU
 * type, with no cluster.
 *
 * A request of bs sequences runs one prefill pass over bs·input_len tokens
 * (compute bound) and then output_len decode steps of bs tokens each (bound by
 * reading the weights and the KV cache from HBM, or by compute when the batch is
 * large).  Every GEMM is a roofline max(FLOPs / achievable peak, bytes /
 * achievable HBM bandwidth) with a per-kernel floor (launch latency); each layer
 * adds its non-GEMM kernels and two tensor-parallel all-reduces; pipeline stages
 * run bs in min(pp, bs) micro-batches (FasterTransformer's scheme).  Families:
 * GPT-3 (MHA), Llama (GQA: KV cache of query_groups heads), Mixtral (MoE: FLOPs
 * of the top-k experts, weights of every expert some token of the batch routes
 * to).  Precisions fp16/bf16/fp8/fp4 (weight bytes 2/2/1/0.5625, the catalog's
 * peak of that precision).  Every formula is one function in infer.c with its
 * source; the constants are named there or come from data/calibration.csv.
 * Numbers from here are predictions and are always labelled so.
 */
#ifndef AC_ESTIMATOR_INFER_H
#define AC_ESTIMATOR_INFER_H

#include <stdbool.h>
#include <stddef.h>

#include "estimator/est.h"
#include "estimator/gpu.h"
#include "model/shape.h"

typedef struct {
    model_shape shape;
    int tp, pp, bs, input_len, output_len;
    int ep;                   /* MoE expert parallelism inside the TP group (ep | tp, ep | experts); 0/1 = experts split by TP */
    est_precision precision;  /* weights and GEMMs */
    int kv_bytes;             /* bytes per KV-cache element; 0 → 1 for fp8/fp4, else 2 */
    const gpu_spec *gpu;
    double memory_limit_gb;   /* 0 → the GPU's memory */
    bool cuda_graphs;         /* decode launched as CUDA graphs (TensorRT-LLM): smaller kernel floor */
    bool custom_allreduce;    /* one-shot all-reduce kernel (TensorRT-LLM, vLLM), else NCCL's ring (FasterTransformer) */
    bool kv_per_query_head;   /* decode attention loads a KV head's cache once per query head of its group
                               * (TensorRT-LLM before 0.7: masked MHA without MQA/GQA sharing) */
    /* host (CPU) work of an in-flight engine per iteration: host_per_seq_s for every sequence of the
     * iteration on one executor process (scheduling, input preparation, sampler update); attn_dp
     * executors share the batch (attention data parallelism: each rank schedules its own requests),
     * 0 or 1 = one executor; overlap_host: the host prepares iteration n+1 while the GPU runs n, so
     * an iteration costs max(GPU, host) rather than their sum */
    double host_per_seq_s;
    int attn_dp;
    bool overlap_host;
    const est_cal *cal;       /* NULL → defaults */
} est_infer_input;

typedef struct {
    /* time, seconds */
    double prefill_s;       /* context phase of the whole batch */
    double decode_step_s;   /* one decode step at the mean context length */
    double decode_s;        /* output_len decode steps */
    double latency_s;       /* prefill + decode: the whole request (FasterTransformer's measured time) */
    double tp_comm_s;       /* all-reduce part of latency_s */
    double pp_comm_s;       /* pipeline hops part of latency_s */
    /* per GPU, bytes */
    double mem_weights, mem_kv, mem_workspace, mem_total, mem_limit;
    bool fits;
    /* throughput */
    double tokens_per_s;          /* generated tokens per second of one replica */
    double samples_per_s_per_gpu; /* bs / latency / (tp·pp), the original's column */
    double params_b, active_params_b;
} est_infer_result;

/* the largest TP x PP one model replica may span: products above it are rejected, not overflowed */
enum { EST_INFER_MAX_GPUS = 1 << 20 };

/* fills defaults: tp = pp = bs = 1, fp16, lengths 128/32 */
void est_infer_input_init(est_infer_input *in, const model_shape *s, const gpu_spec *g);

/* the layout's rules (heads % tp, layers % pp, decoder only, sizes ≥ 1).  0, or -1 with why */
int est_infer_check(const est_infer_input *in, char *why, size_t why_len);

/* scores one point: 0, or -1 with why when est_infer_check fails.  Pure. */
int est_infer_evaluate(const est_infer_input *in, est_infer_result *out, char *why, size_t why_len);

/* Max-load serving (TensorRT-LLM trtllm-bench style): the runtime keeps as many
 * sequences in flight as the KV cache (kv_frac of the memory left after the
 * weights) holds, at most max_batch; prefill runs in chunks of max_num_tokens.
 * Sets *batch and out (out->tokens_per_s = generated tokens/s of one replica).
 * in->bs is ignored.  0, or -1 with why (does not fit even one sequence). */
int est_infer_max_load(const est_infer_input *in, int max_batch, int max_num_tokens, est_infer_result *out, int *batch,
                       char *why, size_t why_len);

/* One engine iteration of in-flight (continuous) batching, seconds: dec_seqs sequences decode one token
 * each at context dec_ctx and pf_tokens prompt tokens (of prompts pf_ctx long) prefill in the same pass;
 * the pipeline is kept full (no fill/drain).  0 when the layout is invalid or the step is empty. */
double est_infer_step_s(const est_infer_input *in, double dec_seqs, double dec_ctx, double pf_tokens, double pf_ctx);

/* FasterTransformer's top-p sampling of one step over `seqs` sequences (its kernels over the fp32 logits of
 * the padded vocabulary, cub's segmented radix sort among them), seconds; 0 when the layout is invalid */
double est_infer_ft_sampling_s(const est_infer_input *in, double seqs);

/* FasterTransformer's non-GEMM kernels of one layer's context phase over `tokens` tokens (layernorms, bias,
 * transposes, the KV-cache write, GELU, residual), seconds; 0 when the layout is invalid */
double est_infer_ft_context_elementwise_s(const est_infer_input *in, double tokens);

/* the paged KV cache of one GPU */
typedef struct {
    int seqs;          /* sequences of seq_tokens the cache holds */
    double weights_b, workspace_b, limit_b, pool_b, per_seq_b; /* bytes per GPU */
} est_infer_kv;

/* KV-cache capacity: kv_frac of the memory left after weights and the workspace of a chunk_tokens
 * prefill, in blocks of block_tokens (0 = contiguous).  0, or -1 with why (not even one sequence,
 * saying by how much). */
int est_infer_kv_capacity(const est_infer_input *in, int seq_tokens, int block_tokens, int chunk_tokens, double kv_frac,
                          est_infer_kv *kv, char *why, size_t why_len);

#endif
