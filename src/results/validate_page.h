/* validate_page.h — the picture of `autoconfig validate --html FILE`: how far the
 * estimator is from published measurements, and where.
 *
 * Built from the per-row CSV that validate writes, training or inference (its
 * header names matter, not their order; rows published as a time, step time or
 * latency, are drawn in throughput terms): a histogram of the signed errors stacked by source with the
 * ±10 % and ±25 % marks, one strip per model (a dot per row, coloured by source,
 * models ordered by their median error) and the rows furthest off.  One
 * self-contained HTML file with the search report's style; every text from the
 * CSV is escaped.
 */
#ifndef AC_RESULTS_VALIDATE_PAGE_H
#define AC_RESULTS_VALIDATE_PAGE_H

#include <stddef.h>

#include "util/err.h"

typedef struct {
    const char *title;                  /* e.g. the CSV path */
    double median_abs_err, p90_abs_err; /* fractions, as validate reports them; NaN: from the rows */
} validate_page_info;

/* A malloc'd NUL-terminated page, or NULL with e set (AC_E_INPUT when rows_csv lacks
 * the columns, AC_E_NOMEM).  Rows with a skip_reason are counted, not drawn. */
char *validate_page_html(const char *rows_csv, size_t len, const validate_page_info *info, ac_err *e);

#endif
