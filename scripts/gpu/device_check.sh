#!/usr/bin/env bash
# The device check, run on the GPU node as one command:
#
#   bash scripts/gpu/device_check.sh
#
# in a copy of the working tree that carries .gpu-carry/ (made here by
# scripts/gpu/prepare.sh: the compiler with LLVM inside, since the node has
# no LLVM).  Steps, each under its own timeout, each run whatever the
# previous ones gave:
#   env      the machine: GPU (nvidia-smi), driver, CUDA, Python and packages
#   build    cmake with -DHPCJIT_PREBUILT_COMPILER=.gpu-carry/..., -j$(nproc)
#   topo     hpcjit topo (GPUs and their NUMA nodes), hpcjit run --gpus-per-rank
#   ctest    ctest -L gpu --output-on-failure
#   cpu      a handful of CPU pytest files (the build works here)
#   gpu:F    each tests/python/test_cuda*.py that ctest -L gpu did not run,
#            with a per-file timeout
#   bench    python3 benchmarks/gpu/run_all.py --out DIR, when it exists
#   scaling  benchmarks/scaling/scaling.py: the prange kernels on 1..N
#            threads of the node, through the real package (its table and
#            plot come back as bench-scaling.*)
# Everything ends within HPCJIT_GPU_CHECK_BUDGET seconds (default 450: the
# steps' timeouts shrink to what is left, keeping a reserve for the later
# ones).  Results go to $OUT (at most 8 flat files): device_check.log (all
# output), summary.json, summary.txt, bench.tar.gz and up to four of the
# benchmark's own files.  The summary is printed last.
#
# Variables: OUT (default ./gpu-out), HPCJIT_GPU_CHECK_BUDGET,
# HPCJIT_GPU_FILE_TIMEOUT (per GPU test file, default 120), JOBS (nproc),
# HPCJIT_GPU_BUILD (build folder, default build-gpu-node); for a short
# device budget, HPCJIT_GPU_STEPS (the steps to run, e.g. "env build gpu";
# default all) and HPCJIT_GPU_FILES (the gpu:F files instead of every
# tests/python/test_cuda*.py, paths from the tree's root).
set -u
cd "$(dirname "$0")/../.."
root=$PWD
T0=$(date +%s)
BUDGET=${HPCJIT_GPU_CHECK_BUDGET:-450}
FILE_TIMEOUT=${HPCJIT_GPU_FILE_TIMEOUT:-120}
OUT=${OUT:-$root/gpu-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/hpcjit-gpu.XXXXXX")
LOG=$OUT/device_check.log
STEPS=$work/steps.tsv
: > "$LOG"
: > "$STEPS"
bdir=${HPCJIT_GPU_BUILD:-$root/build-gpu-node}
lib=$root/.gpu-carry/libhpcjit_compiler.so
PY=$(command -v python3 || echo python3)
jobs=${JOBS:-$(nproc 2>/dev/null || echo 4)}

# CUDA and the driver where the node keeps them; the build tree's package
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
[ -d "$CUDA_HOME/bin" ] && export PATH=$CUDA_HOME/bin:$PATH
if [ -d /usr/local/nvidia/lib64 ]; then
  export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/local/nvidia/lib64
fi
export PYTHONUNBUFFERED=1 HPCJIT_TEST_BUILD=1 PYTHONDONTWRITEBYTECODE=1
export PYTHONPATH=$bdir/python${PYTHONPATH:+:$PYTHONPATH}
export HPCJIT_PYTHON=$PY
export root bdir lib PY jobs work OUT

elapsed() { echo $(($(date +%s) - T0)); }
left() { echo $((BUDGET - $(elapsed))); }
log() { printf '%s\n' "$*" | tee -a "$LOG"; }

# step NAME CAP RESERVE FUNCTION [ARGS...]: FUNCTION (exported) under a
# timeout of min(CAP, time left - RESERVE) (RESERVE: what later steps keep,
# for a 420 s budget); its output goes to the log and its last lines to
# stdout; one line per step in $STEPS.
step() {
  local name=$1 cap=$2 reserve=$3
  shift 3
  if [ -n "${HPCJIT_GPU_STEPS:-}" ] && [[ " $HPCJIT_GPU_STEPS " != *" ${name%%:*} "* ]]; then
    printf '%s\tnot-selected\t-\t0\tHPCJIT_GPU_STEPS\n' "$name" >> "$STEPS"
    return
  fi
  # the reserves below are for a 420 s budget: scaled to this one
  reserve=$((reserve * BUDGET / 420))
  local t=$(($(left) - reserve))
  [ "$t" -gt "$cap" ] && t=$cap
  if [ "$t" -lt 5 ]; then
    log "=== [$name] SKIPPED: no time left ($(elapsed) s of $BUDGET used)"
    printf '%s\tskipped\t-\t0\tno time left\n' "$name" >> "$STEPS"
    return
  fi
  log "=== [$name] at $(elapsed) s, timeout ${t} s: $*"
  local s rc out=$work/step.out
  s=$(date +%s)
  timeout -k 10 "$t" bash -c '"$@"' _ "$@" > "$out" 2>&1 < /dev/null
  rc=$?
  local secs=$(($(date +%s) - s))
  cat "$out" >> "$LOG"
  tail -n "${TAIL:-12}" "$out"
  local status=ok
  case $rc in
    0) status=ok ;;
    77) status=skipped ;;
    124 | 137) status=TIMEOUT ;;
    *) status=FAILED ;;
  esac
  # ctest's skipped tests (exit 77) pass: say so
  if [ "$status" = ok ] && grep -q '(Skipped)' "$out"; then
    status=skipped
  fi
  # the note: pytest's or ctest's result line, else the last line
  local note=""
  [ "$status" = skipped ] && note=$(grep -E '^([0-9]+: )?SKIP' "$out" | tail -n 1)
  [ -n "$note" ] ||
    note=$(grep -E '^(=+ )?[0-9]+ (passed|failed|skipped|error|deselected)|no tests ran|tests passed|No tests were found' "$out" | tail -n 1)
  [ -n "$note" ] || note=$(grep -v '^\s*$' "$out" | tail -n 1)
  note=$(printf '%s' "$note" | tr '\t' ' ' | sed -E 's/={2,}//g; s/^ +//; s/ +$//' | cut -c1-160)
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$status" "$rc" "$secs" "$note" >> "$STEPS"
  log "=== [$name] $status (rc $rc) in $secs s"
}

