/* test_validate.c — `validate` reads cells as real benchmark tables write them */
#include <math.h>
#include <string.h>

#include "../check.h"
#include "estimator/est.h"
#include "estimator/gpu.h"
#include "util/csv.h"
#include "validate/infer_validate.h"
#include "validate/recipe.h"
#include "validate/spelling.h"
#include "validate/validate.h"

/* every precision spelling of the major stacks, one by one */
static void test_precision_spellings(void)
{
    static const struct {
        const char *cell;
        est_precision p;
        bool block;
    } cases[] = {
        {"amp_bf16", PREC_BF16, false},           /* Composer / MosaicML */
        {"amp_fp8", PREC_FP8, false},
        {"amp_fp16", PREC_FP16, false},
        {"bf16-mixed", PREC_BF16, false},         /* Lightning */
        {"16-mixed", PREC_FP16, false},           /* Lightning: fp16 AMP, not bf16 */
        {"fp8-hybrid", PREC_FP8, false},          /* Transformer Engine recipe format */
        {"FP8 (hybrid)", PREC_FP8, false},
        {"mixed precision (FP16)", PREC_FP16, false},
        {"Mixed precision (BF16)", PREC_BF16, false},
        {"bf16 (launcher default; not stated in table)", PREC_BF16, false},
        {"MXFP8", PREC_FP8, true},
        {"FP8 block-scaled (GB200/B200: MXFP8 32x32)", PREC_FP8, true},
        {"FP8-CS", PREC_FP8, false},
        {"NVFP4", PREC_FP4, false},
        {"TF32", PREC_FP32, false},
        {"fp32", PREC_FP32, false},
        {"16", PREC_FP16, false},
        {"bfloat16", PREC_BF16, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        est_precision p = PREC_FP32;
        bool block = !cases[i].block;
        int rc = spell_precision(cases[i].cell, &p, &block);
        if (rc || p != cases[i].p || block != cases[i].block) printf("  precision '%s'\n", cases[i].cell);
        CHECK(rc == 0 && p == cases[i].p && block == cases[i].block);
    }
    /* per-tensor current scaling, as the tables and Megatron's --fp8-recipe write it */
    CHECK(spell_fp8_current_scaling("FP8 (per-tensor current scaling)"));
    CHECK(spell_fp8_current_scaling("FP8-CS"));
    CHECK(spell_fp8_current_scaling("fp8_cs"));
    CHECK(spell_fp8_current_scaling("fp8 tensorwise"));
    CHECK(!spell_fp8_current_scaling("FP8"));
    CHECK(!spell_fp8_current_scaling("FP8 (hybrid)"));
    CHECK(!spell_fp8_current_scaling("MXFP8"));
    est_precision p;
    CHECK(spell_precision("int4 awq", &p, NULL) == -1); /* not a training precision: named as unrecognised */
}

static void test_bool_spellings(void)
{
    static const char *const yes[] = {"y", "Y", "yes", "Yes (TP comm overlap)", "true", "TRUE", "1", "on", "enabled"};
    static const char *const no[] = {"n", "N", "no", "No (fused_adam)", "false", "0", "off", "disabled", "none"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
        bool b = false;
        CHECK(spell_bool(yes[i], &b) == 1 && b);
    }
    for (size_t i = 0; i < sizeof no / sizeof *no; i++) {
        bool b = true;
        CHECK(spell_bool(no[i], &b) == 1 && !b);
    }
    bool b;
    CHECK(spell_bool("", &b) == 0);
    CHECK(spell_bool("maybe", &b) == 0);
}

/* memory readings as tables print them, in GiB */
static void test_memory_spellings(void)
{
    static const struct {
        const char *cell;
        double gib;
    } cases[] = {
        {"71.9", 71.9}, {"71.9 GiB", 71.9}, {"69.6 GB", 69.6e9 / 1073741824.0}, {"58500 MB", 58500e6 / 1073741824.0},
        {"97871 MiB", 97871.0 / 1024.0}, {"76/80 GiB", 76.0}, {"76/80", 76.0}, {"~55GB", 55e9 / 1073741824.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        double g = 0;
        CHECK(spell_memory_gib(cases[i].cell, &g) == 1);
        CHECK_NEAR(g, cases[i].gib, 1e-9);
    }
    double g;
    CHECK(spell_memory_gib("", &g) == 0);
    CHECK(spell_memory_gib("OOM", &g) == 0);
    CHECK(spell_memory_gib("0", &g) == 0);
}

static void test_zero_spellings(void)
{
    static const struct {
        const char *dist_opt, *fsdp;
        int stage;
    } cases[] = {
        {"ZeRO-3", "", 3},      {"zero3", "", 3},          {"ZeRO stage 2", "", 2},  {"ZeRO-1 (distributed optimizer)", "", 1},
        {"stage 2", "", 2},     {"distributed_fused_adam", "", 1}, {"no (fused_adam)", "", 0}, {"n", "", 0},
        {"yes", "", 1},         {"2", "", 2},              {"", "FULL_SHARD", 3},    {"", "SHARD_GRAD_OP", 2},
        {"", "128", 3},         {"", "yes", 3},            {"", "hybrid_shard", 3},  {"", "", 1},
        {"DDP", "", 0},         {"", "FSDP2", 3},          {"", "no", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int stage = 1;
        const char *which = NULL;
        int rc = spell_zero_stage(cases[i].dist_opt, cases[i].fsdp, &stage, &which);
        if (rc || stage != cases[i].stage) printf("  zero '%s' / '%s' -> %d\n", cases[i].dist_opt, cases[i].fsdp, stage);
        CHECK(rc == 0 && stage == cases[i].stage);
    }
    int stage = 1;
    const char *which = NULL;
    CHECK(spell_zero_stage("sometimes", "", &stage, &which) == -1 && which && !strcmp(which, "dist_opt_zero"));
}

static void test_recompute_spellings(void)
{
    static const struct {
        const char *cell, *notes;
        est_recompute r;
    } cases[] = {
        {"full", "", RECOMPUTE_FULL},
        {"selective", "", RECOMPUTE_SELECTIVE},
        {"none", "", RECOMPUTE_NONE},
        {"uniform", "", RECOMPUTE_FULL},
        {"yes", "", RECOMPUTE_FULL},
        {"no", "full recompute", RECOMPUTE_NONE},           /* the cell wins */
        {"", "runs with full activation recompute", RECOMPUTE_FULL},
        {"", "--recompute_granularity=full --recompute_method=uniform", RECOMPUTE_FULL},
        {"", "gradient checkpointing on", RECOMPUTE_FULL},
        {"", "selective recompute of core attention", RECOMPUTE_SELECTIVE},
        {"", "no activation checkpointing", RECOMPUTE_NONE},
        {"", "", RECOMPUTE_SELECTIVE}, /* nothing said: the caller's (the stack's) default stays */
        {"-", "trained on 4096-token sequences", RECOMPUTE_SELECTIVE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        est_recompute r = RECOMPUTE_SELECTIVE;
        int rc = spell_recompute(cases[i].cell, cases[i].notes, &r);
        if (rc || r != cases[i].r) printf("  recompute '%s' / '%s' -> %d\n", cases[i].cell, cases[i].notes, (int)r);
        CHECK(rc == 0 && r == cases[i].r);
    }
    est_recompute r;
    CHECK(spell_recompute("sometimes", "", &r) == -1);
}

/* cells that say nothing read as blank; thousands separators read as numbers */
static void test_blank_and_numbers(void)
{
    CHECK(spell_blank("-") && spell_blank("N/A") && spell_blank(" n/a ") && spell_blank("?") && spell_blank("not stated"));
    CHECK(!spell_blank("no") && !spell_blank("0") && !spell_blank(""));
    est_recompute r;
    CHECK(spell_recompute("-", "full recompute", &r) == 0 && r == RECOMPUTE_FULL); /* the notes speak */
    int stage = 1;
    const char *which = NULL;
    CHECK(spell_zero_stage("N/A", "-", &stage, &which) == 0 && stage == 1);
    static const char CSV[] =
        "id,model_family,num_layers,hidden_size,num_attention_heads,vocab_size,seq_length,gpu_type,num_gpus,tp,pp,vp,mbs,"
        "gbs,precision,tokens_per_s_per_gpu\n"
        "a,GPT-3,24,4096,32,\"51,200\",2048,H100 SXM,\"1,024\",2,1,-,1,\"2,048\",n/a,4000\n";
    csv_table t;
    ac_err e;
    est_input in;
    char why[256];
    CHECK(gpu_catalog_load(NULL) == 0);
    CHECK(csv_parse(CSV, strlen(CSV), "n.csv", &t, &e) == 0);
    CHECK(validate_row_input(&t, &t.rows[0], &in, why, sizeof why) == 0);
    CHECK(in.num_gpus == 1024 && in.gbs == 2048 && in.shape.vocab == 51200 && in.vp == 1 && in.precision == PREC_BF16);
    csv_free(&t);
}

static void test_flops_formula_spellings(void)
{
    CHECK(spell_flops_formula("") == FLOPS_MEGATRON);
    CHECK(spell_flops_formula("Megatron-Bridge >= 25.09: causal self-attention counted at 1/2") == FLOPS_CAUSAL_HALF);
    CHECK(spell_flops_formula("MFU = 6ND / peak") == FLOPS_6ND);
    CHECK(spell_flops_formula("model FLOPs 6 * N * D") == FLOPS_6ND);
    CHECK(spell_flops_formula("HFU: 8ND (4 passes with activation recompute)") == FLOPS_8ND);
    CHECK(spell_flops_formula("NeMo flops callback: (24 s h^2 + 4 s^2 h)*3L + 6 s h V") == FLOPS_MEGATRON);
}

/* a CSV of rows as a table writes them, with the catalogs validate reads them against */
static void parse_rows(const char *csv, csv_table *t)
{
    CHECK(gpu_catalog_load(NULL) == 0);
    CHECK(recipe_table_load(NULL) == 0);
    ac_err e;
    CHECK(csv_parse(csv, strlen(csv), "rows.csv", t, &e) == 0);
}

/* whole rows through validate_row_input: every spelling ends in the input the estimator sees */
static void test_rows_as_tables_write_them(void)
{
    static const char CSV[] =
        "id,framework,model_family,num_layers,hidden_size,num_attention_heads,vocab_size,seq_length,gpu_type,"
        "num_gpus,tp,pp,mbs,gbs,precision,seq_parallel,dist_opt_zero,fsdp,act_recompute,notes,tokens_per_s_per_gpu\n"
        "a,NeMo Megatron,GPT-3,24,4096,32,51200,2048,A100 SXM 80GB,8,2,1,2,1440,bf16,y,distributed_fused_adam,,,,4000\n"
        "b,NeMo Megatron,GPT-3,24,4096,32,51200,2048,A100 SXM 80GB,8,2,1,2,1440,bf16,n,no (fused_adam),,,,4000\n"
        "c,HF Transformers + DeepSpeed,GPT-3,24,4096,32,51200,2048,A100 SXM 80GB,8,1,1,2,64,16-mixed,,ZeRO-3,,,full recompute,4000\n"
        "d,Composer,GPT-3,24,4096,32,51200,2048,H100 SXM,8,1,1,2,64,amp_fp8,no,,FULL_SHARD,,,4000\n"
        "e,x,GPT-3,24,4096,32,51200,2048,H100 SXM,8,1,1,2,64,amp_bf16,,sometimes,,,,4000\n"
        "f,x,GPT-3,24,4096,32,51200,2048,H100 SXM,8,1,1,2,64,int4,,,,,,4000\n"
        "g,torchtitan,GPT-3,24,4096,32,51200,2048,H100 SXM,8,,,2,64,bf16,,,8,,,4000\n"
        "h,MaxText,GPT-3,24,4096,32,51200,2048,H100 SXM,8,,,2,64,bf16,,,8,,,4000\n"
        "i,Paxml/JAX,GPT-3,24,4096,32,51200,2048,H100 SXM,8,,,2,64,bf16,,,8,selective,,4000\n";
    csv_table t;
    parse_rows(CSV, &t);
    est_input in;
    char why[256];
    CHECK(validate_row_input(&t, &t.rows[0], &in, why, sizeof why) == 0);
    CHECK(in.sequence_parallel && in.zero_stage == 1 && in.precision == PREC_BF16); /* "y" is yes */
    CHECK(validate_row_input(&t, &t.rows[1], &in, why, sizeof why) == 0);
    CHECK(!in.sequence_parallel && in.zero_stage == 0); /* "no (fused_adam)": plain DDP */
    CHECK(validate_row_input(&t, &t.rows[2], &in, why, sizeof why) == 0);
    CHECK(in.zero_stage == 3 && in.precision == PREC_FP16 && in.recompute == RECOMPUTE_FULL);
    CHECK(validate_row_input(&t, &t.rows[3], &in, why, sizeof why) == 0);
    CHECK(in.zero_stage == 3 && in.precision == PREC_FP8 && !in.sequence_parallel);
    CHECK(validate_row_input(&t, &t.rows[4], &in, why, sizeof why) == -1);
    CHECK(strstr(why, "dist_opt_zero not recognised") != NULL);
    CHECK(validate_row_input(&t, &t.rows[5], &in, why, sizeof why) == -1);
    CHECK(strstr(why, "precision not recognised") != NULL);
    /* pure FSDP over the GPUs with no TP/PP published: TP = PP = 1 on the FSDP stack */
    CHECK(validate_row_input(&t, &t.rows[6], &in, why, sizeof why) == 0);
    CHECK(in.tp == 1 && in.pp == 1 && in.zero_stage == 3 && in.stack && !strcmp(in.stack->name, "pytorch-fsdp2"));
    /* MaxText over FSDP 8 that states no remat policy: the JAX stack, TP = PP = 1, and its
     * default remat_policy 'full'; one that states its recompute keeps it */
    CHECK(validate_row_input(&t, &t.rows[7], &in, why, sizeof why) == 0);
    CHECK(in.tp == 1 && in.pp == 1 && in.zero_stage == 3 && !strcmp(in.stack->name, "jax-xla") && in.recompute == RECOMPUTE_FULL);
    CHECK(validate_row_input(&t, &t.rows[8], &in, why, sizeof why) == 0);
    CHECK(!strcmp(in.stack->name, "jax-xla") && in.recompute == RECOMPUTE_SELECTIVE);
    /* a MaxText row whose model has no recipe keeps a plain full recompute */
    CHECK(validate_row_input(&t, &t.rows[7], &in, why, sizeof why) == 0 && in.remat_saves == 0);
    /* a Megatron stack's blank recompute is none (NeMo's default), not the JAX one */
    CHECK(validate_row_input(&t, &t.rows[0], &in, why, sizeof why) == 0 && in.recompute == RECOMPUTE_NONE);
    csv_free(&t);
    /* a Megatron-LM run its source dates before 2023 ran that era's code: the 2022 stack
     * (no FlashAttention, no Transformer Engine); a later one the Megatron-Core stack */
    static const char ERA_ROWS[] =
        "id,framework,source,model_family,num_layers,hidden_size,num_attention_heads,vocab_size,seq_length,gpu_type,"
        "num_gpus,tp,pp,mbs,gbs,tokens_per_s_per_gpu\n"
        "a,Megatron-LM,Narayanan et al. (SC21) arXiv:2104.04473 Table 1,GPT-3,24,4096,32,51200,2048,A100 80GB,8,1,1,1,64,4000\n"
        "b,Megatron-LM,Megatron-LM README (2024),GPT-3,24,4096,32,51200,2048,A100 80GB,8,1,1,1,64,4000\n"
        "c,Megatron-LM,table of 1440.0000 runs,GPT-3,24,4096,32,51200,2048,A100 80GB,8,1,1,1,64,4000\n"
        "d,Megatron-LM (2022),Korthikanti et al. 2022 (MLSys 2023) Table 4,GPT-3,24,4096,32,51200,2048,A100 80GB,8,1,1,1,64,4000\n";
    parse_rows(ERA_ROWS, &t);
    /* the framework cell's year dates the software, not the later publication its source names */
    CHECK(validate_row_input(&t, &t.rows[3], &in, why, sizeof why) == 0 && !strcmp(in.stack->name, "nemo-megatron-2022"));
    CHECK(validate_row_input(&t, &t.rows[0], &in, why, sizeof why) == 0 && !strcmp(in.stack->name, "nemo-megatron-2022"));
    CHECK(validate_row_input(&t, &t.rows[1], &in, why, sizeof why) == 0 && !strcmp(in.stack->name, "megatron-core"));
    CHECK(validate_row_input(&t, &t.rows[2], &in, why, sizeof why) == 0 && !strcmp(in.stack->name, "megatron-core"));
    csv_free(&t);
    /* the dgxc-benchmarking MaxText recipes' remat policies (data/recipes.csv): Llama 2 70B FP8
     * keeps Q, K, V and the output projection, BF16 also the MLP's output projection, Llama 3 70B
     * Q, K and V; a row that states selective recompute is not a full one and keeps none */
    static const char REMAT_ROWS[] =
        "id,framework,model,model_family,num_layers,hidden_size,num_attention_heads,vocab_size,seq_length,gpu_type,"
        "num_gpus,fsdp,mbs,gbs,precision,act_recompute,step_time_s\n"
        "a,MaxText/JAX,Llama 2 70B (MaxText),Llama,80,8192,64,32000,4096,H100 SXM,64,64,2,128,FP8,,7\n"
        "b,MaxText/JAX,Llama 2 70B (MaxText),Llama,80,8192,64,32000,4096,H100 SXM,64,64,2,128,BF16,,7\n"
        "c,MaxText 25.01,Llama 3 70B (MaxText),Llama,80,8192,64,128256,8192,H100 SXM,128,128,2,256,FP8,,12\n"
        "d,MaxText 25.01,Llama 3 70B (MaxText),Llama,80,8192,64,128256,8192,H100 SXM,128,128,2,256,FP8,selective,12\n";
    parse_rows(REMAT_ROWS, &t);
    CHECK(validate_row_input(&t, &t.rows[0], &in, why, sizeof why) == 0);
    CHECK(in.recompute == RECOMPUTE_FULL && in.remat_saves == (EST_SAVE_QKV | EST_SAVE_OUT));
    CHECK(validate_row_input(&t, &t.rows[1], &in, why, sizeof why) == 0);
    CHECK(in.remat_saves == (EST_SAVE_QKV | EST_SAVE_OUT | EST_SAVE_MLPWO));
    CHECK(validate_row_input(&t, &t.rows[2], &in, why, sizeof why) == 0 && in.remat_saves == EST_SAVE_QKV);
    CHECK(validate_row_input(&t, &t.rows[3], &in, why, sizeof why) == 0);
    CHECK(in.recompute == RECOMPUTE_SELECTIVE && in.remat_saves == 0);
    csv_free(&t);
    /* a NeMo container release whose launcher configuration turned cuDNN attention off (24.01-24.05)
     * ran the launcher stack; a later release, and MLPerf's "NGC 24.04" (its own scripts), did not */
    static const char LAUNCHER_ROWS[] =
        "id,framework,source,model_family,num_layers,hidden_size,num_attention_heads,vocab_size,seq_length,gpu_type,"
        "num_gpus,tp,pp,mbs,gbs,tokens_per_s_per_gpu\n"
        "a,NeMo (NeMo24.03.01.framework),NeMo long-sequence table,GPT-3,24,4096,32,51200,2048,H100 80GB,8,1,1,1,64,4000\n"
        "b,NeMo 1.0 / Megatron-Core (NeMo 24.07),NeMo 24.07 summary,GPT-3,24,4096,32,51200,2048,H100 80GB,8,1,1,1,64,4000\n"
        "c,\"NeMo (MLPerf Training v4.0, NGC 24.04, 2024)\",MLPerf,GPT-3,24,4096,32,51200,2048,H100 80GB,8,1,1,1,64,4000\n"
        "d,nemo:24.05,table,GPT-3,24,4096,32,51200,2048,H100 80GB,8,1,1,1,64,4000\n"
        "e,NeMo 1.0 (NeMo 24.03),table,GPT-3,24,4096,32,51200,2048,H100 80GB,8,1,1,1,64,4000\n"
        "f,NeMo Framework 24.05,table,GPT-3,24,4096,32,51200,2048,H100 80GB,8,1,1,1,64,4000\n"
        "g,NeMo 2024.03,table,GPT-3,24,4096,32,51200,2048,H100 80GB,8,1,1,1,64,4000\n";
    parse_rows(LAUNCHER_ROWS, &t);
    CHECK(validate_row_input(&t, &t.rows[0], &in, why, sizeof why) == 0 && !strcmp(in.stack->name, "nemo-launcher-2024"));
    CHECK(validate_row_input(&t, &t.rows[1], &in, why, sizeof why) == 0 && !strcmp(in.stack->name, "megatron-core"));
    CHECK(validate_row_input(&t, &t.rows[2], &in, why, sizeof why) == 0 && !strcmp(in.stack->name, "megatron-core"));
    CHECK(validate_row_input(&t, &t.rows[3], &in, why, sizeof why) == 0 && !strcmp(in.stack->name, "nemo-launcher-2024"));
    /* the release after a NeMo version that is not one ("NeMo 1.0"), and "NeMo Framework YY.MM" */
    CHECK(validate_row_input(&t, &t.rows[4], &in, why, sizeof why) == 0 && !strcmp(in.stack->name, "nemo-launcher-2024"));
    CHECK(validate_row_input(&t, &t.rows[5], &in, why, sizeof why) == 0 && !strcmp(in.stack->name, "nemo-launcher-2024"));
    /* a year is not a release */
    CHECK(validate_row_input(&t, &t.rows[6], &in, why, sizeof why) == 0 && !strcmp(in.stack->name, "megatron-core"));
    csv_free(&t);
    /* a JAX container before 24.04 ran the 2023 JAX stack (unfused attention, no collective
     * pipelining), wherever the row names the image, but only for a JAX row: a NeMo row whose source
     * mentions a JAX image keeps its own stack */
    static const char JAX_ROWS[] =
        "id,framework,source,model_family,num_layers,hidden_size,num_attention_heads,vocab_size,seq_length,gpu_type,"
        "num_gpus,tp,pp,mbs,gbs,tokens_per_s_per_gpu\n"
        "a,Paxml (JAX-Toolbox),README (nvcr.io/nvidia/jax:23.10-paxml-py3),GPT-3,24,4096,32,51200,2048,H100 80GB,8,1,1,1,64,4000\n"
        "b,MaxText,dgxc (nvcr.io/nvidia/jax:24.04-maxtext-py3),GPT-3,24,4096,32,51200,2048,H100 80GB,8,1,1,1,64,4000\n"
        "c,NeMo 2.0,compared with jax:23.10,GPT-3,24,4096,32,51200,2048,H100 80GB,8,1,1,1,64,4000\n"
        "d,MaxText,JAX-Toolbox 2023 table,GPT-3,24,4096,32,51200,2048,H100 80GB,8,1,1,1,64,4000\n"
        "e,MaxText,\"1.6x over jax:23.10, run in nvcr.io/nvidia/jax:24.04-maxtext-py3\",GPT-3,24,4096,32,51200,2048,H100 80GB,8,1,1,1,64,4000\n"
        "f,MaxText (jax:23.10),\"NeMo 24.03 comparison\",GPT-3,24,4096,32,51200,2048,H100 80GB,8,1,1,1,64,4000\n"
        "g,MaxText,\"faster than JAX 23.10 was\",GPT-3,24,4096,32,51200,2048,H100 80GB,8,1,1,1,64,4000\n";
    parse_rows(JAX_ROWS, &t);
    CHECK(validate_row_input(&t, &t.rows[0], &in, why, sizeof why) == 0 && !strcmp(in.stack->name, "jax-xla-2023"));
    CHECK(!in.stack->flash_attention && !in.stack->fsdp_prefetch && in.stack->fp32_params && in.stack->remat_policies);
    CHECK(validate_row_input(&t, &t.rows[1], &in, why, sizeof why) == 0 && !strcmp(in.stack->name, "jax-xla"));
    CHECK(validate_row_input(&t, &t.rows[2], &in, why, sizeof why) == 0 && !strcmp(in.stack->name, "megatron-core"));
    CHECK(validate_row_input(&t, &t.rows[3], &in, why, sizeof why) == 0 && !strcmp(in.stack->name, "jax-xla"));
    /* the newest release a cell names is the one the run used, whatever the word order */
    CHECK(validate_row_input(&t, &t.rows[4], &in, why, sizeof why) == 0 && !strcmp(in.stack->name, "jax-xla"));
    /* a NeMo release beside a JAX row names nothing of its stack */
    CHECK(validate_row_input(&t, &t.rows[5], &in, why, sizeof why) == 0 && !strcmp(in.stack->name, "jax-xla-2023"));
    /* a source cell's prose names other software's releases: only an image tag (jax:YY.MM) counts */
    CHECK(validate_row_input(&t, &t.rows[6], &in, why, sizeof why) == 0 && !strcmp(in.stack->name, "jax-xla"));
    csv_free(&t);
    /* a row's node network (Gb/s a node: Jean Zay's 4 x 100 Gb/s Omni-Path) is read; a value that is
     * not one is a skip with its reason, not a silent default */
    static const char NET_ROWS[] =
        "id,framework,source,model_family,num_layers,hidden_size,num_attention_heads,vocab_size,seq_length,gpu_type,"
        "num_gpus,tp,pp,mbs,gbs,tokens_per_s_per_gpu,network_gbps\n"
        "a,Megatron-DeepSpeed,BLOOM,GPT-3,24,4096,32,51200,2048,A100 80GB,64,4,2,1,64,4000,400\n"
        "b,Megatron-DeepSpeed,BLOOM,GPT-3,24,4096,32,51200,2048,A100 80GB,64,4,2,1,64,4000,0.5\n"
        "c,Megatron-DeepSpeed,BLOOM,GPT-3,24,4096,32,51200,2048,A100 80GB,64,4,2,1,64,4000,\n";
    parse_rows(NET_ROWS, &t);
    CHECK(validate_row_input(&t, &t.rows[0], &in, why, sizeof why) == 0 && in.node_network_gbps == 400);
    CHECK(validate_row_input(&t, &t.rows[1], &in, why, sizeof why) == -1);
    CHECK_CONTAINS(why, "network_gbps 0.5");
    CHECK(validate_row_input(&t, &t.rows[2], &in, why, sizeof why) == 0 && in.node_network_gbps == 0);
    csv_free(&t);
    /* NeMo Megatron before 22.05 and Megatron-LM of 2021 all-reduce the gradients after the
     * backward (data/recipes.csv overlap_grad_sync 0: 22.05's release notes bring the
     * asynchronous all-reduce; Megatron-LM 2021 --DDP-impl local); 22.05 overlaps it */
    static const char ASYNC_ROWS[] =
        "id,framework,source,model_family,num_layers,hidden_size,num_attention_heads,vocab_size,seq_length,gpu_type,"
        "num_gpus,tp,pp,mbs,gbs,seq_parallel,tokens_per_s_per_gpu\n"
        "a,NeMo Megatron (NeMo Megatron 22.02/22.03),README,GPT-3,24,4096,32,51200,2048,A100 80GB,32,2,1,2,1440,n,4000\n"
        "b,NeMo Megatron (NeMo Megatron 22.05),README,GPT-3,24,4096,32,51200,2048,A100 80GB,32,2,1,2,1440,n,4000\n"
        "c,Megatron-LM (2021),arXiv:2104.04473,GPT-3,24,4096,32,51200,2048,A100 80GB,32,2,1,2,512,n,4000\n";
    parse_rows(ASYNC_ROWS, &t);
    CHECK(validate_row_input(&t, &t.rows[0], &in, why, sizeof why) == 0 && in.dp_overlap_off);
    {
        /* hand-computed: the whole all-reduce shows.  P = 24 layers x (6h^2 weights + 5.5h
         * biases + 4h norm) + V h / 2 + 2048 h + 2h = 2,530,107,392 fp32 gradients a rank at
         * TP 2 (h 4096, V 51200); 16 DP ranks, 4 of them a node on their 25 GB/s NICs: busbw
         * 100 GB/s at 0.8: 2 x 15/16 x 4 P / 80e9 = 0.23720 s, in one call (NeMo's 125 MiB chunks
         * come with the asynchronous all-reduce only), a ring over the 4 nodes paying NCCL Simple's
         * (8.4 + 22 x 3.4 + 8 x 14) x 1.4 (the ring's plateau) = 273.3 us: 0.23748 s; in the 78
         * chunks it would be 0.2585 s */
        est_result r;
        CHECK(est_evaluate(&in, &r) == 0);
        CHECK_NEAR(r.t_dp_comm, 0.23748, 5e-3);
        CHECK(r.t_dp_comm < 0.245);
        CHECK(fabs(r.t_dp_exposed - r.t_dp_comm) < 1e-9);
        CHECK(validate_row_input(&t, &t.rows[1], &in, why, sizeof why) == 0 && !in.dp_overlap_off);
        est_result r22;
        CHECK(est_evaluate(&in, &r22) == 0 && r22.t_dp_exposed < 0.5 * r22.t_dp_comm);
    }
    CHECK(validate_row_input(&t, &t.rows[2], &in, why, sizeof why) == 0 && in.dp_overlap_off);
    csv_free(&t);
    /* torchtitan's layer-level selective checkpointing (every second block whole) is full
     * recompute of half the blocks; its op-level one stays selective (the FSDP stack's op policy) */
    static const char SAC_ROWS[] =
        "id,framework,model,seq_length,gpu_type,num_gpus,fsdp,mbs,gbs,act_recompute,tokens_per_s_per_gpu\n"
        "a,torchtitan,Llama 3 8B,8192,A100 80GB,64,FULL_SHARD,1,64,selective layer,2904\n"
        "b,torchtitan,Llama 3 8B,8192,A100 80GB,64,FULL_SHARD,1,64,selective op,2973\n";
    parse_rows(SAC_ROWS, &t);
    CHECK(validate_row_input(&t, &t.rows[0], &in, why, sizeof why) == 0);
    CHECK(in.recompute == RECOMPUTE_FULL && in.recompute_layers == 16 && !strcmp(in.stack->name, "pytorch-fsdp2"));
    CHECK(validate_row_input(&t, &t.rows[1], &in, why, sizeof why) == 0);
    CHECK(in.recompute == RECOMPUTE_SELECTIVE && in.stack->selective_op_sac);
    csv_free(&t);
    /* rows that name their model and publish no shape: the name gives it; a published cell
     * (a proxy's layer count) is kept; a row whose width contradicts the name is not guessed */
    static const char NAMED_ROWS[] =
        "id,framework,model_family,model,num_layers,hidden_size,num_attention_heads,vocab_size,seq_length,gpu_type,"
        "num_gpus,tp,pp,ep,mbs,gbs,tokens_per_s_per_gpu\n"
        "a,torchtitan,,Llama 3 8B,,,,,8192,H100 SXM,8,1,1,,1,8,4000\n"
        "b,NeMo,Grok-1 MoE (314B; arch not in table),Grok-1 314B (MoE) 314B (proxy: 4 layers),4,,,,4096,H100 SXM,32,4,1,8,1,1024,4000\n"
        "c,NeMo,,MPT-7B,,5120,,,2048,H100 SXM,8,1,1,,1,8,4000\n";
    parse_rows(NAMED_ROWS, &t);
    CHECK(validate_row_input(&t, &t.rows[0], &in, why, sizeof why) == 0);
    CHECK(in.shape.num_layers == 32 && in.shape.query_groups == 8 && in.shape.vocab == 128256 && in.shape.gated_mlp);
    CHECK(validate_row_input(&t, &t.rows[1], &in, why, sizeof why) == 0);
    CHECK(in.shape.num_layers == 4 && in.shape.hidden == 6144 && in.shape.num_experts == 8 && in.shape.moe_topk == 2);
    CHECK(validate_row_input(&t, &t.rows[2], &in, why, sizeof why) == -1);
    CHECK(strstr(why, "model shape missing") != NULL);
    csv_free(&t);
    /* LoRA fine-tuning: frozen base weights and rank-32 adapters (Megatron-Bridge's default dim) */
    static const char LORA[] =
        "id,task,model_family,num_layers,hidden_size,num_attention_heads,vocab_size,seq_length,gpu_type,num_gpus,tp,pp,"
        "mbs,gbs,tokens_per_s_per_gpu,lora_rank\n"
        "a,LoRA,Llama,32,4096,32,32000,4096,H100 SXM,8,1,1,1,8,4000,\n"
        "b,PEFT (LoRA),Llama,32,4096,32,32000,4096,H100 SXM,8,1,1,1,8,4000,8\n"
        "c,SFT,Llama,32,4096,32,32000,4096,H100 SXM,8,1,1,1,8,4000,\n";
    parse_rows(LORA, &t);
    CHECK(validate_row_input(&t, &t.rows[0], &in, why, sizeof why) == 0 && in.lora_rank == 32);
    CHECK(validate_row_input(&t, &t.rows[1], &in, why, sizeof why) == 0 && in.lora_rank == 8);
    CHECK(validate_row_input(&t, &t.rows[2], &in, why, sizeof why) == 0 && in.lora_rank == 0);
    csv_free(&t);
    /* MBS from a published gradient accumulation: 64 / (8 · 2) = 4 */
    static const char GA[] =
        "id,model_family,num_layers,hidden_size,num_attention_heads,vocab_size,seq_length,gpu_type,num_gpus,tp,pp,mbs,"
        "gbs,grad_accum,tokens_per_s_per_gpu\n"
        "a,GPT-3,24,4096,32,51200,2048,H100 SXM,8,1,1,,64,2,4000\n";
    parse_rows(GA, &t);
    CHECK(validate_row_input(&t, &t.rows[0], &in, why, sizeof why) == 0 && in.mbs == 4);
    csv_free(&t);
}

/* the framework column names the stack */
static void test_framework_stacks(void)
{
    static const struct {
        const char *cell, *stack;
    } cases[] = {
        {"NeMo Megatron (NeMo Megatron 22.05)", "nemo-megatron-2022"},
        {"Megatron-Bridge (Megatron-Core)", "megatron-core"},
        {"NeMo 2.0 / Megatron-Core", "megatron-core"},
        {"HF Transformers + DeepSpeed ZeRO-3", "hf-deepspeed"},
        {"torchtitan (FSDP2)", "pytorch-fsdp2"},
        {"KempnerForge (PyTorch FSDP2 + DTensor TP)", "pytorch-fsdp2"},
        {"OLMo-core (PyTorch FSDP, torch.compile)", "pytorch-fsdp2"},
        {"torchtune", "pytorch-fsdp2"},
        {"HF Trainer + FSDP", "pytorch-fsdp"},
        {"IBM fms-fsdp (PyTorch FSDP, SDPA flash attention)", "pytorch-fsdp"},
        {"MosaicML Composer", "llm-foundry-2023"},
        {"Composer (llm-foundry)", "llm-foundry-2023"},
        {"TRL + PEFT", "hf-deepspeed"},
        {"hf-deepspeed", "hf-deepspeed"},
        {"", "megatron-core"},
        {"MaxText/JAX", "jax-xla"},
        {"Paxml/JAX", "jax-xla"},
        {"MaxText 25.01", "jax-xla"},
        {"NVIDIA JAX-Toolbox (Levanter)", "jax-xla"},
        {"Megatron-DeepSpeed (2021)", "megatron-deepspeed"},
        {"Megatron DeepSpeed / BLOOM", "megatron-deepspeed"},
        {"GPT-NeoX (Megatron + DeepSpeed)", "megatron-deepspeed"},
        {"OLMo (PyTorch)", "pytorch-fsdp"},
        {"Meta Llama 3 training stack (PyTorch FSDP + TP/CP/PP)", "meta-llama3"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const est_stack *st = validate_stack_of(cases[i].cell);
        if (!st || strcmp(st->name, cases[i].stack)) printf("  framework '%s' -> %s\n", cases[i].cell, st ? st->name : "NULL");
        CHECK(st && !strcmp(st->name, cases[i].stack));
    }
}

/* Megatron-LM's flags as a run's scripts state them: --tp-comm-overlap (off unless stated; the
 * stack's recipes overlap) and --no-gradient-accumulation-fusion (each micro-batch's weight
 * gradient accumulated into the fp32 main gradient in a pass of its own: 12 B a parameter) */
static void test_megatron_flag_columns(void)
{
    static const char CSV[] =
        "id,framework,model,num_layers,hidden_size,num_attention_heads,vocab_size,seq_length,gpu_type,num_gpus,tp,pp,mbs,gbs,"
        "precision,act_recompute,tp_comm_overlap,gradient_accumulation_fusion,tokens_per_s_per_gpu\n"
        "a,Megatron-LM (2023),GPT-3,24,4096,32,51200,2048,H100 SXM,8,2,1,1,64,bf16,none,,,4000\n"
        "b,Megatron-LM (2023),GPT-3,24,4096,32,51200,2048,H100 SXM,8,2,1,1,64,bf16,none,false,no,4000\n"
        "c,NeMo Megatron (22.05),GPT-3,24,4096,32,51200,2048,A100 80GB,8,2,1,1,64,bf16,none,,,4000\n"
        "d,NeMo Megatron (22.05),GPT-3,24,4096,32,51200,2048,A100 80GB,8,2,1,1,64,bf16,none,,false,4000\n";
    csv_table t;
    parse_rows(CSV, &t);
    est_input in;
    char why[256];
    est_result fused, unfused;
    CHECK(validate_row_input(&t, &t.rows[0], &in, why, sizeof why) == 0);
    CHECK(in.tp_comm_overlap && !in.grad_accum_unfused);
    CHECK(est_evaluate(&in, &fused) == 0);
    CHECK(validate_row_input(&t, &t.rows[1], &in, why, sizeof why) == 0);
    CHECK(!in.tp_comm_overlap && in.grad_accum_unfused);
    in.tp_comm_overlap = true; /* the accumulation's pass alone */
    CHECK(est_evaluate(&in, &unfused) == 0);
    /* 16 micro-batches (GBS 64 over DP 4), the stage's half of the parameters at TP 2 */
    double P = fused.params_b * 1e9 / 2.0, hbm = 0.85 * 3350e9;
    CHECK(fabs((unfused.step_time - fused.step_time) / (16.0 * 12.0 * P / hbm) - 1.0) < 0.02);
    /* NeMo 1.x accumulates unfused already (its stack's 12 B): the column adds nothing */
    est_result nemo, nemo_unfused;
    CHECK(validate_row_input(&t, &t.rows[2], &in, why, sizeof why) == 0);
    CHECK(est_evaluate(&in, &nemo) == 0);
    CHECK(validate_row_input(&t, &t.rows[3], &in, why, sizeof why) == 0);
    CHECK(in.grad_accum_unfused && est_evaluate(&in, &nemo_unfused) == 0);
    CHECK_NEAR(nemo_unfused.step_time, nemo.step_time, 1e-12);
    csv_free(&t);
}

/* a phrase named, denied (before or after it) or absent */
static void test_named_phrases(void)
{
    static const char *const W[] = {"torch.compile", "torch_compile", NULL};
    CHECK_INT(spell_named("FSDP2 + torch.compile", W), 1);
    CHECK_INT(spell_named("TORCH_COMPILE=1", W), 1);
    CHECK_INT(spell_named("no torch.compile", W), -1);
    CHECK_INT(spell_named("without torch_compile", W), -1);
    CHECK_INT(spell_named("torch.compile not stated", W), -1);
    CHECK_INT(spell_named("torch.compile: off", W), -1);
    CHECK_INT(spell_named("compiled with torch.compile, not FSDP1", W), 1);
    CHECK_INT(spell_named("torch.compile (disabled)", W), -1);
    CHECK_INT(spell_named("FSDP2 + torch.compile (no activation checkpointing)", W), 1);
    CHECK_INT(spell_named("torch.compile offloading the optimizer", W), 1);
    CHECK_INT(spell_named("torch.compile not-stated", W), -1);
    CHECK_INT(spell_named("eager", W), 0);
    CHECK_INT(spell_named("", W), 0);
}

/* torch.compile as tables write it: the framework cell or the notes name it, or a torch_compile
 * column says so; GPUs by their own spelling (the 96 GB HBM2e H100 at 500 W of torchtitan's tables) */
static void test_compile_and_gpu_spellings(void)
{
    static const char CSV[] =
        "id,framework,model,seq_length,gpu_type,num_gpus,tp,pp,fsdp,mbs,gbs,precision,act_recompute,notes,torch_compile,tokens_per_s_per_gpu\n"
        "a,torchtitan,Llama 3.1 8B,8192,H100 SXM 96GB HBM2e (500 W),8,1,1,FULL_SHARD,2,16,bf16,selective op,,,5762\n"
        "b,torchtitan (FSDP + torch.compile),Llama 3.1 8B,8192,H100 SXM 96GB HBM2e (500 W),8,1,1,FULL_SHARD,2,16,bf16,selective op,,,6667\n"
        "c,torchtitan,Llama 3.1 8B,8192,H100 SXM,8,1,1,FULL_SHARD,2,16,bf16,selective op,FSDP + torch.compile,,6667\n"
        "d,torchtitan,Llama 3.1 8B,8192,H100 SXM,8,1,1,FULL_SHARD,2,16,bf16,selective op,torch.compile,n,6667\n"
        "e,torchtitan,Llama 3.1 70B,8192,H100 SXM,256,8,1,FULL_SHARD,16,512,fp8,full,,y,829\n";
    csv_table t;
    parse_rows(CSV, &t);
    est_input in;
    char why[256];
    CHECK(validate_row_input(&t, &t.rows[0], &in, why, sizeof why) == 0);
    CHECK(!in.torch_compile && !strcmp(in.gpu->name, "h100_sxm_hbm2e") && !strcmp(in.stack->name, "pytorch-fsdp2"));
    CHECK(validate_row_input(&t, &t.rows[1], &in, why, sizeof why) == 0);
    CHECK(in.torch_compile);
    CHECK(validate_row_input(&t, &t.rows[2], &in, why, sizeof why) == 0);
    CHECK(in.torch_compile && !strcmp(in.gpu->name, "h100_sxm"));
    CHECK(validate_row_input(&t, &t.rows[3], &in, why, sizeof why) == 0);
    CHECK(!in.torch_compile); /* the row's own cell wins over its notes */
    /* torchtitan's TP plan keeps the residual stream sequence-sharded: sequence parallel with TP */
    CHECK(validate_row_input(&t, &t.rows[4], &in, why, sizeof why) == 0);
    CHECK(in.torch_compile && in.tp == 8 && in.sequence_parallel);
    csv_free(&t);
}

/* TensorRT-LLM releases before 0.7 (GQA decode without KV sharing) by the version after the
 * engine's name, not any "0.5" or "0.6" in the cell */
static void test_trtllm_release(void)
{
    static const struct {
        const char *cell;
        bool before;
    } cases[] = {
        {"TensorRT-LLM (v0.5.0, TensorRT 9.1.0.4; static batch)", true},
        {"TensorRT-LLM (v0.6.1, gptSessionBenchmark: one static batch of identical requests)", true},
        {"TensorRT-LLM (v0.5, gptSessionBenchmark with one output token)", true},
        {"TensorRT-LLM 0.6", true},
        {"TensorRT-LLM (v0.7.1, batch 0.5 s)", false},
        {"TensorRT-LLM (v0.10.0, TensorRT 10.0.6)", false},
        {"TensorRT-LLM (v0.12, CUDA 12.0.5)", false},
        {"TensorRT-LLM (NVIDIA NIM 1.0.6 container)", false},
        {"TensorRT-LLM (PyTorch backend, trtllm-bench throughput, 0.5 s warm-up)", false},
        {"TensorRT-LLM 1.0.5", false},
        {"vLLM 0.5.4", false},
        {"", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        bool got = infer_engine_before_xqa(cases[i].cell);
        if (got != cases[i].before) printf("  '%s' -> %d\n", cases[i].cell, got);
        CHECK(got == cases[i].before);
    }
}

int main(void)
{
    RUN(test_precision_spellings);
    RUN(test_trtllm_release);
    RUN(test_bool_spellings);
    RUN(test_memory_spellings);
    RUN(test_zero_spellings);
    RUN(test_recompute_spellings);
    RUN(test_blank_and_numbers);
    RUN(test_flops_formula_spellings);
    RUN(test_rows_as_tables_write_them);
    RUN(test_framework_stacks);
    RUN(test_compile_and_gpu_spellings);
    RUN(test_megatron_flag_columns);
    RUN(test_named_phrases);
    CHECK_DONE();
}
