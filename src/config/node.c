/* node.c — see node.h. */
#include "config/node.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_str(const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static node *node_alloc(node_kind kind)
{
    node *n = calloc(1, sizeof *n);
    if (n) n->kind = kind;
    return n;
}

node *node_scalar(const char *text, bool quoted)
{
    node *n = node_alloc(NODE_SCALAR);
    if (!n) return NULL;
    n->text = dup_str(text ? text : "");
    if (!n->text) { free(n); return NULL; }
    n->quoted = quoted;
    return n;
}

node *node_str(const char *text) { return node_scalar(text, true); }
node *node_null(void) { return node_scalar("null", false); }
node *node_bool(bool v) { return node_scalar(v ? "true" : "false", false); }

node *node_int(long long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    return node_scalar(buf, false);
}

node *node_float(double v)
{
    char buf[64];
    if (isnan(v)) return node_scalar(".nan", false);
    if (isinf(v)) return node_scalar(v > 0 ? ".inf" : "-.inf", false);
    /* shortest %g that reads back exactly */
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    /* YAML 1.1 readers (PyYAML) need a dot in the mantissa to see a float */
    if (!strpbrk(buf, ".n")) {
        char *e = strchr(buf, 'e');
        char out[96];
        if (e) snprintf(out, sizeof out, "%.*s.0%s", (int)(e - buf), buf, e);
        else snprintf(out, sizeof out, "%s.0", buf);
        return node_scalar(out, false);
    }
    return node_scalar(buf, false);
}

node *node_seq(void) { return node_alloc(NODE_SEQ); }
node *node_map(void) { return node_alloc(NODE_MAP); }

void node_free(node *n)
{
    if (!n) return;
    if (n->kind == NODE_SEQ) {
        for (size_t i = 0; i < n->len; i++) node_free(n->items[i]);
        free(n->items);
    } else if (n->kind == NODE_MAP) {
        for (size_t i = 0; i < n->len; i++) {
            free(n->pairs[i].key);
            node_free(n->pairs[i].val);
        }
        free(n->pairs);
    }
    free(n->text);
    free(n->file);
    free(n);
}

void node_set_origin(node *n, const char *file, int line, int col)
{
    if (!n) return;
    free(n->file);
    n->file = dup_str(file);
    n->line = line;
    n->col = col;
}

const char *node_origin_file(const node *n) { return n && n->file ? n->file : "command line"; }

int node_origin_line(const node *n) { return n && n->file ? n->line : 0; }

node *node_clone(const node *n)
{
    if (!n) return NULL;
    node *c = n->kind == NODE_SCALAR ? node_scalar(n->text, n->quoted) : node_alloc(n->kind);
    if (!c) return NULL;
    node_set_origin(c, n->file, n->line, n->col);
    c->resolving = n->resolving;
    if (n->kind == NODE_SEQ) {
        for (size_t i = 0; i < n->len; i++)
            if (node_seq_push(c, node_clone(n->items[i])) != 0) { node_free(c); return NULL; }
    } else if (n->kind == NODE_MAP) {
        for (size_t i = 0; i < n->len; i++) {
            if (node_map_set(c, n->pairs[i].key, node_clone(n->pairs[i].val)) != 0) {
                node_free(c);
                return NULL;
            }
            c->pairs[i].line = n->pairs[i].line;
            c->pairs[i].col = n->pairs[i].col;
        }
    }
    return c;
}

static int grow(node *n, size_t elem)
{
    if (n->len < n->cap) return 0;
    size_t cap = n->cap ? n->cap * 2 : 8;
    void *p = realloc(n->kind == NODE_SEQ ? (void *)n->items : (void *)n->pairs, cap * elem);
    if (!p) return -1;
    if (n->kind == NODE_SEQ) n->items = p; else n->pairs = p;
    n->cap = cap;
    return 0;
}

