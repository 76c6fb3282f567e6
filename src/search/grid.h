/* grid.h — the training-search candidate grid.
 *
 * search_grid_build() enumerates candidates like the original AutoConfigurator
 * (reference §4.2–4.5) plus our extension knobs (CP, EP, VP, sequence
 * parallelism, recompute granularity, distributed optimizer, GBS), with the
 * original's bugs fixed (docs/original-bugs.md).  search_exhaustive() walks the
 * full extended space through a callback without allocating.
 *
 * Generation order (search_grid.items): the original's launch order — bucket
 * 0, 1, 2, … where the bucket is the act_ckpt_layers value when activation
 * checkpointing is swept and the micro-batch size otherwise; inside a bucket
 * the (TP, PP, CP, EP) first-seen order, then VP, MBS, GBS, SP, recompute,
 * distributed optimizer, act, num_mbs_act, act_per_pipe.  Restricted to
 * in_original candidates this is exactly the original's order.
 *
 * Validity rules (all integer arithmetic; N = num_nodes × gpus_per_node):
 *   heads   A % tp == 0 and query_groups % tp == 0
 *   layers  (multiplier·L) % pp == 0           (multiplier 2 for T5/mT5)
 *   mp      min ≤ tp·pp·cp·ep ≤ max            (grid only; FL's product)
 *   gpus    N % (tp·pp·cp) == 0, DP = N/(tp·pp·cp)
 *   gbs     GBS % (mbs·DP) == 0
 *   cp_ep   cp == 1 or ep == 1                 (FL: never both > 1; grid only, the
 *                                              exhaustive walk has both, as Megatron-Core)
 *   cp_seq  cp == 1 or seq % (2·cp) == 0; CP > 1 only for GPT-family models
 *   ep      ep == 1, or num_experts % ep == 0 and (DP·cp) % ep == 0
 *   vp      vp == 0, or (not T5/mT5, pp ≥ 2 and (multiplier·L/pp) % vp == 0)
 *   stack   tp, pp, cp, ep == 1 where the training stack does not run that dimension
 *           (data/stacks.csv parallelism); such a stack searches size 1 of TP or PP and
 *           drops the heuristic's smallest model-parallel product
 *
 * "auto" of the extension lists (the original's value always comes first, so
 * the all-auto grid contains the original's grid; in_original marks it; a stack
 * without interleaving or sequence parallelism, no_interleave / no_sequence_parallel,
 * gets VP none and SP off in every candidate, the original's L // pp included):
 *   cp   [1], plus 2 from seq 8192 and 4 from seq 32768 (GPT family only)
 *   ep   [1], plus every divisor of num_experts ≤ gpus_per_node (MoE only)
 *   vp   the original's rule (search_original_vp)
 *   sp   base value; also on when tp > 1 and the base is off
 *   rc   base value
 *   do   base value; also on when DP > 1 and the base is off
 *   gbs  [base GBS]
 * SP has no effect at TP 1 and the distributed optimizer none at DP 1: there
 * the candidate keeps the base value and only one candidate is made.
 * Repeated list values are used once (first occurrence).
 *
 * Candidate name (search_candidate_name), the original's file name
 *   {family}_{size}b_{nodes}nodes_tp_{tp}_pp_{pp}_mbs_{mbs}_act_ckpt_{act}
 *   _num_mbs_act_{n}_act_per_pipe_{a}
 * (-1 printed as None).  When any extension knob differs from what the
 * original would write (ext_mask != 0), "_cp_{cp}_ep_{ep}" is inserted after
 * the pp part (as FL does) and, in this order, only the differing knobs are
 * appended: "_vp_{vp|None}" "_sp_{0|1}" "_rc_{none|sel|full}" "_do_{0|1}"
 * "_gbs_{gbs}".
 *   e.g. gpt3_5b_16nodes_tp_2_pp_1_cp_1_ep_1_mbs_4_act_ckpt_None_num_mbs_act_None_act_per_pipe_None_sp_1
 */
#ifndef AC_SEARCH_GRID_H
#define AC_SEARCH_GRID_H

#include <stdbool.h>
#include <stddef.h>

#include "model/shape.h"
#include "search/heuristics.h"
#include "util/err.h"

/* model.activations_checkpoint_method of the base config (T5: encoder.…). */
typedef enum { SEARCH_ACT_NONE = 0, SEARCH_ACT_BLOCK, SEARCH_ACT_UNIFORM } search_act_method;

/* activations_checkpoint_granularity: null / selective / full. */
typedef enum { SEARCH_RC_NONE = 0, SEARCH_RC_SELECTIVE, SEARCH_RC_FULL } search_recompute;

typedef enum {
    SEARCH_RULE_HEADS = 0,
    SEARCH_RULE_LAYERS,
    SEARCH_RULE_MP,
    SEARCH_RULE_GPUS,
    SEARCH_RULE_GBS,
    SEARCH_RULE_CP_EP,
    SEARCH_RULE_CP_SEQ,
    SEARCH_RULE_EP,
    SEARCH_RULE_VP,
    SEARCH_RULE_STACK, /* a model-parallel dimension the training stack does not run */
    SEARCH_RULE_COUNT
} search_rule;

