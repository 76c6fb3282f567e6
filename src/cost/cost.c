/* cost.c — scoring and searching training setups by $ per million tokens.
 *
 * Each setup (GPU type and count, ZeRO stage, offload, checkpointing, TP/PP,
 * micro batch) becomes an est_input; the estimator gives GPU memory, the
 * offloaded host memory and the step time.  This file adds what a user renting
 * GPUs needs on top: host memory per node (offloaded states of the node's
 * ranks, plus the consolidated checkpoint rank 0 gathers), MFU under a stated
 * convention, time and $ for the run, and the ranking.
 */
#include "cost/cost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cost/cost_published.h"
#include "estimator/band.h"
#include "model/layer.h"

#define GIB EST_GIB

const char COST_MFU_CONVENTION[] =
    "MFU = model FLOPs / (step time x GPUs x dense BF16 peak); model FLOPs per token = 6 x N "
    "(4 x N for LoRA: frozen weights get no weight gradients) + 6 x layers x heads x (key + value head dims) x context "
    "(attention, PaLM appendix B, no causal halving); N = parameters active per token without the input "
    "embedding; recomputation is not counted (HFU counts it)";

/* host memory a training process needs besides offloaded states: the CUDA/PyTorch
 * runtime, pinned staging buffers and dataloader workers (a stated allowance) */
#define HOST_PER_PROCESS_GB 6.0
/* of the node's RAM, the share a job may pin (the OS and page cache keep the rest) */
#define HOST_USABLE_FRAC 0.9

static const char *const TASK_NAMES[] = {[COST_PRETRAIN] = "pretrain", [COST_FULL] = "full", [COST_LORA] = "lora"};

const char *cost_task_name(cost_task t) { return t <= COST_LORA ? TASK_NAMES[t] : "?"; }

int cost_task_parse(const char *text, cost_task *out)
{
    static const struct {
        const char *spelling;
        cost_task t;
    } SP[] = {{"pretrain", COST_PRETRAIN}, {"pre-training", COST_PRETRAIN}, {"pretraining", COST_PRETRAIN},
              {"full", COST_FULL},         {"full-finetune", COST_FULL},    {"sft", COST_FULL},
              {"finetune", COST_FULL},     {"lora", COST_LORA},             {"peft", COST_LORA}};
    for (size_t i = 0; i < sizeof SP / sizeof *SP; i++)
        if (!strcmp(text, SP[i].spelling)) {
            *out = SP[i].t;
            return 0;
        }
    return -1;
}

/* ---------- LoRA target modules ---------- */

typedef enum { DIM_H, DIM_Q, DIM_KV, DIM_F } lora_dim;

/* the linear layers PEFT can adapt, by their common names (HF Llama/Mistral,
 * GPT-NeoX, Megatron), with input and output widths */
static const struct {
    const char *names; /* '|'-separated */
    lora_dim in, out;
    bool mlp;          /* repeated per expert in MoE models */
} LORA_MODULES[] = {
    {"q_proj|q|query|wq", DIM_H, DIM_Q, false},
    {"k_proj|k|key|wk", DIM_H, DIM_KV, false},
    {"v_proj|v|value|wv", DIM_H, DIM_KV, false},
    {"o_proj|o|out_proj|dense|wo", DIM_Q, DIM_H, false},
    {"gate_proj|gate|w1", DIM_H, DIM_F, true},
    {"up_proj|up|w3", DIM_H, DIM_F, true},
    {"down_proj|down|w2", DIM_F, DIM_H, true},
};
_Static_assert(sizeof LORA_MODULES / sizeof *LORA_MODULES == (size_t)COST_LORA_MODULES, "LORA_MODULES holds cost.h's modules, in its order");

static double lora_width(lora_dim d, const model_shape *s)
{
    double hd = shape_head_dim(s);
    double g = shape_query_groups(s);
    switch (d) {
    case DIM_H: return s->hidden;
    case DIM_Q: return s->heads * hd;
    case DIM_KV: return g * hd;
    case DIM_F: return shape_is_moe(s) ? s->moe_ffn_hidden : s->ffn_hidden;
    }
    return s->hidden;
}

static int lora_module_find(const char *name)
{
    for (int i = 0; i < COST_LORA_MODULES; i++) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s", LORA_MODULES[i].names);
        for (char *save = NULL, *t = strtok_r(buf, "|", &save); t; t = strtok_r(NULL, "|", &save))
            if (!strcmp(t, name)) return i;
    }
    return -1;
}

/* Adapter size of a module is r·(in + out) (Hu et al. 2021 §4.1); the estimator
 * counts adapters as r·2h each, so the list becomes Σ (in+out)/2h, rounded. */
int cost_lora_modules(const char *list, bool use[COST_LORA_MODULES], ac_err *e)
{
    char buf[256];
    for (int i = 0; i < COST_LORA_MODULES; i++) use[i] = false;
    if (!list || !*list) return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "lora_target_modules", "is empty");
    if (strlen(list) >= sizeof buf)
        return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "lora_target_modules", "longer than %zu characters", sizeof buf - 1);
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *t = strtok_r(buf, ", []", &save); t; t = strtok_r(NULL, ", []", &save)) {
        if (!strcmp(t, "all-linear") || !strcmp(t, "all_linear") || !strcmp(t, "all")) {
            for (int i = 0; i < COST_LORA_MODULES; i++) use[i] = true;
            continue;
        }
        int i = lora_module_find(t);
        if (i < 0)
            return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "lora_target_modules",
                             "unknown module '%s' (known: q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj, "
                             "all-linear)", t);
        use[i] = true;
    }
    return 0;
}

/* Σ (in + out) / 2h over the adapted modules; an MoE model's MLP modules count once per expert
 * (every expert holds adapters) or, per_token, once per expert a token is routed to (top-k) */
