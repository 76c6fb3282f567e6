/* arch.c — see arch.h.  All tables restate reference §3 of
 * nemo-autoconfigurator.md (the original's base_config.py / utils.py). */
#include "model/arch.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/layer.h"

/* ---- §3.3: hidden / heads / ffn / kv / lr by size ---- */

typedef struct {
    double bound;    /* row applies when size < bound (or ≤ when inclusive) */
    bool inclusive;
    int hidden, heads, ffn, kv, groups;
    double lr;
} size_row;

/* GPT-3 (strict <); ffn and kv stay the template's (4h, null) */
static const size_row GPT3_ROWS[] = {
    { 0.25, false, 768, 12, 0, 0, 0, 6e-4 },   { 0.5, false, 1024, 16, 0, 0, 0, 3e-4 },
    { 1, false, 1536, 16, 0, 0, 0, 2.5e-4 },   { 2, false, 2048, 16, 0, 0, 0, 2e-4 },
    { 3, false, 2560, 32, 0, 0, 0, 1.6e-4 },   { 4.5, false, 3072, 32, 0, 0, 0, 1.4e-4 },
    { 8, false, 4096, 32, 0, 0, 0, 1.2e-4 },   { 15, false, 5120, 40, 0, 0, 0, 1e-4 },
    { 25, false, 6144, 48, 0, 0, 0, 1e-4 },    { 52, false, 8192, 64, 0, 0, 0, 0.8e-4 },
    { 105, false, 10240, 80, 0, 0, 0, 0.7e-4 }, { 205, false, 12288, 96, 0, 0, 0, 0.6e-4 },
    { 405, false, 20480, 128, 0, 0, 0, 0.5e-4 }, { 805, false, 20480, 128, 0, 0, 0, 0.4e-4 },
    { 1105, false, 25600, 160, 0, 0, 0, 0.3e-4 },
};

/* T5 (mixed < and ≤ as in the original) */
static const size_row T5_ROWS[] = {
    { 0.1, false, 512, 6, 1024, 64, 0, 1e-4 },     { 0.4, false, 768, 12, 2048, 64, 0, 1e-4 },
    { 1, false, 1024, 16, 2816, 64, 0, 1e-4 },     { 5, false, 2048, 32, 5120, 64, 0, 1e-4 },
    { 15, false, 4096, 64, 10240, 64, 0, 1e-4 },   { 25.9, false, 5120, 80, 10880, 64, 0, 1e-4 },
    { 43.0, false, 6144, 96, 10880, 64, 0, 1e-4 }, { 85.5, true, 6144, 96, 16384, 64, 0, 1e-4 },
    { 165.5, true, 7680, 96, 20480, 128, 0, 1e-4 }, { 250, true, 12288, 96, 32768, 128, 0, 1e-4 },
};

/* mT5: T5's table with the first three bounds at 0.25, 0.5, 1.2 */
static const size_row MT5_ROWS[] = {
    { 0.25, false, 512, 6, 1024, 64, 0, 1e-4 },    { 0.5, false, 768, 12, 2048, 64, 0, 1e-4 },
    { 1.2, false, 1024, 16, 2816, 64, 0, 1e-4 },   { 5, false, 2048, 32, 5120, 64, 0, 1e-4 },
    { 15, false, 4096, 64, 10240, 64, 0, 1e-4 },   { 25.9, false, 5120, 80, 10880, 64, 0, 1e-4 },
    { 43.0, false, 6144, 96, 10880, 64, 0, 1e-4 }, { 85.5, true, 6144, 96, 16384, 64, 0, 1e-4 },
    { 165.5, true, 7680, 96, 20480, 128, 0, 1e-4 }, { 250, true, 12288, 96, 32768, 128, 0, 1e-4 },
};

