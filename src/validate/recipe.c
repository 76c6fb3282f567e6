/* recipe.c — the recipe table parsed from the compiled-in data/recipes.csv. */
#include "validate/recipe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "estimator/est.h"
#include "util/csv.h"
#include "util/text.h"

extern const char ac_data_recipes[]; /* build/gen/data_recipes.c */

typedef struct {
    char framework[64], model[48], gpu[32], precision[32]; /* "" = any */
    char since[16];                                        /* first release it applies to; "" = any */
    int tp, pp, fsdp;                                      /* -1 = any */
    recipe_switches sets;                                  /* -1 = not set by this row */
    char source[512];
} recipe_row;

enum { RECIPE_MAX = 64 };
static recipe_row table[RECIPE_MAX];
static size_t table_n;
static bool loaded;

/* an integer cell in [lo, hi], or -1 when empty */
static int int_field(const csv_table *t, const csv_row *r, const char *col, int lo, int hi, int *out, ac_err *e)
{
    const char *s = csv_get(r, csv_col(t, col));
    if (!*s) { *out = -1; return 0; }
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || v < lo || v > hi)
        return ac_err_at(e, AC_E_INTERNAL, t->file, r->line, 0, col, "expects an integer in [%d, %d] or nothing, got '%s'", lo, hi, s);
    *out = (int)v;
    return 0;
}

/* the pp_layout cell: a layout name (est_pp_layout_parse), or -1 when empty */
static int layout_field(const csv_table *t, const csv_row *r, int *out, ac_err *e)
{
    const char *s = csv_get(r, csv_col(t, "pp_layout"));
    est_pp_layout layout;
    *out = -1;
    if (!*s) return 0;
    if (est_pp_layout_parse(s, &layout))
        return ac_err_at(e, AC_E_INTERNAL, t->file, r->line, 0, "pp_layout",
                         "expects " EST_PP_LAYOUT_CHOICES ", got '%s'", s);
    *out = (int)layout;
    return 0;
}

/* the remat_policy cell: a JAX remat policy's saves (est_remat_policy_parse), or -1 when empty */
static int remat_field(const csv_table *t, const csv_row *r, int *out, ac_err *e)
{
    const char *s = csv_get(r, csv_col(t, "remat_policy"));
    unsigned saves;
    *out = -1;
    if (!*s) return 0;
    if (est_remat_policy_parse(s, &saves))
        return ac_err_at(e, AC_E_INTERNAL, t->file, r->line, 0, "remat_policy", "expects " EST_REMAT_POLICIES ", got '%s'", s);
    *out = (int)saves;
    return 0;
}

/* a text cell (csv_copy_cell): a cell longer than the field is an error, as a cut matcher
 * would match more */
static int text_field(const csv_table *t, const csv_row *r, const char *col, char *out, size_t n, ac_err *e)
{
    return csv_copy_cell(t, r, col, out, n, AC_E_INTERNAL, e);
}

