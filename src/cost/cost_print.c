/* cost_print.c — the cost search as tables a person reads: per GPU type every
 * count searched (its best setup, or what does not fit and by how much), the
 * rankings, the constrained answer and the chosen setup.  Every number is
 * labelled predicted. */
#include <math.h>
#include <stdio.h>

#include "cost/cost.h"

static const char *task_text(cost_task t)
{
    return t == COST_PRETRAIN ? "pre-training" : t == COST_LORA ? "LoRA fine-tuning" : "full fine-tuning";
}

static void knobs_text(const cost_request *rq, const cost_option *o, char *buf, size_t len)
{
    const cost_knobs *k = &o->k;
    const char *off = k->offload_optimizer && k->offload_params ? " +offload opt,params"
                      : k->offload_optimizer                    ? " +offload opt"
                      : k->offload_params                       ? " +offload params"
                                                                : "";
    if (k->tp > 1 || k->pp > 1)
        snprintf(buf, len, "TP%d PP%d DP%d%s mbs %d ga %d ckpt %s", k->tp, k->pp, o->dp, k->zero ? " dist-opt" : "", k->mbs,
                 o->grad_accum, k->checkpointing ? "on" : "off");
    else
        snprintf(buf, len, "%s%s mbs %d ga %d ckpt %s%s", cost_shard_name(rq, k), off, k->mbs, o->grad_accum,
                 k->checkpointing ? "on" : "off", o->rank0_inst ? " +rank0*" : "");
}

static void print_row(FILE *out, const cost_request *rq, const cost_option *o)
{
    char kb[96];
    knobs_text(rq, o, kb, sizeof kb);
    fprintf(out, "  %-13s %4d  %-40s %5.1f/%-5.1f %6.0f/%-4.0f %8.3f %5.1f%% %9.1f %8.2f %10.0f\n", cost_pool_name(&rq->pools[o->k.pool]), o->k.num_gpus, kb,
            o->gpu_mem_gib, o->gpu_limit_gib, o->cpu_mem_node_gib, o->cpu_limit_gib, o->mtok_per_hour, 100.0 * o->mfu, o->hours,
            o->usd_per_mtok, o->usd_total);
}

static void print_header(FILE *out)
{
    fprintf(out, "  %-13s %4s  %-40s %11s %11s %8s %6s %9s %8s %10s\n", "GPU", "GPUs", "setup", "GPU GiB", "host GiB", "MT/hr", "MFU",
            "hours", "$/MT", "$ run");
}

/* what a worker instance of the option's pool offers (GiB usable) */
static double host_usable(const cost_request *rq, const cost_option *o)
{
    return cost_host_limit_gib(rq, rq->pools[o->k.pool].inst);
}

