/* test_candidate_est.c — a NeMo training config read back into an estimator input
 * (what emulate-job and calibrate score): the layout and the Megatron-Core switches
 * the config sets, spelled as NeMo spells them. */
#include <string.h>

#include "check.h"
#include "config/node.h"
#include "config/yaml_io.h"
#include "estimator/gpu.h"
#include "search/candidate_est.h"

static const char MIXTRAL[] =
    "run:\n  name: mixtral_8x7b_test\n"
    "trainer:\n  num_nodes: 2\n  devices: 8\n"
    "model:\n  num_layers: 32\n  hidden_size: 4096\n  ffn_hidden_size: 14336\n  num_attention_heads: 32\n"
    "  num_query_groups: 8\n  encoder_seq_length: 4096\n  num_moe_experts: 8\n  moe_router_topk: 2\n"
    "  tensor_model_parallel_size: 2\n  pipeline_model_parallel_size: 1\n  expert_model_parallel_size: 8\n"
    "  sequence_parallel: true\n  micro_batch_size: 1\n  global_batch_size: 64\n";

static void read_config(const char *extra, est_input *in, est_result *r)
{
    char text[2048];
    snprintf(text, sizeof text, "%s%s", MIXTRAL, extra);
    ac_err e;
    node *cfg = yaml_load_string(text, strlen(text), "test.yaml", &e);
    CHECK(cfg != NULL);
    if (!cfg) return;
    CHECK(candidate_est_from_nemo(cfg, gpu_find("h100"), in, &e) == 0);
    CHECK(est_evaluate(in, r) == 0);
    node_free(cfg);
}

static void test_switches_from_nemo(void)
{
    CHECK(gpu_catalog_load(NULL) == 0);
    est_input plain, on;
    est_result rp, ro;
    read_config("", &plain, &rp);
    CHECK(plain.tp == 2 && plain.ep == 8 && plain.num_gpus == 16 && plain.sequence_parallel);
    CHECK(!plain.moe_a2a_overlap && !plain.cuda_graphs && plain.offload_act_layers == 0);
    read_config("  overlap_moe_expert_parallel_comm: true\n  cuda_graph_impl: transformer_engine\n"
         "  cpu_offloading: true\n  cpu_offloading_num_layers: 4\n", &on, &ro);
    CHECK(on.moe_a2a_overlap && on.cuda_graphs && on.offload_act_layers == 4);
    CHECK(ro.t_ep_comm < rp.t_ep_comm);
    CHECK(ro.t_moe_host == 0 && rp.t_moe_host > 0);
    /* offloading 4 layers of each micro-batch leaves fewer activations on the GPU */
    est_input off, a2a;
    est_result rf, ra;
    read_config("  cpu_offloading: true\n  cpu_offloading_num_layers: 4\n", &off, &rf);
    CHECK(rf.mem_activations < rp.mem_activations);
    /* the overlapped all-to-all pairs one micro-batch's forward with another's backward layer
     * by layer: no more micro-batches in flight, the same activations */
    read_config("  overlap_moe_expert_parallel_comm: true\n", &a2a, &ra);
    CHECK(a2a.moe_a2a_overlap && ra.inflight_microbatches == rp.inflight_microbatches);
    CHECK(ra.mem_activations == rp.mem_activations);
    /* cuda_graph_impl none and cpu_offloading false switch nothing on */
    read_config("  cuda_graph_impl: none\n  cpu_offloading: false\n  cpu_offloading_num_layers: 4\n", &on, &ro);
    CHECK(!on.cuda_graphs && on.offload_act_layers == 0);
}

/* NeMo 1.0's grad_sync_dtype and fp8_params: bf16 gradient buffers, FP8 layer weights */
static void test_precision_switches_from_nemo(void)
{
    est_input plain, on;
    est_result rp, ro;
    read_config("  fp8: true\n  optim:\n    name: distributed_fused_adam\n", &plain, &rp);
    CHECK(plain.precision == PREC_FP8 && plain.grad_bytes != 2.0 && !plain.fp8_param_gather && plain.zero_stage == 1);
    read_config("  fp8: true\n  fp8_params: true\n  optim:\n    name: distributed_fused_adam\n    grad_sync_dtype: BF16\n",
                &on, &ro);
    CHECK(on.grad_bytes == 2.0 && on.fp8_param_gather);
    CHECK_NEAR(ro.mem_grads, rp.mem_grads / 2.0, 1e-6 * rp.mem_grads);
    CHECK(ro.mem_weights < rp.mem_weights);
    /* fp8_params without FP8 compute or without the distributed optimizer keeps 16-bit
     * weights (Megatron needs both for it) */
    read_config("  fp8_params: true\n  optim:\n    name: distributed_fused_adam\n", &on, &ro);
    CHECK(!on.fp8_param_gather);
    read_config("  fp8: true\n  fp8_params: true\n  optim:\n    name: fused_adam\n    grad_sync_dtype: float32\n", &on, &ro);
    CHECK(!on.fp8_param_gather && on.grad_bytes == 4.0);
}

/* the original's act_ckpt_layers for T5 goes to both stacks as act // 2 each
 * (candidate_cfg.c), so the estimator recomputes 2·(act // 2) layers of the stage */
static void test_t5_act_ckpt_split(void)
{
    model_shape t5 = {0};
    t5.arch = ARCH_ENCODER_DECODER;
    t5.num_layers = 12;
    t5.hidden = 1024;
    t5.ffn_hidden = 4096;
    t5.heads = 16;
    t5.seq_length = 512;
    t5.vocab = 32000;
    est_input in;
    est_input_init(&in, &t5, gpu_find("a100_80gb"));
    search_candidate k = {0};
    k.tp = k.pp = 1;
    k.mbs = 1;
    k.gbs = 8;
    k.act_ckpt_layers = 5;
    k.num_mbs_act = k.act_per_pipe = -1;
    candidate_est_apply(&in, &k, SEARCH_ACT_BLOCK);
    CHECK(in.recompute == RECOMPUTE_FULL && in.recompute_layers == 4);
    k.act_ckpt_layers = 1; /* 0 per stack: nothing recomputed */
    candidate_est_apply(&in, &k, SEARCH_ACT_BLOCK);
    CHECK(in.recompute == RECOMPUTE_NONE && in.recompute_layers == 0);
    t5.arch = ARCH_DECODER; /* a GPT keeps the value as given */
    est_input_init(&in, &t5, gpu_find("a100_80gb"));
    k.act_ckpt_layers = 5;
    candidate_est_apply(&in, &k, SEARCH_ACT_BLOCK);
    CHECK(in.recompute == RECOMPUTE_FULL && in.recompute_layers == 5);
}

int main(void)
{
    RUN(test_switches_from_nemo);
    RUN(test_precision_switches_from_nemo);
    RUN(test_t5_act_ckpt_split);
    CHECK_DONE();
}
