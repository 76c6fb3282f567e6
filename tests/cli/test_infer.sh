#!/bin/sh
# test_infer.sh — `autoconfig infer` as a user meets it: the predicted sweep and
# its CSV, the latency filter, --json, and the measured path end to end (job
# folders written, emulated benchmark logs summarised; missing/failed logs are
# recorded failures).
AC=${AUTOCONFIG:?}
cd "${REPO:?}" || exit 1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass() { echo "PASS infer:$1"; }
fail() { echo "FAIL infer:$1: $2"; }
K=search_config.inference_settings
common="search_config=gpt3/20b search_config.train_settings.logs=$T/logs $K.run.results_dir=$T/r"
CSV="$T/r/inference/final_summary/final_output.csv"

out=$("$AC" infer $common 2>&1); rc=$?
[ $rc -eq 0 ] && pass sim_exit || fail sim_exit "exit $rc: $out"
case "$out" in *"usable configurations by throughput per GPU"*) pass sim_table ;; *) fail sim_table "$out" ;; esac
head -1 "$CSV" 2>/dev/null | grep -q '^TP,PP,BS,Latency \[ms\],Throughput per GPU \[samples/sec/gpu\],Source' \
    && pass sim_csv_header || fail sim_csv_header "$(head -1 "$CSV" 2>&1)"
sed -n 2p "$CSV" | grep -q ',predicted,' && pass sim_labelled_predicted || fail sim_labelled_predicted "$(sed -n 2p "$CSV")"

out=$("$AC" infer $common +$K.max_latency_ms=300 2>&1)
over="$T/r/inference/final_summary/over_latency_limit.csv"
if [ "$(wc -l < "$over")" -gt 1 ] && ! awk -F, 'NR>1 && $13=="ok" && $4>300 {bad=1} END {exit bad}' "$CSV"; then
    fail latency_filter "a row over 300 ms is in final_output.csv"
else
    [ "$(wc -l < "$over")" -gt 1 ] && pass latency_filter || fail latency_filter "nothing over the limit: $out"
fi

out=$("$AC" infer --json $common 2>&1)
case "$out" in *'"source":"predicted"'*'"tables":[{"input_len":60,"output_len":20'*) pass json ;; *) fail json "$out" ;; esac

out=$("$AC" infer $common "$K.run.tensor_parallel_sizes=[7]" 2>&1); rc=$?
[ $rc -eq 2 ] && case "$out" in *"no valid inference configuration"*) true ;; *) false ;; esac && pass no_valid_config || fail no_valid_config "exit $rc: $out"

out=$("$AC" infer $common "search_config.inference_settings.max_latency_ms=1" 2>&1); rc=$?
[ $rc -eq 0 ] && case "$out" in *"No configuration meets the 1 ms limit: the fastest takes "*" ms (TP "*) true ;; *) false ;; esac &&
    pass latency_limit_unmet_explained || fail latency_limit_unmet_explained "exit $rc: $out"

# measured path: jobs written, not submitted; emulate the benchmark's logs
out=$("$AC" infer $common cluster_type=bcm "$K.run.tensor_parallel_sizes=[1,2]" "$K.run.pipeline_parallel_sizes=[1]" "$K.benchmark.batch_sizes=[1,8]" 2>&1); rc=$?
D="$T/r/inference"
[ $rc -eq 0 ] && [ -f "$D/gpt3_20b_tp2_pp1_bs8/config.ini" ] && [ -f "$D/gpt3_20b_tp2_pp1_bs8/start_ids.csv" ] \
    && [ -f "$D/gpt3_20b_tp2_pp1_bs8/submission_script.sh" ] && pass measured_files || fail measured_files "exit $rc: $out; $(ls "$D" 2>&1)"
grep -q "tensor_para_size = 2" "$D/gpt3_20b_tp2_pp1_bs8/config.ini" 2>/dev/null && pass config_ini || fail config_ini "no tensor_para_size"
grep -q "^#SBATCH --job-name=.*benchmark_FT_gpt3_20b_tp2_pp1_bs8" "$D/gpt3_20b_tp2_pp1_bs8/submission_script.sh" 2>/dev/null \
    && pass script_job_name || fail script_job_name "$(cat "$D/gpt3_20b_tp2_pp1_bs8/submission_script.sh" 2>&1)"
