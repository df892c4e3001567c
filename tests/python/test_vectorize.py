"""@vectorize: ufuncs with signatures (np.ufunc), dynamic ones (DUFunc),
target="parallel", NumPy's ufunc machinery (broadcasting, out=, where=,
reduce/accumulate/outer/at), exceptions, calls from @njit code.  Every
result is compared with the Python function applied element by element."""
import math

import re

import numpy as np
import pytest

import hpcjit


def rel_diff(x, y):
    return 2 * (x - y) / (x + y)


def clipped_exp(x):
    return math.exp(x) if x < 2.0 else 7.0


def floordiv(a, b):
    return a // b


def add(a, b):
    return a + b


def elementwise(f, *arrays, dtype=None):
    """f applied by Python to each element of the broadcast arrays."""
    b = np.broadcast_arrays(*[np.asarray(a) for a in arrays])
    out = [f(*(v.item() for v in vals)) for vals in zip(*(x.ravel() for x in b))]
    return np.array(out, dtype=dtype).reshape(b[0].shape)


SIGS2 = ["float64(float64, float64)", "float32(float32, float32)"]


@pytest.mark.parametrize("target", ["cpu", "parallel"])
def test_signatures_make_a_ufunc(target):
    uf = hpcjit.vectorize(SIGS2, target=target)(rel_diff)
    assert uf.nin == 2 and uf.nout == 1
    rng = np.random.default_rng(1)
    a = rng.random((7, 5)) + 1
    b = rng.random(5) + 1  # broadcast along rows
    np.testing.assert_allclose(uf(a, b), elementwise(rel_diff, a, b), rtol=1e-15)
    r32 = uf(a.astype(np.float32), b.astype(np.float32))
    np.testing.assert_allclose(r32, elementwise(rel_diff, a.astype(np.float32), b.astype(np.float32)),
                               rtol=1e-6)
    # non-contiguous inputs, out= and where=
    out = np.zeros((7, 3))
    res = uf(a[:, ::2], b[::2], out=out)
    assert res is out
    np.testing.assert_allclose(out, elementwise(rel_diff, a[:, ::2], b[::2]), rtol=1e-15)


@pytest.mark.numba_skip(reason="Numba's DUFunc is not an np.ufunc and rejects where=")
def test_signatures_real_ufunc_where():
    uf = hpcjit.vectorize(SIGS2)(rel_diff)
    assert isinstance(uf, np.ufunc)
    assert uf(np.float32(1), np.float32(3)).dtype == np.float32  # the float32 loop, as NumPy picks
    rng = np.random.default_rng(2)
    a = rng.random((7, 5)) + 1
    b = rng.random(5) + 1
    mask = a > 1.5
    out2 = np.full_like(a, -1.0)
    uf(a, b, out=out2, where=mask)
    np.testing.assert_allclose(out2, np.where(mask, elementwise(rel_diff, a, b), -1.0), rtol=1e-15)


@pytest.mark.parametrize("target", ["cpu", "parallel"])
def test_large_parallel_matches(target):
    uf = hpcjit.vectorize(["float64(float64)"], target=target)(clipped_exp)
    x = np.linspace(-3, 3, 200_001)
    # exp in vector lanes: glibc's libmvec, within 4 ulp of libm (test_vector_math.py)
    np.testing.assert_array_max_ulp(uf(x), elementwise(clipped_exp, x), maxulp=4)


def test_reduce_accumulate_outer_at():
    uf = hpcjit.vectorize(["int64(int64, int64)", "float64(float64, float64)"], identity=0)(add)
    a = np.arange(1, 11)
    assert uf.reduce(a) == a.sum()
    np.testing.assert_array_equal(uf.accumulate(a), np.cumsum(a))
    np.testing.assert_array_equal(uf.outer(a[:3], a[:4]), np.add.outer(a[:3], a[:4]))
    m = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(uf.reduce(m, axis=0), m.sum(axis=0))
    assert uf.reduce(np.array([], dtype=np.int64)) == 0  # the identity
    x = np.zeros(5, dtype=np.int64)
    uf.at(x, [0, 0, 3], 2)
    np.testing.assert_array_equal(x, [4, 0, 0, 2, 0])


