/* infer_summary.h — inference results: benchmark-log parsing, the summary
 * CSVs and the printed table (reference §7, with the original's crashes turned
 * into recorded failures).
 *
 * Log parsing is the original's: in the one log_job*.out of a configuration's
 * folder, the first line containing "FT-CPP-decoding-beamsearch-time"; latency
 * = the second-to-last token of that line split on single spaces (the line
 * ends "… <ms> ms"), in ms.  A missing log, several logs, no such line or a
 * token that is not a positive finite number is a failed row with a reason.
 *
 * <results_dir>/inference/final_summary/
 *   final_output.csv        TP, PP, BS, Latency [ms], Throughput per GPU
 *                           [samples/sec/gpu] (the original's columns), then
 *                           Source, Memory per GPU [GiB], Fits, Tokens per
 *                           second per instance, Input len, Output len,
 *                           Concurrency, Precision, TTFT [ms], ITL [ms],
 *                           Total tokens per second per GPU, Goodput
 *                           [requests/sec/gpu], KV cache capacity [sequences
 *                           per instance], Request rate [requests/sec per
 *                           instance], EP, Percentile, TTFT pN [ms], ITL pN
 *                           [ms], Latency pN [ms] (at the percentile the
 *                           limits apply to; empty when means), Predicted
 *                           TTFT [ms], Predicted ITL [ms], Predicted latency
 *                           [ms], Predicted throughput per GPU
 *                           [requests/sec/gpu] (a measured row's prediction
 *                           beside it; empty on predicted rows), Status,
 *                           Reason.  Latency is end to
 *                           end (a request); samples are requests.
 *                           Rows within the latency limit first (sorted by
 *                           throughput per GPU, descending), then rows that do
 *                           not fit in GPU memory, then failed rows (empty
 *                           latency/throughput, Reason says why).  Several
 *                           (input, output) pairs: one block per pair, in the
 *                           order the pairs were given.
 *   over_latency_limit.csv  same columns: rows whose latency exceeds
 *                           max_latency_ms (always written; header only when
 *                           none or no limit), so final_output.csv holds only
 *                           usable rows and nothing is silently dropped.
 *   inference_sweep_configs.csv  header TP,PP,BS and one row per
 *                           configuration, as the original writes; with
 *                           several length pairs two more columns Input len,
 *                           Output len; with a concurrency (the measured
 *                           serving engines' jobs) Input len, Output len,
 *                           Concurrency.
 */
#ifndef AC_RESULTS_INFER_SUMMARY_H
#define AC_RESULTS_INFER_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util/err.h"
#include "util/json.h"
#include "util/strbuf.h"

#define RESULTS_FTLOG_TAG "FT-CPP-decoding-beamsearch-time"

typedef enum { RES_INFER_PREDICTED = 0, RES_INFER_MEASURED } results_infer_source;

/* in sort order: usable rows first */
typedef enum {
    RES_INFER_OK = 0,
    RES_INFER_OVER_LATENCY, /* latency > max_latency_ms */
    RES_INFER_NO_FIT,       /* weights + KV cache exceed GPU memory (predicted) */
    RES_INFER_FAILED        /* no latency: missing/duplicated log, no tag, bad number */
} results_infer_status;

typedef struct {
    int tp, pp, bs, input_len, output_len;
    results_infer_source source;
    double latency_ms;   /* NAN when failed */
    double thr_per_gpu;  /* samples/s/GPU, NAN when failed */
    double tokens_per_s; /* generated tokens/s of the whole replica, NAN when failed */
    double mem_gib;      /* per GPU, NAN unknown */
    double mem_limit_gib; /* usable memory per GPU, NAN unknown (how far a model that does not fit is) */
    int fits;            /* 1 yes, 0 no, -1 unknown */
    /* serving (estimator/serve.h); NAN / 0 / "" when not known */
    int concurrency;          /* the load: concurrent requests (0: the batch size, the original's) */
    char precision[16];       /* bf16, fp8, fp8_kv, ... ("" = data_type) */
    double ttft_ms, itl_ms;   /* means */
    double requests_per_s;    /* one instance; NAN: bs / latency (a static batch) */
    double total_tok_s_per_gpu; /* input + output tokens per second per GPU */
    int kv_capacity;          /* sequences of input+output tokens one instance's KV cache holds (0 unknown) */
    double request_rate;      /* open-loop load, requests/s offered to one instance (0: a concurrency) */
    int ep;                   /* MoE expert parallelism (0/1: none) */
    int percentile;           /* the limits' percentile (0: means) */
    double ttft_p_ms, itl_p_ms, latency_p_ms; /* at percentile (NAN without one); the limits apply to them */
    /* a measured row's prediction beside it (NAN: none, or a predicted row) */
    double pred_ttft_ms, pred_itl_ms, pred_latency_ms, pred_requests_per_s;
    results_infer_status status;
    char reason[256];    /* "" when ok */
} results_infer_row;

