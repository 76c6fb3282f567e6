/* test_cost.c — the cost stage: ZeRO memory accounting per stage as the ZeRO
 * paper states it (Rajbhandari et al. 2020 §5: model states 2Ψ + 2Ψ + KΨ with
 * K = 12 for mixed-precision Adam; stage 1 partitions the K Ψ, stage 2 also the
 * gradients, stage 3 also the parameters), offload, LoRA against full
 * fine-tuning, the direction of every knob, the search's answers and files,
 * the Hugging Face config reader and the input errors. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cost/cost.h"
#include "cost/cost_measure.h"
#include "cost/cost_published.h"
#include "estimator/stack.h"
#include "estimator/est.h"
#include "estimator/gpu.h"

static model_shape llama7b(void)
{
    model_shape s = {0};
    s.arch = ARCH_DECODER;
    s.num_layers = 32;
    s.hidden = 4096;
    s.ffn_hidden = 11008;
    s.heads = 32;
    s.query_groups = 32;
    s.kv_channels = 128;
    s.vocab = 32000;
    s.seq_length = 4096;
    s.gated_mlp = true;
    s.untied_embeddings = true;
    return s;
}

static model_shape llama70b(void)
{
    model_shape s = llama7b();
    s.num_layers = 80;
    s.hidden = 8192;
    s.ffn_hidden = 28672;
    s.heads = 64;
    s.query_groups = 8;
    return s;
}

static const gpu_spec *gpu(const char *name)
{
    ac_err e;
    if (gpu_catalog_load(&e)) return NULL;
    return gpu_find(name);
}

static est_input ds_input(int zero, int dp)
{
    est_input in;
    model_shape s = llama7b();
    est_input_init(&in, &s, gpu("a100_80gb"));
    in.num_gpus = dp;
    in.gbs = dp;
    in.zero_stage = zero;
    in.grad_bytes = 2.0; /* DeepSpeed: 16-bit gradients, the paper's 2Ψ */
    return in;
}

static double states(const est_result *r) { return r->mem_weights + r->mem_grads + r->mem_optimizer; }

/* Ψ = all parameters of the model (one pipeline stage holds them all here) */
static double psi(void)
{
    est_input in = ds_input(0, 1);
    est_result r;
    est_evaluate(&in, &r);
    return r.mem_weights / 2.0;
}

static void test_zero_stages_as_the_paper(void)
{
    const int Nd = 8;
    double P = psi();
    CHECK_NEAR(P, 6.74e9, 0.01); /* Llama-2-7B */
    est_result r[4];
    /* one collective per layer at every stage, as ZeRO-3's, so that only the volume differs */
    est_stack per_layer = *est_stack_default();
    per_layer.dp_bucket_params = per_layer.dp_bucket_params_per_rank = 0;
    for (int z = 0; z < 4; z++) {
        est_input in = ds_input(z, Nd);
        in.stack = &per_layer;
        CHECK_INT(est_evaluate(&in, &r[z]), 0);
    }
    /* stage 0: (2 + 2 + 12) Ψ per GPU */
    CHECK_NEAR(states(&r[0]), 16.0 * P, 1e-9);
    /* stage 1 (P_os): 2Ψ + 2Ψ + 12Ψ/Nd */
    CHECK_NEAR(states(&r[1]), 4.0 * P + 12.0 * P / Nd, 1e-9);
    /* stage 2 (P_os+g): 2Ψ + 14Ψ/Nd */
    CHECK_NEAR(states(&r[2]), 2.0 * P + 14.0 * P / Nd, 1e-9);
    /* stage 3 (P_os+g+p): 16Ψ/Nd, plus the two layers ZeRO-3/FSDP keeps gathered */
    double gathered = 2.0 * (P / 32.0) * 2.0;
    CHECK_NEAR(states(&r[3]), 16.0 * P / Nd + gathered, 1e-9);
    /* the paper's Table 1 example scale: 7.5B, Nd 64 → 120 GB, 31.4 GB, 16.6 GB, 1.9 GB */
    double p75 = 7.5e9;
    CHECK_NEAR((4.0 * p75 + 12.0 * p75 / 64) / 1e9, 31.4, 0.01);
    CHECK_NEAR((2.0 * p75 + 14.0 * p75 / 64) / 1e9, 16.6, 0.01);
    CHECK_NEAR(16.0 * p75 / 64 / 1e9, 1.875, 0.01);
    /* every stage saves memory and costs no less communication than the one before */
    for (int z = 1; z < 4; z++) {
        CHECK(states(&r[z]) < states(&r[z - 1]));
        CHECK(r[z].t_dp_comm >= r[z - 1].t_dp_comm * 0.999 || z == 1);
    }
}

static void test_offload_moves_states_to_the_host(void)
{
    const int Nd = 8;
    double P = psi();
    est_input in = ds_input(2, Nd);
    est_result gpu_only, off;
    est_evaluate(&in, &gpu_only);
    in.offload_optimizer = true;
    est_evaluate(&in, &off);
    CHECK(off.mem_optimizer == 0.0);
    /* host keeps the 12Ψ/Nd optimizer shard and the fp32 gradient shard 4Ψ/Nd (ZeRO-Offload §4) */
    CHECK_NEAR(off.cpu_mem_per_gpu, 12.0 * P / Nd + 4.0 * P / Nd, 1e-9);
    CHECK(off.mem_total < gpu_only.mem_total);
    CHECK(off.t_optimizer > gpu_only.t_optimizer); /* CPU Adam and PCIe are slower than HBM */
    /* parameter offload (ZeRO-3 only) leaves the GPU with the gathered layers */
    in.zero_stage = 3;
    est_result z3, z3p;
    est_evaluate(&in, &z3);
    in.offload_params = true;
    est_evaluate(&in, &z3p);
    /* (the peak pipeline stage holds the embedding or the output layer, not both: 2 % of Ψ) */
    CHECK_NEAR(z3p.mem_weights, 2.0 * (P / 32.0) * 2.0, 0.03);
    CHECK_NEAR(z3p.cpu_mem_per_gpu - z3.cpu_mem_per_gpu, 2.0 * P / Nd, 0.03);
    /* and trades ZeRO-3's pageable copy back of the updated master (its 16-bit partition is in host
     * memory now) for two fetches of the shard per micro-batch */
    CHECK(z3p.t_optimizer < z3.t_optimizer && z3p.t_dp_exposed >= z3.t_dp_exposed);
}

static void test_lora_against_full(void)
{
    est_input in = ds_input(0, 1);
    est_result full, lora;
    est_evaluate(&in, &full);
    in.lora_rank = 16;
    in.lora_targets = 4;
    est_evaluate(&in, &lora);
    double P = psi();
    double adapters = 32.0 * 4 * 16 * 2.0 * 4096; /* L · targets · r · (in + out) */
    /* frozen bf16 weights plus adapters; gradients and Adam only for the adapters */
    CHECK_NEAR(lora.mem_weights, 2.0 * (P + adapters), 1e-9);
    CHECK_NEAR(lora.mem_grads, 2.0 * adapters, 1e-9);
    CHECK_NEAR(lora.mem_optimizer, 12.0 * adapters, 1e-9);
    CHECK(lora.mem_total < 0.35 * full.mem_total);
    /* no weight gradients for frozen layers: backward ≈ one forward of GEMMs, not two */
    CHECK(lora.step_time < full.step_time);
    CHECK(lora.step_time > 0.55 * full.step_time);
}

static cost_request request(const model_shape *s, cost_task task)
{
    cost_model m = {0};
    snprintf(m.name, sizeof m.name, "test");
    m.shape = *s;
    m.max_context = s->seq_length;
    cost_request rq;
    cost_request_init(&rq, &m);
    rq.task = task;
    rq.context = 4096;
    rq.tokens_b = 0.1;
    rq.gbs = 64;
    ac_err e;
    cost_pool_parse("a100_80gb", 8, NULL, &rq.pools[0], &e);
    cost_pool_parse("a10g", 64, NULL, &rq.pools[1], &e);
    rq.n_pools = 2;
    return rq;
}

static cost_option eval(const cost_request *rq, cost_knobs k)
{
    cost_option o;
    ac_err e;
    if (cost_evaluate(rq, &k, &o, &e)) printf("  evaluate failed: %s\n", e.msg);
    return o;
}

