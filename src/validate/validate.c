/* validate.c — predicted vs published training throughput, per row and per source. */
#include "validate/validate.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "validate/footnote.h"
#include "validate/recipe.h"
#include "model/family.h"
#include "model/named.h"
#include "validate/spelling.h"
#include "validate/tally.h"
#include "util/fsutil.h"
#include "util/json.h"
#include "util/strbuf.h"
#include "util/text.h"
#include "util/stats.h"

/* column lookups are by name: any CSV of the schema works */
typedef struct {
    int id, source_id, model_family, model, num_layers, hidden, ffn, heads, groups, experts, topk, moe_ffn, vocab, seq;
    int gpu_type, num_gpus, tp, pp, vp, cp, ep, etp, dp, fsdp, mbs, gbs, grad_accum, recompute, seq_par, dist_opt, precision;
    int tok_gpu, tok, step, tflops, mfu, flops_formula, task, arch_source, notes;
    int a2a_overlap, cuda_graphs, act_offload, fused_mlp, compile; /* optional: runs of one's own can say which switches were on */
    int dec_seq, lora_rank, overlap_grad_sync;            /* optional: T5 decoder length, LoRA rank, DP overlap */
    int peak_mem;                                         /* optional: the run's published peak memory, GiB */
    int framework, grad_fp32, fp8_gather;      /* the recipe (data/recipes.csv), or the row's own switches */
    int tp_overlap, gacc_fusion;               /* optional: TP communication overlap, gradient accumulation fusion */
    int release, source;                       /* the container release a recipe row may start from */
    int gpus_per_node;                         /* optional: a node unlike the catalog's (4-GPU H200 boards) */
    int network_gbps;                          /* optional: its scale-out, Gb/s a node (Omni-Path, EFA) */
} columns;

static columns find_columns(const csv_table *t)
{
    columns c;
    c.id = csv_col(t, "id"); c.source_id = csv_col(t, "source_id");
    c.model_family = csv_col(t, "model_family"); c.model = csv_col(t, "model");
    c.num_layers = csv_col(t, "num_layers"); c.hidden = csv_col(t, "hidden_size");
    c.ffn = csv_col(t, "ffn_hidden_size"); c.heads = csv_col(t, "num_attention_heads");
    c.groups = csv_col(t, "num_query_groups"); c.experts = csv_col(t, "num_experts");
    c.topk = csv_col(t, "moe_topk"); c.moe_ffn = csv_col(t, "moe_ffn_hidden_size");
    c.vocab = csv_col(t, "vocab_size"); c.seq = csv_col(t, "seq_length");
    c.gpu_type = csv_col(t, "gpu_type"); c.num_gpus = csv_col(t, "num_gpus");
    c.tp = csv_col(t, "tp"); c.pp = csv_col(t, "pp"); c.vp = csv_col(t, "vp"); c.cp = csv_col(t, "cp");
    c.ep = csv_col(t, "ep"); c.etp = csv_col(t, "etp"); c.dp = csv_col(t, "dp"); c.fsdp = csv_col(t, "fsdp");
    c.mbs = csv_col(t, "mbs"); c.gbs = csv_col(t, "gbs"); c.grad_accum = csv_col(t, "grad_accum"); c.recompute = csv_col(t, "act_recompute");
    c.seq_par = csv_col(t, "seq_parallel"); c.dist_opt = csv_col(t, "dist_opt_zero");
    c.precision = csv_col(t, "precision"); c.tok_gpu = csv_col(t, "tokens_per_s_per_gpu");
    c.tok = csv_col(t, "tokens_per_s"); c.step = csv_col(t, "step_time_s");
    c.tflops = csv_col(t, "tflops_per_gpu"); c.mfu = csv_col(t, "mfu_pct"); c.flops_formula = csv_col(t, "flops_formula");
    c.task = csv_col(t, "task");
    c.framework = csv_col(t, "framework");
    c.gpus_per_node = csv_col(t, "gpus_per_node");
    c.network_gbps = csv_col(t, "network_gbps");
    c.grad_fp32 = csv_col(t, "grad_reduce_in_fp32"); c.fp8_gather = csv_col(t, "fp8_param_gather");
    c.tp_overlap = csv_col(t, "tp_comm_overlap"); c.gacc_fusion = csv_col(t, "gradient_accumulation_fusion");
    c.a2a_overlap = csv_col(t, "moe_a2a_overlap"); c.cuda_graphs = csv_col(t, "cuda_graphs");
    c.act_offload = csv_col(t, "cpu_offloading_num_layers"); c.fused_mlp = csv_col(t, "fused_expert_mlp");
    c.compile = csv_col(t, "torch_compile");
    c.release = csv_col(t, "release"); c.source = csv_col(t, "source");
    c.arch_source = csv_col(t, "arch_source"); c.notes = csv_col(t, "notes");
    c.dec_seq = csv_col(t, "dec_seq_length"); c.lora_rank = csv_col(t, "lora_rank");
    c.overlap_grad_sync = csv_col(t, "overlap_grad_sync");
    c.peak_mem = csv_col(t, "peak_mem_gib");
    return c;
}

/* a count written in a text cell, capped where no table value goes (int arithmetic stays safe) */
static int text_count(const char *digits)
{
    long v = strtol(digits, NULL, 10);
    return v < 0 ? 0 : v > 1000000 ? 1000000 : (int)v;
}

/* the integer right before `key` in text ("1 shared" → 1), or 0 */
static int int_before(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    if (!p) return 0;
    while (p > text && p[-1] == ' ') p--;
    const char *q = p;
    while (q > text && isdigit((unsigned char)q[-1])) q--;
    return q < p ? text_count(q) : 0;
}

/* a number cell: returns 1 and sets *v, 0 when empty or not a number */
static int num(const csv_row *r, int col, double *v)
{
    const char *s = csv_get(r, col);
    while (*s == ' ') s++;
    if (!*s || spell_blank(s)) return 0;
    /* tables group thousands ("1,024", "4 096", "1_000"): drop separators between digits */
    char buf[64];
    size_t n = 0;
    for (const char *p = s; *p && n + 1 < sizeof buf; p++) {
        bool sep = (*p == ',' || *p == '_' || *p == ' ') && p > s && isdigit((unsigned char)p[-1]) &&
                   isdigit((unsigned char)p[1]) && isdigit((unsigned char)p[2]) && isdigit((unsigned char)p[3]) &&
                   !isdigit((unsigned char)p[4]);
        if (!sep) buf[n++] = *p;
    }
    buf[n] = '\0';
    char *end;
    double x = strtod(buf, &end);
    while (*end == ' ') end++;
    /* integers the estimator uses fit an int; anything beyond is not a real table value */
    if (*end || end == buf || !isfinite(x) || fabs(x) > 1e9) return 0;
    *v = x;
    return 1;
}

static int num_or(const csv_row *r, int col, double dflt)
{
    double v;
    return num(r, col, &v) ? (int)v : (int)dflt;
}

static bool contains_ci(const char *hay, const char *needle) { return text_find_ci(hay, needle) != NULL; }

/* architectures whose attention or layer mix the shape cannot express */
static const struct {
    const char *pattern;
    const char *reason;
} UNMODELLED[] = {
    {"arch not in table", "architecture not published"},
    {"not transcribed", "architecture not published"},
};

/* head dimensions that differ from hidden/heads, for families whose table omits
 * it (a "kv_channels=N" in arch_source or notes takes precedence) */
static const struct {
    const char *family;
    int head_dim;
} HEAD_DIMS[] = {
    {"Qwen3", 128}, /* Qwen3 dense and MoE configs: head_dim 128 (HF config.json; NeMo qwen3.py kv_channels=128) */
};

/* Multi-head latent attention families: the tables name the attention, not its sizes.
 * Dimensions and vocab from each model's published config.json (q_lora_rank,
 * kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim, vocab_size); mtp: the
 * multi-token prediction modules its benchmark recipe trains unless the row says "w/o MTP" */
static const struct {
    const char *family;
    int q_lora, kv_lora, nope, rope, v, vocab, mtp;
} MLA_FAMILIES[] = {
    /* deepseek-ai/DeepSeek-V3 config.json (num_nextn_predict_layers 1); Megatron-Bridge
     * deepseek_v3 pretrain layout "Et|(tt|)*30mL" places that MTP module ("m") */
    {"DeepSeek-V3", 1536, 512, 128, 64, 128, 129280, 1},
};

/* the integer after `key` in text (e.g. "kv_channels=64", "SWA-128"), or 0 */
static int int_after(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    return p ? text_count(p + strlen(key)) : 0;
}

/* a switch a row may publish: its own cell when it reads as yes or no (spell_bool), else
 * dflt (the recipe's or the stack's) */
static bool switch_cell(const char *cell, bool dflt)
{
    bool b;
    return spell_bool(cell, &b) ? b : dflt;
}

/* gated MLPs (SwiGLU) and untied embeddings come with these families */
static const char *const GATED_FAMILIES[] = {"SwiGLU", "Llama", "Mixtral", "Qwen", "GPT-OSS", "DeepSeek", "Grok"};

/* expert details the tables leave out: biased expert linears, a clamped gated activation,
 * group-limited routing (groups of experts, groups a token may use) */
static const struct {
    const char *family;
    bool expert_bias, glu_clamp;
    int router_groups, group_topk;
} EXPERT_FAMILIES[] = {
    /* openai/gpt-oss-120b config.json: swiglu_limit 7.0, biased experts; Megatron-Bridge
     * gpt_oss provider: add_bias_linear, activation_func_clamp_value 7.0 */
    {"GPT-OSS", true, true, 0, 0},
    /* deepseek-ai/DeepSeek-V3 config.json n_group 8, topk_group 4: each token's experts lie
     * in at most 4 of 8 groups */
    {"DeepSeek-V3", false, false, 8, 4},
};

