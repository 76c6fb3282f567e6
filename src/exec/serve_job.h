/* serve_job.h — the benchmark job of one serving configuration on today's engines
 * (issue 27's measured path): vLLM's online serving benchmark and TensorRT-LLM's
 * trtllm-bench, with each engine's real flags, on random ("dummy") weights so a search
 * needs no checkpoint.
 *
 * A job folder <results_dir>/inference/<name>/ holds
 *   model/config.json       the architecture, a Hugging Face config: the --hf-config file
 *                           as given, else written from the preset's shape (GPT-2,
 *                           Llama or Mixtral layout, serve_job_hf_config)
 *   model/tokenizer files   copied from run.tokenizer when it is a folder; a hub name is
 *                           fetched into model/ by the job itself (transformers'
 *                           AutoTokenizer.save_pretrained) before the engine starts
 *   extra_llm_api_options.yaml  (trtllm) load_format: DUMMY, the KV-cache dtype
 *   submission_script.sh    the job: the engine command below inside srun (Slurm) or bash
 * and, once it ran, result.json (vLLM --save-result) or report.json (trtllm-bench
 * --report_json) beside the engine's printed report in log_job_<id>.out.
 *
 * vLLM (`vllm serve` + `vllm bench serve`, the client formerly benchmarks/benchmark_serving.py):
 *   the server starts in the background on a port derived from the job id; the job polls
 *   GET /health (vLLM's OpenAI server route) until it answers, or the server exits (its
 *   log's tail is the job's error); then the client runs a closed loop of
 *   --max-concurrency clients over --num-prompts random prompts of fixed lengths
 *   (--ignore-eos keeps every output at its length), and the server is stopped.
 * trtllm-bench (PyTorch backend): `prepare-dataset ... token-norm-dist` writes the
 *   synthetic requests (stdev 0: fixed lengths), `throughput --concurrency --streaming`
 *   runs them in process and reports TTFT/TPOT (streaming) and throughput.
 *
 * Every value in the text is single-quoted (util/shell.h); the engines' own words are
 * fixed strings of this file.
 */
#ifndef AC_EXEC_SERVE_JOB_H
#define AC_EXEC_SERVE_JOB_H

#include <stdbool.h>

#include "model/shape.h"
#include "util/err.h"
#include "util/strbuf.h"

#define SERVE_JOB_VLLM_RESULT "result.json"
#define SERVE_JOB_TRTLLM_REPORT "report.json"
#define SERVE_JOB_TRTLLM_DATASET "dataset.jsonl"
/* how long a job waits for vllm serve's /health before it fails (model load with dummy weights,
 * CUDA graph capture and NCCL set-up take minutes on large TP; a hang takes forever) */
#define SERVE_JOB_READY_S_TEXT "1800"
#define SERVE_JOB_TRTLLM_OPTIONS "extra_llm_api_options.yaml"

typedef struct {
    const char *engine;     /* "vllm" | "trtllm" */
    const char *dir;        /* the job folder (absolute or as the job's cwd sees it) */
    const char *tokenizer;  /* a hub name the job fetches into <dir>/model; NULL/"": model/ has one */
    int tp, pp;
    int max_num_seqs;       /* vLLM --max-num-seqs, trtllm-bench --max_batch_size */
    int concurrency;        /* vLLM --max-concurrency, trtllm-bench --concurrency */
    int input_len, output_len;
    int num_prompts;        /* vLLM --num-prompts, trtllm --num-requests / --num_requests */
    const char *dtype;      /* vLLM --dtype: bfloat16 | float16 | float32 */
    bool fp8_weights;       /* vLLM --quantization fp8 (trtllm: not on dummy weights) */
    bool fp8_kv;            /* vLLM --kv-cache-dtype fp8; trtllm kv_cache_config.dtype fp8 */
} serve_job;

/* Appends the bash text of the job (run in j->dir).  0, or -1 with e (an unknown engine,
 * a value the quoting refuses, out of memory). */
int serve_job_command(const serve_job *j, strbuf *b, ac_err *e);

/* trtllm-bench's --extra_llm_api_options YAML (LLM API arguments) */
void serve_job_trtllm_options(const serve_job *j, strbuf *b);

/* A Hugging Face config.json for a shape without one: GPT-2 layout (learned positions,
 * GeLU MLP, tied embeddings: the GPT-3 presets), Mixtral (experts) or Llama (the rest).
 * torch_dtype "bfloat16"/"float16"; max_pos the longest sequence served.  0, or -1 with e
 * for shapes no engine loads from such a file (encoder models, latent attention). */
int serve_job_hf_config(const model_shape *s, const char *torch_dtype, int max_pos, strbuf *b, ac_err *e);

#endif
