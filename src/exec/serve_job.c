/* serve_job.c — the serving engines' benchmark jobs (serve_job.h).
 *
 * Flags and where each is defined (read in the engines' source, not copied):
 *   vLLM server, `vllm serve MODEL` (vllm/engine/arg_utils.py EngineArgs.add_cli_args,
 *   vllm/entrypoints/openai/cli_args.py):
 *     --load-format dummy            LoadFormat.DUMMY: weights initialised randomly, no checkpoint
 *     --tensor-parallel-size N, --pipeline-parallel-size M
 *     --max-num-seqs B               the scheduler's cap on running sequences
 *     --max-model-len L              input + output: the KV cache must hold one such sequence
 *     --dtype bfloat16|float16, --quantization fp8, --kv-cache-dtype fp8
 *     --gpu-memory-utilization 0.9 (its default, written out), --host, --port
 *     GET /health answers 200 once the engine is up (vllm/entrypoints/openai/api_server.py)
 *   vLLM client, `vllm bench serve` (vllm/benchmarks/serve.py, formerly
 *   benchmarks/benchmark_serving.py):
 *     --backend vllm --host --port --model, --dataset-name random --random-input-len I
 *     --random-output-len O (fixed lengths at the default range ratio), --ignore-eos,
 *     --num-prompts N, --max-concurrency C, --request-rate inf (the closed loop alone
 *     limits the load), --percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 50,90,99,
 *     --save-result --result-dir D --result-filename F (the JSON results/serve_bench.c reads)
 *   TensorRT-LLM, `trtllm-bench` (tensorrt_llm/bench/benchmark/throughput.py,
 *   tensorrt_llm/bench/dataset/prepare_dataset.py, prepare_synthetic_data.py):
 *     --model M --model_path DIR      the model name (a folder works: it is the tokenizer
 *                                     prepare-dataset loads) and the checkpoint folder,
 *                                     whose config.json and tokenizer throughput reads
 *     prepare-dataset --output F token-norm-dist --num-requests N --input-mean I
 *       --input-stdev 0 --output-mean O --output-stdev 0
 *     throughput --backend pytorch --dataset F --tp N --pp M --concurrency C
 *       --max_batch_size B --max_seq_len L --num_requests N --warmup W --streaming
 *       (TTFT/TPOT are measured only when streaming) --report_json F
 *       --extra_llm_api_options YAML with load_format: DUMMY (tensorrt_llm/llmapi/llm_args.py
 *       LoadFormat.DUMMY, "initialize all weights randomly") and kv_cache_config.dtype fp8.
 */
#include "exec/serve_job.h"

#include <stdlib.h>
#include <string.h>

#include "util/shell.h"

/* " --flag N" */
static void flag_int(strbuf *b, const char *flag, int v) { sb_printf(b, " %s %d", flag, v); }

/* the tokenizer a hub name names, saved into model/ unless a tokenizer is already there */
static int tokenizer_step(const serve_job *j, strbuf *b, ac_err *e)
{
    if (!j->tokenizer || !j->tokenizer[0]) return 0;
    sb_add(b, "if [ ! -e model/tokenizer_config.json ]; then\n"
              "  python3 -c 'import sys; from transformers import AutoTokenizer; "
              "AutoTokenizer.from_pretrained(sys.argv[1]).save_pretrained(sys.argv[2])' ");
    if (shell_quote_add(b, j->tokenizer, e)) return -1;
    sb_add(b, " model || { echo 'tokenizer: could not fetch it into model/' >&2; exit 1; }\nfi\n");
    return 0;
}

