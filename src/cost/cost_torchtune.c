/* cost_torchtune.c — the chosen setup as a torchtune recipe config (torchtune_config.yaml).
 *
 * torchtune runs PyTorch FSDP2 (fully_shard) in its distributed recipes and nothing else, so a
 * config is written only for setups it can run: the pytorch-fsdp stack without TP/PP, on one GPU
 * (full_finetune_single_device / lora_finetune_single_device) or sharded (ZeRO-3 = reshard after
 * forward, FULL_SHARD; ZeRO-2 = fsdp_reshard_after_forward false, SHARD_GRAD_OP), optionally with
 * fsdp_cpu_offload (parameters, gradients and optimizer states together), and for a model torchtune
 * builds (data/torchtune_models.csv).  The keys are the ones the recipes read
 * (tests/fixtures/torchtune/schema.csv, with its source).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost/cost.h"
#include "util/csv.h"
#include "util/strbuf.h"
#include "util/text.h"

extern const char ac_data_torchtune_models[]; /* build/gen/data_torchtune_models.c */

/* the catalog row of a model name (preset or Hugging Face id), copied into the caller's fields */
typedef struct {
    char model[96], lora_model[96], tokenizer[96], model_type[16];
} tt_model;

static int tt_model_find(const char *name, tt_model *out, ac_err *e)
{
    csv_table t;
    if (csv_parse(ac_data_torchtune_models, strlen(ac_data_torchtune_models), "data/torchtune_models.csv", &t, e)) return -1;
    static const char *const cols[] = {"name", "aliases", "model", "lora_model", "tokenizer", "model_type", "source"};
    if (csv_require_cols(&t, cols, sizeof cols / sizeof *cols, AC_E_INTERNAL, NULL, e)) { csv_free(&t); return -1; }
    int found = 0;
    for (size_t i = 0; i < t.n && !found; i++) {
        const csv_row *r = &t.rows[i];
        if (text_name_cmp(csv_get(r, csv_col(&t, "name")), name) && !text_list_has(csv_get(r, csv_col(&t, "aliases")), name)) continue;
        snprintf(out->model, sizeof out->model, "%s", csv_get(r, csv_col(&t, "model")));
        snprintf(out->lora_model, sizeof out->lora_model, "%s", csv_get(r, csv_col(&t, "lora_model")));
        snprintf(out->tokenizer, sizeof out->tokenizer, "%s", csv_get(r, csv_col(&t, "tokenizer")));
        snprintf(out->model_type, sizeof out->model_type, "%s", csv_get(r, csv_col(&t, "model_type")));
        found = 1;
    }
    csv_free(&t);
    return found;
}

/* the recipe, or NULL (with why) when torchtune cannot run the setup */
static const char *tt_recipe(const cost_request *rq, const cost_option *o, char *why, size_t n)
{
    const est_stack *st = cost_stack_of(rq);
    if (!cost_stack_is_fsdp(st)) {
        snprintf(why, n, "torchtune runs PyTorch FSDP, not %s", st ? st->name : "this stack");
        return NULL;
    }
    if (o->k.tp > 1 || o->k.pp > 1) {
        snprintf(why, n, "torchtune's recipes here run data parallelism only: no config for TP%d PP%d", o->k.tp, o->k.pp);
        return NULL;
    }
    bool lora = rq->task == COST_LORA;
    if (o->k.num_gpus == 1) return lora ? "lora_finetune_single_device" : "full_finetune_single_device";
    if (o->k.zero < 2) {
        snprintf(why, n, "torchtune's distributed recipes shard parameters or gradients (FSDP2): no config for ZeRO-%d", o->k.zero);
        return NULL;
    }
    return lora ? "lora_finetune_distributed" : "full_finetune_distributed";
}

/* the target modules (any spelling cost_lora_modules reads; none: all) as torchtune's LoRA builder
 * takes them: the attention projections by torchtune's names, any MLP projection switching on
 * LoRA for all three (apply_lora_to_mlp); 0, or -1 with e for a list cost.c does not read */
static int tt_lora_modules(const char *list, strbuf *attn, bool *mlp, ac_err *e)
{
    static const char *const TT_ATTN[] = {"q_proj", "k_proj", "v_proj", "output_proj"}; /* COST_LORA_Q .. _O */
    bool use[COST_LORA_MODULES];
    if (!*list) for (int i = 0; i < COST_LORA_MODULES; i++) use[i] = true;
    else if (cost_lora_modules(list, use, e)) return -1;
    *mlp = use[COST_LORA_GATE] || use[COST_LORA_UP] || use[COST_LORA_DOWN];
    int n = 0;
    for (int i = COST_LORA_Q; i <= COST_LORA_O; i++)
        if (use[i]) sb_printf(attn, "%s'%s'", n++ ? ", " : "", TT_ATTN[i]);
    return 0;
}

