/* test_stack.c — the training-stack mechanisms (data/stacks.csv) and GEMM shape
 * efficiency against hand-computed values */
#include <math.h>
#include <string.h>

#include "../check.h"
#include "estimator/band.h"
#include "estimator/collective.h"
#include "estimator/est.h"
#include "estimator/gpu.h"
#include "estimator/layer_cost.h"
#include "estimator/stack.h"

/* a small GPT: 4 layers, hidden 1024, 8 heads, seq 1024, vocab 32000 */
static model_shape small_gpt(void)
{
    model_shape s = {0};
    s.arch = ARCH_DECODER;
    s.num_layers = 4;
    s.hidden = 1024;
    s.heads = 8;
    s.query_groups = 8;
    s.kv_channels = 128;
    s.ffn_hidden = 4096;
    s.vocab = 32000;
    s.seq_length = 1024;
    return s;
}

/* a small model's input on a catalog GPU (the catalog loaded) */
static est_input input_on(const model_shape *s, const char *gpu)
{
    CHECK(gpu_catalog_load(NULL) == 0);
    est_input in;
    est_input_init(&in, s, gpu_find(gpu));
    return in;
}

static void test_stacks_load(void)
{
    CHECK(est_stack_load(NULL) == 0);
    const est_stack *mc = est_stack_default(), *n22 = est_stack_find("nemo-megatron-2022");
    const est_stack *fsdp = est_stack_find("fsdp"), *ds = est_stack_find("DeepSpeed");
    CHECK(mc && !strcmp(mc->name, "megatron-core") && mc->flash_attention);
    CHECK(n22 && !n22->flash_attention && n22->grad_accum_bytes == 12.0);
    /* NeMo 1.13 on interleaves; a 22.xx run stating no VP ran none (validation only) */
    CHECK(n22->interleaved_pipeline && n22->unstated_vp_none && !est_stack_default()->unstated_vp_none);
    CHECK(fsdp && !strcmp(fsdp->name, "pytorch-fsdp") && fsdp->zero_stage == 3 && fsdp->fsdp_prefetch && fsdp->fsdp_reshard);
    CHECK(ds && !strcmp(ds->name, "hf-deepspeed") && ds->grad_bytes == 2.0 && ds->dp_overlap == 3);
    CHECK(est_stack_find("no-such-stack") == NULL);
    CHECK(est_stack_suggest("deepspeeed") && !strcmp(est_stack_suggest("deepspeeed"), "hf-deepspeed"));
    /* a stack `like` another starts as its copy: Meta's Llama 3 stack is PyTorch FSDP's but for what
     * its paper states (no reshard after forward, gradients reduced every micro-batch, interleaved
     * pipeline, K/V gathered at the KV heads) */
    const est_stack *meta = est_stack_find("Meta Llama 3 training stack");
    CHECK(meta && !strcmp(meta->name, "meta-llama3"));
    CHECK(meta->zero_stage == fsdp->zero_stage && meta->grad_bytes == fsdp->grad_bytes &&
          meta->elementwise_units == fsdp->elementwise_units && meta->flash2 == fsdp->flash2);
    CHECK(!meta->fsdp_reshard && meta->pp_fsdp == 0 && meta->interleaved_pipeline && !meta->cp_kv_all_heads);
    CHECK(fsdp->pp_fsdp == 0 && fsdp->cp_kv_all_heads && fsdp->fsdp_root_kept && strcmp(meta->aliases, fsdp->aliases));
    /* torchtitan shards with FSDP2: FSDP's stack and the copies fully_shard adds on the compute
     * stream; FSDP1 (FlatParameter) and Meta's stack gather in place */
    const est_stack *fsdp2 = est_stack_find("torchtitan");
    CHECK(fsdp2 && !strcmp(fsdp2->name, "pytorch-fsdp2") && !strcmp(fsdp2->like, "pytorch-fsdp"));
    CHECK(fsdp2->zero_stage == 3 && fsdp2->pp_fsdp == 1 && fsdp2->logit_bytes == fsdp->logit_bytes);
    CHECK(fsdp2->fsdp_gather_copy_passes == 2 && fsdp2->fsdp_reduce_copy_passes == 1);
    CHECK(fsdp->fsdp_gather_copy_passes == 0 && fsdp->fsdp_reduce_copy_passes == 0 && meta->fsdp_gather_copy_passes == 0);
}

/* FSDP2 under torch.distributed.pipelining (pytorch-fsdp2, pp_fsdp 1): a stage's parameters are
 * gathered once a step and its gradients reduce-scattered once, after the last micro-batch, where
 * FSDP without pipelining does both every micro-batch; the unsharded gradients (fp32, the reduce
 * dtype) and the gathered parameters stay in memory the whole step */
/* an 8-layer model on 16 H100 under FSDP2 with PP 2: DP 8, 4 micro-batches (s outlives it) */
static est_input fsdp2_pipelined(model_shape *s)
{
    *s = small_gpt();
    s->num_layers = 8;
    est_input in = input_on(s, "h100_sxm");
    est_stack_apply(&in, est_stack_find("pytorch-fsdp2"));
    in.num_gpus = 16;
    in.pp = 2;
    in.mbs = 1;
    in.gbs = 32;
    return in;
}

static void test_fsdp_under_pipeline(void)
{
    model_shape s;
    est_input in = fsdp2_pipelined(&s);
    est_result once;
    CHECK(est_evaluate(&in, &once) == 0);
    CHECK(once.num_microbatches == 4);
    est_stack per_mb = *in.stack; /* the same stack gathering and reducing every micro-batch */
    per_mb.pp_fsdp = 0;
    in.stack = &per_mb;
    est_result every;
    CHECK(est_evaluate(&in, &every) == 0);
    /* t_dp_comm: one gather and, per micro-batch or once, the reduce-scatter: 4 against 1 here,
     * 2 against 1 with 2 micro-batches, so the differences are 3 and 1 reduce-scatters */
    CHECK(once.mem_grads > every.mem_grads && once.mem_weights > every.mem_weights);
    in.gbs = 16;
    est_result every2, once2;
    CHECK(est_evaluate(&in, &every2) == 0);
    in.stack = est_stack_find("pytorch-fsdp2");
    CHECK(est_evaluate(&in, &once2) == 0);
    CHECK_NEAR(once2.t_dp_comm, once.t_dp_comm, 1e-15);
    double rs = every2.t_dp_comm - once2.t_dp_comm;
    CHECK(rs > 0);
    CHECK_NEAR(every.t_dp_comm - once.t_dp_comm, 3.0 * rs, 1e-12);
    /* and the per-micro-batch gathers of FSDP without the pipeline's keep are gone */
    CHECK(once.t_dp_exposed < every.t_dp_exposed);
    /* SHARD_GRAD_OP (ZeRO-2) under the pipeline syncs once too (the stage turns gradient sync off
     * whatever the sharding): the same reduce-scatter count at 2 and 4 micro-batches */
    in.zero_stage = 2;
    est_result z2_two, z2_four;
    CHECK(est_evaluate(&in, &z2_two) == 0);
    in.gbs = 32;
    CHECK(est_evaluate(&in, &z2_four) == 0);
    CHECK_NEAR(z2_four.t_dp_comm, z2_two.t_dp_comm, 1e-15);
    /* CPU offload keeps FSDP's own per-micro-batch path (its PCIe copies are priced there) */
    in.zero_stage = 3;
    in.offload_optimizer = true;
    est_result off_two, off_four;
    CHECK(est_evaluate(&in, &off_four) == 0);
    in.gbs = 16;
    CHECK(est_evaluate(&in, &off_two) == 0);
    CHECK(off_four.t_dp_comm > off_two.t_dp_comm);
}

/* a stacks table that est_stack_check_text refuses (the error in *e) */
static bool stacks_text_fails(const char *text, ac_err *e) { return est_stack_check_text(text, strlen(text), "t.csv", e) == -1; }

/* a `like` row must start its stack and name a complete one above it: the error names the file,
 * the line and the key */
static void test_stack_like_rows(void)
{
    CHECK(est_stack_load(NULL) == 0);
    ac_err e;
    const char *first = "stack,key,value,source\nmegatron-core,aliases,mc,x\nb,aliases,b,x\nb,like,megatron-core,x\n";
    CHECK(stacks_text_fails(first, &e));
    CHECK_CONTAINS(e.msg, "first row");
    CHECK_INT(e.line, 4);
    CHECK_STR(e.key, "like");
    const char *unknown = "stack,key,value,source\nmegatron-core,aliases,mc,x\nb,like,nope,x\n";
    CHECK(stacks_text_fails(unknown, &e));
    CHECK_CONTAINS(e.msg, "'nope'");
    const char *self = "stack,key,value,source\nmegatron-core,aliases,mc,x\nb,like,b,x\n";
    CHECK(stacks_text_fails(self, &e));
    CHECK_INT(e.line, 3);
    /* a base that is not complete yet (its rows below the like) */
    const char *early = "stack,key,value,source\nmegatron-core,aliases,mc,x\nb,like,megatron-core,x\n";
    CHECK(stacks_text_fails(early, &e));
    CHECK_CONTAINS(e.msg, "complete stack above it");
    /* a launcher release range is YY.MM-YY.MM, in order */
    const char *bad_range = "stack,key,value,source\nmegatron-core,containers,nemo:24.05-24.01,x\n";
    CHECK(stacks_text_fails(bad_range, &e));
    CHECK_STR(e.key, "containers");
    CHECK_CONTAINS(e.msg, "'nemo:24.05-24.01'");
    const char *no_image = "stack,key,value,source\nmegatron-core,containers,24.01-24.05,x\n";
    CHECK(stacks_text_fails(no_image, &e));
    CHECK_STR(e.key, "containers");
    const char *bad_month = "stack,key,value,source\nmegatron-core,containers,nemo:24.01-24.13,x\n";
    CHECK(stacks_text_fails(bad_month, &e));
    CHECK_STR(e.key, "containers");
    const char *bad_shape = "stack,key,value,source\nmegatron-core,containers,nemo:-1.01-24.05,x\n";
    CHECK(stacks_text_fails(bad_shape, &e));
    CHECK_STR(e.key, "containers");
}

/* a stack runs the model-parallel dimensions its `parallelism` row names: a layout using another
 * is refused with the stack's name and what it runs; a malformed row names its line and key */