int recipe_table_load(ac_err *e)
{
    if (loaded) return 0;
    csv_table t;
    if (csv_parse(ac_data_recipes, strlen(ac_data_recipes), "data/recipes.csv", &t, e)) return -1;
    static const char *const cols[] = {"framework", "model", "gpu", "precision", "tp", "pp", "fsdp", "grad_reduce_in_fp32",
                                       "fp8_param_gather", "cpu_offloading_num_layers", "since", "cuda_graphs",
                                       "moe_a2a_overlap", "recompute_mla_up_proj", "recompute_layernorm",
                                       "recompute_moe_act", "fused_expert_mlp", "pp_layout", "overlap_grad_sync", "remat_policy", "source"};
    if (csv_require_cols(&t, cols, sizeof cols / sizeof *cols, AC_E_INTERNAL, NULL, e)) {
        csv_free(&t);
        return -1;
    }
    size_t n = 0;
    int rc = 0;
    if (t.n > RECIPE_MAX) rc = ac_err_set(e, AC_E_INTERNAL, "data/recipes.csv has more than %d rows", RECIPE_MAX);
    for (size_t i = 0; i < t.n && !rc; i++) {
        const csv_row *r = &t.rows[i];
        recipe_row d;
        rc = text_field(&t, r, "framework", d.framework, sizeof d.framework, e) ||
             text_field(&t, r, "model", d.model, sizeof d.model, e) || text_field(&t, r, "gpu", d.gpu, sizeof d.gpu, e) ||
             text_field(&t, r, "precision", d.precision, sizeof d.precision, e) ||
             text_field(&t, r, "source", d.source, sizeof d.source, e) || int_field(&t, r, "tp", 1, 1024, &d.tp, e) ||
             int_field(&t, r, "pp", 1, 1024, &d.pp, e) || int_field(&t, r, "fsdp", 0, 1, &d.fsdp, e) ||
             int_field(&t, r, "grad_reduce_in_fp32", 0, 1, &d.sets.grad_reduce_in_fp32, e) ||
             int_field(&t, r, "fp8_param_gather", 0, 1, &d.sets.fp8_param_gather, e) ||
             int_field(&t, r, "cpu_offloading_num_layers", 1, 1000, &d.sets.cpu_offloading_num_layers, e) ||
             int_field(&t, r, "cuda_graphs", 0, 1, &d.sets.cuda_graphs, e) ||
             int_field(&t, r, "moe_a2a_overlap", 0, 1, &d.sets.moe_a2a_overlap, e) ||
             int_field(&t, r, "recompute_mla_up_proj", 0, 1, &d.sets.recompute_mla_up_proj, e) ||
             int_field(&t, r, "recompute_layernorm", 0, 1, &d.sets.recompute_layernorm, e) ||
             int_field(&t, r, "recompute_moe_act", 0, 1, &d.sets.recompute_moe_act, e) ||
             int_field(&t, r, "fused_expert_mlp", 0, 1, &d.sets.fused_expert_mlp, e) ||
             int_field(&t, r, "overlap_grad_sync", 0, 1, &d.sets.overlap_grad_sync, e) ||
             layout_field(&t, r, &d.sets.pp_layout, e) || remat_field(&t, r, &d.sets.remat_saves, e) ||
             text_field(&t, r, "since", d.since, sizeof d.since, e);
        if (!rc && (!d.framework[0] || !d.source[0]))
            rc = ac_err_at(e, AC_E_INTERNAL, t.file, r->line, 0, "framework", "a recipe row needs a framework and its source");
        char whole[sizeof d.since];
        if (!rc && d.since[0] && (!recipe_release_in_text(d.since, whole, sizeof whole) || strcmp(whole, d.since)))
            rc = ac_err_at(e, AC_E_INTERNAL, t.file, r->line, 0, "since", "expects a release such as 26.06 or 26.06.01, got '%s'",
                           d.since);
        if (!rc) table[n++] = d;
    }
    csv_free(&t);
    if (rc) return -1;
    table_n = n;
    loaded = true;
    return 0;
}

