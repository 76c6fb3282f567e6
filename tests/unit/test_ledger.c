/* test_ledger.c — the SQLite ledger: plan, update, resume keeps stored rows,
 * a reopened ledger after a child was SIGKILLed mid-transaction loses nothing. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "results/ledger.h"

static char dir[64];

static ledger_row row(const char *name)
{
    ledger_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.name, sizeof r.name, "%s", name);
    snprintf(r.config_path, sizeof r.config_path, "/c/%s.yaml", name);
    r.nodes = 2; r.gpus_per_node = 8; r.predicted_step_s = 1.5;
    snprintf(r.backend, sizeof r.backend, "bcm");
    return r;
}

static void test_plan_update_resume(void)
{
    ac_err e;
    ledger *l = ledger_open(dir, &e);
    CHECK(l != NULL);
    if (!l) return;
    ledger_row a = row("a"), b = row("b"), got;
    int found;
    CHECK(ledger_plan(l, &a, &e) == 0);
    CHECK(ledger_plan(l, &b, &e) == 0);
    a.state = LEDGER_RUNNING;
    snprintf(a.job_id, sizeof a.job_id, "42");
    a.submitted_at = 100;
    CHECK(ledger_update(l, &a, &e) == 0);
    ledger_close(l);

    /* resume: planning again keeps the stored state and job id */
    l = ledger_open(dir, &e);
    ledger_row again = row("a");
    CHECK(ledger_plan(l, &again, &e) == 0);
    CHECK(ledger_get(l, "a", &got, &found, &e) == 0);
    CHECK(found);
    CHECK_INT(got.state, LEDGER_RUNNING);
    CHECK_STR(got.job_id, "42");
    CHECK_NEAR(got.predicted_step_s, 1.5, 1e-12);
    CHECK(ledger_get(l, "zzz", &got, &found, &e) == 0);
    CHECK(!found);
    ledger_row *rows;
    size_t n;
    CHECK(ledger_list(l, &rows, &n, &e) == 0);
    CHECK_INT(n, 2);
    if (n == 2) { CHECK_STR(rows[0].name, "a"); CHECK_STR(rows[1].name, "b"); CHECK_INT(rows[1].state, LEDGER_PLANNED); }
    free(rows);
    ledger_row ghost = row("ghost");
    CHECK(ledger_update(l, &ghost, &e) < 0);
    ledger_close(l);
}

/* a child updates rows in a loop and is SIGKILLed; every row it reported done is done */
static void test_kill9(void)
{
    ac_err e;
    int pfd[2];
    CHECK(pipe(pfd) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(pfd[0]);
        ledger *l = ledger_open(dir, &e);
        if (!l) _exit(1);
        for (int i = 0; i < 100000; i++) {
            char nm[32];
            snprintf(nm, sizeof nm, "k%d", i);
            ledger_row r = row(nm);
            if (ledger_plan(l, &r, &e) < 0) _exit(1);
            r.state = LEDGER_DONE;
            r.step_time_s = i;
            if (ledger_update(l, &r, &e) < 0) _exit(1);
            if (write(pfd[1], &i, sizeof i) != sizeof i) _exit(1);
        }
        _exit(0);
    }
    close(pfd[1]);
    int last = -1, v;
    for (int k = 0; k < 20 && read(pfd[0], &v, sizeof v) == sizeof v; k++) last = v;
    kill(pid, SIGKILL);
    while (read(pfd[0], &v, sizeof v) == sizeof v) last = v;
    close(pfd[0]);
    waitpid(pid, NULL, 0);
    CHECK(last >= 0);
    ledger *l = ledger_open_existing(dir, &e);
    CHECK(l != NULL);
    if (!l) return;
    for (int i = 0; i <= last; i++) {
        char nm[32];
        ledger_row got;
        int found;
        snprintf(nm, sizeof nm, "k%d", i);
        CHECK(ledger_get(l, nm, &got, &found, &e) == 0);
        CHECK(found && got.state == LEDGER_DONE && got.step_time_s == i);
    }
    ledger_close(l);
}

/* a row another process finished stays finished: a late cancel (or a late poll of the
 * search) neither erases a measurement nor revives a cancelled row */
static void test_advance_keeps_finished(void)
{
    ac_err e;
    ledger *l = ledger_open(dir, &e);
    CHECK(l != NULL);
    if (!l) return;
    ledger_row done = row("fin"), late;
    CHECK(ledger_plan(l, &done, &e) == 0);
    done.state = LEDGER_DONE;
    done.step_time_s = 3.25;
    int applied = -1;
    CHECK(ledger_advance(l, &done, &applied, &e) == 0);
    CHECK_INT(applied, 1);
    late = row("fin");
    late.state = LEDGER_FAILED;
    snprintf(late.reason, sizeof late.reason, "cancelled by autoconfig cancel");
    CHECK(ledger_advance(l, &late, &applied, &e) == 0);
    CHECK_INT(applied, 0);
    CHECK_INT(late.state, LEDGER_DONE); /* the stored row, copied back */
    CHECK_NEAR(late.step_time_s, 3.25, 1e-12);
    CHECK_STR(late.reason, "");
    ledger_close(l);
}

static void test_missing(void)
{
    ac_err e;
    CHECK(ledger_open_existing("/nonexistent/dir", &e) == NULL);
    CHECK_CONTAINS(e.msg, "no ledger here");
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/test_ledger.XXXXXX");
    if (!mkdtemp(dir)) return 1;
    RUN(test_plan_update_resume);
    RUN(test_kill9);
    RUN(test_advance_keeps_finished);
    RUN(test_missing);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) return 1;
    CHECK_DONE();
}
