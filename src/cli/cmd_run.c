/* cmd_run.c — `autoconfig run`: the whole pipeline of the original's main.py
 * (size → base config → training HP search → results), on the cluster type the
 * config names; `sim` (the default) needs no cluster at all. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "cli/cli.h"
#include "estimator/stack.h"
#include "exec/exec.h"
#include "results/candidate_cfg.h"
#include "search/candidate_est.h"
#include "util/fsutil.h"
#include "results/report.h"
#include "results/train_results.h"
#include "search/infer_search.h"
#include "search/train_search.h"
#include "util/dirlock.h"
#include "util/json.h"

static const char RUN_HELP[] =
    "usage: autoconfig run [--json] [--conf DIR] [--hf-config FILE | --model NAME] [--retry-failed] [overrides...]\n"
    "\n"
    "Runs every stage on conf/config.yaml, as the original's main.py: model size\n"
    "(recommended when model_size_in_b is null), base config, then the training HP\n"
    "search (run_training_hp_search), the inference HP search (run_inference_hp_search)\n"
    "and the cost search (run_cost_search), and writes final_result/report.html.\n"
    "cluster_type sim (default) scores candidates with the analytical estimator;\n"
    "bcm (Slurm) and local launch the top limit_search_runs candidates as real jobs\n"
    "and rank their measured step times.  --json prints one object with a member per\n"
    "stage that ran (training, inference, cost) and the report's path.\n"
    "Exit status 1, after the report, when every launched run failed or the inference or\n"
    "cost search found nothing usable (each says why); 2 on bad input, nothing written.\n"
    "A global batch that needs more than 4x its tokens per step to split is refused.\n"
    "A logs dir has one owner: a second run on it stops with an error.  Runs measured\n"
    "before under the same settings are reused; --retry-failed launches failed ones again.\n"
    "--hf-config FILE (a Hugging Face config.json) or --model NAME (`autoconfig models`)\n"
    "trains that architecture under search_config=llama/<preset> (dense) or mixtral/<preset>\n"
    "(experts); what the NeMo config has no key for (MLA, shared experts, MTP, sliding\n"
    "windows, Mamba-2 blocks, ...) is refused, as the job would train another model.\n"
    "example: autoconfig run search_config=gpt3/20b search_config.train_settings.num_nodes=32\n";

static void print_search(FILE *out, const ac_config *c, const search_train_result *r)
{
    search_counts k;
    search_train_counts(c, r, &k);
    /* the stack the predictions are for, by its catalog name (an alias such as maxtext named as jax-xla) */
    const est_stack *st = c->train.framework[0] ? est_stack_find(c->train.framework) : est_stack_default();
    fprintf(out, "Training HP search (%s mode, cluster_type %s, %d x %d %s, stack %s): %zu candidates (%zu in the original's grid), "
            "%zu valid, %zu predicted to fit, %zu predicted out of memory; ",
            c->train.search_mode, c->cluster_type, c->train.num_nodes, c->train.gpus_per_node, r->base.gpu->name,
            st ? st->name : c->train.framework, k.candidates, r->grid.n_original, k.valid, k.predicted_fit, k.predicted_oom);
    if (cfg_runs_real_jobs(c)) fprintf(out, "%zu launched (limit_search_runs %d)\n", k.launched, c->train.limit_search_runs);
    else fprintf(out, "0 launched (cluster_type sim: the top %zu are ranked by prediction)\n", k.ranked);
    /* the band that admitted them: the memory band of their GPU and stack (every candidate shares it) */
    const est_result *border = NULL;
    for (size_t i = 0; i < r->n && !border; i++)
        if (r->items[i].borderline) border = &r->items[i].est;
    if (border)
        fprintf(out, "  of them %zu borderline: predicted over the memory limit by less than the estimator's memory "
                "uncertainty (%.0f %%), launched to be measured (launch_over_memory %s)\n",
                r->n_borderline, 100.0 * search_memory_band_rel(border), c->train.launch_over_memory);
}

