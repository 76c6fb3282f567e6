/* cmd_cost.c — `autoconfig cost` and the cost stage of `run`: the request from
 * search_config.cost_settings (and command-line flags), the search, the tables
 * and the files under <logs>/cost/. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cost/cost.h"
#include "cost/cost_measure.h"
#include "exec/backend.h"
#include "exec/exec.h"
#include "model/family.h"
#include "search/candidate_est.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

static const char COST_HELP[] =
    "usage: autoconfig cost [--json] [--conf DIR] [--hf-config FILE] [--task pretrain|full|lora]\n"
    "                       [--lora-rank N] [--lora-modules LIST] [--context N] [--tokens BILLIONS]\n"
    "                       [--gbs N] [--gpus NAME[:PRICE[:MAX]],...] [--max-gpus N]\n"
    "                       [--deadline-hours H] [--budget-usd X] [--cpu-memory-gb GB] [--framework STACK]\n"
    "                       [--instances NAME[:PRICE[:MAX]],...] [--rank0-instance NAME]\n"
    "                       [--measure [--measure-top N] [--measure-steps S]] [overrides...]\n"
    "\n"
    "Finds the cheapest way to train or fine-tune a model on the GPU types you can rent:\n"
    "GPU type and count, ZeRO stage 0-3 (FSDP), CPU offload of optimizer and parameters,\n"
    "activation checkpointing, micro batch and gradient accumulation, Megatron TP/PP.\n"
    "For each GPU type it prints every count's best setup (or what does not fit and by how\n"
    "much), rankings by $ per million tokens and by time, and writes the chosen setup to\n"
    "<logs>/cost/: ds_config.json (DeepSpeed), train_args.json, lora_config.json (LoRA),\n"
    "accelerate_config.yaml, llmforge.yaml, torchtune_config.yaml (FSDP setups torchtune runs),\n"
    "summary.json.  Every figure is predicted by the\n"
    "analytical estimator on the stack those files configure, with that stack's band on that GPU.\n"
    "--instances rents whole instances from data/instances.csv (p4de.24xlarge, g5.12xlarge,\n"
    "dgx_h100, ...): their GPUs, host RAM and on-demand price per instance-hour (PRICE overrides\n"
    "it, MAX caps the instances).  --rank0-instance puts rank 0 (which gathers the checkpoint)\n"
    "on a larger instance of the same GPUs when that is what makes a setup fit (Ray-based stacks).\n"
    "Ties on $ per million tokens within the ranking band of the GPU and stack (data/bands.csv)\n"
    "go to the faster setup.\n"
    "--measure (cluster_type local or bcm) runs the top --measure-top N (3) DeepSpeed setups as\n"
    "benchmark jobs of --measure-steps S (10) optimizer steps with fixed-length sequences, reads\n"
    "the trainer's step rate and ranks them by measured $ per million tokens.  The trainer\n"
    "command: AUTOCONFIG_COST_TRAINER, else <conf>/cluster/cost_trainer_command.txt, else\n"
    "accelerate launch + TRL SFT, across nodes one launcher per node under srun ({ds_config}\n"
    "{accelerate_config} {max_steps} {mbs} {node_rank} {master_addr} ... placeholders).\n"
    "The model is the search config's (search_config=llama/llama2_7b) or --hf-config FILE\n"
    "(a Hugging Face config.json).  Flags override search_config.cost_settings.* keys.\n"
    "Exit status: 0 with a chosen setup, 1 when nothing fits (or meets the deadline/budget),\n"
    "2 on bad input.\n"
    "--framework (search_config.train_settings.framework) prices every setup on one training stack\n"
    "(data/stacks.csv); by default hf-deepspeed (Hugging Face + DeepSpeed ZeRO, the trainer the files\n"
    "configure), no TP/PP; pytorch-fsdp (FSDP1) and pytorch-fsdp2 (torchtitan, torchtune): FSDP's sharding\n"
    "and offload; megatron-core adds TP/PP;\n"
    "jax-xla is refused (no file here configures a MaxText or Paxml run).\n"
    "example: autoconfig cost search_config=llama/llama2_7b --task lora --gpus a100_80gb,a10g:0.9\n";

static const char *const COST_FLAGS[] = {"--hf-config=", "--task=", "--lora-rank=", "--lora-modules=", "--context=", "--tokens=",
                                         "--gbs=", "--gpus=", "--max-gpus=", "--deadline-hours=", "--budget-usd=",
                                         "--cpu-memory-gb=", "--framework=", "--instances=", "--rank0-instance=", "--measure",
                                         "--measure-top=", "--measure-steps=", NULL};

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
    if (hf && *hf) {
        if (cost_hf_config_load(hf, m, e)) return -1;
        /* cost_search refuses these too; here the error can name the file */
        const char *key, *why = cost_model_unsupported(&m->shape, &key);
        return why ? ac_err_at(e, AC_E_INPUT, hf, 0, 0, key, "%s", why) : 0;
    }
    if (!b) return ac_err_set(e, AC_E_INTERNAL, "cost stage without a model");
    m->shape = b->shape;
    snprintf(m->name, sizeof m->name, "%s", b->run_name);
    /* an architecture `run` took from --model or --hf-config carries its release's context
     * (cli_model_stage: the name's data/models.csv context, 0 when none is published; the file's);
     * a built-in architecture's is its release's; otherwise the config's */
    const model_preset_arch *pa = c->train.model_name[0] && !b->arch_given ? model_preset_arch_find(c->train.model_name) : NULL;
    m->max_context = b->arch_given ? b->max_context : pa ? pa->max_context : b->shape.seq_length;
    return 0;
}

