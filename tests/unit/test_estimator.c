/* test_estimator.c — the analytical estimator: the original's FLOP formulas
 * against its worked values (reference §6), Korthikanti et al. 2022 activation
 * memory and its published reductions, Megatron's bytes per parameter, the
 * direction of every knob, the validity rules and the GPU catalog. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "estimator/collective.h"
#include "estimator/est.h"
#include "estimator/gpu.h"
#include "estimator/layer_cost.h"
#include "estimator/stack.h"
#include "validate/recipe.h"
#include "util/csv.h"
#include "validate/footnote.h"
#include "validate/tally.h"
#include "validate/validate.h"
#include "model/layer.h"
#include "model/named.h"
#include "util/stats.h"

static model_shape gpt(int L, int h, int a, int seq, int V)
{
    model_shape s = {0};
    s.arch = ARCH_DECODER;
    s.num_layers = L;
    s.hidden = h;
    s.ffn_hidden = 4 * h;
    s.heads = a;
    s.query_groups = a;
    s.kv_channels = h / a;
    s.vocab = V;
    s.seq_length = seq;
    s.learned_pos_emb = true;
    return s;
}

static model_shape llama70b(void)
{
    model_shape s = gpt(80, 8192, 64, 8192, 128256);
    s.ffn_hidden = 28672;
    s.query_groups = 8;
    s.gated_mlp = true;
    s.untied_embeddings = true;
    s.learned_pos_emb = false;
    return s;
}

/* reference §6 worked values: TFLOPS aggregate and per GPU from F / time */
static void test_flops_worked_values(void)
{
    model_shape g5 = gpt(24, 4096, 32, 2048, 51200);
    double F = est_model_flops(&g5, 2048);
    CHECK_NEAR(round(F / 10.0 / 1e12 * 100) / 100, 13700.79, 1e-6);
    CHECK_NEAR(round(F / 10.0 / 128 / 1e12 * 100) / 100, 107.04, 1e-6);
    model_shape g175 = gpt(96, 12288, 96, 2048, 51200);
    F = est_model_flops(&g175, 2048);
    CHECK_NEAR(round(F / 20.0 / 1e12 * 100) / 100, 225746.45, 1e-6);
    CHECK_NEAR(round(F / 20.0 / 1024 / 1e12 * 100) / 100, 220.46, 1e-6);
    model_shape bert = gpt(48, 2560, 40, 512, 30522);
    bert.arch = ARCH_ENCODER;
    F = est_model_flops(&bert, 2048);
    CHECK_NEAR(round(F / 2.0 / 1e12 * 100) / 100, 12516.35, 1e-6);
    CHECK_NEAR(round(F / 2.0 / 128 / 1e12 * 100) / 100, 97.78, 1e-6);
    model_shape t5 = gpt(12, 768, 12, 512, 29000);
    t5.arch = ARCH_ENCODER_DECODER;
    t5.ffn_hidden = 2048;
    t5.dec_seq_length = 128;
    F = est_model_flops(&t5, 2048);
    CHECK_NEAR(round(F / 1.0 / 1e12 * 100) / 100, 892.24, 1e-6);
    CHECK_NEAR(round(F / 1.0 / 32 / 1e12 * 100) / 100, 27.88, 1e-6);
    /* Llama: NeMo's formula s·L·h²(12 + 12g/a + 18f/h + 12s/h + 6V/(Lh)) per sequence */
    model_shape l = llama70b();
    double h = l.hidden, s = l.seq_length, L = l.num_layers;
    double nemo = s * L * h * h * (12 + 12.0 * 8 / 64 + 18.0 * 28672 / h + 12 * s / h + 6.0 * l.vocab / (L * h));
    CHECK_NEAR(est_model_flops(&l, 1), nemo, 1e-9);
}

static est_input base_input(const model_shape *s, const char *gpu, int gpus)
{
    est_input in;
    CHECK(gpu_catalog_load(NULL) == 0);
    est_input_init(&in, s, gpu_find(gpu));
    in.num_gpus = gpus;
    in.gbs = gpus;
    return in;
}

/* Korthikanti et al. 2022 §4: per-layer activations s·b·h·(10 + 24/t + 5as/(ht)) with
 * TP only, 34/t + 5as/(ht) with SP, 10 + 24/t with selective recompute, 34/t with both;
 * GPT-3 175B, t = 8: 23, 14.25, 13, 4.25 units → SP + selective keep 18.5 % */
static double act_units(int tp, bool sp, est_recompute rc)
{
    model_shape s = gpt(96, 12288, 96, 2048, 51200);
    est_input in = base_input(&s, "a100_80gb", tp);
    in.tp = tp;
    in.gbs = 1;
    in.sequence_parallel = sp;
    in.recompute = rc;
    in.flash_attention = false;
    est_result r;
    CHECK(est_evaluate(&in, &r) == 0);
    /* remove the first stage's embedding output (3·s·b·h/t_sp) to keep only the layers */
    double spd = sp ? tp : 1;
    double emb = 3.0 * 2048 * 12288 / spd;
    return (r.mem_activations - emb) / (96.0 * 2048 * 12288);
}

static void test_korthikanti_activation_memory(void)
{
    double base = act_units(8, false, RECOMPUTE_NONE);
    double sp = act_units(8, true, RECOMPUTE_NONE);
    double sel = act_units(8, false, RECOMPUTE_SELECTIVE);
    double both = act_units(8, true, RECOMPUTE_SELECTIVE);
    CHECK_NEAR(base, 10 + 24.0 / 8 + 5.0 * 96 * 2048 / (12288 * 8), 1e-9);
    CHECK_NEAR(sp, 34.0 / 8 + 5.0 * 96 * 2048 / (12288 * 8), 1e-9);
    CHECK_NEAR(sel, 10 + 24.0 / 8, 1e-9);
    CHECK_NEAR(both, 34.0 / 8, 1e-9);
    /* the published reductions relative to TP-only, within 10 % */
    CHECK_NEAR(sp / base, 14.25 / 23.0, 0.10);
    CHECK_NEAR(sel / base, 13.0 / 23.0, 0.10);
    CHECK_NEAR(both / base, 4.25 / 23.0, 0.10);
    /* full recompute keeps 2·s·b·h per layer (the layer input) */
    double full = act_units(8, true, RECOMPUTE_FULL);
    CHECK(full < both);
}

/* Megatron-LM distributed optimizer table: bf16 params + fp32 grads: 18 B/param
 * without, 6 + 12/d with the distributed optimizer */
static void test_bytes_per_param(void)
{
    model_shape s = gpt(32, 4096, 32, 2048, 32000);
    s.learned_pos_emb = false;
    est_input in = base_input(&s, "h100", 8);
    est_result r;
    in.zero_stage = 0;
    CHECK(est_evaluate(&in, &r) == 0);
    double P = r.mem_weights / 2.0;
    CHECK_NEAR(r.mem_grads, 4.0 * P, 1e-9);
    CHECK_NEAR(r.mem_optimizer, 12.0 * P, 1e-9);
    in.zero_stage = 1;
    CHECK(est_evaluate(&in, &r) == 0);
    CHECK_NEAR(r.mem_optimizer, 12.0 * P / 8, 1e-9);
    CHECK_NEAR(r.mem_grads, 4.0 * P, 1e-9);
    in.zero_stage = 2;
    CHECK(est_evaluate(&in, &r) == 0);
    CHECK_NEAR(r.mem_grads, 4.0 * P / 8, 1e-9);
    /* parameters: 32 layers × 12h² (+ norms) + embedding */
    double expect = 32 * (12.0 * 4096 * 4096 + 2 * 4096) + 32000.0 * 4096;
    CHECK_NEAR(P, expect, 1e-9);
    CHECK_NEAR(r.params_b, expect / 1e9, 1e-9);
}

/* grad_reduce_in_fp32 off: 2-byte gradient buffers and reduce-scatters.  FP8 weights
 * (Transformer Engine): the bf16 weight plus cached FP8 copies, one on Blackwell, the
 * weight and its transpose on Hopper, row- and column-wise for MXFP8; with FP8 parameter
 * gather the copies are the weight and the gather moves 1 byte.  Embeddings stay bf16. */
static void test_gradient_and_weight_precision(void)
{
    model_shape s = gpt(32, 4096, 32, 2048, 32000);
    s.learned_pos_emb = false;
    double layers = 32 * (12.0 * 4096 * 4096 + 2 * 4096) / 8, embedding = 32000.0 * 4096 / 8;
    est_input in = base_input(&s, "h100", 64);
    in.gpus_per_node = 8;
    in.tp = 8;
    in.gbs = 64;
    in.zero_stage = 1; /* distributed optimizer: gradient reduce-scatter + parameter all-gather */
    est_result r4, r2, rg, rb;
    CHECK(est_evaluate(&in, &rb) == 0); /* bf16 */
    CHECK_NEAR(rb.mem_weights, 2.0 * (layers + embedding), 1e-6 * rb.mem_weights);
    in.precision = PREC_FP8;
    CHECK(est_evaluate(&in, &r4) == 0);
    CHECK_NEAR(r4.mem_weights, 4.0 * layers + 2.0 * embedding, 1e-6 * r4.mem_weights); /* H100: + FP8 weight and transpose */
    in.grad_bytes = 2.0;
    CHECK(est_evaluate(&in, &r2) == 0);
    CHECK_NEAR(r2.mem_grads, r4.mem_grads / 2.0, 1e-6 * r4.mem_grads);
    CHECK(r2.t_dp_comm < r4.t_dp_comm && r2.t_dp_comm > 0.5 * r4.t_dp_comm); /* the gather is unchanged */
    CHECK(r2.mem_weights == r4.mem_weights);
    in.fp8_param_gather = true;
    CHECK(est_evaluate(&in, &rg) == 0);
    CHECK_NEAR(rg.mem_weights, 2.0 * layers + 2.0 * embedding, 1e-6 * rg.mem_weights);
    CHECK(rg.t_dp_comm < r2.t_dp_comm);
    CHECK(rg.mem_grads == r2.mem_grads);
    /* Blackwell takes FP8 operands in any layout: one copy; MXFP8 needs both orientations */
    in.gpu = gpu_find("b200");
    CHECK(est_evaluate(&in, &rg) == 0);
    CHECK_NEAR(rg.mem_weights, 1.0 * layers + 2.0 * embedding, 1e-6 * rg.mem_weights);
    in.fp8_block_scaled = true;
    CHECK(est_evaluate(&in, &rg) == 0);
    CHECK_NEAR(rg.mem_weights, 2.0 * layers + 2.0 * embedding, 1e-6 * rg.mem_weights);
    in.fp8_param_gather = false;
    CHECK(est_evaluate(&in, &rg) == 0);
    CHECK_NEAR(rg.mem_weights, 4.0 * layers + 2.0 * embedding, 1e-6 * rg.mem_weights);
    /* FSDP: the shard holds 1-byte weights, and each micro-batch's gathers move 1 byte */
    in.fp8_block_scaled = false;
    in.tp = 1;
    in.zero_stage = 3;
    est_result f16, f8;
    CHECK(est_evaluate(&in, &f16) == 0);
    in.fp8_param_gather = true;
    CHECK(est_evaluate(&in, &f8) == 0);
    CHECK(f8.mem_weights < f16.mem_weights && f8.t_dp_exposed <= f16.t_dp_exposed && f8.t_dp_comm < f16.t_dp_comm);
}

/* data/recipes.csv: what published frameworks' recipes switch on */
static void test_recipes(void)
{
    CHECK(recipe_table_load(NULL) == 0);
    recipe_query q = {.framework = "Megatron-Bridge (Megatron-Core)", .model = "LLAMA3_70B", .gpu = "GB200 (NVL72)",
                      .precision = "FP8", .tp = 1, .pp = 1, .fsdp = true};
    recipe_switches s = recipe_lookup(&q);
    CHECK(s.grad_reduce_in_fp32 == 0 && s.fp8_param_gather == 1 && s.cpu_offloading_num_layers == 40);
    q.precision = "MXFP8"; /* another recipe: "FP8" names per-tensor scaling only */
    CHECK(recipe_lookup(&q).cpu_offloading_num_layers == -1);
    q.precision = "FP8";
    q.pp = 4; /* another layout ran another recipe: no offload, the framework-wide switches stay */
    s = recipe_lookup(&q);
    CHECK(s.grad_reduce_in_fp32 == 0 && s.cpu_offloading_num_layers == -1);
    q.framework = "NeMo 1.0 / Megatron-Core (NeMo 24.07)";
    CHECK(recipe_lookup(&q).grad_reduce_in_fp32 == 0);
    q.framework = "nemo 25.02.01"; /* case-insensitive */
    CHECK(recipe_lookup(&q).grad_reduce_in_fp32 == 0);
    q.framework = "Megatron-LM";
    s = recipe_lookup(&q);
    CHECK(s.grad_reduce_in_fp32 == -1 && s.fp8_param_gather == -1 && s.cpu_offloading_num_layers == -1);
    q.framework = NULL;
    CHECK(recipe_lookup(&q).grad_reduce_in_fp32 == -1);
    CHECK(recipe_lookup(NULL).fp8_param_gather == -1);
    /* pipeline layouts: DeepSeek-V3's remainder on the last chunk, the 405B and Qwen3-235B
     * recipes' embedding/loss accounting; other models split evenly */
    recipe_query d = {.framework = "Megatron-Bridge (Megatron-Core)", .model = "DeepSeekV3 (dropless)", .gpu = "B200 (DGX-B200)",
                      .precision = "FP8 (per-tensor current scaling)", .tp = 1, .pp = 16};
    CHECK(recipe_lookup(&d).pp_layout == EST_PP_REMAINDER_LAST);
    d.model = "Qwen3_235B_a22B";
    CHECK(recipe_lookup(&d).pp_layout == EST_PP_EMBEDDING_LOSS);
    d.model = "LLAMA3.1_405B";
    CHECK(recipe_lookup(&d).pp_layout == EST_PP_EMBEDDING_LOSS);
    d.framework = "NeMo 25.02.01";
    d.model = "Llama 3.1 405B";
    CHECK(recipe_lookup(&d).pp_layout == EST_PP_EMBEDDING_LOSS);
    d.model = "LLAMA3_70B";
    CHECK(recipe_lookup(&d).pp_layout == -1);
}

