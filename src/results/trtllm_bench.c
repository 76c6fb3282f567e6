/* trtllm_bench.c — trtllm-bench's report, text and JSON (trtllm_bench.h). */
#include "results/trtllm_bench.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRT_PERF_HEADER "= PERFORMANCE OVERVIEW"

/* one metric: its printed labels ('|'-separated spellings, lower case, before the colon)
 * and its place in --report_json (section.key[.sub]) */
typedef struct {
    const char *labels, *json;
    size_t off;
} metric;

#define M(labels, json, field) { labels, json, offsetof(results_serve_metrics, field) }
static const metric METRICS[] = {
    M("number of requests", "request_info.num_requests", completed),
    M("request throughput (req/sec)", "performance.request_throughput_req_s", request_throughput),
    M("total output throughput (tokens/sec)|token throughput (tokens/sec)", "performance.system_output_throughput_tok_s",
      output_throughput),
    M("total token throughput (tokens/sec)", "performance.system_total_throughput_tok_s", total_token_throughput),
    M("average time-to-first-token [ttft] (ms)", "streaming_metrics.avg_ttft_ms", mean_ttft_ms),
    M("[ttft] p50", "streaming_metrics.ttft_percentiles.p50", median_ttft_ms),
    M("[ttft] p99", "streaming_metrics.ttft_percentiles.p99", p99_ttft_ms),
    M("average time-per-output-token [tpot] (ms)", "streaming_metrics.avg_tpot_ms", mean_tpot_ms),
    M("[tpot] p50", "streaming_metrics.tpot_percentiles.p50", median_tpot_ms),
    M("[tpot] p99", "streaming_metrics.tpot_percentiles.p99", p99_tpot_ms),
    M("average request latency (ms)", "performance.avg_request_latency_ms", mean_e2el_ms),
    M("[latency] p50", "performance.request_latency_percentiles_ms.p50", median_e2el_ms),
    M("[latency] p99", "performance.request_latency_percentiles_ms.p99", p99_e2el_ms),
    M("[ttft] p90", "streaming_metrics.ttft_percentiles.p90", p90_ttft_ms),
    M("[tpot] p90", "streaming_metrics.tpot_percentiles.p90", p90_tpot_ms),
    M("[latency] p90", "performance.request_latency_percentiles_ms.p90", p90_e2el_ms),
};
#undef M
enum { N_METRICS = sizeof METRICS / sizeof METRICS[0] };

static double *field(results_serve_metrics *m, size_t i) { return (double *)((char *)m + METRICS[i].off); }

/* is label one of the '|'-separated spellings? */
static bool label_is(const char *label, const char *spellings)
{
    size_t ln = strlen(label);
    for (const char *p = spellings; *p;) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if (n == ln && !memcmp(p, label, n)) return true;
        if (!bar) break;
        p = bar + 1;
    }
    return false;
}

/* "Label (unit):   value" (the last colon: labels hold none, "[TTFT] P50    : x" pads before it) */
static void text_line(const char *line, size_t n, results_serve_metrics *m)
{
    const char *colon = NULL;
    for (size_t i = 0; i < n; i++)
        if (line[i] == ':') colon = line + i;
    if (!colon) return;
    size_t ln = (size_t)(colon - line);
    char label[96];
    while (ln && isspace((unsigned char)line[ln - 1])) ln--;
    size_t b = 0;
    while (b < ln && isspace((unsigned char)line[b])) b++;
    if (ln - b >= sizeof label) return;
    for (size_t i = b; i < ln; i++) label[i - b] = (char)tolower((unsigned char)line[i]);
    label[ln - b] = '\0';
    for (size_t i = 0; i < N_METRICS; i++)
        if (label_is(label, METRICS[i].labels)) {
            double v;
            if (results_serve_number(colon + 1, n - (size_t)(colon - line) - 1, &v) == 0) *field(m, i) = v;
            return;
        }
}

static int parse_text(const char *text, size_t len, results_serve_metrics *m, char *why, size_t wlen)
{
    const size_t hl = sizeof TRT_PERF_HEADER - 1;
    size_t start = len;
    for (size_t i = 0; i + hl <= len; i++)
        if (!memcmp(text + i, TRT_PERF_HEADER, hl) && (i == 0 || text[i - 1] == '\n')) start = i;
    if (start == len) {
        snprintf(why, wlen, "no '%s' block in the trtllm-bench output (the benchmark did not finish)", &TRT_PERF_HEADER[2]);
        return -1;
    }
    /* the block's lines until the next "= TITLE" header (a rule of '=' after the block is
     * followed by one) or the end */
    const char *nl = memchr(text + start, '\n', len - start);
    for (size_t i = nl ? (size_t)(nl - text) + 1 : len; i < len;) {
        const char *e = memchr(text + i, '\n', len - i);
        size_t end = e ? (size_t)(e - text) : len, n = end - i;
        if (n >= 2 && text[i] == '=' && text[i + 1] == ' ') break;
        text_line(text + i, n, m);
        i = end + 1;
    }
    return results_serve_usable(m, "trtllm-bench report", why, wlen);
}

/* root["a"]["b"]["c"] for the dotted path */
static const cJSON *json_path(const cJSON *root, const char *path)
{
    const cJSON *n = root;
    char key[64];
    for (const char *p = path; n && *p;) {
        const char *dot = strchr(p, '.');
        size_t k = dot ? (size_t)(dot - p) : strlen(p);
        if (k >= sizeof key) return NULL;
        memcpy(key, p, k);
        key[k] = '\0';
        n = cJSON_IsObject(n) ? cJSON_GetObjectItemCaseSensitive(n, key) : NULL;
        p = dot ? dot + 1 : p + k;
    }
    return n;
}

static int parse_json(const char *text, size_t len, results_serve_metrics *m, char *why, size_t wlen)
{
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
    if (!root || !cJSON_IsObject(root) || !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "performance"))) {
        cJSON_Delete(root);
        snprintf(why, wlen, "the trtllm-bench report is not a JSON object with a \"performance\" section");
        return -1;
    }
    for (size_t i = 0; i < N_METRICS; i++) {
        const cJSON *v = json_path(root, METRICS[i].json);
        if (cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble >= 0) *field(m, i) = v->valuedouble;
    }
    cJSON_Delete(root);
    return results_serve_usable(m, "trtllm-bench report", why, wlen);
}

int results_trtllm_bench_parse(const char *text, size_t len, results_serve_metrics *m, char *why, size_t wlen)
{
    return results_serve_parse_either(text, len, parse_json, parse_text, m, why, wlen);
}
