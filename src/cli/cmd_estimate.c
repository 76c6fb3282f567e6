/* cmd_estimate.c — `autoconfig estimate` (one candidate, with breakdowns) and
 * `autoconfig validate` (the estimator against published measurements). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "estimator/band.h"
#include "estimator/est.h"
#include "validate/infer_validate.h"
#include "validate/validate.h"
#include "results/validate_page.h"
#include "search/candidate_est.h"
#include "util/fsutil.h"
#include "util/json.h"
#include "util/text.h"

static const char ESTIMATE_HELP[] =
    "usage: autoconfig estimate [--json] [--conf DIR] [--hf-config FILE | --model NAME] [--tp N] [--pp N] [--vp N]\n"
    "                           [--cp N] [--ep N]\n"
    "                           [--mbs N] [--gbs N] [--recompute none|selective|full] [--recompute-layers N]\n"
    "                           [--sp true|false] [--zero 0-3] [--precision bf16|fp8|fp8-cs|mxfp8]\n"
    "                           [--a2a-overlap true|false] [--cuda-graphs true|false] [--tp-overlap true|false]\n"
    "                           [--offload-act-layers N] [--grad-reduce-in-fp32 true|false]\n"
    "                           [--fp8-param-gather true|false] [--recompute-modules LIST]\n"
    "                           [--pp-layout even|remainder_last|embedding_loss] [--framework STACK]\n"
    "                           [--remat-policy POLICY]\n"
    "                           [--compile true|false] [overrides...]\n"
    "\n"
    "Predicts memory per GPU and step time of ONE training candidate with the analytical\n"
    "estimator (no cluster). The model, cluster and GPU come from the configuration\n"
    "(search_config=..., search_config.train_settings.num_nodes=..., .gpu=h100);\n"
    "flags pick the parallel layout (defaults: the base config's TP/PP/GBS, MBS 1,\n"
    "sequence parallel when TP > 1, distributed optimizer). Every number is predicted.\n"
    "--hf-config FILE takes the architecture of a Hugging Face config.json, --model NAME one\n"
    "published by name (data/models.csv: GPT-3, OPT, BLOOM, Falcon, MPT, Pythia, OLMo, Qwen,\n"
    "Gemma, Phi-3, DBRX, Nemotron-4, Nemotron-H and Nemotron 3 hybrids, DeepSeek-V2/V3, Kimi K2,\n"
    "Llama 3.2/4, ...; `autoconfig models` lists them), under a decoder search_config (llama,\n"
    "mixtral, gpt3); the default TP and PP shrink to divide its heads, KV heads, layers and GPUs,\n"
    "and the default TP to a node.\n"
    "search_config.train_settings.gpus_per_node other than the GPU's board (4-GPU H200\n"
    "nodes) is where NVLink ends: the layout line says \"(N per node)\"; .network_gbps=400 is a\n"
    "node's scale-out (all its NICs, Gb/s) where it is not the GPU's DGX/HGX node.\n"
    "--tp-overlap hides part of the TP collectives behind GEMMs (model.ub_tp_comm_overlap;\n"
    "default: as the base config says, NeMo's default off).\n"
    "--a2a-overlap hides MoE all-to-all behind another micro-batch's compute (Megatron-Core\n"
    "overlap_moe_expert_parallel_comm); --cuda-graphs replays whole layers as CUDA graphs, so\n"
    "host launch costs leave the critical path (model.enable_cuda_graph / cuda_graph_impl);\n"
    "--offload-act-layers N keeps N layers' activations of each micro-batch in host memory\n"
    "(model.cpu_offloading_num_layers), copied over PCIe or NVLink-C2C behind compute.\n"
    "--grad-reduce-in-fp32 false keeps and reduces gradients in bf16 (model.optim.grad_sync_dtype:\n"
    "bf16, as NVIDIA's benchmark recipes do; default fp32); --fp8-param-gather keeps FP8 runs'\n"
    "layer weights in FP8 and all-gathers them in FP8 (model.fp8_params).\n"
    "--recompute-modules picks Megatron-Core's selective recompute modules, comma-separated:\n"
    "core_attn (= --recompute selective), layernorm, moe_act (MoE models), mla_up_proj (MLA models).\n"
    "--pp-layout splits layers over pipeline stages: even (ceil(L/PP) each; default),\n"
    "remainder_last (every virtual chunk ceil(L/(PP*VP)) layers, the rest on the last, as\n"
    "DeepSeek-V3's pipeline_model_parallel_layout) or embedding_loss (Megatron-Core\n"
    "account_for_embedding/loss_in_pipeline_split: the first and last stage one layer fewer).\n"
    "--framework picks the training stack (data/stacks.csv; search_config.train_settings.framework):\n"
    "megatron-core (default), nemo-megatron-2022 (apex, no FlashAttention), megatron-deepspeed,\n"
    "megatron-lm-2023 (Megatron-LM's own defaults of 2023: FlashAttention-2, no TP or DP overlap),\n"
    "pytorch-fsdp (FSDP1: Accelerate, Lightning), pytorch-fsdp2 (fully_shard: torchtitan, OLMo-core;\n"
    "its copy-out after each gather and copy-in before each reduction run on the compute stream),\n"
    "hf-deepspeed, llm-foundry-2023, jax-xla (MaxText, Paxml: full remat unless --recompute),\n"
    "meta-llama3 (Llama 3's own stack: pytorch-fsdp's kernels, FSDP without reshard, interleaved PP),\n"
    "nemo-launcher-2024 (NeMo-Framework-Launcher with the 24.01-24.05 containers: FlashAttention-2),\n"
    "jax-xla-2023 (JAX containers before 24.04: unfused attention, layer gathers not pipelined).\n"
    "A stack runs only the parallelism it has (hf-deepspeed and llm-foundry-2023: data parallel only;\n"
    "nemo-megatron-2022 and megatron-deepspeed: TP and PP): the default layout drops the rest.\n"
    "--remat-policy names a JAX remat policy (MaxText remat_policy: " EST_REMAT_POLICIES "):\n"
    "full recompute that keeps the GEMM outputs the policy names; the backward re-runs the rest.\n"
    "--compile true runs the model's blocks under torch.compile (torchtitan training.compile):\n"
    "where the stack states it, Inductor's fused pointwise kernels replace eager code's passes\n"
    "(data/stacks.csv compiled_elementwise_units, compiled_fp8_cast_bytes).\n"
    "example: autoconfig estimate search_config=llama/llama3_70b --tp 4 --pp 4 --vp 5 --mbs 1\n";

static int flag_int(const cli_opts *o, const char *name, int dflt, int lo, int hi, int *out, ac_err *e)
{
    const char *v = cli_flag_value(o, name);
    if (!v) { *out = dflt; return 0; }
    char *end;
    long x = strtol(v, &end, 10);
    if (!*v || *end || x < lo || x > hi)
        return ac_err_at(e, AC_E_INPUT, "command line", 0, 0, name, "expects an integer in [%d, %d], got '%s'", lo, hi, v);
    *out = (int)x;
    return 0;
}

/* --name true|false; absent leaves *out as it is */
static int flag_bool(const cli_opts *o, const char *name, bool *out, ac_err *e)
{
    const char *v = cli_flag_value(o, name);
    if (!v) return 0;
    if (!strcmp(v, "true")) *out = true;
    else if (!strcmp(v, "false")) *out = false;
    else return ac_err_at(e, AC_E_INPUT, "command line", 0, 0, name, "expects true or false, got '%s'", v);
    return 0;
}

