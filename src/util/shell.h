/* shell.h — quoting for anything that reaches a shell or an #SBATCH line.
 *
 * Every value autoconfig writes into a script is POSIX single-quoted: inside
 * '...' the shell expands nothing, and a ' is written as '\'' (close, escaped
 * quote, reopen).  Values that cannot be made safe by quoting — #SBATCH
 * directive values, which Slurm reads without a shell — are validated instead.
 */
#ifndef AC_SHELL_H
#define AC_SHELL_H

#include <stddef.h>
#include "util/err.h"
#include "util/strbuf.h"

/* Single-quotes s into out ("it's" → 'it'\''s'); "" → ''.  Returns the length,
 * or -1 with AC_E_INPUT when out (len bytes) is too small. */
int shell_quote(const char *s, char *out, size_t len, ac_err *e);

/* Same, into a malloc'd string (NULL + AC_E_NOMEM on allocation failure). */
char *shell_quote_dup(const char *s, ac_err *e);

/* Same, appended to b (0, or -1 with AC_E_NOMEM). */
int shell_quote_add(strbuf *b, const char *s, ac_err *e);

/* A value for an #SBATCH directive (partition, account, job name, path…):
 * non-empty, at most 4096 bytes, no control characters (newline, CR, tab, NUL…)
 * and no whitespace — Slurm splits directive lines on blanks and takes the rest
 * of the line verbatim.  what names the field for the error.  0 or -1 (AC_E_INPUT). */
int shell_check_directive(const char *what, const char *value, ac_err *e);

/* A value that will be single-quoted on a script line: may contain anything but
 * control characters (a newline would end a #SBATCH/comment line and NUL cannot
 * be passed).  0 or -1 (AC_E_INPUT). */
int shell_check_line(const char *what, const char *value, ac_err *e);

#endif
