/* cmd_cost.c — `autoconfig cost` and the cost stage of `run`: the request from
 * search_config.cost_settings (and command-line flags), the search, the tables
 * and the files under <logs>/cost/. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cost/cost.h"
#include "model/family.h"
#include "search/candidate_est.h"
#include "util/fsutil.h"

static const char COST_HELP[] =
    "usage: autoconfig cost [--json] [--conf DIR] [--hf-config FILE] [--task pretrain|full|lora]\n"
    "                       [--lora-rank N] [--lora-modules LIST] [--context N] [--tokens BILLIONS]\n"
    "                       [--gbs N] [--gpus NAME[:PRICE[:MAX]],...] [--max-gpus N]\n"
    "                       [--deadline-hours H] [--budget-usd X] [--cpu-memory-gb GB] [--framework STACK]\n"
    "                       [overrides...]\n"
    "\n"
    "Finds the cheapest way to train or fine-tune a model on the GPU types you can rent:\n"
    "GPU type and count, ZeRO stage 0-3 (FSDP), CPU offload of optimizer and parameters,\n"
    "activation checkpointing, micro batch and gradient accumulation, Megatron TP/PP.\n"
    "For each GPU type it prints every count's best setup (or what does not fit and by how\n"
    "much), rankings by $ per million tokens and by time, and writes the chosen setup to\n"
    "<logs>/cost/: ds_config.json (DeepSpeed), train_args.json, lora_config.json (LoRA),\n"
    "summary.json.  Every figure is predicted by the analytical estimator.\n"
    "The model is the search config's (search_config=llama/llama2_7b) or --hf-config FILE\n"
    "(a Hugging Face config.json).  Flags override search_config.cost_settings.* keys.\n"
    "Exit status: 0 with a chosen setup, 1 when nothing fits (or meets the deadline/budget),\n"
    "2 on bad input.\n"
    "--framework (search_config.train_settings.framework) prices every setup on one training stack\n"
    "(data/stacks.csv); by default TP/PP setups run on megatron-core and the others on hf-deepspeed.\n"
    "example: autoconfig cost search_config=llama/llama2_7b --task lora --gpus a100_80gb,a10g:0.9\n";

static const char *const COST_FLAGS[] = {"--hf-config=", "--task=", "--lora-rank=", "--lora-modules=", "--context=", "--tokens=",
                                         "--gbs=", "--gpus=", "--max-gpus=", "--deadline-hours=", "--budget-usd=",
                                         "--cpu-memory-gb=", "--framework=", NULL};

static int flag_num(const cli_opts *o, const char *name, double lo, double hi, bool integer, double *out, ac_err *e)
{
    const char *v = o ? cli_flag_value(o, name) : NULL;
    if (!v) return 0;
    char *end;
    double x = strtod(v, &end);
    if (!*v || *end || !isfinite(x) || x < lo || x > hi || (integer && x != floor(x)))
        return ac_err_at(e, AC_E_INPUT, "command line", 0, 0, name, "expects %s in [%g, %g], got '%s'",
                         integer ? "an integer" : "a number", lo, hi, v);
    *out = x;
    return 0;
}

/* the model: --hf-config / cost_settings.hf_config, else the preset's base config */
static int cost_model_of(const ac_config *c, const model_base_config *b, const char *hf, cost_model *m, ac_err *e)
{
    memset(m, 0, sizeof *m);
    if (hf && *hf) return cost_hf_config_load(hf, m, e);
    if (!b) return ac_err_set(e, AC_E_INTERNAL, "cost stage without a model");
    m->shape = b->shape;
    snprintf(m->name, sizeof m->name, "%s", b->run_name);
    /* a built-in architecture's context is its release's; otherwise the config's */
    const model_preset_arch *pa = c->train.model_name[0] ? model_preset_arch_find(c->train.model_name) : NULL;
    m->max_context = pa ? pa->max_context : b->shape.seq_length;
    return 0;
}

