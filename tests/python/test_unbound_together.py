"""Names assigned together (issue 15): a read that some path reaches with
its name unassigned is checked at run time (UnboundLocalError, as CPython),
but a read of a name that every path reaches bound, counting the paths cut
off by an earlier check of a name assigned with it, has no check
(compiler/infer/infer_ssa.c, the second walk).  QuantEcon's brentq as one
loop over many roots, `xblk`, `fblk`, `spre` and `scur` first assigned in
the Brent loop: only the read of `fblk` at the loop's top keeps a check.
Each compiled function is compared with its py_func."""

import os

import numpy as np
import pytest

hpcjit = pytest.importorskip("hpcjit")
from hpcjit import njit  # noqa: E402

from conftest import check, run_python  # noqa: E402

MSG = "cannot access local variable '{}' where it is not associated with a value"


@njit
def brent_roots_unbound(n, lo, hi):
    # benchmarks/brent_loop.py's kernel: QuantEcon's brentq on
    # x**3 - a*x - 1 over [lo, hi], once per a, names bound in the loop
    out = np.empty(n)
    xtol = 2e-12
    rtol = 4 * 2.220446049250313e-16
    for i in range(n):
        a = 1.0 + i / n
        xpre = lo
        xcur = hi
        fpre = xpre ** 3 - a * xpre - 1.0
        fcur = xcur ** 3 - a * xcur - 1.0
        root = 0.0
        for itr in range(100):
            if fpre * fcur < 0:
                xblk = xpre
                fblk = fpre
                spre = scur = xcur - xpre
            if abs(fblk) < abs(fcur):
                xpre = xcur
                xcur = xblk
                xblk = xpre
                fpre = fcur
                fcur = fblk
                fblk = fpre
            delta = (xtol + rtol * abs(xcur)) / 2
            sbis = (xblk - xcur) / 2
            if fcur == 0 or abs(sbis) < delta:
                root = xcur
                break
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
            fcur = xcur ** 3 - a * xcur - 1.0
        out[i] = root
    return out


@njit
def together(n, k):
    s = 0.0
    for i in range(n):
        if i == k:
            a = 1.5
            b = 2.0
        s += a * 2.0   # checked; past it, b is bound too
        s += b
    return s


@njit
def apart(n, k, m):
    s = 0.0
    for i in range(n):
        if i == k:
            a = 1.5
        if i == m:
            b = 2.0
        s += a * 2.0
        s += b         # still checked: a is bound without b
    return s


@njit
def after_caught(c):
    if c:
        x = 1.0
        y = 2.0
    try:
        t = x + 1.0
    except Exception:  # the check of x raised: y may be unbound here
        t = -1.0
    return t + y


@njit
def short_circuit(c, d):
    if c:
        p = 1.0
        q = 3.0
    r = 0.0
    if d and p > 0.5:  # p is read only when d
        r = 1.0
    return r + q       # still checked


@njit
def by_type(c):
    if c:
        x = 1.0
        a = np.ones(3)
    if isinstance(x, float):  # decided from x's type: x is not read here
        s = 1.0
    else:
        s = 0.0
    return a[0] + s    # so a keeps its check


def _ir(f):
    ir = f.inspect_llvm()
    return "\n".join(ir.values()) if isinstance(ir, dict) else str(ir)


def _checked(text, name):
    return MSG.format(name) in text


@pytest.mark.parametrize("lo,hi", [(1.0, 3.0), (1.2, 2.5)])
def test_brent_roots_unbound_matches_python(lo, hi):
    check(brent_roots_unbound, 300, lo, hi)


@pytest.mark.numba_skip("Numba reads an unassigned local without UnboundLocalError")
def test_brent_roots_unbound_raises_as_python():
    # no sign change over [2, 3] for a in [1, 2): the first read of fblk
    # finds it unassigned in CPython and here
    e = check(brent_roots_unbound, 10, 2.0, 3.0)
    assert isinstance(e, UnboundLocalError) and str(e) == MSG.format("fblk")


@pytest.mark.numba_skip("inspects hpcjit's IR")
def test_brent_roots_unbound_checks_only_fblk():
    brent_roots_unbound(3, 1.0, 3.0)
    text = _ir(brent_roots_unbound)
    assert _checked(text, "fblk")
    for name in ("xblk", "spre", "scur"):
        assert not _checked(text, name), name
    # one flag, tested once per iteration of the Brent loop: no select per
    # PHI where `spre = scur` was checked (`.mux`), as Numba's IR
    assert ".mux" not in text
    assert text.count("UnboundLocalError") == 1, text


@pytest.mark.parametrize("f,args", [(together, (4, 0)), (together, (0, 0)), (together, (1, 0)),
                                    (apart, (4, 0, 0)), (apart, (0, 3, 3)), (after_caught, (True,)),
                                    (short_circuit, (True, True)), (short_circuit, (True, False))])
def test_bound_paths(f, args):
    check(f, *args)


@pytest.mark.numba_skip("Numba reads an unassigned local without UnboundLocalError")
@pytest.mark.parametrize("f,args", [(together, (4, 2)), (together, (3, 1)), (apart, (4, 0, 1)),
                                    (apart, (4, 1, 0)), (apart, (3, 0, 5)), (after_caught, (False,)),
                                    (short_circuit, (False, False)), (short_circuit, (False, True))])
def test_unbound_paths_raise(f, args):
    e = check(f, *args)
    assert isinstance(e, UnboundLocalError), e


@pytest.mark.numba_skip("Numba reads an unassigned local without UnboundLocalError")
def test_by_type_raises():
    check(by_type, True)
    with pytest.raises(UnboundLocalError):
        by_type(False)


@pytest.mark.numba_skip("Numba reads an unassigned local without UnboundLocalError")
def test_unbound_messages():
    with pytest.raises(UnboundLocalError) as ei:
        together(3, 1)
    assert str(ei.value) == MSG.format("a")
    with pytest.raises(UnboundLocalError) as ei:
        apart(3, 0, 1)
    assert str(ei.value) == MSG.format("b")
    with pytest.raises(UnboundLocalError) as ei:
        after_caught(False)
    assert str(ei.value) == MSG.format("y")
    with pytest.raises(UnboundLocalError) as ei:
        short_circuit(False, False)
    assert str(ei.value) == MSG.format("q")


_UNOPTIMISED = """
import sys
sys.path.insert(0, %r)
import test_unbound_together as m
for name, args in [("together", (2, 0)), ("apart", (2, 0, 0)), ("after_caught", (True,)),
                   ("short_circuit", (True, True)), ("by_type", (True,))]:
    f = getattr(m, name)
    f(*args)
    text = "\\n".join(f.inspect_llvm().values())
    print(name, *[v for v in "abpqxy" if m.MSG.format(v) in text])
"""


@pytest.mark.numba_skip("inspects hpcjit's IR")
def test_checks_kept_where_needed():
    # the unoptimised IR (HPCJIT_OPT=0), where LLVM has not merged flags
    # that mem2reg found equal: which reads test a flag
    r = run_python(_UNOPTIMISED % os.path.dirname(os.path.abspath(__file__)), env={"HPCJIT_OPT": "0"})
    assert r.returncode == 0, r.stderr
    got = dict((line.split()[0], line.split()[1:]) for line in r.stdout.splitlines())
    assert got == {"together": ["a"], "apart": ["a", "b"], "after_caught": ["x", "y"],
                   "short_circuit": ["p", "q"], "by_type": ["a"]}, got  # (isinstance reads no x)