static void print_breakdown(FILE *out, const est_input *in, const est_result *r)
{
    double G = EST_GIB;
    fprintf(out, "Predicted (analytical estimator, no measurement)\n");
    /* a node other than the catalog's changes what NVLink reaches (HGX-style boards; an NVL72
     * rack's domain is the rack whatever the host count): say so */
    char per_node[64] = "";
    if (in->gpus_per_node > 0 && in->gpus_per_node != in->gpu->gpus_per_node && in->gpu->nvlink_domain <= in->gpu->gpus_per_node)
        snprintf(per_node, sizeof per_node, " (%d per node)", in->gpus_per_node);
    if (in->node_network_gbps > 0) {
        size_t n = strlen(per_node);
        snprintf(per_node + n, sizeof per_node - n, " (%.0f Gb/s a node)", in->node_network_gbps);
    }
    fprintf(out, "  layout      TP %d  PP %d  VP %d  CP %d  EP %d  DP %d  on %d x %s%s  MBS %d  GBS %d  (%d micro-batches)\n",
            in->tp, in->pp, in->vp, in->cp, in->ep, in->num_gpus / (in->tp * in->pp * in->cp), in->num_gpus,
            in->gpu->name, per_node, in->mbs, in->gbs, r->num_microbatches);
    if (in->pp > 1) {
        double first, largest, last;
        est_stage_layers(in, &first, &largest, &last);
        fprintf(out, "  stages      %s split: %g layers on the first stage, %g on the largest, %g on the last\n",
                est_pp_layout_name(in->pp_layout), first, largest, last);
    }
    char modules[80];
    est_recompute_text(in, modules, sizeof modules);
    char label[100];
    if (in->recompute == RECOMPUTE_FULL || !modules[0]) snprintf(label, sizeof label, "%s", modules[0] ? modules : "none");
    else snprintf(label, sizeof label, "selective (%s)", modules);
    fprintf(out, "  stack       %s\n", in->stack ? in->stack->name : "megatron-core");
    /* FP8's scaling, as --precision named it */
    const char *prec = in->fp8_block_scaled ? "mxfp8" : in->fp8_current_scaling ? "fp8-cs" : est_precision_name(in->precision);
    fprintf(out, "  switches    sequence parallel %s, recompute %s, ZeRO stage %d, %s\n",
            in->sequence_parallel ? "on" : "off", label, in->zero_stage, prec);
    if (in->torch_compile) fprintf(out, "              torch.compile on\n");
    if (in->moe_a2a_overlap || in->cuda_graphs || in->offload_act_layers)
        fprintf(out, "              MoE all-to-all overlap %s, CUDA graphs %s, activation offload %d layers\n",
                in->moe_a2a_overlap ? "on" : "off", in->cuda_graphs ? "on" : "off", in->offload_act_layers);
    fprintf(out, "Memory per GPU (%s pipeline stage)           GiB\n", est_stage_name(r->mem_peak_stage));
    const char *weights_label = est_fp32_master(in) ? "weights (fp32 master)"
                              : in->fp8_param_gather ? "weights (fp8 layers)"
                              : in->precision == PREC_FP8 ? "weights (+ cached fp8 copies)" : "weights";
    fprintf(out, "  %-41s%8.2f\n", weights_label, r->mem_weights / G);
    fprintf(out, "  %-41s%8.2f\n", in->grad_bytes == 2.0 ? "gradients (bf16)" : "gradients (fp32)", r->mem_grads / G);
    fprintf(out, "  optimizer states                         %8.2f\n", r->mem_optimizer / G);
    fprintf(out, "  activations (%.1f micro-batches in flight) %8.2f\n", r->inflight_microbatches, r->mem_activations / G);
    fprintf(out, "  logits                                   %8.2f\n", r->mem_logits / G);
    fprintf(out, "  communication buffers                    %8.2f\n", r->mem_comm_buffers / G);
    fprintf(out, "  allowance (CUDA context, fragmentation)  %8.2f\n", r->mem_allowance / G);
    fprintf(out, "  total                                    %8.2f of %.2f usable -> %s\n", r->mem_total / G,
            r->mem_limit / G, r->fits ? "fits" : "DOES NOT FIT");
    fprintf(out, "Step time                                     s\n");
    fprintf(out, "  compute forward                          %8.3f\n", r->t_compute_fwd);
    fprintf(out, "  compute backward                         %8.3f\n", r->t_compute_bwd);
    fprintf(out, "  recompute                                %8.3f\n", r->t_recompute);
    fprintf(out, "  TP collectives (exposed)                 %8.3f\n", r->t_tp_comm);
    fprintf(out, "  CP ring exchange (exposed)               %8.3f\n", r->t_cp_comm);
    fprintf(out, "  EP all-to-all                            %8.3f\n", r->t_ep_comm);
    if (r->t_moe_host > 0) fprintf(out, "  MoE expert launches (host)               %8.3f\n", r->t_moe_host);
    if (in->offload_act_layers > 0) fprintf(out, "  activation offload (exposed)             %8.3f\n", r->t_act_offload);
    fprintf(out, "  pipeline bubble                          %8.3f\n", r->t_pp_bubble);
    fprintf(out, "  pipeline send/recv                       %8.3f\n", r->t_pp_p2p);
    fprintf(out, "  data parallel (%.3f s, exposed)          %8.3f\n", r->t_dp_comm, r->t_dp_exposed);
    fprintf(out, "  optimizer step                           %8.3f\n", r->t_optimizer);
    fprintf(out, "  fixed overhead                           %8.3f\n", r->t_overhead);
    fprintf(out, "  step                                     %8.3f\n", r->step_time);
    if (r->band_rows > 0) {
        /* whose runs the band comes from: this stack on this GPU, on all GPUs, or every stack's */
        const char *stack = in->stack ? in->stack->name : "megatron-core";
        char whose[160];
        est_band_source src = est_band_source_of(in->gpu, in->stack);
        if (src == EST_BAND_OWN) snprintf(whose, sizeof whose, "of %s on %s", stack, in->gpu->name);
        else if (src == EST_BAND_STACK)
            snprintf(whose, sizeof whose, "of %s on all GPUs (fewer than %d on %s)", stack, EST_BAND_MIN_ROWS, in->gpu->name);
        else snprintf(whose, sizeof whose, "of every stack (fewer than %d of %s)", EST_BAND_MIN_ROWS, stack);
        fprintf(out, "  band      +-%.0f%% step, +-%.0f%% memory: %.3f-%.3f s (80%% of the %d validated runs %s lie "
                     "within; data/bands.csv)\n",
                100.0 * r->band_time_rel, 100.0 * r->band_mem_rel, r->step_time * (1.0 - r->band_time_rel),
                r->step_time * (1.0 + r->band_time_rel), r->band_rows, whose);
    }
    fprintf(out, "Throughput: %.0f tokens/s (%.0f per GPU), %.2f samples/s, %.1f model TFLOP/s per GPU, MFU %.1f%%\n",
            r->tokens_per_s, r->tokens_per_s_per_gpu, r->samples_per_s, r->tflops_per_gpu, 100.0 * r->mfu);
    if (r->days_to_train > 0)
        fprintf(out, "Training %.0fB tokens: %.1f days, $%.0f at $%.2f per GPU-hour\n", in->num_tokens_b, r->days_to_train,
                r->cost_usd, in->price_per_gpu_hour > 0 ? in->price_per_gpu_hour : in->gpu->price_per_hour);
}

