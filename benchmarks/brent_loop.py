"""Issue 15: a Brent-style bracketing loop (QuantEcon's brentq written out,
no calls, no namedtuple; once with every variable assigned before the
loop, once as QuantEcon has it) and numbagg's grouped NaN-sum over `range`, timed
under hpcjit and Numba in one process, calls interleaved.

    PYTHONPATH=build/python python3 benchmarks/brent_loop.py [--repeat 15] [--rounds 5] [--dump DIR]

Prints, per kernel, the best CPU time per call (time.process_time) of each
round for both compilers, the range over the rounds and the ratio of the
medians (> 1: hpcjit faster).  Every result is checked against CPython's.
--dump writes both compilers' optimized IR and assembly of each kernel.
"""
import argparse
import math
import os
import statistics
import time

import numpy as np


def brent_roots(n):
    # QuantEcon's brentq on f(x) = x**3 - a*x - 1 over [1, 3], inlined
    out = np.empty(n)
    xtol = 2e-12
    rtol = 4 * np.finfo(np.float64).eps
    for i in range(n):
        a = 1.0 + i / n
        xpre = 1.0
        xcur = 3.0
        fpre = xpre ** 3 - a * xpre - 1.0
        fcur = xcur ** 3 - a * xcur - 1.0
        xblk = 0.0
        fblk = 0.0
        spre = 0.0
        scur = 0.0
        root = 0.0
        for itr in range(100):
            if fpre * fcur < 0:
                xblk = xpre
                fblk = fpre
                spre = scur = xcur - xpre
            if abs(fblk) < abs(fcur):
                xpre = xcur
                xcur = xblk
                xblk = xpre
                fpre = fcur
                fcur = fblk
                fblk = fpre
            delta = (xtol + rtol * abs(xcur)) / 2
            sbis = (xblk - xcur) / 2
            if fcur == 0 or abs(sbis) < delta:
                root = xcur
                break
            if abs(spre) > delta and abs(fcur) < abs(fpre):
                if xpre == xblk:
                    stry = -fcur * (xcur - xpre) / (fcur - fpre)
                else:
                    dpre = (fpre - fcur) / (xpre - xcur)
                    dblk = (fblk - fcur) / (xblk - xcur)
                    stry = -fcur * (fblk * dblk - fpre * dpre) / (dblk * dpre * (fblk - fpre))
                if 2 * abs(stry) < min(abs(spre), 3 * abs(sbis) - delta):
                    spre = scur
                    scur = stry
                else:
                    spre = sbis
                    scur = sbis
            else:
                spre = sbis
                scur = sbis
            xpre = xcur
            fpre = fcur
            if abs(scur) > delta:
                xcur += scur
            else:
                xcur += (delta if sbis > 0 else -delta)
            fcur = xcur ** 3 - a * xcur - 1.0
        out[i] = root
    return out


# as QuantEcon writes it: xblk, fblk, spre and scur first assigned in the
# loop, so each read checks that they are bound (UnboundLocalError)
def brent_roots_unbound(n):
    # QuantEcon's brentq on f(x) = x**3 - a*x - 1 over [1, 3], inlined
    out = np.empty(n)
    xtol = 2e-12
    rtol = 4 * np.finfo(np.float64).eps
    for i in range(n):
        a = 1.0 + i / n
        xpre = 1.0
        xcur = 3.0
        fpre = xpre ** 3 - a * xpre - 1.0
        fcur = xcur ** 3 - a * xcur - 1.0
        root = 0.0
        for itr in range(100):
            if fpre * fcur < 0:
                xblk = xpre
                fblk = fpre
                spre = scur = xcur - xpre
            if abs(fblk) < abs(fcur):
                xpre = xcur
                xcur = xblk
                xblk = xpre
                fpre = fcur
                fcur = fblk
                fblk = fpre
            delta = (xtol + rtol * abs(xcur)) / 2
            sbis = (xblk - xcur) / 2
            if fcur == 0 or abs(sbis) < delta:
                root = xcur
                break
            if abs(spre) > delta and abs(fcur) < abs(fpre):
                if xpre == xblk:
                    stry = -fcur * (xcur - xpre) / (fcur - fpre)
                else:
                    dpre = (fpre - fcur) / (xpre - xcur)
                    dblk = (fblk - fcur) / (xblk - xcur)
                    stry = -fcur * (fblk * dblk - fpre * dpre) / (dblk * dpre * (fblk - fpre))
                if 2 * abs(stry) < min(abs(spre), 3 * abs(sbis) - delta):
                    spre = scur
                    scur = stry
                else:
                    spre = sbis
                    scur = sbis
            else:
                spre = sbis
                scur = sbis
            xpre = xcur
            fpre = fcur
            if abs(scur) > delta:
                xcur += scur
            else:
                xcur += (delta if sbis > 0 else -delta)
            fcur = xcur ** 3 - a * xcur - 1.0
        out[i] = root
    return out


