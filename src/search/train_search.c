/* train_search.c — see train_search.h */
#include "search/train_search.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "search/candidate_est.h"

int search_family_of(const char *family)
{
    for (int f = 0; f < SEARCH_FAMILY_COUNT; f++)
        if (!strcmp(search_family_name((search_family)f), family)) return f;
    return -1;
}

static search_int_list list_from_cfg(const cfg_int_list *l)
{
    if (l->is_auto) return search_list_auto();
    return search_list_of(l->v, l->n);
}

static search_int_list list_of_one(int v) { return search_list_of(&v, 1); }

/* one value of a string-list knob; -1 when the name is unknown */
typedef struct { const char *name; int value; } knob_name;

static const knob_name PRECISION_NAMES[] = {{"bf16", SEARCH_PREC_BF16}, {"bf16-mixed", SEARCH_PREC_BF16}, {"fp8", SEARCH_PREC_FP8}, {NULL, 0}};
static const knob_name GRAD_NAMES[] = {{"fp32", 0}, {"float32", 0}, {"bf16", 1}, {"bfloat16", 1}, {NULL, 0}};
static const knob_name BOOL_NAMES[] = {{"false", 0}, {"true", 1}, {"0", 0}, {"1", 1}, {NULL, 0}};
static const knob_name LAYOUT_NAMES[] = {{"even", 0}, {"first_last", 1}, {NULL, 0}};

/* values a knob names that the target release (NeMo v2.0.0 on Megatron-Core 0.9) cannot run */
static const struct { const char *key, *value, *why; } NOT_IN_RELEASE[] = {
    {"precisions", "nvfp4", "NVFP4 training needs Transformer Engine 2.x recipes that NeMo v2.0.0 (Megatron-Core 0.9) does not have"},
    {"precisions", "mxfp8", "MXFP8 needs Blackwell recipes of Transformer Engine 2.x, later than NeMo v2.0.0 (Megatron-Core 0.9)"},
    {"pipeline_layouts", "embedding_loss", "account_for_embedding/loss_in_pipeline_split arrived in a Megatron-Core later than 0.9 (NeMo v2.0.0's); use first_last (first/last_pipeline_num_layers)"},
};

static int knob_list(const ac_config *c, const char *key, int n, char items[][CFG_KNOB_LEN], const knob_name *names,
                     search_int_list *out, ac_err *e)
{
    *out = search_list_auto();
    if (n == 0 || (n == 1 && !strcmp(items[0], "auto"))) return 0;
    int v[SEARCH_LIST_MAX], k = 0;
    char full[96];
    snprintf(full, sizeof full, "search_config.train_settings.%s", key);
    const node *at = node_get_path(c->root, full);
    const char *file = node_origin_file(at);
    int line = node_origin_line(at);
    for (int i = 0; i < n && k < SEARCH_LIST_MAX; i++) {
        int found = -1;
        for (const knob_name *x = names; x->name; x++)
            if (!strcasecmp(items[i], x->name)) found = x->value;
        if (found >= 0) { v[k++] = found; continue; }
        for (size_t j = 0; j < sizeof NOT_IN_RELEASE / sizeof *NOT_IN_RELEASE; j++)
            if (!strcmp(key, NOT_IN_RELEASE[j].key) && !strcasecmp(items[i], NOT_IN_RELEASE[j].value))
                return ac_err_at(e, AC_E_INPUT, file, line, 0, full, "'%s' is not searched: %s", items[i], NOT_IN_RELEASE[j].why);
        char known[160] = "";
        for (const knob_name *x = names; x->name; x++) {
            size_t l = strlen(known);
            snprintf(known + l, sizeof known - l, "%s%s", l ? ", " : "", x->name);
        }
        return ac_err_at(e, AC_E_INPUT, file, line, 0, full, "unknown value '%s' (auto or a list of: %s)", items[i], known);
    }
    *out = search_list_of(v, k);
    return 0;
}

static bool cfg_bool(const node *cfg, const char *path)
{
    bool v = false;
    const node *n = node_get_path(cfg, path);
    return n && node_get_bool(n, &v) && v;
}

static search_int_list list_from_tri(cfg_tri t)
{
    return t == TRI_AUTO ? search_list_auto() : list_of_one(t == TRI_TRUE ? 1 : 0);
}

