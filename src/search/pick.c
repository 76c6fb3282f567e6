/* pick.c — see pick.h */
#include "search/pick.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search/candidate_est.h"
#include "search/train_search.h"

double search_tie_band(const est_result *r)
{
    double b = est_rank_band_rel(r);
    return b > 0 ? b : 0.05;
}

const char *search_pick_why_text(search_pick_why w)
{
    static const char *const T[] = {"fastest", "TP inside one node", "fewer model-parallel GPUs",
                                    "TP x CP inside one node", "no recompute", "larger data parallelism",
                                    "staying under 98% of GPU memory"};
    return (unsigned)w < sizeof T / sizeof *T ? T[w] : "?";
}

static bool recomputes(const search_candidate *k)
{
    return k->recompute != SEARCH_RC_NONE || k->act_ckpt_layers > 0;
}

int search_conventional_cmp(const search_candidate *a, const search_candidate *b, int gpn, search_pick_why *why)
{
    /* each rule: (a's value, b's value), smaller is more conventional */
    long long ka[5] = {a->tp > gpn, (long long)a->tp * a->pp * a->cp, (long long)a->tp * a->cp > gpn, recomputes(a), -a->dp};
    long long kb[5] = {b->tp > gpn, (long long)b->tp * b->pp * b->cp, (long long)b->tp * b->cp > gpn, recomputes(b), -b->dp};
    for (int i = 0; i < 5; i++)
        if (ka[i] != kb[i]) {
            if (why) *why = (search_pick_why)(PICK_WHY_TP_IN_NODE + i);
            return ka[i] < kb[i] ? -1 : 1;
        }
    if (why) *why = PICK_WHY_FASTEST;
    return 0;
}

/* the same run: what a recompute setting changes, the estimator does not see */
bool search_pick_is_twin(const struct search_train_result *r, est_input *in, const search_candidate *k, const est_result *res)
{
    if (!recomputes(k)) return false;
    search_candidate plain = *k;
    plain.recompute = SEARCH_RC_NONE;
    plain.act_ckpt_layers = plain.num_mbs_act = plain.act_per_pipe = -1;
    est_result p;
    candidate_est_apply(in, &plain, r->act_method);
    if (est_evaluate(in, &p) || !p.fits) return false;
    return fabs(p.step_time - res->step_time) <= 1e-9 * res->step_time && fabs(p.mem_total - res->mem_total) <= 1e-6 * res->mem_total;
}

typedef struct {
    const ac_config *c;
    struct search_train_result *r;
    est_input in;
    double best, band;
    search_pick *p;
    double under_score, orig_score;
} pick_ctx;

static void entry_set(search_pick_entry *d, const search_candidate *k, const est_result *res)
{
    d->found = true;
    d->cand = *k;
    d->est = *res;
    d->name[0] = 0;
}

/* the result's memory need over the whole GPU's memory (mem_limit is the usable share) */
static double mem_frac_of(const struct search_train_result *r, const est_result *res)
{
    double frac = r->cal.memory_limit_frac > 0 ? r->cal.memory_limit_frac : 0.98;
    double gpu = res->mem_limit / frac;
    return gpu > 0 ? res->mem_total / gpu : 0;
}

static double mem_frac(const pick_ctx *x, const est_result *res) { return mem_frac_of(x->r, res); }

/* within the memory advice (SEARCH_MEM_WARN_FRAC of usable memory) */
static bool under_mem(const pick_ctx *x, const est_result *res) { return mem_frac(x, res) <= SEARCH_MEM_WARN_FRAC; }

/* a score within the tie band below the best */
static bool in_band(double s, double best, double band) { return s >= best - band * fabs(best); }

