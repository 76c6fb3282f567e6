/* fuzz_tfevents.c — the TensorBoard event-file reader (TFRecord framing, CRC,
 * protobuf) and the text-log fallback on arbitrary bytes: nothing may crash,
 * leak or loop; a file that parses must give a finite average or none. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "results/tfevents.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ac_err e;
    double *v = NULL, avg;
    size_t n = 0;
    if (tfev_parse(data, size, "fuzz", &v, &n, &e) == 0) {
        (void)tfev_average(v, n, &avg);
        free(v);
    }
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    if (tfev_parse_text(text, &v, &n, &e) == 0) {
        (void)tfev_average(v, n, &avg);
        free(v);
    }
    free(text);
    return 0;
}
