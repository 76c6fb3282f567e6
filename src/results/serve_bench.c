/* serve_bench.c — serving benchmark output parsing (serve_bench.h). */
#include "results/serve_bench.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "results/trtllm_bench.h"
#include "util/fsutil.h"

#define SERVE_BENCH_HEADER "Serving Benchmark Result"

/* one metric: its text label (lower case, before the colon) and JSON key */
typedef struct {
    const char *label, *key;
    size_t off;
} metric;

#define M(label, key, field) { label, key, offsetof(results_serve_metrics, field) }
static const metric METRICS[] = {
    M("successful requests", "completed", completed),
    M("maximum request concurrency", "max_concurrency", max_concurrency),
    M("request throughput (req/s)", "request_throughput", request_throughput),
    M("output token throughput (tok/s)", "output_throughput", output_throughput),
    M("total token throughput (tok/s)", "total_token_throughput", total_token_throughput),
    M("mean ttft (ms)", "mean_ttft_ms", mean_ttft_ms),
    M("median ttft (ms)", "median_ttft_ms", median_ttft_ms),
    M("p99 ttft (ms)", "p99_ttft_ms", p99_ttft_ms),
    M("mean tpot (ms)", "mean_tpot_ms", mean_tpot_ms),
    M("median tpot (ms)", "median_tpot_ms", median_tpot_ms),
    M("p99 tpot (ms)", "p99_tpot_ms", p99_tpot_ms),
    M("mean itl (ms)", "mean_itl_ms", mean_itl_ms),
    M("median itl (ms)", "median_itl_ms", median_itl_ms),
    M("p99 itl (ms)", "p99_itl_ms", p99_itl_ms),
    M("mean e2el (ms)", "mean_e2el_ms", mean_e2el_ms),
    M("median e2el (ms)", "median_e2el_ms", median_e2el_ms),
    M("p99 e2el (ms)", "p99_e2el_ms", p99_e2el_ms),
    M("p90 ttft (ms)", "p90_ttft_ms", p90_ttft_ms),
    M("p90 tpot (ms)", "p90_tpot_ms", p90_tpot_ms),
    M("p90 itl (ms)", "p90_itl_ms", p90_itl_ms),
    M("p90 e2el (ms)", "p90_e2el_ms", p90_e2el_ms),
};
#undef M
enum { N_METRICS = sizeof METRICS / sizeof METRICS[0] };

static double *field(results_serve_metrics *m, size_t i) { return (double *)((char *)m + METRICS[i].off); }

void results_serve_clear(results_serve_metrics *m)
{
    double *v = &m->completed;
    for (size_t i = 0; i < sizeof *m / sizeof *v; i++) v[i] = NAN;
}

int results_serve_usable(const results_serve_metrics *m, const char *what, char *why, size_t len)
{
    if (isfinite(m->output_throughput) || isfinite(m->request_throughput) || isfinite(m->mean_ttft_ms)) return 0;
    snprintf(why, len, "the %s has neither a throughput nor a TTFT", what);
    return -1;
}

int results_serve_number(const char *s, size_t n, double *v)
{
    char buf[64];
    while (n && isspace((unsigned char)*s)) { s++; n--; }
    while (n && isspace((unsigned char)s[n - 1])) n--;
    if (!n || n >= sizeof buf) return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *end;
    double x = strtod(buf, &end);
    if (end != buf + n || !isfinite(x) || x < 0) return -1;
    *v = x;
    return 0;
}

/* "Label (unit):   value" → the metric it names; lines of other labels are ignored */
static void text_line(const char *line, size_t n, results_serve_metrics *m)
{
    const char *colon = memchr(line, ':', n);
    if (!colon) return;
    size_t ln = (size_t)(colon - line);
    char label[96];
    while (ln && isspace((unsigned char)line[ln - 1])) ln--;
    if (ln >= sizeof label) return;
    for (size_t i = 0; i < ln; i++) label[i] = (char)tolower((unsigned char)line[i]);
    label[ln] = '\0';
    for (size_t i = 0; i < N_METRICS; i++)
        if (!strcmp(label, METRICS[i].label)) {
            double v;
            if (results_serve_number(colon + 1, n - (size_t)(colon - line) - 1, &v) == 0) *field(m, i) = v;
            return;
        }
}

static int parse_text(const char *text, size_t len, results_serve_metrics *m, char *why, size_t wlen)
{
    /* the last result block: its header, then lines until a line of '=' only */
    const size_t hl = sizeof SERVE_BENCH_HEADER - 1;
    size_t start = len;
    for (size_t i = 0; i + hl <= len; i++)
        if (!memcmp(text + i, SERVE_BENCH_HEADER, hl)) start = i;
    if (start == len) {
        snprintf(why, wlen, "no '%s' block (the benchmark did not finish)", SERVE_BENCH_HEADER);
        return -1;
    }
    const char *nl = memchr(text + start, '\n', len - start);
    for (size_t i = nl ? (size_t)(nl - text) + 1 : len; i < len;) {
        const char *e = memchr(text + i, '\n', len - i);
        size_t end = e ? (size_t)(e - text) : len, n = end - i;
        size_t eq = 0;
        while (eq < n && text[i + eq] == '=') eq++;
        if (n && eq == n) break; /* the closing rule */
        text_line(text + i, n, m);
        i = end + 1;
    }
    return results_serve_usable(m, "serving benchmark result", why, wlen);
}

