/* test_trainer_cfg.c — the trainer configs `autoconfig cost` writes load as YAML (libyaml,
 * independent of autoconfig's own reader) and every key they hold is one the trainer
 * documents, with the documented type (tests/fixtures/llmforge/schema.csv,
 * tests/fixtures/accelerate/schema.csv and tests/fixtures/torchtune/schema.csv, each with its source). */
#include <string.h>
#include <yaml.h>

#include "check.h"
#include "cost/cost.h"
#include "util/csv.h"

static csv_table schema;

/* the schema row for a dotted key ('*' matches one component), or NULL */
static const csv_row *schema_row(const char *key)
{
    for (size_t i = 0; i < schema.n; i++) {
        const char *k = csv_get(&schema.rows[i], csv_col(&schema, "key"));
        if (!strcmp(k, key)) return &schema.rows[i];
    }
    const char *dot = strrchr(key, '.');
    if (!dot) return NULL;
    char wild[160];
    snprintf(wild, sizeof wild, "%.*s.*", (int)(dot - key), key);
    for (size_t i = 0; i < schema.n; i++)
        if (!strcmp(csv_get(&schema.rows[i], csv_col(&schema, "key")), wild)) return &schema.rows[i];
    return NULL;
}

static bool is_int(const char *s)
{
    if (*s == '-') s++;
    if (!*s) return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9') return false;
    return true;
}

static bool is_float(const char *s)
{
    char *end;
    (void)strtod(s, &end);
    return *s && !*end;
}

static int n_problems;

static void problem(const char *key, const char *why)
{
    printf("  schema: %s: %s\n", key, why);
    n_problems++;
}

/* checks one node against the schema row of key; recurses into maps */
static void check_node(yaml_document_t *d, yaml_node_t *n, const char *key)
{
    const csv_row *row = schema_row(key);
    if (!row) {
        problem(key, "not a documented key");
        return;
    }
    const char *type = csv_get(row, csv_col(&schema, "type"));
    const char *values = csv_get(row, csv_col(&schema, "values"));
    if (n->type == YAML_MAPPING_NODE) {
        if (strcmp(type, "map")) problem(key, "a map where the schema says another type");
        for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
            yaml_node_t *k = yaml_document_get_node(d, p->key), *v = yaml_document_get_node(d, p->value);
            char sub[160];
            snprintf(sub, sizeof sub, "%s%s%s", key, *key ? "." : "", (const char *)k->data.scalar.value);
            check_node(d, v, sub);
        }
        return;
    }
    if (n->type == YAML_SEQUENCE_NODE) {
        if (strcmp(type, "list")) problem(key, "a list where the schema says another type");
        return;
    }
    const char *s = (const char *)n->data.scalar.value;
    bool quoted = n->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE || n->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE;
    bool ok = !strcmp(type, "str")     ? true
              : !strcmp(type, "int")   ? !quoted && is_int(s)
              : !strcmp(type, "float") ? !quoted && is_float(s)
              : !strcmp(type, "bool")  ? !quoted && (!strcmp(s, "true") || !strcmp(s, "false"))
                                       : false;
    if (!ok) problem(key, "value of the wrong type");
    if (*values) {
        char buf[128];
        snprintf(buf, sizeof buf, "|%s|", values);
        char want[96];
        snprintf(want, sizeof want, "|%s|", s);
        if (!strstr(buf, want)) problem(key, "value not one the trainer accepts");
    }
}

/* loads text with libyaml; 0 and the problems counted when it is a mapping */
static int load_and_check(const char *text, yaml_document_t *d)
{
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
    int ok = yaml_parser_load(&p, d);
    yaml_parser_delete(&p);
    if (!ok) return -1;
    yaml_node_t *root = yaml_document_get_root_node(d);
    if (!root || root->type != YAML_MAPPING_NODE) return -1;
    n_problems = 0;
    for (yaml_node_pair_t *q = root->data.mapping.pairs.start; q < root->data.mapping.pairs.top; q++)
        check_node(d, yaml_document_get_node(d, q->value), (const char *)yaml_document_get_node(d, q->key)->data.scalar.value);
    return 0;
}

