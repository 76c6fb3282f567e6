/* validate_page.c — the HTML page of `autoconfig validate --html` (validate_page.h). */
#include "results/validate_page.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/report.h"
#include "results/svg.h"
#include "util/csv.h"
#include "util/strbuf.h"
#include "util/stats.h"

enum { MAX_SOURCES = 24, MAX_MODELS = 60, MAX_BINS = 64, WORST_ROWS = 25 };
static const double BIN_PCT = 5.0;
static const int CHART_W = 1000;

typedef struct {
    const csv_row *row;
    double err_row; /* the row's own error_pct: predicted / published − 1 of what it publishes */
    double err;     /* drawn: predicted / published throughput − 1, percent (positive: predicted faster) */
    int source, model;
} point;

typedef struct {
    int id, source_id, model, gpu, num_gpus, tp, pp, vp, ep, precision, quantity, measured, predicted, error, skip;
} page_cols;

typedef struct {
    const csv_table *t;
    page_cols c;
    point *pts;
    int n, skipped;
    const char *sources[MAX_SOURCES];
    int nsources;
    const char *models[MAX_MODELS + 1]; /* the last slot collects models beyond MAX_MODELS */
    int nmodels;
    double model_median[MAX_MODELS + 1];
    int model_n[MAX_MODELS + 1];
    double lo, hi; /* x domain of both charts, percent */
} page_data;

static int index_of(const char **names, int *n, int cap, const char *name)
{
    for (int i = 0; i < *n; i++)
        if (!strcmp(names[i], name)) return i;
    if (*n < cap) {
        names[*n] = name;
        return (*n)++;
    }
    return cap; /* the overflow slot */
}

static const char *cell(const point *p, int col) { return csv_get(p->row, col); }

static const char *source_colour(int i) { return svg_palette(i); }

/* one entry per source, spaced by the length of its name (~7 px per character at 11 px) */
static void legend(strbuf *b, const page_data *d, double x, double y)
{
    for (int s = 0; s < d->nsources; s++) {
        svg_legend_px(b, x, y, source_colour(s), d->sources[s]);
        x += 30.0 + 7.0 * (double)(strlen(d->sources[s]) < 40 ? strlen(d->sources[s]) : 40);
    }
}

/* signed errors, 5 % bins, stacked by source; ±10 % and ±25 % marked */
static void chart_histogram(strbuf *b, const page_data *d)
{
    int nbins = (int)((d->hi - d->lo) / BIN_PCT);
    if (nbins > MAX_BINS) nbins = MAX_BINS;
    int counts[MAX_BINS][MAX_SOURCES];
    memset(counts, 0, sizeof counts);
    int top = 1;
    for (int i = 0; i < d->n; i++) {
        int k = (int)floor((d->pts[i].err - d->lo) / BIN_PCT);
        k = k < 0 ? 0 : k >= nbins ? nbins - 1 : k; /* the end bins hold everything beyond */
        counts[k][d->pts[i].source]++;
    }
    for (int k = 0; k < nbins; k++) {
        int sum = 0;
        for (int s = 0; s < MAX_SOURCES; s++) sum += counts[k][s];
        if (sum > top) top = sum;
    }
    svg_chart c;
    svg_chart_init(&c, CHART_W, 320);
    c.mt = 30;
    svg_chart_xdomain(&c, d->lo, d->hi);
    svg_chart_ydomain(&c, 0, top);
    svg_chart_begin(b, &c, "chart-error-histogram", "predicted / published throughput \xe2\x88\x92 1 [%]",
                    "published runs");
    char tip[160];
    for (int k = 0; k < nbins; k++) {
        double x0 = svg_scale_map(&c.x, d->lo + k * BIN_PCT), x1 = svg_scale_map(&c.x, d->lo + (k + 1) * BIN_PCT);
        int below = 0;
        for (int s = 0; s < MAX_SOURCES; s++) {
            if (!counts[k][s]) continue;
            double y0 = svg_scale_map(&c.y, below), y1 = svg_scale_map(&c.y, below + counts[k][s]);
            snprintf(tip, sizeof tip, "%s: %d row(s) with error in [%+.0f %%, %+.0f %%)%s", d->sources[s],
                     counts[k][s], d->lo + k * BIN_PCT, d->lo + (k + 1) * BIN_PCT,
                     k == 0 || k == nbins - 1 ? " or beyond" : "");
            svg_rect_px(b, x0 + 0.5, y1, x1 - x0 - 1.0, y0 - y1, source_colour(s), tip);
            below += counts[k][s];
        }
    }
    svg_vline(b, &c, -25, "#9a3412", "-25 %");
    svg_vline(b, &c, 25, "#9a3412", "+25 %");
    svg_vline(b, &c, -10, "#57606a", "-10 %");
    svg_vline(b, &c, 10, "#57606a", "+10 %");
    legend(b, d, c.ml + 8, 14);
    svg_chart_end(b);
}

