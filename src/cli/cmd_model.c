/* cmd_model.c — `autoconfig size` and `autoconfig base`: the first two stages
 * of the original (model size recommendation, base config generation). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "util/json.h"

int cli_size_stage(const ac_config *c, model_size_report *rep, double *size_b, ac_err *e)
{
    const model_family *f = model_family_find(c->family);
    if (!f)
        return ac_err_at(e, AC_E_INPUT, "command line", 0, 0, "search_config", "unknown model family '%s' (known: %s)",
                         c->family, model_family_names());
    int gpus = c->train.num_nodes * c->train.gpus_per_node;
    if (isnan(c->train.model_size_in_b)) {
        if (model_recommend_size(f, c->train.max_training_days, gpus, c->train.tflops_per_gpu, c->train.num_tokens_in_b, rep, e))
            return -1;
        *size_b = rep->size_b;
    } else {
        if (model_training_days(f, c->train.model_size_in_b, gpus, c->train.tflops_per_gpu, c->train.num_tokens_in_b, rep, e))
            return -1;
        *size_b = c->train.model_size_in_b;
    }
    return 0;
}

void cli_print_size(FILE *out, const ac_config *c, const model_size_report *rec, const model_size_report *days)
{
    const cfg_train_settings *t = &c->train;
    fprintf(out, "Model size (%s, search_config %s)\n", c->family, c->search_config_value);
    fprintf(out, "  GPUs            %d nodes x %d GPUs = %d\n", t->num_nodes, t->gpus_per_node, rec->gpus);
    fprintf(out, "  compute budget  %g days x 86400 s x %d GPUs x %g TFLOP/s = %.4g FLOPs\n", t->max_training_days,
            rec->gpus, t->tflops_per_gpu, rec->flops_budget);
    fprintf(out, "  tokens          %g B = %.4g\n", t->num_tokens_in_b, rec->tokens);
    fprintf(out, "  size            %s%.4g / (8 FLOPs/param/token x %.4g tokens) = %.2f B parameters\n",
            rec->penalty != 1.0 ? "penalty x " : "", rec->flops_budget, rec->tokens, rec->size_b);
    if (rec->penalty != 1.0) fprintf(out, "                  (penalty %.2f for %s, as the original)\n", rec->penalty, c->family);
    fprintf(out, "You can train a %.2fB parameter model in %g days using %d GPUs. This result assumes you are training "
            "to %gB tokens, and each GPU achieves %g TFLOPS.\n",
            rec->size_b, t->max_training_days, rec->gpus, t->num_tokens_in_b, t->tflops_per_gpu);
    fprintf(out, "Second opinion (compute-optimal, Hoffmann et al. 2022: ~20 tokens per parameter, C = 6 N D): "
            "%.2fB parameters trained on %.0fB tokens.\n", rec->optimal_size_b, rec->optimal_tokens_b);
    if (days) {
        fprintf(out, "The configured %gB model needs %.2f days on %d GPUs for %gB tokens at %g TFLOPS per GPU "
                "(8 x %g e9 x %g e9 / (86400 x %d x %g e12)%s).\n",
                days->size_b, days->days, days->gpus, t->num_tokens_in_b, t->tflops_per_gpu, days->size_b,
                t->num_tokens_in_b, days->gpus, t->tflops_per_gpu, days->penalty != 1.0 ? " x mT5 penalty 1.15" : "");
    }
}

static void size_json(FILE *out, const ac_config *c, const model_size_report *rec, const model_size_report *days)
{
    json_writer w;
    json_begin(&w, out);
    json_obj_open(&w, NULL);
    json_str(&w, "family", c->family);
    json_str(&w, "search_config", c->search_config_value);
    json_int(&w, "gpus", rec->gpus);
    json_num(&w, "max_training_days", c->train.max_training_days);
    json_num(&w, "tflops_per_gpu", c->train.tflops_per_gpu);
    json_num(&w, "num_tokens_in_b", c->train.num_tokens_in_b);
    json_num(&w, "compute_budget_flops", rec->flops_budget);
    json_num(&w, "recommended_size_b", rec->size_b);
    json_num(&w, "family_penalty", rec->penalty);
    json_num(&w, "compute_optimal_size_b", rec->optimal_size_b);
    json_num(&w, "compute_optimal_tokens_b", rec->optimal_tokens_b);
    if (days) {
        json_num(&w, "configured_size_b", days->size_b);
        json_num(&w, "configured_training_days", days->days);
    } else {
        json_null(&w, "configured_size_b");
        json_null(&w, "configured_training_days");
    }
    json_obj_close(&w);
    json_end(&w);
}

static const char SIZE_HELP[] =
    "usage: autoconfig size [--json] [--conf DIR] [overrides...]\n"
    "\n"
    "Recommends a model size from the compute budget the original's way:\n"
    "  size_B = days x 86400 x GPUs x TFLOP/s / (8 x tokens)   (x 0.87 for mT5)\n"
    "and prints the compute-optimal size for the same budget as a second opinion.\n"
    "When model_size_in_b is set, also prints the days that size needs.\n"
    "\n"
    "Keys read: search_config.train_settings.{num_nodes, gpus_per_node, tflops_per_gpu,\n"
    "max_training_days, num_tokens_in_b, model_size_in_b}\n"
    "example: autoconfig size search_config=gpt3/unknown_size search_config.train_settings.num_nodes=64\n";

int cmd_size(int argc, char **argv)
{
    cli_opts o;
    ac_err e;
    static const char *const known[] = { NULL };
    ac_config c;
    int started = cli_start(argc, argv, known, SIZE_HELP, &o, &c, &e);
    if (started != CLI_GO) return started == CLI_HELPED ? 0 : cli_fail(&e);
    int rc = 0;
    const model_family *f = model_family_find(c.family);
    model_size_report rec, days;
    int gpus = c.train.num_nodes * c.train.gpus_per_node;
    if (!f) {
        ac_err_at(&e, AC_E_INPUT, "command line", 0, 0, "search_config", "unknown model family '%s' (known: %s)", c.family,
                  model_family_names());
        rc = cli_fail(&e);
    } else if (model_recommend_size(f, c.train.max_training_days, gpus, c.train.tflops_per_gpu, c.train.num_tokens_in_b,
                                    &rec, &e) != 0) {
        rc = cli_fail(&e);
    } else {
        bool given = !isnan(c.train.model_size_in_b);
        if (given && model_training_days(f, c.train.model_size_in_b, gpus, c.train.tflops_per_gpu, c.train.num_tokens_in_b,
                                         &days, &e) != 0) {
            rc = cli_fail(&e);
        } else if (o.json) {
            size_json(stdout, &c, &rec, given ? &days : NULL);
        } else {
            cli_print_size(stdout, &c, &rec, given ? &days : NULL);
        }
    }
    cfg_free(&c);
    cli_opts_free(&o);
    return rc;
}

static void print_base(FILE *out, const ac_config *c, const model_base_config *b, const model_size_report *rep)
{
    const model_shape *s = &b->shape;
    double dist = (b->param_b - b->size_b) / b->size_b * 100.0;
    fprintf(out, "Base config for %s (%s%s)\n", b->run_name, rep->recommended ? "recommended size " : "size ",
            b->size_text);
    fprintf(out, "  architecture  %d layers%s, hidden %d, ffn %d, %d heads", s->num_layers,
            s->arch == ARCH_ENCODER_DECODER ? " per stack" : "", s->hidden, s->ffn_hidden, s->heads);
    if (s->query_groups != s->heads) fprintf(out, " (%d KV groups)", s->query_groups);
    if (shape_is_moe(s)) fprintf(out, ", %d experts top-%d", s->num_experts, s->moe_topk);
    fprintf(out, ", kv %d, vocab %d, seq %d\n", s->kv_channels, s->vocab, s->seq_length);
    fprintf(out, "  parameters    %.3f B (requested %s B, %+.1f %%)\n", b->param_b, b->size_text, dist);
    fprintf(out, "  defaults      global batch %d, TP %d, PP %d, lr %g\n", b->gbs, b->tp, b->pp, b->lr);
    fprintf(out, "  training      %.2f days on %d GPUs for %g B tokens (estimate at %g TFLOP/s per GPU)\n", rep->days,
            rep->gpus, c->train.num_tokens_in_b, c->train.tflops_per_gpu);
    if (b->from_custom) fprintf(out, "  template      %s (custom_config: architecture kept as written)\n", c->train.custom_config);
    fprintf(out, "Wrote %s\n", b->path);
}

static void base_json(FILE *out, const model_base_config *b, const model_size_report *rep)
{
    const model_shape *s = &b->shape;
    json_writer w;
    json_begin(&w, out);
    json_obj_open(&w, NULL);
    json_str(&w, "run_name", b->run_name);
    json_str(&w, "family", b->family->name);
    json_num(&w, "size_b", b->size_b);
    json_bool(&w, "size_recommended", rep->recommended);
    json_num(&w, "param_count_b", b->param_b);
    json_num(&w, "param_count_error_pct", (b->param_b - b->size_b) / b->size_b * 100.0);
    json_int(&w, "num_layers", s->num_layers);
    json_int(&w, "hidden_size", s->hidden);
    json_int(&w, "ffn_hidden_size", s->ffn_hidden);
    json_int(&w, "num_attention_heads", s->heads);
    json_int(&w, "num_query_groups", s->query_groups);
    json_int(&w, "kv_channels", s->kv_channels);
    json_int(&w, "num_experts", s->num_experts);
    json_int(&w, "vocab_size", s->vocab);
    json_int(&w, "seq_length", s->seq_length);
    json_int(&w, "global_batch_size", b->gbs);
    json_int(&w, "tensor_model_parallel_size", b->tp);
    json_int(&w, "pipeline_model_parallel_size", b->pp);
    json_num(&w, "lr", b->lr);
    json_num(&w, "training_days", rep->days);
    json_str(&w, "path", b->path);
    json_obj_close(&w);
    json_end(&w);
}

static const char BASE_HELP[] =
    "usage: autoconfig base [--json] [--conf DIR] [overrides...]\n"
    "\n"
    "Writes <logs>/base_cfg_<size>b.yaml, a complete NeMo training config for the\n"
    "chosen model: architecture for the size (or the built-in model_name), default\n"
    "global batch / TP / PP, learning rate and schedule, trainer steps and time.\n"
    "A null model_size_in_b is first recommended from the budget (see `autoconfig size`).\n"
    "custom_config replaces the family template and keeps its architecture.\n"
    "example: autoconfig base search_config=t5/11b\n";

int cmd_base(int argc, char **argv)
{
    cli_opts o;
    ac_err e;
    static const char *const known[] = { NULL };
    ac_config c;
    int started = cli_start(argc, argv, known, BASE_HELP, &o, &c, &e);
    if (started != CLI_GO) return started == CLI_HELPED ? 0 : cli_fail(&e);
    model_size_report rep;
    model_base_config b = { 0 };
    double size_b;
    int rc = 0;
    if (cli_size_stage(&c, &rep, &size_b, &e) || model_base_config_build(&c, size_b, &b, &e) ||
        model_base_config_write(&b, c.train.logs, &e)) {
        rc = cli_fail(&e);
    } else {
        if (!rep.recommended) rep.days = rep.days; /* days for the given size */
        if (o.json) base_json(stdout, &b, &rep);
        else print_base(stdout, &c, &b, &rep);
    }
    model_base_config_free(&b);
    cfg_free(&c);
    cli_opts_free(&o);
    return rc;
}
