"""CUDA IPC (numba.cuda's API): a device array shared with another process.

    h = d_arr.get_ipc_handle()        # an IpcArrayHandle: pickle it to another process
    with h as arr: ...                # there: a DeviceNDArray over the same memory
    with cuda.open_ipc_array(raw_handle_bytes, shape, dtype) as arr: ...

The handle names the whole cuMemAlloc block that holds the array (CUDA's
rule); the array's offset in that block travels with it.  Opening maps the
block with cuIpcOpenMemHandle (lazy peer access); closing unmaps it with
cuIpcCloseMemHandle.  The exporting process must keep its array alive while
others use it, and a process cannot open its own handles (the driver
refuses).  Linux only, as CUDA IPC is."""
import contextlib

import numpy as np

from ... import _core
from . import driver

HANDLE_BYTES = 64


def _handle_bytes(handle):
    if isinstance(handle, IpcHandle):
        return handle.handle
    b = bytes(bytearray(handle))  # bytes, bytearray, a tuple/list of ints, a ctypes array
    if len(b) != HANDLE_BYTES:
        raise ValueError(f"a CUDA IPC handle has {HANDLE_BYTES} bytes, not {len(b)}")
    return b


class IpcMemory:
    """Another process's allocation mapped here; unmapped by close() (never
    freed: the exporter owns it)."""
    __slots__ = ("ptr", "size", "__weakref__")

    def __init__(self, handle, size):
        driver.current_context()
        self.ptr = _core._cuda_ipc_open(_handle_bytes(handle))
        self.size = size

    def close(self):
        if self.ptr:
            ptr, self.ptr = self.ptr, 0
            _core._cuda_ipc_close(ptr)


class IpcHandle:
    """The 64 bytes of a CUipcMemHandle, the offset of the array in the
    allocation it names, and that allocation's size (picklable)."""

    def __init__(self, handle, offset, size):
        self.handle = _handle_bytes(handle)
        self.offset = int(offset)
        self.size = int(size)

    def __reduce__(self):
        return (IpcHandle, (self.handle, self.offset, self.size))

    def __repr__(self):
        return f"<CUDA IPC handle {self.handle[:8].hex()}... offset={self.offset} size={self.size}>"


class IpcArrayHandle:
    """What DeviceNDArray.get_ipc_handle() returns: pickle it to another
    process, where open() (or `with handle as arr`) gives a device array
    over the exporter's memory; close() unmaps it."""

    def __init__(self, ipc_handle, array_desc):
        self.ipc_handle = ipc_handle
        self.array_desc = dict(array_desc)  # shape, strides, dtype
        self._mem = None

    def __reduce__(self):
        desc = dict(self.array_desc, dtype=np.dtype(self.array_desc["dtype"]).str)
        return (IpcArrayHandle, (self.ipc_handle, desc))

    def open(self):
        from .devicearray import DeviceNDArray
        if self._mem is not None:
            raise ValueError("this IPC handle is already open (close() it first)")
        mem = IpcMemory(self.ipc_handle, self.ipc_handle.size)
        self._mem = mem
        d = self.array_desc
        return DeviceNDArray(d["shape"], d["strides"], np.dtype(d["dtype"]), gpu_data=mem,
                             ptr=mem.ptr + self.ipc_handle.offset)

    def close(self):
        if self._mem is not None:
            self._mem.close()
            self._mem = None

    def __enter__(self):
        return self.open()

    def __exit__(self, *exc):
        self.close()


def get_ipc_handle(arr):
    """DeviceNDArray.get_ipc_handle()."""
    if arr.size == 0:
        raise ValueError("an empty device array has no memory to share")
    handle, offset, size = _core._cuda_ipc_get_handle(arr.device_ctypes_pointer.value)
    # the view's first byte may not be its lowest (negative strides): ship the pointer's offset
    return IpcArrayHandle(IpcHandle(handle, offset, size),
                          {"shape": arr.shape, "strides": arr.strides, "dtype": arr.dtype})


@contextlib.contextmanager
def open_ipc_array(handle, shape, dtype, strides=None, offset=0):
    """cuda.open_ipc_array: the array (shape, dtype, strides: C-contiguous
    when omitted) at byte `offset` of the allocation `handle` names (64
    bytes: bytes, a sequence of ints), closed when the block ends."""
    from .devicearray import DeviceNDArray, _c_strides, _normalize_shape
    dtype = np.dtype(dtype)
    shape = _normalize_shape(shape)
    strides = _c_strides(shape, dtype.itemsize) if strides is None else tuple(int(s) for s in strides)
    size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    mem = IpcMemory(handle, size + int(offset))
    try:
        yield DeviceNDArray(shape, strides, dtype, gpu_data=mem, ptr=mem.ptr + int(offset))
    finally:
        mem.close()
