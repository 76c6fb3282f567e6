/* schema.h — the one table of every configuration key autoconfig reads.
 *
 * Each row: dotted key, type, where the value lands in ac_config, default,
 * bounds or allowed values, and a help line.  Generic code uses the table to
 * reject unknown keys (with "did you mean"), check types and bounds, fill the
 * struct, print `autoconfig keys` and generate docs/config-keys.md.
 */
#ifndef AC_CONFIG_SCHEMA_H
#define AC_CONFIG_SCHEMA_H

#include <stddef.h>
#include <stdio.h>

#include "config/cfg.h"

typedef enum {
    ST_SECTION,  /* a mapping of further keys */
    ST_FREE,     /* any content, not interpreted (hydra, defaults) */
    ST_INT,
    ST_FLOAT,
    ST_BOOL,
    ST_STR,
    ST_ENUM,     /* one of choices ("a|b|c") */
    ST_INT_CHOICE, /* an integer from choices ("40|80") */
    ST_INT_LIST, /* auto | int | [ints] */
    ST_INT_AUTO, /* auto | int */
    ST_TRI,      /* true | false | auto */
    ST_STR_LIST, /* list of strings (null items allowed and dropped) */
    ST_IGNORED   /* accepted for compatibility and not read */
} schema_type;

enum { SF_NULLABLE = 1, SF_PATH = 2 };

typedef struct {
    const char *key;
    schema_type type;
    size_t offset;   /* into ac_config; SCHEMA_NOWHERE when not stored */
    size_t size;     /* string capacity */
    const char *def; /* default as YAML text; NULL = no default (key must be present) */
    double min, max; /* numeric bounds (also list items), ignored when min > max */
    const char *choices;
    unsigned flags;
    const char *help;
} schema_entry;

#define SCHEMA_NOWHERE ((size_t)-1)

extern const schema_entry SCHEMA[];
extern const size_t SCHEMA_LEN;

const schema_entry *schema_find(const char *key);

/* rejects keys not in the table, naming file:line and a suggestion */
int schema_check_keys(const node *root, ac_err *e);

/* type/bounds check and fill the struct; the tree must be resolved */
int schema_fill(const node *root, ac_config *cfg, ac_err *e);

/* closest known sibling key to `key` (a dotted path), or NULL */
const char *schema_suggest(const char *key);

/* Markdown reference of every key (README / docs) */
void schema_print_markdown(FILE *out);
void schema_print_help(FILE *out, const char *prefix);
/* how many keys schema_print_help lists under prefix (NULL = all) */
size_t schema_count(const char *prefix);
/* a key every config must hold (no default; inference keys only with their section) */
bool schema_required(const schema_entry *se);
/* the same as one JSON array of {key, type, default, min, max, choices, help} */
void schema_print_json(FILE *out, const char *prefix);

#endif
