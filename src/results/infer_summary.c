/* infer_summary.c — inference log parsing, summary CSVs and tables (infer_summary.h). */
#include "results/infer_summary.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/fsutil.h"

enum { FTLOG_MAX_BYTES = 64 << 20 }; /* a benchmark log is a few KiB; refuse absurd files */

results_infer_row results_infer_row_init(int tp, int pp, int bs, int input_len, int output_len, results_infer_source src)
{
    results_infer_row r = { .tp = tp, .pp = pp, .bs = bs, .input_len = input_len, .output_len = output_len, .source = src };
    r.latency_ms = r.thr_per_gpu = r.tokens_per_s = r.mem_gib = r.mem_limit_gib = NAN;
    r.ttft_ms = r.itl_ms = r.requests_per_s = r.total_tok_s_per_gpu = NAN;
    r.pred_ttft_ms = r.pred_itl_ms = r.pred_latency_ms = r.pred_requests_per_s = NAN;
    r.ttft_p_ms = r.itl_p_ms = r.latency_p_ms = NAN;
    r.fits = -1;
    r.status = RES_INFER_OK;
    return r;
}

/* reference §7 inference_summary.py: bs·1000/latency/tp/pp samples per second per GPU */
double results_infer_thr_per_gpu(int bs, double latency_ms, int tp, int pp)
{
    if (!(latency_ms > 0) || tp <= 0 || pp <= 0) return NAN;
    return bs * 1000.0 / latency_ms / tp / pp;
}

/* ours: bs·output_len tokens generated per latency_ms → tokens per second */
double results_infer_tokens_per_s(int bs, int output_len, double latency_ms)
{
    if (!(latency_ms > 0)) return NAN;
    return (double)bs * output_len * 1000.0 / latency_ms;
}

/* Python float(token): optional blanks around a decimal number; no hex */
static bool parse_py_float(const char *tok, size_t n, double *v)
{
    char buf[128];
    while (n && isspace((unsigned char)*tok)) { tok++; n--; }
    while (n && isspace((unsigned char)tok[n - 1])) n--;
    if (n == 0 || n >= sizeof buf) return false;
    memcpy(buf, tok, n);
    buf[n] = '\0';
    if (strpbrk(buf, "xX")) return false;
    char *end;
    *v = strtod(buf, &end);
    return end == buf + n;
}

int results_ftlog_parse(const char *text, size_t len, double *latency_ms, char *reason, size_t rlen)
{
    const size_t tag_len = sizeof RESULTS_FTLOG_TAG - 1;
    size_t i = 0;
    *latency_ms = NAN;
    while (i < len) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text) : len;
        const char *line = text + i;
        size_t ll = end - i;
        bool has = false;
        for (size_t k = 0; k + tag_len <= ll && !has; k++) has = !memcmp(line + k, RESULTS_FTLOG_TAG, tag_len);
        if (has) {
            /* the second-to-last field of split(" "): between the last two spaces */
            const char *last = NULL, *prev = NULL;
            for (size_t k = 0; k < ll; k++)
                if (line[k] == ' ') { prev = last; last = line + k; }
            if (!last) {
                snprintf(reason, rlen, "the %s line has a single field", RESULTS_FTLOG_TAG);
                return -1;
            }
            const char *tok = prev ? prev + 1 : line;
            size_t tn = (size_t)(last - tok);
            double v;
            if (!parse_py_float(tok, tn, &v)) {
                snprintf(reason, rlen, "latency '%.*s' on the %s line is not a number", (int)(tn > 40 ? 40 : tn), tok,
                         RESULTS_FTLOG_TAG);
                return -1;
            }
            if (!isfinite(v) || v <= 0) {
                snprintf(reason, rlen, "latency %g ms on the %s line is not a positive time", v, RESULTS_FTLOG_TAG);
                return -1;
            }
            *latency_ms = v;
            return 0;
        }
        i = end + 1;
    }
    snprintf(reason, rlen, "no line containing %s (the benchmark did not finish)", RESULTS_FTLOG_TAG);
    return -1;
}

static bool is_log_name(const char *name)
{
    size_t n = strlen(name);
    return n >= 11 && !strncmp(name, "log_job", 7) && !strcmp(name + n - 4, ".out");
}

int results_ftlog_read_dir(const char *dir, double *latency_ms, char *reason, size_t rlen)
{
    *latency_ms = NAN;
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(reason, rlen, "missing log: no folder %s", dir);
        return -1;
    }
    char found[4096] = "";
    int count = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!is_log_name(de->d_name)) continue;
        char path[4096];
        struct stat st;
        if (snprintf(path, sizeof path, "%s/%s", dir, de->d_name) >= (int)sizeof path) continue;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        if (count++ == 0) snprintf(found, sizeof found, "%s", path);
    }
    closedir(d);
    if (count == 0) {
        snprintf(reason, rlen, "missing log: no log_job*.out in %s", dir);
        return -1;
    }
    if (count > 1) {
        snprintf(reason, rlen, "%d logs (log_job*.out) in %s, expected exactly one", count, dir);
        return -1;
    }
    struct stat st;
    if (stat(found, &st) == 0 && st.st_size > FTLOG_MAX_BYTES) {
        snprintf(reason, rlen, "log %s is larger than %d MiB", found, FTLOG_MAX_BYTES >> 20);
        return -1;
    }
    ac_err e;
    size_t len;
    char *text = fs_read_file(found, &len, &e);
    if (!text) {
        snprintf(reason, rlen, "unreadable log %s: %s", found, e.msg);
        return -1;
    }
    int rc = results_ftlog_parse(text, len, latency_ms, reason, rlen);
    free(text);
    return rc;
}

