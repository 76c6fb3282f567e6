/* ledger.c — SQLite ledger: WAL, synchronous=FULL, one transaction per change. */
#include "results/ledger.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fsutil.h"

struct ledger {
    sqlite3 *db;
    char path[2048];
};

static const char *const STATE_NAMES[] = { "planned", "submitting", "pending", "running", "done", "failed" };

const char *ledger_state_name(ledger_state s)
{
    return (unsigned)s < sizeof STATE_NAMES / sizeof STATE_NAMES[0] ? STATE_NAMES[s] : "?";
}

int ledger_state_final(ledger_state s) { return s == LEDGER_DONE || s == LEDGER_FAILED; }

static ledger_state state_parse(const char *s)
{
    for (size_t i = 0; s && i < sizeof STATE_NAMES / sizeof STATE_NAMES[0]; i++)
        if (!strcmp(s, STATE_NAMES[i])) return (ledger_state)i;
    return LEDGER_PLANNED;
}

static int db_fail(ledger *l, ac_err *e, const char *what)
{
    return ac_err_set(e, AC_E_IO, "%s: %s: %s", l->path, what, sqlite3_errmsg(l->db));
}

static const char SCHEMA[] =
    "CREATE TABLE IF NOT EXISTS jobs ("
    " seq INTEGER PRIMARY KEY AUTOINCREMENT,"
    " name TEXT NOT NULL UNIQUE, config_path TEXT NOT NULL DEFAULT '',"
    " nodes INTEGER NOT NULL DEFAULT 0, gpus_per_node INTEGER NOT NULL DEFAULT 0,"
    " predicted_step_s REAL NOT NULL DEFAULT 0, backend TEXT NOT NULL DEFAULT '',"
    " state TEXT NOT NULL, job_id TEXT NOT NULL DEFAULT '',"
    " submitted_at REAL NOT NULL DEFAULT 0, started_at REAL NOT NULL DEFAULT 0,"
    " finished_at REAL NOT NULL DEFAULT 0, step_time_s REAL NOT NULL DEFAULT 0,"
    " n_steps INTEGER NOT NULL DEFAULT 0, reason TEXT NOT NULL DEFAULT '',"
    " settings TEXT NOT NULL DEFAULT '');";

/* ledgers written before the settings column: added, empty (unknown) */
static int add_settings_column(ledger *l)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(l->db, "SELECT 1 FROM pragma_table_info('jobs') WHERE name = 'settings'", -1, &st, NULL) != SQLITE_OK)
        return -1;
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW) return 0;
    if (rc != SQLITE_DONE) return -1;
    return sqlite3_exec(l->db, "ALTER TABLE jobs ADD COLUMN settings TEXT NOT NULL DEFAULT ''", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

static ledger *open_path(const char *logs_dir, int create, ac_err *e)
{
    ledger *l = calloc(1, sizeof *l);
    if (!l) { ac_err_set(e, AC_E_NOMEM, "out of memory"); return NULL; }
    if (fs_join(l->path, sizeof l->path, logs_dir, LEDGER_FILE, e) < 0) { free(l); return NULL; }
    if (!create && !fs_exists(l->path)) {
        ac_err_set(e, AC_E_INPUT, "%s: no ledger here (no real runs were launched from this logs dir)", l->path);
        free(l);
        return NULL;
    }
    if (create && fs_mkdir_p(logs_dir, e) < 0) { free(l); return NULL; }
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(l->path, &l->db, flags, NULL) != SQLITE_OK) {
        db_fail(l, e, "cannot open");
        ledger_close(l);
        return NULL;
    }
    sqlite3_busy_timeout(l->db, 10000);
    char *msg = NULL;
    if (sqlite3_exec(l->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;", NULL, NULL, &msg) != SQLITE_OK ||
        sqlite3_exec(l->db, SCHEMA, NULL, NULL, &msg) != SQLITE_OK || add_settings_column(l) != 0) {
        ac_err_set(e, AC_E_IO, "%s: %s", l->path, msg ? msg : "cannot initialise");
        sqlite3_free(msg);
        ledger_close(l);
        return NULL;
    }
    return l;
}

ledger *ledger_open(const char *logs_dir, ac_err *e) { return open_path(logs_dir, 1, e); }
ledger *ledger_open_existing(const char *logs_dir, ac_err *e) { return open_path(logs_dir, 0, e); }

void ledger_close(ledger *l)
{
    if (!l) return;
    sqlite3_close(l->db);
    free(l);
}

static void copy_text(char *dst, size_t len, const unsigned char *src)
{
    snprintf(dst, len, "%s", src ? (const char *)src : "");
}

static void row_from_stmt(sqlite3_stmt *st, ledger_row *r)
{
    memset(r, 0, sizeof *r);
    copy_text(r->name, sizeof r->name, sqlite3_column_text(st, 0));
    copy_text(r->config_path, sizeof r->config_path, sqlite3_column_text(st, 1));
    r->nodes = sqlite3_column_int(st, 2);
    r->gpus_per_node = sqlite3_column_int(st, 3);
    r->predicted_step_s = sqlite3_column_double(st, 4);
    copy_text(r->backend, sizeof r->backend, sqlite3_column_text(st, 5));
    r->state = state_parse((const char *)sqlite3_column_text(st, 6));
    copy_text(r->job_id, sizeof r->job_id, sqlite3_column_text(st, 7));
    r->submitted_at = sqlite3_column_double(st, 8);
    r->started_at = sqlite3_column_double(st, 9);
    r->finished_at = sqlite3_column_double(st, 10);
    r->step_time_s = sqlite3_column_double(st, 11);
    r->n_steps = sqlite3_column_int(st, 12);
    copy_text(r->reason, sizeof r->reason, sqlite3_column_text(st, 13));
    copy_text(r->settings, sizeof r->settings, sqlite3_column_text(st, 14));
}

#define COLS "name, config_path, nodes, gpus_per_node, predicted_step_s, backend, state, job_id," \
             " submitted_at, started_at, finished_at, step_time_s, n_steps, reason, settings"

int ledger_plan(ledger *l, const ledger_row *r, ac_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(l->db, "INSERT OR IGNORE INTO jobs (" COLS ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1,
                           &st, NULL) != SQLITE_OK)
        return db_fail(l, e, "prepare");
    sqlite3_bind_text(st, 1, r->name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, r->config_path, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 3, r->nodes);
    sqlite3_bind_int(st, 4, r->gpus_per_node);
    sqlite3_bind_double(st, 5, r->predicted_step_s);
    sqlite3_bind_text(st, 6, r->backend, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 7, ledger_state_name(LEDGER_PLANNED), -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 8, "", -1, SQLITE_STATIC);
    for (int i = 9; i <= 12; i++) sqlite3_bind_double(st, i, 0);
    sqlite3_bind_int(st, 13, 0);
    sqlite3_bind_text(st, 14, "", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 15, r->settings, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : db_fail(l, e, "insert");
}

int ledger_replan(ledger *l, const ledger_row *r, ac_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(l->db,
                           "UPDATE jobs SET state='planned', job_id='', submitted_at=0, started_at=0, finished_at=0,"
                           " step_time_s=0, n_steps=0, reason='', config_path=?, nodes=?, gpus_per_node=?,"
                           " predicted_step_s=?, backend=?, settings=? WHERE name=?",
                           -1, &st, NULL) != SQLITE_OK)
        return db_fail(l, e, "prepare");
    sqlite3_bind_text(st, 1, r->config_path, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 2, r->nodes);
    sqlite3_bind_int(st, 3, r->gpus_per_node);
    sqlite3_bind_double(st, 4, r->predicted_step_s);
    sqlite3_bind_text(st, 5, r->backend, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 6, r->settings, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 7, r->name, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return db_fail(l, e, "update");
    return sqlite3_changes(l->db) == 1 ? 0 : ac_err_set(e, AC_E_INTERNAL, "%s: no ledger row named %s", l->path, r->name);
}

int ledger_get(ledger *l, const char *name, ledger_row *out, int *found, ac_err *e)
{
    sqlite3_stmt *st;
    *found = 0;
    if (sqlite3_prepare_v2(l->db, "SELECT " COLS " FROM jobs WHERE name = ?", -1, &st, NULL) != SQLITE_OK)
        return db_fail(l, e, "prepare");
    sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) { row_from_stmt(st, out); *found = 1; }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_fail(l, e, "select");
}

