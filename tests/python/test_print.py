"""print() and f-strings in compiled code: what a compiled function writes to
sys.stdout must be what its py_func writes, character for character."""
import contextlib
import io

import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import AGAINST_NUMBA, make_array, run_python

fstrings = pytest.mark.numba_skip(reason="Numba does not compile f-strings")


def outputs(f, *args):
    """(result, stdout) of the compiled f and of f.py_func."""
    res = []
    for fn in (f, f.py_func):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            r = fn(*args)
        res.append((r, buf.getvalue()))
    return res


def same_output(f, *args):
    (rj, oj), (rp, op) = outputs(f, *args)
    assert oj == op, f"compiled printed {oj!r}, py_func printed {op!r}"
    return oj


@njit
def print_scalars(i, x, z, b):
    print("values:", i, x, z, b, None)
    print(x / 3, -x, x * 1e20, x * 1e-7, i // 2)
    return i


@pytest.mark.parametrize("i,x,z,b", [
    (7, 2.5, 1 + 2j, True),
    (-3, -0.0, complex(0.0, -2.0), False),
    (0, float("inf"), complex(-0.0, 1.5), True),
    (2**62, float("nan"), complex(1.5, float("nan")), False),
    (-(2**63), 1e-300, complex(1e20, -1e-20), True),
])
def test_scalars(i, x, z, b):
    same_output(print_scalars, i, x, z, b)


@njit
def print_one(v):
    print(v)


@pytest.mark.parametrize("value", [
    np.int8(-5), np.int16(300), np.int32(-70000), np.uint8(255), np.uint16(65535),
    np.uint32(4000000000), np.uint64(2**64 - 1), np.float32(0.1), np.float32(3.0),
    np.float32(1e-5), np.float32(-2.5e20), np.float64(1e16), np.float64(1e15),
    np.float64(0.0001), np.float64(123456789.125), np.complex64(1.5 - 2j), np.complex128(-1j),
    np.bool_(True),
])
def test_every_scalar_type(value):
    same_output(print_one, value)


@njit
def print_tuples(i, x):
    print((i, x), (x,), ((i, i), x), ())
    return (i, x)


def test_tuples():
    same_output(print_tuples, 3, 1.25)


@njit
def print_arrays(a):
    print(a)
    print(a[::-1], a.shape, sep=" | ")
    print((a.ndim, a))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.uint8, np.bool_, np.complex128])
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 0), (2, 2, 3)])
def test_arrays_as_numpy_prints_them(dtype, layout, shape):
    same_output(print_arrays, make_array(dtype, shape, layout))


@njit
def print_sep_end(a, b):
    print(a, b, sep="")
    print(a, b, sep=", ", end=";\n")
    print(a, end="")
    print(b, end=None)
    print()
    print("no", "sep", sep=None)


def test_sep_and_end():
    assert same_output(print_sep_end, 1, 2.5) == "12.5\n1, 2.5;\n12.5\n\nno sep\n"


def noisy(x):
    print("inner", x)
    return x + 1


noisy_jit = njit(noisy)


@njit
def print_calls_printing(x):
    print("outer", noisy_jit(x), noisy_jit(x + 10))


def test_arguments_printed_first():
    # Python evaluates every argument before the line is written
    assert same_output(print_calls_printing, 1) == "inner 1\ninner 11\nouter 2 12\n"


@fstrings
def test_fstring_specs():
    @njit
    def f(i, x, u):
        print(f"i={i} x={x} u={u} {i:>6d}|{i:<6}|{i:^7}|{i:*^9}|{i:+d}|{i: d}|{-i:=+8}")
        print(f"{i:#x} {i:#o} {i:08b} {i:X} {1234567:,} {1234567:_} {255:_x} {i:e} {i:.2f}")
        print(f"{x:e} {x:.3E} {x:10.2%} {x:g} {x:G} {x:.3} {x:f} {x:+.1f} {x:012.4f} {x:<10.1f}|{x:,.2f}")
        print(f"{x * 1e22:g} {x * 1e-9:.3g} {x:#.3g} {float(i):.3} {u:d} {u:x} {True} {False:d} {True:>3}")
        print(f"{x!r} {x!s} {'text'!r} {'it''s'!r} {None} {(i, x)} {1 + 2j}")

    for args in [(7, 2.0 / 3, np.uint64(2**64 - 1)), (-42, -1234.5678, np.uint64(0)),
                 (0, float("inf"), np.uint64(10))]:
        same_output(f, *args)


GLOBAL_TEXT = "gl"


@fstrings
def test_fstring_specs_of_constant_text():
    # a string constant (a literal, a global) with a spec is padded and cut as a str value
    @njit
    def f(i):
        print(f"[{'ab':*<4}|{'x':^5}|{GLOBAL_TEXT:>6}|{'abcdef':.3}|{'s':<3}|{i}]")
        return f"{'ab':->4}{i}"

    same_output(f, 3)
    assert f(3) == f.py_func(3)


@fstrings
def test_fstring_nan_inf_and_float32():
    @njit
    def f(x, y):
        print(f"{x} {x:f} {x:F} {x:e} {x:+g} {x:>6} {y} {y:.3f} {y * np.float32(3)}")

    for x in (float("nan"), float("-inf"), float("inf"), -0.0):
        same_output(f, x, np.float32(0.1))


@fstrings
def test_fstring_arrays():
    @njit
    def f(a):
        print(f"a = {a} and {a!r}; sum {a.sum():.3f}")

    same_output(f, np.arange(6.0).reshape(2, 3))


