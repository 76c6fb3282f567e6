/* cmd_exec.c — `autoconfig launch`, `status` and `cancel` (real runs and
 * their ledger), `autoconfig calibrate` (the estimator fitted to them) and
 * `autoconfig emulate-job` (a stand-in training job for machines without GPUs,
 * used by the Slurm and local executors' tests). */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli/cli.h"
#include "exec/calibrate.h"
#include "config/yaml_io.h"
#include "exec/exec.h"
#include "exec/nemo_contract.h"
#include "results/ledger.h"
#include "results/tfevents.h"
#include "search/candidate_est.h"
#include "util/dirlock.h"
#include "util/fsutil.h"
#include "util/json.h"
#include "util/proc.h"
#include "util/strbuf.h"

/* LOGS_DIR as the first argument, else train_settings.logs of the config (overrides allowed) */
static int logs_dir_arg(int argc, char **argv, char *out, size_t len, ac_err *e)
{
    if (argc >= 2 && argv[1][0] != '-' && !strchr(argv[1], '=')) {
        if (argc > 2) return ac_err_set(e, AC_E_INPUT, "unexpected argument '%s'", argv[2]);
        snprintf(out, len, "%s", argv[1]);
        return 0;
    }
    cli_opts o;
    ac_config c;
    int rc = cli_parse(argc, argv, &o, e);
    if (!rc) rc = cli_load_config(&o, &c, e);
    if (!rc) { snprintf(out, len, "%s", c.train.logs); cfg_free(&c); }
    cli_opts_free(&o);
    return rc;
}

/* removes --json from argv (status and cancel take positional arguments); true when it was there */
static bool take_json_flag(int *argc, char **argv)
{
    bool found = false;
    int k = 1;
    for (int i = 1; i < *argc; i++) {
        if (!strcmp(argv[i], "--json")) found = true;
        else argv[k++] = argv[i];
    }
    *argc = k;
    return found;
}

static int wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return 1;
    return 0;
}

int cmd_status(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: autoconfig status [--json] [LOGS_DIR | key=value ...]\n"
               "Shows the ledger of real training runs in LOGS_DIR (default: train_settings.logs):\n"
               "state, job id, predicted and measured step time of every candidate. Running jobs\n"
               "are asked for their state first; nothing is submitted.\n");
        return 0;
    }
    ac_err e;
    char logs[1024];
    bool json = take_json_flag(&argc, argv);
    if (logs_dir_arg(argc, argv, logs, sizeof logs, &e) < 0) return cli_fail(&e);
    if (exec_refresh(logs, &e) < 0) return cli_fail(&e);
    ledger *l = ledger_open_existing(logs, &e);
    if (!l) return cli_fail(&e);
    ledger_row *rows;
    size_t n;
    if (ledger_list(l, &rows, &n, &e) < 0) { ledger_close(l); return cli_fail(&e); }
    ledger_close(l);
    int counts[6] = {0};
    if (json) {
        json_writer w;
        json_begin(&w, stdout);
        json_obj_open(&w, NULL);
        json_str(&w, "logs_dir", logs);
        json_arr_open(&w, "runs");
        for (size_t i = 0; i < n; i++) {
            const ledger_row *r = &rows[i];
            json_obj_open(&w, NULL);
            json_str(&w, "name", r->name);
            json_str(&w, "state", ledger_state_name(r->state));
            if (r->job_id[0]) json_str(&w, "job_id", r->job_id); else json_null(&w, "job_id");
            json_num(&w, "predicted_step_time_s", r->predicted_step_s);
            if (r->step_time_s > 0) json_num(&w, "measured_step_time_s", r->step_time_s);
            else json_null(&w, "measured_step_time_s");
            if (r->reason[0]) json_str(&w, "reason", r->reason); else json_null(&w, "reason");
            json_obj_close(&w);
        }
        json_arr_close(&w);
        json_obj_close(&w);
        json_end(&w);
        free(rows);
        return 0;
    }
    printf("%-10s %-14s %10s %10s %8s  %s\n", "state", "job id", "predicted", "measured", "error", "name / reason");
    for (size_t i = 0; i < n; i++) {
        const ledger_row *r = &rows[i];
        counts[r->state]++;
        char meas[32] = "-", err[32] = "-";
        if (r->step_time_s > 0) snprintf(meas, sizeof meas, "%.4fs", r->step_time_s);
        if (r->step_time_s > 0 && r->predicted_step_s > 0)
            snprintf(err, sizeof err, "%+.1f%%", 100.0 * (r->predicted_step_s - r->step_time_s) / r->step_time_s);
        printf("%-10s %-14s %9.4fs %10s %8s  %s%s%s\n", ledger_state_name(r->state), r->job_id[0] ? r->job_id : "-",
               r->predicted_step_s, meas, err, r->name, r->reason[0] ? ": " : "", r->reason);
    }
    printf("%zu runs: %d done, %d failed, %d running, %d pending\n", n, counts[LEDGER_DONE], counts[LEDGER_FAILED],
           counts[LEDGER_RUNNING], counts[LEDGER_PENDING] + counts[LEDGER_PLANNED] + counts[LEDGER_SUBMITTING]);
    free(rows);
    return 0;
}

