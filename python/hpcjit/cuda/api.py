"""hpcjit.cuda's host API (numba.cuda.api's names) on the real driver."""
import contextlib

import numpy as np

from .. import _core
from .cudadrv import devicearray, driver
from .cudadrv.devicearray import (DeviceNDArray, as_cuda_array, from_cuda_array_interface,
                                  is_cuda_array)
from .cudadrv.driver import (Event, Stream, event_elapsed_time, external_stream,
                             legacy_default_stream, per_thread_default_stream)
from .cudadrv.error import CudaSupportError
from .cudadrv.ipc import IpcArrayHandle, open_ipc_array  # noqa: F401

__all__ = [
    "to_device", "device_array", "device_array_like", "pinned_array", "pinned_array_like",
    "mapped_array", "mapped_array_like", "managed_array", "pinned", "mapped", "stream",
    "default_stream", "legacy_default_stream", "per_thread_default_stream", "external_stream",
    "event", "event_elapsed_time", "synchronize", "is_available", "detect", "select_device",
    "get_current_device", "list_devices", "close", "current_context", "as_cuda_array",
    "is_cuda_array", "from_cuda_array_interface", "defer_cleanup", "gpus", "is_float16_supported",
    "DeviceNDArray", "Stream", "Event", "open_ipc_array", "IpcArrayHandle",
]


def _order_of(order):
    if order not in ("C", "F"):
        raise ValueError("order must be 'C' or 'F', got %r" % (order,))
    return order


def to_device(obj, stream=0, copy=True, to=None):
    """Copy a host array to the device (into `to` when given)."""
    if to is not None:
        to.copy_to_device(obj, stream=stream)
        return to
    ary = np.asarray(obj)
    strides = ary.strides if (ary.flags.c_contiguous or ary.flags.f_contiguous) else None
    dev = DeviceNDArray(ary.shape, strides, ary.dtype, stream)
    if copy:
        dev.copy_to_device(ary, stream=stream)
    return dev


def device_array(shape, dtype=np.float64, strides=None, order="C", stream=0):
    """An uninitialised device array."""
    dtype = np.dtype(dtype)
    shape = devicearray._normalize_shape(shape)
    if strides is None and _order_of(order) == "F":
        strides = devicearray._f_strides(shape, dtype.itemsize)
    return DeviceNDArray(shape, strides, dtype, stream)


def _like_order(ary):
    if getattr(ary, "flags", None) is not None:
        f = ary.flags
        fc = f["F_CONTIGUOUS"] if isinstance(f, dict) else f.f_contiguous
        cc = f["C_CONTIGUOUS"] if isinstance(f, dict) else f.c_contiguous
        if fc and not cc:
            return "F"
    return "C"


def device_array_like(ary, stream=0):
    return device_array(ary.shape, ary.dtype, order=_like_order(ary), stream=stream)


def pinned_array(shape, dtype=np.float64, strides=None, order="C"):
    """A NumPy array in page-locked host memory (fast, async copies)."""
    dtype = np.dtype(dtype)
    shape = devicearray._normalize_shape(shape)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    mem = driver.HostMemory(nbytes)
    return devicearray.host_view(mem, shape, dtype, strides, _order_of(order))


def pinned_array_like(ary):
    return pinned_array(ary.shape, ary.dtype, order=_like_order(ary))


def mapped_array(shape, dtype=np.float64, strides=None, order="C", stream=0, portable=False,
                 wc=False):
    """A NumPy array in pinned host memory mapped into the device's address
    space: kernels given it read and write the host memory directly."""
    dtype = np.dtype(dtype)
    shape = devicearray._normalize_shape(shape)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    mem = driver.HostMemory(nbytes, mapped=True, portable=portable)
    return devicearray.host_view(mem, shape, dtype, strides, _order_of(order))


