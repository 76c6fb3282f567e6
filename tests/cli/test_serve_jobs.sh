#!/bin/sh
# test_serve_jobs.sh — the measured path of today's serving engines (issue 27) on the
# local executor: vLLM (`vllm serve` + `vllm bench serve`) and trtllm-bench jobs written
# with the engines' flags, run by emulated engines (autoconfig emulate-serve behind `vllm`
# and `trtllm-bench` shims on PATH), summarised with the prediction beside each measured
# row; resume from the ledger; failures where the engine fails; values that could run code
# quoted; settings the measured path cannot run refused before anything is written.
AC=${AUTOCONFIG:?}
cd "${REPO:?}" || exit 1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass() { echo "PASS serve_jobs:$1"; }
fail() { echo "FAIL serve_jobs:$1: $2"; }
K=search_config.inference_settings

mkdir -p "$T/bin" "$T/tok"
for eng in vllm trtllm-bench; do
    # each engine start is counted in its job folder (the job's cwd)
    printf '#!/bin/sh\necho "%s $1" >> starts\nexec "%s" emulate-serve --gpu h100 %s "$@"\n' "$eng" "$AC" "$eng" > "$T/bin/$eng"
    chmod +x "$T/bin/$eng"
done
echo '{"tokenizer_class": "PreTrainedTokenizerFast"}' > "$T/tok/tokenizer_config.json"
export PATH="$T/bin:$PATH"
base="cluster_type=local run_training_hp_search=false search_config=llama/llama3_8b search_config.train_settings.gpu=h100 \
$K.run.tokenizer=$T/tok $K.benchmark.input_len=1024 $K.benchmark.output_len=256 $K.benchmark.batch_sizes=[64]"

# --- vLLM: 2 layouts x 2 loads on an emulated cluster 10% slower than the model ---
# (a predicted training search first, so the run below refreshes its report with the measured inference)
# shellcheck disable=SC2086
"$AC" run search_config=llama/llama3_8b search_config.train_settings.gpu=h100 search_config.train_settings.logs="$T/v" \
    run_inference_hp_search=false >/dev/null 2>&1
# shellcheck disable=SC2086
out=$(AUTOCONFIG_EMULATE_SCALE=1.1 "$AC" run $base search_config.train_settings.logs="$T/v" $K.run.engine=vllm \
      "$K.run.tensor_parallel_sizes=[1,2]" "$K.run.pipeline_parallel_sizes=[1]" "$K.benchmark.concurrency=[8,32]" 2>"$T/v.err"); rc=$?
CSV="$T/v/inference/final_summary/final_output.csv"
case "$out" in *"Inference benchmark jobs: 4 ran, 0 failed"*"engine vllm (measured)"*"Measured beside predicted"*)
    [ $rc -eq 0 ] && [ "$(grep -c ',measured,' "$CSV")" = 4 ] && pass vllm_local_measured ;;
    *) fail vllm_local_measured "exit $rc: $out $(cat "$T/v.err")" ;; esac
D="$T/v/inference/llama3_8b_tp2_pp1_bs64_c32"
grep -q "vllm serve \"\$PWD/model\" --load-format dummy --tensor-parallel-size 2 --pipeline-parallel-size 1 --max-num-seqs 64 --max-model-len 1280" "$D/submission_script.sh" &&
    grep -q -- "--max-concurrency 32" "$D/submission_script.sh" && grep -q -- "--num-prompts 320" "$D/submission_script.sh" &&
    grep -q '"LlamaForCausalLM"' "$D/model/config.json" && [ -f "$D/model/tokenizer_config.json" ] && [ -f "$D/result.json" ] &&
    bash -n "$D/submission_script.sh" && pass vllm_job_files || fail vllm_job_files "$(ls -a "$D" "$D/model" 2>&1; cat "$D/submission_script.sh")"
# measured TTFT 10% over the prediction: the prediction column says so (error -9%)
awk -F, 'NR>1 && $6=="measured" { r = $25 / $14; if (r < 0.90 || r > 0.92) bad = 1; n++ } END { exit bad || n != 4 }' "$CSV" &&
    head -1 "$CSV" | grep -q 'Predicted TTFT \[ms\],Predicted ITL \[ms\],Predicted latency \[ms\]' &&
    grep -q '"predicted_ttft_ms"' "$T/v/inference/final_summary/summary.json" &&
    pass measured_beside_predicted || fail measured_beside_predicted "$(cat "$CSV")"
case "$out" in *"  2   1    64    32  1024/256"*"%)"*) pass console_errors ;; *) fail console_errors "$out" ;; esac
[ "$(grep -o 'predicted for TP [0-9]*, PP 1, BS 64, concurrency' "$T/v/final_result/report.html" 2>/dev/null | wc -l)" = 4 ] &&
    pass report_predicted_beside_measured || fail report_predicted_beside_measured "$(ls "$T/v/final_result" 2>&1)"
