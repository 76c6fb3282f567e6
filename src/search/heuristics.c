/* heuristics.c — the original's §4.1 search lists as tables. */
#include "search/heuristics.h"

#include <stdio.h>
#include <string.h>

/* ---- small list helpers ------------------------------------------------- */

search_int_list search_list_auto(void)
{
    search_int_list l;
    memset(&l, 0, sizeof l);
    l.is_auto = true;
    return l;
}

search_int_list search_list_of(const int *v, int n)
{
    search_int_list l;
    memset(&l, 0, sizeof l);
    if (n > SEARCH_LIST_MAX) n = SEARCH_LIST_MAX;
    for (int i = 0; i < n; i++) l.v[l.n++] = v[i];
    return l;
}

bool search_list_contains(const search_int_list *l, int x)
{
    for (int i = 0; i < l->n; i++)
        if (l->v[i] == x) return true;
    return false;
}

/* ---- families ----------------------------------------------------------- */

typedef enum { GROUP_GPT, GROUP_T5, GROUP_BERT } table_group;

static const struct {
    const char *name;
    table_group group;
    int multiplier;   /* §4.1: 2 for encoder-decoder (both stacks count) */
    int pp_leading_1; /* §4.1: valid_pp starts with 1 for T5/mT5/BERT */
} FAMILIES[SEARCH_FAMILY_COUNT] = {
    [SEARCH_GPT3] = {"gpt3", GROUP_GPT, 1, 0},
    [SEARCH_T5] = {"t5", GROUP_T5, 2, 1},
    [SEARCH_MT5] = {"mt5", GROUP_T5, 2, 1},
    [SEARCH_BERT] = {"bert", GROUP_BERT, 1, 1},
    [SEARCH_LLAMA] = {"llama", GROUP_GPT, 1, 0},
    [SEARCH_MIXTRAL] = {"mixtral", GROUP_GPT, 1, 0},
};

static bool family_ok(search_family f) { return (unsigned)f < SEARCH_FAMILY_COUNT; }

int search_layer_multiplier(search_family f) { return family_ok(f) ? FAMILIES[f].multiplier : 1; }

bool search_family_is_gpt(search_family f) { return family_ok(f) && FAMILIES[f].group == GROUP_GPT; }

const char *search_family_name(search_family f) { return family_ok(f) ? FAMILIES[f].name : "?"; }

/* ≤ 48 GB (A100-40GB, L40S 48 GB, …) behaves like the 40 GB tables; anything
 * bigger like the 80 GB ones.  The original only accepts exactly 40 or 80. */
int search_table_memory(int gpu_mem_gb) { return gpu_mem_gb <= 48 ? 40 : 80; }

int search_valid_pp(search_family f, int num_layers, int *out, int cap)
{
    int n = 0;
    if (!family_ok(f) || num_layers < 1) return 0;
    if (FAMILIES[f].pp_leading_1) {
        if (n >= cap) return -1;
        out[n++] = 1;
    }
    for (int d = 1; d <= num_layers; d++) {
        if (num_layers % d) continue;
        if (n >= cap) return -1;
        out[n++] = FAMILIES[f].multiplier * d;
    }
    return n;
}

/* ---- the §4.1 tables ------------------------------------------------------ */

typedef struct {
    int n;
    int v[12];
} small_list;

#define LST(...) {sizeof((int[]){__VA_ARGS__}) / sizeof(int), {__VA_ARGS__}}
#define NONE {0, {0}}

typedef struct {
    table_group group;
    int mem;         /* 40 or 80 */
    int seq;         /* 0: any sequence length */
    double size_max; /* row applies when size ≤ size_max (first match wins) */
    small_list tp;
    int pp_lo, pp_hi; /* pp = members of valid_pp in [lo, hi] …            */
    small_list pp;    /* … unless this literal list is non-empty            */
    small_list mbs;   /* empty: the table's default mbs list                */
    int min_mp, max_mp;
} heur_row;

