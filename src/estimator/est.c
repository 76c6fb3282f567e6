/* est.c — memory and step-time model of one training candidate.
 *
 * The model is a roofline per kernel plus explicit communication:
 *   one layer  GEMMs, attention, elementwise traffic, casts, experts, and the TP/CP/EP
 *              collectives of one micro-batch (layer_cost.c)
 *   groups     which ranks share an NVLink domain and what a collective costs
 *              (collective.c; Megatron-Core rank order tp-cp-ep-dp-pp)
 *   here       stages of layers, recompute, the pipeline schedule (bubble (p−1)/(v·m),
 *              Narayanan et al. 2021 §2.2), DP gradient reduce-scatter / all-reduce and
 *              parameter all-gather overlapped with the last micro-batch's backward, the
 *              optimizer step, and memory: weights/grads/optimizer per Megatron's
 *              distributed-optimizer table, activations per Korthikanti et al. 2022 §4
 *              times the micro-batches the pipeline schedule keeps in flight.
 */
#include "estimator/est.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "estimator/band.h"
#include "estimator/collective.h"
#include "estimator/layer_cost.h"
#include "estimator/stack.h"
#include "model/layer.h"
#include "util/csv.h"
#include "util/fsutil.h"
#include "util/text.h"
#include "util/strbuf.h"

extern const char ac_data_calibration[]; /* build/gen/data_calibration.c */

#define GB 1e9
#define GIB (1024.0 * 1024.0 * 1024.0)
/* DeepSpeed's default reduce_bucket_size 5e8 elements in bf16 */
#define OFFLOAD_GRAD_BUCKET_B (5e8 * 2.0)

/* ---------- precision ---------- */

static const struct {
    est_precision p;
    const char *name;
    const char *spellings; /* '|'-separated, lower case, matched as prefixes */
} PRECISIONS[] = {
    {PREC_BF16, "bf16", "bf16|bfloat16|16-mixed|bf16-mixed|mixed"},
    {PREC_FP16, "fp16", "fp16|float16|16"},
    {PREC_FP8, "fp8", "fp8|mxfp8|fp8-cs|fp8-mx|fp8 "},
    {PREC_FP4, "fp4", "nvfp4|fp4|mxfp4"},
    {PREC_FP32, "fp32", "fp32|float32|32"},
};

const char *est_precision_name(est_precision p)
{
    for (size_t i = 0; i < sizeof PRECISIONS / sizeof *PRECISIONS; i++)
        if (PRECISIONS[i].p == p) return PRECISIONS[i].name;
    return "?";
}

static const char *const RECOMPUTE_NAMES[] = {[RECOMPUTE_NONE] = "none", [RECOMPUTE_SELECTIVE] = "selective", [RECOMPUTE_FULL] = "full"};

const char *est_recompute_name(est_recompute r)
{
    return r >= RECOMPUTE_NONE && r <= RECOMPUTE_FULL ? RECOMPUTE_NAMES[r] : "?";
}

int est_recompute_parse(const char *text, est_recompute *out)
{
    for (int r = RECOMPUTE_NONE; r <= RECOMPUTE_FULL; r++)
        if (!strcmp(text, RECOMPUTE_NAMES[r])) { *out = (est_recompute)r; return 0; }
    return -1;
}

/* MaxText layers/models.py: each policy's jax.checkpoint_policies.save_only_these_names
 * ("minimal", checkpoint_dots_with_no_batch_dims, keeps every projection and none of
 * attention's batched dots) */
static const struct {
    const char *name;
    unsigned saves;
} REMAT_POLICIES[] = {
    {"full", 0},
    {"minimal", EST_SAVE_QKV | EST_SAVE_OUT | EST_SAVE_MLPWI | EST_SAVE_MLPWO},
    {"save_qkv_proj", EST_SAVE_QKV},
    {"save_out_proj", EST_SAVE_OUT},
    {"save_dot_except_mlp", EST_SAVE_QKV | EST_SAVE_OUT},
    {"save_dot_except_mlpwi", EST_SAVE_QKV | EST_SAVE_OUT | EST_SAVE_MLPWO},
};

int est_remat_policy_parse(const char *text, unsigned *saves)
{
    for (size_t i = 0; i < sizeof REMAT_POLICIES / sizeof *REMAT_POLICIES; i++)
        if (!strcmp(text, REMAT_POLICIES[i].name)) { *saves = REMAT_POLICIES[i].saves; return 0; }
    return -1;
}

bool est_layer_remat_named(const est_input *in)
{
    return in->recompute == RECOMPUTE_FULL && in->stack && in->stack->remat_policies && in->shape.arch == ARCH_DECODER &&
           !shape_is_hybrid(&in->shape);
}

bool est_fp32_master(const est_input *in) { return in->stack && in->stack->fp32_params && in->lora_rank == 0; }

const char *est_remat_policy_suggest(const char *text)
{
    text_nearest near;
    text_nearest_init(&near, 3);
    for (size_t i = 0; i < sizeof REMAT_POLICIES / sizeof *REMAT_POLICIES; i++) text_nearest_offer(&near, text, REMAT_POLICIES[i].name);
    return near.best;
}

int est_precision_parse(const char *text, est_precision *out)
{
    char low[64];
    size_t n = 0;
    while (*text == ' ') text++;
    for (; text[n] && n + 1 < sizeof low; n++) low[n] = (char)((text[n] >= 'A' && text[n] <= 'Z') ? text[n] + 32 : text[n]);
    low[n] = '\0';
    if (!n) return -1;
    /* exact names first, then prefixes ("fp8 (per-tensor current scaling)") */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < sizeof PRECISIONS / sizeof *PRECISIONS; i++) {
            char buf[96];
            snprintf(buf, sizeof buf, "%s", PRECISIONS[i].spellings);
            for (char *save = NULL, *tok = strtok_r(buf, "|", &save); tok; tok = strtok_r(NULL, "|", &save)) {
                size_t tl = strlen(tok);
                if (pass == 0 ? !strcmp(low, tok) : (!strncmp(low, tok, tl) && (low[tl] == ' ' || low[tl] == '(' || low[tl] == '-' || !low[tl]))) {
                    *out = PRECISIONS[i].p;
                    return 0;
                }
            }
        }
    return -1;
}

double est_peak_tflops(const gpu_spec *g, est_precision p)
{
    switch (p) {
    case PREC_FP4: if (g->fp4_tflops > 0) return g->fp4_tflops; /* fall through */
    case PREC_FP8: if (g->fp8_tflops > 0) return g->fp8_tflops; /* fall through */
    case PREC_BF16:
    case PREC_FP16: return g->bf16_tflops;
    case PREC_FP32: return g->bf16_tflops / 16.0; /* no tensor cores for plain fp32: TF32 is ~1/2, CUDA cores ~1/16 */
    }
    return g->bf16_tflops;
}

double est_gemm_tflops(const gpu_spec *g, est_precision p, double fp4_speedup)
{
    if (p == PREC_FP4 && g->fp4_tflops > 0) return est_fp4_gemm_tflops(g, fp4_speedup);
    return est_peak_tflops(g, p);
}

double est_gemm_eff(const gpu_spec *g, est_precision p)
{
    bool low = p == PREC_FP8 || p == PREC_FP4;
    return low && g->fp8_gemm_eff > 0 ? g->fp8_gemm_eff : g->gemm_eff;
}

/* ---------- calibration constants ---------- */

/* each key with the range a cluster can have: a value outside it is a typo that would
 * print impossible numbers (compute_scale 1e308: MFU 553 %); compute_scale's is the
 * range `autoconfig calibrate` fits over */
static const struct {
    const char *key;
    size_t off;
    double lo, hi;
} CAL_KEYS[] = {
    {"collective_eff", offsetof(est_cal, collective_eff), 0, 1}, {"p2p_eff", offsetof(est_cal, p2p_eff), 0, 1},
    {"attn_eff", offsetof(est_cal, attn_eff), 0, 1},             {"moe_gemm_eff", offsetof(est_cal, moe_gemm_eff), 0, 1},
    {"elementwise_units", offsetof(est_cal, elementwise_units), 0, 1000}, {"min_kernel_us", offsetof(est_cal, min_kernel_us), 0, 1e4},
    {"tp_overlap", offsetof(est_cal, tp_overlap), 0, 1},         {"dp_tail", offsetof(est_cal, dp_tail), 0, 1},
    {"cuda_context_gb", offsetof(est_cal, cuda_context_gb), 0, 256}, {"fragmentation", offsetof(est_cal, fragmentation), 0, 1},
    {"memory_limit_frac", offsetof(est_cal, memory_limit_frac), 0, 1}, {"step_overhead_s", offsetof(est_cal, step_overhead_s), 0, 3600},
    {"moe_imbalance", offsetof(est_cal, moe_imbalance), 0, 100}, {"moe_permute_units", offsetof(est_cal, moe_permute_units), 0, 1000},
    {"fp4_speedup", offsetof(est_cal, fp4_speedup), 0, 4}, {"moe_launch_us", offsetof(est_cal, moe_launch_us), 0, 1e4},
    {"layer_overhead_us", offsetof(est_cal, layer_overhead_us), 0, 1e5},
    {"attn_bwd_ratio", offsetof(est_cal, attn_bwd_ratio), 0.1, 1.0},
    {"attn_block_overhead", offsetof(est_cal, attn_block_overhead), 0, 64},
    {"attn_block_overhead_fa2", offsetof(est_cal, attn_block_overhead_fa2), 0, 64},
    {"attn_exp_share", offsetof(est_cal, attn_exp_share), 0, 1},
    {"attn_ref_burst", offsetof(est_cal, attn_ref_burst), 0.01, 1},
    {"nccl_ctas", offsetof(est_cal, nccl_ctas), 0, 64},
    {"infer_memory_limit_frac", offsetof(est_cal, infer_memory_limit_frac), 0.01, 1},
    {"compute_scale", offsetof(est_cal, compute_scale), 0.1, 3.0},
    {"pageable_copy_share", offsetof(est_cal, pageable_copy_share), 0.01, 1},
};
enum { CAL_N = sizeof CAL_KEYS / sizeof *CAL_KEYS };

static int cal_apply(const csv_table *t, est_cal *c, bool require_all, ac_err *e)
{
    int kc = csv_col(t, "key"), vc = csv_col(t, "value");
    if (kc < 0 || vc < 0) return ac_err_at(e, AC_E_INPUT, t->file, 1, 0, NULL, "calibration CSV needs columns key,value");
    bool seen[CAL_N] = {0};
    for (size_t i = 0; i < t->n; i++) {
        const char *k = csv_get(&t->rows[i], kc), *v = csv_get(&t->rows[i], vc);
        size_t j = 0;
        while (j < CAL_N && strcmp(CAL_KEYS[j].key, k)) j++;
        if (j == CAL_N) return ac_err_at(e, AC_E_INPUT, t->file, t->rows[i].line, 0, k, "unknown calibration key");
        char *end;
        double x = strtod(v, &end);
        if (!*v || *end || !isfinite(x) || x < 0)
            return ac_err_at(e, AC_E_INPUT, t->file, t->rows[i].line, 0, k, "not a non-negative number: '%s'", v);
        if (x < CAL_KEYS[j].lo || x > CAL_KEYS[j].hi)
            return ac_err_at(e, AC_E_INPUT, t->file, t->rows[i].line, 0, k, "%g is outside [%g, %g]", x, CAL_KEYS[j].lo,
                             CAL_KEYS[j].hi);
        *(double *)((char *)c + CAL_KEYS[j].off) = x;
        seen[j] = true;
    }
    if (require_all)
        for (size_t j = 0; j < CAL_N; j++)
            if (!seen[j]) return ac_err_at(e, AC_E_INTERNAL, t->file, 0, 0, CAL_KEYS[j].key, "calibration key missing");
    if (c->collective_eff <= 0 || c->collective_eff > 1 || c->p2p_eff <= 0 || c->p2p_eff > 1 || c->attn_eff <= 0 ||
        c->attn_eff > 1 || c->moe_gemm_eff <= 0 || c->moe_gemm_eff > 1 || c->tp_overlap > 1 || c->dp_tail > 1 ||
        c->memory_limit_frac <= 0 || c->memory_limit_frac > 1)
        return ac_err_at(e, AC_E_INPUT, t->file, 0, 0, NULL, "efficiencies and fractions must lie in (0, 1]");
    if (c->compute_scale <= 0) return ac_err_at(e, AC_E_INPUT, t->file, 0, 0, "compute_scale", "must be positive");
    return 0;
}

