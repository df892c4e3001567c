"""NCCL allreduce of device arrays through hpcjit.mpi, float32 sum, from
8 B to 256 MiB, with nccl-tests' conventions: algbw = bytes / time, busbw
= algbw * 2 (n - 1) / n for n ranks (0 on one rank: nothing crosses a
link, the figure is NCCL's local copy), time = the median of 20 calls
timed with CUDA events after 5 warm-ups, out of place.  Also the host time
of one small call (hpcjit's Python path into ncclAllReduce).  Run it on
every rank (`hpcjit run -n N python3 benchmarks/gpu/nccl_allreduce.py`);
rank 0 prints and saves."""
import argparse

import numpy as np

import common

SIZES = [8 << (2 * k) for k in range(13)] + [256 << 20]   # 8 B .. 128 MiB, 256 MiB


def run(out_dir, sizes=SIZES):
    ok, dev = common.gpu_status()
    if not ok:
        print("nccl_allreduce: no GPU (%s): nothing measured" % dev)
        return {"gpu": False, "reason": dev}
    from hpcjit import cuda, mpi
    if not mpi.available():
        print("nccl_allreduce: hpcjit was built without MPI: nothing measured")
        return {"gpu": True, "skipped": "no MPI"}
    from hpcjit.cuda import nccl
    nok, why = nccl.available()
    if not nok:
        print("nccl_allreduce: no NCCL (%s): nothing measured" % why)
        return {"gpu": True, "skipped": "no NCCL: " + why}
    n, me = mpi.size(), mpi.rank()
    rows, res = [], {"gpu": True, "device": dev, "ranks": n, "sizes": []}
    for nbytes in sizes:
        count = max(nbytes // 4, 1)
        x = cuda.to_device(np.ones(count, np.float32))
        r = cuda.device_array(count, np.float32)
        _, med = common.time_events(lambda: mpi.allreduce(x, r, mpi.SUM), cuda, reps=20, warmup=5)
        correct = bool(r.copy_to_host()[:8].tolist() == [float(n)] * min(8, count))
        algbw = count * 4 / med / 1e6          # GB/s
        busbw = algbw * 2 * (n - 1) / n
        rows.append((count * 4, med * 1e3, algbw, busbw, correct))
        res["sizes"].append({"bytes": count * 4, "us": med * 1e3, "algbw_GBs": algbw,
                             "busbw_GBs": busbw, "correct": correct})
        del x, r
    x = cuda.to_device(np.ones(2, np.float32))
    r = cuda.device_array(2, np.float32)
    host_us = common.host_time_per_call(lambda: mpi.allreduce(x, r, mpi.SUM), cuda.synchronize)
    res["host_us_small_call"] = host_us
    if me != 0:
        return res
    res["table"] = common.table(
        "NCCL allreduce (float32 sum) through hpcjit.mpi, %d rank(s), on %s; host time of an "
        "8-byte call %.2f us" % (n, dev, host_us),
        ["bytes", "time us", "algbw GB/s", "busbw GB/s", "correct"], rows)
    common.save(out_dir, "nccl_allreduce", res)
    common.bar_png(out_dir, "nccl_allreduce", "NCCL allreduce algbw, %d rank(s), %s" % (n, dev),
                   [_size(b[0]) for b in rows], {"algbw GB/s": [b[2] for b in rows]}, "GB/s")
    return res


def _size(b):
    for unit, k in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= k:
            return "%d %s" % (b // k, unit)
    return "%d B" % b


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="gpu-bench")
    run(ap.parse_args().out)
