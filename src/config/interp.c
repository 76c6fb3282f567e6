/* interp.c — see interp.h.
 * Each scalar is resolved once: state 1 while its references are being
 * resolved (meeting a state-1 node again is a cycle), 2 when done. */
#include "config/interp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* INTERP_MAX_TEXT: the longest string an interpolation may build; strings that
 * embed each other twice per step would otherwise double without bound */
enum { MAX_REF_DEPTH = 64, PATHLEN = 512, INTERP_MAX_TEXT = 65536 };

typedef struct {
    node *root;
    ac_err *e;
    int depth;
    char chain[MAX_REF_DEPTH][PATHLEN]; /* keys being resolved, for the cycle message */
} ctx;

static int resolve_node(ctx *c, node *n, const char *path);

static void parent_of(const char *path, char *out, size_t len)
{
    snprintf(out, len, "%s", path);
    char *dot = strrchr(out, '.');
    if (dot) *dot = '\0'; else out[0] = '\0';
}

static int fail_at(ctx *c, const node *n, const char *path, const char *fmt, const char *arg)
{
    char msg[900];
    snprintf(msg, sizeof msg, fmt, arg);
    return ac_err_at(c->e, AC_E_INPUT, n ? n->file : NULL, n ? n->line : 0, n ? n->col : 0, path, "%s", msg);
}

/* absolute key for a reference written inside the map at container path */
static int absolute_ref(const char *ref, const char *container, char *out, size_t len)
{
    if (ref[0] != '.') return snprintf(out, len, "%s", ref) < (int)len ? 0 : -1;
    char base[PATHLEN];
    snprintf(base, sizeof base, "%s", container);
    ref++; /* one dot = this map */
    while (*ref == '.') { /* each further dot climbs one map */
        char up[PATHLEN];
        parent_of(base, up, sizeof up);
        memcpy(base, up, sizeof base);
        ref++;
    }
    if (!*base) return snprintf(out, len, "%s", ref) < (int)len ? 0 : -1;
    return snprintf(out, len, "%s.%s", base, ref) < (int)len ? 0 : -1;
}

/* finds the matching '}' for the "${" at s, honouring nesting */
static const char *match_close(const char *s)
{
    int depth = 0;
    for (const char *p = s; *p; p++) {
        if (p[0] == '$' && p[1] == '{') { depth++; p++; continue; }
        if (*p == '}' && --depth == 0) return p;
    }
    return NULL;
}

/* growable string */
typedef struct { char *s; size_t len, cap; } sbuf;
static int sb_add(sbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = (b->len + n + 1) * 2;
        char *p = realloc(b->s, cap);
        if (!p) return -1;
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
    return 0;
}

static node *eval_expr(ctx *c, const node *at, const char *expr, const char *container, const char *path);

/* evaluates a text that may contain ${...}; returns a new node */
static node *eval_text(ctx *c, const node *at, const char *text, const char *container, const char *path)
{
    size_t tlen = strlen(text);
    if (text[0] == '$' && text[1] == '{') {
        const char *close = match_close(text);
        if (close && (size_t)(close - text) == tlen - 1) {
            char *inner = strndup(text + 2, tlen - 3);
            if (!inner) { ac_err_set(c->e, AC_E_NOMEM, "out of memory"); return NULL; }
            node *r = eval_expr(c, at, inner, container, path);
            free(inner);
            return r;
        }
    }
    sbuf out = { 0 };
    const char *p = text;
    while (*p) {
        const char *open = strstr(p, "${");
        if (!open) { if (sb_add(&out, p, strlen(p))) goto oom; break; }
        if (sb_add(&out, p, (size_t)(open - p))) goto oom;
        const char *close = match_close(open);
        if (!close) { fail_at(c, at, path, "unterminated interpolation in '%s'", text); free(out.s); return NULL; }
        char *inner = strndup(open + 2, (size_t)(close - open - 2));
        if (!inner) goto oom;
        node *r = eval_expr(c, at, inner, container, path);
        free(inner);
        if (!r) { free(out.s); return NULL; }
        if (r->kind != NODE_SCALAR) {
            node_free(r);
            fail_at(c, at, path, "cannot embed a list or map inside the string '%s'", text);
            free(out.s);
            return NULL;
        }
        size_t rlen = strlen(r->text);
        if (out.len + rlen + strlen(close + 1) > INTERP_MAX_TEXT) {
            node_free(r);
            free(out.s);
            char lim[160];
            snprintf(lim, sizeof lim, "the interpolated string would exceed %d characters (in '%%.60s')", INTERP_MAX_TEXT);
            fail_at(c, at, path, lim, text);
            return NULL;
        }
        if (sb_add(&out, r->text, rlen)) { node_free(r); goto oom; }
        node_free(r);
        p = close + 1;
    }
    node *res = node_str(out.s ? out.s : "");
    free(out.s);
    if (!res) ac_err_set(c->e, AC_E_NOMEM, "out of memory");
    return res;
oom:
    free(out.s);
    ac_err_set(c->e, AC_E_NOMEM, "out of memory");
    return NULL;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) s[--n] = '\0';
    return s;
}

