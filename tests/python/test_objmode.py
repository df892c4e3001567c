"""`with objmode(...)` blocks: compiled code runs the block in the
interpreter (with the GIL) on its variables boxed as Python objects, and
takes back the variables the objmode(...) call declares, checked against
the declared types; exceptions from the block leave the compiled function
unchanged.  Every function is compared with its py_func, where objmode is a
context manager that does nothing (hpcjit.objmode_blocks)."""
import collections
import math
import threading

import numpy as np
import pytest

import hpcjit
from conftest import AGAINST_NUMBA, check

if AGAINST_NUMBA:
    from numba import objmode, types
    from numba.core import errors
else:
    from hpcjit import errors, objmode, types
njit = hpcjit.njit

memstats = None if AGAINST_NUMBA else hpcjit._core.memstats


@pytest.fixture
def balanced():
    """Every allocation made by the test is freed."""
    if memstats is None:
        yield
        return
    before = memstats()
    yield
    after = memstats()
    assert after[0] - before[0] == after[1] - before[1], (before, after)


# ---- scalars and arrays in and out ----

@njit
def sort_in_python(a, k):
    s = a.sum()
    with objmode(out="float64[:]", n="int64"):
        out = np.sort(a)[::-1].copy()
        n = int(len(out) * k)
    return out[:n], s


def test_py_func_runs_the_block():
    out, s = sort_in_python.py_func(np.array([3.0, 1.0, 2.0, 5.0]), 0.5)
    assert list(out) == [5.0, 3.0] and s == 11.0


def test_array_in_array_out(balanced):
    check(sort_in_python, np.array([3.0, 1.0, 2.0, 5.0]), 0.5)
    check(sort_in_python, np.arange(10.0)[::-1], 0.3)


@njit
def scalar_in_out(x, n, flag):
    y = x * 2.0
    with objmode(r="float64", m="int64", b="boolean"):
        r = math.gamma(y) + len(str(n))
        m = int(str(n)[::-1]) + (1 if flag else 0)
        b = r > 10.0
    return r + 1.0, m * 2, b


def test_scalars():
    check(scalar_in_out, 1.75, 1234, True)
    check(scalar_in_out, 3.0, 907, False)


@njit
def mutate_in_place(a, b):
    t = a.sum()
    with objmode():
        a[:] = a[::-1] * 2
        b[1:, 0] += 1.0
    return t + a[0] + b.sum()


def test_array_mutated_in_place(balanced):
    check(mutate_in_place, np.arange(5.0), np.ones((3, 2)))
    check(mutate_in_place, np.arange(5.0), np.asfortranarray(np.ones((3, 2))))


@njit
def compiled_array_in(n):
    a = np.arange(n) * 3  # compiled code's own memory, shared with the block
    with objmode():
        a[0] = -7
    with objmode(c="int64[:, ::1]", t="UniTuple(int64, 2)"):
        c = a.reshape(2, -1).copy()
        t = c.shape
    return a.sum(), c, t


def test_compiled_arrays_and_tuples(balanced):
    check(compiled_array_in, 6)


@njit
def tuple_in_out(p):
    q = (p[0] + 1, p[1] * 0.5)
    with objmode(r="Tuple((int64, float64))", z="complex128"):
        r = (q[0] * 10, float(sum(q)))
        z = complex(*q)
    return r, z


def test_tuples_and_complex():
    check(tuple_in_out, (3, 5.0))


FLOAT_ARRAY = types.float64[:]  # Numba: a global or a getattr of a type


@njit
def declared_with_type_objects(a):
    with objmode(y=FLOAT_ARRAY, n=types.int64):
        y = np.cumsum(a)
        n = len(y)
    return y, n


def test_type_objects_as_declarations(balanced):
    check(declared_with_type_objects, np.arange(4.0))


# ---- what only Python can do ----

@njit
def python_only(a):
    with objmode(n="int64", top="float64"):
        words = collections.Counter(map(str, a.astype(np.int64).tolist()))
        n = len(words)
        top = float(max(words.values()))
    return n, top


def test_python_only_code():
    check(python_only, np.array([1.0, 2.0, 2.0, 3.0, 2.0]))


def test_scipy_inside_the_block():
    special = pytest.importorskip("scipy.special")

    @njit
    def f(x):
        s = np.sin(x)
        with objmode(j="float64[:]"):
            j = special.j0(s)
        return j.sum()

    check(f, np.linspace(0.0, 3.0, 7))


