/* exec.c — the executor common to every backend: job scripts from the command
 * template, the ledger-driven submit/poll loop with resume, result collection
 * (OOM text, step timing), cancel and refresh.  See exec.h for the design. */
#include "exec/exec.h"

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config/yaml_io.h"
#include "exec/backend.h"
#include "exec/job_config.h"
#include "results/candidate_cfg.h"
#include "results/ledger.h"
#include "results/tfevents.h"
#include "search/candidate_est.h"
#include "util/dirlock.h"
#include "util/fsutil.h"
#include "util/hash.h"
#include "util/proc.h"
#include "util/progress.h"
#include "util/shell.h"
#include "util/strbuf.h"

static const char *const STATE_NAMES[] = { "pending", "running", "done", "failed" };

const char *exec_state_name(exec_state s)
{
    return (unsigned)s < 4 ? STATE_NAMES[s] : "?";
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* absolute: the job script, the local executor and sbatch --chdir all change directory */
int exec_run_dir(const char *logs_dir, const char *name, char *buf, size_t len, ac_err *e)
{
    char abs_logs[4096];
    if (fs_abspath(logs_dir, abs_logs, sizeof abs_logs, e) < 0) return -1;
    int n = snprintf(buf, len, "%s/training_logs/%s", abs_logs, name);
    if (n < 0 || (size_t)n >= len) return ac_err_set(e, AC_E_INPUT, "run directory path too long for %s", name);
    return 0;
}

void exec_slurm_job_name(const char *prefix, const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s", prefix ? prefix : "", name);
}

/* A run name becomes a directory and part of Slurm file patterns: no '/', no
 * '%' or '\' (Slurm's filename pattern escapes), no control characters, not "." or "..". */
static int check_job(const exec_job *j, ac_err *e)
{
    if (!j->name[0] || !strcmp(j->name, ".") || !strcmp(j->name, ".."))
        return ac_err_set(e, AC_E_INPUT, "job name \"%s\" is not a usable run name", j->name);
    if (strpbrk(j->name, "/%\\"))
        return ac_err_set(e, AC_E_INPUT, "job name \"%s\": '/', '%%' and '\\' are not allowed", j->name);
    if (shell_check_line("job name", j->name, e) < 0) return -1;
    if (shell_check_line("job config path", j->config_path, e) < 0) return -1;
    if (j->nodes < 1 || j->gpus_per_node < 1)
        return ac_err_set(e, AC_E_INPUT, "job %s: nodes and gpus_per_node must be positive", j->name);
    return 0;
}

/* ---- the command template ---- */

/* the launcher's call (stages.py _make_nemo_call_string): the resolved file carries every
 * setting, so no command-line override is needed */
static const char DEFAULT_TEMPLATE[] =
    "{srun} python3 -u /opt/NeMo/examples/nlp/language_modeling/{train_script}"
    " --config-path={config_dir} --config-name={config_name}";

/* NeMo's pretraining script by model family; anything else is GPT-like */
static const struct { const char *family, *script; } TRAIN_SCRIPTS[] = {
    { "t5", "megatron_t5_pretraining.py" },
    { "mt5", "megatron_t5_pretraining.py" },
    { "bert", "megatron_bert_pretraining.py" },
};

static const char *train_script(const char *family)
{
    for (size_t i = 0; i < sizeof TRAIN_SCRIPTS / sizeof TRAIN_SCRIPTS[0]; i++)
        if (!strcmp(family, TRAIN_SCRIPTS[i].family)) return TRAIN_SCRIPTS[i].script;
    return "megatron_gpt_pretraining.py";
}

/* the template text: environment, then <conf>/cluster/job_command.txt, then the default (malloc'd) */
static char *load_template(const ac_config *c, ac_err *e)
{
    const char *env = getenv("AUTOCONFIG_JOB_TEMPLATE");
    char *t = NULL;
    if (env && *env) t = strdup(env);
    else {
        char path[2048];
        snprintf(path, sizeof path, "%s/cluster/job_command.txt", c->conf_dir);
        if (c->conf_dir[0] && fs_exists(path)) {
            size_t len;
            t = fs_read_file(path, &len, e);
            if (!t) return NULL;
            while (len && (t[len - 1] == '\n' || t[len - 1] == '\r')) t[--len] = '\0';
        } else t = strdup(DEFAULT_TEMPLATE);
    }
    if (!t) ac_err_set(e, AC_E_NOMEM, "out of memory");
    return t;
}

static void self_exe(char *buf, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    if (n <= 0) snprintf(buf, len, "autoconfig");
    else buf[n] = '\0';
}

static int is_pyxis_flag(const char *a)
{
    return !strncmp(a, "--container", 11) || !strncmp(a, "--no-container", 14);
}

/* one container mount "src[:dst[:flags]]" or "path" (path:path); pyxis splits the list at
 * commas, so a comma inside one entry would add mounts nobody asked for */
static int add_mount(strbuf *m, const char *mt, ac_err *e)
{
    if (!mt[0] || !strcmp(mt, "None") || !strcmp(mt, "null")) return 0;
    if (strchr(mt, ','))
        return ac_err_set(e, AC_E_INPUT, "container_mounts entry \"%s\": a ',' would split it into several mounts "
                                         "(give each mount as its own list entry)", mt);
    if (strchr(mt, ':')) sb_printf(m, ",%s", mt);
    else sb_printf(m, ",%s:%s", mt, mt);
    return 0;
}

/* "srun [--container-image I --container-mounts M] [srun_args]": pyxis flags only with an image.
 * The image is cluster.container_image, else training_container; the mounts are the launcher's
 * (launcher_scripts_path, data_dir, base_results_dir: stages.py _make_container_mounts_string),
 * the logs directory and container_mounts. */
static int build_srun(const ac_config *c, const char *logs_dir, const node *job_cfg, strbuf *sb, ac_err *e)
{
    const char *image = exec_container_image(c);
    sb_add(sb, "srun");
    if (exec_job_needs_pmix(job_cfg)) sb_add(sb, " --mpi=pmix");
    if (image[0]) {
        sb_add(sb, " --container-image ");
        if (shell_quote_add(sb, image, e)) return -1;
        strbuf m;
        sb_init(&m);
        sb_printf(&m, "%s:%s", logs_dir, logs_dir);
        const char *launcher_dirs[] = { c->launcher_scripts_path, c->data_dir, c->base_results_dir };
        int rc = 0;
        for (size_t i = 0; i < 3 && !rc; i++) {
            char abs[CFG_PATH_MAX + 64];
            if (!launcher_dirs[i][0]) continue;
            rc = fs_abspath_norm(launcher_dirs[i], abs, sizeof abs, e);
            if (!rc) rc = add_mount(&m, abs, e);
        }
        for (int i = 0; i < c->n_container_mounts && !rc; i++) rc = add_mount(&m, c->container_mounts[i], e);
        if (!rc && !sb_str(&m)) rc = ac_err_set(e, AC_E_NOMEM, "out of memory");
        if (!rc) {
            sb_add(sb, " --container-mounts ");
            rc = shell_quote_add(sb, sb_str(&m), e);
        }
        sb_free(&m);
        if (rc) return rc;
    }
    for (int i = 0; i < c->cluster.n_srun_args; i++) {
        const char *a = c->cluster.srun_args[i];
        if (!a[0] || (!image[0] && is_pyxis_flag(a))) continue;
        sb_add(sb, " ");
        if (shell_quote_add(sb, a, e)) return -1;
    }
    return 0;
}

/* expands the template; every placeholder value is single-quoted */
static int render_command(const ac_config *c, const char *logs_dir, const exec_job *j, const char *run_dir,
                          const node *job_cfg, const char *tmpl, int slurm, strbuf *out, ac_err *e)
{
    char config_dir[1400], config_name[1400], results_dir[1300], nodes[16], gpn[16], steps[16], mins[16], pred[32],
        self[1024];
    char config_abs[1400], candidate_abs[1024];
    if (fs_abspath(j->config_path, candidate_abs, sizeof candidate_abs, e) < 0) return -1;
    /* the file NeMo reads is the resolved one in the run directory, named as the launcher names it */
    if (exec_job_config_path(run_dir, j->name, config_abs, sizeof config_abs, e) < 0) return -1;
    snprintf(config_dir, sizeof config_dir, "%s", run_dir);
    snprintf(config_name, sizeof config_name, "%s_hydra.yaml", j->name);
    snprintf(results_dir, sizeof results_dir, "%s/results", run_dir);
    snprintf(nodes, sizeof nodes, "%d", j->nodes);
    snprintf(gpn, sizeof gpn, "%d", j->gpus_per_node);
    snprintf(steps, sizeof steps, "%d", c->train.max_steps_per_run);
    snprintf(mins, sizeof mins, "%d", c->train.max_minutes_per_run);
    snprintf(pred, sizeof pred, "%.6g", j->predicted_step_s);
    self_exe(self, sizeof self);
    const gpu_spec *gpu = candidate_gpu(c, e);
    if (!gpu) return -1;
    const struct { const char *key, *val; } vars[] = {
        { "config", config_abs }, { "config_dir", config_dir }, { "config_name", config_name },
        { "candidate", candidate_abs },
        { "name", j->name }, { "run_dir", run_dir }, { "results_dir", results_dir },
        { "nodes", nodes }, { "gpus_per_node", gpn }, { "max_steps", steps }, { "max_minutes", mins },
        { "predicted_step_s", pred }, { "autoconfig", self },
        { "launcher_scripts_path", c->launcher_scripts_path }, { "data_dir", c->data_dir },
        { "train_script", train_script(c->family) }, { "gpu", gpu->name },
    };
    for (const char *p = tmpl; *p;) {
        /* "${VAR}" is the shell's, not a placeholder */
        if (*p != '{' || (p > tmpl && p[-1] == '$')) { sb_addn(out, p++, 1); continue; }
        const char *end = strchr(p, '}');
        size_t kl = end ? (size_t)(end - p - 1) : 0;
        if (!end || kl == 0 || kl > 32)
            return ac_err_set(e, AC_E_INPUT, "job command template: unmatched '{' at \"%.20s\"", p);
        char key[40];
        memcpy(key, p + 1, kl);
        key[kl] = '\0';
        if (!strcmp(key, "srun")) {
            if (slurm && build_srun(c, logs_dir, job_cfg, out, e) < 0) return -1;
        } else {
            size_t i = 0;
            while (i < sizeof vars / sizeof vars[0] && strcmp(vars[i].key, key)) i++;
            if (i == sizeof vars / sizeof vars[0])
                return ac_err_set(e, AC_E_INPUT, "job command template: unknown placeholder {%s}", key);
            if (shell_check_line(key, vars[i].val, e) < 0 || shell_quote_add(out, vars[i].val, e)) return -1;
        }
        p = end + 1;
    }
    return out->oom ? ac_err_set(e, AC_E_NOMEM, "out of memory") : 0;
}

/* per-run limit in seconds: max_minutes_per_run, or AUTOCONFIG_TIME_LIMIT_S (tests need
 * limits below the schema's 10-minute minimum; Slurm rounds it up to whole minutes) */
enum { EXEC_TIME_LIMIT_MAX_S = 100000 * 60 }; /* max_minutes_per_run's bound */

static int time_limit_s(const ac_config *c, ac_err *e)
{
    const char *tl = getenv("AUTOCONFIG_TIME_LIMIT_S");
    if (tl && *tl) {
        char *end;
        long long v = strtoll(tl, &end, 10);
        if (*end || v < 1 || v > EXEC_TIME_LIMIT_MAX_S)
            return ac_err_set(e, AC_E_INPUT, "AUTOCONFIG_TIME_LIMIT_S '%.32s' must be a number of seconds 1..%d", tl,
                              EXEC_TIME_LIMIT_MAX_S);
        return (int)v;
    }
    return c->train.max_minutes_per_run > 0 ? c->train.max_minutes_per_run * 60 : 60;
}

void exec_argv_free(char **argv)
{
    if (!argv) return;
    for (size_t i = 0; argv[i]; i++) free(argv[i]);
    free(argv);
}

static int argv_add(char ***argv, size_t *n, const char *fmt, const char *a, const char *b)
{
    char *s;
    size_t need = strlen(fmt) + strlen(a) + (b ? strlen(b) : 0) + 1;
    s = malloc(need);
    char **nv = realloc(*argv, (*n + 2) * sizeof *nv);
    if (!s || !nv) { free(s); if (nv) *argv = nv; return -1; }
    *argv = nv;
    snprintf(s, need, fmt, a, b ? b : "");
    nv[(*n)++] = s;
    nv[*n] = NULL;
    return 0;
}

static int directive(strbuf *sb, const char *what, const char *flag, const char *value, ac_err *e)
{
    if (shell_check_directive(what, value, e) < 0) return -1;
    sb_printf(sb, "#SBATCH --%s=%s\n", flag, value);
    return 0;
}

int exec_job_script(const ac_config *c, const char *logs_dir, const exec_job *j, char **script, char ***sbatch_argv,
                    node **job_cfg_out, ac_err *e)
{
    int slurm = !strcmp(c->cluster_type, "bcm");
    char run_dir[1200], buf[64];
    *script = NULL;
    if (sbatch_argv) *sbatch_argv = NULL;
    if (job_cfg_out) *job_cfg_out = NULL;
    if (check_job(j, e) < 0 || exec_run_dir(logs_dir, j->name, run_dir, sizeof run_dir, e) < 0) return -1;
    if (shell_check_line("logs dir", logs_dir, e) < 0 || strchr(logs_dir, '%'))
        return e->code ? -1 : ac_err_set(e, AC_E_INPUT, "logs dir \"%s\": '%%' is not allowed", logs_dir);
    node *job_cfg = NULL;
    if (j->script) {
        /* a ready script: no NeMo config to resolve, the command is `bash SCRIPT` */
        if (shell_check_line("job script", j->script, e) < 0) return -1;
        job_cfg = node_map();
        if (!job_cfg) return ac_err_set(e, AC_E_NOMEM, "out of memory");
    } else if ((j->candidate ? exec_job_config_of(c, j->candidate, j->config_path, run_dir, &job_cfg, e)
                             : exec_job_config(c, j->config_path, run_dir, &job_cfg, e)) < 0) {
        return -1;
    }
    /* the job's own size: a search run may use fewer nodes than the training (search_num_nodes) */
    if (node_get_path(job_cfg, "trainer") && node_set_path(job_cfg, "trainer.num_nodes", node_int(j->nodes), true) != 0) {
        node_free(job_cfg);
        return ac_err_set(e, AC_E_NOMEM, "out of memory");
    }
    char *tmpl = NULL;
    if (j->script) {
        char *q = shell_quote_dup(j->script, e);
        size_t n = q ? strlen(q) + 8 : 0;
        tmpl = q ? malloc(n) : NULL;
        if (tmpl) snprintf(tmpl, n, "bash %s", q);
        free(q);
        /* the template is literal text: braces in the quoted path are not placeholders */
        if (tmpl && strchr(tmpl, '{')) { free(tmpl); tmpl = NULL; ac_err_set(e, AC_E_INPUT, "job script path has '{': %s", j->script); }
        else if (!tmpl && !e->code) ac_err_set(e, AC_E_NOMEM, "out of memory");
    } else {
        tmpl = load_template(c, e);
    }
    if (!tmpl) { node_free(job_cfg); return -1; }
    strbuf sb;
    sb_init(&sb);
    sb_add(&sb, "#!/bin/bash\n");
    int rc = 0;
    if (slurm) {
        const cfg_cluster *k = &c->cluster;
        snprintf(buf, sizeof buf, "%d", j->nodes);
        rc |= directive(&sb, "nodes", "nodes", buf, e);
        snprintf(buf, sizeof buf, "%d", j->tasks_per_node > 0 ? j->tasks_per_node : j->gpus_per_node);
        rc |= directive(&sb, "ntasks-per-node", "ntasks-per-node", buf, e);
        snprintf(buf, sizeof buf, "%d", j->gpus_per_node);
        rc |= directive(&sb, "gpus_per_node", "gpus-per-node", buf, e);
        if (k->gpus_per_task > 0) {
            snprintf(buf, sizeof buf, "%d", k->gpus_per_task);
            rc |= directive(&sb, "cluster.gpus_per_task", "gpus-per-task", buf, e);
        }
        if (k->partition[0]) rc |= directive(&sb, "cluster.partition", "partition", k->partition, e);
        if (k->account[0]) rc |= directive(&sb, "cluster.account", "account", k->account, e);
        if (k->nodelist[0]) rc |= directive(&sb, "cluster.nodelist", "nodelist", k->nodelist, e);
        if (k->exclusive) sb_add(&sb, "#SBATCH --exclusive\n");
        snprintf(buf, sizeof buf, "%d", k->mem);
        rc |= directive(&sb, "cluster.mem", "mem", buf, e);
        int limit_s = j->time_limit_s > 0 ? j->time_limit_s : time_limit_s(c, e);
        if (limit_s < 0) { free(tmpl); sb_free(&sb); node_free(job_cfg); return -1; }
        results_time_limit_minutes((limit_s + 59) / 60, buf, sizeof buf);
        rc |= directive(&sb, "time", "time", buf, e);
        sb_add(&sb, "# job name, output and error files are sbatch arguments (see job.argv)\n");
    }
    if (rc) { free(tmpl); sb_free(&sb); node_free(job_cfg); return -1; }
    char *qdir = shell_quote_dup(run_dir, e);
    sb_printf(&sb, "# autoconfig training job (written by autoconfig; values are single-quoted)\nset -u\n"
                   "cd %s || exit 1\necho $$ > job.pid\n",
              qdir ? qdir : "''");
    free(qdir);
    if (!j->script && exec_job_env(c, job_cfg, &sb, e) < 0) { free(tmpl); sb_free(&sb); node_free(job_cfg); return -1; }
    sb_add(&sb, "# the command runs in a subshell: an `exec` in a template cannot skip the exit code below\n(\n");
    if (c->wandb_enable && c->wandb_api_key_file[0]) {
        /* the key is read when the job starts: only the file's path is in the script */
        char *qk = NULL, key_path[4096];
        if (exec_wandb_key_path(c, key_path, sizeof key_path, e) < 0 ||
            shell_check_line("wandb.api_key_file", key_path, e) < 0 ||
            !(qk = shell_quote_dup(key_path, e))) { free(tmpl); sb_free(&sb); node_free(job_cfg); return -1; }
        /* the key is the first line */
        sb_printf(&sb, "WANDB_API_KEY=$(head -n 1 %s) && [ -n \"$WANDB_API_KEY\" ] || "
                       "{ echo 'autoconfig: cannot read wandb.api_key_file' >&2; exit 1; }\n"
                       "export WANDB_API_KEY\n", qk);
        free(qk);
    }
    if (render_command(c, logs_dir, j, run_dir, job_cfg, tmpl, slurm, &sb, e) < 0) {
        free(tmpl); sb_free(&sb); node_free(job_cfg); return -1;
    }
    free(tmpl);
    sb_add(&sb, "\n)\nrc=$?\necho \"$rc\" > exit_code.tmp && mv -f exit_code.tmp exit_code\nexit $rc\n");
    if (sb.oom) { sb_free(&sb); node_free(job_cfg); return ac_err_set(e, AC_E_NOMEM, "out of memory"); }
    *script = sb.s;
    if (job_cfg_out) *job_cfg_out = job_cfg;
    else node_free(job_cfg);

    if (slurm && sbatch_argv) {
        char jn[512], path[1400];
        char **argv = NULL;
        size_t n = 0;
        exec_slurm_job_name(c->cluster.job_name_prefix, j->name, jn, sizeof jn);
        int bad = argv_add(&argv, &n, "%s%s", "sbatch", NULL) | argv_add(&argv, &n, "%s%s", "--parsable", NULL) |
                  argv_add(&argv, &n, "--job-name=%s%s", jn, NULL) |
                  argv_add(&argv, &n, "--chdir=%s%s", run_dir, NULL);
        snprintf(path, sizeof path, "%s/log-%%x_%%j", run_dir);
        bad |= argv_add(&argv, &n, "--output=%s%s", path, ".out") | argv_add(&argv, &n, "--error=%s%s", path, ".err");
        snprintf(path, sizeof path, "%s/job.sh", run_dir);
        bad |= argv_add(&argv, &n, "%s%s", path, NULL);
        if (bad) {
            exec_argv_free(argv);
            free(*script);
            *script = NULL;
            if (job_cfg_out) { node_free(*job_cfg_out); *job_cfg_out = NULL; }
            return ac_err_set(e, AC_E_NOMEM, "out of memory");
        }
        *sbatch_argv = argv;
    }
    return 0;
}

/* ---- collect ---- */

static const char *const OOM_TEXTS[] = { "CUDA out of memory", "OutOfMemoryError" };

/* 1 when a *.err file of run_dir holds an out-of-memory message */
static int run_has_oom(const char *run_dir)
{
    DIR *d = opendir(run_dir);
    if (!d) return 0;
    struct dirent *de;
    int hit = 0;
    while (!hit && (de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 5 || strcmp(de->d_name + l - 4, ".err")) continue;
        char path[2048];
        ac_err fe;
        size_t len;
        snprintf(path, sizeof path, "%s/%s", run_dir, de->d_name);
        char *txt = fs_read_file(path, &len, &fe);
        if (!txt) continue;
        for (size_t i = 0; i < sizeof OOM_TEXTS / sizeof OOM_TEXTS[0] && !hit; i++) hit = strstr(txt, OOM_TEXTS[i]) != NULL;
        free(txt);
    }
    closedir(d);
    return hit;
}

/* a ready-script job (a benchmark): its ledger row names the script, not a NeMo config */
static bool is_script_row(const ledger_row *r)
{
    size_t n = strlen(r->config_path);
    return n > 3 && !strcmp(r->config_path + n - 3, ".sh");
}

/* final state from what the scheduler said and what the run left on disk */
static void collect(ledger_row *r, const char *run_dir, exec_state st, const char *reason)
{
    bool step_timing = !is_script_row(r);
    r->finished_at = now_s();
    if (run_has_oom(run_dir)) {
        r->state = LEDGER_FAILED;
        snprintf(r->reason, sizeof r->reason, "CUDA out of memory");
        return;
    }
    if (st == EXEC_FAILED) {
        r->state = LEDGER_FAILED;
        snprintf(r->reason, sizeof r->reason, "%s", reason && *reason ? reason : "failed");
        return;
    }
    if (!step_timing) { /* a benchmark job: its own logs hold the result, read by its stage */
        r->state = LEDGER_DONE;
        r->reason[0] = '\0';
        return;
    }
    double avg;
    size_t nv;
    ac_err fe;
    if (tfev_run_step_time(run_dir, &avg, &nv, &fe) < 0) {
        r->state = LEDGER_FAILED;
        snprintf(r->reason, sizeof r->reason, "no step timing: %.200s", fe.msg);
        return;
    }
    r->state = LEDGER_DONE;
    r->step_time_s = avg;
    r->n_steps = (int)nv;
    r->reason[0] = '\0';
}

static const exec_backend *backend_for(const char *name)
{
    if (!strcmp(name, "bcm")) return &exec_backend_slurm;
    if (!strcmp(name, "local")) return &exec_backend_local;
    return NULL;
}

/* writes r's transition unless another process (autoconfig cancel, or a status refresh)
 * finished the row meanwhile: then r becomes the stored row, *live is 0, and the job
 * this search holds for it is stopped (a no-op for a job that has ended) */
static int advance_or_stop(const exec_ctx *x, const exec_backend *b, ledger *l, ledger_row *r, const char *run_dir,
                           int *live, ac_err *e)
{
    ledger_row mine = *r;
    if (ledger_advance(l, r, live, e) < 0) return -1;
    if (!*live && mine.job_id[0]) {
        ac_err ce;
        (void)b->cancel(x, &mine, run_dir, &ce);
    }
    return 0;
}

/* polls one submitted row (its run directory run_dir); updates the ledger when something
 * changed; *changed set */
static int step_row(const exec_ctx *x, const exec_backend *b, ledger *l, ledger_row *r, const char *run_dir, int *changed,
                    ac_err *e)
{
    char reason[256] = "";
    exec_state st;
    *changed = 0;
    if (b->poll(x, r, run_dir, &st, reason, sizeof reason, e) < 0) return -1;
    ledger_state before = r->state;
    if (st == EXEC_RUNNING && r->state == LEDGER_PENDING) {
        r->state = LEDGER_RUNNING;
        r->started_at = now_s();
    } else if (st == EXEC_DONE || st == EXEC_FAILED) {
        if (!r->started_at) r->started_at = now_s();
        collect(r, run_dir, st, reason);
    }
    if (r->state == before) return 0;
    *changed = 1;
    int live;
    return advance_or_stop(x, b, l, r, run_dir, &live, e);
}

static void to_outcome(const ledger_row *r, exec_outcome *o)
{
    memset(o, 0, sizeof *o);
    o->state = r->state == LEDGER_DONE ? EXEC_DONE : r->state == LEDGER_FAILED ? EXEC_FAILED
             : r->state == LEDGER_RUNNING ? EXEC_RUNNING : EXEC_PENDING;
    snprintf(o->job_id, sizeof o->job_id, "%s", r->job_id);
    o->step_time_s = r->step_time_s;
    o->n_steps = r->n_steps;
    snprintf(o->reason, sizeof o->reason, "%s", r->reason);
}

static int poll_interval_ms(const exec_backend *b)
{
    const char *env = getenv("AUTOCONFIG_POLL_MS");
    long v = env ? strtol(env, NULL, 10) : 0;
    if (v >= 10 && v <= 60000) return (int)v;
    return b == &exec_backend_local ? 300 : 2000;
}

int exec_write_job_files(const ac_config *c, const char *logs_dir, const exec_job *j, ac_err *e)
{
    char run_dir[1200], path[1400];
    char *script;
    char **argv = NULL;
    node *job_cfg = NULL;
    if (exec_job_script(c, logs_dir, j, &script, &argv, &job_cfg, e) < 0) return -1;
    int rc = exec_run_dir(logs_dir, j->name, run_dir, sizeof run_dir, e);
    if (!rc) rc = fs_mkdir_p(run_dir, e);
    if (!rc) { snprintf(path, sizeof path, "%s/results", run_dir); rc = fs_mkdir_p(path, e); }
    /* the file NeMo reads: every interpolation resolved, as the launcher hands it over */
    if (!rc && !j->script) rc = exec_job_config_path(run_dir, j->name, path, sizeof path, e);
    if (!rc && !j->script) rc = yaml_dump_file(job_cfg, path, e);
    node_free(job_cfg);
    if (!rc) { snprintf(path, sizeof path, "%s/job.sh", run_dir); rc = fs_write_atomic(path, script, strlen(script), e); }
    if (!rc && argv) { /* the sbatch command line, for humans re-running a job by hand */
        strbuf sb;
        sb_init(&sb);
        for (size_t i = 0; argv[i]; i++) {
            char *q = shell_quote_dup(argv[i], e);
            sb_printf(&sb, "%s%s", i ? " " : "", q ? q : "''");
            free(q);
        }
        sb_add(&sb, "\n");
        snprintf(path, sizeof path, "%s/job.argv", run_dir);
        rc = sb.oom ? ac_err_set(e, AC_E_NOMEM, "out of memory") : fs_write_atomic(path, sb.s, sb.len, e);
        sb_free(&sb);
    }
    free(script);
    exec_argv_free(argv);
    return rc;
}

/* the fingerprint of what a job measures: its config file, GPU, nodes, GPUs per node,
 * steps and backend.  The ledger keeps it per row, so a rerun with other settings
 * (seq_length, gpu, ...) under the same run name is measured anew, not reported. */
static int job_settings(const ac_config *c, const exec_job *j, const char *backend, char *out, size_t len, ac_err *e)
{
    size_t n = 0;
    ac_err re; /* an unreadable config fails its job, with the reason, when the job runs */
    char *text = fs_read_file(j->config_path, &n, &re);
    const gpu_spec *g = candidate_gpu(c, e);
    if (!g) { free(text); return -1; }
    char extra[256];
    int k = snprintf(extra, sizeof extra, "gpu=%s nodes=%d gpus_per_node=%d steps=%d backend=%s", g->name, j->nodes,
                     j->gpus_per_node, c->train.max_steps_per_run, backend);
    uint64_t h = text ? hash_fnv1a(HASH_FNV1A_OFFSET, text, n)
                      : hash_fnv1a(HASH_FNV1A_OFFSET, j->config_path, strlen(j->config_path));
    h = hash_fnv1a(h, extra, (size_t)k);
    free(text);
    snprintf(out, len, "%016llx", (unsigned long long)h);
    return 0;
}

/* a row kept from an earlier run is planned again when it was measured under other
 * settings, or failed and retry_failed is set; its old run directory is kept aside
 * (training_logs/.superseded/<name>.<seq>) so nothing of it is read as the new result */
static int replan_if_stale(const ac_config *c, ledger *l, const char *abs_logs, const ledger_row *want, ledger_row *row,
                           ac_err *e)
{
    bool other = row->settings[0] && strcmp(row->settings, want->settings) != 0;
    bool retry = c->train.retry_failed && row->state == LEDGER_FAILED;
    if (!other && !retry) {
        if (row->settings[0]) return 0;
        snprintf(row->settings, sizeof row->settings, "%s", want->settings); /* a ledger from before fingerprints */
        return 0;
    }
    if (!ledger_state_final(row->state))
        return ac_err_set(e, AC_E_INPUT,
                          "run %s is still %s (job %s) with other settings from an earlier search in this logs dir; "
                          "`autoconfig cancel` it first, or use another logs dir",
                          row->name, ledger_state_name(row->state), row->job_id[0] ? row->job_id : "-");
    char run_dir[1200], aside[4096 + 400];
    if (exec_run_dir(abs_logs, row->name, run_dir, sizeof run_dir, e) < 0) return -1;
    if (fs_is_dir(run_dir)) {
        snprintf(aside, sizeof aside, "%s/training_logs/.superseded", abs_logs);
        if (fs_mkdir_p(aside, e) < 0) return -1;
        for (int k = 1;; k++) {
            snprintf(aside, sizeof aside, "%s/training_logs/.superseded/%s.%d", abs_logs, row->name, k);
            if (!fs_exists(aside)) break;
            if (k == 100000) return ac_err_set(e, AC_E_IO, "%s: too many superseded runs", row->name);
        }
        if (rename(run_dir, aside) != 0)
            return ac_err_set(e, AC_E_IO, "cannot move %s aside to %s: %s", run_dir, aside, strerror(errno));
    }
    if (ledger_replan(l, want, e) < 0) return -1;
    *row = *want;
    row->state = LEDGER_PLANNED;
    return 0;
}

/* writes the job's files and removes what an earlier attempt left (pid, exit code) */
static int prepare_run_dir(const ac_config *c, const char *logs_dir, const exec_job *j, ac_err *e)
{
    char run_dir[1200], path[1400];
    if (exec_write_job_files(c, logs_dir, j, e) < 0 || exec_run_dir(logs_dir, j->name, run_dir, sizeof run_dir, e) < 0)
        return -1;
    static const char *const stale[] = { "job.pid", "exit_code", "exit_code.tmp" };
    for (size_t i = 0; i < 3; i++) { snprintf(path, sizeof path, "%s/%s", run_dir, stale[i]); unlink(path); }
    return 0;
}

/* the submit/poll loop; without wait, one pass: submit what may be submitted, poll the rest once */
static int run_jobs(const ac_config *c, const char *logs_dir, const exec_job *jobs, size_t n, exec_outcome *out,
                    FILE *progress_out, bool wait, ac_err *e)
{
    const exec_backend *b = backend_for(c->cluster_type);
    if (!b) return ac_err_set(e, AC_E_INPUT, "cluster_type %s does not run real jobs (use bcm or local)", c->cluster_type);
    for (size_t i = 0; i < n; i++) {
        if (check_job(&jobs[i], e) < 0) return -1;
        for (size_t k = 0; k < i; k++)
            if (!strcmp(jobs[i].name, jobs[k].name)) return ac_err_set(e, AC_E_INPUT, "job name %s given twice", jobs[i].name);
    }
    exec_ctx x = { .c = c };
    snprintf(x.logs_dir, sizeof x.logs_dir, "%s", logs_dir);
    /* one limit per call: the jobs of a call are of one kind (training runs, or benchmark jobs
     * that carry their own limit) */
    x.time_limit_s = n && jobs[0].time_limit_s > 0 ? jobs[0].time_limit_s : time_limit_s(c, e);
    if (x.time_limit_s < 0) return -1;
    char key_path[4096]; /* checked before the first job: a bad key file would fail every job */
    if (c->wandb_enable && c->wandb_api_key_file[0] && exec_wandb_key_path(c, key_path, sizeof key_path, e) < 0) return -1;
    char abs_logs[4096]; /* once: every row's run directory is polled from it */
    if (fs_abspath(logs_dir, abs_logs, sizeof abs_logs, e) < 0) return -1;

    /* one owner per logs dir: a second instance would start jobs twice and clean the first one's run dirs */
    if (dirlock_acquire(logs_dir, "logs dir", e) < 0) return -1;
    ledger *l = ledger_open(logs_dir, e);
    if (!l) { dirlock_release(logs_dir); return -1; }
    ledger_row *rows = calloc(n ? n : 1, sizeof *rows);
    if (!rows) { ledger_close(l); dirlock_release(logs_dir); return ac_err_set(e, AC_E_NOMEM, "out of memory"); }
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        ledger_row r = {0};
        snprintf(r.name, sizeof r.name, "%s", jobs[i].name);
        snprintf(r.config_path, sizeof r.config_path, "%s", jobs[i].config_path);
        r.nodes = jobs[i].nodes;
        r.gpus_per_node = jobs[i].gpus_per_node;
        r.predicted_step_s = jobs[i].predicted_step_s;
        snprintf(r.backend, sizeof r.backend, "%s", b->name);
        int found = 0;
        rc = job_settings(c, &jobs[i], b->name, r.settings, sizeof r.settings, e);
        if (!rc) rc = ledger_plan(l, &r, e);
        if (!rc) rc = ledger_get(l, r.name, &rows[i], &found, e);
        if (!rc && !found) rc = ac_err_set(e, AC_E_INTERNAL, "ledger lost row %s", r.name);
        if (!rc) rc = replan_if_stale(c, l, abs_logs, &r, &rows[i], e);
    }

    progress p;
    if (progress_out) progress_begin(&p, progress_out, n && jobs[0].script ? "benchmark jobs" : "training runs", (int)n);
    int interval = poll_interval_ms(b);
    int max_active = b == &exec_backend_local ? exec_local_max_active() : b->max_active;
    while (!rc) {
        int active = 0, done = 0, failed = 0, running = 0, pending = 0;
        for (size_t i = 0; i < n; i++)
            if (rows[i].state == LEDGER_PENDING || rows[i].state == LEDGER_RUNNING || rows[i].state == LEDGER_SUBMITTING)
                active++;
        for (size_t i = 0; i < n && !rc; i++) {
            ledger_row *r = &rows[i];
            char run_dir[1200];
            if ((rc = exec_run_dir(abs_logs, r->name, run_dir, sizeof run_dir, e)) < 0) break;
            if (!ledger_state_final(r->state)) {
                /* `autoconfig cancel` from another shell marks rows final in the ledger: a planned
                 * row is then never started, and a job this loop holds for it is stopped */
                ledger_row cur;
                int found = 0;
                if ((rc = ledger_get(l, r->name, &cur, &found, e)) < 0) break;
                if (found && ledger_state_final(cur.state)) {
                    ac_err ce;
                    if (r->job_id[0]) (void)b->cancel(&x, r, run_dir, &ce);
                    if (r->state != LEDGER_PLANNED) active--;
                    *r = cur;
                    if (progress_out) progress_label(&p, r->name);
                    continue;
                }
            }
            int live;
            if (r->state == LEDGER_SUBMITTING) {
                /* killed between "submitting" and the job id: is there a job already? */
                int found = 0;
                if ((rc = b->find(&x, r, run_dir, r->job_id, sizeof r->job_id, &found, e)) < 0) break;
                r->state = found ? LEDGER_PENDING : LEDGER_PLANNED;
                if (found && !r->submitted_at) r->submitted_at = now_s();
                active--;
                if ((rc = advance_or_stop(&x, b, l, r, run_dir, &live, e)) < 0) break;
                if (live && found) active++;
                if (progress_out) progress_label(&p, r->name);
                if (!live) continue;
            }
            if (r->state == LEDGER_PLANNED) {
                if (max_active && active >= max_active) continue;
                if ((rc = prepare_run_dir(c, logs_dir, &jobs[i], e)) < 0) break;
                r->state = LEDGER_SUBMITTING;
                if ((rc = advance_or_stop(&x, b, l, r, run_dir, &live, e)) < 0) break;
                if (!live) { /* cancelled before it started */
                    if (progress_out) progress_label(&p, r->name);
                    continue;
                }
                ac_err se;
                if (b->submit(&x, &jobs[i], run_dir, r->job_id, sizeof r->job_id, &se) < 0) {
                    /* nothing half-written: the row goes back to planned */
                    r->state = LEDGER_PLANNED;
                    r->job_id[0] = '\0';
                    ac_err ue;
                    (void)ledger_advance(l, r, &live, &ue);
                    *e = se;
                    rc = -1;
                    break;
                }
                r->state = LEDGER_PENDING;
                r->submitted_at = now_s();
                /* a cancel that landed while it was submitted stops it here */
                if ((rc = advance_or_stop(&x, b, l, r, run_dir, &live, e)) < 0) break;
                if (live) active++;
                if (progress_out) progress_label(&p, r->name);
            } else if (r->state == LEDGER_PENDING || r->state == LEDGER_RUNNING) {
                int changed;
                if ((rc = step_row(&x, b, l, r, run_dir, &changed, e)) < 0) break;
                if (changed && ledger_state_final(r->state)) active--;
                if (changed && progress_out) progress_label(&p, r->name);
            }
        }
        if (rc) break;
        for (size_t i = 0; i < n; i++) {
            switch (rows[i].state) {
            case LEDGER_DONE: done++; break;
            case LEDGER_FAILED: failed++; break;
            case LEDGER_RUNNING: running++; break;
            default: pending++; break;
            }
        }
        if (progress_out) progress_update(&p, done + failed, running, pending, failed);
        if (done + failed == (int)n || !wait) break;
        proc_sleep_ms(interval);
    }
    if (progress_out) progress_end(&p);
    for (size_t i = 0; i < n; i++) to_outcome(&rows[i], &out[i]);
    free(rows);
    ledger_close(l);
    dirlock_release(logs_dir);
    return rc;
}

