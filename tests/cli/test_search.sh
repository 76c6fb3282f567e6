#!/bin/sh
# test_search.sh — `autoconfig run` end to end on the embedded default (sim),
# `estimate` and `validate`: every result file, its columns, ranking, errors.
AC=${AUTOCONFIG:?}
cd "${REPO:?}" || exit 1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

pass() { echo "PASS search:$1"; }
fail() { echo "FAIL search:$1: $2"; }
expect() {
    name=$1 want=$2 pat=$3; shift 4
    out=$("$AC" "$@" 2>&1); got=$?
    if [ "$got" -ne "$want" ]; then fail "$name" "exit $got, expected $want: $out"; return; fi
    case "$out" in *"$pat"*) pass "$name" ;; *) fail "$name" "output lacks '$pat': $out" ;; esac
}

# --- the default run: gpt3/5b on 16 nodes of A100 80GB ---
L="$T/run"
out=$("$AC" run "search_config.train_settings.logs=$L" 2>&1); st=$?
[ $st -eq 0 ] && pass run_default || fail run_default "exit $st: $out"
case "$out" in *"Top 10 configs sorted from fastest to slowest (predicted"*) pass run_top_header ;; *) fail run_top_header "$out" ;; esac
# times are printed as seconds per step (the original printed GPUs per node)
echo "$out" | grep -Eq '^Config #1: gpt3_5b_16nodes_tp_[0-9]+_pp_[0-9]+.* with [0-9]+\.[0-9]{4}s per global step \(predicted' \
    && pass run_top_times || fail run_top_times "$out"
case "$out" in *"Beyond the original's grid"*) pass run_beyond ;; *) fail run_beyond "$out" ;; esac
F="$L/final_result"
for f in final_summary_16nodes.csv failed_jobs_16nodes.csv optimal_config_5b_16nodes.yaml summary.json; do
    [ -s "$F/$f" ] && pass "file_$f" || fail "file_$f" "missing $F/$f"
done
hdr=$(head -1 "$F/final_summary_16nodes.csv")
case "$hdr" in "Model Name,Model Size,Seq Length,TP,PP,MBS,Act Ckpt Layers,Act Ckpt Micro Bathes,Act Ckpt Layers per Pipeline,Num Layers,Hidden Size,FFN Hidden Size,GBS,Nodes,GPUs per Node,Time per Step,Samples per Second,Model TFLOPS / GPU,Model TFLOPS Aggregate,Config Name,"*) pass summary_original_columns ;; *) fail summary_original_columns "$hdr" ;; esac
for col in "Result" "Peak Memory GiB" "MFU %" "Tokens per Second" "Est. Days to Train" "Cost USD"; do
    case "$hdr" in *"$col"*) pass "summary_col_$col" ;; *) fail "summary_col_$col" "$hdr" ;; esac
done
# sorted by time per step, all predicted
awk -F, 'NR>1 { if (prev != "" && $16 + 0 < prev + 0) bad = 1; prev = $16 } END { exit bad }' "$F/final_summary_16nodes.csv" \
    && pass summary_sorted || fail summary_sorted "not ascending"
grep -q ',predicted,' "$F/final_summary_16nodes.csv" && ! grep -q ',measured,' "$F/final_summary_16nodes.csv" \
    && pass summary_labelled || fail summary_labelled "rows not labelled predicted"
rows=$(($(wc -l < "$F/final_summary_16nodes.csv") - 1))
[ "$rows" -ge 10 ] && pass summary_rows || fail summary_rows "$rows rows"
# the candidate files: the original's names
n=$(ls "$L/candidate_configs" | wc -l)
[ "$n" -ge "$rows" ] && pass candidates_written || fail candidates_written "$n files"
[ -f "$L/candidate_configs/gpt3_5b_16nodes_tp_1_pp_1_mbs_1_act_ckpt_None_num_mbs_act_None_act_per_pipe_None.yaml" ] \
    && pass candidate_name || fail candidate_name "$(ls "$L/candidate_configs" | head -3)"
grep -q "tensor_model_parallel_size: 1" "$F/optimal_config_5b_16nodes.yaml" && grep -q "num_nodes: 16" "$F/optimal_config_5b_16nodes.yaml" \
    && pass optimal_config_runnable || fail optimal_config_runnable "$(head -20 "$F/optimal_config_5b_16nodes.yaml")"
grep -q '"runs":\[' "$F/summary.json" && grep -q '"source":"predicted"' "$F/summary.json" && grep -q '"best":"gpt3_5b_16nodes_' "$F/summary.json" \
    && pass summary_json || fail summary_json "$(head -c 400 "$F/summary.json")"
# a second run over the same logs dir replaces the files cleanly
touch "$L/candidate_configs/stale_from_old_run.yaml"
"$AC" run "search_config.train_settings.logs=$L" search_config.train_settings.num_nodes=16 >/dev/null 2>&1
[ ! -f "$L/candidate_configs/stale_from_old_run.yaml" ] && [ -z "$(find "$L" -name '*.tmp.*')" ] \
    && pass rerun_clean || fail rerun_clean "stale or temp files left"

# predicted OOM → failed_jobs with the reason
L2="$T/oom"
"$AC" run search_config=gpt3/43b "search_config.train_settings.logs=$L2" search_config.train_settings.gpu_memory_gb=40 >/dev/null 2>&1
grep -q "predicted out of memory" "$L2/final_result/failed_jobs_"*nodes.csv && pass failed_reason || fail failed_reason "$(head -3 "$L2/final_result/failed_jobs_"*nodes.csv 2>&1)"

# llama and mixtral on H100: our families, our knobs
expect run_llama 0 "Optimal config: llama3_8b_16nodes_" -- run search_config=llama/llama3_8b search_config.train_settings.gpu=h100 "search_config.train_settings.logs=$T/llama"
expect run_mixtral 0 "Optimal config: mixtral_" -- run search_config=mixtral/mixtral_8x7b search_config.train_settings.gpu=h100 "search_config.train_settings.logs=$T/mix"
expect run_json 0 '"tool":"autoconfig"' -- run --json "search_config.train_settings.logs=$T/json"

# bad input
expect unknown_gpu 2 "unknown GPU 'h1000'; did you mean" -- run search_config.train_settings.gpu=h1000 "search_config.train_settings.logs=$T/bad1"
expect too_few_gpus 2 "the model needs more GPUs than the 8 (1 nodes × 8): its smallest allowed layout is TP 8 × PP 4 × CP 1 = 32 GPUs (min_model_parallel_size 32); use 4 nodes (or a multiple)" -- run search_config=gpt3/175b search_config.train_settings.num_nodes=1 "search_config.train_settings.logs=$T/bad175"
[ ! -d "$T/bad1/final_result" ] && pass unknown_gpu_nothing_written || fail unknown_gpu_nothing_written "wrote results"
expect too_large 2 "no candidate fits in GPU memory: the smallest needs" -- run search_config=gpt3/175b search_config.train_settings.num_nodes=1 "search_config.train_settings.tensor_parallel_sizes=[1]" "search_config.train_settings.pipeline_parallel_sizes=[1]" search_config.train_settings.min_model_parallel_size=1 search_config.train_settings.max_model_parallel_size=1 "search_config.train_settings.logs=$T/bad2"
expect empty_grid 2 "heads" -- run "search_config.train_settings.tensor_parallel_sizes=[3]" "search_config.train_settings.logs=$T/bad3"

