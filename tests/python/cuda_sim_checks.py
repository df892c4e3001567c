"""Kernels run by the CUDA simulator, each checked against a NumPy/Python
reference.  Run as a script with HPCJIT_CUDA_SIM=1 (test_cuda_sim.py does):
prints one JSON object {check name: "ok" or the failure}."""
import json
import math
import os
import sys
import traceback

import numpy as np

from hpcjit import cuda

CHECKS = {}


def check(f):
    CHECKS[f.__name__] = f
    return f


@check
def mode_is_simulator():
    assert cuda.SIMULATOR and cuda.is_available()
    assert cuda.get_current_device().name == b"SIMULATOR"


@check
def axpy_grid1():
    @cuda.jit
    def axpy(r, a, x, y):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = a * x[i] + y[i]

    n = 200
    x = np.arange(n, dtype=np.float32)
    y = np.ones(n, np.float32)
    r = cuda.device_array_like(x)
    axpy[(n + 63) // 64, 64](r, np.float32(2.0), cuda.to_device(x), cuda.to_device(y))
    np.testing.assert_allclose(r.copy_to_host(), 2 * x + y)


@check
def grid2_gridsize_stride_loop():
    @cuda.jit
    def add2(c, a, b):
        x0, y0 = cuda.grid(2)
        sx, sy = cuda.gridsize(2)
        for i in range(x0, c.shape[0], sx):
            for j in range(y0, c.shape[1], sy):
                c[i, j] = a[i, j] + b[i, j]

    a = np.random.RandomState(0).rand(13, 17)
    b = np.random.RandomState(1).rand(13, 17)
    c = np.zeros_like(a)
    add2[(2, 2), (4, 3)](c, a, b)   # host arrays: used in place, as copied in and back
    np.testing.assert_allclose(c, a + b)


@check
def grid3_indices():
    @cuda.jit
    def fill(out):
        x, y, z = cuda.grid(3)
        if x < out.shape[0] and y < out.shape[1] and z < out.shape[2]:
            out[x, y, z] = (cuda.threadIdx.x + 10 * cuda.blockIdx.x + 100 * cuda.threadIdx.y
                            + 1000 * cuda.blockIdx.y + 10000 * cuda.threadIdx.z
                            + 100000 * cuda.blockIdx.z)

    out = np.zeros((4, 4, 4), np.int64)
    fill[(2, 2, 2), (2, 2, 2)](out)
    want = np.zeros_like(out)
    for x in range(4):
        for y in range(4):
            for z in range(4):
                want[x, y, z] = (x % 2 + 10 * (x // 2) + 100 * (y % 2) + 1000 * (y // 2)
                                 + 10000 * (z % 2) + 100000 * (z // 2))
    np.testing.assert_array_equal(out, want)


@check
def shared_tree_reduction_and_atomic_add():
    TPB = 32

    @cuda.jit
    def block_sum(out, x):
        sm = cuda.shared.array(TPB, np.float64)
        tid = cuda.threadIdx.x
        i = cuda.grid(1)
        sm[tid] = x[i] if i < x.size else 0.0
        cuda.syncthreads()
        s = TPB // 2
        while s > 0:
            if tid < s:
                sm[tid] += sm[tid + s]
            cuda.syncthreads()
            s //= 2
        if tid == 0:
            cuda.atomic.add(out, 0, sm[0])

    x = np.random.RandomState(2).rand(100)
    out = cuda.to_device(np.zeros(1))
    block_sum[4, TPB](out, cuda.to_device(x))
    np.testing.assert_allclose(out.copy_to_host()[0], x.sum())


@check
def tiled_matmul_shared():
    TILE = 4

    @cuda.jit
    def matmul(c, a, b):
        sa = cuda.shared.array((TILE, TILE), np.float32)
        sb = cuda.shared.array((TILE, TILE), np.float32)
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        row, col = cuda.grid(2)
        acc = 0.0
        for t in range((a.shape[1] + TILE - 1) // TILE):
            sa[tx, ty] = a[row, t * TILE + ty] if row < a.shape[0] and t * TILE + ty < a.shape[1] else 0
            sb[tx, ty] = b[t * TILE + tx, col] if col < b.shape[1] and t * TILE + tx < b.shape[0] else 0
            cuda.syncthreads()
            for k in range(TILE):
                acc += sa[tx, k] * sb[k, ty]
            cuda.syncthreads()
        if row < c.shape[0] and col < c.shape[1]:
            c[row, col] = acc

    rs = np.random.RandomState(3)
    a = rs.rand(6, 9).astype(np.float32)
    b = rs.rand(9, 7).astype(np.float32)
    c = cuda.device_array((6, 7), np.float32)
    matmul[(2, 2), (TILE, TILE)](c, cuda.to_device(a), cuda.to_device(b))
    np.testing.assert_allclose(c.copy_to_host(), a @ b, rtol=1e-5)


@check
def dynamic_shared_memory():
    @cuda.jit
    def reverse(x):
        dyn = cuda.shared.array(0, np.int32)
        t = cuda.threadIdx.x
        dyn[t] = x[t]
        cuda.syncthreads()
        x[t] = dyn[cuda.blockDim.x - 1 - t]

    x = np.arange(16, dtype=np.int32)
    d = cuda.to_device(x)
    reverse[1, 16, 0, 16 * 4](d)
    np.testing.assert_array_equal(d.copy_to_host(), x[::-1])


@check
def atomics_all_kinds():
    @cuda.jit
    def hist(h, x):
        i = cuda.grid(1)
        if i < x.size:
            cuda.atomic.add(h, x[i] % h.size, 1)

    x = np.random.RandomState(4).randint(0, 1000, 300).astype(np.int64)
    h = np.zeros(7, np.int64)
    hist[5, 64](h, x)
    np.testing.assert_array_equal(h, np.bincount(x % 7, minlength=7))

    @cuda.jit
    def many(r, f, v):
        i = cuda.grid(1)
        if i < v.size:
            cuda.atomic.max(r, 0, v[i])
            cuda.atomic.min(r, 1, v[i])
            cuda.atomic.sub(r, 2, 1)
            cuda.atomic.or_(r, 3, 1 << (i % 8))
            cuda.atomic.and_(r, 4, ~(1 << (i % 8)))
            cuda.atomic.xor(r, 5, 1)
            cuda.atomic.inc(r, 6, 9)
            cuda.atomic.dec(r, 7, 5)
            cuda.atomic.nanmax(f, 0, np.float64(v[i]) if i % 3 else np.nan)
            cuda.atomic.nanmin(f, 1, np.float64(v[i]) if i % 3 else np.nan)
            old = cuda.atomic.cas(r, 8, 0, i + 1)
            if old == 0:
                cuda.atomic.exch(r, 9, i)

    v = np.random.RandomState(5).randint(-50, 50, 40).astype(np.int64)
    r = np.array([-10**9, 10**9, 0, 0, 255, 0, 0, 0, 0, -1], np.int64)
    f = np.array([-np.inf, np.inf])
    many[2, 32](r, f, v)
    n = v.size
    assert r[0] == v.max() and r[1] == v.min() and r[2] == -n
    assert r[3] == 255 and r[4] == 0 and r[5] == n % 2
    assert r[6] == n % 10 and 0 <= r[7] <= 5
    assert r[8] >= 1 and r[9] == r[8] - 1
    keep = np.array([v[i] for i in range(n) if i % 3], np.float64)
    assert f[0] == keep.max() and f[1] == keep.min()


@check
def warp_shuffles_and_votes():
    @cuda.jit
    def warp(out_sum, out_bal, out_all, out_any, out_xor, out_up, lanes):
        t = cuda.threadIdx.x
        v = t + 1
        s = v
        off = 16
        while off > 0:
            s += cuda.shfl_down_sync(0xFFFFFFFF, s, off)
            off //= 2
        if cuda.laneid == 0:
            out_sum[t // 32] = s
        out_bal[t] = cuda.ballot_sync(0xFFFFFFFF, t % 3 == 0)
        out_all[t] = cuda.all_sync(0xFFFFFFFF, t < 1000)
        out_any[t] = cuda.any_sync(0xFFFFFFFF, t == 5)
        out_xor[t] = cuda.shfl_xor_sync(0xFFFFFFFF, t, 1)
        out_up[t] = cuda.shfl_up_sync(0xFFFFFFFF, t, 2)
        lanes[t] = cuda.laneid + 0
        cuda.syncwarp()

    n = 64
    outs = [np.zeros(2, np.int64)] + [np.zeros(n, np.int64) for _ in range(6)]
    warp[1, n](*outs)
    out_sum, out_bal, out_all, out_any, out_xor, out_up, lanes = outs
    np.testing.assert_array_equal(out_sum, [sum(range(1, 33)), sum(range(33, 65))])
    for w in range(2):
        bal = sum(1 << l for l in range(32) if (w * 32 + l) % 3 == 0)
        np.testing.assert_array_equal(out_bal[w * 32:(w + 1) * 32], bal)
    assert out_all.all() and list(out_any) == [1] * 32 + [0] * 32
    np.testing.assert_array_equal(out_xor, np.arange(n) ^ 1)
    want_up = np.array([t - 2 if t % 32 >= 2 else t for t in range(n)])
    np.testing.assert_array_equal(out_up, want_up)
    np.testing.assert_array_equal(lanes, np.arange(n) % 32)


@check
def syncthreads_count_and_or():
    @cuda.jit
    def votes(out):
        t = cuda.threadIdx.x
        out[0] = cuda.syncthreads_count(t % 2 == 0)
        out[1] = cuda.syncthreads_and(t < 100)
        out[2] = cuda.syncthreads_or(t == 3)
        out[3] = cuda.syncthreads_and(t < 3)

    out = np.zeros(4, np.int64)
    votes[1, 10](out)
    np.testing.assert_array_equal(out, [5, 1, 1, 0])


@check
def early_return_does_not_deadlock():
    @cuda.jit
    def k(x):
        t = cuda.threadIdx.x
        if t >= 5:
            return
        cuda.syncthreads()
        x[t] = t * 2
        cuda.syncthreads()

    x = np.zeros(8, np.int64)
    k[1, 8](x)
    np.testing.assert_array_equal(x, [0, 2, 4, 6, 8, 0, 0, 0])


@check
def local_and_const_arrays():
    table = np.array([3.0, 1.0, 4.0, 1.0, 5.0])

    @cuda.jit
    def k(out):
        c = cuda.const.array_like(table)
        loc = cuda.local.array(5, np.float64)
        t = cuda.threadIdx.x
        for j in range(5):
            loc[j] = c[j] * t
        acc = 0.0
        for j in range(5):
            acc += loc[j]
        out[t] = acc

    out = np.zeros(6)
    k[1, 6](out)
    np.testing.assert_allclose(out, table.sum() * np.arange(6))


@check
def device_function_and_math():
    @cuda.jit(device=True)
    def hyp(a, b):
        return math.sqrt(a * a + b * b)

    @cuda.jit
    def k(out, a, b):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = hyp(a[i], b[i]) + math.exp(-a[i]) + cuda.fma(a[i], b[i], 1.0)

    a = np.linspace(0, 2, 50)
    b = np.linspace(1, 3, 50)
    out = np.zeros(50)
    k[2, 32](out, a, b)
    np.testing.assert_allclose(out, np.hypot(a, b) + np.exp(-a) + a * b + 1)
    assert hyp(3.0, 4.0) == hyp.py_func(3.0, 4.0) == 5.0


@check
def bit_intrinsics():
    @cuda.jit
    def k(out, x):
        i = cuda.grid(1)
        if i < x.size:
            out[i, 0] = cuda.popc(x[i])
            out[i, 1] = cuda.clz(x[i])
            out[i, 2] = cuda.ffs(x[i])
            out[i, 3] = cuda.brev(x[i])

    x = np.array([0, 1, 2, 0xF0, 0x80000000, 0xFFFFFFFF, 12345], np.uint32)
    out = np.zeros((x.size, 4), np.int64)
    k[1, 8](out, x)
    for i, v in enumerate(int(t) for t in x):
        assert out[i, 0] == bin(v).count("1")
        assert out[i, 1] == 32 - v.bit_length()
        assert out[i, 2] == ((v & -v).bit_length())
        assert out[i, 3] == int(format(v, "032b")[::-1], 2)
    assert abs(cuda.cbrt(27.0) - 3.0) < 1e-12


@check
def complex_values():
    @cuda.jit
    def k(out, z):
        i = cuda.grid(1)
        if i < z.size:
            out[i] = z[i] * z[i].conjugate() + 1j

    z = (np.arange(5) + 1j * np.arange(5)).astype(np.complex128)
    out = np.zeros_like(z)
    k[1, 8](out, z)
    np.testing.assert_allclose(out, z * z.conj() + 1j)


@check
def kernel_exception_names_the_thread():
    @cuda.jit
    def k(x):
        if cuda.threadIdx.x == 3 and cuda.blockIdx.x == 1:
            raise ValueError("bad value")
        cuda.syncthreads()

    try:
        k[2, 4](np.zeros(8))
    except ValueError as exc:
        assert "tid=[3, 0, 0] ctaid=[1, 0, 0]: bad value" in str(exc), str(exc)
    else:
        raise AssertionError("no ValueError")
    try:
        np.zeros(3)[5]
    except IndexError:
        pass

    @cuda.jit
    def oob(x):
        x[cuda.threadIdx.x] = 1

    try:
        oob[1, 4](np.zeros(2))
    except IndexError as exc:
        assert "tid=[2, 0, 0]" in str(exc) or "tid=[3, 0, 0]" in str(exc), str(exc)
    else:
        raise AssertionError("no IndexError")


@check
def forall_and_launch_errors():
    @cuda.jit
    def inc(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] += 1

    x = np.zeros(300)
    inc.forall(x.size)(x)
    assert (x == 1).all()
    for bad in (lambda: inc(x), lambda: inc[1](x), lambda: inc[1, 2000](x)):
        try:
            bad()
        except ValueError:
            pass
        else:
            raise AssertionError("bad launch accepted")
    try:
        cuda.threadIdx.x
    except RuntimeError as exc:
        assert "inside a kernel" in str(exc)
    else:
        raise AssertionError("threadIdx outside a kernel")


@check
def device_arrays_streams_events():
    a = np.arange(12.0).reshape(3, 4)
    s = cuda.stream()
    d = cuda.to_device(a, stream=s)
    assert d.shape == (3, 4) and d.dtype == np.float64 and d.size == 12 and d.ndim == 2
    np.testing.assert_array_equal(d[1:, ::2].copy_to_host(), a[1:, ::2])
    assert d[2, 3] == 11.0
    out = np.zeros_like(a)
    d.copy_to_host(out, stream=s)
    np.testing.assert_array_equal(out, a)
    d2 = cuda.device_array((3, 4))
    d2.copy_to_device(a * 2)
    np.testing.assert_array_equal(d2.copy_to_host(), a * 2)
    e0, e1 = cuda.event(), cuda.event()
    e0.record(s)
    with s.auto_synchronize():
        pass
    e1.record(s)
    e1.synchronize()
    assert cuda.event_elapsed_time(e0, e1) >= 0
    assert cuda.is_cuda_array(d) and not cuda.is_cuda_array(a)
    p = cuda.pinned_array(4)
    m = cuda.mapped_array(4)
    g = cuda.managed_array(4)
    assert p.shape == m.shape == g.shape == (4,)
    cuda.synchronize()
    assert cuda.default_stream().handle == 0 and cuda.per_thread_default_stream().handle == 2


def main():
    names = sys.argv[1:] or list(CHECKS)
    results = {}
    for name in names:
        try:
            CHECKS[name]()
            results[name] = "ok"
        except BaseException:  # noqa: BLE001 - every failure is reported
            results[name] = traceback.format_exc()
    print(json.dumps(results))


if __name__ == "__main__":
    assert os.environ.get("HPCJIT_CUDA_SIM") or os.environ.get("NUMBA_ENABLE_CUDASIM")
    main()
