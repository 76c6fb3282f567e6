/* cost_files.c — the cost stage's files: a DeepSpeed config for the chosen ZeRO
 * stage and offload, the training arguments (Hugging Face Trainer names, plus the
 * Megatron parallel sizes when TP/PP are used), a PEFT LoRA config, and
 * summary.json with every option and ranking (which the HTML report charts).
 * All are built in memory and written atomically.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cost/cost.h"
#include "estimator/band.h"
#include "util/fsutil.h"
#include "util/json.h"
#include "util/strbuf.h"

/* DeepSpeed's reduce/all-gather bucket (elements); its documented default */
#define DS_BUCKET 5e8

static int finish(cJSON *root, char **out, ac_err *e)
{
    char *text = root ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    if (!text) return ac_err_set(e, AC_E_NOMEM, "out of memory building JSON");
    /* a trailing newline, and memory the caller frees with free() */
    size_t n = strlen(text);
    char *s = malloc(n + 2);
    if (!s) {
        cJSON_free(text);
        return ac_err_set(e, AC_E_NOMEM, "out of memory building JSON");
    }
    memcpy(s, text, n);
    s[n] = '\n';
    s[n + 1] = '\0';
    cJSON_free(text);
    *out = s;
    return 0;
}

static void add_num_or_null(cJSON *o, const char *key, double v)
{
    if (isfinite(v)) cJSON_AddNumberToObject(o, key, v);
    else cJSON_AddNullToObject(o, key);
}

static bool use_fp16(const cost_request *rq) { return rq->precision == PREC_FP16; }

int cost_deepspeed_json(const cost_request *rq, const cost_option *o, char **out, ac_err *e)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddNumberToObject(r, "train_batch_size", o->gbs);
    cJSON_AddNumberToObject(r, "train_micro_batch_size_per_gpu", o->k.mbs);
    cJSON_AddNumberToObject(r, "gradient_accumulation_steps", o->grad_accum);
    cJSON_AddNumberToObject(r, "gradient_clipping", 1.0);
    cJSON *bf = cJSON_AddObjectToObject(r, use_fp16(rq) ? "fp16" : "bf16");
    cJSON_AddBoolToObject(bf, "enabled", rq->precision != PREC_FP32);
    cJSON *z = cJSON_AddObjectToObject(r, "zero_optimization");
    cJSON_AddNumberToObject(z, "stage", o->k.zero);
    if (o->k.zero >= 1) {
        if (rq->overlap_comm) cJSON_AddBoolToObject(z, "overlap_comm", true);
        cJSON_AddBoolToObject(z, "contiguous_gradients", true);
        cJSON_AddNumberToObject(z, "reduce_bucket_size", DS_BUCKET);
    }
    if (o->k.zero == 1 || o->k.zero == 2) cJSON_AddNumberToObject(z, "allgather_bucket_size", DS_BUCKET);
    if (o->k.offload_optimizer) {
        cJSON *off = cJSON_AddObjectToObject(z, "offload_optimizer");
        cJSON_AddStringToObject(off, "device", "cpu");
        if (rq->pin_memory) cJSON_AddBoolToObject(off, "pin_memory", true);
    }
    if (o->k.offload_params) {
        cJSON *off = cJSON_AddObjectToObject(z, "offload_param");
        cJSON_AddStringToObject(off, "device", "cpu");
        if (rq->pin_memory) cJSON_AddBoolToObject(off, "pin_memory", true);
    }
    if (o->k.zero == 3) {
        cJSON_AddNumberToObject(z, "stage3_prefetch_bucket_size", DS_BUCKET);
        cJSON_AddBoolToObject(z, "stage3_gather_16bit_weights_on_model_save", true);
    }
    if (o->k.checkpointing) {
        cJSON *ac = cJSON_AddObjectToObject(r, "activation_checkpointing");
        cJSON_AddBoolToObject(ac, "partition_activations", false);
        cJSON_AddBoolToObject(ac, "contiguous_memory_optimization", false);
    }
    cJSON_AddNumberToObject(r, "steps_per_print", 10);
    cJSON_AddBoolToObject(r, "wall_clock_breakdown", false);
    return finish(r, out, e);
}