# estimate: one candidate with breakdowns; impossible candidates get the rule
expect estimate_text 0 "activations (" -- estimate search_config=llama/llama3_70b search_config.train_settings.gpu=h100 --tp 4 --pp 4 --vp 5
expect estimate_json 0 '"memory_gib":{"weights":' -- estimate --json search_config=llama/llama3_8b search_config.train_settings.gpu=h100
expect estimate_bad_tp 2 "TP 3 does not divide 32 attention heads" -- estimate --tp 3
expect estimate_bad_flag 2 "expects an integer" -- estimate --tp x
# a pipeline layout splits 80 layers over 6 stages: 14 each, the rest (10) on the last
expect estimate_pp_layout 0 "remainder_last split: 14 layers on the first stage, 14 on the largest, 10 on the last" -- \
    estimate search_config=llama/llama3_70b search_config.train_settings.num_nodes=12 --tp 4 --pp 6 --gbs 480 --pp-layout remainder_last
expect estimate_pp_layout_json 0 '"layers_last_stage":10' -- \
    estimate --json search_config=llama/llama3_70b search_config.train_settings.num_nodes=12 --tp 4 --pp 6 --gbs 480 --pp-layout remainder_last
expect estimate_pp_layout_uneven 2 "PP 6 does not divide 80 layers" -- \
    estimate search_config=llama/llama3_70b search_config.train_settings.num_nodes=12 --tp 4 --pp 6 --gbs 480
expect estimate_pp_layout_bad 2 "--pp-layout: expects even, remainder_last or embedding_loss, got 'odd'" -- estimate --pp-layout odd
expect estimate_bad_bool 2 "--cuda-graphs: expects true or false" -- estimate --cuda-graphs maybe
expect estimate_modules 0 "recompute selective (layernorm)" -- estimate search_config=llama/llama3_70b --recompute-modules layernorm
expect estimate_modules_typo 2 "unknown module 'layernrom' (did you mean layernorm?)" -- estimate --recompute-modules layernrom
expect estimate_modules_dense 2 "moe_act) needs a mixture-of-experts model" -- estimate search_config=llama/llama3_70b --recompute-modules moe_act
expect estimate_overlap_needs_vp 2 "needs an interleaved (virtual) pipeline" -- estimate search_config=mixtral/mixtral_8x7b --ep 8 --a2a-overlap true
expect estimate_fp8_gather_needs_fp8 2 "FP8 parameter gather keeps FP8 weights: it needs FP8 precision, not bf16" -- estimate --fp8-param-gather true
# bf16 gradients (NVIDIA's benchmark recipes) halve the gradient buffers and shrink the DP traffic
g32=$("$AC" estimate --json search_config=llama/llama3_70b search_config.train_settings.gpu=h100 --tp 4 --pp 4 --vp 5 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["memory_gib"]["grads"], d["time_s"]["dp_comm"])')
g16=$("$AC" estimate --json search_config=llama/llama3_70b search_config.train_settings.gpu=h100 --tp 4 --pp 4 --vp 5 --grad-reduce-in-fp32 false 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["memory_gib"]["grads"], d["time_s"]["dp_comm"], d["grad_reduce_in_fp32"])')
echo "$g32 $g16" | awk '{ exit !($3 > 0 && ($1 / $3 - 2) ^ 2 < 1e-6 && $4 < $2 && $5 == "False") }' \
    && pass estimate_bf16_gradients || fail estimate_bf16_gradients "fp32: $g32 bf16: $g16"
# FP8 weights: TE's cached copies (one on B200, two for MXFP8); FP8 gather drops the bf16 weight
w=""
for a in "--precision fp8" "--precision MXFP8" "--precision fp8 --fp8-param-gather true" "--precision bf16"; do
    w="$w $("$AC" estimate --json search_config=llama/llama3_8b search_config.train_settings.gpu=b200 $a 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["memory_gib"]["weights"])')"
done
echo "$w" | awk '{ exit !($2 > $1 && $1 > $4 && $3 < $4) }' && pass estimate_fp8_weight_copies || fail estimate_fp8_weight_copies "fp8, mxfp8, fp8+gather, bf16:$w"
# MoE switches of newer Megatron-Core: the all-to-all and the host launches leave the step
ep_plain=$("$AC" estimate --json search_config=mixtral/mixtral_8x7b --ep 8 --vp 4 2>/dev/null | python3 -c 'import json,sys; t=json.load(sys.stdin)["time_s"]; print(t["ep_comm"], t["moe_host"], t["step"])')
ep_on=$("$AC" estimate --json search_config=mixtral/mixtral_8x7b --ep 8 --vp 4 --a2a-overlap true --cuda-graphs true 2>/dev/null | python3 -c 'import json,sys; t=json.load(sys.stdin)["time_s"]; print(t["ep_comm"], t["moe_host"], t["step"])')
echo "$ep_plain $ep_on" | awk '{ exit !($1 > 0 && $2 > 0 && $4 < $1 && $5 == 0 && $6 < $3) }' \
    && pass estimate_moe_switches || fail estimate_moe_switches "off: $ep_plain on: $ep_on"

