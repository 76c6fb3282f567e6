/* spelling.c — the spellings of benchmark-table cells (spelling.h) */
#include "validate/spelling.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/text.h"

/* lower-cased, '_' as '-', trimmed copy of a cell */
static void norm(const char *cell, char *buf, size_t n)
{
    size_t k = 0;
    while (*cell == ' ') cell++;
    for (; *cell && k + 1 < n; cell++) buf[k++] = *cell == '_' ? '-' : (char)tolower((unsigned char)*cell);
    while (k && buf[k - 1] == ' ') k--;
    buf[k] = '\0';
}

/* the first word (letters and digits) of a normalised cell */
static void first_word(const char *s, char *w, size_t n)
{
    size_t k = 0;
    while (*s && !isalnum((unsigned char)*s)) s++;
    while (*s && isalnum((unsigned char)*s) && k + 1 < n) w[k++] = *s++;
    w[k] = '\0';
}

/* Precision spellings, checked in order (the first whose text the cell contains wins):
 * FP4 and FP8 first, as their cells also name the bf16 they keep elsewhere; bf16 before
 * fp16 because "bf16-mixed" contains "16-mixed".  Lightning's precision flag: "16-mixed"
 * and "16" are fp16 AMP, "bf16-mixed" bf16 AMP (Lightning Trainer docs, precision);
 * Composer/MosaicML: amp_bf16, amp_fp16, amp_fp8; Transformer Engine: "hybrid" FP8
 * (E4M3 forward, E5M2 gradients); DeepSpeed: "fp16"/"bf16" config sections; torchao and
 * torchtitan: "float8" (Float8Linear, tensorwise or rowwise scaling). */
static const struct {
    const char *text;
    est_precision p;
    bool block;
} PREC_SPELLINGS[] = {
    {"nvfp4", PREC_FP4, false}, {"mxfp4", PREC_FP4, false}, {"fp4", PREC_FP4, false},
    {"mxfp8", PREC_FP8, true},  {"fp8-mx", PREC_FP8, true}, {"fp8 block", PREC_FP8, true},
    {"block-scaled fp8", PREC_FP8, true},
    {"fp8", PREC_FP8, false},   {"e4m3", PREC_FP8, false}, {"float8", PREC_FP8, false},
    {"bf16", PREC_BF16, false}, {"bfloat16", PREC_BF16, false},
    {"fp16", PREC_FP16, false}, {"float16", PREC_FP16, false}, {"16-mixed", PREC_FP16, false},
    {"half", PREC_FP16, false}, {"apex o1", PREC_FP16, false}, {"apex o2", PREC_FP16, false},
    {"tf32", PREC_FP32, false}, {"fp32", PREC_FP32, false}, {"float32", PREC_FP32, false},
    {"32-true", PREC_FP32, false},
};
/* whole-cell spellings: bare numbers and "amp"/"mixed precision" alone (torch.cuda.amp and
 * apex default to fp16) */
static const struct {
    const char *text;
    est_precision p;
} PREC_EXACT[] = {
    {"16", PREC_FP16}, {"amp", PREC_FP16}, {"mixed precision", PREC_FP16}, {"mixed", PREC_FP16}, {"32", PREC_FP32},
    {"8", PREC_FP8},
};

bool spell_fp8_current_scaling(const char *cell)
{
    char s[128];
    norm(cell, s, sizeof s);
    return strstr(s, "current scaling") || strstr(s, "fp8-cs") || strstr(s, "tensorwise");
}

int spell_precision(const char *cell, est_precision *out, bool *block_scaled)
{
    char s[128];
    norm(cell, s, sizeof s);
    if (block_scaled) *block_scaled = false;
    if (!*s) return -1;
    for (size_t i = 0; i < sizeof PREC_EXACT / sizeof *PREC_EXACT; i++)
        if (!strcmp(s, PREC_EXACT[i].text)) {
            *out = PREC_EXACT[i].p;
            return 0;
        }
    for (size_t i = 0; i < sizeof PREC_SPELLINGS / sizeof *PREC_SPELLINGS; i++)
        if (strstr(s, PREC_SPELLINGS[i].text)) {
            *out = PREC_SPELLINGS[i].p;
            if (block_scaled) *block_scaled = PREC_SPELLINGS[i].block || (PREC_SPELLINGS[i].p == PREC_FP8 && strstr(s, "block"));
            return 0;
        }
    return -1;
}