void cli_estimate_json(json_writer *w, const est_input *in, const est_result *r)
{
    double G = EST_GIB;
    json_str(w, "source", "predicted");
    json_str(w, "gpu", in->gpu->name);
    json_int(w, "num_gpus", in->num_gpus);
    json_int(w, "tp", in->tp); json_int(w, "pp", in->pp); json_int(w, "vp", in->vp);
    json_int(w, "cp", in->cp); json_int(w, "ep", in->ep);
    json_str(w, "pp_layout", est_pp_layout_name(in->pp_layout));
    {
        double first, largest, last;
        est_stage_layers(in, &first, &largest, &last);
        json_num(w, "layers_first_stage", first); json_num(w, "layers_largest_stage", largest);
        json_num(w, "layers_last_stage", last);
    }
    json_int(w, "dp", in->num_gpus / (in->tp * in->pp * in->cp));
    json_int(w, "mbs", in->mbs); json_int(w, "gbs", in->gbs);
    json_int(w, "num_microbatches", r->num_microbatches);
    json_bool(w, "sequence_parallel", in->sequence_parallel);
    json_bool(w, "moe_a2a_overlap", in->moe_a2a_overlap);
    json_bool(w, "tp_comm_overlap", in->tp_comm_overlap);
    json_bool(w, "cuda_graphs", in->cuda_graphs);
    json_bool(w, "torch_compile", in->torch_compile);
    json_bool(w, "grad_reduce_in_fp32", in->grad_bytes != 2.0);
    json_bool(w, "fp8_param_gather", in->fp8_param_gather);
    json_int(w, "offload_act_layers", in->offload_act_layers);
    json_str(w, "recompute", est_recompute_name(in->recompute));
    char modules[80];
    est_recompute_text(in, modules, sizeof modules);
    json_str(w, "recompute_modules", modules);
    json_int(w, "zero_stage", in->zero_stage);
    json_str(w, "precision", est_precision_name(in->precision));
    json_str(w, "framework", in->stack ? in->stack->name : "megatron-core");
    json_obj_open(w, "memory_gib");
    json_num(w, "weights", r->mem_weights / G);
    json_num(w, "grads", r->mem_grads / G);
    json_num(w, "optimizer", r->mem_optimizer / G);
    json_num(w, "activations", r->mem_activations / G);
    json_num(w, "logits", r->mem_logits / G);
    json_num(w, "comm_buffers", r->mem_comm_buffers / G);
    json_num(w, "allowance", r->mem_allowance / G);
    json_num(w, "total", r->mem_total / G);
    json_num(w, "limit", r->mem_limit / G);
    json_str(w, "peak_stage", est_stage_name(r->mem_peak_stage));
    json_obj_close(w);
    json_bool(w, "fits", r->fits);
    json_obj_open(w, "time_s");
    json_num(w, "compute_fwd", r->t_compute_fwd);
    json_num(w, "compute_bwd", r->t_compute_bwd);
    json_num(w, "recompute", r->t_recompute);
    json_num(w, "tp_comm", r->t_tp_comm);
    json_num(w, "cp_comm", r->t_cp_comm);
    json_num(w, "ep_comm", r->t_ep_comm);
    json_num(w, "moe_host", r->t_moe_host);
    json_num(w, "act_offload", r->t_act_offload);
    json_num(w, "pp_bubble", r->t_pp_bubble);
    json_num(w, "pp_p2p", r->t_pp_p2p);
    json_num(w, "dp_comm", r->t_dp_comm);
    json_num(w, "dp_exposed", r->t_dp_exposed);
    json_num(w, "optimizer", r->t_optimizer);
    json_num(w, "overhead", r->t_overhead);
    json_num(w, "step", r->step_time);
    json_obj_close(w);
    json_num(w, "tokens_per_s", r->tokens_per_s);
    json_num(w, "tokens_per_s_per_gpu", r->tokens_per_s_per_gpu);
    json_num(w, "samples_per_s", r->samples_per_s);
    json_num(w, "model_flops_per_step", r->model_flops_per_step);
    json_num(w, "tflops_per_gpu", r->tflops_per_gpu);
    json_num(w, "mfu", r->mfu);
    json_num(w, "params_b", r->params_b);
    json_obj_open(w, "band");
    json_num(w, "time_rel", r->band_time_rel);
    json_num(w, "mem_rel", r->band_mem_rel);
    json_int(w, "rows", r->band_rows);
    json_num(w, "step_s_low", r->step_time * (1.0 - r->band_time_rel));
    json_num(w, "step_s_high", r->step_time * (1.0 + r->band_time_rel));
    json_num(w, "mem_gib_high", r->mem_total * (1.0 + r->band_mem_rel) / G);
    json_obj_close(w);
    if (r->days_to_train > 0) {
        json_num(w, "days_to_train", r->days_to_train);
        json_num(w, "cost_usd", r->cost_usd);
    }
}

