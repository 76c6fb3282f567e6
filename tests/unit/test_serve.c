/* test_serve.c — the serving model's directions: more concurrency gives more
 * throughput and a longer ITL, then a TTFT cliff once the KV cache is full;
 * an fp8 KV cache holds more sequences; a request rate beyond the instance
 * saturates; static batching stays the original's model; goodput and the
 * "does not fit, by how much" message. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "estimator/serve.h"

static model_shape llama8b(void)
{
    model_shape s = { 0 };
    s.arch = ARCH_DECODER;
    s.num_layers = 32; s.hidden = 4096; s.ffn_hidden = 14336; s.heads = 32; s.query_groups = 8;
    s.kv_channels = 128; s.vocab = 128256; s.gated_mlp = true; s.untied_embeddings = true;
    return s;
}

static model_shape llama70b(void)
{
    model_shape s = llama8b();
    s.num_layers = 80; s.hidden = 8192; s.ffn_hidden = 28672; s.heads = 64;
    return s;
}

static serve_result at(const model_shape *m, const char *engine, int tp, est_precision p, int n, int in, int out)
{
    serve_input s;
    serve_input_init(&s, m, gpu_find("h100"), serve_engine_find(engine));
    s.in.tp = tp; s.in.precision = p; s.concurrency = n; s.input_len = in; s.output_len = out;
    serve_result r;
    char why[256] = "";
    int rc = serve_evaluate(&s, &r, why, sizeof why);
    if (rc) printf("  why: %s\n", why);
    CHECK_INT(rc, 0);
    return r;
}

/* a closed loop of one client never queues behind itself (the arrival theorem): with one output
 * token its TTFT is its own prompt's prefill; two clients sharing the engine wait for each other */
static void test_one_client_no_queue(void)
{
    model_shape m = llama8b();
    serve_result one = at(&m, "trtllm", 1, PREC_BF16, 1, 2048, 1);
    CHECK(fabs(one.ttft_s / one.prefill_s - 1.0) < 0.01);
    serve_result two = at(&m, "trtllm", 1, PREC_BF16, 2, 2048, 1);
    CHECK(two.ttft_s > 1.2 * one.ttft_s);
    /* nor behind its own decodes: with 256 output tokens one client's prompt still runs alone */
    serve_result longer = at(&m, "trtllm", 1, PREC_BF16, 1, 2048, 256);
    CHECK(fabs(longer.ttft_s / longer.prefill_s - 1.0) < 0.01);
}

static void test_concurrency_direction(void)
{
    model_shape m = llama8b();
    serve_result prev = at(&m, "vllm", 1, PREC_BF16, 1, 1024, 256);
    CHECK(prev.kv_capacity > 64);
    CHECK(prev.ttft_s > 0 && prev.itl_s > 0 && prev.e2e_s > prev.ttft_s);
    int ns[] = { 4, 16, 64 };
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
        serve_result r = at(&m, "vllm", 1, PREC_BF16, ns[i], 1024, 256);
        CHECK(r.output_tok_s_per_gpu > prev.output_tok_s_per_gpu * 1.3); /* batching pays at low load */
        CHECK(r.itl_s > prev.itl_s);
        CHECK(!r.kv_limited);
        prev = r;
    }
    CHECK_NEAR(prev.total_tok_s_per_gpu, prev.output_tok_s_per_gpu * (1024 + 256) / 256.0, 1e-9);
}

static void test_ttft_cliff_when_kv_full(void)
{
    model_shape m = llama70b();
    serve_result base = at(&m, "vllm", 2, PREC_BF16, 1, 2048, 512);
    int cap = base.kv_capacity;
    CHECK(cap > 8 && cap < 1024); /* a 70B model on 2 H100s: KV, not max_num_seqs, limits */
    serve_result below = at(&m, "vllm", 2, PREC_BF16, cap, 2048, 512);
    serve_result above = at(&m, "vllm", 2, PREC_BF16, 2 * cap, 2048, 512);
    CHECK(!below.kv_limited);
    CHECK(above.kv_limited);
    CHECK(above.queued > cap * 0.9);
    /* throughput saturates, ITL stops growing, TTFT jumps by about a whole request's time */
    CHECK_NEAR(above.requests_per_s, below.requests_per_s, 0.02);
    CHECK_NEAR(above.itl_s, below.itl_s, 0.02);
    CHECK(above.ttft_s > below.ttft_s + 0.8 * below.e2e_s);
    CHECK(below.ttft_s < 0.2 * below.e2e_s);
}

