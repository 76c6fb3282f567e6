/* cmd_run.c — `autoconfig run`: the whole pipeline of the original's main.py
 * (size → base config → training HP search → results), on the cluster type the
 * config names; `sim` (the default) needs no cluster at all. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "cli/cli.h"
#include "util/fsutil.h"
#include "results/train_results.h"
#include "search/train_search.h"

static const char RUN_HELP[] =
    "usage: autoconfig run [--json] [--conf DIR] [overrides...]\n"
    "\n"
    "Runs every stage on conf/config.yaml: model size (recommended when\n"
    "model_size_in_b is null), base config, then the training and inference HP\n"
    "searches when run_training_hp_search / run_inference_hp_search are true.\n"
    "cluster_type sim (default) scores candidates with the analytical estimator.\n"
    "example: autoconfig run search_config=gpt3/20b search_config.train_settings.num_nodes=32\n";

static void print_search(FILE *out, const ac_config *c, const search_train_result *r)
{
    fprintf(out, "Training HP search (%s mode, cluster_type %s, %d x %d %s): %zu candidates (%zu in the original's grid), "
            "%zu predicted to fit, %zu predicted out of memory, %zu selected (limit_search_runs %d)\n",
            c->train.search_mode, c->cluster_type, c->train.num_nodes, c->train.gpus_per_node, r->base.gpu->name, r->n,
            r->grid.n_original, r->n_fit, r->n_oom, r->n_launch, c->train.limit_search_runs);
}

static void print_exhaustive(FILE *out, const search_train_result *r)
{
    if (!r->exhaustive_done || !r->exhaustive_found) return;
    fprintf(out, "Beyond the original's grid (all divisors and knobs, %ld candidates scored): best %s, %.4fs per step "
            "(predicted), %+.1f%% tokens/s vs the grid's best%s\n",
            r->exhaustive_count, r->exhaustive_best_name, r->exhaustive_best_est.step_time, 100.0 * r->exhaustive_gain,
            r->exhaustive_gain > 0.005 ? "" : " (the grid already holds the best)");
}

int cli_training_stage(const ac_config *c, const model_base_config *b, bool json, ac_err *e)
{
    search_train_result r;
    if (search_train_run(c, b, &r, e)) return -1;
    int rc = 0;
    if (results_write_candidates(c, b, &r, c->train.logs, e) || results_write_final(c, b, &r, c->train.logs, e)) {
        rc = -1;
    } else if (json) {
        char path[4096];
        size_t len = 0;
        snprintf(path, sizeof path, "%s/final_result/summary.json", c->train.logs);
        char *text = fs_read_file(path, &len, e);
        if (!text) rc = -1;
        else { fputs(text, stdout); free(text); }
    } else {
        print_search(stdout, c, &r);
        results_print_top(stdout, c, b, &r, c->train.logs);
        print_exhaustive(stdout, &r);
        printf("Results: %s/final_result/ (final_summary_%dnodes.csv, failed_jobs_%dnodes.csv, summary.json); "
               "candidates: %s/candidate_configs/\n", c->train.logs, c->train.num_nodes, c->train.num_nodes, c->train.logs);
    }
    search_train_free(&r);
    return rc;
}

int cmd_run(int argc, char **argv)
{
    cli_opts o;
    ac_err e;
    static const char *const known[] = { NULL };
    if (cli_parse(argc, argv, &o, &e) || cli_check_flags(&o, known, &e)) { cli_opts_free(&o); return cli_fail(&e); }
    if (o.help) { fputs(RUN_HELP, stdout); cli_opts_free(&o); return 0; }
    ac_config c;
    if (cli_load_config(&o, &c, &e) != 0) { cli_opts_free(&o); return cli_fail(&e); }
    model_size_report rep;
    model_base_config b = { 0 };
    double size_b;
    int rc = 0;
    if (cli_size_stage(&c, &rep, &size_b, &e) != 0) goto fail;
    if (rep.recommended) cli_print_size(stdout, &c, &rep, NULL);
    if (model_base_config_build(&c, size_b, &b, &e) != 0 || model_base_config_write(&b, c.train.logs, &e) != 0) goto fail;
    if (!o.json)
        printf("Base config: %s (%.3f B parameters: %d layers, hidden %d, %d heads; GBS %d)\n", b.path, b.param_b,
               b.shape.num_layers, b.shape.hidden, b.shape.heads, b.gbs);
    if (c.run_training_hp_search && cli_training_stage(&c, &b, o.json, &e) != 0) goto fail;
    goto done;
fail:
    rc = cli_fail(&e);
done:
    model_base_config_free(&b);
    cfg_free(&c);
    cli_opts_free(&o);
    return rc;
}
