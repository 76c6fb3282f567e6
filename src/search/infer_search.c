/* infer_search.c — the inference HP-search stage (infer_search.h). */
#include "search/infer_search.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config/node.h"
#include "estimator/infer.h"
#include "estimator/serve.h"
#include "results/ft_files.h"
#include "results/ledger.h"
#include "results/serve_bench.h"
#include "search/candidate_est.h"
#include "util/fsutil.h"
#include "util/json.h"
#include "util/shell.h"

#define IS_KEY "search_config.inference_settings."
#define DEFAULT_COMMAND "/opt/FasterTransformer/build/bin/multi_gpu_gpt_example {ini} {csv}"

/* a list of ints from a sequence or a single scalar; 0 when absent/null */
static int node_ints(const node *n, int *out, int max, const char *key, ac_err *e)
{
    if (!n || node_is_null(n)) return 0;
    long long v;
    if (n->kind == NODE_SCALAR) {
        if (!node_get_int(n, &v) || v < 1 || v > 100000000)
            return ac_err_at(e, AC_E_INPUT, n->file, n->line, n->col, key, "expected a positive integer or a list of them");
        out[0] = (int)v;
        return 1;
    }
    if (n->kind != NODE_SEQ) return ac_err_at(e, AC_E_INPUT, n->file, n->line, n->col, key, "expected a list of positive integers");
    int k = 0;
    for (size_t i = 0; i < n->len; i++) {
        if (k >= max) return ac_err_at(e, AC_E_INPUT, n->file, n->line, n->col, key, "more than %d values", max);
        if (!node_get_int(n->items[i], &v) || v < 1 || v > 100000000)
            return ac_err_at(e, AC_E_INPUT, n->file, n->line, n->col, key, "item %zu is not a positive integer", i + 1);
        out[k++] = (int)v;
    }
    return k;
}

static const node *tree_get(const ac_config *c, const char *key)
{
    return c->root ? node_get_path(c->root, key) : NULL;
}

/* the new key's list, or its older alias when the new key is absent from the config */
static int list_or_alias(const ac_config *c, const char *key, const char *alias, const cfg_int_list *typed, int *out,
                         ac_err *e)
{
    const node *n = tree_get(c, key);
    const node *a = alias ? tree_get(c, alias) : NULL;
    if ((!n || node_is_null(n)) && a && !node_is_null(a)) return node_ints(a, out, CFG_LIST_MAX, alias, e);
    for (int i = 0; i < typed->n; i++) out[i] = typed->v[i];
    return typed->n;
}

/* run.precisions: what each name means for weights and the KV cache */
static const struct {
    const char *name, *data_type;
    int kv_bytes;
} PRECISIONS[] = {
    { "fp16", "fp16", 2 }, { "bf16", "bf16", 2 }, { "fp32", "fp32", 4 },
    { "fp8", "fp8", 1 },    /* fp8 weights and fp8 KV cache (vLLM --quantization fp8 --kv-cache-dtype fp8) */
    { "fp8_kv", "bf16", 1 }, /* 16-bit weights, fp8 KV cache (vLLM --kv-cache-dtype fp8) */
};

/* a length spread as stdev / mean (NAN or 0: fixed lengths) */
static double cv_of(double stdev, int mean) { return isfinite(stdev) && stdev > 0 && mean > 0 ? stdev / mean : 0.0; }

/* engine, loads and precisions of the serving search */
static int serving_settings(const ac_config *c, search_infer_settings *s, ac_err *e)
{
    const cfg_inference_settings *I = &c->infer;
    const char *eng = I->engine[0] ? I->engine : "fastertransformer";
    const serve_engine *se = serve_engine_find(eng);
    if (!se) return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, IS_KEY "run.engine", "unknown engine '%s' (%s)", eng, serve_engine_names());
    s->engine = se->name;
    s->nconc = I->concurrency.is_auto ? 0 : I->concurrency.n;
    for (int i = 0; i < s->nconc; i++) s->conc[i] = I->concurrency.v[i];
    if (s->nconc && !se->continuous)
        return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, IS_KEY "benchmark.concurrency",
                         "fastertransformer runs static batches: its load is benchmark.batch_sizes; concurrency applies to "
                         "run.engine=vllm or trtllm");
    s->nrate = 0;
    for (int i = 0; i < I->n_request_rates; i++) {
        char *end;
        double v = strtod(I->request_rates[i], &end);
        if (end == I->request_rates[i] || *end || !(v > 0) || !isfinite(v) || v > 1e9)
            return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, IS_KEY "benchmark.request_rates",
                             "'%s' is not a request rate (requests/s, a positive number)", I->request_rates[i]);
        s->rate[s->nrate++] = v;
    }
    if (s->nrate && !se->continuous)
        return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, IS_KEY "benchmark.request_rates",
                         "fastertransformer runs static batches: request rates apply to run.engine=vllm or trtllm");
    s->percentile = I->latency_percentile;
    s->nep = I->expert_parallel_sizes.is_auto ? 0 : I->expert_parallel_sizes.n;
    for (int i = 0; i < s->nep; i++) s->ep[i] = I->expert_parallel_sizes.v[i];
    if (!s->nep) { s->ep[0] = 1; s->nep = 1; }
    s->nprec = 0;
    for (int i = 0; i < (I->n_precisions ? I->n_precisions : 1); i++) {
        const char *name = I->n_precisions ? I->precisions[i] : (I->data_type[0] ? I->data_type : "fp16");
        size_t k;
        for (k = 0; k < sizeof PRECISIONS / sizeof *PRECISIONS; k++)
            if (!strcmp(PRECISIONS[k].name, name)) break;
        if (k == sizeof PRECISIONS / sizeof *PRECISIONS)
            return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, IS_KEY "run.precisions", "'%s' is not one of fp16, bf16, fp32, fp8, fp8_kv", name);
        if (PRECISIONS[k].kv_bytes < 2 && !se->fp8_kv && I->n_precisions)
            return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, IS_KEY "run.precisions", "%s keeps the KV cache in 16 bits: '%s' needs "
                             "run.engine=vllm or trtllm", se->name, name);
        snprintf(s->prec[s->nprec].name, sizeof s->prec[0].name, "%s", name);
        snprintf(s->prec[s->nprec].data_type, sizeof s->prec[0].data_type, "%s", PRECISIONS[k].data_type);
        /* without run.precisions the original's data_type keeps the estimator's default KV bytes */
        s->prec[s->nprec].kv_bytes = I->n_precisions ? PRECISIONS[k].kv_bytes : 0;
        s->nprec++;
    }
    s->serving_jobs = se->continuous && cfg_runs_real_jobs(c);
    if (s->serving_jobs && s->nprec > 1)
        return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, IS_KEY "run.precisions",
                         "a measured %s search runs one precision (run.precisions lists %d): one search per precision",
                         se->name, s->nprec);
    /* the engines report p50, p90 and p99 (the jobs ask vLLM for those; trtllm-bench prints them):
     * another percentile could not be judged on what was measured */
    if (s->serving_jobs && s->percentile > 0 && s->percentile != 50 && s->percentile != 90 && s->percentile != 99)
        return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, IS_KEY "latency_percentile",
                         "the measured %s jobs report percentiles 50, 90 and 99, not %d (any percentile is predicted with "
                         "cluster_type=sim)", se->name, s->percentile);
    if (s->serving_jobs && s->nrate)
        return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, IS_KEY "benchmark.request_rates",
                         "the measured %s jobs run closed loops (benchmark.concurrency); request rates are predicted "
                         "with cluster_type=sim", se->name);
    if (s->serving_jobs && (s->nep > 1 || s->ep[0] > 1))
        return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, IS_KEY "run.expert_parallel_sizes",
                         "the measured %s jobs split experts by TP; expert parallelism is predicted with cluster_type=sim",
                         se->name);
    if (s->serving_jobs && !strcmp(se->name, "trtllm") && !strcmp(s->prec[0].data_type, "fp8"))
        return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, IS_KEY "run.precisions",
                         "trtllm-bench on dummy weights cannot quantize to fp8 (TensorRT-LLM reads fp8 weights from a "
                         "quantized checkpoint); fp8_kv (an fp8 KV cache) and 16-bit weights run");
    return 0;
}

