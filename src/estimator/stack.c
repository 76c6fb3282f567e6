/* stack.c — training stacks parsed from the compiled-in data/stacks.csv (stack.h) */
#include "estimator/stack.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "estimator/est.h"
#include "util/csv.h"
#include "util/text.h"

extern const char ac_data_stacks[]; /* build/gen/data_stacks.c */

enum { STACK_MAX = 16 };
static est_stack stacks[STACK_MAX];
static size_t stacks_n;

/* the parameters a stack row may set; those before K_LOGIT every stack states, the later ones
 * are optional (their default is stated where they are used) */
enum { K_ALIASES, K_ATTENTION, K_SM_FWD, K_SM_BWD, K_ELEM, K_GRAD, K_ZERO, K_DP_OVERLAP, K_PREFETCH, K_RESHARD, K_SP, K_VP, K_GACC, K_CAST, K_FA2, K_TPO, K_LOGIT, K_SAC, K_AFWD, K_ABWD, K_DROP, K_MASKED, K_ZAR, K_OFFACC, K_LORA_F, K_LORA_B, K_CELEM, K_CCAST, K_DYN, K_CPHEADS, K_CPDKV, K_CPEXP, K_CPONE, K_PPSG, K_DEFREC, K_PPFSDP, K_BUCKET, K_BUCKET_RANK, K_BUCKET_OVERLAP, K_BUCKET_FIRST, K_CONTAINERS, K_REMAT, K_FP32P, K_STATIC, K_PAR, K_PPSERIAL, K_VPNONE, K_LOGITMEM, K_FSCOPYOUT, K_FSCOPYIN, K_ROOTKEPT, K_N };
static const unsigned long long REQUIRED_KEYS = (1ull << K_LOGIT) - 1;
_Static_assert(K_N <= 64, "a stack's seen keys are one 64-bit mask");
static const char *const KEYS[K_N] = {"aliases", "attention", "softmax_fwd_bytes", "softmax_bwd_bytes", "elementwise_units",
                                      "grad_bytes", "zero_stage", "dp_overlap", "fsdp_prefetch", "fsdp_reshard",
                                      "sequence_parallel", "interleaved_pipeline", "grad_accum_bytes",
                                      "fp8_cast_bytes", "fa2_sm90_eff", "tp_comm_overlap", "logit_bytes", "selective_op_sac",
                                      "attn_fwd_rel", "attn_bwd_rel", "dropout_masks",
                                      "masked_attn_eff_ratio", "zero12_grad_allreduce", "offload_grad_accum_via_gpu",
                                      "lora_fwd_bytes", "lora_bwd_bytes", "compiled_elementwise_units",
                                      "compiled_fp8_cast_bytes", "fp8_dynamic_scaling", "cp_kv_all_heads", "cp_dkv_bytes",
                                      "cp_exposed", "cp_single_call", "pp_scatter_gather", "default_recompute", "pp_fsdp",
                                      "dp_bucket_params", "dp_bucket_params_per_rank", "dp_bucket_overlap_only",
                                      "dp_bucket_first_stage_only", "containers", "remat_policies", "fp32_params",
                                      "static_buffers", "parallelism", "pp_p2p_serial", "unstated_vp_none", "logit_mem_bytes",
                                      "fsdp_gather_copy_passes", "fsdp_reduce_copy_passes", "fsdp_root_kept"};

/* the model-parallel dimensions: the parallelism key's words, and how errors name them */
static const struct { unsigned bit; const char *key, *name, *abbrev; } DIM_NAMES[] = {
    {EST_PAR_TP, "tp", "tensor", "TP"}, {EST_PAR_PP, "pp", "pipeline", "PP"}, {EST_PAR_CP, "cp", "context", "CP"}, {EST_PAR_EP, "ep", "expert", "EP"}};
enum { DIM_COUNT = sizeof DIM_NAMES / sizeof *DIM_NAMES };