/* recipes that begin with a container release (data/recipes.csv `since`) */
static void test_recipe_releases(void)
{
    char r[16];
    CHECK(recipe_release_in_text("Megatron-Bridge performance summary (NeMo container 26.06.01)", r, sizeof r) &&
          !strcmp(r, "26.06.01"));
    CHECK(recipe_release_in_text("dgxc-benchmarking v24.11.1 README", r, sizeof r) && !strcmp(r, "24.11.1"));
    CHECK(recipe_release_in_text("NeMo 23.07/23.08 README", r, sizeof r) && !strcmp(r, "23.07"));
    CHECK(!recipe_release_in_text("NeMo 2.0, Llama3.1 405B", r, sizeof r) && !r[0]);
    CHECK(!recipe_release_in_text("year 2026.06", r, sizeof r));
    CHECK(!recipe_release_in_text("2026.06.01", r, sizeof r) && !recipe_release_in_text("v0.26.06", r, sizeof r));
    CHECK(recipe_release_in_text("PyTorch 2.6, NeMo 25.04.01", r, sizeof r) && !strcmp(r, "25.04.01"));
    CHECK(!recipe_release_in_text("26.061", r, sizeof r));
    CHECK(!recipe_release_in_text("26.06.0123456789", r, 8)); /* does not fit: no cut release */
    CHECK(!recipe_release_in_text(NULL, r, sizeof r));
    CHECK(recipe_release_at_least("26.06.01", "26.06") && recipe_release_at_least("26.06", "26.06"));
    CHECK(!recipe_release_at_least("26.06", "26.06.01") && !recipe_release_at_least("26.04.01", "26.06"));
    CHECK(recipe_release_at_least("26.10", "26.08.02") && !recipe_release_at_least("25.11", "26.02"));
    CHECK(!recipe_release_at_least("26.1234567890", "26.1234567891") && recipe_release_at_least("26.010", "26.10"));
    CHECK(recipe_release_at_least("26.06.00", "26.06") && recipe_release_at_least("26.06", "26.06.00"));

    /* Qwen3 MoE MXFP8 on GB200: full-iteration CUDA graphs and all-to-all overlap from 26.06 */
    recipe_query q = {.framework = "Megatron-Bridge (Megatron-Core)", .model = "Qwen3_30B_a3B", .gpu = "GB200 (NVL72)",
                      .precision = "MXFP8", .release = "26.06", .tp = 1, .pp = 1};
    recipe_switches s = recipe_lookup(&q);
    CHECK(s.cuda_graphs == 1 && s.moe_a2a_overlap == 1 && s.grad_reduce_in_fp32 == 0);
    CHECK(s.fused_expert_mlp == 1); /* the CuTeDSL fused grouped MLP came with them */
    q.release = "26.08";
    CHECK(recipe_lookup(&q).cuda_graphs == 1);
    q.release = "26.04.01"; /* before: eager launches, the framework-wide switches stay */
    s = recipe_lookup(&q);
    CHECK(s.cuda_graphs == -1 && s.moe_a2a_overlap == -1 && s.grad_reduce_in_fp32 == 0);
    CHECK(s.fused_expert_mlp == -1);
    q.release = ""; /* a row of unknown release gets no release-bound switch */
    CHECK(recipe_lookup(&q).cuda_graphs == -1);
    q.release = NULL;
    CHECK(recipe_lookup(&q).cuda_graphs == -1);
    /* B300 got the same recipe one release later (26.06.01) */
    q.gpu = "B300 (DGX-B300)";
    q.release = "26.06";
    CHECK(recipe_lookup(&q).cuda_graphs == -1);
    q.release = "26.06.01";
    CHECK(recipe_lookup(&q).cuda_graphs == 1);
    /* names match at a word start: the B300 row is not a GB300 row, FP8 is not MXFP8 */
    q.gpu = "GB300 (NVL72)";
    q.release = "26.06";
    CHECK(recipe_lookup(&q).cuda_graphs == 1); /* GB300's own row, from 26.06 */
    q.gpu = "XB300";
    q.release = "26.08";
    CHECK(recipe_lookup(&q).cuda_graphs == -1);
    q.gpu = "B300 (DGX-B300)";
    q.precision = "FP8 block-scaled";
    CHECK(recipe_lookup(&q).cuda_graphs == -1); /* the rows name MXFP8 */
    /* a dense model or BF16 run of the same release does not */
    q.gpu = "GB200 (NVL72)";
    q.precision = "BF16";
    CHECK(recipe_lookup(&q).cuda_graphs == -1);
    q.precision = "MXFP8";
    q.model = "Qwen3_8B";
    CHECK(recipe_lookup(&q).cuda_graphs == -1);
}

/* a benchmark row takes its framework's recipe unless it says otherwise */
static void test_validate_row_recipe(void)
{
    static const char CSV[] =
        "id,framework,model_family,num_layers,hidden_size,num_attention_heads,vocab_size,seq_length,gpu_type,"
        "num_gpus,tp,pp,mbs,gbs,precision,grad_reduce_in_fp32,fp8_param_gather,step_time_s\n"
        "a,Megatron-Bridge (Megatron-Core),GPT-3,24,2048,16,51200,2048,H100 SXM,8,1,1,1,8,FP8 (per-tensor current scaling),,,1\n"
        "b,Megatron-LM,GPT-3,24,2048,16,51200,2048,H100 SXM,8,1,1,1,8,FP8,,,1\n"
        "c,Megatron-Bridge (Megatron-Core),GPT-3,24,2048,16,51200,2048,H100 SXM,8,1,1,1,8,MXFP8,,,1\n"
        "d,Megatron-Bridge (Megatron-Core),GPT-3,24,2048,16,51200,2048,H100 SXM,8,1,1,1,8,FP8,true,false,1\n"
        "e,Megatron-Bridge (Megatron-Core),GPT-3,24,2048,16,51200,2048,H100 SXM,8,1,1,1,8,BF16,,,1\n";
    static const char LLAMA[] =
        "id,framework,model,model_family,num_layers,hidden_size,ffn_hidden_size,num_attention_heads,num_query_groups,"
        "vocab_size,seq_length,gpu_type,num_gpus,tp,pp,fsdp,mbs,gbs,precision,act_recompute,tokens_per_s_per_gpu\n"
        "a,Megatron-Bridge (Megatron-Core),LLAMA3_70B,Llama,80,8192,28672,64,8,128256,8192,GB200 (NVL72),64,1,1,64,2,256,FP8,,4000\n"
        "b,Megatron-Bridge (Megatron-Core),LLAMA3_70B,Llama,80,8192,28672,64,8,128256,8192,GB200 (NVL72),64,1,1,64,2,256,FP8,full,4000\n";
    csv_table t;
    ac_err e;
    CHECK(csv_parse(CSV, strlen(CSV), "rows.csv", &t, &e) == 0);
    est_input in;
    char why[256];
    CHECK(validate_row_input(&t, &t.rows[0], &in, why, sizeof why) == 0);
    CHECK(in.grad_bytes == 2.0 && in.fp8_param_gather);
    CHECK(validate_row_input(&t, &t.rows[1], &in, why, sizeof why) == 0);
    CHECK(in.grad_bytes == 4.0 && !in.fp8_param_gather);
    CHECK(validate_row_input(&t, &t.rows[2], &in, why, sizeof why) == 0);
    CHECK(in.grad_bytes == 2.0 && in.fp8_param_gather && in.fp8_block_scaled); /* MXFP8: row- and column-wise copies */
    CHECK(validate_row_input(&t, &t.rows[3], &in, why, sizeof why) == 0);
    CHECK(in.grad_bytes == 4.0 && !in.fp8_param_gather); /* the row's own columns win */
    CHECK(validate_row_input(&t, &t.rows[4], &in, why, sizeof why) == 0);
    CHECK(in.grad_bytes == 2.0 && !in.fp8_param_gather); /* no FP8 weights without FP8 */
    csv_free(&t);
    /* the Llama3-70B GB200 FSDP recipe offloads 40 layers' activations; not when the row recomputes */
    CHECK(csv_parse(LLAMA, strlen(LLAMA), "llama.csv", &t, &e) == 0);
    CHECK(validate_row_input(&t, &t.rows[0], &in, why, sizeof why) == 0);
    CHECK(in.offload_act_layers == 40 && in.zero_stage == 3);
    est_result r;
    CHECK(est_evaluate(&in, &r) == 0 && r.fits);
    CHECK(validate_row_input(&t, &t.rows[1], &in, why, sizeof why) == 0);
    CHECK(in.offload_act_layers == 0 && in.recompute == RECOMPUTE_FULL);
    csv_free(&t);
    /* the release comes from `release`, else from the source text; a row's own cells win */
    static const char QWEN[] =
        "id,source,framework,model,model_family,num_layers,hidden_size,ffn_hidden_size,num_attention_heads,"
        "num_query_groups,num_experts,moe_topk,moe_ffn_hidden_size,vocab_size,seq_length,gpu_type,num_gpus,tp,pp,ep,"
        "mbs,gbs,precision,release,cuda_graphs,moe_a2a_overlap,tokens_per_s_per_gpu\n"
        "a,NeMo container 26.06,Megatron-Bridge,Qwen3_30B_a3B,Qwen3 MoE,48,2048,6144,32,4,128,8,768,151936,4096,"
        "GB200 (NVL72),8,1,1,8,4,512,MXFP8,,,,40000\n"
        "b,NeMo container 26.04,Megatron-Bridge,Qwen3_30B_a3B,Qwen3 MoE,48,2048,6144,32,4,128,8,768,151936,4096,"
        "GB200 (NVL72),8,1,1,8,4,512,MXFP8,,,,26000\n"
        "c,NeMo container 26.04,Megatron-Bridge,Qwen3_30B_a3B,Qwen3 MoE,48,2048,6144,32,4,128,8,768,151936,4096,"
        "GB200 (NVL72),8,1,1,8,4,512,MXFP8,26.08,,,40000\n"
        "d,NeMo container 26.06,Megatron-Bridge,Qwen3_30B_a3B,Qwen3 MoE,48,2048,6144,32,4,128,8,768,151936,4096,"
        "GB200 (NVL72),8,1,1,8,4,512,MXFP8,,false,false,26000\n";
    CHECK(csv_parse(QWEN, strlen(QWEN), "qwen.csv", &t, &e) == 0);
    est_result graphed, eager;
    CHECK(validate_row_input(&t, &t.rows[0], &in, why, sizeof why) == 0);
    CHECK(in.cuda_graphs && in.moe_a2a_overlap);
    CHECK(est_evaluate(&in, &graphed) == 0 && graphed.t_moe_host == 0);
    CHECK(validate_row_input(&t, &t.rows[1], &in, why, sizeof why) == 0);
    CHECK(!in.cuda_graphs && !in.moe_a2a_overlap);
    CHECK(est_evaluate(&in, &eager) == 0 && eager.t_moe_host > 0);
    CHECK(graphed.tokens_per_s_per_gpu > eager.tokens_per_s_per_gpu);
    CHECK(validate_row_input(&t, &t.rows[2], &in, why, sizeof why) == 0);
    CHECK(in.cuda_graphs && in.moe_a2a_overlap); /* `release` 26.08 wins over the source's 26.04 */
    CHECK(validate_row_input(&t, &t.rows[3], &in, why, sizeof why) == 0);
    CHECK(!in.cuda_graphs && !in.moe_a2a_overlap);
    csv_free(&t);
}

/* a figure its publisher footnotes as a known software regression is skipped with that reason;
 * a caveat footnote or an unknown one keeps the row */
static void test_validate_footnotes(void)
{
    static const char CSV[] =
        "id,framework,model_family,num_layers,hidden_size,num_attention_heads,vocab_size,seq_length,gpu_type,"
        "num_gpus,tp,pp,mbs,gbs,precision,tflops_per_gpu,tokens_per_s_per_gpu\n"
        "a,Megatron-Bridge,GPT-3,24,2048,16,51200,2048,H100 SXM,8,1,1,1,8,BF16,661[^gpt-oss-note],20000\n"
        "b,Megatron-Bridge,GPT-3,24,2048,16,51200,2048,H100 SXM,8,1,1,1,8,BF16,475[^nemotron-3-super-b200-nvfp4-note],20000\n"
        "c,Megatron-Bridge,GPT-3,24,2048,16,51200,2048,H100 SXM,8,1,1,1,8,BF16,500[^no-such-note],20000\n"
        "d,Megatron-Bridge,GPT-3,24,2048,16,51200,2048,H100 SXM,8,1,1,1,8,BF16,[^gpt-oss-note,20000\n";
    csv_table t;
    ac_err e;
    CHECK(csv_parse(CSV, strlen(CSV), "notes.csv", &t, &e) == 0);
    est_input in;
    char why[256];
    CHECK(validate_row_input(&t, &t.rows[0], &in, why, sizeof why) == -1);
    CHECK(strstr(why, "known software regression") && strstr(why, "[^gpt-oss-note]"));
    const footnote *f = footnote_of_row(&t.rows[0]);
    CHECK(f && f->effect == FOOTNOTE_REGRESSION && strstr(f->source, "cudnn-frontend"));
    CHECK(validate_row_input(&t, &t.rows[1], &in, why, sizeof why) == 0);
    f = footnote_of_row(&t.rows[1]);
    CHECK(f && f->effect == FOOTNOTE_CAVEAT);
    CHECK(validate_row_input(&t, &t.rows[2], &in, why, sizeof why) == 0 && !footnote_of_row(&t.rows[2]));
    CHECK(validate_row_input(&t, &t.rows[3], &in, why, sizeof why) == 0 && !footnote_of_row(&t.rows[3])); /* unclosed marker */
    csv_free(&t);
}

static void test_directions(void)
{
    model_shape s = llama70b();
    est_input in = base_input(&s, "h100", 64);
    in.tp = 8;
    in.pp = 4;
    in.mbs = 1;
    in.gbs = 128;
    in.sequence_parallel = true;
    in.zero_stage = 1;
    est_result none, full, sel;
    CHECK(est_evaluate(&in, &none) == 0);
    in.recompute = RECOMPUTE_FULL;
    CHECK(est_evaluate(&in, &full) == 0);
    in.recompute = RECOMPUTE_SELECTIVE;
    in.flash_attention = false;
    CHECK(est_evaluate(&in, &sel) == 0);
    in.flash_attention = true;
    CHECK(full.mem_activations < none.mem_activations);
    CHECK(full.step_time > none.step_time);
    CHECK(full.t_recompute > 0 && none.t_recompute == 0);
    /* bigger TP: less weight memory per GPU */
    in.recompute = RECOMPUTE_NONE;
    est_result tp4, tp8;
    in.tp = 4;
    in.pp = 8;
    CHECK(est_evaluate(&in, &tp4) == 0);
    in.tp = 8;
    in.pp = 8;
    in.num_gpus = 128;
    in.gbs = 256;
    CHECK(est_evaluate(&in, &tp8) == 0);
    CHECK(tp8.mem_weights < tp4.mem_weights);
    /* bigger micro batch: more activation memory */
    est_result mb1, mb2;
    in.tp = 8; in.pp = 4; in.num_gpus = 64; in.gbs = 128;
    in.mbs = 1;
    CHECK(est_evaluate(&in, &mb1) == 0);
    in.mbs = 2;
    CHECK(est_evaluate(&in, &mb2) == 0);
    CHECK(mb2.mem_activations > mb1.mem_activations);
    /* interleaving shrinks the bubble */
    est_result v1, v5;
    in.mbs = 1;
    CHECK(est_evaluate(&in, &v1) == 0);
    in.vp = 5;
    CHECK(est_evaluate(&in, &v5) == 0);
    CHECK_NEAR(v5.t_pp_bubble * 5, v1.t_pp_bubble, 0.05);
    in.vp = 1;
    /* fp8 is faster than bf16 on an H100 */
    est_result b16, f8;
    CHECK(est_evaluate(&in, &b16) == 0);
    in.precision = PREC_FP8;
    CHECK(est_evaluate(&in, &f8) == 0);
    CHECK(f8.step_time < b16.step_time);
    in.precision = PREC_BF16;
    /* TP beyond one node: slower collectives over the network */
    est_result in_node, cross;
    in.tp = 8; in.pp = 8; in.num_gpus = 128; in.gbs = 128;
    CHECK(est_evaluate(&in, &in_node) == 0);
    in.tp = 16; in.pp = 4;
    s.heads = 64;
    CHECK(est_evaluate(&in, &cross) != 0); /* 8 query groups: TP 16 is invalid */
    CHECK_CONTAINS(cross.why, "TP 16 does not divide 8 query groups");
    /* more GPUs at the same global batch: shorter step */
    est_result g64, g128;
    in.tp = 8; in.pp = 4; in.num_gpus = 64; in.gbs = 256;
    CHECK(est_evaluate(&in, &g64) == 0);
    in.num_gpus = 128;
    CHECK(est_evaluate(&in, &g128) == 0);
    CHECK(g128.step_time < g64.step_time);
    CHECK(g128.tokens_per_s > g64.tokens_per_s);
}

