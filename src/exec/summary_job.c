/* summary_job.c — the Slurm job that summarises a search after its training
 * jobs end, for users who do not keep the tool waiting (`launch --no-wait`):
 * the original's launcher does the same with an afterany dependency.  The job
 * runs the tool's own command again, which resumes from the ledger, finds every
 * run final and prints the summary into <logs>/summary-<id>.out. */
#include "exec/exec.h"

#include <stdlib.h>
#include <string.h>

#include "exec/backend.h"
#include "util/fsutil.h"
#include "util/proc.h"
#include "util/shell.h"
#include "util/strbuf.h"

#define SUMMARY_TIME_LIMIT "0-00:30:00"
#define SUMMARY_MEM_MB "1024"
#define SUMMARY_CMD_TIMEOUT_MS 60000

/* "#SBATCH" lines take no quoting: such values are checked, never quoted */
static int add_directive(strbuf *sb, const char *what, const char *flag, const char *value, ac_err *e)
{
    if (shell_check_directive(what, value, e) < 0) return -1;
    sb_printf(sb, "#SBATCH --%s=%s\n", flag, value);
    return 0;
}

static int add_quoted(strbuf *sb, const char *what, const char *word, ac_err *e)
{
    if (shell_check_line(what, word, e) < 0) return -1;
    return shell_quote_add(sb, word, e);
}

int exec_submit_summary(const ac_config *c, const char *logs_dir, const char *cwd, const char *const *cmd_argv,
                        const exec_outcome *jobs, size_t n, char *job_id, size_t len, ac_err *e)
{
    if (strcmp(c->cluster_type, "bcm")) return ac_err_set(e, AC_E_INPUT, "a summary job needs cluster_type bcm (Slurm)");
    if (strchr(logs_dir, '%')) return ac_err_set(e, AC_E_INPUT, "logs dir %s: '%%' is a Slurm file pattern", logs_dir);
    strbuf sb, dep;
    sb_init(&sb);
    sb_init(&dep);
    int rc = 0;
    sb_add(&sb, "#!/bin/bash\n");
    if (c->cluster.partition[0]) rc |= add_directive(&sb, "cluster.partition", "partition", c->cluster.partition, e);
    if (!rc && c->cluster.account[0]) rc |= add_directive(&sb, "cluster.account", "account", c->cluster.account, e);
    sb_add(&sb, "#SBATCH --nodes=1\n#SBATCH --ntasks=1\n#SBATCH --time=" SUMMARY_TIME_LIMIT "\n#SBATCH --mem=" SUMMARY_MEM_MB "\n");
    sb_add(&sb, "# autoconfig summary job: runs after every training job of the search ended (afterany)\nset -u\ncd ");
    if (!rc) rc = add_quoted(&sb, "working directory", cwd, e);
    sb_add(&sb, " || exit 1\n");
    for (size_t i = 0; !rc && cmd_argv[i]; i++) {
        if (i) sb_add(&sb, " ");
        rc = add_quoted(&sb, "summary command argument", cmd_argv[i], e);
    }
    sb_add(&sb, "\n");
    /* dependencies: only jobs that may still run */
    for (size_t i = 0; i < n; i++)
        if ((jobs[i].state == EXEC_PENDING || jobs[i].state == EXEC_RUNNING) && jobs[i].job_id[0])
            sb_printf(&dep, "%s%s", dep.len ? ":" : "afterany:", jobs[i].job_id);
    if (!rc && (sb.oom || dep.oom)) rc = ac_err_set(e, AC_E_NOMEM, "out of memory");
    char script[1200], name[512], chdir_arg[1300], out_arg[1300];
    snprintf(script, sizeof script, "%s/summary_job.sh", logs_dir);
    if (!rc) rc = fs_write_atomic(script, sb.s, sb.len, e);
    exec_slurm_job_name(c->cluster.job_name_prefix, "summary", name, sizeof name);
    char jn[600];
    snprintf(jn, sizeof jn, "--job-name=%s", name);
    snprintf(chdir_arg, sizeof chdir_arg, "--chdir=%s", logs_dir);
    snprintf(out_arg, sizeof out_arg, "--output=%s/summary-%%j.out", logs_dir);
    const char *argv[9];
    size_t k = 0;
    argv[k++] = "sbatch";
    argv[k++] = "--parsable";
    argv[k++] = jn;
    argv[k++] = chdir_arg;
    argv[k++] = out_arg;
    char *dep_heap = NULL;
    if (dep.len) {
        size_t need = dep.len + 16;
        dep_heap = malloc(need);
        if (!dep_heap) rc = rc ? rc : ac_err_set(e, AC_E_NOMEM, "out of memory");
        else { snprintf(dep_heap, need, "--dependency=%s", dep.s); argv[k++] = dep_heap; }
    }
    argv[k++] = script;
    argv[k] = NULL;
    proc_result r;
    if (!rc && (rc = proc_run(argv, SUMMARY_CMD_TIMEOUT_MS, &r, e)) == 0) {
        size_t o = strlen(r.out);
        while (o && (r.out[o - 1] == '\n' || r.out[o - 1] == '\r')) r.out[--o] = '\0';
        char *semi = strchr(r.out, ';');
        if (semi) *semi = '\0';
        if (r.exit_code != 0 || r.timed_out || !r.out[0] || strspn(r.out, "0123456789") != strlen(r.out)) {
            size_t el = strlen(r.err);
            while (el && r.err[el - 1] == '\n') r.err[--el] = '\0';
            rc = ac_err_set(e, AC_E_EXEC, "sbatch refused the summary job: %s",
                            r.timed_out ? "timed out" : r.err[0] ? r.err : "no job id printed");
        } else snprintf(job_id, len, "%s", r.out);
        proc_result_free(&r);
    }
    free(dep_heap);
    sb_free(&sb);
    sb_free(&dep);
    return rc ? -1 : 0;
}