/* --recompute-modules core_attn,layernorm,moe_act,mla_up_proj (Megatron-Core recompute_modules) */
static int parse_recompute_modules(const char *list, est_input *in, ac_err *e)
{
    if (!list) return 0;
    static const char *const names[] = {"core_attn", "layernorm", "moe_act", "mla_up_proj"};
    const char *p = list;
    while (*p) {
        size_t n = strcspn(p, ",");
        char word[32];
        if (n == 0 || n >= sizeof word)
            return ac_err_at(e, AC_E_INPUT, "command line", 0, 0, "--recompute-modules",
                             "expects a comma-separated list of core_attn, layernorm, moe_act, mla_up_proj, got '%s'", list);
        memcpy(word, p, n);
        word[n] = '\0';
        size_t which = 0, count = sizeof names / sizeof *names;
        while (which < count && strcmp(word, names[which])) which++;
        if (which == count) {
            text_nearest near;
            text_nearest_init(&near, 3);
            for (size_t i = 0; i < count; i++) text_nearest_offer(&near, word, names[i]);
            if (near.best)
                return ac_err_at(e, AC_E_INPUT, "command line", 0, 0, "--recompute-modules",
                                 "unknown module '%s' (did you mean %s?); known: core_attn, layernorm, moe_act, mla_up_proj",
                                 word, near.best);
            return ac_err_at(e, AC_E_INPUT, "command line", 0, 0, "--recompute-modules",
                             "unknown module '%s'; known: core_attn, layernorm, moe_act, mla_up_proj", word);
        }
        switch (which) {
        case 0:
            if (in->recompute == RECOMPUTE_FULL)
                return ac_err_at(e, AC_E_INPUT, "command line", 0, 0, "--recompute-modules",
                                 "core_attn is selective recompute, but full recompute was asked for (--recompute full or --remat-policy)");
            in->recompute = RECOMPUTE_SELECTIVE;
            break;
        case 1: in->recompute_layernorm = true; break;
        case 2: in->recompute_moe_act = true; break;
        default: in->recompute_mla_up_proj = true; break;
        }
        p += n;
        if (*p == ',') p++;
    }
    return 0;
}