def test_dynamic_compiles_per_input_types():
    uf = hpcjit.vectorize(clipped_exp)
    xi = np.arange(-3, 4)
    xf = np.linspace(-3.0, 3.0, 9)
    np.testing.assert_array_max_ulp(uf(xi), elementwise(clipped_exp, xi), maxulp=4)
    np.testing.assert_array_max_ulp(uf(xf), elementwise(clipped_exp, xf), maxulp=4)
    assert uf(1.5) == clipped_exp(1.5)
    assert uf.ntypes == 2  # int64 and float64 loops


@pytest.mark.numba_skip(reason="Numba's DUFunc.reduce does not compile a loop for a new type")
def test_dynamic_reduce():
    uf = hpcjit.vectorize(add)
    a = np.arange(6.0)
    assert uf.reduce(a) == a.sum()
    np.testing.assert_array_equal(uf.accumulate(a), np.cumsum(a))


def checked_sqrt(x):
    if x < 0:
        raise ValueError("negative input")
    return math.sqrt(x)


def test_numpy_error_model():
    # as Numba's ufuncs: division by zero gives inf / 0, not an exception
    uf = hpcjit.vectorize(["int64(int64, int64)", "float64(float64, float64)"])(floordiv)
    np.testing.assert_array_equal(uf(np.arange(6), 2), np.arange(6) // 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        assert uf(np.array([3.0]), np.array([0.0]))[0] == np.floor_divide(3.0, 0.0)


@pytest.mark.numba_skip(reason="Numba's ufunc loops drop the exception")
def test_exception_propagates():
    uf = hpcjit.vectorize(["float64(float64)"])(checked_sqrt)
    np.testing.assert_array_equal(uf(np.arange(4.0)), np.sqrt(np.arange(4.0)))
    with pytest.raises(ValueError, match="negative input"):
        uf(np.array([1.0, -1.0, 2.0]))


def test_called_from_njit():
    uf = hpcjit.vectorize(SIGS2)(rel_diff)

    @hpcjit.njit
    def use(x):
        return uf(x, 2.0) * 3.0

    assert use(3.0) == use.py_func(3.0)


@pytest.mark.numba_skip(reason="hpcjit's messages")
def test_bad_uses():
    with pytest.raises(TypeError, match="has 1 arguments") as ei:
        hpcjit.vectorize(["float64(float64)"])(rel_diff)
    # located at the function's def, with the line and a caret
    assert re.search(r"test_vectorize\.py:\d+:\d+: error: vectorize\(\)", str(ei.value))
    assert "def rel_diff(x, y):" in str(ei.value) and "^" in str(ei.value)
    # target="cuda" is a CUDA ufunc (test_cuda_vectorize.py); an unknown target is refused
    cu = hpcjit.vectorize(["float64(float64)"], target="cuda")(clipped_exp)
    assert cu.py_func is clipped_exp and cu.types == ["d->d"]
    with pytest.raises(ValueError, match="unknown target 'opencl'"):
        hpcjit.vectorize(["float64(float64)"], target="opencl")(clipped_exp)
    with pytest.raises(hpcjit.TypingError):
        hpcjit.vectorize(["float64(float64[:])"])(clipped_exp)


@pytest.mark.numba_skip(reason="hpcjit's memory statistics")
def test_no_leak():
    uf = hpcjit.vectorize(["float64(float64, float64)"])(rel_diff)
    a = np.random.rand(1000) + 1
    uf(a, a)
    before = hpcjit.memstats()
    for _ in range(10):
        uf(a, a + 1)
    after = hpcjit.memstats()
    assert after[0] - before[0] == after[1] - before[1]


# ---- @guvectorize ----------------------------------------------------------

def matmul_kernel(a, b, out):
    m, n = a.shape
    p = b.shape[1]
    for i in range(m):
        for j in range(p):
            s = 0.0
            for k in range(n):
                s += a[i, k] * b[k, j]
            out[i, j] = s


def add_scalar(x, c, out):
    for i in range(x.shape[0]):
        out[i] = x[i] + c


def row_sum(x, out):
    s = 0
    for v in x:
        s += v
    out[0] = s


def py_gufunc(kernel, ins, out_shape, dtype):
    """The kernel run by Python on each outer element."""
    out = np.zeros(out_shape, dtype=dtype)
    for idx in np.ndindex(out_shape[:1]):
        kernel(*[x[idx] for x in ins], out[idx])
    return out


@pytest.mark.parametrize("target", ["cpu", "parallel"])
def test_guvectorize_matmul(target):
    gu = hpcjit.guvectorize(["void(float64[:,:], float64[:,:], float64[:,:])"], "(m,n),(n,p)->(m,p)",
                            target=target)(matmul_kernel)
    rng = np.random.default_rng(3)
    a, b = rng.random((6, 3, 4)), rng.random((6, 4, 5))
    np.testing.assert_allclose(gu(a, b), py_gufunc(matmul_kernel, (a, b), (6, 3, 5), np.float64),
                               rtol=1e-14)
    # non-contiguous core blocks and broadcasting of the loop dimension
    at = np.ascontiguousarray(a.transpose(0, 2, 1)).transpose(0, 2, 1)
    np.testing.assert_allclose(gu(at, b[0]), a @ b[0], rtol=1e-14)


def test_guvectorize_scalar_input_and_types():
    gu = hpcjit.guvectorize(["void(float64[:], float64, float64[:])", "void(int64[:], int64, int64[:])"],
                            "(n),()->(n)")(add_scalar)
    x = np.arange(12).reshape(3, 4)
    c = np.array([10, 20, 30])
    r = gu(x, c)
    assert r.dtype == np.int64
    np.testing.assert_array_equal(r, x + c[:, None])
    np.testing.assert_array_equal(gu(np.arange(4.0), 0.5), np.arange(4.0) + 0.5)


@pytest.mark.parametrize("target", ["cpu", "parallel"])
def test_guvectorize_reduction_output(target):
    gu = hpcjit.guvectorize(["void(float64[:], float64[:])", "void(int64[:], int64[:])"], "(n)->()",
                            target=target)(row_sum)
    x = np.arange(60.0).reshape(12, 5)
    np.testing.assert_array_equal(gu(x), x.sum(axis=1))
    xi = np.arange(60).reshape(12, 5)
    np.testing.assert_array_equal(gu(xi), xi.sum(axis=1))
    out = np.empty(12)
    gu(x, out=out)
    np.testing.assert_array_equal(out, x.sum(axis=1))


def weighted_mean(a, w, out):
    # numbagg's moving variances: a zero weight divides by zero
    out[0] = np.sum(a * w) / np.sum(w)


def test_guvectorize_numpy_error_model():
    # as Numba's gufuncs (and ufuncs): x / 0.0 is inf or nan, not ZeroDivisionError,
    # in the gufunc, in a dynamic one and in a call from @njit code
    a = np.array([[1.0, 2.0], [3.0, 4.0], [0.0, 0.0]])
    w = np.array([[1.0, 1.0], [0.0, 0.0], [0.0, 0.0]])
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = (a * w).sum(axis=1) / w.sum(axis=1)
        gu = hpcjit.guvectorize(["void(float64[:], float64[:], float64[:])"], "(n),(n)->()")(weighted_mean)
        np.testing.assert_array_equal(gu(a, w), expected)
        dyn = hpcjit.guvectorize("(n),(n)->()")(weighted_mean)
        out = np.empty(3)
        dyn(a, w, out)
        np.testing.assert_array_equal(out, expected)

        @hpcjit.njit
        def call(a, w):
            out = np.empty(a.shape[0])
            gu(a, w, out)
            return out
        np.testing.assert_array_equal(call(a, w), expected)


@pytest.mark.numba_skip(reason="hpcjit's messages")
def test_guvectorize_bad_uses():
    with pytest.raises(TypeError, match="takes 2") as ei:
        hpcjit.guvectorize(["void(float64[:], float64, float64[:])"], "(n),()->(n)")(row_sum)
    assert re.search(r"test_vectorize\.py:\d+:\d+: error: guvectorize\(\)", str(ei.value))
    with pytest.raises(hpcjit.TypingError, match="dimensions") as ei:
        hpcjit.guvectorize(["void(float64[:,:], float64[:])"], "(n)->()")(row_sum)
    assert re.search(r"test_vectorize\.py:\d+:\d+: error: guvectorize\(\): argument 0", str(ei.value))
    with pytest.raises(TypeError, match="the layout") as ei:
        hpcjit.guvectorize(["void(float64[:])"], "(n)->()")(row_sum)
    assert "def row_sum(" in str(ei.value)
    with pytest.raises(ValueError, match="layout"):
        hpcjit.guvectorize(["void(float64[:], float64[:])"], "(n)()")(row_sum)


def mul(x, y):
    return x * y


def test_dynamic_reuses_a_loop_numpy_can_cast_to():
    # Numba's documented DUFunc: f(1, 2.0) after f(1.0, 2.0) uses 'dd->d'
    uf = hpcjit.vectorize(mul)
    assert uf(3, 4) == mul(3, 4)
    assert uf.types == ["ll->l"]
    assert uf(1.0, 2.5) == mul(1.0, 2.5)
    assert uf(1, 2.5) == mul(1, 2.5)
    assert uf.types == ["ll->l", "dd->d"]
    g = hpcjit.vectorize(rel_diff)
    assert g(2.0, 3.0) == rel_diff(2.0, 3.0)
    assert g(2, 3) == rel_diff(2.0, 3.0)
    assert g.types == ["dd->d"]


def test_guvectorize_dynamic_layout_only():
    # @guvectorize(layout): a loop compiled per argument types, outputs given
    gu = hpcjit.guvectorize("(n),()->(n)")(add_scalar)
    x = np.arange(5)
    res = np.zeros_like(x)
    gu(x, 10, res)
    np.testing.assert_array_equal(res, py_gufunc(add_scalar, (x[None], np.array([10])), (1, 5), np.int64)[0])
    assert gu.types == ["ll->l"]
    xf = np.arange(10.0).reshape(2, 5)
    resf = np.zeros_like(xf)
    gu(xf, 2.2, resf)
    np.testing.assert_array_equal(resf, py_gufunc(add_scalar, (xf, np.array([2.2, 2.2])), (2, 5), np.float64))
    assert gu.types == ["ll->l", "dd->d"]
    with pytest.raises(TypeError):  # the outputs must be given (Numba: the same class)
        gu(xf, 2.2)


def overwrite(invals, outvals):
    invals[0] = 6.5
    outvals[0] = 4.2


def test_guvectorize_writable_args():
    sig = ["void(float64[:], float64[:])"]
    plain = hpcjit.guvectorize(sig, "()->()")(overwrite)
    inv = np.zeros((3, 3))
    np.testing.assert_array_equal(plain(inv), np.full((3, 3), 4.2))
    np.testing.assert_array_equal(inv, np.full((3, 3), 6.5))   # same dtype: written in place
    inv32 = np.zeros((3, 3), dtype=np.float32)
    plain(inv32)
    np.testing.assert_array_equal(inv32, 0.0)                  # a cast copy was written
    writable = hpcjit.guvectorize(sig, "()->()", writable_args=("invals",))(overwrite)
    writable(inv32)
    np.testing.assert_array_equal(inv32, np.full((3, 3), 6.5, dtype=np.float32))  # copied back


# ---- gufuncs called from @njit code ---------------------------------------------------

def test_gufunc_called_from_njit():
    """Numba's gufunc_jit example and more: the loop over the loop
    dimensions (broadcasting inputs), "()" inputs and outputs, a matrix
    core, outputs passed by the caller."""
    from hpcjit import guvectorize, njit
    float64 = hpcjit.types.float64

    @guvectorize('(n)->(n)')
    def copy(x, res):
        for i in range(x.shape[0]):
            res[i] = x[i]

    @guvectorize([(float64[:], float64, float64[:])], '(n),()->(n)')
    def addc(a, c, out):
        for i in range(a.shape[0]):
            out[i] = a[i] + c

    @guvectorize('(m,n),(n)->(m)')
    def matvec(A, v, out):
        for i in range(A.shape[0]):
            acc = 0.0
            for j in range(A.shape[1]):
                acc += A[i, j] * v[j]
            out[i] = acc

    @guvectorize('(n)->()')
    def total(a, out):
        s = 0.0
        for x in a:
            s += x
        out[0] = s

    def g(A, v, c, x):
        out = np.empty((A.shape[0], A.shape[1]))
        matvec(A, v, out)
        o2 = np.empty((2, v.shape[0]))
        addc(np.stack((v, v)), c, o2)
        t = np.empty(A.shape[0])
        total(A[:, 0, :], t)
        res = np.zeros_like(x)
        copy(x, res)
        return out, o2, t, res

    rng = np.random.default_rng(5)
    args = (rng.random((3, 4, 5)), rng.random(5), 2.0, np.arange(5, dtype=np.int32))
    for got, want in zip(njit(g)(*args), g(*args)):
        np.testing.assert_allclose(got, want, rtol=1e-14)
        assert got.dtype == want.dtype


def test_gufunc_from_njit_shape_errors():
    from hpcjit import guvectorize, njit

    @guvectorize('(n)->(n)')
    def copy(x, res):
        for i in range(x.shape[0]):
            res[i] = x[i]

    @njit
    def jit_fn(x, res):
        copy(x, res)

    with pytest.raises(ValueError, match="Loop and array shapes are incompatible"):
        jit_fn(np.ones((1, 5)), np.empty((5,)))


# ---- vectorized functions called on arrays from @njit code: a broadcasting
# loop over the kernel (ufunc.vectorize_overload), checked against the same
# function run by CPython, which calls the ufunc itself ----

@hpcjit.vectorize(["float64(float64, float64)", "float32(float32, float32)"])
def vec_rel_diff(x, y):
    return 2 * (x - y) / (x + y)


@hpcjit.vectorize
def vec_erf_shift(x):
    return math.erf(x) + 1


@hpcjit.njit
def njit_calls_ufuncs(a, b, m, col):
    return (vec_rel_diff(a, b), vec_rel_diff(a, 2.0), vec_erf_shift(a), vec_erf_shift(0.5),
            vec_rel_diff(m, col), vec_erf_shift(m) * 2)


@hpcjit.njit
def njit_ufunc_on_ints(k):
    return vec_rel_diff(k, k + 1), vec_erf_shift(k)


def test_vectorize_on_arrays_from_njit():
    from conftest import check
    a = np.linspace(0.5, 2.0, 7)
    m = np.arange(1.0, 13.0).reshape(3, 4)
    check(njit_calls_ufuncs, a, a[::-1] + 1, m, np.arange(1.0, 4.0).reshape(3, 1))
    check(njit_ufunc_on_ints, np.arange(1, 6))


@pytest.mark.numba_skip("Numba's compiled call runs a float32 kernel where its Python call reuses the "
                        "float64 loop")
def test_vectorize_on_float32_arrays_from_njit():
    from conftest import check
    a = np.linspace(0.5, 2.0, 7)
    m = np.arange(1.0, 13.0).reshape(3, 4)
    check(njit_calls_ufuncs, a, a + 1, m, m[:, :1])  # the float64 loops exist first
    check(njit_calls_ufuncs, a.astype(np.float32), (a + 1).astype(np.float32), m, m[:, :1])


@hpcjit.njit
def njit_ufunc_shapes_clash(a, b):
    return vec_rel_diff(a, b)


def test_vectorize_from_njit_broadcast_error():
    with pytest.raises(ValueError):
        njit_ufunc_shapes_clash(np.ones(3), np.ones(4))


# ---- fused into the caller's array expressions (issue 12): a vectorized
# function on arrays is one more elementwise node of the expression around
# it (one loop, no temporaries), and under parallel=True that loop runs on
# the pool; results equal the serial ones and CPython's ----

@hpcjit.vectorize
def vec_cndf(x):
    return 0.5 + 0.5 * math.erf((math.sqrt(2.0) / 2.0) * x)


def _fused_body(a, b, s):
    d = a * 2.0 - b
    return (vec_cndf(d) * s + vec_rel_diff(a, b), vec_rel_diff(s, b), vec_cndf(vec_cndf(a) - 0.5),
            vec_rel_diff(a, 3))


fused_serial = hpcjit.njit(_fused_body)
fused_parallel = hpcjit.njit(parallel=True)(_fused_body)


@pytest.mark.parametrize("shape", [(7,), (3, 5), (400, 300)])  # the last one runs on the pool
def test_vectorize_fused_parallel_caller(shape):
    from conftest import check
    rng = np.random.default_rng(5)
    a = rng.random(shape) + 1
    b = rng.random(shape[-1:]) + 1  # broadcast along the rows
    got = check(fused_parallel, a, b, 2.5)
    for x, y in zip(got, fused_serial(a, b, 2.5)):
        np.testing.assert_array_equal(x, y)  # the same element code on every thread
    at = np.asfortranarray(a) if len(shape) == 2 else a[::-1]  # strided operands
    check(fused_parallel, at, b, 2.5)


@hpcjit.njit(parallel=True)
def vec_broadcast_column(a, col):
    return vec_rel_diff(a, col) + vec_cndf(col)


@pytest.mark.numba_skip(reason="Numba's parfors assert equal sizes where NumPy broadcasts (3, 5) with (3, 1)")
@pytest.mark.parametrize("rows", [3, 400])
def test_vectorize_fused_broadcast_column(rows):
    from conftest import check
    rng = np.random.default_rng(8)
    a, col = rng.random((rows, 300)) + 1, rng.random((rows, 1)) + 1
    check(vec_broadcast_column, a, col)
    check(vec_broadcast_column, a, col[:1])
    assert isinstance(check(vec_broadcast_column, a, np.ones((2, 1))), ValueError)


@hpcjit.njit(parallel=True)
def vec_store_update_reduce(a, b, out):
    out[:] = vec_rel_diff(a, b)
    out += vec_cndf(b) * 2.0
    return np.sum(vec_rel_diff(a, b)), vec_erf_shift(a[:, 0])


@pytest.mark.parametrize("rows", [3, 500])
def test_vectorize_fused_stores_and_reductions(rows):
    from conftest import check
    rng = np.random.default_rng(6)
    check(vec_store_update_reduce, rng.random((rows, 200)) + 1, rng.random((rows, 200)) + 1,
          np.zeros((rows, 200)), rtol=1e-10)


@hpcjit.njit(parallel=True)
def vec_in_prange(m):
    r = np.empty(m.shape[0])
    for i in hpcjit.prange(m.shape[0]):
        r[i] = np.sum(vec_rel_diff(m[i], 2.0))  # in a prange body: the row's loop on its thread
    return r


def test_vectorize_in_prange_body():
    from conftest import check
    check(vec_in_prange, np.random.default_rng(7).random((50, 40)) + 1)


@pytest.mark.numba_skip(reason="hpcjit's memory statistics")
def test_vectorize_fused_one_allocation():
    from hpcjit import _core
    a = np.random.rand(1000) + 1
    for f in (fused_serial, fused_parallel):
        f(a, a, 2.0)
        a0, f0 = _core.memstats()
        r = f(a, a, 2.0)
        a1, f1 = _core.memstats()
        assert a1 - a0 == len(r) + 1  # the four results and d: no temporaries
        del r


@hpcjit.njit(parallel=True)
def vec_raises_parallel(a):
    return vec_checked_sqrt(a) + 1.0


@hpcjit.vectorize
def vec_checked_sqrt(x):
    if x < 0:
        raise ValueError("negative input")
    return math.sqrt(x)


@pytest.mark.numba_skip(reason="hpcjit raises from the kernel; Numba's parallel loops do not")
@pytest.mark.parametrize("n", [10, 100000])  # on the calling thread, on the pool
def test_vectorize_raises_in_parallel_caller(n, balanced):
    a = np.arange(float(n))
    np.testing.assert_array_equal(vec_raises_parallel(a), np.sqrt(a) + 1.0)
    a[n // 2] = -1.0
    with pytest.raises(ValueError, match="negative input"):
        vec_raises_parallel(a)