static int vllm_command(const serve_job *j, strbuf *b, ac_err *e)
{
    /* one port per job on a shared node: the job id decides it */
    sb_add(b, "port=$((20000 + ${SLURM_JOB_ID:-$$} % 20000))\n");
    /* GET /health with curl, or Python's urllib where the image has no curl */
    sb_add(b, "ready() {\n"
              "  if command -v curl > /dev/null 2>&1; then curl -sf \"$1\" > /dev/null\n"
              "  else python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=5)' \"$1\" "
              "> /dev/null 2>&1; fi\n"
              "}\n");
    sb_add(b, "vllm serve \"$PWD/model\" --load-format dummy");
    flag_int(b, "--tensor-parallel-size", j->tp);
    flag_int(b, "--pipeline-parallel-size", j->pp);
    flag_int(b, "--max-num-seqs", j->max_num_seqs);
    flag_int(b, "--max-model-len", j->input_len + j->output_len);
    sb_add(b, " --dtype ");
    if (shell_quote_add(b, j->dtype && j->dtype[0] ? j->dtype : "bfloat16", e)) return -1;
    if (j->fp8_weights) sb_add(b, " --quantization fp8");
    if (j->fp8_kv) sb_add(b, " --kv-cache-dtype fp8");
    sb_add(b, " --gpu-memory-utilization 0.9 --host 127.0.0.1 --port \"$port\" > vllm_server.log 2>&1 &\n"
              "server=$!\n"
              "trap 'kill \"$server\" 2>/dev/null; wait \"$server\" 2>/dev/null' EXIT\n"
              /* a server that stays alive but never answers (stuck NCCL init, a download) fails the
               * job after SERVE_JOB_READY_S rather than holding its GPUs until the time limit */
              "waited=0\n"
              "until ready \"http://127.0.0.1:$port/health\"; do\n"
              "  if ! kill -0 \"$server\" 2>/dev/null; then\n"
              "    echo 'vllm serve exited before it was ready; the end of vllm_server.log:' >&2\n"
              "    tail -n 20 vllm_server.log >&2\n"
              "    exit 1\n"
              "  fi\n"
              "  if [ \"$waited\" -ge " SERVE_JOB_READY_S_TEXT " ]; then\n"
              "    echo 'vllm serve not ready after " SERVE_JOB_READY_S_TEXT " s; the end of vllm_server.log:' >&2\n"
              "    tail -n 20 vllm_server.log >&2\n"
              "    exit 1\n"
              "  fi\n"
              "  sleep 2\n"
              "  waited=$((waited + 2))\n"
              "done\n");
    sb_add(b, "vllm bench serve --backend vllm --host 127.0.0.1 --port \"$port\" --model \"$PWD/model\""
              " --dataset-name random");
    flag_int(b, "--random-input-len", j->input_len);
    flag_int(b, "--random-output-len", j->output_len);
    sb_add(b, " --ignore-eos");
    flag_int(b, "--num-prompts", j->num_prompts);
    flag_int(b, "--max-concurrency", j->concurrency);
    sb_add(b, " --request-rate inf --percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 50,90,99"
              " --save-result --result-dir \"$PWD\" --result-filename " SERVE_JOB_VLLM_RESULT "\n");
    return 0;
}

static int trtllm_command(const serve_job *j, strbuf *b)
{
    sb_add(b, "trtllm-bench --model \"$PWD/model\" prepare-dataset --output \"$PWD/" SERVE_JOB_TRTLLM_DATASET
              "\" token-norm-dist");
    flag_int(b, "--num-requests", j->num_prompts);
    flag_int(b, "--input-mean", j->input_len);
    sb_add(b, " --input-stdev 0");
    flag_int(b, "--output-mean", j->output_len);
    sb_add(b, " --output-stdev 0 || exit 1\n");
    sb_add(b, "trtllm-bench --model \"$PWD/model\" --model_path \"$PWD/model\" throughput --backend pytorch"
              " --dataset \"$PWD/" SERVE_JOB_TRTLLM_DATASET "\"");
    flag_int(b, "--tp", j->tp);
    flag_int(b, "--pp", j->pp);
    flag_int(b, "--concurrency", j->concurrency);
    flag_int(b, "--max_batch_size", j->max_num_seqs);
    flag_int(b, "--max_seq_len", j->input_len + j->output_len);
    flag_int(b, "--num_requests", j->num_prompts);
    sb_add(b, " --warmup 2 --streaming --extra_llm_api_options \"$PWD/" SERVE_JOB_TRTLLM_OPTIONS "\""
              " --report_json \"$PWD/" SERVE_JOB_TRTLLM_REPORT "\"\n");
    return 0;
}

int serve_job_command(const serve_job *j, strbuf *b, ac_err *e)
{
    if (!j->engine || (strcmp(j->engine, "vllm") && strcmp(j->engine, "trtllm")))
        return ac_err_set(e, AC_E_INPUT, "no benchmark job for engine '%s' (vllm, trtllm)", j->engine ? j->engine : "");
    if (j->tp < 1 || j->pp < 1 || j->max_num_seqs < 1 || j->concurrency < 1 || j->input_len < 1 || j->output_len < 1 ||
        j->num_prompts < 1)
        return ac_err_set(e, AC_E_INPUT, "a serving job needs positive tp, pp, max batch, concurrency, lengths and prompts");
    sb_add(b, "cd ");
    if (shell_quote_add(b, j->dir, e)) return -1;
    sb_add(b, " || exit 1\n");
    /* a job run again in the same folder (another precision, a retry) must not leave the last
     * run's results to be read as its own */
    sb_add(b, "rm -f " SERVE_JOB_VLLM_RESULT " " SERVE_JOB_TRTLLM_REPORT " " SERVE_JOB_TRTLLM_DATASET " vllm_server.log\n");
    if (tokenizer_step(j, b, e)) return -1;
    int rc = !strcmp(j->engine, "vllm") ? vllm_command(j, b, e) : trtllm_command(j, b);
    if (rc) return rc;
    return b->oom ? ac_err_set(e, AC_E_NOMEM, "out of memory") : 0;
}

