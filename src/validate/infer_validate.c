/* infer_validate.c — predicted vs published inference latency / throughput (infer_validate.h). */
#include "validate/infer_validate.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "estimator/infer.h"
#include "estimator/serve.h"
#include "model/named.h"
#include "validate/tally.h"
#include "validate/validate.h"
#include "util/csv.h"
#include "util/fsutil.h"
#include "util/json.h"
#include "util/strbuf.h"

/* TensorRT-LLM's build defaults, max_batch_size 2048, max_num_tokens 8192 (TensorRT-LLM docs,
 * "Tuning Max Batch Size and Max Num Tokens"): the fallback when trtllm-bench's own settings
 * (trtllm_bench_settings) cannot be worked out for a row. */
enum { TRTLLM_MAX_BATCH = 2048, TRTLLM_MAX_NUM_TOKENS = 8192 };

/* trtllm-bench throughput's own engine settings when the table states none
 * (tensorrt_llm/bench/build/tuning.py calc_engine_setting / finetune_setting): the requests
 * the KV cache holds, from total GPU memory − parameters × bytes, 95 % of it, at
 * 2·layers·max(tp, kv heads)·head_dim·kv bytes per token over input + output tokens; batch =
 * min(that, 4096) / pp rounded up (>= 64; to 32, 128 or 256), tokens = batch·(1 + in/out)
 * (<= 32768, >= 2048, rounded up to 256, 512 or 1024) */
static void trtllm_bench_settings(const est_infer_input *in, double params_b, int *max_bs, int *max_tokens)
{
    const model_shape *s = &in->shape;
    bool low = in->precision == PREC_FP8 || in->precision == PREC_FP4;
    double wbytes = in->precision == PREC_FP4 ? 0.5 : in->precision == PREC_FP8 ? 1.0 : 2.0;
    double kvb = in->kv_bytes > 0 ? in->kv_bytes : (low ? 1.0 : 2.0);
    int kvh = shape_query_groups(s) > in->tp ? shape_query_groups(s) : in->tp;
    double per_tok = 2.0 * s->num_layers * kvh * shape_head_dim(s) * kvb;
    double avail = in->gpu->memory_gb * EST_GIB * in->tp * in->pp - params_b * 1e9 * wbytes;
    double reqs = avail > 0 ? 0.95 * avail / (per_tok * (in->input_len + in->output_len)) : 0.0;
    double bs = fmin(reqs, 4096.0) / in->pp;
    double tok = fmin(bs * (1.0 + (double)in->input_len / in->output_len), 32768.0);
    double b = bs < 256 ? fmax(64.0, 32.0 * ceil(bs / 32.0)) : bs < 1024 ? 128.0 * ceil(bs / 128.0) : 256.0 * ceil(bs / 256.0);
    double t = tok < 4096 ? fmax(2048.0, 256.0 * ceil(tok / 256.0)) : tok < 8192 ? 512.0 * ceil(tok / 512.0) : 1024.0 * ceil(tok / 1024.0);
    *max_bs = (int)b;
    *max_tokens = (int)t;
}

/* the largest size or count a row may hold (see row_case_of) */
enum { INFER_MAX_CELL = 1 << 24 };

/* FFN width of published GQA architectures, which the CSV does not carry
 * (Meta Llama 3 / 3.1 config.json: intermediate_size); matched by hidden and layers. */
static const struct {
    int hidden, layers, ffn;
} GQA_FFN[] = {
    { 4096, 32, 14336 },  /* Llama 3 / 3.1 8B */
    { 8192, 80, 28672 },  /* Llama 3 / 3.1 / 3.3 70B */
    { 16384, 126, 53248 }, /* Llama 3.1 405B */
};

/* engines: how a row is predicted, or why it is skipped */
typedef enum { ENG_FT, ENG_TRTLLM, ENG_VLLM, ENG_SKIP } engine_kind;
static const struct {
    const char *pattern;
    engine_kind kind;
    const char *reason;
} ENGINES[] = {
    { "FasterTransformer", ENG_FT, NULL },
    { "TensorRT-LLM", ENG_TRTLLM, NULL },
    { "vLLM", ENG_VLLM, NULL },
    { "Megatron-LM (PyTorch)", ENG_SKIP, "engine not modelled (unoptimised PyTorch baseline)" },
};

