"""The CUDA simulator's kernels (HPCJIT_CUDA_SIM=1 / NUMBA_ENABLE_CUDASIM=1).

A launch runs the kernel's Python function on the CPU: the blocks one
after another, each block's threads as Python threads.  The threads of a
block meet at syncthreads (one barrier per block, which threads that have
returned leave), share the block's shared arrays, and a warp's threads
(warp-size groups of consecutive linear thread ids) meet at each warp
operation.  Every device object (threadIdx, shared, atomic, shfl_sync...)
reads the calling thread's state from a thread-local.
"""
import math
import threading

import numpy as np

WARP_SIZE = 32
_tls = threading.local()
_atomic_lock = threading.Lock()


class SimError(RuntimeError):
    pass


class Dim3(tuple):
    """threadIdx/blockIdx/... values: a tuple with .x .y .z."""
    __slots__ = ()

    def __new__(cls, x=1, y=1, z=1):
        return super().__new__(cls, (x, y, z))

    x = property(lambda self: self[0])
    y = property(lambda self: self[1])
    z = property(lambda self: self[2])


def current():
    t = getattr(_tls, "thread", None)
    if t is None:
        raise SimError("CUDA device functions (threadIdx, syncthreads, shared.array...) can only "
                       "be used inside a kernel launched in the simulator")
    return t


class _Barrier:
    """A barrier for the threads still running: a thread that returns
    leaves it, so the others are not left waiting for it.  wait(value)
    returns the values every thread brought to this round."""

    def __init__(self, n):
        self.n = n
        self.count = 0
        self.gen = 0
        self.values = []
        self.last = []
        self.cond = threading.Condition()
        self.broken = False

    def _release(self):
        self.last = self.values
        self.values = []
        self.count = 0
        self.gen += 1
        self.cond.notify_all()

    def wait(self, value=None):
        with self.cond:
            gen = self.gen
            self.count += 1
            self.values.append(value)
            if self.count >= self.n:
                self._release()
                return self.last
            while gen == self.gen and not self.broken:
                self.cond.wait()
            if self.broken and gen == self.gen:
                raise _Abort()
            return self.last

    def leave(self):
        with self.cond:
            self.n -= 1
            if self.count and self.count >= self.n:
                self._release()

    def abort(self):
        with self.cond:
            self.broken = True
            self.cond.notify_all()


class _Abort(BaseException):
    """Unwinds a thread whose block failed elsewhere."""


class _Block:
    def __init__(self, nthreads, dynshared):
        self.barrier = _Barrier(nthreads)
        self.lock = threading.Lock()
        self.shared = {}
        self.dynshared = np.zeros(max(dynshared, 0), np.uint8)
        nwarps = (nthreads + WARP_SIZE - 1) // WARP_SIZE
        self.warps = [_Barrier(min(WARP_SIZE, nthreads - w * WARP_SIZE)) for w in range(nwarps)]


