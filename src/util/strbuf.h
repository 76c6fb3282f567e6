/* strbuf.h — a growable string for building whole files in memory before one
 * atomic write (CSV, JSON, scripts).  Out-of-memory is sticky: check sb.oom
 * (or sb_finish) once at the end instead of after every append. */
#ifndef AC_STRBUF_H
#define AC_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char *s;
    size_t len, cap;
    bool oom;
} strbuf;

void sb_init(strbuf *b);
void sb_free(strbuf *b);
void sb_add(strbuf *b, const char *s);
void sb_addn(strbuf *b, const char *s, size_t n);
void sb_printf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* one CSV field (RFC 4180: quoted when it holds a comma, quote or newline) */
void sb_csv_field(strbuf *b, const char *s, bool last);
/* the string ("" when empty); NULL after an allocation failure */
const char *sb_str(const strbuf *b);
/* hands the malloc'd string to the caller (free it) and leaves b empty; NULL after an
 * allocation failure (the buffer is freed) or when nothing was added */
char *sb_take(strbuf *b);

#endif