static int add_pool(const char *entry, int max_gpus, bool instance, const char *key, cost_request *rq, ac_err *e)
{
    if (rq->n_pools >= COST_MAX_POOLS)
        return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, key, "more than %d GPU types and instances", COST_MAX_POOLS);
    cost_pool *p = &rq->pools[rq->n_pools];
    if (instance ? cost_pool_instance_parse(entry, max_gpus, key, p, e) : cost_pool_parse(entry, max_gpus, key, p, e)) return -1;
    if (!instance) p->inst = NULL;
    rq->n_pools++;
    return 0;
}

/* a comma-separated --gpus or --instances list */
static int parse_list(const char *list, const char *key, int max_gpus, bool instance, cost_request *rq, ac_err *e)
{
    char buf[1024];
    if (strlen(list) >= sizeof buf) return ac_err_at(e, AC_E_INPUT, "command line", 0, 0, key, "list too long");
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (add_pool(t, max_gpus, instance, key, rq, e)) return -1;
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
    /* adapter settings on a full fine-tune or pre-training would be ignored: say so */
    if (o && rq->task != COST_LORA && (cli_flag_present(o, "--lora-rank") || cli_flag_present(o, "--lora-modules")))
        return ac_err_at(e, AC_E_INPUT, "command line", 0, 0, cli_flag_present(o, "--lora-rank") ? "--lora-rank" : "--lora-modules",
                         "applies to --task lora (the task is %s)", rq->task == COST_FULL ? "full" : "pretrain");
    x = cs->lora_rank;
    if (flag_num(o, "--lora-rank", 1, 65536, true, &x, e)) return -1;
    rq->lora_rank = (int)x;
    const char *mods = o ? cli_flag_value(o, "--lora-modules") : NULL;
    snprintf(rq->lora_modules, sizeof rq->lora_modules, "%s", mods ? mods : cs->lora_target_modules);
    if (rq->task == COST_LORA && cost_lora_targets(rq->lora_modules, &rq->model.shape, &rq->lora_targets, e)) return -1;

    /* context: the setting, else the config's sequence length (train_settings.seq_length, as the
     * key documents and `run` takes it) within what the model supports */
    int ctx = cs->context_length > 0 ? cs->context_length : 0;
    if (!ctx) {
        ctx = c->train.seq_length > 0 ? c->train.seq_length : m.max_context;
        if (m.max_context > 0 && ctx > m.max_context && rq->task != COST_PRETRAIN) ctx = m.max_context;
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
    /* the stack: --framework, else train_settings.framework, else hf-deepspeed (cost_stack_of) */
    const char *fw = o ? cli_flag_value(o, "--framework") : NULL;
    if (fw || c->train.framework[0]) {
        rq->stack = fw ? candidate_stack_named(fw, "command line", 0, "--framework", e) : candidate_stack(c, e);
        if (!rq->stack || cost_stack_check(rq->stack, fw ? "--framework" : "search_config.train_settings.framework", e)) return -1;
    }
    if (est_precision_parse(cs->precision, &rq->precision))
        return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "search_config.cost_settings.precision", "unknown precision '%s'", cs->precision);

    const char *gl = o ? cli_flag_value(o, "--gpus") : NULL;
    const char *il = o ? cli_flag_value(o, "--instances") : NULL;
    if (gl && parse_list(gl, "--gpus", max_gpus, false, rq, e)) return -1;
    if (il && parse_list(il, "--instances", max_gpus, true, rq, e)) return -1;
    if (!gl && !il) {
        /* the config: its instances when it lists any, else its GPU types */
        if (cs->n_instances > 0) {
            for (int i = 0; i < cs->n_instances; i++)
                if (add_pool(cs->instances[i], max_gpus, true, "search_config.cost_settings.instances", rq, e)) return -1;
        } else {
            for (int i = 0; i < cs->n_gpus; i++)
                if (add_pool(cs->gpus[i], max_gpus, false, "search_config.cost_settings.gpus", rq, e)) return -1;
        }
    }
    if (rq->n_pools < 1) return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "search_config.cost_settings.gpus", "no GPU types given");
    for (int i = 0; i < rq->n_pools; i++)
        for (int j = 0; j < i; j++)
            if (rq->pools[i].gpu == rq->pools[j].gpu)
                return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, rq->pools[i].inst ? "instances" : "gpus", "%s is listed twice",
                                 cost_pool_name(&rq->pools[i]));
    const char *r0 = o ? cli_flag_value(o, "--rank0-instance") : NULL;
    const char *r0key = "--rank0-instance";
    if (!r0 && cs->rank0_instance[0]) {
        r0 = cs->rank0_instance;
        r0key = "search_config.cost_settings.rank0_instance";
    }
    if (r0) {
        cost_pool p0;
        if (cost_pool_instance_parse(r0, 8, r0key, &p0, e)) return -1;
        rq->rank0 = p0.inst;
        bool used = false;
        for (int i = 0; i < rq->n_pools; i++) {
            const cost_instance *w = rq->pools[i].inst;
            if (w && w != p0.inst && w->gpus == p0.inst->gpus && !strcmp(w->node.name, p0.inst->node.name) &&
                w->host_ram_gib < p0.inst->host_ram_gib)
                used = true;
        }
        if (!used)
            return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, r0key,
                             "%s (%d x %s, %.0f GiB) can stand in for rank 0 only of an instance with the same GPUs and less RAM; "
                             "none of the instances given is one",
                             p0.inst->name, p0.inst->gpus, p0.inst->node.name, p0.inst->host_ram_gib);
    }
    return 0;
}

