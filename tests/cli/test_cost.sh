#!/bin/sh
# test_cost.sh — `autoconfig cost` as a user meets it: the tables and the chosen
# setup, the files under <logs>/cost/ (DeepSpeed config, training arguments, LoRA
# config, summary.json the report charts), --json, an HF config.json, the cost
# stage inside `run`, and every bad input with a clear error and non-zero exit.
AC=${AUTOCONFIG:?}
cd "${REPO:?}" || exit 1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass() { echo "PASS cost:$1"; }
fail() { echo "FAIL cost:$1: $2"; }
L=search_config.train_settings.logs
common="search_config=llama/llama2_7b $L=$T/logs"

out=$("$AC" cost $common --gpus a100_80gb,a10g:0.9 2>&1); rc=$?
[ $rc -eq 0 ] && pass exit_ok || fail exit_ok "exit $rc: $out"
case "$out" in *"a10g at \$0.90 per GPU-hour"*) pass price_override_shown ;; *) fail price_override_shown "$out" ;; esac
case "$out" in *"cheapest on a100_80gb:"*"cheapest on a10g:"*) pass cheapest_per_gpu ;; *) fail cheapest_per_gpu "$out" ;; esac
case "$out" in *"MFU convention:"*"6 x N"*) pass mfu_convention ;; *) fail mfu_convention "$out" ;; esac
case "$out" in *"Chosen setup (predicted)"*) pass chosen_predicted ;; *) fail chosen_predicted "$out" ;; esac
case "$out" in *"Ranked by \$ per million tokens (predicted"*"Ranked by time to train (predicted"*) pass rankings ;; *) fail rankings "$out" ;; esac
# one A10G cannot hold full fine-tuning of 7B without offload: the chosen A10G setups offload or shard
echo "$out" | grep -E '^  a10g +1 ' | grep -q 'ZeRO-3 +offload' && pass a10g_single_needs_offload \
    || fail a10g_single_needs_offload "$(echo "$out" | grep -E '^  a10g +1 ')"

D=$T/logs/cost
for f in summary.json ds_config.json train_args.json; do
    [ -s "$D/$f" ] && pass "file_$f" || fail "file_$f" "missing"
done
[ ! -e "$D/lora_config.json" ] && pass no_lora_file_for_full || fail no_lora_file_for_full "lora_config.json written"
python3 - "$D" <<'PY' && pass files_consistent || fail files_consistent "see above"
import json, sys
d = sys.argv[1]
s = json.load(open(d + "/summary.json")); ds = json.load(open(d + "/ds_config.json")); ta = json.load(open(d + "/train_args.json"))
o = s["options"][s["chosen"]]
for k in ("gpu", "num_gpus", "usd_per_mtok", "hours", "mtok_per_hour", "mfu", "feasible", "label"):
    assert k in o, k
assert o["feasible"] and s["source"] == "predicted"
assert ds["zero_optimization"]["stage"] == o["zero_stage"]
assert ds["train_batch_size"] == ds["train_micro_batch_size_per_gpu"] * ds["gradient_accumulation_steps"] * o["dp"]
assert ta["per_device_train_batch_size"] == o["mbs"] and ta["gradient_checkpointing"] == o["activation_checkpointing"]
costs = [s["options"][i]["usd_per_mtok"] for i in s["ranking_by_cost"]]
# sorted by $/MT except inside the tie band, where the faster comes first
for a, b in zip(costs, costs[1:]):
    assert b >= a or a <= b * (1 + s["tie_band"]), (a, b)
assert abs(o["usd_per_mtok"] - o["num_gpus"] * o["price_per_gpu_hour"] / o["mtok_per_hour"]) < 1e-9 * o["usd_per_mtok"] + 1e-12
PY

out=$("$AC" cost $common --task lora --lora-modules q_proj,v_proj --gpus a10g --json 2>&1); rc=$?
echo "$out" | python3 -c 'import json,sys; s=json.load(sys.stdin); assert s["task"]=="lora" and s["lora"]["rank"]==16' 2>/dev/null \
    && [ $rc -eq 0 ] && pass lora_json || fail lora_json "exit $rc: $(echo "$out" | head -5)"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["target_modules"]==["q_proj","v_proj"]' "$D/lora_config.json" 2>/dev/null \
    && pass lora_config_file || fail lora_config_file "$(cat "$D/lora_config.json" 2>&1)"

