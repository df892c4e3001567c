"""Functions without source (issue 11): defined by exec() of a string, by
`python -c` or by `python - <<EOF`.  hpcjit rebuilds their text from the
bytecode (python/hpcjit/bytecode.py); each is checked against its py_func.
The property tests run whole test modules with every function decompiled
(HPCJIT_SOURCE_FROM_BYTECODE=1)."""
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import hpcjit
from hpcjit import njit, prange
from conftest import check, run_python, AGAINST_NUMBA

HERE = os.path.dirname(os.path.abspath(__file__))

# The decompiler reads the bytecode of the CPython versions in
# hpcjit.bytecode.SUPPORTED (3.10 to 3.13); on others a function without
# source is refused with an UnsupportedError
# (test_other_python_versions_are_refused).  test_bytecode_versions.py checks
# the decompiler alone under each version, without the extension.
if AGAINST_NUMBA:
    decompiles = pytest.mark.skipif(False, reason="")
else:
    from hpcjit import bytecode as _bytecode
    decompiles = pytest.mark.skipif(
        sys.version_info[:2] not in _bytecode.SUPPORTED,
        reason="the decompiler reads CPython %s bytecode only"
        % ", ".join("%d.%d" % v for v in _bytecode.SUPPORTED))


def define(src, name=None, **glb):
    """The function `name` (the first def by default) of `src`, run by
    exec() of a string: no file, no linecache entry."""
    ns = {"np": np, "njit": njit, "prange": prange, "hpcjit": hpcjit}
    ns.update(glb)
    src = textwrap.dedent(src)
    exec(src, ns)
    if name is None:
        name = src.split("def ", 1)[1].split("(", 1)[0]
    return ns[name]


KERNELS = {
    "loops": ("""
        def f(n):
            s = 0
            for i in range(n):
                for j in range(i, n, 2):
                    s += i * j - (j // 3)
            return s
        """, [(0,), (7,), (20,)]),
    "branches": ("""
        def f(x, y):
            if x < 0:
                r = -x
            elif x == 0:
                r = y
            elif x > 10 and y != 3 or y < -5:
                r = x * 2
            else:
                r = x + y
            return r
        """, [(-3, 1), (0, 4), (12, 3), (12, 4), (5, -9), (5, 1)]),
    "while_break_continue": ("""
        def f(n):
            i = 0
            s = 0
            while i < n:
                i += 1
                if i % 3 == 0:
                    continue
                if i > 50:
                    break
                s += i
            else:
                s = -s
            return s, i
        """, [(0,), (10,), (100,)]),
    "while_true": ("""
        def f(n):
            k = 0
            while True:
                k += 1
                if k * k > n:
                    break
            return k
        """, [(0,), (17,), (1000,)]),
    "for_else": ("""
        def f(a, x):
            for i in range(len(a)):
                if a[i] == x:
                    pos = i
                    break
            else:
                pos = -1
            return pos
        """, [(np.array([3, 1, 4, 1, 5]), 4), (np.array([3, 1, 4]), 9)]),
    "nested_break": ("""
        def f(n):
            count = 0
            for i in range(n):
                for j in range(n):
                    if j > i:
                        break
                    if (i + j) % 3 == 0:
                        continue
                    count += 1
                else:
                    count += 1000
            return count
        """, [(0,), (1,), (9,)]),
    "short_circuit_values": ("""
        def f(a, b, c):
            x = a and b or c
            y = a or b and c
            z = (a < b < c) + (b < c < a)
            w = a if b > c else -a
            return x, y, z, w
        """, [(0, 2, 3), (1, 0, 3), (4, 5, 0), (2, 1, 0)]),
    "short_circuit_in_loop": ("""
        def f(a):
            s = 0.0
            for i in range(a.shape[0]):
                if (a[i] > 0 and i % 2 == 0) or (a[i] < -1 and not i == 3):
                    s += a[i]
                elif a[i] == 0 or i > 7:
                    s -= 1
            return s
        """, [(np.linspace(-3, 3, 11),)]),
    "arrays_slices": ("""
        def f(a, b):
            n, m = a.shape
            out = np.zeros((n, m))
            for i in range(n):
                out[i, :] = a[i, ::-1] * 2.0
                out[i, 1:m - 1] += b[1:m - 1]
            a[0, :2] -= 1.0
            a[n - 1] *= 3
            return out, a[1:, ::2].sum(), out.T[0]
        """, [(np.arange(12.0).reshape(3, 4), np.ones(4))]),
    "tuples": ("""
        def f(x, y):
            a, b = x, y
            a, b = b, a
            t = (a, b, a + b)
            p, (q, r) = t[0], (t[1], t[2])
            c = d = p * 2
            return t, p + q + r, c + d, (a, b)[1]
        """, [(1, 2), (5.5, -2.0)]),
    "enumerate_zip": ("""
        def f(a, b):
            s = 0.0
            for i, x in enumerate(a):
                s += i * x
            for x, y in zip(a, b):
                s += x * y
            for k in range(3, -3, -2):
                s += k
            return s
        """, [(np.arange(5.0), np.ones(5) * 2)]),
    "keywords_methods_math": ("""
        import math
        def f(a):
            s = np.sum(a, axis=0)
            m = a.max()
            r = round(math.sqrt(abs(m)), 3)
            return s, np.empty(3, dtype=np.float64).shape, r, a.reshape((a.size,))[-1]
        """, [(np.arange(6.0).reshape(2, 3),)]),
    "raise": ("""
        def f(x):
            if x < 0:
                raise ValueError("negative")
            assert x != 3, "three"
            assert x != 4
            return x * 2
        """, [(1,), (-1,), (3,), (4,)]),
    "early_returns": ("""
        def f(a):
            for i in range(a.shape[0]):
                if a[i] < 0:
                    return i
                for j in range(i):
                    if a[j] == a[i]:
                        return -j
            return 100
        """, [(np.array([1.0, 2.0, -1.0]),), (np.array([1.0, 2.0, 1.0]),), (np.array([1.0]),)]),
    "lists_comprehensions": ("""
        def f(n):
            lst = [i * i for i in range(n) if i % 2 == 1]
            lst.append(7)
            nested = [i + j for i in range(3) for j in range(i)]
            d = {}
            for x in lst:
                if x % 4 in d:
                    d[x % 4] += x
                else:
                    d[x % 4] = x
            return sum(lst), len(nested), len(d)
        """, [(0,), (9,)]),
    "inner_function_and_lambda": ("""
        def f(x, k):
            def scale(y):
                return y * k
            inc = lambda z: z + 1
            return scale(inc(x))
        """, [(2, 3), (1.5, -1)]),
    "conditional_expression_in_call": ("""
        def f(a, flag):
            return np.sum(a if flag else -a), max(1, 2 if flag else 3)
        """, [(np.arange(4.0), True), (np.arange(4.0), False)]),
    "is_none": ("""
        def f(x, y=None):
            if y is None:
                return x
            return x + y
        """, [(1,), (1, 2)]),
}


