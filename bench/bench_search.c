/* bench_search.c — the speed and accuracy figures of the estimator and the
 * training search, printed for the closing notes (make bench):
 *   1. est_evaluate evaluations per second on one core (target ≥ 2 M/s)
 *   2. the default search of every preset, config load to result files
 *      (target < 100 ms each)
 *   3. the exhaustive mode on a 1T-parameter GPT on 1024 GPUs (target < 5 s)
 *   4. validate on ../shared/reference/benchmarks_train.csv (median / p90) and issue 24's
 *      targets: S8 median, per-GPU signed medians
 *   5. the original's five published NeMo Megatron figures (bignlp-scripts README §7.1.2)
 *      with the 2022 stack (target: each within 15 %) */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "config/cfg.h"
#include "util/csv.h"
#include "estimator/est.h"
#include "validate/infer_validate.h"
#include "validate/validate.h"
#include "model/basecfg.h"
#include "model/size.h"
#include "results/train_results.h"
#include "search/candidate_est.h"
#include "search/train_search.h"
#include "util/stats.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU seconds of this process: "on one core" however busy the machine's other cores are */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void bench_evals(void)
{
    model_shape s = {0};
    s.arch = ARCH_DECODER;
    s.num_layers = 80; s.hidden = 8192; s.ffn_hidden = 28672; s.heads = 64; s.query_groups = 8;
    s.kv_channels = 128; s.vocab = 128256; s.seq_length = 8192; s.gated_mlp = true; s.untied_embeddings = true;
    gpu_catalog_load(NULL);
    est_input in;
    est_input_init(&in, &s, gpu_find("h100"));
    est_cal cal;
    est_cal_default(&cal, NULL);
    in.cal = &cal;
    in.num_gpus = 512;
    in.gbs = 512;
    in.sequence_parallel = true;
    in.zero_stage = 1;
    static const int tps[] = {1, 2, 4, 8}, pps[] = {1, 2, 4, 8, 16}, mbss[] = {1, 2, 4};
    est_result r;
    double sink = 0;
    long n = 0;
    double t0 = now(), c0 = cpu_now();
    for (int rep = 0; rep < 35000; rep++)
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 5; b++)
                for (int m = 0; m < 3; m++) {
                    in.tp = tps[a]; in.pp = pps[b]; in.mbs = mbss[m];
                    if (est_evaluate(&in, &r) == 0) sink += r.step_time;
                    n++;
                }
    double dt = now() - t0, dc = cpu_now() - c0;
    printf("estimator: %ld evaluations in %.3f s = %.2f M evaluations/s on one core (target >= 2 M/s: %s; %.2f M/s "
           "of wall time on this shared machine) [%g]\n",
           n, dc, n / dc / 1e6, n / dc >= 2e6 ? "met" : "MISSED", n / dt / 1e6, sink > 0 ? 1.0 : 0.0);
}

static int one_search(const char *value, const char *logs, double *dt, size_t *ncand, ac_err *e)
{
    char a1[300], a2[1200];
    snprintf(a1, sizeof a1, "search_config=%s", value);
    snprintf(a2, sizeof a2, "search_config.train_settings.logs=%s", logs);
    char *ov[] = {a1, a2};
    /* the previous preset's files flushed first: each search's own syncfs then waits only
     * for what it wrote itself, as a single `autoconfig run` does */
    sync();
    double t0 = now();
    ac_config c;
    if (cfg_load("conf", 2, ov, &c, e)) return -1;
    model_size_report rep;
    const model_family *f = model_family_find(c.family);
    double size_b = c.train.model_size_in_b;
    int gpus = c.train.num_nodes * c.train.gpus_per_node;
    if (size_b != size_b) {
        if (model_recommend_size(f, c.train.max_training_days, gpus, c.train.tflops_per_gpu, c.train.num_tokens_in_b, &rep, e)) { cfg_free(&c); return -1; }
        size_b = rep.size_b;
    }
    model_base_config b = {0};
    search_train_result r;
    int rc = -1;
    if (!model_base_config_build(&c, size_b, &b, e) && !model_base_config_write(&b, c.train.logs, e) &&
        !search_train_run(&c, &b, &r, e)) {
        rc = results_write_candidates(&c, &b, &r, c.train.logs, e) || results_write_final(&c, &b, &r, c.train.logs, e);
        *ncand = r.n;
        search_train_free(&r);
    }
    model_base_config_free(&b);
    cfg_free(&c);
    *dt = now() - t0;
    return rc;
}

