/* named.c — architectures by published name (named.h). */
#include "model/named.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/family.h"
#include "model/layer.h"
#include "util/csv.h"
#include "util/text.h"

extern const char ac_data_models[]; /* build/gen/data_models.c: data/models.csv compiled in */

/* one row of data/models.csv */
typedef struct {
    char name[64];      /* as data/models.csv spells it */
    char keys[256];     /* the name and its aliases, normalised, '|'-separated */
    model_shape shape;  /* seq_length 0: a run setting, not the architecture's */
    int context;        /* the positions the release supports (max_position_embeddings); 0 = unpublished */
    char source[512];
} named_model;

enum { NAMED_MAX = 128 };
static named_model named[NAMED_MAX];
static size_t named_n;
static bool named_loaded;

static void normalise(const char *in, char *out, size_t len);

static const char *const NUM_COLS[] = {"layers", "hidden", "heads", "kv_heads", "head_dim", "vocab", "ffn", "gated",
                                       "tied", "learned_pos", "experts", "topk", "moe_ffn", "shared_ffn",
                                       "dense_layers", "q_lora", "kv_lora", "qk_rope", "v_head", "mtp",
                                       "router_groups", "group_topk", "attn_chunk", "chunk_layers", "mamba_heads",
                                       "mamba_head_dim", "mamba_state", "mamba_groups", "moe_latent", "context"};
enum { N_NUM = sizeof NUM_COLS / sizeof *NUM_COLS };

static int row_of(const csv_table *t, const csv_row *r, named_model *m, ac_err *e)
{
    long v[N_NUM];
    for (size_t k = 0; k < N_NUM; k++) {
        const char *cell = csv_get(r, csv_col(t, NUM_COLS[k]));
        char *end;
        v[k] = strtol(cell, &end, 10);
        if (!*cell || *end || v[k] < 0 || v[k] > 100000000)
            return ac_err_at(e, AC_E_INTERNAL, t->file, r->line, 0, NUM_COLS[k], "not a count: '%s'", cell);
    }
    memset(m, 0, sizeof *m);
    model_shape *s = &m->shape;
    s->arch = ARCH_DECODER;
    s->num_layers = (int)v[0], s->hidden = (int)v[1], s->heads = (int)v[2], s->query_groups = (int)v[3];
    s->kv_channels = (int)v[4], s->vocab = (int)v[5], s->ffn_hidden = (int)v[6];
    s->gated_mlp = v[7] != 0, s->untied_embeddings = v[8] == 0, s->learned_pos_emb = v[9] != 0;
    s->num_experts = (int)v[10], s->moe_topk = (int)v[11], s->moe_ffn_hidden = (int)v[12];
    s->moe_shared_ffn = (int)v[13], s->moe_dense_layers = (int)v[14];
    s->q_lora_rank = (int)v[15], s->kv_lora_rank = (int)v[16], s->qk_rope_dim = (int)v[17], s->v_head_dim = (int)v[18];
    s->mtp_layers = (int)v[19], s->moe_router_groups = (int)v[20], s->moe_group_topk = (int)v[21];
    s->attn_chunk = (int)v[22], s->attn_chunk_layers = (int)v[23];
    s->mamba_heads = (int)v[24], s->mamba_head_dim = (int)v[25], s->mamba_state = (int)v[26], s->mamba_groups = (int)v[27];
    s->moe_latent = (int)v[28];
    m->context = (int)v[29];
    const char *pattern = csv_get(r, csv_col(t, "hybrid"));
    if (*pattern) {
        if (layer_hybrid_pattern(s, pattern) || s->num_layers != (int)v[0])
            return ac_err_at(e, AC_E_INTERNAL, t->file, r->line, 0, "hybrid",
                             "not a hybrid pattern of %ld blocks ('M', '*', '-', 'E'): '%s'", v[0], pattern);
        const char *key, *why = layer_hybrid_check(s, &key);
        if (why) return ac_err_at(e, AC_E_INTERNAL, t->file, r->line, 0, "hybrid", "%s (%s)", why, key);
    }
    if (s->num_layers < 1 || s->hidden < 1 || s->heads < 1 || s->query_groups < 1 || s->heads % s->query_groups ||
        s->kv_channels < 1 || s->vocab < 1 || s->ffn_hidden < 1 || s->attn_chunk_layers > s->num_layers || (s->num_experts > 1 && (s->moe_topk < 1 || s->moe_ffn_hidden < 1)))
        return ac_err_at(e, AC_E_INTERNAL, t->file, r->line, 0, csv_get(r, csv_col(t, "name")), "incomplete architecture row");
    /* every name, normalised, so a lookup compares keys only */
    char names[256];
    snprintf(names, sizeof names, "%s|%s", csv_get(r, csv_col(t, "name")), csv_get(r, csv_col(t, "aliases")));
    size_t o = 0;
    char *save = NULL;
    for (char *tok = strtok_r(names, "|", &save); tok; tok = strtok_r(NULL, "|", &save)) {
        char k[64];
        normalise(tok, k, sizeof k);
        if (!k[0]) continue;
        int w = snprintf(m->keys + o, sizeof m->keys - o, "%s%s", o ? "|" : "", k);
        if (w < 0 || (size_t)w >= sizeof m->keys - o) break;
        o += (size_t)w;
    }
    const char *source = csv_get(r, csv_col(t, "source"));
    if (strlen(source) >= sizeof m->source)
        return ac_err_at(e, AC_E_INTERNAL, t->file, r->line, 0, "source", "longer than %zu characters", sizeof m->source - 1);
    snprintf(m->source, sizeof m->source, "%s", source);
    snprintf(m->name, sizeof m->name, "%.*s", (int)sizeof m->name - 1, csv_get(r, csv_col(t, "name")));
    return 0;
}