@njit
def several_blocks(a):
    with objmode(m="float64"):
        m = float(np.median(a))
    b = a - m
    with objmode(s="float64[:]"):
        s = np.sort(np.abs(b))
    with objmode(k="int64"):
        k = int(np.searchsorted(s, 1.0))
    return m, s, k


def test_several_blocks(balanced):
    check(several_blocks, np.array([4.0, 1.0, 7.0, 2.5, 3.0]))


@njit
def block_in_loop(n):
    total = 0.0
    acc = np.zeros(3)
    for i in range(n):
        with objmode(total="float64", row="float64[:]"):
            total = total + math.factorial(i)
            row = np.full(3, float(i))
        acc += row
    return total, acc


def test_block_in_a_loop(balanced):
    check(block_in_loop, 7)


def test_closure_values_in_the_block():
    def make(scale):
        @njit
        def f(x):
            with objmode(y="float64"):
                y = x * scale
            return y + 1.0
        return f

    check(make(3.0), 2.0)


@njit
def inner_with_block(a):
    with objmode(r="float64[:]"):
        r = np.asarray(sorted(a.tolist()))
    return r


@njit
def outer_calls_inner(a):
    return inner_with_block(a * 2.0).sum() + 1.0


def test_called_from_compiled_code(balanced):
    check(outer_calls_inner, np.array([3.0, -1.0, 2.0]))


# ---- exceptions ----

class BlockError(Exception):
    def __init__(self, msg, payload):
        super().__init__(msg)
        self.payload = payload


def fail(x):
    raise BlockError(f"bad value {x}", [x, "payload"])


@njit
def raises_in_block(x):
    y = x + 1.0
    with objmode(r="float64"):
        r = y if y < 10.0 else fail(y)
    return r


def test_exception_propagates_unchanged(balanced):
    check(raises_in_block, 2.0)
    with pytest.raises(BlockError) as ei:
        raises_in_block(20.0)
    assert str(ei.value) == "bad value 21.0" and ei.value.payload == [21.0, "payload"]
    check(raises_in_block, 20.0)


@njit
def keyerror_in_block(a, k):
    with objmode(v="int64"):
        v = {7: int(a.sum())}[k]
    return v


def test_builtin_exception_propagates(balanced):
    check(keyerror_in_block, np.arange(4.0), 7)
    with pytest.raises(KeyError) as ei:
        keyerror_in_block(np.arange(4.0), 8)
    assert ei.value.args == (8,)


@njit
def wrong_scalar(a):
    with objmode(y="int64"):
        y = None
    return y


@njit
def wrong_array(a):
    with objmode(y="float64[:]"):
        y = 3.0
    return y


def test_wrong_declared_type_is_a_type_error():
    for f in (wrong_scalar, wrong_array):
        with pytest.raises(TypeError) as ei:
            f(np.ones(2))
        if not AGAINST_NUMBA:
            assert "test_objmode.py:" in str(ei.value) and "declared type" in str(ei.value)


@pytest.mark.numba_skip("Numba reinterprets an int64 array declared float64[:] (garbage values)")
def test_wrong_array_dtype_is_a_type_error(balanced):
    @njit
    def f(n):
        with objmode(y="float64[:]"):
            y = np.arange(n)
        return y

    with pytest.raises(TypeError, match=r"'y' \(array\(int64, 1d, C\)\) does not match its declared "
                                        r"type float64\[:\]"):
        f(3)


@pytest.mark.numba_skip("Numba refuses a raise statement inside an objmode block")
def test_raise_statement_in_block(balanced):
    @njit
    def f(x):
        with objmode(y="float64"):
            if x < 0:
                raise ValueError(f"negative: {x}")
            y = math.sqrt(x)
        return y

    check(f, 4.0)
    with pytest.raises(ValueError, match="negative: -1.0"):
        f(-1.0)


@pytest.mark.numba_skip("hpcjit's located error")
def test_return_in_block_is_a_located_error():
    @njit
    def f(x):
        with objmode(y="float64"):
            y = x
            return y
        return y

    with pytest.raises(errors.UnsupportedError) as ei:
        f(1.0)
    msg = str(ei.value)
    assert "objmode" in msg and "'return'" in msg and "test_objmode.py:" in msg


@pytest.mark.numba_skip("hpcjit's located error")
def test_bad_declaration_is_a_located_typing_error():
    @njit
    def f(x):
        with objmode(y="no_such_type"):
            y = x
        return y

    with pytest.raises(errors.TypingError) as ei:
        f(1.0)
    assert "'y'" in str(ei.value) and "with objmode(" in str(ei.value)


# ---- nogil, threads, leaks ----