static bool is_alnum(char c) { return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'); }

/* want occurs in have at the start of a word: "B300" is not in "GB300 (NVL72)", "FP8" not
 * in "MXFP8", while "GB200" is in "GB200 (NVL72)" and "NeMo 25." in "nemo 25.02.01" */
static bool text_applies(const char *want, const char *have)
{
    if (!*want) return true;
    for (const char *p = have ? text_find_ci(have, want) : NULL; p; p = text_find_ci(p + 1, want))
        if (p == have || !is_alnum(p[-1])) return true;
    return false;
}

/* a row bound to a first release applies only to rows whose release is known and not older */
static bool release_applies(const char *since, const char *release)
{
    return !*since || (release && *release && recipe_release_at_least(release, since));
}

static bool applies(const recipe_row *d, const recipe_query *q)
{
    return text_applies(d->framework, q->framework) && text_applies(d->model, q->model) && text_applies(d->gpu, q->gpu) &&
           text_applies(d->precision, q->precision) && (d->tp < 0 || d->tp == q->tp) && (d->pp < 0 || d->pp == q->pp) &&
           (d->fsdp < 0 || d->fsdp == (int)q->fsdp) && release_applies(d->since, q->release);
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool recipe_release_in_text(const char *text, char *out, size_t n)
{
    if (n) *out = '\0';
    if (!text) return false;
    for (const char *p = text; *p; p++) {
        /* two digits, not inside a longer number or version ("2026.06", "v0.26.06"), then ".dd" */
        if (p > text && (is_digit(p[-1]) || p[-1] == '.')) continue;
        if (!(is_digit(p[0]) && is_digit(p[1]) && p[2] == '.' && is_digit(p[3]) && is_digit(p[4]))) continue;
        const char *end = p + 5;
        if (is_digit(*end)) continue; /* 26.061 is not a release */
        while (end[0] == '.' && is_digit(end[1])) {
            end++;
            while (is_digit(*end)) end++;
        }
        size_t len = (size_t)(end - p);
        if (len >= n) return false;
        memcpy(out, p, len);
        out[len] = '\0';
        return true;
    }
    return false;
}

/* compares one dot-separated number of each, however long (leading zeros ignored), and
 * moves both past it; missing numbers count 0 */
static int compare_number(const char **a, const char **b)
{
    while (**a == '0') (*a)++;
    while (**b == '0') (*b)++;
    const char *sa = *a, *sb = *b;
    while (is_digit(**a)) (*a)++;
    while (is_digit(**b)) (*b)++;
    size_t la = (size_t)(*a - sa), lb = (size_t)(*b - sb);
    if (la != lb) return la > lb ? 1 : -1;
    int c = strncmp(sa, sb, la);
    return (c > 0) - (c < 0);
}

bool recipe_release_at_least(const char *a, const char *b)
{
    for (;;) {
        int c = compare_number(&a, &b);
        if (c) return c > 0;
        bool more_a = *a == '.', more_b = *b == '.';
        if (!more_a && !more_b) return true;
        if (more_a) a++;
        if (more_b) b++;
    }
}

recipe_switches recipe_lookup(const recipe_query *q)
{
    recipe_switches s = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
    if (!q || !q->framework || !*q->framework || recipe_table_load(NULL)) return s;
    for (size_t i = 0; i < table_n; i++) {
        const recipe_row *d = &table[i];
        if (!applies(d, q)) continue;
        if (s.grad_reduce_in_fp32 < 0) s.grad_reduce_in_fp32 = d->sets.grad_reduce_in_fp32;
        if (s.fp8_param_gather < 0) s.fp8_param_gather = d->sets.fp8_param_gather;
        if (s.cpu_offloading_num_layers < 0) s.cpu_offloading_num_layers = d->sets.cpu_offloading_num_layers;
        if (s.cuda_graphs < 0) s.cuda_graphs = d->sets.cuda_graphs;
        if (s.moe_a2a_overlap < 0) s.moe_a2a_overlap = d->sets.moe_a2a_overlap;
        if (s.recompute_mla_up_proj < 0) s.recompute_mla_up_proj = d->sets.recompute_mla_up_proj;
        if (s.recompute_layernorm < 0) s.recompute_layernorm = d->sets.recompute_layernorm;
        if (s.recompute_moe_act < 0) s.recompute_moe_act = d->sets.recompute_moe_act;
        if (s.fused_expert_mlp < 0) s.fused_expert_mlp = d->sets.fused_expert_mlp;
        if (s.pp_layout < 0) s.pp_layout = d->sets.pp_layout;
        if (s.overlap_grad_sync < 0) s.overlap_grad_sync = d->sets.overlap_grad_sync;
        if (s.remat_saves < 0) s.remat_saves = d->sets.remat_saves;
    }
    return s;
}
