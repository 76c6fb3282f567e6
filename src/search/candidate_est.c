/* candidate_est.c — see candidate_est.h */
#include "search/candidate_est.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "model/family.h"
#include "util/fsutil.h"

/* catalog GPUs whose reported memory is within 10 % of gb ("l4, a10g"); nominal sizes
 * (80, 141, 192) and what nvidia-smi reports (79.6, 140.4, 179.1) both match */
static bool memory_matches(double gpu_gb, int gb)
{
    return fabs(gpu_gb - gb) <= 0.1 * gpu_gb;
}

static bool has_memory(const gpu_spec *g, const void *gb) { return memory_matches(g->memory_gb, *(const int *)gb); }

/* gpu_memory_gb must describe the GPU: without gpu it names the A100 (40 or 80, the
 * original's meaning); with gpu, a value given on the command line must be that GPU's */
static int check_gpu_memory(const ac_config *c, const gpu_spec *g, ac_err *e)
{
    int gb = c->train.gpu_memory_gb;
    const node *at = node_get_path(c->root, "search_config.train_settings.gpu_memory_gb");
    const char *file = node_origin_file(at);
    int line = node_origin_line(at);
    char names[256]; /* the GPUs with that memory, for the two errors */
    if (!c->train.gpu[0] && gb != 40 && gb != 80) {
        gpu_names_where(names, sizeof names, has_memory, &gb);
        return ac_err_at(e, AC_E_INPUT, file, line, 0, "search_config.train_settings.gpu_memory_gb",
                         "%d GB names no A100 (40 or 80): set search_config.train_settings.gpu to the GPU%s%s", gb,
                         names[0] ? " with that memory: " : "", names);
    }
    if (c->train.gpu[0] && at && !strcmp(file, "command line") && !memory_matches(g->memory_gb, gb)) {
        gpu_names_where(names, sizeof names, has_memory, &gb);
        return ac_err_at(e, AC_E_INPUT, file, line, 0, "search_config.train_settings.gpu_memory_gb",
                         "%d GB does not match gpu %s (%.0f GB); drop the override%s%s", gb, g->name, g->memory_gb,
                         names[0] ? " or pick a GPU with that memory: " : "", names);
    }
    return 0;
}

/* A part built only in nodes smaller than the 8-GPU HGX board, whose NVLink is the node (GH200:
 * four superchips a node, data/gpus.csv), cannot be asked for more GPUs a node: the jobs would ask
 * Slurm for devices a node does not have, and NVLink would be priced past where it ends */
static int check_node_size(const ac_config *c, const gpu_spec *g, ac_err *e)
{
    int want = c->train.gpus_per_node;
    if (g->gpus_per_node >= 8 || g->nvlink_domain != g->gpus_per_node || want <= g->gpus_per_node) return 0;
    const node *at = node_get_path(c->root, "search_config.train_settings.gpus_per_node");
    return ac_err_at(e, AC_E_INPUT, node_origin_file(at), node_origin_line(at), 0, "search_config.train_settings.gpus_per_node",
                     "%d GPUs a node, but %s comes %d a node (data/gpus.csv): set "
                     "search_config.train_settings.gpus_per_node=%d",
                     want, g->name, g->gpus_per_node, g->gpus_per_node);
}

const gpu_spec *candidate_gpu(const ac_config *c, ac_err *e)
{
    if (gpu_catalog_load(e)) return NULL;
    if (!c->train.gpu[0]) {
        const gpu_spec *g = gpu_default_for_memory(c->train.gpu_memory_gb);
        if (!g) ac_err_set(e, AC_E_INTERNAL, "the GPU catalog has no A100 row");
        return g && check_gpu_memory(c, g, e) == 0 ? g : NULL;
    }
    const gpu_spec *g = gpu_find(c->train.gpu);
    if (!g) {
        char names[512];
        gpu_names(names, sizeof names);
        const char *s = gpu_suggest(c->train.gpu);
        const node *at = node_get_path(c->root, "search_config.train_settings.gpu");
        const char *file = node_origin_file(at);
        int line = node_origin_line(at);
        if (s)
            ac_err_at(e, AC_E_INPUT, file, line, 0, "search_config.train_settings.gpu",
                      "unknown GPU '%s'; did you mean '%s'? (known: %s)", c->train.gpu, s, names);
        else
            ac_err_at(e, AC_E_INPUT, file, line, 0, "search_config.train_settings.gpu", "unknown GPU '%s' (known: %s)",
                      c->train.gpu, names);
        return NULL;
    }
    return check_gpu_memory(c, g, e) == 0 && check_node_size(c, g, e) == 0 ? g : NULL;
}

