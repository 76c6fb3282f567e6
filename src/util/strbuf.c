/* strbuf.c — see strbuf.h. */
#include "util/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_init(strbuf *b) { memset(b, 0, sizeof *b); }

void sb_free(strbuf *b)
{
    free(b->s);
    memset(b, 0, sizeof *b);
}

static bool reserve(strbuf *b, size_t extra)
{
    if (b->oom) return false;
    if (b->len + extra + 1 <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) cap *= 2;
    char *p = realloc(b->s, cap);
    if (!p) { b->oom = true; return false; }
    b->s = p;
    b->cap = cap;
    return true;
}

void sb_addn(strbuf *b, const char *s, size_t n)
{
    if (!reserve(b, n)) return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void sb_add(strbuf *b, const char *s) { sb_addn(b, s, strlen(s)); }

void sb_printf(strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !reserve(b, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void sb_csv_field(strbuf *b, const char *s, bool last)
{
    if (!s) s = "";
    if (strpbrk(s, ",\"\n\r")) {
        sb_add(b, "\"");
        for (const char *p = s; *p; p++) sb_addn(b, *p == '"' ? "\"\"" : p, *p == '"' ? 2 : 1);
        sb_add(b, "\"");
    } else {
        sb_add(b, s);
    }
    sb_add(b, last ? "\n" : ",");
}

const char *sb_str(const strbuf *b)
{
    if (b->oom) return NULL;
    return b->s ? b->s : "";
}

char *sb_take(strbuf *b)
{
    char *s = b->oom ? NULL : b->s;
    if (!s) free(b->s);
    memset(b, 0, sizeof *b);
    return s;
}