/* BERT: ffn = 4h; lr 2e-4 below 0.5 B else 1e-4 */
static const size_row BERT_ROWS[] = {
    { 0.25, false, 768, 12, 0, 0, 0, 2e-4 },  { 0.5, false, 1024, 16, 0, 0, 0, 1e-4 },
    { 1, false, 1536, 16, 0, 0, 0, 1e-4 },    { 2, false, 2048, 16, 0, 0, 0, 1e-4 },
    { 3, false, 2560, 32, 0, 0, 0, 1e-4 },    { 4.5, false, 2560, 32, 0, 0, 0, 1e-4 },
    { 8, false, 4096, 32, 0, 0, 0, 1e-4 },    { 15, false, 5120, 40, 0, 0, 0, 1e-4 },
    { 25, true, 6144, 48, 0, 0, 0, 1e-4 },    { 46.5, true, 7680, 48, 0, 0, 0, 1e-4 },
    { 87.5, true, 9216, 96, 0, 0, 0, 1e-4 },  { 165.5, true, 9216, 96, 0, 0, 0, 1e-4 },
    { 250.5, true, 12288, 96, 0, 0, 0, 1e-4 },
};

/* Ours: Llama-style widths follow the released Llama 2/3 and 3.1-405B shapes
 * (GQA with 8 KV heads, SwiGLU ffn ≈ 3.5h rounded as Meta rounds it). */
static const size_row LLAMA_ROWS[] = {
    { 2, false, 2048, 32, 8192, 0, 8, 3e-4 },     { 5, false, 3072, 24, 8192, 0, 8, 3e-4 },
    { 10, false, 4096, 32, 14336, 0, 8, 3e-4 },   { 20, false, 5120, 40, 13824, 0, 8, 3e-4 },
    { 45, false, 6656, 52, 17920, 0, 8, 1.5e-4 }, { 120, false, 8192, 64, 28672, 0, 8, 1.5e-4 },
    { 250, false, 12288, 96, 40960, 0, 8, 1e-4 }, { 600, true, 16384, 128, 53248, 0, 8, 8e-5 },
};

/* Ours: Mixtral-style 8 experts, top-2 (8x7B and 8x22B widths); below 25 B the same
 * proportions at smaller widths (expert ffn 3.5h, head dim 128, 8 KV groups), so a
 * small compute budget gets a model that exists rather than no layer count */
static const size_row MIXTRAL_ROWS[] = {
    { 8, false, 2048, 16, 7168, 0, 8, 3e-4 },
    { 25, false, 3072, 24, 10752, 0, 8, 2e-4 },
    { 80, false, 4096, 32, 14336, 0, 8, 1e-4 },
    { 300, true, 6144, 48, 16384, 0, 8, 1e-4 },
};

typedef struct { const size_row *rows; size_t n; } size_table;

static size_table table_for(family_id f)
{
    switch (f) {
    case FAM_GPT3: return (size_table){ GPT3_ROWS, sizeof GPT3_ROWS / sizeof GPT3_ROWS[0] };
    case FAM_T5: return (size_table){ T5_ROWS, sizeof T5_ROWS / sizeof T5_ROWS[0] };
    case FAM_MT5: return (size_table){ MT5_ROWS, sizeof MT5_ROWS / sizeof MT5_ROWS[0] };
    case FAM_BERT: return (size_table){ BERT_ROWS, sizeof BERT_ROWS / sizeof BERT_ROWS[0] };
    case FAM_LLAMA: return (size_table){ LLAMA_ROWS, sizeof LLAMA_ROWS / sizeof LLAMA_ROWS[0] };
    case FAM_MIXTRAL: return (size_table){ MIXTRAL_ROWS, sizeof MIXTRAL_ROWS / sizeof MIXTRAL_ROWS[0] };
    default: return (size_table){ NULL, 0 };
    }
}

/* ---- §3.4: parameter counts ---- */

/* GPT: 12·L·h²·(1 + 13/(12h) + (V+s)/(12·L·h)) — reference §3.4 (original utils.py) */
static double params_gpt(const model_shape *s)
{
    double L = s->num_layers, h = s->hidden, V = s->vocab, sq = s->seq_length;
    return 12.0 * L * h * h * (1.0 + 13.0 / (12.0 * h) + (V + sq) / (12.0 * L * h));
}

/* T5/mT5 with P = A·kv: 2·L·1.5·F + 3·L·P + h·(2 + 4·L·1.5·F + L·(21 + 12·P) + s + V) — reference §3.4.
 * (The original's expression, dimensionally odd as it is, defines the sizes its presets are named by.) */
