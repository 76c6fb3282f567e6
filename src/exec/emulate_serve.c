/* emulate_serve.c — emulated vLLM and trtllm-bench (emulate_serve.h). */
#include "exec/emulate_serve.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cost/cost.h"
#include "estimator/serve.h"
#include "util/fsutil.h"

/* where a flag is valid: vllm serve, vllm bench serve, trtllm-bench before its subcommand,
 * prepare-dataset, token-norm-dist, throughput */
enum { C_VSERVE = 1, C_VBENCH = 2, C_TGLOBAL = 4, C_TDATA = 8, C_TNORM = 16, C_TTHRU = 32 };
/* K_SIDE: a value read by name after parsing (load format, ...), kept in side_values */
typedef enum { K_INT, K_STR, K_BOOL, K_SKIP_VALUE, K_SIDE } flag_kind;

typedef struct {
    char load_format[32], quantization[32], kv_dtype[32], dataset_name[32], backend[32];
} side_values;

/* the flags the job templates use (serve_job.c) and a few more each engine has; each
 * with the context it belongs to, as the engine's argparse / click groups define them */
#define I(f) offsetof(emu_serve_args, f), 0
#define S(f) offsetof(emu_serve_args, f), sizeof(((emu_serve_args *)0)->f)
#define V(f) offsetof(side_values, f), sizeof(((side_values *)0)->f)
#define NO 0, 0
static const struct {
    int ctx;
    const char *flag;
    flag_kind kind;
    size_t off, size;
} FLAGS[] = {
    { C_VSERVE, "--tensor-parallel-size", K_INT, I(tp) },
    { C_VSERVE, "--pipeline-parallel-size", K_INT, I(pp) },
    { C_VSERVE, "--max-num-seqs", K_INT, I(max_num_seqs) },
    { C_VSERVE, "--max-model-len", K_INT, I(max_model_len) },
    { C_VSERVE, "--dtype", K_STR, S(dtype) },
    { C_VSERVE, "--load-format", K_SIDE, V(load_format) }, /* read below: dummy */
    { C_VSERVE, "--quantization", K_SIDE, V(quantization) }, /* read below: fp8 */
    { C_VSERVE, "--kv-cache-dtype", K_SIDE, V(kv_dtype) }, /* read below: fp8 */
    { C_VSERVE, "--gpu-memory-utilization", K_SKIP_VALUE, NO },
    { C_VSERVE, "--max-num-batched-tokens", K_SKIP_VALUE, NO },
    { C_VSERVE | C_VBENCH, "--host", K_SKIP_VALUE, NO },
    { C_VSERVE | C_VBENCH, "--port", K_INT, I(port) },
    { C_VSERVE, "--tokenizer", K_SKIP_VALUE, NO },
    { C_VBENCH, "--backend", K_SKIP_VALUE, NO },
    { C_VBENCH, "--model", K_STR, S(model) },
    { C_VBENCH, "--tokenizer", K_SKIP_VALUE, NO },
    { C_VBENCH, "--dataset-name", K_SIDE, V(dataset_name) }, /* read below: random */
    { C_VBENCH, "--random-input-len", K_INT, I(input_len) },
    { C_VBENCH, "--random-output-len", K_INT, I(output_len) },
    { C_VBENCH, "--random-range-ratio", K_SKIP_VALUE, NO },
    { C_VBENCH, "--ignore-eos", K_BOOL, NO },
    { C_VBENCH, "--num-prompts", K_INT, I(num_prompts) },
    { C_VBENCH, "--max-concurrency", K_INT, I(concurrency) },
    { C_VBENCH, "--request-rate", K_SKIP_VALUE, NO },
    { C_VBENCH, "--percentile-metrics", K_SKIP_VALUE, NO },
    { C_VBENCH, "--metric-percentiles", K_SKIP_VALUE, NO },
    { C_VBENCH, "--save-result", K_BOOL, I(save_result) },
    { C_VBENCH, "--result-dir", K_STR, S(result_dir) },
    { C_VBENCH, "--result-filename", K_STR, S(result_file) },
    { C_VBENCH, "--seed", K_SKIP_VALUE, NO },
    { C_TGLOBAL, "--model", K_STR, S(output) },             /* the name; model_path wins below */
    { C_TGLOBAL, "--model_path", K_STR, S(model) },
    { C_TGLOBAL, "--workspace", K_SKIP_VALUE, NO },
    { C_TGLOBAL, "--log_level", K_SKIP_VALUE, NO },
    { C_TDATA, "--output", K_STR, S(dataset) },
    { C_TDATA, "--random-seed", K_SKIP_VALUE, NO },
    { C_TNORM, "--num-requests", K_INT, I(num_prompts) },
    { C_TNORM, "--input-mean", K_INT, I(input_len) },
    { C_TNORM, "--input-stdev", K_SKIP_VALUE, NO },
    { C_TNORM, "--output-mean", K_INT, I(output_len) },
    { C_TNORM, "--output-stdev", K_SKIP_VALUE, NO },
    { C_TTHRU, "--backend", K_SIDE, V(backend) }, /* read below: pytorch */
    { C_TTHRU, "--dataset", K_STR, S(dataset) },
    { C_TTHRU, "--tp", K_INT, I(tp) },
    { C_TTHRU, "--pp", K_INT, I(pp) },
    { C_TTHRU, "--ep", K_SKIP_VALUE, NO },
    { C_TTHRU, "--concurrency", K_INT, I(concurrency) },
    { C_TTHRU, "--max_batch_size", K_INT, I(max_num_seqs) },
    { C_TTHRU, "--max_num_tokens", K_SKIP_VALUE, NO },
    { C_TTHRU, "--max_seq_len", K_INT, I(max_model_len) },
    { C_TTHRU, "--num_requests", K_INT, I(num_prompts) },
    { C_TTHRU, "--warmup", K_SKIP_VALUE, NO },
    { C_TTHRU, "--eos_id", K_SKIP_VALUE, NO },
    { C_TTHRU, "--kv_cache_free_gpu_mem_fraction", K_SKIP_VALUE, NO },
    { C_TTHRU, "--streaming", K_BOOL, I(streaming) },
    { C_TTHRU, "--extra_llm_api_options", K_STR, S(options) },
    { C_TTHRU, "--report_json", K_STR, S(report) },
};
#undef I
#undef S
#undef V
#undef NO
enum { N_FLAGS = sizeof FLAGS / sizeof FLAGS[0] };