def group_nansum_range(values, labels, out):
    # gufunc_rows.py's kernel body (its guvectorize'd group_nansum_range),
    # compiled with the signature guvectorize gives it: strided 1-d arrays
    out[:] = 0
    for i in range(values.shape[0]):
        g = labels[i]
        v = values[i]
        if g >= 0 and not np.isnan(v):
            out[g] += v


def _cpu_best(fn, repeat):
    best = math.inf
    for _ in range(repeat):
        c0 = time.process_time()
        fn()
        best = min(best, time.process_time() - c0)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--dump", help="write IR and assembly here")
    args = ap.parse_args()
    import hpcjit
    import numba
    rng = np.random.default_rng(42)
    vals = rng.standard_normal(100000).cumsum()
    vals[rng.random(vals.shape) < 0.05] = np.nan
    labels = (np.arange(100000) % 365).astype(np.int64)
    want_roots = brent_roots(200)
    want_sum = np.empty(365)
    group_nansum_range(vals, labels, want_sum)
    kernels = {}
    for name, jit in (("hpcjit", hpcjit.njit), ("numba", numba.njit)):
        # the gufunc's kernel: layout-"A" (strided) arrays, as guvectorize passes them
        br, gs = jit(brent_roots), jit("void(float64[:], int64[:], float64[:])")(group_nansum_range)
        bu = jit(brent_roots_unbound)
        assert np.allclose(br(200), want_roots, rtol=1e-14, atol=0), name  # x ** 3: pow() in CPython
        assert np.allclose(bu(200), want_roots, rtol=1e-14, atol=0), name
        got = np.empty(365)
        gs(vals, labels, got)
        assert np.allclose(got, want_sum), name
        res = np.empty(365)
        kernels[name] = {"brent_roots(%d)" % args.n: (br, lambda br=br: br(args.n)),
                         "brent_roots_unbound(%d)" % args.n: (bu, lambda bu=bu: bu(args.n)),
                         "group_nansum_range(1e5)": (gs, lambda gs=gs, res=res: gs(vals, labels, res))}
        if args.dump:
            os.makedirs(args.dump, exist_ok=True)
            for kname, (f, _) in kernels[name].items():
                stem = os.path.join(args.dump, f"{kname.split('(')[0]}.{name}")
                with open(stem + ".ll", "w") as fh:
                    fh.write("\n".join(f.inspect_llvm().values()))
                with open(stem + ".s", "w") as fh:
                    fh.write("\n".join(f.inspect_asm().values()))
    load0 = os.getloadavg()
    times = {(k, fw): [] for fw in kernels for k in kernels[fw]}
    for _ in range(args.rounds):
        for k in kernels["hpcjit"]:
            for fw in ("hpcjit", "numba"):
                times[(k, fw)].append(_cpu_best(kernels[fw][k][1], args.repeat))
    load1 = os.getloadavg()
    print(f"numba {numba.__version__}, numpy {np.__version__}; load average {load0[0]:.1f} before, "
          f"{load1[0]:.1f} after; best CPU ms of {args.repeat} per round, {args.rounds} rounds")
    print("| kernel | hpcjit ms (median; range) | Numba ms (median; range) | Numba / hpcjit |")
    print("|---|---:|---:|---:|")
    for k in kernels["hpcjit"]:
        h = [t * 1e3 for t in times[(k, "hpcjit")]]
        nb = [t * 1e3 for t in times[(k, "numba")]]
        print(f"| {k} | {statistics.median(h):.3f} ({min(h):.3f}-{max(h):.3f}) "
              f"| {statistics.median(nb):.3f} ({min(nb):.3f}-{max(nb):.3f}) "
              f"| {statistics.median(nb) / statistics.median(h):.2f}x |")


if __name__ == "__main__":
    main()
