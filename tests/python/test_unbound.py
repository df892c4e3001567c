"""A local variable that some path leaves unassigned and then reads raises
UnboundLocalError with CPython's message, as py_func does (Numba reads an
undefined value there instead: those cases are numba_skip).  Variables
proven assigned carry no flag.  Compared with CPython (py_func)."""
import numpy as np
import pytest

import hpcjit
from conftest import AGAINST_NUMBA, check

njit = hpcjit.njit
memstats = None if AGAINST_NUMBA else hpcjit._core.memstats
MSG = "cannot access local variable '{}' where it is not associated with a value"


@njit
def in_if(c):
    if c:
        x = 1
    return x


@njit
def after_loop(n):
    for i in range(n):
        y = i * 2.0
    return y


@njit
def loop_target(n):
    for i in range(n):
        pass
    return i


@njit
def array_var(c):
    if c:
        a = np.ones(3)
    return a.sum() + a[0]


@njit
def aug(c):
    if c:
        s = 1
    s += 2
    return s


@njit
def rebound(c, n):
    x = np.zeros(2)
    s = x.sum()
    if c:
        x = 3          # x.1: an int, assigned on some paths only
        t = x
    else:
        for i in range(n):
            t = i + 0.5
    return t + s


@njit
def in_while(n):
    i = 0
    while i < n:
        if i == 2:
            last = i
        i += 1
    return last


@njit
def in_try(k):
    try:
        if k > 0:
            raise ValueError("k")
        r = 10
    except ValueError:
        pass
    return r


@njit
def read_in_loop(n):
    s = 0
    for i in range(n):
        if i > 0:
            s += prev
        prev = i
    return s


@njit
def elif_chain(k):
    if k == 0:
        v = 1.5
    elif k == 1:
        v = 2.5
    return v


@njit
def full_paths(k):  # assigned on every path: no flag, no error
    if k == 0:
        v = 1.5
    elif k == 1:
        v = 2.5
    else:
        v = 0.0
    while True:
        w = v * 2
        break
    return v + w


@njit
def message(c):
    if c:
        total = 1
    return total


@njit
def walrus_or(c, n):
    if c or (m := n * 2) > 100:
        return -1
    return m


@pytest.mark.numba_skip("Numba reads an undefined value where CPython raises")
def test_unbound_raises():
    cases = [(in_if, (True,)), (in_if, (False,)), (after_loop, (3,)), (after_loop, (0,)),
             (loop_target, (4,)), (loop_target, (0,)), (array_var, (True,)), (array_var, (False,)),
             (aug, (True,)), (aug, (False,)), (rebound, (True, 0)), (rebound, (False, 3)),
             (rebound, (False, 0)), (in_while, (5,)), (in_while, (2,)), (in_try, (0,)),
             (in_try, (1,)), (read_in_loop, (4,)), (elif_chain, (0,)), (elif_chain, (1,)),
             (elif_chain, (2,)), (walrus_or, (False, 3)), (walrus_or, (True, 3))]
    for f, args in cases:
        check(f, *args)
    with pytest.raises(UnboundLocalError) as ei:
        message(False)
    assert str(ei.value) == MSG.format("total")
    assert message(True) == 1


def test_assigned_on_every_path():
    for k in range(3):
        check(full_paths, k)


@pytest.mark.numba_skip("Numba reads an undefined value where CPython raises")
def test_unbound_releases():
    if memstats is None:
        return
    before = memstats()
    for c in (True, False, True):
        try:
            array_var(c)
        except UnboundLocalError:
            pass
    after = memstats()
    assert after[0] - before[0] == after[1] - before[1]


def test_no_flag_when_proven():
    """The IR of a function whose variables are assigned on every path
    has no UnboundLocalError branch."""
    if AGAINST_NUMBA:
        pytest.skip("hpcjit's IR")
    full_paths(1)
    ir = full_paths.inspect_llvm()
    text = "\n".join(ir.values()) if isinstance(ir, dict) else str(ir)
    assert "UnboundLocalError" not in text
    in_if(True)
    ir = in_if.inspect_llvm()
    text = "\n".join(ir.values()) if isinstance(ir, dict) else str(ir)
    assert "UnboundLocalError" in text
