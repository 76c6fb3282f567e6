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
common="cluster_type=local $S.logs=$L $S.limit_search_runs=3 run_inference_hp_search=false"

# --- emulate-job: the estimator's step time, or the OOM text when predicted not to fit ---
"$AC" run "$S.logs=$T/sim" >/dev/null 2>&1
CD="$T/sim/candidate_configs"
fit=$(ls "$CD" | grep '_tp_1_pp_1_mbs_1_' | head -1)
oom=$(ls "$CD" | grep '_tp_1_pp_1_mbs_8_' | head -1)
pred=$(tr ',' '\n' <"$T/sim/final_result/summary.json" | grep -A30 "\"name\":\"${fit%.yaml}\"" |
       sed -n 's/.*"predicted_step_time_s":\([0-9.]*\).*/\1/p' | head -1)
# emulate-job reads what NeMo reads: the job's resolved config (launch --dry-run writes it)
mkdir -p "$T/two" && cp "$CD/$fit" "$CD/$oom" "$T/two/"
"$AC" launch --dry-run --candidates "$T/two" cluster_type=local "$S.logs=$T/dry" >/dev/null 2>&1
RD="$T/dry/training_logs"
out=$("$AC" emulate-job "$CD/$fit" --results-dir "$T/em0" --sleep 0 2>&1); rc=$?
case "$out" in *"InterpolationKeyError"*"base_results_dir"*) [ $rc -eq 1 ] && pass emulate_refuses_unresolved ;;
    *) fail emulate_refuses_unresolved "exit $rc: $out" ;; esac
fit="${fit%.yaml}/${fit%.yaml}_hydra.yaml"; oom="${oom%.yaml}/${oom%.yaml}_hydra.yaml"; CD="$RD"
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

# --- launch --json: one candidate that fits (measured), one predicted not to (failed with the OOM text) ---
fit=$(basename "$(dirname "$fit")").yaml; oom=$(basename "$(dirname "$oom")").yaml
"$AC" launch --json --candidates "$T/two" cluster_type=local "$S.logs=$T/ln" >"$T/ln.json" 2>/dev/null
python3 -c 'import json, sys
runs = {r["name"]: r for r in json.load(open(sys.argv[1]))["runs"]}
ok, bad = runs[sys.argv[2]], runs[sys.argv[3]]
assert ok["state"] == "done" and ok["measured_step_time_s"] > 0 and ok["predicted_step_time_s"] > 0
assert bad["state"] == "failed" and "CUDA out of memory" in bad["reason"] and bad["measured_step_time_s"] is None' \
    "$T/ln.json" "${fit%.yaml}" "${oom%.yaml}" 2>/dev/null && pass launch_json || fail launch_json "$(head -c 400 "$T/ln.json")"

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
"$AC" status --json "$L" 2>/dev/null | python3 -c 'import json, sys
d = json.load(sys.stdin)
assert len(d["runs"]) == 3 and all(r["state"] == "done" and r["measured_step_time_s"] > 0 for r in d["runs"])' 2>/dev/null &&
    pass status_json || fail status_json "$("$AC" status --json "$L" 2>&1 | head -c 300)"
