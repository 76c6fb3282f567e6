/* dirlock.c — see dirlock.h. */
#include "util/dirlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "util/fsutil.h"

/* the locks this process holds: few (one per logs dir), so a small table */
enum { DIRLOCK_MAX = 8 };
static struct {
    char path[4096];
    int fd, depth;
} held[DIRLOCK_MAX];

static int lock_path(const char *dir, char *path, size_t len, ac_err *e)
{
    char abs[4096];
    if (fs_abspath(dir, abs, sizeof abs, e) < 0) return -1;
    return fs_join(path, len, abs, DIRLOCK_FILE, e);
}

int dirlock_acquire(const char *dir, const char *what, ac_err *e)
{
    char path[4096];
    if (lock_path(dir, path, sizeof path, e) < 0) return -1;
    int slot = -1;
    for (int i = 0; i < DIRLOCK_MAX; i++) {
        if (held[i].depth > 0 && !strcmp(held[i].path, path)) { held[i].depth++; return 0; }
        if (held[i].depth == 0 && slot < 0) slot = i;
    }
    if (slot < 0) return ac_err_set(e, AC_E_INTERNAL, "more than %d directory locks held", DIRLOCK_MAX);
    if (fs_mkdir_p(dir, e) < 0) return -1;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return ac_err_set(e, AC_E_IO, "%s: cannot open: %s", path, strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int err = errno;
        char pid[32] = "";
        ssize_t n = err == EWOULDBLOCK ? pread(fd, pid, sizeof pid - 1, 0) : -1;
        close(fd);
        if (err != EWOULDBLOCK) return ac_err_set(e, AC_E_IO, "%s: cannot lock: %s", path, strerror(err));
        pid[n > 0 ? n : 0] = '\0';
        pid[strcspn(pid, "\r\n")] = '\0';
        return ac_err_set(e, AC_E_INPUT,
                          "%s %s is in use by another autoconfig (pid %s, lock %s); wait for it to finish, "
                          "stop it, or use another %s", what, dir, pid[0] ? pid : "unknown", path, what);
    }
    char pid[32];
    int len = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)len, 0) != len) { /* the pid is for messages only */ }
    snprintf(held[slot].path, sizeof held[slot].path, "%s", path);
    held[slot].fd = fd;
    held[slot].depth = 1;
    return 0;
}

void dirlock_release(const char *dir)
{
    char path[4096];
    ac_err e;
    if (lock_path(dir, path, sizeof path, &e) < 0) return;
    for (int i = 0; i < DIRLOCK_MAX; i++)
        if (held[i].depth > 0 && !strcmp(held[i].path, path)) {
            if (--held[i].depth == 0) close(held[i].fd); /* closing drops the flock */
            return;
        }
}