/* The stack a table's framework cell names (data/stacks.csv): the phrases tables write,
 * checked in order (torchtune and Lightning train with PyTorch FSDP; Composer/LLM Foundry with
 * FSDP and the Triton FlashAttention of its 2023 tables, llm-foundry-2023;
 * Hugging Face Trainer, TRL and axolotl with DeepSpeed or FSDP: the DeepSpeed stack unless
 * the cell names FSDP, which is checked first; NeMo and Megatron, which also run on
 * Lightning or with DeepSpeed, before all of them, Megatron-DeepSpeed and GPT-NeoX first:
 * Megatron-LM's model code on DeepSpeed's pipeline engine; OLMo's own trainer on FSDP; MaxText,
 * Paxml and the other JAX programs next, XLA's stack, before the PyTorch trainers a JAX cell may
 * also name), then the cell itself as a stack name or alias; anything else is taken as
 * Megatron-Core (and counted: framework_named).  NeMo Megatron 22.xx-23.xx (NeMo 1.x with apex, the launcher
 * READMEs) is the 2022 stack. */
static const struct {
    const char *phrase, *stack;
} FRAMEWORK_STACKS[] = {
    {"NeMo Megatron", "nemo-megatron-2022"}, {"NeMo-Megatron", "nemo-megatron-2022"}, {"bignlp", "nemo-megatron-2022"},
    {"Megatron-DeepSpeed", "megatron-deepspeed"}, {"Megatron DeepSpeed", "megatron-deepspeed"},
    /* EleutherAI GPT-NeoX: "based on NVIDIA's Megatron Language Model ... augmented with techniques
     * from DeepSpeed" (its README; Black et al. 2022 §3: Megatron TP, DeepSpeed PP and ZeRO-1) */
    {"GPT-NeoX", "megatron-deepspeed"},      {"GPT NeoX", "megatron-deepspeed"},
    /* AI2 OLMo: "the ZeRO optimizer strategy via PyTorch's FSDP" (Groeneveld et al. 2024 §3.1);
     * OLMo-core shards with FSDP2's fully_shard (src/olmo_core/distributed/parallel) */
    {"OLMo-core", "pytorch-fsdp2"},          {"OLMo", "pytorch-fsdp"},
    /* Meta's Llama 3 stack: FSDP without resharding after forward, gradients sharded, interleaved PP
     * (Llama 3 Herd of Models §3.3.2): its own row, before the FSDP match */
    {"Meta Llama 3", "meta-llama3"},
    {"NeMo", "megatron-core"},               {"Megatron", "megatron-core"},
    {"MaxText", "jax-xla"},                  {"Paxml", "jax-xla"},                    {"Praxis", "jax-xla"},
    {"Levanter", "jax-xla"},                 {"T5X", "jax-xla"},                      {"JAX", "jax-xla"},
    /* FSDP2 (fully_shard: torchtitan, torchtune, KempnerForge) before FSDP's other names */
    {"DeepSpeed", "hf-deepspeed"},           {"torchtitan", "pytorch-fsdp2"},         {"FSDP2", "pytorch-fsdp2"},
    {"torchtune", "pytorch-fsdp2"},          {"FSDP", "pytorch-fsdp"},
    {"Accelerate", "pytorch-fsdp"},          {"Composer", "llm-foundry-2023"},        {"LLM Foundry", "llm-foundry-2023"},
    {"llm-foundry", "llm-foundry-2023"},     {"MosaicML", "llm-foundry-2023"},
    {"Lightning", "pytorch-fsdp"},           {"litgpt", "pytorch-fsdp"},              {"lit-gpt", "pytorch-fsdp"},
    {"Transformers", "hf-deepspeed"},        {"HF Trainer", "hf-deepspeed"},          {"TRL", "hf-deepspeed"},
    {"axolotl", "hf-deepspeed"},             {"PEFT", "hf-deepspeed"},
};

/* a word of a framework cell: letters, digits and '-' (stack names are such words) */
static bool word_char(char ch) { return isalnum((unsigned char)ch) || ch == '-'; }

/* The stack a framework cell names as "<name> stack", its name of data/stacks.csv a whole word
 * ("Megatron-LM @285068c8, its defaults: the nemo-megatron-2022 stack"; "jax-xla" is not a word
 * of "jax-xla-2023"), NULL when it names none: the table's own statement of what ran.  The word
 * "stack" keeps a product name that is also a stack's ("Megatron-Bridge (Megatron-Core)") a
 * product name, which the container and year rules still date */
static const est_stack *stack_named_explicitly(const char *framework)
{
    const est_stack *st;
    for (size_t i = 0; (st = est_stack_at(i)) != NULL; i++)
        for (const char *at = text_find_ci(framework, st->name); at; at = text_find_ci(at + 1, st->name)) {
            const char *after = at + strlen(st->name);
            if ((at != framework && word_char(at[-1])) || word_char(*after)) continue;
            while (isspace((unsigned char)*after)) after++;
            if (strncasecmp(after, "stack", 5) == 0 && !isalnum((unsigned char)after[5]) && after[5] != '-') return st;
        }
    return NULL;
}

/* the stack of data/stacks.csv a framework cell names (its own name, a phrase above, or an
 * alias), NULL when it names none; *explicit (where not NULL) says it named the stack itself
 * ("<name> stack") */
static const est_stack *stack_named(const char *framework, bool *explicit)
{
    const est_stack *named = stack_named_explicitly(framework);
    if (explicit) *explicit = named != NULL;
    if (named) return named;
    for (size_t i = 0; i < sizeof FRAMEWORK_STACKS / sizeof *FRAMEWORK_STACKS; i++)
        if (contains_ci(framework, FRAMEWORK_STACKS[i].phrase)) return est_stack_find(FRAMEWORK_STACKS[i].stack);
    return est_stack_find(framework);
}

const est_stack *validate_stack_of(const char *framework)
{
    const est_stack *st = stack_named(framework, NULL);
    return st ? st : est_stack_default();
}

/* The latest year a cell names: a four-digit 2010-2029, or an arXiv identifier's yymm
 * ("2104.04473" is April 2021); 0 when none */
static int cell_year(const char *cell)
{
    int year = 0;
    for (const char *p = cell; *p; p++) {
        if (!isdigit((unsigned char)*p) || (p > cell && isalnum((unsigned char)p[-1]))) continue;
        size_t n = strspn(p, "0123456789");
        int y = 0;
        if (n == 4 && (p[0] == '2' && p[1] == '0') && p[2] >= '1' && p[2] <= '2') y = atoi((char[5]){p[0], p[1], p[2], p[3], 0});
        else if (n == 4 && p[4] == '.') {
            int yy = (p[0] - '0') * 10 + (p[1] - '0'), mm = (p[2] - '0') * 10 + (p[3] - '0');
            size_t tail = strspn(p + 5, "0123456789");
            if (yy >= 15 && yy <= 29 && mm >= 1 && mm <= 12 && (tail == 4 || tail == 5)) y = 2000 + yy;
        }
        if (y > year) year = y;
        p += n - 1;
    }
    return year;
}

/* The newest release of container image `image` a cell names, as YYMM (0: none): NeMo's
 * ("NeMo24.03.01.framework", "NeMo 24.07", "nemo:24.05", "NeMo Framework 24.03", "NeMo-24.03";
 * "NGC 24.04" beside an MLPerf submission is not one), JAX's ("nvcr.io/nvidia/jax:23.10-paxml-py3").
 * tag_only: only an image tag (image:YY.MM), for cells that may name other software's releases */
static int container_release(const char *cell, const char *image, bool tag_only)
{
    size_t n = strlen(image);
    int newest = 0;
    for (const char *p = cell; (p = text_find_ci(p, image)) != NULL; p += n) {
        const char *q = p + n;
        if (tag_only && *q != ':') continue;
        q += strspn(q, " :-");
        if (!strncasecmp(q, "framework", 9)) q += 9 + strspn(q + 9, " ");
        /* a release as recipes read them (recipe_release_in_text), starting right there */
        char rel[32];
        int yy, mm;
        if (recipe_release_in_text(q, rel, sizeof rel) && !strncmp(rel, q, 5) && sscanf(rel, "%2d.%2d", &yy, &mm) == 2 &&
            yy >= 22 && yy <= 29 && mm >= 1 && mm <= 12 && yy * 100 + mm > newest)
            newest = yy * 100 + mm;
    }
    return newest;
}

/* a stack of st's family: st itself, or one `like` it */
static bool of_family(const est_stack *cand, const est_stack *st) { return cand == st || !strcmp(cand->like, st->name); }

/* The stack a row's container release ran by default (containers in data/stacks.csv), among the
 * stacks of the row's own family (st itself, or `like` it: NeMo's releases for Megatron-Core rows,
 * JAX's for JAX rows): the newest release its framework or release cell names, else an image tag in
 * its source cell; NULL when none does or no stack claims the release */
static const est_stack *container_stack(const columns *c, const csv_row *row, const est_stack *st)
{
    const est_stack *cand;
    for (size_t i = 0; (cand = est_stack_at(i)) != NULL; i++) {
        if (!cand->container_from || !of_family(cand, st)) continue;
        const char *image = cand->container_image;
        int rel = container_release(csv_get(row, c->framework), image, false);
        int in_release = container_release(csv_get(row, c->release), image, false);
        if (in_release > rel) rel = in_release;
        if (!rel) rel = container_release(csv_get(row, c->source), image, true);
        const est_stack *ran = est_stack_of_container(image, rel);
        if (ran && of_family(ran, st)) return ran;
    }
    return NULL;
}

/* The stack of a row: the one its framework cell names by its own name, else the one its
 * container release ran by default (container_stack), else its framework cell's
 * (validate_stack_of), except that a Megatron-LM or NeMo run the row dates before
 * 2023 ran the code of that era, the 2022 stack: Megatron-LM added FlashAttention
 * (--use-flash-attn) and Transformer Engine in 2023, and NeMo Megatron 1.x of 2022 shares its
 * kernels (apex fused softmax, jit-fused bias-GeLU, no userbuffers) */