static void test_knob_directions(void)
{
    model_shape s = llama7b();
    cost_request rq = request(&s, COST_FULL);
    cost_knobs base = {0, 8, 1, 1, 1, 2, false, false, false};
    cost_option b = eval(&rq, base);
    CHECK(b.feasible);
    CHECK_INT(b.grad_accum, 8);
    /* activation checkpointing: less memory, more time */
    cost_knobs k = base;
    k.checkpointing = true;
    cost_option o = eval(&rq, k);
    CHECK(o.gpu_mem_gib < b.gpu_mem_gib);
    CHECK(o.hours > b.hours);
    CHECK(o.hfu > o.mfu);
    /* a larger micro batch: more memory, fewer accumulation steps */
    k = base;
    k.mbs = 2;
    o = eval(&rq, k);
    CHECK(o.gpu_mem_gib > b.gpu_mem_gib);
    CHECK_INT(o.grad_accum, 4);
    /* a higher ZeRO stage: less GPU memory */
    k = base;
    k.zero = 3;
    o = eval(&rq, k);
    CHECK(o.gpu_mem_gib < b.gpu_mem_gib);
    /* optimizer offload: less GPU memory, more host memory, slower */
    k = base;
    k.offload_optimizer = true;
    o = eval(&rq, k);
    CHECK(o.gpu_mem_gib < b.gpu_mem_gib);
    CHECK(o.cpu_mem_node_gib > b.cpu_mem_node_gib);
    CHECK(o.hours > b.hours);
    /* more GPUs: faster; $ per token of the same setup about the same */
    k = base;
    k.num_gpus = 4;
    o = eval(&rq, k);
    CHECK(o.hours > b.hours);
    CHECK_NEAR(o.usd_per_mtok, b.usd_per_mtok, 0.1);
    /* a higher price: same time, proportionally more $ */
    cost_request rq2 = rq;
    rq2.pools[0].price *= 2;
    o = eval(&rq2, base);
    CHECK_NEAR(o.hours, b.hours, 1e-12);
    CHECK_NEAR(o.usd_per_mtok, 2.0 * b.usd_per_mtok, 1e-9);
    /* longer context: attention FLOPs per token grow, so does memory */
    cost_request rq3 = rq;
    rq3.context = 2048;
    o = eval(&rq3, base);
    CHECK(o.gpu_mem_gib < b.gpu_mem_gib);
    /* more tokens: proportionally more time and $, same $/MT */
    rq3 = rq;
    rq3.tokens_b *= 3;
    o = eval(&rq3, base);
    CHECK_NEAR(o.hours, 3.0 * b.hours, 1e-9);
    CHECK_NEAR(o.usd_per_mtok, b.usd_per_mtok, 1e-12);
    /* TP on Megatron splits the weights */
    k = base;
    k.tp = 2;
    k.zero = 1;
    o = eval(&rq, k);
    CHECK(o.est.mem_weights < b.est.mem_weights);
    /* layout rules the frameworks impose */
    cost_option bad;
    ac_err e;
    k = base;
    k.tp = 2;
    k.zero = 3;
    CHECK(cost_evaluate(&rq, &k, &bad, &e) == -1);
    k = base;
    k.offload_params = true; /* ZeRO-2 */
    CHECK(cost_evaluate(&rq, &k, &bad, &e) == -1);
    CHECK_CONTAINS(bad.why, "ZeRO stage 3");
}

static void test_mfu_convention(void)
{
    /* full training: 6N + attention is Megatron's formula (est_model_flops) */
    model_shape s = llama7b();
    cost_request rq = request(&s, COST_FULL);
    cost_knobs k = {0, 8, 1, 1, 1, 1, false, false, false};
    cost_option o = eval(&rq, k);
    model_shape sc = s;
    sc.seq_length = rq.context;
    double mega = est_model_flops(&sc, 1) / rq.context; /* per token */
    double peak = gpu("a100_80gb")->bf16_tflops * 1e12 * 8;
    CHECK_NEAR(o.mfu, mega * o.tokens_per_s / peak, 1e-9);
    /* LoRA counts 4N: its MFU is below the full count of the same throughput */
    cost_request rl = request(&s, COST_LORA);
    cost_option l = eval(&rl, k);
    CHECK(l.mfu / l.tokens_per_s < o.mfu / o.tokens_per_s);
    CHECK_CONTAINS(COST_MFU_CONVENTION, "6 x N");
}

static void test_a10g_full_finetune_needs_offload(void)
{
    /* 16 bytes per parameter of a 6.7B model do not fit 24 GB without sharding or offload */
    model_shape s = llama7b();
    cost_request rq = request(&s, COST_FULL);
    cost_knobs k = {1, 1, 1, 1, 1, 0, false, false, true};
    cost_option o = eval(&rq, k);
    CHECK(!o.feasible);
    CHECK_CONTAINS(o.why, "GPU memory: needs");
    CHECK_CONTAINS(o.why, "GiB usable");
    k.zero = 3;
    k.offload_optimizer = k.offload_params = true;
    o = eval(&rq, k);
    CHECK(o.feasible);
    /* a single GPU's ZeRO-3 offload is PCIe-bound on parameters: slower than 8 A100s by far */
    cost_knobs a = {0, 8, 1, 1, 1, 2, false, false, false};
    CHECK(o.hours > 20.0 * eval(&rq, a).hours);
    /* 70B on one A10G: infeasible and says by how much */
    model_shape b = llama70b();
    cost_request r70 = request(&b, COST_FULL);
    o = eval(&r70, k);
    CHECK(!o.feasible);
}

static void test_search_answers(void)
{
    model_shape s = llama7b();
    cost_request rq = request(&s, COST_FULL);
    cost_result r;
    ac_err e;
    CHECK_INT(cost_search(&rq, &r, &e), 0);
    CHECK(r.n_evaluated > 100);
    CHECK(r.best_cost >= 0 && r.best_time >= 0);
    CHECK(r.best_per_pool[0] >= 0 && r.best_per_pool[1] >= 0);
    /* the rankings are sorted: by time; by $/MT up to the tie band, inside which the faster comes first */
    for (size_t j = 1; j < r.n_ranked; j++) {
        const cost_option *a = &r.opt[r.by_cost[j - 1]], *b = &r.opt[r.by_cost[j]];
        CHECK(b->usd_per_mtok >= a->usd_per_mtok || cost_same_price(a->usd_per_mtok, b->usd_per_mtok, fmax(cost_tie_band(a), cost_tie_band(b))));
        if (b->usd_per_mtok < a->usd_per_mtok) CHECK(a->hours <= b->hours);
        CHECK(r.opt[r.by_time[j]].hours >= r.opt[r.by_time[j - 1]].hours);
    }
    /* the cheapest per GPU type is the cheapest option of that type, within the band */
    for (size_t i = 0; i < r.n; i++)
        if (r.opt[i].feasible)
            CHECK(r.opt[i].usd_per_mtok >= r.opt[r.best_per_pool[r.opt[i].k.pool]].usd_per_mtok ||
                  cost_same_price(r.opt[i].usd_per_mtok, r.opt[r.best_per_pool[r.opt[i].k.pool]].usd_per_mtok, cost_tie_band(&r.opt[i])));
    CHECK(r.chosen_why[0] != '\0');
    /* a deadline below the cheapest option's time picks a faster one */
    double cheap_h = r.opt[r.best_cost].hours;
    cost_result_free(&r);
    rq.deadline_hours = cheap_h / 2.0;
    CHECK_INT(cost_search(&rq, &r, &e), 0);
    if (r.best_constrained >= 0) CHECK(r.opt[r.best_constrained].hours <= rq.deadline_hours);
    CHECK(cost_chosen(&r, &rq) == r.best_constrained);
    cost_result_free(&r);
    /* an impossible deadline: nothing chosen */
    rq.deadline_hours = 1e-6;
    CHECK_INT(cost_search(&rq, &r, &e), 0);
    CHECK(r.best_constrained == -1);
    CHECK(cost_chosen(&r, &rq) == -1);
    cost_result_free(&r);
    /* a budget: the fastest within it */
    rq.deadline_hours = 0;
    rq.budget_usd = 1e9;
    CHECK_INT(cost_search(&rq, &r, &e), 0);
    CHECK(r.best_constrained == r.best_time);
    cost_result_free(&r);
}