const char *search_rule_name(search_rule r);

/* ext_mask bits: which knobs differ from what the original would write. */
enum {
    SEARCH_EXT_CP = 1u << 0,  /* cp != 1 */
    SEARCH_EXT_EP = 1u << 1,  /* ep != 1 */
    SEARCH_EXT_VP = 1u << 2,  /* vp != the original's rule for this pp */
    SEARCH_EXT_SP = 1u << 3,  /* tp > 1 and sp != base */
    SEARCH_EXT_RC = 1u << 4,  /* recompute != base */
    SEARCH_EXT_DO = 1u << 5,  /* DP > 1 and distributed optimizer != base */
    SEARCH_EXT_GBS = 1u << 6, /* gbs != base GBS */
    /* knobs experts tune (issue 25); each differs from the base config's value */
    SEARCH_EXT_PREC = 1u << 7,    /* precision */
    SEARCH_EXT_GRAD = 1u << 8,    /* gradient reduction type */
    SEARCH_EXT_FP8PG = 1u << 9,   /* FP8 parameter gather */
    SEARCH_EXT_GRAPHS = 1u << 10, /* CUDA graphs */
    SEARCH_EXT_TPO = 1u << 11,    /* TP communication overlap */
    SEARCH_EXT_OFFLOAD = 1u << 12,/* activation offload layers */
    SEARCH_EXT_UNEVEN = 1u << 13, /* PP does not divide the layers: first/last stage counts */
    SEARCH_EXT_RCL = 1u << 14,    /* partial full recompute: act_ckpt_layers layers per stage, block method */
};

/* precisions the search writes (est_precision values) */
enum { SEARCH_PREC_BF16 = 0, SEARCH_PREC_FP8 = 2 };

typedef struct {
    int tp, pp, cp, ep;
    int vp;  /* virtual pipeline size, 0 = none */
    int mbs, gbs;
    int dp;  /* N / (tp·pp·cp) */
    int act_ckpt_layers; /* -1 = None; T5/mT5: enc+dec total, each stack gets act/2 (always even) */
    int num_mbs_act;     /* -1 = None */
    int act_per_pipe;    /* -1 = None */
    bool sequence_parallel;
    search_recompute recompute;
    bool distributed_optimizer;
    int precision;       /* SEARCH_PREC_* (est_precision) */
    bool grad_bf16;      /* gradients reduced in bf16 (else fp32) */
    bool fp8_param_gather;
    bool cuda_graphs;
    bool tp_overlap;     /* TP communication overlapped with GEMMs (userbuffers) */
    int offload_layers;  /* activation offload layers, 0 = none */
    int first_layers, last_layers; /* uneven split: layers of the first/last stage, 0 = even */
    bool in_original;  /* ext_mask == 0 and tp/pp/mbs from the original's lists */
    unsigned ext_mask; /* SEARCH_EXT_* */
    int bucket;        /* the original's launch bucket: act, or mbs when act is None */
    long gen_index;    /* position before the bucket sort (tuple → … → a order) */
} search_candidate;

typedef struct {
    search_family family;
    double size_b;       /* model size in billions (selects the heuristic row) */
    model_shape shape;   /* layers, heads, query_groups, seq_length, num_experts */
    int gpu_mem_gb;      /* ≤ 48 → 40 GB tables, else 80 GB tables */
    int num_nodes;       /* train_settings.num_nodes */
    int gpus_per_node;   /* train_settings.gpus_per_node */
    int base_gbs;        /* base config model.global_batch_size */
    search_act_method act_method;
    /* base-config values the original leaves untouched (its "defaults") */
    bool base_sequence_parallel;
    search_recompute base_recompute;
    bool base_distributed_optimizer;
    /* overrides: auto or explicit lists (min/max: auto or a value) */
    search_int_list tp, pp, mbs;
    search_int_auto min_mp, max_mp;
    search_int_list act_ckpt_layers; /* used only when act_method is block */
    search_int_list cp, ep, vp;      /* vp entries: 0 = none */
    search_int_list gbs;
    search_int_list sequence_parallel;     /* values 0/1 */
    search_int_list recompute;             /* values search_recompute */
    search_int_list distributed_optimizer; /* values 0/1 */
    /* knobs experts tune: auto = the base value only */
    int base_precision;
    bool base_grad_bf16, base_fp8_param_gather, base_cuda_graphs, base_tp_overlap;
    search_int_list precision;        /* SEARCH_PREC_* */
    search_int_list grad_bf16;        /* 0/1 */
    search_int_list fp8_param_gather; /* 0/1 */
    search_int_list cuda_graphs;      /* 0/1 */
    search_int_list tp_overlap;       /* 0/1 */
    search_int_list offload_layers;   /* layers, 0 = none */
    search_int_list uneven_pp;        /* 0 = even only, 1 = PP may leave a remainder (first/last stage counts) */
    search_int_list recompute_layers; /* partial full recompute: layers per stage (VP chunk); auto = none */
    bool original_only; /* keep only in_original candidates */
    /* what the training stack does not run (zero: Megatron-Core, which runs everything) */
    unsigned excluded_dims;    /* EST_PAR_* dimensions: their sizes > 1 fail SEARCH_RULE_STACK */
    bool no_interleave;        /* no interleaved pipeline: no VP, the original's L // pp included */
    bool no_sequence_parallel; /* sequence parallelism off in every candidate */
} search_inputs;

