/* validate.h — the estimator against published measurements.
 *
 * Reads any CSV with the columns of ../shared/reference/benchmarks_train.csv
 * (header names matter, order and extra columns do not), turns each row into an
 * est_input, predicts it and compares with the published step time, or with
 * tokens/s when no step time is published.  Rows the estimator cannot model
 * are skipped and counted by reason.  Prints a per-source table and the final
 * line `rows N skipped M median_abs_err X% p90_abs_err Y%`.
 */
#ifndef AC_VALIDATE_VALIDATE_H
#define AC_VALIDATE_VALIDATE_H

#include <stdbool.h>
#include <stdio.h>

#include "estimator/band.h"
#include "estimator/est.h"
#include "util/csv.h"
#include "util/err.h"

typedef struct {
    int rows, skipped;
    double median_abs_err, p90_abs_err; /* fractions (0.1 = 10 %) */
} validate_summary;

/* the training stack a framework cell names ("NeMo Megatron (22.05)" → nemo-megatron-2022,
 * "... DeepSpeed" → hf-deepspeed, "torchtitan"/"FSDP2" → pytorch-fsdp2, "FSDP" → pytorch-fsdp, a stack name or
 * alias as itself); megatron-core otherwise */
const est_stack *validate_stack_of(const char *framework);

/* One CSV row as an estimator input.  0, or -1 with why (the skip reason). */
int validate_row_input(const csv_table *t, const csv_row *row, est_input *in, char *why, size_t why_len);

/* the error when no row of a CSV could be predicted: a table of nothing is not a pass */
int validate_no_rows_error(ac_err *e, const char *csv_path, int skipped, bool wrote_nothing);
/* the closing line of `validate` (training and --infer), exactly
 * "rows N skipped M median_abs_err X% p90_abs_err Y%"; "-" for both when no row of n
 * was predicted; median and p90 are fractions */
void validate_print_final_line(FILE *out, int rows, int skipped, size_t n, double median, double p90);

/* The whole run.  out_csv (may be NULL): per-row predictions, written atomically;
 * rows_csv (may be NULL): the same text, malloc'd, for the caller to free (the
 * picture of `validate --html`).  cal: NULL = defaults.  out: where the summary is printed,
 * NULL for nowhere.  Returns 0 (even when errors are large), -1 on unreadable input. */
int validate_train_csv(const char *csv_path, const char *out_csv, char **rows_csv, const est_cal *cal, FILE *out,
                       bool json, validate_summary *sum, ac_err *e);

/* Uncertainty bands from the per-row text of validate_train_csv (rows_csv): per (GPU,
 * stack), per stack over all GPUs ("*") and overall ("*", "*"): the VALIDATE_BAND_Q
 * quantile of |step-time error| (80 % of the published runs of that GPU and stack lie
 * inside it), and for memory, which no table publishes, the 95th percentile of how far
 * the predictions of runs that ran exceed usable memory, at least the allocator's
 * fragmentation share; a (GPU, stack) pair of fewer than EST_BAND_MIN_ROWS runs is left to its
 * stack's band, such a stack to the pooled one; a group whose runs share no (table, model, GPU)
 * group takes the pooled ranking band.  *out: malloc'd CSV "gpu,stack,rows,time_band_rel,mem_band_rel"
 * (data/bands.csv's columns). */
#define VALIDATE_BAND_Q 0.8
#define VALIDATE_BAND_MEM_FLOOR 0.05
int validate_bands_csv(const char *rows_csv, char **out, ac_err *e);

#endif
