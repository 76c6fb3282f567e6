/* grid.c — candidate enumeration (§4.2–4.5) with the original's bugs fixed.
 * Fixes are marked "FIX(quirk n)"; docs/original-bugs.md explains each. */
#include "search/grid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "estimator/stack.h"

#define MAX_GRID_CANDIDATES 20000000L

static const char *const RULE_NAMES[SEARCH_RULE_COUNT] = {
    "heads", "layers", "model_parallel_size", "gpus", "gbs", "cp_ep", "cp_seq", "ep", "vp", "stack",
};

const char *search_rule_name(search_rule r)
{
    return (unsigned)r < SEARCH_RULE_COUNT ? RULE_NAMES[r] : "?";
}

void search_inputs_init(search_inputs *in)
{
    memset(in, 0, sizeof *in);
    in->family = SEARCH_GPT3;
    in->gpu_mem_gb = 80;
    in->num_nodes = 1;
    in->gpus_per_node = 8;
    in->act_method = SEARCH_ACT_NONE;
    in->base_sequence_parallel = true;
    in->base_recompute = SEARCH_RC_NONE;
    in->base_distributed_optimizer = true;
    in->tp = in->pp = in->mbs = search_list_auto();
    in->act_ckpt_layers = in->cp = in->ep = in->vp = in->gbs = search_list_auto();
    in->sequence_parallel = in->recompute = in->distributed_optimizer = search_list_auto();
    in->precision = in->grad_bf16 = in->fp8_param_gather = in->cuda_graphs = in->tp_overlap = search_list_auto();
    in->offload_layers = in->uneven_pp = in->recompute_layers = search_list_auto();
    in->min_mp.is_auto = in->max_mp.is_auto = true;
}

/* ---- resolved context ------------------------------------------------------ */

typedef struct {
    const search_inputs *in;
    search_family f;
    int mult, L, heads, groups, seq, experts;
    long long n_gpu;
    search_lists lists;          /* as resolved (exposed) */
    search_int_list tp, pp, mbs; /* deduplicated copies used for iteration */
    search_int_list cp, ep, gbs;
    bool vp_auto;
    search_int_list vp;
    bool sp_auto, do_auto;
    search_int_list sp, rc, dopt;
    /* knobs experts tune, resolved (auto = the base value) */
    search_int_list prec, grad, fp8pg, graphs, tpo, offl, rcl;
    bool uneven; /* PP may leave a remainder of layers (first/last stage counts) */
} ctx;

/* Keep the first occurrence of each value (the original would write the same
 * file twice for a repeated value). */
static void dedupe(search_int_list *l)
{
    int n = 0;
    for (int i = 0; i < l->n; i++) {
        int seen = 0;
        for (int j = 0; j < n; j++) seen |= l->v[j] == l->v[i];
        if (!seen) l->v[n++] = l->v[i];
    }
    l->n = n;
}

static int dedupe_ints(int *v, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < k; j++) seen |= v[j] == v[i];
        if (!seen) v[k++] = v[i];
    }
    return k;
}

static int check_ext_list(const search_int_list *l, const char *key, int lo, int hi, ac_err *e)
{
    if (l->is_auto) return 0;
    if (l->n <= 0) return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, key, "the list is empty");
    for (int i = 0; i < l->n; i++)
        if (l->v[i] < lo || l->v[i] > hi)
            return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, key, "value %d is out of range [%d, %d]",
                             l->v[i], lo, hi);
    return 0;
}

static void one(search_int_list *l, int v)
{
    memset(l, 0, sizeof *l);
    l->v[l->n++] = v;
}

