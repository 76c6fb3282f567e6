/* candidate_cfg.c — see candidate_cfg.h. */
#include "results/candidate_cfg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void results_time_limit_minutes(int minutes, char *buf, size_t len)
{
    if (minutes < 0) minutes = 0;
    snprintf(buf, len, "%d-%02d:%02d:00", minutes / 1440, (minutes % 1440) / 60, minutes % 60);
}

static int put(node *root, const char *path, node *v, ac_err *e)
{
    if (!v) return ac_err_set(e, AC_E_NOMEM, "out of memory");
    if (node_set_path(root, path, v, true) != 0)
        return ac_err_set(e, AC_E_INPUT, "base config: cannot set %s (a parent is not a mapping)", path);
    return 0;
}

static node *int_or_null(int v)
{
    return v < 0 ? node_null() : node_int(v);
}

/* optimizer names: the distributed optimizer shards Adam states over DP ranks */
static const char *optimizer_name(const node *cfg, bool distributed)
{
    const char *cur = node_text(node_get_path(cfg, "model.optim.name"));
    bool mcore = cur && strstr(cur, "mcore");
    if (distributed) return mcore ? "mcore_distributed_optim" : "distributed_fused_adam";
    return "fused_adam";
}

/* The knobs experts tune (issue 25), with the keys NeMo v2.0.0 (Megatron-Core 0.9) reads:
 * its megatron_gpt_config.yaml keys, or TransformerConfig fields it copies from model.*
 * by name (data/nemo_passthrough_keys.csv).  Written only where they differ from the base. */
static int write_expert_knobs(node *t, const search_candidate *k, ac_err *e)
{
    int rc = 0;
    if (k->ext_mask & SEARCH_EXT_PREC) {
        bool fp8 = k->precision == SEARCH_PREC_FP8;
        rc |= put(t, "model.fp8", node_bool(fp8), e);
        if (fp8) {
            rc |= put(t, "model.transformer_engine", node_bool(true), e); /* FP8 runs in Transformer Engine layers */
            rc |= put(t, "model.fp8_hybrid", node_bool(true), e);        /* E4M3 forward, E5M2 gradients */
        }
    }
    if (k->ext_mask & SEARCH_EXT_GRAD) rc |= put(t, "model.optim.grad_sync_dtype", node_str(k->grad_bf16 ? "bf16" : "fp32"), e);
    if (k->ext_mask & SEARCH_EXT_FP8PG) rc |= put(t, "model.fp8_params", node_bool(k->fp8_param_gather), e);
    if (k->ext_mask & SEARCH_EXT_GRAPHS) rc |= put(t, "model.enable_cuda_graph", node_bool(k->cuda_graphs), e);
    if (k->ext_mask & SEARCH_EXT_TPO) rc |= put(t, "model.ub_tp_comm_overlap", node_bool(k->tp_overlap), e);
    if (k->ext_mask & SEARCH_EXT_OFFLOAD) {
        rc |= put(t, "model.cpu_offloading", node_bool(k->offload_layers > 0), e);
        rc |= put(t, "model.cpu_offloading_num_layers", node_int(k->offload_layers), e);
        rc |= put(t, "model.cpu_offloading_activations", node_bool(true), e);
        rc |= put(t, "model.cpu_offloading_weights", node_bool(false), e); /* the estimator models activations only */
    }
    if (k->ext_mask & SEARCH_EXT_RCL) {
        /* the first N layers of each stage (VP chunk) recompute in full, the rest keep their activations */
        rc |= put(t, "model.activations_checkpoint_granularity", node_str("full"), e);
        rc |= put(t, "model.activations_checkpoint_method", node_str("block"), e);
        rc |= put(t, "model.activations_checkpoint_num_layers", node_int(k->act_ckpt_layers), e);
    }
    if (k->ext_mask & SEARCH_EXT_UNEVEN) {
        rc |= put(t, "model.first_pipeline_num_layers", node_int(k->first_layers), e);
        rc |= put(t, "model.last_pipeline_num_layers", node_int(k->last_layers), e);
    }
    return rc;
}

