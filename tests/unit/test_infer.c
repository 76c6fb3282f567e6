/* test_infer.c — the inference search: grid rules, log summary with good,
 * missing and failed logs, the latency filter, and the analytical model's
 * direction (batch, TP, GQA, fp8) and memory fit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "estimator/infer.h"
#include "results/infer_summary.h"
#include "search/infer_grid.h"
#include "util/fsutil.h"

static model_shape gpt20b(void)
{
    model_shape s = { 0 };
    s.arch = ARCH_DECODER;
    s.num_layers = 44; s.hidden = 6144; s.ffn_hidden = 4 * 6144; s.heads = 48; s.query_groups = 48;
    s.kv_channels = 128; s.vocab = 51200; s.seq_length = 2048; s.learned_pos_emb = true;
    return s;
}

static model_shape llama70b(int groups)
{
    model_shape s = { 0 };
    s.arch = ARCH_DECODER;
    s.num_layers = 80; s.hidden = 8192; s.ffn_hidden = 28672; s.heads = 64; s.query_groups = groups;
    s.kv_channels = 128; s.vocab = 128256; s.gated_mlp = true; s.untied_embeddings = true;
    return s;
}

static est_infer_result run(const model_shape *s, const char *gpu, int tp, int pp, int bs, int in, int out, est_precision p)
{
    est_infer_input x;
    est_infer_input_init(&x, s, gpu_find(gpu));
    x.tp = tp; x.pp = pp; x.bs = bs; x.input_len = in; x.output_len = out; x.precision = p;
    est_infer_result r;
    char why[256];
    int rc = est_infer_evaluate(&x, &r, why, sizeof why);
    CHECK_INT(rc, 0);
    return r;
}

static void test_grid_rules(void)
{
    model_shape s = gpt20b();
    /* reference §7: nodes_needed and tasks per node */
    CHECK_INT(search_infer_nodes_needed(8, 4, 1), 1);
    CHECK_INT(search_infer_nodes_needed(8, 16, 2), 4);
    CHECK_INT(search_infer_nodes_needed(8, 12, 1), 0);
    CHECK_INT(search_infer_tasks_per_node(8, 16), 8);
    CHECK_INT(search_infer_check(&s, 8, 5, 1, NULL, 0), SEARCH_IRULE_HEADS);   /* 48 % 5 */
    CHECK_INT(search_infer_check(&s, 8, 4, 2, NULL, 0), SEARCH_IRULE_PARTIAL_NODE);
    CHECK_INT(search_infer_check(&s, 8, 12, 1, NULL, 0), SEARCH_IRULE_NODES);
    int tp[] = { 1, 2, 4, 8, 5 }, pp[] = { 1, 2 }, bs[] = { 1, 8, 8 };
    search_infer_grid g;
    ac_err e;
    CHECK_INT(search_infer_grid_build(&s, 8, tp, 5, pp, 2, bs, 3, &g, &e), 0);
    /* valid pairs: (1,1) (2,1) (4,1) (8,1) (8,2); bs deduplicated to {1, 8} */
    CHECK_INT(g.n, 10);
    CHECK_INT(g.n_bs, 2);
    CHECK_INT(g.n_rejected, 5);
    CHECK_INT(g.items[9].nodes, 2);
    search_infer_grid_free(&g);
    int bad[] = { 7 };
    CHECK_INT(search_infer_grid_build(&s, 8, bad, 1, pp, 1, bs, 1, &g, &e), -1);
    CHECK_INT(e.code, AC_E_INPUT);
    CHECK_CONTAINS(e.msg, "no valid inference configuration");
}

static void test_layers_rule(void)
{
    model_shape s = gpt20b();
    CHECK_INT(search_infer_check(&s, 8, 8, 3, NULL, 0), SEARCH_IRULE_LAYERS);
}

static void write_log(const char *dir, const char *name, const char *text)
{
    char p[512];
    ac_err e;
    fs_mkdir_p(dir, &e);
    snprintf(p, sizeof p, "%s/%s", dir, name);
    fs_write_atomic(p, text, strlen(text), &e);
}

