#!/bin/sh
# test_hardening.sh — issue 26's reproductions, each asserting what a user
# expects: a clear error and exit 2 instead of a crash, overflow or unbounded
# growth; one owner per logs directory; measurements that match their config.
AC=${AUTOCONFIG:?}
cd "${REPO:?}" || exit 1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass() { echo "PASS hardening:$1"; }
fail() { echo "FAIL hardening:$1: $2"; }
# expect NAME RC NEEDLE -- ARGS...: exit status RC and NEEDLE in the output
expect() {
    name=$1 want=$2 needle=$3
    shift 4
    out=$("$AC" "$@" 2>&1); rc=$?
    if [ "$rc" -ne "$want" ]; then fail "$name" "exit $rc (want $want): $out"; return; fi
    case "$out" in *"$needle"*) pass "$name" ;; *) fail "$name" "no '$needle' in: $out" ;; esac
}

# 1. tp 65536 x pp 65536 overflowed int and divided by zero (SIGFPE)
printf 'id,source_id,engine,model,num_layers,hidden_size,num_attention_heads,vocab_size,gpu_type,tp,pp,precision,batch_size,input_len,output_len,latency_ms\n1,S1,TensorRT-LLM,m,32,4096,32,32000,H100,65536,65536,FP16,1,128,128,10\n' >"$T/tppp.csv"
expect d1_infer_tp_pp_overflow 2 "exceeds 1048576 GPUs" -- validate --infer --csv "$T/tppp.csv"

# 5. '..' in a value (interpolation of a parent key, a relative path) is not a key segment
expect d5_dotdot_in_value_interp 0 "" -- size '+hydra.x=${..search_config_value}'
expect d5_dotdot_in_value_path 0 "" -- size "search_config.train_settings.logs=../x"
expect d5_dotdot_in_key_rejected 2 "empty key segment" -- size "search_config..train_settings=1"

# 6. a cluster file without job_name_prefix takes the documented default
cp -r conf "$T/conf"
sed -i '/job_name_prefix/d' "$T/conf/cluster/bcm.yaml"
expect d6_cluster_without_job_name_prefix 0 "" -- size --conf "$T/conf"
out=$("$AC" keys 2>&1)
case "$out" in *nemo_megatron_autoconfig:*) pass d6_default_documented ;; *) fail d6_default_documented "$out" ;; esac

# 8. a candidate with trainer.num_nodes/devices 100000000 overflowed nodes x devices
S=search_config.train_settings
"$AC" run "$S.logs=$T/sim" >/dev/null 2>&1
CD="$T/sim/candidate_configs"
fit=$(ls "$CD" | grep '_tp_1_pp_1_mbs_1_' | head -1)
# emulate-job reads the job's resolved config, as NeMo would: launch --dry-run writes it
mkdir -p "$T/one" && cp "$CD/$fit" "$T/one/"
"$AC" launch --dry-run --candidates "$T/one" cluster_type=local "$S.logs=$T/dry" >/dev/null 2>&1
sed 's/^\(  *\)num_nodes: .*/\1num_nodes: 100000000/; s/^\(  *\)devices: .*/\1devices: 100000000/' \
    "$T/dry/training_logs/${fit%.yaml}/${fit%.yaml}_hydra.yaml" >"$T/huge.yaml"
expect d8_candidate_num_nodes_overflow 2 "trainer.num_nodes 100000000 is out of range 1..100000" -- \
    emulate-job "$T/huge.yaml" --results-dir "$T/em_huge" --sleep 0
# and AUTOCONFIG_TIME_LIMIT_S=2147483647 overflowed the minutes given to Slurm
out=$(AUTOCONFIG_TIME_LIMIT_S=2147483647 "$AC" launch cluster_type=local "$S.logs=$T/tl" --candidates "$CD" 2>&1); rc=$?
[ $rc -eq 2 ] && case "$out" in *"AUTOCONFIG_TIME_LIMIT_S '2147483647' must be a number of seconds 1..6000000"*) true ;; *) false ;; esac &&
    pass d8_time_limit_overflow || fail d8_time_limit_overflow "exit $rc: $out"

