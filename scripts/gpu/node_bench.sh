#!/usr/bin/env bash
# CPU benchmarks on the device machine (16 quiet cores, not a shared VM):
#
#   bash scripts/gpu/node_bench.sh
#
# in a copy of the working tree that carries .gpu-carry/ (scripts/gpu/prepare.sh).
# Builds the package as device_check.sh does (the carried compiler, the
# node's Python), then runs benchmarks/run.py (hpcjit, Numba, gcc -O3, best
# of HPCJIT_NODE_REPEATS, default 25; first-call compile times in fresh
# interpreters).  Everything ends within HPCJIT_NODE_BUDGET seconds
# (default 420).  HPCJIT_NODE_STEPS (comma-separated, default "table") picks
# what runs after the build:
#   table     benchmarks/run.py: bench.md, bench.json
#   vs_numba  benchmarks/scaling/vs_numba.py, the thread-pool kernels on
#             1..16 threads, each framework in a process of its own:
#             vs_numba.md, vs_numba.json
#   firstcall benchmarks/compile_time.py on a few kernels, plus hpcjit's
#             compile phases (HPCJIT_DEBUG_COMPILE) and import times of a
#             fresh interpreter: firstcall.txt
# Results go to $OUT (default ./node-out), with node_bench.log; the build's
# logs stay in the build folder (the device tool brings back few files).
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
mkdir -p "$bdir"
{
  echo "node_bench: $(date -u +%FT%TZ) on $(uname -n), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo)"
  echo "python: $("$PY" --version 2>&1); load: $(cut -d' ' -f1-3 /proc/loadavg)"
  "$PY" -c "import numpy, numba; print('numpy', numpy.__version__, 'numba', numba.__version__)"
  cmake -S "$root" -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DHPCJIT_PREBUILT_COMPILER="$lib" \
        -DPython_EXECUTABLE="$PY" > "$bdir/configure.log" 2>&1 ||
    cmake -S "$root" -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DHPCJIT_PREBUILT_COMPILER="$lib" \
          -DPython_EXECUTABLE="$PY" -DHPCJIT_PREBUILT_COMPILER_ANY=ON > "$bdir/configure.log" 2>&1 ||
    { tail -n 30 "$bdir/configure.log"; exit 1; }
  cmake --build "$bdir" -j"$(nproc)" > "$bdir/build.log" 2>&1 || { tail -n 30 "$bdir/build.log"; exit 1; }
  echo "built in $(( $(date +%s) - T0 )) s; PYTHONDONTWRITEBYTECODE=${PYTHONDONTWRITEBYTECODE:-unset}"
  case ",${HPCJIT_NODE_STEPS:-table}," in *,firstcall,*)
    {
      echo "== compile_time.py (fresh interpreters, median of 3)"
      timeout -k 5 "$(( $(left) / 3 ))" "$PY" benchmarks/compile_time.py -n 3 \
        --kernels sum_reduce,dot,fib,mandelbrot,six_reductions,array_chain_par
      echo "== hpcjit's phases of one first call (HPCJIT_DEBUG_COMPILE=1)"
      HPCJIT_DEBUG_COMPILE=1 "$PY" -c "import sys; sys.path.insert(0, 'benchmarks'); import run
mod = run.load_kernels('hpcjit')
for k in ('sum_reduce', 'six_reductions'):
    getattr(mod, k)(*run.KERNEL_BY_NAME[k].args('quick'))" 2>&1 | tail -n 4
      echo "== import times (python -X importtime -c 'import numpy, hpcjit', cumulative us, top 12)"
      "$PY" -X importtime -c "import numpy, hpcjit" 2>&1 | sort -t'|' -k2 -n -r | head -n 12
    } > "$OUT/firstcall.txt" 2>&1
    echo "firstcall: done at $(( $(date +%s) - T0 )) s"; cat "$OUT/firstcall.txt" ;;
  esac
  case ",${HPCJIT_NODE_STEPS:-table}," in *,vs_numba,*)
    timeout -k 10 "$(( $(left) - 10 ))" "$PY" benchmarks/scaling/vs_numba.py ${HPCJIT_NODE_VS_ARGS:-} \
      --json "$OUT/vs_numba.json" > "$OUT/vs_numba.md" 2>&1
    echo "vs_numba: rc $? at $(( $(date +%s) - T0 )) s"; cat "$OUT/vs_numba.md" ;;
  esac
  case ",${HPCJIT_NODE_STEPS:-table}," in *,table,*)
    timeout -k 10 "$(( $(left) - 20 ))" "$PY" benchmarks/run.py --repeats "${HPCJIT_NODE_REPEATS:-25}" \
      --no-cpython --markdown --json "$OUT/bench.json" > "$OUT/bench.md" 2>&1
    echo "benchmarks/run.py: rc $? at $(( $(date +%s) - T0 )) s; load: $(cut -d' ' -f1-3 /proc/loadavg)"
    cat "$OUT/bench.md" ;;
  esac
} 2>&1 | tee "$LOG"
