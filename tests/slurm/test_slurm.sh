#!/bin/sh
# test_slurm.sh — the Slurm executor against the REAL cluster of scripts/slurm-up.sh
# (run by scripts/run-tests.sh only when AUTOCONFIG_SLURM_TESTS is set).  Jobs are
# emulated training runs (autoconfig emulate-job).  One PASS/FAIL line per case.
AC=${AUTOCONFIG:?}
REPO=${REPO:?}
: "${SLURM_CONF:?run: eval \"\$(scripts/slurm-up.sh)\"}"
W=$(mktemp -d /tmp/ac-slurm-test.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT
export AUTOCONFIG_POLL_MS=300
# per-job behaviour by name: *oom* fails like CUDA OOM, *slow* outlives any limit
export AUTOCONFIG_JOB_TEMPLATE='case {name} in *oom*) exec {autoconfig} emulate-job {config} --fail oom;; *slow*) sleep 300;; *) exec {autoconfig} emulate-job {config} --results-dir {results_dir} --step-time 0.25 --sleep 1;; esac'
# run names carry this run's tag: finished jobs stay visible to squeue for an hour
R=$(basename "$W" | tr -dc 'a-zA-Z0-9')
pass() { echo "PASS slurm:$1"; }
fail() { echo "FAIL slurm:$1: $2"; }

# mklogs DIR NAME...: a logs dir with one candidate config per name
mklogs() {
    d=$1; shift
    mkdir -p "$d/candidate_configs"
    for n in "$@"; do printf 'trainer:\n  max_steps: 20\n' >"$d/candidate_configs/${n}_$R.yaml"; done
}
OPTS="cluster_type=bcm cluster.exclusive=false cluster.mem=100 cluster.gpus_per_node=1 search_config.train_settings.num_nodes=1"
launch() { # launch LOGS [overrides...]
    l=$1; shift
    # shellcheck disable=SC2086
    (cd "$W" && exec "$AC" launch --conf "$REPO/conf" $OPTS search_config.train_settings.logs="$l" "$@")
}
bg_launch() { # bg_launch LOGS: in the background, BG = the tool's own pid (for kill -9)
    # shellcheck disable=SC2086
    (cd "$W" && exec "$AC" launch --conf "$REPO/conf" $OPTS search_config.train_settings.logs="$1") >/dev/null 2>&1 &
    BG=$!
}
njobs() { squeue -h -t all -o '%j' | grep -cxF "nemo_megatron_autoconfig:$1_$R"; }

# 0. started first, checked last: a job past a 1-minute limit ends in TIMEOUT (60-100 s)
mklogs "$W/tmo" slow_tmo
AUTOCONFIG_TIME_LIMIT_S=60 launch "$W/tmo" >"$W/tmo.out" 2>&1 &
TMO=$!

# 1. three emulated runs, one with a shell payload in its name, and an OOM run
mklogs "$W/a" run_a run_b 'q $(touch pwned) x' run_oom
if launch "$W/a" >"$W/a.out" 2>"$W/a.err"; then
    n=$(grep -c '^done .* 0.2500 s/step (20 values)' "$W/a.out")
    [ "$n" = 3 ] && pass "three emulated jobs measured at 0.2500 s/step" || fail "emulated jobs" "$(cat "$W/a.out" "$W/a.err")"
    grep -q "^failed .*CUDA out of memory  run_oom_$R" "$W/a.out" && pass "OOM job failed with 'CUDA out of memory'" ||
        fail "OOM job" "$(cat "$W/a.out")"
    if [ ! -e "$W/pwned" ] && [ ! -e "$W/a/training_logs/pwned" ] && [ ! -e "$W/a/training_logs/q \$(touch pwned) x_$R/pwned" ] &&
       [ -e "$W/a/training_logs/q \$(touch pwned) x_$R/results/emulated_train.log" ]; then pass "a name holding \$(touch pwned) ran nothing"
    else fail "quoting" "pwned file created"; fi
else fail "launch" "$(cat "$W/a.err")"; fi
"$AC" status "$W/a" >"$W/st.out" 2>&1 && grep -q '4 runs: 3 done, 1 failed' "$W/st.out" && pass "status shows the ledger" ||
    fail "status" "$(cat "$W/st.out")"

# 2. a second launch resumes from the ledger: nothing is submitted again
before=$(njobs run_a)
launch "$W/a" >/dev/null 2>&1
[ "$(njobs run_a)" = "$before" ] && [ "$before" = 1 ] && pass "relaunch submits nothing twice" || fail "relaunch" "run_a submitted $(njobs run_a) times"

# 3. kill -9 of the tool mid-search, then resume
mklogs "$W/k" kill_a kill_b
bg_launch "$W/k"
K=$BG
for _ in $(seq 50); do [ "$(njobs kill_b)" = 1 ] && break; sleep 0.1; done
kill -9 "$K"; wait "$K" 2>/dev/null
if launch "$W/k" >"$W/k.out" 2>&1 && [ "$(grep -c '^done' "$W/k.out")" = 2 ] && [ "$(njobs kill_a)" = 1 ] && [ "$(njobs kill_b)" = 1 ]; then
    pass "resume after kill -9: both done, each submitted once"
else fail "resume after kill -9" "$(cat "$W/k.out"); kill_a x$(njobs kill_a) kill_b x$(njobs kill_b)"; fi

# 4. cancel: owns only the ledger's jobs
mklogs "$W/c" slow_c
bg_launch "$W/c"
C=$BG
OTHER=$(sbatch --parsable -J not_ours -o /dev/null -t 2 --wrap 'sleep 60')
for _ in $(seq 50); do [ "$(njobs slow_c)" = 1 ] && break; sleep 0.1; done
sleep 0.5
kill -9 "$C"; wait "$C" 2>/dev/null
"$AC" cancel "$W/c" >"$W/c.out" 2>&1
sleep 1
st=$(squeue -h -t all -n "nemo_megatron_autoconfig:slow_c_$R" -o %T)
other=$(squeue -h -t all -j "$OTHER" -o %T)
if grep -q 'cancelled 1 job' "$W/c.out" && [ "$st" = CANCELLED ] && [ "$other" != CANCELLED ]; then
    pass "cancel: the search's job CANCELLED, a foreign job untouched ($other)"
else fail "cancel" "$(cat "$W/c.out") slow_c=$st other=$other"; fi
scancel "$OTHER" 2>/dev/null
"$AC" status "$W/c" 2>&1 | grep -q 'cancelled by autoconfig cancel' && pass "status shows the cancelled run" || fail "status after cancel" "no reason"

# 5. sbatch refused (bad partition): a clear error, the run stays planned
mklogs "$W/p" refused
if launch "$W/p" cluster.partition=nope >"$W/p.out" 2>&1; then fail "bad partition" "launch succeeded"
else
    grep -q "sbatch refused job refused_$R: .*nvalid partition" "$W/p.out" && "$AC" status "$W/p" 2>&1 | grep -q '^planned ' &&
        pass "bad partition: clear error, nothing half-written" || fail "bad partition" "$(cat "$W/p.out")"
fi

# 6. a whole search on Slurm: `autoconfig run cluster_type=bcm` launches the top 3, measured beside predicted
S=search_config.train_settings
RUNOPTS="cluster_type=bcm cluster.exclusive=false cluster.mem=100 cluster.gpus_per_node=1 search_config=gpt3/0.843b $S.num_nodes=1 $S.limit_search_runs=3 run_inference_hp_search=false"
EMU='{autoconfig} emulate-job {config} --gpu {gpu} --results-dir {results_dir}'
run_search() { # run_search LOGS SLEEP [key=value ...]: in the foreground
    l=$1 sl=$2; shift 2
    # shellcheck disable=SC2086
    (cd "$REPO" && AUTOCONFIG_JOB_TEMPLATE="$EMU --sleep $sl" exec "$AC" run $RUNOPTS "$S.logs=$l" "$@")
}
# jobs of one logs dir, by working directory (names repeat across searches)
jobs_in() { squeue -h -t all -o '%Z' | grep -c "^$1/training_logs/"; }
if run_search "$W/full" 1 >"$W/full.out" 2>"$W/full.err" &&
   grep -q 'cluster_type bcm' "$W/full.out" && grep -q 'Training runs: 3 measured, 0 failed' "$W/full.out" &&
   [ "$(grep -c ',measured,' "$W/full/final_result/final_summary_1nodes.csv")" = 3 ] && [ "$(jobs_in "$W/full")" = 3 ]; then
    pass "full search on Slurm: 3 candidates measured, final_summary written"
else fail "full search" "$(cat "$W/full.out" "$W/full.err")"; fi

# 7. slurmctld stopped mid-search and restarted (its state kept): the tool keeps polling, nothing resubmitted
D=${AUTOCONFIG_SLURM_DIR:-/tmp/autoconfig-slurm}
ctld_pid() { p=$(cat "$D/run/slurmctld.pid" 2>/dev/null) && [ "$(cat "/proc/$p/comm" 2>/dev/null)" = slurmctld ] && echo "$p"; }
ctld_start() {
    ctld_pid >/dev/null && return 0
    slurmctld -i </dev/null >>"$D/log/daemons.out" 2>&1
    for _ in $(seq 100); do timeout 5 scontrol ping 2>/dev/null | grep -q UP && return 0; sleep 0.2; done
    return 1
}
ctld_stop() { kill -TERM "$1"; for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done; }
trap 'ctld_start; [ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT # never leave the shared cluster without a controller
run_search "$W/ctl" 4 >"$W/ctl.out" 2>"$W/ctl.err" &
RS=$!
for _ in $(seq 100); do [ "$(jobs_in "$W/ctl")" = 3 ] && break; sleep 0.1; done
P=$(ctld_pid)
if [ -n "$P" ] && [ "$(jobs_in "$W/ctl")" = 3 ]; then
    ctld_stop "$P"
    sleep 3
    ctld_start || fail "slurmctld restart" "$(tail -n 5 "$D/log/slurmctld.log")"
    wait "$RS"; rc=$?
    if [ $rc -eq 0 ] && grep -q 'Training runs: 3 measured, 0 failed' "$W/ctl.out" && [ "$(jobs_in "$W/ctl")" = 3 ]; then
        pass "slurmctld stopped mid-search and restarted: 3 runs measured, none resubmitted"
    else fail "slurmctld restart" "exit $rc: $(cat "$W/ctl.out" "$W/ctl.err"); $(jobs_in "$W/ctl") jobs"; fi
else
    wait "$RS"
    fail "slurmctld restart" "the search did not submit 3 jobs: $(cat "$W/ctl.err")"
fi

# 7b. slurmctld down when the search submits: sbatch is retried (with a look for a job that got in)
#     until the controller is back; every run measured, none submitted twice
P=$(ctld_pid)
if [ -n "$P" ]; then
    ctld_stop "$P"
    run_search "$W/down" 1 >"$W/down.out" 2>"$W/down.err" &
    RS=$!
    sleep 4
    ctld_start || fail "submit retry" "slurmctld did not restart: $(tail -n 5 "$D/log/slurmctld.log")"
    wait "$RS"; rc=$?
    if [ $rc -eq 0 ] && grep -q 'Training runs: 3 measured, 0 failed' "$W/down.out" && [ "$(jobs_in "$W/down")" = 3 ]; then
        pass "slurmctld down at submission: sbatch retried until it came back, 3 runs measured, none twice"
    else fail "submit retry" "exit $rc: $(cat "$W/down.out" "$W/down.err"); $(jobs_in "$W/down") jobs"; fi
else fail "submit retry" "no slurmctld pid"; fi

# 8. a job killed by scancel (not by autoconfig) is a failed run with Slurm's state
mklogs "$W/x" slow_x run_x
bg_launch "$W/x"
X=$BG
for _ in $(seq 100); do [ "$(squeue -h -t running -n "nemo_megatron_autoconfig:slow_x_$R" -o %A)" ] && break; sleep 0.1; done
scancel -n "nemo_megatron_autoconfig:slow_x_$R"
wait "$X"
if launch "$W/x" >"$W/x.out" 2>&1 && grep -q "^failed .*CANCELLED.*slow_x_$R" "$W/x.out" && grep -q "^done .*run_x_$R" "$W/x.out"; then
    pass "a job killed by scancel: failed CANCELLED, the other run measured"
else fail "scancel" "$(cat "$W/x.out")"; fi

# 9. --no-wait: the tool returns at once; a summary job (afterany on both runs) prints the summary
mklogs "$W/nw" nw_a nw_b
if launch "$W/nw" --no-wait >"$W/nw.out" 2>&1; then
    SID=$(sed -n 's/.*summary job \([0-9]*\) runs.*/\1/p' "$W/nw.out")
    dep=$(squeue -h -j "$SID" -o %E 2>/dev/null)
    for _ in $(seq 150); do [ "$(squeue -h -t all -j "$SID" -o %T 2>/dev/null)" = COMPLETED ] && break; sleep 0.2; done
    if [ -n "$SID" ] && case "$dep" in afterany:*) true ;; *) false ;; esac &&
       [ "$(grep -c "^done .* 0.2500 s/step" "$W/nw/summary-$SID.out" 2>/dev/null)" = 2 ]; then
        pass "--no-wait: summary job $SID ran after both runs (dependency $dep)"
    else fail "--no-wait" "$(cat "$W/nw.out") dep=$dep; $(cat "$W/nw/summary-$SID.out" 2>&1)"; fi