@decompiles
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_exec_kernel(name):
    src, calls = KERNELS[name]
    f = njit(define(src))
    for args in calls:
        check(f, *args)


def test_calls_between_exec_functions():
    ns = {"njit": njit}
    exec(textwrap.dedent("""
        @njit
        def sq(x):
            return x * x

        @njit
        def total(n):
            s = 0
            for i in range(n):
                s += sq(i)
            return s
        """), ns)
    check(ns["total"], 10)


@decompiles
def test_prange_reduction():
    f = njit(parallel=True)(define("""
        def f(a):
            s = 0.0
            for i in prange(a.shape[0]):
                s += a[i] * 2.0
            return s
        """))
    check(f, np.arange(1000.0))


@decompiles
def test_lambda_without_source():
    ns = {}
    exec("g = lambda x, y: x * y + 1", ns)
    check(njit(ns["g"]), 3, 4)


@decompiles
@pytest.mark.numba_skip("hpcjit's own diagnostics")
def test_error_is_located_and_says_reconstructed():
    f = njit(define("""
        def f(a):
            x = 1
            return a + 'text'
        """))
    with pytest.raises(hpcjit.TypingError) as info:
        f(1)
    msg = str(info.value)
    assert "<string>:4:" in msg  # the user's line: the def is on line 2 of the string
    assert "reconstructed from its bytecode" in msg


@decompiles
@pytest.mark.numba_skip("hpcjit's own diagnostics")
def test_try_is_refused_with_a_located_error():
    f = njit(define("""
        def f(a):
            try:
                return 1 // a
            except ZeroDivisionError:
                return 0
        """))
    with pytest.raises(hpcjit.UnsupportedError, match=r"<string>:\d+: error: .*try/except"):
        f(1)


