/* yaml_io.c — see yaml_io.h.  The loader walks libyaml's event stream with an
 * explicit stack (bounded depth), so hostile input cannot exhaust the C stack. */
#include "config/yaml_io.h"

#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "util/fsutil.h"

/* MAX_NODES: a configuration holds hundreds of values; a hostile file of millions
 * would take gigabytes before the schema's per-list limits could refuse it */
enum { MAX_DEPTH = 128, MAX_NODES = 100000 };

/* line and column (1-based) of byte offset off of text: libyaml's reader errors
 * (bad UTF-8, control characters) give an offset, not a mark */
static void offset_position(const char *text, size_t len, size_t off, int *line, int *col)
{
    *line = *col = 1;
    for (size_t i = 0; i < off && i < len; i++) {
        if (text[i] == '\n') { ++*line; *col = 1; }
        else ++*col;
    }
}

typedef struct {
    node *container;
    char *pending_key; /* map: key read, value not yet */
    int key_line, key_col;
} frame;

static int attach(frame *stack, int depth, node *val, const char *name, ac_err *e)
{
    frame *top = &stack[depth - 1];
    if (top->container->kind == NODE_SEQ) {
        if (node_seq_push(top->container, val) != 0) return ac_err_set(e, AC_E_NOMEM, "out of memory");
        return 0;
    }
    if (!top->pending_key) {
        /* this node is a key */
        if (val->kind != NODE_SCALAR) {
            int line = val->line, col = val->col;
            node_free(val);
            return ac_err_at(e, AC_E_INPUT, name, line, col, NULL, "mapping keys must be plain scalars");
        }
        const node_pair *dup = node_map_pair(top->container, val->text);
        if (dup) {
            int line = val->line, col = val->col;
            char key[200];
            snprintf(key, sizeof key, "%s", val->text);
            node_free(val);
            return ac_err_at(e, AC_E_INPUT, name, line, col, key, "duplicate key (first written at line %d)",
                             dup->line);
        }
        top->pending_key = val->text;
        top->key_line = val->line;
        top->key_col = val->col;
        val->text = NULL;
        node_free(val);
        return 0;
    }
    char *key = top->pending_key;
    top->pending_key = NULL;
    int rc = node_map_set(top->container, key, val);
    if (rc == 0) {
        node_pair *p = &top->container->pairs[top->container->len - 1];
        p->line = top->key_line;
        p->col = top->key_col;
    }
    free(key);
    return rc == 0 ? 0 : ac_err_set(e, AC_E_NOMEM, "out of memory");
}

node *yaml_load_string(const char *text, size_t len, const char *name, ac_err *e)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) { ac_err_set(e, AC_E_NOMEM, "out of memory"); return NULL; }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);

    frame stack[MAX_DEPTH];
    int depth = 0;
    node *root = NULL;
    int docs = 0;
    long nodes = 0;
    bool done = false, failed = false;

    while (!done && !failed) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            int pl = (int)parser.problem_mark.line + 1, pc = (int)parser.problem_mark.column + 1;
            if (parser.error == YAML_READER_ERROR) offset_position(text, len, parser.problem_offset, &pl, &pc);
            ac_err_at(e, AC_E_INPUT, name, pl, pc, NULL, "malformed YAML: %s%s%s",
                      parser.problem ? parser.problem : "syntax error",
                      parser.context ? " " : "", parser.context ? parser.context : "");
            failed = true;
            break;
        }
        int line = (int)ev.start_mark.line + 1, col = (int)ev.start_mark.column + 1;
        node *made = NULL;
        if ((ev.type == YAML_SCALAR_EVENT || ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT) &&
            ++nodes > MAX_NODES) {
            ac_err_at(e, AC_E_INPUT, name, line, col, NULL, "more than %d YAML values (a configuration holds far fewer)",
                      MAX_NODES);
            yaml_event_delete(&ev);
            failed = true;
            break;
        }
        switch (ev.type) {
        case YAML_STREAM_END_EVENT: done = true; break;
        case YAML_DOCUMENT_START_EVENT:
            if (++docs > 1) {
                ac_err_at(e, AC_E_INPUT, name, line, col, NULL, "more than one YAML document");
                failed = true;
            }
            break;
        case YAML_ALIAS_EVENT:
            ac_err_at(e, AC_E_INPUT, name, line, col, NULL, "YAML aliases (*name) are not supported");
            failed = true;
            break;
        case YAML_SCALAR_EVENT:
            if (ev.data.scalar.anchor) {
                ac_err_at(e, AC_E_INPUT, name, line, col, NULL, "YAML anchors (&name) are not supported");
                failed = true;
                break;
            }
            made = node_scalar((const char *)ev.data.scalar.value,
                               ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE);
            if (!made) { ac_err_set(e, AC_E_NOMEM, "out of memory"); failed = true; break; }
            if (memchr(ev.data.scalar.value, '\0', ev.data.scalar.length)) {
                node_free(made);
                ac_err_at(e, AC_E_INPUT, name, line, col, NULL, "NUL character in a scalar");
                failed = true;
                break;
            }
            node_set_origin(made, name, line, col);
            if (depth == 0) root = made;
            else if (attach(stack, depth, made, name, e) != 0) failed = true;
            break;
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
            if (depth >= MAX_DEPTH) {
                ac_err_at(e, AC_E_INPUT, name, line, col, NULL, "nesting deeper than %d levels", MAX_DEPTH);
                failed = true;
                break;
            }
            if ((ev.type == YAML_SEQUENCE_START_EVENT && ev.data.sequence_start.anchor) ||
                (ev.type == YAML_MAPPING_START_EVENT && ev.data.mapping_start.anchor)) {
                ac_err_at(e, AC_E_INPUT, name, line, col, NULL, "YAML anchors (&name) are not supported");
                failed = true;
                break;
            }
            made = ev.type == YAML_SEQUENCE_START_EVENT ? node_seq() : node_map();
            if (!made) { ac_err_set(e, AC_E_NOMEM, "out of memory"); failed = true; break; }
            node_set_origin(made, name, line, col);
            stack[depth++] = (frame){ .container = made };
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT: {
            node *c = stack[--depth].container;
            free(stack[depth].pending_key);
            if (depth == 0) root = c;
            else if (attach(stack, depth, c, name, e) != 0) failed = true;
            break;
        }
        default: break;
        }
        yaml_event_delete(&ev);
    }
    /* on failure, the open containers are not yet attached to anything */
    while (depth > 0) {
        depth--;
        free(stack[depth].pending_key);
        if (depth == 0 || failed) {
            if (stack[depth].container != root) node_free(stack[depth].container);
        }
    }
    yaml_parser_delete(&parser);
    if (failed) {
        node_free(root);
        return NULL;
    }
    if (!root || node_is_null(root)) {
        node_free(root);
        root = node_map();
        if (!root) { ac_err_set(e, AC_E_NOMEM, "out of memory"); return NULL; }
        node_set_origin(root, name, 1, 1);
    }
    return root;
}