static void test_stack_parallelism(void)
{
    const est_stack *hf = est_stack_find("hf-deepspeed"), *mds = est_stack_find("megatron-deepspeed");
    CHECK(hf && mds && hf->parallel_dims == 0 && mds->parallel_dims == (EST_PAR_TP | EST_PAR_PP));
    CHECK(est_stack_default()->parallel_dims == EST_PAR_ALL && est_stack_runs(NULL, EST_PAR_CP));
    CHECK(!est_stack_runs(hf, EST_PAR_TP) && est_stack_runs(mds, EST_PAR_PP) && !est_stack_runs(mds, EST_PAR_EP));
    /* nemo-launcher-2024 is `like megatron-core`: it inherits all */
    CHECK(est_stack_find("nemo-launcher-2024")->parallel_dims == EST_PAR_ALL);
    model_shape m = small_gpt();
    est_input in = input_on(&m, "a100_80gb");
    in.num_gpus = 8, in.mbs = 1, in.gbs = 8;
    est_stack_apply(&in, hf);
    char why[256];
    CHECK(est_check(&in, why, sizeof why) == 0);
    in.tp = 2;
    CHECK(est_check(&in, why, sizeof why) == -1);
    CHECK_STR(why, "hf-deepspeed runs no tensor parallelism (TP 2); it runs data parallelism (data/stacks.csv)");
    est_stack_apply(&in, mds);
    in.tp = 2, in.cp = 2;
    CHECK(est_check(&in, why, sizeof why) == -1);
    CHECK_STR(why, "megatron-deepspeed runs no context parallelism (CP 2); it runs data, tensor and pipeline parallelism "
                   "(data/stacks.csv)");
    in.cp = 1;
    CHECK(est_check(&in, why, sizeof why) == 0);
    ac_err e;
    const char *bad = "stack,key,value,source\nmegatron-core,parallelism,tp|sp,x\n";
    CHECK(stacks_text_fails(bad, &e));
    CHECK_STR(e.key, "parallelism");
    CHECK_INT(e.line, 2);
    CHECK_CONTAINS(e.msg, "'tp|sp'");
    const char *twice = "stack,key,value,source\nmegatron-core,parallelism,tp|tp,x\n";
    CHECK(stacks_text_fails(twice, &e));
    /* an empty cell or a dangling '|' is a mistake, not "data parallel only" */
    const char *empty = "stack,key,value,source\nmegatron-core,parallelism,,x\n";
    CHECK(stacks_text_fails(empty, &e));
    CHECK_STR(e.key, "parallelism");
    const char *dangling = "stack,key,value,source\nmegatron-core,parallelism,tp|,x\n";
    CHECK(stacks_text_fails(dangling, &e));
}

/* NeMo-Framework-Launcher's configuration of the 24.01-24.05 containers turned cuDNN's fused
 * attention off (NVTE_FUSED_ATTN=0): those runs are the launcher stack, FlashAttention-2 on an H100
 * (0.35 of the bf16 peak at 8192 tokens, Shah et al. 2024), whose attention takes longer than the
 * Megatron-Core stack's cuDNN kernels; on an A100 both run FlashAttention-2's rate */
static void test_launcher_release_stack(void)
{
    const est_stack *l = est_stack_of_container("nemo", 2403);
    CHECK(l && !strcmp(l->name, "nemo-launcher-2024") && l->flash2);
    CHECK(est_stack_of_container("nemo", 2401) == l && est_stack_of_container("nemo", 2405) == l);
    CHECK(est_stack_of_container("nemo", 2311) == NULL && est_stack_of_container("nemo", 2407) == NULL);
    CHECK(est_stack_of_container("nemo", 0) == NULL);
    const est_stack *jax23 = est_stack_of_container("jax", 2310);
    CHECK(jax23 && !strcmp(jax23->name, "jax-xla-2023") && est_stack_of_container("jax", 2403) == jax23);
    CHECK(est_stack_of_container("jax", 2404) == NULL && est_stack_of_container("nemo", 2310) == NULL);
    const est_stack *mc = est_stack_default();
    /* the rest is Megatron-Core's */
    CHECK(l->grad_bytes == mc->grad_bytes && l->zero_stage == mc->zero_stage && l->tp_comm_overlap == mc->tp_comm_overlap &&
          l->dp_bucket_params == mc->dp_bucket_params && l->container_from == 2401 && mc->container_from == 0 && !strcmp(l->like, "megatron-core"));
    model_shape m = small_gpt();
    m.seq_length = 32768;
    est_input in = input_on(&m, "h100_sxm");
    in.num_gpus = 8, in.mbs = 1, in.gbs = 8;
    in.recompute = RECOMPUTE_FULL;
    est_stack_apply(&in, mc);
    est_result cudnn, fa2;
    CHECK(est_evaluate(&in, &cudnn) == 0);
    est_stack_apply(&in, l);
    CHECK(est_evaluate(&in, &fa2) == 0);
    /* at 32K tokens attention is most of the step: FA2's rate makes it markedly slower */
    CHECK(fa2.step_time > 1.3 * cudnn.step_time);
    in = input_on(&m, "a100_80gb");
    in.num_gpus = 8, in.mbs = 1, in.gbs = 8;
    in.recompute = RECOMPUTE_FULL;
    est_stack_apply(&in, mc);
    CHECK(est_evaluate(&in, &cudnn) == 0);
    est_stack_apply(&in, l);
    CHECK(est_evaluate(&in, &fa2) == 0);
    CHECK_NEAR(fa2.step_time, cudnn.step_time, 1e-12 * cudnn.step_time);
}

/* tile and wave quantization and the K fill, by hand (128×128 tiles, K0 = 128) */
static void test_gemm_shape_efficiency(void)
{
    /* 4096³ on an A100 (108 SMs): 1024 tiles = 9.48 waves → 10: 0.9481; K 4096/4224 */
    CHECK_NEAR(layer_gemm_shape(108, 4096, 4096, 4096), (1024.0 / 1080.0) * (4096.0 / 4224.0), 1e-9);
    /* 8192³ on an H100 (132 SMs): 4096 tiles = 31.03 waves → 32; K 8192/8320 */
    CHECK_NEAR(layer_gemm_shape(132, 8192, 8192, 8192), (4096.0 / (32 * 132.0)) * (8192.0 / 8320.0), 1e-9);
    /* a skinny K (attention scores, K = head dim 128): half the K loop is fill */
    CHECK_NEAR(layer_gemm_shape(108, 4096, 128, 6144), (1536.0 / (15 * 108.0)) * 0.5, 1e-9);
    /* a 100×100 output: one padded tile on one of 108 SMs */
    CHECK_NEAR(layer_gemm_shape(108, 100, 4096, 100), (1e4 / 16384.0) * (1.0 / 108.0) * (4096.0 / 4224.0), 1e-9);
    /* a 5B layer's GEMMs (h 4096, TP 2) run below a 175B layer's (h 12288, TP 8) on an A100 */
    double g5 = layer_gemm_shape(108, 4096, 4096, 3 * 4096 / 2), g175 = layer_gemm_shape(108, 4096, 12288, 3 * 12288 / 8);
    CHECK(g5 < g175);
}

/* materialised scores: 5·a·s bytes per token per layer (Korthikanti et al. 2022 Table 2:
 * 5as/h of the 34 + 5as/h per sbh), gone with FlashAttention or selective recompute */
static void test_attention_memory(void)
{
    model_shape s = small_gpt();
    est_input in = input_on(&s, "a100_80gb");
    in.num_gpus = 1;
    in.mbs = 2;
    in.gbs = 2; /* one micro-batch: the stage holds its 4 layers once */
    in.zero_stage = 0;
    est_result flash, unfused, selective;
    CHECK(est_evaluate(&in, &flash) == 0);
    in.flash_attention = false;
    CHECK(est_evaluate(&in, &unfused) == 0);
    double expect = 4.0 * 5.0 * 8 * 1024.0 * 1024.0 * 2; /* L · 5 · a · s · (b·s tokens) */
    CHECK_NEAR(unfused.mem_activations - flash.mem_activations, expect, 1e-9);
    in.recompute = RECOMPUTE_SELECTIVE;
    CHECK(est_evaluate(&in, &selective) == 0);
    CHECK_NEAR(selective.mem_activations, flash.mem_activations, 1e-9);
    CHECK(selective.t_recompute > 0); /* the scores are computed again in backward */
    /* unfused attention computes the whole square and round-trips it through HBM: slower */
    CHECK(unfused.t_compute_fwd > flash.t_compute_fwd && unfused.t_compute_bwd > flash.t_compute_bwd);
}

/* FSDP: each micro-batch gathers the weights for the forward and, with reshard after
 * forward, again for the backward; prefetch hides them behind compute */
static void test_fsdp_gather_reshard(void)
{
    CHECK(est_stack_load(NULL) == 0);
    model_shape s = small_gpt();
    const gpu_spec *g = gpu_find("a100_80gb");
    est_stack on_demand = *est_stack_find("pytorch-fsdp");
    on_demand.fsdp_prefetch = false;
    est_stack kept = on_demand;
    kept.fsdp_reshard = false;
    est_input in;
    est_input_init(&in, &s, g);
    est_stack_apply(&in, &on_demand);
    in.num_gpus = 8;
    in.mbs = 1;
    in.gbs = 32; /* 4 micro-batches per step */
    est_result two, one, hidden;
    CHECK(est_evaluate(&in, &two) == 0);
    in.stack = &kept;
    CHECK(est_evaluate(&in, &one) == 0);
    /* the backward's gather of the layers' bf16 weights (the root unit, here the V x h embedding,
     * stays gathered from the forward: fsdp_root_kept) over the 8 GPUs' NVLink (300 GB/s at
     * collective_eff 0.8), 4 micro-batches: ring all-gather moves 7/8 of the bytes, one call per
     * layer, each paying NCCL Simple's 8.4 + 7 x 3.4 us */
    double P = two.params_b * 1e9, P_layers = P - 32000.0 * 1024.0;
    double gather = 7.0 / 8.0 * P_layers * 2.0 / (300e9 * 0.8) + 4 * 32.2e-6;
    CHECK_NEAR(two.t_dp_exposed - one.t_dp_exposed, 4.0 * gather, 1e-6);
    /* without reshard every layer stays gathered from its forward to its backward: the
     * stage's full bf16 weights instead of two layers' worth in flight (4 layers) beside the root
     * unit, which stays gathered either way (the V x h embedding) */
    CHECK(one.mem_weights > two.mem_weights);
    CHECK_NEAR(one.mem_weights - two.mem_weights, P * 2.0 - 2.0 * P * 2.0 / 4.0 - (P - P_layers) * 2.0, 1e-9);
    /* prefetch: the same gathers behind compute */
    in.stack = est_stack_find("pytorch-fsdp");
    CHECK(est_evaluate(&in, &hidden) == 0);
    CHECK(hidden.t_dp_exposed < one.t_dp_exposed);
}

/* FSDP2 (pytorch-fsdp2) copies on the compute stream what FSDP1 gathers in place: each gather's
 * bf16 bytes read and written out of the flat all-gather buffer (2 passes), each reduction's bf16
 * gradients written into the fp32 reduce-scatter input (2 + 4 B a parameter); with reshard after
 * forward, 4 micro-batches gather twice (the layers only for the backward) and reduce once each */
