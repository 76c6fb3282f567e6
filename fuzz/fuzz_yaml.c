/* fuzz_yaml.c — the YAML loader, emitter and interpolation on arbitrary bytes:
 * load, dump, reload, resolve; nothing may crash, leak or loop.  The schema's key
 * checks (and their "did you mean" search over every key) are fuzz_config's. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/interp.h"
#include "config/yaml_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ac_err e;
    node *n = yaml_load_string((const char *)data, size, "fuzz", &e);
    if (!n) return 0;
    char *out = yaml_dump_string(n, &e);
    if (out) {
        node *m = yaml_load_string(out, strlen(out), "fuzz-dump", &e);
        node_free(m);
        free(out);
    }
    (void)interp_resolve_all(n, &e);
    char *flow = node_to_flow(n);
    free(flow);
    node_free(n);
    return 0;
}