@njit(nogil=True)
def nogil_block(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * a[i]
    with objmode(r="float64", c="float64[:]"):
        r = float(np.sqrt(s))
        c = np.cumsum(a)
    return r, c


def test_nogil_function_takes_the_gil(balanced):
    check(nogil_block, np.arange(5.0))
    results = [None] * 4
    errs = []

    def work(i):
        try:
            for _ in range(20):
                results[i] = nogil_block(np.arange(float(i + 3)))
        except Exception as e:  # pragma: no cover - reported below
            errs.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errs, errs
    for i, (r, c) in enumerate(results):
        a = np.arange(float(i + 3))
        assert r == pytest.approx(np.sqrt((a * a).sum())) and list(c) == list(np.cumsum(a))


def test_no_leaks_over_many_calls(balanced):
    a = np.arange(6.0)
    for _ in range(50):
        sort_in_python(a, 0.5)
        compiled_array_in(6)
        block_in_loop(4)
        with pytest.raises(BlockError):
            raises_in_block(20.0)


# ---- in other constructs ----

def negative(x):
    raise ValueError(f"negative: {x}")


@njit
def caught_in_compiled_code(x):
    try:
        with objmode(y="float64"):
            y = negative(x) if x < 0 else math.sqrt(x)
    except ValueError:
        y = -1.0
    return y


@pytest.mark.numba_skip("Numba cannot lift an objmode block inside try ('with's head-block must have "
                        "exactly 1 JUMP')")
def test_compiled_try_catches_the_block_exception(balanced):
    check(caught_in_compiled_code, 9.0)
    check(caught_in_compiled_code, -2.0)


@njit
def bare_objmode(a, flag):
    if flag:
        with objmode:
            a[0] = 42.0
    return a.sum()


def test_bare_objmode_in_a_branch():
    check(bare_objmode, np.ones(3), True)
    check(bare_objmode, np.ones(3), False)


@njit
def with_inner_function(a):
    def twice(v):
        return v * 2.0

    with objmode(r="float64[:]"):
        r = np.sort(a)
    return twice(r)


def test_with_inner_function(balanced):
    check(with_inner_function, np.array([3.0, 1.0, 2.0]))


@njit(parallel=True)
def after_prange(a):
    s = 0.0
    for i in hpcjit.prange(a.shape[0]):
        s += a[i]
    with objmode(r="float64"):
        r = float(np.round(s, 6)) * 2
    return r


def test_in_a_parallel_function():
    check(after_prange, np.arange(100.0))


@njit
def list_into_block(n):
    lst = [i * 2 for i in range(n)]
    with objmode(s="int64"):
        s = sum(lst)
    return s


def test_list_input_is_a_typing_error():
    with pytest.raises(errors.TypingError) as ei:
        list_into_block(4)
    if not AGAINST_NUMBA:
        assert "objmode" in str(ei.value) and "test_objmode.py:" in str(ei.value)


def limited(v):
    if v > 500:
        raise ValueError(f"too big: {v}")
    return v


@njit(parallel=True)
def block_in_prange(a):
    out = np.zeros(a.shape[0])
    for i in hpcjit.prange(a.shape[0]):
        v = a[i]
        with objmode(r="float64"):
            r = float(limited(v)) * 2.0
        out[i] = r + 1.0
    return out


def test_block_in_a_prange_body(balanced):
    # the pool's threads take the GIL: the calling thread lets it go
    check(block_in_prange, np.arange(300.0))


@pytest.mark.numba_skip("Numba drops an exception raised by an objmode block in a prange body")
def test_exception_from_a_prange_body(balanced):
    with pytest.raises(ValueError, match="too big"):
        block_in_prange(np.arange(1000.0))


@njit
def optional_in(n):
    x = None if n > 5 else n
    with objmode(k="int64"):
        k = -1 if x is None else x * 10
    return k


def test_optional_input():
    check(optional_in, 3)
    check(optional_in, 7)


@njit
def narrow_types(a, b, c):
    u = np.uint8(a)
    f = np.float32(b)
    z = np.complex64(c)
    t = a > 1
    with objmode(r="float64", v="uint8", w="float32", q="complex64", tt="boolean"):
        r = float(u) + float(f) + abs(z) + t
        v = u + 1
        w = f * 2
        q = z * 2
        tt = not t
    return r, v, w, q, tt


def test_narrow_number_types():
    # the block sees Python numbers (abs of complex64 is a float64 there,
    # a float32 in py_func)
    check(narrow_types, 3, 2.5, 1 + 2j, rtol=1e-6)


@njit
def views_in(a):
    b = np.ones((3, 4))
    v = b[:, 1]
    ft = a.T
    with objmode(r="float64", fr="float64[::1, :]", st="float64[:, :]"):
        v[:] = 5.0
        r = float(ft.sum()) + float(ft.flags.f_contiguous)
        fr = np.asfortranarray(np.arange(6.0).reshape(2, 3))
        st = np.arange(16.0).reshape(4, 4)[::2, ::2]
    return r, b, fr, st, fr[1, 0] + st[1, 1]


def test_views_and_layouts(balanced):
    check(views_in, np.arange(6.0).reshape(2, 3))


@pytest.mark.numba_skip("hpcjit cc")
def test_ahead_of_time_compilation_refuses_objmode(tmp_path):
    import os
    import subprocess
    import sys
    mod = tmp_path / "kernels_om.py"
    mod.write_text("from hpcjit import njit, objmode\n"
                   "@njit('float64(float64)')\n"
                   "def f(x):\n"
                   "    with objmode(y='float64'):\n"
                   "        y = x * 2\n"
                   "    return y\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.dirname(os.path.dirname(hpcjit.__file__))] + env.get("PYTHONPATH", "").split(os.pathsep))
    r = subprocess.run([sys.executable, "-m", "hpcjit.aot", str(mod), "--outdir", str(tmp_path / "out")],
                       capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert r.returncode != 0 and "objmode block cannot be compiled ahead of time" in r.stderr, r.stderr


DROPIN_SCRIPT = '''
import numpy as np
import numba
from numba import njit, objmode
from numba.core import types

assert numba.__hpcjit__
VEC = types.float64[:]

@njit(nogil=True)
def f(a):
    s = a.sum()
    with objmode(r=VEC, n="intp"):
        r = np.sort(a)[::-1].copy()
        n = len(str(s))
    return r * 2, n

a = np.array([2.0, 5.0, 1.0])
got, exp = f(a), f.py_func(a)
assert np.array_equal(got[0], exp[0]) and got[1] == exp[1], (got, exp)
print("ok", got[1])
'''


@pytest.mark.numba_skip("runs a Numba program on hpcjit's drop-in")
def test_numba_objmode_under_the_dropin(tmp_path):
    import os
    import subprocess
    import sys
    script = tmp_path / "prog_om.py"
    script.write_text(DROPIN_SCRIPT)
    env = dict(os.environ)
    env.pop("HPCJIT_AS_NUMBA", None)
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.dirname(os.path.dirname(hpcjit.__file__))] + env.get("PYTHONPATH", "").split(os.pathsep))
    r = subprocess.run([sys.executable, "-m", "hpcjit.numba", str(script)], capture_output=True,
                       text=True, env=env, cwd=tmp_path, timeout=300)
    assert r.returncode == 0 and "ok 3" in r.stdout, r.stdout + r.stderr


def test_in_a_vectorized_kernel():
    @hpcjit.vectorize(["float64(float64)"])
    def gamma_plus_one(x):
        with objmode(y="float64"):
            y = math.gamma(x)
        return y + 1.0

    x = np.array([1.0, 2.5, 5.0])
    got = gamma_plus_one(x)
    assert np.allclose(got, [math.gamma(v) + 1.0 for v in x], rtol=1e-12)


@njit
def undeclared_output(x):
    z = 0.0
    with objmode(y="float64"):
        y = x
        z = 2.0
    return y + z


def test_undeclared_variable_used_after_the_block_is_a_typing_error():
    # its value would be lost: Numba and hpcjit ask for a declaration
    with pytest.raises(errors.TypingError) as ei:
        undeclared_output(1.0)
    if not AGAINST_NUMBA:
        assert "'z'" in str(ei.value) and "objmode(z=" in str(ei.value)


@njit
def block_local_names(a):
    acc = 0.0
    for i in range(a.shape[0]):
        t = a[i]
        with objmode(r="float64"):
            t = t * 2  # rebinds the block's own t only
            tmp = [t, 1.0]
            r = sum(tmp)
        acc += r
    return acc


def test_names_local_to_the_block():
    check(block_local_names, np.arange(4.0))


@njit
def str_in_out(s, n):
    t = s + "!"
    with objmode(u="unicode_type", k="int64", p="Tuple((unicode_type, int64))"):
        u = "-".join([t.upper()] * n)
        k = len(u)
        p = (u[::-1], k * 2)
    return u + "?", k, p


def test_str_in_and_out(balanced):
    check(str_in_out, "abc", 2)
    check(str_in_out, "héllo ✓", 3)