static int resolve(const search_inputs *in, ctx *c, ac_err *e)
{
    memset(c, 0, sizeof *c);
    c->in = in;
    c->f = in->family;
    if ((unsigned)in->family >= SEARCH_FAMILY_COUNT)
        return ac_err_set(e, AC_E_INPUT, "unknown model family %d", (int)in->family);
    c->mult = search_layer_multiplier(in->family);
    c->L = in->shape.num_layers;
    c->heads = in->shape.heads;
    c->groups = shape_query_groups(&in->shape);
    c->seq = in->shape.seq_length;
    c->experts = shape_is_moe(&in->shape) ? in->shape.num_experts : 1;
    if (c->L < 1 || c->L > 512)
        return ac_err_set(e, AC_E_INPUT, "num_layers must be in [1, 512], got %d", c->L);
    if (c->heads < 1) return ac_err_set(e, AC_E_INPUT, "num_attention_heads must be ≥ 1, got %d", c->heads);
    if (c->seq < 1) return ac_err_set(e, AC_E_INPUT, "seq_length must be ≥ 1, got %d", c->seq);
    if (in->num_nodes < 1)
        return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "train_settings.num_nodes", "must be ≥ 1, got %d",
                         in->num_nodes);
    if (in->gpus_per_node < 1)
        return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "train_settings.gpus_per_node",
                         "must be ≥ 1, got %d", in->gpus_per_node);
    if (in->base_gbs < 1) return ac_err_set(e, AC_E_INPUT, "global_batch_size must be ≥ 1, got %d", in->base_gbs);
    /* FIX(quirk 4): GPUs = train_settings.num_nodes × gpus_per_node, not the template's devices. */
    c->n_gpu = (long long)in->num_nodes * in->gpus_per_node;

    if (search_heuristic_lists(in->family, in->size_b, c->seq, in->gpu_mem_gb, c->L, &c->lists, e)) return -1;
    if (search_apply_overrides(&c->lists, &in->tp, &in->pp, &in->mbs, &in->min_mp, &in->max_mp, e)) return -1;
    /* a stack without tensor or pipeline parallelism searches size 1 of it, and the heuristic's
     * model-parallel bounds (Megatron's sizes for the model) do not bind it */
    bool no_tp = in->excluded_dims & EST_PAR_TP, no_pp = in->excluded_dims & EST_PAR_PP;
    if (no_tp && in->tp.is_auto) one(&c->lists.tp, 1);
    if (no_pp && in->pp.is_auto) one(&c->lists.pp, 1);
    if ((no_tp || no_pp) && in->min_mp.is_auto) c->lists.min_mp = 1;
    c->tp = c->lists.tp;
    c->pp = c->lists.pp;
    c->mbs = c->lists.mbs;
    dedupe(&c->tp);
    dedupe(&c->pp);
    dedupe(&c->mbs);

    if (check_ext_list(&in->cp, "context_parallel_sizes", 1, 1 << 20, e) ||
        check_ext_list(&in->ep, "expert_parallel_sizes", 1, 1 << 20, e) ||
        check_ext_list(&in->vp, "virtual_pipeline_sizes", 0, 1 << 20, e) ||
        check_ext_list(&in->gbs, "global_batch_sizes", 1, 1 << 30, e) ||
        check_ext_list(&in->act_ckpt_layers, "act_ckpt_layers", 0, 1 << 20, e) ||
        check_ext_list(&in->sequence_parallel, "sequence_parallel", 0, 1, e) ||
        check_ext_list(&in->recompute, "recompute_granularity", 0, 2, e) ||
        check_ext_list(&in->distributed_optimizer, "distributed_optimizer", 0, 1, e))
        return -1;

    if (in->cp.is_auto) search_auto_cp(in->family, c->seq, &c->cp);
    else c->cp = in->cp;
    if (in->ep.is_auto) search_auto_ep(in->shape.num_experts, in->gpus_per_node, &c->ep);
    else c->ep = in->ep;
    if (in->gbs.is_auto) one(&c->gbs, in->base_gbs);
    else c->gbs = in->gbs;
    c->vp_auto = in->vp.is_auto;
    c->vp = in->vp;
    for (int i = 0; i < c->vp.n; i++)
        if (c->vp.v[i] == 1) c->vp.v[i] = 0; /* VP 1 is no interleaving: one candidate, not two */
    c->sp_auto = in->sequence_parallel.is_auto;
    c->sp = in->sequence_parallel;
    if (in->recompute.is_auto) one(&c->rc, (int)in->base_recompute);
    else c->rc = in->recompute;
    c->do_auto = in->distributed_optimizer.is_auto;
    c->dopt = in->distributed_optimizer;
    c->cp.is_auto = c->ep.is_auto = c->gbs.is_auto = c->vp.is_auto = false;
    c->sp.is_auto = c->rc.is_auto = c->dopt.is_auto = false;
    dedupe(&c->cp);
    dedupe(&c->ep);
    dedupe(&c->gbs);
    dedupe(&c->vp);
    dedupe(&c->sp);
    dedupe(&c->rc);
    dedupe(&c->dopt);
    if (check_ext_list(&in->precision, "precisions", 0, 4, e) || check_ext_list(&in->grad_bf16, "grad_reduce_dtype", 0, 1, e) ||
        check_ext_list(&in->fp8_param_gather, "fp8_param_gather", 0, 1, e) ||
        check_ext_list(&in->cuda_graphs, "cuda_graphs", 0, 1, e) || check_ext_list(&in->tp_overlap, "tp_comm_overlap", 0, 1, e) ||
        check_ext_list(&in->offload_layers, "activation_offload_layers", 0, 100000, e) ||
        check_ext_list(&in->uneven_pp, "pipeline_layouts", 0, 1, e) ||
        check_ext_list(&in->recompute_layers, "recompute_num_layers", 1, 100000, e))
        return -1;
    struct { const search_int_list *in; search_int_list *out; int base; } knobs[] = {
        {&in->precision, &c->prec, in->base_precision},
        {&in->grad_bf16, &c->grad, in->base_grad_bf16},
        {&in->fp8_param_gather, &c->fp8pg, in->base_fp8_param_gather},
        {&in->cuda_graphs, &c->graphs, in->base_cuda_graphs},
        {&in->tp_overlap, &c->tpo, in->base_tp_overlap},
        {&in->offload_layers, &c->offl, 0},
    };
    c->rcl = in->recompute_layers; /* auto: none (the original's search) */
    if (c->rcl.is_auto) c->rcl.n = 0;
    c->rcl.is_auto = false;
    dedupe(&c->rcl);
    for (size_t i = 0; i < sizeof knobs / sizeof *knobs; i++) {
        if (knobs[i].in->is_auto) one(knobs[i].out, knobs[i].base);
        else *knobs[i].out = *knobs[i].in;
        knobs[i].out->is_auto = false;
        dedupe(knobs[i].out);
    }
    c->uneven = !in->uneven_pp.is_auto && search_list_contains(&in->uneven_pp, 1) && c->mult == 1;
    return 0;
}

bool search_uneven_split(int num_layers, int pp, int *first, int *last)
{
    if (pp < 2 || num_layers < pp) return false;
    int mid = (num_layers + pp - 1) / pp;
    int rest = num_layers - mid * (pp - 2);
    if (rest < 2) return false;
    *first = rest / 2;
    *last = rest - *first;
    return *first >= 1 && *last <= mid;
}

/* PP leaves a remainder of layers that the first/last stage counts absorb */
static bool uneven_pp(const ctx *c, long long pp)
{
    int f, l;
    return c->uneven && ((long long)c->L % pp) != 0 && search_uneven_split(c->L, (int)pp, &f, &l);
}

/* ---- rules ---------------------------------------------------------------- */

/* Rules of one (tp, pp, cp, ep, mbs, gbs) combination; returns the failing
 * rules as a bit mask.  All integer arithmetic.
 * FIX(quirk 3): the original tests GBS % (mbs·N/(tp·pp)) in floating point; we
 * require DP = N/(tp·pp·cp) to be an integer and GBS % (mbs·DP) == 0 exactly. */
static unsigned combo_fails(const ctx *c, long long tp, long long pp, long long cp, long long ep,
                            long long mbs, long long gbs, bool check_mp)
{
    unsigned m = 0;
    if (c->heads % tp || c->groups % tp) m |= 1u << SEARCH_RULE_HEADS;
    if (((long long)c->mult * c->L) % pp && !uneven_pp(c, pp)) m |= 1u << SEARCH_RULE_LAYERS;
    if (check_mp) {
        long long mp = tp * pp * cp * ep; /* FL's model-parallel product */
        if (mp < c->lists.min_mp || mp > c->lists.max_mp) m |= 1u << SEARCH_RULE_MP;
    }
    long long split = tp * pp * cp;
    long long dp = 0;
    if (split > c->n_gpu || c->n_gpu % split) m |= 1u << SEARCH_RULE_GPUS;
    else dp = c->n_gpu / split;
    if (dp > 0 && gbs % (mbs * dp)) m |= 1u << SEARCH_RULE_GBS;
    if (cp > 1 && ep > 1) m |= 1u << SEARCH_RULE_CP_EP;
    if (cp > 1 && (!search_family_is_gpt(c->f) || c->seq % (2 * cp))) m |= 1u << SEARCH_RULE_CP_SEQ;
    if (ep > 1 && (c->experts % ep || (dp > 0 && (dp * cp) % ep))) m |= 1u << SEARCH_RULE_EP;
    unsigned out = c->in->excluded_dims;
    if ((tp > 1 && (out & EST_PAR_TP)) || (pp > 1 && (out & EST_PAR_PP)) || (cp > 1 && (out & EST_PAR_CP)) ||
        (ep > 1 && (out & EST_PAR_EP)))
        m |= 1u << SEARCH_RULE_STACK;
    return m;
}

static bool vp_ok(const ctx *c, int pp, int vp)
{
    if (vp == 0) return true;
    if (c->mult != 1 || pp < 2) return false; /* no interleaving for T5/mT5 or without PP */
    if (c->L % pp) return false;               /* Megatron-Core 0.9: no VP with first/last stage counts */
    int per_stage = c->mult * c->L / pp;
    return per_stage % vp == 0;
}

