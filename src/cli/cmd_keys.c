/* cmd_keys.c — `autoconfig keys`: every configuration key from the schema
 * table (the README's key reference is generated with --markdown). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "config/schema.h"

int cmd_keys(int argc, char **argv)
{
    bool markdown = false, json = false;
    const char *prefix = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--markdown")) markdown = true;
        else if (!strcmp(argv[i], "--json")) json = true;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            puts("usage: autoconfig keys [--markdown | --json] [PREFIX]\n\nLists every configuration key with its type, default and meaning.");
            return 0;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "autoconfig: error: unknown option '%s' (see --help)\n", argv[i]);
            return 2;
        } else prefix = argv[i];
    }
    if (prefix && !schema_count(prefix)) {
        /* a prefix no key starts with is a typo, not an empty reference */
        const char *s = schema_suggest(prefix);
        const char *dot = strrchr(prefix, '.');
        int keep = dot ? (int)(dot - prefix + 1) : 0; /* the suggestion is a sibling of the last part */
        if (s) fprintf(stderr, "autoconfig: error: no key starts with '%s'; did you mean '%.*s%s'?\n", prefix, keep, prefix, s);
        else fprintf(stderr, "autoconfig: error: no key starts with '%s' (autoconfig keys lists them all)\n", prefix);
        return 2;
    }
    if (json) schema_print_json(stdout, prefix);
    else if (markdown) schema_print_markdown(stdout);
    else schema_print_help(stdout, prefix);
    return 0;
}
