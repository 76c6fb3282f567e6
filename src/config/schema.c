/* schema.c — the configuration schema table and the generic code that uses it.
 * Keys and defaults follow the original AutoConfigurator (conf/config.yaml,
 * conf/cluster/bcm.yaml, conf/search_config/<family>/<size>.yaml); rows marked
 * "extension" are ours and their defaults reproduce the original's behaviour. */
#include "config/schema.h"
#include "util/text.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/yaml_io.h"
#include "util/json.h"

#define OFF(field) offsetof(ac_config, field)
#define SZ(field) sizeof(((ac_config *)0)->field)
#define S(field) OFF(field), SZ(field)
#define NONE SCHEMA_NOWHERE, 0
#define TS "search_config.train_settings."
#define IR "search_config.inference_settings.run."
#define IB "search_config.inference_settings.benchmark."
#define IS "search_config.inference_settings."
#define NB 1, 0 /* no bounds */
#define CS "search_config.cost_settings."

const schema_entry SCHEMA[] = {
    /* ---- conf/config.yaml ---- */
    { "defaults", ST_FREE, NONE, NULL, NB, NULL, 0, "Hydra defaults list: _self_, cluster: <file>, search_config: <family>/<size>" },
    { "hydra", ST_FREE, NONE, NULL, NB, NULL, 0, "Hydra settings (accepted, not used)" },
    { "run_training_hp_search", ST_BOOL, S(run_training_hp_search), "true", NB, NULL, 0, "Run the training HP search after the base config" },
    { "run_inference_hp_search", ST_BOOL, S(run_inference_hp_search), "true", NB, NULL, 0, "Run the inference HP search (families with inference_settings)" },
    { "run_cost_search", ST_BOOL, S(run_cost_search), "false", NB, NULL, 0, "extension: run the cost stage (GPU type, ZeRO, offload, $ per million tokens) in `run`" },
    { "cluster_type", ST_ENUM, S(cluster_type), "sim", NB, "sim|bcm|bcp|local", 0, "sim: estimator only, no cluster (default); bcm: Slurm; local: processes on this machine; bcp (Base Command Platform) is refused: not supported" },
    { "auto_configurator_path", ST_STR, S(auto_configurator_path), ".", NB, NULL, SF_PATH, "Root of this tool; other paths are relative to it" },
    { "launcher_scripts_path", ST_STR, S(launcher_scripts_path), "${auto_configurator_path}/../launcher_scripts", NB, NULL, SF_PATH, "NeMo launcher scripts (Slurm runs)" },
    { "base_results_dir", ST_STR, S(base_results_dir), "${auto_configurator_path}/results", NB, NULL, SF_PATH, "Where every search writes its logs directory" },
    { "data_dir", ST_STR, S(data_dir), "${launcher_scripts_path}/data", NB, NULL, SF_PATH, "Training data and tokenizer files" },
    { "training_container", ST_STR, S(training_container), "nvcr.io/nvidia/nemo:24.09", NB, NULL, SF_NULLABLE, "Container image of every job (srun --container-image, pyxis); cluster.container_image overrides it; null = jobs run on the host" },
    { "container_mounts", ST_STR_LIST, S(container_mounts), "[null]", NB, NULL, SF_NULLABLE, "Extra container mounts a:b (null = none)" },
    { "env_vars", ST_FREE, NONE, NULL, NB, NULL, 0, "Environment of every training job, NAME: value (null unsets); over the NeMo launcher's defaults TRANSFORMERS_OFFLINE=0, TORCH_NCCL_AVOID_RECORD_STREAMS=1, NCCL_NVLS_ENABLE=0" },
    { "wandb", ST_SECTION, NONE, NULL, NB, NULL, 0, "Weights & Biases" },
    { "wandb.enable", ST_BOOL, S(wandb_enable), "false", NB, NULL, 0, "Add the W&B logger to generated configs" },
    { "wandb.api_key_file", ST_STR, S(wandb_api_key_file), "null", NB, NULL, SF_NULLABLE | SF_PATH, "File holding the W&B API key (its content is never copied)" },
    { "wandb.project", ST_STR, S(wandb_project), "nemo-megatron-autoconfig", NB, NULL, 0, "W&B project name" },
    { "search_config_value", ST_STR, S(search_config_value), NULL, NB, NULL, 0, "The chosen search config, e.g. gpt3/5b (set by the loader)" },

    /* ---- conf/cluster/<name>.yaml ---- */
    { "cluster", ST_SECTION, NONE, NULL, NB, NULL, 0, "Slurm settings (conf/cluster/bcm.yaml)" },
    { "cluster.partition", ST_STR, S(cluster.partition), "null", NB, NULL, SF_NULLABLE, "Slurm partition (null = the cluster default)" },
    { "cluster.account", ST_STR, S(cluster.account), "null", NB, NULL, SF_NULLABLE, "Slurm account" },
    { "cluster.exclusive", ST_BOOL, S(cluster.exclusive), "true", NB, NULL, 0, "Request whole nodes" },
    { "cluster.gpus_per_task", ST_INT, S(cluster.gpus_per_task), "null", 0, 64, NULL, SF_NULLABLE, "--gpus-per-task (null = unset)" },
    { "cluster.gpus_per_node", ST_INT, S(cluster.gpus_per_node), "8", 1, 64, NULL, SF_NULLABLE, "--gpus-per-node" },
    { "cluster.mem", ST_INT, S(cluster.mem), "0", 0, 1e9, NULL, SF_NULLABLE, "--mem in MB (0 = all of the node)" },
    { "cluster.job_name_prefix", ST_STR, S(cluster.job_name_prefix), "\"nemo_megatron_autoconfig:\"", NB, NULL, 0, "Prefix of every Slurm job name" },
    { "cluster.srun_args", ST_STR_LIST, S(cluster.srun_args), "[--no-container-mount-home]", NB, NULL, SF_NULLABLE, "Extra srun arguments" },
    { "cluster.nodelist", ST_STR, S(cluster.nodelist), "null", NB, NULL, SF_NULLABLE, "--nodelist (extension from the later launcher)" },
    { "cluster.container_image", ST_STR, S(cluster.container_image), "null", NB, NULL, SF_NULLABLE, "Override of training_container for Slurm jobs (extension)" },

    /* ---- conf/search_config/<family>/<size>.yaml: train_settings ---- */
    { "search_config", ST_SECTION, NONE, NULL, NB, NULL, 0, "The chosen search config file" },
    { "search_config.train_settings", ST_SECTION, NONE, NULL, NB, NULL, 0, "Training search settings" },
    { TS "model_size_in_b", ST_FLOAT, S(train.model_size_in_b), "null", 0.001, 5000, NULL, SF_NULLABLE, "Model size in billions of parameters; null = recommend one from the budget" },
    { TS "num_nodes", ST_INT, S(train.num_nodes), NULL, 1, 100000, NULL, 0, "Nodes for the search and the full training run" },
    { TS "gpus_per_node", ST_INT, S(train.gpus_per_node), "8", 1, 72, NULL, 0, "GPUs per node" },
    { TS "gpu_memory_gb", ST_INT_CHOICE, S(train.gpu_memory_gb), "80", NB, "16|24|32|40|48|80|94|141|180|186|192", 0, "GPU memory in GiB, as the GPU reports it (40 or 80 for A100; must match gpu when set)" },
    { TS "max_training_days", ST_FLOAT, S(train.max_training_days), NULL, 0.01, 100000, NULL, 0, "Days the full training may take (size recommendation)" },
    { TS "limit_search_runs", ST_INT, S(train.limit_search_runs), "100", 1, 100000, NULL, 0, "Most candidates launched (best predicted first)" },
    { TS "output_top_n", ST_INT, S(train.output_top_n), "10", 1, 100000, NULL, 0, "Configs listed in the summary" },
    { TS "max_steps_per_run", ST_INT, S(train.max_steps_per_run), "50", 7, 1000000, NULL, 0, "Training steps of each search run (≥ 7: the first 5 are dropped)" },
    { TS "max_minutes_per_run", ST_INT, S(train.max_minutes_per_run), "20", 10, 100000, NULL, 0, "Time limit of each search run in minutes (≥ 10 as in the original)" },
    { TS "retry_failed", ST_BOOL, S(train.retry_failed), "false", NB, NULL, 0, "extension: launch again the runs that failed in an earlier search of this logs dir (--retry-failed); done runs are kept" },
    { TS "tflops_per_gpu", ST_FLOAT, S(train.tflops_per_gpu), "140", 0.1, 100000, NULL, 0, "Sustained TFLOP/s per GPU assumed by the size recommendation" },
    { TS "num_tokens_in_b", ST_FLOAT, S(train.num_tokens_in_b), NULL, 0.001, 1e7, NULL, 0, "Training tokens in billions" },
    { TS "vocab_size", ST_INT, S(train.vocab_size), NULL, 1, 10000000, NULL, 0, "Vocabulary size" },
    { TS "seq_length", ST_INT, S(train.seq_length), "2048", 16, 4194304, NULL, 0, "Sequence length" },
    { TS "custom_config", ST_STR, S(train.custom_config), "null", NB, NULL, SF_NULLABLE | SF_PATH, "Base config YAML to use instead of the generated one" },
    { TS "hf_config", ST_STR, S(train.hf_config), "null", NB, NULL, SF_NULLABLE | SF_PATH, "extension: Hugging Face config.json of the model to search (null = the preset's architecture); --hf-config FILE on run, estimate, infer" },
    { TS "logs", ST_STR, S(train.logs), NULL, NB, NULL, SF_PATH, "Directory of this search's results" },
    { TS "tensor_parallel_sizes", ST_INT_LIST, S(train.tensor_parallel_sizes), "auto", 1, 1024, NULL, SF_NULLABLE, "TP values to search, or auto" },
    { TS "pipeline_parallel_sizes", ST_INT_LIST, S(train.pipeline_parallel_sizes), "auto", 1, 4096, NULL, SF_NULLABLE, "PP values to search, or auto" },
    { TS "min_model_parallel_size", ST_INT_AUTO, S(train.min_model_parallel_size), "auto", 1, 1e6, NULL, SF_NULLABLE, "Smallest TP·PP searched, or auto" },
    { TS "max_model_parallel_size", ST_INT_AUTO, S(train.max_model_parallel_size), "auto", 1, 1e6, NULL, SF_NULLABLE, "Largest TP·PP searched, or auto" },
    { TS "micro_batch_sizes", ST_INT_LIST, S(train.micro_batch_sizes), "auto", 1, 65536, NULL, SF_NULLABLE, "Micro batch sizes to search, or auto" },
    { TS "act_ckpt_layers", ST_INT_LIST, S(train.act_ckpt_layers), "auto", 0, 100000, NULL, SF_NULLABLE, "Activation-checkpointed layers to search (block method), or auto" },
    { TS "override_search_num_nodes", ST_IGNORED, NONE, NULL, NB, NULL, 0, "Vestigial key of the original t5/mt5 unknown_size presets; never read" },
    { TS "model_name", ST_STR, S(train.model_name), "null", NB, NULL, SF_NULLABLE, "extension: built-in architecture (llama2_7b, llama3_70b, mixtral_8x7b, ...)" },
    { TS "gpu", ST_STR, S(train.gpu), "null", NB, NULL, SF_NULLABLE, "extension: GPU type from data/gpus.csv (null = A100 with gpu_memory_gb)" },
    { TS "framework", ST_STR, S(train.framework), "null", NB, NULL, SF_NULLABLE, "extension: training stack from data/stacks.csv, null = megatron-core (cost: Megatron-Core for TP/PP runs, hf-deepspeed otherwise) (megatron-core, nemo-launcher-2024, megatron-lm-2023, nemo-megatron-2022, megatron-deepspeed, pytorch-fsdp, pytorch-fsdp2, hf-deepspeed, llm-foundry-2023, jax-xla, jax-xla-2023, meta-llama3; aliases such as deepspeed, fsdp, torchtitan, maxtext)" },
    { TS "remat_policy", ST_STR, S(train.remat_policy), "null", NB, NULL, SF_NULLABLE, "extension: a JAX stack's remat policy for candidates that recompute in full (MaxText remat_policy: full, minimal, save_qkv_proj, save_out_proj, save_dot_except_mlp, save_dot_except_mlpwi); null = full" },
    { TS "context_parallel_sizes", ST_INT_LIST, S(train.context_parallel_sizes), "[1]", 1, 1024, NULL, SF_NULLABLE, "extension: CP values to search, or auto" },
    { TS "expert_parallel_sizes", ST_INT_LIST, S(train.expert_parallel_sizes), "[1]", 1, 1024, NULL, SF_NULLABLE, "extension: EP values to search, or auto" },
    { TS "virtual_pipeline_sizes", ST_INT_LIST, S(train.virtual_pipeline_sizes), "auto", 1, 1024, NULL, SF_NULLABLE, "extension: VP values, or auto (the original's rule)" },
    { TS "global_batch_sizes", ST_INT_LIST, S(train.global_batch_sizes), "auto", 1, 1e8, NULL, SF_NULLABLE, "extension: GBS values, or auto (the base config's)" },
    { TS "sequence_parallel", ST_TRI, S(train.sequence_parallel), "auto", NB, NULL, SF_NULLABLE, "extension: true, false or auto (as the base config)" },
    { TS "distributed_optimizer", ST_TRI, S(train.distributed_optimizer), "auto", NB, NULL, SF_NULLABLE, "extension: true, false or auto (as the base config)" },
    { TS "recompute_granularity", ST_ENUM, S(train.recompute_granularity), "auto", NB, "auto|selective|full", 0, "extension: activation recompute kind searched" },
    { TS "search_mode", ST_ENUM, S(train.search_mode), "heuristic", NB, "heuristic|exhaustive", 0, "extension: the original's grid, or every divisor and knob" },
    { TS "search_num_nodes", ST_STR, S(train.search_num_nodes), "null", NB, NULL, SF_NULLABLE, "extension, real clusters: nodes of each search run: null = num_nodes (the original's later docs), auto = the fewest whole nodes that hold one model replica (its first docs: DP 1 in most cases), or a number; measured step times are carried to num_nodes by the estimator's data-parallel scaling" },
    { TS "launch_over_memory", ST_ENUM, S(train.launch_over_memory), "borderline", NB, "never|borderline|all", 0, "extension, real clusters: also launch candidates predicted over the memory limit: never, those within the estimator's memory uncertainty (borderline, 5 %), or all" },
    { TS "rank_by", ST_ENUM, S(train.rank_by), "throughput", NB, "throughput|cost", 0, "extension: rank candidates by speed or by $ for the run" },
    { TS "precisions", ST_STR_LIST, S(train.precisions), "[auto]", NB, NULL, SF_NULLABLE, "extension: training precisions to search (bf16, fp8 on GPUs with FP8 units), or auto (the base config's); nvfp4 needs a later release than NeMo v2.0.0" },
    { TS "grad_reduce_dtype", ST_STR_LIST, S(train.grad_reduce_dtype), "[auto]", NB, NULL, SF_NULLABLE, "extension: gradient reduction types to search (fp32, bf16: model.optim.grad_sync_dtype), or auto" },
    { TS "fp8_param_gather", ST_STR_LIST, S(train.fp8_param_gather), "[auto]", NB, NULL, SF_NULLABLE, "extension: FP8 weights gathered in FP8 (model.fp8_params) to search, [false, true], or auto" },
    { TS "pipeline_layouts", ST_STR_LIST, S(train.pipeline_layouts), "[auto]", NB, NULL, SF_NULLABLE, "extension: pipeline splits to search: even, first_last (Megatron-Core 0.9 first/last_pipeline_num_layers: PP need not divide the layers, no VP), or auto (even)" },
    { TS "cuda_graphs", ST_STR_LIST, S(train.cuda_graphs), "[auto]", NB, NULL, SF_NULLABLE, "extension: CUDA graphs over transformer layers (model.enable_cuda_graph) to search, [false, true], or auto" },
    { TS "tp_comm_overlap", ST_STR_LIST, S(train.tp_comm_overlap), "[auto]", NB, NULL, SF_NULLABLE, "extension: TP communication overlap (model.ub_tp_comm_overlap, needs SP) to search, [false, true], or auto" },
    { TS "activation_offload_layers", ST_INT_LIST, S(train.activation_offload_layers), "auto", 0, 100000, NULL, SF_NULLABLE, "extension: layers whose activations go to host memory (model.cpu_offloading_num_layers, PP 1, no recompute), or auto (none)" },
    { TS "recompute_num_layers", ST_INT_LIST, S(train.recompute_num_layers), "auto", 1, 100000, NULL, SF_NULLABLE, "extension: partial full recompute to search: layers per pipeline stage (VP chunk) recomputed with the block method (model.activations_checkpoint_num_layers), or auto (none); recompute_modules needs a later Megatron-Core than NeMo v2.0.0's" },
    { TS "network_gbps", ST_FLOAT, S(train.network_gbps), "null", 1, 1e6, NULL, SF_NULLABLE, "extension: a node's scale-out bandwidth in Gb/s, all its NICs together (400 for 4 x 100 Gb/s EFA or Omni-Path, 3200 for p5's EFA); null = the GPU's DGX/HGX node in data/gpus.csv (one 200/400/800 Gb/s NIC per GPU)" },
    { TS "price_per_gpu_hour", ST_FLOAT, S(train.price_per_gpu_hour), "null", 0.0001, 1e4, NULL, SF_NULLABLE, "extension: $ per GPU-hour (null = catalog price)" },

    /* ---- cost_settings (extension: the cost stage, src/cost/cost.h) ---- */
    { "search_config.cost_settings", ST_SECTION, NONE, NULL, NB, NULL, 0, "Cost tuning settings (autoconfig cost)" },
    { CS "task", ST_ENUM, S(cost.task), "full", NB, "pretrain|full|lora", 0, "extension: pre-training, full fine-tuning or LoRA" },
    { CS "lora_rank", ST_INT, S(cost.lora_rank), "16", 1, 65536, NULL, 0, "extension: LoRA rank r" },
    { CS "lora_target_modules", ST_STR, S(cost.lora_target_modules), "q_proj,k_proj,v_proj,o_proj", NB, NULL, 0, "extension: adapted linear layers (q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj or all-linear)" },
    { CS "hf_config", ST_STR, S(cost.hf_config), "null", NB, NULL, SF_NULLABLE | SF_PATH, "extension: Hugging Face config.json of the model (null = the preset's architecture)" },
    { CS "context_length", ST_INT, S(cost.context_length), "null", 1, 1e7, NULL, SF_NULLABLE, "extension: tokens per training sequence (null = train_settings.seq_length)" },
    { CS "num_tokens_in_b", ST_FLOAT, S(cost.num_tokens_in_b), "1.0", 1e-6, 1e7, NULL, 0, "extension: tokens to train, in billions" },
    { CS "global_batch_size", ST_INT, S(cost.global_batch_size), "64", 1, 1e7, NULL, 0, "extension: sequences per optimizer step" },
    { CS "gpus", ST_STR_LIST, S(cost.gpus), "[a100_80gb, h100_sxm, a10g, l4]", NB, NULL, 0, "extension: GPU types to compare: name, name:price_per_gpu_hour or name:price:max_gpus (price default: data/gpus.csv)" },
    { CS "instances", ST_STR_LIST, S(cost.instances), "[]", NB, NULL, 0, "extension: instance types to compare (data/instances.csv): name, name:price_per_instance_hour or name:price:max_instances; when set, used instead of gpus" },
    { CS "rank0_instance", ST_STR, S(cost.rank0_instance), "null", NB, NULL, SF_NULLABLE, "extension: a larger instance of the same GPUs for rank 0 (checkpoint gather), used when that is what makes a setup fit" },
    { CS "max_gpus", ST_INT, S(cost.max_gpus), "64", 1, 65536, NULL, 0, "extension: largest GPU count searched per type (powers of two up to it)" },
    { CS "deadline_hours", ST_FLOAT, S(cost.deadline_hours), "null", 1e-6, 1e9, NULL, SF_NULLABLE, "extension: cheapest setup that finishes within this many hours" },
    { CS "budget_usd", ST_FLOAT, S(cost.budget_usd), "null", 1e-6, 1e15, NULL, SF_NULLABLE, "extension: fastest setup whose run costs at most this" },
    { CS "cpu_memory_per_node_gb", ST_FLOAT, S(cost.cpu_memory_per_node_gb), "768", 1, 1e6, NULL, 0, "extension: host RAM per node in GB (offload, checkpoint gather)" },
    { CS "precision", ST_ENUM, S(cost.precision), "bf16", NB, "bf16|fp16|fp32", 0, "extension: training precision (fp16 for GPUs without bf16, e.g. V100)" },

    /* ---- inference_settings (gpt3 presets) ---- */
    { "search_config.inference_settings", ST_SECTION, NONE, NULL, NB, NULL, 0, "Inference search settings" },
    { "search_config.inference_settings.run", ST_SECTION, NONE, NULL, NB, NULL, 0, "Inference run settings" },
    { IR "model_type", ST_ENUM, S(infer.model_type), "gpt3", NB, "gpt3|llama|mixtral", 0, "Model family served" },
    { IR "model_train_name", ST_STR, S(infer.model_train_name), "null", NB, NULL, SF_NULLABLE, "Name used for the inference work directories" },
    { IR "gpus_per_node", ST_INT, S(infer.gpus_per_node), "8", 1, 72, NULL, 0, "GPUs per node for inference" },
    { IR "data_type", ST_ENUM, S(infer.data_type), "fp16", NB, "fp16|bf16|fp8|fp32", 0, "Inference precision" },
    { IR "time_limit", ST_STR, S(infer.time_limit), "0:30:00", NB, NULL, 0, "Time limit of each inference job" },
    { IR "results_dir", ST_STR, S(infer.results_dir), "null", NB, NULL, SF_NULLABLE | SF_PATH, "Where inference results go" },
    { IR "benchmark_command", ST_STR, S(infer.benchmark_command), "null", NB, NULL, SF_NULLABLE, "extension: the benchmark each sweep job runs, {ini} and {csv} its inputs; null = FasterTransformer's multi_gpu_gpt_example" },
    { IR "engine", ST_ENUM, S(infer.engine), "fastertransformer", NB, "fastertransformer|vllm|trtllm", 0, "extension: serving engine modelled (and measured): fastertransformer = static batches (the original); vllm, trtllm = in-flight batching with chunked prefill and a paged KV cache" },
    { IR "tokenizer", ST_STR, S(infer.tokenizer), "null", NB, NULL, SF_NULLABLE, "extension: the tokenizer of the measured vllm/trtllm jobs (their random prompts): a folder with tokenizer files (copied into each job's model folder) or a Hugging Face hub name the job fetches; null = the --hf-config file's folder when it holds one, else gpt2 for vocabularies of at least 50257" },
    { IR "precisions", ST_STR_LIST, S(infer.precisions), "[null]", NB, NULL, SF_NULLABLE, "extension: precisions to search: bf16, fp16, fp8 (fp8 weights and KV cache), fp8_kv (16-bit weights, fp8 KV cache); null = data_type" },
    { IR "tensor_parallel_sizes", ST_INT_LIST, S(infer.tensor_parallel_sizes), "[1]", 1, 1024, NULL, 0, "TP values" },
    { IR "expert_parallel_sizes", ST_INT_LIST, S(infer.expert_parallel_sizes), "[1]", 1, 1024, NULL, 0, "extension: EP values for MoE models (experts spread over the TP ranks: EP must divide TP and the experts; others are skipped); 1 = experts split by TP" },
    { IR "pipeline_parallel_sizes", ST_INT_LIST, S(infer.pipeline_parallel_sizes), "[1]", 1, 1024, NULL, 0, "PP values" },
    { "search_config.inference_settings.benchmark", ST_SECTION, NONE, NULL, NB, NULL, 0, "Inference benchmark settings" },
    { IB "input_len", ST_INT, S(infer.input_len), "60", 1, 10000000, NULL, 0, "Input tokens per request" },
    { IB "output_len", ST_INT, S(infer.output_len), "20", 1, 10000000, NULL, 0, "Generated tokens per request" },
    { IB "batch_sizes", ST_INT_LIST, S(infer.batch_sizes), "[1]", 1, 1000000, NULL, 0, "Batch sizes" },
    { IB "concurrency", ST_INT_LIST, S(infer.concurrency), "null", 1, 1000000, NULL, SF_NULLABLE, "extension: loads to predict, in concurrent requests (closed loop, vLLM --max-concurrency / trtllm-bench --concurrency); with it batch_sizes are the engine's max batch (max_num_seqs); null = each batch size is the load" },
    { IB "num_prompts", ST_INT, S(infer.num_prompts), "null", 1, 10000000, NULL, SF_NULLABLE, "extension: requests per measured vllm/trtllm job (vLLM --num-prompts, trtllm-bench --num_requests); null = 10 x the concurrency, at least 32" },
    { IB "input_len_stdev", ST_FLOAT, S(infer.input_len_stdev), "null", 0, 1e7, NULL, SF_NULLABLE, "extension: standard deviation of the input lengths in tokens (normal, as trtllm-bench prepare_dataset --input-stdev); widens the TTFT percentiles and the prompts' queueing (M/G/1); null = fixed" },
    { IB "output_len_stdev", ST_FLOAT, S(infer.output_len_stdev), "null", 0, 1e7, NULL, SF_NULLABLE, "extension: standard deviation of the output lengths in tokens (--output-stdev); widens the latency percentiles; null = fixed" },
    { IB "request_rates", ST_STR_LIST, S(infer.request_rates), "[null]", NB, NULL, SF_NULLABLE, "extension: open-loop loads, requests/s offered to one model instance with Poisson arrivals (vLLM benchmark_serving --request-rate), beside or instead of concurrency; vllm and trtllm only" },
    { IB "beam_width", ST_INT, S(infer.beam_width), "1", 1, 64, NULL, 0, "Beam width" },
    { IB "topk", ST_INT, S(infer.topk), "4", 0, 100000, NULL, 0, "Top-k sampling" },
    { IB "topp", ST_FLOAT, S(infer.topp), "0.0", 0, 1, NULL, 0, "Top-p sampling" },
    /* the first public version's flat keys, accepted as aliases */
    { IS "max_latency_ms", ST_FLOAT, S(infer.max_latency_ms), "null", 0.001, 1e9, NULL, SF_NULLABLE, "Latency limit in ms (null = none)" },
    { IS "max_ttft_ms", ST_FLOAT, S(infer.max_ttft_ms), "null", 0.001, 1e9, NULL, SF_NULLABLE, "extension: time-to-first-token limit in ms, mean (null = none)" },
    { IS "latency_percentile", ST_INT, S(infer.latency_percentile), "null", 0, 99, NULL, SF_NULLABLE, "extension: percentile the TTFT, ITL and latency limits apply to (50, 90, 99; predicted from the load: queueing of prompts, prompt-carrying iterations); null = means" },
    { IS "max_itl_ms", ST_FLOAT, S(infer.max_itl_ms), "null", 0.001, 1e9, NULL, SF_NULLABLE, "extension: inter-token latency (TPOT) limit in ms, mean (null = none)" },
    { IS "top_n", ST_INT, S(infer.top_n), "10", 1, 100000, NULL, 0, "Configs listed in the inference summary" },
    { IS "input_seq_len", ST_IGNORED, NONE, NULL, NB, NULL, 0, "Alias of benchmark.input_len (older configs)" },
    { IS "output_seq_len", ST_IGNORED, NONE, NULL, NB, NULL, 0, "Alias of benchmark.output_len (older configs)" },
    { IS "max_batch_sizes", ST_IGNORED, NONE, NULL, NB, NULL, 0, "Alias of benchmark.batch_sizes (older configs)" },
    { IS "tensor_parallel_sizes", ST_IGNORED, NONE, NULL, NB, NULL, 0, "Alias of run.tensor_parallel_sizes (older configs)" },
    { IS "pipeline_parallel_sizes", ST_IGNORED, NONE, NULL, NB, NULL, 0, "Alias of run.pipeline_parallel_sizes (older configs)" },
    { IS "vocab_size", ST_IGNORED, NONE, NULL, NB, NULL, 0, "Older configs: vocabulary size (taken from train_settings)" },
    { IS "start_id", ST_IGNORED, NONE, NULL, NB, NULL, 0, "Older configs: start token id (not needed)" },
    { IS "end_id", ST_IGNORED, NONE, NULL, NB, NULL, 0, "Older configs: end token id (not needed)" },
    { IS "logs", ST_IGNORED, NONE, NULL, NB, NULL, 0, "Older configs: log directory (run.results_dir is used)" },
};
const size_t SCHEMA_LEN = sizeof SCHEMA / sizeof SCHEMA[0];

