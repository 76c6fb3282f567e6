/* test_serve_jobs.c — the measured path of the serving engines (issue 27):
 *   trtllm-bench's report in its real formats (printed PERFORMANCE OVERVIEW of 1.x with
 *   streaming metrics, the 0.17 layout, --report_json), a job folder's result (file, log
 *   fallback, the engine's error line), the job text (each engine's flags, every value
 *   quoted), the Hugging Face config written for a preset, and the emulated engines
 *   (flags they do not have refused; failures where the engine fails; outputs that the
 *   parsers read back). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cost/cost.h"
#include "exec/emulate_serve.h"
#include "exec/serve_job.h"
#include "results/serve_bench.h"
#include "results/trtllm_bench.h"
#include "util/fsutil.h"

static char *fixture(const char *path, size_t *len)
{
    ac_err e;
    char *t = fs_read_file(path, len, &e);
    CHECK(t != NULL);
    return t;
}

static void test_trtllm_text(void)
{
    size_t len;
    char *t = fixture("fuzz/corpus/fuzz_trtllm_bench/report_streaming.txt", &len);
    if (!t) return;
    results_serve_metrics m;
    char why[256];
    CHECK_INT(results_trtllm_bench_parse(t, len, &m, why, sizeof why), 0);
    CHECK_NEAR(m.request_throughput, 12.3456, 1e-12);
    CHECK_NEAR(m.output_throughput, 12641.8944, 1e-12);
    CHECK_NEAR(m.total_token_throughput, 25283.7888, 1e-12);
    CHECK_NEAR(m.mean_ttft_ms, 212.4471, 1e-12);
    CHECK_NEAR(m.median_ttft_ms, 160.3326, 1e-12);
    CHECK_NEAR(m.p99_ttft_ms, 1210.6612, 1e-12);
    CHECK_NEAR(m.mean_tpot_ms, 9.8846, 1e-12);
    CHECK_NEAR(m.p99_tpot_ms, 11.2904, 1e-12);
    CHECK_NEAR(m.mean_e2el_ms, 10324.5521, 1e-12);
    CHECK_NEAR(m.median_e2el_ms, 10251.0013, 1e-12);
    CHECK_NEAR(m.p99_e2el_ms, 11826.5015, 1e-12);
    CHECK_NEAR(m.p90_ttft_ms, 402.1187, 1e-12);
    CHECK_NEAR(m.p90_tpot_ms, 10.4521, 1e-12);
    CHECK_NEAR(m.p90_e2el_ms, 10917.2360, 1e-12);
    CHECK(isnan(m.mean_itl_ms)); /* trtllm reports TPOT, not vLLM's ITL */
    free(t);
    /* 0.17: "Token Throughput" is the output throughput, the request count in the same block */
    t = fixture("fuzz/corpus/fuzz_trtllm_bench/report_v017.txt", &len);
    if (!t) return;
    CHECK_INT(results_trtllm_bench_parse(t, len, &m, why, sizeof why), 0);
    CHECK_NEAR(m.output_throughput, 28390.4265, 1e-12);
    CHECK_NEAR(m.request_throughput, 221.8002, 1e-12);
    CHECK_NEAR(m.completed, 3000, 1e-12);
    CHECK(isnan(m.mean_ttft_ms));
    free(t);
}

static void test_trtllm_json_and_failures(void)
{
    size_t len;
    char *t = fixture("fuzz/corpus/fuzz_trtllm_bench/report.json", &len);
    if (!t) return;
    results_serve_metrics m;
    char why[256];
    CHECK_INT(results_trtllm_bench_parse(t, len, &m, why, sizeof why), 0);
    CHECK_NEAR(m.completed, 640, 1e-12);
    CHECK_NEAR(m.request_throughput, 12.2191, 1e-12);
    CHECK_NEAR(m.output_throughput, 3128.09, 1e-12);
    CHECK_NEAR(m.mean_ttft_ms, 351.27, 1e-12);
    CHECK_NEAR(m.p99_ttft_ms, 988.4, 1e-12);
    CHECK_NEAR(m.p90_ttft_ms, 600.2, 1e-12);
    CHECK_NEAR(m.p90_e2el_ms, 5401.7, 1e-12);
    CHECK_NEAR(m.mean_tpot_ms, 19.06, 1e-12);
    CHECK_NEAR(m.median_e2el_ms, 5188.2, 1e-12);
    CHECK_NEAR(m.mean_e2el_ms, 5210.44, 1e-12);
    free(t);
    t = fixture("fuzz/corpus/fuzz_trtllm_bench/truncated.json", &len);
    if (t) {
        CHECK_INT(results_trtllm_bench_parse(t, len, &m, why, sizeof why), -1);
        CHECK_CONTAINS(why, "performance");
        free(t);
    }
    t = fixture("fuzz/corpus/fuzz_trtllm_bench/failed.txt", &len);
    if (t) {
        CHECK_INT(results_trtllm_bench_parse(t, len, &m, why, sizeof why), -1);
        CHECK_CONTAINS(why, "neither a throughput nor a TTFT");
        free(t);
    }
    const char *none = "[TRT-LLM] [I] Preparing to run throughput benchmark...\nRuntimeError: CUDA out of memory\n";
    CHECK_INT(results_trtllm_bench_parse(none, strlen(none), &m, why, sizeof why), -1);
    CHECK_CONTAINS(why, "did not finish");
}

