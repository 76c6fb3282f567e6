/* text.h — small string helpers: "did you mean" messages, name and substring matching. */
#ifndef AC_UTIL_TEXT_H
#define AC_UTIL_TEXT_H

#include <stddef.h>

/* Levenshtein distance; 99 when either word is longer than 63 bytes */
size_t text_edit_distance(const char *a, const char *b);
/* the same when it is at most max; otherwise some value above max (cheap: most
 * "did you mean" candidates are far from the word) */
size_t text_edit_distance_within(const char *a, const char *b, size_t max);
/* strcasecmp that treats '-' and '_' as equal (GPU and preset names) */
int text_name_cmp(const char *a, const char *b);
/* the first occurrence of needle in hay ignoring ASCII case, or NULL */
const char *text_find_ci(const char *hay, const char *needle);

/* 1 when one of the '|'-separated names of list equals word (text_name_cmp: case, '-' and '_'
 * aside), as the catalogs write aliases */
int text_list_has(const char *list, const char *word);

#endif