/* a models table in data/models.csv's form into rows[] (NAMED_MAX of them) and *n; -1 at the
 * first malformed row, *n untouched */
static int parse_rows(const char *text, size_t len, const char *file, named_model *rows, size_t *n, ac_err *e)
{
    csv_table t;
    if (csv_parse(text, len, file, &t, e)) return -1;
    static const char *const text_cols[] = {"name", "aliases", "hybrid", "source"};
    if (csv_require_cols(&t, text_cols, sizeof text_cols / sizeof *text_cols, AC_E_INTERNAL, NULL, e) ||
        csv_require_cols(&t, NUM_COLS, N_NUM, AC_E_INTERNAL, NULL, e)) {
        csv_free(&t);
        return -1;
    }
    for (size_t i = 0; i < t.n; i++) {
        if (i == NAMED_MAX) { csv_free(&t); return ac_err_set(e, AC_E_INTERNAL, "%s: more than %d rows", file, NAMED_MAX); }
        if (row_of(&t, &t.rows[i], &rows[i], e)) { csv_free(&t); return -1; }
    }
    *n = t.n;
    csv_free(&t);
    return 0;
}

int model_named_load(ac_err *e)
{
    if (named_loaded) return 0;
    if (parse_rows(ac_data_models, strlen(ac_data_models), "data/models.csv", named, &named_n, e)) return -1;
    named_loaded = true;
    return 0;
}

int model_named_check_text(const char *text, size_t len, const char *file, size_t *rows, ac_err *e)
{
    named_model *tmp = malloc(NAMED_MAX * sizeof *tmp);
    if (!tmp) return ac_err_set(e, AC_E_INTERNAL, "out of memory");
    size_t n = 0;
    int rc = parse_rows(text, len, file, tmp, &n, e);
    free(tmp);
    if (rc == 0 && rows) *rows = n;
    return rc;
}

/* words a published name may carry that do not change the architecture */
static const char *const SUFFIXES[] = { "instruct", "chat", "hf", "fp8", "fp4", "nvfp4", "bf16", "fp16", "17b16e", "17b128e" };

/* lower-case letters and digits only */
static void normalise(const char *in, char *out, size_t len)
{
    size_t o = 0;
    for (; *in && o + 1 < len; in++)
        if (isalnum((unsigned char)*in)) out[o++] = (char)tolower((unsigned char)*in);
    out[o] = '\0';
}

/* drops known suffixes from the end, repeatedly */
static void strip_suffixes(char *k)
{
    for (int again = 1; again;) {
        again = 0;
        size_t n = strlen(k);
        for (size_t i = 0; i < sizeof SUFFIXES / sizeof *SUFFIXES; i++) {
            size_t m = strlen(SUFFIXES[i]);
            if (n > m && !strcmp(k + n - m, SUFFIXES[i])) { k[n - m] = '\0'; again = 1; break; }
        }
    }
}