static double params_t5(const model_shape *s)
{
    double L = s->num_layers, h = s->hidden, V = s->vocab, sq = s->seq_length, F = s->ffn_hidden;
    double P = (double)s->heads * s->kv_channels;
    return 2 * L * 1.5 * F + 3 * L * P + h * (2 + 4 * L * 1.5 * F + L * (21 + 12 * P) + sq + V);
}

/* BERT: L·(F + h·(4h + 3A + 2F + 6)) + h·(V + s + h + 5) — reference §3.4 */
static double params_bert(const model_shape *s)
{
    double L = s->num_layers, h = s->hidden, V = s->vocab, sq = s->seq_length, F = s->ffn_hidden, A = s->heads;
    return L * (F + h * (4 * h + 3 * A + 2 * F + 6)) + h * (V + sq + h + 5);
}

/* A decoder counted from its layer definitions (model/layer.h): per layer attention
 * h·(a + 2g)·d + a·d·h, FFN 3·h·F (gated) or 2·h·F per expert, router h·E, two norms h each
 * (a hybrid stack: attention on its attention blocks, Mamba-2 mixers, one norm per block);
 * plus input and (untied) output embeddings V·h and a final norm h.  Llama/Mixtral presets
 * are SwiGLU whatever the shape says (params_llama). */
static double params_decoder(const model_shape *s)
{
    double L = s->num_layers, h = s->hidden, V = s->vocab;
    layer_attn at;
    layer_attn_of(s, &at);
    layer_mamba mb;
    layer_mamba_of(s, &mb);
    /* a hybrid stack's blocks: attention on its attention blocks, Mamba-2 mixers (mb.params
     * holds the block's own norm), one norm per block */
    double mixers = shape_is_hybrid(s) ? layer_attn_count(s) * at.weights + s->hyb_mamba * (mb.params - h) + L * h
                                       : L * (at.weights + 2.0 * h);
    return mixers + layer_stack_mlp_weights(s, NULL) + (s->untied_embeddings ? 2.0 : 1.0) * V * h + h;
}

static double params_llama(const model_shape *shape)
{
    model_shape swiglu = *shape; /* these families are SwiGLU whatever the shape says */
    swiglu.gated_mlp = true;
    return params_decoder(&swiglu);
}

double model_param_count_shape_b(const model_shape *s) { return params_decoder(s) / 1e9; }

double model_param_count_b(family_id fam, const model_shape *s)
{
    switch (fam) {
    case FAM_GPT3: return params_gpt(s) / 1e9;
    case FAM_T5:
    case FAM_MT5: return params_t5(s) / 1e9;
    case FAM_BERT: return params_bert(s) / 1e9;
    case FAM_LLAMA:
    case FAM_MIXTRAL: return params_llama(s) / 1e9;
    default: return NAN;
    }
}

/* ---- §3.5: layer-count search ---- */

typedef struct { int start, step, stop; int sweeps; bool powers_of_two; } layer_pass;

/* five passes, each widening its margin by 0.01 per sweep (reference §3.5) */
static const layer_pass PASSES[] = {
    { 1, 0, 9, 10, true }, /* 2^1 .. 2^9 */
    { 16, 16, 200, 6, false },
    { 2, 2, 200, 6, false },
    { 5, 5, 200, 6, false },
    { 1, 1, 199, 10, false },
};

static bool find_layers(family_id fam, double target, model_shape *s)
{
    for (size_t p = 0; p < sizeof PASSES / sizeof PASSES[0]; p++) {
        const layer_pass *lp = &PASSES[p];
        double margin = 0.01;
        for (int sweep = 0; sweep < lp->sweeps; sweep++) {
            for (int i = lp->start; i <= lp->stop; i += lp->powers_of_two ? 1 : lp->step) {
                int L = lp->powers_of_two ? 1 << i : i;
                s->num_layers = L;
                double size = model_param_count_b(fam, s);
                if (target * (1 - margin) < size && size < target * (1 + margin)) return true;
            }
            margin += 0.01; /* accumulated in double as the original does */
        }
    }
    return false;
}

