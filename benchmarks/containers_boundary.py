"""Python lists crossing into and out of compiled code: hpcjit vs Numba (the
same source, both in one process, calls interleaved) on 10^6 floats:

- a Python list passed to a compiled function (Numba's reflected list:
  converted in, written back after the call);
- a list built in compiled code and returned (converted out);
- typed.List(python_list), the conversion Numba recommends instead of
  reflected lists;
- a typed.List passed to a compiled function (no conversion).

    PYTHONPATH=build/python python3 benchmarks/containers_boundary.py [--n N] [--repeat R] [--json]

Prints the best-of-R time of each and the ratio Numba/hpcjit (> 1: hpcjit
faster).  Each result is checked against CPython's."""
import argparse
import json
import time


def total(lst):
    t = 0.0
    for x in lst:
        t += x
    return t


def halves(n):
    return [i * 0.5 for i in range(n)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = ap.parse_args()
    import hpcjit
    import hpcjit.typed
    fw = {"hpcjit": (hpcjit.njit, hpcjit.typed.List)}
    try:
        import numba
        import numba.typed
        fw["numba"] = (numba.njit, numba.typed.List)
    except ImportError:
        pass
    data = [float(i) for i in range(args.n)]
    want_total, want_halves = total(data), halves(args.n)
    small = data[:10]
    cases = {}
    for name, (jit, TL) in fw.items():
        tot, hal = jit(total), jit(halves)
        assert tot(small) == total(small) and hal(10) == halves(10)  # compiled, checked
        typed = TL(data)
        assert tot(typed) == want_total
        cases[name] = [
            ("reflected list in (sum)", lambda tot=tot: tot(data), want_total),
            ("list returned", lambda hal=hal: hal(args.n), want_halves),
            ("typed.List(list)", lambda TL=TL: len(TL(data)), args.n),
            ("typed.List in (sum)", lambda tot=tot, typed=typed: tot(typed), want_total),
        ]
    rows = []
    for k in range(len(cases["hpcjit"])):
        best = {}
        for _ in range(args.repeat):
            for name in cases:
                label, fn, want = cases[name][k]
                t0 = time.perf_counter()
                got = fn()
                dt = time.perf_counter() - t0
                assert got == want, (name, label)
                best[name] = min(best.get(name, float("inf")), dt)
        row = {"case": cases["hpcjit"][k][0], **{n: v * 1e3 for n, v in best.items()}}
        if "numba" in best:
            row["numba/hpcjit"] = best["numba"] / best["hpcjit"]
        rows.append(row)
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"{'case':26s} {'hpcjit ms':>10s} {'numba ms':>10s} {'ratio':>8s}")
    for r in rows:
        print(f"{r['case']:26s} {r['hpcjit']:10.2f} {r.get('numba', float('nan')):10.2f} "
              f"{r.get('numba/hpcjit', float('nan')):8.2f}")


if __name__ == "__main__":
    main()