static void test_read_job(void)
{
    char dir[] = "/tmp/ac_serve_jobXXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    ac_err e;
    char path[256];
    results_serve_metrics m;
    char why[512];
    /* nothing yet */
    CHECK_INT(results_serve_read_job(dir, false, &m, why, sizeof why), -1);
    CHECK_CONTAINS(why, "no result");
    /* the engine's error in the job's log */
    snprintf(path, sizeof path, "%s/log_job_7.err", dir);
    const char *err = "Traceback (most recent call last):\n  File \"x.py\", line 1\nValueError: Total number of attention "
                      "heads (32) must be divisible by tensor parallel size (3).\n";
    CHECK_INT(fs_write_atomic(path, err, strlen(err), &e), 0);
    CHECK_INT(results_serve_read_job(dir, false, &m, why, sizeof why), -1);
    CHECK_CONTAINS(why, "vllm failed: ValueError: Total number of attention heads (32)");
    /* the printed block in log_job*.out when result.json is missing */
    size_t len;
    char *t = fixture("fuzz/corpus/fuzz_serve_bench/text_block.txt", &len);
    snprintf(path, sizeof path, "%s/log_job_7.out", dir);
    if (t) CHECK_INT(fs_write_atomic(path, t, len, &e), 0);
    free(t);
    CHECK_INT(results_serve_read_job(dir, false, &m, why, sizeof why), 0);
    CHECK_NEAR(m.mean_ttft_ms, 180.42, 1e-12);
    /* result.json wins */
    snprintf(path, sizeof path, "%s/result.json", dir);
    const char *j = "{\"request_throughput\": 2.5, \"mean_ttft_ms\": 99.0, \"mean_itl_ms\": 7.0, \"mean_e2el_ms\": 900}";
    CHECK_INT(fs_write_atomic(path, j, strlen(j), &e), 0);
    CHECK_INT(results_serve_read_job(dir, false, &m, why, sizeof why), 0);
    CHECK_NEAR(m.mean_ttft_ms, 99.0, 1e-12);
    CHECK_NEAR(m.mean_e2el_ms, 900, 1e-12);
    /* trtllm reads report.json: absent, the error line */
    CHECK_INT(results_serve_read_job(dir, true, &m, why, sizeof why), -1);
    CHECK_CONTAINS(why, "trtllm-bench failed: ValueError");
    const char *files[] = { "log_job_7.err", "log_job_7.out", "result.json" };
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

static void test_job_text(void)
{
    serve_job j = { .engine = "vllm", .dir = "/r/it's $(touch pwned)", .tokenizer = "gpt2", .tp = 2, .pp = 1,
                    .max_num_seqs = 128, .concurrency = 64, .input_len = 1024, .output_len = 256, .num_prompts = 640,
                    .dtype = "bfloat16", .fp8_kv = true };
    strbuf b;
    sb_init(&b);
    ac_err e;
    CHECK_INT(serve_job_command(&j, &b, &e), 0);
    const char *s = sb_str(&b);
    CHECK(s != NULL);
    if (!s) return;
    CHECK_CONTAINS(s, "cd '/r/it'\\''s $(touch pwned)' || exit 1");
    CHECK_CONTAINS(s, "vllm serve \"$PWD/model\" --load-format dummy --tensor-parallel-size 2 --pipeline-parallel-size 1 "
                      "--max-num-seqs 128 --max-model-len 1280 --dtype 'bfloat16' --kv-cache-dtype fp8");
    CHECK_CONTAINS(s, "until ready \"http://127.0.0.1:$port/health\"; do");
    CHECK_CONTAINS(s, "curl -sf \"$1\"");
    CHECK_CONTAINS(s, "vllm bench serve --backend vllm");
    CHECK_CONTAINS(s, "--dataset-name random --random-input-len 1024 --random-output-len 256 --ignore-eos --num-prompts 640 "
                      "--max-concurrency 64");
    CHECK_CONTAINS(s, "--save-result --result-dir \"$PWD\" --result-filename result.json");
    CHECK_CONTAINS(s, "from_pretrained(sys.argv[1]).save_pretrained(sys.argv[2])' 'gpt2' model");
    sb_free(&b);
    j.engine = "trtllm";
    j.tokenizer = NULL;
    sb_init(&b);
    CHECK_INT(serve_job_command(&j, &b, &e), 0);
    s = sb_str(&b);
    if (s) {
        CHECK_CONTAINS(s, "trtllm-bench --model \"$PWD/model\" prepare-dataset --output \"$PWD/dataset.jsonl\" token-norm-dist "
                          "--num-requests 640 --input-mean 1024 --input-stdev 0 --output-mean 256 --output-stdev 0");
        CHECK_CONTAINS(s, "throughput --backend pytorch --dataset \"$PWD/dataset.jsonl\" --tp 2 --pp 1 --concurrency 64 "
                          "--max_batch_size 128 --max_seq_len 1280 --num_requests 640");
        CHECK_CONTAINS(s, "--streaming --extra_llm_api_options \"$PWD/extra_llm_api_options.yaml\" --report_json");
        CHECK(strstr(s, "save_pretrained") == NULL);
    }
    sb_free(&b);
    sb_init(&b);
    serve_job_trtllm_options(&j, &b);
    CHECK_CONTAINS(sb_str(&b), "load_format: DUMMY\nkv_cache_config:\n  dtype: fp8\n");
    sb_free(&b);
    j.engine = "fastertransformer";
    sb_init(&b);
    CHECK_INT(serve_job_command(&j, &b, &e), -1);
    sb_free(&b);
}

static void test_hf_config(void)
{
    ac_err e;
    model_shape gpt = { .arch = ARCH_DECODER, .num_layers = 24, .hidden = 4096, .ffn_hidden = 16384, .heads = 32,
                        .vocab = 51200, .seq_length = 2048, .learned_pos_emb = true };
    strbuf b;
    sb_init(&b);
    CHECK_INT(serve_job_hf_config(&gpt, "float16", 4096, &b, &e), 0);
    CHECK_CONTAINS(sb_str(&b), "\"GPT2LMHeadModel\"");
    CHECK_CONTAINS(sb_str(&b), "\"n_positions\": 4096");
    cost_model cm;
    /* the file reads back as the same shape */
    CHECK_INT(cost_hf_config_parse(b.s, b.len, "config.json", &cm, &e), 0);
    CHECK_INT(cm.shape.hidden, 4096);
    CHECK_INT(cm.shape.num_layers, 24);
    CHECK_INT(cm.shape.heads, 32);
    sb_free(&b);
    model_shape moe = { .arch = ARCH_DECODER, .num_layers = 32, .hidden = 4096, .ffn_hidden = 14336, .heads = 32,
                        .query_groups = 8, .vocab = 32000, .seq_length = 4096, .gated_mlp = true,
                        .untied_embeddings = true, .num_experts = 8, .moe_topk = 2, .moe_ffn_hidden = 14336 };
    sb_init(&b);
    CHECK_INT(serve_job_hf_config(&moe, "bfloat16", 2048, &b, &e), 0);
    CHECK_CONTAINS(sb_str(&b), "\"MixtralForCausalLM\"");
    CHECK_CONTAINS(sb_str(&b), "\"num_local_experts\": 8");
    CHECK_INT(cost_hf_config_parse(b.s, b.len, "config.json", &cm, &e), 0);
    CHECK_INT(cm.shape.num_experts, 8);
    CHECK_INT(shape_query_groups(&cm.shape), 8);
    sb_free(&b);
    sb_init(&b);
    CHECK_INT(serve_job_hf_config(&moe, "bf16\"}", 2048, &b, &e), -1); /* no JSON injection through the dtype */
    sb_free(&b);
}

static int parse_words(const char *line, emu_serve_args *a, ac_err *e)
{
    char buf[2048], *argv[64];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", line);
    char *save = NULL;
    for (char *w = strtok_r(buf, " ", &save); w && argc < 64; w = strtok_r(NULL, " ", &save)) argv[argc++] = w;
    return emu_serve_parse(argc, argv, a, e);
}

static void test_emulated_engines(void)
{
    ac_err e;
    emu_serve_args a;
    CHECK_INT(parse_words("vllm serve /m --load-format dummy --tensor-parallel-size 4 --max-num-seqs 32 --port 9000 "
                          "--kv-cache-dtype fp8 --quantization fp8", &a, &e), 0);
    CHECK_INT(a.cmd, EMU_VLLM_SERVE);
    CHECK_INT(a.tp, 4);
    CHECK_INT(a.max_num_seqs, 32);
    CHECK(a.dummy && a.fp8_kv && a.fp8_weights);
    CHECK_INT(parse_words("vllm serve /m --tensor_parallel_size 4", &a, &e), -1); /* trtllm's spelling */
    CHECK_CONTAINS(e.msg, "unrecognized arguments: --tensor_parallel_size");
    CHECK_INT(parse_words("vllm bench serve --port 9000 --max-concurrency 8 --num-prompts 80 --random-input-len 128 "
                          "--random-output-len 32 --ignore-eos --save-result --result-dir /r --result-filename x.json",
                          &a, &e), 0);
    CHECK_INT(a.cmd, EMU_VLLM_BENCH);
    CHECK(a.save_result);
    CHECK_STR(a.result_file, "x.json");
    CHECK_INT(parse_words("trtllm-bench --model /m throughput --dataset d.jsonl --tp 2 --concurrency 8 --streaming", &a, &e), 0);
    CHECK_INT(a.cmd, EMU_TRTLLM_THROUGHPUT);
    CHECK_STR(a.model, "/m");
    CHECK(a.streaming);
    CHECK_INT(parse_words("trtllm-bench --model /m throughput --dataset d --tensor-parallel-size 2", &a, &e), -1);
    CHECK_INT(parse_words("trtllm-bench --model /m prepare-dataset --output d token-norm-dist --num-requests 4 "
                          "--input-mean 8 --input-stdev 0 --output-mean 2 --output-stdev 0", &a, &e), 0);
    strbuf b;
    sb_init(&b);
    emu_serve_trtllm_dataset(&a, 32000, &b);
    int n, il, ol;
    CHECK_INT(emu_serve_read_dataset(b.s, b.len, &n, &il, &ol), 0);
    CHECK_INT(n, 4);
    CHECK_INT(il, 8);
    CHECK_INT(ol, 2);
    sb_free(&b);

    /* an 8B Llama on one H100: TP 3 refused, 70B OOM at TP 1, a long context beyond the KV cache */
    char dir[] = "/tmp/ac_emuXXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[128];
    snprintf(path, sizeof path, "%s/config.json", dir);
    const char *cfg8 = "{\"model_type\": \"llama\", \"hidden_size\": 4096, \"intermediate_size\": 14336, "
                       "\"num_hidden_layers\": 32, \"num_attention_heads\": 32, \"num_key_value_heads\": 8, "
                       "\"max_position_embeddings\": 131072, \"vocab_size\": 128256}";
    CHECK_INT(fs_write_atomic(path, cfg8, strlen(cfg8), &e), 0);
    CHECK(gpu_catalog_load(&e) >= 0);
    const gpu_spec *h100 = gpu_find("h100");
    CHECK(h100 != NULL);
    if (!h100) return;
    char line[1400], why[1024];
    results_serve_metrics m;
    snprintf(line, sizeof line, "vllm serve %s --load-format dummy --tensor-parallel-size 3 --max-model-len 2048", dir);
    CHECK_INT(parse_words(line, &a, &e), 0);
    CHECK_INT(emu_serve_run(&a, h100, 1.0, NULL, why, sizeof why, &e), 1);
    CHECK_CONTAINS(why, "Total number of attention heads (32) must be divisible by tensor parallel size (3).");
    snprintf(line, sizeof line, "vllm serve %s --tensor-parallel-size 1 --max-model-len 2048", dir);
    CHECK_INT(parse_words(line, &a, &e), 0);
    CHECK_INT(emu_serve_run(&a, h100, 1.0, NULL, why, sizeof why, &e), 1); /* no weights, no dummy */
    CHECK_CONTAINS(why, "Cannot find any model weights");
    snprintf(line, sizeof line, "vllm serve %s --load-format dummy --max-model-len 1000000", dir);
    CHECK_INT(parse_words(line, &a, &e), 0);
    CHECK_INT(emu_serve_run(&a, h100, 1.0, NULL, why, sizeof why, &e), 1);
    CHECK_CONTAINS(why, "max seq len (1000000) is larger than the maximum number of tokens that can be stored in KV cache");
    /* it runs: its figures read back through the real parsers, slower with a scale */
    snprintf(line, sizeof line, "vllm serve %s --load-format dummy --tensor-parallel-size 2 --max-num-seqs 64 "
             "--max-model-len 1280", dir);
    CHECK_INT(parse_words(line, &a, &e), 0);
    CHECK_INT(emu_serve_run(&a, h100, 1.0, NULL, why, sizeof why, &e), 0);
    a.concurrency = 16;
    a.input_len = 1024;
    a.output_len = 256;
    a.num_prompts = 160;
    CHECK_INT(emu_serve_run(&a, h100, 1.0, &m, why, sizeof why, &e), 0);
    results_serve_metrics m2, back;
    CHECK_INT(emu_serve_run(&a, h100, 1.2, &m2, why, sizeof why, &e), 0);
    CHECK_NEAR(m2.mean_ttft_ms, 1.2 * m.mean_ttft_ms, 1e-9);
    CHECK_NEAR(m2.request_throughput, m.request_throughput / 1.2, 1e-9);
    sb_init(&b);
    emu_serve_vllm_text(&a, &m, &b);
    CHECK_INT(results_serve_bench_parse(b.s, b.len, &back, why, sizeof why), 0);
    CHECK_NEAR(back.mean_itl_ms, m.mean_itl_ms, 1e-3);
    CHECK_NEAR(back.request_throughput, m.request_throughput, 1e-2);
    sb_free(&b);
    sb_init(&b);
    emu_serve_vllm_json(&a, &m, &b);
    CHECK_INT(results_serve_bench_parse(b.s, b.len, &back, why, sizeof why), 0);
    CHECK_NEAR(back.mean_e2el_ms, m.mean_e2el_ms, 1e-6);
    sb_free(&b);
    a.cmd = EMU_TRTLLM_THROUGHPUT;
    a.streaming = true;
    sb_init(&b);
    emu_serve_trtllm_text(&a, &m, &b);
    CHECK_INT(results_trtllm_bench_parse(b.s, b.len, &back, why, sizeof why), 0);
    CHECK_NEAR(back.mean_tpot_ms, m.mean_tpot_ms, 1e-3);
    CHECK_NEAR(back.mean_e2el_ms, m.mean_e2el_ms, 1e-3);
    sb_free(&b);
    sb_init(&b);
    emu_serve_trtllm_json(&a, &m, &b);
    CHECK_INT(results_trtllm_bench_parse(b.s, b.len, &back, why, sizeof why), 0);
    CHECK_NEAR(back.mean_ttft_ms, m.mean_ttft_ms, 1e-6);
    sb_free(&b);
    /* 70B at TP 1: the weights do not fit */
    const char *cfg70 = "{\"model_type\": \"llama\", \"hidden_size\": 8192, \"intermediate_size\": 28672, "
                        "\"num_hidden_layers\": 80, \"num_attention_heads\": 64, \"num_key_value_heads\": 8, "
                        "\"max_position_embeddings\": 131072, \"vocab_size\": 128256}";
    CHECK_INT(fs_write_atomic(path, cfg70, strlen(cfg70), &e), 0);
    snprintf(line, sizeof line, "vllm serve %s --load-format dummy --max-model-len 2048", dir);
    CHECK_INT(parse_words(line, &a, &e), 0);
    CHECK_INT(emu_serve_run(&a, h100, 1.0, NULL, why, sizeof why, &e), 1);
    CHECK_CONTAINS(why, "CUDA out of memory");
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    RUN(test_trtllm_text);
    RUN(test_trtllm_json_and_failures);
    RUN(test_read_job);
    RUN(test_job_text);
    RUN(test_hf_config);
    RUN(test_emulated_engines);
    CHECK_DONE();
}