int est_cal_default(est_cal *out, ac_err *e)
{
    static est_cal cached;
    static int loaded;
    if (!loaded) {
        csv_table t;
        if (csv_parse(ac_data_calibration, strlen(ac_data_calibration), "data/calibration.csv", &t, e)) return -1;
        est_cal c = {0};
        int rc = cal_apply(&t, &c, true, e);
        csv_free(&t);
        if (rc) return -1;
        cached = c;
        loaded = 1;
    }
    *out = cached;
    return 0;
}

/* a parsed calibration table over *c, all or nothing; frees t */
static int cal_apply_over(csv_table *t, est_cal *c, ac_err *e)
{
    est_cal tmp = *c;
    int rc = cal_apply(t, &tmp, false, e);
    csv_free(t);
    if (!rc) *c = tmp;
    return rc;
}

int est_cal_load_text(const char *text, size_t len, const char *name, est_cal *c, ac_err *e)
{
    csv_table t;
    if (csv_parse(text, len, name, &t, e)) return -1;
    return cal_apply_over(&t, c, e);
}

int est_cal_load_file(const char *path, est_cal *c, ac_err *e)
{
    csv_table t;
    if (csv_read_file(path, &t, e)) return -1;
    return cal_apply_over(&t, c, e);
}

int est_cal_write_file(const char *path, const est_cal *c, const char *why, ac_err *e)
{
    strbuf b = {0};
    sb_printf(&b, "# autoconfig calibration (est_cal): %s\nkey,value,reason\n", why ? why : "");
    for (size_t j = 0; j < CAL_N; j++)
        sb_printf(&b, "%s,%.6g,%s\n", CAL_KEYS[j].key, *(const double *)((const char *)c + CAL_KEYS[j].off),
                  why ? "fitted" : "");
    int rc = b.oom ? ac_err_set(e, AC_E_NOMEM, "out of memory") : fs_write_atomic(path, sb_str(&b), b.len, e);
    sb_free(&b);
    return rc;
}

/* ---------- inputs ---------- */

void est_input_init(est_input *in, const model_shape *shape, const gpu_spec *gpu)
{
    memset(in, 0, sizeof *in);
    in->shape = *shape;
    in->tp = in->pp = in->vp = in->cp = in->ep = in->etp = 1;
    in->mbs = 1;
    in->gbs = 1;
    in->recompute_layers = 0;
    in->num_mbs_act = -1;
    in->act_per_pipe = -1;
    in->lora_targets = 4;
    in->precision = PREC_BF16;
    in->flash_attention = true;
    in->tp_comm_overlap = true;
    in->gpu = gpu;
}


static int derive_dp(const est_input *in)
{
    if (in->dp > 0) return in->dp;
    long long mp = (long long)in->tp * in->pp * in->cp; /* 64-bit: sizes are checked, products are not */
    return mp > 0 && in->num_gpus > 0 && in->num_gpus % mp == 0 ? (int)(in->num_gpus / mp) : 0;
}

#define WHY(...) (snprintf(why, why_len, __VA_ARGS__), -1)

int est_check(const est_input *in, char *why, size_t why_len)
{
    char dummy[8];
    if (!why || !why_len) { why = dummy; why_len = sizeof dummy; }
    why[0] = '\0';
    const model_shape *s = &in->shape;
    if (!in->gpu) return WHY("no GPU given");
    if (s->num_layers < 1 || s->hidden < 1 || s->heads < 1 || s->seq_length < 1 || s->vocab < 1)
        return WHY("model shape incomplete (layers, hidden size, heads, sequence length and vocab must be positive)");
    if (in->remat_saves && !(in->stack && in->stack->remat_policies))
        return WHY("a remat policy keeps named outputs of a JAX stack's recompute; %s recomputes whole layers",
                   in->stack ? in->stack->name : "megatron-core");
    if (in->tp < 1 || in->pp < 1 || in->cp < 1 || in->ep < 1 || in->vp < 1 || in->etp < 1)
        return WHY("parallel sizes must be at least 1");
    if (in->mbs < 1 || in->gbs < 1) return WHY("micro and global batch sizes must be at least 1");
    if (est_stack_refuses(in, why, why_len)) return -1;
    if (s->heads % in->tp) return WHY("TP %d does not divide %d attention heads", in->tp, s->heads);
    if (shape_query_groups(s) % in->tp) return WHY("TP %d does not divide %d query groups (KV heads)", in->tp, shape_query_groups(s));
    int L = shape_total_layers(s);
    if (L % in->pp && !in->allow_uneven_pp)
        return WHY("PP %d does not divide %d layers (an uneven split needs a pipeline layout: embedding_loss or "
                   "remainder_last, --pp-layout)", in->pp, L);
    if (in->pp > L) return WHY("PP %d exceeds the %d layers", in->pp, L);
    if (in->vp > 1) {
        if (in->pp < 2) return WHY("virtual pipeline %d needs PP > 1", in->vp);
        if (L % in->pp == 0 && (L / in->pp) % in->vp)
            return WHY("virtual pipeline %d does not divide %d layers per pipeline stage", in->vp, L / in->pp);
    }
    if (shape_is_hybrid(s)) {
        const char *key, *bad = layer_hybrid_check(s, &key);
        if (bad) return WHY("hybrid stack (%s): %s", key, bad);
        if (s->hyb_mamba + s->hyb_attn + s->hyb_mlp + s->hyb_moe != s->num_layers)
            return WHY("hybrid stack: %d blocks in its pattern, %d layers", s->hyb_mamba + s->hyb_attn + s->hyb_mlp + s->hyb_moe,
                       s->num_layers);
        /* MambaModel is Megatron-Core's; no other stack of data/stacks.csv runs it */
        if (in->stack && strcmp(in->stack->name, "megatron-core"))
            return WHY("hybrid Mamba-Transformer stacks run on Megatron-Core's MambaModel, not %s", in->stack->name);
        if (in->vp > 1) /* Megatron-Bridge MambaModelProvider.provide asserts it */
            return WHY("virtual pipeline %d: Megatron-Core's MambaModel does not run interleaved pipelines", in->vp);
        /* MambaStack gives each pipeline rank num_layers // PP consecutive blocks
         * (_select_layers_for_pipeline_parallel): no uneven split, no embedding/loss share */
        if (L % in->pp || in->pp_layout != EST_PP_EVEN)
            return WHY("PP %d with %s stages: Megatron-Core's MambaStack splits its %d blocks evenly, %d per stage",
                       in->pp, L % in->pp ? "uneven" : est_pp_layout_name(in->pp_layout), L, L / in->pp);
    }
    if (s->hyb_mamba > 0) {
        if (in->cp > 1) return WHY("context parallelism of Mamba-2 blocks is not modelled (CP %d)", in->cp);
        if (s->mamba_heads % in->tp || s->mamba_groups % in->tp)
            return WHY("TP %d does not divide the %d Mamba heads and %d groups (Megatron-Core MambaMixer splits both)",
                       in->tp, s->mamba_heads, s->mamba_groups);
    }
    if (in->cp > 1 && s->seq_length % (2LL * in->cp))
        return WHY("CP %d: sequence length %d is not a multiple of 2×CP (load-balanced causal split)", in->cp, s->seq_length);
    if (in->ep > 1 && !shape_is_moe(s)) return WHY("EP %d needs a mixture-of-experts model", in->ep);
    if (shape_is_moe(s) && s->num_experts % in->ep) return WHY("EP %d does not divide %d experts", in->ep, s->num_experts);
    if (in->precision == PREC_FP8 && in->gpu->fp8_tflops <= 0) return WHY("%s has no FP8 tensor cores", in->gpu->name);
    if (in->precision == PREC_FP4 && in->gpu->fp4_tflops <= 0) return WHY("%s has no FP4 tensor cores", in->gpu->name);
    /* products in 64 bits: each size is an int, a product of them need not be */
    long long mp = (long long)in->tp * in->pp * in->cp;
    int dp = derive_dp(in);
    if (dp < 1)
        return WHY("%d GPUs are not a multiple of TP %d × PP %d × CP %d = %lld", in->num_gpus, in->tp, in->pp, in->cp, mp);
    if (in->num_gpus > 0 && in->num_gpus != mp * dp)
        return WHY("%d GPUs ≠ TP·PP·CP·DP = %lld", in->num_gpus, mp * dp);
    if (in->num_gpus <= 0 && mp * dp > INT_MAX) return WHY("TP·PP·CP·DP = %lld GPUs is not a real cluster", mp * dp);
    if (in->ep > 1) {
        long long world_per_stage = (long long)in->tp * in->cp * dp;
        if (world_per_stage % ((long long)in->ep * in->etp))
            return WHY("EP %d × expert TP %d does not divide the %lld GPUs of a pipeline stage", in->ep, in->etp,
                       world_per_stage);
    }
    long long mbs_dp = (long long)in->mbs * dp;
    if (in->gbs % mbs_dp) return WHY("GBS %d is not a multiple of MBS %d × DP %d = %lld", in->gbs, in->mbs, dp, mbs_dp);
    int m = (int)(in->gbs / mbs_dp);
    if (in->vp > 1 && m % in->pp)
        return WHY("interleaved pipeline needs the %d micro-batches per step to be a multiple of PP %d", m, in->pp);
    long long stage_chunks = (long long)in->pp * in->vp;
    int per_chunk = (int)((L + stage_chunks - 1) / stage_chunks);
    if (in->recompute_layers < 0 || in->recompute_layers > per_chunk)
        return WHY("recompute of %d layers exceeds the %d layers of a pipeline stage", in->recompute_layers, per_chunk);
    if (in->zero_stage < 0 || in->zero_stage > 3) return WHY("ZeRO stage %d is not 0-3", in->zero_stage);
    /* Megatron-Core TransformerConfig refuses these combinations */
    if (shape_is_moe(s) && in->tp > 1 && !in->sequence_parallel)
        return WHY("MoE with TP %d needs sequence parallelism (Megatron-Core requires it)", in->tp);
    /* est_a2a_overlap_allowed states the same rule */
    if (in->moe_a2a_overlap && in->ep < 2) return WHY("MoE all-to-all overlap needs EP > 1");
    if (in->moe_a2a_overlap && in->pp > 1 && in->vp < 2)
        return WHY("MoE all-to-all overlap with PP %d needs an interleaved (virtual) pipeline", in->pp);
    if (in->recompute_mla_up_proj && !layer_is_mla(s))
        return WHY("MLA up-projection recompute needs multi-head latent attention (kv_lora_rank > 0)");
    if (in->recompute_moe_act && !shape_is_moe(s))
        return WHY("MoE activation recompute (moe_act) needs a mixture-of-experts model (num_experts > 1)");
    if (in->offload_act_layers > 0 && in->pp > 1)
        return WHY("activation offload does not run with pipeline parallelism (PP %d)", in->pp);
    if (in->offload_act_layers > 0 && in->recompute != RECOMPUTE_NONE)
        return WHY("activation offload does not run together with activation recompute");
    if (in->offload_act_layers < 0 || in->offload_act_layers >= (L + in->pp - 1) / in->pp)
        return WHY("activation offload of %d layers must be fewer than the %d layers of a pipeline stage",
                   in->offload_act_layers, (L + in->pp - 1) / in->pp);
    if (in->lora_rank < 0) return WHY("LoRA rank must be ≥ 0");
    if (in->fp8_param_gather && in->precision != PREC_FP8)
        return WHY("FP8 parameter gather keeps FP8 weights: it needs FP8 precision, not %s", est_precision_name(in->precision));
    /* Megatron-LM arguments.py: fp8_param_gather only with the distributed optimizer or FSDP */
    if (in->fp8_param_gather && in->zero_stage < 1)
        return WHY("FP8 parameter gather needs the distributed optimizer or FSDP (ZeRO stage >= 1)");
    if (in->fp8_param_gather && in->lora_rank > 0) return WHY("FP8 parameter gather is for full training, not LoRA");
    if (in->grad_bytes < 0 || (in->grad_bytes > 0 && in->grad_bytes != 2.0 && in->grad_bytes != 4.0))
        return WHY("gradients are reduced in 2 (bf16) or 4 (fp32) bytes, not %g", in->grad_bytes);
    return 0;
}

bool est_fp8_gather_allowed(const est_input *in)
{
    return in->precision == PREC_FP8 && in->zero_stage >= 1 && in->lora_rank == 0;
}