/* the global batch the search moved to, and why */
static void print_gbs(FILE *out, const ac_config *c, const search_train_result *r)
{
    if (!r->gbs.adjusted) return;
    int gpus = c->train.num_nodes * c->train.gpus_per_node;
    fprintf(out, "Global batch: %d has no split on %d GPUs (no MBS x DP of the grid divides it); searched GBS %d instead, "
            "the nearest multiple of the largest data-parallel size %d (%+.1f%% tokens per step); "
            "pin another with search_config.train_settings.global_batch_sizes=[...]\n",
            r->gbs.from, gpus, r->gbs.to, r->gbs.dp, 100.0 * ((double)r->gbs.to / r->gbs.from - 1.0));
}

static void print_exhaustive(FILE *out, const search_train_result *r)
{
    if (!r->exhaustive_done || !r->exhaustive_found) return;
    fprintf(out, "Beyond the original's grid (all divisors and knobs, %ld candidates scored): best %s, %.4fs per step "
            "(predicted), %+.1f%% tokens/s vs the grid's best%s\n",
            r->exhaustive_count, r->exhaustive_best_name, r->exhaustive_best_est.step_time, 100.0 * r->exhaustive_gain,
            r->exhaustive_gain > 0.005 ? "" : " (the grid already holds the best)");
}

/* the executor's job for one selected candidate */
static int fill_job(const ac_config *c, const search_scored *s, exec_job *j, ac_err *e)
{
    int w = snprintf(j->config_path, sizeof j->config_path, "%s/candidate_configs/%s.yaml", c->train.logs, s->name);
    if (w < 0 || (size_t)w >= sizeof j->config_path) return ac_err_set(e, AC_E_INPUT, "logs path too long for %s", s->name);
    snprintf(j->name, sizeof j->name, "%s", s->name);
    if (search_run_nodes(c, &s->cand, &j->nodes, e) < 0) return -1; /* search_num_nodes */
    /* Slurm asks for the cluster's GPUs per node; local processes get the search's */
    j->gpus_per_node = !strcmp(c->cluster_type, "bcm") && c->cluster.gpus_per_node > 0 ? c->cluster.gpus_per_node
                                                                                        : c->train.gpus_per_node;
    j->predicted_step_s = s->est.step_time;
    return 0;
}

/* The stacks a launched job runs: the jobs are NeMo's training scripts, so a search ranked on
 * another stack (train_settings.framework) would predict that stack and measure NeMo */
static const char *const NEMO_STACKS[] = {"megatron-core", "nemo-megatron-2022"};

/* The first launched candidate's job script rendered and dropped: a template, partition
 * or path the executor would refuse fails here, before any result file is written; and a
 * search ranked on a stack NeMo does not run is not launched at all. */
static int check_launch(const ac_config *c, const model_base_config *b, const search_train_result *r, ac_err *e)
{
    if (!cfg_runs_real_jobs(c)) return 0;
    if (c->train.framework[0]) {
        const est_stack *st = candidate_stack(c, e);
        if (!st) return -1;
        bool nemo = false;
        for (size_t i = 0; i < sizeof NEMO_STACKS / sizeof *NEMO_STACKS; i++) nemo |= !strcmp(st->name, NEMO_STACKS[i]);
        if (!nemo)
            return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "search_config.train_settings.framework",
                             "cluster_type %s launches NeMo training jobs, but the search is ranked on %s: its "
                             "measurements would be NeMo's, its predictions %s's; rank on cluster_type sim, or "
                             "leave framework null (megatron-core) to launch",
                             c->cluster_type, st->name, st->name);
    }
    for (size_t k = 0; k < r->n; k++) {
        const search_scored *s = &r->items[r->order[k]];
        if (!s->launched) continue;
        exec_job j = { 0 };
        char *script = NULL, **argv = NULL;
        node *cand = results_candidate_config(b, c, &s->cand, s->name, e); /* resolved as its job would resolve it */
        int rc = cand ? fill_job(c, s, &j, e) : -1;
        j.candidate = cand;
        if (!rc) rc = exec_job_script(c, c->train.logs, &j, &script, !strcmp(c->cluster_type, "bcm") ? &argv : NULL, NULL, e);
        node_free(cand);
        free(script);
        exec_argv_free(argv);
        return rc;
    }
    return 0;
}

/* Launches the selected candidates (ranked order) through the executor and turns
 * their outcomes into measured results; candidates not launched stay predicted.
 * A second call after an interruption resumes from the ledger in the logs dir. */
