/* shell.c — POSIX single-quote quoting and directive-value validation. */
#include "util/shell.h"

#include <stdlib.h>
#include <string.h>

/* bytes needed for the quoted form of s, without the NUL */
static size_t quoted_len(const char *s)
{
    size_t n = 2;
    for (; *s; s++) n += (*s == '\'') ? 4 : 1;
    return n;
}

static void quote_into(const char *s, char *out)
{
    char *o = out;
    *o++ = '\'';
    for (; *s; s++) {
        if (*s == '\'') { memcpy(o, "'\\''", 4); o += 4; }
        else *o++ = *s;
    }
    *o++ = '\'';
    *o = '\0';
}

int shell_quote(const char *s, char *out, size_t len, ac_err *e)
{
    size_t n = quoted_len(s);
    if (n + 1 > len)
        return ac_err_set(e, AC_E_INPUT, "value too long to quote (%zu bytes)", n);
    quote_into(s, out);
    return (int)n;
}

char *shell_quote_dup(const char *s, ac_err *e)
{
    char *out = malloc(quoted_len(s) + 1);
    if (!out) { ac_err_set(e, AC_E_NOMEM, "out of memory quoting a value"); return NULL; }
    quote_into(s, out);
    return out;
}

int shell_quote_add(strbuf *b, const char *s, ac_err *e)
{
    char *q = shell_quote_dup(s, e);
    if (!q) return -1;
    sb_add(b, q);
    free(q);
    return 0;
}

static int has_control(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f) return 1;
    return 0;
}

int shell_check_line(const char *what, const char *value, ac_err *e)
{
    if (!value) return ac_err_set(e, AC_E_INPUT, "%s: missing value", what);
    if (has_control(value))
        return ac_err_set(e, AC_E_INPUT, "%s: control character (newline, tab…) not allowed in a script value", what);
    return 0;
}

int shell_check_directive(const char *what, const char *value, ac_err *e)
{
    if (!value || !*value) return ac_err_set(e, AC_E_INPUT, "%s: empty value for an #SBATCH directive", what);
    if (strlen(value) > 4096) return ac_err_set(e, AC_E_INPUT, "%s: value longer than 4096 bytes", what);
    if (has_control(value))
        return ac_err_set(e, AC_E_INPUT, "%s: control character (newline, tab…) not allowed in an #SBATCH value", what);
    if (strchr(value, ' '))
        return ac_err_set(e, AC_E_INPUT, "%s: blank not allowed in an #SBATCH value: \"%s\"", what, value);
    return 0;
}
