"""Environment gathering for the compiler (hpcjit.compiler): source,
line/column offsets, and the classification of every global, builtin and
closure name a function uses.  Pure Python: needs no compiled code."""
import cmath
import math
import os
import sys

import numpy as np
import pytest

hpcjit = pytest.importorskip("hpcjit")
if getattr(hpcjit, "__hpcjit_numba_shim__", False):
    pytest.skip("hpcjit internals", allow_module_level=True)

from hpcjit import compiler, njit, prange  # noqa: E402
import hpcjit.types as hjtypes  # noqa: E402

pytestmark = pytest.mark.numba_skip("tests hpcjit's own environment gathering")

GLOBAL_INT = 7
GLOBAL_BOOL = True
GLOBAL_FLOAT = 2.5
GLOBAL_COMPLEX = 1 - 2j
GLOBAL_NONE = None
GLOBAL_STR = "message"
GLOBAL_TUPLE = (1, 2.0, (True, None))
GLOBAL_NP_INT = np.int32(3)
GLOBAL_NP_FLOAT = np.float32(0.5)
GLOBAL_DICT = {"a": 1}
GLOBAL_BIG = 2 ** 70


def env_of(disp):
    funcs, entry = compiler.gather(disp)
    return {name: (kind, payload) for name, kind, payload in funcs[entry][6]}, funcs, entry


@njit
def uses_everything(x):
    a = GLOBAL_INT + GLOBAL_BOOL + GLOBAL_FLOAT + GLOBAL_COMPLEX
    b = GLOBAL_NONE, GLOBAL_STR, GLOBAL_TUPLE, GLOBAL_NP_INT, GLOBAL_NP_FLOAT
    c = GLOBAL_DICT, GLOBAL_BIG
    d = np.sqrt(x) + math.sin(x) + abs(x) + len((1,)) + cmath.sqrt(x).real
    for i in prange(3):
        pass
    for j in range(2):
        pass
    e = np.float64(x)
    raise ValueError("x")
    return a, b, c, d, e


def test_scalar_and_container_classification():
    env, _, _ = env_of(uses_everything)
    assert env["GLOBAL_INT"] == ("int", 7)
    assert env["GLOBAL_BOOL"] == ("bool", True)
    assert env["GLOBAL_FLOAT"] == ("float", 2.5)
    assert env["GLOBAL_COMPLEX"] == ("complex", 1 - 2j)
    assert env["GLOBAL_NONE"] == ("none", None)
    assert env["GLOBAL_STR"] == ("str", "message")
    assert env["GLOBAL_TUPLE"] == ("tuple", [(None, "int", 1), (None, "float", 2.0),
                                             (None, "tuple", [(None, "bool", True),
                                                              (None, "none", None)])])
    assert env["GLOBAL_NP_INT"] == ("int", 3) and type(env["GLOBAL_NP_INT"][1]) is int
    assert env["GLOBAL_NP_FLOAT"] == ("float", 0.5) and type(env["GLOBAL_NP_FLOAT"][1]) is float
    assert env["GLOBAL_DICT"] == ("other", "a dict")
    assert env["GLOBAL_BIG"][0] == "other"


def test_modules_and_builtins():
    env, _, _ = env_of(uses_everything)
    assert env["np"] == ("module", "numpy")
    assert env["math"] == ("module", "math")
    assert env["cmath"] == ("module", "cmath")
    assert env["abs"] == ("builtin", "builtins.abs")
    assert env["len"] == ("builtin", "builtins.len")
    assert env["range"] == ("builtin", "builtins.range")
    assert env["prange"] == ("builtin", "hpcjit.prange")
    assert env["ValueError"] == ("builtin", "builtins.ValueError")
    # attribute names are not globals
    assert "sqrt" not in env and "real" not in env


from math import sqrt as msqrt  # noqa: E402
from numpy import float32 as npf32, absolute as npabs, empty as npempty  # noqa: E402
from numpy.linalg import norm  # noqa: E402


@njit
def uses_imported_names(x):
    return msqrt(x) + npf32(x) + npabs(x) + npempty(3)[0] + norm(x) + np.random.rand() \
        + hjtypes.float64(x)


