"""str in compiled code: hpcjit vs Numba vs CPython (the same source) on a
text of 10^5 lines: split/join of each line, counting words in a dict of
str -> int, strip/upper/startswith per line, building strs with str(n).

    PYTHONPATH=build/python python3 benchmarks/strings.py [--lines N] [--repeat R] [--json]

Prints the best-of-R time of each (calls interleaved) and the ratios
Numba/hpcjit and CPython/hpcjit (target >= 1.0)."""
import argparse
import json
import time

import numpy as np


def split_join(text):
    total = 0
    for line in text.split("\n"):
        parts = line.split(",")
        total += len("|".join(parts))
    return total


def word_count(text):
    d = {}
    for w in text.split():
        if w in d:
            d[w] += 1
        else:
            d[w] = 1
    best, arg = 0, ""
    for k, v in d.items():
        if v > best:
            best, arg = v, k
    return len(d), arg, best


def clean_lines(text):
    n = 0
    for line in text.split("\n"):
        s = line.strip().upper()
        if s.startswith("W1") or s.endswith("7"):
            n += len(s)
    return n


def build_strs(n):
    out = []
    for i in range(n):
        out.append("k" + str(i))
    return len(",".join(out))


KERNELS = [("split/join lines", split_join, "text"), ("word count (dict)", word_count, "text"),
           ("strip/upper/startswith", clean_lines, "text"), ("str(i) + join", build_strs, "n")]


def make_text(lines, seed=0):
    gen = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(5000)] + ["é", "naïve", "日本"]
    idx = gen.integers(0, len(words), (lines, 8))
    return "\n".join("  " + ", ".join(words[j] for j in row) + " " for row in idx)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = ap.parse_args()
    import hpcjit
    try:
        import numba
    except ImportError:
        numba = None
    text = make_text(args.lines)
    small = make_text(200, seed=1)
    rows = []
    for name, fn, kind in KERNELS:
        arg, warm = (text, small) if kind == "text" else (args.lines, 200)
        cands = {"hpcjit": hpcjit.njit(fn), "cpython": fn}
        if numba is not None:
            cands["numba"] = numba.njit(fn)
        ref = fn(warm)
        for c in cands.values():
            assert c(warm) == ref, name  # warm up and check
        best = {k: float("inf") for k in cands}
        for _ in range(args.repeat):
            for k, c in cands.items():
                t0 = time.perf_counter()
                c(arg)
                best[k] = min(best[k], time.perf_counter() - t0)
        row = {"kernel": name, **{k: v * 1e3 for k, v in best.items()}}
        if "numba" in best:
            row["numba/hpcjit"] = best["numba"] / best["hpcjit"]
        row["cpython/hpcjit"] = best["cpython"] / best["hpcjit"]
        rows.append(row)
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"{'kernel':24s} {'hpcjit ms':>10s} {'numba ms':>10s} {'cpython ms':>10s} {'numba/hj':>9s} {'cpy/hj':>7s}")
    for r in rows:
        print(f"{r['kernel']:24s} {r['hpcjit']:10.2f} {r.get('numba', float('nan')):10.2f} {r['cpython']:10.2f} "
              f"{r.get('numba/hpcjit', float('nan')):9.2f} {r['cpython/hpcjit']:7.2f}")


if __name__ == "__main__":
    main()
