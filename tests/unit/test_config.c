/* test_config.c — the config system: YAML tree, overrides, interpolation,
 * schema validation and every bad-input message a user can meet. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "config/cfg.h"
#include "config/interp.h"
#include "config/override.h"
#include "config/schema.h"
#include "config/yaml_io.h"
#include "util/fsutil.h"
#include "util/text.h"

static char tmpdir[256];

/* a copy of the shipped conf/ in a temp dir, so tests can break files */
static void make_conf_copy(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/ac_test_conf_XXXXXX");
    if (!mkdtemp(tmpdir)) { perror("mkdtemp"); exit(1); }
    char cmd[600];
    snprintf(cmd, sizeof cmd, "cp -r conf/. '%s/'", tmpdir);
    if (system(cmd) != 0) { perror("cp"); exit(1); }
}

static void write_file(const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, rel);
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    fputs(text, f);
    fclose(f);
}

static int load(char **ov, int n, ac_config *c, ac_err *e)
{
    return cfg_load(tmpdir, n, ov, c, e);
}

static void test_yaml_roundtrip(void)
{
    const char *text = "a: 1\nb:\n  c: [1, 2, 4]\n  d: 'quoted: yes'\n  e: null\nf: 6.0e-4\ng: True\n";
    ac_err e;
    node *n = yaml_load_string(text, strlen(text), "t.yaml", &e);
    CHECK(n != NULL);
    char *out = yaml_dump_string(n, &e);
    node *m = yaml_load_string(out, strlen(out), "out", &e);
    CHECK(m != NULL);
    long long v;
    CHECK(node_get_int(node_get_path(m, "b.c.2"), &v) && v == 4);
    CHECK_STR(node_text(node_get_path(m, "b.d")), "quoted: yes");
    CHECK(node_get_path(m, "b.d")->quoted);
    CHECK(node_is_null(node_get_path(m, "b.e")));
    double d;
    CHECK(node_get_double(node_get_path(m, "f"), &d) && d == 6.0e-4);
    bool b;
    CHECK(node_get_bool(node_get_path(m, "g"), &b) && b);
    CHECK_INT(node_map_pair(n, "b")->line, 2);
    free(out);
    node_free(n);
    node_free(m);
}

static void test_yaml_errors(void)
{
    ac_err e;
    const char *bad = "a: 1\nb: [1, 2\nc: 3\n";
    CHECK(yaml_load_string(bad, strlen(bad), "bad.yaml", &e) == NULL);
    CHECK_STR(e.file, "bad.yaml");
    CHECK(e.line >= 2);
    CHECK_CONTAINS(e.msg, "malformed YAML");
    const char *dup = "a: 1\nb: 2\na: 3\n";
    CHECK(yaml_load_string(dup, strlen(dup), "dup.yaml", &e) == NULL);
    CHECK_INT(e.line, 3);
    CHECK_CONTAINS(e.msg, "duplicate key");
    const char *alias = "a: &x 1\nb: *x\n";
    CHECK(yaml_load_string(alias, strlen(alias), "alias.yaml", &e) == NULL);
    CHECK_CONTAINS(e.msg, "not supported");
}

static void test_override_values(void)
{
    ac_err e;
    override ov;
    CHECK(override_parse("a.b=[1,2,4]", 1, &ov, &e) == 0);
    CHECK(ov.value->kind == NODE_SEQ && ov.value->len == 3);
    node_free(ov.value);
    CHECK(override_parse("a.b=null", 1, &ov, &e) == 0);
    CHECK(node_is_null(ov.value));
    node_free(ov.value);
    CHECK(override_parse("a.b='a b'", 1, &ov, &e) == 0);
    CHECK_STR(node_text(ov.value), "a b");
    CHECK(ov.value->quoted);
    node_free(ov.value);
    CHECK(override_parse("a=auto", 1, &ov, &e) == 0);
    CHECK_STR(node_text(ov.value), "auto");
    node_free(ov.value);
    CHECK(override_parse("+x.y=true", 2, &ov, &e) == 0);
    CHECK(ov.kind == OV_ADD);
    bool b;
    CHECK(node_get_bool(ov.value, &b) && b);
    node_free(ov.value);
    CHECK(override_parse("=3", 4, &ov, &e) != 0);
    CHECK_CONTAINS(e.msg, "override 4");
    CHECK(override_parse("a.b=[1,2", 5, &ov, &e) != 0);
    CHECK_CONTAINS(e.msg, "not valid YAML");
    CHECK(override_parse("a b=1", 6, &ov, &e) != 0);
}