/* sliding-window attention: query i of s sees min(i, W) keys, mean W − W(W−1)/(2s) */
static void test_attention_window(void)
{
    CHECK_NEAR(est_attn_keys(4096, true, 0), 2048.0, 1e-9);
    CHECK_NEAR(est_attn_keys(4096, false, 0), 4096.0, 1e-9);
    CHECK_NEAR(est_attn_keys(4096, true, 128), 128.0 - 128.0 * 127.0 / 8192.0, 1e-9); /* 126.015625 */
    CHECK_NEAR(est_attn_keys(4096, false, 128), 128.0, 1e-9);
    CHECK_NEAR(est_attn_keys(4096, true, 8192), 2048.0, 1e-9); /* a window longer than s is full attention */
    /* GPT-OSS-style alternation: half the layers windowed → attention time between none and full */
    model_shape s = llama70b();
    est_input in = base_input(&s, "h100", 8);
    in.tp = 8;
    in.sequence_parallel = true;
    est_result full, alt, all;
    CHECK(est_evaluate(&in, &full) == 0);
    in.shape.swa_window = 128;
    in.shape.swa_share = 0.5;
    CHECK(est_evaluate(&in, &alt) == 0);
    in.shape.swa_share = 1.0;
    CHECK(est_evaluate(&in, &all) == 0);
    CHECK(all.step_time < alt.step_time && alt.step_time < full.step_time);
    /* the saving is the attention core only: full − alt = alt − all (linear in the share) */
    CHECK_NEAR(full.t_compute_fwd - alt.t_compute_fwd, alt.t_compute_fwd - all.t_compute_fwd, 1e-9);
}

static model_shape qwen3_30b(void)
{
    model_shape s = gpt(48, 2048, 32, 4096, 151936);
    s.query_groups = 4;
    s.kv_channels = 128;
    s.gated_mlp = true;
    s.untied_embeddings = true;
    s.learned_pos_emb = false;
    s.num_experts = 128;
    s.moe_topk = 8;
    s.moe_ffn_hidden = 768;
    return s;
}

/* EP all-to-all: NVLink inside a node; across nodes each token crosses this GPU's NIC
 * once per remote node it needs (DeepEP-style dedup).  Dropless routing puts the
 * per-expert launches on the critical path. Hand-computed from the catalog and
 * calibration values. */
static void test_moe_dispatch_and_host(void)
{
    est_cal c;
    CHECK(est_cal_default(&c, NULL) == 0);
    model_shape s = qwen3_30b();
    est_input in = base_input(&s, "h100", 16);
    const gpu_spec *g = in.gpu;
    in.ep = 16;
    in.mbs = 1;
    in.gbs = 16; /* one micro-batch per step */
    in.precision = PREC_FP8;
    in.moe_force_balanced = true;
    est_result r;
    CHECK(est_evaluate(&in, &r) == 0);
    /* 2 nodes of 8: local copies 8·7/16 = 3.5 tokens over NVLink, remote 1 − (1/2)^8 per
     * token over the 50 GB/s NIC (the slower side), 4 passes (dispatch + combine, fwd + bwd) */
    double t_local = 4096.0 * 3.5 * 2 * 2048 / (g->nvlink_gbps * 1e9 * c.collective_eff);
    double t_remote = 4096.0 * (1.0 - pow(0.5, 8)) * 2 * 2048 / (g->scaleout_gbps * 1e9 * c.collective_eff);
    CHECK(t_remote > t_local);
    CHECK_NEAR(r.t_ep_comm, 48 * 4 * t_remote, 1e-9);
    /* 8 local experts × (6 GEMMs + 4 FP8 casts) launches per layer */
    CHECK_NEAR(r.t_moe_host, 48 * 8 * 10 * c.moe_launch_us * 1e-6, 1e-9);
    /* inside one node the all-to-all is NVLink-only and faster */
    est_result r8;
    in.num_gpus = 8;
    in.gbs = 8;
    in.ep = 8;
    CHECK(est_evaluate(&in, &r8) == 0);
    CHECK_NEAR(r8.t_ep_comm, 48 * 4 * 4096.0 * (8 * 7 / 8.0) * 2 * 2048 / (g->nvlink_gbps * 1e9 * c.collective_eff), 1e-9);
    CHECK(r8.t_ep_comm < r.t_ep_comm);
    /* token dropping (fixed capacity) needs no host sync: launches hide behind the GPU */
    est_result drop;
    in.moe_token_drop = true;
    CHECK(est_evaluate(&in, &drop) == 0);
    CHECK(drop.t_moe_host < r8.t_moe_host);
    CHECK(drop.step_time < r8.step_time);
}

/* NCCL's latency model (collective.c, NCCL 2.19 tuning.cc tables), hand-computed on DGX H100
 * (NVLink 450 GB/s and 50 GB/s of network per GPU, at collective_eff 0.8):
 * - a 64 KiB all-reduce over the 8 GPUs of a node runs LL: 6.6 + 14 x 0.6 = 15 us, and
 *   14/8 x 64 KiB at a quarter of the bus rate, capped at LL's 87.7 GB/s;
 * - 1 GiB runs Simple: 8.4 + 14 x 3.4 = 56 us plus 14/8 x 1 GiB at 360 GB/s;
 * - a 4 MiB all-gather over 64 nodes, one rank each, runs LL128: 14 + 63 x 4 = 266 us plus
 *   63/64 x 4 MiB at 0.7 of 40 GB/s: four times its bandwidth-only 103 us;
 * - a 256 MiB all-reduce over 16 nodes of 8 runs the tree's LL128: 14 + 2 x (7 x 1.25 + 4 x 8.5)
 *   = 99.5 us at half of 0.92 x 120/128 of 320 GB/s (NCCL's tree correction is 1.0 at that size),
 *   not Simple's tree (616 us) nor a ring (its Simple latency 1.4 x 1211 us) */
static void test_collective_latency(void)
{
    est_cal c;
    CHECK(est_cal_default(&c, NULL) == 0);
    CHECK_NEAR(c.collective_eff, 0.8, 1e-12);
    model_shape s = llama70b();
    est_input in = base_input(&s, "h100", 1024);
    coll_group node = coll_group_of(&in, 8, 1);
    CHECK(node.ranks == 8 && node.units == 1 && !node.pcie);
    CHECK_NEAR(coll_allreduce_s(65536.0, 1.0, &node, &c), 15.0e-6 + 1.75 * 65536.0 / 87.7e9, 1e-12);
    double gib = 1024.0 * 1024 * 1024;
    CHECK_NEAR(coll_allreduce_s(gib, 1.0, &node, &c), 56.0e-6 + 1.75 * gib / 360e9, 1e-12);
    /* the same gigabyte in 16 buckets pays the latency 16 times */
    CHECK_NEAR(coll_allreduce_s(gib, 16.0, &node, &c), 16 * 56.0e-6 + 1.75 * gib / 360e9, 1e-12);

    coll_group spread = coll_group_of(&in, 64, 8);
    CHECK(spread.units == 64);
    double mib4 = 4.0 * 1024 * 1024;
    double ag = coll_gather_s(mib4, 1.0, &spread, &c);
    CHECK_NEAR(ag, 266.0e-6 + 63.0 / 64 * mib4 / (0.7 * 40e9), 1e-12);
    CHECK(ag > 4.0 * 63.0 / 64 * mib4 / 40e9);

    coll_group nodes16 = coll_group_of(&in, 128, 1);
    CHECK(nodes16.units == 16);
    double mib256 = 256.0 * 1024 * 1024;
    double tree = 616.0e-6 + mib256 / (0.5 * 0.92 * 320e9);
    double ring = (8.4 + 222 * 3.4 + 32 * 14.0) * 1e-6 + 2.0 * 127 / 128 * mib256 / 320e9;
    CHECK(tree < ring);
    /* and the tree's LL128, 14 + 2 x (7 x 1.25 + 4 x 8.5) us at 120/128 of its rate, beats both */
    double tree128 = 99.5e-6 + mib256 / (0.5 * 0.92 * 320e9 * 120.0 / 128.0);
    CHECK(tree128 < tree);
    CHECK_NEAR(coll_allreduce_s(mib256, 1.0, &nodes16, &c), tree128, 1e-12);
    coll_group alone = coll_group_of(&in, 1, 1);
    CHECK(coll_allreduce_s(mib256, 1.0, &alone, &c) == 0.0);

    /* one rank a node: NCCL counts 2n network steps against 2(k-1) ring steps and does not
     * clamp, and a multi-node Simple ring pays its plateau (x 1.4 from Ampere on):
     * 1.4 x (8.4 - 2 x 3.4 + 8 x 14) us plus 6/4 x 64 MiB at 40 GB/s beats LL128 and the tree */
    coll_group four = coll_group_of(&in, 4, 8);
    CHECK(four.units == 4);
    double mib64 = 64.0 * 1024 * 1024;
    CHECK_NEAR(coll_allreduce_s(mib64, 1.0, &four, &c), 1.4 * (8.4 - 6.8 + 112.0) * 1e-6 + 1.5 * mib64 / 40e9, 1e-12);

    /* PCIe cards (L40S, 16 GB/s): PCI hops, no LL128 (NCCL enables it on NVLink only): a 256 KiB
     * all-reduce over 8 runs Simple, 8.4 + 14 x 5.7 us plus 14/8 x 256 KiB at 12.8 GB/s (LL:
     * 20.6 us at a quarter of the rate, 164 us) */
    est_input pcie = base_input(&s, "l40s", 8);
    coll_group cards = coll_group_of(&pcie, 8, 1);
    CHECK(cards.pcie);
    CHECK_NEAR(coll_allreduce_s(262144.0, 1.0, &cards, &c), 88.2e-6 + 1.75 * 262144.0 / 12.8e9, 1e-12);
    /* H100 NVL's bridged pairs: a pair talks NVLink, a ring over the node crosses PCIe */
    est_input nvl = base_input(&s, "h100_nvl", 8);
    coll_group pair = coll_group_of(&nvl, 2, 1), nvl8 = coll_group_of(&nvl, 8, 1);
    CHECK(!pair.pcie && nvl8.pcie);
    /* an NVL72 rack is one unit; 9 ranks 16 apart from rack 0 reach into rack 1 only */
    est_input rack = base_input(&s, "gb200", 144);
    coll_group spaced = coll_group_of(&rack, 9, 16), whole = coll_group_of(&rack, 72, 1);
    CHECK(spaced.units == 2 && whole.units == 1);
}

/* Gradient buckets (data/stacks.csv dp_bucket_params): Megatron-Core reduces and gathers a
 * 4-layer GPT's 266 M parameters on 8 H100s in seven 40 M-parameter buckets while it overlaps
 * the backward, and in one collective each when it does not (bucket_size None without
 * overlap_grad_reduce); the difference is six latencies of the reduce-scatter and six of the
 * all-gather, NCCL Simple's 8.4 + 7 x 3.4 us each */
static void test_gradient_buckets(void)
{
    CHECK(est_stack_load(NULL) == 0);
    model_shape s = gpt(4, 2048, 16, 2048, 32000);
    est_input in = base_input(&s, "h100", 8);
    est_stack_apply(&in, est_stack_default());
    in.zero_stage = 1;
    in.gbs = 8;
    est_cal c;
    CHECK(est_cal_default(&c, NULL) == 0);
    in.cal = &c;
    est_result on, off;
    CHECK(est_evaluate(&in, &on) == 0);
    double P = on.params_b * 1e9;
    CHECK(ceil(P / 40e6) == 7);
    in.dp_overlap_off = true;
    CHECK(est_evaluate(&in, &off) == 0);
    CHECK_NEAR(on.t_dp_comm - off.t_dp_comm, 2 * 6 * 32.2e-6, 1e-9);
}

/* Dropless routing waits for the busiest expert only where experts run on different GPUs at
 * once: with EP 1 a GPU runs its experts one after another, so an uneven spread costs nothing
 * (the step is the same as with forced balance), while with EP 8 the expert GEMMs take
 * moe_imbalance times their balanced time */
static void test_moe_wait_needs_expert_parallelism(void)
{
    est_cal c;
    CHECK(est_cal_default(&c, NULL) == 0);
    model_shape s = qwen3_30b();
    est_input in = base_input(&s, "h100", 8);
    in.mbs = 1;
    in.gbs = 8;
    in.ep = 1;
    est_result dropless, balanced;
    CHECK(est_evaluate(&in, &dropless) == 0);
    in.moe_force_balanced = true;
    CHECK(est_evaluate(&in, &balanced) == 0);
    CHECK_NEAR(dropless.step_time, balanced.step_time, 1e-12);
    in.ep = 8;
    CHECK(est_evaluate(&in, &balanced) == 0);
    in.moe_force_balanced = false;
    CHECK(est_evaluate(&in, &dropless) == 0);
    CHECK(c.moe_imbalance > 1.0);
    CHECK(dropless.t_compute_fwd > balanced.t_compute_fwd);
}

/* With TP > 1 the MoE layer sees the sequence-parallel share of the tokens, gathered
 * again over expert TP: Qwen3-235B-style top-8 at TP 2, ETP 1 routes T·8/2 copies
 * per GPU; ETP 2 routes T·8 copies of half the width.  The expert FLOPs per GPU are the
 * same either way, and half of TP 1's (the whole layer is split over twice the GPUs). */
static void test_moe_tensor_parallel_tokens(void)
{
    model_shape s = qwen3_30b();
    est_input in = base_input(&s, "h100", 16);
    in.tp = 2;
    in.sequence_parallel = true;
    in.ep = 8;
    CHECK_NEAR(est_moe_tokens(&in, 4096), 4096.0 * 8 / 2, 1e-9);
    in.etp = 2;
    CHECK_NEAR(est_moe_tokens(&in, 4096), 4096.0 * 8, 1e-9);
    in.etp = 1;
    in.tp = 1;
    CHECK_NEAR(est_moe_tokens(&in, 4096), 4096.0 * 8, 1e-9);
    /* the expert GEMMs dominate this model: doubling TP (ETP 1) roughly halves layer compute,
     * and the EP all-to-all moves half the tokens per GPU */
    in.gbs = 16;
    in.moe_force_balanced = true;
    est_result t1, t2;
    CHECK(est_evaluate(&in, &t1) == 0);
    in.tp = 2;
    in.gbs = 8;
    CHECK(est_evaluate(&in, &t2) == 0);
    CHECK_NEAR(t2.t_ep_comm / t1.t_ep_comm, 0.5, 1e-9);
    CHECK(t2.t_compute_fwd < 0.75 * t1.t_compute_fwd);
}

/* Switches of newer Megatron-Core releases: the A2A overlap hides the all-to-all behind
 * another micro-batch (so never with one micro-batch per step); CUDA graphs take the
 * per-expert launches and per-layer host cost off the critical path */
static void test_moe_overlap_and_graphs(void)
{
    model_shape s = qwen3_30b();
    est_input in = base_input(&s, "h100", 16);
    in.ep = 16;
    in.gbs = 32; /* two micro-batches */
    in.moe_force_balanced = true;
    est_result base, ovl, one, graphs;
    CHECK(est_evaluate(&in, &base) == 0);
    in.moe_a2a_overlap = true;
    CHECK(est_evaluate(&in, &ovl) == 0);
    CHECK(ovl.t_ep_comm < base.t_ep_comm);
    CHECK(ovl.step_time < base.step_time);
    CHECK_NEAR(ovl.t_moe_host, base.t_moe_host, 1e-12);
    in.gbs = 16; /* one micro-batch: nothing to overlap with */
    CHECK(est_evaluate(&in, &one) == 0);
    CHECK_NEAR(one.t_ep_comm, base.t_ep_comm / 2, 1e-9);
    in.gbs = 32;
    in.moe_a2a_overlap = false;
    in.cuda_graphs = true;
    CHECK(est_evaluate(&in, &graphs) == 0);
    CHECK(base.t_moe_host > 0);
    CHECK_NEAR(graphs.t_moe_host, 0.0, 1e-12);
    CHECK_NEAR(graphs.t_ep_comm, base.t_ep_comm, 1e-12);
    CHECK(graphs.step_time < base.step_time - base.t_moe_host + 1e-9);
}