/* one fitting candidate of either source */
static void consider(pick_ctx *x, const search_candidate *k, const est_result *res)
{
    search_pick *p = x->p;
    double s = search_train_score(x->c, res);
    bool k_under = under_mem(x, res);
    if (k->in_original && (!p->original.found || s > x->orig_score)) {
        entry_set(&p->original, k, res);
        x->orig_score = s;
    }
    if (k_under && (!p->under_mem.found || s > x->under_score)) {
        entry_set(&p->under_mem, k, res);
        x->under_score = s;
    }
    if (!in_band(s, x->best, x->band)) return;
    int gpn = x->c->train.gpus_per_node;
    if (p->pick.found) {
        /* a tie under the memory advice beats one over it; then the conventional order */
        bool p_under = under_mem(x, &p->pick.est);
        int cmp = k_under != p_under ? (k_under ? -1 : 1) : search_conventional_cmp(k, &p->pick.cand, gpn, NULL);
        double ps = search_train_score(x->c, &p->pick.est);
        if (cmp > 0 || (cmp == 0 && s <= ps)) goto count;
    }
    entry_set(&p->pick, k, res);
count:
    if (!search_pick_is_twin(x->r, &x->in, k, res)) p->n_ties++;
}

static void seen_set(search_pick_seen *d, const search_candidate *k, const est_result *res, double score)
{
    d->cand = *k;
    d->est = *res;
    d->score = score;
}

void search_pick_walk_init(search_pick_walk *w, const ac_config *c, const struct search_train_result *r)
{
    memset(w, 0, sizeof *w);
    w->c = c;
    w->r = r;
    w->best = -INFINITY;
    w->band = -1;
}

void search_pick_walk_add(search_pick_walk *w, const search_candidate *k, const est_result *res)
{
    double s = search_train_score(w->c, res);
    /* every candidate of a search shares its GPU and stack, so the first carries the band */
    if (w->band < 0) w->band = search_tie_band(res);
    if (k->in_original && (!w->have_original || s > w->original.score)) {
        seen_set(&w->original, k, res, s);
        w->have_original = true;
    }
    if (mem_frac_of(w->r, res) <= SEARCH_MEM_WARN_FRAC && (!w->have_under_mem || s > w->under_mem.score)) {
        seen_set(&w->under_mem, k, res, s);
        w->have_under_mem = true;
    }
    if (s > w->best) w->best = s;
    if (w->failed || !in_band(s, w->best, w->band)) return;
    if (w->n_ties == w->cap) {
        /* drop what the risen best has left behind, keeping the visit order */
        size_t m = 0;
        for (size_t i = 0; i < w->n_ties; i++)
            if (in_band(w->ties[i].score, w->best, w->band)) w->ties[m++] = w->ties[i];
        w->n_ties = m;
        if (2 * m >= w->cap) {
            size_t cap = w->cap ? 2 * w->cap : 64;
            search_pick_seen *v = realloc(w->ties, cap * sizeof *v);
            if (!v) { w->failed = true; return; }
            w->ties = v;
            w->cap = cap;
        }
    }
    seen_set(&w->ties[w->n_ties++], k, res, s);
}

void search_pick_walk_free(search_pick_walk *w)
{
    free(w->ties);
    w->ties = NULL;
    w->n_ties = w->cap = 0;
}

static void name_of(const ac_config *c, const struct search_train_result *r, search_pick_entry *d)
{
    (void)r;
    if (d->found && !d->name[0])
        search_candidate_name(&d->cand, r->name_family, r->size_text, c->train.num_nodes, d->name, sizeof d->name);
}

/* the node count meeting max_training_days at the pick's TP/PP/CP/EP/VP/MBS and global batch */
static void budget_nodes(pick_ctx *x)
{
    search_pick *p = x->p;
    const ac_config *c = x->c;
    const search_candidate *k = &p->pick.cand;
    double max_days = c->train.max_training_days;
    p->over_budget = max_days > 0 && p->pick.est.days_to_train > max_days;
    if (!p->over_budget) return;
    int gpn = c->train.gpus_per_node;
    for (int nodes = c->train.num_nodes + 1; nodes <= 64 * c->train.num_nodes && nodes <= 100000; nodes++) {
        long long n = (long long)nodes * gpn, dp;
        if (!search_layout_splits(k, n, &dp)) continue;
        search_candidate m = *k;
        m.dp = (int)dp;
        est_input in = x->in;
        in.num_gpus = (int)n;
        candidate_est_apply(&in, &m, x->r->act_method);
        est_result res;
        if (est_evaluate(&in, &res) || !res.fits) continue;
        if (res.days_to_train <= max_days) {
            p->budget_nodes = nodes;
            p->budget_days = res.days_to_train;
            return;
        }
    }
}