const est_stack *candidate_stack_named(const char *name, const char *file, int line, const char *key, ac_err *e)
{
    if (est_stack_load(e)) return NULL;
    if (!name || !*name) return est_stack_default();
    const est_stack *st = est_stack_find(name);
    if (st) return st;
    char names[256];
    est_stack_names(names, sizeof names);
    const char *s = est_stack_suggest(name);
    if (s)
        ac_err_at(e, AC_E_INPUT, file, line, 0, key, "unknown training stack '%s'; did you mean '%s'? (known: %s)", name, s, names);
    else
        ac_err_at(e, AC_E_INPUT, file, line, 0, key, "unknown training stack '%s' (known: %s)", name, names);
    return NULL;
}

const est_stack *candidate_stack(const ac_config *c, ac_err *e)
{
    const node *at = node_get_path(c->root, "search_config.train_settings.framework");
    return candidate_stack_named(c->train.framework, node_origin_file(at), node_origin_line(at),
                                 "search_config.train_settings.framework", e);
}

/* reads a few switches of a NeMo config into an input */
static void read_switches(const node *cfg, est_input *in)
{
    bool bv;
    const node *n = node_get_path(cfg, "model.sequence_parallel");
    if (n && node_get_bool(n, &bv)) in->sequence_parallel = bv;
    const char *optim = node_text(node_get_path(cfg, "model.optim.name"));
    /* NeMo's distributed optimizer is ZeRO-1; a stack that shards more by default (DeepSpeed ZeRO-2,
     * FSDP) keeps its own, as a candidate's distributed_optimizer does (candidate_est_apply) */
    if (optim && in->zero_stage < 2) in->zero_stage = strstr(optim, "distributed") ? 1 : 0;
    const char *prec = node_text(node_get_path(cfg, "trainer.precision"));
    est_precision p;
    if (prec && !est_precision_parse(prec, &p)) in->precision = p;
    const node *fp8 = node_get_path(cfg, "model.fp8");
    if (fp8 && node_get_bool(fp8, &bv) && bv && in->gpu && in->gpu->fp8_tflops > 0) in->precision = PREC_FP8;
    const char *gran = node_text(node_get_path(cfg, "model.activations_checkpoint_granularity"));
    if (gran && !strcmp(gran, "selective")) in->recompute = RECOMPUTE_SELECTIVE;
    if (gran && !strcmp(gran, "full")) in->recompute = RECOMPUTE_FULL;
    /* Megatron-Core switches as NeMo configs spell them */
    n = node_get_path(cfg, "model.overlap_moe_expert_parallel_comm");
    if (n && node_get_bool(n, &bv)) in->moe_a2a_overlap = bv;
    n = node_get_path(cfg, "model.enable_cuda_graph");
    if (n && node_get_bool(n, &bv)) in->cuda_graphs = bv;
    const char *graph_impl = node_text(node_get_path(cfg, "model.cuda_graph_impl"));
    if (graph_impl && strcmp(graph_impl, "none")) in->cuda_graphs = true;
    /* NeMo 1.0 spellings of Megatron's grad_reduce_in_fp32 and fp8_param_gather */
    const char *grad_dtype = node_text(node_get_path(cfg, "model.optim.grad_sync_dtype"));
    if (grad_dtype) {
        static const struct { const char *name; double bytes; } GRAD_DTYPES[] = {
            {"bf16", 2.0}, {"bfloat16", 2.0}, {"fp16", 2.0}, {"float16", 2.0}, {"fp32", 4.0}, {"float32", 4.0}};
        for (size_t i = 0; i < sizeof GRAD_DTYPES / sizeof *GRAD_DTYPES; i++)
            if (!strcasecmp(grad_dtype, GRAD_DTYPES[i].name)) in->grad_bytes = GRAD_DTYPES[i].bytes;
    }
    /* gradients reduced after the backward (NeMo distributed_fused_adam overlap_grad_sync: False) */
    n = node_get_path(cfg, "model.optim.overlap_grad_sync");
    if (n && node_get_bool(n, &bv)) in->dp_overlap_off = !bv;
    /* TP overlap only when the config switches it on (NeMo's default is off) */
    n = node_get_path(cfg, "model.ub_tp_comm_overlap");
    in->tp_comm_overlap = n && node_get_bool(n, &bv) && bv;
    n = node_get_path(cfg, "model.first_pipeline_num_layers");
    if (n && !node_is_null(n)) in->allow_uneven_pp = true;
    n = node_get_path(cfg, "model.fp8_params");
    if (n && node_get_bool(n, &bv)) in->fp8_param_gather = bv && est_fp8_gather_allowed(in);
    n = node_get_path(cfg, "model.cpu_offloading");
    long long off;
    if (n && node_get_bool(n, &bv) && bv && node_get_int(node_get_path(cfg, "model.cpu_offloading_num_layers"), &off) &&
        off > 0 && off < 100000)
        in->offload_act_layers = (int)off;
}