# 9. overrides that each double the previous string grew without bound (1.6 GB at 26)
args="+hydra.k0=abcd"
i=1
while [ $i -le 30 ]; do args="$args +hydra.k$i=\${hydra.k$((i - 1))}\${hydra.k$((i - 1))}"; i=$((i + 1)); done
# shellcheck disable=SC2086
expect d9_interpolation_bounded 2 "the interpolated string would exceed 65536 characters" -- size $args

# 10. measured inference wrote batch x input_len ids per job without bound (18 GB)
K=search_config.inference_settings
out=$("$AC" infer search_config=gpt3/20b "$S.logs=$T/il" "$K.run.results_dir=$T/ir" cluster_type=bcm \
    "$K.run.tensor_parallel_sizes=[1,2,4,8,16,32,64]" "$K.run.pipeline_parallel_sizes=[1,2,4,8,16,32,64]" \
    "$K.benchmark.batch_sizes=[1,8,64,512,4096,32768,262144,524288]" 2>&1); rc=$?
[ $rc -eq 2 ] && [ ! -d "$T/ir/inference" ] && case "$out" in *"over the limit of 1 GiB"*) true ;; *) false ;; esac &&
    pass d10_infer_disk_bounded || fail d10_infer_disk_bounded "exit $rc, $(du -sh "$T/ir" 2>&1): $out"

# 7. a relative wandb.api_key_file failed every job (the job cds into its run dir) and run exited 0
export AUTOCONFIG_POLL_MS=100
mkdir -p "$T/wd"
printf 'SECRET-WANDB-KEY-0042\nsecond line\n' >"$T/wd/key"
out=$(cd "$T/wd" && AUTOCONFIG_JOB_TEMPLATE='[ "$WANDB_API_KEY" = SECRET-WANDB-KEY-0042 ] || exit 7; {autoconfig} emulate-job {config} --results-dir {results_dir} --sleep 0' \
    "$AC" run --conf "$REPO/conf" cluster_type=local run_inference_hp_search=false "$S.limit_search_runs=2" "$S.logs=$T/wl" wandb.enable=true wandb.api_key_file=key 2>&1); rc=$?
[ $rc -eq 0 ] && case "$out" in *"2 measured, 0 failed"*) true ;; *) false ;; esac &&
    pass d7_relative_wandb_key_first_line || fail d7_relative_wandb_key_first_line "exit $rc: $out"
out=$(cd "$T/wd" && AUTOCONFIG_JOB_TEMPLATE='echo started >> {run_dir}/starts; exit 0' \
    "$AC" run --conf "$REPO/conf" cluster_type=local run_inference_hp_search=false "$S.limit_search_runs=2" "$S.logs=$T/wl2" wandb.enable=true wandb.api_key_file=nokey 2>&1); rc=$?
[ $rc -eq 2 ] && [ -z "$(find "$T/wl2" -name starts 2>/dev/null)" ] && case "$out" in *"wandb.api_key_file: cannot read "*"/nokey"*) true ;; *) false ;; esac &&
    pass d7_missing_wandb_key_before_launch || fail d7_missing_wandb_key_before_launch "exit $rc: $out"

# 2. two instances on one logs dir started jobs twice and could delete each other's exit_code
L2="$T/two"
export AUTOCONFIG_JOB_TEMPLATE="echo {name} >> $T/starts2.log; {autoconfig} emulate-job {config} --gpu {gpu} --results-dir {results_dir} --sleep 0.6"
"$AC" run cluster_type=local run_inference_hp_search=false "$S.logs=$L2" "$S.limit_search_runs=8" >"$T/first.out" 2>&1 &
first=$!
sleep 0.05
second=$("$AC" run cluster_type=local run_inference_hp_search=false "$S.logs=$L2" "$S.limit_search_runs=8" 2>&1); rc2=$?
wait $first; rc1=$?
starts=$(wc -l <"$T/starts2.log" 2>/dev/null || echo 0)
[ $rc2 -eq 2 ] && case "$second" in *"logs dir $L2 is in use by another autoconfig (pid $first"*) true ;; *) false ;; esac &&
    pass d2_second_instance_refused || fail d2_second_instance_refused "exit $rc2: $second"
[ $rc1 -eq 0 ] && [ "$starts" -eq 8 ] && grep -q "8 measured, 0 failed" "$T/first.out" &&
    pass d2_first_instance_runs_each_job_once || fail d2_first_instance_runs_each_job_once "exit $rc1, $starts starts: $(cat "$T/first.out")"
