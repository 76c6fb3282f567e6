/* cost.h — cost tuning for pre-training and fine-tuning (issue 8).
 *
 * Given a model (a family preset's shape, or a Hugging Face config.json), a task
 * (pre-training, full fine-tuning, LoRA), a dataset shape (context length, tokens)
 * and the GPU types a team can rent (count and price per GPU-hour), the search
 * scores every setup a DeepSpeed/FSDP or Megatron user can pick — GPU type and
 * count, micro batch, gradient accumulation, ZeRO stage 0-3, CPU offload of the
 * optimizer and of the parameters, activation checkpointing, TP/PP — with the
 * analytical estimator (est.h), and ranks them by $ per million tokens, by time,
 * and under a deadline or a budget.  Every figure is a prediction.
 *
 * Framework rules the search follows: ZeRO-2/3 and offload only without TP/PP
 * (DeepSpeed does not combine ZeRO-2/3 with pipeline parallelism; Megatron's
 * distributed optimizer is ZeRO-1); parameter offload only with ZeRO-3.
 */
#ifndef AC_COST_COST_H
#define AC_COST_COST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "estimator/est.h"
#include "cost/instance.h"
#include "estimator/gpu.h"
#include "model/shape.h"
#include "util/err.h"

/* the highest price per GPU-hour accepted (USD; train_settings.price_per_gpu_hour's bound) */
#define COST_MAX_PRICE 1e4

typedef enum { COST_PRETRAIN = 0, COST_FULL, COST_LORA } cost_task;

const char *cost_task_name(cost_task t);
int cost_task_parse(const char *text, cost_task *out);

/* a model as the cost stage sees it */
typedef struct {
    char name[96];
    model_shape shape;   /* shape.seq_length: the model's own context */
    int max_context;     /* max_position_embeddings, or the preset's seq_length */
} cost_model;

/* Hugging Face-style config.json (hidden_size, num_hidden_layers, num_attention_heads,
 * num_key_value_heads, intermediate_size, vocab_size, max_position_embeddings,
 * num_local_experts, num_experts_per_tok, head_dim, tie_word_embeddings, model_type).
 * AC_E_INPUT with the file and key on anything missing or out of range. */
int cost_hf_config_parse(const char *text, size_t len, const char *file, cost_model *out, ac_err *e);
int cost_hf_config_load(const char *path, cost_model *out, ac_err *e);

/* the linear modules LoRA may adapt, in this order: the attention projections q, k, v, o, then
 * the MLP's gate, up and down */
enum { COST_LORA_Q, COST_LORA_K, COST_LORA_V, COST_LORA_O, COST_LORA_GATE, COST_LORA_UP, COST_LORA_DOWN, COST_LORA_MODULES };
/* which of them a target list names (use[]), each under any of its spellings (q_proj, q, query, wq;
 * down_proj, down, w2; ...) or all of them for "all-linear"; 0, or -1 with e (empty, unknown name) */
int cost_lora_modules(const char *list, bool use[COST_LORA_MODULES], ac_err *e);
/* LoRA target modules ("q_proj,v_proj", "q,k,v,o", "all-linear") as the estimator's
 * count of h×h-equivalent adapted matrices per layer (adapter size r·(in+out)) */
int cost_lora_targets(const char *list, const model_shape *s, int *out, ac_err *e);
/* the same widths per token: an MoE model's MLP adapters once per routed expert (top-k), not per
 * expert; 0 when the list is not valid */
double cost_lora_token_targets(const char *list, const model_shape *s);

#define COST_MAX_POOLS 16

typedef struct {
    const gpu_spec *gpu;
    int max_gpus;
    double price;        /* USD per GPU-hour */
    const cost_instance *inst; /* rented as whole instances (--instances), else NULL (--gpus) */
} cost_pool;

/* "a10g", "a10g:0.90" or "a10g:0.90:32" (name, USD per GPU-hour, largest count):
 * unknown names get a "did you mean"; prices must be positive. key names the setting. */
