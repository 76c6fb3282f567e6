/* test_named.c — model names from benchmark tables resolve to architectures:
 * the presets under their published spellings, and served MoE layouts (Qwen3,
 * Llama 4) from their config.json; unknown names stay unknown. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model/layer.h"
#include "model/named.h"

extern const char ac_data_models[]; /* build/gen/data_models.c: data/models.csv compiled in */

static void test_presets_by_published_name(void)
{
    model_shape s;
    const char *src = NULL;
    CHECK_INT(model_named_shape("Llama 3.1 8B", &s, &src), 0);
    CHECK_INT(s.num_layers, 32);
    CHECK_INT(s.query_groups, 8);
    CHECK_INT(s.vocab, 128256);
    CHECK_CONTAINS(src, "Llama-3.1-8B");
    CHECK_INT(model_named_shape("Llama-3.3-70B-Instruct", &s, NULL), 0);
    CHECK_INT(s.hidden, 8192);
    CHECK_INT(model_named_shape("Mixtral 8x7B", &s, NULL), 0);
    CHECK_INT(s.num_experts, 8);
    /* the listed name of a spelling, preset or data/models.csv row */
    CHECK_STR(model_named_canonical("Llama-3.3-70B-Instruct"), "llama3_3_70b");
    CHECK_STR(model_named_canonical("Nemotron-H 56B"), "nemotron_h_56b");
    CHECK(model_named_canonical("Nope-7B") == NULL);
    /* an unknown name's nearest listed one, a row or a preset, when a few edits away */
    CHECK_STR(model_named_suggest("Nemotron-H 8"), "nemotron_h_8b");
    CHECK_STR(model_named_suggest("llama3_8"), "llama3_8b");
    CHECK(model_named_suggest("zzzz-zzzz") == NULL);
    /* a remark written without parentheses ("w/o MTP", as NeMo Automodel's table names it) */
    CHECK_STR(model_named_canonical("DeepSeek V3 w/o MTP"), "deepseek_v3");
}

static void test_served_moe(void)
{
    model_shape s;
    CHECK_INT(model_named_shape("Qwen3-30B-A3B", &s, NULL), 0);
    CHECK_INT(s.num_experts, 128);
    CHECK_INT(s.moe_topk, 8);
    CHECK_INT(s.kv_channels, 128);
    double active;
    /* Qwen3-30B-A3B: ~30.5B total, ~3.3B active (model card); of them the MLP stack holds
     * 48·128·3·2048·768 = 29.0B, 48·8·3·2048·768 = 1.8B active (attention, embeddings the rest) */
    double total = layer_stack_mlp_weights(&s, &active);
    CHECK(total > 28.5e9 && total < 29.5e9);
    CHECK(active > 1.75e9 && active < 1.95e9);
    CHECK_INT(model_named_shape("Llama 4 Maverick", &s, NULL), 0);
    CHECK_INT(s.moe_dense_layers, 24);
    CHECK_INT(s.moe_shared_ffn, 8192);
    CHECK_INT(model_named_shape("Llama-4-Scout-17B-16E-Instruct", &s, NULL), 0);
    CHECK_INT(s.num_experts, 16);
    CHECK_INT(s.attn_chunk, 8192); /* config.json attention_chunk_size, on the 36 RoPE layers of 48 */
    CHECK_INT(s.attn_chunk_layers, 36);
    CHECK_INT(model_named_shape("GPT-7B-unknown", &s, NULL), -1);
    CHECK_INT(model_named_shape("", &s, NULL), -1);
}