int cost_train_args_json(const cost_request *rq, const cost_option *o, int max_steps, char **out, ac_err *e)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "task", cost_task_name(rq->task));
    cJSON_AddStringToObject(r, "model", rq->model.name);
    cJSON_AddStringToObject(r, "gpu", o->gpu->name);
    cJSON_AddNumberToObject(r, "num_gpus", o->k.num_gpus);
    cJSON_AddNumberToObject(r, "num_nodes", o->nodes);
    cJSON_AddNumberToObject(r, "per_device_train_batch_size", o->k.mbs);
    cJSON_AddNumberToObject(r, "gradient_accumulation_steps", o->grad_accum);
    cJSON_AddNumberToObject(r, "global_batch_size", o->gbs);
    cost_fsdp_mode mode = cost_fsdp_mode_of(rq, &o->k);
    /* FSDP2's own activation_checkpointing replaces it there (below) */
    cJSON_AddBoolToObject(r, "gradient_checkpointing", o->k.checkpointing && mode != COST_FSDP2);
    cJSON_AddNumberToObject(r, "max_seq_length", rq->context);
    cJSON_AddNumberToObject(r, "max_steps", max_steps > 0 ? (double)max_steps : ceil(o->optimizer_steps));
    cJSON_AddBoolToObject(r, "bf16", rq->precision == PREC_BF16);
    cJSON_AddBoolToObject(r, "fp16", use_fp16(rq));
    if (mode == COST_FSDP2_DDP) {
        /* FSDP2 has no NO_SHARD: an unsharded setup is DistributedDataParallel (no fsdp key) */
    } else if (mode == COST_FSDP2) {
        /* Transformers' FSDP2 (docs/source/en/fsdp.md): fsdp on, fsdp_config version 2 with
         * reshard_after_forward in place of the sharding strategy; its activation_checkpointing
         * replaces TrainingArguments.gradient_checkpointing (setting both is an error); the full
         * state dict, gathered on rank 0, is what the host-memory estimate charges */
        cJSON_AddBoolToObject(r, "fsdp", true);
        cJSON *fc = cJSON_AddObjectToObject(r, "fsdp_config");
        cJSON_AddNumberToObject(fc, "version", 2);
        cJSON_AddBoolToObject(fc, "reshard_after_forward", o->k.zero >= 3);
        cJSON_AddBoolToObject(fc, "cpu_offload", o->k.offload_optimizer || o->k.offload_params);
        cJSON_AddStringToObject(fc, "auto_wrap_policy", "TRANSFORMER_BASED_WRAP");
        cJSON_AddStringToObject(fc, "state_dict_type", "FULL_STATE_DICT");
        cJSON_AddBoolToObject(fc, "cpu_ram_efficient_loading", true);
        cJSON_AddBoolToObject(fc, "activation_checkpointing", o->k.checkpointing);
    } else if (mode == COST_FSDP1) {
        /* Hugging Face TrainingArguments.fsdp: the sharding strategy, offload and per-layer wrapping */
        char f[64];
        snprintf(f, sizeof f, "%s%s auto_wrap", o->k.zero >= 3 ? "full_shard" : o->k.zero == 2 ? "shard_grad_op" : "no_shard",
                 o->k.offload_optimizer || o->k.offload_params ? " offload" : "");
        cJSON_AddStringToObject(r, "fsdp", f);
    } else {
        cJSON_AddStringToObject(r, "deepspeed", "ds_config.json");
    }
    /* the attention kernel the prediction assumes (data/stacks.csv hf-deepspeed attention flash2:
     * transformers' sdpa, PyTorch's FlashAttention-2 backend; eager would materialise the scores) */
    if (o->k.tp == 1 && o->k.pp == 1) cJSON_AddStringToObject(r, "attn_implementation", "sdpa");
    if (o->k.tp > 1 || o->k.pp > 1) {
        /* Megatron-LM / NeMo names for the model-parallel layout */
        cJSON_AddStringToObject(r, "framework", "megatron");
        cJSON_AddNumberToObject(r, "tensor_model_parallel_size", o->k.tp);
        cJSON_AddNumberToObject(r, "pipeline_model_parallel_size", o->k.pp);
        /* as the prediction ran it: only where the stack has sequence parallelism (not Megatron-DeepSpeed) */
        const est_stack *st = cost_stack_of(rq);
        cJSON_AddBoolToObject(r, "sequence_parallel", est_stack_sequence_parallel(st, o->k.tp));
        cJSON_AddBoolToObject(r, "use_distributed_optimizer", o->k.zero == 1);
    } else {
        cJSON_AddStringToObject(r, "framework", mode == COST_FSDP2_DDP ? "ddp" : mode != COST_FSDP_NONE ? "fsdp" : "deepspeed");
    }
    if (rq->task == COST_LORA) cJSON_AddStringToObject(r, "peft_config", "lora_config.json");
    cJSON *p = cJSON_AddObjectToObject(r, "predicted");
    cJSON_AddNumberToObject(p, "tokens_per_s", o->tokens_per_s);
    cJSON_AddNumberToObject(p, "hours", o->hours);
    cJSON_AddNumberToObject(p, "usd_total", o->usd_total);
    cJSON_AddNumberToObject(p, "gpu_mem_gib", o->gpu_mem_gib);
    return finish(r, out, e);
}

