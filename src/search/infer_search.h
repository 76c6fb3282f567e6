/* infer_search.h — the inference HP-search stage (reference §7 and beyond).
 *
 * search_inference_run() sweeps TP × PP × batch size (infer_grid.h) for every
 * (input_len, output_len) pair of inference_settings:
 *   cluster_type sim (default)  every configuration is scored by the analytical
 *       inference model (prefill + decode latency, memory fit); every number is
 *       labelled "predicted"; writes inference_sweep_configs.csv, final_output.csv
 *       and over_latency_limit.csv and prints one table per length pair.
 *   bcm / bcp / local  the measured path: per configuration the folder
 *       <results_dir>/inference/<model_train_name>_tp{tp}_pp{pp}_bs{bs}/ (with
 *       "_in{in}_out{out}" appended when several length pairs are swept) gets
 *       config.ini, start_ids.csv and submission_script.sh, and the script is
 *       handed to the submit hook.  search_inference_summarize() later reads the
 *       logs and writes the summary (the original's final summary job).
 *
 * Settings (ac_config.infer plus the tree for what the typed struct lacks):
 *   benchmark.input_len / output_len   an int or a list; lists are paired
 *       element-wise, a single value pairs with every value of the other list
 *   aliases of older configs, used when the new key is absent:
 *       inference_settings.input_seq_len / output_seq_len → benchmark.input_len / output_len
 *       inference_settings.max_batch_sizes → benchmark.batch_sizes
 *       inference_settings.tensor_parallel_sizes / pipeline_parallel_sizes → run.*
 *   run.model_train_name null → the base config's run name (gpt3_5b)
 *   run.results_dir null → train_settings.logs
 *   run.benchmark_command (optional) the job's command; {ini} and {csv} are
 *       replaced by the quoted paths (default: the original's
 *       /opt/FasterTransformer/build/bin/multi_gpu_gpt_example {ini} {csv})
 *   run.engine fastertransformer (default: the original's static batches) |
 *       vllm | trtllm (in-flight batching, estimator/serve.h); on a real
 *       cluster vllm / trtllm jobs run the engine's own benchmark
 *       (exec/serve_job.h), one per (TP, PP, max batch, lengths, concurrency),
 *       folder <name>_tp{tp}_pp{pp}_bs{bs}_c{conc}[_in{in}_out{out}];
 *       benchmark.concurrency the loads (then batch_sizes are max batch sizes);
 *       run.precisions bf16 | fp16 | fp8 (weights and KV) | fp8_kv (KV only);
 *       max_ttft_ms, max_itl_ms beside max_latency_ms: a row meeting every
 *       limit counts towards goodput (requests/s per GPU), the ranking;
 *       latency_percentile (50, 90, 99) applies the limits to that percentile;
 *       benchmark.request_rates: open-loop loads (Poisson arrivals, requests/s
 *       per instance) beside the concurrencies; run.expert_parallel_sizes:
 *       EP for MoE models (EP | TP and EP | experts, other pairs skipped).
 * Families: every decoder family (GPT-3, Llama with GQA, Mixtral); T5/mT5/BERT
 * are rejected with AC_E_INPUT (the original asserts gpt3).
 */
#ifndef AC_SEARCH_INFER_SEARCH_H
#define AC_SEARCH_INFER_SEARCH_H

#include <stdbool.h>
#include <stdio.h>

#include "config/cfg.h"
#include "exec/serve_job.h"
#include "model/basecfg.h"
#include "model/shape.h"
#include "results/infer_summary.h"
#include "search/infer_grid.h"
#include "util/err.h"

enum { SEARCH_INFER_MAX_PAIRS = 64 };

/* one point the analytical model scores */
typedef struct {
    const model_shape *shape;
    int tp, pp, bs, input_len, output_len, beam_width;
    const char *data_type; /* fp16 | bf16 | fp8 | fp32 */
    const char *gpu;       /* catalog name; "" = A100 with gpu_memory_gb */
    int gpu_memory_gb;
    int gpus_per_node;
    /* serving (estimator/serve.h): NULL engine = fastertransformer's static batch of bs */
    const char *engine;
    int concurrency;       /* the load; bs is then the engine's max batch (max_num_seqs) */
    int kv_bytes;          /* bytes per KV-cache element; 0 = the precision's */
    double request_rate;   /* open-loop load (requests/s to one instance) when concurrency is 0; 0 = none */
    int ep;                /* MoE expert parallelism inside the TP group (0/1 = none) */
    int percentile;        /* the limits' percentile (0 = means) */
    double input_cv, output_cv; /* length spreads: standard deviation / mean (0 = fixed) */
} search_infer_point;

typedef struct {
    double latency_ms;  /* whole request: prefill + output_len decode steps */
    double mem_gib;     /* per GPU: weights + KV cache + workspace */
    int fits;           /* 1 / 0 */
    /* NAN / 0 when the model hook does not set them */
    double mem_limit_gib;   /* usable per GPU */
    double ttft_ms, itl_ms; /* means */
    double requests_per_s;  /* one instance; NAN = bs / latency (a static batch) */
    int kv_capacity;        /* sequences the KV cache holds */
    double ttft_p_ms, itl_p_ms, latency_p_ms; /* at the point's percentile (NAN without one) */
    int saturated;          /* an open-loop rate beyond what the instance serves (1 / 0) */
} search_infer_estimate;

