#!/bin/sh
# test_infer.sh — `autoconfig infer` as a user meets it: the predicted sweep and
# its CSV, the latency filter, --json, and the measured path end to end (job
# folders written, emulated benchmark logs summarised; missing/failed logs are
# recorded failures).
AC=${AUTOCONFIG:?}
cd "${REPO:?}" || exit 1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass() { echo "PASS infer:$1"; }
fail() { echo "FAIL infer:$1: $2"; }
K=search_config.inference_settings
common="search_config=gpt3/20b search_config.train_settings.logs=$T/logs $K.run.results_dir=$T/r"
CSV="$T/r/inference/final_summary/final_output.csv"

out=$("$AC" infer $common 2>&1); rc=$?
[ $rc -eq 0 ] && pass sim_exit || fail sim_exit "exit $rc: $out"
case "$out" in *"usable configurations by throughput per GPU"*) pass sim_table ;; *) fail sim_table "$out" ;; esac
head -1 "$CSV" 2>/dev/null | grep -q '^TP,PP,BS,Latency \[ms\],Throughput per GPU \[samples/sec/gpu\],Source' \
    && pass sim_csv_header || fail sim_csv_header "$(head -1 "$CSV" 2>&1)"
sed -n 2p "$CSV" | grep -q ',predicted,' && pass sim_labelled_predicted || fail sim_labelled_predicted "$(sed -n 2p "$CSV")"

out=$("$AC" infer $common +$K.max_latency_ms=300 2>&1)
over="$T/r/inference/final_summary/over_latency_limit.csv"
if [ "$(wc -l < "$over")" -gt 1 ] && ! awk -F, 'NR>1 && $29=="ok" && $4>300 {bad=1} END {exit bad}' "$CSV"; then
    fail latency_filter "a row over 300 ms is in final_output.csv"
else
    [ "$(wc -l < "$over")" -gt 1 ] && pass latency_filter || fail latency_filter "nothing over the limit: $out"
fi

out=$("$AC" infer --json $common 2>&1)
case "$out" in *'"source":"predicted"'*'"tables":[{"input_len":60,"output_len":20'*) pass json ;; *) fail json "$out" ;; esac

out=$("$AC" infer $common "$K.run.tensor_parallel_sizes=[7]" 2>&1); rc=$?
[ $rc -eq 2 ] && case "$out" in *"no valid inference configuration"*) true ;; *) false ;; esac && pass no_valid_config || fail no_valid_config "exit $rc: $out"

# nothing usable is the search's answer, printed with the closest; the exit status says it (1)
out=$("$AC" infer $common "search_config.inference_settings.max_latency_ms=1" 2>&1); rc=$?
[ $rc -eq 1 ] && case "$out" in *"No configuration meets the limits: the closest is TP "*"which misses latency "*"> max_latency_ms 1;"*"no inference configuration fits and meets every limit"*) true ;; *) false ;; esac &&
    pass latency_limit_unmet_explained || fail latency_limit_unmet_explained "exit $rc: $out"

# serving engines (issue 27): in-flight batching, loads, TTFT/ITL limits, goodput
SV="search_config=llama/llama3_8b search_config.train_settings.logs=$T/logs search_config.train_settings.gpu=h100_sxm $K.run.results_dir=$T/sv $K.run.engine=vllm"
SV="$SV $K.run.tensor_parallel_sizes=[1,2] $K.run.pipeline_parallel_sizes=[1] $K.benchmark.batch_sizes=[256]"
SV="$SV $K.benchmark.input_len=1024 $K.benchmark.output_len=256"
SCSV="$T/sv/inference/final_summary/final_output.csv"
out=$("$AC" infer $SV "$K.benchmark.concurrency=[1,16,64]" "$K.run.precisions=[bf16,fp8]" 2>&1); rc=$?
[ $rc -eq 0 ] && case "$out" in *"engine vllm"*"by goodput"*"TTFT ms"*) true ;; *) false ;; esac && pass serve_table || fail serve_table "exit $rc: $out"
head -1 "$SCSV" | grep -q 'Tokens per second per instance,.*,Concurrency,Precision,TTFT \[ms\],ITL \[ms\],Total tokens per second per GPU,Goodput \[requests/sec/gpu\],KV cache capacity \[sequences per instance\],Request rate \[requests/sec per instance\],EP,Percentile,TTFT pN \[ms\],ITL pN \[ms\],Latency pN \[ms\],Predicted TTFT \[ms\],Predicted ITL \[ms\],Predicted latency \[ms\],Predicted throughput per GPU \[requests/sec/gpu\],Status,Reason$' \
    && pass serve_csv_header || fail serve_csv_header "$(head -1 "$SCSV")"