/* Megatron-Core first/last_pipeline_num_layers for L layers on pp stages when pp does not
 * divide L: the middle stages take ceil(L/pp), the first and last share the rest (the
 * embedding and the loss run there); false when pp < 2 or the rest does not split */
bool search_uneven_split(int num_layers, int pp, int *first, int *last);

/* Everything auto; 8 GPUs/node, 80 GB, base SP/DO on, recompute none. */
void search_inputs_init(search_inputs *in);

typedef struct {
    int tp, pp, cp, ep;
} search_mp_tuple;

typedef struct {
    search_candidate *items; /* in generation (bucket) order */
    size_t n;
    size_t n_original;       /* how many have in_original */
    search_mp_tuple *tuples; /* kept (tp, pp, cp, ep) in first-seen order */
    size_t n_tuples;
    search_lists lists;      /* resolved tp/pp/mbs/min/max */
    search_int_list cp, ep, gbs; /* resolved extension lists */
    /* per rule: combinations it rejected (several rules may reject one) */
    long tuple_evaluated, tuple_rejected[SEARCH_RULE_COUNT];
    long cand_evaluated, cand_rejected[SEARCH_RULE_COUNT];
} search_grid;

/* Builds the grid.  AC_E_INPUT when the inputs are bad or nothing survives
 * (the message names the rule that removed every candidate). */
int search_grid_build(const search_inputs *in, search_grid *out, ac_err *e);
void search_grid_free(search_grid *g);

/* The original's §4.3 lists for one (pp, vp).  vp < 0: the original's rule
 * (vp = L//pp for GPT-family/BERT when pp > 2, else none).  Lists are raw (the
 * original's values, e.g. [1, 1, 2]); n_* == 0 means [None]. */
#define SEARCH_ACT_MAX 1100
typedef struct {
    int vp;
    int n_act, act[SEARCH_ACT_MAX];
    int n_mbs_act, mbs_act[SEARCH_ACT_MAX];
    int n_per_pipe, per_pipe[SEARCH_ACT_MAX];
} search_act_params;

int search_act_params_for(search_family f, int num_layers, int pp, int vp, double size_b,
                          search_act_method method, search_act_params *out, ac_err *e);

/* The original's VP rule: L // pp for GPT-family/BERT with pp > 2, else 0. */
int search_original_vp(search_family f, int num_layers, int pp);

/* The global batch when the configured one (base_gbs, gbs auto) has no split on these
 * GPUs for any grid layout and MBS: the multiple of the grid's largest data-parallel size
 * nearest base_gbs (below or above, ties below), so tokens per step stay close and every
 * layout with that DP or a divisor of it splits it at MBS 1.  adjusted is false when the
 * batch splits, when global_batch_sizes is a list (it pins the batch) or when another rule
 * than gbs removes every layout (the grid then reports that rule). */
typedef struct {
    bool adjusted;
    int from, to; /* the configured and the used global batch */
    int dp;       /* the data-parallel size `to` is a multiple of */
} search_gbs_choice;
int search_gbs_nearest(const search_inputs *in, search_gbs_choice *out, ac_err *e);

/* Exhaustive mode bounds; 0 = default. */
typedef struct {
    int max_tp;  /* default gpus_per_node (TP beyond one node is never sensible) */
    int max_cp;  /* default gpus_per_node */
    int max_mbs; /* default max(16, largest heuristic mbs) */
} search_exhaustive_opts;

/* Return non-zero to stop the walk. */
typedef int (*search_candidate_fn)(const search_candidate *c, void *user);

/* Every valid candidate of the extended space: TP | heads and query groups
 * (≤ max_tp, TP | N); PP in valid_pp; CP | N with 2·CP | seq (GPT family);
 * EP | experts; VP ∈ {none, original rule, every v ≥ 2 dividing the layers
 * per stage}; MBS = powers of two and the heuristic list up to max_mbs; GBS
 * from in->gbs; SP on/off (TP > 1); recompute none/selective/full;
 * distributed optimizer on/off (DP > 1); act lists of §4.3 with the base
 * method.  No min/max filter.  *count = candidates passed to fn.  No
 * allocation; fn sees a pointer to a stack candidate. */
int search_exhaustive(const search_inputs *in, const search_exhaustive_opts *opts,
                      search_candidate_fn fn, void *user, long *count, ac_err *e);

/* The candidate's name (scheme above); an empty size_text names the model by family
 * alone, for a full model name such as llama3_70b ("llama3_70b_64nodes_tp_…").  Returns the length, or -1 when buf is
 * too small (buf then holds a truncated, terminated name). */
int search_candidate_name(const search_candidate *c, const char *family, const char *size_text,
                          int nodes, char *buf, size_t len);

#endif