static const est_stack *row_stack(const columns *c, const csv_row *row)
{
    const char *framework = csv_get(row, c->framework);
    bool explicit;
    const est_stack *st = stack_named(framework, &explicit);
    /* a stack the cell names by its own name is what the table says ran: no release or year overrides it */
    if (explicit) return st;
    if (!st) st = est_stack_default();
    const est_stack *contained = container_stack(c, row, st);
    if (contained) return contained;
    if (strcmp(st->name, "megatron-core")) return st;
    /* the row's release dates the software; else its framework cell's own year ("Megatron-LM
     * (2022)"); else the newest year its source names (a source may also name a later
     * publication: "MLSys 2023" for a 2022 run, so it speaks last) */
    int year = cell_year(csv_get(row, c->release));
    if (!year) year = cell_year(framework);
    if (!year) year = cell_year(csv_get(row, c->source));
    const est_stack *old = year > 0 && year < 2023 ? est_stack_find("nemo-megatron-2022") : NULL;
    return old ? old : st;
}

#define SKIP(...) (snprintf(why, why_len, __VA_ARGS__), -1)

/* how tables say a run's blocks were compiled, and that they were not */
static const char *const COMPILE_WORDS[] = {"torch.compile", "torch_compile", NULL};

/* what a row leaves unpublished that its caller assumes as tuned (assume_tuned_layout) */
enum { ASSUME_MBS = 1, ASSUME_LAYOUT = 2, HALF_BLOCKS = 4 /* "selective layer": half a stage's blocks recompute */ };

/* full recompute of every second block (torchtitan's layer-level selective checkpointing): half
 * of a stage chunk's blocks */
static void half_blocks(est_input *in)
{
    int per_chunk = shape_total_layers(&in->shape) / (in->pp > 0 ? in->pp : 1) / (in->vp > 0 ? in->vp : 1);
    in->recompute_layers = per_chunk / 2 > 0 ? per_chunk / 2 : 1;
}

/* the micro batch a published gradient accumulation implies (Megatron's num_microbatches
 * arithmetic): MBS = GBS / (DP · GA) with DP = GPUs / (TP · PP · CP); 0 unless a whole number >= 1 */
static double mbs_of_grad_accum(double gpus, double tp, double pp, double cp, double gbs, double ga)
{
    double dp = gpus / (tp * pp * cp);
    if (!(ga >= 1) || dp < 1) return 0;
    double m = gbs / (dp * ga);
    return m >= 1 && m == floor(m) ? m : 0;
}

/* validate_row_input; with assume, a missing MBS or TP/PP is set provisionally (1) and flagged
 * there instead of skipping the row */
