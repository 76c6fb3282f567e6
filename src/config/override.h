/* override.h — Hydra-style command-line overrides.
 *
 *   search_config=gpt3/20b                     choose a config group option
 *   search_config.train_settings.num_nodes=16  set an existing key
 *   +new.key=value                             add a key (must still be in the schema)
 *   ~some.key                                  delete a key
 * Values are YAML flow text: 16, 0.5, true, null, auto, [1,2,4], 'quoted text'.
 */
#ifndef AC_CONFIG_OVERRIDE_H
#define AC_CONFIG_OVERRIDE_H

#include "config/node.h"
#include "util/err.h"

typedef enum { OV_SET, OV_ADD, OV_DELETE } override_kind;

typedef struct {
    override_kind kind;
    char key[256];
    node *value;    /* owned; NULL for OV_DELETE */
    int position;   /* 1-based index among the overrides, for messages */
    char raw[1024]; /* the argument as written */
} override;

/* parses one argument; the caller frees out->value with node_free */
int override_parse(const char *arg, int position, override *out, ac_err *e);

/* applies a parsed override to the tree (OV_SET requires the key to exist) */
int override_apply(node *root, const override *ov, ac_err *e);

#endif
