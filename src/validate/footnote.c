/* footnote.c — the footnote table parsed from the compiled-in data/footnotes.csv. */
#include "validate/footnote.h"

#include <stdio.h>
#include <string.h>

extern const char ac_data_footnotes[]; /* build/gen/data_footnotes.c */

enum { FOOTNOTE_MAX = 32 };
static footnote table[FOOTNOTE_MAX];
static size_t table_n;
static bool loaded;

/* a cell every footnote row fills (csv_copy_cell: never cut) */
static int copy_cell(const csv_table *t, const csv_row *r, const char *col, char *out, size_t n, ac_err *e)
{
    if (!*csv_get(r, csv_col(t, col))) return ac_err_at(e, AC_E_INTERNAL, t->file, r->line, 0, col, "is empty");
    return csv_copy_cell(t, r, col, out, n, AC_E_INTERNAL, e);
}

int footnote_table_load(ac_err *e)
{
    if (loaded) return 0;
    csv_table t;
    if (csv_parse(ac_data_footnotes, strlen(ac_data_footnotes), "data/footnotes.csv", &t, e)) return -1;
    static const char *const cols[] = {"footnote", "effect", "meaning", "source"};
    int rc = csv_require_cols(&t, cols, sizeof cols / sizeof *cols, AC_E_INTERNAL, NULL, e);
    if (!rc && t.n > FOOTNOTE_MAX) rc = ac_err_set(e, AC_E_INTERNAL, "data/footnotes.csv has more than %d rows", FOOTNOTE_MAX);
    size_t n = 0;
    for (size_t i = 0; i < t.n && !rc; i++) {
        const csv_row *r = &t.rows[i];
        footnote f;
        char effect[16];
        rc = copy_cell(&t, r, "footnote", f.name, sizeof f.name, e) || copy_cell(&t, r, "effect", effect, sizeof effect, e) ||
             copy_cell(&t, r, "meaning", f.meaning, sizeof f.meaning, e) ||
             copy_cell(&t, r, "source", f.source, sizeof f.source, e);
        if (rc) break;
        if (!strcmp(effect, "regression")) f.effect = FOOTNOTE_REGRESSION;
        else if (!strcmp(effect, "caveat")) f.effect = FOOTNOTE_CAVEAT;
        else rc = ac_err_at(e, AC_E_INTERNAL, t.file, r->line, 0, "effect", "expects regression or caveat, got '%s'", effect);
        if (!rc) table[n++] = f;
    }
    csv_free(&t);
    if (rc) return -1;
    table_n = n;
    loaded = true;
    return 0;
}

/* the table entry whose name is the marker [^name] starting at m, or NULL */
static const footnote *marker_entry(const char *m)
{
    const char *name = m + 2, *end = strchr(name, ']');
    if (!end) return NULL;
    size_t len = (size_t)(end - name);
    for (size_t i = 0; i < table_n; i++)
        if (strlen(table[i].name) == len && !memcmp(table[i].name, name, len)) return &table[i];
    return NULL;
}

const footnote *footnote_of_row(const csv_row *row)
{
    if (!row || footnote_table_load(NULL)) return NULL;
    for (int c = 0; c < row->n; c++)
        for (const char *m = strstr(row->field[c], "[^"); m; m = strstr(m + 2, "[^")) {
            const footnote *f = marker_entry(m);
            if (f) return f;
        }
    return NULL;
}