# a Hugging Face config.json, with overrides of cost_settings keys
cat > "$T/mixtral.json" <<'JSON'
{"model_type": "mixtral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
 "intermediate_size": 14336, "vocab_size": 32000, "max_position_embeddings": 32768, "num_local_experts": 8, "num_experts_per_tok": 2}
JSON
out=$("$AC" cost $common --hf-config "$T/mixtral.json" search_config.cost_settings.gpus=[a100_80gb] \
      search_config.cost_settings.task=lora search_config.cost_settings.context_length=8192 2>&1); rc=$?
[ $rc -eq 0 ] && case "$out" in *"46.7"*"B parameters"*"context 8192"*) true ;; *) false ;; esac \
    && pass hf_config_mixtral || fail hf_config_mixtral "exit $rc: $(echo "$out" | head -3)"

# with a config.json the default context is still train_settings.seq_length (as the key says and
# run takes it), not the file's max_position_embeddings
out=$("$AC" cost search_config=llama/llama2_7b $L=$T/ctx --hf-config "$T/mixtral.json" --gpus a100_80gb --task lora 2>&1); rc=$?
case "$out" in *"context 4096,"*) true ;; *) false ;; esac && pass hf_config_context_default || fail hf_config_context_default "exit $rc: $(echo "$out" | head -2)"

# adapter flags on a full fine-tune would be ignored: refused with the task named
out=$("$AC" cost $common --task full --lora-rank 8 --gpus a100_80gb 2>&1); rc=$?
[ $rc -eq 2 ] && case "$out" in *"--lora-rank: applies to --task lora (the task is full)"*) true ;; *) false ;; esac \
    && pass lora_flag_without_lora || fail lora_flag_without_lora "exit $rc: $out"

# a hybrid Mamba-Transformer config.json: refused at the file's path and key, nothing written
cat > "$T/nh.json" <<'JSON'
{"model_type": "nemotron_h", "hidden_size": 4096, "num_hidden_layers": 4, "num_attention_heads": 32,
 "num_key_value_heads": 8, "intermediate_size": 21504, "vocab_size": 131072, "max_position_embeddings": 8192,
 "hybrid_override_pattern": "M-*-", "mamba_num_heads": 128, "mamba_head_dim": 64, "ssm_state_size": 128, "n_groups": 8}
JSON
out=$("$AC" cost search_config=llama/llama2_7b $L=$T/nh --hf-config "$T/nh.json" --gpus a100_80gb 2>&1); rc=$?
[ $rc -eq 2 ] && [ ! -e "$T/nh/cost" ] && case "$out" in *"$T/nh.json: hybrid_override_pattern: a hybrid Mamba-Transformer"*) true ;; *) false ;; esac \
    && pass hf_config_hybrid_refused || fail hf_config_hybrid_refused "exit $rc: $out"

# inside run, a cost search that finds nothing is a result: --json stays one object, the report
# is written, and the run exits 1 with the reason on stderr
out=$("$AC" run --json search_config=llama/llama3_1_405b $L=$T/r405 run_cost_search=true 2>"$T/r405.err"); rc=$?
[ $rc -eq 1 ] && echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert "cost" in d and "report" in d' &&
    [ -f "$T/r405/final_result/report.html" ] && grep -q "nothing fits on any GPU type given" "$T/r405.err" &&
    pass run_json_cost_none || fail run_json_cost_none "exit $rc: $(echo "$out" | tail -c 200) $(cat "$T/r405.err")"

# 70B on A10G only: infeasible with few GPUs, and says by how much
out=$("$AC" cost search_config=llama/llama2_70b $L=$T/l70 --gpus a10g:1.0:4 2>&1); rc=$?
[ $rc -eq 1 ] && case "$out" in *"needs"*"GiB"*"has"*"GiB"*) true ;; *) false ;; esac \
    && pass infeasible_says_by_how_much || fail infeasible_says_by_how_much "exit $rc: $(echo "$out" | tail -3)"
