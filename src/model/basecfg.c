/* basecfg.c — see basecfg.h; every field rule restates reference §3.1. */
#include "model/basecfg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/interp.h"
#include "config/yaml_io.h"
#include "model/arch.h"
#include "model/size.h"
#include "util/fsutil.h"

/* fraction of max_steps spent in warm-up and at constant LR (§3.1, GPT-3 schedule) */
static const double WARMUP_FRACTION = 0.0015;
static const double CONSTANT_FRACTION = 0.166;
/* sequence parallelism is turned off for GPT models up to this size (§3.1) */
static const double SP_OFF_MAX_SIZE_B = 13.0;

void model_time_limit_text(double days, char *buf, size_t len)
{
    int d = (int)days, h = (int)(24.0 * (days - d));
    snprintf(buf, len, "%d-%02d:00:00", d, h);
}

void model_max_time_text(double days, char *buf, size_t len)
{
    /* 30 minutes before the time limit, so the run can save a checkpoint */
    int d = (int)days, h = (int)(24.0 * (days - d));
    if (h == 0) { d -= 1; h = 23; } else { h -= 1; }
    if (d < 0) {
        /* shorter than an hour (the original would print "-1:23:30:00"): keep 90 % of it */
        int minutes = (int)(days * 24 * 60 * 0.9);
        snprintf(buf, len, "0:00:%02d:00", minutes > 0 ? minutes : 1);
        return;
    }
    snprintf(buf, len, "%d:%02d:30:00", d, h);
}

static double round_to(double x, int digits)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.*f", digits, x);
    return strtod(buf, NULL);
}

static int set(node *root, const char *path, node *v, ac_err *e)
{
    if (!v) return ac_err_set(e, AC_E_NOMEM, "out of memory");
    if (node_set_path(root, path, v, true) != 0)
        return ac_err_set(e, AC_E_INPUT, "template: cannot set %s (a parent is not a mapping)", path);
    return 0;
}

static int get_int_at(const node *root, const char *path, int *out, bool required, ac_err *e)
{
    const node *n = node_get_path(root, path);
    long long v;
    if (!n || node_is_null(n)) {
        if (required) return ac_err_set(e, AC_E_INPUT, "config has no %s", path);
        *out = 0;
        return 0;
    }
    if (!node_get_int(n, &v) || v < 0 || v > 100000000)
        return ac_err_at(e, AC_E_INPUT, n->file, n->line, n->col, path, "expected a non-negative integer");
    *out = (int)v;
    return 0;
}

int model_shape_from_nemo(const node *nemo, const model_family *f, int vocab, model_shape *s, ac_err *e)
{
    /* resolve the template's own interpolations (e.g. ffn = ${multiply:4, ${.hidden_size}})
     * inside a {training: ...} wrapper, as the launcher nests it */
    node *wrap = node_map();
    if (!wrap || node_map_set(wrap, "training", node_clone(nemo)) != 0) {
        node_free(wrap);
        return ac_err_set(e, AC_E_NOMEM, "out of memory");
    }
    bool t5 = f->arch == ARCH_ENCODER_DECODER;
    const char *stack = t5 ? "training.model.encoder." : "training.model.";
    static const char *const fields[] = { "num_layers", "hidden_size", "ffn_hidden_size", "num_attention_heads",
                                          "kv_channels", "num_query_groups" };
    int vals[6] = { 0 };
    int rc = 0;
    memset(s, 0, sizeof *s);
    for (int i = 0; i < 6 && rc == 0; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s%s", stack, fields[i]);
        rc = interp_resolve_path(wrap, path, e);
        if (rc == 0) rc = get_int_at(wrap, path, &vals[i], i == 0 || i == 1 || i == 3, e);
    }
    int seq = 0, seq_dec = 0, experts = 0, topk = 0;
    if (rc == 0) {
        const char *seq_path = t5 || f->arch == ARCH_ENCODER ? "training.model.data.seq_length" : "training.model.encoder_seq_length";
        rc = interp_resolve_path(wrap, seq_path, e);
        if (rc == 0) rc = get_int_at(wrap, seq_path, &seq, true, e);
    }
    if (rc == 0 && t5) rc = get_int_at(wrap, "training.model.data.seq_length_dec", &seq_dec, false, e);
    if (rc == 0) rc = get_int_at(wrap, "training.model.num_moe_experts", &experts, false, e);
    if (rc == 0) rc = get_int_at(wrap, "training.model.moe_router_topk", &topk, false, e);
    node_free(wrap);
    if (rc != 0) return -1;
    if (vals[3] == 0 || vals[1] == 0 || vals[0] == 0)
        return ac_err_set(e, AC_E_INPUT, "layers, hidden size and attention heads must be positive");
    s->arch = f->arch;
    s->num_layers = vals[0];
    s->hidden = vals[1];
    s->ffn_hidden = vals[2] ? vals[2] : 4 * vals[1];
    s->heads = vals[3];
    s->kv_channels = vals[4] ? vals[4] : vals[1] / vals[3];
    s->query_groups = vals[5] ? vals[5] : vals[3];
    s->vocab = vocab;
    s->seq_length = seq;
    s->dec_seq_length = seq_dec;
    s->gated_mlp = f->gated_mlp;
    s->untied_embeddings = f->untied_embeddings;
    s->learned_pos_emb = f->learned_pos_emb;
    if (experts > 1) {
        s->num_experts = experts;
        s->moe_topk = topk ? topk : 2;
        s->moe_ffn_hidden = s->ffn_hidden;
    }
    return 0;
}

