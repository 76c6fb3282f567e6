/* calibrate.h — fitting the estimator's constants to a cluster's measured runs.
 *
 * The measured runs are the ledger's finished rows (<logs>/ledger.sqlite) whose
 * candidate config still exists; each config is read back into an estimator
 * input (candidate_est_from_nemo) on the search's GPU.  Two constants are
 * fitted, both properties of a cluster rather than of a model:
 *   compute_scale    sustained tensor-core rate vs the catalog (clocks, power
 *                    cap, library versions): multiplies every GEMM/attention rate
 *   step_overhead_s  per-step host cost (data loader, logging, sync)
 * by least squares on log(predicted / measured), so a run twice as slow weighs
 * the same whatever its size.  The overhead is fitted only from 3 runs whose
 * predicted steps differ by 1.5x or more (otherwise the two constants trade off
 * and the noise decides); else it keeps its value.
 * The fitted rows go to the per-cluster calibration file later searches load
 * (candidate_cal_path); rows of an earlier file that differ from the
 * compiled-in constants are kept.
 */
#ifndef AC_EXEC_CALIBRATE_H
#define AC_EXEC_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>

#include "estimator/est.h"
#include "util/err.h"

typedef struct {
    char name[256];
    double measured_s, before_s, after_s; /* measured; predicted with the old and the fitted constants */
} calib_run;

typedef struct {
    est_cal before, after;
    bool fitted_overhead;
    calib_run *runs;
    size_t n_runs;
    size_t n_unused;        /* failed, unfinished, or config gone */
    double median_err_before, median_err_after; /* median |predicted / measured - 1|, percent */
    char gpu[32];
} calib_result;

/* Fits over the runs of logs_dir on catalog GPU gpu_name, starting from *start
 * (the constants the search used).  AC_E_INPUT when there is no ledger or no
 * measured run to fit, naming what was found instead. */
int calib_fit(const char *logs_dir, const char *gpu_name, const est_cal *start, calib_result *r, ac_err *e);
void calib_free(calib_result *r);

/* writes the calibration CSV atomically: the fitted rows with the evidence, and
 * the rows of r->before that differ from the compiled-in constants */
int calib_write(const char *path, const calib_result *r, const char *logs_dir, ac_err *e);

#endif
