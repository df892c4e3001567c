"""hpcjit.mpi: MPI for hpcjit programs (Open MPI through hpcjit._mpi).

    from hpcjit import mpi
    total = mpi.allreduce(local_sum, mpi.SUM)          # value form
    mpi.allreduce(part, out, mpi.SUM)                  # buffer form (in place: part is out)

Importing this module does not start MPI: the first call does
(MPI_Init_thread, and MPI_Finalize at exit), unless mpi4py (or the program)
initialised MPI already, in which case that MPI is used and left alone;
mpi4py communicators are accepted as `comm=`.  Under MPI, an uncaught
exception in any rank prints its traceback prefixed with the rank and calls
MPI_Abort, so a failing rank never leaves the others hanging.

Functions take NumPy arrays and numbers: rank, size, local_rank, barrier,
bcast, reduce, allreduce, gather, allgather, scatter, reduce_scatter, send,
recv; ops SUM, PROD, MIN, MAX.  allreduce, reduce, bcast, allgather and
reduce_scatter of device arrays (hpcjit.cuda's, CuPy's, PyTorch's: anything
with __cuda_array_interface__) run over NCCL (hpcjit.cuda.nccl) on
`stream=`.  env_identity() gives (rank, local_rank, size) from the
launcher's environment without starting MPI.  The same functions work in
@njit code (docs/MPI.md lists the forms), and `for i in prange(n)` there
is a distributed loop whose scalar reductions are allreduced.

Compile once per node architecture (HPCJIT_MPI_COMPILE_ONCE=1, or
`hpcjit run --compile-once`): ranks are grouped by the topology's
architecture key; for each specialisation the lowest rank of a group
compiles and broadcasts the object code, the others load it.  Every rank
must then compile the same specialisations in the same order, i.e. call
jitted functions collectively with the same argument types: a function
called on rank 0 only would wait for the others forever.  That is why it is
off by default.  HPCJIT_DEBUG_COMPILE=1 prints, per rank, whether it
compiled or received; compile_stats() returns the counts.
"""
import atexit
import os
import pickle
import sys
import time

import numpy as np

SUM, PROD, MIN, MAX = 0, 1, 2, 3  # hpcjit._mpi's codes
ANY_SOURCE = ANY_TAG = -1
_OP_NAMES = {SUM: "SUM", PROD: "PROD", MIN: "MIN", MAX: "MAX"}

__all__ = ["SUM", "PROD", "MIN", "MAX", "ANY_SOURCE", "ANY_TAG", "init", "finalize", "initialized",
           "rank", "size", "local_rank", "local_size", "barrier", "bcast", "reduce", "allreduce",
           "gather", "allgather", "scatter", "send", "recv", "abort", "env_identity",
           "compile_stats", "available", "prange", "reduce_scatter"]

_lib = None          # hpcjit._mpi once loaded
_ready = False       # MPI initialised and this module set up
_stats = {"compiled": 0, "received": 0, "local_fallbacks": 0, "cache_hits": 0, "compile_once": False,
          "arch_key": None, "groups": 1, "group_size": 1, "group_root": 0}
_group = None        # the architecture group's communicator (compile once)


def _env_int(*names):
    for n in names:
        v = os.environ.get(n)
        if v is not None and v.strip().lstrip("-").isdigit():
            return int(v)
    return None


def env_identity():
    """(rank, local_rank, size) from the launcher's environment, without
    starting MPI: Slurm, then Open MPI, then PMI, else (0, 0, 1)."""
    for r, l, s in (("SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS"),
                    ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE"),
                    ("PMI_RANK", "PMI_LOCAL_RANK", "PMI_SIZE")):
        rank_ = _env_int(r)
        if rank_ is not None:
            size_ = _env_int(s)
            local = _env_int(l)
            return rank_, (local if local is not None else 0), (size_ if size_ is not None else 1)
    return 0, 0, 1


def available():
    """True when hpcjit was built with MPI (hpcjit._mpi exists)."""
    try:
        _load()
    except ImportError:
        return False
    return True


def _load():
    global _lib
    if _lib is None:
        try:
            from . import _mpi
        except ImportError as exc:
            raise ImportError("hpcjit was built without MPI (install libopenmpi-dev and openmpi-bin, "
                              f"then rebuild): {exc}") from None
        _lib = _mpi
    return _lib