/* the tokenizer of the serving jobs' random prompts (run.tokenizer) */
static int serving_tokenizer(const ac_config *c, const model_base_config *base, search_infer_settings *s, ac_err *e)
{
    const char *t = c->infer.tokenizer;
    if (t[0]) {
        if (fs_is_dir(t)) return fs_abspath(t, s->tokenizer_dir, sizeof s->tokenizer_dir, e);
        /* a hub name: owner/name of letters, digits, '-', '_', '.' */
        if (strlen(t) >= sizeof s->tokenizer_hub || strspn(t, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                               "0123456789-_./") != strlen(t) || t[0] == '.' || t[0] == '/')
            return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, IS_KEY "run.tokenizer",
                             "'%s' is neither a folder nor a Hugging Face hub name (owner/name)", t);
        snprintf(s->tokenizer_hub, sizeof s->tokenizer_hub, "%s", t);
        return 0;
    }
    if (c->train.hf_config[0]) {
        /* the --hf-config file's folder, when it holds the tokenizer too (a model snapshot) */
        char dir[CFG_PATH_MAX], probe[CFG_PATH_MAX + 32];
        snprintf(dir, sizeof dir, "%s", c->train.hf_config);
        char *slash = strrchr(dir, '/');
        if (slash) *slash = '\0';
        else snprintf(dir, sizeof dir, ".");
        snprintf(probe, sizeof probe, "%s/tokenizer_config.json", dir);
        if (fs_exists(probe)) return fs_abspath(dir, s->tokenizer_dir, sizeof s->tokenizer_dir, e);
    }
    if (base->shape.vocab >= 50257) {
        snprintf(s->tokenizer_hub, sizeof s->tokenizer_hub, "gpt2"); /* its ids are all inside the vocabulary */
        return 0;
    }
    return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, IS_KEY "run.tokenizer",
                     "the model's vocabulary (%d) is smaller than gpt2's (50257), whose token ids the random prompts "
                     "would use: set run.tokenizer to the model's tokenizer (a folder or a hub name)", base->shape.vocab);
}

int search_infer_settings_resolve(const ac_config *c, const model_base_config *base, search_infer_settings *s, ac_err *e)
{
    memset(s, 0, sizeof *s);
    const cfg_inference_settings *I = &c->infer;
    s->ntp = list_or_alias(c, IS_KEY "run.tensor_parallel_sizes", IS_KEY "tensor_parallel_sizes", &I->tensor_parallel_sizes, s->tp, e);
    s->npp = list_or_alias(c, IS_KEY "run.pipeline_parallel_sizes", IS_KEY "pipeline_parallel_sizes", &I->pipeline_parallel_sizes, s->pp, e);
    s->nbs = list_or_alias(c, IS_KEY "benchmark.batch_sizes", IS_KEY "max_batch_sizes", &I->batch_sizes, s->bs, e);
    if (s->ntp < 0 || s->npp < 0 || s->nbs < 0) return -1;
    /* lengths: int or list, paired element-wise; a single value pairs with every value of the other */
    int in[SEARCH_INFER_MAX_PAIRS], out[SEARCH_INFER_MAX_PAIRS];
    const node *ni = tree_get(c, IS_KEY "benchmark.input_len"), *no = tree_get(c, IS_KEY "benchmark.output_len");
    if (!ni || node_is_null(ni)) ni = tree_get(c, IS_KEY "input_seq_len");
    if (!no || node_is_null(no)) no = tree_get(c, IS_KEY "output_seq_len");
    int nin = node_ints(ni, in, SEARCH_INFER_MAX_PAIRS, IS_KEY "benchmark.input_len", e);
    if (nin < 0) return -1;
    int nout = node_ints(no, out, SEARCH_INFER_MAX_PAIRS, IS_KEY "benchmark.output_len", e);
    if (nout < 0) return -1;
    if (nin == 0) { in[0] = I->input_len > 0 ? I->input_len : 60; nin = 1; }
    if (nout == 0) { out[0] = I->output_len > 0 ? I->output_len : 20; nout = 1; }
    if (nin > 1 && nout > 1 && nin != nout)
        return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, IS_KEY "benchmark.input_len",
                         "%d input lengths and %d output lengths: lists are paired element-wise and must be equally long", nin, nout);
    s->npairs = nin > nout ? nin : nout;
    for (int i = 0; i < s->npairs; i++) {
        s->in_len[i] = in[nin == 1 ? 0 : i];
        s->out_len[i] = out[nout == 1 ? 0 : i];
    }
    s->gpus_per_node = I->gpus_per_node > 0 ? I->gpus_per_node : 8;
    snprintf(s->name, sizeof s->name, "%s", I->model_train_name[0] ? I->model_train_name : (base ? base->run_name : "model"));
    snprintf(s->results_dir, sizeof s->results_dir, "%s", I->results_dir[0] ? I->results_dir : c->train.logs);
    const node *cmd = tree_get(c, IS_KEY "run.benchmark_command");
    const char *ct = cmd && !node_is_null(cmd) ? node_text(cmd) : NULL;
    snprintf(s->command, sizeof s->command, "%s", ct ? ct : DEFAULT_COMMAND);
    if (shell_check_line("benchmark_command", s->command, e) != 0) return -1;
    const gpu_spec *g = candidate_gpu(c, e);
    if (!g) return -1;
    snprintf(s->gpu_name, sizeof s->gpu_name, "%s", g->name);
    if (serving_settings(c, s, e)) return -1;
    if (s->serving_jobs && ct)
        return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, IS_KEY "run.benchmark_command",
                         "is FasterTransformer's command; a %s job runs the engine's own benchmark with its flags "
                         "(docs/serving.md): leave it null", s->engine);
    return s->serving_jobs && base ? serving_tokenizer(c, base, s, e) : 0;
}

bool search_infer_run_name(const char *dir, char *buf, size_t len)
{
    const char *slash = strrchr(dir, '/');
    return snprintf(buf, len, "benchmark_%s", slash ? slash + 1 : dir) < (int)len;
}