/* an explicit list offering only sizes > 1 of a dimension the training stack does not run is an
 * error at its key; a list that offers 1 too (a preset's context_parallel_sizes [1, 2]) searches 1,
 * as auto lists do (the grid's stack rule drops the rest) */
static int stack_runs_lists(const ac_config *c, const est_stack *st, const search_inputs *in, ac_err *e)
{
    const struct { const search_int_list *l; unsigned bit; const char *key; } d[] = {
        {&in->tp, EST_PAR_TP, "tensor_parallel_sizes"},
        {&in->pp, EST_PAR_PP, "pipeline_parallel_sizes"},
        {&in->cp, EST_PAR_CP, "context_parallel_sizes"},
        {&in->ep, EST_PAR_EP, "expert_parallel_sizes"}};
    for (size_t i = 0; i < sizeof d / sizeof *d; i++) {
        if (d[i].l->is_auto || est_stack_runs(st, d[i].bit) || search_list_contains(d[i].l, 1)) continue;
        char full[96];
        snprintf(full, sizeof full, "search_config.train_settings.%s", d[i].key);
        const node *at = node_get_path(c->root, full);
        return ac_err_at(e, AC_E_INPUT, node_origin_file(at), node_origin_line(at), 0, full,
                         "the training stack %s runs no %s parallelism (data/stacks.csv parallelism): the list needs 1, or auto",
                         st->name, est_par_name(d[i].bit));
    }
    /* an interleaved pipeline or sequence parallelism asked of a stack without them */
    bool vp_asked = false;
    for (int j = 0; !in->vp.is_auto && j < in->vp.n; j++) vp_asked |= in->vp.v[j] > 1;
    bool sp_asked = !in->sequence_parallel.is_auto && search_list_contains(&in->sequence_parallel, 1);
    bool vp_refused = vp_asked && !st->interleaved_pipeline, sp_refused = sp_asked && !st->sequence_parallel;
    if (vp_refused || sp_refused) {
        const char *key = vp_refused ? "search_config.train_settings.virtual_pipeline_sizes" : "search_config.train_settings.sequence_parallel";
        const node *at = node_get_path(c->root, key);
        return ac_err_at(e, AC_E_INPUT, node_origin_file(at), node_origin_line(at), 0, key,
                         "the training stack %s has no %s (data/stacks.csv); use auto", st->name,
                         vp_refused ? "interleaved pipeline schedule" : "sequence parallelism");
    }
    /* a smallest model-parallel product above 1 on a stack that runs none */
    if (!in->min_mp.is_auto && in->min_mp.value > 1 && !st->parallel_dims) {
        const node *at = node_get_path(c->root, "search_config.train_settings.min_model_parallel_size");
        return ac_err_at(e, AC_E_INPUT, node_origin_file(at), node_origin_line(at), 0,
                         "search_config.train_settings.min_model_parallel_size",
                         "%d: the training stack %s is data-parallel only (data/stacks.csv parallelism); use 1 or auto",
                         in->min_mp.value, st->name);
    }
    return 0;
}