def init(thread_level=None):
    """Start MPI (unless mpi4py or the program did) and set hpcjit up for it:
    the abort-on-exception hook and, when asked for, compile once per node
    architecture.  Called by every function here on first use; collective."""
    global _ready
    if _ready:
        return
    lib = _load()
    if "mpi4py.MPI" in sys.modules:
        pass  # mpi4py initialised MPI on import: same library, use it
    ours = lib.init(lib.THREAD_MULTIPLE if thread_level is None else int(thread_level))
    if ours:
        atexit.register(_atexit_finalize)
    _ready = True
    # compiled code calls MPI through hpcjit._core's table (rt_mpi_*)
    from . import _core
    _core._set_mpi_hooks(lib.hooks())
    if lib.size() > 1:
        _install_excepthook()
    _install_compile_hook()


def _init_for_compiled_code():
    """compiler.compile_for, after compiling code that calls hpcjit.mpi:
    start MPI before that code can run.  The compile hook installed here
    did not see that compilation: count it."""
    if _ready:
        return
    init()
    _stats["compiled"] += 1


def _lib_ready():
    if not _ready:
        init()
    return _lib


def initialized():
    return _ready


def finalize():
    """MPI_Finalize, if hpcjit started MPI (else nothing); collective."""
    if _lib is not None and _ready:
        _drop_hooks()
        return bool(_lib.finalize())
    return False


def _drop_hooks():
    from . import _core
    _core._set_mpi_hooks(None)


def _atexit_finalize():
    try:
        _drop_hooks()
        _lib.finalize()
    except Exception:
        pass


_abort_hooks = []    # called before MPI_Abort (hpcjit.cuda.nccl: ncclCommAbort)


def abort(code=1):
    """MPI_Abort(MPI_COMM_WORLD, code): ends every rank of the job."""
    sys.stdout.flush()
    sys.stderr.flush()
    for hook in list(_abort_hooks):
        try:
            hook()
        except Exception:  # noqa: BLE001 - ending the job matters more
            pass
    if _lib is not None and _ready:
        _lib.abort(int(code))
    os._exit(int(code))


# ---- a failing rank ends the job --------------------------------------------

def _excepthook(etype, value, tb):
    try:
        import traceback
        r = rank()
        text = "".join(traceback.format_exception(etype, value, tb))
        sys.stderr.write("".join(f"[rank {r}] {line}" for line in text.splitlines(True)))
        sys.stderr.write(f"[rank {r}] hpcjit.mpi: uncaught exception, calling MPI_Abort\n")
    finally:
        abort(1)


def _install_excepthook():
    if sys.excepthook is sys.__excepthook__:
        sys.excepthook = _excepthook


# ---- identity -------------------------------------------------------------------

def rank(comm=None):
    return _lib_ready().rank(comm)


def size(comm=None):
    return _lib_ready().size(comm)


def local_rank():
    """Rank among the ranks of this node (MPI_COMM_TYPE_SHARED)."""
    return _lib_ready().local()[0]


def local_size():
    return _lib_ready().local()[1]


def barrier(comm=None):
    _lib_ready().barrier(comm)


def prange(*args):
    """Distributed loop: `for i in hpcjit.mpi.prange(n)` in an @njit function
    runs this rank's contiguous block of the iterations (then splits it over
    the rank's threads under parallel=True) and allreduces the loop's scalar
    reductions, so every rank ends with the whole loop's result.  Called
    from Python (or under DISABLE_JIT) it is range(): every rank runs every
    iteration, which gives the same reductions."""
    return range(*args)


# ---- helpers ----------------------------------------------------------------------

def _check_op(op, dtype):
    if op not in _OP_NAMES:
        raise ValueError(f"unknown reduction op {op!r} (use hpcjit.mpi.SUM, PROD, MIN or MAX)")
    if op in (MIN, MAX) and dtype.kind == "c":
        raise TypeError(f"{_OP_NAMES[op]} of complex numbers is not defined")
    if dtype.kind == "b" and op in (SUM, PROD):
        raise TypeError(f"{_OP_NAMES[op]} of booleans: convert to an integer type first")
    if dtype.kind not in "biufc":
        raise TypeError(f"cannot reduce {dtype} values")


