/* test_exec.c — job scripts (quoting, directives, template placeholders) and
 * the local executor end to end: step times from the log, OOM text, time
 * limit, resume without running a finished job again. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "config/yaml_io.h"
#include "exec/exec.h"
#include "exec/job_config.h"
#include "exec/nemo_contract.h"
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

/* a candidate as the search writes it: launcher interpolations left for the job to resolve */
static void write_candidate(const char *path, const char *name, int tp, int pp, int vp)
{
    FILE *f = fopen(path, "w");
    if (!f) return;
    fprintf(f, "run:\n  name: '%s'\n  results_dir: ${base_results_dir}/${.name}\n"
               "trainer:\n  num_nodes: 2\n  devices: 8\n  max_steps: 50\n"
               "exp_manager:\n  explicit_log_dir: ${training.run.results_dir}/results\n"
               "  create_checkpoint_callback: True\n"
               "model:\n  tensor_model_parallel_size: %d\n  pipeline_model_parallel_size: %d\n"
               "  virtual_pipeline_model_parallel_size: %d\n  hidden_size: 64\n"
               "  ffn_hidden_size: ${multiply:4, ${.hidden_size}}\n"
               "  tokenizer:\n    vocab_file: ${data_dir}/bpe/vocab.json\n",
            name, tp, pp, vp);
    fclose(f);
}

static exec_job job_tp(const char *name, int tp, int pp, int vp)
{
    exec_job j;
    memset(&j, 0, sizeof j);
    snprintf(j.name, sizeof j.name, "%s", name);
    snprintf(j.config_path, sizeof j.config_path, "%s/it's here %s.yaml", logs, strchr(name, '/') ? "x" : name);
    write_candidate(j.config_path, name, tp, pp, vp);
    j.nodes = 2;
    j.gpus_per_node = 8;
    j.predicted_step_s = 1.0;
    return j;
}

static exec_job job(const char *name) { return job_tp(name, 1, 1, 1); }

