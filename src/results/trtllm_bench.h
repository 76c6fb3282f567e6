/* trtllm_bench.h — the report of TensorRT-LLM's `trtllm-bench throughput`, in both of
 * its real formats (tensorrt_llm/bench/dataclasses/reporting.py, ReportUtility):
 *
 * the printed report: blocks headed by a rule of '=' and "= <TITLE>"; the one that counts
 * is the last "= PERFORMANCE OVERVIEW", whose lines are "Label (unit):   value":
 *   Request Throughput (req/sec):                     221.8002
 *   Total Output Throughput (tokens/sec):             28390.4265
 *   Total Token Throughput (tokens/sec):              56780.8530
 *   Average request latency (ms):                     ...
 *   Average time-to-first-token [TTFT] (ms):          ...   (with --streaming)
 *   Average time-per-output-token [TPOT] (ms):        ...   (with --streaming)
 *   [TPOT] P50    : ...   [TTFT] P99    : ...   [Latency] P90    : ...
 * Older releases print "Token Throughput (tokens/sec):" for the output throughput and
 * "Number of requests:" in the same block.
 *
 * --report_json FILE: {"request_info": {"num_requests": N, ...}, "world_info": {...},
 *   "performance": {"request_throughput_req_s", "system_output_throughput_tok_s",
 *   "system_total_throughput_tok_s", "avg_request_latency_ms",
 *   "request_latency_percentiles_ms": {"p50", "p90", "p95", "p99", "minimum", "maximum",
 *   "average"}}, "streaming_metrics": {"avg_ttft_ms", "avg_tpot_ms", "ttft_percentiles",
 *   "tpot_percentiles"}}.
 *
 * Both fill results_serve_metrics (serve_bench.h): TPOT (trtllm's per-request
 * inter-token latency) goes to the tpot fields, the request latency to e2el, P50 to the
 * medians; what the report lacks stays NAN.
 */
#ifndef AC_RESULTS_TRTLLM_BENCH_H
#define AC_RESULTS_TRTLLM_BENCH_H

#include <stddef.h>

#include "results/serve_bench.h"

/* Text or JSON (the first non-blank byte '{').  0 with *m, or -1 with why (no
 * PERFORMANCE OVERVIEW block / not a report object, or neither a throughput nor a TTFT). */
int results_trtllm_bench_parse(const char *text, size_t len, results_serve_metrics *m, char *why, size_t why_len);

#endif