/* the seam to the analytical model: 0, or -1 with e set */
typedef int (*search_infer_model_fn)(const search_infer_point *p, search_infer_estimate *out, ac_err *e);

/* the seam to the executor: submit script_path (workdir = its folder); job_id
 * gets the id.  0, or -1 with e set.  NULL hook = scripts written, not submitted. */
typedef int (*search_infer_submit_fn)(void *ctx, const ac_config *c, const char *script_path, const char *workdir,
                                      int nodes, int tasks_per_node, char *job_id, size_t job_id_len, ac_err *e);

typedef struct {
    search_infer_model_fn model;   /* NULL = the estimator's inference model */
    search_infer_submit_fn submit; /* NULL = do not submit; set: the stage prints nothing, the caller
                                    * runs the jobs and prints search_inference_summarize's table */
    void *submit_ctx;
} search_infer_hooks;

/* the resolved sweep settings */
typedef struct {
    int tp[CFG_LIST_MAX], ntp;
    int pp[CFG_LIST_MAX], npp;
    int bs[CFG_LIST_MAX], nbs;
    int in_len[SEARCH_INFER_MAX_PAIRS], out_len[SEARCH_INFER_MAX_PAIRS], npairs;
    int gpus_per_node;
    char gpu_name[32];              /* catalog name of the GPU (train_settings.gpu / gpu_memory_gb) */
    char name[CFG_NAME_MAX];        /* model_train_name */
    char results_dir[CFG_PATH_MAX]; /* inference results go to <results_dir>/inference */
    char command[1024];             /* benchmark command template */
    const char *engine;             /* run.engine (estimator/serve.h) */
    int conc[CFG_LIST_MAX], nconc;  /* benchmark.concurrency; 0 = the batch sizes are the load */
    double rate[CFG_KNOB_MAX];      /* benchmark.request_rates, requests/s per instance */
    int nrate;
    int ep[CFG_LIST_MAX], nep;      /* run.expert_parallel_sizes (MoE; [1] otherwise) */
    int percentile;                 /* latency_percentile, 0 = means */
    size_t same_run;                /* predicted rows left out: a max batch above a concurrency load
                                     * that a smaller max batch of the sweep already holds (same run) */
    struct {
        char name[CFG_KNOB_LEN];    /* as the user wrote it */
        char data_type[16];         /* weights and GEMMs */
        int kv_bytes;               /* 0 = the precision's */
    } prec[CFG_KNOB_MAX];
    int nprec;
    /* the measured path of vllm / trtllm (exec/serve_job.h) */
    bool serving_jobs;              /* a continuous engine on a real cluster */
    char tokenizer_dir[CFG_PATH_MAX]; /* tokenizer files copied into each job's model/ ("" none) */
    char tokenizer_hub[256];        /* else a hub name each job fetches */
} search_infer_settings;

int search_infer_settings_resolve(const ac_config *c, const model_base_config *base, search_infer_settings *s, ac_err *e);

/* the stage with the default hooks; -1 on an error (e), 1 when it ran and printed its table but no
 * configuration fits and meets every limit (e says so; its results are written) */
int search_inference_run(const ac_config *c, const model_base_config *base, FILE *out, bool json, ac_err *e);
/* the stage's settings, sweep and job names checked, nothing written: `run` calls it
 * before its first file so a bad inference setting leaves no half-done results */
int search_inference_check(const ac_config *c, const model_base_config *base, ac_err *e);
/* the stage with explicit hooks (tests, the executor) */
int search_inference_run_with(const ac_config *c, const model_base_config *base, const search_infer_hooks *h,
                              FILE *out, bool json, ac_err *e);

/* measured path, after the jobs: reads inference_sweep_configs.csv and every
 * configuration's log, writes final_output.csv / over_latency_limit.csv, prints; returns as
 * search_inference_run */
int search_inference_summarize(const ac_config *c, const model_base_config *base, FILE *out, bool json, ac_err *e);

/* the folder name of one configuration: <name>_tp{tp}_pp{pp}_bs{bs}[_in{in}_out{out}] */
void search_infer_config_name(const search_infer_settings *s, int tp, int pp, int bs, int in, int out, char *buf,
                              size_t len);

/* the same with the load: "_c{concurrency}" after bs when concurrency > 0 (the serving engines' jobs) */
void search_infer_config_name_c(const search_infer_settings *s, int tp, int pp, int bs, int conc, int in, int out,
                                char *buf, size_t len);

/* the ledger's name of the benchmark whose folder is dir (<results_dir>/inference/<name>):
 * "benchmark_<name>", as the run records it and the summary looks it up; false when it does
 * not fit len */
bool search_infer_run_name(const char *dir, char *buf, size_t len);

/* the Slurm/local job script of one configuration (exposed for tests); sj NULL: the
 * FasterTransformer benchmark (run.benchmark_command), else the serving engine's job */
int search_infer_job_script(const ac_config *c, const search_infer_settings *s, const search_infer_cfg *g,
                            const char *name, const char *dir, const serve_job *sj, strbuf *b, ac_err *e);

#endif
