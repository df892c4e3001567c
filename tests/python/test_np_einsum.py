"""np.einsum in compiled code (python/hpcjit/_npeinsum.py; Numba 0.68 has
none): explicit and implicit subscripts, diagonals, broadcasting of size-1
axes, numbers as operands, NumPy's result dtype; each against NumPy through
the same function run by CPython (check())."""
import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import check

pytestmark = pytest.mark.numba_skip("Numba 0.68 has no np.einsum")

rng = np.random.default_rng(3)
A = rng.standard_normal((2, 3))
B = rng.standard_normal((3, 4))
v = rng.standard_normal(3)
M = np.arange(9).reshape(3, 3)


def mm(a, b):
    return np.einsum("ij,jk->ik", a, b)


def mm_implicit(a, b):
    return np.einsum("ij,jk", a, b)


def dot(a, b):
    return np.einsum("i,i", a, b)


def trace(m):
    return np.einsum("ii", m)


def diag(m):
    return np.einsum("ii->i", m)


def transpose(a):
    return np.einsum("ji", a)


def outer(a, b):
    return np.einsum("i,j->ij", a, b)


def total(a):
    return np.einsum("i->", a)


def chain(a, b, c):
    return np.einsum("ij,jk,k->i", a, b, c)


def scaled(a, s):
    return np.einsum("ij,->ij", a, s)


def batched(a, b):
    return np.einsum("bij,bjk->bik", a, b)


def spaced(a, b):
    return np.einsum("ij, jk -> ki", a, b)


@pytest.mark.parametrize("fn, args", [
    (mm, (A, B)), (mm_implicit, (A, B)), (dot, (v, v)), (trace, (M,)), (diag, (M,)),
    (transpose, (A,)), (outer, (np.arange(3, dtype=np.int32), np.arange(2.0))),
    (total, (np.arange(4, dtype=np.int32),)), (dot, (np.ones(3), np.ones(1))),
    (chain, (A, B, np.arange(4.0))), (scaled, (A, 2.5)),
    (batched, (rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 4, 2)))),
    (spaced, (A, B)), (mm, (A[:, ::-1], np.asfortranarray(B))),
    (outer, (np.arange(3) + 1j, np.arange(2.0))),
])
def test_einsum(fn, args):
    got = check(njit(fn), *args)
    want = fn(*args)
    assert np.asarray(got).dtype.kind == np.asarray(want).dtype.kind
    if isinstance(want, np.ndarray):
        assert got.dtype == want.dtype and got.shape == want.shape


def test_einsum_errors():
    def mismatch(a, b):
        return np.einsum("i,i", a, b)

    def too_few(a):
        return np.einsum("ij,jk", a)

    def ellipsis(a):
        return np.einsum("...i->i", a)

    def variable(s, a):
        return np.einsum(s, a)

    def ndim(a):
        return np.einsum("ijk", a)

    check(njit(mismatch), np.ones(3), np.ones(2))  # ValueError from both
    for fn, args, msg in ((too_few, (np.ones((2, 2)),), "name 2 operand"),
                          (ellipsis, (np.ones((2, 2)),), "'...' in the subscripts"),
                          (variable, ("ii", np.ones((2, 2))), "string constant"),
                          (ndim, (np.ones((2, 2)),), "has 2 dimension")):
        with pytest.raises(hpcjit.TypingError, match=msg) as ei:
            njit(fn)(*args)
        assert "test_np_einsum.py" in str(ei.value)


def numbers_only(x, y):
    return np.einsum(",", x, y), np.einsum(",->", x, y)


def test_einsum_numbers_only():
    check(njit(numbers_only), 2.0, 3)