# ---- the steps (each run in its own bash under timeout) ---------------------
env_facts() {
  date -u
  uname -a
  grep -E '^(PRETTY_NAME)=' /etc/os-release 2>/dev/null
  echo "cpus: $(nproc)  memory: $(free -g 2>/dev/null | awk '/^Mem/ {print $2 " GiB"}')"
  if command -v nvidia-smi >/dev/null; then
    timeout 30 nvidia-smi --query-gpu=index,name,compute_cap,driver_version,memory.total,pci.bus_id \
      --format=csv 2>&1
    timeout 30 nvidia-smi topo -m 2>&1 | head -n 20
  else
    echo "nvidia-smi: not found"
  fi
  echo "CUDA_HOME=$CUDA_HOME"
  command -v nvcc >/dev/null && nvcc --version | tail -n 2
  command -v ptxas >/dev/null && ptxas --version | tail -n 1
  ls "$CUDA_HOME"/nvvm/libdevice/ 2>&1 | head -n 3
  ldconfig -p 2>/dev/null | grep -E 'libcuda\.so\.1|libnccl\.so|libhwloc\.so|libmpi\.so' | sed 's/^\s*//'
  ls /usr/local/nvidia/lib64/libcuda.so.1 2>/dev/null
  echo "python: $PY ($("$PY" --version 2>&1))"
  "$PY" - <<'PYEOF'
from importlib import metadata
for d in ("numpy", "numba", "numba-cuda", "cupy-cuda13x", "torch", "pytest", "matplotlib"):
    try:
        print(f"  {d} {metadata.version(d)}")
    except Exception:
        print(f"  {d}: not installed")
PYEOF
  echo "cmake: $(command -v cmake) $(cmake --version | head -n 1)"
  echo "cc: $(cc --version | head -n 1)"
  echo "prebuilt compiler: $lib"
  ls -l "$lib" 2>&1
  cat "${lib%.so}.info" 2>&1
}