int node_seq_push(node *seq, node *val)
{
    if (!seq || seq->kind != NODE_SEQ || !val || grow(seq, sizeof(node *)) != 0) {
        node_free(val);
        return -1;
    }
    seq->items[seq->len++] = val;
    return 0;
}

const node_pair *node_map_pair(const node *map, const char *key)
{
    if (!map || map->kind != NODE_MAP) return NULL;
    for (size_t i = 0; i < map->len; i++)
        if (strcmp(map->pairs[i].key, key) == 0) return &map->pairs[i];
    return NULL;
}

node *node_map_get(const node *map, const char *key)
{
    const node_pair *p = node_map_pair(map, key);
    return p ? p->val : NULL;
}

int node_map_set(node *map, const char *key, node *val)
{
    if (!map || map->kind != NODE_MAP || !val) { node_free(val); return -1; }
    for (size_t i = 0; i < map->len; i++) {
        if (strcmp(map->pairs[i].key, key) == 0) {
            node_free(map->pairs[i].val);
            map->pairs[i].val = val;
            return 0;
        }
    }
    char *k = dup_str(key);
    if (!k || grow(map, sizeof(node_pair)) != 0) { free(k); node_free(val); return -1; }
    map->pairs[map->len++] = (node_pair){ .key = k, .val = val, .line = val->line, .col = val->col };
    return 0;
}

bool node_map_remove(node *map, const char *key)
{
    if (!map || map->kind != NODE_MAP) return false;
    for (size_t i = 0; i < map->len; i++) {
        if (strcmp(map->pairs[i].key, key) == 0) {
            free(map->pairs[i].key);
            node_free(map->pairs[i].val);
            memmove(&map->pairs[i], &map->pairs[i + 1], (map->len - i - 1) * sizeof(node_pair));
            map->len--;
            return true;
        }
    }
    return false;
}

/* child named by one path segment (map key, or decimal index into a sequence) */
static node *child(const node *n, const char *seg, size_t seglen)
{
    char key[256];
    if (!n || seglen >= sizeof key) return NULL;
    memcpy(key, seg, seglen);
    key[seglen] = '\0';
    if (n->kind == NODE_MAP) return node_map_get(n, key);
    if (n->kind == NODE_SEQ) {
        char *end;
        errno = 0;
        unsigned long i = strtoul(key, &end, 10);
        if (errno || *end || end == key || i >= n->len) return NULL;
        return n->items[i];
    }
    return NULL;
}

node *node_get_path(const node *root, const char *path)
{
    const node *n = root;
    const char *p = path;
    if (!*p) return (node *)root;
    while (n && *p) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        n = child(n, p, len);
        p += len + (dot ? 1 : 0);
        if (dot && !*p) return NULL; /* trailing dot */
    }
    return (node *)n;
}

int node_set_path(node *root, const char *path, node *val, bool create)
{
    node *n = root;
    const char *p = path;
    for (;;) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        char key[256];
        if (len == 0 || len >= sizeof key || !n || n->kind != NODE_MAP) { node_free(val); return -1; }
        memcpy(key, p, len);
        key[len] = '\0';
        if (!dot) return node_map_set(n, key, val);
        node *next = node_map_get(n, key);
        if (!next || next->kind != NODE_MAP) {
            if (!create || (next && !node_is_null(next))) { node_free(val); return -1; }
            if (node_map_set(n, key, node_map()) != 0) { node_free(val); return -1; }
            next = node_map_get(n, key);
        }
        n = next;
        p = dot + 1;
    }
}

const char *node_text(const node *n)
{
    return n && n->kind == NODE_SCALAR ? n->text : NULL;
}

bool node_is_null(const node *n)
{
    if (!n) return true;
    if (n->kind != NODE_SCALAR || n->quoted) return false;
    const char *t = n->text;
    return !*t || !strcmp(t, "~") || !strcmp(t, "null") || !strcmp(t, "Null") || !strcmp(t, "NULL");
}

