/* fuzz_override.c — the command-line override parser on arbitrary text, applied
 * to a small tree; each input line is one override (the first MAX_LINES: a
 * command line holds a few, and each line parses a YAML value). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/override.h"
#include "config/yaml_io.h"

enum { MAX_LINES = 16 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static node *base; /* parsed once, cloned per input */
    ac_err e;
    if (!base) {
        static const char text[] = "a: 1\nb:\n  c: [1, 2]\n  d: x\n";
        if (!(base = yaml_load_string(text, strlen(text), "base", &e))) return 0;
    }
    char *text = malloc(size + 1);
    if (!text) return 0;
    if (size) memcpy(text, data, size);
    text[size] = '\0';
    node *root = node_clone(base);
    char *save = NULL;
    int pos = 1;
    for (char *line = strtok_r(text, "\n", &save); line && root && pos <= MAX_LINES;
         line = strtok_r(NULL, "\n", &save), pos++) {
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
