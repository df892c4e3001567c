#!/bin/sh
# usage: topo_taskset.sh HPCJIT PYTHON - `hpcjit topo --json` under taskset -c 0
# must plan one thread, pinned to CPU 0, inside a binding of CPU 0 only.
hpcjit=$1 py=$2
command -v taskset >/dev/null 2>&1 || { echo "taskset not found: skipped"; exit 77; }
taskset -c 0 true 2>/dev/null || { echo "CPU 0 is not ours: skipped"; exit 77; }
out=$(env -u HPCJIT_NUM_THREADS -u NUMBA_NUM_THREADS -u OMP_NUM_THREADS -u OMP_PLACES \
          -u OMP_PROC_BIND -u HPCJIT_PROC_BIND taskset -c 0 "$hpcjit" topo --json --no-io) || exit 1
printf '%s\n' "$out"
printf '%s' "$out" | "$py" -c '
import json, sys
d = json.load(sys.stdin)
p, n = d["plan"], d["node"]
assert n["current_cpus"] == "0", n
assert n["pus"] == 1, n
assert p["threads"] == 1 and p["threads_from"] == "affinity mask", p
assert p["thread_cpus"] == ["0"], p
print("ok: one thread on CPU 0")
'