/* architecture fields per family (§3.1) */
static int write_shape(node *t, const model_base_config *b, const ac_config *c, ac_err *e)
{
    const model_shape *s = &b->shape;
    family_id id = b->family->id;
    if (id == FAM_T5 || id == FAM_MT5) {
        static const char *const stacks[] = { "model.encoder.", "model.decoder." };
        for (int i = 0; i < 2; i++) {
            char p[96];
            int rc = 0;
            snprintf(p, sizeof p, "%snum_layers", stacks[i]); rc |= set(t, p, node_int(s->num_layers), e);
            snprintf(p, sizeof p, "%shidden_size", stacks[i]); rc |= set(t, p, node_int(s->hidden), e);
            snprintf(p, sizeof p, "%snum_attention_heads", stacks[i]); rc |= set(t, p, node_int(s->heads), e);
            snprintf(p, sizeof p, "%sffn_hidden_size", stacks[i]); rc |= set(t, p, node_int(s->ffn_hidden), e);
            snprintf(p, sizeof p, "%skv_channels", stacks[i]); rc |= set(t, p, node_int(s->kv_channels), e);
            if (rc) return -1;
        }
        /* the original writes a top-level model.init_method_std = 0.015, a key NeMo's T5 never
         * reads (each stack has its own): it goes to both stacks (docs/original-bugs.md) */
        for (int i = 0; i < 2; i++) {
            char p[96];
            snprintf(p, sizeof p, "%sinit_method_std", stacks[i]);
            if (set(t, p, node_float(0.015), e)) return -1;
        }
        return set(t, "model.optim.sched.warmup_ratio", node_float(0.01), e);
    }
    const model_preset_arch *pa = b->preset;
    double init_std = pa && pa->init_std > 0 ? pa->init_std : round_to(0.64 / sqrt(s->hidden), 6);
    if (set(t, "model.num_layers", node_int(s->num_layers), e) || set(t, "model.hidden_size", node_int(s->hidden), e) ||
        set(t, "model.num_attention_heads", node_int(s->heads), e) || set(t, "model.init_method_std", node_float(init_std), e))
        return -1;
    int max_steps = (int)(c->train.num_tokens_in_b * 1e9 / ((double)s->seq_length * b->gbs));
    if (set(t, "model.optim.sched.warmup_steps", node_int((long long)(WARMUP_FRACTION * max_steps)), e) ||
        set(t, "model.optim.sched.constant_steps", node_int((long long)(CONSTANT_FRACTION * max_steps)), e))
        return -1;
    if (b->size_b <= SP_OFF_MAX_SIZE_B && set(t, "model.sequence_parallel", node_bool(false), e)) return -1;
    if (id == FAM_BERT) return set(t, "model.ffn_hidden_size", node_int(4LL * s->hidden), e);
    if (set(t, "model.encoder_seq_length", node_int(s->seq_length), e) ||
        /* a rotary model's positions go as far as its release supports (the launcher's value) */
        set(t, "model.max_position_embeddings", node_int(pa && pa->max_context > s->seq_length ? pa->max_context : s->seq_length), e) ||
        set(t, "model.data.seq_length", node_int(s->seq_length), e))
        return -1;
    if (id == FAM_GPT3) return 0; /* ffn/kv stay the template's 4h / null */
    if (set(t, "model.ffn_hidden_size", node_int(id == FAM_MIXTRAL ? s->moe_ffn_hidden : s->ffn_hidden), e) ||
        set(t, "model.num_query_groups", node_int(s->query_groups), e))
        return -1;
    if (id == FAM_LLAMA && !strncmp(c->train.model_name, "llama2", 6) &&
        set(t, "model.rotary_base", node_float(10000.0), e)) /* Llama 2 RoPE base; Llama 3 uses 500000 */
        return -1;
    if (id == FAM_MIXTRAL &&
        (set(t, "model.num_moe_experts", node_int(s->num_experts), e) || set(t, "model.moe_router_topk", node_int(s->moe_topk), e)))
        return -1;
    /* an architecture of a config.json or a published name keeps what the Llama/Mixtral template
     * assumes only where it says so: a plain GELU MLP (Falcon, MPT, GPT-NeoX), its head dimension,
     * tied embeddings, learned absolute positions */
    if (b->arch_given &&
        ((!s->gated_mlp && set(t, "model.activation", node_str("gelu"), e)) ||
         /* a head dimension of its own (Qwen3: 128 at hidden 2048 / 32 heads); null is h/heads */
         (s->kv_channels > 0 && (long long)s->kv_channels * s->heads != s->hidden &&
          set(t, "model.kv_channels", node_int(s->kv_channels), e)) ||
         set(t, "model.share_embeddings_and_output_weights", node_bool(!s->untied_embeddings), e) ||
         (s->learned_pos_emb && set(t, "model.position_embedding_type", node_str("learned_absolute"), e))))
        return -1;
    if (pa && pa->tokenizer_library &&
        (set(t, "model.tokenizer.library", node_str(pa->tokenizer_library), e) ||
         set(t, "model.tokenizer.type", node_str(pa->tokenizer_type), e)))
        return -1;
    /* a Hugging Face tokenizer is named by type; a SentencePiece model file would be loaded instead */
    if (pa && pa->tokenizer_library && !strcmp(pa->tokenizer_library, "huggingface")) {
        node *tok = node_get_path(t, "model.tokenizer");
        if (tok) {
            static const char *const spm_only[] = { "model", "delimiter", "vocab_file", "merge_file", "sentencepiece_legacy" };
            for (size_t i = 0; i < sizeof spm_only / sizeof spm_only[0]; i++) node_map_remove(tok, spm_only[i]);
        }
        if (set(t, "model.tokenizer.use_fast", node_bool(true), e)) return -1;
    }
    return 0;
}