static int launch_selected(const ac_config *c, search_train_result *r, ac_err *e)
{
    exec_job *jobs = calloc(r->n_launch ? r->n_launch : 1, sizeof *jobs);
    size_t *item = calloc(r->n_launch ? r->n_launch : 1, sizeof *item);
    exec_outcome *out = calloc(r->n_launch ? r->n_launch : 1, sizeof *out);
    int rc = 0;
    if (!jobs || !item || !out) rc = ac_err_set(e, AC_E_NOMEM, "out of memory");
    size_t n = 0;
    for (size_t k = 0; !rc && k < r->n && n < r->n_launch; k++) {
        const search_scored *s = &r->items[r->order[k]];
        if (!s->launched) continue;
        rc = fill_job(c, s, &jobs[n], e);
        item[n++] = r->order[k];
    }
    fflush(stdout); /* what was printed so far comes before the progress line */
    if (!rc) rc = exec_run_all(c, c->train.logs, jobs, n, out, stderr, e);
    for (size_t i = 0; !rc && i < n; i++) {
        search_scored *s = &r->items[item[i]];
        s->source = RUN_MEASURED;
        if (out[i].state == EXEC_DONE && out[i].step_time_s > 0) {
            s->failed = false;
            s->reason[0] = '\0';
            s->step_time_s = out[i].step_time_s;
            if (jobs[i].nodes != c->train.num_nodes) {
                /* measured on fewer nodes: carried to num_nodes by the estimator's ratio of the two
                 * (more micro-batches per step and a smaller data-parallel group there) */
                double small;
                ac_err se;
                if (search_step_time_at(r, &s->cand, jobs[i].nodes, c->train.gpus_per_node, &small, &se) == 0 && small > 0) {
                    s->measured_nodes = jobs[i].nodes;
                    s->measured_raw_s = out[i].step_time_s;
                    s->step_time_s = out[i].step_time_s * s->est.step_time / small;
                }
            }
        } else {
            s->failed = true;
            snprintf(s->reason, sizeof s->reason, "run failed (job %s): %s", out[i].job_id[0] ? out[i].job_id : "-",
                     out[i].reason[0] ? out[i].reason : "no result");
        }
    }
    free(jobs);
    free(item);
    free(out);
    return rc;
}

/* every launched run: measured beside predicted, or why it failed */
static void print_measured(FILE *out, const ac_config *c, const search_train_result *r)
{
    search_counts cnt;
    search_train_counts(c, r, &cnt);
    fprintf(out, "Training runs: %zu measured, %zu failed (ledger: autoconfig status)\n", cnt.measured, cnt.failed);
    fprintf(out, "  %-10s %-10s %-8s  %s\n", "measured", "predicted", "error", "run");
    for (size_t k = 0; k < r->n; k++) {
        const search_scored *s = &r->items[r->order[k]];
        if (!s->launched || s->source != RUN_MEASURED) continue;
        char note[200] = "";
        if (s->borderline)
            snprintf(note, sizeof note, " [borderline: predicted %.1f GiB, %.1f usable]", s->est.mem_total / EST_GIB,
                     s->est.mem_limit / EST_GIB);
        if (s->measured_nodes)
            snprintf(note + strlen(note), sizeof note - strlen(note), " [measured at %d nodes (%.4fs), scaled to %d]",
                     s->measured_nodes, s->measured_raw_s, c->train.num_nodes);
        if (s->failed)
            fprintf(out, "  %-10s %9.4fs %-8s  %s%s: %s\n", "failed", s->est.step_time, "-", s->name, note, s->reason);
        else
            fprintf(out, "  %9.4fs %9.4fs %+7.1f%%  %s%s\n", s->step_time_s, s->est.step_time,
                    100.0 * (s->est.step_time / s->step_time_s - 1.0), s->name, note);
    }
}

/* Slurm's time formats (sbatch --time): M, M:S, H:M:S, D-H, D-H:M, D-H:M:S → seconds; 0 when unreadable */
static int slurm_time_s(const char *t)
{
    int d = 0, f[3] = {0, 0, 0}, n = 0;
    const char *dash = strchr(t, '-');
    if (dash) { d = atoi(t); t = dash + 1; }
    for (const char *p = t; *p && n < 3; n++) {
        f[n] = atoi(p);
        p = strchr(p, ':');
        if (!p) { n++; break; }
        p++;
    }
    long s = dash ? (n == 1 ? f[0] * 3600L : n == 2 ? f[0] * 3600L + f[1] * 60L : f[0] * 3600L + f[1] * 60L + f[2])
                  : (n == 1 ? f[0] * 60L : n == 2 ? f[0] * 60L + f[1] : f[0] * 3600L + f[1] * 60L + f[2]);
    s += d * 86400L;
    return s > 0 && s < 366L * 86400 ? (int)s : 0;
}

