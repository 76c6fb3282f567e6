/* test_grid.c — heuristic lists, candidate grid, exhaustive walk, names. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "estimator/stack.h"
#include "search/grid.h"
#include "search/heuristics.h"

#define L_(...) search_list_of((int[]){__VA_ARGS__}, sizeof((int[]){__VA_ARGS__}) / sizeof(int))

static int list_eq(const search_int_list *l, const int *v, int n)
{
    if (l->n != n) return 0;
    for (int i = 0; i < n; i++)
        if (l->v[i] != v[i]) return 0;
    return 1;
}
#define CHECK_LIST(l, ...)                                                                        \
    do {                                                                                          \
        int e_[] = {__VA_ARGS__};                                                                 \
        int ok_ = list_eq(&(l), e_, (int)(sizeof e_ / sizeof e_[0]));                             \
        if (!ok_) {                                                                               \
            printf("  list %s = [", #l);                                                          \
            for (int i_ = 0; i_ < (l).n; i_++) printf("%s%d", i_ ? "," : "", (l).v[i_]);          \
            printf("]\n");                                                                        \
        }                                                                                         \
        CHECK(ok_);                                                                               \
    } while (0)

/* ---- §9.5 ------------------------------------------------------------------ */

typedef struct {
    search_family f;
    double size;
    int layers, seq;
    int tp[8], ntp, pp[8], npp, mbs[8], nmbs, min, max;
} case95;

static void test_reference_9_5(void)
{
    static const case95 C[] = {
        {SEARCH_GPT3, 0.126, 12, 2048, {1, 2}, 2, {1}, 1, {1, 2, 3, 4, 6, 8}, 6, 1, 8},
        {SEARCH_GPT3, 0.126, 12, 8192, {1, 2}, 2, {1, 2}, 2, {1, 2, 4}, 3, 1, 8},
        {SEARCH_GPT3, 0.843, 12, 2048, {1, 2}, 2, {1}, 1, {1, 2, 3, 4, 6, 8}, 6, 1, 8},
        {SEARCH_GPT3, 0.843, 12, 16384, {2, 4}, 2, {1}, 1, {1, 2}, 2, 1, 8},
        {SEARCH_GPT3, 0.843, 12, 32768, {2, 4}, 2, {1, 2}, 2, {1}, 1, 1, 8},
        {SEARCH_GPT3, 2, 12, 2048, {1, 2, 4}, 3, {1}, 1, {1, 2, 3, 4, 6, 8}, 6, 1, 8},
        {SEARCH_GPT3, 2, 12, 8192, {1, 2, 4}, 3, {1, 2}, 2, {1, 2, 4}, 3, 1, 8},
        {SEARCH_GPT3, 2.5, 24, 2048, {1, 2, 4}, 3, {1}, 1, {1, 2, 3, 4, 6, 8}, 6, 1, 8},
        {SEARCH_GPT3, 5.0, 24, 2048, {1, 2, 4}, 3, {1}, 1, {1, 2, 3, 4, 6, 8}, 6, 1, 8},
        {SEARCH_GPT3, 5.0, 24, 16384, {2, 4}, 2, {1, 2}, 2, {1}, 1, 1, 8},
        {SEARCH_GPT3, 8.0, 24, 4096, {1, 2, 4}, 3, {1, 2}, 2, {1, 2, 4}, 3, 1, 8},
        {SEARCH_GPT3, 10.0, 24, 2048, {1, 2, 4, 8}, 4, {1}, 1, {1, 2, 3, 4, 6, 8}, 6, 1, 8},
        {SEARCH_GPT3, 10.0, 24, 32768, {4, 8}, 2, {1, 2}, 2, {1}, 1, 4, 16},
        {SEARCH_GPT3, 20.0, 44, 2048, {1, 2, 4}, 3, {1, 2, 4}, 3, {1, 2, 4}, 3, 4, 8},
        {SEARCH_GPT3, 20.0, 44, 8192, {4, 8}, 2, {1, 2, 4}, 3, {1}, 1, 8, 32},
        {SEARCH_GPT3, 43.0, 52, 2048, {2, 4, 8}, 3, {1, 2, 4}, 3, {1, 2, 4}, 3, 8, 32},
        {SEARCH_GPT3, 43.0, 52, 4096, {4, 8}, 2, {2, 4}, 2, {1, 2}, 2, 8, 32},
        {SEARCH_GPT3, 175.0, 96, 2048, {8}, 1, {4, 6, 8, 12, 16}, 5, {1, 2, 4}, 3, 32, 256},
        {SEARCH_T5, 0.22, 12, 512, {1, 2}, 2, {1}, 1, {16, 32, 64, 128}, 4, 1, 8},
        {SEARCH_T5, 3.0, 24, 512, {1, 2, 4}, 3, {1}, 1, {4, 6, 8, 12, 16, 24, 32, 48}, 8, 1, 8},
        {SEARCH_T5, 11.0, 24, 512, {4, 8}, 2, {1}, 1, {2, 4, 6, 8, 12, 16, 24}, 7, 1, 8},
        {SEARCH_T5, 23.0, 36, 512, {4, 8}, 2, {1, 2}, 2, {1, 2, 4, 6, 8}, 5, 4, 16},
        {SEARCH_T5, 41.0, 48, 512, {4, 8}, 2, {1, 2, 4}, 3, {1, 2, 4, 6, 8}, 5, 8, 32},
        {SEARCH_MT5, 0.17, 6, 512, {1, 2}, 2, {1}, 1, {16, 32, 64, 128}, 4, 1, 8},
        {SEARCH_MT5, 0.39, 12, 512, {1, 2}, 2, {1}, 1, {16, 32, 64, 128}, 4, 1, 8},
        {SEARCH_MT5, 3.2, 24, 512, {1, 2, 4}, 3, {1}, 1, {4, 6, 8, 12, 16, 24, 32, 48}, 8, 1, 8},
        {SEARCH_MT5, 11.9, 24, 512, {4, 8}, 2, {1}, 1, {2, 4, 6, 8, 12, 16, 24}, 7, 1, 8},
        {SEARCH_MT5, 24.65, 36, 512, {4, 8}, 2, {1, 2}, 2, {1, 2, 4, 6, 8}, 5, 4, 16},
        {SEARCH_MT5, 42.54, 48, 512, {4, 8}, 2, {1, 2, 4}, 3, {1, 2, 4, 6, 8}, 5, 8, 32},
        {SEARCH_BERT, 0.11, 12, 512, {1, 2}, 2, {1}, 1, {1, 2, 3, 4, 6, 8}, 6, 1, 8},
        {SEARCH_BERT, 2.5, 24, 512, {1, 2, 4}, 3, {1}, 1, {1, 2, 3, 4, 6, 8}, 6, 1, 8},
        {SEARCH_BERT, 5.0, 24, 512, {2, 4, 8}, 3, {1}, 1, {1, 2, 3, 4, 6, 8}, 6, 2, 8},
        {SEARCH_BERT, 10.0, 24, 512, {2, 4, 8}, 3, {1}, 1, {1, 2, 3, 4, 6}, 5, 2, 8},
        {SEARCH_BERT, 20.0, 48, 512, {4, 8}, 2, {1}, 1, {1, 2, 3, 4}, 4, 4, 8},
    };
    for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
        search_lists l;
        ac_err e;
        int rc = search_heuristic_lists(C[i].f, C[i].size, C[i].seq, 80, C[i].layers, &l, &e);
        CHECK_INT(rc, 0);
        int ok = list_eq(&l.tp, C[i].tp, C[i].ntp) && list_eq(&l.pp, C[i].pp, C[i].npp) &&
                 list_eq(&l.mbs, C[i].mbs, C[i].nmbs) && l.min_mp == C[i].min && l.max_mp == C[i].max;
        if (!ok) printf("  case %zu (%s %g L%d s%d) differs\n", i, search_family_name(C[i].f), C[i].size,
                        C[i].layers, C[i].seq);
        CHECK(ok);
    }
    /* Override cases: lists come back exactly as given, odd values included. */
    static const struct {
        search_family f;
        double size;
        int layers, seq;
        bool minmax_given;
    } O[] = {{SEARCH_GPT3, 0.126, 12, 2048, true},
             {SEARCH_T5, 0.22, 12, 512, false},
             {SEARCH_MT5, 0.17, 6, 512, false},
             {SEARCH_BERT, 0.11, 12, 512, false}};
    for (size_t i = 0; i < sizeof O / sizeof O[0]; i++) {
        search_lists l;
        ac_err e;
        search_int_list tp = L_(1, 2, 4, 5), pp = L_(2, 4, 8), mbs = L_(4, 8, 32);
        search_int_auto mn = {!O[i].minmax_given, 1}, mx = {!O[i].minmax_given, 32};
        CHECK_INT(search_heuristic_lists(O[i].f, O[i].size, O[i].seq, 80, O[i].layers, &l, &e), 0);
        CHECK_INT(search_apply_overrides(&l, &tp, &pp, &mbs, &mn, &mx, &e), 0);
        CHECK_LIST(l.tp, 1, 2, 4, 5);
        CHECK_LIST(l.pp, 2, 4, 8);
        CHECK_LIST(l.mbs, 4, 8, 32);
        CHECK_INT(l.min_mp, 1);
        CHECK_INT(l.max_mp, O[i].minmax_given ? 32 : 8);
    }
}

