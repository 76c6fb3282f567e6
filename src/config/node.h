/* node.h — an in-memory YAML document: the one representation every config,
 * template and generated NeMo file passes through.
 *
 * A node is a scalar (text + whether it was quoted), a sequence or a mapping
 * that keeps its key order.  Every node remembers the file, line and column it
 * came from so validation errors can say where.  Scalars stay text until a
 * typed getter reads them (YAML 1.2 core schema: null, bool, int, float).
 * Ownership: a container owns its children; node_free frees a whole subtree.
 */
#ifndef AC_CONFIG_NODE_H
#define AC_CONFIG_NODE_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { NODE_SCALAR, NODE_SEQ, NODE_MAP } node_kind;

typedef struct node node;

typedef struct {
    char *key;
    node *val;
    int line, col; /* where the key was written */
} node_pair;

struct node {
    node_kind kind;
    char *text;    /* NODE_SCALAR */
    bool quoted;   /* scalar was quoted: never null/bool/number */
    size_t len;    /* children (pairs for maps, items for sequences) */
    size_t cap;
    node **items;  /* NODE_SEQ */
    node_pair *pairs; /* NODE_MAP */
    char *file;    /* origin, NULL when built in code */
    int line, col;
    int resolving; /* interpolation state: 0 untouched, 1 in progress, 2 done */
};

node *node_scalar(const char *text, bool quoted);
node *node_str(const char *text);     /* a string that must stay a string */
node *node_int(long long v);
node *node_float(double v);           /* shortest text that round-trips, with a dot */
node *node_bool(bool v);
node *node_null(void);
node *node_seq(void);
node *node_map(void);
void node_free(node *n);
node *node_clone(const node *n);
void node_set_origin(node *n, const char *file, int line, int col);
/* where a key's value was written, for errors: a node built in code or absent (a default)
 * reads as "command line", line 0 */
const char *node_origin_file(const node *n);
int node_origin_line(const node *n);

/* containers; the *_push/set functions take ownership of val (freed on failure) */
int node_seq_push(node *seq, node *val);
node *node_map_get(const node *map, const char *key);
const node_pair *node_map_pair(const node *map, const char *key);
int node_map_set(node *map, const char *key, node *val); /* replaces in place or appends */
bool node_map_remove(node *map, const char *key);

/* dotted paths "a.b.c"; sequence items by index "a.0.b" */
node *node_get_path(const node *root, const char *path);
/* creates intermediate maps when create; fails (returns -1) if a parent is not a map */
int node_set_path(node *root, const char *path, node *val, bool create);

/* scalar reading (YAML 1.2 core schema) */
bool node_is_null(const node *n);   /* NULL pointer, ~, null, Null, NULL, empty plain */
bool node_is_missing(const node *n);/* the "???" mandatory marker */
bool node_get_bool(const node *n, bool *out);
bool node_get_int(const node *n, long long *out);
bool node_get_double(const node *n, double *out);
const char *node_text(const node *n); /* scalar text or NULL */

/* one-line flow rendering for messages and override strings: [1,2], null, 'x y' */
char *node_to_flow(const node *n);

#endif