int model_arch_for_size(family_id fam, double size_b, int vocab, int seq, model_arch_choice *out, ac_err *e)
{
    const model_family *mf = model_family_get(fam);
    size_table t = table_for(fam);
    if (!mf || !t.rows) return ac_err_set(e, AC_E_INPUT, "no size table for this family");
    if (!(size_b > 0)) return ac_err_set(e, AC_E_INPUT, "model size must be positive, got %g B", size_b);
    const size_row *row = NULL;
    for (size_t i = 0; i < t.n && !row; i++)
        if (t.rows[i].inclusive ? size_b <= t.rows[i].bound : size_b < t.rows[i].bound) row = &t.rows[i];
    if (!row)
        return ac_err_set(e, AC_E_INPUT, "%s has no architecture for %g B parameters (largest: %s %g B)", mf->name, size_b,
                          t.rows[t.n - 1].inclusive ? "≤" : "<", t.rows[t.n - 1].bound);
    memset(out, 0, sizeof *out);
    model_shape *s = &out->shape;
    s->arch = mf->arch;
    s->hidden = row->hidden;
    s->heads = row->heads;
    s->query_groups = row->groups ? row->groups : row->heads;
    s->vocab = vocab;
    s->seq_length = seq;
    s->dec_seq_length = mf->default_dec_seq;
    s->gated_mlp = mf->gated_mlp;
    s->untied_embeddings = mf->untied_embeddings;
    s->learned_pos_emb = mf->learned_pos_emb;
    out->lr = row->lr;
    if (fam == FAM_BERT) {
        s->ffn_hidden = 4 * row->hidden;
        out->ffn_given = true;
    } else if (row->ffn) {
        s->ffn_hidden = row->ffn;
        out->ffn_given = true;
    } else {
        s->ffn_hidden = 4 * row->hidden; /* the GPT template's ${multiply:4, ${.hidden_size}} */
    }
    if (row->kv) {
        s->kv_channels = row->kv;
        out->kv_given = true;
    } else {
        s->kv_channels = row->hidden / row->heads;
    }
    if (fam == FAM_MIXTRAL) {
        s->num_experts = 8;
        s->moe_topk = 2;
        s->moe_ffn_hidden = s->ffn_hidden;
    }
    if (!find_layers(fam, size_b, s))
        return ac_err_set(e, AC_E_INPUT, "number of layers not found for %s at %g B (hidden %d)", mf->name, size_b, s->hidden);
    return 0;
}

/* ---- §3.2: GBS / TP / PP by size ---- */

typedef struct {
    family_id fam;  /* FAM_T5 rows also serve mT5 */
    int gpu_mem;    /* 40 or 80 */
    int seq;        /* 0 = any (the table demands a fixed seq elsewhere) */
    double max_size;
    int gbs, tp, pp;
} gbs_row;

