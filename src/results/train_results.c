/* train_results.c — see train_results.h */
#include "results/train_results.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config/yaml_io.h"
#include "results/candidate_cfg.h"
#include "search/pick.h"
#include "util/fsutil.h"
#include "util/json.h"
#include "util/strbuf.h"


/* One name per candidate: its file name (the original's candidate-file format, which its users
 * know), on the console, in the CSVs' Config Name, the report and summary.json.  The original
 * printed a shorter form on the console and in its CSV; that form hid VP, SP and the other knobs
 * (docs/original-bugs.md). */
void results_config_name(const search_scored *s, char *buf, size_t len)
{
    snprintf(buf, len, "%s", s->name);
}

/* removes *.yaml files of a previous run from dir (only ours: candidate files) */
static void clear_yaml(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l > 5 && !strcmp(de->d_name + l - 5, ".yaml")) {
            char p[4096];
            if (snprintf(p, sizeof p, "%s/%s", dir, de->d_name) < (int)sizeof p) unlink(p);
        }
    }
    closedir(d);
}

int results_write_candidates(const ac_config *c, const model_base_config *b, const search_train_result *r,
                             const char *logs, ac_err *e)
{
    char dir[4096];
    if (fs_join(dir, sizeof dir, logs, "candidate_configs", e) || fs_mkdir_p(dir, e)) return -1;
    clear_yaml(dir);
    for (size_t i = 0; i < r->n; i++) {
        const search_scored *s = &r->items[i];
        char path[4096], file[300];
        snprintf(file, sizeof file, "%s.yaml", s->name);
        if (fs_join(path, sizeof path, dir, file, e)) return -1;
        node *cfg = results_candidate_config(b, c, &s->cand, s->name, e);
        if (!cfg) return -1;
        char *text = yaml_dump_string(cfg, e);
        node_free(cfg);
        if (!text) return -1;
        int rc = fs_write_atomic_opt(path, text, strlen(text), false, e);
        free(text);
        if (rc) return -1;
    }
    return fs_sync_dir(dir, e);
}

double results_run_tokens_per_s(const search_train_result *r, const search_scored *s)
{
    return s->step_time_s > 0 ? (double)s->cand.gbs * r->base.shape.seq_length / s->step_time_s : 0.0;
}

typedef struct {
    double rate; /* tokens/s */
    size_t pos;  /* place in the search's ranked order: ties keep it */
    size_t item;
} run_key;

