/* infer_grid.c — the inference sweep grid and its validity rules (infer_grid.h). */
#include "search/infer_grid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name, *text;
} RULES[SEARCH_IRULE_COUNT] = {
    [SEARCH_IRULE_HEADS] = { "heads", "num_attention_heads % tp == 0" },
    [SEARCH_IRULE_KV_HEADS] = { "kv_heads", "query_groups % tp == 0 or tp % query_groups == 0" },
    [SEARCH_IRULE_LAYERS] = { "layers", "num_layers % pp == 0" },
    [SEARCH_IRULE_PARTIAL_NODE] = { "partial_node", "pp == 1 or tp >= gpus_per_node (whole nodes per stage)" },
    [SEARCH_IRULE_NODES] = { "nodes", "tp <= gpus_per_node or tp % gpus_per_node == 0" },
};

const char *search_infer_rule_name(search_infer_rule r)
{
    return (r >= 0 && r < SEARCH_IRULE_COUNT) ? RULES[r].name : "valid";
}

const char *search_infer_rule_text(search_infer_rule r)
{
    return (r >= 0 && r < SEARCH_IRULE_COUNT) ? RULES[r].text : "";
}

/* reference §7 nodes_necessary: pp if tp ≤ G; 0 if tp % G ≠ 0; else max(pp, pp·tp // G) */
int search_infer_nodes_needed(int gpus_per_node, int tp, int pp)
{
    if (gpus_per_node <= 0 || tp <= 0 || pp <= 0) return 0;
    if (tp <= gpus_per_node) return pp;
    if (tp % gpus_per_node != 0) return 0;
    int n = pp * (tp / gpus_per_node);
    return n > pp ? n : pp;
}

/* reference §7: tasks per node = min(G, tp) */
int search_infer_tasks_per_node(int gpus_per_node, int tp)
{
    return tp < gpus_per_node ? tp : gpus_per_node;
}

search_infer_rule search_infer_check(const model_shape *s, int G, int tp, int pp, char *why, size_t why_len)
{
    char dummy[8];
    if (!why) { why = dummy; why_len = sizeof dummy; }
    why[0] = '\0';
    int groups = shape_query_groups(s);
    if (tp <= 0 || s->heads % tp != 0) {
        snprintf(why, why_len, "num_attention_heads %d is not divisible by tp %d", s->heads, tp);
        return SEARCH_IRULE_HEADS;
    }
    if (groups % tp != 0 && tp % groups != 0) {
        snprintf(why, why_len, "query_groups %d and tp %d: neither divides the other", groups, tp);
        return SEARCH_IRULE_KV_HEADS;
    }
    if (pp <= 0 || s->num_layers % pp != 0) {
        snprintf(why, why_len, "num_layers %d is not divisible by pp %d", s->num_layers, pp);
        return SEARCH_IRULE_LAYERS;
    }
    if (pp > 1 && tp < G) {
        snprintf(why, why_len, "partial node: pp %d > 1 needs tp >= gpus_per_node %d, got tp %d", pp, G, tp);
        return SEARCH_IRULE_PARTIAL_NODE;
    }
    if (search_infer_nodes_needed(G, tp, pp) <= 0) {
        snprintf(why, why_len, "tp %d > gpus_per_node %d is not a multiple of it", tp, G);
        return SEARCH_IRULE_NODES;
    }
    return SEARCH_IRULE_NONE;
}

/* distinct values, first occurrence kept; -1 on a value < 1 */
static int dedupe(const int *v, int n, int *out, const char *what, ac_err *e)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (v[i] < 1) return ac_err_set(e, AC_E_INPUT, "inference %s: values must be >= 1, got %d", what, v[i]);
        bool seen = false;
        for (int j = 0; j < k; j++) seen |= out[j] == v[i];
        if (!seen) out[k++] = v[i];
    }
    return k;
}

void search_infer_grid_free(search_infer_grid *g)
{
    if (!g) return;
    free(g->items);
    free(g->rejected);
    memset(g, 0, sizeof *g);
}

int search_infer_grid_build(const model_shape *s, int G, const int *tp, int ntp, const int *pp, int npp, const int *bs,
                            int nbs, search_infer_grid *g, ac_err *e)
{
    memset(g, 0, sizeof *g);
    if (G < 1) return ac_err_set(e, AC_E_INPUT, "inference gpus_per_node must be >= 1, got %d", G);
    if (ntp < 1 || npp < 1 || nbs < 1)
        return ac_err_set(e, AC_E_INPUT, "inference grid needs at least one tensor_parallel_size, pipeline_parallel_size and batch_size");
    int *T = malloc(sizeof(int) * (size_t)ntp), *P = malloc(sizeof(int) * (size_t)npp), *B = malloc(sizeof(int) * (size_t)nbs);
    int rc = -1;
    if (!T || !P || !B) { ac_err_set(e, AC_E_NOMEM, "out of memory"); goto done; }
    int nt = dedupe(tp, ntp, T, "tensor_parallel_sizes", e);
    int np = nt < 0 ? -1 : dedupe(pp, npp, P, "pipeline_parallel_sizes", e);
    int nb = np < 0 ? -1 : dedupe(bs, nbs, B, "batch_sizes", e);
    if (nb < 0) goto done;
    g->n_bs = nb;
    size_t pairs = (size_t)nt * (size_t)np;
    g->items = malloc(sizeof *g->items * pairs * (size_t)nb);
    g->rejected = malloc(sizeof *g->rejected * pairs);
    if (!g->items || !g->rejected) { ac_err_set(e, AC_E_NOMEM, "out of memory"); goto done; }
    for (int i = 0; i < nt; i++)
        for (int j = 0; j < np; j++) {
            search_infer_reject rj = { .tp = T[i], .pp = P[j] };
            rj.rule = search_infer_check(s, G, T[i], P[j], rj.why, sizeof rj.why);
            if (rj.rule != SEARCH_IRULE_NONE) { g->rejected[g->n_rejected++] = rj; continue; }
            for (int k = 0; k < nb; k++)
                g->items[g->n++] = (search_infer_cfg){ T[i], P[j], B[k], search_infer_nodes_needed(G, T[i], P[j]),
                                                       search_infer_tasks_per_node(G, T[i]) };
        }
    if (g->n == 0) {
        char rules[512] = "";
        size_t off = 0;
        for (size_t r = 0; r < g->n_rejected && off < sizeof rules - 1; r++)
            off += (size_t)snprintf(rules + off, sizeof rules - off, "%s(tp %d, pp %d: %s)", r ? "; " : "",
                                    g->rejected[r].tp, g->rejected[r].pp, search_infer_rule_name(g->rejected[r].rule));
        ac_err_set(e, AC_E_INPUT,
                   "no valid inference configuration (rules: heads %% tp == 0, layers %% pp == 0, pp == 1 or tp >= "
                   "gpus_per_node %d, tp <= gpus_per_node or a multiple of it): %s",
                   G, rules);
        goto done;
    }
    rc = 0;
done:
    free(T);
    free(P);
    free(B);
    if (rc != 0) search_infer_grid_free(g);
    return rc;
}
