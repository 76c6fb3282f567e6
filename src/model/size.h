/* size.h — model-size recommendation and training-time estimate (reference §2).
 *
 * The original: size_B = round2(pen · days·86400 · gpus · tflops·1e12 / (8 · tokens)) / 1e9,
 * days = round2(pen' · 8 · size · tokens / (86400 · gpus · tflops·1e12)),
 * with 8·P·T the training FLOPs (6 for forward+backward, 2 for recomputation).
 * We add the compute-optimal size for the same budget (Hoffmann et al. 2022,
 * "Chinchilla": ≈ 20 tokens per parameter with C = 6·N·D) as a second opinion.
 */
#ifndef AC_MODEL_SIZE_H
#define AC_MODEL_SIZE_H

#include "model/family.h"
#include "util/err.h"

typedef struct {
    int gpus;
    double flops_budget;      /* days · 86400 · gpus · tflops · 1e12 */
    double tokens;            /* num_tokens_in_b · 1e9 */
    double size_b;            /* recommended (or given) size, billions */
    double days;              /* training days for size_b (given size) or the budget */
    double penalty;           /* family factor applied */
    bool recommended;         /* size was computed, not given */
    double optimal_size_b;    /* compute-optimal size for the same budget */
    double optimal_tokens_b;  /* its tokens (20 per parameter) */
} model_size_report;

/* Python round(x, 2): correctly rounded decimal of the binary double */
double model_round2(double x);

int model_recommend_size(const model_family *f, double days, int gpus, double tflops, double tokens_b,
                         model_size_report *out, ac_err *e);
int model_training_days(const model_family *f, double size_b, int gpus, double tflops, double tokens_b,
                        model_size_report *out, ac_err *e);

/* the size as the tool writes it in names: shortest text ("5", "0.126", "12.9") */
void model_size_text(double size_b, char *buf, size_t len);

#endif