/* a row for (tp, pp, bs, in, out) with everything unknown */
results_infer_row results_infer_row_init(int tp, int pp, int bs, int input_len, int output_len, results_infer_source src);

/* reference §7 (inference_summary.py): throughput per GPU = bs·1000 / latency_ms / tp / pp, samples/s/GPU */
double results_infer_thr_per_gpu(int bs, double latency_ms, int tp, int pp);
/* generated tokens per second of one replica = bs·output_len·1000 / latency_ms (ours) */
double results_infer_tokens_per_s(int bs, int output_len, double latency_ms);

/* Parses benchmark log text (may hold NUL bytes).  0 and *latency_ms, or -1
 * with reason ("no line containing FT-CPP-decoding-beamsearch-time", …). */
int results_ftlog_parse(const char *text, size_t len, double *latency_ms, char *reason, size_t reason_len);
/* Finds the single log_job*.out in dir and parses it; -1 with reason otherwise
 * ("missing log", "3 logs", unreadable, or the parse failure). */
int results_ftlog_read_dir(const char *dir, double *latency_ms, char *reason, size_t reason_len);

/* the limits a row must meet (ms, NAN = none); e2e is the original's max_latency_ms */
typedef struct {
    double max_latency_ms, max_ttft_ms, max_itl_ms;
} results_infer_limits;

/* Sets throughputs and the status from latency_ms (NAN + reason = failed), fits
 * and the limit (NAN = none).  A failed row keeps its reason. */
void results_infer_row_finish(results_infer_row *r, double max_latency_ms);
/* the same with TTFT and ITL limits too; the reason names the first limit missed */
void results_infer_row_finish_limits(results_infer_row *r, const results_infer_limits *l);
/* goodput: requests/s per GPU when the row meets every limit (status ok), else 0; NAN when failed */
double results_infer_goodput(const results_infer_row *r);
/* a failed row with the reason (printf-style) */
void results_infer_row_fail(results_infer_row *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Sorts in place: by length pair (first-appearance order), then status, then
 * throughput per GPU descending, latency ascending, tp, pp, bs. */
int results_infer_sort(results_infer_row *rows, size_t n, ac_err *e);

/* the CSV header and one row of final_output.csv / over_latency_limit.csv */
void results_infer_csv_header(strbuf *b);
void results_infer_csv_row(strbuf *b, const results_infer_row *r);

/* writes final_output.csv, over_latency_limit.csv and summary.json (every row per
 * (input, output) pair with its status, for the report) under
 * <results_dir>/inference/final_summary/ (created); rows should be sorted.  model
 * (run name) and gpu (catalog name) go into summary.json, so a report never shows
 * another model's or GPU's sweep as its own. */
int results_infer_write_summary(const char *results_dir, const results_infer_row *rows, size_t n, double max_latency_ms,
                                const char *model, const char *gpu, ac_err *e);

/* the same with the TTFT and ITL limits written into summary.json too (the report's goodput frontier) */
int results_infer_write_summary_limits(const char *results_dir, const results_infer_row *rows, size_t n,
                                       const results_infer_limits *l, const char *model, const char *gpu, ac_err *e);

/* inference_sweep_configs.csv under <results_dir>/inference/final_summary/;
 * with_lengths adds the Input len, Output len columns */
int results_infer_write_configs(const char *results_dir, const results_infer_row *rows, size_t n, bool with_lengths,
                                ac_err *e);
/* reads it back (3 or 5 columns; other rows are AC_E_INPUT); rows get
 * default_in/default_out when the file has 3 columns.  *out is malloc'd. */
int results_infer_read_configs(const char *path, int default_in, int default_out, results_infer_source src,
                               results_infer_row **out, size_t *n, ac_err *e);

/* One table per length pair: the top top_n usable rows, then counts of rows
 * over the limit, not fitting and failed, with the failures' reasons.  Rows sorted. */
void results_infer_print(FILE *out, const results_infer_row *rows, size_t n, int top_n, double max_latency_ms);
/* the same with every limit named (TTFT, ITL, e2e) */
void results_infer_print_limits(FILE *out, const results_infer_row *rows, size_t n, int top_n, const results_infer_limits *l);
/* the same as JSON: an array "tables" of {input_len, output_len, rows:[…top_n…], over_latency, no_fit, failed} */
void results_infer_json(json_writer *w, const results_infer_row *rows, size_t n, int top_n);

/* measured serving rows beside their prediction (TTFT, ITL, e2e, requests/s per GPU, each
 * with the prediction's error); nothing when no row has a prediction */
void results_infer_print_measured(FILE *out, const results_infer_row *rows, size_t n);

#endif
