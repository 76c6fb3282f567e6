/* proc.h — running external programs without a shell.
 *
 * Programs are started with fork + execvp from an argv array, so no argument
 * is ever parsed by /bin/sh.  proc_run waits and captures stdout and stderr
 * through pipes (read together with poll, so a chatty child cannot deadlock);
 * proc_spawn starts a detached job in its own process group with stdout and
 * stderr sent to files, for the local executor.
 */
#ifndef AC_PROC_H
#define AC_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "util/err.h"

typedef struct {
    int exit_code;   /* exit status, or -1 when killed by a signal   */
    int term_signal; /* the signal that killed it, else 0             */
    bool timed_out;  /* killed by proc_run after timeout_ms           */
    char *out;       /* captured stdout, NUL-terminated (never NULL after success) */
    size_t out_len;
    char *err;       /* captured stderr, NUL-terminated               */
    size_t err_len;
} proc_result;

/* Runs argv[0] (looked up in PATH) with argv, stdin from /dev/null, and waits.
 * timeout_ms ≤ 0: no limit; otherwise the child is SIGKILLed after it.
 * Each captured stream is cut at 16 MiB.  Returns 0 when the program ran (whatever
 * its exit status: see r), -1 (AC_E_EXEC) when it could not be started, e.g. not found.
 * Free r with proc_result_free. */
int proc_run(const char *const argv[], int timeout_ms, proc_result *r, ac_err *e);
void proc_result_free(proc_result *r);

/* Starts argv in a new session/process group (so kill(-pid) reaches its children),
 * in workdir (NULL: current), stdin /dev/null, stdout/stderr appended to the files
 * (NULL: /dev/null; the same path for both is fine).  Returns the pid, -1 on error
 * (AC_E_EXEC, with the reason execvp or open gave). */
pid_t proc_spawn(const char *const argv[], const char *workdir, const char *out_path,
                 const char *err_path, ac_err *e);

/* "argv[0] argv[1] …" with each word shell-quoted, for error messages. */
void proc_describe(const char *const argv[], char *buf, size_t len);

/* sleeps ms milliseconds, resuming after signals (≤ 0: returns at once) */
void proc_sleep_ms(long ms);

#endif
