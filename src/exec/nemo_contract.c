/* nemo_contract.c — see nemo_contract.h. */
#include "exec/nemo_contract.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/interp.h"
#include "config/yaml_io.h"
#include "exec/job_config.h"
#include "util/csv.h"
#include "util/text.h"

extern const char ac_data_nemo_passthrough_keys[]; /* build/gen/data_nemo_passthrough_keys.c */

/* resolvers a NeMo process has: its own `multiply` (nemo/core/config/hydra_runner.py) and
 * OmegaConf's built-in oc.* */
static bool nemo_resolver(const char *name, size_t len)
{
    return (len == 8 && !strncmp(name, "multiply", 8)) || (len > 3 && !strncmp(name, "oc.", 3));
}

/* NeMo's pretraining configs by model kind (examples/nlp/language_modeling/conf/) */
static const struct { const char *kind, *files[2]; } NEMO_CONFIGS[] = {
    { "gpt", { "megatron_gpt_config.yaml", "megatron_llama_config.yaml" } },
    { "t5", { "megatron_t5_config.yaml", NULL } },
    { "bert", { "megatron_bert_config.yaml", NULL } },
};

const char *nemo_model_kind(const node *cfg)
{
    if (node_get_path(cfg, "model.encoder") && node_get_path(cfg, "model.decoder")) return "t5";
    const char *name = node_text(node_get_path(cfg, "exp_manager.name"));
    if ((name && strstr(name, "bert")) || node_get_path(cfg, "model.bert_binary_head")) return "bert";
    return "gpt";
}

/* 1 with why set when a ${...} is left that NeMo cannot resolve */
static int check_interpolations(const node *cfg, char *why, size_t len, ac_err *e)
{
    char where[512];
    if (!exec_find_unresolved(cfg, where, sizeof where)) return 0;
    const node *v = node_get_path(cfg, where);
    const char *t = v ? node_text(v) : NULL;
    for (const char *p = t ? strstr(t, "${") : NULL; p; p = strstr(p + 2, "${")) {
        const char *s = p + 2;
        size_t n = strcspn(s, ":}$");
        if (s[n] == ':' && !nemo_resolver(s, n)) {
            snprintf(why, len, "omegaconf.errors.UnsupportedInterpolationType: Unsupported interpolation type %.*s "
                               "(full_key: %s; NeMo registers only the `multiply` resolver)", (int)n, s, where);
            return 1;
        }
    }
    node *copy = node_clone(cfg);
    if (!copy) return ac_err_set(e, AC_E_NOMEM, "out of memory");
    ac_err ie;
    int rc = interp_resolve_all(copy, &ie);
    node_free(copy);
    if (rc == 0) return 0; /* every reference is inside the file: NeMo resolves it too */
    snprintf(why, len, "omegaconf.errors.InterpolationKeyError: an interpolation in %s names a key NeMo's config does "
                       "not hold (%.300s); the NeMo launcher resolves such values before the job starts", where, ie.msg);
    return 1;
}

static bool in_passthrough(const csv_table *t, int col, const char *key)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(csv_get(&t->rows[i], col), key)) return true;
    return false;
}