static void bench_presets(void)
{
    static const char *const families[] = {"gpt3", "t5", "mt5", "bert", "llama", "mixtral"};
    char tmpl[] = "/tmp/autoconfig-bench-XXXXXX";
    char *root = mkdtemp(tmpl);
    if (!root) return;
    double worst = 0, total = 0;
    char worst_name[128] = "";
    int count = 0, failed = 0;
    for (size_t i = 0; i < sizeof families / sizeof *families; i++) {
        char dir[256];
        snprintf(dir, sizeof dir, "conf/search_config/%s", families[i]);
        DIR *d = opendir(dir);
        if (!d) continue;
        struct dirent *de;
        while ((de = readdir(d))) {
            size_t l = strlen(de->d_name);
            if (l < 6 || strcmp(de->d_name + l - 5, ".yaml")) continue;
            char value[128], logs[512];
            snprintf(value, sizeof value, "%s/%.*s", families[i], (int)(l - 5), de->d_name);
            snprintf(logs, sizeof logs, "%s/%s_%.*s", root, families[i], (int)(l - 5), de->d_name);
            double dt = 0;
            size_t n = 0;
            ac_err e;
            if (one_search(value, logs, &dt, &n, &e)) {
                printf("  %-24s failed: %s\n", value, e.msg);
                failed++;
                continue;
            }
            printf("  %-24s %5zu candidates  %7.1f ms\n", value, n, dt * 1e3);
            total += dt;
            count++;
            if (dt > worst) { worst = dt; snprintf(worst_name, sizeof worst_name, "%s", value); }
        }
        closedir(d);
    }
    printf("default search, config load to result files: %d presets, %.1f ms total, slowest %s %.1f ms "
           "(target < 100 ms), %d failed\n", count, total * 1e3, worst_name, worst * 1e3, failed);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
}

typedef struct {
    est_input in;
    search_act_method m;
    long n;
    double best;
} exh;

static int visit(const search_candidate *k, void *u)
{
    exh *x = u;
    est_result r;
    candidate_est_apply(&x->in, k, x->m);
    if (est_evaluate(&x->in, &r) == 0 && r.fits && r.tokens_per_s > x->best) x->best = r.tokens_per_s;
    x->n++;
    return 0;
}

static void bench_exhaustive(void)
{
    search_inputs in;
    search_inputs_init(&in);
    in.family = SEARCH_GPT3;
    in.size_b = 1000;
    in.shape.arch = ARCH_DECODER;
    in.shape.num_layers = 128; in.shape.hidden = 25600; in.shape.ffn_hidden = 4 * 25600; in.shape.heads = 160;
    in.shape.query_groups = 160; in.shape.kv_channels = 160; in.shape.vocab = 51200; in.shape.seq_length = 2048;
    in.shape.learned_pos_emb = true;
    in.num_nodes = 128;
    in.gpus_per_node = 8;
    in.base_gbs = 2048;
    exh x = {0};
    est_input_init(&x.in, &in.shape, gpu_find("a100_80gb"));
    x.in.num_gpus = 1024;
    x.in.gpus_per_node = 8;
    est_cal cal;
    est_cal_default(&cal, NULL);
    x.in.cal = &cal;
    long count = 0;
    ac_err e;
    double t0 = now();
    int rc = search_exhaustive(&in, NULL, visit, &x, &count, &e);
    double dt = now() - t0;
    if (rc) { printf("exhaustive: error %s\n", e.msg); return; }
    printf("exhaustive, 1T GPT on 1024 A100: %ld candidates scored in %.3f s = %.2f M candidates/s (target < 5 s); "
           "best %.0f tokens/s (predicted)\n", count, dt, count / dt / 1e6, x.best);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* the FasterTransformer (latency) rows' signed median error per batch-1 / batch >= 64 and PP 1 / PP > 1,
 * from validate --infer's per-row CSV (id,source_id,model,gpu,tp,pp,precision,batch_size,...,
 * measured_quantity,measured,predicted,error_pct,...) */