static double lora_sum(const bool use[COST_LORA_MODULES], const model_shape *s, bool per_token)
{
    double sum = 0.0;
    for (int i = 0; i < COST_LORA_MODULES; i++) {
        if (!use[i]) continue;
        if (i == COST_LORA_GATE && !s->gated_mlp) continue; /* a plain MLP has no gate */
        double copies = LORA_MODULES[i].mlp && shape_is_moe(s) ? (per_token ? shape_moe_topk(s) : s->num_experts) : 1.0;
        sum += copies * (lora_width(LORA_MODULES[i].in, s) + lora_width(LORA_MODULES[i].out, s)) / (2.0 * s->hidden);
    }
    return sum;
}

int cost_lora_targets(const char *list, const model_shape *s, int *out, ac_err *e)
{
    bool use[COST_LORA_MODULES];
    if (cost_lora_modules(list, use, e)) return -1;
    double sum = lora_sum(use, s, false);
    if (sum <= 0) return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "lora_target_modules", "selects no linear layer of this model");
    *out = (int)lround(sum) > 0 ? (int)lround(sum) : 1;
    return 0;
}

double cost_lora_token_targets(const char *list, const model_shape *s)
{
    bool use[COST_LORA_MODULES];
    ac_err e;
    return cost_lora_modules(list, use, &e) ? 0.0 : lora_sum(use, s, true);
}

/* ---------- request ---------- */

void cost_request_init(cost_request *rq, const cost_model *m)
{
    memset(rq, 0, sizeof *rq);
    if (m) rq->model = *m;
    rq->task = COST_FULL;
    rq->lora_rank = 16;
    rq->lora_targets = 4;
    snprintf(rq->lora_modules, sizeof rq->lora_modules, "q_proj,k_proj,v_proj,o_proj");
    rq->context = m ? m->shape.seq_length : 0;
    rq->tokens_b = 1.0;
    rq->gbs = 64;
    rq->cpu_mem_node_gb = 768.0;
    rq->precision = PREC_BF16;
    rq->overlap_comm = true;
    rq->pin_memory = true;
}

/* ---------- model FLOPs and parameters ---------- */

typedef struct {
    double total;        /* every parameter */
    double active;       /* per token, without the input embedding (MFU's N) */
    double attn_per_tok; /* 12·L·a·d·context: attention FLOPs per token (fwd + bwd) */
} cost_params;

static cost_params params_of(const model_shape *s, int context)
{
    cost_params p = {0};
    double h = s->hidden, a = s->heads;
    double L = shape_total_layers(s);
    double stacks = L / s->num_layers;
    layer_attn at;
    layer_attn_of(s, &at);
    /* layer.h: attention (MHA/GQA/MLA), leading dense layers, expert layers (experts,
     * shared experts, router); active = the GEMM weights one token passes */
    double V = s->vocab;
    p.total = L * (at.weights + 2.0 * h) + stacks * layer_stack_mlp_weights(s, NULL) + V * h * (s->untied_embeddings ? 2.0 : 1.0) +
              (s->learned_pos_emb ? (double)s->seq_length * h : 0.0);
    p.active = stacks * layer_stack_active_gemm_weights(s) + V * h;
    p.attn_per_tok = 6.0 * L * a * (at.qk_dim + at.v_dim) * context;
    return p;
}

/* model FLOPs per trained token under COST_MFU_CONVENTION */
static double flops_per_token(const cost_request *rq, const cost_params *p)
{
    return (rq->task == COST_LORA ? 4.0 : 6.0) * p->active + p->attn_per_tok;
}

double cost_cookbook_mfu(const cost_request *rq, const cost_option *o)
{
    model_shape s = rq->model.shape;
    s.seq_length = rq->context;
    cost_params P = params_of(&s, rq->context);
    double n = shape_is_moe(&s) ? P.active + (double)s.vocab * s.hidden : P.total;
    double peak = est_peak_tflops(o->gpu, rq->precision) * 1e12 * o->k.num_gpus;
    return peak > 0 ? 6.0 * n * o->tokens_per_s / peak : 0.0;
}

/* ---------- one setup ---------- */

static int fail_rule(cost_option *o, ac_err *e, const char *msg)
{
    snprintf(o->why, sizeof o->why, "%s", msg);
    return ac_err_set(e, AC_E_INPUT, "%s", msg);
}

static void make_label(const cost_request *rq, cost_option *o)
{
    const cost_knobs *k = &o->k;
    char off[40] = "";
    if (k->offload_optimizer || k->offload_params)
        snprintf(off, sizeof off, " offload %s%s%s", k->offload_optimizer ? "opt" : "", k->offload_optimizer && k->offload_params ? "+" : "",
                 k->offload_params ? "params" : "");
    char par[32] = "";
    if (k->tp > 1 || k->pp > 1) snprintf(par, sizeof par, " TP%d PP%d", k->tp, k->pp);
    char inst[96] = "";
    const cost_instance *pi = rq->pools[k->pool].inst;
    if (pi)
        snprintf(inst, sizeof inst, " (%dx %s%s%s)", o->nodes, pi->name, o->rank0_inst ? ", rank 0 on " : "",
                 o->rank0_inst ? o->rank0_inst->name : "");
    snprintf(o->label, sizeof o->label, "%dx %s%s%s %s%s mbs %d ga %d ckpt %s%s", k->num_gpus, o->gpu->name, inst, par,
             cost_shard_name(rq, k), off, k->mbs, o->grad_accum, k->checkpointing ? "on" : "off", rq->task == COST_LORA ? " LoRA" : "");
}

static bool stack_is_fsdp2(const est_stack *st) { return st && !strcmp(st->name, "pytorch-fsdp2"); }

bool cost_stack_is_fsdp(const est_stack *st)
{
    /* FSDP1 (Accelerate's files) and FSDP2 (torchtune's recipes, torchtitan) */
    return st && (!strcmp(st->name, "pytorch-fsdp") || stack_is_fsdp2(st));
}

bool cost_is_fsdp(const cost_request *rq, const cost_knobs *k)
{
    return cost_stack_is_fsdp(cost_stack_of(rq)) && k->tp == 1 && k->pp == 1;
}

cost_fsdp_mode cost_fsdp_mode_of(const cost_request *rq, const cost_knobs *k)
{
    if (!cost_is_fsdp(rq, k)) return COST_FSDP_NONE;
    if (!stack_is_fsdp2(cost_stack_of(rq))) return COST_FSDP1;
    return k->zero < 2 ? COST_FSDP2_DDP : COST_FSDP2;
}