static void test_summary_logs(void)
{
    char root[] = "/tmp/test_infer_XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    char d1[256], d2[256], d3[256], d4[256];
    snprintf(d1, sizeof d1, "%s/good", root);
    snprintf(d2, sizeof d2, "%s/failed", root);
    snprintf(d3, sizeof d3, "%s/missing", root);
    snprintf(d4, sizeof d4, "%s/two", root);
    write_log(d1, "log_job_12.out", "rank 0@n1\n[INFO] batch_size 8 beam_width 1 head_num 48 size_per_head 128 total_time 0 FT-CPP-decoding-beamsearch-time 123.45 ms\n");
    write_log(d2, "log_job_13.out", "rank 0@n1\nCUDA error: out of memory\n");
    ac_err me;
    fs_mkdir_p(d3, &me);
    write_log(d4, "log_job_1.out", "x");
    write_log(d4, "log_job_2.out", "y");
    double lat;
    char why[256];
    CHECK_INT(results_ftlog_read_dir(d1, &lat, why, sizeof why), 0);
    CHECK_NEAR(lat, 123.45, 1e-12);
    CHECK_INT(results_ftlog_read_dir(d2, &lat, why, sizeof why), -1);
    CHECK_CONTAINS(why, "no line containing");
    CHECK_INT(results_ftlog_read_dir(d3, &lat, why, sizeof why), -1);
    CHECK_CONTAINS(why, "missing log");
    CHECK_INT(results_ftlog_read_dir(d4, &lat, why, sizeof why), -1);
    CHECK_CONTAINS(why, "2 logs");
    /* the original's throughput column: bs·1000/latency/tp/pp, rounded to 3 places in the CSV */
    results_infer_row r = results_infer_row_init(2, 1, 8, 60, 20, RES_INFER_MEASURED);
    r.latency_ms = 123.45;
    results_infer_row_finish(&r, NAN);
    CHECK_NEAR(r.thr_per_gpu, 8 * 1000.0 / 123.45 / 2, 1e-12);
    strbuf b;
    sb_init(&b);
    results_infer_csv_row(&b, &r);
    CHECK_CONTAINS(sb_str(&b), "2,1,8,123.45,32.402,measured");
    sb_free(&b);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK_INT(system(cmd), 0);
}

static void test_latency_filter_and_sort(void)
{
    results_infer_row rows[4];
    rows[0] = results_infer_row_init(1, 1, 1, 60, 20, RES_INFER_PREDICTED);
    rows[0].latency_ms = 100;  /* 10 samples/s/GPU */
    rows[1] = results_infer_row_init(1, 1, 64, 60, 20, RES_INFER_PREDICTED);
    rows[1].latency_ms = 1000; /* 64: over a 500 ms limit */
    rows[2] = results_infer_row_init(2, 1, 16, 60, 20, RES_INFER_PREDICTED);
    rows[2].latency_ms = 400;  /* 20 */
    rows[3] = results_infer_row_init(4, 1, 16, 60, 20, RES_INFER_MEASURED);
    results_infer_row_fail(&rows[3], "missing log");
    for (int i = 0; i < 4; i++) results_infer_row_finish(&rows[i], 500.0);
    CHECK_INT(rows[1].status, RES_INFER_OVER_LATENCY);
    CHECK_INT(rows[3].status, RES_INFER_FAILED);
    ac_err e;
    CHECK_INT(results_infer_sort(rows, 4, &e), 0);
    CHECK_INT(rows[0].bs, 16); /* best usable throughput first */
    CHECK_INT(rows[1].bs, 1);
    CHECK_INT(rows[2].status, RES_INFER_OVER_LATENCY);
    CHECK_INT(rows[3].status, RES_INFER_FAILED);
}

static void test_model_batch_direction(void)
{
    model_shape s = gpt20b();
    est_infer_result a = run(&s, "a100", 1, 1, 1, 60, 20, PREC_FP16), b = run(&s, "a100", 1, 1, 16, 60, 20, PREC_FP16);
    CHECK(b.latency_s > a.latency_s);
    CHECK(b.samples_per_s_per_gpu > 4 * a.samples_per_s_per_gpu); /* memory-bound decode: batching is nearly free */
    CHECK(b.mem_kv > 15 * a.mem_kv);
}

static void test_model_tp_direction(void)
{
    model_shape s = gpt20b();
    est_infer_result t1 = run(&s, "a100", 1, 1, 1, 60, 20, PREC_FP16), t8 = run(&s, "a100", 8, 1, 1, 60, 20, PREC_FP16);
    CHECK(t8.latency_s < t1.latency_s);
    CHECK(t8.tp_comm_s > 0 && t1.tp_comm_s == 0);
    /* a small model: beyond one node the all-reduces over the network cost more than TP saves */
    model_shape m = s;
    m.num_layers = 24; m.hidden = 1024; m.ffn_hidden = 4096; m.heads = 16; m.query_groups = 16; m.kv_channels = 64;
    est_infer_result s8 = run(&m, "a100", 8, 1, 1, 60, 20, PREC_FP16), s16 = run(&m, "a100", 16, 1, 1, 60, 20, PREC_FP16);
    CHECK(s16.latency_s > s8.latency_s);
}