/* the inference sweep's benchmark jobs, collected as the stage writes them */
typedef struct {
    exec_job *jobs;
    size_t n, cap;
    char logs[CFG_PATH_MAX + 64]; /* the sweep's results_dir: its ledger and run folders */
} infer_jobs;

static int collect_infer_job(void *ctx, const ac_config *c, const char *script, const char *dir, int nodes,
                             int tasks_per_node, char *job_id, size_t len, ac_err *e)
{
    infer_jobs *ij = ctx;
    (void)job_id;
    (void)len;
    if (ij->n == ij->cap) {
        exec_job *nj = realloc(ij->jobs, (ij->cap = ij->cap ? 2 * ij->cap : 32) * sizeof *nj);
        if (!nj) return ac_err_set(e, AC_E_NOMEM, "out of memory");
        ij->jobs = nj;
    }
    exec_job *j = &ij->jobs[ij->n++];
    memset(j, 0, sizeof *j);
    /* <results_dir>/inference/<name>: the run is "benchmark_<name>" in <results_dir>'s ledger */
    search_infer_run_name(dir, j->name, sizeof j->name);
    const char *slash = strrchr(dir, '/');
    snprintf(j->config_path, sizeof j->config_path, "%s", script);
    size_t keep = slash ? (size_t)(slash - dir) : 0;
    if (keep >= 10 && !strncmp(dir + keep - 10, "/inference", 10)) keep -= 10;
    snprintf(ij->logs, sizeof ij->logs, "%.*s", (int)keep, dir);
    j->nodes = nodes;
    j->gpus_per_node = c->cluster.gpus_per_node > 0 ? c->cluster.gpus_per_node : c->infer.gpus_per_node;
    j->tasks_per_node = tasks_per_node; /* the benchmark's ranks: its srun takes the allocation's tasks */
    j->time_limit_s = slurm_time_s(c->infer.time_limit);
    return 0;
}

/* On a real cluster: the sweep's benchmark jobs run through the executor (ledger, resume,
 * cancel, progress) and their logs are summarised, as the original's parallel inference search.
 * -1 on an error, 1 when the table is out but nothing is usable (search_inference_run) */
static int inference_stage(const ac_config *c, const model_base_config *b, bool json, ac_err *e)
{
    if (!cfg_runs_real_jobs(c)) return search_inference_run(c, b, stdout, json, e);
    infer_jobs ij = { 0 };
    search_infer_hooks h = { .submit = collect_infer_job, .submit_ctx = &ij };
    int rc = search_inference_run_with(c, b, &h, stdout, json, e);
    exec_outcome *out = rc || !ij.n ? NULL : calloc(ij.n, sizeof *out);
    if (!rc && ij.n && !out) rc = ac_err_set(e, AC_E_NOMEM, "out of memory");
    for (size_t i = 0; i < ij.n; i++) ij.jobs[i].script = ij.jobs[i].config_path; /* the array no longer moves */
    if (!rc && ij.n) {
        fflush(stdout);
        rc = exec_run_all(c, ij.logs, ij.jobs, ij.n, out, stderr, e);
    }
    if (!rc && ij.n) {
        size_t failed = 0, first = ij.n;
        for (size_t i = 0; i < ij.n; i++)
            if (out[i].state != EXEC_DONE) { failed++; if (first == ij.n) first = i; }
        if (!json) printf("Inference benchmark jobs: %zu ran, %zu failed (ledger in %s: autoconfig status)\n", ij.n - failed,
                          failed, ij.logs);
        if (failed == ij.n)
            rc = ac_err_set(e, AC_E_EXEC, "every inference benchmark job failed (first: %s: %s; its logs in "
                            "%s/training_logs/%s); the training results are written; fix the cause and run again with --retry-failed",
                            ij.jobs[first].name, out[first].reason[0] ? out[first].reason : "no reason", ij.logs,
                            ij.jobs[first].name);
        else
            rc = search_inference_summarize(c, b, stdout, json, e);
    }
    free(out);
    free(ij.jobs);
    return rc;
}