static void test_fp8_kv_more_concurrency(void)
{
    model_shape m = llama70b();
    serve_result bf = at(&m, "trtllm", 4, PREC_BF16, 8, 1024, 1024);
    serve_input s;
    serve_input_init(&s, &m, gpu_find("h100"), serve_engine_find("trtllm"));
    s.in.tp = 4; s.in.kv_bytes = 1; s.concurrency = 8; s.input_len = 1024; s.output_len = 1024;
    serve_result kv8;
    char why[256];
    CHECK_INT(serve_evaluate(&s, &kv8, why, sizeof why), 0);
    CHECK(kv8.kv_capacity > 1.9 * bf.kv_capacity);
    serve_result fp8 = at(&m, "trtllm", 4, PREC_FP8, 8, 1024, 1024); /* fp8 weights and KV */
    CHECK(fp8.kv_capacity > kv8.kv_capacity); /* weights take half the bytes too */
    CHECK(fp8.itl_s < bf.itl_s);
    /* FasterTransformer has no fp8 KV cache */
    serve_input_init(&s, &m, gpu_find("h100"), serve_engine_find("fastertransformer"));
    s.in.tp = 4; s.in.kv_bytes = 1;
    CHECK_INT(serve_evaluate(&s, &kv8, why, sizeof why), -1);
    CHECK_CONTAINS(why, "fp8 KV");
    /* fp8 weights need FP8 tensor cores (an A100 has none); an fp8 KV cache alone is fine there */
    serve_input_init(&s, &m, gpu_find("a100_80gb"), serve_engine_find("vllm"));
    s.in.tp = 4; s.in.precision = PREC_FP8;
    CHECK_INT(serve_evaluate(&s, &kv8, why, sizeof why), -1);
    CHECK_CONTAINS(why, "no fp8 tensor cores");
    s.in.precision = PREC_BF16; s.in.kv_bytes = 1;
    CHECK_INT(serve_evaluate(&s, &kv8, why, sizeof why), 0);
}

static void test_request_rate(void)
{
    model_shape m = llama8b();
    serve_input s;
    serve_input_init(&s, &m, gpu_find("h100"), serve_engine_find("vllm"));
    s.concurrency = 0; s.input_len = 512; s.output_len = 128;
    serve_result lo, hi, over;
    char why[256];
    s.request_rate = 1.0;
    CHECK_INT(serve_evaluate(&s, &lo, why, sizeof why), 0);
    s.request_rate = 10.0;
    CHECK_INT(serve_evaluate(&s, &hi, why, sizeof why), 0);
    CHECK(!lo.saturated && !hi.saturated);
    CHECK_NEAR(hi.requests_per_s, 10.0, 1e-9);
    CHECK(hi.itl_s > lo.itl_s && hi.running > lo.running);
    s.request_rate = 1e5;
    CHECK_INT(serve_evaluate(&s, &over, why, sizeof why), 0);
    CHECK(over.saturated);
    CHECK(serve_goodput(&over, 0, 0, 0) == 0.0);
}

static void test_static_is_the_original_model(void)
{
    model_shape m = llama8b();
    serve_result r = at(&m, "fastertransformer", 1, PREC_FP16, 8, 128, 32);
    est_infer_input x;
    est_infer_input_init(&x, &m, gpu_find("h100"));
    x.bs = 8; x.input_len = 128; x.output_len = 32;
    est_infer_result er;
    CHECK_INT(est_infer_evaluate(&x, &er, NULL, 0), 0);
    CHECK_NEAR(r.e2e_s, er.latency_s, 1e-9);
    CHECK_NEAR(r.ttft_s, er.prefill_s, 1e-9);
    CHECK_NEAR(r.itl_s, er.decode_step_s, 1e-9);
    CHECK_NEAR(r.requests_per_s, 8 / er.latency_s, 1e-9);
}

static void test_goodput_and_fit(void)
{
    model_shape m = llama8b();
    serve_result r = at(&m, "vllm", 1, PREC_BF16, 32, 1024, 256);
    double g = serve_goodput(&r, 0, 0, 0);
    CHECK_NEAR(g, r.requests_per_s, 1e-12);
    CHECK_NEAR(serve_goodput(&r, r.ttft_s * 1e3 * 1.01, r.itl_s * 1e3 * 1.01, r.e2e_s * 1e3 * 1.01), g, 1e-12);
    CHECK(serve_goodput(&r, 0, r.itl_s * 1e3 * 0.99, 0) == 0.0);
    CHECK(serve_goodput(&r, r.ttft_s * 1e3 * 0.99, 0, 0) == 0.0);
    /* 70B in bf16 does not fit one 80 GB GPU: say by how much */
    model_shape big = llama70b();
    serve_input s;
    serve_input_init(&s, &big, gpu_find("h100"), serve_engine_find("vllm"));
    char why[256];
    CHECK_INT(serve_evaluate(&s, &r, why, sizeof why), -1);
    CHECK_CONTAINS(why, "GiB short");
}