const schema_entry *schema_find(const char *key)
{
    for (size_t i = 0; i < SCHEMA_LEN; i++)
        if (!strcmp(SCHEMA[i].key, key)) return &SCHEMA[i];
    return NULL;
}

const char *schema_suggest(const char *key)
{
    const char *dot = strrchr(key, '.');
    size_t plen = dot ? (size_t)(dot - key) : 0;
    const char *leaf = dot ? dot + 1 : key;
    size_t limit = strlen(leaf) / 3 + 1;
    text_nearest near;
    text_nearest_init(&near, limit < 2 ? 2 : limit);
    for (size_t i = 0; i < SCHEMA_LEN; i++) {
        const char *k = SCHEMA[i].key;
        const char *kdot = strrchr(k, '.');
        size_t kplen = kdot ? (size_t)(kdot - k) : 0;
        if (kplen != plen || strncmp(k, key, plen) != 0) continue;
        const char *kleaf = kdot ? kdot + 1 : k;
        size_t d = text_edit_distance(leaf, kleaf);
        /* a prefix or suffix match also counts: "nodes" → "num_nodes" */
        if (d > 2 && (strstr(kleaf, leaf) || strstr(leaf, kleaf))) d = 2;
        text_nearest_keep(&near, kleaf, d);
    }
    return near.best;
}