static int stack_value(est_stack *s, int k, const char *v, const char *file, int line, ac_err *e)
{
    char *end;
    double x = 0;
    if (k == K_ALIASES) { snprintf(s->aliases, sizeof s->aliases, "%s", v); return 0; }
    if (k == K_ATTENTION) {
        if (strcmp(v, "flash") && strcmp(v, "flash2") && strcmp(v, "unfused"))
            return ac_err_at(e, AC_E_INTERNAL, file, line, 0, "attention", "flash, flash2 or unfused, not '%s'", v);
        s->flash_attention = strcmp(v, "unfused") != 0;
        s->flash2 = !strcmp(v, "flash2");
        return 0;
    }
    if (k == K_ELEM && !*v) return 0; /* the calibration's */
    if (k == K_CONTAINERS) {
        /* IMAGE:YY.MM-YY.MM, the image's name as registries write it ("nemo", "jax"): lower-case
         * letters, digits, '.', '_' and '-', at most 15 */
        static const char SHAPE[] = "99.99-99.99";
        size_t n = strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789._-");
        const char *r = v + n + 1;
        bool shaped = n > 0 && n < sizeof s->container_image && v[n] == ':' && strlen(r) == sizeof SHAPE - 1;
        for (size_t i = 0; shaped && SHAPE[i]; i++) shaped = SHAPE[i] == '9' ? isdigit((unsigned char)r[i]) != 0 : r[i] == SHAPE[i];
        int y0 = 0, m0 = 0, y1 = 0, m1 = 0;
        if (shaped) sscanf(r, "%2d.%2d-%2d.%2d", &y0, &m0, &y1, &m1);
        if (!shaped || m0 < 1 || m0 > 12 || m1 < 1 || m1 > 12 || y0 * 100 + m0 > y1 * 100 + m1)
            return ac_err_at(e, AC_E_INTERNAL, file, line, 0, "containers",
                             "an image (at most 15 of a-z 0-9 . _ -) and a release range IMAGE:YY.MM-YY.MM, not '%s'", v);
        snprintf(s->container_image, sizeof s->container_image, "%.*s", (int)n, v);
        s->container_from = y0 * 100 + m0;
        s->container_to = y1 * 100 + m1;
        return 0;
    }
    if (k == K_PAR) {
        /* 'none', or a '|'-separated list of tp, pp, cp, ep (DIM_NAMES' keys, in its bit order) */
        s->parallel_dims = 0;
        if (!strcmp(v, "none")) return 0;
        size_t len = strlen(v);
        if (!len || v[len - 1] == '|')
            return ac_err_at(e, AC_E_INTERNAL, file, line, 0, "parallelism", "none or a '|' list of tp, pp, cp, ep, not '%s'", v);
        for (const char *p = v; *p;) {
            size_t n = strcspn(p, "|"), d = 0;
            while (d < DIM_COUNT && (strlen(DIM_NAMES[d].key) != n || strncmp(p, DIM_NAMES[d].key, n))) d++;
            if (d == DIM_COUNT || (s->parallel_dims & DIM_NAMES[d].bit))
                return ac_err_at(e, AC_E_INTERNAL, file, line, 0, "parallelism", "none or a '|' list of tp, pp, cp, ep, not '%s'", v);
            s->parallel_dims |= DIM_NAMES[d].bit;
            p += n + (p[n] == '|');
        }
        return 0;
    }
    if (k == K_DEFREC) {
        est_recompute r;
        if (est_recompute_parse(v, &r)) return ac_err_at(e, AC_E_INTERNAL, file, line, 0, "default_recompute", "none, selective or full, not '%s'", v);
        s->default_recompute = (int)r;
        return 0;
    }
    x = strtod(v, &end);
    if (!*v || *end || x < 0) return ac_err_at(e, AC_E_INTERNAL, file, line, 0, KEYS[k], "not a non-negative number: '%s'", v);
    switch (k) {
    case K_SM_FWD: s->softmax_fwd_bytes = x; break;
    case K_SM_BWD: s->softmax_bwd_bytes = x; break;
    case K_ELEM: s->elementwise_units = x; break;
    case K_GRAD:
        if (x != 2 && x != 4) return ac_err_at(e, AC_E_INTERNAL, file, line, 0, "grad_bytes", "2 or 4, not %g", x);
        s->grad_bytes = x;
        break;
    case K_ZERO:
        if (x > 3) return ac_err_at(e, AC_E_INTERNAL, file, line, 0, "zero_stage", "0-3, not %g", x);
        s->zero_stage = (int)x;
        break;
    case K_DP_OVERLAP:
        if (x > 3) return ac_err_at(e, AC_E_INTERNAL, file, line, 0, "dp_overlap", "0, 1, 2 or 3, not %g", x);
        s->dp_overlap = (int)x;
        break;
    case K_PREFETCH: s->fsdp_prefetch = x != 0; break;
    case K_RESHARD: s->fsdp_reshard = x != 0; break;
    case K_SP: s->sequence_parallel = x != 0; break;
    case K_VP: s->interleaved_pipeline = x != 0; break;
    case K_GACC: s->grad_accum_bytes = x; break;
    case K_CAST: s->fp8_cast_bytes = x; break;
    case K_TPO: s->tp_comm_overlap = x != 0; break;
    case K_LOGIT: s->logit_bytes = x; break;
    case K_SAC: s->selective_op_sac = x != 0; break;
    case K_ZAR: s->zero12_grad_allreduce = x != 0; break;
    case K_OFFACC: s->offload_grad_accum_via_gpu = x != 0; break;
    case K_LORA_F: s->lora_fwd_bytes = x; break;
    case K_LORA_B: s->lora_bwd_bytes = x; break;
    case K_CELEM: s->compiled_elementwise_units = x; break;
    case K_CCAST: s->compiled_fp8_cast_bytes = x; break;
    case K_DYN: s->fp8_dynamic_scaling = x != 0; break;
    case K_CPHEADS: s->cp_kv_all_heads = x != 0; break;
    case K_CPDKV:
        if (x != 2 && x != 4) return ac_err_at(e, AC_E_INTERNAL, file, line, 0, "cp_dkv_bytes", "2 or 4, not %g", x);
        s->cp_dkv_bytes = x;
        break;
    case K_CPEXP: s->cp_exposed = x != 0; break;
    case K_CPONE: s->cp_single_call = x != 0; break;
    case K_PPSG: s->pp_scatter_gather = x != 0; break;
    case K_BUCKET: s->dp_bucket_params = x; break;
    case K_BUCKET_RANK: s->dp_bucket_params_per_rank = x; break;
    case K_BUCKET_OVERLAP: s->dp_bucket_overlap_only = x != 0; break;
    case K_BUCKET_FIRST: s->dp_bucket_first_stage_only = x != 0; break;
    case K_REMAT: s->remat_policies = x != 0; break;
    case K_FP32P: s->fp32_params = x != 0; break;
    case K_STATIC: s->static_buffers = x != 0; break;
    case K_PPSERIAL: s->pp_p2p_serial = x != 0; break;
    case K_VPNONE: s->unstated_vp_none = x != 0; break;
    case K_LOGITMEM: s->logit_mem_bytes = x; break;
    case K_FSCOPYOUT: s->fsdp_gather_copy_passes = x; break;
    case K_FSCOPYIN: s->fsdp_reduce_copy_passes = x; break;
    case K_ROOTKEPT: s->fsdp_root_kept = x != 0; break;
    case K_PPFSDP:
        if (x != 0 && x != 1) return ac_err_at(e, AC_E_INTERNAL, file, line, 0, "pp_fsdp", "0 or 1, not %g", x);
        s->pp_fsdp = x != 0;
        break;
    case K_DROP:
        if (x != 0 && x != 1) return ac_err_at(e, AC_E_INTERNAL, file, line, 0, "dropout_masks", "0 or 1, not %g", x);
        s->no_dropout = x == 0;
        break;
    case K_FA2:
    case K_MASKED:
    case K_AFWD:
    case K_ABWD:
        if (x <= 0 || x > 1) return ac_err_at(e, AC_E_INTERNAL, file, line, 0, KEYS[k], "a fraction in (0, 1], not %g", x);
        *(k == K_FA2 ? &s->fa2_sm90_eff : k == K_MASKED ? &s->masked_attn_eff_ratio : k == K_AFWD ? &s->attn_fwd_rel : &s->attn_bwd_rel) = x;
        break;
    }
    return 0;
}

