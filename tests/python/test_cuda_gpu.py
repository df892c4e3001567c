"""hpcjit.cuda on a real GPU: every kernel of the shared suite
(cuda_kernels.py) compiled, launched and checked against its NumPy
reference, plus streams/events/async copies, pinned/mapped/managed memory,
__cuda_array_interface__ with CuPy and PyTorch, and debug-mode exceptions.

Skipped, with the reason, where there is no usable GPU (CTest: gpu.cuda,
label gpu, exits 77).  Each test stands alone: one failing kernel does not
hide the others.
"""
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

os.environ.pop("HPCJIT_CUDA_SIM", None)
os.environ.pop("NUMBA_ENABLE_CUDASIM", None)

from hpcjit import cuda  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def _gpu_status():
    if cuda.SIMULATOR:
        return False, "hpcjit.cuda is the simulator in this process"
    try:
        if cuda.is_available():
            return True, ""
        from hpcjit.cuda.cudadrv import driver
        ok, why = driver.driver_status()
        return False, why or "no CUDA device"
    except Exception as exc:  # noqa: BLE001 - any failure is the skip reason
        return False, "%s: %s" % (type(exc).__name__, exc)


HAVE_GPU, WHY = _gpu_status()
pytestmark = pytest.mark.skipif(not HAVE_GPU, reason="no GPU: " + (WHY or ""))

try:
    import cuda_kernels as K
    CASES = K.CASES
except ImportError as exc:  # the suite lives with the compiler's tests
    K, CASES = None, []
    SUITE_MISSING = str(exc)