void search_infer_config_name(const search_infer_settings *s, int tp, int pp, int bs, int in, int out, char *buf, size_t len)
{
    search_infer_config_name_c(s, tp, pp, bs, 0, in, out, buf, len);
}

void search_infer_config_name_c(const search_infer_settings *s, int tp, int pp, int bs, int conc, int in, int out,
                                char *buf, size_t len)
{
    char c[24] = "";
    if (conc > 0) snprintf(c, sizeof c, "_c%d", conc);
    if (s->npairs > 1) snprintf(buf, len, "%s_tp%d_pp%d_bs%d%s_in%d_out%d", s->name, tp, pp, bs, c, in, out);
    else snprintf(buf, len, "%s_tp%d_pp%d_bs%d%s", s->name, tp, pp, bs, c);
}

/* a job's folder name and <results_dir>/inference/<name>, as run, check and summarize find it */
enum { JOB_NAME_MAX = CFG_NAME_MAX + 96, JOB_DIR_MAX = CFG_PATH_MAX + 256 };
static int job_folder(const search_infer_settings *s, int tp, int pp, int bs, int conc, int in, int out,
                      char name[JOB_NAME_MAX], char dir[JOB_DIR_MAX], ac_err *e)
{
    search_infer_config_name_c(s, tp, pp, bs, conc, in, out, name, JOB_NAME_MAX);
    int n = snprintf(dir, JOB_DIR_MAX, "%s/inference/%s", s->results_dir, name);
    return n < 0 || n >= JOB_DIR_MAX ? ac_err_set(e, AC_E_INPUT, "inference results_dir is too long") : 0;
}

/* "{ini}" / "{csv}" in the command template → the quoted paths */
/* GPUs per node the jobs ask Slurm for: the cluster's, else the inference settings' */
static int job_gpus_per_node(const ac_config *c, const search_infer_settings *s)
{
    return c->cluster.gpus_per_node > 0 ? c->cluster.gpus_per_node : s->gpus_per_node;
}

/* a serving engine's job runs one node (several need a Ray (vLLM) or MPI (trtllm) cluster):
 * true, with why, when TP x PP does not fit on one */
static bool serving_spans_nodes(const ac_config *c, const search_infer_settings *s, int tp, int pp, char *why, size_t wl)
{
    int gpn = job_gpus_per_node(c, s);
    if (tp * pp <= gpn) return false;
    snprintf(why, wl, "TP %d x PP %d spans %d nodes: the %s job runs one node of %d GPUs", tp, pp, (tp * pp + gpn - 1) / gpn,
             s->engine, gpn);
    return true;
}

static int expand_command(const char *tmpl, const char *ini, const char *csv, strbuf *b, ac_err *e)
{
    for (const char *p = tmpl; *p;) {
        const char *path = !strncmp(p, "{ini}", 5) ? ini : !strncmp(p, "{csv}", 5) ? csv : NULL;
        if (path) {
            if (shell_quote_add(b, path, e)) return -1;
            p += 5;
        } else {
            sb_addn(b, p++, 1);
        }
    }
    return 0;
}

int search_infer_job_script(const ac_config *c, const search_infer_settings *s, const search_infer_cfg *g, const char *name,
                            const char *dir, const serve_job *sj, strbuf *b, ac_err *e)
{
    char job[CFG_NAME_MAX * 2 + 64], ini[4096], csv[4096], out[4096], err[4096];
    /* the job's tag: FT (the original's), vllm or trtllm */
    const char *tag = sj ? sj->engine : "FT", *what = sj ? sj->engine : "FasterTransformer";
    snprintf(job, sizeof job, "%sbenchmark_%s_%s", c->cluster.job_name_prefix, tag, name);
    if (fs_join(ini, sizeof ini, dir, "config.ini", e) || fs_join(csv, sizeof csv, dir, "start_ids.csv", e) ||
        fs_join(out, sizeof out, dir, "log_job_%j.out", e) || fs_join(err, sizeof err, dir, "log_job_%j.err", e))
        return -1;
    /* on local the script runs under bash and its #SBATCH lines are comments: the
     * output path (any folder, blanks included) goes to a quoted redirection instead */
    bool slurm = strcmp(c->cluster_type, "local") != 0;
    if (shell_check_directive("job name", job, e) || (slurm && shell_check_directive("results folder", out, e)) ||
        shell_check_directive("time_limit", c->infer.time_limit, e))
        return -1;
    sb_add(b, "#!/bin/bash\n");
    /* a serving engine is one process on one node that starts its own workers */
    sb_printf(b, "#SBATCH --nodes=%d\n#SBATCH --ntasks-per-node=%d\n", sj ? 1 : g->nodes, sj ? 1 : g->tasks_per_node);
    sb_printf(b, "#SBATCH --gpus-per-node=%d\n", job_gpus_per_node(c, s));
    if (c->cluster.partition[0]) {
        if (shell_check_directive("cluster.partition", c->cluster.partition, e)) return -1;
        sb_printf(b, "#SBATCH --partition=%s\n", c->cluster.partition);
    }
    if (c->cluster.account[0]) {
        if (shell_check_directive("cluster.account", c->cluster.account, e)) return -1;
        sb_printf(b, "#SBATCH --account=%s\n", c->cluster.account);
    }
    sb_printf(b, "#SBATCH --job-name=%s\n", job);
    if (slurm) sb_printf(b, "#SBATCH --output=%s\n", out);
    sb_printf(b, "#SBATCH --time=%s\n", c->infer.time_limit);
    sb_printf(b, "#SBATCH --comment=%s:%s\n\n", what, job);
    if (!sj) sb_add(b, "export NCCL_LAUNCH_MODE=GROUP\n");
    sb_add(b, "cd ");
    if (shell_quote_add(b, dir, e)) return -1;
    sb_add(b, " || exit 1\n");
    /* the command each task runs: who am I, then the benchmark */
    strbuf inner;
    sb_init(&inner);
    sb_add(&inner, "echo \"rank ${SLURM_PROCID:-0}@$(hostname)\"; ");
    if (sj ? serve_job_command(sj, &inner, e) : expand_command(s->command, ini, csv, &inner, e)) { sb_free(&inner); return -1; }
    if (!sb_str(&inner)) { sb_free(&inner); return ac_err_set(e, AC_E_NOMEM, "out of memory"); }
    if (!slurm) {
        sb_add(b, "bash -c ");
        if (shell_quote_add(b, inner.s, e)) { sb_free(&inner); return -1; }
        sb_add(b, " > \"log_job_${SLURM_JOB_ID:-local}.out\" 2> \"log_job_${SLURM_JOB_ID:-local}.err\"\n");
    } else {
        sb_add(b, sj ? "srun --ntasks=1 --output " : "srun --mpi pmix --output ");
        if (shell_quote_add(b, out, e) || (sb_add(b, " --error "), shell_quote_add(b, err, e))) { sb_free(&inner); return -1; }
        const char *image = c->cluster.container_image[0] ? c->cluster.container_image : c->training_container;
        if (image[0]) {
            sb_add(b, " --container-image ");
            if (shell_quote_add(b, image, e)) { sb_free(&inner); return -1; }
        }
        if (c->n_container_mounts > 0) {
            strbuf m;
            sb_init(&m);
            for (int i = 0; i < c->n_container_mounts; i++) {
                if (i) sb_add(&m, ",");
                sb_add(&m, c->container_mounts[i]);
            }
            sb_add(b, " --container-mounts ");
            int bad = !sb_str(&m) || shell_quote_add(b, m.s ? m.s : "", e);
            sb_free(&m);
            if (bad) { sb_free(&inner); return -1; }
        }
        sb_add(b, " --unbuffered bash -c ");
        if (shell_quote_add(b, inner.s, e)) { sb_free(&inner); return -1; }
        sb_add(b, "\n");
    }
    sb_free(&inner);
    return b->oom ? ac_err_set(e, AC_E_NOMEM, "out of memory") : 0;
}