/* Under FP8 the inputs of the four GEMMs of a layer (QKV, projection, FC1, FC2) are kept
 * as the 1-byte copies Transformer Engine made, not in bf16; and an "80 GB" GPU has
 * 80 GiB to offer */
static void test_fp8_activations_and_capacity(void)
{
    model_shape s = gpt(24, 4096, 32, 2048, 51200);
    est_input in = base_input(&s, "h100", 8);
    est_result b16, f8;
    CHECK(est_evaluate(&in, &b16) == 0);
    in.precision = PREC_FP8;
    CHECK(est_evaluate(&in, &f8) == 0);
    double saved = 2048.0 * 24 * (4096 + 4096 + 4096 + 16384);
    CHECK_NEAR(b16.mem_activations - f8.mem_activations, saved, 1.0);
    CHECK_NEAR(b16.mem_limit, 0.98 * 80 * 1024.0 * 1024 * 1024, 1.0);
}

/* Activation offload: the offloaded layers' activations leave GPU memory for host
 * memory; over PCIe (H100) the copies outlast a layer's compute and show, over
 * NVLink-C2C (GB200) they hide; a stage must keep at least one layer, and Megatron-Core
 * runs it neither with pipeline parallelism nor with recompute */
static void test_activation_offload(void)
{
    model_shape s = llama70b();
    est_input in = base_input(&s, "h100", 64);
    in.tp = 8;
    in.sequence_parallel = true;
    in.gbs = 64;
    est_result none, off;
    CHECK(est_evaluate(&in, &none) == 0);
    in.offload_act_layers = 40;
    CHECK(est_evaluate(&in, &off) == 0);
    /* one micro-batch in flight (PP 1): half of the 80 layers' activations move to the host */
    CHECK(off.mem_activations < none.mem_activations);
    CHECK_NEAR(off.cpu_mem_per_gpu, none.mem_activations - off.mem_activations, 1.0);
    CHECK(off.t_act_offload > 0 && off.step_time > none.step_time);
    in.gpu = gpu_find("gb200");
    in.offload_act_layers = 0;
    CHECK(est_evaluate(&in, &none) == 0);
    in.offload_act_layers = 40;
    CHECK(est_evaluate(&in, &off) == 0);
    CHECK(off.t_act_offload < 0.1 * none.step_time);
    char why[256];
    in.offload_act_layers = 80;
    CHECK(est_check(&in, why, sizeof why) != 0);
    CHECK_CONTAINS(why, "fewer than the 80 layers of a pipeline stage");
    in.offload_act_layers = 10;
    in.pp = 2;
    CHECK(est_check(&in, why, sizeof why) != 0);
    CHECK_CONTAINS(why, "does not run with pipeline parallelism");
    in.pp = 1;
    in.recompute = RECOMPUTE_SELECTIVE;
    CHECK(est_check(&in, why, sizeof why) != 0);
    CHECK_CONTAINS(why, "recompute");
}

/* DeepSeek-V3 (deepseek-ai/DeepSeek-V3 config.json): multi-head latent attention,
 * 256 routed + 1 shared expert of 2048, top-8, first 3 layers dense (18432) */
static model_shape deepseek_v3(void)
{
    model_shape s = gpt(61, 7168, 128, 4096, 129280);
    s.ffn_hidden = 18432;
    s.gated_mlp = true;
    s.untied_embeddings = true;
    s.learned_pos_emb = false;
    s.kv_channels = 128;
    s.q_lora_rank = 1536;
    s.kv_lora_rank = 512;
    s.qk_rope_dim = 64;
    s.v_head_dim = 128;
    s.num_experts = 256;
    s.moe_topk = 8;
    s.moe_ffn_hidden = 2048;
    s.moe_shared_ffn = 2048;
    s.moe_dense_layers = 3;
    return s;
}

/* Pipeline layer splits (est_stage_layers): DeepSeek-V3's published layouts put
 * ceil(61/(p·v)) layers in every virtual chunk and the rest in the last ("Et*4|(t*4|)*14tmL"
 * for 16 chunks); Megatron-Core's account_for_embedding/loss counts the embedding and the
 * loss as a layer each (Llama 3.1 405B: (126 + 2)/(8·4) = 4 per chunk) */
static void test_pipeline_layouts(void)
{
    model_shape s = deepseek_v3();
    est_input in = base_input(&s, "b200", 256);
    in.pp = 16;
    in.allow_uneven_pp = true;
    double first, largest, last;
    est_stage_layers(&in, &first, &largest, &last); /* even: ceil(61/16) = 4 everywhere */
    CHECK(first == 4 && largest == 4 && last == 4);
    in.pp_layout = EST_PP_REMAINDER_LAST;
    est_stage_layers(&in, &first, &largest, &last); /* [E+4] [4]×14 [1+MTP+loss] */
    CHECK(first == 4 && largest == 4 && last == 1);
    in.pp = 2;
    in.vp = 8; /* stage 1 holds chunks 1, 3, …, 15: 7 × 4 + 1 */
    est_stage_layers(&in, &first, &largest, &last);
    CHECK(first == 32 && largest == 32 && last == 29);
    in.pp = 8;
    in.vp = 1; /* [E+8] [8]×6 [5+MTP+loss] */
    est_stage_layers(&in, &first, &largest, &last);
    CHECK(first == 8 && largest == 8 && last == 5);
    /* PP 8 × VP 2: the last rank's chunks hold 4 and 1 layers.  Its 8 warm-up forwards all
     * run chunk 0, the one in flight chunk 1: 8·4 + 1 = 33 layer-activations, not 9 × 5/2 */
    in.vp = 2;
    CHECK_NEAR(est_stage_inflight_layers(&in, 64, 7), 33.0, 1e-12);
    in.vp = 1;
    /* the lighter last stage makes the step faster than the even split's */
    in.pp = 16;
    in.ep = 8;
    in.gbs = 4096;
    est_result lay, even;
    CHECK(est_evaluate(&in, &lay) == 0);
    in.pp_layout = EST_PP_EVEN;
    CHECK(est_evaluate(&in, &even) == 0);
    CHECK(lay.step_time < even.step_time);

    model_shape l = llama70b();
    l.num_layers = 126;
    est_input q = base_input(&l, "h100", 256);
    q.pp = 8;
    q.vp = 4;
    q.allow_uneven_pp = true;
    q.pp_layout = EST_PP_EMBEDDING_LOSS;
    est_stage_layers(&q, &first, &largest, &last);
    CHECK(first == 15 && largest == 16 && last == 15);
    /* memory follows the layout: the first stage holds 15 layers, one layer's weights less
     * than the even split's 16.  Llama 3.1 405B layer: q, o 16384², k, v 16384·1024, the
     * MLP 3·16384·53248, two norms: 3,187,703,808 parameters, 398,462,976 per GPU at TP 8,
     * 2 B each in bf16 */
    q.shape.hidden = 16384;
    q.shape.ffn_hidden = 53248;
    q.shape.heads = 128;
    q.tp = 8;
    q.gbs = 2048;
    est_result by_layout, by_even;
    CHECK(est_evaluate(&q, &by_layout) == 0);
    q.pp_layout = EST_PP_EVEN;
    CHECK(est_evaluate(&q, &by_even) == 0);
    q.pp_layout = EST_PP_EMBEDDING_LOSS;
    /* The even split peaks on the first stage: 16 layers and the embedding, and Megatron-
     * Core's interleaved warm-up of 2·(8 − 0 − 1) + (4 − 1)·8 = 38 chunks + 1 in flight:
     * 39/4 = 9.75 micro-batches.  Under the layout the first stage drops to 15 layers, so
     * pipeline rank 1 peaks instead: 16 layers, no embedding, 2·6 + 24 + 1 = 37 chunks,
     * 9.25 micro-batches.  The two differ in weights by the embedding's share only,
     * 128256·16384/8 parameters of 2 B. */
    CHECK(by_even.mem_peak_stage == EST_STAGE_FIRST && by_layout.mem_peak_stage == EST_STAGE_MIDDLE);
    CHECK_NEAR(by_even.inflight_microbatches, 9.75, 1e-12);
    CHECK_NEAR(by_layout.inflight_microbatches, 9.25, 1e-12);
    CHECK_NEAR(by_even.mem_weights - by_layout.mem_weights, 128256.0 * 16384.0 / 8.0 * 2.0, 1e-9);
    CHECK(by_layout.mem_activations < by_even.mem_activations && by_layout.mem_total < by_even.mem_total);
    CHECK(strcmp(est_stage_name(by_layout.mem_peak_stage), "middle") == 0);
    /* chunk by chunk: p 8, v 4, u 4 per chunk, 32 micro-batches.  Rank 0 runs 39 forwards,
     * chunks 0,1,2,3,0 in groups of 8 (the last group 7): 15 of chunk 0 at 3 layers, 24 at 4
     * = 141; rank 1 runs 37 forwards of 4 layers = 148; rank 7 runs 25: chunk 3 (3 layers)
     * once, the rest at 4 = 99 */
    q.shape.num_layers = 126;
    q.vp = 4;
    q.pp_layout = EST_PP_EMBEDDING_LOSS;
    q.moe_a2a_overlap = false;
    CHECK_NEAR(est_stage_inflight_layers(&q, 32, 0), 141.0, 1e-12);
    CHECK_NEAR(est_stage_inflight_layers(&q, 32, 1), 148.0, 1e-12);
    CHECK_NEAR(est_stage_inflight_layers(&q, 32, 7), 99.0, 1e-12);
    /* fewer micro-batches than the warm-up: all m·v forwards are held (2·4 chunks: 2·(3+4+4+4)) */
    CHECK_NEAR(est_stage_inflight_layers(&q, 2, 0), 30.0, 1e-12);
    /* 1F1B: min(m, p − rank) micro-batches of the stage's layers */
    q.vp = 1;
    q.pp_layout = EST_PP_EVEN;
    CHECK_NEAR(est_stage_inflight_layers(&q, 32, 0), 8.0 * 16.0, 1e-12);
    CHECK_NEAR(est_stage_inflight_layers(&q, 32, 7), 1.0 * 16.0, 1e-12);
    CHECK_NEAR(est_stage_inflight_layers(&q, 3, 1), 3.0 * 16.0, 1e-12);
    q.vp = 3; /* 128 layers' worth do not split into 24 chunks: the even split stays */
    est_stage_layers(&q, &first, &largest, &last);
    CHECK(first == 16 && largest == 16 && last == 16);
    q.pp = 1;
    q.vp = 1;
    est_stage_layers(&q, &first, &largest, &last);
    CHECK(first == 126 && largest == 126 && last == 126);
}

/* Group-limited routing (DeepSeek-V3 §2.1.2: n_group 8, topk_group 4): with EP 64 over 8
 * nodes of 8 GPUs a token's 8 experts reach at most 4 nodes, so of the 7 other nodes it
 * sends to 4 · 7/8 = 3.5 on average instead of 7·(1 − (7/8)^8) = 4.59 */
static void test_group_limited_routing(void)
{
    model_shape s = deepseek_v3();
    s.moe_dense_layers = 0;
    est_input a = base_input(&s, "h100", 64);
    a.ep = 64;
    est_input b = a;
    b.shape.moe_router_groups = 8;
    b.shape.moe_group_topk = 4;
    est_result ra, rb;
    CHECK(est_evaluate(&a, &ra) == 0);
    CHECK(est_evaluate(&b, &rb) == 0);
    double unlimited = 7.0 * (1.0 - pow(7.0 / 8.0, 8));
    CHECK_NEAR(rb.t_ep_comm / ra.t_ep_comm, 3.5 / unlimited, 1e-9);
    /* groups that do not sit whole on nodes: no limit assumed */
    b.shape.moe_router_groups = 12;
    CHECK(est_evaluate(&b, &rb) == 0);
    CHECK_NEAR(rb.t_ep_comm, ra.t_ep_comm, 1e-12);
}

/* The paper's sizes (DeepSeek-V3 report §1, §2.1): 671B parameters, 37B active per
 * token; the KV cache of MLA is (kv_lora + rope) elements per token per layer
 * (DeepSeek-V2 §2.1.2), 70 KB per token in BF16 */
static void test_mla_deepseek_v3(void)
{
    model_shape s = deepseek_v3();
    layer_attn at;
    layer_attn_of(&s, &at);
    CHECK(layer_is_mla(&s));
    /* down 7168·(1536+512+64), q up 1536·128·192, kv up 512·128·256, out 128·128·7168 */
    CHECK_NEAR(at.weights, 7168.0 * 2112 + 1536.0 * 128 * 192 + 512.0 * 128 * 256 + 128.0 * 128 * 7168, 1e-3);
    CHECK_NEAR(at.cache * 61 * 2 / 1024.0, 68.6, 0.1); /* 35136 elements, 70.3 kB */
    CHECK(layer_moe_count(&s) == 58);
    double emb = 2.0 * 129280 * 7168;
    double total = 61 * (at.weights + 2.0 * 7168) + 3 * layer_mlp_weights(&s, false, NULL) + 58 * layer_mlp_weights(&s, true, NULL) + emb;
    CHECK(fabs(total / 671e9 - 1.0) < 0.01);
    double active = layer_stack_active_gemm_weights(&s) + emb / 2.0;
    CHECK(active > 36e9 && active < 38e9);

    /* the estimator counts the same parameters, plus one MTP module when asked */
    est_input in = base_input(&s, "gb200", 256);
    in.pp = 4;
    in.vp = 4;
    in.ep = 64;
    in.gbs = 4096;
    in.precision = PREC_FP8;
    in.allow_uneven_pp = true; /* 61 layers over 4 stages, as Megatron-Core's layouts split them */
    est_result r, mtp, up;
    CHECK(est_evaluate(&in, &r) == 0);
    CHECK(fabs(r.params_b / 671.0 - 1.0) < 0.01);
    in.shape.mtp_layers = 1;
    CHECK(est_evaluate(&in, &mtp) == 0);
    CHECK(mtp.params_b > r.params_b + 11.0 && mtp.params_b < r.params_b + 12.5); /* one expert layer + 2h² */
    CHECK(mtp.step_time > r.step_time && mtp.model_flops_per_step > r.model_flops_per_step);
    /* recomputing the up-projections trades memory for time */
    in.recompute_mla_up_proj = true;
    CHECK(est_evaluate(&in, &up) == 0);
    CHECK(up.mem_activations < mtp.mem_activations && up.step_time > mtp.step_time);
    /* a layer without MLA has nothing to recompute there */
    model_shape l = llama70b();
    est_input bad = base_input(&l, "h100", 64);
    bad.recompute_mla_up_proj = true;
    char why[256];
    CHECK(est_check(&bad, why, sizeof why) != 0);
    CHECK_CONTAINS(why, "multi-head latent attention");
    /* dense-first layers: the same model with experts in every layer holds more */
    in.shape.moe_dense_layers = 0;
    est_result all_moe;
    CHECK(est_evaluate(&in, &all_moe) == 0);
    CHECK(all_moe.params_b > mtp.params_b);
}

/* Megatron-Core recompute_modules layernorm and moe_act: the norms' outputs (2 B × h each,
 * twice per layer) and the routed experts' activation output (2 B × F per routed copy)
 * leave memory; their forward runs again (elementwise traffic at HBM speed) */