/* a stacks table in data/stacks.csv's form into tmp[] (STACK_MAX) and *n_out; -1 at the first
 * malformed row */
static int parse_stacks(const char *text, size_t len, const char *file, est_stack *tmp, size_t *n_out, ac_err *e)
{
    csv_table t;
    if (csv_parse(text, len, file, &t, e)) return -1;
    static const char *const cols[] = {"stack", "key", "value", "source"};
    if (csv_require_cols(&t, cols, 4, AC_E_INTERNAL, NULL, e)) { csv_free(&t); return -1; }
    int sc = csv_col(&t, "stack"), kc = csv_col(&t, "key"), vc = csv_col(&t, "value"), src = csv_col(&t, "source");
    unsigned long long seen[STACK_MAX] = {0};
    size_t n = 0;
    int rc = 0;
    for (size_t i = 0; i < t.n && !rc; i++) {
        const csv_row *r = &t.rows[i];
        const char *name = csv_get(r, sc), *key = csv_get(r, kc);
        size_t j = 0;
        while (j < n && strcmp(tmp[j].name, name)) j++;
        if (j == n) {
            if (n == STACK_MAX || !*name) { rc = ac_err_at(e, AC_E_INTERNAL, t.file, r->line, 0, name, "too many stacks or no name"); break; }
            memset(&tmp[n], 0, sizeof tmp[n]);
            snprintf(tmp[n].name, sizeof tmp[n].name, "%s", name);
            tmp[n].parallel_dims = EST_PAR_ALL;
            n++;
        }
        /* like: this stack starts as a copy of an earlier one (its first row), the rows that
         * follow say where it differs */
        if (!strcmp(key, "like")) {
            size_t b = 0;
            while (b < n && (b == j || strcmp(tmp[b].name, csv_get(r, vc)))) b++;
            /* the base complete above it (each stack's rows together), this stack's first row */
            if (b == n || seen[j] || (seen[b] & REQUIRED_KEYS) != REQUIRED_KEYS) {
                rc = ac_err_at(e, AC_E_INTERNAL, t.file, r->line, 0, "like",
                               "must be a stack's first row and name a complete stack above it, not '%s'", csv_get(r, vc));
                break;
            }
            if (!*csv_get(r, src)) { rc = ac_err_at(e, AC_E_INTERNAL, t.file, r->line, 0, key, "every parameter needs its source"); break; }
            est_stack base = tmp[b];
            snprintf(base.name, sizeof base.name, "%s", tmp[j].name);
            snprintf(base.like, sizeof base.like, "%s", tmp[b].name);
            base.aliases[0] = '\0';
            base.container_from = base.container_to = 0; /* a release range names one stack */
            base.container_image[0] = '\0';
            tmp[j] = base;
            seen[j] = seen[b] & ~(1ull << K_ALIASES);
            continue;
        }
        int k = 0;
        while (k < K_N && strcmp(KEYS[k], key)) k++;
        if (k == K_N) { rc = ac_err_at(e, AC_E_INTERNAL, t.file, r->line, 0, key, "unknown stack parameter"); break; }
        if (!*csv_get(r, src)) { rc = ac_err_at(e, AC_E_INTERNAL, t.file, r->line, 0, key, "every parameter needs its source"); break; }
        rc = stack_value(&tmp[j], k, csv_get(r, vc), t.file, r->line, e);
        seen[j] |= 1ull << k;
    }
    for (size_t j = 0; j < n && !rc; j++)
        if ((seen[j] & REQUIRED_KEYS) != REQUIRED_KEYS) rc = ac_err_at(e, AC_E_INTERNAL, t.file, 0, 0, tmp[j].name, "stack lacks a parameter");
    csv_free(&t);
    if (rc) return -1;
    if (!n || strcmp(tmp[0].name, "megatron-core"))
        return ac_err_at(e, AC_E_INTERNAL, file, 0, 0, NULL, "the first stack must be megatron-core");
    *n_out = n;
    return 0;
}