/* the training stage's files, launches and output, from a search already run */
static int training_stage(const ac_config *c, const model_base_config *b, search_train_result *r, bool json,
                          bool *all_failed, ac_err *e)
{
    int rc = 0;
    bool real = cfg_runs_real_jobs(c);
    *all_failed = false;
    if (results_write_candidates(c, b, r, c->train.logs, e) ||
        (real && launch_selected(c, r, e))) {
        rc = -1;
    } else if (real && (search_pick_measured(c, r), results_write_final(c, b, r, c->train.logs, e))) {
        rc = -1;
    } else if (!real && results_write_final(c, b, r, c->train.logs, e)) {
        rc = -1;
    } else if (json) {
        char path[4096];
        size_t len = 0;
        snprintf(path, sizeof path, "%s/final_result/summary.json", c->train.logs);
        char *text = fs_read_file(path, &len, e);
        if (!text) rc = -1;
        else { fputs(text, stdout); free(text); }
    } else {
        print_search(stdout, c, r);
        print_gbs(stdout, c, r);
        if (r->cal_loaded) {
            char cal_path[CFG_PATH_MAX + 200];
            ac_err pe;
            if (!candidate_cal_path(c, cal_path, sizeof cal_path, &pe))
                printf("Estimator calibrated for cluster %s by %s (autoconfig calibrate)\n", c->cluster_name, cal_path);
        }
        if (real) print_measured(stdout, c, r);
        results_print_top(stdout, c, b, r, c->train.logs);
        print_exhaustive(stdout, r);
        printf("Results: %s/final_result/ (final_summary_%dnodes.csv, failed_jobs_%dnodes.csv, summary.json); "
               "candidates: %s/candidate_configs/\n", c->train.logs, c->train.num_nodes, c->train.num_nodes, c->train.logs);
    }
    /* nothing measured although runs were launched: the search's result is a failure (the
     * other stages and the report still run, then the exit status says so) */
    search_counts k;
    search_train_counts(c, r, &k);
    if (!rc && real && k.failed > 0 && k.measured == 0) *all_failed = true;
    return rc;
}

/* report.html from whatever the stages wrote (training summary required) */
static int write_report(const ac_config *c, bool json, ac_err *e)
{
    char path[4096];
    report_info info;
    if (report_write_dirs(c->train.logs, c->infer.results_dir, path, sizeof path, &info, e)) return -1;
    if (json) {
        fputs(",\"report\":", stdout);
        json_write_escaped(stdout, path);
    } else {
        printf("Report: %s\n", path);
    }
    return 0;
}

