/* est.c — memory and step-time model of one training candidate.
 *
 * The model is a roofline per kernel plus explicit communication:
 *   GEMMs     max(FLOPs / (peak·eff), bytes / HBM bandwidth, launch floor)
 *   attention FlashAttention FLOPs at attn_eff of peak (causal halves them)
 *   other ops bytes moved over HBM bandwidth (elementwise_units)
 *   TP/CP/EP  collectives per layer over NVLink or the network, by rank placement
 *   PP        bubble (p−1)/(v·m) of the pipeline (Narayanan et al. 2021 §2.2)
 *   DP        gradient reduce-scatter / all-reduce and parameter all-gather,
 *             overlapped with the last micro-batch's backward
 *   memory    weights/grads/optimizer per Megatron's distributed-optimizer table,
 *             activations per Korthikanti et al. 2022 §4 generalised to GQA,
 *             gated MLPs, MoE and FlashAttention, times the micro-batches the
 *             pipeline schedule keeps in flight.
 * Rank order is Megatron-Core's default tp-cp-ep-dp-pp (parallel_state.py), which
 * decides which groups stay inside an NVLink domain.
 */
#include "estimator/est.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/layer.h"
#include "util/csv.h"
#include "util/fsutil.h"
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

/* ---------- calibration constants ---------- */

