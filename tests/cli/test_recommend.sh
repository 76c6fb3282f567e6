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
# a move past 4x the tokens per step is another training run: refused, nothing written
out=$("$AC" run search_config.train_settings.num_nodes=100000 run_inference_hp_search=False "search_config.train_settings.logs=$T/gbsbig" 2>&1); st=$?
[ $st -eq 2 ] && [ ! -e "$T/gbsbig" ] && case "$out" in *"GBS 2048 has no split on 800000 GPUs"*"390.6x the tokens per step"*) true ;; *) false ;; esac \
    && pass gbs_far_refused || fail gbs_far_refused "exit $st: $out"
# an explicit list pins the batch: no adjustment, the original's error
out=$("$AC" run search_config=gpt3/5b search_config.train_settings.num_nodes=20 run_inference_hp_search=False \
    "search_config.train_settings.global_batch_sizes=[2048]" "search_config.train_settings.logs=$T/gbsp" 2>&1); st=$?
[ $st -eq 2 ] && case "$out" in *"not a multiple of MBS·DP"*) true ;; *) false ;; esac && pass gbs_pinned || fail gbs_pinned "exit $st: $out"
# a batch that splits is left alone
out=$("$AC" run run_inference_hp_search=False "search_config.train_settings.logs=$T/gbs16" 2>&1)
case "$out" in *"Global batch:"*) fail gbs_untouched "$out" ;; *) pass gbs_untouched ;; esac

# --- the optimal config is written for the full training run; the search runs keep theirs
L="$T/full"
out=$("$AC" run run_inference_hp_search=False "search_config.train_settings.logs=$L" 2>&1)
O="$L/final_result/optimal_config_5b_16nodes.yaml"
grep -q "max_steps: 71525" "$O" && pass optimal_full_run_steps || fail optimal_full_run_steps "$(grep max_steps "$O")"
grep -q "create_checkpoint_callback: true" "$O" && grep -q "time_limit: '5-00:00:00'" "$O" && grep -q "max_time: '4:23:30:00'" "$O" \
    && pass optimal_full_run_limits || fail optimal_full_run_limits "$(grep -E 'time|checkpoint_callback' "$O")"
f=$(ls "$L/candidate_configs" | head -1)
grep -q "max_steps: 50" "$L/candidate_configs/$f" && pass candidates_keep_search_steps || fail candidates_keep_search_steps "$(grep max_steps "$L/candidate_configs/$f")"
case "$out" in *"Optimal config: gpt3_5b_16nodes_tp_1_pp_1_mbs_"*"original grid"*"the full run: 71525 steps"*) pass optimal_labelled ;; *) fail optimal_labelled "$out" ;; esac
# the tie band is the estimator's ranking band of the GPU and stack (data/bands.csv rank_band_rel)
band=$(awk -F, '$1 == "*" && $2 == "megatron-core" {print $6}' "$REPO/data/bands.csv")
grep -q '"recommendation":{"name":"gpt3_5b_16nodes_tp_1_pp_1_' "$L/final_result/summary.json" &&
    grep -q "\"tie_band\":$(echo "$band" | sed 's/0*$//')[,}]" "$L/final_result/summary.json" \
    && pass summary_recommendation || fail summary_recommendation "$(grep -o '"recommendation":.\{300\}' "$L/final_result/summary.json")"

# --- ties: Llama 3 70B on 64 H100 nodes, exhaustive.  The fastest is within the H100 ranking
# band (data/bands.csv) of layouts with fewer model-parallel GPUs: the conventional one is written
# (TP overlap searched too: NeMo's recipes for it switch ub_tp_comm_overlap on)
L="$T/tie"
out=$("$AC" run search_config=llama/llama3_70b search_config.train_settings.gpu=h100 search_config.train_settings.num_nodes=64 \
    search_config.train_settings.search_mode=exhaustive run_inference_hp_search=False "search_config.train_settings.tp_comm_overlap=[false,true]" "search_config.train_settings.logs=$L" 2>&1); st=$?
h100_band=$(awk -F, '$1 == "h100_sxm" && $2 == "megatron-core" {printf "%.0f", 100 * $6}' "$REPO/data/bands.csv")
# (the fastest was TP 2 x CP 8 until the CP ring's inter-node hops ran at one NIC's rate, not
# four; now it is TP 4 x PP 4 x CP 2 with VP, and the pick still goes to fewer model-parallel GPUs)
# (the fastest needs 99.6 % of GPU memory: a tie under the original's 98 % advice wins first)
case "$out" in *"within the estimator's ${h100_band}% band of the fastest"*"for "*"staying under 98% of GPU memory"*|*"within the estimator's ${h100_band}% band of the fastest"*"for fewer model-parallel GPUs"*) pass tie_conventional ;; *) fail tie_conventional "exit $st: $out" ;; esac
opt=$(echo "$out" | sed -n 's/^Optimal config: \([^ ]*\) .*/\1/p')
fastest=$(echo "$out" | sed -n 's/.*band of the fastest, \([^ ]*\) .*/\1/p')
mp() { echo "$1" | sed -n 's/.*_tp_\([0-9]*\)_pp_\([0-9]*\)_cp_\([0-9]*\)_.*/\1 \2 \3/p' | awk '{print $1 * $2 * $3}'; }
[ -n "$fastest" ] && [ "$opt" != "$fastest" ] && [ "$(mp "$opt")" -le "$(mp "$fastest")" ] \
    && pass tie_fewer_model_parallel || fail tie_fewer_model_parallel "picked $opt ($(mp "$opt")) over $fastest ($(mp "$fastest"))"