int cmd_cancel(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: autoconfig cancel [--json] [LOGS_DIR | key=value ...]\n"
               "Cancels every unfinished job of the search whose ledger is in LOGS_DIR (scancel for\n"
               "Slurm jobs, SIGTERM to local process groups) and marks them failed. Jobs the ledger\n"
               "does not list are never touched.\n");
        return 0;
    }
    ac_err e;
    char logs[1024];
    int n;
    bool json = take_json_flag(&argc, argv);
    if (logs_dir_arg(argc, argv, logs, sizeof logs, &e) < 0) return cli_fail(&e);
    if (exec_cancel_all(logs, &n, &e) < 0) return cli_fail(&e);
    if (json) {
        json_writer w;
        json_begin(&w, stdout);
        json_obj_open(&w, NULL);
        json_int(&w, "cancelled", n);
        json_obj_close(&w);
        json_end(&w);
    } else {
        printf("cancelled %d job%s\n", n, n == 1 ? "" : "s");
    }
    return 0;
}

/* ---- emulate-job ---- */

static void sleep_s(double s) { proc_sleep_ms((long)(s * 1000.0)); }

/* <logs>/candidate_configs/<name>.yaml → <logs>/training_logs/<name>/results; else ./results */
static void default_results_dir(const char *cand, char *out, size_t len)
{
    const char *slash = strrchr(cand, '/');
    const char *base = slash ? slash + 1 : cand;
    size_t bl = strlen(base);
    if (bl > 5 && !strcmp(base + bl - 5, ".yaml")) bl -= 5;
    const char *mark = strstr(cand, "candidate_configs/");
    if (mark && mark + 18 == base)
        snprintf(out, len, "%.*straining_logs/%.*s/results", (int)(mark - cand), cand, (int)bl, base);
    else snprintf(out, len, "results");
}

static int emulate_usage(FILE *f, int status)
{
    fprintf(f, "usage: autoconfig emulate-job CONFIG.yaml [--gpu NAME] [--step-time S] [--steps N] [--sleep S]\n"
               "                               [--scale F] [--noise F] [--mem-scale F] [--fail oom|error]\n"
               "                               [--results-dir DIR] [--nemo-conf DIR]\n"
               "An EMULATED training job for machines without GPUs: sleeps briefly, then writes a\n"
               "TensorBoard event file with \"train_step_timing in s\" values and a NeMo-like log into\n"
               "the run's results dir (default: the config's exp_manager.explicit_log_dir, as NeMo).\n"
               "CONFIG is the file NeMo would be handed (the job's resolved <name>_hydra.yaml).\n"
               "It first plays NeMo's start-up and fails as NeMo would on: an interpolation NeMo\n"
               "cannot resolve, a Llama 3 config with a SentencePiece tokenizer, TP or CP > 1 without\n"
               "CUDA_DEVICE_MAX_CONNECTIONS=1, and (with --nemo-conf DIR or AUTOCONFIG_NEMO_CONF, the\n"
               "folder of NeMo's megatron_*_config.yaml) a model key NeMo does not know.\n"
               "The step time is the estimator's prediction for the candidate on GPU NAME (catalog\n"
               "name; default a100_80gb, the job template passes {gpu}) with the compiled-in constants.\n"
               "A candidate predicted not to fit in memory prints the CUDA out-of-memory text on\n"
               "stderr and exits 1, as does --fail oom (--fail error: a generic failure).\n"
               "Perturbations, to emulate a cluster that differs from the estimator (for tests of\n"
               "`autoconfig calibrate`); defaults from the environment in brackets:\n"
               "  --scale F      step time x F                               [AUTOCONFIG_EMULATE_SCALE, 1]\n"
               "  --noise F      step time x (1 + F u), u in [-1,1] fixed by a hash of run.name\n"
               "                                                             [AUTOCONFIG_EMULATE_NOISE, 0]\n"
               "  --mem-scale F  memory need x F before the fit check       [AUTOCONFIG_EMULATE_MEM_SCALE, 1]\n"
               "--step-time S replaces the prediction; --steps defaults to trainer.max_steps.\n");
    return status;
}

