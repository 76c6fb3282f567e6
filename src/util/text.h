/* text.h — small string helpers: "did you mean" messages, name and substring matching. */
#ifndef AC_UTIL_TEXT_H
#define AC_UTIL_TEXT_H

#include <stddef.h>

/* Levenshtein distance; 99 when either word is longer than 63 bytes */
size_t text_edit_distance(const char *a, const char *b);
/* the same when it is at most max; otherwise some value above max (cheap: most
 * "did you mean" candidates are far from the word) */
size_t text_edit_distance_within(const char *a, const char *b, size_t max);
/* The nearest name, for "did you mean": offer each candidate in turn; best is the closest
 * one whose distance is at most max, the first offered on a tie, NULL when none is that
 * close. best points at the caller's candidate (or the name given for an alias list),
 * never at a copy. A max above 98 accepts any name (distances stop at 99).
 *     text_nearest near;
 *     text_nearest_init(&near, 3);
 *     for (...) text_nearest_offer(&near, typed, names[i]);
 *     return near.best; */
typedef struct {
    const char *best; /* NULL until a candidate within max is offered */
    size_t distance;  /* best's distance (meaningless while best is NULL) */
    size_t max;
} text_nearest;

void text_nearest_init(text_nearest *near, size_t max);
/* candidate at its edit distance from word */
void text_nearest_offer(text_nearest *near, const char *word, const char *candidate);
/* each '|'-separated alias in bar_list (empty ones skipped) at its distance from word; the
 * one kept is name, the alias's owner */
void text_nearest_offer_aliases(text_nearest *near, const char *word, const char *bar_list, const char *name);
/* candidate at a distance the caller worked out (for rules beyond edit distance) */
void text_nearest_keep(text_nearest *near, const char *candidate, size_t distance);

/* strcasecmp that treats '-' and '_' as equal (GPU and preset names) */
int text_name_cmp(const char *a, const char *b);
/* the first occurrence of needle in hay ignoring ASCII case, or NULL */
const char *text_find_ci(const char *hay, const char *needle);

/* 1 when one of the '|'-separated names of list equals word (text_name_cmp: case, '-' and '_'
 * aside), as the catalogs write aliases */
int text_list_has(const char *list, const char *word);

#endif