/* FasterTransformer's top-p sampling of one step on an A100 80GB (HBM 2039 GB/s at 0.80: 1631.2 GB/s; launch floor
 * 6 us): 140 bytes a logit over 10 kernels (init 4, softmax 8, beam top-k 4, six radix passes of 20, sampling 4).
 * 64 x 51200 logits: every kernel is over its floor, 140 x 3 276 800 B / 1631.2 GB/s = 281.24 us; one sequence:
 * every kernel at its floor, 10 x 6 = 60 us. */
static void test_ft_sampling(void)
{
    model_shape s = gpt20b();
    est_infer_input x;
    est_infer_input_init(&x, &s, gpu_find("a100"));
    CHECK_NEAR(est_infer_ft_sampling_s(&x, 64) * 1e6, 281.24, 1e-4);
    CHECK_NEAR(est_infer_ft_sampling_s(&x, 1) * 1e6, 60.0, 1e-9);
    /* TP pads the vocabulary to a multiple of tp then 8: 51200 stays, the same cost on every rank */
    x.tp = 8;
    CHECK_NEAR(est_infer_ft_sampling_s(&x, 64) * 1e6, 281.24, 1e-4);
    /* a step samples after the logits: more sequences, a longer FT step */
    est_infer_result a = run(&s, "a100", 8, 1, 64, 20, 8, PREC_FP16), b = run(&s, "a100", 8, 1, 256, 20, 8, PREC_FP16);
    CHECK(b.decode_step_s - a.decode_step_s > 3.0 * 281.24e-6);
}

/* FasterTransformer's context kernels of one GPT-20B layer (h 6144, f 24576) on an A100 80GB: 2h + 6h + 4h + 2h
 * + 4h + 2f + 3h = 178176 16-bit elements a token over 7 kernels; 2048 tokens move 2048 x 2 x 178176 B =
 * 729.8 MB, every kernel over its floor: 447.40 us at 1631.2 GB/s; one token: 7 floors of 6 us = 42 us.  With TP 8
 * the QKV, transposes and GELU split: 9h + (12h + 2f)/8 = 70656 elements, 177.42 us for 2048 tokens, less the
 * attention-output transpose (2h/8 elements: 3.86 us) raised to its 6 us floor: 179.56 us. */
static void test_ft_context_elementwise(void)
{
    model_shape s = gpt20b();
    est_infer_input x;
    est_infer_input_init(&x, &s, gpu_find("a100"));
    CHECK_NEAR(est_infer_ft_context_elementwise_s(&x, 2048) * 1e6, 447.40, 1e-4);
    CHECK_NEAR(est_infer_ft_context_elementwise_s(&x, 1) * 1e6, 42.0, 1e-9);
    x.tp = 8;
    CHECK_NEAR(est_infer_ft_context_elementwise_s(&x, 2048) * 1e6, 179.56, 1e-4);
}

/* FasterTransformer v5.0 runs a context batch in chunks of at most 2048 tokens (getLocalBatchSize: halve the
 * local batch while local x input > 2048 and even), on PP 1 too: 256 x 20 tokens run as 4 chunks of 64 x 20,
 * so the prefill less the fixed host step (1 ms) is 4 x that of a batch of 64 (one chunk, 1280 tokens), up to the
 * first token's logits and sampling, which the step loop runs once over the whole batch (within 1 %); an odd
 * local batch is not halved (75 x 40 = 3000 tokens: one chunk) */
static void test_ft_context_chunks(void)
{
    model_shape s = gpt20b();
    est_infer_result a = run(&s, "a100", 2, 1, 64, 20, 8, PREC_FP16), b = run(&s, "a100", 2, 1, 256, 20, 8, PREC_FP16);
    CHECK_NEAR(b.prefill_s - 1e-3, 4.0 * (a.prefill_s - 1e-3), 1e-2);
    CHECK(b.prefill_s - 1e-3 < 4.0 * (a.prefill_s - 1e-3)); /* one logits GEMM over 256 rows reads the weights once */
    est_infer_result c = run(&s, "a100", 2, 1, 75, 40, 8, PREC_FP16), d = run(&s, "a100", 2, 1, 76, 40, 8, PREC_FP16);
    CHECK(d.prefill_s > c.prefill_s); /* 76 x 40: two chunks of 38, each reading the weights again */
}

