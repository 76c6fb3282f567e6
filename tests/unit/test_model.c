/* test_model.c — size recommendation, architecture by size, parameter counts
 * and base config generation, against the original's documented behaviour and
 * its unit-test expectations (reference §2, §3, §9). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "config/cfg.h"
#include "config/yaml_io.h"
#include "model/arch.h"
#include "model/basecfg.h"
#include "model/size.h"

static model_shape shape(model_arch a, int seq, int h, int L, int F, int A, int kv, int V)
{
    model_shape s = { 0 };
    s.arch = a;
    s.seq_length = seq;
    s.hidden = h;
    s.num_layers = L;
    s.ffn_hidden = F;
    s.heads = A;
    s.query_groups = A;
    s.kv_channels = kv;
    s.vocab = V;
    return s;
}

/* §9.1: the original's _calculate_model_size, actual values to 1e-5 relative */
static void test_param_counts(void)
{
    struct { family_id f; int seq, h, L, F, A, kv, V; double actual; } cases[] = {
        { FAM_GPT3, 2048, 768, 12, 3072, 12, 0, 51200, 0.125949 },
        { FAM_GPT3, 4096, 1536, 26, 6144, 16, 0, 51200, 0.821554 },
        { FAM_GPT3, 2048, 4096, 24, 16384, 32, 0, 51200, 5.051220 },
        { FAM_GPT3, 2048, 12288, 96, 49152, 96, 0, 51200, 174.615822 },
        { FAM_T5, 512, 768, 12, 2048, 12, 64, 29000, 0.221143 },
        { FAM_T5, 512, 6144, 48, 10880, 96, 64, 29000, 41.185106 },
        { FAM_MT5, 512, 512, 8, 1024, 6, 64, 250000, 0.172423 },
        { FAM_MT5, 512, 6144, 48, 10880, 96, 64, 250000, 42.542930 },
        { FAM_BERT, 512, 768, 12, 3072, 12, 0, 30522, 0.109786 },
        { FAM_BERT, 512, 9216, 96, 36864, 96, 0, 30522, 98.479365 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        model_shape s = shape(ARCH_DECODER, cases[i].seq, cases[i].h, cases[i].L, cases[i].F, cases[i].A, cases[i].kv, cases[i].V);
        CHECK_NEAR(model_param_count_b(cases[i].f, &s), cases[i].actual, 1e-5);
    }
    /* ours: Llama-2-7B is 6.74 B and Mixtral-8x7B 46.7 B as released */
    model_shape l = shape(ARCH_DECODER, 4096, 4096, 32, 11008, 32, 128, 32000);
    l.untied_embeddings = true;
    CHECK_NEAR(model_param_count_b(FAM_LLAMA, &l), 6.738, 0.001);
    model_shape m = shape(ARCH_DECODER, 4096, 4096, 32, 14336, 32, 128, 32000);
    m.query_groups = 8;
    m.untied_embeddings = true;
    m.num_experts = 8;
    m.moe_topk = 2;
    m.moe_ffn_hidden = 14336;
    CHECK_NEAR(model_param_count_b(FAM_MIXTRAL, &m), 46.70, 0.002);
}

/* §9.1 calculate_model_size_params: exact (L, h, A, F, kv, lr) */
static void test_arch_for_size(void)
{
    struct { family_id f; double size; int V, seq, L, h, A, F, kv; double lr; } cases[] = {
        { FAM_GPT3, 0.126, 51200, 2048, 12, 768, 12, 0, 0, 6e-4 },
        { FAM_GPT3, 0.843, 51200, 4096, 26, 1536, 16, 0, 0, 2.5e-4 },
        { FAM_GPT3, 2.0, 51200, 4096, 24, 2560, 32, 0, 0, 1.6e-4 },
        { FAM_GPT3, 5.0, 51200, 2048, 24, 4096, 32, 0, 0, 1.2e-4 },
        { FAM_GPT3, 8.0, 51200, 2048, 24, 5120, 40, 0, 0, 1e-4 },
        { FAM_GPT3, 20.0, 51200, 2048, 44, 6144, 48, 0, 0, 1e-4 },
        { FAM_GPT3, 43.0, 51200, 2048, 52, 8192, 64, 0, 0, 0.8e-4 },
        { FAM_GPT3, 175.0, 51200, 2048, 96, 12288, 96, 0, 0, 0.6e-4 },
        { FAM_T5, 0.22, 29000, 512, 12, 768, 12, 2048, 64, 1e-4 },
        { FAM_T5, 2.8, 29000, 512, 24, 2048, 32, 5120, 64, 1e-4 },
        { FAM_T5, 11.0, 29000, 512, 24, 4096, 64, 10240, 64, 1e-4 },
        { FAM_T5, 23.5, 29000, 512, 36, 5120, 80, 10880, 64, 1e-4 },
        { FAM_T5, 41.2, 29000, 512, 48, 6144, 96, 10880, 64, 1e-4 },
        { FAM_MT5, 0.17, 250000, 512, 8, 512, 6, 1024, 64, 1e-4 },
        { FAM_MT5, 0.39, 250000, 512, 12, 768, 12, 2048, 64, 1e-4 },
        { FAM_MT5, 3.2, 250000, 512, 24, 2048, 32, 5120, 64, 1e-4 },
        { FAM_MT5, 11.9, 250000, 512, 24, 4096, 64, 10240, 64, 1e-4 },
        { FAM_MT5, 24.65, 250000, 512, 36, 5120, 80, 10880, 64, 1e-4 },
        { FAM_MT5, 42.65, 250000, 512, 48, 6144, 96, 10880, 64, 1e-4 },
        { FAM_BERT, 0.11, 30522, 512, 12, 768, 12, 3072, 0, 2e-4 },
        { FAM_BERT, 4.0, 30522, 512, 48, 2560, 32, 10240, 0, 1e-4 },
        { FAM_BERT, 20.0, 30522, 512, 44, 6144, 48, 24576, 0, 1e-4 },
        { FAM_BERT, 100.0, 30522, 512, 96, 9216, 96, 36864, 0, 1e-4 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        model_arch_choice ch;
        ac_err e;
        int rc = model_arch_for_size(cases[i].f, cases[i].size, cases[i].V, cases[i].seq, &ch, &e);
        CHECK(rc == 0);
        if (rc != 0) { printf("  case %zu: %s\n", i, e.msg); continue; }
        CHECK_INT(ch.shape.num_layers, cases[i].L);
        CHECK_INT(ch.shape.hidden, cases[i].h);
        CHECK_INT(ch.shape.heads, cases[i].A);
        if (cases[i].F) CHECK_INT(ch.shape.ffn_hidden, cases[i].F);
        if (cases[i].kv) CHECK_INT(ch.shape.kv_channels, cases[i].kv);
        CHECK(ch.lr == cases[i].lr);
        CHECK(ch.ffn_given == (cases[i].F != 0));
    }
    model_arch_choice ch;
    ac_err e;
    CHECK(model_arch_for_size(FAM_GPT3, 1200, 51200, 2048, &ch, &e) != 0);
    CHECK_CONTAINS(e.msg, "no architecture for 1200 B");
}

/* sizes between presets land within the §3.5 margins */
static void test_between_presets(void)
{
    static const struct { family_id f; int V, seq; } fams[] = {
        { FAM_GPT3, 51200, 2048 }, { FAM_T5, 29000, 512 }, { FAM_MT5, 250000, 512 }, { FAM_BERT, 30522, 512 },
        { FAM_LLAMA, 32000, 4096 }, { FAM_MIXTRAL, 32000, 4096 },
    };
    static const double sizes[] = { 0.3, 1.3, 3.7, 6.5, 12.9, 30, 60, 130 };
    for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++) {
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            if (fams[f].f == FAM_MIXTRAL && sizes[i] < 30) continue; /* 8 experts of 4096 width start near 47 B */
            model_arch_choice ch;
            ac_err e;
            int rc = model_arch_for_size(fams[f].f, sizes[i], fams[f].V, fams[f].seq, &ch, &e);
            if (rc != 0) { printf("  family %zu size %g: %s\n", f, sizes[i], e.msg); CHECK(rc == 0); continue; }
            double p = model_param_count_b(fams[f].f, &ch.shape);
            /* the widest margin the search tries is 10 % (pass 1 and 5) */
            if (fabs(p - sizes[i]) > 0.10 * sizes[i] + 1e-9) printf("  family %zu size %g → %g B\n", f, sizes[i], p);
            CHECK(fabs(p - sizes[i]) <= 0.10 * sizes[i] + 1e-9);
            CHECK(ch.shape.hidden % ch.shape.heads == 0);
        }
    }
}