const char *cost_shard_name(const cost_request *rq, const cost_knobs *k)
{
    /* PyTorch FSDP's own names for the ZeRO stages it implements (ShardingStrategy) */
    switch (cost_fsdp_mode_of(rq, k)) {
    case COST_FSDP1: return k->zero >= 3 ? "FSDP FULL_SHARD" : k->zero == 2 ? "FSDP SHARD_GRAD_OP" : "FSDP NO_SHARD";
    case COST_FSDP2: return k->zero >= 3 ? "FSDP2 FULL_SHARD" : "FSDP2 SHARD_GRAD_OP";
    case COST_FSDP2_DDP: return "DDP";
    case COST_FSDP_NONE: break;
    }
    static const char *const ZERO[] = {"ZeRO-0", "ZeRO-1", "ZeRO-2", "ZeRO-3"};
    return k->zero >= 0 && k->zero <= 3 ? ZERO[k->zero] : "ZeRO-?";
}

/* usable host memory of a node (GiB): the instance's RAM, else the request's per-node figure */
double cost_host_limit_gib(const cost_request *rq, const cost_instance *inst)
{
    double bytes = inst ? inst->host_ram_gib * GIB : rq->cpu_mem_node_gb * 1e9;
    return bytes * HOST_USABLE_FRAC / GIB;
}

/* the request's rank-0 instance when it can stand in for node 0 of this pool: same GPU
 * type and count, more RAM */
static const cost_instance *rank0_for(const cost_request *rq, const cost_pool *pool)
{
    const cost_instance *r0 = rq->rank0, *w = pool->inst;
    if (!r0 || !w || r0 == w || r0->gpus != w->gpus || strcmp(r0->node.name, w->node.name)) return NULL;
    return r0->host_ram_gib > w->host_ram_gib ? r0 : NULL;
}

/* The stacks whose runs this stage's files configure, and whether those files carry a TP/PP
 * split beyond what the stack itself runs (data/stacks.csv parallelism: Hugging Face + DeepSpeed and
 * Composer are data-parallel): the Accelerate or torchtune FSDP files are data-parallel only
 * (torchtitan composes TP, but is not what they configure); the Megatron stacks (Megatron-Core,
 * NeMo 1.x, Megatron-DeepSpeed) take TP/PP layouts.  A JAX/XLA run is configured by MaxText's or
 * Paxml's own flags, which no file here writes. */
static const struct {
    const char *name;
    bool files_dp_only;
} COST_STACKS[] = {
    {"hf-deepspeed", false},  {"pytorch-fsdp", true},       {"pytorch-fsdp2", true},      {"llm-foundry-2023", false},
    {"megatron-core", false}, {"nemo-megatron-2022", false}, {"megatron-deepspeed", false},
};

static int cost_stack_index(const est_stack *st)
{
    for (size_t i = 0; st && i < sizeof COST_STACKS / sizeof *COST_STACKS; i++)
        if (!strcmp(st->name, COST_STACKS[i].name)) return (int)i;
    return -1;
}

int cost_stack_check(const est_stack *st, const char *key, ac_err *e)
{
    if (!st || cost_stack_index(st) >= 0) return 0;
    return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, key,
                     "the cost stage writes Hugging Face + DeepSpeed, FSDP and Megatron launch files, none of which runs "
                     "%s; predict its runs with `autoconfig estimate --framework %s`",
                     st->name, st->name);
}

const est_stack *cost_stack_of(const cost_request *rq)
{
    if (rq->stack) return rq->stack;
    /* found once: every evaluation's label asks (cost_shard_name); the table never moves */
    static const est_stack *hf;
    if (!hf) hf = est_stack_find("hf-deepspeed");
    return hf ? hf : est_stack_default();
}

