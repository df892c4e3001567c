"""Boolean masks and the positions of nonzero items, hpcjit beside Numba:
`a[mask]`, `a[mask] = v`, `np.nonzero`, `np.where(cond)`, `np.argwhere`,
`np.count_nonzero`, `np.flatnonzero`, each on a sparse mask (one item in a
thousand set, as in azimuthal integration's bins) and a dense one (half
set).  Both compilers in one process, best of --repeats calls; the ratio
is Numba's time over hpcjit's (> 1: hpcjit faster).

    PYTHONPATH=build/python python3 benchmarks/masks.py [--n 1000000] [--repeats 50] [--json F]
"""
import argparse
import json
import math
import sys
import time

import numpy as np


def mask_get(a, m):
    return a[m]


def mask_set(a, m):
    a[m] = 0.5
    return a


def nonzero(m):
    return np.nonzero(m)[0]


def where_cond(x, t):
    return np.where(x > t)[0]


def argwhere_2d(m):
    return np.argwhere(m)


def count_nonzero(m):
    return np.count_nonzero(m)


def flatnonzero(m):
    return np.flatnonzero(m)


def cases(n, density, gen):
    x = gen.random(n)
    m = x < density
    a = gen.random(n)
    t = 1.0 - density
    side = int(math.sqrt(n))
    m2 = m[: side * side].reshape(side, side)
    return [
        ("a[mask]", mask_get, (a, m)),
        ("a[mask] = v", mask_set, (a.copy(), m)),
        ("np.nonzero(mask)", nonzero, (m,)),
        ("np.where(x > t)", where_cond, (x, t)),
        ("np.argwhere(2-D mask)", argwhere_2d, (m2,)),
        ("np.count_nonzero(mask)", count_nonzero, (m,)),
        ("np.flatnonzero(mask)", flatnonzero, (m,)),
    ]


def best(f, args, repeats):
    f(*args)
    t_best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        f(*args)
        t_best = min(t_best, time.perf_counter() - t0)
    return t_best


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=1_000_000, help="items (default 10^6)")
    p.add_argument("--repeats", type=int, default=50)
    p.add_argument("--json", help="write the rows here")
    opts = p.parse_args()
    import hpcjit
    import numba
    rows = []
    for label, density in (("sparse", 0.001), ("dense", 0.5)):
        for name, fn, args in cases(opts.n, density, np.random.default_rng(0)):
            fh, fn_nb = hpcjit.njit(fn), numba.njit(fn)
            got, want = fh(*[np.copy(x) if isinstance(x, np.ndarray) else x for x in args]), \
                fn_nb(*[np.copy(x) if isinstance(x, np.ndarray) else x for x in args])
            if not np.array_equal(np.asarray(got), np.asarray(want)):
                print(f"{name} ({label}): results differ", file=sys.stderr)
                return 1
            th = best(fh, args, opts.repeats)
            tn = best(fn_nb, args, opts.repeats)
            rows.append({"case": name, "mask": label, "hpcjit_us": th * 1e6, "numba_us": tn * 1e6,
                         "ratio": tn / th})
            print(f"{name:24s} {label:6s}  hpcjit {th * 1e6:9.1f} us  numba {tn * 1e6:9.1f} us  "
                  f"numba/hpcjit {tn / th:5.2f}", flush=True)
    g = math.exp(sum(math.log(r["ratio"]) for r in rows) / len(rows))
    print(f"geometric mean numba/hpcjit: {g:.2f}")
    if opts.json:
        with open(opts.json, "w") as fh:
            json.dump({"n": opts.n, "rows": rows, "geomean": g}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