int cost_pool_parse(const char *entry, int default_max, const char *key, cost_pool *out, ac_err *e);
/* "p4de.24xlarge", "p4de.24xlarge:30.5" or "p4de.24xlarge:30.5:4" (instance name, USD per
 * instance-hour, most instances): unknown names list the close ones; prices must be positive.
 * default_max_gpus caps the instances at that many GPUs (at least one instance). */
int cost_pool_instance_parse(const char *entry, int default_max_gpus, const char *key, cost_pool *out, ac_err *e);
/* the pool's name as printed: the instance's, else the GPU's */
const char *cost_pool_name(const cost_pool *p);

typedef struct {
    cost_model model;
    cost_task task;
    int lora_rank, lora_targets;
    char lora_modules[160];  /* as given, for the PEFT file ("q_proj,k_proj,v_proj,o_proj") */
    int context;             /* tokens per sequence */
    double tokens_b;         /* tokens to train, billions */
    int gbs;                 /* sequences per optimizer step */
    cost_pool pools[COST_MAX_POOLS];
    int n_pools;
    double deadline_hours;   /* 0 = none */
    double budget_usd;       /* 0 = none */
    double cpu_mem_node_gb;  /* host memory per node (10^9 B) of --gpus pools; instances use their own */
    /* heterogeneous rank 0 (Ray-based stacks place the rank-0 worker apart): node 0 of
     * every instance pool with the same GPU type and count is this instance; NULL = none */
    const cost_instance *rank0;
    est_precision precision;
    /* the training stack every setup runs on (data/stacks.csv); NULL: Hugging Face Transformers +
     * DeepSpeed ZeRO, the trainer the written files configure (cost_stack_of).  TP/PP setups are
     * searched only on a Megatron stack named here (its train_args.json names the Megatron sizes) */
    const est_stack *stack;
    /* ds_config.json's zero_optimization.overlap_comm: true (the default: the reduction overlaps the
     * backward at every stage), or false to leave it unset, DeepSpeed's own default (true only for
     * ZeRO-3: DeepSpeedZeroConfig.overlap_comm_valid) — for predicting published runs as configured */
    bool overlap_comm;
    /* ds_config.json's offload_optimizer/offload_param pin_memory: true (the default: page-locked
     * host buffers), or false to leave it unset, DeepSpeed's own default (false until PR #8207:
     * its offload copies are pageable, est_input.offload_pageable) — for published runs as configured */
    bool pin_memory;
    /* the model passes SDPA an explicit 4-D attention mask (est_input.attn_explicit_mask): false for
     * the written setups (packed sequences, no padding: Transformers 4.40+ calls SDPA with
     * is_causal); set for published runs whose Transformers release always passed it */
    bool attn_explicit_mask;
} cost_request;


/* fills defaults: full fine-tuning, rank 16, 4 targets, bf16, 768 GB host memory */
void cost_request_init(cost_request *rq, const cost_model *m);

/* one setup's knobs */
typedef struct {
    int pool;            /* index into rq->pools */
    int num_gpus, tp, pp, mbs;
    int zero;
    bool offload_optimizer, offload_params, checkpointing;
} cost_knobs;

/* the stack every setup of the request runs on: rq->stack, else hf-deepspeed (the trainer
 * ds_config.json configures) */
const est_stack *cost_stack_of(const cost_request *rq);
/* 0 when this stage writes launch files for the stack (Hugging Face + DeepSpeed, Accelerate /
 * torchtune / Composer FSDP, Megatron); -1 with why, under the key that named it, for one it
 * cannot configure (jax-xla) */
int cost_stack_check(const est_stack *st, const char *key, ac_err *e);
/* a PyTorch FSDP stack: pytorch-fsdp (FSDP1) or pytorch-fsdp2 */
bool cost_stack_is_fsdp(const est_stack *st);
/* the setup runs PyTorch FSDP (an FSDP stack, no TP/PP): its files name FSDP, not DeepSpeed */
bool cost_is_fsdp(const cost_request *rq, const cost_knobs *k);
/* how such a setup runs: not under FSDP (DeepSpeed, Megatron), FSDP1, FSDP2 (fully_shard:
 * torchtitan, torchtune), or FSDP2 unsharded, which is plain DDP (FSDP2 has no NO_SHARD); the
 * files and the setup's name follow it */
