#!/bin/sh
# test_report.sh — `autoconfig report LOGS_DIR`: the page from a fixture search
# (training, inference and cost summaries, a hostile run name), from a real
# sim search, and the errors; then, where Debian's chromium is installed, the
# page opened headless: no console messages, every chart drawn, a screenshot
# kept as $BUILD/report-fixture.png (docs/report.png, the README's picture, comes
# from a real run: scripts/report-picture.sh).
AC=${AUTOCONFIG:?}
cd "${REPO:?}" || exit 1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

pass() { echo "PASS report:$1"; }
fail() { echo "FAIL report:$1: $2"; }

# expect NAME STATUS PATTERN -- args...: exit status and a pattern in stdout+stderr
expect() {
    name=$1 want=$2 pat=$3; shift 4
    out=$("$AC" "$@" 2>&1); got=$?
    if [ "$got" -ne "$want" ]; then fail "$name" "exit $got, expected $want: $out"; return; fi
    case "$out" in *"$pat"*) pass "$name" ;; *) fail "$name" "output lacks '$pat': $out" ;; esac
}

cp -r tests/fixtures/report/full "$T/full"
HTML="$T/full/final_result/report.html"
expect fixture 0 "(16 runs, 7 of 7 charts with data, inference, cost)" -- report "$T/full"
expect fixture_json 0 '"charts_with_data":7,"inference":true,"cost":true}' -- report --json "$T/full"
expect help 0 "usage: autoconfig report LOGS_DIR" -- report --help
expect no_dir_arg 2 "missing LOGS_DIR" -- report
expect missing_dir 2 "$T/nope: no such directory" -- report "$T/nope"
mkdir -p "$T/empty"
expect no_summary 2 "final_result/summary.json: no such file" -- report "$T/empty"
# a search stopped before its summary (its ledger is there): says how to finish it
mkdir -p "$T/stopped" && : > "$T/stopped/ledger.sqlite"
expect stopped_search 2 "the search stopped before its summary; run the same \`autoconfig run\` again" -- report "$T/stopped"
mkdir -p "$T/broken/final_result" && printf '{"runs": [' > "$T/broken/final_result/summary.json"
expect broken_summary 2 "summary.json: not a JSON object" -- report "$T/broken"
expect unknown_option 2 "unknown option '--pdf'" -- report "$T/full" --pdf
# an older inference sweep in the same folder (another GPU) is named and left out, not charted as this search's
S=search_config.train_settings
"$AC" run "$S.logs=$T/stale" >/dev/null 2>&1
out=$("$AC" run "$S.logs=$T/stale" "$S.gpu=h100" run_inference_hp_search=false 2>&1); rc=$?
[ $rc -eq 0 ] && grep -q 'from another search (gpt3_5b on a100_80gb), not this one (gpt3_5b on h100_sxm)' "$T/stale/final_result/report.html" &&
    grep -q '"gpu":"a100_80gb"' "$T/stale/inference/final_summary/summary.json" &&
    pass stale_inference_left_out || fail stale_inference_left_out "exit $rc: $out"

if [ -f "$HTML" ] && ! grep -q '<script>alert' "$HTML" && grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$HTML" \
   && [ "$(grep -o '<script' "$HTML" | wc -l)" -eq 1 ]; then pass escaped_name
else fail escaped_name "the hostile run name reached the page unescaped (or no page)"; fi
if grep -o 'https\?://[^" ]*' "$HTML" | grep -qv '^http://www.w3.org/2000/svg$'; then fail offline "external URL in the page"
elif grep -Eq '<(link|img|iframe)|src=' "$HTML"; then fail offline "the page loads something from outside"
else pass offline; fi

# a real (simulated) search, then its report: only logs is set, and the inference
# results (inference_settings.run.results_dir follows logs) land in the same folder
if "$AC" run "search_config.train_settings.logs=$T/run" >/dev/null 2>&1; then
    expect from_run 0 "charts with data, inference)" -- report "$T/run"
    grep -q 'id="chart-inference"' "$T/run/final_result/report.html" && pass from_run_inference_chart \
        || fail from_run_inference_chart "the report of a run with the inference search has no inference data"
else
    fail from_run "autoconfig run failed"