void cost_print(FILE *out, const cost_request *rq, const cost_result *r)
{
    double params = r->n ? r->opt[0].est.params_b : 0.0;
    fprintf(out, "Cost search for %s (%.2fB parameters), %s", rq->model.name, params, task_text(rq->task));
    if (rq->task == COST_LORA) fprintf(out, " (rank %d on %s)", rq->lora_rank, rq->lora_modules);
    fprintf(out, ", context %d, %.3gB tokens, global batch %d sequences, %s\n", rq->context, rq->tokens_b, rq->gbs,
            est_precision_name(rq->precision));
    fprintf(out, "All figures are predicted by the analytical estimator, not measured. %zu setups scored, %zu fit.\n",
            r->n_evaluated, r->n_feasible);
    fprintf(out, "MFU convention: %s.\n", COST_MFU_CONVENTION);
    fprintf(out, "GPU GiB: needed/usable per GPU; host GiB: needed/usable per node (offloaded states, rank-0 checkpoint "
                 "gather; %d GB RAM per node for GPU types, the instance's RAM for instances); MT/hr: million tokens per hour.\n",
            (int)rq->cpu_mem_node_gb);
    {
        const est_stack *st = cost_stack_of(rq);
        long c0 = cost_chosen(r, rq);
        fprintf(out, "Stack: %s (the trainer the written files configure%s).\n", st ? st->name : "megatron-core",
                rq->stack ? ", named by --framework" : "; --framework names another");
        fprintf(out, "Ties: setups within the ranking band of their GPU and stack (%.1f %% for the chosen one, data/bands.csv "
                     "rank_band_rel) of each other's $ per million tokens rank by time (the faster wins).\n",
                c0 >= 0 ? 100.0 * cost_tie_band(&r->opt[c0]) : 0.0);
    }
    if (rq->rank0)
        fprintf(out, "+rank0*: rank 0 runs on a %s (%.0f GiB RAM) because node 0, which gathers the checkpoint, does not fit "
                     "the worker instance's RAM.\n",
                rq->rank0->name, rq->rank0->host_ram_gib);

    for (int p = 0; p < rq->n_pools; p++) {
        const cost_pool *pool = &rq->pools[p];
        if (pool->inst)
            fprintf(out, "\n%s (%d x %s, %.0f GiB RAM, %s) at $%.2f per instance-hour ($%.2f per GPU-hour%s), %d-%d GPUs (predicted):\n",
                    pool->inst->name, pool->inst->gpus, pool->gpu->name, pool->inst->host_ram_gib, pool->inst->interconnect,
                    pool->price * pool->inst->gpus, pool->price, pool->inst->price_from_catalog ? ", the GPU catalog's price" : "",
                    pool->inst->gpus, pool->max_gpus);
        else
            fprintf(out, "\n%s at $%.2f per GPU-hour, 1-%d GPUs (predicted):\n", pool->gpu->name, pool->price, pool->max_gpus);
        print_header(out);
        for (size_t i = 0; i < r->n; i++) {
            const cost_option *o = &r->opt[i];
            if (o->k.pool != p) continue;
            if (o->feasible) {
                print_row(out, rq, o);
            } else {
                char kb[96];
                knobs_text(rq, o, kb, sizeof kb);
                fprintf(out, "  %-13s %4d  does not fit: %s (nearest: %s)\n", cost_pool_name(pool), o->k.num_gpus, o->why, kb);
            }
        }
        long b = r->best_per_pool[p];
        if (b >= 0)
            fprintf(out, "  cheapest on %s: %s, $%.2f per million tokens, %.1f h, $%.0f for the run (predicted)\n", cost_pool_name(pool),
                    r->opt[b].label, r->opt[b].usd_per_mtok, r->opt[b].hours, r->opt[b].usd_total);
        else
            fprintf(out, "  nothing fits on %s with up to %d GPUs\n", cost_pool_name(pool), pool->max_gpus);
    }

    size_t top = r->n_ranked < 10 ? r->n_ranked : 10;
    if (top) {
        fprintf(out, "\nRanked by $ per million tokens (predicted; top %zu of %zu):\n", top, r->n_ranked);
        print_header(out);
        for (size_t j = 0; j < top; j++) print_row(out, rq, &r->opt[r->by_cost[j]]);
        fprintf(out, "\nRanked by time to train (predicted; top %zu of %zu):\n", top, r->n_ranked);
        print_header(out);
        for (size_t j = 0; j < top; j++) print_row(out, rq, &r->opt[r->by_time[j]]);
    }
    if (rq->deadline_hours > 0 || rq->budget_usd > 0) {
        char cond[96];
        if (rq->deadline_hours > 0 && rq->budget_usd > 0)
            snprintf(cond, sizeof cond, "within %.1f h and $%.*f", rq->deadline_hours, rq->budget_usd < 10 ? 2 : 0, rq->budget_usd);
        else if (rq->deadline_hours > 0)
            snprintf(cond, sizeof cond, "cheapest within a %.1f h deadline", rq->deadline_hours);
        else
            snprintf(cond, sizeof cond, "fastest within a $%.*f budget", rq->budget_usd < 10 ? 2 : 0, rq->budget_usd);
        if (r->best_constrained >= 0) {
            const cost_option *o = &r->opt[r->best_constrained];
            fprintf(out, "\n%s: %s, %.1f h, $%.0f, $%.2f per million tokens (predicted)\n", cond, o->label, o->hours, o->usd_total,
                    o->usd_per_mtok);
        } else {
            fprintf(out, "\n%s: no feasible setup meets it", cond);
            if (r->best_time >= 0)
                fprintf(out, " (fastest: %.1f h for $%.0f; cheapest: $%.0f in %.1f h)", r->opt[r->best_time].hours,
                        r->opt[r->best_time].usd_total, r->opt[r->best_cost].usd_total, r->opt[r->best_cost].hours);
            fprintf(out, "\n");
        }
    }
    long c = cost_chosen(r, rq);
    if (c >= 0) {
        const cost_option *o = &r->opt[c];
        char kb[96];
        knobs_text(rq, o, kb, sizeof kb);
        fprintf(out, "\nChosen setup (predicted): %d x %s (%d node%s), %s, context %d, %.0f optimizer steps\n", o->k.num_gpus,
                o->gpu->name, o->nodes, o->nodes == 1 ? "" : "s", kb, rq->context, ceil(o->optimizer_steps));
        fprintf(out, "  %.2f million tokens/hour, MFU %.1f%% (HFU %.1f%%), %.1f h, $%.2f per million tokens, $%.0f for %.3gB tokens\n",
                o->mtok_per_hour, 100.0 * o->mfu, 100.0 * o->hfu, o->hours, o->usd_per_mtok, o->usd_total, rq->tokens_b);
        fprintf(out, "  cookbook MFU (6 x parameters x tokens / time / dense peak) %.1f%%\n", 100.0 * cost_cookbook_mfu(rq, o));
        /* the attention kernel the prediction assumes, and the other one: packed sequences call SDPA
         * with is_causal (FlashAttention-2); a 4-D mask (padded batches, Transformers 4.38-4.39) sends
         * it to the memory-efficient kernel over the full square (data/stacks.csv masked_attn_eff_ratio) */
        const est_stack *st = cost_stack_of(rq);
        if (st && st->masked_attn_eff_ratio > 0 && !rq->attn_explicit_mask) {
            cost_request masked = *rq;
            masked.attn_explicit_mask = true;
            cost_option m;
            ac_err e;
            if (!cost_evaluate(&masked, &o->k, &m, &e))
                fprintf(out, "  attention: causal FlashAttention-2 on packed sequences, as the files configure; batches with padding "
                             "(or Transformers 4.38-4.39) run SDPA's memory-efficient kernel: %.2f million tokens/hour, $%.2f per "
                             "million tokens (predicted)\n",
                        m.mtok_per_hour, m.usd_per_mtok);
        }
        /* how far the prediction may be off: the band of this GPU and stack (data/bands.csv), or
         * that no validated runs of them exist */
        char band[320];
        cost_band_text(rq, o, band, sizeof band);
        fprintf(out, "  uncertainty of the step time: %s\n", band);
        fprintf(out, "  GPU memory %.1f of %.1f GiB usable; host memory %.0f of %.0f GiB per node (incl. %.1f GiB rank-0 "
                     "checkpoint gather)\n",
                o->gpu_mem_gib, o->gpu_limit_gib, o->cpu_mem_node_gib, o->cpu_limit_gib, o->rank0_gather_gib);
        if (rq->pools[o->k.pool].inst)
            fprintf(out, "  on %d x %s%s%s, $%.2f per GPU-hour\n", o->nodes, rq->pools[o->k.pool].inst->name,
                    o->rank0_inst ? " with rank 0 on a " : "", o->rank0_inst ? o->rank0_inst->name : "", o->price);
        if (o->rank0_makes_fit)
            fprintf(out, "  fits because rank 0 runs on a %s: node 0 needs %.0f GiB of host memory with the %.0f GiB checkpoint gather, "
                         "more than the %.0f GiB a %s offers (a heterogeneous rank 0, as Ray-based stacks allow)\n",
                    o->rank0_inst->name, o->cpu_mem_node_gib, o->rank0_gather_gib, host_usable(rq, o), rq->pools[o->k.pool].inst->name);
        if (r->chosen_why[0]) fprintf(out, "  why: %s\n", r->chosen_why);
    }
}
