#!/bin/sh
# test_json.sh — `--json` on every command that prints results: stdout is exactly
# one JSON document a program can load (progress and notes go to stderr), with
# the member a script would look for.  Slurm-only forms (launch --no-wait) are
# in tests/slurm.
AC=${AUTOCONFIG:?}
cd "${REPO:?}" || exit 1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass() { echo "PASS json:$1"; }
fail() { echo "FAIL json:$1: $2"; }
S=search_config.train_settings
export AUTOCONFIG_POLL_MS=100
export AUTOCONFIG_JOB_TEMPLATE='exec {autoconfig} emulate-job {config} --gpu {gpu} --results-dir {results_dir} --sleep 0.2'

# json NAME PYTHON-CHECK -- args...: exit 0, stdout loads as JSON, CHECK (an
# expression over d, the loaded document) holds
json() {
    name=$1 check=$2; shift 3
    "$AC" "$@" >"$T/$name.json" 2>"$T/$name.err"; rc=$?
    if [ $rc -ne 0 ]; then fail "$name" "exit $rc: $(head -c 300 "$T/$name.err")"; return; fi
    if python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)' "$T/$name.json" "$check" 2>"$T/$name.py"; then pass "$name"
    else fail "$name" "$(head -c 300 "$T/$name.json") | $(tail -1 "$T/$name.py")"; fi
}

json size 'd["recommended_size_b"] > 0' -- size --json
json base 'd["num_layers"] == 44' -- base --json search_config=gpt3/20b "$S.logs=$T/base"
json estimate 'd["source"] == "predicted" and d["memory_gib"]["weights"] > 0' -- estimate --json
json keys 'len(d) > 50' -- keys --json
V=../shared/reference/benchmarks_train.csv
VI=../shared/reference/benchmarks_infer.csv
if [ -f "$V" ] && [ -f "$VI" ]; then
    json validate 'isinstance(d, dict) and len(d) > 0' -- validate --json --csv "$V"
    json validate_infer 'isinstance(d, dict) and len(d) > 0' -- validate --infer --json --csv "$VI"
else
    echo "json: $V not here: validate --json skipped"
fi
json infer 'd["source"] == "predicted" and d["tables"]' -- infer --json "$S.logs=$T/run"
json run 'd["training"]["runs"] and d["inference"]["tables"] and d["report"].endswith("report.html")' -- \
    run --json "$S.logs=$T/run"
json report 'd["charts_with_data"] >= 5 and d["inference"]' -- report --json "$T/run"
json cost 'isinstance(d, dict) and len(d) > 0' -- cost --json search_config=llama/llama2_7b "$S.logs=$T/cost" --gpus a100_80gb,a10g

# real runs (local processes running the emulated job): launch, status, cancel, calibrate
L="$T/local"
json run_local 'sum(1 for r in d["training"]["runs"] if r.get("source") == "measured") == 2' -- \
    run --json cluster_type=local "$S.logs=$L" "$S.limit_search_runs=2" run_inference_hp_search=false
if grep -q '^\[training runs\]' "$T/run_local.err"; then pass run_local_progress_on_stderr
else fail run_local_progress_on_stderr "no progress line on stderr: $(head -c 300 "$T/run_local.err")"; fi
json status 'len(d["runs"]) == 2 and all(r["state"] == "done" for r in d["runs"])' -- status --json "$L"
json cancel 'd["cancelled"] == 0' -- cancel --json "$L"
json calibrate 'isinstance(d, dict) and len(d) > 0' -- calibrate --json "$L" --dry-run
mkdir -p "$T/one" && cp "$(ls "$L"/candidate_configs/*.yaml | head -1)" "$T/one/"
json launch 'len(d["runs"]) == 1 and d["runs"][0]["state"] == "done"' -- \
    launch --json --candidates "$T/one" cluster_type=local "$S.logs=$T/ln"
