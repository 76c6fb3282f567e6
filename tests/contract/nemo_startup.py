#!/usr/bin/python3
"""nemo_startup.py — plays NeMo v2.0.0's start-up on the jobs autoconfig renders.

For every job.sh under the training_logs folders given, as the NeMo launcher's
Slurm job would run it:
  * reads the `python3 -u .../megatron_*_pretraining.py --config-path=D --config-name=N
    [overrides]` command, loads D/N with OmegaConf and applies the overrides;
  * registers only the resolver NeMo registers (`multiply`, nemo/core/config/hydra_runner.py)
    and resolves `trainer`, `exp_manager` and `model`, as NeMo's start-up does;
  * checks the srun line: the expected container image and the launcher's mounts
    (launcher_scripts_path, data_dir, base_results_dir), and the environment: the
    launcher's env_vars, CUDA_DEVICE_MAX_CONNECTIONS=1 exactly when TP > 1 or CP > 1, the
    LayerNorm SM margins exactly when PP > 1 and VP > 1;
  * merges the config's model block over NeMo's own megatron_<kind>_config.yaml and
    reports every model key NeMo does not know (keys NeMo passes through to
    Megatron-Core are listed, with their source, in data/nemo_passthrough_keys.csv).
Prints one PASS/FAIL line per job; exits 1 when any failed.

usage: nemo_startup.py NEMO_CONF_DIR PASSTHROUGH_CSV IMAGE MOUNT[,MOUNT...] RUN_DIR...
       nemo_startup.py --launcher-input NEMO_CONF_DIR PASSTHROUGH_CSV CONFIG.yaml...
         (base_cfg_*.yaml / optimal_config_*.yaml as the launcher's training= input: resolved
          with the launcher's resolvers, model keys known to NeMo)
"""
import csv
import functools
import os
import re
import shlex
import sys

from omegaconf import OmegaConf

KIND_CONFIGS = {
    "megatron_gpt_pretraining.py": ["megatron_gpt_config.yaml", "megatron_llama_config.yaml"],
    "megatron_t5_pretraining.py": ["megatron_t5_config.yaml"],
    "megatron_bert_pretraining.py": ["megatron_bert_config.yaml"],
}


def nemo_resolvers():
    """exactly what a NeMo process has: OmegaConf's oc.* plus NeMo's multiply"""
    for name in ("multiply", "divide_ceil", "divide_floor"):
        if OmegaConf.has_resolver(name):
            OmegaConf.clear_resolver(name)
    OmegaConf.register_new_resolver("multiply", lambda x, y: x * y, replace=True)


def passthrough(path):
    with open(path) as f:
        rows = [l for l in f if not l.startswith("#")]
    return {r["key"] for r in csv.DictReader(rows)}


@functools.lru_cache(maxsize=None)
def nemo_model_keys(nemo_dir, script):
    keys = set()
    for name in KIND_CONFIGS[script]:
        keys |= set(OmegaConf.load(os.path.join(nemo_dir, name)).model.keys())
    return keys


def command_of(script_text):
    for line in script_text.splitlines():
        if "python3 -u" in line and "--config-path=" in line:
            return line
    raise AssertionError("no NeMo command in job.sh")


def exported(script_text):
    env = {}
    for m in re.finditer(r"^export ([A-Za-z_][A-Za-z0-9_]*)=(.*)$", script_text, re.M):
        env[m.group(1)] = m.group(2).strip("'")
    for m in re.finditer(r"\b(NVTE_(?:FWD|BWD)_LAYERNORM_SM_MARGIN)=\$ln_margin", script_text):
        env[m.group(1)] = "$ln_margin"
    return env