class _Thread:
    __slots__ = ("threadIdx", "blockIdx", "blockDim", "gridDim", "block", "linear", "lane",
                 "warp", "nshared")

    def __init__(self, tid, bid, bdim, gdim, block):
        self.threadIdx = tid
        self.blockIdx = bid
        self.blockDim = bdim
        self.gridDim = gdim
        self.block = block
        self.linear = tid[0] + bdim[0] * (tid[1] + bdim[1] * tid[2])
        self.lane = self.linear % WARP_SIZE
        self.warp = block.warps[self.linear // WARP_SIZE]
        self.nshared = 0


def _dims(d, what):
    if isinstance(d, (int, np.integer)):
        d = (int(d),)
    d = tuple(int(x) for x in d)
    if not 1 <= len(d) <= 3 or any(x < 1 for x in d):
        raise ValueError("%s must be 1 to 3 positive ints, got %r" % (what, d))
    return Dim3(*(d + (1,) * (3 - len(d))))


def _code_syncs_grid(code):
    if "this_grid" in code.co_names:
        return True
    return any(_code_syncs_grid(c) for c in code.co_consts if hasattr(c, "co_names"))


def _uses_grid_sync(py_func):
    """The kernel's code, or a device function it names, calls cg.this_grid()."""
    if _code_syncs_grid(py_func.__code__):
        return True
    names = py_func.__code__.co_names
    return any(type(v).__name__ == "SimDeviceFunction" and _code_syncs_grid(v.py_func.__code__)
               for k, v in py_func.__globals__.items() if k in names)


# a cooperative launch runs every thread of the grid at once: one OS thread each
MAX_COOPERATIVE_THREADS = 4096


def run_kernel(py_func, griddim, blockdim, sharedmem, args):
    """Run py_func over the grid: the blocks in order, each block's threads
    concurrently; a kernel that syncs its grid (cg.this_grid().sync(), a
    cooperative launch) runs all blocks at once."""
    gdim = _dims(griddim, "griddim")
    bdim = _dims(blockdim, "blockdim")
    nthreads = bdim[0] * bdim[1] * bdim[2]
    if nthreads > 1024:
        raise ValueError("blockdim %s has %d threads, more than 1024" % (tuple(bdim), nthreads))
    bids = [Dim3(bx, by, bz) for bz in range(gdim[2]) for by in range(gdim[1]) for bx in range(gdim[0])]
    if _uses_grid_sync(py_func):
        total = nthreads * len(bids)
        if total > MAX_COOPERATIVE_THREADS:
            raise SimError("a cooperative launch of %d threads is more than the simulator runs at once "
                           "(%d); use a smaller grid" % (total, MAX_COOPERATIVE_THREADS))
        grid_barrier = _Barrier(total)
        blocks = [_start_block(py_func, bid, bdim, gdim, nthreads, sharedmem or 0, args, grid_barrier)
                  for bid in bids]
        for b in blocks:
            _join_block(*b)
        return
    for bid in bids:
        _join_block(*_start_block(py_func, bid, bdim, gdim, nthreads, sharedmem or 0, args, None))


def _start_block(py_func, bid, bdim, gdim, nthreads, sharedmem, args, grid_barrier):
    block = _Block(nthreads, sharedmem)
    block.grid_barrier = grid_barrier
    errors = []

    def body(tid):
        t = _Thread(tid, bid, bdim, gdim, block)
        _tls.thread = t
        try:
            py_func(*args)
        except _Abort:
            pass
        except BaseException as exc:  # noqa: BLE001 - reported to the launcher
            errors.append((tid, exc))
            block.barrier.abort()
            for w in block.warps:
                w.abort()
            if grid_barrier is not None:
                grid_barrier.abort()
        finally:
            block.barrier.leave()
            t.warp.leave()
            if grid_barrier is not None:
                grid_barrier.leave()
            _tls.thread = None

    tids = [Dim3(x, y, z) for z in range(bdim[2]) for y in range(bdim[1]) for x in range(bdim[0])]
    if nthreads == 1 and grid_barrier is None:
        body(tids[0])
        threads = []
    else:
        threads = [threading.Thread(target=body, args=(tid,), daemon=True) for tid in tids]
        for th in threads:
            th.start()
    return bid, threads, errors


def _join_block(bid, threads, errors):
    for th in threads:
        th.join()
    if errors:
        tid, exc = errors[0]
        msg = "tid=%s ctaid=%s: %s" % (list(tid), list(bid), exc)
        try:
            new = type(exc)(msg)
        except Exception:  # noqa: BLE001 - exception classes with other signatures
            raise exc
        raise new.with_traceback(exc.__traceback__) from None


# ---- the objects kernels use ------------------------------------------------------

class _Dim3Proxy:
    """threadIdx & co: .x .y .z of the calling simulated thread."""
    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    @property
    def x(self):
        return getattr(current(), self._name)[0]

    @property
    def y(self):
        return getattr(current(), self._name)[1]

    @property
    def z(self):
        return getattr(current(), self._name)[2]

    def __repr__(self):
        return "<simulated %s>" % self._name


threadIdx = _Dim3Proxy("threadIdx")
blockIdx = _Dim3Proxy("blockIdx")
blockDim = _Dim3Proxy("blockDim")
gridDim = _Dim3Proxy("gridDim")
warpsize = WARP_SIZE


class _LaneId:
    """cuda.laneid: an int-like that reads the calling thread's lane."""

    def __index__(self):
        return current().lane

    __int__ = __index__

    def __eq__(self, other):
        return current().lane == other

    def __hash__(self):
        return hash(current().lane)

    def __repr__(self):
        return "<simulated laneid>"

    def _binop(op):
        def f(self, other):
            return op(current().lane, other)
        return f

    import operator as _op
    __add__ = _binop(_op.add)
    __radd__ = _binop(lambda a, b: b + a)
    __sub__ = _binop(_op.sub)
    __rsub__ = _binop(lambda a, b: b - a)
    __mul__ = _binop(_op.mul)
    __rmul__ = _binop(lambda a, b: b * a)
    __mod__ = _binop(_op.mod)
    __floordiv__ = _binop(_op.floordiv)
    __and__ = _binop(_op.and_)
    __lt__ = _binop(_op.lt)
    __le__ = _binop(_op.le)
    __gt__ = _binop(_op.gt)
    __ge__ = _binop(_op.ge)
    __ne__ = _binop(_op.ne)
    __lshift__ = _binop(_op.lshift)
    __rlshift__ = _binop(lambda a, b: b << a)
    del _binop, _op


laneid = _LaneId()


def grid(ndim):
    t = current()
    pos = [t.threadIdx[i] + t.blockIdx[i] * t.blockDim[i] for i in range(3)]
    if ndim == 1:
        return pos[0]
    if ndim in (2, 3):
        return tuple(pos[:ndim])
    raise ValueError("cuda.grid takes 1, 2 or 3")


def gridsize(ndim):
    t = current()
    size = [t.blockDim[i] * t.gridDim[i] for i in range(3)]
    if ndim == 1:
        return size[0]
    if ndim in (2, 3):
        return tuple(size[:ndim])
    raise ValueError("cuda.gridsize takes 1, 2 or 3")


def _np_dtype(dtype):
    from ...numpy_support import as_dtype
    from ... import types as _types
    if isinstance(dtype, _types.Type):
        return as_dtype(dtype)
    return np.dtype(dtype)


def _shape(shape):
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(s) for s in shape)