int cost_lora_json(const cost_request *rq, char **out, ac_err *e)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "peft_type", "LORA");
    cJSON_AddStringToObject(r, "task_type", "CAUSAL_LM");
    cJSON_AddNumberToObject(r, "r", rq->lora_rank);
    cJSON_AddNumberToObject(r, "lora_alpha", 2 * rq->lora_rank);
    cJSON_AddNumberToObject(r, "lora_dropout", 0.05);
    cJSON_AddStringToObject(r, "bias", "none");
    char buf[sizeof rq->lora_modules];
    snprintf(buf, sizeof buf, "%s", rq->lora_modules);
    if (!strcmp(buf, "all-linear") || !strcmp(buf, "all_linear") || !strcmp(buf, "all")) {
        cJSON_AddStringToObject(r, "target_modules", "all-linear");
    } else {
        cJSON *t = cJSON_AddArrayToObject(r, "target_modules");
        for (char *save = NULL, *m = strtok_r(buf, ", []", &save); m; m = strtok_r(NULL, ", []", &save))
            cJSON_AddItemToArray(t, cJSON_CreateString(m));
    }
    return finish(r, out, e);
}

/* Ray's accelerator_type resource names (ray.util.accelerators: NVIDIA_A100 "A100",
 * "A100-40G"/"A100-80G" for the memory variants, NVIDIA_TESLA_V100 "V100", NVIDIA_A10G "A10G",
 * NVIDIA_L4 "L4", NVIDIA_L40S "L40S", NVIDIA_H100 "H100", NVIDIA_H200 "H200", NVIDIA_B200 "B200") */
static const struct {
    const char *gpu, *ray;
} RAY_ACCEL[] = {{"a100_80gb", "A100-80G"}, {"a100_pcie_80gb", "A100-80G"}, {"a100_40gb", "A100-40G"}, {"v100_16gb", "V100"},
                 {"v100_32gb", "V100"},     {"a10g", "A10G"},               {"l4", "L4"},               {"l40s", "L40S"},
                 {"h100_sxm", "H100"},      {"h100_pcie", "H100"},          {"h200", "H200"},           {"b200", "B200"},
                 {"gb200", "GB200"},        {"b300", "B300"},               {"gb300", "GB300"}};

const char *cost_ray_accelerator(const gpu_spec *g)
{
    for (size_t i = 0; g && i < sizeof RAY_ACCEL / sizeof *RAY_ACCEL; i++)
        if (!strcmp(RAY_ACCEL[i].gpu, g->name)) return RAY_ACCEL[i].ray;
    return NULL;
}

/* host memory in bytes rounded up to whole GiB, as Ray's memory resource takes it */
static long long gib_bytes(double gib) { return (long long)ceil(gib) * 1073741824LL; }

