"""hpcjit.cuda as a simulator (HPCJIT_CUDA_SIM=1 or NUMBA_ENABLE_CUDASIM=1 at
import): the same API, kernels run as Python on the CPU (kernel.py), device
arrays are NumPy-backed, streams and events do their work at once.
What it does not model: docs/CUDA.md, "The simulator"."""
import contextlib
import time

import numpy as np

from ..cudadrv.error import CudaSupportError
from . import ipc as _ipc
from . import kernel as _k
from .kernel import *  # noqa: F401,F403 - the device objects (threadIdx, shared...)
from .kernel import DEVICE_NAMES

SIMULATOR = True


class FakeCUDAArray:
    """A device array of the simulator: a NumPy array with the device
    array API (copy_to_host, copy_to_device, slicing into views...)."""
    __cuda_memory__ = True

    def __init__(self, ary, stream=0):
        self._ary = ary
        self.stream = stream

    # NumPy's attributes (shape, strides, dtype, size, ndim, nbytes, T...)
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._ary, name)

    @property
    def alloc_size(self):
        return self._ary.nbytes

    def is_c_contiguous(self):
        return self._ary.flags.c_contiguous

    def is_f_contiguous(self):
        return self._ary.flags.f_contiguous

    def copy_to_host(self, ary=None, stream=0):
        if ary is None:
            return self._ary.copy()
        np.copyto(ary, self._ary.reshape(ary.shape) if ary.shape != self._ary.shape else self._ary)
        return ary

    def copy_to_device(self, ary, stream=0):
        src = ary._ary if isinstance(ary, FakeCUDAArray) else np.asarray(ary)
        if src.shape != self._ary.shape and src.size != 1:
            raise ValueError("incompatible shape: %s vs %s" % (src.shape, self._ary.shape))
        self._ary[...] = src

    def __getitem__(self, index):
        r = self._ary[index]
        return FakeCUDAArray(r, self.stream) if isinstance(r, np.ndarray) else r

    def __setitem__(self, index, value):
        self._ary[index] = value._ary if isinstance(value, FakeCUDAArray) else value

    def __len__(self):
        return len(self._ary)

    def __array__(self, dtype=None, copy=None):
        return self._ary if dtype is None else self._ary.astype(dtype)

    def reshape(self, *shape, order="C"):
        return FakeCUDAArray(self._ary.reshape(*shape, order=order), self.stream)

    def ravel(self, order="C"):
        return FakeCUDAArray(self._ary.ravel(order=order), self.stream)

    def transpose(self, axes=None):
        return FakeCUDAArray(self._ary.transpose(axes), self.stream)

    @property
    def T(self):
        return self.transpose()

    def view(self, dtype):
        return FakeCUDAArray(self._ary.view(dtype), self.stream)

    def split(self, section, stream=0):
        return [self[i:i + section] for i in range(0, len(self), section)]

    def bind(self, stream=0):
        return FakeCUDAArray(self._ary, stream)

    def get_ipc_handle(self):
        """An IPC handle another process opens (simulator/ipc.py: shared memfd pages)."""
        return _ipc.get_ipc_handle(self)

    def __repr__(self):
        return "<simulated DeviceNDArray shape=%s dtype=%s>" % (self._ary.shape, self._ary.dtype)


DeviceNDArray = FakeCUDAArray


def _host(a):
    return a._ary if isinstance(a, FakeCUDAArray) else a


def to_device(obj, stream=0, copy=True, to=None):
    if to is not None:
        to.copy_to_device(obj, stream)
        return to
    src = np.asarray(_host(obj))
    order = "F" if (src.flags.f_contiguous and not src.flags.c_contiguous) else "C"
    ary = _ipc.empty(src.shape, src.dtype, order=order)  # shareable memory (IPC)
    np.copyto(ary, src)
    return FakeCUDAArray(ary, stream)


def device_array(shape, dtype=np.float64, strides=None, order="C", stream=0):
    return FakeCUDAArray(_ipc.empty(shape, dtype, order=order), stream)


open_ipc_array = _ipc.open_ipc_array
IpcArrayHandle = _ipc.IpcArrayHandle


def device_array_like(ary, stream=0):
    a = _host(ary)
    order = "F" if (a.flags.f_contiguous and not a.flags.c_contiguous) else "C"
    return device_array(a.shape, a.dtype, order=order, stream=stream)


def pinned_array(shape, dtype=np.float64, strides=None, order="C"):
    return np.zeros(shape, dtype, order=order)


