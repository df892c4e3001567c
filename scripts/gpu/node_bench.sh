#!/usr/bin/env bash
# CPU benchmarks on the device machine (16 quiet cores, not a shared VM):
#
#   bash scripts/gpu/node_bench.sh
#
# in a copy of the working tree that carries .gpu-carry/ (scripts/gpu/prepare.sh).
# Builds the package as device_check.sh does (the carried compiler, the
# node's Python), then runs benchmarks/run.py (hpcjit, Numba, gcc -O3, best
# of HPCJIT_NODE_REPEATS, default 25; first-call compile times in fresh
# interpreters) and, time left, the arrayexpr/vectorize/linalg side tables.
# Everything ends within HPCJIT_NODE_BUDGET seconds (default 420).  Results
# go to $OUT (default ./node-out): bench.md, bench.json, node_bench.log.
set -u
cd "$(dirname "$0")/../.."
root=$PWD
T0=$(date +%s)
BUDGET=${HPCJIT_NODE_BUDGET:-420}
OUT=${OUT:-$root/node-out}
mkdir -p "$OUT"
LOG=$OUT/node_bench.log
bdir=${HPCJIT_GPU_BUILD:-$root/build-gpu-node}
lib=$root/.gpu-carry/libhpcjit_compiler.so
PY=$(command -v python3 || echo python3)
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export PYTHONUNBUFFERED=1 PYTHONPATH=$bdir/python${PYTHONPATH:+:$PYTHONPATH}
left() { echo $((BUDGET - $(date +%s) + T0)); }
{
  echo "node_bench: $(date -u +%FT%TZ) on $(uname -n), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo)"
  echo "python: $("$PY" --version 2>&1); load: $(cut -d' ' -f1-3 /proc/loadavg)"
  "$PY" -c "import numpy, numba; print('numpy', numpy.__version__, 'numba', numba.__version__)"
  cmake -S "$root" -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DHPCJIT_PREBUILT_COMPILER="$lib" \
        -DPython_EXECUTABLE="$PY" > "$OUT/configure.log" 2>&1 ||
    cmake -S "$root" -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DHPCJIT_PREBUILT_COMPILER="$lib" \
          -DPython_EXECUTABLE="$PY" -DHPCJIT_PREBUILT_COMPILER_ANY=ON > "$OUT/configure.log" 2>&1 ||
    { tail -n 30 "$OUT/configure.log"; exit 1; }
  cmake --build "$bdir" -j"$(nproc)" > "$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log"; exit 1; }
  # the package's byte code written once: where the node's environment sets
  # PYTHONDONTWRITEBYTECODE, every fresh interpreter (import and first-call
  # timings) would otherwise compile hpcjit's modules again, while Numba's
  # came precompiled by pip
  "$PY" -m compileall -q "$bdir/python" > /dev/null 2>&1
  echo "built in $(( $(date +%s) - T0 )) s; PYTHONDONTWRITEBYTECODE=${PYTHONDONTWRITEBYTECODE:-unset}"
  timeout -k 10 "$(( $(left) - 20 ))" "$PY" benchmarks/run.py --repeats "${HPCJIT_NODE_REPEATS:-25}" \
    --no-cpython --markdown --json "$OUT/bench.json" > "$OUT/bench.md" 2>&1
  echo "benchmarks/run.py: rc $? at $(( $(date +%s) - T0 )) s; load: $(cut -d' ' -f1-3 /proc/loadavg)"
  cat "$OUT/bench.md"
} 2>&1 | tee "$LOG"