/* a serving engine's steady state at the point's load (estimator/serve.h) */
static int serving_model(const search_infer_point *p, const gpu_spec *g, est_precision prec, search_infer_estimate *out,
                         ac_err *e)
{
    serve_input in;
    serve_input_init(&in, p->shape, g, serve_engine_find(p->engine));
    if (!in.engine || strcmp(in.engine->name, p->engine)) return ac_err_set(e, AC_E_INPUT, "unknown engine '%s'", p->engine);
    in.in.tp = p->tp;
    in.in.pp = p->pp;
    in.in.precision = prec;
    in.in.kv_bytes = p->kv_bytes;
    in.input_len = p->input_len;
    in.output_len = p->output_len;
    in.in.ep = p->ep;
    in.concurrency = p->concurrency > 0 ? p->concurrency : p->request_rate > 0 ? 0 : p->bs;
    in.request_rate = p->concurrency > 0 ? 0.0 : p->request_rate;
    in.max_num_seqs = p->bs;
    in.percentile = p->percentile;
    in.input_cv = p->input_cv;
    in.output_cv = p->output_cv;
    serve_result r;
    char why[256];
    if (serve_evaluate(&in, &r, why, sizeof why) != 0) {
        if (!strstr(why, "GiB short")) return ac_err_set(e, AC_E_INPUT, "%s", why);
        out->fits = 0;
        out->mem_gib = r.mem_need_gib;
        out->mem_limit_gib = r.mem_limit_gib;
        out->latency_ms = NAN; /* no latency of a model that does not load; the row says why */
        return 0;
    }
    out->fits = 1;
    out->saturated = r.saturated;
    out->latency_ms = r.e2e_s * 1e3;
    out->ttft_ms = r.ttft_s * 1e3;
    out->itl_ms = r.itl_s * 1e3;
    if (p->percentile > 0) {
        out->ttft_p_ms = r.ttft_p_s * 1e3;
        out->itl_p_ms = r.itl_p_s * 1e3;
        out->latency_p_ms = r.e2e_p_s * 1e3;
    }
    out->requests_per_s = r.requests_per_s;
    out->kv_capacity = r.kv_capacity;
    out->mem_gib = r.mem_weights_gib + r.mem_kv_pool_gib;
    out->mem_limit_gib = r.mem_limit_gib;
    return 0;
}

/* the default model hook: est_infer_evaluate (a static batch) or the serving model on the configured GPU */
static int default_model(const search_infer_point *p, search_infer_estimate *out, ac_err *e)
{
    const gpu_spec *g = p->gpu && p->gpu[0] ? gpu_find(p->gpu) : gpu_default_for_memory(p->gpu_memory_gb);
    if (!g) return ac_err_set(e, AC_E_INPUT, "unknown GPU '%s'", p->gpu ? p->gpu : "");
    est_infer_input in;
    est_infer_input_init(&in, p->shape, g);
    if (est_precision_parse(p->data_type ? p->data_type : "fp16", &in.precision) != 0) in.precision = PREC_FP16;
    if (p->engine && strcmp(p->engine, "fastertransformer")) return serving_model(p, g, in.precision, out, e);
    in.tp = p->tp;
    in.pp = p->pp;
    in.bs = p->bs * (p->beam_width > 1 ? p->beam_width : 1); /* each beam is a sequence */
    in.input_len = p->input_len;
    in.output_len = p->output_len;
    in.kv_bytes = p->kv_bytes;
    est_infer_result r;
    char why[256];
    if (est_infer_evaluate(&in, &r, why, sizeof why) != 0) return ac_err_set(e, AC_E_INPUT, "%s", why);
    out->latency_ms = r.latency_s * 1e3;
    out->mem_gib = r.mem_total / EST_GIB;
    out->mem_limit_gib = r.mem_limit / EST_GIB;
    out->fits = r.fits;
    out->ttft_ms = r.prefill_s * 1e3;
    out->itl_ms = r.decode_step_s * 1e3;
    if (p->percentile > 0) { /* a static batch: every request sees the same times */
        out->ttft_p_ms = out->ttft_ms;
        out->itl_p_ms = out->itl_ms;
        out->latency_p_ms = out->latency_ms;
    }
    return 0;
}

static results_infer_limits limits_of(const ac_config *c)
{
    results_infer_limits l = { c->infer.max_latency_ms, c->infer.max_ttft_ms, c->infer.max_itl_ms };
    return l;
}

static bool is_measured(const ac_config *c)
{
    return strcmp(c->cluster_type, "sim") != 0 && c->cluster_type[0];
}

/* an estimate before the model fills it: every time unknown (NAN), assumed to fit */
static search_infer_estimate estimate_unknown(void)
{
    return (search_infer_estimate){.latency_ms = NAN, .mem_gib = NAN, .fits = 1, .mem_limit_gib = NAN, .ttft_ms = NAN,
                                   .itl_ms = NAN, .requests_per_s = NAN, .ttft_p_ms = NAN, .itl_p_ms = NAN, .latency_p_ms = NAN};
}

/* the smallest max batch of the sweep that holds conc requests at once (INT_MAX when none does) */
static int smallest_batch_holding(const search_infer_settings *s, int conc)
{
    int best = INT_MAX;
    for (int i = 0; i < s->nbs; i++)
        if (s->bs[i] >= conc && s->bs[i] < best) best = s->bs[i];
    return best;
}

/* a closed loop of conc requests (a concurrency sweep) never fills more than conc slots: a max
 * batch bs larger than the smallest of the sweep that holds them is the same run, counted once
 * and neither predicted nor measured again */
static bool same_run(search_infer_settings *s, int bs, int conc)
{
    if (!s->nconc || conc <= 0 || bs <= smallest_batch_holding(s, conc)) return false;
    s->same_run++;
    return true;
}

