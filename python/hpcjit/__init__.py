"""hpcjit: a Numba-compatible JIT compiler for numerical Python.

    from hpcjit import njit

    @njit
    def f(x, y):
        return x + y

`import hpcjit` loads NumPy and the light dispatcher (hpcjit._core) only;
the compiler (hpcjit._compiler, which links LLVM) is loaded on the first
compilation.
"""
from . import _core, config, errors
from .errors import (HpcjitError, HpcjitSyntaxError, LoweringError, NumbaError, TypingError,
                     UnsupportedError)
from .numpy_support import from_dtype
from . import types
from . import typed
from .ufunc import CFunc, DUFunc, cfunc, guvectorize, vectorize
from .stencil import stencil
from .extending import objmode
from .types import (b1, boolean, bool_, c8, c16, complex64, complex128, deferred_type, double, f2, f4, f8,
                    float16, float32, float64, i1, i2, i4, i8, int8, int16, int32, int64, intc, intp,
                    none, optional, typeof, u1, u2, u4, u8, uint8, uint16, uint32, uint64, uintc, uintp,
                    void)
__version__ = "0.1.0"

__all__ = [
    "njit", "jit", "jit_module", "prange", "pndindex", "literal_unroll", "literally", "config", "errors", "types", "HpcjitError", "TypingError",
    "UnsupportedError", "LoweringError", "HpcjitSyntaxError", "NumbaError", "memstats", "memory_debug", "typeof",
    "boolean", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128", "intp", "none", "void",
    "set_num_threads", "get_num_threads", "get_thread_id", "set_parallel_chunksize",
    "get_parallel_chunksize", "parallel_chunksize", "threading_layer", "from_dtype",
    "objmode", "carray", "farray", "deferred_type", "optional",
]

memstats = _core.memstats
memory_debug = _core.memory_debug
from . import _signals  # noqa: E402
_signals.install()  # compiled loops answer Ctrl-C and Slurm's signals
# The pool (and the topology it is planned from) is made on first use.
set_num_threads = _core.set_num_threads
get_num_threads = _core.get_num_threads
get_thread_id = _core.get_thread_id
from .numpy_support import carray, farray  # noqa: E402
set_parallel_chunksize = _core.set_parallel_chunksize
get_parallel_chunksize = _core.get_parallel_chunksize


class parallel_chunksize:
    """with parallel_chunksize(n): the chunk size of prange loops in the
    block (Numba's context manager over set_parallel_chunksize)."""

    def __init__(self, chunksize):
        self.chunksize = chunksize

    def __enter__(self):
        self._saved = set_parallel_chunksize(self.chunksize)
        return self

    def __exit__(self, *exc):
        set_parallel_chunksize(self._saved)
        return False


def threading_layer():
    """The threading layer that runs parallel code: always hpcjit's own
    pinned pool ("hpcjit"; Numba names "tbb", "omp" or "workqueue")."""
    return "hpcjit"


def prange(*args):
    """Parallel range: in an @njit(parallel=True) function the loop's
    iterations run on the thread pool; elsewhere it iterates like range()."""
    return range(*args)


def pndindex(*shape):
    """Parallel N-d index iterator: `for idx in pndindex(a.shape):` in an
    @njit(parallel=True) function runs its iterations on the thread pool
    (as a prange over the flattened index space, idx the C-order index
    tuple); elsewhere it iterates like np.ndindex()."""
    import numpy as np
    return np.ndindex(*shape)


def literal_unroll(container):
    """`for x in literal_unroll(tup):` in compiled code repeats the loop body
    once per element of a tuple, each copy typed with its element's type
    (heterogeneous tuples); elsewhere it is the container itself."""
    return container


def literally(obj):
    """`literally(n)` in compiled code (or in an overload's implementation)
    compiles the function again with argument n typed as the literal of its
    value (Literal[int](3), Literal[str](abc), Literal[bool](True)): one
    specialisation per value, and overloads see `types.Literal` types.
    Elsewhere it returns its argument."""
    return obj


def _is_signature(obj):
    if isinstance(obj, (str, types.Signature)):
        return True
    if isinstance(obj, list):
        return all(_is_signature(s) for s in obj)
    return isinstance(obj, tuple) and all(isinstance(t, types.Type) for t in obj)


def njit(*args, **options):
    """Compile a function to native code (nopython mode).

    Forms: @njit, @njit(), @njit(sig), @njit([sig1, sig2]), @njit(**options)
    with signatures as strings ("float64(float64[:], int64)") or type calls
    (float64(float64[:], int64)); explicit signatures compile at decoration
    time and no other types are accepted afterwards.  Options: cache,
    fastmath, boundscheck, nogil, parallel, error_model ("python"/"numpy"),
    inline ("never"/"always"), schedule ("static"/"dynamic", for prange
    loops), deterministic (parallel reductions bitwise identical for every
    thread count; default from HPCJIT_DETERMINISTIC)."""
    from .dispatcher import check_options, compile_signatures, make_dispatcher

    if len(args) > 1:
        raise TypeError("njit() takes at most one positional argument (a function or signatures)")
    sigs = None
    func = None
    if args:
        a = args[0]
        if _is_signature(a):
            sigs = a if isinstance(a, list) else [a]
        elif callable(a):
            func = a
        else:
            raise TypeError(f"njit(): expected a function or signature(s), got {a!r}")
    opts = check_options(options)

    def decorate(py_func):
        if config.DISABLE_JIT:
            return py_func
        disp = make_dispatcher(py_func, opts)
        if sigs:
            compile_signatures(disp, sigs)
        return disp

    return decorate(func) if func is not None else decorate


def jit(*args, **options):
    """Same as njit: hpcjit has no object mode (nopython=False and
    forceobj=True raise UnsupportedError)."""
    return njit(*args, **options)


def jit_module(**options):
    """Compile every function of the calling module: call it at the end of
    a module, and each plain Python function defined in that module so far
    is replaced in the module by `jit(fn, **options)` (Numba's
    jit_module).  Functions already compiled (dispatchers, ufuncs, cfuncs),
    functions imported from other modules and functions defined after the
    call are left as they are."""
    import inspect
    check = njit(**options)  # bad options fail here, before any replacement
    frame = inspect.currentframe().f_back
    try:
        module = inspect.getmodule(frame)
        if module is None:
            raise RuntimeError("jit_module() must be called at the top level of a module")
        namespace = module.__dict__
        for name, obj in list(namespace.items()):
            if inspect.isfunction(obj) and inspect.getmodule(obj) is module:
                namespace[name] = check(obj)
    finally:
        del frame
