/* tally.h — what a validation run counts: prediction errors by group, skips by reason.
 *
 * `validate` (training) and `validate --infer` both group their rows (by source, by
 * GPU, by source and GPU), keep every row's |error| and signed error per group, and
 * count the rows they skip by reason.  Both print the same tables from these tallies.
 */
#ifndef AC_VALIDATE_TALLY_H
#define AC_VALIDATE_TALLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util/json.h"

/* the errors of a group of rows: one source, one GPU, or all of them */
typedef struct {
    char name[64];
    int rows, skipped;
    double *err, *signed_err; /* |error| and the signed error of each predicted row */
    size_t n, cap;
} err_group;

/* the group called name ("" is "(none)") in a growing list, added when new; NULL when out of memory */
err_group *err_group_get(err_group **list, size_t *n, const char *name);
/* one predicted row's errors; -1 when out of memory */
int err_group_push(err_group *g, double abs_err, double signed_err);
/* median and p90 of the group's |errors| (tmp: scratch of at least g->n values; NAN when empty) */
void err_group_quantiles(const err_group *g, double *tmp, double *median, double *p90);
void err_group_free(err_group *g);
void err_groups_free(err_group *list, size_t n);

/* One table of groups: name, rows, skipped (with_skipped), median and p90 of |error|
 * and the median signed error; groups with no predicted row print "-" (text) or omit
 * the figures (JSON).  Text (w NULL): the name column is at least min_width wide and
 * fits the longest name, headed by label.  JSON (w): an array json_key of objects whose
 * name is under json_name. */
void err_groups_print(FILE *out, json_writer *w, const char *label, const char *json_key, const char *json_name,
                      const err_group *groups, size_t n, int min_width, bool with_skipped, double *tmp);

enum { SKIP_REASONS_MAX = 32, SKIP_REASON_LEN = 256 };
/* rows skipped, counted by reason (the first SKIP_REASONS_MAX distinct reasons; a reason
 * is kept whole up to SKIP_REASON_LEN − 1 bytes, the callers' why buffers, so rows with
 * the same reason always count together) */
typedef struct {
    struct {
        char reason[SKIP_REASON_LEN];
        int count;
    } r[SKIP_REASONS_MAX];
    size_t n;
} skip_tally;

void skip_tally_add(skip_tally *t, const char *why);
/* text: "skipped rows by reason:" and a line per reason; JSON: object "skipped_by_reason" */
void skip_tally_print(const skip_tally *t, FILE *out, json_writer *w);

#endif
