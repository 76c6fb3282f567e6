/* ledger.h — the SQLite ledger of a search's real runs (<logs>/ledger.sqlite).
 *
 * One row per candidate: its state, the scheduler's job id, times and
 * results.  The database runs in WAL mode with synchronous=FULL and every
 * change is one transaction, so a kill -9 at any moment leaves either the
 * old row or the new one.  The state machine that makes resume safe:
 *
 *   planned → submitting → pending → running → done | failed
 *
 * "submitting" is written (and committed) before sbatch runs; a row found in
 * that state on resume may or may not have a job, so the executor looks the
 * job up by name before submitting again — nothing is ever submitted twice.
 * Each row also keeps a fingerprint of its settings (the candidate config, GPU
 * and node count): a row measured under other settings is planned again.
 */
#ifndef AC_RESULTS_LEDGER_H
#define AC_RESULTS_LEDGER_H

#include <stddef.h>

#include "util/err.h"

typedef enum {
    LEDGER_PLANNED, LEDGER_SUBMITTING, LEDGER_PENDING, LEDGER_RUNNING, LEDGER_DONE, LEDGER_FAILED
} ledger_state;

typedef struct {
    char name[256];
    char config_path[1024];
    int nodes, gpus_per_node;
    double predicted_step_s;
    char backend[16];     /* bcm | local */
    ledger_state state;
    char job_id[64];      /* "" before submission */
    double submitted_at, started_at, finished_at; /* unix seconds, 0 = not yet */
    double step_time_s;   /* measured, 0 = none */
    int n_steps;
    char reason[256];     /* why it failed */
    char settings[32];    /* fingerprint of everything the run measures (config, GPU, nodes); "" = unknown */
} ledger_row;

typedef struct ledger ledger;

#define LEDGER_FILE "ledger.sqlite"

/* opens (creating) <logs_dir>/ledger.sqlite */
ledger *ledger_open(const char *logs_dir, ac_err *e);
/* opens an existing ledger only (status, cancel): AC_E_INPUT when absent */
ledger *ledger_open_existing(const char *logs_dir, ac_err *e);
void ledger_close(ledger *l);

const char *ledger_state_name(ledger_state s);
/* true for done and failed */
int ledger_state_final(ledger_state s);

/* inserts the row in state planned unless a row of that name exists
 * (then the stored row is kept: resume).  0, or -1. */
int ledger_plan(ledger *l, const ledger_row *r, ac_err *e);
/* puts the row r->name back to planned with r's config, settings and prediction, every
 * result and job id cleared: a rerun measures it anew (changed settings, --retry-failed) */
int ledger_replan(ledger *l, const ledger_row *r, ac_err *e);
/* *found = 0 when absent */
int ledger_get(ledger *l, const char *name, ledger_row *out, int *found, ac_err *e);
/* replaces state, job id, times and results of the row r->name (one transaction) */
int ledger_update(ledger *l, const ledger_row *r, ac_err *e);
/* the same, unless the stored row is already done/failed (another process finished or
 * cancelled it): then nothing is written, the stored row is copied into *r and
 * *applied is 0.  Every transition of a live search goes through here.  0, or -1. */
int ledger_advance(ledger *l, ledger_row *r, int *applied, ac_err *e);
/* every row, ordered by insertion; *rows malloc'd */
int ledger_list(ledger *l, ledger_row **rows, size_t *n, ac_err *e);

#endif