# the pick keeps the original's advice (under 98 % of GPU memory) when a tie does
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["recommendation"]; sys.exit(not (r["memory_fraction"] <= 0.98 and not r["memory_warning"]))' \
    "$L/final_result/summary.json" && pass tie_under_memory_advice || fail tie_under_memory_advice "$(grep -o '"recommendation":.\{200\}' "$L/final_result/summary.json")"
case "$opt" in *_cp_8_*) fail tie_not_fastest "$opt" ;; *_tp_*) pass tie_not_fastest ;; *) fail tie_not_fastest "no pick: $out" ;; esac
grep -q "context_parallel_size: 8" "$L/final_result/optimal_config_70b_64nodes.yaml" && fail tie_written "CP 8 written" || pass tie_written
# twins: selective recompute under flash attention recomputes nothing, so no top-10 line repeats another
top=$(echo "$out" | grep '^Config #')
n_sel=$(echo "$top" | grep -c '_rc_sel')
[ "$n_sel" -eq 0 ] && pass twins_deduplicated || fail twins_deduplicated "$top"

# --- budget: Llama 3 8B on one H100 node takes far longer than max_training_days (20 days: 6 would
# need 64 nodes at GBS 512, where a step of two micro-batches no longer hides the DP collectives'
# latency, and no node count up to 64 meets it)
out=$("$AC" run search_config=llama/llama3_8b search_config.train_settings.gpu=h100 search_config.train_settings.num_nodes=1 \
    search_config.train_settings.max_training_days=20 run_inference_hp_search=False "search_config.train_settings.logs=$T/budget" 2>&1)
echo "$out" | grep -Eq 'WARNING: [0-9.]+ predicted days exceed max_training_days 20; [0-9]+ nodes at the same layout would take [0-9.]+ days' \
    && pass budget_warning || fail budget_warning "$out"
grep -q '"over_budget":true' "$T/budget/final_result/summary.json" && grep -q '"nodes_for_budget":[0-9]' "$T/budget/final_result/summary.json" \
    && pass budget_in_summary || fail budget_in_summary "$(grep -o '"over_budget".\{60\}' "$T/budget/final_result/summary.json")"
# at the preset's 6 days no node count up to 64 meets the budget at that layout and GBS: said, and null
out=$("$AC" run search_config=llama/llama3_8b search_config.train_settings.gpu=h100 search_config.train_settings.num_nodes=1 \
    run_inference_hp_search=False "search_config.train_settings.logs=$T/budget6" 2>&1)
echo "$out" | grep -Eq 'WARNING: [0-9.]+ predicted days exceed max_training_days 6; no node count up to 64 at this layout and global batch meets it' \
    && grep -q '"over_budget":true,"nodes_for_budget":null' "$T/budget6/final_result/summary.json" \
    && pass budget_unreachable || fail budget_unreachable "$(echo "$out" | grep WARNING; grep -o '"over_budget".\{40\}' "$T/budget6/final_result/summary.json")"