bool est_a2a_overlap_allowed(const est_input *in)
{
    return shape_is_moe(&in->shape) && in->ep >= 2 && (in->pp == 1 || in->vp >= 2);
}

/* ---------- parameters ---------- */

typedef struct {
    double attn, mlp_dense, mlp_expert, norms; /* per layer: the average layer of the stack */
    double replicated;                          /* per layer: weights every TP rank holds whole */
    double cross_attn;                         /* per T5 decoder layer */
    double embedding, output_layer, position;
    double mtp, mtp_experts;                   /* multi-token prediction modules (last stage), their routed experts */
} param_counts;

/* Parameter counts from the shape (Megatron-Core layer spec; layer.h for attention and
 * MLP weights): expert layers hold experts, shared experts and a router, leading dense
 * layers a dense MLP; each average layer carries its share of both.  Two norms per
 * layer; embedding V·h.  A multi-token prediction module is one expert layer plus the
 * 2h→h projection of [hidden; next embedding] (DeepSeek-V3 §2.2).  Biases are ignored
 * (< 0.1 %). */
static param_counts count_params(const model_shape *s)
{
    param_counts p = {0};
    double h = s->hidden, d = shape_head_dim(s), a = s->heads, g = shape_query_groups(s);
    layer_attn at;
    layer_attn_of(s, &at);
    layer_mamba mb;
    layer_mamba_of(s, &mb);
    double L = s->num_layers, moe = layer_moe_count(s), experts = layer_expert_weights(s);
    /* a hybrid stack's average block: its share of attention and Mamba-2 mixers, one norm */
    p.attn = shape_is_hybrid(s) ? (layer_attn_count(s) * at.weights + s->hyb_mamba * (mb.params - h)) / L : at.weights;
    p.mlp_expert = moe / L * experts; /* routed experts: sharded by EP */
    /* LatentMoE's h → latent and latent → h projections: replicated over TP (priced so in
     * moe_mlp_fwd_s), kept apart from the TP-split dense weights */
    p.replicated = moe * 2.0 * h * s->moe_latent / L;
    p.mlp_dense = (layer_stack_mlp_weights(s, NULL) - moe * experts) / L - p.replicated; /* dense MLPs, shared experts, routers */
    p.norms = shape_is_hybrid(s) ? h : 2.0 * h;
    if (s->arch == ARCH_ENCODER_DECODER) p.cross_attn = h * (a * d) * 2.0 + 2.0 * h * g * d + h;
    p.embedding = (double)s->vocab * h;
    p.output_layer = s->untied_embeddings ? (double)s->vocab * h : 0.0;
    p.position = s->learned_pos_emb ? (double)s->seq_length * h : 0.0;
    if (s->mtp_layers > 0) {
        p.mtp = s->mtp_layers * (at.weights + layer_mlp_weights(s, moe > 0, NULL) + 2.0 * h * h + 4.0 * h);
        p.mtp_experts = moe > 0 ? s->mtp_layers * experts : 0.0;
    }
    return p;
}

/* every parameter of the model, from its counts (count_params) */
static double params_total(const model_shape *s, const param_counts *p)
{
    double per_layer = p->attn + p->mlp_dense + p->mlp_expert + p->norms + p->replicated;
    double n = per_layer * shape_total_layers(s) + p->embedding + p->output_layer + p->position + p->mtp;
    if (s->arch == ARCH_ENCODER_DECODER) n += p->cross_attn * s->num_layers;
    return n;
}

/* what a row recomputes, as Megatron-Core names it: "full", or the selective modules
 * joined by '+' (core_attn, mla_up_proj, layernorm, moe_act); empty for none */
void est_full_recompute_text(unsigned remat_saves, char *buf, size_t n)
{
    /* a JAX remat policy keeping named outputs: its name (or the saves' own mask) */
    const char *policy = NULL;
    for (size_t i = 0; i < sizeof REMAT_POLICIES / sizeof *REMAT_POLICIES && remat_saves; i++)
        if (REMAT_POLICIES[i].saves == remat_saves) policy = REMAT_POLICIES[i].name;
    if (policy) snprintf(buf, n, "full (%s)", policy);
    else if (remat_saves) snprintf(buf, n, "full (saves 0x%x)", remat_saves);
    else snprintf(buf, n, "full");
}

void est_recompute_text(const est_input *in, char *buf, size_t n)
{
    static const char *const names[] = {"core_attn", "mla_up_proj", "layernorm", "moe_act"};
    bool on[] = {in->recompute == RECOMPUTE_SELECTIVE, in->recompute_mla_up_proj, in->recompute_layernorm,
                 in->recompute_moe_act};
    buf[0] = '\0';
    if (in->recompute == RECOMPUTE_FULL) {
        est_full_recompute_text(in->remat_saves, buf, n);
        return;
    }
    size_t len = 0;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        if (!on[i]) continue;
        int w = snprintf(buf + len, n - len, "%s%s", len ? "+" : "", names[i]);
        if (w < 0 || (size_t)w >= n - len) return;
        len += (size_t)w;
    }
}

/* layout names, indexed by est_pp_layout (data/recipes.csv, estimate --pp-layout) */
static const char *const PP_LAYOUT_NAMES[] = {[EST_PP_EVEN] = "even", [EST_PP_REMAINDER_LAST] = "remainder_last",
                                               [EST_PP_EMBEDDING_LOSS] = "embedding_loss"};

const char *est_stage_name(int stage)
{
    static const char *const names[EST_MEM_STAGES] = {[EST_STAGE_FIRST] = "first", [EST_STAGE_LAST] = "last",
                                                      [EST_STAGE_MIDDLE] = "middle"};
    return stage >= 0 && stage < EST_MEM_STAGES ? names[stage] : "?";
}

const char *est_pp_layout_name(est_pp_layout layout)
{
    return (unsigned)layout < sizeof PP_LAYOUT_NAMES / sizeof *PP_LAYOUT_NAMES ? PP_LAYOUT_NAMES[layout] : "?";
}

int est_pp_layout_parse(const char *name, est_pp_layout *out)
{
    for (size_t i = 0; i < sizeof PP_LAYOUT_NAMES / sizeof *PP_LAYOUT_NAMES; i++)
        if (name && !strcmp(name, PP_LAYOUT_NAMES[i])) {
            *out = (est_pp_layout)i;
            return 0;
        }
    return -1;
}

/* Decoder layers on the first, the largest and the last pipeline stage (Ls = ceil(L/p)
 * for all three unless the layout says otherwise; PP 1: all of them):
 * - EST_PP_REMAINDER_LAST (Megatron-Bridge deepseek_v3 recipe layout_map and performance
 *   configs' pp_layout, e.g. "Et*4|(t*4|)*14tmL"): every virtual chunk gets ceil(L/(p·v))
 *   layers and the last chunk the remainder, next to the MTP modules and the loss;
 * - EST_PP_EMBEDDING_LOSS (Megatron-Core account_for_embedding_in_pipeline_split and
 *   account_for_loss_in_pipeline_split, set by the Llama 3.1 405B and Qwen3 MoE recipes):
 *   the embedding and the loss count as one layer each, u = (L + 2)/(p·v) per chunk, so
 *   the first and the last stage run v·u − 1 layers and the others v·u.
 * A layout whose arithmetic does not close keeps the even split. */
void est_stage_layers(const est_input *in, double *first, double *largest, double *last)
{
    int L = shape_total_layers(&in->shape), p = in->pp, v = in->vp > 0 ? in->vp : 1;
    double even = (double)((L + p - 1) / p);
    *first = *largest = *last = even;
    if (p < 2) return;
    if (in->pp_layout == EST_PP_REMAINDER_LAST && L % (p * v) != 0) {
        double per_chunk = (double)((L + p * v - 1) / (p * v));
        double rest = L - (p - 1) * v * per_chunk;
        if (rest >= 0) {
            *first = *largest = v * per_chunk;
            *last = rest;
        }
    } else if (in->pp_layout == EST_PP_EMBEDDING_LOSS && (L + 2) % (p * v) == 0) {
        double u = (double)((L + 2) / (p * v));
        *largest = v * u;
        *first = *last = v * u - 1;
    }
}

/* A network queue of v jobs of total/v seconds each, released u apart: it ends
 * c + (v−1)·max(0, c − u) after the last release (c = total/v). */
static double chunk_queue_s(double total, int v, double u)
{
    double c = total / v;
    return c + (v - 1) * fmax(0.0, c - u);
}

/* Activation bytes of a stage holding `layers_held` layer-activations (layers × micro-
 * batches in flight) that go to host memory when n_off layers of each micro-batch are
 * offloaded */
static double offloaded_bytes(double layers_held, double Ls, double n_off, double act_per_layer)
{
    return fmin(layers_held, layers_held / Ls * n_off) * act_per_layer;
}

/* Bytes of `total` parameters of which `layers` sit in transformer layers at `layer_b`
 * bytes each and the rest (embeddings, output layer) at `other_b` */
static double param_bytes(double total, double layers, double layer_b, double other_b)
{
    return layers * layer_b + (total - layers) * other_b;
}

/* parameters one GPU of a pipeline stage holds: all of them, the routed experts' share
 * and the decoder layers' share (the rest: embedding, output layer) */
typedef struct {
    double total, experts, layers;
} stage_params;

/* Bytes a sharded stack gathers again for a micro-batch's backward after resharding: all of the
 * stage's parameters, or only its layers' where the stack keeps the root unit gathered from its
 * forward to the end of the backward (fsdp_root_kept: PyTorch FSDP does not reshard the root
 * after forward, FSDP1's _post_forward_reshard "not state._is_root" and FSDP2's root
 * post_forward_mesh_info None) */
static double fsdp_bwd_gather_bytes(const est_input *in, const stage_params *st, double layer_b, double other_b)
{
    if (in->stack && in->stack->fsdp_root_kept) return st->layers * layer_b;
    return param_bytes(st->total, st->layers, layer_b, other_b);
}

/* a stage of n decoder layers plus `other` parameters outside them */
static stage_params stage_params_of(double n, double layer, double layer_experts, double other)
{
    return (stage_params){n * layer + other, n * layer_experts, n * layer};
}

/* ---------- the model ---------- */

double est_model_flops(const model_shape *s, double B)
{
    double h = s->hidden, L = s->num_layers, V = s->vocab, sq = s->seq_length;
    if (s->arch == ARCH_ENCODER) /* BERT (reference §6) */
        return 72.0 * B * L * sq * h * h * (1.0 + sq / (6.0 * h) + V / (12.0 * h * L));
    if (s->arch == ARCH_ENCODER_DECODER) { /* T5/mT5 (reference §6) */
        double se = sq, sd = s->dec_seq_length > 0 ? s->dec_seq_length : sq, f = s->ffn_hidden;
        double enc = 8 * B * se * h * h + 4 * B * se * se * h + 6 * B * se * h * f;
        double dec = 8 * B * sd * h * h + 4 * B * sd * sd * h + (4 * B * se * h * h + 4 * B * sd * h * h + 4 * B * se * sd * h) +
                     6 * B * sd * h * f;
        return 3.0 * ((enc + dec) * L + 2 * B * sd * h * V);
    }
    /* decoders: Megatron's num_floating_point_operations (training.py): 6 FLOPs per token
     * per GEMM weight it passes (Kaplan et al. 2020 §2.1), attention 6·s²·a·(d_qk + d_v)
     * per sequence and layer (full square, as Megatron counts it), output layer 6·s·h·V;
     * for MHA with a 4h GELU MLP the original's GPT formula (24Bsh² + 4Bs²h)·3L + 6BshV.
     * Multi-token prediction modules add their projection, layer and output layer.  A
     * hybrid stack counts attention on its attention blocks only, and its Mamba-2 blocks'
     * SSD scan three times its forward (layer_mamba_scan_flops). */
    layer_attn at;
    layer_attn_of(s, &at);
    double attn = 6.0 * B * sq * sq * s->heads * (at.qk_dim + at.v_dim);
    double logits = 6.0 * B * sq * h * V;
    double flops = 6.0 * B * sq * layer_stack_active_gemm_weights(s) + layer_attn_count(s) * attn + logits;
    if (s->hyb_mamba > 0) flops += 3.0 * B * sq * s->hyb_mamba * layer_mamba_scan_flops(s);
    if (s->mtp_layers > 0) {
        double mlp_active = layer_mlp_gemm_active(s, layer_moe_count(s) > 0);
        flops += s->mtp_layers * (6.0 * B * sq * (at.weights + mlp_active + 2.0 * h * h) + attn + logits);
    }
    return flops;
}