def pinned_array_like(ary):
    return np.zeros_like(_host(ary))


def mapped_array(shape, dtype=np.float64, strides=None, order="C", stream=0, portable=False,
                 wc=False):
    return np.zeros(shape, dtype, order=order)


def mapped_array_like(ary, stream=0, portable=False, wc=False):
    return np.zeros_like(_host(ary))


def managed_array(shape, dtype=np.float64, strides=None, order="C", stream=0,
                  attach_global=True):
    return np.zeros(shape, dtype, order=order)


@contextlib.contextmanager
def pinned(*arylist):
    yield


@contextlib.contextmanager
def mapped(*arylist, **kws):
    yield arylist[0] if len(arylist) == 1 else list(arylist)


def is_cuda_array(obj):
    return isinstance(obj, FakeCUDAArray) or hasattr(obj, "__cuda_array_interface__")


def as_cuda_array(obj, sync=True):
    if isinstance(obj, FakeCUDAArray):
        return obj
    if not hasattr(obj, "__cuda_array_interface__"):
        raise TypeError("*obj* doesn't implement the cuda array interface.")
    raise CudaSupportError("the simulator cannot view real device memory (__cuda_array_interface__)")


class Stream:
    """A simulated stream: work is done when it is issued."""

    def __init__(self, handle=0):
        self.handle = handle

    def synchronize(self):
        pass

    def query(self):
        return True

    @contextlib.contextmanager
    def auto_synchronize(self):
        yield self

    def wait_event(self, event):
        pass

    def __repr__(self):
        return "<simulated CUDA stream %d>" % self.handle


_next_stream = [3]


def stream():
    _next_stream[0] += 1
    return Stream(_next_stream[0])


def default_stream():
    return Stream(0)


def legacy_default_stream():
    return Stream(1)


def per_thread_default_stream():
    return Stream(2)


def external_stream(ptr):
    return Stream(int(ptr))


class Event:
    def __init__(self, timing=True):
        self.timing = timing
        self._t = None

    def record(self, stream=0):
        self._t = time.perf_counter()

    def synchronize(self):
        pass

    def query(self):
        return True

    def wait(self, stream=0):
        pass

    def elapsed_time(self, evtend):
        return event_elapsed_time(self, evtend)


def event(timing=True):
    return Event(timing)


def event_elapsed_time(evtstart, evtend):
    if evtstart._t is None or evtend._t is None:
        raise RuntimeError("event_elapsed_time: both events must be recorded")
    return (evtend._t - evtstart._t) * 1000.0


def synchronize():
    pass


def is_available():
    return True


def is_float16_supported():
    return True


class FakeDevice:
    id = 0
    name = b"SIMULATOR"
    compute_capability = (9, 0)
    MULTIPROCESSOR_COUNT = 1
    WARP_SIZE = _k.WARP_SIZE
    MAX_THREADS_PER_BLOCK = 1024
    MAX_SHARED_MEMORY_PER_BLOCK = 48 * 1024
    COOPERATIVE_LAUNCH = 0
    supports_float16 = True

    def reset(self):
        pass

    def __repr__(self):
        return "<simulated CUDA device 0>"


class FakeContext:
    device = FakeDevice()

    def get_memory_info(self):
        return (0, 0)

    def synchronize(self):
        pass

    def reset(self):
        pass


class _Gpus:
    current = FakeDevice()

    def __len__(self):
        return 1

    def __getitem__(self, i):
        if i not in (0, -1):
            raise IndexError("the simulator has one device")
        return self.current

    def __iter__(self):
        return iter([self.current])

    lst = property(lambda self: [self.current])


gpus = _Gpus()


def detect():
    print("Found 1 CUDA devices")
    print("id 0 %40s %40s" % ("SIMULATOR", "[SUPPORTED]"))
    print("Summary:\n\t1/1 devices are supported")
    return True


def select_device(device_id):
    if device_id != 0:
        raise CudaSupportError("the simulator has one device")
    return gpus.current


def get_current_device():
    return gpus.current


def list_devices():
    return [gpus.current]


def current_context():
    return FakeContext()


def close():
    pass


@contextlib.contextmanager
def defer_cleanup():
    yield


# ---- kernels -----------------------------------------------------------------------

_OPTIONS = ("device", "debug", "opt", "lineinfo", "fastmath", "max_registers", "link", "cache",
            "inline", "lto", "launch_bounds", "forceinline")


