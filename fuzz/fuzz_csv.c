/* fuzz_csv.c — the CSV reader on arbitrary bytes, then the first rows through the
 * validator's row mapping (the path `autoconfig validate --csv` takes) and every cell
 * through the cell spellings it reads beside it (memory readings, yes/no).  Only the
 * first MAX_ROWS rows are mapped and estimated: any row can be mutated into first
 * place, and estimating every row of a long input only slowed the fuzzer down. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "validate/spelling.h"
#include "validate/validate.h"
#include "util/csv.h"

enum { MAX_ROWS = 4 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    csv_table t;
    ac_err e;
    if (csv_parse((const char *)data, size, "fuzz", &t, &e) != 0) return 0;
    for (size_t i = 0; i < t.n && i < MAX_ROWS; i++) {
        est_input in;
        est_result r;
        char why[256];
        if (validate_row_input(&t, &t.rows[i], &in, why, sizeof why) == 0) (void)est_evaluate(&in, &r);
        for (int c = -1; c <= t.rows[i].n; c++) {
            const char *cell = csv_get(&t.rows[i], c);
            double gib;
            bool b;
            (void)spell_memory_gib(cell, &gib);
            (void)spell_bool(cell, &b);
        }
    }
    (void)csv_col(&t, "tp");
    csv_free(&t);
    return 0;
}
