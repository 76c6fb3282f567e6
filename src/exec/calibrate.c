/* calibrate.c — see calibrate.h.  The fit is a nested golden-section search
 * (Kiefer 1953): the outer one over log(compute_scale), the inner one over
 * step_overhead_s for that scale.  Both objectives are smooth and unimodal in
 * practice (step time is a sum of terms each monotone in the constant), and an
 * estimator call costs about a microsecond, so a few thousand calls per run are
 * cheaper than deriving gradients through every roofline. */
#include "exec/calibrate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/yaml_io.h"
#include "results/ledger.h"
#include "search/candidate_est.h"
#include "util/csv.h"
#include "util/fsutil.h"
#include "util/stats.h"
#include "util/strbuf.h"

/* search ranges: a cluster at a tenth to three times the catalog's rate; an
 * overhead between none and the fastest measured step */
#define SCALE_MIN 0.1
#define SCALE_MAX 3.0
#define GOLDEN_ITERS 48 /* interval shrinks by 0.618^48 ≈ 1e-10 */
#define MIN_RUNS_FOR_OVERHEAD 3
/* a fixed overhead and a rate scale are told apart only by runs of different
 * length: with every predicted step within this ratio they trade off freely
 * and noise would decide the split */
#define MIN_SPREAD_FOR_OVERHEAD 1.5

typedef struct {
    est_input *in;   /* per run, in->cal points at trial */
    double *measured;
    size_t n;
    est_cal trial;
    /* the outer search's view of the overhead */
    bool fit_overhead;
    double overhead_max, fixed_overhead;
    double best_overhead; /* the inner optimum at the last outer point */
} fit_ctx;

/* Σ log(pred/meas)²; INFINITY when a candidate stops evaluating */
static double objective(fit_ctx *f, double scale, double overhead)
{
    f->trial.compute_scale = scale;
    f->trial.step_overhead_s = overhead;
    double sum = 0;
    for (size_t i = 0; i < f->n; i++) {
        est_result r;
        if (est_evaluate(&f->in[i], &r) < 0 || !(r.step_time > 0)) return INFINITY;
        double d = log(r.step_time / f->measured[i]);
        sum += d * d;
    }
    return sum;
}

typedef double (*fn1)(fit_ctx *f, double x, double other);

static double golden_min(fit_ctx *f, fn1 fn, double other, double lo, double hi, double *best_val)
{
    const double g = 0.6180339887498949;
    double a = lo, b = hi, c = b - g * (b - a), d = a + g * (b - a);
    double fc = fn(f, c, other), fd = fn(f, d, other);
    for (int i = 0; i < GOLDEN_ITERS; i++) {
        if (fc <= fd) { b = d; d = c; fd = fc; c = b - g * (b - a); fc = fn(f, c, other); }
        else { a = c; c = d; fc = fd; d = a + g * (b - a); fd = fn(f, d, other); }
    }
    double x = (a + b) / 2;
    *best_val = fn(f, x, other);
    return x;
}

/* inner: overhead for a fixed scale (other = scale) */
static double by_overhead(fit_ctx *f, double overhead, double scale) { return objective(f, scale, overhead); }

/* outer: log scale; the inner optimum over the overhead (or the fixed one) */
static double by_log_scale(fit_ctx *f, double log_scale, double unused)
{
    (void)unused;
    double s = exp(log_scale), val;
    if (!f->fit_overhead) return objective(f, s, f->fixed_overhead);
    f->best_overhead = golden_min(f, by_overhead, s, 0.0, f->overhead_max, &val);
    return val;
}

static double median_abs_err_pct(const calib_run *runs, size_t n, int after)
{
    double *v = malloc(n * sizeof *v);
    if (!v) return NAN;
    for (size_t i = 0; i < n; i++)
        v[i] = 100.0 * fabs((after ? runs[i].after_s : runs[i].before_s) / runs[i].measured_s - 1.0);
    double m = stats_quantile(v, n, 0.5);
    free(v);
    return m;
}