int cost_llmforge_yaml(const cost_request *rq, const cost_option *o, bool benchmark, char **out, ac_err *e)
{
    if (o->k.tp > 1 || o->k.pp > 1)
        return ac_err_set(e, AC_E_INPUT, "LLMForge runs DeepSpeed/FSDP data parallelism: no YAML for a TP%d PP%d setup", o->k.tp, o->k.pp);
    const char *accel = cost_ray_accelerator(o->gpu);
    strbuf b;
    sb_init(&b);
    sb_printf(&b, "# LLMForge fine-tuning config written by autoconfig cost (predicted setup: %s)\n", o->label);
    sb_printf(&b, "# Schema: https://docs.anyscale.com/reference/finetuning-config-api\n");
    sb_printf(&b, "# Change model_id to the Hugging Face id of %s and train_path to your data.\n", rq->model.name);
    sb_printf(&b, "model_id: \"%s\"\n", rq->model.name);
    sb_printf(&b, "train_path: \"train.jsonl\"\n");
    sb_printf(&b, "context_length: %d\n", rq->context);
    sb_printf(&b, "num_devices: %d\n", o->k.num_gpus);
    sb_printf(&b, "num_epochs: 1\n");
    sb_printf(&b, "train_batch_size_per_device: %d\n", o->k.mbs);
    sb_printf(&b, "eval_batch_size_per_device: %d\n", o->k.mbs);
    sb_printf(&b, "gradient_accumulation_steps: %d\n", o->grad_accum);
    sb_printf(&b, "learning_rate: %s\n", rq->task == COST_LORA ? "1.0e-4" : "5.0e-6");
    sb_printf(&b, "# %s\n", benchmark ? "max_length: every batch is context_length long, as the prediction assumes (benchmarking)"
                                         : "longest pads to the batch's longest sample; max_length reproduces the prediction");
    sb_printf(&b, "padding: \"%s\"\n", benchmark ? "max_length" : "longest");
    sb_printf(&b, "num_checkpoints_to_keep: 1\n");
    sb_printf(&b, "no_gradient_checkpoint: %s\n", o->k.checkpointing ? "false" : "true");
    sb_printf(&b, "flash_attention_2: true\n");
    sb_printf(&b, "deepspeed:\n  config_path: \"ds_config.json\"\n");
    /* Ray places each worker (one GPU) and the trainer: the worker's share of the node's host
     * memory, and rank 0's consolidated checkpoint on the trainer */
    double per_worker_gib = o->nodes > 0 && o->k.num_gpus > 0
                                ? (o->cpu_mem_node_gib - o->rank0_gather_gib) / (o->k.num_gpus / o->nodes > 0 ? o->k.num_gpus / o->nodes : 1)
                                : 0;
    sb_printf(&b, "# rank 0 gathers the %.1f GiB 16-bit checkpoint%s\n", o->rank0_gather_gib,
              o->rank0_inst ? " and runs on the larger instance (heterogeneous rank 0)" : "");
    sb_printf(&b, "trainer_resources:\n  memory: %lld\n", gib_bytes(o->rank0_gather_gib + 6.0 * 1e9 / EST_GIB));
    sb_printf(&b, "worker_resources:\n  memory: %lld\n", gib_bytes(per_worker_gib));
    if (accel) sb_printf(&b, "  \"accelerator_type:%s\": 0.001\n", accel);
    if (rq->task == COST_LORA) {
        sb_printf(&b, "lora_config:\n  r: %d\n  lora_alpha: %d\n  lora_dropout: 0.05\n  task_type: \"CAUSAL_LM\"\n  bias: \"none\"\n",
                  rq->lora_rank, 2 * rq->lora_rank);
        sb_printf(&b, "  target_modules:\n");
        char buf[sizeof rq->lora_modules];
        snprintf(buf, sizeof buf, "%s", rq->lora_modules);
        bool all = !strcmp(buf, "all-linear") || !strcmp(buf, "all_linear") || !strcmp(buf, "all");
        if (all) snprintf(buf, sizeof buf, "q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj");
        for (char *save = NULL, *m = strtok_r(buf, ", []", &save); m; m = strtok_r(NULL, ", []", &save))
            sb_printf(&b, "    - \"%s\"\n", m);
    }
    if (b.oom) {
        sb_free(&b);
        return ac_err_set(e, AC_E_NOMEM, "out of memory building the LLMForge YAML");
    }
    *out = sb_take(&b);
    return 0;
}

/* Accelerate's config file (`accelerate launch --config_file`): the ClusterConfig keys of
 * accelerate/commands/config/config_args.py with a deepspeed_config that points at ds_config.json
 * (DeepSpeed stacks) or an fsdp_config (PyTorch FSDP: FULL_SHARD for ZeRO-3, SHARD_GRAD_OP for
 * ZeRO-2, NO_SHARD below; CPU offload of parameters, which FSDP couples with the optimizer).
 * The FSDP version is written either way: Accelerate's FSDP1-to-FSDP2 guide makes 2 the
 * default, under which FSDP1's keys would be misread. */
static void accelerate_fsdp1(strbuf *b, const cost_request *rq, const cost_option *o, const est_stack *st)
{
    const char *shard = o->k.zero >= 3 ? "FULL_SHARD" : o->k.zero == 2 ? "SHARD_GRAD_OP" : "NO_SHARD";
    sb_printf(b, "fsdp_config:\n");
    sb_printf(b, "  fsdp_version: 1\n");
    sb_printf(b, "  fsdp_sharding_strategy: %s\n", shard);
    sb_printf(b, "  fsdp_offload_params: %s\n", o->k.offload_params || o->k.offload_optimizer ? "true" : "false");
    sb_printf(b, "  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP\n");
    sb_printf(b, "  fsdp_backward_prefetch: %s\n", st->fsdp_prefetch ? "BACKWARD_PRE" : "NO_PREFETCH");
    sb_printf(b, "  fsdp_forward_prefetch: false\n");
    sb_printf(b, "  fsdp_state_dict_type: FULL_STATE_DICT\n");
    sb_printf(b, "  fsdp_cpu_ram_efficient_loading: true\n");
    sb_printf(b, "  fsdp_sync_module_states: true\n");
    sb_printf(b, "  fsdp_use_orig_params: %s\n", rq->task == COST_LORA ? "true" : "false");
    sb_printf(b, "  fsdp_activation_checkpointing: %s\n", o->k.checkpointing ? "true" : "false");
}