bool spell_blank(const char *cell)
{
    static const char *const BLANK[] = {"-", "--", "\xe2\x80\x94", "\xe2\x80\x93", "n/a", "na", "?", "unknown",
                                        "not stated", "not published", "none given", "tbd"};
    char s[64];
    norm(cell, s, sizeof s);
    for (size_t i = 0; i < sizeof BLANK / sizeof *BLANK; i++)
        if (!strcmp(s, BLANK[i])) return true;
    return false;
}

static const char *const TRUE_WORDS[] = {"y", "yes", "true", "t", "1", "on", "enabled", "enable"};
static const char *const FALSE_WORDS[] = {"n", "no", "false", "f", "0", "off", "disabled", "disable", "none"};

static int word_in(const char *w, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(w, list[i])) return 1;
    return 0;
}

int spell_bool(const char *cell, bool *out)
{
    char s[64], w[16];
    norm(cell, s, sizeof s);
    first_word(s, w, sizeof w);
    if (word_in(w, TRUE_WORDS, sizeof TRUE_WORDS / sizeof *TRUE_WORDS)) { *out = true; return 1; }
    if (word_in(w, FALSE_WORDS, sizeof FALSE_WORDS / sizeof *FALSE_WORDS)) { *out = false; return 1; }
    return 0;
}

int spell_memory_gib(const char *cell, double *gib)
{
    const char *p = cell;
    while (*p && !isdigit((unsigned char)*p) && *p != '.') p++;
    char *end;
    double v = strtod(p, &end);
    if (end == p || !(v > 0)) return 0;
    /* a used/total pair: the reading is the first; the unit follows the pair */
    const char *u = end;
    if (*u == '/') { strtod(u + 1, &end); u = end; }
    while (*u == ' ') u++;
    static const struct { const char *unit; double to_gib; } UNITS[] = {
        {"gib", 1.0}, {"mib", 1.0 / 1024.0}, {"gb", 1e9 / 1073741824.0}, {"mb", 1e6 / 1073741824.0}, {"g", 1.0},
    };
    double scale = 1.0; /* a bare number is GiB (the column's unit) */
    for (size_t i = 0; i < sizeof UNITS / sizeof *UNITS; i++)
        if (!strncasecmp(u, UNITS[i].unit, strlen(UNITS[i].unit))) { scale = UNITS[i].to_gib; break; }
    *gib = v * scale;
    return 1;
}

/* sharding phrases, checked in order: PyTorch FSDP ShardingStrategy names, DeepSpeed's and
 * Megatron's names of the distributed optimizer (distributed_fused_adam: NeMo/apex's
 * ZeRO-1 optimizer), and plain data parallelism */
static const struct {
    const char *text;
    int stage;
} ZERO_PHRASES[] = {
    {"full-shard", 3}, {"full shard", 3}, {"hybrid-shard", 3}, {"hybrid shard", 3}, {"fsdp2", 3}, {"fsdp", 3},
    {"shard-grad-op", 2}, {"shard grad op", 2},
    {"distributed", 1}, {"dist-opt", 1}, {"dist opt", 1},
    {"no-shard", 0}, {"ddp", 0},
};

/* "zero-3", "zero3", "zero stage 2", "stage 3", "zero-1 (distributed optimizer)": the
 * digit after "zero" or "stage", or -1 */
static int zero_digit(const char *s)
{
    static const char *const keys[] = {"zero", "stage"};
    for (size_t k = 0; k < 2; k++) {
        const char *p = strstr(s, keys[k]);
        while (p) {
            const char *q = p + strlen(keys[k]);
            while (*q == '-' || *q == ' ' || *q == '+') q++;
            if (!strncmp(q, "stage", 5)) {
                q += 5;
                while (*q == '-' || *q == ' ') q++;
            }
            if (*q >= '0' && *q <= '3' && !isdigit((unsigned char)q[1])) return *q - '0';
            p = strstr(p + 1, keys[k]);
        }
    }
    return -1;
}