typedef struct {
    int id, source_id, engine, model, layers, hidden, heads, groups, head_dim, vocab, ffn, gpu_type, num_gpus, tp, pp,
        precision, bs, in, out, lat, tok, tok_gpu, notes, conc, ttft, itl;
} columns;

static columns find_columns(const csv_table *t)
{
    columns c;
    c.id = csv_col(t, "id"); c.source_id = csv_col(t, "source_id"); c.engine = csv_col(t, "engine");
    c.model = csv_col(t, "model"); c.layers = csv_col(t, "num_layers"); c.hidden = csv_col(t, "hidden_size");
    c.heads = csv_col(t, "num_attention_heads"); c.groups = csv_col(t, "num_query_groups");
    c.head_dim = csv_col(t, "head_dim"); c.vocab = csv_col(t, "vocab_size"); c.ffn = csv_col(t, "ffn_hidden_size");
    c.gpu_type = csv_col(t, "gpu_type"); c.num_gpus = csv_col(t, "num_gpus"); c.tp = csv_col(t, "tp");
    c.pp = csv_col(t, "pp"); c.precision = csv_col(t, "precision"); c.bs = csv_col(t, "batch_size");
    c.in = csv_col(t, "input_len"); c.out = csv_col(t, "output_len"); c.lat = csv_col(t, "latency_ms");
    c.tok = csv_col(t, "throughput_tok_s"); c.tok_gpu = csv_col(t, "throughput_tok_s_per_gpu");
    c.notes = csv_col(t, "notes");
    c.conc = csv_col(t, "concurrency"); c.ttft = csv_col(t, "ttft_ms"); c.itl = csv_col(t, "itl_ms");
    return c;
}

/* a positive finite number cell: 1 and *v, else 0 */
static int num(const csv_row *r, int col, double *v)
{
    const char *s = csv_get(r, col);
    while (*s == ' ') s++;
    if (!*s) return 0;
    char *end;
    double x = strtod(s, &end);
    while (*end == ' ') end++;
    if (*end || !isfinite(x) || x <= 0 || x > 1e12) return 0;
    *v = x;
    return 1;
}

/* a count or size cell: at least 1 (0.5 would truncate to a TP or PP of 0), else dflt */
static int inum(const csv_row *r, int col, int dflt)
{
    double v;
    return num(r, col, &v) && v >= 1 && v < 1e9 ? (int)v : dflt;
}

static bool contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t k = 0;
        while (k < n && hay[k] && tolower((unsigned char)hay[k]) == tolower((unsigned char)needle[k])) k++;
        if (k == n) return true;
    }
    return false;
}

/* "FP8 weights (ModelOpt checkpoint)", "FP16", "BF16" → precision */
static int parse_precision(const char *text, est_precision *p)
{
    static const struct {
        const char *pat;
        est_precision p;
    } P[] = { { "FP4", PREC_FP4 }, { "FP8", PREC_FP8 }, { "BF16", PREC_BF16 }, { "FP16", PREC_FP16 }, { "FP32", PREC_FP32 } };
    if (est_precision_parse(text, p) == 0) return 0;
    for (size_t i = 0; i < sizeof P / sizeof *P; i++)
        if (contains_ci(text, P[i].pat)) { *p = P[i].p; return 0; }
    return -1;
}

typedef struct {
    est_infer_input in;
    engine_kind kind;
    double measured;  /* latency ms or tokens/s of all num_gpus */
    bool is_latency;
    int replicas;
    /* a serving row (a concurrency and TTFT / ITL / throughput published): serve.h predicts it */
    int concurrency;
    double ttft_ms, itl_ms; /* NAN when not published */
} row_case;