int candidate_remat_parse(const char *value, const char *file, int line, const char *key, unsigned *saves, ac_err *e)
{
    if (!est_remat_policy_parse(value, saves)) return 0;
    const char *near = est_remat_policy_suggest(value);
    char hint[96] = "";
    if (near) snprintf(hint, sizeof hint, "did you mean '%s'? ", near);
    return ac_err_at(e, AC_E_INPUT, file, line, 0, key, "unknown remat policy '%s' (%sknown: " EST_REMAT_POLICIES ")", value, hint);
}

int candidate_remat_check(const ac_config *c, const est_input *in, const char *flag, ac_err *e)
{
    bool named = flag || c->train.remat_policy[0];
    if (!named || (in->stack && in->stack->remat_policies)) return 0;
    const char *name = in->stack ? in->stack->name : "megatron-core";
    if (flag)
        return ac_err_at(e, AC_E_INPUT, "command line", 0, 0, "--remat-policy",
                         "a remat policy names what a JAX stack's recompute keeps (jax-xla); %s recomputes whole layers "
                         "(--recompute full)", name);
    const node *at = node_get_path(c->root, "search_config.train_settings.remat_policy");
    return ac_err_at(e, AC_E_INPUT, node_origin_file(at), node_origin_line(at), 0,
                     "search_config.train_settings.remat_policy",
                     "a remat policy names what a JAX stack's recompute keeps (framework: jax-xla); %s recomputes whole layers",
                     name);
}

int candidate_est_base(const ac_config *c, const model_base_config *b, est_input *in, ac_err *e)
{
    const gpu_spec *g = candidate_gpu(c, e);
    if (!g) return -1;
    const est_stack *st = candidate_stack(c, e);
    if (!st) return -1;
    est_input_init(in, &b->shape, g);
    est_stack_apply(in, st);
    in->tp = b->tp;
    in->pp = b->pp;
    in->gbs = b->gbs;
    in->gpus_per_node = c->train.gpus_per_node;
    in->num_gpus = c->train.num_nodes * c->train.gpus_per_node;
    in->sequence_parallel = est_stack_sequence_parallel(st, in->tp);
    read_switches(b->cfg, in);
    /* a JAX remat policy: the GEMM outputs full recompute keeps (the estimator applies it only to
     * candidates that recompute in full) */
    if (c->train.remat_policy[0]) {
        const node *at = node_get_path(c->root, "search_config.train_settings.remat_policy");
        if (candidate_remat_parse(c->train.remat_policy, node_origin_file(at), node_origin_line(at),
                                  "search_config.train_settings.remat_policy", &in->remat_saves, e))
            return -1;
    }
    if (!est_stack_sequence_parallel(st, in->tp)) in->sequence_parallel = false;
    /* the original's gpu_memory_gb names the A100 variant; with a catalog GPU its memory counts */
    in->memory_limit_gb = c->train.gpu[0] ? 0 : c->train.gpu_memory_gb;
    in->num_tokens_b = c->train.num_tokens_in_b;
    in->price_per_gpu_hour = isnan(c->train.price_per_gpu_hour) ? 0 : c->train.price_per_gpu_hour;
    in->node_network_gbps = isnan(c->train.network_gbps) ? 0 : c->train.network_gbps;
    return 0;
}