static void test_model_gqa_fp8(void)
{
    model_shape mha = llama70b(64), gqa = llama70b(8);
    est_infer_result a = run(&mha, "h100", 8, 1, 32, 1024, 128, PREC_BF16), b = run(&gqa, "h100", 8, 1, 32, 1024, 128, PREC_BF16);
    CHECK_NEAR(b.mem_kv * 8, a.mem_kv, 1e-9);
    CHECK(b.latency_s < a.latency_s);
    est_infer_result c = run(&gqa, "h100", 8, 1, 32, 1024, 128, PREC_FP8);
    CHECK(c.latency_s < b.latency_s);
    CHECK(c.mem_weights < 0.6 * b.mem_weights);
    /* 70B in bf16 does not fit one 80 GB GPU; 8 GPUs do */
    est_infer_result one = run(&gqa, "h100", 1, 1, 1, 128, 128, PREC_BF16);
    CHECK(!one.fits);
    CHECK(b.fits);
}

/* TensorRT-LLM before 0.7 (kv_per_query_head): each query head's block loads its KV head's cache,
 * so a GQA model's decode reads the cache heads / kv_heads times, as many bytes as MHA's; an MHA
 * model does not change */
static void test_kv_per_query_head(void)
{
    model_shape mha = llama70b(64), gqa = llama70b(8);
    for (int k = 0; k < 2; k++) {
        const model_shape *s = k ? &gqa : &mha;
        est_infer_input x;
        est_infer_input_init(&x, s, gpu_find("h100"));
        x.tp = 4; x.bs = 256; x.input_len = 128; x.output_len = 2048; x.precision = PREC_FP8;
        est_infer_result shared, each;
        char why[256];
        CHECK_INT(est_infer_evaluate(&x, &shared, why, sizeof why), 0);
        x.kv_per_query_head = true;
        CHECK_INT(est_infer_evaluate(&x, &each, why, sizeof why), 0);
        if (k == 0) CHECK_NEAR(each.latency_s, shared.latency_s, 1e-12);
        else CHECK(each.latency_s > 1.3 * shared.latency_s && each.mem_kv == shared.mem_kv);
    }
}

static void test_model_moe(void)
{
    model_shape s = llama70b(8);
    s.num_layers = 32; s.hidden = 4096; s.heads = 32; s.ffn_hidden = 14336; s.num_experts = 8; s.moe_topk = 2;
    s.moe_ffn_hidden = 14336; s.vocab = 32000;
    est_infer_result r1 = run(&s, "h100", 2, 1, 1, 128, 64, PREC_BF16), r64 = run(&s, "h100", 2, 1, 64, 128, 64, PREC_BF16);
    CHECK(r1.active_params_b < 0.4 * r1.params_b);
    CHECK_NEAR(r1.params_b, 46.7, 0.02); /* Mixtral 8x7B */
    CHECK(r64.decode_step_s > r1.decode_step_s); /* more experts touched per step */
}

/* MLA caches one latent per token and layer for all heads (DeepSeek-V2 §2.1.2): DeepSeek-V3
 * keeps (512 + 64) × 61 elements per token, each TP rank all of it, where per-head K and V
 * of its 128 heads would be 2·128·192 per layer */
static void test_model_mla(void)
{
    model_shape s = llama70b(128);
    s.num_layers = 61; s.hidden = 7168; s.heads = 128; s.ffn_hidden = 18432; s.vocab = 129280;
    s.kv_channels = 128; s.q_lora_rank = 1536; s.kv_lora_rank = 512; s.qk_rope_dim = 64; s.v_head_dim = 128;
    s.num_experts = 256; s.moe_topk = 8; s.moe_ffn_hidden = 2048; s.moe_shared_ffn = 2048; s.moe_dense_layers = 3;
    est_infer_result r = run(&s, "h200", 8, 1, 16, 1024, 128, PREC_FP8);
    CHECK_NEAR(r.mem_kv, 16.0 * (1024 + 128) * 576 * 61 * 1.0, 1.0); /* FP8 cache, 1 B per element */
    CHECK(r.params_b > 664 && r.params_b < 678);
    CHECK(r.active_params_b > 36 && r.active_params_b < 39);
    /* the same heads with materialised K and V per head: a cache 2·128·192 / 576 / 8 = 10.7x larger per GPU */
    model_shape mha = s;
    mha.kv_lora_rank = 0; mha.q_lora_rank = 0; mha.kv_channels = 192;
    est_infer_result m = run(&mha, "h200", 8, 1, 16, 1024, 128, PREC_FP8);
    CHECK(m.mem_kv > 10 * r.mem_kv);
}


