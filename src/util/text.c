/* text.c — see text.h */
#include "util/text.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

size_t text_edit_distance(const char *a, const char *b) { return text_edit_distance_within(a, b, 99); }

size_t text_edit_distance_within(const char *a, const char *b, size_t max)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63) return 99;
    /* the length difference is a lower bound: no table needed beyond max */
    if ((la > lb ? la - lb : lb - la) > max) return max + 1 < 99 ? max + 1 : 99;
    size_t prev[64], cur[64];
    for (size_t j = 0; j <= lb; j++) prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        size_t row_min = cur[0];
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
            if (cur[j] < row_min) row_min = cur[j];
        }
        if (row_min > max) return max + 1 < 99 ? max + 1 : 99; /* rows never decrease below their minimum */
        memcpy(prev, cur, (lb + 1) * sizeof *prev);
    }
    return prev[lb];
}

void text_nearest_init(text_nearest *near, size_t max)
{
    near->best = NULL;
    near->distance = 0;
    near->max = max;
}

void text_nearest_keep(text_nearest *near, const char *candidate, size_t distance)
{
    if (distance <= near->max && (!near->best || distance < near->distance)) {
        near->best = candidate;
        near->distance = distance;
    }
}

/* the bound text_edit_distance_within needs: max, or 99 (where distances stop) above that */
static size_t nearest_bound(const text_nearest *near) { return near->max < 99 ? near->max : 99; }

void text_nearest_offer(text_nearest *near, const char *word, const char *candidate)
{
    text_nearest_keep(near, candidate, text_edit_distance_within(word, candidate, nearest_bound(near)));
}

void text_nearest_offer_aliases(text_nearest *near, const char *word, const char *bar_list, const char *name)
{
    while (*bar_list) {
        size_t n = strcspn(bar_list, "|");
        if (n) {
            /* 64 bytes are enough: a longer alias is still longer than 63, so at distance 99 */
            char alias[65];
            size_t keep = n < sizeof alias - 1 ? n : sizeof alias - 1;
            memcpy(alias, bar_list, keep);
            alias[keep] = '\0';
            text_nearest_keep(near, name, text_edit_distance_within(word, alias, nearest_bound(near)));
        }
        bar_list += n + (bar_list[n] == '|');
    }
}

static int fold(int c)
{
    c = tolower((unsigned char)c);
    return c == '-' ? '_' : c;
}

int text_name_cmp(const char *a, const char *b)
{
    for (;; a++, b++) {
        int x = fold(*a), y = fold(*b);
        if (x != y || !x) return x - y;
    }
}

const char *text_find_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t k = 0;
        while (k < n && hay[k] && tolower((unsigned char)hay[k]) == tolower((unsigned char)needle[k])) k++;
        if (k == n) return hay;
    }
    return n ? NULL : hay;
}

int text_list_has(const char *list, const char *word)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", list);
    char *save = NULL;
    for (char *tok = strtok_r(buf, "|", &save); tok; tok = strtok_r(NULL, "|", &save))
        if (!text_name_cmp(tok, word)) return 1;
    return 0;
}