# the server was stopped: no emulated server's state left behind
[ -z "$(ls -a "$D" | grep emulated_vllm)" ] && pass server_stopped || fail server_stopped "$(ls -a "$D")"

# a p99 TTFT limit: the measured rows carry the engine's p99 (the emulation's is 1.25 x the mean) and are judged on it
# shellcheck disable=SC2086
out=$("$AC" run $base search_config.train_settings.logs="$T/p" $K.run.engine=vllm "$K.run.tensor_parallel_sizes=[2]" \
      "$K.run.pipeline_parallel_sizes=[1]" "$K.benchmark.concurrency=[8]" $K.latency_percentile=99 $K.max_ttft_ms=1000 2>&1); rc=$?
PC="$T/p/inference/final_summary/final_output.csv"
[ $rc -eq 0 ] && awk -F, 'NR==2 { r = $22 / $14; exit !($21 == "p99" && r > 1.249 && r < 1.251 && $29 == "ok") }' "$PC" &&
    pass measured_percentile || fail measured_percentile "exit $rc: $out $(cat "$PC")"

# resumed from the ledger: a second run starts no engine again, status lists the jobs
before=$(cat "$T"/v/inference/*/starts | wc -l)
# shellcheck disable=SC2086
AUTOCONFIG_EMULATE_SCALE=1.1 "$AC" run $base search_config.train_settings.logs="$T/v" $K.run.engine=vllm \
    "$K.run.tensor_parallel_sizes=[1,2]" "$K.run.pipeline_parallel_sizes=[1]" "$K.benchmark.concurrency=[8,32]" >/dev/null 2>&1
after=$(cat "$T"/v/inference/*/starts | wc -l)
[ "$before" = 8 ] && [ "$after" = 8 ] && "$AC" status "$T/v" 2>/dev/null | grep -q 'benchmark_llama3_8b_tp2_pp1_bs64_c32' &&
    pass resume_from_ledger || fail resume_from_ledger "starts $before then $after"
# infer --summarize reads the same folders again
# shellcheck disable=SC2086
out=$("$AC" infer --summarize $base search_config.train_settings.logs="$T/v" $K.run.engine=vllm \
      "$K.run.tensor_parallel_sizes=[1,2]" "$K.run.pipeline_parallel_sizes=[1]" "$K.benchmark.concurrency=[8,32]" 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$(grep -c ',measured,' "$CSV")" = 4 ] && pass summarize_again || fail summarize_again "exit $rc: $out"

# run again with another precision (new scripts, the same folders) where the c32 engine fails: the
# failed jobs' folders must not be read back with the bf16 run's results
mkdir -p "$T/failbin"
printf '#!/bin/sh\ncase "$PWD" in *_c32) echo "RuntimeError: engine failed (test)" >&2; exit 1 ;; esac\nexec "%s" emulate-serve --gpu h100 vllm "$@"\n' "$AC" > "$T/failbin/vllm"
chmod +x "$T/failbin/vllm"
# shellcheck disable=SC2086
out=$(PATH="$T/failbin:$PATH" AUTOCONFIG_EMULATE_SCALE=1.1 "$AC" run $base search_config.train_settings.logs="$T/v" \
      $K.run.engine=vllm "$K.run.precisions=[fp8_kv]" "$K.run.tensor_parallel_sizes=[1,2]" "$K.run.pipeline_parallel_sizes=[1]" \
      "$K.benchmark.concurrency=[8,32]" 2>&1); rc=$?
case "$out" in *"Inference benchmark jobs: 2 ran, 2 failed"*) true ;; *) false ;; esac &&
    [ "$(awk -F, 'NR>1 && $12==32 && $29=="failed"' "$CSV" | wc -l)" = 2 ] &&
    [ "$(awk -F, 'NR>1 && $12==8 && $29=="ok" && $13=="fp8_kv"' "$CSV" | wc -l)" = 2 ] \
    && pass rerun_failure_not_stale || fail rerun_failure_not_stale "exit $rc: $out $(cat "$CSV")"

# --- trtllm-bench with an fp8 KV cache ---
# shellcheck disable=SC2086
out=$("$AC" run $base search_config.train_settings.logs="$T/t" $K.run.engine=trtllm "$K.run.precisions=[fp8_kv]" \
      "$K.run.tensor_parallel_sizes=[2]" "$K.run.pipeline_parallel_sizes=[1]" "$K.benchmark.concurrency=[16]" 2>"$T/t.err"); rc=$?
