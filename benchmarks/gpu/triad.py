"""STREAM triad a = b + s*c (float64) as a fraction of the device's measured
copy bandwidth (cuMemcpyDtoD; goal >= 90%), hpcjit.cuda and numba-cuda.
Bandwidth counts the bytes each kernel must move: 3 arrays for the triad,
2 (read + write) for the copy."""
import argparse
import sys

import numpy as np

import common

N = 1 << 26   # 512 MiB per float64 array


def triad(a, b, c, s):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = b[i] + s * c[i]


cuda = None


def run(out_dir, n=N):
    global cuda
    ok, dev = common.gpu_status()
    if not ok:
        print("triad: no GPU (%s): nothing measured" % dev)
        return {"gpu": False, "reason": dev}
    from hpcjit import cuda as hcuda
    cuda = hcuda
    nbytes = n * 8
    b = hcuda.to_device(np.random.default_rng(0).random(n))
    c = hcuda.to_device(np.random.default_rng(1).random(n))
    a = hcuda.device_array(n)
    copy_ms, _ = common.time_events(lambda: a.copy_to_device(b), hcuda)
    copy_bw = 2 * nbytes / copy_ms / 1e6          # GB/s
    k = hcuda.jit(triad)
    tpb = 256
    blocks = (n + tpb - 1) // tpb
    ms, med = common.time_events(lambda: k[blocks, tpb](a, b, c, 3.0), hcuda)
    h_bw = 3 * nbytes / ms / 1e6
    sample = np.random.default_rng(2).integers(0, n, 1000)
    ha, hb, hc = a.copy_to_host(), b.copy_to_host(), c.copy_to_host()
    correct = bool(np.allclose(ha[sample], hb[sample] + 3.0 * hc[sample]))
    del ha, hb, hc
    rows = [("device copy (DtoD)", copy_ms, copy_bw, 1.0),
            ("hpcjit triad", ms, h_bw, h_bw / copy_bw)]
    res = {"gpu": True, "device": dev, "n": n, "copy_GBs": copy_bw, "hpcjit_GBs": h_bw,
           "hpcjit_fraction": h_bw / copy_bw, "hpcjit_correct": correct, "hpcjit_ms": ms}
    ncuda = common.numba_cuda()
    if ncuda is not None:
        try:
            cuda = ncuda
            nb = ncuda.as_cuda_array(b)
            nc = ncuda.as_cuda_array(c)
            na = ncuda.as_cuda_array(a)
            kn = ncuda.jit(triad)
            nms, _ = common.time_events(lambda: kn[blocks, tpb](na, nb, nc, 3.0), hcuda)
            n_bw = 3 * nbytes / nms / 1e6
            rows.append(("numba-cuda triad", nms, n_bw, n_bw / copy_bw))
            res.update(numba_GBs=n_bw, numba_fraction=n_bw / copy_bw, numba_ms=nms)
        except Exception as exc:  # noqa: BLE001
            print("numba-cuda triad failed: %s" % exc, file=sys.stderr)
        finally:
            cuda = hcuda
    res["table"] = common.table("Triad a = b + s*c, n = %d float64, on %s (correct: %s)"
                                % (n, dev, correct), ["kernel", "ms", "GB/s", "of copy"], rows)
    common.save(out_dir, "triad", res)
    common.bar_png(out_dir, "triad", "Triad bandwidth, " + dev, [r[0] for r in rows],
                   {"GB/s": [r[2] for r in rows]}, "GB/s")
    return res


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="gpu-bench")
    run(ap.parse_args().out)
