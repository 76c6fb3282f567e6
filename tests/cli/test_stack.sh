#!/bin/sh
# test_stack.sh — the training stack as an input (data/stacks.csv): --framework on
# estimate and cost, train_settings.framework, the validation CSV's framework column,
# the uncertainty band `estimate` prints and writes, and `validate --bands`.
AC=${AUTOCONFIG:?}
cd "${REPO:?}" || exit 1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass() { echo "PASS stack:$1"; }
fail() { echo "FAIL stack:$1: $2"; }
expect() {
    name=$1 want=$2 pat=$3; shift 4
    out=$("$AC" "$@" 2>&1); got=$?
    if [ "$got" -ne "$want" ]; then fail "$name" "exit $got, expected $want: $out"; return; fi
    case "$out" in *"$pat"*) pass "$name" ;; *) fail "$name" "output lacks '$pat': $out" ;; esac
}
G5="search_config=gpt3/5b search_config.train_settings.num_nodes=1 search_config.train_settings.gpu=a100"
L=search_config.train_settings.logs

# the original's era: the same layout runs slower without FlashAttention, and says so
step() { "$AC" estimate $G5 --tp 2 --mbs 2 --gbs 1440 "$@" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["time_s"]["step"])'; }
a=$(step --framework megatron-core); b=$(step --framework nemo-megatron-2022)
awk -v a="$a" -v b="$b" 'BEGIN { exit !(b > a * 1.05) }' && pass framework_2022_slower || fail framework_2022_slower "mcore $a s, 2022 $b s"
expect framework_printed 0 "stack       nemo-megatron-2022" -- estimate $G5 --framework nemo-megatron-2022
expect framework_alias 0 "stack       hf-deepspeed" -- estimate $G5 --framework deepspeed --tp 1 --zero 2
# MX block scaling is Blackwell's: refused on Hopper with what it runs instead, predicted on B200
expect mxfp8_hopper 2 "MXFP8 needs Blackwell's MX tensor cores; h100_sxm runs fp8" -- estimate --precision mxfp8 search_config.train_settings.gpu=h100
expect mxfp8_blackwell 0 "ZeRO stage 1, mxfp8" -- estimate --precision mxfp8 search_config.train_settings.gpu=b200
# 4-GPU boards (gpus_per_node 4 on H200): NVLink reaches the board, data-parallel traffic the NIC
expect node_size_shown 0 "on 128 x h200 (4 per node)" -- estimate search_config.train_settings.gpu=h200 search_config.train_settings.gpus_per_node=4 search_config.train_settings.num_nodes=32
dp() { "$AC" estimate search_config=llama/llama3_70b search_config.train_settings.gpu=h200 "search_config.train_settings.gpus_per_node=$1" \
      "search_config.train_settings.num_nodes=$((64 / $1))" --tp 4 --pp 1 --zero 3 --recompute full --gbs 64 --json |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["time_s"]["dp_comm"])'; }
a=$(dp 8); b=$(dp 4)
awk -v a="$a" -v b="$b" 'BEGIN { exit !(b > 1.9 * a) }' && pass node_size_dp_traffic || fail node_size_dp_traffic "8 per node $a s, 4 per node $b s"
# a node's own network (4 x 100 Gb/s): the layout line says so and data-parallel traffic takes longer
net() { "$AC" estimate search_config=gpt3/175b search_config.train_settings.num_nodes=48 --tp 4 --pp 12 --mbs 2 --gbs 2048 "$@" --json |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["time_s"]["dp_comm"])'; }
a=$(net); b=$(net search_config.train_settings.network_gbps=400)
awk -v a="$a" -v b="$b" 'BEGIN { exit !(b > 3.5 * a) }' && pass node_network_dp || fail node_network_dp "DGX $a s, 400 Gb/s $b s"
expect node_network_shown 0 "on 384 x a100_80gb (400 Gb/s a node)" -- estimate search_config=gpt3/175b search_config.train_settings.num_nodes=48 \
    search_config.train_settings.network_gbps=400 --tp 4 --pp 12
