/* serve.c — the serving model (serve.h).
 *
 * Design: the cost of one engine iteration comes from the analytical model
 * (est_infer_step_s: GEMMs over the decode tokens plus the prompt chunk fused
 * into the pass, attention per phase); this file turns iterations into a
 * steady state.  In-flight batching: the engine's time goes to decode
 * iterations of the running batch B and to the extra time prompt chunks add
 * to the iterations they ride along; a request's TTFT is its prompt's chunks
 * plus the wait behind other prompts (M/D/1); its ITL is the decode iteration
 * stretched by the prompts of the others.  Little's law closes the loop.
 */
#include "estimator/serve.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* the engines; defaults as each engine ships them */
static const serve_engine ENGINES[] = {
    /* FasterTransformer multi_gpu_gpt_example: one static batch of max_batch_size, contiguous
     * KV cache sized for the batch (NVIDIA/FasterTransformer docs/gpt_guide.md) */
    { "fastertransformer", false, false, false, false, 0, 0, 0, 1.0, 0.0, false,
      "NVIDIA/FasterTransformer docs/gpt_guide.md: static batch, contiguous KV cache" },
    /* vLLM V1: PagedAttention blocks of 16 tokens, gpu_memory_utilization 0.9, chunked prefill always
     * on; API-server defaults on >= 70 GiB GPUs max_num_seqs 1024, max_num_batched_tokens 8192
     * (vllm engine/arg_utils.py); --kv-cache-dtype fp8; piecewise/full CUDA graphs for decode */
    { "vllm", true, true, true, true, 16, 1024, 8192, 0.90, 0.0, false,
      "vLLM V1 docs (configuration/optimization.md) and engine/arg_utils.py defaults" },
    /* TensorRT-LLM: paged KV cache tokens_per_block 32, kv_cache_config.free_gpu_memory_fraction 0.9,
     * max_batch_size 2048, max_num_tokens 8192, chunked context, fp8 KV (kv_cache_config.dtype),
     * CUDA graphs (TensorRT-LLM docs "Tuning Max Batch Size and Max Num Tokens", KV cache docs).
     * PyTorch backend: the Python executor's per-request work each iteration (scheduler, _prepare_tp_inputs,
     * TorchSampler.update_requests) ~34 us per request: an 8.8 ms host bubble per iteration at 256 requests
     * (NVIDIA/TensorRT-LLM PR 16564, GB200 gen worker); overlap scheduler on by default (docs
     * torch/features/overlap_scheduler.md) */
    { "trtllm", true, true, true, true, 32, 2048, 8192, 0.90, 8.8e-3 / 256.0, true,
      "TensorRT-LLM docs: performance tuning (max_batch_size, max_num_tokens), KV cache management" },
};
enum { N_ENGINES = sizeof ENGINES / sizeof ENGINES[0] };

/* Utilisation cap of the queues: beyond it the mean wait is unbounded (the load is saturated). */
static const double SERVE_RHO_MAX = 0.98;
/* Fixed-point iterations of the steady state (damped; converges well within this). */
enum { SERVE_ITERS = 200 };

const serve_engine *serve_engine_find(const char *name)
{
    for (size_t i = 0; name && i < N_ENGINES; i++)
        if (!strcmp(ENGINES[i].name, name)) return &ENGINES[i];
    return NULL;
}

const char *serve_engine_names(void) { return "fastertransformer, vllm, trtllm"; }

void serve_input_init(serve_input *s, const model_shape *shape, const gpu_spec *g, const serve_engine *e)
{
    memset(s, 0, sizeof *s);
    est_infer_input_init(&s->in, shape, g);
    s->engine = e ? e : &ENGINES[1];
    s->in.cuda_graphs = s->engine->cuda_graphs;
    s->in.custom_allreduce = s->engine->continuous;
    s->in.host_per_seq_s = s->engine->host_per_seq_s;
    s->in.overlap_host = s->engine->overlap_host;
    s->input_len = 128;
    s->output_len = 128;
    s->concurrency = 1;
}

typedef struct {
    const serve_input *s;
    est_infer_input in;
    double I, O, ctx, budget;
    double cv_in, cv_out; /* length spreads (serve_input) */
    double clients;       /* a closed loop's clients (0: open loop, Poisson arrivals) */
} serve_ctx;

typedef struct {
    double X, B, td, S, ttft, itl, e2e;
    double b_seen, td_seen; /* the decoding sequences an arriving prompt shares iterations with, and their step */
    double rho, wq, tmix, chunks; /* prompt queue load and mean wait; one prompt iteration; iterations per prompt */
    bool saturated;
} steady;

