/* progress.h — a progress line for long work (launching jobs, waiting on them).
 *
 * On a terminal: one line rewritten in place with '\r', cut to the terminal's width
 *     [training search] 13/40 ended (1 failed), 3 running, 24 pending, 1m05s  gpt3_5b_...
 * Not on a terminal (a pipe, a log file): the same text as ordinary lines,
 * at most one every interval_s seconds (and only when a count changed), so
 * logs stay short.  progress_end prints one summary line either way:
 *     [training search] finished: 40/40 ended, 1 failed in 5m12s
 * ("ended" counts succeeded and failed jobs alike: done + failed)
 *
 * The caller owns the struct (no allocation); the output FILE is the caller's
 * choice (stderr usually, so --json on stdout stays clean).
 */
#ifndef AC_UTIL_PROGRESS_H
#define AC_UTIL_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#define PROGRESS_PLAIN_INTERVAL_S 10.0 /* default: plain lines at most this often */

typedef struct {
    FILE *out;
    bool tty;           /* isatty(fileno(out)) at begin */
    bool printed;       /* anything written yet (plain mode) */
    char what[64];
    char label[128];
    int total;          /* <= 0: unknown */
    int done, running, pending, failed;
    double interval_s;  /* plain mode: minimum seconds between lines */
    struct timespec t0; /* CLOCK_MONOTONIC at begin */
    double last_print;  /* seconds since t0 of the last plain line */
    size_t last_len;    /* tty mode: length of the line on screen, to blank leftovers */
    bool state_changed; /* counts changed since the last plain line */
} progress;

/* starts; nothing is printed until the first update */
void progress_begin(progress *p, FILE *out, const char *what, int total);
/* plain-mode minimum interval (0: every change is printed) */
void progress_set_interval(progress *p, double seconds);
/* text shown after the counts, e.g. the job just launched (NULL or "" clears) */
void progress_label(progress *p, const char *label);
/* done: jobs that ended, failed ones included; failed: how many of those failed */
void progress_update(progress *p, int done, int running, int pending, int failed);
/* the summary line (ends the in-place line on a terminal) */
void progress_end(progress *p);

/* "1h02m03s", "5m12s", "7s" */
const char *progress_fmt_elapsed(char *buf, size_t len, double seconds);

#endif