/* the trainer command of the benchmark jobs (cost_measure.h) */
static char *trainer_template(const ac_config *c, ac_err *e)
{
    const char *env = getenv("AUTOCONFIG_COST_TRAINER");
    if (env && *env) return strdup(env);
    char path[CFG_PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/cluster/cost_trainer_command.txt", c->conf_dir);
    if (c->conf_dir[0] && fs_exists(path)) {
        size_t len;
        char *t = fs_read_file(path, &len, e);
        if (t) t[strcspn(t, "\n")] = '\0'; /* one command line */
        return t;
    }
    return strdup(COST_TRAINER_DEFAULT);
}

/* `cost --measure`: benchmark jobs of the top setups through the executor, ranked by measured $/MT */
static int measure_stage(const ac_config *c, const cost_request *rq, const cost_result *r, const cli_opts *o, const char *dir,
                         bool json, ac_err *e)
{
    if (!cfg_runs_real_jobs(c))
        return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "--measure",
                         "runs benchmark jobs: set cluster_type=local (this machine) or bcm (Slurm); it is %s", c->cluster_type);
    double top = 3, steps = 10;
    if (flag_num(o, "--measure-top", 1, 32, true, &top, e) || flag_num(o, "--measure-steps", 1, 100000, true, &steps, e)) return -1;
    size_t idx[32];
    size_t n = cost_measure_pick(r, (size_t)top, idx);
    if (!n) return ac_err_set(e, AC_E_EXEC, "nothing to measure: no feasible DeepSpeed/FSDP setup among the ranked ones");
    char logs[CFG_PATH_MAX + 32];
    if (fs_join(logs, sizeof logs, dir, "measure", e)) return -1;
    char *tmpl = trainer_template(c, e);
    if (!tmpl) return -1;
    exec_job *jobs = calloc(n, sizeof *jobs);
    exec_outcome *out = calloc(n, sizeof *out);
    cost_measurement *m = calloc(n, sizeof *m);
    char (*scripts)[4096] = calloc(n, sizeof *scripts);
    size_t *order = calloc(n, sizeof *order);
    int rc = 0;
    if (!jobs || !out || !m || !scripts || !order) rc = ac_err_set(e, AC_E_NOMEM, "out of memory");
    for (size_t k = 0; !rc && k < n; k++) {
        const cost_option *opt = &r->opt[idx[k]];
        m[k].opt = idx[k];
        cost_measure_name(rq, opt, k, m[k].name, sizeof m[k].name);
        char run_dir[4096];
        if (exec_run_dir(logs, m[k].name, run_dir, sizeof run_dir, e) ||
            cost_measure_write(rq, opt, run_dir, (int)steps, tmpl, scripts[k], sizeof scripts[k], e)) {
            rc = -1;
            break;
        }
        exec_job *j = &jobs[k];
        snprintf(j->name, sizeof j->name, "%s", m[k].name);
        snprintf(j->config_path, sizeof j->config_path, "%s", scripts[k]);
        j->script = scripts[k];
        j->nodes = opt->nodes;
        j->gpus_per_node = opt->nodes ? opt->k.num_gpus / opt->nodes : opt->k.num_gpus;
        j->tasks_per_node = 1; /* the trainer command starts its own ranks */
    }
    free(tmpl);
    if (!rc) {
        fflush(stdout);
        rc = exec_run_all(c, logs, jobs, n, out, json ? NULL : stderr, e);
    }
    for (size_t k = 0; !rc && k < n; k++) {
        char path[4200];
        snprintf(path, sizeof path, "%.4000s/trainer.log", scripts[k]);
        char *slash = strrchr(path, '/');
        if (slash) {
            *slash = '\0';
            slash = strrchr(path, '/');
            if (slash) snprintf(slash, sizeof path - (size_t)(slash - path), "/trainer.log");
        }
        if (out[k].state != EXEC_DONE) {
            snprintf(m[k].why, sizeof m[k].why, "job failed: %s", out[k].reason[0] ? out[k].reason : "no reason");
            continue;
        }
        size_t len;
        ac_err le;
        char *text = fs_read_file(path, &len, &le);
        if (!text) {
            snprintf(m[k].why, sizeof m[k].why, "no trainer log: %.200s", le.msg);
            continue;
        }
        if (cost_trainer_log_parse(text, &m[k].step_s, &m[k].n_rates, &le)) snprintf(m[k].why, sizeof m[k].why, "%.250s", le.msg);
        else {
            m[k].ok = true;
            cost_measure_score(rq, &r->opt[m[k].opt], &m[k]);
        }
        free(text);
    }
    size_t nr = rc ? 0 : cost_measure_rank(r, m, n, order);
    if (!rc) {
        /* measured.json beside summary.json */
        strbuf sb;
        sb_init(&sb);
        sb_printf(&sb, "{\n  \"stage\": \"cost-measure\",\n  \"source\": \"measured\",\n  \"max_steps\": %d,\n  \"tie_band\": %g,\n  \"jobs\": [",
                  (int)steps, n ? cost_tie_band(&r->opt[m[0].opt]) : 0.0);
        for (size_t k = 0; k < n; k++) {
            const cost_option *opt = &r->opt[m[k].opt];
            sb_printf(&sb, "%s\n    {\"name\": \"%s\", \"option\": %zu, \"label\": \"%s\", \"predicted_step_s\": %.6g, ", k ? "," : "",
                      m[k].name, m[k].opt, opt->label, opt->step_time_s);
            if (m[k].ok)
                sb_printf(&sb, "\"measured_step_s\": %.6g, \"mtok_per_hour\": %.6g, \"usd_per_mtok\": %.6g, \"hours\": %.6g, \"mfu\": %.6g, "
                               "\"predicted_vs_measured\": %.4f, \"why\": null}",
                          m[k].step_s, m[k].mtok_per_hour, m[k].usd_per_mtok, m[k].hours, m[k].mfu, m[k].error);
            else {
                for (char *q = m[k].why; *q; q++)
                    if (*q == '"' || *q == '\\' || (unsigned char)*q < 0x20) *q = '\'';
                sb_printf(&sb, "\"measured_step_s\": null, \"why\": \"%s\"}", m[k].why);
            }
        }
        sb_printf(&sb, "\n  ],\n  \"ranking_by_measured_cost\": [");
        for (size_t k = 0; k < nr; k++) sb_printf(&sb, "%s%zu", k ? ", " : "", order[k]);
        sb_printf(&sb, "],\n  \"chosen\": ");
        if (nr) sb_printf(&sb, "%zu\n}\n", order[0]);
        else sb_printf(&sb, "null\n}\n");
        char path[CFG_PATH_MAX + 64];
        if (sb.oom) rc = ac_err_set(e, AC_E_NOMEM, "out of memory");
        else if (!fs_join(path, sizeof path, dir, "measured.json", e)) rc = fs_write_atomic(path, sb_str(&sb), strlen(sb_str(&sb)), e);
        else rc = -1;
        sb_free(&sb);
    }
    if (!rc && !json) {
        printf("\nMeasured (%zu benchmark jobs of %d optimizer steps, every sequence %d tokens; logs in %s/training_logs):\n", n,
               (int)steps, rq->context, logs);
        printf("  %-44s %10s %10s %8s %9s %8s %9s\n", "setup", "pred s/st", "meas s/st", "pred err", "MT/hr", "MFU", "$/MT");
        for (size_t k = 0; k < n; k++) {
            const cost_option *opt = &r->opt[m[k].opt];
            if (m[k].ok)
                printf("  %-44.44s %10.3f %10.3f %+7.0f%% %9.3f %7.1f%% %9.3f\n", m[k].name, opt->step_time_s, m[k].step_s,
                       100.0 * m[k].error, m[k].mtok_per_hour, 100.0 * m[k].mfu, m[k].usd_per_mtok);
            else
                printf("  %-44.44s %10.3f  not measured: %s\n", m[k].name, opt->step_time_s, m[k].why);
        }
        if (nr) {
            const cost_measurement *w = &m[order[0]];
            printf("Chosen by measured $ per million tokens: %s, $%.3f/MT, %.2f MT/hr, %.1f h (measured over %d steps)\n",
                   r->opt[w->opt].label, w->usd_per_mtok, w->mtok_per_hour, w->hours, (int)steps);
            double tb = nr > 1 ? fmax(cost_tie_band(&r->opt[w->opt]), cost_tie_band(&r->opt[m[order[1]].opt])) : 0.0;
            if (nr > 1 && cost_same_price(m[order[1]].usd_per_mtok, w->usd_per_mtok, tb))
                printf("  why: the faster of the setups within %.0f %% (the ranking band) of the lowest measured $/MT\n", 100.0 * tb);
            else if (nr > 1)
                printf("  why: the lowest measured $/MT; the next costs %.0f %% more\n",
                       100.0 * (m[order[1]].usd_per_mtok / w->usd_per_mtok - 1.0));
        }
    }
    if (!rc && !nr)
        rc = ac_err_set(e, AC_E_EXEC, "no benchmark job gave a step time (first: %s: %s; logs in %s/training_logs/%s)", m[0].name, m[0].why,
                        logs, m[0].name);
    free(jobs);
    free(out);
    free(m);
    free(scripts);
    free(order);
    return rc;
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
            long ch = cost_chosen(&r, &rq);
            bool any = ch >= 0, fsdp = any && cost_is_fsdp(&rq, &r.opt[ch].k);
            bool dp_only = any && r.opt[ch].k.tp == 1 && r.opt[ch].k.pp == 1;
            bool tune = any && cost_torchtune_runs(&rq, &r.opt[ch]);
            printf("\nFiles: %s/ (summary.json%s%s%s%s%s%s)\n", dir, any && !fsdp ? ", ds_config.json" : "",
                   any ? ", train_args.json" : "", any && rq.task == COST_LORA ? ", lora_config.json" : "",
                   dp_only && !fsdp ? ", llmforge.yaml" : "", dp_only ? ", accelerate_config.yaml" : "",
                   tune ? ", torchtune_config.yaml" : "");
        }
    }
    if (!rc && o && cli_flag_present(o, "--measure") && cost_chosen(&r, &rq) >= 0 && measure_stage(c, &rq, &r, o, dir, json, e)) rc = -1;
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
        rc = 1; /* printed and written: the search's result, not a failure to run it */
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