typedef double (*binop_fn)(double, double);
static double op_multiply(double a, double b) { return a * b; }
static double op_divide_ceil(double a, double b) { return ceil(a / b); }
static double op_divide_floor(double a, double b) { return floor(a / b); }

/* the original registers exactly these three (main.py) */
static const struct { const char *name; binop_fn fn; bool zero_divisor_ok; } BINOPS[] = {
    { "multiply", op_multiply, true },
    { "divide_ceil", op_divide_ceil, false },
    { "divide_floor", op_divide_floor, false },
};

static node *number_node(double v)
{
    if (v == floor(v) && fabs(v) < 9.0e15) return node_int((long long)v);
    return node_float(v);
}

static node *eval_expr(ctx *c, const node *at, const char *expr_in, const char *container, const char *path)
{
    char expr[PATHLEN * 2];
    if (snprintf(expr, sizeof expr, "%s", expr_in) >= (int)sizeof expr) {
        fail_at(c, at, path, "interpolation too long: %.60s", expr_in);
        return NULL;
    }
    char *colon = strchr(expr, ':');
    char *brace = strstr(expr, "${");
    if (colon && (!brace || colon < brace)) {
        *colon = '\0';
        char *name = trim(expr), *args = colon + 1;
        if (!strcmp(name, "oc.env")) {
            char *var = trim(args);
            const char *v = getenv(var);
            if (!v) { fail_at(c, at, path, "environment variable %s is not set", var); return NULL; }
            return node_str(v);
        }
        for (size_t i = 0; i < sizeof BINOPS / sizeof BINOPS[0]; i++) {
            if (strcmp(name, BINOPS[i].name) != 0) continue;
            /* split at the top-level comma */
            int depth = 0;
            char *split = NULL;
            for (char *p = args; *p; p++) {
                if (p[0] == '$' && p[1] == '{') depth++;
                else if (*p == '}') depth--;
                else if (*p == ',' && depth == 0) { split = p; break; }
            }
            if (!split) { fail_at(c, at, path, "resolver %s needs two arguments", name); return NULL; }
            *split = '\0';
            double v[2];
            char *parts[2] = { trim(args), trim(split + 1) };
            for (int k = 0; k < 2; k++) {
                node *r = eval_text(c, at, parts[k], container, path);
                if (!r) return NULL;
                bool ok = node_get_double(r, &v[k]) || (r->quoted && (r->quoted = false, node_get_double(r, &v[k])));
                node_free(r);
                if (!ok) { fail_at(c, at, path, "resolver %s needs numbers", name); return NULL; }
            }
            if (!BINOPS[i].zero_divisor_ok && v[1] == 0) {
                fail_at(c, at, path, "resolver %s: division by zero", name);
                return NULL;
            }
            return number_node(BINOPS[i].fn(v[0], v[1]));
        }
        fail_at(c, at, path, "unknown resolver '%s' (known: multiply, divide_ceil, divide_floor, oc.env)", name);
        return NULL;
    }
    char ref[PATHLEN];
    char *r = trim(expr);
    if (absolute_ref(r, container, ref, sizeof ref) != 0 || !*ref) {
        fail_at(c, at, path, "bad reference ${%s}", r);
        return NULL;
    }
    node *target = node_get_path(c->root, ref);
    if (!target) {
        char msg[PATHLEN + 64];
        snprintf(msg, sizeof msg, "${%s}: no key '%s' to refer to", r, ref);
        fail_at(c, at, path, "dangling reference %s", msg);
        return NULL;
    }
    if (resolve_node(c, target, ref) != 0) return NULL;
    if (node_is_missing(target)) {
        fail_at(c, at, path, "refers to '%s', a mandatory value (\?\?\?) that is not set", ref);
        return NULL;
    }
    node *copy = node_clone(target);
    if (!copy) ac_err_set(c->e, AC_E_NOMEM, "out of memory");
    return copy;
}

