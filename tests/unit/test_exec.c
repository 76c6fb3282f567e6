/* test_exec.c — job scripts (quoting, directives, template placeholders) and
 * the local executor end to end: step times from the log, OOM text, time
 * limit, resume without running a finished job again. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "exec/exec.h"
#include "util/fsutil.h"

static ac_config cfg;
static char logs[64];

static void setup(const char *type)
{
    memset(&cfg, 0, sizeof cfg);
    snprintf(cfg.cluster_type, sizeof cfg.cluster_type, "%s", type);
    snprintf(cfg.family, sizeof cfg.family, "gpt3");
    cfg.train.max_minutes_per_run = 20;
    cfg.train.max_steps_per_run = 50;
    cfg.train.gpu_memory_gb = 80;
    cfg.cluster.exclusive = true;
    cfg.cluster.gpus_per_node = 8;
    snprintf(cfg.cluster.partition, sizeof cfg.cluster.partition, "batch");
    snprintf(cfg.cluster.job_name_prefix, sizeof cfg.cluster.job_name_prefix, "nemo_megatron_autoconfig:");
    cfg.cluster.n_srun_args = 1;
    snprintf(cfg.cluster.srun_args[0], sizeof cfg.cluster.srun_args[0], "--no-container-mount-home");
}

static exec_job job(const char *name)
{
    exec_job j;
    memset(&j, 0, sizeof j);
    snprintf(j.name, sizeof j.name, "%s", name);
    snprintf(j.config_path, sizeof j.config_path, "/cfg/it's here/%s.yaml", name);
    j.nodes = 2;
    j.gpus_per_node = 8;
    j.predicted_step_s = 1.0;
    return j;
}

static void test_slurm_script(void)
{
    setup("bcm");
    unsetenv("AUTOCONFIG_JOB_TEMPLATE");
    exec_job j = job("gpt3_$(touch pwned) x");
    char *s, **argv;
    ac_err e;
    CHECK(exec_job_script(&cfg, "/logs", &j, &s, &argv, &e) == 0);
    if (!s) return;
    CHECK_CONTAINS(s, "#SBATCH --nodes=2\n");
    CHECK_CONTAINS(s, "#SBATCH --gpus-per-node=8\n");
    CHECK_CONTAINS(s, "#SBATCH --partition=batch\n");
    CHECK_CONTAINS(s, "#SBATCH --exclusive\n");
    CHECK_CONTAINS(s, "#SBATCH --time=0-00:20:00\n");
    CHECK_CONTAINS(s, "megatron_gpt_pretraining.py");
    CHECK_CONTAINS(s, "--config-path='/cfg/it'\\''s here'");
    CHECK_CONTAINS(s, "cd '/logs/training_logs/gpt3_$(touch pwned) x'");
    CHECK(strstr(s, "--no-container-mount-home") == NULL); /* pyxis flag dropped without an image */
    CHECK_STR(argv[0], "sbatch");
    CHECK_STR(argv[1], "--parsable");
    CHECK_STR(argv[2], "--job-name=nemo_megatron_autoconfig:gpt3_$(touch pwned) x");
    free(s);
    exec_argv_free(argv);

    /* with a container: image and mounts quoted, pyxis flag kept */
    snprintf(cfg.cluster.container_image, sizeof cfg.cluster.container_image, "nvcr.io/x;rm -rf ~");
    CHECK(exec_job_script(&cfg, "/logs", &j, &s, &argv, &e) == 0);
    CHECK_CONTAINS(s, "srun --container-image 'nvcr.io/x;rm -rf ~' --container-mounts '/logs:/logs' '--no-container-mount-home'");
    free(s);
    exec_argv_free(argv);

    /* a partition with a blank cannot become a directive */
    snprintf(cfg.cluster.partition, sizeof cfg.cluster.partition, "a b");
    CHECK(exec_job_script(&cfg, "/logs", &j, &s, &argv, &e) < 0);
    CHECK_CONTAINS(e.msg, "cluster.partition");
    /* bad names */
    setup("bcm");
    exec_job bad = job("$(touch /tmp/pwned)"); /* a '/' cannot be in a run directory name */
    CHECK(exec_job_script(&cfg, "/logs", &bad, &s, &argv, &e) < 0);
    bad = job("a/b");
    CHECK(exec_job_script(&cfg, "/logs", &bad, &s, &argv, &e) < 0);
    bad = job("100%");
    CHECK(exec_job_script(&cfg, "/logs", &bad, &s, &argv, &e) < 0);
    bad = job("line\nbreak");
    CHECK(exec_job_script(&cfg, "/logs", &bad, &s, &argv, &e) < 0);
}