expect node_network_range 2 "network_gbps: 0 is out of range" -- estimate search_config.train_settings.network_gbps=0
# a flag given twice: the last wins, as key=value overrides do
expect flag_last_wins 0 "layout      TP 2 " -- estimate --tp 4 --tp 2
expect framework_config_key 0 "stack       pytorch-fsdp" -- estimate $G5 search_config.train_settings.framework=fsdp --tp 1
expect framework_unknown 2 "did you mean 'hf-deepspeed'" -- estimate $G5 --framework deepspeeed
# a stack runs the parallelism data/stacks.csv gives it: Hugging Face + DeepSpeed is data-parallel, so
# estimate's default layout drops the base config's TP, an asked-for TP is refused with the reason,
# and a search ranks TP 1 PP 1 CP 1 alone (the preset's context_parallel_sizes [1, 2] searches 1)
expect stack_default_layout 0 "layout      TP 1  PP 1" -- estimate search_config=gpt3/175b --framework hf-deepspeed --zero 3
expect stack_no_tp 2 "hf-deepspeed runs no tensor parallelism (TP 2); it runs data parallelism" -- \
    estimate search_config=llama/llama3_8b --framework hf-deepspeed --tp 2
expect stack_no_cp 2 "megatron-deepspeed runs no context parallelism (CP 2); it runs data, tensor and pipeline parallelism" -- \
    estimate search_config=llama/llama3_8b --framework megatron-deepspeed --cp 2
"$AC" run search_config=llama/llama3_8b search_config.train_settings.framework=hf-deepspeed search_config.train_settings.num_nodes=2 \
    "base_results_dir=$T/hf" >"$T/hf.out" 2>&1
