"""NCCL collectives of device arrays, for hpcjit.mpi.

hpcjit.mpi's allreduce/reduce/bcast/allgather/reduce_scatter send device
arrays (anything with __cuda_array_interface__) here; host arrays keep the
MPI path.  libnccl.so.2 is dlopened at the first use (runtime/ccl.c;
HPCJIT_NCCL_LIBRARY overrides the path).  One communicator per MPI
communicator, made at the first collective: rank 0 makes the NCCL unique
id, MPI broadcasts it, every rank calls ncclCommInitRank on its current
device.  Collectives are enqueued on `stream` (default: the legacy
default stream) and not waited for, as NCCL does.  A failing rank aborts
the NCCL communicators (ncclCommAbort) before hpcjit.mpi's MPI_Abort.
"""
import numpy as np

from .. import _core
from .. import mpi as _mpi
from .cudadrv import devicearray, driver
from .cudadrv.error import CudaSupportError

# (kind, itemsize) -> ncclDataType_t
_DTYPES = {("i", 1): 0, ("u", 1): 1, ("b", 1): 1, ("i", 4): 2, ("u", 4): 3, ("i", 8): 4,
           ("u", 8): 5, ("f", 2): 6, ("f", 4): 7, ("f", 8): 8}
# hpcjit.mpi's SUM, PROD, MIN, MAX -> ncclRedOp_t
_OPS = {0: 0, 1: 1, 2: 3, 3: 2}
_ALLREDUCE, _REDUCE, _BCAST, _ALLGATHER, _REDUCE_SCATTER = range(5)


class Communicator:
    __slots__ = ("handle", "rank", "size")

    def __init__(self, handle, rank, size):
        self.handle = handle
        self.rank = rank
        self.size = size


_comms = {}


def available():
    """(True, "") when NCCL loads, else (False, why)."""
    ok, why = _core._nccl_status()
    return bool(ok), why


def communicator(comm=None):
    """The NCCL communicator of an MPI communicator (collective the first time)."""
    key = None if comm is None else id(comm)
    c = _comms.get(key)
    if c is not None:
        return c
    ok, why = available()
    if not ok:
        raise CudaSupportError(why)
    rank, size = _mpi.rank(comm), _mpi.size(comm)
    uid = _core._nccl_unique_id() if rank == 0 else None
    uid = _mpi.bcast(uid, 0, comm)
    driver.current_context()
    c = Communicator(_core._nccl_comm_init(size, uid, rank), rank, size)
    _comms[key] = c
    if _abort_all not in _mpi._abort_hooks:
        _mpi._abort_hooks.append(_abort_all)
    return c


def _abort_all():
    for c in list(_comms.values()):
        try:
            _core._nccl_comm_end(c.handle, True)
        except Exception:  # noqa: BLE001 - the job is ending anyway
            pass
    _comms.clear()


def destroy_all():
    for c in list(_comms.values()):
        _core._nccl_comm_end(c.handle, False)
    _comms.clear()


def is_device(x):
    return x is not None and not isinstance(x, np.ndarray) and (
        isinstance(x, devicearray.DeviceNDArray) or _mpi._has_cai(x))


def _dev(x, what):
    d = devicearray.as_cuda_array(x) if not isinstance(x, devicearray.DeviceNDArray) else x
    if not d.is_c_contiguous():
        raise ValueError("%s must be a contiguous device array for NCCL" % what)
    code = _DTYPES.get((d.dtype.kind, d.dtype.itemsize))
    if code is None:
        raise TypeError("NCCL cannot move %s values" % d.dtype)
    return d, code


def _ptr(d):
    if isinstance(d, devicearray.DeviceNDArray):
        return d._ptr if d.size else 0
    return d.device_ctypes_pointer.value or 0


def _op(op, dtype):
    if op not in _OPS:
        raise ValueError("unknown reduction op %r (use hpcjit.mpi.SUM, PROD, MIN or MAX)" % (op,))
    if dtype.kind == "b":
        raise TypeError("reductions of booleans: convert to an integer type first")
    return _OPS[op]


