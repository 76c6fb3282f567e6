/* recipe.c — the recipe table parsed from the compiled-in data/recipes.csv. */
#include "estimator/recipe.h"

#include <stdio.h>
#include <string.h>

#include "util/csv.h"
#include "util/text.h"

extern const char ac_data_recipes[]; /* build/gen/data_recipes.c */

enum { RECIPE_MAX = 32 };
static recipe_defaults table[RECIPE_MAX];
static size_t table_n;
static bool loaded;

/* "0" or "1" */
static int flag_field(const csv_table *t, const csv_row *r, const char *col, bool *out, ac_err *e)
{
    const char *s = csv_get(r, csv_col(t, col));
    if (strcmp(s, "0") && strcmp(s, "1")) return ac_err_at(e, AC_E_INTERNAL, t->file, r->line, 0, col, "expects 0 or 1, got '%s'", s);
    *out = s[0] == '1';
    return 0;
}

int recipe_table_load(ac_err *e)
{
    if (loaded) return 0;
    csv_table t;
    if (csv_parse(ac_data_recipes, strlen(ac_data_recipes), "data/recipes.csv", &t, e)) return -1;
    static const char *const cols[] = {"framework", "grad_reduce_in_fp32", "fp8_param_gather", "source"};
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
        if (csv_col(&t, cols[i]) < 0) {
            csv_free(&t);
            return ac_err_set(e, AC_E_INTERNAL, "data/recipes.csv lacks the column %s", cols[i]);
        }
    size_t n = 0;
    for (size_t i = 0; i < t.n && n < RECIPE_MAX; i++) {
        const csv_row *r = &t.rows[i];
        recipe_defaults d = {0};
        snprintf(d.framework, sizeof d.framework, "%s", csv_get(r, csv_col(&t, "framework")));
        snprintf(d.source, sizeof d.source, "%s", csv_get(r, csv_col(&t, "source")));
        if (!d.framework[0] || !d.source[0]) {
            ac_err_at(e, AC_E_INTERNAL, t.file, r->line, 0, "framework", "a recipe row needs a framework and its source");
            csv_free(&t);
            return -1;
        }
        if (flag_field(&t, r, "grad_reduce_in_fp32", &d.grad_reduce_in_fp32, e) ||
            flag_field(&t, r, "fp8_param_gather", &d.fp8_param_gather, e)) {
            csv_free(&t);
            return -1;
        }
        table[n++] = d;
    }
    csv_free(&t);
    table_n = n;
    loaded = true;
    return 0;
}

const recipe_defaults *recipe_match(const char *framework)
{
    if (!framework || !*framework || recipe_table_load(NULL)) return NULL;
    for (size_t i = 0; i < table_n; i++)
        if (text_find_ci(framework, table[i].framework)) return &table[i];
    return NULL;
}