static int unknown_key(const node *at, int line, int col, const char *key, ac_err *e)
{
    const char *s = schema_suggest(key);
    const char *file = at && at->file ? at->file : NULL;
    if (s)
        return ac_err_at(e, AC_E_INPUT, file, line, col, key, "unknown key; did you mean '%s'?", s);
    return ac_err_at(e, AC_E_INPUT, file, line, col, key, "unknown key (see `autoconfig keys`)");
}

static int check_map(const node *map, const char *prefix, ac_err *e)
{
    for (size_t i = 0; i < map->len; i++) {
        const node_pair *p = &map->pairs[i];
        char key[512];
        snprintf(key, sizeof key, "%s%s%s", prefix, *prefix ? "." : "", p->key);
        const schema_entry *se = schema_find(key);
        int line = p->line ? p->line : p->val->line, col = p->col ? p->col : p->val->col;
        if (!se) {
            const node *where = p->val->file ? p->val : map;
            return unknown_key(where, line, col, key, e);
        }
        if (se->type == ST_SECTION) {
            if (node_is_null(p->val)) continue;
            if (p->val->kind != NODE_MAP)
                return ac_err_at(e, AC_E_INPUT, p->val->file, line, col, key, "expected a mapping of keys");
            if (check_map(p->val, key, e) != 0) return -1;
        }
    }
    return 0;
}

