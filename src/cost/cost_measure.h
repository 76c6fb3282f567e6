/* cost_measure.h — `autoconfig cost --measure`: the top setups as short benchmark jobs.
 *
 * For each of the top setups (DeepSpeed/FSDP ones: the trainer stacks fine-tuning teams
 * run) a run directory gets ds_config.json, train_args.json (max_steps small),
 * llmforge.yaml (padding max_length), accelerate_config.yaml, launch.sh (one node's
 * trainer command) and run.sh, which runs launch.sh once per node — on one node directly,
 * across nodes under srun with NODE_RANK from SLURM_NODEID and MASTER_ADDR the allocation's
 * first node — with every sequence context tokens long, keeping the output in trainer.log.  The executor
 * (src/exec) runs run.sh; cost_trainer_log_parse reads the Hugging Face Trainer's log
 * (tqdm "s/it" rate, else the final train_steps_per_second); cost_measure_score turns
 * the step time into MT/hr and $/MT, and the setups are ranked by measured $/MT with
 * the same tie band as the prediction.
 *
 * The trainer command: AUTOCONFIG_COST_TRAINER in the environment, else
 * <conf>/cluster/cost_trainer_command.txt, else COST_TRAINER_DEFAULT (Accelerate +
 * DeepSpeed + TRL's SFT script, --num_machines/--machine_rank/--main_process_ip/port set for
 * any node count).  Placeholders, each replaced by a shell-quoted value: {ds_config}
 * {train_args} {llmforge} {accelerate_config} {run_dir} {model} {max_steps} {num_gpus}
 * {nodes} {gpus_per_node} {mbs} {grad_accum} {context} {gradient_checkpointing}
 * ("true"/"false"); and, known only when the job runs, {node_rank} {master_addr}
 * {master_port} as "$NODE_RANK" "$MASTER_ADDR" "$MASTER_PORT", and {cpu_threads} as
 * "$CPU_THREADS_PER_PROCESS", which launch.sh sets to the job's CPUs over the node's ranks
 * (CPU Adam's OpenMP threads; the default command passes it to --num_cpu_threads_per_process).
 */
#ifndef AC_COST_MEASURE_H
#define AC_COST_MEASURE_H

#include "cost/cost.h"

extern const char COST_TRAINER_DEFAULT[];

typedef struct {
    size_t opt;               /* index into the result's options */
    char name[128];           /* run name (directory under <logs>/cost/measure/training_logs) */
    double step_s;            /* measured seconds per optimizer step; 0 = none */
    int n_rates;              /* rates the log held */
    bool ok;
    char why[256];            /* why there is no measurement */
    double mtok_per_hour, usd_per_mtok, hours, mfu, error;  /* error: predicted / measured step time - 1 */
} cost_measurement;

/* the first top DeepSpeed/FSDP setups of the $/MT ranking: indices into r->opt */
size_t cost_measure_pick(const cost_result *r, size_t top, size_t *idx);
/* run name of option i: "cost_<k>_<gpus>x<pool>_z<stage>..." (no '/') */
void cost_measure_name(const cost_request *rq, const cost_option *o, size_t k, char *buf, size_t len);
/* writes the benchmark files and run.sh into run_dir (created); script_path gets run.sh */
int cost_measure_write(const cost_request *rq, const cost_option *o, const char *run_dir, int max_steps, const char *command_template,
                       char *script_path, size_t len, ac_err *e);
/* the Hugging Face Trainer's step time from its console log: the last tqdm rate
 * ("2.31s/it" or "1.52it/s") of the training bar, else 1 / train_steps_per_second.
 * AC_E_EXEC when the log has neither. */
int cost_trainer_log_parse(const char *text, double *step_s, int *n_rates, ac_err *e);
/* MT/hr, $/MT, hours and MFU of o at a measured step time */
void cost_measure_score(const cost_request *rq, const cost_option *o, cost_measurement *m);
/* the most benchmark jobs one --measure runs */
#define COST_MEASURE_MAX 64
/* indices into m[0..n) of the measured ones by $/MT, ties within the ranking band of each setup's
 * GPU and stack to the faster (cost_rank_by_price, the search's rule); returns how many */
size_t cost_measure_rank(const cost_result *r, const cost_measurement *m, size_t n, size_t *order);

#endif