static void test_template(void)
{
    setup("local");
    exec_job j = job("t1");
    char *s;
    ac_err e;
    setenv("AUTOCONFIG_JOB_TEMPLATE", "run {name} {nodes} {results_dir} {srun}|", 1);
    CHECK(exec_job_script(&cfg, "/logs", &j, &s, NULL, &e) == 0);
    CHECK_CONTAINS(s, "run 't1' '2' '/logs/training_logs/t1/results' |");
    free(s);
    setenv("AUTOCONFIG_JOB_TEMPLATE", "run ${HOME:-x} {name}", 1); /* the shell's ${...} stays */
    CHECK(exec_job_script(&cfg, "/logs", &j, &s, NULL, &e) == 0);
    CHECK_CONTAINS(s, "run ${HOME:-x} 't1'");
    free(s);
    setenv("AUTOCONFIG_JOB_TEMPLATE", "run {nope}", 1);
    CHECK(exec_job_script(&cfg, "/logs", &j, &s, NULL, &e) < 0);
    CHECK_CONTAINS(e.msg, "unknown placeholder {nope}");
    setenv("AUTOCONFIG_JOB_TEMPLATE", "run {name", 1);
    CHECK(exec_job_script(&cfg, "/logs", &j, &s, NULL, &e) < 0);
    unsetenv("AUTOCONFIG_JOB_TEMPLATE");
}

/* the W&B key file: its path in the script, never its content */
static void test_wandb_key(void)
{
    setup("bcm");
    char key[128];
    snprintf(key, sizeof key, "%s/wandb key", logs);
    FILE *f = fopen(key, "w");
    if (!f) { CHECK(0); return; }
    fputs("SECRET-KEY-4711\n", f);
    fclose(f);
    cfg.wandb_enable = true;
    snprintf(cfg.wandb_api_key_file, sizeof cfg.wandb_api_key_file, "%s", key);
    exec_job j = job("w");
    char *s, **argv;
    ac_err e;
    CHECK(exec_job_script(&cfg, "/logs", &j, &s, &argv, &e) == 0);
    if (!s) return;
    CHECK_CONTAINS(s, "WANDB_API_KEY=$(head -n 1 '");
    CHECK_CONTAINS(s, "/wandb key')");
    CHECK(strstr(s, "SECRET-KEY-4711") == NULL);
    for (size_t i = 0; argv[i]; i++) CHECK(strstr(argv[i], "SECRET") == NULL);
    free(s);
    exec_argv_free(argv);
    cfg.wandb_enable = false;
}