int cost_evaluate(const cost_request *rq, const cost_knobs *k, cost_option *o, ac_err *e)
{
    memset(o, 0, sizeof *o);
    o->k = *k;
    if (k->pool < 0 || k->pool >= rq->n_pools) return fail_rule(o, e, "no such GPU pool");
    const cost_pool *pool = &rq->pools[k->pool];
    o->gpu = pool->gpu;
    o->price = pool->price;
    if (k->num_gpus < 1 || k->tp < 1 || k->pp < 1 || k->mbs < 1) return fail_rule(o, e, "sizes must be at least 1");
    /* framework rules (cost.h): Megatron TP/PP with at most its distributed optimizer
     * (ZeRO-1) and no offload; DeepSpeed offload needs ZeRO ≥ 1, parameter offload ZeRO-3 */
    if ((k->tp > 1 || k->pp > 1) && (k->zero > 1 || k->offload_optimizer || k->offload_params))
        return fail_rule(o, e, "TP/PP runs on Megatron: ZeRO-2/3 and CPU offload are DeepSpeed/FSDP-only here");
    if (k->offload_optimizer && k->zero < 1) return fail_rule(o, e, "optimizer offload needs ZeRO stage 1 or more");
    if (k->offload_params && k->zero < 3) return fail_rule(o, e, "parameter offload needs ZeRO stage 3");
    int node = pool->gpu->gpus_per_node > 0 ? pool->gpu->gpus_per_node : 8;
    if (k->tp > node) return fail_rule(o, e, "TP larger than a node's GPUs");

    est_input in;
    model_shape s = rq->model.shape;
    s.seq_length = rq->context;
    est_input_init(&in, &s, pool->gpu);
    in.tp = k->tp;
    in.pp = k->pp;
    in.num_gpus = k->num_gpus;
    in.gpus_per_node = k->num_gpus < node ? k->num_gpus : node;
    in.mbs = k->mbs;
    in.gbs = rq->gbs;
    /* the stack's mechanisms (attention kernel, model code, gradient dtype, overlap) */
    const est_stack *st = cost_stack_of(rq);
    est_stack_apply(&in, st);
    in.sequence_parallel = est_stack_sequence_parallel(st, k->tp);
    in.recompute = k->checkpointing ? RECOMPUTE_FULL : RECOMPUTE_NONE;
    in.zero_stage = k->zero;
    in.offload_optimizer = k->offload_optimizer;
    in.offload_params = k->offload_params;
    /* ds_config.json sets zero_optimization.overlap_comm true with ZeRO >= 1 (cost_deepspeed_json);
     * unset, the stack's default (DeepSpeed: ZeRO-3 only) */
    in.dp_overlap_on = k->zero >= 1 && rq->overlap_comm;
    in.offload_pageable = !rq->pin_memory;
    /* Transformers' SDPA path hands a model with a sliding window on every layer (Mistral's
     * sliding_window) an explicit 4-D mask once the sequence reaches the window: only
     * key_value_length < sliding_window keeps is_causal (AttentionMaskConverter._ignore_causal_mask_sdpa,
     * masking_utils since 4.48 alike; transformers issue #30461) */
    bool window_mask = st && st->masked_attn_eff_ratio > 0 && s.swa_window > 0 && s.swa_share >= 1.0 && rq->context >= s.swa_window;
    in.attn_explicit_mask = rq->attn_explicit_mask || window_mask;
    in.lora_rank = rq->task == COST_LORA ? rq->lora_rank : 0;
    in.lora_targets = rq->lora_targets;
    /* the adapters a token passes (MoE: its top-k experts'), for the adapters' unfused passes */
    in.lora_token_targets = in.lora_rank > 0 && rq->lora_modules[0] ? cost_lora_token_targets(rq->lora_modules, &s) : 0.0;
    /* gradients: the stack's dtype (DeepSpeed 16-bit, Megatron and FSDP fp32) */
    in.precision = rq->precision;
    in.price_per_gpu_hour = pool->price;
    if (est_evaluate(&in, &o->est)) return fail_rule(o, e, o->est.why);

    const est_result *r = &o->est;
    cost_params P = params_of(&s, rq->context);
    o->dp = k->num_gpus / (k->tp * k->pp);
    o->nodes = (k->num_gpus + node - 1) / node;
    o->grad_accum = r->num_microbatches;
    o->gbs = rq->gbs;
    o->gpu_mem_gib = r->mem_total / GIB;
    o->gpu_limit_gib = r->mem_limit / GIB;
    /* rank 0 writes a consolidated checkpoint: the full 16-bit weights on its host
     * (DeepSpeed stage3_gather_16bit_weights_on_model_save; FSDP FULL_STATE_DICT with
     * rank0_only), only the adapters under LoRA */
    double trainable = rq->task == COST_LORA ? (double)s.num_layers * rq->lora_targets * rq->lora_rank * 2.0 * s.hidden : P.total;
    o->rank0_gather_gib = trainable * 2.0 / GIB;
    int ranks_on_node = in.gpus_per_node;
    double node_states_gib = (r->cpu_mem_per_gpu * ranks_on_node + HOST_PER_PROCESS_GB * 1e9 * ranks_on_node) / GIB;
    o->cpu_mem_node_gib = node_states_gib + o->rank0_gather_gib;
    o->cpu_limit_gib = cost_host_limit_gib(rq, pool->inst);
    o->price = pool->price;
    /* a heterogeneous rank 0 only when node 0 (with the gather) does not fit a worker
     * instance: node 0 then runs on the larger instance, the others stay as they are */
    const cost_instance *r0 = rank0_for(rq, pool);
    if (r0 && o->cpu_mem_node_gib > o->cpu_limit_gib) {
        o->rank0_inst = r0;
        if (o->nodes > 1) {
            o->cpu_mem_worker_gib = node_states_gib;
            o->cpu_worker_limit_gib = o->cpu_limit_gib;
        }
        o->cpu_limit_gib = cost_host_limit_gib(rq, r0);
        o->price = (r0->price_per_hour + (o->nodes - 1) * pool->price * pool->inst->gpus) / ((double)o->nodes * pool->inst->gpus);
    }
    o->step_time_s = r->step_time;
    o->tokens_per_s = r->tokens_per_s;
    o->mtok_per_hour = r->tokens_per_s * 3600.0 / 1e6;
    double peak = est_peak_tflops(pool->gpu, rq->precision) * 1e12 * k->num_gpus;
    double fpt = flops_per_token(rq, &P);
    o->mfu = fpt * r->tokens_per_s / peak;
    double recomputed = k->checkpointing ? 2.0 * P.active + P.attn_per_tok / 3.0 : 0.0;
    o->hfu = (fpt + recomputed) * r->tokens_per_s / peak;
    double tokens = rq->tokens_b * 1e9;
    o->hours = tokens / r->tokens_per_s / 3600.0;
    o->usd_total = o->hours * k->num_gpus * o->price;
    o->usd_per_mtok = k->num_gpus * o->price / o->mtok_per_hour;
    o->optimizer_steps = tokens / ((double)rq->gbs * rq->context);

    bool gpu_ok = r->fits, cpu_ok = o->cpu_mem_node_gib <= o->cpu_limit_gib && o->cpu_mem_worker_gib <= o->cpu_worker_limit_gib;
    o->feasible = gpu_ok && cpu_ok;
    o->rank0_makes_fit = o->feasible && o->rank0_inst;
    if (!gpu_ok)
        snprintf(o->why, sizeof o->why, "GPU memory: needs %.1f GiB per GPU, has %.1f GiB usable (%.1f GiB over)", o->gpu_mem_gib,
                 o->gpu_limit_gib, o->gpu_mem_gib - o->gpu_limit_gib);
    else if (!cpu_ok && o->cpu_mem_worker_gib > o->cpu_worker_limit_gib)
        snprintf(o->why, sizeof o->why, "host memory: needs %.0f GiB per worker node, has %.0f GiB usable (%.0f GiB over)",
                 o->cpu_mem_worker_gib, o->cpu_worker_limit_gib, o->cpu_mem_worker_gib - o->cpu_worker_limit_gib);
    else if (!cpu_ok)
        snprintf(o->why, sizeof o->why, "host memory: needs %.0f GiB per node%s, has %.0f GiB usable (%.0f GiB over)",
                 o->cpu_mem_node_gib, o->rank0_inst ? " on rank 0's" : "", o->cpu_limit_gib, o->cpu_mem_node_gib - o->cpu_limit_gib);
    make_label(rq, o);
    return 0;
}