/* one cell: 0..3, or -2 when blank, -1 when unreadable */
static int zero_cell(const char *cell, bool fsdp_col)
{
    char s[128], w[16];
    norm(cell, s, sizeof s);
    if (!*s || spell_blank(s)) return -2;
    char *end;
    double v = strtod(s, &end);
    if (end != s && !*end) {
        /* fsdp: a shard-group size (or 1 = on); dist_opt_zero: the stage itself */
        if (fsdp_col) return v > 0 ? 3 : 0;
        return v >= 0 && v <= 3 && v == (int)v ? (int)v : -1;
    }
    int d = zero_digit(s);
    if (d >= 0) return d;
    for (size_t i = 0; i < sizeof ZERO_PHRASES / sizeof *ZERO_PHRASES; i++)
        if (strstr(s, ZERO_PHRASES[i].text)) return ZERO_PHRASES[i].stage;
    first_word(s, w, sizeof w);
    if (word_in(w, TRUE_WORDS, sizeof TRUE_WORDS / sizeof *TRUE_WORDS)) return fsdp_col ? 3 : 1;
    if (word_in(w, FALSE_WORDS, sizeof FALSE_WORDS / sizeof *FALSE_WORDS)) return 0;
    return -1;
}

int spell_zero_stage(const char *dist_opt, const char *fsdp, int *stage, const char **which)
{
    int f = zero_cell(fsdp, true), z = zero_cell(dist_opt, false);
    if (f == -1) { *which = "fsdp"; return -1; }
    if (z == -1) { *which = "dist_opt_zero"; return -1; }
    /* FSDP, when on, shards more than any optimizer setting beside it */
    if (f > 0) *stage = z > f ? z : f;
    else if (z >= 0) *stage = z;
    else if (f == 0 && *stage >= 3) *stage = 1; /* FSDP explicitly off: no more than the distributed optimizer */
    return 0;
}

/* recompute phrases, checked in order; "no" or "without" right before one negates it */
static const struct {
    const char *text;
    est_recompute r;
} RECOMPUTE_PHRASES[] = {
    {"selective", RECOMPUTE_SELECTIVE},
    {"full recompute", RECOMPUTE_FULL}, {"full activation recompute", RECOMPUTE_FULL},
    {"granularity=full", RECOMPUTE_FULL}, {"granularity full", RECOMPUTE_FULL},
    {"full activation checkpointing", RECOMPUTE_FULL}, {"full checkpointing", RECOMPUTE_FULL},
    {"activation checkpointing", RECOMPUTE_FULL}, {"gradient checkpointing", RECOMPUTE_FULL},
    {"activation recomputation", RECOMPUTE_FULL}, {"activation recompute", RECOMPUTE_FULL},
};
/* act_recompute cells: the method names of Megatron (full: uniform/block), HF
 * (gradient_checkpointing true) and plain yes/no */
static const struct {
    const char *text;
    est_recompute r;
} RECOMPUTE_CELLS[] = {
    {"selective", RECOMPUTE_SELECTIVE}, {"full", RECOMPUTE_FULL}, {"uniform", RECOMPUTE_FULL},
    {"block", RECOMPUTE_FULL}, {"checkpoint", RECOMPUTE_FULL}, {"recompute", RECOMPUTE_FULL},
};

static bool negated_before(const char *s, const char *at)
{
    static const char *const neg[] = {"no ", "without ", "w/o ", "not ", "disabled "};
    for (size_t i = 0; i < sizeof neg / sizeof *neg; i++) {
        size_t l = strlen(neg[i]);
        if ((size_t)(at - s) >= l && !strncmp(at - l, neg[i], l)) return true;
    }
    return false;
}

/* a negation right after a phrase: "torch.compile: off", "torch.compile not stated",
 * "torch.compile (disabled)"; a word, not a prefix ("offloading" is not "off"), and a bracket
 * only when it holds that word alone ("(no activation checkpointing)" speaks of something else) */
