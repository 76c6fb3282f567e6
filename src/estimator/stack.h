/* stack.h — the training stack a run uses, as mechanisms (data/stacks.csv).
 *
 * A stack is Megatron-Core with Transformer Engine, NeMo Megatron of 2022 (apex, no
 * FlashAttention), PyTorch FSDP or Hugging Face Transformers with DeepSpeed ZeRO.  Each
 * is described by what it does, never by how fast it is: its attention kernel (fused, or
 * batched GEMMs with the scores in HBM and the softmax/dropout bytes per score), the
 * non-GEMM bytes its model code moves, its gradient dtype, the sharding it runs by
 * default, whether gradient reduction overlaps the backward, and FSDP/ZeRO-3 prefetch and
 * reshard.  Every value in the file carries its source.  est_input.stack points at one
 * (NULL = megatron-core); est_stack_apply also sets the input switches a stack implies.
 */
#ifndef AC_ESTIMATOR_STACK_H
#define AC_ESTIMATOR_STACK_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

/* bytes per logit of Megatron-Core's loss when a stack does not say (data/stacks.csv) */
#define EST_LOGIT_BYTES 24.0
/* and the bytes per logit it keeps at its peak: the bf16 logits and the fp32 softmax */
#define EST_LOGIT_MEM_BYTES 6.0

struct est_input;

/* the model-parallel dimensions a stack can run (est_stack.parallel_dims) */
enum { EST_PAR_TP = 1, EST_PAR_PP = 2, EST_PAR_CP = 4, EST_PAR_EP = 8, EST_PAR_ALL = 15 };

