/* cost_measure.c — benchmark jobs of the top cost setups and their measured $/MT. */
#include "cost/cost_measure.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fsutil.h"
#include "util/shell.h"
#include "util/strbuf.h"

const char COST_TRAINER_DEFAULT[] =
    "accelerate launch --config_file {accelerate_config} --num_processes {num_gpus} --num_machines {nodes} "
    "--machine_rank {node_rank} --main_process_ip {master_addr} --main_process_port {master_port} "
    "--num_cpu_threads_per_process {cpu_threads} "
    "-m trl.scripts.sft --model_name_or_path {model} --attn_implementation sdpa --dataset_name trl-lib/Capybara --packing true --max_length {context} "
    "--max_steps {max_steps} --per_device_train_batch_size {mbs} --gradient_accumulation_steps {grad_accum} "
    "--gradient_checkpointing {gradient_checkpointing} --bf16 true --logging_steps 1 --save_strategy no --report_to none "
    "--output_dir {run_dir}/out";

/* the placeholders known only on the node when the job runs, so they become double-quoted
 * shell variables (never literal text): the rendezvous, which run.sh sets, and the CPU threads
 * per process, which launch.sh sets (launch_cpu_threads) */
static const char *const RUNTIME_VARS[][2] = {{"node_rank", "\"$NODE_RANK\""},
                                              {"master_addr", "\"$MASTER_ADDR\""},
                                              {"master_port", "\"$MASTER_PORT\""},
                                              {"cpu_threads", "\"$CPU_THREADS_PER_PROCESS\""}};

/* CPU threads per rank, computed on the node: the CPUs the job may use (nproc: the Slurm
 * allocation's cpuset, else the host's) split over the node's ranks, at least 1.  DeepSpeedCPUAdam
 * updates each rank's optimizer shard in an OpenMP loop (csrc/adam: `#pragma omp parallel for` per
 * tile) of OMP_NUM_THREADS threads; `accelerate launch` sets OMP_NUM_THREADS to
 * --num_cpu_threads_per_process, 1 unless given (accelerate/utils/launch.py), so by default an
 * offloaded rank updates on one core, while the estimator's CPU Adam is a host rate the node's
 * ranks share (est.c optimizer_step_s).  The split is the `deepspeed` launcher's own
 * --bind_cores_to_rank rule (cores // local ranks; launcher/launch.py), without its oversubscribed
 * default of every rank taking every thread.  CPU_THREADS_PER_PROCESS in the environment wins. */
static void launch_cpu_threads(strbuf *b, int ranks_per_node)
{
    sb_printf(b, "# CPU Adam's OpenMP threads per rank: the job's CPUs over this node's %d rank(s)\n", ranks_per_node);
    /* under srun a step without --cpus-per-task sees one CPU in nproc: the node's allocation
     * (SLURM_CPUS_ON_NODE) is what the ranks share */
    sb_printf(b, "CPU_THREADS_PER_PROCESS=${CPU_THREADS_PER_PROCESS:-$(( ${SLURM_CPUS_ON_NODE:-$(nproc)} / %d ))}\n",
              ranks_per_node);
    sb_printf(b, "[ \"$CPU_THREADS_PER_PROCESS\" -ge 1 ] 2>/dev/null || CPU_THREADS_PER_PROCESS=1\n");
}

size_t cost_measure_pick(const cost_result *r, size_t top, size_t *idx)
{
    size_t n = 0;
    for (size_t j = 0; j < r->n_ranked && n < top; j++) {
        const cost_option *o = &r->opt[r->by_cost[j]];
        if (o->k.tp == 1 && o->k.pp == 1) idx[n++] = r->by_cost[j];
    }
    return n;
}

void cost_measure_name(const cost_request *rq, const cost_option *o, size_t k, char *buf, size_t len)
{
    const cost_knobs *kn = &o->k;
    snprintf(buf, len, "cost_%zu_%dx%s_z%d%s%s_mbs%d_ga%d%s", k + 1, kn->num_gpus, cost_pool_name(&rq->pools[kn->pool]), kn->zero,
             kn->offload_optimizer ? "_offopt" : "", kn->offload_params ? "_offpar" : "", kn->mbs, o->grad_accum,
             kn->checkpointing ? "_ckpt" : "");
}

/* the index of the placeholder name[0..len) in a {name, value} table of n, or n */
static size_t placeholder_index(const char *const (*table)[2], size_t n, const char *name, size_t len)
{
    size_t i = 0;
    while (i < n && (strlen(table[i][0]) != len || strncmp(name, table[i][0], len))) i++;
    return i;
}

/* the template with each {placeholder} replaced by its shell-quoted value (the rendezvous ones
 * by their shell variables, RUNTIME_VARS) */