int schema_check_keys(const node *root, ac_err *e)
{
    if (root->kind != NODE_MAP) return ac_err_at(e, AC_E_INPUT, root->file, root->line, root->col, NULL, "expected a mapping at the top level");
    return check_map(root, "", e);
}

/* ---- typed filling ---- */

static int type_error(const node *n, const char *key, const char *want, ac_err *e)
{
    char *flow = node_to_flow(n);
    ac_err_at(e, AC_E_INPUT, n->file, n->line, n->col, key, "expected %s, got %s", want, flow ? flow : "?");
    free(flow);
    return -1;
}

static bool in_bounds(const schema_entry *se, double v)
{
    return se->min > se->max || (v >= se->min && v <= se->max);
}

static int bounds_error(const node *n, const schema_entry *se, double v, ac_err *e)
{
    return ac_err_at(e, AC_E_INPUT, n->file, n->line, n->col, se->key, "%g is out of range [%g, %g]", v, se->min, se->max);
}

static bool choice_ok(const char *choices, const char *text)
{
    size_t n = strlen(text);
    for (const char *c = choices; *c;) {
        const char *bar = strchr(c, '|');
        size_t len = bar ? (size_t)(bar - c) : strlen(c);
        if (len == n && !strncmp(c, text, n)) return true;
        if (!bar) break;
        c = bar + 1;
    }
    return false;
}

