/* heuristics.h — the original AutoConfigurator's per-family search lists.
 *
 * For a family, model size, sequence length and GPU memory the original picks
 * a TP list, a PP list, an MBS list and a [min, max] model-parallel range
 * (reference §4.1).  They are kept here as tables; user overrides then replace
 * the heuristic values.  Pure functions: no allocation, no I/O.
 */
#ifndef AC_SEARCH_HEURISTICS_H
#define AC_SEARCH_HEURISTICS_H

#include <stdbool.h>

#include "util/err.h"

/* Our own family id; the lead maps the config's model family onto it.
 * LLAMA and MIXTRAL use the GPT-3 tables (as the original does). */
typedef enum {
    SEARCH_GPT3 = 0,
    SEARCH_T5,
    SEARCH_MT5,
    SEARCH_BERT,
    SEARCH_LLAMA,
    SEARCH_MIXTRAL,
    SEARCH_FAMILY_COUNT
} search_family;

#define SEARCH_LIST_MAX 64

/* A search list: "auto" (use the heuristic) or an explicit list used as given. */
typedef struct {
    bool is_auto;
    int n;
    int v[SEARCH_LIST_MAX];
} search_int_list;

/* A scalar that is "auto" or an explicit value (min/max model-parallel size). */
typedef struct {
    bool is_auto;
    int value;
} search_int_auto;

/* The resolved lists of §4.1 (never auto). */
typedef struct {
    search_int_list tp, pp, mbs;
    int min_mp, max_mp;
} search_lists;

search_int_list search_list_auto(void);
/* Explicit list from an array (n ≤ SEARCH_LIST_MAX; extra entries dropped). */
search_int_list search_list_of(const int *v, int n);
bool search_list_contains(const search_int_list *l, int x);

/* 2 for T5/mT5 (encoder + decoder stacks), 1 otherwise (§4.1). */
int search_layer_multiplier(search_family f);
/* true for GPT-3/Llama/Mixtral (the GPT-3 tables and the interleaved-pipeline rule). */
bool search_family_is_gpt(search_family f);
/* Lower-case name ("gpt3", "t5", …). */
const char *search_family_name(search_family f);

/* Which heuristic table a GPU memory size selects: ≤ 48 GB → the 40 GB tables,
 * larger → the 80 GB tables (the original only accepts 40 and 80). */
int search_table_memory(int gpu_mem_gb);

/* valid_pp of §4.1: T5/mT5/BERT start with 1, then multiplier·d for every
 * divisor d of num_layers in increasing order.  Returns the count written
 * (at most cap; -1 if cap is too small). */
int search_valid_pp(search_family f, int num_layers, int *out, int cap);

/* The heuristic lists of §4.1 for (family, size, seq, memory, layers).
 * AC_E_INPUT for BERT above 250.5 B (the original raises); other families keep
 * the defaults above their last row, as the original does. */
int search_heuristic_lists(search_family f, double size_b, int seq_length, int gpu_mem_gb,
                           int num_layers, search_lists *out, ac_err *e);

/* Overrides replace heuristic values: explicit lists are used exactly as given
 * (odd values included), min/max replace when not auto.  An explicit empty list
 * or a value ≤ 0 is AC_E_INPUT naming the key. */
int search_apply_overrides(search_lists *l, const search_int_list *tp, const search_int_list *pp,
                           const search_int_list *mbs, const search_int_auto *min_mp,
                           const search_int_auto *max_mp, ac_err *e);

/* Our heuristic for context_parallel_sizes "auto": [1] for T5/mT5/BERT;
 * for GPT-family models 1 plus larger CP as the sequence grows (table). */
void search_auto_cp(search_family f, int seq_length, search_int_list *out);

/* Our heuristic for expert_parallel_sizes "auto": [1] for dense models; for
 * MoE 1 plus every divisor of num_experts up to gpus_per_node. */
void search_auto_ep(int num_experts, int gpus_per_node, search_int_list *out);

#endif