[ ! -e "$T/l70/cost/ds_config.json" ] && [ -s "$T/l70/cost/summary.json" ] && pass infeasible_no_setup_files \
    || fail infeasible_no_setup_files "$(ls "$T/l70/cost" 2>&1)"

# the cost stage inside run (training search on, so the report gets the cost chart)
out=$("$AC" run $common run_cost_search=true run_inference_hp_search=false search_config.cost_settings.gpus=[h100] 2>&1); rc=$?
[ $rc -eq 0 ] && [ -s "$T/logs/cost/summary.json" ] && pass run_stage || fail run_stage "exit $rc: $(echo "$out" | tail -3)"
case "$out" in *"Config #1:"*"for the run)"*) pass training_search_shows_run_cost ;; *) fail training_search_shows_run_cost "$(echo "$out" | grep 'Config #1')" ;; esac
# run writes the report once, at its end, after the cost stage: the chart is in it
grep -q 'h100_sxm' "$T/logs/final_result/report.html" && pass run_report_has_cost || fail run_report_has_cost "no cost data in run's report"
"$AC" report "$T/logs" >/dev/null 2>&1 && grep -q 'h100_sxm' "$T/logs/final_result/report.html" \
    && pass report_has_cost || fail report_has_cost "no cost data in report"

# bad input: clear error naming the input, exit 2, nothing written
bad() { # name expected-text args...
    n=$1; want=$2; shift 2
    o=$("$AC" cost "$@" 2>&1); r=$?
    [ $r -eq 2 ] && case "$o" in *"$want"*) true ;; *) false ;; esac && pass "bad_$n" || fail "bad_$n" "exit $r: $o"
}
bad unknown_gpu "did you mean 'a100_80gb'" $common --gpus a100_80gbx
bad zero_price "must be positive" $common --gpus a10g:0
bad negative_price "must be positive" $common search_config.cost_settings.gpus=[a10g:-1.5]
bad long_context "exceed the 4096 the model supports" $common --context 8192
# a preset's limit is its release's max_position_embeddings (Mixtral-8x7B: 32768), not its training seq_length
out=$("$AC" cost search_config=mixtral/mixtral_8x7b $L=$T/mx --gpus a100_80gb --task lora --context 8192 2>&1); rc=$?
[ $rc -eq 0 ] && case "$out" in *"context 8192"*) true ;; *) false ;; esac && pass preset_release_context || fail preset_release_context "exit $rc: $(echo "$out" | head -3)"
bad preset_context_limit "exceed the 32768 the model supports" search_config=mixtral/mixtral_8x7b $L=$T/mx --context 65536
bad missing_hf_key "num_attention_heads: missing" $common --hf-config "$REPO/fuzz/corpus/fuzz_hf_config/missing_heads.json"
bad missing_hf_file "nope.json" $common --hf-config "$T/nope.json"
bad unknown_task "unknown task 'qlora'" $common --task qlora
bad bad_tokens "--tokens" $common --tokens 0
bad unknown_flag "--frobnicate" $common --frobnicate 1
bad lora_module "unknown module 'qq'" $common --task lora --lora-modules qq

# instance types (data/instances.csv): whole instances, their host RAM and price
L70="search_config=llama/llama2_70b $L=$T/i70"
out=$("$AC" cost $L70 --instances p4de.24xlarge:40.9657:2,dgx_a100:14.32:1 2>&1); rc=$?
[ $rc -eq 0 ] && pass instances_ok || fail instances_ok "exit $rc: $(echo "$out" | tail -3)"
case "$out" in *"p4de.24xlarge (8 x a100_80gb, 1152 GiB RAM"*"per instance-hour"*) pass instance_header ;; *) fail instance_header "$out" ;; esac
# 70B full fine-tuning: 8 A100s fit the 2 TB DGX A100 (offload), not the 1152 GiB p4de (host memory)
echo "$out" | grep -E '^  p4de.24xlarge +8 +does not fit: host memory' >/dev/null && pass p4de_host_ram_short \
    || fail p4de_host_ram_short "$(echo "$out" | grep -E '^  p4de')"