void results_infer_row_fail(results_infer_row *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->reason, sizeof r->reason, fmt, ap);
    va_end(ap);
    r->latency_ms = r->thr_per_gpu = r->tokens_per_s = NAN;
    r->status = RES_INFER_FAILED;
}

void results_infer_row_finish(results_infer_row *r, double max_latency_ms)
{
    results_infer_limits l = { max_latency_ms, NAN, NAN };
    results_infer_row_finish_limits(r, &l);
}

/* the row's TTFT, ITL and end-to-end times the limits apply to (ms): with a percentile the
 * times at it, each falling back to its mean where the percentile was not reported; else the means */
static void limited_times(const results_infer_row *r, double v[3])
{
    bool pc = r->percentile > 0;
    v[0] = pc && !isnan(r->ttft_p_ms) ? r->ttft_p_ms : r->ttft_ms;
    v[1] = pc && !isnan(r->itl_p_ms) ? r->itl_p_ms : r->itl_ms;
    v[2] = pc && !isnan(r->latency_p_ms) ? r->latency_p_ms : r->latency_ms;
}

/* the first limit a row misses: TTFT, ITL, then end to end (the original's); 0 when it meets all */
static int missed_limit(const results_infer_row *r, const results_infer_limits *l, char *why, size_t len)
{
    bool pc = r->percentile > 0;
    double v[3];
    limited_times(r, v);
    const struct {
        double v, lim;
        const char *what, *key;
    } L[] = {
        { v[0], l->max_ttft_ms, "TTFT", "max_ttft_ms" },
        { v[1], l->max_itl_ms, "ITL", "max_itl_ms" },
        { v[2], l->max_latency_ms, "latency", "max_latency_ms" },
    };
    char at[16] = "";
    if (pc) snprintf(at, sizeof at, " p%d", r->percentile);
    for (size_t i = 0; i < sizeof L / sizeof *L; i++)
        if (isfinite(L[i].lim) && !(L[i].v <= L[i].lim) && !isnan(L[i].v)) {
            snprintf(why, len, "%s%s %.1f ms > %s %g", L[i].what, at, L[i].v, L[i].key, L[i].lim);
            return 1;
        }
    return 0;
}

/* does-not-fit reason, with how far when the usable memory is known */
static void no_fit(results_infer_row *r)
{
    r->status = RES_INFER_NO_FIT;
    if (isfinite(r->mem_gib) && isfinite(r->mem_limit_gib))
        snprintf(r->reason, sizeof r->reason, "does not fit: %.1f GiB per GPU needed, %.1f GiB usable (%.1f GiB short)",
                 r->mem_gib, r->mem_limit_gib, r->mem_gib - r->mem_limit_gib);
    else if (isfinite(r->mem_gib))
        snprintf(r->reason, sizeof r->reason, "does not fit: %.1f GiB per GPU needed", r->mem_gib);
    else
        snprintf(r->reason, sizeof r->reason, "does not fit in GPU memory");
}

void results_infer_row_finish_limits(results_infer_row *r, const results_infer_limits *l)
{
    if (r->status != RES_INFER_FAILED && r->fits == 0 && !isfinite(r->latency_ms)) {
        /* a model that does not load has no latency: not a failure, a no-fit */
        r->latency_ms = r->thr_per_gpu = r->tokens_per_s = NAN;
        no_fit(r);
        return;
    }
    if (r->status == RES_INFER_FAILED || !(r->latency_ms > 0) || !isfinite(r->latency_ms)) {
        if (!r->reason[0]) snprintf(r->reason, sizeof r->reason, "no latency");
        r->latency_ms = r->thr_per_gpu = r->tokens_per_s = NAN;
        r->status = RES_INFER_FAILED;
        return;
    }
    if (isfinite(r->requests_per_s) && r->tp > 0 && r->pp > 0) {
        /* in-flight batching: requests/s from the steady state, not bs per latency */
        r->thr_per_gpu = r->requests_per_s / r->tp / r->pp;
        r->tokens_per_s = r->requests_per_s * r->output_len;
        r->total_tok_s_per_gpu = r->thr_per_gpu * (r->input_len + r->output_len);
    } else {
        r->thr_per_gpu = results_infer_thr_per_gpu(r->bs, r->latency_ms, r->tp, r->pp);
        r->tokens_per_s = results_infer_tokens_per_s(r->bs, r->output_len, r->latency_ms);
        r->total_tok_s_per_gpu = r->thr_per_gpu * (r->input_len + r->output_len);
    }
    r->status = RES_INFER_OK;
    r->reason[0] = '\0';
    if (r->fits == 0) {
        no_fit(r);
    } else if (missed_limit(r, l, r->reason, sizeof r->reason)) {
        r->status = RES_INFER_OVER_LATENCY;
    }
}