static int build_request(const ac_config *c, const model_base_config *b, const cli_opts *o, cost_request *rq, ac_err *e)
{
    const cfg_cost_settings *cs = &c->cost;
    const char *hf = o ? cli_flag_value(o, "--hf-config") : NULL;
    if (!hf) hf = cs->hf_config;
    cost_model m;
    if (cost_model_of(c, b, hf, &m, e)) return -1;
    cost_request_init(rq, &m);

    const char *task = o ? cli_flag_value(o, "--task") : NULL;
    if (cost_task_parse(task ? task : cs->task, &rq->task))
        return ac_err_at(e, AC_E_INPUT, task ? "command line" : NULL, 0, 0, task ? "--task" : "search_config.cost_settings.task",
                         "unknown task '%s' (pretrain, full, lora)", task ? task : cs->task);
    double x;
    x = cs->lora_rank;
    if (flag_num(o, "--lora-rank", 1, 65536, true, &x, e)) return -1;
    rq->lora_rank = (int)x;
    const char *mods = o ? cli_flag_value(o, "--lora-modules") : NULL;
    snprintf(rq->lora_modules, sizeof rq->lora_modules, "%s", mods ? mods : cs->lora_target_modules);
    if (rq->task == COST_LORA && cost_lora_targets(rq->lora_modules, &rq->model.shape, &rq->lora_targets, e)) return -1;

    /* context: the setting, else the config's sequence length within what the model supports */
    int ctx = cs->context_length > 0 ? cs->context_length : 0;
    if (!ctx) {
        ctx = c->train.seq_length > 0 && !(hf && *hf) ? c->train.seq_length : m.max_context;
        if (ctx > m.max_context && rq->task != COST_PRETRAIN) ctx = m.max_context;
    }
    x = ctx;
    if (flag_num(o, "--context", 1, 1 << 24, true, &x, e)) return -1;
    rq->context = (int)x;
    if (rq->task != COST_PRETRAIN && m.max_context > 0 && rq->context > m.max_context)
        return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "context_length",
                         "%d tokens exceed the %d the model supports (%s; max_position_embeddings); fine-tuning beyond it "
                         "needs RoPE scaling, which this stage does not model",
                         rq->context, m.max_context, m.name);
    x = cs->num_tokens_in_b;
    if (flag_num(o, "--tokens", 1e-6, 1e7, false, &x, e)) return -1;
    rq->tokens_b = x;
    x = cs->global_batch_size;
    if (flag_num(o, "--gbs", 1, 1 << 24, true, &x, e)) return -1;
    rq->gbs = (int)x;
    x = cs->max_gpus;
    if (flag_num(o, "--max-gpus", 1, 65536, true, &x, e)) return -1;
    int max_gpus = (int)x;
    x = isnan(cs->deadline_hours) ? 0 : cs->deadline_hours;
    if (flag_num(o, "--deadline-hours", 1e-6, 1e9, false, &x, e)) return -1;
    rq->deadline_hours = x;
    x = isnan(cs->budget_usd) ? 0 : cs->budget_usd;
    if (flag_num(o, "--budget-usd", 1e-6, 1e15, false, &x, e)) return -1;
    rq->budget_usd = x;
    x = cs->cpu_memory_per_node_gb;
    if (flag_num(o, "--cpu-memory-gb", 1, 1e6, false, &x, e)) return -1;
    rq->cpu_mem_node_gb = x;
    /* the stack: --framework, else train_settings.framework, else per setup (cost_stack_of) */
    const char *fw = o ? cli_flag_value(o, "--framework") : NULL;
    if (fw || c->train.framework[0]) {
        rq->stack = fw ? candidate_stack_named(fw, "command line", 0, "--framework", e) : candidate_stack(c, e);
        if (!rq->stack) return -1;
    }
    if (est_precision_parse(cs->precision, &rq->precision))
        return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "search_config.cost_settings.precision", "unknown precision '%s'", cs->precision);

    const char *gl = o ? cli_flag_value(o, "--gpus") : NULL;
    if (gl) {
        char buf[1024];
        if (strlen(gl) >= sizeof buf) return ac_err_at(e, AC_E_INPUT, "command line", 0, 0, "--gpus", "list too long");
        snprintf(buf, sizeof buf, "%s", gl);
        for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            if (rq->n_pools >= COST_MAX_POOLS)
                return ac_err_at(e, AC_E_INPUT, "command line", 0, 0, "--gpus", "more than %d GPU types", COST_MAX_POOLS);
            if (cost_pool_parse(t, max_gpus, "--gpus", &rq->pools[rq->n_pools++], e)) return -1;
        }
    } else {
        for (int i = 0; i < cs->n_gpus && i < COST_MAX_POOLS; i++)
            if (cost_pool_parse(cs->gpus[i], max_gpus, "search_config.cost_settings.gpus", &rq->pools[rq->n_pools++], e))
                return -1;
    }
    if (rq->n_pools < 1) return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "search_config.cost_settings.gpus", "no GPU types given");
    for (int i = 0; i < rq->n_pools; i++)
        for (int j = 0; j < i; j++)
            if (rq->pools[i].gpu == rq->pools[j].gpu)
                return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "gpus", "%s is listed twice", rq->pools[i].gpu->name);
    return 0;
}

