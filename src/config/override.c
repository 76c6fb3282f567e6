/* override.c — see override.h. */
#include "config/override.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "config/yaml_io.h"

static int bad(ac_err *e, int position, const char *arg, const char *why)
{
    return ac_err_at(e, AC_E_INPUT, "command line", 0, 0, NULL, "override %d '%s': %s", position, arg, why);
}

int override_parse(const char *arg, int position, override *out, ac_err *e)
{
    memset(out, 0, sizeof *out);
    out->position = position;
    if (strlen(arg) >= sizeof out->raw) return bad(e, position, "(too long)", "longer than 1023 characters");
    snprintf(out->raw, sizeof out->raw, "%s", arg);
    const char *p = arg;
    out->kind = OV_SET;
    if (*p == '+') { out->kind = OV_ADD; p++; }
    else if (*p == '~') { out->kind = OV_DELETE; p++; }
    const char *eq = strchr(p, '=');
    size_t klen = eq ? (size_t)(eq - p) : strlen(p);
    if (klen == 0) return bad(e, position, arg, "missing key before '='");
    if (klen >= sizeof out->key) return bad(e, position, arg, "key too long");
    bool empty_segment = p[0] == '.' || p[klen - 1] == '.';
    for (size_t i = 0; i < klen; i++) {
        unsigned char ch = (unsigned char)p[i];
        if (!(isalnum(ch) || ch == '_' || ch == '.' || ch == '-' || ch == '/'))
            return bad(e, position, arg, "a key may hold only letters, digits, '_', '-', '.' and '/'");
        if (ch == '.' && i + 1 < klen && p[i + 1] == '.') empty_segment = true;
    }
    /* only the key: the value may hold '..' (`${..parent}`, `logs=../x`) */
    if (empty_segment) return bad(e, position, arg, "empty key segment");
    memcpy(out->key, p, klen);
    out->key[klen] = '\0';
    if (out->kind == OV_DELETE) {
        if (eq) return bad(e, position, arg, "'~key' deletes a key and takes no value");
        return 0;
    }
    if (!eq) return bad(e, position, arg, "expected key=value");
    const char *val = eq + 1;
    if (!*val) {
        out->value = node_str("");
    } else {
        char name[64];
        snprintf(name, sizeof name, "override %d", position);
        ac_err ye;
        out->value = yaml_load_string(val, strlen(val), name, &ye);
        if (!out->value) {
            char msg[1100];
            snprintf(msg, sizeof msg, "value is not valid YAML flow text: %s (column %d)", ye.msg, ye.col);
            return bad(e, position, arg, msg);
        }
        /* yaml_load_string maps an empty/null document to {}; keep a literal null */
        if (out->value->kind == NODE_MAP && out->value->len == 0 && val[0] != '{') {
            node_free(out->value);
            out->value = node_null();
        }
    }
    if (!out->value) return ac_err_set(e, AC_E_NOMEM, "out of memory");
    node_set_origin(out->value, "command line", 0, 0);
    return 0;
}

int override_apply(node *root, const override *ov, ac_err *e)
{
    node *existing = node_get_path(root, ov->key);
    if (ov->kind == OV_DELETE) {
        if (!existing) return bad(e, ov->position, ov->raw, "no such key to delete");
        char parent[256];
        snprintf(parent, sizeof parent, "%s", ov->key);
        char *dot = strrchr(parent, '.');
        const char *leaf = ov->key;
        node *container = root;
        if (dot) {
            *dot = '\0';
            leaf = dot + 1;
            container = node_get_path(root, parent);
        }
        node_map_remove(container, leaf);
        return 0;
    }
    if (ov->kind == OV_SET && !existing)
        return -2; /* caller reports the unknown key with a suggestion */
    if (ov->kind == OV_ADD && existing)
        return bad(e, ov->position, ov->raw, "key already exists; drop the '+' to change it");
    node *copy = node_clone(ov->value);
    if (!copy) return ac_err_set(e, AC_E_NOMEM, "out of memory");
    if (node_set_path(root, ov->key, copy, true) != 0)
        return bad(e, ov->position, ov->raw, "a parent of this key is not a mapping");
    return 0;
}
