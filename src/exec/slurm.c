/* slurm.c — the Slurm backend: sbatch --parsable, squeue/scontrol for states
 * (sacct may be disabled: no slurmdbd), scancel.  Every command runs from an
 * argv array (util/proc.h): no value is ever parsed by a shell.
 *
 * A job id can be reused after a Slurm state wipe, so every query checks that
 * the job's name still ends with the run name before trusting or cancelling. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/backend.h"
#include "util/proc.h"

#define SLURM_CMD_TIMEOUT_MS 60000

/* Slurm job states → ours (squeue/scontrol JobState names) */
static const struct { const char *slurm; exec_state st; } STATES[] = {
    { "PENDING", EXEC_PENDING },      { "CONFIGURING", EXEC_PENDING }, { "REQUEUED", EXEC_PENDING },
    { "REQUEUE_HOLD", EXEC_PENDING }, { "REQUEUE_FED", EXEC_PENDING }, { "RESV_DEL_HOLD", EXEC_PENDING },
    { "RUNNING", EXEC_RUNNING },      { "COMPLETING", EXEC_RUNNING },  { "SUSPENDED", EXEC_RUNNING },
    { "STOPPED", EXEC_RUNNING },      { "RESIZING", EXEC_RUNNING },    { "SIGNALING", EXEC_RUNNING },
    { "STAGE_OUT", EXEC_RUNNING },    { "COMPLETED", EXEC_DONE },
    { "FAILED", EXEC_FAILED },        { "TIMEOUT", EXEC_FAILED },      { "OUT_OF_MEMORY", EXEC_FAILED },
    { "NODE_FAIL", EXEC_FAILED },     { "CANCELLED", EXEC_FAILED },    { "PREEMPTED", EXEC_FAILED },
    { "BOOT_FAIL", EXEC_FAILED },     { "DEADLINE", EXEC_FAILED },     { "REVOKED", EXEC_FAILED },
    { "SPECIAL_EXIT", EXEC_FAILED },
};

static int map_state(const char *s, exec_state *st)
{
    for (size_t i = 0; i < sizeof STATES / sizeof STATES[0]; i++)
        if (!strcmp(s, STATES[i].slurm)) { *st = STATES[i].st; return 0; }
    return -1;
}

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ')) s[--n] = '\0';
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

/* sbatch errors that mean "the controller is not answering right now" (slurmctld
 * restarting or failing over), not "this job is refused": worth waiting for */
static const char *const TRANSIENT_SBATCH[] = {
    "Unable to contact slurm controller", "Socket timed out", "Zero Bytes were transmitted",
    "temporarily unable to accept job", "Connection refused",
};

static int sbatch_transient(const proc_result *r)
{
    if (r->timed_out) return 1;
    for (size_t i = 0; i < sizeof TRANSIENT_SBATCH / sizeof TRANSIENT_SBATCH[0]; i++)
        if (strstr(r->err, TRANSIENT_SBATCH[i])) return 1;
    return 0;
}

/* seconds to keep retrying a submission while the controller is away
 * (AUTOCONFIG_SBATCH_RETRY_S, default 300; 0 turns retrying off) */
static double sbatch_retry_budget(void)
{
    const char *v = getenv("AUTOCONFIG_SBATCH_RETRY_S");
    char *end;
    double s = v && *v ? strtod(v, &end) : 300.0;
    return v && *v && (*end || s < 0) ? 300.0 : s;
}

static int slurm_find(const exec_ctx *x, const ledger_row *row, const char *run_dir, char *job_id, size_t len,
                      int *found, ac_err *e);

static int slurm_submit(const exec_ctx *x, const exec_job *j, const char *run_dir, char *job_id, size_t len, ac_err *e)
{
    char *script;
    char **argv;
    if (exec_job_script(x->c, x->logs_dir, j, &script, &argv, NULL, e) < 0) return -1;
    free(script);
    proc_result r;
    double budget = sbatch_retry_budget(), waited = 0.0, pause = 1.0;
    for (;;) {
        if (proc_run((const char *const *)argv, SLURM_CMD_TIMEOUT_MS, &r, e) < 0) { exec_argv_free(argv); return -1; }
        trim(r.out);
        trim(r.err);
        if ((r.exit_code == 0 && !r.timed_out) || !sbatch_transient(&r) || waited >= budget) break;
        proc_result_free(&r);
        /* a timed-out sbatch may still have queued the job: look before submitting again */
        ledger_row row = {0};
        snprintf(row.name, sizeof row.name, "%s", j->name);
        int found = 0;
        ac_err ignored;
        if (slurm_find(x, &row, run_dir, job_id, len, &found, &ignored) == 0 && found) { exec_argv_free(argv); return 0; }
        proc_sleep_ms((long)(pause * 1000));
        waited += pause;
        pause = pause * 2 > 30 ? 30 : pause * 2;
    }
    exec_argv_free(argv);
    if (r.exit_code != 0 || r.timed_out) {
        ac_err_set(e, AC_E_EXEC, "sbatch refused job %s: %s%s", j->name,
                   r.timed_out ? "timed out" : r.err[0] ? r.err : "no message",
                   sbatch_transient(&r) && waited > 0 ? " (still failing after retrying; run the command again to resume)" : "");
        proc_result_free(&r);
        return -1;
    }
    if (exec_slurm_parse_sbatch(r.out, job_id, len) < 0) {
        ac_err_set(e, AC_E_EXEC, "sbatch for job %s printed no job id: \"%.200s\"", j->name, r.out);
        proc_result_free(&r);
        return -1;
    }
    proc_result_free(&r);
    return 0;
}