/* the job's processes on one node, which share its host CPU and its uplinks: the node's GPUs
 * (the config's node size, else the catalog's), fewer for a job smaller than a node */
static int ranks_on_node(const est_input *in)
{
    int node = in->gpus_per_node > 0 ? in->gpus_per_node : in->gpu->gpus_per_node;
    long long n = (long long)in->tp * in->pp * in->cp * derive_dp(in);
    return n > 0 && n < node ? (int)n : node;
}

/* The GPU as the layer model sees it: the GEMM rate of the run's precision (NVFP4:
 * est_fp4_gemm_tflops) at its achievable fraction, bf16 for attention, HBM at the ~85 %
 * STREAM-like kernels reach, the host link, and a cluster's calibrated compute_scale
 * (clocks or power cap against the catalog; 1 unless `autoconfig calibrate` fitted it). */
void est_device_of(const est_input *in, const est_cal *c, est_device *dev)
{
    const gpu_spec *g = in->gpu;
    bool low = in->precision == PREC_FP8 || in->precision == PREC_FP4;
    memset(dev, 0, sizeof *dev);
    dev->cal = c;
    dev->peak = est_gemm_tflops(g, in->precision, c->fp4_speedup) * 1e12;
    dev->peak16 = est_peak_tflops(g, in->precision == PREC_FP32 ? PREC_FP32 : PREC_BF16) * 1e12;
    dev->gemm_eff = est_gemm_eff(g, in->precision);
    dev->sms = g->sm_count; /* the catalog requires >= 1 */
    dev->elem_bytes = low ? 1.0 : (in->precision == PREC_FP32 ? 4.0 : 2.0);
    dev->k_fill = layer_gemm_k_fill(dev->elem_bytes);
    dev->gemm_ref = low ? g->gemm_ref8 : g->gemm_ref16; /* computed once at catalog load */
    dev->gemm_eff16 = g->gemm_eff;
    dev->gemm_ref16 = g->gemm_ref16;
    dev->peak *= c->compute_scale * g->clock_scale;
    dev->peak16 *= c->compute_scale * g->clock_scale;
    dev->hbm = g->hbm_gbps * GB * 0.85;
    /* the GPUs of one host uplink that copy at once: the job's ranks on the node, at most the
     * GPUs the link carries (data/gpus.csv host_link_gpus) */
    int on_node = ranks_on_node(in);
    int sharing = on_node < g->host_link_gpus ? on_node : g->host_link_gpus;
    dev->host = g->host_gbps * GB * g->host_link_gpus / (sharing > 0 ? sharing : 1);
    layer_attn_of(&in->shape, &dev->at);
}

/* The average block of a hybrid stack (shape_is_hybrid): each kind weighed by its share of
 * the blocks.  The layer model prices attention and MLP together, so an attention block is
 * a layer whose MLP is empty less the MLP sub-layer's entry (its norm, residual, inputs and
 * casts: layer_cost_mlp_entry), and an MLP block what a full layer adds to that (dense or
 * experts); a Mamba-2 block is layer_cost_mamba.  Every block, whatever its kind, runs one
 * TP collective pair each way (a layer two) and under full recompute keeps its input; the
 * largest block sets the transient of a recomputed backward.  *mtp: Nemotron 3's MTP module
 * is an attention and an expert block ("*E"), one full expert layer. */
static void hybrid_block(const est_input *in, const est_device *dev, layer_cost *avg, layer_cost *mtp)
{
    const model_shape *s = &in->shape;
    double sq = s->seq_length, L = s->num_layers, T = in->mbs * sq / in->cp;
    est_input bare = *in;
    bare.shape.ffn_hidden = 0, bare.shape.num_experts = 0, bare.shape.moe_shared_ffn = 0;
    layer_cost attn, entry, dense, expert, mamba;
    layer_cost_compute(&bare, dev, sq, sq, true, false, 0, false, &attn);
    layer_cost_mlp_entry(in, dev, T, &entry);
    layer_cost_add(&attn, &entry, -1.0);
    layer_cost_compute(in, dev, sq, sq, true, false, 0, false, &dense);
    memset(&expert, 0, sizeof expert);
    if (s->hyb_moe > 0) layer_cost_compute(in, dev, sq, sq, true, false, 0, true, &expert);
    layer_cost_mamba(in, dev, T, &mamba);
    if (s->mtp_layers > 0) *mtp = s->hyb_moe > 0 ? expert : dense;
    memset(avg, 0, sizeof *avg);
    layer_cost_add(avg, &attn, (s->hyb_attn - s->hyb_mlp - s->hyb_moe) / L);
    layer_cost_add(avg, &dense, s->hyb_mlp / L);
    layer_cost_add(avg, &expert, s->hyb_moe / L);
    layer_cost_add(avg, &mamba, s->hyb_mamba / L);
    avg->tp_comm = mamba.tp_comm;
    avg->act_ckpt = mamba.act_ckpt;
    /* the blocks' own activations: attention alone, an MLP or expert block (a layer less the
     * attention block), a Mamba-2 block */
    double peak = s->hyb_attn > 0 ? attn.act_full : 0.0;
    if (s->hyb_mlp > 0) peak = fmax(peak, dense.act_full - attn.act_full);
    if (s->hyb_moe > 0) peak = fmax(peak, expert.act_full - attn.act_full);
    if (s->hyb_mamba > 0) peak = fmax(peak, mamba.act_full);
    avg->act_peak = peak;
}

/* The average layer of a stage: T5 has encoder and decoder layers of different sequence
 * lengths (equal split of both stacks), MoE models may lead with dense layers; the mix
 * weighs each kind by its share.  *mtp gets one multi-token prediction layer (zero
 * without MTP). */
static void average_layer(const est_input *in, const est_device *dev, layer_cost *lay, layer_cost *mtp)
{
    const model_shape *s = &in->shape;
    double sq = s->seq_length;
    bool moe = shape_is_moe(s);
    memset(mtp, 0, sizeof *mtp);
    if (s->arch == ARCH_ENCODER_DECODER) {
        double sd = s->dec_seq_length > 0 ? s->dec_seq_length : sq;
        layer_cost enc, dec;
        layer_cost_compute(in, dev, sq, sq, false, false, 0, moe, &enc);
        layer_cost_compute(in, dev, sd, sd, true, true, sq, moe, &dec);
        layer_cost_mix(&enc, &dec, 0.5, lay);
        /* one stage holding both stacks keeps half its layers' activations at the encoder's
         * size and half at the decoder's (the mix takes the larger: right for pipeline
         * stages that hold one stack only) */
        if (in->pp == 1) {
            lay->act_full = 0.5 * (enc.act_full + dec.act_full);
            lay->act_ckpt = 0.5 * (enc.act_ckpt + dec.act_ckpt);
            lay->act_sac = 0.5 * (enc.act_sac + dec.act_sac);
        }
        return;
    }
    bool causal = s->arch == ARCH_DECODER;
    if (shape_is_hybrid(s)) {
        hybrid_block(in, dev, lay, mtp);
        return;
    }
    layer_cost_compute(in, dev, sq, sq, causal, false, 0, moe, lay);
    if (s->mtp_layers > 0) *mtp = *lay; /* an MTP module's layer is one of the model's own (before the dense mix) */
    int dense = moe ? s->num_layers - layer_moe_count(s) : 0;
    if (dense > 0) {
        layer_cost dense_layer, expert_layer = *lay;
        layer_cost_compute(in, dev, sq, sq, causal, false, 0, false, &dense_layer);
        layer_cost_mix(&dense_layer, &expert_layer, (double)dense / s->num_layers, lay);
    }
}

/* Forwards among a rank's first F that run model chunk c: Megatron-Core's interleaved
 * schedule runs chunk (k mod g·v) div g for its k-th forward (get_model_chunk_id), g
 * micro-batches per chunk in turn (g = p, or all m when there are fewer); without
 * interleaving (v = 1) every forward is chunk 0. */
static double chunk_forwards(long F, int g, int v, int c)
{
    long groups = F / g, rest = F % g;
    long n = (long)g * (groups / v + (c < groups % v ? 1 : 0));
    if (groups % v == c) n += rest;
    return (double)n;
}

/* What pipeline rank `rank` holds at its peak: the forwards it runs before its first
 * backward, plus the one in flight, at most all m·v.  Warm-up: 1F1B p − rank − 1
 * micro-batches (Narayanan et al. 2021 §2.2); interleaved 2(p − rank − 1) + (v − 1)·p
 * chunks (Megatron-Core forward_backward_pipelining_with_interleaving,
 * num_warmup_microbatches).  Overlapping the MoE all-to-all (combined 1F1B) adds no
 * micro-batch: it pairs a forward with a backward layer by layer, so the new micro-batch's
 * activations fill as the old one's are freed (and the published runs that overlap fit
 * only so).  Every chunk holds Ls/v layers, except that a
 * layout's first stage lacks its Ls − Ls_first layers in chunk 0 and the last stage its
 * Ls − Ls_last layers in chunk v − 1 (est_stage_layers), so the layers held are counted
 * chunk by chunk.  For rank 0 of an even split this is Korthikanti et al. 2022 §4.2.3's
 * L·(1 + (p−1)/(p·v)). */
typedef struct {
    double layers;       /* layer-activations held */
    double microbatches; /* forwards held / v: micro-batches in flight */
    double first_chunk;  /* forwards of chunk 0 held (the embedding's output lives there) */
    double last_chunk;   /* forwards of chunk v − 1 held (the MTP modules live there) */
} stage_inflight;

static stage_inflight stage_inflight_of(const est_input *in, int m, int rank, double Ls, double Ls_first, double Ls_last)
{
    int p = in->pp, v = in->vp > 0 ? in->vp : 1;
    long total = (long)m * v;
    long warmup = v > 1 ? 2L * (p - rank - 1) + (long)(v - 1) * p : (long)(p - rank - 1);
    long F = warmup + 1;
    if (F > total) F = total;
    int group = m < p ? (m > 0 ? m : 1) : p;
    stage_inflight o;
    o.first_chunk = chunk_forwards(F, group, v, 0);
    o.last_chunk = chunk_forwards(F, group, v, v - 1);
    o.microbatches = (double)F / v;
    o.layers = (double)F * Ls / v;
    if (rank == 0) o.layers -= (Ls - Ls_first) * o.first_chunk;
    if (rank == p - 1) o.layers -= (Ls - Ls_last) * o.last_chunk;
    return o;
}

double est_stage_inflight_layers(const est_input *in, int m, int rank)
{
    double first, largest, last;
    est_stage_layers(in, &first, &largest, &last);
    return stage_inflight_of(in, m, rank, largest, first, last).layers;
}

/* The fraction of stored layer activations that are checkpoints (full recompute keeps
 * only a checkpointed layer's input): k of the layers_chunk layers of each virtual chunk
 * (all when recompute_layers is 0).  The original's partial checkpointing: the first
 * num_mbs_act micro-batches in flight checkpoint k layers per chunk, the others
 * act_per_pipe layers of the stage's Ls. */
static double checkpoint_share(const est_input *in, double layers_chunk, double Ls, double inflight_mb)
{
    if (in->recompute != RECOMPUTE_FULL) return 0.0;
    double k = in->recompute_layers > 0 ? in->recompute_layers : layers_chunk;
    double share_k = k / layers_chunk;
    if (in->num_mbs_act < 0 || in->act_per_pipe < 0) return share_k;
    double n1 = in->num_mbs_act < inflight_mb ? in->num_mbs_act : inflight_mb;
    double share_rest = (double)in->act_per_pipe / Ls;
    if (share_rest > 1) share_rest = 1;
    return inflight_mb > 0 ? (n1 * share_k + (inflight_mb - n1) * share_rest) / inflight_mb : share_k;
}

/* FSDP under pipeline parallelism that keeps a stage's parameters gathered and its gradients
 * accumulated unsharded across micro-batches (the stack's pp_fsdp, PP > 1; torch.distributed
 * .pipelining turns gradient sync off for every micro-batch's backward whatever the sharding, so
 * ZeRO-2's SHARD_GRAD_OP too): one gather and one reduce-scatter a step, not one a micro-batch
 * (not for LoRA's frozen base or CPU offload, which keep their own paths) */
