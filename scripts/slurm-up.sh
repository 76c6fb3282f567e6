#!/usr/bin/env bash
# slurm-up.sh — a real single-node Slurm (munged + slurmctld + slurmd) for autoconfig's
# Slurm executor tests, on Debian 12 without systemd, with fake GPUs.
#
#   eval "$(scripts/slurm-up.sh)"       # stdout carries only `export VAR=...` lines
#
# Idempotent: when the cluster in $AUTOCONFIG_SLURM_DIR already runs and its node is
# usable, it only prints the environment. Needs root (packages, daemons as root).
# Environment knobs:
#   AUTOCONFIG_SLURM_DIR   config, state, logs, pid files      [/tmp/autoconfig-slurm]
#   AUTOCONFIG_SLURM_GPUS  fake GPUs (gres gpu)                [8]
#   AUTOCONFIG_SLURM_CPUS  CPUs the node advertises            [16] (> nproc: slurmd trusts
#                          slurm.conf, so several jobs run at once on a 2-core machine)
#   AUTOCONFIG_SLURM_PORT  slurmctld port, slurmd uses PORT+1  [6817]
#   AUTOCONFIG_SLURM_WAIT  seconds to wait for the node idle   [60]
# Partitions: debug (default), batch. Writes only under the dir (plus apt packages).
set -euo pipefail

D=${AUTOCONFIG_SLURM_DIR:-/tmp/autoconfig-slurm}
GPUS=${AUTOCONFIG_SLURM_GPUS:-8}
CPUS=${AUTOCONFIG_SLURM_CPUS:-16}
PORT=${AUTOCONFIG_SLURM_PORT:-6817}
WAIT=${AUTOCONFIG_SLURM_WAIT:-60}
HERE=$(cd "$(dirname "$0")" && pwd)
HOST=$(hostname -s)