int exec_slurm_parse_sbatch(const char *out, char *job_id, size_t len)
{
    /* --parsable prints "id" or "id;cluster" (trimmed by the caller) */
    size_t nd = strspn(out, "0123456789");
    if (!nd || (out[nd] && out[nd] != ';') || nd >= len) return -1;
    snprintf(job_id, len, "%.*s", (int)nd, out);
    return 0;
}

int exec_slurm_parse_squeue(const char *out, char *state, char *reason, char *name, size_t len)
{
    /* the first line: "STATE|REASON|NAME" (the name may hold '|') */
    size_t ll = strcspn(out, "\n");
    const char *a = memchr(out, '|', ll), *b = a ? memchr(a + 1, '|', ll - (size_t)(a + 1 - out)) : NULL;
    if (!a || !b) return 0;
    snprintf(state, len, "%.*s", (int)(a - out), out);
    snprintf(reason, len, "%.*s", (int)(b - a - 1), a + 1);
    snprintf(name, len, "%.*s", (int)(ll - (size_t)(b + 1 - out)), b + 1);
    return 1;
}

int exec_slurm_parse_scontrol(const char *out, char *state, char *reason, char *name, size_t len)
{
    /* "JobId=.. JobName=NAME UserId=.. JobState=S Reason=R ..."; the name may hold blanks,
     * so it runs up to " UserId=" */
    const char *jn = strstr(out, "JobName="), *js = strstr(out, " JobState="), *rs = strstr(out, " Reason=");
    if (!jn || !js) return 0;
    jn += 8;
    const char *uid = strstr(jn, " UserId=");
    size_t nl = uid ? (size_t)(uid - jn) : strcspn(jn, " ");
    snprintf(name, len, "%.*s", (int)(nl < len ? nl : len - 1), jn);
    js += 10;
    size_t sl = strcspn(js, " \n");
    snprintf(state, len, "%.*s", (int)(sl < len ? sl : len - 1), js);
    if (rs) {
        rs += 8;
        size_t rl = strcspn(rs, " \n");
        snprintf(reason, len, "%.*s", (int)(rl < len ? rl : len - 1), rs);
    } else {
        reason[0] = '\0';
    }
    return 1;
}

long exec_slurm_find_job(const char *out, const char *run_dir, const char *want, const char *suffix)
{
    long best = -1;
    for (const char *line = out; *line;) {
        size_t ll = strcspn(line, "\n");
        const char *bar = memchr(line, '|', ll), *bar2 = bar ? memchr(bar + 1, '|', ll - (size_t)(bar + 1 - line)) : NULL;
        if (bar2) {
            size_t wl = (size_t)(bar2 - bar - 1), nl = ll - (size_t)(bar2 + 1 - line);
            const char *nm = bar2 + 1, *wd = bar + 1;
            bool dir_ok = strlen(run_dir) == wl && !memcmp(wd, run_dir, wl);
            bool name_ok = want ? strlen(want) == nl && !memcmp(nm, want, nl)
                                : nl >= strlen(suffix) && !memcmp(nm + nl - strlen(suffix), suffix, strlen(suffix));
            char *end;
            long id = strtol(line, &end, 10);
            if (dir_ok && name_ok && end != line && end <= bar && id > best) best = id;
        }
        line += ll;
        if (*line) line++;
    }
    return best;
}