void candidate_est_apply(est_input *in, const search_candidate *k, search_act_method act_method)
{
    in->tp = k->tp;
    in->pp = k->pp;
    in->cp = k->cp > 0 ? k->cp : 1;
    in->ep = k->ep > 0 ? k->ep : 1;
    in->vp = k->vp > 1 ? k->vp : 1;
    in->mbs = k->mbs;
    in->gbs = k->gbs;
    in->dp = k->dp;
    in->sequence_parallel = k->sequence_parallel && est_stack_sequence_parallel(in->stack, k->tp);
    /* a sharded optimizer is the stack's own sharding: FSDP and ZeRO stages beyond 1 */
    in->zero_stage = k->distributed_optimizer ? (in->stack && in->stack->zero_stage > 1 ? in->stack->zero_stage : 1) : 0;
    /* the knobs experts tune (grid.h): what the candidate config writes */
    in->precision = k->precision == SEARCH_PREC_FP8 ? PREC_FP8 : PREC_BF16;
    in->grad_bytes = k->grad_bf16 ? 2.0 : 4.0;
    in->fp8_param_gather = k->fp8_param_gather && est_fp8_gather_allowed(in); /* the candidate may drop the sharded optimizer */
    in->cuda_graphs = k->cuda_graphs;
    in->tp_comm_overlap = k->tp_overlap && k->tp > 1 && in->sequence_parallel;
    in->offload_act_layers = k->offload_layers;
    in->allow_uneven_pp = k->first_layers > 0;
    in->recompute = k->recompute == SEARCH_RC_FULL ? RECOMPUTE_FULL
                  : k->recompute == SEARCH_RC_SELECTIVE ? RECOMPUTE_SELECTIVE : RECOMPUTE_NONE;
    in->recompute_layers = 0;
    in->num_mbs_act = -1;
    in->act_per_pipe = -1;
    if (k->ext_mask & SEARCH_EXT_RCL) act_method = SEARCH_ACT_BLOCK; /* recompute_num_layers: the block method */
    if (k->act_ckpt_layers >= 0 && act_method != SEARCH_ACT_NONE) {
        /* the original's act_ckpt_layers: layers per pipeline stage (per virtual chunk)
         * recomputed with the block method.  T5 splits the value over both stacks, act // 2
         * each (candidate_cfg.c writes it so), so an odd value recomputes one layer fewer */
        int per_chunk = shape_total_layers(&in->shape) / in->pp / in->vp;
        int act = in->shape.arch == ARCH_ENCODER_DECODER ? 2 * (k->act_ckpt_layers / 2) : k->act_ckpt_layers;
        if (act_method == SEARCH_ACT_UNIFORM || act > per_chunk) act = per_chunk;
        if (act > 0) {
            in->recompute = RECOMPUTE_FULL;
            in->recompute_layers = act;
            if (k->num_mbs_act >= 0 && k->act_per_pipe >= 0) {
                in->num_mbs_act = k->num_mbs_act;
                in->act_per_pipe = k->act_per_pipe;
            }
        } else if (in->recompute == RECOMPUTE_FULL) {
            in->recompute = RECOMPUTE_NONE;
        }
    }
}

int candidate_cal_path(const ac_config *c, char *buf, size_t len, ac_err *e)
{
    char name[CFG_NAME_MAX];
    snprintf(name, sizeof name, "%s", c->cluster_name[0] ? c->cluster_name : "default");
    for (char *p = name; *p; p++)
        if (*p == '/') *p = '_'; /* a nested group choice stays one file name */
    int n = snprintf(buf, len, "%s/cluster/calibration_%s.csv", c->conf_dir[0] ? c->conf_dir : ".", name);
    if (n < 0 || (size_t)n >= len) return ac_err_set(e, AC_E_INPUT, "calibration file path too long");
    return 0;
}

int candidate_cal_load(const ac_config *c, est_cal *cal, bool *loaded, ac_err *e)
{
    char path[CFG_PATH_MAX + 200];
    *loaded = false;
    if (est_cal_default(cal, e) || candidate_cal_path(c, path, sizeof path, e)) return -1;
    if (!fs_exists(path)) return 0;
    if (est_cal_load_file(path, cal, e)) return -1;
    *loaded = true;
    return 0;
}

static int get_int(const node *cfg, const char *path, int dflt)
{
    long long v;
    const node *n = node_get_path(cfg, path);
    return n && !node_is_null(n) && node_get_int(n, &v) && v >= INT_MIN && v <= INT_MAX ? (int)v : dflt;
}

/* the integers of a candidate that size products: each within [lo, hi] (the schema's
 * num_nodes and gpus_per_node bounds, and no int overflow for the others), else an
 * error at the value's file:line.  A missing or null key is left to its default. */