static void test_module_recompute(void)
{
    model_shape s = llama70b();
    est_input a = base_input(&s, "h100", 8);
    a.tp = 8;
    a.sequence_parallel = false; /* the norm outputs are whole on every TP rank */
    est_input b = a;
    b.recompute_layernorm = true;
    est_result ra, rb;
    CHECK(est_evaluate(&a, &ra) == 0);
    CHECK(est_evaluate(&b, &rb) == 0);
    /* PP 1, one micro-batch in flight: 80 layers × 8192 tokens × 2 norms × 2 B × 8192 */
    CHECK_NEAR(ra.mem_activations - rb.mem_activations, 80.0 * 8192 * 2 * 2 * 8192, 1.0);
    /* time: 80 layers × 2 norms × (2h read + 2h written) × 8192 tokens at 85 % of 3.35 TB/s
     * (elementwise kernels' share of HBM peak), per micro-batch */
    double norms_s = 80.0 * 2 * 4 * 8192 * 8192 / (0.85 * 3350e9);
    CHECK_NEAR(rb.t_recompute - ra.t_recompute, rb.num_microbatches * norms_s, 1e-6);
    CHECK(rb.step_time > ra.step_time);

    model_shape q = qwen3_30b();
    est_input m = base_input(&q, "h100", 8);
    m.ep = 8;
    est_input n = m;
    n.recompute_moe_act = true;
    est_result rm, rn;
    CHECK(est_evaluate(&m, &rm) == 0);
    CHECK(est_evaluate(&n, &rn) == 0);
    /* 48 layers × 4096 tokens × top-8 copies × 2 B × F = 768 */
    CHECK_NEAR(rm.mem_activations - rn.mem_activations, 48.0 * 4096 * 8 * 2 * 768, 1.0);
    CHECK(rn.t_recompute > rm.t_recompute && rn.step_time > rm.step_time);
    /* a dense model has no expert activation to recompute */
    est_input dense = a;
    dense.recompute_moe_act = true;
    char why[256];
    CHECK(est_check(&dense, why, sizeof why) != 0);
    CHECK_CONTAINS(why, "moe_act");
}

/* FlashAttention computes whole 128-key blocks: a causal window of W keys costs W + 128
 * keys per query (the mean attended stays about W); full attention is unchanged.  Narrower
 * heads keep a score's exponential and shrink its MMAs: at width w = (d_qk + d_v)/256 the rate
 * is w/((1 − x)·w + x) of the reference, x the exponentials' share at 128-wide heads: 0.30 on
 * Hopper (256 MMA FLOPs per exponential), 0.6/1.3 on Blackwell and Blackwell Ultra (512),
 * 0.15/0.85 on Ampere (128); the backward's share x/(2.5(1 − x) + x) */
static void test_attention_tiles_and_head_width(void)
{
    CHECK_NEAR(est_attn_keys_computed(4096, true, 128), 256.0, 1e-9);
    CHECK_NEAR(est_attn_keys_computed(4096, false, 128), 256.0, 1e-9);
    /* causal: the diagonal 128-key block computed whole, s/2 + 64 keys a query */
    CHECK_NEAR(est_attn_keys_computed(4096, true, 0), 2048.0 + 64.0, 1e-9);
    CHECK_NEAR(est_attn_keys_computed(4096, true, 8192), 2048.0 + 64.0, 1e-9);
    CHECK_NEAR(est_attn_keys_computed(4096, false, 0), 4096.0, 1e-9);
    CHECK_NEAR(est_attn_keys_computed(100, true, 0), 100.0, 1e-9);    /* one block: all of it */
    CHECK_NEAR(est_attn_keys_computed(300, true, 200), 214.0, 1e-9); /* never more than full causal */
    CHECK(gpu_catalog_load(NULL) == 0);
    const gpu_spec *h100 = gpu_find("h100"), *gb300 = gpu_find("gb300"), *gb200 = gpu_find("gb200"), *a100 = gpu_find("a100");
    CHECK_NEAR(h100->mma_per_exp, 256.0, 1e-12);
    CHECK_NEAR(gb200->mma_per_exp, 512.0, 1e-12);
    CHECK_NEAR(gb300->mma_per_exp, 512.0, 1e-12); /* Ultra's narrow heads measure as Blackwell's */
    CHECK_NEAR(a100->mma_per_exp, 128.0, 1e-12);
    double xb = 0.6 / 1.3; /* Blackwell: 0.30 at twice Hopper's MMA FLOPs per exponential */
    CHECK_NEAR(est_attn_fwd_eff(0.55, 0.30, 4, h100, 256), 0.55, 1e-12);
    CHECK_NEAR(est_attn_fwd_eff(0.55, 0.30, 4, h100, 128), 0.55 * 0.5 / (0.7 * 0.5 + 0.3), 1e-12); /* 0.77 */
    CHECK_NEAR(est_attn_fwd_eff(0.55, 0.30, 4, gb200, 128), 0.55 * 0.5 / ((1.0 - xb) * 0.5 + xb), 1e-12); /* 0.68 */
    CHECK_NEAR(est_attn_fwd_eff(0.55, 0.30, 4, a100, 128), 0.55 * 0.5 / (0.7 / 0.85 * 0.5 + 0.15 / 0.85), 1e-12);
    CHECK_NEAR(est_attn_fwd_eff(0.55, 1.0, 4, h100, 128), 0.275, 1e-12); /* wholly exp-bound: half */
    CHECK_NEAR(est_attn_fwd_eff(0.55, 0.30, 4, h100, 320), 0.55, 1e-12); /* MLA's 192 + 128: not faster */
    CHECK_NEAR(est_attn_fwd_eff(0.55, 0.30, 4, h100, 0), 0.55, 1e-12);
    /* the backward by the same law, its MMAs 2.5x the forward's: exponential share x/(2.5(1 − x) + x)
     * (Hopper 0.146: 64-wide heads at 0.87 of the 128-wide rate, cuDNN's H200 0.84-0.86; Blackwell
     * 0.80, GB200 0.82-0.83) */
    double hb = 0.3 / 2.05, bb = xb / (2.5 * (1.0 - xb) + xb);
    CHECK_NEAR(est_attn_bwd_width(0.30, h100, 256), 1.0, 1e-12);
    CHECK_NEAR(est_attn_bwd_width(0.30, h100, 128), 0.5 / ((1.0 - hb) * 0.5 + hb), 1e-12);
    CHECK_NEAR(est_attn_bwd_width(0.30, gb200, 128), 0.5 / ((1.0 - bb) * 0.5 + bb), 1e-12);
    CHECK_NEAR(est_attn_bwd_width(0.30, h100, 320), 1.0, 1e-12);
    CHECK_NEAR(est_attn_bwd_width(0.0, h100, 128), 1.0, 1e-12); /* no exponential share: no penalty */
    /* 1.25 × 0.55 (Blackwell Ultra's measured forward gain); a rate that would pass 95 % at long
     * range is capped: 0.95 · 32.5 / (32.5 + 4) at the reference */
    CHECK_NEAR(est_attn_fwd_eff(0.55, 0.30, 4, gb300, 256), 0.6875, 1e-12);
    CHECK_NEAR(est_attn_fwd_eff(0.80, 0.30, 4, gb300, 256), 0.95 * 32.5 / 36.5, 1e-12);
    CHECK_NEAR(est_attn_fwd_eff(0.80, 0.30, 0, gb300, 256), 0.95, 1e-12);
    CHECK_NEAR(est_attn_fwd_eff(0.55, 0.30, 4, gb300, 128), 0.6875 * 0.5 / ((1.0 - xb) * 0.5 + xb), 1e-12);
    /* 64 heads of 64 against 32 of 128: the same GEMMs and attention FLOPs (2 · 4096 tokens ·
     * 2112 keys · 8192 per layer), so the whole difference is the attention at the narrow heads'
     * rates, forward and backward, at the 4096-token range factor, over 24 layers on H100 */
    est_cal c;
    CHECK(est_cal_default(&c, NULL) == 0);
    model_shape narrow = gpt(24, 4096, 64, 4096, 50304), wide = gpt(24, 4096, 32, 4096, 50304);
    est_input a = base_input(&narrow, "h100", 8), b = base_input(&wide, "h100", 8);
    est_result ra, rb;
    CHECK(est_evaluate(&a, &ra) == 0);
    CHECK(est_evaluate(&b, &rb) == 0);
    double flops = 2.0 * 4096 * 2112 * 8192, range = est_attn_range_factor(2112, c.attn_block_overhead);
    double f128 = flops * range / (989e12 * c.attn_eff), b128 = 2.5 * f128 / c.attn_bwd_ratio;
    double wf = est_attn_fwd_eff(c.attn_eff, c.attn_exp_share, c.attn_block_overhead, h100, 128) / c.attn_eff;
    double wb = est_attn_bwd_width(c.attn_exp_share, h100, 128);
    CHECK_NEAR(ra.t_compute_fwd - rb.t_compute_fwd, 24 * f128 * (1.0 / wf - 1.0), 1e-9);
    CHECK_NEAR(ra.t_compute_bwd - rb.t_compute_bwd, 24 * b128 * (1.0 / wb - 1.0), 1e-9);
}

/* A fused attention kernel pays ~o key blocks' time per query block beyond the blocks it
 * computes (calibration attn_block_overhead): relative to the 8192-token causal reference
 * (32.5 blocks) a 128-key sliding window (2 blocks) takes (2 + 4)/2 over (32.5 + 4)/32.5 =
 * 2.67x the time per FLOP, a 32768-token causal range (128.5 blocks) 0.92x, 4096 tokens (16.5)
 * 1.11x; a range shorter than a block still computes one whole (64 keys: (1 + 4)/0.5).  On
 * GB200, 128-wide causal heads at 2048 / 4096 / 8192 tokens so run at 0.42 / 0.50 / 0.55 of peak,
 * ~0.85 of cuDNN's burst benchmark (0.47 / 0.58 / 0.67), a sustained training clock's share, and
 * 64-wide heads with a 128-key window at 0.55 · 0.68 / 2.67 = 0.141 (cuDNN 0.13) */
static void test_attention_range(void)
{
    est_cal c;
    CHECK(est_cal_default(&c, NULL) == 0);
    CHECK_NEAR(c.attn_block_overhead, 4.0, 1e-12);
    CHECK_NEAR(c.attn_block_overhead_fa2, 2.0, 1e-12);
    CHECK_NEAR(c.attn_exp_share, 0.30, 1e-12);
    CHECK_NEAR(est_attn_range_factor(4160, 4), 1.0, 1e-12);
    CHECK_NEAR(est_attn_range_factor(256, 4), 3.0 / (36.5 / 32.5), 1e-12);
    CHECK_NEAR(est_attn_range_factor(16448, 4), (132.5 / 128.5) / (36.5 / 32.5), 1e-12);
    CHECK_NEAR(est_attn_range_factor(2112, 4), (20.5 / 16.5) / (36.5 / 32.5), 1e-12);
    CHECK_NEAR(est_attn_range_factor(2112, 0), 1.0, 1e-12); /* no overhead: FLOPs alone */
    CHECK_NEAR(est_attn_range_factor(256, 0), 1.0, 1e-12);
    CHECK_NEAR(est_attn_range_factor(64, 4), 10.0 / (36.5 / 32.5), 1e-12);
    CHECK_NEAR(est_attn_calls_range_factor(4160, 4, 2.5), 42.5 / 36.5, 1e-12); /* a ring's steps */
    CHECK(gpu_catalog_load(NULL) == 0);
    const gpu_spec *gb200 = gpu_find("gb200"), *a100 = gpu_find("a100_80gb"), *h100 = gpu_find("h100");
    double xb = 0.6 / 1.3; /* Blackwell's exponential share */
    CHECK_NEAR(est_attn_fwd_eff(0.55, 0.30, 4, gb200, 128) / est_attn_range_factor(256, 4),
               0.55 * 0.5 / ((1.0 - xb) * 0.5 + xb) * 2.0 / 6.0 * 36.5 / 32.5, 1e-12);
    CHECK_NEAR(est_attn_fwd_eff(0.55, 0.30, 4, gb200, 256) / est_attn_range_factor(1088, 4), 0.4203, 1e-3);
    CHECK_NEAR(est_attn_fwd_eff(0.55, 0.30, 4, gb200, 256) / est_attn_range_factor(2112, 4), 0.4967, 1e-3);
    CHECK_NEAR(est_attn_fwd_eff(0.55, 0.30, 4, gb200, 256) / est_attn_range_factor(4160, 4), 0.55, 1e-12);
    /* the kernel a stack runs: FlashAttention-2 class on sm80 and for flash2 stacks */
    CHECK(est_attn_block_overhead(&c, a100, false) == 2.0);
    CHECK(est_attn_block_overhead(&c, h100, true) == 2.0);
    CHECK(est_attn_block_overhead(&c, h100, false) == 4.0);
    /* GPT-OSS-style layers, half of them on 128-key windows, on H100 at the reference 8192
     * tokens: the full layers do not change, the windowed ones take 2.67x their FLOP time.
     * Without the overhead the windowed model saves (4160 − 256)/256 of a window layer's
     * attention time W against the full one, so W = (full − windowed)·256/3904 and the
     * overhead adds 1.67·W */
    model_shape full = gpt(24, 4096, 32, 8192, 50304), windowed = full;
    windowed.swa_window = 128;
    windowed.swa_share = 0.5;
    est_cal none = c;
    none.attn_block_overhead = 0.0;
    est_input a = base_input(&full, "h100", 8), b = base_input(&windowed, "h100", 8);
    est_result ra, ra0, rb, rb0;
    CHECK(est_evaluate(&a, &ra) == 0 && est_evaluate(&b, &rb) == 0);
    a.cal = b.cal = &none;
    CHECK(est_evaluate(&a, &ra0) == 0 && est_evaluate(&b, &rb0) == 0);
    CHECK_NEAR(ra.t_compute_fwd, ra0.t_compute_fwd, 1e-12);
    double w = (ra0.t_compute_fwd - rb0.t_compute_fwd) * 256.0 / 3904.0;
    CHECK(w > 0);
    CHECK_NEAR(rb.t_compute_fwd - rb0.t_compute_fwd, (est_attn_range_factor(256, 4) - 1.0) * w, 1e-9);
}

/* GPT-OSS experts without a fused grouped MLP: the clamps of the gated activation and the
 * bias passes are separate HBM round trips (expert_epilogue_bytes): per routed copy forward
 * 2 B × (8F + 2(2F + h)), backward 2 B × (13F + 2F + h), at 85 % of 3.35 TB/s */
static void test_expert_epilogue(void)
{
    model_shape s = qwen3_30b();
    est_input a = base_input(&s, "h100", 8);
    a.ep = 8;
    est_input b = a;
    b.shape.moe_expert_bias = b.shape.moe_glu_clamp = true;
    est_input c = b;
    c.fused_expert_mlp = true;
    est_result ra, rb, rc;
    CHECK(est_evaluate(&a, &ra) == 0);
    CHECK(est_evaluate(&b, &rb) == 0);
    CHECK(est_evaluate(&c, &rc) == 0);
    double F = 768, h = 2048, routed = 4096.0 * 8, hbm = 0.85 * 3350e9; /* 4096 tokens, top-8 */
    double fwd = 48 * routed * 2 * (8 * F + 2 * (2 * F + h)) / hbm;
    double bwd = 48 * routed * 2 * (13 * F + 2 * F + h) / hbm;
    CHECK(ra.num_microbatches == 1);
    CHECK_NEAR(rb.t_compute_fwd - ra.t_compute_fwd, fwd, 1e-9);
    CHECK_NEAR(rb.t_compute_bwd - ra.t_compute_bwd, bwd, 1e-9);
    /* the fused kernel does it in its epilogue */
    CHECK_NEAR(rc.t_compute_fwd, ra.t_compute_fwd, 1e-12);
    CHECK_NEAR(rc.step_time, ra.step_time, 1e-12);
    /* moe_act recompute re-runs the clamps too: 8F more per routed copy */
    est_input d = b, e = a;
    d.recompute_moe_act = e.recompute_moe_act = true;
    est_result rd, re;
    CHECK(est_evaluate(&d, &rd) == 0);
    CHECK(est_evaluate(&e, &re) == 0);
    CHECK_NEAR(rd.t_recompute - re.t_recompute, 48 * routed * 2 * 8 * F / hbm, 1e-9);
}