/* the rest of a row's published shape (vocab, GQA, FFN) after layers/hidden/heads: 0, or -1 with why */
static int row_shape_of(const columns *c, const csv_row *r, model_shape *sp, char *why, size_t len)
{
    model_shape s = *sp;
    s.vocab = inum(r, c->vocab, 0);
    if (!s.vocab) { snprintf(why, len, "vocab size not published"); return -1; }
    int groups = inum(r, c->groups, 0);
    s.query_groups = groups ? groups : s.heads;
    s.kv_channels = inum(r, c->head_dim, s.hidden / s.heads);
    s.ffn_hidden = inum(r, c->ffn, 0);
    if (groups) { /* GQA rows are Llama-style: SwiGLU, untied output layer, RoPE */
        s.gated_mlp = true;
        s.untied_embeddings = true;
        for (size_t i = 0; !s.ffn_hidden && i < sizeof GQA_FFN / sizeof *GQA_FFN; i++)
            if (GQA_FFN[i].hidden == s.hidden && GQA_FFN[i].layers == s.num_layers) s.ffn_hidden = GQA_FFN[i].ffn;
        if (!s.ffn_hidden) { snprintf(why, len, "FFN size not published"); return -1; }
    } else { /* GPT-3 style: 4h GELU MLP, tied embeddings, learned positions */
        if (!s.ffn_hidden) s.ffn_hidden = 4 * s.hidden;
        s.learned_pos_emb = true;
    }
    *sp = s;
    return 0;
}

/* a row without a shape: its model name resolved to an architecture (model/named.h: presets and
 * published config.json files).  0, or -1 when the name is unknown. */
static int row_named_shape(const columns *c, const csv_row *r, model_shape *s)
{
    return c->model >= 0 && model_named_shape(csv_get(r, c->model), s, NULL) == 0 ? 0 : -1;
}

/* a serving row: a published concurrency with TTFT, ITL or throughput.  0 (rc set for the serving
 * model), or -1 when the row is not one. */
static int row_serving_of(const columns *c, const csv_row *r, row_case *rc)
{
    double conc, v;
    rc->ttft_ms = rc->itl_ms = rc->measured = NAN;
    if (rc->kind == ENG_FT || c->conc < 0 || !num(r, c->conc, &conc)) return -1;
    bool any = false;
    if (num(r, c->ttft, &v)) { rc->ttft_ms = v; any = true; }
    if (num(r, c->itl, &v)) { rc->itl_ms = v; any = true; }
    if (num(r, c->tok, &v)) { rc->measured = v; any = true; }
    else if (num(r, c->tok_gpu, &v)) { rc->measured = v * rc->replicas * rc->in.tp * rc->in.pp; any = true; }
    if (!any) return -1;
    rc->concurrency = (int)fmax(1.0, conc);
    return 0;
}

/* the serving model at a row's load: concurrency split over the replicas (estimator/serve.h) */
static int serve_row_predict(const row_case *rc, serve_result *sr, char *why, size_t len)
{
    serve_input si;
    serve_input_init(&si, &rc->in.shape, rc->in.gpu, serve_engine_find(rc->kind == ENG_VLLM ? "vllm" : "trtllm"));
    si.in = rc->in;
    si.input_len = rc->in.input_len;
    si.output_len = rc->in.output_len;
    si.concurrency = (rc->concurrency + rc->replicas - 1) / rc->replicas;
    si.attn_dp = rc->in.attn_dp;
    return serve_evaluate(&si, sr, why, len);
}

/* TTFT and ITL errors of serving rows, beside the row's main quantity */
typedef struct {
    err_group ttft, itl;
} serve_tally;

static int serve_tally_push(serve_tally *t, const row_case *rc, const serve_result *sr)
{
    double e;
    if (isfinite(rc->ttft_ms)) {
        e = sr->ttft_s * 1e3 / rc->ttft_ms - 1.0;
        t->ttft.rows++;
        if (err_group_push(&t->ttft, fabs(e), e)) return -1;
    }
    if (isfinite(rc->itl_ms)) {
        e = sr->itl_s * 1e3 / rc->itl_ms - 1.0;
        t->itl.rows++;
        if (err_group_push(&t->itl, fabs(e), e)) return -1;
    }
    return 0;
}