static void test_fsdp2_copies(void)
{
    CHECK(est_stack_load(NULL) == 0);
    model_shape s = small_gpt();
    const gpu_spec *g = gpu_find("a100_80gb");
    est_input in;
    est_input_init(&in, &s, g);
    est_stack_apply(&in, est_stack_find("pytorch-fsdp"));
    in.num_gpus = 8;
    in.mbs = 1;
    in.gbs = 32; /* 4 micro-batches per step */
    est_result v1, v2;
    CHECK(est_evaluate(&in, &v1) == 0);
    in.stack = est_stack_find("pytorch-fsdp2");
    CHECK(est_evaluate(&in, &v2) == 0);
    /* the backward re-gathers the layers only: the root unit (the V x h embedding) stays gathered */
    double P = v1.params_b * 1e9, P_layers = P - 32000.0 * 1024.0, hbm = 0.85 * 2039e9;
    CHECK_NEAR(v2.t_compute_fwd - v1.t_compute_fwd, 4.0 * 2.0 * 2.0 * P / hbm, 1e-9);
    CHECK_NEAR(v2.t_compute_bwd - v1.t_compute_bwd, 4.0 * (2.0 * 2.0 * P_layers + 6.0 * P) / hbm, 1e-9);
    CHECK_NEAR(v2.step_time - v1.step_time, 4.0 * (10.0 * P + 4.0 * P_layers) / hbm, 1e-9);
    CHECK_NEAR(v2.t_dp_exposed, v1.t_dp_exposed, 1e-12); /* the collectives are the same */
    /* without reshard after forward one gather a micro-batch */
    est_stack kept = *est_stack_find("pytorch-fsdp2");
    kept.fsdp_reshard = false;
    est_stack kept1 = *est_stack_find("pytorch-fsdp");
    kept1.fsdp_reshard = false;
    est_result k1, k2;
    in.stack = &kept1;
    CHECK(est_evaluate(&in, &k1) == 0);
    in.stack = &kept;
    CHECK(est_evaluate(&in, &k2) == 0);
    CHECK_NEAR(k2.step_time - k1.step_time, 4.0 * (4.0 + 6.0) * P / hbm, 1e-9);
}

/* a layer recomputed whole re-runs its forward's TP all-reduces inside the backward: with full
 * recompute the exposed TP traffic is 1.5x the forward + backward's (NeMo 1.x: no overlap) */
static void test_recompute_reruns_tp_collectives(void)
{
    CHECK(est_stack_load(NULL) == 0);
    model_shape s = small_gpt();
    est_input in = input_on(&s, "a100_80gb");
    est_stack_apply(&in, est_stack_find("nemo-megatron-2022"));
    in.num_gpus = 8;
    in.tp = 2;
    in.sequence_parallel = false;
    in.mbs = 1;
    in.gbs = 16;
    est_result none, full;
    in.recompute = RECOMPUTE_NONE;
    CHECK(est_evaluate(&in, &none) == 0);
    in.recompute = RECOMPUTE_FULL;
    CHECK(est_evaluate(&in, &full) == 0);
    CHECK(none.t_tp_comm > 0);
    CHECK_NEAR(full.t_tp_comm, 1.5 * none.t_tp_comm, 1e-12);
    /* half the layers recomputed: half the re-run */
    est_result half;
    in.recompute_layers = 2; /* of small_gpt's 4 */
    CHECK(est_evaluate(&in, &half) == 0);
    CHECK_NEAR(half.t_tp_comm, 1.25 * none.t_tp_comm, 1e-12);
    /* with userbuffer overlap the re-run hides in the same share (calibration tp_overlap) */
    in.recompute_layers = 0;
    in.tp_comm_overlap = true;
    est_result ov_none, ov_full;
    CHECK(est_evaluate(&in, &ov_full) == 0);
    in.recompute = RECOMPUTE_NONE;
    CHECK(est_evaluate(&in, &ov_none) == 0);
    CHECK(ov_none.t_tp_comm < none.t_tp_comm);
    CHECK_NEAR(ov_full.t_tp_comm, 1.5 * ov_none.t_tp_comm, 1e-12);
}

/* ... and under the pipeline's keep (pp_fsdp: gradient sync off until the last micro-batch), one
 * gather a step, each backward's gradient kept in fp32 on the compute stream (the first converted:
 * 2 + 4 B, the others added: 2 + 4 + 4 B), the accumulator copied into the reduce-scatter input once
 * (4 + 4 B) */
static void test_fsdp2_copies_under_pipeline(void)
{
    CHECK(est_stack_load(NULL) == 0);
    model_shape s;
    est_input in = fsdp2_pipelined(&s);
    est_stack no_copies = *in.stack;
    no_copies.fsdp_gather_copy_passes = 0;
    no_copies.fsdp_reduce_copy_passes = 0;
    est_result with, without;
    CHECK(est_evaluate(&in, &with) == 0);
    in.stack = &no_copies;
    CHECK(est_evaluate(&in, &without) == 0);
    /* the first stage's parameters (4 layers and the embedding) at TP 1 */
    double h = 1024, layer = 4.0 * h * h + 2.0 * h * 4096 + 2.0 * h, P = 4.0 * layer + 32000.0 * h, hbm = 0.85 * 3350e9;
    double copies = 2.0 * 2.0 * P + (6.0 + 3.0 * 10.0 + 8.0) * P;
    CHECK(fabs((with.step_time - without.step_time) / (copies / hbm) - 1.0) < 0.02);
}

/* DeepSpeed's default reduces gradients after the backward below ZeRO-3 (overlap_comm unset is
 * true only for stage 3): all of it shows; a config that sets overlap_comm (dp_overlap_on) hides it */
/* "selective" on the FSDP stack is torchtitan's op-level checkpointing: of the block's matmuls
 * Q, K, V, O, fc1, fc2 (small_gpt: not gated) the 2nd, 4th and 6th (K, O, fc2) are dropped and
 * recomputed with every non-matmul op; Q, V, fc1, the attention output and the block input are
 * kept.  On Megatron-Core, selective under FlashAttention recomputes nothing. */
static void test_op_selective_checkpointing(void)
{
    CHECK(est_stack_load(NULL) == 0);
    model_shape s = small_gpt();
    est_input in;
    est_input_init(&in, &s, gpu_find("a100_80gb"));
    est_stack_apply(&in, est_stack_find("pytorch-fsdp"));
    in.num_gpus = 8, in.mbs = 1, in.gbs = 8;
    est_result none, sac, full;
    CHECK(est_evaluate(&in, &none) == 0);
    in.recompute = RECOMPUTE_SELECTIVE;
    CHECK(est_evaluate(&in, &sac) == 0);
    in.recompute = RECOMPUTE_FULL;
    CHECK(est_evaluate(&in, &full) == 0);
    /* bytes kept per token: input 2h + attention output 2h + Q 2h + V 2h + fc1 2·4h = 16h */
    est_device dev;
    layer_cost lc;
    est_cal cal;
    CHECK(est_cal_default(&cal, NULL) == 0);
    in.recompute = RECOMPUTE_SELECTIVE;
    est_device_of(&in, &cal, &dev);
    layer_cost_compute(&in, &dev, 1024, 1024, true, false, 0, false, &lc);
    CHECK_NEAR(lc.act_sac, 16.0 * 1024 * 1024, 1.0);
    /* the dropped matmuls' share of FLOPs: K h², O h², fc2 4h² of h²(1+1+1+1+4+4) = 6/12 */
    CHECK(lc.sac_recomp > 0.45 * (lc.fwd - lc.attn_core_fwd) * 0.5 && lc.sac_recomp < lc.fwd - lc.attn_core_fwd);
    CHECK(none.t_recompute == 0.0 && sac.t_recompute > 0.0 && sac.t_recompute < full.t_recompute);
    CHECK(sac.mem_activations < none.mem_activations && sac.mem_activations > full.mem_activations);
    /* Megatron's selective under FlashAttention: nothing to recompute, everything kept */
    est_stack_apply(&in, est_stack_find("megatron-core"));
    in.recompute = RECOMPUTE_SELECTIVE;
    est_result meg;
    CHECK(est_evaluate(&in, &meg) == 0);
    CHECK(meg.t_recompute == 0.0);
}

/* JAX's remat (the jax-xla stack's full recompute) and MaxText's policies keeping named GEMM
 * outputs, by hand on the small GPT (h 1024, 8 heads of 128, MLP 4096, not gated; 1024 tokens):
 * what each keeps per token at 2 B an element and which forward GEMMs the backward re-runs; the
 * MLP's output projection never (nothing reads its output, so it is no residual: keeping "mlpwo"
 * changes nothing), where Megatron's full recompute re-runs the whole forward */
static void test_remat_policies(void)
{
    model_shape s = small_gpt();
    est_input in = input_on(&s, "h100_sxm");
    est_stack_apply(&in, est_stack_find("jax-xla"));
    in.num_gpus = 8, in.mbs = 1, in.gbs = 8, in.recompute = RECOMPUTE_FULL;
    est_cal cal;
    CHECK(est_cal_default(&cal, NULL) == 0);
    est_device dev;
    est_device_of(&in, &cal, &dev);
    const double T = 1024, h = 1024, F = 4096;
    double qkv = layer_gemm_s(&dev, T, h, 3 * h, 1.0), out = layer_gemm_s(&dev, T, h, h, 1.0);
    double wi = layer_gemm_s(&dev, T, h, F, 1.0), wo = layer_gemm_s(&dev, T, F, h, 1.0);
    static const struct {
        const char *policy;
        double kept_per_token; /* bytes */
        int qkv, out, wi;      /* re-run (1) or kept (0) */
    } P[] = {
        {"full", 2 * h, 1, 1, 1},
        {"save_qkv_proj", 2 * h + 2 * 3 * h, 0, 1, 1},
        {"save_dot_except_mlp", 2 * h + 2 * 3 * h + 2 * h, 0, 0, 1},
        {"save_dot_except_mlpwi", 2 * h + 2 * 3 * h + 2 * h, 0, 0, 1},
        {"minimal", 2 * h + 2 * 3 * h + 2 * h + 2 * F, 0, 0, 0},
    };
    layer_cost full;
    layer_cost_compute(&in, &dev, 1024, 1024, true, false, 0, false, &full);
    for (size_t i = 0; i < sizeof P / sizeof *P; i++) {
        CHECK(est_remat_policy_parse(P[i].policy, &in.remat_saves) == 0);
        layer_cost lc;
        layer_cost_compute(&in, &dev, 1024, 1024, true, false, 0, false, &lc);
        CHECK_NEAR(lc.act_named, P[i].kept_per_token * T, 1.0);
        /* the rest of the forward again: attention core, elementwise passes, and the GEMMs not kept */
        double again = full.fwd - qkv - out - wi - wo + P[i].qkv * qkv + P[i].out * out + P[i].wi * wi;
        CHECK_NEAR(lc.named_recomp, again, 1e-12 * full.fwd);
    }
    /* Megatron's full recompute: the whole forward, wo included */
    est_input meg = in;
    meg.remat_saves = 0;
    est_stack_apply(&meg, est_stack_default());
    meg.recompute = RECOMPUTE_FULL;
    layer_cost whole;
    layer_cost_compute(&meg, &dev, 1024, 1024, true, false, 0, false, &whole);
    CHECK_NEAR(whole.named_recomp, whole.fwd, 1e-15);
    CHECK(!est_layer_remat_named(&meg));
    meg.remat_saves = EST_SAVE_QKV; /* a policy on a stack without remat policies is refused */
    est_result refused;
    CHECK(est_evaluate(&meg, &refused) == -1 && strstr(refused.why, "remat policy") != NULL);
    CHECK(est_remat_policy_parse("save_everything", &in.remat_saves) == -1);
    /* in a step: less recompute than full, more activation memory */
    est_result r_full, r_qkv;
    in.remat_saves = 0;
    CHECK(est_evaluate(&in, &r_full) == 0);
    CHECK(est_remat_policy_parse("save_qkv_proj", &in.remat_saves) == 0);
    CHECK(est_evaluate(&in, &r_qkv) == 0);
    CHECK(r_qkv.t_recompute < r_full.t_recompute && r_qkv.t_recompute > 0.0);
    CHECK(r_qkv.mem_activations > r_full.mem_activations);
}