/* the scalar at a top-level or one-level-nested key, "" when absent */
static const char *get(yaml_document_t *d, const char *key, const char *sub)
{
    yaml_node_t *root = yaml_document_get_root_node(d);
    for (yaml_node_pair_t *q = root->data.mapping.pairs.start; q < root->data.mapping.pairs.top; q++) {
        yaml_node_t *k = yaml_document_get_node(d, q->key), *v = yaml_document_get_node(d, q->value);
        if (strcmp((const char *)k->data.scalar.value, key)) continue;
        if (!sub) return v->type == YAML_SCALAR_NODE ? (const char *)v->data.scalar.value : "";
        for (yaml_node_pair_t *r = v->data.mapping.pairs.start; r < v->data.mapping.pairs.top; r++)
            if (!strcmp((const char *)yaml_document_get_node(d, r->key)->data.scalar.value, sub))
                return (const char *)yaml_document_get_node(d, r->value)->data.scalar.value;
    }
    return "";
}

static cost_request request(cost_task task, const char *gpus)
{
    cost_model m = {0};
    snprintf(m.name, sizeof m.name, "llama2_7b");
    model_shape s = {0};
    s.arch = ARCH_DECODER;
    s.num_layers = 32;
    s.hidden = 4096;
    s.ffn_hidden = 11008;
    s.heads = 32;
    s.query_groups = 32;
    s.kv_channels = 128;
    s.vocab = 32000;
    s.seq_length = 4096;
    s.gated_mlp = true;
    s.untied_embeddings = true;
    m.shape = s;
    m.max_context = 4096;
    cost_request rq;
    cost_request_init(&rq, &m);
    rq.task = task;
    rq.context = 4096;
    ac_err e;
    if (!cost_pool_parse(gpus, 8, NULL, &rq.pools[0], &e)) rq.n_pools = 1;
    return rq;
}

static void check_setup(const cost_request *rq, const cost_knobs *k, bool bench)
{
    cost_option o;
    ac_err e;
    CHECK_INT(cost_evaluate(rq, k, &o, &e), 0);
    char *text = NULL;
    CHECK_INT(cost_llmforge_yaml(rq, &o, bench, &text, &e), 0);
    if (!text) return;
    yaml_document_t d;
    CHECK_INT(load_and_check(text, &d), 0);
    CHECK_INT(n_problems, 0);
    /* what the trainer needs, and that it says what the option is */
    CHECK(*get(&d, "model_id", NULL) && *get(&d, "train_path", NULL));
    CHECK_INT(atoi(get(&d, "num_devices", NULL)), k->num_gpus);
    CHECK_INT(atoi(get(&d, "train_batch_size_per_device", NULL)), k->mbs);
    CHECK_INT(atoi(get(&d, "gradient_accumulation_steps", NULL)), o.grad_accum);
    CHECK_INT(atoi(get(&d, "context_length", NULL)), rq->context);
    CHECK_STR(get(&d, "no_gradient_checkpoint", NULL), k->checkpointing ? "false" : "true");
    CHECK_STR(get(&d, "padding", NULL), bench ? "max_length" : "longest");
    CHECK_STR(get(&d, "deepspeed", "config_path"), "ds_config.json");
    CHECK(atoll(get(&d, "trainer_resources", "memory")) >= (long long)(o.rank0_gather_gib * 1073741824.0));
    CHECK(*get(&d, "worker_resources", "memory"));
    CHECK_STR(get(&d, "lora_config", "task_type"), rq->task == COST_LORA ? "CAUSAL_LM" : "");
    yaml_document_delete(&d);
    free(text);
}

static void test_llmforge_yaml_matches_schema(void)
{
    ac_err e;
    CHECK_INT(csv_read_file("tests/fixtures/llmforge/schema.csv", &schema, &e), 0);
    cost_request full = request(COST_FULL, "a100_80gb");
    cost_request lora = request(COST_LORA, "a10g");
    snprintf(lora.lora_modules, sizeof lora.lora_modules, "all-linear");
    cost_knobs z3 = {0, 8, 1, 1, 2, 3, false, false, true};
    cost_knobs z2 = {0, 4, 1, 1, 1, 2, true, false, false};
    cost_knobs one = {0, 1, 1, 1, 1, 3, false, true, true};
    check_setup(&full, &z3, false);
    check_setup(&full, &z2, true);
    check_setup(&lora, &one, true);
    check_setup(&lora, &z3, false);
    /* the accelerator type is Ray's name */
    cost_option o;
    CHECK_INT(cost_evaluate(&lora, &z3, &o, &e), 0);
    char *text = NULL;
    CHECK_INT(cost_llmforge_yaml(&lora, &o, false, &text, &e), 0);
    CHECK_CONTAINS(text, "\"accelerator_type:A10G\": 0.001");
    free(text);
    /* a Megatron layout has no LLMForge config; Hugging Face + DeepSpeed runs no TP at all */
    cost_knobs tp = {0, 8, 4, 1, 1, 0, false, false, false};
    CHECK_INT(cost_evaluate(&full, &tp, &o, &e), -1);
    full.stack = est_stack_find("megatron-core");
    CHECK_INT(cost_evaluate(&full, &tp, &o, &e), 0);
    text = NULL;
    CHECK_INT(cost_llmforge_yaml(&full, &o, false, &text, &e), -1);
    CHECK(text == NULL);
    /* the checker itself catches an undocumented key and a wrong type */
    yaml_document_t d;
    CHECK_INT(load_and_check("context_length: 4096\nmax_steps: 5\nnum_devices: \"8\"\n", &d), 0);
    CHECK_INT(n_problems, 2);
    yaml_document_delete(&d);
    csv_free(&schema);
}