/* FSDP2 (fully_shard) through Accelerate (docs/source/concept_guides/fsdp1_vs_fsdp2.md):
 * fsdp_reshard_after_forward replaces the sharding strategy (true: FULL_SHARD, false:
 * SHARD_GRAD_OP); backward prefetch is always on, and the prefetch, sync_module_states and
 * use_orig_params keys are gone.  The full state dict (allowed under FSDP2, gathered on rank 0)
 * is what the host-memory estimate charges and what torchtune's file saves too */
static void accelerate_fsdp2(strbuf *b, const cost_option *o)
{
    sb_printf(b, "fsdp_config:\n");
    sb_printf(b, "  fsdp_version: 2\n");
    sb_printf(b, "  fsdp_reshard_after_forward: %s\n", o->k.zero >= 3 ? "true" : "false");
    sb_printf(b, "  fsdp_offload_params: %s\n", o->k.offload_params || o->k.offload_optimizer ? "true" : "false");
    sb_printf(b, "  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP\n");
    sb_printf(b, "  fsdp_state_dict_type: FULL_STATE_DICT\n");
    sb_printf(b, "  fsdp_cpu_ram_efficient_loading: true\n");
    sb_printf(b, "  fsdp_activation_checkpointing: %s\n", o->k.checkpointing ? "true" : "false");
}

int cost_accelerate_yaml(const cost_request *rq, const cost_option *o, char **out, ac_err *e)
{
    if (o->k.tp > 1 || o->k.pp > 1)
        return ac_err_set(e, AC_E_INPUT, "Accelerate runs DeepSpeed/FSDP data parallelism: no config for a TP%d PP%d setup", o->k.tp,
                          o->k.pp);
    const est_stack *st = cost_stack_of(rq);
    cost_fsdp_mode mode = cost_fsdp_mode_of(rq, &o->k);
    bool fsdp = mode != COST_FSDP_NONE;
    strbuf b;
    sb_init(&b);
    sb_printf(&b, "# Accelerate config written by autoconfig cost (predicted setup: %s)\n", o->label);
    sb_printf(&b, "# Schema: accelerate/commands/config/config_args.py ClusterConfig; `accelerate launch --config_file` this file.\n");
    sb_printf(&b, "# num_machines > 1: each node sets machine_rank (the launcher's --machine_rank overrides it) and main_process_ip.\n");
    sb_printf(&b, "compute_environment: LOCAL_MACHINE\n");
    sb_printf(&b, "debug: false\n");
    switch (mode) {
    case COST_FSDP2_DDP:
        /* FSDP2 has no NO_SHARD: an unsharded FSDP2 setup is plain DDP, no sharding section (one
         * process is no distributed run at all: `accelerate config` writes NO) */
        sb_printf(&b, "distributed_type: %s\n", o->k.num_gpus > 1 ? "MULTI_GPU" : "NO");
        break;
    case COST_FSDP2:
        sb_printf(&b, "distributed_type: FSDP\n");
        accelerate_fsdp2(&b, o);
        break;
    case COST_FSDP1:
        sb_printf(&b, "distributed_type: FSDP\n");
        accelerate_fsdp1(&b, rq, o, st);
        break;
    case COST_FSDP_NONE:
        sb_printf(&b, "distributed_type: DEEPSPEED\n");
        sb_printf(&b, "deepspeed_config:\n");
        sb_printf(&b, "  deepspeed_config_file: ds_config.json\n");
        sb_printf(&b, "  zero3_init_flag: %s\n", o->k.zero == 3 ? "true" : "false");
        if (o->nodes > 1) sb_printf(&b, "  deepspeed_multinode_launcher: standard\n");
        break;
    }
    sb_printf(&b, "downcast_bf16: false\n");
    sb_printf(&b, "enable_cpu_affinity: false\n");
    sb_printf(&b, "machine_rank: 0\n");
    sb_printf(&b, "main_training_function: main\n");
    if (o->nodes > 1) sb_printf(&b, "main_process_port: 29500\n");
    /* with a deepspeed_config_file the precision is ds_config.json's: Accelerate refuses a
     * mixed_precision beside it (DeepSpeedPlugin._deepspeed_config_checks raises "the following
     * accelerate config variables will be ignored", ACCELERATE_MIXED_PRECISION among them) */
    if (fsdp) sb_printf(&b, "mixed_precision: %s\n", rq->precision == PREC_FP16 ? "fp16" : rq->precision == PREC_FP32 ? "no" : "bf16");
    sb_printf(&b, "num_machines: %d\n", o->nodes);
    sb_printf(&b, "num_processes: %d\n", o->k.num_gpus);
    sb_printf(&b, "rdzv_backend: static\n");
    sb_printf(&b, "same_network: true\n");
    sb_printf(&b, "use_cpu: false\n");
    if (b.oom) {
        sb_free(&b);
        return ac_err_set(e, AC_E_NOMEM, "out of memory building the Accelerate config");
    }
    *out = sb_take(&b);
    return 0;
}

