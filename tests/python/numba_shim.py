"""Stand-in `hpcjit` module backed by Numba.

With HPCJIT_TESTS_AGAINST_NUMBA=1 the test suite runs against Numba, which
validates the tests themselves before hpcjit can run them.  Subprocess tests
call install() first so that the child sees the same shim.
"""
import sys
import types


def install():
    import numba
    from numba.core import errors

    mod = types.ModuleType("hpcjit")
    mod.njit = numba.njit
    mod.jit = numba.jit
    mod.prange = numba.prange
    mod.pndindex = numba.pndindex
    mod.jit_module = numba.jit_module
    mod.literal_unroll = numba.literal_unroll
    mod.literally = numba.literally
    mod.vectorize = numba.vectorize
    mod.guvectorize = numba.guvectorize
    mod.cfunc = numba.cfunc
    mod.carray = numba.carray
    mod.farray = numba.farray
    mod.guvectorize = numba.guvectorize
    mod.get_parallel_chunksize = numba.get_parallel_chunksize
    mod.set_parallel_chunksize = numba.set_parallel_chunksize
    mod.parallel_chunksize = numba.parallel_chunksize
    mod.get_num_threads = numba.get_num_threads
    mod.set_num_threads = numba.set_num_threads
    mod.get_thread_id = numba.get_thread_id
    mod.stencil = numba.stencil
    mod.typed = numba.typed
    mod.types = numba.types
    mod.typeof = numba.typeof
    import numba.experimental
    mod.experimental = numba.experimental
    mod.TypingError = errors.TypingError
    # Numba spells "unsupported" two ways; a tuple works in except clauses
    # and pytest.raises, which is all the tests use it for.
    mod.UnsupportedError = (errors.UnsupportedError, errors.UnsupportedBytecodeError)
    mod.__version__ = "numba-shim-" + numba.__version__
    mod.__file__ = __file__
    mod.__hpcjit_numba_shim__ = True
    sys.modules["hpcjit"] = mod
    return mod