void serve_job_trtllm_options(const serve_job *j, strbuf *b)
{
    sb_add(b, "# trtllm-bench --extra_llm_api_options, written by autoconfig\n"
              "load_format: DUMMY\n");
    if (j->fp8_kv) sb_add(b, "kv_cache_config:\n  dtype: fp8\n");
}

/* one "key": value line of the JSON object */
static void jint(strbuf *b, const char *k, long v, bool last) { sb_printf(b, "  \"%s\": %ld%s\n", k, v, last ? "" : ","); }
static void jstr(strbuf *b, const char *k, const char *v) { sb_printf(b, "  \"%s\": \"%s\",\n", k, v); }

int serve_job_hf_config(const model_shape *s, const char *torch_dtype, int max_pos, strbuf *b, ac_err *e)
{
    if (s->arch != ARCH_DECODER) return ac_err_set(e, AC_E_INPUT, "the serving engines' jobs serve decoder models");
    if (s->kv_lora_rank > 0)
        return ac_err_set(e, AC_E_INPUT, "a latent-attention model needs its own config.json: pass it with --hf-config");
    const char *dt = torch_dtype && torch_dtype[0] ? torch_dtype : "bfloat16";
    if (strspn(dt, "abcdefghijklmnopqrstuvwxyz0123456789") != strlen(dt))
        return ac_err_set(e, AC_E_INPUT, "torch_dtype '%s' is not a dtype name", dt);
    int pos = max_pos > s->seq_length ? max_pos : s->seq_length;
    int ffn = s->ffn_hidden > 0 ? s->ffn_hidden : 4 * s->hidden;
    sb_add(b, "{\n");
    if (s->learned_pos_emb && !s->gated_mlp && !shape_is_moe(s)) {
        /* GPT-3 (NeMo's GPT: learned positions, GeLU MLP, LayerNorm, tied output) in
         * transformers' GPT-2 layout */
        sb_add(b, "  \"architectures\": [\"GPT2LMHeadModel\"],\n");
        jstr(b, "model_type", "gpt2");
        jint(b, "n_embd", s->hidden, false);
        jint(b, "n_layer", s->num_layers, false);
        jint(b, "n_head", s->heads, false);
        jint(b, "n_inner", ffn, false);
        jint(b, "n_positions", pos, false);
        jstr(b, "activation_function", "gelu_new");
        sb_add(b, "  \"layer_norm_epsilon\": 1e-05,\n  \"tie_word_embeddings\": true,\n");
    } else {
        bool moe = shape_is_moe(s);
        sb_printf(b, "  \"architectures\": [\"%s\"],\n", moe ? "MixtralForCausalLM" : "LlamaForCausalLM");
        jstr(b, "model_type", moe ? "mixtral" : "llama");
        jint(b, "hidden_size", s->hidden, false);
        jint(b, "intermediate_size", moe && s->moe_ffn_hidden > 0 ? s->moe_ffn_hidden : ffn, false);
        jint(b, "num_hidden_layers", s->num_layers, false);
        jint(b, "num_attention_heads", s->heads, false);
        jint(b, "num_key_value_heads", shape_query_groups(s), false);
        if (s->kv_channels > 0) jint(b, "head_dim", s->kv_channels, false);
        if (moe) {
            jint(b, "num_local_experts", s->num_experts, false);
            jint(b, "num_experts_per_tok", (long)shape_moe_topk(s), false);
        }
        jint(b, "max_position_embeddings", pos, false);
        jstr(b, "hidden_act", "silu");
        /* rope_theta changes numerics, not speed (dummy weights): the preset families' own values,
         * meta-llama/Meta-Llama-3-8B config.json 500000, mistralai/Mixtral-8x7B-v0.1 config.json 1e6 */
        sb_printf(b, "  \"rms_norm_eps\": 1e-05,\n  \"rope_theta\": %s,\n  \"tie_word_embeddings\": %s,\n",
                  moe ? "1000000.0" : "500000.0", s->untied_embeddings ? "false" : "true");
    }
    jstr(b, "torch_dtype", dt);
    /* no vocabulary in the shape: NeMo's GPT-3 padded GPT-2 BPE (51200, the vocab of
     * FasterTransformer's GPT guide and the launcher's gpt3 configs) */
    jint(b, "vocab_size", s->vocab > 0 ? s->vocab : 51200, true);
    sb_add(b, "}\n");
    return b->oom ? ac_err_set(e, AC_E_NOMEM, "out of memory") : 0;
}