/* one strip per model, a dot per row at its error */
static void chart_models(strbuf *b, const page_data *d)
{
    int order[MAX_MODELS + 1]; /* largest median error first (insertion sort: at most 61 models) */
    for (int m = 0; m < d->nmodels; m++) {
        int k = m;
        while (k > 0 && d->model_median[order[k - 1]] < d->model_median[m]) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = m;
    }
    const double row_h = 18.0;
    svg_chart c;
    svg_chart_init(&c, CHART_W, (int)(row_h * d->nmodels) + 30 + 46);
    c.ml = 300;
    c.mt = 30;
    svg_chart_xdomain(&c, d->lo, d->hi);
    double x0 = c.ml, x1 = c.w - c.mr, ybot = c.h - c.mb;
    sb_printf(b, "<svg class=\"chart\" id=\"chart-error-by-model\" xmlns=\"http://www.w3.org/2000/svg\" "
                 "viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\">", c.w, c.h, c.w, c.h);
    double ticks[16];
    char num[32];
    int nt = svg_ticks(&c.x, ticks, 16);
    for (int i = 0; i < nt; i++) {
        double px = svg_scale_map(&c.x, ticks[i]);
        sb_printf(b, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", px, ybot, px, (double)c.mt);
        svg_text_px(b, px, ybot + 16, "middle", "tick", svg_fmt_num(num, sizeof num, ticks[i]));
    }
    sb_printf(b, "<path class=\"axis\" d=\"M%.1f %.1fH%.1f\"/>", x0, ybot, x1);
    svg_text_px(b, (x0 + x1) / 2, c.h - 8, "middle", "label", "predicted / published throughput \xe2\x88\x92 1 [%]");
    /* rows in data units from the top: model i spans [i, i + 1) */
    c.y = (svg_scale){.d0 = 0, .d1 = d->nmodels, .p0 = ybot, .p1 = c.mt};
    svg_vline(b, &c, 0, "#57606a", NULL);
    svg_vline(b, &c, -25, "#9a3412", "-25 %");
    svg_vline(b, &c, 25, "#9a3412", "+25 %");
    char label[160], tip[400];
    for (int i = 0; i < d->nmodels; i++) {
        int m = order[i];
        double yc = d->nmodels - i - 0.5;
        snprintf(label, sizeof label, "%.44s (%d)", d->models[m], d->model_n[m]);
        svg_text_px(b, x0 - 8, svg_scale_map(&c.y, yc) + 4, "end", "tick", label);
        for (int k = 0; k < d->n; k++) {
            const point *p = &d->pts[k];
            if (p->model != m) continue;
            double x = p->err < d->lo ? d->lo : p->err > d->hi ? d->hi : p->err;
            snprintf(tip, sizeof tip, "%s %s %s on %s x %s, %s: published %s, predicted %s %s (%+.1f %%)",
                     cell(p, d->c.id), cell(p, d->c.source_id), cell(p, d->c.model), cell(p, d->c.num_gpus),
                     cell(p, d->c.gpu), cell(p, d->c.precision), cell(p, d->c.measured),
                     cell(p, d->c.predicted), cell(p, d->c.quantity), p->err);
            svg_point(b, &c, x, yc, 3.5, source_colour(p->source), tip);
        }
    }
    legend(b, d, x0 + 8, 14);
    sb_add(b, "</svg>\n");
}

static int cmp_abs_err(const void *a, const void *b)
{
    double x = fabs(((const point *)a)->err), y = fabs(((const point *)b)->err);
    return (x < y) - (x > y);
}

static void td(strbuf *b, const char *cls, const char *text)
{
    sb_add(b, cls ? "<td class=\"s\">" : "<td>");
    svg_esc(b, text && *text ? text : "\xe2\x80\x94");
    sb_add(b, "</td>");
}

/* "TP4 PP8 VP4 EP8" from the layout columns the CSV has and the row fills */
static void layout_text(char *out, size_t n, const page_data *d, const point *p)
{
    const struct { const char *name; int col; } parts[] = {
        {"TP", d->c.tp}, {"PP", d->c.pp}, {"VP", d->c.vp}, {"EP", d->c.ep}};
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
        const char *v = cell(p, parts[i].col);
        if (!*v || len >= n) continue;
        int w = snprintf(out + len, n - len, "%s%s%.8s", len ? " " : "", parts[i].name, v);
        if (w > 0) len += (size_t)w;
    }
}