# 2 TP x 2 precisions x 3 loads, best goodput first; fp8 holds more sequences than bf16 at the same TP
[ "$(awk -F, 'NR>1' "$SCSV" | wc -l)" = 12 ] && awk -F, 'NR>1 && $29=="ok" {if (prev != "" && $17+0 > prev+0) bad=1; prev=$17} END {exit bad}' "$SCSV" \
    && pass serve_rows_by_goodput || fail serve_rows_by_goodput "$(cat "$SCSV")"
kb=$(awk -F, '$1==1 && $12==16 && $13=="bf16" {print $18}' "$SCSV"); kf=$(awk -F, '$1==1 && $12==16 && $13=="fp8" {print $18}' "$SCSV")
[ -n "$kb" ] && [ -n "$kf" ] && [ "$kf" -gt "$kb" ] && pass serve_fp8_kv_capacity || fail serve_fp8_kv_capacity "bf16 $kb fp8 $kf"
out=$("$AC" infer $SV "$K.benchmark.concurrency=[64]" "$K.max_ttft_ms=0.5" 2>&1); rc=$?
[ $rc -eq 1 ] && case "$out" in *"No configuration meets the limits: the closest is TP "*"concurrency 64"*"misses TTFT "*"> max_ttft_ms 0.5"*) true ;; *) false ;; esac \
    && pass serve_ttft_limit_unmet || fail serve_ttft_limit_unmet "exit $rc: $out"
out=$("$AC" infer $SV search_config.train_settings.gpu=a100_80gb "$K.benchmark.concurrency=[8]" "$K.run.precisions=[fp8]" 2>&1)
case "$out" in *"failed:"*"has no fp8 tensor cores"*) pass serve_fp8_needs_fp8_gpu ;; *) fail serve_fp8_needs_fp8_gpu "$out" ;; esac
out=$("$AC" infer $SV "$K.benchmark.concurrency=[64]" "$K.max_itl_ms=0.5" 2>&1)
case "$out" in *"misses ITL "*"> max_itl_ms 0.5"*) pass serve_itl_limit_unmet ;; *) fail serve_itl_limit_unmet "$out" ;; esac
# a max batch above a closed-loop load is the same run as the smallest max batch holding it: one row, said once
out=$("$AC" infer $SV "$K.benchmark.batch_sizes=[16,64,256]" "$K.benchmark.concurrency=[16]" 2>&1); rc=$?
[ $rc -eq 0 ] && case "$out" in *"4 configurations left out: a max batch above the concurrency"*) true ;; *) false ;; esac \
    && [ "$(awk -F, 'NR>1' "$SCSV" | wc -l)" = 2 ] && [ "$(awk -F, 'NR>1 && $3 != 16' "$SCSV" | wc -l)" = 0 ] \
    && pass serve_same_run_once || fail serve_same_run_once "exit $rc: $out $(cat "$SCSV")"
# request-rate loads (Poisson arrivals) beside concurrency, limits at a percentile: the p99 TTFT grows with
# the rate, a rate beyond the instance is saturated (said so), an unmet p99 limit names the closest configuration
out=$("$AC" infer $SV "$K.benchmark.concurrency=[16]" "$K.benchmark.request_rates=[1,8,100000]" "$K.latency_percentile=99" 2>&1); rc=$?
[ $rc -eq 0 ] && case "$out" in *"TTFT p99"*"1/s"*"saturated: 100000 requests/s"*) true ;; *) false ;; esac \
    && pass serve_request_rates || fail serve_request_rates "exit $rc: $out"
t1=$(awk -F, '$1==1 && $19==1 {print $22}' "$SCSV"); t8=$(awk -F, '$1==1 && $19==8 {print $22}' "$SCSV")
[ -n "$t1" ] && [ -n "$t8" ] && awk -v a="$t1" -v b="$t8" 'BEGIN {exit !(b > a)}' && pass serve_rate_raises_ttft_p99 || fail serve_rate_raises_ttft_p99 "rate 1: $t1, rate 8: $t8"
out=$("$AC" infer $SV "$K.benchmark.request_rates=[8]" "$K.latency_percentile=99" "$K.max_ttft_ms=1" 2>&1)
case "$out" in *"the closest is TP "*"request rate 8/s"*"misses TTFT p99 "*"> max_ttft_ms 1;"*) pass serve_p99_limit_unmet ;; *) fail serve_p99_limit_unmet "$out" ;; esac
# EP for MoE: sizes that divide TP and the experts are searched, the others left out
out=$("$AC" infer search_config=mixtral/mixtral_8x7b search_config.train_settings.logs=$T/logs search_config.train_settings.gpu=h100_sxm \
      $K.run.results_dir=$T/moe $K.run.engine=vllm "$K.run.tensor_parallel_sizes=[2,4]" "$K.run.pipeline_parallel_sizes=[1]" \
      "$K.run.expert_parallel_sizes=[1,2,4]" "$K.benchmark.concurrency=[32]" "$K.benchmark.batch_sizes=[256]" 2>&1); rc=$?