static void test_valid_pp_and_tables(void)
{
    int v[64];
    int n = search_valid_pp(SEARCH_T5, 24, v, 64);
    search_int_list l = search_list_of(v, n);
    CHECK_LIST(l, 1, 2, 4, 6, 8, 12, 16, 24, 48);
    n = search_valid_pp(SEARCH_GPT3, 12, v, 64);
    l = search_list_of(v, n);
    CHECK_LIST(l, 1, 2, 3, 4, 6, 12);
    n = search_valid_pp(SEARCH_BERT, 4, v, 64);
    l = search_list_of(v, n);
    CHECK_LIST(l, 1, 1, 2, 4); /* BERT's duplicated 1 (its tables never use valid_pp) */
    /* 40 GB tables; memory ≤ 48 GB selects them */
    search_lists s;
    ac_err e;
    CHECK_INT(search_heuristic_lists(SEARCH_GPT3, 5.0, 2048, 48, 24, &s, &e), 0);
    CHECK_LIST(s.tp, 2, 4, 8);
    CHECK_LIST(s.pp, 1, 2);
    CHECK_INT(s.min_mp, 2);
    CHECK_INT(search_heuristic_lists(SEARCH_GPT3, 20.0, 2048, 40, 44, &s, &e), 0);
    CHECK_LIST(s.mbs, 1, 2, 4, 6, 8, 10, 12, 16); /* default mbs kept */
    CHECK_LIST(s.pp, 1, 2, 4);                    /* [1..8] ∩ divisors of 44 */
    CHECK_INT(search_heuristic_lists(SEARCH_LLAMA, 5.0, 2048, 96, 24, &s, &e), 0);
    CHECK_LIST(s.tp, 1, 2, 4); /* llama uses the GPT-3 80 GB table */
    /* above the last row: GPT keeps the defaults, BERT is an error */
    CHECK_INT(search_heuristic_lists(SEARCH_GPT3, 2000.0, 2048, 80, 128, &s, &e), 0);
    CHECK_LIST(s.tp, 1, 2, 4, 8);
    CHECK_INT(search_heuristic_lists(SEARCH_BERT, 300.0, 512, 80, 96, &s, &e), -1);
    CHECK_INT(e.code, AC_E_INPUT);
    CHECK_INT(search_heuristic_lists(SEARCH_BERT, 100.0, 512, 40, 96, &s, &e), 0);
    CHECK_LIST(s.pp, 4, 6, 8, 16); /* literal: not intersected with valid_pp */
}

/* ---- §4.3 ------------------------------------------------------------------ */

