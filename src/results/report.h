/* report.h — the HTML report of a search, built from the result files alone
 * so it can be regenerated for a finished or an interrupted search
 * (`autoconfig report LOGS_DIR`).
 *
 * Reads  <logs>/final_result/summary.json            (training search; required)
 *        <logs>/inference/final_summary/summary.json (inference search; optional;
 *                 under inference_settings.run.results_dir, which defaults to logs)
 *        <logs>/cost/summary.json                    (cost comparison; optional)
 * Writes <logs>/final_result/report.html, atomically: one self-contained file
 * (inline CSS, a few lines of inline JavaScript to sort the table, SVG charts
 * drawn by src/results/svg.c) that opens offline.
 *
 * Every string from the files is HTML-escaped; a field that is missing, null
 * or of the wrong type is shown as "—" and a chart without data says so.  An
 * optional file that is unreadable becomes a note in the report, not an error.
 */
#ifndef AC_RESULTS_REPORT_H
#define AC_RESULTS_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"
#include "util/strbuf.h"

typedef struct {
    int runs;             /* entries of "runs" that are objects */
    int charts;           /* charts in the report */
    int charts_with_data; /* of those, the ones that drew data (the rest say "no data") */
    bool inference;       /* an inference summary was read */
    bool cost;            /* a cost summary was read */
} report_info;

/* the report's page head: doctype, title (prefix and title escaped) and style sheet, up to
 * and including <body>; other pages that should look the same use it (validate --html) */
void report_page_head(strbuf *b, const char *title_prefix, const char *title);

/* Builds the report page from the texts of the three files (infer and cost
 * may be NULL: absent).  Returns a malloc'd NUL-terminated string; NULL with
 * AC_E_INPUT when summary is not a JSON object, AC_E_NOMEM on allocation
 * failure.  info may be NULL. */
char *report_build_html(const char *summary, size_t summary_len, const char *infer, size_t infer_len,
                        const char *cost, size_t cost_len, report_info *info, ac_err *e);

/* The same, choosing what to do with a stage's summary written before this search's training
 * summary (an earlier search in the same folder): left out with a note (include_stale false),
 * or shown greyed and labelled "from an earlier search at <time>". */
char *report_build_html_opts(const char *summary, size_t summary_len, const char *infer, size_t infer_len,
                             const char *cost, size_t cost_len, bool include_stale, report_info *info, ac_err *e);

/* Reads the files under logs_dir and writes <logs>/final_result/report.html.
 * A missing directory or summary.json is AC_E_INPUT. */
int report_write(const char *logs_dir, ac_err *e);
/* the same; path (may be NULL) gets the report's path, info (may be NULL) what it holds */
int report_write_info(const char *logs_dir, char *path, size_t path_len, report_info *info, ac_err *e);
/* the same with the inference results under infer_dir (NULL or "": logs_dir) */
int report_write_dirs(const char *logs_dir, const char *infer_dir, char *path, size_t path_len, report_info *info,
                      ac_err *e);
/* the same with the choice of report_build_html_opts */
int report_write_stale(const char *logs_dir, const char *infer_dir, bool include_stale, char *path, size_t path_len,
                       report_info *info, ac_err *e);

#endif