static void bench_infer_ft_buckets(const char *rows)
{
    enum { B1, B64, PP1, PPN, NB };
    static const char *const name[NB] = { "batch 1", "batch >= 64", "PP 1", "PP > 1" };
    double *v[NB] = { 0 };
    size_t n[NB] = { 0 }, cap = 0;
    for (const char *p = rows; p && *p; cap++) p = strchr(p, '\n') ? strchr(p, '\n') + 1 : "";
    for (int b = 0; b < NB; b++) v[b] = malloc((cap + 1) * sizeof *v[b]);
    for (const char *p = rows ? strchr(rows, '\n') : NULL; p && p[1]; p = strchr(p + 1, '\n')) {
        char line[1024];
        const char *end = strchr(p + 1, '\n');
        size_t len = end ? (size_t)(end - p - 1) : strlen(p + 1);
        if (len >= sizeof line) continue;
        memcpy(line, p + 1, len);
        line[len] = '\0';
        char *f[20] = { 0 }, *save = NULL;
        int k = 0;
        /* no field of these rows holds a comma except quoted model names, which precede the numbers we read */
        for (char *t = strtok_r(line, ",", &save); t && k < 20; t = strtok_r(NULL, ",", &save)) f[k++] = t;
        if (k < 14 || strcmp(f[10], "latency_ms")) continue;
        double err = atof(f[13]);
        int pp = atoi(f[5]), bs = atoi(f[7]);
        for (int b = 0; b < NB; b++) {
            bool in = b == B1 ? bs == 1 : b == B64 ? bs >= 64 : b == PP1 ? pp == 1 : pp > 1;
            if (in && v[b]) v[b][n[b]++] = err;
        }
    }
    printf("validate --infer FasterTransformer rows, signed median error (target within +-8%%):");
    for (int b = 0; b < NB; b++) {
        if (!n[b]) { printf(" %s -;", name[b]); continue; }
        qsort(v[b], n[b], sizeof *v[b], cmp_double);
        double med = n[b] % 2 ? v[b][n[b] / 2] : 0.5 * (v[b][n[b] / 2 - 1] + v[b][n[b] / 2]);
        printf(" %s %+.1f%% (%zu rows)%s", name[b], med, n[b], b + 1 < NB ? ";" : "");
    }
    printf("\n");
    for (int b = 0; b < NB; b++) free(v[b]);
}

/* the validator's own report: per-source table and final line for training, the
 * final line for inference (the per-row tables stay in `autoconfig validate`) */