echo "$out" | grep -E '^  dgx_a100 +8 +ZeRO-3 \+offload' >/dev/null && pass dgx_a100_2tb_fits \
    || fail dgx_a100_2tb_fits "$(echo "$out" | grep -E '^  dgx_a100')"
python3 - "$T/i70/cost/summary.json" <<'PY' && pass instance_summary || fail instance_summary "see above"
import json, sys
s = json.load(open(sys.argv[1]))
g = {p["instance"]: p for p in s["gpus"]}
assert g["p4de.24xlarge"]["host_ram_gib"] == 1152 and g["dgx_a100"]["host_ram_gib"] == 2048
assert all(o["num_gpus"] % 8 == 0 for o in s["options"])
# the tie band is the chosen setup's ranking band (data/bands.csv rank_band_rel), not a fixed 5 %
assert s["chosen_why"] and 0 < s["tie_band"] < 0.5
# each option names its stack and where its band comes from: the pre-training tables have no
# hf-deepspeed runs, so its published fine-tuning runs (data/finetune_published.csv) give it
assert all(o["stack"] == "hf-deepspeed" and o["band_source"] == "published" and o["band_time_rel"] > 0 for o in s["options"])
PY
# a heterogeneous rank 0: 7B full fine-tuning on 1-GPU g5.xlarge nodes fits only with rank 0 on a g5.2xlarge
out=$("$AC" cost $common --instances g5.xlarge:1.006:8 2>&1); rc=$?
[ $rc -eq 1 ] && case "$out" in *"host memory"*) true ;; *) false ;; esac && pass rank0_needed || fail rank0_needed "exit $rc: $(echo "$out" | tail -2)"
out=$("$AC" cost $common --instances g5.xlarge:1.006:8 --rank0-instance g5.2xlarge 2>&1); rc=$?
[ $rc -eq 0 ] && case "$out" in *"fits because rank 0 runs on a g5.2xlarge"*) true ;; *) false ;; esac && pass rank0_makes_fit \
    || fail rank0_makes_fit "exit $rc: $(echo "$out" | tail -8)"
# ties: Llama-2-7B LoRA on up to 8 A100s (Hugging Face + DeepSpeed) picks 8 GPUs (same $/MT, 8x sooner) and says why
out=$("$AC" cost $common --task lora --gpus a100_80gb:1.79:8 --framework hf-deepspeed 2>&1)
case "$out" in *"Chosen setup (predicted): 8 x a100_80gb"*"why: the fastest of the setups within "*" % (the ranking band"*) pass tie_faster ;; *) fail tie_faster "$(echo "$out" | grep -A5 Chosen)" ;; esac
# the chosen setup names the attention kernel it assumes and prices the other one (slower: the whole square)
case "$out" in *"attention: causal FlashAttention-2 on packed sequences"*"memory-efficient kernel: "*" million tokens/hour"*) pass attention_kernel_line ;; *) fail attention_kernel_line "$(echo "$out" | grep -A4 Chosen)" ;; esac
out=$("$AC" cost search_config=llama/llama2_70b $L=$T/t70 --gpus a100_80gb:1.79:8 --cpu-memory-gb 2048 2>&1)
# (offloaded 70B is bound by the host's CPU Adam and PCIe, which a node's ranks share; one rank has its
# board pair's uplink to itself: one GPU is the cheapest, and the why names the next)
case "$out" in *"Chosen setup (predicted): 1 x a100_80gb"*"why: the cheapest per token"*"the next, 2x a100_80gb"*"costs"*) pass offload_70b_one_gpu ;; *) fail offload_70b_one_gpu "$(echo "$out" | grep -A5 Chosen)" ;; esac
bad unknown_instance "close ones: p4d.24xlarge, p4de.24xlarge" $common --instances p4x.24xlarge
bad instance_zero_price "must be positive" $common --instances g5.xlarge:0
bad rank0_mismatch "can stand in for rank 0 only" $common --instances g5.xlarge --rank0-instance p5.48xlarge
bad unknown_rank0 "unknown instance type" $common --instances g5.xlarge --rank0-instance g5.huge
bad unknown_instance_far "data/instances.csv lists" $common --instances zzzz
bad instance_count "instance count of p4de.24xlarge must be an integer" $common --instances p4de.24xlarge:40:0
bad zero_context "context" $common --context 0
# the chosen setup also as an LLMForge YAML (its keys are checked against the schema in tests/unit/test_trainer_cfg.c)
"$AC" cost $common --task lora --gpus a100_80gb:1.79:8 --framework hf-deepspeed >/dev/null 2>&1
grep -q '^num_devices: 8$' "$T/logs/cost/llmforge.yaml" 2>/dev/null && grep -q '^  config_path: "ds_config.json"' "$T/logs/cost/llmforge.yaml" \
    && pass llmforge_yaml || fail llmforge_yaml "$(cat "$T/logs/cost/llmforge.yaml" 2>&1 | head -5)"