# a second run resumes from the ledger: nothing starts again, same measurements
out2=$("$AC" run $common 2>/dev/null)
n=$(cat "$L"/training_logs/*/starts | wc -l)
[ "$n" = 3 ] && [ "$(echo "$out" | grep '^Config #1')" = "$(echo "$out2" | grep '^Config #1')" ] &&
    pass rerun_starts_nothing || fail rerun_starts_nothing "$n starts"

# --- an OOM at run time (emulated cluster needing 2.5x the predicted memory: every run fails) is a failed run with the reason ---
out=$(AUTOCONFIG_EMULATE_MEM_SCALE=2.5 "$AC" run $common "$S.logs=$T/oom" 2>"$T/oom.err"); rc=$?
# nothing measured: the results and the report are written, and the exit status says the search failed
[ $rc -eq 1 ] && grep -q 'every launched training run failed' "$T/oom.err" && [ -f "$T/oom/final_result/report.html" ] &&
    grep -q 'CUDA out of memory' "$T/oom/final_result/failed_jobs_16nodes.csv" &&
    case "$out" in *"failed"*"run failed (job "*"CUDA out of memory"*) true ;; *) false ;; esac &&
    pass run_oom_in_failed_jobs || fail run_oom_in_failed_jobs "exit $rc: $out"
case "$out" in *"No config to rank: all 3 launched runs failed"*) pass all_failed_says_so ;;
    *) fail all_failed_says_so "$out" ;; esac

# --- a relative logs path (the default ./results is one): the jobs chdir, their paths must not break ---
mkdir -p "$T/rel"
out=$(cd "$T/rel" && "$AC" run --conf "$REPO/conf" cluster_type=local "$S.limit_search_runs=2" "$S.logs=./logs" \
      run_inference_hp_search=false 2>&1); rc=$?
[ $rc -eq 0 ] && case "$out" in *"Training runs: 2 measured, 0 failed"*) true ;; *) false ;; esac &&
    grep -q "^cd '$T/rel/logs/training_logs/" "$T"/rel/logs/training_logs/*/job.sh &&
    pass relative_logs_path_runs || fail relative_logs_path_runs "exit $rc: $out"

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

# --- cancel from another shell while run waits: the running job stops, the planned ones never start ---
CL="$T/cancel"
AUTOCONFIG_LOCAL_PARALLEL=1 AUTOCONFIG_JOB_TEMPLATE='echo started >> {run_dir}/starts; exec {autoconfig} emulate-job {config} --gpu {gpu} --results-dir {results_dir} --sleep 30' \
    "$AC" run $common "$S.logs=$CL" run_inference_hp_search=false >"$T/cancel.out" 2>&1 &
BG=$!
for _ in $(seq 100); do [ "$(cat "$CL"/training_logs/*/starts 2>/dev/null | wc -l)" -ge 1 ] && break; sleep 0.05; done
"$AC" cancel "$CL" >"$T/cancel.msg" 2>&1
for _ in $(seq 100); do kill -0 $BG 2>/dev/null || break; sleep 0.1; done
if kill -0 $BG 2>/dev/null; then kill $BG; fi
wait $BG; rc=$?
n=$(cat "$CL"/training_logs/*/starts 2>/dev/null | wc -l)
[ "$n" = 1 ] && [ "$(grep -c 'cancelled by autoconfig cancel' "$T/cancel.out")" = 3 ] && grep -q 'cancelled 3' "$T/cancel.msg" &&
    grep -q 'the search was cancelled (autoconfig cancel) before a run finished; the same command with --retry-failed launches its 3 runs again' "$T/cancel.out" &&
    pass cancel_stops_running_search || fail cancel_stops_running_search "exit $rc, $n starts: $(cat "$T/cancel.msg" "$T/cancel.out")"

# --- calibrate: an emulated cluster 1.3x slower than the estimator (3 % noise) ---
C="$T/conf"
cp -r "$REPO/conf" "$C"
export AUTOCONFIG_EMULATE_SCALE=1.3 AUTOCONFIG_EMULATE_NOISE=0.03
# median |Error vs Predicted %| of a summary CSV's measured rows
med_err() { awk -F, 'NR > 1 && $27 == "measured" { e = $29 < 0 ? -$29 : $29; print e }' "$1" | sort -n |
            awk '{ v[NR] = $1 } END { if (!NR) print 999; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
"$AC" run --conf "$C" $common search_config=gpt3/20b "$S.logs=$T/u20" >/dev/null 2>&1
before=$(med_err "$T/u20/final_result/final_summary_64nodes.csv")
"$AC" run --conf "$C" $common "$S.limit_search_runs=5" "$S.logs=$T/c5" >/dev/null 2>&1
out=$("$AC" calibrate "$T/c5" --conf "$C" 2>&1); rc=$?
case "$out" in *"from 5 measured runs"*"Median |error| of the predicted step time: "*"before"*"after"*"calibration_bcm.csv"*)
    [ $rc -eq 0 ] && [ -f "$C/cluster/calibration_bcm.csv" ] && pass calibrate_writes_cluster_file ;;
    *) fail calibrate_writes_cluster_file "exit $rc: $out" ;; esac
echo "$out" | sed -n 's/.*: \([0-9.]*\)% before, \([0-9.]*\)% after/\1 \2/p' | awk '{ exit !($1 > 15 && $2 < 5) }' &&
    pass calibrate_fit_error_drops || fail calibrate_fit_error_drops "$out"
# a later search of another model on the same cluster loads it and predicts better
out=$("$AC" run --conf "$C" $common search_config=gpt3/20b "$S.logs=$T/c20" 2>&1)
after=$(med_err "$T/c20/final_result/final_summary_64nodes.csv")
case "$out" in *"Estimator calibrated for cluster bcm by $C/cluster/calibration_bcm.csv"*) pass later_search_loads_calibration ;;
    *) fail later_search_loads_calibration "$out" ;; esac
awk -v b="$before" -v a="$after" 'BEGIN { exit !(b > 15 && a < 5) }' && pass calibrated_prediction_error_drops ||
    fail calibrated_prediction_error_drops "median |error| $before% before, $after% after"
# estimate on the same cluster uses the fitted constants too, and says so
e_cal=$("$AC" estimate --conf "$C" --json 2>/dev/null | sed -n 's/.*"step":\([0-9.e+-]*\).*/\1/p' | head -1)
e_def=$("$AC" estimate --json 2>/dev/null | sed -n 's/.*"step":\([0-9.e+-]*\).*/\1/p' | head -1)
out=$("$AC" estimate --conf "$C" 2>&1)
case "$out" in *"Estimator calibrated for this cluster by $C/cluster/calibration_bcm.csv"*)
    awk -v a="$e_cal" -v b="$e_def" 'BEGIN { exit !(a > 1.15 * b) }' && pass estimate_loads_calibration ||
        fail estimate_loads_calibration "calibrated $e_cal s vs default $e_def s" ;;
    *) fail estimate_loads_calibration "$out" ;; esac