static int row_input(const csv_table *t, const csv_row *row, est_input *in, char *why, size_t why_len, unsigned *assume)
{
    if (assume) *assume = 0;
    columns c = find_columns(t);
    const char *fam = csv_get(row, c.model_family);
    /* the architecture the row's model name publishes (data/models.csv, the presets): what its
     * empty shape cells default to */
    model_shape named;
    bool by_name = model_named_shape(csv_get(row, c.model), &named, NULL) == 0;
    for (size_t i = 0; i < sizeof UNMODELLED / sizeof *UNMODELLED && !by_name; i++)
        if (strstr(fam, UNMODELLED[i].pattern)) return SKIP("%s", UNMODELLED[i].reason);
    const footnote *note = footnote_of_row(row);
    if (note && note->effect == FOOTNOTE_REGRESSION)
        return SKIP("its source marks the figure as a known software regression (footnote [^%s])", note->name);
    const char *task = csv_get(row, c.task);
    /* fine-tuning: full (SFT) runs the pre-training model; LoRA/PEFT freezes the base weights
     * (no weight gradients, no optimizer states for them) and trains rank-r adapters */
    bool peft = contains_ci(task, "LoRA") || contains_ci(task, "PEFT");
    /* the numeric cells, read once; a cell that is there but is no usable number is named
     * as such, not as missing */
    enum { N_LAYERS, N_HIDDEN, N_HEADS, N_SEQ, N_VOCAB, N_TP, N_PP, N_GPUS, N_GBS, N_MBS, N_COUNT };
    const int numeric[N_COUNT] = {c.num_layers, c.hidden, c.heads, c.seq, c.vocab, c.tp, c.pp, c.num_gpus, c.gbs, c.mbs};
    double val[N_COUNT] = {0};
    bool have[N_COUNT];
    for (int i = 0; i < N_COUNT; i++) {
        const char *cell = csv_get(row, numeric[i]);
        have[i] = num(row, numeric[i], &val[i]);
        if (cell[strspn(cell, " ")] && !spell_blank(cell) && !have[i])
            return SKIP("%s is not a usable number (up to 1e9)", t->header.field[numeric[i]]);
    }
    /* a named model whose published width or heads differ from the row's is another variant */
    if (by_name && ((have[N_HIDDEN] && (int)val[N_HIDDEN] != named.hidden) || (have[N_HEADS] && (int)val[N_HEADS] != named.heads)))
        by_name = false;
    if (by_name) {
        const int from_name[N_COUNT] = {[N_LAYERS] = named.num_layers, [N_HIDDEN] = named.hidden, [N_HEADS] = named.heads,
                                        [N_VOCAB] = named.vocab};
        for (int i = 0; i < N_COUNT; i++)
            if (!have[i] && from_name[i] > 0) { val[i] = from_name[i]; have[i] = true; }
    }
    if (!have[N_LAYERS] || !have[N_HIDDEN] || !have[N_HEADS] || !have[N_SEQ])
        return SKIP("model shape missing (layers, hidden size, heads or sequence length)");
    double layers = val[N_LAYERS], hidden = val[N_HIDDEN], heads = val[N_HEADS], seq = val[N_SEQ], vocab = val[N_VOCAB];
    int mla = -1; /* MLA_FAMILIES entry: sizes the table omits */
    if (strstr(fam, "MLA")) {
        for (size_t i = 0; i < sizeof MLA_FAMILIES / sizeof *MLA_FAMILIES; i++)
            if (contains_ci(fam, MLA_FAMILIES[i].family)) mla = (int)i;
        if (mla < 0) return SKIP("multi-head latent attention (MLA) sizes not known for this family");
    }
    if (!have[N_VOCAB]) {
        if (mla < 0) return SKIP("vocab size missing");
        vocab = MLA_FAMILIES[mla].vocab;
    }
    if (layers < 1 || hidden < 1 || heads < 1 || seq < 1 || vocab < 1)
        return SKIP("model shape not positive (layers, hidden size, heads, sequence length, vocab)");
    /* a row that shards with FSDP over its GPUs and publishes no TP or PP ran pure FSDP
     * (MaxText ici_fsdp_parallelism, torchtitan data_parallel_shard_degree): TP = PP = 1; so
     * does FSDP's SHARD_GRAD_OP (stage 2: llm-foundry's tables), the same wrapper over all ranks */
    int fsdp_stage = 1;
    const char *fsdp_col = NULL;
    bool fsdp_only = !spell_zero_stage("", csv_get(row, c.fsdp), &fsdp_stage, &fsdp_col) && fsdp_stage >= 2;
    if ((!have[N_TP] || !have[N_PP]) && fsdp_only) {
        if (!have[N_TP]) { val[N_TP] = 1; have[N_TP] = true; }
        if (!have[N_PP]) { val[N_PP] = 1; have[N_PP] = true; }
    }
    if ((!have[N_TP] || !have[N_PP]) && assume) {
        /* tables that print only the best run's throughput ran a tuned layout: the caller assumes it */
        *assume |= ASSUME_LAYOUT;
        val[N_TP] = val[N_PP] = 1;
        have[N_TP] = have[N_PP] = true;
    }
    if (!have[N_TP] || !have[N_PP]) return SKIP("parallel layout (tp, pp) not published");
    if (!have[N_GPUS]) return SKIP("number of GPUs missing");
    if (!have[N_GBS]) return SKIP("global batch size missing");
    /* no MBS but a gradient accumulation: it gives the MBS (mbs_of_grad_accum) */
    double ga_pub, cp_pub = 1;
    /* (under an assumed layout the caller derives it per candidate layout) */
    bool layout_assumed = assume && (*assume & ASSUME_LAYOUT);
    if (!have[N_MBS] && !layout_assumed && num(row, c.grad_accum, &ga_pub) && ga_pub >= 1) {
        if (!num(row, c.cp, &cp_pub) || cp_pub < 1) cp_pub = 1;
        double m_of = mbs_of_grad_accum(val[N_GPUS], val[N_TP], val[N_PP], cp_pub, val[N_GBS], ga_pub);
        if (m_of > 0) { val[N_MBS] = m_of; have[N_MBS] = true; }
    }
    if (!have[N_MBS] && assume) {
        *assume |= ASSUME_MBS;
        val[N_MBS] = 1;
        have[N_MBS] = true;
    }
    if (!have[N_MBS]) return SKIP("micro batch size missing");
    double tp = val[N_TP], pp = val[N_PP], ngpu = val[N_GPUS], mbs = val[N_MBS], gbs = val[N_GBS];
    if (tp < 1 || pp < 1 || ngpu < 1 || gbs < 1 || mbs < 1) return SKIP("parallel sizes and batch sizes must be at least 1");
    const gpu_spec *gpu = gpu_match(csv_get(row, c.gpu_type));
    if (!gpu) return SKIP("GPU type not in the catalog");
    est_precision prec = PREC_BF16;
    bool block_scaled = false;
    const char *ptext = csv_get(row, c.precision);
    if (*ptext && !spell_blank(ptext) && spell_precision(ptext, &prec, &block_scaled)) return SKIP("precision not recognised");

    model_shape s = {0};
    s.arch = ARCH_DECODER;
    if (contains_ci(fam, "T5")) s.arch = ARCH_ENCODER_DECODER;
    if (contains_ci(fam, "BERT")) s.arch = ARCH_ENCODER;
    s.num_layers = (int)layers;
    /* encoder-decoder rows count both stacks, unless their architecture source states the
     * layers of each ("24 enc + 24 dec layers": the layers of one stack) */
    if (s.arch == ARCH_ENCODER_DECODER) {
        int per_stack = int_before(csv_get(row, c.arch_source), " enc + ");
        s.num_layers = per_stack > 0 ? per_stack : s.num_layers / 2;
        /* the decoder's sequence: the row's dec_seq_length, else the NeMo launcher's T5/mT5
         * data.seq_length_dec (128 for 512 encoder tokens; model/family.c) */
        double dec;
        const model_family *mf = model_family_get(FAM_T5);
        s.dec_seq_length = num(row, c.dec_seq, &dec) && dec >= 1 ? (int)dec
                           : mf && seq >= 512 ? mf->default_dec_seq : 0;
    }
    s.hidden = (int)hidden;
    s.heads = (int)heads;
    s.query_groups = num_or(row, c.groups, by_name ? named.query_groups : heads);
    s.kv_channels = by_name ? named.kv_channels : s.hidden / s.heads;
    for (size_t i = 0; i < sizeof HEAD_DIMS / sizeof *HEAD_DIMS; i++)
        if (contains_ci(fam, HEAD_DIMS[i].family)) s.kv_channels = HEAD_DIMS[i].head_dim;
    int kv = int_after(csv_get(row, c.arch_source), "kv_channels=");
    if (kv <= 0) kv = int_after(csv_get(row, c.notes), "kv_channels=");
    if (kv > 0) s.kv_channels = kv;
    /* sliding-window attention ("alternating SWA-128/full": every other layer) */
    int window = int_after(fam, "SWA-");
    if (window > 0) {
        s.swa_window = window;
        s.swa_share = contains_ci(fam, "alternating") ? 0.5 : 1.0;
    }
    s.vocab = (int)vocab;
    s.seq_length = (int)seq;
    bool gated = false;
    for (size_t i = 0; i < sizeof GATED_FAMILIES / sizeof *GATED_FAMILIES; i++) gated |= contains_ci(fam, GATED_FAMILIES[i]);
    s.untied_embeddings = gated || contains_ci(fam, "Nemotron");
    /* NeMo's T5 and mT5 (T5 v1.1) run gated-GELU MLPs with tied embeddings (NeMo launcher
     * conf/training/t5/3b.yaml and mt5/3b.yaml: activation geglu, share_decoder_tokens_head_embeddings) */
    if (s.arch == ARCH_ENCODER_DECODER) gated = true;
    s.gated_mlp = gated;
    s.learned_pos_emb = contains_ci(fam, "GPT-3") || s.arch == ARCH_ENCODER;
    if (by_name) {
        s.untied_embeddings = named.untied_embeddings;
        s.gated_mlp = named.gated_mlp;
        s.learned_pos_emb = named.learned_pos_emb;
    }
    double ffn;
    if (!num(row, c.ffn, &ffn)) ffn = by_name ? named.ffn_hidden : 4.0 * hidden; /* GPT's 4h when not published */
    if (ffn < 1 || ffn > 1e9) return SKIP("FFN hidden size out of range");
    s.ffn_hidden = (int)ffn;
    s.num_experts = num_or(row, c.experts, by_name ? named.num_experts : 0);
    if (shape_is_moe(&s)) {
        s.moe_topk = num_or(row, c.topk, by_name && named.moe_topk ? named.moe_topk : 2);
        double mf;
        s.moe_ffn_hidden = num(row, c.moe_ffn, &mf) ? (int)mf : by_name && named.moe_ffn_hidden ? named.moe_ffn_hidden : s.ffn_hidden;
        /* "256 routed + 1 shared": shared experts of the routed experts' width; "first 3
         * layers dense": leading layers with the dense FFN (ffn_hidden_size) */
        double shared = (double)int_before(fam, " shared") * s.moe_ffn_hidden;
        if (shared > 1e9) return SKIP("shared experts' FFN size out of range");
        s.moe_shared_ffn = (int)shared;
        if (strstr(fam, "layers dense")) s.moe_dense_layers = int_after(fam, "first ");
        if (by_name && !strstr(fam, " shared") && !strstr(fam, "layers dense")) {
            s.moe_shared_ffn = named.moe_shared_ffn;
            s.moe_dense_layers = named.moe_dense_layers;
            s.moe_router_groups = named.moe_router_groups;
            s.moe_group_topk = named.moe_group_topk;
        }
        if (by_name) s.moe_latent = named.moe_latent;
        if (s.moe_dense_layers >= s.num_layers) return SKIP("no layer left for the experts");
        for (size_t i = 0; i < sizeof EXPERT_FAMILIES / sizeof *EXPERT_FAMILIES; i++)
            if (contains_ci(fam, EXPERT_FAMILIES[i].family)) {
                s.moe_expert_bias = EXPERT_FAMILIES[i].expert_bias;
                s.moe_glu_clamp = EXPERT_FAMILIES[i].glu_clamp;
                s.moe_router_groups = EXPERT_FAMILIES[i].router_groups;
                s.moe_group_topk = EXPERT_FAMILIES[i].group_topk;
            }
    }
    if (mla < 0 && by_name && named.kv_lora_rank > 0) {
        /* latent attention from the named architecture */
        s.q_lora_rank = named.q_lora_rank;
        s.kv_lora_rank = named.kv_lora_rank;
        s.kv_channels = named.kv_channels;
        s.qk_rope_dim = named.qk_rope_dim;
        s.v_head_dim = named.v_head_dim;
        s.query_groups = s.heads;
        s.mtp_layers = contains_ci(csv_get(row, c.model), "w/o MTP") ? 0 : named.mtp_layers;
    }
    if (by_name && shape_is_hybrid(&named) && s.num_layers != named.num_layers)
        return SKIP("hybrid architecture: %d layers published, its pattern has %d blocks", s.num_layers, named.num_layers);
    if (by_name && shape_is_hybrid(&named)) {
        /* a hybrid Mamba-Transformer's blocks and Mamba-2 sizes from the named architecture */
        s.hyb_mamba = named.hyb_mamba, s.hyb_attn = named.hyb_attn, s.hyb_mlp = named.hyb_mlp, s.hyb_moe = named.hyb_moe;
        s.mamba_heads = named.mamba_heads, s.mamba_head_dim = named.mamba_head_dim;
        s.mamba_state = named.mamba_state, s.mamba_groups = named.mamba_groups;
        s.mtp_layers = contains_ci(csv_get(row, c.model), "w/o MTP") ? 0 : named.mtp_layers;
    }
    if (mla >= 0) {
        s.q_lora_rank = MLA_FAMILIES[mla].q_lora;
        s.kv_lora_rank = MLA_FAMILIES[mla].kv_lora;
        s.kv_channels = MLA_FAMILIES[mla].nope;
        s.qk_rope_dim = MLA_FAMILIES[mla].rope;
        s.v_head_dim = MLA_FAMILIES[mla].v;
        s.query_groups = s.heads; /* every head has its own keys, up-projected from the latent */
        s.mtp_layers = contains_ci(csv_get(row, c.model), "w/o MTP") ? 0 : MLA_FAMILIES[mla].mtp;
    }

    est_input_init(in, &s, gpu);
    est_stack_apply(in, row_stack(&c, row));
    /* a part the catalog holds in another memory size (Leonardo's A100 64GB, MareNostrum 5's H100
     * 64GB, the 94 GB H100): the name's own memory */
    in->memory_limit_gb = gpu_other_memory_gb(gpu, csv_get(row, c.gpu_type));
    in->tp = (int)tp;
    in->pp = (int)pp;
    in->vp = num_or(row, c.vp, 1);
    in->cp = num_or(row, c.cp, 1);
    in->ep = num_or(row, c.ep, 1);
    in->etp = num_or(row, c.etp, 1);
    in->num_gpus = (int)ngpu;
    /* the row's own node size, where it states one: NVLink reaches only that far */
    double gpn;
    if (num(row, c.gpus_per_node, &gpn) && gpn >= 1 && gpn <= 72 && gpn == floor(gpn)) in->gpus_per_node = (int)gpn;
    /* and its network, where it is not the catalog node's (Jean Zay's 4 x 100 Gb/s Omni-Path) */
    double net;
    if (num(row, c.network_gbps, &net)) {
        if (!(net >= 1 && net <= 1e6)) return SKIP("network_gbps %g is not a node's scale-out in Gb/s", net);
        in->node_network_gbps = net;
    }
    in->mbs = (int)mbs;
    in->gbs = (int)gbs;
    in->precision = prec;
    /* benchmark pages state the routing: "force-balanced" token distribution, and
     * "tokendrop" runs with a fixed expert capacity */
    const char *notes = csv_get(row, c.notes), *model = csv_get(row, c.model);
    in->moe_force_balanced = contains_ci(notes, "force-balanced");
    in->moe_token_drop = contains_ci(model, "tokendrop") || contains_ci(notes, "token dropping");
    /* compiled blocks: the row's torch_compile cell, else its framework or notes naming
     * torch.compile (torchtitan's tables write "FSDP + torch.compile") and neither denying it */
    const char *fw = csv_get(row, c.framework);
    int in_fw = spell_named(fw, COMPILE_WORDS), in_notes = spell_named(notes, COMPILE_WORDS);
    bool compiled = (in_fw > 0 || in_notes > 0) && in_fw >= 0 && in_notes >= 0; /* a denial anywhere wins */
    in->torch_compile = switch_cell(csv_get(row, c.compile), compiled);
    in->allow_uneven_pp = true; /* published layouts use Megatron-Core's uneven first/last stages */
    if (in->vp < 1) in->vp = 1;
    if (in->cp < 1) in->cp = 1;
    if (in->ep < 1) in->ep = 1;
    if (in->etp < 1) in->etp = 1;
    /* unpublished switches take the NeMo/Megatron-Bridge recipe defaults: sequence
     * parallel with TP > 1, distributed optimizer, no activation recompute */
    in->sequence_parallel = switch_cell(csv_get(row, c.seq_par), est_stack_sequence_parallel(in->stack, in->tp));
    const char *zcol = NULL;
    if (spell_zero_stage(csv_get(row, c.dist_opt), csv_get(row, c.fsdp), &in->zero_stage, &zcol))
        return SKIP("%s not recognised (a ZeRO stage, FSDP sharding or yes/no)", zcol);
    double fsdp = in->zero_stage >= 3 ? 1 : 0;
    in->offload_act_layers = num_or(row, c.act_offload, 0);
    /* gradient and weight precision, activation offload, CUDA graphs and all-to-all
     * overlap: the row's own columns, else its framework's benchmark recipe
     * (data/recipes.csv, some rows from a container release on), else Megatron-LM's defaults */
    char release[32];
    const char *release_cell = csv_get(row, c.release);
    if (!recipe_release_in_text(*release_cell ? release_cell : csv_get(row, c.source), release, sizeof release)) release[0] = '\0';
    recipe_query q = {.framework = csv_get(row, c.framework), .model = csv_get(row, c.model), .gpu = csv_get(row, c.gpu_type),
                      .precision = ptext, .release = release, .tp = in->tp, .pp = in->pp, .fsdp = fsdp > 0};
    recipe_switches rs = recipe_lookup(&q);
    in->cuda_graphs = switch_cell(csv_get(row, c.cuda_graphs), rs.cuda_graphs == 1);
    /* a recipe's overlap only where Megatron-Core runs it (a row with PP > 1 and no published
     * VP, whose VP is assumed later, goes without); a row's own cell is checked by est_check */
    in->moe_a2a_overlap =
        switch_cell(csv_get(row, c.a2a_overlap), rs.moe_a2a_overlap == 1 && est_a2a_overlap_allowed(in));
    bool grad_fp32 = rs.grad_reduce_in_fp32 >= 0 ? rs.grad_reduce_in_fp32 != 0 : in->stack->grad_bytes == 4.0;
    in->grad_bytes = switch_cell(csv_get(row, c.grad_fp32), grad_fp32) ? 4.0 : 2.0;
    in->recompute_mla_up_proj = rs.recompute_mla_up_proj == 1 && mla >= 0;
    in->recompute_layernorm = rs.recompute_layernorm == 1;
    in->recompute_moe_act = rs.recompute_moe_act == 1 && shape_is_moe(&s);
    if (rs.pp_layout >= 0) in->pp_layout = (est_pp_layout)rs.pp_layout;
    in->fused_expert_mlp = switch_cell(csv_get(row, c.fused_mlp), rs.fused_expert_mlp == 1) && shape_is_moe(&s);
    if (peft) {
        /* the adapters' rank: the row's lora_rank column, else Megatron-Bridge/NeMo's LoRA default
         * dim 32 on every linear layer (qkv, proj, fc1, fc2: 4 h-wide matrices) */
        in->lora_rank = num_or(row, c.lora_rank, 32);
        if (in->lora_rank < 1) in->lora_rank = 32;
        in->lora_targets = 4;
    }
    in->dp_overlap_off = !switch_cell(csv_get(row, c.overlap_grad_sync), rs.overlap_grad_sync != 0);
    /* Megatron-LM's flags as a run states them: --tp-comm-overlap (its default off; the stack's
     * recipes on) and --no-gradient-accumulation-fusion */
    in->tp_comm_overlap = switch_cell(csv_get(row, c.tp_overlap), in->tp_comm_overlap);
    in->grad_accum_unfused = !switch_cell(csv_get(row, c.gacc_fusion), true);
    bool fp8_gather = switch_cell(csv_get(row, c.fp8_gather), rs.fp8_param_gather == 1);
    in->fp8_block_scaled = prec == PREC_FP8 && block_scaled;
    in->fp8_current_scaling = prec == PREC_FP8 && !block_scaled && spell_fp8_current_scaling(ptext);
    in->fp8_param_gather = fp8_gather && est_fp8_gather_allowed(in);
    /* a row that states no recompute keeps its stack's default (est_stack_apply) */
    if (spell_recompute(csv_get(row, c.recompute), notes, &in->recompute))
        return SKIP("act_recompute not recognised (none, selective, full or yes/no)");
    /* layer-level selective checkpointing (torchtitan selective_ac_option N, default 2: every
     * second block checkpointed whole) is full recompute of half a stage's blocks */
    if (in->recompute == RECOMPUTE_SELECTIVE &&
        (contains_ci(csv_get(row, c.recompute), "selective layer") || contains_ci(notes, "selective layer"))) {
        in->recompute = RECOMPUTE_FULL;
        half_blocks(in);
        if (assume) *assume |= HALF_BLOCKS; /* again once an assumed layout or VP is chosen */
    }
    /* a recipe's JAX remat policy (MaxText remat_policy) is its full recompute keeping named GEMM
     * outputs: it applies to a row that recomputes in full, its stated or its stack's default */
    if (rs.remat_saves > 0 && in->recompute == RECOMPUTE_FULL && in->recompute_layers == 0) in->remat_saves = (unsigned)rs.remat_saves;
    /* a recipe's offload belongs to its recipe: not to a row that publishes recompute */
    if (!*csv_get(row, c.act_offload) && rs.cpu_offloading_num_layers > 0 && in->recompute == RECOMPUTE_NONE)
        in->offload_act_layers = rs.cpu_offloading_num_layers;
    /* the published DP may exclude CP or experts; ours is derived from the GPU count */
    char rule[256];
    /* an assumed layout is checked candidate by candidate when it is chosen */
    if (!layout_assumed && est_check(in, rule, sizeof rule)) return SKIP("layout inconsistent: %s", rule);
    /* a published gradient accumulation must close the batch arithmetic: GBS = MBS × DP ×
     * GA with DP = GPUs / (TP·PP·CP) (Megatron's num_microbatches); a row where it does not
     * carries a mistyped cell (tables that share MBS between variants), so which layout ran
     * is unknown */
    double ga;
    if (!layout_assumed && num(row, c.grad_accum, &ga) && ga >= 1) {
        double dp = ngpu / ((double)in->tp * in->pp * in->cp);
        if (fabs(mbs * dp * ga - gbs) > 0.5)
            return SKIP("layout inconsistent: MBS %g × DP %g × gradient accumulation %g is not the published GBS %g", mbs,
                        dp, ga, gbs);
    }
    return 0;
}

