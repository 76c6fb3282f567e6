#!/usr/bin/env bash
# slurm-down.sh — stops the cluster scripts/slurm-up.sh started in $AUTOCONFIG_SLURM_DIR:
# cancels its jobs, then stops slurmd, slurmctld, munged by their pid files (each pid
# checked against the program name; nothing is killed by name). Keeps the logs.
# Safe to run when nothing runs.
set -uo pipefail

D=${AUTOCONFIG_SLURM_DIR:-/tmp/autoconfig-slurm}
export SLURM_CONF="$D/etc/slurm.conf"
say() { echo "slurm-down: $*" >&2; }

pid_of() {  # pid_of NAME: pid from $D/run/NAME.pid when that process is NAME
    local p
    p=$(cat "$D/run/$1.pid" 2>/dev/null) || return 1
    [[ "$p" =~ ^[0-9]+$ ]] && [ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$1" ] && echo "$p"
}

# Cancel jobs while the controller still answers, so no slurmstepd outlives the cluster.
if pid_of slurmctld >/dev/null && [ -f "$SLURM_CONF" ]; then
    ids=$(timeout 10 squeue -h -o '%A' 2>/dev/null | sort -u | tr '\n' ' ')
    if [ -n "${ids// /}" ]; then
        # shellcheck disable=SC2086
        timeout 10 scancel $ids >/dev/null 2>&1 || true
        for _ in $(seq 100); do
            [ -z "$(timeout 5 squeue -h -t running,completing -o %A 2>/dev/null)" ] && break
            sleep 0.1
        done
    fi
fi

for name in slurmd slurmctld munged; do   # munged last: the others authenticate through it
    p=$(pid_of "$name") || { rm -f "$D/run/$name.pid"; continue; }
    kill -TERM "$p" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$p" 2>/dev/null; then say "$name ($p) ignored SIGTERM: SIGKILL"; kill -KILL "$p" 2>/dev/null; fi
    rm -f "$D/run/$name.pid"
    say "stopped $name ($p)"
done
exit 0
