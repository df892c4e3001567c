"""A shared-memory tiled matmul (float32) and a block reduction (float32
sum) in hpcjit.cuda, against cuBLAS / the vendor reduction through CuPy or
PyTorch where installed."""
import argparse
import sys

import numpy as np

import common

TILE = 16
M = 2048
RN = 1 << 26


def matmul(A, B, C):
    sA = cuda.shared.array((TILE, TILE), np.float32)
    sB = cuda.shared.array((TILE, TILE), np.float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    acc = np.float32(0.0)
    for t in range(A.shape[1] // TILE):
        sA[ty, tx] = A[y, t * TILE + tx]
        sB[ty, tx] = B[t * TILE + ty, x]
        cuda.syncthreads()
        for k in range(TILE):
            acc += sA[ty, k] * sB[k, tx]
        cuda.syncthreads()
    C[y, x] = acc


RTPB = 256


def block_sum(a, out):
    sm = cuda.shared.array(RTPB, np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    acc = np.float32(0.0)
    while i < a.size:
        acc += a[i]
        i += stride
    sm[t] = acc
    cuda.syncthreads()
    s = RTPB // 2
    while s > 0:
        if t < s:
            sm[t] += sm[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        cuda.atomic.add(out, 0, sm[0])


cuda = None


def _vendor():
    cp = common.optional("cupy")
    if cp is not None:
        try:
            cp.cuda.runtime.getDeviceCount()
            return "cupy", cp
        except Exception:  # noqa: BLE001
            pass
    torch = common.optional("torch")
    if torch is not None and torch.cuda.is_available():
        return "torch", torch
    return None, None


def run(out_dir):
    global cuda
    ok, dev = common.gpu_status()
    if not ok:
        print("matmul_reduce: no GPU (%s): nothing measured" % dev)
        return {"gpu": False, "reason": dev}
    from hpcjit import cuda as hcuda
    cuda = hcuda
    rng = np.random.default_rng(0)
    hA = rng.random((M, M), dtype=np.float32)
    hB = rng.random((M, M), dtype=np.float32)
    A, B = hcuda.to_device(hA), hcuda.to_device(hB)
    C = hcuda.device_array((M, M), np.float32)
    k = hcuda.jit(matmul)
    grid = (M // TILE, M // TILE)
    ms, _ = common.time_events(lambda: k[grid, (TILE, TILE)](A, B, C), hcuda, reps=5)
    flops = 2.0 * M ** 3
    rows = [("hpcjit tiled matmul %d^3" % M, ms, flops / ms / 1e9, "TFLOP/s")]
    res = {"gpu": True, "device": dev, "M": M, "hpcjit_matmul_ms": ms,
           "hpcjit_matmul_TFLOPs": flops / ms / 1e9}  # ms: flops/ms/1e9 = TFLOP/s
    rows_sel = rng.integers(0, M, 8)
    ref = hA[rows_sel].astype(np.float64) @ hB.astype(np.float64)
    got = C.copy_to_host()[rows_sel]
    res["hpcjit_matmul_correct"] = bool(np.allclose(got, ref, rtol=1e-3))

    ha = rng.random(RN, dtype=np.float32)
    a = hcuda.to_device(ha)
    out = hcuda.device_array(1, np.float32)
    kr = hcuda.jit(block_sum)
    blocks = hcuda.get_current_device().MULTIPROCESSOR_COUNT * 8

    def reduce_once():
        out.copy_to_device(np.zeros(1, np.float32))
        kr[blocks, RTPB](a, out)
    rms, _ = common.time_events(reduce_once, hcuda)
    total = float(out.copy_to_host()[0])
    res.update(hpcjit_reduce_ms=rms, hpcjit_reduce_GBs=RN * 4 / rms / 1e6,
               hpcjit_reduce_correct=bool(abs(total - ha.sum(dtype=np.float64)) < 1e-3 * RN))
    rows.append(("hpcjit reduction 2^26 f32", rms, RN * 4 / rms / 1e6, "GB/s"))

    name, lib = _vendor()
    res["vendor"] = name
    try:
        if name == "cupy":
            cA, cB = lib.asarray(A), lib.asarray(B)
            vms, _ = common.time_events(lambda: cA @ cB, hcuda, reps=5)
            ca = lib.asarray(a)
            vrms, _ = common.time_events(lambda: ca.sum(), hcuda)
        elif name == "torch":
            tA, tB = lib.as_tensor(A, device="cuda"), lib.as_tensor(B, device="cuda")
            vms, _ = common.time_events(lambda: tA @ tB, hcuda, reps=5)
            ta = lib.as_tensor(a, device="cuda")
            vrms, _ = common.time_events(lambda: ta.sum(), hcuda)
        else:
            vms = vrms = None
        if vms:
            rows.append(("%s matmul (cuBLAS)" % name, vms, flops / vms / 1e9, "TFLOP/s"))
            rows.append(("%s sum" % name, vrms, RN * 4 / vrms / 1e6, "GB/s"))
            res.update(vendor_matmul_ms=vms, vendor_matmul_TFLOPs=flops / vms / 1e9,
                       vendor_reduce_ms=vrms, vendor_reduce_GBs=RN * 4 / vrms / 1e6)
    except Exception as exc:  # noqa: BLE001
        print("vendor comparison failed: %s" % exc, file=sys.stderr)
    res["table"] = common.table("Tiled matmul and reduction on %s (correct: %s, %s)"
                                % (dev, res["hpcjit_matmul_correct"], res["hpcjit_reduce_correct"]),
                                ["kernel", "ms", "rate", "unit"], rows)
    common.save(out_dir, "matmul_reduce", res)
    common.bar_png(out_dir, "matmul_reduce", "Matmul / reduction times, " + dev,
                   [r[0] for r in rows], {"ms": [r[1] for r in rows]}, "ms (lower is better)")
    return res


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="gpu-bench")
    run(ap.parse_args().out)