static void test_interpolation(void)
{
    const char *text = "base: /r\nlogs: ${base}/x\nm:\n  h: 64\n  f: ${multiply:4, ${.h}}\n  up: ${..base}\n"
                       "d: ${divide_ceil:7, 2}\nn: ${m.h}\n";
    ac_err e;
    node *n = yaml_load_string(text, strlen(text), "i.yaml", &e);
    CHECK(interp_resolve_all(n, &e) == 0);
    CHECK_STR(node_text(node_get_path(n, "logs")), "/r/x");
    long long v;
    CHECK(node_get_int(node_get_path(n, "m.f"), &v) && v == 256);
    CHECK_STR(node_text(node_get_path(n, "m.up")), "/r");
    CHECK(node_get_int(node_get_path(n, "d"), &v) && v == 4);
    CHECK(node_get_int(node_get_path(n, "n"), &v) && v == 64); /* a whole reference keeps its type */
    node_free(n);

    const char *cyc = "a: ${b}\nb: ${c}\nc: ${a}\n";
    n = yaml_load_string(cyc, strlen(cyc), "cyc.yaml", &e);
    CHECK(interp_resolve_all(n, &e) != 0);
    CHECK_CONTAINS(e.msg, "cycle");
    CHECK_STR(e.file, "cyc.yaml");
    CHECK_INT(e.line, 1);
    node_free(n);

    const char *dang = "a: 1\nb: ${nope.x}\n";
    n = yaml_load_string(dang, strlen(dang), "d.yaml", &e);
    CHECK(interp_resolve_all(n, &e) != 0);
    CHECK_CONTAINS(e.msg, "dangling reference");
    CHECK_INT(e.line, 2);
    CHECK_STR(e.key, "b");
    node_free(n);

    const char *miss = "a: ???\nb: ${a}\n";
    n = yaml_load_string(miss, strlen(miss), "m.yaml", &e);
    CHECK(interp_resolve_all(n, &e) != 0);
    CHECK_CONTAINS(e.msg, "mandatory");
    node_free(n);
}

static void test_default_config_loads(void)
{
    ac_config c;
    ac_err e;
    make_conf_copy();
    CHECK(load(NULL, 0, &c, &e) == 0);
    CHECK_STR(c.family, "gpt3");
    CHECK_STR(c.preset, "5b");
    CHECK_STR(c.cluster_type, "sim");
    CHECK_INT(c.train.num_nodes, 16);
    CHECK(c.train.tensor_parallel_sizes.is_auto);
    CHECK_STR(c.train.logs, "./results/gpt3/5b_80gb");
    CHECK_INT(c.cluster.gpus_per_node, 8);
    CHECK_STR(c.cluster.job_name_prefix, "nemo_megatron_autoconfig:");
    CHECK(c.infer.present);
    CHECK_INT(c.infer.batch_sizes.n, 7);
    cfg_free(&c);
}

static void test_overrides_apply(void)
{
    ac_config c;
    ac_err e;
    char *ov[] = { "search_config=gpt3/20b", "search_config.train_settings.num_nodes=32",
                   "search_config.train_settings.tensor_parallel_sizes=[1,2,4]", "cluster_type=bcm",
                   "search_config.train_settings.sequence_parallel=false" };
    CHECK(load(ov, 5, &c, &e) == 0);
    CHECK_STR(c.preset, "20b");
    CHECK_INT(c.train.num_nodes, 32);
    CHECK(!c.train.tensor_parallel_sizes.is_auto);
    CHECK_INT(c.train.tensor_parallel_sizes.n, 3);
    CHECK_INT(c.train.tensor_parallel_sizes.v[2], 4);
    CHECK_STR(c.cluster_type, "bcm");
    CHECK(c.train.sequence_parallel == TRI_FALSE);
    CHECK_STR(c.train.logs, "./results/gpt3/20b_80gb"); /* ${search_config_value} follows the choice */
    cfg_free(&c);
}

