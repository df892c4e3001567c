"""Thread-pool kernels of benchmarks/kernels.py under hpcjit and Numba on
1..N threads, each framework and thread count in a process of its own (so
that neither pool's threads share the cores with the other's), as a table
of times and Numba/hpcjit ratios.

    PYTHONPATH=build/python python3 benchmarks/scaling/vs_numba.py \
        [--kernels array_chain_par,prange_sum,prange_rows] [--threads 1,2,4,8,16]
        [--calls 30] [--gap-ms 50] [--json FILE]
        [--variant LABEL:NAME=VALUE[;NAME=VALUE...]]...

Each process times --calls calls after one warm-up call, each after a pause
of --gap-ms (the pools' threads asleep, as after a serial phase of a
program; 0: back to back) and reports the best and the median call, and
the process's CPU time over wall time during the calls (how many threads
were busy).  The kernels' arguments are benchmarks/run.py's full sizes.
Each --variant adds a column: hpcjit again with those environment
variables (e.g. `--variant flat:HPCJIT_WAKE_FANOUT=0`), as Numba / that."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
DEFAULT_KERNELS = "array_chain_par,prange_sum,prange_rows"


def child(fw, kernel, calls, gap):
    sys.path.insert(0, BENCH)
    import run as harness
    mod = harness.load_kernels(fw)
    f = getattr(mod, kernel)
    args = harness.KERNEL_BY_NAME[kernel].args("full")
    f(*args)
    ts = []
    c0, w0 = os.times(), time.perf_counter()
    busy = 0.0
    for _ in range(calls):
        if gap:
            time.sleep(gap)
        t0, p0 = time.perf_counter(), time.process_time()
        f(*args)
        ts.append(time.perf_counter() - t0)
        busy += time.process_time() - p0
    return {"best_ms": min(ts) * 1e3, "median_ms": statistics.median(ts) * 1e3,
            "cpu_per_wall": busy / sum(ts), "samples_ms": [t * 1e3 for t in ts]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernels", default=DEFAULT_KERNELS)
    ap.add_argument("--threads", default=None, help="comma-separated counts (default 1,2,4,.. up to the CPUs)")
    ap.add_argument("--calls", type=int, default=30)
    ap.add_argument("--gap-ms", type=float, default=50.0)
    ap.add_argument("--json", default=None)
    ap.add_argument("--variant", action="append", default=[],
                    help="LABEL:NAME=VALUE[;NAME=VALUE...]: hpcjit again with these variables")
    ap.add_argument("--child", nargs=2, metavar=("FRAMEWORK", "KERNEL"), help=argparse.SUPPRESS)
    o = ap.parse_args()
    if o.child:
        print(json.dumps(child(o.child[0], o.child[1], o.calls, o.gap_ms / 1e3)))
        return 0
    ncpu = len(os.sched_getaffinity(0))
    counts = [int(t) for t in o.threads.split(",")] if o.threads else \
        sorted({1 << k for k in range(ncpu.bit_length()) if 1 << k <= ncpu} | {ncpu})
    variants = []
    for v in o.variant:
        label, _, assigns = v.partition(":")
        env = dict(a.split("=", 1) for a in assigns.split(";") if "=" in a)
        if not label or not env:
            ap.error(f"--variant {v!r}: expected LABEL:NAME=VALUE[;NAME=VALUE...]")
        variants.append(("hpcjit:" + label, env))
    rows = []
    print(f"# {os.uname().nodename}: {ncpu} CPUs, load {os.getloadavg()[0]:.2f}; "
          f"{o.calls} calls per process, {o.gap_ms:g} ms apart")
    extra = "".join(f" {lab} ms (best / median) | Numba / {lab} |" for lab, _ in variants)
    print("| kernel | threads | hpcjit ms (best / median) | Numba ms (best / median) | "
          "Numba / hpcjit (best) | CPU/wall hpcjit | CPU/wall Numba |" + extra)
    print("|---|---:|---:|---:|---:|---:|---:|" + "---:|---:|" * len(variants))
    for kernel in o.kernels.split(","):
        for t in counts:
            row = {"kernel": kernel, "threads": t}
            for fw, venv in [("hpcjit", {}), ("numba", {})] + variants:
                env = dict(os.environ, HPCJIT_NUM_THREADS=str(t), NUMBA_NUM_THREADS=str(t), **venv)
                p = subprocess.run([sys.executable, __file__, "--child", fw.split(":")[0], kernel,
                                    "--calls", str(o.calls),
                                    "--gap-ms", str(o.gap_ms)], env=env, capture_output=True, text=True)
                if p.returncode != 0:
                    row[fw] = {"error": (p.stderr.strip().splitlines() or ["?"])[-1]}
                else:
                    row[fw] = json.loads(p.stdout.strip().splitlines()[-1])
            rows.append(row)
            h, n = row["hpcjit"], row["numba"]
            if "error" in h or "error" in n:
                print(f"| {kernel} | {t} | {h.get('error', '')} | {n.get('error', '')} | | | |")
                continue
            cells = ""
            for lab, _ in variants:
                v = row[lab]
                cells += (f" {v['error']} | |" if "error" in v else
                          f" {v['best_ms']:.3f} / {v['median_ms']:.3f} | {n['best_ms'] / v['best_ms']:.2f}x |")
            print(f"| {kernel} | {t} | {h['best_ms']:.3f} / {h['median_ms']:.3f} | "
                  f"{n['best_ms']:.3f} / {n['median_ms']:.3f} | {n['best_ms'] / h['best_ms']:.2f}x | "
                  f"{h['cpu_per_wall']:.1f} | {n['cpu_per_wall']:.1f} |{cells}", flush=True)
    if o.json:
        with open(o.json, "w") as fh:
            json.dump({"machine": os.uname().nodename, "cpus": ncpu, "calls": o.calls, "gap_ms": o.gap_ms,
                       "variants": {lab: env for lab, env in variants}, "rows": rows}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
