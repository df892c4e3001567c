"""CUDA IPC in the simulator, across real processes.

Every simulated device allocation lives in a memfd mapped into the process
(Linux: os.memfd_create), so that get_ipc_handle() can name it: the handle
carries (pid, fd, allocation size, offset of the array), and another
process opens /proc/<pid>/fd/<fd> and maps the same pages, as a GPU's IPC
maps the same device memory.  Writes on either side are seen by the other.
The exporter must keep its array alive while others use it, and (as CUDA)
cannot open its own handle.  Where memfd is missing, allocations are plain
NumPy arrays and get_ipc_handle raises."""
import contextlib
import mmap
import os
import struct
import weakref

import numpy as np

_MAGIC = b"hjsimipc"
HANDLE_BYTES = 64
HAVE_SHARED = hasattr(os, "memfd_create") and os.path.isdir("/proc/self/fd")


_owner = {}  # id(mmap) -> (fd, size) of each live allocation


def _release(key, fd):
    _owner.pop(key, None)
    os.close(fd)


def empty(shape, dtype, order="C"):
    """A zeroed array in its own shareable memfd block (a NumPy array where
    memfd is missing).  The fd closes when the last view of it goes."""
    dtype = np.dtype(dtype)
    if not HAVE_SHARED:
        return np.zeros(shape, dtype, order=order)
    proto = np.empty(shape, dtype, order=order)
    size = max(proto.nbytes, 1)
    try:
        fd = os.memfd_create("hpcjit-sim-device", 0)
    except OSError:  # out of file descriptors: a private array (no IPC handle for it)
        return np.zeros(shape, dtype, order=order)
    try:
        os.ftruncate(fd, size)
        m = mmap.mmap(fd, size)
    except BaseException:
        os.close(fd)
        raise
    _owner[id(m)] = (fd, size)
    weakref.finalize(m, _release, id(m), fd)
    return np.ndarray(proto.shape, dtype, buffer=m, strides=proto.strides)


def _block_of(a):
    """(mmap, fd, size) of the allocation an array views, or None."""
    b = a
    while isinstance(b, np.ndarray) and b.base is not None:
        b = b.base
    if isinstance(b, memoryview):
        b = b.obj
    if isinstance(b, mmap.mmap) and id(b) in _owner:
        return (b,) + _owner[id(b)]
    return None


def _addr(buf):
    return np.frombuffer(buf, np.uint8, count=1).ctypes.data if len(buf) else 0


class IpcHandle:
    """The 64 bytes of a simulated IPC handle, the array's offset in its
    block and the block's size (picklable)."""

    def __init__(self, handle, offset, size):
        self.handle = bytes(bytearray(handle))
        if len(self.handle) != HANDLE_BYTES:
            raise ValueError(f"a CUDA IPC handle has {HANDLE_BYTES} bytes, not {len(self.handle)}")
        self.offset = int(offset)
        self.size = int(size)

    def __reduce__(self):
        return (IpcHandle, (self.handle, self.offset, self.size))


def _open_block(handle):
    raw = handle.handle if isinstance(handle, IpcHandle) else bytes(bytearray(handle))
    if len(raw) != HANDLE_BYTES:
        raise ValueError(f"a CUDA IPC handle has {HANDLE_BYTES} bytes, not {len(raw)}")
    if raw[:8] != _MAGIC:
        raise ValueError("not an IPC handle of the simulator")
    pid, fd, size = struct.unpack_from("<iiQ", raw, 8)
    if pid == os.getpid():
        from ..cudadrv.driver import CudaAPIError
        raise CudaAPIError(201, "cuIpcOpenMemHandle(): CUDA_ERROR_INVALID_CONTEXT (a process cannot "
                                "open its own IPC handle)")
    f = os.open(f"/proc/{pid}/fd/{fd}", os.O_RDWR)
    try:
        return mmap.mmap(f, size)
    finally:
        os.close(f)


class IpcArrayHandle:
    """DeviceNDArray.get_ipc_handle() of the simulator (numba's IpcArrayHandle API)."""

    def __init__(self, ipc_handle, array_desc):
        self.ipc_handle = ipc_handle
        self.array_desc = dict(array_desc)
        self._map = None

    def __reduce__(self):
        desc = dict(self.array_desc, dtype=np.dtype(self.array_desc["dtype"]).str)
        return (IpcArrayHandle, (self.ipc_handle, desc))

    def open(self):
        from . import FakeCUDAArray
        if self._map is not None:
            raise ValueError("this IPC handle is already open (close() it first)")
        self._map = _open_block(self.ipc_handle)
        d = self.array_desc
        return FakeCUDAArray(np.ndarray(d["shape"], np.dtype(d["dtype"]), buffer=self._map,
                                        offset=self.ipc_handle.offset, strides=d["strides"]))

    def close(self):
        if self._map is not None:
            m, self._map = self._map, None
            try:
                m.close()
            except BufferError:  # an array still views it: unmapped when that goes
                pass

    def __enter__(self):
        return self.open()

    def __exit__(self, *exc):
        self.close()


def get_ipc_handle(arr):
    a = arr._ary
    if a.size == 0:
        raise ValueError("an empty device array has no memory to share")
    block = _block_of(a)
    if block is None:
        from ..cudadrv.error import CudaSupportError
        raise CudaSupportError("this simulated array is not in shareable memory (made outside "
                               "to_device/device_array, or no memfd on this system): no IPC handle")
    m, fd, size = block
    offset = a.ctypes.data - _addr(m)
    raw = _MAGIC + struct.pack("<iiQ", os.getpid(), fd, size)
    return IpcArrayHandle(IpcHandle(raw.ljust(HANDLE_BYTES, b"\0"), offset, size),
                             {"shape": a.shape, "strides": a.strides, "dtype": a.dtype})


@contextlib.contextmanager
def open_ipc_array(handle, shape, dtype, strides=None, offset=0):
    from . import FakeCUDAArray
    m = _open_block(handle)
    try:
        yield FakeCUDAArray(np.ndarray(shape, np.dtype(dtype), buffer=m, offset=int(offset), strides=strides))
    finally:
        try:
            m.close()
        except BufferError:
            pass