static void test_bad_inputs(void)
{
    ac_config c;
    ac_err e;
    /* unknown key in a file: file, line, did you mean */
    write_file("search_config/gpt3/typo.yaml", "train_settings:\n  num_nodes: 4\n  num_node: 8\n  max_training_days: 1\n"
                                               "  num_tokens_in_b: 10\n  vocab_size: 51200\n  logs: /tmp/x\n");
    char *ov1[] = { "search_config=gpt3/typo" };
    CHECK(load(ov1, 1, &c, &e) != 0);
    CHECK(e.code == AC_E_INPUT);
    CHECK_CONTAINS(e.file, "search_config/gpt3/typo.yaml");
    CHECK_INT(e.line, 3);
    CHECK_STR(e.key, "search_config.train_settings.num_node");
    CHECK_CONTAINS(e.msg, "did you mean 'num_nodes'");

    /* unknown key on the command line */
    char *ov2[] = { "search_config.train_settings.micro_batch_size=[1,2]" };
    CHECK(load(ov2, 1, &c, &e) != 0);
    CHECK_CONTAINS(e.msg, "did you mean 'micro_batch_sizes'");

    /* wrong type */
    char *ov3[] = { "search_config.train_settings.num_nodes=many" };
    CHECK(load(ov3, 1, &c, &e) != 0);
    CHECK_STR(e.key, "search_config.train_settings.num_nodes");
    CHECK_CONTAINS(e.msg, "expected an integer");

    /* out of range */
    char *ov4[] = { "search_config.train_settings.num_nodes=0" };
    CHECK(load(ov4, 1, &c, &e) != 0);
    CHECK_CONTAINS(e.msg, "out of range");
    char *ov5[] = { "search_config.train_settings.gpu_memory_gb=50" };
    CHECK(load(ov5, 1, &c, &e) != 0);
    CHECK_CONTAINS(e.msg, "50 is not one of");

    /* a list where a scalar is needed */
    char *ov6[] = { "search_config.train_settings.num_nodes=[1,2]" };
    CHECK(load(ov6, 1, &c, &e) != 0);
    CHECK_CONTAINS(e.msg, "not a list");

    /* missing mandatory value */
    write_file("search_config/gpt3/missing.yaml", "train_settings:\n  num_nodes: ???\n  max_training_days: 1\n"
                                                  "  num_tokens_in_b: 10\n  vocab_size: 51200\n  logs: /tmp/x\n");
    char *ov7[] = { "search_config=gpt3/missing" };
    CHECK(load(ov7, 1, &c, &e) != 0);
    CHECK_CONTAINS(e.msg, "mandatory");
    CHECK_INT(e.line, 2);
    CHECK_STR(e.key, "search_config.train_settings.num_nodes");

    /* interpolation cycle and dangling reference in a file */
    write_file("search_config/gpt3/cycle.yaml", "train_settings:\n  num_nodes: 2\n  max_training_days: 1\n"
                                                "  num_tokens_in_b: 10\n  vocab_size: 51200\n  logs: ${.custom_config}\n"
                                                "  custom_config: ${.logs}\n");
    char *ov8[] = { "search_config=gpt3/cycle" };
    CHECK(load(ov8, 1, &c, &e) != 0);
    CHECK_CONTAINS(e.msg, "interpolation cycle");
    CHECK_CONTAINS(e.file, "cycle.yaml");
    write_file("search_config/gpt3/dangling.yaml", "train_settings:\n  num_nodes: 2\n  max_training_days: 1\n"
                                                   "  num_tokens_in_b: 10\n  vocab_size: 51200\n  logs: ${nowhere}/x\n");
    char *ov9[] = { "search_config=gpt3/dangling" };
    CHECK(load(ov9, 1, &c, &e) != 0);
    CHECK_CONTAINS(e.msg, "dangling reference");
    CHECK_INT(e.line, 6);

    /* a search_config that does not exist lists those that do */
    char *ov10[] = { "search_config=gpt3/6b" };
    CHECK(load(ov10, 1, &c, &e) != 0);
    CHECK_CONTAINS(e.msg, "no search_config 'gpt3/6b'");
    CHECK_CONTAINS(e.msg, "gpt3/5b");
    CHECK_CONTAINS(e.msg, "t5/11b");

    /* malformed YAML: the parser's line and column */
    write_file("search_config/gpt3/broken.yaml", "train_settings:\n  num_nodes: [1, 2\n  logs: x\n");
    char *ov11[] = { "search_config=gpt3/broken" };
    CHECK(load(ov11, 1, &c, &e) != 0);
    CHECK_CONTAINS(e.msg, "malformed YAML");
    CHECK(e.line >= 2 && e.col > 0);

    /* boolean where a boolean is expected */
    char *ov12[] = { "run_training_hp_search=maybe" };
    CHECK(load(ov12, 1, &c, &e) != 0);
    CHECK_CONTAINS(e.msg, "true or false");

    /* enum */
    char *ov13[] = { "cluster_type=kubernetes" };
    CHECK(load(ov13, 1, &c, &e) != 0);
    CHECK_CONTAINS(e.msg, "not one of sim|bcm|bcp|local");
}

