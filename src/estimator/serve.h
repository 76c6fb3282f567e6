/* serve.h — a serving model: one model instance (TP x PP GPUs) under a load.
 *
 * Engines (a table in serve.c, each row with its source):
 *   fastertransformer  static batching, the original's engine: a batch of
 *       `concurrency` requests runs prefill then output_len decode steps
 *       together (est_infer_evaluate); the next batch waits for the whole batch.
 *   vllm, trtllm  in-flight (continuous) batching: every engine iteration
 *       decodes one token of each running sequence and fuses prompt chunks of
 *       new requests into the same pass (chunked prefill, a per-iteration token
 *       budget); the running batch is min(concurrency, max_num_seqs, the paged
 *       KV cache's capacity in sequences); requests beyond it queue.
 *
 * The load is either a concurrency (closed loop: `concurrency` clients, each
 * with one request outstanding, as vLLM's benchmark_serving --max-concurrency
 * and trtllm-bench --concurrency run it) or a request rate (open loop, Poisson
 * arrivals).  Mean values; the steady state is solved from Little's law
 * (concurrency = requests/s x end-to-end latency) with the engine's time split
 * between decode steps and the marginal cost of prefill chunks.  Percentiles
 * (serve_input.percentile) come from the same steady state: the wait behind
 * other prompts has the M/G/1 waiting time's exponential tail, a token's
 * interval is a plain or a prompt-carrying iteration (serve.c state_quantiles).
 */
#ifndef AC_ESTIMATOR_SERVE_H
#define AC_ESTIMATOR_SERVE_H

#include <stdbool.h>
#include <stddef.h>

#include "estimator/infer.h"

typedef struct {
    const char *name;           /* "fastertransformer", "vllm", "trtllm" */
    bool continuous;            /* in-flight batching (else static batches) */
    bool chunked_prefill;       /* prompt chunks ride along decode steps */
    bool fp8_kv;                /* supports an fp8 KV cache */
    bool cuda_graphs;           /* decode replayed as CUDA graphs */
    int block_tokens;           /* paged KV block; 0 = contiguous per sequence */
    int max_num_seqs;           /* default cap on running sequences */
    int max_num_batched_tokens; /* default token budget of one iteration */
    double kv_frac;             /* share of free memory given to the KV cache */
    double host_per_seq_s;      /* host work per running sequence per iteration (est_infer_input) */
    bool overlap_host;          /* host runs one iteration ahead of the GPU (overlap scheduler) */
    const char *source;
} serve_engine;

/* NULL when unknown */
const serve_engine *serve_engine_find(const char *name);
/* "fastertransformer, vllm, trtllm" */
const char *serve_engine_names(void);

typedef struct {
    est_infer_input in;          /* model, GPU, tp, pp, precision, kv_bytes (bs, lengths ignored) */
    const serve_engine *engine;
    int input_len, output_len;   /* tokens per request */
    int concurrency;             /* closed loop clients; 0 → request_rate */
    double request_rate;         /* open loop, requests/s to this instance */
    int max_num_seqs;            /* 0 → the engine's default */
    int max_num_batched_tokens;  /* 0 → the engine's default */
    int attn_dp;                 /* attention data parallelism over the TP ranks (MoE): executors sharing the batch */
    double percentile;           /* the limits' percentile, 0 < p < 100 (50, 90, 99); 0 = means */
    /* length distributions: standard deviation / mean of the input and output lengths (normal, as
     * trtllm-bench's prepare_dataset token-norm-dist --input-stdev/--output-stdev draws them); 0 = fixed */
    double input_cv, output_cv;
} serve_input;

typedef struct {
    int gpus;              /* tp · pp */
    int kv_capacity;       /* sequences of input+output tokens the KV cache holds */
    int running;           /* sequences in the running batch */
    double queued;         /* requests waiting for a slot (closed loop beyond capacity) */
    bool kv_limited;       /* the load asks for more sequences than the KV cache holds */
    bool saturated;        /* open loop: the rate exceeds what the instance serves (TTFT unbounded) */
    double prefill_s;      /* one request's prompt alone */
    double decode_step_s;  /* one decode iteration at the running batch */
    double ttft_s, itl_s, e2e_s; /* means; itl = TPOT = (e2e − ttft)/(output_len − 1) */
    double ttft_p_s, itl_p_s, e2e_p_s; /* at serve_input.percentile (ITL per token); the means when it is 0 */
    double requests_per_s; /* per instance */
    double output_tok_s_per_instance, output_tok_s_per_gpu, total_tok_s_per_gpu;
    double mem_weights_gib, mem_kv_pool_gib; /* per GPU */
    double mem_limit_gib, mem_need_gib;      /* usable; weights + workspace + one sequence's KV (set on no-fit too) */
} serve_result;

void serve_input_init(serve_input *s, const model_shape *shape, const gpu_spec *g, const serve_engine *e);

/* 0, or -1 with why (invalid layout, fp8 KV on an engine without it, does not fit one sequence:
 * says by how much).  Pure. */
int serve_evaluate(const serve_input *s, serve_result *r, char *why, size_t why_len);

/* requests/s per GPU that meet every limit (ms; <= 0 = no limit): the throughput when the
 * times at the input's percentile (ttft_p_s, itl_p_s, e2e_p_s; the means without one) meet them, else 0 */
double serve_goodput(const serve_result *r, double max_ttft_ms, double max_itl_ms, double max_e2e_ms);

#endif
