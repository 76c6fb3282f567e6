/* test_progress.c — the progress line as a user sees it: rewritten in place on
 * a terminal (a pseudo-terminal here), plain rate-limited lines in a pipe. */
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "util/progress.h"

/* everything readable from fd within a short wait, NUL-terminated */
static size_t drain(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    struct pollfd p = { .fd = fd, .events = POLLIN };
    while (n + 1 < cap && poll(&p, 1, 200) > 0 && (p.revents & POLLIN)) {
        ssize_t k = read(fd, buf + n, cap - 1 - n);
        if (k <= 0) break;
        n += (size_t)k;
    }
    buf[n] = '\0';
    return n;
}

static int count_char(const char *s, char c)
{
    int n = 0;
    for (; *s; s++) n += *s == c;
    return n;
}

static void test_pipe_plain_lines_rate_limited(void)
{
    int fds[2];
    CHECK(pipe(fds) == 0);
    FILE *w = fdopen(fds[1], "w");
    progress p;
    progress_begin(&p, w, "jobs", 50);
    CHECK(!p.tty);
    for (int i = 1; i <= 50; i++) progress_update(&p, i, 1, 50 - i - 1 > 0 ? 50 - i - 1 : 0, 0);
    progress_end(&p);
    fclose(w);
    char buf[4096];
    drain(fds[0], buf, sizeof buf);
    close(fds[0]);
    /* default interval: the first update, then nothing for 10 s, then the summary */
    CHECK_INT(count_char(buf, '\n'), 2);
    CHECK_INT(count_char(buf, '\r'), 0);
    CHECK_CONTAINS(buf, "[jobs] 1/50 ended (0 failed), 1 running, 48 pending, 0s\n");
    CHECK_CONTAINS(buf, "[jobs] finished: 50/50 ended, 0 failed in 0s\n");
}

static void test_pipe_every_change_with_zero_interval(void)
{
    int fds[2];
    CHECK(pipe(fds) == 0);
    FILE *w = fdopen(fds[1], "w");
    progress p;
    progress_begin(&p, w, "launch", 3);
    progress_set_interval(&p, 0);
    progress_label(&p, "gpt3_5b_tp_1\n_pp_1"); /* a newline in a label must not split the line */
    progress_update(&p, 0, 1, 2, 0);
    progress_update(&p, 0, 1, 2, 0); /* unchanged: not repeated */
    progress_update(&p, 1, 1, 1, 0);
    progress_update(&p, 3, 0, 0, 1);
    progress_end(&p);
    fclose(w);
    char buf[4096];
    drain(fds[0], buf, sizeof buf);
    close(fds[0]);
    CHECK_INT(count_char(buf, '\n'), 4);
    CHECK_CONTAINS(buf, "[launch] 0/3 ended (0 failed), 1 running, 2 pending, 0s  gpt3_5b_tp_1 _pp_1\n");
    CHECK_CONTAINS(buf, "[launch] 3/3 ended (1 failed), 0 running, 0 pending");
    CHECK_CONTAINS(buf, "[launch] finished: 3/3 ended, 1 failed in 0s\n");
}

static void test_tty_rewrites_one_line(void)
{
    int m, s;
    struct winsize ws = { .ws_row = 24, .ws_col = 120 };
    if (openpty(&m, &s, NULL, NULL, &ws) != 0) { CHECK(!"openpty failed"); return; }
    FILE *w = fdopen(s, "w");
    progress p;
    progress_begin(&p, w, "jobs", 3);
    CHECK(p.tty);
    progress_label(&p, "a_rather_long_candidate_name");
    progress_update(&p, 0, 3, 0, 0);
    progress_label(&p, NULL);
    progress_update(&p, 1, 2, 0, 0);
    progress_update(&p, 3, 0, 0, 0);
    progress_end(&p);
    fflush(w);
    char buf[4096];
    drain(m, buf, sizeof buf);
    fclose(w);
    close(m);
    /* every update starts with \r, and only the summary ends a line */
    CHECK_CONTAINS(buf, "\r[jobs] 0/3 ended (0 failed), 3 running, 0 pending, 0s  a_rather_long_candidate_name");
    CHECK_CONTAINS(buf, "\r[jobs] 1/3 ended (0 failed), 2 running, 0 pending, 0s    "); /* label blanked */
    CHECK_CONTAINS(buf, "\r[jobs] finished: 3/3 ended, 0 failed in 0s");
    CHECK_INT(count_char(buf, '\n'), 1);
    CHECK(buf[0] == '\r');
}

/* a line wider than the terminal would wrap, and '\r' would then rewrite only its
 * last row, leaving a trail of half lines: it is cut to one less than the width */
static void test_tty_line_fits_the_terminal(void)
{
    int m, s;
    struct winsize ws = { .ws_row = 24, .ws_col = 60 };
    if (openpty(&m, &s, NULL, NULL, &ws) != 0) { CHECK(!"openpty failed"); return; }
    FILE *w = fdopen(s, "w");
    progress p;
    progress_begin(&p, w, "training runs", 40);
    progress_label(&p, "gpt3_5b_16nodes_tp_1_pp_1_mbs_1_act_ckpt_None_num_mbs_act_None_act_per_pipe_None");
    progress_update(&p, 1, 3, 36, 0);
    progress_label(&p, NULL);
    progress_update(&p, 2, 3, 35, 0);
    progress_end(&p);
    fflush(w);
    char buf[4096];
    drain(m, buf, sizeof buf);
    fclose(w);
    close(m);
    /* every segment between '\r's (and the final newline) is at most 59 columns */
    size_t longest = 0, cur = 0;
    for (const char *c = buf; *c; c++) {
        if (*c == '\r' || *c == '\n') cur = 0;
        else if (++cur > longest) longest = cur;
    }
    CHECK_INT((long)longest, 59);
    CHECK_CONTAINS(buf, "\r[training runs] 1/40 ended (0 failed), 3 running, 36 pendi");
    CHECK_CONTAINS(buf, "\r[training runs] finished: 2/40 ended, 0 failed in 0s");
}

static void test_elapsed_format(void)
{
    char b[32];
    CHECK_STR(progress_fmt_elapsed(b, sizeof b, 7.9), "7s");
    CHECK_STR(progress_fmt_elapsed(b, sizeof b, 312), "5m12s");
    CHECK_STR(progress_fmt_elapsed(b, sizeof b, 3723), "1h02m03s");
    CHECK_STR(progress_fmt_elapsed(b, sizeof b, -1), "0s");
}

static void test_unknown_total_and_no_output(void)
{
    int fds[2];
    CHECK(pipe(fds) == 0);
    FILE *w = fdopen(fds[1], "w");
    progress p;
    progress_begin(&p, w, "wait", 0);
    progress_update(&p, 4, 2, 0, 0);
    fclose(w);
    char buf[512];
    drain(fds[0], buf, sizeof buf);
    close(fds[0]);
    CHECK_CONTAINS(buf, "[wait] 4 ended (0 failed), 2 running");
    progress q;
    progress_begin(&q, NULL, NULL, 5); /* no stream: silently nothing */
    progress_update(&q, 1, 0, 0, 0);
    progress_end(&q);
}

int main(void)
{
    RUN(test_pipe_plain_lines_rate_limited);
    RUN(test_pipe_every_change_with_zero_interval);
    RUN(test_tty_rewrites_one_line);
    RUN(test_tty_line_fits_the_terminal);
    RUN(test_elapsed_format);
    RUN(test_unknown_total_and_no_output);
    CHECK_DONE();
}
