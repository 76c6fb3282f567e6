/* job_config.c — see job_config.h. */
#include "exec/job_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/interp.h"
#include "config/yaml_io.h"
#include "util/fsutil.h"
#include "util/shell.h"

/* the launcher root keys a training config refers to, made absolute: the job runs elsewhere */
static int put_abs(node *root, const char *key, const char *path, ac_err *e)
{
    char abs[CFG_PATH_MAX + 64];
    if (!path[0]) return node_map_set(root, key, node_null()) ? ac_err_set(e, AC_E_NOMEM, "out of memory") : 0;
    if (fs_abspath_norm(path, abs, sizeof abs, e) < 0) return -1;
    return node_map_set(root, key, node_str(abs)) ? ac_err_set(e, AC_E_NOMEM, "out of memory") : 0;
}

static int set_path(node *root, const char *path, node *v, ac_err *e)
{
    if (!v) return ac_err_set(e, AC_E_NOMEM, "out of memory");
    if (node_set_path(root, path, v, true) != 0)
        return ac_err_set(e, AC_E_INPUT, "job config: cannot set %s (a parent is not a mapping)", path);
    return 0;
}

int exec_job_config(const ac_config *c, const char *candidate_path, const char *run_dir, node **out, ac_err *e)
{
    *out = NULL;
    node *cand = yaml_load_file(candidate_path, e);
    if (!cand) return -1;
    int rc = exec_job_config_of(c, cand, candidate_path, run_dir, out, e);
    node_free(cand);
    return rc;
}

int exec_job_config_of(const ac_config *c, const node *candidate, const char *candidate_path, const char *run_dir,
                       node **out, ac_err *e)
{
    *out = NULL;
    node *cand = node_clone(candidate);
    if (!cand) return ac_err_set(e, AC_E_NOMEM, "out of memory");
    node *root = node_map();
    if (!root || node_map_set(root, "training", cand)) {
        node_free(root);
        node_free(cand);
        return ac_err_set(e, AC_E_NOMEM, "out of memory");
    }
    int rc = put_abs(root, "launcher_scripts_path", c->launcher_scripts_path, e);
    if (!rc) rc = put_abs(root, "data_dir", c->data_dir, e);
    if (!rc) rc = put_abs(root, "base_results_dir", c->base_results_dir, e);
    if (!rc) rc = node_map_set(root, "cluster_type", node_str(c->cluster_type)) ? ac_err_set(e, AC_E_NOMEM, "out of memory") : 0;
    /* the run's own folder: exp_manager.explicit_log_dir (${training.run.results_dir}/results) lands in it */
    if (!rc) rc = set_path(root, "training.run.results_dir", node_str(run_dir), e);
    /* a search run measures step time: no checkpoint is written (the original's search runs did the same) */
    if (!rc && node_get_path(root, "training.exp_manager"))
        rc = set_path(root, "training.exp_manager.create_checkpoint_callback", node_bool(false), e);
    if (!rc && interp_resolve_path(root, "training", e) < 0) rc = -1;
    if (!rc) {
        *out = node_clone(node_get_path(root, "training"));
        if (!*out) rc = ac_err_set(e, AC_E_NOMEM, "out of memory");
    }
    char where[512];
    if (!rc && exec_find_unresolved(*out, where, sizeof where)) {
        rc = ac_err_set(e, AC_E_INPUT, "%s: %s still holds an interpolation after resolving", candidate_path, where);
        node_free(*out);
        *out = NULL;
    }
    node_free(root);
    return rc;
}

int exec_job_config_path(const char *run_dir, const char *name, char *buf, size_t len, ac_err *e)
{
    int n = snprintf(buf, len, "%s/%s_hydra.yaml", run_dir, name);
    if (n < 0 || (size_t)n >= len) return ac_err_set(e, AC_E_INPUT, "job config path too long for %s", name);
    return 0;
}

static int find_unresolved(const node *n, char *path, size_t len, size_t at)
{
    if (!n) return 0;
    if (n->kind == NODE_SCALAR) return n->text && strstr(n->text, "${") != NULL;
    for (size_t i = 0; i < n->len; i++) {
        int w = n->kind == NODE_MAP ? snprintf(path + at, len - at, "%s%s", at ? "." : "", n->pairs[i].key)
                                    : snprintf(path + at, len - at, "[%zu]", i);
        size_t next = w < 0 ? at : at + (size_t)w >= len ? len - 1 : at + (size_t)w;
        if (find_unresolved(n->kind == NODE_MAP ? n->pairs[i].val : n->items[i], path, len, next)) return 1;
        path[at] = '\0';
    }
    return 0;
}

int exec_find_unresolved(const node *n, char *where, size_t len)
{
    if (!len) return 0;
    where[0] = '\0';
    return find_unresolved(n, where, len, 0);
}

/* ---- environment ---- */

/* The launcher's env_vars defaults (its conf/config.yaml; entries it leaves null are not set).
 * The config's env_vars block overrides them by name, and null removes one. */
static const struct { const char *name, *value, *why; } LAUNCHER_ENV[] = {
    { "TRANSFORMERS_OFFLINE", "0", "launcher conf/config.yaml env_vars" },
    { "TORCH_NCCL_AVOID_RECORD_STREAMS", "1", "launcher conf/config.yaml env_vars: NCCL buffers freed eagerly" },
    { "NCCL_NVLS_ENABLE", "0", "launcher conf/config.yaml env_vars: NVLink SHARP off (its buffers cost memory)" },
};

static long long model_int(const node *cfg, const char *key, long long dflt)
{
    char path[128];
    long long v;
    snprintf(path, sizeof path, "model.%s", key);
    return node_get_int(node_get_path(cfg, path), &v) ? v : dflt;
}

