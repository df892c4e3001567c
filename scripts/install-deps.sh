#!/usr/bin/env bash
# Install what hpcjit needs to build, test and benchmark on Debian 12.
# Idempotent; run as root (or with sudo available).
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
pkgs=(build-essential cmake pkg-config llvm-19-dev libhwloc-dev)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi
PY=${PYTHON:-python3}
$PY -m pip install -q --disable-pip-version-check "numpy>=1.24" pytest scikit-build-core "numba" 2>&1 \
  | grep -v "Running pip as the 'root' user" || true