/* text: one line per serving quantity with rows */
static void serve_tally_print(FILE *out, const serve_tally *t, double *tmp)
{
    const err_group *g[] = { &t->ttft, &t->itl };
    const char *name[] = { "TTFT", "ITL" };
    for (int i = 0; i < 2; i++) {
        if (!g[i]->n) continue;
        double med, p90;
        err_group_quantiles(g[i], tmp, &med, &p90);
        fprintf(out, "serving %s: rows %zu median_abs_err %.1f%% p90_abs_err %.1f%%\n", name[i], g[i]->n, 100 * med, 100 * p90);
    }
}

bool infer_engine_before_xqa(const char *eng)
{
    /* the version that follows the engine's name, "v0.6.1" or "0.5": the first number after it */
    const char *p = eng ? strstr(eng, "TensorRT-LLM") : NULL;
    if (!p) return false;
    for (p += strlen("TensorRT-LLM"); *p && !isdigit((unsigned char)*p); p++)
        if (*p == ',' || *p == ';') return false; /* the version, if any, comes first */
    int major, minor;
    if (sscanf(p, "%d.%d", &major, &minor) != 2) return false;
    return major == 0 && minor < 7;
}

/* One CSV row as a model input.  0, or -1 with why (the skip reason). */
static int row_case_of(const columns *c, const csv_row *r, row_case *rc, char *why, size_t len)
{
    memset(rc, 0, sizeof *rc);
    const char *eng = csv_get(r, c->engine);
    rc->kind = ENG_SKIP;
    size_t k;
    for (k = 0; k < sizeof ENGINES / sizeof *ENGINES; k++)
        if (contains_ci(eng, ENGINES[k].pattern)) break;
    if (k == sizeof ENGINES / sizeof *ENGINES) { snprintf(why, len, "engine not modelled"); return -1; }
    if (ENGINES[k].kind == ENG_SKIP) { snprintf(why, len, "%s", ENGINES[k].reason); return -1; }
    rc->kind = ENGINES[k].kind;
    /* sizes and counts beyond 2^24 are no published model or run, and products of them
     * (4 x hidden, input + output length) would overflow int; a fraction (tp 0.5) is
     * no count: such rows are skipped, not mapped */
    const struct {
        int col;
        const char *name;
    } SIZES[] = { { c->layers, "num_layers" }, { c->hidden, "hidden_size" }, { c->heads, "num_attention_heads" },
                  { c->groups, "num_query_groups" }, { c->head_dim, "head_dim" }, { c->vocab, "vocab_size" },
                  { c->ffn, "ffn_hidden_size" }, { c->num_gpus, "num_gpus" }, { c->tp, "tp" }, { c->pp, "pp" },
                  { c->bs, "batch_size" }, { c->in, "input_len" }, { c->out, "output_len" } };
    for (size_t i = 0; i < sizeof SIZES / sizeof *SIZES; i++) {
        double v;
        if (num(r, SIZES[i].col, &v) && v > INFER_MAX_CELL) {
            snprintf(why, len, "%s over %d", SIZES[i].name, INFER_MAX_CELL);
            return -1;
        }
        if (num(r, SIZES[i].col, &v) && (v < 1 || v != floor(v))) {
            snprintf(why, len, "%s is not a whole number", SIZES[i].name);
            return -1;
        }
    }
    model_shape s = { 0 };
    s.arch = ARCH_DECODER;
    s.num_layers = inum(r, c->layers, 0);
    s.hidden = inum(r, c->hidden, 0);
    s.heads = inum(r, c->heads, 0);
    if (!s.num_layers || !s.hidden || !s.heads) {
        if (row_named_shape(c, r, &s) != 0) {
            snprintf(why, len, "architecture not published (layers/hidden/heads) and model name not known");
            return -1;
        }
    } else if (row_shape_of(c, r, &s, why, len) != 0) {
        return -1;
    }
    const gpu_spec *g = gpu_match(csv_get(r, c->gpu_type));
    if (!s.vocab) { snprintf(why, len, "vocab size not published"); return -1; }
    if (!g) { snprintf(why, len, "GPU not in the catalog"); return -1; }
    est_infer_input_init(&rc->in, &s, g);
    /* a part the catalog holds in another memory size: the name's own (as training validation) */
    rc->in.memory_limit_gb = gpu_other_memory_gb(g, csv_get(r, c->gpu_type));
    rc->in.tp = inum(r, c->tp, 1);
    rc->in.pp = inum(r, c->pp, 1);
    if (parse_precision(csv_get(r, c->precision), &rc->in.precision)) { snprintf(why, len, "precision unknown"); return -1; }
    rc->in.input_len = inum(r, c->in, 0);
    rc->in.output_len = inum(r, c->out, 0);
    if (!rc->in.input_len || !rc->in.output_len) { snprintf(why, len, "input/output length not published"); return -1; }
    long long per_replica = (long long)rc->in.tp * rc->in.pp; /* each below 1e9: no overflow in 64 bits */
    if (per_replica > EST_INFER_MAX_GPUS) {
        snprintf(why, len, "tp x pp %lld exceeds %d GPUs", per_replica, EST_INFER_MAX_GPUS);
        return -1;
    }
    int gpus = inum(r, c->num_gpus, (int)per_replica);
    rc->replicas = (int)(gpus / per_replica);
    if (rc->replicas < 1) rc->replicas = 1;
    rc->in.cuda_graphs = rc->kind == ENG_TRTLLM;
    rc->in.custom_allreduce = rc->kind == ENG_TRTLLM;
    rc->in.kv_per_query_head = rc->kind == ENG_TRTLLM && infer_engine_before_xqa(csv_get(r, c->engine));
    if (rc->kind == ENG_TRTLLM) {
        const serve_engine *te = serve_engine_find("trtllm");
        rc->in.host_per_seq_s = te->host_per_seq_s;
        rc->in.overlap_host = te->overlap_host;
        /* MoE rows that name attention DP: every TP rank schedules its own requests */
        if (shape_is_moe(&rc->in.shape) && contains_ci(csv_get(r, c->notes), "attention-DP")) rc->in.attn_dp = rc->in.tp;
    }
    double v;
    if (row_serving_of(c, r, rc) == 0) return 0;
    if (rc->kind == ENG_VLLM) { snprintf(why, len, "vLLM row without a concurrency and TTFT, ITL or throughput"); return -1; }
    if (num(r, c->lat, &v)) {
        rc->is_latency = true;
        rc->measured = v;
        rc->in.bs = inum(r, c->bs, 0);
        if (!rc->in.bs) { snprintf(why, len, "batch size not published"); return -1; }
    } else if (num(r, c->tok, &v)) {
        rc->measured = v;
    } else if (num(r, c->tok_gpu, &v)) {
        rc->measured = v * gpus;
    } else {
        snprintf(why, len, contains_ci(csv_get(r, c->notes), "OOM") ? "no measurement (OOM as published)"
                                                                      : "no latency or throughput published");
        return -1;
    }
    if (rc->kind == ENG_FT && !rc->is_latency) { snprintf(why, len, "FasterTransformer row without latency"); return -1; }
    return 0;
}