/* Blackwell Ultra's doubled exponential rate: same GEMM peak as Blackwell, the attention
 * core's forward 1.25x as fast, as cuDNN's measures it (data/gpus.csv attn_speedup) */
static void test_attention_speedup(void)
{
    CHECK(gpu_catalog_load(NULL) == 0);
    CHECK_NEAR(gpu_find("gb300")->attn_speedup, 1.25, 1e-9);
    CHECK_NEAR(gpu_find("b300")->attn_speedup, 1.25, 1e-9);
    CHECK_NEAR(gpu_find("gb200")->attn_speedup, 1.0, 1e-9);
    model_shape s = llama70b();
    est_input a = base_input(&s, "gb200", 8), b = base_input(&s, "gb200", 8);
    a.tp = b.tp = 8;
    a.sequence_parallel = b.sequence_parallel = true;
    est_result ra, rb;
    CHECK(est_evaluate(&a, &ra) == 0);
    gpu_spec faster = *b.gpu;
    faster.attn_speedup = 2.0;
    b.gpu = &faster;
    CHECK(est_evaluate(&b, &rb) == 0);
    CHECK(rb.step_time < ra.step_time);
    /* only the attention core changed: memory is the same */
    CHECK_NEAR(rb.mem_total, ra.mem_total, 1.0);
}

/* B200's own cuDNN measurement (data/gpus.csv attn_burst_8k 0.53 of 2250 at 8192 tokens) against
 * the reference GPUs' 0.67 (calibration attn_ref_burst): a training step keeps the same share of
 * each burst, and B200's was measured at its own clock, so its attention core runs at
 * 0.53 / (0.67 x 1965/1855.8) = 0.747 of the rate its clock alone gives, forward and backward;
 * GEMMs and every GPU without a measurement are untouched */
static void test_attention_measured_burst(void)
{
    CHECK(gpu_catalog_load(NULL) == 0);
    est_cal cal;
    CHECK(est_cal_default(&cal, NULL) == 0);
    const gpu_spec *b200 = gpu_find("b200");
    CHECK_NEAR(b200->attn_burst_8k, 0.53, 1e-12);
    double datasheet_mhz = 2250e6 / (148.0 * 8192.0);
    CHECK_NEAR(est_attn_gpu_scale(&cal, b200), 0.53 / (0.67 * (1965.0 / datasheet_mhz)), 1e-9);
    CHECK_NEAR(est_attn_gpu_scale(&cal, gpu_find("gb200")), 1.0, 1e-12);
    CHECK_NEAR(est_attn_gpu_scale(&cal, gpu_find("h100")), 1.0, 1e-12);
    model_shape s = llama70b();
    est_input in = base_input(&s, "b200", 8);
    gpu_spec unmeasured = *b200;
    unmeasured.attn_burst_8k = 0;
    est_input ref = in;
    ref.gpu = &unmeasured;
    est_device d1, d2;
    est_device_of(&in, &cal, &d1);
    est_device_of(&ref, &cal, &d2);
    layer_cost l1, l2;
    layer_cost_compute(&in, &d1, 8192, 8192, true, false, 0, false, &l1);
    layer_cost_compute(&ref, &d2, 8192, 8192, true, false, 0, false, &l2);
    double scale = est_attn_gpu_scale(&cal, b200);
    CHECK_NEAR(l1.attn_core_fwd * scale, l2.attn_core_fwd, 1e-12);
    CHECK_NEAR(l1.attn_core_bwd * scale, l2.attn_core_bwd, 1e-12);
    /* the rest of the layer is the same */
    CHECK_NEAR(l1.fwd - l1.attn_core_fwd, l2.fwd - l2.attn_core_fwd, 1e-12);
    /* its own curve's per-block overhead (gpus.csv attn_block_overhead 8 against the reference 4):
     * at 65536 causal tokens (256.5 key blocks a query block against the reference's 32.5) the
     * kernel gains (256.5 + 4)/256.5 / ((32.5 + 4)/32.5) over the reference range with the
     * reference's overhead and (256.5 + 8)/256.5 / ((32.5 + 8)/32.5) with its own */
    CHECK_NEAR(est_attn_gpu_block_overhead(&cal, b200), 8.0, 1e-12);
    CHECK_NEAR(est_attn_gpu_block_overhead(&cal, gpu_find("gb200")), cal.attn_block_overhead, 1e-12);
    s.seq_length = 65536;
    in = base_input(&s, "b200", 8);
    ref = in;
    ref.gpu = &unmeasured;
    unmeasured.attn_block_overhead = 0;
    est_device_of(&in, &cal, &d1);
    est_device_of(&ref, &cal, &d2);
    layer_cost_compute(&in, &d1, 65536, 65536, true, false, 0, false, &l1);
    layer_cost_compute(&ref, &d2, 65536, 65536, true, false, 0, false, &l2);
    double kb = est_attn_keys_computed(65536, true, 0) / 128.0, kr = est_attn_keys_computed(8192, true, 0) / 128.0;
    double gain_own = ((kr + 8.0) / kr) / ((kb + 8.0) / kb), gain_ref = ((kr + 4.0) / kr) / ((kb + 4.0) / kb);
    CHECK_NEAR(l2.attn_core_fwd / l1.attn_core_fwd, scale * gain_own / gain_ref, 1e-9);
}

/* Tensor cores at the SM clock a part runs at: the datasheet's clock is its bf16 peak over
 * SMs x per-SM rate (B300: 2250e12 / (148 x 8192) = 1855.8 MHz, against 2032 MHz; A100:
 * 312e12 / (108 x 2048) = 1410.6 MHz, its boost clock, no catalog clock: 1); the MFU keeps
 * the datasheet peak, so a B300 run predicts 2032 / 1855.8 faster at the same MFU reference */
/* Hybrid Mamba-Transformer stacks (Nemotron-H, Nemotron 3): published sizes, the rules
 * Megatron-Core's MambaMixer imposes, and a Mamba-2 block priced from its kernels */
static model_shape named_at(const char *name, int seq)
{
    model_shape s;
    CHECK_INT(model_named_shape(name, &s, NULL), 0);
    s.seq_length = seq;
    return s;
}

/* two shapes on the same 8 H100 at one global batch, both evaluated */
static void evaluate_both(const model_shape *x, const model_shape *y, int gbs, est_result *rx, est_result *ry)
{
    est_input ix = base_input(x, "h100", 8), iy = base_input(y, "h100", 8);
    ix.gbs = iy.gbs = gbs;
    CHECK_INT(est_evaluate(&ix, rx), 0);
    CHECK_INT(est_evaluate(&iy, ry), 0);
}

static void test_hybrid_mamba(void)
{
    /* parameters: Nemotron-H 8B "8B", Nemotron 3 Nano "31.6B total" (model cards) */
    model_shape h8 = named_at("Nemotron-H 8B", 8192), nano = named_at("Nemotron 3 Nano 30B-A3B", 8192);
    est_input in = base_input(&h8, "h100", 64);
    in.mbs = 1, in.gbs = 64, in.precision = PREC_FP8, in.zero_stage = 1;
    est_result r;
    CHECK_INT(est_evaluate(&in, &r), 0);
    CHECK(r.params_b > 7.9 && r.params_b < 8.3);
    est_input nin = base_input(&nano, "gb200", 8);
    nin.ep = 8, nin.mbs = 2, nin.gbs = 512, nin.precision = PREC_FP8;
    est_result nr;
    CHECK_INT(est_evaluate(&nin, &nr), 0);
    CHECK(nr.params_b > 31.0 && nr.params_b < 32.2);
    CHECK(nr.fits);

    /* MambaMixer splits heads and B/C groups over TP; its context parallelism is not modelled */
    char why[256];
    est_input grouped = in;
    grouped.shape.mamba_groups = 4, grouped.tp = 8;
    CHECK_INT(est_check(&grouped, why, sizeof why), -1);
    CHECK_CONTAINS(why, "Mamba heads and 4 groups");
    grouped.shape.mamba_groups = 8;
    CHECK_INT(est_check(&grouped, why, sizeof why), 0);
    grouped.tp = 1, grouped.pp = 2, grouped.vp = 2, grouped.num_gpus = 128;
    CHECK_INT(est_check(&grouped, why, sizeof why), -1);
    CHECK_CONTAINS(why, "interleaved");
    /* a row that overrides the experts of a pattern with expert blocks, and a stack that does
     * not run MambaModel, are refused, not priced */
    est_input broken = nin;
    broken.shape.num_experts = 0;
    CHECK_INT(est_check(&broken, why, sizeof why), -1);
    CHECK_CONTAINS(why, "expert blocks ('E') need experts");
    est_input fsdp = in;
    fsdp.stack = est_stack_find("pytorch-fsdp");
    CHECK(fsdp.stack != NULL);
    CHECK_INT(est_check(&fsdp, why, sizeof why), -1);
    CHECK_CONTAINS(why, "Megatron-Core's MambaModel, not pytorch-fsdp");
    /* MambaStack gives each stage L // PP blocks: an uneven or embedding/loss split is not run */
    grouped.vp = 1, grouped.pp = 8, grouped.allow_uneven_pp = true;
    CHECK_INT(est_check(&grouped, why, sizeof why), -1);
    CHECK_CONTAINS(why, "splits its 52 blocks evenly");
    grouped.pp = 2, grouped.allow_uneven_pp = false, grouped.pp_layout = EST_PP_EMBEDDING_LOSS;
    CHECK_INT(est_check(&grouped, why, sizeof why), -1);
    grouped.pp_layout = EST_PP_EVEN;
    CHECK_INT(est_check(&grouped, why, sizeof why), 0);
    grouped.pp = 1, grouped.vp = 1, grouped.num_gpus = 64, grouped.cp = 2;
    CHECK_INT(est_check(&grouped, why, sizeof why), -1);
    CHECK_CONTAINS(why, "context parallelism of Mamba-2");

    /* model FLOPs: attention only on the 4 attention blocks, so the 8B hybrid counts far
     * less attention than a 52-layer transformer of its widths; its SSD scan adds 3 × the
     * forward's per token */
    model_shape all_attn = h8;
    all_attn.hyb_mamba = all_attn.hyb_attn = all_attn.hyb_mlp = all_attn.hyb_moe = 0;
    double B = 1, sq = 8192;
    double att_layer = 6.0 * B * sq * sq * 32 * 256;
    double scan = 3.0 * B * sq * 24 * layer_mamba_scan_flops(&h8);
    double gemm = 6.0 * B * sq * layer_stack_active_gemm_weights(&h8), logits = 6.0 * B * sq * 4096 * 131072.0;
    CHECK_NEAR(est_model_flops(&h8, B), gemm + 4 * att_layer + scan + logits, 1e-9);
    CHECK(est_model_flops(&all_attn, B) > est_model_flops(&h8, B));

    /* one Mamba-2 block of the 8B, TP 1, bf16 on H100, MBS 1 × 8192 tokens: the forward is
     * in_proj and out_proj at the GEMM rate plus the conv, SSD and gated-norm traffic; the
     * backward runs both GEMMs twice and more traffic; it keeps its activations at
     * (2h + 2h) + 2·18560 + 2·8192 (scan output) + 2·8192 (norm input) + 2·8192 (out_proj
     * input) bytes per token (the conv output is recomputed) */
    in.precision = PREC_BF16;
    est_cal cal;
    CHECK_INT(est_cal_default(&cal, NULL), 0);
    est_device dev;
    est_device_of(&in, &cal, &dev);
    layer_cost mb;
    double T = 8192;
    layer_cost_mamba(&in, &dev, T, &mb);
    double gemms = layer_gemm_s(&dev, T, 4096, 18560, 1.0) + layer_gemm_s(&dev, T, 8192, 4096, 1.0);
    CHECK(mb.fwd > gemms && mb.fwd < 1.6 * gemms);
    CHECK(mb.bwd > 2.0 * gemms && mb.bwd > mb.fwd);
    CHECK_NEAR(mb.act_full, T * (4.0 * 4096 + 2.0 * 18560 + 6.0 * 8192), 1e-9);
    CHECK_NEAR(mb.tp_comm, 0.0, 0);

    /* LatentMoE (Nemotron 3 Super): 512 experts of 2 · 1024 · 2688 at the latent width, plus the
     * 2 · 4096 · 1024 projections, the 4096-wide shared expert 2 · 4096 · 5376 and the router
     * 4096 · 512 in each of its 40 expert blocks; 120 B without its 2 MTP layers (model card
     * "120B-A12B") */
    model_shape sup = named_at("Nemotron 3 Super", 8192);
    CHECK_INT(sup.moe_latent, 1024);
    CHECK_NEAR(layer_expert_weights(&sup), 512.0 * 2 * 1024 * 2688, 1e-12);
    double act;
    CHECK_NEAR(layer_mlp_weights(&sup, true, &act),
               512.0 * 2 * 1024 * 2688 + 2.0 * 4096 * 1024 + 2.0 * 4096 * 5376 + 4096.0 * 512, 1e-12);
    CHECK_NEAR(act, 22.0 * 2 * 1024 * 2688 + 2.0 * 4096 * 1024 + 2.0 * 4096 * 5376 + 4096.0 * 512, 1e-12);
    est_input sin = base_input(&sup, "gb300", 64);
    sin.ep = 64, sin.gbs = 512, sin.precision = PREC_FP8, sin.zero_stage = 1;
    est_result sr;
    CHECK_INT(est_evaluate(&sin, &sr), 0);
    model_shape no_mtp = sup;
    no_mtp.mtp_layers = 0;
    est_input nm = sin;
    nm.shape = no_mtp;
    est_result nr2;
    CHECK_INT(est_evaluate(&nm, &nr2), 0);
    CHECK(nr2.params_b > 119.0 && nr2.params_b < 122.0);
    CHECK(sr.params_b > nr2.params_b + 5.0);
    /* the all-to-all carries latent-wide tokens: a quarter of what the same experts at h move */
    est_input wide = sin;
    wide.shape.moe_latent = 0;
    est_result wr;
    CHECK_INT(est_evaluate(&wide, &wr), 0);
    CHECK_NEAR(sr.t_ep_comm, 0.25 * wr.t_ep_comm, 0.02);

    /* the average block, pinned: a stack of "*-" pairs is exactly the transformer of half as
     * many layers (each pair one attention + MLP layer: time, memory, parameters) */
    model_shape pairs = gpt(4, 2048, 16, 4096, 32000);
    pairs.gated_mlp = true; /* no dropout masks either way (hybrid stacks train without dropout) */
    model_shape tf = pairs;
    CHECK_INT(layer_hybrid_pattern(&pairs, "*-*-*-*-"), 0);
    est_result pr, tr;
    evaluate_both(&pairs, &tf, 64, &pr, &tr);
    CHECK_NEAR(pr.step_time, tr.step_time, 1e-9);
    CHECK_NEAR(pr.mem_total, tr.mem_total, 1e-9);
    CHECK_NEAR(pr.params_b, tr.params_b, 1e-9);
    /* and one attention block traded for a Mamba-2 block ("*E*E" → "*EME", expert MLPs on
     * the other blocks) changes the forward by exactly a Mamba block less an attention
     * block (a layer with an empty MLP, less that MLP's entry), per micro-batch */
    model_shape a = h8, b;
    a.num_experts = 8, a.moe_topk = 2, a.moe_ffn_hidden = 2048;
    CHECK_INT(layer_hybrid_pattern(&a, "*E*E"), 0);
    b = a;
    CHECK_INT(layer_hybrid_pattern(&b, "*EME"), 0);
    est_result ar2, br2;
    evaluate_both(&a, &b, 16, &ar2, &br2);
    est_input bin2 = base_input(&b, "h100", 8);
    bin2.gbs = 16;
    est_device d2;
    est_device_of(&bin2, &cal, &d2);
    layer_cost mamba_blk, attn_blk;
    layer_cost_mamba(&bin2, &d2, 8192, &mamba_blk);
    est_input bare = bin2;
    bare.shape.ffn_hidden = 0, bare.shape.num_experts = 0, bare.shape.moe_shared_ffn = 0;
    layer_cost_compute(&bare, &d2, 8192, 8192, true, false, 0, false, &attn_blk);
    layer_cost entry;
    layer_cost_mlp_entry(&bin2, &d2, 8192, &entry);
    CHECK(entry.fwd > 0 && entry.act_full > 0);
    CHECK_NEAR(br2.t_compute_fwd - ar2.t_compute_fwd, br2.num_microbatches * (mamba_blk.fwd - (attn_blk.fwd - entry.fwd)), 1e-6);
    /* under TP every block, Mamba included, runs one collective pair each way: half a layer's */
    est_input tp2 = bin2;
    tp2.tp = 2, tp2.sequence_parallel = true;
    est_device d3;
    est_device_of(&tp2, &cal, &d3);
    layer_cost m2, l2;
    layer_cost_mamba(&tp2, &d3, 8192, &m2);
    layer_cost_compute(&tp2, &d3, 8192, 8192, true, false, 0, false, &l2);
    CHECK(m2.tp_comm > 0);
    CHECK_NEAR(m2.tp_comm, 0.5 * l2.tp_comm, 1e-12);

    /* the hybrid runs faster per token than the same widths with attention everywhere
     * (attention blocks are few, and a Mamba block is cheaper than attention + MLP) */
    est_input ain = in;
    ain.shape = all_attn;
    est_result ar;
    CHECK_INT(est_evaluate(&in, &r), 0);
    CHECK_INT(est_evaluate(&ain, &ar), 0);
    CHECK(r.step_time < ar.step_time);
}

