#!/bin/sh
# Fork/join overhead of a nearly empty parallel loop (1000 iterations,
# one store each; Numba deletes a prange with an empty body): hpcjit's
# pool, an OpenMP twin in C (gcc -fopenmp, default settings) and, when it is
# installed, Numba's prange.  One run, one table.
#   benchmarks/forkjoin/run.sh [BUILD_DIR] [REPS] [ROUNDS]
# BUILD_DIR is a CMake build of this tree (default: build); the runtime and
# topology libraries are built there if missing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
reps=${2:-20000}
rounds=${3:-15}
py=${PYTHON:-python3}
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
if [ ! -f "$build/runtime/libhpcjit_runtime.a" ] || [ ! -f "$build/topology/libhpcjit_topology.a" ]; then
  [ -f "$build/CMakeCache.txt" ] || cmake -S "$root" -B "$build" >/dev/null
  cmake --build "$build" --target hpcjit_runtime hpcjit_topology -j2 >/dev/null
fi
tmp=${TMPDIR:-/tmp}/hpcjit-forkjoin.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -fopenmp -I"$root/runtime/include" -I"$root/topology/include" "$here/forkjoin.c" \
    "$build/runtime/libhpcjit_runtime.a" "$build/topology/libhpcjit_topology.a" \
    $(pkg-config --libs hwloc) -lpthread -lm -o "$tmp/forkjoin"
"$tmp/forkjoin" "$reps" "$rounds" > "$tmp/c.txt"
maxt=$(tail -n 1 "$tmp/c.txt" | cut -d' ' -f1)
if "$py" -c "import numba" 2>/dev/null; then
  "$py" "$here/numba_forkjoin.py" "$(( reps / 4 ))" "$maxt" > "$tmp/numba.txt" 2>/dev/null || : > "$tmp/numba.txt"
else
  : > "$tmp/numba.txt"
fi
# hpcjit's prange from Python (dispatcher call included), when the build has
# the Python package
if [ -d "$build/python/hpcjit" ]; then
  PYTHONPATH="$build/python" "$py" "$here/hpcjit_forkjoin.py" "$(( reps / 4 ))" "$maxt" > "$tmp/hjpy.txt" 2>/dev/null || : > "$tmp/hjpy.txt"
else
  : > "$tmp/hjpy.txt"
fi
echo "fork/join of a parallel loop of 1000 iterations storing a[i] = i, us per loop"
echo "(C: median and minimum of $rounds interleaved rounds of $reps loops; Numba, prange(py): median)"
echo "$(nproc) CPUs online, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
awk 'FILENAME ~ /hjpy/ { hj[$1] = $2; next }
     FILENAME ~ /numba/ { numba[$1] = $2; next }
     !hdr { hdr = 1; printf "%-8s %10s %10s %10s %12s %12s %12s %14s %10s %10s %12s\n", "threads", "hpcjit", "OpenMP", "Numba", "hpcjit/OMP", "hpcjit/Numba", "prange(py)", "prange/Numba", "hpcjit min", "OpenMP min", "min ratio" }
     { nb = ($1 in numba) ? sprintf("%10.2f", numba[$1]) : sprintf("%10s", "-")
       rn = ($1 in numba) ? sprintf("%12.3f", $2 / numba[$1]) : sprintf("%12s", "-")
       hp = ($1 in hj) ? sprintf("%12.2f", hj[$1]) : sprintf("%12s", "-")
       hn = ($1 in hj && $1 in numba) ? sprintf("%14.3f", hj[$1] / numba[$1]) : sprintf("%14s", "-")
       printf "%-8s %10.2f %10.2f %s %12.3f %s %s %s %10.2f %10.2f %12.3f\n", $1, $2, $3, nb, $2 / $3, rn, hp, hn, $4, $5, $4 / $5 }' \
    "$tmp/hjpy.txt" "$tmp/numba.txt" "$tmp/c.txt"
