/* fuzz_override.c — the command-line override parser on arbitrary text, applied
 * to a small tree; each input line is one override. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/override.h"
#include "config/yaml_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    ac_err e;
    const char *base = "a: 1\nb:\n  c: [1, 2]\n  d: x\n";
    node *root = yaml_load_string(base, strlen(base), "base", &e);
    char *save = NULL;
    int pos = 1;
    for (char *line = strtok_r(text, "\n", &save); line && root; line = strtok_r(NULL, "\n", &save), pos++) {
        override ov;
        if (override_parse(line, pos, &ov, &e) == 0) {
            (void)override_apply(root, &ov, &e);
            node_free(ov.value);
        }
    }
    node_free(root);
    free(text);
    return 0;
}
