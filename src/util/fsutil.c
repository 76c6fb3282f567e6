/* fsutil.c — see fsutil.h. */
#define _GNU_SOURCE /* syncfs */
#include "util/fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *fs_read_file(const char *path, size_t *len, ac_err *e)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        ac_err_at(e, errno == ENOENT ? AC_E_INPUT : AC_E_IO, path, 0, 0, NULL, "cannot open: %s",
                  strerror(errno));
        return NULL;
    }
    struct stat st; /* a directory opens but does not read: say what it is */
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        ac_err_at(e, AC_E_INPUT, path, 0, 0, NULL, "is a directory, not a file");
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf) { fclose(f); ac_err_set(e, AC_E_NOMEM, "out of memory reading %s", path); return NULL; }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) break;
        if (n > FS_READ_MAX) {
            fclose(f);
            free(buf);
            ac_err_at(e, AC_E_INPUT, path, 0, 0, NULL, "larger than %zu MiB: not a file this tool reads", FS_READ_MAX >> 20);
            return NULL;
        }
        if (n + 1 == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) free(buf);
            buf = nb;
        }
    }
    if (ferror(f)) {
        fclose(f);
        free(buf);
        ac_err_at(e, AC_E_IO, path, 0, 0, NULL, "read error");
        return NULL;
    }
    fclose(f);
    buf[n] = '\0';
    if (len) *len = n;
    return buf;
}

int fs_write_atomic(const char *path, const void *data, size_t len, ac_err *e)
{
    return fs_write_atomic_opt(path, data, len, true, e);
}

int fs_write_atomic_opt(const char *path, const void *data, size_t len, bool sync, ac_err *e)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return ac_err_at(e, AC_E_INPUT, path, 0, 0, NULL, "path too long");
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return ac_err_at(e, AC_E_IO, path, 0, 0, NULL, "cannot create: %s", strerror(errno));
    const char *p = data;
    size_t left = len;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR) continue;
            int saved = errno;
            close(fd);
            unlink(tmp);
            return ac_err_at(e, AC_E_IO, path, 0, 0, NULL, "write failed: %s", strerror(saved));
        }
        p += w;
        left -= (size_t)w;
    }
    if ((sync && fsync(fd) != 0) || close(fd) != 0) {
        unlink(tmp);
        return ac_err_at(e, AC_E_IO, path, 0, 0, NULL, "fsync/close failed: %s", strerror(errno));
    }
    if (rename(tmp, path) != 0) {
        int saved = errno;
        unlink(tmp);
        return ac_err_at(e, AC_E_IO, path, 0, 0, NULL, "rename failed: %s", strerror(saved));
    }
    return 0;
}

int fs_mkdir_p(const char *path, ac_err *e)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf) return ac_err_set(e, AC_E_INPUT, "bad directory path '%s'", path);
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] == '/' || buf[i] == '\0') {
            char saved = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return ac_err_at(e, AC_E_IO, buf, 0, 0, NULL, "cannot create directory: %s", strerror(errno));
            if (!fs_is_dir(buf))
                return ac_err_at(e, AC_E_IO, buf, 0, 0, NULL, "exists and is not a directory");
            buf[i] = saved;
        }
    }
    return 0;
}

bool fs_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

bool fs_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int fs_join(char *buf, size_t len, const char *a, const char *b, ac_err *e)
{
    size_t la = strlen(a);
    const char *sep = (la > 0 && a[la - 1] != '/') ? "/" : "";
    if (snprintf(buf, len, "%s%s%s", a, sep, b) >= (int)len)
        return ac_err_set(e, AC_E_INPUT, "path too long: %s%s%s", a, sep, b);
    return 0;
}

int fs_sync_dir(const char *dir, ac_err *e)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0) return ac_err_at(e, AC_E_IO, dir, 0, 0, NULL, "cannot open directory: %s", strerror(errno));
    /* syncfs flushes every file written into the directory's file system at once */
    int rc = syncfs(fd);
    int saved = errno;
    close(fd);
    return rc ? ac_err_at(e, AC_E_IO, dir, 0, 0, NULL, "syncfs failed: %s", strerror(saved)) : 0;
}

int fs_abspath(const char *path, char *buf, size_t len, ac_err *e)
{
    int n;
    if (path[0] == '/') {
        n = snprintf(buf, len, "%s", path);
    } else {
        char cwd[4096];
        if (!getcwd(cwd, sizeof cwd)) return ac_err_set(e, AC_E_IO, "cannot read the working directory: %s", strerror(errno));
        while (path[0] == '.' && path[1] == '/') path += 2 + strspn(path + 2, "/");
        if (!strcmp(path, ".")) path = "";
        n = snprintf(buf, len, "%s%s%s", cwd, path[0] && strcmp(cwd, "/") ? "/" : "", path);
    }
    if (n < 0 || (size_t)n >= len) return ac_err_set(e, AC_E_INPUT, "path too long: %.80s...", path);
    return 0;
}

int fs_abspath_norm(const char *path, char *buf, size_t len, ac_err *e)
{
    if (fs_abspath(path, buf, len, e) < 0) return -1;
    /* lexical, as Python's os.path.abspath: "a/./b" -> "a/b", "a/x/../b" -> "a/b", "//" -> "/" */
    size_t out = 0;
    const char *p = buf;
    char *norm = malloc(len);
    if (!norm) return ac_err_set(e, AC_E_NOMEM, "out of memory");
    while (*p) {
        while (*p == '/') p++;
        size_t seg = strcspn(p, "/");
        if (seg == 0) break;
        if (seg == 1 && p[0] == '.') { p += seg; continue; }
        if (seg == 2 && p[0] == '.' && p[1] == '.') {
            while (out > 0 && norm[out - 1] != '/') out--;
            if (out > 0) out--; /* the '/' before the dropped segment */
            p += seg;
            continue;
        }
        norm[out++] = '/';
        memcpy(norm + out, p, seg);
        out += seg;
        p += seg;
    }
    if (out == 0) norm[out++] = '/';
    norm[out] = '\0';
    memcpy(buf, norm, out + 1);
    free(norm);
    return 0;
}

int fs_write_sb(const char *path, const strbuf *b, ac_err *e)
{
    if (!sb_str(b)) return ac_err_set(e, AC_E_NOMEM, "out of memory building %s", path);
    return fs_write_atomic(path, b->s ? b->s : "", b->len, e);
}

int fs_write_text_in(const char *dir, const char *name, const char *text, ac_err *e)
{
    char path[4096];
    if (fs_join(path, sizeof path, dir, name, e)) return -1;
    return fs_write_atomic(path, text, strlen(text), e);
}
