/* yaml_io.h — YAML text ⇄ node tree, with libyaml doing the parsing and the
 * emitting.  Loading records file/line/column on every node; malformed YAML is
 * an AC_E_INPUT error carrying the parser's line and column.  Aliases and
 * anchors are refused (no config needs them, and they make billion-laughs
 * documents cheap to write). */
#ifndef AC_CONFIG_YAML_IO_H
#define AC_CONFIG_YAML_IO_H

#include "config/node.h"
#include "util/err.h"

/* an empty document loads as an empty map */
node *yaml_load_string(const char *text, size_t len, const char *name, ac_err *e);
node *yaml_load_file(const char *path, ac_err *e);

/* block-style YAML; the string is malloc'ed */
char *yaml_dump_string(const node *n, ac_err *e);
int yaml_dump_file(const node *n, const char *path, ac_err *e); /* atomic */

#endif