# --- the knobs experts tune: each written with NeMo v2.0.0's key and moving the estimate the right way.
# One pinned layout (GPT-3 5B, TP 2, PP 1, MBS 1 on one H100 node): the grid's only candidate is runs[0].
knob_run() { # name, overrides...: prints "tokens_per_s peak_mem_gib" of the grid's candidate
    d="$T/knob_$1"; shift
    "$AC" run search_config=gpt3/5b search_config.train_settings.gpu=h100 search_config.train_settings.num_nodes=1 \
        "search_config.train_settings.tensor_parallel_sizes=[2]" "search_config.train_settings.pipeline_parallel_sizes=[1]" \
        "search_config.train_settings.micro_batch_sizes=[1]" search_config.train_settings.sequence_parallel=true \
        search_config.train_settings.distributed_optimizer=true run_inference_hp_search=False \
        "search_config.train_settings.logs=$d" "$@" >/dev/null 2>&1 || { echo "failed"; return; }
    runs=$(sed 's/.*"runs":\[//' "$d/final_result/summary.json")
    tps=$(echo "$runs" | grep -o '"tokens_per_s":[0-9.e+]*' | head -1 | cut -d: -f2)
    mem=$(echo "$runs" | grep -o '"peak_mem_gib":[0-9.e+]*' | head -1 | cut -d: -f2)
    echo "$tps $mem"
}
knob_yaml() { cat "$T/knob_$1"/candidate_configs/*.yaml; }
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 > b + 0) }'; }
base=$(knob_run base)
fp8=$(knob_run fp8 "search_config.train_settings.precisions=[fp8]")
gt "${fp8% *}" "${base% *}" && knob_yaml fp8 | grep -q "fp8: true" && knob_yaml fp8 | grep -q "transformer_engine: true" \
    && pass knob_precision_fp8 || fail knob_precision_fp8 "base $base fp8 $fp8"
gr=$(knob_run grad "search_config.train_settings.grad_reduce_dtype=[bf16]")
gt "${base#* }" "${gr#* }" && knob_yaml grad | grep -Eq "grad_sync_dtype: '?bf16" \
    && pass knob_grad_reduce_bf16 || fail knob_grad_reduce_bf16 "base $base bf16 grads $gr"
pg=$(knob_run fp8pg "search_config.train_settings.precisions=[fp8]" "search_config.train_settings.fp8_param_gather=[true]")
gt "${fp8#* }" "${pg#* }" && knob_yaml fp8pg | grep -q "fp8_params: true" \
    && pass knob_fp8_param_gather || fail knob_fp8_param_gather "fp8 $fp8 with gather $pg"
cg=$(knob_run graphs "search_config.train_settings.cuda_graphs=[true]")
gt "${cg% *}" "${base% *}" && knob_yaml graphs | grep -q "enable_cuda_graph: true" \
    && pass knob_cuda_graphs || fail knob_cuda_graphs "base $base graphs $cg"
tpo=$(knob_run tpo "search_config.train_settings.tp_comm_overlap=[true]")
gt "${tpo% *}" "${base% *}" && knob_yaml tpo | grep -q "ub_tp_comm_overlap: true" \
    && pass knob_tp_comm_overlap || fail knob_tp_comm_overlap "base $base overlap $tpo"
off=$(knob_run off "search_config.train_settings.activation_offload_layers=[4]")
gt "${base#* }" "${off#* }" && knob_yaml off | grep -q "cpu_offloading_num_layers: 4" && knob_yaml off | grep -q "cpu_offloading: true" \
    && pass knob_activation_offload || fail knob_activation_offload "base $base offload $off"
rcl=$(knob_run rcl "search_config.train_settings.recompute_num_layers=[4]")
d="$T/knob_rcl/candidate_configs"
f=$(ls "$d" | grep '_rcl_4' | head -1)
runs=$(sed 's/.*"runs":\[//' "$T/knob_rcl/final_result/summary.json")
# the recomputing run: slower, less memory than the same layout without it (both in runs, by name)
rm_tps=$(echo "$runs" | tr '{' '\n' | grep '_rcl_4"' | grep -o '"tokens_per_s":[0-9.e+]*' | head -1 | cut -d: -f2)
rm_mem=$(echo "$runs" | tr '{' '\n' | grep '_rcl_4"' | grep -o '"peak_mem_gib":[0-9.e+]*' | head -1 | cut -d: -f2)
[ -n "$f" ] && grep -Eq "activations_checkpoint_method: '?block" "$d/$f" && grep -q "activations_checkpoint_num_layers: 4" "$d/$f" &&
    gt "${base% *}" "$rm_tps" && gt "${base#* }" "$rm_mem" && pass knob_recompute_num_layers || fail knob_recompute_num_layers "$(ls "$d")"
# the config written does not switch TP overlap on, so the estimate does not assume it
knob_yaml base | grep -iq "ub_tp_comm_overlap: false" && gt "${tpo% *}" "${base% *}" \
    && pass tp_overlap_consistent || fail tp_overlap_consistent "base $base overlap $tpo"
# uneven pipeline split: PP 5 does not divide GPT-3 5B's 24 layers; first_last makes it a candidate
out=$("$AC" run search_config=gpt3/5b search_config.train_settings.num_nodes=5 "search_config.train_settings.pipeline_parallel_sizes=[5]" \
    "search_config.train_settings.tensor_parallel_sizes=[1]" "search_config.train_settings.pipeline_layouts=[first_last]" \
    "search_config.train_settings.global_batch_sizes=[2040]" run_inference_hp_search=False "search_config.train_settings.logs=$T/uneven" 2>&1); st=$?
y=$(cat "$T/uneven"/candidate_configs/*tp_1_pp_5*.yaml 2>/dev/null)
[ $st -eq 0 ] && echo "$y" | grep -q "first_pipeline_num_layers: 4" && echo "$y" | grep -q "last_pipeline_num_layers: 5" \
    && pass knob_uneven_pipeline || fail knob_uneven_pipeline "exit $st: $(echo "$out" | tail -3)"
# knobs the target release cannot take are refused, with the reason
out=$("$AC" run "search_config.train_settings.pipeline_layouts=[embedding_loss]" run_inference_hp_search=False "search_config.train_settings.logs=$T/el" 2>&1); st=$?
[ $st -eq 2 ] && case "$out" in *"not searched"*"Megatron-Core"*) true ;; *) false ;; esac && pass knob_not_in_release || fail knob_not_in_release "exit $st: $out"
out=$("$AC" run "search_config.train_settings.precisions=[fp8]" run_inference_hp_search=False "search_config.train_settings.logs=$T/a100fp8" 2>&1); st=$?
[ $st -eq 2 ] && case "$out" in *"fp8 needs a GPU with FP8"*) true ;; *) false ;; esac && pass knob_fp8_needs_gpu || fail knob_fp8_needs_gpu "exit $st: $out"
# the defaults reproduce the original: no knob suffix in any default candidate name
ls "$T/full/candidate_configs" | grep -Eq '_(fp8|gr_|fp8pg_|cg_|tpo_|off_|pl_)' && fail knobs_default_off "$(ls "$T/full/candidate_configs")" || pass knobs_default_off

# --- presets for Llama 3.1 8B/70B/405B and Llama 3.3 70B: Hugging Face tokenizer, ranked result
for p in llama3_1_8b llama3_1_70b llama3_3_70b llama3_1_405b; do
    d="$T/preset_$p"
    out=$("$AC" run "search_config=llama/$p" search_config.train_settings.gpu=h100 run_inference_hp_search=False "search_config.train_settings.logs=$d" 2>&1); rc=$?
    b=$(cat "$d"/base_cfg_*.yaml 2>/dev/null)
    [ $rc -eq 0 ] && case "$out" in *"Optimal config: "*) true ;; *) false ;; esac &&
        echo "$b" | grep -Eq "library: '?huggingface" && echo "$b" | grep -Eq "type: '?meta-llama/Meta-Llama-3-8B" &&
        ! echo "$b" | grep -Eqi "library: '?sentencepiece" && pass "preset_$p" || fail "preset_$p" "exit $rc: $(echo "$out" | tail -2)"
done
grep -q "num_layers: 126" "$T/preset_llama3_1_405b"/base_cfg_*.yaml && grep -q "hidden_size: 16384" "$T/preset_llama3_1_405b"/base_cfg_*.yaml \
    && pass preset_405b_shape || fail preset_405b_shape "$(grep -E 'num_layers|hidden_size' "$T/preset_llama3_1_405b"/base_cfg_*.yaml)"

# --- results folders carry the GPU type and names the full model name; the original's layout stays for A100
out=$("$AC" run search_config=llama/llama3_70b search_config.train_settings.gpu=h100 run_inference_hp_search=False \
    "base_results_dir=$T/res" 2>&1)
[ -d "$T/res/llama/llama3_70b_h100/final_result" ] && pass logs_carry_gpu || fail logs_carry_gpu "$(ls -R "$T/res" | head)"
case "$out" in *"Optimal config: llama3_70b_128nodes_"*) pass names_full_model ;; *) fail names_full_model "$out" ;; esac
"$AC" run search_config=llama/llama2_70b search_config.train_settings.gpu=h100 run_inference_hp_search=False "base_results_dir=$T/res" >/dev/null 2>&1
ls "$T/res/llama/llama2_70b_h100/candidate_configs" | grep -q '^llama2_70b_' && pass names_llama2_apart || fail names_llama2_apart "$(ls "$T/res/llama")"
"$AC" run run_inference_hp_search=False "base_results_dir=$T/res" >/dev/null 2>&1
[ -d "$T/res/gpt3/5b_80gb/final_result" ] && pass logs_original_a100 || fail logs_original_a100 "$(ls "$T/res/gpt3")"

# --- any architecture: --hf-config on run, estimate and infer (and train_settings.hf_config)
cat > "$T/hf.json" <<'JSON'
{"_name_or_path": "acme/Tiny-Llama-1B", "model_type": "llama", "hidden_size": 2048, "intermediate_size": 8192,
 "num_hidden_layers": 16, "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
 "max_position_embeddings": 131072, "tie_word_embeddings": false}
JSON
out=$("$AC" run --hf-config "$T/hf.json" search_config=llama/llama3_8b search_config.train_settings.gpu=h100 \
    run_inference_hp_search=False "search_config.train_settings.logs=$T/hf" 2>&1); st=$?
[ $st -eq 0 ] && grep -q "num_layers: 16" "$T/hf"/base_cfg_*.yaml && grep -q "hidden_size: 2048" "$T/hf"/base_cfg_*.yaml &&
    case "$out" in *"Optimal config: tiny_llama_1b_"*) true ;; *) false ;; esac && pass hf_config_run || fail hf_config_run "exit $st: $out"
out=$("$AC" run "search_config.train_settings.hf_config=$T/hf.json" search_config=llama/llama3_8b search_config.train_settings.gpu=h100 \
    run_inference_hp_search=False "search_config.train_settings.logs=$T/hf2" 2>&1); st=$?
[ $st -eq 0 ] && grep -q "num_layers: 16" "$T/hf2"/base_cfg_*.yaml && pass hf_config_key || fail hf_config_key "exit $st: $out"
out=$("$AC" estimate --hf-config "$T/hf.json" search_config=llama/llama3_8b search_config.train_settings.gpu=h100 \
    search_config.train_settings.num_nodes=1 --tp 1 --pp 1 --mbs 1 --json 2>&1); st=$?
[ $st -eq 0 ] && case "$out" in *'"params_b":1.'*|*'"params_b":2.'*) true ;; *) false ;; esac && pass hf_config_estimate || fail hf_config_estimate "exit $st: $(echo "$out" | head -c 300)"
out=$("$AC" infer --hf-config "$T/hf.json" search_config=llama/llama3_8b search_config.train_settings.gpu=h100 \
    "search_config.train_settings.logs=$T/hfi" 2>&1); st=$?
[ $st -eq 0 ] && pass hf_config_infer || fail hf_config_infer "exit $st: $(echo "$out" | tail -2)"
out=$("$AC" run --hf-config "$T/hf.json" search_config=mixtral/mixtral_8x7b run_inference_hp_search=False "search_config.train_settings.logs=$T/hfm" 2>&1); st=$?
[ $st -eq 2 ] && case "$out" in *"no routed experts: use search_config=llama"*) true ;; *) false ;; esac && pass hf_config_family_check || fail hf_config_family_check "exit $st: $out"
# a hybrid Mamba-Transformer (Nemotron-H's config.json): estimate predicts it, with Megatron-Core's
# rules; run and infer, which write transformer configs, refuse it before writing anything
cat > "$T/nh.json" <<'JSON'
{"model_type": "nemotron_h", "hidden_size": 4096, "num_hidden_layers": 52, "num_attention_heads": 32,
 "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 21504, "vocab_size": 131072, "max_position_embeddings": 8192,
 "hybrid_override_pattern": "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-", "mamba_num_heads": 128,
 "mamba_head_dim": 64, "ssm_state_size": 128, "n_groups": 8}
JSON
out=$("$AC" estimate --hf-config "$T/nh.json" search_config=llama/llama3_8b search_config.train_settings.gpu=h100 \
    search_config.train_settings.num_nodes=8 --tp 1 --mbs 1 --json 2>&1); st=$?
[ $st -eq 0 ] && case "$out" in *'"params_b":8.1'*) true ;; *) false ;; esac && pass hf_config_hybrid_estimate \
    || fail hf_config_hybrid_estimate "exit $st: $(echo "$out" | head -c 300)"
out=$("$AC" estimate --hf-config "$T/nh.json" search_config=llama/llama3_8b search_config.train_settings.gpu=h100 \
    search_config.train_settings.num_nodes=8 --pp 2 --vp 2 2>&1); st=$?
[ $st -eq 2 ] && case "$out" in *"MambaModel does not run interleaved pipelines"*) true ;; *) false ;; esac \
    && pass hf_config_hybrid_vp || fail hf_config_hybrid_vp "exit $st: $out"
# the names --model knows, with their sizes (Nemotron-H 56B: 54 Mamba-2, 10 attention, 54 MLP blocks)
# and positions (its -Base-8K release: 8192)
out=$("$AC" models 2>&1); st=$?
[ $st -eq 0 ] && echo "$out" | grep -Eq '^nemotron_h_56b +56\.32 +118 +8192 +64/8 +8192 +plain 32768 +- +M 54 \* 10 - 54 E 0' \
    && echo "$out" | grep -q '^presets .*llama3_8b' && pass models_list || fail models_list "exit $st: $(echo "$out" | head -3)"
n=$("$AC" models --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(m["hybrid"] for m in d["models"]), len(d["models"]) > 40)')
[ "$n" = "7 True" ] && pass models_json || fail models_json "hybrid rows, more than 40 rows: $n"
# each row's context (max_position_embeddings; 0 = none published, not checked); none unsourced but
# Nemotron 3 Super's, and the text column says - for it
n=$("$AC" models --json | python3 -c 'import json,sys; m={r["name"]: r["context"] for r in json.load(sys.stdin)["models"]}
print(m["falcon_40b"], m["mistral_7b"], m["deepseek_v3"], m["llama4_scout"], sorted(k for k, v in m.items() if v == 0))')
[ "$n" = "2048 32768 163840 10485760 ['nemotron_3_super']" ] && echo "$out" | grep -Eq '^nemotron_3_super +[0-9.]+ +88 +4096 +32/2 +- +plain' \
    && pass models_json_context || fail models_json_context "$n"
"$AC" models --bogus >/dev/null 2>&1; [ $? -eq 2 ] && pass models_bad_flag || fail models_bad_flag "exit $?"
# a published architecture by name (data/models.csv): the same prediction without a config.json;
# the size table's PP 4 for 56 B does not divide Nemotron-H 56B's 118 blocks, so PP 2 is taken
out=$("$AC" estimate --model "Nemotron-H 56B" search_config=llama/llama3_8b search_config.train_settings.gpu=h100 \
    search_config.train_settings.num_nodes=32 --tp 8 --mbs 1 --json 2>&1); st=$?
[ $st -eq 0 ] && case "$out" in *'"params_b":56.3'*) true ;; *) false ;; esac && case "$out" in *'"pp":2'*) true ;; *) false ;; esac \
    && pass model_name_estimate || fail model_name_estimate "exit $st: $(echo "$out" | head -c 300)"
out=$("$AC" estimate --model "Nope-7B" search_config=llama/llama3_8b 2>&1); st=$?
[ $st -eq 2 ] && case "$out" in *"--model: no published architecture named 'Nope-7B'"*) true ;; *) false ;; esac \
    && pass model_name_unknown || fail model_name_unknown "exit $st: $out"
out=$("$AC" estimate --model "Qwen3-30B-A3B" search_config=llama/llama3_8b 2>&1); st=$?
[ $st -eq 2 ] && case "$out" in *"Qwen3-30B-A3B has routed experts: use search_config=mixtral"*) true ;; *) false ;; esac \
    && pass model_name_family || fail model_name_family "exit $st: $out"
out=$("$AC" estimate --model "Falcon-40B" --hf-config "$T/nh.json" search_config=llama/llama3_8b 2>&1); st=$?
[ $st -eq 2 ] && case "$out" in *"give --model or --hf-config, not both"*) true ;; *) false ;; esac \
    && pass model_name_and_hf || fail model_name_and_hf "exit $st: $out"
# run on a published plain-GELU architecture: its size from its own shape (41.3 B, not the
# 57 B a SwiGLU count gives), and the NeMo config says GELU and tied embeddings as it runs
out=$("$AC" run --model "Falcon-40B" search_config=llama/llama3_8b search_config.train_settings.gpu=h100 \
    search_config.train_settings.seq_length=2048 run_inference_hp_search=False "search_config.train_settings.logs=$T/falcon" 2>&1); st=$?
[ $st -eq 0 ] && grep -q "activation: 'gelu'" "$T/falcon"/base_cfg_41b.yaml && grep -q "share_embeddings_and_output_weights: true" "$T/falcon"/base_cfg_41b.yaml \
    && case "$out" in *"Optimal config: falcon_40b_"*) true ;; *) false ;; esac && pass model_name_run_gelu \
    || fail model_name_run_gelu "exit $st: $(echo "$out" | tail -2); $(ls "$T/falcon" 2>&1 | head -3)"
# run writes NeMo configs: under GPT-3's template (the default search_config) an architecture's
# gating and query groups would be lost, and MLA has no key at all: refused, nothing written
out=$("$AC" run --model llama3_8b run_inference_hp_search=False "search_config.train_settings.logs=$T/m_gpt3" 2>&1); st=$?
[ $st -eq 2 ] && [ ! -e "$T/m_gpt3" ] && case "$out" in *"gpt3 configs cannot describe"*"search_config=llama/llama3_8b"*) true ;; *) false ;; esac \
    && pass model_name_run_gpt3 || fail model_name_run_gpt3 "exit $st: $out"
out=$("$AC" run --model deepseek_v3 search_config=mixtral/mixtral_8x7b run_inference_hp_search=False \
    "search_config.train_settings.logs=$T/m_mla" 2>&1); st=$?
[ $st -eq 2 ] && [ ! -e "$T/m_mla" ] && case "$out" in *"kv_lora_rank: multi-head latent attention"*) true ;; *) false ;; esac \
    && pass model_name_run_mla || fail model_name_run_mla "exit $st: $out"
# ... which estimate predicts, past the size table's 600 B, at the layout given
out=$("$AC" estimate --model deepseek_v3 search_config=mixtral/mixtral_8x7b search_config.train_settings.gpu=h100 \
    search_config.train_settings.num_nodes=128 --tp 1 --pp 16 --ep 64 --gbs 8192 --pp-layout remainder_last --json 2>&1); st=$?
[ $st -eq 0 ] && case "$out" in *'"ep":64'*) true ;; *) false ;; esac && pass model_name_estimate_671b \
    || fail model_name_estimate_671b "exit $st: $(echo "$out" | head -c 300)"
# the size table's TP 8 for 30 B does not divide Qwen3-30B-A3B's 4 KV heads: TP 4; its head
# dimension (128, not 2048/32) is written, so the job trains the model that was predicted
out=$("$AC" run --model qwen3_30b_a3b search_config=mixtral/mixtral_8x7b search_config.train_settings.gpu=h100 \
    run_inference_hp_search=False "search_config.train_settings.logs=$T/qwen3" 2>&1); st=$?
[ $st -eq 0 ] && grep -q "kv_channels: 128" "$T/qwen3"/base_cfg_31b.yaml && grep -q "tensor_model_parallel_size: 4" "$T/qwen3"/base_cfg_31b.yaml \
    && pass model_name_run_head_dim || fail model_name_run_head_dim "exit $st: $(echo "$out" | tail -2); $(ls "$T/qwen3" 2>&1 | head -3)"
out=$("$AC" estimate --model nemotron_h_8 search_config=llama/llama3_8b 2>&1); st=$?
[ $st -eq 2 ] && case "$out" in *"did you mean nemotron_h_8b?"*) true ;; *) false ;; esac \
    && pass model_name_suggest || fail model_name_suggest "exit $st: $out"
out=$("$AC" estimate --model "" 2>&1); st=$?
[ $st -eq 2 ] && case "$out" in *"--model: needs a name"*) true ;; *) false ;; esac && pass model_name_empty \
    || fail model_name_empty "exit $st: $out"
# a named model trains and serves within its release's positions: Llama 2 7B's 4096 cannot take the
# llama3_8b config's 8192-token sequence (refused, nothing written); at 4096 it runs
out=$("$AC" run --model llama2_7b search_config=llama/llama3_8b run_inference_hp_search=False \
    "search_config.train_settings.logs=$T/ctx8k" 2>&1); st=$?
[ $st -eq 2 ] && [ ! -e "$T/ctx8k" ] && case "$out" in *"seq_length: 8192 exceeds the 4096 positions of --model llama2_7b (max_position_embeddings)"*) true ;; *) false ;; esac \
    && pass model_context_run_refused || fail model_context_run_refused "exit $st: $out"
out=$("$AC" run --model llama2_7b search_config=llama/llama3_8b search_config.train_settings.seq_length=4096 \
    run_inference_hp_search=False "search_config.train_settings.logs=$T/ctx4k" 2>&1); st=$?
[ $st -eq 0 ] && grep -q "seq_length: 4096" "$T/ctx4k"/base_cfg_*.yaml && pass model_context_run_fits \
    || fail model_context_run_fits "exit $st: $(echo "$out" | tail -2)"
# ... a data/models.csv row the same way (Falcon-40B: 2048), estimate included
out=$("$AC" estimate --model "Falcon-40B" search_config=llama/llama3_8b search_config.train_settings.gpu=h100 2>&1); st=$?
[ $st -eq 2 ] && case "$out" in *"8192 exceeds the 2048 positions of --model falcon_40b"*) true ;; *) false ;; esac \
    && pass model_context_estimate_refused || fail model_context_estimate_refused "exit $st: $out"
# run's cost stage holds a LoRA context to the same 2048 (the base config carries the name's context)
out=$("$AC" run --model "Falcon-40B" search_config=llama/llama3_8b search_config.train_settings.seq_length=2048 \
    run_training_hp_search=False run_inference_hp_search=False run_cost_search=True search_config.cost_settings.task=lora \
    search_config.cost_settings.context_length=4096 "search_config.train_settings.logs=$T/ctxcost" 2>&1); st=$?
[ $st -eq 2 ] && case "$out" in *"4096 tokens exceed the 2048 the model supports (falcon_40b"*) true ;; *) false ;; esac \
    && pass model_context_cost_refused || fail model_context_cost_refused "exit $st: $out"
# serving holds the prompt and the output: 2000 + 256 do not fit Falcon-40B's 2048, the default 1024 + 256 do
out=$("$AC" infer --model "Falcon-40B" search_config=llama/llama3_8b search_config.inference_settings.benchmark.input_len=2000 \
    "search_config.train_settings.logs=$T/ctxsrv" 2>&1); st=$?
[ $st -eq 2 ] && [ ! -e "$T/ctxsrv" ] && case "$out" in *"--model falcon_40b: max_position_embeddings: 2048 positions (data/models.csv context): the benchmark's input_len 2000 + output_len 256 do not fit; together at most 2048"*) true ;; *) false ;; esac \
    && pass model_context_serve_refused || fail model_context_serve_refused "exit $st: $out"
out=$("$AC" infer --model "Falcon-40B" search_config=llama/llama3_8b "search_config.train_settings.logs=$T/ctxsrv2" 2>&1); st=$?
[ $st -eq 0 ] && pass model_context_serve_fits || fail model_context_serve_fits "exit $st: $(echo "$out" | tail -2)"
# run's cost stage fine-tunes within them too (it took no context from --model before: 0, not checked)
out=$("$AC" run --model "Falcon-40B" search_config=llama/llama3_8b search_config.train_settings.seq_length=2048 \
    run_inference_hp_search=False run_cost_search=True search_config.cost_settings.task=lora \
    search_config.cost_settings.context_length=4096 "search_config.train_settings.logs=$T/ctxcost" 2>&1); st=$?
[ $st -eq 2 ] && [ ! -e "$T/ctxcost" ] && case "$out" in *"4096 tokens exceed the 2048 the model supports (falcon_40b; max_position_embeddings)"*) true ;; *) false ;; esac \
    && pass model_context_cost_refused || fail model_context_cost_refused "exit $st: $out"
# serving checks the requests' positions, not the training sequence: a 4096-position config.json
# serves the default 1024 + 256, and a 4000-token prompt with 256 out is refused at the file
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["max_position_embeddings"]=4096; json.dump(d, open(sys.argv[2], "w"))' \
    "$T/hf.json" "$T/llama4k.json"
out=$("$AC" infer --hf-config "$T/llama4k.json" search_config=llama/llama3_8b "search_config.train_settings.logs=$T/srv4k" 2>&1); st=$?
[ $st -eq 0 ] && pass hf_config_serve_positions || fail hf_config_serve_positions "exit $st: $(echo "$out" | tail -2)"
out=$("$AC" infer --hf-config "$T/llama4k.json" search_config=llama/llama3_8b "search_config.train_settings.logs=$T/srv4k2" \
    search_config.inference_settings.benchmark.input_len=4000 2>&1); st=$?
[ $st -eq 2 ] && [ ! -e "$T/srv4k2" ] && case "$out" in *"llama4k.json: max_position_embeddings: 4096 positions: the benchmark's input_len 4000 + output_len 256"*) true ;; *) false ;; esac \
    && pass hf_config_serve_too_long || fail hf_config_serve_too_long "exit $st: $out"
# a nemotron_h config.json without its block pattern is not read as a plain transformer
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); del d["hybrid_override_pattern"]; json.dump(d, open(sys.argv[2], "w"))' \
    "$T/nh.json" "$T/nh_nopattern.json"
out=$("$AC" estimate --hf-config "$T/nh_nopattern.json" search_config=llama/llama3_8b 2>&1); st=$?
[ $st -eq 2 ] && case "$out" in *"hybrid_override_pattern: missing"*) true ;; *) false ;; esac \
    && pass hf_config_hybrid_no_pattern || fail hf_config_hybrid_no_pattern "exit $st: $out"
for cmd in run infer; do
    out=$("$AC" $cmd --hf-config "$T/nh.json" search_config=llama/llama3_8b run_inference_hp_search=False \
        "search_config.train_settings.logs=$T/nh_$cmd" 2>&1); st=$?
    [ $st -eq 2 ] && [ ! -e "$T/nh_$cmd" ] && case "$out" in *"hybrid Mamba-Transformer"*) true ;; *) false ;; esac \
        && pass hf_config_hybrid_$cmd || fail hf_config_hybrid_$cmd "exit $st: $out"
done

# --- the fastest above 98 % of GPU memory (it fits: the whole GPU is the limit) loses to a tie under
# the original's 98 % advice, and says so (a cluster calibration that adds a large CUDA context)
C="$T/memconf"; cp -r conf "$C"
printf 'key,value,reason\ncuda_context_gb,19.3,test\n' > "$C/cluster/calibration_bcm.csv"
out=$("$AC" run --conf "$C" "search_config.train_settings.tensor_parallel_sizes=[1]" run_inference_hp_search=False \
    "search_config.train_settings.logs=$T/mem" 2>&1)
case "$out" in *"Optimal config: gpt3_5b_16nodes_tp_1_pp_1_mbs_2_"*"band of the fastest, gpt3_5b_16nodes_tp_1_pp_1_mbs_4_"*"for staying under 98% of GPU memory"*) pass memory_advice_tie ;;
    *) fail memory_advice_tie "$out" ;; esac
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["recommendation"]; sys.exit(not (r["memory_fraction"] <= 0.98 and not r["memory_warning"] and r["fastest"]["peak_mem_gib"] > 0.98 * 80))' \
    "$T/mem/final_result/summary.json" && pass memory_advice_summary || fail memory_advice_summary "$(grep -o '"recommendation":.\{300\}' "$T/mem/final_result/summary.json")"

# --- on a cluster the recommendation is the best measured run (emulated jobs, cluster_type local)
out=$(AUTOCONFIG_POLL_MS=100 AUTOCONFIG_JOB_TEMPLATE='exec {autoconfig} emulate-job {config} --gpu {gpu} --results-dir {results_dir} --sleep 0.1' \
    "$AC" run cluster_type=local "search_config.train_settings.logs=$T/meas" search_config.train_settings.limit_search_runs=2 \
    run_inference_hp_search=False 2>&1)
case "$out" in *"Optimal config: gpt3_5b_16nodes_"*"(measured: the fastest measured run"*"days at the measured speed"*) pass pick_measured ;;
    *) fail pick_measured "$out" ;; esac
grep -q '"source":"measured"' "$T/meas/final_result/summary.json" && pass pick_measured_summary || fail pick_measured_summary "no measured source"

# --- estimate: TP overlap as the base config says (off), or switched on with --tp-overlap
st_off=$("$AC" estimate search_config=llama/llama3_70b search_config.train_settings.gpu=h100 search_config.train_settings.num_nodes=8 \
    --tp 4 --pp 4 --vp 5 --mbs 1 2>&1 | awk '$1 == "step" { print $2 }')
st_on=$("$AC" estimate search_config=llama/llama3_70b search_config.train_settings.gpu=h100 search_config.train_settings.num_nodes=8 \
    --tp 4 --pp 4 --vp 5 --mbs 1 --tp-overlap true 2>&1 | awk '$1 == "step" { print $2 }')
[ -n "$st_off" ] && [ -n "$st_on" ] && gt "$st_off" "$st_on" && pass estimate_tp_overlap_flag || fail estimate_tp_overlap_flag "off $st_off on $st_on"