int cmd_estimate(int argc, char **argv)
{
    cli_opts o;
    ac_err e;
    static const char *const known[] = {"--hf-config=", "--model=", "--tp=", "--pp=", "--vp=", "--cp=", "--ep=", "--mbs=", "--gbs=", "--recompute=",
                                        "--recompute-layers=", "--sp=", "--zero=", "--precision=", "--a2a-overlap=",
                                        "--cuda-graphs=", "--tp-overlap=", "--offload-act-layers=", "--grad-reduce-in-fp32=",
                                        "--fp8-param-gather=", "--recompute-modules=", "--pp-layout=", "--framework=", "--compile=",
                                        "--remat-policy=", NULL};
    ac_config c;
    int started = cli_start(argc, argv, known, ESTIMATE_HELP, &o, &c, &e);
    if (started != CLI_GO) return started == CLI_HELPED ? 0 : cli_fail(&e);
    int rc = 0;
    model_size_report rep;
    model_base_config b = {0};
    double size_b;
    est_input in;
    est_result r;
    int gbs_max = 1 << 24;
    if (cli_model_stage(&c, CLI_MODEL_PREDICT, &rep, &size_b, &b, &e) ||
        candidate_est_base(&c, &b, &in, &e)) {
        rc = cli_fail(&e);
        goto out;
    }
    const char *fw = cli_flag_value(&o, "--framework");
    if (fw) {
        const est_stack *st = candidate_stack_named(fw, "command line", 0, "--framework", &e);
        if (!st) {
            rc = cli_fail(&e);
            goto out;
        }
        est_stack_apply(&in, st);
    }
    int zero = in.zero_stage;
    /* the base config's TP and PP where the stack runs them (hf-deepspeed, say, runs neither) */
    int tp_default = est_stack_runs(in.stack, EST_PAR_TP) ? b.tp : 1;
    int pp_default = est_stack_runs(in.stack, EST_PAR_PP) ? b.pp : 1;
    /* and no wider than a node, where NVLink ends (a base config's TP 8 on GH200's 4-GPU nodes) */
    while (tp_default > in.gpus_per_node && tp_default % 2 == 0) tp_default /= 2;
    if (flag_int(&o, "--tp", tp_default, 1, 1024, &in.tp, &e) || flag_int(&o, "--pp", pp_default, 1, 1024, &in.pp, &e) ||
        flag_int(&o, "--vp", 1, 1, 1024, &in.vp, &e) || flag_int(&o, "--cp", 1, 1, 1024, &in.cp, &e) ||
        flag_int(&o, "--ep", 1, 1, 1024, &in.ep, &e) || flag_int(&o, "--mbs", 1, 1, 65536, &in.mbs, &e) ||
        flag_int(&o, "--gbs", b.gbs, 1, gbs_max, &in.gbs, &e) || flag_int(&o, "--zero", zero, 0, 3, &in.zero_stage, &e) ||
        flag_int(&o, "--recompute-layers", 0, 0, 100000, &in.recompute_layers, &e) ||
        flag_int(&o, "--offload-act-layers", in.offload_act_layers, 0, 100000, &in.offload_act_layers, &e)) {
        rc = cli_fail(&e);
        goto out;
    }
    in.sequence_parallel = est_stack_sequence_parallel(in.stack, in.tp);
    if (flag_bool(&o, "--sp", &in.sequence_parallel, &e) || flag_bool(&o, "--a2a-overlap", &in.moe_a2a_overlap, &e) ||
        flag_bool(&o, "--cuda-graphs", &in.cuda_graphs, &e) || flag_bool(&o, "--tp-overlap", &in.tp_comm_overlap, &e) || flag_bool(&o, "--fp8-param-gather", &in.fp8_param_gather, &e) ||
        flag_bool(&o, "--compile", &in.torch_compile, &e)) {
        rc = cli_fail(&e);
        goto out;
    }
    bool grad_fp32 = in.grad_bytes != 2.0;
    if (flag_bool(&o, "--grad-reduce-in-fp32", &grad_fp32, &e)) {
        rc = cli_fail(&e);
        goto out;
    }
    in.grad_bytes = grad_fp32 ? 4.0 : 2.0;
    const char *rcmp = cli_flag_value(&o, "--recompute");
    if (rcmp && est_recompute_parse(rcmp, &in.recompute)) {
        ac_err_at(&e, AC_E_INPUT, "command line", 0, 0, "--recompute", "expects none, selective or full, got '%s'", rcmp);
        rc = cli_fail(&e);
        goto out;
    }
    if (in.recompute_layers > 0 && in.recompute != RECOMPUTE_FULL) {
        ac_err_at(&e, AC_E_INPUT, "command line", 0, 0, "--recompute-layers",
                  "counts the layers of full recompute: add --recompute full");
        rc = cli_fail(&e);
        goto out;
    }
    /* a JAX remat policy is full recompute keeping the GEMM outputs it names, on a stack that has
     * them (checked once --framework has picked the stack) */
    const char *remat = cli_flag_value(&o, "--remat-policy");
    if (remat && candidate_remat_parse(remat, "command line", 0, "--remat-policy", &in.remat_saves, &e)) {
        rc = cli_fail(&e);
        goto out;
    }
    if (candidate_remat_check(&c, &in, remat, &e)) {
        rc = cli_fail(&e);
        goto out;
    }
    if (remat && rcmp && in.recompute != RECOMPUTE_FULL) {
        ac_err_at(&e, AC_E_INPUT, "command line", 0, 0, "--remat-policy", "is a policy of full recompute, but --recompute %s was asked for",
                  rcmp);
        rc = cli_fail(&e);
        goto out;
    }
    if (remat) in.recompute = RECOMPUTE_FULL;
    if (parse_recompute_modules(cli_flag_value(&o, "--recompute-modules"), &in, &e)) {
        rc = cli_fail(&e);
        goto out;
    }
    const char *layout = cli_flag_value(&o, "--pp-layout");
    if (layout) {
        if (est_pp_layout_parse(layout, &in.pp_layout)) {
            ac_err_at(&e, AC_E_INPUT, "command line", 0, 0, "--pp-layout",
                      "expects " EST_PP_LAYOUT_CHOICES ", got '%s'", layout);
            rc = cli_fail(&e);
            goto out;
        }
        in.allow_uneven_pp = true; /* a layout exists to split layers PP does not divide */
    }
    const char *prec = cli_flag_value(&o, "--precision");
    if (prec && est_precision_parse(prec, &in.precision)) {
        ac_err_at(&e, AC_E_INPUT, "command line", 0, 0, "--precision", "unknown precision '%s' (bf16, fp16, fp8, mxfp8, fp4, fp32)", prec);
        rc = cli_fail(&e);
        goto out;
    }
    if (prec) in.fp8_block_scaled = in.precision == PREC_FP8 && text_find_ci(prec, "mx"); /* MXFP8: row- and column-wise copies */
    if (prec) in.fp8_current_scaling = in.precision == PREC_FP8 && !in.fp8_block_scaled && text_find_ci(prec, "cs"); /* fp8-cs */
    /* MX block scaling is a Blackwell tensor-core format (OCP MX, sm_100+): Hopper runs FP8 with
     * tensor-wise scales, as `run` says when it refuses MXFP8 there */
    if (in.fp8_block_scaled && in.gpu && in.gpu->sm_arch < 100) {
        ac_err_at(&e, AC_E_INPUT, "command line", 0, 0, "--precision",
                  "%s: MXFP8 needs Blackwell's MX tensor cores; %s runs fp8 (delayed scaling) or fp8-cs", prec,
                  in.gpu->name);
        rc = cli_fail(&e);
        goto out;
    }
    /* the cluster's fitted constants (autoconfig calibrate), as the search uses them */
    est_cal cal;
    bool cal_loaded = false;
    char cal_path[CFG_PATH_MAX + 200] = "";
    if (candidate_cal_load(&c, &cal, &cal_loaded, &e) || candidate_cal_path(&c, cal_path, sizeof cal_path, &e)) {
        rc = cli_fail(&e);
        goto out;
    }
    if (cal_loaded) in.cal = &cal;
    if (est_evaluate(&in, &r)) {
        ac_err_at(&e, AC_E_INPUT, "command line", 0, 0, NULL, "invalid candidate: %s", r.why);
        rc = cli_fail(&e);
        goto out;
    }
    if (o.json) {
        json_writer w;
        json_begin(&w, stdout);
        json_obj_open(&w, NULL);
        json_str(&w, "model", b.run_name);
        if (cal_loaded) json_str(&w, "calibration", cal_path); else json_null(&w, "calibration");
        cli_estimate_json(&w, &in, &r);
        json_obj_close(&w);
        json_end(&w);
    } else {
        /* what the GPUs hold: multi-token prediction modules too, which published sizes
         * (DeepSeek-V3 671 B, `autoconfig models`) leave out */
        char mtp[48] = "";
        if (b.shape.mtp_layers > 0) snprintf(mtp, sizeof mtp, " with %d MTP layer%s", b.shape.mtp_layers, b.shape.mtp_layers > 1 ? "s" : "");
        fprintf(stdout, "%s (%.2fB parameters%s, %d layers, hidden %d, seq %d)\n", b.run_name, r.params_b, mtp,
                b.shape.num_layers, b.shape.hidden, b.shape.seq_length);
        if (cal_loaded) fprintf(stdout, "Estimator calibrated for this cluster by %s (autoconfig calibrate)\n", cal_path);
        print_breakdown(stdout, &in, &r);
    }
out:
    model_base_config_free(&b);
    cfg_free(&c);
    cli_opts_free(&o);
    return rc;
}