static const gbs_row GBS_ROWS[] = {
    /* GPT-3, 80 GB */
    { FAM_GPT3, 80, 2048, 1.0, 256, 1, 1 }, { FAM_GPT3, 80, 2048, 4.0, 1024, 1, 1 },
    { FAM_GPT3, 80, 2048, 8.0, 2048, 2, 1 }, { FAM_GPT3, 80, 2048, 13.0, 2048, 4, 1 },
    { FAM_GPT3, 80, 2048, 20.6, 2048, 8, 1 }, { FAM_GPT3, 80, 2048, 45.6, 2048, 8, 2 },
    { FAM_GPT3, 80, 2048, 123.6, 2048, 8, 4 }, { FAM_GPT3, 80, 2048, 196.6, 2048, 8, 8 },
    { FAM_GPT3, 80, 2048, 392.2, 2048, 8, 16 }, { FAM_GPT3, 80, 2048, 735, 2048, 8, 32 },
    { FAM_GPT3, 80, 2048, 1100, 2048, 8, 64 },
    { FAM_GPT3, 80, 4096, 1.0, 128, 1, 1 }, { FAM_GPT3, 80, 4096, 4.0, 512, 1, 1 },
    { FAM_GPT3, 80, 4096, 8.0, 1024, 2, 1 }, { FAM_GPT3, 80, 4096, 13.0, 1024, 4, 1 },
    { FAM_GPT3, 80, 4096, 20.6, 1024, 4, 2 }, { FAM_GPT3, 80, 4096, 45.6, 1024, 8, 2 },
    { FAM_GPT3, 80, 8192, 1.0, 64, 1, 1 }, { FAM_GPT3, 80, 8192, 4.0, 256, 1, 1 },
    { FAM_GPT3, 80, 8192, 8.0, 512, 2, 1 }, { FAM_GPT3, 80, 8192, 13.0, 512, 4, 1 },
    { FAM_GPT3, 80, 8192, 20.6, 512, 4, 4 }, { FAM_GPT3, 80, 8192, 45.6, 512, 8, 2 },
    { FAM_GPT3, 80, 16384, 1.0, 32, 2, 1 }, { FAM_GPT3, 80, 16384, 4.0, 128, 2, 1 },
    { FAM_GPT3, 80, 16384, 8.0, 256, 2, 2 }, { FAM_GPT3, 80, 16384, 13.0, 256, 4, 1 },
    { FAM_GPT3, 80, 16384, 20.6, 256, 8, 2 },
    { FAM_GPT3, 80, 32768, 1.0, 16, 2, 1 }, { FAM_GPT3, 80, 32768, 4.0, 64, 2, 1 },
    { FAM_GPT3, 80, 32768, 8.0, 128, 4, 2 }, { FAM_GPT3, 80, 32768, 13.0, 128, 4, 2 },
    { FAM_GPT3, 80, 32768, 20.6, 128, 8, 2 },
    /* GPT-3, 40 GB (seq 2048 only) */
    { FAM_GPT3, 40, 2048, 1.0, 256, 1, 1 }, { FAM_GPT3, 40, 2048, 4.0, 1024, 4, 1 },
    { FAM_GPT3, 40, 2048, 8.0, 2048, 8, 1 }, { FAM_GPT3, 40, 2048, 13.0, 2048, 8, 2 },
    { FAM_GPT3, 40, 2048, 20.6, 2048, 8, 4 }, { FAM_GPT3, 40, 2048, 45.6, 2048, 8, 4 },
    { FAM_GPT3, 40, 2048, 123.6, 2048, 8, 8 }, { FAM_GPT3, 40, 2048, 196.6, 2048, 8, 16 },
    { FAM_GPT3, 40, 2048, 392.2, 2048, 8, 32 }, { FAM_GPT3, 40, 2048, 735, 2048, 8, 64 },
    { FAM_GPT3, 40, 2048, 1100, 2048, 8, 128 },
    /* T5 / mT5 (seq 512) */
    { FAM_T5, 80, 512, 1.0, 2048, 1, 1 }, { FAM_T5, 80, 512, 5.0, 1920, 2, 1 },
    { FAM_T5, 80, 512, 11.5, 1920, 4, 1 }, { FAM_T5, 80, 512, 18.5, 1920, 8, 1 },
    { FAM_T5, 80, 512, 25.9, 1920, 8, 2 }, { FAM_T5, 80, 512, 43.0, 1920, 8, 4 },
    { FAM_T5, 80, 512, 85.5, 1920, 8, 8 }, { FAM_T5, 80, 512, 165.5, 1920, 8, 16 },
    { FAM_T5, 80, 512, 250, 1920, 8, 32 },
    /* 40 GB: the original's ≤0.5 row is overwritten by a following plain `if`
     * (quirk 1, sizes ≤ 0.5 got TP 2); we apply the row it meant. */
    { FAM_T5, 40, 512, 0.5, 2048, 1, 1 }, { FAM_T5, 40, 512, 1.0, 2048, 2, 1 },
    { FAM_T5, 40, 512, 5.0, 1920, 4, 1 }, { FAM_T5, 40, 512, 11.5, 1920, 8, 1 },
    { FAM_T5, 40, 512, 18.5, 1920, 8, 2 }, { FAM_T5, 40, 512, 25.9, 1920, 8, 4 },
    { FAM_T5, 40, 512, 43.0, 1920, 8, 8 }, { FAM_T5, 40, 512, 85.5, 1920, 8, 16 },
    { FAM_T5, 40, 512, 165.5, 1920, 8, 32 }, { FAM_T5, 40, 512, 250, 1920, 8, 64 },
    /* BERT (seq 512) */
    { FAM_BERT, 80, 512, 1.0, 256, 1, 1 }, { FAM_BERT, 80, 512, 3.2, 1024, 1, 1 },
    { FAM_BERT, 80, 512, 8.0, 2048, 2, 1 }, { FAM_BERT, 80, 512, 13.0, 2048, 4, 1 },
    { FAM_BERT, 80, 512, 25.5, 2048, 8, 1 }, { FAM_BERT, 80, 512, 46.5, 2048, 8, 2 },
    { FAM_BERT, 80, 512, 87.5, 2048, 8, 4 }, { FAM_BERT, 80, 512, 165.5, 4096, 8, 8 },
    { FAM_BERT, 80, 512, 250.5, 2048, 8, 16 },
    { FAM_BERT, 40, 512, 1.0, 256, 1, 1 }, { FAM_BERT, 40, 512, 3.2, 1024, 4, 1 },
    { FAM_BERT, 40, 512, 8.0, 2048, 8, 1 }, { FAM_BERT, 40, 512, 13.0, 2048, 8, 2 },
    { FAM_BERT, 40, 512, 25, 2048, 8, 4 }, { FAM_BERT, 40, 512, 46.5, 2048, 8, 8 },
    { FAM_BERT, 40, 512, 87.5, 2048, 8, 16 }, { FAM_BERT, 40, 512, 165.5, 2048, 8, 32 },
    { FAM_BERT, 40, 512, 250.5, 2048, 8, 64 },
};