/* the JAX stack's memory (fp32_params, static_buffers): MaxText's fp32 parameters are the master
 * (4 B sharded, Adam's m and v 8 B, against Megatron's bf16 copy + 12 B), FSDP gathers the cast
 * bf16 copy as Megatron's FSDP does, and XLA's buffers take no fragmentation allowance */
static void test_jax_memory(void)
{
    model_shape s = small_gpt();
    est_input in = input_on(&s, "h100_sxm");
    in.num_gpus = 8, in.mbs = 1, in.gbs = 8;
    est_stack_apply(&in, est_stack_find("jax-xla"));
    in.recompute = RECOMPUTE_FULL;
    est_input mc = in;
    mc.stack = est_stack_default(); /* the same switches on Megatron-Core's memory model */
    CHECK(in.zero_stage == 3 && in.stack->fp32_params && in.stack->static_buffers && !mc.stack->fp32_params);
    est_result j, m;
    CHECK(est_evaluate(&in, &j) == 0);
    CHECK(est_evaluate(&mc, &m) == 0);
    double P_shard = m.mem_optimizer / 12.0; /* parameters per GPU's shard */
    CHECK_NEAR(j.mem_optimizer, 8.0 * P_shard, 1e-6 * j.mem_optimizer);
    CHECK_NEAR(j.mem_weights - m.mem_weights, 2.0 * P_shard, 1e-6 * j.mem_weights);
    est_cal cal;
    CHECK(est_cal_default(&cal, NULL) == 0);
    CHECK_NEAR(j.mem_allowance, cal.cuda_context_gb * EST_GIB, 1.0);
    CHECK(m.mem_allowance > cal.cuda_context_gb * EST_GIB);
}

/* PyTorch FSDP shards the fp32 parameters the optimizer steps: the shard is the master (4 B) with
 * AdamW's two states beside it (8 B), and no persistent bf16 copy (FSDP gathers a cast one per use),
 * where DeepSpeed ZeRO-3 keeps a bf16 shard and the fp32 master among the optimizer's 12 B */
static void test_fsdp_fp32_master(void)
{
    model_shape s = small_gpt();
    est_input in = input_on(&s, "h100_sxm");
    in.num_gpus = 8, in.mbs = 1, in.gbs = 8;
    est_stack_apply(&in, est_stack_find("pytorch-fsdp"));
    est_input ds = in;
    est_stack_apply(&ds, est_stack_find("hf-deepspeed"));
    ds.zero_stage = 3, ds.grad_bytes = in.grad_bytes;
    CHECK(in.zero_stage == 3 && in.stack->fp32_params && !ds.stack->fp32_params);
    est_result f, d;
    CHECK(est_evaluate(&in, &f) == 0);
    CHECK(est_evaluate(&ds, &d) == 0);
    double P_shard = d.mem_optimizer / 12.0;
    CHECK_NEAR(f.mem_optimizer, 8.0 * P_shard, 1e-6 * f.mem_optimizer);
    CHECK_NEAR(f.mem_weights - d.mem_weights, 2.0 * P_shard, 1e-6 * f.mem_weights);
    CHECK_NEAR(f.mem_grads, d.mem_grads, 1e-6 * f.mem_grads);
    /* SHARD_GRAD_OP (ZeRO-2): the fp32 master sharded beside the bf16 copy kept whole from forward
     * to backward, ZeRO-2's own full bf16 weights plus a 4-byte shard */
    in.zero_stage = ds.zero_stage = 2;
    CHECK(est_evaluate(&in, &f) == 0);
    CHECK(est_evaluate(&ds, &d) == 0);
    CHECK_NEAR(f.mem_weights - d.mem_weights, 4.0 * P_shard, 1e-6 * f.mem_weights);
    /* under FP8 an FSDP float8 all-gather still moves 1-byte layer weights: less traffic */
    in.zero_stage = 3;
    in.precision = PREC_FP8;
    est_result bf16_gather, fp8_gather;
    CHECK(est_evaluate(&in, &bf16_gather) == 0);
    in.fp8_param_gather = true;
    CHECK(est_evaluate(&in, &fp8_gather) == 0);
    CHECK(fp8_gather.t_dp_comm < bf16_gather.t_dp_comm);
    CHECK_NEAR(fp8_gather.mem_optimizer, bf16_gather.mem_optimizer, 1.0); /* still the fp32 master's states */
    /* with CPUOffload the host keeps the fp32 shard (4 B), its fp32 gradient (4 B) and AdamW's
     * states (8 B) */
    in.precision = PREC_BF16, in.fp8_param_gather = false;
    in.offload_params = in.offload_optimizer = true;
    CHECK(est_evaluate(&in, &f) == 0);
    CHECK_NEAR(f.cpu_mem_per_gpu, 16.0 * P_shard, 1e-6 * f.cpu_mem_per_gpu);
}

static void test_dp_overlap(void)
{
    model_shape s = small_gpt();
    est_input in;
    est_input_init(&in, &s, gpu_find("a100_80gb"));
    est_stack_apply(&in, est_stack_find("hf-deepspeed"));
    in.num_gpus = 8;
    in.gbs = 8;
    est_result r;
    CHECK(est_evaluate(&in, &r) == 0);
    CHECK_NEAR(r.t_dp_exposed, r.t_dp_comm, 1e-12);
    in.dp_overlap_on = true;
    est_result on;
    CHECK(est_evaluate(&in, &on) == 0);
    CHECK(on.t_dp_exposed < on.t_dp_comm);
    in.dp_overlap_on = false;
    est_stack_apply(&in, est_stack_default());
    in.zero_stage = 2;
    in.grad_bytes = 2.0;
    est_result mc;
    CHECK(est_evaluate(&in, &mc) == 0);
    CHECK(mc.t_dp_exposed < mc.t_dp_comm);
    /* a run that turns the overlap off (NeMo optim.overlap_grad_sync: False) waits for all of it */
    in.dp_overlap_off = true;
    CHECK(est_evaluate(&in, &mc) == 0);
    CHECK_NEAR(mc.t_dp_exposed, mc.t_dp_comm, 1e-12);
    /* NeMo 1.x (megatron_base_model.py configure_optimizers): the asynchronous all-reduce from
     * backward hooks only with PP 1 and no sequence parallelism; with TP 2 and sequence
     * parallelism (or PP 2) the main gradients are all-reduced after the pipeline, all of it
     * exposed; the distributed optimizer (ZeRO-1) overlaps its reduce-scatter either way */
    in.dp_overlap_off = false;
    est_stack_apply(&in, est_stack_find("nemo-megatron-2022"));
    in.num_gpus = 32, in.tp = 2, in.gbs = 64;
    est_result asyn, sp, pp2, dist;
    CHECK(est_evaluate(&in, &asyn) == 0);
    CHECK(asyn.t_dp_exposed < asyn.t_dp_comm);
    in.sequence_parallel = true;
    CHECK(est_evaluate(&in, &sp) == 0);
    CHECK_NEAR(sp.t_dp_exposed, sp.t_dp_comm, 1e-12);
    in.zero_stage = 1;
    CHECK(est_evaluate(&in, &dist) == 0);
    CHECK(dist.t_dp_exposed < dist.t_dp_comm);
    in.zero_stage = 0, in.sequence_parallel = false, in.pp = 2;
    CHECK(est_evaluate(&in, &pp2) == 0);
    CHECK_NEAR(pp2.t_dp_exposed, pp2.t_dp_comm, 1e-12);
}

/* FP8 casts: Transformer Engine's fused cast-transpose (4 B an element) against unfused
 * amax + casts (8 B): the cast time doubles, all else equal */
static void test_fp8_casts(void)
{
    model_shape s = small_gpt();
    est_input in;
    est_input_init(&in, &s, gpu_find("h100_sxm"));
    in.num_gpus = 8;
    in.gbs = 8;
    in.precision = PREC_FP8;
    est_stack fused = *est_stack_default(), unfused = fused;
    unfused.fp8_cast_bytes = 8.0;
    est_result a, b, bf;
    in.stack = &fused;
    CHECK(est_evaluate(&in, &a) == 0);
    in.stack = &unfused;
    CHECK(est_evaluate(&in, &b) == 0);
    in.precision = PREC_BF16;
    CHECK(est_evaluate(&in, &bf) == 0);
    CHECK(b.t_compute_fwd > a.t_compute_fwd);
    CHECK(est_stack_find("pytorch-fsdp")->fp8_cast_bytes == 8.0 && est_stack_default()->fp8_cast_bytes == 4.0);
    /* per-tensor current scaling reads each input once more for its amax (2 B): 6 B an
     * element against delayed scaling's 4, so the cast time grows by half of the fused 4 B
     * stack's (b − a is 4 B's worth: it doubled from 4 to 8) */
    est_result cs;
    in.precision = PREC_FP8;
    in.stack = &fused;
    in.fp8_current_scaling = true;
    CHECK(est_evaluate(&in, &cs) == 0);
    CHECK_NEAR(cs.t_compute_fwd - a.t_compute_fwd, 0.5 * (b.t_compute_fwd - a.t_compute_fwd), 1e-12);
    CHECK_NEAR(cs.t_compute_bwd - a.t_compute_bwd, 0.5 * (b.t_compute_bwd - a.t_compute_bwd), 1e-12);
}

/* FlashAttention-2 (SDPA in torchtitan/HF) on Hopper runs at its measured ~35 % of peak,
 * on Ampere as fast as the fused kernels; the fused vendor kernels are unchanged */
static void test_flash2(void)
{
    model_shape s = small_gpt();
    s.seq_length = 8192;
    const est_stack *fsdp = est_stack_find("pytorch-fsdp");
    CHECK(fsdp->flash2 && fsdp->fa2_sm90_eff == 0.35 && !est_stack_default()->flash2);
    est_stack vendor = *fsdp;
    vendor.flash2 = false;
    const char *gpus[] = {"h100_sxm", "a100_80gb"};
    for (int i = 0; i < 2; i++) {
        est_input in;
        est_input_init(&in, &s, gpu_find(gpus[i]));
        est_stack_apply(&in, fsdp);
        in.num_gpus = 8;
        in.gbs = 8;
        est_result a, b;
        CHECK(est_evaluate(&in, &a) == 0);
        in.stack = &vendor;
        CHECK(est_evaluate(&in, &b) == 0);
        if (i == 0) CHECK(a.t_compute_bwd > b.t_compute_bwd * 1.05);
        else CHECK_NEAR(a.t_compute_bwd, b.t_compute_bwd, 1e-12);
    }
}

