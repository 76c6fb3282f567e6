/* csv.h — reading comma-separated tables (RFC 4180).
 *
 * Quoted fields may hold commas, doubled quotes and newlines; CRLF and LF line
 * ends are both accepted.  Lines starting with '#' before the header are
 * comments (the data files in data/ carry their sources there).  The first
 * non-comment row is the header; csv_col() looks columns up by name.
 */
#ifndef AC_UTIL_CSV_H
#define AC_UTIL_CSV_H

#include <stddef.h>
#include "util/err.h"

typedef struct {
    char **field; /* NUL-terminated values, owned by the table */
    int n;        /* number of fields */
    int line;     /* 1-based line where the row starts */
} csv_row;

typedef struct {
    csv_row header;
    csv_row *rows; /* data rows, without the header */
    size_t n;
    char file[256];
} csv_table;

/* Parses buf[0..len).  file names the source in errors.  An unterminated quote or
 * an empty input (no header) is AC_E_INPUT with the line.  Free with csv_free. */
int csv_parse(const char *buf, size_t len, const char *file, csv_table *t, ac_err *e);
int csv_read_file(const char *path, csv_table *t, ac_err *e);
void csv_free(csv_table *t);

/* index of the header column named name (exact, after trimming spaces), or -1 */
int csv_col(const csv_table *t, const char *name);
/* the field of row r at column c, "" when c < 0 or the row is short */
const char *csv_get(const csv_row *r, int c);
/* 0 when t has every one of the n columns; else -1 with "column missing" + hint (may be
 * NULL) at t's file, header line and the first absent column (code) */
int csv_require_cols(const csv_table *t, const char *const *cols, size_t n, ac_code code, const char *hint, ac_err *e);
/* Copies the cell of row r in column col into out[n]; a cell that does not fit is an
 * error naming file, line and column (code), never cut (a cut text would mean more). */
int csv_copy_cell(const csv_table *t, const csv_row *r, const char *col, char *out, size_t n, ac_code code, ac_err *e);

#endif
