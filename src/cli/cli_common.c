/* cli_common.c — option parsing and config loading shared by all commands. */
#include "cli/cli.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cost/cost.h"
#include "model/arch.h"
#include "model/named.h"
#include "results/report.h"
#include "util/fsutil.h"

/* "--name" is a flag; anything else after a flag ("4", "-2", "a,b") can be its value */
static bool is_flag(const char *a)
{
    return a[0] == '-' && a[1] == '-';
}

/* a token that may follow "--name" as its value: not a flag, not an override, and
 * "-x" only when it is a negative number (so "--tp -2" reaches the range check) */
static bool can_be_value(const char *a)
{
    if (is_flag(a) || strchr(a, '=') || a[0] == '~') return false; /* ~key is an override */
    return a[0] != '-' || (a[1] >= '0' && a[1] <= '9') || a[1] == '.';
}

int cli_parse(int argc, char **argv, cli_opts *o, ac_err *e)
{
    memset(o, 0, sizeof *o);
    o->overrides = calloc((size_t)argc + 1, sizeof(char *));
    o->flags = calloc((size_t)argc + 1, sizeof(char *));
    if (!o->overrides || !o->flags) return ac_err_set(e, AC_E_NOMEM, "out of memory");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) o->help = true;
        else if (!strcmp(a, "--json")) o->json = true;
        else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) o->quiet = true;
        else if (!strcmp(a, "--verbose") || !strcmp(a, "-v")) o->verbose = true;
        else if (!strcmp(a, "--conf")) {
            if (i + 1 >= argc) return ac_err_set(e, AC_E_INPUT, "--conf needs a directory");
            o->conf_dir = argv[++i];
        } else if (!strncmp(a, "--conf=", 7)) o->conf_dir = a + 7;
        else if (is_flag(a)) {
            o->flags[o->n_flags++] = argv[i];
            /* "--name value" form: keep the value with its flag */
            if (!strchr(a, '=') && i + 1 < argc && can_be_value(argv[i + 1]))
                o->flags[o->n_flags++] = argv[++i];
        } else if (a[0] == '-' && a[1] && a[1] != '-' && !strchr(a, '=')) {
            return ac_err_set(e, AC_E_INPUT, "unknown option '%s' (see --help)", a);
        } else if (strchr(a, '=') || a[0] == '~') {
            o->overrides[o->n_overrides++] = argv[i];
        } else {
            return ac_err_set(e, AC_E_INPUT, "unexpected argument '%s': overrides look like key=value (see --help)", a);
        }
    }
    return 0;
}

void cli_opts_free(cli_opts *o)
{
    free(o->overrides);
    free(o->flags);
}

/* the last value given, as the last key=value override wins: `--tp 4 --tp 2` is TP 2 */
const char *cli_flag_value(const cli_opts *o, const char *name)
{
    size_t n = strlen(name);
    const char *v = NULL;
    for (int i = 0; i < o->n_flags; i++) {
        const char *f = o->flags[i];
        if (!strncmp(f, name, n) && f[n] == '=') v = f + n + 1;
        else if (!strcmp(f, name) && i + 1 < o->n_flags && !is_flag(o->flags[i + 1])) v = o->flags[i + 1];
    }
    return v;
}

bool cli_flag_present(const cli_opts *o, const char *name)
{
    size_t n = strlen(name);
    for (int i = 0; i < o->n_flags; i++)
        if (!strcmp(o->flags[i], name) || (!strncmp(o->flags[i], name, n) && o->flags[i][n] == '=')) return true;
    return false;
}

/* known: "--name=" takes a value, "--name" is a switch */
int cli_check_flags(const cli_opts *o, const char *const *known, ac_err *e)
{
    for (int i = 0; i < o->n_flags; i++) {
        const char *f = o->flags[i];
        if (!is_flag(f)) continue; /* a value */
        const char *eq = strchr(f, '=');
        size_t flen = eq ? (size_t)(eq - f) : strlen(f);
        const char *match = NULL;
        for (const char *const *k = known; *k && !match; k++) {
            size_t n = strcspn(*k, "=");
            if (n == flen && !strncmp(f, *k, n)) match = *k;
        }
        if (!match) return ac_err_set(e, AC_E_INPUT, "unknown option '%.*s' (see --help)", (int)flen, f);
        bool takes_value = strchr(match, '=') != NULL;
        bool has_value = eq || (i + 1 < o->n_flags && !is_flag(o->flags[i + 1]));
        if (takes_value && (!has_value || (eq && !eq[1])))
            return ac_err_set(e, AC_E_INPUT, "option '%.*s' needs a value (see --help)", (int)flen, f);
        if (!takes_value && has_value)
            return ac_err_set(e, AC_E_INPUT, "option '%.*s' takes no value, got '%s'", (int)flen, f,
                              eq ? eq + 1 : o->flags[i + 1]);
    }
    return 0;
}

