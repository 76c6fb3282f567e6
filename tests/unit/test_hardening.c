/* test_hardening.c — issue 26 defects 4 and 11 at the library level: the runs are
 * ranked by tokens/s, and the exhaustive walk keeps its top candidates and sorts
 * the results in O(n log n) (the old sorted-array insert and insertion sort took
 * minutes at limit_search_runs=100000); defect 3 at the ledger: each row keeps the
 * fingerprint of its settings, ledgers from before gain the column, a replanned
 * row forgets its old result. */
#include <sqlite3.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "config/cfg.h"
#include "model/basecfg.h"
#include "results/ledger.h"
#include "results/train_results.h"
#include "search/train_search.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* 200,000 runs whose step times rise with the global batch: ranked by tokens/s, fast */
static void test_sorted_runs_by_tokens_per_s(void)
{
    enum { N = 200000 };
    search_train_result r = { 0 };
    r.n = N;
    r.items = calloc(N, sizeof *r.items);
    r.order = calloc(N, sizeof *r.order);
    size_t *idx = calloc(N, sizeof *idx);
    if (!r.items || !r.order || !idx) { CHECK(0); free(r.items); free(r.order); free(idx); return; }
    r.base.shape.seq_length = 2048;
    for (size_t i = 0; i < N; i++) {
        r.order[i] = i;
        r.items[i].launched = true;
        r.items[i].cand.gbs = 256 << (i % 4);                          /* 256..2048 */
        r.items[i].step_time_s = (1.0 + (double)i / N) * (0.5 + 0.5 * r.items[i].cand.gbs / 256.0); /* 1 s .. 4.5 s */
    }
    double t0 = now_s();
    size_t n = results_sorted_runs(&r, idx, N);
    double dt = now_s() - t0;
    CHECK_INT(n, N);
    CHECK(dt < 2.0);
    int sorted = 1;
    for (size_t i = 1; i < n; i++)
        if (results_run_tokens_per_s(&r, &r.items[idx[i - 1]]) < results_run_tokens_per_s(&r, &r.items[idx[i]])) sorted = 0;
    CHECK(sorted);
    /* the best is a GBS-2048 run, though a GBS-256 run has the shortest step */
    CHECK_INT(r.items[idx[0]].cand.gbs, 2048);
    free(r.items);
    free(r.order);
    free(idx);
}

static int load(ac_config *c, const char *limit)
{
    char *ov[] = { "search_config=gpt3/5b", "search_config.train_settings.search_mode=exhaustive", (char *)limit,
                   "search_config.train_settings.global_batch_sizes=[1024,2048]" };
    ac_err e;
    int rc = cfg_load("conf", 4, ov, c, &e);
    if (rc) printf("  %s\n", e.msg);
    return rc;
}

/* the exhaustive top-k: the best 20 are the first 20 of the best 5000, in the same order */
static void test_exhaustive_top_k(void)
{
    ac_config c1, c2;
    model_base_config b1 = { 0 }, b2 = { 0 };
    search_train_result r1 = { 0 }, r2 = { 0 };
    ac_err e;
    if (load(&c1, "search_config.train_settings.limit_search_runs=20") ||
        load(&c2, "search_config.train_settings.limit_search_runs=5000")) { CHECK(0); return; }
    CHECK(model_base_config_build(&c1, 5, &b1, &e) == 0);
    CHECK(model_base_config_build(&c2, 5, &b2, &e) == 0);
    double t0 = now_s();
    CHECK(search_train_run(&c1, &b1, &r1, &e) == 0);
    CHECK(search_train_run(&c2, &b2, &r2, &e) == 0);
    CHECK(now_s() - t0 < 10.0);
    CHECK_INT(r1.n, 20);
    CHECK(r2.n > 1000);
    for (size_t i = 0; i < r1.n && i < r2.n; i++) CHECK_STR(r1.items[r1.order[i]].name, r2.items[r2.order[i]].name);
    int best_first = 1;
    for (size_t i = 1; i < r2.n; i++)
        if (r2.items[r2.order[i - 1]].est.tokens_per_s < r2.items[r2.order[i]].est.tokens_per_s) best_first = 0;
    CHECK(best_first);
    search_train_free(&r1);
    search_train_free(&r2);
    model_base_config_free(&b1);
    model_base_config_free(&b2);
    cfg_free(&c1);
    cfg_free(&c2);
}

/* a ledger written before the settings column opens, gains it, and keeps its rows */
static void test_ledger_settings(void)
{
    char dir[] = "/tmp/ac_ledger_XXXXXX";
    if (!mkdtemp(dir)) { CHECK(0); return; }
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, LEDGER_FILE);
    sqlite3 *db;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db,
                       "CREATE TABLE jobs (seq INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE,"
                       " config_path TEXT NOT NULL DEFAULT '', nodes INTEGER NOT NULL DEFAULT 0,"
                       " gpus_per_node INTEGER NOT NULL DEFAULT 0, predicted_step_s REAL NOT NULL DEFAULT 0,"
                       " backend TEXT NOT NULL DEFAULT '', state TEXT NOT NULL, job_id TEXT NOT NULL DEFAULT '',"
                       " submitted_at REAL NOT NULL DEFAULT 0, started_at REAL NOT NULL DEFAULT 0,"
                       " finished_at REAL NOT NULL DEFAULT 0, step_time_s REAL NOT NULL DEFAULT 0,"
                       " n_steps INTEGER NOT NULL DEFAULT 0, reason TEXT NOT NULL DEFAULT '');"
                       "INSERT INTO jobs (name, state, step_time_s) VALUES ('old', 'done', 1.5);",
                       NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    ac_err e;
    ledger *l = ledger_open(dir, &e);
    CHECK(l != NULL);
    if (!l) return;
    ledger_row r;
    int found = 0;
    CHECK(ledger_get(l, "old", &r, &found, &e) == 0 && found);
    CHECK_STR(r.settings, "");
    CHECK_NEAR(r.step_time_s, 1.5, 1e-12);
    ledger_row want = { 0 };
    snprintf(want.name, sizeof want.name, "old");
    snprintf(want.settings, sizeof want.settings, "0123456789abcdef");
    snprintf(want.config_path, sizeof want.config_path, "/c/old.yaml");
    CHECK(ledger_replan(l, &want, &e) == 0);
    CHECK(ledger_get(l, "old", &r, &found, &e) == 0 && found);
    CHECK_STR(r.settings, "0123456789abcdef");
    CHECK_STR(ledger_state_name(r.state), "planned");
    CHECK(r.step_time_s == 0);
    CHECK_STR(r.config_path, "/c/old.yaml");
    snprintf(want.name, sizeof want.name, "new");
    CHECK(ledger_plan(l, &want, &e) == 0);
    CHECK(ledger_get(l, "new", &r, &found, &e) == 0 && found);
    CHECK_STR(r.settings, "0123456789abcdef");
    ledger_close(l);
    unlink(path);
    char side[160];
    snprintf(side, sizeof side, "%s-wal", path); unlink(side);
    snprintf(side, sizeof side, "%s-shm", path); unlink(side);
    rmdir(dir);
}

int main(void)
{
    RUN(test_ledger_settings);
    RUN(test_sorted_runs_by_tokens_per_s);
    RUN(test_exhaustive_top_k);
    CHECK_DONE();
}