int search_original_vp(search_family f, int num_layers, int pp)
{
    /* §4.3 (quirk 5, kept): GPT family and BERT with pp > 2 always get VP = L // pp. */
    bool interleaved = search_family_is_gpt(f) || f == SEARCH_BERT;
    return interleaved && pp > 2 ? num_layers / pp : 0;
}

/* ---- §4.3 activation-checkpoint lists --------------------------------------- */

static int range_fill(int *out, int cap, int start, int stop_incl, int step)
{
    int n = 0;
    for (int v = start; v <= stop_incl; v += step) {
        if (n >= cap) return -1;
        out[n++] = v;
    }
    return n;
}

/* act_multiple for block checkpointing by model size (§4.3). */
static const struct {
    double lo;
    int numerator;
} ACT_BLOCK_SIZES[] = {{60.0, 32}, {26.0, 16}, {11.3, 16}, {1.0, 8}};

int search_act_params_for(search_family f, int num_layers, int pp, int vp, double size_b,
                          search_act_method method, search_act_params *out, ac_err *e)
{
    memset(out, 0, sizeof *out);
    if (pp < 1 || num_layers < 1) return ac_err_set(e, AC_E_INPUT, "pp and num_layers must be ≥ 1");
    int mult = search_layer_multiplier(f);
    int act_multiple = 4 / pp;
    if (method == SEARCH_ACT_BLOCK)
        for (size_t i = 0; i < sizeof ACT_BLOCK_SIZES / sizeof ACT_BLOCK_SIZES[0]; i++)
            if (size_b >= ACT_BLOCK_SIZES[i].lo) {
                act_multiple = ACT_BLOCK_SIZES[i].numerator / pp;
                break;
            }
    if (act_multiple < 1) act_multiple = 1;
    int frozen_step = act_multiple; /* the layers-per-pipeline step ignores the VP reset */
    int max_micro = pp, micro_step = 1, max_layers_pp = num_layers;
    if (vp < 0) vp = search_original_vp(f, num_layers, pp);
    out->vp = vp;
    if (vp > 0) {
        act_multiple = 1;
        max_micro = pp * (vp - 1) + (pp - 1) * 2 + 1;
        micro_step = 8 * vp;
        max_layers_pp = mult * num_layers / pp / vp + 1;
    }
    if (method != SEARCH_ACT_BLOCK) return 0; /* all three lists [None] */
    int act_end = vp > 0 ? mult * num_layers / pp / vp : mult * num_layers / pp;
    out->n_act = range_fill(out->act, SEARCH_ACT_MAX, 0, act_end, act_multiple);
    bool gpt_like = search_family_is_gpt(f) || f == SEARCH_BERT;
    if (pp > 1 && gpt_like) {
        out->n_mbs_act = range_fill(out->mbs_act, SEARCH_ACT_MAX, 0, max_micro, micro_step);
        if (out->n_mbs_act > 0 && out->mbs_act[0] == 0) out->mbs_act[0] = 1;
        out->n_per_pipe = range_fill(out->per_pipe, SEARCH_ACT_MAX, 0, max_layers_pp, frozen_step);
    }
    if (out->n_act < 0 || out->n_mbs_act < 0 || out->n_per_pipe < 0)
        return ac_err_set(e, AC_E_INPUT, "activation-checkpoint list longer than %d", SEARCH_ACT_MAX);
    return 0;
}

/* The act lists a candidate loop uses: override applied, T5 values made
 * consistent, repeats dropped.  act_raw keeps the original's value (bucket). */
typedef struct {
    int n_act, act[SEARCH_ACT_MAX], act_raw[SEARCH_ACT_MAX];
    int n_n, n[SEARCH_ACT_MAX];
    int n_a, a[SEARCH_ACT_MAX];
} act_lists;

static void prepare_act(const ctx *c, const search_act_params *ap, act_lists *al)
{
    const search_inputs *in = c->in;
    al->n_act = 0;
    if (ap->n_act > 0) {
        /* A user act_ckpt_layers list replaces the heuristic one, but only when the
         * method is block (ap->n_act > 0 only then), as in the original. */
        const int *src = ap->act;
        int ns = ap->n_act;
        if (!in->act_ckpt_layers.is_auto) {
            src = in->act_ckpt_layers.v;
            ns = in->act_ckpt_layers.n;
        }
        for (int i = 0; i < ns; i++) {
            /* FIX(quirk 7): T5/mT5 write act // 2 to each stack; we name the
             * candidate by what is written (2·(act // 2)) and drop repeats. */
            int written = c->mult == 2 ? 2 * (src[i] / 2) : src[i];
            int seen = 0;
            for (int j = 0; j < al->n_act; j++) seen |= al->act[j] == written;
            if (seen) continue;
            al->act_raw[al->n_act] = src[i];
            al->act[al->n_act++] = written;
        }
    }
    /* The original's [0→1, …] list can repeat 1 ([1, 1, 2]): keep one. */
    memcpy(al->n, ap->mbs_act, sizeof(int) * (size_t)ap->n_mbs_act);
    al->n_n = dedupe_ints(al->n, ap->n_mbs_act);
    memcpy(al->a, ap->per_pipe, sizeof(int) * (size_t)ap->n_per_pipe);
    al->n_a = dedupe_ints(al->a, ap->n_per_pipe);
}

/* ---- inner loops shared by the grid and the exhaustive walk ---------------- */

typedef int (*emit_fn)(const ctx *c, const search_candidate *cand, void *user);

typedef struct {
    int sp[2], nsp, rc[3], nrc, dopt[2], ndo;
} knob_values;

/* SP has no effect at TP = 1 and the distributed optimizer none at DP = 1: there
 * the candidate keeps the base value and only one candidate is generated. */
static void knobs_for(const ctx *c, int tp, int dp, bool exhaustive, knob_values *k)
{
    const search_inputs *in = c->in;
    k->nsp = k->ndo = k->nrc = 0;
    if (in->no_sequence_parallel) {
        k->sp[k->nsp++] = 0;
    } else if (tp <= 1) {
        k->sp[k->nsp++] = in->base_sequence_parallel;
    } else if (exhaustive) {
        k->sp[k->nsp++] = 0;
        k->sp[k->nsp++] = 1;
    } else if (c->sp_auto) { /* auto: the base value, then ours (on when tp > 1) */
        k->sp[k->nsp++] = in->base_sequence_parallel;
        if (!in->base_sequence_parallel) k->sp[k->nsp++] = 1;
    } else {
        for (int i = 0; i < c->sp.n; i++) k->sp[k->nsp++] = c->sp.v[i];
    }
    if (dp <= 1) {
        k->dopt[k->ndo++] = in->base_distributed_optimizer;
    } else if (exhaustive) {
        k->dopt[k->ndo++] = 0;
        k->dopt[k->ndo++] = 1;
    } else if (c->do_auto) { /* auto: the base value, then ours (on when DP > 1) */
        k->dopt[k->ndo++] = in->base_distributed_optimizer;
        if (!in->base_distributed_optimizer) k->dopt[k->ndo++] = 1;
    } else {
        for (int i = 0; i < c->dopt.n; i++) k->dopt[k->ndo++] = c->dopt.v[i];
    }
    if (exhaustive) {
        for (int r = 0; r < 3; r++) k->rc[k->nrc++] = r;
    } else {
        for (int i = 0; i < c->rc.n; i++) k->rc[k->nrc++] = c->rc.v[i];
    }
}

