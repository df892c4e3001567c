"""Numba and hpcjit timed in ONE process, calls alternating, on NPBench's
Numba variants: the figures of the 2026-11-26b sections of README.md.
run.py times each framework in its own process, minutes apart, which on a
shared machine moves single ratios by 0.2 and more; here both see the same
load.  Serial variants only make sense this way (the parallel ones' pools
compete for the cores: time those with run.py).

    PYTHONPATH=build/python python3 benchmarks/npbench/interleave.py \\
        --npbench /tmp/npbench doitgen_n,stockham_fft_n [--repeat 30] [--preset S]

Prints, per variant, the best wall, calling-thread and process CPU times
of each and their ratio (Numba time / hpcjit time, > 1: hpcjit faster).
NPBench's code is read from the checkout at run time, not copied here."""
import argparse
import importlib.util
import os
import sys
import time
import types

import numpy as np


def _load_file(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _variant(root, Benchmark, bench, variant, fw):
    b = Benchmark(bench)
    info = b.info
    path = os.path.join(root, "npbench", "benchmarks", info["relative_path"],
                        info["module_name"] + f"_numba_{variant}.py")
    src = open(path).read()
    if fw == "hpcjit":  # the drop-in's effect, for this module only
        src = src.replace("import numba as nb", "import hpcjit as nb")
    mod = types.ModuleType(f"{bench}_{variant}_{fw}")
    exec(compile(src, path, "exec"), mod.__dict__)
    return getattr(mod, info["func_name"]), b, info


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("variants", help="comma-separated <benchmark>_<n|np|npr>")
    ap.add_argument("--npbench", required=True, help="an NPBench checkout")
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--preset", default="S")
    args = ap.parse_args(argv)
    sys.path.insert(0, args.npbench)
    infra = os.path.join(args.npbench, "npbench", "infrastructure")
    Benchmark = _load_file("npbench_benchmark", os.path.join(infra, "benchmark.py")).Benchmark
    os.chdir(args.npbench)  # NPBench reads bench_info/ relative to its root
    for bv in args.variants.split(","):
        bench, variant = bv.rsplit("_", 1)
        fn, b, info = _variant(args.npbench, Benchmark, bench, variant, "numba")
        fh, _, _ = _variant(args.npbench, Benchmark, bench, variant, "hpcjit")
        data = b.get_data(args.preset)

        def call(f):
            xs = [np.copy(data[a]) if a in info["array_args"] else data[a] for a in info["input_args"]]
            t0, c0, p0 = time.perf_counter(), time.thread_time(), time.process_time()
            f(*xs)
            return time.perf_counter() - t0, time.thread_time() - c0, time.process_time() - p0

        call(fn)
        call(fh)
        tn, th = [], []
        for i in range(args.repeat):  # alternate which goes first: BLAS threads left spinning
            if i % 2:
                th.append(call(fh))
                tn.append(call(fn))
            else:
                tn.append(call(fn))
                th.append(call(fh))
        for k, nm in ((0, "wall"), (1, "thread"), (2, "process")):
            a = [t[k] for t in tn]
            h = [t[k] for t in th]
            print(f"{bv:22s} {nm:7s} numba {min(a) * 1e3:9.3f} ms  hpcjit {min(h) * 1e3:9.3f} ms  "
                  f"ratio {min(a) / min(h):5.2f} (medians {np.median(a) / np.median(h):5.2f})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