static int render(const char *tmpl, const char *const (*vars)[2], size_t nv, strbuf *out, ac_err *e)
{
    size_t nr = sizeof RUNTIME_VARS / sizeof *RUNTIME_VARS;
    for (const char *p = tmpl; *p;) {
        if (*p != '{') {
            sb_addn(out, p, 1);
            p++;
            continue;
        }
        const char *close = strchr(p, '}');
        size_t len = close ? (size_t)(close - p - 1) : 0;
        size_t i = close ? placeholder_index(vars, nv, p + 1, len) : nv;
        size_t r = close && i == nv ? placeholder_index(RUNTIME_VARS, nr, p + 1, len) : nr;
        if (i == nv && r == nr)
            return ac_err_set(e, AC_E_INPUT, "trainer command: unknown placeholder '%.*s'", close ? (int)(close - p + 1) : 1, p);
        if (i < nv) {
            if (shell_quote_add(out, vars[i][1], e)) return -1;
        } else {
            sb_add(out, RUNTIME_VARS[r][1]);
        }
        p = close + 1;
    }
    return 0;
}

int cost_measure_write(const cost_request *rq, const cost_option *o, const char *run_dir, int max_steps, const char *command_template,
                       char *script_path, size_t len, ac_err *e)
{
    char *ds = NULL, *args = NULL, *forge = NULL, *accel = NULL;
    int rc = -1;
    strbuf sb, launch;
    sb_init(&sb);
    sb_init(&launch);
    if (fs_mkdir_p(run_dir, e) || cost_deepspeed_json(rq, o, &ds, e) || cost_train_args_json(rq, o, max_steps, &args, e)  /* the benchmark: max_steps steps */ ||
        cost_llmforge_yaml(rq, o, true, &forge, e) || cost_accelerate_yaml(rq, o, &accel, e))
        goto out;
    if (fs_write_text_in(run_dir, "ds_config.json", ds, e) || fs_write_text_in(run_dir, "train_args.json", args, e) ||
        fs_write_text_in(run_dir, "llmforge.yaml", forge, e) || fs_write_text_in(run_dir, "accelerate_config.yaml", accel, e))
        goto out;
    char dsp[4096], tap[4096], fgp[4096], acp[4096], nums[9][32];
    if (fs_join(dsp, sizeof dsp, run_dir, "ds_config.json", e) || fs_join(tap, sizeof tap, run_dir, "train_args.json", e) ||
        fs_join(fgp, sizeof fgp, run_dir, "llmforge.yaml", e) || fs_join(acp, sizeof acp, run_dir, "accelerate_config.yaml", e))
        goto out;
    snprintf(nums[0], sizeof nums[0], "%d", max_steps);
    snprintf(nums[1], sizeof nums[1], "%d", o->k.num_gpus);
    snprintf(nums[2], sizeof nums[2], "%d", o->nodes);
    int per_node = o->nodes > 0 ? o->k.num_gpus / o->nodes : o->k.num_gpus;
    snprintf(nums[3], sizeof nums[3], "%d", per_node);
    snprintf(nums[4], sizeof nums[4], "%d", o->k.mbs);
    snprintf(nums[5], sizeof nums[5], "%d", o->grad_accum);
    snprintf(nums[6], sizeof nums[6], "%d", rq->context);
    const char *const vars[][2] = {{"ds_config", dsp},      {"train_args", tap},  {"llmforge", fgp},   {"accelerate_config", acp},
                                   {"run_dir", run_dir},
                                   {"model", rq->model.name}, {"max_steps", nums[0]}, {"num_gpus", nums[1]}, {"nodes", nums[2]},
                                   {"gpus_per_node", nums[3]}, {"mbs", nums[4]},     {"grad_accum", nums[5]}, {"context", nums[6]},
                                   {"gradient_checkpointing", o->k.checkpointing ? "true" : "false"}};
    /* launch.sh: one node's trainer command; NODE_RANK, MASTER_ADDR and MASTER_PORT come from run.sh */
    sb_printf(&launch, "#!/bin/bash\n# one node's launcher (autoconfig cost --measure): NODE_RANK, MASTER_ADDR, MASTER_PORT from run.sh\n");
    launch_cpu_threads(&launch, per_node > 0 ? per_node : 1);
    if (render(command_template, vars, sizeof vars / sizeof *vars, &launch, e)) goto out;
    sb_add(&launch, "\n");
    char *qdir = shell_quote_dup(run_dir, e);
    if (!qdir) goto out;
    sb_printf(&sb, "#!/bin/bash\n# benchmark of a cost setup (autoconfig cost --measure): %s\n# %d optimizer steps, every sequence "
                   "%d tokens (packing / padding max_length); predicted %.3f s per step\n",
              o->label, max_steps, rq->context, o->step_time_s);
    sb_printf(&sb, "cd %s || exit 1\nexport MASTER_PORT=${MASTER_PORT:-29500}\n", qdir);
    free(qdir);
    if (o->nodes > 1) {
        /* a setup that spans instances: one launcher per node (srun, one task on each of the job's
         * nodes), its rank from Slurm, the rendezvous on the first node of the allocation
         * (torchrun/accelerate --machine_rank, --main_process_ip, --main_process_port) */
        sb_printf(&sb, "# %d nodes: one launcher per node, rank from SLURM_NODEID, rendezvous on the allocation's first node\n",
                  o->nodes);
        sb_printf(&sb, "export MASTER_ADDR=${MASTER_ADDR:-$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)}\n");
        sb_printf(&sb, "(\nsrun --nodes=%d --ntasks=%d --ntasks-per-node=1 bash -c 'NODE_RANK=$SLURM_NODEID exec bash launch.sh'\n",
                  o->nodes, o->nodes);
    } else {
        sb_printf(&sb, "export MASTER_ADDR=${MASTER_ADDR:-127.0.0.1}\n(\nNODE_RANK=0 bash launch.sh\n");
    }
    /* a failed run's log goes to stderr too: the executor reads *.err for out-of-memory text */
    sb_printf(&sb, ") > trainer.log 2>&1\nrc=$?\nif [ $rc -eq 0 ]; then cat trainer.log; else cat trainer.log >&2; fi\nexit $rc\n");
    if (sb.oom || launch.oom) {
        ac_err_set(e, AC_E_NOMEM, "out of memory");
        goto out;
    }
    if (fs_write_text_in(run_dir, "launch.sh", sb_str(&launch), e)) goto out;
    if (fs_write_text_in(run_dir, "run.sh", sb_str(&sb), e) || fs_join(script_path, len, run_dir, "run.sh", e)) goto out;
    rc = 0;
out:
    sb_free(&sb);
    sb_free(&launch);
    free(ds);
    free(args);
    free(forge);
    free(accel);
    return rc;
}