D="$T/t/inference/llama3_8b_tp2_pp1_bs64_c16"
case "$out" in *"Inference benchmark jobs: 1 ran, 0 failed"*"engine trtllm (measured)"*)
    [ $rc -eq 0 ] && [ -f "$D/report.json" ] && [ -f "$D/dataset.jsonl" ] && grep -q '^  dtype: fp8$' "$D/extra_llm_api_options.yaml" &&
    grep -q '^load_format: DUMMY$' "$D/extra_llm_api_options.yaml" && grep -q ',measured,.*,fp8_kv,' "$T/t/inference/final_summary/final_output.csv" &&
    pass trtllm_local_measured ;;
    *) fail trtllm_local_measured "exit $rc: $out $(cat "$T/t.err")" ;; esac
grep -q 'trtllm-bench --model "$PWD/model" --model_path "$PWD/model" throughput --backend pytorch' "$D/submission_script.sh" &&
    grep -q -- '--concurrency 16 --max_batch_size 64 --max_seq_len 1280' "$D/submission_script.sh" &&
    pass trtllm_job_flags || fail trtllm_job_flags "$(cat "$D/submission_script.sh")"

# --- where the engine fails: 70B at TP 1 (CUDA OOM), TP 8 x PP 2 (two nodes, not submitted); TP 8 runs ---
# shellcheck disable=SC2086
out=$("$AC" run $base search_config=llama/llama3_70b search_config.train_settings.logs="$T/f" $K.run.engine=vllm \
      "$K.run.tensor_parallel_sizes=[1,8]" "$K.run.pipeline_parallel_sizes=[1,2]" "$K.benchmark.concurrency=[8]" 2>"$T/f.err"); rc=$?
CSV="$T/f/inference/final_summary/final_output.csv"
grep -q '^1,1,64,.*,failed,"vllm failed: torch.OutOfMemoryError: CUDA out of memory' "$CSV" &&
    grep -q '^8,2,64,.*,failed,TP 8 x PP 2 spans 2 nodes' "$CSV" && grep -q '^8,1,64,.*,measured,' "$CSV" &&
    [ ! -e "$T/f/inference/llama3_70b_tp8_pp2_bs64_c8/starts" ] &&
    pass engine_failures_recorded || fail engine_failures_recorded "exit $rc: $out $(cat "$CSV" "$T/f.err")"

# --- a results folder holding a quote and $(...): nothing runs but the engines ---
Q="$T/it's \$(touch $T/pwned) x"
# shellcheck disable=SC2086
"$AC" run $base search_config.train_settings.logs="$Q" $K.run.engine=vllm "$K.run.tensor_parallel_sizes=[1]" \
    "$K.run.pipeline_parallel_sizes=[1]" "$K.benchmark.concurrency=[4]" >"$T/q.out" 2>&1
[ ! -e "$T/pwned" ] && grep -q ',measured,' "$Q/inference/final_summary/final_output.csv" &&
    pass quoted_paths || fail quoted_paths "$(cat "$T/q.out")"

# --- --hf-config: the file as given, its folder's tokenizer copied (no fetch step) ---
mkdir -p "$T/hf"
cat > "$T/hf/config.json" <<'JSON'
{"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 896, "intermediate_size": 4864,
 "num_hidden_layers": 24, "num_attention_heads": 14, "num_key_value_heads": 2, "max_position_embeddings": 32768,
 "vocab_size": 151936, "tie_word_embeddings": true, "torch_dtype": "bfloat16"}
JSON
echo '{}' > "$T/hf/tokenizer_config.json"
echo '{}' > "$T/hf/tokenizer.json"
out=$("$AC" infer --hf-config "$T/hf/config.json" cluster_type=local search_config.train_settings.gpu=h100 \
      search_config.train_settings.logs="$T/h" $K.run.engine=vllm "$K.run.tensor_parallel_sizes=[2]" \
      "$K.run.pipeline_parallel_sizes=[1]" "$K.benchmark.batch_sizes=[32]" "$K.benchmark.concurrency=[8]" 2>&1); rc=$?
