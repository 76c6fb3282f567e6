#!/bin/sh
# test_progress.sh — the progress of `autoconfig run` while its training runs
# execute (cluster_type=local, emulated jobs), as a user sees it: on a terminal
# (a pseudo-terminal from util-linux `script`) one line rewritten in place with
# '\r' that fits the terminal; piped, plain lines with no '\r', on stderr only.
AC=${AUTOCONFIG:?}
cd "${REPO:?}" || exit 1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass() { echo "PASS progress:$1"; }
fail() { echo "FAIL progress:$1: $2"; }
export AUTOCONFIG_POLL_MS=100
export AUTOCONFIG_JOB_TEMPLATE='exec {autoconfig} emulate-job {config} --gpu {gpu} --results-dir {results_dir} --sleep 0.5'
S=search_config.train_settings
args="cluster_type=local $S.limit_search_runs=3 run_inference_hp_search=false"

# piped: stdout has the results only, stderr plain progress lines
# shellcheck disable=SC2086
"$AC" run $args "$S.logs=$T/pipe" >"$T/pipe.out" 2>"$T/pipe.err"; rc=$?
if [ $rc -ne 0 ]; then fail piped "exit $rc: $(tail -3 "$T/pipe.err")"
elif grep -q "$(printf '\r')" "$T/pipe.err"; then fail piped_plain_lines "a carriage return in piped output"
elif ! grep -q '^\[training runs\] [0-9]*/3 ended' "$T/pipe.err" || ! grep -q '^\[training runs\] finished: 3/3 ended, 0 failed' "$T/pipe.err"
then fail piped_plain_lines "$(cat "$T/pipe.err")"
elif grep -q '\[training runs\]' "$T/pipe.out"; then fail piped_stdout_clean "progress on stdout"
else pass piped_plain_lines; pass piped_stdout_clean; fi

# on a terminal 50 columns wide: the counts rewritten in place on one line
if command -v script >/dev/null 2>&1; then
    COLUMNS=50 script -qec "stty cols 50 2>/dev/null; \"$AC\" run $args \"$S.logs=$T/tty\"" /dev/null </dev/null >"$T/tty.out" 2>&1
    rc=$?
    # the line holding the progress: split the pty's output at newlines
    line=$(tr -d '\n' <"$T/tty.out" | tr '\r' '\n' | grep -c '^\[training runs\]')
    wide=$(tr '\r' '\n' <"$T/tty.out" | awk 'length($0) > 49' | grep -c '\[training runs\]')
    if [ $rc -ne 0 ]; then fail tty "exit $rc: $(tail -c 300 "$T/tty.out")"
    elif ! grep -q "$(printf '\r')\[training runs\] finished: 3/3 ended" "$T/tty.out"; then
        fail tty_in_place "no '\\r[training runs] finished' in $(tail -c 300 "$T/tty.out" | od -c | head -5)"
    elif [ "$line" -lt 3 ]; then fail tty_in_place "only $line rewrites of the progress line"
    elif [ "$wide" -ne 0 ]; then fail tty_fits_terminal "$wide progress lines wider than 49 columns"
    else pass tty_in_place; pass tty_fits_terminal; fi
else
    echo "progress: util-linux script not installed: terminal check skipped"
fi