static void emit(const ac_config *c, const results_infer_row *rows, size_t n, const char *note, FILE *out, bool json,
                 const search_infer_settings *s, size_t nrej, const search_infer_grid *g)
{
    if (json) {
        json_writer w;
        json_begin(&w, out);
        json_obj_open(&w, NULL);
        json_str(&w, "stage", "inference");
        json_str(&w, "source", is_measured(c) ? "measured" : "predicted");
        json_str(&w, "gpu", s->gpu_name);
        json_str(&w, "results_dir", s->results_dir);
        if (isfinite(c->infer.max_latency_ms)) json_num(&w, "max_latency_ms", c->infer.max_latency_ms);
        else json_null(&w, "max_latency_ms");
        json_num(&w, "max_ttft_ms", c->infer.max_ttft_ms);
        json_num(&w, "max_itl_ms", c->infer.max_itl_ms);
        json_str(&w, "engine", s->engine ? s->engine : "fastertransformer");
        json_int(&w, "rejected_pairs", (long long)nrej);
        if (g) {
            json_arr_open(&w, "rejected");
            for (size_t i = 0; i < g->n_rejected; i++) {
                json_obj_open(&w, NULL);
                json_int(&w, "tp", g->rejected[i].tp);
                json_int(&w, "pp", g->rejected[i].pp);
                json_str(&w, "rule", search_infer_rule_name(g->rejected[i].rule));
                json_str(&w, "why", g->rejected[i].why);
                json_obj_close(&w);
            }
            json_arr_close(&w);
        }
        if (note) json_str(&w, "note", note);
        results_infer_json(&w, rows, n, c->infer.top_n);
        json_obj_close(&w);
        json_end(&w);
        return;
    }
    /* the original's pair rules working as intended are not news: one line, the list with --verbose */
    if (g && g->n_rejected && c->verbose) {
        fprintf(out, "Rejected (tp, pp) pairs (x %d batch sizes each):\n", g->n_bs);
        for (size_t i = 0; i < g->n_rejected; i++)
            fprintf(out, "  tp %d pp %d: %s (%s)\n", g->rejected[i].tp, g->rejected[i].pp,
                    search_infer_rule_name(g->rejected[i].rule), g->rejected[i].why);
    } else if (g && g->n_rejected) {
        fprintf(out, "%zu (tp, pp) pairs skipped by the original's rules (--verbose lists them)\n", g->n_rejected);
    }
    if (s && s->same_run)
        fprintf(out, "%zu configurations left out: a max batch above the concurrency, which the smallest max batch "
                     "holding it already serves (the same run)\n", s->same_run);
    if (n) {
        fprintf(out, "Inference on %s, %d GPUs per node, engine %s (%s):\n", s->gpu_name, s->gpus_per_node,
                s->engine ? s->engine : "fastertransformer", is_measured(c) ? "measured" : "predicted by the analytical model");
        results_infer_limits l = limits_of(c);
        results_infer_print_limits(out, rows, n, c->infer.top_n, &l);
        if (is_measured(c)) results_infer_print_measured(out, rows, n);
    }
    if (note) fprintf(out, "%s\n", note);
}

static int write_ft_inputs(const ac_config *c, const model_base_config *base,
                           const search_infer_cfg *g, int in, int out, const char *dir, ac_err *e)
{
    const model_shape *sh = &base->shape;
    results_ft_config f;
    results_ft_config_defaults(&f);
    f.max_batch_size = f.request_batch_size = g->bs;
    f.max_seq_len = in + out;
    f.beam_width = c->infer.beam_width > 0 ? c->infer.beam_width : 1;
    f.top_k = c->infer.topk;
    f.top_p = c->infer.topp;
    f.tensor_para_size = g->tp;
    f.pipeline_para_size = g->pp;
    snprintf(f.data_type, sizeof f.data_type, "%s", c->infer.data_type[0] ? c->infer.data_type : "fp16");
    f.request_output_len = out;
    f.head_num = sh->heads;
    f.size_per_head = (int)shape_head_dim(sh); /* whole channels, as FasterTransformer reads them */
    f.inter_size = sh->ffn_hidden > 0 ? sh->ffn_hidden : 4 * sh->hidden;
    f.vocab_size = sh->vocab > 0 ? sh->vocab : 51200;
    f.decoder_layers = sh->num_layers;
    return results_ft_write(dir, &f, in, e);
}

/* the serving jobs' loads: benchmark.concurrency, else each max batch is its own load */
static int serving_loads(const search_infer_settings *s) { return s->serving_jobs && s->nconc ? s->nconc : 1; }
static int serving_conc(const search_infer_settings *s, const search_infer_cfg *g, int l)
{
    return !s->serving_jobs ? 0 : s->nconc ? s->conc[l] : g->bs;
}

/* vLLM's --dtype of a precision: the activations' (fp8 weights keep 16-bit activations) */
static const char *torch_dtype(const char *data_type)
{
    return !strcmp(data_type, "fp16") ? "float16" : !strcmp(data_type, "fp32") ? "float32" : "bfloat16";
}

/* one serving job's engine settings */
static serve_job serving_job(const ac_config *c, const search_infer_settings *s, const search_infer_cfg *g, int conc,
                             int in, int out, const char *dir)
{
    serve_job j = { .engine = s->engine, .dir = dir, .tokenizer = s->tokenizer_hub, .tp = g->tp, .pp = g->pp,
                    .max_num_seqs = g->bs, .concurrency = conc, .input_len = in, .output_len = out };
    j.num_prompts = c->infer.num_prompts > 0 ? c->infer.num_prompts : (10 * conc > 32 ? 10 * conc : 32);
    j.dtype = torch_dtype(s->prec[0].data_type);
    j.fp8_weights = !strcmp(s->prec[0].data_type, "fp8");
    j.fp8_kv = s->prec[0].kv_bytes == 1 || (!s->prec[0].kv_bytes && j.fp8_weights);
    return j;
}

/* the tokenizer files a folder may hold (transformers' save_pretrained writes these) */
static const char *const TOKENIZER_FILES[] = { "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
                                               "tokenizer.model", "vocab.json", "merges.txt", "generation_config.json" };

static int copy_file(const char *from, const char *to, ac_err *e)
{
    size_t len = 0;
    char *text = fs_read_file(from, &len, e);
    if (!text) return -1;
    int rc = fs_write_atomic(to, text, len, e);
    free(text);
    return rc;
}

/* <dir>/model/config.json (+ tokenizer) and, for trtllm, the LLM API options */
static int write_serve_inputs(const ac_config *c, const model_base_config *base, const search_infer_settings *s,
                              const serve_job *j, const char *dir, ac_err *e)
{
    char mdir[JOB_DIR_MAX + 8], path[JOB_DIR_MAX + 64], from[CFG_PATH_MAX + 64];
    if (fs_join(mdir, sizeof mdir, dir, "model", e) || fs_mkdir_p(mdir, e) || fs_join(path, sizeof path, mdir, "config.json", e))
        return -1;
    if (c->train.hf_config[0]) {
        if (copy_file(c->train.hf_config, path, e)) return -1; /* the architecture as the user gave it */
    } else {
        strbuf b;
        sb_init(&b);
        int rc = serve_job_hf_config(&base->shape, j->dtype, j->input_len + j->output_len, &b, e);
        if (!rc) rc = fs_write_sb(path, &b, e);
        sb_free(&b);
        if (rc) return -1;
    }
    if (s->tokenizer_dir[0]) {
        int copied = 0;
        for (size_t i = 0; i < sizeof TOKENIZER_FILES / sizeof *TOKENIZER_FILES; i++) {
            if (snprintf(from, sizeof from, "%s/%s", s->tokenizer_dir, TOKENIZER_FILES[i]) >= (int)sizeof from) continue;
            if (!fs_exists(from)) continue;
            if (fs_join(path, sizeof path, mdir, TOKENIZER_FILES[i], e) || copy_file(from, path, e)) return -1;
            copied++;
        }
        if (!copied)
            return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, IS_KEY "run.tokenizer", "%s holds no tokenizer files (%s, ...)",
                             s->tokenizer_dir, TOKENIZER_FILES[0]);
    }
    if (!strcmp(j->engine, "trtllm")) {
        strbuf b;
        sb_init(&b);
        serve_job_trtllm_options(j, &b);
        int rc = fs_join(path, sizeof path, dir, SERVE_JOB_TRTLLM_OPTIONS, e);
        if (!rc) rc = fs_write_sb(path, &b, e);
        sb_free(&b);
        if (rc) return -1;
    }
    return 0;
}

