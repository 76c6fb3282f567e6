/* fuzz_cost_gpus.c — `cost --gpus` entries (name, name:price, name:price:max_gpus),
 * one per input line: an accepted pool has a catalog GPU, a finite price within
 * the bound and a GPU count in [1, 65536] (issue 26: a100_80gb:1e308:8 printed $inf). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cost/cost.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return 0;
    if (size) memcpy(text, data, size);
    text[size] = '\0';
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        cost_pool p;
        ac_err e;
        if (cost_pool_parse(line, 64, "gpus", &p, &e) != 0) continue;
        if (!p.gpu || !isfinite(p.price) || p.price <= 0 || p.price > COST_MAX_PRICE || p.max_gpus < 1 || p.max_gpus > 65536)
            abort();
    }
    free(text);
    return 0;
}