csv=$(ls "$T"/hf/llama/*/final_result/final_summary_2nodes.csv 2>/dev/null)
if [ -n "$csv" ] && python3 - "$csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
layouts = {(r.get("TP"), r.get("PP"), r.get("CP", "1")) for r in rows}
sys.exit(0 if rows and layouts == {("1", "1", "1")} else 1)
PY
then pass stack_search_dp_only; else fail stack_search_dp_only "$(head -c 600 "$T/hf.out"; [ -n "$csv" ] && head -5 "$csv")"; fi
expect stack_search_explicit_tp 2 "search_config.train_settings.tensor_parallel_sizes: the training stack hf-deepspeed runs no tensor parallelism" -- \
    run search_config=llama/llama3_8b search_config.train_settings.framework=hf-deepspeed "search_config.train_settings.tensor_parallel_sizes=[2,4]" \
    "base_results_dir=$T/hf2"
# a NeMo base config's distributed optimizer does not lower DeepSpeed's ZeRO-2 (as --framework does not)
expect stack_zero_kept 0 "ZeRO stage 2" -- estimate search_config=llama/llama3_8b search_config.train_settings.framework=hf-deepspeed
# a stack without sequence parallelism reads the base config with it off: its candidates are the
# original's grid, not SP extensions
"$AC" run search_config=gpt3/175b search_config.train_settings.framework=megatron-deepspeed search_config.train_settings.num_nodes=48 \
    "base_results_dir=$T/mds" >"$T/mds.out" 2>&1
if grep -q "6 candidates (6 in the original's grid)" "$T/mds.out" && ! grep -q "_sp_" "$T/mds.out"; then pass stack_no_sp_grid
else fail stack_no_sp_grid "$(head -c 600 "$T/mds.out")"; fi
expect stack_no_vp 2 "megatron-deepspeed has no interleaved pipeline schedule (VP 2" -- \
    estimate search_config=gpt3/175b --framework megatron-deepspeed --tp 8 --pp 8 --vp 2
expect stack_no_sp 2 "megatron-deepspeed has no sequence parallelism" -- estimate search_config=gpt3/175b --framework megatron-deepspeed --tp 8 --pp 8 --sp true
expect stack_search_explicit_vp 2 "virtual_pipeline_sizes: the training stack megatron-deepspeed has no interleaved pipeline schedule" -- \
    run search_config=gpt3/175b search_config.train_settings.framework=megatron-deepspeed "search_config.train_settings.virtual_pipeline_sizes=[2]" \
    "base_results_dir=$T/vp"
expect stack_search_explicit_cp 2 "context_parallel_sizes: the training stack nemo-megatron-2022 runs no context parallelism" -- \
    run search_config=gpt3/5b search_config.train_settings.framework=nemo-megatron-2022 "search_config.train_settings.context_parallel_sizes=[2]" \
    "base_results_dir=$T/nm2"
# a JAX run rematerialises unless it says otherwise (MaxText remat_policy 'full'); a flag still wins
expect framework_jax_remat 0 "recompute full" -- estimate $G5 --framework maxtext --tp 1
expect framework_jax_remat_flag 0 "recompute none" -- estimate $G5 --framework maxtext --tp 1 --recompute none
# a JAX remat policy keeps named GEMM outputs: less recompute than full, more activations
L70="search_config=llama/llama3_70b search_config.train_settings.gpu=h100 search_config.train_settings.num_nodes=16"
rm_() { "$AC" estimate $L70 --framework maxtext --tp 1 --pp 1 --zero 3 --mbs 2 --gbs 256 "$@" --json |
      python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["time_s"]["recompute"], d["memory_gib"]["activations"])'; }
a=$(rm_); b=$(rm_ --remat-policy save_qkv_proj)
echo "$a $b" | awk '{ exit !($3 < 0.9 * $1 && $3 > 0 && $4 > $2) }' && pass remat_policy_trades || fail remat_policy_trades "full: $a, save_qkv_proj: $b"
expect remat_policy_shown 0 "recompute full (save_dot_except_mlp)" -- estimate $L70 --framework maxtext --tp 1 --zero 3 --remat-policy save_dot_except_mlp
expect remat_policy_config 0 "recompute full (save_qkv_proj)" -- estimate $L70 search_config.train_settings.framework=maxtext search_config.train_settings.remat_policy=save_qkv_proj --tp 1 --zero 3
expect remat_policy_config_typo 2 "unknown remat policy 'save_qkv_prj' (did you mean 'save_qkv_proj'?" -- estimate $L70 search_config.train_settings.framework=maxtext search_config.train_settings.remat_policy=save_qkv_prj --tp 1
expect remat_policy_not_jax 2 "--remat-policy: a remat policy names what a JAX stack's recompute keeps (jax-xla); megatron-core recomputes whole layers" -- estimate $G5 --remat-policy save_qkv_proj
expect remat_policy_config_not_jax 2 "search_config.train_settings.remat_policy: a remat policy names what a JAX stack's recompute keeps" -- estimate $G5 search_config.train_settings.remat_policy=minimal
# the stack is checked once --framework has picked it: the config's policy with --framework maxtext
# runs, and --framework megatron-core under a config naming maxtext and a policy is refused
expect remat_policy_flag_stack 0 "recompute full (minimal)" -- estimate $G5 search_config.train_settings.remat_policy=minimal --framework maxtext --tp 1
expect remat_policy_flag_overrides 2 "megatron-core recomputes whole layers" -- estimate $G5 search_config.train_settings.framework=maxtext search_config.train_settings.remat_policy=minimal --framework megatron-core --recompute full
expect remat_policy_flag_typo 2 "unknown remat policy 'save_qkv_prj' (did you mean 'save_qkv_proj'?" -- estimate $G5 --framework maxtext --remat-policy save_qkv_prj
# a search's full-recompute candidates run the configured policy, and its summary says which
"$AC" run $L70 search_config.train_settings.framework=maxtext search_config.train_settings.remat_policy=save_qkv_proj base_results_dir="$T/remat" >/dev/null 2>&1
grep -qs ",full (save_qkv_proj)," "$T"/remat/*/*/final_result/*summary*.csv && pass remat_policy_summary || fail remat_policy_summary "$(ls -R "$T/remat" | head -20)"
expect remat_policy_unknown 2 "--remat-policy: unknown remat policy 'save_all' (known: full, minimal, save_qkv_proj" -- estimate $G5 --remat-policy save_all
expect remat_policy_not_full 2 "is a policy of full recompute, but --recompute selective" -- estimate $G5 --framework maxtext --remat-policy minimal --recompute selective
expect framework_config_unknown 2 "search_config.train_settings.framework" -- estimate $G5 search_config.train_settings.framework=colossalai
# a search ranked on a stack NeMo's jobs do not run ranks (sim), but does not launch NeMo jobs
expect run_framework_sim 0 "Optimal config" -- run $G5 search_config.train_settings.framework=fsdp base_results_dir=$T/r1
expect run_framework_launch 2 "launches NeMo training jobs, but the search is ranked on pytorch-fsdp" -- run $G5 search_config.train_settings.framework=fsdp cluster_type=local base_results_dir=$T/r2
[ ! -e "$T/r2" ] && pass run_framework_launch_nothing_written || fail run_framework_launch_nothing_written "$(ls -R "$T/r2")"
# FSDP shards the weights: far less memory per GPU than plain DDP of the same run
mem() { "$AC" estimate $G5 --tp 1 --mbs 1 --gbs 64 "$@" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["memory_gib"]["total"])'; }
m_ddp=$(mem --framework megatron-core --zero 0); m_fsdp=$(mem --framework pytorch-fsdp)
awk -v a="$m_ddp" -v b="$m_fsdp" 'BEGIN { exit !(b < a / 2) }' && pass fsdp_shards || fail fsdp_shards "ddp $m_ddp GiB, fsdp $m_fsdp GiB"

# every prediction carries its band, in text and JSON
expect band_printed 0 "band      +-" -- estimate $G5 --framework nemo-megatron-2022
"$AC" estimate $G5 --json | python3 -c '
import json, sys
b = json.load(sys.stdin)["band"]
assert 0 < b["time_rel"] < 1 and b["rows"] > 0 and b["step_s_low"] < b["step_s_high"], b' \
    && pass band_json || fail band_json "no band in the JSON"

# cost: one stack for every setup
out=$("$AC" cost search_config=llama/llama2_7b $L=$T/c1 --gpus a100_80gb --max-gpus 8 --framework pytorch-fsdp --json 2>&1); rc=$?
[ $rc -eq 0 ] && pass cost_framework || fail cost_framework "exit $rc: $(echo "$out" | tail -2)"
# the cost stage's files configure no JAX run: it says so instead of writing DeepSpeed files for one
expect cost_framework_jax 2 "none of which runs jax-xla" -- cost search_config=llama/llama2_7b $L=$T/c3 --framework maxtext
[ ! -e "$T/c3" ] && pass cost_framework_jax_nothing_written || fail cost_framework_jax_nothing_written "$(ls -R "$T/c3")"
expect cost_framework_jax_key 2 "search_config.train_settings.framework" -- cost search_config=llama/llama2_7b $L=$T/c3 search_config.train_settings.framework=paxml
expect cost_framework_unknown 2 "unknown training stack" -- cost search_config=llama/llama2_7b $L=$T/c2 --framework colossalai

# validate: the framework column picks the stack; --bands writes the bands (--bands-also adds a table)
expect bands_also_needs_bands 2 "needs --bands FILE" -- validate --csv "$REPO/validation/train_published.csv" --bands-also "$REPO/validation/train_published.csv"
V="$REPO/../shared/reference/benchmarks_train.csv"
if [ -f "$V" ]; then
    "$AC" validate --csv "$V" --out "$T/v.csv" --bands "$T/bands.csv" --bands-also "$REPO/validation/train_published.csv" >/dev/null 2>&1
    s8=$(python3 -c '
import csv, sys
print(sorted({r["stack"] for r in csv.DictReader(open(sys.argv[1])) if r["id"] in ("T0648", "T0674")}))' "$T/v.csv")
    [ "$s8" = "['nemo-megatron-2022']" ] && pass validate_framework_column || fail validate_framework_column "$s8"
    # the own table's stacks get bands of their own (FSDP2 on the 500 W H100); a GPU with fewer than
    # five runs of a stack (FlagPerf's one A800 row) takes the stack's
    head -1 "$T/bands.csv" | grep -q "^gpu,stack,rows,time_band_rel,mem_band_rel,rank_band_rel$" && grep -q "^a100_80gb,nemo-megatron-2022," "$T/bands.csv" \
        && grep -q "^h100_sxm_hbm2e,pytorch-fsdp2," "$T/bands.csv" && ! grep -q "^a800_80gb," "$T/bands.csv" \
        && pass validate_bands || fail validate_bands "$(cat "$T/bands.csv")"
    # data/bands.csv is what validate derives today (within a point of the band)
    python3 - "$T/bands.csv" "$REPO/data/bands.csv" <<'PY' && pass bands_data_current || fail bands_data_current "data/bands.csv is stale: regenerate with validate --bands"
import csv, sys
def read(p):
    return {(r["gpu"], r["stack"]): float(r["time_band_rel"]) for r in csv.DictReader(l for l in open(p) if not l.startswith("#"))}
now, data = read(sys.argv[1]), read(sys.argv[2])
sys.exit(0 if now.keys() == data.keys() and all(abs(now[k] - data[k]) <= 0.01 for k in now) else 1)
PY
fi