/* Loops the knobs experts tune (precision → gradient type → FP8 gather → CUDA graphs →
 * TP overlap → offload) over one otherwise complete candidate, skipping the combinations
 * Megatron refuses: FP8 gather without FP8 or a sharded optimizer, TP overlap without SP,
 * offload with PP > 1 or recompute. */
static int emit_extras(const ctx *c, search_candidate *p, emit_fn fn, void *user)
{
    const search_inputs *in = c->in;
    unsigned base_mask = p->ext_mask;
    bool recomputes = p->recompute != SEARCH_RC_NONE || p->act_ckpt_layers > 0;
    for (int a = 0; a < c->prec.n; a++)
        for (int b = 0; b < c->grad.n; b++)
            for (int f = 0; f < c->fp8pg.n; f++)
                for (int g = 0; g < c->graphs.n; g++)
                    for (int o = 0; o < c->tpo.n; o++)
                        for (int k = 0; k < c->offl.n; k++) {
                            p->precision = c->prec.v[a];
                            p->grad_bf16 = c->grad.v[b] != 0;
                            p->fp8_param_gather = c->fp8pg.v[f] != 0;
                            p->cuda_graphs = c->graphs.v[g] != 0;
                            p->tp_overlap = c->tpo.v[o] != 0;
                            p->offload_layers = c->offl.v[k];
                            if (p->fp8_param_gather && (p->precision != SEARCH_PREC_FP8 || !p->distributed_optimizer)) {
                                if (in->base_fp8_param_gather && c->fp8pg.n == 1) p->fp8_param_gather = false; /* base value, not applicable */
                                else continue;
                            }
                            if (p->tp_overlap && (p->tp < 2 || !p->sequence_parallel)) {
                                if (in->base_tp_overlap && c->tpo.n == 1) p->tp_overlap = false;
                                else continue;
                            }
                            if (p->offload_layers > 0 && (p->pp > 1 || recomputes || p->offload_layers >= c->L)) continue;
                            unsigned m = base_mask;
                            if (p->precision != in->base_precision) m |= SEARCH_EXT_PREC;
                            if (p->grad_bf16 != in->base_grad_bf16) m |= SEARCH_EXT_GRAD;
                            if (p->fp8_param_gather != in->base_fp8_param_gather) m |= SEARCH_EXT_FP8PG;
                            if (p->cuda_graphs != in->base_cuda_graphs) m |= SEARCH_EXT_GRAPHS;
                            if (p->tp_overlap != in->base_tp_overlap) m |= SEARCH_EXT_TPO;
                            if (p->offload_layers > 0) m |= SEARCH_EXT_OFFLOAD;
                            p->ext_mask = m;
                            if (fn(c, p, user)) { p->ext_mask = base_mask; return 1; }
                        }
    p->ext_mask = base_mask;
    return 0;
}

/* Loops sp → rc → do → act → n → a for one prototype candidate. */
static int emit_inner(const ctx *c, search_candidate *p, const knob_values *k, const act_lists *al,
                      emit_fn fn, void *user)
{
    const search_inputs *in = c->in;
    unsigned base_mask = p->ext_mask;
    for (int is = 0; is < k->nsp; is++)
        for (int ir = 0; ir < k->nrc; ir++)
            for (int id = 0; id < k->ndo; id++) {
                p->sequence_parallel = k->sp[is] != 0;
                p->recompute = (search_recompute)k->rc[ir];
                p->distributed_optimizer = k->dopt[id] != 0;
                unsigned m = base_mask;
                if (p->tp > 1 && p->sequence_parallel != in->base_sequence_parallel) m |= SEARCH_EXT_SP;
                if (p->recompute != in->base_recompute) m |= SEARCH_EXT_RC;
                if (p->dp > 1 && p->distributed_optimizer != in->base_distributed_optimizer)
                    m |= SEARCH_EXT_DO;
                p->ext_mask = m;
                if (al->n_act == 0) {
                    p->act_ckpt_layers = p->num_mbs_act = p->act_per_pipe = -1;
                    p->bucket = p->mbs;
                    if (emit_extras(c, p, fn, user)) return 1;
                    /* partial full recompute (recompute_num_layers): N layers of each stage (VP
                     * chunk) with the block method, the rest keep their activations */
                    int per_chunk = c->L / p->pp / (p->vp > 1 ? p->vp : 1);
                    for (int ir2 = 0; p->recompute == in->base_recompute && ir2 < c->rcl.n; ir2++) {
                        int nl = c->rcl.v[ir2];
                        if (nl < 1 || nl >= per_chunk) continue; /* all layers is the full recompute above */
                        search_recompute keep = p->recompute;
                        p->recompute = SEARCH_RC_FULL;
                        p->act_ckpt_layers = nl;
                        p->ext_mask = m | SEARCH_EXT_RCL;
                        int stop = emit_extras(c, p, fn, user);
                        p->recompute = keep;
                        p->act_ckpt_layers = -1;
                        p->ext_mask = m;
                        if (stop) return 1;
                    }
                    continue;
                }
                for (int ia = 0; ia < al->n_act; ia++) {
                    int nn = al->n_n > 0 ? al->n_n : 1, na = al->n_a > 0 ? al->n_a : 1;
                    for (int in_ = 0; in_ < nn; in_++)
                        for (int ip = 0; ip < na; ip++) {
                            p->act_ckpt_layers = al->act[ia];
                            p->num_mbs_act = al->n_n > 0 ? al->n[in_] : -1;
                            p->act_per_pipe = al->n_a > 0 ? al->a[ip] : -1;
                            /* FIX(quirk 6): the bucket is only a sort key, never an array index. */
                            p->bucket = al->act_raw[ia];
                            if (emit_extras(c, p, fn, user)) return 1;
                        }
                }
            }
    p->ext_mask = base_mask;
    return 0;
}

/* ---- grid ----------------------------------------------------------------- */

typedef struct {
    search_grid *g;
    ac_err *e;
    bool original_only;
    int failed;
    size_t cap;
} grid_sink;

