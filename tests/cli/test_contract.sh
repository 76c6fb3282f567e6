#!/bin/sh
# test_contract.sh — the jobs autoconfig renders for Slurm start NeMo as the NeMo launcher
# would: one preset of every family (gpt3, t5, mt5, bert, llama2, llama3, mixtral) is
# searched, every candidate's job is written (launch --dry-run, cluster_type=bcm), and
# tests/contract/nemo_startup.py plays NeMo v2.0.0's start-up on each job.sh with Debian's
# python3-omegaconf, against NeMo's own megatron_*_config.yaml from ../shared.
set -u
AC=${AUTOCONFIG:?}
REPO=${REPO:?}
pass() { echo "PASS contract:$1"; }
fail() { echo "FAIL contract:$1: $2"; }
NEMO="$REPO/../shared/reference/nemo-configs/nemo"
PY=/usr/bin/python3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if [ ! -d "$NEMO" ]; then fail setup "NeMo's configs not found at $NEMO"; exit 0; fi
if ! "$PY" -c 'import omegaconf' 2>/dev/null; then fail setup "python3-omegaconf is not installed (scripts/install-deps.sh)"; exit 0; fi
cd "$T" || exit 1
S=search_config.train_settings
IMAGE=nvcr.io/nvidia/nemo:24.09
MOUNTS="$T/launcher_scripts,$T/launcher_scripts/data,$T/results"
for preset in gpt3/5b t5/2.8b mt5/3.2b bert/4b llama/llama2_7b llama/llama3_8b llama/llama3_70b mixtral/mixtral_8x7b; do
    tag=$(echo "$preset" | tr / _)
    logs="$T/results/$tag"
    # the sim search writes the candidates; their jobs are rendered for Slurm without submitting
    if ! "$AC" run --conf "$REPO/conf" search_config="$preset" "$S.logs=$logs" run_inference_hp_search=false \
            launcher_scripts_path="$T/launcher_scripts" >"$T/$tag.out" 2>&1; then
        fail "$tag" "search failed: $(tail -2 "$T/$tag.out")"; continue
    fi
    if ! "$AC" launch --dry-run --conf "$REPO/conf" search_config="$preset" "$S.logs=$logs" cluster_type=bcm \
            launcher_scripts_path="$T/launcher_scripts" >"$T/$tag.dry" 2>&1; then
        fail "$tag" "launch --dry-run failed: $(tail -2 "$T/$tag.dry")"; continue
    fi
    "$PY" "$REPO/tests/contract/nemo_startup.py" "$NEMO" "$REPO/data/nemo_passthrough_keys.csv" "$IMAGE" "$MOUNTS" \
        "$logs"/training_logs/* >"$T/$tag.check" 2>&1
    n=$(grep -c '^PASS' "$T/$tag.check"); bad=$(grep '^FAIL' "$T/$tag.check" | head -1)
    [ -z "$bad" ] && [ "$n" -gt 0 ] && pass "${tag}_starts_nemo ($n jobs)" || fail "${tag}_starts_nemo" "${bad:-no job checked}"
    # the base and optimal configs, "valid, runnable" as the launcher's training= input
    "$PY" "$REPO/tests/contract/nemo_startup.py" --launcher-input "$NEMO" "$REPO/data/nemo_passthrough_keys.csv"         "$logs"/base_cfg_*.yaml "$logs"/final_result/optimal_config_*.yaml >"$T/$tag.li" 2>&1
    n=$(grep -c '^PASS' "$T/$tag.li"); bad=$(grep '^FAIL' "$T/$tag.li" | head -1)
    [ -z "$bad" ] && [ "$n" -eq 2 ] && pass "${tag}_launcher_inputs" || fail "${tag}_launcher_inputs" "${bad:-$n of 2 checked}"
done
# the check can fail: a launcher interpolation left in a job's file, an unknown model key, a
# TP > 1 job without CUDA_DEVICE_MAX_CONNECTIONS are each reported
one=$(ls -d "$T"/results/gpt3_5b/training_logs/*tp_2* | head -1)
for b in bad1 bad2 bad3; do  # copies whose job.sh points at their own config
    cp -r "$one" "$T/$b"; sed -i "s|$one|$T/$b|g" "$T/$b/job.sh"
done
f1=$(ls "$T"/bad1/*_hydra.yaml); sed -i 's|^\(  *vocab_file:\).*|\1 ${data_dir}/bpe/vocab.json|' "$f1"
f2=$(ls "$T"/bad2/*_hydra.yaml); sed -i 's|^model:|model:\n  tensor_model_paralel_size: 2|' "$f2"
sed -i '/CUDA_DEVICE_MAX_CONNECTIONS/d' "$T/bad3/job.sh"
out=$("$PY" "$REPO/tests/contract/nemo_startup.py" "$NEMO" "$REPO/data/nemo_passthrough_keys.csv" "$IMAGE" "$MOUNTS" \
    "$T/bad1" "$T/bad2" "$T/bad3" 2>&1)
case "$out" in
    *"FAIL contract:bad1: Interpolation"*"FAIL contract:bad2:"*"tensor_model_paralel_size"*"FAIL contract:bad3:"*CUDA_DEVICE_MAX_CONNECTIONS*)
        pass checker_catches_broken_jobs ;;
    *) fail checker_catches_broken_jobs "$out" ;;
esac