/* percentiles: the tail grows with the load; p99 >= p90 >= p50; a higher request rate gives a higher
 * TTFT percentile; the goodput limit applies to the percentile */
static void test_percentiles(void)
{
    model_shape m = llama8b();
    serve_input s;
    serve_input_init(&s, &m, gpu_find("h100"), serve_engine_find("vllm"));
    s.concurrency = 0; s.input_len = 2048; s.output_len = 256;
    char why[256];
    double prev_p90 = 0;
    double rates[] = { 1.0, 4.0, 8.0 };
    for (size_t i = 0; i < sizeof rates / sizeof *rates; i++) {
        serve_result r50, r90, r99;
        s.request_rate = rates[i];
        s.percentile = 50; CHECK_INT(serve_evaluate(&s, &r50, why, sizeof why), 0);
        s.percentile = 90; CHECK_INT(serve_evaluate(&s, &r90, why, sizeof why), 0);
        s.percentile = 99; CHECK_INT(serve_evaluate(&s, &r99, why, sizeof why), 0);
        CHECK(!r90.saturated);
        CHECK(r99.ttft_p_s >= r90.ttft_p_s && r90.ttft_p_s >= r50.ttft_p_s);
        CHECK(r99.itl_p_s >= r90.itl_p_s && r90.itl_p_s >= r50.itl_p_s);
        CHECK(r99.e2e_p_s >= r90.e2e_p_s);
        CHECK(r90.ttft_p_s > prev_p90); /* higher request rate: higher TTFT p90 */
        CHECK(r90.ttft_p_s >= r90.prefill_s);
        prev_p90 = r90.ttft_p_s;
        /* the means are untouched by the percentile */
        CHECK_NEAR(r99.ttft_s, r50.ttft_s, 1e-12);
    }
    /* at a load where prompts queue, the p99 TTFT is above the mean and a limit between them
     * passes the mean and fails the p99 */
    s.request_rate = 8.0;
    serve_result mean, p99;
    s.percentile = 0; CHECK_INT(serve_evaluate(&s, &mean, why, sizeof why), 0);
    s.percentile = 99; CHECK_INT(serve_evaluate(&s, &p99, why, sizeof why), 0);
    CHECK_NEAR(mean.ttft_p_s, mean.ttft_s, 1e-12);
    CHECK(p99.ttft_p_s > mean.ttft_s * 1.05);
    double lim = (mean.ttft_s + p99.ttft_p_s) / 2 * 1e3;
    CHECK(serve_goodput(&mean, lim, 0, 0) > 0);
    CHECK(serve_goodput(&p99, lim, 0, 0) == 0.0);
    s.percentile = 100;
    CHECK_INT(serve_evaluate(&s, &p99, why, sizeof why), -1);
    CHECK_CONTAINS(why, "percentile");
}

/* TensorRT-LLM's PyTorch executor: host work per request per iteration, overlapped with the GPU.  A small
 * model at a large batch is host bound (an iteration costs host_per_seq_s per sequence); attention DP
 * splits the requests over executors and lifts that bound */
static void test_host_bound_iteration(void)
{
    model_shape m = llama8b();
    const serve_engine *t = serve_engine_find("trtllm");
    CHECK(t->host_per_seq_s > 1e-6 && t->overlap_host);
    est_infer_input in;
    est_infer_input_init(&in, &m, gpu_find("b200"));
    in.precision = PREC_FP8;
    in.cuda_graphs = true; in.custom_allreduce = true;
    double gpu_only = est_infer_step_s(&in, 2048, 256, 0, 0);
    in.host_per_seq_s = t->host_per_seq_s; in.overlap_host = true;
    double host = est_infer_step_s(&in, 2048, 256, 0, 0);
    CHECK(host >= 2048 * t->host_per_seq_s);
    CHECK(host >= gpu_only - 1e-3); /* max(GPU, host), the 1 ms fixed host step now overlapped */
    in.attn_dp = 8;
    CHECK(est_infer_step_s(&in, 2048, 256, 0, 0) < host);
    /* without overlap the host adds up */
    in.attn_dp = 1; in.overlap_host = false;
    CHECK(est_infer_step_s(&in, 2048, 256, 0, 0) > host);
}