static int grid_emit(const ctx *c, const search_candidate *cand, void *user)
{
    (void)c;
    grid_sink *s = user;
    search_grid *g = s->g;
    bool orig = cand->ext_mask == 0;
    if (s->original_only && !orig) return 0;
    if ((long)g->n >= MAX_GRID_CANDIDATES) {
        ac_err_set(s->e, AC_E_INPUT,
                   "the grid has more than %ld candidates; shorten the override lists or use the "
                   "exhaustive mode",
                   MAX_GRID_CANDIDATES);
        s->failed = 1;
        return 1;
    }
    if (g->n == s->cap) { /* grow geometrically */
        size_t cap = s->cap ? s->cap * 2 : 64;
        search_candidate *p = realloc(g->items, cap * sizeof *p);
        if (!p) {
            ac_err_set(s->e, AC_E_NOMEM, "out of memory for %zu candidates", cap);
            s->failed = 1;
            return 1;
        }
        g->items = p;
        s->cap = cap;
    }
    search_candidate *d = &g->items[g->n];
    *d = *cand;
    d->in_original = orig;
    d->gen_index = (long)g->n;
    g->n++;
    if (orig) g->n_original++;
    return 0;
}

static void fmt_list(const search_int_list *l, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = 0;
    o += (size_t)snprintf(buf + o, len - o, "[");
    for (int i = 0; i < l->n && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%d", i ? ", " : "", l->v[i]);
    if (o < len) snprintf(buf + o, len - o, "]");
}

/* The message when one rule rejected every combination. */
static int no_candidate(const ctx *c, const long *rej, long evaluated, ac_err *e)
{
    char a[400], b[400];
    const search_inputs *in = c->in;
    for (int r = 0; r < SEARCH_RULE_COUNT; r++) {
        if (evaluated == 0 || rej[r] != evaluated) continue;
        switch ((search_rule)r) {
        case SEARCH_RULE_HEADS:
            fmt_list(&c->tp, a, sizeof a);
            if (c->groups != c->heads)
                return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "tensor_parallel_sizes",
                                 "no candidate: TP does not divide %d attention heads and %d query "
                                 "groups for every TP in %s",
                                 c->heads, c->groups, a);
            return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "tensor_parallel_sizes",
                             "no candidate: TP does not divide %d attention heads for every TP in %s",
                             c->heads, a);
        case SEARCH_RULE_LAYERS:
            fmt_list(&c->pp, a, sizeof a);
            return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "pipeline_parallel_sizes",
                             "no candidate: PP does not divide %d layers%s for every PP in %s",
                             c->mult * c->L, c->mult == 2 ? " (encoder + decoder)" : "", a);
        case SEARCH_RULE_MP:
            return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "min_model_parallel_size",
                             "no candidate: no (TP, PP) has min_model_parallel_size %d ≤ TP·PP%s ≤ "
                             "%d (max_model_parallel_size)",
                             c->lists.min_mp, (c->cp.n > 1 || c->ep.n > 1 || c->cp.v[0] > 1 || c->ep.v[0] > 1) ? "·CP·EP" : "",
                             c->lists.max_mp);
        case SEARCH_RULE_GPUS: {
            /* the usual cause: the model needs more model parallelism than the cluster has GPUs.
             * Advise the smallest node count some allowed layout divides: nodes·gpus_per_node
             * must be a multiple of TP·PP·CP, i.e. nodes a multiple of lcm(TP·PP·CP, gpn) / gpn */
            long long per_node = in->gpus_per_node > 0 ? in->gpus_per_node : 1;
            long long best_nodes = 0, best = 0;
            int btp = 0, bpp = 0, bcp = 0;
            for (int i = 0; i < c->tp.n; i++)
                for (int j = 0; j < c->pp.n; j++)
                    for (int k = 0; k < c->cp.n; k++) {
                        long long tp = c->tp.v[i], pp = c->pp.v[j], cp = c->cp.v[k], split = tp * pp * cp;
                        if (combo_fails(c, tp, pp, cp, 1, 1, 1, true) & ((1u << SEARCH_RULE_HEADS) | (1u << SEARCH_RULE_LAYERS) | (1u << SEARCH_RULE_MP)))
                            continue;
                        long long gcd = split, g = per_node;
                        while (g) { long long t = gcd % g; gcd = g; g = t; }
                        long long nodes = split / gcd; /* lcm(split, per_node) / per_node */
                        if (!best_nodes || nodes < best_nodes) {
                            best_nodes = nodes; best = split; btp = (int)tp; bpp = (int)pp; bcp = (int)cp;
                        }
                    }
            if (best > c->n_gpu) {
                return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "train_settings.num_nodes",
                                 "no candidate: the model needs more GPUs than the %lld (%d nodes × %d): its smallest "
                                 "allowed layout is TP %d × PP %d × CP %d = %lld GPUs (min_model_parallel_size %d); "
                                 "use %lld nodes (or a multiple)",
                                 c->n_gpu, in->num_nodes, in->gpus_per_node, btp, bpp, bcp, best, c->lists.min_mp,
                                 best_nodes);
            }
            return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "train_settings.num_nodes",
                             "no candidate: TP·PP·CP does not divide the %lld GPUs (%d nodes × %d) "
                             "for any (TP, PP, CP)",
                             c->n_gpu, in->num_nodes, in->gpus_per_node);
        }
        case SEARCH_RULE_GBS:
            fmt_list(&c->mbs, a, sizeof a);
            fmt_list(&c->gbs, b, sizeof b);
            return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "micro_batch_sizes",
                             "no candidate: global batch size %s is not a multiple of MBS·DP for "
                             "any MBS in %s",
                             b, a);
        case SEARCH_RULE_CP_EP:
            fmt_list(&c->cp, a, sizeof a);
            fmt_list(&c->ep, b, sizeof b);
            return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "context_parallel_sizes",
                             "no candidate: CP and EP are both > 1 in every combination (CP %s, EP %s)",
                             a, b);
        case SEARCH_RULE_CP_SEQ:
            fmt_list(&c->cp, a, sizeof a);
            return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "context_parallel_sizes",
                             "no candidate: for every CP > 1 in %s, 2·CP does not divide seq_length "
                             "%d or the family has no context parallelism",
                             a, c->seq);
        case SEARCH_RULE_EP:
            fmt_list(&c->ep, a, sizeof a);
            return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "expert_parallel_sizes",
                             "no candidate: EP does not divide num_experts %d (or DP·CP) for every "
                             "EP in %s",
                             c->experts, a);
        case SEARCH_RULE_VP:
            fmt_list(&c->vp, a, sizeof a);
            return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "virtual_pipeline_sizes",
                             "no candidate: no virtual pipeline size in %s divides the layers per "
                             "pipeline stage (needs PP ≥ 2 and no T5/mT5)",
                             a);
        default:
            break;
        }
    }
    size_t o = 0;
    a[0] = 0;
    for (int r = 0; r < SEARCH_RULE_COUNT; r++)
        if (rej[r] && o < sizeof a)
            o += (size_t)snprintf(a + o, sizeof a - o, "%s%s %ld", o ? ", " : "", RULE_NAMES[r], rej[r]);
    return ac_err_set(e, AC_E_INPUT,
                      "no candidate: each of the %ld combinations fails at least one rule "
                      "(rejections: %s)",
                      evaluated, a);
}

