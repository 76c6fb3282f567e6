/* proc.c — fork/execvp with argv arrays, pipes for output, no shell. */
#define _GNU_SOURCE /* pipe2 */
#include "util/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/shell.h"

#define PROC_CAP (16u << 20)

typedef struct { char *buf; size_t len, cap; } growbuf;

static int gb_add(growbuf *g, const char *p, size_t n)
{
    if (g->len >= PROC_CAP) return 0;
    if (n > PROC_CAP - g->len) n = PROC_CAP - g->len;
    if (g->len + n + 1 > g->cap) {
        size_t nc = g->cap ? g->cap : 4096;
        while (nc < g->len + n + 1) nc *= 2;
        char *nb = realloc(g->buf, nc);
        if (!nb) return -1;
        g->buf = nb; g->cap = nc;
    }
    memcpy(g->buf + g->len, p, n);
    g->len += n;
    g->buf[g->len] = '\0';
    return 0;
}

static int gb_finish(growbuf *g)
{
    if (!g->buf) {
        g->buf = malloc(1);
        if (!g->buf) return -1;
        g->buf[0] = '\0';
    }
    return 0;
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void proc_describe(const char *const argv[], char *buf, size_t len)
{
    size_t used = 0;
    if (!len) return;
    buf[0] = '\0';
    for (size_t i = 0; argv[i]; i++) {
        char q[512];
        ac_err e;
        if (shell_quote(argv[i], q, sizeof q, &e) < 0) snprintf(q, sizeof q, "'…'");
        int n = snprintf(buf + used, len - used, "%s%s", i ? " " : "", q);
        if (n < 0 || (size_t)n >= len - used) break;
        used += (size_t)n;
    }
}

/* Child side after fork: report an exec failure's errno through fd, then _exit. */
static void child_fail(int fd, int err)
{
    ssize_t w = write(fd, &err, sizeof err);
    (void)w;
    _exit(127);
}

/* Waits for the exec-status pipe: 0 when exec succeeded (pipe closed on exec), else errno. */
static int exec_status(int fd)
{
    int err = 0;
    ssize_t n;
    do n = read(fd, &err, sizeof err); while (n < 0 && errno == EINTR);
    return n == (ssize_t)sizeof err ? err : 0;
}

void proc_result_free(proc_result *r)
{
    if (!r) return;
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
    r->out_len = r->err_len = 0;
}

int proc_run(const char *const argv[], int timeout_ms, proc_result *r, ac_err *e)
{
    char what[512];
    memset(r, 0, sizeof *r);
    if (!argv || !argv[0]) return ac_err_set(e, AC_E_INTERNAL, "proc_run: empty argv");
    proc_describe(argv, what, sizeof what);

    int po[2] = {-1, -1}, pe[2] = {-1, -1}, px[2] = {-1, -1};
    if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC) || pipe2(px, O_CLOEXEC)) {
        int err = errno;
        for (int i = 0; i < 2; i++) {
            if (po[i] >= 0) close(po[i]);
            if (pe[i] >= 0) close(pe[i]);
            if (px[i] >= 0) close(px[i]);
        }
        return ac_err_set(e, AC_E_EXEC, "%s: pipe: %s", what, strerror(err));
    }
    pid_t pid = fork();
    if (pid < 0) {
        int err = errno;
        close(po[0]); close(po[1]); close(pe[0]); close(pe[1]); close(px[0]); close(px[1]);
        return ac_err_set(e, AC_E_EXEC, "%s: fork: %s", what, strerror(err));
    }
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(po[1], 1) < 0 || dup2(pe[1], 2) < 0)
            child_fail(px[1], errno);
        signal(SIGPIPE, SIG_DFL);
        execvp(argv[0], (char *const *)argv);
        child_fail(px[1], errno);
    }
    close(po[1]); close(pe[1]); close(px[1]);
    int xerr = exec_status(px[0]);
    close(px[0]);

    growbuf go = {0}, ge = {0};
    int fds[2] = {po[0], pe[0]};
    int open_n = 2, nomem = 0;
    long long deadline = timeout_ms > 0 ? now_ms() + timeout_ms : 0;
    while (open_n > 0) {
        struct pollfd pf[2];
        int np = 0, map[2];
        for (int i = 0; i < 2; i++)
            if (fds[i] >= 0) { pf[np].fd = fds[i]; pf[np].events = POLLIN; map[np++] = i; }
        int wait = -1;
        if (deadline) {
            long long left = deadline - now_ms();
            if (left <= 0) { kill(pid, SIGKILL); r->timed_out = true; break; }
            wait = left > INT32_MAX ? INT32_MAX : (int)left;
        }
        int rc = poll(pf, (nfds_t)np, wait);
        if (rc < 0) { if (errno == EINTR) continue; break; }
        for (int k = 0; k < np; k++) {
            if (!(pf[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            char buf[8192];
            ssize_t n = read(pf[k].fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) { close(fds[map[k]]); fds[map[k]] = -1; open_n--; continue; }
            if (gb_add(map[k] == 0 ? &go : &ge, buf, (size_t)n) < 0) nomem = 1;
        }
    }
    for (int i = 0; i < 2; i++) if (fds[i] >= 0) close(fds[i]);

    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (nomem || gb_finish(&go) < 0 || gb_finish(&ge) < 0) {
        free(go.buf); free(ge.buf);
        return ac_err_set(e, AC_E_NOMEM, "%s: out of memory capturing output", what);
    }
    if (xerr) {
        free(go.buf); free(ge.buf);
        return ac_err_set(e, AC_E_EXEC, "%s: cannot run: %s", what, strerror(xerr));
    }
    r->out = go.buf; r->out_len = go.len;
    r->err = ge.buf; r->err_len = ge.len;
    if (WIFEXITED(status)) r->exit_code = WEXITSTATUS(status);
    else { r->exit_code = -1; r->term_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0; }
    return 0;
}

static int open_out(const char *path)
{
    return open(path ? path : "/dev/null", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

pid_t proc_spawn(const char *const argv[], const char *workdir, const char *out_path,
                 const char *err_path, ac_err *e)
{
    char what[512];
    if (!argv || !argv[0]) { ac_err_set(e, AC_E_INTERNAL, "proc_spawn: empty argv"); return -1; }
    proc_describe(argv, what, sizeof what);
    int px[2];
    if (pipe2(px, O_CLOEXEC)) { ac_err_set(e, AC_E_EXEC, "%s: pipe: %s", what, strerror(errno)); return -1; }
    pid_t pid = fork();
    if (pid < 0) {
        int err = errno;
        close(px[0]); close(px[1]);
        ac_err_set(e, AC_E_EXEC, "%s: fork: %s", what, strerror(err));
        return -1;
    }
    if (pid == 0) {
        setsid();
        if (workdir && chdir(workdir) < 0) child_fail(px[1], errno);
        int in = open("/dev/null", O_RDONLY);
        int out = open_out(out_path);
        int err = (err_path && out_path && strcmp(err_path, out_path) == 0) ? dup(out) : open_out(err_path);
        if (in < 0 || out < 0 || err < 0) child_fail(px[1], errno);
        if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) child_fail(px[1], errno);
        signal(SIGPIPE, SIG_DFL);
        execvp(argv[0], (char *const *)argv);
        child_fail(px[1], errno);
    }
    close(px[1]);
    int xerr = exec_status(px[0]);
    close(px[0]);
    if (xerr) {
        int st;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
        ac_err_set(e, AC_E_EXEC, "%s: cannot start (workdir %s, output %s): %s", what,
                   workdir ? workdir : ".", out_path ? out_path : "/dev/null", strerror(xerr));
        return -1;
    }
    return pid;
}

void proc_sleep_ms(long ms)
{
    if (ms <= 0) return;
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {}
}