static bool fsdp_once(const est_input *in)
{
    return in->zero_stage >= 2 && in->pp > 1 && in->stack && in->stack->pp_fsdp && in->lora_rank <= 0 &&
           !in->offload_optimizer && !in->offload_params;
}

/* Is the gradient reduction left until after the backward instead of overlapping it?  DeepSpeed
 * overlap_comm off (it defaults to true only for ZeRO-3, the stack's dp_overlap 3; a config that
 * sets it, dp_overlap_on, overlaps at any stage), NeMo 1.x after the pipeline.  NeMo 1.x (dp_overlap
 * 2) without the distributed optimizer all-reduces asynchronously only with PP 1 and no sequence
 * parallelism: megatron_base_model.py configure_optimizers "if using pipeline parallel or sequence
 * parallel ... then we disable it", and training_step then calls allreduce_main_grads() after the
 * pipeline (the sequence-parallel norms' gradients must first be all-reduced over the TP group) */
static bool dp_reduced_after_backward(const est_input *in)
{
    bool nemo1_after = in->zero_stage == 0 && (in->pp > 1 || (in->sequence_parallel && in->tp > 1));
    return in->dp_overlap_off ||
           (!in->dp_overlap_on && in->stack &&
            (in->stack->dp_overlap == 0 || (in->stack->dp_overlap == 2 && nemo1_after) ||
             (in->stack->dp_overlap == 3 && in->zero_stage < 3)));
}

/* Collectives a data-parallel reduction (gather false) or parameter gather (true) of P
 * parameters on a stage of `layers` layers is issued as, each paying a collective's latency
 * (collective.c), what larger buckets at larger DP avoid:
 * - the stack's gradient buckets of at least dp_bucket_params and dp_bucket_params_per_rank x
 *   the dense DP·CP size (Megatron-Core's default, which expert buffers share);
 * - with dp_bucket_overlap_only, buckets only where the reduction overlaps the backward, else one
 *   collective per model chunk's buffer (Megatron-Core DDP: bucket_size None without
 *   overlap_grad_reduce; NeMo 1.x: one all-reduce per buffer without its asynchronous chunks);
 * - with dp_bucket_first_stage_only, buckets only on the first pipeline stage's first model
 *   chunk (Megatron-Core DDP: none on pipeline ranks > 0 nor for chunks after the first);
 * - one per layer and one for the embedding's root unit where the stack has no buckets (FSDP
 *   units, XLA's per-layer scan), and for ZeRO-3's parameter gathers (per module). */
static double dp_calls(const est_input *in, double P, double layers, int dpc, bool gather, bool first_stage)
{
    if (P <= 0) return 1.0;
    const est_stack *st = in->stack;
    double bucket = st ? fmax(st->dp_bucket_params, st->dp_bucket_params_per_rank * dpc) : 0.0;
    if (bucket <= 0 || (gather && in->zero_stage >= 3)) return layers + 1.0;
    double v = in->vp > 1 ? in->vp : 1; /* model chunks: a buffer each */
    if (st->dp_bucket_overlap_only && dp_reduced_after_backward(in)) return v;
    if (st->dp_bucket_first_stage_only) {
        if (in->pp > 1 && !first_stage) return v;
        return ceil(P / v / bucket) + (v - 1.0);
    }
    return fmax(1.0, ceil(P / bucket));
}

/* The part of a step's DP traffic (t_rs of gradient reduction, t_ag of parameter
 * all-gather, rs_rounds reductions a step) that compute does not hide, never below the
 * dp_tail share (the last bucket after the final backward) nor t_embed_rs (the input
 * embedding's reductions, whose gradient is final last).  Megatron-Core overlaps the
 * reduction with the last micro-batch's backward and the gathers with the first one's
 * forward, each in its own window (overlap_grad_reduce / overlap_param_gather);
 * partitioned gradients reduce after every backward, each hiding behind its own.  Interleaved: every model chunk is
 * its own DDP instance.  Backward runs all chunks for p micro-batches at a time, so in
 * the last round chunk j's gradients are final j·u before the end (u = p
 * chunk-backwards); their reductions queue on the network one after another, and the
 * first chunk's, final at the very end, always shows.  Parameter gathers mirror it under
 * the next step's forward (chunk_queue_s). */
static double dp_exposed_s(const est_input *in, const est_cal *c, const layer_cost *lay, double t_rs, double t_ag,
                           double rs_rounds, int m, double Ls, double t_embed_rs)
{
    int p = in->pp, v = in->vp;
    double t_dp = t_rs + t_ag, exposed, tail = c->dp_tail * t_dp;
    if (t_embed_rs > tail) tail = t_embed_rs;
    if (dp_reduced_after_backward(in)) return t_dp;
    /* gathered and reduced once a step (fsdp_once): the gather waits under the first forward,
     * the reduction comes after the last backward (the pipeline stage calls the post-backward
     * itself) */
    if (fsdp_once(in)) return t_rs + fmax(0.0, t_ag - Ls * lay->fwd);
    if (v > 1 && rs_rounds == 1) {
        double layers_chunk = Ls / v;
        double rounds = fmin((double)p, (double)m);
        double u_b = rounds * layers_chunk * lay->bwd, u_f = rounds * layers_chunk * lay->fwd;
        exposed = chunk_queue_s(t_rs, v, u_b) + chunk_queue_s(t_ag, v, u_f);
    } else {
        /* gradients are reduced under the backward that produces them (the last micro-
         * batch's, or each one's with partitioned gradients) and parameters gathered under
         * the first forward; neither hides behind the other's window (a reduction cannot
         * wait for the next step's forward: the optimizer needs its result) */
        exposed = fmax(0.0, t_rs - Ls * rs_rounds * lay->bwd) + fmax(0.0, t_ag - Ls * lay->fwd);
    }
    return exposed > tail ? exposed : tail;
}

/* CPU Adam over one host: DeepSpeed PR #735 (its CPU-Adam author) measures an 11.6B-parameter
 * GPT-2's optimizer step in 8.2 s with one process driving the host's cores (ZeRO-Offload's
 * one-GPU setup), 1.4e9 parameters/s, the order Ren et al. 2021 (ZeRO-Offload) report */
#define CPU_ADAM_HOST_PARAMS_S 1.4e9

/* The rate DeepSpeed's offload copies reach: the host link, or the pageable share of it when
 * its offload buffers are not page-locked (zero_optimization.offload_optimizer / offload_param
 * .pin_memory false, its default until PR #8207): the gradient partitions, their host accumulator
 * and the offloaded parameters are pinned only under pin_memory (stage_1_and_2.py
 * cpu_offload_pin_memory; stage3.py grad_partitions_flat_buffer; partition_parameters.py) */
static double offload_link(const est_input *in, const est_device *dev, const est_cal *c)
{
    return in->offload_pageable ? dev->host * c->pageable_copy_share : dev->host;
}

/* Adam over the P_upd parameters one GPU updates: it reads grad, master, m, v and writes
 * master, m, v and the bf16 copy, 30 B per parameter at HBM speed.  With the optimizer
 * offloaded, CPU Adam runs on the host, whose cores and memory the node's `ranks` processes
 * share, each updating its own shard at the same time (so a host updates ranks x P_upd
 * parameters at CPU_ADAM_HOST_PARAMS_S), and the shard crosses the host link (catalog host_gbps):
 * the fp32 gradients to the host (DeepSpeed ZeRO-2 async_inplace_copy_grad_to_fp32_buffer_from_gpu
 * and ZeRO-3 partition_grads copy grad.float(): 4 B, at offload_link) and the updated fp32 master
 * back to the 16-bit GPU copy (copy_ across devices moves the source dtype, then casts: 4 B).
 * ZeRO-1/2 pin that master either way (PR #5301); ZeRO-3 never does (stage3.py builds
 * fp32_partitioned_groups_flat unpinned) and copies it into the 16-bit partition with a dtype
 * change, which PyTorch casts on the host before the copy (aten/src/ATen/native/cuda/Copy.cu
 * copy_kernel_cuda): 2 B, pageable; with the parameters offloaded too that partition is in host
 * memory already: no PCIe copy back */
static double optimizer_step_s(const est_input *in, const est_device *dev, const est_cal *c, double P_upd, double ranks)
{
    if (!in->offload_optimizer) return P_upd * 30.0 / dev->hbm;
    double back = in->zero_stage < 3 ? P_upd * 4.0 / dev->host
                : in->offload_params ? 0.0
                                     : P_upd * 2.0 / (dev->host * c->pageable_copy_share);
    return P_upd * 4.0 / offload_link(in, dev, c) + back + ranks * P_upd / CPU_ADAM_HOST_PARAMS_S;
}

/* DeepSpeed with the optimizer offloaded keeps the rank's gradient partition in host memory
 * between micro-batches and adds on the GPU (the stack's offload_grad_accum_via_gpu).  ZeRO-2
 * (stage_1_and_2.py async_accumulate_grad_in_cpu_via_gpu, with m > 1): after every micro-batch but
 * the first the accumulated 16-bit partition is copied host to GPU and added, and after every one
 * but the last copied back: 2 (m - 1) copies.  ZeRO-3 (stage3.py partition_grads): the first
 * micro-batch copies its partition to the host and back to the GPU ("ensure grad buffer is a CUDA
 * buffer"), every later one copies the host buffer in and the sum out: 2 m copies.  Each moves
 * gbytes per partition parameter at offload_link.  They run in the gradient reduction: where it
 * overlaps the backward (overlap_comm) and the buffers are pinned, they are non_blocking copies on
 * the reduction stream, hidden under each micro-batch's backward (`bwd_mb`) as far as it lasts;
 * pageable copies block the issuing thread (CUDA runtime API, API synchronization behavior), and
 * without overlap they wait for the backward.  Returns the exposed part of a step's copies */
static double offload_grad_copies_s(const est_input *in, const est_device *dev, const est_cal *c, double P_part, int m,
                                    double gbytes, double bwd_mb)
{
    if (!in->offload_optimizer || in->zero_stage < 2 || !in->stack || !in->stack->offload_grad_accum_via_gpu) return 0.0;
    double copies = in->zero_stage >= 3 ? 2.0 * m : 2.0 * (m - 1);
    double t = copies * P_part * gbytes / offload_link(in, dev, c);
    if (in->offload_pageable || dp_reduced_after_backward(in) || m < 1) return t;
    return m * fmax(0.0, t / m - bwd_mb);
}

