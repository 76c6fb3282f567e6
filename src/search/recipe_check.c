/* recipe_check.c — see recipe_check.h */
#include "search/recipe_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search/candidate_est.h"
#include "search/train_search.h"
#include "util/csv.h"

/* recipe model/size → preset */
static const struct { const char *model, *size, *preset; } PRESET_OF[] = {
    {"gpt3", "175b", "gpt3/175b"},
    {"llama3", "8b", "llama/llama3_8b"},
    {"llama3", "70b", "llama/llama3_70b"},
    {"llama31", "405b", "llama/llama3_1_405b"},
    {"mixtral", "8x7b", "mixtral/mixtral_8x7b"},
    {"mixtral", "8x22b", "mixtral/mixtral_8x22b"},
};

const char *search_recipe_preset(const search_recipe *r)
{
    for (size_t i = 0; i < sizeof PRESET_OF / sizeof *PRESET_OF; i++)
        if (!strcmp(r->model, PRESET_OF[i].model) && !strcmp(r->size, PRESET_OF[i].size)) return PRESET_OF[i].preset;
    return NULL;
}

const char *search_recipe_gpu(const search_recipe *r) { return r->system; }

void search_recipe_label(const search_recipe *r, char *buf, size_t len)
{
    snprintf(buf, len, "%s %s %s %s %d GPUs", r->model, r->size, r->system, r->dtype, r->num_gpus);
}

static int cell_int(const csv_table *t, const csv_row *row, const char *col)
{
    const char *v = csv_get(row, csv_col(t, col));
    return v && *v ? (int)lround(atof(v)) : 0;
}

static void cell_text(const csv_table *t, const csv_row *row, const char *col, char *out, size_t n)
{
    const char *v = csv_get(row, csv_col(t, col));
    snprintf(out, n, "%s", v ? v : "");
}

int search_recipes_load(const char *path, search_recipe **rows, size_t *n, ac_err *e)
{
    csv_table t;
    *rows = NULL;
    *n = 0;
    if (csv_read_file(path, &t, e)) return -1;
    static const char *const cols[] = {"task", "model", "size", "system", "dtype", "num_gpus", "seq_len", "tp_size",
                                       "pp_size", "cp_size", "ep_size", "vp_size", "mbs", "gbs"};
    if (csv_require_cols(&t, cols, sizeof cols / sizeof *cols, AC_E_INPUT, "a NeMo performance recipes table", e)) {
        csv_free(&t);
        return -1;
    }
    search_recipe *out = calloc(t.n ? t.n : 1, sizeof *out);
    if (!out) { csv_free(&t); return ac_err_set(e, AC_E_NOMEM, "out of memory"); }
    size_t k = 0;
    for (size_t i = 0; i < t.n; i++) {
        const csv_row *row = &t.rows[i];
        const char *task = csv_get(row, csv_col(&t, "task"));
        if (!task || strcmp(task, "pre_train")) continue;
        search_recipe *r = &out[k++];
        cell_text(&t, row, "model", r->model, sizeof r->model);
        cell_text(&t, row, "size", r->size, sizeof r->size);
        cell_text(&t, row, "system", r->system, sizeof r->system);
        cell_text(&t, row, "dtype", r->dtype, sizeof r->dtype);
        cell_text(&t, row, "recompute_modules", r->recompute_modules, sizeof r->recompute_modules);
        r->num_gpus = cell_int(&t, row, "num_gpus");
        r->seq = cell_int(&t, row, "seq_len");
        r->tp = cell_int(&t, row, "tp_size");
        r->pp = cell_int(&t, row, "pp_size");
        r->cp = cell_int(&t, row, "cp_size");
        r->ep = cell_int(&t, row, "ep_size");
        r->vp = cell_int(&t, row, "vp_size");
        r->mbs = cell_int(&t, row, "mbs");
        r->gbs = cell_int(&t, row, "gbs");
        r->etp = cell_int(&t, row, "etp_size");
        r->cuda_graphs = cell_int(&t, row, "cuda_graphs") != 0;
        r->fsdp = cell_int(&t, row, "use_mcore_fsdp") != 0;
        r->recompute_layers = cell_int(&t, row, "recompute_layers");
        r->offload_layers = cell_int(&t, row, "activation_offload_layers");
        r->line = row->line;
    }
    csv_free(&t);
    *rows = out;
    *n = k;
    return 0;
}