static void test_slurm_script(void)
{
    setup("bcm");
    unsetenv("AUTOCONFIG_JOB_TEMPLATE");
    exec_job j = job("gpt3_$(touch pwned) x");
    char *s, **argv;
    ac_err e;
    CHECK(exec_job_script(&cfg, "/logs", &j, &s, &argv, NULL, &e) == 0);
    if (!s) return;
    CHECK_CONTAINS(s, "#SBATCH --nodes=2\n");
    CHECK_CONTAINS(s, "#SBATCH --gpus-per-node=8\n");
    CHECK_CONTAINS(s, "#SBATCH --partition=batch\n");
    CHECK_CONTAINS(s, "#SBATCH --exclusive\n");
    CHECK_CONTAINS(s, "#SBATCH --time=0-00:20:00\n");
    CHECK_CONTAINS(s, "megatron_gpt_pretraining.py");
    CHECK_CONTAINS(s, "--config-path='/logs/training_logs/gpt3_$(touch pwned) x'");
    CHECK_CONTAINS(s, "--config-name='gpt3_$(touch pwned) x_hydra.yaml'");
    CHECK_CONTAINS(s, "cd '/logs/training_logs/gpt3_$(touch pwned) x'");
    CHECK(strstr(s, "--no-container-mount-home") == NULL); /* pyxis flag dropped without an image */
    CHECK_STR(argv[0], "sbatch");
    CHECK_STR(argv[1], "--parsable");
    CHECK_STR(argv[2], "--job-name=nemo_megatron_autoconfig:gpt3_$(touch pwned) x");
    free(s);
    exec_argv_free(argv);

    /* with a container: image and mounts quoted, pyxis flag kept */
    snprintf(cfg.cluster.container_image, sizeof cfg.cluster.container_image, "nvcr.io/x;rm -rf ~");
    CHECK(exec_job_script(&cfg, "/logs", &j, &s, &argv, NULL, &e) == 0);
    CHECK_CONTAINS(s, "srun --container-image 'nvcr.io/x;rm -rf ~' --container-mounts '/logs:/logs' '--no-container-mount-home'");
    free(s);
    exec_argv_free(argv);
    /* training_container when the cluster names none (conf/cluster/bcm.yaml: "null = use training_container"),
     * and the launcher's mounts: launcher_scripts_path, data_dir, base_results_dir */
    cfg.cluster.container_image[0] = '\0';
    snprintf(cfg.training_container, sizeof cfg.training_container, "nvcr.io/nvidia/nemo:24.09");
    snprintf(cfg.launcher_scripts_path, sizeof cfg.launcher_scripts_path, "/ls");
    snprintf(cfg.data_dir, sizeof cfg.data_dir, "/ls/data");
    snprintf(cfg.base_results_dir, sizeof cfg.base_results_dir, "/ls/results");
    cfg.n_container_mounts = 1;
    snprintf(cfg.container_mounts[0], sizeof cfg.container_mounts[0], "/lustre/ds:/data");
    CHECK(exec_job_script(&cfg, "/logs", &j, &s, &argv, NULL, &e) == 0);
    CHECK_CONTAINS(s, "srun --container-image 'nvcr.io/nvidia/nemo:24.09' --container-mounts "
                      "'/logs:/logs,/ls:/ls,/ls/data:/ls/data,/ls/results:/ls/results,/lustre/ds:/data'");
    free(s);
    exec_argv_free(argv);
    /* a comma inside one mount entry would add mounts */
    snprintf(cfg.container_mounts[0], sizeof cfg.container_mounts[0], "/a,/etc:/x");
    CHECK(exec_job_script(&cfg, "/logs", &j, &s, &argv, NULL, &e) < 0);
    CHECK_CONTAINS(e.msg, "container_mounts entry");
    cfg.n_container_mounts = 0;
    cfg.training_container[0] = '\0';

    /* a partition with a blank cannot become a directive */
    snprintf(cfg.cluster.partition, sizeof cfg.cluster.partition, "a b");
    CHECK(exec_job_script(&cfg, "/logs", &j, &s, &argv, NULL, &e) < 0);
    CHECK_CONTAINS(e.msg, "cluster.partition");
    /* bad names */
    setup("bcm");
    exec_job bad = job("$(touch /tmp/pwned)"); /* a '/' cannot be in a run directory name */
    CHECK(exec_job_script(&cfg, "/logs", &bad, &s, &argv, NULL, &e) < 0);
    bad = job("a/b");
    CHECK(exec_job_script(&cfg, "/logs", &bad, &s, &argv, NULL, &e) < 0);
    bad = job("100%");
    CHECK(exec_job_script(&cfg, "/logs", &bad, &s, &argv, NULL, &e) < 0);
    bad = job("line\nbreak");
    CHECK(exec_job_script(&cfg, "/logs", &bad, &s, &argv, NULL, &e) < 0);
}

