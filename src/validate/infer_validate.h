/* infer_validate.h — the inference model against published measurements.
 *
 * Reads any CSV with the columns of ../shared/reference/benchmarks_infer.csv
 * (header names matter, order and extra columns do not).  A row with a
 * published latency_ms is predicted as one request of batch_size sequences
 * (FasterTransformer's benchmark); a row with only a throughput is predicted as
 * max-load serving (TensorRT-LLM trtllm-bench: as many sequences in flight as
 * the KV cache holds).  Rows the model cannot take (no architecture, unknown
 * GPU, unmodelled engine, no measurement) are skipped and counted by reason.
 * Prints a per-source table and the final line
 * `rows N skipped M median_abs_err X% p90_abs_err Y%`.
 */
#ifndef AC_VALIDATE_INFER_VALIDATE_H
#define AC_VALIDATE_INFER_VALIDATE_H

#include <stdbool.h>
#include <stdio.h>

#include "util/csv.h"
#include "util/err.h"

/* out_csv (may be NULL): per-row predictions, written atomically; rows_csv (may be
 * NULL): the same text, malloc'd, for the caller to free (`validate --infer --html`).
 * Returns 0 (even when errors are large), -1 on unreadable input. */
int infer_validate_csv(const char *csv_path, const char *out_csv, char **rows_csv, FILE *out, bool json, ac_err *e);
/* the same over a table already parsed (csv_path names it in messages); t is not changed */
int infer_validate_table(const csv_table *t, const char *csv_path, const char *out_csv, char **rows_csv, FILE *out,
                         bool json, ac_err *e);

/* Does an engine cell name a TensorRT-LLM release before 0.7 ("TensorRT-LLM (v0.6.1, ...)": the
 * first number after the name, before any ',' or ';')?  Its masked MHA loads a GQA/MQA KV head once
 * per query head (est_infer_input.kv_per_query_head); 0.7 brought MMHA's MQA/GQA optimization and
 * XQA (CHANGELOG 0.7.0/0.7.1).  A cell that names no version is read as a later release */
bool infer_engine_before_xqa(const char *engine_cell);

#endif
