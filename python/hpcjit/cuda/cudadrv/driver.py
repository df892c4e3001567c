"""The CUDA driver for Python: devices, streams, events, memory owners.

Thin objects over hpcjit._core's _cuda_* functions (runtime/cudrv.c).
libcuda.so.1 is loaded on the first call that needs it, never at import.
"""
import contextlib
import threading

from ... import _core
from .error import CudaDriverError, CudaSupportError


class CudaAPIError(CudaDriverError):
    """A driver call failed: code is the CUresult, msg the driver's words."""

    def __init__(self, code, msg):
        self.code = code
        self.msg = msg
        super().__init__(code, msg)

    def __str__(self):
        return "[%s] %s" % (self.code, self.msg)


class DeviceArrayBase:
    """Base class of device arrays: the C launch path accepts its
    instances (set below, DeviceNDArray derives from it)."""
    __slots__ = ()


_core._cuda_set_errors(CudaSupportError, CudaAPIError, DeviceArrayBase)

# CUdevice_attribute values (cuda.h) under Numba's attribute names
ATTRIBUTES = {
    "MAX_THREADS_PER_BLOCK": 1, "MAX_BLOCK_DIM_X": 2, "MAX_BLOCK_DIM_Y": 3, "MAX_BLOCK_DIM_Z": 4,
    "MAX_GRID_DIM_X": 5, "MAX_GRID_DIM_Y": 6, "MAX_GRID_DIM_Z": 7,
    "MAX_SHARED_MEMORY_PER_BLOCK": 8, "TOTAL_CONSTANT_MEMORY": 9, "WARP_SIZE": 10,
    "MAX_REGISTERS_PER_BLOCK": 12, "CLOCK_RATE": 13, "MULTIPROCESSOR_COUNT": 16,
    "KERNEL_EXEC_TIMEOUT": 17, "INTEGRATED": 18, "CAN_MAP_HOST_MEMORY": 19,
    "COMPUTE_MODE": 20, "CONCURRENT_KERNELS": 31, "ECC_ENABLED": 32, "PCI_BUS_ID": 33,
    "PCI_DEVICE_ID": 34, "MEMORY_CLOCK_RATE": 36, "GLOBAL_MEMORY_BUS_WIDTH": 37,
    "L2_CACHE_SIZE": 38, "MAX_THREADS_PER_MULTIPROCESSOR": 39, "ASYNC_ENGINE_COUNT": 40,
    "UNIFIED_ADDRESSING": 41, "PCI_DOMAIN_ID": 50, "COMPUTE_CAPABILITY_MAJOR": 75,
    "COMPUTE_CAPABILITY_MINOR": 76, "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR": 81,
    "MANAGED_MEMORY": 83, "MULTI_GPU_BOARD": 84, "CONCURRENT_MANAGED_ACCESS": 89,
    "COOPERATIVE_LAUNCH": 95, "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": 97,
}

# CUfunction_attribute values
FUNC_MAX_THREADS_PER_BLOCK = 0
FUNC_SHARED_SIZE_BYTES = 1
FUNC_CONST_SIZE_BYTES = 2
FUNC_LOCAL_SIZE_BYTES = 3
FUNC_NUM_REGS = 4


def init():
    """Load the driver; CudaSupportError naming what is missing."""
    _core._cuda_init()


def driver_status():
    """(True, "") when a driver loads and cuInit succeeds, else (False, why)."""
    st, msg = _core._cuda_status()
    return st == 0, msg


def is_available():
    ok, _ = driver_status()
    if not ok:
        return False
    try:
        return _core._cuda_device_count() > 0
    except CudaDriverError:
        return False


class Device:
    """One GPU (numba.cuda.cudadrv.driver.Device): attributes by Numba's
    names (dev.MULTIPROCESSOR_COUNT), name, compute_capability."""

    def __init__(self, devnum):
        self.id = devnum
        self._attrs = {}

    def __getattr__(self, name):
        if name in ATTRIBUTES:
            v = self._attrs.get(name)
            if v is None:
                v = self._attrs[name] = _core._cuda_device_attribute(self.id, ATTRIBUTES[name])
            return v
        raise AttributeError(name)

    @property
    def name(self):
        return _core._cuda_device_name(self.id).encode()

    @property
    def compute_capability(self):
        return (self.COMPUTE_CAPABILITY_MAJOR, self.COMPUTE_CAPABILITY_MINOR)

    @property
    def total_memory(self):
        return _core._cuda_device_total_mem(self.id)

    @property
    def supports_float16(self):
        return self.compute_capability >= (5, 3)

    def get_primary_context(self):
        _core._cuda_set_device(self.id)
        return Context(self)

    def reset(self):
        close()

    def __repr__(self):
        return "<CUDA device %d '%s'>" % (self.id, self.name.decode())

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(("cuda.Device", self.id))


class Context:
    """The device's primary context, current on this thread."""

    def __init__(self, device):
        self.device = device

    def get_memory_info(self):
        free, total = _core._cuda_mem_info()
        return MemoryInfo(free, total)

    def synchronize(self):
        _core._cuda_synchronize()

    def reset(self):
        close()

    def deallocations(self):
        return _core._cuda_pending_frees()


class MemoryInfo(tuple):
    def __new__(cls, free, total):
        return super().__new__(cls, (free, total))

    free = property(lambda self: self[0])
    total = property(lambda self: self[1])


_tls = threading.local()


def get_device(devnum=None):
    init()
    if devnum is None:
        devnum = _core._cuda_current_device()
    n = _core._cuda_device_count()
    if n == 0:
        raise CudaSupportError("no CUDA-capable device is detected")
    if not 0 <= devnum < n:
        raise CudaSupportError(f"no CUDA device {devnum} (this machine has {n})")
    return Device(devnum)