static void test_template(void)
{
    setup("local");
    exec_job j = job("t1");
    char *s;
    ac_err e;
    setenv("AUTOCONFIG_JOB_TEMPLATE", "run {name} {nodes} {results_dir} {srun}|", 1);
    CHECK(exec_job_script(&cfg, "/logs", &j, &s, NULL, NULL, &e) == 0);
    CHECK_CONTAINS(s, "run 't1' '2' '/logs/training_logs/t1/results' |");
    free(s);
    setenv("AUTOCONFIG_JOB_TEMPLATE", "run ${HOME:-x} {name}", 1); /* the shell's ${...} stays */
    CHECK(exec_job_script(&cfg, "/logs", &j, &s, NULL, NULL, &e) == 0);
    CHECK_CONTAINS(s, "run ${HOME:-x} 't1'");
    free(s);
    setenv("AUTOCONFIG_JOB_TEMPLATE", "run {nope}", 1);
    CHECK(exec_job_script(&cfg, "/logs", &j, &s, NULL, NULL, &e) < 0);
    CHECK_CONTAINS(e.msg, "unknown placeholder {nope}");
    setenv("AUTOCONFIG_JOB_TEMPLATE", "run {name", 1);
    CHECK(exec_job_script(&cfg, "/logs", &j, &s, NULL, NULL, &e) < 0);
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
    CHECK(exec_job_script(&cfg, "/logs", &j, &s, &argv, NULL, &e) == 0);
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

/* the file NeMo reads: every interpolation resolved with the launcher's keys, logs in the run dir */
static void test_job_config_resolved(void)
{
    setup("bcm");
    snprintf(cfg.data_dir, sizeof cfg.data_dir, "/ls/data");
    snprintf(cfg.base_results_dir, sizeof cfg.base_results_dir, "/ls/results");
    exec_job j = job_tp("r1", 2, 1, 1);
    node *n = NULL;
    ac_err e;
    CHECK(exec_job_config(&cfg, j.config_path, "/logs/training_logs/r1", &n, &e) == 0);
    if (!n) return;
    char where[256];
    CHECK(!exec_find_unresolved(n, where, sizeof where));
    CHECK_STR(node_text(node_get_path(n, "exp_manager.explicit_log_dir")), "/logs/training_logs/r1/results");
    CHECK_STR(node_text(node_get_path(n, "model.ffn_hidden_size")), "256");
    CHECK_STR(node_text(node_get_path(n, "model.tokenizer.vocab_file")), "/ls/data/bpe/vocab.json");
    bool ckpt = true;
    CHECK(node_get_bool(node_get_path(n, "exp_manager.create_checkpoint_callback"), &ckpt) && !ckpt);
    CHECK(node_get_path(n, "training") == NULL && node_get_path(n, "data_dir") == NULL);
    node_free(n);
    /* a dangling reference is an error naming the key, before anything is submitted */
    FILE *f = fopen(j.config_path, "a");
    if (f) { fputs("  seq_length: ${training.model.nope}\n", f); fclose(f); }
    CHECK(exec_job_config(&cfg, j.config_path, "/logs/training_logs/r1", &n, &e) < 0);
    CHECK_CONTAINS(e.msg, "nope");
}

/* paths handed to a job or a container mount are normalised lexically */
static void test_abspath_norm(void)
{
    char b[256];
    ac_err e;
    CHECK(fs_abspath_norm("/a/./b//c/../d/", b, sizeof b, &e) == 0);
    CHECK_STR(b, "/a/b/d");
    CHECK(fs_abspath_norm("/..", b, sizeof b, &e) == 0);
    CHECK_STR(b, "/");
    CHECK(fs_abspath_norm("/x/y/../../..", b, sizeof b, &e) == 0);
    CHECK_STR(b, "/");
}

/* the launcher's environment and its conditions */
static void test_job_env(void)
{
    setup("bcm");
    unsetenv("AUTOCONFIG_JOB_TEMPLATE");
    char *s, **argv;
    ac_err e;
    exec_job j = job_tp("e1", 1, 1, 1);
    CHECK(exec_job_script(&cfg, "/logs", &j, &s, &argv, NULL, &e) == 0);
    if (!s) return;
    CHECK_CONTAINS(s, "export TORCH_NCCL_AVOID_RECORD_STREAMS='1'\n");
    CHECK_CONTAINS(s, "export NCCL_NVLS_ENABLE='0'\n");
    CHECK_CONTAINS(s, "export CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7\n");
    CHECK(strstr(s, "CUDA_DEVICE_MAX_CONNECTIONS") == NULL); /* TP 1, CP 1: not set */
    CHECK(strstr(s, "LAYERNORM_SM_MARGIN") == NULL);
    free(s);
    exec_argv_free(argv);
    j = job_tp("e2", 2, 2, 3);
    CHECK(exec_job_script(&cfg, "/logs", &j, &s, &argv, NULL, &e) == 0);
    if (!s) return;
    CHECK_CONTAINS(s, "export CUDA_DEVICE_MAX_CONNECTIONS=1\n");
    CHECK_CONTAINS(s, "NVTE_FWD_LAYERNORM_SM_MARGIN=$ln_margin NVTE_BWD_LAYERNORM_SM_MARGIN=$ln_margin");
    CHECK(strstr(s, "export CUDA_DEVICE_MAX_CONNECTIONS") < strstr(s, "python3 -u")); /* before the command */
    free(s);
    exec_argv_free(argv);
    /* env_vars from the config: a value replaces the launcher's, null removes it, a bad name is refused */
    const char *env = "env_vars:\n  NCCL_NVLS_ENABLE: null\n  NCCL_DEBUG: \"INFO; rm -rf /\"\n";
    cfg.root = yaml_load_string(env, strlen(env), "conf.yaml", &e);
    CHECK(cfg.root != NULL);
    CHECK(exec_job_script(&cfg, "/logs", &j, &s, &argv, NULL, &e) == 0);
    if (s) {
        CHECK(strstr(s, "NCCL_NVLS_ENABLE") == NULL);
        CHECK_CONTAINS(s, "export NCCL_DEBUG='INFO; rm -rf /'\n");
        free(s);
        exec_argv_free(argv);
    }
    node_free(cfg.root);
    const char *bad = "env_vars:\n  BAD-NAME: 1\n";
    cfg.root = yaml_load_string(bad, strlen(bad), "conf.yaml", &e);
    CHECK(exec_job_script(&cfg, "/logs", &j, &s, &argv, NULL, &e) < 0);
    CHECK_CONTAINS(e.msg, "conf.yaml:2: env_vars.BAD-NAME");
    node_free(cfg.root);
    cfg.root = NULL;
}

/* the emulated NeMo start-up refuses what NeMo refuses */
static void test_nemo_startup(void)
{
    ac_err e;
    char why[1024];
    const char *ok = "run:\n  name: llama3_8b_x\nmodel:\n  tensor_model_parallel_size: 2\n  hidden_size: 8\n"
                     "  ffn_hidden_size: ${multiply:4, ${.hidden_size}}\n  tokenizer:\n    library: huggingface\n";
    node *n = yaml_load_string(ok, strlen(ok), "a.yaml", &e);
    CHECK(nemo_startup_check(n, NULL, "1", why, sizeof why, &e) == 0);
    CHECK(nemo_startup_check(n, NULL, NULL, why, sizeof why, &e) == 1);
    CHECK_CONTAINS(why, "CUDA_DEVICE_MAX_CONNECTIONS");
    node_free(n);
    const char *t5 = "model:\n  encoder:\n    a: 1\n  decoder:\n    a: 1\n  b: ${divide_floor:4, 2}\n";
    n = yaml_load_string(t5, strlen(t5), "b.yaml", &e);
    CHECK(nemo_startup_check(n, NULL, NULL, why, sizeof why, &e) == 1);
    CHECK_CONTAINS(why, "Unsupported interpolation type divide_floor");
    CHECK_STR(nemo_model_kind(n), "t5");
    node_free(n);
    const char *key = "run:\n  results_dir: ${base_results_dir}/x\n";
    n = yaml_load_string(key, strlen(key), "c.yaml", &e);
    CHECK(nemo_startup_check(n, NULL, NULL, why, sizeof why, &e) == 1);
    CHECK_CONTAINS(why, "InterpolationKeyError");
    node_free(n);
    const char *spm = "run:\n  name: llama3_70b_tp8\nmodel:\n  tokenizer:\n    library: sentencepiece\n"
                      "    model: /data/llama/tokenizer.model\n";
    n = yaml_load_string(spm, strlen(spm), "d.yaml", &e);
    CHECK(nemo_startup_check(n, NULL, NULL, why, sizeof why, &e) == 1);
    CHECK_CONTAINS(why, "could not parse ModelProto");
    node_free(n);
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
    RUN(test_job_config_resolved);
    RUN(test_job_env);
    RUN(test_abspath_norm);
    RUN(test_nemo_startup);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", logs);
    if (system(cmd) != 0) return 1;
    CHECK_DONE();
}