/* ---------- search ---------- */

/* how far a setup is from fitting (1 = exactly fits) */
static double overshoot(const cost_option *o)
{
    double g = o->gpu_limit_gib > 0 ? o->gpu_mem_gib / o->gpu_limit_gib : INFINITY;
    double c = o->cpu_limit_gib > 0 ? o->cpu_mem_node_gib / o->cpu_limit_gib : INFINITY;
    return g > c ? g : c;
}

/* a beats b: cheaper per token, then faster, then fewer GPUs */
static bool cheaper(const cost_option *a, const cost_option *b)
{
    if (a->usd_per_mtok != b->usd_per_mtok) return a->usd_per_mtok < b->usd_per_mtok;
    if (a->hours != b->hours) return a->hours < b->hours;
    return a->k.num_gpus < b->k.num_gpus;
}

/* CPU offload a setup leans on: parameters (every micro-batch crosses PCIe) weigh more than
 * the optimizer (once per step) */
static int offload_weight(const cost_option *o) { return 2 * o->k.offload_params + o->k.offload_optimizer; }

/* within one (GPU type, count): a setup priced like b within the tie band that offloads less
 * wins (offload is PCIe- and CPU-bound, the part of a prediction least certain); else the cheaper */
static bool better_in_cell(const cost_option *a, const cost_option *b)
{
    if (cost_same_price(a->usd_per_mtok, b->usd_per_mtok, fmax(cost_tie_band(a), cost_tie_band(b))) &&
        offload_weight(a) != offload_weight(b))
        return offload_weight(a) < offload_weight(b);
    return cheaper(a, b);
}

static bool faster(const cost_option *a, const cost_option *b)
{
    if (a->hours != b->hours) return a->hours < b->hours;
    return a->usd_per_mtok < b->usd_per_mtok;
}

/* the setups of one (GPU type, count): DeepSpeed/FSDP (ZeRO 0-3, offload) and
 * Megatron TP×PP (ZeRO 0-1), each micro batch dividing the batch, checkpointing on/off */
static void search_cell(const cost_request *rq, int pool, int n, cost_option *best, cost_option *miss, bool *have_best,
                        bool *have_miss, cost_option *host_miss, bool *have_host_miss, size_t *n_eval, size_t *n_feas)
{
    static const struct {
        int zero;
        bool opt, params;
    } DS[] = {{0, false, false}, {1, false, false}, {2, false, false}, {3, false, false}, {1, true, false},
              {2, true, false},  {3, true, false},  {3, false, true},  {3, true, true}};
    const gpu_spec *g = rq->pools[pool].gpu;
    int node = g->gpus_per_node > 0 ? g->gpus_per_node : 8;
    const model_shape *s = &rq->model.shape;
    int L = shape_total_layers(s);
    int groups = shape_query_groups(s);
    /* the data-parallel stacks take no TP/PP (COST_STACKS) */
    bool fsdp = cost_stack_is_fsdp(rq->stack);
    const est_stack *st = cost_stack_of(rq);
    int si = cost_stack_index(st);
    bool dp_only = si < 0 || COST_STACKS[si].files_dp_only || !est_stack_runs(st, EST_PAR_TP | EST_PAR_PP);
    for (int tp = 1; tp <= node && tp <= n; tp *= 2) {
        if (s->heads % tp || groups % tp) continue;
        for (int pp = 1; pp <= L && tp * pp <= n; pp++) {
            if (L % pp || n % (tp * pp) || (dp_only && tp * pp > 1)) continue;
            if (pp > 1 && pp & (pp - 1)) continue; /* powers of two: what launchers offer */
            int dp = n / (tp * pp);
            if (rq->gbs % dp) continue;
            bool megatron = tp * pp > 1;
            size_t nds = megatron ? 2 : sizeof DS / sizeof *DS;
            for (size_t z = 0; z < nds; z++) {
                if (dp == 1 && DS[z].zero > 0 && !DS[z].opt && !DS[z].params) continue; /* ZeRO without DP is stage 0 */
                /* PyTorch FSDP has NO_SHARD (0), SHARD_GRAD_OP (2) and FULL_SHARD (3), no optimizer-only
                 * sharding, and CPUOffload(offload_params=True) moves parameters, gradients and the
                 * optimizer step together (torch.distributed.fsdp ShardingStrategy, CPUOffload docs) */
                if (fsdp && (DS[z].zero == 1 || DS[z].opt != DS[z].params || (DS[z].params && DS[z].zero < 3))) continue;
                for (int mbs = 1; mbs <= rq->gbs / dp && mbs <= 64; mbs *= 2) {
                    if (rq->gbs % (mbs * dp)) continue;
                    for (int ck = 0; ck < 2; ck++) {
                        cost_knobs k = {pool, n, tp, pp, mbs, DS[z].zero, DS[z].opt, DS[z].params, ck == 1};
                        cost_option o;
                        ac_err e;
                        if (cost_evaluate(rq, &k, &o, &e)) continue;
                        (*n_eval)++;
                        if (o.feasible) {
                            (*n_feas)++;
                            if (!*have_best || better_in_cell(&o, best)) { *best = o; *have_best = true; }
                        } else if (o.est.fits && (!*have_host_miss || overshoot(&o) < overshoot(host_miss))) {
                            /* fits the GPU, not the host: the alternative a GPU-memory miss names */
                            *host_miss = o;
                            *have_host_miss = true;
                        }
                        if (!o.feasible && (!*have_miss || overshoot(&o) < overshoot(miss))) {
                            *miss = o;
                            *have_miss = true;
                        }
                    }
                }
            }
        }
    }
}

static const cost_result *sort_ctx;
static int by_time_cmp(const void *a, const void *b)
{
    const cost_option *x = &sort_ctx->opt[*(const size_t *)a], *y = &sort_ctx->opt[*(const size_t *)b];
    return faster(x, y) ? -1 : faster(y, x) ? 1 : 0;
}

