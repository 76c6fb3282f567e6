/* err.c — see err.h. */
#include "util/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void copy_str(char *dst, size_t cap, const char *src)
{
    if (!src) { dst[0] = '\0'; return; }
    snprintf(dst, cap, "%s", src);
}

int ac_err_set(ac_err *e, ac_code code, const char *fmt, ...)
{
    if (!e) return -1;
    e->code = code;
    e->file[0] = e->key[0] = '\0';
    e->line = e->col = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return -1;
}

int ac_err_at(ac_err *e, ac_code code, const char *file, int line, int col,
              const char *key, const char *fmt, ...)
{
    if (!e) return -1;
    e->code = code;
    copy_str(e->file, sizeof e->file, file);
    copy_str(e->key, sizeof e->key, key);
    e->line = line;
    e->col = col;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return -1;
}

const char *ac_err_format(const ac_err *e, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    if (e->file[0]) {
        n += (size_t)snprintf(buf + n, len - n, "%s", e->file);
        if (e->line > 0 && n < len)
            n += (size_t)snprintf(buf + n, len - n, ":%d", e->line);
        if (e->col > 0 && n < len)
            n += (size_t)snprintf(buf + n, len - n, ":%d", e->col);
        if (n < len) n += (size_t)snprintf(buf + n, len - n, ": ");
    }
    if (e->key[0] && n < len)
        n += (size_t)snprintf(buf + n, len - n, "%s: ", e->key);
    if (n < len) snprintf(buf + n, len - n, "%s", e->msg);
    return buf;
}

int ac_err_exit_status(const ac_err *e)
{
    return e->code == AC_E_INPUT ? 2 : 1;
}