# validate: the shared CSV; final line format and the accuracy we hold
V="$REPO/../shared/reference/benchmarks_train.csv"
if [ -f "$V" ]; then
    out=$("$AC" validate --csv "$V" --out "$T/val.csv" 2>&1); st=$?
    last=$(echo "$out" | tail -1)
    echo "$last" | grep -Eq '^rows [0-9]+ skipped [0-9]+ median_abs_err [0-9.]+% p90_abs_err [0-9.]+%$' \
        && pass validate_line || fail validate_line "$last"
    med=$(echo "$last" | sed 's/.*median_abs_err \([0-9.]*\)%.*/\1/')
    # 9.1% once the 50 Nemotron 3 rows are read (hybrid Mamba-2 blocks: Nano's 20 median 8.0%,
    # Super's 30 median 31.1%, predicted too fast on NVL72 and too slow on B300 at EP 8); the rows
    # predicted before keep 8.9% (validate_rows_before_hybrid below)
    # 8.1% with NeMo-Framework-Launcher's early-2024 FlashAttention-2 on S9's H100 rows; 7.6% with
    # the MaxText recipes' remat policies (dgxc-benchmarking configure.sh: Q/K/V and more kept)
    # 7.8% once JAX's full remat skips the MLP output projection (Paxml -1.0 -> +5.4 %)
    awk -v m="$med" 'BEGIN { exit !(m <= 8.0) }' && pass validate_median || fail validate_median "median $med% > 8.0% (was 7.8% with JAX's remat as JAX runs it, 8.1% with the launcher's 2024 attention)"
    p90=$(echo "$last" | sed 's/.*p90_abs_err \([0-9.]*\)%.*/\1/')
    # p90 is a regression guard (target 25%): 35.5% before the release-bound recipes (CUDA
    # graphs and all-to-all overlap of the 26.06+ MoE runs), 31.9% with them; 37.9% once the
    # 34 DeepSeek-V3 runs (multi-head latent attention) are predicted too; 33.2% with the
    # DeepSeek-V3 26.06 MXFP8 recipes (full-iteration graphs, all-to-all overlap); 26.2% with
    # pipeline layouts, group-limited routing and GPT-OSS expert passes; 25.6% with the
    # regression footnote and the NVFP4 rate.  Re-baselined to 50.7% when the shared CSV gained
    # the layouts of its 86 NeMo Megatron A100 rows (S8, 2022-2023 stack); tightened as the
    # estimator models that stack.  The rows that were predicted before keep their own guard.
    # 51.3% once `validate` reads the S8 cells as written ("y" is yes, "no (fused_adam)" plain
    # DDP: issue 24); 36.5% with the training stack as an input (S8 on nemo-megatron-2022:
    # unfused attention, no interleaving), GEMM tile/wave quantization and T5's per-stack layers.
    # 29.4% with NeMo 1.x's unfused gradient accumulation and NeMo's gated-GELU T5.
    # 26.6% with the fine-tuning rows read and the 2022 stack without TE userbuffers.  30.3% once
    # rows that print only their best run (no MBS, or no TP/PP: the S9 long-sequence tables, 24
    # rows, median 28.8%, predicted too fast) are read with the fastest layout predicted to fit,
    # and rows that publish only a model name take its shape (data/models.csv: Grok-1, Kimi K2);
    # the rows with a published layout keep their own guard below.  26.4% with the output layer
    # in bf16 under FP8, FP8 tiles' longer K fill, FlashAttention's slower backward and whole
    # diagonal blocks, NeMo 1.x's fp32 loss and the DP reduction hidden under the backward only.
    # 25.9% with the SMs NCCL's CTAs take from compute while a data-parallel collective hides.
    # 26.4% (median 8.7% -> 8.5%) with Blackwell's tensor cores at the parts' max SM clock rather
    # than the lower clock their datasheet peaks are quoted at, over the 148 SMs the parts enable
    # (B200 +5.9 %, B300 +9.5 %, GB200 and GB300 +2 %), the tuned VP also searched where PP divides
    # the layers only with the first and last stage one layer fewer (Qwen3-235B's 94 on 8 stages),
    # and the VP closest to fitting taken when none is predicted to fit.
    # 30.5% once the 50 hybrid Nemotron 3 rows are read (Super's 30: p90 51%); the 572 rows
    # predicted before keep their 26.9% guard (validate_rows_before_hybrid).
    # 29.4% with attention kernels' per-query-block overhead (calibration attn_block_overhead,
    # 8192-token reference, paid per ring step under context parallelism) and Blackwell Ultra's
    # measured attention gain; 29.4% with narrow heads keeping their exponentials' share forward and
    # backward (calibration attn_exp_share, cuDNN's H200/GB200/GB300 64- vs 128-wide heads).
    # 29.2% with each collective's latency from NCCL's cost model (collective.c).  30.0% (median
    # 9.3 -> 8.3%) with GB300's GEMMs at the 1.18x of GB200's that cuBLASLt measures on the two:
    # most GB300 rows move toward their measurements (Llama 3.1 405B -17 -> -7%, Llama 3 70B
    # -15 -> -5%), GPT-OSS and Nemotron 3 Super, too fast on GB200 as well, further ahead.
    # 28.9% with S9's H100 rows (NeMo 24.03) on the launcher's 2024 stack: its config.yaml turned
    # cuDNN attention off (NVTE_FUSED_ATTN=0), so they ran FlashAttention-2 (+43 -> +1 %).
    # 28.6% with the MaxText recipes' remat policies.
    awk -v m="$p90" 'BEGIN { exit !(m <= 27.0) }' && pass validate_p90_regression || fail validate_p90_regression "p90 $p90% > 27.0% (was 26.6% with B200's measured attention, 28.6% with the MaxText remat policies, 28.9% with the launcher's 2024 attention)"
    p90_pub=$(echo "$out" | sed -n 's/^without those rows ([0-9]* with a published layout): median_abs_err [0-9.]*% p90_abs_err \([0-9.]*\)%$/\1/p')
    awk -v m="${p90_pub:-999}" 'BEGIN { exit !(m <= 28.5) }' && pass validate_p90_published_layouts \
        || fail validate_p90_published_layouts "p90 of the rows with a published layout ${p90_pub:-?}% > 28.5% (was 28.1% with B200's measured attention, 28.5% with the MaxText remat policies, 28.8% with GB300's measured GEMM rate)"
    p90_old=$(python3 -c '
import csv, sys
e = sorted(abs(float(r["error_pct"])) for r in csv.DictReader(open(sys.argv[1]))
           if r["error_pct"] and "DeepSeek" not in r["model"] and "Nemotron_3" not in r["model"])
x = 0.9 * (len(e) - 1); i = int(x)
print("%.1f" % (e[i] + (x - i) * (e[min(i + 1, len(e) - 1)] - e[i])))' "$T/val.csv")
    awk -v m="$p90_old" 'BEGIN { exit !(m <= 24.2) }' && pass validate_p90_without_mla \
        || fail validate_p90_without_mla "p90 without the DeepSeek-V3 and Nemotron 3 rows $p90_old% > 24.2% (was 23.8% with the MaxText remat policies, 26.3% with the launcher's 2024 attention)"
    # the rows predicted before the hybrid stacks were read keep their guards; the hybrid rows
    # are all read: the Nano's 20 within 9.3 % (median 8.9 %) and every one predicted to fit,
    # Super's 30 no worse than now (median 32.1 %, p90 48.8 %; 28 fit)
    old_rows=$(python3 -c '
import csv, sys
e = sorted(abs(float(r["error_pct"])) for r in csv.DictReader(open(sys.argv[1]))
           if r["error_pct"] and "Nemotron_3" not in r["model"])
def q(p):
    x = p * (len(e) - 1); i = int(x)
    return e[i] + (x - i) * (e[min(i + 1, len(e) - 1)] - e[i])
print("%d %.1f %.1f" % (len(e), q(0.5), q(0.9)))' "$T/val.csv")
    # (8.6 / 26.2 -> 8.9 / 27.2 % with the attention kernels' per-query-block overhead: S9's
    # long-context rows, already +35 % fast on H100, run further ahead; 26.7 % with narrow heads'
    # exponential share, GPT-OSS's rows at the p90; 8.6 / 27.4 % with NCCL's collective latency;
    # 7.7 / 27.9 % with GB300's measured GEMM rate; 7.4 / 25.7 % with the launcher's 2024 attention;
    # 7.1 / 23.4 % with the MaxText recipes' remat policies)
    echo "$old_rows" | awk '{ exit !($1 >= 572 && $2 <= 7.4 && $3 <= 23.8) }' && pass validate_rows_before_hybrid \
        || fail validate_rows_before_hybrid "rows, median, p90 without the Nemotron 3 rows: $old_rows (want >= 572, <= 7.4, <= 23.8)"
    hyb=$(python3 -c '
import csv, sys
r = [r for r in csv.DictReader(open(sys.argv[1])) if r["model"].startswith("Nemotron_3_") and r["error_pct"]]
def q(e, p):
    if not e: return 999.0
    e = sorted(e); x = p * (len(e) - 1); i = int(x)
    return e[i] + (x - i) * (e[min(i + 1, len(e) - 1)] - e[i])
for kind in ("Nano", "Super"):
    k = [x for x in r if kind in x["model"]]
    e = [abs(float(x["error_pct"])) for x in k]
    print(len(k), sum(x["fits"] == "true" for x in k), "%.1f %.1f" % (q(e, 0.5), q(e, 0.9)), end=" ")' "$T/val.csv")
    # (Super 32.1 %, Nano 8.9 % since GB300's GEMMs run at their measured 1.18x of GB200's: their
    # GB300 rows, too fast before, further ahead)
    echo "$hyb" | awk '{ exit !($1 == 20 && $2 == 20 && $3 <= 9.3 && $5 == 30 && $6 >= 28 && $7 <= 32.5 && $8 <= 50.6) }' \
        && pass validate_hybrid_rows \
        || fail validate_hybrid_rows "Nano read, fitting, median, p90; Super the same: $hyb (want 20 20 <=9.3 _ 30 >=28 <=32.5 <=50.6)"
    # the DeepSeek-V3 rows: every one predicted (sizes from MLA_FAMILIES), all fit in memory
    # with the recipe's MLA up-projection recompute
    ds=$(python3 -c '
import csv, sys
r = [r for r in csv.DictReader(open(sys.argv[1])) if r["model"].startswith("DeepSeekV3") and r["error_pct"]]
print(len(r), sum(x["fits"] == "true" for x in r))' "$T/val.csv")
    [ "$ds" = "34 34" ] && pass validate_deepseek_v3 || fail validate_deepseek_v3 "predicted, fitting: $ds (want 34 34)"
    # tables that print only their best run: the layout assumed, counted, and kept out of the
    # published-layout figure
    echo "$out" | grep -q "^layout not published: TP x PP and MBS of [1-9][0-9]* row(s): the fastest" &&
        echo "$out" | grep -q "^micro batch not published: MBS of [1-9][0-9]* row(s): the fastest" \
        && pass validate_layout_assumed || fail validate_layout_assumed "$(echo "$out" | grep -i 'not published')"
    fit=$(echo "$out" | sed -n 's/^memory: \([0-9]*\) of \([0-9]*\) published runs.*/\1/p')
    [ "${fit:-0}" -ge 611 ] && pass validate_memory_fit || fail validate_memory_fit "only ${fit:-?} published runs predicted to fit (was 613 of 622)"
    # the per-source median target (10%) holds for every source but S6 (MoE release spread)
    bad=$(echo "$out" | awk '$1 ~ /^S(4|5|7|10)$/ && $4+0 > 10.0 {print $1 " " $4}')
    seen=$(echo "$out" | awk '$1 ~ /^S(4|5|7|10)$/ && $4 ~ /%$/' | wc -l)
    [ -z "$bad" ] && [ "$seen" -eq 4 ] && pass validate_source_medians || fail validate_source_medians "median above 10%: $bad (sources seen: $seen)"
    # the GPU table splits the same predicted rows by GPU: its counts add up to the final line's
    gsum=$(echo "$out" | awk '/^gpu +rows/ {on=1; next} on && /^[a-z0-9_]+ +[0-9]+ +[0-9.]+%/ {n += $2; next} on {on=0} END {print n+0}')
    total=$(echo "$last" | awk '{print $2}')
    [ "$gsum" = "$total" ] && echo "$out" | grep -Eq '^gb300 +[0-9]+ +[0-9.]+% +[0-9.]+% +[-+][0-9.]+%$' \
        && pass validate_gpu_table || fail validate_gpu_table "gpu rows $gsum of $total"
    # the two 26.06.01 GPT-OSS figures their table footnotes as a cuDNN regression are skipped
    # with that reason, and the footnote is explained
    fn=$(grep -c 'known software regression (footnote \[^gpt-oss-note\])' "$T/val.csv")
    case "$out" in *"footnote [^gpt-oss-note]: GPT-OSS 120B pre-training regression"*"cudnn-frontend issue 256"*)
        [ "$fn" = 2 ] && pass validate_regression_footnote || fail validate_regression_footnote "$fn rows skipped" ;;
        *) fail validate_regression_footnote "no footnote explanation" ;; esac
    [ -s "$T/val.csv" ] && head -1 "$T/val.csv" | grep -q "predicted_step_time_s" && pass validate_out || fail validate_out "no per-row CSV"
    # every row, predicted or skipped, has the header's columns
    shapes=$(python3 -c 'import csv,sys; print(sorted({len(r) for r in csv.reader(open(sys.argv[1]))}))' "$T/val.csv")
    [ "$shapes" = "[46]" ] && pass validate_out_shape || fail validate_out_shape "row lengths $shapes (header 46)"
    # the 26.06+ Qwen3 MoE runs on GB200 ran the release's full-iteration graphs, overlap and
    # fused grouped expert MLP; the 26.04.01 GPT-OSS BF16 run none of them
    # S8 (NeMo Megatron 22.02-23.07 on A100, target 12 %): 11.6 % before the releases that
    # all-reduce after the backward (NeMo Megatron 22.01-22.04, data/recipes.csv), 10.7 % with them
    s8=$(echo "$out" | awk '$1 == "S8" {sub("%", "", $4); print $4}')
    awk -v m="${s8:-999}" 'BEGIN { exit !(m <= 11.2) }' && pass validate_s8_median || fail validate_s8_median "S8 median ${s8:-?}% > 11.2% (was 10.7%)"
    g=$(python3 -c 'import csv,sys; print(sorted({(r["id"] == "T0434", r["cuda_graphs"], r["moe_a2a_overlap"], r["fused_expert_mlp"]) for r in csv.DictReader(open(sys.argv[1])) if r["id"] in ("T0365", "T0389", "T0434")}))' "$T/val.csv")
    [ "$g" = "[(False, 'true', 'true', 'true'), (True, 'false', 'false', 'false')]" ] && pass validate_release_recipe || fail validate_release_recipe "$g"
fi

# the project's own published rows, not in ../shared (validation/train_published.csv: torchtitan
# on A100 and on the 500 W H100, llm-foundry, Megatron-LM 2021): at least four in five read, and the
# accuracy we hold on them (6.5 % / 18.2 % before the 16 torchtitan H100 rows, 6.8 % / 18.7 % with them,
# 6.7 % / 18.1 % with Korthikanti 2022's eight, 6.8 % / 19.6 % with MT-NLG's three, 7.0 % / 19.4 %
# with dgxc-benchmarking's seven Nemotron-H 56B step times; 6.0 % / 17.8 % on 363 rows once JX23's
# 2023 Paxml rows ran the 2023 JAX stack; 5.9 % / 18.4 % with llm-foundry's fused cross-entropy;
# 5.8 % / 17.9 % on 381 rows with Nemotron-4, MegaScale's Megatron-LM baseline and FlashAttention-2's;
# 5.9 % / 18.4 % on 432 rows with OLMo-core's, FlagPerf's, FP8-LM's and the launcher's early-2024 tables;
# 6.5 % / 19.7 % on 474 rows with BigScience's 42 pre-BLOOM sweeps, 17.2 % of their own; 6.2 % / 19.3 %
# on 476 once a layer recomputed whole re-ran its forward's TP collectives; 6.5 % / 20.0 % on 493 with the
# rest of BigScience's stated sweeps)
own=$("$AC" validate --csv "$REPO/validation/train_published.csv" 2>&1 | tail -1)
echo "$own" | awk '{ split($0, a, " "); rows = a[2]; skipped = a[4]; med = a[6]; p90 = a[8]; sub("%", "", med); sub("%", "", p90);
    exit !(rows > 0 && skipped * 5 <= rows && med + 0 <= 7.0 && p90 + 0 <= 20.7) }' \
    && pass validate_own_published || fail validate_own_published "$own (want >= 4/5 read, median <= 7.0%, p90 <= 20.7%; 6.4%, 20.3% on 493 rows with B200's measured attention; 6.5%, 20.0% on 493 rows; 6.2%, 19.3% on 476 rows; 6.5%, 19.7% on 474 rows; 5.8%, 17.9% on 381 rows; 6.0%, 17.8% on 363 rows; was 7.3%, 21.2% on 350 rows with KF26, FM24, BS22, AM25, ML23, JX23 and LL24 read; 7.0%, 19.4% on the 274 rows before them)"