int cli_cost_check(const ac_config *c, const model_base_config *b, ac_err *e)
{
    cost_request rq;
    return build_request(c, b, NULL, &rq, e);
}

int cli_cost_stage(const ac_config *c, const model_base_config *b, const cli_opts *o, bool json, ac_err *e)
{
    cost_request rq;
    cost_result r;
    if (build_request(c, b, o, &rq, e) || cost_search(&rq, &r, e)) return -1;
    char dir[CFG_PATH_MAX + 16];
    int rc = fs_join(dir, sizeof dir, c->train.logs, "cost", e) || cost_write_files(&rq, &r, dir, e) ? -1 : 0;
    if (!rc) {
        /* the HTML report draws the cost chart: refresh it when a training search wrote one
         * (inside `run`, o is NULL and run writes the report once at its end) */
        if (o && cli_refresh_report(c, NULL, 0, e) < 0) rc = -1;
    }
    if (!rc) {
        if (json) {
            char *text = NULL;
            if (cost_summary_json(&rq, &r, &text, e)) rc = -1;
            else fputs(text, stdout);
            free(text);
        } else {
            cost_print(stdout, &rq, &r);
            printf("\nFiles: %s/ (summary.json%s)\n", dir,
                   cost_chosen(&r, &rq) >= 0 ? rq.task == COST_LORA ? ", ds_config.json, train_args.json, lora_config.json"
                                                                    : ", ds_config.json, train_args.json"
                                             : "");
        }
    }
    if (!rc && cost_chosen(&r, &rq) < 0) {
        /* nothing to recommend: say why, with the nearest miss */
        const cost_option *near = NULL;
        for (size_t i = 0; i < r.n; i++)
            if (!r.opt[i].feasible && (!near || r.opt[i].gpu_mem_gib / r.opt[i].gpu_limit_gib < near->gpu_mem_gib / near->gpu_limit_gib))
                near = &r.opt[i];
        if (r.n_ranked)
            ac_err_set(e, AC_E_EXEC, "no feasible setup meets the %s (see the rankings above)",
                       rq.deadline_hours > 0 && rq.budget_usd > 0 ? "deadline and budget"
                       : rq.deadline_hours > 0                    ? "deadline"
                                                                  : "budget");
        else if (near)
            ac_err_set(e, AC_E_EXEC, "nothing fits on any GPU type given; nearest: %s: %s", near->label, near->why);
        else
            ac_err_set(e, AC_E_EXEC, "no setup could be formed (the global batch %d must be divisible by the data-parallel size)", rq.gbs);
        rc = -1;
    }
    cost_result_free(&r);
    return rc;
}

int cmd_cost(int argc, char **argv)
{
    cli_opts o;
    ac_err e;
    ac_config c;
    int started = cli_start(argc, argv, COST_FLAGS, COST_HELP, &o, &c, &e);
    if (started != CLI_GO) return started == CLI_HELPED ? 0 : cli_fail(&e);
    int rc = 0;
    model_size_report rep;
    model_base_config b = {0};
    double size_b;
    const char *hf = cli_flag_value(&o, "--hf-config");
    bool need_base = !(hf && *hf) && !c.cost.hf_config[0];
    if ((need_base && (cli_size_stage(&c, &rep, &size_b, &e) || model_base_config_build(&c, size_b, &b, &e))) ||
        cli_cost_stage(&c, need_base ? &b : NULL, &o, o.json, &e))
        rc = cli_fail(&e);
    model_base_config_free(&b);
    cfg_free(&c);
    cli_opts_free(&o);
    return rc;
}
