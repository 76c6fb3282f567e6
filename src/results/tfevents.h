/* tfevents.h — step time of a training run from its TensorBoard event files
 * (and, failing those, from its plain-text log).
 *
 * An event file is a sequence of TFRecords: u64 length (LE), u32 masked
 * CRC32C of the length bytes, the payload, u32 masked CRC32C of the payload.
 * Each payload is a tensorflow.Event protobuf (decoded with protobuf-c from
 * src/results/proto/tfevent.proto).  We read the scalar tag
 * "train_step_timing in s" (NeMo since 2023-09; "train_step_timing" before)
 * and apply the original's averaging rule (reference §6).  Every framing or
 * CRC error is reported with the file and byte offset; nothing is guessed.
 */
#ifndef AC_RESULTS_TFEVENTS_H
#define AC_RESULTS_TFEVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define TFEV_TAG "train_step_timing in s"
#define TFEV_TAG_OLD "train_step_timing"

/* CRC-32C (Castagnoli) of n bytes, and TFRecord's mask of it:
 * ((crc >> 15) | (crc << 17)) + 0xa282ead8 (tensorflow/core/lib/hash/crc32c.h) */
uint32_t tfev_crc32c(const void *data, size_t n);
uint32_t tfev_masked_crc(const void *data, size_t n);

/* The step-timing values of one event file's bytes, in file order: tag
 * "train_step_timing in s", or the old tag when the new one is absent.
 * *vals is malloc'd (NULL when none).  -1 with AC_E_INPUT on bad framing,
 * CRC or protobuf (what names the file in the message). */
int tfev_parse(const uint8_t *buf, size_t len, const char *what, double **vals, size_t *n, ac_err *e);
int tfev_read_file(const char *path, double **vals, size_t *n, ac_err *e);

/* The original's rule (reference §6): with ≤ 6 values there is no result
 * (returns -1, no error set); otherwise drop the first 5 and return the mean
 * rounded to 4 decimals in *avg. */
int tfev_average(const double *vals, size_t n, double *avg);

/* Step-timing values from a NeMo/Lightning text log: every
 * "train_step_timing in s=X" (or ": X", or the old tag) in order. */
int tfev_parse_text(const char *text, double **vals, size_t *n, ac_err *e);

/* The measured step time of a run directory (<logs>/training_logs/<name>):
 * events* files under dir/results (the last one, by name, that yields a
 * result), else *.log / *.out files in dir through the text parser.
 * 0 with *avg and *n_values; -1 with AC_E_INPUT when nothing usable was found
 * (a corrupt event file is named in the message). */
int tfev_run_step_time(const char *run_dir, double *avg, size_t *n_values, ac_err *e);

/* Writer (emulated jobs, tests): an event file with a file_version record and
 * one scalar per step (tag, step = first_step + i), atomically. */
int tfev_write_file(const char *path, const char *tag, const double *vals, size_t n, long first_step, ac_err *e);
/* The same into a malloc'd buffer. */
int tfev_encode(const char *tag, const double *vals, size_t n, long first_step, uint8_t **out, size_t *len, ac_err *e);

#endif