# --dry-run writes nothing; --out writes elsewhere
sum=$(cksum <"$C/cluster/calibration_bcm.csv")
"$AC" calibrate "$T/c5" --conf "$C" --dry-run >/dev/null 2>&1 && [ "$(cksum <"$C/cluster/calibration_bcm.csv")" = "$sum" ] &&
    "$AC" calibrate "$T/c5" --conf "$C" --out "$T/cal.csv" >/dev/null 2>&1 && grep -q '^compute_scale,' "$T/cal.csv" &&
    pass calibrate_dry_run_and_out || fail calibrate_dry_run_and_out "file changed or --out missing"
"$AC" calibrate "$T/c5" --conf "$C" --dry-run --json 2>/dev/null | python3 -c 'import json, sys
d = json.load(sys.stdin)
assert len(d["runs"]) == 5 and d["written"] is None and d["median_abs_err_after_pct"] <= d["median_abs_err_before_pct"] + 0.01 < 5' 2>/dev/null &&
    pass calibrate_json || fail calibrate_json "$("$AC" calibrate "$T/c5" --conf "$C" --dry-run --json 2>&1 | head -c 300)"
unset AUTOCONFIG_EMULATE_SCALE AUTOCONFIG_EMULATE_NOISE

# --- calibrate: bad input is a clear error and writes nothing ---
out=$("$AC" calibrate "$T/sim" --conf "$C" --out "$T/bad1.csv" 2>&1); rc=$?
[ $rc -eq 2 ] && [ ! -e "$T/bad1.csv" ] && case "$out" in *"no ledger here"*) true ;; *) false ;; esac &&
    pass calibrate_without_ledger || fail calibrate_without_ledger "exit $rc: $out"
out=$("$AC" calibrate "$T/oom" --conf "$C" --out "$T/bad2.csv" 2>&1); rc=$?
[ $rc -eq 2 ] && [ ! -e "$T/bad2.csv" ] && case "$out" in *"no measured run to calibrate on (3 in the ledger: 3 failed"*) true ;; *) false ;; esac &&
    pass calibrate_only_failed_runs || fail calibrate_only_failed_runs "exit $rc: $out"
printf 'key,value,reason\ncompute_scale,-1,x\n' >"$C/cluster/calibration_bcm.csv"
out=$("$AC" run --conf "$C" "$S.logs=$T/bad3" 2>&1); rc=$?
[ $rc -eq 2 ] && case "$out" in *"calibration_bcm.csv"*"compute_scale"*) true ;; *) false ;; esac &&
    pass malformed_calibration_file_named || fail malformed_calibration_file_named "exit $rc: $out"

# --- security: the W&B key reaches the job's environment, never a file; shell text in values runs nothing ---
printf 'SECRET-WANDB-KEY-0042\n' >"$T/key"
WL="$T/w \$(touch $T/pwned); x"
AUTOCONFIG_JOB_TEMPLATE='[ -n "${WANDB_API_KEY:-}" ] || exit 7; {autoconfig} emulate-job {config} --results-dir {results_dir} --sleep 0' \
    "$AC" run $common "$S.limit_search_runs=2" "$S.logs=$WL" wandb.enable=true "wandb.api_key_file=$T/key" >"$T/w.out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q 'Training runs: 2 measured, 0 failed' "$T/w.out" && pass wandb_key_reaches_job ||
    fail wandb_key_reaches_job "exit $rc: $(cat "$T/w.out")"