fi
# serving (issue 27): an in-flight engine's search adds the goodput frontier against the TTFT and ITL limits,
# each with its limit line and the percentile the limits apply to on the axis
cp -r tests/fixtures/report/full "$T/serve"
K=search_config.inference_settings
if "$AC" infer search_config=gpt3/20b "search_config.train_settings.logs=$T/serve" search_config.train_settings.gpu=a100_80gb \
       $K.run.engine=vllm "$K.run.tensor_parallel_sizes=[1,2]" "$K.run.pipeline_parallel_sizes=[1]" "$K.benchmark.batch_sizes=[256]" \
       "$K.benchmark.concurrency=[1,8]" "$K.benchmark.request_rates=[2]" "$K.latency_percentile=90" "$K.max_ttft_ms=200" \
       "$K.max_itl_ms=40" >/dev/null 2>&1; then
    expect serve_report 0 "9 of 9 charts with data, inference, cost" -- report "$T/serve"
    SH="$T/serve/final_result/report.html"
    grep -q 'id="chart-serving-ttft"' "$SH" && grep -q 'id="chart-serving-itl"' "$SH" && grep -q 'TTFT p90 \[ms\]' "$SH" &&
        grep -q 'limit 200 ms' "$SH" && grep -q 'limit 40 ms' "$SH" && pass serve_goodput_frontier \
        || fail serve_goodput_frontier "no goodput frontier charts in the serving report"
else
    fail serve_report "autoconfig infer (vllm) failed"
fi
if "$AC" run "search_config.train_settings.logs=$T/noinf" run_inference_hp_search=false >/dev/null 2>&1; then
    ! grep -q 'id="chart-inference"' "$T/noinf/final_result/report.html" &&
        ! grep -q 'id="chart-cost"' "$T/noinf/final_result/report.html" && pass from_run_no_inference \
        || fail from_run_no_inference "a training-only search's report has an inference or cost section"
else
    fail from_run_no_inference "autoconfig run failed"
fi

# inference results set elsewhere: run reads them from there, and so does report --inference-dir
R="$T/apart"
out=$("$AC" run "search_config.train_settings.logs=$R/train" "search_config.inference_settings.run.results_dir=$R/infer" 2>&1); rc=$?
[ $rc -eq 0 ] && [ -f "$R/infer/inference/final_summary/summary.json" ] &&
    grep -q 'id="chart-inference"' "$R/train/final_result/report.html" &&
    pass run_inference_results_elsewhere || fail run_inference_results_elsewhere "exit $rc: $(echo "$out" | tail -2)"
expect report_inference_dir 0 "charts with data, inference)" -- report "$R/train" --inference-dir "$R/infer"
expect report_inference_dir_missing 2 "--inference-dir $T/nope: no such directory" -- report "$R/train" --inference-dir "$T/nope"

# `autoconfig run` writes the report itself, after the inference stage (results in the same folder)
R="$T/both"
out=$("$AC" run "search_config.train_settings.logs=$R" 2>&1); rc=$?
[ $rc -eq 0 ] && case "$out" in *"Inference HP search"*"Report: $R/final_result/report.html"*) true ;; *) false ;; esac &&
    [ -f "$R/inference/final_summary/summary.json" ] && grep -q 'id="chart-inference"' "$R/final_result/report.html" &&
    pass run_writes_report_with_inference || fail run_writes_report_with_inference "exit $rc: $(echo "$out" | tail -3)"
# --json: one object with a member per stage and the report's path
"$AC" run --json "search_config.train_settings.logs=$R" >"$T/run.json" 2>/dev/null &&
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["training"]["runs"] and d["inference"]["tables"] and d["report"].endswith("report.html")' "$T/run.json" 2>/dev/null &&
    pass run_json_one_object || fail run_json_one_object "$(head -c 300 "$T/run.json")"
# encoder-decoder models: the inference stage is skipped with a reason, the run still succeeds
out=$("$AC" run search_config=t5/0.22b "search_config.train_settings.logs=$T/t5" 2>&1); rc=$?
[ $rc -eq 0 ] && case "$out" in *"Inference HP search skipped"*"t5_0.22b is not one"*"Report: "*) true ;; *) false ;; esac &&
    pass run_t5_skips_inference || fail run_t5_skips_inference "exit $rc: $(echo "$out" | tail -3)"