static const char VALIDATE_HELP[] =
    "usage: autoconfig validate --csv FILE [--out FILE] [--html FILE] [--bands FILE [--bands-also FILE]] [--infer]\n"
    "                           [--calibration FILE] [--json]\n"
    "\n"
    "Predicts every row of a CSV of published measurements with the estimator and\n"
    "compares: training rows (columns of benchmarks_train.csv) on step time, or on\n"
    "tokens/s where no step time is published; with --infer, inference rows (columns\n"
    "of benchmarks_infer.csv) on latency, else throughput. Cells are read as tables\n"
    "write them (precision and ZeRO/FSDP spellings, y/n, recompute in the notes, the\n"
    "row's FLOP formula); a row that only names its model takes the shape from the\n"
    "name (data/models.csv, the presets); a row without MBS or TP/PP (a table of its\n"
    "best run) is read at the fastest layout predicted to fit, counted on its own line.\n"
    "Rows the estimator cannot model are skipped and counted by reason. Prints a\n"
    "per-source table, then\n"
    "  rows N skipped M median_abs_err X% p90_abs_err Y%\n"
    "--out writes the per-row predictions as CSV; --html draws them (error histogram by\n"
    "source, every run by model, the rows furthest off) as one self-contained page.\n"
    "--bands writes the uncertainty bands per GPU and stack (80th percentile of |step-time\n"
    "error|; memory: how far runs that ran are over-predicted) in data/bands.csv's columns;\n"
    "--bands-also FILE adds another table's rows to them (the project's own published table:\n"
    "stacks and GPUs the first does not run), without printing its summary.\n";