static const struct {
    const char *key;
    size_t off;
} CAL_KEYS[] = {
    {"collective_eff", offsetof(est_cal, collective_eff)}, {"p2p_eff", offsetof(est_cal, p2p_eff)},
    {"attn_eff", offsetof(est_cal, attn_eff)},             {"moe_gemm_eff", offsetof(est_cal, moe_gemm_eff)},
    {"elementwise_units", offsetof(est_cal, elementwise_units)}, {"min_kernel_us", offsetof(est_cal, min_kernel_us)},
    {"tp_overlap", offsetof(est_cal, tp_overlap)},         {"dp_tail", offsetof(est_cal, dp_tail)},
    {"cuda_context_gb", offsetof(est_cal, cuda_context_gb)}, {"fragmentation", offsetof(est_cal, fragmentation)},
    {"memory_limit_frac", offsetof(est_cal, memory_limit_frac)}, {"step_overhead_s", offsetof(est_cal, step_overhead_s)},
    {"moe_imbalance", offsetof(est_cal, moe_imbalance)}, {"moe_permute_units", offsetof(est_cal, moe_permute_units)},
    {"fp4_speedup", offsetof(est_cal, fp4_speedup)}, {"moe_launch_us", offsetof(est_cal, moe_launch_us)}, {"layer_overhead_us", offsetof(est_cal, layer_overhead_us)},
    {"compute_scale", offsetof(est_cal, compute_scale)},
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

int est_cal_load_file(const char *path, est_cal *c, ac_err *e)
{
    csv_table t;
    if (csv_read_file(path, &t, e)) return -1;
    est_cal tmp = *c;
    int rc = cal_apply(&t, &tmp, false, e);
    csv_free(&t);
    if (!rc) *c = tmp;
    return rc;
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
    if (in->tp < 1 || in->pp < 1 || in->cp < 1 || in->ep < 1 || in->vp < 1 || in->etp < 1)
        return WHY("parallel sizes must be at least 1");
    if (in->mbs < 1 || in->gbs < 1) return WHY("micro and global batch sizes must be at least 1");
    if (s->heads % in->tp) return WHY("TP %d does not divide %d attention heads", in->tp, s->heads);
    if (shape_query_groups(s) % in->tp) return WHY("TP %d does not divide %d query groups (KV heads)", in->tp, shape_query_groups(s));
    int L = shape_total_layers(s);
    if (L % in->pp && !in->allow_uneven_pp) return WHY("PP %d does not divide %d layers", in->pp, L);
    if (in->pp > L) return WHY("PP %d exceeds the %d layers", in->pp, L);
    if (in->vp > 1) {
        if (in->pp < 2) return WHY("virtual pipeline %d needs PP > 1", in->vp);
        if (L % in->pp == 0 && (L / in->pp) % in->vp)
            return WHY("virtual pipeline %d does not divide %d layers per pipeline stage", in->vp, L / in->pp);
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
    p.attn = at.weights;
    double L = s->num_layers, moe = layer_moe_count(s), experts = layer_expert_weights(s);
    p.mlp_expert = moe / L * experts; /* routed experts: sharded by EP */
    p.mlp_dense = (layer_stack_mlp_weights(s, NULL) - moe * experts) / L; /* dense MLPs, shared experts, routers */
    p.norms = 2.0 * h;
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
    double per_layer = p->attn + p->mlp_dense + p->mlp_expert + p->norms;
    double n = per_layer * shape_total_layers(s) + p->embedding + p->output_layer + p->position + p->mtp;
    if (s->arch == ARCH_ENCODER_DECODER) n += p->cross_attn * s->num_layers;
    return n;
}

/* ---------- communication ---------- */

/* GPUs that talk over NVLink (or PCIe) without the NIC: the NVLink domain when it
 * spans more than a node (NVL72 racks of 4-GPU trays), else the node. */
static int local_unit(const est_input *in)
{
    const gpu_spec *g = in->gpu;
    int domain = g->nvlink_domain > 1 ? g->nvlink_domain : 1;
    int node = in->gpus_per_node > 0 ? in->gpus_per_node : g->gpus_per_node;
    return domain > node ? domain : (node > 0 ? node : 1);
}

/* ranks of a group of `size` ranks spaced `stride` apart that share one local unit */
static int ranks_per_unit(const est_input *in, int size, int stride)
{
    int unit = local_unit(in);
    int n = stride >= unit ? 1 : unit / stride;
    return n < size ? n : size;
}

/* Per-GPU bandwidth (bytes/s) of a group of `size` ranks spaced `stride` apart.
 * Inside one NVLink domain (or PCIe box): the local link. Across units each GPU
 * drives its own NIC, so a ring's bus bandwidth is the group's ranks per unit ×
 * scale-out per GPU, capped by NVLink (nccl-tests behaviour on DGX-style nodes;
 * on NVL72 the unit is the 72-GPU rack, not the 4-GPU tray). */
static double group_bw(const est_input *in, int size, int stride)
{
    const gpu_spec *g = in->gpu;
    if ((long)size * stride <= local_unit(in)) return g->nvlink_gbps * GB;
    double bw = ranks_per_unit(in, size, stride) * g->scaleout_gbps * GB;
    double cap = g->nvlink_gbps * GB;
    return bw < cap ? bw : cap;
}

/* EP token dispatch (or combine) of one layer: each of a rank's T tokens goes to k
 * experts spread evenly over the k_ep ranks of the group (`stride` apart).  Copies for
 * experts in the same NVLink unit move over NVLink; a token bound for another unit
 * crosses this GPU's NIC once per unit and is fanned out there over NVLink (node-level
 * deduplication of DeepEP / Megatron-Core's flex dispatcher; Zhao et al. 2025,
 * DeepSeek-V3 §3.2.2): with n units a token reaches (n−1)(1 − (1 − 1/n)^k) remote
 * units on average.  No ring aggregation helps an all-to-all, so the remote part runs
 * at the per-GPU scale-out rate while NVLink carries the local part. */
static double dispatch_s(const est_input *in, double T, double k, double token_bytes, int k_ep, int stride,
                         const est_cal *c)
{
    if (k_ep <= 1) return 0.0;
    const gpu_spec *g = in->gpu;
    int local = ranks_per_unit(in, k_ep, stride);
    double units = (double)k_ep / local;
    double copies_local = k * (local - 1) / k_ep;
    double copies_remote = units > 1 ? (units - 1.0) * (1.0 - pow(1.0 - 1.0 / units, k)) : 0.0;
    /* group-limited routing with whole groups per unit (experts are placed on EP ranks in
     * order, so a unit holds groups / units consecutive groups): a token's experts sit in
     * at most group_topk units, its own among them with probability group_topk / units */
    const model_shape *s = &in->shape;
    if (units > 1 && s->moe_group_topk > 0 && s->moe_router_groups > 0 && (int)units == units &&
        s->moe_router_groups % (int)units == 0) {
        double reach = fmin(units, (double)s->moe_group_topk);
        copies_remote = fmin(copies_remote, reach * (units - 1.0) / units);
    }
    double t_local = T * copies_local * token_bytes / (g->nvlink_gbps * GB * c->collective_eff);
    double t_remote = T * copies_remote * token_bytes / (g->scaleout_gbps * GB * c->collective_eff);
    return t_local > t_remote ? t_local : t_remote;
}

/* ring all-reduce of `bytes` over k ranks: 2(k−1)/k · bytes / busbw (NCCL's busbw definition) */
static double allreduce_s(double bytes, int k, double bw, const est_cal *c)
{
    return k > 1 ? 2.0 * (k - 1) / k * bytes / (bw * c->collective_eff) : 0.0;
}

/* all-gather or reduce-scatter of a `bytes` full buffer over k ranks: (k−1)/k · bytes / busbw */
static double gather_s(double bytes, int k, double bw, const est_cal *c)
{
    return k > 1 ? (double)(k - 1) / k * bytes / (bw * c->collective_eff) : 0.0;
}

/* ---------- compute ---------- */

typedef struct {
    double peak;        /* FLOP/s of the GEMM precision */
    double peak16;      /* FLOP/s in bf16 (attention runs in bf16 even in fp8 training) */
    double gemm_eff, hbm; /* bytes/s */
    double host;          /* bytes/s to host memory (catalog host_gbps): CPU offload */
    double elem_bytes;  /* bytes per GEMM operand element */
    const est_cal *cal;
    layer_attn at;      /* the model's attention widths, derived once per evaluation */
} device;

/* One GEMM (M×K)·(K×N): roofline of FLOPs at the achievable fraction of peak vs
 * operand traffic over HBM, with a launch floor (Williams et al. 2009 roofline). */
static double gemm_s(const device *d, double M, double K, double N, double eff_scale)
{
    if (M <= 0 || K <= 0 || N <= 0) return 0.0;
    double flops = 2.0 * M * K * N;
    double t_math = flops / (d->peak * d->gemm_eff * eff_scale);
    double t_mem = d->elem_bytes * (M * K + K * N + M * N) / d->hbm;
    double t = t_math > t_mem ? t_math : t_mem;
    double floor = d->cal->min_kernel_us * 1e-6;
    return t > floor ? t : floor;
}

typedef struct {
    double fwd, bwd;          /* compute seconds per layer per micro-batch */
    double attn_core_fwd;     /* attention-core part of fwd (selective recompute, CP overlap) */
    double mla_up_fwd;        /* MLA up-projections' part of fwd (recompute_mla_up_proj) */
    double module_recomp;     /* recompute_layernorm / recompute_moe_act: their forward again */
    double tp_comm, cp_comm, ep_comm; /* fwd+bwd seconds, before overlap */
    double host_moe;                  /* host time of the expert block, fwd+bwd (moe_host_s) */
    double act_full, act_ckpt;        /* activation bytes kept per layer per micro-batch */
} layer_cost;

/* Mean keys a query attends in a sequence of s tokens: s without a mask; causal
 * (s+1)/2 ≈ s/2; causal with a window of W: query i sees min(i, W) keys, so the
 * mean is (W(W+1)/2 + (s−W)·W)/s = W − W(W−1)/(2s) (Beltagy et al. 2020, sliding
 * window cost O(s·W)); a bidirectional window sees min(s, W). */
double est_attn_keys(double s, bool causal, double window)
{
    if (window <= 0 || window >= s) return causal ? s / 2.0 : s;
    if (!causal) return window;
    return window - window * (window - 1.0) / (2.0 * s);
}

/* Keys per query the attention kernel computes: FlashAttention walks whole blocks of
 * EST_ATTN_KEY_BLOCK keys (Dao 2023 §3.1; FA3 and cuDNN use 128 on Hopper and Blackwell)
 * and masks inside them, so a query block of a sliding window of W keys computes the
 * W/128 blocks its window covers plus the diagonal one: W + 128 keys, not W.  (The
 * diagonal block of full causal attention adds 64 to s/2, left out: ≤ 3 % for s ≥ 4096.) */
double est_attn_keys_computed(double s, bool causal, double window)
{
    double full = est_attn_keys(s, causal, 0);
    if (window <= 0 || window >= s) return full;
    return fmin(full, window + EST_ATTN_KEY_BLOCK);
}

/* GEMM rate of NVFP4 training: it runs a share f of each GEMM's work at the FP4 rate and
 * the rest (block scaling, random Hadamard transforms, layers kept in BF16) at the FP8
 * rate, so its speedup over FP8 is Amdahl's 1/((1 − f) + f/r) with r the FP4/FP8 peak
 * ratio.  fp4_speedup is that speedup on Blackwell (r = 2), which fixes f = 2(1 − 1/s);
 * Blackwell Ultra raises r to 3 (GB300: 15 dense FP4 PFLOP/s over 5 FP8), so the same
 * share gains more: 1.8× instead of 1.5×. */
double est_fp4_gemm_tflops(const gpu_spec *g, double fp4_speedup)
{
    double fp8 = g->fp8_tflops > 0 ? g->fp8_tflops : g->bf16_tflops;
    if (g->fp4_tflops <= 0 || fp8 <= 0 || fp4_speedup <= 0) return fp8;
    double r = g->fp4_tflops / fp8;
    double f = fmin(1.0, fmax(0.0, 2.0 * (1.0 - 1.0 / fp4_speedup)));
    return fp8 / ((1.0 - f) + f / r);
}

/* Fraction of the bf16 peak an exp-bound attention forward reaches: attn_eff, times
 * attn_speedup on GPUs whose softmax exponentials run faster than their MMA peak implies
 * (Blackwell Ultra doubles the SFU rate; data/gpus.csv); no kernel exceeds 95 % of peak.
 * Each score costs one exponential and 2·(d_qk + d_v) MMA FLOPs, so at a fixed exponential
 * rate the FLOP rate falls with narrower heads: attn_eff holds for d_qk + d_v = 256 (head
 * dimension 128, the FlashAttention-3 reference: "512× more matmul FLOPs than exponential"
 * at 128, Shah et al. 2024 §3.1) and scales by (d_qk + d_v)/256 below it (64-wide heads:
 * half).  head_dims ≤ 0: the reference width. */
double est_attn_fwd_eff(double attn_eff, const gpu_spec *g, double head_dims)
{
    double width = head_dims > 0 ? fmin(1.0, head_dims / EST_ATTN_REF_HEAD_DIMS) : 1.0;
    return fmin(0.95, attn_eff * g->attn_speedup * width);
}

/* Elements one GPU casts to FP8/FP4 per layer for T tokens.  Transformer Engine
 * quantizes every GEMM input: forward the activation entering QKV, the attention
 * projection, FC1 and FC2; backward the output gradient of each of them (for the data-
 * and weight-gradient GEMMs).  Each cast reads 2 B and writes a row-wise and a
 * column-wise (transposed, for the weight gradient) 1-byte copy: 4 B per element.
 * Weights are cast once per step and cached, so they are left out. MoE experts see
 * est_moe_tokens routed copies, F/etp wide inside. */
static double cast_elems(const est_input *in, const layer_attn *at, double T, bool backward, bool moe_layer)
{
    const model_shape *s = &in->shape;
    double t = in->tp, h = s->hidden;
    double mats_in = s->gated_mlp ? 2.0 : 1.0;
    /* MLA adds the up-projections' latent inputs and the down-projection's output gradient */
    double attn = backward ? T * ((at->q + at->k + at->v + h) / t + at->down)
                           : T * ((h + at->ctx) / t + at->q_latent + at->kv_latent);
    double mlp;
    if (moe_layer) {
        /* est_moe_tokens routed token copies per GPU, each h wide in and F/etp wide inside */
        double F = s->moe_ffn_hidden, et = in->etp, Tm = est_moe_tokens(in, T);
        mlp = backward ? Tm * (mats_in * F / et + h) : Tm * (h + F / et);
        double Fs = s->moe_shared_ffn; /* shared experts: a dense MLP every token passes */
        if (Fs > 0) mlp += backward ? T * (mats_in * Fs + h) / t : T * (h + Fs) / t;
    } else {
        double F = s->ffn_hidden;
        mlp = backward ? T * (mats_in * F + h) / t : T * (h + F) / t;
    }
    return attn + mlp;
}

/* what a row recomputes, as Megatron-Core names it: "full", or the selective modules
 * joined by '+' (core_attn, mla_up_proj, layernorm, moe_act); empty for none */
void est_recompute_text(const est_input *in, char *buf, size_t n)
{
    static const char *const names[] = {"core_attn", "mla_up_proj", "layernorm", "moe_act"};
    bool on[] = {in->recompute == RECOMPUTE_SELECTIVE, in->recompute_mla_up_proj, in->recompute_layernorm,
                 in->recompute_moe_act};
    buf[0] = '\0';
    if (in->recompute == RECOMPUTE_FULL) {
        snprintf(buf, n, "full");
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

double est_cast_elems(const est_input *in, double T, bool backward, bool moe_layer)
{
    layer_attn at;
    layer_attn_of(&in->shape, &at);
    return cast_elems(in, &at, T, backward, moe_layer);
}

/* Routed token copies one GPU's experts process per micro-batch when each GPU holds T
 * tokens of the sequence.  With TP > 1 Megatron-Core requires sequence parallelism for
 * MoE, so a GPU enters the MoE layer with T/tp tokens; each is sent to top-k experts,
 * and expert-TP ranks all-gather their inputs, so the GPUs of an expert-TP group each
 * see etp times their share (Megatron-Core MoE docs, "expert tensor parallelism";
 * token dispatcher all-to-all then ETP all-gather).  Balanced routing spreads these
 * evenly over the EP group. */
double est_moe_tokens(const est_input *in, double T)
{
    const model_shape *s = &in->shape;
    double k = s->moe_topk > 0 ? s->moe_topk : 1;
    return T * k * in->etp / in->tp;
}

/* Host time of one MoE layer's expert block per micro-batch, forward + backward.
 * Grouped expert GEMMs are issued one expert at a time (Transformer Engine
 * GroupedLinear loops over the local experts): 2 GEMMs forward and 4 backward per
 * expert, plus an input cast before each forward GEMM and a gradient cast before
 * each backward pair under FP8/FP4 (TE quantizes per expert).  Each of these
 * launches costs moe_launch_us of host time (Python module + quantizer setup +
 * cuBLAS call in eager PyTorch). */
static double moe_host_s(const est_input *in, const est_cal *c, double local_experts)
{
    bool low_precision = in->precision == PREC_FP8 || in->precision == PREC_FP4;
    double launches_per_expert = 6.0 + (low_precision ? 4.0 : 0.0);
    return local_experts * launches_per_expert * c->moe_launch_us * 1e-6;
}

/* HBM bytes per routed token copy that the experts' work outside their GEMMs adds, beyond
 * one fused activation (counted with the other elementwise traffic), forward or backward.
 * F = the expert FFN width on this GPU, 2 B per element.
 * - Clamped gated activation (GPT-OSS; Megatron-Core MLP glu() with
 *   activation_func_clamp_value): the two clamps, the linear half's "+ offset" and the
 *   product run as separate PyTorch ops around the fused activation.  Forward: clamp 2F +
 *   clamp 2F + activation 2F + add 2F + product 3F = 11F element reads and writes against
 *   the fused kernel's 3F: 8F more.  Backward (autograd): product 5F, activation 3F, two
 *   clamps 3F each, the chunk's concatenation 4F = 18F against 5F: 13F more.
 * - Expert biases: grouped GEMMs have no bias epilogue (Transformer Engine GroupedLinear;
 *   TE issue #2766), so the forward adds the FC1 and FC2 biases in passes of their own
 *   (read + write of mats·F + h) and the backward reduces the output gradients for the bias
 *   gradients (one read of mats·F + h).
 * A fused grouped MLP (fused_expert_mlp) does both in its epilogue: nothing added.
 * Saved extra tensors of the unfused clamps are left out of the memory model. */
/* the clamps' share: element reads and writes per routed copy (moe_act recompute re-runs
 * the forward's) */
static double clamp_elems(const est_input *in, bool backward)
{
    const model_shape *s = &in->shape;
    if (in->fused_expert_mlp || !s->moe_glu_clamp || !s->gated_mlp) return 0.0;
    double F = (double)s->moe_ffn_hidden / in->etp;
    return backward ? 13.0 * F : 8.0 * F;
}

static double expert_epilogue_bytes(const est_input *in, bool backward)
{
    const model_shape *s = &in->shape;
    if (in->fused_expert_mlp) return 0.0;
    double F = (double)s->moe_ffn_hidden / in->etp, h = s->hidden, mats = s->gated_mlp ? 2.0 : 1.0;
    double elems = clamp_elems(in, backward);
    if (s->moe_expert_bias) elems += backward ? mats * F + h : 2.0 * (mats * F + h);
    return 2.0 * elems;
}

/* Korthikanti et al. 2022 §4.1 activation inventory per token, generalised:
 * attention keeps the norm input, QKV input, Q/K/V (GQA: g·d for K and V), the
 * context and a dropout mask; without FlashAttention also 5·a·s bytes of scores,
 * softmax and its dropout mask (removed by selective recompute); the MLP keeps its
 * input, FC1 output (two for gated MLPs), activation output and a mask. Norm inputs,
 * masks and FC inputs are split by TP only with sequence parallelism. */
static void layer_cost_compute(const est_input *in, const device *dev, double seq_q, double seq_kv, bool causal,
                               bool cross, double cross_seq, bool moe_layer, layer_cost *lc)
{
    const model_shape *s = &in->shape;
    const est_cal *c = dev->cal;
    double t = in->tp, cp = in->cp;
    double h = s->hidden, a = s->heads, g = shape_query_groups(s), d = shape_head_dim(s);
    const layer_attn at = dev->at;
    double T = in->mbs * seq_q / cp; /* tokens per GPU per micro-batch */
    bool sp = in->sequence_parallel && in->tp > 1;
    double spd = sp ? t : 1.0;
    bool dropout = !s->gated_mlp; /* GPT-3/BERT/T5 templates use dropout; Llama/Mixtral do not */
    double mask = dropout ? 1.0 : 0.0;
    memset(lc, 0, sizeof *lc);

    /* --- GEMMs, forward --- */
    double f_attn = gemm_s(dev, T, at.ctx / t, h, 1.0); /* output projection (row parallel) */
    if (layer_is_mla(s)) {
        /* MLA: the down-projection is replicated across TP ranks (Megatron-Core MLA
         * "duplicated" linear), the up-projections are column parallel */
        double up = gemm_s(dev, T, at.kv_latent, a * (d + at.v_dim) / t, 1.0);
        if (at.q_latent > 0) up += gemm_s(dev, T, at.q_latent, at.q / t, 1.0);
        f_attn += gemm_s(dev, T, h, at.down, 1.0) + up + (at.q_latent > 0 ? 0.0 : gemm_s(dev, T, h, at.q / t, 1.0));
        lc->mla_up_fwd = up;
    } else {
        f_attn += gemm_s(dev, T, h, (at.q + at.k + at.v) / t, 1.0);
    }
    double f_mlp;
    double mats_in = s->gated_mlp ? 2.0 : 1.0;
    if (moe_layer) {
        double etp = in->etp, ep = in->ep, E = s->num_experts, k = s->moe_topk > 0 ? s->moe_topk : 1;
        double F = s->moe_ffn_hidden;
        double local_experts = E / ep;
        double T_in = T / t; /* sequence-parallel share entering the layer */
        /* balanced routing: this GPU's experts receive est_moe_tokens in total */
        double m_e = est_moe_tokens(in, T) / local_experts;
        /* the busiest expert sets the pace (moe_imbalance); benchmark runs that force a
         * balanced token distribution, or drop tokens beyond a fixed capacity, do not wait */
        double imbalance = in->moe_force_balanced || in->moe_token_drop ? 1.0 : c->moe_imbalance;
        f_mlp = imbalance * local_experts *
                    (gemm_s(dev, m_e, h, mats_in * F / etp, c->moe_gemm_eff) + gemm_s(dev, m_e, F / etp, h, c->moe_gemm_eff)) +
                gemm_s(dev, T_in, h, E, 1.0) + /* router */
                c->moe_permute_units * 2.0 * T_in * k * h / dev->hbm;
        /* EP all-to-all: dispatch and combine, forward and backward (Megatron-Core token
         * dispatcher); expert ranks are consecutive within the expert-TP groups
         * (Megatron-Core expert rank order tp-ep-dp-pp with tp = expert TP) */
        if (in->ep > 1) lc->ep_comm = 4.0 * imbalance * dispatch_s(in, T_in, k, h * 2.0, in->ep, in->etp, c);
        lc->host_moe = moe_host_s(in, c, local_experts);
        /* shared experts: a dense MLP of moe_shared_ffn every token passes, TP-split
         * (DeepSeekMoE, Dai et al. 2024 §3.2; Megatron-Core SharedExpertMLP) */
        double Fs = s->moe_shared_ffn;
        if (Fs > 0) f_mlp += gemm_s(dev, T, h, mats_in * Fs / t, 1.0) + gemm_s(dev, T, Fs / t, h, 1.0);
    } else {
        double F = s->ffn_hidden;
        f_mlp = gemm_s(dev, T, h, mats_in * F / t, 1.0) + gemm_s(dev, T, F / t, h, 1.0);
    }
    double f_cross = 0.0;
    if (cross) {
        double Te = in->mbs * cross_seq / cp;
        f_cross = gemm_s(dev, T, h, a * d / t, 1.0) + gemm_s(dev, Te, h, 2 * g * d / t, 1.0) + gemm_s(dev, T, a * d / t, h, 1.0);
    }

    /* --- attention core: QK^T and AV, 4·T·keys·a·d FLOPs with keys the mean keys a
     * query attends (causal masks and sliding windows skip the rest: FlashAttention) --- */
    double keys = s->swa_window > 0 ? s->swa_share * est_attn_keys_computed(seq_kv, causal, s->swa_window) +
                                          (1.0 - s->swa_share) * est_attn_keys(seq_kv, causal, 0)
                                    : est_attn_keys(seq_kv, causal, 0);
    double attn_flops = 2.0 * T * keys * a * (at.qk_dim + at.v_dim) / t; /* QKᵀ over qk_dim, AV over v_dim */
    if (cross) attn_flops += 4.0 * T * cross_seq * a * d / t;
    double attn_eff = in->flash_attention ? c->attn_eff : c->attn_eff * 0.6; /* unfused softmax round-trips HBM */
    /* the forward is exp-bound (est_attn_fwd_eff); the backward (FlashAttention: 2.5× the
     * forward's work, mostly MMAs) is not */
    double t_attn = attn_flops / (dev->peak16 * est_attn_fwd_eff(attn_eff, in->gpu, at.qk_dim + at.v_dim));
    double t_attn_bwd = 2.5 * attn_flops / (dev->peak16 * attn_eff); /* MMA-bound: 5 of the 7 GEMMs */

    /* --- elementwise traffic (norms, dropout, residual, activation, casts) --- */
    double elem_bytes = c->elementwise_units * 2.0 * T * h / spd;
    /* the activation function reads its input and writes its output (gated: 2F in, F out).
     * Kept for a fused grouped MLP too: training saves the FC1 output for the backward, so
     * it reaches HBM either way */
    double F_act = moe_layer ? s->moe_ffn_hidden * (s->moe_topk > 0 ? s->moe_topk : 1) + s->moe_shared_ffn : s->ffn_hidden;
    elem_bytes += 2.0 * 2.0 * T * F_act * (s->gated_mlp ? 1.5 : 1.0) / t;
    double t_elem = elem_bytes / dev->hbm;
    /* the experts' unfused clamps and bias passes (expert_epilogue_bytes) */
    double t_epi_fwd = 0.0, t_epi_bwd = 0.0;
    if (moe_layer) {
        double routed = est_moe_tokens(in, T);
        t_epi_fwd = routed * expert_epilogue_bytes(in, false) / dev->hbm;
        t_epi_bwd = routed * expert_epilogue_bytes(in, true) / dev->hbm;
    }
    /* selective module recompute (Megatron-Core recompute_modules): each norm reads its
     * input and writes its output again (2·h + 2·h bytes per token); the experts'
     * activation reads the FC1 output again and writes its output (gated: 2·2F + 2F) */
    if (in->recompute_layernorm) lc->module_recomp += 2.0 * 4.0 * h * T / spd / dev->hbm;
    if (in->recompute_moe_act && moe_layer) {
        lc->module_recomp += est_moe_tokens(in, T) * 2.0 * (mats_in + 1.0) * s->moe_ffn_hidden / in->etp / dev->hbm;
        /* with the clamps unfused they run again too */
        lc->module_recomp += est_moe_tokens(in, T) * 2.0 * clamp_elems(in, false) / dev->hbm;
    }

    /* --- FP8/FP4 quantization (est_cast_elems): 4 B per cast element at HBM speed --- */
    double t_cast_fwd = 0.0, t_cast_bwd = 0.0;
    if (dev->elem_bytes < 2.0) {
        t_cast_fwd = 4.0 * cast_elems(in, &at, T, false, moe_layer) / dev->hbm;
        t_cast_bwd = 4.0 * cast_elems(in, &at, T, true, moe_layer) / dev->hbm;
    }

    double gemm_fwd = f_attn + f_mlp + f_cross;
    lc->attn_core_fwd = t_attn;
    lc->fwd = gemm_fwd + t_attn + t_elem + t_cast_fwd + t_epi_fwd;
    /* backward: data and weight gradients double the GEMMs; FlashAttention's backward
     * recomputes the scores, 2.5× the forward (Dao 2023); elementwise ×2.  With LoRA
     * the frozen weights get no weight gradients: only the data-gradient GEMMs run, one
     * forward's worth (Hu et al. 2021 §4.2: frozen weights need no gradients; the rank-r
     * adapters add r/h of a layer's GEMM work and are left out) */
    double bwd_gemms = in->lora_rank > 0 ? 1.0 : 2.0;
    lc->bwd = bwd_gemms * gemm_fwd + t_attn_bwd + 2.0 * t_elem + t_cast_bwd + t_epi_bwd;

    /* --- TP collectives: 2 per block forward and 2 backward (all-reduce, or all-gather +
     * reduce-scatter with SP: same volume), message T·h·2 bytes (Korthikanti 2022 §4.2.2) --- */
    if (in->tp > 1) {
        double blocks = cross ? 3.0 : 2.0;
        double bw = group_bw(in, in->tp, 1);
        lc->tp_comm = 2.0 * blocks * allreduce_s(T * h * 2.0, in->tp, bw, c);
    }
    /* --- CP: ring exchange of K and V chunks, (cp−1) steps forward; backward also
     * returns dK, dV (Megatron-Core context parallel, Liu et al. 2023 ring attention) --- */
    if (in->cp > 1) {
        double kv_bytes = T * (at.k + at.v) / t * 2.0;
        double bw = group_bw(in, in->cp, in->tp);
        lc->cp_comm = 3.0 * (cp - 1) * kv_bytes / (bw * c->p2p_eff);
    }

    /* --- activation bytes per layer per micro-batch --- */
    /* GEMM inputs kept for the weight gradient: under FP8/FP4 Transformer Engine keeps the
     * quantized copy (1 B per element) it computed in the forward, not the bf16 tensor */
    double gin = dev->elem_bytes < 2.0 ? 1.0 : 2.0;
    double per_tok = 0.0;
    per_tok += (2 * h + gin * h + mask * h) / spd;          /* norm input, QKV input, attention dropout mask */
    if (in->recompute_layernorm) per_tok -= 2.0 * gin * h / spd; /* both norms' outputs recomputed */
    /* Q, K, V (MLA with recompute_mla_up_proj: recomputed from the latents instead) and the
     * context (projection input) */
    if (!(in->recompute_mla_up_proj && layer_is_mla(s))) per_tok += 2.0 * (at.q + at.k + at.v) / t;
    per_tok += gin * at.ctx / t;
    per_tok += gin * (at.q_latent + at.kv_latent);                /* MLA: latents the up-projections read */
    if (!in->flash_attention && in->recompute != RECOMPUTE_SELECTIVE)
        per_tok += 5.0 * a * seq_kv / t;                     /* scores, softmax, dropout (Korthikanti 5as/h) */
    per_tok += (2 * h + gin * h + mask * h) / spd;          /* norm input, FC1 input, MLP dropout mask */
    if (moe_layer) {
        /* dispatched tokens (FC1 input, h wide), FC1 output and activation output (FC2 input) */
        double F = s->moe_ffn_hidden, per_T = est_moe_tokens(in, 1.0), Fs = s->moe_shared_ffn;
        per_tok += per_T * (gin * h + (2.0 * mats_in * F + (in->recompute_moe_act ? 0.0 : gin * F)) / in->etp);
        per_tok += (2.0 * mats_in * Fs + gin * Fs) / t; /* shared experts (their input is the MLP input above) */
    } else {
        per_tok += (2.0 * mats_in * s->ffn_hidden + gin * s->ffn_hidden) / t;
    }
    if (cross) per_tok += (2 * h + mask * h) / spd + 2.0 * a * d / t * 2 + 4.0 * g * d / t * (cross_seq / seq_q);
    lc->act_full = per_tok * T;
    lc->act_ckpt = 2.0 * h / spd * T; /* full recompute keeps only the layer input */
}

/* layout names, indexed by est_pp_layout (data/recipes.csv, estimate --pp-layout) */
static const char *const PP_LAYOUT_NAMES[] = {[EST_PP_EVEN] = "even", [EST_PP_REMAINDER_LAST] = "remainder_last",
                                               [EST_PP_EMBEDDING_LOSS] = "embedding_loss"};

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

/* the average of two kinds of layer, a share w_x of the first: times add up, the larger
 * activation sets the memory a stage must hold */
static void layer_cost_mix(const layer_cost *x, const layer_cost *y, double w_x, layer_cost *out)
{
    double w_y = 1.0 - w_x;
    out->fwd = w_x * x->fwd + w_y * y->fwd;
    out->bwd = w_x * x->bwd + w_y * y->bwd;
    out->attn_core_fwd = w_x * x->attn_core_fwd + w_y * y->attn_core_fwd;
    out->mla_up_fwd = w_x * x->mla_up_fwd + w_y * y->mla_up_fwd;
    out->module_recomp = w_x * x->module_recomp + w_y * y->module_recomp;
    out->tp_comm = w_x * x->tp_comm + w_y * y->tp_comm;
    out->cp_comm = w_x * x->cp_comm + w_y * y->cp_comm;
    out->ep_comm = w_x * x->ep_comm + w_y * y->ep_comm;
    out->host_moe = w_x * x->host_moe + w_y * y->host_moe;
    out->act_full = fmax(x->act_full, y->act_full);
    out->act_ckpt = fmax(x->act_ckpt, y->act_ckpt);
}

/* parameters one GPU of a pipeline stage holds: all of them, the routed experts' share
 * and the decoder layers' share (the rest: embedding, output layer) */
typedef struct {
    double total, experts, layers;
} stage_params;

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
     * Multi-token prediction modules add their projection, layer and output layer. */
    layer_attn at;
    layer_attn_of(s, &at);
    double attn = 6.0 * B * sq * sq * s->heads * (at.qk_dim + at.v_dim);
    double logits = 6.0 * B * sq * h * V;
    double flops = 6.0 * B * sq * layer_stack_active_gemm_weights(s) + L * attn + logits;
    if (s->mtp_layers > 0) {
        double mlp_active = layer_mlp_gemm_active(s, layer_moe_count(s) > 0);
        flops += s->mtp_layers * (6.0 * B * sq * (at.weights + mlp_active + 2.0 * h * h) + attn + logits);
    }
    return flops;
}

int est_evaluate(const est_input *in_arg, est_result *r)
{
    memset(r, 0, sizeof *r);
    if (est_check(in_arg, r->why, sizeof r->why)) return -1;
    est_input in_copy = *in_arg;
    est_input *in = &in_copy;
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
    int L = shape_total_layers(s);
    int p = in->pp, v = in->vp, t = in->tp;
    int m = in->gbs / (in->mbs * dp);
    r->num_microbatches = m;
    /* layers of the largest stage (Ls); the first and the last may hold fewer, as they
     * also run the embedding, the output layer and the loss (est_stage_layers) */
    double Ls_first, Ls, Ls_last;
    est_stage_layers(in, &Ls_first, &Ls, &Ls_last);

    device dev = {0};
    dev.cal = c;
    dev.peak = est_peak_tflops(g, in->precision) * 1e12;
    dev.peak16 = est_peak_tflops(g, in->precision == PREC_FP32 ? PREC_FP32 : PREC_BF16) * 1e12;
    dev.gemm_eff = (in->precision == PREC_FP8 || in->precision == PREC_FP4) && g->fp8_gemm_eff > 0 ? g->fp8_gemm_eff : g->gemm_eff;
    if (in->precision == PREC_FP4 && g->fp4_tflops > 0) dev.peak = est_fp4_gemm_tflops(g, c->fp4_speedup) * 1e12;
    dev.peak *= c->compute_scale; /* a cluster's clocks/power cap vs the catalog (1 unless calibrated) */
    dev.peak16 *= c->compute_scale;
    dev.hbm = g->hbm_gbps * GB * 0.85; /* STREAM-like kernels reach ~85 % of HBM peak */
    dev.host = g->host_gbps * GB;
    dev.elem_bytes = in->precision == PREC_FP8 || in->precision == PREC_FP4 ? 1.0 : (in->precision == PREC_FP32 ? 4.0 : 2.0);
    layer_attn_of(s, &dev.at);

    /* per-layer costs; T5 has encoder and decoder layers of different sequence lengths,
     * MoE models may lead with dense layers: an average layer of the stage mixes them
     * (T5: equal split of both stacks) */
    layer_cost lay, mtp_layer = {0};
    double sq = s->seq_length;
    bool moe = shape_is_moe(s);
    if (s->arch == ARCH_ENCODER_DECODER) {
        double sd = s->dec_seq_length > 0 ? s->dec_seq_length : sq;
        layer_cost enc, dec;
        layer_cost_compute(in, &dev, sq, sq, false, false, 0, moe, &enc);
        layer_cost_compute(in, &dev, sd, sd, true, true, sq, moe, &dec);
        layer_cost_mix(&enc, &dec, 0.5, &lay);
    } else {
        bool causal = s->arch == ARCH_DECODER;
        layer_cost_compute(in, &dev, sq, sq, causal, false, 0, moe, &lay);
        int dense = moe ? s->num_layers - layer_moe_count(s) : 0;
        if (dense > 0) {
            layer_cost dense_layer, expert_layer = lay;
            layer_cost_compute(in, &dev, sq, sq, causal, false, 0, false, &dense_layer);
            layer_cost_mix(&dense_layer, &expert_layer, (double)dense / s->num_layers, &lay);
        }
        if (s->mtp_layers > 0) layer_cost_compute(in, &dev, sq, sq, causal, false, 0, moe, &mtp_layer);
    }

    /* ---- recompute: the share of layer-micro-batches that recompute their forward ---- */
    double layers_chunk = Ls / v;
    double inflight_mb; /* micro-batches the first stage holds (1F1B; Narayanan 2021 §2.2) */
    double inflight_layers;
    if (v > 1) {
        /* interleaved: first stage stores L·(1 + (p−1)/(p·v)) layer-activations
         * (Korthikanti 2022 §4.2.3), fewer when there are fewer micro-batches than stages */
        inflight_layers = L * (1.0 + (double)(p - 1) / ((double)p * v));
        double cap = (double)m * Ls;
        if (inflight_layers > cap) inflight_layers = cap;
        inflight_mb = inflight_layers / Ls;
    } else {
        inflight_mb = m < p ? m : p;
        inflight_layers = inflight_mb * Ls;
    }
    r->inflight_microbatches = inflight_mb;
    double ckpt_share = 0.0; /* fraction of stored layer activations that are checkpoints */
    if (in->recompute == RECOMPUTE_FULL) {
        double k = in->recompute_layers > 0 ? in->recompute_layers : layers_chunk;
        double share_k = k / layers_chunk;
        if (in->num_mbs_act >= 0 && in->act_per_pipe >= 0) {
            /* the original's partial checkpointing: the first num_mbs_act micro-batches in
             * flight checkpoint k layers per chunk, the others act_per_pipe layers */
            double n1 = in->num_mbs_act < inflight_mb ? in->num_mbs_act : inflight_mb;
            double share_rest = (double)in->act_per_pipe / Ls;
            if (share_rest > 1) share_rest = 1;
            ckpt_share = inflight_mb > 0 ? (n1 * share_k + (inflight_mb - n1) * share_rest) / inflight_mb : share_k;
        } else {
            ckpt_share = share_k;
        }
    }
    double act_per_layer = ckpt_share * lay.act_ckpt + (1.0 - ckpt_share) * lay.act_full;

    /* ---- time per micro-batch on a stage ---- */
    double t_layer = lay.fwd + lay.bwd;
    double t_recomp_layer = ckpt_share * lay.fwd;
    if (in->recompute == RECOMPUTE_SELECTIVE && !in->flash_attention) t_recomp_layer = lay.attn_core_fwd;
    if (in->recompute_mla_up_proj) t_recomp_layer += (1.0 - ckpt_share) * lay.mla_up_fwd; /* layers not fully recomputed */
    t_recomp_layer += (1.0 - ckpt_share) * lay.module_recomp;
    double tp_exposed = (1.0 - c->tp_overlap) * lay.tp_comm;
    /* CP ring steps overlap with attention compute (forward and backward) */
    double cp_exposed = lay.cp_comm - 3.5 * lay.attn_core_fwd;
    if (cp_exposed < 0) cp_exposed = 0;
    double ep_exposed = lay.ep_comm;
    /* A2A overlap (Megatron-Core 1F1B merged forward/backward of two micro-batches): the
     * all-to-all hides behind the other micro-batch's layer compute; only the excess shows */
    if (in->moe_a2a_overlap && m >= 2) /* the first forward and the last backward have no partner */
        ep_exposed = (m - 1.0) / m * fmax(0.0, lay.ep_comm - t_layer) + lay.ep_comm / m;
    /* dropless routing copies the per-expert token counts to the host every layer (the
     * grouped GEMM needs them as sizes), so the host cannot run ahead and the expert
     * launches sit on the critical path; with a fixed capacity only the part beyond the
     * GPU's own layer time shows */
    double host_exposed = in->cuda_graphs ? 0.0 : lay.host_moe;
    if (in->moe_token_drop && host_exposed > 0) {
        host_exposed -= t_layer + ep_exposed;
        if (host_exposed < 0) host_exposed = 0;
    }
    double layer_host_s = in->cuda_graphs ? 0.0 : c->layer_overhead_us * 1e-6;
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
    double t_embed = 3.0 * 2.0 * T * s->hidden / (in->sequence_parallel ? t : 1) / dev.hbm;
    /* output layer: forward, data gradient and (unless frozen under LoRA) weight gradient */
    double logit_passes = in->lora_rank > 0 ? 2.0 : 3.0;
    double t_logits = logit_passes * gemm_s(&dev, T, s->hidden, V / t, 1.0) + 3.0 * 8.0 * T * V / t / dev.hbm;
    /* multi-token prediction (DeepSeek-V3 §2.2; Megatron-Core MTP on the last stage): per
     * module a 2h→h projection, one more layer and one more output layer + cross-entropy */
    double mtp = s->mtp_layers, mtp_fwd = 0.0, mtp_bwd = 0.0, mtp_comm = 0.0;
    if (mtp > 0) {
        double proj = gemm_s(&dev, T, 2.0 * s->hidden, s->hidden / t, 1.0);
        mtp_fwd = mtp * (mtp_layer.fwd + proj + t_logits / logit_passes);
        mtp_bwd = mtp * (mtp_layer.bwd + 2.0 * proj + (logit_passes - 1.0) * t_logits / logit_passes);
        mtp_comm = mtp * ((1.0 - c->tp_overlap) * mtp_layer.tp_comm + mtp_layer.ep_comm +
                          (in->cuda_graphs ? 0.0 : mtp_layer.host_moe + layer_host_s));
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
        double msg = T * s->hidden * 2.0 / (in->sequence_parallel ? t : 1);
        double bw = group_bw(in, p, N / p);
        r->t_pp_p2p = (double)m * v * 2.0 * msg / (bw * c->p2p_eff);
    }
    double t_pipe = m * t_mb + r->t_pp_bubble + r->t_pp_p2p;

    /* ---- parameters on one GPU of the first, the largest and the last stage (each with
     * its own layer count: est_stage_layers) ---- */
    param_counts pc = count_params(s);
    double layer_dense = pc.attn + pc.mlp_dense + pc.norms + (s->arch == ARCH_ENCODER_DECODER ? 0.5 * pc.cross_attn : 0.0);
    double expert_share = shape_is_moe(s) ? 1.0 / (in->ep * in->etp) : 0.0;
    double layer_gpu = layer_dense / t + pc.mlp_expert * expert_share, layer_experts_gpu = pc.mlp_expert * expert_share;
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
    double lora_params_gpu = 0.0;
    if (in->lora_rank > 0) lora_params_gpu = Ls_first * in->lora_targets * in->lora_rank * 2.0 * s->hidden / t;

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
    if (in->precision == PREC_FP8 && in->lora_rank == 0) {
        double copies = in->fp8_block_scaled ? 2.0 : g->fp8_weight_copies;
        layer_wbytes = in->fp8_param_gather ? copies : wbytes + copies;
        if (in->fp8_param_gather) layer_gather_bytes = 1.0;
    }
    double stage_mem[2];
    double stage_parts[2][5];
    for (int st = 0; st < 2; st++) {
        const stage_params *sp = st == 0 ? &first_st : &last_st;
        double P = sp->total, P_exp = sp->experts, P_dense = P - P_exp, P_layers = sp->layers;
        double Ls_st = st == 0 ? Ls_first : Ls_last; /* this stage's decoder layers */
        double weights, grads, opt, cpu = 0.0;
        if (in->lora_rank > 0) {
            weights = P * wbytes + lora_params_gpu * wbytes;
            grads = lora_params_gpu * gbytes / (in->zero_stage >= 2 ? dpc : 1);
            opt = lora_params_gpu * 12.0 / (in->zero_stage >= 1 ? dpc : 1);
            /* ZeRO-3 / FSDP shards the frozen base weights too, gathering two layers at a
             * time (DeepSpeed ZeRO-3 and PyTorch FSDP with PEFT; answer.ai FSDP+QLoRA 2024) */
            if (in->zero_stage >= 3)
                weights = (P + lora_params_gpu) * wbytes / dpc + 2.0 * (P / (Ls_st > 0 ? Ls_st : 1)) * wbytes;
        } else {
            double shard_d = dpc, shard_e = edp;
            double weight_bytes = param_bytes(P, P_layers, layer_wbytes, wbytes);
            weights = weight_bytes;
            grads = (P_dense * gbytes) / (in->zero_stage >= 2 ? shard_d : 1) + (P_exp * gbytes) / (in->zero_stage >= 2 ? shard_e : 1);
            opt = (P_dense * 12.0) / (in->zero_stage >= 1 ? shard_d : 1) + (P_exp * 12.0) / (in->zero_stage >= 1 ? shard_e : 1);
            if (in->zero_stage >= 3) /* FSDP: shards of the weights + two gathered layers in flight */
                weights = param_bytes(P, P_layers, layer_gather_bytes, wbytes) / shard_d +
                          2.0 * weight_bytes / (Ls_st > 0 ? Ls_st : 1);
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
            cpu += P * wbytes / dpc;
            weights = 2.0 * (P / (Ls_st > 0 ? Ls_st : 1)) * wbytes;
        }
        double acts, logits = 0.0, layers_held;
        if (st == 0) {
            layers_held = inflight_layers * Ls_first / Ls;
            acts = layers_held * act_per_layer + inflight_mb * (2.0 + 1.0) * T * s->hidden / (in->sequence_parallel ? t : 1);
        } else {
            /* the last stage keeps one micro-batch in flight (more with interleaving) */
            layers_held = (v > 1 ? ((double)(v - 1) * p + 1) * layers_chunk : Ls) * Ls_last / Ls;
            if (layers_held > m * Ls_last) layers_held = m * Ls_last;
            acts = layers_held * act_per_layer;
            /* logits [T, V/t] in bf16 plus the fp32 softmax of the fused cross-entropy */
            logits = 6.0 * T * V / t;
        }
        double off = offloaded_bytes(layers_held, Ls_st, n_off, act_per_layer);
        acts -= off;
        cpu += off;
        if (st == 0 && p == 1) logits = 6.0 * T * V / t;
        /* the stage with the output layer also keeps the MTP modules' activations and logits */
        if (s->mtp_layers > 0 && logits > 0) {
            acts += s->mtp_layers * mtp_layer.act_full * fmax(1.0, layers_held / (Ls_last > 0 ? Ls_last : 1));
            logits *= 1.0 + s->mtp_layers;
        }
        /* during backward of a recomputed layer its full activations exist once */
        if (in->recompute == RECOMPUTE_FULL) acts += lay.act_full - lay.act_ckpt;
        int groups_nontrivial = (t > 1) + (p > 1) + (dp > 1) + (in->cp > 1) + (in->ep > 1);
        double comm = groups_nontrivial * 0.25 * GIB; /* NCCL buffers: ~channels × 2 × 4 MiB per communicator */
        double allowance = c->cuda_context_gb * GIB + c->fragmentation * (weights + grads + opt + acts + logits);
        stage_parts[st][0] = weights;
        stage_parts[st][1] = grads;
        stage_parts[st][2] = opt;
        stage_parts[st][3] = acts;
        stage_parts[st][4] = logits;
        stage_mem[st] = weights + grads + opt + acts + logits + comm + allowance;
        if (st == 0 || stage_mem[1] > stage_mem[0]) {
            r->mem_weights = weights; r->mem_grads = grads; r->mem_optimizer = opt; r->mem_activations = acts;
            r->mem_logits = logits; r->mem_comm_buffers = comm; r->mem_allowance = allowance;
            r->mem_total = stage_mem[st]; r->mem_peak_stage = st; r->cpu_mem_per_gpu = cpu;
        }
    }
    (void)stage_parts;
    /* "80 GB" GPUs hold 80 GiB (nvidia-smi: A100 81920 MiB, H100 81559 MiB): the catalog's
     * memory sizes and the original's gpu_memory_gb are binary gigabytes */
    double gpu_mem = (in->memory_limit_gb > 0 ? in->memory_limit_gb : g->memory_gb) * GIB;
    r->mem_limit = c->memory_limit_frac * gpu_mem;
    r->fits = r->mem_total <= r->mem_limit;

    /* ---- data parallel: fp32 gradient reduce-scatter (+ bf16 parameter all-gather with
     * the distributed optimizer) or all-reduce (Megatron DDP, grads in fp32 for bf16 training) ---- */
    /* the stage holding the most parameters (with PP 1: embedding and output layer) sets the pace */
    stage_params busiest = first_st.total >= last_st.total ? first_st : last_st;
    if (p > 2 && middle_st.total > busiest.total) busiest = middle_st; /* a middle stage of an uneven layout */
    double P_grad = in->lora_rank > 0 ? lora_params_gpu : busiest.total;
    double P_dense_grad = in->lora_rank > 0 ? P_grad : P_grad - busiest.experts;
    double P_exp_grad = in->lora_rank > 0 ? 0.0 : busiest.experts;
    double bw_dp = group_bw(in, dpc, in->tp);
    double bw_edp = group_bw(in, edp, in->tp * in->cp * in->ep);
    double t_rs = 0.0, t_ag = 0.0; /* gradient reduction, and the parameter all-gather of ZeRO ≥ 1 */
    /* partitioned gradients (ZeRO-2/3, FSDP) cannot accumulate a full gradient, so the
     * reduce-scatter runs after every micro-batch's backward, not once per step
     * (Rajbhandari et al. 2020 §5.2; DeepSpeed stage-2 reduces in each backward pass) */
    double rs_rounds = in->zero_stage >= 2 ? (double)m : 1.0;
    if (in->zero_stage >= 1) {
        t_rs = rs_rounds * (gather_s(P_dense_grad * gbytes, dpc, bw_dp, c) + gather_s(P_exp_grad * gbytes, edp, bw_edp, c));
        /* (under LoRA layer_gather_bytes is wbytes, so the layer split does not matter) */
        t_ag = gather_s(param_bytes(P_dense_grad, busiest.layers - busiest.experts, layer_gather_bytes, wbytes), dpc, bw_dp, c) +
               gather_s(P_exp_grad * layer_gather_bytes, edp, bw_edp, c);
    } else {
        t_rs = allreduce_s(P_dense_grad * gbytes, dpc, bw_dp, c) + allreduce_s(P_exp_grad * gbytes, edp, bw_edp, c);
    }
    double t_dp = t_rs + t_ag;
    double t_fsdp = 0.0;
    if (in->zero_stage >= 3) {
        /* FSDP gathers every layer's weights for forward and again for backward, per
         * micro-batch; prefetching hides it behind compute when compute is longer.
         * Under LoRA the gathered weights are the frozen base ones. */
        const stage_params *gathered = in->lora_rank > 0 ? &first_st : &busiest;
        double per_mb = 2.0 * gather_s(param_bytes(gathered->total, gathered->layers, layer_gather_bytes, wbytes), dpc, bw_dp, c);
        /* ZeRO-Infinity parameter offload: each rank's shard also crosses PCIe for both
         * passes (Rajbhandari et al. 2021, ZeRO-Infinity §5) */
        if (in->offload_params) per_mb += 2.0 * gathered->total * wbytes / dpc / dev.host;
        double hidden = mb_layers;
        t_fsdp = m * (per_mb > hidden ? per_mb - hidden : 0.0);
    }
    r->t_dp_comm = t_dp;
    double exposed, tail = c->dp_tail * t_dp;
    if (v > 1 && rs_rounds == 1) {
        /* interleaved schedule: every model chunk is its own DDP instance (Megatron-Core
         * overlap_grad_reduce / overlap_param_gather per chunk).  Backward runs all chunks
         * for p micro-batches at a time, so in the last round chunk j's gradients are final
         * j·u before the end (u = p chunk-backwards); their reductions queue on the network
         * one after another, and the first chunk's, final at the very end, always shows.
         * Parameter gathers mirror it under the next step's forward (chunk_queue_s). */
        double rounds = fmin((double)p, (double)m);
        double u_b = rounds * layers_chunk * lay.bwd, u_f = rounds * layers_chunk * lay.fwd;
        exposed = chunk_queue_s(t_rs, v, u_b) + chunk_queue_s(t_ag, v, u_f);
    } else {
        double window = Ls * (lay.bwd + lay.fwd); /* last micro-batch's backward + first's forward */
        if (rs_rounds > 1) window = Ls * (rs_rounds * lay.bwd + lay.fwd); /* each backward hides its own reduce */
        exposed = t_dp - window;
    }
    r->t_dp_exposed = (exposed > tail ? exposed : tail) + t_fsdp;

    /* ---- optimizer step: Adam reads grad, master, m, v and writes master, m, v and the
     * bf16 copy (30 B per parameter it owns) at HBM speed; CPU offload moves grads and
     * params over the host link (catalog host_gbps) and runs CPU Adam (~1e9 params/s per GPU's process,
     * DeepSpeed ZeRO-Offload paper) ---- */
    /* the distributed optimizer shards dense states over DP·CP and expert states over the
     * expert-data-parallel group (Megatron-Core), as the memory above does; without it every
     * rank updates all its stage's parameters, and the stage with the most sets the pace */
    double P_upd = in->lora_rank > 0 ? lora_params_gpu / (in->zero_stage >= 1 ? dpc : 1)
                 : in->zero_stage >= 1 ? P_dense_grad / dpc + P_exp_grad / edp
                                       : P_dense_grad + P_exp_grad;
    if (in->offload_optimizer)
        r->t_optimizer = P_upd * 6.0 / dev.host + P_upd / 1e9;
    else
        r->t_optimizer = P_upd * 30.0 / dev.hbm;
    r->t_overhead = c->step_overhead_s;

    r->step_time = t_pipe + r->t_dp_exposed + r->t_optimizer + r->t_overhead;
    double seq_tokens = sq; /* tokens per sample: the (encoder) sequence length */
    r->samples_per_s = in->gbs / r->step_time;
    r->tokens_per_s = r->samples_per_s * seq_tokens;
    r->tokens_per_s_per_gpu = r->tokens_per_s / N;
    r->model_flops_per_step = est_model_flops(s, in->gbs);
    r->tflops_per_gpu = r->model_flops_per_step / r->step_time / N / 1e12;
    r->mfu = r->tflops_per_gpu / est_peak_tflops(g, in->precision);
    r->params_b = params_total(s, &pc) / 1e9;
    if (in->num_tokens_b > 0) {
        r->days_to_train = in->num_tokens_b * 1e9 / r->tokens_per_s / 86400.0;
        double price = in->price_per_gpu_hour > 0 ? in->price_per_gpu_hour : g->price_per_hour;
        r->cost_usd = r->days_to_train * 24.0 * N * price;
    }
    return 0;
}
