/* fuzz_ftlog.c — the FasterTransformer benchmark-log parser on arbitrary bytes
 * (NULs, no newline, huge tokens): a latency or a reason, never a crash. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "results/infer_summary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    double lat;
    char why[256];
    int rc = results_ftlog_parse((const char *)data, size, &lat, why, sizeof why);
    if (rc == 0 && !(lat > 0 && isfinite(lat))) abort();
    if (rc != 0 && (!why[0] || memchr(why, '\0', sizeof why) == NULL)) abort();
    results_infer_row r = results_infer_row_init(1, 1, 8, 60, 20, RES_INFER_MEASURED);
    if (rc == 0) r.latency_ms = lat;
    else results_infer_row_fail(&r, "%s", why);
    results_infer_row_finish(&r, 100.0);
    strbuf b;
    sb_init(&b);
    results_infer_csv_row(&b, &r);
    sb_free(&b);
    return 0;
}