static void bench_targets(const char *rows_csv);
static void bench_validate(void)
{
    const char *csv = "../shared/reference/benchmarks_train.csv";
    const char *csv_infer = "../shared/reference/benchmarks_infer.csv";
    FILE *f = fopen(csv, "r");
    if (!f) { printf("validate: %s not found, skipped\n", csv); return; }
    fclose(f);
    validate_summary s;
    ac_err e;
    printf("validate %s (targets: median 8%%, p90 25%%, S8 median 12%%, per-GPU signed median within +-10%%):\n", csv);
    fflush(stdout);
    char *rows = NULL;
    if (validate_train_csv(csv, NULL, &rows, NULL, stdout, false, &s, &e)) printf("validate: %s\n", e.msg);
    else bench_targets(rows);
    free(rows);
    /* the project's own published rows that are not in ../shared (validation/train_published.csv) */
    const char *own = "validation/train_published.csv";
    FILE *tmp_own = tmpfile();
    if (tmp_own) {
        validate_summary so;
        if (validate_train_csv(own, NULL, NULL, NULL, tmp_own, false, &so, &e)) printf("validate %s: %s\n", own, e.msg);
        else
            printf("validate %s (published, not in ../shared; targets as the held-out rows: median 10%%, p90 25%%): rows %d "
                   "skipped %d median_abs_err %.1f%% p90_abs_err %.1f%%\n", own, so.rows, so.skipped, 100 * so.median_abs_err,
                   100 * so.p90_abs_err);
        /* and per source, as validate prints its table */
        char line[256];
        bool in_sources = false;
        rewind(tmp_own);
        while (fgets(line, sizeof line, tmp_own)) {
            if (!strncmp(line, "source ", 7)) in_sources = true;
            else if (!strncmp(line, "gpu ", 4)) break;
            if (in_sources) printf("  %s", line);
        }
        /* and the memory lines: runs predicted to fit, and the published peaks */
        rewind(tmp_own);
        while (fgets(line, sizeof line, tmp_own))
            if (!strncmp(line, "memory: ", 8)) printf("  %s", line);
        fclose(tmp_own);
    }
    /* the project's own published serving rows that are not in ../shared (validation/infer_published.csv) */
    const char *own_infer = "validation/infer_published.csv";
    FILE *tmp_oi = tmpfile();
    if (tmp_oi) {
        if (infer_validate_csv(own_infer, NULL, NULL, tmp_oi, false, &e)) printf("validate --infer %s: %s\n", own_infer, e.msg);
        else {
            char line[512], last[512] = "";
            rewind(tmp_oi);
            while (fgets(line, sizeof line, tmp_oi))
                if (!strncmp(line, "rows ", 5)) snprintf(last, sizeof last, "%s", line + 5);
            printf("validate --infer %s (published, not in ../shared; targets as the held-out rows: median 12%%, p90 30%%): rows %s",
                   own_infer, last[0] ? last : "(no summary line)\n");
            /* and per source / GPU and per serving quantity, as validate prints them */
            bool in_sources = false;
            rewind(tmp_oi);
            while (fgets(line, sizeof line, tmp_oi)) {
                if (!strncmp(line, "skipped rows", 12) || !strncmp(line, "published OOM", 13) || !strncmp(line, "rows ", 5))
                    in_sources = false;
                if (in_sources || !strncmp(line, "serving ", 8)) printf("  %s", line);
                if (!strncmp(line, "source / GPU", 12)) in_sources = true;
            }
        }
        fclose(tmp_oi);
    }
    f = fopen(csv_infer, "r");
    if (!f) { printf("validate --infer: %s not found, skipped\n", csv_infer); return; }
    fclose(f);
    FILE *tmp = tmpfile();
    if (!tmp) return;
    rows = NULL;
    if (infer_validate_csv(csv_infer, NULL, &rows, tmp, false, &e)) {
        printf("validate --infer: %s\n", e.msg);
    } else {
        char line[512], last[512] = "";
        rewind(tmp);
        while (fgets(line, sizeof line, tmp))
            if (!strncmp(line, "rows ", 5) || !strncmp(line, "serving ", 8)) {
                if (line[0] == 's') printf("validate --infer %s", line);
                else snprintf(last, sizeof last, "%s", line);
            }
        printf("validate --infer %s (targets: median 12%%, p90 30%%): %s", csv_infer, last[0] ? last : "no summary line\n");
        bench_infer_ft_buckets(rows);
    }
    free(rows);
    fclose(tmp);
}

/* quantile of a copy */
static double q_of(const double *v, size_t n, double q)
{
    double *c = malloc((n ? n : 1) * sizeof *c);
    if (!c) return NAN;
    memcpy(c, v, n * sizeof *c);
    double x = stats_quantile(c, n, q);
    free(c);
    return x;
}

/* issue 24's accuracy targets from validate's per-row text: median and p90 of |error|,
 * S8's median, and the signed median (throughput sense: + = predicted too fast) per GPU */
static void bench_targets(const char *rows_csv)
{
    csv_table t;
    ac_err e;
    if (csv_parse(rows_csv, strlen(rows_csv), "rows", &t, &e)) { printf("targets: %s\n", e.msg); return; }
    int cs = csv_col(&t, "source_id"), cg = csv_col(&t, "gpu"), ce = csv_col(&t, "error_pct"), cq = csv_col(&t, "measured_quantity");
    double *all = malloc((t.n + 1) * sizeof *all), *s8 = malloc((t.n + 1) * sizeof *s8), *sg = malloc((t.n + 1) * sizeof *sg);
    size_t na = 0, n8 = 0;
    if (!all || !s8 || !sg) goto out;
    for (size_t i = 0; i < t.n; i++) {
        const char *ep = csv_get(&t.rows[i], ce);
        if (!*ep) continue;
        double err = atof(ep) / 100.0;
        all[na++] = fabs(err);
        if (!strcmp(csv_get(&t.rows[i], cs), "S8")) s8[n8++] = fabs(err);
    }
    double med = q_of(all, na, 0.5), p90 = q_of(all, na, 0.9), m8 = q_of(s8, n8, 0.5);
    printf("targets: shared CSV median %.1f%% (<= 8%%: %s), p90 %.1f%% (<= 25%%: %s), S8 median %.1f%% (<= 12%%: %s)\n",
           100 * med, med <= 0.08 ? "met" : "MISSED", 100 * p90, p90 <= 0.25 ? "met" : "MISSED", 100 * m8,
           m8 <= 0.12 ? "met" : "MISSED");
    /* per GPU signed medians */
    char seen[32][32];
    size_t ng = 0;
    for (size_t i = 0; i < t.n && ng < 32; i++) {
        const char *g = csv_get(&t.rows[i], cg);
        if (!*csv_get(&t.rows[i], ce)) continue;
        size_t j = 0;
        while (j < ng && strcmp(seen[j], g)) j++;
        if (j < ng) continue;
        snprintf(seen[ng++], sizeof seen[0], "%s", g);
        size_t k = 0;
        for (size_t r = 0; r < t.n; r++) {
            const char *ep = csv_get(&t.rows[r], ce);
            if (!*ep || strcmp(csv_get(&t.rows[r], cg), g)) continue;
            double err = atof(ep) / 100.0;
            /* step-time rows: predicted/published time - 1, turned into the throughput sense */
            sg[k++] = !strcmp(csv_get(&t.rows[r], cq), "step_time_s") ? 1.0 / (1.0 + err) - 1.0 : err;
        }
        double m = q_of(sg, k, 0.5);
        printf("targets: %-10s signed median %+.1f%% over %zu rows (within +-10%%: %s)\n", g, 100 * m, k,
               fabs(m) <= 0.10 ? "met" : "MISSED");
    }
out:
    free(all);
    free(s8);
    free(sg);
    csv_free(&t);
}