/* mean context of a decoding sequence: the prompt plus half the output (the KV read is linear in it) */
static double decode_ctx(double I, double O) { return I + O / 2.0; }

/* one decode iteration of b running sequences (at least the one waiting for its token) */
static double decode_step(const serve_ctx *c, double b) { return est_infer_step_s(&c->in, fmax(b, 1.0), c->ctx, 0, 0); }

/* prompt service of one request at b decoding sequences: chunks of (budget − b) tokens, each an iteration
 * that also decodes the batch (Sarathi-Serve, Agrawal et al. 2024 §4; vLLM chunked prefill: decodes take
 * the token budget first).  td = the plain decode iteration at b (decode_step, computed once per state);
 * *steal = the time those iterations add over it. */
static double prompt_s(const serve_ctx *c, double b, double td, double *steal, double *chunks)
{
    const serve_engine *e = c->s->engine;
    if (!e->chunked_prefill || b < 1e-9) {
        double t = est_infer_step_s(&c->in, 0, 0, c->I, c->I);
        *steal = t;
        *chunks = 1.0;
        return t;
    }
    double chunk = fmin(c->I, fmax(c->budget - b, e->block_tokens > 0 ? e->block_tokens : 1));
    double n = ceil(c->I / chunk);
    double t = est_infer_step_s(&c->in, b, c->ctx, chunk, c->I);
    *steal = n * fmax(t - td, 0.0);
    *chunks = n;
    return n * t;
}

/* M/G/1 mean wait in queue: ρ·E[S]·(1 + c²) / (2(1 − ρ)) (Pollaczek–Khinchine), c the service time's
 * coefficient of variation: a prompt's service grows with its length, so c = the input lengths' spread;
 * fixed lengths give M/D/1 (c = 0) */
static double mg1_wait(double rho, double S, double cv) { return rho * S * (1.0 + cv * cv) / (2.0 * (1.0 - rho)); }

/* the standard normal's p-quantile (Acklam 2003, "An algorithm for computing the inverse normal cumulative
 * distribution function": rational approximations, relative error < 1.2e-9) */
static double normal_quantile(double p)
{
    static const double a[] = { -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                                1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00 };
    static const double b[] = { -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                6.680131188771972e+01, -1.328068155288572e+01 };
    static const double c[] = { -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00 };
    static const double d[] = { 7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                3.754408661907416e+00 };
    if (p <= 0.0) return -INFINITY;
    if (p >= 1.0) return INFINITY;
    if (p < 0.02425 || p > 1.0 - 0.02425) {
        double q = sqrt(-2.0 * log(p < 0.5 ? p : 1.0 - p));
        double x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
                   ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
        return p < 0.5 ? x : -x;
    }
    double q = p - 0.5, r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
}

/* the steady state at a given arrival rate X (requests/s) with b decoding sequences:
 * ITL = t_d / (1 − X·steal) (decode iterations get the time prompts leave);
 * TTFT = busy·t_d/2 (wait for the current iteration) + S + M/D/1 wait behind other prompts */
static void state_at(const serve_ctx *c, double X, double b, steady *st)
{
    /* a closed loop's arriving prompt finds only the other n − 1 clients ahead of it: the arrival
     * theorem of closed queueing networks (Reiser & Lavenberg 1980, mean value analysis) — one
     * client never waits behind itself (its own decodes, its own prompt), many approach the open
     * queue; an open loop's arrival sees the whole state (Poisson arrivals see time averages) */
    double seen = c->clients > 0 ? (c->clients - 1.0) / c->clients : 1.0;
    double b_seen = b * seen, td = decode_step(c, b);
    /* decode_step takes at least one sequence: below that the arriving prompt sees the same step */
    double td_seen = fmax(b_seen, 1.0) < fmax(b, 1.0) ? decode_step(c, b_seen) : td;
    double steal, chunks, S = prompt_s(c, b_seen, td_seen, &steal, &chunks);
    double frac = X * steal, rho = X * S;
    st->saturated = frac >= SERVE_RHO_MAX || rho >= SERVE_RHO_MAX;
    frac = fmin(frac, SERVE_RHO_MAX);
    rho = fmin(rho, SERVE_RHO_MAX);
    st->X = X;
    st->B = b;
    st->td = td;
    st->S = S;
    st->itl = td / (1.0 - frac);
    st->rho = rho;
    st->wq = mg1_wait(rho * seen, S, c->cv_in);
    st->tmix = S / chunks;
    st->chunks = chunks;
    st->b_seen = b_seen;
    st->td_seen = td_seen;
    st->ttft = fmin(b_seen, 1.0) * td_seen / 2.0 + S + st->wq;
    st->e2e = st->ttft + (c->O - 1.0) * st->itl;
}

