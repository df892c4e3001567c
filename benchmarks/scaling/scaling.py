"""Strong scaling of hpcjit prange loops: a compute-bound kernel and a
memory-bound one (STREAM triad) on 1..N threads, with speedup and parallel
efficiency, as a markdown table (stdout, --md FILE), as JSON (--json FILE)
and as a PNG plot (--png FILE, matplotlib; a built-in writer when matplotlib
is missing).

    PYTHONPATH=build/python python3 benchmarks/scaling/scaling.py [--max-threads N]
        [--rounds R] [--png FILE] [--json FILE] [--md FILE]

N defaults to hpcjit's thread plan (HPCJIT_NUM_THREADS, else the affinity
mask).  The rounds are interleaved over the thread counts (round r runs
every thread count in turn), so that a change in machine load hits all of
them alike; the table uses medians, the JSON has every sample."""
import argparse
import json
import math
import os
import platform
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


def once(fn, args):
    t0 = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0


# ---- a minimal PNG line plot ---------------------------------------------------

def _png(path, w, h, px):
    raw = b"".join(b"\x00" + bytes(px[y * w * 3:(y + 1) * w * 3]) for y in range(h))
    def chunk(tag, data):
        c = struct.pack(">I", len(data)) + tag + data
        return c + struct.pack(">I", zlib.crc32(tag + data) & 0xffffffff)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def plot_builtin(path, series, maxt):
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


def plot(path, series, maxt, title):
    """Speedup against threads, with the ideal line; matplotlib when it is
    installed.  Returns the writer used."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        plot_builtin(path, series, maxt)
        return "built-in"
    fig, ax = plt.subplots(figsize=(6, 4.5), dpi=100)
    ts = list(range(1, maxt + 1))
    ax.plot(ts, ts, color="0.6", linestyle="--", label="ideal")
    for label, rgb, pts in series:
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", color=tuple(c / 255 for c in rgb),
                label=label)
    ax.set_xlabel("threads")
    ax.set_ylabel("speedup over 1 thread")
    ax.set_xticks(ts)
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return "matplotlib"


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-threads", type=int, default=hpcjit.get_num_threads())
    ap.add_argument("--n-compute", type=int, default=2_000_000)
    ap.add_argument("--n-memory", type=int, default=20_000_000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--png", default="scaling.png")
    ap.add_argument("--json", help="write the figures and every sample here")
    ap.add_argument("--md", help="write the markdown table here too")
    args = ap.parse_args()
    maxt = max(1, min(args.max_threads, hpcjit.get_num_threads()))
    rng = np.random.default_rng(0)
    ac = rng.random(args.n_compute)
    am, bm, om = rng.random(args.n_memory), rng.random(args.n_memory), np.empty(args.n_memory)
    kernels = [("compute", (200, 40, 40), compute, (ac,)), ("triad", (40, 90, 200), triad, (om, am, bm, 3.0))]
    samples = {name: {t: [] for t in range(1, maxt + 1)} for name, *_ in kernels}
    for t in range(1, maxt + 1):  # warm up: compile, first touch, pool start
        hpcjit.set_num_threads(t)
        for name, _, fn, fargs in kernels:
            fn(*fargs)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for _ in range(args.rounds):
        for t in range(1, maxt + 1):
            hpcjit.set_num_threads(t)
            for name, _, fn, fargs in kernels:
                samples[name][t].append(once(fn, fargs))
    cpu_ratio = (time.process_time() - cpu0) / (time.perf_counter() - wall0)
    med = {name: [statistics.median(samples[name][t]) for t in range(1, maxt + 1)] for name in samples}
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = float("nan")
    machine = f"{os.cpu_count()} CPUs online, {cpu_model()}"
    rows = []
    for t in range(1, maxt + 1):
        c, m = med["compute"][t - 1], med["triad"][t - 1]
        sc, sm = med["compute"][0] / c, med["triad"][0] / m
        rows.append({"threads": t, "compute_ms": c * 1e3, "compute_speedup": sc, "compute_efficiency": sc / t,
                     "triad_ms": m * 1e3, "triad_gbs": 3 * 8 * args.n_memory / m / 1e9, "triad_speedup": sm,
                     "triad_efficiency": sm / t})
    lines = [f"Strong scaling, 1..{maxt} threads; median of {args.rounds} interleaved rounds; "
             f"{machine}; load average {load:.1f} at the end; process CPU / wall time {cpu_ratio:.2f}",
             "",
             "| threads | compute (ms) | speedup | efficiency | triad (ms) | triad (GB/s) | speedup | efficiency |",
             "|--------:|-------------:|--------:|-----------:|-----------:|-------------:|--------:|-----------:|"]
    for r in rows:
        lines.append(f"| {r['threads']} | {r['compute_ms']:.2f} | {r['compute_speedup']:.2f} | "
                     f"{r['compute_efficiency']:.0%} | {r['triad_ms']:.2f} | {r['triad_gbs']:.1f} | "
                     f"{r['triad_speedup']:.2f} | {r['triad_efficiency']:.0%} |")
    table = "\n".join(lines)
    print(table)
    if args.md:
        with open(args.md, "w") as f:
            f.write(table + "\n")
    series = [(name, rgb, [(t, med[name][0] / med[name][t - 1]) for t in range(1, maxt + 1)])
              for name, rgb, *_ in kernels]
    title = f"hpcjit prange strong scaling ({machine}, load {load:.1f})"
    writer = plot(args.png, series, max(maxt, 2), title)
    print(f"plot: {args.png} ({writer}; speedup vs threads: red compute, blue triad, grey ideal)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": machine, "load_average": load, "cpu_over_wall": cpu_ratio,
                       "rounds": args.rounds, "n_compute": args.n_compute, "n_memory": args.n_memory,
                       "rows": rows,
                       "samples_s": {name: {str(t): v for t, v in d.items()} for name, d in samples.items()}},
                      f, indent=1)
        print(f"json: {args.json}")


if __name__ == "__main__":
    main()