/* data/models.csv: training-era and MLA architectures by the names tables write */
static void test_catalog_names(void)
{
    model_shape s;
    const char *src = NULL;
    ac_err e;
    CHECK_INT(model_named_load(&e), 0);
    /* GPT-3 6.7B (Brown 2020 Table 2.1): 32 x 4096, tied embeddings, learned positions, 4h MLP;
     * 6.7B and 13B do not collide although dots are ignored (gpt367b vs gpt313b) */
    CHECK_INT(model_named_shape("GPT-3 6.7B", &s, &src), 0);
    CHECK_INT(s.num_layers, 32);
    CHECK_INT(s.ffn_hidden, 16384);
    CHECK(!s.untied_embeddings && s.learned_pos_emb && !s.gated_mlp);
    CHECK_CONTAINS(src, "Table 2.1");
    CHECK_INT(model_named_shape("GPT-3 13B", &s, NULL), -1);
    /* Falcon-7B: multi-query attention, head_dim 64 with 71 heads (4544 = 71 x 64) */
    CHECK_INT(model_named_shape("falcon-7b", &s, NULL), 0);
    CHECK_INT(s.query_groups, 1);
    CHECK_INT(s.heads * s.kv_channels, s.hidden);
    /* a table's spelling with remarks in parentheses and the size twice */
    CHECK_INT(model_named_shape("Grok-1 314B (MoE) 314B (proxy: 4 layers)", &s, NULL), 0);
    CHECK_INT(s.num_layers, 64);
    CHECK_INT(s.num_experts, 8);
    CHECK_INT(s.moe_topk, 2);
    CHECK_INT(s.moe_ffn_hidden, 32768);
    /* Kimi K2: DeepSeek-V3's latent attention with 384 experts, one dense layer, no MTP */
    CHECK_INT(model_named_shape("Kimi_K2", &s, NULL), 0);
    CHECK_INT(s.kv_lora_rank, 512);
    CHECK_INT(s.num_experts, 384);
    CHECK_INT(s.moe_dense_layers, 1);
    CHECK_INT(s.mtp_layers, 0);
    CHECK_INT(model_named_shape("DeepSeek-V3", &s, NULL), 0);
    CHECK_INT(s.mtp_layers, 1);
    CHECK_INT(s.moe_router_groups, 8);
    /* LLaMA (v1) 33B also goes by 30B */
    CHECK_INT(model_named_shape("LLaMA-30B", &s, NULL), 0);
    CHECK_INT(s.hidden, 6656);
    /* names tables print for the open models of 2023-2025, each against its config.json: Gemma's
     * 256-wide heads (16 x 256 = 4096 against a hidden of 3072) and tied embeddings; DBRX's 16
     * experts, 4 a token; DeepSeek-V2's latent attention, 160 experts, 2 shared of 1536, one dense
     * layer; Pythia's untied GPT-NeoX shape; Qwen2's 29568-wide MLP */
    static const struct {
        const char *name;
        int layers, hidden, attn_width, kv_heads, vocab, experts, topk, kv_lora, shared_ffn, dense_layers, ffn, gated, tied;
    } OPEN[] = {
        {"Gemma-7B", 28, 3072, 4096, 16, 256000, 0, 0, 0, 0, 0, 24576, 1, 1},
        {"DBRX", 40, 6144, 6144, 8, 100352, 16, 4, 0, 0, 0, 10752, 1, 0},
        {"DeepSeek-V2", 60, 5120, 16384, 128, 102400, 160, 6, 512, 3072, 1, 12288, 1, 0},
        {"Pythia-12B", 36, 5120, 5120, 40, 50688, 0, 0, 0, 0, 0, 20480, 0, 0},
        {"Qwen2-72B", 80, 8192, 8192, 8, 152064, 0, 0, 0, 0, 0, 29568, 1, 0},
        {"gemma-3-27b-it", 62, 5376, 4096, 16, 262208, 0, 0, 0, 0, 0, 21504, 1, 1},
    };
    for (size_t i = 0; i < sizeof OPEN / sizeof *OPEN; i++) {
        CHECK_INT(model_named_shape(OPEN[i].name, &s, NULL), 0);
        static const char *const field[] = {"layers", "hidden", "heads x head_dim", "KV heads", "vocab", "experts", "top-k",
                                            "kv_lora", "shared_ffn", "dense layers", "ffn", "gated", "tied"};
        int got[] = {s.num_layers, s.hidden, s.heads * s.kv_channels, s.query_groups, s.vocab, s.num_experts, s.moe_topk,
                     s.kv_lora_rank, (int)s.moe_shared_ffn, s.moe_dense_layers, s.ffn_hidden, s.gated_mlp, !s.untied_embeddings};
        int want[] = {OPEN[i].layers, OPEN[i].hidden, OPEN[i].attn_width, OPEN[i].kv_heads, OPEN[i].vocab, OPEN[i].experts,
                      OPEN[i].topk, OPEN[i].kv_lora, OPEN[i].shared_ffn, OPEN[i].dense_layers, OPEN[i].ffn, OPEN[i].gated,
                      OPEN[i].tied};
        for (size_t j = 0; j < sizeof got / sizeof *got; j++) {
            if (got[j] != want[j]) fprintf(stderr, "  %s: %s\n", OPEN[i].name, field[j]);
            CHECK_INT(got[j], want[j]);
        }
    }
    CHECK_INT(model_named_shape("Gemma-7B", &s, &src), 0);
    CHECK_CONTAINS(src, "gemma_pytorch");
}

