"""Lists, dicts and sets in compiled code: hpcjit vs Numba (the same source)
on 10^6 numbers: building and sorting a list of floats, counting in a
dict, a set of them, a generator consumed by a loop.

    PYTHONPATH=build/python python3 benchmarks/containers_dict.py [--n N] [--repeat R] [--json]

Prints the best-of-R time of each (calls interleaved) and the ratio
Numba/hpcjit (target >= 1.0)."""
import argparse
import json
import time

import numpy as np


def count_ints(a):
    d = {a[0]: 0}  # typed by a store, as Numba needs
    for x in a:
        d[x] = d.get(x, 0) + 1
    best, arg = 0, a[0]
    for k, v in d.items():
        if v > best:
            best, arg = v, k
    return len(d), arg, best


def count_augmented(a):
    d = {a[0]: 0}
    for x in a:
        if x in d:
            d[x] += 1
        else:
            d[x] = 1
    return len(d)


def set_of_ints(a):
    s = {a[0]}
    for x in a:
        s.add(x)
    t = 0
    for x in s:
        t += x
    return len(s), t


def list_sort(a):
    lst = [0.5]
    lst.pop()
    for x in a:
        lst.append(x * 0.5 + 1.0)
    lst.sort()
    return len(lst), lst[0], lst[len(lst) // 2]


def _squares(a):
    for x in a:
        yield x * x


def generator_sum(a):
    s = 0
    for v in _squares(a):
        s += v
    return s


KERNELS = [("count ints (d.get)", count_ints), ("count ints (in, +=)", count_augmented),
           ("set of ints", set_of_ints), ("list append + sort", list_sort),
           ("generator in a loop", generator_sum)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = ap.parse_args()
    import hpcjit
    try:
        import numba
    except ImportError:
        numba = None
    a = np.random.default_rng(0).integers(0, args.n // 4, args.n)
    rows = []
    for name, fn in KERNELS:
        if fn is generator_sum:  # its generator is a global: each JIT needs its own
            g = dict(fn.__globals__)
            import types as _t
            fns = {}
            for jit in (("hpcjit", hpcjit.njit),) + ((("numba", numba.njit),) if numba else ()):
                g2 = dict(g)
                g2["_squares"] = jit[1](_squares)
                fns[jit[0]] = jit[1](_t.FunctionType(fn.__code__, g2, fn.__name__))
            cands = fns
        else:
            cands = {"hpcjit": hpcjit.njit(fn)}
            if numba is not None:
                cands["numba"] = numba.njit(fn)
        ref = fn(a[:1000])
        for c in cands.values():
            assert c(a[:1000]) == ref, name  # warm up and check
        best = {k: float("inf") for k in cands}
        for _ in range(args.repeat):
            for k, c in cands.items():
                t0 = time.perf_counter()
                c(a)
                best[k] = min(best[k], time.perf_counter() - t0)
        row = {"kernel": name, **{k: v * 1e3 for k, v in best.items()}}
        if "numba" in best:
            row["numba/hpcjit"] = best["numba"] / best["hpcjit"]
        rows.append(row)
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"{'kernel':24s} {'hpcjit ms':>10s} {'numba ms':>10s} {'ratio':>7s}")
    for r in rows:
        print(f"{r['kernel']:24s} {r['hpcjit']:10.2f} {r.get('numba', float('nan')):10.2f} "
              f"{r.get('numba/hpcjit', float('nan')):7.2f}")


if __name__ == "__main__":
    main()