def _run(kind, send, recv, count, dtype, op, root, comm, stream):
    _core._nccl_collective(kind, send, recv, count, dtype, op, root, comm.handle,
                           driver._stream_handle(stream))


def _like(d, shape=None):
    return devicearray.DeviceNDArray(d.shape if shape is None else shape, None, d.dtype)


def allreduce(args, stream=None, comm=None):
    c = communicator(comm)
    if len(args) >= 2 and is_device(args[1]):
        send, recv = args[0], args[1]
        op = args[2] if len(args) > 2 else _mpi.SUM
    else:
        send, recv = args[0], None
        op = args[1] if len(args) > 1 else _mpi.SUM
    s, code = _dev(send, "send")
    r = _like(s) if recv is None else _dev(recv, "recv")[0]
    if r.dtype != s.dtype or r.size != s.size:
        raise ValueError("allreduce: send and recv differ (%s %s vs %s %s)"
                         % (s.dtype, s.shape, r.dtype, r.shape))
    _run(_ALLREDUCE, _ptr(s), _ptr(r), s.size, code, _op(op, s.dtype), 0, c, stream)
    return recv if recv is not None else r


def reduce(args, stream=None, comm=None):
    c = communicator(comm)
    if len(args) == 4 or (len(args) >= 2 and (is_device(args[1]) or args[1] is None)):
        send, recv = args[0], args[1]
        op = args[2] if len(args) > 2 else _mpi.SUM
        root = args[3] if len(args) > 3 else 0
        out = recv
    else:
        send = args[0]
        op = args[1] if len(args) > 1 else _mpi.SUM
        root = args[2] if len(args) > 2 else 0
        recv = None
        out = None
    s, code = _dev(send, "send")
    if c.rank == root and recv is None:
        recv = out = _like(s)
    r = _dev(recv, "recv")[0] if recv is not None else None
    _run(_REDUCE, _ptr(s), _ptr(r) if r is not None else 0, s.size, code, _op(op, s.dtype), root, c,
         stream)
    return out if c.rank == root else None


def bcast(data, root=0, stream=None, comm=None):
    c = communicator(comm)
    d, code = _dev(data, "data")
    _run(_BCAST, _ptr(d), _ptr(d), d.size, code, 0, root, c, stream)
    return data


def allgather(args, stream=None, comm=None):
    c = communicator(comm)
    s, code = _dev(args[0], "send")
    if len(args) >= 2:
        recv = args[1]
        r = _dev(recv, "recv")[0]
    else:
        recv = r = _like(s, (c.size,) + s.shape)
    if r.size != s.size * c.size or r.dtype != s.dtype:
        raise ValueError("allgather: recv must hold size x send elements of the same dtype")
    _run(_ALLGATHER, _ptr(s), _ptr(r), s.size, code, 0, 0, c, stream)
    return recv


def reduce_scatter(args, stream=None, comm=None):
    c = communicator(comm)
    if len(args) >= 2 and is_device(args[1]):
        send, recv = args[0], args[1]
        op = args[2] if len(args) > 2 else _mpi.SUM
    else:
        send, recv = args[0], None
        op = args[1] if len(args) > 1 else _mpi.SUM
    s, code = _dev(send, "send")
    if recv is None:
        if s.ndim == 0 or s.shape[0] % c.size:
            raise ValueError("reduce_scatter: the first axis (%s) must split evenly over %d ranks"
                             % (s.shape[:1], c.size))
        recv = _like(s, (s.shape[0] // c.size,) + s.shape[1:])
    r = _dev(recv, "recv")[0]
    if r.size * c.size != s.size or r.dtype != s.dtype:
        raise ValueError("reduce_scatter: send must hold size x recv elements of the same dtype")
    _run(_REDUCE_SCATTER, _ptr(s), _ptr(r), r.size, code, _op(op, s.dtype), 0, c, stream)
    return recv