int search_train_inputs(const ac_config *c, const model_base_config *b, search_inputs *in, search_act_method *method,
                        ac_err *e)
{
    int f = search_family_of(c->family);
    if (f < 0) return ac_err_set(e, AC_E_INPUT, "family '%s' has no training search", c->family);
    search_inputs_init(in);
    in->family = (search_family)f;
    in->size_b = b->size_b;
    in->shape = b->shape;
    in->gpu_mem_gb = c->train.gpu_memory_gb;
    in->num_nodes = c->train.num_nodes;
    in->gpus_per_node = c->train.gpus_per_node;
    in->base_gbs = b->gbs;
    const est_stack *st = candidate_stack(c, e);
    if (!st) return -1;
    in->excluded_dims = EST_PAR_ALL & ~st->parallel_dims;
    in->no_interleave = !st->interleaved_pipeline;
    in->no_sequence_parallel = !st->sequence_parallel;
    /* the base config's own switches are the original's defaults */
    bool t5 = b->shape.arch == ARCH_ENCODER_DECODER;
    const char *m = node_text(node_get_path(b->cfg, t5 ? "model.encoder.activations_checkpoint_method"
                                                       : "model.activations_checkpoint_method"));
    in->act_method = m && !strcmp(m, "block") ? SEARCH_ACT_BLOCK : m && !strcmp(m, "uniform") ? SEARCH_ACT_UNIFORM : SEARCH_ACT_NONE;
    *method = in->act_method;
    bool bv;
    const node *sp = node_get_path(b->cfg, "model.sequence_parallel");
    /* a stack without sequence parallelism runs the base config with it off: not an extension */
    in->base_sequence_parallel = sp && node_get_bool(sp, &bv) && !in->no_sequence_parallel ? bv : false;
    const char *gran = node_text(node_get_path(b->cfg, t5 ? "model.encoder.activations_checkpoint_granularity"
                                                          : "model.activations_checkpoint_granularity"));
    in->base_recompute = gran && !strcmp(gran, "full") ? SEARCH_RC_FULL
                       : gran && !strcmp(gran, "selective") ? SEARCH_RC_SELECTIVE : SEARCH_RC_NONE;
    const char *optim = node_text(node_get_path(b->cfg, "model.optim.name"));
    in->base_distributed_optimizer = optim && strstr(optim, "distributed") != NULL;
    /* overrides */
    const cfg_train_settings *t = &c->train;
    in->tp = list_from_cfg(&t->tensor_parallel_sizes);
    in->pp = list_from_cfg(&t->pipeline_parallel_sizes);
    in->mbs = list_from_cfg(&t->micro_batch_sizes);
    in->act_ckpt_layers = list_from_cfg(&t->act_ckpt_layers);
    in->min_mp.is_auto = t->min_model_parallel_size.is_auto;
    in->min_mp.value = t->min_model_parallel_size.v;
    in->max_mp.is_auto = t->max_model_parallel_size.is_auto;
    in->max_mp.value = t->max_model_parallel_size.v;
    in->cp = list_from_cfg(&t->context_parallel_sizes);
    in->ep = list_from_cfg(&t->expert_parallel_sizes);
    in->vp = list_from_cfg(&t->virtual_pipeline_sizes);
    in->gbs = list_from_cfg(&t->global_batch_sizes);
    in->sequence_parallel = list_from_tri(t->sequence_parallel);
    in->distributed_optimizer = list_from_tri(t->distributed_optimizer);
    if (!strcmp(t->recompute_granularity, "selective")) in->recompute = list_of_one(SEARCH_RC_SELECTIVE);
    else if (!strcmp(t->recompute_granularity, "full")) in->recompute = list_of_one(SEARCH_RC_FULL);
    else in->recompute = search_list_auto();
    /* the knobs experts tune: the base config's values are the defaults */
    in->base_precision = cfg_bool(b->cfg, "model.fp8") ? SEARCH_PREC_FP8 : SEARCH_PREC_BF16;
    const char *gd = node_text(node_get_path(b->cfg, "model.optim.grad_sync_dtype"));
    in->base_grad_bf16 = gd && (!strcasecmp(gd, "bf16") || !strcasecmp(gd, "bfloat16"));
    in->base_fp8_param_gather = cfg_bool(b->cfg, "model.fp8_params");
    in->base_cuda_graphs = cfg_bool(b->cfg, "model.enable_cuda_graph");
    in->base_tp_overlap = cfg_bool(b->cfg, "model.ub_tp_comm_overlap");
    in->offload_layers = list_from_cfg(&t->activation_offload_layers);
    in->recompute_layers = list_from_cfg(&t->recompute_num_layers);
    if (stack_runs_lists(c, st, in, e)) return -1;
    if (knob_list(c, "precisions", t->n_precisions, (char (*)[CFG_KNOB_LEN])t->precisions, PRECISION_NAMES, &in->precision, e) ||
        knob_list(c, "grad_reduce_dtype", t->n_grad_reduce_dtype, (char (*)[CFG_KNOB_LEN])t->grad_reduce_dtype, GRAD_NAMES, &in->grad_bf16, e) ||
        knob_list(c, "fp8_param_gather", t->n_fp8_param_gather, (char (*)[CFG_KNOB_LEN])t->fp8_param_gather, BOOL_NAMES, &in->fp8_param_gather, e) ||
        knob_list(c, "cuda_graphs", t->n_cuda_graphs, (char (*)[CFG_KNOB_LEN])t->cuda_graphs, BOOL_NAMES, &in->cuda_graphs, e) ||
        knob_list(c, "tp_comm_overlap", t->n_tp_comm_overlap, (char (*)[CFG_KNOB_LEN])t->tp_comm_overlap, BOOL_NAMES, &in->tp_overlap, e) ||
        knob_list(c, "pipeline_layouts", t->n_pipeline_layouts, (char (*)[CFG_KNOB_LEN])t->pipeline_layouts, LAYOUT_NAMES, &in->uneven_pp, e))
        return -1;
    return 0;
}