static void count_fails(long *rej, unsigned m)
{
    for (int r = 0; r < SEARCH_RULE_COUNT; r++)
        if (m & (1u << r)) rej[r]++;
}

static int cmp_bucket(const void *a, const void *b)
{
    const search_candidate *x = a, *y = b;
    if (x->bucket != y->bucket) return x->bucket < y->bucket ? -1 : 1;
    return x->gen_index < y->gen_index ? -1 : x->gen_index > y->gen_index;
}

void search_grid_free(search_grid *g)
{
    if (!g) return;
    free(g->items);
    free(g->tuples);
    memset(g, 0, sizeof *g);
}

int search_grid_build(const search_inputs *in, search_grid *g, ac_err *e)
{
    memset(g, 0, sizeof *g);
    ctx *c = malloc(sizeof *c);
    search_act_params *ap = malloc(sizeof *ap);
    act_lists *al = malloc(sizeof *al);
    if (!c || !ap || !al) {
        free(c), free(ap), free(al);
        return ac_err_set(e, AC_E_NOMEM, "out of memory");
    }
    int rc = -1;
    if (resolve(in, c, e)) goto out;
    g->lists = c->lists;
    g->cp = c->cp;
    g->ep = c->ep;
    g->gbs = c->gbs;

    /* §4.2: keep a (tp, pp, cp, ep) once, in first-seen order, if some (mbs, gbs) passes. */
    size_t tcap = 0;
    for (int a = 0; a < c->tp.n; a++)
        for (int b = 0; b < c->pp.n; b++)
            for (int i = 0; i < c->cp.n; i++)
                for (int j = 0; j < c->ep.n; j++) {
                    int tp = c->tp.v[a], pp = c->pp.v[b], cp = c->cp.v[i], ep = c->ep.v[j];
                    bool keep = false;
                    for (int m = 0; m < c->mbs.n; m++)
                        for (int k = 0; k < c->gbs.n; k++) {
                            unsigned f = combo_fails(c, tp, pp, cp, ep, c->mbs.v[m], c->gbs.v[k], true);
                            g->tuple_evaluated++;
                            count_fails(g->tuple_rejected, f);
                            keep |= f == 0;
                        }
                    if (!keep) continue;
                    if (g->n_tuples == tcap) {
                        tcap = tcap ? tcap * 2 : 16;
                        search_mp_tuple *t = realloc(g->tuples, tcap * sizeof *t);
                        if (!t) {
                            ac_err_set(e, AC_E_NOMEM, "out of memory");
                            goto out;
                        }
                        g->tuples = t;
                    }
                    g->tuples[g->n_tuples++] = (search_mp_tuple){tp, pp, cp, ep};
                }
    if (g->n_tuples == 0) {
        no_candidate(c, g->tuple_rejected, g->tuple_evaluated, e);
        goto out;
    }

    /* §4.3–4.4: per kept tuple the VP/act lists, then every mbs, re-checked. */
    grid_sink sink = {g, e, in->original_only, 0, 0};
    for (size_t t = 0; t < g->n_tuples; t++) {
        search_mp_tuple tu = g->tuples[t];
        int dp = (int)(c->n_gpu / ((long long)tu.tp * tu.pp * tu.cp));
        int orig_vp = in->no_interleave ? 0 : search_original_vp(c->f, c->L, tu.pp);
        search_int_list vps;
        if (c->vp_auto || in->no_interleave) one(&vps, c->L % tu.pp ? 0 : orig_vp); /* an uneven split runs without VP */
        else vps = c->vp;
        knob_values kv;
        knobs_for(c, tu.tp, dp, false, &kv);
        for (int iv = 0; iv < vps.n; iv++) {
            int vp = vps.v[iv];
            bool vok = vp_ok(c, tu.pp, vp);
            if (vok) {
                if (search_act_params_for(c->f, c->L, tu.pp, vp, in->size_b, in->act_method, ap, e)) goto out;
                prepare_act(c, ap, al);
            }
            for (int m = 0; m < c->mbs.n; m++)
                for (int k = 0; k < c->gbs.n; k++) {
                    int mbs = c->mbs.v[m], gbs = c->gbs.v[k];
                    unsigned f = combo_fails(c, tu.tp, tu.pp, tu.cp, tu.ep, mbs, gbs, false);
                    if (!vok) f |= 1u << SEARCH_RULE_VP;
                    g->cand_evaluated++;
                    count_fails(g->cand_rejected, f);
                    if (f) continue;
                    search_candidate p;
                    memset(&p, 0, sizeof p);
                    p.tp = tu.tp, p.pp = tu.pp, p.cp = tu.cp, p.ep = tu.ep;
                    p.vp = vp, p.mbs = mbs, p.gbs = gbs, p.dp = dp;
                    p.ext_mask = (tu.cp != 1 ? SEARCH_EXT_CP : 0) | (tu.ep != 1 ? SEARCH_EXT_EP : 0) |
                                 (vp != orig_vp ? SEARCH_EXT_VP : 0) |
                                 (gbs != in->base_gbs ? SEARCH_EXT_GBS : 0);
                    if (uneven_pp(c, tu.pp) && search_uneven_split(c->L, tu.pp, &p.first_layers, &p.last_layers))
                        p.ext_mask |= SEARCH_EXT_UNEVEN;
                    if (emit_inner(c, &p, &kv, al, grid_emit, &sink)) {
                        if (sink.failed) goto out;
                    }
                }
        }
    }
    if (g->n == 0) {
        if (in->original_only && g->cand_evaluated > 0) {
            long any = 0;
            for (int r = 0; r < SEARCH_RULE_COUNT; r++) any += g->cand_rejected[r] == g->cand_evaluated;
            if (!any) {
                ac_err_set(e, AC_E_INPUT,
                           "no candidate: every valid candidate uses an extension knob "
                           "(CP, EP, VP, SP, recompute, distributed optimizer or GBS) and "
                           "original_only is set");
                goto out;
            }
        }
        no_candidate(c, g->cand_rejected, g->cand_evaluated, e);
        goto out;
    }
    /* §4.5: launch order = bucket 0, 1, 2, …; stable inside a bucket. */
    qsort(g->items, g->n, sizeof *g->items, cmp_bucket);
    rc = 0;
out:
    if (rc) {
        long te = g->tuple_evaluated, ce = g->cand_evaluated;
        long tr[SEARCH_RULE_COUNT], cr[SEARCH_RULE_COUNT];
        memcpy(tr, g->tuple_rejected, sizeof tr);
        memcpy(cr, g->cand_rejected, sizeof cr);
        search_lists ls = g->lists;
        search_grid_free(g);
        g->lists = ls; /* keep the diagnostics */
        g->tuple_evaluated = te, g->cand_evaluated = ce;
        memcpy(g->tuple_rejected, tr, sizeof tr);
        memcpy(g->cand_rejected, cr, sizeof cr);
    }
    free(c), free(ap), free(al);
    return rc;
}

