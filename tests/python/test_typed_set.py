"""hpcjit.typed.Set (numba.typed.Set): a native set shared with compiled
code.  Each compiled function runs on a typed Set and its py_func on a
Python set with the same items; results and contents afterwards agree."""
import pytest

hpcjit = pytest.importorskip("hpcjit")

SHIM = getattr(hpcjit, "__hpcjit_numba_shim__", False)
if SHIM:
    from numba.core import errors, types
    from numba.typed import Set
else:
    from hpcjit import errors, types
    from hpcjit.typed import Set
njit = hpcjit.njit


def make(item_type, items):
    s = Set.empty(item_type)
    for x in items:
        s.add(x)
    return s


def same(typed, py):
    assert len(typed) == len(py)
    assert sorted(typed) == sorted(py)
    for x in py:
        assert x in typed


def run_both(f, item_type, items, *args):
    """f on a typed Set and f.py_func on a set: (results, the two sets)."""
    ts, ps = make(item_type, items), set(items)
    got = f(ts, *args)
    exp = f.py_func(ps, *args)
    same(ts, ps)
    return got, exp, ts, ps


@njit
def discard(s, x):
    s.discard(x)


@njit
def add_range(s, n):
    for i in range(n):
        s.add(i * 3 % 7)
    return len(s)


@njit
def summary(s):
    acc = 0
    for x in s:
        acc += x
    return acc, len(s), 4 in s, 5 not in s


@njit
def remove_then_len(s, x):
    s.remove(x)
    return len(s)


@njit
def pop_all(s):
    total = 0
    while len(s) > 0:
        total += s.pop()
    return total


@njit
def clear(s):
    s.clear()
    return len(s)


def test_doc_example_str_set():
    s = Set.empty(types.unicode_type)
    for w in ("One", "Two", "Three"):
        s.add(w)
    assert len(s) == 3
    discard(s, "Three")  # the compiled code's change is seen here
    assert len(s) == 2 and "Three" not in s and "One" in s
    got, exp, ts, ps = run_both(discard, types.unicode_type, ["a", "bb", "héllo"], "bb")
    assert got == exp


def test_ints_add_iterate_contains():
    got, exp, ts, ps = run_both(add_range, types.int64, [100, -5], 20)
    assert got == exp
    got, exp, _, _ = run_both(summary, types.int64, [1, 4, 9, 16])
    assert got == exp
    got, exp, _, _ = run_both(summary, types.int64, [])
    assert got == exp


def test_floats():
    got, exp, _, _ = run_both(summary, types.float64, [0.5, 4.0, 2.25])
    assert got == exp


@pytest.mark.skipif(SHIM, reason="Numba 0.68's typed.Set has no remove/pop/clear in compiled code")
def test_remove_pop_clear():
    got, exp, _, _ = run_both(remove_then_len, types.int64, [1, 2, 3], 2)
    assert got == exp
    ts = make(types.int64, [1, 2, 3])
    with pytest.raises(KeyError):
        remove_then_len(ts, 10)
    with pytest.raises(KeyError):
        remove_then_len.py_func({1, 2, 3}, 10)
    got, exp, ts, _ = run_both(pop_all, types.int64, [3, 5, 7, 11])
    assert got == exp and len(ts) == 0
    got, exp, ts, _ = run_both(clear, types.int64, [3, 5])
    assert got == exp == 0


def test_returned_set_shares_items():
    @njit
    def grow(s, x):
        s.add(x)
        return s

    ts = make(types.int64, [1])
    r = grow(ts, 2)
    assert isinstance(r, Set)
    assert sorted(r) == [1, 2] and sorted(ts) == [1, 2]
    r.add(3)
    assert 3 in ts  # one native set


def test_python_side_api():
    ts, ps = Set.empty(types.int64), set()
    for x in (5, 1, 5, 9):
        ts.add(x)
        ps.add(x)
    same(ts, ps)
    ts.discard(100)
    ps.discard(100)
    ts.remove(5)
    ps.remove(5)
    same(ts, ps)
    with pytest.raises(KeyError):
        ts.remove(5)
    x = ts.pop()
    ps.remove(x)
    same(ts, ps)
    ts |= {7, 8}
    ps |= {7, 8}
    same(ts, ps)
    if not SHIM:  # Numba's typed.Set has no update()
        ts.update([20, 21], (22,))
        ps.update([20, 21], (22,))
        same(ts, ps)
    ts.clear()
    assert len(ts) == 0 and not ts
    with pytest.raises(KeyError):
        ts.pop()
    u = Set()
    u.add("x")  # typed by the first item
    assert "x" in u and len(u) == 1


def test_wrong_item_type_is_typing_error():
    @njit
    def add_str(s):
        s.add("x")

    with pytest.raises(errors.TypingError):
        add_str(make(types.int64, [1]))


def test_made_in_compiled_code():
    @njit
    def build(n):
        s = Set.empty(types.int64)
        for i in range(n):
            s.add(i % 4)
        return s

    @njit
    def build_str():
        s = Set()
        s.add("a")
        s.add("b")
        s.add("a")
        return s

    r = build(10)
    assert isinstance(r, Set) and sorted(r) == [0, 1, 2, 3]
    r.add(9)
    assert len(r) == 5
    assert sorted(build_str()) == ["a", "b"]
    got, exp, _, _ = run_both(summary, types.int64, list(build(6)))
    assert got == exp


@pytest.mark.skipif(SHIM, reason="hpcjit's allocation counters")
def test_no_leaks():
    import gc
    from hpcjit import _core

    @njit
    def grow(s, n):
        for i in range(n):
            s.add(str(i))
        return s

    def once():
        s = Set.empty(types.unicode_type)
        s.add("a")
        grow(s, 50)
        s.discard("a")
        s.remove("7")
        s.pop()
        assert "3" in s or "3" not in s
        list(s)

    once()
    gc.collect()
    a0, f0 = _core.memstats()
    for _ in range(20):
        once()
    gc.collect()
    a1, f1 = _core.memstats()
    assert a1 - a0 == f1 - f0