build() {
  local args=(-S "$root" -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DHPCJIT_PREBUILT_COMPILER="$lib"
              -DPython_EXECUTABLE="$PY")
  if ! cmake "${args[@]}" > "$work/configure.log" 2>&1; then
    cat "$work/configure.log"
    if grep -q 'HPCJIT_PREBUILT_COMPILER_ANY' "$work/configure.log"; then
      # prepare.sh ran before the last change to compiler/ or the runtime's
      # headers: go on with the stale library, and say so everywhere
      echo "STALE LIBRARY: .gpu-carry was made from other sources; configuring with HPCJIT_PREBUILT_COMPILER_ANY=ON"
      touch "$work/stale"
      cmake "${args[@]}" -DHPCJIT_PREBUILT_COMPILER_ANY=ON || return 1
    else
      return 1
    fi
  else
    grep -E '^-- hpcjit' "$work/configure.log"
  fi
  local rc
  cmake --build "$bdir" -j"$jobs" > "$work/build.log" 2>&1
  rc=$?
  grep -vE '^\[ *[0-9]+%\] (Building|Linking|Built|Generating)' "$work/build.log"
  [ "$rc" -eq 0 ] || return 1
  ldd "$bdir"/python/hpcjit/_compiler*.so | grep -E 'hpcjit|not found'
  "$PY" -c "
import hpcjit, numpy as np
@hpcjit.njit
def f(a):
    s = 0.0
    for x in a:
        s += x
    return s
a = np.arange(10.0)
assert f(a) == f.py_func(a) == 45.0
print('smoke: compiled and ran a function on', hpcjit.__file__)"
}

topo() {
  local h=$bdir/launcher/hpcjit
  "$h" topo || return 1
  "$h" topo --json > "$work/topo.json" || return 1
  "$PY" - "$work/topo.json" <<'PYEOF' || return 1
import json, sys
d = json.load(open(sys.argv[1]))["node"]
gpus = d.get("gpu_list", [])
print(f"hpcjit topo --json: {len(gpus)} GPU(s)", [(g.get("busid"), g.get("numa_nodes")) for g in gpus])
PYEOF
  # the launcher's per-rank GPU choice, without MPI: ranks 0 and 1 of a node
  for r in 0 1; do
    SLURM_LOCALID=$r "$h" run --gpus-per-rank 1 -- sh -c \
      'echo "local rank $SLURM_LOCALID: CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES $(grep Cpus_allowed_list /proc/$$/status)"'
  done
}

ctest_gpu() {
  # -V: the GPU suite's own listing goes to the log, passed or not
  ctest --test-dir "$bdir" -L gpu -V --output-on-failure --timeout 300
}

cpu_tests() {
  "$PY" -m pytest -q -p no:cacheprovider -rfE "$@"
}

gpu_test() {
  "$PY" -m pytest -q -p no:cacheprovider -rfEs --tb=short "$1"
}

bench() {
  "$PY" "$root/benchmarks/gpu/run_all.py" --out "$work/bench"
}
scaling() {
  mkdir -p "$work/bench"
  "$PY" "$root/benchmarks/scaling/scaling.py" --rounds "${HPCJIT_GPU_SCALING_ROUNDS:-3}" \
    --png "$work/bench/scaling.png" --json "$work/bench/scaling.json" --md "$work/bench/scaling.md"
}
export -f env_facts build topo ctest_gpu cpu_tests gpu_test bench scaling

# ---- run them -----------------------------------------------------------------
log "device_check: $(date -u +%FT%TZ) on $(uname -n), budget $BUDGET s, results in $OUT"
[ -f "$lib" ] || log "device_check: WARNING: $lib is missing (run scripts/gpu/prepare.sh and carry .gpu-carry)"
gpu_files=${HPCJIT_GPU_FILES:-$(ls "$root"/tests/python/test_cuda*.py 2>/dev/null)}
ngpu_files=$(printf '%s' "$gpu_files" | grep -c . || true)
# reserves: what later steps keep in any case
step env 40 360 env_facts
step build 240 200 build
step topo 30 190 topo
step ctest 180 170 ctest_gpu
step cpu 90 140 cpu_tests tests/python/test_scalars.py tests/python/test_calls.py \
     tests/python/test_errors.py tests/python/test_parallel.py tests/python/test_nosource.py
