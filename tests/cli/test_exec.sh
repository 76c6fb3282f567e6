#!/bin/sh
# test_exec.sh — real execution with cluster_type=local as a user meets it: the
# emulated training job reports the estimator's numbers (or the CUDA OOM text),
# `autoconfig run` launches the top candidates and writes measured beside
# predicted, a run killed with kill -9 resumes without starting a job twice.
AC=${AUTOCONFIG:?}
cd "${REPO:?}" || exit 1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass() { echo "PASS exec:$1"; }
fail() { echo "FAIL exec:$1: $2"; }
export AUTOCONFIG_POLL_MS=100
# every start is counted in the run dir, then the emulated job runs
export AUTOCONFIG_JOB_TEMPLATE='echo started >> {run_dir}/starts; exec {autoconfig} emulate-job {config} --gpu {gpu} --results-dir {results_dir} --sleep 0.2'
L="$T/logs"
S=search_config.train_settings
common="cluster_type=local $S.logs=$L $S.limit_search_runs=3"

# --- emulate-job: the estimator's step time, or the OOM text when predicted not to fit ---
"$AC" run "$S.logs=$T/sim" >/dev/null 2>&1
CD="$T/sim/candidate_configs"
fit=$(ls "$CD" | grep '_tp_1_pp_1_mbs_1_' | head -1)
oom=$(ls "$CD" | grep '_tp_1_pp_1_mbs_8_' | head -1)
pred=$(tr ',' '\n' <"$T/sim/final_result/summary.json" | grep -A30 "\"name\":\"${fit%.yaml}\"" |
       sed -n 's/.*"predicted_step_time_s":\([0-9.]*\).*/\1/p' | head -1)
out=$("$AC" emulate-job "$CD/$fit" --results-dir "$T/em" --sleep 0 2>&1); rc=$?
case "$out" in *EMULATION*"at $(printf %.4f "$pred") s"*) [ $rc -eq 0 ] && pass emulate_estimator_step_time ;;
    *) fail emulate_estimator_step_time "exit $rc, prediction $pred: $out" ;; esac
ls "$T/em"/events.out.tfevents.* >/dev/null 2>&1 && pass emulate_event_file || fail emulate_event_file "$(ls "$T/em")"
out=$("$AC" emulate-job "$CD/$oom" --results-dir "$T/em2" --sleep 0 2>&1); rc=$?
case "$out" in *EMULATION*"CUDA out of memory"*"GiB needed"*) [ $rc -ne 0 ] && pass emulate_oom_when_predicted_not_to_fit ;;
    *) fail emulate_oom_when_predicted_not_to_fit "exit $rc: $out" ;; esac
out=$("$AC" emulate-job "$CD/$fit" --gpu h100 --results-dir "$T/em3" --sleep 0 2>&1)
case "$out" in *"on h100_sxm"*) pass emulate_gpu ;; *) fail emulate_gpu "$out" ;; esac
a=$("$AC" emulate-job "$CD/$fit" --scale 1.3 --results-dir "$T/em4" --sleep 0 2>&1 | sed -n 's/.* at \([0-9.]*\) s (estimator \([0-9.]*\) s.*/\1 \2/p')
echo "$a" | awk '{ r = $1 / $2; exit !(r > 1.299 && r < 1.301) }' && pass emulate_scale || fail emulate_scale "$a"
out=$("$AC" emulate-job "$CD/$fit" --noise 2 2>&1); rc=$?
[ $rc -eq 2 ] && case "$out" in *"--noise"*) true ;; *) false ;; esac && pass emulate_bad_noise || fail emulate_bad_noise "exit $rc: $out"

# --- autoconfig run on cluster_type=local: the top 3 measured, the rest predicted ---
out=$("$AC" run $common 2>"$T/run.err"); rc=$?
CSV="$L/final_result/final_summary_16nodes.csv"
[ $rc -eq 0 ] && case "$out" in *"Training runs: 3 measured, 0 failed"*"(measured)"*) true ;; *) false ;; esac &&
    pass run_local_measured || fail run_local_measured "exit $rc: $out $(cat "$T/run.err")"
[ "$(grep -c ',measured,' "$CSV")" = 3 ] && pass summary_csv_measured_rows || fail summary_csv_measured_rows "$(cat "$CSV")"
# the error column: emulated = estimator, so |error| stays under 1 %
awk -F, 'NR > 1 && $27 == "measured" { if ($29 == "" || $29 > 1 || $29 < -1) bad = 1; n++ } END { exit bad || n != 3 }' "$CSV" &&
    pass summary_csv_error_column || fail summary_csv_error_column "$(cut -d, -f27-29 "$CSV")"
grep -q '"measured_step_time_s":[0-9]' "$L/final_result/summary.json" && pass summary_json_measured ||
    fail summary_json_measured "no measured_step_time_s"
"$AC" status "$L" 2>&1 | grep -q '^3 runs: 3 done, 0 failed' && pass status_after_run || fail status_after_run "$("$AC" status "$L" 2>&1)"
# a second run resumes from the ledger: nothing starts again, same measurements
out2=$("$AC" run $common 2>/dev/null)
n=$(cat "$L"/training_logs/*/starts | wc -l)
[ "$n" = 3 ] && [ "$(echo "$out" | grep '^Config #1')" = "$(echo "$out2" | grep '^Config #1')" ] &&
    pass rerun_starts_nothing || fail rerun_starts_nothing "$n starts"

# --- an OOM at run time (emulated cluster needing 1.6x the predicted memory) is a failed run with the reason ---
out=$(AUTOCONFIG_EMULATE_MEM_SCALE=1.6 "$AC" run $common "$S.logs=$T/oom" 2>/dev/null); rc=$?
[ $rc -eq 0 ] && grep -q 'CUDA out of memory' "$T/oom/final_result/failed_jobs_16nodes.csv" &&
    case "$out" in *"failed"*"run failed (job "*"CUDA out of memory"*) true ;; *) false ;; esac &&
    pass run_oom_in_failed_jobs || fail run_oom_in_failed_jobs "exit $rc: $out"

# --- kill -9 mid-search, then resume: every job started once, all measured ---
KL="$T/kill"
AUTOCONFIG_JOB_TEMPLATE='echo started >> {run_dir}/starts; exec {autoconfig} emulate-job {config} --gpu {gpu} --results-dir {results_dir} --sleep 1.5' \
    "$AC" run $common "$S.logs=$KL" >/dev/null 2>&1 &
BG=$!
for _ in $(seq 100); do [ "$(cat "$KL"/training_logs/*/starts 2>/dev/null | wc -l)" -ge 2 ] && break; sleep 0.05; done
kill -9 $BG; wait $BG 2>/dev/null
out=$("$AC" run $common "$S.logs=$KL" 2>/dev/null); rc=$?
n=$(cat "$KL"/training_logs/*/starts | wc -l)
[ $rc -eq 0 ] && [ "$n" = 3 ] && case "$out" in *"Training runs: 3 measured, 0 failed"*) true ;; *) false ;; esac &&
    pass resume_after_kill9 || fail resume_after_kill9 "exit $rc, $n starts: $out"