double search_train_score(const ac_config *c, const est_result *r)
{
    if (!strcmp(c->train.rank_by, "cost")) return r->cost_usd > 0 ? -r->cost_usd : -r->step_time;
    return r->tokens_per_s;
}

static const search_train_result *sort_ctx;
static const ac_config *sort_cfg;

static int by_rank(const void *a, const void *b)
{
    const search_scored *x = &sort_ctx->items[*(const size_t *)a], *y = &sort_ctx->items[*(const size_t *)b];
    bool fx = x->est.fits, fy = y->est.fits;
    if (fx != fy) return fx ? -1 : 1;
    double sx = search_train_score(sort_cfg, &x->est), sy = search_train_score(sort_cfg, &y->est);
    if (!fx) { sx = -x->est.mem_total; sy = -y->est.mem_total; } /* closest to fitting first */
    if (sx != sy) return sx > sy ? -1 : 1;
    /* ties: the original's launch order */
    size_t ix = *(const size_t *)a, iy = *(const size_t *)b;
    return ix < iy ? -1 : ix > iy;
}

/* one kept candidate of the exhaustive walk: its score, its visit number (ties: the
 * earlier visit ranks first, as the grid order does) and its slot in the pool */
typedef struct {
    double score;
    size_t seq, slot;
} top_key;

typedef struct {
    const ac_config *c;
    search_train_result *r;
    est_input in;
    double best_score;
    /* exhaustive mode: the top `cap` fitting candidates by score, kept in a min-heap
     * of keys (the worst kept on top) over a pool of cap slots: O(log cap) a visit */
    search_scored *top;
    top_key *heap;
    size_t n_top, cap, n_seen;
    size_t n_fit, n_oom;
} exh_ctx;

/* a ranks below b: lower score, or the same score visited later */
static bool key_worse(const top_key *a, const top_key *b)
{
    return a->score < b->score || (a->score == b->score && a->seq > b->seq);
}

static void heap_swap(top_key *h, size_t i, size_t j) { top_key t = h[i]; h[i] = h[j]; h[j] = t; }

static void heap_up(top_key *h, size_t i)
{
    while (i > 0 && key_worse(&h[i], &h[(i - 1) / 2])) { heap_swap(h, i, (i - 1) / 2); i = (i - 1) / 2; }
}

static void heap_down(top_key *h, size_t n, size_t i)
{
    for (;;) {
        size_t w = i, l = 2 * i + 1, r = l + 1;
        if (l < n && key_worse(&h[l], &h[w])) w = l;
        if (r < n && key_worse(&h[r], &h[w])) w = r;
        if (w == i) return;
        heap_swap(h, i, w);
        i = w;
    }
}

static void keep_top(exh_ctx *x, const search_candidate *k, const est_result *res)
{
    top_key key = { search_train_score(x->c, res), x->n_seen++, 0 };
    if (x->n_top == x->cap) {
        if (!key_worse(&x->heap[0], &key)) return; /* no better than the worst kept */
        key.slot = x->heap[0].slot;
        x->heap[0] = key;
        heap_down(x->heap, x->n_top, 0);
    } else {
        key.slot = x->n_top;
        x->heap[x->n_top] = key;
        heap_up(x->heap, x->n_top++);
    }
    search_scored *t = &x->top[key.slot];
    memset(t, 0, sizeof *t);
    t->cand = *k;
    t->est = *res;
}

static int by_key_best_first(const void *a, const void *b)
{
    const top_key *x = a, *y = b;
    return key_worse(y, x) ? -1 : key_worse(x, y) ? 1 : 0;
}

/* the kept candidates best first, as an array the caller owns; NULL when out of memory */
static search_scored *top_sorted(exh_ctx *x)
{
    search_scored *out = calloc(x->n_top ? x->n_top : 1, sizeof *out);
    if (!out) return NULL;
    qsort(x->heap, x->n_top, sizeof *x->heap, by_key_best_first);
    for (size_t i = 0; i < x->n_top; i++) out[i] = x->top[x->heap[i].slot];
    return out;
}