static int choose_architecture(const ac_config *c, model_base_config *b, const model_shape *arch, ac_err *e)
{
    const ac_config *cc = c;
    family_id id = b->family->id;
    if (arch) {
        b->arch_given = true;
        b->shape = *arch;
        b->shape.seq_length = cc->train.seq_length; /* the training's sequence, not the model's longest */
        b->lr = b->size_b >= 60.0 ? 1.5e-4 : 3.0e-4;  /* the presets' learning rates by size */
        return 0;
    }
    if ((id == FAM_LLAMA || id == FAM_MIXTRAL) && cc->train.model_name[0]) {
        const model_preset_arch *pa = model_preset_arch_find(cc->train.model_name);
        if (!pa || pa->family != id) {
            char names[512];
            model_preset_arch_names(names, sizeof names);
            return ac_err_at(e, AC_E_INPUT, NULL, 0, 0, "search_config.train_settings.model_name",
                             "unknown %s architecture '%s' (known: %s)", b->family->name, cc->train.model_name, names);
        }
        model_preset_shape(pa, cc->train.vocab_size, cc->train.seq_length, &b->shape);
        b->lr = pa->lr;
        b->preset = pa;
        return 0;
    }
    model_arch_choice ch;
    if (model_arch_for_size(id, b->size_b, cc->train.vocab_size, cc->train.seq_length, &ch, e) != 0) return -1;
    b->shape = ch.shape;
    b->lr = ch.lr;
    return 0;
}

static int build(const ac_config *c, double size_b, const model_shape *arch, const char *name, model_base_config *b,
                 ac_err *e);

int model_base_config_build(const ac_config *c, double size_b, model_base_config *b, ac_err *e)
{
    return build(c, size_b, NULL, NULL, b, e);
}

/* what the written keys cover (write_shape): layers, widths, heads, query groups, head dimension,
 * gating, tied embeddings, positions, experts and top-k.  The launcher's and NeMo v2.0.0's GPT
 * templates have no key for the rest, so a job would train another model.  A sliding or chunked
 * window at least as long as the training sequence changes nothing (Mistral 7B's 4096 at 4096) */