node *yaml_load_file(const char *path, ac_err *e)
{
    size_t len;
    char *text = fs_read_file(path, &len, e);
    if (!text) return NULL;
    node *n = yaml_load_string(text, len, path, e);
    free(text);
    return n;
}

/* ---- emitting ---- */

typedef struct { char *s; size_t len, cap; } outbuf;

static int write_handler(void *data, unsigned char *buffer, size_t size)
{
    outbuf *o = data;
    if (o->len + size + 1 > o->cap) {
        size_t cap = (o->len + size + 1) * 2;
        char *p = realloc(o->s, cap);
        if (!p) return 0;
        o->s = p;
        o->cap = cap;
    }
    memcpy(o->s + o->len, buffer, size);
    o->len += size;
    o->s[o->len] = '\0';
    return 1;
}

static int emit_scalar(yaml_emitter_t *em, const char *text, bool quoted)
{
    yaml_event_t ev;
    yaml_scalar_style_t style = quoted ? YAML_SINGLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE;
    if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)text, (int)strlen(text), 1, 1, style))
        return 0;
    return yaml_emitter_emit(em, &ev);
}

static int emit_node(yaml_emitter_t *em, const node *n, int depth)
{
    yaml_event_t ev;
    if (depth > MAX_DEPTH) return 0;
    if (n->kind == NODE_SCALAR) return emit_scalar(em, n->text, n->quoted);
    if (n->kind == NODE_SEQ) {
        /* short lists of scalars read best inline: [1, 2, 4] */
        bool flat = n->len <= 16;
        for (size_t i = 0; i < n->len; i++) flat = flat && n->items[i]->kind == NODE_SCALAR;
        if (!yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
                                                  flat && n->len ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE) ||
            !yaml_emitter_emit(em, &ev))
            return 0;
        for (size_t i = 0; i < n->len; i++)
            if (!emit_node(em, n->items[i], depth + 1)) return 0;
        return yaml_sequence_end_event_initialize(&ev) && yaml_emitter_emit(em, &ev);
    }
    if (!yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
                                             n->len ? YAML_BLOCK_MAPPING_STYLE : YAML_FLOW_MAPPING_STYLE) ||
        !yaml_emitter_emit(em, &ev))
        return 0;
    for (size_t i = 0; i < n->len; i++) {
        if (!emit_scalar(em, n->pairs[i].key, false) || !emit_node(em, n->pairs[i].val, depth + 1)) return 0;
    }
    return yaml_mapping_end_event_initialize(&ev) && yaml_emitter_emit(em, &ev);
}

char *yaml_dump_string(const node *n, ac_err *e)
{
    yaml_emitter_t em;
    outbuf out = { 0 };
    yaml_event_t ev;
    if (!yaml_emitter_initialize(&em)) { ac_err_set(e, AC_E_NOMEM, "out of memory"); return NULL; }
    yaml_emitter_set_output(&em, write_handler, &out);
    yaml_emitter_set_unicode(&em, 1);
    yaml_emitter_set_width(&em, 4096);
    bool ok = yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) && yaml_emitter_emit(&em, &ev) &&
              yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) && yaml_emitter_emit(&em, &ev) &&
              emit_node(&em, n, 0) &&
              yaml_document_end_event_initialize(&ev, 1) && yaml_emitter_emit(&em, &ev) &&
              yaml_stream_end_event_initialize(&ev) && yaml_emitter_emit(&em, &ev);
    if (!ok) {
        ac_err_set(e, AC_E_INTERNAL, "YAML emitter failed: %s", em.problem ? em.problem : "out of memory");
        yaml_emitter_delete(&em);
        free(out.s);
        return NULL;
    }
    yaml_emitter_delete(&em);
    return out.s;
}

int yaml_dump_file(const node *n, const char *path, ac_err *e)
{
    char *s = yaml_dump_string(n, e);
    if (!s) return -1;
    int rc = fs_write_atomic(path, s, strlen(s), e);
    free(s);
    return rc;
}
