"""Deep recursion in compiled code raises RecursionError instead of
crashing (runtime/stack.c): the entry of each function on a call cycle
checks the thread's stack.  Compared with py_func, whose own limit also
raises RecursionError; nothing leaks on the way out."""
import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import AGAINST_NUMBA

pytestmark = pytest.mark.numba_skip("Numba crashes (SIGSEGV) on stack exhaustion")


@njit
def depth(n, a):
    if n == 0:
        return 0.0
    x = depth(n - 1, a)
    return np.sqrt(x + a[n % 3]) - x * 0.5


@njit
def holds_arrays(n):
    if n == 0:
        return 0.0
    tmp = np.ones(4) * n
    return holds_arrays(n - 1) + tmp[0] - tmp.sum() / 4.0


@njit
def ping(n):
    if n <= 0:
        return 1
    return pong(n - 1) * 2 % 1000003


@njit
def pong(n):
    if n <= 0:
        return 2
    return ping(n - 1) * 3 % 1000003


def test_deep_recursion_raises():
    a = np.ones(3)
    assert depth(500, a) == depth.py_func(500, a)
    with pytest.raises(RecursionError, match="compiled code"):
        depth(10**8, a)
    with pytest.raises(RecursionError):
        depth.py_func(10**8, a)
    assert depth(700, a) == depth.py_func(700, a)  # usable afterwards


def test_unwinding_releases_arrays():
    before = hpcjit.memstats()
    with pytest.raises(RecursionError):
        holds_arrays(10**8)
    after = hpcjit.memstats()
    assert after[0] - before[0] == after[1] - before[1]
    assert holds_arrays(300) == holds_arrays.py_func(300)


def test_mutual_recursion():
    assert ping(400) == ping.py_func(400)
    with pytest.raises(RecursionError):
        ping(10**8)


def test_depth_beyond_pythons_limit():
    """The limit is the stack, not a frame count: depths CPython refuses run."""
    import sys
    n = sys.getrecursionlimit() * 4
    a = np.ones(3)
    got = depth(n, a)
    assert np.isfinite(got)


def test_only_recursive_functions_check():
    @njit
    def plain(x):
        return x + 1

    plain(1)
    ir = plain.inspect_llvm()
    ir = "\n".join(ir.values()) if isinstance(ir, dict) else ir
    assert "rt_stack_check" not in ir
    ir = depth.inspect_llvm()
    ir = "\n".join(ir.values()) if isinstance(ir, dict) else ir
    assert "rt_stack_check" in ir


def test_other_threads_raise():
    """Threads other than the main one compare their own limit (their
    stacks lie below the main thread's, so every frame asks the runtime)."""
    import threading
    a = np.ones(3)
    depth(50, a)  # the module's copy of the main thread's limit is known
    out = {}

    def run():
        try:
            out["small"] = depth(200, a)
            depth(10**8, a)
        except RecursionError as e:
            out["err"] = str(e)

    old = threading.stack_size(4 * 1024 * 1024)
    try:
        t = threading.Thread(target=run)
        t.start()
        t.join()
    finally:
        threading.stack_size(old)
    assert out["small"] == depth.py_func(200, a)
    assert "compiled code" in out["err"]


def test_entry_check_is_cheap():
    """The entry check reads the stack pointer (no frame pointer kept) and
    the module's own copy of the limit (PC-relative, no GOT load)."""
    @njit
    def fib(n):
        if n < 2:
            return n
        return fib(n - 1) + fib(n - 2)

    assert fib(20) == 6765
    asm = fib.inspect_asm()
    asm = "\n".join(asm.values()) if isinstance(asm, dict) else asm
    if "x86" not in __import__("platform").machine() and "amd64" not in __import__("platform").machine().lower():
        return
    assert "GOTPCREL" not in asm and "%rbp" not in asm, asm