int exec_run_all(const ac_config *c, const char *logs_dir, const exec_job *jobs, size_t n, exec_outcome *out,
                 FILE *progress_out, ac_err *e)
{
    return run_jobs(c, logs_dir, jobs, n, out, progress_out, true, e);
}

int exec_submit_all(const ac_config *c, const char *logs_dir, const exec_job *jobs, size_t n, exec_outcome *out,
                    ac_err *e)
{
    if (strcmp(c->cluster_type, "bcm"))
        return ac_err_set(e, AC_E_INPUT, "submitting without waiting needs cluster_type bcm (Slurm), not %s", c->cluster_type);
    return run_jobs(c, logs_dir, jobs, n, out, NULL, false, e);
}

/* ---- ledger-only operations ---- */

int exec_refresh(const char *logs_dir, ac_err *e)
{
    ledger *l = ledger_open_existing(logs_dir, e);
    if (!l) return -1;
    ledger_row *rows;
    size_t n;
    int rc = ledger_list(l, &rows, &n, e);
    exec_ctx x = { .c = NULL };
    snprintf(x.logs_dir, sizeof x.logs_dir, "%s", logs_dir);
    for (size_t i = 0; !rc && i < n; i++) {
        const exec_backend *b = backend_for(rows[i].backend);
        if (!b || (rows[i].state != LEDGER_PENDING && rows[i].state != LEDGER_RUNNING)) continue;
        int changed;
        ac_err pe;
        char run_dir[1200];
        if (exec_run_dir(logs_dir, rows[i].name, run_dir, sizeof run_dir, &pe) == 0)
            (void)step_row(&x, b, l, &rows[i], run_dir, &changed, &pe); /* a scheduler hiccup is not a status error */
    }
    free(rows);
    ledger_close(l);
    return rc;
}

