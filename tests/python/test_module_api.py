"""Numba's module-level helpers: jit_module (every function of a module
compiled), extending.is_jitted, extending.get_cython_function_address
(Cython's exported C functions called from compiled code through ctypes).
Each compiled function is checked against its py_func."""
import ctypes
import os
import sys
import textwrap

import numpy as np
import pytest

hpcjit = pytest.importorskip("hpcjit")
from conftest import check  # noqa: E402

SHIM = getattr(hpcjit, "__hpcjit_numba_shim__", False)
if SHIM:
    import numba
    from numba.extending import get_cython_function_address, is_jitted
    jit_module_name = "numba"
else:
    from hpcjit.extending import get_cython_function_address, is_jitted
    jit_module_name = "hpcjit"

MODULE = '''
import numpy as np
from {pkg} import jit_module, njit
from math import sqrt  # imported: not compiled by jit_module


def norm(a):
    s = 0.0
    for v in a:
        s += v * v
    return sqrt(s)


def scaled(a, k):
    return a / norm(a) * k  # calls another function of the module


@njit
def already(x):  # compiled already: left as it is
    return x + 1


HELPER = lambda x: x * 2  # noqa: E731  (a lambda is a function too)

jit_module(boundscheck=True)


def after(x):  # defined after the call: stays Python
    return x - 1
'''


@pytest.fixture
def jitted_module(tmp_path, monkeypatch):
    name = "hj_jit_module_probe"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(MODULE.format(pkg=jit_module_name)))
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop(name, None)
    import importlib
    mod = importlib.import_module(name)
    yield mod
    sys.modules.pop(name, None)


def test_jit_module_compiles_the_modules_functions(jitted_module):
    m = jitted_module
    assert is_jitted(m.norm) and is_jitted(m.scaled) and is_jitted(m.HELPER)
    assert is_jitted(m.already)
    assert not is_jitted(m.after) and not is_jitted(m.sqrt)
    a = np.arange(1.0, 6.0)
    check(m.norm, a)
    check(m.scaled, a, 3.0)
    check(m.HELPER, 21)
    assert m.after(3) == 2


@pytest.mark.numba_skip("Numba checks options at the first call")
def test_jit_module_bad_option_replaces_nothing(tmp_path, monkeypatch):
    name = "hj_jit_module_bad_option"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent('''
        from hpcjit import jit_module

        def f(x):
            return x + 1

        try:
            jit_module(no_such_option=True)
        except TypeError as e:
            ERROR = str(e)
        '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib
    mod = importlib.import_module(name)
    try:
        assert "no_such_option" in mod.ERROR
        assert not is_jitted(mod.f) and mod.f(1) == 2
    finally:
        sys.modules.pop(name, None)


def test_is_jitted():
    @hpcjit.njit
    def f(x):
        return x

    def g(x):
        return x
    assert is_jitted(f)
    assert not is_jitted(g)
    assert not is_jitted(f.py_func)
    assert not is_jitted(np.sin)
    assert not is_jitted(None)


scipy_special = pytest.importorskip("scipy.special")
import scipy.special.cython_special  # noqa: E402,F401

_d_d = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double)
gammaln_fn = _d_d(get_cython_function_address("scipy.special.cython_special", "gammaln"))
ndtri_fn = _d_d(get_cython_function_address("scipy.special.cython_special", "ndtri"))


@hpcjit.njit
def gammaln_sum(a):
    s = 0.0
    for v in a:
        s += gammaln_fn(v)
    return s


@hpcjit.njit
def quantiles(p):
    out = np.empty_like(p)
    for i in range(p.size):
        out[i] = ndtri_fn(p[i])
    return out


def test_cython_function_from_compiled_code():
    check(gammaln_sum, np.linspace(0.5, 20.0, 41))
    check(quantiles, np.linspace(0.01, 0.99, 17))
    assert gammaln_sum(np.array([3.5])) == pytest.approx(float(scipy_special.gammaln(3.5)), rel=1e-15)


def test_cython_function_address_errors():
    with pytest.raises(ValueError, match="no_such_function"):
        get_cython_function_address("scipy.special.cython_special", "no_such_function")
    with pytest.raises((ValueError, AttributeError)):
        get_cython_function_address("math", "sqrt")  # not a Cython module
    with pytest.raises(ImportError):
        get_cython_function_address("no_such_module_xyz", "f")