static void test_files(void)
{
    model_shape s = llama7b();
    cost_request rq = request(&s, COST_LORA);
    snprintf(rq.lora_modules, sizeof rq.lora_modules, "q_proj,v_proj");
    cost_knobs k = {0, 8, 1, 1, 2, 3, true, true, true};
    cost_option o = eval(&rq, k);
    char *ds = NULL, *args = NULL, *lora = NULL;
    ac_err e;
    CHECK_INT(cost_deepspeed_json(&rq, &o, &ds, &e), 0);
    CHECK_INT(cost_train_args_json(&rq, &o, 0, &args, &e), 0);
    CHECK_INT(cost_lora_json(&rq, &lora, &e), 0);
    cJSON *j = cJSON_Parse(ds);
    CHECK(j != NULL);
    const cJSON *z = cJSON_GetObjectItem(j, "zero_optimization");
    CHECK_INT(cJSON_GetObjectItem(z, "stage")->valueint, 3);
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(z, "offload_optimizer"), "device")->valuestring, "cpu");
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(z, "offload_param"), "device")->valuestring, "cpu");
    /* DeepSpeed's rule: train_batch_size = micro batch × accumulation × data-parallel ranks */
    CHECK_INT(cJSON_GetObjectItem(j, "train_batch_size")->valueint,
              cJSON_GetObjectItem(j, "train_micro_batch_size_per_gpu")->valueint *
                  cJSON_GetObjectItem(j, "gradient_accumulation_steps")->valueint * 8);
    cJSON_Delete(j);
    j = cJSON_Parse(args);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(j, "gradient_checkpointing")));
    CHECK_INT(cJSON_GetObjectItem(j, "max_seq_length")->valueint, 4096);
    cJSON_Delete(j);
    j = cJSON_Parse(lora);
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(j, "target_modules")), 2);
    CHECK_INT(cJSON_GetObjectItem(j, "r")->valueint, 16);
    cJSON_Delete(j);
    free(ds);
    free(args);
    free(lora);
}

/* FSDP2 (torchtitan/torchtune's stack): Transformers' FSDP2 arguments (fsdp on, fsdp_config
 * version 2, reshard_after_forward for the sharding, its own activation checkpointing in place of
 * gradient_checkpointing, the full state dict the host estimate charges) and Accelerate's FSDP2
 * keys; unsharded it is plain DDP, on one GPU no distributed run at all; FSDP1 keeps its strategy */
static void test_files_fsdp2(void)
{
    model_shape s = llama7b();
    cost_request rq = request(&s, COST_FULL);
    rq.stack = est_stack_find("pytorch-fsdp2");
    CHECK(rq.stack != NULL);
    ac_err e;
    cost_knobs z3 = {0, 8, 1, 1, 2, 3, false, false, true};
    cost_option o = eval(&rq, z3);
    char *args = NULL, *acc = NULL;
    CHECK_INT(cost_train_args_json(&rq, &o, 0, &args, &e), 0);
    cJSON *j = cJSON_Parse(args);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(j, "fsdp")));
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(j, "gradient_checkpointing")));
    const cJSON *fc = cJSON_GetObjectItem(j, "fsdp_config");
    CHECK_INT(cJSON_GetObjectItem(fc, "version")->valueint, 2);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(fc, "reshard_after_forward")));
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(fc, "activation_checkpointing")));
    CHECK_STR(cJSON_GetObjectItem(fc, "state_dict_type")->valuestring, "FULL_STATE_DICT");
    CHECK_STR(cJSON_GetObjectItem(j, "framework")->valuestring, "fsdp");
    cJSON_Delete(j);
    free(args);
    CHECK(strstr(o.label, "FSDP2 FULL_SHARD") != NULL);
    CHECK_INT(cost_accelerate_yaml(&rq, &o, &acc, &e), 0);
    CHECK(strstr(acc, "fsdp_version: 2\n") && strstr(acc, "fsdp_reshard_after_forward: true\n") &&
          strstr(acc, "fsdp_state_dict_type: FULL_STATE_DICT\n") && !strstr(acc, "fsdp_sharding_strategy"));
    free(acc);
    /* unsharded: DDP, over 8 processes and over one */
    cost_knobs ddp8 = {0, 8, 1, 1, 1, 0, false, false, false}, ddp1 = {0, 1, 1, 1, 1, 0, false, false, false};
    for (int n = 0; n < 2; n++) {
        cost_option od = eval(&rq, n ? ddp1 : ddp8);
        CHECK_INT(cost_train_args_json(&rq, &od, 0, &args, &e), 0);
        j = cJSON_Parse(args);
        CHECK(cJSON_GetObjectItem(j, "fsdp") == NULL);
        CHECK_STR(cJSON_GetObjectItem(j, "framework")->valuestring, "ddp");
        cJSON_Delete(j);
        free(args);
        CHECK_INT(cost_accelerate_yaml(&rq, &od, &acc, &e), 0);
        CHECK(strstr(acc, n ? "distributed_type: NO\n" : "distributed_type: MULTI_GPU\n") != NULL);
        CHECK(strstr(acc, "fsdp_config") == NULL);
        free(acc);
    }
    /* FSDP1 (Accelerate, Lightning): the strategy string Transformers' FSDP1 reads */
    rq.stack = est_stack_find("pytorch-fsdp");
    o = eval(&rq, z3);
    CHECK_INT(cost_train_args_json(&rq, &o, 0, &args, &e), 0);
    j = cJSON_Parse(args);
    CHECK_STR(cJSON_GetObjectItem(j, "fsdp")->valuestring, "full_shard auto_wrap");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(j, "gradient_checkpointing")));
    cJSON_Delete(j);
    free(args);
}

static void test_lora_targets(void)
{
    model_shape s = llama7b();
    int n = 0;
    ac_err e;
    CHECK_INT(cost_lora_targets("q_proj,k_proj,v_proj,o_proj", &s, &n, &e), 0);
    CHECK_INT(n, 4);
    CHECK_INT(cost_lora_targets("q_proj,v_proj", &s, &n, &e), 0);
    CHECK_INT(n, 2);
    int all = 0;
    CHECK_INT(cost_lora_targets("all-linear", &s, &all, &e), 0);
    CHECK_INT(all, (int)lround(4 + 3 * (4096.0 + 11008) / 8192));
    /* GQA: k and v are narrower than q */
    model_shape g = llama70b();
    CHECK_INT(cost_lora_targets("k_proj", &g, &n, &e), 0);
    CHECK_INT(n, 1);
    CHECK_INT(cost_lora_targets("q_proj,bogus", &s, &n, &e), -1);
    CHECK_CONTAINS(e.msg, "unknown module 'bogus'");
    /* per token, a dense model passes every adapter: the same widths, unrounded */
    CHECK_NEAR(cost_lora_token_targets("all-linear", &s), 4 + 3 * (4096.0 + 11008) / 8192, 1e-12);
    CHECK_NEAR(cost_lora_token_targets("bogus", &s), 0.0, 0.0);
}

static const char HF_MIXTRAL[] =
    "{\"model_type\": \"mixtral\", \"hidden_size\": 4096, \"num_hidden_layers\": 32, \"num_attention_heads\": 32,"
    " \"num_key_value_heads\": 8, \"intermediate_size\": 14336, \"vocab_size\": 32000,"
    " \"max_position_embeddings\": 32768, \"num_local_experts\": 8, \"num_experts_per_tok\": 2}";

/* Mixtral (h 4096, 8 KV heads of 128, experts 14336 wide, top-2 of 8): every expert holds MLP
 * adapters, a token passes its two experts' only.  Attention: q and o (4096 + 4096) / 8192 = 1
 * each, k and v (4096 + 1024) / 8192 each; MLP: gate, up, down (4096 + 14336) / 8192 each, x 8
 * experts for the parameters, x 2 per token */
static void test_lora_token_targets_moe(void)
{
    cost_model m;
    ac_err e;
    CHECK_INT(cost_hf_config_parse(HF_MIXTRAL, strlen(HF_MIXTRAL), "mixtral.json", &m, &e), 0);
    double attn = 2.0 + 2.0 * 5120.0 / 8192, mlp = 3.0 * 18432.0 / 8192;
    int n = 0;
    CHECK_INT(cost_lora_targets("all-linear", &m.shape, &n, &e), 0);
    CHECK_INT(n, (int)lround(attn + 8 * mlp));
    CHECK_NEAR(cost_lora_token_targets("all-linear", &m.shape), attn + 2 * mlp, 1e-12);
    CHECK_NEAR(cost_lora_token_targets("q_proj,v_proj", &m.shape), 1.0 + 5120.0 / 8192, 1e-12);
}

/* A model windowed on every layer (Mistral-7B-v0.1: sliding_window 4096) reaches SDPA with an explicit
 * mask once the context reaches the window, so it is priced on the memory-efficient kernel at 4096
 * (as a run that passes the mask anyway) and on the causal kernel at 2048 */