int exec_cancel_all(const char *logs_dir, int *n_cancelled, ac_err *e)
{
    *n_cancelled = 0;
    ledger *l = ledger_open_existing(logs_dir, e);
    if (!l) return -1;
    ledger_row *rows;
    size_t n;
    int rc = ledger_list(l, &rows, &n, e);
    exec_ctx x = { .c = NULL };
    snprintf(x.logs_dir, sizeof x.logs_dir, "%s", logs_dir);
    /* planned rows first: a search still running must not start them once its current jobs die */
    for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; !rc && i < n; i++) {
        ledger_row *r = &rows[i];
        int found = 0, applied;
        /* the row as it is now: a search running beside us moves it on */
        if ((rc = ledger_get(l, rows[i].name, r, &found, e)) < 0) break;
        if (!found || ledger_state_final(r->state) || (r->state == LEDGER_PLANNED) != (pass == 0)) continue;
        const exec_backend *b = backend_for(r->backend);
        char run_dir[1200];
        if ((rc = exec_run_dir(logs_dir, r->name, run_dir, sizeof run_dir, e)) < 0) break;
        if (b && r->state == LEDGER_SUBMITTING &&
            (rc = b->find(&x, r, run_dir, r->job_id, sizeof r->job_id, &found, e)) < 0)
            break;
        /* the row is marked before the job is stopped: a search polling it then reads
         * "cancelled", not the bare death of its process; a row that finished meanwhile stays */
        ledger_row before = *r;
        r->state = LEDGER_FAILED;
        r->finished_at = now_s();
        snprintf(r->reason, sizeof r->reason, "%s", EXEC_CANCELLED_REASON);
        if ((rc = ledger_advance(l, r, &applied, e)) < 0) break;
        if (!applied) continue;
        if (b && r->job_id[0] && (rc = b->cancel(&x, r, run_dir, e)) < 0) {
            /* not stopped: the row stays live, so a second cancel tries again */
            ac_err ue;
            (void)ledger_update(l, &before, &ue);
            break;
        }
        (*n_cancelled)++;
    }
    free(rows);
    ledger_close(l);
    return rc;
}
