"""First-class function values (Numba's types.FunctionType): @cfunc objects,
Wrapper Address Protocol objects and jitted functions passed to compiled
code as C function pointers, held in tuples, typed and reflected lists,
returned, compared with `is` and called indirectly in loops; every compiled
result is compared with CPython's (py_func)."""
import ctypes
import ctypes.util

import pytest

import hpcjit
from conftest import AGAINST_NUMBA, assert_located_in, check

types = hpcjit.types
typed = hpcjit.typed
I2I = types.FunctionType(types.int64(types.int64))
D2D = types.FunctionType(types.float64(types.float64))


@hpcjit.cfunc("int64(int64)")
def plus_one(x):
    return x + 1


@hpcjit.cfunc("int64(int64)")
def times_three(x):
    return 3 * x


@hpcjit.njit("int64(int64)")
def twice(x):  # compiled eagerly for the signature
    return 2 * x


@hpcjit.njit
def minus_four(x):  # compiled lazily, where it becomes a FunctionType value
    return x - 4


@hpcjit.njit
def square(x):
    return x * x


@hpcjit.cfunc("float64(float64)")
def halve(x):
    return x / 2.0


@hpcjit.njit
def call(f, x):
    return f(x)


@hpcjit.njit
def total(fs, x):
    s = 0
    for f in fs:
        s += f(x)
    return s


@hpcjit.njit
def compose(fs, x):
    r = x
    for f in fs[::-1]:
        r = f(r)
    return r


def test_type_name_and_signature():
    assert str(I2I) == "FunctionType[int64(int64)]"
    assert I2I == types.FunctionType(types.int64(types.int64))
    assert I2I != D2D
    assert hpcjit.typeof(plus_one) == I2I


@pytest.mark.parametrize("f", [plus_one, times_three], ids=["plus_one", "times_three"])
def test_cfunc_argument(f):
    check(call, f, 7)
    check(call, f, -2)


def test_cfunc_argument_is_one_specialisation():
    call_c = hpcjit.njit(call.py_func)
    check(call_c, plus_one, 5)
    check(call_c, times_three, 5)
    assert len(call_c.signatures) == 1  # a FunctionType value: no recompilation per function


def test_tuple_of_cfuncs_looped():
    check(total, (plus_one, times_three, plus_one), 4)
    check(compose, (halve, halve), 10.0)


def test_mixed_tuple_of_cfunc_and_jitted():
    check(compose, (halve, square), 0.5)
    check(compose, (square, halve, square), 3.0)


@hpcjit.njit(types.int64(I2I, types.int64))
def call_sig(f, x):
    return f(x)


@pytest.mark.parametrize("f", [plus_one, twice, minus_four], ids=["cfunc", "njit_sig", "njit_lazy"])
def test_explicit_function_type_signature(f):
    check(call_sig, f, 9)
    assert len(call_sig.signatures) == 1


def test_typed_list_of_functions():
    fs = typed.List.empty_list(I2I)
    fs.append(plus_one)
    fs.append(twice)
    fs.append(minus_four)
    assert len(fs) == 3
    assert total(fs, 6) == total.py_func(fs, 6)
    assert fs[0] is plus_one and fs[1] is twice and fs[2] is minus_four


def test_typed_list_from_items():
    fs = typed.List([plus_one, twice, times_three])
    assert total(fs, 2) == total.py_func(fs, 2)
    assert [f(5) for f in fs] == [f.py_func(5) if hasattr(f, "py_func") else f(5) for f in fs]


@hpcjit.njit
def build_and_run(f, g, x):
    fs = typed.List.empty_list(I2I)
    fs.append(f)
    fs.append(g)
    fs.append(f)
    s = 0
    for h in fs:
        s += h(x)
    return s


def test_typed_list_made_in_compiled_code():
    check(build_and_run, plus_one, times_three, 5)


@hpcjit.njit
def append_jitted(x):
    fs = typed.List.empty_list(I2I)
    fs.append(twice)  # a jitted global becomes a FunctionType value here
    fs.append(minus_four)
    s = 0
    for f in fs:
        s += f(x)
    return s


def test_jitted_global_into_a_typed_list():
    check(append_jitted, 10)


def test_reflected_list_of_cfuncs():
    check(total, [plus_one, times_three], 3)


@hpcjit.njit
def pass_through(f):
    return f


@hpcjit.njit
def pair(f, g):
    return (g, f)


def test_returned_function_is_the_object():
    assert pass_through(plus_one) is plus_one
    a, b = pair(plus_one, times_three)
    assert a is times_three and b is plus_one