MCSV="$T/moe/inference/final_summary/final_output.csv"
[ $rc -eq 0 ] && [ "$(awk -F, 'NR>1' "$MCSV" | wc -l)" = 5 ] && ! awk -F, 'NR>1 && $1==2 && $20==4 {bad=1} END {exit !bad}' "$MCSV" \
    && case "$out" in *" EP "*) true ;; *) false ;; esac && pass serve_moe_ep || fail serve_moe_ep "exit $rc: $out $(cat "$MCSV")"
# failed rows of one layout say what sets them apart (EP, the load), not the same line twice
out=$("$AC" infer search_config=mixtral/mixtral_8x7b search_config.train_settings.logs=$T/logs search_config.train_settings.gpu=h100_sxm \
      $K.run.results_dir=$T/moe2 $K.run.engine=vllm "$K.run.tensor_parallel_sizes=[2]" "$K.run.pipeline_parallel_sizes=[1]" \
      "$K.run.expert_parallel_sizes=[1,2]" "$K.benchmark.request_rates=[100000]" "$K.benchmark.batch_sizes=[256]" 2>&1); rc=$?
[ $rc -eq 1 ] && case "$out" in *"tp 2 pp 1 bs 256 rate 100000/s: saturated"*"tp 2 pp 1 ep 2 bs 256 rate 100000/s: saturated"*) true ;; *) false ;; esac \
    && pass serve_failed_rows_told_apart || fail serve_failed_rows_told_apart "exit $rc: $out"
out=$("$AC" infer search_config=mixtral/mixtral_8x7b search_config.train_settings.logs=$T/logs $K.run.results_dir=$T/moe3 $K.run.engine=vllm \
      "$K.run.tensor_parallel_sizes=[2,4]" "$K.run.pipeline_parallel_sizes=[1]" "$K.run.expert_parallel_sizes=[3]" "$K.benchmark.concurrency=[8]" 2>&1); rc=$?
[ $rc -eq 2 ] && case "$out" in *"run.expert_parallel_sizes: no EP size divides both a searched TP size and the 8 experts"*) true ;; *) false ;; esac \
    && pass serve_bad_ep || fail serve_bad_ep "exit $rc: $out"
out=$("$AC" infer search_config=llama/llama3_70b search_config.train_settings.logs=$T/logs $K.run.results_dir=$T/big \
      $K.run.engine=trtllm "$K.run.tensor_parallel_sizes=[1]" "$K.run.pipeline_parallel_sizes=[1]" "$K.benchmark.concurrency=[8]" 2>&1); rc=$?
[ $rc -eq 1 ] && case "$out" in *"does not fit even on the largest TP x PP searched (TP 1 x PP 1 = 1 GPUs)"*"GiB short"*) true ;; *) false ;; esac \
    && pass serve_no_fit_by_how_much || fail serve_no_fit_by_how_much "exit $rc: $out"
# the original's engine too: GPT-3 175B on TP <= 2 says which TP x PP and how many GiB per GPU it lacks
out=$("$AC" infer search_config=gpt3/175b search_config.train_settings.logs=$T/logs $K.run.results_dir=$T/ft175 \
      "$K.run.tensor_parallel_sizes=[1,2]" "$K.run.pipeline_parallel_sizes=[1]" "$K.benchmark.batch_sizes=[1,8]" 2>&1); rc=$?
[ $rc -eq 1 ] && case "$out" in *"does not fit even on the largest TP x PP searched (TP 2 x PP 1 = 2 GPUs)"*"GiB per GPU needed"*"GiB short"*) true ;; *) false ;; esac \
    && pass static_no_fit_by_how_much || fail static_no_fit_by_how_much "exit $rc: $out"