/* accelerate_config.yaml: every key Accelerate's ClusterConfig documents, with its type and allowed
 * values, for DeepSpeed (one node and two) and FSDP setups */
static void check_accelerate(const cost_request *rq, const cost_knobs *k, const char *dist)
{
    cost_option o;
    ac_err e;
    CHECK_INT(cost_evaluate(rq, k, &o, &e), 0);
    char *text = NULL;
    CHECK_INT(cost_accelerate_yaml(rq, &o, &text, &e), 0);
    if (!text) return;
    yaml_document_t d;
    CHECK_INT(load_and_check(text, &d), 0);
    CHECK_INT(n_problems, 0);
    CHECK_STR(get(&d, "distributed_type", NULL), dist);
    CHECK_INT(atoi(get(&d, "num_processes", NULL)), k->num_gpus);
    CHECK_INT(atoi(get(&d, "num_machines", NULL)), o.nodes);
    if (!strcmp(dist, "DEEPSPEED")) {
        CHECK_STR(get(&d, "deepspeed_config", "deepspeed_config_file"), "ds_config.json");
        CHECK_STR(get(&d, "deepspeed_config", "zero3_init_flag"), k->zero == 3 ? "true" : "false");
        if (o.nodes > 1) CHECK_STR(get(&d, "deepspeed_config", "deepspeed_multinode_launcher"), "standard");
    } else if (!strcmp(dist, "FSDP") && !strcmp(rq->stack->name, "pytorch-fsdp2")) {
        /* FSDP2's keys (Accelerate's FSDP1-to-FSDP2 guide), none of FSDP1's */
        CHECK_STR(get(&d, "fsdp_config", "fsdp_version"), "2");
        CHECK_STR(get(&d, "fsdp_config", "fsdp_reshard_after_forward"), k->zero == 3 ? "true" : "false");
        CHECK_STR(get(&d, "fsdp_config", "fsdp_sharding_strategy"), "");
        CHECK_STR(get(&d, "fsdp_config", "fsdp_backward_prefetch"), "");
        CHECK_STR(get(&d, "fsdp_config", "fsdp_use_orig_params"), "");
    } else if (!strcmp(dist, "FSDP")) {
        CHECK_STR(get(&d, "fsdp_config", "fsdp_version"), "1");
        CHECK_STR(get(&d, "fsdp_config", "fsdp_sharding_strategy"), k->zero == 3 ? "FULL_SHARD" : "SHARD_GRAD_OP");
    } else {
        CHECK_STR(get(&d, "fsdp_config", "fsdp_version"), ""); /* DeepSpeed or DDP: no FSDP section */
    }
    yaml_document_delete(&d);
    free(text);
}

