"""Host time per kernel launch with 0, 1, 3 and 8 device-array arguments:
hpcjit.cuda against numba-cuda on the same device (goal: < 4 us, ahead of
numba-cuda).  The kernels do nothing; launches go in bursts of 200 with a
synchronisation (not timed) between bursts, so only host work counts."""
import argparse
import sys

import common

NARGS = (0, 1, 3, 8)


# written out (not generated with exec): the compilers read kernels' source
def k0():
    pass


def k1(a0):
    if cuda.threadIdx.x == 12345:
        a0[0] = 1


def k3(a0, a1, a2):
    if cuda.threadIdx.x == 12345:
        a0[0] = 1


def k8(a0, a1, a2, a3, a4, a5, a6, a7):
    if cuda.threadIdx.x == 12345:
        a0[0] = 1


KERNELS = {0: k0, 1: k1, 3: k3, 8: k8}
cuda = None  # the module the kernels name: set before each compilation


def _make(cudamod, n):
    global cuda
    cuda = cudamod
    return cudamod.jit(KERNELS[n])


def cupy_raw_launch(n):
    """Host time of the same empty launch through CuPy's RawKernel (a C++
    kernel compiled by NVRTC, launched from Cython): a third-party figure
    for what the driver and a thin binding cost on this device, or None."""
    cp = common.optional("cupy")
    if cp is None:
        return None
    try:
        params = ", ".join("float* a%d" % i for i in range(n))
        k = cp.RawKernel('extern "C" __global__ void k(%s) {}' % params, "k")
        arrs = [cp.empty(256, cp.float32) for _ in range(n)]
        k((1,), (32,), tuple(arrs))
        sync = cp.cuda.Device().synchronize
        return common.host_time_per_call(lambda: k((1,), (32,), tuple(arrs)), sync)
    except Exception as exc:  # noqa: BLE001
        print("cupy RawKernel failed for %d args: %s" % (n, exc), file=sys.stderr)
        return None


def run(out_dir):
    ok, dev = common.gpu_status()
    if not ok:
        print("launch_overhead: no GPU (%s): nothing measured" % dev)
        return {"gpu": False, "reason": dev}
    from hpcjit import cuda as hcuda
    import numpy as np
    ncuda = common.numba_cuda()
    cuda = hcuda
    rows, res = [], {"gpu": True, "device": dev, "unit": "us per launch (host)", "hpcjit": {},
                     "numba_cuda": {}, "hpcjit_configure_and_launch": {},
                     "numba_cuda_configure_and_launch": {}, "cupy_rawkernel": {}}
    for n in NARGS:
        k = _make(cuda, n)
        arrs = [cuda.device_array(256, np.float32) for _ in range(n)]
        launch = k[1, 32]
        launch(*arrs)
        t_h = common.host_time_per_call(lambda: launch(*arrs), cuda.synchronize)
        t_hc = common.host_time_per_call(lambda: k[1, 32](*arrs), cuda.synchronize)
        t_n = t_nc = None
        if ncuda is not None:
            try:
                kn = _make(ncuda, n)
                narrs = [ncuda.device_array(256, np.float32) for _ in range(n)]
                nl = kn[1, 32]
                nl(*narrs)
                t_n = common.host_time_per_call(lambda: nl(*narrs), ncuda.synchronize)
                t_nc = common.host_time_per_call(lambda: kn[1, 32](*narrs), ncuda.synchronize)
            except Exception as exc:  # noqa: BLE001
                print("numba-cuda failed for %d args: %s" % (n, exc), file=sys.stderr)
        res["hpcjit"][n] = t_h
        res["numba_cuda"][n] = t_n
        res["hpcjit_configure_and_launch"][n] = t_hc
        res["numba_cuda_configure_and_launch"][n] = t_nc
        t_cp = cupy_raw_launch(n)
        res["cupy_rawkernel"][n] = t_cp
        rows.append((n, t_h, t_n, (t_n / t_h) if t_n else None, t_hc, t_nc, t_cp))
    res["table"] = common.table(
        "Kernel launch host time (us per launch) on %s; launcher = k[1, 32] made once, "
        "k[g,b](...) = configured at every launch" % dev,
        ["array args", "hpcjit launcher", "numba-cuda launcher", "speedup", "hpcjit k[g,b](...)",
         "numba-cuda k[g,b](...)", "cupy RawKernel"], rows)
    common.save(out_dir, "launch_overhead", res)
    common.bar_png(out_dir, "launch_overhead", "Launch host time, " + dev,
                   [str(n) for n in NARGS],
                   {"hpcjit": [res["hpcjit"][n] for n in NARGS],
                    "numba-cuda": [res["numba_cuda"][n] for n in NARGS],
                    "cupy RawKernel": [res["cupy_rawkernel"][n] for n in NARGS]}, "us per launch")
    return res


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="gpu-bench")
    run(ap.parse_args().out)