/* what a measured sweep may write: job folders, and start_ids.csv bytes in all of them
 * (batch × input_len ids per job, repeated in every folder) */
enum { INFER_MAX_JOBS = 1000 };
static const double INFER_MAX_INPUT_BYTES = 1024.0 * 1024 * 1024;

/* bytes of one start_ids.csv: bs lines of input_len ids "198" joined by ", " (ft_files.c) */
static double start_ids_bytes(int bs, int input_len) { return (double)bs * (5.0 * input_len - 1.0); }

/* the measured sweep's disk use, checked before anything is written */
static int check_measured_bounds(const search_infer_settings *s, const search_infer_grid *g, ac_err *e)
{
    size_t jobs = g->n * (size_t)s->npairs * (size_t)serving_loads(s);
    if (jobs > INFER_MAX_JOBS)
        return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, IS_KEY "run",
                         "%zu benchmark jobs (%zu configurations x %d input/output pairs x %d loads) exceed the limit of %d; "
                         "narrow tensor_parallel_sizes, pipeline_parallel_sizes, benchmark.batch_sizes or concurrency",
                         jobs, g->n, s->npairs, serving_loads(s), INFER_MAX_JOBS);
    if (s->serving_jobs) return 0; /* the engines make their own prompts */
    double bytes = 0;
    for (int p = 0; p < s->npairs; p++)
        for (size_t i = 0; i < g->n; i++) bytes += start_ids_bytes(g->items[i].bs, s->in_len[p]);
    if (bytes > INFER_MAX_INPUT_BYTES)
        return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, IS_KEY "benchmark",
                         "the benchmark inputs (start_ids.csv, batch_size x input_len ids per job) would take %.1f GiB, "
                         "over the limit of %.0f GiB; lower benchmark.batch_sizes or input_len",
                         bytes / (1024.0 * 1024 * 1024), INFER_MAX_INPUT_BYTES / (1024.0 * 1024 * 1024));
    return 0;
}

/* EP lives inside the TP group: for a MoE model some EP size must divide a searched TP and the experts */
static int check_ep(const search_infer_settings *s, const search_infer_grid *g, const model_shape *sh, ac_err *e)
{
    if (!shape_is_moe(sh) || !g->n) return 0;
    for (int x = 0; x < s->nep; x++)
        for (size_t i = 0; i < g->n; i++)
            if (s->ep[x] <= 1 || (g->items[i].tp % s->ep[x] == 0 && sh->num_experts % s->ep[x] == 0)) return 0;
    return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, IS_KEY "run.expert_parallel_sizes",
                     "no EP size divides both a searched TP size and the %d experts (EP spreads the experts over the TP "
                     "ranks); add 1 or a divisor of both", sh->num_experts);
}

/* after the table is out: 1 with e set when no configuration fits and meets every limit (the
 * table says which came closest), for the caller's exit status; 0 otherwise */
static int none_usable(const results_infer_row *rows, size_t n, ac_err *e)
{
    for (size_t i = 0; i < n; i++)
        if (rows[i].status == RES_INFER_OK) return 0;
    if (!n) return 0;
    ac_err_set(e, AC_E_EXEC, "no inference configuration fits and meets every limit (the closest is printed above)");
    return 1;
}