/* Defaults of each table: used for fields a row does not set and above the
 * last row (GPT, T5) or for a sequence length the table does not know. */
static const struct {
    table_group group;
    int mem;
    small_list tp, pp, mbs;
    int min_mp, max_mp;
    double size_limit; /* > 0: larger sizes are an error (BERT) */
} DEFAULTS[] = {
    {GROUP_GPT, 80, LST(1, 2, 4, 8), LST(1), LST(1, 2, 3, 4, 6, 8), 1, 8, 0},
    {GROUP_GPT, 40, LST(1, 2, 4, 8), LST(1), LST(1, 2, 4, 6, 8, 10, 12, 16), 1, 8, 0},
    {GROUP_T5, 80, LST(1, 2, 4, 8), LST(1), LST(1, 2, 4, 6, 8, 12, 16), 1, 8, 0},
    {GROUP_T5, 40, LST(1, 2, 4, 8), LST(1), LST(1, 2, 4, 6, 8, 12, 16), 1, 8, 0},
    {GROUP_BERT, 80, LST(1, 2, 4, 8), LST(1), LST(1, 2, 3, 4, 6, 8), 1, 8, 250.5},
    {GROUP_BERT, 40, LST(1, 2, 4, 8), LST(1), LST(1, 2, 4, 6, 8), 1, 8, 250.5},
};

/* Row shorthands: R = pp range of valid_pp, P = literal pp list. */
#define R(lo, hi) lo, hi, NONE
#define P(...) 0, 0, LST(__VA_ARGS__)
#define P1 P(1)

