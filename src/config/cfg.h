/* cfg.h — the composed, validated configuration of one autoconfig run.
 *
 * cfg_load() does what Hydra does for the original: read conf/config.yaml,
 * follow its defaults list (cluster, search_config groups), apply command-line
 * overrides, resolve ${...} interpolations, then check every key against the
 * schema table (schema.c) and fill the typed struct below.  Any problem is an
 * AC_E_INPUT error naming file, line and key; nothing is written.
 */
#ifndef AC_CONFIG_CFG_H
#define AC_CONFIG_CFG_H

#include <stdbool.h>

#include "config/node.h"
#include "util/err.h"

enum { CFG_LIST_MAX = 64, CFG_PATH_MAX = 1024, CFG_NAME_MAX = 128 };

/* a searchable integer list: "auto" (our/the original's heuristic) or explicit values */
typedef struct {
    bool is_auto;
    int n;
    int v[CFG_LIST_MAX];
} cfg_int_list;

/* string-list knobs of train_settings: at most this many values of this length */
#define CFG_KNOB_MAX 8
#define CFG_KNOB_LEN 24

/* an integer that may be "auto" */
typedef struct {
    bool is_auto;
    int v;
} cfg_int_auto;

typedef enum { TRI_AUTO = -1, TRI_FALSE = 0, TRI_TRUE = 1 } cfg_tri;

typedef struct {
    double model_size_in_b; /* NAN when null: recommend a size */
    int num_nodes;
    int gpus_per_node;
    int gpu_memory_gb;
    double max_training_days;
    int limit_search_runs;
    int output_top_n;
    int max_steps_per_run;
    int max_minutes_per_run;
    bool retry_failed; /* extension: runs that failed in an earlier search of this logs dir are launched again */
    double tflops_per_gpu;
    double num_tokens_in_b;
    int vocab_size;
    int seq_length;
    char custom_config[CFG_PATH_MAX]; /* "" when null */
    char hf_config[CFG_PATH_MAX];     /* Hugging Face config.json of the model, "" = the preset's architecture */
    char named_arch[CFG_NAME_MAX];    /* --model: a published architecture by name (data/models.csv), "" = none */
    char logs[CFG_PATH_MAX];
    cfg_int_list tensor_parallel_sizes;
    cfg_int_list pipeline_parallel_sizes;
    cfg_int_auto min_model_parallel_size;
    cfg_int_auto max_model_parallel_size;
    cfg_int_list micro_batch_sizes;
    cfg_int_list act_ckpt_layers;
    /* autoconfig extensions (defaults reproduce the original) */
    char model_name[CFG_NAME_MAX]; /* built-in architecture (llama2_7b, ...), "" when null */
    char gpu[CFG_NAME_MAX];        /* catalog name, "" = A100 of gpu_memory_gb */
    char framework[CFG_NAME_MAX];  /* training stack (data/stacks.csv), "" = megatron-core */
    char remat_policy[CFG_NAME_MAX]; /* JAX remat policy under full recompute (est_remat_policy_parse), "" = full */
    cfg_int_list context_parallel_sizes;
    cfg_int_list expert_parallel_sizes;
    cfg_int_list virtual_pipeline_sizes;
    cfg_int_list global_batch_sizes;
    cfg_tri sequence_parallel;
    cfg_tri distributed_optimizer;
    char recompute_granularity[16]; /* auto | selective | full */
    char search_mode[16];           /* heuristic | exhaustive */
    char rank_by[16];               /* throughput | cost */
    char launch_over_memory[16];    /* never | borderline | all (real clusters) */
    char search_num_nodes[16];      /* "" = num_nodes, "auto", or a number (real clusters) */
    double price_per_gpu_hour;      /* NAN = catalog price */
    double network_gbps;            /* a node's scale-out in Gb/s; NAN = the GPU's catalog node */
    /* knobs experts tune (issue 25): each "auto" (the base config's value) or a list */
    int n_precisions;                          /* bf16, fp8 */
    char precisions[CFG_KNOB_MAX][CFG_KNOB_LEN];
    int n_grad_reduce_dtype;                   /* fp32, bf16 */
    char grad_reduce_dtype[CFG_KNOB_MAX][CFG_KNOB_LEN];
    int n_fp8_param_gather;                    /* false, true */
    char fp8_param_gather[CFG_KNOB_MAX][CFG_KNOB_LEN];
    int n_pipeline_layouts;                    /* even, first_last */
    char pipeline_layouts[CFG_KNOB_MAX][CFG_KNOB_LEN];
    int n_cuda_graphs;                         /* false, true */
    char cuda_graphs[CFG_KNOB_MAX][CFG_KNOB_LEN];
    int n_tp_comm_overlap;                     /* false, true */
    char tp_comm_overlap[CFG_KNOB_MAX][CFG_KNOB_LEN];
    cfg_int_list activation_offload_layers;    /* layers whose activations go to host memory */
    cfg_int_list recompute_num_layers;         /* partial full recompute: layers per stage */
} cfg_train_settings;