int search_inference_run_with(const ac_config *c, const model_base_config *base, const search_infer_hooks *h, FILE *out,
                              bool json, ac_err *e)
{
    if (base->shape.arch != ARCH_DECODER)
        return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "search_config",
                         "the inference search serves decoder models (GPT-3, Llama, Mixtral); %s is not one", base->run_name);
    search_infer_settings s;
    if (search_infer_settings_resolve(c, base, &s, e) != 0) return -1;
    search_infer_grid g;
    if (search_infer_grid_build(&base->shape, s.gpus_per_node, s.tp, s.ntp, s.pp, s.npp, s.bs, s.nbs, &g, e) != 0) return -1;
    bool measured = is_measured(c);
    if (measured && check_measured_bounds(&s, &g, e)) { search_infer_grid_free(&g); return -1; }
    int nload = s.nconc + s.nrate ? s.nconc + s.nrate : 1;
    int nep = shape_is_moe(&base->shape) ? s.nep : 1;
    if (!measured && check_ep(&s, &g, &base->shape, e)) { search_infer_grid_free(&g); return -1; }
    size_t n = g.n * (size_t)s.npairs * (measured ? (size_t)serving_loads(&s) : (size_t)s.nprec * (size_t)nload * (size_t)nep);
    results_infer_row *rows = calloc(n ? n : 1, sizeof *rows);
    if (!rows) { search_infer_grid_free(&g); return ac_err_set(e, AC_E_NOMEM, "out of memory"); }
    search_infer_model_fn model = h && h->model ? h->model : default_model;
    int rc = 0;
    size_t k = 0;
    char base_dir[CFG_PATH_MAX + 32];
    snprintf(base_dir, sizeof base_dir, "%s/inference", s.results_dir);
    int submitted = 0;
    results_infer_limits lim = limits_of(c);
    for (int p = 0; p < s.npairs && !rc; p++)
        for (size_t i = 0; i < g.n && !rc; i++) {
            const search_infer_cfg *gc = &g.items[i];
            if (!measured) {
                /* every EP (MoE), precision and load of this layout and max batch; EP sizes that do not
                 * divide TP and the experts are no layout of this TP: their rows are left out */
                for (int x = 0; x < nep; x++)
                for (int q = 0; q < s.nprec; q++)
                    for (int l = 0; l < nload; l++) {
                        int ep = shape_is_moe(&base->shape) && s.ep[x] > 1 ? s.ep[x] : 0; /* dense: no EP */
                        if (ep > 1 && (gc->tp % ep || base->shape.num_experts % ep)) continue;
                        int conc = l < s.nconc ? s.conc[l] : 0;
                        if (same_run(&s, gc->bs, conc)) continue;
                        results_infer_row *r = &rows[k++];
                        double rate = l >= s.nconc && s.nrate ? s.rate[l - s.nconc] : 0.0;
                        *r = results_infer_row_init(gc->tp, gc->pp, gc->bs, s.in_len[p], s.out_len[p], RES_INFER_PREDICTED);
                        r->concurrency = conc;
                        r->request_rate = rate;
                        r->ep = ep;
                        r->percentile = s.percentile;
                        if (s.nprec > 1 || c->infer.n_precisions) snprintf(r->precision, sizeof r->precision, "%s", s.prec[q].name);
                        search_infer_point pt = { &base->shape, gc->tp, gc->pp, gc->bs, s.in_len[p], s.out_len[p],
                                                  c->infer.beam_width, s.prec[q].data_type, c->train.gpu, c->train.gpu_memory_gb,
                                                  s.gpus_per_node, s.engine, conc, s.prec[q].kv_bytes, rate, ep, s.percentile,
                                                  cv_of(c->infer.input_len_stdev, s.in_len[p]),
                                                  cv_of(c->infer.output_len_stdev, s.out_len[p]) };
                        search_infer_estimate est = estimate_unknown();
                        ac_err me;
                        if (model(&pt, &est, &me) != 0) {
                            results_infer_row_fail(r, "model: %s", me.msg);
                        } else {
                            /* memory and KV capacity hold whatever the load */
                            r->fits = est.fits;
                            r->mem_gib = est.mem_gib;
                            r->mem_limit_gib = est.mem_limit_gib;
                            r->kv_capacity = est.kv_capacity;
                            if (est.saturated) {
                                /* the offered rate outgrows the instance: the queue (and TTFT) grows without bound */
                                results_infer_row_fail(r, "saturated: %g requests/s exceed what the instance serves (the "
                                                       "queue and TTFT grow without bound); lower the request rate or add GPUs",
                                                       rate);
                            } else {
                                r->latency_ms = est.latency_ms;
                                r->ttft_ms = est.ttft_ms;
                                r->itl_ms = est.itl_ms;
                                r->requests_per_s = est.requests_per_s;
                                r->ttft_p_ms = est.ttft_p_ms;
                                r->itl_p_ms = est.itl_p_ms;
                                r->latency_p_ms = est.latency_p_ms;
                            }
                        }
                        results_infer_row_finish_limits(r, &lim);
                    }
                continue;
            }
            for (int l = 0; l < serving_loads(&s) && !rc; l++) {
            int conc = serving_conc(&s, gc, l);
            if (same_run(&s, gc->bs, conc)) continue;
            results_infer_row *r = &rows[k++];
            *r = results_infer_row_init(gc->tp, gc->pp, gc->bs, s.in_len[p], s.out_len[p], RES_INFER_MEASURED);
            r->concurrency = conc;
            char name[JOB_NAME_MAX], dir[JOB_DIR_MAX], script[CFG_PATH_MAX + 300];
            if ((rc = job_folder(&s, gc->tp, gc->pp, gc->bs, conc, s.in_len[p], s.out_len[p], name, dir, e)) != 0) break;
            /* the executor and the scripts change directory: they get the folder absolute */
            char rel[JOB_DIR_MAX];
            snprintf(rel, sizeof rel, "%s", dir);
            if ((rc = fs_abspath(rel, dir, JOB_DIR_MAX, e)) != 0) break;
            char why[256];
            if (s.serving_jobs && serving_spans_nodes(c, &s, gc->tp, gc->pp, why, sizeof why)) {
                results_infer_row_fail(r, "%s", why);
                continue;
            }
            serve_job sj = serving_job(c, &s, gc, conc, s.in_len[p], s.out_len[p], dir);
            strbuf b;
            sb_init(&b);
            if (fs_mkdir_p(dir, e) ||
                (s.serving_jobs ? write_serve_inputs(c, base, &s, &sj, dir, e)
                                : write_ft_inputs(c, base, gc, s.in_len[p], s.out_len[p], dir, e)) ||
                search_infer_job_script(c, &s, gc, name, dir, s.serving_jobs ? &sj : NULL, &b, e) ||
                fs_join(script, sizeof script, dir, "submission_script.sh", e) ||
                fs_write_atomic(script, sb_str(&b), b.len, e)) {
                sb_free(&b);
                rc = -1;
                break;
            }
            sb_free(&b);
            if (h && h->submit) {
                char job_id[64] = "";
                ac_err se;
                if (h->submit(h->submit_ctx, c, script, dir, s.serving_jobs ? 1 : gc->nodes,
                              s.serving_jobs ? 1 : gc->tasks_per_node, job_id, sizeof job_id, &se) != 0)
                    results_infer_row_fail(r, "submission failed: %s", se.msg);
                else
                    submitted++;
            }
            }
        }
    n = k; /* EP sizes that are no layout of a TP, and max batches above a load, left no row */
    if (!rc) rc = results_infer_write_configs(s.results_dir, rows, n, s.npairs > 1, e);
    if (!rc && !measured) {
        rc = results_infer_sort(rows, n, e);
        if (!rc) rc = results_infer_write_summary_limits(s.results_dir, rows, n, &lim, base->run_name, s.gpu_name, e);
        if (!rc) emit(c, rows, n, NULL, out, json, &s, g.n_rejected, &g);
        if (!rc) rc = none_usable(rows, n, e);
    } else if (!rc && h && h->submit) {
        /* the caller runs the jobs and prints their measured summary */
    } else if (!rc) {
        char note[CFG_PATH_MAX + 256];
        snprintf(note, sizeof note,
                 "Wrote %zu benchmark jobs under %s (%d submitted); when they finish, `autoconfig infer --summarize` "
                 "reads their logs.", n, base_dir, submitted);
        emit(c, NULL, 0, note, out, json, &s, g.n_rejected, &g);
    }
    free(rows);
    search_infer_grid_free(&g);
    return rc;
}

int search_inference_check(const ac_config *c, const model_base_config *base, ac_err *e)
{
    if (base->shape.arch != ARCH_DECODER) return 0; /* the stage is skipped, not failed */
    search_infer_settings s;
    search_infer_grid g;
    if (search_infer_settings_resolve(c, base, &s, e) != 0 ||
        search_infer_grid_build(&base->shape, s.gpus_per_node, s.tp, s.ntp, s.pp, s.npp, s.bs, s.nbs, &g, e) != 0)
        return -1;
    int rc = is_measured(c) ? check_measured_bounds(&s, &g, e) : check_ep(&s, &g, &base->shape, e);
    if (!rc && is_measured(c) && g.n) {
        /* one job script rendered and dropped: what would refuse it (time_limit, job name,
         * folder, command) fails here rather than after the first files are written */
        char name[JOB_NAME_MAX], dir[JOB_DIR_MAX];
        strbuf b;
        sb_init(&b);
        int conc = serving_conc(&s, &g.items[0], 0);
        rc = job_folder(&s, g.items[0].tp, g.items[0].pp, g.items[0].bs, conc, s.in_len[0], s.out_len[0], name, dir, e);
        serve_job sj = serving_job(c, &s, &g.items[0], conc, s.in_len[0], s.out_len[0], dir);
        if (!rc) rc = search_infer_job_script(c, &s, &g.items[0], name, dir, s.serving_jobs ? &sj : NULL, &b, e);
        if (!rc && s.serving_jobs && !c->train.hf_config[0]) {
            strbuf hf;
            sb_init(&hf);
            rc = serve_job_hf_config(&base->shape, sj.dtype, sj.input_len + sj.output_len, &hf, e);
            sb_free(&hf);
        }
        sb_free(&b);
    }
    search_infer_grid_free(&g);
    return rc;
}