/* every prediction carries its GPU's and stack's band */
static void test_bands(void)
{
    CHECK(est_band_load(NULL) == 0);
    model_shape s = small_gpt();
    est_input in;
    est_input_init(&in, &s, gpu_find("a100_80gb"));
    in.num_gpus = 8;
    in.gbs = 8;
    est_stack_apply(&in, est_stack_find("nemo-megatron-2022"));
    est_result r;
    CHECK(est_evaluate(&in, &r) == 0);
    CHECK(r.band_rows > 0 && r.band_time_rel > 0 && r.band_mem_rel > 0);
    CHECK(est_band_rel(&r) == r.band_time_rel);
    double t, m, k;
    int rows;
    est_band_of(gpu_find("a100_80gb"), est_stack_find("nemo-megatron-2022"), &t, &m, &k, &rows);
    CHECK(t == r.band_time_rel && rows == r.band_rows);
    /* ranking two layouts of one model is surer than predicting either: its shared bias cancels */
    CHECK(k == est_rank_band_rel(&r) && k > 0 && k < t);
    /* a GPU without validated runs takes its stack's all-GPU band */
    double t2, m2, k2;
    int rows2;
    est_band_of(gpu_find("l4"), est_stack_default(), &t2, &m2, &k2, &rows2);
    double t3, m3, k3;
    int rows3;
    est_band_of(gpu_find("h100_sxm"), est_stack_default(), &t3, &m3, &k3, &rows3);
    CHECK(rows2 > rows3 && t2 > 0);
    CHECK(est_band_rel(NULL) == 0.0);
}


/* FP8 GEMM tiles load 128 bytes of K per stage like bf16 ones, so their fill is worth
 * 256 FP8 elements of K (128 for bf16); the catalog's reference share is computed once per
 * GPU at load, for each operand width.  H100, 8192 × 1792 × 8192 (a TP-8 FC2 of Llama 70B):
 * 4096 tiles in 32 waves of 132 SMs (0.9697); K 1792/2048 in FP8 against the reference's
 * 8192/8448, 1792/1920 in bf16 against 8192/8320 */
static void test_fp8_gemm_fill(void)
{
    CHECK(gpu_catalog_load(NULL) == 0);
    CHECK_NEAR(layer_gemm_k_fill(2.0), 128.0, 1e-12);
    CHECK_NEAR(layer_gemm_k_fill(1.0), 256.0, 1e-12);
    const gpu_spec *h = gpu_find("h100_sxm");
    double wave = 4096.0 / (32 * 132.0);
    CHECK_NEAR(h->gemm_ref16, wave * 8192.0 / 8320.0, 1e-12);
    CHECK_NEAR(h->gemm_ref8, wave * 8192.0 / 8448.0, 1e-12);
    CHECK_NEAR(layer_gemm_shape_k(108, 4096, 4096, 4096, 256), (1024.0 / 1080.0) * (4096.0 / 4352.0), 1e-12);
    est_cal c;
    CHECK(est_cal_default(&c, NULL) == 0);
    est_device d8 = {.peak = 1979e12, .peak16 = 989e12, .gemm_eff = 0.55, .sms = 132, .gemm_ref = h->gemm_ref8,
                     .k_fill = 256, .gemm_eff16 = 0.66, .gemm_ref16 = h->gemm_ref16, .hbm = 0.85 * 3350e9,
                     .elem_bytes = 1, .cal = &c};
    est_device d16 = d8;
    d16.peak = 989e12;
    d16.gemm_eff = 0.66;
    d16.gemm_ref = h->gemm_ref16;
    d16.k_fill = 128;
    d16.elem_bytes = 2;
    double fp8 = layer_gemm_eff(&d8, 8192, 1792, 8192), bf16 = layer_gemm_eff(&d16, 8192, 1792, 8192);
    CHECK_NEAR(fp8, 0.55 * (1792.0 / 2048.0) / (8192.0 / 8448.0), 1e-12);  /* 0.4963: 90.2 % of 0.55 */
    CHECK_NEAR(bf16, 0.66 * (1792.0 / 1920.0) / (8192.0 / 8320.0), 1e-12); /* 0.6256: 94.8 % of 0.66 */
    CHECK(fp8 / 0.55 < bf16 / 0.66);
    /* the output layer under FP8 runs in bf16 (not a Transformer Engine module): the same
     * seconds as the bf16 device's GEMM, at the bf16 peak and efficiency */
    double M = 8192, K = 8192, N = 128256.0 / 8;
    CHECK_NEAR(layer_gemm16_s(&d8, M, K, N), layer_gemm_s(&d16, M, K, N, 1.0), 1e-15);
    double tiles = 64.0 * 126.0, shape = (M * N / (tiles * 128.0 * 128.0)) * (tiles / 132.0 / 62.0) * (K / (K + 128.0));
    /* 0.9644 of the useful work against the reference's 0.9548: capped at the catalog's 0.66 */
    CHECK(shape > h->gemm_ref16);
    CHECK_NEAR(layer_gemm16_s(&d8, M, K, N), 2.0 * M * K * N / (989e12 * 0.66), 1e-12);
    CHECK(layer_gemm16_s(&d8, M, K, N) > layer_gemm_s(&d8, M, K, N, 1.0) * 1.4);
}

/* FlashAttention's backward at attn_bwd_ratio of the forward's fraction of peak: a small
 * GPT (4 layers, 8 heads of 128, seq 1024, causal: 512 + 64 keys a query, the diagonal
 * block whole) on an A100, one micro-batch: attention FLOPs 2·1024·576·8·256 a layer
 * forward, 2.5× that backward, timed with the kernel's per-query-block overhead for 4.5 key
 * blocks (est_attn_range_factor) */
static void test_attention_backward_ratio(void)
{
    model_shape s = small_gpt();
    est_input in = input_on(&s, "a100_80gb");
    in.num_gpus = 1;
    est_cal c;
    CHECK(est_cal_default(&c, NULL) == 0);
    CHECK_NEAR(c.attn_bwd_ratio, 0.86, 1e-12);
    est_cal one = c, half = c;
    one.attn_bwd_ratio = 1.0;
    half.attn_bwd_ratio = 0.5;
    est_result r1, r2;
    in.cal = &one;
    CHECK(est_evaluate(&in, &r1) == 0);
    in.cal = &half;
    CHECK(est_evaluate(&in, &r2) == 0);
    double flops = 2.0 * 1024 * 576 * 8 * 256;
    double range = est_attn_range_factor(576, c.attn_block_overhead_fa2); /* A100: FlashAttention-2 class */
    CHECK_NEAR(r2.t_compute_bwd - r1.t_compute_bwd, 4 * 2.5 * flops * range / (312e12 * c.attn_eff) * (2.0 - 1.0), 1e-12);
    CHECK_NEAR(r2.t_compute_fwd, r1.t_compute_fwd, 1e-15);
}

/* The gradient reduction hides only under a backward, the parameter gather only under a
 * forward: an all-reduce longer than the last micro-batch's backward shows the excess even
 * when the backward and the forward together would cover it */
static void test_dp_reduce_window(void)
{
    model_shape s = small_gpt();
    est_input in = input_on(&s, "a100_80gb");
    est_stack_apply(&in, est_stack_default());
    in.zero_stage = 0;
    in.num_gpus = 16; /* two nodes: the all-reduce crosses the network */
    in.mbs = 2;
    in.gbs = 32;
    est_result r;
    CHECK(est_evaluate(&in, &r) == 0);
    CHECK(r.num_microbatches == 1);
    /* 3.9 ms of all-reduce against 4.9 ms of backward (with the output layer's) and 2.4 ms
     * of forward: under both it would hide to the 10 % tail; under the layers' backward
     * alone about 0.8 ms shows */
    CHECK(r.t_dp_comm < r.t_compute_bwd + r.t_compute_fwd);
    CHECK(r.t_dp_exposed >= r.t_dp_comm - r.t_compute_bwd - 1e-12);
    CHECK(r.t_dp_exposed > 1.5 * 0.1 * r.t_dp_comm);
}

/* A CP ring hop between nodes leaves through one NIC: 50 GB/s on an H100 whether one or
 * four ranks of the group share a node (a ring collective spreads over all of them: 4 x 50);
 * inside a node NVLink's 450 */
static void test_p2p_bandwidth(void)
{
    model_shape s = small_gpt();
    est_input in = input_on(&s, "h100_sxm");
    in.gpus_per_node = 8;
    CHECK_NEAR(coll_p2p_bw(&in, 4, 2), 450e9, 1e-3);  /* 8 ranks' span: one node */
    CHECK_NEAR(coll_p2p_bw(&in, 4, 4), 50e9, 1e-3);   /* ranks 0, 4, 8, 12: two nodes */
    CHECK_NEAR(coll_group_bw(&in, 4, 4), 100e9, 1e-3); /* two of them per node, two NICs */
    CHECK_NEAR(coll_p2p_bw(&in, 16, 8), 50e9, 1e-3);
    /* a node's own network (BLOOM's Jean Zay: 4 x 100 Gb/s Omni-Path a node) is shared by its GPUs:
     * 400 / 8 / 8 = 6.25 GB/s each, and a ring's ranks per node add their shares */
    in.node_network_gbps = 400;
    CHECK_NEAR(coll_p2p_bw(&in, 4, 4), 6.25e9, 1e-3);
    CHECK_NEAR(coll_group_bw(&in, 4, 4), 12.5e9, 1e-3);
    CHECK_NEAR(coll_p2p_bw(&in, 4, 2), 450e9, 1e-3); /* NVLink is the board's */
    in.gpus_per_node = 4;                            /* a 4-GPU node splits it four ways */
    CHECK_NEAR(coll_p2p_bw(&in, 4, 4), 12.5e9, 1e-3);
}

/* DeepSpeed's pipeline engine blocks on each of a stage's four transfers in turn: a step pays each
 * direction 2m + p - 4 times where 1F1B's model pays it m times (PP 4, 8 micro-batches: 20 / 8) */
static void test_pp_p2p_serial(void)
{
    const est_stack *ds = est_stack_find("megatron-deepspeed");
    CHECK(ds && ds->pp_p2p_serial && !est_stack_default()->pp_p2p_serial);
    model_shape s = small_gpt();
    est_input in = input_on(&s, "a100_80gb");
    in.num_gpus = 16, in.pp = 4, in.tp = 2, in.mbs = 1, in.gbs = 16;
    est_stack_apply(&in, ds);
    est_result serial, paired;
    CHECK(est_evaluate(&in, &serial) == 0);
    est_stack overlapped = *ds;
    overlapped.pp_p2p_serial = false;
    in.stack = &overlapped;
    CHECK(est_evaluate(&in, &paired) == 0);
    CHECK(paired.t_pp_p2p > 0);
    CHECK_NEAR(serial.t_pp_p2p / paired.t_pp_p2p, (2.0 * 8 + 4 - 4) / 8, 1e-9);
    /* one micro-batch: the activation crosses p - 1 = 3 boundaries and the gradient back */
    in.gbs = 2;
    est_result serial1, paired1;
    CHECK(est_evaluate(&in, &paired1) == 0);
    in.stack = ds;
    CHECK(est_evaluate(&in, &serial1) == 0);
    CHECK_NEAR(serial1.t_pp_p2p / paired1.t_pp_p2p, 3.0, 1e-9);
    /* two stages: each has one neighbour, so nothing is serialised beyond 1F1B's m */
    in.pp = 2, in.gbs = 16;
    est_result serial2, paired2;
    CHECK(est_evaluate(&in, &serial2) == 0);
    in.stack = &overlapped;
    CHECK(est_evaluate(&in, &paired2) == 0);
    CHECK_NEAR(serial2.t_pp_p2p / paired2.t_pp_p2p, 1.0, 1e-9);
}