int validate_row_input(const csv_table *t, const csv_row *row, est_input *in, char *why, size_t why_len)
{
    return row_input(t, row, in, why, why_len, NULL);
}

/* the MBS values tried for a row that publishes none: powers of two up to 16 that split the batch */
static bool try_mbs(est_input *in, int mbs, double *best, est_input *best_in)
{
    in->mbs = mbs;
    long long dp = in->num_gpus / ((long long)in->tp * in->pp * in->cp);
    if (dp < 1 || in->gbs % ((long long)mbs * dp)) return false;
    char rule[256];
    if (est_check(in, rule, sizeof rule)) return false;
    est_result r;
    if (est_evaluate(in, &r) != 0 || !r.fits) return false;
    if (r.step_time < *best) { *best = r.step_time; *best_in = *in; }
    return true;
}

/* A table that prints only its best run's throughput (no MBS, or no TP/PP: "best non-CP
 * configuration"): assume what our own search would run, the fastest MBS (and TP x PP, TP
 * inside a node and dividing the heads, PP dividing the layers) predicted to fit.  0, or -1
 * when nothing fits (the provisional input is left as it was). */
static int assume_tuned_layout(est_input *in, unsigned assume, double ga)
{
    est_input best_in = *in;
    double best = INFINITY;
    int L = shape_total_layers(&in->shape);
    int tp_max = assume & ASSUME_LAYOUT ? in->gpu->gpus_per_node : in->tp;
    for (int tp = assume & ASSUME_LAYOUT ? 1 : in->tp; tp <= tp_max; tp *= 2) {
        if (in->shape.heads % tp) continue;
        for (int pp = assume & ASSUME_LAYOUT ? 1 : in->pp; pp <= (assume & ASSUME_LAYOUT ? 16 : in->pp); pp++) {
            /* an assumed PP divides the layers; a published one is as it ran (uneven stages: Llama 3
             * 405B's 126 layers on 16, Dubey et al. 2024 §3.3.2) */
            if (L % pp && (assume & ASSUME_LAYOUT)) continue;
            est_input c = *in;
            c.tp = tp, c.pp = pp;
            if (assume & ASSUME_LAYOUT) c.vp = 1; /* a published layout keeps its published VP */
            c.sequence_parallel = est_stack_sequence_parallel(c.stack, tp);
            if (assume & HALF_BLOCKS) half_blocks(&c);
            if (!(assume & ASSUME_MBS)) { try_mbs(&c, in->mbs, &best, &best_in); continue; }
            /* a published gradient accumulation fixes the MBS of each layout */
            if (ga >= 1) {
                double m_of = mbs_of_grad_accum(c.num_gpus, tp, pp, c.cp, c.gbs, ga);
                if (m_of > 0 && m_of <= 1024) try_mbs(&c, (int)m_of, &best, &best_in);
                continue;
            }
            for (int mbs = 1; mbs <= 16; mbs *= 2) try_mbs(&c, mbs, &best, &best_in);
        }
        if (!(assume & ASSUME_LAYOUT)) break;
    }
    if (!isfinite(best)) return -1;
    *in = best_in;
    return 0;
}

/* A table that publishes PP > 1 but no virtual-pipeline size: Megatron recipes
 * interleave whenever the layer count allows it, and benchmark tables report tuned
 * runs, so assume the VP our own search would pick: the fastest predicted one that
 * divides the layers of a stage and keeps the schedule legal. */
static void assume_tuned_vp(est_input *in, bool halves)
{
    int L = shape_total_layers(&in->shape);
    int best_vp = 1;
    double best = INFINITY;
    bool best_fits = false;
    if (in->pp < 2) return;
    /* layers per stage; where PP does not divide them but divides two more, the split that gives
     * the first and last stage one layer fewer for the embedding and the loss (Megatron-Core
     * account_for_embedding/loss_in_pipeline_split; Llama 3's 126 layers on 16 stages, Dubey et
     * al. 2024 §3.3.2) */
    int per_stage = L / in->pp;
    if (L % in->pp) {
        /* a recipe's own uneven split (remainder_last) is kept, and not searched over */
        if ((L + 2) % in->pp || in->pp_layout != EST_PP_EVEN) return;
        per_stage = (L + 2) / in->pp;
        in->pp_layout = EST_PP_EMBEDDING_LOSS;
    }
    for (int v = 1; v <= per_stage && v <= 128; v++) { /* published VPs are small (≤ 24 in the shared CSV) */
        if (per_stage % v) continue;
        in->vp = v;
        if (halves) half_blocks(in);
        est_result r;
        /* a VP predicted not to fit is not what the table ran; when none fits (the run did, in a
         * memory the model over-counts) the one closest to fitting, the least memory */
        if (est_evaluate(in, &r) != 0) continue;
        double key = r.fits ? r.step_time : r.mem_total;
        bool better = r.fits != best_fits ? r.fits : key < best;
        if (better || !isfinite(best)) { best = key; best_fits = r.fits; best_vp = v; }
    }
    in->vp = best_vp;
    if (halves) half_blocks(in);
}