/* the original's NeMo Megatron figures on DGX A100-80GB (bignlp-scripts README §7.1.2) at
 * the layouts its launcher configs of that release state, on the 2022 stack */
static void bench_original_figures(void)
{
    static const struct {
        const char *name;
        int layers, hidden, heads, nodes, tp, pp, mbs, gbs, zero;
        bool sp, selective;
        double published;
    } runs[] = {
        {"GPT-3 5B, 1 node", 24, 4096, 32, 1, 2, 1, 2, 1440, 0, false, false, 39543},
        {"GPT-3 5B, 20 nodes", 24, 4096, 32, 20, 2, 1, 2, 1440, 0, false, false, 731791},
        {"GPT-3 175B, 16 nodes", 96, 12288, 96, 16, 8, 8, 2, 2048, 1, true, true, 20642},
        {"GPT-3 175B, 32 nodes", 96, 12288, 96, 32, 8, 8, 2, 2048, 1, true, true, 38025},
        {"GPT-3 175B, 128 nodes", 96, 12288, 96, 128, 8, 8, 2, 2048, 1, true, true, 141306},
    };
    gpu_catalog_load(NULL);
    const est_stack *st = est_stack_find("nemo-megatron-2022");
    int within = 0;
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
        model_shape s = {0};
        s.arch = ARCH_DECODER;
        s.num_layers = runs[i].layers; s.hidden = runs[i].hidden; s.heads = runs[i].heads; s.query_groups = runs[i].heads;
        s.kv_channels = runs[i].hidden / runs[i].heads; s.ffn_hidden = 4 * runs[i].hidden; s.vocab = 51200;
        s.seq_length = 2048; s.learned_pos_emb = true;
        est_input in;
        est_input_init(&in, &s, gpu_find("a100_80gb"));
        est_stack_apply(&in, st);
        in.num_gpus = 8 * runs[i].nodes;
        in.tp = runs[i].tp; in.pp = runs[i].pp; in.mbs = runs[i].mbs; in.gbs = runs[i].gbs;
        in.zero_stage = runs[i].zero;
        in.sequence_parallel = runs[i].sp;
        in.recompute = runs[i].selective ? RECOMPUTE_SELECTIVE : RECOMPUTE_NONE;
        est_result r;
        if (est_evaluate(&in, &r)) { printf("original %s: %s\n", runs[i].name, r.why); continue; }
        double err = r.tokens_per_s / runs[i].published - 1.0;
        within += fabs(err) <= 0.15;
        printf("original (nemo-megatron-2022) %-22s predicted %8.0f tokens/s, published %8.0f: %+.1f%% (within 15%%: %s)\n",
               runs[i].name, r.tokens_per_s, runs[i].published, 100 * err, fabs(err) <= 0.15 ? "met" : "MISSED");
    }
    printf("original figures within 15%%: %d of 5\n", within);
}

int main(void)
{
    bench_evals();
    bench_exhaustive();
    bench_presets();
    bench_validate();
    bench_original_figures();
    return 0;
}