static bool negated_after(const char *after)
{
    while (*after == ' ' || *after == ':' || *after == '=') after++;
    bool bracket = *after == '(';
    if (bracket) after++;
    static const char *const neg[] = {"not", "no", "false", "off", "disabled", "unused", "none"};
    for (size_t i = 0; i < sizeof neg / sizeof *neg; i++) {
        size_t l = strlen(neg[i]);
        if (strncmp(after, neg[i], l)) continue;
        char next = after[l];
        if (bracket ? next == ')' : !(isalnum((unsigned char)next) || next == '-' || next == '_')) return true;
        if (!bracket && next == '-' && !strcmp(neg[i], "not")) return true; /* "not-stated" */
    }
    return false;
}

int spell_named(const char *cell, const char *const *phrases)
{
    size_t len = strlen(cell) + 1; /* a notes cell of any length, read whole */
    char *s = malloc(len);
    if (!s) return 0;
    norm(cell, s, len);
    int named = 0;
    for (; *phrases && named >= 0; phrases++) {
        char p[64];
        norm(*phrases, p, sizeof p);
        if (!*p) continue;
        for (const char *at = strstr(s, p); at; at = strstr(at + 1, p)) {
            if (negated_before(s, at) || negated_after(at + strlen(p))) { named = -1; break; }
            named = 1;
        }
    }
    free(s);
    return named;
}

int spell_recompute(const char *cell, const char *notes, est_recompute *out)
{
    char s[256];
    norm(cell, s, sizeof s);
    if (spell_blank(s)) s[0] = '\0';
    if (*s) {
        bool b;
        for (size_t i = 0; i < sizeof RECOMPUTE_CELLS / sizeof *RECOMPUTE_CELLS; i++)
            if (strstr(s, RECOMPUTE_CELLS[i].text) && !negated_before(s, strstr(s, RECOMPUTE_CELLS[i].text))) {
                *out = RECOMPUTE_CELLS[i].r;
                return 0;
            }
        if (spell_bool(s, &b)) {
            *out = b ? RECOMPUTE_FULL : RECOMPUTE_NONE;
            return 0;
        }
        return -1;
    }
    char n[1024];
    norm(notes, n, sizeof n);
    for (char *p = n; *p; p++)
        if (*p == '-' && p > n && isalpha((unsigned char)p[-1]) && isalpha((unsigned char)p[1])) *p = ' ';
    bool negated = false; /* "no activation checkpointing" says none */
    for (size_t i = 0; i < sizeof RECOMPUTE_PHRASES / sizeof *RECOMPUTE_PHRASES; i++) {
        const char *at = strstr(n, RECOMPUTE_PHRASES[i].text);
        if (at && !negated_before(n, at)) {
            *out = RECOMPUTE_PHRASES[i].r;
            return 0;
        }
        negated |= at != NULL;
    }
    if (negated) *out = RECOMPUTE_NONE;
    return 0;
}

/* FLOP-count conventions named in a flops_formula cell, checked in order */
static const struct {
    const char *text;
    spell_flops f;
} FLOPS_PHRASES[] = {
    {"counted at 1/2", FLOPS_CAUSAL_HALF}, {"counted at \xc2\xbd", FLOPS_CAUSAL_HALF}, {"causal attention at half", FLOPS_CAUSAL_HALF},
    {"8nd", FLOPS_8ND}, {"8 * n * d", FLOPS_8ND}, {"8*n*d", FLOPS_8ND}, {"4 passes", FLOPS_8ND}, {"4-pass", FLOPS_8ND},
    {"hardware flops", FLOPS_8ND},
    {"6nd", FLOPS_6ND}, {"6 * n * d", FLOPS_6ND}, {"6*n*d", FLOPS_6ND}, {"6n ", FLOPS_6ND}, {"6 * params", FLOPS_6ND},
    {"6*params", FLOPS_6ND}, {"6 x params", FLOPS_6ND}, {"6 flops per parameter", FLOPS_6ND},
};

spell_flops spell_flops_formula(const char *cell)
{
    char s[1024];
    norm(cell, s, sizeof s);
    for (size_t i = 0; i < sizeof FLOPS_PHRASES / sizeof *FLOPS_PHRASES; i++)
        if (strstr(s, FLOPS_PHRASES[i].text)) return FLOPS_PHRASES[i].f;
    return FLOPS_MEGATRON;
}