typedef struct {
    char model_type[32];
    char model_train_name[CFG_NAME_MAX];
    int gpus_per_node;
    char data_type[16];
    char time_limit[32];
    char results_dir[CFG_PATH_MAX];
    char benchmark_command[1024];  /* "" = FasterTransformer's example binary */
    cfg_int_list tensor_parallel_sizes;
    cfg_int_list pipeline_parallel_sizes;
    int input_len, output_len;
    cfg_int_list batch_sizes;
    int beam_width, topk;
    double topp;
    double max_latency_ms; /* NAN = no limit */
    double max_ttft_ms;    /* NAN = no limit (serving engines) */
    double max_itl_ms;     /* NAN = no limit (serving engines) */
    char engine[24];       /* fastertransformer | vllm | trtllm (estimator/serve.h) */
    char tokenizer[CFG_PATH_MAX]; /* measured vllm/trtllm jobs: tokenizer folder or hub name; "" = default */
    int num_prompts;       /* measured vllm/trtllm jobs: requests per job; 0 = 10 x concurrency (>= 32) */
    cfg_int_list concurrency; /* is_auto: the batch sizes are the load */
    int n_request_rates;   /* 0: none; open-loop loads, requests/s to one instance (Poisson arrivals) */
    char request_rates[CFG_KNOB_MAX][CFG_KNOB_LEN];
    cfg_int_list expert_parallel_sizes; /* MoE: EP inside the TP group */
    int latency_percentile; /* 0: the limits apply to means; else 1..99 */
    double input_len_stdev, output_len_stdev; /* tokens; NAN / 0 = fixed lengths */
    int n_precisions;      /* 0: data_type */
    char precisions[CFG_KNOB_MAX][CFG_KNOB_LEN];
    int top_n;
    bool present; /* the search config has inference_settings */
} cfg_inference_settings;

/* cost tuning (search_config.cost_settings, extension): see src/cost/cost.h */
typedef struct {
    char task[16];                     /* pretrain | full | lora */
    int lora_rank;
    char lora_target_modules[160];
    char hf_config[CFG_PATH_MAX];      /* "" = the preset's architecture */
    int context_length;                /* 0 = train_settings.seq_length */
    double num_tokens_in_b;
    int global_batch_size;             /* sequences per optimizer step */
    int n_gpus;
    char gpus[16][CFG_NAME_MAX];       /* "name", "name:price" or "name:price:max_gpus" */
    int n_instances;
    char instances[16][CFG_NAME_MAX];  /* data/instances.csv names: "name", "name:price" or "name:price:max_instances" */
    char rank0_instance[CFG_NAME_MAX]; /* "" = none */
    int max_gpus;
    double deadline_hours, budget_usd; /* NAN = none */
    double cpu_memory_per_node_gb;
    char precision[16];
} cfg_cost_settings;

typedef struct {
    char partition[CFG_NAME_MAX];
    char account[CFG_NAME_MAX];
    bool exclusive;
    int gpus_per_task; /* 0 = null */
    int gpus_per_node;
    int mem;
    char job_name_prefix[CFG_NAME_MAX];
    int n_srun_args;
    char srun_args[16][CFG_NAME_MAX];
    char nodelist[CFG_NAME_MAX];
    char container_image[CFG_PATH_MAX];
} cfg_cluster;

typedef struct {
    node *root;  /* the composed, resolved tree (owned) */
    char conf_dir[CFG_PATH_MAX];
    char family[32];          /* from search_config_value: gpt3, t5, ... */
    char preset[CFG_NAME_MAX];/* the file name: 5b, unknown_size, llama2_7b */
    char search_config_value[CFG_NAME_MAX + 40];
    char cluster_name[CFG_NAME_MAX]; /* the defaults list's cluster choice (bcm): names per-cluster files */
    bool run_training_hp_search;
    bool run_inference_hp_search;
    bool run_cost_search;     /* extension: the cost stage inside `run` */
    char cluster_type[16];    /* sim | bcm | bcp | local */
    char auto_configurator_path[CFG_PATH_MAX];
    char launcher_scripts_path[CFG_PATH_MAX];
    char base_results_dir[CFG_PATH_MAX];
    char data_dir[CFG_PATH_MAX];
    char training_container[CFG_PATH_MAX];
    int n_container_mounts;
    char container_mounts[16][CFG_PATH_MAX];
    bool wandb_enable;
    char wandb_api_key_file[CFG_PATH_MAX];
    char wandb_project[CFG_NAME_MAX];
    cfg_cluster cluster;
    cfg_train_settings train;
    cfg_inference_settings infer;
    cfg_cost_settings cost;
    bool verbose;             /* the command line's --verbose: print notices that are not news */
} ac_config;

/* conf_dir: the folder holding config.yaml; overrides: Hydra-style arguments */
int cfg_load(const char *conf_dir, int n_overrides, char **overrides, ac_config *out, ac_err *e);
/* the same with config.yaml's text given (conf_dir still holds the group files) */
int cfg_load_text(const char *conf_dir, const char *text, size_t len, int n_overrides, char **overrides, ac_config *out,
                  ac_err *e);
void cfg_free(ac_config *c);

/* true for the cluster types whose candidates run as real jobs (bcm: Slurm, local); sim only
 * predicts (bcp is refused when the config loads) */
bool cfg_runs_real_jobs(const ac_config *c);

/* "gpt3/5b, gpt3/20b, ..." — the search configs that exist under conf_dir */
int cfg_list_search_configs(const char *conf_dir, char *buf, size_t len);

#endif