/* --bands-also: a second table's per-row predictions appended to *rows (its header dropped: both
 * are validate_train_csv's rows), its own summary not printed */
static int validate_rows_also(const char *path, const est_cal *cal, char **rows, char **also_rows, ac_err *e)
{
    validate_summary sum;
    if (validate_train_csv(path, NULL, also_rows, cal, NULL, false, &sum, e)) return -1;
    const char *body = strchr(*also_rows, '\n');
    body = body ? body + 1 : "";
    size_t a = strlen(*rows), b = strlen(body);
    char *both = realloc(*rows, a + b + 1);
    if (!both) return ac_err_set(e, AC_E_NOMEM, "out of memory");
    memcpy(both + a, body, b + 1);
    *rows = both;
    return 0;
}

/* the picture of a validation run (results/validate_page.h), written atomically */
static int write_validate_page(const char *path, const char *csv, const char *rows, const validate_summary *sum,
                               ac_err *e)
{
    validate_page_info info = {.title = csv, .median_abs_err = sum->median_abs_err, .p90_abs_err = sum->p90_abs_err};
    char *page = validate_page_html(rows, strlen(rows), &info, e);
    if (!page) return -1;
    int rc = fs_write_atomic(path, page, strlen(page), e);
    free(page);
    if (!rc) fprintf(stderr, "validate: wrote %s\n", path);
    return rc;
}

