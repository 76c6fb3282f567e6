/* size.c — see size.h. */
#include "model/size.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Chinchilla (Hoffmann et al. 2022): compute-optimal training uses ≈ 20 tokens per parameter */
static const double TOKENS_PER_PARAM_OPTIMAL = 20.0;
/* training FLOPs per parameter per token in the original's estimate (§2) */
static const double ORIGINAL_FLOPS_PER_PARAM_TOKEN = 8.0;
/* forward + backward FLOPs per parameter per token (Kaplan et al. 2020) */
static const double FWD_BWD_FLOPS_PER_PARAM_TOKEN = 6.0;

double model_round2(double x)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.2f", x); /* glibc rounds the exact binary value, like Python */
    return strtod(buf, NULL);
}

static int check_budget(int gpus, double tflops, double tokens_b, ac_err *e)
{
    if (gpus <= 0) return ac_err_set(e, AC_E_INPUT, "num_nodes × gpus_per_node must be positive, got %d", gpus);
    if (!(tflops > 0)) return ac_err_set(e, AC_E_INPUT, "tflops_per_gpu must be positive, got %g", tflops);
    if (!(tokens_b > 0)) return ac_err_set(e, AC_E_INPUT, "num_tokens_in_b must be positive, got %g", tokens_b);
    return 0;
}

/* N_opt = sqrt(C / (6 · 20)) from C = 6·N·D and D = 20·N */
static void optimal_size(model_size_report *r)
{
    double n = sqrt(r->flops_budget / (FWD_BWD_FLOPS_PER_PARAM_TOKEN * TOKENS_PER_PARAM_OPTIMAL));
    r->optimal_size_b = n / 1e9;
    r->optimal_tokens_b = TOKENS_PER_PARAM_OPTIMAL * n / 1e9;
}

int model_recommend_size(const model_family *f, double days, int gpus, double tflops, double tokens_b,
                         model_size_report *out, ac_err *e)
{
    if (check_budget(gpus, tflops, tokens_b, e) != 0) return -1;
    if (!(days > 0)) return ac_err_set(e, AC_E_INPUT, "max_training_days must be positive, got %g", days);
    out->gpus = gpus;
    out->tokens = tokens_b * 1e9;
    out->flops_budget = days * 86400.0 * gpus * tflops * 1e12;
    out->penalty = f->size_penalty;
    out->size_b = model_round2(f->size_penalty * out->flops_budget / (ORIGINAL_FLOPS_PER_PARAM_TOKEN * out->tokens) / 1e9);
    out->days = days;
    out->recommended = true;
    optimal_size(out);
    if (!(out->size_b > 0))
        return ac_err_set(e, AC_E_INPUT, "the budget (%g days on %d GPUs) is too small for any model at %g B tokens", days,
                          gpus, tokens_b);
    return 0;
}

int model_training_days(const model_family *f, double size_b, int gpus, double tflops, double tokens_b,
                        model_size_report *out, ac_err *e)
{
    if (check_budget(gpus, tflops, tokens_b, e) != 0) return -1;
    out->gpus = gpus;
    out->tokens = tokens_b * 1e9;
    out->size_b = size_b;
    out->penalty = f->time_penalty;
    out->recommended = false;
    double flops = ORIGINAL_FLOPS_PER_PARAM_TOKEN * size_b * 1e9 * out->tokens;
    out->days = model_round2(f->time_penalty * flops / (86400.0 * gpus * tflops * 1e12));
    out->flops_budget = out->days * 86400.0 * gpus * tflops * 1e12;
    optimal_size(out);
    return 0;
}

void model_size_text(double size_b, char *buf, size_t len)
{
    /* shortest text that reads back: 5 → "5", 0.126 → "0.126" (the original
     * printed the recommended float 5.0 as "5.0": quirk 11) */
    for (int decimals = 0; decimals <= 12; decimals++) {
        snprintf(buf, len, "%.*f", decimals, size_b);
        if (strtod(buf, NULL) == size_b) return;
    }
    snprintf(buf, len, "%.17g", size_b);
}