void calib_free(calib_result *r)
{
    free(r->runs);
    r->runs = NULL;
    r->n_runs = 0;
}

/* predicted step times of every run with constants cal into field (before/after) */
static void predict_all(fit_ctx *f, const est_cal *cal, calib_result *r, int after)
{
    f->trial = *cal;
    for (size_t i = 0; i < r->n_runs; i++) {
        est_result er;
        double t = est_evaluate(&f->in[i], &er) == 0 ? er.step_time : NAN;
        if (after) r->runs[i].after_s = t;
        else r->runs[i].before_s = t;
    }
}

int calib_fit(const char *logs_dir, const char *gpu_name, const est_cal *start, calib_result *r, ac_err *e)
{
    memset(r, 0, sizeof *r);
    if (gpu_catalog_load(e) < 0) return -1;
    const gpu_spec *gpu = gpu_find(gpu_name);
    if (!gpu) return ac_err_set(e, AC_E_INPUT, "unknown GPU '%s'", gpu_name);
    snprintf(r->gpu, sizeof r->gpu, "%s", gpu->name);
    ledger *l = ledger_open_existing(logs_dir, e);
    if (!l) return -1;
    ledger_row *rows = NULL;
    size_t n = 0;
    int rc = ledger_list(l, &rows, &n, e);
    ledger_close(l);
    if (rc) return -1;

    fit_ctx f = { .trial = *start };
    f.in = calloc(n ? n : 1, sizeof *f.in);
    f.measured = calloc(n ? n : 1, sizeof *f.measured);
    r->runs = calloc(n ? n : 1, sizeof *r->runs);
    if (!f.in || !f.measured || !r->runs) { rc = ac_err_set(e, AC_E_NOMEM, "out of memory"); goto done; }
    size_t n_failed = 0, n_open = 0, n_gone = 0;
    char first_gone[300] = "";
    for (size_t i = 0; i < n; i++) {
        const ledger_row *row = &rows[i];
        if (row->state == LEDGER_FAILED) { n_failed++; continue; }
        if (row->state != LEDGER_DONE || !(row->step_time_s > 0)) { n_open++; continue; }
        ac_err ce;
        node *cfg = yaml_load_file(row->config_path, &ce);
        est_input in;
        int ok = cfg && candidate_est_from_nemo(cfg, gpu, &in, &ce) == 0;
        node_free(cfg);
        est_result er;
        if (ok) { in.cal = &f.trial; ok = est_evaluate(&in, &er) == 0; }
        if (!ok) {
            if (!n_gone++) snprintf(first_gone, sizeof first_gone, "%.280s", row->config_path);
            continue;
        }
        f.in[f.n] = in;
        f.measured[f.n] = row->step_time_s;
        snprintf(r->runs[f.n].name, sizeof r->runs[f.n].name, "%s", row->name);
        r->runs[f.n].measured_s = row->step_time_s;
        f.n++;
    }
    r->n_runs = f.n;
    r->n_unused = n - f.n;
    if (f.n == 0) {
        rc = ac_err_set(e, AC_E_INPUT,
                        "%s: no measured run to calibrate on (%zu in the ledger: %zu failed, %zu unfinished, %zu whose "
                        "config cannot be read%s%s)", logs_dir, n, n_failed, n_open, n_gone, n_gone ? ", e.g. " : "",
                        first_gone);
        goto done;
    }

    r->before = *start;
    predict_all(&f, start, r, 0);
    double fastest = INFINITY;
    for (size_t i = 0; i < f.n; i++) fastest = fmin(fastest, f.measured[i]);
    f.overhead_max = fastest;
    double pmin = INFINITY, pmax = 0;
    for (size_t i = 0; i < f.n; i++) { pmin = fmin(pmin, r->runs[i].before_s); pmax = fmax(pmax, r->runs[i].before_s); }
    f.fit_overhead = f.n >= MIN_RUNS_FOR_OVERHEAD && pmax >= MIN_SPREAD_FOR_OVERHEAD * pmin;
    f.fixed_overhead = start->step_overhead_s;
    double val;
    double log_s = golden_min(&f, by_log_scale, 0.0, log(SCALE_MIN), log(SCALE_MAX), &val);
    r->after = *start;
    r->after.compute_scale = exp(log_s);
    /* the overhead that goes with the final scale (the outer search's last point is another one) */
    r->after.step_overhead_s = f.fit_overhead
                                   ? golden_min(&f, by_overhead, r->after.compute_scale, 0.0, f.overhead_max, &val)
                                   : start->step_overhead_s;
    r->fitted_overhead = f.fit_overhead;
    if (!isfinite(val)) { rc = ac_err_set(e, AC_E_INTERNAL, "calibration: the estimator failed during the fit"); goto done; }
    predict_all(&f, &r->after, r, 1);
    r->median_err_before = median_abs_err_pct(r->runs, r->n_runs, 0);
    r->median_err_after = median_abs_err_pct(r->runs, r->n_runs, 1);
done:
    free(f.in);
    free(f.measured);
    free(rows);
    if (rc) calib_free(r);
    return rc;
}

