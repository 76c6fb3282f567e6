/* cmd_run.c — `autoconfig run`: the whole pipeline of the original's main.py
 * (size → base config → training HP search → results), on the cluster type the
 * config names; `sim` (the default) needs no cluster at all. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const char RUN_HELP[] =
    "usage: autoconfig run [--json] [--conf DIR] [overrides...]\n"
    "\n"
    "Runs every stage on conf/config.yaml: model size (recommended when\n"
    "model_size_in_b is null), base config, then the training and inference HP\n"
    "searches when run_training_hp_search / run_inference_hp_search are true.\n"
    "cluster_type sim (default) scores candidates with the analytical estimator.\n"
    "example: autoconfig run search_config=gpt3/20b search_config.train_settings.num_nodes=32\n";

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
    printf("Base config: %s (%.3f B parameters: %d layers, hidden %d, %d heads; GBS %d)\n", b.path, b.param_b,
           b.shape.num_layers, b.shape.hidden, b.shape.heads, b.gbs);
    goto done;
fail:
    rc = cli_fail(&e);
done:
    model_base_config_free(&b);
    cfg_free(&c);
    cli_opts_free(&o);
    return rc;
}