def current_context():
    """Make this thread's device context current and return it."""
    dev = get_device()
    if getattr(_tls, "device", None) != dev.id:
        _core._cuda_set_device(dev.id)
        _tls.device = dev.id
    return Context(dev)


def select_device(devnum):
    init()
    _core._cuda_set_device(devnum)
    _tls.device = devnum
    return Device(devnum)


def close():
    """Free what is pending and release this process's contexts (cuda.close)."""
    ok, _ = driver_status()
    if ok:
        _core._cuda_shutdown()
    _tls.device = None


# ---- memory owners ---------------------------------------------------------

class DeviceMemory:
    """An allocation of device (or managed) memory, freed (deferred, batched)
    when the last array using it goes."""
    __slots__ = ("ptr", "size", "managed", "__weakref__")

    def __init__(self, size, managed=False):
        self.ptr = 0  # before anything can raise: __del__ reads it
        current_context()
        self.size = size
        self.managed = managed
        self.ptr = _core._cuda_managed_alloc(size) if managed else _core._cuda_malloc(size)

    def __del__(self):
        if self.ptr:
            try:
                _core._cuda_free(self.ptr, self.size)
            except Exception:  # noqa: BLE001 - nothing to report to at teardown
                pass
            self.ptr = 0

    @property
    def device_ctypes_pointer(self):
        import ctypes
        return ctypes.c_void_p(self.ptr)


class HostMemory:
    """Page-locked host memory (cuMemHostAlloc), optionally mapped into the
    device's address space; a NumPy array views it through
    __array_interface__ and keeps it alive as its base."""
    __slots__ = ("addr", "size", "mapped", "devptr", "__weakref__")

    def __init__(self, size, mapped=False, portable=False):
        current_context()
        self.addr = 0
        self.size = size
        self.mapped = mapped
        flags = (2 if mapped else 0) | (1 if portable else 0)
        self.addr = _core._cuda_host_alloc(size, flags)
        self.devptr = _core._cuda_host_device_pointer(self.addr) if mapped else 0

    @property
    def __array_interface__(self):
        return {"shape": (self.size,), "typestr": "|u1", "data": (self.addr, False),
                "version": 3}

    def __del__(self):
        if self.addr:
            try:
                _core._cuda_host_free(self.addr)
            except Exception:  # noqa: BLE001
                pass
            self.addr = 0


class ManagedMemory(DeviceMemory):
    """Managed memory, also viewed by a NumPy array on the host."""
    __slots__ = ()

    def __init__(self, size):
        super().__init__(size, managed=True)

    @property
    def __array_interface__(self):
        return {"shape": (self.size,), "typestr": "|u1", "data": (self.ptr, False),
                "version": 3}


# ---- streams and events ------------------------------------------------------

class Stream:
    """A CUDA stream (numba.cuda.cudadrv.driver.Stream).  handle is the
    CUstream as an int (0: the legacy default stream, 2: per-thread)."""
    __slots__ = ("handle", "_owned", "external", "__weakref__")

    def __init__(self, handle, owned, external=False):
        self.handle = handle
        self._owned = owned
        self.external = external

    def synchronize(self):
        _core._cuda_stream_synchronize(self.handle)

    def query(self):
        return _core._cuda_stream_query(self.handle)

    def wait_event(self, event):
        _core._cuda_stream_wait_event(self.handle, event.handle)

    @contextlib.contextmanager
    def auto_synchronize(self):
        yield self
        self.synchronize()

    def record(self, event=None):
        ev = event or Event(True)
        ev.record(self)
        return ev

    def __int__(self):
        return self.handle

    def __del__(self):
        if self._owned and self.handle:
            try:
                _core._cuda_stream_destroy(self.handle)
            except Exception:  # noqa: BLE001
                pass
            self.handle = 0

    def __repr__(self):
        kind = {0: "default", 1: "legacy default", 2: "per-thread default"}.get(self.handle)
        if kind and not self._owned:
            return f"<CUDA {kind} stream>"
        return f"<CUDA stream {self.handle:#x}{' (external)' if self.external else ''}>"


def create_stream():
    current_context()
    return Stream(_core._cuda_stream_create(False), True)


def default_stream():
    current_context()
    return Stream(0, False)


def legacy_default_stream():
    current_context()
    return Stream(1, False)


def per_thread_default_stream():
    current_context()
    return Stream(2, False)


def external_stream(ptr):
    current_context()
    return Stream(int(ptr), False, external=True)


class Event:
    __slots__ = ("handle", "timing", "__weakref__")

    def __init__(self, timing=True):
        current_context()
        self.handle = 0
        self.timing = timing
        self.handle = _core._cuda_event_create(timing)

    def record(self, stream=0):
        _core._cuda_event_record(self.handle, _stream_handle(stream))

    def synchronize(self):
        _core._cuda_event_synchronize(self.handle)

    def query(self):
        return _core._cuda_event_query(self.handle)

    def wait(self, stream=0):
        _core._cuda_stream_wait_event(_stream_handle(stream), self.handle)

    def elapsed_time(self, evtend):
        return event_elapsed_time(self, evtend)

    def __del__(self):
        if self.handle:
            try:
                _core._cuda_event_destroy(self.handle)
            except Exception:  # noqa: BLE001
                pass
            self.handle = 0


def event_elapsed_time(evtstart, evtend):
    """Milliseconds between two recorded timing events."""
    return _core._cuda_event_elapsed(evtstart.handle, evtend.handle)


def _stream_handle(stream):
    if stream is None or stream == 0:
        return 0
    if isinstance(stream, int):
        return stream
    return stream.handle