/* conf/ in the working directory, else next to the installed binary (../conf) */
static const char *default_conf_dir(char *buf, size_t len)
{
    const char *env = getenv("AUTOCONFIG_CONF");
    if (env && *env) return env;
    if (fs_exists("conf/config.yaml")) return "conf";
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            snprintf(buf, len, "%s/../conf", exe);
            if (fs_exists(buf)) return buf;
        }
    }
    return "conf";
}

int cli_load_config(const cli_opts *o, ac_config *c, ac_err *e)
{
    char buf[PATH_MAX + 16];
    const char *dir = o->conf_dir ? o->conf_dir : default_conf_dir(buf, sizeof buf);
    int rc = cfg_load(dir, o->n_overrides, o->overrides, c, e);
    if (!rc) c->verbose = o->verbose;
    return rc;
}

int cli_fail(const ac_err *e)
{
    char buf[2048];
    fflush(stdout); /* what was printed before the error comes before it in a shared log */
    fprintf(stderr, "autoconfig: error: %s\n", ac_err_format(e, buf, sizeof buf));
    return ac_err_exit_status(e);
}

int cli_start(int argc, char **argv, const char *const *known, const char *help, cli_opts *o, ac_config *c, ac_err *e)
{
    if (cli_parse(argc, argv, o, e) || cli_check_flags(o, known, e)) { cli_opts_free(o); return CLI_FAILED; }
    if (o->help) { fputs(help, stdout); cli_opts_free(o); return CLI_HELPED; }
    const char *hf = cli_flag_value(o, "--hf-config"); /* only where the command lists them */
    const char *name = cli_flag_value(o, "--model");
    if (name && !*name) {
        ac_err_at(e, AC_E_INPUT, "command line", 0, 0, "--model", "needs a name (`autoconfig models` lists them)");
        cli_opts_free(o);
        return CLI_FAILED;
    }
    if (hf && *hf && name) {
        ac_err_at(e, AC_E_INPUT, "command line", 0, 0, "--model", "give --model or --hf-config, not both");
        cli_opts_free(o);
        return CLI_FAILED;
    }
    if (cli_load_config(o, c, e) != 0) { cli_opts_free(o); return CLI_FAILED; }
    if (name && c->train.hf_config[0] && !(hf && *hf)) { /* the key of the same name in the config */
        ac_err_at(e, AC_E_INPUT, "command line", 0, 0, "--model",
                  "give --model or search_config.train_settings.hf_config, not both");
        cfg_free(c);
        cli_opts_free(o);
        return CLI_FAILED;
    }
    if (name && strlen(name) >= sizeof c->train.named_arch) {
        ac_err_at(e, AC_E_INPUT, "command line", 0, 0, "--model", "a name of at most %zu characters",
                  sizeof c->train.named_arch - 1);
        cfg_free(c);
        cli_opts_free(o);
        return CLI_FAILED;
    }
    if (hf && *hf) snprintf(c->train.hf_config, sizeof c->train.hf_config, "%s", hf);
    if (name) snprintf(c->train.named_arch, sizeof c->train.named_arch, "%s", name);
    return CLI_GO;
}

/* a Hugging Face model id ("meta-llama/Llama-3.1-8B") as a run name: the part after the
 * last '/', lower case, every other character than [a-z0-9.] as '_' (llama-3.1-8b → llama_3.1_8b) */
static void hf_run_name(const char *id, char *out, size_t len)
{
    const char *s = strrchr(id, '/');
    s = s ? s + 1 : id;
    size_t k = 0;
    for (; *s && k + 1 < len; s++) {
        char ch = (char)tolower((unsigned char)*s);
        out[k++] = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '.' ? ch : '_';
    }
    out[k] = '\0';
}

/* --model NAME: the architecture data/models.csv (or a preset) publishes under that name, as
 * a config.json would give it, trained at the run's sequence length */
static int named_model(const ac_config *c, cost_model *m, ac_err *e)
{
    memset(m, 0, sizeof *m);
    if (model_named_load(e)) return -1;
    model_named_hit h;
    if (model_named_find(c->train.named_arch, &h)) {
        const char *near = model_named_suggest(c->train.named_arch);
        return ac_err_at(e, AC_E_INPUT, "command line", 0, 0, "--model",
                         "no published architecture named '%s'%s%s%s (`autoconfig models` lists them; or give "
                         "--hf-config FILE)", c->train.named_arch, near ? " (did you mean " : "", near ? near : "",
                         near ? "?)" : "");
    }
    m->shape = h.shape;
    m->shape.seq_length = c->train.seq_length;
    /* the positions the release supports (data/models.csv context, the preset's); 0: none
     * published, not checked */
    m->max_context = h.context;
    /* files and runs carry the listed name, whatever the spelling typed */
    snprintf(m->name, sizeof m->name, "%.*s", (int)sizeof m->name - 1, h.canon);
    return 0;
}