/* the value of one flag into the struct, or into side_values for K_SIDE */
static int set_value(emu_serve_args *a, side_values *sv, size_t k, const char *flag, const char *v, ac_err *e)
{
    char *base = (char *)a;
    switch (FLAGS[k].kind) {
    case K_INT: {
        char *end;
        long x = strtol(v, &end, 10);
        if (!*v || *end || x < 0 || x > 100000000)
            return ac_err_set(e, AC_E_INPUT, "argument %s: invalid int value: '%s'", flag, v);
        *(int *)(base + FLAGS[k].off) = (int)x;
        return 0;
    }
    case K_STR:
        if (strlen(v) >= FLAGS[k].size) return ac_err_set(e, AC_E_INPUT, "argument %s: value too long", flag);
        snprintf(base + FLAGS[k].off, FLAGS[k].size, "%s", v);
        return 0;
    case K_SIDE: /* judged by name after parsing (emu_serve_parse) */
        snprintf((char *)sv + FLAGS[k].off, FLAGS[k].size, "%s", v);
        return 0;
    case K_SKIP_VALUE:
    case K_BOOL:
        break;
    }
    return 0;
}

static int parse_flags(int argc, char **argv, int *i, int ctx, emu_serve_args *a, side_values *sv, ac_err *e)
{
    for (; *i < argc; (*i)++) {
        const char *arg = argv[*i];
        if (strncmp(arg, "--", 2)) return 0; /* a positional: the caller's */
        const char *eq = strchr(arg, '=');
        size_t fl = eq ? (size_t)(eq - arg) : strlen(arg);
        size_t k;
        for (k = 0; k < N_FLAGS; k++)
            if ((FLAGS[k].ctx & ctx) && strlen(FLAGS[k].flag) == fl && !strncmp(FLAGS[k].flag, arg, fl)) break;
        if (k == N_FLAGS) return ac_err_set(e, AC_E_INPUT, "error: unrecognized arguments: %.*s", (int)fl, arg);
        char flag[64];
        snprintf(flag, sizeof flag, "%.*s", (int)fl, arg);
        if (FLAGS[k].kind == K_BOOL) {
            if (eq) return ac_err_set(e, AC_E_INPUT, "argument %s: ignored explicit argument '%s'", flag, eq + 1);
            if (FLAGS[k].size == 0 && FLAGS[k].off) *(bool *)((char *)a + FLAGS[k].off) = true;
            continue;
        }
        const char *v = eq ? eq + 1 : (*i + 1 < argc ? argv[++*i] : NULL);
        if (!v) return ac_err_set(e, AC_E_INPUT, "argument %s: expected one argument", flag);
        if (set_value(a, sv, k, flag, v, e)) return -1;
    }
    return 0;
}