/* 1 with why set when cfg's model holds a key neither NeMo's config nor the pass-through list knows */
static int check_model_keys(const node *cfg, const char *dir, char *why, size_t len, ac_err *e)
{
    const node *model = node_get_path(cfg, "model");
    if (!dir || !dir[0] || !model || model->kind != NODE_MAP) return 0;
    const char *kind = nemo_model_kind(cfg);
    node *nemo[2] = { NULL, NULL };
    const char *shown = "";
    for (size_t i = 0; i < sizeof NEMO_CONFIGS / sizeof NEMO_CONFIGS[0]; i++) {
        if (strcmp(NEMO_CONFIGS[i].kind, kind)) continue;
        shown = NEMO_CONFIGS[i].files[0];
        for (int f = 0; f < 2 && NEMO_CONFIGS[i].files[f]; f++) {
            char path[2048];
            snprintf(path, sizeof path, "%s/%s", dir, NEMO_CONFIGS[i].files[f]);
            nemo[f] = yaml_load_file(path, e);
            if (!nemo[f]) { node_free(nemo[0]); return -1; }
        }
    }
    csv_table t;
    if (csv_parse(ac_data_nemo_passthrough_keys, strlen(ac_data_nemo_passthrough_keys), "data/nemo_passthrough_keys.csv",
                  &t, e)) {
        node_free(nemo[0]);
        node_free(nemo[1]);
        return -1;
    }
    int col = csv_col(&t, "key"), found = 0;
    for (size_t i = 0; i < model->len && !found; i++) {
        const char *k = model->pairs[i].key;
        bool known = in_passthrough(&t, col, k);
        for (int f = 0; f < 2 && !known; f++) known = nemo[f] && node_get_path(node_get_path(nemo[f], "model"), k);
        if (known) continue;
        found = 1;
        snprintf(why, len, "model.%s is not a key of NeMo's %s nor a Megatron-Core field NeMo passes through "
                           "(data/nemo_passthrough_keys.csv): NeMo would ignore it, so the run would not be the "
                           "configuration it is named after", k, shown);
    }
    csv_free(&t);
    node_free(nemo[0]);
    node_free(nemo[1]);
    return found;
}

/* Llama 3's tokenizer.model is tiktoken BPE, not a SentencePiece ModelProto */
static int check_tokenizer(const node *cfg, char *why, size_t len)
{
    const char *name = node_text(node_get_path(cfg, "run.name"));
    const char *lib = node_text(node_get_path(cfg, "model.tokenizer.library"));
    if (!name || !lib || strcasecmp(lib, "sentencepiece")) return 0;
    char lower[256];
    size_t i = 0;
    for (; name[i] && i + 1 < sizeof lower; i++) lower[i] = (char)tolower((unsigned char)name[i]);
    lower[i] = '\0';
    if (!strstr(lower, "llama3") && !strstr(lower, "llama-3") && !strstr(lower, "llama_3")) return 0;
    const char *model = node_text(node_get_path(cfg, "model.tokenizer.model"));
    snprintf(why, len, "RuntimeError: Internal: could not parse ModelProto from %s (Llama 3 ships a tiktoken BPE "
                       "tokenizer: tokenizer.library must be huggingface, type meta-llama/Meta-Llama-3-8B, as the "
                       "NeMo launcher's llama3 configs set)", model ? model : "the tokenizer model");
    return 1;
}

int nemo_startup_check(const node *cfg, const char *nemo_conf_dir, const char *max_connections, char *why, size_t len,
                       ac_err *e)
{
    why[0] = '\0';
    int r = check_interpolations(cfg, why, len, e);
    if (!r) r = check_model_keys(cfg, nemo_conf_dir, why, len, e);
    if (!r) r = check_tokenizer(cfg, why, len);
    if (r) return r;
    long long tp = 1, cp = 1;
    bool fsdp = false;
    node_get_int(node_get_path(cfg, "model.tensor_model_parallel_size"), &tp);
    node_get_int(node_get_path(cfg, "model.context_parallel_size"), &cp);
    node_get_bool(node_get_path(cfg, "model.fsdp"), &fsdp);
    if ((tp > 1 || cp > 1) && !fsdp && (!max_connections || strcmp(max_connections, "1"))) {
        snprintf(why, len, "Megatron-Core: \"Using sequence/tensor parallelism requires setting the environment variable "
                           "CUDA_DEVICE_MAX_CONNECTIONS to 1\" (TP %lld, CP %lld; without it TP/CP communication cannot "
                           "overlap compute and the measured step time is biased; the NeMo launcher sets it)", tp, cp);
        return 1;
    }
    return 0;
}