static void test_window_mask(void)
{
    static const char HF_MISTRAL[] =
        "{\"model_type\": \"mistral\", \"hidden_size\": 4096, \"num_hidden_layers\": 32, \"num_attention_heads\": 32,"
        " \"num_key_value_heads\": 8, \"intermediate_size\": 14336, \"vocab_size\": 32000,"
        " \"max_position_embeddings\": 32768, \"sliding_window\": 4096}";
    cost_model m;
    ac_err e;
    CHECK_INT(cost_hf_config_parse(HF_MISTRAL, strlen(HF_MISTRAL), "mistral.json", &m, &e), 0);
    CHECK_INT(m.shape.swa_window, 4096);
    cost_request rq;
    cost_request_init(&rq, &m);
    rq.gbs = 64;
    CHECK_INT(cost_pool_parse("a100_80gb", 8, NULL, &rq.pools[0], &e), 0);
    rq.n_pools = 1;
    cost_knobs k = {0, 8, 1, 1, 1, 2, false, false, true};
    for (int ctx = 2048; ctx <= 4096; ctx *= 2) {
        rq.context = ctx;
        cost_option plain, masked;
        rq.attn_explicit_mask = false;
        CHECK_INT(cost_evaluate(&rq, &k, &plain, &e), 0);
        rq.attn_explicit_mask = true;
        CHECK_INT(cost_evaluate(&rq, &k, &masked, &e), 0);
        if (ctx < 4096) CHECK(masked.step_time_s > plain.step_time_s * 1.05);
        else CHECK_NEAR(plain.step_time_s, masked.step_time_s, 1e-12);
    }
}

/* A Nemotron-H config.json (NemotronHConfig): the hybrid pattern and the Mamba-2 sizes are
 * read; a pattern that does not match num_hidden_layers or uses other symbols is refused
 * naming the key; the fine-tuning cost search refuses hybrids (its files and LoRA targets
 * know attention and MLP layers only) */
static void test_hf_config_hybrid(void)
{
    static const char HF_NH[] =
        "{\"model_type\": \"nemotron_h\", \"hidden_size\": 4096, \"num_hidden_layers\": 7, \"num_attention_heads\": 32,"
        " \"num_key_value_heads\": 8, \"head_dim\": 128, \"intermediate_size\": 21504, \"vocab_size\": 131072,"
        " \"max_position_embeddings\": 8192, \"hybrid_override_pattern\": \"M-M*-M-\", \"mamba_num_heads\": 128,"
        " \"mamba_head_dim\": 64, \"ssm_state_size\": 128, \"n_groups\": 8}";
    cost_model m;
    ac_err e;
    CHECK_INT(cost_hf_config_parse(HF_NH, strlen(HF_NH), "nh.json", &m, &e), 0);
    CHECK(shape_is_hybrid(&m.shape));
    CHECK_INT(m.shape.hyb_mamba, 3);
    CHECK_INT(m.shape.hyb_attn, 1);
    CHECK_INT(m.shape.hyb_mlp, 3);
    CHECK_INT(m.shape.mamba_groups, 8);
    CHECK(!m.shape.gated_mlp && m.shape.untied_embeddings);
    char bad[sizeof HF_NH];
    snprintf(bad, sizeof bad, "%s", HF_NH);
    memcpy(strstr(bad, "M-M*-M-"), "M-M*-MX", 7);
    CHECK_INT(cost_hf_config_parse(bad, strlen(bad), "nh.json", &m, &e), -1);
    CHECK_STR(e.key, "hybrid_override_pattern");
    snprintf(bad, sizeof bad, "%s", HF_NH);
    memcpy(strstr(bad, "\"n_groups\""), "\"x_groups\"", 10);
    CHECK_INT(cost_hf_config_parse(bad, strlen(bad), "nh.json", &m, &e), -1);
    CHECK_CONTAINS(e.msg, "Mamba-2 blocks");
    CHECK_STR(e.key, "n_groups");
    /* Nemotron 3 Super's spelling: expert blocks, a shared expert and LatentMoE's latent width */
    static const char HF_SUPER[] =
        "{\"model_type\": \"nemotron_h\", \"hidden_size\": 4096, \"num_hidden_layers\": 4, \"num_attention_heads\": 32,"
        " \"num_key_value_heads\": 2, \"head_dim\": 128, \"intermediate_size\": 2688, \"vocab_size\": 131072,"
        " \"max_position_embeddings\": 8192, \"hybrid_override_pattern\": \"ME*E\", \"mamba_num_heads\": 128,"
        " \"mamba_head_dim\": 64, \"ssm_state_size\": 128, \"n_groups\": 8, \"n_routed_experts\": 512,"
        " \"num_experts_per_tok\": 22, \"moe_intermediate_size\": 2688, \"moe_shared_expert_intermediate_size\": 5376,"
        " \"moe_latent_size\": 1024}";
    CHECK_INT(cost_hf_config_parse(HF_SUPER, strlen(HF_SUPER), "super.json", &m, &e), 0);
    CHECK_INT(m.shape.hyb_moe, 2);
    CHECK_INT(m.shape.moe_latent, 1024);
    CHECK_INT(m.shape.moe_shared_ffn, 5376);
    CHECK_INT(m.shape.moe_topk, 22);
    /* the list spelling of the blocks is refused, not read as a transformer */
    static const char HF_LIST[] =
        "{\"model_type\": \"nemotron_h\", \"hidden_size\": 4096, \"num_hidden_layers\": 2, \"num_attention_heads\": 32,"
        " \"vocab_size\": 131072, \"max_position_embeddings\": 8192, \"layers_block_type\": [\"mamba\", \"attention\"]}";
    CHECK_INT(cost_hf_config_parse(HF_LIST, strlen(HF_LIST), "list.json", &m, &e), -1);
    CHECK_STR(e.key, "layers_block_type");
    /* a boolean written as text is refused at its key, not taken as the type's default */
    static const char HF_TIE[] =
        "{\"model_type\": \"llama\", \"hidden_size\": 4096, \"num_hidden_layers\": 2, \"num_attention_heads\": 32,"
        " \"vocab_size\": 32000, \"intermediate_size\": 11008, \"max_position_embeddings\": 4096, \"tie_word_embeddings\": \"yes\"}";
    CHECK_INT(cost_hf_config_parse(HF_TIE, strlen(HF_TIE), "tie.json", &m, &e), -1);
    CHECK_STR(e.key, "tie_word_embeddings");
    CHECK_INT(cost_hf_config_parse(HF_NH, strlen(HF_NH), "nh.json", &m, &e), 0);
    cost_request rq;
    cost_request_init(&rq, &m);
    CHECK_INT(cost_pool_parse("h100", 8, NULL, &rq.pools[0], &e), 0);
    rq.n_pools = 1;
    cost_result res;
    CHECK_INT(cost_search(&rq, &res, &e), -1);
    CHECK_CONTAINS(e.msg, "hybrid Mamba-Transformer");
    CHECK_STR(e.key, "hybrid_override_pattern");
}

