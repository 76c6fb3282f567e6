/* cost_published.c — see cost_published.h */
#include "cost/cost_published.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/csv.h"
#include "util/stats.h"

extern const char ac_data_finetune_published[]; /* build/gen/data_finetune_published.c */

static const char *const COLS[] = {"source", "what", "model", "layers", "hidden", "ffn", "heads", "kv_heads", "vocab",
                                   "gated", "untied", "task", "lora_rank", "lora_modules", "gpu", "gpus", "context",
                                   "mbs", "gbs", "zero", "offload_opt", "offload_params", "ckpt", "stack",
                                   "overlap_comm", "pin_memory", "attn_mask", "tok_s_gpu", "mfu"};

static void predict_row(const csv_table *t, const csv_row *r, cost_published_row *out)
{
#define COL(name) csv_get(r, csv_col(t, name))
#define NUM(name) atof(COL(name))
    memset(out, 0, sizeof *out);
    snprintf(out->source, sizeof out->source, "%s", COL("source"));
    snprintf(out->what, sizeof out->what, "%s", COL("what"));
    snprintf(out->stack, sizeof out->stack, "%s", COL("stack"));
    snprintf(out->gpu, sizeof out->gpu, "%s", COL("gpu"));
    out->gpus = (int)NUM("gpus");
    out->published_tok_s_gpu = NUM("tok_s_gpu");
    out->published_mfu = NUM("mfu");
    cost_model m = {0};
    snprintf(m.name, sizeof m.name, "%s", COL("model"));
    model_shape *s = &m.shape;
    s->arch = ARCH_DECODER;
    s->num_layers = (int)NUM("layers");
    s->hidden = (int)NUM("hidden");
    s->ffn_hidden = (int)NUM("ffn");
    s->heads = (int)NUM("heads");
    s->query_groups = (int)NUM("kv_heads");
    s->kv_channels = s->heads > 0 ? s->hidden / s->heads : 0;
    s->vocab = (int)NUM("vocab");
    s->seq_length = (int)NUM("context");
    s->gated_mlp = NUM("gated") != 0;
    s->untied_embeddings = NUM("untied") != 0;
    /* optional columns: a mixture of experts (experts, top-k, one expert's FFN width; empty = dense) */
    s->num_experts = (int)NUM("experts");
    s->moe_topk = (int)NUM("topk");
    s->moe_ffn_hidden = (int)NUM("expert_ffn");
    m.max_context = s->seq_length;
    cost_request rq;
    cost_request_init(&rq, &m);
    ac_err e;
    if (cost_task_parse(COL("task"), &rq.task)) { snprintf(out->why, sizeof out->why, "task '%s' unknown", COL("task")); return; }
    rq.context = s->seq_length;
    rq.tokens_b = 1.0;
    rq.gbs = (int)NUM("gbs");
    rq.stack = est_stack_find(out->stack);
    /* an unstated overlap_comm or pin_memory is DeepSpeed's own default (overlap_comm true for ZeRO-3
     * only, pin_memory false); anything but the two words a column takes is a malformed row, not a
     * silent true */
    static const struct {
        const char *col, *yes, *no;
    } WORDS[] = {{"overlap_comm", "true", "default"}, {"pin_memory", "true", "default"}, {"attn_mask", "explicit", "causal"}};
    for (size_t i = 0; i < sizeof WORDS / sizeof *WORDS; i++) {
        const char *v = COL(WORDS[i].col);
        if (strcmp(v, WORDS[i].yes) && strcmp(v, WORDS[i].no)) {
            snprintf(out->why, sizeof out->why, "%s:%d: %s '%s' is not %s or %s", t->file, r->line, WORDS[i].col, v,
                     WORDS[i].yes, WORDS[i].no);
            return;
        }
    }
    const char *oc = COL("overlap_comm"), *pm = COL("pin_memory"), *am = COL("attn_mask");
    /* timing (optional): what the published time covers, "step" (empty) or "fwd_bwd" */
    const char *tm = COL("timing");
    bool fwd_bwd = !strcmp(tm, "fwd_bwd");
    if (*tm && strcmp(tm, "step") && !fwd_bwd) {
        snprintf(out->why, sizeof out->why, "%s:%d: timing '%s' is not step or fwd_bwd", t->file, r->line, tm);
        return;
    }
    rq.overlap_comm = !strcmp(oc, "true");
    rq.pin_memory = !strcmp(pm, "true");
    /* explicit: the run's Transformers passed SDPA a 4-D mask (the memory-efficient kernel) */
    rq.attn_explicit_mask = !strcmp(am, "explicit");
    if (rq.task == COST_LORA) {
        rq.lora_rank = (int)NUM("lora_rank");
        snprintf(rq.lora_modules, sizeof rq.lora_modules, "%s", COL("lora_modules"));
        if (cost_lora_targets(rq.lora_modules, s, &rq.lora_targets, &e)) { snprintf(out->why, sizeof out->why, "%s", e.msg); return; }
    }
    /* gpu: a GPU of data/gpus.csv, or an instance type of data/instances.csv (its GPUs per node,
     * network and host RAM: the run's own node); the row then reads as the instance's GPU */
    if (gpu_catalog_load(&e) == 0 && gpu_find(out->gpu)) {
        if (cost_pool_parse(out->gpu, out->gpus, NULL, &rq.pools[0], &e)) { snprintf(out->why, sizeof out->why, "%s", e.msg); return; }
    } else if (cost_pool_instance_parse(out->gpu, out->gpus, NULL, &rq.pools[0], &e)) {
        snprintf(out->why, sizeof out->why, "%s:%d: %.700s", t->file, r->line, e.msg);
        return;
    } else {
        snprintf(out->gpu, sizeof out->gpu, "%s", rq.pools[0].gpu->name);
    }
    rq.n_pools = 1;
    cost_knobs k = {0, out->gpus, 1, 1, (int)NUM("mbs"), (int)NUM("zero"), NUM("offload_opt") != 0, NUM("offload_params") != 0,
                    NUM("ckpt") != 0};
    cost_option o;
    if (out->gpus < 1 || cost_evaluate(&rq, &k, &o, &e)) {
        snprintf(out->why, sizeof out->why, "%s", out->gpus < 1 ? "no GPU count" : e.msg);
        return;
    }
    out->ok = true;
    double scale = cost_published_time_scale(o.est.step_time, o.est.t_optimizer, fwd_bwd);
    out->predicted_tok_s_gpu = o.tokens_per_s * scale / out->gpus;
    out->err = out->published_tok_s_gpu > 0 ? out->predicted_tok_s_gpu / out->published_tok_s_gpu - 1.0 : NAN;
    out->mfu = o.mfu * scale;
    out->cookbook_mfu = cost_cookbook_mfu(&rq, &o) * scale;
    out->feasible = o.feasible;
    out->offload = k.offload_optimizer || k.offload_params;
    out->fwd_bwd = fwd_bwd;
#undef COL
#undef NUM
}