static void table_worst(strbuf *b, const page_data *d)
{
    point *sorted = malloc((size_t)(d->n ? d->n : 1) * sizeof *sorted);
    if (!sorted) {
        b->oom = true;
        return;
    }
    memcpy(sorted, d->pts, (size_t)d->n * sizeof *sorted);
    qsort(sorted, (size_t)d->n, sizeof *sorted, cmp_abs_err);
    sb_add(b, "<div class=\"scroll\"><table><thead><tr><th class=\"s\">id</th><th class=\"s\">source</th>"
              "<th class=\"s\">model</th><th class=\"s\">GPU</th><th>GPUs</th><th class=\"s\">layout</th>"
              "<th class=\"s\">precision</th><th class=\"s\">quantity</th><th>published</th><th>predicted</th>"
              "<th>throughput error %</th></tr></thead><tbody>");
    char layout[96], err[32];
    for (int i = 0; i < d->n && i < WORST_ROWS; i++) {
        const point *p = &sorted[i];
        layout_text(layout, sizeof layout, d, p);
        snprintf(err, sizeof err, "%+.1f", p->err);
        sb_add(b, "<tr>");
        td(b, "s", cell(p, d->c.id));
        td(b, "s", cell(p, d->c.source_id));
        td(b, "s", cell(p, d->c.model));
        td(b, "s", cell(p, d->c.gpu));
        td(b, NULL, cell(p, d->c.num_gpus));
        td(b, "s", layout);
        td(b, "s", cell(p, d->c.precision));
        td(b, "s", cell(p, d->c.quantity));
        td(b, NULL, cell(p, d->c.measured));
        td(b, NULL, cell(p, d->c.predicted));
        td(b, NULL, err);
        sb_add(b, "</tr>");
    }
    sb_add(b, "</tbody></table></div>");
    free(sorted);
}

static int collect(page_data *d, ac_err *e)
{
    const csv_table *t = d->t;
    page_cols *c = &d->c;
    c->id = csv_col(t, "id"); c->source_id = csv_col(t, "source_id"); c->model = csv_col(t, "model");
    c->gpu = csv_col(t, "gpu"); c->num_gpus = csv_col(t, "num_gpus"); c->tp = csv_col(t, "tp");
    c->pp = csv_col(t, "pp"); c->vp = csv_col(t, "vp"); c->ep = csv_col(t, "ep");
    c->precision = csv_col(t, "precision"); c->quantity = csv_col(t, "measured_quantity");
    c->measured = csv_col(t, "measured"); c->predicted = csv_col(t, "predicted");
    c->error = csv_col(t, "error_pct"); c->skip = csv_col(t, "skip_reason");
    if (c->id < 0 || c->source_id < 0 || c->model < 0 || c->error < 0 || c->skip < 0)
        return ac_err_set(e, AC_E_INPUT, "%s: not a validate per-row CSV (needs id, source_id, model, error_pct, skip_reason)",
                          t->file);
    d->pts = malloc((t->n ? t->n : 1) * sizeof *d->pts);
    if (!d->pts) return ac_err_set(e, AC_E_NOMEM, "out of memory");
    double lo = -30, hi = 30;
    for (size_t i = 0; i < t->n; i++) {
        const csv_row *r = &t->rows[i];
        char *end;
        const char *s = csv_get(r, c->error);
        double err = strtod(s, &end);
        if (*csv_get(r, c->skip) || !*s || *end || !isfinite(err)) {
            d->skipped++;
            continue;
        }
        point *p = &d->pts[d->n++];
        p->row = r;
        p->err_row = err;
        /* a row published as a time (step time, latency): its throughput error is
         * published / predicted time − 1 */
        const char *q = csv_get(r, c->quantity);
        bool step = strstr(q, "step") || strstr(q, "latency");
        p->err = step && err > -100.0 ? 100.0 * (1.0 / (1.0 + err / 100.0) - 1.0) : err;
        err = p->err;
        p->source = index_of(d->sources, &d->nsources, MAX_SOURCES, csv_get(r, c->source_id));
        if (p->source == MAX_SOURCES) p->source = MAX_SOURCES - 1; /* past the palette: shares the last colour */
        p->model = index_of(d->models, &d->nmodels, MAX_MODELS, csv_get(r, c->model));
        if (p->model == MAX_MODELS) {
            d->models[MAX_MODELS] = "(other models)";
            d->nmodels = MAX_MODELS + 1;
        }
        if (err < lo) lo = err;
        if (err > hi) hi = err;
    }
    /* multiples of 25 % (ticks at 0 and ±25 %), at most −100 (a prediction of zero) and
     * +200 (three times too fast) */
    d->lo = fmax(-100.0, floor(lo / 25.0) * 25.0);
    d->hi = fmin(200.0, ceil(hi / 25.0) * 25.0);
    double *v = malloc((size_t)(d->n ? d->n : 1) * sizeof *v);
    if (!v) return ac_err_set(e, AC_E_NOMEM, "out of memory");
    for (int m = 0; m < d->nmodels; m++) {
        int k = 0;
        for (int i = 0; i < d->n; i++)
            if (d->pts[i].model == m) v[k++] = d->pts[i].err;
        d->model_n[m] = k;
        d->model_median[m] = k ? stats_quantile(v, (size_t)k, 0.5) : 0.0;
    }
    free(v);
    return 0;
}