static void test_hf_config(void)
{
    cost_model m;
    ac_err e;
    CHECK_INT(cost_hf_config_parse(HF_MIXTRAL, strlen(HF_MIXTRAL), "mixtral.json", &m, &e), 0);
    CHECK_INT(m.shape.num_experts, 8);
    CHECK_INT(m.shape.moe_topk, 2);
    CHECK_INT(m.shape.moe_ffn_hidden, 14336);
    CHECK_INT(m.shape.query_groups, 8);
    CHECK_INT(m.max_context, 32768);
    CHECK(m.shape.gated_mlp && m.shape.untied_embeddings);
    /* its parameter count is Mixtral's 46.7B */
    est_input in;
    est_input_init(&in, &m.shape, gpu("h100"));
    est_result r;
    in.shape.seq_length = 4096;
    in.num_gpus = 1;
    if (est_evaluate(&in, &r)) printf("  %s\n", r.why);
    CHECK_NEAR(r.params_b, 46.7, 0.01);
    /* GPT-2 spellings, tied embeddings and learned positions by model_type */
    const char *g2 = "{\"model_type\":\"gpt2\",\"n_embd\":768,\"n_layer\":12,\"n_head\":12,\"vocab_size\":50257,\"n_positions\":1024}";
    CHECK_INT(cost_hf_config_parse(g2, strlen(g2), NULL, &m, &e), 0);
    CHECK(!m.shape.untied_embeddings && m.shape.learned_pos_emb && !m.shape.gated_mlp);
    CHECK_INT(m.shape.ffn_hidden, 4 * 768);
    /* a missing key names the key and the file */
    const char *miss = "{\"hidden_size\": 4096, \"num_hidden_layers\": 32, \"vocab_size\": 32000, \"max_position_embeddings\": 4096}";
    CHECK_INT(cost_hf_config_parse(miss, strlen(miss), "cfg.json", &m, &e), -1);
    CHECK_STR(e.key, "num_attention_heads");
    CHECK_STR(e.file, "cfg.json");
    CHECK_CONTAINS(e.msg, "missing");
    const char *neg = "{\"hidden_size\": -1, \"num_hidden_layers\": 32, \"num_attention_heads\": 32, \"vocab_size\": 1, \"max_position_embeddings\": 1}";
    CHECK_INT(cost_hf_config_parse(neg, strlen(neg), NULL, &m, &e), -1);
    CHECK_STR(e.key, "hidden_size");
    const char *kv = "{\"hidden_size\": 4096, \"num_hidden_layers\": 2, \"num_attention_heads\": 32, \"num_key_value_heads\": 5,"
                     " \"vocab_size\": 10, \"max_position_embeddings\": 10}";
    CHECK_INT(cost_hf_config_parse(kv, strlen(kv), NULL, &m, &e), -1);
    CHECK_CONTAINS(e.msg, "does not divide");
    CHECK_INT(cost_hf_config_parse("[1,2]", 5, NULL, &m, &e), -1);
    CHECK_INT(cost_hf_config_parse("{\"a\":", 5, NULL, &m, &e), -1);
    CHECK_CONTAINS(e.msg, "not valid JSON");
    /* DeepSeek-V3's keys: multi-head latent attention, shared experts, leading dense layers;
     * the model is the paper's 671B (its MTP module is not loaded for fine-tuning) */
    const char *ds = "{\"model_type\":\"deepseek_v3\",\"hidden_size\":7168,\"num_hidden_layers\":61,"
                     "\"num_attention_heads\":128,\"num_key_value_heads\":128,\"intermediate_size\":18432,"
                     "\"moe_intermediate_size\":2048,\"n_routed_experts\":256,\"n_shared_experts\":1,"
                     "\"num_experts_per_tok\":8,\"first_k_dense_replace\":3,\"q_lora_rank\":1536,\"kv_lora_rank\":512,"
                     "\"qk_nope_head_dim\":128,\"qk_rope_head_dim\":64,\"v_head_dim\":128,\"vocab_size\":129280,"
                     "\"max_position_embeddings\":163840,\"num_nextn_predict_layers\":1,\"tie_word_embeddings\":false,"
                     "\"n_group\":8,\"topk_group\":4}";
    CHECK_INT(cost_hf_config_parse(ds, strlen(ds), "ds.json", &m, &e), 0);
    CHECK_INT(m.shape.moe_router_groups, 8); /* group-limited routing: a token's experts in 4 of 8 groups */
    CHECK_INT(m.shape.moe_group_topk, 4);
    CHECK_INT(m.shape.kv_lora_rank, 512);
    CHECK_INT(m.shape.q_lora_rank, 1536);
    CHECK_INT(m.shape.kv_channels, 128);
    CHECK_INT(m.shape.qk_rope_dim, 64);
    CHECK_INT(m.shape.moe_shared_ffn, 2048);
    CHECK_INT(m.shape.moe_dense_layers, 3);
    CHECK_INT(m.shape.mtp_layers, 0);
    est_input_init(&in, &m.shape, gpu("h100"));
    in.shape.seq_length = 4096;
    in.num_gpus = 1;
    CHECK_INT(est_evaluate(&in, &r), 0);
    CHECK(fabs(r.params_b / 671.0 - 1.0) < 0.01);
    /* MLA without its head sizes is refused with the key to add */
    const char *mla = "{\"hidden_size\":1024,\"num_hidden_layers\":2,\"num_attention_heads\":8,\"kv_lora_rank\":64,"
                      "\"qk_nope_head_dim\":64,\"vocab_size\":10,\"max_position_embeddings\":10}";
    CHECK_INT(cost_hf_config_parse(mla, strlen(mla), "mla.json", &m, &e), -1);
    CHECK_STR(e.key, "v_head_dim");
    const char *dense = "{\"hidden_size\":1024,\"num_hidden_layers\":2,\"num_attention_heads\":8,\"n_routed_experts\":4,"
                        "\"first_k_dense_replace\":2,\"vocab_size\":10,\"max_position_embeddings\":10}";
    CHECK_INT(cost_hf_config_parse(dense, strlen(dense), NULL, &m, &e), -1);
    CHECK_STR(e.key, "first_k_dense_replace");
    /* expert groups must split the experts, and a token cannot use more groups than exist */
    const char *groups = "{\"hidden_size\":1024,\"num_hidden_layers\":2,\"num_attention_heads\":8,\"n_routed_experts\":6,"
                         "\"n_group\":4,\"vocab_size\":10,\"max_position_embeddings\":10}";
    CHECK_INT(cost_hf_config_parse(groups, strlen(groups), NULL, &m, &e), -1);
    CHECK_STR(e.key, "n_group");
    CHECK_CONTAINS(e.msg, "4 groups do not divide the 6 experts");
    const char *reach = "{\"hidden_size\":1024,\"num_hidden_layers\":2,\"num_attention_heads\":8,\"n_routed_experts\":8,"
                        "\"n_group\":4,\"topk_group\":5,\"vocab_size\":10,\"max_position_embeddings\":10}";
    CHECK_INT(cost_hf_config_parse(reach, strlen(reach), NULL, &m, &e), -1);
    CHECK_STR(e.key, "topk_group");
    /* shared experts multiply the expert width: a product past any real FFN is refused, not wrapped */
    const char *wide = "{\"hidden_size\":1024,\"num_hidden_layers\":2,\"num_attention_heads\":8,\"n_routed_experts\":4,"
                       "\"n_shared_experts\":65536,\"moe_intermediate_size\":4194304,\"vocab_size\":10,"
                       "\"max_position_embeddings\":10}";
    CHECK_INT(cost_hf_config_parse(wide, strlen(wide), NULL, &m, &e), -1);
    CHECK_STR(e.key, "n_shared_experts");
    /* GPT-OSS: 64-wide heads, a 128-key window on every other layer, clamped gated
     * activation and biased experts; openai/gpt-oss-120b's model card gives 116.8B params */
    const char *oss = "{\"model_type\":\"gpt_oss\",\"hidden_size\":2880,\"num_hidden_layers\":4,"
                      "\"num_attention_heads\":64,\"num_key_value_heads\":8,\"head_dim\":64,\"intermediate_size\":2880,"
                      "\"num_local_experts\":128,\"num_experts_per_tok\":4,\"vocab_size\":201088,"
                      "\"max_position_embeddings\":131072,\"sliding_window\":128,\"swiglu_limit\":7.0,"
                      "\"layer_types\":[\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"full_attention\"],"
                      "\"tie_word_embeddings\":false}";
    CHECK_INT(cost_hf_config_parse(oss, strlen(oss), "oss.json", &m, &e), 0);
    CHECK_INT(m.shape.kv_channels, 64);
    CHECK_INT(m.shape.swa_window, 128);
    CHECK(fabs(m.shape.swa_share - 0.5) < 1e-12);
    CHECK(m.shape.moe_glu_clamp && m.shape.moe_expert_bias && m.shape.gated_mlp && m.shape.untied_embeddings);
    m.shape.num_layers = 36;
    est_input_init(&in, &m.shape, gpu("h100"));
    in.shape.seq_length = 4096;
    in.num_gpus = 1;
    CHECK_INT(est_evaluate(&in, &r), 0);
    CHECK(fabs(r.params_b / 116.8 - 1.0) < 0.01);
    /* Qwen2 ships a window it does not use */
    const char *qw = "{\"model_type\":\"qwen2\",\"hidden_size\":1024,\"num_hidden_layers\":2,\"num_attention_heads\":8,"
                     "\"vocab_size\":10,\"max_position_embeddings\":32768,\"sliding_window\":4096,"
                     "\"use_sliding_window\":false}";
    CHECK_INT(cost_hf_config_parse(qw, strlen(qw), NULL, &m, &e), 0);
    CHECK_INT(m.shape.swa_window, 0);
    CHECK(!m.shape.moe_glu_clamp && !m.shape.moe_expert_bias);
}


static void test_instance_catalog(void)
{
    ac_err e;
    CHECK_INT(cost_instance_catalog_load(&e), 0);
    CHECK(cost_instance_count() >= 30);
    /* every row names a catalog GPU, carries a source and a positive price */
    for (size_t i = 0; i < cost_instance_count(); i++) {
        const cost_instance *in = cost_instance_at(i);
        CHECK(gpu_find(in->gpu_name) != NULL);
        CHECK(in->source[0] != '\0');
        CHECK(in->price_per_hour > 0 && in->host_ram_gib > 0 && in->gpus >= 1);
        CHECK_INT(in->node.gpus_per_node, in->gpus);
    }
    const cost_instance *p4de = cost_instance_find("P4DE.24xlarge");
    CHECK(p4de && p4de->gpus == 8 && p4de->host_ram_gib == 1152 && !strcmp(p4de->node.name, "a100_80gb"));
    const cost_instance *g5 = cost_instance_find("g5.12xlarge");
    CHECK(g5 && g5->gpus == 4 && g5->host_ram_gib == 192);
    CHECK(cost_instance_find("p5.48xlarge") && cost_instance_find("p5e.48xlarge") && cost_instance_find("g6e.48xlarge"));
    /* on-premise nodes: null price = the GPU catalog's price x GPUs, and says so */
    const cost_instance *dgx = cost_instance_find("dgx_h100");
    CHECK(dgx && dgx->price_from_catalog);
    CHECK_NEAR(dgx->price_per_hour, 8 * gpu("h100_sxm")->price_per_hour, 1e-12);
    /* close names for a typo */
    char close[256];
    cost_instance_close("g5.96xlarge", close, sizeof close);
    CHECK_CONTAINS(close, "g5.48xlarge");
    CHECK(!strstr(close, "p5.48xlarge"));
}