static void test_gemm_clock(void)
{
    CHECK(gpu_catalog_load(NULL) == 0);
    CHECK_NEAR(gpu_find("b300")->clock_scale, 2032.0 / (2250e6 / (148.0 * 8192.0)), 1e-9);
    CHECK_NEAR(gpu_find("gb300")->clock_scale, 2070.0 / (2450e6 / (148.0 * 8192.0)), 1e-9);
    CHECK_NEAR(gpu_find("b200")->clock_scale, 1965.0 / (2250e6 / (148.0 * 8192.0)), 1e-9);
    CHECK_NEAR(gpu_find("a100_80gb")->clock_scale, 1.0, 1e-12);
    CHECK_NEAR(gpu_find("h100")->clock_scale, 1.0, 1e-12);
    /* the 500 W H100 with HBM2e: the SXM part's 1830 MHz x (500/700)^(1/3) */
    CHECK_NEAR(gpu_find("h100_sxm_hbm2e")->clock_scale, 1636.0 / (989e6 / (132.0 * 4096.0)), 1e-9);
    CHECK(gpu_match("H100 SXM 96GB HBM2e (500 W)") == gpu_find("h100_sxm_hbm2e"));
    CHECK(gpu_match("H100 SXM") == gpu_find("h100_sxm") && gpu_match("H100 NVL") == gpu_find("h100_nvl"));
    /* nvidia-smi's product names: the 16 GB V100 is not the 32 GB one */
    CHECK(gpu_match("Tesla V100-SXM2-16GB") == gpu_find("v100_16gb") && gpu_match("V100-SXM2-32GB") == gpu_find("v100_32gb"));
    model_shape s = llama70b();
    est_input a = base_input(&s, "b300", 8), b = a;
    a.tp = b.tp = 8;
    gpu_spec datasheet = *a.gpu;
    datasheet.clock_scale = 1.0;
    b.gpu = &datasheet;
    est_result ra, rb;
    CHECK(est_evaluate(&a, &ra) == 0);
    CHECK(est_evaluate(&b, &rb) == 0);
    /* the tensor-core rates at the higher clock; the forward gains less (its elementwise
     * passes are bound by HBM, which the clock does not move); communication and memory
     * the same */
    est_cal cal;
    CHECK(est_cal_default(&cal, NULL) == 0);
    est_device da, db;
    est_device_of(&a, &cal, &da);
    est_device_of(&b, &cal, &db);
    CHECK_NEAR(da.peak / db.peak, a.gpu->clock_scale, 1e-9);
    CHECK_NEAR(da.peak16 / db.peak16, a.gpu->clock_scale, 1e-9);
    double gain = rb.t_compute_fwd / ra.t_compute_fwd;
    CHECK(gain > 1.05 && gain <= a.gpu->clock_scale + 1e-9);
    CHECK(ra.step_time < rb.step_time);
    CHECK_NEAR(ra.mem_total, rb.mem_total, 1.0);
    CHECK_NEAR(ra.t_tp_comm, rb.t_tp_comm, 1e-12);
}

/* torch.compile on the FSDP stack: Inductor's fused pointwise kernels replace eager code's
 * passes, (60 - 16) x 2h bytes per token and layer forward and twice that backward fewer
 * (data/stacks.csv); a stack that states no compiled value (Megatron-Core: its kernels are
 * fused already) is unchanged.  FP8 casts: 6 B per element instead of 8. */
static void test_torch_compile(void)
{
    CHECK(gpu_catalog_load(NULL) == 0 && est_stack_load(NULL) == 0);
    model_shape s = llama70b();
    est_input a = base_input(&s, "h100", 8);
    a.num_gpus = 64;
    a.gbs = 64;
    est_stack_apply(&a, est_stack_find("pytorch-fsdp"));
    est_input b = a;
    b.torch_compile = true;
    CHECK_NEAR(est_stack_elementwise_units(&a), 60.0, 1e-12);
    CHECK_NEAR(est_stack_elementwise_units(&b), 16.0, 1e-12);
    est_result ra, rb;
    CHECK(est_evaluate(&a, &ra) == 0);
    CHECK(est_evaluate(&b, &rb) == 0);
    est_cal cal;
    CHECK(est_cal_default(&cal, NULL) == 0);
    est_device dev;
    est_device_of(&a, &cal, &dev);
    /* tokens per GPU and micro-batch x layers x micro-batches: the whole step's saving */
    double T = a.mbs * s.seq_length, steps = (double)a.gbs / (a.mbs * 64);
    double saved_fwd = 44.0 * 2.0 * s.hidden * T / dev.hbm * s.num_layers * steps;
    CHECK_NEAR(ra.t_compute_fwd - rb.t_compute_fwd, saved_fwd, 1e-6 * ra.t_compute_fwd + 1e-9);
    CHECK_NEAR(ra.t_compute_bwd - rb.t_compute_bwd, 2.0 * saved_fwd, 1e-6 * ra.t_compute_bwd + 1e-9);
    CHECK(rb.step_time < ra.step_time);
    /* the loss: torchtitan's eager fp32 cross-entropy moves 48 B a logit and keeps 12 (compiled
     * or not), against Megatron-Core's fused 24 and 6; its extra time splits a third forward,
     * two thirds backward */
    CHECK_NEAR(est_stack_logit_bytes(&a), 48.0, 1e-12);
    CHECK_NEAR(est_stack_logit_mem_bytes(&b), 12.0, 1e-12);
    CHECK_NEAR(ra.mem_logits, 12.0 * T * s.vocab, 1.0);
    est_input mc = base_input(&s, "h100", 8);
    CHECK_NEAR(est_stack_logit_bytes(&mc), 24.0, 1e-12);
    CHECK_NEAR(est_stack_logit_mem_bytes(&mc), 6.0, 1e-12);
    b.precision = PREC_FP8;
    CHECK_NEAR(est_stack_fp8_cast_bytes(&b), 6.0, 1e-12);
    b.torch_compile = false;
    CHECK_NEAR(est_stack_fp8_cast_bytes(&b), 8.0, 1e-12);
    /* in the step: FP8 under compile saves the pointwise passes and 2 B of every cast element
     * (8 -> 6); torchao's dynamic scaling already counts its amax, so "tensorwise" current
     * scaling adds nothing on this stack */
    est_input e8 = a, c8 = a;
    e8.precision = c8.precision = PREC_FP8;
    c8.torch_compile = true;
    est_result re8, rc8;
    CHECK(est_evaluate(&e8, &re8) == 0);
    CHECK(est_evaluate(&c8, &rc8) == 0);
    est_device dev8;
    est_device_of(&e8, &cal, &dev8);
    double casts = est_cast_elems(&e8, T, false, false);
    double saved8 = (44.0 * 2.0 * s.hidden * T + 2.0 * casts) / dev8.hbm * s.num_layers * steps;
    CHECK_NEAR(re8.t_compute_fwd - rc8.t_compute_fwd, saved8, 1e-6 * re8.t_compute_fwd + 1e-9);
    est_input cs = e8;
    cs.fp8_current_scaling = true;
    est_result rcs;
    CHECK(est_evaluate(&cs, &rcs) == 0);
    CHECK_NEAR(rcs.step_time, re8.step_time, 1e-12);
    /* Megatron-Core states no compiled value: nothing moves */
    est_input c = base_input(&s, "h100", 8), d = c;
    d.torch_compile = true;
    est_result rc, rd;
    CHECK(est_evaluate(&c, &rc) == 0);
    CHECK(est_evaluate(&d, &rd) == 0);
    CHECK_NEAR(rc.step_time, rd.step_time, 1e-12);
    /* FSDP with TP composed (torchtitan) keeps the block checkpoints sequence-sharded */
    est_input f = base_input(&s, "h100", 8);
    est_stack_apply(&f, est_stack_find("pytorch-fsdp"));
    f.tp = 8;
    f.recompute = RECOMPUTE_FULL;
    f.sequence_parallel = true;
    est_input g = f;
    g.sequence_parallel = false;
    est_result rf, rg;
    CHECK(est_evaluate(&f, &rf) == 0);
    CHECK(est_evaluate(&g, &rg) == 0);
    CHECK(rf.mem_activations < rg.mem_activations / 4.0);
}

/* PyTorch's context parallel as torchtitan runs it (data/stacks.csv cp_kv_all_heads, cp_dkv_bytes,
 * cp_exposed): K/V expanded to every query head, dK/dV in fp32, no overlap.  Llama 70B (64 heads,
 * 8 KV groups, d 128) at TP 8 x CP 2 on 16 H100s: each rank holds T = 4096 tokens; a step moves
 * T x 2 x 64 x 128 / 8 x 2 B = 16.8 MB at one NIC's 50 GB/s x p2p_eff; forward one step, backward
 * K/V + fp32 dK/dV = 3 steps, all of it shown, per layer and micro-batch */
static void test_pytorch_context_parallel(void)
{
    CHECK(gpu_catalog_load(NULL) == 0 && est_stack_load(NULL) == 0);
    model_shape s = llama70b();
    est_input in = base_input(&s, "h100", 16);
    est_stack_apply(&in, est_stack_find("pytorch-fsdp"));
    in.tp = 8;
    in.cp = 2;
    in.sequence_parallel = true;
    in.gbs = 1;
    est_cal cal;
    CHECK(est_cal_default(&cal, NULL) == 0);
    est_result r;
    CHECK(est_evaluate(&in, &r) == 0);
    double T = s.seq_length / 2.0, d = 128.0;
    double step = T * 2.0 * 64.0 * d / 8.0 * 2.0 / (50e9 * cal.p2p_eff);
    CHECK_NEAR(r.t_cp_comm, s.num_layers * (step + 3.0 * step), 1e-9);
    /* Megatron-Core's ring at the GQA width hides behind the attention of its pass */
    est_input mc = base_input(&s, "h100", 16);
    mc.tp = 8;
    mc.cp = 2;
    mc.gbs = 1;
    est_result rm;
    CHECK(est_evaluate(&mc, &rm) == 0);
    CHECK(rm.t_cp_comm < 0.05 * r.t_cp_comm);
}

/* Megatron-LM 2021-22's scatter/gather of pipeline sends (nemo-megatron-2022 pp_scatter_gather):
 * without sequence parallelism each of the 8 TP ranks sends 1/8 of the s·b·h activation through its
 * NIC, and the pieces are all-gathered over NVLink; GPT 175B at TP 8 x PP 8 on 64 A100s, MBS 1,
 * 64 micro-batches: per micro-batch a send forward and one back */
static void test_pipeline_scatter_gather(void)
{
    CHECK(gpu_catalog_load(NULL) == 0 && est_stack_load(NULL) == 0);
    model_shape s = gpt(96, 12288, 96, 2048, 51200);
    est_input in = base_input(&s, "a100_80gb", 64);
    est_stack_apply(&in, est_stack_find("nemo-megatron-2022"));
    in.tp = 8;
    in.pp = 8;
    in.gbs = 64;
    in.sequence_parallel = false;
    in.recompute = RECOMPUTE_FULL;
    est_cal cal;
    CHECK(est_cal_default(&cal, NULL) == 0);
    est_result r;
    CHECK(est_evaluate(&in, &r) == 0);
    double msg = 2048.0 * 12288.0 * 2.0;
    double nic = 25e9 * cal.p2p_eff, nvl = 300e9 * cal.collective_eff;
    /* the gather is one NCCL Simple ring in the node: 8.4 + 7 x 3.4 us of latency */
    double send = msg / 8.0 / nic + 32.2e-6 + 7.0 / 8.0 * msg / nvl;
    CHECK_NEAR(r.t_pp_p2p, 64.0 * 2.0 * send, 1e-9);
    /* Megatron-Core sends the whole tensor from every rank */
    est_input mc = in;
    est_stack_apply(&mc, est_stack_find("megatron-core"));
    mc.sequence_parallel = false;
    est_result rm;
    CHECK(est_evaluate(&mc, &rm) == 0);
    CHECK_NEAR(rm.t_pp_p2p, 64.0 * 2.0 * msg / nic, 1e-9);
}

/* FP8 casts per layer: forward inputs of QKV (h), projection (a·d), FC1 (h), FC2 (F);
 * backward output gradients of QKV (a·d + 2g·d), projection (h), FC1 (2F gated), FC2 (h) */
/* NVFP4's GEMM rate: the calibrated 1.5x over FP8 where FP4 peaks at 2x FP8 (B200: 4500 ->
 * 6750 TFLOP/s) means 2/3 of the work runs in FP4; on GB300 (FP4 14700 = 3x FP8 4900) the
 * same share gives 1/(1/3 + 2/9) = 1.8x: 8820 TFLOP/s */
static void test_fp4_rate(void)
{
    CHECK(gpu_catalog_load(NULL) == 0);
    CHECK_NEAR(est_fp4_gemm_tflops(gpu_find("b200"), 1.5), 6750.0, 1e-12);
    CHECK_NEAR(est_fp4_gemm_tflops(gpu_find("gb300"), 1.5), 8820.0, 1e-12);
    CHECK_NEAR(est_fp4_gemm_tflops(gpu_find("gb300"), 2.0), 14700.0, 1e-12); /* all in FP4: the peak */
    CHECK_NEAR(est_fp4_gemm_tflops(gpu_find("h100"), 1.5), 1979.0, 1e-12);   /* no FP4: the FP8 rate */
    /* GB300 runs a Llama 3.1 405B NVFP4 step faster than GB200 by more than its FP8 peak gives */
    model_shape l = llama70b();
    est_input in = base_input(&l, "gb200", 64);
    in.precision = PREC_FP4;
    in.tp = 2;
    in.pp = 4;
    in.gbs = 256;
    est_result r200, r300;
    CHECK(est_evaluate(&in, &r200) == 0);
    in.gpu = gpu_find("gb300");
    CHECK(est_evaluate(&in, &r300) == 0);
    CHECK(r300.t_compute_fwd < r200.t_compute_fwd * 0.9);
}