static void test_accelerate_yaml_matches_schema(void)
{
    csv_free(&schema);
    ac_err e;
    CHECK_INT(csv_read_file("tests/fixtures/accelerate/schema.csv", &schema, &e), 0);
    cost_request full = request(COST_FULL, "a100_80gb:1.79:16");
    cost_knobs z3 = {0, 8, 1, 1, 2, 3, false, false, true};
    cost_knobs z3_2nodes = {0, 16, 1, 1, 1, 3, false, false, true};
    cost_knobs z2 = {0, 4, 1, 1, 1, 2, true, false, false};
    check_accelerate(&full, &z3, "DEEPSPEED");
    check_accelerate(&full, &z3_2nodes, "DEEPSPEED");
    check_accelerate(&full, &z2, "DEEPSPEED");
    cost_request fsdp = request(COST_LORA, "a100_80gb");
    fsdp.stack = est_stack_find("pytorch-fsdp");
    CHECK(fsdp.stack != NULL);
    check_accelerate(&fsdp, &z3, "FSDP");
    cost_request fsdp2 = request(COST_LORA, "a100_80gb");
    fsdp2.stack = est_stack_find("pytorch-fsdp2");
    CHECK(fsdp2.stack != NULL);
    cost_knobs z2_fsdp = {0, 4, 1, 1, 1, 2, false, false, false};
    cost_knobs ddp = {0, 4, 1, 1, 1, 0, false, false, false};
    check_accelerate(&fsdp2, &z3, "FSDP");
    check_accelerate(&fsdp2, &z2_fsdp, "FSDP");
    check_accelerate(&fsdp2, &ddp, "MULTI_GPU");
    /* a key the schema does not know is caught (the check is not vacuous) */
    yaml_document_t d;
    CHECK_INT(load_and_check("distributed_type: DEEPSPEED\nnum_gpus: 8\nmixed_precision: bf17\n", &d), 0);
    CHECK_INT(n_problems, 2);
    yaml_document_delete(&d);
    /* no config for a Megatron layout */
    cost_knobs tp = {0, 8, 2, 1, 1, 1, false, false, false};
    cost_request mc = request(COST_FULL, "a100_80gb");
    mc.stack = est_stack_find("megatron-core");
    cost_option o;
    char *text = NULL;
    CHECK_INT(cost_evaluate(&mc, &tp, &o, &e), 0);
    CHECK_INT(cost_accelerate_yaml(&mc, &o, &text, &e), -1);
    free(text);
    csv_free(&schema);
}

/* torchtune_config.yaml: every key a torchtune recipe reads, with its type and allowed values, for
 * the FSDP setups torchtune runs (sharded full and LoRA fine-tuning, one node and two, CPU offload,
 * one GPU); none for DeepSpeed, ZeRO-0/1 across GPUs, TP, or a model torchtune does not build */
static void check_torchtune(const cost_request *rq, const cost_knobs *k, const char *component, const char *reshard)
{
    cost_option o;
    ac_err e;
    CHECK_INT(cost_evaluate(rq, k, &o, &e), 0);
    CHECK(cost_torchtune_runs(rq, &o));
    char *text = NULL;
    CHECK_INT(cost_torchtune_yaml(rq, &o, &text, &e), 0);
    if (!text) return;
    yaml_document_t d;
    CHECK_INT(load_and_check(text, &d), 0);
    CHECK_INT(n_problems, 0);
    CHECK_STR(get(&d, "model", "_component_"), component);
    CHECK_INT(atoi(get(&d, "batch_size", NULL)), k->mbs);
    CHECK_INT(atoi(get(&d, "gradient_accumulation_steps", NULL)), o.grad_accum);
    CHECK_INT(atoi(get(&d, "tokenizer", "max_seq_len")), rq->context);
    CHECK_STR(get(&d, "dataset", "packed"), "true");
    CHECK_STR(get(&d, "enable_activation_checkpointing", NULL), k->checkpointing ? "true" : "false");
    CHECK_STR(get(&d, "fsdp_reshard_after_forward", NULL), reshard);
    CHECK_STR(get(&d, "fsdp_cpu_offload", NULL), !*reshard ? "" : k->offload_params ? "true" : "false");
    CHECK_STR(get(&d, "checkpointer", "model_type"), "LLAMA2");
    /* the launch line names the recipe and the processes per node */
    char line[128];
    snprintf(line, sizeof line, "--nproc_per_node %d", o.nodes > 0 ? k->num_gpus / o.nodes : k->num_gpus);
    if (*reshard) CHECK_CONTAINS(text, line);
    if (rq->task == COST_LORA) {
        CHECK_INT(atoi(get(&d, "model", "lora_rank")), rq->lora_rank);
        CHECK_CONTAINS(text, "lora_attn_modules: ['q_proj', 'k_proj', 'v_proj', 'output_proj']");
        CHECK_STR(get(&d, "model", "apply_lora_to_mlp"), "true");
    }
    yaml_document_delete(&d);
    free(text);
}