if grep -rq 'SECRET-WANDB-KEY' "$WL" "$T/w.out"; then fail wandb_key_never_written "$(grep -rl 'SECRET-WANDB-KEY' "$WL")"
else pass wandb_key_never_written; fi
[ ! -e "$T/pwned" ] && [ -d "$WL/final_result" ] && pass logs_path_with_shell_text_runs_nothing ||
    fail logs_path_with_shell_text_runs_nothing "pwned created or no results"

# --- candidates predicted just over the memory limit are measured on a real cluster (borderline) ---
B="search_config=gpt3/20b $S.num_nodes=1 cluster_type=local $S.limit_search_runs=1 run_inference_hp_search=false"
out=$(AUTOCONFIG_EMULATE_MEM_SCALE=0.99 "$AC" run $B "$S.logs=$T/bl" 2>/dev/null); rc=$?
case "$out" in *"3 launched"*"of them 2 borderline"*"Training runs: 2 measured, 1 failed"*"%  gpt3_20b_1nodes_tp_4_pp_1_mbs_4_"*"[borderline: predicted 80.5 GiB, 80.0 usable]"*"CUDA out of memory"*)
    [ $rc -eq 0 ] && grep -q '"borderline":true' "$T/bl/final_result/summary.json" && pass borderline_measured ;;
    *) fail borderline_measured "exit $rc: $out" ;; esac
out=$("$AC" run $B "$S.logs=$T/bl2" "$S.launch_over_memory=never" 2>/dev/null)
case "$out" in *"1 launched"*"Training runs: 1 measured, 0 failed"*) pass borderline_never ;; *) fail borderline_never "$out" ;; esac

# --- search runs on fewer nodes: measured small, reported scaled to num_nodes ---
out=$("$AC" run $common "$S.logs=$T/few" "$S.search_num_nodes=auto" run_inference_hp_search=false 2>/dev/null); rc=$?
n=$(echo "$out" | grep -c 'measured at 1 nodes (.*s), scaled to 16')
[ $rc -eq 0 ] && [ "$n" = 3 ] && grep -q '^  num_nodes: 1$' "$T"/few/training_logs/*/*_hydra.yaml && pass search_num_nodes_auto ||
    fail search_num_nodes_auto "exit $rc, $n scaled: $out"
out=$("$AC" run $common "$S.logs=$T/few2" "$S.search_num_nodes=99" 2>&1); rc=$?
case "$out" in *"search_num_nodes"*"from 1 to num_nodes (16)"*) [ $rc -eq 2 ] && [ ! -d "$T/few2" ] && pass search_num_nodes_bad ;;
    *) fail search_num_nodes_bad "exit $rc: $out" ;; esac

# --- one vocabulary and one name: console, summary.json and report agree on a search with a failure ---
out=$("$AC" run $common "$S.logs=$T/agree" "$S.launch_over_memory=all" 2>/dev/null); rc=$?
J="$T/agree/final_result/summary.json"; H="$T/agree/final_result/report.html"
counts=$(python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))["search"]
print("%(candidates)d candidates (12 in the original.s grid), %(valid)d valid, %(predicted_fit)d predicted to fit, %(predicted_oom)d predicted out of memory; %(launched)d launched" % s)
print("%(candidates)d candidates, %(valid)d valid, %(predicted_fit)d predicted to fit, %(predicted_oom)d predicted out of memory; %(launched)d launched, %(measured)d measured, %(failed)d failed" % s)
print("Training runs: %(measured)d measured, %(failed)d failed" % s)' "$J" 2>/dev/null)
c1=$(echo "$counts" | sed -n 1p | sed "s/original.s/original's/"); c2=$(echo "$counts" | sed -n 2p); c3=$(echo "$counts" | sed -n 3p)
case "$out" in *"$c1"*"$c3"*) grep -qF "$c2" "$H" && case "$c3" in *" 1 failed") true ;; *) false ;; esac &&
    [ $rc -eq 0 ] && pass counts_agree ;; *) fail counts_agree "exit $rc: json '$counts' console: $out" ;; esac
best=$(echo "$out" | sed -n 's/^Config #1: \([^ ]*\) with .*/\1/p')
csv1=$(sed -n 2p "$T/agree/final_result/final_summary_16nodes.csv" | awk -F, '{print $NF}')
[ -n "$best" ] && [ -f "$T/agree/candidate_configs/$best.yaml" ] && grep -q ",$best" "$T/agree/final_result/final_summary_16nodes.csv" &&
    grep -qF "$best" "$H" && grep -q "\"best\":\"$best\"" "$J" && pass one_name_everywhere ||
    fail one_name_everywhere "console '$best', csv '$csv1'"