static void test_act_examples(void)
{
    search_act_params *p = malloc(sizeof *p);
    ac_err e;
    /* gpt3 forced to block, 20 B L44 pp2: act_multiple 16//2 = 8 */
    CHECK_INT(search_act_params_for(SEARCH_GPT3, 44, 2, -1, 20.0, SEARCH_ACT_BLOCK, p, &e), 0);
    CHECK_INT(p->vp, 0);
    CHECK(p->n_act == 3 && p->act[0] == 0 && p->act[1] == 8 && p->act[2] == 16);
    CHECK(p->n_mbs_act == 3 && p->mbs_act[0] == 1 && p->mbs_act[1] == 1 && p->mbs_act[2] == 2);
    CHECK(p->n_per_pipe == 6 && p->per_pipe[0] == 0 && p->per_pipe[5] == 40);
    /* pp 4 → VP 11, act [0,1], micro-batches [1], per pipe [0] */
    CHECK_INT(search_act_params_for(SEARCH_GPT3, 44, 4, -1, 20.0, SEARCH_ACT_BLOCK, p, &e), 0);
    CHECK_INT(p->vp, 11);
    CHECK(p->n_act == 2 && p->act[0] == 0 && p->act[1] == 1);
    CHECK(p->n_mbs_act == 1 && p->mbs_act[0] == 1);
    CHECK(p->n_per_pipe == 1 && p->per_pipe[0] == 0);
    /* 175 B L96 pp8 → VP 12, act [0,1], micro-batches [1,96], per pipe [0] */
    CHECK_INT(search_act_params_for(SEARCH_GPT3, 96, 8, -1, 175.0, SEARCH_ACT_BLOCK, p, &e), 0);
    CHECK_INT(p->vp, 12);
    CHECK(p->n_act == 2 && p->act[1] == 1);
    CHECK(p->n_mbs_act == 2 && p->mbs_act[0] == 1 && p->mbs_act[1] == 96);
    CHECK(p->n_per_pipe == 1 && p->per_pipe[0] == 0);
    /* VP is set for pp > 2 even without block (quirk 5, kept) */
    CHECK_INT(search_act_params_for(SEARCH_GPT3, 96, 4, -1, 175.0, SEARCH_ACT_NONE, p, &e), 0);
    CHECK_INT(p->vp, 24);
    CHECK_INT(p->n_act, 0);
    /* T5 100 B L48 */
    static const struct {
        int pp, n, v[8];
    } T[] = {{4, 4, {0, 8, 16, 24}},
             {6, 4, {0, 5, 10, 15}},
             {8, 4, {0, 4, 8, 12}},
             {12, 5, {0, 2, 4, 6, 8}},
             {16, 4, {0, 2, 4, 6}}};
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
        CHECK_INT(search_act_params_for(SEARCH_T5, 48, T[i].pp, -1, 100.0, SEARCH_ACT_BLOCK, p, &e), 0);
        CHECK_INT(p->vp, 0);
        CHECK_INT(p->n_act, T[i].n);
        for (int k = 0; k < T[i].n && k < p->n_act; k++) CHECK_INT(p->act[k], T[i].v[k]);
        CHECK_INT(p->n_mbs_act, 0); /* T5: [None] */
        CHECK_INT(p->n_per_pipe, 0);
    }
    /* t5 0.22 B pp 1 → 0, 4, …, 24 */
    CHECK_INT(search_act_params_for(SEARCH_T5, 12, 1, -1, 0.22, SEARCH_ACT_BLOCK, p, &e), 0);
    CHECK_INT(p->n_act, 7);
    for (int k = 0; k < 7 && k < p->n_act; k++) CHECK_INT(p->act[k], 4 * k);
    free(p);
}

/* ---- presets ---------------------------------------------------------------- */

typedef struct {
    search_family f;
    const char *size_text;
    double size;
    int layers, heads, seq, nodes, gbs80, gbs40;
} preset;

/* Layers/heads from §9.1 (calculate_model_size_params); T5 100B/203B and mT5
 * 101.6B/206B: L = 48 by the §3.5 layer search (h 7680/12288, A 96, kv 128),
 * computed by hand for this test — the model module produces the real ones.
 * GBS from the §3.2 tables (80 GB / 40 GB). */
static const preset PRESETS[] = {
    {SEARCH_GPT3, "0.126", 0.126, 12, 12, 2048, 8, 256, 256},
    {SEARCH_GPT3, "0.843", 0.843, 26, 16, 2048, 8, 256, 256},
    {SEARCH_GPT3, "2", 2, 24, 32, 2048, 8, 1024, 1024},
    {SEARCH_GPT3, "5", 5, 24, 32, 2048, 16, 2048, 2048},
    {SEARCH_GPT3, "8", 8, 24, 40, 2048, 16, 2048, 2048},
    {SEARCH_GPT3, "20", 20, 44, 48, 2048, 64, 2048, 2048},
    {SEARCH_GPT3, "43", 43, 52, 64, 2048, 128, 2048, 2048},
    {SEARCH_GPT3, "175", 175, 96, 96, 2048, 128, 2048, 2048},
    {SEARCH_T5, "0.22", 0.22, 12, 12, 512, 4, 2048, 2048},
    {SEARCH_T5, "2.8", 2.8, 24, 32, 512, 20, 1920, 1920},
    {SEARCH_T5, "11", 11, 24, 64, 512, 20, 1920, 1920},
    {SEARCH_T5, "23.5", 23.5, 36, 80, 512, 40, 1920, 1920},
    {SEARCH_T5, "41.2", 41.2, 48, 96, 512, 40, 1920, 1920},
    {SEARCH_T5, "100", 100, 48, 96, 512, 80, 1920, 1920},
    {SEARCH_T5, "203", 203, 48, 96, 512, 128, 1920, 1920},
    {SEARCH_MT5, "0.17", 0.17, 8, 6, 512, 4, 2048, 2048},
    {SEARCH_MT5, "0.39", 0.39, 12, 12, 512, 8, 2048, 2048},
    {SEARCH_MT5, "3.2", 3.2, 24, 32, 512, 20, 1920, 1920},
    {SEARCH_MT5, "11.9", 11.9, 24, 64, 512, 20, 1920, 1920},
    {SEARCH_MT5, "24.65", 24.65, 36, 80, 512, 40, 1920, 1920},
    {SEARCH_MT5, "42.54", 42.54, 48, 96, 512, 40, 1920, 1920},
    {SEARCH_MT5, "101.6", 101.6, 48, 96, 512, 80, 1920, 1920},
    {SEARCH_MT5, "206", 206, 48, 96, 512, 128, 1920, 1920},
    {SEARCH_BERT, "0.11", 0.11, 12, 12, 512, 8, 256, 256},
    {SEARCH_BERT, "4", 4, 48, 32, 512, 16, 2048, 2048},
    {SEARCH_BERT, "20", 20, 44, 48, 512, 64, 2048, 2048},
    {SEARCH_BERT, "100", 100, 96, 96, 512, 128, 4096, 2048},
};

static void preset_inputs(const preset *p, int mem, search_inputs *in)
{
    search_inputs_init(in);
    in->family = p->f;
    in->size_b = p->size;
    in->shape.arch = p->f == SEARCH_T5 || p->f == SEARCH_MT5 ? ARCH_ENCODER_DECODER
                     : p->f == SEARCH_BERT                   ? ARCH_ENCODER
                                                             : ARCH_DECODER;
    in->shape.num_layers = p->layers;
    in->shape.heads = in->shape.query_groups = p->heads;
    in->shape.seq_length = p->seq;
    in->gpu_mem_gb = mem;
    in->num_nodes = p->nodes;
    in->gpus_per_node = 8;
    in->base_gbs = mem == 80 ? p->gbs80 : p->gbs40;
    /* templates: T5/mT5 full/block, GPT-3/BERT null (§3.6) */
    bool t5 = p->f == SEARCH_T5 || p->f == SEARCH_MT5;
    in->act_method = t5 ? SEARCH_ACT_BLOCK : SEARCH_ACT_NONE;
    in->base_recompute = t5 ? SEARCH_RC_FULL : SEARCH_RC_NONE;
    in->base_sequence_parallel = !(p->f == SEARCH_GPT3 && p->size <= 13.0);
    in->original_only = true;
}