const char *model_base_config_unwritable(const model_shape *s, int seq_length, const char **key)
{
    static const struct { const char *key, *what; } FEATURES[] = {
        {"hybrid_override_pattern", "Mamba-2 blocks"},
        {"kv_lora_rank", "multi-head latent attention"},
        {"moe_latent_size", "latent experts (LatentMoE)"},
        {"n_shared_experts", "shared experts"},
        {"first_k_dense_replace", "dense leading layers before the experts"},
        {"num_nextn_predict_layers", "multi-token prediction layers"},
        {"n_group", "group-limited expert routing"},
        {"sliding_window", "sliding-window attention"},
        {"attention_chunk_size", "chunked attention"},
        {"swiglu_limit", "expert biases and clamped activations"},
    };
    bool has[] = {shape_is_hybrid(s), s->kv_lora_rank > 0, s->moe_latent > 0, s->moe_shared_ffn > 0,
                  s->moe_dense_layers > 0, s->mtp_layers > 0, s->moe_router_groups > 1,
                  s->swa_window > 0 && s->swa_window < seq_length, s->attn_chunk > 0 && s->attn_chunk < seq_length,
                  s->moe_expert_bias || s->moe_glu_clamp};
    _Static_assert(sizeof has / sizeof has[0] == sizeof FEATURES / sizeof FEATURES[0], "one test per feature");
    for (size_t i = 0; i < sizeof has / sizeof has[0]; i++)
        if (has[i]) { *key = FEATURES[i].key; return FEATURES[i].what; }
    return NULL;
}

int model_base_config_build_arch(const ac_config *c, double size_b, const model_shape *arch, const char *name,
                                 model_base_config *b, ac_err *e)
{
    return build(c, size_b, arch, name, b, e);
}