static void test_local_run(void)
{
    setup("local");
    setenv("AUTOCONFIG_POLL_MS", "50", 1);
    /* step timings by name: "ok" prints 10 values, "oom" prints the CUDA OOM text, "slow" sleeps past the limit */
    setenv("AUTOCONFIG_JOB_TEMPLATE",
           "case {name} in ok*) for i in 1 2 3 4 5 6 7 8 9 10; do echo \"train_step_timing in s=0.25\"; done >> train.log;;"
           " oom) echo 'torch.OutOfMemoryError: CUDA out of memory.' >&2; exit 1;;"
           " slow) sleep 30;; esac", 1);
    setenv("AUTOCONFIG_TIME_LIMIT_S", "1", 1);
    exec_job jobs[4] = { job("ok1"), job("oom"), job("slow"), job("ok2") };
    exec_outcome out[4];
    ac_err e;
    CHECK(exec_run_all(&cfg, logs, jobs, 4, out, NULL, &e) == 0);
    CHECK_INT(out[0].state, EXEC_DONE);
    CHECK_NEAR(out[0].step_time_s, 0.25, 1e-9);
    CHECK_INT(out[0].n_steps, 10);
    CHECK_INT(out[1].state, EXEC_FAILED);
    CHECK_STR(out[1].reason, "CUDA out of memory");
    CHECK_INT(out[2].state, EXEC_FAILED);
    CHECK_CONTAINS(out[2].reason, "TIMEOUT");
    CHECK_INT(out[3].state, EXEC_DONE);

    /* resume: same jobs again → nothing reruns (the log would grow to 20 values) */
    CHECK(exec_run_all(&cfg, logs, jobs, 4, out, NULL, &e) == 0);
    CHECK_INT(out[0].n_steps, 10);
    CHECK_STR(out[1].reason, "CUDA out of memory");
    int n;
    CHECK(exec_cancel_all(logs, &n, &e) == 0);
    CHECK_INT(n, 0);
    unsetenv("AUTOCONFIG_TIME_LIMIT_S");
    unsetenv("AUTOCONFIG_JOB_TEMPLATE");
}

/* the template may end in `exec`: the script still records the exit code */
static void test_template_exec(void)
{
    setup("local");
    setenv("AUTOCONFIG_POLL_MS", "50", 1);
    setenv("AUTOCONFIG_JOB_TEMPLATE", "exec sh -c 'echo \"train_step_timing in s=0.5\" > train.log; exit 3'", 1);
    exec_job j = job("exec_fail");
    exec_outcome o;
    ac_err e;
    CHECK(exec_run_all(&cfg, logs, &j, 1, &o, NULL, &e) == 0);
    CHECK_INT(o.state, EXEC_FAILED);
    CHECK_CONTAINS(o.reason, "exit code 3");
    unsetenv("AUTOCONFIG_JOB_TEMPLATE");
}

/* the emulation's perturbation: deterministic per name, within scale x (1 +- noise) */
static void test_emulate_factor(void)
{
    CHECK_NEAR(exec_emulate_factor("a", 1.3, 0.0), 1.3, 1e-12);
    double lo = 10, hi = 0;
    char name[32];
    for (int i = 0; i < 200; i++) {
        snprintf(name, sizeof name, "cand_%d", i);
        double f = exec_emulate_factor(name, 1.0, 0.1);
        CHECK(f == exec_emulate_factor(name, 1.0, 0.1));
        lo = f < lo ? f : lo;
        hi = f > hi ? f : hi;
    }
    CHECK(lo >= 0.9 && lo < 0.93); /* spread over the whole band, not a constant */
    CHECK(hi <= 1.1 && hi > 1.07);
}

static void test_bad_type(void)
{
    setup("sim");
    exec_job j = job("x");
    exec_outcome o;
    ac_err e;
    CHECK(exec_run_all(&cfg, logs, &j, 1, &o, NULL, &e) < 0);
    CHECK_CONTAINS(e.msg, "does not run real jobs");
}

int main(void)
{
    snprintf(logs, sizeof logs, "/tmp/test_exec.XXXXXX");
    if (!mkdtemp(logs)) return 1;
    RUN(test_slurm_script);
    RUN(test_template);
    RUN(test_local_run);
    RUN(test_template_exec);
    RUN(test_wandb_key);
    RUN(test_emulate_factor);
    RUN(test_bad_type);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", logs);
    if (system(cmd) != 0) return 1;
    CHECK_DONE();
}
