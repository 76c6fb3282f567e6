/* fuzz_csv.c — the CSV reader on arbitrary bytes, then every row through the
 * validator's row mapping (the path `autoconfig validate --csv` takes). */
#include <stdint.h>
#include <stdlib.h>

#include "validate/validate.h"
#include "util/csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    csv_table t;
    ac_err e;
    if (csv_parse((const char *)data, size, "fuzz", &t, &e) != 0) return 0;
    for (size_t i = 0; i < t.n; i++) {
        est_input in;
        est_result r;
        char why[256];
        if (validate_row_input(&t, &t.rows[i], &in, why, sizeof why) == 0) (void)est_evaluate(&in, &r);
        for (int c = -1; c <= t.rows[i].n; c++) (void)csv_get(&t.rows[i], c);
    }
    (void)csv_col(&t, "tp");
    csv_free(&t);
    return 0;
}