int est_evaluate(const est_input *in_arg, est_result *r)
{
    memset(r, 0, sizeof *r);
    if (est_check(in_arg, r->why, sizeof r->why)) return -1;
    est_input in_copy = *in_arg;
    est_input *in = &in_copy;
    if (!in->stack) in->stack = est_stack_default();
    est_cal cal_default;
    const est_cal *c = in->cal;
    if (!c) {
        if (est_cal_default(&cal_default, NULL)) {
            snprintf(r->why, sizeof r->why, "calibration data unreadable");
            return -1;
        }
        c = &cal_default;
    }
    const model_shape *s = &in->shape;
    const gpu_spec *g = in->gpu;
    int dp = derive_dp(in);
    int N = in->tp * in->pp * in->cp * dp;
    int node = in->gpus_per_node > 0 ? in->gpus_per_node : g->gpus_per_node;
    in->gpus_per_node = node;
    int p = in->pp, v = in->vp, t = in->tp;
    int m = in->gbs / (in->mbs * dp);
    r->num_microbatches = m;
    /* layers of the largest stage (Ls); the first and the last may hold fewer, as they
     * also run the embedding, the output layer and the loss (est_stage_layers) */
    double Ls_first, Ls, Ls_last;
    est_stage_layers(in, &Ls_first, &Ls, &Ls_last);

    est_device dev;
    est_device_of(in, c, &dev);
    layer_cost lay, mtp_layer;
    average_layer(in, &dev, &lay, &mtp_layer);
    double sq = s->seq_length;

    /* ---- recompute: the share of layer-micro-batches that recompute their forward ---- */
    double layers_chunk = Ls / v;
    stage_inflight first_held = stage_inflight_of(in, m, 0, Ls, Ls_first, Ls_last);
    double inflight_mb = first_held.microbatches; /* the first stage's */
    double ckpt_share = checkpoint_share(in, layers_chunk, Ls, inflight_mb);
    /* selective recompute on a stack whose "selective" is PyTorch's op-level checkpointing
     * (torchtitan): what layer_sac keeps, and its dropped matmuls and other ops again */
    bool op_sac = in->recompute == RECOMPUTE_SELECTIVE && in->stack && in->stack->selective_op_sac;
    /* JAX's full recompute re-runs only what the backward needs and keeps what its policy names
     * (layer_remat_named; MoE, MLA and cross-attention layers price a whole recompute: their
     * named_recomp is fwd, their act_named act_ckpt) */
    bool named = est_layer_remat_named(in);
    double kept_ckpt = named ? lay.act_named : lay.act_ckpt;
    double act_per_layer = ckpt_share * kept_ckpt + (1.0 - ckpt_share) * (op_sac ? lay.act_sac : lay.act_full);

    /* ---- time per micro-batch on a stage ---- */
    double t_layer = lay.fwd + lay.bwd;
    double t_recomp_layer = ckpt_share * (named ? lay.named_recomp : lay.fwd);
    if (in->recompute == RECOMPUTE_SELECTIVE && !in->flash_attention) t_recomp_layer = lay.attn_core_fwd;
    if (op_sac) t_recomp_layer = lay.sac_recomp;
    if (in->recompute_mla_up_proj) t_recomp_layer += (1.0 - ckpt_share) * lay.mla_up_fwd; /* layers not fully recomputed */
    t_recomp_layer += (1.0 - ckpt_share) * lay.module_recomp;
    double tp_hidden = in->tp_comm_overlap ? c->tp_overlap : 0.0; /* only what the config switches on */
    /* a layer recomputed whole runs its forward's collectives again (Megatron's
     * CheckpointFunction and Transformer Engine's checkpoint re-run the row-parallel all-reduces,
     * or with sequence parallelism the all-gathers and reduce-scatters, and an MoE layer's
     * dispatch and combine, inside the recomputed forward): the forward's half of the layer's
     * traffic, once more; a JAX remat policy re-runs the share of the forward it recomputes */
    double rerun = ckpt_share * (named ? (lay.fwd > 0 ? lay.named_recomp / lay.fwd : 0.0) : 1.0);
    double tp_exposed = (1.0 - tp_hidden) * lay.tp_comm * (1.0 + 0.5 * rerun);
    /* CP ring steps overlap with the attention compute of their own pass: the forward's
     * K/V exchange with the forward attention, the backward's K/V and dK/dV exchange with the
     * backward attention (Transformer Engine AttnFuncWithCP sends the next step's chunk while
     * the current one computes).  A stack whose exchange does not overlap (cp_exposed: PyTorch's
     * context_parallel all-gathers K/V at its first step and, traced by torch.compile, waits on
     * each collective at once) shows all of it, the recomputed forward's exchange too. */
    double cp_exposed = fmax(0.0, lay.cp_fwd - lay.attn_core_fwd) + fmax(0.0, lay.cp_bwd - lay.attn_core_bwd);
    if (in->stack && in->stack->cp_exposed) cp_exposed = lay.cp_fwd * (1.0 + ckpt_share) + lay.cp_bwd;
    double ep_comm = lay.ep_comm * (1.0 + 0.5 * rerun), ep_exposed = ep_comm;
    /* A2A overlap (Megatron-Core 1F1B merged forward/backward of two micro-batches): the
     * all-to-all hides behind the other micro-batch's layer compute; only the excess shows */
    if (in->moe_a2a_overlap && m >= 2) /* the first forward and the last backward have no partner */
        ep_exposed = (m - 1.0) / m * fmax(0.0, ep_comm - t_layer) + ep_comm / m;
    /* dropless routing copies the per-expert token counts to the host every layer (the
     * grouped GEMM needs them as sizes), so the host cannot run ahead and the expert
     * launches sit on the critical path; with a fixed capacity only the part beyond the
     * GPU's own layer time shows */
    double host_exposed = in->cuda_graphs ? 0.0 : lay.host_moe;
    if (in->moe_token_drop && host_exposed > 0) {
        host_exposed -= t_layer + ep_exposed;
        if (host_exposed < 0) host_exposed = 0;
    }
    /* a hybrid stack's block is one residual sub-layer, half a transformer layer's ops */
    double layer_host_s = in->cuda_graphs ? 0.0 : c->layer_overhead_us * 1e-6 * (shape_is_hybrid(s) ? 0.5 : 1.0);
    double mb_layers = Ls * (t_layer + t_recomp_layer + tp_exposed + cp_exposed + ep_exposed + host_exposed + layer_host_s);
    /* activation offload: each offloaded layer's activations cross the host link once after
     * its forward and once before its backward, double-buffered behind the neighbouring
     * layer's compute (Megatron-Core cpu_offloading); only a copy longer than that shows */
    double n_off = in->offload_act_layers;
    double t_copy = act_per_layer / dev.host;
    double t_offload_mb = n_off * (fmax(0.0, t_copy - lay.fwd) + fmax(0.0, t_copy - lay.bwd));
    mb_layers += t_offload_mb;

    /* embedding (first stage) and output layer + cross-entropy (last stage) */
    double T = in->mbs * (s->arch == ARCH_ENCODER_DECODER && s->dec_seq_length > 0 ? s->dec_seq_length : sq) / in->cp;
    double V = s->vocab;
    double t_embed = 3.0 * 2.0 * T * s->hidden / layer_sp_div(in) / dev.hbm;
    /* output layer: forward, data gradient and (unless frozen under LoRA) weight gradient,
     * in bf16 under FP8/FP4 too (not a Transformer Engine module: layer_gemm16_s) */
    double logit_passes = in->lora_rank > 0 ? 2.0 : 3.0;
    /* plus the loss's passes over the [T, V/t] logits (the stack's logit_bytes) */
    double logit_b = est_stack_logit_bytes(in);
    double t_logits = logit_passes * layer_gemm16_s(&dev, T, s->hidden, V / t) + logit_b * T * V / t / dev.hbm;
    /* multi-token prediction (DeepSeek-V3 §2.2; Megatron-Core MTP on the last stage): per
     * module a 2h→h projection, one more layer and one more output layer + cross-entropy */
    double mtp = s->mtp_layers, mtp_fwd = 0.0, mtp_bwd = 0.0, mtp_comm = 0.0;
    if (mtp > 0) {
        double proj = layer_gemm_s(&dev, T, 2.0 * s->hidden, s->hidden / t, 1.0);
        mtp_fwd = mtp * (mtp_layer.fwd + proj + t_logits / logit_passes);
        mtp_bwd = mtp * (mtp_layer.bwd + 2.0 * proj + (logit_passes - 1.0) * t_logits / logit_passes);
        /* a module's layer is a whole one (attention and MLP) in a hybrid stack too (Nemotron 3
         * Super's "*E"), so it pays a transformer layer's host time, not a block's */
        mtp_comm = mtp * ((1.0 - tp_hidden) * mtp_layer.tp_comm + mtp_layer.ep_comm +
                          (in->cuda_graphs ? 0.0 : mtp_layer.host_moe + c->layer_overhead_us * 1e-6));
    }
    double t_head = t_logits + mtp_fwd + mtp_bwd + mtp_comm; /* what the last stage adds */
    /* per micro-batch: the first stage, the middle ones (p > 2) and the last */
    double first = mb_layers * Ls_first / Ls + t_embed + (p == 1 ? t_head : 0.0);
    double last = mb_layers * Ls_last / Ls + (p > 1 ? t_head : 0.0);
    double t_mb = fmax(first, last);
    if (p > 2) t_mb = fmax(t_mb, mb_layers);

    /* ---- pipeline: m micro-batches plus a bubble of (p−1)/v of them ---- */
    r->t_compute_fwd = m * (Ls * lay.fwd + t_embed / 3.0 + t_logits / logit_passes + mtp_fwd);
    r->t_compute_bwd = m * (Ls * lay.bwd + 2.0 * t_embed / 3.0 + (logit_passes - 1.0) * t_logits / logit_passes + mtp_bwd);
    r->t_recompute = m * Ls * t_recomp_layer;
    r->t_act_offload = m * t_offload_mb;
    r->t_tp_comm = m * Ls * tp_exposed;
    r->t_cp_comm = m * Ls * cp_exposed;
    r->t_ep_comm = m * Ls * ep_exposed;
    r->t_moe_host = m * Ls * host_exposed;
    r->t_pp_bubble = (double)(p - 1) / v * t_mb;
    if (p > 1) {
        /* per micro-batch and model chunk an activation goes forward and a gradient back,
         * exposed.  Two known departures that cancel in part, kept together until what else
         * interleaved runs pay is found (docs/estimator.md, "tried and not kept"): a send
         * between nodes leaves through one NIC (coll_p2p_bw), not ranks-per-node NICs, and
         * with VP > 1 Megatron-Bridge/NeMo 2 overlap the sends with compute (overlap_p2p_comm) */
        double msg = T * s->hidden * 2.0 / layer_sp_div(in);
        double bw = coll_group_bw(in, p, N / p);
        double t_send = msg / (bw * c->p2p_eff);
        /* Megatron-LM's scatter/gather optimisation (Narayanan et al. 2021 §4.1): without
         * sequence parallelism each of the t TP ranks sends its 1/t piece through its own NIC
         * and the receiving ranks all-gather the pieces over NVLink */
        if (in->stack && in->stack->pp_scatter_gather && !in->sequence_parallel && in->tp > 1) {
            coll_group g_tp = coll_group_of(in, in->tp, 1);
            t_send = msg / in->tp / (bw * c->p2p_eff) + coll_gather_s(msg, 1.0, &g_tp, c);
        }
        r->t_pp_p2p = (double)m * v * 2.0 * t_send;
        /* DeepSpeed's TrainSchedule issues each stage's RecvActivation, SendGrad, SendActivation and
         * RecvGrad as blocking NCCL calls one after the other, so a middle stage waits on both
         * neighbours' transfers: replaying its instruction streams gives (m + p - 1)(t_f + t_b) + n
         * (c_act + c_grad) with n = 2m + p - 4 for p >= 3 and m >= 2, p - 1 for one micro-batch and m
         * for two stages (one neighbour each), against 1F1B's ~m (deepspeed/runtime/pipe/schedule.py,
         * p2p.py: async_op unsupported; no interleaving, v = 1) */
        if (in->stack && in->stack->pp_p2p_serial) {
            double n = p == 2 ? m : m == 1 ? p - 1.0 : 2.0 * m + p - 4.0;
            r->t_pp_p2p = n * 2.0 * t_send;
        }
    }
    double t_pipe = m * t_mb + r->t_pp_bubble + r->t_pp_p2p;

    /* ---- parameters on one GPU of the first, the largest and the last stage (each with
     * its own layer count: est_stage_layers) ---- */
    param_counts pc = count_params(s);
    double layer_dense = pc.attn + pc.mlp_dense + pc.norms + (s->arch == ARCH_ENCODER_DECODER ? 0.5 * pc.cross_attn : 0.0);
    double expert_share = shape_is_moe(s) ? 1.0 / (in->ep * in->etp) : 0.0;
    double layer_gpu = layer_dense / t + pc.replicated + pc.mlp_expert * expert_share, layer_experts_gpu = pc.mlp_expert * expert_share;
    stage_params first_st = stage_params_of(Ls_first, layer_gpu, layer_experts_gpu, (pc.embedding + pc.position) / t);
    /* the last stage holds the output layer, or a copy of the tied embedding when p > 1 */
    stage_params last_st = stage_params_of(Ls_last, layer_gpu, layer_experts_gpu,
                                           p == 1 ? (pc.embedding + pc.position + pc.output_layer) / t
                                                  : (s->untied_embeddings ? pc.output_layer : pc.embedding) / t);
    stage_params middle_st = stage_params_of(Ls, layer_gpu, layer_experts_gpu, 0.0); /* p > 2 */
    /* the last stage also holds the multi-token prediction modules */
    double mtp_experts = pc.mtp_experts;
    double p_mtp_gpu = (pc.mtp - mtp_experts) / t + mtp_experts * expert_share;
    last_st.total += p_mtp_gpu;
    last_st.layers += p_mtp_gpu;
    last_st.experts += mtp_experts * expert_share;
    /* CP ranks hold the same weights: Megatron-Core reduces gradients and shards the
     * distributed optimizer over the DP × CP group (data_parallel_group with context
     * parallel), so that group sizes the shards and the gradient collectives */
    int dpc = dp * in->cp;
    int edp = shape_is_moe(s) ? N / (p * in->ep * in->etp) : dp;
    if (edp < 1) edp = 1;

    /* trainable parameters (LoRA: adapters of rank r on lora_targets h×h-sized matrices) */
    double lora_per_layer = in->lora_rank > 0 ? in->lora_targets * in->lora_rank * 2.0 * s->hidden / t : 0.0;
    double lora_params_gpu = Ls_first * lora_per_layer; /* the first stage's, for the DP traffic */

    /* ---- memory (bytes): Megatron-LM docs, distributed optimizer: bf16 params 2 B,
     * fp32 main grads 4 B, fp32 master + Adam m, v 12 B (18 B/param), grads and
     * optimizer sharded over DP with ZeRO-2 / distributed optimizer (ZeRO-1: 6 + 12/d) ---- */
    double wbytes = in->precision == PREC_FP32 ? 4.0 : 2.0;
    double gbytes = in->grad_bytes > 0 ? in->grad_bytes : 4.0;
    /* Transformer-layer weights under FP8 (Transformer Engine): the bf16 weight plus the FP8
     * copies TE casts once per step and keeps for the other micro-batches (the weight and, on
     * Hopper/Ada, its transpose: catalog fp8_weight_copies); with fp8_param_gather the FP8
     * copies are the weight, and the distributed optimizer gathers the 1-byte data.
     * Embeddings and the output layer stay bf16, and so (counted here) do LoRA's frozen weights. */
    double layer_wbytes = wbytes, layer_gather_bytes = wbytes;
    bool fp32_params = est_fp32_master(in);
    if (in->precision == PREC_FP8 && in->lora_rank == 0 && !fp32_params) {
        double copies = in->fp8_block_scaled ? 2.0 : g->fp8_weight_copies;
        layer_wbytes = in->fp8_param_gather ? copies : wbytes + copies;
        if (in->fp8_param_gather) layer_gather_bytes = 1.0;
    }
    /* fp32 parameters cast for each use: no cached FP8 copy, but an FP8 all-gather still moves
     * 1-byte layer weights (torchao's enable_fsdp_float8_all_gather casts the shard first) */
    if (in->precision == PREC_FP8 && fp32_params && in->fp8_param_gather) layer_gather_bytes = 1.0;
    /* the stages whose memory can peak: the first (most micro-batches in flight, the
     * embedding), the last (output layer, logits) and, with p > 2, pipeline rank 1, the
     * busiest full-size middle stage (stage_inflight_of); with p = 1 the one stage holds
     * all of it */
    const struct {
        const stage_params *params;
        double layers;
        int rank;
    } stages[EST_MEM_STAGES] = {
        [EST_STAGE_FIRST] = {p == 1 ? &last_st : &first_st, Ls_first, 0},
        [EST_STAGE_LAST] = {&last_st, Ls_last, p - 1},
        [EST_STAGE_MIDDLE] = {&middle_st, Ls, 1},
    };
    int n_stages = p > 2 ? 3 : p == 2 ? 2 : 1;
    for (int st = 0; st < n_stages; st++) {
        const stage_params *sp = stages[st].params;
        double P = sp->total, P_exp = sp->experts, P_dense = P - P_exp, P_layers = sp->layers;
        double Ls_st = stages[st].layers; /* this stage's decoder layers */
        double lora_st = Ls_st * lora_per_layer;
        double weights, grads, opt, cpu = 0.0;
        if (in->lora_rank > 0) {
            weights = P * wbytes + lora_st * wbytes;
            grads = lora_st * gbytes / (in->zero_stage >= 2 ? dpc : 1);
            opt = lora_st * 12.0 / (in->zero_stage >= 1 ? dpc : 1);
            /* ZeRO-3 / FSDP shards the frozen base weights too, gathering two layers at a
             * time (DeepSpeed ZeRO-3 and PyTorch FSDP with PEFT; answer.ai FSDP+QLoRA 2024) */
            if (in->zero_stage >= 3)
                weights = (P + lora_st) * wbytes / dpc + 2.0 * (P / (Ls_st > 0 ? Ls_st : 1)) * wbytes;
        } else {
            double shard_d = dpc, shard_e = edp;
            double weight_bytes = param_bytes(P, P_layers, layer_wbytes, wbytes);
            weights = weight_bytes;
            grads = (P_dense * gbytes) / (in->zero_stage >= 2 ? shard_d : 1) + (P_exp * gbytes) / (in->zero_stage >= 2 ? shard_e : 1);
            /* fp32 master + Adam m, v (12 B); fp32 parameters are their own master: m, v (8 B) */
            double opt_b = fp32_params ? 8.0 : 12.0;
            opt = (P_dense * opt_b) / (in->zero_stage >= 1 ? shard_d : 1) + (P_exp * opt_b) / (in->zero_stage >= 1 ? shard_e : 1);
            /* FSDP: shards of the weights + two gathered layers in flight; without reshard
             * after forward every layer stays gathered until its backward; a root unit kept
             * gathered (fsdp_root_kept) holds the embeddings and output layer whole the while */
            if (in->zero_stage >= 3) {
                bool kept_all = (in->stack && !in->stack->fsdp_reshard) || fsdp_once(in);
                weights = param_bytes(P, P_layers, layer_gather_bytes, wbytes) / shard_d +
                          (kept_all ? weight_bytes : 2.0 * weight_bytes / (Ls_st > 0 ? Ls_st : 1));
                if (!kept_all && in->stack && in->stack->fsdp_root_kept) weights += (P - P_layers) * wbytes;
            }
            /* fp32 parameters are the master: a 4-byte shard under ZeRO-3 / FULL_SHARD (beside the
             * gathered cast copies in flight); under ZeRO-1/2 (SHARD_GRAD_OP) a 4-byte shard beside
             * the cast copy kept whole from forward to backward; unsharded, 4 B in place of it */
            if (fp32_params) {
                if (in->zero_stage >= 3) weights += (4.0 * P - param_bytes(P, P_layers, layer_gather_bytes, wbytes)) / shard_d;
                else if (in->zero_stage >= 1) weights += 4.0 * P / shard_d;
                else weights += (4.0 - wbytes) * P;
            }
            /* kept across micro-batches, the unsharded gradients accumulate in the reduction's
             * dtype until the round reduces them (FSDP2's to_accumulated_grad_if_needed casts to
             * reduce_dtype) */
            if (fsdp_once(in)) grads += P * gbytes;
        }
        if (in->offload_optimizer) {
            cpu += opt;
            opt = 0.0;
            /* ZeRO-Offload (Ren et al. 2021 §4): with partitioned gradients (stage ≥ 2)
             * the fp32 gradient shard lives on the CPU next to the optimizer; the GPU
             * keeps DeepSpeed's reduce bucket (reduce_bucket_size 5e8 elements, bf16) */
            if (in->zero_stage >= 2) {
                cpu += grads * 4.0 / gbytes; /* CPU Adam reads fp32 gradients */
                grads = grads < OFFLOAD_GRAD_BUCKET_B ? grads : OFFLOAD_GRAD_BUCKET_B;
            }
        }
        if (in->offload_params && in->zero_stage >= 3) {
            cpu += P * (fp32_params ? 4.0 : wbytes) / dpc; /* the host keeps the shard in its dtype */
            weights = 2.0 * (P / (Ls_st > 0 ? Ls_st : 1)) * wbytes;
        }
        double logits = 0.0;
        int rank = stages[st].rank;
        stage_inflight held = rank == 0 ? first_held : stage_inflight_of(in, m, rank, Ls, Ls_first, Ls_last);
        double layers_held = held.layers;
        double acts = layers_held * act_per_layer;
        if (rank == 0) /* the embedding's output and dropout mask, per micro-batch of chunk 0 */
            acts += held.first_chunk * (2.0 + 1.0) * T * s->hidden / layer_sp_div(in);
        /* logits [T, V/t] in bf16 plus the fp32 softmax of the fused cross-entropy, or what the
         * stack's own loss keeps (logit_mem_bytes) */
        double logit_mem = est_stack_logit_mem_bytes(in);
        if (rank == p - 1) logits = logit_mem * T * V / t;
        double off = offloaded_bytes(layers_held, Ls_st, n_off, act_per_layer);
        acts -= off;
        cpu += off;
        /* the stage with the output layer also keeps the MTP modules' activations and logits */
        if (s->mtp_layers > 0 && logits > 0) {
            acts += s->mtp_layers * mtp_layer.act_full * fmax(1.0, held.last_chunk);
            logits *= 1.0 + s->mtp_layers;
        }
        /* during backward of a recomputed layer its full activations exist once */
        if (in->recompute == RECOMPUTE_FULL) acts += fmax(0.0, lay.act_peak - kept_ckpt);
        else if (op_sac) acts += lay.act_full - lay.act_sac;
        int groups_nontrivial = (t > 1) + (p > 1) + (dp > 1) + (in->cp > 1) + (in->ep > 1);
        double comm = groups_nontrivial * 0.25 * GIB; /* NCCL buffers: ~channels × 2 × 4 MiB per communicator */
        double frag = in->stack && in->stack->static_buffers ? 0.0 : c->fragmentation;
        double allowance = c->cuda_context_gb * GIB + frag * (weights + grads + opt + acts + logits);
        double stage_mem = weights + grads + opt + acts + logits + comm + allowance;
        if (st == 0 || stage_mem > r->mem_total) {
            r->mem_weights = weights; r->mem_grads = grads; r->mem_optimizer = opt; r->mem_activations = acts;
            r->mem_logits = logits; r->mem_comm_buffers = comm; r->mem_allowance = allowance;
            r->mem_total = stage_mem; r->mem_peak_stage = st;
            r->inflight_microbatches = held.microbatches; r->cpu_mem_per_gpu = cpu;
        }
    }
    /* "80 GB" GPUs hold 80 GiB (nvidia-smi: A100 81920 MiB, H100 81559 MiB): the catalog's
     * memory sizes and the original's gpu_memory_gb are binary gigabytes */
    double gpu_mem = (in->memory_limit_gb > 0 ? in->memory_limit_gb : g->memory_gb) * GIB;
    r->mem_limit = c->memory_limit_frac * gpu_mem;
    r->fits = r->mem_total <= r->mem_limit;

    /* ---- data parallel: fp32 gradient reduce-scatter (+ bf16 parameter all-gather with
     * the distributed optimizer) or all-reduce (Megatron DDP, grads in fp32 for bf16 training) ---- */
    /* the stage holding the most parameters (with PP 1: embedding and output layer) sets the pace */
    bool first_heavier = first_st.total >= last_st.total;
    bool busiest_first = p == 1 || first_heavier; /* (with PP 1 both are stage 0) */
    stage_params busiest = first_heavier ? first_st : last_st;
    if (p > 2 && middle_st.total > busiest.total) { /* a middle stage of an uneven layout */
        busiest = middle_st;
        busiest_first = false;
    }
    double P_grad = in->lora_rank > 0 ? lora_params_gpu : busiest.total;
    double P_dense_grad = in->lora_rank > 0 ? P_grad : P_grad - busiest.experts;
    double P_exp_grad = in->lora_rank > 0 ? 0.0 : busiest.experts;
    coll_group g_dp = coll_group_of(in, dpc, in->tp);
    coll_group g_edp = coll_group_of(in, edp, in->tp * in->cp * in->ep);
    /* collectives the reductions and gathers are issued as (dp_calls) */
    double rs_dense = dp_calls(in, P_dense_grad, Ls, dpc, false, busiest_first), rs_exp = dp_calls(in, P_exp_grad, Ls, dpc, false, busiest_first);
    double ag_dense = rs_dense, ag_exp = rs_exp; /* the same buckets, but ZeRO-3 gathers per layer */
    if (in->zero_stage >= 3) {
        ag_dense = dp_calls(in, P_dense_grad, Ls, dpc, true, busiest_first);
        ag_exp = dp_calls(in, P_exp_grad, Ls, dpc, true, busiest_first);
    }
    double t_rs = 0.0, t_ag = 0.0; /* gradient reduction, and the parameter all-gather of ZeRO ≥ 1 */
    /* partitioned gradients (ZeRO-2/3, FSDP) cannot accumulate a full gradient, so the
     * reduce-scatter runs after every micro-batch's backward, not once per step
     * (Rajbhandari et al. 2020 §5.2; DeepSpeed stage-2 reduces in each backward pass) */
    bool once = fsdp_once(in);
    double rs_rounds = in->zero_stage < 2 || once ? 1.0 : (double)m;
    /* the weights a sharded stack gathers each micro-batch for the forward (the busiest stage's;
     * under LoRA the frozen base ones) and, resharded after it (the stack's reshard_after_forward),
     * again for the backward (of the layers only where the root stays gathered), else none */
    const stage_params *gathered = in->lora_rank > 0 ? &first_st : &busiest;
    bool reshard = !in->stack || in->stack->fsdp_reshard;
    double gather_fwd_b = param_bytes(gathered->total, gathered->layers, layer_gather_bytes, wbytes);
    double gather_bwd_b = reshard ? fsdp_bwd_gather_bytes(in, gathered, layer_gather_bytes, wbytes) : 0.0;
    /* DeepSpeed ZeRO-1/2 (the stack's zero12_grad_allreduce): each gradient bucket is all-reduced
     * and every rank keeps its slice (stage_1_and_2.py allreduce_and_scatter with the default
     * use_multi_rank_bucket_allreduce), twice a reduce-scatter's traffic */
    bool bucket_allreduce = in->stack && in->stack->zero12_grad_allreduce && in->zero_stage >= 1 && in->zero_stage <= 2;
    if (in->zero_stage >= 1) {
        double (*reduce)(double, double, const coll_group *, const est_cal *) = bucket_allreduce ? coll_allreduce_s : coll_gather_s;
        t_rs = rs_rounds * (reduce(P_dense_grad * gbytes, rs_dense, &g_dp, c) + reduce(P_exp_grad * gbytes, rs_exp, &g_edp, c));
        /* (under LoRA layer_gather_bytes is wbytes, so the layer split does not matter) */
        t_ag = coll_gather_s(param_bytes(P_dense_grad, busiest.layers - busiest.experts, layer_gather_bytes, wbytes), ag_dense, &g_dp, c) +
               coll_gather_s(P_exp_grad * layer_gather_bytes, ag_exp, &g_edp, c);
    } else {
        t_rs = coll_allreduce_s(P_dense_grad * gbytes, rs_dense, &g_dp, c) + coll_allreduce_s(P_exp_grad * gbytes, rs_exp, &g_edp, c);
    }
    double t_dp = t_rs + t_ag; /* (fsdp_once: t_ag is its one gather a step) */
    double t_fsdp = 0.0, t_fsdp_all = 0.0;
    if (in->zero_stage >= 3 && !once) {
        /* FSDP gathers every layer's weights for forward and again for backward, per
         * micro-batch (gather_fwd_b, gather_bwd_b); prefetching hides it behind compute when
         * compute is longer. */
        bool root_kept = in->stack && in->stack->fsdp_root_kept;
        double per_mb = coll_gather_s(gather_fwd_b, Ls + 1.0, &g_dp, c);
        if (reshard) per_mb += coll_gather_s(gather_bwd_b, root_kept ? Ls : Ls + 1.0, &g_dp, c);
        /* ZeRO-Infinity parameter offload: each rank's shard also crosses PCIe for both
         * passes (Rajbhandari et al. 2021, ZeRO-Infinity §5) */
        if (in->offload_params) per_mb += 2.0 * gathered->total * wbytes / dpc / offload_link(in, &dev, c);
        /* prefetch issues the next layer's gather under this layer's compute; without it
         * every gather waits on the critical path */
        double hidden = in->stack && !in->stack->fsdp_prefetch ? 0.0 : mb_layers;
        t_fsdp = m * (per_mb > hidden ? per_mb - hidden : 0.0);
        t_fsdp_all = m * per_mb;
    }
    r->t_dp_comm = t_dp;
    /* The input embedding's gradient is final only when the backward ends (it is the first
     * layer; tied to the output layer, it also collects that layer's, earlier), so its reduction
     * has no compute left to hide under: buckets fill in backward order (Megatron-Core DDP's
     * param-and-grad buffer, NeMo 1.x's main-grad chunks laid from the buffer's end, DeepSpeed's
     * ipg buckets, FSDP's root unit reduced after the backward), and the embedding's bucket is
     * the last.  Where it outweighs the dp_tail share (a large vocabulary on a small model:
     * 17 % of mT5 3B's gradients at TP 2, 21 % of BERT-base's) the last reduction is it.  It
     * sits on the first stage, which finishes the step's backward last. */
    double P_embed_grad = in->lora_rank > 0 ? 0.0 : (pc.embedding + pc.position) / t;
    double t_embed_rs = 0.0;
    /* with partitioned gradients every backward ends on its reduction (DeepSpeed's epilogue
     * synchronizes the reduction stream, FSDP's final callback waits): rs_rounds of them */
    if (P_embed_grad > 0.0)
        t_embed_rs = in->zero_stage >= 1 ? rs_rounds * (bucket_allreduce ? coll_allreduce_s : coll_gather_s)(P_embed_grad * gbytes, 1.0, &g_dp, c)
                                         : coll_allreduce_s(P_embed_grad * gbytes, 1.0, &g_dp, c);
    double dp_exp = dp_exposed_s(in, c, &lay, t_rs, t_ag, rs_rounds, m, Ls, t_embed_rs);
    r->t_dp_exposed = dp_exp + t_fsdp;
    /* a tied embedding lives on the first stage (input) and the last (output), and so does the
     * input embedding of multi-token prediction's modules on the last stage: after the backward
     * their gradients are all-reduced between the two before the optimizer may step, with nothing
     * left to hide under (Megatron-LM finalize_model_grads _allreduce_word_embedding_grads over the
     * embedding group, MTP included; DeepSpeed PipelineEngine ReduceTiedGrads on the tied-module
     * group); the two ranks sit (p - 1) stages apart, usually in different nodes.  (T5's split rank
     * makes NeMo's embedding group three ranks: read as two.) */
    if (p > 1 && (!s->untied_embeddings || s->mtp_layers > 0) && in->lora_rank <= 0 && pc.embedding > 0) {
        coll_group g_tied = coll_group_of(in, 2, (p - 1) * (N / p));
        r->t_tied_embed = coll_allreduce_s(pc.embedding / t * gbytes, 1.0, &g_tied, c);
        r->t_dp_comm += r->t_tied_embed;
        r->t_dp_exposed += r->t_tied_embed;
    }
    /* NCCL runs each channel of a collective as one CTA resident on an SM for the whole
     * kernel (NCCL docs: NCCL_MIN_CTAS / NCCL_MAX_CTAS), so while a data-parallel collective
     * hides under compute, the GEMMs run on sm_count - nccl_ctas SMs: the hidden time costs
     * nccl_ctas / sm_count of itself in compute (calibration.csv nccl_ctas) */
    double hidden_dp = (t_dp - dp_exp > 0 ? t_dp - dp_exp : 0.0) + (t_fsdp_all - t_fsdp);
    if (c->nccl_ctas > 0) r->t_dp_exposed += hidden_dp * c->nccl_ctas / dev.sms;

    /* ---- optimizer step (optimizer_step_s) ---- */
    /* the distributed optimizer shards dense states over DP·CP and expert states over the
     * expert-data-parallel group (Megatron-Core), as the memory above does; without it every
     * rank updates all its stage's parameters, and the stage with the most sets the pace */
    double P_upd = in->lora_rank > 0 ? lora_params_gpu / (in->zero_stage >= 1 ? dpc : 1)
                 : in->zero_stage >= 1 ? P_dense_grad / dpc + P_exp_grad / edp
                                       : P_dense_grad + P_exp_grad;
    r->t_optimizer = optimizer_step_s(in, &dev, c, P_upd, ranks_on_node(in));
    /* the offloaded gradient partition's copies belong to the backward's reduction */
    r->t_dp_exposed += offload_grad_copies_s(in, &dev, c, P_upd, m, gbytes, Ls * lay.bwd);
    /* weight-gradient accumulation outside the GEMM (the stack's grad_accum_bytes: NeMo 1.x
     * adds each micro-batch's bf16 gradient into the fp32 main gradient in a pass of its own),
     * on every micro-batch of the stage with the most parameters */
    double gacc_bytes = in->stack ? in->stack->grad_accum_bytes : 0.0;
    /* unfused where the stack fuses it (Megatron-LM --no-gradient-accumulation-fusion): the wgrad
     * GEMM writes a 16-bit gradient, then the DDP hook's main_grad.add_(param.grad) reads it and
     * reads and writes the main gradient (Megatron-LM megatron/model/distributed.py of 2023,
     * core/distributed/distributed_data_parallel.py later): 12 B with fp32 main gradients */
    if (in->grad_accum_unfused && gacc_bytes < 2.0 * wbytes + 2.0 * gbytes) gacc_bytes = 2.0 * wbytes + 2.0 * gbytes;
    double t_gacc = m * P_grad * gacc_bytes / dev.hbm;
    /* copies a sharded stack runs on the compute stream (its fsdp_*_copy_passes), FSDP2's: each
     * gather's flat output copied into the parameters it holds (foreach_all_gather_copy_out:
     * split_with_sizes_copy, a read and a write of the gathered bytes) and each reduction's unsharded
     * gradients copied into the reduce-scatter input in the reduce dtype (foreach_reduce:
     * _chunk_cat, a read of the gradient and a write of gbytes), both issued on the current stream
     * before the collective's own (torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py).
     * FSDP1's FlatParameter is gathered in place and cast on its post-backward stream: none. */
    double t_copy_fwd = 0.0, t_copy_bwd = 0.0;
    if (in->zero_stage >= 2 && in->stack && (in->stack->fsdp_gather_copy_passes > 0 || in->stack->fsdp_reduce_copy_passes > 0)) {
        double passes = in->zero_stage >= 3 ? in->stack->fsdp_gather_copy_passes : 0.0;
        /* each micro-batch's gathers (gather_fwd_b, gather_bwd_b); under the pipeline's keep
         * (fsdp_once) one a step */
        t_copy_fwd = (once ? 1.0 : m) * passes * gather_fwd_b / dev.hbm;
        t_copy_bwd = (once ? 0.0 : m) * passes * gather_bwd_b / dev.hbm;
        double rc = in->stack->fsdp_reduce_copy_passes;
        if (!once) {
            t_copy_bwd += m * rc * P_grad * (wbytes + gbytes) / dev.hbm;
        } else {
            /* gradient sync off until the last micro-batch (torch.distributed.pipelining): each
             * backward's post_backward keeps the unsharded gradient in the reduce dtype on the
             * compute stream, the first converted (to_accumulated_grad_if_needed: wbytes + gbytes,
             * none when they are one dtype), the others added into it (accumulate_unsharded_grad_
             * if_needed: wbytes + 2 gbytes), and the one reduction copies the accumulator in (2 gbytes) */
            double convert = gbytes != wbytes ? wbytes + gbytes : 0.0;
            t_copy_bwd += rc * P_grad * (convert + (m - 1) * (wbytes + 2.0 * gbytes) + 2.0 * gbytes) / dev.hbm;
        }
    }
    r->t_compute_fwd += t_copy_fwd;
    r->t_compute_bwd += t_gacc + t_copy_bwd;
    r->t_overhead = c->step_overhead_s;

    r->step_time = t_pipe + t_gacc + t_copy_fwd + t_copy_bwd + r->t_dp_exposed + r->t_optimizer + r->t_overhead;
    double seq_tokens = sq; /* tokens per sample: the (encoder) sequence length */
    r->samples_per_s = in->gbs / r->step_time;
    r->tokens_per_s = r->samples_per_s * seq_tokens;
    r->tokens_per_s_per_gpu = r->tokens_per_s / N;
    r->model_flops_per_step = est_model_flops(s, in->gbs);
    r->tflops_per_gpu = r->model_flops_per_step / r->step_time / N / 1e12;
    r->mfu = r->tflops_per_gpu / est_peak_tflops(g, in->precision);
    r->params_b = params_total(s, &pc) / 1e9;
    est_band_of(g, in->stack, &r->band_time_rel, &r->band_mem_rel, &r->band_rank_rel, &r->band_rows);
    if (in->num_tokens_b > 0) {
        r->days_to_train = in->num_tokens_b * 1e9 / r->tokens_per_s / 86400.0;
        double price = in->price_per_gpu_hour > 0 ? in->price_per_gpu_hour : g->price_per_hour;
        r->cost_usd = r->days_to_train * 24.0 * N * price;
    }
    return 0;
}

double est_band_rel(const est_result *r) { return r ? r->band_time_rel : 0.0; }

double est_rank_band_rel(const est_result *r) { return r ? r->band_rank_rel : 0.0; }
