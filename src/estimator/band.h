/* band.h — how far a prediction may be off: the uncertainty band of a GPU and stack.
 *
 * data/bands.csv (compiled in) holds, per GPU and training stack, the relative band of
 * step time and of memory, derived from validation residuals (`autoconfig validate
 * --bands`; the file says how).  est_evaluate copies the band of its GPU and stack into
 * the result (est_result.band_time_rel, band_mem_rel, band_rank_rel); est_band_rel and
 * est_rank_band_rel read it.
 */
#ifndef AC_ESTIMATOR_BAND_H
#define AC_ESTIMATOR_BAND_H

#include "estimator/gpu.h"
#include "estimator/stack.h"
#include "util/err.h"

/* Loads the table once; -1 only when the data file is malformed. */
int est_band_load(ac_err *e);
/* the band of a GPU and stack (NULL stack: megatron-core), falling back to the stack's
 * all-GPU row, then to the overall row; *rows: the validation rows behind it (0 when the
 * table has no row at all, and the bands are then 0) */
void est_band_of(const gpu_spec *g, const est_stack *s, double *time_rel, double *mem_rel, double *rank_rel, int *rows);

/* the fewest validated runs a (GPU, stack) row or a stack's all-GPU row of data/bands.csv is
 * written from (`validate --bands`); with fewer the next row down stands in */
#define EST_BAND_MIN_ROWS 5

/* where the band of a GPU and stack comes from: EST_BAND_OWN, a row of that GPU and stack;
 * EST_BAND_STACK, the stack's all-GPU row (fewer than EST_BAND_MIN_ROWS validated runs on that
 * GPU); EST_BAND_POOLED, the overall row (fewer of that stack at all: another stack's figure);
 * EST_BAND_NONE */
typedef enum { EST_BAND_NONE = 0, EST_BAND_POOLED, EST_BAND_STACK, EST_BAND_OWN } est_band_source;
est_band_source est_band_source_of(const gpu_spec *g, const est_stack *s);

#endif