# Llama 3 405B's published uneven pipeline (126 layers on 16 stages) is read as it ran, not skipped
ll24=$("$AC" validate --csv "$REPO/validation/train_published.csv" 2>&1 | awk '$1 == "LL24" {print $2, $3}')
[ "$ll24" = "3 0" ] && pass validate_ll24_uneven_pp || fail validate_ll24_uneven_pp "LL24 rows, skipped: $ll24 (want 3 0)"
# one source of the own table: all its rows read, median |error| at most MAX (%); NOTE names what
# it pins.  usage: source_guard ID ROWS MAX NOTE
owntab=$("$AC" validate --csv "$REPO/validation/train_published.csv" 2>&1)
source_guard() {
    got=$(echo "$owntab" | awk -v id="$1" '$1 == id {sub("%", "", $4); print $2, $3, $4}')
    echo "$got" | awk -v n="$2" -v max="$3" '{ exit !($1 == n && $2 == 0 && $3 <= max) }' && pass "validate_$(echo "$1" | tr A-Z a-z)" \
        || fail "validate_$(echo "$1" | tr A-Z a-z)" "$1 rows, skipped, median: ${got:-?} (want $2 0 <= $3%; $4)"
}
# MLPerf Training GPT-3 175B on 512-11616 H100 (NVIDIA's v3.0, v3.1 and v4.0 submissions, FP8; v3.0's
# NGC 23.04 steps 7 % slower than predicted)
source_guard ML23 11 3.0 "was 1.7%"
# KempnerForge's H200 runs on 4-GPU boards (FSDP2 + TP): read with the node they state
# (gpus_per_node 4: NVLink reaches 4 GPUs, FSDP and DP cross InfiniBand beyond); with the
# catalog's 8-GPU HGX node 19.1 %, +23 %
source_guard KF26 26 11.5 "was 11.0% with its 4-GPU nodes, 19.1% read as 8-GPU HGX nodes"
# torchtitan's H100 tables (FSDP2 eager, torch.compile, float8; CP; 2D-4D): every row read (its
# "float8" precision, its compile switch, its 500 W HBM2e part); 29 % over the first twelve when
# the part was read as the 700 W H100 SXM; PyTorch's context parallel as it runs (K/V at every
# head, fp32 dK/dV, not overlapped); its 3D/4D rows (PP 8, 1F1B as Table 5 states) with FSDP2
# under torch.distributed.pipelining: gathered once a step and reduced once (stacks.csv pp_fsdp),
# +1..+11 % (they were -1..+9 % read with per-micro-batch gathers, median 9.7 %); its Interleaved 1F1B
# row (Q017, two stages per rank assumed) +22 %.  12.4 % with FlashAttention-2's per-query-block
# overhead: its long-context rows (32k-262k tokens, already +6..+48 % fast) run further ahead
source_guard TT25 17 12.8 "was 12.4% with the attention kernels' per-query-block overhead, 11.1% before"
# the TorchTitan paper's tables (1D-3D, 405B at FSDP 4 x TP 8 x PP 16 with 1F1B and interleaved), the
# 405B 2D section of August 2024 and Trainy's H200 rows: all read
# FSDP2's copies on the compute stream (pytorch-fsdp2: each gather's copy-out, each reduction's fp32
# copy-in) slow every torchtitan row: TP25's and TA24's rows that were already slow move further
# (5.0 -> 6.2 %, 13.8 -> 16.1 %), TT24's, TT25's and TY25's (fast) move closer
source_guard TP25 9 9.0 "was 8.3% with full recompute's TP collectives re-run, 6.2% without; 5.0% before FSDP2's copies"
source_guard TA24 3 21.0 "was 20.1% with full recompute's TP collectives re-run, 16.1% without, 13.8% before FSDP2's copies (its async-TP row compiled: torchtitan refuses async TP without torch.compile)"
source_guard TY25 2 6.0 "was 4.7% (float8 all-gather as its source states, FSDP2's copies), 6.4% before"
# MLPerf Training's Blackwell LLM pre-training (NVIDIA v4.1-v5.1: GPT-3 175B on B200, Llama 3.1 405B on
# GB200/GB300, Llama 3.1 8B in GB200/GB300 pairs of one config): 405B within -13..+0 %, 8B at 8-72 GPUs
# within -7..+3 %, its 512-GPU pair +16..+19 % (0.09 s steps over a DP x CP group of 256: +58..+62 %
# before collectives paid NCCL's latency). The median row sits at 4.3 % (9.5 % before GB300's GEMMs
# took their measured rate).
source_guard MB25 13 6.0 "was 4.3%, 9.5% before GB300's measured GEMM rate, 9.0% before NCCL's latency"
# Korthikanti et al. 2022's iteration times (the eight calculon validates against): Megatron-LM of
# 2022 by its framework cell, its pipeline sends scattered over the TP ranks without sequence
# parallelism (10.2 % when the source's "MLSys 2023" dated the run)
source_guard KO22 8 8.0 "was 7.4% with full recompute's TP all-reduces re-run (its 175B-1T full-recompute rows 7-10 % slow), 4.6% before"
# dgxc-benchmarking's Nemotron-H 56B on 32-2048 H100 (a hybrid Mamba-2 stack, held out when the
# Mamba-2 block was written): all 7 read and fit, predicted too fast
source_guard DX25 7 18.0 "was 17.2%"
# Nemotron-4 15B (TP 8 at 768-2304 H100) and 340B (TP 8 x PP 12 interleaved at 1536-6144) as their
# reports' batch ramps ran them: predicted 6-16 % fast
source_guard NT24 6 8.0 "was 6.7%"
# MegaScale's Megatron-LM baseline (175B, TP 8 x PP 8 x VP 6 at 256-12288 A100, micro-batch assumed):
# its published VP kept while the micro-batch is assumed, its framework cell naming the 2022 stack
# its defaults ran, its data-parallel collectives after the backward (MegaScale counts their overlap
# as its own: 5.2 % read overlapped)
source_guard MS24 8 4.5 "was 3.3%"
# FlashAttention-2's GPT3-1.3B/2.7B training at 2k and 8k tokens on 8 A100 (its own fused scripts)
source_guard FA23 4 6.0 "was 4.0%"
# OLMo-core's README tables (FSDP2, each block compiled, no recompute below 32B; float8 with its
# float8 all-gather): predicted 2-51 % fast, the 13B and 32B rows the furthest
source_guard OC24 9 18.0 "was 17.2% (19.6% before FSDP2's copies)"
# FlagPerf's Megatron-LM core_v0.6.0 runs (Llama 3 8B on A800 and H100, 70B on 64 H100): its scripts set
# no --tp-comm-overlap and no --overlap-grad-reduce (27 % read with the recipes' overlaps); Transformer
# Engine 1.3 runs cuDNN's attention on Hopper, at the megatron-core stack's rates: its H100 rows +13..+25 %
# fast (+8..+15 % read with FlashAttention-2's)
source_guard FP24 6 23.5 "was 22.4%, 27% read with TP and DP overlap"
# FP8-LM's BF16 and Transformer Engine FP8 rows (Megatron-LM 2023, GPT 7B/13B/175B on H100): the
# megatron-lm-2023 stack (flash-attn 2, Megatron-LM's defaults: no TP or DP overlap) and its scripts'
# --no-gradient-accumulation-fusion (31.0 % read as the 2025 recipes run)
source_guard FL23 6 11.0 "was 9.7%, 31.0% read as megatron-core with gradient accumulation fused"
# NeMo-Framework-Launcher's H100 FP8 tables of early 2024 (examples/README.md, two commits before 24.07:
# 18 pre-training and 12 fine-tuning rows, gradients reduced in bf16 as its scripts state), on the
# launcher's 2024 stack its dates put them on (FlashAttention-2; 5.6 % on 2025's cuDNN attention)
source_guard NL24 30 5.5 "was 4.5%, 5.6% on megatron-core"
# BigScience's pre-BLOOM topology sweeps on 384 A100 (Megatron-DeepSpeed, fp16/bf16, ZeRO-1; 59 rows whose
# shapes the text states): most TP 8 rows fast (a 14400 hidden, 1800 a TP rank, about 30 %; 96 heads at
# 12288 and 128 at 13824 more), TP 1 x PP 48 slow
source_guard BP22 59 15.5 "was 14.3% with full recompute's TP all-reduces re-run, 17.2% before"
# Narayanan et al. 2021 (Megatron-LM of 2021, --DDP-impl local: gradients all-reduced after the
# backward): p90 18.2 % while read as overlapped, 14.6 % as the code ran
na21=$("$AC" validate --csv "$REPO/validation/train_published.csv" 2>&1 | awk '$1 == "NA21" {sub("%", "", $5); print $5}')
awk -v m="${na21:-999}" 'BEGIN { exit !(m <= 15.1) }' && pass validate_na21_p90 || fail validate_na21_p90 "NA21 p90 ${na21:-?}% > 15.1% (was 14.6%)"
fit=$("$AC" validate --csv "$REPO/validation/train_published.csv" 2>&1 | sed -n 's/^memory: \([0-9]*\) of \([0-9]*\) published runs.*/\1 \2/p')
echo "$fit" | awk '{ exit !($2 > 0 && $1 >= 481) }' && pass validate_own_published_fit \
    || fail validate_own_published_fit "runs predicted to fit: $fit (want >= 481 of 493 (482 fit: BigScience's DP 24 x PP 2 pair and NeMo's 70B SFT at 16 GPUs over, FlashAttention-2's 2.7B at 8k not): MPT's dropout-free blocks keep no masks and its fused cross-entropy no fp32 logits; the whole GPU is the limit; the 7 Nemotron-H runs fit)"
