#!/bin/sh
# test_cost_measure.sh — `autoconfig cost --measure` on the REAL Slurm of scripts/slurm-up.sh
# (run by scripts/run-tests.sh only when AUTOCONFIG_SLURM_TESTS is set): the benchmark jobs of
# the top setups go through sbatch; a stand-in trainer prints the Hugging Face Trainer's log.
AC=${AUTOCONFIG:?}
REPO=${REPO:?}
: "${SLURM_CONF:?run: eval \"\$(scripts/slurm-up.sh)\"}"
W=$(mktemp -d /tmp/ac-slurm-cost.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT
export AUTOCONFIG_POLL_MS=300
pass() { echo "PASS slurm-cost:$1"; }
fail() { echo "FAIL slurm-cost:$1: $2"; }
# the default command's launcher flags too: run.sh sets NODE_RANK/MASTER_ADDR/MASTER_PORT (one node here)
export AUTOCONFIG_COST_TRAINER="sh $REPO/tests/fixtures/cost_trainer/fake_trainer.sh --num_processes {num_gpus} --mbs {mbs} --ga {grad_accum} --max_steps {max_steps} --ds {ds_config} --machine_rank {node_rank} --main_process_ip {master_addr} --main_process_port {master_port}"
OPTS="cluster_type=bcm cluster.exclusive=false cluster.mem=100"
out=$(cd "$W" && "$AC" cost --conf "$REPO/conf" $OPTS search_config=llama/llama2_7b search_config.train_settings.logs="$W/logs" \
      --task lora --gpus a100_80gb:1.79:8 --framework hf-deepspeed --measure --measure-top 2 --measure-steps 3 2>&1); rc=$?
[ $rc -eq 0 ] && case "$out" in *"Chosen by measured \$ per million tokens:"*) true ;; *) false ;; esac \
    && pass measure_on_slurm || fail measure_on_slurm "exit $rc: $(echo "$out" | tail -6)"
python3 - "$W/logs/cost/measured.json" <<'PY' && pass measured_json || fail measured_json "see above"
import json, sys
m = json.load(open(sys.argv[1]))
assert len(m["jobs"]) == 2 and all(j["measured_step_s"] for j in m["jobs"]), m
assert m["chosen"] == m["ranking_by_measured_cost"][0]
PY
ls "$W"/logs/cost/measure/training_logs/*/trainer.log >/dev/null 2>&1 && pass trainer_logs_kept || fail trainer_logs_kept "no trainer.log"
grep -q 'machine_rank 0 of the rendezvous at 127.0.0.1:29500' "$W"/logs/cost/measure/training_logs/*/trainer.log \
    && pass launcher_rendezvous || fail launcher_rendezvous "$(head -3 "$W"/logs/cost/measure/training_logs/*/trainer.log)"