static int build(const ac_config *c, double size_b, const model_shape *arch, const char *name, model_base_config *b,
                 ac_err *e)
{
    memset(b, 0, sizeof *b);
    b->family = model_family_find(c->family);
    if (!b->family)
        return ac_err_at(e, AC_E_INPUT, "command line", 0, 0, "search_config", "unknown model family '%s' (known: %s)",
                         c->family, model_family_names());
    b->size_b = size_b;
    model_size_text(size_b, b->size_text, sizeof b->size_text);
    snprintf(b->run_name, sizeof b->run_name, "%s_%sb", b->family->name, b->size_text);
    /* a built-in architecture names runs by its full name: llama2_70b and llama3_70b stay apart */
    if ((b->family->id == FAM_LLAMA || b->family->id == FAM_MIXTRAL) && c->train.model_name[0] && !c->train.custom_config[0]) {
        snprintf(b->name_prefix, sizeof b->name_prefix, "%.63s", c->train.model_name);
        snprintf(b->run_name, sizeof b->run_name, "%.63s", c->train.model_name);
    }
    if (arch && name && *name) {
        snprintf(b->name_prefix, sizeof b->name_prefix, "%.63s", name);
        snprintf(b->run_name, sizeof b->run_name, "%.63s", name);
    }

    char tpl_path[CFG_PATH_MAX * 2];
    b->from_custom = c->train.custom_config[0] != '\0';
    if (b->from_custom)
        snprintf(tpl_path, sizeof tpl_path, "%s", c->train.custom_config);
    else
        snprintf(tpl_path, sizeof tpl_path, "%s/base_configs/%s", c->auto_configurator_path, b->family->template_file);
    /* the family template on disk when there is one (users edit it, as in the original);
     * else, with the default auto_configurator_path ".", the copy compiled in, so the tool
     * works from any directory.  A path the user set must hold the template. */
    node *t;
    if (b->from_custom || fs_exists(tpl_path) || strcmp(c->auto_configurator_path, ".")) {
        t = yaml_load_file(tpl_path, e);
    } else {
        snprintf(tpl_path, sizeof tpl_path, "base_configs/%s (built in)", b->family->template_file);
        t = yaml_load_string(b->family->template_text, strlen(b->family->template_text), tpl_path, e);
    }
    if (!t) return -1;
    b->cfg = t;
    if (t->kind != NODE_MAP || !node_get_path(t, "model") || !node_get_path(t, "trainer") || !node_get_path(t, "run"))
        return ac_err_at(e, AC_E_INPUT, tpl_path, 1, 1, NULL, "not a NeMo training config (needs run, trainer and model)");

    if (b->from_custom) {
        /* the original reads GBS/TP/PP from a custom config and changes no model field */
        if (get_int_at(t, "model.global_batch_size", &b->gbs, true, e) ||
            get_int_at(t, "model.tensor_model_parallel_size", &b->tp, true, e) ||
            get_int_at(t, "model.pipeline_model_parallel_size", &b->pp, true, e) ||
            model_shape_from_nemo(t, b->family, c->train.vocab_size, &b->shape, e))
            return -1;
        const node *lr = node_get_path(t, "model.optim.lr");
        if (!node_get_double(lr, &b->lr)) b->lr = 0;
    } else {
        if (choose_architecture(c, b, arch, e) != 0) return -1;
        if (model_gbs_tp_pp(b->family->id, size_b, c->train.seq_length, c->train.gpu_memory_gb, &b->gbs, &b->tp, &b->pp, e) != 0)
            return -1;
        if (b->preset && b->preset->gbs > 0) b->gbs = b->preset->gbs;
        /* the size table's TP and PP are for its own shapes; an architecture from a config.json
         * or a published name takes the largest power-of-two TP up to it that divides its heads, KV
         * heads and Mamba heads and groups (Qwen3-30B-A3B: 4 KV heads; Falcon-7B: 71 heads), then the
         * largest PP up to it that divides its layers (Nemotron-H 56B: 118 blocks) and, with TP,
         * the GPUs (BLOOM's 70 layers: PP 7 on 128 GPUs would not) */
        if (arch) {
            const model_shape *s = &b->shape;
            int L = shape_total_layers(s), gpus = c->train.num_nodes * c->train.gpus_per_node;
            while (b->tp > 1 && (s->heads % b->tp || shape_query_groups(s) % b->tp ||
                                 (s->mamba_heads > 0 && s->mamba_heads % b->tp) ||
                                 (s->mamba_groups > 0 && s->mamba_groups % b->tp)))
                b->tp /= 2; /* the table's TPs are powers of two, as a node's GPUs are */
            while (b->pp > 1 && (L % b->pp || (gpus > 0 && gpus % (b->tp * b->pp)))) b->pp--;
        }
    }
    b->param_b = b->arch_given ? model_param_count_shape_b(&b->shape) : model_param_count_b(b->family->id, &b->shape);

    char time_limit[32], max_time[32];
    model_time_limit_text(c->train.max_training_days, time_limit, sizeof time_limit);
    model_max_time_text(c->train.max_training_days, max_time, sizeof max_time);
    int seq_for_steps = b->shape.seq_length ? b->shape.seq_length : c->train.seq_length;
    long long max_steps = (long long)(c->train.num_tokens_in_b * 1e9 / ((double)seq_for_steps * b->gbs));
    if (set(t, "run.name", node_str(b->run_name), e) || set(t, "run.time_limit", node_str(time_limit), e) ||
        set(t, "trainer.num_nodes", node_int(c->train.num_nodes), e) ||
        /* the original left devices at the template's 8 and then counted GPUs from it (quirk 4) */
        set(t, "trainer.devices", node_int(c->train.gpus_per_node), e) ||
        set(t, "trainer.precision", node_str("bf16"), e) || set(t, "trainer.max_steps", node_int(max_steps), e) ||
        set(t, "trainer.max_time", node_str(max_time), e))
        return -1;
    if (c->wandb_enable &&
        (set(t, "exp_manager.create_wandb_logger", node_bool(true), e) ||
         set(t, "exp_manager.wandb_logger_kwargs.project", node_str(c->wandb_project), e)))
        return -1;
    if (!b->from_custom) {
        if (set(t, "model.global_batch_size", node_int(b->gbs), e) ||
            set(t, "model.tensor_model_parallel_size", node_int(b->tp), e) ||
            set(t, "model.pipeline_model_parallel_size", node_int(b->pp), e) ||
            set(t, "model.optim.lr", node_float(b->lr), e) ||
            set(t, "model.optim.sched.min_lr", node_float(round_to(b->lr * 0.1, 8)), e) ||
            write_shape(t, b, c, e))
            return -1;
    }
    if (!strcmp(c->cluster_type, "bcp")) {
        char dir[CFG_PATH_MAX + 32];
        snprintf(dir, sizeof dir, "%s/data_index_files", c->base_results_dir);
        if (set(t, "model.data.index_mapping_dir", node_str(dir), e)) return -1;
    }
    return 0;
}

int model_base_config_write(model_base_config *b, const char *logs_dir, ac_err *e)
{
    if (fs_mkdir_p(logs_dir, e) != 0) return -1;
    snprintf(b->path, sizeof b->path, "%s/base_cfg_%sb.yaml", logs_dir, b->size_text);
    return yaml_dump_file(b->cfg, b->path, e);
}

void model_base_config_free(model_base_config *b)
{
    if (!b) return;
    node_free(b->cfg);
    b->cfg = NULL;
}
