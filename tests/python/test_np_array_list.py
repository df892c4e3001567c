"""np.array(lst) / np.asarray(lst) of lists made in compiled code, passed
in (reflected) and typed.List: numbers, nested lists, tuples and arrays,
with and without dtype; compared with CPython + NumPy (py_func)."""
import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import AGAINST_NUMBA, check


@njit
def from_comprehension(n):
    return np.array([i * 0.5 for i in range(n)])


@njit
def from_appends(n):
    lst = []
    for i in range(n):
        lst.append(i * i - 3)
    return np.array(lst)


@njit
def with_dtypes(n):
    lst = [i for i in range(n)]
    return np.array(lst, dtype=np.float32), np.array(lst, np.complex128), np.asarray(lst, np.int32)


@njit
def bools_and_complex(n):
    b = [i % 2 == 0 for i in range(n)]
    c = [complex(i, -i) for i in range(n)]
    return np.array(b), np.array(c), np.asarray(c)


@njit
def argument(lst):
    return np.array(lst) * 2


@njit
def asarray_argument(lst):
    a = np.asarray(lst)
    a[0] = -1  # a copy: the list is not changed
    return a, lst[0]


@njit
def nested_lists(n, m):
    return np.array([[i * m + j for j in range(m)] for i in range(n)])


@njit
def nested3(n):
    return np.array([[[float(i + j + k) for k in range(2)] for j in range(3)] for i in range(n)])


@njit
def list_of_tuples(n):
    return np.array([(i, i * 2.5) for i in range(n)])


@njit
def list_of_arrays(n):
    return np.array([np.arange(4) * i for i in range(n)], dtype=np.float64)


@njit
def list_of_2d_arrays(n):
    lst = [np.ones((2, 3)) * i for i in range(n)]
    return np.asarray(lst)


@njit
def ragged_lists(n):
    return np.array([[0.0] * (i + 1) for i in range(n)])


@njit
def ragged_arrays(n):
    return np.array([np.zeros(2), np.zeros(n)])


@njit
def typed_list(t):
    return np.array(t), np.asarray(t, np.float32)


@njit
def result_is_a_copy(n):
    lst = [1.0] * n
    a = np.array(lst)
    a[0] = 5.0
    lst[1] = 7.0
    return a, lst[0], lst[1]


@pytest.mark.parametrize("n", [1, 5])
def test_numbers(n):
    check(from_comprehension, n)
    check(from_appends, n)
    check(bools_and_complex, n)


@pytest.mark.numba_skip("Numba 0.68 fails on these three calls together (one list, three dtypes)")
@pytest.mark.parametrize("n", [1, 5])
def test_dtypes(n):
    check(with_dtypes, n)


@pytest.mark.numba_skip("nested lists (Numba 0.68 does not implement them)")
def test_empty_lists_keep_their_item_type():
    # NumPy makes float64 of any empty list; compiled code knows the item
    # type (as Numba): the same where that is float64 or the dtype is given
    check(from_comprehension, 0)
    check(with_dtypes, 0)
    assert from_appends(0).dtype == np.int64 and from_appends(0).shape == (0,)
    assert nested_lists(0, 3).shape == (0, 0)


@njit
def display_of_arrays(a, b):
    return np.array([a, b]), np.asarray((a, b), np.float32)


def test_reflected_argument():
    check(argument, [1.0, 2.5, -3.0])
    check(argument, [3, 4, 5])
    check(argument, [True, False])
    check(asarray_argument, [4.0, 5.0])


@njit
def dtype_by_name(n):
    return np.array([i for i in range(n)], "float32")


@pytest.mark.numba_skip("Numba 0.68 takes a dtype name only for tuples")
def test_dtype_by_name():
    check(dtype_by_name, 3)


@pytest.mark.numba_skip("Numba 0.68: np.array of lists of lists, tuples or arrays is not implemented")
@pytest.mark.parametrize("n", [1, 4])
def test_nested(n):
    check(nested_lists, n, 3)
    check(nested3, n)
    check(list_of_tuples, n)
    check(list_of_arrays, n)
    check(list_of_2d_arrays, n)
    check(result_is_a_copy, max(n, 2))
    check(display_of_arrays, np.arange(3.0) * n, np.ones(3))
    check(display_of_arrays, np.arange(6).reshape(2, 3), np.eye(2, 3))


@pytest.mark.numba_skip("Numba 0.68: np.array of lists of lists or of arrays is not implemented")
def test_ragged_is_numpys_value_error():
    check(ragged_lists, 3)  # NumPy: ValueError (inhomogeneous shape)
    check(ragged_arrays, 3)
    check(ragged_arrays, 2)


@pytest.mark.skipif(AGAINST_NUMBA, reason="typed.List of the shim")
def test_typed_list():
    t = hpcjit.typed.List()
    for v in (1.5, 2.5, -1.0):
        t.append(v)
    got = typed_list(t)
    want = (np.array([1.5, 2.5, -1.0]), np.array([1.5, 2.5, -1.0], np.float32))
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and np.array_equal(g, w)


@pytest.mark.numba_skip("hpcjit's messages")
def test_bad_dtype_and_items_are_located_typing_errors():
    def to_int(n):
        return np.array([complex(i, 1) for i in range(n)], dtype=np.int64)

    def of_strings(n):
        return np.array(["a" for _ in range(n)])

    for f in (to_int, of_strings):
        with pytest.raises(hpcjit.errors.TypingError) as e:
            njit(f)(2)
        assert "np.array" in str(e.value)
