/* stats.h — order statistics of a handful of values (validation errors, calibration residuals). */
#ifndef AC_UTIL_STATS_H
#define AC_UTIL_STATS_H

#include <stddef.h>

/* the q-quantile (0..1) of n values, sorting them in place, linearly interpolated between
 * neighbours (q = 0.5 is the median of an even count: the mean of the middle two); NAN when
 * n is 0 */
double stats_quantile(double *v, size_t n, double q);

#endif