int emu_serve_parse(int argc, char **argv, emu_serve_args *a, ac_err *e)
{
    memset(a, 0, sizeof *a);
    a->tp = a->pp = 1;
    side_values sv = { "", "", "", "", "" };
    if (argc < 2) return ac_err_set(e, AC_E_INPUT, "expected an engine command after the engine's name");
    const char *eng = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    int i = 1;
    if (!strcmp(eng, "vllm")) {
        if (!strcmp(argv[1], "serve")) {
            a->cmd = EMU_VLLM_SERVE;
            i = 2;
            if (i < argc && strncmp(argv[i], "--", 2)) snprintf(a->model, sizeof a->model, "%s", argv[i++]);
            if (parse_flags(argc, argv, &i, C_VSERVE, a, &sv, e)) return -1;
            if (!a->model[0]) return ac_err_set(e, AC_E_INPUT, "vllm serve: the model is required");
            a->max_num_seqs = a->max_num_seqs ? a->max_num_seqs : 256;
            a->port = a->port ? a->port : 8000;
        } else if (argc > 2 && !strcmp(argv[1], "bench") && !strcmp(argv[2], "serve")) {
            a->cmd = EMU_VLLM_BENCH;
            i = 3;
            if (parse_flags(argc, argv, &i, C_VBENCH, a, &sv, e)) return -1;
            if (sv.dataset_name[0] && strcmp(sv.dataset_name, "random"))
                return ac_err_set(e, AC_E_INPUT, "the emulation runs --dataset-name random only, not '%s'", sv.dataset_name);
            a->port = a->port ? a->port : 8000;
            a->num_prompts = a->num_prompts ? a->num_prompts : 1000;
            a->input_len = a->input_len ? a->input_len : 1024;
            a->output_len = a->output_len ? a->output_len : 128;
        } else {
            return ac_err_set(e, AC_E_INPUT, "vllm: the emulation knows 'serve' and 'bench serve', not '%s'", argv[1]);
        }
    } else if (!strcmp(eng, "trtllm-bench")) {
        if (parse_flags(argc, argv, &i, C_TGLOBAL, a, &sv, e)) return -1;
        if (!a->model[0]) snprintf(a->model, sizeof a->model, "%s", a->output); /* --model names the folder */
        a->output[0] = '\0';
        if (i >= argc) return ac_err_set(e, AC_E_INPUT, "trtllm-bench: missing command");
        if (!strcmp(argv[i], "prepare-dataset")) {
            a->cmd = EMU_TRTLLM_DATASET;
            i++;
            if (parse_flags(argc, argv, &i, C_TDATA, a, &sv, e)) return -1;
            if (i >= argc || strcmp(argv[i], "token-norm-dist"))
                return ac_err_set(e, AC_E_INPUT, "trtllm-bench prepare-dataset: the emulation knows token-norm-dist only");
            i++;
            if (parse_flags(argc, argv, &i, C_TNORM, a, &sv, e)) return -1;
            if (!a->num_prompts || !a->input_len || !a->output_len)
                return ac_err_set(e, AC_E_INPUT, "token-norm-dist: --num-requests, --input-mean and --output-mean are required");
            if (!a->dataset[0]) snprintf(a->dataset, sizeof a->dataset, "preprocessed_dataset.json");
        } else if (!strcmp(argv[i], "throughput")) {
            a->cmd = EMU_TRTLLM_THROUGHPUT;
            i++;
            if (parse_flags(argc, argv, &i, C_TTHRU, a, &sv, e)) return -1;
            if (sv.backend[0] && strcmp(sv.backend, "pytorch"))
                return ac_err_set(e, AC_E_INPUT, "the emulation runs --backend pytorch only, not '%s'", sv.backend);
            if (!a->dataset[0]) return ac_err_set(e, AC_E_INPUT, "throughput: --dataset is required here");
            a->max_num_seqs = a->max_num_seqs ? a->max_num_seqs : 2048;
        } else {
            return ac_err_set(e, AC_E_INPUT, "trtllm-bench: no such command '%s'", argv[i]);
        }
        if (!a->model[0]) return ac_err_set(e, AC_E_INPUT, "trtllm-bench: --model is required");
    } else {
        return ac_err_set(e, AC_E_INPUT, "no emulation of '%s' (vllm, trtllm-bench)", eng);
    }
    if (i < argc) return ac_err_set(e, AC_E_INPUT, "error: unrecognized arguments: %s", argv[i]);
    a->dummy = !strcasecmp(sv.load_format, "dummy");
    a->fp8_weights = !strcasecmp(sv.quantization, "fp8");
    a->fp8_kv = !strncmp(sv.kv_dtype, "fp8", 3);
    if (sv.quantization[0] && !a->fp8_weights)
        return ac_err_set(e, AC_E_INPUT, "the emulation knows --quantization fp8 only, not '%s'", sv.quantization);
    return 0;
}