/* Independent re-derivation of the original's grid (with our integer fixes):
 * pairs kept by rules (1)–(4) with N = nodes·8, then per pair the number of
 * mbs with GBS % (mbs·DP) == 0 times the number of act values (T5 block:
 * range(0, 2L/pp + 1, step) with step = max(k // pp, 1), k by size, values
 * rounded down to even and repeats dropped; otherwise one). */
typedef struct {
    int n_pairs, tp[64], pp[64];
    long count;
} derived;

static int t5_act_count(double size, int L, int pp)
{
    int k = size >= 60.0 ? 32 : size >= 11.3 ? 16 : size >= 1.0 ? 8 : 4;
    int step = k / pp > 0 ? k / pp : 1, n = 0, last = -1;
    for (int a = 0; a <= 2 * L / pp; a += step) {
        int w = a / 2 * 2; /* ascending list: a repeat can only equal the previous one */
        if (w != last) n++;
        last = w;
    }
    return n;
}

static derived derive(const preset *p, int mem)
{
    derived d = {0};
    search_lists l;
    ac_err e;
    search_heuristic_lists(p->f, p->size, p->seq, mem, p->layers, &l, &e);
    int mult = (p->f == SEARCH_T5 || p->f == SEARCH_MT5) ? 2 : 1;
    long n = (long)p->nodes * 8, gbs = mem == 80 ? p->gbs80 : p->gbs40;
    for (int a = 0; a < l.tp.n; a++)
        for (int b = 0; b < l.pp.n; b++) {
            int tp = l.tp.v[a], pp = l.pp.v[b];
            if (p->heads % tp || (mult * p->layers) % pp || tp * pp < l.min_mp || tp * pp > l.max_mp) continue;
            if (n % (tp * pp)) continue;
            long dp = n / (tp * pp);
            int ok = 0;
            for (int m = 0; m < l.mbs.n; m++) ok += gbs % (l.mbs.v[m] * dp) == 0;
            if (!ok) continue;
            int dup = 0;
            for (int k = 0; k < d.n_pairs; k++) dup |= d.tp[k] == tp && d.pp[k] == pp;
            if (dup) continue;
            d.tp[d.n_pairs] = tp, d.pp[d.n_pairs++] = pp;
            d.count += (long)ok * (mult == 2 ? t5_act_count(p->size, p->layers, pp) : 1);
        }
    return d;
}

static int rules_ok(const search_inputs *in, const search_candidate *c)
{
    int mult = (in->family == SEARCH_T5 || in->family == SEARCH_MT5) ? 2 : 1;
    long n = (long)in->num_nodes * in->gpus_per_node;
    long split = (long)c->tp * c->pp * c->cp;
    if (in->shape.heads % c->tp || (mult * in->shape.num_layers) % c->pp) return 0;
    if (n % split || n / split != c->dp) return 0;
    if (c->gbs % ((long)c->mbs * c->dp)) return 0;
    if (c->cp > 1 && c->ep > 1) return 0;
    if (c->vp > 0 && (mult != 1 || c->pp < 2 || (in->shape.num_layers / c->pp) % c->vp)) return 0;
    if (mult == 2 && c->act_ckpt_layers >= 0 && c->act_ckpt_layers % 2) return 0;
    return 1;
}

static long long preset_total_80, preset_total_40;

static void test_presets(void)
{
    for (size_t i = 0; i < sizeof PRESETS / sizeof PRESETS[0]; i++)
        for (int mem = 40; mem <= 80; mem += 40) {
            const preset *p = &PRESETS[i];
            search_inputs in;
            preset_inputs(p, mem, &in);
            search_grid g;
            ac_err e;
            int rc = search_grid_build(&in, &g, &e);
            if (rc) printf("  %s %s %dGB: %s\n", search_family_name(p->f), p->size_text, mem, e.msg);
            CHECK_INT(rc, 0);
            derived d = derive(p, mem);
            CHECK_INT(g.n, d.count);
            CHECK_INT(g.n_tuples, d.n_pairs);
            for (int k = 0; k < d.n_pairs && k < (int)g.n_tuples; k++) {
                CHECK_INT(g.tuples[k].tp, d.tp[k]);
                CHECK_INT(g.tuples[k].pp, d.pp[k]);
            }
            CHECK(g.n > 0);
            CHECK_INT(g.n_original, g.n);
            printf("  preset %-5s %-6s %2d GB: %3zu (tp,pp) pairs, %4zu candidates\n",
                   search_family_name(p->f), p->size_text, mem, g.n_tuples, g.n);
            if (mem == 80) preset_total_80 += (long long)g.n;
            else preset_total_40 += (long long)g.n;
            /* invariants: rules hold, names unique, bucket order */
            char (*names)[256] = malloc(g.n * sizeof *names);
            for (size_t k = 0; k < g.n; k++) {
                const search_candidate *c = &g.items[k];
                CHECK(rules_ok(&in, c));
                CHECK(search_candidate_name(c, search_family_name(p->f), p->size_text, p->nodes,
                                            names[k], sizeof names[k]) > 0);
                if (k) CHECK(g.items[k - 1].bucket <= c->bucket);
                CHECK(c->vp == search_original_vp(p->f, p->layers, c->pp));
            }
            for (size_t a = 0; a < g.n; a++)
                for (size_t b = a + 1; b < g.n; b++)
                    if (!strcmp(names[a], names[b])) {
                        printf("  duplicate %s\n", names[a]);
                        CHECK(0);
                        a = b = g.n;
                    }
            free(names);
            search_grid_free(&g);
        }
}

/* Hand-derived expectations for four presets (80 and 40 GB). */
static void expect_pairs(const preset *p, int mem, const int (*pairs)[2], int np, long count)
{
    search_inputs in;
    preset_inputs(p, mem, &in);
    search_grid g;
    ac_err e;
    CHECK_INT(search_grid_build(&in, &g, &e), 0);
    CHECK_INT(g.n_tuples, np);
    for (int k = 0; k < np && k < (int)g.n_tuples; k++) {
        CHECK_INT(g.tuples[k].tp, pairs[k][0]);
        CHECK_INT(g.tuples[k].pp, pairs[k][1]);
    }
    CHECK_INT(g.n, count);
    search_grid_free(&g);
}

static const preset *find_preset(search_family f, const char *size)
{
    for (size_t i = 0; i < sizeof PRESETS / sizeof PRESETS[0]; i++)
        if (PRESETS[i].f == f && !strcmp(PRESETS[i].size_text, size)) return &PRESETS[i];
    return NULL;
}