static void print_summary(FILE *out, bool json, const char *csv_path, const err_group *all, const err_group *grp,
                          size_t ngrp, const skip_tally *skips, int oom_rows, int oom_predicted, const serve_tally *st,
                          double *tmp)
{
    double med, p90; /* NAN when no row was predicted: JSON null, text "-" */
    err_group_quantiles(all, tmp, &med, &p90);
    json_writer w;
    if (json) {
        json_begin(&w, out);
        json_obj_open(&w, NULL);
        json_str(&w, "csv", csv_path);
        json_str(&w, "quantity", "latency where published, else throughput");
        json_int(&w, "rows", all->rows);
        json_int(&w, "skipped", all->skipped);
        json_num(&w, "median_abs_err_pct", 100 * med);
        json_num(&w, "p90_abs_err_pct", 100 * p90);
        json_int(&w, "published_oom_rows", oom_rows);
        json_int(&w, "published_oom_predicted_no_fit", oom_predicted);
    } else {
        fprintf(out, "Inference model vs published measurements (latency where published, else throughput; predicted)\n");
    }
    err_groups_print(out, json ? &w : NULL, "source / GPU", "sources", "source", grp, ngrp, 22, true, tmp);
    skip_tally_print(skips, out, json ? &w : NULL);
    if (json) {
        json_obj_close(&w);
        json_end(&w);
        return;
    }
    if (oom_rows) fprintf(out, "published OOM rows predicted not to fit: %d of %d\n", oom_predicted, oom_rows);
    double *tmp2 = malloc((st->ttft.n + st->itl.n + 1) * sizeof *tmp2);
    if (tmp2) serve_tally_print(out, st, tmp2);
    free(tmp2);
    validate_print_final_line(out, all->rows, all->skipped, all->n, med, p90);
}

