"""Device arrays (numba.cuda.cudadrv.devicearray): an n-d view of device
memory with NumPy's shape/strides/dtype, copies to and from the host,
slicing into views, and __cuda_array_interface__ (v3) both ways.

Each array precomputes what a kernel launch needs (hpcjit/_core's
_cuda_launch reads them): _hj_tc, its typecode ("af1C"), and _hj_desc, the
bytes of its PTX parameters (data pointer, shape, strides in bytes;
docs/CUDA.md).
"""
import struct
import warnings

import numpy as np

from ... import _core
from . import driver
from .driver import DeviceArrayBase

_TC = {("b", 1): "?", ("i", 1): "b", ("i", 2): "h", ("i", 4): "i", ("i", 8): "l",
       ("u", 1): "B", ("u", 2): "H", ("u", 4): "I", ("u", 8): "L", ("f", 2): "e", ("f", 4): "f",
       ("f", 8): "d", ("c", 8): "F", ("c", 16): "D"}


def dtype_typecode(dtype):
    """hpcjit's scalar typecode of a dtype, or None when kernels cannot take it."""
    if dtype.byteorder == ">":
        return None
    return _TC.get((dtype.kind, dtype.itemsize))


def _c_strides(shape, itemsize):
    strides, s = [], itemsize
    for n in reversed(shape):
        strides.append(s)
        s *= max(n, 1)
    return tuple(reversed(strides))


def _f_strides(shape, itemsize):
    strides, s = [], itemsize
    for n in shape:
        strides.append(s)
        s *= max(n, 1)
    return tuple(strides)


def _normalize_shape(shape):
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    shape = tuple(int(n) for n in shape)
    if any(n < 0 for n in shape):
        raise ValueError("array dimensions must be non-negative, got %s" % (shape,))
    return shape


def _is_contig(shape, strides, itemsize, order):
    want = _c_strides(shape, itemsize) if order == "C" else _f_strides(shape, itemsize)
    return all(n <= 1 or s == w for n, s, w in zip(shape, strides, want))


def _extent(shape, strides, itemsize):
    """(lowest, highest+1) byte offsets the view touches, relative to its start."""
    if any(n == 0 for n in shape):
        return 0, 0
    lo = hi = 0
    for n, s in zip(shape, strides):
        if s < 0:
            lo += (n - 1) * s
        else:
            hi += (n - 1) * s
    return lo, hi + itemsize