static void test_presets_by_hand(void)
{
    /* gpt3 5b, 16 nodes → N 128, GBS 2048, A 32, L 24.
     * 80 GB row ≤8.0: tp [1,2,4], pp [1], mbs [1,2,3,4,6,8], mp 1..8.
     *   DP = 128, 64, 32; GBS % (mbs·DP) == 0 for mbs 1,2,4,8 (3, 6 never divide 2048)
     *   → 3 pairs × 4 = 12.
     * 40 GB row ≤8.0: tp [2,4,8], pp literal [1,2], mbs [1,2,4], mp 2..8.
     *   (2,1) (2,2) (4,1) (4,2) (8,1) kept; (8,2) has TP·PP 16 > 8 → 5 × 3 = 15. */
    const preset *p = find_preset(SEARCH_GPT3, "5");
    expect_pairs(p, 80, (const int[][2]){{1, 1}, {2, 1}, {4, 1}}, 3, 12);
    expect_pairs(p, 40, (const int[][2]){{2, 1}, {2, 2}, {4, 1}, {4, 2}, {8, 1}}, 5, 15);
    /* gpt3 175b, 128 nodes → N 1024, GBS 2048, L 96 (divisors 1,2,3,4,6,8,12,16,24,32,48,96).
     * 80 GB row ≤195: tp [8], pp [4..16] = [4,6,8,12,16], mbs [1,2,4], mp 32..256.
     *   (8,6) and (8,12): 1024/48 and 1024/96 are not integers (gpus rule) → dropped;
     *   (8,4) DP 32, (8,8) DP 16, (8,16) DP 8: all of mbs 1,2,4 divide → 3 × 3 = 9
     *   (VP 24/12/6 written, act None).
     * 40 GB row ≤195: tp [4,8], pp [2..32] = [2,3,4,6,8,12,16,24,32], mbs [1,2], mp 64..1024.
     *   tp 4 needs pp ≥ 16: 16 (DP 16), 24 (1024/96 ✗), 32 (DP 8);
     *   tp 8 needs pp ≥ 8: 8 (DP 16), 12 ✗, 16 (DP 8), 24 ✗, 32 (DP 4) → 5 × 2 = 10. */
    p = find_preset(SEARCH_GPT3, "175");
    expect_pairs(p, 80, (const int[][2]){{8, 4}, {8, 8}, {8, 16}}, 3, 9);
    expect_pairs(p, 40, (const int[][2]){{4, 16}, {4, 32}, {8, 8}, {8, 16}, {8, 32}}, 5, 10);
    /* t5 11b, 20 nodes → N 160, GBS 1920, A 64, L 24 (valid_pp 1,2,4,6,8,12,16,24,48).
     * 80 GB row ≤14.5: tp [4,8], pp [1], mbs [2,4,6,8,12,16,24], mp 1..8.
     *   DP 40 / 20: every mbs divides (1920 = 2^7·3·5) → 2 × 7 mbs;
     *   act (block, size 11 → 8 // 1 = 8): 0,8,…,48 = 7 values → 2·7·7 = 98.
     * 40 GB row ≤14.5: tp [4,8], pp [1..2] = [1,2], mbs [2,4,6,8,12,16], mp 4..16.
     *   all four pairs kept (DP 40, 20, 20, 10; every mbs divides) → 4 × 6 mbs;
     *   act pp1: 0..48 step 8 (7), pp2: 0..24 step 4 (7) → 4·6·7 = 168. */
    p = find_preset(SEARCH_T5, "11");
    expect_pairs(p, 80, (const int[][2]){{4, 1}, {8, 1}}, 2, 98);
    expect_pairs(p, 40, (const int[][2]){{4, 1}, {4, 2}, {8, 1}, {8, 2}}, 4, 168);
    /* bert 4b, 16 nodes → N 128, GBS 2048, A 32, L 48.
     * 80 GB row ≤4.0: tp [1,2,4], pp [1], mbs [1,2,3,4,6,8] → mbs 1,2,4,8 → 3 × 4 = 12.
     * 40 GB row ≤4.0: tp [1,2,4,8], pp [1], mbs [1,2,4,6,8] → mbs 1,2,4,8 → 4 × 4 = 16. */
    p = find_preset(SEARCH_BERT, "4");
    expect_pairs(p, 80, (const int[][2]){{1, 1}, {2, 1}, {4, 1}}, 3, 12);
    expect_pairs(p, 40, (const int[][2]){{1, 1}, {2, 1}, {4, 1}, {8, 1}}, 4, 16);
}

/* ---- overrides ------------------------------------------------------------- */

static search_inputs small_gpt(void)
{
    search_inputs in;
    search_inputs_init(&in);
    in.family = SEARCH_GPT3;
    in.size_b = 5;
    in.shape.arch = ARCH_DECODER;
    in.shape.num_layers = 24;
    in.shape.heads = in.shape.query_groups = 32;
    in.shape.seq_length = 2048;
    in.num_nodes = 16;
    in.base_gbs = 2048;
    in.original_only = true;
    return in;
}

