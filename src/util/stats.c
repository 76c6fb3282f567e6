/* stats.c — order statistics (stats.h) */
#include "util/stats.h"

#include <math.h>

double stats_quantile(double *v, size_t n, double q)
{
    if (!n) return NAN;
    for (size_t i = 1; i < n; i++) { /* insertion sort: n is a few hundred */
        double x = v[i];
        size_t j = i;
        while (j && v[j - 1] > x) { v[j] = v[j - 1]; j--; }
        v[j] = x;
    }
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)pos;
    if (lo + 1 >= n) return v[n - 1];
    double f = pos - (double)lo;
    return v[lo] * (1 - f) + v[lo + 1] * f;
}