static int update_row(ledger *l, const ledger_row *r, bool unless_final, int *changes, ac_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(l->db,
                           "UPDATE jobs SET state=?, job_id=?, submitted_at=?, started_at=?, finished_at=?,"
                           " step_time_s=?, n_steps=?, reason=?, backend=? WHERE name=?"
                           " AND (?11 = 0 OR state NOT IN ('done', 'failed'))",
                           -1, &st, NULL) != SQLITE_OK)
        return db_fail(l, e, "prepare");
    sqlite3_bind_text(st, 1, ledger_state_name(r->state), -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, r->job_id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(st, 3, r->submitted_at);
    sqlite3_bind_double(st, 4, r->started_at);
    sqlite3_bind_double(st, 5, r->finished_at);
    sqlite3_bind_double(st, 6, r->step_time_s);
    sqlite3_bind_int(st, 7, r->n_steps);
    sqlite3_bind_text(st, 8, r->reason, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 9, r->backend, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 10, r->name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 11, unless_final);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return db_fail(l, e, "update");
    *changes = sqlite3_changes(l->db);
    return 0;
}

int ledger_update(ledger *l, const ledger_row *r, ac_err *e)
{
    int changes;
    if (update_row(l, r, false, &changes, e) < 0) return -1;
    if (changes != 1) return ac_err_set(e, AC_E_INTERNAL, "%s: no ledger row named %s", l->path, r->name);
    return 0;
}

int ledger_advance(ledger *l, ledger_row *r, int *applied, ac_err *e)
{
    int changes, found = 0;
    *applied = 0;
    if (update_row(l, r, true, &changes, e) < 0) return -1;
    if (changes == 1) { *applied = 1; return 0; }
    if (ledger_get(l, r->name, r, &found, e) < 0) return -1;
    return found ? 0 : ac_err_set(e, AC_E_INTERNAL, "%s: no ledger row named %s", l->path, r->name);
}

int ledger_list(ledger *l, ledger_row **rows, size_t *n, ac_err *e)
{
    sqlite3_stmt *st;
    *rows = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(l->db, "SELECT " COLS " FROM jobs ORDER BY seq", -1, &st, NULL) != SQLITE_OK)
        return db_fail(l, e, "prepare");
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            size_t nc = cap ? cap * 2 : 16;
            ledger_row *nr = realloc(*rows, nc * sizeof *nr);
            if (!nr) {
                sqlite3_finalize(st);
                free(*rows); *rows = NULL; *n = 0;
                return ac_err_set(e, AC_E_NOMEM, "out of memory");
            }
            *rows = nr; cap = nc;
        }
        row_from_stmt(st, &(*rows)[(*n)++]);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) { free(*rows); *rows = NULL; *n = 0; return db_fail(l, e, "select"); }
    return 0;
}