/* a tied embedding's gradient is all-reduced between the first and the last pipeline stage after the
 * backward, exposed: 32000 x 1024 fp32 gradients over two ranks a node apart (one NIC each); none
 * without PP or with an untied output layer */
static void test_tied_embedding_allreduce(void)
{
    model_shape s = small_gpt();
    est_input in = input_on(&s, "h100_sxm");
    in.num_gpus = 16, in.gpus_per_node = 8, in.pp = 2, in.mbs = 1, in.gbs = 32;
    est_result r;
    CHECK(est_evaluate(&in, &r) == 0);
    est_cal c;
    CHECK(est_cal_default(&c, NULL) == 0);
    coll_group g = coll_group_of(&in, 2, 8);
    CHECK(g.units == 2);
    CHECK_NEAR(r.t_tied_embed, coll_allreduce_s(32000.0 * 1024 * 4, 1.0, &g, &c), 1e-12);
    CHECK(r.t_tied_embed > 32000.0 * 1024 * 4 / 50e9); /* at most one NIC's rate */
    in.pp = 1;
    CHECK(est_evaluate(&in, &r) == 0 && r.t_tied_embed == 0);
    in.pp = 2;
    s.untied_embeddings = true;
    in.shape = s;
    CHECK(est_evaluate(&in, &r) == 0 && r.t_tied_embed == 0);
}

/* llm-foundry's fused cross-entropy (flash-attn's xentropy) keeps the bf16 logits and writes a bf16
 * gradient beside them: 4 B a logit at the loss's peak against Megatron-Core's 6 (bf16 logits and the
 * fp32 softmax), and moves 8 B a logit against its former torch loss's 48 */
static void test_logit_memory(void)
{
    const est_stack *lf = est_stack_find("llm-foundry-2023");
    CHECK(lf && lf->logit_mem_bytes == 4.0 && lf->logit_bytes == 8.0 && est_stack_default()->logit_mem_bytes == 0);
    model_shape s = small_gpt();
    est_input in = input_on(&s, "a100_40gb");
    in.num_gpus = 8, in.mbs = 4, in.gbs = 32, in.zero_stage = 3;
    est_result mc, fused;
    CHECK(est_evaluate(&in, &mc) == 0);
    est_stack_apply(&in, lf);
    in.zero_stage = 3;
    CHECK(est_evaluate(&in, &fused) == 0);
    double tokens = 4.0 * 1024;
    CHECK_NEAR(mc.mem_logits, EST_LOGIT_MEM_BYTES * tokens * 32000, 1.0);
    CHECK_NEAR(fused.mem_logits, 4.0 * tokens * 32000, 1.0);
}

/* The CP ring hides per pass: the forward's K/V exchange (a third) behind the forward
 * attention, the backward's K/V + dK/dV (two thirds) behind the backward attention.  A small
 * GPT at seq 8192, TP 8 x CP 2 on two H100 nodes: 4096 tokens and one 128-wide head per GPU;
 * K/V 4096 x 2 x 128 x 2 B = 2 MiB crosses one NIC (50 GB/s x 0.7) three times; attention
 * 2·4096·4160·256 FLOPs forward (causal, diagonal blocks whole) at 0.55 of 989 TFLOP/s,
 * 2.5x that backward at 0.55 x 0.86, both times the range factor of 32.5 key blocks in 1.75
 * kernel calls (the ring's steps) */
static void test_cp_exchange_windows(void)
{
    model_shape s = small_gpt();
    s.seq_length = 8192;
    est_input in = input_on(&s, "h100_sxm");
    in.tp = 8;
    in.cp = 2;
    in.num_gpus = 16;
    in.sequence_parallel = true;
    est_result r;
    CHECK(est_evaluate(&in, &r) == 0);
    double kv = 4096.0 * 2 * 128 * 2, comm = 3.0 * kv / (50e9 * 0.70);
    double flops = 2.0 * 4096 * (4096 + 64) * 256;
    /* 32.5 key blocks a query block, over 1 + 0.75 ring steps' kernel calls */
    double range = est_attn_calls_range_factor(4160, 4.0, 1.75);
    double t_f = flops * range / (989e12 * 0.55), t_b = 2.5 * flops * range / (989e12 * 0.55 * 0.86);
    double exposed = fmax(0.0, comm / 3 - t_f) + fmax(0.0, 2 * comm / 3 - t_b);
    CHECK(exposed > 0);
    CHECK_NEAR(r.t_cp_comm, 4 * exposed, 1e-12);
}

/* the same input evaluated under two stacks */
static void evaluate_under(const est_input *in, const est_stack *sa, const est_stack *sb, est_result *ra, est_result *rb)
{
    est_input a = *in, b = *in;
    est_stack_apply(&a, sa);
    est_stack_apply(&b, sb);
    CHECK(est_evaluate(&a, ra) == 0 && est_evaluate(&b, rb) == 0);
}

/* Kernel calls per query block under context parallelism: a ring calls the attention kernel
 * once per step (1 + 0.75·(cp − 1) calls a query block with causal load balancing), each paying
 * attn_block_overhead; a stack that all-gathers K/V and attends once (cp_single_call, Llama 3's
 * §3.3.2) pays it once.  The small GPT at 8192 tokens on H100 with CP 4 (2048 query tokens a
 * GPU, 2·2048·4160·8·256 FLOPs a layer forward): the ring's 3.25 calls take (32.5 + 3.25·4)/
 * (32.5 + 4) of the single call's attention time, forward and backward */
static void test_cp_kernel_calls(void)
{
    CHECK(est_stack_load(NULL) == 0);
    CHECK(est_stack_find("meta-llama3")->cp_single_call && !est_stack_default()->cp_single_call);
    CHECK(!est_stack_find("pytorch-fsdp")->cp_single_call);
    model_shape s = small_gpt();
    s.seq_length = 8192;
    est_input in = input_on(&s, "h100_sxm");
    in.cp = 4;
    in.num_gpus = 4;
    est_stack ring = *est_stack_default(), once = ring;
    once.cp_single_call = true;
    est_result ra, rb;
    evaluate_under(&in, &ring, &once, &ra, &rb);
    /* per GPU 2048 query tokens, each computing 4160 keys in total (the whole sequence's causal
     * range with its diagonal blocks) */
    double flops = 2.0 * 2048 * 4160 * 8 * 256;
    double one = est_attn_calls_range_factor(4160, 4.0, 1.0), ring_f = est_attn_calls_range_factor(4160, 4.0, 3.25);
    CHECK_NEAR(one, 1.0, 1e-12);
    CHECK_NEAR(ring_f, (32.5 + 13.0) / 36.5, 1e-12);
    double fwd = flops / (989e12 * 0.55), bwd = 2.5 * flops / (989e12 * 0.55 * 0.86);
    CHECK_NEAR(ra.t_compute_fwd - rb.t_compute_fwd, 4 * fwd * (ring_f - one), 1e-12);
    CHECK_NEAR(ra.t_compute_bwd - rb.t_compute_bwd, 4 * bwd * (ring_f - one), 1e-12);
}

/* A FlashAttention-2 stack on Hopper: FlashAttention-2's rate (fa2_sm90_eff 0.35) and its
 * per-query-block overhead (attn_block_overhead_fa2, 2), both passes: the small GPT at 1024
 * tokens (576 keys a query, 4.5 blocks) on H100, against the fused kernels' 0.55 and 4 */
static void test_flash2_on_hopper(void)
{
    CHECK(est_stack_load(NULL) == 0);
    model_shape s = small_gpt();
    est_input in = input_on(&s, "h100_sxm");
    in.num_gpus = 1;
    est_cal c;
    CHECK(est_cal_default(&c, NULL) == 0);
    est_stack fused = *est_stack_default(), fa2 = fused;
    fa2.flash2 = true;
    est_result ra, rb;
    evaluate_under(&in, &fused, &fa2, &ra, &rb);
    double flops = 2.0 * 1024 * 576 * 8 * 256;
    double r4 = est_attn_range_factor(576, c.attn_block_overhead), r2 = est_attn_range_factor(576, c.attn_block_overhead_fa2);
    double fwd = flops * r2 / (989e12 * 0.35) - flops * r4 / (989e12 * 0.55);
    double bwd = 2.5 * flops * r2 / (989e12 * 0.35 * 0.86) - 2.5 * flops * r4 / (989e12 * 0.55 * 0.86);
    CHECK(fwd > 0 && bwd > 0);
    CHECK_NEAR(rb.t_compute_fwd - ra.t_compute_fwd, 4 * fwd, 1e-12);
    CHECK_NEAR(rb.t_compute_bwd - ra.t_compute_bwd, 4 * bwd, 1e-12);
}

/* T5's layers run three key ranges: the encoder's self-attention over all 2048 encoder tokens
 * (16 key blocks), the decoder's causal self-attention over its 8192 (32.5 blocks, the
 * reference: unchanged) and its cross-attention over the 2048 encoder tokens.  Against a
 * calibration without the overhead, the encoder self-attention and the cross-attention take
 * (16 + 4)/16 over (32.5 + 4)/32.5 of their time (4 encoder and 4 decoder layers, H100) */
static void test_encoder_decoder_ranges(void)
{
    model_shape s = small_gpt();
    s.arch = ARCH_ENCODER_DECODER;
    s.seq_length = 2048;
    s.dec_seq_length = 8192;
    est_input in = input_on(&s, "h100_sxm");
    in.num_gpus = 1;
    est_cal c, none;
    CHECK(est_cal_default(&c, NULL) == 0);
    none = c;
    none.attn_block_overhead = 0.0;
    est_result r, r0;
    CHECK(est_evaluate(&in, &r) == 0);
    in.cal = &none;
    CHECK(est_evaluate(&in, &r0) == 0);
    double enc = 2.0 * 2048 * 2048 * 8 * 256, cross = 4.0 * 8192 * 2048 * 8 * 128;
    double f = est_attn_range_factor(2048, 4.0) - 1.0;
    CHECK_NEAR(f, 20.0 / 16.0 / (36.5 / 32.5) - 1.0, 1e-12);
    double fwd = 4 * (enc + cross) / (989e12 * 0.55) * f;
    CHECK_NEAR(r.t_compute_fwd - r0.t_compute_fwd, fwd, 1e-12);
    CHECK_NEAR(r.t_compute_bwd - r0.t_compute_bwd, fwd * 2.5 / 0.86, 1e-12);
}