def _compare(case, out, pristine):
    for idx, ref in zip(case.outputs, case.reference(pristine)):
        if case.rtol:
            np.testing.assert_allclose(out[idx], ref, rtol=case.rtol, atol=case.rtol,
                                       err_msg="%s: output %d" % (case.name, idx))
        else:
            np.testing.assert_array_equal(out[idx], ref, err_msg="%s: output %d" % (case.name, idx))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_suite_kernel_device_arrays(case):
    cc = cuda.get_current_device().compute_capability
    if cc < case.cc_min:
        pytest.skip("needs compute capability %s, device has %s" % (case.cc_min, cc))
    args = case.make(np.random.default_rng(0))
    pristine = [a.copy(order="K") if isinstance(a, np.ndarray) else a for a in args]
    dev = [cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
    k = cuda.jit(case.kernel)
    k[case.grid, case.block, 0, case.shared](*dev)
    cuda.synchronize()
    out = [d.copy_to_host() if isinstance(a, np.ndarray) else a for a, d in zip(args, dev)]
    _compare(case, out, pristine)
    # a second launch goes through the C fast path with the same result
    dev2 = [cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in pristine]
    k[case.grid, case.block, 0, case.shared](*dev2)
    out2 = [d.copy_to_host() if isinstance(a, np.ndarray) else a for a, d in zip(args, dev2)]
    _compare(case, out2, pristine)
    assert len(k.overloads) == 1


@pytest.mark.skipif(not CASES, reason="the shared kernel suite is not in this tree")
def test_suite_kernels_with_host_arrays():
    """NumPy arguments are copied in and back (with one performance warning)."""
    from hpcjit.errors import NumbaPerformanceWarning
    case = next(c for c in CASES if c.name in ("triad", "vec_add"))
    args = case.make(np.random.default_rng(1))
    pristine = [a.copy(order="K") if isinstance(a, np.ndarray) else a for a in args]
    with pytest.warns(NumbaPerformanceWarning):
        cuda.jit(case.kernel)[case.grid, case.block](*args)
    _compare(case, args, pristine)


@pytest.mark.skipif(not CASES, reason="the shared kernel suite is not in this tree")
@pytest.mark.parametrize("name", ["debug_index_oob", "debug_raise"])
def test_debug_kernels_raise(name):
    f = getattr(K, name)
    a = np.arange(64, dtype=np.float64) - (1 if name == "debug_raise" else 0)
    d = cuda.to_device(a)
    k = cuda.jit(debug=True, opt=False)(f)
    want = IndexError if name == "debug_index_oob" else ValueError
    with pytest.raises(want) as info:
        k[1, 64](d)
    assert "tid=[" in str(info.value)
    # the error record was cleared: a clean launch raises nothing
    if name == "debug_raise":
        k[1, 64](cuda.to_device(np.arange(64, dtype=np.float64)))
        cuda.synchronize()


def _axpy_kernel():
    @cuda.jit
    def axpy(r, a, x, y):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = a * x[i] + y[i]
    return axpy


def test_device_properties():
    dev = cuda.get_current_device()
    assert dev.compute_capability >= (3, 5)
    assert dev.WARP_SIZE == 32 and dev.MULTIPROCESSOR_COUNT > 0
    assert isinstance(dev.name, bytes) and dev.name
    free, total = cuda.current_context().get_memory_info()
    assert 0 < free <= total
    assert cuda.detect()


def test_streams_events_async_copies():
    axpy = _axpy_kernel()
    n = 1 << 20
    x = cuda.pinned_array(n, np.float32)
    y = cuda.pinned_array(n, np.float32)
    x[:] = np.arange(n, dtype=np.float32)
    y[:] = 1
    out = cuda.pinned_array(n, np.float32)
    s = cuda.stream()
    e0, e1 = cuda.event(), cuda.event()
    e0.record(s)
    dx = cuda.to_device(x, stream=s)
    dy = cuda.to_device(y, stream=s)
    dr = cuda.device_array(n, np.float32, stream=s)
    axpy[(n + 255) // 256, 256, s](dr, np.float32(3), dx, dy)
    dr.copy_to_host(out, stream=s)
    e1.record(s)
    e1.synchronize()
    np.testing.assert_allclose(out, 3 * x + y)
    assert cuda.event_elapsed_time(e0, e1) > 0
    with s.auto_synchronize():
        dr.copy_to_device(np.zeros(n, np.float32), stream=s)
    np.testing.assert_array_equal(dr.copy_to_host(), 0)
    for st in (cuda.default_stream(), cuda.per_thread_default_stream(),
               cuda.legacy_default_stream()):
        axpy[(n + 255) // 256, 256, st](dr, np.float32(1), dx, dy)
        st.synchronize()
        np.testing.assert_allclose(dr.copy_to_host(), x + y)


def test_mapped_and_managed_memory():
    axpy = _axpy_kernel()
    n = 4096
    m = cuda.mapped_array(n, np.float64)
    x = cuda.mapped_array(n, np.float64)
    x[:] = np.arange(n)
    axpy[n // 128, 128](m, 2.0, x, x)      # the kernel reads and writes host memory
    cuda.synchronize()
    np.testing.assert_array_equal(m, 3 * np.arange(n))
    g = cuda.managed_array(n, np.float64)
    h = cuda.managed_array(n, np.float64)
    h[:] = 1.0
    axpy[n // 128, 128](g, 5.0, h, h)
    cuda.synchronize()
    np.testing.assert_array_equal(g, 6.0)


def test_device_array_views_in_kernels():
    @cuda.jit
    def scale(a, s):
        i, j = cuda.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            a[i, j] *= s

    h = np.arange(48.0).reshape(6, 8)
    d = cuda.to_device(h)
    v = d[1:5, ::2]
    scale[(1, 1), (8, 8)](v, 10.0)
    want = h.copy()
    want[1:5, ::2] *= 10
    np.testing.assert_array_equal(d.copy_to_host(), want)
    np.testing.assert_array_equal(v.copy_to_host(), want[1:5, ::2])


def test_explicit_signature_forall_and_inspection():
    @cuda.jit("void(float64[:], float64)")
    def fill(a, v):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = v

    d = cuda.device_array(1000)
    fill.forall(d.size)(d, 7)
    np.testing.assert_array_equal(d.copy_to_host(), 7.0)
    ptx = fill.inspect_ptx()
    assert len(ptx) == 1 and ".entry" in next(iter(ptx.values()))
    assert fill.get_regs_per_thread() > 0


def test_vectorize_and_guvectorize_target_cuda():
    from hpcjit import guvectorize, vectorize

    def mix(x, y):
        return x * y - (x - y)

    sigs = ["float32(float32, float32)", "float64(float64, float64)", "int64(int64, int64)"]
    cpu, gpu = vectorize(sigs)(mix), vectorize(sigs, target="cuda")(mix)
    rng = np.random.RandomState(0)
    for dt in (np.float32, np.float64, np.int64):
        a = (rng.rand(1000, 3) * 50).astype(dt)
        b = (rng.rand(3) * 50).astype(dt)
        r = gpu(a, b)                                   # host arrays, broadcast
        assert isinstance(r, np.ndarray) and r.dtype == dt
        np.testing.assert_allclose(r, cpu(a, b), rtol=1e-6)
        d = gpu(cuda.to_device(a), cuda.to_device(b))   # device arrays: a device array
        assert cuda.is_cuda_array(d) and not isinstance(d, np.ndarray)
        np.testing.assert_allclose(d.copy_to_host(), cpu(a, b), rtol=1e-6)
    x = np.arange(300000, dtype=np.float64)             # more elements than the grid: strided
    out = np.zeros_like(x)
    assert gpu(x, 2.0, out=out) is out
    np.testing.assert_array_equal(out, cpu(x, 2.0))
    dout = cuda.device_array_like(x)
    s = cuda.stream()
    assert gpu(cuda.to_device(x), 3.0, out=dout, stream=s) is dout
    s.synchronize()
    np.testing.assert_array_equal(dout.copy_to_host(), cpu(x, 3.0))

    @cuda.jit
    def use(v, o):                                      # the ufunc as a device function
        i = cuda.grid(1)
        if i < v.size:
            o[i] = gpu(v[i], 2.0)

    o = cuda.device_array_like(x)
    use[(x.size + 127) // 128, 128](cuda.to_device(x), o)
    np.testing.assert_array_equal(o.copy_to_host(), cpu(x, 2.0))

    def matmul(a, b, c):
        for i in range(a.shape[0]):
            for j in range(b.shape[1]):
                acc = 0.0
                for k in range(a.shape[1]):
                    acc += a[i, k] * b[k, j]
                c[i, j] = acc

    gsig = ["void(float64[:,:], float64[:,:], float64[:,:])"]
    gcpu = guvectorize(gsig, "(m,n),(n,p)->(m,p)")(matmul)
    ggpu = guvectorize(gsig, "(m,n),(n,p)->(m,p)", target="cuda")(matmul)
    a, b = rng.rand(500, 4, 5), rng.rand(5, 3)
    np.testing.assert_allclose(ggpu(a, b), gcpu(a, b), rtol=1e-12)
    dc = ggpu(cuda.to_device(a), cuda.to_device(b))
    np.testing.assert_allclose(dc.copy_to_host(), a @ b, rtol=1e-12)
    c = np.zeros((500, 4, 3))
    assert ggpu(a, b, out=c) is c
    np.testing.assert_allclose(c, a @ b, rtol=1e-12)


def test_launch_errors_are_python_exceptions():
    axpy = _axpy_kernel()
    d = cuda.device_array(10)
    with pytest.raises(cuda.CudaAPIError):
        axpy[1, 4096](d, 1.0, d, d)          # too many threads per block
    axpy[1, 32](d, 1.0, d, d)                # still usable afterwards
    cuda.synchronize()


def test_cupy_interop():
    cupy = pytest.importorskip("cupy")
    axpy = _axpy_kernel()
    x = cupy.arange(1000, dtype=cupy.float32)
    r = cupy.zeros(1000, dtype=cupy.float32)
    axpy[4, 256](r, np.float32(2), x, x)     # CuPy arrays straight to the kernel
    cupy.cuda.runtime.deviceSynchronize()
    np.testing.assert_allclose(cupy.asnumpy(r), 3 * np.arange(1000, dtype=np.float32))
    d = cuda.to_device(np.arange(10.0))
    c = cupy.asarray(d)                      # CuPy consumes our interface
    np.testing.assert_array_equal(cupy.asnumpy(c), np.arange(10.0))
    v = cuda.as_cuda_array(x[::2])
    assert v.shape == (500,) and v.strides == (8,)
    np.testing.assert_array_equal(v.copy_to_host(), np.arange(0, 1000, 2, dtype=np.float32))


def test_torch_interop():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no GPU")
    axpy = _axpy_kernel()
    x = torch.arange(1000, dtype=torch.float64, device="cuda")
    r = torch.zeros(1000, dtype=torch.float64, device="cuda")
    axpy[4, 256](r, 0.5, x, x)
    torch.cuda.synchronize()
    np.testing.assert_allclose(r.cpu().numpy(), 1.5 * np.arange(1000))
    d = cuda.as_cuda_array(x)
    assert cuda.is_cuda_array(x) and d.shape == (1000,)
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(1000.0))


def test_many_allocations_are_freed():
    cuda.synchronize()
    free0, _ = cuda.current_context().get_memory_info()
    for _ in range(50):
        cuda.device_array(1 << 22)           # 32 MiB each, dropped at once
    cuda.synchronize()
    free1, _ = cuda.current_context().get_memory_info()
    assert free1 >= free0 - (256 << 20), (free0, free1)


_PRINT_CHILD = r"""
import numpy as np
from hpcjit import cuda

@cuda.jit
def k(a, n, flag):
    i = cuda.grid(1)
    print("i =", i, a[i], n, flag, None, "100%", sep=", ")

a = np.arange(4, dtype=np.float32) * 0.5
k[1, 4](cuda.to_device(a), np.uint8(7), True)
cuda.synchronize()
"""


def test_print_in_kernels():
    """vprintf's lines reach the process's stdout at the synchronize, with
    Numba's formats (%lld, %f)."""
    r = subprocess.run([sys.executable, "-c", _PRINT_CHILD], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    want = sorted(f"i =, {i}, {0.5 * i:f}, 7, True, None, 100%" for i in range(4))
    assert sorted(r.stdout.splitlines()) == want