class DeviceNDArray(DeviceArrayBase):
    """An array in device memory.  `gpu_data` owns (or keeps alive) the
    memory; `_ptr` is the address of the first element."""
    __slots__ = ("shape", "strides", "dtype", "size", "ndim", "_ptr", "gpu_data", "stream",
                 "_hj_tc", "_hj_desc", "_readonly", "_cc", "__weakref__")

    def __init__(self, shape, strides, dtype, stream=0, gpu_data=None, ptr=None, readonly=False):
        dtype = np.dtype(dtype)
        shape = _normalize_shape(shape)
        if strides is None:
            strides = _c_strides(shape, dtype.itemsize)
        self.shape = shape
        self.strides = tuple(int(s) for s in strides)
        self.dtype = dtype
        self.ndim = len(shape)
        self.size = int(np.prod(shape, dtype=np.int64)) if shape else 1
        self.stream = stream
        self._readonly = readonly
        if gpu_data is None:
            lo, hi = _extent(self.shape, self.strides, dtype.itemsize)
            gpu_data = driver.DeviceMemory(hi - lo)
            ptr = gpu_data.ptr - lo
        self.gpu_data = gpu_data
        self._ptr = gpu_data.ptr if ptr is None else ptr
        code = dtype_typecode(dtype)
        if code is None or self.ndim > 9:
            self._hj_tc = "?unsupported"  # never matches a specialisation
        else:
            self._hj_tc = ("r" if readonly else "a") + code + chr(ord("0") + self.ndim) + self._layout()
        self._hj_desc = struct.pack("<Q%dq" % (2 * self.ndim), self._ptr, *self.shape, *self.strides)

    def _layout(self):
        isz = self.dtype.itemsize
        if _is_contig(self.shape, self.strides, isz, "C"):
            return "C"
        if _is_contig(self.shape, self.strides, isz, "F"):
            return "F"
        return "A"

    # ---- NumPy-like attributes ----
    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    @property
    def alloc_size(self):
        return getattr(self.gpu_data, "size", self.nbytes)

    @property
    def flags(self):
        c = _is_contig(self.shape, self.strides, self.itemsize, "C")
        f = _is_contig(self.shape, self.strides, self.itemsize, "F")
        return {"C_CONTIGUOUS": c, "F_CONTIGUOUS": f, "WRITEABLE": not self._readonly}

    def is_c_contiguous(self):
        try:  # shape and strides never change: computed once
            return self._cc
        except AttributeError:
            c = self._cc = _is_contig(self.shape, self.strides, self.itemsize, "C")
            return c

    def is_f_contiguous(self):
        return _is_contig(self.shape, self.strides, self.itemsize, "F")

    @property
    def device_ctypes_pointer(self):
        import ctypes
        return ctypes.c_void_p(self._ptr if self.size else 0)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __repr__(self):
        return "<hpcjit.cuda DeviceNDArray shape=%s dtype=%s>" % (self.shape, self.dtype)

    @property
    def __cuda_array_interface__(self):
        contiguous = self.is_c_contiguous()
        stream = self.stream
        handle = stream if isinstance(stream, int) else getattr(stream, "handle", 0)
        return {
            "shape": self.shape,
            "strides": None if contiguous else self.strides,
            "data": (self._ptr if self.size else 0, self._readonly),
            "typestr": self.dtype.str,
            "stream": handle if handle else None,
            "version": 3,
        }

    def bind(self, stream=0):
        return DeviceNDArray(self.shape, self.strides, self.dtype, stream, self.gpu_data,
                             self._ptr, self._readonly)

    # ---- copies ----
    def _contig_extent(self):
        lo, hi = _extent(self.shape, self.strides, self.itemsize)
        return self._ptr + lo, hi - lo

    def copy_to_host(self, ary=None, stream=0):
        """A NumPy array with this array's contents (into `ary` when given;
        asynchronous on `stream`: then `ary` should be pinned)."""
        handle = driver._stream_handle(stream)
        if ary is None:
            if self.size == 0:
                return np.empty(self.shape, self.dtype)
            if self.is_c_contiguous() or self.is_f_contiguous():
                hostary = np.empty(self.shape, self.dtype,
                                   order="C" if self.is_c_contiguous() else "F")
                _core._cuda_copy(1, hostary.ctypes.data, self._ptr, self.nbytes, handle, bool(handle))
                return hostary
            # a strided view: copy the span it covers, then gather it
            base, nbytes = self._contig_extent()
            lo, _ = _extent(self.shape, self.strides, self.itemsize)
            buf = np.empty(nbytes, np.uint8)
            _core._cuda_copy(1, buf.ctypes.data, base, nbytes, 0, False)
            return np.array(np.ndarray(self.shape, self.dtype, buf, -lo, self.strides))
        if not isinstance(ary, np.ndarray):
            raise TypeError("copy_to_host: ary must be a NumPy array")
        if ary.shape != self.shape and ary.size != self.size:
            raise ValueError("incompatible shape: %s vs %s" % (ary.shape, self.shape))
        if ary.dtype != self.dtype:
            raise TypeError("incompatible dtype: %s vs %s" % (ary.dtype, self.dtype))
        if (self.is_c_contiguous() and ary.flags.c_contiguous) or (
                self.is_f_contiguous() and ary.flags.f_contiguous and ary.shape == self.shape):
            _core._cuda_copy(1, ary.ctypes.data, self._ptr, self.nbytes, handle, bool(handle))
        else:
            ary[...] = self.copy_to_host().reshape(ary.shape)
        return ary

    def copy_to_device(self, ary, stream=0):
        """Copy a host array (or another device array) into this one."""
        handle = driver._stream_handle(stream)
        if isinstance(ary, DeviceNDArray) or _has_cai(ary):
            src = ary if isinstance(ary, DeviceNDArray) else as_cuda_array(ary)
            if src.shape != self.shape or src.dtype != self.dtype:
                raise ValueError("incompatible arrays: %s %s vs %s %s" % (src.shape, src.dtype,
                                                                         self.shape, self.dtype))
            if not (src.is_c_contiguous() and self.is_c_contiguous()):
                raise NotImplementedError("device-to-device copies of non-contiguous arrays")
            _core._cuda_copy(2, self._ptr, src._ptr, self.nbytes, handle, bool(handle))
            return
        host = np.asarray(ary)
        if host.dtype != self.dtype:
            host = host.astype(self.dtype)
        if host.shape != self.shape:
            if host.size == self.size and host.ndim <= 1 or host.shape == ():
                host = np.broadcast_to(host, self.shape) if host.size == 1 and self.size != 1 \
                    else host.reshape(self.shape)
            else:
                raise ValueError("incompatible shape: %s vs %s" % (host.shape, self.shape))
        if self.is_c_contiguous():
            host = np.ascontiguousarray(host)
            _core._cuda_copy(0, self._ptr, host.ctypes.data, self.nbytes, handle, bool(handle))
        elif self.is_f_contiguous():
            host = np.asfortranarray(host)
            _core._cuda_copy(0, self._ptr, host.ctypes.data, self.nbytes, handle, bool(handle))
        else:
            # a strided view: read the span it covers, update it, write it back
            base, nbytes = self._contig_extent()
            lo, _ = _extent(self.shape, self.strides, self.itemsize)
            buf = np.empty(nbytes, np.uint8)
            _core._cuda_copy(1, buf.ctypes.data, base, nbytes, 0, False)
            np.ndarray(self.shape, self.dtype, buf, -lo, self.strides)[...] = host
            _core._cuda_copy(0, base, buf.ctypes.data, nbytes, 0, False)
        if handle:
            # the host buffer may be a temporary: it must outlive the copy
            _core._cuda_stream_synchronize(handle)

    def copy_to_host_async(self, stream):
        return self.copy_to_host(stream=stream)

    # ---- views ----
    def __getitem__(self, index):
        view = self._view(index)
        if view.ndim == 0 and not _is_view_index(index):
            return view.copy_to_host()[()]
        return view

    def _view(self, index):
        idx = index if isinstance(index, tuple) else (index,)
        if not all(isinstance(i, (int, np.integer, slice)) or i is Ellipsis or i is None
                   for i in idx):
            raise NotImplementedError("device arrays support basic indexing only (ints, slices, "
                                      "..., None), not %r" % (index,))
        if len(idx) == self.ndim and all(isinstance(i, (int, np.integer)) for i in idx):
            return DeviceNDArray((), (), self.dtype, self.stream, self.gpu_data,
                                 self._ptr + _scalar_offset(self, idx), self._readonly)
        # NumPy computes the view's offset, shape and strides on a stand-in
        # array at a fake address (never read: basic indexing makes views)
        fake = np.asarray(_Fake({"shape": self.shape, "strides": self.strides,
                                 "typestr": self.dtype.str, "data": (_FAKE_BASE, False),
                                 "version": 3}))
        sub = fake[index]
        offset = sub.__array_interface__["data"][0] - _FAKE_BASE
        return DeviceNDArray(sub.shape, sub.strides, self.dtype, self.stream, self.gpu_data,
                             self._ptr + offset, self._readonly)

    def __setitem__(self, index, value):
        view = self._view(index)
        view.copy_to_device(np.asarray(value, dtype=self.dtype))

    def reshape(self, *newshape, order="C"):
        if len(newshape) == 1 and isinstance(newshape[0], (tuple, list)):
            newshape = tuple(newshape[0])
        newshape = list(newshape)
        if -1 in newshape:
            known = int(np.prod([n for n in newshape if n != -1]))
            newshape[newshape.index(-1)] = self.size // known if known else 0
        newshape = tuple(newshape)
        if int(np.prod(newshape, dtype=np.int64)) != self.size:
            raise ValueError("cannot reshape array of size %d into shape %s" % (self.size, newshape))
        if order == "C" and self.is_c_contiguous():
            strides = _c_strides(newshape, self.itemsize)
        elif order == "F" and self.is_f_contiguous():
            strides = _f_strides(newshape, self.itemsize)
        else:
            raise NotImplementedError("reshape of a non-contiguous device array")
        return DeviceNDArray(newshape, strides, self.dtype, self.stream, self.gpu_data, self._ptr,
                             self._readonly)

    def ravel(self, order="C"):
        return self.reshape(self.size, order=order)

    def transpose(self, axes=None):
        axes = tuple(reversed(range(self.ndim))) if axes is None else tuple(axes)
        return DeviceNDArray(tuple(self.shape[a] for a in axes), tuple(self.strides[a] for a in axes),
                             self.dtype, self.stream, self.gpu_data, self._ptr, self._readonly)

    @property
    def T(self):
        return self.transpose()

    def view(self, dtype):
        dtype = np.dtype(dtype)
        if dtype.itemsize != self.itemsize:
            if not self.is_c_contiguous() or self.ndim == 0:
                raise ValueError("view with another itemsize needs a C-contiguous array")
            last = self.shape[-1] * self.itemsize
            if last % dtype.itemsize:
                raise ValueError("the last axis is not a multiple of the new itemsize")
            shape = self.shape[:-1] + (last // dtype.itemsize,)
            return DeviceNDArray(shape, _c_strides(shape, dtype.itemsize), dtype, self.stream,
                                 self.gpu_data, self._ptr, self._readonly)
        return DeviceNDArray(self.shape, self.strides, dtype, self.stream, self.gpu_data, self._ptr,
                             self._readonly)

    def split(self, section, stream=0):
        if self.ndim != 1 or not self.is_c_contiguous():
            raise ValueError("split needs a 1-D contiguous array")
        return [self[i:i + section] for i in range(0, self.size, section)]

    def get_ipc_handle(self):
        """An IpcArrayHandle to pickle to another process (cudadrv/ipc.py)."""
        from .ipc import get_ipc_handle
        return get_ipc_handle(self)


_FAKE_BASE = 1 << 46


class _Fake:
    def __init__(self, iface):
        self.__array_interface__ = iface


def _is_view_index(index):
    idx = index if isinstance(index, tuple) else (index,)
    return any(isinstance(i, slice) or i is Ellipsis or i is None for i in idx)


def _scalar_offset(arr, index):
    idx = index if isinstance(index, tuple) else (index,)
    if len(idx) != arr.ndim:
        raise IndexError("expected %d indices, got %d" % (arr.ndim, len(idx)))
    off = 0
    for i, n, s in zip(idx, arr.shape, arr.strides):
        i = int(i)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("index %d is out of bounds for axis with size %d" % (i, n))
        off += i * s
    return off


# ---- foreign arrays -----------------------------------------------------------

def _has_cai(obj):
    return hasattr(obj, "__cuda_array_interface__")


def is_cuda_array(obj):
    """True when obj exports __cuda_array_interface__."""
    return _has_cai(obj)


def from_cuda_array_interface(desc, owner=None, sync=True):
    """A DeviceNDArray viewing the memory a __cuda_array_interface__ dict
    describes (owner kept alive).  With sync, the producer's stream is
    synchronized first (CAI v3)."""
    version = desc.get("version", 0)
    if version < 0 or version > 3:
        raise ValueError("unsupported __cuda_array_interface__ version %r" % (version,))
    if desc.get("mask") is not None:
        raise NotImplementedError("masked arrays are not supported")
    shape = _normalize_shape(desc["shape"])
    dtype = np.dtype(desc["typestr"])
    strides = desc.get("strides")
    if strides is None:
        strides = _c_strides(shape, dtype.itemsize)
    ptr, readonly = desc["data"]
    stream = desc.get("stream")
    if sync and stream is not None and version >= 3:
        if stream == 0:
            raise ValueError("__cuda_array_interface__ stream 0 is disallowed (CAI v3)")
        _core._cuda_stream_synchronize(int(stream))
    return DeviceNDArray(shape, strides, dtype, 0, _Owner(owner, ptr), ptr or 0, bool(readonly))


class _Owner:
    """Keeps a foreign array alive while a view of it exists."""
    __slots__ = ("obj", "ptr", "size")

    def __init__(self, obj, ptr):
        self.obj = obj
        self.ptr = ptr or 0
        self.size = 0


def as_cuda_array(obj, sync=True):
    """A DeviceNDArray sharing obj's memory (obj has __cuda_array_interface__)."""
    if isinstance(obj, DeviceNDArray):
        return obj
    if not _has_cai(obj):
        raise TypeError("*obj* doesn't implement the cuda array interface.")
    return from_cuda_array_interface(obj.__cuda_array_interface__, owner=obj, sync=sync)


# ---- host-side mapped and managed arrays ----------------------------------------

def host_view(mem, shape, dtype, strides=None, order="C"):
    """A NumPy array over pinned/mapped/managed memory `mem` (its base)."""
    dtype = np.dtype(dtype)
    shape = _normalize_shape(shape)
    if strides is None:
        strides = _c_strides(shape, dtype.itemsize) if order == "C" else _f_strides(shape, dtype.itemsize)
    raw = np.asarray(mem)
    return np.ndarray(shape, dtype, raw, 0, strides)


def device_view_of_host(ary):
    """For a NumPy array over mapped or managed memory: the DeviceNDArray a
    kernel uses in its place (no copy); None for ordinary host arrays."""
    base = ary
    while isinstance(base, np.ndarray):
        base = base.base
    if isinstance(base, driver.ManagedMemory):
        devptr = base.ptr
        hostaddr = base.ptr
    elif isinstance(base, driver.HostMemory) and base.mapped:
        devptr = base.devptr
        hostaddr = base.addr
    else:
        return None
    offset = ary.__array_interface__["data"][0] - hostaddr
    return DeviceNDArray(ary.shape, ary.strides, ary.dtype, 0, _Owner(ary, devptr), devptr + offset,
                         not ary.flags.writeable)


def auto_device(obj, stream=0, copy=True):
    """(device array, converted): obj as a device array; converted is True
    when a host array was copied (the caller copies it back)."""
    if isinstance(obj, DeviceNDArray):
        return obj, False
    if _has_cai(obj):
        return as_cuda_array(obj), False
    if isinstance(obj, np.ndarray):
        mapped = device_view_of_host(obj)
        if mapped is not None:
            return mapped, False
    ary = np.asarray(obj)
    if ary.dtype == object:
        raise TypeError("cannot pass an object array to a CUDA kernel")
    dev = DeviceNDArray(ary.shape, ary.strides if (ary.flags.c_contiguous or ary.flags.f_contiguous)
                        else None, ary.dtype, stream)
    if copy:
        dev.copy_to_device(ary, stream=stream)
    return dev, True


def warn_host_array(kernel):
    """NumbaPerformanceWarning, once per kernel, for host arrays copied in."""
    from ...errors import NumbaPerformanceWarning
    if getattr(kernel, "_hj_warned_copy", False):
        return
    kernel._hj_warned_copy = True
    warnings.warn(NumbaPerformanceWarning(
        "Host array used in CUDA kernel will incur copy overhead to/from device."), stacklevel=4)