static bool model_bool(const node *cfg, const char *key)
{
    char path[128];
    bool v = false;
    snprintf(path, sizeof path, "model.%s", key);
    return node_get_bool(node_get_path(cfg, path), &v) && v;
}

static bool env_name_ok(const char *s)
{
    if (!s || !(*s == '_' || (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z'))) return false;
    for (; *s; s++)
        if (!(*s == '_' || (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9'))) return false;
    return true;
}

static int export_line(strbuf *sb, const char *name, const char *value, ac_err *e)
{
    if (shell_check_line(name, value, e) < 0) return -1;
    sb_printf(sb, "export %s=", name);
    if (shell_quote_add(sb, value, e)) return -1;
    sb_add(sb, "\n");
    return 0;
}

/* the user's env_vars block: NULL when absent */
static const node *user_env(const ac_config *c, ac_err *e, int *bad)
{
    *bad = 0;
    const node *env = c->root ? node_get_path(c->root, "env_vars") : NULL;
    if (!env || node_is_null(env)) return NULL;
    if (env->kind != NODE_MAP) {
        *bad = 1;
        ac_err_set(e, AC_E_INPUT, "%s:%d: env_vars must be a mapping NAME: value", env->file ? env->file : "config", env->line);
        return NULL;
    }
    for (size_t i = 0; i < env->len; i++) {
        const node_pair *p = &env->pairs[i];
        if (!env_name_ok(p->key) || (p->val && p->val->kind != NODE_SCALAR)) {
            *bad = 1;
            ac_err_set(e, AC_E_INPUT, "%s:%d: env_vars.%s: %s", env->file ? env->file : "config", p->line, p->key,
                       env_name_ok(p->key) ? "the value must be a scalar (or null to unset)"
                                           : "not an environment variable name ([A-Za-z_][A-Za-z0-9_]*)");
            return NULL;
        }
    }
    return env;
}

int exec_job_env(const ac_config *c, const node *job_cfg, strbuf *sb, ac_err *e)
{
    int bad;
    const node *env = user_env(c, e, &bad);
    if (bad) return -1;
    sb_add(sb, "# the environment the NeMo launcher gives this job (nemo_launcher/core/stages.py)\n");
    for (size_t i = 0; i < sizeof LAUNCHER_ENV / sizeof LAUNCHER_ENV[0]; i++)
        if (!env || !node_map_pair(env, LAUNCHER_ENV[i].name))
            if (export_line(sb, LAUNCHER_ENV[i].name, LAUNCHER_ENV[i].value, e) < 0) return -1;
    for (size_t i = 0; env && i < env->len; i++) {
        const node *v = env->pairs[i].val;
        if (node_is_null(v)) continue;
        if (export_line(sb, env->pairs[i].key, node_text(v), e) < 0) return -1;
    }
    long long tp = model_int(job_cfg, "tensor_model_parallel_size", 1), cp = model_int(job_cfg, "context_parallel_size", 1);
    long long pp = model_int(job_cfg, "pipeline_model_parallel_size", 1);
    long long vp = model_int(job_cfg, "virtual_pipeline_model_parallel_size", 1);
    long long devices = 1;
    if (!node_get_int(node_get_path(job_cfg, "trainer.devices"), &devices) || devices < 1 || devices > 64) devices = 1;
    /* Megatron-Core orders TP/CP communication behind compute only with one hardware queue
     * (tensor_parallel/layers.py warns otherwise); the launcher sets it unless FSDP shards the model */
    if ((tp > 1 || cp > 1) && !model_bool(job_cfg, "fsdp")) sb_add(sb, "export CUDA_DEVICE_MAX_CONNECTIONS=1\n");
    sb_add(sb, "export CUDA_VISIBLE_DEVICES=");
    for (long long d = 0; d < devices; d++) sb_printf(sb, "%s%lld", d ? "," : "", d);
    sb_add(sb, "\n");
    /* the launcher asks the GPU at run time (collections/conditional_cfgs.py): compute capability 9
     * (Hopper) reserves 8 SMs for the pipeline's P2P overlap with LayerNorm, others 0 */
    bool hopper_probe = (pp > 1 && vp > 1) || (model_bool(job_cfg, "ub_tp_comm_overlap") && pp > 1);
    if (hopper_probe)
        sb_add(sb, "gpu_major=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | cut -d. -f1)\n");
    if (pp > 1 && vp > 1)
        sb_add(sb, "if [ \"$gpu_major\" = 9 ]; then ln_margin=8; else ln_margin=0; fi\n"
                   "export NVTE_FWD_LAYERNORM_SM_MARGIN=$ln_margin NVTE_BWD_LAYERNORM_SM_MARGIN=$ln_margin\n");
    /* AllGather overlap with ring exchange is skipped on Hopper in BF16 when PP > 1 (launcher _skip_ag_overlap) */
    if (model_bool(job_cfg, "ub_tp_comm_overlap") && pp > 1)
        sb_printf(sb, "if [ \"$gpu_major\" = 9 ] && [ %s = 0 ]; then export NVTE_UB_SPLIT_AG=0; else export NVTE_UB_SPLIT_AG=1; fi\n",
                  model_bool(job_cfg, "fp8") ? "1" : "0");
    sb_add(sb, "export PYTHONPATH=/opt/NeMo${PYTHONPATH:+:$PYTHONPATH}\n");
    return sb->oom ? ac_err_set(e, AC_E_NOMEM, "out of memory") : 0;
}

int exec_job_needs_pmix(const node *job_cfg)
{
    return model_bool(job_cfg, "ub_tp_comm_overlap");
}

const char *exec_container_image(const ac_config *c)
{
    return c->cluster.container_image[0] ? c->cluster.container_image : c->training_container;
}