static const heur_row ROWS[] = {
    /* GPT-3 80 GB, seq 2048 */
    {GROUP_GPT, 80, 2048, 1.0, LST(1, 2), P1, NONE, 1, 8},
    {GROUP_GPT, 80, 2048, 4.0, LST(1, 2, 4), P1, NONE, 1, 8},
    {GROUP_GPT, 80, 2048, 8.0, LST(1, 2, 4), P1, NONE, 1, 8},
    {GROUP_GPT, 80, 2048, 13.0, LST(1, 2, 4, 8), P1, NONE, 1, 8},
    {GROUP_GPT, 80, 2048, 23.0, LST(1, 2, 4), R(1, 4), LST(1, 2, 4), 4, 8},
    {GROUP_GPT, 80, 2048, 45.0, LST(2, 4, 8), R(1, 4), LST(1, 2, 4), 8, 32},
    {GROUP_GPT, 80, 2048, 95.0, LST(2, 4, 8), R(1, 8), LST(1, 2, 4, 8), 8, 64},
    {GROUP_GPT, 80, 2048, 130.0, LST(2, 4, 8), R(1, 16), LST(1, 2, 4, 8), 16, 128},
    {GROUP_GPT, 80, 2048, 195.0, LST(8), R(4, 16), LST(1, 2, 4), 32, 256},
    {GROUP_GPT, 80, 2048, 395.0, LST(8), R(8, 32), LST(1, 2, 4), 64, 512},
    {GROUP_GPT, 80, 2048, 790.0, LST(8), R(8, 100), LST(1, 2, 4), 128, 1024},
    {GROUP_GPT, 80, 2048, 1100.0, LST(8), R(16, 130), LST(1, 2, 4), 256, 2048},
    /* GPT-3 80 GB, seq 4096 */
    {GROUP_GPT, 80, 4096, 1.0, LST(1, 2, 4), P1, LST(1, 2, 4, 8), 1, 8},
    {GROUP_GPT, 80, 4096, 4.0, LST(1, 2, 4), P1, LST(1, 2, 4, 8), 1, 8},
    {GROUP_GPT, 80, 4096, 8.0, LST(1, 2, 4), R(1, 2), LST(1, 2, 4), 1, 8},
    {GROUP_GPT, 80, 4096, 13.0, LST(2, 4), R(1, 2), LST(1, 2, 4), 1, 8},
    {GROUP_GPT, 80, 4096, 23.0, LST(4, 8), R(1, 2), LST(1, 2), 4, 16},
    {GROUP_GPT, 80, 4096, 45.0, LST(4, 8), R(2, 4), LST(1, 2), 8, 32},
    {GROUP_GPT, 80, 4096, 95.0, LST(4, 8), R(1, 8), LST(1, 2), 8, 64},
    /* GPT-3 80 GB, seq 8192 */
    {GROUP_GPT, 80, 8192, 1.0, LST(1, 2), R(1, 2), LST(1, 2, 4), 1, 8},
    {GROUP_GPT, 80, 8192, 4.0, LST(1, 2, 4), R(1, 2), LST(1, 2, 4), 1, 8},
    {GROUP_GPT, 80, 8192, 8.0, LST(2, 4), R(1, 2), LST(1, 2), 1, 8},
    {GROUP_GPT, 80, 8192, 13.0, LST(2, 4), R(1, 2), LST(1, 2), 1, 8},
    {GROUP_GPT, 80, 8192, 23.0, LST(4, 8), R(1, 4), LST(1), 8, 32},
    {GROUP_GPT, 80, 8192, 45.0, LST(8), R(4, 8), LST(1), 32, 64},
    /* GPT-3 80 GB, seq 16384 */
    {GROUP_GPT, 80, 16384, 1.0, LST(2, 4), P1, LST(1, 2), 1, 8},
    {GROUP_GPT, 80, 16384, 4.0, LST(2, 4), R(1, 2), LST(1), 1, 8},
    {GROUP_GPT, 80, 16384, 8.0, LST(2, 4), R(1, 2), LST(1), 1, 8},
    {GROUP_GPT, 80, 16384, 13.0, LST(2, 4), R(1, 2), LST(1), 1, 8},
    {GROUP_GPT, 80, 16384, 23.0, LST(4, 8), R(2, 4), LST(1), 8, 32},
    /* GPT-3 80 GB, seq 32768 */
    {GROUP_GPT, 80, 32768, 1.0, LST(2, 4), R(1, 2), LST(1), 1, 8},
    {GROUP_GPT, 80, 32768, 4.0, LST(2, 4), R(1, 2), LST(1), 1, 8},
    {GROUP_GPT, 80, 32768, 8.0, LST(4, 8), R(1, 2), LST(1), 4, 16},
    {GROUP_GPT, 80, 32768, 13.0, LST(4, 8), R(1, 2), LST(1), 4, 16},
    {GROUP_GPT, 80, 32768, 23.0, LST(8), R(2, 4), LST(1), 16, 32},
    /* GPT-3 40 GB (any seq) */
    {GROUP_GPT, 40, 0, 1.0, LST(1, 2, 4), P1, LST(1, 2, 4, 8), 1, 8},
    {GROUP_GPT, 40, 0, 4.0, LST(1, 2, 4, 8), P1, LST(1, 2, 4, 8), 1, 8},
    {GROUP_GPT, 40, 0, 8.0, LST(2, 4, 8), P(1, 2), LST(1, 2, 4), 2, 8},
    {GROUP_GPT, 40, 0, 13.0, LST(4, 8), P(1, 2, 4), LST(1, 2, 4), 4, 32},
    {GROUP_GPT, 40, 0, 23.0, LST(2, 4, 8), R(1, 8), NONE, 8, 64},
    {GROUP_GPT, 40, 0, 45.0, LST(4, 8), R(1, 12), LST(1, 2, 4), 16, 128},
    {GROUP_GPT, 40, 0, 95.0, LST(4, 8), R(1, 16), LST(1, 2, 4), 16, 256},
    {GROUP_GPT, 40, 0, 130.0, LST(4, 8), R(2, 26), LST(1, 2), 32, 512},
    {GROUP_GPT, 40, 0, 195.0, LST(4, 8), R(2, 32), LST(1, 2), 64, 1024},
    {GROUP_GPT, 40, 0, 395.0, LST(4, 8), R(4, 64), LST(1, 2), 128, 2048},
    {GROUP_GPT, 40, 0, 790.0, LST(4, 8), R(8, 128), LST(1, 2), 256, 4096},
    {GROUP_GPT, 40, 0, 1100.0, LST(4, 8), R(8, 192), LST(1, 2), 512, 8192},
    /* T5 / mT5 80 GB */
    {GROUP_T5, 80, 0, 1.0, LST(1, 2), P1, LST(16, 32, 64, 128), 1, 8},
    {GROUP_T5, 80, 0, 4.0, LST(1, 2, 4), P1, LST(4, 6, 8, 12, 16, 24, 32, 48), 1, 8},
    {GROUP_T5, 80, 0, 8.0, LST(2, 4, 8), P1, LST(4, 6, 8, 12, 16, 24, 32), 1, 8},
    {GROUP_T5, 80, 0, 14.5, LST(4, 8), P1, LST(2, 4, 6, 8, 12, 16, 24), 1, 8},
    {GROUP_T5, 80, 0, 25.9, LST(4, 8), R(1, 2), LST(1, 2, 4, 6, 8), 4, 16},
    {GROUP_T5, 80, 0, 43.0, LST(4, 8), R(1, 4), LST(1, 2, 4, 6, 8), 8, 32},
    {GROUP_T5, 80, 0, 85.5, LST(4, 8), R(2, 8), LST(1, 2, 4, 6, 8), 16, 64},
    {GROUP_T5, 80, 0, 165.5, LST(8), R(4, 16), LST(1, 2, 4, 6), 32, 128},
    {GROUP_T5, 80, 0, 250.0, LST(8), R(4, 32), LST(1, 2, 4, 6, 8), 64, 256},
    /* T5 / mT5 40 GB */
    {GROUP_T5, 40, 0, 1.0, LST(1, 2), P1, LST(16, 32, 64, 128), 1, 8},
    {GROUP_T5, 40, 0, 4.0, LST(1, 2, 4), P1, LST(4, 8, 12, 16, 24, 32, 48), 1, 8},
    {GROUP_T5, 40, 0, 8.0, LST(2, 4, 8), P1, LST(4, 6, 8, 12, 16, 24), 1, 8},
    {GROUP_T5, 40, 0, 14.5, LST(4, 8), R(1, 2), LST(2, 4, 6, 8, 12, 16), 4, 16},
    {GROUP_T5, 40, 0, 25.9, LST(4, 8), R(1, 8), LST(1, 2, 4, 6, 8), 8, 32},
    {GROUP_T5, 40, 0, 43.0, LST(4, 8), R(1, 8), LST(1, 2, 4, 6, 8), 16, 32},
    {GROUP_T5, 40, 0, 85.5, LST(8), R(2, 8), LST(1, 2, 4, 6, 8), 32, 64},
    {GROUP_T5, 40, 0, 165.5, LST(8), R(4, 32), LST(1, 2, 4), 64, 128},
    {GROUP_T5, 40, 0, 250.0, LST(8), R(8, 64), LST(1, 2, 4), 128, 256},
    /* BERT 80 GB (pp lists are literal in the original) */
    {GROUP_BERT, 80, 0, 1.0, LST(1, 2), P1, NONE, 1, 8},
    {GROUP_BERT, 80, 0, 4.0, LST(1, 2, 4), P1, NONE, 1, 8},
    {GROUP_BERT, 80, 0, 8.0, LST(2, 4, 8), P1, NONE, 2, 8},
    {GROUP_BERT, 80, 0, 13.0, LST(2, 4, 8), P1, LST(1, 2, 3, 4, 6), 2, 8},
    {GROUP_BERT, 80, 0, 25.0, LST(4, 8), P1, LST(1, 2, 3, 4), 4, 8},
    {GROUP_BERT, 80, 0, 46.5, LST(4, 8), P(1, 2, 4), LST(1, 2, 3, 4), 4, 16},
    {GROUP_BERT, 80, 0, 87.5, LST(4, 8), P(2, 4, 6, 8), LST(1, 2, 3, 4), 8, 32},
    {GROUP_BERT, 80, 0, 165.5, LST(4, 8), P(4, 6, 8, 16), LST(2, 4, 6, 8), 16, 128},
    {GROUP_BERT, 80, 0, 250.5, LST(8), P(4, 8, 16, 32), LST(1, 2, 3, 4), 32, 256},
    /* BERT 40 GB */
    {GROUP_BERT, 40, 0, 1.0, LST(1, 2, 4), P1, NONE, 1, 8},
    {GROUP_BERT, 40, 0, 4.0, LST(1, 2, 4, 8), P1, NONE, 1, 8},
    {GROUP_BERT, 40, 0, 8.0, LST(2, 4, 8), P1, LST(1, 2, 4), 1, 8},
    {GROUP_BERT, 40, 0, 13.0, LST(2, 4, 8), P1, LST(1, 2, 4), 1, 8},
    {GROUP_BERT, 40, 0, 25.0, LST(2, 4, 8), P(1, 2), LST(1, 2, 4), 2, 16},
    {GROUP_BERT, 40, 0, 46.5, LST(4, 8), P(1, 2, 4, 8), LST(1, 2, 3), 8, 32},
    {GROUP_BERT, 40, 0, 87.5, LST(4, 8), P(2, 4, 6, 8), LST(1, 2, 3), 16, 64},
    {GROUP_BERT, 40, 0, 165.5, LST(8), P(4, 6, 8, 16), LST(1, 2), 32, 256},
    {GROUP_BERT, 40, 0, 250.5, LST(8), P(8, 16, 32), LST(1, 2), 64, 512},
};