D=$(ls -d "$T"/h/inference/*_tp2_pp1_bs32_c8 2>/dev/null | head -1)
[ $rc -eq 0 ] && [ -n "$D" ] && cmp -s "$T/hf/config.json" "$D/model/config.json" && [ -f "$D/model/tokenizer.json" ] &&
    ! grep -q save_pretrained "$D/submission_script.sh" && pass hf_config_model_folder ||
    fail hf_config_model_folder "exit $rc: $out $(ls "$D" "$D/model" 2>&1)"

# --- refused before anything is written ---
# shellcheck disable=SC2086
out=$("$AC" run $base search_config.train_settings.logs="$T/x1" $K.run.engine=vllm "$K.run.precisions=[bf16,fp8]" 2>&1); rc=$?
[ $rc -eq 2 ] && [ ! -d "$T/x1" ] && case "$out" in *"run.precisions"*"one precision"*) true ;; *) false ;; esac &&
    pass one_precision_per_measured_search || fail one_precision_per_measured_search "exit $rc: $out"
# shellcheck disable=SC2086
out=$("$AC" run $base search_config.train_settings.logs="$T/x2" $K.run.engine=trtllm "$K.run.precisions=[fp8]" 2>&1); rc=$?
[ $rc -eq 2 ] && case "$out" in *"trtllm-bench on dummy weights cannot quantize to fp8"*) true ;; *) false ;; esac &&
    pass trtllm_fp8_weights_refused || fail trtllm_fp8_weights_refused "exit $rc: $out"
# shellcheck disable=SC2086
out=$("$AC" run $base search_config.train_settings.logs="$T/x4" $K.run.engine=vllm $K.latency_percentile=95 2>&1); rc=$?
[ $rc -eq 2 ] && [ ! -d "$T/x4" ] && case "$out" in *"latency_percentile"*"50, 90 and 99, not 95"*) true ;; *) false ;; esac &&
    pass measured_percentile_reported_only || fail measured_percentile_reported_only "exit $rc: $out"
out=$("$AC" run cluster_type=local run_training_hp_search=false search_config=llama/llama2_7b \
      search_config.train_settings.logs="$T/x3" $K.run.engine=vllm 2>&1); rc=$?
[ $rc -eq 2 ] && case "$out" in *"run.tokenizer"*"32000"*) true ;; *) false ;; esac &&
    pass small_vocabulary_needs_tokenizer || fail small_vocabulary_needs_tokenizer "exit $rc: $out"
out=$("$AC" run $base search_config.train_settings.logs="$T/x4" $K.run.engine=vllm "$K.run.tokenizer=a b;rm" 2>&1); rc=$?
[ $rc -eq 2 ] && case "$out" in *"neither a folder nor a Hugging Face hub name"*) true ;; *) false ;; esac &&
    pass tokenizer_name_checked || fail tokenizer_name_checked "exit $rc: $out"

# shellcheck disable=SC2086
out=$("$AC" run $base search_config.train_settings.logs="$T/x5" $K.run.engine=vllm "$K.run.benchmark_command=sh x" 2>&1); rc=$?
[ $rc -eq 2 ] && case "$out" in *"run.benchmark_command"*"FasterTransformer's command"*) true ;; *) false ;; esac &&
    pass benchmark_command_is_fastertransformers || fail benchmark_command_is_fastertransformers "exit $rc: $out"

# --- cancel: a benchmark still running is stopped by `autoconfig cancel`, its server with it ---
mkdir -p "$T/slow"
printf '#!/bin/sh\n[ "$1" = bench ] && { echo bench >> started; sleep 60; }\nexec "%s" emulate-serve --gpu h100 vllm "$@"\n' "$AC" > "$T/slow/vllm"
chmod +x "$T/slow/vllm"
# shellcheck disable=SC2086
PATH="$T/slow:$PATH" "$AC" run $base search_config.train_settings.logs="$T/c" $K.run.engine=vllm "$K.run.tensor_parallel_sizes=[1]" \
    "$K.run.pipeline_parallel_sizes=[1]" "$K.benchmark.concurrency=[4]" >"$T/c.out" 2>&1 &
RUN=$!
D="$T/c/inference/llama3_8b_tp1_pp1_bs64_c4"
i=0; while [ ! -f "$D/started" ] && [ $i -lt 100 ]; do sleep 0.2; i=$((i + 1)); done
port=$(ls -a "$D" 2>/dev/null | sed -n 's/^\.emulated_vllm_//p')
cout=$("$AC" cancel "$T/c" 2>&1)
wait $RUN
case "$cout" in *"cancelled 1 job"*)
    [ -n "$port" ] && ! curl -s -m 2 "http://127.0.0.1:$port/health" >/dev/null 2>&1 && [ ! -e "$D/.emulated_vllm_$port" ] &&
    "$AC" status "$T/c" 2>/dev/null | grep -q 'cancelled' && pass cancel_stops_engine ;;
    *) fail cancel_stops_engine "port '$port': $cout $(cat "$T/c.out")" ;; esac

# --- the emulated engines refuse flags the real ones do not have ---
out=$("$AC" emulate-serve vllm serve "$T/hf" --load-format dummy --tp 2 2>&1); rc=$?
[ $rc -eq 2 ] && case "$out" in *"unrecognized arguments: --tp"*) true ;; *) false ;; esac &&
    pass emulator_refuses_unknown_flags || fail emulator_refuses_unknown_flags "exit $rc: $out"
exit 0