/* the tie band: the ranking band of the option's GPU and stack (data/bands.csv rank_band_rel,
 * what validation says two layouts of one model on one GPU can be mis-ordered by), so a
 * cheaper-looking slower setup does not win on noise */
double cost_tie_band(const cost_option *o) { return o ? est_rank_band_rel(&o->est) : 0.0; }

bool cost_same_price(double a, double b, double band)
{
    double lo = a < b ? a : b;
    return fabs(a - b) <= band * lo;
}

static int item_usd_cmp(const void *a, const void *b)
{
    const cost_rank_item *x = a, *y = b;
    if (x->usd_per_mtok != y->usd_per_mtok) return x->usd_per_mtok < y->usd_per_mtok ? -1 : 1;
    if (x->hours != y->hours) return x->hours < y->hours ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}
static int item_hours_cmp(const void *a, const void *b)
{
    const cost_rank_item *x = a, *y = b;
    if (x->hours != y->hours) return x->hours < y->hours ? -1 : 1;
    return item_usd_cmp(a, b);
}

void cost_rank_by_price(cost_rank_item *it, size_t n)
{
    qsort(it, n, sizeof *it, item_usd_cmp);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && cost_same_price(it[j].usd_per_mtok, it[i].usd_per_mtok, fmax(it[i].band, it[j].band))) j++;
        qsort(it + i, j - i, sizeof *it, item_hours_cmp);
        i = j;
    }
}

const char *cost_band_of(const cost_request *rq, const cost_option *o, double *rel, char *buf, size_t len)
{
    const est_stack *st = cost_stack_of(rq);
    const char *sn = st ? st->name : "megatron-core";
    double b = est_band_rel(&o->est), pb, med;
    int prows;
    bool on_gpu;
    est_band_source src = est_band_source_of(o->gpu, st);
    *rel = b;
    /* a stack the pre-training tables do not validate: its own published fine-tuning runs
     * (data/finetune_published.csv), rather than another stack's band */
    bool offload = o->k.offload_optimizer || o->k.offload_params;
    if (src != EST_BAND_OWN && cost_published_band(st, o->gpu, offload, &pb, &prows, &on_gpu, &med)) {
        *rel = pb;
        snprintf(buf, len, "±%.0f%% (%d published fine-tuning runs of %s %s, on %s, data/finetune_published.csv; predicted %s by "
                           "a median %.0f%%)", 100 * pb, prows, sn, offload ? "with CPU offload" : "without offload",
                 on_gpu ? o->gpu->name : "all GPUs (too few on this one)", med > 0 ? "too fast" : "too slow", 100 * fabs(med));
        return "published";
    }
    switch (src) {
    case EST_BAND_OWN: snprintf(buf, len, "±%.0f%% (%s, %s: %d validated runs)", 100 * b, o->gpu->name, sn, o->est.band_rows); return "own";
    case EST_BAND_STACK:
        snprintf(buf, len, "±%.0f%% (%s on all GPUs: %d runs; fewer than %d on %s)", 100 * b, sn, o->est.band_rows,
                 EST_BAND_MIN_ROWS, o->gpu->name);
        return "stack";
    case EST_BAND_POOLED:
        snprintf(buf, len, "fewer than %d validated %s runs (all stacks pooled: ±%.0f%%, %d runs)", EST_BAND_MIN_ROWS, sn, 100 * b,
                 o->est.band_rows);
        return "pooled";
    default: snprintf(buf, len, "no band (data/bands.csv)"); return "none";
    }
}

void cost_band_text(const cost_request *rq, const cost_option *o, char *buf, size_t len)
{
    double rel;
    cost_band_of(rq, o, &rel, buf, len);
}

/* the first instance count (in GPUs) of a pool: one instance, or one GPU */
static int pool_first(const cost_pool *p) { return p->inst ? p->inst->gpus : 1; }

/* one sentence on why the chosen option won and what it trades */
static void explain_choice(const cost_request *rq, cost_result *r)
{
    char *w = r->chosen_why;
    size_t len = sizeof r->chosen_why;
    w[0] = '\0';
    long c = cost_chosen(r, rq);
    if (c < 0 || !r->n_ranked) return;
    const cost_option *o = &r->opt[c];
    const cost_option *cheapest = &r->opt[r->by_cost[0]];
    for (size_t j = 1; j < r->n_ranked; j++)
        if (r->opt[r->by_cost[j]].usd_per_mtok < cheapest->usd_per_mtok) cheapest = &r->opt[r->by_cost[j]];
    const cost_option *fastest = &r->opt[r->best_time];
    bool dl = rq->deadline_hours > 0, bu = rq->budget_usd > 0;
    double tb = cost_tie_band(o);
    int band = (int)lround(100.0 * tb);
    if (dl && bu) {
        snprintf(w, len, "the cheapest setup that finishes within the %.1f h deadline and the $%.0f budget ($%.3f/MT, %.1f h, $%.0f)",
                 rq->deadline_hours, rq->budget_usd, o->usd_per_mtok, o->hours, o->usd_total);
    } else if (dl) {
        if (o == cheapest || cost_same_price(o->usd_per_mtok, cheapest->usd_per_mtok, tb))
            snprintf(w, len, "the cheapest per token ($%.3f/MT) and done in %.1f h, within the %.1f h deadline", o->usd_per_mtok, o->hours,
                     rq->deadline_hours);
        else
            snprintf(w, len,
                     "the cheapest setup that finishes within the %.1f h deadline (%.1f h at $%.3f/MT); the cheapest overall, %s, "
                     "costs $%.3f/MT but takes %.1f h",
                     rq->deadline_hours, o->hours, o->usd_per_mtok, cheapest->label, cheapest->usd_per_mtok, cheapest->hours);
    } else if (bu) {
        if (o == fastest)
            snprintf(w, len, "the fastest setup (%.1f h), and its $%.0f run is within the $%.0f budget", o->hours, o->usd_total, rq->budget_usd);
        else
            snprintf(w, len, "the fastest setup within the $%.0f budget (%.1f h for $%.0f); the fastest overall, %s, takes %.1f h for $%.0f",
                     rq->budget_usd, o->hours, o->usd_total, fastest->label, fastest->hours, fastest->usd_total);
    } else if (o != cheapest) {
        snprintf(w, len,
                 "the fastest of the setups within %d %% (the ranking band of its GPU and stack) of the cheapest $ per million "
                 "tokens: $%.3f/MT in %.1f h, against $%.3f/MT in %.1f h for %s",
                 band, o->usd_per_mtok, o->hours, cheapest->usd_per_mtok, cheapest->hours, cheapest->label);
    } else {
        const cost_option *next = r->n_ranked > 1 ? &r->opt[r->by_cost[1]] : NULL;
        if (next && !cost_same_price(next->usd_per_mtok, o->usd_per_mtok, fmax(tb, cost_tie_band(next))))
            snprintf(w, len, "the cheapest per token ($%.3f/MT); the next, %s, costs %.0f %% more", o->usd_per_mtok, next->label,
                     100.0 * (next->usd_per_mtok / o->usd_per_mtok - 1.0));
        else if (next)
            snprintf(w, len, "the cheapest per token ($%.3f/MT) and the fastest of the setups within %d %% of it", o->usd_per_mtok, band);
        else
            snprintf(w, len, "the cheapest per token ($%.3f/MT) of the %zu setups that fit this GPU type and count", o->usd_per_mtok,
                     r->n_feasible);
    }
}