int cmd_emulate_job(int argc, char **argv)
{
    const char *cand = NULL, *fail = NULL, *rdir = NULL, *gpu = NULL, *scale_s = NULL, *noise_s = NULL, *mem_s = NULL;
    const char *nemo_conf = getenv("AUTOCONFIG_NEMO_CONF");
    double step = -1, sleep_total = -1;
    long steps = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return emulate_usage(stdout, 0);
        if (!strcmp(a, "--step-time") && v) { step = strtod(v, NULL); i++; }
        else if (!strcmp(a, "--steps") && v) { steps = strtol(v, NULL, 10); i++; }
        else if (!strcmp(a, "--sleep") && v) { sleep_total = strtod(v, NULL); i++; }
        else if (!strcmp(a, "--fail") && v) { fail = v; i++; }
        else if (!strcmp(a, "--results-dir") && v) { rdir = v; i++; }
        else if (!strcmp(a, "--gpu") && v) { gpu = v; i++; }
        else if (!strcmp(a, "--scale") && v) { scale_s = v; i++; }
        else if (!strcmp(a, "--noise") && v) { noise_s = v; i++; }
        else if (!strcmp(a, "--mem-scale") && v) { mem_s = v; i++; }
        else if (!strcmp(a, "--nemo-conf") && v) { nemo_conf = v; i++; }
        else if (a[0] == '-') { fprintf(stderr, "autoconfig: error: emulate-job: unknown or incomplete option '%s'\n", a); return 2; }
        else if (!cand) cand = a;
        else { fprintf(stderr, "autoconfig: error: emulate-job: unexpected argument '%s'\n", a); return 2; }
    }
    if (!cand) return emulate_usage(stderr, 2);
    if (fail && strcmp(fail, "oom") && strcmp(fail, "error")) {
        fprintf(stderr, "autoconfig: error: emulate-job: --fail takes oom or error, not '%s'\n", fail);
        return 2;
    }
    if ((step != -1 && !(step > 0 && step < 1e6)) || (steps != -1 && (steps < 1 || steps > 1000000)) ||
        (sleep_total != -1 && !(sleep_total >= 0 && sleep_total < 1e6))) {
        fprintf(stderr, "autoconfig: error: emulate-job: --step-time needs (0, 1e6) s, --steps 1 to 1000000, --sleep [0, 1e6) s\n");
        return 2;
    }
    double scale, noise, mem_scale;
    if (emulate_knob(scale_s, "AUTOCONFIG_EMULATE_SCALE", 1.0, 0.01, 100.0, &scale) < 0 ||
        emulate_knob(noise_s, "AUTOCONFIG_EMULATE_NOISE", 0.0, 0.0, 0.9, &noise) < 0 ||
        emulate_knob(mem_s, "AUTOCONFIG_EMULATE_MEM_SCALE", 1.0, 0.01, 100.0, &mem_scale) < 0) {
        fprintf(stderr, "autoconfig: error: emulate-job: --scale and --mem-scale (or AUTOCONFIG_EMULATE_SCALE, "
                        "AUTOCONFIG_EMULATE_MEM_SCALE) take a number in [0.01, 100], --noise "
                        "(AUTOCONFIG_EMULATE_NOISE) one in [0, 0.9]\n");
        return 2;
    }
    ac_err e;
    /* NeMo's start-up first: what it refuses never reaches a training step */
    node *job = yaml_load_file(cand, &e);
    if (!job) return cli_fail(&e);
    char why[1024];
    int refused = nemo_startup_check(job, nemo_conf, getenv("CUDA_DEVICE_MAX_CONNECTIONS"), why, sizeof why, &e);
    const char *log_dir = node_text(node_get_path(job, "exp_manager.explicit_log_dir"));
    char results[2048];
    if (rdir) snprintf(results, sizeof results, "%s", rdir);
    else if (log_dir && !node_is_null(node_get_path(job, "exp_manager.explicit_log_dir")))
        snprintf(results, sizeof results, "%s", log_dir);
    else default_results_dir(cand, results, sizeof results);
    node_free(job);
    if (refused < 0) return cli_fail(&e);
    if (refused) {
        fprintf(stderr, "autoconfig emulate-job: EMULATED NeMo start-up of %s failed:\n%s\n", cand, why);
        return 1;
    }
    exec_prediction pred;
    if (exec_predict_candidate(cand, gpu, NULL, &pred, &e) < 0) {
        /* with --step-time or --fail a config the estimator cannot read still runs (assumed to fit) */
        if (step < 0 && !fail) return cli_fail(&e);
        memset(&pred, 0, sizeof pred);
        snprintf(pred.gpu, sizeof pred.gpu, "%s", gpu ? gpu : "an unknown GPU");
        pred.fits = 1;
        pred.limit_gib = INFINITY;
    }
    node *cfg = yaml_load_file(cand, &e);
    if (!cfg) return cli_fail(&e);
    long long ms = 50;
    if (steps < 0 && node_get_int(node_get_path(cfg, "trainer.max_steps"), &ms) && ms > 0) steps = (long)ms;
    if (steps < 0) steps = 50;
    node_free(cfg);
    if (step < 0) step = pred.step_s * exec_emulate_factor(pred.run_name, scale, noise);
    if (sleep_total < 0) sleep_total = fmin(1.0, step * (double)steps);
    double mem_need = pred.mem_gib * mem_scale;
    int fits = mem_need <= pred.limit_gib;

    printf("autoconfig emulate-job: EMULATION, no GPU is used: %s on %s, %ld steps at %.4f s "
           "(estimator %.4f s, scale %g, noise %g), memory %.1f of %.1f GiB\n",
           cand, pred.gpu, steps, step, pred.step_s, scale, noise, mem_need, pred.limit_gib);
    fflush(stdout);
    if (fail || !fits) {
        sleep_s(fmin(sleep_total, 0.2));
        if (fail && !strcmp(fail, "error"))
            fprintf(stderr, "RuntimeError: emulated training failure (autoconfig emulate-job --fail error)\n");
        else if (fail)
            fprintf(stderr, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB "
                            "(emulated by autoconfig emulate-job --fail oom)\n");
        else
            fprintf(stderr, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB; %.2f GiB needed, "
                            "%.2f GiB usable (emulated by autoconfig emulate-job)\n", mem_need, pred.limit_gib);
        return 1;
    }
    if (fs_mkdir_p(results, &e) < 0) return cli_fail(&e);

    double *vals = malloc((size_t)steps * sizeof *vals);
    if (!vals) { ac_err_set(&e, AC_E_NOMEM, "out of memory"); return cli_fail(&e); }
    strbuf log;
    sb_init(&log);
    sb_printf(&log, "[NeMo I] autoconfig emulate-job: EMULATED training run of %s (no GPU)\n", cand);
    for (long i = 0; i < steps; i++) {
        /* the first steps are slow (warm-up), the rest within ±1% of the step time */
        double jitter = 0.01 * sin((double)i * 1.7);
        vals[i] = step * (i < 2 ? 3.0 : 1.0 + jitter);
        sb_printf(&log, "Epoch 0: : %ld/%ld [reduced_train_loss=%.3f, global_step=%ld.0, train_step_timing in s=%.4f]\n",
                  i + 1, steps, 11.0 - 4.0 * (double)i / (double)steps, i, vals[i]);
        sleep_s(sleep_total / (double)steps);
    }
    char path[2300], host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    snprintf(path, sizeof path, "%s/events.out.tfevents.%ld.%s.%d.0", results, (long)time(NULL), host, (int)getpid());
    int rc = tfev_write_file(path, TFEV_TAG, vals, (size_t)steps, 0, &e);
    if (!rc) {
        snprintf(path, sizeof path, "%s/emulated_train.log", results);
        rc = log.oom ? ac_err_set(&e, AC_E_NOMEM, "out of memory") : fs_write_atomic(path, log.s, log.len, &e);
    }
    free(vals);
    sb_free(&log);
    if (rc < 0) return cli_fail(&e);
    printf("autoconfig emulate-job: wrote %ld step timings to %s\n", steps, results);
    return 0;
}

