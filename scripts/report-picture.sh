#!/bin/sh
# report-picture.sh [OUT.png] — the README's picture of the report, from a real
# search: the default `make run` search (gpt3/5b on the simulated cluster) with
# the cost stage on and a 500 ms inference latency limit, its report.html opened
# in headless Chromium and saved as a screenshot (default docs/report.png).
# Needs build/autoconfig and chromium.
set -eu
cd "$(dirname "$0")/.."
OUT=${1:-docs/report.png}
AC=build/autoconfig
[ -x "$AC" ] || { echo "report-picture: build first (make)" >&2; exit 1; }
command -v chromium >/dev/null 2>&1 || { echo "report-picture: chromium not installed" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$AC" run run_cost_search=true search_config.inference_settings.max_latency_ms=500 \
    "search_config.train_settings.logs=$T/logs" >/dev/null
"$AC" report "$T/logs"
timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$T/chrome" \
    --window-size=1280,2300 --screenshot="$T/report.png" "file://$T/logs/final_result/report.html" >/dev/null 2>&1
[ -s "$T/report.png" ] || { echo "report-picture: chromium wrote no screenshot" >&2; exit 1; }
cp "$T/report.png" "$OUT"
echo "report-picture: wrote $OUT"