static int exhaustive_visit(const search_candidate *k, void *user)
{
    exh_ctx *x = user;
    est_result res;
    candidate_est_apply(&x->in, k, x->r->act_method);
    if (est_evaluate(&x->in, &res)) return 0;
    if (!res.fits) { x->n_oom++; return 0; }
    x->n_fit++;
    if (x->top && !search_pick_is_twin(x->r, &x->in, k, &res)) keep_top(x, k, &res); /* one line per run */
    search_pick_walk_add(&x->r->walk, k, &res);
    double s = search_train_score(x->c, &res);
    if (!x->r->exhaustive_found || s > x->best_score) {
        x->r->exhaustive_found = true;
        x->r->exhaustive_best = *k;
        x->r->exhaustive_best_est = res;
        x->best_score = s;
    }
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int search_train_run(const ac_config *c, const model_base_config *b, search_train_result *r, ac_err *e)
{
    memset(r, 0, sizeof *r);
    double t0 = now_s();
    snprintf(r->name_family, sizeof r->name_family, "%s", b->name_prefix[0] ? b->name_prefix : c->family);
    snprintf(r->size_text, sizeof r->size_text, "%s", b->name_prefix[0] ? "" : b->size_text);
    if (search_train_inputs(c, b, &r->inputs, &r->act_method, e)) return -1;
    if (search_gbs_nearest(&r->inputs, &r->gbs, e)) return -1;
    if (r->gbs.adjusted) r->inputs.gbs = list_of_one(r->gbs.to);
    if (candidate_est_base(c, b, &r->base, e) || candidate_remat_check(c, &r->base, NULL, e)) return -1;
    if (search_list_contains(&r->inputs.precision, SEARCH_PREC_FP8) && !(r->base.gpu->fp8_tflops > 0))
        return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "search_config.train_settings.precisions",
                         "fp8 needs a GPU with FP8 tensor cores (H100, H200, B200, ...); %s has none", r->base.gpu->name);
    if (candidate_cal_load(c, &r->cal, &r->cal_loaded, e)) return -1;
    r->base.cal = &r->cal;
    if (search_grid_build(&r->inputs, &r->grid, e)) return -1;
    r->n = r->grid.n;
    r->items = calloc(r->n ? r->n : 1, sizeof *r->items);
    r->order = calloc(r->n ? r->n : 1, sizeof *r->order);
    if (!r->items || !r->order) { search_train_free(r); return ac_err_set(e, AC_E_NOMEM, "out of memory"); }
    est_input in = r->base;
    const char *size_text = r->size_text, *name_family = r->name_family;
    for (size_t i = 0; i < r->n; i++) {
        search_scored *s = &r->items[i];
        s->cand = r->grid.items[i];
        search_candidate_name(&s->cand, name_family, size_text, c->train.num_nodes, s->name, sizeof s->name);
        candidate_est_apply(&in, &s->cand, r->act_method);
        if (est_evaluate(&in, &s->est)) {
            /* the grid's rules passed but the estimator's stricter ones did not */
            s->failed = true;
            snprintf(s->reason, sizeof s->reason, "invalid: %s", s->est.why);
            s->est.fits = false;
            s->est.mem_total = INFINITY;
            continue;
        }
        s->step_time_s = s->est.step_time;
        if (!s->est.fits) {
            s->failed = true;
            snprintf(s->reason, sizeof s->reason, "predicted out of memory: %.1f GiB needed > %.1f GiB usable (%.0f%% of %s)",
                     s->est.mem_total / EST_GIB, s->est.mem_limit / EST_GIB, 100.0 * (r->base.cal ? r->base.cal->memory_limit_frac : 0.98),
                     r->base.gpu->name);
            r->n_oom++;
        } else {
            r->n_fit++;
        }
    }
    for (size_t i = 0; i < r->n; i++) r->order[i] = i;
    sort_ctx = r;
    sort_cfg = c;
    qsort(r->order, r->n, sizeof *r->order, by_rank);
    sort_ctx = NULL;
    /* the wider space: every divisor and knob, scored without allocation */
    bool exhaustive_mode = !strcmp(c->train.search_mode, "exhaustive");
    size_t cap = c->train.limit_search_runs > 0 ? (size_t)c->train.limit_search_runs : 100;
    exh_ctx x = { .c = c, .r = r, .in = r->base, .cap = cap };
    search_pick_walk_init(&r->walk, c, r);
    if (exhaustive_mode && (!(x.top = malloc(cap * sizeof *x.top)) || !(x.heap = malloc(cap * sizeof *x.heap)))) {
        free(x.top);
        free(x.heap);
        search_train_free(r);
        return ac_err_set(e, AC_E_NOMEM, "out of memory");
    }
    search_exhaustive_opts opts = {0};
    ac_err exh_err;
    if (search_exhaustive(&r->inputs, &opts, exhaustive_visit, &x, &r->exhaustive_count, &exh_err) == 0) {
        r->exhaustive_done = true;
        if (r->exhaustive_found)
            search_candidate_name(&r->exhaustive_best, name_family, size_text, c->train.num_nodes, r->exhaustive_best_name,
                                  sizeof r->exhaustive_best_name);
    }
    if (exhaustive_mode) {
        /* the launched set is the extended space's top candidates */
        search_scored *best_first = r->exhaustive_done && x.n_top ? top_sorted(&x) : NULL;
        bool none = !r->exhaustive_done || x.n_top == 0;
        free(x.top);
        free(x.heap);
        if (none) {
            search_train_free(r);
            return ac_err_set(e, AC_E_INPUT, "exhaustive search: no candidate of the extended space fits in GPU memory (%zu predicted out of memory)", x.n_oom);
        }
        if (!best_first) { search_train_free(r); return ac_err_set(e, AC_E_NOMEM, "out of memory"); }
        free(r->items);
        free(r->order);
        r->items = best_first;
        r->n = x.n_top;
        r->order = calloc(r->n, sizeof *r->order);
        if (!r->order) { search_train_free(r); return ac_err_set(e, AC_E_NOMEM, "out of memory"); }
        for (size_t i = 0; i < r->n; i++) {
            search_scored *sc = &r->items[i];
            r->order[i] = i;
            search_candidate_name(&sc->cand, name_family, size_text, c->train.num_nodes, sc->name, sizeof sc->name);
            sc->step_time_s = sc->est.step_time;
        }
        r->n_fit = x.n_fit;
        r->n_oom = x.n_oom;
    }
    if (r->n_fit == 0) {
        const search_scored *closest = r->n ? &r->items[r->order[0]] : NULL;
        if (closest && isfinite(closest->est.mem_total) && r->exhaustive_found)
            ac_err_set(e, AC_E_INPUT,
                       "none of the %zu candidates of the heuristic grid fits in GPU memory (the smallest needs %.1f GiB per "
                       "GPU, %.1f GiB usable on %s), but the extended space has layouts that fit, the best being %s "
                       "(%.1f GiB): run with search_config.train_settings.search_mode=exhaustive",
                       r->n, closest->est.mem_total / EST_GIB, closest->est.mem_limit / EST_GIB, r->base.gpu->name,
                       r->exhaustive_best_name, r->exhaustive_best_est.mem_total / EST_GIB);
        else if (closest && isfinite(closest->est.mem_total))
            ac_err_set(e, AC_E_INPUT,
                       "no candidate fits in GPU memory: the smallest needs %.1f GiB per GPU (%s) but %.1f GiB are usable "
                       "on %s; use more nodes, a GPU with more memory, or allow larger TP/PP",
                       closest->est.mem_total / EST_GIB, closest->name, closest->est.mem_limit / EST_GIB, r->base.gpu->name);
        else
            ac_err_set(e, AC_E_INPUT, "no candidate is valid for the estimator: %s", closest ? closest->reason : "empty grid");
        search_train_free(r);
        return -1;
    }
    size_t limit = c->train.limit_search_runs > 0 ? (size_t)c->train.limit_search_runs : r->n_fit;
    size_t ranked = exhaustive_mode ? r->n : r->n_fit;
    r->n_launch = 0;
    for (size_t k = 0; k < ranked; k++) {
        search_scored *s = &r->items[r->order[k]];
        s->rank = (int)k + 1;
        if (k < limit) { s->launched = true; r->n_launch++; }
    }
    /* on a real cluster a memory prediction is not a verdict: what may fit is measured (the
     * original measured every candidate of its grid) */
    bool real = cfg_runs_real_jobs(c);
    bool all = !strcmp(c->train.launch_over_memory, "all");
    if (real && strcmp(c->train.launch_over_memory, "never")) {
        for (size_t k = ranked; k < r->n; k++) {
            search_scored *s = &r->items[r->order[k]];
            if (s->est.fits || !isfinite(s->est.mem_total) || !strncmp(s->reason, "invalid", 7)) continue;
            double over = s->est.mem_total / s->est.mem_limit - 1.0;
            if (!all && over > search_memory_band_rel(&s->est)) continue;
            s->launched = true;
            s->borderline = true;
            r->n_launch++;
            r->n_borderline++;
        }
    }
    if (r->exhaustive_found)
        r->exhaustive_gain = r->exhaustive_best_est.tokens_per_s / r->items[r->order[0]].est.tokens_per_s - 1.0;
    if (search_pick_predicted(c, r, &r->walk, e)) { search_train_free(r); return -1; }
    search_pick_walk_free(&r->walk);
    r->elapsed_s = now_s() - t0;
    return 0;
}

