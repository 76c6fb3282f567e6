/* fuzz_trtllm_bench.c — trtllm-bench's report parser (printed PERFORMANCE OVERVIEW and
 * --report_json) on arbitrary bytes: nothing may crash, leak or read past the input; a
 * report that parses holds only finite, non-negative figures or NAN. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "results/trtllm_bench.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    results_serve_metrics m;
    char why[256];
    if (results_trtllm_bench_parse((const char *)data, size, &m, why, sizeof why) == 0) {
        const double *v = &m.completed;
        for (size_t i = 0; i < sizeof m / sizeof *v; i++)
            if (!isnan(v[i]) && !(v[i] >= 0 && isfinite(v[i]))) abort();
    }
    return 0;
}