/* trtllm's options YAML: load_format DUMMY and kv_cache_config dtype fp8, as written by
 * serve_job_trtllm_options (a line scan: the emulation reads what the template writes) */
static void read_trtllm_options(const char *path, emu_serve_args *a)
{
    ac_err e;
    size_t len = 0;
    char *text = path[0] ? fs_read_file(path, &len, &e) : NULL;
    if (!text) return;
    bool in_kv = false;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] != ' ') in_kv = !strncmp(line, "kv_cache_config:", 16);
        char *v = strchr(line, ':');
        if (!v) continue;
        v++;
        while (*v == ' ') v++;
        if (!strncmp(line, "load_format:", 12)) a->dummy = !strcasecmp(v, "dummy");
        else if (in_kv && strstr(line, "dtype:")) a->fp8_kv = !strncmp(v, "fp8", 3);
    }
    free(text);
}

int emu_serve_read_dataset(const char *text, size_t len, int *n, int *input_len, int *output_len)
{
    *n = 0;
    *input_len = *output_len = 0;
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text) : len;
        if (end > i) {
            if (*n == 0) {
                /* the first request: commas between input ids + 1, and output_tokens */
                const char *ids = NULL, *out = NULL;
                for (size_t k = i; k + 11 <= end; k++) {
                    if (!ids && !memcmp(text + k, "\"input_ids\"", 11)) ids = text + k;
                    if (k + 15 <= end && !memcmp(text + k, "\"output_tokens\"", 15)) out = text + k + 15;
                }
                if (ids) {
                    const char *open = memchr(ids, '[', (size_t)(text + end - ids));
                    const char *close = open ? memchr(open, ']', (size_t)(text + end - open)) : NULL;
                    if (open && close) {
                        int c = close > open + 1;
                        for (const char *p = open; p < close; p++) c += *p == ',';
                        *input_len = c;
                    }
                }
                if (out) {
                    while (out < text + end && (*out == ':' || *out == ' ')) out++;
                    *output_len = (int)strtol(out, NULL, 10);
                }
            }
            (*n)++;
        }
        i = end + 1;
    }
    return *n > 0 && *input_len > 0 && *output_len > 0 ? 0 : -1;
}

/* the serving model at this configuration and load */
static int evaluate(const emu_serve_args *a, const model_shape *sh, const gpu_spec *g, int in_len, int out_len, int conc,
                    serve_result *r, char *why, size_t wl)
{
    serve_input in;
    serve_input_init(&in, sh, g, serve_engine_find(a->cmd <= EMU_VLLM_BENCH ? "vllm" : "trtllm"));
    in.in.tp = a->tp;
    in.in.pp = a->pp;
    in.in.precision = a->fp8_weights ? PREC_FP8 : !strcmp(a->dtype, "float16") ? PREC_FP16 : PREC_BF16;
    in.in.kv_bytes = a->fp8_kv ? 1 : 2;
    in.input_len = in_len;
    in.output_len = out_len;
    in.concurrency = conc;
    in.max_num_seqs = a->max_num_seqs;
    return serve_evaluate(&in, r, why, wl);
}

/* one emulated time over the requests: the serving model predicts its mean, the rest are fixed
 * ratios of it (emulate_serve.h), the one place they are written; results_serve_metrics keeps
 * the median, p90 and p99, the printers take the others from here */
typedef struct {
    double mean, median, p90, p95, p99, min, max, std;
} spread;

static spread spread_of(double mean)
{
    return (spread){mean, mean, 1.1 * mean, 1.15 * mean, 1.25 * mean, 0.8 * mean, 1.3 * mean, 0.1 * mean};
}

/* the metric's mean, median, p90 and p99 fields from its spread */
static void set_metric(double *mean, double *median, double *p90, double *p99, double v)
{
    spread x = spread_of(v);
    *mean = x.mean, *median = x.median, *p90 = x.p90, *p99 = x.p99;
}

