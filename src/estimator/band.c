/* band.c — uncertainty bands from the compiled-in data/bands.csv (band.h) */
#include "estimator/band.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/csv.h"

extern const char ac_data_bands[]; /* build/gen/data_bands.c */

enum { BAND_MAX = 128 };
typedef struct {
    char gpu[32], stack[32];
    double time_rel, mem_rel, rank_rel;
    int rows;
} band_row;
static band_row bands[BAND_MAX];
static size_t bands_n;
static int bands_loaded;

int est_band_load(ac_err *e)
{
    if (bands_loaded) return 0;
    csv_table t;
    if (csv_parse(ac_data_bands, strlen(ac_data_bands), "data/bands.csv", &t, e)) return -1;
    static const char *const cols[] = {"gpu", "stack", "rows", "time_band_rel", "mem_band_rel", "rank_band_rel"};
    if (csv_require_cols(&t, cols, 6, AC_E_INTERNAL, NULL, e)) { csv_free(&t); return -1; }
    int c[6];
    for (int k = 0; k < 6; k++) c[k] = csv_col(&t, cols[k]);
    size_t n = 0;
    for (size_t i = 0; i < t.n && n < BAND_MAX; i++) {
        const csv_row *r = &t.rows[i];
        band_row b = {0};
        char *end1, *end2, *end3, *end4;
        snprintf(b.gpu, sizeof b.gpu, "%s", csv_get(r, c[0]));
        snprintf(b.stack, sizeof b.stack, "%s", csv_get(r, c[1]));
        b.rows = (int)strtol(csv_get(r, c[2]), &end1, 10);
        b.time_rel = strtod(csv_get(r, c[3]), &end2);
        b.mem_rel = strtod(csv_get(r, c[4]), &end3);
        b.rank_rel = strtod(csv_get(r, c[5]), &end4);
        if (*end1 || *end2 || *end3 || *end4 || b.rows < 1 || b.time_rel < 0 || b.mem_rel < 0 || b.rank_rel < 0 ||
            !b.gpu[0] || !b.stack[0]) {
            ac_err_at(e, AC_E_INTERNAL, t.file, r->line, 0, NULL, "malformed band row");
            csv_free(&t);
            return -1;
        }
        bands[n++] = b;
    }
    csv_free(&t);
    bands_n = n;
    bands_loaded = 1;
    return 0;
}

static const band_row *band_find(const char *gpu, const char *stack)
{
    for (size_t i = 0; i < bands_n; i++)
        if (!strcmp(bands[i].gpu, gpu) && !strcmp(bands[i].stack, stack)) return &bands[i];
    return NULL;
}

/* the resolved band per catalog GPU and stack, looked up once (est_evaluate runs millions
 * of times a second; the table and the catalogs never change after loading) */
enum { GPU_SLOTS = 64, STACK_SLOTS = 16 };
static const band_row *resolved[GPU_SLOTS][STACK_SLOTS]; /* NULL: not looked up yet */

static const band_row *band_resolve(const char *gpu, const char *stack)
{
    const band_row *b = band_find(gpu, stack);
    if (!b) b = band_find("*", stack);
    if (!b) b = band_find("*", "*");
    return b;
}

void est_band_of(const gpu_spec *g, const est_stack *s, double *time_rel, double *mem_rel, double *rank_rel, int *rows)
{
    *time_rel = *mem_rel = *rank_rel = 0.0;
    if (rows) *rows = 0;
    if (est_band_load(NULL)) return;
    if (!s) s = est_stack_default();
    const char *sname = s ? s->name : "megatron-core";
    const band_row *b = NULL;
    const gpu_spec *g0 = gpu_at(0);
    const est_stack *s0 = est_stack_default();
    long gi = g0 && g && g >= g0 && (size_t)(g - g0) < gpu_count() ? (long)(g - g0) : -1;
    long si = s0 && s && s >= s0 && s - s0 < STACK_SLOTS ? (long)(s - s0) : -1;
    if (gi >= 0 && gi < GPU_SLOTS && si >= 0) {
        b = resolved[gi][si];
        if (!b) { /* first use (a racing thread resolves the same row) */
            b = band_resolve(g->name, sname);
            resolved[gi][si] = b;
        }
    } else {
        b = band_resolve(g ? g->name : "*", sname);
    }
    if (!b) return;
    *time_rel = b->time_rel;
    *mem_rel = b->mem_rel;
    *rank_rel = b->rank_rel;
    if (rows) *rows = b->rows;
}

est_band_source est_band_source_of(const gpu_spec *g, const est_stack *s)
{
    if (est_band_load(NULL)) return EST_BAND_NONE;
    if (!s) s = est_stack_default();
    const char *sname = s ? s->name : "megatron-core";
    if (g && band_find(g->name, sname)) return EST_BAND_OWN;
    if (band_find("*", sname)) return EST_BAND_STACK;
    return band_find("*", "*") ? EST_BAND_POOLED : EST_BAND_NONE;
}
