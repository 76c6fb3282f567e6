/* tally.c — prediction errors by group and skips by reason (tally.h) */
#include "validate/tally.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/stats.h"

err_group *err_group_get(err_group **list, size_t *n, const char *name)
{
    if (!name[0]) name = "(none)";
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*list)[i].name, name)) return &(*list)[i];
    err_group *grown = realloc(*list, (*n + 1) * sizeof *grown);
    if (!grown) return NULL;
    *list = grown;
    err_group *g = &grown[(*n)++];
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", name);
    return g;
}

int err_group_push(err_group *g, double abs_err, double signed_err)
{
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 32;
        double *a = realloc(g->err, cap * sizeof *a);
        if (!a) return -1;
        g->err = a;
        double *b = realloc(g->signed_err, cap * sizeof *b);
        if (!b) return -1;
        g->signed_err = b;
        g->cap = cap;
    }
    g->err[g->n] = abs_err;
    g->signed_err[g->n++] = signed_err;
    return 0;
}

/* the q-quantile of n values, sorting a copy in tmp (NAN when empty) */
static double quantile_of(const double *v, size_t n, double q, double *tmp)
{
    if (!n) return NAN;
    memcpy(tmp, v, n * sizeof *tmp);
    return stats_quantile(tmp, n, q);
}

void err_group_quantiles(const err_group *g, double *tmp, double *median, double *p90)
{
    *median = quantile_of(g->err, g->n, 0.5, tmp);
    *p90 = quantile_of(g->err, g->n, 0.9, tmp);
}

void err_group_free(err_group *g)
{
    free(g->err);
    free(g->signed_err);
    g->err = g->signed_err = NULL;
    g->n = g->cap = 0;
}

void err_groups_free(err_group *list, size_t n)
{
    for (size_t k = 0; k < n; k++) err_group_free(&list[k]);
    free(list);
}

void err_groups_print(FILE *out, json_writer *w, const char *label, const char *json_key, const char *json_name,
                      const err_group *groups, size_t n, int min_width, bool with_skipped, double *tmp)
{
    if (w) {
        json_arr_open(w, json_key);
        for (size_t k = 0; k < n; k++) {
            const err_group *g = &groups[k];
            json_obj_open(w, NULL);
            json_str(w, json_name, g->name);
            json_int(w, "rows", g->rows);
            if (with_skipped) json_int(w, "skipped", g->skipped);
            if (g->n) {
                double med, p90;
                err_group_quantiles(g, tmp, &med, &p90);
                json_num(w, "median_abs_err_pct", 100 * med);
                json_num(w, "p90_abs_err_pct", 100 * p90);
                json_num(w, "median_err_pct", 100 * quantile_of(g->signed_err, g->n, 0.5, tmp));
            }
            json_obj_close(w);
        }
        json_arr_close(w);
        return;
    }
    int wd = min_width; /* the name column fits the longest name (GPU names such as a100_pcie_80gb) */
    for (size_t k = 0; k < n; k++)
        if ((int)strlen(groups[k].name) > wd) wd = (int)strlen(groups[k].name);
    fprintf(out, "%-*s %6s", wd, label, "rows");
    if (with_skipped) fprintf(out, " %8s", "skipped");
    fprintf(out, " %11s %11s %11s\n", "median|err|", "p90|err|", "median err");
    for (size_t k = 0; k < n; k++) {
        const err_group *g = &groups[k];
        fprintf(out, "%-*s %6d", wd, g->name, g->rows);
        if (with_skipped) fprintf(out, " %8d", g->skipped);
        if (g->n) {
            double med, p90;
            err_group_quantiles(g, tmp, &med, &p90);
            fprintf(out, " %10.1f%% %10.1f%% %+10.1f%%\n", 100 * med, 100 * p90,
                    100 * quantile_of(g->signed_err, g->n, 0.5, tmp));
        } else {
            fprintf(out, " %11s %11s %11s\n", "-", "-", "-");
        }
    }
}

void skip_tally_add(skip_tally *t, const char *why)
{
    size_t k = 0; /* compared as stored, so a reason longer than the slot still finds its entry */
    while (k < t->n && strncmp(t->r[k].reason, why, SKIP_REASON_LEN - 1)) k++;
    if (k == t->n) {
        if (t->n == SKIP_REASONS_MAX) return;
        snprintf(t->r[k].reason, sizeof t->r[k].reason, "%s", why);
        t->r[k].count = 0;
        t->n++;
    }
    t->r[k].count++;
}

void skip_tally_print(const skip_tally *t, FILE *out, json_writer *w)
{
    if (w) {
        json_obj_open(w, "skipped_by_reason");
        for (size_t k = 0; k < t->n; k++) json_int(w, t->r[k].reason, t->r[k].count);
        json_obj_close(w);
        return;
    }
    if (t->n) fprintf(out, "skipped rows by reason:\n");
    for (size_t k = 0; k < t->n; k++) fprintf(out, "  %4d  %s\n", t->r[k].count, t->r[k].reason);
}