out=$("$AC" infer $common "$K.benchmark.concurrency=[8]" 2>&1); rc=$?
[ $rc -eq 2 ] && case "$out" in *"static batches"*) true ;; *) false ;; esac && pass static_engine_refuses_concurrency || fail static_engine_refuses_concurrency "exit $rc: $out"

# validate --infer reads serving rows (concurrency, TTFT, ITL) and resolves model names without a shape
cat > "$T/serve_rows.csv" <<'CSV'
id,source_id,engine,model,num_layers,hidden_size,num_attention_heads,num_query_groups,vocab_size,gpu_type,num_gpus,tp,pp,precision,batch_size,concurrency,input_len,output_len,latency_ms,ttft_ms,itl_ms,throughput_tok_s,notes
S1,T,vLLM,Llama 3.1 8B,,,,,,H100 SXM,1,1,1,BF16,,16,1024,256,,60,9,,synthetic test row (not a measurement)
S2,T,vLLM,Llama 3.1 8B,,,,,,H100 SXM,1,1,1,BF16,,64,1024,256,,,,4000,synthetic test row (not a measurement)
S3,T,TensorRT-LLM,Qwen3-30B-A3B,,,,,,H100 SXM,1,1,1,FP8,,8,1024,256,,50,,,synthetic test row (not a measurement)
CSV
out=$("$AC" validate --infer --csv "$T/serve_rows.csv" --out "$T/serve_pred.csv" 2>&1); rc=$?
[ $rc -eq 0 ] && case "$out" in *"serving TTFT: rows 2 "*"serving ITL: rows 1 "*"rows 3 skipped 0 "*) true ;; *) false ;; esac \
    && grep -q '^S1,.*,itl_ms,9,' "$T/serve_pred.csv" && grep -q '^S2,.*,throughput_tok_s,4000,' "$T/serve_pred.csv" \
    && grep -q '^S3,.*,ttft_ms,50,' "$T/serve_pred.csv" && pass validate_serving_rows || fail validate_serving_rows "exit $rc: $out $(cat "$T/serve_pred.csv" 2>&1)"

# measured path: jobs written, not submitted; emulate the benchmark's logs
out=$("$AC" infer $common cluster_type=bcm "$K.run.tensor_parallel_sizes=[1,2]" "$K.run.pipeline_parallel_sizes=[1]" "$K.benchmark.batch_sizes=[1,8]" 2>&1); rc=$?
D="$T/r/inference"
[ $rc -eq 0 ] && [ -f "$D/gpt3_20b_tp2_pp1_bs8/config.ini" ] && [ -f "$D/gpt3_20b_tp2_pp1_bs8/start_ids.csv" ] \
    && [ -f "$D/gpt3_20b_tp2_pp1_bs8/submission_script.sh" ] && pass measured_files || fail measured_files "exit $rc: $out; $(ls "$D" 2>&1)"
grep -q "tensor_para_size = 2" "$D/gpt3_20b_tp2_pp1_bs8/config.ini" 2>/dev/null && pass config_ini || fail config_ini "no tensor_para_size"
grep -q "^#SBATCH --job-name=.*benchmark_FT_gpt3_20b_tp2_pp1_bs8" "$D/gpt3_20b_tp2_pp1_bs8/submission_script.sh" 2>/dev/null \
    && pass script_job_name || fail script_job_name "$(cat "$D/gpt3_20b_tp2_pp1_bs8/submission_script.sh" 2>&1)"
bash -n "$D/gpt3_20b_tp2_pp1_bs8/submission_script.sh" 2>/dev/null && pass script_syntax || fail script_syntax "bash -n failed"
# before any job has written its log: an error, and the predicted summary stays
sum=$(cksum <"$CSV")
out=$("$AC" infer --summarize $common cluster_type=bcm "$K.run.tensor_parallel_sizes=[1,2]" "$K.run.pipeline_parallel_sizes=[1]" "$K.benchmark.batch_sizes=[1,8]" 2>&1); rc=$?
[ $rc -eq 2 ] && [ "$(cksum <"$CSV")" = "$sum" ] && case "$out" in *"no benchmark log with a latency"*"nothing written"*) true ;; *) false ;; esac &&
    pass summarize_without_logs || fail summarize_without_logs "exit $rc: $out"