# a table that publishes PP > 1 without VP: the fastest legal VP is assumed and said so;
# a published VP is kept as is
cat > "$T/vp.csv" <<'CSV'
id,source_id,model_family,num_layers,hidden_size,ffn_hidden_size,num_attention_heads,num_query_groups,vocab_size,seq_length,gpu_type,num_gpus,tp,pp,vp,mbs,gbs,precision,step_time_s
A,X,Llama (dense),80,8192,28672,64,8,128256,8192,B200,64,4,4,,1,64,BF16,10
B,X,Llama (dense),80,8192,28672,64,8,128256,8192,H100 SXM,64,4,4,1,1,64,BF16,10
CSV
out=$("$AC" validate --csv "$T/vp.csv" --out "$T/vp_out.csv" 2>&1)
case "$out" in *"VP not published for 1 row(s) with PP > 1"*) pass validate_vp_note ;; *) fail validate_vp_note "$out" ;; esac
g=$("$AC" validate --csv "$T/vp.csv" --json | python3 -c 'import json,sys; print(sorted((g["gpu"], g["rows"]) for g in json.load(sys.stdin)["gpus"]))')
[ "$g" = "[('b200', 1), ('h100_sxm', 1)]" ] && pass validate_gpu_json || fail validate_gpu_json "$g"
# the signed median reads predicted over published throughput − 1 for step-time rows too:
# a row published at 10 s and predicted at s seconds is 10/s − 1 (positive: predicted faster)
g=$("$AC" validate --csv "$T/vp.csv" --json | python3 -c '
import csv, json, sys
pred = {r["gpu"]: float(r["predicted_step_time_s"]) for r in csv.DictReader(open(sys.argv[1]))}
bad = [g["gpu"] for g in json.load(sys.stdin)["gpus"] if abs(g["median_err_pct"] - 100 * (10 / pred[g["gpu"]] - 1)) > 1e-3]
print(bad)' "$T/vp_out.csv")
[ "$g" = "[]" ] && pass validate_signed_throughput || fail validate_signed_throughput "$g"
vpa=$(awk -F, '$1=="A" {print $8}' "$T/vp_out.csv"); vpb=$(awk -F, '$1=="B" {print $8}' "$T/vp_out.csv")
[ "${vpa:-0}" -gt 1 ] && [ "$vpb" = 1 ] && pass validate_vp_assumed || fail validate_vp_assumed "A vp=$vpa B vp=$vpb"
# validate a CSV and compare what an awk program prints of its per-row output with what is wanted.
# usage: validate_reads TEST CSV AWK_PROGRAM WANT
validate_reads() {
    "$AC" validate --csv "$2" --out "$2.out" >/dev/null 2>&1
    got=$(awk -F, "$3" "$2.out")
    [ "$got" = "$4" ] && pass "$1" || fail "$1" "$got (want $4)"
}
# a published VP stays as published when only the micro batch is assumed (MegaScale's baseline:
# TP 8 x PP 8 x VP 6, its micro-batch unpublished)
cat > "$T/vp_mbs.csv" <<'CSV'
id,source_id,framework,model,num_layers,hidden_size,num_attention_heads,vocab_size,seq_length,gpu_type,num_gpus,tp,pp,vp,mbs,gbs,precision,dist_opt_zero,step_time_s
M,X,Megatron-LM (2023),GPT 175B,96,12288,96,51200,2048,A100 80GB,256,8,8,6,,768,bf16,distributed optimizer,40
CSV
validate_reads validate_vp_kept_mbs_assumed "$T/vp_mbs.csv" 'NR > 1 {printf "%s:%s", $1, $8}' "M:6"
# a framework cell that names a stack of data/stacks.csv as "<name> stack", the name a whole word,
# runs that stack, over the product it also names and over the year rule; a name inside a longer
# word is no name ("jax-xla-2023x" names neither jax-xla-2023 nor jax-xla: its "JAX" is the
# phrase's), nor is a product name that is also a stack's without the word ("Megatron-Core" of X)
cat > "$T/named.csv" <<'CSV'
id,source_id,framework,model,num_layers,hidden_size,num_attention_heads,vocab_size,seq_length,gpu_type,num_gpus,tp,pp,mbs,gbs,precision,tokens_per_s_per_gpu
S,X,torchtitan (the meta-llama3 stack),GPT 1.3B,24,2048,16,50304,2048,A100 80GB,8,1,1,1,8,bf16,10000
T,X,torchtitan,GPT 1.3B,24,2048,16,50304,2048,A100 80GB,8,1,1,1,8,bf16,10000
U,X,Megatron-LM (2021; the megatron-core stack),GPT 1.3B,24,2048,16,50304,2048,A100 80GB,8,1,1,1,8,bf16,10000
V,X,Megatron-LM (2021),GPT 1.3B,24,2048,16,50304,2048,A100 80GB,8,1,1,1,8,bf16,10000
W,X,torchtitan (jax-xla-2023x stack),GPT 1.3B,24,2048,16,50304,2048,A100 80GB,8,1,1,1,8,bf16,10000
X,X,Megatron-LM (2021; Megatron-Core),GPT 1.3B,24,2048,16,50304,2048,A100 80GB,8,1,1,1,8,bf16,10000
Y,X,torchtitan (xmeta-llama3 stack),GPT 1.3B,24,2048,16,50304,2048,A100 80GB,8,1,1,1,8,bf16,10000
Z,X,torchtitan (meta-llama3stack; meta-llama3 stacked),GPT 1.3B,24,2048,16,50304,2048,A100 80GB,8,1,1,1,8,bf16,10000
CSV
validate_reads validate_framework_names_stack "$T/named.csv" 'NR == 1 {for (i = 1; i <= NF; i++) col[$i] = i} NR > 1 {printf "%s:%s ", $1, $col["stack"]}' \
    "S:meta-llama3 T:pytorch-fsdp2 U:megatron-core V:nemo-megatron-2022 W:jax-xla X:nemo-megatron-2022 Y:pytorch-fsdp2 Z:pytorch-fsdp2 "
# a run's published peak memory (peak_mem_gib) is set against the predicted peak, per row and in
# the summary
cat > "$T/peak.csv" <<'CSV'
id,source_id,model,num_layers,hidden_size,num_attention_heads,vocab_size,seq_length,gpu_type,num_gpus,tp,pp,mbs,gbs,precision,tokens_per_s_per_gpu,peak_mem_gib
P,X,GPT 1.3B,24,2048,16,50304,2048,A100 80GB,8,1,1,1,8,bf16,10000,20
Q,X,GPT 1.3B,24,2048,16,50304,2048,A100 80GB,8,1,1,1,8,bf16,10000,
CSV
out=$("$AC" validate --csv "$T/peak.csv" --out "$T/peak_out.csv" 2>&1)
peak=$(awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) col[$i] = i} NR > 1 {m = $col["predicted_peak_mem_gib"]; printf "%s:%s:%s:%d ", $1, $col["published_mem_gib"], ($col["mem_error_pct"] == "" ? "-" : "e"), ($col["mem_error_pct"] == "" || (m / 20 - 1) * 100 - $col["mem_error_pct"] < 0.01 && (m / 20 - 1) * 100 - $col["mem_error_pct"] > -0.01)}' "$T/peak_out.csv")
case "$out" in *"memory: 1 runs publish their peak: predicted peak median |err|"*) [ "$peak" = "P:20.00:e:1 Q::-:1 " ] ;; *) false ;; esac \
    && pass validate_published_peak_memory || fail validate_published_peak_memory "$peak / $(echo "$out" | grep 'publish their peak')"