/* ---- global batch adjustment ------------------------------------------------ */

int search_gbs_nearest(const search_inputs *in, search_gbs_choice *out, ac_err *e)
{
    memset(out, 0, sizeof *out);
    out->from = out->to = in->base_gbs;
    if (!in->gbs.is_auto) return 0; /* a global_batch_sizes list pins the batch */
    ctx *c = malloc(sizeof *c);
    if (!c) return ac_err_set(e, AC_E_NOMEM, "out of memory");
    int rc = -1;
    if (resolve(in, c, e)) goto out;
    const unsigned gbs_bit = 1u << SEARCH_RULE_GBS;
    long long max_dp = 0;
    bool split = false;
    for (int a = 0; a < c->tp.n && !split; a++)
        for (int b = 0; b < c->pp.n && !split; b++)
            for (int i = 0; i < c->cp.n && !split; i++)
                for (int j = 0; j < c->ep.n && !split; j++) {
                    long long tp = c->tp.v[a], pp = c->pp.v[b], cp = c->cp.v[i], ep = c->ep.v[j];
                    for (int m = 0; m < c->mbs.n && !split; m++) {
                        unsigned f = combo_fails(c, tp, pp, cp, ep, c->mbs.v[m], in->base_gbs, true);
                        if (f == 0) split = true;
                        else if (f == gbs_bit && c->n_gpu / (tp * pp * cp) > max_dp) max_dp = c->n_gpu / (tp * pp * cp);
                    }
                }
    rc = 0;
    if (split || max_dp == 0) goto out; /* it splits, or the batch is not what fails */
    /* the multiples of the largest DP split over every layout of the grid at MBS 1 (each
     * smaller DP of the grid divides it when the smallest model-parallel split divides the
     * others, as with TP·PP·CP = 1); the nearest keeps tokens per step closest */
    long long lo = (in->base_gbs / max_dp) * max_dp, hi = lo + max_dp;
    long long pick = lo >= max_dp && in->base_gbs - lo <= hi - in->base_gbs ? lo : hi;
    if (pick > (1 << 30)) goto out;
    /* a few times the tokens per step is another training run (its learning rate and schedule
     * were set for the batch asked): past 4x, or below a quarter, the user picks */
    if (pick > 4LL * in->base_gbs || 4 * pick < in->base_gbs) {
        rc = ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "search_config.train_settings.global_batch_sizes",
                       "GBS %d has no split on %lld GPUs; the nearest every layout of the grid splits (%lld, a multiple "
                       "of its largest data-parallel size %lld) is %.1fx the tokens per step: give "
                       "global_batch_sizes=[...] (some layouts split smaller batches) or fewer GPUs",
                       in->base_gbs, (long long)c->n_gpu, pick, max_dp, (double)pick / in->base_gbs);
        goto out;
    }
    out->adjusted = true;
    out->to = (int)pick;
    out->dp = (int)max_dp;
out:
    free(c);
    return rc;
}

/* ---- exhaustive ------------------------------------------------------------- */

typedef struct {
    search_candidate_fn fn;
    void *user;
    long count;
    const search_lists *orig;
} ex_sink;

static int ex_emit(const ctx *c, const search_candidate *cand, void *user)
{
    ex_sink *s = user;
    (void)c;
    search_candidate d = *cand;
    long long mp = (long long)d.tp * d.pp * d.cp * d.ep;
    d.in_original = d.ext_mask == 0 && search_list_contains(&s->orig->tp, d.tp) &&
                    search_list_contains(&s->orig->pp, d.pp) && search_list_contains(&s->orig->mbs, d.mbs) &&
                    mp >= s->orig->min_mp && mp <= s->orig->max_mp;
    d.gen_index = s->count++;
    return s->fn(&d, s->user);
}

