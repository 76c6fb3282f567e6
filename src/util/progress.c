/* progress.c — see progress.h. */
#include "util/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static double elapsed(const progress *p)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - p->t0.tv_sec) + (double)(now.tv_nsec - p->t0.tv_nsec) / 1e9;
}

const char *progress_fmt_elapsed(char *buf, size_t len, double seconds)
{
    long s = seconds > 0 && seconds < 1e9 ? (long)seconds : 0;
    if (s >= 3600) snprintf(buf, len, "%ldh%02ldm%02lds", s / 3600, s / 60 % 60, s % 60);
    else if (s >= 60) snprintf(buf, len, "%ldm%02lds", s / 60, s % 60);
    else snprintf(buf, len, "%lds", s);
    return buf;
}

void progress_begin(progress *p, FILE *out, const char *what, int total)
{
    memset(p, 0, sizeof *p);
    p->out = out;
    p->tty = out && isatty(fileno(out));
    snprintf(p->what, sizeof p->what, "%s", what ? what : "progress");
    p->total = total;
    p->pending = total > 0 ? total : 0;
    p->interval_s = PROGRESS_PLAIN_INTERVAL_S;
    clock_gettime(CLOCK_MONOTONIC, &p->t0);
}

void progress_set_interval(progress *p, double seconds) { p->interval_s = seconds >= 0 ? seconds : 0; }

void progress_label(progress *p, const char *label)
{
    snprintf(p->label, sizeof p->label, "%s", label ? label : "");
    /* a label may not break the line it is shown on */
    for (char *c = p->label; *c; c++)
        if ((unsigned char)*c < 0x20) *c = ' ';
}

/* Columns of the terminal out is on (TIOCGWINSZ; else $COLUMNS; else 80). The
 * line is kept one shorter: a line that reaches the last column or wraps cannot
 * be rewritten with '\r', which only returns to the start of the last row. */
static size_t line_width(FILE *out)
{
    struct winsize ws;
    long cols = 0;
    if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) cols = ws.ws_col;
    else if (getenv("COLUMNS")) cols = strtol(getenv("COLUMNS"), NULL, 10);
    if (cols <= 0) cols = 80;
    return cols > 20 ? (size_t)cols - 1 : 19;
}

/* "[what] 12/40 done, 3 running, 24 pending, 1 failed, 1m05s  label" */
static int format_line(const progress *p, char *buf, size_t len, double t)
{
    char el[32], tot[24] = "";
    if (p->total > 0) snprintf(tot, sizeof tot, "/%d", p->total);
    return snprintf(buf, len, "[%s] %d%s ended (%d failed), %d running, %d pending, %s%s%s", p->what, p->done, tot,
                    p->failed, p->running, p->pending, progress_fmt_elapsed(el, sizeof el, t), *p->label ? "  " : "",
                    p->label);
}

void progress_update(progress *p, int done, int running, int pending, int failed)
{
    if (!p->out) return;
    if (done != p->done || running != p->running || pending != p->pending || failed != p->failed)
        p->state_changed = true;
    p->done = done;
    p->running = running;
    p->pending = pending;
    p->failed = failed;
    double t = elapsed(p);
    char line[320];
    int n = format_line(p, line, sizeof line, t);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    if (p->tty) {
        /* rewrite in place, within the terminal's width; blank what a longer
         * previous line left behind */
        size_t w = line_width(p->out);
        if (len > w) line[len = w] = '\0';
        if (p->last_len > w) p->last_len = w;
        fprintf(p->out, "\r%s", line);
        for (size_t i = len; i < p->last_len; i++) fputc(' ', p->out);
        p->last_len = len;
    } else {
        if (p->printed && (!p->state_changed || t - p->last_print < p->interval_s)) return;
        fprintf(p->out, "%s\n", line);
        p->printed = true;
        p->last_print = t;
        p->state_changed = false;
    }
    fflush(p->out);
}

void progress_end(progress *p)
{
    if (!p->out) return;
    char el[32], tot[24] = "";
    if (p->total > 0) snprintf(tot, sizeof tot, "/%d", p->total);
    char line[256];
    int n = snprintf(line, sizeof line, "[%s] finished: %d%s ended, %d failed in %s", p->what, p->done, tot, p->failed,
                     progress_fmt_elapsed(el, sizeof el, elapsed(p)));
    size_t len = n < 0 ? 0 : (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    if (p->tty) {
        size_t w = line_width(p->out);
        if (len > w) line[len = w] = '\0';
        if (p->last_len > w) p->last_len = w;
        fprintf(p->out, "\r%s", line);
        for (size_t i = len; i < p->last_len; i++) fputc(' ', p->out);
    } else {
        fputs(line, p->out);
    }
    fputc('\n', p->out);
    fflush(p->out);
    p->last_len = 0;
}