else fail "--no-wait" "$(cat "$W/nw.out")"; fi

# 10. --no-wait --json and cancel --json: one JSON object each on stdout; cancel stops the slow run
mklogs "$W/nj" slow_nj
if launch "$W/nj" --no-wait --json >"$W/nj.json" 2>"$W/nj.err" &&
   python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["jobs"] == 1 and d["summary_job"].isdigit() and d["summary_output"].endswith(".out")' "$W/nj.json" 2>/dev/null; then
    pass "launch --no-wait --json: one object with the summary job"
else fail "launch --no-wait --json" "$(cat "$W/nj.json" "$W/nj.err")"; fi
"$AC" cancel --json "$W/nj" >"$W/njc.json" 2>&1
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["cancelled"] == 1' "$W/njc.json" 2>/dev/null &&
    pass "cancel --json: the slow run cancelled" || fail "cancel --json" "$(cat "$W/njc.json")"

# 11. a search on fewer nodes: each run asks Slurm for one node, its step time is carried to num_nodes 4
if run_search "$W/few" 0.3 "$S.num_nodes=4" "$S.search_num_nodes=auto" >"$W/few.out" 2>"$W/few.err" &&
   grep -q 'Training runs: 3 measured, 0 failed' "$W/few.out" &&
   [ "$(grep -c 'measured at 1 nodes (.*), scaled to 4' "$W/few.out")" = 3 ] &&
   grep -q '^#SBATCH --nodes=1$' "$W/few"/training_logs/*/job.sh &&
   grep -q '"measured_nodes":1' "$W/few/final_result/summary.json"; then
    pass "search on fewer nodes: 3 runs measured on 1 node, reported scaled to 4"
else fail "search on fewer nodes" "$(cat "$W/few.out" "$W/few.err")"; fi

# 12. borderline: candidates predicted just over the memory limit run on Slurm; one fits and is measured
if (cd "$REPO" && AUTOCONFIG_EMULATE_MEM_SCALE=0.99 AUTOCONFIG_JOB_TEMPLATE="$EMU --sleep 0.3" "$AC" run $RUNOPTS \
        search_config=gpt3/20b "$S.limit_search_runs=1" "$S.logs=$W/bord") >"$W/bord.out" 2>"$W/bord.err" &&
   grep -q 'of them 2 borderline' "$W/bord.out" && grep -q 'Training runs: 2 measured, 1 failed' "$W/bord.out" &&
   grep -q '%  gpt3_20b_1nodes_tp_4_pp_1_mbs_4_.*\[borderline' "$W/bord.out"; then
    pass "borderline candidates launched on Slurm: the one that fits measured, the other CUDA OOM"
else fail "borderline on Slurm" "$(cat "$W/bord.out" "$W/bord.err")"; fi

# 13. the inference sweep on Slurm: benchmark jobs through the executor (srun --mpi pmix inside), summarised
cat > "$W/ftbench.sh" <<'SH'
[ "${SLURM_PROCID:-0}" = 0 ] || exit 0
awk -F' = ' '/^request_batch_size/ {b = $2} /^tensor_para_size/ {t = $2}
    END {printf "[INFO] batch_size %d FT-CPP-decoding-beamsearch-time %.2f ms\n", b, 100 + 10 * b / t}' "$1"
SH
K=search_config.inference_settings
if (cd "$REPO" && "$AC" run cluster_type=bcm cluster.exclusive=false cluster.mem=100 training_container=null \
        run_training_hp_search=false "$S.logs=$W/inf" "$K.run.benchmark_command=sh $W/ftbench.sh {ini}" \
        "$K.run.tensor_parallel_sizes=[1,2]" "$K.run.pipeline_parallel_sizes=[1]" "$K.benchmark.batch_sizes=[1,8]") \
        >"$W/inf.out" 2>"$W/inf.err" &&
   grep -q 'Inference benchmark jobs: 4 ran, 0 failed' "$W/inf.out" &&
   [ "$(grep -c ',measured' "$W/inf/inference/final_summary/final_output.csv")" = 4 ] &&
   [ "$(jobs_in "$W/inf")" = 4 ]; then
    pass "inference sweep on Slurm: 4 benchmark jobs ran through the executor, measured summary written"
else fail "inference sweep on Slurm" "$(cat "$W/inf.out" "$W/inf.err")"; fi

# 14. a measured vLLM search on Slurm: `vllm serve` + `vllm bench serve` jobs through the executor, run by
#     the emulated engine behind a `vllm` shim on PATH (sbatch passes the environment on), 10% slower
#     than the model; a second run resubmits nothing
mkdir -p "$W/bin" "$W/tok"
printf '#!/bin/sh\nexec "%s" emulate-serve --gpu h100 vllm "$@"\n' "$AC" > "$W/bin/vllm"
chmod +x "$W/bin/vllm"
echo '{}' > "$W/tok/tokenizer_config.json"
serve_search() {
    (cd "$REPO" && PATH="$W/bin:$PATH" AUTOCONFIG_EMULATE_SCALE=1.1 "$AC" run cluster_type=bcm cluster.exclusive=false \
        cluster.mem=100 training_container=null run_training_hp_search=false search_config=llama/llama3_8b \
        search_config.train_settings.gpu=h100 "$S.logs=$W/vl" "$K.run.engine=vllm" "$K.run.tokenizer=$W/tok" \
        "$K.run.tensor_parallel_sizes=[1,2]" "$K.run.pipeline_parallel_sizes=[1]" "$K.benchmark.batch_sizes=[64]" \
        "$K.benchmark.concurrency=[8,32]" "$K.benchmark.input_len=512" "$K.benchmark.output_len=128")
}
VD="$W/vl/inference/llama3_8b_tp2_pp1_bs64_c32"
if serve_search >"$W/vl.out" 2>"$W/vl.err" &&
   grep -q 'Inference benchmark jobs: 4 ran, 0 failed' "$W/vl.out" && grep -q 'engine vllm (measured)' "$W/vl.out" &&
   grep -q 'Measured beside predicted' "$W/vl.out" &&
   [ "$(grep -c ',measured,' "$W/vl/inference/final_summary/final_output.csv")" = 4 ] &&
   awk -F, 'NR>1 { r = $25 / $14; if (r < 0.90 || r > 0.92) bad = 1 } END { exit bad }' "$W/vl/inference/final_summary/final_output.csv" &&
   [ "$(jobs_in "$W/vl")" = 4 ] && [ -f "$VD/result.json" ] && grep -q '^#SBATCH --ntasks-per-node=1$' "$VD/submission_script.sh" &&
   grep -q 'srun --ntasks=1 ' "$VD/submission_script.sh"; then
    pass "measured vLLM search on Slurm: 4 vllm serve + bench serve jobs ran, TTFT/ITL/throughput measured beside predicted"
else fail "measured vLLM search on Slurm" "$(cat "$W/vl.out" "$W/vl.err" "$VD"/log_job_* 2>&1 | tail -40)"; fi
if serve_search >"$W/vl2.out" 2>"$W/vl2.err" && [ "$(jobs_in "$W/vl")" = 4 ] &&
   grep -q 'Inference benchmark jobs: 4 ran, 0 failed' "$W/vl2.out"; then
    pass "measured vLLM search resumed from the ledger: nothing resubmitted"
else fail "measured vLLM search resumed" "$(cat "$W/vl2.out" "$W/vl2.err")"; fi

# 0 (end). the time-limit kill
wait "$TMO"
grep -q '^failed .*TIMEOUT' "$W/tmo.out" && pass "time limit: job ended TIMEOUT" || fail "time limit" "$(cat "$W/tmo.out")"