/* median and p90 of the rows' own |error|, as fractions; -1 when out of memory */
static int abs_err_quantiles(const page_data *d, double *med, double *p90)
{
    double *v = malloc((size_t)d->n * sizeof *v);
    if (!v) return -1;
    for (int i = 0; i < d->n; i++) v[i] = fabs(d->pts[i].err_row) / 100.0;
    *med = stats_quantile(v, (size_t)d->n, 0.5);
    *p90 = stats_quantile(v, (size_t)d->n, 0.9); /* v is sorted now; the quantile is the same */
    free(v);
    return 0;
}

char *validate_page_html(const char *rows_csv, size_t len, const validate_page_info *info, ac_err *e)
{
    csv_table t;
    if (csv_parse(rows_csv, len, "validate rows", &t, e)) return NULL;
    page_data d = {.t = &t};
    if (collect(&d, e)) {
        free(d.pts);
        csv_free(&t);
        return NULL;
    }
    strbuf b;
    sb_init(&b);
    const char *title = info && info->title ? info->title : "published measurements";
    report_page_head(&b, "autoconfig validate: ", title);
    sb_add(&b, "<h1>Estimator against published measurements</h1><p class=\"sub\">");
    svg_esc(&b, title);
    sb_add(&b, " &mdash; every number on this page is a prediction of autoconfig's estimator set against a "
               "published measurement of the same run.</p>");
    int within10 = 0, within25 = 0;
    for (int i = 0; i < d.n; i++) { /* the rows' own errors, as the median and p90 count them */
        within10 += fabs(d.pts[i].err_row) <= 10.0;
        within25 += fabs(d.pts[i].err_row) <= 25.0;
    }
    sb_printf(&b, "<dl class=\"facts\"><dt>rows predicted</dt><dd>%d</dd><dt>rows skipped</dt><dd>%d "
                  "(what the estimator cannot model or the table does not publish)</dd>", d.n, d.skipped);
    double med = info ? info->median_abs_err : NAN, p90 = info ? info->p90_abs_err : NAN;
    if (!isfinite(med) && d.n && abs_err_quantiles(&d, &med, &p90)) b.oom = true;
    if (isfinite(med))
        sb_printf(&b, "<dt>median |error|</dt><dd>%.1f %%</dd><dt>p90 |error|</dt><dd>%.1f %%</dd>", 100.0 * med,
                  100.0 * p90);
    if (d.n)
        sb_printf(&b, "<dt>within &plusmn;10 %%</dt><dd>%d (%.0f %%)</dd><dt>within &plusmn;25 %%</dt><dd>%d (%.0f %%)</dd>",
                  within10, 100.0 * within10 / d.n, within25, 100.0 * within25 / d.n);
    sb_add(&b, "</dl>\n");
    sb_add(&b, "<section><h2>How far off</h2><p class=\"note\">Rows per 5 % bin of signed error, stacked by source; "
               "the end bins also hold the rows beyond them. Both charts show every row as predicted over published "
               "throughput &minus; 1, so right of zero the estimator is optimistic; for a row published as a time "
               "(step time, latency) that is published over predicted time &minus; 1 (the summary above counts "
               "each row's own quantity).</p>");
    if (d.n) chart_histogram(&b, &d);
    else svg_no_data(&b, "chart-error-histogram", CHART_W, "No data: every row was skipped.");
    sb_add(&b, "</section>\n<section><h2>By model</h2><p class=\"note\">One dot per published run, coloured by "
               "source; models with the largest median error first. Hover a dot for the run.</p>");
    if (d.n) chart_models(&b, &d);
    else svg_no_data(&b, "chart-error-by-model", CHART_W, "No data: every row was skipped.");
    sb_add(&b, "</section>\n<section><h2>Furthest off</h2>");
    table_worst(&b, &d);
    sb_add(&b, "</section>\n</body></html>\n");
    free(d.pts);
    csv_free(&t);
    char *page = sb_take(&b);
    if (!page) ac_err_set(e, AC_E_NOMEM, "out of memory");
    return page;
}