static void test_instance_rows_rejected(void)
{
    static const char *const BAD[][2] = {
        {"name,gpu,gpus,host_ram_gib,price_usd_per_hour,network_gbps,interconnect,source\nx1,a100_80gbx,8,1024,10,100,nv,doc\n",
         "unknown GPU 'a100_80gbx'"},
        {"name,gpu,gpus,host_ram_gib,price_usd_per_hour,network_gbps,interconnect,source\nx1,a10g,1,16,0,10,pcie,doc\n", "below"},
        {"name,gpu,gpus,host_ram_gib,price_usd_per_hour,network_gbps,interconnect,source\nx1,a10g,0,16,1,10,pcie,doc\n", "below"},
        {"name,gpu,gpus,host_ram_gib,price_usd_per_hour,network_gbps,interconnect,source\nx1,a10g,1,lots,1,10,pcie,doc\n", "not a number"},
        {"name,gpu,gpus,host_ram_gib,price_usd_per_hour,network_gbps,interconnect,source\nx1,a10g,1,16,1,10,pcie,\n", "no source"},
        {"name,gpu,gpus,host_ram_gib,price_usd_per_hour,network_gbps,interconnect,source\nx1,a10g,1,16,1,10,pcie,doc\nX1,a10g,1,16,1,10,pcie,doc\n",
         "listed twice"},
        {"name,gpu,gpus,host_ram_gib,network_gbps,interconnect,source\nx1,a10g,1,16,10,pcie,doc\n", "column missing"},
    };
    cost_instance out[4];
    size_t n;
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
        ac_err e;
        CHECK_INT(cost_instances_parse(BAD[i][0], strlen(BAD[i][0]), "bad.csv", out, 4, &n, &e), -1);
        CHECK_INT(e.code, AC_E_INPUT);
        CHECK_STR(e.file, "bad.csv");
        CHECK(e.line >= 1);
        CHECK_CONTAINS(e.msg, BAD[i][1]);
    }
    /* the line is the bad row's */
    const char *two = "name,gpu,gpus,host_ram_gib,price_usd_per_hour,network_gbps,interconnect,source\n"
                      "ok,a10g,1,16,1,10,pcie,doc\nbad,a10g,1,16,-3,10,pcie,doc\n";
    ac_err e;
    CHECK_INT(cost_instances_parse(two, strlen(two), "bad.csv", out, 4, &n, &e), -1);
    CHECK_INT(e.line, 3);
    const char *ok = "name,gpu,gpus,host_ram_gib,price_usd_per_hour,network_gbps,interconnect,source\nn1,a100_80gb,8,2048,null,800,nv,doc\n";
    CHECK_INT(cost_instances_parse(ok, strlen(ok), "ok.csv", out, 4, &n, &e), 0);
    CHECK_INT((int)n, 1);
    CHECK(out[0].price_from_catalog);
    CHECK_NEAR(out[0].node.scaleout_gbps, 800.0 / 8 / 8, 1e-12);
}

static cost_request instance_request(const model_shape *s, cost_task task, const char *inst)
{
    cost_request rq = request(s, task);
    ac_err e;
    memset(rq.pools, 0, sizeof rq.pools);
    rq.n_pools = 0;
    if (!cost_pool_instance_parse(inst, 64, NULL, &rq.pools[0], &e)) rq.n_pools = 1;
    return rq;
}

static void test_host_ram_per_instance(void)
{
    /* Llama-2-70B full fine-tuning on one 8 x A100-80GB node: ZeRO-3 + offload of optimizer
     * and parameters needs ~1.3 TiB of host memory: it fits a 2 TB DGX A100 and not a
     * p4de.24xlarge (1152 GiB), whatever --cpu-memory-gb says for GPU types */
    model_shape s = llama70b();
    cost_knobs k = {0, 8, 1, 1, 8, 3, true, true, true};
    cost_request dgx = instance_request(&s, COST_FULL, "dgx_a100");
    cost_request p4de = instance_request(&s, COST_FULL, "p4de.24xlarge");
    CHECK_INT(dgx.n_pools, 1);
    CHECK_INT(p4de.n_pools, 1);
    dgx.cpu_mem_node_gb = p4de.cpu_mem_node_gb = 768;
    cost_option a = eval(&dgx, k), b = eval(&p4de, k);
    CHECK(a.feasible);
    CHECK_NEAR(a.cpu_limit_gib, 2048 * 0.9, 1e-9);
    CHECK(!b.feasible);
    CHECK_NEAR(b.cpu_limit_gib, 1152 * 0.9, 1e-9);
    CHECK_CONTAINS(b.why, "host memory");
    /* the search finds the 8-GPU setup on the DGX; on the p4de 8 GPUs do not fit, 16 do */
    cost_result r;
    ac_err e;
    dgx.pools[0].max_gpus = 8;
    CHECK_INT(cost_search(&dgx, &r, &e), 0);
    CHECK(r.best_cost >= 0 && r.opt[r.best_cost].k.num_gpus == 8);
    cost_result_free(&r);
    p4de.pools[0].max_gpus = 16;
    CHECK_INT(cost_search(&p4de, &r, &e), 0);
    CHECK(r.n == 2 && !r.opt[0].feasible && r.opt[1].feasible && r.opt[1].k.num_gpus == 16);
    CHECK_INT(r.opt[1].nodes, 2);
    cost_result_free(&r);
    /* whole instances: a 4-GPU instance searches 4, 8, 16 GPUs and prices GPU-hours at price / 4 */
    model_shape s7 = llama7b();
    cost_request g5 = instance_request(&s7, COST_LORA, "g5.12xlarge:6:4");
    CHECK_INT(g5.pools[0].max_gpus, 16);
    CHECK_NEAR(g5.pools[0].price, 1.5, 1e-12);
    CHECK_INT(cost_search(&g5, &r, &e), 0);
    for (size_t i = 0; i < r.n; i++) CHECK(r.opt[i].k.num_gpus % 4 == 0);
    cost_result_free(&r);
    /* bad input: unknown name lists the close ones; a price of 0 */
    cost_pool p;
    CHECK_INT(cost_pool_instance_parse("p4de.24xlarg", 8, "--instances", &p, &e), -1);
    CHECK_CONTAINS(e.msg, "p4de.24xlarge");
    CHECK_INT(cost_pool_instance_parse("g5.xlarge:0", 8, "--instances", &p, &e), -1);
    CHECK_CONTAINS(e.msg, "must be positive");
}

static void test_heterogeneous_rank0(void)
{
    /* 7B full fine-tuning on 1-GPU g5.xlarge nodes (16 GiB RAM): ZeRO-3 fits 8 A10Gs, and each
     * worker's host memory, but node 0 also gathers the 13 GiB bf16 checkpoint: it fits only
     * when rank 0 runs on a g5.2xlarge (32 GiB) */
    model_shape s = llama7b();
    cost_request rq = instance_request(&s, COST_FULL, "g5.xlarge:1.006:8");
    cost_knobs k = {0, 8, 1, 1, 1, 3, false, false, true};
    cost_option a = eval(&rq, k);
    CHECK(!a.feasible);
    CHECK_CONTAINS(a.why, "host memory");
    rq.rank0 = cost_instance_find("g5.2xlarge");
    cost_option b = eval(&rq, k);
    CHECK(b.feasible && b.rank0_makes_fit);
    CHECK(b.rank0_inst == rq.rank0);
    CHECK(b.cpu_mem_worker_gib > 0 && b.cpu_mem_worker_gib <= b.cpu_worker_limit_gib);
    CHECK_NEAR(b.price, (1.212 + 7 * 1.006) / 8, 1e-9);
    CHECK_CONTAINS(b.label, "rank 0 on g5.2xlarge");
    /* a setup that fits without it keeps the plain instances (no rank-0 premium) */
    cost_request lora = instance_request(&s, COST_LORA, "g5.xlarge:1.006:8");
    lora.rank0 = rq.rank0;
    cost_option c = eval(&lora, k);
    CHECK(c.feasible && !c.rank0_inst && !c.rank0_makes_fit);
}

