/* text.h — small string helpers shared by "did you mean" messages. */
#ifndef AC_UTIL_TEXT_H
#define AC_UTIL_TEXT_H

#include <stddef.h>

/* Levenshtein distance; 99 when either word is longer than 63 bytes */
size_t text_edit_distance(const char *a, const char *b);
/* strcasecmp that treats '-' and '_' as equal (GPU and preset names) */
int text_name_cmp(const char *a, const char *b);

#endif