/* §9.2: _estimate_model_size and _estimate_training_time */
static void test_size_and_days(void)
{
    const model_family *t5 = model_family_find("t5"), *gpt = model_family_find("gpt3"), *mt5 = model_family_find("mt5"),
                       *bert = model_family_find("bert");
    model_size_report r;
    ac_err e;
    struct { double days; int gpus; double expect; } t5_sizes[] = {
        { 10, 32, 0.48 }, { 10, 64, 0.97 }, { 15, 64, 1.45 }, { 15, 160, 3.63 }, { 20, 256, 7.74 }, { 30, 640, 29.03 }, { 50, 640, 48.38 },
    };
    for (size_t i = 0; i < sizeof t5_sizes / sizeof t5_sizes[0]; i++) {
        CHECK(model_recommend_size(t5, t5_sizes[i].days, t5_sizes[i].gpus, 140, 1000, &r, &e) == 0);
        CHECK(r.size_b == t5_sizes[i].expect); /* exact: both are round2 of the same double */
    }
    struct { const model_family *f; double size; int gpus; double tokens, expect; } days[] = {
        { gpt, 0.126, 64, 300, 0.39 }, { gpt, 0.843, 64, 300, 2.61 }, { gpt, 5, 160, 300, 6.2 }, { gpt, 175, 1024, 300, 33.91 },
        { t5, 11, 160, 1000, 45.47 }, { mt5, 0.17, 32, 1000, 4.04 }, { mt5, 42.54, 320, 1000, 101.11 },
        { bert, 4, 128, 300, 6.2 }, { bert, 20, 512, 300, 7.75 },
    };
    for (size_t i = 0; i < sizeof days / sizeof days[0]; i++) {
        CHECK(model_training_days(days[i].f, days[i].size, days[i].gpus, 140, days[i].tokens, &r, &e) == 0);
        CHECK_NEAR(r.days, days[i].expect, 1e-9);
    }
    /* mT5's 0.87 penalty on recommended sizes */
    CHECK(model_recommend_size(mt5, 10, 32, 140, 1000, &r, &e) == 0);
    CHECK_NEAR(r.size_b, model_round2(0.87 * 10 * 86400.0 * 32 * 140e12 / (8 * 1e12) / 1e9), 1e-12);
    /* the compute-optimal second opinion: C = 6 N (20 N) */
    CHECK_NEAR(6.0 * (r.optimal_size_b * 1e9) * (r.optimal_tokens_b * 1e9), r.flops_budget, 1e-9);
    CHECK(model_recommend_size(gpt, 10, 0, 140, 300, &r, &e) != 0);
    CHECK_CONTAINS(e.msg, "must be positive");
}

