"""Arguments that may be None: branches decided by `is None` tests on
arguments are pruned before typing (as Numba does), and the `out=None`
idiom gives `out` the type of what is assigned to it.  Every function is
checked against its py_func."""
import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import check


@njit
def scaled(a, out=None):
    if out is None:
        out = np.empty_like(a)
    for i in range(a.size):
        out[i] = a[i] * 2
    return out


def test_out_none_idiom():
    a = np.arange(5.0)
    check(scaled, a)
    check(scaled, a, None)
    out = np.zeros(5)
    check(scaled, a, out)
    assert scaled(a, out) is out  # the caller's array is returned


@njit
def maybe_scale(x, scale=None):
    if scale is not None:
        return x * scale
    return x


@pytest.mark.parametrize("args", [(2.0,), (2.0, None), (2.0, 3.0), (2, 4)])
def test_is_not_none_branch(args):
    check(maybe_scale, *args)


@njit
def forms(x, p=None, q=None):
    r = 0.0
    if not (p is None):
        r += p
    if p is None and q is None:
        r -= 1.0
    elif None is not q:
        r += q * 10
    else:
        r += 100.0
    r += 0.5 if p is None else p * 2
    if p is None or p > 0:  # p > 0 only typed when p is a number
        r += 1000.0
    for i in range(3):
        if q is not None:  # inside a loop: q is never assigned
            r += q
    return r + x


@pytest.mark.parametrize("p", [None, 2.0, -3.0])
@pytest.mark.parametrize("q", [None, 5.0])
def test_decided_forms(p, q):
    check(forms, 1.0, p, q)


@njit
def raises_when_none(a, w=None):
    if w is None:
        raise ValueError("weights are required")
    return (a * w).sum()


def test_raise_in_decided_branch():
    a = np.arange(4.0)
    check(raises_when_none, a)
    check(raises_when_none, a, np.ones(4))


@njit
def caller(a):
    # the callee is specialised for None and for an array
    return scaled(a).sum() + scaled(a, np.ones_like(a)).sum() + maybe_scale(1.5)


def test_calls_between_jitted_functions():
    check(caller, np.arange(3.0))


@njit
def reads_before_assigning(a, out=None):
    x = out
    out = a
    return x


@njit
def assigns_in_a_loop(a, out=None):
    for i in range(2):
        out = a
    return out


def test_none_argument_read_before_reassignment_is_optional():
    # reading the None value, or assigning only on some paths: Optional
    check(reads_before_assigning, np.arange(3.0))
    check(assigns_in_a_loop, np.arange(3.0))
    check(reads_before_assigning, np.arange(3.0), np.ones(3))
    check(assigns_in_a_loop, np.arange(3.0), np.ones(3))


@njit
def assigned_then_tested(a, out=None):
    out = a
    if out is None:  # no longer the argument: not decided, typed as array
        return 0.0
    return out.sum()


def test_test_after_reassignment_is_not_decided():
    check(assigned_then_tested, np.arange(3.0))


# ---- branches decided by constants (globals frozen at compile time) ----

DEBUG = False
VERBOSE = 1
MODE = 2
NOTHING = None


@hpcjit.njit
def constant_branches(x):
    if DEBUG:
        print(not_defined_anywhere(x))  # never typed: the branch cannot run
    y = x * 2 if not DEBUG else not_defined_anywhere(x)
    if MODE == 2 and VERBOSE:
        y += 1
    elif MODE > 2:
        y = not_defined_anywhere(y)
    if NOTHING is None:
        y += 10
    else:
        y = NOTHING(y)
    if 0:
        y = not_defined_anywhere(y)
    return y


def test_branches_decided_by_constants():
    check(constant_branches, 3)
    check(constant_branches, 2.5)


@hpcjit.njit
def rebound_global_is_not_decided(x):
    DEBUG = x > 0  # a local of the same name: the test depends on x
    if DEBUG:
        return 1
    return 0


def test_a_local_shadowing_a_constant_is_not_decided():
    check(rebound_global_is_not_decided, 1)
    check(rebound_global_is_not_decided, -1)