def _contig(a):
    a = np.asarray(a)
    return a if a.flags.c_contiguous else np.ascontiguousarray(a)


def _is_array(x):
    return isinstance(x, np.ndarray)


def _has_cai(x):
    """x has __cuda_array_interface__, found without computing it (on the
    class, where device arrays and CuPy define it, else in the instance)."""
    return hasattr(type(x), "__cuda_array_interface__") or \
        "__cuda_array_interface__" in getattr(x, "__dict__", ())


def _on_device(*xs):
    """Any argument a device array (it has __cuda_array_interface__)?"""
    for x in xs:
        if x is not None and not isinstance(x, np.ndarray) and _has_cai(x):
            return True
    return False


_nccl_mod = None


def _nccl():
    global _nccl_mod
    if _nccl_mod is None:
        from .cuda import nccl
        _nccl_mod = nccl
    return _nccl_mod


def _unwrap(value, out):
    """A 0-d result back as the kind of number that went in."""
    if isinstance(value, np.ndarray):
        return out
    if isinstance(value, np.generic):
        return out[()]
    return out.item()


def _header(a):
    return (a.dtype.str, a.shape)


# ---- reductions ----------------------------------------------------------------------

def allreduce(*args, comm=None, stream=None):
    """allreduce(send, recv, op=SUM): buffer form, recv filled (send may be
    recv: in place); returns recv.  allreduce(value, op=SUM): value form,
    returns the reduction of a number or an array over all ranks.  Device
    arrays go over NCCL on `stream`."""
    lib = _lib_ready()
    if _on_device(*args[:2]):
        return _nccl().allreduce(args, stream, comm)
    if len(args) >= 2 and _is_array(args[1]):
        send, recv = args[0], args[1]
        op = args[2] if len(args) > 2 else SUM
        _check_op(op, recv.dtype)
        lib.allreduce(recv if send is recv else _contig(send).astype(recv.dtype, copy=False), recv, op, comm)
        return recv
    if not 1 <= len(args) <= 2:
        raise TypeError("allreduce(send, recv, op) or allreduce(value, op)")
    value = args[0]
    op = args[1] if len(args) > 1 else SUM
    a = _contig(value)
    _check_op(op, a.dtype)
    out = np.empty_like(a)
    lib.allreduce(a, out, op, comm)
    return _unwrap(value, out)


def reduce(*args, comm=None, stream=None):
    """reduce(send, recv, op, root): buffer form (recv may be None off the
    root; send is recv: in place).  reduce(value, op=SUM, root=0): value
    form, the result on the root and None elsewhere.  Device arrays go over
    NCCL on `stream`."""
    lib = _lib_ready()
    if _on_device(*args[:2]):
        return _nccl().reduce(args, stream, comm)
    if len(args) == 4 or (len(args) >= 2 and _is_array(args[1])):
        send, recv = args[0], args[1]
        op = args[2] if len(args) > 2 else SUM
        root = args[3] if len(args) > 3 else 0
        s = _contig(send)
        _check_op(op, s.dtype)
        me = lib.rank(comm)
        if me == root and recv is not None:
            s = recv if send is recv else s.astype(recv.dtype, copy=False)
        lib.reduce(s, recv if me == root else None, op, root, comm)
        return recv if me == root else None
    if not 1 <= len(args) <= 3:
        raise TypeError("reduce(send, recv, op, root) or reduce(value, op, root)")
    value = args[0]
    op = args[1] if len(args) > 1 else SUM
    root = args[2] if len(args) > 2 else 0
    a = _contig(value)
    _check_op(op, a.dtype)
    me = lib.rank(comm)
    out = np.empty_like(a) if me == root else None
    lib.reduce(a, out, op, root, comm)
    return _unwrap(value, out) if me == root else None


# ---- data movement -------------------------------------------------------------------------

def _bcast_obj(obj, root, comm):
    lib = _lib
    me = lib.rank(comm)
    return pickle.loads(lib.bcast_bytes(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
                                        if me == root else None, root, comm))