class _Shared:
    """cuda.shared: per-block arrays.  The k-th shared.array call of each
    thread returns the block's k-th array; a size-0 array is the dynamic
    shared memory (all of them alias it, as in CUDA)."""

    @staticmethod
    def array(shape, dtype):
        t = current()
        shape = _shape(shape)
        dt = _np_dtype(dtype)
        if int(np.prod(shape, dtype=np.int64)) == 0:
            buf = t.block.dynshared
            n = buf.size // dt.itemsize
            return buf[:n * dt.itemsize].view(dt)
        k = t.nshared
        t.nshared += 1
        with t.block.lock:
            arr = t.block.shared.get(k)
            if arr is None:
                arr = t.block.shared[k] = np.zeros(shape, dt)
        return arr


class _Local:
    @staticmethod
    def array(shape, dtype):
        return np.zeros(_shape(shape), _np_dtype(dtype))


class _Const:
    @staticmethod
    def array_like(ary):
        out = np.array(ary)
        out.flags.writeable = False
        return out


shared = _Shared()
local = _Local()
const = _Const()


def syncthreads():
    current().block.barrier.wait()


def syncthreads_count(predicate):
    return sum(1 for v in current().block.barrier.wait(bool(predicate)) if v)


def syncthreads_and(predicate):
    return int(all(current().block.barrier.wait(bool(predicate))))


def syncthreads_or(predicate):
    return int(any(current().block.barrier.wait(bool(predicate))))


def threadfence():
    pass


threadfence_block = threadfence_system = threadfence


def _warp_exchange(value):
    t = current()
    return dict(t.warp.wait((t.lane, value)))


def syncwarp(mask=0xFFFFFFFF):
    current().warp.wait()


def shfl_sync(mask, value, src_lane):
    vals = _warp_exchange(value)
    return vals.get(int(src_lane) % WARP_SIZE, value)


def shfl_up_sync(mask, value, delta):
    lane = current().lane
    vals = _warp_exchange(value)
    src = lane - int(delta)
    return vals.get(src, value) if src >= 0 else value


def shfl_down_sync(mask, value, delta):
    lane = current().lane
    vals = _warp_exchange(value)
    return vals.get(lane + int(delta), value)


