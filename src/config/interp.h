/* interp.h — OmegaConf-style interpolation over a node tree.
 *
 *   ${a.b.c}        absolute key           ${.sibling}  key in the same map
 *   ${..uncle}      key in the parent map  text${x}text string interpolation
 *   ${multiply:a,b} ${divide_ceil:a,b} ${divide_floor:a,b}  (the original's resolvers)
 *   ${oc.env:NAME}  environment variable (error when unset)
 *
 * A value that is exactly one ${...} takes the referenced node's type (a
 * number stays a number, a map stays a map).  Cycles and dangling references
 * are AC_E_INPUT errors naming the file, line and key of the offending value.
 * A reference to a "???" value is reported as a missing mandatory value. */
#ifndef AC_CONFIG_INTERP_H
#define AC_CONFIG_INTERP_H

#include "config/node.h"
#include "util/err.h"

/* resolves every interpolation under root in place */
int interp_resolve_all(node *root, ac_err *e);

/* resolves only the subtree at path (and whatever it references) */
int interp_resolve_path(node *root, const char *path, ac_err *e);

#endif