static void add_index(cJSON *o, const char *key, long i)
{
    if (i >= 0) cJSON_AddNumberToObject(o, key, (double)i);
    else cJSON_AddNullToObject(o, key);
}

static cJSON *option_json(const cost_request *rq, const cost_option *o)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "source", "predicted");
    cJSON_AddStringToObject(j, "label", o->label);
    cJSON_AddStringToObject(j, "gpu", o->gpu->name);
    cJSON_AddNumberToObject(j, "num_gpus", o->k.num_gpus);
    cJSON_AddNumberToObject(j, "nodes", o->nodes);
    cJSON_AddNumberToObject(j, "price_per_gpu_hour", o->price);
    const cost_instance *pi = rq->pools[o->k.pool].inst;
    if (pi) cJSON_AddStringToObject(j, "instance", pi->name);
    if (o->rank0_inst) cJSON_AddStringToObject(j, "rank0_instance", o->rank0_inst->name);
    cJSON_AddBoolToObject(j, "rank0_makes_fit", o->rank0_makes_fit);
    cJSON_AddNumberToObject(j, "tp", o->k.tp);
    cJSON_AddNumberToObject(j, "pp", o->k.pp);
    cJSON_AddNumberToObject(j, "dp", o->dp);
    cJSON_AddNumberToObject(j, "zero_stage", o->k.zero);
    cJSON_AddBoolToObject(j, "offload_optimizer", o->k.offload_optimizer);
    cJSON_AddBoolToObject(j, "offload_params", o->k.offload_params);
    cJSON_AddBoolToObject(j, "activation_checkpointing", o->k.checkpointing);
    cJSON_AddNumberToObject(j, "mbs", o->k.mbs);
    cJSON_AddNumberToObject(j, "grad_accum", o->grad_accum);
    cJSON_AddNumberToObject(j, "gbs", o->gbs);
    add_num_or_null(j, "gpu_mem_gib", o->gpu_mem_gib);
    add_num_or_null(j, "gpu_limit_gib", o->gpu_limit_gib);
    add_num_or_null(j, "cpu_mem_node_gib", o->cpu_mem_node_gib);
    add_num_or_null(j, "cpu_limit_gib", o->cpu_limit_gib);
    add_num_or_null(j, "rank0_gather_gib", o->rank0_gather_gib);
    add_num_or_null(j, "tokens_per_s", o->tokens_per_s);
    add_num_or_null(j, "mtok_per_hour", o->mtok_per_hour);
    add_num_or_null(j, "mfu", o->mfu);
    add_num_or_null(j, "hfu", o->hfu);
    add_num_or_null(j, "step_time_s", o->step_time_s);
    add_num_or_null(j, "hours", o->hours);
    add_num_or_null(j, "usd_total", o->usd_total);
    add_num_or_null(j, "usd_per_mtok", o->usd_per_mtok);
    add_num_or_null(j, "optimizer_steps", o->optimizer_steps);
    /* the stack it is predicted on and its band on this GPU, with where the band comes from
     * (own: validated runs of this stack on this GPU; stack: of this stack on other GPUs;
     * published: the stack's published fine-tuning runs; pooled: none, all stacks' band) */
    const est_stack *st = cost_stack_of(rq);
    cJSON_AddStringToObject(j, "stack", st ? st->name : "megatron-core");
    double band;
    char band_text[256];
    const char *band_source = cost_band_of(rq, o, &band, band_text, sizeof band_text);
    add_num_or_null(j, "band_time_rel", band);
    add_num_or_null(j, "tie_band", cost_tie_band(o));
    cJSON_AddStringToObject(j, "band_source", band_source);
    cJSON_AddBoolToObject(j, "feasible", o->feasible);
    if (o->feasible) cJSON_AddNullToObject(j, "why");
    else cJSON_AddStringToObject(j, "why", o->why);
    return j;
}

