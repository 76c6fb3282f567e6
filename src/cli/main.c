/* main.c — autoconfig's entry point: a table of commands. Only this file exits. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command COMMANDS[] = {
    { "run", cmd_run, "the whole pipeline: size, base config, training, inference and cost searches, report" },
    { "size", cmd_size, "model size recommendation from the compute budget" },
    { "base", cmd_base, "write the base NeMo training config for the chosen model" },
    { "estimate", cmd_estimate, "predict memory and step time of one candidate (analytical, no cluster)" },
    { "validate", cmd_validate, "compare the estimator with published measurements from a CSV" },
    { "infer", cmd_infer, "inference search: TP, PP and batch size under a latency limit (predicted or measured)" },
    { "cost", cmd_cost, "cost tuning: GPU type and count, ZeRO/offload, batch, checkpointing by $ per million tokens" },
    { "report", cmd_report, "write the HTML report (tables and charts) of a search from its result files" },
    { "launch", cmd_launch, "run candidate configs as real training jobs (Slurm or local) and collect step times" },
    { "status", cmd_status, "the ledger of real training runs (Slurm or local): states, job ids, step times" },
    { "cancel", cmd_cancel, "cancel every unfinished job of a search (and nothing else)" },
    { "calibrate", cmd_calibrate, "fit the estimator's cluster constants to the measured runs of a search" },
    { "emulate-job", cmd_emulate_job, "an emulated training job for machines without GPUs (writes real event files)" },
    { "emulate-serve", cmd_emulate_serve, "emulated vLLM / trtllm-bench for machines without GPUs (the engines' flags and output formats)" },
    { "keys", cmd_keys, "list every configuration key (type, default, meaning)" },
    { "models", cmd_models, "list the architectures published by name (--model NAME, validate)" },
};

static void usage(FILE *out)
{
    fprintf(out, "usage: autoconfig <command> [--json] [--verbose] [--conf DIR] [key=value ...]\n\n"
                 "Finds the fastest and cheapest way to train and serve a large language model\n"
                 "on a given cluster (a C re-implementation of NeMo-Megatron's AutoConfigurator).\n\n"
                 "commands:\n");
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        fprintf(out, "  %-10s %s\n", COMMANDS[i].name, COMMANDS[i].summary);
    fprintf(out, "\noverrides (Hydra style):\n"
                 "  search_config=gpt3/20b                       pick conf/search_config/gpt3/20b.yaml\n"
                 "  search_config.train_settings.num_nodes=16    set a key\n"
                 "  search_config.train_settings.tensor_parallel_sizes=[1,2,4]\n"
                 "  cluster_type=sim|bcm|local                   where candidates run (sim: estimator only)\n"
                 "  run_cost_search=true                         add the cost stage (GPU type, ZeRO, $ per token) to run\n"
                 "--verbose prints notices that are not news (e.g. the inference pairs the original's rules reject).\n"
                 "`autoconfig <command> --help` explains a command; `autoconfig keys` lists every key.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return argc < 2 ? 2 : 0;
    }
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (!strcmp(argv[1], COMMANDS[i].name)) return COMMANDS[i].run(argc - 1, argv + 1);
    fprintf(stderr, "autoconfig: error: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
