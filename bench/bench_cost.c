/* bench_cost.c — the cost stage's figures for docs/cost.md (make bench):
 *   1. the worked example: Llama-2-7B, Llama-2-70B and Mixtral-8x7B, full
 *      fine-tuning and LoRA, cheapest setup on up to 8 x A100-80GB and on up
 *      to 64 A10G (catalog prices), with MT/hr, MFU and $/MT, and the time of
 *      each search (target < 1 s)
 *   2. predictions of published fine-tuning/training measurements that are
 *      not in ../shared (the setup as published, not the search's choice):
 *      published, predicted and the error. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cost/cost.h"
#include "estimator/gpu.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static model_shape decoder(int L, int h, int F, int a, int g, int V, int seq, bool gated, bool untied)
{
    model_shape s = {0};
    s.arch = ARCH_DECODER;
    s.num_layers = L;
    s.hidden = h;
    s.ffn_hidden = F;
    s.heads = a;
    s.query_groups = g;
    s.kv_channels = h / a;
    s.vocab = V;
    s.seq_length = seq;
    s.gated_mlp = gated;
    s.untied_embeddings = untied;
    return s;
}

static cost_request request(const char *name, model_shape s, cost_task task)
{
    cost_model m = {0};
    snprintf(m.name, sizeof m.name, "%s", name);
    m.shape = s;
    m.max_context = s.seq_length;
    cost_request rq;
    cost_request_init(&rq, &m);
    rq.task = task;
    rq.context = s.seq_length;
    rq.tokens_b = 1.0;
    rq.gbs = 64;
    return rq;
}

/* issue 29: the three models on one 8-GPU instance each (catalog on-demand prices) */
static void instances_table(void)
{
    model_shape mixtral = decoder(32, 4096, 14336, 32, 8, 32000, 4096, true, true);
    mixtral.num_experts = 8;
    mixtral.moe_topk = 2;
    mixtral.moe_ffn_hidden = 14336;
    struct {
        const char *name;
        model_shape s;
    } models[] = {
        {"Llama-2-7B", decoder(32, 4096, 11008, 32, 32, 32000, 4096, true, true)},
        {"Llama-2-70B", decoder(80, 8192, 28672, 64, 8, 32000, 4096, true, true)},
        {"Mixtral-8x7B", mixtral},
    };
    static const char *const INST[] = {"p4de.24xlarge:40.9657:1", "g5.48xlarge:16.288:1", "p5.48xlarge:98.32:1"};
    printf("One 8-GPU instance (data/instances.csv on-demand prices; predicted on the default stacks: Megatron-Core for TP/PP, Hugging Face + DeepSpeed otherwise; band: 80 %% of validated runs of that GPU and stack): context 4096, 1B tokens, "
           "global batch 64, bf16.\nMFU: ours (6N or 4N for LoRA + attention, no recompute); cookbook: 6 x parameters x tokens / time / "
           "dense peak (MoE: active parameters).\n");
    printf("| model | task | instance | chosen setup | MT/hr | band | MFU | cookbook MFU | $/MT | why |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < sizeof models / sizeof *models; i++)
        for (int t = COST_FULL; t <= COST_LORA; t++)
            for (size_t p = 0; p < sizeof INST / sizeof *INST; p++) {
                cost_request rq = request(models[i].name, models[i].s, (cost_task)t);
                ac_err e;
                if (cost_pool_instance_parse(INST[p], 8, NULL, &rq.pools[0], &e)) {
                    printf("instance: %s\n", e.msg);
                    return;
                }
                rq.n_pools = 1;
                cost_result r;
                if (cost_search(&rq, &r, &e)) {
                    printf("search failed: %s\n", e.msg);
                    continue;
                }
                long c = cost_chosen(&r, &rq);
                if (c >= 0) {
                    const cost_option *o = &r.opt[c];
                    char band[24] = "—";
                    if (est_band_rel(&o->est) > 0) snprintf(band, sizeof band, "±%.0f%% (%d runs)", 100 * est_band_rel(&o->est), o->est.band_rows);
                    printf("| %s | %s | %s | %s | %.2f | %s | %.1f%% | %.1f%% | %.3f | %s |\n", models[i].name, cost_task_name(rq.task),
                           rq.pools[0].inst->name, o->label, o->mtok_per_hour, band, 100 * o->mfu, 100 * cost_cookbook_mfu(&rq, o),
                           o->usd_per_mtok, r.chosen_why);
                } else {
                    printf("| %s | %s | %s | does not fit: %s | | | | | | |\n", models[i].name, cost_task_name(rq.task),
                           rq.pools[0].inst->name, r.n ? r.opt[0].why : "no setup");
                }
                cost_result_free(&r);
            }
    printf("\n");
}

static void worked_example(void)
{
    model_shape mixtral = decoder(32, 4096, 14336, 32, 8, 32000, 4096, true, true);
    mixtral.num_experts = 8;
    mixtral.moe_topk = 2;
    mixtral.moe_ffn_hidden = 14336;
    struct {
        const char *name;
        model_shape s;
    } models[] = {
        {"Llama-2-7B", decoder(32, 4096, 11008, 32, 32, 32000, 4096, true, true)},
        {"Llama-2-70B", decoder(80, 8192, 28672, 64, 8, 32000, 4096, true, true)},
        {"Mixtral-8x7B", mixtral},
    };
    printf("Worked example (predicted): context 4096, 1B tokens, global batch 64 sequences, bf16, catalog prices\n");
    printf("| model | task | GPUs | cheapest setup | GPU GiB | MT/hr | MFU | $/MT | hours for 1B tokens |\n|---|---|---|---|---|---|---|---|---|\n");
    double worst = 0;
    for (size_t i = 0; i < sizeof models / sizeof *models; i++)
        for (int t = COST_FULL; t <= COST_LORA; t++) {
            cost_request rq = request(models[i].name, models[i].s, (cost_task)t);
            ac_err e;
            cost_pool_parse("a100_80gb:1.79:8", 8, NULL, &rq.pools[0], &e);
            cost_pool_parse("a10g:1.01:64", 64, NULL, &rq.pools[1], &e);
            rq.n_pools = 2;
            cost_result r;
            double t0 = now();
            if (cost_search(&rq, &r, &e)) {
                printf("search failed: %s\n", e.msg);
                continue;
            }
            double dt = now() - t0;
            if (dt > worst) worst = dt;
            for (int p = 0; p < 2; p++) {
                long b = r.best_per_pool[p];
                if (b >= 0) {
                    const cost_option *o = &r.opt[b];
                    printf("| %s | %s | %s | %s | %.1f | %.2f | %.1f%% | %.3f | %.1f |\n", models[i].name, cost_task_name(rq.task),
                           rq.pools[p].gpu->name, o->label, o->gpu_mem_gib, o->mtok_per_hour, 100 * o->mfu, o->usd_per_mtok,
                           o->hours);
                } else {
                    /* nearest miss of the largest count */
                    const cost_option *m = NULL;
                    for (size_t j = 0; j < r.n; j++)
                        if (r.opt[j].k.pool == p) m = &r.opt[j];
                    printf("| %s | %s | %s | does not fit: %s | | | | | |\n", models[i].name, cost_task_name(rq.task),
                           rq.pools[p].gpu->name, m ? m->why : "no setup");
                }
            }
            cost_result_free(&r);
        }
    printf("slowest search: %.1f ms (target < 1000 ms)\n\n", worst * 1e3);
}

typedef struct {
    const char *source, *what;
    model_shape s;
    cost_task task;
    int lora_rank;
    const char *lora_modules;
    const char *gpu;
    int gpus, mbs, gbs, zero;
    bool ckpt;
    double published_tok_s_gpu, published_mfu; /* mfu 0 = not published */
} published_row;

static void published(void)
{
    published_row rows[] = {
        {"mosaicml/llm-foundry scripts/train/benchmarking/README.md (A100 80GB table)", "MPT-7B, FSDP full shard, ckpt on, seq 4096",
         decoder(32, 4096, 16384, 32, 32, 50432, 4096, false, false), COST_FULL, 0, NULL, "a100_80gb", 8, 16, 256, 3, true,
         3684, 0.5484},
        {"mosaicml/llm-foundry (same table)", "MPT-7B, FSDP full shard, no ckpt, seq 2048",
         decoder(32, 4096, 16384, 32, 32, 50432, 2048, false, false), COST_FULL, 0, NULL, "a100_80gb", 8, 6, 96, 3, false, 4641,
         0.6423},
        {"mosaicml/llm-foundry (same table)", "MPT-30B, FSDP full shard, ckpt on, seq 4096",
         decoder(48, 7168, 28672, 64, 64, 50432, 4096, false, false), COST_FULL, 0, NULL, "a100_80gb", 8, 1, 168, 3, true, 814,
         0.5137},
        {"mosaicml/llm-foundry (same table)", "MPT-70B, FSDP full shard, ckpt on, seq 2048, 64 GPUs",
         decoder(80, 8192, 32768, 64, 64, 50432, 2048, false, false), COST_FULL, 0, NULL, "a100_80gb", 64, 8, 2048, 3, true, 410,
         0.5333},
        {"mosaicml/llm-foundry (A100 40GB table)", "MPT-7B, FSDP full shard, ckpt on, seq 4096",
         decoder(32, 4096, 16384, 32, 32, 50432, 4096, false, false), COST_FULL, 0, NULL, "a100_40gb", 8, 6, 192, 3, true, 3366,
         0.5011},
        {"QwenLM/Qwen README, Profiling of Memory and Speed", "Qwen-7B LoRA r64 all linear, 1 GPU, mbs 1, GA 8, seq 4096 (10.1 s/it)",
         decoder(32, 4096, 11008, 32, 32, 151936, 4096, true, true), COST_LORA, 64, "all-linear", "a100_80gb", 1, 1, 8, 0, true,
         8 * 4096 / 10.1, 0},
        {"QwenLM/Qwen README (same table)", "Qwen-7B LoRA r64 all linear, 1 GPU, mbs 1, GA 8, seq 2048 (5.2 s/it)",
         decoder(32, 4096, 11008, 32, 32, 151936, 2048, true, true), COST_LORA, 64, "all-linear", "a100_80gb", 1, 1, 8, 0, true,
         8 * 2048 / 5.2, 0},
    };
    printf("Published measurements (not in ../shared) against predictions of the same setup\n");
    printf("| source | setup | GPUs | published tok/s/GPU | predicted tok/s/GPU | error | published MFU | predicted MFU |\n"
           "|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        published_row *p = &rows[i];
        cost_request rq = request(p->what, p->s, p->task);
        rq.gbs = p->gbs;
        ac_err e;
        if (p->task == COST_LORA) {
            rq.lora_rank = p->lora_rank;
            snprintf(rq.lora_modules, sizeof rq.lora_modules, "%s", p->lora_modules);
            cost_lora_targets(rq.lora_modules, &rq.model.shape, &rq.lora_targets, &e);
        }
        cost_pool_parse(p->gpu, p->gpus, NULL, &rq.pools[0], &e);
        rq.n_pools = 1;
        cost_knobs k = {0, p->gpus, 1, 1, p->mbs, p->zero, false, false, p->ckpt};
        cost_option o;
        if (cost_evaluate(&rq, &k, &o, &e)) {
            printf("| %s | %s | %s | cannot evaluate: %s |\n", p->source, p->what, p->gpu, e.msg);
            continue;
        }
        double pred = o.tokens_per_s / p->gpus;
        char pm[16] = "—";
        if (p->published_mfu > 0) snprintf(pm, sizeof pm, "%.1f%%", 100 * p->published_mfu);
        printf("| %s | %s | %d x %s | %.0f | %.0f | %+.0f%% | %s | %.1f%%%s |\n", p->source, p->what, p->gpus, p->gpu,
               p->published_tok_s_gpu, pred, 100.0 * (pred - p->published_tok_s_gpu) / p->published_tok_s_gpu, pm, 100 * o.mfu,
               o.feasible ? "" : " (predicted not to fit)");
    }
}

int main(void)
{
    ac_err e;
    if (gpu_catalog_load(&e)) return 1;
    worked_example();
    instances_table();
    published();
    return 0;
}