int cost_trainer_log_parse(const char *text, double *step_s, int *n_rates, ac_err *e)
{
    double last = 0.0, sps = 0.0;
    int n = 0;
    /* tqdm rates: "<n>/<total> [mm:ss<mm:ss,  2.31s/it]" or "1.52it/s]" (every \r update); the last is
     * tqdm's smoothed rate of the latest steps, past the first steps' warm-up */
    for (const char *p = text; *p; p++) {
        bool sit = !strncmp(p, "s/it", 4), its = !strncmp(p, "it/s", 4);
        if (!sit && !its) continue;
        const char *q = p;
        while (q > text && (q[-1] == '.' || (q[-1] >= '0' && q[-1] <= '9'))) q--;
        if (q == p) continue;
        double v = strtod(q, NULL);
        if (v > 0) {
            last = sit ? v : 1.0 / v;
            n++;
        }
    }
    const char *t = strstr(text, "'train_steps_per_second': ");
    if (!t) t = strstr(text, "\"train_steps_per_second\": ");
    if (t) sps = strtod(t + 26, NULL);
    *n_rates = n;
    if (n > 0) {
        *step_s = last;
        return 0;
    }
    if (sps > 0) {
        *step_s = 1.0 / sps;
        return 0;
    }
    return ac_err_set(e, AC_E_EXEC, "the trainer log has no step rate (tqdm s/it or it/s, or train_steps_per_second)");
}

void cost_measure_score(const cost_request *rq, const cost_option *o, cost_measurement *m)
{
    /* an optimizer step trains gbs sequences of context tokens */
    double tokens_per_s = (double)o->gbs * rq->context / m->step_s;
    m->mtok_per_hour = tokens_per_s * 3600.0 / 1e6;
    m->usd_per_mtok = o->k.num_gpus * o->price / m->mtok_per_hour;
    m->hours = rq->tokens_b * 1e9 / tokens_per_s / 3600.0;
    m->mfu = o->mfu * o->tokens_per_s > 0 ? o->mfu * tokens_per_s / o->tokens_per_s : 0.0;
    m->error = o->step_time_s / m->step_s - 1.0;
}

size_t cost_measure_rank(const cost_result *r, const cost_measurement *m, size_t n, size_t *order)
{
    cost_rank_item it[COST_MEASURE_MAX];
    size_t k = 0;
    for (size_t i = 0; i < n && k < COST_MEASURE_MAX; i++)
        if (m[i].ok) it[k++] = (cost_rank_item){i, m[i].usd_per_mtok, m[i].hours, cost_tie_band(&r->opt[m[i].opt])};
    cost_rank_by_price(it, k);
    for (size_t i = 0; i < k; i++) order[i] = it[i].id;
    return k;
}