/* ---- launch ---- */

/* --no-wait: submit, then a summary job (afterany) that runs this same launch again */
static int submit_with_summary(const ac_config *c, const cli_opts *o, const char *cand_dir, const exec_job *jobs,
                               size_t n, exec_outcome *out, ac_err *e)
{
    if (exec_submit_all(c, c->train.logs, jobs, n, out, e) < 0) return -1;
    char self[1024], cwd[1024], sid[64];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl <= 0 || !getcwd(cwd, sizeof cwd)) return ac_err_set(e, AC_E_EXEC, "cannot find the tool's own path or directory");
    self[sl] = '\0';
    const char **argv = calloc((size_t)o->n_overrides + 9, sizeof *argv);
    if (!argv) return ac_err_set(e, AC_E_NOMEM, "out of memory");
    size_t k = 0;
    argv[k++] = self;
    argv[k++] = "launch";
    argv[k++] = "--quiet";
    argv[k++] = "--conf";
    argv[k++] = c->conf_dir;
    if (cand_dir) { argv[k++] = "--candidates"; argv[k++] = cand_dir; }
    for (int i = 0; i < o->n_overrides; i++) argv[k++] = o->overrides[i];
    argv[k++] = "search_config.train_settings.retry_failed=false"; /* the summary collects; it retries nothing */
    int rc = exec_submit_summary(c, c->train.logs, cwd, argv, out, n, sid, sizeof sid, e);
    free(argv);
    if (rc < 0) return -1;
    size_t open = 0;
    for (size_t i = 0; i < n; i++) open += out[i].state == EXEC_PENDING || out[i].state == EXEC_RUNNING;
    char sum_out[1200];
    snprintf(sum_out, sizeof sum_out, "%s/summary-%s.out", c->train.logs, sid);
    if (o->json) {
        json_writer w;
        json_begin(&w, stdout);
        json_obj_open(&w, NULL);
        json_str(&w, "logs_dir", c->train.logs);
        json_int(&w, "jobs", (long long)n);
        json_int(&w, "not_ended", (long long)open);
        json_str(&w, "summary_job", sid);
        json_str(&w, "summary_output", sum_out);
        json_obj_close(&w);
        json_end(&w);
        return 0;
    }
    printf("submitted: %zu training job%s not yet ended (of %zu); summary job %s runs `autoconfig launch` after all of "
           "them (afterany), output %s; `autoconfig status %s` shows progress\n",
           open, open == 1 ? "" : "s", n, sid, sum_out, c->train.logs);
    return 0;
}