int emu_serve_run(const emu_serve_args *a0, const gpu_spec *g, double scale, results_serve_metrics *m, char *why,
                  size_t wl, ac_err *e)
{
    emu_serve_args a = *a0;
    if (a.cmd == EMU_TRTLLM_THROUGHPUT) read_trtllm_options(a.options, &a);
    char path[1100];
    snprintf(path, sizeof path, "%s/config.json", a.model);
    cost_model cm;
    if (cost_hf_config_load(path, &cm, e)) return -1;
    const model_shape *sh = &cm.shape;
    bool vllm = a.cmd <= EMU_VLLM_BENCH;
    if (!a.dummy) {
        snprintf(why, wl, "RuntimeError: Cannot find any model weights with `%s` (emulated: only load format "
                 "dummy runs without a checkpoint)", a.model);
        return 1;
    }
    if (sh->heads % a.tp) {
        if (vllm)
            snprintf(why, wl, "ValueError: Total number of attention heads (%d) must be divisible by tensor parallel "
                     "size (%d).", sh->heads, a.tp);
        else /* TensorRT-LLM splits heads evenly over TP too; its message is not reproduced */
            snprintf(why, wl, "ValueError: num_attention_heads (%d) is not divisible by tp_size (%d) (emulated wording)",
                     sh->heads, a.tp);
        return 1;
    }
    if (a.pp > sh->num_layers) {
        snprintf(why, wl, "ValueError: pipeline parallel size (%d) is larger than the number of layers (%d).", a.pp,
                 sh->num_layers);
        return 1;
    }
    serve_result r;
    char mwhy[256];
    int max_len = a.max_model_len > 1 ? a.max_model_len : a.input_len + a.output_len;
    if (max_len < 2) max_len = 2;
    /* the weights alone (a two-token sequence): CUDA OOM while loading them */
    if (evaluate(&a, sh, g, 1, 1, 1, &r, mwhy, sizeof mwhy) != 0) {
        if (!strstr(mwhy, "GiB short")) return ac_err_set(e, AC_E_INPUT, "%s", mwhy);
        snprintf(why, wl, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB. GPU 0 has a total "
                 "capacity of %.2f GiB (emulated: the weights at TP %d x PP %d need %.2f GiB per GPU, %.2f usable)",
                 g->memory_gb, a.tp, a.pp, r.mem_need_gib, r.mem_limit_gib);
        return 1;
    }
    int kv_tokens = r.kv_capacity * 2;
    /* one sequence of the longest length must fit the KV cache */
    if (evaluate(&a, sh, g, max_len - 1, 1, 1, &r, mwhy, sizeof mwhy) != 0 || r.kv_capacity < 1) {
        if (vllm)
            snprintf(why, wl, "ValueError: The model's max seq len (%d) is larger than the maximum number of tokens that "
                     "can be stored in KV cache (%d). Try increasing `gpu_memory_utilization` or decreasing "
                     "`max_model_len` when initializing the engine.", max_len, kv_tokens);
        else
            snprintf(why, wl, "RuntimeError: The KV cache holds %d tokens, fewer than one sequence of max_seq_len %d "
                     "(emulated)", kv_tokens, max_len);
        return 1;
    }
    if (!m) return 0;
    if (a.input_len + a.output_len > max_len) {
        snprintf(why, wl, "ValueError: This model's maximum context length is %d tokens. However, you requested %d tokens "
                 "(%d in the messages, %d in the completion).", max_len, a.input_len + a.output_len, a.input_len,
                 a.output_len);
        return 1;
    }
    int conc = a.concurrency > 0 ? a.concurrency : a.num_prompts;
    if (evaluate(&a, sh, g, a.input_len, a.output_len, conc, &r, mwhy, sizeof mwhy) != 0)
        return ac_err_set(e, AC_E_INPUT, "%s", mwhy);
    double s = scale > 0 ? scale : 1.0;
    results_serve_clear(m);
    m->completed = a.num_prompts;
    m->max_concurrency = conc;
    m->request_throughput = r.requests_per_s / s;
    m->output_throughput = m->request_throughput * a.output_len;
    m->total_token_throughput = m->request_throughput * (a.input_len + a.output_len);
    set_metric(&m->mean_ttft_ms, &m->median_ttft_ms, &m->p90_ttft_ms, &m->p99_ttft_ms, r.ttft_s * 1e3 * s);
    set_metric(&m->mean_tpot_ms, &m->median_tpot_ms, &m->p90_tpot_ms, &m->p99_tpot_ms, r.itl_s * 1e3 * s);
    if (vllm) set_metric(&m->mean_itl_ms, &m->median_itl_ms, &m->p90_itl_ms, &m->p99_itl_ms, m->mean_tpot_ms);
    set_metric(&m->mean_e2el_ms, &m->median_e2el_ms, &m->p90_e2el_ms, &m->p99_e2el_ms, r.e2e_s * 1e3 * s);
    return 0;
}

/* ---- vLLM's outputs (vllm/benchmarks/serve.py: "{:<40} {:<10}" lines, headers centred in 50) ---- */