static void test_fp8_casts(void)
{
    model_shape s = llama70b();
    est_input in = base_input(&s, "h100", 8);
    in.tp = 8;
    CHECK_NEAR(est_cast_elems(&in, 8192, false, false), 8192.0 * (8192 + 8192 + 8192 + 28672) / 8, 1e-6);
    CHECK_NEAR(est_cast_elems(&in, 8192, true, false), 8192.0 * (8192 + 2 * 1024 + 8192 + 2 * 28672 + 8192) / 8, 1e-6);
    /* the casts cost FP8 more on a small model than on a large one, relative to its GEMMs */
    est_result b16, f8;
    in.sequence_parallel = true;
    CHECK(est_evaluate(&in, &b16) == 0);
    in.precision = PREC_FP8;
    CHECK(est_evaluate(&in, &f8) == 0);
    CHECK(f8.step_time < b16.step_time);
}

static void expect_invalid(est_input in, const char *why)
{
    est_result r;
    CHECK(est_evaluate(&in, &r) == -1);
    CHECK_CONTAINS(r.why, why);
}

static void test_rules(void)
{
    model_shape s = gpt(24, 4096, 32, 2048, 51200);
    est_input in = base_input(&s, "a100_80gb", 24);
    in.tp = 3;
    in.gbs = 24;
    expect_invalid(in, "TP 3 does not divide 32 attention heads");
    in.tp = 1;
    in.pp = 5;
    in.num_gpus = 40;
    expect_invalid(in, "PP 5 does not divide 24 layers");
    in.pp = 1;
    in.num_gpus = 8;
    in.cp = 3;
    in.num_gpus = 24;
    expect_invalid(in, "sequence length 2048 is not a multiple of 2×CP");
    in.cp = 1;
    in.ep = 2;
    expect_invalid(in, "EP 2 needs a mixture-of-experts model");
    in.ep = 1;
    in.num_gpus = 16;
    in.gbs = 100;
    expect_invalid(in, "GBS 100 is not a multiple of MBS 1 × DP 16 = 16");
    in.gbs = 16;
    in.tp = 4;
    in.num_gpus = 18;
    expect_invalid(in, "18 GPUs are not a multiple of TP 4");
    in.tp = 1;
    in.num_gpus = 8;
    in.gbs = 8;
    in.precision = PREC_FP8;
    expect_invalid(in, "a100_80gb has no FP8 tensor cores");
    model_shape moe = s;
    moe.num_experts = 8;
    moe.moe_topk = 2;
    moe.moe_ffn_hidden = 14336;
    in = base_input(&moe, "h100", 8);
    in.ep = 3;
    in.num_gpus = 24;
    in.gbs = 24;
    expect_invalid(in, "EP 3 does not divide 8 experts");
    in = base_input(&s, "h100", 8);
    in.fp8_param_gather = true;
    expect_invalid(in, "FP8 parameter gather keeps FP8 weights: it needs FP8 precision, not bf16");
    in.precision = PREC_FP8;
    in.zero_stage = 0;
    expect_invalid(in, "FP8 parameter gather needs the distributed optimizer or FSDP (ZeRO stage >= 1)");
    in.zero_stage = 1;
    in.lora_rank = 16;
    expect_invalid(in, "FP8 parameter gather is for full training, not LoRA");
    in.lora_rank = 0;
    in.fp8_param_gather = false;
    in.grad_bytes = 3;
    expect_invalid(in, "gradients are reduced in 2 (bf16) or 4 (fp32) bytes, not 3");
}

/* the optimizer step touches the states this GPU owns: with the distributed optimizer the
 * expert states shard over the expert-data-parallel group, as their memory does, so
 * step time × 0.85 HBM / 30 B equals the states' memory / 12 B (Qwen3-30B, EP 8 on 16 GPUs:
 * dense states over DP 16, expert states over EDP 2) */
static void test_optimizer_expert_sharding(void)
{
    model_shape s = qwen3_30b();
    est_input in = base_input(&s, "h100", 16);
    in.ep = 8;
    in.zero_stage = 1;
    in.gbs = 16;
    est_result r;
    CHECK(est_evaluate(&in, &r) == 0);
    double hbm = gpu_find("h100")->hbm_gbps * 1e9 * 0.85; /* est.c: kernels reach 85 % of HBM peak */
    CHECK_NEAR(r.t_optimizer * hbm / 30.0, r.mem_optimizer / 12.0, 1e-9);
    /* ZeRO 0: every rank updates all parameters it holds, the output layer included (PP 1):
     * the update covers what its 12 B-per-parameter optimizer states cover */
    model_shape l = llama70b();
    est_input z = base_input(&l, "h100", 8);
    z.tp = 8;
    z.zero_stage = 0;
    CHECK(est_evaluate(&z, &r) == 0);
    CHECK_NEAR(r.t_optimizer * hbm / 30.0, r.mem_optimizer / 12.0, 1e-6);
    CHECK(r.t_optimizer * hbm / 30.0 > r.params_b * 1e9 / 8 * 0.99); /* all of the GPU's share */
}

static void test_catalog(void)
{
    CHECK(gpu_catalog_load(NULL) == 0);
    CHECK(gpu_count() >= 10);
    const char *needed[] = {"a100_40gb", "a100_80gb", "h100_sxm", "h100_pcie", "h200", "b200", "gb200", "l4", "a10g", "v100_32gb"};
    for (size_t i = 0; i < sizeof needed / sizeof *needed; i++) {
        const gpu_spec *g = gpu_find(needed[i]);
        CHECK(g != NULL);
        if (g) CHECK(g->bf16_tflops > 0 && g->memory_gb > 0 && g->hbm_gbps > 0 && g->price_per_hour > 0 && g->source[0]);
    }
    CHECK_STR(gpu_find("H100")->name, "h100_sxm");
    CHECK_STR(gpu_find("h100-sxm")->name, "h100_sxm");
    CHECK_STR(gpu_match("H100 SXM 80GB (DGX-H100)")->name, "h100_sxm");
    /* the memory a GPU name states, for parts the catalog holds in another size; a network's
     * Gb/s and a bare count are no memory */
    CHECK_NEAR(gpu_stated_memory_gb("NVIDIA A100-SXM-64GB"), 64.0, 1e-12);
    CHECK_NEAR(gpu_stated_memory_gb("H100 94 GB"), 94.0, 1e-12);
    CHECK_NEAR(gpu_stated_memory_gb("a100_40gb"), 40.0, 1e-12);
    CHECK_NEAR(gpu_stated_memory_gb("H200 (141GiB)"), 141.0, 1e-12);
    CHECK_NEAR(gpu_stated_memory_gb("8x A100, 400 Gb/s"), 0.0, 1e-12);
    CHECK_NEAR(gpu_stated_memory_gb("H100"), 0.0, 1e-12);
    CHECK_NEAR(gpu_other_memory_gb(gpu_find("a100_80gb"), "A100 64GB"), 64.0, 1e-12);
    CHECK_NEAR(gpu_other_memory_gb(gpu_find("h100_sxm"), "H100 SXM 80GB"), 0.0, 1e-12); /* 79.6 GiB: the same part */
    CHECK_STR(gpu_match("GB200 (NVL72)")->name, "gb200");
    CHECK_STR(gpu_match("B200 (DGX-B200)")->name, "b200");
    CHECK_STR(gpu_match("A100 SXM 80GB (DGX A100 SuperPOD)")->name, "a100_80gb");
    /* PCIe cards by their written names, whole words only ("L4" is not "L40"), a count prefix kept */
    CHECK_STR(gpu_match("NVIDIA A100 80GB PCIe")->name, "a100_pcie_80gb");
    CHECK_STR(gpu_match("A100 40GB PCIe")->name, "a100_pcie_40gb");
    CHECK_STR(gpu_match("H100 NVL")->name, "h100_nvl");
    CHECK(gpu_match("L40") == NULL);
    CHECK_STR(gpu_match("8xA100 80GB")->name, "a100_80gb");
    CHECK_STR(gpu_match("64 H100s")->name, "h100_sxm");
    CHECK_STR(gpu_match("B200x8")->name, "b200");
    /* GH200: the 96 GB HBM3 superchip unless the name says 144 GB HBM3e, never an H200 */
    CHECK_STR(gpu_match("GH200")->name, "gh200_96gb");
    CHECK_STR(gpu_match("NVIDIA GH200 480GB")->name, "gh200_96gb");
    CHECK_STR(gpu_match("NVIDIA GH200 144G HBM3e")->name, "gh200_144gb");
    CHECK_INT(gpu_match("GH200")->gpus_per_node, 4);
    CHECK_STR(gpu_match("A100-SXM4-40GB")->name, "a100_40gb");
    CHECK(gpu_find("tpu_v5") == NULL);
    CHECK_STR(gpu_suggest("h10"), "h100_sxm"); /* one edit from the alias h100 */
    CHECK_STR(gpu_suggest("h100x"), "h100_sxm");
    CHECK_STR(gpu_suggest("h20"), "h200");
    CHECK_NEAR(gpu_find("h100")->bf16_tflops, 989, 1e-9);
    CHECK_NEAR(est_peak_tflops(gpu_find("h100"), PREC_FP8), 1979, 1e-9);
    CHECK_NEAR(est_peak_tflops(gpu_find("a100"), PREC_FP8), 312, 1e-9);
    est_precision p;
    CHECK(est_precision_parse("FP8 (per-tensor current scaling)", &p) == 0 && p == PREC_FP8);
    CHECK(est_precision_parse("MXFP8", &p) == 0 && p == PREC_FP8);
    CHECK(est_precision_parse("bf16-mixed", &p) == 0 && p == PREC_BF16);
    CHECK(est_precision_parse("NVFP4", &p) == 0 && p == PREC_FP4);
    CHECK(est_precision_parse("int3", &p) != 0);
}

static void test_calibration_file(void)
{
    est_cal c;
    CHECK(est_cal_default(&c, NULL) == 0);
    CHECK(c.memory_limit_frac == 1.0); /* feasibility at the whole GPU; 98 % is the pick's advice */
    const char *path = "/tmp/autoconfig_test_cal.csv";
    est_cal d = c;
    d.attn_eff = 0.4;
    ac_err e;
    CHECK(est_cal_write_file(path, &d, "test", &e) == 0);
    est_cal back = c;
    CHECK(est_cal_load_file(path, &back, &e) == 0);
    CHECK_NEAR(back.attn_eff, 0.4, 1e-9);
    FILE *f = fopen(path, "w");
    fputs("key,value\nattn_eff,1.5\n", f);
    fclose(f);
    CHECK(est_cal_load_file(path, &back, &e) != 0);
    f = fopen(path, "w");
    fputs("key,value\nattn_efff,0.5\n", f);
    fclose(f);
    CHECK(est_cal_load_file(path, &back, &e) != 0);
    CHECK_CONTAINS(e.msg, "unknown calibration key");
    remove(path);
}

static void test_quantile(void)
{
    double v[] = {5, 1, 4, 2, 3};
    CHECK_NEAR(stats_quantile(v, 5, 0.5), 3, 1e-12);
    double w[] = {10, 0};
    CHECK_NEAR(stats_quantile(w, 2, 0.9), 9, 1e-12);
}

/* skipped rows count by reason, a long reason as one entry however often it recurs */
static void test_skip_tally(void)
{
    skip_tally t = {0};
    char longwhy[300];
    memset(longwhy, 'x', sizeof longwhy - 1);
    longwhy[sizeof longwhy - 1] = '\0';
    skip_tally_add(&t, "vocab size missing");
    skip_tally_add(&t, longwhy);
    skip_tally_add(&t, "vocab size missing");
    skip_tally_add(&t, longwhy);
    CHECK(t.n == 2 && t.r[0].count == 2 && t.r[1].count == 2);
    CHECK(strlen(t.r[1].reason) == SKIP_REASON_LEN - 1);
    /* the first SKIP_REASONS_MAX distinct reasons are kept, later ones dropped */
    char why[16];
    for (int i = 0; i < 40; i++) {
        snprintf(why, sizeof why, "r%d", i);
        skip_tally_add(&t, why);
    }
    CHECK(t.n == SKIP_REASONS_MAX);
}

/* a node smaller than the catalog's (4-GPU H200 boards): NVLink reaches the board, so data-
 * parallel traffic over 8 GPUs crosses the NIC; an NVL72 rack keeps its domain */
static void test_board_node_size(void)
{
    model_shape s = llama70b();
    est_input in = base_input(&s, "h200", 8);
    in.tp = 1, in.zero_stage = 3, in.mbs = 1, in.gbs = 8, in.recompute = RECOMPUTE_FULL;
    est_result eight, four;
    CHECK_INT(est_evaluate(&in, &eight), 0);
    in.gpus_per_node = 4;
    CHECK_INT(est_evaluate(&in, &four), 0);
    CHECK(four.t_dp_comm > 2.0 * eight.t_dp_comm);
    est_input rack = base_input(&s, "gb200", 8);
    rack.tp = 1, rack.zero_stage = 3, rack.mbs = 1, rack.gbs = 8, rack.recompute = RECOMPUTE_FULL;
    est_result r4, r72;
    CHECK_INT(est_evaluate(&rack, &r72), 0);
    rack.gpus_per_node = 2; /* fewer GPUs per host than a tray: the NVLink domain is still the rack */
    CHECK_INT(est_evaluate(&rack, &r4), 0);
    CHECK_NEAR(r4.t_dp_comm, r72.t_dp_comm, 1e-12);
}

int main(void)
{
    RUN(test_flops_worked_values);
    RUN(test_collective_latency);
    RUN(test_gradient_buckets);
    RUN(test_attention_range);
    RUN(test_korthikanti_activation_memory);
    RUN(test_bytes_per_param);
    RUN(test_gradient_and_weight_precision);
    RUN(test_recipes);
    RUN(test_recipe_releases);
    RUN(test_validate_row_recipe);
    RUN(test_validate_footnotes);
    RUN(test_fp4_rate);
    RUN(test_directions);
    RUN(test_attention_window);
    RUN(test_moe_dispatch_and_host);
    RUN(test_moe_wait_needs_expert_parallelism);
    RUN(test_fp8_casts);
    RUN(test_moe_tensor_parallel_tokens);
    RUN(test_attention_speedup);
    RUN(test_attention_measured_burst);
    RUN(test_gemm_clock);
    RUN(test_hybrid_mamba);
    RUN(test_torch_compile);
    RUN(test_pytorch_context_parallel);
    RUN(test_pipeline_scatter_gather);
    RUN(test_moe_overlap_and_graphs);
    RUN(test_fp8_activations_and_capacity);
    RUN(test_activation_offload);
    RUN(test_mla_deepseek_v3);
    RUN(test_module_recompute);
    RUN(test_rules);
    RUN(test_attention_tiles_and_head_width);
    RUN(test_expert_epilogue);
    RUN(test_pipeline_layouts);
    RUN(test_group_limited_routing);
    RUN(test_optimizer_expert_sharding);
    RUN(test_catalog);
    RUN(test_calibration_file);
    RUN(test_quantile);
    RUN(test_skip_tally);
    RUN(test_board_node_size);
    CHECK_DONE();
}