def bcast(data, root=0, comm=None, stream=None):
    """The root's array or number on every rank.  An array of the root's
    dtype and shape is filled in place (and returned); otherwise a new
    array (or number) is returned.  Other Python objects are pickled.  A
    device array (same shape on every rank) is filled over NCCL."""
    lib = _lib_ready()
    if _on_device(data):
        return _nccl().bcast(data, root, stream, comm)
    me = lib.rank(comm)
    if me == root:
        if isinstance(data, (np.ndarray, np.generic, int, float, complex, bool)):
            a = _contig(data)
            head = ("array", _header(a), type(data).__name__ if not _is_array(data) else None)
        else:
            head = ("pickle", None, None)
    else:
        head = None
    kind, hdr, scalar = _bcast_obj(head, root, comm)
    if kind == "pickle":
        return _bcast_obj(data, root, comm)
    dtype, shape = np.dtype(hdr[0]), tuple(hdr[1])
    if me == root:
        buf = a
    elif _is_array(data) and data.dtype == dtype and data.shape == shape and data.flags.c_contiguous \
            and data.flags.writeable:
        buf = data
    else:
        buf = np.empty(shape, dtype)
    lib.bcast(buf, root, comm)
    if me == root:
        return data
    if scalar is None:
        return buf
    if scalar in ("int", "float", "complex", "bool"):
        return buf.item()
    return buf[()]


def gather(*args, root=0, comm=None):
    """gather(send, recv, root=0): buffer form, recv (size x send, root only)
    filled.  gather(value, root=0): an array of shape (size,) + value's on
    the root, None elsewhere."""
    lib = _lib_ready()
    me = lib.rank(comm)
    if len(args) >= 2:
        send, recv = _contig(args[0]), args[1]
        if len(args) > 2:
            root = args[2]
        lib.gather(send, recv if me == root else None, root, comm)
        return recv if me == root else None
    a = _contig(args[0])
    out = np.empty((lib.size(comm),) + a.shape, a.dtype) if me == root else None
    lib.gather(a, out, root, comm)
    return out


def allgather(*args, comm=None, stream=None):
    """allgather(send, recv): buffer form.  allgather(value): an array of
    shape (size,) + value's shape on every rank.  Device arrays go over
    NCCL on `stream`."""
    lib = _lib_ready()
    if _on_device(*args[:2]):
        return _nccl().allgather(args, stream, comm)
    if len(args) >= 2:
        lib.allgather(_contig(args[0]), args[1], comm)
        return args[1]
    a = _contig(args[0])
    out = np.empty((lib.size(comm),) + a.shape, a.dtype)
    lib.allgather(a, out, comm)
    return out


def reduce_scatter(*args, comm=None, stream=None):
    """reduce_scatter(send, recv, op=SUM): recv gets this rank's block (rank
    order, along the first axis) of the reduction of send over all ranks.
    reduce_scatter(value, op=SUM): returns that block.  Device arrays go
    over NCCL; host arrays reduce with MPI and keep their block."""
    lib = _lib_ready()
    if _on_device(*args[:2]):
        return _nccl().reduce_scatter(args, stream, comm)
    if len(args) >= 2 and _is_array(args[1]):
        send, recv = _contig(args[0]), args[1]
        op = args[2] if len(args) > 2 else SUM
    else:
        send, recv = _contig(args[0]), None
        op = args[1] if len(args) > 1 else SUM
    n, me = lib.size(comm), lib.rank(comm)
    if send.ndim == 0 or send.shape[0] % n:
        raise ValueError(f"reduce_scatter: the first axis {send.shape[:1]} must split evenly "
                         f"over {n} ranks")
    total = allreduce(send, op, comm=comm)
    block = total.reshape((n, -1) + send.shape[1:])[me] if send.ndim > 1 else \
        total.reshape(n, -1)[me]
    if recv is None:
        return block
    recv[...] = block.reshape(recv.shape)
    return recv