static int yaml_name_cmp(const void *a, const void *b) { return strcmp(((const exec_job *)a)->name, ((const exec_job *)b)->name); }

int cmd_launch(int argc, char **argv)
{
    cli_opts o;
    ac_err e;
    ac_config c;
    if (cli_parse(argc, argv, &o, &e) < 0) { cli_opts_free(&o); return cli_fail(&e); }
    if (o.help) {
        printf("usage: autoconfig launch [--json] [--candidates DIR] [--no-wait | --dry-run] [--retry-failed] [key=value ...]\n"
               "Runs every candidate config (*.yaml) in DIR (default <logs>/candidate_configs) as a\n"
               "training job on cluster_type=bcm (Slurm) or local, waits for all of them with a\n"
               "progress line, and prints each measured step time. Resumable: run it again after an\n"
               "interruption and finished or running jobs are not submitted again (ledger in <logs>).\n"
               "`autoconfig run` with the same settings and cluster_type ranks these measurements in\n"
               "<logs>/final_result and the report without launching them again.\n"
               "--no-wait (Slurm): submit and return; a summary job that depends on every training\n"
               "job (afterany) runs this same command when they have all ended and writes the\n"
               "summary to <logs>/summary-<id>.out.\n"
               "--dry-run: write each job's files into <logs>/training_logs/<name>/ (job.sh, the\n"
               "resolved NeMo config <name>_hydra.yaml, job.argv on Slurm) and submit nothing.\n"
               "--retry-failed: runs that failed before are launched again (retry_failed=true);\n"
               "a run whose config, GPU or node count changed is always measured anew.\n");
        cli_opts_free(&o);
        return 0;
    }
    static const char *const known[] = { "--candidates=", "--no-wait", "--dry-run", "--retry-failed", NULL };
    if (cli_check_flags(&o, known, &e) < 0 || cli_load_config(&o, &c, &e) < 0) { cli_opts_free(&o); return cli_fail(&e); }
    if (cli_flag_present(&o, "--retry-failed")) c.train.retry_failed = true;
    const gpu_spec *gpu = candidate_gpu(&c, &e);
    est_cal cal; /* the cluster's calibration, as the search predicts */
    bool cal_loaded;
    if (!gpu || candidate_cal_load(&c, &cal, &cal_loaded, &e) < 0) { cfg_free(&c); cli_opts_free(&o); return cli_fail(&e); }
    char dir[760];
    const char *cd = cli_flag_value(&o, "--candidates");
    int dl = cd ? snprintf(dir, sizeof dir, "%s", cd) : snprintf(dir, sizeof dir, "%.700s/candidate_configs", c.train.logs);
    exec_job *jobs = NULL;
    size_t n = 0, cap = 0;
    DIR *d = opendir(dir);
    int rc = 0;
    if (dl < 0 || (size_t)dl >= sizeof dir) rc = ac_err_set(&e, AC_E_INPUT, "candidate directory path too long");
    else if (!d) rc = ac_err_set(&e, AC_E_INPUT, "%s: cannot open the candidate directory: %s", dir, strerror(errno));
    struct dirent *de;
    while (!rc && (de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l <= 5 || strcmp(de->d_name + l - 5, ".yaml") || de->d_name[0] == '.') continue;
        if (n == cap) {
            exec_job *nj = realloc(jobs, (cap = cap ? cap * 2 : 16) * sizeof *nj);
            if (!nj) { rc = ac_err_set(&e, AC_E_NOMEM, "out of memory"); break; }
            jobs = nj;
        }
        exec_job *j = &jobs[n++];
        memset(j, 0, sizeof *j);
        snprintf(j->name, sizeof j->name, "%.*s", (int)(l - 5), de->d_name);
        snprintf(j->config_path, sizeof j->config_path, "%s/%.250s", dir, de->d_name);
        j->nodes = c.train.num_nodes;
        j->gpus_per_node = c.cluster.gpus_per_node > 0 ? c.cluster.gpus_per_node : c.train.gpus_per_node;
        /* the prediction shown beside the measurement; 0 (none) for a config the estimator cannot read */
        exec_prediction p;
        ac_err pe;
        j->predicted_step_s = exec_predict_candidate(j->config_path, gpu->name, &cal, &p, &pe) < 0 ? 0 : p.step_s;
    }
    if (d) closedir(d);
    if (!rc && n == 0) rc = ac_err_set(&e, AC_E_INPUT, "%s: no candidate configs (*.yaml)", dir);
    exec_outcome *out = NULL;
    if (!rc) {
        qsort(jobs, n, sizeof *jobs, yaml_name_cmp);
        out = calloc(n, sizeof *out);
        if (!out) rc = ac_err_set(&e, AC_E_NOMEM, "out of memory");
    }
    bool no_wait = cli_flag_present(&o, "--no-wait"), dry = cli_flag_present(&o, "--dry-run");
    if (!rc && dry) {
        /* it writes into the run folders: not while another autoconfig drives this logs dir */
        bool locked = dirlock_acquire(c.train.logs, "logs dir", &e) == 0;
        if (!locked) rc = -1;
        for (size_t i = 0; i < n && !rc; i++) {
            rc = exec_write_job_files(&c, c.train.logs, &jobs[i], &e);
            if (!rc && !o.json) printf("%s/training_logs/%s/job.sh\n", c.train.logs, jobs[i].name);
        }
        if (locked) dirlock_release(c.train.logs);
        if (!rc && !o.json) printf("--dry-run: %zu job%s written, nothing submitted\n", n, n == 1 ? "" : "s");
        if (!rc && o.json) {
            json_writer w;
            json_begin(&w, stdout);
            json_obj_open(&w, NULL);
            json_arr_open(&w, "written");
            for (size_t i = 0; i < n; i++) {
                char p[1400];
                snprintf(p, sizeof p, "%s/training_logs/%s", c.train.logs, jobs[i].name);
                json_str(&w, NULL, p);
            }
            json_arr_close(&w);
            json_obj_close(&w);
            json_end(&w);
        }
        free(jobs);
        free(out);
        cfg_free(&c);
        cli_opts_free(&o);
        return rc ? cli_fail(&e) : 0;
    }
    if (!rc && no_wait) {
        rc = submit_with_summary(&c, &o, cd, jobs, n, out, &e);
    } else if (!rc) {
        rc = exec_run_all(&c, c.train.logs, jobs, n, out, o.quiet ? NULL : stderr, &e);
    }
    if (!rc && !no_wait && o.json) {
        json_writer w;
        json_begin(&w, stdout);
        json_obj_open(&w, NULL);
        json_arr_open(&w, "runs");
        for (size_t i = 0; i < n; i++) {
            json_obj_open(&w, NULL);
            json_str(&w, "name", jobs[i].name);
            json_str(&w, "state", out[i].state == EXEC_DONE ? "done" : "failed");
            if (out[i].job_id[0]) json_str(&w, "job_id", out[i].job_id); else json_null(&w, "job_id");
            json_num(&w, "predicted_step_time_s", jobs[i].predicted_step_s > 0 ? jobs[i].predicted_step_s : NAN);
            json_num(&w, "measured_step_time_s", out[i].state == EXEC_DONE ? out[i].step_time_s : NAN);
            json_int(&w, "timing_values", out[i].n_steps);
            if (out[i].reason[0]) json_str(&w, "reason", out[i].reason); else json_null(&w, "reason");
            json_obj_close(&w);
        }
        json_arr_close(&w);
        json_obj_close(&w);
        json_end(&w);
    } else if (!rc && !no_wait) {
        for (size_t i = 0; i < n; i++) {
            if (out[i].state == EXEC_DONE)
                printf("done    %-10s %.4f s/step (%d values)  %s\n", out[i].job_id, out[i].step_time_s, out[i].n_steps, jobs[i].name);
            else
                printf("failed  %-10s %s  %s\n", out[i].job_id[0] ? out[i].job_id : "-", out[i].reason, jobs[i].name);
        }
    }
    free(out);
    free(jobs);
    cfg_free(&c);
    cli_opts_free(&o);
    return rc ? cli_fail(&e) : 0;
}