node *results_candidate_config(const model_base_config *base, const ac_config *c, const search_candidate *k,
                               const char *run_name, ac_err *e)
{
    node *t = node_clone(base->cfg);
    if (!t) { ac_err_set(e, AC_E_NOMEM, "out of memory"); return NULL; }
    bool t5 = base->family->arch == ARCH_ENCODER_DECODER;
    char limit[32];
    results_time_limit_minutes(c->train.max_minutes_per_run, limit, sizeof limit);
    int rc = 0;
    if (k->act_ckpt_layers >= 0) {
        if (t5) {
            rc |= put(t, "model.encoder.activations_checkpoint_num_layers", node_int(k->act_ckpt_layers / 2), e);
            rc |= put(t, "model.decoder.activations_checkpoint_num_layers", node_int(k->act_ckpt_layers / 2), e);
        } else {
            rc |= put(t, "model.activations_checkpoint_num_layers", node_int(k->act_ckpt_layers), e);
        }
    }
    if (!t5) {
        if (k->num_mbs_act >= 0)
            rc |= put(t, "model.num_micro_batches_with_partial_activation_checkpoints", int_or_null(k->num_mbs_act), e);
        if (k->act_per_pipe >= 0)
            rc |= put(t, "model.activations_checkpoint_layers_per_pipeline", int_or_null(k->act_per_pipe), e);
        if (k->vp > 0) rc |= put(t, "model.virtual_pipeline_model_parallel_size", node_int(k->vp), e);
    }
    rc |= put(t, "model.tensor_model_parallel_size", node_int(k->tp), e);
    rc |= put(t, "model.pipeline_model_parallel_size", node_int(k->pp), e);
    rc |= put(t, "model.micro_batch_size", node_int(k->mbs), e);
    if (k->cp != 1 || node_get_path(t, "model.context_parallel_size"))
        rc |= put(t, "model.context_parallel_size", node_int(k->cp), e);
    if (k->ep != 1 || node_get_path(t, "model.expert_model_parallel_size"))
        rc |= put(t, "model.expert_model_parallel_size", node_int(k->ep), e);
    rc |= put(t, "trainer.num_nodes", node_int(c->train.num_nodes), e);
    rc |= put(t, "trainer.devices", node_int(c->train.gpus_per_node), e);
    rc |= put(t, "trainer.max_steps", node_int(c->train.max_steps_per_run), e);
    rc |= put(t, "trainer.val_check_interval", node_int(c->train.max_steps_per_run), e);
    rc |= put(t, "run.time_limit", node_str(limit), e);
    rc |= put(t, "run.name", node_str(run_name), e);
    /* extension knobs: written only when they differ from the base config */
    if (k->ext_mask & SEARCH_EXT_GBS) rc |= put(t, "model.global_batch_size", node_int(k->gbs), e);
    if (k->ext_mask & SEARCH_EXT_SP) rc |= put(t, "model.sequence_parallel", node_bool(k->sequence_parallel), e);
    if (k->ext_mask & SEARCH_EXT_DO) rc |= put(t, "model.optim.name", node_str(optimizer_name(t, k->distributed_optimizer)), e);
    if (k->ext_mask & SEARCH_EXT_RC) {
        const char *prefix[2] = { "model.", NULL };
        if (t5) { prefix[0] = "model.encoder."; prefix[1] = "model.decoder."; }
        for (int i = 0; i < 2 && prefix[i]; i++) {
            char p[128];
            snprintf(p, sizeof p, "%sactivations_checkpoint_granularity", prefix[i]);
            rc |= put(t, p, k->recompute == SEARCH_RC_NONE ? node_null()
                            : node_str(k->recompute == SEARCH_RC_FULL ? "full" : "selective"), e);
            if (k->recompute == SEARCH_RC_FULL && k->act_ckpt_layers < 0) {
                /* full recompute of every layer: Megatron's uniform method, one layer per chunk */
                snprintf(p, sizeof p, "%sactivations_checkpoint_method", prefix[i]);
                rc |= put(t, p, node_str("uniform"), e);
                snprintf(p, sizeof p, "%sactivations_checkpoint_num_layers", prefix[i]);
                rc |= put(t, p, node_int(1), e);
            }
        }
    }
    rc |= write_expert_knobs(t, k, e);
    if (rc) { node_free(t); return NULL; }
    return t;
}

long long results_full_run_steps(double num_tokens_in_b, int gbs, int seq_length)
{
    double tokens_per_step = (double)gbs * seq_length;
    if (tokens_per_step <= 0 || num_tokens_in_b <= 0) return 0;
    return (long long)(num_tokens_in_b * 1e9 / tokens_per_step); /* int(), as the base config's max_steps */
}

/* a schedule length of the base config rescaled from the base GBS to the candidate's */
static int rescale_steps(node *t, const char *path, int base_gbs, int gbs, ac_err *e)
{
    long long v;
    const node *n = node_get_path(t, path);
    if (!n || node_is_null(n) || !node_get_int(n, &v) || gbs == base_gbs || gbs <= 0) return 0;
    return put(t, path, node_int((long long)((double)v * base_gbs / gbs)), e);
}

node *results_full_run_config(const model_base_config *base, const ac_config *c, const search_candidate *k,
                              const char *run_name, ac_err *e)
{
    node *t = results_candidate_config(base, c, k, run_name, e);
    if (!t) return NULL;
    int seq = base->shape.seq_length ? base->shape.seq_length : c->train.seq_length;
    long long steps = results_full_run_steps(c->train.num_tokens_in_b, k->gbs, seq);
    char limit[32], max_time[32];
    model_time_limit_text(c->train.max_training_days, limit, sizeof limit);
    model_max_time_text(c->train.max_training_days, max_time, sizeof max_time);
    long long val = steps > 0 && steps < 2000 ? steps : 2000;
    int rc = 0;
    if (steps > 0) rc |= put(t, "trainer.max_steps", node_int(steps), e);
    rc |= put(t, "trainer.val_check_interval", node_int(val), e);
    rc |= put(t, "trainer.max_time", node_str(max_time), e);
    rc |= put(t, "run.time_limit", node_str(limit), e);
    rc |= rescale_steps(t, "model.optim.sched.warmup_steps", base->gbs, k->gbs, e);
    rc |= rescale_steps(t, "model.optim.sched.constant_steps", base->gbs, k->gbs, e);
    /* checkpoints come from exp_manager (trainer.enable_checkpointing stays False, as NeMo wants) */
    rc |= put(t, "exp_manager.create_checkpoint_callback", node_bool(true), e);
    rc |= put(t, "exp_manager.resume_if_exists", node_bool(true), e);
    if (rc) { node_free(t); return NULL; }
    return t;
}
