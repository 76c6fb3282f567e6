/* fsutil.h — file-system helpers: whole-file read, atomic write, mkdir -p.
 * Atomic write = temp file in the same directory, fsync, rename: a reader (or
 * a crash) sees the old file or the new one, never half of one. */
#ifndef AC_FSUTIL_H
#define AC_FSUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include "util/err.h"
#include "util/strbuf.h"

/* inputs larger than this are refused, not read: a config, CSV or log is far smaller,
 * and /dev/zero or a wrong path must not eat the machine's memory */
#define FS_READ_MAX ((size_t)256 << 20)

/* reads a whole file; *len gets its size; NUL-terminated; NULL on error */
char *fs_read_file(const char *path, size_t *len, ac_err *e);
int fs_write_atomic(const char *path, const void *data, size_t len, ac_err *e);
/* the text as dir/name, atomically (a path that does not fit is AC_E_INPUT) */
int fs_write_text_in(const char *dir, const char *name, const char *text, ac_err *e);
/* a built text (util/strbuf.h) written atomically to path; AC_E_NOMEM when building it ran out */
int fs_write_sb(const char *path, const strbuf *b, ac_err *e);
/* the same; sync false skips the per-file fsync (many small files: call fs_sync_dir once) */
int fs_write_atomic_opt(const char *path, const void *data, size_t len, bool sync, ac_err *e);
/* flushes everything written under dir to disk (syncfs) */
int fs_sync_dir(const char *dir, ac_err *e);
int fs_mkdir_p(const char *path, ac_err *e);
bool fs_exists(const char *path);
bool fs_is_dir(const char *path);
/* path made absolute against the working directory (no symlinks resolved, the path
 * need not exist): job scripts and executors chdir, so they must not see "./x" */
int fs_abspath(const char *path, char *buf, size_t len, ac_err *e);
/* the same, with "." and ".." segments and repeated '/' removed lexically (paths handed to
 * another machine, a container mount or a job, which may not resolve them alike) */
int fs_abspath_norm(const char *path, char *buf, size_t len, ac_err *e);
/* "a/b" + "c" → "a/b/c" into buf; returns -1 (AC_E_INPUT) when it does not fit */
int fs_join(char *buf, size_t len, const char *a, const char *b, ac_err *e);

#endif
