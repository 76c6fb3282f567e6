/* emulate_serve.h — emulated serving engines for machines without GPUs (tests, CI), the
 * counterpart of emulate-job for the inference jobs of serve_job.h.
 *
 * `autoconfig emulate-serve [--gpu NAME] vllm|trtllm-bench ARGS...` stands in for the
 * engine's own command line (tests put `vllm` and `trtllm-bench` shims on PATH that exec
 * it), so the job scripts run unchanged.  It takes the engines' real flags, refuses the
 * ones they do not have (as argparse/click would: "unrecognized arguments"), fails where
 * the engine would fail, with the engine's words:
 *   attention heads not divisible by TP   vLLM ValueError "Total number of attention heads
 *                                         (A) must be divisible by tensor parallel size (T)."
 *                                         (vllm/config ModelConfig.verify_with_parallel_config)
 *   weights larger than the GPU at TP x PP  torch.OutOfMemoryError: CUDA out of memory
 *   KV cache smaller than one sequence of  vLLM ValueError "The model's max seq len (L) is
 *   max_model_len                           larger than the maximum number of tokens that can
 *                                         be stored in KV cache (K)..."; trtllm a RuntimeError
 *   no weights and no dummy load format  vLLM/trtllm cannot find model weights
 * (a max batch above the KV cache's capacity is no failure: the engines queue and preempt,
 * as the serving model's KV-limited running batch does);
 * and otherwise writes the outputs in the engines' formats: vLLM's printed "Serving
 * Benchmark Result" block and --save-result JSON, trtllm-bench's prepare-dataset JSONL,
 * its printed report and --report_json.  The figures are the serving model's
 * (estimator/serve.h) for the configuration the flags describe, times a scale
 * (AUTOCONFIG_EMULATE_SCALE, default 1) standing in for a cluster slower or faster than
 * the model; percentiles are the mean times fixed ratios (p50 1.0, p90 1.1, p99 1.25).
 */
#ifndef AC_EXEC_EMULATE_SERVE_H
#define AC_EXEC_EMULATE_SERVE_H

#include <stdbool.h>

#include "estimator/gpu.h"
#include "results/serve_bench.h"
#include "util/err.h"
#include "util/strbuf.h"

typedef enum {
    EMU_VLLM_SERVE,       /* vllm serve MODEL ... */
    EMU_VLLM_BENCH,       /* vllm bench serve ... */
    EMU_TRTLLM_DATASET,   /* trtllm-bench --model M prepare-dataset --output F token-norm-dist ... */
    EMU_TRTLLM_THROUGHPUT /* trtllm-bench --model M --model_path P throughput ... */
} emu_serve_cmd;

/* one engine invocation, read from its argv */
typedef struct {
    emu_serve_cmd cmd;
    char model[1024];      /* vllm serve's positional / --model; trtllm --model_path, else --model */
    int tp, pp, max_num_seqs, max_model_len, concurrency, input_len, output_len, num_prompts, port;
    bool fp8_weights, fp8_kv, dummy, streaming, save_result;
    char dtype[24];
    char result_dir[1024], result_file[256];  /* vLLM --result-dir / --result-filename */
    char dataset[1024], report[1024], options[1024], output[1024]; /* trtllm paths */
} emu_serve_args;

/* argv after "vllm" / "trtllm-bench" (argv[0] is the engine's name).  0, or -1 with e
 * naming the flag the engine does not have or the value it would refuse. */
int emu_serve_parse(int argc, char **argv, emu_serve_args *a, ac_err *e);

/* The engine's start-up and run on this GPU: 1 with why (the engine's error text) when it
 * would fail, 0 with *m when it runs (m NULL: the start-up checks alone), -1 with e when
 * the emulation cannot say (unreadable config.json). */
int emu_serve_run(const emu_serve_args *a, const gpu_spec *g, double scale, results_serve_metrics *m, char *why,
                  size_t why_len, ac_err *e);

/* the engines' outputs */
void emu_serve_vllm_text(const emu_serve_args *a, const results_serve_metrics *m, strbuf *b);
void emu_serve_vllm_json(const emu_serve_args *a, const results_serve_metrics *m, strbuf *b);
void emu_serve_trtllm_text(const emu_serve_args *a, const results_serve_metrics *m, strbuf *b);
void emu_serve_trtllm_json(const emu_serve_args *a, const results_serve_metrics *m, strbuf *b);
/* prepare-dataset's JSONL: {"task_id": i, "input_ids": [...], "output_tokens": O} per line */
void emu_serve_trtllm_dataset(const emu_serve_args *a, int vocab, strbuf *b);
/* what throughput reads back from the dataset: requests, input and output length of the first */
int emu_serve_read_dataset(const char *text, size_t len, int *n, int *input_len, int *output_len);

#endif
