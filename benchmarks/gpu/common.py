"""Shared helpers of the GPU benchmarks: GPU detection, timing with CUDA
events, optional competitors (numba-cuda, CuPy, PyTorch), tables, JSON
and PNG output."""
import json
import os
import statistics
import time

import numpy as np

os.environ.pop("HPCJIT_CUDA_SIM", None)
os.environ.pop("NUMBA_ENABLE_CUDASIM", None)


def gpu_status():
    """(True, device name) or (False, why)."""
    try:
        from hpcjit import cuda
        if cuda.is_available():
            dev = cuda.get_current_device()
            return True, "%s (sm_%d%d)" % ((dev.name.decode(),) + dev.compute_capability)
        from hpcjit.cuda.cudadrv import driver
        return False, driver.driver_status()[1] or "no CUDA device"
    except Exception as exc:  # noqa: BLE001 - any failure is the reason
        return False, "%s: %s" % (type(exc).__name__, exc)


def numba_cuda():
    """The real numba.cuda (numba-cuda) or None."""
    try:
        import numba
        if getattr(numba, "__hpcjit__", False):
            return None
        import numpy as np
        if not hasattr(np, "row_stack"):
            # numba-cuda 0.30 still names np.row_stack, which NumPy 2.5
            # removed; the alias lets it import for the comparison
            np.row_stack = np.vstack
        from numba import cuda as ncuda
        if not ncuda.is_available():
            return None
        return ncuda
    except Exception:  # noqa: BLE001 - absent or broken: not compared
        return None


def optional(name):
    try:
        return __import__(name)
    except Exception:  # noqa: BLE001
        return None


def time_events(fn, cuda, reps=10, warmup=2):
    """Best and median milliseconds of fn() on the default stream, timed with events."""
    for _ in range(warmup):
        fn()
    cuda.synchronize()
    times = []
    for _ in range(reps):
        e0, e1 = cuda.event(), cuda.event()
        e0.record()
        fn()
        e1.record()
        e1.synchronize()
        times.append(cuda.event_elapsed_time(e0, e1))
    return min(times), statistics.median(times)


def host_time_per_call(fn, sync, calls=200, bursts=15):
    """Best host time (microseconds) per call over bursts of `calls` calls,
    synchronising between bursts (not timed), so the launch queue never
    fills and only host work is measured."""
    best = float("inf")
    for _ in range(bursts):
        sync()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        t = (time.perf_counter() - t0) / calls
        best = min(best, t)
    sync()
    return best * 1e6


def table(title, header, rows):
    widths = [max(len(str(h)), *(len(_fmt(r[i])) for r in rows)) for i, h in enumerate(header)]
    lines = [title, "  ".join(str(h).rjust(w) for h, w in zip(header, widths))]
    for r in rows:
        lines.append("  ".join(_fmt(v).rjust(w) for v, w in zip(r, widths)))
    text = "\n".join(lines)
    print(text, flush=True)
    return text


def _fmt(v):
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return "%.3g" % v if abs(v) < 100 else "%.1f" % v
    return str(v)


def save(out_dir, name, data):
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, name + ".json")
    with open(path, "w") as f:
        json.dump(data, f, indent=2, default=float)
    return path


def bar_png(out_dir, name, title, labels, series, ylabel):
    """series: {legend: [value or None per label]}; None when matplotlib is absent."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception:  # noqa: BLE001
        return None
    fig, ax = plt.subplots(figsize=(7, 4))
    n = len(series)
    width = 0.8 / max(n, 1)
    x = np.arange(len(labels))
    for i, (legend, vals) in enumerate(series.items()):
        ax.bar(x + i * width - 0.4 + width / 2, [v if v is not None else 0 for v in vals], width,
               label=legend)
    ax.set_xticks(x)
    ax.set_xticklabels(labels)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    path = os.path.join(out_dir, name + ".png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