static void test_overrides(void)
{
    search_grid g;
    ac_err e;
    search_inputs in = small_gpt();
    /* tp list replaces the heuristic; odd values are kept and then fail the rules */
    in.tp = L_(2, 5);
    CHECK_INT(search_grid_build(&in, &g, &e), 0);
    CHECK_LIST(g.lists.tp, 2, 5);
    CHECK_INT(g.n_tuples, 1);
    CHECK(g.tuple_rejected[SEARCH_RULE_HEADS] > 0);
    search_grid_free(&g);
    /* only a bad TP: the message names the heads rule */
    in.tp = L_(3);
    CHECK_INT(search_grid_build(&in, &g, &e), -1);
    CHECK_INT(e.code, AC_E_INPUT);
    CHECK_CONTAINS(e.msg, "TP does not divide 32 attention heads for every TP in [3]");
    CHECK_STR(e.key, "tensor_parallel_sizes");
    /* min/max */
    in = small_gpt();
    in.min_mp = (search_int_auto){false, 16};
    CHECK_INT(search_grid_build(&in, &g, &e), -1);
    CHECK_CONTAINS(e.msg, "no (TP, PP) has min_model_parallel_size 16 ≤ TP·PP ≤ 8");
    in.min_mp = (search_int_auto){false, 2};
    in.max_mp = (search_int_auto){false, 2};
    CHECK_INT(search_grid_build(&in, &g, &e), 0);
    CHECK_INT(g.n_tuples, 1);
    CHECK_INT(g.tuples[0].tp, 2);
    search_grid_free(&g);
    /* pp list: PP 5 does not divide 24 layers */
    in = small_gpt();
    in.pp = L_(5);
    CHECK_INT(search_grid_build(&in, &g, &e), -1);
    CHECK_CONTAINS(e.msg, "PP does not divide 24 layers for every PP in [5]");
    /* mbs list used as given */
    in = small_gpt();
    in.mbs = L_(3, 16);
    CHECK_INT(search_grid_build(&in, &g, &e), 0);
    CHECK_INT(g.n, 3); /* mbs 16 with DP 128/64/32: 2048 % 2048/1024/512 == 0; 3 never */
    for (size_t k = 0; k < g.n; k++) CHECK_INT(g.items[k].mbs, 16);
    search_grid_free(&g);
    in.mbs = L_(3);
    CHECK_INT(search_grid_build(&in, &g, &e), -1);
    CHECK_CONTAINS(e.msg, "global batch size [2048] is not a multiple of MBS·DP for any MBS in [3]");
    /* quirk 6: an mbs larger than multiplier·L (bucket index) does not crash */
    in.mbs = L_(32, 1);
    in.tp = L_(4);
    CHECK_INT(search_grid_build(&in, &g, &e), 0);
    CHECK_INT(g.n, 2);
    CHECK_INT(g.items[0].mbs, 1); /* bucket order: mbs 1 first */
    CHECK_INT(g.items[1].mbs, 32);
    search_grid_free(&g);
    /* act_ckpt_layers override: ignored without block, used with block */
    in = small_gpt();
    in.act_ckpt_layers = L_(0, 3);
    CHECK_INT(search_grid_build(&in, &g, &e), 0);
    CHECK_INT(g.n, 12);
    CHECK_INT(g.items[0].act_ckpt_layers, -1);
    search_grid_free(&g);
    in.act_method = SEARCH_ACT_BLOCK;
    CHECK_INT(search_grid_build(&in, &g, &e), 0);
    CHECK_INT(g.n, 24);
    CHECK_INT(g.items[0].act_ckpt_layers, 0);
    CHECK_INT(g.items[g.n - 1].act_ckpt_layers, 3);
    search_grid_free(&g);
    /* empty or non-positive lists are input errors naming the key */
    in = small_gpt();
    in.tp.is_auto = false, in.tp.n = 0;
    CHECK_INT(search_grid_build(&in, &g, &e), -1);
    CHECK_STR(e.key, "tensor_parallel_sizes");
    in = small_gpt();
    in.mbs = L_(0);
    CHECK_INT(search_grid_build(&in, &g, &e), -1);
    CHECK_STR(e.key, "micro_batch_sizes");
}

static void test_extension_lists(void)
{
    search_grid g;
    ac_err e;
    search_inputs in = small_gpt();
    in.original_only = false;
    in.base_sequence_parallel = true;
    /* cp list: [1, 2]; cp 2 is extended-only and named with _cp_2_ep_1 */
    in.cp = L_(1, 2);
    CHECK_INT(search_grid_build(&in, &g, &e), 0);
    CHECK_INT(g.n_original, 12);
    CHECK(g.n > 12);
    char name[256];
    int saw_cp2 = 0;
    for (size_t k = 0; k < g.n; k++) {
        const search_candidate *c = &g.items[k];
        CHECK(c->cp == 1 || c->cp == 2);
        CHECK_INT(c->dp * c->tp * c->pp * c->cp, 128);
        if (c->cp == 2) {
            saw_cp2 = 1;
            CHECK(!c->in_original);
            search_candidate_name(c, "gpt3", "5", 16, name, sizeof name);
            CHECK_CONTAINS(name, "_pp_1_cp_2_ep_1_mbs_");
        }
    }
    CHECK(saw_cp2);
    search_grid_free(&g);
    /* cp 2 with seq 2050 (2·cp ∤ seq) only: the cp_seq rule removes all */
    in.cp = L_(2);
    in.shape.seq_length = 2050;
    CHECK_INT(search_grid_build(&in, &g, &e), -1);
    CHECK_CONTAINS(e.msg, "2·CP does not divide seq_length 2050");
    /* ep on a dense model: the ep rule removes all */
    in = small_gpt();
    in.ep = L_(2);
    CHECK_INT(search_grid_build(&in, &g, &e), -1);
    CHECK_CONTAINS(e.msg, "EP does not divide num_experts");
    /* MoE: EP must divide experts; CP and EP never both > 1 */
    in = small_gpt();
    in.family = SEARCH_MIXTRAL;
    in.shape.num_experts = 8;
    in.original_only = false;
    in.cp = L_(1, 2);
    in.ep = L_(1, 2, 3);
    CHECK_INT(search_grid_build(&in, &g, &e), 0);
    for (size_t k = 0; k < g.n; k++) {
        CHECK(!(g.items[k].cp > 1 && g.items[k].ep > 1));
        CHECK(g.items[k].ep != 3);
    }
    CHECK(g.tuple_rejected[SEARCH_RULE_CP_EP] > 0);
    search_grid_free(&g);
    in.cp = L_(2);
    in.ep = L_(2);
    CHECK_INT(search_grid_build(&in, &g, &e), -1);
    CHECK_CONTAINS(e.msg, "CP and EP are both > 1");
    /* vp list: 0 = none; 5 does not divide 24/4 */
    in = small_gpt();
    in.original_only = false;
    in.tp = L_(8);
    in.pp = L_(4);
    in.min_mp.is_auto = in.max_mp.is_auto = false;
    in.min_mp.value = 1, in.max_mp.value = 64;
    in.vp = L_(5);
    CHECK_INT(search_grid_build(&in, &g, &e), -1);
    CHECK_CONTAINS(e.msg, "no virtual pipeline size in [5]");
    in.vp = L_(0, 2, 6);
    CHECK_INT(search_grid_build(&in, &g, &e), 0);
    int seen[7] = {0};
    for (size_t k = 0; k < g.n; k++) {
        seen[g.items[k].vp]++;
        CHECK_INT(g.items[k].in_original, g.items[k].vp == 6); /* the original's VP = 24 // 4 */
    }
    CHECK(seen[0] > 0 && seen[2] > 0 && seen[6] > 0);
    search_grid_free(&g);
    /* sp auto with base off: both; rc list; do list; gbs list */
    in = small_gpt();
    in.original_only = false;
    in.base_sequence_parallel = false;
    CHECK_INT(search_grid_build(&in, &g, &e), 0);
    CHECK_INT(g.n, 12 + 8); /* tp 2 and 4 also get sp on */
    CHECK_INT(g.n_original, 12);
    search_grid_free(&g);
    in.sequence_parallel = L_(1);
    in.recompute = L_(SEARCH_RC_SELECTIVE);
    in.distributed_optimizer = L_(0);
    in.gbs = L_(1024);
    CHECK_INT(search_grid_build(&in, &g, &e), 0);
    CHECK_INT(g.n_original, 0);
    for (size_t k = 0; k < g.n; k++) {
        const search_candidate *c = &g.items[k];
        CHECK_INT(c->gbs, 1024);
        CHECK_INT(c->recompute, SEARCH_RC_SELECTIVE);
        CHECK(!c->distributed_optimizer);
        CHECK_INT(c->sequence_parallel, c->tp > 1); /* at tp 1 SP keeps the base value */
    }
    search_candidate_name(&g.items[g.n - 1], "gpt3", "5", 16, name, sizeof name);
    CHECK_CONTAINS(name, "_rc_sel_do_0_gbs_1024");
    search_grid_free(&g);
    /* original_only with only extension values left */
    in = small_gpt();
    in.cp = L_(2);
    CHECK_INT(search_grid_build(&in, &g, &e), -1);
    CHECK_CONTAINS(e.msg, "original_only");
}

