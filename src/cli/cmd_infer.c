/* cmd_infer.c — `autoconfig infer`: the inference HP search on its own
 * (TP × PP × batch size under a latency limit; predicted on cluster_type sim,
 * benchmark jobs written on the others, --summarize reads their logs). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "search/infer_search.h"

static const char INFER_HELP[] =
    "usage: autoconfig infer [--json] [--summarize] [--conf DIR] [--hf-config FILE | --model NAME] [overrides...]\n"
    "\n"
    "Sweeps tensor parallel x pipeline parallel x batch size for serving the model\n"
    "(search_config.inference_settings) and ranks configurations by throughput per GPU\n"
    "within max_latency_ms.  cluster_type=sim (default) predicts every configuration with\n"
    "the analytical inference model (prefill compute, decode weight/KV-cache reads,\n"
    "TP all-reduces, PP hops, memory fit); other cluster types write config.ini,\n"
    "start_ids.csv and submission_script.sh per configuration under\n"
    "<results_dir>/inference/, and --summarize reads the benchmark logs afterwards.\n"
    "With run.engine=vllm or trtllm the jobs run the engine's own serving benchmark\n"
    "(vllm serve + vllm bench serve, or trtllm-bench) on random weights, one per load of\n"
    "benchmark.concurrency, and the summary puts the model's prediction beside each\n"
    "measured TTFT, ITL, latency and throughput (docs/serving.md).\n"
    "Output: <results_dir>/inference/final_summary/final_output.csv (one block per\n"
    "(input_len, output_len) pair) and over_latency_limit.csv.  Exit status 1 when no\n"
    "configuration fits and meets every limit (the table names the closest; results written).\n"
    "example: autoconfig infer search_config=gpt3/20b search_config.inference_settings.max_latency_ms=500\n";

int cmd_infer(int argc, char **argv)
{
    cli_opts o;
    ac_err e;
    static const char *const known[] = { "--summarize", "--hf-config=", "--model=", NULL };
    ac_config c;
    int started = cli_start(argc, argv, known, INFER_HELP, &o, &c, &e);
    if (started != CLI_GO) return started == CLI_HELPED ? 0 : cli_fail(&e);
    model_size_report rep;
    model_base_config b = { 0 };
    double size_b;
    int rc = 0, searched = 0;
    ac_err none; /* nothing usable: the search's result, said after the report */
    if (cli_model_stage(&c, CLI_MODEL_SERVE, &rep, &size_b, &b, &e)) rc = cli_fail(&e);
    else if ((searched = cli_flag_present(&o, "--summarize") ? search_inference_summarize(&c, &b, stdout, o.json, &none)
                                                             : search_inference_run(&c, &b, stdout, o.json, &none)) < 0)
        rc = cli_fail(&none);
    /* refresh the report when the training search of this folder has one */
    char path[4096];
    if (!rc) {
        int written = cli_refresh_report(&c, path, sizeof path, &e);
        if (written < 0) rc = cli_fail(&e);
        else if (written && !o.json) printf("Report: %s\n", path);
    }
    if (!rc && searched > 0) rc = cli_fail(&none);
    model_base_config_free(&b);
    cfg_free(&c);
    cli_opts_free(&o);
    return rc;
}