/* Ours, Llama/Mixtral: the global batch holds ~4M tokens (Llama 2/3 papers:
 * 4M-token batches), TP/PP grow with size as in the GPT-3 table. */
typedef struct { double max_size; int tp, pp; } mp_row;
static const mp_row LLAMA_MP[] = {
    { 4.0, 1, 1 }, { 10.0, 2, 1 }, { 20.0, 4, 1 }, { 50.0, 8, 2 }, { 125.0, 8, 4 }, { 250.0, 8, 8 }, { 600.0, 8, 16 },
};

int model_gbs_tp_pp(family_id fam, double size_b, int seq, int gpu_memory_gb, int *gbs, int *tp, int *pp, ac_err *e)
{
    const model_family *mf = model_family_get(fam);
    if (fam == FAM_LLAMA || fam == FAM_MIXTRAL) {
        size_t rows = sizeof LLAMA_MP / sizeof LLAMA_MP[0];
        for (size_t i = 0; i < rows; i++) {
            /* past the last row (DeepSeek-V3, Kimi K2) its layout is the starting point; the
             * command line's --tp/--pp/--ep and the search say the rest */
            if (size_b <= LLAMA_MP[i].max_size || i + 1 == rows) {
                int g = (int)(4194304 / seq);
                *gbs = g < 16 ? 16 : g;
                *tp = LLAMA_MP[i].tp;
                *pp = LLAMA_MP[i].pp;
                if (fam == FAM_MIXTRAL && *pp < 2 && size_b > 20) *pp = 2;
                return 0;
            }
        }
    }
    family_id key = fam == FAM_MT5 ? FAM_T5 : fam;
    int mem = gpu_memory_gb <= 48 ? 40 : 80; /* smaller GPUs use the 40 GB table */
    bool seq_known = false;
    for (size_t i = 0; i < sizeof GBS_ROWS / sizeof GBS_ROWS[0]; i++) {
        const gbs_row *r = &GBS_ROWS[i];
        if (r->fam != key || r->gpu_mem != mem || r->seq != seq) continue;
        seq_known = true;
        if (size_b <= r->max_size) {
            *gbs = r->gbs;
            *tp = r->tp;
            *pp = r->pp;
            return 0;
        }
    }
    if (!seq_known) {
        const char *avail = key == FAM_GPT3 ? (mem == 80 ? "2048, 4096, 8192, 16384, 32768" : "2048") : "512";
        return ac_err_set(e, AC_E_INPUT, "%s with %d GB GPUs: seq_length %d is not supported (available: %s)", mf->name,
                          mem, seq, avail);
    }
    return ac_err_set(e, AC_E_INPUT, "%s at seq_length %d with %d GB GPUs: no batch/parallel defaults for %g B parameters",
                      mf->name, seq, mem, size_b);
}