/* the measured quantity of a row: step time when published, else tokens/s per GPU
 * (directly, from aggregate tokens/s, or from TFLOP/s with the source's FLOP count) */
typedef struct {
    bool is_step;
    double value;
    const char *what;
} measured;

/* Model FLOPs per sequence under the convention the row's own flops_formula names
 * (spell_flops): est_model_flops is A·s + B·s² in the sequence length s, so its
 * attention term B·s² = 2·(f(s) − 2·f(s/2)); 6ND is the rest, a 4-pass count 4/3 of
 * all of it (the forward counted twice under full recompute) */
static double row_flops_per_seq(const model_shape *shape, spell_flops conv)
{
    model_shape half = *shape;
    half.seq_length = shape->seq_length / 2;
    if (half.dec_seq_length > 0) half.dec_seq_length = shape->dec_seq_length / 2;
    double f = est_model_flops(shape, 1.0), attn = 2.0 * (f - 2.0 * est_model_flops(&half, 1.0));
    switch (conv) {
    case FLOPS_CAUSAL_HALF: return f - 0.5 * attn;
    case FLOPS_6ND: return f - attn;
    case FLOPS_8ND: return f * 4.0 / 3.0;
    case FLOPS_MEGATRON: break;
    }
    return f;
}

/* a published figure of column col: 1 with *v when the cell holds a number in (0, hi], 0 when it
 * is blank (or 0, tables' "not measured"), -1 with the reason when it cannot be a measurement */
static int figure(const csv_row *row, int col, const char *name, double hi, double *v, char *why, size_t why_len)
{
    if (!num(row, col, v) || *v == 0) return 0;
    if (!(*v > 0 && *v <= hi)) {
        snprintf(why, why_len, "%s %s is not a measurement (expected a number in (0, %g])", name, csv_get(row, col), hi);
        return -1;
    }
    return 1;
}

/* the row's measurement: the first published of step time, tokens/s per GPU, tokens/s, TFLOP/s
 * per GPU, MFU; a cell no run could have produced (negative, infinite, an MFU over 100 %) skips
 * the row with the reason rather than falling through to the next column */
static int row_measured(const columns *c, const csv_row *row, const est_input *in, measured *m, char *why, size_t why_len)
{
    enum { STEP, TOK_GPU, TOK, TFLOPS, MFU, N_FIGURES };
    const struct {
        int col;
        const char *name;
        double hi; /* the largest value a run could publish */
    } FIGURES[N_FIGURES] = {
        [STEP] = {c->step, "step_time_s", 1e7},      [TOK_GPU] = {c->tok_gpu, "tokens_per_s_per_gpu", 1e9},
        [TOK] = {c->tok, "tokens_per_s", 1e15},      [TFLOPS] = {c->tflops, "tflops_per_gpu", 1e6},
        [MFU] = {c->mfu, "mfu_pct", 100.0},
    };
    for (int i = 0; i < N_FIGURES; i++) {
        double v;
        int k = figure(row, FIGURES[i].col, FIGURES[i].name, FIGURES[i].hi, &v, why, why_len);
        if (k < 0) return -1;
        if (k == 0 || (i == TOK && in->num_gpus <= 0)) continue;
        double tok = v; /* tokens/s per GPU */
        if (i == TOK) tok = v / in->num_gpus;
        if (i == TFLOPS || i == MFU) {
            /* MFU: model FLOP/s over the dense peak of the row's precision; FLOP/s to tokens/s
             * with the row's own FLOP count */
            double tflops = i == MFU ? v / 100.0 * est_peak_tflops(in->gpu, in->precision) : v;
            if (!(tflops > 0)) break;
            tok = tflops * 1e12 / (row_flops_per_seq(&in->shape, spell_flops_formula(csv_get(row, c->flops_formula))) /
                                   in->shape.seq_length);
        }
        *m = (measured){i == STEP, tok, FIGURES[i].name};
        return 0;
    }
    snprintf(why, why_len, "no published step time, tokens/s or TFLOP/s");
    return -1;
}

void validate_print_final_line(FILE *out, int rows, int skipped, size_t n, double median, double p90)
{
    if (n)
        fprintf(out, "rows %d skipped %d median_abs_err %.1f%% p90_abs_err %.1f%%\n", rows, skipped, 100.0 * median,
                100.0 * p90);
    else
        fprintf(out, "rows %d skipped %d median_abs_err - p90_abs_err -\n", rows, skipped);
}

int validate_no_rows_error(ac_err *e, const char *csv_path, int skipped, bool wrote_nothing)
{
    return ac_err_at(e, AC_E_INPUT, csv_path, 0, 0, NULL, "no row could be predicted (%s)%s",
                     skipped ? "every row skipped, reasons above" : "no data rows", wrote_nothing ? "; nothing written" : "");
}