/* state, reason and name of a job id: squeue, else scontrol; *known = 0 when Slurm forgot it */
static int query(const char *id, char *state, char *reason, char *name, size_t len, int *known, int *reachable)
{
    ac_err e;
    proc_result r;
    *known = 0;
    *reachable = 1;
    const char *sq[] = { "squeue", "-h", "-t", "all", "-j", id, "-o", "%T|%r|%j", NULL };
    if (proc_run(sq, SLURM_CMD_TIMEOUT_MS, &r, &e) == 0) {
        if (r.exit_code == 0 && r.out[0]) *known = exec_slurm_parse_squeue(r.out, state, reason, name, len);
        proc_result_free(&r);
        if (*known) return 0;
    }
    const char *sc[] = { "scontrol", "-o", "show", "job", id, NULL };
    if (proc_run(sc, SLURM_CMD_TIMEOUT_MS, &r, &e) < 0) { *reachable = 0; return 0; }
    if (r.exit_code != 0) {
        *reachable = strstr(r.err, "Invalid job id") != NULL;
        proc_result_free(&r);
        return 0;
    }
    *known = exec_slurm_parse_scontrol(r.out, state, reason, name, len);
    proc_result_free(&r);
    return 0;
}

static int slurm_poll(const exec_ctx *x, const ledger_row *row, const char *run_dir, exec_state *st, char *reason,
                      size_t rlen, ac_err *e)
{
    (void)x; (void)run_dir; (void)e;
    char state[512], why[512], name[512];
    int known, reachable;
    query(row->job_id, state, why, name, sizeof state, &known, &reachable);
    if (!known && !reachable) { /* controller down: keep what we knew, poll again later */
        *st = row->state == LEDGER_RUNNING ? EXEC_RUNNING : EXEC_PENDING;
        return 0;
    }
    if (!known || !ends_with(name, row->name)) {
        /* forgotten by Slurm (or id reused): the results on disk decide */
        *st = EXEC_DONE;
        return 0;
    }
    if (map_state(state, st) < 0) { *st = EXEC_RUNNING; return 0; }
    if (*st == EXEC_FAILED) {
        if (why[0] && strcmp(why, "None")) snprintf(reason, rlen, "%s (%s)", state, why);
        else snprintf(reason, rlen, "%s", state);
    }
    if (*st == EXEC_PENDING && !strcmp(why, "DependencyNeverSatisfied")) {
        *st = EXEC_FAILED;
        snprintf(reason, rlen, "dependency never satisfied");
    }
    return 0;
}

static int slurm_cancel(const exec_ctx *x, const ledger_row *row, const char *run_dir, ac_err *e)
{
    (void)x; (void)run_dir;
    char state[512], why[512], name[512];
    int known, reachable;
    query(row->job_id, state, why, name, sizeof state, &known, &reachable);
    if (!known || !ends_with(name, row->name)) return 0; /* not ours (any more): leave it alone */
    exec_state st;
    if (map_state(state, &st) == 0 && (st == EXEC_DONE || st == EXEC_FAILED)) return 0;
    const char *argv[] = { "scancel", row->job_id, NULL };
    proc_result r;
    if (proc_run(argv, SLURM_CMD_TIMEOUT_MS, &r, e) < 0) return -1;
    int bad = r.exit_code != 0;
    if (bad) {
        trim(r.err);
        ac_err_set(e, AC_E_EXEC, "scancel %s (%s) failed: %s", row->job_id, row->name, r.err);
    }
    proc_result_free(&r);
    return bad ? -1 : 0;
}

static int slurm_find(const exec_ctx *x, const ledger_row *row, const char *run_dir, char *job_id, size_t len,
                      int *found, ac_err *e)
{
    *found = 0;
    char want[512];
    exec_slurm_job_name(x->c ? x->c->cluster.job_name_prefix : "", row->name, want, sizeof want);
    /* the same run name may exist in another search: the working directory (--chdir) tells them apart */
    const char *argv[] = { "squeue", "-h", "-t", "all", "-o", "%i|%Z|%j", NULL };
    proc_result r;
    if (proc_run(argv, SLURM_CMD_TIMEOUT_MS, &r, e) < 0) return -1;
    if (r.exit_code != 0) {
        trim(r.err);
        ac_err_set(e, AC_E_EXEC, "squeue failed while resuming %s: %s", row->name, r.err);
        proc_result_free(&r);
        return -1;
    }
    long best = exec_slurm_find_job(r.out, run_dir, x->c ? want : NULL, row->name);
    proc_result_free(&r);
    if (best >= 0) { snprintf(job_id, len, "%ld", best); *found = 1; }
    return 0;
}

const exec_backend exec_backend_slurm = {
    .name = "bcm", .max_active = 0,
    .submit = slurm_submit, .poll = slurm_poll, .cancel = slurm_cancel, .find = slurm_find,
};
