#!/usr/bin/env bash
# Install what hpcjit needs to build, test and benchmark on Debian 12.
# Idempotent; run as root (or with sudo available).
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
# MPI (hpcjit._mpi, hpcjit run) and Lmod (modulefile tests) are optional for
# the build, installed here so that CI runs those tests
# OpenBLAS for np.dot/np.linalg in compiled code (dlopened at run time, not
# needed to build): libopenblas.so.0, and liblapack.so.3/libblas.so.3 alternatives
# clang-19 and its runtimes: the libFuzzer target (tests/fuzz, scripts/hardening.sh)
pkgs=(build-essential cmake pkg-config llvm-19-dev libhwloc-dev libopenmpi-dev openmpi-bin libopenblas0 lmod tcl
      slurmctld slurmd slurm-client clang-19 libclang-rt-19-dev)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi
# Environment Modules conflicts with lmod: unpack it beside (its modulecmd.tcl
# runs from there) for the Tcl modulefile test
EM_ROOT=/opt/hpcjit-ci/environment-modules
if [ ! -f "$EM_ROOT/usr/lib/x86_64-linux-gnu/modulecmd.tcl" ] && command -v tclsh >/dev/null 2>&1; then
  em_tmp=$(mktemp -d)
  if (cd "$em_tmp" && apt-get download -q environment-modules >/dev/null 2>&1); then
    $SUDO mkdir -p "$EM_ROOT" && $SUDO dpkg -x "$em_tmp"/environment-modules_*.deb "$EM_ROOT"
  fi
  rm -rf "$em_tmp"
fi
PY=${PYTHON:-python3}
# scipy: Numba's np.linalg needs it (benchmarks/npbench/run.py runs Numba's
# NPBench variants beside hpcjit's)
$PY -m pip install -q --disable-pip-version-check "numpy>=1.24" pytest scikit-build-core "numba" matplotlib scipy 2>&1 \
  | grep -v "Running pip as the 'root' user" || true
# mpi4py, for the test of hpcjit.mpi beside it (skipped without it)
if dpkg -s libopenmpi-dev >/dev/null 2>&1; then
  $PY -m pip install -q --disable-pip-version-check mpi4py 2>&1 | grep -v "Running pip as the 'root' user" || true
fi