static void centred(strbuf *b, const char *s, char fill)
{
    int n = (int)strlen(s), pad = 50 - n > 0 ? 50 - n : 0, left = pad / 2;
    for (int i = 0; i < left; i++) sb_addn(b, &fill, 1);
    sb_add(b, s);
    for (int i = 0; i < pad - left; i++) sb_addn(b, &fill, 1);
    sb_add(b, "\n");
}

static void row_f(strbuf *b, const char *label, double v) { sb_printf(b, "%-40s %-10.2f\n", label, v); }
static void row_i(strbuf *b, const char *label, long v) { sb_printf(b, "%-40s %-10ld\n", label, v); }

/* one metric's fields of results_serve_metrics */
typedef struct {
    double mean, median, p90, p99;
} metric_fields;
#define FIELDS(m, k) ((metric_fields){(m)->mean_##k##_ms, (m)->median_##k##_ms, (m)->p90_##k##_ms, (m)->p99_##k##_ms})

static void vllm_metric(strbuf *b, const char *title, const char *abbr, metric_fields f)
{
    char l[64];
    centred(b, title, '-');
    snprintf(l, sizeof l, "Mean %s (ms):", abbr); row_f(b, l, f.mean);
    snprintf(l, sizeof l, "Median %s (ms):", abbr); row_f(b, l, f.median);
    snprintf(l, sizeof l, "P50 %s (ms):", abbr); row_f(b, l, f.median);
    snprintf(l, sizeof l, "P90 %s (ms):", abbr); row_f(b, l, f.p90);
    snprintf(l, sizeof l, "P99 %s (ms):", abbr); row_f(b, l, f.p99);
}

static double duration_s(const results_serve_metrics *m)
{
    return m->request_throughput > 0 ? m->completed / m->request_throughput : 0;
}

void emu_serve_vllm_text(const emu_serve_args *a, const results_serve_metrics *m, strbuf *b)
{
    sb_printf(b, "Traffic request rate: inf\nBurstiness factor: 1.0 (Poisson process)\nMaximum request concurrency: %d\n",
              a->concurrency);
    centred(b, " Serving Benchmark Result ", '=');
    row_i(b, "Successful requests:", (long)m->completed);
    row_i(b, "Failed requests:", 0);
    row_i(b, "Maximum request concurrency:", (long)m->max_concurrency);
    row_f(b, "Benchmark duration (s):", duration_s(m));
    row_i(b, "Total input tokens:", (long)m->completed * a->input_len);
    row_i(b, "Total generated tokens:", (long)m->completed * a->output_len);
    row_f(b, "Request throughput (req/s):", m->request_throughput);
    row_f(b, "Output token throughput (tok/s):", m->output_throughput);
    row_f(b, "Total token throughput (tok/s):", m->total_token_throughput);
    vllm_metric(b, "Time to First Token", "TTFT", FIELDS(m, ttft));
    vllm_metric(b, "Time per Output Token (excl. 1st token)", "TPOT", FIELDS(m, tpot));
    vllm_metric(b, "Inter-token Latency", "ITL", FIELDS(m, itl));
    vllm_metric(b, "End-to-end Latency", "E2EL", FIELDS(m, e2el));
    centred(b, "", '=');
}

static void json_metric(strbuf *b, const char *k, metric_fields f)
{
    sb_printf(b, ", \"mean_%s_ms\": %.6f, \"median_%s_ms\": %.6f, \"std_%s_ms\": %.6f, \"p50_%s_ms\": %.6f, "
                 "\"p90_%s_ms\": %.6f, \"p99_%s_ms\": %.6f",
              k, f.mean, k, f.median, k, spread_of(f.mean).std, k, f.median, k, f.p90, k, f.p99);
}

void emu_serve_vllm_json(const emu_serve_args *a, const results_serve_metrics *m, strbuf *b)
{
    sb_printf(b, "{\"date\": \"emulated\", \"endpoint_type\": \"vllm\", \"backend\": \"vllm\", \"label\": null, "
                 "\"model_id\": \"%s\", \"tokenizer_id\": \"%s\", \"num_prompts\": %d, \"request_rate\": \"inf\", "
                 "\"burstiness\": 1.0, \"max_concurrency\": %d, \"duration\": %.6f, \"completed\": %d, \"failed\": 0, "
                 "\"total_input_tokens\": %ld, \"total_output_tokens\": %ld, \"request_throughput\": %.6f, "
                 "\"request_goodput\": null, \"output_throughput\": %.6f, \"total_token_throughput\": %.6f",
              "model", "model", a->num_prompts, a->concurrency, duration_s(m), (int)m->completed,
              (long)m->completed * a->input_len, (long)m->completed * a->output_len, m->request_throughput,
              m->output_throughput, m->total_token_throughput);
    json_metric(b, "ttft", FIELDS(m, ttft));
    json_metric(b, "tpot", FIELDS(m, tpot));
    json_metric(b, "itl", FIELDS(m, itl));
    json_metric(b, "e2el", FIELDS(m, e2el));
    sb_add(b, "}\n");
}