/* hybrid Mamba-Transformers (Megatron-Bridge nemotron_h_provider.py): the pattern's blocks
 * and the Mamba-2 sizes; parameter counts against the published sizes */
static void test_hybrid_names(void)
{
    model_shape s;
    CHECK_INT(model_named_shape("NemotronH 56B", &s, NULL), 0);
    CHECK(shape_is_hybrid(&s));
    CHECK_INT(s.num_layers, 118);
    CHECK_INT(s.hyb_mamba, 54);
    CHECK_INT(s.hyb_attn, 10);
    CHECK_INT(s.hyb_mlp, 54);
    CHECK_INT(s.hyb_moe, 0);
    CHECK_INT(s.mamba_heads, 256);
    CHECK_INT(s.mamba_state, 256);
    CHECK_INT(layer_attn_count(&s), 10);
    CHECK_INT(model_named_shape("Nemotron_3_Nano", &s, NULL), 0);
    CHECK_INT(s.hyb_moe, 23);
    CHECK_INT(layer_moe_count(&s), 23);
    CHECK_INT(layer_dense_mlp_count(&s), 0);
    CHECK_INT(s.query_groups, 2);
    /* Nemotron-H 8B: in_proj 4096 → z 8192 + x 8192 + B, C 2·8·128 + dt 128 = 18560 wide,
     * out_proj 8192 → 4096 */
    CHECK_INT(model_named_shape("Nemotron-H-8B-Base-8K", &s, NULL), 0);
    layer_mamba mb;
    layer_mamba_of(&s, &mb);
    CHECK_NEAR(mb.inner, 8192, 1e-9);
    CHECK_NEAR(mb.xbc, 10240, 1e-9);
    CHECK_NEAR(mb.in_proj, 18560, 1e-9);
    CHECK_NEAR(mb.weights, 4096.0 * 18560 + 8192.0 * 4096, 1e-3);
    /* a transformer has no Mamba blocks, and every layer is an attention layer */
    CHECK_INT(model_named_shape("Llama 3.1 8B", &s, NULL), 0);
    CHECK(!shape_is_hybrid(&s));
    layer_mamba_of(&s, &mb);
    CHECK_NEAR(mb.weights, 0, 0);
    CHECK_INT(layer_attn_count(&s), 32);
}

/* the positions a release supports (max_position_embeddings), which run, infer and estimate
 * hold --model to: a preset's, a data/models.csv row's, 0 where none is published */
static void test_context(void)
{
    ac_err e;
    CHECK_INT(model_named_load(&e), 0);
    CHECK_INT(model_named_context("Llama 2 7B"), 4096);       /* preset: meta-llama/Llama-2-7b-hf */
    CHECK_INT(model_named_context("Llama 3.1 8B"), 131072);   /* preset: rope-scaled release */
    CHECK_INT(model_named_context("Falcon-40B"), 2048);       /* row: the Falcon series' 2048 */
    CHECK_INT(model_named_context("GPT-3 6.7B"), 2048);       /* row: Brown 2020 n_ctx */
    CHECK_INT(model_named_context("Mistral 7B"), 32768);      /* positions, not the 4096 sliding window */
    CHECK_INT(model_named_context("Llama-4-Scout-17B-16E-Instruct"), 10485760);
    CHECK_INT(model_named_context("nemotron_3_super"), 0);    /* none published: not checked */
    CHECK_INT(model_named_context("Nope-7B"), 0);
    /* every row carries the column; the rows' values are what the lookups give */
    int ctx = -1;
    const char *name;
    size_t i = 0;
    for (; model_named_at(i, &name, NULL, &ctx, NULL) == 0; i++) {
        CHECK(ctx >= 0);
        CHECK_INT(model_named_context(name), ctx);
    }
    CHECK_INT(i, model_named_count());
}

