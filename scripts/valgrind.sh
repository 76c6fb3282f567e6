#!/bin/sh
# valgrind.sh BUILD — the unit-test binaries and the main commands on the embedded
# default (sim) under valgrind's memcheck: any invalid access, use of uninitialised
# memory or definite leak fails the run.  Ends with "valgrind: N clean, M with errors".
B=${1:-build}
cd "$(dirname "$0")/.." || exit 1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --track-origins=yes"
clean=0 bad=0
check() { # name command...
    n=$1; shift
    if $VG "$@" >"$T/out" 2>&1; then clean=$((clean + 1))
    else bad=$((bad + 1)); echo "valgrind: $n failed"; tail -n 30 "$T/out"; fi
}
for t in "$B"/tests/test_*; do
    case "$t" in *.d|*.o) continue ;; esac
    [ -x "$t" ] && check "$(basename "$t")" "$t"
done
AC="$B/autoconfig"
L=search_config.train_settings.logs
check run "$AC" run "$L=$T/run"
check run_llama "$AC" run search_config=llama/llama3_8b "$L=$T/llama"
check cost "$AC" cost search_config=llama/llama2_7b "$L=$T/cost" --gpus a100_80gb,a10g
check estimate "$AC" estimate --json
check report "$AC" report "$T/run"
check infer "$AC" infer search_config=gpt3/20b "$L=$T/infer"
V=../shared/reference/benchmarks_train.csv
[ -f "$V" ] && check validate "$AC" validate --csv "$V" --out "$T/val.csv" --html "$T/val.html"
# real runs on this machine (emulated jobs): executor, ledger, event-file reader, progress
export AUTOCONFIG_POLL_MS=100
export AUTOCONFIG_JOB_TEMPLATE='exec {autoconfig} emulate-job {config} --gpu {gpu} --results-dir {results_dir} --sleep 0.2'
check run_local "$AC" run cluster_type=local "$L=$T/local" search_config.train_settings.limit_search_runs=2 run_inference_hp_search=false
check status "$AC" status --json "$T/local"
check calibrate "$AC" calibrate "$T/local" --dry-run
if $VG "$AC" run search_config.train_settings.num_nodez=3 >"$T/out" 2>&1; [ $? -ne 99 ]; then clean=$((clean + 1)); else bad=$((bad + 1)); echo "valgrind: bad_key failed"; cat "$T/out"; fi
echo "valgrind: $clean clean, $bad with errors"
[ "$bad" -eq 0 ]