def test_imported_functions_by_identity():
    env, _, _ = env_of(uses_imported_names)
    assert env["msqrt"] == ("builtin", "math.sqrt")
    assert env["npf32"] == ("builtin", "numpy.float32")
    assert env["npabs"] == ("builtin", "numpy.absolute")
    assert env["npempty"] == ("builtin", "numpy.empty")
    assert env["norm"] == ("builtin", "numpy.linalg.norm")
    assert env["hjtypes"] == ("module", "hpcjit.types")


@njit
def callee(x):
    return x + 1


@njit
def caller(x):
    return callee(x) * 2


@njit
def self_rec(n):
    return 1 if n <= 1 else n * self_rec(n - 1)


@njit
def even(n):
    return True if n == 0 else odd(n - 1)


@njit
def odd(n):
    return False if n == 0 else even(n - 1)


def test_jitted_functions_are_gathered_once():
    env, funcs, entry = env_of(caller)
    assert entry == 0 and len(funcs) == 2
    assert env["callee"] == ("func", 1)
    assert funcs[1][0] == "callee"
    env, funcs, entry = env_of(self_rec)
    assert env["self_rec"] == ("func", 0) and len(funcs) == 1
    env, funcs, entry = env_of(even)
    assert len(funcs) == 2 and env["odd"] == ("func", 1)
    odd_env = {n: (k, p) for n, k, p in funcs[1][6]}
    assert odd_env["even"] == ("func", 0)


def make_closure():
    scale = 3.0
    n = 4

    @njit
    def inner(x):
        return x * scale + n + callee(x)
    return inner


def test_closure_cells():
    env, funcs, _ = env_of(make_closure())
    assert env["scale"] == ("float", 3.0)
    assert env["n"] == ("int", 4)
    assert env["callee"] == ("func", 1)


class Holder:
    @staticmethod
    def method_like():
        @njit
        def indented(a,
                     b):
            return a + b
        return indented


def test_source_offsets_and_dedent():
    disp = Holder.method_like()
    funcs, entry = compiler.gather(disp)
    name, qualname, filename, source, first_line, col_offset, env, options = funcs[entry]
    assert name == "indented" and qualname.endswith("method_like.<locals>.indented")
    assert filename == __file__
    assert source.startswith("@njit\ndef indented(a,\n             b):")
    assert col_offset == 8
    with open(__file__) as fh:
        lines = fh.read().splitlines()
    assert lines[first_line - 1].strip() == "@njit"
    assert lines[first_line].strip().startswith("def indented")


def test_options_passed_to_the_compiler():
    @njit(fastmath=True, boundscheck=True, error_model="numpy", inline="always")
    def f(x):
        return x
    funcs, entry = compiler.gather(f)
    opts = funcs[entry][7]
    assert opts == {"fastmath": True, "boundscheck": True, "error_model": "numpy",
                    "nogil": False, "parallel": False, "inline": "always"}


def test_source_unavailable_is_rebuilt_or_a_clear_error():
    ns = {}
    exec("def g(x):\n    return x\n", ns)
    funcs, entry = compiler.gather(njit(ns["g"]))  # rebuilt from the bytecode
    assert funcs[entry][3] == "def g(x):\n    return x\n"
    exec("def h(x):\n    with x:\n        return x\n", ns)
    with pytest.raises(hpcjit.UnsupportedError, match="source code is not available"):
        compiler.gather(njit(ns["h"]))


def test_boundscheck_from_environment():
    from conftest import run_python
    code = """
        import hpcjit
        @hpcjit.njit
        def f(x):
            return x
        print(f.targetoptions['boundscheck'])
    """
    for var in ("HPCJIT_BOUNDSCHECK", "NUMBA_BOUNDSCHECK"):
        env = {k: v for k, v in os.environ.items() if not k.endswith("_BOUNDSCHECK")}
        r = run_python(code, env=dict(env, **{var: "1"}))
        assert r.stdout.strip() == "True", r.stderr


def test_disable_jit_returns_the_function():
    from conftest import run_python
    r = run_python("""
        import hpcjit
        def f(x):
            return x
        print(hpcjit.njit(f) is f, hpcjit.njit("int64(int64)")(f) is f)
    """, env={"HPCJIT_DISABLE_JIT": "1"})
    assert r.stdout.strip() == "True True", r.stderr


def test_import_does_not_load_the_compiler():
    from conftest import run_python
    r = run_python("""
        import sys, hpcjit
        print('hpcjit._compiler' in sys.modules, 'hpcjit.compiler' in sys.modules)
    """)
    assert r.stdout.strip() == "False False", r.stderr
