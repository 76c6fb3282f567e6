/* cli.h — shared pieces of the command-line front end: option parsing common
 * to every command, config loading, and the command entry points. */
#ifndef AC_CLI_H
#define AC_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "config/cfg.h"
#include "model/basecfg.h"
#include "model/size.h"
#include "util/err.h"
#include "util/json.h"
#include "estimator/est.h"

typedef struct {
    const char *conf_dir;  /* --conf DIR (default: ./conf, else next to the binary) */
    bool json;             /* --json */
    bool help;             /* --help / -h */
    bool quiet;            /* --quiet */
    bool verbose;          /* --verbose: notices that are not news */
    int n_overrides;
    char **overrides;      /* Hydra-style key=value arguments */
    int n_flags;
    char **flags;          /* other --options, for the command to read */
} cli_opts;

/* parses argv[1..]; options it does not know are left in flags */
int cli_parse(int argc, char **argv, cli_opts *o, ac_err *e);
void cli_opts_free(cli_opts *o);
/* value of --name VALUE / --name=VALUE among the flags (the last one given), or NULL */
const char *cli_flag_value(const cli_opts *o, const char *name);
bool cli_flag_present(const cli_opts *o, const char *name);
/* rejects flags not in the NULL-terminated list */
int cli_check_flags(const cli_opts *o, const char *const *known, ac_err *e);

int cli_load_config(const cli_opts *o, ac_config *c, ac_err *e);

/* The start every config-reading command shares: parse, check the flags against
 * known (NULL-terminated), print help and stop on --help, load the config.
 * CLI_GO: go on (free o and c when done); CLI_HELPED: help printed, return 0;
 * CLI_FAILED: e is set and o already freed, return cli_fail(e). */
enum { CLI_GO = 0, CLI_HELPED = 1, CLI_FAILED = -1 };
int cli_start(int argc, char **argv, const char *const *known, const char *help, cli_opts *o, ac_config *c, ac_err *e);
/* prints the error to stderr and returns the exit status for it */
int cli_fail(const ac_err *e);

/* stage helpers used by several commands */
int cli_size_stage(const ac_config *c, model_size_report *rep, double *size_b, ac_err *e);
/* what a command does with an architecture given by --hf-config FILE or --model NAME */
typedef enum {
    CLI_MODEL_PREDICT, /* estimate: predicts any architecture the estimator models */
    CLI_MODEL_SERVE,   /* infer: serves a transformer (no Mamba-2 blocks) */
    CLI_MODEL_TRAIN,   /* run: writes NeMo Llama/Mixtral configs, which must describe it whole */
} cli_model_use;
/* the size stage and the base config, or, with train_settings.hf_config (--hf-config FILE on
 * run, estimate, infer) or train_settings.named_arch (--model NAME), the base config of that
 * architecture; refused where the command's output cannot describe it (use), and where the
 * training sequence (train, predict) or the served prompt + output (serve) exceeds the positions
 * its release supports (the file's max_position_embeddings, the name's data/models.csv context) */
int cli_model_stage(const ac_config *c, cli_model_use use, model_size_report *rep, double *size_b, model_base_config *b,
                    ac_err *e);
void cli_print_size(FILE *out, const ac_config *c, const model_size_report *rec, const model_size_report *days);

/* an estimate's fields into an open JSON object (estimate, run's summary.json) */
void cli_estimate_json(json_writer *w, const est_input *in, const est_result *r);

/* Rewrites <logs>/final_result/report.html when a training search of that folder left
 * its summary.json (infer and cost add their charts to it).  1 written (path filled when
 * path_len > 0), 0 no training summary, -1 error. */
int cli_refresh_report(const ac_config *c, char *path, size_t path_len, ac_err *e);

/* the cost stage's settings checked (GPU pools, task, model), nothing searched or written */
int cli_cost_check(const ac_config *c, const model_base_config *b, ac_err *e);
/* the cost stage (cmd_cost.c): request from cost_settings and the flags of o, search,
 * <logs>/cost/ files, printed tables, HTML report refreshed; o is NULL inside `run`, which
 * writes the report once at its end.  -1 on an error (nothing printed), 1 when the search ran,
 * printed and wrote its results but nothing fits or meets the limits (e says why) */
int cli_cost_stage(const ac_config *c, const model_base_config *b, const cli_opts *o, bool json, ac_err *e);

/* An emulator's perturbation (emulate-job, emulate-serve): the flag's value, else the
 * environment variable's, else dflt; -1 when malformed or outside [lo, hi] */
int emulate_knob(const char *flag_val, const char *env, double dflt, double lo, double hi, double *out);

int cmd_size(int argc, char **argv);
int cmd_base(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_keys(int argc, char **argv);
int cmd_models(int argc, char **argv);
int cmd_estimate(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_infer(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_cancel(int argc, char **argv);
int cmd_emulate_job(int argc, char **argv);
int cmd_emulate_serve(int argc, char **argv);
int cmd_launch(int argc, char **argv);
int cmd_cost(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);

#endif