static int from_preset(const char *key, model_named_hit *h)
{
    const model_preset_arch *pa;
    for (size_t i = 0; (pa = model_preset_arch_at(i)); i++) {
        char k[64];
        normalise(pa->name, k, sizeof k);
        if (strcmp(k, key)) continue;
        model_preset_shape(pa, pa->vocab, pa->seq, &h->shape);
        h->source = pa->source;
        h->canon = pa->name;
        h->context = pa->max_context;
        return 0;
    }
    return -1;
}

/* the name without parenthesised remarks, "w/o X" / "w/ X" / "without X" remarks and repeated
 * words: "Grok-1 314B (MoE) 314B" → "Grok-1 314B", "DeepSeek V3 w/o MTP" → "DeepSeek V3" */
static void cleaned(const char *in, char *out, size_t len)
{
    char words[256] = "";
    size_t o = 0;
    int depth = 0;
    for (const char *p = in; *p && o + 1 < sizeof words; p++) {
        if (*p == '(') depth++;
        else if (*p == ')') depth -= depth > 0;
        else if (!depth) words[o++] = *p;
    }
    words[o] = '\0';
    out[0] = '\0';
    size_t n = 0;
    char *save = NULL;
    bool skip_next = false;
    for (char *tok = strtok_r(words, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        if (skip_next) { skip_next = false; continue; }
        if (!strcasecmp(tok, "w/o") || !strcasecmp(tok, "w/") || !strcasecmp(tok, "without")) { skip_next = true; continue; }
        char padded[260];
        snprintf(padded, sizeof padded, " %s ", tok);
        char have[260];
        snprintf(have, sizeof have, " %s ", out);
        if (strstr(have, padded)) continue;
        int w = snprintf(out + n, len - n, "%s%s", n ? " " : "", tok);
        if (w < 0 || (size_t)w >= len - n) break;
        n += (size_t)w;
    }
}

static int lookup(const char *name, model_named_hit *h)
{
    char key[128];
    normalise(name, key, sizeof key);
    strip_suffixes(key);
    if (!key[0]) return -1;
    if (from_preset(key, h) == 0) return 0;
    for (size_t i = 0; i < named_n; i++) {
        if (!text_list_has(named[i].keys, key)) continue;
        h->shape = named[i].shape;
        h->source = named[i].source;
        h->canon = named[i].name;
        h->context = named[i].context;
        return 0;
    }
    return -1;
}

int model_named_find(const char *name, model_named_hit *h)
{
    ac_err e;
    if (!name || model_named_load(&e)) return -1;
    if (lookup(name, h) == 0) return 0;
    char clean[256];
    cleaned(name, clean, sizeof clean);
    return strcmp(clean, name) ? lookup(clean, h) : -1;
}

int model_named_shape(const char *name, model_shape *s, const char **source)
{
    model_named_hit h;
    if (model_named_find(name, &h)) return -1;
    *s = h.shape;
    if (source) *source = h.source;
    return 0;
}

const char *model_named_canonical(const char *name)
{
    model_named_hit h;
    return model_named_find(name, &h) == 0 ? h.canon : NULL;
}

int model_named_context(const char *name)
{
    model_named_hit h;
    return model_named_find(name, &h) == 0 ? h.context : 0;
}

const char *model_named_suggest(const char *name)
{
    ac_err e;
    if (!name || model_named_load(&e)) return NULL;
    char typed[128]; /* as the listed names are spelt: lower case, '_' for blanks, dots and dashes */
    size_t n = 0;
    for (const char *p = name; *p && n + 1 < sizeof typed; p++)
        typed[n++] = *p == '-' || *p == ' ' || *p == '.' ? '_' : (char)tolower((unsigned char)*p);
    typed[n] = '\0';
    text_nearest near;
    text_nearest_init(&near, n < 9 ? 2 : n / 4);
    for (size_t i = 0; i < named_n; i++) text_nearest_offer(&near, typed, named[i].name);
    const model_preset_arch *pa; /* and the built-in presets (llama3_8b, ...) */
    for (size_t i = 0; (pa = model_preset_arch_at(i)); i++) text_nearest_offer(&near, typed, pa->name);
    return near.best;
}

size_t model_named_count(void) { return named_loaded ? named_n : 0; }

int model_named_at(size_t i, const char **name, model_shape *s, int *context, const char **source)
{
    if (!named_loaded || i >= named_n) return -1;
    if (name) *name = named[i].name;
    if (s) *s = named[i].shape;
    if (context) *context = named[i].context;
    if (source) *source = named[i].source;
    return 0;
}