static int parse_json(const char *text, size_t len, results_serve_metrics *m, char *why, size_t wlen)
{
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
    if (!root || !cJSON_IsObject(root)) {
        cJSON_Delete(root);
        snprintf(why, wlen, "the serving benchmark result is not a JSON object");
        return -1;
    }
    for (size_t i = 0; i < N_METRICS; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, METRICS[i].key);
        if (cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble >= 0) *field(m, i) = v->valuedouble;
    }
    cJSON_Delete(root);
    return results_serve_usable(m, "serving benchmark result", why, wlen);
}

int results_serve_parse_either(const char *text, size_t len, results_serve_parser json, results_serve_parser plain,
                               results_serve_metrics *m, char *why, size_t wlen)
{
    results_serve_clear(m);
    size_t i = 0;
    while (i < len && isspace((unsigned char)text[i])) i++;
    if (i < len && text[i] == '{') return json(text + i, len - i, m, why, wlen);
    return plain(text, len, m, why, wlen);
}

int results_serve_bench_parse(const char *text, size_t len, results_serve_metrics *m, char *why, size_t wlen)
{
    return results_serve_parse_either(text, len, parse_json, parse_text, m, why, wlen);
}

/* ---- a job folder's result (serve_bench.h) ---- */

enum { SERVE_LOG_MAX_BYTES = 64 << 20 };

/* the text of a file no larger than the cap, or NULL */
static char *read_capped(const char *path, size_t *len)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > SERVE_LOG_MAX_BYTES) return NULL;
    ac_err e;
    return fs_read_file(path, len, &e);
}

/* the last line of text holding "Error" (Python's exception lines: ValueError, OutOfMemoryError, ...) */
static bool last_error_line(const char *text, size_t len, char *out, size_t olen)
{
    bool found = false;
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text) : len, n = end - i;
        for (size_t k = 0; k + 5 <= n; k++)
            if (!memcmp(text + i + k, "Error", 5)) {
                size_t m = n < olen - 1 ? n : olen - 1;
                for (size_t c = 0; c < m; c++) {
                    unsigned char ch = (unsigned char)text[i + c];
                    out[c] = ch < 0x20 || ch == 0x7f ? ' ' : (char)ch;
                }
                out[m] = '\0';
                found = true;
                break;
            }
        i = end + 1;
    }
    return found;
}

int results_serve_read_job(const char *dir, bool trtllm, results_serve_metrics *m, char *why, size_t wlen)
{
    results_serve_parser parse = trtllm ? results_trtllm_bench_parse : results_serve_bench_parse;
    const char *file = trtllm ? "report.json" : "result.json";
    char path[4096], first[256] = "";
    size_t len = 0;
    if (snprintf(path, sizeof path, "%s/%s", dir, file) >= (int)sizeof path) {
        snprintf(why, wlen, "job folder path too long");
        return -1;
    }
    char *text = read_capped(path, &len);
    if (text) {
        int rc = parse(text, len, m, first, sizeof first);
        free(text);
        if (rc == 0) return 0;
    }
    /* no result file: the printed report in the job's log, else the error the engine printed */
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(why, wlen, "missing result: no folder %s", dir);
        return -1;
    }
    char err_line[200] = "";
    int ok = -1;
    /* a folder run more than once keeps every job's logs: only the newest job's count */
    char newest_out[256] = "", newest_err[256] = "";
    double t_out = -1, t_err = -1;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t n = strlen(de->d_name);
        bool job_log = n > 11 && n < sizeof newest_out && !strncmp(de->d_name, "log_job", 7);
        bool is_out = job_log && !strcmp(de->d_name + n - 4, ".out"), is_err = job_log && !strcmp(de->d_name + n - 4, ".err");
        struct stat st;
        if ((!is_out && !is_err) || snprintf(path, sizeof path, "%s/%s", dir, de->d_name) >= (int)sizeof path ||
            stat(path, &st) != 0)
            continue;
        double t = (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec * 1e-9;
        if (is_out && t > t_out) { t_out = t; snprintf(newest_out, sizeof newest_out, "%s", de->d_name); }
        if (is_err && t > t_err) { t_err = t; snprintf(newest_err, sizeof newest_err, "%s", de->d_name); }
    }
    rewinddir(d);
    while ((de = readdir(d))) {
        bool out = newest_out[0] && !strcmp(de->d_name, newest_out);
        bool err = newest_err[0] && !strcmp(de->d_name, newest_err);
        bool server = !strcmp(de->d_name, "vllm_server.log");
        if (!out && !err && !server) continue;
        if (snprintf(path, sizeof path, "%s/%s", dir, de->d_name) >= (int)sizeof path) continue;
        text = read_capped(path, &len);
        if (!text) continue;
        char w[256];
        if (out && ok != 0 && parse(text, len, m, w, sizeof w) == 0) ok = 0;
        char line[200];
        if ((err || server || !err_line[0]) && last_error_line(text, len, line, sizeof line))
            snprintf(err_line, sizeof err_line, "%s", line);
        free(text);
    }
    closedir(d);
    if (ok == 0) return 0;
    if (err_line[0]) snprintf(why, wlen, "%s failed: %s", trtllm ? "trtllm-bench" : "vllm", err_line);
    else if (first[0]) snprintf(why, wlen, "%s: %s", file, first);
    else snprintf(why, wlen, "no result: no %s and no result block in the job's log (has the job run?)", file);
    return -1;
}