# a GPU name that states another memory size than the catalog's part runs with it (Leonardo's
# A100 64GB, the 94 GB H100); the 80 GB parts' rounding (79.6 GiB) is no other size
cat > "$T/gpu_mem.csv" <<'CSV'
id,source_id,framework,model,num_layers,hidden_size,num_attention_heads,vocab_size,seq_length,gpu_type,num_gpus,tp,pp,mbs,gbs,precision,tokens_per_s_per_gpu
A,X,Megatron-LM,GPT 1.3B,24,2048,16,50304,2048,NVIDIA A100-SXM-64GB,8,1,1,1,8,bf16,10000
B,X,Megatron-LM,GPT 1.3B,24,2048,16,50304,2048,H100 SXM5 94GB,8,1,1,1,8,bf16,10000
C,X,Megatron-LM,GPT 1.3B,24,2048,16,50304,2048,H100 SXM 80GB,8,1,1,1,8,bf16,10000
CSV
validate_reads validate_stated_gpu_memory "$T/gpu_mem.csv" 'NR == 1 {for (i = 1; i <= NF; i++) col[$i] = i} NR > 1 {printf "%s:%s:%s ", $1, $4, $col["usable_mem_gib"]}' \
    "A:a100_80gb:64.00 B:h100_sxm:94.00 C:h100_sxm:79.60 "
