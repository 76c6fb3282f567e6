/* fuzz_config.c — config loading on an arbitrary config.yaml: the defaults list
 * (group files from the repository's conf/, or $AUTOCONFIG_FUZZ_CONF), schema key
 * checks, interpolation and the typed filling of every key.  Input lines after a
 * line "@@" are command-line overrides.  Nothing may crash, leak or loop. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/cfg.h"

enum { MAX_OV = 8 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *conf = getenv("AUTOCONFIG_FUZZ_CONF");
    char *text = malloc(size + 1);
    if (!text) return 0;
    if (size) memcpy(text, data, size);
    text[size] = '\0';
    size_t ylen = size;
    char *ov[MAX_OV];
    int n_ov = 0;
    char *sep = strstr(text, "\n@@\n");
    if (sep) {
        ylen = (size_t)(sep - text) + 1;
        char *save = NULL;
        for (char *line = strtok_r(sep + 4, "\n", &save); line && n_ov < MAX_OV; line = strtok_r(NULL, "\n", &save))
            ov[n_ov++] = line;
    }
    ac_config c;
    ac_err e;
    if (cfg_load_text(conf ? conf : "conf", text, ylen, n_ov, ov, &c, &e) == 0) cfg_free(&c);
    free(text);
    return 0;
}