/* ---- calibrate ---- */

/* the GPU a search ran on: cluster.gpu of <logs>/final_result/summary.json ("" when absent) */
static void summary_gpu(const char *logs, char *out, size_t len)
{
    char path[1200];
    size_t n;
    ac_err e;
    out[0] = '\0';
    snprintf(path, sizeof path, "%s/final_result/summary.json", logs);
    if (!fs_exists(path)) return;
    char *text = fs_read_file(path, &n, &e);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "cluster"), "gpu");
    if (cJSON_IsString(g)) snprintf(out, len, "%s", g->valuestring);
    cJSON_Delete(root);
    free(text);
}

static const char CALIBRATE_HELP[] =
    "usage: autoconfig calibrate [LOGS_DIR] [--out FILE] [--gpu NAME] [--dry-run] [key=value ...]\n"
    "Fits the estimator's cluster constants (compute_scale: sustained tensor-core rate vs the\n"
    "GPU catalog; step_overhead_s: per-step host cost, when 3 runs differ 1.5x in length) to\n"
    "the measured runs"
    " in the ledger of LOGS_DIR (default train_settings.logs), by least squares on\n"
    "log(predicted/measured), and prints the error before and after. The result goes to\n"
    "<conf>/cluster/calibration_<cluster>.csv (cluster: the defaults list's choice, bcm),\n"
    "which every later search on that cluster loads; --out writes elsewhere, --dry-run\n"
    "writes nothing. GPU: --gpu, else the search's (final_result/summary.json), else the\n"
    "config's.\n";