def shfl_xor_sync(mask, value, lane_mask):
    lane = current().lane
    vals = _warp_exchange(value)
    return vals.get(lane ^ int(lane_mask), value)


def all_sync(mask, predicate):
    return int(all(bool(v) for v in _warp_exchange(predicate).values()))


def any_sync(mask, predicate):
    return int(any(bool(v) for v in _warp_exchange(predicate).values()))


def eq_sync(mask, value):
    vals = list(_warp_exchange(value).values())
    return int(all(v == vals[0] for v in vals))


def ballot_sync(mask, predicate):
    bits = 0
    for lane, v in _warp_exchange(predicate).items():
        if v:
            bits |= 1 << lane
    return bits & int(mask)


def activemask():
    bits = 0
    for lane in _warp_exchange(None):
        bits |= 1 << lane
    return bits


def lanemask_lt():
    return (1 << current().lane) - 1


def match_any_sync(mask, value):
    vals = _warp_exchange(value)
    me = vals[current().lane]
    return sum(1 << lane for lane, v in vals.items() if v == me) & int(mask)


def match_all_sync(mask, value):
    vals = _warp_exchange(value)
    same = len(set(vals.values())) == 1
    return ((int(mask) if same else 0), int(same))


def _bits(x):
    if isinstance(x, np.integer):
        return x.dtype.itemsize * 8, x.dtype.kind == "i"
    x = int(x)
    return (32 if -(1 << 31) <= x < (1 << 32) else 64), x < 0


def popc(x):
    nbits, _ = _bits(x)
    return bin(int(x) & ((1 << nbits) - 1)).count("1")


def brev(x):
    nbits, _ = _bits(x)
    v = int(x) & ((1 << nbits) - 1)
    r = int(format(v, "0%db" % nbits)[::-1], 2)
    return type(x)(r) if isinstance(x, np.unsignedinteger) else r


def clz(x):
    nbits, _ = _bits(x)
    v = int(x) & ((1 << nbits) - 1)
    return nbits - v.bit_length()


def ffs(x):
    nbits, _ = _bits(x)
    v = int(x) & ((1 << nbits) - 1)
    return (v & -v).bit_length()


def fma(a, b, c):
    return a * b + c


def cbrt(x):
    return np.cbrt(x)


def selp(cond, a, b):
    return a if cond else b


class _Atomic:
    """cuda.atomic: every operation under one lock; returns the old value."""

    @staticmethod
    def _rmw(ary, idx, fn):
        with _atomic_lock:
            old = ary[idx]
            ary[idx] = fn(old)
            return old

    def add(self, ary, idx, val):
        return self._rmw(ary, idx, lambda old: old + val)

    def sub(self, ary, idx, val):
        return self._rmw(ary, idx, lambda old: old - val)

    def and_(self, ary, idx, val):
        return self._rmw(ary, idx, lambda old: old & val)

    def or_(self, ary, idx, val):
        return self._rmw(ary, idx, lambda old: old | val)

    def xor(self, ary, idx, val):
        return self._rmw(ary, idx, lambda old: old ^ val)

    def exch(self, ary, idx, val):
        return self._rmw(ary, idx, lambda old: val)

    def inc(self, ary, idx, val):
        return self._rmw(ary, idx, lambda old: 0 if old >= val else old + 1)

    def dec(self, ary, idx, val):
        return self._rmw(ary, idx, lambda old: val if (old == 0 or old > val) else old - 1)

    def max(self, ary, idx, val):
        return self._rmw(ary, idx, lambda old: max(old, val))

    def min(self, ary, idx, val):
        return self._rmw(ary, idx, lambda old: min(old, val))

    def nanmax(self, ary, idx, val):
        return self._rmw(ary, idx, lambda old: np.fmax(old, val))

    def nanmin(self, ary, idx, val):
        return self._rmw(ary, idx, lambda old: np.fmin(old, val))

    def cas(self, ary, idx, old, val):
        with _atomic_lock:
            cur = ary[idx]
            if cur == old:
                ary[idx] = val
            return cur

    def compare_and_swap(self, ary, old, val):
        """Numba's older spelling: cas on ary[0]."""
        return self.cas(ary, 0, old, val)


atomic = _Atomic()