static void test_ties_go_to_the_faster(void)
{
    ac_err e;
    cost_result r;
    /* Llama-2-7B LoRA on up to 8 A100s: 1 GPU and 8 GPUs cost the same per token within the
     * band; the 8-GPU setup finishes ~8x sooner and wins, and the chosen line says why */
    model_shape s = llama7b();
    cost_request rq = request(&s, COST_LORA);
    rq.tokens_b = 1.0;
    rq.n_pools = 1;
    rq.stack = est_stack_find("hf-deepspeed"); /* the stack the figures are about: no TP/PP */
    CHECK(rq.stack != NULL);
    CHECK_INT(cost_search(&rq, &r, &e), 0);
    long c = cost_chosen(&r, &rq);
    CHECK(c >= 0 && r.opt[c].k.num_gpus == 8);
    /* the tie band is the ranking band of the GPU and stack (data/bands.csv rank_band_rel) */
    char want[48];
    snprintf(want, sizeof want, "within %d %% (the ranking band", (int)lround(100.0 * est_rank_band_rel(&r.opt[c].est)));
    CHECK(est_rank_band_rel(&r.opt[c].est) > 0);
    CHECK_NEAR(cost_tie_band(&r.opt[c]), est_rank_band_rel(&r.opt[c].est), 1e-12);
    CHECK_CONTAINS(r.chosen_why, want);
    CHECK_CONTAINS(r.chosen_why, "1x a100_80gb");
    /* a deadline still rules, a budget too */
    cost_result_free(&r);
    rq.deadline_hours = 10.0;
    CHECK_INT(cost_search(&rq, &r, &e), 0);
    c = cost_chosen(&r, &rq);
    CHECK(c >= 0 && r.opt[c].hours <= 10.0);
    CHECK_CONTAINS(r.chosen_why, "deadline");
    cost_result_free(&r);
    rq.deadline_hours = 0;
    rq.budget_usd = 1e6;
    CHECK_INT(cost_search(&rq, &r, &e), 0);
    CHECK(cost_chosen(&r, &rq) == r.best_time);
    CHECK_CONTAINS(r.chosen_why, "budget");
    cost_result_free(&r);
    /* Llama-2-70B full with 2048 GB of host memory, offloaded: the host's CPU Adam, which one node's
     * ranks share, bounds every GPU count alike, so fewer GPUs cost less per token, and a single
     * rank has its board pair's PCIe uplink to itself (host_link_gpus): one GPU is the cheapest,
     * ahead of two by more than the tie band */
    model_shape b = llama70b();
    cost_request r70 = request(&b, COST_FULL);
    r70.tokens_b = 1.0;
    r70.n_pools = 1;
    r70.cpu_mem_node_gb = 2048;
    r70.stack = rq.stack;
    CHECK_INT(cost_search(&r70, &r, &e), 0);
    c = cost_chosen(&r, &r70);
    CHECK(c >= 0 && r.opt[c].k.num_gpus == 1 && c == r.best_cost);
    double two_gpu_usd = 0;
    for (size_t i = 0; i < r.n; i++)
        if (r.opt[i].feasible && r.opt[i].k.num_gpus == 2 && (two_gpu_usd == 0 || r.opt[i].usd_per_mtok < two_gpu_usd))
            two_gpu_usd = r.opt[i].usd_per_mtok;
    CHECK(two_gpu_usd > r.opt[c].usd_per_mtok * (1.0 + cost_tie_band(&r.opt[c])));
    cost_result_free(&r);
    /* within one GPU count, a setup priced the same that offloads less wins: single-GPU LoRA of
     * 7B no longer leans on ZeRO-3 parameter offload to fit micro batch 4 */
    cost_request one = request(&s, COST_LORA);
    one.n_pools = 1;
    one.pools[0].max_gpus = 1;
    one.stack = rq.stack;
    CHECK_INT(cost_search(&one, &r, &e), 0);
    CHECK(r.n == 1 && r.opt[0].feasible && !r.opt[0].k.offload_params);
    cost_result_free(&r);
    /* a miss on GPU memory also says what fitting the GPU would take on the host (issue 29:
     * "the nearest-miss line then blames GPU memory") */
    cost_request full70 = request(&b, COST_FULL);
    full70.n_pools = 1;
    CHECK_INT(cost_search(&full70, &r, &e), 0);
    bool named = false;
    for (size_t i = 0; i < r.n; i++)
        if (!r.opt[i].feasible && strstr(r.opt[i].why, "GPU memory") && strstr(r.opt[i].why, "fitting the GPU instead") &&
            strstr(r.opt[i].why, "per node"))
            named = true;
    CHECK(named);
    cost_result_free(&r);
    /* outside the band the cheaper still wins */
    CHECK(cost_same_price(1.00, 1.049, 0.05));
    CHECK(!cost_same_price(1.00, 1.06, 0.05));
    /* the one tie rule (search and --measure): by $/MT, a run priced alike within the larger
     * band of the two ordered by time; a wider band of one item widens its tie */
    cost_rank_item it[] = {{0, 1.00, 10.0, 0.02}, {1, 1.03, 5.0, 0.02}, {2, 1.03, 4.0, 0.05}, {3, 2.00, 1.0, 0.05}};
    cost_rank_by_price(it, 4);
    CHECK_INT((int)it[0].id, 2); /* 1.03 within its 5 % of 1.00: the faster first */
    CHECK_INT((int)it[1].id, 0);
    CHECK_INT((int)it[2].id, 1); /* 1.03 is not within 2 % of 1.00 */
    CHECK_INT((int)it[3].id, 3); /* outside every band: the cheaper still wins */
    cost_rank_item narrow[] = {{0, 1.00, 10.0, 0.02}, {1, 1.03, 5.0, 0.02}};
    cost_rank_by_price(narrow, 2);
    CHECK_INT((int)narrow[0].id, 0);
}

static void test_trainer_log(void)
{
    ac_err e;
    double s = 0;
    int n = 0;
    /* the Hugging Face Trainer's tqdm bar: the last rate counts (the first steps warm up) */
    const char *bar = "***** Running training *****\n  0%|          | 0/10 [00:00<?, ?it/s]\r 10%|#         | 1/10 [00:09<01:21,  "
                      "9.02s/it]\r 20%|##        | 2/10 [00:12<00:48,  3.51s/it]\r100%|##########| 10/10 [00:40<00:00,  3.02s/it]\n"
                      "{'train_runtime': 40.2, 'train_samples_per_second': 15.9, 'train_steps_per_second': 0.249, 'train_loss': 1.3}\n";
    CHECK_INT(cost_trainer_log_parse(bar, &s, &n, &e), 0);
    CHECK_NEAR(s, 3.02, 1e-12);
    CHECK_INT(n, 3);
    /* fast steps print it/s */
    CHECK_INT(cost_trainer_log_parse("100%|#| 50/50 [00:10<00:00,  4.80it/s]", &s, &n, &e), 0);
    CHECK_NEAR(s, 1.0 / 4.8, 1e-12);
    /* no bar (logging to a file): the final metrics */
    CHECK_INT(cost_trainer_log_parse("{'train_runtime': 40.2, 'train_steps_per_second': 0.25, 'epoch': 1.0}", &s, &n, &e), 0);
    CHECK_NEAR(s, 4.0, 1e-12);
    CHECK_INT(cost_trainer_log_parse("Traceback: CUDA out of memory", &s, &n, &e), -1);
    CHECK_INT(e.code, AC_E_EXEC);
}

static void test_pool_errors(void)
{
    cost_pool p;
    ac_err e;
    CHECK_INT(cost_pool_parse("a10g:0.9:16", 64, NULL, &p, &e), 0);
    CHECK_NEAR(p.price, 0.9, 1e-12);
    CHECK_INT(p.max_gpus, 16);
    CHECK_INT(cost_pool_parse("h100", 8, NULL, &p, &e), 0);
    CHECK_NEAR(p.price, gpu("h100_sxm")->price_per_hour, 1e-12);
    CHECK_INT(cost_pool_parse("a100_80gbb", 8, NULL, &p, &e), -1);
    CHECK_CONTAINS(e.msg, "did you mean 'a100_80gb'");
    CHECK_INT(cost_pool_parse("a10g:0", 8, NULL, &p, &e), -1);
    CHECK_CONTAINS(e.msg, "must be positive");
    CHECK_INT(cost_pool_parse("a10g:-2", 8, NULL, &p, &e), -1);
    CHECK_INT(cost_pool_parse("a10g:abc", 8, NULL, &p, &e), -1);
    CHECK_CONTAINS(e.msg, "not a number");
    CHECK_INT(cost_pool_parse("a10g:1:0", 8, NULL, &p, &e), -1);
}

/* the stack the files configure: Hugging Face + DeepSpeed by default with no TP/PP setup (its
 * trainer cannot run them); TP/PP only on a named Megatron stack; FSDP only with the sharding
 * strategies and the CPU offload PyTorch FSDP has */