int search_recipe_overrides(const search_recipe *r, int gpn, char ov[][160], int cap)
{
    int n = 0;
#define OV(...) do { if (n < cap) snprintf(ov[n++], 160, __VA_ARGS__); } while (0)
    const char *preset = search_recipe_preset(r);
    OV("search_config=%s", preset ? preset : "gpt3/5b");
    OV("search_config.train_settings.gpu=%s", r->system);
    OV("search_config.train_settings.gpus_per_node=%d", gpn);
    OV("search_config.train_settings.num_nodes=%d", gpn > 0 ? r->num_gpus / gpn : r->num_gpus);
    OV("search_config.train_settings.seq_length=%d", r->seq);
    OV("search_config.train_settings.global_batch_sizes=[%d]", r->gbs);
    OV("search_config.train_settings.search_mode=exhaustive");
    OV("search_config.train_settings.precisions=[%s]", r->dtype);
    /* NeMo's performance recipes reduce gradients in bf16 and overlap TP communication */
    OV("search_config.train_settings.grad_reduce_dtype=[bf16]");
    OV("search_config.train_settings.tp_comm_overlap=[false,true]");
    OV("search_config.train_settings.fp8_param_gather=[false,true]");
    OV("search_config.train_settings.cuda_graphs=[%s]", r->cuda_graphs ? "true" : "false");
    OV("search_config.train_settings.pipeline_layouts=[even,first_last]");
    OV("run_inference_hp_search=False");
#undef OV
    return n;
}

typedef struct {
    const search_train_result *r; /* for the act method only */
    search_act_method act_method;
    est_input in;
    int tp, pp, cp, ep, vp, mbs, gbs, precision;
    bool cuda_graphs;
    search_recipe_match *m;
} find_ctx;

static int find_visit(const search_candidate *k, void *user)
{
    find_ctx *x = user;
    if (k->tp != x->tp || k->pp != x->pp || k->cp != x->cp || k->ep != x->ep || k->vp != x->vp || k->mbs != x->mbs ||
        k->gbs != x->gbs || k->precision != x->precision || k->cuda_graphs != x->cuda_graphs)
        return 0;
    /* the recipe's conventions: SP and TP overlap with TP, distributed optimizer, bf16 gradients, no recompute */
    if (k->tp > 1 && (!k->sequence_parallel || !k->tp_overlap)) return 0;
    if (k->dp > 1 && !k->distributed_optimizer) return 0;
    if (!k->grad_bf16 || k->recompute != SEARCH_RC_NONE || k->act_ckpt_layers > 0 || k->offload_layers > 0) return 0;
    est_result res;
    candidate_est_apply(&x->in, k, x->act_method);
    if (est_evaluate(&x->in, &res)) return 0;
    search_recipe_match *m = x->m;
    bool better = !m->found || (res.fits && !m->fits) || (res.fits == m->fits && res.tokens_per_s > m->est.tokens_per_s);
    if (better) {
        m->found = true;
        m->fits = res.fits;
        m->cand = *k;
        m->est = res;
    }
    return 0;
}

int search_recipe_find(const ac_config *c, const model_base_config *b, const search_recipe *r, search_recipe_match *m,
                       ac_err *e)
{
    memset(m, 0, sizeof *m);
    if (r->fsdp) {
        snprintf(m->excluded, sizeof m->excluded,
                 "Megatron FSDP (use_mcore_fsdp) is not in NeMo v2.0.0 / Megatron-Core 0.9%s",
                 r->recompute_layers || r->offload_layers ? " (nor are its recompute/offload settings checked)" : "");
        return 0;
    }
    search_inputs in;
    find_ctx x;
    memset(&x, 0, sizeof x);
    if (search_train_inputs(c, b, &in, &x.act_method, e)) return -1;
    est_cal cal;
    bool loaded;
    if (candidate_est_base(c, b, &x.in, e) || candidate_remat_check(c, &x.in, NULL, e) || candidate_cal_load(c, &cal, &loaded, e))
        return -1;
    x.in.cal = &cal;
    x.tp = r->tp; x.pp = r->pp; x.cp = r->cp; x.ep = r->ep;
    x.vp = r->vp > 1 ? r->vp : 0; /* VP 1 is no interleaving */
    x.mbs = r->mbs; x.gbs = r->gbs;
    x.precision = strcmp(r->dtype, "fp8") ? SEARCH_PREC_BF16 : SEARCH_PREC_FP8;
    x.cuda_graphs = r->cuda_graphs;
    x.m = m;
    int L = b->shape.num_layers;
    if (x.pp > 1 && L % x.pp && x.vp > 0) {
        /* PP·VP chunks of a layer count PP does not divide: Megatron-Core 0.9 runs first/last stage
         * counts only without VP */
        snprintf(m->departure, sizeof m->departure,
                 "VP %d dropped: %d layers on PP %d need account_for_embedding/loss_in_pipeline_split (later Megatron-Core); "
                 "checked with first/last stage counts, no VP", x.vp, L, x.pp);
        x.vp = 0;
    }
    if (r->etp > 0 && r->etp != r->tp && shape_is_moe(&b->shape)) {
        size_t l = strlen(m->departure);
        snprintf(m->departure + l, sizeof m->departure - l, "%sexpert TP %d not in Megatron-Core 0.9: experts run at TP %d",
                 l ? "; " : "", r->etp, r->tp);
    }
    long count = 0;
    return search_exhaustive(&in, NULL, find_visit, &x, &count, e);
}