int cli_model_stage(const ac_config *c, cli_model_use use, model_size_report *rep, double *size_b, model_base_config *b,
                    ac_err *e)
{
    if (!c->train.hf_config[0] && !c->train.named_arch[0])
        return cli_size_stage(c, rep, size_b, e) || model_base_config_build(c, *size_b, b, e) ? -1 : 0;
    memset(rep, 0, sizeof *rep);
    cost_model m;
    if (c->train.named_arch[0] ? named_model(c, &m, e) : cost_hf_config_load(c->train.hf_config, &m, e)) return -1;
    /* where the errors below point: the config.json, or the --model flag */
    const char *src = c->train.named_arch[0] ? "--model" : c->train.hf_config;
    const model_family *f = model_family_find(c->family);
    bool moe = m.shape.num_experts > 1;
    /* only the Llama and Mixtral templates carry the keys an architecture sets (MLP width and
     * gating, query groups, experts); GPT-3's keeps 4h and multi-head attention.  Serving and
     * estimates take the architecture itself: any decoder family's defaults do */
    if (!f || f->arch != ARCH_DECODER || (use == CLI_MODEL_TRAIN && f->id != FAM_LLAMA && f->id != FAM_MIXTRAL))
        return ac_err_at(e, AC_E_INPUT, "command line", 0, 0, "search_config",
                         "%s gives its own architecture, which the %s configs cannot describe: add "
                         "search_config=%s", src, c->family, moe ? "mixtral/mixtral_8x7b" : "llama/llama3_8b");
    if (shape_is_hybrid(&m.shape) && use != CLI_MODEL_PREDICT)
        return ac_err_at(e, AC_E_INPUT, src, 0, 0, "hybrid_override_pattern",
                         "a hybrid Mamba-Transformer: `autoconfig estimate` predicts its training; this "
                         "command writes transformer (NeMo GPT/Llama, serving) configs that cannot describe it");
    const char *key, *unwritable = use == CLI_MODEL_TRAIN ? model_base_config_unwritable(&m.shape, c->train.seq_length, &key) : NULL;
    if (unwritable)
        return ac_err_at(e, AC_E_INPUT, src, 0, 0, key,
                         "%s: the NeMo training config has no key for it, so the job would train another model "
                         "(`autoconfig estimate` predicts it)", unwritable);
    if (moe != (f->id == FAM_MIXTRAL))
        return ac_err_at(e, AC_E_INPUT, src, 0, 0, NULL, "%s has %s: use search_config=%s/<preset>",
                         c->train.named_arch[0] ? c->train.named_arch : src, moe ? "routed experts" : "no routed experts",
                         moe ? "mixtral" : "llama");
    /* a served request holds its prompt and its output (vLLM's --max-model-len); training, its sequence.
     * The model is the file, or the listed name --model resolved to */
    char who[CFG_PATH_MAX + 16];
    snprintf(who, sizeof who, "%s%s", c->train.named_arch[0] ? "--model " : "", c->train.named_arch[0] ? m.name : src);
    if (use == CLI_MODEL_SERVE && m.max_context > 0 && c->infer.input_len + c->infer.output_len > m.max_context)
        return ac_err_at(e, AC_E_INPUT, who, 0, 0, "max_position_embeddings",
                         "%d positions%s: the benchmark's input_len %d + output_len %d do not fit; together at most %d "
                         "(inference_settings.benchmark)",
                         m.max_context, c->train.named_arch[0] ? " (data/models.csv context)" : "", c->infer.input_len,
                         c->infer.output_len, m.max_context);
    if (use != CLI_MODEL_SERVE && m.max_context > 0 && c->train.seq_length > m.max_context)
        return ac_err_at(e, AC_E_INPUT, "command line", 0, 0, "search_config.train_settings.seq_length",
                         "%d exceeds the %d positions of %s (max_position_embeddings): train at most %d "
                         "(search_config.train_settings.seq_length=%d)",
                         c->train.seq_length, m.max_context, who, m.max_context, m.max_context);
    /* the size the heuristics and file names use: whole billions from 10 B, else one decimal */
    double params = model_param_count_shape_b(&m.shape);
    *size_b = params >= 10.0 ? round(params) : round(params * 10.0) / 10.0;
    char name[64];
    hf_run_name(m.name, name, sizeof name);
    if (model_base_config_build_arch(c, *size_b, &m.shape, name, b, e)) return -1;
    b->max_context = m.max_context; /* what the cost stage holds its context to */
    return 0;
}

int cli_refresh_report(const ac_config *c, char *path, size_t path_len, ac_err *e)
{
    char sum[CFG_PATH_MAX + 64];
    snprintf(sum, sizeof sum, "%s/final_result/summary.json", c->train.logs);
    if (!fs_exists(sum)) return 0;
    return report_write_dirs(c->train.logs, c->infer.results_dir, path, path_len, NULL, e) ? -1 : 1;
}

int emulate_knob(const char *flag_val, const char *env, double dflt, double lo, double hi, double *out)
{
    const char *v = flag_val ? flag_val : getenv(env);
    if (!v || !*v) { *out = dflt; return 0; }
    char *end;
    double x = strtod(v, &end);
    if (*end || !(x >= lo && x <= hi)) return -1;
    *out = x;
    return 0;
}
