#!/bin/sh
# slurm-deps.sh — installs the Debian 12 packages a single-node Slurm needs
# (slurmctld, slurmd, the client commands, munge) when any is missing, and the
# PMIx library Slurm's mpi/pmix plugin loads (the inference benchmark jobs run
# `srun --mpi pmix`, as the original's; without libpmix.so the step fails to start).
# Idempotent; needs root. Called by scripts/slurm-up.sh; output goes to stderr.
set -eu

need=""
for cmd in slurmctld:slurmctld slurmd:slurmd sbatch:slurm-client munged:munge; do
    command -v "${cmd%%:*}" >/dev/null 2>&1 || need="$need ${cmd#*:}"
done
[ -e /usr/lib/x86_64-linux-gnu/libpmix.so ] || [ -e /usr/lib/aarch64-linux-gnu/libpmix.so ] || need="$need libpmix-dev"
[ -z "$need" ] && exit 0

[ "$(id -u)" = 0 ] || { echo "slurm-deps: need root to install:$need" >&2; exit 1; }
echo "slurm-deps: installing$need" >&2
export DEBIAN_FRONTEND=noninteractive
# Package lists on a fresh image may be absent or stale.
apt-get update -q >&2
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $need >&2