/* length distributions: a spread of input lengths makes prompt service variable (M/G/1: a longer mean
 * wait) and widens the TTFT percentile; a spread of output lengths widens the end-to-end percentile */
static void test_length_spread(void)
{
    model_shape m = llama8b();
    serve_input s;
    serve_input_init(&s, &m, gpu_find("h100"), serve_engine_find("trtllm"));
    s.concurrency = 0; s.request_rate = 6.0; s.input_len = 2048; s.output_len = 256; s.percentile = 90;
    char why[256];
    serve_result fixed, spread;
    CHECK_INT(serve_evaluate(&s, &fixed, why, sizeof why), 0);
    s.input_cv = 0.5;
    CHECK_INT(serve_evaluate(&s, &spread, why, sizeof why), 0);
    CHECK(spread.ttft_s > fixed.ttft_s);     /* the mean wait behind prompts grows by (1 + c²) */
    CHECK(spread.ttft_p_s > fixed.ttft_p_s); /* and the p90 by the longer prompts */
    CHECK_NEAR(spread.itl_s, fixed.itl_s, 1e-12);
    s.input_cv = 0; s.output_cv = 0.5;
    CHECK_INT(serve_evaluate(&s, &spread, why, sizeof why), 0);
    CHECK(spread.e2e_p_s > fixed.e2e_p_s * 1.3); /* p90 output ~1.64x the mean */
    CHECK_NEAR(spread.ttft_p_s, fixed.ttft_p_s, 1e-12);
    s.output_cv = -1;
    CHECK_INT(serve_evaluate(&s, &spread, why, sizeof why), -1);
    CHECK_CONTAINS(why, "length spreads");
}

/* long prompts that take most of each iteration: the closed loop still obeys Little's law
 * (n = X·e2e) and no latency goes negative, in the slots and beyond them (the fixed point used
 * to stop unsettled there: TTFT of -528 s, and a rate 13x what its own e2e allowed); and where
 * the clipped prompt share makes X·e2e jump (short prompts, 1024 clients, a 512-token budget) the
 * state kept is no further from it than the fixed point's, and its TTFT positive */
static void test_long_prompts_little(void)
{
    model_shape m = llama8b();
    const char *gpus[] = { "a100_80gb", "h100" };
    int ns[] = { 8, 32, 64, 256 };
    for (size_t g = 0; g < sizeof gpus / sizeof *gpus; g++)
        for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
            serve_input s;
            serve_input_init(&s, &m, gpu_find(gpus[g]), serve_engine_find("vllm"));
            s.in.tp = 2, s.concurrency = ns[i], s.input_len = 16000, s.output_len = 256;
            serve_result r;
            CHECK_INT(serve_evaluate(&s, &r, NULL, 0), 0);
            CHECK(r.ttft_s > 0 && r.itl_s > 0 && r.e2e_s > r.ttft_s);
            CHECK_NEAR(r.requests_per_s * r.e2e_s / ns[i], 1.0, 2e-3);
        }
    serve_input s;
    serve_input_init(&s, &m, gpu_find("a100_80gb"), serve_engine_find("vllm"));
    s.concurrency = 1024, s.input_len = 128, s.output_len = 2, s.max_num_batched_tokens = 512;
    serve_result r;
    CHECK_INT(serve_evaluate(&s, &r, NULL, 0), 0);
    CHECK(r.ttft_s > 0 && r.e2e_s >= r.ttft_s);
    CHECK(fabs(r.requests_per_s * r.e2e_s / 1024 - 1.0) <= 0.10); /* 4.53x with the first bisection */
}

int main(void)
{
    ac_err e;
    if (gpu_catalog_load(&e) != 0) { printf("FAIL test_serve: catalog: %s\n", e.msg); return 1; }
    RUN(test_one_client_no_queue);
    RUN(test_concurrency_direction);
    RUN(test_ttft_cliff_when_kv_full);
    RUN(test_fp8_kv_more_concurrency);
    RUN(test_request_rate);
    RUN(test_static_is_the_original_model);
    RUN(test_goodput_and_fit);
    RUN(test_percentiles);
    RUN(test_host_bound_iteration);
    RUN(test_length_spread);
    RUN(test_long_prompts_little);
    CHECK_DONE();
}