void search_train_counts(const ac_config *c, const search_train_result *r, search_counts *out)
{
    memset(out, 0, sizeof *out);
    bool exhaustive = !strcmp(c->train.search_mode, "exhaustive");
    bool real = cfg_runs_real_jobs(c);
    /* exhaustive mode keeps only its top candidates: the scored count is the whole walk's */
    out->candidates = exhaustive && r->exhaustive_done ? (size_t)r->exhaustive_count : r->n;
    out->predicted_fit = r->n_fit;
    out->predicted_oom = r->n_oom;
    out->valid = r->n_fit + r->n_oom;
    out->ranked = r->n_launch;
    out->launched = real ? r->n_launch : 0;
    for (size_t i = 0; real && i < r->n; i++) {
        const search_scored *s = &r->items[i];
        if (!s->launched || s->source != RUN_MEASURED) continue;
        if (s->failed) out->failed++;
        else out->measured++;
    }
}

bool search_layout_splits(const search_candidate *k, long long gpus, long long *dp_out)
{
    long long mp = (long long)k->tp * k->pp * (k->cp > 0 ? k->cp : 1);
    if (gpus < 1 || mp < 1 || gpus % mp || k->mbs < 1) return false;
    long long dp = gpus / mp;
    int ep = k->ep > 0 ? k->ep : 1;
    if (k->gbs % ((long long)k->mbs * dp) || (dp * (k->cp > 0 ? k->cp : 1)) % ep) return false;
    if (dp_out) *dp_out = dp;
    return true;
}