say() { echo "slurm-up: $*" >&2; }
die() { say "error: $*"; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root"
case "$GPUS$CPUS$PORT$WAIT" in *[!0-9]*) die "knobs must be integers" ;; esac
case "$D" in /*) ;; *) die "AUTOCONFIG_SLURM_DIR must be absolute" ;; esac

"$HERE/slurm-deps.sh"

export SLURM_CONF="$D/etc/slurm.conf"
emit_env() { printf 'export SLURM_CONF=%s\nexport AUTOCONFIG_SLURM_DIR=%s\n' "$SLURM_CONF" "$D"; }

running() {  # running NAME: the pid in $D/run/NAME.pid is a live NAME process
    local p
    p=$(cat "$D/run/$1.pid" 2>/dev/null) || return 1
    [[ "$p" =~ ^[0-9]+$ ]] && [ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$1" ]
}
# Without a controller the client commands retry for ~10 s: bound them.
node_state() { timeout 5 sinfo -h -n "$HOST" -o '%T' 2>/dev/null | head -n1; }
last_errors() { grep -hE 'fatal|error' "$D/log/$1.log" 2>/dev/null | tail -n3; }

if [ -f "$SLURM_CONF" ] && running munged && running slurmctld && running slurmd; then
    st=$(node_state || true)
    case "$st" in
        idle|mixed|allocated|completing) say "already up (node $HOST $st)"; emit_env; exit 0 ;;
    esac
    say "daemons up but node is '${st:-?}': restarting"
fi
AUTOCONFIG_SLURM_DIR="$D" "$HERE/slurm-down.sh" || true

# Fresh state each start: job ids restart at 1, no stale drain reasons.
rm -rf "$D/state" "$D/spool" "$D/munge" "$D/gpu"
mkdir -p "$D/etc" "$D/state" "$D/spool" "$D/log" "$D/run" "$D/munge" "$D/gpu"
chmod 755 "$D" "$D/munge"   # clients reach munged's socket through this dir

# munge: a private key and socket; munged run as root wants a root-owned 0400 key.
head -c 1024 /dev/urandom >"$D/munge/key"
chmod 400 "$D/munge/key"
SOCK="$D/munge/socket"
munged --socket="$SOCK" --key-file="$D/munge/key" --pid-file="$D/run/munged.pid" \
       --log-file="$D/log/munged.log" --seed-file="$D/munge/seed" </dev/null >>"$D/log/daemons.out" 2>&1 ||
    die "munged: $(last_errors munged)"
for _ in $(seq 100); do running munged && break; sleep 0.1; done
running munged || die "munged did not start: $(last_errors munged)"
munge -S "$SOCK" -n </dev/null | unmunge -S "$SOCK" >/dev/null || die "munge round trip failed"

# Fake GPUs: slurmd 22.05 drops a gpu gres without File=, and File= must be a device:
# symlinks to /dev/null are accepted. Jobs see CUDA_VISIBLE_DEVICES as usual.
MEMTOTAL=$(awk '/^MemTotal/ {print int($2 / 1024)}' /proc/meminfo)
MEM=$((MEMTOTAL * 9 / 10))
GRES="" GRESTYPES="" MEMGPU=""
: >"$D/etc/gres.conf"
if [ "$GPUS" -gt 0 ]; then
    for i in $(seq 0 $((GPUS - 1))); do ln -s /dev/null "$D/gpu/nvidia$i"; done
    printf 'AutoDetect=off\nNodeName=%s Name=gpu File=%s/gpu/nvidia[0-%d]\n' "$HOST" "$D" $((GPUS - 1)) >"$D/etc/gres.conf"
    GRES="Gres=gpu:$GPUS" GRESTYPES="GresTypes=gpu" MEMGPU="DefMemPerGPU=$((MEM / GPUS))"
fi
OVERRIDE=""
[ "$CPUS" -gt "$(nproc)" ] && OVERRIDE="SlurmdParameters=config_overrides"

cat >"$SLURM_CONF" <<CONF
# written by autoconfig scripts/slurm-up.sh — single node, no cgroups, no slurmdbd
ClusterName=autoconfig
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SOCK
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=2
JobAcctGatherParams=OverMemoryKill
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$D/log/jobcomp.txt
SchedulerType=sched/backfill
SchedulerParameters=sched_min_interval=0,batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=$((MEM / CPUS))
$MEMGPU
ReturnToService=2
MpiDefault=none
KillWait=5
InactiveLimit=0
# finished jobs stay visible to scontrol for an hour: there is no sacct without slurmdbd
MinJobAge=3600
MaxJobCount=100000
SlurmctldTimeout=30
SlurmdTimeout=60
$GRESTYPES
$OVERRIDE
NodeName=$HOST NodeHostname=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEM $GRES State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
PartitionName=batch Nodes=ALL Default=NO MaxTime=INFINITE State=UP
CONF

# Both daemons fork and report a config error only in their log; keep them off our pipes.
slurmctld -i </dev/null >>"$D/log/daemons.out" 2>&1 || die "slurmctld: $(last_errors slurmctld)"
for _ in $(seq 100); do
    timeout 5 scontrol ping 2>/dev/null | grep -q UP && break
    sleep 0.2
done
running slurmctld || die "slurmctld exited: $(last_errors slurmctld)"
slurmd </dev/null >>"$D/log/daemons.out" 2>&1 || die "slurmd: $(last_errors slurmd)"

end=$((SECONDS + WAIT)); st=""
while [ $SECONDS -lt $end ]; do
    running slurmctld || die "slurmctld exited: $(last_errors slurmctld)"
    st=$(node_state || true)
    case "$st" in
        idle) break ;;
        drain*|down*|inval*) timeout 5 scontrol update nodename="$HOST" state=resume >/dev/null 2>&1 || true ;;
    esac
    sleep 0.2
done
if [ "$st" != idle ]; then
    sinfo -N -o '%N %T %E' >&2 || true
    tail -n 15 "$D/log/slurmctld.log" "$D/log/slurmd.log" >&2 || true
    die "node $HOST not idle after ${WAIT}s (state '${st:-none}')"
fi
say "up: node $HOST idle, $CPUS CPUs, ${MEM} MB, $GPUS GPUs, partitions debug (default), batch"
emit_env