# the lock goes with its holder: a later run resumes (nothing to start again)
out=$("$AC" run cluster_type=local run_inference_hp_search=false "$S.logs=$L2" "$S.limit_search_runs=8" 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$(wc -l <"$T/starts2.log")" -eq 8 ] && pass d2_lock_released || fail d2_lock_released "exit $rc: $out"

# a simulated run on the dir of a running search would replace its candidate files: refused too
L2s="$T/two_sim"
"$AC" run cluster_type=local run_inference_hp_search=false "$S.logs=$L2s" "$S.limit_search_runs=4" >"$T/first_sim.out" 2>&1 &
first=$!
sleep 0.05
second=$("$AC" run run_inference_hp_search=false "$S.logs=$L2s" "$S.num_nodes=4" 2>&1); rc2=$?
wait $first; rc1=$?
[ $rc2 -eq 2 ] && [ $rc1 -eq 0 ] && case "$second" in *"is in use by another autoconfig"*) true ;; *) false ;; esac &&
    grep -q "4 measured, 0 failed" "$T/first_sim.out" && pass d2_sim_run_refused_on_live_dir ||
    fail d2_sim_run_refused_on_live_dir "exit $rc2/$rc1: $second $(tail -2 "$T/first_sim.out")"

# 3. the ledger was keyed by run name: a rerun with seq_length=4096 or gpu=h100 reported the old measurements
L3="$T/three"
export AUTOCONFIG_JOB_TEMPLATE="echo {name} >> $T/starts3.log; {autoconfig} emulate-job {config} --gpu {gpu} --results-dir {results_dir} --sleep 0"
n3() { wc -l <"$T/starts3.log" 2>/dev/null || echo 0; }
"$AC" run cluster_type=local run_inference_hp_search=false "$S.logs=$L3" "$S.limit_search_runs=2" >/dev/null 2>&1
[ "$(n3)" -eq 2 ] && pass d3_first_run || fail d3_first_run "$(n3) starts"
"$AC" run cluster_type=local run_inference_hp_search=false "$S.logs=$L3" "$S.limit_search_runs=2" >/dev/null 2>&1
[ "$(n3)" -eq 2 ] && pass d3_same_settings_reused || fail d3_same_settings_reused "$(n3) starts"
out=$("$AC" run cluster_type=local run_inference_hp_search=false "$S.logs=$L3" "$S.limit_search_runs=2" "$S.seq_length=4096" 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$(n3)" -eq 4 ] && case "$out" in *"2 measured, 0 failed"*) true ;; *) false ;; esac &&
    pass d3_seq_length_measured_anew || fail d3_seq_length_measured_anew "exit $rc, $(n3) starts: $out"
out=$("$AC" run cluster_type=local run_inference_hp_search=false "$S.logs=$L3" "$S.limit_search_runs=2" "$S.seq_length=4096" "$S.gpu=h100" 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$(n3)" -eq 6 ] && pass d3_gpu_measured_anew || fail d3_gpu_measured_anew "exit $rc, $(n3) starts: $out"
[ -d "$L3/training_logs/.superseded" ] && pass d3_old_run_dirs_kept_aside || fail d3_old_run_dirs_kept_aside "$(ls -a "$L3/training_logs")"

# failed runs: kept as failed on a plain rerun, launched again with --retry-failed
L4="$T/four"
touch "$T/broken"
export AUTOCONFIG_JOB_TEMPLATE="echo {name} >> $T/starts4.log; [ -e $T/broken ] && exit 3; {autoconfig} emulate-job {config} --gpu {gpu} --results-dir {results_dir} --sleep 0"
n4() { wc -l <"$T/starts4.log" 2>/dev/null || echo 0; }
"$AC" run cluster_type=local run_inference_hp_search=false "$S.logs=$L4" "$S.limit_search_runs=2" >/dev/null 2>&1
rm -f "$T/broken"
out=$("$AC" run cluster_type=local run_inference_hp_search=false "$S.logs=$L4" "$S.limit_search_runs=2" 2>&1)
[ "$(n4)" -eq 2 ] && case "$out" in *"0 measured, 2 failed"*) true ;; *) false ;; esac &&
    pass d3_failed_kept_without_retry || fail d3_failed_kept_without_retry "$(n4) starts: $out"
