#!/bin/sh
# install-deps.sh — installs the Debian 12 packages autoconfig builds and tests
# with. Idempotent: packages already present are left alone. Run as root (or
# with sudo available). See README.md "Dependencies" for why each is needed.
set -eu
# libcjson-dev: `autoconfig report` reads the result JSON files (summary.json) back.
# chromium: tests/cli/test_report.sh renders report.html headless (skipped when absent).
PKGS="python3-omegaconf python3-yaml build-essential clang libclang-rt-14-dev libyaml-dev libsqlite3-dev libprotobuf-c-dev protobuf-c-compiler valgrind libcjson-dev chromium python3"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
    : # all present
    exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-deps: installing$missing"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