int validate_train_csv(const char *csv_path, const char *out_csv, char **rows_csv, const est_cal *cal, FILE *out, bool json,
                       validate_summary *sum, ac_err *e)
{
    memset(sum, 0, sizeof *sum);
    if (gpu_catalog_load(e) || est_stack_load(e) || recipe_table_load(e) || footnote_table_load(e)) return -1;
    csv_table t;
    if (csv_read_file(csv_path, &t, e)) return -1;
    columns c = find_columns(&t);
    static const char *const required[] = {"num_layers", "hidden_size", "num_attention_heads", "seq_length", "gpu_type",
                                           "num_gpus", "tp", "pp", "mbs", "gbs"};
    if (csv_require_cols(&t, required, sizeof required / sizeof *required, AC_E_INPUT,
                         " (the CSV needs the columns of benchmarks_train.csv)", e)) {
        csv_free(&t);
        return -1;
    }
    err_group *src = NULL, all = {0}, published = {0}; /* published: rows needing no assumed VP */
    err_group mem_published = {0};                     /* rows that publish their peak memory */
    err_group *gpus = NULL;                            /* predicted rows by GPU */
    size_t nsrc = 0, ngpus = 0;
    skip_tally skips = {0};
    const footnote *regressions[8]; /* footnotes that made rows skip, explained below the reasons */
    size_t nregressions = 0;
    strbuf rows = {0};
    /* a skipped row fills every column after gpu with nothing but its skip_reason */
    static const char header_before_reason[] =
        "id,source_id,model,gpu,num_gpus,tp,pp,vp,cp,ep,mbs,gbs,precision,measured_quantity,measured,"
        "predicted,error_pct,predicted_step_time_s,predicted_tokens_per_s_per_gpu,predicted_mfu_pct,"
        "predicted_peak_mem_gib,fits,";
    static const char header_after_reason[] =
        ",s_compute_fwd,s_compute_bwd,s_recompute,s_tp_comm,s_cp_comm,s_ep_comm,s_moe_host,s_pp_bubble,s_pp_p2p,"
        "s_dp_exposed,s_optimizer,s_overhead,grad_reduce_in_fp32,fp8_param_gather,cpu_offloading_num_layers,"
        "cuda_graphs,moe_a2a_overlap,recompute_modules,fused_expert_mlp,stack,usable_mem_gib,published_mem_gib,"
        "mem_error_pct\n";
    sb_add(&rows, header_before_reason);
    sb_add(&rows, "skip_reason");
    sb_add(&rows, header_after_reason);
    /* empty cells, one comma each: the first four columns and the comma after the reason
     * are written per row */
    char empty_before[64], empty_after[64];
    size_t nb = 0, na = 0;
    for (const char *p = header_before_reason; *p; p++) nb += *p == ',';
    for (const char *p = header_after_reason; *p; p++) na += *p == ',';
    nb -= 4;
    na -= 1;
    memset(empty_before, ',', nb); empty_before[nb] = '\0';
    memset(empty_after, ',', na); empty_after[na] = '\0';
    int rc = 0, vp_assumed = 0, predicted_fit = 0, bf16_grads = 0, fp8_weights = 0, offloaded = 0, graphed = 0, a2a_hidden = 0,
        module_recompute = 0, fused_mlp = 0, shape_by_name = 0, layout_assumed = 0, mbs_assumed = 0;
    int unnamed_stack = 0;      /* rows whose framework cell names no stack: read on the default one */
    char unnamed_first[64] = "";
    for (size_t i = 0; i < t.n; i++) {
        const csv_row *row = &t.rows[i];
        err_group *s = err_group_get(&src, &nsrc, csv_get(row, c.source_id));
        if (!s) { rc = ac_err_set(e, AC_E_NOMEM, "out of memory"); break; }
        est_input in;
        est_result r;
        measured m = {0};
        char why[256] = "";
        bool row_assumed = false;
        unsigned assume = 0;
        int ok = row_input(&t, row, &in, why, sizeof why, &assume) == 0;
        unsigned what = assume & (ASSUME_MBS | ASSUME_LAYOUT);
        if (ok) in.cal = cal;
        if (ok && what) {
            double ga_row;
            if (!num(row, c.grad_accum, &ga_row)) ga_row = 0;
            if (assume_tuned_layout(&in, assume, ga_row)) {
                snprintf(why, sizeof why, "%s not published and no %s predicted to fit",
                         assume & ASSUME_LAYOUT ? "parallel layout (tp, pp)" : "micro batch size",
                         assume & ASSUME_LAYOUT ? "layout" : "micro batch size");
                ok = 0;
            }
        }
        bool vp_assumed_here = false;
        if (ok) {
            double published_vp;
            if (in.pp > 1 && !num(row, c.vp, &published_vp) && in.stack->interleaved_pipeline && !in.stack->unstated_vp_none) {
                assume_tuned_vp(&in, (assume & HALF_BLOCKS) != 0);
                vp_assumed_here = true;
            }
            if (row_measured(&c, row, &in, &m, why, sizeof why)) ok = 0;
        }
        if (ok && est_evaluate(&in, &r)) { snprintf(why, sizeof why, "%s", r.why); ok = 0; }
        row_assumed = what != 0 || vp_assumed_here;
        sb_csv_field(&rows, csv_get(row, c.id), false);
        sb_csv_field(&rows, csv_get(row, c.source_id), false);
        sb_csv_field(&rows, csv_get(row, c.model), false);
        sb_csv_field(&rows, ok ? in.gpu->name : csv_get(row, c.gpu_type), false);
        if (!ok) {
            s->skipped++;
            all.skipped++;
            skip_tally_add(&skips, why);
            const footnote *note = footnote_of_row(row);
            if (note && note->effect == FOOTNOTE_REGRESSION) {
                size_t j = 0;
                while (j < nregressions && regressions[j] != note) j++;
                if (j == nregressions && nregressions < sizeof regressions / sizeof *regressions) regressions[nregressions++] = note;
            }
            sb_add(&rows, empty_before);
            sb_csv_field(&rows, why, false);
            sb_add(&rows, empty_after);
            sb_add(&rows, "\n");
            continue;
        }
        if (r.fits) predicted_fit++;
        double published_hidden;
        shape_by_name += !num(row, c.hidden, &published_hidden);
        const char *fw_cell = csv_get(row, c.framework);
        if (*fw_cell && !spell_blank(fw_cell) && !stack_named(fw_cell, NULL)) {
            if (!unnamed_stack++) snprintf(unnamed_first, sizeof unnamed_first, "%s", fw_cell);
        }
        bf16_grads += in.grad_bytes == 2.0;
        fp8_weights += in.fp8_param_gather;
        offloaded += in.offload_act_layers > 0;
        graphed += in.cuda_graphs;
        fused_mlp += in.fused_expert_mlp;
        a2a_hidden += in.moe_a2a_overlap;
        double pred = m.is_step ? r.step_time : r.tokens_per_s_per_gpu;
        double err = pred / m.value - 1.0;
        /* the signed error the tables' "median err" reads, one sense for every row: predicted
         * over published throughput − 1, positive when the prediction is faster */
        double err_thr = m.is_step ? m.value / pred - 1.0 : err;
        s->rows++;
        all.rows++;
        err_group *on_gpu = err_group_get(&gpus, &ngpus, in.gpu->name);
        if (on_gpu) on_gpu->rows++;
        if (!on_gpu || err_group_push(s, fabs(err), err_thr) || err_group_push(&all, fabs(err), err_thr) ||
            err_group_push(on_gpu, fabs(err), err_thr) || (!row_assumed && err_group_push(&published, fabs(err), err_thr))) {
            rc = ac_err_set(e, AC_E_NOMEM, "out of memory");
            break;
        }
        vp_assumed += vp_assumed_here;
        layout_assumed += (what & ASSUME_LAYOUT) != 0;
        mbs_assumed += what == ASSUME_MBS;
        sb_printf(&rows, "%d,%d,%d,%d,%d,%d,%d,%d,%s,%s,%.6g,%.6g,%.2f,%.6g,%.6g,%.2f,%.2f,%s,", in.num_gpus, in.tp, in.pp,
                  in.vp, in.cp, in.ep, in.mbs, in.gbs, est_precision_name(in.precision), m.what, m.value, pred, 100.0 * err,
                  r.step_time, r.tokens_per_s_per_gpu, 100.0 * r.mfu, r.mem_total / EST_GIB, r.fits ? "true" : "false");
        /* where the predicted step time goes (seconds per step), to see what a row's error is made of */
        sb_printf(&rows, ",%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g", r.t_compute_fwd, r.t_compute_bwd,
                  r.t_recompute, r.t_tp_comm, r.t_cp_comm, r.t_ep_comm, r.t_moe_host, r.t_pp_bubble, r.t_pp_p2p,
                  r.t_dp_exposed, r.t_optimizer, r.t_overhead);
        /* the switches the row ran with (its own columns or its framework's recipe) */
        char modules[80];
        est_recompute_text(&in, modules, sizeof modules);
        if (in.recompute_layernorm || in.recompute_moe_act || in.recompute_mla_up_proj) module_recompute++;
        sb_printf(&rows, ",%s,%s,%d,%s,%s,%s,%s,%s,%.2f,", in.grad_bytes == 2.0 ? "false" : "true",
                  in.fp8_param_gather ? "true" : "false", in.offload_act_layers, in.cuda_graphs ? "true" : "false",
                  in.moe_a2a_overlap ? "true" : "false", modules, in.fused_expert_mlp ? "true" : "false",
                  in.stack ? in.stack->name : "megatron-core", r.mem_limit / EST_GIB);
        /* a published peak (the run's own memory reading): the predicted peak against it */
        double peak;
        if (spell_memory_gib(csv_get(row, c.peak_mem), &peak)) {
            double mem_err = r.mem_total / EST_GIB / peak - 1.0;
            sb_printf(&rows, "%.2f,%.2f\n", peak, 100.0 * mem_err);
            if (err_group_push(&mem_published, fabs(mem_err), mem_err)) { rc = ac_err_set(e, AC_E_NOMEM, "out of memory"); break; }
        } else {
            sb_add(&rows, ",\n");
        }
    }
    if (!rc && rows.oom) rc = ac_err_set(e, AC_E_NOMEM, "out of memory");
    if (!rc && out_csv && all.n) rc = fs_write_atomic(out_csv, sb_str(&rows), rows.len, e);
    if (!rc && rows_csv) *rows_csv = sb_take(&rows);
    if (!rc) {
        sum->rows = all.rows;
        sum->skipped = all.skipped;
        double *tmp = malloc((all.n ? all.n : 1) * sizeof *tmp);
        if (!tmp) rc = ac_err_set(e, AC_E_NOMEM, "out of memory");
        if (!rc) err_group_quantiles(&all, tmp, &sum->median_abs_err, &sum->p90_abs_err);
        if (!rc && out) {
            double pub_med = NAN, pub_p90 = NAN; /* the rows with a published layout only */
            err_group_quantiles(&published, tmp, &pub_med, &pub_p90);
            json_writer w;
            if (json) {
                json_begin(&w, out);
                json_obj_open(&w, NULL);
                json_str(&w, "csv", csv_path);
                json_int(&w, "rows", all.rows);
                json_int(&w, "skipped", all.skipped);
                json_num(&w, "median_abs_err_pct", 100.0 * sum->median_abs_err);
                json_num(&w, "p90_abs_err_pct", 100.0 * sum->p90_abs_err);
            }
            err_groups_print(out, json ? &w : NULL, "source", "sources", "source", src, nsrc, 8, true, tmp);
            err_groups_print(out, json ? &w : NULL, "gpu", "gpus", "gpu", gpus, ngpus, 8, false, tmp);
            skip_tally_print(&skips, out, json ? &w : NULL);
            if (json) {
                json_int(&w, "vp_assumed", vp_assumed);
                json_int(&w, "layout_assumed", layout_assumed);
                json_int(&w, "mbs_assumed", mbs_assumed);
                if ((vp_assumed || layout_assumed || mbs_assumed) && published.n) {
                    json_num(&w, "published_layout_median_abs_err_pct", 100.0 * pub_med);
                    json_num(&w, "published_layout_p90_abs_err_pct", 100.0 * pub_p90);
                }
                json_int(&w, "predicted_to_fit", predicted_fit);
                json_int(&w, "published_peak_rows", (long long)mem_published.n);
                if (mem_published.n) {
                    json_num(&w, "peak_memory_median_abs_err_pct", 100.0 * stats_quantile(mem_published.err, mem_published.n, 0.5));
                    json_num(&w, "peak_memory_p90_abs_err_pct", 100.0 * stats_quantile(mem_published.err, mem_published.n, 0.9));
                    json_num(&w, "peak_memory_signed_median_pct", 100.0 * stats_quantile(mem_published.signed_err, mem_published.n, 0.5));
                }
                json_int(&w, "bf16_gradient_rows", bf16_grads);
                json_int(&w, "fp8_weight_rows", fp8_weights);
                json_int(&w, "activation_offload_rows", offloaded);
                json_int(&w, "cuda_graph_rows", graphed);
                json_int(&w, "a2a_overlap_rows", a2a_hidden);
                json_int(&w, "module_recompute_rows", module_recompute);
                json_int(&w, "shape_from_name_rows", shape_by_name);
                json_int(&w, "unknown_framework_rows", unnamed_stack);
                json_obj_close(&w);
                json_end(&w);
            } else {
                for (size_t k = 0; k < nregressions; k++)
                    fprintf(out, "footnote [^%s]: %s (%s)\n", regressions[k]->name, regressions[k]->meaning,
                            regressions[k]->source);
                fprintf(out, "memory: %d of %d published runs predicted to fit in GPU memory (each of them ran)\n",
                        predicted_fit, all.rows);
                if (mem_published.n)
                    fprintf(out, "memory: %zu runs publish their peak: predicted peak median |err| %.1f%%, p90 %.1f%%, "
                                 "signed median %+.1f%% (+ = predicted above the published)\n",
                            mem_published.n, 100.0 * stats_quantile(mem_published.err, mem_published.n, 0.5),
                            100.0 * stats_quantile(mem_published.err, mem_published.n, 0.9),
                            100.0 * stats_quantile(mem_published.signed_err, mem_published.n, 0.5));
                fprintf(out, "recipes: %d row(s) reduce gradients in bf16, %d keep FP8 weights and %d offload activations, "
                             "as their framework's benchmark recipes do (data/recipes.csv)", bf16_grads, fp8_weights, offloaded);
                if (bf16_grads < all.rows) fprintf(out, "; %d keep fp32 gradients (their stack's default)", all.rows - bf16_grads);
                fputc('\n', out);
                if (module_recompute)
                    fprintf(out, "recompute modules: %d row(s) recompute norms, MoE activations or MLA up-projections in "
                                 "backward as their recipe does (per-row column recompute_modules)\n",
                            module_recompute);
                if (graphed || a2a_hidden || fused_mlp)
                    fprintf(out, "graphs and overlap: %d row(s) replay the whole iteration as a CUDA graph, %d overlap the "
                                 "MoE all-to-all with compute, %d run a fused grouped expert MLP (their release's recipe "
                                 "or their own columns)\n",
                            graphed, a2a_hidden, fused_mlp);
                if (unnamed_stack)
                    fprintf(out, "framework: %d row(s) name a training stack not in data/stacks.csv (first: '%s'): read "
                                 "on %s, the default\n", unnamed_stack, unnamed_first, est_stack_default()->name);
                if (shape_by_name)
                    fprintf(out, "architecture: %d row(s) publish no shape; their model name gives it (data/models.csv "
                                 "and the presets; published cells such as a proxy's layer count kept)\n",
                            shape_by_name);
                if (vp_assumed)
                    fprintf(out, "VP not published for %d row(s) with PP > 1: the fastest VP predicted to fit "
                                 "was assumed (tables report tuned runs)\n", vp_assumed);
                if (layout_assumed)
                    fprintf(out, "layout not published: TP x PP and MBS of %d row(s): the fastest predicted to fit was "
                                 "assumed (tables that print only their best run)\n", layout_assumed);
                if (mbs_assumed)
                    fprintf(out, "micro batch not published: MBS of %d row(s): the fastest predicted to fit was assumed\n",
                            mbs_assumed);
                if ((vp_assumed || layout_assumed || mbs_assumed) && published.n)
                    fprintf(out, "without those rows (%zu with a published layout): median_abs_err %.1f%% p90_abs_err %.1f%%\n",
                            published.n, 100.0 * pub_med, 100.0 * pub_p90);
                validate_print_final_line(out, all.rows, all.skipped, all.n, sum->median_abs_err, sum->p90_abs_err);
            }
        }
        free(tmp);
        if (!rc && !all.n)
            rc = validate_no_rows_error(e, csv_path, all.skipped, out_csv != NULL);
    }
    err_groups_free(src, nsrc);
    err_groups_free(gpus, ngpus);
    err_group_free(&all);
    err_group_free(&published);
    err_group_free(&mem_published);
    sb_free(&rows);
    csv_free(&t);
    return rc;
}