typedef struct est_stack {
    char name[32];
    char like[32];              /* the stack its `like` row copied ("" for none) */
    char aliases[128];          /* '|'-separated names users may type */
    bool flash_attention;       /* false: scores materialised (Korthikanti 2022 Table 2, 5as/h bytes) */
    bool flash2;                /* FlashAttention-2's kernels on every GPU (not cuDNN / FA3 on sm90+) */
    double fa2_sm90_eff;        /* the fraction of bf16 peak they reach on sm_arch >= 90 */
    double attn_fwd_rel;        /* the stack's attention kernel's rate over FlashAttention-2's, forward and */
    double attn_bwd_rel;        /* backward (optional; 0: 1, FA2 or the vendor kernel itself) */
    bool no_dropout;            /* the stack's model configs train without dropout, so no masks are
                                 * kept (optional dropout_masks 0; default: the model's templates) */
    bool tp_comm_overlap;       /* TP collectives overlap GEMMs (TE userbuffers) unless a config says no */
    double softmax_fwd_bytes;   /* unfused attention: HBM bytes per score element outside the GEMMs */
    double softmax_bwd_bytes;
    double elementwise_units;   /* 0: the calibration's */
    double grad_bytes;          /* 2 or 4 */
    int zero_stage;             /* default sharding */
    int dp_overlap;             /* gradient reduction overlaps the backward: 1 yes, 0 no, 2 not with PP > 1
                                 * or sequence parallelism unless the optimizer is sharded (NeMo 1.x), 3 only with ZeRO-3
                                 * (DeepSpeed's overlap_comm default) */
    bool fsdp_prefetch;         /* ZeRO-3/FSDP gathers issued ahead, hidden behind compute */
    bool fsdp_reshard;          /* parameters freed after forward: gathered twice per micro-batch */
    bool pp_fsdp;               /* with PP > 1, FSDP gathers a stage's parameters and reduces its gradients
                                 * once a step, not every micro-batch (torch.distributed.pipelining) */
    double dp_bucket_params;    /* parameters per gradient bucket the data-parallel reduction is issued in,
                                 * at least dp_bucket_params_per_rank x DP (optional; 0: one collective per
                                 * layer, as FSDP units) */
    double dp_bucket_params_per_rank;
    bool dp_bucket_overlap_only;     /* buckets only where the reduction overlaps the backward (optional; 0) */
    bool dp_bucket_first_stage_only; /* buckets only on the first pipeline stage's first chunk (optional; 0) */
    unsigned parallel_dims;     /* EST_PAR_* it can run beyond data parallelism (optional parallelism;
                                 * absent: all) */
    bool sequence_parallel;     /* the stack can split norms and dropout over TP ranks */
    bool interleaved_pipeline;  /* the stack has the interleaved (virtual) pipeline schedule */
    bool unstated_vp_none;      /* a published run that states no VP ran none (optional; validation) */
    double grad_accum_bytes;    /* HBM bytes per trainable parameter per micro-batch outside the wgrad GEMM */
    double fsdp_gather_copy_passes; /* passes over a ZeRO-3 gather's bytes on the compute stream after it
                                     * lands (FSDP2's copy-out: 2, a read and a write; optional; 0) */
    double fsdp_reduce_copy_passes; /* passes that copy the unsharded gradient into the reduction's buffer
                                     * in the reduce dtype on the compute stream (FSDP2: 1; optional; 0) */
    bool fsdp_root_kept;        /* the root unit (embeddings, final norm, output layer) stays gathered from
                                 * its forward to the end of the backward: the backward re-gathers the
                                 * layers only (PyTorch FSDP; optional; 0) */
    double fp8_cast_bytes;      /* HBM bytes per element of an FP8 GEMM input's quantization */
    double logit_bytes;         /* HBM bytes per output-layer logit the loss moves, forward + backward
                                 * (optional; 0: EST_LOGIT_BYTES) */
    double logit_mem_bytes;     /* bytes per logit the loss keeps at its peak (optional; 0: EST_LOGIT_MEM_BYTES) */
    bool selective_op_sac;      /* "selective" recompute is PyTorch's op-level selective checkpointing
                                 * (torchtitan: keep matmul and attention outputs except every second
                                 * matmul, recompute the rest) rather than Megatron's attention core
                                 * (optional; 0) */
    /* Hugging Face + DeepSpeed mechanisms (optional; 0 = absent): */
    double masked_attn_eff_ratio; /* an explicit 4-D attention mask makes PyTorch SDPA run its memory-
                                   * efficient kernel: its fraction of peak over FlashAttention-2's */
    bool zero12_grad_allreduce;   /* ZeRO-1/2 reduce gradient buckets with all-reduce, not reduce-scatter
                                   * (DeepSpeed use_multi_rank_bucket_allreduce) */
    bool offload_grad_accum_via_gpu; /* ZeRO-2/3 + optimizer offload accumulate each micro-batch's gradient
                                      * partition in host memory through the GPU (a copy each way) */
    double compiled_elementwise_units; /* the same under torch.compile (optional; 0: as eager) */
    double compiled_fp8_cast_bytes;    /* FP8 quantization bytes under torch.compile (optional; 0: as eager) */
    /* context parallelism as the stack runs it (optional; 0: Transformer Engine's ring, K/V at the
     * GQA width in bf16, each step's exchange hidden behind its attention) */
    bool cp_kv_all_heads;              /* K/V exchanged after GQA's expansion to every query head */
    double cp_dkv_bytes;               /* bytes per dK/dV element the backward ring moves (0: 2) */
    bool cp_exposed;                   /* the exchange does not overlap the attention compute */
    bool cp_single_call;               /* K/V all-gathered, then one attention call per query chunk */
    int default_recompute;             /* the est_recompute a run that states none runs (optional;
                                        * RECOMPUTE_NONE): MaxText's remat_policy default, say; an int
                                        * because est.h, which defines the enum, includes this header */
    bool pp_scatter_gather;            /* without sequence parallelism a pipeline send leaves as 1/t
                                        * pieces from the t TP ranks and is all-gathered over NVLink
                                        * on arrival (optional; 0: the whole tensor from each rank) */
    bool pp_p2p_serial;                /* a stage's pipeline receives and sends run one after another, blocking:
                                        * each direction's transfer is paid 2m + p - 4 times a step (p >= 3)
                                        * rather than m (DeepSpeed's TrainSchedule; optional) */
    bool fp8_dynamic_scaling;          /* its FP8 casts always take the amax of the tensor they cast, and
                                        * fp8_cast_bytes counts that read (optional; 0: delayed scaling,
                                        * current scaling adds its own amax pass) */
    bool remat_policies;               /* its full recompute can keep named GEMM outputs (JAX's
                                        * jax.checkpoint policies, est_input.remat_saves; optional) */
    bool fp32_params;                  /* the trainable parameters are fp32 and are the optimizer's master (no bf16
                                        * copy, Adam's m and v beside them), cast for each use, FSDP-gathered
                                        * after the cast, no FP8 copies cached across micro-batches (optional) */
    bool static_buffers;               /* tensors live in buffers the compiler assigns ahead of the step: no
                                        * caching-allocator fragmentation (optional) */
    char container_image[16];          /* a container image ("nemo", "jax") whose releases container_from to */
    int container_from, container_to;  /* container_to (YYMM) run this stack by default (optional containers;
                                        * 0: none; not inherited through like) */
    double lora_fwd_bytes, lora_bwd_bytes; /* HBM bytes per token per element of an adapted matrix's input +
                                            * output width that the unfused LoRA path (dropout, adapters,
                                            * scaling, add) moves, forward and backward */
} est_stack;