# the page in a real browser
if command -v chromium >/dev/null 2>&1; then
    B="timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir=$T/chrome"
    $B --enable-logging=stderr --v=0 --dump-dom "file://$HTML" >"$T/dom.html" 2>"$T/chrome.log"
    if grep -q ':CONSOLE' "$T/chrome.log" || grep -q 'Uncaught' "$T/chrome.log"; then
        fail browser_console "$(grep -E ':CONSOLE|Uncaught' "$T/chrome.log" | head -3)"
    elif ! grep -q '</html>' "$T/dom.html"; then fail browser_console "chromium printed no DOM: $(tail -3 "$T/chrome.log")"
    else pass browser_console; fi
    # the page's script counts the charts whose SVG has a non-empty drawn box
    if grep -q 'data-charts-rendered="7"' "$T/dom.html"; then pass browser_charts_rendered
    else fail browser_charts_rendered "$(grep -o 'data-charts-rendered="[0-9]*"' "$T/dom.html" || echo 'script did not run')"; fi
    missing=""
    for id in chart-memory chart-heatmap chart-predicted chart-cost chart-inference chart-mem-breakdown chart-time-breakdown; do
        grep -q "<svg class=\"chart\" id=\"$id\"" "$T/dom.html" || missing="$missing $id"
    done
    [ -z "$missing" ] && pass browser_all_charts || fail browser_all_charts "missing or 'no data':$missing"
    # the candidates table: every column reachable by scrolling it; the view in the address
    # (#sort=COLUMN:asc|desc&filter=TEXT) sorts and filters the rows
    grep -q 'id="runs"[^>]*data-last-col-reachable="1"' "$T/dom.html" && pass browser_table_columns_reachable ||
        fail browser_table_columns_reachable "$(grep -o 'data-last-col-reachable="[0-9]"' "$T/dom.html" || echo 'no mark')"
    N="$T/noinf/final_result/report.html"
    $B --window-size=1280,900 --dump-dom "file://$N#sort=tokens_per_s:asc&filter=tp_2_" >"$T/dom2.html" 2>"$T/chrome2.log"
    shown=$(grep -o 'data-shown="[0-9]*"' "$T/dom2.html" | grep -o '[0-9]*')
    want=$(grep -c '<td class="s name" title="[^"]*tp_2_' "$N")
    # the first row shown (hidden rows carry style="display: none;")
    first=$(grep -oE '<tr( class="[a-z]*")?><td data-v="[^"]*">[^<]*</td><td class="s name" title="[^"]*"' "$T/dom2.html" | head -1 | sed 's/.*title="//; s/"$//')
    slow=$(python3 -c 'import json, sys
runs = [r for r in json.load(open(sys.argv[1]))["runs"] if "tp_2_" in r["name"] and r.get("tokens_per_s")]
print(min(runs, key=lambda r: r["tokens_per_s"])["name"])' "$T/noinf/final_result/summary.json" 2>/dev/null)
    [ -n "$shown" ] && [ "$shown" = "$want" ] && [ "$want" -gt 0 ] && [ "$first" = "$slow" ] &&
        ! grep -qE ':CONSOLE|Uncaught' "$T/chrome2.log" && pass browser_sort_and_filter ||
        fail browser_sort_and_filter "shown $shown of $want tp_2 rows; first '$first', slowest '$slow'"
    # a training-only search's page has no inference or cost chart, and draws every chart it has
    grep -q 'data-charts-rendered="5"' "$T/dom2.html" && ! grep -q 'chart-inference\|chart-cost' "$T/dom2.html" &&
        pass browser_training_only_sections || fail browser_training_only_sections "$(grep -o 'data-charts-rendered="[0-9]*"' "$T/dom2.html")"
    $B --window-size=1280,2500 --screenshot="$T/report.png" "file://$HTML" >/dev/null 2>&1
    if [ -s "$T/report.png" ] && [ "$(head -c 4 "$T/report.png" | tail -c 3)" = "PNG" ]; then
        mkdir -p "${BUILD:-build}" && cp "$T/report.png" "${BUILD:-build}/report-fixture.png" 2>/dev/null
        pass browser_screenshot
    else
        fail browser_screenshot "no PNG written"
    fi
else
    echo "report: chromium not installed (scripts/install-deps.sh installs it): browser checks skipped"
fi