static int resolve_scalar(ctx *c, node *n, const char *path)
{
    if (n->resolving == 2 || !strstr(n->text, "${")) { n->resolving = 2; return 0; }
    if (n->resolving == 1) {
        char msg[MAX_REF_DEPTH * 64] = "";
        size_t off = 0;
        int start = 0;
        for (int i = 0; i < c->depth; i++)
            if (!strcmp(c->chain[i], path)) { start = i; break; }
        for (int i = start; i < c->depth && off < sizeof msg; i++)
            off += (size_t)snprintf(msg + off, sizeof msg - off, "%s -> ", c->chain[i]);
        if (off < sizeof msg) snprintf(msg + off, sizeof msg - off, "%s", path);
        return fail_at(c, n, path, "interpolation cycle: %s", msg);
    }
    if (c->depth >= MAX_REF_DEPTH) return fail_at(c, n, path, "interpolation nested deeper than %s", "64");
    n->resolving = 1;
    snprintf(c->chain[c->depth++], PATHLEN, "%s", path);
    char container[PATHLEN];
    parent_of(path, container, sizeof container);
    node *r = eval_text(c, n, n->text, container, path);
    c->depth--;
    if (!r) { n->resolving = 0; return -1; }
    /* take the result's content in place, keep this node's origin */
    char *file = n->file;
    int line = n->line, col = n->col;
    n->file = NULL;
    free(n->text);
    node tmp = *r;
    *n = tmp;
    free(n->file);
    n->file = file;
    n->line = line;
    n->col = col;
    n->resolving = 2;
    free(r); /* the shell only; its children now belong to n */
    return 0;
}

static int resolve_node(ctx *c, node *n, const char *path)
{
    if (n->kind == NODE_SCALAR) return resolve_scalar(c, n, path);
    char child[PATHLEN];
    for (size_t i = 0; i < n->len; i++) {
        if (n->kind == NODE_MAP) {
            if (snprintf(child, sizeof child, "%s%s%s", path, *path ? "." : "", n->pairs[i].key) >= (int)sizeof child)
                return fail_at(c, n, path, "key path too long under %s", path);
            if (resolve_node(c, n->pairs[i].val, child) != 0) return -1;
        } else {
            snprintf(child, sizeof child, "%s%s%zu", path, *path ? "." : "", i);
            if (resolve_node(c, n->items[i], child) != 0) return -1;
        }
    }
    return 0;
}

int interp_resolve_all(node *root, ac_err *e)
{
    ctx *c = calloc(1, sizeof *c);
    if (!c) return ac_err_set(e, AC_E_NOMEM, "out of memory");
    c->root = root;
    c->e = e;
    int rc = resolve_node(c, root, "");
    free(c);
    return rc;
}

int interp_resolve_path(node *root, const char *path, ac_err *e)
{
    node *n = node_get_path(root, path);
    if (!n) return 0;
    ctx *c = calloc(1, sizeof *c);
    if (!c) return ac_err_set(e, AC_E_NOMEM, "out of memory");
    c->root = root;
    c->e = e;
    int rc = resolve_node(c, n, path);
    free(c);
    return rc;
}
