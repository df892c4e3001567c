"""Strong scaling of hpcjit prange loops: a compute-bound kernel and a
memory-bound one (STREAM triad) on 1..N threads, with speedup and parallel
efficiency, as a table and as a PNG plot (written without matplotlib).

    PYTHONPATH=build/python python3 benchmarks/scaling/scaling.py [--max-threads N] [--png FILE]

N defaults to hpcjit's thread plan (HPCJIT_NUM_THREADS, else the affinity
mask).  Medians of several rounds; rerun on an idle machine before quoting."""
import argparse
import math
import statistics
import struct
import time
import zlib

import numpy as np

import hpcjit
from hpcjit import njit, prange


@njit(parallel=True)
def compute(a):
    s = 0.0
    for i in prange(a.shape[0]):
        x = a[i]
        for _ in range(16):
            x = math.sin(x) * 0.5 + math.sqrt(x * x + 1.0)
        s += x
    return s


@njit(parallel=True)
def triad(out, a, b, k):
    for i in prange(a.shape[0]):
        out[i] = a[i] + k * b[i]
    return 0


def timed(fn, args, rounds):
    fn(*args)
    ts = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn(*args)
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


# ---- a minimal PNG line plot ---------------------------------------------------

def _png(path, w, h, px):
    raw = b"".join(b"\x00" + bytes(px[y * w * 3:(y + 1) * w * 3]) for y in range(h))
    def chunk(tag, data):
        c = struct.pack(">I", len(data)) + tag + data
        return c + struct.pack(">I", zlib.crc32(tag + data) & 0xffffffff)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def plot(path, series, maxt):
    """series: [(label, rgb, [(threads, speedup)])]; the ideal line in grey."""
    w, h, m = 480, 360, 40
    px = bytearray(b"\xff" * (w * h * 3))
    def put(x, y, c):
        if 0 <= x < w and 0 <= y < h:
            i = (y * w + x) * 3
            px[i:i + 3] = bytes(c)
    def to(t, s):
        return (m + (t - 1) / max(maxt - 1, 1) * (w - 2 * m), h - m - (s - 1) / max(maxt - 1, 1) * (h - 2 * m))
    def line(p, q, c, thick=1):
        n = int(max(abs(q[0] - p[0]), abs(q[1] - p[1]))) + 1
        for k in range(n + 1):
            x = p[0] + (q[0] - p[0]) * k / n
            y = p[1] + (q[1] - p[1]) * k / n
            for dx in range(-thick + 1, thick):
                for dy in range(-thick + 1, thick):
                    put(int(x) + dx, int(y) + dy, c)
    line((m, h - m), (w - m, h - m), (0, 0, 0))
    line((m, h - m), (m, m), (0, 0, 0))
    for t in range(1, maxt + 1):
        x, y = to(t, 1)
        line((x, h - m), (x, h - m + 5), (0, 0, 0))
        x, y = to(1, t)
        line((m - 5, y), (m, y), (0, 0, 0))
    line(to(1, 1), to(maxt, maxt), (170, 170, 170))
    for _, rgb, pts in series:
        for a, b in zip(pts, pts[1:]):
            line(to(*a), to(*b), rgb, 2)
        for p in pts:
            x, y = to(*p)
            for dx in range(-3, 4):
                for dy in range(-3, 4):
                    put(int(x) + dx, int(y) + dy, rgb)
    _png(path, w, h, px)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-threads", type=int, default=hpcjit.get_num_threads())
    ap.add_argument("--n-compute", type=int, default=2_000_000)
    ap.add_argument("--n-memory", type=int, default=20_000_000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--png", default="scaling.png")
    args = ap.parse_args()
    maxt = max(1, min(args.max_threads, hpcjit.get_num_threads()))
    rng = np.random.default_rng(0)
    ac = rng.random(args.n_compute)
    am, bm, om = rng.random(args.n_memory), rng.random(args.n_memory), np.empty(args.n_memory)
    kernels = [("compute", (200, 40, 40), compute, (ac,)), ("triad", (40, 90, 200), triad, (om, am, bm, 3.0))]
    results = {name: [] for name, *_ in kernels}
    for t in range(1, maxt + 1):
        hpcjit.set_num_threads(t)
        for name, _, fn, fargs in kernels:
            results[name].append(timed(fn, fargs, args.rounds))
    print(f"strong scaling, {maxt} threads max; median of {args.rounds} rounds")
    print(f"{'threads':>7} {'compute ms':>11} {'speedup':>8} {'eff':>6} {'triad ms':>9} {'GB/s':>7} {'speedup':>8} {'eff':>6}")
    for t in range(1, maxt + 1):
        c, m = results["compute"][t - 1], results["triad"][t - 1]
        sc, sm = results["compute"][0] / c, results["triad"][0] / m
        gbs = 3 * 8 * args.n_memory / m / 1e9
        print(f"{t:>7} {c * 1e3:>11.2f} {sc:>8.2f} {sc / t:>6.0%} {m * 1e3:>9.2f} {gbs:>7.1f} {sm:>8.2f} {sm / t:>6.0%}")
    series = [(name, rgb, [(t, results[name][0] / results[name][t - 1]) for t in range(1, maxt + 1)])
              for name, rgb, *_ in kernels]
    plot(args.png, series, max(maxt, 2))
    print(f"plot: {args.png} (speedup vs threads; red compute, blue triad, grey ideal)")


if __name__ == "__main__":
    main()