/* a malformed context cell is refused like the other counts: the file, the row's line, the column */
#define MODELS_HEADER                                                                                              \
    "name,aliases,layers,hidden,heads,kv_heads,head_dim,vocab,ffn,gated,tied,learned_pos,experts,topk,moe_ffn,"   \
    "shared_ffn,dense_layers,q_lora,kv_lora,qk_rope,v_head,mtp,router_groups,group_topk,attn_chunk,chunk_layers," \
    "hybrid,mamba_heads,mamba_head_dim,mamba_state,mamba_groups,moe_latent,context,source\n"
#define MODELS_ROW(ctx) "tiny,,2,64,4,4,16,100,256,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,,0,0,0,0,0," ctx ",a source\n"

static void test_context_cell(void)
{
    ac_err e;
    size_t rows = 0;
    static const char good[] = "# a comment\n" MODELS_HEADER MODELS_ROW("4096") MODELS_ROW("0");
    CHECK_INT(model_named_check_text(good, strlen(good), "t.csv", &rows, &e), 0);
    CHECK_INT(rows, 2);
    static const char *const bad[] = {"4k", "-1", "", "200000000"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        char text[1024];
        snprintf(text, sizeof text, "%s%s" MODELS_ROW("%s"), "# the header below\n", MODELS_HEADER, bad[k]);
        memset(&e, 0, sizeof e);
        CHECK_INT(model_named_check_text(text, strlen(text), "t.csv", NULL, &e), -1);
        CHECK_STR(e.file, "t.csv");
        CHECK_INT(e.line, 3);
        CHECK_STR(e.key, "context");
        CHECK_CONTAINS(e.msg, "not a count");
    }
    /* a table without the column is refused at its header */
    static const char missing[] = "name,aliases,layers,source\ntiny,,2,a source\n";
    CHECK_INT(model_named_check_text(missing, strlen(missing), "t.csv", NULL, &e), -1);
    CHECK_INT(e.line, 1);
    /* the compiled-in table itself passes, and the loaded one is left as it was */
    size_t table_rows = 0;
    CHECK_INT(model_named_check_text(ac_data_models, strlen(ac_data_models), "data/models.csv", &table_rows, &e), 0);
    CHECK_INT((int)table_rows, (int)model_named_count());
    CHECK_INT(model_named_context("Falcon-40B"), 2048);
}

static void test_hybrid_pattern(void)
{
    model_shape s = {0};
    s.num_layers = 7;
    CHECK_INT(layer_hybrid_pattern(&s, "M*-EM-E"), 0);
    CHECK_INT(s.num_layers, 7);
    CHECK_INT(s.hyb_mamba, 2);
    CHECK_INT(s.hyb_attn, 1);
    CHECK_INT(s.hyb_mlp, 2);
    CHECK_INT(s.hyb_moe, 2);
    /* Megatron-Core's symbols only; a bad pattern leaves the shape as it was */
    CHECK_INT(layer_hybrid_pattern(&s, "M*X"), -1);
    CHECK_INT(layer_hybrid_pattern(&s, ""), -1);
    CHECK_INT(s.num_layers, 7);
    CHECK_INT(s.hyb_mamba, 2);
}

int main(void)
{
    RUN(test_presets_by_published_name);
    RUN(test_served_moe);
    RUN(test_catalog_names);
    RUN(test_hybrid_names);
    RUN(test_hybrid_pattern);
    RUN(test_context);
    RUN(test_context_cell);
    CHECK_DONE();
}