@fstrings
def test_bad_format_spec_raises_like_python():
    @njit
    def f(i, x):
        print(f"{i:q}")

    @njit
    def g(i, x):
        print(f"{x:d}")

    @njit
    def h(i, x):
        print(f"{i:.2d}")

    for fn in (f, g, h):
        with pytest.raises(ValueError) as jit_err:
            fn(3, 1.5)
        with pytest.raises(ValueError) as py_err:
            fn.py_func(3, 1.5)
        assert str(jit_err.value).split("'")[0] == str(py_err.value).split("'")[0]


@fstrings
def test_raise_and_assert_with_fstring_messages():
    @njit
    def f(n, x):
        if n < 0:
            raise ValueError(f"n must be >= 0, got {n} (x={x:.2f})")
        # the message is evaluated only when the assertion fails
        assert n != 3, f"n is {n}, 1/n is {1 / (n - 3)}"
        assert n != 4, f"n is {n}, x is {x}"
        return n

    for n in (-2, 3, 4, 5):
        try:
            exp = ("ok", f.py_func(n, 0.5))
        except Exception as e:  # compared below
            exp = (type(e), str(e))
        try:
            got = ("ok", f(n, 0.5))
        except Exception as e:  # compared below
            got = (type(e), str(e))
        assert got[0] == exp[0]
        if exp[0] is not ZeroDivisionError:  # CPython says "division by zero" for int / int
            # pytest's assert rewriting appends the expression to py_func's message
            assert got[1] == (exp[1].split("\n")[0] if isinstance(exp[1], str) else exp[1])


@fstrings
def test_fstring_message_releases_arrays():
    @njit
    def f(n):
        a = np.ones(n)
        if n > 2:
            raise IndexError(f"too long: {a * 2}")
        return a.sum()

    before = hpcjit._core.memstats()
    for _ in range(50):
        with pytest.raises(IndexError):
            f(3)
    allocs, frees = hpcjit._core.memstats()
    assert allocs - before[0] == frees - before[1]


@pytest.mark.numba_skip(reason="hpcjit's compile-time diagnostics")
def test_unsupported_print_forms_are_located():
    @njit
    def f(x):
        print(x, file=None)

    @njit
    def g(a):
        print(f"{a:>5}")

    with pytest.raises(hpcjit.UnsupportedError, match=r"test_print.py:\d+:\d+: error: print\(\) keyword 'file'"):
        f(1)
    with pytest.raises(hpcjit.TypingError, match="format specs are supported for integers, floats and str only"):
        g(np.arange(3))


@pytest.mark.numba_skip(reason="hpcjit writes from workers and nogil code to fd 1")
def test_print_from_prange_workers_and_nogil():
    r = run_python("""
        import numpy as np
        import hpcjit
        from hpcjit import njit, prange

        @njit(parallel=True)
        def par(n):
            s = 0
            for i in prange(n):
                print("iteration", i)
                s += i
            return s

        @njit(nogil=True)
        def ng(x):
            print("nogil", x, np.arange(3.0))
            return x

        hpcjit.set_num_threads(2)
        print("sum", par(8), flush=True)
        ng(5)
    """)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert sorted(l for l in lines if l.startswith("iteration")) == [f"iteration {i}" for i in range(8)]
    assert "sum 28" in lines
    assert "nogil 5 [0.0 1.0 2.0]" in lines


def _spec_cases(seed, n):
    """Random format specs (every field of the mini-language), fixed by seed."""
    import random
    r = random.Random(seed)
    out = []
    for _ in range(n):
        align = r.choice(["", "<", ">", "^", "="])
        fill = r.choice(["", "*", "0", " ", "\u00e9"]) if align else ""
        out.append(fill + align + r.choice(["", "+", "-", " "]) + r.choice(["", "#"]) + r.choice(["", "0"]) +
                   r.choice(["", "1", "8", "15"]) + r.choice(["", ",", "_"]) + r.choice(["", ".0", ".3", ".10"]))
    return out


_INT_TYPES = ["", "d", "x", "X", "o", "b", "n", "e", "f", "g", "%"]
_FLOAT_TYPES = ["", "e", "E", "f", "F", "g", "G", "%", "n"]


def _compile_spec(spec, i):
    import linecache
    fn = f"<hpcjit-format-{i}>"
    src = f"def f(x):\n    print(f'{{x:{spec}}}')\n"
    linecache.cache[fn] = (len(src), None, src.splitlines(True), fn)
    g = {}
    exec(compile(src, fn, "exec"), g)
    return njit(g["f"])


@fstrings
@pytest.mark.parametrize("kind", ["int", "float"])
def test_format_specs_against_cpython(kind):
    # a differential test: each spec formats like CPython's format(), or
    # raises ValueError where it does
    types = _INT_TYPES if kind == "int" else _FLOAT_TYPES
    values = ([0, 7, -42, 123456789, -2**63, 2**62] if kind == "int" else
              [0.0, -0.0, 1.5, -1234.5678, 1e20, 1e-7, float("nan"), float("inf"), 2.0 / 3, 99.9])
    specs = [s + types[i % len(types)] for i, s in enumerate(_spec_cases(7 if kind == "int" else 11, 60))]
    for i, spec in enumerate(specs):
        f = _compile_spec(spec, f"{kind}{i}")
        for v in values:
            try:
                exp = format(v, spec)
            except ValueError:
                exp = ValueError
            buf = io.StringIO()
            try:
                with contextlib.redirect_stdout(buf):
                    f(v)
                got = buf.getvalue()[:-1]
            except ValueError:
                got = ValueError
            assert got == exp, (spec, v)