printf 'rank 0@node\n[INFO] batch_size 1 FT-CPP-decoding-beamsearch-time 200.00 ms\n' > "$D/gpt3_20b_tp1_pp1_bs1/log_job_7.out"
printf 'rank 0@node\n[INFO] batch_size 8 FT-CPP-decoding-beamsearch-time 400.00 ms\n' > "$D/gpt3_20b_tp2_pp1_bs8/log_job_8.out"
printf 'rank 0@node\nterminate called after throwing an instance of std::runtime_error\n' > "$D/gpt3_20b_tp1_pp1_bs8/log_job_9.out"
out=$("$AC" infer --summarize $common cluster_type=bcm "$K.run.tensor_parallel_sizes=[1,2]" "$K.run.pipeline_parallel_sizes=[1]" "$K.benchmark.batch_sizes=[1,8]" 2>&1); rc=$?
[ $rc -eq 0 ] && pass summarize_exit || fail summarize_exit "exit $rc: $out"
sed -n 2p "$CSV" | grep -q '^2,1,8,400.0,10.0,measured' && pass summarize_best_first || fail summarize_best_first "$(cat "$CSV")"
grep -q 'failed,.*no line containing' "$CSV" && grep -q 'failed,.*missing log' "$CSV" \
    && pass summarize_failures_recorded || fail summarize_failures_recorded "$(cat "$CSV")"
case "$out" in *"2 failed:"*) pass summarize_prints_failures ;; *) fail summarize_prints_failures "$out" ;; esac

# --- `run` on a real cluster (local here) runs the sweep's benchmark jobs through the executor ---
# an emulated benchmark: rank 0 prints FasterTransformer's latency line from the job's config.ini
cat > "$T/ftbench.sh" <<'SH'
[ "${SLURM_PROCID:-0}" = 0 ] || exit 0
echo started >> "$(dirname "$1")/starts"
awk -F' = ' '/^request_batch_size/ {b = $2} /^tensor_para_size/ {t = $2}
    END {printf "[INFO] batch_size %d FT-CPP-decoding-beamsearch-time %.2f ms\n", b, 100 + 10 * b / t}' "$1"
SH
R="cluster_type=local run_training_hp_search=false search_config.train_settings.logs=$T/lr $K.run.benchmark_command=sh\ $T/ftbench.sh\ {ini}"
grid="$K.run.tensor_parallel_sizes=[1,2] $K.run.pipeline_parallel_sizes=[1] $K.benchmark.batch_sizes=[1,8]"
# shellcheck disable=SC2086
out=$(eval "\"\$AC\" run $R $grid" 2>"$T/lr.err"); rc=$?
case "$out" in *"Inference benchmark jobs: 4 ran, 0 failed"*"(measured)"*"2    2   1     8       140.00"*)
    [ $rc -eq 0 ] && [ "$(grep -c ',measured' "$T/lr/inference/final_summary/final_output.csv")" = 4 ] && pass run_local_benchmarks ;;
    *) fail run_local_benchmarks "exit $rc: $out $(cat "$T/lr.err")" ;; esac
# resumed from the ledger: a second run starts no benchmark again
before=$(cat "$T"/lr/inference/*/starts | wc -l)
eval "\"\$AC\" run $R $grid" >/dev/null 2>&1
after=$(cat "$T"/lr/inference/*/starts | wc -l)
[ "$before" = 4 ] && [ "$after" = 4 ] && "$AC" status "$T/lr" 2>/dev/null | grep -q 'benchmark_gpt3_5b_tp2_pp1_bs8' &&
    pass run_benchmarks_resume || fail run_benchmarks_resume "starts $before then $after"
# the project's own published serving rows, not in ../shared (validation/infer_published.csv:
# TensorRT-LLM's performance.md tables and two v0.5 blog tables, NVIDIA NIM's Llama 3.3 70B sweep): at least nine in ten
# read, the final line in validate's standard format, and no worse than today's figures plus half a
# point (median 19.6 %, p90 90.5 % when they were added; 8.3 %, 40.4 % before TensorRT-LLM's releases
# before 0.7 read a GQA group's KV cache once per query head)
own=$("$AC" validate --infer --csv "$REPO/validation/infer_published.csv" 2>&1 | tail -1)
echo "$own" | grep -Eq '^rows [0-9]+ skipped [0-9]+ median_abs_err [0-9.]+% p90_abs_err [0-9.]+%$' &&
echo "$own" | awk '{ rows = $2; skipped = $4; med = $6; p90 = $8; sub("%", "", med); sub("%", "", p90);
    exit !(rows >= 40 && skipped * 10 <= rows && med + 0 <= 8.5 && p90 + 0 <= 25.4) }' \
    && pass validate_own_infer_published || fail validate_own_infer_published "$own (want >= 40 rows, >= 9/10 read, median <= 8.5%, p90 <= 25.4%; was 68 rows, 0 skipped, 8.0%, 24.9%)"
