/* fuzz_infer_csv.c — `validate --infer` on arbitrary bytes: the CSV reader, then
 * every row through the inference row mapping (engine, architecture, GPU,
 * tp x pp, precision, measurement) and the inference model.  Nothing may crash,
 * overflow or divide by zero (issue 26: tp 65536 x pp 65536 did). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "validate/infer_validate.h"
#include "util/csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    if (!sink && !(sink = fopen("/dev/null", "w"))) return 0;
    csv_table t;
    ac_err e;
    if (csv_parse((const char *)data, size, "fuzz.csv", &t, &e) != 0) return 0;
    char *rows = NULL;
    (void)infer_validate_table(&t, "fuzz.csv", NULL, &rows, sink, size % 2 == 1, &e);
    free(rows);
    csv_free(&t);
    return 0;
}