int cmd_run(int argc, char **argv)
{
    cli_opts o;
    ac_err e;
    static const char *const known[] = { "--hf-config=", "--model=", "--retry-failed", NULL };
    ac_config c;
    int started = cli_start(argc, argv, known, RUN_HELP, &o, &c, &e);
    if (started != CLI_GO) return started == CLI_HELPED ? 0 : cli_fail(&e);
    if (cli_flag_present(&o, "--retry-failed")) c.train.retry_failed = true;
    bool locked = false; /* the logs dir, held while this run writes into it (any cluster_type) */
    model_size_report rep;
    model_base_config b = { 0 };
    double size_b;
    int rc = 0;
    bool opened = false;  /* --json: the object around the stages' documents */
    bool pending = false; /* --json: a member's name is out, its value not yet */
    search_train_result train = { 0 }; /* freeable as it is, or as search_train_run leaves it */
    bool all_failed = false;           /* launched runs, none measured: exit status 1 after the report */
    /* every stage's input is checked (and the training grid scored) before the first
     * file is written: a bad setting leaves no half-done results behind */
    if (cli_model_stage(&c, CLI_MODEL_TRAIN, &rep, &size_b, &b, &e) != 0) goto fail;
    if (rep.recommended && !o.json) cli_print_size(stdout, &c, &rep, NULL);
    if (c.run_training_hp_search && search_train_run(&c, &b, &train, &e) != 0) goto fail;
    if (c.run_training_hp_search && check_launch(&c, &b, &train, &e) != 0) goto fail;
    if (c.run_inference_hp_search && search_inference_check(&c, &b, &e) != 0) goto fail;
    if (c.run_cost_search && cli_cost_check(&c, &b, &e) != 0) goto fail;
    /* before this run writes into the logs dir, simulated or not: a sim run's files would
     * replace those of a search running there */
    if (dirlock_acquire(c.train.logs, "logs dir", &e) != 0) goto fail;
    locked = true;
    if (model_base_config_write(&b, c.train.logs, &e) != 0) goto fail;
    if (!o.json)
        printf("Base config: %s (%.3f B parameters: %d layers, hidden %d, %d heads; GBS %d)\n", b.path, b.param_b,
               b.shape.num_layers, b.shape.hidden, b.shape.heads, b.gbs);
    if (o.json) {
        fputs("{\"base_config\":", stdout);
        json_write_escaped(stdout, b.path);
        printf(",\"model_size_b\":%.6g", b.param_b);
        opened = true;
    }
    if (c.run_training_hp_search) {
        if (o.json) { fputs(",\"training\":", stdout); pending = true; }
        if (training_stage(&c, &b, &train, o.json, &all_failed, &e) != 0) goto fail;
        pending = false;
    }
    /* stages that ran and found nothing usable (inference, cost): each said after the report */
    ac_err none[2], stage_e; /* one per stage below: inference, cost */
    size_t n_none = 0;
    if (c.run_inference_hp_search && b.shape.arch != ARCH_DECODER) {
        /* as the original: the inference search serves decoder models only; t5/mt5/bert
         * runs keep their training results instead of failing at the last stage */
        static const char skip[] = "the inference HP search serves decoder models (GPT-3, Llama, Mixtral)";
        if (o.json) printf(",\"inference\":{\"skipped\":\"%s\"}", skip);
        else printf("Inference HP search skipped: %s; %s is not one.\n", skip, b.run_name);
    } else if (c.run_inference_hp_search) {
        if (o.json) { fputs(",\"inference\":", stdout); pending = true; }
        else printf("\nInference HP search\n");
        int irc = inference_stage(&c, &b, o.json, &stage_e);
        if (irc < 0) { e = stage_e; goto fail; }
        if (irc > 0) none[n_none++] = stage_e;
        pending = false;
    }
    if (c.run_cost_search) {
        if (o.json) { fputs(",\"cost\":", stdout); pending = true; }
        int crc = cli_cost_stage(&c, &b, NULL, o.json, &stage_e);
        if (crc < 0) { e = stage_e; goto fail; }
        if (crc > 0) none[n_none++] = stage_e;
        pending = false;
    }
    /* the report needs the training summary; without a training search there is none */
    char sum[4096];
    snprintf(sum, sizeof sum, "%s/final_result/summary.json", c.train.logs);
    if (fs_exists(sum) && write_report(&c, o.json, &e) != 0) goto fail;
    if (o.json) { fputs("}\n", stdout); opened = false; }
    for (size_t i = 0; i < n_none; i++) rc = cli_fail(&none[i]);
    if (all_failed) {
        size_t failed = 0, cancelled = 0;
        for (size_t i = 0; i < train.n; i++) {
            if (!train.items[i].launched || !train.items[i].failed) continue;
            failed++;
            cancelled += strstr(train.items[i].reason, EXEC_CANCELLED_REASON) != NULL; /* "run failed (job ..): <reason>" */
        }
        if (failed && cancelled == failed) /* nothing to fix: the user stopped it */
            ac_err_set(&e, AC_E_EXEC, "the search was cancelled (autoconfig cancel) before a run finished; the same "
                       "command with --retry-failed launches its %zu runs again", failed);
        else
            ac_err_set(&e, AC_E_EXEC, "every launched training run failed (reasons in %s/final_result/failed_jobs_%dnodes.csv); "
                       "fix the cause and run again with --retry-failed", c.train.logs, c.train.num_nodes);
        rc = cli_fail(&e);
    }
    goto done;
fail:
    if (opened) fputs(pending ? "null}\n" : "}\n", stdout); /* keep stdout one parseable object; the error is on stderr */
    rc = cli_fail(&e);
done:
    if (locked) dirlock_release(c.train.logs);
    search_train_free(&train);
    model_base_config_free(&b);
    cfg_free(&c);
    cli_opts_free(&o);
    return rc;
}