static int by_rate(const void *a, const void *b)
{
    const run_key *x = a, *y = b;
    if (x->rate != y->rate) return x->rate > y->rate ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

size_t results_sorted_runs(const search_train_result *r, size_t *idx, size_t cap)
{
    run_key *keys = malloc((r->n ? r->n : 1) * sizeof *keys);
    size_t n = 0;
    for (size_t k = 0; k < r->n && n < cap; k++) {
        const search_scored *s = &r->items[r->order[k]];
        if (!s->launched || s->failed) continue;
        if (keys) keys[n] = (run_key){ results_run_tokens_per_s(r, s), k, r->order[k] };
        idx[n++] = r->order[k];
    }
    if (!keys) return n; /* out of memory: the search's own order */
    /* by tokens/s of the result (measured runs may reorder the prediction), not by step
     * time: with several global batch sizes a bigger batch takes longer per step yet
     * trains faster.  It is also the cost order under rank_by=cost: every run of one
     * search has the same GPU type and count, so $ per token is 1 / (tokens/s). */
    qsort(keys, n, sizeof *keys, by_rate);
    for (size_t i = 0; i < n; i++) idx[i] = keys[i].item;
    free(keys);
    return n;
}

static int gpus_total(const ac_config *c) { return c->train.num_nodes * c->train.gpus_per_node; }

/* the original's row fields */
typedef struct {
    int layers, ffn; /* ffn < 0: None (GPT/BERT as the original) */
} shape_cols;

static shape_cols shape_columns(const model_base_config *b)
{
    shape_cols sc;
    bool t5 = b->shape.arch == ARCH_ENCODER_DECODER;
    sc.layers = t5 ? 2 * b->shape.num_layers : b->shape.num_layers;
    sc.ffn = t5 || b->shape.gated_mlp ? b->shape.ffn_hidden : -1;
    return sc;
}

static void csv_int_or_empty(strbuf *sb, int v) { if (v >= 0) sb_printf(sb, "%d", v); sb_add(sb, ","); }

static const char ORIGINAL_COLS[] =
    "Model Name,Model Size,Seq Length,TP,PP,MBS,Act Ckpt Layers,Act Ckpt Micro Bathes,Act Ckpt Layers per Pipeline,"
    "Num Layers,Hidden Size,FFN Hidden Size,GBS,Nodes,GPUs per Node";

static void row_common(strbuf *sb, const ac_config *c, const model_base_config *b, const search_scored *s)
{
    shape_cols sc = shape_columns(b);
    const search_candidate *k = &s->cand;
    sb_csv_field(sb, c->family, false);
    sb_csv_field(sb, b->size_text, false);
    sb_printf(sb, "%d,%d,%d,%d,", b->shape.seq_length, k->tp, k->pp, k->mbs);
    csv_int_or_empty(sb, k->act_ckpt_layers);
    csv_int_or_empty(sb, k->num_mbs_act);
    csv_int_or_empty(sb, k->act_per_pipe);
    sb_printf(sb, "%d,%d,", sc.layers, b->shape.hidden);
    csv_int_or_empty(sb, sc.ffn);
    sb_printf(sb, "%d,%d,%d", k->gbs, c->train.num_nodes, c->train.gpus_per_node);
}

/* the candidate's recompute as the summary names it; full recompute under a JAX remat policy
 * (train_settings.remat_policy) says which: "full (save_qkv_proj)" (est_recompute_text) */
static const char *rc_text(search_recompute r, const est_input *base, char *buf, size_t n)
{
    if (r == SEARCH_RC_FULL && base && base->remat_saves) {
        est_full_recompute_text(base->remat_saves, buf, n);
        return buf;
    }
    return r == SEARCH_RC_FULL ? "full" : r == SEARCH_RC_SELECTIVE ? "selective" : "none";
}

static void row_ours(strbuf *sb, const search_scored *s, const est_input *base)
{
    const search_candidate *k = &s->cand;
    const est_result *p = &s->est;
    sb_printf(sb, ",%d,%d,", k->cp, k->ep);
    csv_int_or_empty(sb, k->vp > 0 ? k->vp : -1);
    char rc[48];
    sb_printf(sb, "%s,%s,%s,%s,%.4f,", k->sequence_parallel ? "true" : "false", rc_text(k->recompute, base, rc, sizeof rc),
              k->distributed_optimizer ? "true" : "false", s->source == RUN_MEASURED ? "measured" : "predicted",
              p->step_time);
    if (s->source == RUN_MEASURED && p->step_time > 0) sb_printf(sb, "%.1f", 100.0 * (p->step_time / s->step_time_s - 1.0));
    sb_printf(sb, ",%.2f,%.2f,%.1f,%.2f,%.0f,%s,%s", p->mem_total / EST_GIB, 100.0 * p->mfu,
              p->tokens_per_s * (p->step_time / (s->step_time_s > 0 ? s->step_time_s : p->step_time)), p->days_to_train,
              p->cost_usd * (s->step_time_s > 0 ? s->step_time_s / p->step_time : 1.0), base->gpu->name,
              k->in_original ? "true" : "false");
    /* the prediction's uncertainty: 80 % of validated runs of this GPU and stack lie within it */
    sb_printf(sb, ",%.1f", 100.0 * est_band_rel(p));
}

static const char OUR_COLS[] =
    "CP,EP,VP,Sequence Parallel,Recompute,Distributed Optimizer,Result,Predicted Time per Step,Error vs Predicted %,"
    "Peak Memory GiB,MFU %,Tokens per Second,Est. Days to Train,Cost USD,GPU,In Original Grid,Predicted Band %";

static int write_summary_csv(const ac_config *c, const model_base_config *b, const search_train_result *r,
                             const char *path, ac_err *e)
{
    strbuf sb = {0};
    sb_printf(&sb, "%s,Time per Step,Samples per Second,Model TFLOPS / GPU,Model TFLOPS Aggregate,Config Name,%s\n",
              ORIGINAL_COLS, OUR_COLS);
    size_t *idx = malloc((r->n ? r->n : 1) * sizeof *idx);
    if (!idx) return ac_err_set(e, AC_E_NOMEM, "out of memory");
    size_t n = results_sorted_runs(r, idx, r->n);
    int N = gpus_total(c);
    for (size_t i = 0; i < n; i++) {
        const search_scored *s = &r->items[idx[i]];
        double t = s->step_time_s;
        double flops = s->est.model_flops_per_step;
        char cname[320];
        results_config_name(s, cname, sizeof cname);
        row_common(&sb, c, b, s);
        sb_printf(&sb, ",%.4f,%.2f,%.2f,%.2f,", t, s->cand.gbs / t, flops / t / N / 1e12, flops / t / 1e12);
        sb_csv_field(&sb, cname, false);
        sb.len--; /* sb_csv_field added a comma; row_ours starts with one */
        row_ours(&sb, s, &r->base);
        sb_add(&sb, "\n");
    }
    free(idx);
    int rc = sb.oom ? ac_err_set(e, AC_E_NOMEM, "out of memory") : fs_write_atomic(path, sb_str(&sb), sb.len, e);
    sb_free(&sb);
    return rc;
}

static int write_failed_csv(const ac_config *c, const model_base_config *b, const search_train_result *r,
                            const char *path, ac_err *e)
{
    strbuf sb = {0};
    sb_printf(&sb, "%s,Error Message,Config Name,Peak Memory GiB,Memory Limit GiB,Result\n", ORIGINAL_COLS);
    for (size_t k = 0; k < r->n; k++) {
        const search_scored *s = &r->items[r->order[k]];
        if (!s->failed) continue;
        char cname[320];
        results_config_name(s, cname, sizeof cname);
        row_common(&sb, c, b, s);
        sb_add(&sb, ",");
        sb_csv_field(&sb, s->reason, false);
        sb_csv_field(&sb, cname, false);
        if (isfinite(s->est.mem_total)) sb_printf(&sb, "%.2f,%.2f,", s->est.mem_total / EST_GIB, s->est.mem_limit / EST_GIB);
        else sb_add(&sb, ",,");
        sb_add(&sb, s->source == RUN_MEASURED ? "measured\n" : "predicted\n");
    }
    int rc = sb.oom ? ac_err_set(e, AC_E_NOMEM, "out of memory") : fs_write_atomic(path, sb_str(&sb), sb.len, e);
    sb_free(&sb);
    return rc;
}

static void json_run(json_writer *w, const search_scored *s, const est_input *base)
{
    const search_candidate *k = &s->cand;
    const est_result *p = &s->est;
    double G = EST_GIB;
    json_obj_open(w, NULL);
    json_str(w, "name", s->name);
    json_int(w, "rank", s->rank);
    json_str(w, "status", s->failed ? "failed" : "ok");
    json_str(w, "source", s->source == RUN_MEASURED ? "measured" : "predicted");
    json_str(w, "reason", s->reason);
    json_bool(w, "in_original", k->in_original);
    json_bool(w, "launched", s->launched);
    json_bool(w, "borderline", s->borderline);
    if (s->measured_nodes) {
        json_int(w, "measured_nodes", s->measured_nodes);
        json_num(w, "measured_step_time_at_measured_nodes_s", s->measured_raw_s);
    }
    json_int(w, "tp", k->tp); json_int(w, "pp", k->pp); json_int(w, "cp", k->cp); json_int(w, "ep", k->ep);
    if (k->vp > 0) json_int(w, "vp", k->vp); else json_null(w, "vp");
    json_int(w, "mbs", k->mbs); json_int(w, "gbs", k->gbs);
    if (k->act_ckpt_layers >= 0) json_int(w, "act_ckpt_layers", k->act_ckpt_layers); else json_null(w, "act_ckpt_layers");
    if (k->num_mbs_act >= 0) json_int(w, "num_mbs_act", k->num_mbs_act); else json_null(w, "num_mbs_act");
    if (k->act_per_pipe >= 0) json_int(w, "act_per_pipe", k->act_per_pipe); else json_null(w, "act_per_pipe");
    json_bool(w, "sequence_parallel", k->sequence_parallel);
    char rc[48];
    json_str(w, "recompute", rc_text(k->recompute, base, rc, sizeof rc));
    json_bool(w, "distributed_optimizer", k->distributed_optimizer);
    json_str(w, "precision", k->precision == SEARCH_PREC_FP8 ? "fp8" : "bf16");
    bool valid = isfinite(p->mem_total);
    if (valid && !s->failed) json_num(w, "step_time_s", s->step_time_s); else json_null(w, "step_time_s");
    if (valid) json_num(w, "predicted_step_time_s", p->step_time); else json_null(w, "predicted_step_time_s");
    if (valid) json_num(w, "band_pct", 100.0 * est_band_rel(p)); else json_null(w, "band_pct");
    if (s->source == RUN_MEASURED && !s->failed) {
        json_num(w, "measured_step_time_s", s->step_time_s);
        json_num(w, "error_pct", 100.0 * (p->step_time / s->step_time_s - 1.0));
    } else {
        json_null(w, "measured_step_time_s");
        json_null(w, "error_pct");
    }
    if (!valid) { json_obj_close(w); return; }
    double t = s->step_time_s > 0 ? s->step_time_s : p->step_time;
    json_num(w, "samples_per_s", k->gbs / t);
    json_num(w, "tokens_per_s", p->tokens_per_s * p->step_time / t);
    json_num(w, "tflops_per_gpu", p->tflops_per_gpu * p->step_time / t);
    json_num(w, "mfu", p->mfu * p->step_time / t);
    json_num(w, "peak_mem_gib", p->mem_total / G);
    json_num(w, "mem_limit_gib", p->mem_limit / G);
    json_num(w, "days_to_train", p->days_to_train * t / p->step_time);
    json_num(w, "cost_usd", p->cost_usd * t / p->step_time);
    json_obj_open(w, "memory_gib");
    json_num(w, "weights", p->mem_weights / G);
    json_num(w, "grads", p->mem_grads / G);
    json_num(w, "optimizer", p->mem_optimizer / G);
    json_num(w, "activations", p->mem_activations / G);
    json_num(w, "logits", p->mem_logits / G);
    json_num(w, "comm_buffers", p->mem_comm_buffers / G);
    json_num(w, "allowance", p->mem_allowance / G);
    json_obj_close(w);
    json_obj_open(w, "time_s");
    json_num(w, "compute_fwd", p->t_compute_fwd);
    json_num(w, "compute_bwd", p->t_compute_bwd);
    json_num(w, "recompute", p->t_recompute);
    json_num(w, "tp_comm", p->t_tp_comm);
    json_num(w, "cp_comm", p->t_cp_comm);
    json_num(w, "ep_comm", p->t_ep_comm);
    json_num(w, "pp_bubble", p->t_pp_bubble);
    json_num(w, "pp_p2p", p->t_pp_p2p);
    json_num(w, "dp_exposed", p->t_dp_exposed);
    json_num(w, "optimizer", p->t_optimizer);
    json_num(w, "overhead", p->t_overhead);
    json_obj_close(w);
    (void)base;
    json_obj_close(w);
}

/* where a pick came from: measured, the original's grid or the wider space */
static const char *pick_source(const search_pick *p)
{
    if (p->measured) return "measured";
    return p->pick.cand.in_original ? "original grid" : "wider space";
}

static void json_entry(json_writer *w, const char *key, const search_pick_entry *x)
{
    if (!x->found) { json_null(w, key); return; }
    json_obj_open(w, key);
    json_str(w, "name", x->name);
    json_bool(w, "in_original", x->cand.in_original);
    json_num(w, "tokens_per_s", x->est.tokens_per_s);
    json_num(w, "step_time_s", x->est.step_time);
    json_num(w, "peak_mem_gib", x->est.mem_total / EST_GIB);
    json_num(w, "days_to_train", x->est.days_to_train);
    json_obj_close(w);
}

static void json_pick(json_writer *w, const ac_config *c, const model_base_config *b, const search_train_result *r)
{
    const search_pick *p = &r->pick;
    if (!p->pick.found) { json_null(w, "recommendation"); return; }
    json_obj_open(w, "recommendation");
    json_str(w, "name", p->pick.name);
    json_str(w, "source", pick_source(p));
    json_num(w, "tie_band", p->band);
    json_int(w, "ties", p->n_ties);
    json_str(w, "preferred_for", search_pick_why_text(p->why));
    json_int(w, "max_steps", results_full_run_steps(c->train.num_tokens_in_b, p->pick.cand.gbs, b->shape.seq_length));
    json_num(w, "memory_fraction", p->mem_frac);
    json_bool(w, "memory_warning", p->mem_warn);
    json_bool(w, "over_budget", p->over_budget);
    if (p->budget_nodes > 0) json_int(w, "nodes_for_budget", p->budget_nodes); else json_null(w, "nodes_for_budget");
    json_entry(w, "pick", &p->pick);
    json_entry(w, "fastest", &p->fastest);
    json_entry(w, "original_choice", &p->original);
    json_entry(w, "under_memory_advice", &p->under_mem);
    json_obj_close(w);
}

static int write_summary_json(const ac_config *c, const model_base_config *b, const search_train_result *r,
                              const char *path, ac_err *e)
{
    json_file jf;
    if (json_file_begin(&jf, e)) return -1;
    json_writer *w = &jf.w;
    json_obj_open(w, NULL);
    json_str(w, "tool", "autoconfig");
    json_str(w, "version", "0.1.0");
    char ts[32];
    json_utc_now(ts, sizeof ts);
    json_str(w, "generated", ts);
    json_obj_open(w, "model");
    json_str(w, "family", c->family);
    json_str(w, "name", b->run_name);
    json_num(w, "size_b", b->size_b);
    json_num(w, "params_b", b->param_b);
    json_int(w, "seq_length", b->shape.seq_length);
    json_int(w, "num_layers", b->shape.num_layers);
    json_int(w, "hidden_size", b->shape.hidden);
    json_obj_close(w);
    json_obj_open(w, "cluster");
    json_str(w, "type", c->cluster_type);
    json_int(w, "nodes", c->train.num_nodes);
    json_int(w, "gpus_per_node", c->train.gpus_per_node);
    json_str(w, "gpu", r->base.gpu->name);
    json_num(w, "gpu_memory_gb", r->base.memory_limit_gb > 0 ? r->base.memory_limit_gb : r->base.gpu->memory_gb);
    json_num(w, "price_per_gpu_hour", r->base.price_per_gpu_hour > 0 ? r->base.price_per_gpu_hour : r->base.gpu->price_per_hour);
    json_obj_close(w);
    json_obj_open(w, "search");
    json_str(w, "mode", c->train.search_mode);
    json_str(w, "rank_by", c->train.rank_by);
    search_counts cnt; /* the console's and the report's words and numbers */
    search_train_counts(c, r, &cnt);
    json_int(w, "candidates", (long long)cnt.candidates);
    json_int(w, "in_original_grid", (long long)r->grid.n_original);
    json_int(w, "valid", (long long)cnt.valid);
    json_int(w, "predicted_fit", (long long)cnt.predicted_fit);
    json_int(w, "predicted_oom", (long long)cnt.predicted_oom);
    json_int(w, "ranked", (long long)cnt.ranked);
    json_int(w, "launched", (long long)cnt.launched);
    json_int(w, "measured", (long long)cnt.measured);
    json_int(w, "failed", (long long)cnt.failed);
    json_int(w, "top_n", c->train.output_top_n);
    json_num(w, "elapsed_s", r->elapsed_s);
    json_int(w, "global_batch_size", r->gbs.to);
    json_int(w, "configured_global_batch_size", r->gbs.from);
    json_bool(w, "global_batch_adjusted", r->gbs.adjusted);
    if (r->exhaustive_done && r->exhaustive_found) {
        json_obj_open(w, "exhaustive");
        json_int(w, "candidates", r->exhaustive_count);
        json_str(w, "best_name", r->exhaustive_best_name);
        json_num(w, "best_tokens_per_s", r->exhaustive_best_est.tokens_per_s);
        json_num(w, "best_step_time_s", r->exhaustive_best_est.step_time);
        json_num(w, "gain_pct", 100.0 * r->exhaustive_gain);
        json_obj_close(w);
    } else {
        json_null(w, "exhaustive");
    }
    json_obj_close(w);
    size_t *idx = malloc((r->n ? r->n : 1) * sizeof *idx);
    size_t n = idx ? results_sorted_runs(r, idx, r->n) : 0;
    if (n) json_str(w, "best", r->items[idx[0]].name); else json_null(w, "best");
    free(idx);
    json_pick(w, c, b, r);
    json_arr_open(w, "runs");
    for (size_t k = 0; k < r->n; k++) json_run(w, &r->items[r->order[k]], &r->base);
    json_arr_close(w);
    json_obj_close(w);
    return json_file_commit(&jf, path, e);
}

int results_write_final(const ac_config *c, const model_base_config *b, const search_train_result *r, const char *logs,
                        ac_err *e)
{
    char dir[4096], path[4096], file[256];
    if (fs_join(dir, sizeof dir, logs, "final_result", e) || fs_mkdir_p(dir, e)) return -1;
    int nodes = c->train.num_nodes;
    snprintf(file, sizeof file, "final_summary_%dnodes.csv", nodes);
    if (fs_join(path, sizeof path, dir, file, e) || write_summary_csv(c, b, r, path, e)) return -1;
    snprintf(file, sizeof file, "failed_jobs_%dnodes.csv", nodes);
    if (fs_join(path, sizeof path, dir, file, e) || write_failed_csv(c, b, r, path, e)) return -1;
    if (r->pick.pick.found) {
        const search_pick_entry *s = &r->pick.pick;
        node *cfg = results_full_run_config(b, c, &s->cand, s->name, e);
        if (!cfg) return -1;
        snprintf(file, sizeof file, "optimal_config_%sb_%dnodes.yaml", b->size_text, nodes);
        int rc = fs_join(path, sizeof path, dir, file, e) || yaml_dump_file(cfg, path, e);
        node_free(cfg);
        if (rc) return -1;
    }
    if (fs_join(path, sizeof path, dir, "summary.json", e) || write_summary_json(c, b, r, path, e)) return -1;
    return 0;
}

void results_print_pick(FILE *out, const ac_config *c, const model_base_config *b, const search_train_result *r,
                        const char *logs)
{
    const search_pick *p = &r->pick;
    if (!p->pick.found) return;
    const search_pick_entry *s = &p->pick;
    double step = p->measured ? p->measured_step_s : s->est.step_time;
    double tps = (double)s->cand.gbs * b->shape.seq_length / step;
    fprintf(out, "==================================================\n");
    if (p->measured)
        fprintf(out, "Optimal config: %s with %.4fs per global step (measured: the fastest measured run, %.0f tokens/s).\n",
                s->name, step, tps);
    else
        fprintf(out, "Optimal config: %s with %.4fs per global step (predicted; %s, %.0f tokens/s).\n", s->name, step,
                pick_source(p), tps);
    if (!p->measured && p->why != PICK_WHY_FASTEST && p->fastest.found)
        fprintf(out, "  Chosen among %ld candidates within the estimator's %.0f%% band of the fastest, %s (%+.1f%% predicted "
                "tokens/s, a tie), for %s.\n", p->n_ties, 100.0 * p->band, p->fastest.name,
                100.0 * (p->fastest.est.tokens_per_s / s->est.tokens_per_s - 1.0), search_pick_why_text(p->why));
    else if (!p->measured)
        fprintf(out, "  The fastest predicted; %ld candidate%s within the estimator's %.0f%% band.\n", p->n_ties,
                p->n_ties == 1 ? " is" : "s are", 100.0 * p->band);
    if (p->original.found && strcmp(p->original.name, s->name))
        fprintf(out, "  The original's choice (best of its grid): %s, %.0f tokens/s (predicted, %+.1f%% vs the pick).\n",
                p->original.name, p->original.est.tokens_per_s, 100.0 * (p->original.est.tokens_per_s / s->est.tokens_per_s - 1.0));
    else if (!p->original.found)
        fprintf(out, "  The original's grid has no candidate that fits here.\n");
    if (p->mem_warn) {
        fprintf(out, "  WARNING: it needs %.1f%% of GPU memory (more than %.0f%%, the original's advice)", 100.0 * p->mem_frac,
                100.0 * SEARCH_MEM_WARN_FRAC);
        if (p->under_mem.found)
            fprintf(out, "; the best under it: %s (%.1f GiB, %.0f tokens/s predicted).\n", p->under_mem.name,
                    p->under_mem.est.mem_total / EST_GIB, p->under_mem.est.tokens_per_s);
        else
            fprintf(out, "; no candidate fits under it.\n");
    }
    long long steps = results_full_run_steps(c->train.num_tokens_in_b, s->cand.gbs, b->shape.seq_length);
    double days = s->est.days_to_train * (p->measured && s->est.step_time > 0 ? step / s->est.step_time : 1.0);
    fprintf(out, "Saving config to %s/final_result/optimal_config_%sb_%dnodes.yaml (the full run: %lld steps for %g B tokens at "
            "GBS %d, %.1f days %s, time limit %g days, checkpointing on).\n", logs, b->size_text, c->train.num_nodes,
            steps, c->train.num_tokens_in_b, s->cand.gbs, days, p->measured ? "at the measured speed" : "predicted",
            c->train.max_training_days);
    if (p->over_budget) {
        fprintf(out, "  WARNING: %.1f predicted days exceed max_training_days %g", days, c->train.max_training_days);
        if (p->budget_nodes > 0)
            fprintf(out, "; %d nodes at the same layout would take %.1f days.\n", p->budget_nodes, p->budget_days);
        else
            fprintf(out, "; no node count up to %d at this layout and global batch meets it.\n", 64 * c->train.num_nodes);
    }
    fprintf(out, "==================================================\n");
}

void results_print_top(FILE *out, const ac_config *c, const model_base_config *b, const search_train_result *r,
                       const char *logs)
{
    size_t *idx = malloc((r->n ? r->n : 1) * sizeof *idx);
    if (!idx) return;
    size_t n = results_sorted_runs(r, idx, r->n);
    size_t top = (size_t)c->train.output_top_n < n ? (size_t)c->train.output_top_n : n;
    if (!n) {
        size_t launched = 0;
        for (size_t k = 0; k < r->n; k++) launched += r->items[k].launched;
        fprintf(out, "No config to rank: all %zu launched runs failed (reasons in %s/final_result/failed_jobs_%dnodes.csv).\n",
                launched, logs, c->train.num_nodes);
        free(idx);
        return;
    }
    bool measured = r->items[idx[0]].source == RUN_MEASURED;
    fprintf(out, "Top %zu configs sorted from fastest to slowest (%s):\n", top,
            measured ? "measured" : "predicted by the estimator, not measured");
    for (size_t i = 0; i < top; i++) {
        const search_scored *s = &r->items[idx[i]];
        char cname[320];
        results_config_name(s, cname, sizeof cname);
        /* $ for the full run (num_tokens_in_b at this config's speed), as in the summary's Cost USD column */
        char usd[48] = "";
        if (s->est.cost_usd > 0) snprintf(usd, sizeof usd, ", $%.0f for the run", s->est.cost_usd * s->step_time_s / s->est.step_time);
        fprintf(out, "Config #%zu: %s with %.4fs per global step (%s; %.0f tokens/s, MFU %.1f%%, %.1f GiB peak%s)\n", i + 1,
                cname, s->step_time_s, s->source == RUN_MEASURED ? "measured" : "predicted",
                s->est.tokens_per_s * s->est.step_time / s->step_time_s, 100.0 * s->est.mfu * s->est.step_time / s->step_time_s,
                s->est.mem_total / EST_GIB, usd);
    }
    free(idx);
    results_print_pick(out, c, b, r, logs);
}
