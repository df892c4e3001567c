"""CUDA IPC (numba.cuda's get_ipc_handle / IpcArrayHandle / open_ipc_array)
between two processes, here over the stand-in driver (tests/gpu/
fake_libcuda.c), whose device memory is shared across processes the way a
GPU's is (the exporter's pages move into a memfd that the importer maps),
and in the simulator, whose device arrays live in memfd pages.
On a GPU, test_ipc_between_processes_on_the_device runs the same exchange
over cuIpc*MemHandle (skipped, with the reason, where there is none)."""
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from test_cuda_driver import fake, run  # noqa: E402,F401

# The importer: reads the pickled handle from stdin, checks what the
# exporter wrote, writes its own values, closes.
IMPORTER = textwrap.dedent("""
    import ctypes, os, pickle, sys
    import numpy as np
    from hpcjit import cuda
    h = pickle.loads(sys.stdin.buffer.read())
    want = np.arange(2, 12, dtype=np.float32).reshape(2, 5)
    with h as arr:                                   # IpcArrayHandle as a context manager
        assert isinstance(arr, cuda.DeviceNDArray) and arr.shape == (2, 5), arr
        got = arr.copy_to_host()
        assert (got == want).all(), got
        arr.copy_to_device(-got)                     # written through the shared memory
    # the raw 64 bytes, as numba's open_ipc_array takes them, at the view's offset
    raw = tuple(h.ipc_handle.handle)
    with cuda.open_ipc_array(raw, 3, np.float32, offset=h.ipc_handle.offset + 40) as tail:
        assert (tail.copy_to_host() == np.arange(12, 15, dtype=np.float32)).all()
        tail[1] = 100.0
    fake = os.environ.get("HPCJIT_CUDA_DRIVER")
    if fake and "fake" in fake:
        lib = ctypes.CDLL(fake)
        lib.fakecuda_ipc_count.restype = ctypes.c_long
        assert lib.fakecuda_ipc_count(0) == 2 and lib.fakecuda_ipc_count(1) == 2  # opened, closed
    print("importer ok")
""")

EXPORTER = """
    import pickle, subprocess
    IMPORTER = %r
    base = cuda.to_device(np.arange(20, dtype=np.float32))
    view = base[2:12].reshape(2, 5)                  # not at the allocation's start
    h = view.get_ipc_handle()
    assert type(h).__name__ == "IpcArrayHandle" and h.ipc_handle.offset == 8, h.ipc_handle
    assert len(h.ipc_handle.handle) == 64 and h.ipc_handle.size >= 80
    blob = pickle.dumps(h)
    h2 = pickle.loads(blob)
    assert h2.ipc_handle.handle == h.ipc_handle.handle and h2.array_desc["shape"] == (2, 5)
    # the exporting process cannot open its own handle (CUDA refuses; a driver that
    # allows it is not an error of hpcjit's)
    try:
        h2.open()
        h2.close()
        print("own handle: opened")
    except cuda.CudaAPIError as exc:
        print("own handle:", exc)
    r = subprocess.run([sys.executable, "-c", IMPORTER], input=blob, capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr.decode()
    print(r.stdout.decode().strip())
    got = base.copy_to_host()
    want = np.arange(20, dtype=np.float32)
    want[2:12] *= -1
    want[13] = 100.0
    assert (got == want).all(), got
    for bad in (b"x" * 63, list(range(65))):
        try:
            with cuda.open_ipc_array(bad, 4, np.float32):
                pass
        except ValueError as exc:
            assert "64 bytes" in str(exc)
        else:
            raise AssertionError(bad)
    try:
        cuda.device_array(0).get_ipc_handle()
    except ValueError:
        pass
    else:
        raise AssertionError("empty array")
    print("exporter ok")
"""


def test_ipc_between_processes(fake):
    out = run(EXPORTER % IMPORTER, fake)
    assert "importer ok" in out and "exporter ok" in out, out
    assert "CUDA_ERROR_INVALID_CONTEXT" in out, out


def test_ipc_between_processes_in_the_simulator():
    # simulated device memory is memfd pages: the importer maps the exporter's
    env = dict(os.environ)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    env["HPCJIT_CUDA_SIM"] = "1"
    code = ("import sys, numpy as np\nfrom hpcjit import cuda\nassert cuda.SIMULATOR\n" +
            textwrap.dedent(EXPORTER % IMPORTER))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "importer ok" in r.stdout and "exporter ok" in r.stdout
    assert "CUDA_ERROR_INVALID_CONTEXT" in r.stdout


def test_ipc_handle_pickles_without_a_driver():
    from hpcjit.cuda.cudadrv.ipc import IpcArrayHandle, IpcHandle
    h = IpcArrayHandle(IpcHandle(bytes(range(64)), 16, 4096),
                       {"shape": (3, 4), "strides": (16, 4), "dtype": np.dtype(np.float16)})
    h2 = pickle.loads(pickle.dumps(h))
    assert h2.ipc_handle.handle == bytes(range(64)) and h2.ipc_handle.offset == 16
    assert h2.array_desc["shape"] == (3, 4) and np.dtype(h2.array_desc["dtype"]) == np.float16
    with pytest.raises(ValueError, match="64 bytes"):
        IpcHandle(b"short", 0, 1)


def _gpu_available():
    env = dict(os.environ)
    env.pop("HPCJIT_CUDA_SIM", None)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    r = subprocess.run([sys.executable, "-c", "from hpcjit import cuda; print(cuda.is_available())"],
                       env=env, capture_output=True, text=True, timeout=120)
    return r.stdout.strip() == "True"


@pytest.mark.skipif(not _gpu_available(), reason="no GPU (CUDA driver and device) on this machine")
def test_ipc_between_processes_on_the_device():
    env = dict(os.environ)
    env.pop("HPCJIT_CUDA_SIM", None)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    env.pop("HPCJIT_CUDA_DRIVER", None)
    code = "import sys, numpy as np\nfrom hpcjit import cuda\n" + textwrap.dedent(EXPORTER % IMPORTER)
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "importer ok" in r.stdout and "exporter ok" in r.stdout