typedef enum { COST_FSDP_NONE, COST_FSDP1, COST_FSDP2, COST_FSDP2_DDP } cost_fsdp_mode;
cost_fsdp_mode cost_fsdp_mode_of(const cost_request *rq, const cost_knobs *k);
/* the sharding as the trainer names it: "ZeRO-2", FSDP1's "FSDP FULL_SHARD" / "FSDP SHARD_GRAD_OP" /
 * "FSDP NO_SHARD", FSDP2's "FSDP2 FULL_SHARD" / "FSDP2 SHARD_GRAD_OP" (reshard after forward or not) / "DDP" */
const char *cost_shard_name(const cost_request *rq, const cost_knobs *k);
/* host memory usable per node, GiB: the instance's RAM (or cpu_memory_per_node_gb) times the
 * share the OS and the trainer leave free */
double cost_host_limit_gib(const cost_request *rq, const cost_instance *inst);

typedef struct {
    cost_knobs k;
    const gpu_spec *gpu;
    double price;
    int nodes, dp, grad_accum, gbs;
    double gpu_mem_gib, gpu_limit_gib;      /* per GPU */
    double cpu_mem_node_gib, cpu_limit_gib; /* per node, incl. rank-0 checkpoint gather */
    double rank0_gather_gib;                /* full bf16 weights (LoRA: adapters) on rank 0 */
    double cpu_mem_worker_gib, cpu_worker_limit_gib; /* the other nodes (no gather); 0 with one node */
    const cost_instance *rank0_inst;        /* node 0 runs on this larger instance, or NULL */
    bool rank0_makes_fit;                   /* fits only because of rank0_inst's RAM */
    double tokens_per_s, mtok_per_hour;
    double mfu, hfu;                        /* see COST_MFU_CONVENTION */
    double hours, usd_per_mtok, usd_total, optimizer_steps, step_time_s;
    bool feasible;
    char why[448];                          /* what does not fit, by how much (a miss on GPU memory
                                             * also names the nearest setup that fits the GPU) */
    char label[160];
    est_result est;
} cost_option;

extern const char COST_MFU_CONVENTION[];
/* MFU as fine-tuning cookbooks state it: 6 x N x tokens/s / (GPUs x dense BF16 peak), N = every
 * parameter (MoE: the parameters a token passes), no attention term, 6 even for LoRA */
double cost_cookbook_mfu(const cost_request *rq, const cost_option *o);

/* Scores one setup; -1 (AC_E_INPUT) only when the knobs break a layout rule
 * (opt->why says which).  A setup that does not fit is scored, feasible = false. */
int cost_evaluate(const cost_request *rq, const cost_knobs *k, cost_option *opt, ac_err *e);

typedef struct {
    cost_option *opt;     /* one per (GPU type, count): the cheapest feasible setup,
                           * or when none fits the nearest miss */
    size_t n;
    size_t n_evaluated, n_feasible;
    long best_cost, best_time, best_constrained; /* indices into opt; -1 = none */
    long best_per_pool[COST_MAX_POOLS];         /* cheapest feasible per GPU type; -1 = none */
    size_t *by_cost, *by_time;                   /* feasible options ranked */
    size_t n_ranked;
    char chosen_why[512];                        /* why the chosen option won, one sentence */
} cost_result;

/* the tie band of an option: the ranking band of its GPU and stack (est_rank_band_rel,
 * data/bands.csv rank_band_rel: how far two layouts of one model on one GPU can be mis-ordered) */
double cost_tie_band(const cost_option *o);
/* a costs the same as b per token within the relative band */
bool cost_same_price(double a, double b, double band);
/* one thing ranked by $ per million tokens, ties within band go to the faster */
typedef struct {
    size_t id;             /* the caller's index */
    double usd_per_mtok, hours, band;
} cost_rank_item;
/* sorts it[0..n) by $/MT; each run of items priced like the cheapest still unplaced (within the
 * larger of the two bands) is ordered by time.  The one tie rule of the search and of --measure. */
void cost_rank_by_price(cost_rank_item *it, size_t n);
/* "±9% (h100_sxm, megatron-core: 192 validated runs)"; for a stack without validated runs on that GPU
 * or at all, says so and names whose band it prints */