int est_stack_load(ac_err *e)
{
    if (stacks_n) return 0;
    static est_stack tmp[STACK_MAX];
    size_t n = 0;
    if (parse_stacks(ac_data_stacks, strlen(ac_data_stacks), "data/stacks.csv", tmp, &n, e)) return -1;
    memcpy(stacks, tmp, n * sizeof *tmp);
    stacks_n = n;
    return 0;
}

int est_stack_check_text(const char *text, size_t len, const char *file, ac_err *e)
{
    est_stack *tmp = malloc(STACK_MAX * sizeof *tmp);
    if (!tmp) return ac_err_set(e, AC_E_INTERNAL, "out of memory");
    size_t n = 0;
    int rc = parse_stacks(text, len, file, tmp, &n, e);
    free(tmp);
    return rc;
}

const est_stack *est_stack_of_container(const char *image, int yymm)
{
    if (!image || yymm <= 0 || est_stack_load(NULL)) return NULL;
    for (size_t i = 0; i < stacks_n; i++)
        if (stacks[i].container_from && !strcmp(stacks[i].container_image, image) && yymm >= stacks[i].container_from &&
            yymm <= stacks[i].container_to)
            return &stacks[i];
    return NULL;
}

bool est_stack_runs(const est_stack *s, unsigned dim) { return !s || (s->parallel_dims & dim) == dim; }

