#!/bin/sh
# Build the C twins of scaling.py's kernels (pool_scaling) and the fork/join
# benchmark (forkjoin) as self-contained binaries in .devcarry/ (ignored by
# git), for a machine where the Python package cannot be built (another
# Python, no LLVM): e.g. the 16-core machine of the `device` tool, with
# `carry: [".devcarry"]` and
#   cd .devcarry && HPCJIT_NUM_THREADS=16 ./pool_scaling 7 && HPCJIT_NUM_THREADS=16 ./forkjoin 20000 11
# Do not set OMP_PLACES there: libgomp then pins the main thread to its first
# place when the program starts, and the pool, planned inside the caller's
# binding, gets that one CPU.
#   benchmarks/scaling/device_scaling.sh [BUILD_DIR]
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
out=$root/.devcarry
mkdir -p "$out" "$root/.git/info"
grep -qx '/.devcarry/' "$root/.git/info/exclude" 2>/dev/null || echo '/.devcarry/' >> "$root/.git/info/exclude"
cmake --build "$build" --target hpcjit_runtime hpcjit_topology -j2 >/dev/null
lib=$(pkg-config --variable=libdir hwloc)
for p in pool_scaling:benchmarks/scaling/pool_scaling.c forkjoin:benchmarks/forkjoin/forkjoin.c; do
  gcc -O2 -march=x86-64-v3 -fopenmp -I"$root/runtime/include" -I"$root/topology/include" "$root/${p#*:}" \
      "$build/runtime/libhpcjit_runtime.a" "$build/topology/libhpcjit_topology.a" "$lib/libhwloc.a" \
      "$lib/libudev.so.1" -lpthread -lm -ldl -Wl,-rpath,'$ORIGIN' -o "$out/${p%%:*}"
done
cp "$lib/libudev.so.1" "$(gcc -print-file-name=libgomp.so.1)" "$out/"
echo "built $out/pool_scaling and $out/forkjoin"
