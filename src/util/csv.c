/* csv.c — RFC 4180 reader: a small state machine over the bytes. */
#include "util/csv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fsutil.h"

typedef struct {
    char *buf; size_t len, cap;
} field_buf;

static int fb_put(field_buf *b, char ch)
{
    if (b->len + 2 > b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 64;
        char *nb = realloc(b->buf, nc);
        if (!nb) return -1;
        b->buf = nb; b->cap = nc;
    }
    b->buf[b->len++] = ch;
    return 0;
}

typedef struct {
    char **f; int n, cap;
} field_list;

static int fl_push(field_list *l, const field_buf *b)
{
    if (l->n == l->cap) {
        int nc = l->cap ? l->cap * 2 : 16;
        char **nf = realloc(l->f, (size_t)nc * sizeof *nf);
        if (!nf) return -1;
        l->f = nf; l->cap = nc;
    }
    char *s = malloc(b->len + 1);
    if (!s) return -1;
    if (b->len) memcpy(s, b->buf, b->len); /* an empty field may have no buffer yet */
    s[b->len] = '\0';
    /* trim surrounding spaces of unquoted-looking values; quoted spaces are rare in our inputs */
    l->f[l->n++] = s;
    return 0;
}

static void row_free(csv_row *r)
{
    for (int i = 0; i < r->n; i++) free(r->field[i]);
    free(r->field);
    r->field = NULL; r->n = 0;
}

void csv_free(csv_table *t)
{
    if (!t) return;
    row_free(&t->header);
    for (size_t i = 0; i < t->n; i++) row_free(&t->rows[i]);
    free(t->rows);
    t->rows = NULL; t->n = 0;
}

static int table_add(csv_table *t, size_t *cap, field_list *l, int line, int *have_header)
{
    csv_row r = {l->f, l->n, line};
    l->f = NULL; l->n = l->cap = 0;
    if (!*have_header) { t->header = r; *have_header = 1; return 0; }
    if (t->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        csv_row *nr = realloc(t->rows, nc * sizeof *nr);
        if (!nr) { row_free(&r); return -1; }
        t->rows = nr; *cap = nc;
    }
    t->rows[t->n++] = r;
    return 0;
}

int csv_parse(const char *buf, size_t len, const char *file, csv_table *t, ac_err *e)
{
    memset(t, 0, sizeof *t);
    snprintf(t->file, sizeof t->file, "%s", file ? file : "<csv>");
    field_buf fb = {0};
    field_list fl = {0};
    size_t cap = 0;
    int have_header = 0, line = 1, row_line = 1, in_quotes = 0, quoted_field = 0, at_row_start = 1;
    size_t i = 0;
    int rc = -1;
    while (i < len) {
        char ch = buf[i];
        if (at_row_start && !have_header && ch == '#') { /* comment line before the header */
            while (i < len && buf[i] != '\n') i++;
            if (i < len) { i++; line++; }
            row_line = line;
            continue;
        }
        if (at_row_start && (ch == '\n' || ch == '\r') && !in_quotes) { /* blank line */
            if (ch == '\n') line++;
            i++;
            row_line = line;
            continue;
        }
        at_row_start = 0;
        if (in_quotes) {
            if (ch == '"') {
                if (i + 1 < len && buf[i + 1] == '"') { if (fb_put(&fb, '"')) goto oom; i += 2; continue; }
                in_quotes = 0; i++; continue;
            }
            if (ch == '\n') line++;
            if (fb_put(&fb, ch)) goto oom;
            i++;
            continue;
        }
        if (ch == '"' && fb.len == 0 && !quoted_field) { in_quotes = 1; quoted_field = 1; i++; continue; }
        if (ch == ',') {
            if (fl_push(&fl, &fb)) goto oom;
            fb.len = 0; quoted_field = 0; i++;
            continue;
        }
        if (ch == '\r' && i + 1 < len && buf[i + 1] == '\n') { i++; continue; }
        if (ch == '\n' || ch == '\r') {
            if (fl_push(&fl, &fb) || table_add(t, &cap, &fl, row_line, &have_header)) goto oom;
            fb.len = 0; quoted_field = 0; line++; i++;
            row_line = line; at_row_start = 1;
            continue;
        }
        if (ch == '\0') { ac_err_at(e, AC_E_INPUT, t->file, line, 0, NULL, "NUL byte in CSV"); goto out; }
        if (fb_put(&fb, ch)) goto oom;
        i++;
    }
    if (in_quotes) {
        ac_err_at(e, AC_E_INPUT, t->file, row_line, 0, NULL, "unterminated quoted field");
        goto out;
    }
    if (!at_row_start) {
        if (fl_push(&fl, &fb) || table_add(t, &cap, &fl, row_line, &have_header)) goto oom;
    }
    if (!have_header) { ac_err_at(e, AC_E_INPUT, t->file, 1, 0, NULL, "empty CSV: no header row"); goto out; }
    rc = 0;
    goto out;
oom:
    ac_err_set(e, AC_E_NOMEM, "out of memory reading %s", t->file);
out:
    free(fb.buf);
    for (int k = 0; k < fl.n; k++) free(fl.f[k]);
    free(fl.f);
    if (rc) csv_free(t);
    return rc;
}

int csv_read_file(const char *path, csv_table *t, ac_err *e)
{
    size_t len = 0;
    char *buf = fs_read_file(path, &len, e);
    if (!buf) return -1;
    int rc = csv_parse(buf, len, path, t, e);
    free(buf);
    return rc;
}

int csv_col(const csv_table *t, const char *name)
{
    for (int i = 0; i < t->header.n; i++) {
        const char *h = t->header.field[i];
        while (*h == ' ') h++;
        size_t n = strlen(h);
        while (n && h[n - 1] == ' ') n--;
        if (n == strlen(name) && strncmp(h, name, n) == 0) return i;
    }
    return -1;
}

int csv_require_cols(const csv_table *t, const char *const *cols, size_t n, ac_code code, const char *hint, ac_err *e)
{
    for (size_t i = 0; i < n; i++)
        if (csv_col(t, cols[i]) < 0)
            return ac_err_at(e, code, t->file, t->header.line, 0, cols[i], "column missing%s", hint ? hint : "");
    return 0;
}

int csv_copy_cell(const csv_table *t, const csv_row *r, const char *col, char *out, size_t n, ac_code code, ac_err *e)
{
    const char *s = csv_get(r, csv_col(t, col));
    size_t len = strlen(s);
    if (len >= n) return ac_err_at(e, code, t->file, r->line, 0, col, "longer than %zu characters", n - 1);
    memcpy(out, s, len + 1);
    return 0;
}

const char *csv_get(const csv_row *r, int c)
{
    if (c < 0 || c >= r->n) return "";
    return r->field[c];
}
