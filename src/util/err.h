/* err.h — the one error type of autoconfig.
 *
 * Library code never prints or exits: it fills an ac_err and returns -1 (or
 * NULL).  The CLI prints ac_err_format() and maps the code to an exit status
 * (AC_E_INPUT → 2: the user's input is wrong; anything else → 1).  Config
 * errors carry the file, line, column and dotted key so the message says where.
 */
#ifndef AC_ERR_H
#define AC_ERR_H

#include <stddef.h>

typedef enum {
    AC_OK = 0,
    AC_E_INPUT,   /* bad user input: config, override, CSV, candidate      */
    AC_E_IO,      /* file system                                            */
    AC_E_NOMEM,   /* allocation                                             */
    AC_E_EXEC,    /* an external program (sbatch, squeue, a job) failed     */
    AC_E_INTERNAL /* a bug: an invariant did not hold                       */
} ac_code;

typedef struct {
    ac_code code;
    char file[512]; /* "" when not about a file */
    int line;       /* 1-based, 0 when unknown  */
    int col;        /* 1-based, 0 when unknown  */
    char key[256];  /* dotted config key, "" when none */
    char msg[1024];
} ac_err;

/* Sets code and message (printf-style); clears file/line/key. Returns -1. */
int ac_err_set(ac_err *e, ac_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Same, with a location. file may be NULL; key may be NULL. Returns -1. */
int ac_err_at(ac_err *e, ac_code code, const char *file, int line, int col,
              const char *key, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

/* "file:line:col: key: message" with the absent parts left out. */
const char *ac_err_format(const ac_err *e, char *buf, size_t len);

/* Exit status the CLI uses for this error: 2 for input errors, 1 otherwise. */
int ac_err_exit_status(const ac_err *e);

#endif