int search_inference_run(const ac_config *c, const model_base_config *base, FILE *out, bool json, ac_err *e)
{
    return search_inference_run_with(c, base, NULL, out, json, e);
}

/* a serving report's inter-token latency: trtllm-bench reports TPOT instead */
static double itl_or_tpot(double itl_ms, double tpot_ms)
{
    return isfinite(itl_ms) ? itl_ms : tpot_ms;
}

/* a serving job's measured figures and the model's prediction of the same configuration */
static int serving_row(const ac_config *c, const model_base_config *base, const search_infer_settings *s, const char *dir,
                       results_infer_row *r, char *why, size_t wl)
{
    if (s->nprec == 1 && c->infer.n_precisions) snprintf(r->precision, sizeof r->precision, "%.15s", s->prec[0].name);
    /* the prediction, whatever the job did */
    search_infer_point pt = { &base->shape, r->tp, r->pp, r->bs, r->input_len, r->output_len, 1, s->prec[0].data_type,
                              c->train.gpu, c->train.gpu_memory_gb, s->gpus_per_node, s->engine, r->concurrency,
                              s->prec[0].kv_bytes, .percentile = s->percentile };
    search_infer_estimate est = estimate_unknown();
    ac_err me;
    if (default_model(&pt, &est, &me) == 0) {
        r->pred_ttft_ms = est.ttft_ms;
        r->pred_itl_ms = est.itl_ms;
        r->pred_latency_ms = est.latency_ms;
        r->pred_requests_per_s = est.requests_per_s;
        r->kv_capacity = est.kv_capacity;
        r->mem_gib = est.mem_gib;
        r->mem_limit_gib = est.mem_limit_gib;
    }
    if (serving_spans_nodes(c, s, r->tp, r->pp, why, wl)) {
        results_infer_row_fail(r, "%s", why);
        return -1;
    }
    results_serve_metrics m;
    if (results_serve_read_job(dir, !strcmp(s->engine, "trtllm"), &m, why, wl) != 0) {
        results_infer_row_fail(r, "%s", why);
        return -1;
    }
    r->latency_ms = m.mean_e2el_ms;
    r->ttft_ms = m.mean_ttft_ms;
    r->itl_ms = itl_or_tpot(m.mean_itl_ms, m.mean_tpot_ms);
    r->requests_per_s = m.request_throughput;
    if (s->percentile > 0) {
        /* the limits' percentile as the engine reports it: the jobs ask vLLM for 50, 90 and 99,
         * trtllm-bench prints those too, and serving_settings refuses any other */
        r->percentile = s->percentile;
        int q = s->percentile;
        double ttft[3] = { m.median_ttft_ms, m.p90_ttft_ms, m.p99_ttft_ms },
               itl[3] = { itl_or_tpot(m.median_itl_ms, m.median_tpot_ms), itl_or_tpot(m.p90_itl_ms, m.p90_tpot_ms),
                          itl_or_tpot(m.p99_itl_ms, m.p99_tpot_ms) },
               e2e[3] = { m.median_e2el_ms, m.p90_e2el_ms, m.p99_e2el_ms };
        int k = q == 50 ? 0 : q == 90 ? 1 : 2;
        r->ttft_p_ms = ttft[k];
        r->itl_p_ms = itl[k];
        r->latency_p_ms = e2e[k];
    }
    if (!isfinite(r->latency_ms) && isfinite(m.request_throughput) && m.request_throughput > 0 && r->concurrency > 0)
        r->latency_ms = 1e3 * r->concurrency / m.request_throughput; /* Little's law when the report has no e2e */
    r->fits = 1;
    return 0;
}

int search_inference_summarize(const ac_config *c, const model_base_config *base, FILE *out, bool json, ac_err *e)
{
    search_infer_settings s;
    if (search_infer_settings_resolve(c, base, &s, e) != 0) return -1;
    char path[CFG_PATH_MAX + 96];
    snprintf(path, sizeof path, "%s/inference/final_summary/inference_sweep_configs.csv", s.results_dir);
    results_infer_row *rows = NULL;
    size_t n = 0;
    if (results_infer_read_configs(path, s.in_len[0], s.out_len[0], RES_INFER_MEASURED, &rows, &n, e) != 0) return -1;
    size_t n_read = 0;
    char first_why[256] = "";
    /* the executor's ledger (when the jobs ran through it) says which runs failed: a folder may
     * still hold an earlier run's results */
    ac_err le;
    ledger *led = s.serving_jobs ? ledger_open_existing(s.results_dir, &le) : NULL;
    for (size_t i = 0; i < n; i++) {
        results_infer_row *r = &rows[i];
        char name[JOB_NAME_MAX], dir[JOB_DIR_MAX];
        if (job_folder(&s, r->tp, r->pp, r->bs, s.serving_jobs ? r->concurrency : 0, r->input_len, r->output_len, name,
                       dir, e) != 0) {
            if (led) ledger_close(led);
            free(rows);
            return -1;
        }
        double lat;
        char why[256];
        if (s.serving_jobs) {
            ledger_row lr;
            int found = 0;
            char run[sizeof lr.name];
            if (!search_infer_run_name(dir, run, sizeof run)) run[0] = '\0';
            bool failed = led && ledger_get(led, run, &lr, &found, &le) == 0 && found && lr.state == LEDGER_FAILED;
            int ok = serving_row(c, base, &s, dir, r, why, sizeof why) == 0;
            if (ok && failed) {
                snprintf(why, sizeof why, "the job failed (ledger: %.150s); its folder holds an earlier run's results",
                         lr.reason[0] ? lr.reason : "no reason");
                results_infer_row_fail(r, "%s", why);
                ok = 0;
            }
            if (ok) n_read++;
            else if (!first_why[0]) snprintf(first_why, sizeof first_why, "%s", why);
        } else if (results_ftlog_read_dir(dir, &lat, why, sizeof why) != 0) {
            results_infer_row_fail(r, "%s", why);
            if (!first_why[0]) snprintf(first_why, sizeof first_why, "%s", why);
        } else {
            r->latency_ms = lat;
            n_read++;
        }
        results_infer_limits lim = limits_of(c);
        results_infer_row_finish_limits(r, &lim);
    }
    if (led) ledger_close(led);
    if (n && !n_read) {
        /* no job has left a latency yet: a summary of failures would replace whatever was there */
        free(rows);
        return ac_err_set(e, AC_E_INPUT, "no benchmark log with a latency under %s/inference (%zu jobs; first: %s); "
                          "have the jobs run? nothing written", s.results_dir, n, first_why);
    }
    int rc = results_infer_sort(rows, n, e);
    if (!rc) rc = results_infer_write_summary(s.results_dir, rows, n, c->infer.max_latency_ms, base->run_name, s.gpu_name, e);
    if (!rc) emit(c, rows, n, NULL, out, json, &s, 0, NULL);
    if (!rc) rc = none_usable(rows, n, e);
    free(rows);
    return rc;
}