int search_exhaustive(const search_inputs *in, const search_exhaustive_opts *opts,
                      search_candidate_fn fn, void *user, long *count, ac_err *e)
{
    if (count) *count = 0;
    ctx *c = malloc(sizeof *c);
    search_act_params *ap = malloc(sizeof *ap);
    act_lists *al = malloc(sizeof *al);
    int rc = -1;
    if (!c || !ap || !al) {
        ac_err_set(e, AC_E_NOMEM, "out of memory");
        goto out;
    }
    if (resolve(in, c, e)) goto out;
    search_exhaustive_opts o = opts ? *opts : (search_exhaustive_opts){0};
    if (o.max_tp <= 0) o.max_tp = in->gpus_per_node;
    if (o.max_cp <= 0) o.max_cp = in->gpus_per_node;
    if (o.max_mbs <= 0) {
        o.max_mbs = 16;
        for (int i = 0; i < c->lists.mbs.n; i++)
            if (c->lists.mbs.v[i] > o.max_mbs) o.max_mbs = c->lists.mbs.v[i];
    }

    /* The axes of the space. */
    int tps[64], ntp = 0, pps[64], npp = 0, cps[64], ncp = 0, eps[64], nep = 0, mbss[128], nmbs = 0;
    for (int t = 1; t <= o.max_tp && t <= c->heads && ntp < 64; t++)
        if (c->heads % t == 0 && c->groups % t == 0 && c->n_gpu % t == 0) tps[ntp++] = t;
    {
        int valid[1024];
        int nv = search_valid_pp(c->f, c->L, valid, 1024);
        for (int i = 0; i < nv && npp < 64; i++)
            if (valid[i] <= c->n_gpu) pps[npp++] = valid[i];
        for (int pp = 2; c->uneven && pp <= c->L && pp <= c->n_gpu && npp < 64; pp++)
            if (uneven_pp(c, pp)) pps[npp++] = pp;
        npp = dedupe_ints(pps, npp);
    }
    for (int cp = 1; cp <= o.max_cp && ncp < 64; cp++) {
        if (c->n_gpu % cp) continue;
        if (cp > 1 && (!search_family_is_gpt(c->f) || c->seq % (2 * cp))) continue;
        cps[ncp++] = cp;
    }
    for (int ep = 1; ep <= c->experts && nep < 64; ep++)
        if (c->experts % ep == 0 && ep <= c->n_gpu) eps[nep++] = ep;
    for (int m = 1; m <= o.max_mbs && nmbs < 128; m++) {
        bool pow2 = (m & (m - 1)) == 0;
        if (pow2 || search_list_contains(&c->lists.mbs, m)) mbss[nmbs++] = m;
    }

    ex_sink sink = {fn, user, 0, &c->lists};
    for (int a = 0; a < ntp; a++)
        for (int b = 0; b < npp; b++)
            for (int i = 0; i < ncp; i++)
                for (int j = 0; j < nep; j++) {
                    int tp = tps[a], pp = pps[b], cp = cps[i], ep = eps[j];
                    /* tuple rules with an MBS/GBS that cannot fail the GBS rule */
                    /* FL's "CP and EP never both > 1" is the launcher's, not Megatron-Core's (EP is carved
                     * out of DP×CP, the ep rule): the wider space has both (NeMo's Mixtral 8x22B recipes) */
                    unsigned f = combo_fails(c, tp, pp, cp, ep, 1, 0, false) & ~(1u << SEARCH_RULE_CP_EP);
                    if (f) continue;
                    int dp = (int)(c->n_gpu / ((long long)tp * pp * cp));
                    knob_values kv;
                    knobs_for(c, tp, dp, true, &kv);
                    int orig_vp = c->L % pp || in->no_interleave ? 0 : search_original_vp(c->f, c->L, pp);
                    int vps[SEARCH_LIST_MAX + 2], nvp = 0;
                    vps[nvp++] = orig_vp;
                    if (orig_vp != 0) vps[nvp++] = 0;
                    if (c->mult == 1 && pp >= 2 && c->L % pp == 0 && !in->no_interleave) {
                        int per_stage = c->L / pp;
                        for (int v = 2; v <= per_stage && nvp < SEARCH_LIST_MAX; v++)
                            if (per_stage % v == 0 && v != orig_vp) vps[nvp++] = v;
                    }
                    for (int iv = 0; iv < nvp; iv++) {
                        int vp = vps[iv];
                        if (!vp_ok(c, pp, vp) && vp != orig_vp) continue;
                        if (search_act_params_for(c->f, c->L, pp, vp, in->size_b, in->act_method, ap, e)) goto out;
                        prepare_act(c, ap, al);
                        for (int m = 0; m < nmbs; m++)
                            for (int k = 0; k < c->gbs.n; k++) {
                                int mbs = mbss[m], gbs = c->gbs.v[k];
                                if (gbs % ((long long)mbs * dp)) continue;
                                search_candidate p;
                                memset(&p, 0, sizeof p);
                                p.tp = tp, p.pp = pp, p.cp = cp, p.ep = ep;
                                p.vp = vp, p.mbs = mbs, p.gbs = gbs, p.dp = dp;
                                p.ext_mask = (cp != 1 ? SEARCH_EXT_CP : 0) | (ep != 1 ? SEARCH_EXT_EP : 0) |
                                             (vp != orig_vp ? SEARCH_EXT_VP : 0) |
                                             (gbs != in->base_gbs ? SEARCH_EXT_GBS : 0);
                                if (uneven_pp(c, pp) && search_uneven_split(c->L, pp, &p.first_layers, &p.last_layers))
                                    p.ext_mask |= SEARCH_EXT_UNEVEN;
                                if (emit_inner(c, &p, &kv, al, ex_emit, &sink)) {
                                    rc = 0;
                                    goto done;
                                }
                            }
                    }
                }
    rc = 0;
done:
    if (count) *count = sink.count;
out:
    free(c), free(ap), free(al);
    return rc;
}

/* ---- names ------------------------------------------------------------------- */

/* -1 prints as None, as Python prints the original's None. */
static const char *opt_text(int v, char *buf, size_t len)
{
    if (v < 0) snprintf(buf, len, "None");
    else snprintf(buf, len, "%d", v);
    return buf;
}

int search_candidate_name(const search_candidate *c, const char *family, const char *size_text,
                          int nodes, char *buf, size_t len)
{
    static const char *const RC_TEXT[] = {"none", "sel", "full"};
    char tmp[512];
    size_t o = 0, cap = sizeof tmp;
    if (!buf || len == 0) return -1;
#define PUT(...)                                                                      \
    do {                                                                              \
        int w_ = snprintf(tmp + o, cap - o, __VA_ARGS__);                           \
        if (w_ < 0) return -1;                                                        \
        o += (size_t)w_;                                                              \
        if (o >= cap) o = cap - 1;                                                    \
    } while (0)
    if (size_text && size_text[0]) PUT("%s_%sb_%dnodes_tp_%d_pp_%d", family, size_text, nodes, c->tp, c->pp);
    else PUT("%s_%dnodes_tp_%d_pp_%d", family, nodes, c->tp, c->pp); /* a full model name (llama3_70b) */
    if (c->ext_mask) PUT("_cp_%d_ep_%d", c->cp, c->ep);
    char t1[16], t2[16], t3[16];
    PUT("_mbs_%d_act_ckpt_%s_num_mbs_act_%s_act_per_pipe_%s", c->mbs,
        opt_text(c->act_ckpt_layers, t1, sizeof t1), opt_text(c->num_mbs_act, t2, sizeof t2),
        opt_text(c->act_per_pipe, t3, sizeof t3));
    if (c->ext_mask & SEARCH_EXT_VP) PUT("_vp_%s", opt_text(c->vp > 0 ? c->vp : -1, t1, sizeof t1));
    if (c->ext_mask & SEARCH_EXT_SP) PUT("_sp_%d", c->sequence_parallel ? 1 : 0);
    if (c->ext_mask & SEARCH_EXT_RC) PUT("_rc_%s", RC_TEXT[(unsigned)c->recompute < 3 ? c->recompute : 0]);
    if (c->ext_mask & SEARCH_EXT_DO) PUT("_do_%d", c->distributed_optimizer ? 1 : 0);
    if (c->ext_mask & SEARCH_EXT_GBS) PUT("_gbs_%d", c->gbs);
    if (c->ext_mask & SEARCH_EXT_PREC) PUT("_%s", c->precision == SEARCH_PREC_FP8 ? "fp8" : "bf16");
    if (c->ext_mask & SEARCH_EXT_GRAD) PUT("_gr_%s", c->grad_bf16 ? "bf16" : "fp32");
    if (c->ext_mask & SEARCH_EXT_FP8PG) PUT("_fp8pg_%d", c->fp8_param_gather ? 1 : 0);
    if (c->ext_mask & SEARCH_EXT_GRAPHS) PUT("_cg_%d", c->cuda_graphs ? 1 : 0);
    if (c->ext_mask & SEARCH_EXT_TPO) PUT("_tpo_%d", c->tp_overlap ? 1 : 0);
    if (c->ext_mask & SEARCH_EXT_OFFLOAD) PUT("_off_%d", c->offload_layers);
    if (c->ext_mask & SEARCH_EXT_UNEVEN) PUT("_pl_%d_%d", c->first_layers, c->last_layers);
    if (c->ext_mask & SEARCH_EXT_RCL) PUT("_rcl_%d", c->act_ckpt_layers);
#undef PUT
    size_t n = strlen(tmp);
    if (n + 1 > len || n + 1 >= cap) {
        memcpy(buf, tmp, len - 1);
        buf[len - 1] = 0;
        return -1;
    }
    memcpy(buf, tmp, n + 1);
    return (int)n;
}