# and as an Accelerate config: loads with python3-yaml, every top-level key a ClusterConfig field of the
# schema fixture (tests/fixtures/accelerate/schema.csv, with its source), pointing at ds_config.json
python3 - "$T/logs/cost/accelerate_config.yaml" "$REPO/tests/fixtures/accelerate/schema.csv" <<'PY' \
    && pass accelerate_yaml || fail accelerate_yaml "$(cat "$T/logs/cost/accelerate_config.yaml" 2>&1 | head -8)"
import csv, sys, yaml
cfg = yaml.safe_load(open(sys.argv[1]))
rows = [r for r in csv.reader(l for l in open(sys.argv[2]) if not l.startswith("#"))][1:]
keys = {r[0] for r in rows}
assert all(k in keys for k in cfg), sorted(set(cfg) - keys)
assert all(f"deepspeed_config.{k}" in keys for k in cfg["deepspeed_config"])
assert cfg["distributed_type"] == "DEEPSPEED" and cfg["deepspeed_config"]["deepspeed_config_file"] == "ds_config.json"
# Accelerate refuses a mixed_precision beside a deepspeed_config_file (the precision is ds_config.json's)
assert "mixed_precision" not in cfg, cfg["mixed_precision"]
assert cfg["num_processes"] == 8 and cfg["num_machines"] == 1
PY

# no torchtune config for a DeepSpeed setup; an FSDP one gets it: it loads with python3-yaml and every key
# (nested ones as dotted paths) is one torchtune's recipes read (tests/fixtures/torchtune/schema.csv, with
# its source), with the chosen setup's batch, accumulation and sharding.  On 24 GB A10Gs the LoRA
# fine-tune must shard (on 80 GB A100s replicated DDP and FSDP tie within the ranking band)
[ ! -e "$T/logs/cost/torchtune_config.yaml" ] && pass torchtune_not_for_deepspeed || fail torchtune_not_for_deepspeed "written for hf-deepspeed"
out=$("$AC" cost $common --task lora --gpus a10g:0.9:8 --framework pytorch-fsdp 2>&1)
case "$out" in *"torchtune_config.yaml"*) true ;; *) false ;; esac && python3 - "$T/logs/cost/torchtune_config.yaml" "$REPO/tests/fixtures/torchtune/schema.csv" "$T/logs/cost/summary.json" <<'PY' \
    && pass torchtune_yaml || fail torchtune_yaml "$(echo "$out" | tail -3; head -12 "$T/logs/cost/torchtune_config.yaml" 2>&1)"
import csv, json, sys, yaml
cfg = yaml.safe_load(open(sys.argv[1]))
rows = {r[0]: r for r in csv.reader(l for l in open(sys.argv[2]) if not l.startswith("#")) if r and r[0] != "key"}
types = {"int": int, "float": (float, int), "bool": bool, "str": str, "list": list, "map": dict}
def walk(node, prefix=""):
    for k, v in node.items():
        key = prefix + k
        assert key in rows, key
        t = types[rows[key][1]]
        assert isinstance(v, t) and not (t is int and isinstance(v, bool)), (key, v)
        if rows[key][2]:
            assert str(v) in rows[key][2].split("|"), (key, v)
        if isinstance(v, dict):
            walk(v, key + ".")