/* MoE pricing: shared experts add a dense MLP every token passes; layers with a dense FFN (moe_dense_layers)
 * are priced as such; EP spreads experts over the TP ranks (EP | TP, EP | experts), the same weight bytes per
 * GPU at decode and the busiest rank's tokens in a compute-bound prefill; attention never runs at FP4 */
static void test_model_moe_parts(void)
{
    model_shape s = llama70b(8);
    s.num_layers = 48; s.hidden = 5120; s.heads = 40; s.ffn_hidden = 16384; s.num_experts = 16; s.moe_topk = 1;
    s.moe_ffn_hidden = 8192; s.vocab = 202048; /* Llama 4 Scout without its shared expert */
    est_infer_result plain = run(&s, "h100", 4, 1, 8, 1024, 64, PREC_BF16);
    model_shape sh = s;
    sh.moe_shared_ffn = 8192;
    est_infer_result shared = run(&sh, "h100", 4, 1, 8, 1024, 64, PREC_BF16);
    CHECK(shared.prefill_s > plain.prefill_s * 1.2);   /* twice the MLP FLOPs per token */
    CHECK(shared.decode_step_s > plain.decode_step_s); /* and its weights every step */
    /* half the layers dense (Maverick interleaves): the 16 experts' weights are read half as often */
    model_shape dl = sh;
    dl.moe_dense_layers = 24;
    CHECK(run(&dl, "h100", 4, 1, 8, 1024, 64, PREC_BF16).decode_step_s < shared.decode_step_s);
    /* EP: rules, then the busiest rank in a compute-bound prefill */
    est_infer_input x;
    est_infer_input_init(&x, &sh, gpu_find("h100"));
    x.tp = 4; x.bs = 8; x.input_len = 1024; x.output_len = 64;
    char why[256];
    est_infer_result ep1, ep4;
    CHECK_INT(est_infer_evaluate(&x, &ep1, why, sizeof why), 0);
    x.ep = 4;
    CHECK_INT(est_infer_evaluate(&x, &ep4, why, sizeof why), 0);
    CHECK_NEAR(ep4.mem_weights, ep1.mem_weights, 1.0);
    CHECK(ep4.prefill_s >= ep1.prefill_s * 0.9 && ep4.prefill_s < ep1.prefill_s * 1.5);
    x.ep = 3;
    CHECK_INT(est_infer_evaluate(&x, &ep4, why, sizeof why), -1);
    CHECK_CONTAINS(why, "EP 3 does not divide TP 4");
    x.tp = 8; x.ep = 8; x.shape.num_experts = 12;
    CHECK_INT(est_infer_check(&x, why, sizeof why), -1);
    CHECK_CONTAINS(why, "EP 8 does not divide 12 experts");
    model_shape dense = llama70b(8);
    est_infer_input_init(&x, &dense, gpu_find("h100"));
    x.tp = 2; x.ep = 2;
    CHECK_INT(est_infer_check(&x, why, sizeof why), -1);
    CHECK_CONTAINS(why, "no experts");
    /* a hybrid Mamba-Transformer caches Mamba-2 states, not only K and V: not modelled */
    dense.hyb_mamba = 40, dense.hyb_attn = 40, dense.mamba_heads = 128, dense.mamba_head_dim = 64;
    dense.mamba_state = 128, dense.mamba_groups = 8;
    est_infer_input_init(&x, &dense, gpu_find("h100"));
    x.tp = 2;
    CHECK_INT(est_infer_check(&x, why, sizeof why), -1);
    CHECK_CONTAINS(why, "hybrid Mamba-Transformer");
    /* LatentMoE experts (a config.json's moe_latent_size) are not priced for serving either */
    model_shape latent = llama70b(8);
    latent.num_experts = 8, latent.moe_topk = 2, latent.moe_ffn_hidden = 4096, latent.moe_latent = 1024;
    est_infer_input_init(&x, &latent, gpu_find("h100"));
    x.tp = 2;
    CHECK_INT(est_infer_check(&x, why, sizeof why), -1);
    CHECK_CONTAINS(why, "LatentMoE");
    /* FP4 weights: the GEMMs run at the FP4 peak, attention at fp8 (fp8 KV cache): a long prompt's prefill
     * gains less than its GEMMs */
    model_shape d8 = llama70b(8);
    est_infer_result f8 = run(&d8, "b200", 1, 1, 1, 16384, 2, PREC_FP8), f4 = run(&d8, "b200", 1, 1, 1, 16384, 2, PREC_FP4);
    CHECK(f4.prefill_s < f8.prefill_s && f4.prefill_s > 0.55 * f8.prefill_s);
}

