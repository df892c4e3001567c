"""The allocation-owner debug mode (HPCJIT_DEBUG_MEMORY=1, runtime/memdebug.c)
over the constructs that own memory: arrays, lists, dicts, sets, strings,
jitclass instances, typed containers, exceptions unwinding through code that
holds them, prange.  Each program runs in a subprocess with the mode on;
every compiled result is checked against py_func, and afterwards no
allocation made by the calls is live and no count update hit a freed block."""
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import AGAINST_NUMBA

pytestmark = pytest.mark.skipif(AGAINST_NUMBA, reason="hpcjit's runtime debug mode")

PRELUDE = """
import gc, sys
import numpy as np
import hpcjit
from hpcjit import njit, prange

def run(f, *args, expect_exc=None):
    gc.collect()
    mark = hpcjit.memory_debug()["allocations"]
    for _ in range(3):
        if expect_exc is None:
            got = f(*args)
            want = f.py_func(*args)
            if isinstance(want, np.ndarray):
                assert np.array_equal(got, want), (f, got, want)
            else:
                assert got == want, (f, got, want)
            del got, want
        else:
            try:
                f(*args)
            except expect_exc:
                pass
            else:
                raise AssertionError(f"{f} did not raise")
    gc.collect()
    d = hpcjit.memory_debug(mark)
    assert d["enabled"], d
    assert d["errors"] == 0, d
    assert d["live"] == [], (f.__name__, d["live"])
    print("ok", f.__name__)
"""

PROGRAMS = {
    "arrays": """
@njit
def arrays(n):
    a = np.arange(n) * 2.0
    b = a[::2].copy()
    c = np.concatenate((a, b))
    return c.sum() + np.sqrt(a).max()
run(arrays, 100)

@njit
def returned(n):
    return np.ones((n, n)) @ np.ones((n, n))
run(returned, 8)
""",
    "lists_dicts_sets": """
@njit
def lists(n):
    l = [np.zeros(3) for _ in range(n)]
    l.append(np.ones(3))
    l.pop(0)
    m = sorted([i * 7 % 5 for i in range(n)])
    return len(l) + sum(m)
run(lists, 20)

@njit
def dicts(n):
    d = {}
    for i in range(n):
        d[i] = np.full(2, i)
    del d[0]
    s = 0.0
    for k, v in d.items():
        s += v.sum()
    return s
run(dicts, 30)

@njit
def sets(n):
    s = {i % 7 for i in range(n)}
    t = s | {100, 200}
    return len(t - s)
run(sets, 50)
""",
    "strings": """
@njit
def strings(n):
    parts = []
    for i in range(n):
        parts.append(str(i) + "x")
    s = "-".join(parts)
    return len(s.upper().split("-"))
run(strings, 40)
""",
    "exceptions": """
@njit
def unwinds(n):
    keep = [np.zeros(4) for _ in range(n)]
    d = {1: np.ones(2)}
    if n > 3:
        raise ValueError("too many")
    return len(keep) + len(d)
run(unwinds, 2)
run(unwinds, 5, expect_exc=ValueError)

@njit
def caught(n):
    total = 0
    for i in range(n):
        try:
            tmp = np.empty(i + 1)
            if i % 2:
                raise KeyError(i)
            total += tmp.size
        except KeyError:
            total -= 1
    return total
run(caught, 10)
""",
    "jitclass_typed": """
from hpcjit.experimental import jitclass
from hpcjit import typed, types

@jitclass([("data", types.float64[:]), ("n", types.int64)])
class Box:
    def __init__(self, n):
        self.n = n
        self.data = np.zeros(n)
    def total(self):
        return self.data.sum() + self.n

@njit
def boxes(n):
    bs = [Box(i + 1) for i in range(n)]
    return sum([b.total() for b in bs])
run(boxes, 6)

@njit
def typed_list(n):
    l = typed.List()
    for i in range(n):
        l.append(float(i))
    return len(l)
run(typed_list, 25)
""",
    "generators": """
@njit
def rows(a, tag):
    b = a * 2.0
    lst = [b[0]]
    for i in range(b.shape[0]):
        yield b[i] + lst[0], tag + str(i)

@njit
def partly(a):
    g = rows(a, "r")
    r, t = next(g)
    return r.sum() + len(t)  # g is destroyed suspended, holding b, lst and a

@njit
def fully(a):
    s = 0.0
    for r, t in rows(a, "x"):
        s += r.sum() + len(t)
    return s

@njit
def raising(a):
    for x in a:
        if x > 2:
            raise ValueError("big")
        yield np.ones(3) * x

@njit
def unwinds(a):
    s = 0.0
    for v in raising(a):
        s += v.sum()
    return s

a = np.arange(6.0).reshape(3, 2)
run(partly, a)
run(fully, a)
run(unwinds, np.array([1.0, 2.0]))
run(unwinds, np.array([1.0, 5.0]), expect_exc=ValueError)
gc.collect()
mark = hpcjit.memory_debug()["allocations"]
for k in range(3):  # from Python: abandoned after one value, exhausted, never started
    g = rows(a, "p")
    next(g)
    del g
    assert len(list(rows(a, "q"))) == 3
    g = rows(a, "n")
    del g
gc.collect()
d = hpcjit.memory_debug(mark)
assert d["errors"] == 0 and d["live"] == [], d
print("ok python")
""",
    "prange": """
@njit(parallel=True)
def par(n):
    out = np.zeros(n)
    for i in prange(n):
        tmp = np.arange(4) * i
        out[i] = tmp.sum()
    return out.sum()
run(par, 64)
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_no_leak_no_bad_update(name):
    env = dict(os.environ, HPCJIT_DEBUG_MEMORY="1")
    src = PRELUDE + textwrap.dedent(PROGRAMS[name])
    r = subprocess.run([sys.executable, "-c", src], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "double free" not in r.stderr and "use after free" not in r.stderr, r.stderr
    # the exit report names the counts
    assert "hpcjit-memdebug:" in r.stderr and "0 bad count updates" in r.stderr, r.stderr


def test_off_by_default():
    env = {k: v for k, v in os.environ.items() if k not in ("HPCJIT_DEBUG_MEMORY", "NUMBA_DEBUG_NRT")}
    r = subprocess.run([sys.executable, "-c", "import hpcjit; print(hpcjit.memory_debug())"], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "'enabled': False" in r.stdout
    assert "hpcjit-memdebug" not in r.stderr


def test_numba_name_honoured():
    env = {k: v for k, v in os.environ.items() if k != "HPCJIT_DEBUG_MEMORY"}
    env["NUMBA_DEBUG_NRT"] = "1"
    r = subprocess.run([sys.executable, "-c", "import hpcjit; print(hpcjit.memory_debug()['enabled'])"],
                       env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "True", r.stdout + r.stderr