# PP that divides the layers only with the first and last stage one layer fewer (Llama 3.1 405B's
# 126 layers on 16 stages, as Llama 3 trained it): the VP is still searched, over 8-layer stages
# (on B200 a VP > 1 fits and is faster); when no VP is predicted to fit (H100: the run fit in a
# memory the model over-counts) the one closest to fitting is taken, the least memory: VP 1
cat > "$T/vp_uneven.csv" <<'CSV'
id,source_id,model,seq_length,gpu_type,num_gpus,tp,pp,vp,mbs,gbs,precision,act_recompute,tflops_per_gpu,num_layers,hidden_size,num_attention_heads
U,X,Llama 3.1 405B,8192,B200,8192,8,16,,1,2048,bf16,none,430,,,
V,X,Llama 3.1 405B,8192,H100 SXM,8192,8,16,,1,2048,bf16,none,430,,,
CSV
"$AC" validate --csv "$T/vp_uneven.csv" --out "$T/vp_uneven_out.csv" >/dev/null 2>&1
vpu=$(awk -F, '$1=="U" {print $8}' "$T/vp_uneven_out.csv"); vpv=$(awk -F, '$1=="V" {print $8}' "$T/vp_uneven_out.csv")
case "$vpu/$vpv" in 2/1|4/1|8/1) pass validate_vp_uneven_stages ;; *) fail validate_vp_uneven_stages "VP '$vpu' and '$vpv' (want 2, 4 or 8, and 1)" ;; esac
head -1 "$T/vp_out.csv" | grep -q "s_compute_fwd,.*s_dp_exposed.*,grad_reduce_in_fp32,fp8_param_gather,cpu_offloading_num_layers,cuda_graphs,moe_a2a_overlap,recompute_modules,fused_expert_mlp,stack,usable_mem_gib,published_mem_gib,mem_error_pct$" \
    && pass validate_breakdown_cols || fail validate_breakdown_cols "$(head -1 "$T/vp_out.csv")"
# no framework column: Megatron-LM's defaults (fp32 gradients, bf16 weights, no offload,
# eager launches, exposed all-to-all, no module recompute, unfused expert MLP) on megatron-core
awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) col[$i] = i} $1=="B" { exit !($col["grad_reduce_in_fp32"]=="true" && $col["fp8_param_gather"]=="false" && $col["cpu_offloading_num_layers"]==0 && $col["cuda_graphs"]=="false" && $col["moe_a2a_overlap"]=="false" && $col["recompute_modules"]=="" && $col["fused_expert_mlp"]=="false" && $col["stack"]=="megatron-core") }' "$T/vp_out.csv" \
    && pass validate_row_switches || fail validate_row_switches "$(grep '^B,' "$T/vp_out.csv")"