/* quirks 3, 4, 7 */
static void test_bug_fixes(void)
{
    search_grid g;
    ac_err e;
    /* quirk 4: 16 nodes × 4 GPUs = 64 GPUs, not 16 × 8 */
    search_inputs in = small_gpt();
    in.gpus_per_node = 4;
    CHECK_INT(search_grid_build(&in, &g, &e), 0);
    for (size_t k = 0; k < g.n; k++) CHECK_INT(g.items[k].dp * g.items[k].tp, 64);
    search_grid_free(&g);
    /* quirk 3: 3 nodes × 8 = 24 GPUs, tp 16 → DP 1.5 is never accepted */
    in = small_gpt();
    in.num_nodes = 3;
    in.base_gbs = 96;
    in.tp = L_(16);
    in.shape.heads = in.shape.query_groups = 64;
    in.max_mp.is_auto = false, in.max_mp.value = 16;
    in.mbs = L_(1, 2, 4);
    CHECK_INT(search_grid_build(&in, &g, &e), -1);
    CHECK_CONTAINS(e.msg, "does not divide the 24 GPUs");
    /* quirk 7: T5 100 B pp 6 act [0,5,10,15] → written per stack 0,2,5,7 → named 0,4,10,14 */
    in = small_gpt();
    in.family = SEARCH_T5;
    in.size_b = 100;
    in.shape.arch = ARCH_ENCODER_DECODER;
    in.shape.num_layers = 48;
    in.shape.heads = in.shape.query_groups = 96;
    in.shape.seq_length = 512;
    in.num_nodes = 6; /* 48 GPUs: tp 8 · pp 6 */
    in.base_gbs = 1920;
    in.act_method = SEARCH_ACT_BLOCK;
    in.base_recompute = SEARCH_RC_FULL;
    in.tp = L_(8);
    in.pp = L_(6);
    in.mbs = L_(1);
    in.min_mp.is_auto = false, in.min_mp.value = 1;
    CHECK_INT(search_grid_build(&in, &g, &e), 0);
    CHECK_INT(g.n, 4);
    int want[] = {0, 4, 10, 14};
    for (size_t k = 0; k < g.n && k < 4; k++) {
        CHECK_INT(g.items[k].act_ckpt_layers, want[k]);
        CHECK_INT(g.items[k].vp, 0);
    }
    char name[256];
    search_candidate_name(&g.items[1], "t5", "100", 6, name, sizeof name);
    CHECK_STR(name, "t5_100b_6nodes_tp_8_pp_6_mbs_1_act_ckpt_4_num_mbs_act_None_act_per_pipe_None");
    search_grid_free(&g);
    /* repeated num_mbs_act ([1, 1, 2] in the original) appears once */
    in = small_gpt();
    in.size_b = 20;
    in.shape.num_layers = 44;
    in.shape.heads = in.shape.query_groups = 48;
    in.num_nodes = 64;
    in.act_method = SEARCH_ACT_BLOCK;
    in.tp = L_(4);
    in.pp = L_(2);
    in.mbs = L_(1);
    CHECK_INT(search_grid_build(&in, &g, &e), 0);
    CHECK_INT(g.n, 3 * 2 * 6); /* act [0,8,16] × n [1,2] × per pipe [0..40 step 8] */
    search_grid_free(&g);
}

static void test_names(void)
{
    search_candidate c;
    memset(&c, 0, sizeof c);
    c.tp = 1, c.pp = 1, c.cp = 1, c.ep = 1, c.mbs = 1, c.gbs = 2048, c.dp = 128;
    c.act_ckpt_layers = c.num_mbs_act = c.act_per_pipe = -1;
    char buf[256];
    int n = search_candidate_name(&c, "gpt3", "5", 16, buf, sizeof buf);
    CHECK_STR(buf, "gpt3_5b_16nodes_tp_1_pp_1_mbs_1_act_ckpt_None_num_mbs_act_None_act_per_pipe_None");
    CHECK_INT(n, (int)strlen(buf));
    c.ext_mask = SEARCH_EXT_VP | SEARCH_EXT_SP;
    c.tp = 2, c.vp = 0, c.sequence_parallel = true;
    search_candidate_name(&c, "gpt3", "5", 16, buf, sizeof buf);
    CHECK_STR(buf, "gpt3_5b_16nodes_tp_2_pp_1_cp_1_ep_1_mbs_1_act_ckpt_None_num_mbs_act_None_"
                   "act_per_pipe_None_vp_None_sp_1");
    CHECK_INT(search_candidate_name(&c, "gpt3", "5", 16, buf, 10), -1);
    CHECK_INT(strlen(buf), 9);
}

/* ---- exhaustive ------------------------------------------------------------ */

typedef struct {
    const search_inputs *in;
    long bad, n, n_orig;
} ex_state;

static bool ex_only_dp; /* a candidate with TP, PP or CP > 1 is bad */

static int ex_cb(const search_candidate *c, void *u)
{
    ex_state *s = u;
    s->n++;
    s->n_orig += c->in_original;
    if (!rules_ok(s->in, c) || (ex_only_dp && (c->tp > 1 || c->pp > 1 || c->cp > 1))) s->bad++;
    return 0;
}

static int stop_cb(const search_candidate *c, void *u)
{
    (void)c;
    return ++*(long *)u >= 5;
}

typedef struct {
    long bad;
    bool tp2, pp2;
} partial_seen;

static int partial_cb(const search_candidate *k, void *u)
{
    partial_seen *ps = u;
    if (k->cp != 1 || k->vp != 0 || k->sequence_parallel) ps->bad++;
    ps->tp2 |= k->tp > 1;
    ps->pp2 |= k->pp > 1;
    return 0;
}