out=$("$AC" run --retry-failed cluster_type=local run_inference_hp_search=false "$S.logs=$L4" "$S.limit_search_runs=2" 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$(n4)" -eq 4 ] && case "$out" in *"2 measured, 0 failed"*) true ;; *) false ;; esac &&
    pass d3_retry_failed || fail d3_retry_failed "exit $rc, $(n4) starts: $out"
unset AUTOCONFIG_JOB_TEMPLATE

# 4. with several global batch sizes the optimum was the shortest step, not the most tokens/s
out=$("$AC" run "$S.global_batch_sizes=[256,2048]" "$S.logs=$T/gbs" 2>&1); rc=$?
best=$(printf '%s\n' "$out" | sed -n 's/^Config #1: .*predicted; \([0-9]*\) tokens\/s.*/\1/p')
most=$(printf '%s\n' "$out" | sed -n 's/^Config #[0-9]*: .*predicted; \([0-9]*\) tokens\/s.*/\1/p' | sort -n | tail -1)
[ $rc -eq 0 ] && [ -n "$best" ] && [ "$best" = "$most" ] &&
    grep -q 'global_batch_size: 2048' "$T/gbs/final_result/optimal_config_5b_16nodes.yaml" &&
    pass d4_optimum_by_tokens_per_s || fail d4_optimum_by_tokens_per_s "exit $rc, #1 $best tokens/s, best listed $most: $out"

# 12. smaller: a huge YAML list, a directory for a file, reader errors at 1:1, ',' in a mount, $inf, MFU > 100 %
cp -r conf "$T/conf12"
awk 'BEGIN { printf "job_name_prefix: x\nsrun_args: ["; for (i = 0; i < 400000; i++) printf "a,"; print "a]" }' >"$T/conf12/cluster/bcm.yaml"
out=$("$AC" size --conf "$T/conf12" 2>&1); rc=$?
[ $rc -eq 2 ] && case "$out" in *"bcm.yaml:2:"*"more than 100000 YAML values"*) true ;; *) false ;; esac &&
    pass d12_huge_yaml_list_bounded || fail d12_huge_yaml_list_bounded "exit $rc: $out"
expect d12_directory_for_a_file 2 "is a directory, not a file" -- validate --csv "$T"
printf 'run:\n  name: gpt3_5b\n\n# caf\351\n' >"$T/bad_utf8.yaml"
expect d12_reader_error_line 2 "bad_utf8.yaml:4:" -- emulate-job "$T/bad_utf8.yaml" --results-dir "$T/em_utf8" --sleep 0
expect d12_comma_in_mount 2 "one mount per entry" -- size 'container_mounts=["/data,/etc:/etc"]'
expect d12_cost_price_bounded 2 "price of a100_80gb must be at most 10000 USD per GPU-hour" -- cost --gpus a100_80gb:1e308:8
cp -r conf "$T/conf12b"
printf 'key,value,reason\ncompute_scale,1e308,typo\n' >"$T/conf12b/cluster/calibration_bcm.csv"
expect d12_calibration_bounded 2 "compute_scale: 1e+308 is outside [0.1, 3]" -- estimate --conf "$T/conf12b"

# fuzz_infer_csv's finding: hidden_size 655360128 overflowed the default FFN width 4 x hidden
printf 'id,source_id,engine,model,num_layers,hidden_size,num_attention_heads,vocab_size,gpu_type,tp,pp,precision,batch_size,input_len,output_len,latency_ms\n1,S1,FasterTransformer,m,6,655360128,128,51200,A100,1,1,FP16,1,128,128,10\n' >"$T/hidden.csv"
expect fuzz_infer_hidden_overflow 2 "hidden_size over 16777216" -- validate --infer --csv "$T/hidden.csv"
# and its second: tp 0.5 truncated to a TP of 0 and divided by it
printf 'id,source_id,engine,model,num_layers,hidden_size,num_attention_heads,vocab_size,gpu_type,tp,pp,precision,batch_size,input_len,output_len,latency_ms\n1,S1,FasterTransformer,m,32,4096,32,51200,A100,0.5,1,FP16,1,128,128,10\n' >"$T/frac.csv"
expect fuzz_infer_fractional_tp 2 "tp is not a whole number" -- validate --infer --csv "$T/frac.csv"