/* the fitted keys: the rows calib_write replaces in an existing file */
static const char *const FITTED[] = { "compute_scale", "step_overhead_s" };

int calib_write(const char *path, const calib_result *r, const char *logs_dir, ac_err *e)
{
    strbuf b;
    sb_init(&b);
    char ts[32];
    time_t now = time(NULL);
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    sb_printf(&b, "# written by autoconfig calibrate %s: fitted to %zu measured runs of %s on %s\n"
                  "# median |predicted/measured - 1|: %.1f%% before, %.1f%% after. Rows not listed keep the compiled-in\n"
                  "# constants (data/calibration.csv). Delete this file to go back to them.\nkey,value,reason\n",
              ts, r->n_runs, logs_dir, r->gpu, r->median_err_before, r->median_err_after);
    /* rows of an earlier file at this path that are not refitted stay */
    if (fs_exists(path)) {
        csv_table t;
        if (csv_read_file(path, &t, e)) { sb_free(&b); return -1; }
        int kc = csv_col(&t, "key"), vc = csv_col(&t, "value"), rc_ = csv_col(&t, "reason");
        for (size_t i = 0; kc >= 0 && vc >= 0 && i < t.n; i++) {
            const char *k = csv_get(&t.rows[i], kc);
            bool fitted = false;
            for (size_t j = 0; j < sizeof FITTED / sizeof *FITTED; j++) fitted |= !strcmp(k, FITTED[j]);
            if (fitted || strpbrk(k, ",\"\n")) continue;
            const char *why = csv_get(&t.rows[i], rc_);
            sb_printf(&b, "%s,%s,\"", k, csv_get(&t.rows[i], vc));
            for (const char *p = why; *p; p++) sb_printf(&b, *p == '"' ? "\"\"" : "%c", *p);
            sb_add(&b, "\"\n");
        }
        csv_free(&t);
    }
    sb_printf(&b, "compute_scale,%.6g,\"fitted: least squares on log step time over %zu measured runs (was %.6g)\"\n",
              r->after.compute_scale, r->n_runs, r->before.compute_scale);
    if (r->fitted_overhead)
        sb_printf(&b, "step_overhead_s,%.6g,\"fitted with compute_scale (was %.6g)\"\n", r->after.step_overhead_s,
                  r->before.step_overhead_s);
    else
        sb_printf(&b, "step_overhead_s,%.6g,\"kept: separable from compute_scale only with %d runs whose predicted "
                      "steps differ %.1fx\"\n", r->after.step_overhead_s, MIN_RUNS_FOR_OVERHEAD, MIN_SPREAD_FOR_OVERHEAD);
    int rc = b.oom ? ac_err_set(e, AC_E_NOMEM, "out of memory") : fs_write_atomic(path, b.s, b.len, e);
    sb_free(&b);
    return rc;
}