double cost_published_time_scale(double step_s, double optimizer_s, bool fwd_bwd)
{
    if (!fwd_bwd || !(step_s > optimizer_s) || !(optimizer_s >= 0)) return 1.0;
    return step_s / (step_s - optimizer_s);
}

int cost_published_eval(cost_published_row **rows, size_t *n, ac_err *e)
{
    *rows = NULL;
    *n = 0;
    csv_table t;
    if (csv_parse(ac_data_finetune_published, strlen(ac_data_finetune_published), "data/finetune_published.csv", &t, e)) return -1;
    if (csv_require_cols(&t, COLS, sizeof COLS / sizeof *COLS, AC_E_INTERNAL, NULL, e)) { csv_free(&t); return -1; }
    cost_published_row *v = calloc(t.n ? t.n : 1, sizeof *v);
    if (!v) { csv_free(&t); return ac_err_set(e, AC_E_NOMEM, "out of memory"); }
    for (size_t i = 0; i < t.n; i++) predict_row(&t, &t.rows[i], &v[i]);
    *rows = v;
    *n = t.n;
    csv_free(&t);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double cost_published_quantile(double *v, size_t n, double q)
{
    if (!n) return 0.0;
    qsort(v, n, sizeof *v, cmp_double);
    size_t i = (size_t)ceil(q * (double)n);
    return v[i ? i - 1 : 0];
}

/* the rows predicted once per process: the band is asked for each printed setup */
static cost_published_row *cache;
static size_t cache_n;
static bool cache_done;

bool cost_published_band(const est_stack *st, const gpu_spec *g, bool offload, double *band, int *rows, bool *on_gpu,
                         double *median_err)
{
    if (!cache_done) {
        ac_err e;
        cache_done = true;
        if (cost_published_eval(&cache, &cache_n, &e)) cache_n = 0;
    }
    const char *stack = st ? st->name : "megatron-core";
    enum { MAX_ROWS = 256 };
    double abs_err[MAX_ROWS], signed_err[MAX_ROWS];
    for (int pass = 0; pass < 2; pass++) {
        size_t k = 0;
        for (size_t i = 0; i < cache_n && k < MAX_ROWS; i++) {
            const cost_published_row *r = &cache[i];
            if (!r->ok || !isfinite(r->err) || strcmp(r->stack, stack) || r->offload != offload) continue;
            if (r->offload && r->fwd_bwd) continue; /* its optimizer step, the offloaded part, is not in it */
            if (pass == 0 && (!g || strcmp(r->gpu, g->name))) continue;
            abs_err[k] = fabs(r->err);
            signed_err[k++] = r->err;
        }
        if (k < 3) continue;
        *band = cost_published_quantile(abs_err, k, 0.8);
        /* the interpolated median: an even count's is the mean of its two middle rows, where a
         * nearest-rank median would take the sign of one side when the rows split (offload: three
         * too fast, three too slow) */
        *median_err = stats_quantile(signed_err, k, 0.5);
        *rows = (int)k;
        *on_gpu = pass == 0;
        return true;
    }
    return false;
}
