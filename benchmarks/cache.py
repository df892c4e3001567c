#!/usr/bin/env python3
"""The on-disk cache's payoff: the first call of a kernel in a fresh
process with a warm cache, against compiling it (empty cache), beside
Numba's `cache=True` (compile, and a hit).

Every measurement is a fresh interpreter that imports numpy, the JIT and
the kernels (benchmarks/kernels.py with `jit = njit(cache=True)`), then
times the first call minus the second (the kernels' "py" sizes, so the
work itself is small); imports are outside the timing, the lazy loading of
the compiler on the first call is inside it for both JITs.  Hits are the
best of --repeats processes.  Bytecode caching is on for the children
(PYTHONDONTWRITEBYTECODE removed), as for an installed package.

    python3 benchmarks/cache.py                       # every kernel
    python3 benchmarks/cache.py --kernels dot,fib --repeats 5 --json out.json
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

_CHILD = r"""
import json, sys, time, types
sys.path.insert(0, {here!r})
import run as R
backend = {backend!r}
if backend == "hpcjit":
    import hpcjit
    jit = lambda f: hpcjit.njit(cache=True)(f)
else:
    import numba
    jit = lambda f: numba.njit(cache=True)(f)
mod = types.ModuleType("kernels_cached")
mod.__file__ = R.KERNELS_FILE
mod.jit = jit
sys.modules[mod.__name__] = mod
with open(R.KERNELS_FILE) as fh:
    exec(compile(fh.read(), R.KERNELS_FILE, "exec"), mod.__dict__)
k = R.KERNEL_BY_NAME[{name!r}]
args = k.args("py")
f = getattr(mod, {name!r})
t0 = time.perf_counter(); f(*args); t1 = time.perf_counter(); f(*args); t2 = time.perf_counter()
def was_hit(fn):
    if backend == "hpcjit":
        return fn._infos[-1].get("cache") == "hit"
    return bool(fn.stats.cache_hits)
# a second kernel in the same process: the cost of one more hit once the
# JIT is loaded and initialised
g = getattr(mod, {other!r})
gargs = R.KERNEL_BY_NAME[{other!r}].args("py")
t3 = time.perf_counter(); g(*gargs); t4 = time.perf_counter(); g(*gargs); t5 = time.perf_counter()
print(json.dumps([t1 - t0, t2 - t1, was_hit(f), (t4 - t3) - (t5 - t4), was_hit(g)]))
"""


def measure(backend, name, cache_dir):
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    for k in ("HPCJIT_CACHE", "HPCJIT_DEBUG_COMPILE", "HPCJIT_CACHE_DIR", "NUMBA_CACHE_DIR"):
        env.pop(k, None)
    env["HPCJIT_CACHE_DIR" if backend == "hpcjit" else "NUMBA_CACHE_DIR"] = cache_dir
    other = "sum_reduce" if name != "sum_reduce" else "dot"
    code = _CHILD.format(here=HERE, backend=backend, name=name, other=other)
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=600)
    if r.returncode != 0:
        raise RuntimeError(f"{backend} {name}: {(r.stderr.strip().splitlines() or ['failed'])[-1]}")
    first, second, hit, more, more_hit = json.loads(r.stdout.strip().splitlines()[-1])
    return max(first - second, 0.0) * 1e3, hit, max(more, 0.0) * 1e3, more_hit


def bench(backend, name, repeats, root):
    d = tempfile.mkdtemp(prefix=f"{backend}-", dir=root)
    compile_ms, hit, more_compile, _ = measure(backend, name, d)
    if hit:
        raise RuntimeError(f"{backend} {name}: a hit in an empty cache")
    hits, more = [], []
    for _ in range(repeats):
        ms, hit, m, more_hit = measure(backend, name, d)
        if not (hit and more_hit):
            raise RuntimeError(f"{backend} {name}: no cache hit in a warm cache")
        hits.append(ms)
        more.append(m)
    return {"compile": compile_ms, "hit": min(hits), "hit_median": statistics.median(hits),
            "next_compile": more_compile, "next_hit": min(more)}


def main():
    sys.path.insert(0, HERE)
    import run as R
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernels", help="comma-separated names (default: all)")
    ap.add_argument("--repeats", type=int, default=5, help="warm-cache processes per kernel")
    ap.add_argument("--no-numba", action="store_true")
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()
    names = args.kernels.split(",") if args.kernels else [k.name for k in R.KERNELS]
    try:
        import numba  # noqa: F401
        have_numba = not args.no_numba
    except ImportError:
        have_numba = False
    root = tempfile.mkdtemp(prefix="hpcjit-cache-bench-")
    rows = []
    try:
        for name in names:
            row = {"kernel": name}
            for backend in ("hpcjit", "numba") if have_numba else ("hpcjit",):
                for k, v in bench(backend, name, args.repeats, root).items():
                    row[f"{backend}_{k}"] = v
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)

    print("first call in a fresh process, ms (first call minus second; hits: best of "
          f"{args.repeats} processes); 'next hit': a second kernel's first call in the same "
          "process, from the cache\n")
    head = ("| kernel | hpcjit compile | hpcjit hit | compile / hit | hpcjit next compile | "
            "hpcjit next hit |")
    sep = "|---|---:|---:|---:|---:|---:|"
    if have_numba:
        head += " Numba compile | Numba hit | Numba hit / hpcjit hit | Numba next hit |"
        sep += "---:|---:|---:|---:|"
    print(head)
    print(sep)
    for r in rows:
        line = (f"| {r['kernel']} | {r['hpcjit_compile']:.1f} | {r['hpcjit_hit']:.2f} | "
                f"{r['hpcjit_compile'] / r['hpcjit_hit']:.1f}x | {r['hpcjit_next_compile']:.1f} | "
                f"{r['hpcjit_next_hit']:.2f} |")
        if have_numba:
            line += (f" {r['numba_compile']:.1f} | {r['numba_hit']:.1f} | "
                     f"{r['numba_hit'] / r['hpcjit_hit']:.0f}x | {r['numba_next_hit']:.1f} |")
        print(line)

    def gmean(xs):
        return statistics.geometric_mean(xs) if xs else float("nan")
    summary = {"hpcjit_hit_gmean_ms": gmean([r["hpcjit_hit"] for r in rows]),
               "hpcjit_compile_over_hit_gmean": gmean([r["hpcjit_compile"] / r["hpcjit_hit"]
                                                       for r in rows]),
               "hpcjit_next_hit_gmean_ms": gmean([r["hpcjit_next_hit"] for r in rows])}
    if have_numba:
        summary["numba_hit_gmean_ms"] = gmean([r["numba_hit"] for r in rows])
        summary["numba_hit_over_hpcjit_hit_gmean"] = gmean([r["numba_hit"] / r["hpcjit_hit"]
                                                            for r in rows])
        summary["numba_next_hit_gmean_ms"] = gmean([r["numba_next_hit"] for r in rows])
    print()
    for k, v in summary.items():
        print(f"{k}: {v:.2f}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"rows": rows, "summary": summary}, fh, indent=1)


if __name__ == "__main__":
    main()