bash -n "$D/gpt3_20b_tp2_pp1_bs8/submission_script.sh" 2>/dev/null && pass script_syntax || fail script_syntax "bash -n failed"
# before any job has written its log: an error, and the predicted summary stays
sum=$(cksum <"$CSV")
out=$("$AC" infer --summarize $common cluster_type=bcm "$K.run.tensor_parallel_sizes=[1,2]" "$K.run.pipeline_parallel_sizes=[1]" "$K.benchmark.batch_sizes=[1,8]" 2>&1); rc=$?
[ $rc -eq 2 ] && [ "$(cksum <"$CSV")" = "$sum" ] && case "$out" in *"no benchmark log with a latency"*"nothing written"*) true ;; *) false ;; esac &&
    pass summarize_without_logs || fail summarize_without_logs "exit $rc: $out"
printf 'rank 0@node\n[INFO] batch_size 1 FT-CPP-decoding-beamsearch-time 200.00 ms\n' > "$D/gpt3_20b_tp1_pp1_bs1/log_job_7.out"
printf 'rank 0@node\n[INFO] batch_size 8 FT-CPP-decoding-beamsearch-time 400.00 ms\n' > "$D/gpt3_20b_tp2_pp1_bs8/log_job_8.out"
printf 'rank 0@node\nterminate called after throwing an instance of std::runtime_error\n' > "$D/gpt3_20b_tp1_pp1_bs8/log_job_9.out"
out=$("$AC" infer --summarize $common cluster_type=bcm "$K.run.tensor_parallel_sizes=[1,2]" "$K.run.pipeline_parallel_sizes=[1]" "$K.benchmark.batch_sizes=[1,8]" 2>&1); rc=$?
[ $rc -eq 0 ] && pass summarize_exit || fail summarize_exit "exit $rc: $out"
sed -n 2p "$CSV" | grep -q '^2,1,8,400.0,10.0,measured' && pass summarize_best_first || fail summarize_best_first "$(cat "$CSV")"
grep -q 'failed,.*no line containing' "$CSV" && grep -q 'failed,.*missing log' "$CSV" \
    && pass summarize_failures_recorded || fail summarize_failures_recorded "$(cat "$CSV")"
case "$out" in *"2 failed:"*) pass summarize_prints_failures ;; *) fail summarize_prints_failures "$out" ;; esac

# --- `run` on a real cluster (local here) runs the sweep's benchmark jobs through the executor ---
# an emulated benchmark: rank 0 prints FasterTransformer's latency line from the job's config.ini
cat > "$T/ftbench.sh" <<'SH'
[ "${SLURM_PROCID:-0}" = 0 ] || exit 0
echo started >> "$(dirname "$1")/starts"
awk -F' = ' '/^request_batch_size/ {b = $2} /^tensor_para_size/ {t = $2}
    END {printf "[INFO] batch_size %d FT-CPP-decoding-beamsearch-time %.2f ms\n", b, 100 + 10 * b / t}' "$1"
SH
R="cluster_type=local run_training_hp_search=false search_config.train_settings.logs=$T/lr $K.run.benchmark_command=sh\ $T/ftbench.sh\ {ini}"
grid="$K.run.tensor_parallel_sizes=[1,2] $K.run.pipeline_parallel_sizes=[1] $K.benchmark.batch_sizes=[1,8]"
# shellcheck disable=SC2086
out=$(eval "\"\$AC\" run $R $grid" 2>"$T/lr.err"); rc=$?
case "$out" in *"Inference benchmark jobs: 4 ran, 0 failed"*"(measured)"*"2    2   1     8       140.00"*)
    [ $rc -eq 0 ] && [ "$(grep -c ',measured' "$T/lr/inference/final_summary/final_output.csv")" = 4 ] && pass run_local_benchmarks ;;
    *) fail run_local_benchmarks "exit $rc: $out $(cat "$T/lr.err")" ;; esac
# resumed from the ledger: a second run starts no benchmark again
before=$(cat "$T"/lr/inference/*/starts | wc -l)
eval "\"\$AC\" run $R $grid" >/dev/null 2>&1
after=$(cat "$T"/lr/inference/*/starts | wc -l)
[ "$before" = 4 ] && [ "$after" = 4 ] && "$AC" status "$T/lr" 2>/dev/null | grep -q 'benchmark_gpt3_5b_tp2_pp1_bs8' &&
    pass run_benchmarks_resume || fail run_benchmarks_resume "starts $before then $after"