@hpcjit.njit
def same(f, g):
    return f is g, f is not g


@pytest.mark.numba_skip("Numba 0.68 answers False for `f is f` on FunctionType values")
def test_identity():
    check(same, plus_one, plus_one)
    check(same, plus_one, times_three)


@hpcjit.njit
def pick(fs, i, x):
    return fs[i](x)


def test_indexed_call():
    for i in range(3):
        check(pick, (plus_one, times_three, plus_one), i, 11)


@hpcjit.cfunc("boolean(int64, float64)")
def below(i, y):
    return i < y


@hpcjit.njit
def call2(f, i, y):
    return f(i, y)


def test_two_arguments_and_bool_result():
    check(call2, below, 3, 3.5)
    check(call2, below, 4, 3.5)


class LibmCos(types.WrapperAddressProtocol):
    """libm's cos, a first-class function by its address."""

    def __wrapper_address__(self):
        libm = ctypes.CDLL(ctypes.util.find_library("m"))
        return ctypes.cast(libm.cos, ctypes.c_void_p).value

    def signature(self):
        return types.float64(types.float64)


def test_wrapper_address_protocol():
    import math
    f = LibmCos()
    for x in (0.0, 0.5, 2.0):
        assert call(f, x) == math.cos(x)
    assert compose((f, halve), 1.0) == math.cos(0.5)


@hpcjit.njit
def too_many(f):
    return f(1, 2)  # too_many


@hpcjit.njit
def compare_with_jitted(f):
    return f is twice  # compare_with_jitted


@pytest.mark.numba_skip("Numba raises ValueError without a location, or answers False")
@pytest.mark.parametrize("fn, marker, exc", [
    (too_many, "too_many", "TypingError"),
    (compare_with_jitted, "compare_with_jitted", "UnsupportedError"),
])
def test_refused_with_a_location(fn, marker, exc):
    with pytest.raises(getattr(hpcjit, exc)) as ei:
        fn(plus_one)
    assert_located_in(__file__, ei.value, marker)


@hpcjit.njit
def spelled_inside(f):
    fs = typed.List.empty_list(types.FunctionType(types.int64(types.int64)))  # spelled_inside
    fs.append(f)
    return fs[0](1)


def test_function_type_spelled_in_compiled_code_refused():
    with pytest.raises(hpcjit.TypingError) as ei:
        spelled_inside(plus_one)
    if not AGAINST_NUMBA:
        assert_located_in(__file__, ei.value, "spelled_inside")


def test_wrong_signature_refused():
    with pytest.raises(TypeError):
        call_sig(halve, 1)


@pytest.mark.numba_skip("hpcjit's drop-in (python -m hpcjit.numba)")
def test_dropin_names():
    import os
    import subprocess
    import sys
    code = ("import numba\nfrom numba import njit, cfunc, types, typed\nfrom numba.core import types as ct\n"
            "sig = types.int64(types.int64)\nassert ct.FunctionType is types.FunctionType\n"
            "@cfunc(sig)\ndef inc(x):\n    return x + 1\n@njit\ndef dbl(x):\n    return 2 * x\n"
            "fs = typed.List.empty_list(types.FunctionType(sig))\nfs.append(inc)\nfs.append(dbl)\n"
            "@njit\ndef run(fs, x):\n    s = 0\n    for f in fs:\n        s += f(x)\n    return s\n"
            "print(run(fs, 5), numba.__hpcjit__)\n")
    pkg_parent = os.path.dirname(os.path.dirname(hpcjit.__file__))
    env = dict(os.environ, PYTHONPATH=pkg_parent)
    env.pop("HPCJIT_AS_NUMBA", None)
    r = subprocess.run([sys.executable, "-m", "hpcjit.numba", "-c", code], env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.split() == [str(5 + 1 + 2 * 5), "True"]


@hpcjit.cfunc("float64(int32)")
def scaled(i):
    return i * 0.5


@pytest.mark.numba_skip("Numba requires the exact argument types of a FunctionType (ValueError); hpcjit "
                        "converts them as for any call")
def test_arguments_convert():
    check(call, scaled, 7)
    check(call, plus_one, True)


class ArrayWap(types.WrapperAddressProtocol):
    """A signature FunctionType cannot hold in hpcjit (an array argument)."""

    def __wrapper_address__(self):
        return 0

    def signature(self):
        return types.float64(types.float64[:])


@pytest.mark.numba_skip("hpcjit's FunctionType holds numbers and bool only")
def test_unsupported_signature_is_named():
    with pytest.raises(hpcjit.TypingError, match="FunctionType cannot hold"):
        call(ArrayWap(), 1.0)