static int copy_text(const node *n, const schema_entry *se, char *dst, ac_err *e)
{
    if (strlen(n->text) >= se->size)
        return ac_err_at(e, AC_E_INPUT, n->file, n->line, n->col, se->key, "value longer than %zu characters", se->size - 1);
    memcpy(dst, n->text, strlen(n->text) + 1);
    return 0;
}

static int fill_int_list(const node *n, const schema_entry *se, cfg_int_list *out, ac_err *e)
{
    memset(out, 0, sizeof *out);
    if (node_is_null(n) || (n->kind == NODE_SCALAR && !n->quoted && !strcmp(n->text, "auto"))) {
        out->is_auto = true;
        return 0;
    }
    const node *single[1] = { n };
    const node *const *items = single;
    size_t count = 1;
    if (n->kind == NODE_SEQ) { items = (const node *const *)n->items; count = n->len; }
    else if (n->kind != NODE_SCALAR) return type_error(n, se->key, "auto or a list of integers", e);
    if (count == 0) return type_error(n, se->key, "auto or a non-empty list of integers", e);
    if (count > CFG_LIST_MAX)
        return ac_err_at(e, AC_E_INPUT, n->file, n->line, n->col, se->key, "more than %d values", CFG_LIST_MAX);
    for (size_t i = 0; i < count; i++) {
        long long v;
        if (!node_get_int(items[i], &v)) return type_error(items[i], se->key, "an integer", e);
        if (!in_bounds(se, (double)v)) return bounds_error(items[i], se, (double)v, e);
        out->v[out->n++] = (int)v;
    }
    return 0;
}