/* the decoding sequences at arrival rate X: b = X·(O − 1)·ITL (Little on the decode phase), at
 * most the n clients; damped fixed point, st left at the last state.  Returns X·e2e − n, which
 * Little's law makes 0 for a closed loop of n clients */
static double closed_excess(const serve_ctx *c, double n, double X, double *b, steady *st)
{
    for (int i = 0; i < SERVE_ITERS; i++) {
        state_at(c, X, *b, st);
        double bn = fmin(n, X * (c->O - 1.0) * st->itl);
        if (fabs(bn - *b) <= 1e-9 * n) break;
        *b = 0.5 * *b + 0.5 * bn;
    }
    return X * st->e2e - n;
}

/* closed loop with n clients, all of which fit the running batch: X = n / e2e (Little), decoding
 * sequences b = X·(O − 1)·ITL (Little on the decode phase); damped fixed point.  Where it does not
 * settle (prompt work near the whole iteration, the share clipped at SERVE_RHO_MAX) X is bisected
 * on [0, n / e2e(0)], on whose ends X·e2e − n is negative and not, and the state kept is the one
 * nearest n = X·e2e of all those tried, the fixed point's included: never further from Little's law
 * than the fixed point alone (the clip makes X·e2e(X) jump, so an exact root need not exist) */
static void solve_closed(const serve_ctx *c, double n, steady *st)
{
    double b = n, X = 0;
    state_at(c, 0, b, st);
    X = n / st->e2e;
    double hi = X;
    for (int i = 0; i < SERVE_ITERS; i++) {
        state_at(c, X, b, st);
        double Xn = n / st->e2e, bn = fmin(n, Xn * (c->O - 1.0) * st->itl);
        X = 0.5 * X + 0.5 * Xn;
        b = 0.5 * b + 0.5 * bn;
    }
    state_at(c, X, b, st);
    double best_err = fabs(X * st->e2e / n - 1.0);
    if (!(best_err <= 1e-3)) {
        steady best = *st, t;
        double lo = 0.0;
        for (int i = 0; i < 60 && hi - lo > 1e-9 * hi && !(best_err <= 1e-4); i++) {
            double mid = 0.5 * (lo + hi), bb = b;
            double ex = closed_excess(c, n, mid, &bb, &t), err = fabs(ex) / n;
            if (err < best_err) best_err = err, best = t;
            if (ex > 0) hi = mid;
            else lo = mid;
        }
        *st = best;
    }
    st->saturated = false; /* a closed loop never is: the clients wait */
}

/* open loop at rate X: b = X·(O − 1)·ITL; saturated when b outgrows the slots or a queue's ρ reaches 1 */
static void solve_open(const serve_ctx *c, double X, double slots, steady *st)
{
    double b = fmin(1.0, slots);
    for (int i = 0; i < SERVE_ITERS; i++) {
        state_at(c, X, b, st);
        double bn = X * (c->O - 1.0) * st->itl;
        if (bn > slots) { bn = slots; st->saturated = true; }
        b = 0.5 * b + 0.5 * bn;
    }
    bool over = st->saturated && b >= slots * 0.999;
    state_at(c, X, b, st);
    st->saturated = st->saturated || over;
}

/* the p-quantile of the wait in queue behind other prompts: the M/G/1 waiting time's exponential tail
 * P(W > t) ≈ ρ·exp(−ρ·t / E[W]) (the conditional wait of a queued request is exponential with mean
 * E[W]/ρ; Tijms, "A First Course in Stochastic Models" 2003, §2.5, Cramér–Lundberg approximation),
 * so W_p = E[W]/ρ · ln(ρ / (1 − p)) when ρ > 1 − p, else 0 (most requests find no queue) */
static double wait_quantile(double rho, double wq, double p)
{
    if (!(rho > 1e-12) || rho <= 1.0 - p) return 0.0;
    return wq / rho * log(rho / (1.0 - p));
}

/* percentiles of one steady state, p in (0, 1):
 * TTFT_p = p·t_d (the iteration a request arrives in: uniform over it) + S·(1 + z_p·c_in) (a prompt's
 *   service at the p-quantile of a normal length, z_p the standard normal's quantile) + W_p (a sum of
 *   quantiles: an upper bound of the quantile of the sum);
 * ITL_p over the tokens: a token's interval is a mixed iteration (t_mix, a prompt chunk rides along)
 *   or a plain decode iteration (t_d); mixed iterations take the share ρ = X·S of the time and come
 *   at X·chunks per second, so a share q = X·chunks / (X·chunks + (1 − ρ)/t_d) of the intervals is
 *   mixed (vLLM's benchmark reports ITL per token, its p99 the mixed iteration once q > 1 %);
 * e2e_p = TTFT_p + (O·(1 + z_p·c_out) − 1)·mean ITL (the output length's p-quantile; with fixed lengths
 *   the decode phase varies little). */