/* ---- trtllm-bench's outputs (tensorrt_llm/bench/dataclasses/reporting.py) ---- */

#define RULE "===========================================================\n"

static void trt_breakdown(strbuf *b, const char *tag, metric_fields f)
{
    spread x = spread_of(f.mean);
    static const char *const keys[] = { "MINIMUM", "MAXIMUM", "AVERAGE", "P50", "P90", "P95", "P99" };
    double vals[] = { x.min, x.max, f.mean, f.median, f.p90, x.p95, f.p99 };
    for (int i = 0; i < 7; i++) sb_printf(b, "[%s] %-7s: %.4f\n", tag, keys[i], vals[i]);
}

void emu_serve_trtllm_text(const emu_serve_args *a, const results_serve_metrics *m, strbuf *b)
{
    int world = a->tp * a->pp;
    sb_add(b, "[TRT-LLM] [I] \n\n" RULE "= PYTORCH BACKEND\n" RULE);
    sb_printf(b, "Model:\t\t\t%s\nModel Path:\t\t%s\nTensorRT LLM Version:\temulated\nDtype:\t\t\tbfloat16\n"
                 "KV Cache Dtype:\t\t%s\nQuantization:\t\tNone\n\n", a->model, a->model, a->fp8_kv ? "FP8" : "None");
    sb_add(b, RULE "= MACHINE DETAILS \n" RULE "No GPU info available\n\n");
    sb_add(b, RULE "= WORLD + RUNTIME INFORMATION \n" RULE);
    sb_printf(b, "TP Size:                %d\nPP Size:                %d\nEP Size:                None\n"
                 "Max Runtime Batch Size: %d\nMax Runtime Tokens:     8192\nScheduling Policy:      GUARANTEED_NO_EVICT\n"
                 "KV Memory Percentage:   90.00%%\nIssue Rate (req/sec):   %.4E\n\n",
              a->tp, a->pp, a->max_num_seqs, m->request_throughput);
    sb_add(b, RULE "= REQUEST DETAILS \n" RULE);
    sb_printf(b, "Number of requests:             %d\nNumber of concurrent requests:  %.4f\n"
                 "Average Input Length (tokens):  %.4f\nAverage Output Length (tokens): %.4f\n",
              (int)m->completed, m->max_concurrency, (double)a->input_len, (double)a->output_len);
    sb_add(b, RULE "= PERFORMANCE OVERVIEW \n" RULE);
    sb_printf(b, "Request Throughput (req/sec):                     %.4f\n", m->request_throughput);
    sb_printf(b, "Total Output Throughput (tokens/sec):             %.4f\n", m->output_throughput);
    sb_printf(b, "Total Token Throughput (tokens/sec):              %.4f\n", m->total_token_throughput);
    sb_printf(b, "Total Latency (ms):                               %.4f\n", duration_s(m) * 1e3);
    sb_printf(b, "Average request latency (ms):                     %.4f\n", m->mean_e2el_ms);
    sb_printf(b, "Per User Output Throughput [w/ ctx] (tps/user):   %.4f\n",
              m->mean_e2el_ms > 0 ? a->output_len / (m->mean_e2el_ms / 1e3) : 0);
    sb_printf(b, "Per GPU Output Throughput (tps/gpu):              %.4f\n", m->output_throughput / world);
    if (a->streaming) {
        sb_printf(b, "Average time-to-first-token [TTFT] (ms):          %.4f\n", m->mean_ttft_ms);
        sb_printf(b, "Average time-per-output-token [TPOT] (ms):        %.4f\n", m->mean_tpot_ms);
        sb_printf(b, "Per User Output Speed (tps/user):                 %.4f\n",
                  m->mean_tpot_ms > 0 ? 1e3 / m->mean_tpot_ms : 0);
        sb_add(b, "\n-- Per-Request Time-per-Output-Token [TPOT] Breakdown (ms)\n\n");
        trt_breakdown(b, "TPOT", FIELDS(m, tpot));
        sb_add(b, "\n-- Per-Request Time-to-First-Token [TTFT] Breakdown (ms) \n\n");
        trt_breakdown(b, "TTFT", FIELDS(m, ttft));
    }
    sb_add(b, "\n-- Request Latency Breakdown (ms) -----------------------\n\n");
    spread lat = spread_of(m->mean_e2el_ms);
    static const char *const keys[] = { "P50", "P90", "P95", "P99", "MINIMUM", "MAXIMUM", "AVERAGE" };
    double vals[] = { m->median_e2el_ms, m->p90_e2el_ms, lat.p95, m->p99_e2el_ms, lat.min, lat.max, m->mean_e2el_ms };
    for (int i = 0; i < 7; i++) sb_printf(b, "[Latency] %-7s: %.4f\n", keys[i], vals[i]);
    sb_add(b, "\n" RULE);
}