int cost_summary_json(const cost_request *rq, const cost_result *res, char **out, ac_err *e)
{
    cJSON *r = cJSON_CreateObject();
    char ts[32];
    json_utc_now(ts, sizeof ts); /* the report tells this search's cost stage from an earlier one's */
    cJSON_AddStringToObject(r, "stage", "cost");
    cJSON_AddStringToObject(r, "generated", ts);
    cJSON_AddStringToObject(r, "source", "predicted");
    cJSON_AddStringToObject(r, "model", rq->model.name);
    model_shape s = rq->model.shape;
    cJSON *m = cJSON_AddObjectToObject(r, "model_shape");
    cJSON_AddNumberToObject(m, "layers", s.num_layers);
    cJSON_AddNumberToObject(m, "hidden", s.hidden);
    cJSON_AddNumberToObject(m, "heads", s.heads);
    cJSON_AddNumberToObject(m, "kv_heads", s.query_groups);
    cJSON_AddNumberToObject(m, "ffn_hidden", s.ffn_hidden);
    cJSON_AddNumberToObject(m, "vocab", s.vocab);
    cJSON_AddNumberToObject(m, "experts", s.num_experts);
    cJSON_AddNumberToObject(m, "max_context", rq->model.max_context);
    if (res->n) cJSON_AddNumberToObject(m, "params_b", res->opt[0].est.params_b);
    cJSON_AddStringToObject(r, "task", cost_task_name(rq->task));
    if (rq->task == COST_LORA) {
        cJSON *l = cJSON_AddObjectToObject(r, "lora");
        cJSON_AddNumberToObject(l, "rank", rq->lora_rank);
        cJSON_AddStringToObject(l, "target_modules", rq->lora_modules);
        cJSON_AddNumberToObject(l, "hxh_equivalent_targets", rq->lora_targets);
    }
    cJSON_AddNumberToObject(r, "context", rq->context);
    cJSON_AddNumberToObject(r, "tokens_b", rq->tokens_b);
    cJSON_AddNumberToObject(r, "global_batch_size", rq->gbs);
    cJSON_AddStringToObject(r, "precision", est_precision_name(rq->precision));
    cJSON_AddNumberToObject(r, "cpu_memory_per_node_gb", rq->cpu_mem_node_gb);
    if (rq->deadline_hours > 0) cJSON_AddNumberToObject(r, "deadline_hours", rq->deadline_hours);
    else cJSON_AddNullToObject(r, "deadline_hours");
    if (rq->budget_usd > 0) cJSON_AddNumberToObject(r, "budget_usd", rq->budget_usd);
    else cJSON_AddNullToObject(r, "budget_usd");
    cJSON_AddStringToObject(r, "mfu_convention", COST_MFU_CONVENTION);
    cJSON_AddNumberToObject(r, "setups_evaluated", (double)res->n_evaluated);
    cJSON_AddNumberToObject(r, "setups_feasible", (double)res->n_feasible);
    cJSON *gp = cJSON_AddArrayToObject(r, "gpus");
    for (int p = 0; p < rq->n_pools; p++) {
        cJSON *g = cJSON_CreateObject();
        cJSON_AddStringToObject(g, "gpu", rq->pools[p].gpu->name);
        if (rq->pools[p].inst) {
            const cost_instance *in = rq->pools[p].inst;
            cJSON_AddStringToObject(g, "instance", in->name);
            cJSON_AddNumberToObject(g, "gpus_per_instance", in->gpus);
            cJSON_AddNumberToObject(g, "host_ram_gib", in->host_ram_gib);
            cJSON_AddNumberToObject(g, "price_per_instance_hour", rq->pools[p].price * in->gpus);
            cJSON_AddStringToObject(g, "interconnect", in->interconnect);
            cJSON_AddStringToObject(g, "source", in->source);
        }
        cJSON_AddNumberToObject(g, "price_per_gpu_hour", rq->pools[p].price);
        cJSON_AddNumberToObject(g, "max_gpus", rq->pools[p].max_gpus);
        add_index(g, "cheapest_option", res->best_per_pool[p]);
        cJSON_AddItemToArray(gp, g);
    }
    cJSON *opts = cJSON_AddArrayToObject(r, "options");
    for (size_t i = 0; i < res->n; i++) cJSON_AddItemToArray(opts, option_json(rq, &res->opt[i]));
    cJSON *bc = cJSON_AddArrayToObject(r, "ranking_by_cost");
    cJSON *bt = cJSON_AddArrayToObject(r, "ranking_by_time");
    for (size_t i = 0; i < res->n_ranked; i++) {
        cJSON_AddItemToArray(bc, cJSON_CreateNumber((double)res->by_cost[i]));
        cJSON_AddItemToArray(bt, cJSON_CreateNumber((double)res->by_time[i]));
    }
    add_index(r, "best_cost", res->best_cost);
    add_index(r, "best_time", res->best_time);
    add_index(r, "best_constrained", res->best_constrained);
    add_index(r, "chosen", cost_chosen(res, rq));
    long ch = cost_chosen(res, rq);
    cJSON_AddNumberToObject(r, "tie_band", ch >= 0 ? cost_tie_band(&res->opt[ch]) : 0.0);
    if (res->chosen_why[0]) cJSON_AddStringToObject(r, "chosen_why", res->chosen_why);
    else cJSON_AddNullToObject(r, "chosen_why");
    return finish(r, out, e);
}