# a published gradient accumulation that does not close GBS = MBS x DP x GA: which layout
# ran is unknown, so the row is skipped with the arithmetic; a consistent one is predicted
cat > "$T/ga.csv" <<'CSV'
id,source_id,model_family,num_layers,hidden_size,ffn_hidden_size,num_attention_heads,num_query_groups,vocab_size,seq_length,gpu_type,num_gpus,tp,pp,vp,mbs,gbs,grad_accum,precision,step_time_s
G1,X,Llama (dense),80,8192,28672,64,8,128256,8192,GB200,64,2,4,5,2,128,16,BF16,10
G2,X,Llama (dense),80,8192,28672,64,8,128256,8192,GB200,64,2,4,5,1,128,16,BF16,10
CSV
out=$("$AC" validate --csv "$T/ga.csv" 2>&1)
case "$out" in *"MBS 2 × DP 8 × gradient accumulation 16 is not the published GBS 128"*"rows 1 skipped 1 "*) pass validate_ga_inconsistent ;;
    *) fail validate_ga_inconsistent "$out" ;; esac
# only the inconsistent row: nothing to compare is an error, not a "nan%" pass; no per-row file
grep -v '^G2' "$T/ga.csv" > "$T/ga_bad.csv"
out=$("$AC" validate --csv "$T/ga_bad.csv" --out "$T/ga_bad_out.csv" 2>&1); rc=$?
[ $rc -eq 2 ] && [ ! -e "$T/ga_bad_out.csv" ] &&
    case "$out" in *"rows 0 skipped 1 median_abs_err - p90_abs_err -"*"no row could be predicted (every row skipped"*) true ;; *) false ;; esac &&
    pass validate_no_usable_rows || fail validate_no_usable_rows "exit $rc: $out"
# a cell that is there but no usable number is named, not called missing
sed 's/^G1,X,Llama (dense),80,/G1,X,Llama (dense),abc,/' "$T/ga.csv" > "$T/nan.csv"
out=$("$AC" validate --csv "$T/nan.csv" 2>&1)
case "$out" in *"num_layers is not a usable number"*) pass validate_bad_number_named ;; *) fail validate_bad_number_named "$out" ;; esac
printf 'id,source_id,num_layers\n1,X,2\n' > "$T/short.csv"
expect validate_missing_col 2 "column missing" -- validate --csv "$T/short.csv"
expect validate_no_csv 2 "needs --csv" -- validate
# --html: the picture of a validation run; every predicted row is one dot, texts escaped
cat > "$T/pic.csv" <<'CSV'
id,source_id,model,model_family,num_layers,hidden_size,ffn_hidden_size,num_attention_heads,num_query_groups,vocab_size,seq_length,gpu_type,num_gpus,tp,pp,vp,mbs,gbs,precision,step_time_s,tokens_per_s_per_gpu
A,X,<script>alert(1)</script>,Llama (dense),80,8192,28672,64,8,128256,8192,H100 SXM,64,4,4,5,1,64,BF16,10,
B,Y,Llama 70B,Llama (dense),80,8192,28672,64,8,128256,8192,H100 SXM,64,4,4,5,1,64,BF16,,500
C,Y,Llama 70B,Llama (dense),80,8192,28672,64,8,,8192,H100 SXM,64,4,4,5,1,64,BF16,,500
CSV
out=$("$AC" validate --csv "$T/pic.csv" --html "$T/pic.html" 2>&1); st=$?
dots=$(grep -o '<circle' "$T/pic.html" 2>/dev/null | wc -l)
[ $st -eq 0 ] && [ "$dots" -eq 2 ] && grep -q 'id="chart-error-histogram"' "$T/pic.html" \
    && grep -q 'id="chart-error-by-model"' "$T/pic.html" && grep -q '<dt>rows skipped</dt><dd>1 ' "$T/pic.html" \
    && pass validate_html || fail validate_html "exit $st, $dots dots: $out"
grep -q '<script>alert' "$T/pic.html" && fail validate_html_escaped "raw model name in the page" \
    || { grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$T/pic.html" && pass validate_html_escaped || fail validate_html_escaped "name missing"; }
# a row published as step time is drawn in throughput terms: predicted 2x slower is -50 %, not +100 %
"$AC" validate --csv "$T/pic.csv" --out "$T/pic_rows.csv" >/dev/null 2>&1
e_row=$(awk -F, '$1=="A" {print $17}' "$T/pic_rows.csv")
tip=$(grep -o '<title>A X [^<]*' "$T/pic.html" | head -1)
python3 - "$e_row" "$tip" <<'PY' && pass validate_html_speed_sign || fail validate_html_speed_sign "row $e_row tip $tip"
import re, sys
e = float(sys.argv[1]); m = re.search(r"\(([-+][0-9.]+) %\)", sys.argv[2])
want = 100 * (1 / (1 + e / 100) - 1)
sys.exit(0 if m and abs(float(m.group(1)) - want) < 0.1 else 1)
PY
if [ -f "$REPO/../shared/reference/benchmarks_infer.csv" ]; then
    # inference rows too: latency rows drawn in throughput terms, median/p90 from the rows as printed
    out=$("$AC" validate --infer --csv "$REPO/../shared/reference/benchmarks_infer.csv" --html "$T/vi.html" 2>&1); st=$?
    med=$(echo "$out" | tail -1 | sed -n 's/.*median_abs_err \([0-9.]*\)%.*/\1/p')
    [ $st -eq 0 ] && grep -q "<dt>median |error|</dt><dd>$med %</dd>" "$T/vi.html" && pass validate_html_infer \
        || fail validate_html_infer "exit $st, median $med"
    # runs published as out of memory are predicted not to fit (the inference engines' 98 % share)
    oom=$(echo "$out" | sed -n 's/^published OOM rows predicted not to fit: \([0-9]*\) of \([0-9]*\)$/\1/p')
    [ "${oom:-0}" -ge 6 ] && pass validate_infer_oom_rows || fail validate_infer_oom_rows "${oom:-?} of the published OOM rows predicted not to fit (want >= 6)"
fi
expect validate_html_bad_path 1 "$T/nodir/p.html" -- validate --csv "$T/pic.csv" --html "$T/nodir/p.html"
# the serving model has no calibration file to take: said, not silently ignored
expect validate_infer_calibration_refused 2 "applies to training validation only" -- validate --infer --csv "$T/pic.csv" --calibration "$REPO/data/calibration.csv"
VI="$REPO/../shared/reference/benchmarks_infer.csv"
if [ -f "$VI" ]; then
    last=$("$AC" validate --infer --csv "$VI" 2>&1 | tail -1)
    echo "$last" | grep -Eq '^rows [0-9]+ skipped [0-9]+ median_abs_err [0-9.]+% p90_abs_err [0-9.]+%$' \
        && pass validate_infer_line || fail validate_infer_line "$last"
fi

# every preset of our own families (and the size-recommended Mixtral) gives a ranked result by default
for p in llama/llama2_7b llama/llama2_13b llama/llama2_70b llama/llama3_8b llama/llama3_70b mixtral/mixtral_8x7b mixtral/mixtral_8x22b mixtral/unknown_size; do
    out=$("$AC" run "search_config=$p" "search_config.train_settings.logs=$T/preset" run_inference_hp_search=false 2>&1); rc=$?
    [ $rc -eq 0 ] && case "$out" in *"Config #1: "*"per global step (predicted"*) true ;; *) false ;; esac &&
        pass "preset_runs_${p#*/}" || fail "preset_runs_${p#*/}" "exit $rc: $(echo "$out" | tail -2)"
done
