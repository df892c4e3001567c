#!/bin/sh
# usage: topo_json.sh HPCJIT PYTHON - `hpcjit topo --json` (with I/O
# discovery) is valid JSON whose plan lies inside the current cpuset, and
# whose GPU list holds every compute GPU the kernel shows in
# /sys/bus/pci (none here is an empty list).
hpcjit=$1 py=$2
out=$("$hpcjit" topo --json) || exit 1
printf '%s' "$out" | "$py" -c '
import glob, json, os, re, sys
def cpus(s):
    r = set()
    for part in filter(None, s.split(",")):
        a, _, b = part.partition("-")
        r.update(range(int(a), int(b or a) + 1))
    return r
def sysfs_gpus():
    """bus ids of the compute GPUs in /sys/bus/pci (TopoGpu rule), None if unreadable"""
    devs = glob.glob("/sys/bus/pci/devices/*")
    if not devs:
        return None
    found = set()
    for d in devs:
        try:
            vendor = int(open(d + "/vendor").read(), 16)
            cls = int(open(d + "/class").read(), 16) >> 8
        except OSError:
            return None
        if (cls == 0x0300 and vendor == 0x10de) or cls in (0x0302, 0x0380) or cls >> 8 == 0x12:
            found.add(os.path.basename(d))
    return found
d = json.load(sys.stdin)
n, p = d["node"], d["plan"]
cur = cpus(n["current_cpus"])
assert n["pus"] == len(cur) >= 1, n
assert cur <= cpus(n["allowed_cpus"]), n
assert n["io_discovered"] is True, n
gl = n["gpu_list"]
assert n["gpus"] == len(gl), n
assert [g["index"] for g in gl] == list(range(len(gl))), gl
assert [g["busid"] for g in gl] == sorted(g["busid"] for g in gl), gl
for g in gl:
    assert re.fullmatch(r"[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]", g["busid"]), g
    assert g["numa_nodes"] == "" or cpus(g["numa_nodes"]), g
    assert (g["cpus"] == "") == (g["numa_nodes"] == ""), g
want = sysfs_gpus()
if want is not None:
    assert want <= {g["busid"] for g in gl}, (want, gl)
    if not want:
        assert gl == [] or all(g["osdevs"] for g in gl), gl  # none here: an empty list
assert all(x["gpu"] is False or x["busid"] in {g["busid"] for g in gl} for x in n["devices"]), n
assert len(p["thread_cpus"]) == p["threads"] >= 1, p
assert all(cpus(c) <= cur for c in p["thread_cpus"]), p
assert d["arch"]["key"].startswith(d["arch"]["llvm_cpu"].lower()), d["arch"]
print("ok:", n["pus"], "PUs,", n["gpus"], "GPUs", [(g["busid"], g["numa_nodes"]) for g in gl], ",",
      p["threads"], "threads, key", d["arch"]["key"])
'
