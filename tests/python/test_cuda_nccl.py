"""hpcjit.mpi collectives of device arrays over the real NCCL on a real GPU
(one rank: this process).  test_cuda_driver.py checks the same paths
against stand-in libraries everywhere; this file needs a GPU, libnccl.so.2
and MPI, and skips with the reason otherwise."""
import os

import numpy as np
import pytest

os.environ.pop("HPCJIT_CUDA_SIM", None)
os.environ.pop("NUMBA_ENABLE_CUDASIM", None)

from hpcjit import cuda, mpi  # noqa: E402


def _status():
    if cuda.SIMULATOR:
        return "hpcjit.cuda is the simulator in this process"
    try:
        if not cuda.is_available():
            from hpcjit.cuda.cudadrv import driver
            return "no GPU: " + (driver.driver_status()[1] or "no CUDA device")
    except Exception as exc:  # noqa: BLE001 - any failure is the skip reason
        return "no GPU: %s: %s" % (type(exc).__name__, exc)
    if not mpi.available():
        return "hpcjit was built without MPI"
    from hpcjit.cuda import nccl
    ok, why = nccl.available()
    return None if ok else "no NCCL: " + why


WHY = _status()
pytestmark = pytest.mark.skipif(WHY is not None, reason=WHY or "")


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_allreduce_sum_max_over_real_nccl(dtype):
    h = (np.arange(1000) - 300).astype(dtype)
    x = cuda.to_device(h)
    r = cuda.device_array_like(h)
    assert mpi.allreduce(x, r, mpi.SUM) is r
    n = mpi.size()
    np.testing.assert_array_equal(r.copy_to_host(), h * n)
    np.testing.assert_array_equal(mpi.allreduce(x, mpi.MAX).copy_to_host(), h)
    np.testing.assert_array_equal(mpi.allreduce(x, mpi.MIN).copy_to_host(), h)


def test_reduce_bcast_allgather_reduce_scatter_over_real_nccl():
    n, me = mpi.size(), mpi.rank()
    h = np.arange(12, dtype=np.float64) + me
    x = cuda.to_device(h)
    out = mpi.reduce(x, mpi.SUM, 0)
    if me == 0:
        np.testing.assert_allclose(out.copy_to_host(), sum(np.arange(12.0) + r for r in range(n)))
    b = cuda.to_device(np.full(5, float(me)))
    assert mpi.bcast(b, 0) is b
    np.testing.assert_array_equal(b.copy_to_host(), np.zeros(5))
    g = mpi.allgather(x)
    assert g.shape == (n, 12)
    np.testing.assert_array_equal(g.copy_to_host()[me], h)
    rs = mpi.reduce_scatter(cuda.to_device(np.ones(4 * n)), mpi.SUM)
    np.testing.assert_array_equal(rs.copy_to_host(), np.full(4, float(n)))


def test_allreduce_on_a_stream_and_a_kernel_result():
    @cuda.jit
    def fill(a, v):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = v * i

    s = cuda.stream()
    a = cuda.device_array(4096, np.float32)
    fill[16, 256, s](a, np.float32(0.5))
    r = cuda.device_array_like(a)
    mpi.allreduce(a, r, mpi.SUM, stream=s)
    s.synchronize()
    np.testing.assert_allclose(r.copy_to_host(), 0.5 * np.arange(4096, dtype=np.float32) * mpi.size())