def mapped_array_like(ary, stream=0, portable=False, wc=False):
    return mapped_array(ary.shape, ary.dtype, order=_like_order(ary), portable=portable)


def managed_array(shape, dtype=np.float64, strides=None, order="C", stream=0,
                  attach_global=True):
    """A NumPy array in managed (unified) memory, usable by kernels and the
    host (after cuda.synchronize())."""
    dtype = np.dtype(dtype)
    shape = devicearray._normalize_shape(shape)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    mem = driver.ManagedMemory(nbytes)
    return devicearray.host_view(mem, shape, dtype, strides, _order_of(order))


@contextlib.contextmanager
def pinned(*arylist):
    """Page-lock the arrays for the duration (hpcjit: a no-op context; use
    pinned_array for page-locked buffers)."""
    yield


@contextlib.contextmanager
def mapped(*arylist, **kws):
    devarys = [to_device(a, stream=kws.get("stream", 0)) for a in arylist]
    try:
        yield devarys[0] if len(devarys) == 1 else devarys
    finally:
        for a, d in zip(arylist, devarys):
            d.copy_to_host(a)


def stream():
    """A new stream."""
    return driver.create_stream()


def default_stream():
    """The default stream (the legacy default stream, handle 0)."""
    return driver.default_stream()


def event(timing=True):
    return Event(timing)


def synchronize():
    """Wait for all work on the current device."""
    driver.current_context()
    _core._cuda_synchronize()


def is_available():
    """True when a driver loads and a device is present (never raises)."""
    return driver.is_available()


def is_float16_supported():
    return True


def current_context():
    return driver.current_context()


def select_device(device_id):
    return driver.select_device(device_id)


def get_current_device():
    return driver.get_device()


def list_devices():
    return list(gpus)


def close():
    driver.close()


@contextlib.contextmanager
def defer_cleanup():
    yield


def detect():
    """Print the devices found and return True when any is supported."""
    ok, why = driver.driver_status()
    if not ok:
        print("CUDA driver not available: %s" % why)
        return False
    n = _core._cuda_device_count()
    print("Found %d CUDA devices" % n)
    supported = 0
    for i in range(n):
        dev = driver.Device(i)
        cc = dev.compute_capability
        ok = cc >= (5, 0)
        supported += ok
        print("id %d %40s %40s" % (i, dev.name.decode(), "[SUPPORTED]" if ok else "[NOT SUPPORTED]"))
        print("%40s: %d.%d" % ("Compute Capability", cc[0], cc[1]))
        print("%40s: %d" % ("PCI Device ID", dev.PCI_DEVICE_ID))
        print("%40s: %d" % ("PCI Bus ID", dev.PCI_BUS_ID))
    print("Summary:\n\t%d/%d devices are supported" % (supported, n))
    return supported > 0


class _Gpus:
    """cuda.gpus: the devices, indexable; cuda.gpus.current is this thread's."""

    def _count(self):
        ok, why = driver.driver_status()
        if not ok:
            raise CudaSupportError(why)
        return _core._cuda_device_count()

    def __len__(self):
        return self._count()

    def __getitem__(self, i):
        n = self._count()
        if not -n <= i < n:
            raise IndexError("no CUDA device %d (this machine has %d)" % (i, n))
        return _GpuContext(driver.Device(i % n))

    def __iter__(self):
        return (self[i] for i in range(self._count()))

    @property
    def current(self):
        return driver.get_device()

    @property
    def lst(self):
        return list(self)


class _GpuContext:
    """`with cuda.gpus[i]:` selects device i for the block."""

    def __init__(self, device):
        self._device = device
        self._prev = None

    def __getattr__(self, name):
        return getattr(self._device, name)

    def __enter__(self):
        self._prev = _core._cuda_current_device()
        driver.select_device(self._device.id)
        return self

    def __exit__(self, *exc):
        driver.select_device(self._prev)

    def __repr__(self):
        return repr(self._device)


gpus = _Gpus()
