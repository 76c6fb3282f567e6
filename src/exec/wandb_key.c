/* wandb_key.c — the W&B API key file, checked before any job starts (exec.h).
 * A job cds into its run directory first, so a relative path is made absolute
 * here; the key is the file's first line, and its content is never copied. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "exec/exec.h"
#include "util/fsutil.h"

int exec_wandb_key_path(const ac_config *c, char *abs, size_t len, ac_err *e)
{
    static const char key[] = "wandb.api_key_file";
    if (fs_abspath(c->wandb_api_key_file, abs, len, e)) return -1;
    struct stat st;
    if (stat(abs, &st) != 0)
        return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, key, "cannot read %s: %s", abs, strerror(errno));
    if (!S_ISREG(st.st_mode)) return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, key, "%s is not a regular file", abs);
    FILE *f = fopen(abs, "r");
    if (!f) return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, key, "cannot read %s: %s", abs, strerror(errno));
    char line[512];
    int ok = fgets(line, sizeof line, f) != NULL && line[strspn(line, " \t\r\n")] != '\0';
    fclose(f);
    if (!ok) return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, key, "%s: the first line holds no key", abs);
    return 0;
}