# the pytest files that the gpu-labelled CTest tests run already
covered=
if [ -z "${HPCJIT_GPU_STEPS:-}" ] || [[ " $HPCJIT_GPU_STEPS " == *" ctest "* ]]; then
  covered=$(ctest --test-dir "$bdir" -N -V -L gpu 2>/dev/null | grep -o 'test_cuda[A-Za-z0-9_]*\.py' | sort -u)
fi
i=0
for f in $gpu_files; do
  i=$((i + 1))
  base=$(basename "$f")
  if printf '%s\n' "$covered" | grep -qx "$base"; then
    log "=== [gpu:$base] run by ctest -L gpu above"
    printf '%s\t%s\t-\t0\t%s\n' "gpu:$base" "in-ctest" "run by ctest -L gpu" >> "$STEPS"
    continue
  fi
  # the files left and the benchmark share what remains
  step "gpu:$base" "$FILE_TIMEOUT" $((100 + 10 * (ngpu_files - i))) gpu_test "$f"
done
[ -n "$gpu_files" ] || log "device_check: no tests/python/test_cuda*.py in this tree"
if [ -f "$root/benchmarks/gpu/run_all.py" ]; then
  mkdir -p "$work/bench"
  step bench 300 70 bench
else
  log "device_check: no benchmarks/gpu/run_all.py in this tree"
fi
[ -f "$root/benchmarks/scaling/scaling.py" ] && step scaling 90 0 scaling

# ---- results --------------------------------------------------------------------
stale=false
[ -f "$work/stale" ] && stale=true
"$PY" - "$STEPS" "$OUT" "$work" "$(elapsed)" "$BUDGET" "$stale" <<'PYEOF' 2>&1 | tee -a "$LOG"
import json, os, platform, sys
steps_file, out, work, secs, budget, stale = sys.argv[1:]
steps = []
for line in open(steps_file):
    name, status, rc, t, note = (line.rstrip("\n").split("\t") + [""] * 5)[:5]
    steps.append({"step": name, "status": status, "rc": rc, "seconds": int(t or 0), "result": note})
counts = {}
for s in steps:
    counts[s["status"]] = counts.get(s["status"], 0) + 1
doc = {"host": platform.node(), "seconds": int(secs), "budget": int(budget),
       "stale_compiler_library": stale == "true", "counts": counts, "steps": steps}
json.dump(doc, open(os.path.join(out, "summary.json"), "w"), indent=1)
lines = ["", "==================== device_check summary ====================",
         f"{'step':34} {'status':8} {'secs':>5}  result"]
for s in steps:
    lines.append(f"{s['step'][:34]:34} {s['status']:8} {s['seconds']:5d}  {s['result']}")
lines.append("device_check: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
             + f" in {secs} s (budget {budget} s)"
             + ("; STALE compiler library (re-run scripts/gpu/prepare.sh)" if stale == "true" else ""))
open(os.path.join(out, "summary.txt"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PYEOF

# the benchmark's files: all in one archive, and up to four as they are
if [ -d "$work/bench" ] && [ -n "$(ls -A "$work/bench" 2>/dev/null)" ]; then
  tar -czf "$OUT/bench.tar.gz" -C "$work" bench 2>/dev/null
  n=0
  while IFS= read -r f; do
    [ "$n" -ge 4 ] && break
    [ "$(stat -c %s "$f")" -le $((16 * 1024 * 1024)) ] || continue
    name=$(basename "$f" | tr -c 'A-Za-z0-9._\n-' '_')
    cp "$f" "$OUT/bench-$name" && n=$((n + 1))
  done < <(find "$work/bench" -type f \( -name '*.json' -o -name '*.png' \) | sort)
fi
rm -rf "$work"
echo "device_check: files in $OUT: $(ls "$OUT" | tr '\n' ' ')"