int cmd_calibrate(int argc, char **argv)
{
    /* LOGS_DIR: the first word that is no override, no option and no option's value
     * (so `calibrate --json DIR` works as well as `calibrate DIR --json`) */
    const char *logs_pos = NULL;
    static const char *const with_value[] = { "--out", "--gpu", "--conf", NULL };
    for (int i = 1; i < argc && !logs_pos; i++) {
        bool is_value = false;
        for (int k = 0; with_value[k] && i > 1; k++) is_value |= !strcmp(argv[i - 1], with_value[k]);
        if (argv[i][0] == '-' || strchr(argv[i], '=') || is_value) continue;
        logs_pos = argv[i];
        for (int j = i; j + 1 < argc; j++) argv[j] = argv[j + 1];
        argc--;
    }
    cli_opts o;
    ac_err e;
    ac_config c;
    if (cli_parse(argc, argv, &o, &e) < 0) { cli_opts_free(&o); return cli_fail(&e); }
    if (o.help) { fputs(CALIBRATE_HELP, stdout); cli_opts_free(&o); return 0; }
    static const char *const known[] = { "--out=", "--gpu=", "--dry-run", NULL };
    if (cli_check_flags(&o, known, &e) < 0 || cli_load_config(&o, &c, &e) < 0) { cli_opts_free(&o); return cli_fail(&e); }
    char logs[1024], gpu[64], out[CFG_PATH_MAX + 200];
    snprintf(logs, sizeof logs, "%s", logs_pos ? logs_pos : c.train.logs);
    const char *gflag = cli_flag_value(&o, "--gpu"), *oflag = cli_flag_value(&o, "--out");
    bool dry = cli_flag_present(&o, "--dry-run");
    int rc = 0;
    est_cal start;
    bool loaded;
    calib_result r = {0};
    const gpu_spec *cg = NULL;
    if (gflag) snprintf(gpu, sizeof gpu, "%s", gflag);
    else summary_gpu(logs, gpu, sizeof gpu);
    if (!gpu[0]) {
        if (!(cg = candidate_gpu(&c, &e))) rc = -1;
        else snprintf(gpu, sizeof gpu, "%s", cg->name);
    }
    if (!rc) rc = candidate_cal_load(&c, &start, &loaded, &e);
    if (!rc && oflag) snprintf(out, sizeof out, "%s", oflag);
    else if (!rc) rc = candidate_cal_path(&c, out, sizeof out, &e);
    if (!rc) rc = calib_fit(logs, gpu, &start, &r, &e);
    if (!rc && o.json) {
        if (!dry) rc = calib_write(out, &r, logs, &e);
        if (!rc) {
            json_writer w;
            json_begin(&w, stdout);
            json_obj_open(&w, NULL);
            json_str(&w, "cluster", c.cluster_name);
            json_str(&w, "gpu", r.gpu);
            json_obj_open(&w, "compute_scale");
            json_num(&w, "before", r.before.compute_scale);
            json_num(&w, "after", r.after.compute_scale);
            json_obj_close(&w);
            json_obj_open(&w, "step_overhead_s");
            json_num(&w, "before", r.before.step_overhead_s);
            json_num(&w, "after", r.after.step_overhead_s);
            json_bool(&w, "fitted", r.fitted_overhead);
            json_obj_close(&w);
            json_arr_open(&w, "runs");
            for (size_t i = 0; i < r.n_runs; i++) {
                json_obj_open(&w, NULL);
                json_str(&w, "name", r.runs[i].name);
                json_num(&w, "measured_s", r.runs[i].measured_s);
                json_num(&w, "predicted_before_s", r.runs[i].before_s);
                json_num(&w, "predicted_after_s", r.runs[i].after_s);
                json_obj_close(&w);
            }
            json_arr_close(&w);
            json_num(&w, "median_abs_err_before_pct", r.median_err_before);
            json_num(&w, "median_abs_err_after_pct", r.median_err_after);
            if (dry) json_null(&w, "written"); else json_str(&w, "written", out);
            json_obj_close(&w);
            json_end(&w);
        }
    } else if (!rc) {
        printf("Calibration of cluster %s on %s from %zu measured run%s of %s", c.cluster_name[0] ? c.cluster_name : "-",
               r.gpu, r.n_runs, r.n_runs == 1 ? "" : "s", logs);
        if (r.n_unused) printf(" (%zu ledger row%s not used: failed, unfinished or config gone)", r.n_unused, r.n_unused == 1 ? "" : "s");
        printf("\n  compute_scale    %.4f -> %.4f\n  step_overhead_s  %.4f -> %.4f%s\n", r.before.compute_scale,
               r.after.compute_scale, r.before.step_overhead_s, r.after.step_overhead_s,
               r.fitted_overhead ? "" : " (kept: needs 3 runs whose predicted steps differ 1.5x)");
        printf("  %10s %10s %8s %10s %8s  %s\n", "measured", "before", "error", "after", "error", "run");
        for (size_t i = 0; i < r.n_runs; i++) {
            const calib_run *k = &r.runs[i];
            printf("  %9.4fs %9.4fs %+7.1f%% %9.4fs %+7.1f%%  %s\n", k->measured_s, k->before_s,
                   100.0 * (k->before_s / k->measured_s - 1.0), k->after_s, 100.0 * (k->after_s / k->measured_s - 1.0),
                   k->name);
        }
        printf("Median |error| of the predicted step time: %.1f%% before, %.1f%% after\n", r.median_err_before,
               r.median_err_after);
        if (dry) printf("--dry-run: nothing written\n");
        else if (!(rc = calib_write(out, &r, logs, &e)))
            printf("Written: %s%s\n", out, oflag ? "" : " (later searches on this cluster load it)");
    }
    calib_free(&r);
    cfg_free(&c);
    cli_opts_free(&o);
    return rc ? cli_fail(&e) : 0;
}