def scatter(*args, root=0, comm=None):
    """scatter(send, recv, root=0): buffer form, the root's send (size x
    recv) split in rank order.  scatter(data, root=0): the root's array of
    shape (size, ...) split: rank r gets data[r]."""
    lib = _lib_ready()
    me = lib.rank(comm)
    if len(args) >= 2:
        send, recv = args[0], args[1]
        if len(args) > 2:
            root = args[2]
        lib.scatter(_contig(send) if me == root else None, recv, root, comm)
        return recv
    data = args[0]
    if me == root:
        a = _contig(data)
        n = lib.size(comm)
        if a.ndim == 0 or a.shape[0] != n:
            # still collective: the others wait for the header
            _bcast_obj(None, root, comm)
            raise ValueError(f"scatter: the root's data needs a first dimension of {n} (the ranks)")
        head = _header(a[0])
    else:
        head = None
    head = _bcast_obj(head, root, comm)
    if head is None:
        raise ValueError("scatter: the root's data has the wrong shape")
    out = np.empty(tuple(head[1]), np.dtype(head[0]))
    lib.scatter(a if me == root else None, out, root, comm)
    return out if out.ndim else out[()]


def send(data, dest, tag=0, comm=None):
    """Send an array or number to rank `dest` (blocking until the buffer can
    be reused).  The matching recv learns dtype and shape from it."""
    lib = _lib_ready()
    a = _contig(data)
    head = pickle.dumps((a.dtype.str, a.shape, not _is_array(data)), protocol=pickle.HIGHEST_PROTOCOL)
    lib.send(np.frombuffer(head, np.uint8), dest, tag, comm)
    lib.send(a, dest, tag, comm)


def recv(buf=None, source=ANY_SOURCE, tag=ANY_TAG, comm=None):
    """Receive what send() sent: into `buf` when given (same dtype and
    shape), else into a new array (or number).  Returns it."""
    lib = _lib_ready()
    src, tg, nbytes = lib.probe(source, tag, comm)
    head = np.empty(nbytes, np.uint8)
    lib.recv(head, src, tg, comm)
    dtype, shape, scalar = pickle.loads(head.tobytes())
    dtype, shape = np.dtype(dtype), tuple(shape)
    if buf is not None:
        if not _is_array(buf) or buf.dtype != dtype or buf.shape != shape or not buf.flags.c_contiguous:
            out = np.empty(shape, dtype)
            lib.recv(out, src, tg, comm)  # keep the message stream in step
            raise ValueError(f"recv: message is {dtype}{list(shape)}, the buffer "
                             f"{getattr(buf, 'dtype', type(buf).__name__)}{list(getattr(buf, 'shape', ()))}")
        lib.recv(buf, src, tg, comm)
        return buf
    out = np.empty(shape, dtype)
    lib.recv(out, src, tg, comm)
    return out[()] if scalar else out


# ---- compile once per node architecture ------------------------------------------------------

def compile_stats():
    """This rank's compile counts since hpcjit.mpi started: 'compiled' (ran
    the compiler), 'received' (loaded object code compiled by its group's
    root), 'local_fallbacks' (compiled itself because the ranks disagreed
    on what to compile), 'cache_hits' (loaded from the on-disk cache,
    hpcjit.cache), with 'compile_once', 'arch_key', 'groups' (distinct
    architectures), 'group_size', 'group_root' (world rank), 'rank', 'size'."""
    out = dict(_stats)
    if _ready:
        out["rank"], out["size"] = _lib.rank(), _lib.size()
    else:
        out["rank"], out["size"] = env_identity()[0], env_identity()[2]
    return out


def _debug():
    from . import config
    return config._env_bool("DEBUG_COMPILE", config.DEBUG_COMPILE)


def _compile_once_requested():
    v = os.environ.get("HPCJIT_MPI_COMPILE_ONCE", "")
    return v.strip().lower() not in ("", "0", "false", "no", "off")


def _form_groups():
    """Split the world by architecture key; collective."""
    global _group
    import hashlib
    from .cache import _target  # the node's target info, memoised beside the cache
    lib = _lib
    t = _target()
    key = lib.arch_key(t.get("cpu"), t.get("features"))
    h = int.from_bytes(hashlib.sha1(key.encode()).digest()[:7], "little")
    keys = np.empty(lib.size(), np.int64)
    lib.allgather(np.array([h], np.int64), keys)
    me = lib.rank()
    root = int(np.flatnonzero(keys == h)[0])  # the lowest rank of my architecture
    _group = lib.comm_split(root, me)
    _stats.update(compile_once=True, arch_key=key, groups=len(set(keys.tolist())),
                  group_size=lib.size(_group), group_root=root)


