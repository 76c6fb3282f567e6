#!/bin/sh
# test_recommend.sh — issue 25: the recommendation an expert would train with.
# The global batch moved to one that splits, the optimal config as the best of
# everything scored (tie band, conventional layouts, deduplicated twins), written
# for the full training run, with the memory and budget warnings.
AC=${AUTOCONFIG:?}
cd "${REPO:?}" || exit 1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

pass() { echo "PASS recommend:$1"; }
fail() { echo "FAIL recommend:$1: $2"; }

# --- the original docs' own example: GPT-3 5B on 20 nodes, GBS 2048 has no split on 160 GPUs
L="$T/gbs"
out=$("$AC" run search_config=gpt3/5b search_config.train_settings.num_nodes=20 run_inference_hp_search=False \
    "search_config.train_settings.logs=$L" 2>&1); st=$?
[ $st -eq 0 ] && pass gbs_20_nodes_succeeds || fail gbs_20_nodes_succeeds "exit $st: $out"
case "$out" in *"Global batch: 2048 has no split on 160 GPUs"*"searched GBS 2080"*) pass gbs_named ;; *) fail gbs_named "$out" ;; esac
grep -q '"global_batch_size":2080' "$L/final_result/summary.json" && grep -q '"global_batch_adjusted":true' "$L/final_result/summary.json" \
    && pass gbs_in_summary || fail gbs_in_summary "$(head -c 600 "$L/final_result/summary.json")"
grep -q "global_batch_size: 2080" "$L/final_result/optimal_config_5b_20nodes.yaml" \
    && pass gbs_in_optimal || fail gbs_in_optimal "$(grep global_batch "$L/final_result/optimal_config_5b_20nodes.yaml")"
# exhaustive mode moves it the same way
out=$("$AC" run search_config=gpt3/5b search_config.train_settings.num_nodes=20 run_inference_hp_search=False \
    search_config.train_settings.search_mode=exhaustive "search_config.train_settings.logs=$T/gbsx" 2>&1); st=$?
[ $st -eq 0 ] && case "$out" in *"searched GBS 2080"*) true ;; *) false ;; esac && pass gbs_exhaustive || fail gbs_exhaustive "exit $st: $out"
# an explicit list pins the batch: no adjustment, the original's error
out=$("$AC" run search_config=gpt3/5b search_config.train_settings.num_nodes=20 run_inference_hp_search=False \
    "search_config.train_settings.global_batch_sizes=[2048]" "search_config.train_settings.logs=$T/gbsp" 2>&1); st=$?
[ $st -eq 2 ] && case "$out" in *"not a multiple of MBS·DP"*) true ;; *) false ;; esac && pass gbs_pinned || fail gbs_pinned "exit $st: $out"
# a batch that splits is left alone
out=$("$AC" run run_inference_hp_search=False "search_config.train_settings.logs=$T/gbs16" 2>&1)
case "$out" in *"Global batch:"*) fail gbs_untouched "$out" ;; *) pass gbs_untouched ;; esac
