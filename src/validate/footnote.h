/* footnote.h — what the footnotes of published benchmark figures mean.
 *
 * Benchmark tables mark some figures with a footnote ("661[^gpt-oss-note]") whose text
 * sits below the table, not in the row.  data/footnotes.csv (compiled in) records the
 * footnotes that matter to validation, each with its source: a `regression` footnote
 * says the figure is a known software regression (validate skips such rows: the
 * estimator models the software working as intended); a `caveat` keeps the row.
 */
#ifndef AC_VALIDATE_FOOTNOTE_H
#define AC_VALIDATE_FOOTNOTE_H

#include <stdbool.h>
#include "util/csv.h"
#include "util/err.h"

typedef enum { FOOTNOTE_CAVEAT, FOOTNOTE_REGRESSION } footnote_effect;

typedef struct {
    char name[64];     /* the marker's name: "gpt-oss-note" for [^gpt-oss-note] */
    footnote_effect effect;
    char meaning[256];
    char source[256];
} footnote;

/* Loads the compiled-in table once.  -1 only when the data file is malformed. */
int footnote_table_load(ac_err *e);
/* The first footnote of the table marked in any cell of row ("[^name]"), or NULL. */
const footnote *footnote_of_row(const csv_row *row);

#endif