static void test_exhaustive(void)
{
    /* small GPT: L 8, A 8, 2 nodes × 4 GPUs = 8 GPUs, GBS 64, seq 2048, dense */
    search_inputs in;
    search_inputs_init(&in);
    in.family = SEARCH_GPT3;
    in.size_b = 0.1;
    in.shape.arch = ARCH_DECODER;
    in.shape.num_layers = 8;
    in.shape.heads = in.shape.query_groups = 8;
    in.shape.seq_length = 2048;
    in.num_nodes = 2;
    in.gpus_per_node = 4;
    in.base_gbs = 64;
    ex_state s = {&in, 0, 0, 0};
    long count = 0;
    ac_err e;
    CHECK_INT(search_exhaustive(&in, NULL, ex_cb, &s, &count, &e), 0);
    CHECK_INT(s.bad, 0);
    CHECK_INT(count, s.n);
    /* independent nested loops: tp | 8 and ≤ 4; pp | 8; cp ≤ 4, cp | 8, 2cp | 2048;
     * N % (tp·pp·cp) == 0; vp ∈ {none} ∪ {v ≥ 2 : v | 8/pp} (pp ≥ 2) ∪ {8//pp if pp > 2};
     * mbs ∈ {1,2,4,8,16} ∪ {3,6} (heuristic 0.1 B list [1,2,3,4,6,8], bound 16);
     * GBS 64 % (mbs·DP) == 0; sp 2 if tp > 1; rc 3; do 2 if DP > 1. */
    long want = 0;
    int mbs_list[] = {1, 2, 3, 4, 6, 8, 16};
    for (int tp = 1; tp <= 4; tp++)
        for (int pp = 1; pp <= 8; pp++)
            for (int cp = 1; cp <= 4; cp++) {
                if (8 % tp || 8 % pp || 8 % cp || 2048 % (2 * cp)) continue;
                if (8 % (tp * pp * cp)) continue;
                int dp = 8 / (tp * pp * cp);
                int nvp = 1; /* none */
                for (int v = 2; pp >= 2 && v <= 8 / pp; v++) nvp += (8 / pp) % v == 0;
                if (pp > 2 && 8 / pp == 1) nvp++; /* the original's VP 1 */
                for (int m = 0; m < 7; m++) {
                    if (64 % (mbs_list[m] * dp)) continue;
                    want += (long)nvp * (tp > 1 ? 2 : 1) * 3 * (dp > 1 ? 2 : 1);
                }
            }
    CHECK_INT(count, want);
    /* the in_original candidates are exactly the original-only grid */
    search_grid g;
    in.original_only = true;
    CHECK_INT(search_grid_build(&in, &g, &e), 0);
    CHECK_INT(s.n_orig, g.n);
    search_grid_free(&g);
    /* the callback can stop the walk */
    long seen = 0;
    CHECK_INT(search_exhaustive(&in, NULL, stop_cb, &seen, &count, &e), 0);
    CHECK_INT(seen, 5);
    CHECK_INT(count, 5);
    /* a stack that runs data parallelism only (hf-deepspeed) walks TP = PP = CP = 1 alone, in the
     * wider space and in the original's grid (whose model-parallel bounds are Megatron's) */
    search_inputs dp_only = in;
    dp_only.original_only = false;
    dp_only.excluded_dims = EST_PAR_ALL;
    ex_state s3 = {&dp_only, 0, 0, 0};
    ex_only_dp = true;
    CHECK_INT(search_exhaustive(&dp_only, NULL, ex_cb, &s3, &count, &e), 0);
    ex_only_dp = false;
    CHECK(count > 0);
    CHECK_INT(s3.bad, 0);
    dp_only.original_only = true;
    CHECK_INT(search_grid_build(&dp_only, &g, &e), 0);
    CHECK(g.n > 0);
    for (size_t i = 0; i < g.n; i++) CHECK(g.items[i].tp == 1 && g.items[i].pp == 1 && g.items[i].cp == 1);
    search_grid_free(&g);
    /* a stack running TP and PP only, without interleaving or sequence parallelism (Megatron-DeepSpeed):
     * in the wider space TP and PP still vary, CP does not, and no candidate interleaves or splits
     * sequences */
    search_inputs tp_pp = in;
    tp_pp.original_only = false;
    tp_pp.excluded_dims = EST_PAR_CP | EST_PAR_EP;
    tp_pp.no_interleave = tp_pp.no_sequence_parallel = true;
    partial_seen ps = {0};
    CHECK_INT(search_exhaustive(&tp_pp, NULL, partial_cb, &ps, &count, &e), 0);
    CHECK(count > 0 && ps.bad == 0 && ps.tp2 && ps.pp2);
    /* T5 block: act values even, no VP */
    search_inputs t5;
    const preset *p = find_preset(SEARCH_T5, "11");
    preset_inputs(p, 80, &t5);
    ex_state s2 = {&t5, 0, 0, 0};
    CHECK_INT(search_exhaustive(&t5, NULL, ex_cb, &s2, &count, &e), 0);
    CHECK(count > 0);
    CHECK_INT(s2.bad, 0);
    t5.original_only = true;
    CHECK_INT(search_grid_build(&t5, &g, &e), 0);
    CHECK_INT(s2.n_orig, g.n);
    search_grid_free(&g);
}

/* issue 25: a global batch with no split moves to the nearest multiple of the largest DP */
static void test_gbs_nearest(void)
{
    ac_err e;
    search_gbs_choice g;
    search_inputs in = small_gpt();
    CHECK_INT(search_gbs_nearest(&in, &g, &e), 0);
    CHECK(!g.adjusted); /* 2048 splits on 128 GPUs */
    CHECK_INT(g.to, 2048);
    in.num_nodes = 20; /* 160 GPUs: every DP of the grid has a factor 5 */
    CHECK_INT(search_gbs_nearest(&in, &g, &e), 0);
    CHECK(g.adjusted);
    CHECK_INT(g.from, 2048);
    CHECK_INT(g.dp, 160);
    CHECK_INT(g.to, 2080); /* 13 × 160, nearer than 1920 */
    in.gbs = search_list_of((int[]){2048}, 1); /* a list pins it */
    CHECK_INT(search_gbs_nearest(&in, &g, &e), 0);
    CHECK(!g.adjusted);
    in = small_gpt();
    in.num_nodes = 20;
    in.base_gbs = 1010; /* 1010 = 2·5·101 splits nowhere; 960 is nearer than 1120 */
    CHECK_INT(search_gbs_nearest(&in, &g, &e), 0);
    CHECK(g.adjusted);
    CHECK_INT(g.to, 960);
}

int main(void)
{
    RUN(test_gbs_nearest);
    RUN(test_reference_9_5);
    RUN(test_valid_pp_and_tables);
    RUN(test_act_examples);
    RUN(test_presets);
    RUN(test_presets_by_hand);
    RUN(test_overrides);
    RUN(test_extension_lists);
    RUN(test_bug_fixes);
    RUN(test_names);
    RUN(test_exhaustive);
    printf("  preset candidates: %lld at 80 GB, %lld at 40 GB\n", preset_total_80, preset_total_40);
    CHECK_DONE();
}