bool node_is_missing(const node *n)
{
    return n && n->kind == NODE_SCALAR && !strcmp(n->text, "???");
}

bool node_get_bool(const node *n, bool *out)
{
    if (!n || n->kind != NODE_SCALAR || n->quoted) return false;
    static const char *const yes[] = { "true", "True", "TRUE" };
    static const char *const no[] = { "false", "False", "FALSE" };
    for (size_t i = 0; i < 3; i++) {
        if (!strcmp(n->text, yes[i])) { *out = true; return true; }
        if (!strcmp(n->text, no[i])) { *out = false; return true; }
    }
    return false;
}

bool node_get_int(const node *n, long long *out)
{
    if (!n || n->kind != NODE_SCALAR || n->quoted) return false;
    const char *t = n->text;
    if (!*t || isspace((unsigned char)*t)) return false;
    char *end;
    errno = 0;
    long long v = strtoll(t, &end, 10);
    if (errno == 0 && *end == '\0' && end != t) { *out = v; return true; }
    /* a float with an integral value (e.g. 8.0) is accepted where an int is wanted */
    double d;
    if (node_get_double(n, &d) && d == floor(d) && fabs(d) < 9.0e15) {
        *out = (long long)d;
        return true;
    }
    return false;
}

bool node_get_double(const node *n, double *out)
{
    if (!n || n->kind != NODE_SCALAR || n->quoted) return false;
    const char *t = n->text;
    if (!*t || isspace((unsigned char)*t)) return false;
    if (!strcmp(t, ".inf") || !strcmp(t, "+.inf")) { *out = INFINITY; return true; }
    if (!strcmp(t, "-.inf")) { *out = -INFINITY; return true; }
    if (!strcmp(t, ".nan")) { *out = NAN; return true; }
    /* YAML numbers only: no hex floats, no "inf"/"nan" words that strtod accepts */
    for (const char *c = t; *c; c++)
        if (!strchr("0123456789+-.eE", *c)) return false;
    char *end;
    errno = 0;
    double v = strtod(t, &end);
    if (errno || *end || end == t) return false;
    *out = v;
    return true;
}

/* growable string for node_to_flow */
typedef struct { char *s; size_t len, cap; bool oom; } flowbuf;

static void fb_add(flowbuf *b, const char *s)
{
    size_t n = strlen(s);
    if (b->oom) return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = (b->cap + n + 1) * 2;
        char *p = realloc(b->s, cap);
        if (!p) { b->oom = true; return; }
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

static bool plain_safe(const char *t)
{
    if (!*t) return false;
    for (const char *c = t; *c; c++)
        if (strchr(",[]{}:#'\"\n\t ", *c)) return false;
    return true;
}

static void flow_rec(flowbuf *b, const node *n)
{
    if (!n) { fb_add(b, "null"); return; }
    if (n->kind == NODE_SCALAR) {
        if (!n->quoted && plain_safe(n->text)) { fb_add(b, n->text); return; }
        fb_add(b, "'");
        for (const char *c = n->text; *c; c++) {
            char one[2] = { *c, 0 };
            fb_add(b, *c == '\'' ? "''" : one);
        }
        fb_add(b, "'");
    } else if (n->kind == NODE_SEQ) {
        fb_add(b, "[");
        for (size_t i = 0; i < n->len; i++) {
            if (i) fb_add(b, ",");
            flow_rec(b, n->items[i]);
        }
        fb_add(b, "]");
    } else {
        fb_add(b, "{");
        for (size_t i = 0; i < n->len; i++) {
            if (i) fb_add(b, ",");
            fb_add(b, n->pairs[i].key);
            fb_add(b, ":");
            flow_rec(b, n->pairs[i].val);
        }
        fb_add(b, "}");
    }
}

char *node_to_flow(const node *n)
{
    flowbuf b = { 0 };
    flow_rec(&b, n);
    if (b.oom) { free(b.s); return NULL; }
    if (!b.s) return dup_str("");
    return b.s;
}