int search_pick_predicted(const ac_config *c, struct search_train_result *r, const search_pick_walk *walk, ac_err *e)
{
    search_pick *p = &r->pick;
    memset(p, 0, sizeof *p);
    /* every candidate of a search shares its GPU and stack, so any scored result carries the band */
    const est_result *any = NULL;
    for (size_t i = 0; i < r->n && !any; i++)
        if (!r->items[i].failed && r->items[i].est.fits) any = &r->items[i].est;
    double band = walk && walk->band >= 0 ? walk->band : search_tie_band(any);
    pick_ctx x = {c, r, r->base, -INFINITY, band, p, -INFINITY, -INFINITY};
    p->band = x.band;
    /* the best score of everything scored */
    for (size_t i = 0; i < r->n; i++) {
        const search_scored *s = &r->items[i];
        if (s->failed || !s->est.fits) continue;
        double v = search_train_score(c, &s->est);
        if (!p->fastest.found || v > x.best) { entry_set(&p->fastest, &s->cand, &s->est); x.best = v; }
    }
    if (r->exhaustive_found && (!p->fastest.found || search_train_score(c, &r->exhaustive_best_est) > x.best)) {
        entry_set(&p->fastest, &r->exhaustive_best, &r->exhaustive_best_est);
        x.best = search_train_score(c, &r->exhaustive_best_est);
    }
    if (!p->fastest.found) return 0;
    /* the ties, the original's choice and the best under the memory advice */
    for (size_t i = 0; i < r->n; i++) {
        const search_scored *s = &r->items[i];
        if (!s->failed && s->est.fits) consider(&x, &s->cand, &s->est);
    }
    if (r->exhaustive_done && walk && !walk->failed) {
        /* the grid's items are in the walk too: count the ties of the walk only */
        long grid_ties = p->n_ties;
        p->n_ties = 0;
        if (walk->have_original && (!p->original.found || walk->original.score > x.orig_score)) {
            entry_set(&p->original, &walk->original.cand, &walk->original.est);
            x.orig_score = walk->original.score;
        }
        if (walk->have_under_mem && (!p->under_mem.found || walk->under_mem.score > x.under_score)) {
            entry_set(&p->under_mem, &walk->under_mem.cand, &walk->under_mem.est);
            x.under_score = walk->under_mem.score;
        }
        for (size_t i = 0; i < walk->n_ties; i++) consider(&x, &walk->ties[i].cand, &walk->ties[i].est);
        if (p->n_ties == 0) p->n_ties = grid_ties;
    }
    search_conventional_cmp(&p->pick.cand, &p->fastest.cand, c->train.gpus_per_node, &p->why);
    p->mem_frac = mem_frac(&x, &p->pick.est);
    p->mem_warn = p->mem_frac > SEARCH_MEM_WARN_FRAC;
    if (p->mem_frac <= SEARCH_MEM_WARN_FRAC && !under_mem(&x, &p->fastest.est)) p->why = PICK_WHY_UNDER_MEM;
    if (search_train_score(c, &p->pick.est) >= x.best) p->why = PICK_WHY_FASTEST;
    if (!p->mem_warn) p->under_mem.found = false;
    budget_nodes(&x);
    name_of(c, r, &p->pick);
    name_of(c, r, &p->fastest);
    name_of(c, r, &p->original);
    name_of(c, r, &p->under_mem);
    (void)e;
    return 0;
}

void search_pick_measured(const ac_config *c, struct search_train_result *r)
{
    search_pick *p = &r->pick;
    const search_scored *best = NULL;
    double best_tps = 0;
    for (size_t i = 0; i < r->n; i++) {
        const search_scored *s = &r->items[i];
        if (s->source != RUN_MEASURED || s->failed || s->step_time_s <= 0) continue;
        double tps = (double)s->cand.gbs * r->base.shape.seq_length / s->step_time_s;
        if (!best || tps > best_tps) { best = s; best_tps = tps; }
    }
    if (!best) return;
    entry_set(&p->pick, &best->cand, &best->est);
    snprintf(p->pick.name, sizeof p->pick.name, "%s", best->name);
    p->measured = true;
    p->measured_step_s = best->step_time_s;
    p->why = PICK_WHY_FASTEST;
    double max_days = c->train.max_training_days;
    double days = best->est.days_to_train * best->step_time_s / best->est.step_time;
    p->over_budget = max_days > 0 && days > max_days;
}