/* HBM traffic units of a layer's non-GEMM ops (elementwise_units x 2h per token) the run's stack
 * moves: its compiled value under torch.compile where it states one, else its eager one, else
 * (0) the caller's default */
double est_stack_elementwise_units(const struct est_input *in);
/* HBM bytes per element of one FP8 quantization of the run: the stack's casts (compiled where it
 * states them, Transformer Engine's 4 without a stack) and current scaling's amax pass */
double est_stack_fp8_cast_bytes(const struct est_input *in);
/* how errors name a model-parallel dimension (EST_PAR_TP: "tensor", ...) */
const char *est_par_name(unsigned bit);
/* sequence parallelism as the stack runs it at tensor-parallel size tp: on with TP > 1 where the
 * stack has it (Megatron's; NULL: megatron-core), never where it does not */
bool est_stack_sequence_parallel(const est_stack *s, int tp);
/* the loss's HBM bytes per logit outside the GEMMs, forward + backward, and the bytes per logit it
 * keeps at its peak: the stack's, else Megatron-Core's fused loss */
double est_stack_logit_bytes(const struct est_input *in);
double est_stack_logit_mem_bytes(const struct est_input *in);

/* Loads data/stacks.csv (compiled in) once; -1 only when the file is malformed. */
int est_stack_load(ac_err *e);
/* parses and checks a stacks table in data/stacks.csv's form as est_stack_load does, without
 * loading it (a copy being edited, tests): 0, or -1 with file, line and key */
int est_stack_check_text(const char *text, size_t len, const char *file, ac_err *e);
/* a stack by name or alias (case-insensitive, '-' = '_'), or NULL */
const est_stack *est_stack_find(const char *name);
/* the stack the container image ("nemo", "jax") of release yymm (2403 for 24.03) runs by default,
 * where a stack states one (containers), else NULL */
const est_stack *est_stack_of_container(const char *image, int yymm);
/* the i-th stack of data/stacks.csv (0: megatron-core), NULL past the last */
const est_stack *est_stack_at(size_t i);
/* megatron-core: the stack the estimator models when none is named */
const est_stack *est_stack_default(void);
/* "megatron-core, nemo-megatron-2022, ..." for error messages and --help */
void est_stack_names(char *buf, size_t len);
/* the name, "did you mean" suggestion for an unknown one (NULL when nothing is close) */
const char *est_stack_suggest(const char *name);

/* whether stack s (NULL: megatron-core) runs the model-parallel dimension dim (EST_PAR_*) */
bool est_stack_runs(const est_stack *s, unsigned dim);
/* -1 with the reason in why when in asks of its stack what it does not run (data/stacks.csv): a
 * model-parallel size (TP, PP, CP, EP > 1, parallelism), an interleaved pipeline
 * (interleaved_pipeline) or sequence parallelism (sequence_parallel); else 0 */
int est_stack_refuses(const struct est_input *in, char *why, size_t len);

/* points in->stack at s and sets what the stack implies: its attention kernel, its
 * gradient dtype and default sharding, its TP overlap, and no sequence parallelism where it has none.
 * Callers set the run's own switches (a row's or a config's) after this. */
void est_stack_apply(struct est_input *in, const est_stack *s);

#endif