static void test_torchtune_yaml_matches_schema(void)
{
    csv_free(&schema);
    ac_err e;
    CHECK_INT(csv_read_file("tests/fixtures/torchtune/schema.csv", &schema, &e), 0);
    cost_request full = request(COST_FULL, "a100_80gb:1.79:16");
    full.stack = est_stack_find("pytorch-fsdp");
    cost_request lora = request(COST_LORA, "a100_80gb:1.79:16");
    lora.stack = full.stack;
    lora.lora_rank = 16;
    snprintf(lora.lora_modules, sizeof lora.lora_modules, "all-linear");
    CHECK_INT(cost_lora_targets(lora.lora_modules, &lora.model.shape, &lora.lora_targets, &e), 0);
    cost_knobs z3 = {0, 8, 1, 1, 2, 3, false, false, true};
    cost_knobs z3_2nodes_off = {0, 16, 1, 1, 1, 3, true, true, true};
    cost_knobs z2 = {0, 8, 1, 1, 1, 2, false, false, false};
    cost_knobs one = {0, 1, 1, 1, 1, 0, false, false, true};
    check_torchtune(&full, &z3, "torchtune.models.llama2.llama2_7b", "true");
    check_torchtune(&full, &z3_2nodes_off, "torchtune.models.llama2.llama2_7b", "true");
    check_torchtune(&full, &z2, "torchtune.models.llama2.llama2_7b", "false");
    check_torchtune(&lora, &z3, "torchtune.models.llama2.lora_llama2_7b", "true");
    check_torchtune(&lora, &one, "torchtune.models.llama2.lora_llama2_7b", "");
    /* the modules in any spelling the cost stage reads, as torchtune names them: "q,v,w2" is q_proj,
     * v_proj and the MLP's down projection (not three attention modules named q, v and w2) */
    static const struct {
        const char *list, *attn, *mlp;
    } SPELT[] = {{"q,v,w2", "lora_attn_modules: ['q_proj', 'v_proj']", "true"},
                 {"query,value,o", "lora_attn_modules: ['q_proj', 'v_proj', 'output_proj']", "false"},
                 {"q_proj,k_proj,up_proj", "lora_attn_modules: ['q_proj', 'k_proj']", "true"}};
    for (size_t i = 0; i < sizeof SPELT / sizeof *SPELT; i++) {
        cost_request l2 = lora;
        snprintf(l2.lora_modules, sizeof l2.lora_modules, "%s", SPELT[i].list);
        cost_option o2;
        char *tt = NULL;
        CHECK_INT(cost_evaluate(&l2, &z3, &o2, &e), 0);
        CHECK_INT(cost_torchtune_yaml(&l2, &o2, &tt, &e), 0);
        if (!tt) continue;
        CHECK_CONTAINS(tt, SPELT[i].attn);
        yaml_document_t d2;
        CHECK_INT(load_and_check(tt, &d2), 0);
        CHECK_STR(get(&d2, "model", "apply_lora_to_mlp"), SPELT[i].mlp);
        yaml_document_delete(&d2);
        free(tt);
    }
    /* no config where torchtune cannot run the setup */
    cost_option o;
    char *text = NULL;
    cost_knobs z1 = {0, 8, 1, 1, 1, 1, false, false, false};
    CHECK_INT(cost_evaluate(&full, &z1, &o, &e), 0);
    CHECK(!cost_torchtune_runs(&full, &o));
    CHECK_INT(cost_torchtune_yaml(&full, &o, &text, &e), -1);
    CHECK_CONTAINS(e.msg, "ZeRO-1");
    cost_request ds = request(COST_FULL, "a100_80gb");
    CHECK_INT(cost_evaluate(&ds, &z3, &o, &e), 0);
    CHECK(!cost_torchtune_runs(&ds, &o));
    CHECK_INT(cost_torchtune_yaml(&ds, &o, &text, &e), -1);
    CHECK_CONTAINS(e.msg, "hf-deepspeed");
    cost_request other = full;
    snprintf(other.model.name, sizeof other.model.name, "mixtral_8x7b");
    CHECK_INT(cost_evaluate(&other, &z3, &o, &e), 0);
    CHECK(!cost_torchtune_runs(&other, &o));
    CHECK_INT(cost_torchtune_yaml(&other, &o, &text, &e), -1);
    CHECK(text == NULL);
    /* a Hugging Face id finds the same builder */
    snprintf(other.model.name, sizeof other.model.name, "meta-llama/Llama-2-7b-hf");
    CHECK_INT(cost_evaluate(&other, &z3, &o, &e), 0);
    CHECK(cost_torchtune_runs(&other, &o));
    /* the checker catches an undocumented key, a wrong type and a value torchtune refuses */
    yaml_document_t d;
    CHECK_INT(load_and_check("batch_size: 2\nfsdp_sharding_strategy: FULL_SHARD\nepochs: \"1\"\ndtype: fp16\n", &d), 0);
    CHECK_INT(n_problems, 3);
    yaml_document_delete(&d);
    csv_free(&schema);
}

int main(void)
{
    RUN(test_llmforge_yaml_matches_schema);
    RUN(test_accelerate_yaml_matches_schema);
    RUN(test_torchtune_yaml_matches_schema);
    CHECK_DONE();
}