double results_infer_goodput(const results_infer_row *r)
{
    if (r->status == RES_INFER_FAILED) return NAN;
    return r->status == RES_INFER_OK ? r->thr_per_gpu : 0.0;
}

typedef struct {
    results_infer_row row;
    size_t group, index;
} sort_item;

static int cmp_num_desc(double a, double b)
{
    bool na = isnan(a), nb = isnan(b);
    if (na || nb) return na - nb;
    return (a < b) - (a > b);
}

static int cmp_items(const void *pa, const void *pb)
{
    const sort_item *a = pa, *b = pb;
    if (a->group != b->group) return a->group < b->group ? -1 : 1;
    if (a->row.status != b->row.status) return a->row.status < b->row.status ? -1 : 1;
    int c = cmp_num_desc(a->row.thr_per_gpu, b->row.thr_per_gpu);
    if (c) return c;
    c = -cmp_num_desc(a->row.latency_ms, b->row.latency_ms);
    if (c && !isnan(a->row.latency_ms) && !isnan(b->row.latency_ms)) return c;
    if (a->row.tp != b->row.tp) return a->row.tp < b->row.tp ? -1 : 1;
    if (a->row.pp != b->row.pp) return a->row.pp < b->row.pp ? -1 : 1;
    if (a->row.bs != b->row.bs) return a->row.bs < b->row.bs ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

int results_infer_sort(results_infer_row *rows, size_t n, ac_err *e)
{
    if (n < 2) return 0;
    sort_item *it = malloc(sizeof *it * n);
    if (!it) return ac_err_set(e, AC_E_NOMEM, "out of memory sorting %zu inference rows", n);
    size_t groups = 0;
    for (size_t i = 0; i < n; i++) {
        it[i].row = rows[i];
        it[i].index = i;
        it[i].group = groups;
        for (size_t j = 0; j < i; j++)
            if (rows[j].input_len == rows[i].input_len && rows[j].output_len == rows[i].output_len) {
                it[i].group = it[j].group;
                break;
            }
        if (it[i].group == groups) groups++;
    }
    qsort(it, n, sizeof *it, cmp_items);
    for (size_t i = 0; i < n; i++) rows[i] = it[i].row;
    free(it);
    return 0;
}

/* Python's str(round(v, digits)): shortest text that reads back, ".0" on whole numbers */
static void py_round(double v, int digits, char *buf, size_t len)
{
    double p = pow(10, digits);
    v = round(v * p) / p;
    /* fixed notation below 1e16, as Python's repr; fewest decimals that read back */
    if (fabs(v) < 1e16) {
        for (int k = 1; k <= 17; k++) {
            snprintf(buf, len, "%.*f", k, v);
            if (strtod(buf, NULL) == v) break;
        }
    } else {
        snprintf(buf, len, "%.17g", v);
    }
    if (!strpbrk(buf, ".eEn")) strncat(buf, ".0", len - strlen(buf) - 1);
}

static const char *status_name(results_infer_status s)
{
    static const char *const N[] = { "ok", "over_latency", "no_fit", "failed" };
    return (unsigned)s < 4 ? N[s] : "failed";
}

void results_infer_csv_header(strbuf *b)
{
    sb_add(b, "TP,PP,BS,Latency [ms],Throughput per GPU [samples/sec/gpu],Source,Memory per GPU [GiB],Fits,"
              "Tokens per second per instance,Input len,Output len,Concurrency,Precision,TTFT [ms],ITL [ms],"
              "Total tokens per second per GPU,Goodput [requests/sec/gpu],KV cache capacity [sequences per instance],"
              "Request rate [requests/sec per instance],EP,Percentile,TTFT pN [ms],ITL pN [ms],Latency pN [ms],"
              "Predicted TTFT [ms],Predicted ITL [ms],Predicted latency [ms],Predicted throughput per GPU "
              "[requests/sec/gpu],Status,Reason\n");
}

void results_infer_csv_row(strbuf *b, const results_infer_row *r)
{
    char lat[48] = "", thr[48] = "", mem[48] = "", tok[48] = "";
    if (isfinite(r->latency_ms)) py_round(r->latency_ms, 3, lat, sizeof lat);
    if (isfinite(r->thr_per_gpu)) py_round(r->thr_per_gpu, 3, thr, sizeof thr);
    if (isfinite(r->mem_gib)) snprintf(mem, sizeof mem, "%.2f", r->mem_gib);
    if (isfinite(r->tokens_per_s)) snprintf(tok, sizeof tok, "%.1f", r->tokens_per_s);
    char ttft[32] = "", itl[32] = "", tot[32] = "", good[32] = "", kv[16] = "";
    if (isfinite(r->ttft_ms)) snprintf(ttft, sizeof ttft, "%.2f", r->ttft_ms);
    if (isfinite(r->itl_ms)) snprintf(itl, sizeof itl, "%.3f", r->itl_ms);
    if (isfinite(r->total_tok_s_per_gpu)) snprintf(tot, sizeof tot, "%.1f", r->total_tok_s_per_gpu);
    double g = results_infer_goodput(r);
    if (isfinite(g)) snprintf(good, sizeof good, "%.4g", g);
    if (r->kv_capacity > 0) snprintf(kv, sizeof kv, "%d", r->kv_capacity);
    char rate[32] = "", ep[16] = "", pct[16] = "", tp_[32] = "", ip_[32] = "", lp_[32] = "", conc[16] = "";
    if (r->request_rate > 0) snprintf(rate, sizeof rate, "%g", r->request_rate);
    else snprintf(conc, sizeof conc, "%d", r->concurrency > 0 ? r->concurrency : r->bs);
    if (r->ep > 1) snprintf(ep, sizeof ep, "%d", r->ep);
    if (r->percentile > 0) snprintf(pct, sizeof pct, "p%d", r->percentile);
    if (r->percentile > 0 && isfinite(r->ttft_p_ms)) snprintf(tp_, sizeof tp_, "%.2f", r->ttft_p_ms);
    if (r->percentile > 0 && isfinite(r->itl_p_ms)) snprintf(ip_, sizeof ip_, "%.3f", r->itl_p_ms);
    if (r->percentile > 0 && isfinite(r->latency_p_ms)) snprintf(lp_, sizeof lp_, "%.1f", r->latency_p_ms);
    /* a measured row's prediction beside it */
    char pt[32] = "", pi[32] = "", pl[32] = "", pr[32] = "";
    if (isfinite(r->pred_ttft_ms)) snprintf(pt, sizeof pt, "%.2f", r->pred_ttft_ms);
    if (isfinite(r->pred_itl_ms)) snprintf(pi, sizeof pi, "%.3f", r->pred_itl_ms);
    if (isfinite(r->pred_latency_ms)) snprintf(pl, sizeof pl, "%.1f", r->pred_latency_ms);
    if (isfinite(r->pred_requests_per_s) && r->tp > 0 && r->pp > 0)
        snprintf(pr, sizeof pr, "%.4g", r->pred_requests_per_s / r->tp / r->pp);
    sb_printf(b, "%d,%d,%d,%s,%s,%s,%s,%s,%s,%d,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,", r->tp, r->pp,
              r->bs, lat, thr, r->source == RES_INFER_MEASURED ? "measured" : "predicted", mem,
              r->fits < 0 ? "" : r->fits ? "yes" : "no", tok, r->input_len, r->output_len, conc, r->precision, ttft, itl,
              tot, good, kv, rate, ep, pct, tp_, ip_, lp_, pt, pi, pl, pr, status_name(r->status));
    sb_csv_field(b, r->reason, true);
}

static int summary_path(char *buf, size_t len, const char *results_dir, const char *file, bool mkdir, ac_err *e)
{
    char dir[4096];
    if (!results_dir || !*results_dir) return ac_err_set(e, AC_E_INPUT, "inference results_dir is empty");
    if (snprintf(dir, sizeof dir, "%s/inference/final_summary", results_dir) >= (int)sizeof dir)
        return ac_err_set(e, AC_E_INPUT, "inference results_dir is too long");
    if (mkdir && fs_mkdir_p(dir, e) != 0) return -1;
    return fs_join(buf, len, dir, file, e);
}

static int write_sb(const char *path, strbuf *b, ac_err *e)
{
    int rc = fs_write_sb(path, b, e);
    sb_free(b);
    return rc;
}

static size_t block_end(const results_infer_row *rows, size_t n, size_t begin);

/* the figures of one row, as both JSON outputs show them */
static void row_json_fields(json_writer *w, const results_infer_row *r)
{
    json_int(w, "tp", r->tp);
    json_int(w, "pp", r->pp);
    json_int(w, "bs", r->bs);
    json_num(w, "latency_ms", r->latency_ms);
    json_num(w, "throughput_per_gpu", r->thr_per_gpu);
    json_num(w, "tokens_per_s", r->tokens_per_s);
    json_num(w, "memory_per_gpu_gib", r->mem_gib);
    if (r->request_rate > 0) json_num(w, "request_rate_per_instance", r->request_rate);
    else json_int(w, "concurrency", r->concurrency > 0 ? r->concurrency : r->bs);
    if (r->ep > 1) json_int(w, "ep", r->ep);
    if (r->percentile > 0) {
        json_int(w, "percentile", r->percentile);
        json_num(w, "ttft_p_ms", r->ttft_p_ms);
        json_num(w, "itl_p_ms", r->itl_p_ms);
        json_num(w, "latency_p_ms", r->latency_p_ms);
    }
    if (r->precision[0]) json_str(w, "precision", r->precision);
    json_num(w, "ttft_ms", r->ttft_ms);
    json_num(w, "itl_ms", r->itl_ms);
    json_num(w, "total_tokens_per_s_per_gpu", r->total_tok_s_per_gpu);
    json_num(w, "goodput_requests_per_s_per_gpu", results_infer_goodput(r));
    if (r->kv_capacity > 0) json_int(w, "kv_capacity_sequences", r->kv_capacity);
    if (isfinite(r->pred_ttft_ms) || isfinite(r->pred_latency_ms)) {
        json_num(w, "predicted_ttft_ms", r->pred_ttft_ms);
        json_num(w, "predicted_itl_ms", r->pred_itl_ms);
        json_num(w, "predicted_latency_ms", r->pred_latency_ms);
        json_num(w, "predicted_requests_per_s", r->pred_requests_per_s);
    }
}

/* summary.json for the report and scripts: every row (not only the top N) per
 * (input, output) pair, so the latency/throughput frontier and what lies over
 * the limit can be drawn */
static int write_summary_json(const char *path, const results_infer_row *rows, size_t n, const results_infer_limits *l,
                              const char *model, const char *gpu, ac_err *e)
{
    double max_latency_ms = l->max_latency_ms;
    json_file jf;
    if (json_file_begin(&jf, e)) return -1;
    json_writer *w = &jf.w;
    json_obj_open(w, NULL);
    json_str(w, "stage", "inference");
    char ts[32];
    json_utc_now(ts, sizeof ts);
    json_str(w, "generated", ts);
    json_str(w, "source", n && rows[0].source == RES_INFER_MEASURED ? "measured" : "predicted");
    json_str(w, "model", model);
    json_str(w, "gpu", gpu);
    json_num(w, "max_latency_ms", max_latency_ms);
    json_arr_open(w, "pairs");
    for (size_t b = 0; b < n;) {
        size_t end = block_end(rows, n, b);
        json_obj_open(w, NULL);
        json_int(w, "input_len", rows[b].input_len);
        json_int(w, "output_len", rows[b].output_len);
        json_num(w, "max_latency_ms", max_latency_ms);
        /* the serving limits and the percentile they apply to, for the report's goodput frontier */
        if (isfinite(l->max_ttft_ms)) json_num(w, "max_ttft_ms", l->max_ttft_ms);
        if (isfinite(l->max_itl_ms)) json_num(w, "max_itl_ms", l->max_itl_ms);
        if (rows[b].percentile > 0) json_int(w, "percentile", rows[b].percentile);
        json_arr_open(w, "rows");
        for (size_t i = b; i < end; i++) {
            const results_infer_row *r = &rows[i];
            json_obj_open(w, NULL);
            row_json_fields(w, r);
            json_str(w, "status", status_name(r->status));
            if (r->reason[0]) json_str(w, "reason", r->reason);
            json_obj_close(w);
        }
        json_arr_close(w);
        json_obj_close(w);
        b = end;
    }
    json_arr_close(w);
    json_obj_close(w);
    return json_file_commit(&jf, path, e);
}

int results_infer_write_summary(const char *results_dir, const results_infer_row *rows, size_t n, double max_latency_ms,
                                const char *model, const char *gpu, ac_err *e)
{
    results_infer_limits l = { max_latency_ms, NAN, NAN };
    return results_infer_write_summary_limits(results_dir, rows, n, &l, model, gpu, e);
}

int results_infer_write_summary_limits(const char *results_dir, const results_infer_row *rows, size_t n,
                                       const results_infer_limits *l, const char *model, const char *gpu, ac_err *e)
{
    char final_path[4096], over_path[4096], json_path[4096];
    if (summary_path(final_path, sizeof final_path, results_dir, "final_output.csv", true, e) != 0 ||
        summary_path(over_path, sizeof over_path, results_dir, "over_latency_limit.csv", false, e) != 0 ||
        summary_path(json_path, sizeof json_path, results_dir, "summary.json", false, e) != 0)
        return -1;
    if (write_summary_json(json_path, rows, n, l, model, gpu, e) != 0) return -1;
    strbuf a, o;
    sb_init(&a);
    sb_init(&o);
    results_infer_csv_header(&a);
    results_infer_csv_header(&o);
    for (size_t i = 0; i < n; i++) results_infer_csv_row(rows[i].status == RES_INFER_OVER_LATENCY ? &o : &a, &rows[i]);
    if (write_sb(final_path, &a, e) != 0) { sb_free(&o); return -1; }
    return write_sb(over_path, &o, e);
}

int results_infer_write_configs(const char *results_dir, const results_infer_row *rows, size_t n, bool with_lengths,
                                ac_err *e)
{
    char path[4096];
    if (summary_path(path, sizeof path, results_dir, "inference_sweep_configs.csv", true, e) != 0) return -1;
    strbuf b;
    sb_init(&b);
    bool conc = false; /* the serving engines' jobs: one per load */
    for (size_t i = 0; i < n; i++) conc = conc || rows[i].concurrency > 0;
    sb_add(&b, conc ? "TP,PP,BS,Input len,Output len,Concurrency\n" : with_lengths ? "TP,PP,BS,Input len,Output len\n"
                                                                     : "TP,PP,BS\n");
    for (size_t i = 0; i < n; i++) {
        sb_printf(&b, "%d,%d,%d", rows[i].tp, rows[i].pp, rows[i].bs);
        if (with_lengths || conc) sb_printf(&b, ",%d,%d", rows[i].input_len, rows[i].output_len);
        if (conc) sb_printf(&b, ",%d", rows[i].concurrency > 0 ? rows[i].concurrency : rows[i].bs);
        sb_add(&b, "\n");
    }
    return write_sb(path, &b, e);
}

int results_infer_read_configs(const char *path, int default_in, int default_out, results_infer_source src,
                               results_infer_row **out, size_t *n, ac_err *e)
{
    *out = NULL;
    *n = 0;
    size_t len;
    char *text = fs_read_file(path, &len, e);
    if (!text) return -1;
    size_t cap = 1;
    for (size_t i = 0; i < len; i++) cap += text[i] == '\n';
    results_infer_row *rows = malloc(sizeof *rows * cap);
    if (!rows) { free(text); return ac_err_set(e, AC_E_NOMEM, "out of memory"); }
    int line = 0, rc = 0;
    char *save = NULL;
    for (char *ln = strtok_r(text, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
        line++;
        size_t l = strlen(ln);
        if (l && ln[l - 1] == '\r') ln[--l] = '\0';
        if (line == 1 || l == 0) continue; /* header */
        int v[6], k = 0;
        char *p = ln;
        while (k < 6) {
            char *end;
            long x = strtol(p, &end, 10);
            if (end == p || x < 1 || x > 100000000) break;
            v[k++] = (int)x;
            p = end;
            if (*p != ',') break;
            p++;
        }
        if (*p || (k != 3 && k != 5 && k != 6)) {
            rc = ac_err_at(e, AC_E_INPUT, path, line, 0, NULL,
                           "expected TP,PP,BS[,Input len,Output len[,Concurrency]], got '%.80s'", ln);
            break;
        }
        rows[*n] = results_infer_row_init(v[0], v[1], v[2], k >= 5 ? v[3] : default_in, k >= 5 ? v[4] : default_out, src);
        if (k == 6) rows[*n].concurrency = v[5];
        (*n)++;
    }
    free(text);
    if (rc != 0) { free(rows); *n = 0; return -1; }
    *out = rows;
    return 0;
}

/* [begin, end) of the length-pair block starting at begin (rows sorted) */
static size_t block_end(const results_infer_row *rows, size_t n, size_t begin)
{
    size_t j = begin;
    while (j < n && rows[j].input_len == rows[begin].input_len && rows[j].output_len == rows[begin].output_len) j++;
    return j;
}

void results_infer_print(FILE *out, const results_infer_row *rows, size_t n, int top_n, double max_latency_ms)
{
    results_infer_limits l = { max_latency_ms, NAN, NAN };
    results_infer_print_limits(out, rows, n, top_n, &l);
}

/* how far a row is from meeting every limit: the largest value / limit over the limits set (≤ 1: meets all) */
static double limit_excess(const results_infer_row *r, const results_infer_limits *l)
{
    double v[3];
    limited_times(r, v);
    const double lim[] = { l->max_ttft_ms, l->max_itl_ms, l->max_latency_ms };
    double x = 0.0;
    for (int i = 0; i < 3; i++)
        if (isfinite(lim[i]) && !isnan(v[i])) x = fmax(x, v[i] / lim[i]);
    return x;
}

/* nothing meets the limits: name the limit the closest configuration misses and that configuration */
static void print_closest(FILE *out, const results_infer_row *rows, size_t b, size_t e, const results_infer_limits *l)
{
    const results_infer_row *best = NULL;
    for (size_t i = b; i < e; i++)
        if (rows[i].status == RES_INFER_OVER_LATENCY && (!best || limit_excess(&rows[i], l) < limit_excess(best, l)))
            best = &rows[i];
    if (!best) return;
    char load[48];
    if (best->request_rate > 0) snprintf(load, sizeof load, "request rate %g/s", best->request_rate);
    else snprintf(load, sizeof load, "concurrency %d", best->concurrency > 0 ? best->concurrency : best->bs);
    char ep[16] = "";
    if (best->ep > 1) snprintf(ep, sizeof ep, ", EP %d", best->ep);
    fprintf(out, "  No configuration meets the limits: the closest is TP %d, PP %d%s, BS %d, %s%s%s, which misses "
                 "%s; raise that limit or lower the load (smaller batch sizes, concurrency or request rate)\n",
            best->tp, best->pp, ep, best->bs, load, best->precision[0] ? ", " : "", best->precision, best->reason);
}

/* nothing fits: the largest TP x PP searched and how much memory it lacks */
static void print_no_fit(FILE *out, const results_infer_row *rows, size_t b, size_t e)
{
    const results_infer_row *big = NULL;
    for (size_t i = b; i < e; i++) {
        const results_infer_row *r = &rows[i];
        if (r->status != RES_INFER_NO_FIT) continue;
        if (!big || r->tp * r->pp > big->tp * big->pp ||
            (r->tp * r->pp == big->tp * big->pp && r->mem_gib - r->mem_limit_gib < big->mem_gib - big->mem_limit_gib))
            big = r;
    }
    if (!big) return;
    fprintf(out, "  The model does not fit even on the largest TP x PP searched (TP %d x PP %d = %d GPUs): ", big->tp, big->pp,
            big->tp * big->pp);
    if (isfinite(big->mem_gib) && isfinite(big->mem_limit_gib))
        fprintf(out, "%.1f GiB per GPU needed, %.1f GiB usable, %.1f GiB short; add larger TP/PP sizes or fp8\n", big->mem_gib,
                big->mem_limit_gib, big->mem_gib - big->mem_limit_gib);
    else
        fprintf(out, "%s; add larger TP/PP sizes or fp8\n", big->reason);
}

void results_infer_print_limits(FILE *out, const results_infer_row *rows, size_t n, int top_n, const results_infer_limits *l)
{
    for (size_t b = 0; b < n;) {
        size_t e = block_end(rows, n, b);
        size_t cnt[4] = { 0 };
        bool serving = false;
        for (size_t i = b; i < e; i++) {
            cnt[rows[i].status < 4 ? rows[i].status : 3]++;
            serving = serving || isfinite(rows[i].requests_per_s);
        }
        const char *src = rows[b].source == RES_INFER_MEASURED ? "measured" : "predicted";
        fprintf(out, "\nInference: input %d tokens, output %d tokens (%s)", rows[b].input_len, rows[b].output_len, src);
        if (isfinite(l->max_latency_ms)) fprintf(out, ", latency limit %g ms", l->max_latency_ms);
        if (isfinite(l->max_ttft_ms)) fprintf(out, ", TTFT limit %g ms", l->max_ttft_ms);
        if (isfinite(l->max_itl_ms)) fprintf(out, ", ITL limit %g ms", l->max_itl_ms);
        fprintf(out, "\nTop %zu of %zu usable configurations by %s:\n",
                cnt[RES_INFER_OK] < (size_t)(top_n > 0 ? top_n : 0) ? cnt[RES_INFER_OK] : (size_t)(top_n > 0 ? top_n : 0),
                cnt[RES_INFER_OK], serving ? "goodput (requests/s per GPU meeting every limit)" : "throughput per GPU");
        /* with a percentile the times shown are at it, as the limits apply to them */
        int pct = 0;
        bool any_ep = false;
        for (size_t i = b; i < e; i++) {
            if (rows[i].percentile > 0) pct = rows[i].percentile;
            any_ep = any_ep || rows[i].ep > 1;
        }
        char ht[24] = "TTFT ms", hi[24] = "ITL ms", he[24] = "e2e ms";
        if (pct) {
            snprintf(ht, sizeof ht, "TTFT p%d", pct);
            snprintf(hi, sizeof hi, "ITL p%d", pct);
            snprintf(he, sizeof he, "e2e p%d", pct);
        }
        if (serving)
            fprintf(out, "  %4s %4s %3s%s %5s %8s %6s %9s %8s %11s %14s %12s %9s %8s\n", "rank", "TP", "PP", any_ep ? "  EP" : "", "BS",
                    "load", "prec", ht, hi, he, "requests/s/GPU", "out tok/s/GPU", "GiB/GPU", "KV seqs");
        else
            fprintf(out, "  %4s %4s %3s %5s %12s %16s %14s %10s\n", "rank", "TP", "PP", "BS", "latency ms",
                    "samples/s/GPU", "tokens/s/inst", "GiB/GPU");
        int shown = 0;
        for (size_t i = b; i < e && shown < top_n; i++) {
            const results_infer_row *r = &rows[i];
            if (r->status != RES_INFER_OK) continue;
            char mem[24] = "-";
            if (isfinite(r->mem_gib)) snprintf(mem, sizeof mem, "%.1f", r->mem_gib);
            if (serving) {
                char load[24], epc[16] = "";
                if (r->request_rate > 0) snprintf(load, sizeof load, "%g/s", r->request_rate);
                else snprintf(load, sizeof load, "%d", r->concurrency > 0 ? r->concurrency : r->bs);
                if (any_ep) snprintf(epc, sizeof epc, " %3d", r->ep > 1 ? r->ep : 1);
                double v[3];
                limited_times(r, v); /* the times the limits were judged on */
                fprintf(out, "  %4d %4d %3d%s %5d %8s %6s %9.1f %8.2f %11.1f %14.4f %12.1f %9s %8d\n", ++shown, r->tp, r->pp, epc,
                        r->bs, load, r->precision[0] ? r->precision : "-", v[0], v[1], v[2], r->thr_per_gpu,
                        r->tokens_per_s / (r->tp * r->pp), mem, r->kv_capacity);
            } else {
                fprintf(out, "  %4d %4d %3d %5d %12.2f %16.3f %14.1f %10s\n", ++shown, r->tp, r->pp, r->bs, r->latency_ms,
                        r->thr_per_gpu, r->tokens_per_s, mem);
            }
        }
        if (shown == 0) fprintf(out, "  (none)\n");
        if (cnt[RES_INFER_OVER_LATENCY])
            fprintf(out, "  %zu over a latency limit (over_latency_limit.csv)\n", cnt[RES_INFER_OVER_LATENCY]);
        if (shown == 0 && cnt[RES_INFER_OVER_LATENCY]) print_closest(out, rows, b, e, l);
        if (cnt[RES_INFER_NO_FIT]) fprintf(out, "  %zu do not fit in GPU memory\n", cnt[RES_INFER_NO_FIT]);
        if (shown == 0 && !cnt[RES_INFER_OVER_LATENCY] && cnt[RES_INFER_NO_FIT]) print_no_fit(out, rows, b, e);
        if (cnt[RES_INFER_FAILED]) {
            fprintf(out, "  %zu failed:\n", cnt[RES_INFER_FAILED]);
            for (size_t i = b; i < e; i++)
                if (rows[i].status == RES_INFER_FAILED) {
                    /* what tells rows of one layout apart: EP, the load, the precision */
                    const results_infer_row *r = &rows[i];
                    char ep[16] = "", load[32] = "";
                    if (r->ep > 1) snprintf(ep, sizeof ep, " ep %d", r->ep);
                    if (r->request_rate > 0) snprintf(load, sizeof load, " rate %g/s", r->request_rate);
                    else if (r->concurrency > 0) snprintf(load, sizeof load, " conc %d", r->concurrency);
                    fprintf(out, "    tp %d pp %d%s bs %d%s%s%s: %s\n", r->tp, r->pp, ep, r->bs, load, r->precision[0] ? " " : "",
                            r->precision, r->reason);
                }
        }
        b = e;
    }
}

void results_infer_json(json_writer *w, const results_infer_row *rows, size_t n, int top_n)
{
    json_arr_open(w, "tables");
    for (size_t b = 0; b < n;) {
        size_t e = block_end(rows, n, b);
        size_t cnt[4] = { 0 };
        json_obj_open(w, NULL);
        json_int(w, "input_len", rows[b].input_len);
        json_int(w, "output_len", rows[b].output_len);
        json_str(w, "source", rows[b].source == RES_INFER_MEASURED ? "measured" : "predicted");
        json_arr_open(w, "rows");
        int shown = 0;
        for (size_t i = b; i < e; i++) {
            const results_infer_row *r = &rows[i];
            cnt[r->status < 4 ? r->status : 3]++;
            if (r->status != RES_INFER_OK || shown >= top_n) continue;
            shown++;
            json_obj_open(w, NULL);
            row_json_fields(w, r);
            json_obj_close(w);
        }
        json_arr_close(w);
        json_int(w, "usable", (long long)cnt[RES_INFER_OK]);
        json_int(w, "over_latency", (long long)cnt[RES_INFER_OVER_LATENCY]);
        json_int(w, "no_fit", (long long)cnt[RES_INFER_NO_FIT]);
        json_arr_open(w, "failed");
        for (size_t i = b; i < e; i++)
            if (rows[i].status == RES_INFER_FAILED) {
                json_obj_open(w, NULL);
                json_int(w, "tp", rows[i].tp);
                json_int(w, "pp", rows[i].pp);
                json_int(w, "bs", rows[i].bs);
                json_str(w, "reason", rows[i].reason);
                json_obj_close(w);
            }
        json_arr_close(w);
        json_obj_close(w);
        b = e;
    }
    json_arr_close(w);
}

/* "  59.8 (pred 52.1, -13%)" */
static void print_vs(FILE *out, double meas, double pred, const char *fmt)
{
    char m[32] = "-", p[32] = "-", err[16] = "";
    if (isfinite(meas)) snprintf(m, sizeof m, fmt, meas);
    if (isfinite(pred)) snprintf(p, sizeof p, fmt, pred);
    if (isfinite(meas) && isfinite(pred) && meas > 0) {
        double pct = 100.0 * (pred / meas - 1.0);
        if (fabs(pct) < 0.5) snprintf(err, sizeof err, " 0%%");
        else snprintf(err, sizeof err, " %+.0f%%", pct);
    }
    char cell[80];
    snprintf(cell, sizeof cell, "%s (%s%s)", m, p, err);
    fprintf(out, " %24s", cell);
}

void results_infer_print_measured(FILE *out, const results_infer_row *rows, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += rows[i].source == RES_INFER_MEASURED && isfinite(rows[i].pred_latency_ms);
    if (!k) return;
    fprintf(out, "Measured beside predicted (predicted in parentheses, error = predicted / measured - 1):\n");
    fprintf(out, "    TP  PP    BS  conc  in/out    %24s %24s %24s %24s\n", "TTFT ms", "ITL ms", "e2e ms", "requests/s/GPU");
    for (size_t i = 0; i < n; i++) {
        const results_infer_row *r = &rows[i];
        if (r->source != RES_INFER_MEASURED || !isfinite(r->pred_latency_ms)) continue;
        char io[32];
        snprintf(io, sizeof io, "%d/%d", r->input_len, r->output_len);
        fprintf(out, "  %4d %3d %5d %5d  %-9s", r->tp, r->pp, r->bs, r->concurrency > 0 ? r->concurrency : r->bs, io);
        if (r->status == RES_INFER_FAILED) {
            fprintf(out, " failed: %s\n", r->reason);
            continue;
        }
        print_vs(out, r->ttft_ms, r->pred_ttft_ms, "%.1f");
        print_vs(out, r->itl_ms, r->pred_itl_ms, "%.2f");
        print_vs(out, r->latency_ms, r->pred_latency_ms, "%.0f");
        double g = r->tp * r->pp;
        print_vs(out, r->thr_per_gpu, r->pred_requests_per_s / g, "%.3f");
        fputc('\n', out);
    }
}