static void test_every_preset_loads(void)
{
    static const char *const presets[] = {
        "gpt3/0.126b", "gpt3/0.843b", "gpt3/2b", "gpt3/5b", "gpt3/8b", "gpt3/20b", "gpt3/43b", "gpt3/175b", "gpt3/unknown_size",
        "t5/0.22b", "t5/2.8b", "t5/11b", "t5/23.5b", "t5/41.2b", "t5/100b", "t5/203b", "t5/unknown_size",
        "mt5/0.17b", "mt5/0.39b", "mt5/3.2b", "mt5/11.9b", "mt5/24.65b", "mt5/42.54b", "mt5/101.6b", "mt5/206b",
        "mt5/unknown_size", "bert/0.11b", "bert/4b", "bert/20b", "bert/100b", "bert/unknown_size",
        "llama/llama2_7b", "llama/llama2_13b", "llama/llama2_70b", "llama/llama3_8b", "llama/llama3_70b",
        "llama/unknown_size", "mixtral/mixtral_8x7b", "mixtral/mixtral_8x22b", "mixtral/unknown_size",
    };
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++) {
        char arg[64];
        snprintf(arg, sizeof arg, "search_config=%s", presets[i]);
        char *ov[] = { arg };
        ac_config c;
        ac_err e;
        int rc = cfg_load("conf", 1, ov, &c, &e);
        if (rc != 0) printf("  %s: %s\n", presets[i], e.msg);
        CHECK(rc == 0);
        if (rc == 0) cfg_free(&c);
    }
}

static void test_schema_suggest(void)
{
    CHECK_STR(schema_suggest("search_config.train_settings.tensor_paralel_sizes"), "tensor_parallel_sizes");
    CHECK_STR(schema_suggest("cluster.partiton"), "partition");
    CHECK(schema_suggest("search_config.train_settings.zzzzzzzzzz") == NULL);
}

/* case-insensitive substring search (GPU and framework names in benchmark tables) */
static void test_text_find_ci(void)
{
    const char *hay = "H100 SXM 80GB (DGX-H100)";
    CHECK(text_find_ci(hay, "dgx-h100") == hay + 15);
    CHECK(text_find_ci(hay, "h100 sxm") == hay);
    CHECK(text_find_ci(hay, "B200") == NULL);
    CHECK(text_find_ci("", "x") == NULL);
    CHECK(text_find_ci(hay, "") == hay);
    CHECK(text_find_ci("SX", "sxm") == NULL); /* a needle longer than the rest of hay */
}

/* the "did you mean" accumulator: the closest within max, the first on a tie, aliases as their owner */
static void test_text_nearest(void)
{
    text_nearest near;
    text_nearest_init(&near, 3);
    CHECK(near.best == NULL);
    const char *far = "pipeline", *two = "h200", *one = "h100", *tie = "h101";
    text_nearest_offer(&near, "h10", far); /* beyond max: not kept */
    CHECK(near.best == NULL);
    text_nearest_offer(&near, "h10", two);
    text_nearest_offer(&near, "h10", one);
    text_nearest_offer(&near, "h10", tie); /* as near as "h100": the first offered stays */
    CHECK(near.best == one);
    CHECK(near.distance == 1);

    text_nearest_init(&near, 1);
    text_nearest_offer(&near, "abc", "xyz");
    text_nearest_offer(&near, "abcdef", "abc"); /* 3 > 1 */
    CHECK(near.best == NULL);
    text_nearest_keep(&near, far, 1); /* a distance the caller worked out */
    CHECK(near.best == far);
    text_nearest_keep(&near, two, 2);
    CHECK(near.best == far);

    /* aliases: the owner is kept, never the alias; empty ones are skipped */
    const char *owner = "hopper_sxm5", *other = "a100_80gb";
    text_nearest_init(&near, 3);
    text_nearest_offer(&near, "h100x", owner); /* too far */
    CHECK(near.best == NULL);
    text_nearest_offer_aliases(&near, "h100x", "||h100|h100sxm|", owner); /* "h100": 1 edit */
    CHECK(near.best == owner);
    CHECK(near.distance == 1);
    text_nearest_offer_aliases(&near, "h100x", "a100|h100", other); /* "h100" again: a tie, the first stays */
    CHECK(near.best == owner);
    text_nearest_init(&near, 3);
    text_nearest_offer_aliases(&near, "h100", "", owner);
    text_nearest_offer_aliases(&near, "h100", "|", owner);
    text_nearest_offer_aliases(&near, "a", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb|zzzz", owner);
    CHECK(near.best == NULL);
    text_nearest_offer_aliases(&near, "h100", "a100|h100_pcie|h10", other); /* "a100" 1, then "h10" 1: the first */
    CHECK(near.best == other);
    CHECK(near.distance == 1);
    text_nearest_offer_aliases(&near, "h100", "x|h100", owner); /* exact beats 1 */
    CHECK(near.best == owner);
    CHECK(near.distance == 0);
}

int main(void)
{
    RUN(test_text_find_ci);
    RUN(test_text_nearest);
    RUN(test_yaml_roundtrip);
    RUN(test_yaml_errors);
    RUN(test_override_values);
    RUN(test_interpolation);
    RUN(test_default_config_loads);
    RUN(test_overrides_apply);
    RUN(test_bad_inputs);
    RUN(test_every_preset_loads);
    RUN(test_schema_suggest);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (tmpdir[0] && system(cmd) != 0) return 1;
    CHECK_DONE();
}
