/* dirlock.h — one owner per directory: an exclusive flock on <dir>/autoconfig.lock.
 *
 * Two processes driving the same logs directory would start jobs twice and
 * clean each other's run directories.  The lock is advisory (flock), held by
 * the open file, so the kernel drops it when its holder exits or is killed
 * (kill -9 included) and a resumed run takes it again.  It is re-entrant
 * within a process (run takes it, then the executor asks again) and not
 * inherited by jobs (close-on-exec).  The holder's pid is written in the file
 * for the second instance's message.
 */
#ifndef AC_DIRLOCK_H
#define AC_DIRLOCK_H

#include "util/err.h"

#define DIRLOCK_FILE "autoconfig.lock"

/* takes the lock of dir (created when missing); AC_E_INPUT naming the holder's
 * pid when another process holds it.  what: "logs dir" for the message. */
int dirlock_acquire(const char *dir, const char *what, ac_err *e);
/* releases one acquire of dir; the lock goes when the last one is released */
void dirlock_release(const char *dir);

#endif