def check_job(run_dir, nemo_dir, known_extra, image, mounts):
    text = open(os.path.join(run_dir, "job.sh")).read()
    words = shlex.split(command_of(text))
    i = words.index("python3")
    srun, call = words[:i], words[i:]
    script = os.path.basename(call[2])
    assert script in KIND_CONFIGS, "unexpected script %s" % call[2]
    opts = {w.split("=", 1)[0]: w.split("=", 1)[1] for w in call[3:] if w.startswith("--config-")}
    overrides = [w.lstrip("+") for w in call[3:] if not w.startswith("--")]
    name = opts["--config-name"]
    path = os.path.join(opts["--config-path"], name if name.endswith(".yaml") else name + ".yaml")
    cfg = OmegaConf.merge(OmegaConf.load(path), OmegaConf.from_dotlist(overrides))
    nemo_resolvers()
    for block in ("trainer", "exp_manager", "model"):
        OmegaConf.to_container(cfg[block], resolve=True)  # raises as NeMo would
    # container, mounts (srun only on Slurm)
    if srun:
        assert srun[0] == "srun", srun
        img = srun[srun.index("--container-image") + 1]
        assert img == image, "container %s, want %s" % (img, image)
        have = srun[srun.index("--container-mounts") + 1].split(",")
        for m in mounts:
            assert "%s:%s" % (m, m) in have, "mount %s missing from %s" % (m, have)
    env = exported(text)
    for k, v in (("TORCH_NCCL_AVOID_RECORD_STREAMS", "1"), ("NCCL_NVLS_ENABLE", "0")):
        assert env.get(k) == v, "%s=%s, want %s" % (k, env.get(k), v)
    m = cfg.model
    tp, cp = m.get("tensor_model_parallel_size", 1), m.get("context_parallel_size", 1) or 1
    pp, vp = m.get("pipeline_model_parallel_size", 1), m.get("virtual_pipeline_model_parallel_size") or 1
    want = "1" if (tp > 1 or cp > 1) and not m.get("fsdp", False) else None
    assert env.get("CUDA_DEVICE_MAX_CONNECTIONS") == want, "CUDA_DEVICE_MAX_CONNECTIONS=%s with TP %s CP %s" % (
        env.get("CUDA_DEVICE_MAX_CONNECTIONS"), tp, cp)
    margin = "NVTE_FWD_LAYERNORM_SM_MARGIN" in env and "NVTE_BWD_LAYERNORM_SM_MARGIN" in env
    assert margin == (pp > 1 and vp > 1), "LayerNorm SM margin %s with PP %s VP %s" % (margin, pp, vp)
    # every model key is one NeMo knows
    unknown = sorted(set(m.keys()) - nemo_model_keys(nemo_dir, script) - known_extra)
    assert not unknown, "model keys NeMo does not know: %s" % ", ".join(unknown)
    # the resolved file carries no launcher interpolation NeMo could not resolve
    assert "${" not in open(path).read().replace("${multiply:", ""), "interpolation left in %s" % path


def launcher_resolvers():
    """the NeMo launcher's (launcher_scripts/main.py): multiply, divide_ceil, divide_floor"""
    OmegaConf.register_new_resolver("multiply", lambda x, y: x * y, replace=True)
    OmegaConf.register_new_resolver("divide_ceil", lambda x, y: -(-x // y), replace=True)
    OmegaConf.register_new_resolver("divide_floor", lambda x, y: x // y, replace=True)


def check_launcher_input(path, nemo_dir, known_extra):
    """a base or optimal config handed to the launcher as training=: resolvable there, keys NeMo knows"""
    cfg = OmegaConf.load(path)
    root = OmegaConf.create({"launcher_scripts_path": "/ls", "data_dir": "/ls/data", "base_results_dir": "/ls/results"})
    root.training = cfg
    launcher_resolvers()
    OmegaConf.to_container(root.training, resolve=True)
    m = cfg.model
    script = ("megatron_t5_pretraining.py" if "encoder" in m and "decoder" in m else
              "megatron_bert_pretraining.py" if "bert" in str(cfg.exp_manager.get("name", "")) else
              "megatron_gpt_pretraining.py")
    unknown = sorted(set(m.keys()) - nemo_model_keys(nemo_dir, script) - known_extra)
    assert not unknown, "model keys NeMo does not know: %s" % ", ".join(unknown)


def main(argv):
    if len(argv) >= 4 and argv[1] == "--launcher-input":
        nemo_dir, known_extra, bad = argv[2], passthrough(argv[3]), 0
        for f in argv[4:]:
            try:
                check_launcher_input(f, nemo_dir, known_extra)
                print("PASS contract:%s" % os.path.basename(f))
            except Exception as e:
                bad += 1
                print("FAIL contract:%s: %s: %s" % (os.path.basename(f), type(e).__name__, str(e).splitlines()[0][:300]))
        return 1 if bad else 0
    if len(argv) < 6:
        print(__doc__)
        return 2
    nemo_dir, pt, image, mounts, dirs = argv[1], argv[2], argv[3], argv[4].split(","), argv[5:]
    known_extra = passthrough(pt)
    bad = 0
    for d in dirs:
        try:
            check_job(d, nemo_dir, known_extra, image, mounts)
            print("PASS contract:%s" % os.path.basename(d))
        except Exception as e:  # every failure is reported with its job
            bad += 1
            print("FAIL contract:%s: %s: %s" % (os.path.basename(d), type(e).__name__, str(e).splitlines()[0][:300]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