int est_stack_refuses(const est_input *in, char *why, size_t len)
{
    const est_stack *s = in->stack;
    if (!s) return 0; /* megatron-core runs everything */
    unsigned dims = s->parallel_dims;
    int sizes[DIM_COUNT] = {in->tp, in->pp, in->cp, in->ep};
    for (size_t i = 0; i < DIM_COUNT; i++) {
        if (sizes[i] <= 1 || (dims & DIM_NAMES[i].bit)) continue;
        /* "... it runs data, tensor and pipeline parallelism" */
        const char *runs[DIM_COUNT + 1] = {"data"};
        size_t k = 1;
        for (size_t j = 0; j < DIM_COUNT; j++)
            if (dims & DIM_NAMES[j].bit) runs[k++] = DIM_NAMES[j].name;
        size_t n = (size_t)snprintf(why, len, "%s runs no %s parallelism (%s %d); it runs ", s->name, DIM_NAMES[i].name,
                                    DIM_NAMES[i].abbrev, sizes[i]);
        for (size_t j = 0; j < k && n < len; j++)
            n += (size_t)snprintf(why + n, len - n, "%s%s", j == 0 ? "" : j + 1 == k ? " and " : ", ", runs[j]);
        if (n < len) snprintf(why + n, len - n, " parallelism (data/stacks.csv)");
        return -1;
    }
    if (in->vp > 1 && !s->interleaved_pipeline) {
        snprintf(why, len, "%s has no interleaved pipeline schedule (VP %d; data/stacks.csv interleaved_pipeline)", s->name, in->vp);
        return -1;
    }
    if (in->sequence_parallel && in->tp > 1 && !s->sequence_parallel) {
        snprintf(why, len, "%s has no sequence parallelism (data/stacks.csv sequence_parallel)", s->name);
        return -1;
    }
    return 0;
}