int cmd_validate(int argc, char **argv)
{
    cli_opts o;
    ac_err e;
    static const char *const known[] = {"--csv=", "--out=", "--html=", "--infer", "--calibration=", "--bands=", "--bands-also=", NULL};
    if (cli_parse(argc, argv, &o, &e) || cli_check_flags(&o, known, &e)) { cli_opts_free(&o); return cli_fail(&e); }
    if (o.help) { fputs(VALIDATE_HELP, stdout); cli_opts_free(&o); return 0; }
    const char *html = cli_flag_value(&o, "--html");
    int rc = 0;
    const char *csv = cli_flag_value(&o, "--csv");
    if (!csv) {
        ac_err_at(&e, AC_E_INPUT, "command line", 0, 0, "--csv", "missing: validate needs --csv FILE");
        rc = cli_fail(&e);
    } else if (o.n_overrides) {
        ac_err_at(&e, AC_E_INPUT, "command line", 0, 0, o.overrides[0], "validate takes no config overrides");
        rc = cli_fail(&e);
    } else if (cli_flag_value(&o, "--bands-also") && !cli_flag_value(&o, "--bands")) {
        ac_err_at(&e, AC_E_INPUT, "command line", 0, 0, "--bands-also", "adds a table's rows to the bands: it needs --bands FILE");
        rc = cli_fail(&e);
    } else if (cli_flag_present(&o, "--infer") && (cli_flag_value(&o, "--calibration") || cli_flag_value(&o, "--bands"))) {
        /* the serving model reads the compiled-in calibration; bands are the training estimator's */
        ac_err_at(&e, AC_E_INPUT, "command line", 0, 0, cli_flag_value(&o, "--calibration") ? "--calibration" : "--bands",
                  "applies to training validation only, not with --infer");
        rc = cli_fail(&e);
    } else if (cli_flag_present(&o, "--infer")) {
        char *rows = NULL;
        validate_summary from_rows = {.median_abs_err = NAN, .p90_abs_err = NAN}; /* the page computes them */
        if (infer_validate_csv(csv, cli_flag_value(&o, "--out"), html ? &rows : NULL, stdout, o.json, &e) ||
            (html && write_validate_page(html, csv, rows, &from_rows, &e)))
            rc = cli_fail(&e);
        free(rows);
    } else {
        est_cal cal;
        validate_summary sum;
        char *rows = NULL, *bands = NULL;
        const char *calf = cli_flag_value(&o, "--calibration"), *bandf = cli_flag_value(&o, "--bands");
        const char *also = cli_flag_value(&o, "--bands-also");
        char *also_rows = NULL;
        if (est_cal_default(&cal, &e) || (calf && est_cal_load_file(calf, &cal, &e)) ||
            validate_train_csv(csv, cli_flag_value(&o, "--out"), html || bandf ? &rows : NULL, &cal, stdout, o.json, &sum, &e) ||
            (html && write_validate_page(html, csv, rows, &sum, &e)) ||
            (also && validate_rows_also(also, &cal, &rows, &also_rows, &e)) ||
            (bandf && (validate_bands_csv(rows, &bands, &e) || fs_write_atomic(bandf, bands, strlen(bands), &e))))
            rc = cli_fail(&e);
        free(rows);
        free(also_rows);
        free(bands);
    }
    cli_opts_free(&o);
    return rc;
}
