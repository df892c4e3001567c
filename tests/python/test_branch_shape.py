"""Branches that LLVM must not fold into selects by hoisting identical
terminators (issue 15: QuantEcon's brentq ran 1.3x slower than under Numba
because its if/else assignments became selects on the loop-carried chain;
compiler/backend/codegen.c turns off SimplifyCFG's hoisting of common code,
and runs jump-threading before the SimplifyCFG that merged checks of an
"assigned" flag into the branch before them).
Each compiled function is compared with its py_func."""
import numpy as np
import pytest

hpcjit = pytest.importorskip("hpcjit")
from hpcjit import njit  # noqa: E402

from conftest import AGAINST_NUMBA, check  # noqa: E402


def _brent(a, xtol, rtol):
    # QuantEcon's brentq on x**3 - a*x - 1 over [1, 3], written out
    xpre, xcur = 1.0, 3.0
    fpre = xpre * xpre * xpre - a * xpre - 1.0
    fcur = xcur * xcur * xcur - a * xcur - 1.0
    xblk = fblk = spre = scur = 0.0
    itr = 0
    for itr in range(100):
        if fpre * fcur < 0:
            xblk = xpre
            fblk = fpre
            spre = scur = xcur - xpre
        if abs(fblk) < abs(fcur):
            xpre, xcur, xblk = xcur, xblk, xcur
            fpre, fcur, fblk = fcur, fblk, fcur
        delta = (xtol + rtol * abs(xcur)) / 2
        sbis = (xblk - xcur) / 2
        if fcur == 0 or abs(sbis) < delta:
            return xcur, itr
        if abs(spre) > delta and abs(fcur) < abs(fpre):
            if xpre == xblk:
                stry = -fcur * (xcur - xpre) / (fcur - fpre)
            else:
                dpre = (fpre - fcur) / (xpre - xcur)
                dblk = (fblk - fcur) / (xblk - xcur)
                stry = -fcur * (fblk * dblk - fpre * dpre) / (dblk * dpre * (fblk - fpre))
            if 2 * abs(stry) < min(abs(spre), 3 * abs(sbis) - delta):
                spre = scur
                scur = stry
            else:
                spre = sbis
                scur = sbis
        else:
            spre = sbis
            scur = sbis
        xpre = xcur
        fpre = fcur
        if abs(scur) > delta:
            xcur += scur
        else:
            xcur += (delta if sbis > 0 else -delta)
        fcur = xcur * xcur * xcur - a * xcur - 1.0
    return xcur, -1


def _brent_unbound(a, xtol, rtol):
    # as QuantEcon writes it: xblk, fblk, spre, scur first assigned in the
    # loop (each read checks that it is bound)
    xpre, xcur = 1.0, 3.0
    fpre = xpre * xpre * xpre - a * xpre - 1.0
    fcur = xcur * xcur * xcur - a * xcur - 1.0
    itr = 0
    for itr in range(100):
        if fpre * fcur < 0:
            xblk = xpre
            fblk = fpre
            spre = scur = xcur - xpre
        if abs(fblk) < abs(fcur):
            xpre, xcur, xblk = xcur, xblk, xcur
            fpre, fcur, fblk = fcur, fblk, fcur
        delta = (xtol + rtol * abs(xcur)) / 2
        sbis = (xblk - xcur) / 2
        if fcur == 0 or abs(sbis) < delta:
            return xcur, itr
        if abs(spre) > delta and abs(fcur) < abs(fpre):
            if xpre == xblk:
                stry = -fcur * (xcur - xpre) / (fcur - fpre)
            else:
                dpre = (fpre - fcur) / (xpre - xcur)
                dblk = (fblk - fcur) / (xblk - xcur)
                stry = -fcur * (fblk * dblk - fpre * dpre) / (dblk * dpre * (fblk - fpre))
            if 2 * abs(stry) < min(abs(spre), 3 * abs(sbis) - delta):
                spre = scur
                scur = stry
            else:
                spre = sbis
                scur = sbis
        else:
            spre = sbis
            scur = sbis
        xpre = xcur
        fpre = fcur
        if abs(scur) > delta:
            xcur += scur
        else:
            xcur += (delta if sbis > 0 else -delta)
        fcur = xcur * xcur * xcur - a * xcur - 1.0
    return xcur, -1


brent = njit(_brent)
brent_unbound = njit(_brent_unbound)