/* ---------- uncertainty bands (data/bands.csv) ---------- */

/* one (GPU, stack) group of predicted rows: |step-time error| and memory overshoot */
typedef struct {
    char gpu[32], stack[32];
    double *err, *over, *resid;  /* resid: |error - its (source, model, GPU) group's median| (NAN: alone) */
    size_t n, cap;
    double rank_band;            /* rank_band_of's, NAN from fewer than two shared-group runs */
} band_group;

/* the ranking band from the runs that share a (table, model, GPU) group (others say nothing
 * about order): the VALIDATE_BAND_Q quantile of their residuals, compacted to the front of
 * g->resid; NAN from fewer than two */
static double rank_band_of(band_group *g)
{
    size_t nr = 0;
    for (size_t k = 0; k < g->n; k++)
        if (isfinite(g->resid[k])) g->resid[nr++] = g->resid[k];
    return nr >= 2 ? stats_quantile(g->resid, nr, VALIDATE_BAND_Q) : NAN;
}

static int band_push(band_group *g, double err, double over, double resid)
{
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 16;
        double *e2 = realloc(g->err, cap * sizeof *e2);
        if (!e2) return -1;
        g->err = e2;
        double *o2 = realloc(g->over, cap * sizeof *o2);
        if (!o2) return -1;
        g->over = o2;
        double *r2 = realloc(g->resid, cap * sizeof *r2);
        if (!r2) return -1;
        g->resid = r2;
        g->cap = cap;
    }
    g->err[g->n] = err;
    g->over[g->n] = over;
    g->resid[g->n] = resid;
    g->n++;
    return 0;
}

/* The median signed error of each row's group (same source, model and GPU), into med[0..t->n);
 * NAN for a row alone in its group (it says nothing about ranking) or without an error.  Each
 * group is gathered once, from its first row. */
static int group_median_errs(const csv_table *t, int csrc, int cmod, int cg, int ce, double *med)
{
    bool *done = calloc(t->n ? t->n : 1, sizeof *done);
    double *v = malloc((t->n ? t->n : 1) * sizeof *v);
    size_t *members = malloc((t->n ? t->n : 1) * sizeof *members);
    if (!done || !v || !members) { free(done); free(v); free(members); return -1; }
    for (size_t i = 0; i < t->n; i++) med[i] = NAN;
    for (size_t i = 0; i < t->n; i++) {
        if (done[i]) continue;
        const csv_row *ri = &t->rows[i];
        size_t n = 0, k = 0;
        for (size_t j = i; j < t->n; j++) {
            const csv_row *rj = &t->rows[j];
            if (done[j] || strcmp(csv_get(ri, csrc), csv_get(rj, csrc)) || strcmp(csv_get(ri, cmod), csv_get(rj, cmod)) ||
                strcmp(csv_get(ri, cg), csv_get(rj, cg)))
                continue;
            done[j] = true;
            members[k++] = j;
            double x;
            if (num(rj, ce, &x)) v[n++] = x;
        }
        double m = n < 2 ? NAN : stats_quantile(v, n, 0.5);
        for (size_t q = 0; q < k; q++) med[members[q]] = m;
    }
    free(done);
    free(v);
    free(members);
    return 0;
}

static band_group *band_get(band_group **gs, size_t *n, const char *gpu, const char *stack)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*gs)[i].gpu, gpu) && !strcmp((*gs)[i].stack, stack)) return &(*gs)[i];
    band_group *g2 = realloc(*gs, (*n + 1) * sizeof *g2);
    if (!g2) return NULL;
    *gs = g2;
    band_group *g = &g2[(*n)++];
    memset(g, 0, sizeof *g);
    snprintf(g->gpu, sizeof g->gpu, "%s", gpu);
    snprintf(g->stack, sizeof g->stack, "%s", stack);
    return g;
}

int validate_bands_csv(const char *rows_csv, char **out, ac_err *e)
{
    csv_table t;
    *out = NULL;
    if (csv_parse(rows_csv, strlen(rows_csv), "validate rows", &t, e)) return -1;
    int cg = csv_col(&t, "gpu"), cs = csv_col(&t, "stack"), ce = csv_col(&t, "error_pct"),
        cm = csv_col(&t, "predicted_peak_mem_gib"), cl = csv_col(&t, "usable_mem_gib"),
        csrc = csv_col(&t, "source_id"), cmod = csv_col(&t, "model");
    if (cg < 0 || cs < 0 || ce < 0 || cm < 0 || cl < 0 || csrc < 0 || cmod < 0) {
        csv_free(&t);
        return ac_err_set(e, AC_E_INTERNAL, "validate rows lack the band columns");
    }
    band_group *gs = NULL;
    size_t n = 0;
    int rc = 0;
    double *gmed = malloc((t.n ? t.n : 1) * sizeof *gmed);
    if (!gmed || group_median_errs(&t, csrc, cmod, cg, ce, gmed)) {
        free(gmed);
        csv_free(&t);
        return ac_err_set(e, AC_E_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < t.n && !rc; i++) {
        const csv_row *r = &t.rows[i];
        double err, mem, lim;
        if (!num(r, ce, &err) || !num(r, cm, &mem) || !num(r, cl, &lim) || lim <= 0) continue; /* skipped row */
        /* every published run ran: a prediction above the usable memory over-predicts by at least that */
        double over = mem / lim - 1.0 > 0 ? mem / lim - 1.0 : 0.0;
        double med = gmed[i];
        double resid = isfinite(med) ? fabs(err - med) / 100.0 : NAN;
        const char *keys[3][2] = {{csv_get(r, cg), csv_get(r, cs)}, {"*", csv_get(r, cs)}, {"*", "*"}};
        for (int k = 0; k < 3 && !rc; k++) {
            band_group *g = band_get(&gs, &n, keys[k][0], keys[k][1]);
            if (!g || band_push(g, fabs(err) / 100.0, over, resid)) rc = ac_err_set(e, AC_E_NOMEM, "out of memory");
        }
    }
    strbuf b = {0};
    sb_add(&b, "gpu,stack,rows,time_band_rel,mem_band_rel,rank_band_rel\n");
    /* the pooled ranking band, for groups whose runs share no (table, model, GPU) group */
    double pooled_rb = NAN;
    for (size_t i = 0; i < n; i++) {
        gs[i].rank_band = rank_band_of(&gs[i]);
        if (!strcmp(gs[i].gpu, "*") && !strcmp(gs[i].stack, "*")) pooled_rb = gs[i].rank_band;
    }
    for (size_t i = 0; i < n && !rc; i++) {
        band_group *g = &gs[i];
        /* a band from too few runs says little: such a pair takes its stack's, such a stack the
         * pooled band */
        bool pooled = !strcmp(g->gpu, "*") && !strcmp(g->stack, "*");
        if (!pooled && g->n < EST_BAND_MIN_ROWS) continue;
        double tb = stats_quantile(g->err, g->n, VALIDATE_BAND_Q);
        double mb = stats_quantile(g->over, g->n, 0.95);
        if (mb < VALIDATE_BAND_MEM_FLOOR) mb = VALIDATE_BAND_MEM_FLOOR;
        /* no run sharing a group: the pooled ranking band, else the step-time band, the cautious bound */
        double rb = isfinite(g->rank_band) ? g->rank_band : isfinite(pooled_rb) ? pooled_rb : tb;
        sb_printf(&b, "%s,%s,%zu,%.3f,%.3f,%.3f\n", g->gpu, g->stack, g->n, tb, mb, rb);
    }
    for (size_t i = 0; i < n; i++) { free(gs[i].err); free(gs[i].over); free(gs[i].resid); }
    free(gs);
    free(gmed);
    csv_free(&t);
    if (!rc && b.oom) rc = ac_err_set(e, AC_E_NOMEM, "out of memory");
    if (rc) { sb_free(&b); return -1; }
    *out = sb_take(&b);
    return 0;
}