/* the files it writes (Hugging Face Trainer, torchtune) and its LoRA targets know attention
 * and MLP layers only */
const char *cost_model_unsupported(const model_shape *s, const char **key)
{
    if (!shape_is_hybrid(s) && s->moe_latent <= 0) return NULL;
    *key = shape_is_hybrid(s) ? "hybrid_override_pattern" : "moe_latent_size";
    return "a hybrid Mamba-Transformer or LatentMoE model: the cost stage's files and LoRA targets "
           "describe transformers (autoconfig estimate --hf-config predicts a Megatron-Core run of it)";
}

int cost_search(const cost_request *rq, cost_result *out, ac_err *e)
{
    memset(out, 0, sizeof *out);
    out->best_cost = out->best_time = out->best_constrained = -1;
    for (int i = 0; i < COST_MAX_POOLS; i++) out->best_per_pool[i] = -1;
    if (rq->n_pools < 1) return ac_err_set(e, AC_E_INPUT, "no GPU types to search");
    const char *key, *why = cost_model_unsupported(&rq->model.shape, &key);
    if (why) return ac_err_at(e, AC_E_INPUT, rq->model.name, 0, 0, key, "%s", why);
    if (rq->context < 1 || rq->gbs < 1 || !(rq->tokens_b > 0))
        return ac_err_set(e, AC_E_INPUT, "context, global batch and tokens must be positive");
    size_t cap = 0;
    for (int p = 0; p < rq->n_pools; p++)
        for (int n = pool_first(&rq->pools[p]); n <= rq->pools[p].max_gpus; n *= 2) cap++;
    out->opt = calloc(cap ? cap : 1, sizeof *out->opt);
    out->by_cost = calloc(cap ? cap : 1, sizeof *out->by_cost);
    out->by_time = calloc(cap ? cap : 1, sizeof *out->by_time);
    if (!out->opt || !out->by_cost || !out->by_time) {
        cost_result_free(out);
        return ac_err_set(e, AC_E_NOMEM, "out of memory");
    }
    for (int p = 0; p < rq->n_pools; p++) {
        for (int n = pool_first(&rq->pools[p]); n <= rq->pools[p].max_gpus; n *= 2) {
            cost_option best, miss, host_miss;
            bool hb = false, hm = false, hh = false;
            search_cell(rq, p, n, &best, &miss, &hb, &hm, &host_miss, &hh, &out->n_evaluated, &out->n_feasible);
            if (hb) out->opt[out->n++] = best;
            else if (hm) {
                /* a miss on GPU memory also says what fitting the GPU would take on the host */
                if (hh && !miss.est.fits) {
                    size_t l = strlen(miss.why);
                    snprintf(miss.why + l, sizeof miss.why - l, "; fitting the GPU instead (%s) %s", host_miss.label,
                             host_miss.why + (strncmp(host_miss.why, "host memory: ", 13) ? 0 : 13));
                }
                out->opt[out->n++] = miss;
            }
        }
    }
    for (size_t i = 0; i < out->n; i++) {
        if (!out->opt[i].feasible) continue;
        out->by_cost[out->n_ranked] = out->by_time[out->n_ranked] = i;
        out->n_ranked++;
    }
    sort_ctx = out;
    qsort(out->by_time, out->n_ranked, sizeof *out->by_time, by_time_cmp);
    sort_ctx = NULL;
    /* by $/MT, ties within the ranking band to the faster setup (cost_rank_by_price) */
    cost_rank_item *items = calloc(out->n_ranked ? out->n_ranked : 1, sizeof *items);
    if (!items) {
        cost_result_free(out);
        return ac_err_set(e, AC_E_NOMEM, "out of memory");
    }
    for (size_t j = 0; j < out->n_ranked; j++) {
        const cost_option *o = &out->opt[out->by_cost[j]];
        items[j] = (cost_rank_item){out->by_cost[j], o->usd_per_mtok, o->hours, cost_tie_band(o)};
    }
    cost_rank_by_price(items, out->n_ranked);
    for (size_t j = 0; j < out->n_ranked; j++) out->by_cost[j] = items[j].id;
    free(items);
    if (out->n_ranked) {
        out->best_cost = (long)out->by_cost[0];
        out->best_time = (long)out->by_time[0];
    }
    /* per GPU type (or instance) the same rule: the fastest priced like its cheapest */
    for (int p = 0; p < rq->n_pools; p++) {
        long *bp = &out->best_per_pool[p];
        double lo = INFINITY;
        for (size_t j = 0; j < out->n_ranked; j++) {
            const cost_option *o = &out->opt[out->by_cost[j]];
            if (o->k.pool == p && o->usd_per_mtok < lo) lo = o->usd_per_mtok;
        }
        for (size_t j = 0; j < out->n_ranked; j++) {
            const cost_option *o = &out->opt[out->by_cost[j]];
            if (o->k.pool == p && cost_same_price(o->usd_per_mtok, lo, cost_tie_band(o)) && (*bp < 0 || faster(o, &out->opt[*bp])))
                *bp = (long)out->by_cost[j];
        }
    }
    /* under a deadline: the cheapest that finishes in time; under a budget: the
     * fastest that stays within it; both: the cheapest meeting both */
    bool dl = rq->deadline_hours > 0, bu = rq->budget_usd > 0;
    if (dl || bu) {
        const size_t *order = dl ? out->by_cost : out->by_time;
        for (size_t j = 0; j < out->n_ranked; j++) {
            const cost_option *o = &out->opt[order[j]];
            if ((!dl || o->hours <= rq->deadline_hours) && (!bu || o->usd_total <= rq->budget_usd)) {
                out->best_constrained = (long)order[j];
                break;
            }
        }
    }
    explain_choice(rq, out);
    return 0;
}