@njit
def brent_roots(n):
    out = np.empty(n)
    its = np.empty(n, np.int64)
    for i in range(n):
        out[i], its[i] = brent(1.0 + i / n, 2e-12, 4 * 2.220446049250313e-16)
    return out, its


@njit
def step(x, y, z):
    if x > 0.0:
        if y < z:
            s = y
            t = z
        else:
            s = z
            t = x
    else:
        s = x
        t = y
    return s * 2.0 + t


@njit
def clip_pairs(a, lo, hi):
    # if/elif/else whose branches only assign: one join, three values
    out = np.empty_like(a)
    prev = 0.0
    for i in range(a.shape[0]):
        x = a[i]
        if x < lo:
            v = lo
            prev = -prev
        elif x > hi:
            v = hi
        else:
            v = x + prev
        out[i] = v
        prev = v
    return out


@njit
def group_nansum(values, labels, out):
    out[:] = 0
    for i in range(values.shape[0]):
        g = labels[i]
        v = values[i]
        if g >= 0 and not np.isnan(v):
            out[g] += v


@pytest.mark.parametrize("a", [1.0, 1.37, 1.999, 0.5, -0.25])
def test_brent_matches_python(a):
    check(brent, a, 2e-12, 4 * 2.220446049250313e-16)


@pytest.mark.parametrize("a", [1.0, 1.37, 0.5])
def test_brent_unbound_matches_python(a):
    check(brent_unbound, a, 2e-12, 4 * 2.220446049250313e-16)


@pytest.mark.numba_skip("Numba reads an unassigned local without UnboundLocalError")
def test_brent_unbound_raises_as_python():
    # f(1) * f(3) > 0 for a = 9: no bracket, so the first read of fblk is
    # of an unassigned variable (UnboundLocalError in CPython and here)
    check(brent_unbound, 9.0, 2e-12, 4 * 2.220446049250313e-16)


def test_brent_loop_matches_python():
    got, its = brent_roots(500)
    want = np.array([_brent(1.0 + i / 500, 2e-12, 4 * 2.220446049250313e-16)[0] for i in range(500)])
    want_its = np.array([_brent(1.0 + i / 500, 2e-12, 4 * 2.220446049250313e-16)[1] for i in range(500)])
    assert np.array_equal(got, want)
    assert np.array_equal(its, want_its)


@pytest.mark.parametrize("args", [(1.0, 2.0, 3.0), (1.0, 3.0, 2.0), (-1.0, 2.0, 3.0), (0.0, np.nan, 1.0),
                                  (np.nan, 1.0, 2.0), (2.0, -0.0, 0.0)])
def test_nested_if_assignments(args):
    check(step, *args)


def test_elif_chain_in_loop():
    a = np.random.default_rng(3).standard_normal(1001)
    a[::17] = np.nan
    check(clip_pairs, a, -0.5, 0.75)


@pytest.mark.parametrize("step_", [1, 3])
def test_group_nansum_strided(step_):
    rng = np.random.default_rng(5)
    vals = rng.standard_normal(3000 * step_).cumsum()
    vals[rng.random(vals.shape) < 0.05] = np.nan
    labels = (np.arange(3000 * step_) % 37).astype(np.int64)
    labels[::11] = -1
    check(group_nansum, vals[::step_], labels[::step_], np.full(40 * step_, 7.0)[::step_])


@pytest.mark.numba_skip("inspects hpcjit's optimised IR")
def test_bound_checks_do_not_become_selects():
    # the check of scur in `spre = scur` is dominated by the loop's first
    # check of the same flag (fblk's): jump-threading makes it a plain
    # branch before SimplifyCFG could merge it into the good-step branch
    # as a select per PHI (`.mux`)
    brent_unbound(1.5, 2e-12, 4 * 2.220446049250313e-16)
    ir = "\n".join(brent_unbound.inspect_llvm().values())
    assert ".mux" not in ir, ir


@pytest.mark.numba_skip("inspects hpcjit's optimised IR")
def test_if_else_assignments_stay_branches():
    # with SimplifyCFG's hoisting of identical terminators the two inner
    # branches became selects of s and t (as Numba does not); the
    # function's IR now keeps them as branches
    step(1.0, 2.0, 3.0)
    ir = "\n".join(step.inspect_llvm().values())
    assert "br i1" in ir
    assert " select " not in ir, ir