static void state_quantiles(const serve_ctx *c, const steady *st, double p, double *ttft, double *itl, double *e2e)
{
    double z = normal_quantile(p);
    *ttft = fmin(st->b_seen, 1.0) * p * st->td_seen + st->S * fmax(1.0 + z * c->cv_in, 0.0) + wait_quantile(st->rho, st->wq, p);
    double xn = st->X * st->chunks, q = xn > 0 ? xn / (xn + fmax(1.0 - st->rho, 1e-9) / st->td) : 0.0;
    *itl = q > 1.0 - p ? fmax(st->tmix, st->td) : st->td;
    *e2e = *ttft + fmax(c->O * (1.0 + z * c->cv_out) - 1.0, 0.0) * st->itl;
}

static int fail(char *why, size_t len, const char *msg)
{
    snprintf(why, len, "%s", msg);
    return -1;
}

/* static batching (FasterTransformer): batches of at most `cap` requests; a closed loop of n clients
 * runs ceil(n / cap) batches back to back, so a request waits for the batches before its own */
static int serve_static(const serve_input *s, int cap, serve_result *r, char *why, size_t len)
{
    if (s->concurrency < 1) return fail(why, len, "static batching takes a concurrency (the batch size), not a request rate");
    est_infer_input in = s->in;
    in.input_len = s->input_len;
    in.output_len = s->output_len;
    in.bs = s->concurrency < cap ? s->concurrency : cap;
    est_infer_result er;
    if (est_infer_evaluate(&in, &er, why, len) != 0) return -1;
    double rounds = ceil((double)s->concurrency / in.bs);
    r->running = in.bs;
    r->queued = s->concurrency - in.bs;
    r->kv_limited = s->concurrency > cap;
    r->prefill_s = er.prefill_s;
    r->decode_step_s = er.decode_step_s;
    r->e2e_s = rounds * er.latency_s;
    r->ttft_s = r->e2e_s - er.decode_s;
    r->itl_s = er.decode_step_s;
    r->requests_per_s = s->concurrency / r->e2e_s;
    return 0;
}