static int fill_one(const schema_entry *se, const node *n, ac_config *cfg, ac_err *e)
{
    char *base = (char *)cfg + se->offset;
    bool is_null = node_is_null(n);
    if (node_is_missing(n))
        return ac_err_at(e, AC_E_INPUT, n->file, n->line, n->col, se->key, "mandatory value (\?\?\?) is not set; set it in the file or as %s=<value>", se->key);
    if (is_null && !(se->flags & SF_NULLABLE) && se->type != ST_INT_LIST)
        return ac_err_at(e, AC_E_INPUT, n->file, n->line, n->col, se->key, "a value is required here (null is not allowed)");
    if (n->kind != NODE_SCALAR && se->type != ST_INT_LIST && se->type != ST_STR_LIST)
        return type_error(n, se->key, se->type == ST_STR ? "a string" : "a single value, not a list or map", e);
    switch (se->type) {
    case ST_INT:
    case ST_INT_CHOICE: {
        long long v = 0;
        if (is_null) { *(int *)base = 0; return 0; }
        if (!node_get_int(n, &v)) return type_error(n, se->key, "an integer", e);
        if (se->type == ST_INT_CHOICE) {
            char t[32];
            snprintf(t, sizeof t, "%lld", v);
            if (!choice_ok(se->choices, t))
                return ac_err_at(e, AC_E_INPUT, n->file, n->line, n->col, se->key, "%lld is not one of %s", v, se->choices);
        } else if (!in_bounds(se, (double)v)) {
            return bounds_error(n, se, (double)v, e);
        }
        *(int *)base = (int)v;
        return 0;
    }
    case ST_FLOAT: {
        double v;
        if (is_null) { *(double *)base = NAN; return 0; }
        if (!node_get_double(n, &v) || !isfinite(v)) return type_error(n, se->key, "a number", e);
        if (!in_bounds(se, v)) return bounds_error(n, se, v, e);
        *(double *)base = v;
        return 0;
    }
    case ST_BOOL: {
        bool v;
        if (!node_get_bool(n, &v)) return type_error(n, se->key, "true or false", e);
        *(bool *)base = v;
        return 0;
    }
    case ST_TRI: {
        bool v;
        if (is_null || (!n->quoted && !strcmp(n->text, "auto"))) { *(cfg_tri *)base = TRI_AUTO; return 0; }
        if (!node_get_bool(n, &v)) return type_error(n, se->key, "true, false or auto", e);
        *(cfg_tri *)base = v ? TRI_TRUE : TRI_FALSE;
        return 0;
    }
    case ST_STR:
        if (is_null) { base[0] = '\0'; return 0; }
        return copy_text(n, se, base, e);
    case ST_ENUM:
        if (!choice_ok(se->choices, n->text))
            return ac_err_at(e, AC_E_INPUT, n->file, n->line, n->col, se->key, "'%s' is not one of %s", n->text, se->choices);
        return copy_text(n, se, base, e);
    case ST_INT_LIST:
        return fill_int_list(n, se, (cfg_int_list *)base, e);
    case ST_INT_AUTO: {
        cfg_int_auto *out = (cfg_int_auto *)base;
        long long v;
        if (is_null || (!n->quoted && !strcmp(n->text, "auto"))) { out->is_auto = true; out->v = 0; return 0; }
        if (!node_get_int(n, &v)) return type_error(n, se->key, "auto or an integer", e);
        if (!in_bounds(se, (double)v)) return bounds_error(n, se, (double)v, e);
        out->is_auto = false;
        out->v = (int)v;
        return 0;
    }
    default:
        return 0;
    }
}