const est_stack *est_stack_at(size_t i) { return est_stack_load(NULL) || i >= stacks_n ? NULL : &stacks[i]; }

const est_stack *est_stack_default(void) { return est_stack_load(NULL) ? NULL : &stacks[0]; }

const est_stack *est_stack_find(const char *name)
{
    if (!name || !*name || est_stack_load(NULL)) return NULL;
    for (size_t i = 0; i < stacks_n; i++)
        if (!text_name_cmp(stacks[i].name, name) || text_list_has(stacks[i].aliases, name)) return &stacks[i];
    return NULL;
}

void est_stack_names(char *buf, size_t len)
{
    size_t used = 0;
    if (len) buf[0] = '\0';
    if (est_stack_load(NULL)) return;
    for (size_t i = 0; i < stacks_n && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", stacks[i].name);
        if (w < 0) return;
        used += (size_t)w;
    }
}

const char *est_stack_suggest(const char *name)
{
    if (!name || est_stack_load(NULL)) return NULL;
    text_nearest near;
    text_nearest_init(&near, 3);
    for (size_t i = 0; i < stacks_n; i++) {
        text_nearest_offer(&near, name, stacks[i].name);
        text_nearest_offer_aliases(&near, name, stacks[i].aliases, stacks[i].name);
    }
    return near.best;
}

void est_stack_apply(est_input *in, const est_stack *s)
{
    if (!s) s = est_stack_default();
    in->stack = s;
    if (!s) return;
    in->flash_attention = s->flash_attention;
    in->grad_bytes = s->grad_bytes;
    in->zero_stage = s->zero_stage;
    in->tp_comm_overlap = s->tp_comm_overlap;
    if (!s->sequence_parallel) in->sequence_parallel = false;
    /* a stack whose runs rematerialise unless told otherwise (MaxText's remat_policy 'full') */
    if (s->default_recompute != RECOMPUTE_NONE) in->recompute = (est_recompute)s->default_recompute;
}

double est_stack_elementwise_units(const est_input *in)
{
    const est_stack *s = in->stack;
    if (!s) return 0.0;
    if (in->torch_compile && s->compiled_elementwise_units > 0) return s->compiled_elementwise_units;
    return s->elementwise_units;
}

const char *est_par_name(unsigned bit)
{
    for (int d = 0; d < DIM_COUNT; d++)
        if (DIM_NAMES[d].bit == bit) return DIM_NAMES[d].name;
    return "data";
}

bool est_stack_sequence_parallel(const est_stack *s, int tp)
{
    return tp > 1 && (!s || s->sequence_parallel); /* no stack: megatron-core's */
}

double est_stack_logit_bytes(const est_input *in)
{
    const est_stack *s = in->stack;
    return s && s->logit_bytes > 0 ? s->logit_bytes : EST_LOGIT_BYTES;
}

double est_stack_logit_mem_bytes(const est_input *in)
{
    const est_stack *s = in->stack;
    return s && s->logit_mem_bytes > 0 ? s->logit_mem_bytes : EST_LOGIT_MEM_BYTES;
}

double est_stack_fp8_cast_bytes(const est_input *in)
{
    const est_stack *s = in->stack;
    /* the stack's quantization kernels (Transformer Engine's fused cast-transpose 4 B, also
     * without a stack; unfused amax + casts 8 B), compiled where it states them */
    double b = !s ? 0.0 : in->torch_compile && s->compiled_fp8_cast_bytes > 0 ? s->compiled_fp8_cast_bytes : s->fp8_cast_bytes;
    if (b <= 0) b = 4.0;
    /* current scaling: nvte_compute_amax reads the 2-byte input in a pass of its own before
     * nvte_quantize (Transformer Engine Float8CurrentScalingQuantizer::quantize_impl), unless
     * the stack's casts always take their amax (fp8_dynamic_scaling: already counted) */
    if (in->fp8_current_scaling && !(s && s->fp8_dynamic_scaling)) b += 2.0;
    return b;
}
