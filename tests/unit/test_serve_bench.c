/* test_serve_bench.c — serving benchmark results in vLLM's real formats: the printed
 * result block (the last one counts, labels in either case) and --save-result JSON;
 * a log without a result block, or with no usable figure, says why. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "results/serve_bench.h"
#include "util/fsutil.h"

static void test_text_block(void)
{
    ac_err e;
    size_t len;
    char *t = fs_read_file("fuzz/corpus/fuzz_serve_bench/text_block.txt", &len, &e);
    CHECK(t != NULL);
    if (!t) return;
    results_serve_metrics m;
    char why[256];
    CHECK_INT(results_serve_bench_parse(t, len, &m, why, sizeof why), 0);
    CHECK_NEAR(m.max_concurrency, 64, 1e-12);
    CHECK_NEAR(m.output_throughput, 1618.97, 1e-12);
    CHECK_NEAR(m.total_token_throughput, 8094.86, 1e-12);
    CHECK_NEAR(m.mean_ttft_ms, 180.42, 1e-12);
    CHECK_NEAR(m.p99_itl_ms, 95.30, 1e-12);
    CHECK_NEAR(m.mean_tpot_ms, 38.61, 1e-12);
    CHECK(isnan(m.mean_e2el_ms));
    free(t);
}

static void test_json(void)
{
    ac_err e;
    size_t len;
    char *t = fs_read_file("fuzz/corpus/fuzz_serve_bench/save_result.json", &len, &e);
    CHECK(t != NULL);
    if (!t) return;
    results_serve_metrics m;
    char why[256];
    CHECK_INT(results_serve_bench_parse(t, len, &m, why, sizeof why), 0);
    CHECK_NEAR(m.request_throughput, 6.32, 1e-12);
    CHECK_NEAR(m.median_ttft_ms, 151.07, 1e-12);
    CHECK_NEAR(m.completed, 640, 1e-12);
    free(t);
}

static void test_last_block_and_failures(void)
{
    const char *two = "============ Serving Benchmark Result ============\nMean TTFT (ms): 10\n"
                      "==================================================\n"
                      "============ Serving Benchmark Result ============\nMean TTFT (ms): 20\n"
                      "Total token throughput (tok/s): 5\n==================================================\n"
                      "Mean TTFT (ms): 99\n";
    results_serve_metrics m;
    char why[256];
    CHECK_INT(results_serve_bench_parse(two, strlen(two), &m, why, sizeof why), 0);
    CHECK_NEAR(m.mean_ttft_ms, 20, 1e-12);
    CHECK_NEAR(m.total_token_throughput, 5, 1e-12);
    const char *none = "Traceback (most recent call last):\n  RuntimeError: CUDA out of memory\n";
    CHECK_INT(results_serve_bench_parse(none, strlen(none), &m, why, sizeof why), -1);
    CHECK_CONTAINS(why, "did not finish");
    const char *empty = "============ Serving Benchmark Result ============\nSuccessful requests: 0\n";
    CHECK_INT(results_serve_bench_parse(empty, strlen(empty), &m, why, sizeof why), -1);
    CHECK_CONTAINS(why, "neither a throughput nor a TTFT");
    CHECK_INT(results_serve_bench_parse("{\"mean_ttft_ms\": -1}", 20, &m, why, sizeof why), -1);
}

int main(void)
{
    RUN(test_text_block);
    RUN(test_json);
    RUN(test_last_block_and_failures);
    CHECK_DONE();
}