/* where each string-list key's items and count live in ac_config (bounds from the arrays) */
typedef struct {
    size_t items, count, item_size, max_items;
} str_list_slot;

#define STR_LIST(field, n_field) {OFF(field), OFF(n_field), SZ(field[0]), SZ(field) / SZ(field[0])}
static const str_list_slot STR_LIST_SLOTS[] = {
    STR_LIST(container_mounts, n_container_mounts),
    STR_LIST(train.precisions, train.n_precisions),
    STR_LIST(train.grad_reduce_dtype, train.n_grad_reduce_dtype),
    STR_LIST(train.fp8_param_gather, train.n_fp8_param_gather),
    STR_LIST(train.pipeline_layouts, train.n_pipeline_layouts),
    STR_LIST(train.cuda_graphs, train.n_cuda_graphs),
    STR_LIST(train.tp_comm_overlap, train.n_tp_comm_overlap),
    STR_LIST(infer.precisions, infer.n_precisions),
    STR_LIST(infer.request_rates, infer.n_request_rates),
    STR_LIST(cost.gpus, cost.n_gpus),
    STR_LIST(cost.instances, cost.n_instances),
    STR_LIST(cluster.srun_args, cluster.n_srun_args),
};
#undef STR_LIST

static const str_list_slot *str_list_slot_of(size_t offset)
{
    for (size_t i = 0; i < sizeof STR_LIST_SLOTS / sizeof *STR_LIST_SLOTS; i++)
        if (STR_LIST_SLOTS[i].items == offset) return &STR_LIST_SLOTS[i];
    return NULL;
}

static int fill_str_list(const node *n, const char *key, int *count, char *items, size_t item_size, size_t max_items, ac_err *e)
{
    *count = 0;
    if (node_is_null(n)) return 0;
    if (n->kind == NODE_SCALAR) {
        if (strlen(n->text) >= item_size) return ac_err_at(e, AC_E_INPUT, n->file, n->line, n->col, key, "value too long");
        memcpy(items, n->text, strlen(n->text) + 1);
        *count = 1;
        return 0;
    }
    if (n->kind != NODE_SEQ) return type_error(n, key, "a list of strings", e);
    for (size_t i = 0; i < n->len; i++) {
        const node *it = n->items[i];
        if (node_is_null(it) || (it->kind == NODE_SCALAR && !strcmp(it->text, "None"))) continue;
        if (it->kind != NODE_SCALAR) return type_error(it, key, "a string", e);
        if ((size_t)*count >= max_items) return ac_err_at(e, AC_E_INPUT, it->file, it->line, it->col, key, "more than %zu entries", max_items);
        if (strlen(it->text) >= item_size) return ac_err_at(e, AC_E_INPUT, it->file, it->line, it->col, key, "entry too long");
        memcpy(items + (size_t)*count * item_size, it->text, strlen(it->text) + 1);
        (*count)++;
    }
    return 0;
}