static void copy_small(search_int_list *dst, const small_list *src)
{
    memset(dst, 0, sizeof *dst);
    for (int i = 0; i < src->n; i++) dst->v[dst->n++] = src->v[i];
}

int search_heuristic_lists(search_family f, double size_b, int seq_length, int gpu_mem_gb,
                           int num_layers, search_lists *out, ac_err *e)
{
    if (!family_ok(f)) return ac_err_set(e, AC_E_INPUT, "unknown model family %d", (int)f);
    if (num_layers < 1)
        return ac_err_set(e, AC_E_INPUT, "num_layers must be ≥ 1, got %d", num_layers);
    table_group g = FAMILIES[f].group;
    int mem = search_table_memory(gpu_mem_gb);

    int di = -1;
    for (size_t i = 0; i < sizeof DEFAULTS / sizeof DEFAULTS[0]; i++)
        if (DEFAULTS[i].group == g && DEFAULTS[i].mem == mem) di = (int)i;
    if (di < 0) return ac_err_set(e, AC_E_INTERNAL, "no default heuristic table");
    if (DEFAULTS[di].size_limit > 0 && size_b > DEFAULTS[di].size_limit)
        return ac_err_set(e, AC_E_INPUT, "no %s model larger than %gB parameters is supported",
                          FAMILIES[f].name, DEFAULTS[di].size_limit);

    memset(out, 0, sizeof *out);
    copy_small(&out->tp, &DEFAULTS[di].tp);
    copy_small(&out->pp, &DEFAULTS[di].pp);
    copy_small(&out->mbs, &DEFAULTS[di].mbs);
    out->min_mp = DEFAULTS[di].min_mp;
    out->max_mp = DEFAULTS[di].max_mp;

    const heur_row *row = NULL;
    for (size_t i = 0; i < sizeof ROWS / sizeof ROWS[0]; i++) {
        const heur_row *r = &ROWS[i];
        if (r->group != g || r->mem != mem) continue;
        if (r->seq != 0 && r->seq != seq_length) continue;
        if (size_b <= r->size_max) {
            row = r;
            break;
        }
    }
    if (!row) return 0; /* above the last row / unknown seq: defaults (as the original) */

    copy_small(&out->tp, &row->tp);
    if (row->pp.n > 0) {
        copy_small(&out->pp, &row->pp);
    } else {
        int valid[512];
        int nv = search_valid_pp(f, num_layers, valid, (int)(sizeof valid / sizeof valid[0]));
        if (nv < 0) return ac_err_set(e, AC_E_INPUT, "num_layers %d has too many divisors", num_layers);
        out->pp.n = 0;
        for (int i = 0; i < nv; i++) {
            if (valid[i] < row->pp_lo || valid[i] > row->pp_hi) continue;
            if (out->pp.n >= SEARCH_LIST_MAX)
                return ac_err_set(e, AC_E_INPUT, "pipeline-parallel list longer than %d", SEARCH_LIST_MAX);
            out->pp.v[out->pp.n++] = valid[i];
        }
    }
    if (row->mbs.n > 0) copy_small(&out->mbs, &row->mbs);
    out->min_mp = row->min_mp;
    out->max_mp = row->max_mp;
    return 0;
}

