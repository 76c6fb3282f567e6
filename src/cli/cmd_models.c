/* cmd_models.c — `autoconfig models`: the architectures published by name (data/models.csv),
 * which `--model NAME` and `validate` read, with their sizes and the source of each. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "model/arch.h"
#include "model/family.h"
#include "model/layer.h"
#include "model/named.h"
#include "util/json.h"

static const char MODELS_HELP[] =
    "usage: autoconfig models [--json]\n"
    "\n"
    "Lists the architectures `--model NAME` (estimate, run, infer) and `validate` know by\n"
    "their published name (data/models.csv): parameters (as published: without multi-token\n"
    "prediction layers, which `estimate` counts), layers, width, heads and KV heads, the\n"
    "positions the release supports (context: max_position_embeddings, which run, infer and\n"
    "estimate hold a sequence or a request to; - when none is published), MLP, experts,\n"
    "hybrid Mamba-2 blocks, and where the numbers come from. Names match\n"
    "ignoring case, blanks, dots, dashes and underscores; the built-in presets (llama3_8b,\n"
    "mixtral_8x7b, ...) are listed at the end.\n";

/* "dense", "128x top-6", "512x top-22 latent 1024" */
static void experts_text(const model_shape *s, char *buf, size_t n)
{
    if (!shape_is_moe(s)) { snprintf(buf, n, "-"); return; }
    int w = snprintf(buf, n, "%dx top-%d", s->num_experts, s->moe_topk);
    if (s->moe_latent > 0 && w > 0 && (size_t)w < n) snprintf(buf + w, n - (size_t)w, " latent %d", s->moe_latent);
}

/* "M 24 * 4 - 24" for a hybrid stack, "-" otherwise */
static void hybrid_text(const model_shape *s, char *buf, size_t n)
{
    if (!shape_is_hybrid(s)) { snprintf(buf, n, "-"); return; }
    snprintf(buf, n, "M %d * %d - %d E %d", s->hyb_mamba, s->hyb_attn, s->hyb_mlp, s->hyb_moe);
}

int cmd_models(int argc, char **argv)
{
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) json = true;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { fputs(MODELS_HELP, stdout); return 0; }
        else { fprintf(stderr, "autoconfig: error: unknown argument '%s' (see --help)\n", argv[i]); return 2; }
    }
    ac_err e;
    if (model_named_load(&e)) return cli_fail(&e);
    char presets[1024];
    model_preset_arch_names(presets, sizeof presets);
    json_writer w;
    if (json) {
        json_begin(&w, stdout);
        json_obj_open(&w, NULL);
        json_arr_open(&w, "models");
    } else {
        printf("%-24s %9s %6s %6s %9s %8s %-16s %-24s %-20s\n", "name", "params B", "layers", "hidden", "heads/kv",
               "context", "MLP", "experts", "hybrid blocks");
    }
    for (size_t i = 0; i < model_named_count(); i++) {
        const char *name, *source;
        model_shape s;
        int context;
        if (model_named_at(i, &name, &s, &context, &source)) break;
        double params = model_param_count_shape_b(&s);
        char exp[48], hyb[48], mlp[32];
        experts_text(&s, exp, sizeof exp);
        hybrid_text(&s, hyb, sizeof hyb);
        snprintf(mlp, sizeof mlp, "%s %d", s.gated_mlp ? "gated" : "plain", shape_is_moe(&s) ? s.moe_ffn_hidden : s.ffn_hidden);
        if (json) {
            json_obj_open(&w, NULL);
            json_str(&w, "name", name);
            json_num(&w, "params_b", params);
            json_int(&w, "layers", s.num_layers);
            json_int(&w, "hidden", s.hidden);
            json_int(&w, "heads", s.heads);
            json_int(&w, "kv_heads", shape_query_groups(&s));
            json_int(&w, "context", context); /* 0: none published, not checked */
            json_bool(&w, "gated_mlp", s.gated_mlp);
            json_int(&w, "mlp_width", shape_is_moe(&s) ? s.moe_ffn_hidden : s.ffn_hidden);
            json_int(&w, "experts", shape_is_moe(&s) ? s.num_experts : 0);
            json_int(&w, "experts_per_token", shape_is_moe(&s) ? s.moe_topk : 0);
            json_int(&w, "expert_latent", s.moe_latent);
            json_bool(&w, "hybrid", shape_is_hybrid(&s));
            json_int(&w, "mamba_blocks", s.hyb_mamba);
            json_int(&w, "attention_blocks", s.hyb_attn);
            json_int(&w, "mlp_blocks", s.hyb_mlp);
            json_int(&w, "expert_blocks", s.hyb_moe);
            json_str(&w, "source", source);
            json_obj_close(&w);
        } else {
            char heads[24], ctx[16] = "-";
            snprintf(heads, sizeof heads, "%d/%d", s.heads, shape_query_groups(&s));
            if (context > 0) snprintf(ctx, sizeof ctx, "%d", context);
            printf("%-24s %9.2f %6d %6d %9s %8s %-16s %-24s %-20s\n", name, params, s.num_layers, s.hidden, heads, ctx, mlp,
                   exp, hyb);
        }
    }
    if (json) {
        json_arr_close(&w);
        json_arr_open(&w, "presets");
        for (char *save = NULL, *p = strtok_r(presets, ", ", &save); p; p = strtok_r(NULL, ", ", &save))
            json_str(&w, NULL, p);
        json_arr_close(&w);
        json_obj_close(&w);
        json_end(&w);
    } else {
        printf("presets (search_config.train_settings.model_name): %s\n", presets);
    }
    return 0;
}