/* The loss's passes over the logits: NeMo 1.x's unfused fp32 vocab_parallel_cross_entropy
 * moves 52 B a logit against Megatron-Core's fused 24 B; a small GPT (vocab 32000) on one
 * A100, MBS 2, one micro-batch: 2048 tokens x 32000 logits x 28 B more at 85 % of 2039 GB/s */
static void test_logit_bytes(void)
{
    CHECK(est_stack_default()->logit_bytes == 24.0 && est_stack_find("nemo-megatron-2022")->logit_bytes == 52.0);
    model_shape s = small_gpt();
    est_input in = input_on(&s, "a100_80gb");
    in.num_gpus = 1;
    in.mbs = 2;
    in.gbs = 2;
    est_stack fused = *est_stack_default(), unfused = fused;
    unfused.logit_bytes = 52.0;
    est_result a, b;
    in.stack = &fused;
    CHECK(est_evaluate(&in, &a) == 0);
    in.stack = &unfused;
    CHECK(est_evaluate(&in, &b) == 0);
    CHECK_NEAR(b.step_time - a.step_time, 2048.0 * 32000 * 28 / (0.85 * 2039e9), 1e-12);
    /* a stack that does not say gets Megatron-Core's */
    est_stack silent = fused;
    silent.logit_bytes = 0;
    in.stack = &silent;
    CHECK(est_evaluate(&in, &b) == 0);
    CHECK_NEAR(b.step_time, a.step_time, 1e-15);
}

/* An explicit 4-D mask (Hugging Face Transformers 4.38-4.39, or padded batches) sends SDPA to
 * its memory-efficient kernel: the whole 1024 x 1024 square at half FlashAttention-2's fraction
 * of peak (0.55 x 0.5), plus the bf16 mask read per head (2 B x 1024 x 1024 x 8 heads) forward
 * and backward and the contiguous copies of Q, K, V (4 B x 1024 tokens x 3072) forward, at 85 %
 * of 2039 GB/s.  Small GPT (head 128: qk + v = 256) on one A100, MBS 1, one micro-batch, against
 * the causal FlashAttention-2 kernel's 576 keys per query (512 + the diagonal block's 64). */
static void test_masked_sdpa(void)
{
    const est_stack *ds = est_stack_find("hf-deepspeed");
    CHECK(ds->masked_attn_eff_ratio == 0.5 && est_stack_find("pytorch-fsdp")->masked_attn_eff_ratio == 0.5);
    CHECK(est_stack_default()->masked_attn_eff_ratio == 0.0);
    model_shape s = small_gpt();
    est_input in = input_on(&s, "a100_80gb");
    est_stack_apply(&in, ds);
    in.num_gpus = 1;
    in.zero_stage = 0;
    est_result causal, masked;
    CHECK(est_evaluate(&in, &causal) == 0);
    in.attn_explicit_mask = true;
    CHECK(est_evaluate(&in, &masked) == 0);
    double peak = 312e12, hbm = 0.85 * 2039e9, ae = 0.55, ratio = 0.86;
    double f_causal = 2.0 * 1024 * 576 * 8 * 256, f_masked = 2.0 * 1024 * 1024 * 8 * 256;
    double mask = 2.0 * 1024 * 1024 * 8, copies = 4.0 * 1024 * 3 * 1024;
    /* both FlashAttention-2-class kernels: 8 and 4.5 key blocks a query block */
    double rm = est_attn_range_factor(1024, 2.0), rc = est_attn_range_factor(576, 2.0);
    double fwd = f_masked * rm / (peak * ae * 0.5) + (mask + copies) / hbm - f_causal * rc / (peak * ae);
    double bwd = 2.5 * f_masked * rm / (peak * ae * 0.5 * ratio) + mask / hbm - 2.5 * f_causal * rc / (peak * ae * ratio);
    CHECK_NEAR(masked.t_compute_fwd - causal.t_compute_fwd, 4 * fwd, 1e-12);
    CHECK_NEAR(masked.t_compute_bwd - causal.t_compute_bwd, 4 * bwd, 1e-12);
    /* a stack without the mechanism (Megatron-Core runs its own causal kernels) is unchanged */
    est_stack_apply(&in, est_stack_default());
    in.zero_stage = 0;
    est_result mc_a, mc_b;
    CHECK(est_evaluate(&in, &mc_b) == 0);
    in.attn_explicit_mask = false;
    CHECK(est_evaluate(&in, &mc_a) == 0);
    CHECK_NEAR(mc_a.step_time, mc_b.step_time, 1e-15);
}

/* DeepSpeed ZeRO-1/2 all-reduce each gradient bucket (use_multi_rank_bucket_allreduce): twice a
 * reduce-scatter's bytes.  ZeRO-2 with m micro-batches reduces m times and gathers the
 * parameters once, the same B bytes each (bf16 gradients and weights): reduce-scatter
 * (m + 1)·g, all-reduce (2m + 1)·g */
static void test_zero12_allreduce(void)
{
    model_shape s = small_gpt();
    est_input in;
    est_input_init(&in, &s, gpu_find("a100_80gb"));
    est_stack ds = *est_stack_find("hf-deepspeed"), rs = ds;
    CHECK(ds.zero12_grad_allreduce && !est_stack_default()->zero12_grad_allreduce);
    rs.zero12_grad_allreduce = false;
    est_stack_apply(&in, &ds);
    in.zero_stage = 2;
    in.num_gpus = 8;
    in.gbs = 24; /* m = 3 */
    est_result ar, scatter;
    CHECK(est_evaluate(&in, &ar) == 0);
    in.stack = &rs;
    CHECK(est_evaluate(&in, &scatter) == 0);
    CHECK(ar.num_microbatches == 3);
    /* the three micro-batches' reductions of the 16-bit gradients (one 5e8-element bucket) as
     * all-reduces (twice the traffic, 2 x 7 ring steps) instead of reduce-scatters */
    est_cal c;
    CHECK(est_cal_default(&c, NULL) == 0);
    coll_group g = coll_group_of(&in, 8, 1);
    double grads = ar.params_b * 1e9 * 2.0;
    CHECK_NEAR(ar.t_dp_comm - scatter.t_dp_comm, 3.0 * (coll_allreduce_s(grads, 1.0, &g, &c) - coll_gather_s(grads, 1.0, &g, &c)), 1e-9);
    CHECK(ar.t_dp_comm > 1.7 * scatter.t_dp_comm);
    /* ZeRO-3 reduce-scatters (stage3.py reduce_scatter_coalesced): unchanged */
    in.zero_stage = 3;
    CHECK(est_evaluate(&in, &scatter) == 0);
    in.stack = &ds;
    CHECK(est_evaluate(&in, &ar) == 0);
    CHECK_NEAR(ar.t_dp_comm, scatter.t_dp_comm, 1e-15);
}

/* ZeRO-2 with the optimizer offloaded: the boundary moves 4 B of fp32 gradient out and 4 B of
 * fp32 master back per partition parameter at the host link's 12.5 GB/s (an A100 pair's Gen4
 * x16 uplink, 8 ranks on the board), and the host's CPU Adam (1.4e9 parameters/s) updates the 8
 * ranks' partitions at once; with m micro-batches the accumulated 2-byte partition also crosses the
 * link 2(m − 1) times (async_accumulate_grad_in_cpu_via_gpu), in the gradient reduction: exposed,
 * as ZeRO-2's reduction waits for the backward (overlap_comm off, DeepSpeed's default) */
static void test_offload_grad_accum(void)
{
    model_shape s = small_gpt();
    est_input in;
    est_input_init(&in, &s, gpu_find("a100_80gb"));
    est_stack_apply(&in, est_stack_find("hf-deepspeed"));
    CHECK(in.stack->offload_grad_accum_via_gpu);
    in.zero_stage = 2;
    in.offload_optimizer = true;
    in.num_gpus = 8;
    in.gbs = 8;
    est_result one, four;
    CHECK(est_evaluate(&in, &one) == 0);
    in.gbs = 32;
    CHECK(est_evaluate(&in, &four) == 0);
    CHECK(one.num_microbatches == 1 && four.num_microbatches == 4);
    double host = 12.5e9, P = one.t_optimizer / (8.0 / host + 8.0 / 1.4e9);
    CHECK(P > 0);
    CHECK_NEAR(four.t_optimizer, one.t_optimizer, 1e-15);
    double copies = 6.0 * 2.0 * P / host;
    CHECK_NEAR(four.t_dp_exposed - four.t_dp_comm, copies, 1e-9 * copies); /* the reduction itself after the backward */
    /* pageable buffers (pin_memory false): the gradient copies at 0.22 of the link, the fp32
     * master's copy back (ZeRO-2 pins it either way, PR #5301) at the link */
    in.offload_pageable = true;
    est_result paged;
    CHECK(est_evaluate(&in, &paged) == 0);
    CHECK_NEAR(paged.t_optimizer, P * (4.0 / (0.22 * host) + 4.0 / host + 8.0 / 1.4e9), 1e-9 * paged.t_optimizer);
    CHECK_NEAR(paged.t_dp_exposed - paged.t_dp_comm, copies / 0.22, 1e-9 * copies);
    /* ZeRO-3 copies every micro-batch's partition to the host and back (the first one too:
     * stage3.py keeps the buffer on the GPU for what follows): 2 m copies, pageable here; its fp32
     * master is never pinned, so the copy back is pageable too */
    in.zero_stage = 3;
    est_result z3;
    CHECK(est_evaluate(&in, &z3) == 0);
    CHECK_NEAR(z3.t_optimizer, P * (4.0 / (0.22 * host) + 2.0 / (0.22 * host) + 8.0 / 1.4e9), 1e-9 * z3.t_optimizer);
    /* pinned, under ZeRO-3's overlapped reduction: non_blocking copies hidden by the backward */
    in.offload_pageable = false;
    est_result hidden;
    CHECK(est_evaluate(&in, &hidden) == 0);
    CHECK(8.0 * 2.0 * P / host < hidden.t_compute_bwd);
    double z3_copies = 8.0 * 2.0 * P / host; /* m = 4: 2m copies */
    CHECK(z3.t_dp_exposed - hidden.t_dp_exposed > z3_copies / 0.22 - z3_copies);
    CHECK(z3.t_dp_exposed - hidden.t_dp_exposed <= z3_copies / 0.22 + 1e-12);
    /* with the parameters offloaded too, the updated 16-bit partition is already in host memory */
    in.offload_params = true;
    est_result both;
    CHECK(est_evaluate(&in, &both) == 0);
    CHECK_NEAR(both.t_optimizer, P * (4.0 / host + 8.0 / 1.4e9), 1e-9 * both.t_optimizer);
    in.offload_params = false;
    /* one host's CPU: two nodes of 8 halve each rank's partition but not the host's rate, so the
     * CPU part halves with the shard (16 ranks, 8 per node) */
    in.zero_stage = 2;
    est_result two;
    in.num_gpus = 16;
    in.gbs = 16;
    CHECK(est_evaluate(&in, &two) == 0);
    double P2 = P * 8.0 / 16.0; /* the same parameters over twice the ranks */
    CHECK_NEAR(two.t_optimizer, P2 * 8.0 / host + 8.0 * P2 / 1.4e9, 1e-3 * two.t_optimizer);
    /* one rank alone on the board has its pair's uplink to itself (host_link_gpus 2): twice the rate */
    in.num_gpus = 1;
    in.gbs = 1;
    est_result alone;
    CHECK(est_evaluate(&in, &alone) == 0);
    CHECK_NEAR(alone.t_optimizer, 8.0 * P * (8.0 / (2.0 * host) + 1.0 / 1.4e9), 1e-3 * alone.t_optimizer);
}