walk(cfg)
s = json.load(open(sys.argv[3]))
o = s["options"][s["chosen"]] if isinstance(s.get("chosen"), int) else None
assert cfg["model"]["_component_"] == "torchtune.models.llama2.lora_llama2_7b"
assert cfg["tokenizer"]["max_seq_len"] == s["context"]
if o:
    assert cfg["batch_size"] == o["mbs"] and cfg["gradient_accumulation_steps"] == o["grad_accum"], (cfg, o)
PY
# an FSDP setup's files name FSDP, not DeepSpeed: no ds_config.json (nor an old one left behind), train_args.json
# with TrainingArguments.fsdp, the console's setups in FSDP's sharding names
[ ! -e "$T/logs/cost/ds_config.json" ] && [ ! -e "$T/logs/cost/llmforge.yaml" ] &&
    python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); sys.exit(not (a["framework"] == "fsdp" and "deepspeed" not in a and a["fsdp"].split()[0] in ("full_shard", "shard_grad_op", "no_shard")))' "$T/logs/cost/train_args.json" &&
    case "$out" in *"FSDP "*"Files: "*"train_args.json"*) true ;; *) false ;; esac && case "$out" in *"ds_config"*|*"ZeRO-"*) false ;; *) true ;; esac \
    && pass fsdp_files_name_fsdp || fail fsdp_files_name_fsdp "$(ls "$T/logs/cost"; cat "$T/logs/cost/train_args.json"; echo "$out" | tail -5)"

# torchtitan's and torchtune's names are FSDP2 (pytorch-fsdp2): the stage prices it and writes FSDP2's
# files (setups named FSDP2, Transformers' fsdp_config version 2), torchtune's config among them
out=$("$AC" cost $common --task lora --gpus a10g:0.9:8 --framework torchtitan 2>&1); rc=$?
[ $rc -eq 0 ] && [ -e "$T/logs/cost/torchtune_config.yaml" ] && [ ! -e "$T/logs/cost/ds_config.json" ] &&
    python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); sys.exit(not (a["fsdp"] is True and a["fsdp_config"]["version"] == 2))' "$T/logs/cost/train_args.json" &&
    grep -q '^  fsdp_version: 2$' "$T/logs/cost/accelerate_config.yaml" &&
    case "$out" in *"FSDP2 "*"Files: "*"torchtune_config.yaml"*) true ;; *) false ;; esac \
    && pass fsdp2_stack_files || fail fsdp2_stack_files "rc $rc: $(echo "$out" | tail -3)"

# a setup that spans instances runs one launcher per node: run.sh starts launch.sh under srun with the
# node rank from SLURM_NODEID and the rendezvous on the allocation's first node (stand-in srun and
# scontrol emulate a 2-node allocation); the default command passes them to accelerate launch
FAKE_MN="sh $REPO/tests/fixtures/cost_trainer/fake_trainer.sh --num_processes {num_gpus} --mbs {mbs} --ga {grad_accum} --max_steps {max_steps} --ds {ds_config} --machine_rank {node_rank} --main_process_ip {master_addr} --main_process_port {master_port}"
MN=$T/multinode
out=$(PATH="$REPO/tests/fixtures/cost_trainer/slurm_bin:$PATH" AUTOCONFIG_COST_TRAINER="$FAKE_MN" "$AC" cost search_config=llama/llama2_7b \
      $L=$MN cluster_type=local --task lora --instances g5.12xlarge:5.672:2 --measure --measure-top 6 --measure-steps 3 2>&1); rc=$?