/* container_mounts entries are "src[:dst[:flags]]"; pyxis joins them with ',' into one
 * --container-mounts value, so a ',' inside an entry would add mounts nobody listed */
static int check_mounts(const node *n, ac_err *e)
{
    size_t count = n->kind == NODE_SEQ ? n->len : 1;
    for (size_t i = 0; i < count; i++) {
        const node *it = n->kind == NODE_SEQ ? n->items[i] : n;
        if (it->kind == NODE_SCALAR && strchr(it->text, ','))
            return ac_err_at(e, AC_E_INPUT, it->file, it->line, it->col, "container_mounts",
                             "'%.200s': one mount per entry (',' would add mounts); list them separately", it->text);
    }
    return 0;
}

int schema_fill(const node *root, ac_config *cfg, ac_err *e)
{
    for (size_t i = 0; i < SCHEMA_LEN; i++) {
        const schema_entry *se = &SCHEMA[i];
        if (se->offset == SCHEMA_NOWHERE) continue;
        const node *n = node_get_path(root, se->key);
        node *def = NULL;
        if (!n) {
            if (!se->def) {
                if (!schema_required(se)) continue;
                /* blame the file that should hold it: the nearest enclosing section's (the preset) */
                char path[256];
                snprintf(path, sizeof path, "%s", se->key);
                const node *owner = NULL;
                for (char *dot = strrchr(path, '.'); dot && !owner; dot = strrchr(path, '.')) {
                    *dot = '\0';
                    owner = node_get_path(root, path);
                }
                const char *file = owner && owner->file ? owner->file : root->file;
                return ac_err_at(e, AC_E_INPUT, file, 0, 0, se->key, "required key is missing");
            }
            ac_err ye;
            def = yaml_load_string(se->def, strlen(se->def), "(schema default)", &ye);
            if (!def) return ac_err_set(e, AC_E_INTERNAL, "bad schema default for %s: %s", se->key, ye.msg);
            if (def->kind == NODE_MAP && def->len == 0) { node_free(def); def = node_null(); }
            n = def;
        }
        int rc;
        if (se->type == ST_STR_LIST) {
            const str_list_slot *slot = str_list_slot_of(se->offset);
            if (!slot) return ac_err_set(e, AC_E_INTERNAL, "schema: %s has no string-list slot", se->key);
            rc = (se->offset == OFF(container_mounts) && check_mounts(n, e)) ||
                 fill_str_list(n, se->key, (int *)((char *)cfg + slot->count), (char *)cfg + slot->items, slot->item_size,
                               slot->max_items, e);
        } else {
            rc = fill_one(se, n, cfg, e);
        }
        node_free(def);
        if (rc != 0) return -1;
    }
    return 0;
}

static const char *type_name(schema_type t)
{
    static const char *const names[] = { "section", "any", "int", "float", "bool", "string", "choice", "int choice",
                                         "auto | int list", "auto | int", "true | false | auto", "string list", "ignored" };
    return names[t];
}

void schema_print_markdown(FILE *out)
{
    fprintf(out, "| key | type | default | allowed | meaning |\n|---|---|---|---|---|\n");
    for (size_t i = 0; i < SCHEMA_LEN; i++) {
        const schema_entry *se = &SCHEMA[i];
        if (se->type == ST_SECTION) continue;
        char allowed[96] = "";
        if (se->choices) snprintf(allowed, sizeof allowed, "%s", se->choices);
        else if (se->min <= se->max) snprintf(allowed, sizeof allowed, "%g … %g", se->min, se->max);
        for (char *c = allowed; *c; c++) if (*c == '|') *c = '/';
        fprintf(out, "| `%s` | %s | %s | %s | %s |\n", se->key, type_name(se->type),
                se->def ? se->def : "(required)", allowed, se->help);
    }
}

bool schema_required(const schema_entry *se)
{
    /* inference keys only matter when the section exists */
    return !se->def && se->type != ST_SECTION && strncmp(se->key, "search_config.inference_settings", 32) != 0;
}

/* a key the reference lists under prefix (NULL = every key) */
static bool listed(const schema_entry *se, const char *prefix)
{
    return se->type != ST_SECTION && (!prefix || !strncmp(se->key, prefix, strlen(prefix)));
}

size_t schema_count(const char *prefix)
{
    size_t n = 0;
    for (size_t i = 0; i < SCHEMA_LEN; i++) n += listed(&SCHEMA[i], prefix);
    return n;
}

void schema_print_help(FILE *out, const char *prefix)
{
    for (size_t i = 0; i < SCHEMA_LEN; i++) {
        const schema_entry *se = &SCHEMA[i];
        if (!listed(se, prefix)) continue;
        fprintf(out, "  %-58s %s\n", se->key, se->help);
        fprintf(out, "  %-58s   type %s, default %s%s%s\n", "", type_name(se->type), se->def ? se->def : "(required)",
                se->choices ? ", one of " : "", se->choices ? se->choices : "");
    }
}

void schema_print_json(FILE *out, const char *prefix)
{
    json_writer w;
    json_begin(&w, out);
    json_arr_open(&w, NULL);
    for (size_t i = 0; i < SCHEMA_LEN; i++) {
        const schema_entry *se = &SCHEMA[i];
        if (!listed(se, prefix)) continue;
        json_obj_open(&w, NULL);
        json_str(&w, "key", se->key);
        json_str(&w, "type", type_name(se->type));
        if (se->def) json_str(&w, "default", se->def); else json_null(&w, "default");
        if (se->min <= se->max) { json_num(&w, "min", se->min); json_num(&w, "max", se->max); }
        if (se->choices) json_str(&w, "choices", se->choices);
        json_str(&w, "help", se->help);
        json_obj_close(&w);
    }
    json_arr_close(&w);
    json_end(&w);
}