/* §9.3 _calculate_gbs_tp_pp (80 GB) plus the 40 GB quirk we fix */
static void test_gbs_tp_pp(void)
{
    struct { family_id f; double size; int seq, mem, gbs, tp, pp; } cases[] = {
        { FAM_GPT3, 0.126, 2048, 80, 256, 1, 1 }, { FAM_GPT3, 3.0, 2048, 80, 1024, 1, 1 }, { FAM_GPT3, 5.0, 2048, 80, 2048, 2, 1 },
        { FAM_GPT3, 10.0, 2048, 80, 2048, 4, 1 }, { FAM_GPT3, 20.0, 2048, 80, 2048, 8, 1 }, { FAM_GPT3, 40.0, 2048, 80, 2048, 8, 2 },
        { FAM_GPT3, 80.0, 2048, 80, 2048, 8, 4 }, { FAM_GPT3, 175.0, 2048, 80, 2048, 8, 8 }, { FAM_GPT3, 300.0, 2048, 80, 2048, 8, 16 },
        { FAM_GPT3, 600.0, 2048, 80, 2048, 8, 32 }, { FAM_GPT3, 1000.0, 2048, 80, 2048, 8, 64 },
        { FAM_T5, 0.5, 512, 80, 2048, 1, 1 }, { FAM_T5, 3.0, 512, 80, 1920, 2, 1 }, { FAM_T5, 6.0, 512, 80, 1920, 4, 1 },
        { FAM_T5, 13.0, 512, 80, 1920, 8, 1 }, { FAM_T5, 20.0, 512, 80, 1920, 8, 2 }, { FAM_T5, 40.0, 512, 80, 1920, 8, 4 },
        { FAM_MT5, 0.5, 512, 80, 2048, 1, 1 }, { FAM_MT5, 40.0, 512, 80, 1920, 8, 4 },
        { FAM_BERT, 0.11, 512, 80, 256, 1, 1 }, { FAM_BERT, 3.0, 512, 80, 1024, 1, 1 }, { FAM_BERT, 6.0, 512, 80, 2048, 2, 1 },
        { FAM_BERT, 13.0, 512, 80, 2048, 4, 1 }, { FAM_BERT, 20.0, 512, 80, 2048, 8, 1 },
        { FAM_T5, 0.3, 512, 40, 2048, 1, 1 }, /* quirk 1 fixed: the original gave TP 2 */
        { FAM_GPT3, 5.0, 2048, 40, 2048, 8, 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int gbs, tp, pp;
        ac_err e;
        CHECK(model_gbs_tp_pp(cases[i].f, cases[i].size, cases[i].seq, cases[i].mem, &gbs, &tp, &pp, &e) == 0);
        CHECK_INT(gbs, cases[i].gbs);
        CHECK_INT(tp, cases[i].tp);
        CHECK_INT(pp, cases[i].pp);
    }
    int gbs, tp, pp;
    ac_err e;
    CHECK(model_gbs_tp_pp(FAM_GPT3, 5.0, 3000, 80, &gbs, &tp, &pp, &e) != 0);
    CHECK_CONTAINS(e.msg, "available: 2048, 4096, 8192, 16384, 32768");
    CHECK(model_gbs_tp_pp(FAM_GPT3, 60.0, 4096, 80, &gbs, &tp, &pp, &e) != 0);
}

static void test_time_texts(void)
{
    char b[32];
    model_time_limit_text(6.5, b, sizeof b); CHECK_STR(b, "6-12:00:00");
    model_time_limit_text(90.25, b, sizeof b); CHECK_STR(b, "90-06:00:00");
    model_max_time_text(2, b, sizeof b); CHECK_STR(b, "1:23:30:00");
    model_max_time_text(6.5, b, sizeof b); CHECK_STR(b, "6:11:30:00");
    model_max_time_text(25.75, b, sizeof b); CHECK_STR(b, "25:17:30:00");
    model_size_text(5, b, sizeof b); CHECK_STR(b, "5");
    model_size_text(0.126, b, sizeof b); CHECK_STR(b, "0.126");
    model_size_text(12.9, b, sizeof b); CHECK_STR(b, "12.9");
}

static int load_cfg(const char *preset, const char *extra, ac_config *c)
{
    char a[80];
    snprintf(a, sizeof a, "search_config=%s", preset);
    char *ov[2] = { a, (char *)extra };
    ac_err e;
    int rc = cfg_load("conf", extra ? 2 : 1, ov, c, &e);
    if (rc) printf("  %s: %s\n", preset, e.msg);
    return rc;
}

static long long int_at(const node *n, const char *path)
{
    long long v = -1;
    node_get_int(node_get_path(n, path), &v);
    return v;
}

/* base configs of every family, checked field by field against §3.1 rules */
static void test_base_configs(void)
{
    ac_config c;
    model_base_config b;
    ac_err e;
    /* GPT-3 5B: 300 B tokens / (2048 × 2048) steps; sched fractions; SP off ≤ 13 B */
    CHECK(load_cfg("gpt3/5b", NULL, &c) == 0);
    CHECK(model_base_config_build(&c, 5, &b, &e) == 0);
    CHECK_STR(node_text(node_get_path(b.cfg, "run.name")), "gpt3_5b");
    CHECK_STR(node_text(node_get_path(b.cfg, "run.time_limit")), "5-00:00:00");
    CHECK_STR(node_text(node_get_path(b.cfg, "trainer.max_time")), "4:23:30:00");
    CHECK_INT(int_at(b.cfg, "trainer.max_steps"), 71525); /* int(300e9 / (2048·2048)) */
    CHECK_INT(int_at(b.cfg, "trainer.num_nodes"), 16);
    CHECK_INT(int_at(b.cfg, "model.num_layers"), 24);
    CHECK_INT(int_at(b.cfg, "model.hidden_size"), 4096);
    CHECK_INT(int_at(b.cfg, "model.global_batch_size"), 2048);
    CHECK_INT(int_at(b.cfg, "model.tensor_model_parallel_size"), 2);
    CHECK_INT(int_at(b.cfg, "model.optim.sched.warmup_steps"), 107);   /* int(0.0015·71525) */
    CHECK_INT(int_at(b.cfg, "model.optim.sched.constant_steps"), 11873); /* int(0.166·71525) */
    CHECK_STR(node_text(node_get_path(b.cfg, "model.sequence_parallel")), "false");
    double d;
    CHECK(node_get_double(node_get_path(b.cfg, "model.init_method_std"), &d) && d == 0.01); /* round(0.64/64, 6) */
    CHECK(node_get_double(node_get_path(b.cfg, "model.optim.sched.min_lr"), &d) && fabs(d - 1.2e-5) < 1e-15);
    CHECK_STR(node_text(node_get_path(b.cfg, "model.ffn_hidden_size")), "${multiply:4, ${.hidden_size}}");
    CHECK(node_get_path(b.cfg, "exp_manager.create_wandb_logger") && strcmp(node_text(node_get_path(b.cfg, "exp_manager.create_wandb_logger")), "true"));
    model_base_config_free(&b);
    cfg_free(&c);

    /* wandb and 175B (SP stays on above 13 B) */
    CHECK(load_cfg("gpt3/175b", "wandb.enable=true", &c) == 0);
    CHECK(model_base_config_build(&c, 175, &b, &e) == 0);
    CHECK_STR(node_text(node_get_path(b.cfg, "exp_manager.create_wandb_logger")), "true");
    CHECK_STR(node_text(node_get_path(b.cfg, "exp_manager.wandb_logger_kwargs.project")), "nemo-megatron-autoconfig");
    CHECK(strcmp(node_text(node_get_path(b.cfg, "model.sequence_parallel")), "false") != 0);
    CHECK_INT(int_at(b.cfg, "model.pipeline_model_parallel_size"), 8);
    CHECK_STR(node_text(node_get_path(b.cfg, "run.time_limit")), "10-00:00:00");
    model_base_config_free(&b);
    cfg_free(&c);

    /* T5 11B: both stacks, init std 0.015, warmup ratio */
    CHECK(load_cfg("t5/11b", NULL, &c) == 0);
    CHECK(model_base_config_build(&c, 11, &b, &e) == 0);
    CHECK_INT(int_at(b.cfg, "model.encoder.num_layers"), 24);
    CHECK_INT(int_at(b.cfg, "model.decoder.num_layers"), 24);
    CHECK_INT(int_at(b.cfg, "model.decoder.ffn_hidden_size"), 10240);
    CHECK_INT(int_at(b.cfg, "model.encoder.kv_channels"), 64);
    /* each stack's init std (NeMo's T5 reads no top-level one: the original's key is moved) */
    CHECK(node_get_double(node_get_path(b.cfg, "model.encoder.init_method_std"), &d) && d == 0.015);
    CHECK(node_get_double(node_get_path(b.cfg, "model.decoder.init_method_std"), &d) && d == 0.015);
    CHECK(node_get_path(b.cfg, "model.init_method_std") == NULL);
    CHECK(node_get_double(node_get_path(b.cfg, "model.optim.sched.warmup_ratio"), &d) && d == 0.01);
    CHECK_INT(int_at(b.cfg, "model.global_batch_size"), 1920);
    CHECK_INT(int_at(b.cfg, "trainer.max_steps"), (long long)(1000e9 / (512.0 * 1920)));
    CHECK_STR(node_text(node_get_path(b.cfg, "run.time_limit")), "45-00:00:00");
    model_base_config_free(&b);
    cfg_free(&c);

    /* BERT 4B: ffn written as 4h, no seq fields touched */
    CHECK(load_cfg("bert/4b", NULL, &c) == 0);
    CHECK(model_base_config_build(&c, 4, &b, &e) == 0);
    CHECK_INT(int_at(b.cfg, "model.ffn_hidden_size"), 4 * 2560);
    CHECK_INT(int_at(b.cfg, "model.num_layers"), 48);
    model_base_config_free(&b);
    cfg_free(&c);

    /* Llama-2-70B from the built-in architecture: GQA, RoPE base, 4M-token batch */
    CHECK(load_cfg("llama/llama2_70b", NULL, &c) == 0);
    CHECK(model_base_config_build(&c, 70, &b, &e) == 0);
    CHECK_INT(int_at(b.cfg, "model.num_layers"), 80);
    CHECK_INT(int_at(b.cfg, "model.num_query_groups"), 8);
    CHECK_INT(int_at(b.cfg, "model.ffn_hidden_size"), 28672);
    CHECK(node_get_double(node_get_path(b.cfg, "model.rotary_base"), &d) && d == 10000.0);
    CHECK_INT(int_at(b.cfg, "model.global_batch_size"), 1024); /* 4194304 / 4096 */
    CHECK_NEAR(b.param_b, 68.98, 0.002);
    model_base_config_free(&b);
    cfg_free(&c);

    /* Mixtral 8x7B */
    CHECK(load_cfg("mixtral/mixtral_8x7b", NULL, &c) == 0);
    CHECK(model_base_config_build(&c, 46.7, &b, &e) == 0);
    CHECK_INT(int_at(b.cfg, "model.num_moe_experts"), 8);
    CHECK_INT(int_at(b.cfg, "model.moe_router_topk"), 2);
    CHECK_NEAR(b.param_b, 46.70, 0.002);
    /* as the NeMo launcher's mixtral_8x7b.yaml: GBS 256, 32k positions, init std 0.02, fused wgrad */
    CHECK_INT(int_at(b.cfg, "model.global_batch_size"), 256);
    CHECK_INT(int_at(b.cfg, "model.max_position_embeddings"), 32768);
    CHECK(node_get_double(node_get_path(b.cfg, "model.init_method_std"), &d) && d == 0.02);
    bool fused = false;
    CHECK(node_get_bool(node_get_path(b.cfg, "model.gradient_accumulation_fusion"), &fused) && fused);
    model_base_config_free(&b);
    cfg_free(&c);

    /* Mixtral 8x22B names its own tokenizer, not 8x7B's */
    CHECK(load_cfg("mixtral/mixtral_8x22b", NULL, &c) == 0);
    CHECK(model_base_config_build(&c, 140.6, &b, &e) == 0);
    CHECK_STR(node_text(node_get_path(b.cfg, "model.tokenizer.type")), "mistral-community/Mixtral-8x22B-v0.1");
    model_base_config_free(&b);
    cfg_free(&c);

    /* Llama 3: the Hugging Face tokenizer (128,256 entries), never a SentencePiece model; 70B
     * with sequence parallelism as the launcher's llama3_70b.yaml, 8B without */
    CHECK(load_cfg("llama/llama3_70b", NULL, &c) == 0);
    CHECK(model_base_config_build(&c, 70, &b, &e) == 0);
    CHECK_STR(node_text(node_get_path(b.cfg, "model.tokenizer.library")), "huggingface");
    CHECK_STR(node_text(node_get_path(b.cfg, "model.tokenizer.type")), "meta-llama/Meta-Llama-3-70B");
    CHECK(node_get_path(b.cfg, "model.tokenizer.model") == NULL);
    bool sp = false;
    CHECK(node_get_bool(node_get_path(b.cfg, "model.sequence_parallel"), &sp) && sp);
    CHECK(node_get_double(node_get_path(b.cfg, "model.init_method_std"), &d) && d == 0.008944);
    model_base_config_free(&b);
    cfg_free(&c);
    CHECK(load_cfg("llama/llama3_8b", NULL, &c) == 0);
    CHECK(model_base_config_build(&c, 8, &b, &e) == 0);
    CHECK(node_get_bool(node_get_path(b.cfg, "model.sequence_parallel"), &sp) && !sp);
    CHECK_STR(node_text(node_get_path(b.cfg, "model.tokenizer.type")), "meta-llama/Meta-Llama-3-8B");
    model_base_config_free(&b);
    cfg_free(&c);
}

/* a written base config loads back through our own loader with the same architecture */
static void test_round_trip(void)
{
    static const char *const presets[] = { "gpt3/20b", "t5/2.8b", "mt5/0.39b", "bert/20b", "llama/llama3_8b", "mixtral/mixtral_8x22b" };
    static const double sizes[] = { 20, 2.8, 0.39, 20, 8, 140.6 };
    for (size_t i = 0; i < 6; i++) {
        ac_config c;
        model_base_config b;
        ac_err e;
        if (load_cfg(presets[i], "search_config.train_settings.logs=/tmp/ac_test_roundtrip", &c) != 0) { CHECK(0); continue; }
        CHECK(model_base_config_build(&c, sizes[i], &b, &e) == 0);
        CHECK(model_base_config_write(&b, c.train.logs, &e) == 0);
        node *back = yaml_load_file(b.path, &e);
        CHECK(back != NULL);
        model_shape s;
        CHECK(back && model_shape_from_nemo(back, b.family, c.train.vocab_size, &s, &e) == 0);
        CHECK_INT(s.num_layers, b.shape.num_layers);
        CHECK_INT(s.hidden, b.shape.hidden);
        CHECK_INT(s.ffn_hidden, b.shape.ffn_hidden);
        CHECK_INT(s.heads, b.shape.heads);
        CHECK_INT(s.query_groups, b.shape.query_groups);
        CHECK_INT(s.num_experts, b.shape.num_experts);
        CHECK_INT(s.seq_length, b.shape.seq_length);
        node_free(back);
        model_base_config_free(&b);
        cfg_free(&c);
    }
    if (system("rm -rf /tmp/ac_test_roundtrip") != 0) CHECK(0);
}

/* what the NeMo training config cannot say: MLA, a window shorter than the training sequence;
 * a window as long as it is full attention there */
static void test_unwritable(void)
{
    model_shape s = {0};
    s.arch = ARCH_DECODER, s.num_layers = 32, s.hidden = 4096, s.heads = 32, s.query_groups = 8;
    const char *key = NULL;
    CHECK(model_base_config_unwritable(&s, 4096, &key) == NULL);
    s.swa_window = 4096;
    CHECK(model_base_config_unwritable(&s, 4096, &key) == NULL);
    CHECK_STR(model_base_config_unwritable(&s, 8192, &key), "sliding-window attention");
    CHECK_STR(key, "sliding_window");
    s.swa_window = 0, s.kv_lora_rank = 512;
    CHECK_STR(model_base_config_unwritable(&s, 4096, &key), "multi-head latent attention");
    CHECK_STR(key, "kv_lora_rank");
}

int main(void)
{
    RUN(test_param_counts);
    RUN(test_arch_for_size);
    RUN(test_between_presets);
    RUN(test_size_and_days);
    RUN(test_gbs_tp_pp);
    RUN(test_time_texts);
    RUN(test_base_configs);
    RUN(test_round_trip);
    RUN(test_unwritable);
    CHECK_DONE();
}