void cost_result_free(cost_result *r)
{
    free(r->opt);
    free(r->by_cost);
    free(r->by_time);
    memset(r, 0, sizeof *r);
    r->best_cost = r->best_time = r->best_constrained = -1;
}

long cost_chosen(const cost_result *r, const cost_request *rq)
{
    if (rq->deadline_hours > 0 || rq->budget_usd > 0) return r->best_constrained;
    return r->best_cost;
}

/* ---------- GPU pools ---------- */

static int parse_positive(const char *text, double *out)
{
    char *end;
    double x = strtod(text, &end);
    if (!*text || *end || !isfinite(x)) return -1;
    *out = x;
    return 0;
}

/* "NAME[:PRICE[:COUNT]]" into buf (NAME) and the price and count parts (NULL when absent) */
static int split_entry(const char *entry, const char *key, const char *what, char buf[160], char **price, char **count,
                       ac_err *e)
{
    if (!entry || !*entry) return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, key, "empty %s entry", what);
    if (strlen(entry) >= 160) return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, key, "%s entry too long: '%.40s...'", what, entry);
    snprintf(buf, 160, "%s", entry);
    *price = strchr(buf, ':');
    *count = NULL;
    if (*price) {
        *(*price)++ = '\0';
        *count = strchr(*price, ':');
        if (*count) *(*count)++ = '\0';
    }
    return 0;
}

int cost_pool_parse(const char *entry, int default_max, const char *key, cost_pool *out, ac_err *e)
{
    char buf[160], *price, *count;
    if (!key) key = "gpus";
    if (split_entry(entry, key, "GPU", buf, &price, &count, e)) return -1;
    if (gpu_catalog_load(e)) return -1;
    const gpu_spec *g = gpu_find(buf);
    if (!g) {
        char names[512];
        gpu_names(names, sizeof names);
        const char *s = gpu_suggest(buf);
        if (s) return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, key, "unknown GPU '%s'; did you mean '%s'? (known: %s)", buf, s, names);
        return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, key, "unknown GPU '%s' (known: %s)", buf, names);
    }
    out->gpu = g;
    out->inst = NULL;
    out->price = g->price_per_hour;
    out->max_gpus = default_max;
    if (price && *price) {
        double p;
        if (parse_positive(price, &p))
            return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, key, "price of %s is not a number: '%s'", g->name, price);
        if (!(p > 0))
            return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, key, "price of %s must be positive (USD per GPU-hour), got %g", g->name, p);
        /* the bound of price_per_gpu_hour: a price that overflows every total to $inf is a typo */
        if (p > COST_MAX_PRICE)
            return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, key, "price of %s must be at most %g USD per GPU-hour, got %g",
                             g->name, COST_MAX_PRICE, p);
        out->price = p;
    }
    if (count && *count) {
        double n;
        if (parse_positive(count, &n) || n != floor(n) || n < 1 || n > 65536)
            return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, key, "GPU count of %s must be an integer in [1, 65536], got '%s'", g->name, count);
        out->max_gpus = (int)n;
    }
    if (!(out->price > 0))
        return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, key, "%s has no catalog price; give one as %s:PRICE", g->name, g->name);
    return 0;
}

const char *cost_pool_name(const cost_pool *p) { return p->inst ? p->inst->name : p->gpu->name; }

int cost_pool_instance_parse(const char *entry, int default_max_gpus, const char *key, cost_pool *out, ac_err *e)
{
    char buf[160], *price, *count;
    if (!key) key = "instances";
    if (split_entry(entry, key, "instance", buf, &price, &count, e)) return -1;
    if (cost_instance_catalog_load(e)) return -1;
    const cost_instance *in = cost_instance_find(buf);
    if (!in) {
        char close[512];
        cost_instance_close(buf, close, sizeof close);
        if (close[0])
            return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, key, "unknown instance type '%s'; close ones: %s (data/instances.csv)", buf, close);
        return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, key, "unknown instance type '%s' (data/instances.csv lists %zu)", buf,
                         cost_instance_count());
    }
    memset(out, 0, sizeof *out);
    out->inst = in;
    out->gpu = &in->node;
    out->price = in->price_per_hour / in->gpus;
    int max_inst = default_max_gpus / in->gpus;
    if (max_inst < 1) max_inst = 1;
    if (price && *price) {
        double p;
        if (parse_positive(price, &p))
            return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, key, "price of %s is not a number: '%s'", in->name, price);
        if (!(p > 0))
            return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, key, "price of %s must be positive (USD per instance-hour), got %g", in->name, p);
        out->price = p / in->gpus;
    }
    if (count && *count) {
        double n;
        if (parse_positive(count, &n) || n != floor(n) || n < 1 || n > 8192)
            return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, key, "instance count of %s must be an integer in [1, 8192], got '%s'", in->name, count);
        max_inst = (int)n;
    }
    out->max_gpus = max_inst * in->gpus;
    return 0;
}
