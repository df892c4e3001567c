#!/bin/sh
# usage: topo_json.sh HPCJIT PYTHON - `hpcjit topo --json` (with I/O
# discovery) is valid JSON whose plan lies inside the current cpuset.
hpcjit=$1 py=$2
out=$("$hpcjit" topo --json) || exit 1
printf '%s' "$out" | "$py" -c '
import json, sys
def cpus(s):
    r = set()
    for part in filter(None, s.split(",")):
        a, _, b = part.partition("-")
        r.update(range(int(a), int(b or a) + 1))
    return r
d = json.load(sys.stdin)
n, p = d["node"], d["plan"]
cur = cpus(n["current_cpus"])
assert n["pus"] == len(cur) >= 1, n
assert cur <= cpus(n["allowed_cpus"]), n
assert n["io_discovered"] is True and n["gpus"] == sum(x["gpu"] for x in n["devices"]), n
assert len(p["thread_cpus"]) == p["threads"] >= 1, p
assert all(cpus(c) <= cur for c in p["thread_cpus"]), p
assert d["arch"]["key"].startswith(d["arch"]["llvm_cpu"].lower()), d["arch"]
print("ok:", n["pus"], "PUs,", n["gpus"], "GPUs,", p["threads"], "threads, key", d["arch"]["key"])
'