run=$(ls -d "$MN"/cost/measure/training_logs/cost_*_8x* 2>/dev/null | head -n 1)
[ $rc -eq 0 ] && [ -n "$run" ] && grep -q 'srun --nodes=2 --ntasks=2 --ntasks-per-node=1' "$run/run.sh" \
    && grep -q 'machine_rank 0 of the rendezvous at node-a:29500' "$run/trainer.log" && grep -q 'machine_rank 1 of the rendezvous at node-a' "$run/trainer.log" \
    && grep -q -- '--machine_rank "$NODE_RANK" --main_process_ip "$MASTER_ADDR"' "$run/launch.sh" \
    && grep -q '^num_machines: 2$' "$run/accelerate_config.yaml" \
    && pass measure_multinode || fail measure_multinode "exit $rc run=$run: $(echo "$out" | tail -5; cat "$run/run.sh" "$run/trainer.log" 2>&1 | head -30)"
"$AC" cost search_config=llama/llama2_7b $L=$MN/default --task lora --instances g5.12xlarge:5.672:2 >/dev/null 2>&1
# CPU Adam's threads per rank: launch.sh splits the job's CPUs (nproc) over the node's ranks, 4 on a
# g5.12xlarge: a stand-in nproc of 48 gives 48 / 4 = 12, of 3 gives 0 -> at least 1, and a value in the
# environment wins; the default command hands it to accelerate's --num_cpu_threads_per_process
mkdir -p "$T/nproc48" "$T/nproc3"
printf '#!/bin/sh\necho 48\n' >"$T/nproc48/nproc"; printf '#!/bin/sh\necho 3\n' >"$T/nproc3/nproc"
chmod +x "$T/nproc48/nproc" "$T/nproc3/nproc"
threads_of() { (PATH="$1:$PATH"; eval "$(grep -E '^(CPU_THREADS_PER_PROCESS=|\[ "\$CPU_THREADS)' "$run/launch.sh")"; echo "$CPU_THREADS_PER_PROCESS"); }
# (under Slurm the node's allocation, SLURM_CPUS_ON_NODE, not the step's cpuset, is what the ranks share)
[ -n "$run" ] && grep -q '^CPU_THREADS_PER_PROCESS=${CPU_THREADS_PER_PROCESS:-$(( ${SLURM_CPUS_ON_NODE:-$(nproc)} / 4 ))}$' "$run/launch.sh" \
    && [ "$(unset CPU_THREADS_PER_PROCESS SLURM_CPUS_ON_NODE; threads_of "$T/nproc48")" = 12 ] \
    && [ "$(unset CPU_THREADS_PER_PROCESS SLURM_CPUS_ON_NODE; threads_of "$T/nproc3")" = 1 ] \
    && [ "$(unset CPU_THREADS_PER_PROCESS; SLURM_CPUS_ON_NODE=32 threads_of "$T/nproc3")" = 8 ] \
    && [ "$(CPU_THREADS_PER_PROCESS=7 threads_of "$T/nproc48")" = 7 ] \
    && grep -q -- '--num_cpu_threads_per_process {cpu_threads}' "$REPO/src/cost/cost_measure.c" \
    && pass measure_cpu_threads || fail measure_cpu_threads "$(head -6 "$run/launch.sh" 2>&1)"
grep -q 'accelerate launch --config_file' "$REPO/src/cost/cost_measure.c" && grep -q -- '--machine_rank {node_rank} --main_process_ip {master_addr} --main_process_port {master_port}' "$REPO/src/cost/cost_measure.c" \
    && pass default_trainer_multinode || fail default_trainer_multinode "COST_TRAINER_DEFAULT lacks the multi-node flags"

# cost --measure: benchmark jobs of the top setups through the executor (cluster_type=local), a
# stand-in trainer printing the Hugging Face Trainer's log, ranked by measured $/MT
FAKE="sh $REPO/tests/fixtures/cost_trainer/fake_trainer.sh --num_processes {num_gpus} --mbs {mbs} --ga {grad_accum} --max_steps {max_steps} --ds {ds_config}"
M=$T/measure
out=$(AUTOCONFIG_COST_TRAINER="$FAKE" "$AC" cost search_config=llama/llama2_7b $L=$M cluster_type=local --task lora \
      --gpus a100_80gb:1.79:8 --framework hf-deepspeed --measure --measure-steps 4 2>&1); rc=$?
[ $rc -eq 0 ] && case "$out" in *"Measured (3 benchmark jobs of 4 optimizer steps"*"Chosen by measured \$ per million tokens:"*) true ;; *) false ;; esac \
    && pass measure_runs || fail measure_runs "exit $rc: $(echo "$out" | tail -8)"
