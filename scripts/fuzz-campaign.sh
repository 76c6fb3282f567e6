#!/bin/sh
# fuzz-campaign.sh — one fuzzing budget shared by every libFuzzer target of
# `make fuzz` (build-fuzz/fuzz_*), PARALLEL at a time, each for an equal share:
#   scripts/fuzz-campaign.sh [BUDGET_SECONDS=1800] [PARALLEL=2]
# New inputs go to a scratch corpus (the seeds in fuzz/corpus/ stay as they are);
# crashes to fuzz-findings/<target>/.  Prints one line per target: executions,
# executions per second, new corpus entries and findings.
BUDGET=${1:-1800}
PAR=${2:-2}
set -u
targets=$(ls build-fuzz/fuzz_* 2>/dev/null | grep -v '\.' ) || true
[ -n "$targets" ] || { echo "no build-fuzz/fuzz_* (run make fuzz)" >&2; exit 1; }
n=$(echo "$targets" | wc -l)
share=$((BUDGET * PAR / n))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "budget ${BUDGET}s, $n targets, $PAR at a time: ${share}s each"
# inputs large enough for every format the targets read, small enough to stay fast
maxlen() { case $1 in fuzz_report|fuzz_tfevents|fuzz_hf_config) echo 16384 ;; *) echo 4096 ;; esac; }
run_one() {
    t=$1
    name=$(basename "$t")
    mkdir -p "$work/$name" "fuzz-findings/$name"
    "$t" "$work/$name" "fuzz/corpus/$name" -max_total_time="$share" -max_len="$(maxlen "$name")" \
        -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="fuzz-findings/$name/" \
        >"$work/$name.log" 2>&1
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name.log" | tail -1)
    found=$(find "fuzz-findings/$name" -type f | wc -l)
    new=$(find "$work/$name" -type f | wc -l)
    printf '%-22s %12s execs  %8s /s  %5s new inputs  %s findings\n' "$name" "${execs:-?}" \
        "$(( ${execs:-0} / (share > 0 ? share : 1) ))" "$new" "$found"
    if [ "$found" -gt 0 ]; then grep -m3 -E 'ERROR|SUMMARY|runtime error' "$work/$name.log" | sed 's/^/    /'; fi
}
running=0
for t in $targets; do
    run_one "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$PAR" ]; then wait; running=0; fi
done
wait