class SimKernel:
    """@cuda.jit in the simulator: kernel[grid, block](*args) runs the
    Python function on every simulated thread."""

    def __init__(self, py_func, sigs=None, **options):
        for k in options:
            if k not in _OPTIONS:
                raise TypeError("cuda.jit() got an unexpected option %r" % k)
        self.py_func = py_func
        self.__name__ = getattr(py_func, "__name__", "kernel")
        self.__qualname__ = getattr(py_func, "__qualname__", self.__name__)
        self.__doc__ = getattr(py_func, "__doc__", None)
        self.__wrapped__ = py_func
        self.targetoptions = dict(options)
        self._sigs = list(sigs or [])

    def __getitem__(self, config):
        if not isinstance(config, tuple) or len(config) not in (2, 3, 4):
            raise ValueError("must specify at least the griddim and blockdim")
        griddim, blockdim = config[0], config[1]
        sharedmem = config[3] if len(config) > 3 else 0
        return lambda *args: self._run(griddim, blockdim, sharedmem, args)

    def __call__(self, *args, **kwargs):
        raise ValueError("kernel launch configuration was not specified. Use the syntax:\n\n"
                         "kernel_function[blockspergrid, threadsperblock](arg0, arg1, ..., argn)")

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        if ntasks < 0:
            raise ValueError("Can't create ForAll with negative task count: %s" % ntasks)
        tpb = tpb or 128

        def launch(*args):
            if ntasks:
                self._run((ntasks + tpb - 1) // tpb, tpb, sharedmem, args)
        return launch

    def _run(self, griddim, blockdim, sharedmem, args):
        args = tuple(_host(a) if isinstance(a, FakeCUDAArray) else a for a in args)
        for a in args:
            if hasattr(a, "__cuda_array_interface__") and not isinstance(a, np.ndarray):
                raise CudaSupportError("the simulator cannot run a kernel on real device memory")
        _k.run_kernel(self.py_func, griddim, blockdim, sharedmem, args)

    @property
    def signatures(self):
        return list(self._sigs)

    def max_cooperative_grid_blocks(self, blockdim, dynsmemsize=0, signature=None):
        """The simulator runs a cooperative grid's threads at once: at most
        kernel.MAX_COOPERATIVE_THREADS of them."""
        n = 1
        for d in (blockdim if isinstance(blockdim, tuple) else (blockdim,)):
            n *= int(d)
        return _k.MAX_COOPERATIVE_THREADS // n

    def inspect_ptx(self, signature=None):
        raise CudaSupportError("the simulator produces no PTX (inspect_ptx)")

    inspect_llvm = inspect_asm = inspect_ptx

    def __repr__(self):
        return "<simulated CUDA kernel %s>" % self.__qualname__


class SimDeviceFunction:
    """@cuda.jit(device=True) in the simulator: calls the Python function."""

    def __init__(self, py_func, **options):
        self.py_func = py_func
        self.__name__ = getattr(py_func, "__name__", "device_function")
        self.__qualname__ = getattr(py_func, "__qualname__", self.__name__)
        self.__wrapped__ = py_func

    def __call__(self, *args, **kwargs):
        return self.py_func(*args, **kwargs)


def jit(func_or_sig=None, device=False, **options):
    """@cuda.jit for the simulator (same arguments as the real one)."""
    if func_or_sig is None or not callable(func_or_sig) or isinstance(func_or_sig, str):
        sigs = func_or_sig
        if sigs is not None and not isinstance(sigs, list):
            sigs = [sigs]

        def decorate(f):
            if device:
                return SimDeviceFunction(f, **options)
            return SimKernel(f, sigs, **options)
        return decorate
    if device:
        return SimDeviceFunction(func_or_sig, **options)
    return SimKernel(func_or_sig, None, **options)


def declare_device(name, sig, link=None):
    raise CudaSupportError("declare_device (external device functions) needs a GPU")


__all__ = DEVICE_NAMES + [
    "jit", "to_device", "device_array", "device_array_like", "pinned_array", "pinned_array_like",
    "mapped_array", "mapped_array_like", "managed_array", "pinned", "mapped", "stream",
    "default_stream", "legacy_default_stream", "per_thread_default_stream", "external_stream",
    "event", "event_elapsed_time", "synchronize", "is_available", "detect", "select_device",
    "get_current_device", "list_devices", "close", "current_context", "as_cuda_array",
    "is_cuda_array", "defer_cleanup", "gpus", "is_float16_supported", "DeviceNDArray", "Stream",
    "Event", "SIMULATOR", "declare_device", "open_ipc_array", "IpcArrayHandle",
]