int infer_validate_csv(const char *csv_path, const char *out_csv, char **rows_csv, FILE *out, bool json, ac_err *e)
{
    csv_table t;
    if (gpu_catalog_load(e) != 0) return -1;
    if (csv_read_file(csv_path, &t, e) != 0) return -1;
    int rc = infer_validate_table(&t, csv_path, out_csv, rows_csv, out, json, e);
    csv_free(&t);
    return rc;
}

int infer_validate_table(const csv_table *tp, const char *csv_path, const char *out_csv, char **rows_csv, FILE *out,
                         bool json, ac_err *e)
{
    if (gpu_catalog_load(e) != 0) return -1;
    const csv_table t = *tp; /* read only; the caller frees it */
    columns c = find_columns(&t);
    static const char *const required[] = { "num_layers", "hidden_size", "num_attention_heads", "gpu_type", "tp",
                                            "input_len", "output_len", "precision" };
    if (csv_require_cols(&t, required, sizeof required / sizeof *required, AC_E_INPUT,
                         " (the CSV needs the columns of benchmarks_infer.csv)", e)) {
        return -1;
    }
    if (c.lat < 0 && c.tok < 0 && c.tok_gpu < 0) {
        ac_err_at(e, AC_E_INPUT, csv_path, t.header.line, 0, "latency_ms", "no latency_ms, throughput_tok_s or throughput_tok_s_per_gpu column");
        return -1;
    }
    err_group *grp = NULL, all = { 0 };
    size_t ngrp = 0;
    skip_tally skips = { 0 };
    int oom_rows = 0, oom_predicted = 0, rc = 0;
    serve_tally stally;
    memset(&stally, 0, sizeof stally);
    strbuf rows;
    sb_init(&rows);
    sb_add(&rows, "id,source_id,model,gpu,tp,pp,precision,batch_size,input_len,output_len,measured_quantity,measured,"
                  "predicted,error_pct,predicted_batch,predicted_mem_gib,fits,skip_reason\n");
    for (size_t i = 0; i < t.n && !rc; i++) {
        const csv_row *row = &t.rows[i];
        row_case rcase;
        char why[192] = "", key[64];
        int ok = row_case_of(&c, row, &rcase, why, sizeof why) == 0;
        const gpu_spec *kg = gpu_match(csv_get(row, c.gpu_type));
        snprintf(key, sizeof key, "%.20s %s", csv_get(row, c.source_id), kg ? kg->name : "(unknown GPU)");
        err_group *s = err_group_get(&grp, &ngrp, key);
        if (!s) { rc = ac_err_set(e, AC_E_NOMEM, "out of memory"); break; }
        est_infer_result r;
        int batch = 0;
        double pred = NAN;
        serve_result sr;
        const char *quantity = NULL;
        if (ok && rcase.concurrency > 0) {
            ok = serve_row_predict(&rcase, &sr, why, sizeof why) == 0;
            if (ok && serve_tally_push(&stally, &rcase, &sr)) { rc = ac_err_set(e, AC_E_NOMEM, "out of memory"); break; }
            /* the row's main quantity: throughput when published, else ITL, else TTFT */
            memset(&r, 0, sizeof r);
            r.mem_total = ok ? (sr.mem_weights_gib + sr.mem_kv_pool_gib) * EST_GIB : 0;
            r.fits = ok;
            batch = ok ? sr.running : 0;
            if (ok && isfinite(rcase.measured)) pred = sr.output_tok_s_per_instance * rcase.replicas;
            else if (ok && isfinite(rcase.itl_ms)) { pred = sr.itl_s * 1e3; rcase.measured = rcase.itl_ms; quantity = "itl_ms"; }
            else if (ok) { pred = sr.ttft_s * 1e3; rcase.measured = rcase.ttft_ms; quantity = "ttft_ms"; }
        } else if (ok && rcase.is_latency) {
            ok = est_infer_evaluate(&rcase.in, &r, why, sizeof why) == 0;
            batch = rcase.in.bs;
            pred = r.latency_s * 1e3;
        } else if (ok) {
            int mb = TRTLLM_MAX_BATCH, mt = TRTLLM_MAX_NUM_TOKENS;
            est_infer_result pr;
            if (rcase.kind == ENG_TRTLLM && est_infer_evaluate(&rcase.in, &pr, NULL, 0) == 0) trtllm_bench_settings(&rcase.in, pr.params_b, &mb, &mt);
            ok = est_infer_max_load(&rcase.in, mb, mt, &r, &batch, why, sizeof why) == 0;
            pred = r.tokens_per_s * rcase.replicas;
        }
        if (!ok && !strcmp(why, "no measurement (OOM as published)")) {
            /* the memory model can still be checked: the published run ran out of memory */
            row_case oc;
            char w2[192];
            oom_rows++;
            if (row_case_of(&c, row, &oc, w2, sizeof w2) != 0 && oc.in.gpu && !oc.is_latency) {
                oc.in.bs = inum(row, c.bs, 0);
                est_infer_result orr;
                if (oc.in.bs && est_infer_evaluate(&oc.in, &orr, w2, sizeof w2) == 0 && !orr.fits) oom_predicted++;
            }
        }
        sb_csv_field(&rows, csv_get(row, c.id), false);
        sb_csv_field(&rows, csv_get(row, c.source_id), false);
        sb_csv_field(&rows, csv_get(row, c.model), false);
        sb_csv_field(&rows, ok ? rcase.in.gpu->name : csv_get(row, c.gpu_type), false);
        if (!ok) {
            s->skipped++;
            all.skipped++;
            skip_tally_add(&skips, why);
            sb_add(&rows, ",,,,,,,,,,,,,");
            sb_csv_field(&rows, why, true);
            continue;
        }
        if (!quantity) quantity = rcase.is_latency ? "latency_ms" : "throughput_tok_s";
        double err = pred / rcase.measured - 1.0;
        s->rows++;
        all.rows++;
        if (err_group_push(s, fabs(err), err) || err_group_push(&all, fabs(err), err)) {
            rc = ac_err_set(e, AC_E_NOMEM, "out of memory");
            break;
        }
        sb_printf(&rows, "%d,%d,%s,%d,%d,%d,%s,%.6g,%.6g,%.2f,%d,%.2f,%s,\n", rcase.in.tp, rcase.in.pp,
                  est_precision_name(rcase.in.precision), rcase.is_latency ? rcase.in.bs : 0, rcase.in.input_len,
                  rcase.in.output_len, quantity, rcase.measured, pred,
                  100.0 * err, batch, r.mem_total / EST_GIB, r.fits ? "true" : "false");
    }
    if (!rc && rows.oom) rc = ac_err_set(e, AC_E_NOMEM, "out of memory");
    if (!rc && out_csv && all.n) rc = fs_write_atomic(out_csv, sb_str(&rows), rows.len, e);
    if (!rc && rows_csv) *rows_csv = sb_take(&rows);
    if (!rc) {
        double *tmp = malloc((all.n ? all.n : 1) * sizeof *tmp);
        if (!tmp) rc = ac_err_set(e, AC_E_NOMEM, "out of memory");
        else print_summary(out, json, csv_path, &all, grp, ngrp, &skips, oom_rows, oom_predicted, &stally, tmp);

        free(tmp);
    }
    if (!rc && !all.n)
        rc = validate_no_rows_error(e, csv_path, all.skipped, out_csv != NULL);
    err_groups_free(grp, ngrp);
    err_group_free(&all);
    err_group_free(&stally.ttft);
    err_group_free(&stally.itl);
    sb_free(&rows);
    return rc;
}