int cost_torchtune_yaml(const cost_request *rq, const cost_option *o, char **out, ac_err *e)
{
    *out = NULL;
    char why[160];
    const char *recipe = tt_recipe(rq, o, why, sizeof why);
    if (!recipe) return ac_err_set(e, AC_E_INPUT, "%s", why);
    tt_model m;
    int found = tt_model_find(rq->model.name, &m, e);
    if (found < 0) return -1;
    if (!found) return ac_err_set(e, AC_E_INPUT, "torchtune builds no model named '%s' (data/torchtune_models.csv)", rq->model.name);
    bool lora = rq->task == COST_LORA, dist = o->k.num_gpus > 1;
    /* the optimizer steps the summary and train_args.json give (a last partial batch included) */
    long steps = (long)ceil(o->optimizer_steps);
    if (steps < 1) steps = 1;
    int per_node = o->nodes > 0 ? o->k.num_gpus / o->nodes : o->k.num_gpus;
    strbuf b;
    sb_init(&b);
    sb_printf(&b, "# torchtune recipe config written by autoconfig cost (predicted setup: %s)\n", o->label);
    sb_printf(&b, "# Recipe %s; on each node:\n", recipe);
    if (dist)
        sb_printf(&b, "#   tune run --nnodes %d --nproc_per_node %d %s --config torchtune_config.yaml\n", o->nodes, per_node, recipe);
    else
        sb_printf(&b, "#   tune run %s --config torchtune_config.yaml\n", recipe);
    sb_printf(&b, "# Point checkpointer.checkpoint_dir/checkpoint_files and tokenizer.path at your download of %s.\n", rq->model.name);
    sb_printf(&b, "# torchtune trains in pure bf16 (dtype: weights, gradients and optimizer states), so it needs less\n"
                  "# memory than the FSDP mixed precision (fp32 master and gradients) this setup was predicted with.\n");
    sb_printf(&b, "output_dir: torchtune_output\n");
    sb_printf(&b, "model:\n  _component_: %s\n", lora ? m.lora_model : m.model);
    if (lora) {
        strbuf attn;
        sb_init(&attn);
        bool mlp;
        if (tt_lora_modules(rq->lora_modules, &attn, &mlp, e)) {
            sb_free(&attn);
            sb_free(&b);
            return -1;
        }
        sb_printf(&b, "  lora_attn_modules: [%s]\n", attn.oom || !attn.len ? "'q_proj', 'v_proj'" : attn.s);
        sb_free(&attn);
        sb_printf(&b, "  apply_lora_to_mlp: %s\n  apply_lora_to_output: false\n", mlp ? "true" : "false");
        sb_printf(&b, "  lora_rank: %d\n  lora_alpha: %d.0\n  lora_dropout: 0.0\n", rq->lora_rank, 2 * rq->lora_rank);
    }
    bool llama3 = !strcmp(m.model_type, "LLAMA3");
    sb_printf(&b, "tokenizer:\n  _component_: %s\n  path: model/%stokenizer.model\n  max_seq_len: %d\n", m.tokenizer,
              llama3 ? "original/" : "", rq->context);
    sb_printf(&b, "checkpointer:\n  _component_: torchtune.training.FullModelHFCheckpointer\n  checkpoint_dir: model\n");
    sb_printf(&b, "  checkpoint_files: [model.safetensors]\n  output_dir: torchtune_output\n  model_type: %s\n", m.model_type);
    sb_printf(&b, "resume_from_checkpoint: false\n");
    if (lora) sb_printf(&b, "save_adapter_weights_only: true\n");
    sb_printf(&b, "# packed: every sequence max_seq_len tokens long, as the prediction assumes\n");
    sb_printf(&b, "dataset:\n  _component_: torchtune.datasets.alpaca_cleaned_dataset\n  packed: true\n");
    sb_printf(&b, "seed: 1234\nshuffle: true\n");
    sb_printf(&b, "batch_size: %d\n", o->k.mbs);
    sb_printf(&b, "epochs: 1\n");
    sb_printf(&b, "max_steps_per_epoch: %ld\n", steps);
    sb_printf(&b, "gradient_accumulation_steps: %d\n", o->grad_accum);
    sb_printf(&b, "optimizer:\n  _component_: torch.optim.AdamW\n  lr: %s\n  fused: true\n", lora ? "3.0e-4" : "2.0e-5");
    if (lora) sb_printf(&b, "lr_scheduler:\n  _component_: torchtune.training.lr_schedulers.get_cosine_schedule_with_warmup\n  num_warmup_steps: 100\n");
    sb_printf(&b, "loss:\n  _component_: torchtune.modules.loss.CEWithChunkedOutputLoss\n");
    sb_printf(&b, "clip_grad_norm: 1.0\n");
    sb_printf(&b, "compile: false\n");
    sb_printf(&b, "device: cuda\n");
    sb_printf(&b, "dtype: %s\n", rq->precision == PREC_FP32 ? "fp32" : "bf16");
    sb_printf(&b, "enable_activation_checkpointing: %s\n", o->k.checkpointing ? "true" : "false");
    sb_printf(&b, "enable_activation_offloading: false\n");
    if (dist) {
        sb_printf(&b, "fsdp_cpu_offload: %s\n", o->k.offload_params || o->k.offload_optimizer ? "true" : "false");
        sb_printf(&b, "# true: FULL_SHARD (ZeRO-3); false: SHARD_GRAD_OP (ZeRO-2)\n");
        sb_printf(&b, "fsdp_reshard_after_forward: %s\n", o->k.zero >= 3 ? "true" : "false");
    }
    sb_printf(&b, "metric_logger:\n  _component_: torchtune.training.metric_logging.DiskLogger\n  log_dir: torchtune_output/logs\n");
    sb_printf(&b, "log_every_n_steps: 1\nlog_peak_memory_stats: true\n");
    if (b.oom) {
        sb_free(&b);
        return ac_err_set(e, AC_E_NOMEM, "out of memory building the torchtune config");
    }
    *out = sb_take(&b);
    return 0;
}

bool cost_torchtune_runs(const cost_request *rq, const cost_option *o)
{
    char why[160];
    tt_model m;
    ac_err e;
    return tt_recipe(rq, o, why, sizeof why) && tt_model_find(rq->model.name, &m, &e) == 1;
}
