#!/bin/sh
# run-tests.sh — runs every unit-test binary, every CLI test script and the
# fuzz-corpus replays, and ends with the line "N passed, N failed".
# Each unit of work prints "PASS name" or "FAIL name"; this script only counts.
BUILD=${BUILD:-build}
export AUTOCONFIG="$(pwd)/$BUILD/autoconfig"
export REPO="$(pwd)"
# emulated jobs check model keys against NeMo's own configs when ../shared has them
[ -d "$REPO/../shared/reference/nemo-configs/nemo" ] && export AUTOCONFIG_NEMO_CONF="$REPO/../shared/reference/nemo-configs/nemo"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] || continue
    if ! "$t" >>"$log" 2>&1; then
        grep -q "^FAIL" "$log" || echo "FAIL $t: exited non-zero without a FAIL line" >>"$log"
    fi
done

for t in tests/cli/test_*.sh; do
    [ -f "$t" ] || continue
    sh "$t" >>"$log" 2>&1 || echo "FAIL $t: script exited non-zero" >>"$log"
done

# Tests against a real Slurm run only where scripts/slurm-up.sh brought one up.
if [ -n "${AUTOCONFIG_SLURM_TESTS:-}" ]; then
    for t in tests/slurm/test_*.sh; do
        [ -f "$t" ] || continue
        sh "$t" >>"$log" 2>&1 || echo "FAIL $t: script exited non-zero" >>"$log"
    done
fi

for r in "$BUILD"/replay/fuzz_*; do
    [ -x "$r" ] || continue
    name=$(basename "$r")
    dir="fuzz/corpus/$name"
    [ -d "$dir" ] || { echo "FAIL replay:$name: no corpus in $dir" >>"$log"; continue; }
    if find "$dir" -type f -print0 | xargs -0 "$r" >/dev/null 2>>"$log"; then
        echo "PASS replay:$name ($(find "$dir" -type f | wc -l) inputs)" >>"$log"
    else
        echo "FAIL replay:$name" >>"$log"
    fi
done

grep -v '^PASS' "$log"
passed=$(grep -c '^PASS' "$log")
failed=$(grep -c '^FAIL' "$log")
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
