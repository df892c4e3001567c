"""One NPBench Numba variant timed in a process of its own, one framework
per process (so a parallel variant's pool has the cores to itself), with
run.py's data (NPBench's initialize(), the array arguments copied before
each call) but without NPBench's reference run in the same process.  For
checking a single ratio of run.py's table:

    PYTHONPATH=build/python OPENBLAS_NUM_THREADS=1 python3 benchmarks/npbench/alone.py \\
        --npbench CHECKOUT --preset L gemver_np --repeat 5

prints the best and median call of each framework and their ratio
(Numba / hpcjit; hpcjit runs through the drop-in, python -m hpcjit.numba),
and the best process CPU time of a call (all threads: a helper or pool
thread's time shows; on a loaded machine the steadier figure for a serial
variant).  --first hpcjit runs hpcjit's process first (alternate it over
rounds).
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def child(opts):
    import importlib

    import numpy as np
    sys.path.insert(0, HERE)
    from run import _load_file
    root = os.path.abspath(opts.npbench)
    sys.path.insert(0, root)
    Benchmark = _load_file("npbench_benchmark", os.path.join(root, "npbench", "infrastructure",
                                                             "benchmark.py")).Benchmark
    bench_name, variant = opts.variant.rsplit("_", 1)
    bench = Benchmark(bench_name)
    info = bench.info
    data = bench.get_data(opts.preset)
    base = "npbench.benchmarks.{}.{}".format(info["relative_path"].replace("/", "."), info["module_name"])
    impl = getattr(importlib.import_module(f"{base}_numba_{variant}"), info["func_name"])
    times, cpus = [], []
    for i in range(opts.repeat + 1):  # the first call compiles
        args = [np.copy(data[a]) if a in info["array_args"] else data[a] for a in info["input_args"]]
        c0 = time.process_time()
        t0 = time.perf_counter()
        impl(*args)
        t1 = time.perf_counter()
        c1 = time.process_time()
        if i:
            times.append(t1 - t0)
            cpus.append(c1 - c0)
        del args
    times.sort()
    cpus.sort()
    print(json.dumps({"best": times[0], "median": times[len(times) // 2], "cpu": cpus[0]}))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("variant", help="<benchmark>_<n|np|npr>, e.g. gemver_np")
    p.add_argument("--npbench", required=True, help="an NPBench checkout")
    p.add_argument("--preset", default="S")
    p.add_argument("--repeat", type=int, default=5, help="timed calls after the first (default 5)")
    p.add_argument("--first", choices=("numba", "hpcjit"), default="numba",
                   help="which framework's process runs first (default numba)")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    opts = p.parse_args()
    if opts.child:
        return child(opts)
    res = {}
    me = [os.path.abspath(__file__), opts.variant, "--npbench", opts.npbench, "--preset", opts.preset,
          "--repeat", str(opts.repeat), "--child"]
    runs = [("numba", [sys.executable] + me), ("hpcjit", [sys.executable, "-m", "hpcjit.numba"] + me)]
    if opts.first == "hpcjit":
        runs.reverse()
    for fw, cmd in runs:
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"{fw}: failed\n{r.stderr[-2000:]}", file=sys.stderr)
            return 1
        res[fw] = json.loads(r.stdout.strip().splitlines()[-1])
        print(f"{opts.variant:24s} {fw:7s} best {res[fw]['best'] * 1e3:10.1f} ms  "
              f"median {res[fw]['median'] * 1e3:10.1f} ms  cpu {res[fw]['cpu'] * 1e3:10.1f} ms")
    print(f"{opts.variant:24s} numba/hpcjit  best {res['numba']['best'] / res['hpcjit']['best']:.2f}  "
          f"median {res['numba']['median'] / res['hpcjit']['median']:.2f}  "
          f"cpu {res['numba']['cpu'] / max(res['hpcjit']['cpu'], 1e-9):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