int serve_evaluate(const serve_input *s, serve_result *r, char *why, size_t len)
{
    char d[8];
    if (!why) { why = d; len = sizeof d; }
    memset(r, 0, sizeof *r);
    const serve_engine *e = s->engine;
    if (!e) return fail(why, len, "no serving engine");
    if (s->input_len < 1 || s->output_len < 1) return fail(why, len, "input and output lengths must be >= 1");
    if (s->concurrency < 1 && !(s->request_rate > 0)) return fail(why, len, "a load needs a concurrency >= 1 or a request rate > 0");
    if (!(s->percentile >= 0 && s->percentile < 100)) return fail(why, len, "the latency percentile must be in (0, 100), or 0 for means");
    if (!(s->input_cv >= 0 && s->input_cv <= 10 && s->output_cv >= 0 && s->output_cv <= 10))
        return fail(why, len, "the length spreads (standard deviation / mean) must be in [0, 10]");
    est_infer_input in = s->in;
    in.cuda_graphs = e->cuda_graphs;
    in.custom_allreduce = e->continuous; /* vLLM and TensorRT-LLM ship one-shot all-reduce kernels */
    in.host_per_seq_s = e->host_per_seq_s;
    in.overlap_host = e->overlap_host;
    in.attn_dp = s->attn_dp > 1 ? s->attn_dp : 1;
    in.input_len = s->input_len;
    in.output_len = s->output_len;
    in.bs = 1;
    bool low = in.precision == PREC_FP8 || in.precision == PREC_FP4;
    int kv_bytes = in.kv_bytes > 0 ? in.kv_bytes : (low ? 1 : 2);
    if (kv_bytes < 2 && !e->fp8_kv) {
        snprintf(why, len, "%s keeps the KV cache in 16 bits: no fp8 KV cache", e->name);
        return -1;
    }
    in.kv_bytes = kv_bytes;
    if (est_infer_check(&in, why, len) != 0) return -1;
    /* quantised weights run on the GPU's low-precision tensor cores; an fp8 KV cache alone does not need them */
    if ((in.precision == PREC_FP8 && !(in.gpu->fp8_tflops > 0)) || (in.precision == PREC_FP4 && !(in.gpu->fp4_tflops > 0))) {
        snprintf(why, len, "%s has no %s tensor cores: %s weights need a newer GPU (fp8_kv keeps 16-bit weights)", in.gpu->name,
                 est_precision_name(in.precision), est_precision_name(in.precision));
        return -1;
    }
    int budget = s->max_num_batched_tokens > 0 ? s->max_num_batched_tokens : e->max_num_batched_tokens;
    int chunk = e->continuous ? (budget < s->input_len ? budget : s->input_len) : s->input_len;
    est_infer_kv kv;
    int kvrc = est_infer_kv_capacity(&in, s->input_len + s->output_len, e->block_tokens, chunk, e->kv_frac, &kv, why, len);
    r->mem_limit_gib = kv.limit_b / EST_GIB;
    r->mem_need_gib = (kv.weights_b + kv.workspace_b + kv.per_seq_b / e->kv_frac) / EST_GIB;
    if (kvrc != 0) return -1;
    r->gpus = in.tp * in.pp;
    r->kv_capacity = kv.seqs;
    r->mem_weights_gib = kv.weights_b / EST_GIB;
    r->mem_kv_pool_gib = kv.pool_b / EST_GIB;
    double I = s->input_len, O = s->output_len;
    if (!e->continuous) {
        if (serve_static(s, kv.seqs, r, why, len) != 0) return -1;
    } else {
        int max_seqs = s->max_num_seqs > 0 ? s->max_num_seqs : e->max_num_seqs;
        double slots = kv.seqs < max_seqs ? kv.seqs : max_seqs;
        serve_ctx c = { s, in, I, O, decode_ctx(I, O), budget, s->input_cv, s->output_cv, 0.0 };
        steady st;
        double slot_wait = 0.0; /* a closed loop beyond the slots: the wait for a slot, the same for all */
        if (s->concurrency >= 1) {
            double n = s->concurrency;
            c.clients = fmin(n, slots);
            solve_closed(&c, c.clients, &st);
            r->kv_limited = n > kv.seqs;
            if (n > slots) {
                /* the extra clients queue for a slot: the engine runs saturated at `slots`, and
                 * every request's end-to-end time is n / X (Little), the wait counted in its TTFT */
                double served_ttft = st.ttft;
                r->queued = n - slots;
                st.e2e = n / st.X;
                st.ttft = st.e2e - (O - 1.0) * st.itl;
                slot_wait = st.ttft - served_ttft;
            }
        } else {
            solve_open(&c, s->request_rate, slots, &st);
            r->saturated = st.saturated;
            r->kv_limited = st.saturated && slots == kv.seqs;
            if (st.saturated) st.ttft = st.e2e = INFINITY;
        }
        r->ttft_p_s = st.ttft;
        r->itl_p_s = O > 1 ? st.itl : 0.0;
        r->e2e_p_s = st.e2e;
        if (s->percentile > 0 && isfinite(st.ttft)) {
            double tq, iq, eq, p = s->percentile / 100.0;
            state_quantiles(&c, &st, p, &tq, &iq, &eq);
            r->ttft_p_s = tq + slot_wait;
            r->itl_p_s = O > 1 ? iq : 0.0;
            r->e2e_p_s = eq + slot_wait;
        }
        r->running = (int)lround(st.B);
        r->prefill_s = est_infer_step_s(&in, 0, 0, I, I);
        r->decode_step_s = st.td;
        r->ttft_s = st.ttft;
        r->itl_s = O > 1 ? st.itl : 0.0;
        r->e2e_s = st.e2e;
        r->requests_per_s = st.X;
    }
    if (!e->continuous) { /* a static batch: every request of it sees the same times */
        r->ttft_p_s = r->ttft_s;
        r->itl_p_s = r->itl_s;
        r->e2e_p_s = r->e2e_s;
    }
    r->output_tok_s_per_instance = r->requests_per_s * O;
    r->output_tok_s_per_gpu = r->output_tok_s_per_instance / r->gpus;
    r->total_tok_s_per_gpu = r->requests_per_s * (I + O) / r->gpus;
    return 0;
}

double serve_goodput(const serve_result *r, double max_ttft_ms, double max_itl_ms, double max_e2e_ms)
{
    if (r->saturated || r->gpus < 1) return 0.0;
    if (max_ttft_ms > 0 && !(r->ttft_p_s * 1e3 <= max_ttft_ms)) return 0.0;
    if (max_itl_ms > 0 && !(r->itl_p_s * 1e3 <= max_itl_ms)) return 0.0;
    if (max_e2e_ms > 0 && !(r->e2e_p_s * 1e3 <= max_e2e_ms)) return 0.0;
    return r->requests_per_s / r->gpus;
}
