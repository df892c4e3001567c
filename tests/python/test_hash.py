"""hash() in compiled code equals CPython's: numbers (int, float, complex,
bool), tuples, and str (SipHash-1-3 keyed with the process's hash secret,
whatever PYTHONHASHSEED says; also for 1-, 2- and 4-byte text).  Compared
with CPython (py_func)."""
import pytest

import hpcjit
from hpcjit import njit
from conftest import AGAINST_NUMBA, check, run_python

TEXTS = ["", "a", "hello world", "x" * 7, "y" * 8, "z" * 9, "long " * 40, "café", "é" * 33,
         "€uro", "日本語テキスト", "😀 emoji", "mixed é € 😀"]


@njit
def hash_str(s):
    return hash(s), hash(s + "!"), hash(s[1:])


@njit
def hash_numbers(i, x, c, b):
    return hash(i), hash(x), hash(c), hash(b), hash(-1), hash((i, x)), hash((i, (x, b)))


@njit
def str_set_order(text):
    s = set()
    for w in text.split():
        s.add(w)
    return [w for w in s]


def test_str_hash_equals_cpython():
    for t in TEXTS:
        check(hash_str, t)


def test_number_and_tuple_hash():
    for args in ((0, 0.0, 0j, False), (-7, 1.5, 2.5 - 1j, True), (2**62, -0.25, -1j, False),
                 (-1, float("inf"), complex(1e300, -3.0), True), (123456789, 1e-300, 1 + 0j, False)):
        check(hash_numbers, *args)


@pytest.mark.numba_skip("Numba's sets iterate in an order of their own")
def test_str_set_iterates_in_cpython_order():
    check(str_set_order, "the quick brown fox jumps over the lazy dog again and again é 😀")


@pytest.mark.parametrize("seed", ["0", "12345", "random"])
def test_hash_seed_of_the_process(seed):
    r = run_python("""
        from hpcjit import njit
        @njit
        def h(s):
            return hash(s)
        for t in ("abc", "naïve", "日本", "😀x"):
            assert h(t) == hash(t), (t, h(t), hash(t))
        print("ok")
    """, env={"PYTHONHASHSEED": seed})
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


@njit
def unhashable(a):
    return hash(a)


@pytest.mark.numba_skip("hpcjit's message")
def test_unhashable_is_located():
    import numpy as np
    with pytest.raises(hpcjit.TypingError, match="unhashable type") as ei:
        unhashable(np.zeros(2))
    assert "test_hash.py" in str(ei.value)