python3 - "$M/cost" <<'PY' && pass measure_ranked || fail measure_ranked "see above"
import json, sys, os
d = sys.argv[1]
m = json.load(open(d + "/measured.json")); s = json.load(open(d + "/summary.json"))
jobs = m["jobs"]
assert m["source"] == "measured" and len(jobs) == 3 and all(j["measured_step_s"] for j in jobs)
# the stand-in's step time: 0.7 s x mbs x ga + 0.3 s x GPUs; $/MT from it, with the option's price
for j in jobs:
    o = s["options"][j["option"]]
    step = 0.7 * o["mbs"] * o["grad_accum"] + 0.3 * o["num_gpus"]
    assert abs(j["measured_step_s"] - step) < 0.011, (j, step)
    mt = o["gbs"] * s["context"] / step * 3600 / 1e6
    assert abs(j["usd_per_mtok"] - o["num_gpus"] * o["price_per_gpu_hour"] / mt) < 1e-3 * j["usd_per_mtok"]
    run = d + "/measure/training_logs/" + j["name"]
    ta = json.load(open(run + "/train_args.json"))
    assert ta["max_steps"] == 4, ta["max_steps"]
    assert 'padding: "max_length"' in open(run + "/llmforge.yaml").read()
r = m["ranking_by_measured_cost"]
usd = [j["usd_per_mtok"] for j in jobs]
# the cheapest measured $/MT, or a faster setup within the tie band of it (the ranking band)
ties = [i for i in range(len(jobs)) if usd[i] <= min(usd) * (1 + m["tie_band"])]
assert m["chosen"] == r[0] and m["chosen"] in ties, (m, usd)
assert jobs[m["chosen"]]["mtok_per_hour"] == max(jobs[i]["mtok_per_hour"] for i in ties)
# measurement can overrule the prediction: predicted 8 GPUs, measured cheapest is another
assert s["options"][s["chosen"]]["num_gpus"] == 8 and s["options"][jobs[m["chosen"]]["option"]]["num_gpus"] != 8
PY
out=$(FAKE_TRAINER_FAIL=1 AUTOCONFIG_COST_TRAINER="$FAKE" "$AC" cost search_config=llama/llama2_7b $L=$T/mfail cluster_type=local \
      --task lora --gpus a100_80gb:1.79:8 --framework hf-deepspeed --measure 2>&1); rc=$?
[ $rc -eq 1 ] && case "$out" in *"no benchmark job gave a step time"*"CUDA out of memory"*) true ;; *) false ;; esac \
    && pass measure_all_failed || fail measure_all_failed "exit $rc: $(echo "$out" | tail -3)"
bad measure_needs_cluster "set cluster_type=local" $common --measure

# the chosen setup says how far its prediction may be off, for its GPU and stack: the default stack
# (Hugging Face + DeepSpeed) has no pre-training rows, so its own published fine-tuning runs give the
# band and the bias, rather than another stack's band; Megatron-Core on H100 has its own
out=$("$AC" cost --gpus a100_80gb:1.79:8 2>&1)
case "$out" in *"Stack: hf-deepspeed"*"uncertainty of the step time: ±"*"published fine-tuning runs of hf-deepspeed without offload"*"predicted too fast by a median"*) pass chosen_band ;; *) fail chosen_band "$out" ;; esac
out=$("$AC" cost --gpus h100_sxm:3:8 --framework megatron-core 2>&1)
case "$out" in *"uncertainty of the step time: ±"*"(h100_sxm, megatron-core: "*" validated runs)"*) pass chosen_band_own ;; *) fail chosen_band_own "$out" ;; esac