/* Llama 4's chunked local attention (config.json attention_chunk_size 8192 on the RoPE layers, the NoPE layers
 * global): a decoding sequence reads on a chunked layer only its current chunk, half a chunk on average once past
 * the first.  By hand, with chunks on 36 of 48 layers at a mean context of 21000: keys per layer
 * 0.25 · 21000 + 0.75 · 8192 / 2 = 5250 + 3072 = 8322, the decode step of full attention at 8322; within the first
 * chunk nothing changes; a 20000-token prompt's attention square drops from 20000² to
 * 0.25 · 20000² + 0.75 · (2 · 8192² + 3616²), 53 % of it */
static void test_chunked_attention(void)
{
    model_shape full = llama70b(8), chunked = llama70b(8);
    full.num_layers = chunked.num_layers = 48;
    chunked.attn_chunk = 8192;
    chunked.attn_chunk_layers = 36;
    est_infer_input a, b;
    est_infer_input_init(&a, &full, gpu_find("h100"));
    est_infer_input_init(&b, &chunked, gpu_find("h100"));
    a.tp = b.tp = 8;
    a.cuda_graphs = b.cuda_graphs = true;
    CHECK_NEAR(est_infer_step_s(&b, 64, 21000, 0, 0), est_infer_step_s(&a, 64, 8322, 0, 0), 1e-12);
    CHECK_NEAR(est_infer_step_s(&b, 64, 8000, 0, 0), est_infer_step_s(&a, 64, 8000, 0, 0), 1e-12);
    CHECK(est_infer_step_s(&b, 64, 21000, 0, 0) < est_infer_step_s(&a, 64, 21000, 0, 0));
    /* prefill: the same below a chunk, less above */
    CHECK_NEAR(est_infer_step_s(&b, 0, 0, 8192, 8192), est_infer_step_s(&a, 0, 0, 8192, 8192), 1e-12);
    double pa = est_infer_step_s(&a, 0, 0, 8192, 20000), pb = est_infer_step_s(&b, 0, 0, 8192, 20000);
    CHECK(pb < pa);
}

static void test_max_load(void)
{
    model_shape s = llama70b(8);
    est_infer_input x;
    est_infer_input_init(&x, &s, gpu_find("h100"));
    x.tp = 2; x.input_len = 128; x.output_len = 128; x.precision = PREC_FP8; x.cuda_graphs = true;
    est_infer_result r;
    int batch;
    char why[256];
    CHECK_INT(est_infer_max_load(&x, 2048, 8192, &r, &batch, why, sizeof why), 0);
    CHECK(batch > 100 && batch <= 2048);
    x.tp = 1; x.precision = PREC_BF16;
    CHECK_INT(est_infer_max_load(&x, 2048, 8192, &r, &batch, why, sizeof why), -1);
    CHECK_CONTAINS(why, "no room");
}

int main(void)
{
    ac_err e;
    if (gpu_catalog_load(&e) != 0) { printf("FAIL test_infer: catalog: %s\n", e.msg); return 1; }
    RUN(test_grid_rules);
    RUN(test_layers_rule);
    RUN(test_summary_logs);
    RUN(test_latency_filter_and_sort);
    RUN(test_model_batch_direction);
    RUN(test_kv_per_query_head);
    RUN(test_model_tp_direction);
    RUN(test_ft_sampling);
    RUN(test_ft_context_chunks);
    RUN(test_ft_context_elementwise);
    RUN(test_model_gqa_fp8);
    RUN(test_model_moe);
    RUN(test_model_moe_parts);
    RUN(test_model_mla);
    RUN(test_chunked_attention);
    RUN(test_max_load);
    CHECK_DONE();
}