_FIELDS = ("entry_symbol", "rettype", "signature", "object", "llvm_ir", "types_text",
           "time_frontend", "time_llvm", "uses_mpi")


def _install_compile_hook():
    """Wrap hpcjit.compiler._compile: count compiles, and under compile-once
    make each specialisation collective within the architecture group."""
    from . import compiler
    if getattr(compiler._compile, "_hj_mpi", False):
        return
    if _compile_once_requested() and _lib.size() > 1:
        _form_groups()
    orig = compiler._compile
    me = _lib.rank()

    def _compile(disp, argcodes, rettype, want_ir, want_types):
        name = disp.py_func.__qualname__
        if (_group is None or want_ir or want_types or _stats["group_size"] < 2
                or _has_objmode(disp)):
            res = orig(disp, argcodes, rettype, want_ir, want_types)
            hit = res.get("cache") == "hit"  # loaded from the on-disk cache (cache.py)
            _stats["cache_hits" if hit else "compiled"] += 1
            if _debug():
                print(f"hpcjit: rank {me} {'loaded from the cache' if hit else 'compiled'} {name} "
                      f"{res.get('signature')}", file=sys.stderr)
            return res
        return _collective_compile(orig, me, disp, argcodes, rettype)

    _compile._hj_mpi = True
    compiler._compile = _compile


def _has_objmode(disp):
    """Whether the code reaching `disp` holds an objmode block: its object
    names this process's block functions (hpcjit.objmode_blocks), so each
    rank compiles it itself (every rank answers the same)."""
    from . import compiler
    funcs, _ = compiler.gather(disp)
    return any(len(f) > 8 and f[8] is not None and f[8][0] == "pycall" for f in funcs)


def _collective_compile(orig, me, disp, argcodes, rettype):
    lib = _lib
    name = disp.py_func.__qualname__
    key = (disp.py_func.__module__, name, tuple(argcodes), rettype)
    if lib.rank(_group) == 0:
        try:
            res = orig(disp, argcodes, rettype, False, False)
        except BaseException as exc:
            # the others compile themselves and so raise the same error
            lib.bcast_bytes(pickle.dumps(("error", key, repr(exc))), 0, _group)
            raise
        data = {k: res.get(k) for k in _FIELDS}
        lib.bcast_bytes(pickle.dumps(("ok", key, data), protocol=pickle.HIGHEST_PROTOCOL), 0, _group)
        hit = res.get("cache") == "hit"
        _stats["cache_hits" if hit else "compiled"] += 1
        if _debug():
            print(f"hpcjit: rank {me} {'loaded from the cache' if hit else 'compiled'} {name} "
                  f"{res.get('signature')} and sent "
                  f"{len(data['object'] or b'')} bytes to {_stats['group_size'] - 1} rank(s)",
                  file=sys.stderr)
        return res
    t0 = time.perf_counter()
    status, rkey, data = pickle.loads(lib.bcast_bytes(None, 0, _group))
    if status != "ok" or rkey != key:
        if status == "ok":
            import warnings
            warnings.warn(f"hpcjit.mpi: rank {me} compiles {name}{tuple(argcodes)} while its group's "
                          f"root compiled {rkey[1]}{rkey[2]}: jitted functions must be called "
                          "collectively under HPCJIT_MPI_COMPILE_ONCE=1", RuntimeWarning)
        _stats["local_fallbacks"] += 1
        res = orig(disp, argcodes, rettype, False, False)
        _stats["compiled"] += 1
        return res
    res = dict(data)
    from .cache import load_object  # the runtime's loader: no libLLVM on this rank
    res["address"] = load_object(data["object"], data["entry_symbol"])
    _stats["received"] += 1
    if _debug():
        print(f"hpcjit: rank {me} received {name} {res.get('signature')} from rank "
              f"{_stats['group_root']} ({len(data['object'])} bytes, "
              f"{(time.perf_counter() - t0) * 1e3:.2f} ms)", file=sys.stderr)
    return res


# Compile-once must be set up before the first compilation, which may come
# before any MPI call (explicit signatures compile at decoration).
if _compile_once_requested() and env_identity()[2] > 1:
    init()
