/* serve_bench.h — results of a serving benchmark run, as the engines print them.
 *
 * vLLM's serving benchmark (`vllm bench serve`, formerly benchmarks/benchmark_serving.py;
 * also what TensorRT-LLM's docs run against trtllm-serve) prints a block
 *   ============ Serving Benchmark Result ============
 *   Successful requests:                     1000
 *   Maximum request concurrency:             64
 *   Request throughput (req/s):              17.61
 *   Output token throughput (tok/s):         3493.28
 *   Total Token throughput (tok/s):          7283.53
 *   ---------------Time to First Token----------------
 *   Mean TTFT (ms):                          245.23
 *   ...  Median / P99 TTFT, TPOT, ITL, E2EL lines
 *   ==================================================
 * and with --save-result a JSON object with request_throughput, output_throughput,
 * total_token_throughput, max_concurrency, completed, mean_ttft_ms, median_ttft_ms,
 * p99_ttft_ms, mean_tpot_ms, ..., mean_itl_ms, ..., mean_e2el_ms.  Labels are matched
 * without regard to case (versions differ: "Total Token" / "Total token"); the last
 * result block of a log counts.  Unknown lines are ignored.
 */
#ifndef AC_RESULTS_SERVE_BENCH_H
#define AC_RESULTS_SERVE_BENCH_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    double completed, max_concurrency;           /* requests; NAN unknown */
    double request_throughput, output_throughput, total_token_throughput; /* per second, all GPUs */
    double mean_ttft_ms, median_ttft_ms, p99_ttft_ms;
    double mean_tpot_ms, median_tpot_ms, p99_tpot_ms;
    double mean_itl_ms, median_itl_ms, p99_itl_ms;
    double mean_e2el_ms, median_e2el_ms, p99_e2el_ms;
    double p90_ttft_ms, p90_tpot_ms, p90_itl_ms, p90_e2el_ms; /* with --metric-percentiles 90 / trtllm's P90 */
} results_serve_metrics;

/* Text or JSON (the first non-blank byte '{').  0 with *m (NAN for what the output lacks),
 * or -1 with why: no result block / object, or neither a throughput nor a TTFT in it. */
int results_serve_bench_parse(const char *text, size_t len, results_serve_metrics *m, char *why, size_t why_len);

/* shared by the engines' parsers (serve_bench.c, trtllm_bench.c): every metric NAN; 0 when a
 * parsed result holds a throughput or a TTFT, else -1 with why naming what ("the <what> has
 * neither ..."); a finite non-negative number with nothing but blanks around it in s[0..n) */
void results_serve_clear(results_serve_metrics *m);
int results_serve_usable(const results_serve_metrics *m, const char *what, char *why, size_t why_len);
/* an engine's output read by its JSON parser when its first non-blank byte is '{', else by its
 * text parser, into *m cleared first */
typedef int (*results_serve_parser)(const char *text, size_t len, results_serve_metrics *m, char *why, size_t why_len);
int results_serve_parse_either(const char *text, size_t len, results_serve_parser json, results_serve_parser plain,
                               results_serve_metrics *m, char *why, size_t why_len);
int results_serve_number(const char *s, size_t n, double *v);

/* One job folder of the measured path (exec/serve_job.h): result.json (vLLM) or report.json
 * (trtllm-bench), else the result block printed in its log_job*.out.  0 with *m, or -1
 * with why: the last line naming an error in the job's logs ("vllm failed: ValueError:
 * ..."), or that there is no result. */
int results_serve_read_job(const char *dir, bool trtllm, results_serve_metrics *m, char *why, size_t why_len);

#endif