static void remove_stale(const char *dir, const char *name)
{
    char path[4096];
    ac_err e;
    if (!fs_join(path, sizeof path, dir, name, &e)) (void)unlink(path);
}

int cost_write_files(const cost_request *rq, const cost_result *r, const char *dir, ac_err *e)
{
    char *sum = NULL, *ds = NULL, *args = NULL, *lora = NULL, *forge = NULL, *accel = NULL, *tune = NULL;
    long c = cost_chosen(r, rq);
    int rc = -1;
    /* build everything first so a failure writes nothing */
    if (cost_summary_json(rq, r, &sum, e)) goto out;
    /* DeepSpeed's config only for a setup DeepSpeed runs (FSDP's settings are in train_args.json
     * and accelerate_config.yaml) */
    if (c >= 0 && !cost_is_fsdp(rq, &r->opt[c].k) && cost_deepspeed_json(rq, &r->opt[c], &ds, e)) goto out;
    if (c >= 0 && cost_train_args_json(rq, &r->opt[c], 0, &args, e)) goto out;
    if (c >= 0 && rq->task == COST_LORA && cost_lora_json(rq, &lora, e)) goto out;
    /* LLMForge runs DeepSpeed: its config only for a DeepSpeed setup; Accelerate's for either */
    if (c >= 0 && r->opt[c].k.tp == 1 && r->opt[c].k.pp == 1 &&
        ((!cost_is_fsdp(rq, &r->opt[c].k) && cost_llmforge_yaml(rq, &r->opt[c], false, &forge, e)) ||
         cost_accelerate_yaml(rq, &r->opt[c], &accel, e)))
        goto out;
    /* torchtune only for setups it runs (FSDP data parallelism of a model it builds) */
    if (c >= 0 && cost_torchtune_runs(rq, &r->opt[c]) && cost_torchtune_yaml(rq, &r->opt[c], &tune, e)) goto out;
    if (fs_mkdir_p(dir, e)) goto out;
    if (ds && fs_write_text_in(dir, "ds_config.json", ds, e)) goto out;
    if (args && fs_write_text_in(dir, "train_args.json", args, e)) goto out;
    if (lora && fs_write_text_in(dir, "lora_config.json", lora, e)) goto out;
    if (forge && fs_write_text_in(dir, "llmforge.yaml", forge, e)) goto out;
    if (accel && fs_write_text_in(dir, "accelerate_config.yaml", accel, e)) goto out;
    if (tune && fs_write_text_in(dir, "torchtune_config.yaml", tune, e)) goto out;
    /* files of an earlier run that this run does not replace would describe another setup */
    if (!ds) remove_stale(dir, "ds_config.json");
    if (!args) remove_stale(dir, "train_args.json");
    if (!lora) remove_stale(dir, "lora_config.json");
    if (!forge) remove_stale(dir, "llmforge.yaml");
    if (!accel) remove_stale(dir, "accelerate_config.yaml");
    if (!tune) remove_stale(dir, "torchtune_config.yaml");
    if (fs_write_text_in(dir, "summary.json", sum, e)) goto out;
    rc = 0;
out:
    free(sum);
    free(ds);
    free(args);
    free(lora);
    free(forge);
    free(accel);
    free(tune);
    return rc;
}
