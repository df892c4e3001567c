"""All GPU benchmarks: python3 benchmarks/gpu/run_all.py --out DIR

Writes DIR/<benchmark>.json and .png and DIR/summary.json, prints each
table; says so and exits 0 where there is no GPU.  Each benchmark runs on
its own: one failing does not stop the others.  Under 2 minutes on an
H200."""
import argparse
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402
import launch_overhead  # noqa: E402
import matmul_reduce  # noqa: E402
import nccl_allreduce  # noqa: E402
import triad  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="gpu-bench", help="output directory")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    ok, dev = common.gpu_status()
    summary = {"gpu": ok, "device" if ok else "reason": dev, "benchmarks": {}}
    if not ok:
        print("GPU benchmarks: no GPU (%s): nothing measured" % dev)
        common.save(args.out, "summary", summary)
        return 0
    print("GPU benchmarks on %s" % dev, flush=True)
    for mod in (launch_overhead, triad, matmul_reduce, nccl_allreduce):
        name = mod.__name__
        t0 = time.perf_counter()
        try:
            res = mod.run(args.out)
            summary["benchmarks"][name] = {"ok": True, "seconds": time.perf_counter() - t0,
                                           "result": {k: v for k, v in res.items() if k != "table"}}
        except Exception as exc:  # noqa: BLE001 - report and go on
            traceback.print_exc()
            summary["benchmarks"][name] = {"ok": False, "error": "%s: %s" % (type(exc).__name__, exc),
                                           "seconds": time.perf_counter() - t0}
        print(flush=True)
    path = common.save(args.out, "summary", summary)
    print("results in %s" % os.path.dirname(os.path.abspath(path)))
    return 0 if all(b["ok"] for b in summary["benchmarks"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