@decompiles
@pytest.mark.numba_skip("hpcjit's own diagnostics")
def test_generator_is_refused():
    f = njit(define("""
        def f(n):
            yield n
        """))
    with pytest.raises(hpcjit.UnsupportedError, match="generator"):
        f(1)


@decompiles
@pytest.mark.numba_skip("hpcjit internals")
def test_decompiled_text_keeps_lines():
    from hpcjit import bytecode
    g = define("""
        def f(n):
            s = 0

            for i in range(n):
                s += i
            return s
        """)
    text, first = bytecode.decompile(g)
    assert first == 2
    lines = text.splitlines()
    assert lines[0] == "def f(n):"
    assert lines[3].strip() == "for i in range(n):"  # source line 5
    assert lines[4].strip() == "s += i"


@pytest.mark.numba_skip("hpcjit's own diagnostics")
def test_other_python_versions_are_refused(monkeypatch):
    """Where the decompiler does not read this CPython's bytecode (3.14),
    a function without source is a clear UnsupportedError at its
    call, and everything else works."""
    from hpcjit import bytecode
    monkeypatch.setattr(bytecode, "SUPPORTED", ((2, 7),))
    g = define("""
        def g(n):
            return n + 1
        """)
    f = njit(g)
    here = "%d.%d" % sys.version_info[:2]
    with pytest.raises(hpcjit.UnsupportedError,
                       match=r"<string>:2: error: cannot compile g: .* cannot be reconstructed from its "
                             r"bytecode: CPython %s \(the decompiler reads 2\.7 bytecode only\) is not "
                             r"supported" % re.escape(here)):
        f(1)
    assert g(1) == 2

    @njit
    def h(n):
        return n * 2
    check(h, 21)


@pytest.mark.numba_skip("hpcjit internals")
def test_irregular_bytecode_is_refused_not_miscompiled():
    # a code object whose jumps do not come from structured source: the
    # decompiler must refuse it
    from hpcjit import bytecode
    import types

    def f(x):
        return x

    bad = types.FunctionType(f.__code__.replace(co_exceptiontable=b"\x00\x02\x04\x00"), {})
    with pytest.raises(bytecode.DecompileError):
        bytecode.decompile(bad)


SCRIPT = """
import numpy as np
from hpcjit import njit

@njit
def kernel(a):
    s = 0.0
    for i in range(a.shape[0]):
        if a[i] > 1.0 and i % 2 == 0:
            s += a[i]
        else:
            s -= 0.5
    return s

a = np.arange(10.0)
print(kernel(a) == kernel.py_func(a), kernel(a))
"""


def _env():
    env = dict(os.environ)
    if AGAINST_NUMBA:
        return env
    return env


def _prefix():
    if AGAINST_NUMBA:
        return f"import sys; sys.path.insert(0, {HERE!r}); import numba_shim; numba_shim.install()\n"
    return ""


def test_python_dash_c():
    r = run_python(SCRIPT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] == "True"


@decompiles
def test_python_stdin_heredoc():
    r = subprocess.run([sys.executable, "-"], input=_prefix() + SCRIPT, env=_env(),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] == "True"


# ---- property: whole test modules with every function decompiled -------------

@decompiles
@pytest.mark.numba_skip("hpcjit's decompiler")
@pytest.mark.parametrize("module", ["test_control.py", "test_scalars.py", "test_exceptions.py",
                                    "test_closures.py", "test_inline_lambda.py", "test_lists.py",
                                    "test_dicts.py", "test_globals.py", "test_isinstance.py",
                                    "test_str_format.py"])
def test_modules_from_bytecode(module):
    env = dict(os.environ, HPCJIT_SOURCE_FROM_BYTECODE="1")
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                        os.path.join(HERE, module)], env=env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]


@pytest.mark.numba_skip("hpcjit's source lookup")
def test_notebook_cells_use_their_text():
    # IPython registers each cell in linecache: the real text is used, not
    # the decompiler
    IPython = pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance()
    try:
        r = shell.run_cell("from hpcjit import njit\n@njit\ndef cell_f(n):\n    s = 0\n"
                           "    for i in range(n):\n        s += i\n    return s\n"
                           "from hpcjit import compiler\n"
                           "cell_src = compiler._source(cell_f)\n")
        assert r.success, r.error_in_exec
        assert shell.user_ns["cell_f"](10) == 45
        assert not shell.user_ns["cell_src"].decompiled
    finally:
        InteractiveShell.clear_instance()