void cost_band_text(const cost_request *rq, const cost_option *o, char *buf, size_t len);
/* the same, with the band itself (*rel) and where it comes from: "own", "stack", "pooled"
 * (data/bands.csv), "published" (the stack's published fine-tuning runs, cost_published.h),
 * or "none" */
const char *cost_band_of(const cost_request *rq, const cost_option *o, double *rel, char *buf, size_t len);

/* why the cost stage cannot write files for an architecture, with its config.json key in *key;
 * NULL when it can */
const char *cost_model_unsupported(const model_shape *s, const char **key);
int cost_search(const cost_request *rq, cost_result *out, ac_err *e);
void cost_result_free(cost_result *r);

/* the setup files: DeepSpeed JSON, training arguments (JSON), PEFT LoRA config */
int cost_deepspeed_json(const cost_request *rq, const cost_option *o, char **out, ac_err *e);
/* train_args.json: max_steps the whole run's optimizer steps, or the given count (> 0: a benchmark) */
int cost_train_args_json(const cost_request *rq, const cost_option *o, int max_steps, char **out, ac_err *e);
int cost_lora_json(const cost_request *rq, char **out, ac_err *e);
/* LLMForge (Anyscale, Ray Train + DeepSpeed) fine-tuning YAML of a DeepSpeed/FSDP setup:
 * context_length, num_devices, train_batch_size_per_device, gradient_accumulation_steps,
 * no_gradient_checkpoint, deepspeed.config_path (ds_config.json), padding (max_length when
 * benchmark is set: the context is fixed), worker_resources with the Ray accelerator type and
 * each worker's host memory, trainer_resources with rank 0's; lora_config for LoRA.
 * AC_E_INPUT for TP/PP setups (LLMForge has no Megatron layout). */
int cost_llmforge_yaml(const cost_request *rq, const cost_option *o, bool benchmark, char **out, ac_err *e);
/* Accelerate config YAML (`accelerate launch --config_file`) of a DeepSpeed/FSDP setup: ClusterConfig
 * keys, deepspeed_config.deepspeed_config_file ds_config.json (hf-deepspeed) or fsdp_config (pytorch-fsdp),
 * num_machines / num_processes; AC_E_INPUT for TP/PP setups */
int cost_accelerate_yaml(const cost_request *rq, const cost_option *o, char **out, ac_err *e);
/* torchtune recipe config (torchtune_config.yaml, `tune run <recipe> --config`) of a setup torchtune
 * runs: the pytorch-fsdp stack without TP/PP, one GPU (single-device recipes) or ZeRO-2/3 sharding
 * (fsdp_reshard_after_forward false/true, fsdp_cpu_offload), a model of data/torchtune_models.csv;
 * AC_E_INPUT (saying why) otherwise.  cost_torchtune_runs: whether it would write one. */
int cost_torchtune_yaml(const cost_request *rq, const cost_option *o, char **out, ac_err *e);
bool cost_torchtune_runs(const cost_request *rq, const cost_option *o);
/* Ray's accelerator_type name of a catalog GPU ("A100-80G"), or NULL */
const char *cost_ray_accelerator(const gpu_spec *g);
/* summary.json: request, options, rankings, the chosen setup */
int cost_summary_json(const cost_request *rq, const cost_result *r, char **out, ac_err *e);
/* writes <dir>/summary.json, <dir>/ds_config.json, <dir>/train_args.json (and
 * <dir>/lora_config.json for LoRA, <dir>/llmforge.yaml and <dir>/accelerate_config.yaml for
 * DeepSpeed/FSDP setups, <dir>/torchtune_config.yaml for setups torchtune runs) atomically
 * for the chosen option (the constrained best, else the cheapest) */
int cost_write_files(const cost_request *rq, const cost_result *r, const char *dir, ac_err *e);
/* the option the files describe: under a deadline or budget the constrained best,
 * else the cheapest; -1 when none qualifies */
long cost_chosen(const cost_result *r, const cost_request *rq);

/* human-readable tables */
void cost_print(FILE *out, const cost_request *rq, const cost_result *r);

#endif