/* PEFT / torchtune LoRA adapters outside the frozen GEMMs: 9.5 B forward and 11.5 B backward per
 * token per element of the adapted matrices' input + output widths (lora_targets x 2h); a small
 * GPT with adapters on q, k, v, o (lora_targets 4: 4 x 2 x 1024 elements), one A100, MBS 1:
 * 1024 tokens x 8192 elements x 4 layers at 85 % of 2039 GB/s */
static void test_lora_adapter_bytes(void)
{
    const est_stack *ds = est_stack_find("hf-deepspeed");
    CHECK(ds->lora_fwd_bytes == 9.5 && ds->lora_bwd_bytes == 11.5 && est_stack_default()->lora_fwd_bytes == 0.0);
    model_shape s = small_gpt();
    est_input in;
    est_input_init(&in, &s, gpu_find("a100_80gb"));
    est_stack with = *ds, without = *ds;
    without.lora_fwd_bytes = without.lora_bwd_bytes = 0.0;
    est_stack_apply(&in, &with);
    in.zero_stage = 0;
    in.num_gpus = 1;
    in.lora_rank = 8;
    in.lora_targets = 4;
    est_result a, b;
    CHECK(est_evaluate(&in, &a) == 0);
    in.stack = &without;
    CHECK(est_evaluate(&in, &b) == 0);
    double elems = 4 * 1024.0 * 4 * 2 * 1024, hbm = 0.85 * 2039e9;
    CHECK_NEAR(a.t_compute_fwd - b.t_compute_fwd, 9.5 * elems / hbm, 1e-12);
    CHECK_NEAR(a.t_compute_bwd - b.t_compute_bwd, 11.5 * elems / hbm, 1e-12);
    /* full fine-tuning has no adapters */
    in.lora_rank = 0;
    CHECK(est_evaluate(&in, &b) == 0);
    in.stack = &with;
    CHECK(est_evaluate(&in, &a) == 0);
    CHECK_NEAR(a.step_time, b.step_time, 1e-15);
}

/* A stack whose attention kernel runs at a published ratio of FlashAttention-2's
 * (llm-foundry-2023: Triton FlashAttention, FA2 1/0.71 faster forward and 2x backward,
 * Dao 2023 §4.1): the small GPT on an A100 (4 layers, attention FLOPs 2·1024·576·8·256 a
 * layer forward) adds 4·F/(312e12·e_fwd)·(1/0.71 − 1) forward and
 * 4·2.5·F/(312e12·0.55·0.86)·(1/0.5 − 1) backward, e_fwd the FA2 forward rate at 256 head dims,
 * both at FlashAttention-2's per-query-block overhead for 4.5 key blocks (est_attn_range_factor) */
static void test_attention_kernel_ratio(void)
{
    CHECK(gpu_catalog_load(NULL) == 0 && est_stack_load(NULL) == 0);
    const est_stack *lf = est_stack_find("llm-foundry-2023");
    CHECK(lf && lf->flash2 && lf->attn_fwd_rel == 0.71 && lf->attn_bwd_rel == 0.5 && lf->logit_bytes == 8.0);
    CHECK(est_stack_find("pytorch-fsdp")->attn_fwd_rel == 0.0); /* FA2 itself: 1 */
    est_stack fa2 = *lf;
    fa2.attn_fwd_rel = fa2.attn_bwd_rel = 0.0;
    model_shape s = small_gpt();
    est_input in;
    const gpu_spec *g = gpu_find("a100_80gb");
    est_input_init(&in, &s, g);
    est_stack_apply(&in, lf);
    in.num_gpus = 1;
    est_cal c;
    CHECK(est_cal_default(&c, NULL) == 0);
    est_result r, r0;
    CHECK(est_evaluate(&in, &r) == 0);
    in.stack = &fa2;
    CHECK(est_evaluate(&in, &r0) == 0);
    double flops = 2.0 * 1024 * 576 * 8 * 256;
    double o = c.attn_block_overhead_fa2, range = est_attn_range_factor(576, o); /* 4.5 key blocks a query block */
    double e_fwd = est_attn_fwd_eff(c.attn_eff, c.attn_exp_share, o, g, 256.0);
    CHECK_NEAR(r.t_compute_fwd - r0.t_compute_fwd, 4 * flops * range / (312e12 * e_fwd) * (1.0 / 0.71 - 1.0), 1e-12);
    CHECK_NEAR(r.t_compute_bwd - r0.t_compute_bwd, 4 * 2.5 * flops * range / (312e12 * c.attn_eff * 0.86) * (2.0 - 1.0), 1e-12);
}

/* While a data-parallel collective hides under compute its NCCL CTAs hold nccl_ctas SMs:
 * one node of A100s all-reducing the small GPT's gradients under the backward hides all
 * but the 10 % tail, and the hidden 0.9 of the all-reduce costs 24/108 of itself */
static void test_nccl_sm_share(void)
{
    model_shape s = small_gpt();
    s.num_layers = 32; /* the embedding 7.5 % of the gradients: the dp_tail share is the tail */
    est_input in = input_on(&s, "a100_80gb");
    est_stack_apply(&in, est_stack_default());
    in.zero_stage = 0;
    in.num_gpus = 8;
    in.mbs = 2;
    in.gbs = 16;
    est_cal c, none;
    CHECK(est_cal_default(&c, NULL) == 0);
    CHECK_NEAR(c.nccl_ctas, 24.0, 1e-12);
    CHECK(gpu_find("a100_80gb")->sm_count == 108);
    none = c;
    none.nccl_ctas = 0;
    est_result r, r0;
    in.cal = &c;
    CHECK(est_evaluate(&in, &r) == 0);
    in.cal = &none;
    CHECK(est_evaluate(&in, &r0) == 0);
    CHECK_NEAR(r0.t_dp_exposed, 0.1 * r0.t_dp_comm, 1e-15); /* hidden but the tail */
    CHECK_NEAR(r.t_dp_exposed - r0.t_dp_exposed, 0.9 * r0.t_dp_comm * 24.0 / 108.0, 1e-15);
}

/* The input embedding's gradient is final when the backward ends, so its reduction is the
 * exposed tail when it outweighs dp_tail: the small GPT's 32000 x 1024 embedding is 39 % of its
 * 83.6 M gradients (4 layers of 12.6 M), all-reduced in fp32 over 8 A100s; with 32 layers it is
 * 7.5 % and the dp_tail share stays the tail */
static void test_embedding_reduced_last(void)
{
    CHECK(gpu_catalog_load(NULL) == 0);
    est_cal c;
    CHECK(est_cal_default(&c, NULL) == 0);
    c.nccl_ctas = 0;
    for (int layers = 4; layers <= 32; layers += 28) {
        model_shape s = small_gpt();
        s.num_layers = layers;
        est_input in;
        est_input_init(&in, &s, gpu_find("a100_80gb"));
        est_stack_apply(&in, est_stack_default());
        in.zero_stage = 0;
        in.num_gpus = 8;
        in.mbs = 2;
        in.gbs = 16;
        in.cal = &c;
        est_result r;
        CHECK(est_evaluate(&in, &r) == 0);
        coll_group g = coll_group_of(&in, 8, 1);
        double embed = coll_allreduce_s(32000.0 * 1024 * 4, 1.0, &g, &c);
        if (layers == 4) {
            CHECK(embed > 0.3 * r.t_dp_comm && embed < 0.5 * r.t_dp_comm);
            CHECK_NEAR(r.t_dp_exposed, embed, 1e-12);
        } else {
            CHECK(embed < 0.1 * r.t_dp_comm);
            CHECK_NEAR(r.t_dp_exposed, 0.1 * r.t_dp_comm, 1e-15);
        }
    }
}

/* A stack whose model configs train without dropout keeps no masks: the small GPT (GELU MLP,
 * so the templates' two 1-byte masks a layer) on one A100, MBS 2 of 1024 tokens, 4 layers
 * keeps 2 · 1024 B · 2048 tokens · 4 layers = 16 MiB less (times the allocator's 5 %) */
static void test_dropout_masks(void)
{
    CHECK(gpu_catalog_load(NULL) == 0 && est_stack_load(NULL) == 0);
    const est_stack *lf = est_stack_find("llm-foundry-2023");
    CHECK(lf && lf->no_dropout && !est_stack_find("pytorch-fsdp")->no_dropout);
    est_stack with = *lf;
    with.no_dropout = false;
    model_shape s = small_gpt();
    est_input in;
    est_input_init(&in, &s, gpu_find("a100_80gb"));
    est_stack_apply(&in, lf);
    in.num_gpus = 1;
    in.mbs = 2;
    in.gbs = 2;
    est_result r, r0;
    CHECK(est_evaluate(&in, &r) == 0);
    in.stack = &with;
    CHECK(est_evaluate(&in, &r0) == 0);
    CHECK_NEAR(r0.mem_activations - r.mem_activations, 2.0 * 1024 * 2048 * 4, 1e-6);
}

int main(void)
{
    RUN(test_stacks_load);
    RUN(test_gemm_shape_efficiency);
    RUN(test_attention_memory);
    RUN(test_fsdp_gather_reshard);
    RUN(test_fsdp2_copies);
    RUN(test_fsdp2_copies_under_pipeline);
    RUN(test_recompute_reruns_tp_collectives);
    RUN(test_dp_overlap);
    RUN(test_fp8_casts);
    RUN(test_flash2);
    RUN(test_bands);
    RUN(test_fp8_gemm_fill);
    RUN(test_attention_backward_ratio);
    RUN(test_attention_kernel_ratio);
    RUN(test_dp_reduce_window);
    RUN(test_nccl_sm_share);
    RUN(test_embedding_reduced_last);
    RUN(test_fsdp_under_pipeline);
    RUN(test_stack_like_rows);
    RUN(test_launcher_release_stack);
    RUN(test_stack_parallelism);
    RUN(test_dropout_masks);
    RUN(test_p2p_bandwidth);
    RUN(test_pp_p2p_serial);
    RUN(test_tied_embedding_allreduce);
    RUN(test_logit_memory);
    RUN(test_cp_exchange_windows);
    RUN(test_cp_kernel_calls);
    RUN(test_flash2_on_hopper);
    RUN(test_encoder_decoder_ranges);
    RUN(test_logit_bytes);
    RUN(test_op_selective_checkpointing);
    RUN(test_remat_policies);
    RUN(test_jax_memory);
    RUN(test_fsdp_fp32_master);
    RUN(test_masked_sdpa);
    RUN(test_zero12_allreduce);
    RUN(test_offload_grad_accum);
    RUN(test_lora_adapter_bytes);
    CHECK_DONE();
}