class _CG:
    """cuda.cg: this_grid().sync() is a barrier over every thread of the
    grid (a kernel that calls this_grid() runs all its blocks at once)."""

    class _Grid:
        def sync(self):
            barrier = current().block.grid_barrier
            if barrier is None:
                raise SimError("grid.sync() outside a cooperative launch (the simulator found no "
                               "this_grid() in the kernel's code)")
            barrier.wait()

    def this_grid(self):
        return self._Grid()


cg = _CG()


def _h(x):
    return np.float16(x)


def _via_f32(fn):
    """A float16 function computed in float32 and rounded, as the GPU does
    (libdevice's float function, then cvt.rn.f16.f32)."""
    def f(a):
        with np.errstate(all="ignore"):
            return np.float16(fn(np.float32(np.float16(a))))
    return f


def _h2(fn):
    def f(a, b):
        with np.errstate(all="ignore"):
            return np.float16(fn(_h(a), _h(b)))
    return f


class _FP16:
    """cuda.fp16: float16 operations with float16 rounding (NumPy's float16
    arithmetic rounds each result, as add.rn.f16 and the like do)."""
    hadd = staticmethod(_h2(lambda a, b: a + b))
    hsub = staticmethod(_h2(lambda a, b: a - b))
    hmul = staticmethod(_h2(lambda a, b: a * b))
    hdiv = staticmethod(_h2(lambda a, b: a / b))
    hmax = staticmethod(_h2(np.fmax))  # a NaN operand gives the other (max.f16)
    hmin = staticmethod(_h2(np.fmin))
    hsin = staticmethod(_via_f32(np.sin))
    hcos = staticmethod(_via_f32(np.cos))
    hlog = staticmethod(_via_f32(np.log))
    hlog10 = staticmethod(_via_f32(np.log10))
    hlog2 = staticmethod(_via_f32(np.log2))
    hexp = staticmethod(_via_f32(np.exp))
    hexp10 = staticmethod(_via_f32(lambda x: np.power(np.float32(10), x)))
    hexp2 = staticmethod(_via_f32(np.exp2))
    hsqrt = staticmethod(_via_f32(np.sqrt))
    hrsqrt = staticmethod(_via_f32(lambda x: np.float32(1) / np.sqrt(x)))
    hfloor = staticmethod(lambda a: np.floor(_h(a)))
    hceil = staticmethod(lambda a: np.ceil(_h(a)))
    hrint = staticmethod(lambda a: np.rint(_h(a)))
    htrunc = staticmethod(lambda a: np.trunc(_h(a)))

    @staticmethod
    def hfma(a, b, c):
        # the product of two float16 is exact in float64; one rounding at the end
        return np.float16(np.float64(_h(a)) * np.float64(_h(b)) + np.float64(_h(c)))

    @staticmethod
    def hneg(a):
        return -_h(a)

    @staticmethod
    def habs(a):
        return abs(_h(a))

    @staticmethod
    def hrcp(a):
        with np.errstate(all="ignore"):
            return np.float16(1) / _h(a)

    # comparisons are ordered: False when either operand is NaN (hne too)
    heq = staticmethod(lambda a, b: bool(_h(a) == _h(b)))
    hgt = staticmethod(lambda a, b: bool(_h(a) > _h(b)))
    hge = staticmethod(lambda a, b: bool(_h(a) >= _h(b)))
    hlt = staticmethod(lambda a, b: bool(_h(a) < _h(b)))
    hle = staticmethod(lambda a, b: bool(_h(a) <= _h(b)))

    @staticmethod
    def hne(a, b):
        a, b = _h(a), _h(b)
        return bool(a != b and not np.isnan(a) and not np.isnan(b))


fp16 = _FP16()

DEVICE_NAMES = [
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpsize", "laneid", "grid", "gridsize",
    "shared", "local", "const", "syncthreads", "syncthreads_count", "syncthreads_and",
    "syncthreads_or", "threadfence", "threadfence_block", "threadfence_system", "syncwarp",
    "shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync", "all_sync", "any_sync",
    "eq_sync", "ballot_sync", "activemask", "lanemask_lt", "match_any_sync", "match_all_sync",
    "popc", "brev", "clz", "ffs", "fma", "cbrt", "selp", "atomic", "cg", "fp16",
]

_ = math  # math functions run as Python's in simulated kernels