static int check_list(const search_int_list *l, const char *key, ac_err *e)
{
    if (l->is_auto) return 0;
    if (l->n <= 0) return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, key, "the list is empty");
    for (int i = 0; i < l->n; i++)
        if (l->v[i] <= 0)
            return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, key, "values must be ≥ 1, got %d", l->v[i]);
    return 0;
}

int search_apply_overrides(search_lists *l, const search_int_list *tp, const search_int_list *pp,
                           const search_int_list *mbs, const search_int_auto *min_mp,
                           const search_int_auto *max_mp, ac_err *e)
{
    if (tp && check_list(tp, "tensor_parallel_sizes", e)) return -1;
    if (pp && check_list(pp, "pipeline_parallel_sizes", e)) return -1;
    if (mbs && check_list(mbs, "micro_batch_sizes", e)) return -1;
    if (tp && !tp->is_auto) l->tp = *tp;
    if (pp && !pp->is_auto) l->pp = *pp;
    if (mbs && !mbs->is_auto) l->mbs = *mbs;
    l->tp.is_auto = l->pp.is_auto = l->mbs.is_auto = false;
    if (min_mp && !min_mp->is_auto) l->min_mp = min_mp->value;
    if (max_mp && !max_mp->is_auto) l->max_mp = max_mp->value;
    return 0;
}

/* ---- extension heuristics ------------------------------------------------- */

/* CP "auto" for GPT-family models: from this sequence length on, also try this CP
 * (long sequences are where context parallelism pays; T5/BERT have no CP). */
static const struct {
    int min_seq;
    int cp;
} AUTO_CP[] = {{8192, 2}, {32768, 4}};

void search_auto_cp(search_family f, int seq_length, search_int_list *out)
{
    memset(out, 0, sizeof *out);
    out->v[out->n++] = 1;
    if (!search_family_is_gpt(f)) return;
    for (size_t i = 0; i < sizeof AUTO_CP / sizeof AUTO_CP[0]; i++)
        if (seq_length >= AUTO_CP[i].min_seq) out->v[out->n++] = AUTO_CP[i].cp;
}

void search_auto_ep(int num_experts, int gpus_per_node, search_int_list *out)
{
    memset(out, 0, sizeof *out);
    out->v[out->n++] = 1;
    for (int d = 2; d <= num_experts && d <= gpus_per_node && out->n < SEARCH_LIST_MAX; d++)
        if (num_experts % d == 0) out->v[out->n++] = d;
}
