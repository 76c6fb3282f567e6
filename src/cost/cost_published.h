/* cost_published.h — the cost stage checked against published fine-tuning runs.
 *
 * data/finetune_published.csv (compiled in) holds published fine-tuning and training
 * throughputs that are not in ../shared, each with its setup as published (GPU and count,
 * micro and global batch, ZeRO stage, offload, checkpointing, LoRA, stack).  Each row is
 * predicted with cost_evaluate exactly as published; the residuals give the band of a stack
 * that data/bands.csv (derived from pre-training tables) has no validated runs of, so the
 * cost stage states how far off its own stack really is rather than borrowing another's.
 * A check, never a fit: no constant is derived from these rows.
 */
#ifndef AC_COST_PUBLISHED_H
#define AC_COST_PUBLISHED_H

#include <stddef.h>

#include "cost/cost.h"

typedef struct {
    char source[128], what[128], stack[32], gpu[32];
    int gpus;
    double published_tok_s_gpu; /* tokens/s per GPU as published */
    double published_mfu;       /* 0 when not published */
    bool ok;                    /* predicted; else why says why not */
    char why[1024];
    double predicted_tok_s_gpu, err; /* err: predicted / published - 1 */
    double mfu, cookbook_mfu;        /* ours, and 6 x parameters x tokens / time / dense peak */
    bool feasible;                   /* predicted to fit */
    bool offload;                    /* optimizer or parameters offloaded to the CPU */
    bool fwd_bwd;                    /* the published time leaves the optimizer step out (timing fwd_bwd) */
} cost_published_row;

/* How much faster a predicted step reads when the source times only part of it: the row's
 * timing "fwd_bwd" (Anyscale's LLMForge cookbook: "total update time per step ~ fwd_time +
 * bwd_time", the trainer timing model(**batch) and accelerator.backward(loss) apart from
 * optimizer.step(), ray-project/ray finetune_hf_llm.py) leaves the optimizer step (with offload:
 * CPU Adam and the updated weights' copy back, est_result.t_optimizer) out: step / (step -
 * optimizer); 1 for "step" or a step no longer than its optimizer part. */
double cost_published_time_scale(double step_s, double optimizer_s, bool fwd_bwd);

/* the nearest-rank q-quantile of v[0..n) (sorted in place; 0 when n is 0): the convention of
 * the band below, and of the figures the benchmark prints beside it */
double cost_published_quantile(double *v, size_t n, double q);

/* every row predicted as published; *rows (free with free()) and *n */
int cost_published_eval(cost_published_row **rows, size_t *n, ac_err *e);

/* The band of a stack from the published rows: the 80th percentile of |error| over its rows of
 * the same offload class (CPU offload runs are bound by other work than GPU runs) on this GPU
 * when there are at least 3, else on any GPU (*on_gpu false); *median_err the signed median
 * error (positive: predicted too fast).  false when fewer than 3 such rows.  Offloaded rows
 * timed without their optimizer step (fwd_bwd) do not count: the CPU Adam step they leave out is
 * what bounds an offloaded setup's whole step, which the band is printed beside. */
bool cost_published_band(const est_stack *st, const gpu_spec *g, bool offload, double *band, int *rows, bool *on_gpu,
                         double *median_err);

#endif