static void trt_pct_json(strbuf *b, const char *name, metric_fields f, bool last)
{
    spread x = spread_of(f.mean);
    sb_printf(b, "\"%s\": {\"p50\": %.6f, \"p90\": %.6f, \"p95\": %.6f, \"p99\": %.6f, \"minimum\": %.6f, "
                 "\"maximum\": %.6f, \"average\": %.6f}%s",
              name, f.median, f.p90, x.p95, f.p99, x.min, x.max, f.mean, last ? "" : ", ");
}

void emu_serve_trtllm_json(const emu_serve_args *a, const results_serve_metrics *m, strbuf *b)
{
    int world = a->tp * a->pp;
    sb_printf(b, "{\"engine\": {\"model\": \"%s\", \"model_path\": \"%s\", \"engine_dir\": \"None\", \"version\": "
                 "\"emulated\", \"backend\": \"Pytorch\", \"dtype\": \"bfloat16\", \"kv_cache_dtype\": %s, "
                 "\"quantization\": null}, \"machine\": null, ",
              "model", "model", a->fp8_kv ? "\"FP8\"" : "null");
    sb_printf(b, "\"world_info\": {\"tp_size\": %d, \"pp_size\": %d, \"ep_size\": null, \"world_size\": %d, "
                 "\"max_batch_size\": %d, \"max_num_tokens\": 8192, \"scheduling_policy\": \"GUARANTEED_NO_EVICT\", "
                 "\"kv_cache_percentage\": 0.9, \"issue_rate\": %.6f}, ",
              a->tp, a->pp, world, a->max_num_seqs, m->request_throughput);
    sb_printf(b, "\"request_info\": {\"num_requests\": %d, \"avg_num_concurrent_requests\": %.6f, "
                 "\"avg_input_length\": %.1f, \"avg_output_length\": %.1f}, ",
              (int)m->completed, m->max_concurrency, (double)a->input_len, (double)a->output_len);
    sb_printf(b, "\"performance\": {\"total_latency_ms\": %.6f, \"avg_request_latency_ms\": %.6f, "
                 "\"request_throughput_req_s\": %.6f, \"system_output_throughput_tok_s\": %.6f, "
                 "\"system_total_throughput_tok_s\": %.6f, \"output_throughput_per_user_tok_s\": %.6f, "
                 "\"output_throughput_per_gpu_tok_s\": %.6f, ",
              duration_s(m) * 1e3, m->mean_e2el_ms, m->request_throughput, m->output_throughput, m->total_token_throughput,
              m->mean_e2el_ms > 0 ? a->output_len / (m->mean_e2el_ms / 1e3) : 0, m->output_throughput / world);
    trt_pct_json(b, "request_latency_percentiles_ms", FIELDS(m, e2el), true);
    sb_add(b, "}");
    if (a->streaming) {
        sb_printf(b, ", \"streaming_metrics\": {\"token_output_speed_tok_s\": %.6f, \"avg_ttft_ms\": %.6f, "
                     "\"avg_tpot_ms\": %.6f, ",
                  m->mean_tpot_ms > 0 ? 1e3 / m->mean_tpot_ms : 0, m->mean_ttft_ms, m->mean_tpot_ms);
        trt_pct_json(b, "tpot_percentiles", FIELDS(m, tpot), false);
        trt_pct_json(b, "ttft_percentiles", FIELDS(m, ttft), true);
        sb_add(b, "}");
    }
    sb_printf(b, ", \"dataset\": {\"isl_stats\": {\"average\": %d}, \"osl_stats\": {\"average\": %d}, \"num_requests\": %d}}\n",
              a->input_len, a->output_len, (int)m->completed);
}

void emu_serve_trtllm_dataset(const emu_serve_args *a, int vocab, strbuf *b)
{
    int v = vocab > 1000 ? vocab - 1000 : (vocab > 1 ? vocab : 2);
    for (int i = 0; i < a->num_prompts; i++) {
        sb_printf(b, "{\"task_id\": %d, \"input_ids\": [", i);
        for (int k = 0; k < a->input_len; k++) sb_printf(b, k ? ", %d" : "%d", (int)((i * 7919L + k * 104729L) % v));
        sb_printf(b, "], \"output_tokens\": %d}\n", a->output_len);
    }
}