int search_run_nodes(const ac_config *c, const search_candidate *k, int *nodes, ac_err *e)
{
    const char *v = c->train.search_num_nodes;
    *nodes = c->train.num_nodes;
    if (!v[0]) return 0;
    int from = 1;
    if (strcmp(v, "auto")) {
        char *end;
        long n = strtol(v, &end, 10);
        if (*end || n < 1 || n > c->train.num_nodes)
            return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "search_config.train_settings.search_num_nodes",
                             "expected null, auto or a node count from 1 to num_nodes (%d), got '%s'", c->train.num_nodes, v);
        from = (int)n;
    }
    /* the fewest nodes from `from` up that hold a replica and split the batch; else num_nodes */
    for (int n = from; n < c->train.num_nodes; n++)
        if (search_layout_splits(k, (long long)n * c->train.gpus_per_node, NULL)) { *nodes = n; return 0; }
    return 0;
}

int search_step_time_at(const search_train_result *r, const search_candidate *k, int nodes, int gpus_per_node,
                        double *step_s, ac_err *e)
{
    est_input in = r->base;
    candidate_est_apply(&in, k, r->act_method);
    in.num_gpus = nodes * gpus_per_node;
    in.dp = 0; /* derived from the GPUs: the data-parallel size of the smaller run */
    est_result res;
    if (est_evaluate(&in, &res) < 0)
        return ac_err_set(e, AC_E_INPUT, "the estimator rejects the search run on %d nodes: %s", nodes, res.why);
    *step_s = res.step_time;
    return 0;
}

double search_memory_band_rel(const est_result *r)
{
    return r && r->band_mem_rel > 0 ? r->band_mem_rel : 0.05;
}

void search_train_free(search_train_result *r)
{
    search_grid_free(&r->grid);
    search_pick_walk_free(&r->walk);
    free(r->items);
    free(r->order);
    r->items = NULL;
    r->order = NULL;
    r->n = 0;
}