static int check_ints(const node *cfg, ac_err *e)
{
    static const struct {
        const char *path;
        long long lo, hi;
    } R[] = {
        { "trainer.num_nodes", 1, 100000 }, { "trainer.devices", 1, 72 },
        { "model.tensor_model_parallel_size", 1, 1 << 20 }, { "model.pipeline_model_parallel_size", 1, 1 << 20 },
        { "model.context_parallel_size", 1, 1 << 20 }, { "model.expert_model_parallel_size", 1, 1 << 20 },
        { "model.virtual_pipeline_model_parallel_size", 1, 1 << 20 }, { "model.micro_batch_size", 1, 1 << 24 },
        { "model.global_batch_size", 1, 1 << 30 }, { "model.padded_vocab_size", 0, 1 << 30 },
        { "model.tokenizer.vocab_size", 0, 1 << 30 },
    };
    for (size_t i = 0; i < sizeof R / sizeof *R; i++) {
        const node *n = node_get_path(cfg, R[i].path);
        long long v;
        if (!n || node_is_null(n) || !node_get_int(n, &v)) continue;
        if (v < R[i].lo || v > R[i].hi)
            return ac_err_at(e, AC_E_INPUT, n->file, n->line, n->col, NULL, "%s %lld is out of range %lld..%lld",
                             R[i].path, v, R[i].lo, R[i].hi);
    }
    return 0;
}

int candidate_est_from_nemo(const node *cfg, const gpu_spec *gpu, est_input *in, ac_err *e)
{
    if (gpu_catalog_load(e)) return -1;
    if (!gpu) gpu = gpu_default_for_memory(80);
    const char *name = node_text(node_get_path(cfg, "run.name"));
    if (!name) return ac_err_set(e, AC_E_INPUT, "the config has no run.name (the family is its first word)");
    char fam[32];
    size_t n = strcspn(name, "_");
    snprintf(fam, sizeof fam, "%.*s", (int)(n < sizeof fam - 1 ? n : sizeof fam - 1), name);
    const model_family *f = model_family_find(fam);
    /* runs of a built-in architecture are named by it (llama3_70b_64nodes_...) */
    const model_preset_arch *pa = NULL;
    for (size_t len = strlen(name); !f && len > 0; len--)
        if (name[len] == '_' || name[len] == '\0') {
            char pre[64];
            snprintf(pre, sizeof pre, "%.*s", (int)(len < sizeof pre - 1 ? len : sizeof pre - 1), name);
            if ((pa = model_preset_arch_find(pre))) f = model_family_get(pa->family);
        }
    if (!f) return ac_err_set(e, AC_E_INPUT, "run.name '%s': unknown model family '%s' (known: %s)", name, fam, model_family_names());
    if (check_ints(cfg, e)) return -1;
    int vocab = get_int(cfg, "model.padded_vocab_size", 0);
    if (!vocab) vocab = get_int(cfg, "model.tokenizer.vocab_size", 0);
    if (!vocab) vocab = f->arch == ARCH_ENCODER ? 30522 : (f->arch == ARCH_ENCODER_DECODER ? 29000 : 51200);
    model_shape s;
    if (model_shape_from_nemo(cfg, f, vocab, &s, e)) return -1;
    est_input_init(in, &s, gpu);
    int nodes = get_int(cfg, "trainer.num_nodes", 1), devices = get_int(cfg, "trainer.devices", 8);
    in->num_gpus = nodes * devices;
    in->gpus_per_node = devices;
    in->tp = get_int(cfg, "model.tensor_model_parallel_size", 1);
    in->pp = get_int(cfg, "model.pipeline_model_parallel_size", 1);
    in->cp = get_int(cfg, "model.context_parallel_size", 1);
    in->ep = get_int(cfg, "model.expert_model_parallel_size", 1);
    in->vp = get_int(cfg, "model.virtual_pipeline_model_parallel_size", 1);
    in->mbs = get_int(cfg, "model.micro_batch_size", 1);
    in->gbs = get_int(cfg, "model.global_batch_size", 1);
    read_switches(cfg, in);
    const char *method = node_text(node_get_path(cfg, "model.activations_checkpoint_method"));
    int act = get_int(cfg, "model.activations_checkpoint_num_layers", -1);
    if (method && act > 0) {
        int per_chunk = s.num_layers / (in->pp > 0 ? in->pp : 1) / (in->vp > 0 ? in->vp : 1);
        in->recompute = RECOMPUTE_FULL;
        in->recompute_layers = !strcmp(method, "uniform") || act > per_chunk ? per_chunk : act;
        in->num_mbs_act = get_int(cfg, "model.num_micro_batches_with_partial_activation_checkpoints", -1);
        in->act_per_pipe = get_int(cfg, "model.activations_checkpoint_layers_per_pipeline", -1);
    }
    if (in->tp == 1) in->sequence_parallel = false;
    return 0;
}