static void test_stack_it_configures(void)
{
    model_shape s = llama7b();
    cost_request rq = request(&s, COST_FULL);
    cost_result r;
    ac_err e;
    CHECK_INT(cost_search(&rq, &r, &e), 0);
    for (size_t i = 0; i < r.n; i++) {
        CHECK(r.opt[i].k.tp == 1 && r.opt[i].k.pp == 1);
        CHECK_STR(cost_stack_of(&rq)->name, "hf-deepspeed");
    }
    char band[160];
    long c = cost_chosen(&r, &rq);
    CHECK(c >= 0);
    cost_band_text(&rq, &r.opt[c], band, sizeof band);
    /* no pre-training rows of the stack: the band of its published fine-tuning runs */
    CHECK_CONTAINS(band, "published fine-tuning runs of hf-deepspeed");
    double rel;
    CHECK_STR(cost_band_of(&rq, &r.opt[c], &rel, band, sizeof band), "published");
    CHECK(rel > 0.0 && rel < 1.0); /* the 80th percentile of those runs' |error| */
    cost_result_free(&r);
    rq.stack = est_stack_find("megatron-core");
    CHECK_INT(cost_search(&rq, &r, &e), 0);
    bool tp = false;
    for (size_t i = 0; i < r.n; i++) tp |= r.opt[i].k.tp > 1 || r.opt[i].k.pp > 1;
    CHECK(tp); /* the Megatron stack's layouts are searched when it is named */
    cost_result_free(&r);
    rq.stack = est_stack_find("pytorch-fsdp");
    CHECK_INT(cost_search(&rq, &r, &e), 0);
    for (size_t i = 0; i < r.n; i++) {
        const cost_knobs *k = &r.opt[i].k;
        CHECK(k->zero != 1 && k->offload_optimizer == k->offload_params && k->tp == 1 && k->pp == 1);
    }
    cost_result_free(&r);
    /* ds_config.json's overlap_comm: true is what the prediction assumes (est_input.dp_overlap_on) */
    rq.stack = NULL;
    cost_knobs k2 = {0, 8, 1, 1, 1, 2, false, false, true};
    cost_option o;
    CHECK_INT(cost_evaluate(&rq, &k2, &o, &e), 0);
    char *ds = NULL;
    CHECK_INT(cost_deepspeed_json(&rq, &o, &ds, &e), 0);
    CHECK_CONTAINS(ds, "\"overlap_comm\":\ttrue");
    free(ds);
    /* with overlap the exposed reduction is at most the unhidden one */
    est_input in;
    model_shape s4 = s;
    s4.seq_length = rq.context;
    est_input_init(&in, &s4, rq.pools[0].gpu);
    in.num_gpus = 8; in.gpus_per_node = 8; in.mbs = 1; in.gbs = 64; in.zero_stage = 2;
    est_stack_apply(&in, est_stack_find("hf-deepspeed"));
    in.zero_stage = 2;
    est_result off, on;
    CHECK_INT(est_evaluate(&in, &off), 0);
    in.dp_overlap_on = true;
    CHECK_INT(est_evaluate(&in, &on), 0);
    CHECK(on.t_dp_exposed < off.t_dp_exposed);
    CHECK_NEAR(off.t_dp_exposed, off.t_dp_comm, 1e-9); /* DeepSpeed's ZeRO-2 default: after the backward */
    /* the written offload pins its host buffers, as the prediction assumes; a request for DeepSpeed's
     * own default (a published run that does not state it) leaves pin_memory out and is slower by
     * its pageable gradient copies (est_input.offload_pageable) */
    cost_knobs k3 = {0, 8, 1, 1, 1, 2, true, false, true};
    CHECK_INT(cost_evaluate(&rq, &k3, &o, &e), 0);
    CHECK_INT(cost_deepspeed_json(&rq, &o, &ds, &e), 0);
    CHECK_CONTAINS(ds, "\"pin_memory\":\ttrue");
    free(ds);
    cost_option paged;
    rq.pin_memory = false;
    CHECK_INT(cost_evaluate(&rq, &k3, &paged, &e), 0);
    CHECK(paged.est.t_optimizer > o.est.t_optimizer && paged.est.step_time > o.est.step_time);
    CHECK_INT(cost_deepspeed_json(&rq, &paged, &ds, &e), 0);
    CHECK(strstr(ds, "pin_memory") == NULL);
    free(ds);
    rq.pin_memory = true;
}

/* data/finetune_published.csv is compiled in and read lazily by the band: every row must load and
 * be predicted (a malformed row would otherwise only narrow the band it feeds) */
static void test_published_rows_all_read(void)
{
    cost_published_row *rows = NULL;
    size_t n = 0;
    ac_err e;
    CHECK_INT(cost_published_eval(&rows, &n, &e), 0);
    CHECK(n >= 10);
    for (size_t i = 0; i < n; i++) {
        if (!rows[i].ok) fprintf(stderr, "  row %zu (%s): %s\n", i, rows[i].what, rows[i].why);
        CHECK(rows[i].ok && rows[i].published_tok_s_gpu > 0 && isfinite(rows[i].err));
    }
    free(rows);
}

/* A source that times only the forward and backward passes (timing fwd_bwd) leaves the optimizer
 * step out: a 10 s step with 2 s of it in the optimizer reads 10 / 8 = 1.25x as fast; the whole
 * step, or a malformed split, as it is */
static void test_published_timing(void)
{
    CHECK_NEAR(cost_published_time_scale(10.0, 2.0, true), 1.25, 1e-12);
    CHECK_NEAR(cost_published_time_scale(10.0, 2.0, false), 1.0, 1e-12);
    CHECK_NEAR(cost_published_time_scale(10.0, 0.0, true), 1.0, 1e-12);
    CHECK_NEAR(cost_published_time_scale(2.0, 2.0, true), 1.0, 1e-12);
    /* 64 sequences of 4096 tokens in a 10 s step (2 s optimizer) on 8 GPUs: 3276.8 tokens/s/GPU for
     * the step, 4096 for its forward and backward */
    CHECK_NEAR(64.0 * 4096 / 10.0 / 8 * cost_published_time_scale(10.0, 2.0, true), 4096.0, 1e-9);
    /* the Anyscale rows (fwd_bwd) are predicted faster than their whole step, by their optimizer part */
    cost_published_row *rows = NULL;
    size_t n = 0;
    ac_err e;
    CHECK_INT(cost_published_eval(&rows, &n, &e), 0);
    int anyscale = 0;
    for (size_t i = 0; i < n; i++)
        if (strstr(rows[i].source, "LLMForge")) {
            anyscale++;
            CHECK(rows[i].ok && rows[i].offload && rows[i].gpus == 8);
            /* named by their instance (p4de.24xlarge), read as its GPU with its 1152 GiB of host RAM:
             * Mixtral's offloaded states fit it, Llama-2-70B's (18 B per parameter) do not */
            CHECK(!strcmp(rows[i].gpu, "a100_80gb"));
            if (strstr(rows[i].what, "Mixtral")) CHECK(rows[i].feasible);
            if (strstr(rows[i].what, "70B")) CHECK(!rows[i].feasible);
        }
    CHECK_INT(anyscale, 12);
    free(rows);
    /* they do not make the offload band: the A100-80GB band of offloaded hf-deepspeed setups still
     * comes from the whole-step runs on other GPUs (the gist's three on A800, the DeepSpeed blog's
     * three on A100-40GB) */
    double band = 0, med = 0;
    int nb = 0;
    bool on_gpu = true;
    CHECK(cost_published_band(est_stack_find("hf-deepspeed"), gpu_find("a100_80gb"), true, &band, &nb, &on_gpu, &med));
    CHECK_INT(nb, 6);
    CHECK(!on_gpu);
}

int main(void)
{
    RUN(test_published_rows_all_read);
    RUN(test_published_timing);
    RUN(test_zero_stages_as_the_paper);
    RUN(test_offload_moves_states_to_the_host);
    RUN(test_lora_against_full);
    RUN(test_knob_directions);
    RUN(test_mfu_convention);
    RUN(test_a10g_full_finetune_needs_offload);
    RUN(test_search_answers);
    RUN(test_files);
    RUN(test_files_fsdp2);
    RUN(test_lora_targets);
    RUN(test_lora_token_targets_moe);
    RUN(test_window_mask);
    RUN(test_hf_config);
    RUN(test_pool_errors);
    RUN(test_instance_catalog);
    RUN(test_instance_rows_rejected);
    RUN(test_host_ram_per_instance);
    RUN(test_heterogeneous_rank0);
    RUN(test_ties_go_to_the_faster);
    RUN(test_stack_it_configures);
    RUN(test_trainer_log);
    RUN(test_hf_config_hybrid);
    CHECK_DONE();
}
