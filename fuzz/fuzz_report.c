/* fuzz_report.c — the report builder on arbitrary bytes: the input is split at
 * "\n@@\n" into summary.json, the inference summary and the cost summary (the
 * later parts optional); nothing may crash, leak or emit an unclosed page. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "results/report.h"

static const char SEP[] = "\n@@\n";

/* next part of [*p, end): its start and length; *p moves past the separator */
static const char *next_part(const char **p, const char *end, size_t *len)
{
    if (!*p) return NULL;
    const char *start = *p;
    const char *hit = NULL;
    for (const char *q = start; q + 4 <= end; q++)
        if (!memcmp(q, SEP, 4)) { hit = q; break; }
    *len = (size_t)((hit ? hit : end) - start);
    *p = hit ? hit + 4 : NULL;
    return start;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size + 1); /* own NUL-terminated copy: the parts are read as text */
    if (!copy) return 0;
    if (size) memcpy(copy, data, size);
    copy[size] = '\0';
    const char *p = copy, *end = copy + size;
    size_t ls = 0, li = 0, lc = 0;
    const char *s = next_part(&p, end, &ls);
    const char *inf = next_part(&p, end, &li);
    const char *cost = next_part(&p, end, &lc);
    ac_err e;
    report_info info;
    char *html = report_build_html(s, ls, inf, li, cost, lc, &info, &e);
    if (html && !strstr(html, "</html>")) abort();
    free(html);
    free(copy);
    return 0;
}
