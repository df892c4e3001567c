"""Linear algebra in compiled code: np.dot, np.matmul and `@`, np.vdot,
np.outer, np.trace, np.linalg.norm/solve/inv/det/cholesky/eigh/eigvalsh/
svd/qr/lstsq, through the BLAS/LAPACK that hpcjit dlopens.  Each compiled
function is compared with its py_func (NumPy) across dtypes and layouts;
for eigh/svd/qr only what is unique is compared (eigenvalues, singular
values, reconstructions, |vectors|), since signs depend on the LAPACK
build."""
import importlib.util
import inspect

import numpy as np
import pytest

import hpcjit
from conftest import AGAINST_NUMBA, check, make_array, run_python

# Numba's np.dot/np.linalg call LAPACK through SciPy
pytestmark = pytest.mark.skipif(AGAINST_NUMBA and importlib.util.find_spec("scipy") is None,
                                reason="Numba's linear algebra needs SciPy")

FLOATS = [np.float32, np.float64, np.complex64, np.complex128]
INTS = [np.int8, np.int32, np.int64, np.uint16, np.bool_]
LAYOUTS = ["C", "F", "strided", "reversed"]


def tol(dt):
    """(rtol, atol) for results computed in dtype dt."""
    return (2e-4, 2e-4) if np.dtype(dt) in (np.float32, np.complex64) else (1e-10, 1e-10)


def well_conditioned(dt, n, layout, seed=0):
    """A random n x n matrix with a heavy diagonal, in the given layout."""
    a = make_array(dt, (n, n), layout, np.random.default_rng(seed))
    a[...] = a / 10.0 + 5.0 * np.eye(n, dtype=dt)
    return a


def hermitian_pd(dt, n, layout, seed=0):
    """A Hermitian positive definite matrix (random, not diagonal)."""
    a = make_array(dt, (n, n), "C", np.random.default_rng(seed)) / 10.0
    h = a @ a.conj().T + n * np.eye(n, dtype=dt)
    out = make_array(dt, (n, n), layout)
    out[...] = h
    return out


# ---------------------------------------------------------------------------
# products

@hpcjit.njit
def l_dot(a, b):
    return np.dot(a, b)


@hpcjit.njit
def l_matmul(a, b):
    return np.matmul(a, b)


@hpcjit.njit
def l_at(a, b):
    return a @ b


@hpcjit.njit
def l_dot_method(a, b):
    return a.dot(b)


@hpcjit.njit
def l_vdot(a, b):
    return np.vdot(a, b)


@hpcjit.njit
def l_outer(a, b):
    return np.outer(a, b)


# small products run a plain loop in the runtime (matrix-vector ones up to
# 65536 multiply-adds), larger ones BLAS gemv/gemm
SHAPE_PAIRS = [((5,), (5,)), ((4, 5), (5,)), ((5,), (5, 3)), ((4, 5), (5, 3)), ((1, 5), (5, 1)),
               ((3, 1), (1, 4)), ((0, 5), (5, 3)), ((4, 0), (0, 3)), ((0,), (0,)), ((6, 7), (7, 6)),
               ((700,), (700,)), ((30, 40), (40,)), ((40,), (40, 30)), ((20, 30), (30, 25)), ((1, 600), (600, 1)),
               ((600, 1), (1, 3)), ((130,), (130, 70)), ((70, 130), (130,))]


@pytest.mark.parametrize("dt", FLOATS + INTS)
@pytest.mark.parametrize("la", LAYOUTS)
@pytest.mark.parametrize("lb", ["C", "F", "strided"])
def test_products(dt, la, lb):
    if AGAINST_NUMBA and np.dtype(dt).kind in "iub":
        pytest.skip("Numba: integer/bool np.dot is not supported")
    rtol, atol = tol(dt) if np.dtype(dt).kind in "fc" else (0, 0)
    for i, (sa, sb) in enumerate(SHAPE_PAIRS):
        a = make_array(dt, sa, la, np.random.default_rng(i))
        b = make_array(dt, sb, lb, np.random.default_rng(i + 100))
        for f in (l_dot, l_matmul, l_at, l_dot_method):
            check(f, a, b, rtol=rtol, atol=atol)


@pytest.mark.parametrize("dt", FLOATS + [np.int64])
def test_products_large(dt):
    # past OpenBLAS's small-matrix paths, and a transposed view
    a = make_array(dt, (70, 90), "C")
    b = make_array(dt, (90, 60), "F")
    rtol, atol = (1e-3, 1e-3) if np.dtype(dt) in (np.float32, np.complex64) else (1e-9, 1e-9)
    check(l_at, a, b, rtol=rtol, atol=atol)
    check(l_at, b.T, a.T, rtol=rtol, atol=atol)
    check(l_dot, a[::2, 1::3], b[1::3, ::-1], rtol=rtol, atol=atol)


@pytest.mark.parametrize("dt", FLOATS)
def test_products_thin(dt):
    # a short inner dimension and many outputs (the runtime's own loop, no
    # BLAS): a radix-2 butterfly's 2x2 @ 2xN, its transpose, strided views
    rtol, atol = (1e-4, 1e-4) if np.dtype(dt) in (np.float32, np.complex64) else (1e-12, 1e-12)
    w = make_array(dt, (2, 2), "C")
    x = make_array(dt, (2, 3000), "C")
    check(l_at, w, x, rtol=rtol, atol=atol)
    check(l_at, x.T, w, rtol=rtol, atol=atol)
    check(l_dot, make_array(dt, (700, 5), "F"), make_array(dt, (5, 300), "strided"), rtol=rtol, atol=atol)
    check(l_vdot, x[1, ::7], make_array(dt, (429,), "C"), rtol=rtol, atol=atol)
    # rows of the right operand contiguous or not (the row-streaming loop
    # and its strided twin), inner dimensions 1 to 8
    for k in (1, 3, 8):
        for la, lb in (("C", "C"), ("F", "reversed"), ("strided", "F"), ("reversed", "strided")):
            check(l_at, make_array(dt, (3, k), la, np.random.default_rng(k)),
                  make_array(dt, (k, 1000), lb, np.random.default_rng(k + 1)), rtol=rtol, atol=atol)


@hpcjit.njit
def l_rows_gemv(A, M):
    # NPBench doitgen's loop: each row of a 3-D array times a matrix
    for r in range(A.shape[0]):
        for q in range(A.shape[1]):
            t = A[r, q, :] @ M
            A[r, q, :] = t


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["C", "F", "strided", "reversed"])
def test_products_small_gemv(dt, layout):
    # the runtime's matrix-vector loops (up to 65536 multiply-adds): row
    # blocks of 4 and a row left over, columns past the last full vector,
    # fewer columns than a vector, strided rows and columns, 1 x n and
    # m x 1, an M whose rows are a slice of a wider array, transposes
    rtol, atol = (2e-4, 2e-4) if dt == np.float32 else (1e-12, 1e-12)
    for k, n in [(13, 37), (128, 128), (4, 3), (1, 9), (9, 1), (16, 512), (512, 16), (60, 60), (7, 2)]:
        x = make_array(dt, (k,), layout, np.random.default_rng(k))
        m = make_array(dt, (k, n), layout, np.random.default_rng(n))
        check(l_at, x, m, rtol=rtol, atol=atol)
        check(l_at, m.T, x, rtol=rtol, atol=atol)
        check(l_at, x[None, :], m, rtol=rtol, atol=atol)
        check(l_at, m.T, x[:, None], rtol=rtol, atol=atol)
    wide = make_array(dt, (40, 50), layout)
    check(l_at, make_array(dt, (40,), layout), wide[:, 3:36], rtol=rtol, atol=atol)
    check(l_at, wide[:, 3:36].T, make_array(dt, (40,), layout), rtol=rtol, atol=atol)
    check(l_rows_gemv, make_array(dt, (3, 5, 24), layout), make_array(dt, (24, 24), layout), rtol=rtol, atol=atol)
    # empty: no rows, no columns
    check(l_at, make_array(dt, (0,), layout), make_array(dt, (0, 5), layout))
    check(l_at, make_array(dt, (6,), layout), make_array(dt, (6, 0), layout))


@hpcjit.njit
def l_scaled_left(alpha, a, b):
    return alpha * a @ b


@hpcjit.njit
def l_scaled_right(alpha, a, b):
    return a @ (b * alpha)


@hpcjit.njit
def l_scaled_dot(alpha, a, b):
    return np.dot(a * alpha, b)


@hpcjit.njit
def l_scaled_views(alpha, a, b):
    return alpha * a.T @ b[::2]


@hpcjit.njit
def l_scaled_chain(alpha, beta, a, b, c, d):
    # NPBench k2mm: the scaling of the first operand goes to gemm's alpha
    d[:] = alpha * a @ b @ c + beta * d


@hpcjit.njit(fastmath=True)
def l_scaled_gemv(alpha, beta, a, b, x):
    # NPBench gesummv: gemv's alpha, no scaled copy of the matrices
    return alpha * a @ x + beta * b @ x


SCALED = [l_scaled_left, l_scaled_right, l_scaled_dot]


@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("layout", ["C", "F", "strided", "reversed"])
def test_products_scaled(dt, layout):
    # `alpha * A @ B` is alpha * (A @ B) through BLAS's alpha (or the
    # runtime's loops, then scaled): every size class, 1-D operands, 1 x n
    # and n x 1, empty products, an int and a float alpha.  float32 sums
    # of 90 products of size ~10 cancel to ~0.25 here and there: atol
    rtol, atol = (1e-3, 1e-2) if np.dtype(dt) in (np.float32, np.complex64) else (1e-10, 1e-10)
    shapes = [((4, 5), (5, 3)), ((30, 40), (40,)), ((40,), (40, 30)), ((130,), (130, 70)), ((70, 90), (90, 60)),
              ((300,), (300, 300)), ((1, 600), (600, 1)), ((600, 1), (1, 3)), ((700,), (700,)), ((0, 5), (5, 3)),
              ((4, 0), (0, 3)), ((2, 2), (2, 3000))]
    for i, (sa, sb) in enumerate(shapes):
        a = make_array(dt, sa, layout, np.random.default_rng(i))
        b = make_array(dt, sb, layout, np.random.default_rng(i + 50))
        for f in SCALED:
            for alpha in (dt(1.5), -3):
                check(f, alpha, a, b, rtol=rtol, atol=atol)
    a = make_array(dt, (60, 50), layout)
    b = make_array(dt, (120, 40), layout)
    check(l_scaled_views, dt(0.25), a, b, rtol=rtol, atol=atol)
    d = make_array(dt, (20, 35), layout)
    check(l_scaled_chain, dt(1.5), dt(1.2), make_array(dt, (20, 30), layout), make_array(dt, (30, 25), "F"),
          make_array(dt, (25, 35), layout), d, rtol=rtol, atol=atol)
    if np.dtype(dt).kind == "f":
        check(l_scaled_gemv, dt(1.5), dt(1.2), make_array(dt, (300, 400), layout), make_array(dt, (300, 400), "F"),
              make_array(dt, (400,), layout), rtol=rtol, atol=atol)


@pytest.mark.parametrize("dt", FLOATS)
def test_products_scaled_special(dt):
    # a zero or non-finite alpha scales the operand first, as written: BLAS
    # would skip the product for 0 (NaN and inf in B must still show) and
    # inf * 0 in A is NaN before the sums
    a = make_array(dt, (30, 40), "C")
    b = make_array(dt, (40, 50), "F")
    a[0, :] = 0
    a[1, 3] = 0
    b[5, 7] = np.inf
    b[6, 8] = np.nan
    for n, m in [((30, 40), (40, 50)), ((300,), (300, 300)), ((4, 5), (5, 3))]:
        x = make_array(dt, n, "C")
        y = make_array(dt, m, "C")
        if x.ndim == 2:
            x[0, :] = 0
        y[1, 0] = np.inf
        for alpha in (0.0, np.inf, -np.inf, np.nan):
            for f in SCALED:
                check(f, dt(alpha), x, y, rtol=1e-4, atol=1e-4)
    for alpha in (0.0, np.inf, np.nan, 2.0):
        for f in SCALED:
            check(f, dt(alpha), a, b, rtol=1e-4, atol=1e-4)


def test_products_scaled_types():
    # the fold keeps the dtypes: where the scalar promotes the array (a
    # complex alpha, np.float64 with float32) the product is of the
    # promoted type; a float32 scalar meets a float64 array; ints and bools.
    # (A Python float times a float32 array is float64, as in Numba, where
    # NumPy 2 keeps float32: not checked here.)
    rng = np.random.default_rng(3)
    a32 = rng.random((40, 30)).astype(np.float32)
    b32 = rng.random((30, 20)).astype(np.float32)
    a64, b64 = a32.astype(np.float64), b32.astype(np.float64)
    for alpha in (2, True, np.float32(1.5), np.float64(1.5), np.complex64(1 - 1j)):
        for a, b in ((a32, b32), (a64, b64), (a32, b64)):
            rtol = 2e-4 if a.dtype == np.float32 or b.dtype == np.float32 else 1e-10
            for f in SCALED:
                check(f, alpha, a, b, rtol=rtol, atol=rtol)
    ia = rng.integers(-5, 5, (6, 7))
    check(l_scaled_left, 3, ia, rng.integers(-5, 5, (7, 4)))
    check(l_scaled_left, 1.5, ia, a64[:7, :4])
    for alpha in (1.5, 1.5 + 2j):
        for f in SCALED:
            check(f, alpha, a64, b64)


@pytest.mark.numba_skip("hpcjit's own code: the fold shows in the IR")
def test_products_scaled_folded():
    # the scaled operand is not built: one call with alpha, no array loop
    a, b = np.ones((50, 60)), np.ones((60, 70))
    for f in SCALED:
        g = hpcjit.njit(f.py_func)
        g(1.5, a, b)
        assert "rt_linalg_matmul_scaled" in g.inspect_llvm(g.signatures[0])
    g = hpcjit.njit(l_scaled_left.py_func)
    g(1.5 + 1j, a, b)  # promotes a: the scaled copy is made
    assert "rt_linalg_matmul_scaled" not in g.inspect_llvm(g.signatures[0])


@pytest.mark.numba_skip("Numba: integer np.dot is not supported")
@pytest.mark.parametrize("dt", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64])
def test_products_wrap(dt):
    # products and sums that overflow wrap like NumPy's integer arithmetic
    a = (np.arange(12).reshape(3, 4) * 30001).astype(dt)
    b = (np.arange(12).reshape(4, 3) * 70001 + 5).astype(dt)
    check(l_at, a, b)
    check(l_dot, a[:, ::-1], np.asfortranarray(b))
    check(l_vdot, a, b.T)
    check(l_outer, a[0], b[:, 1])


@pytest.mark.numba_skip("mixed-dtype promotion checked against NumPy's rules")
@pytest.mark.parametrize("da,db", [(np.float32, np.float64), (np.int32, np.float32), (np.int64, np.float64),
                                   (np.float64, np.complex128), (np.int8, np.uint8), (np.float32, np.complex64),
                                   (np.bool_, np.int32)])
def test_products_mixed(da, db):
    a = make_array(da, (4, 5), "C")
    b = make_array(db, (5, 3), "F")
    for f in (l_dot, l_at):
        check(f, a, b, rtol=1e-5, atol=1e-5)
    check(l_vdot, a, b.T, rtol=1e-5, atol=1e-5)
    check(l_outer, a, b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dt", FLOATS + INTS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_vdot_outer(dt, layout):
    if AGAINST_NUMBA and np.dtype(dt).kind in "iub":
        pytest.skip("Numba: integer np.vdot/np.outer go through BLAS")
    rtol, atol = tol(dt) if np.dtype(dt).kind in "fc" else (0, 0)
    for sa, sb in [((7,), (7,)), ((3, 4), (4, 3)), ((0,), (0,)), ((2, 3), (6,)), ((30, 40), (40, 30))]:
        a = make_array(dt, sa, layout, np.random.default_rng(1))
        b = make_array(dt, sb, layout, np.random.default_rng(2))
        check(l_vdot, a, b, rtol=rtol, atol=atol)
        check(l_outer, a, b, rtol=rtol, atol=atol)


ND_PAIRS = [((2, 3, 4), (2, 4, 5)), ((3, 4), (2, 4, 2)), ((2, 1, 3, 4), (5, 4, 2)), ((4,), (2, 4, 3)),
            ((2, 3, 4), (4,)), ((0, 3, 4), (4, 2)), ((2, 3, 0), (2, 0, 2)), ((1, 2, 3), (3, 2, 3, 1))]


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex128, np.int64])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_matmul_nd(dt, layout):
    if AGAINST_NUMBA and (np.dtype(dt).kind in "iub"):
        pytest.skip("Numba: integer matmul is not supported")
    rtol, atol = tol(dt) if np.dtype(dt).kind in "fc" else (0, 0)
    for i, (sa, sb) in enumerate(ND_PAIRS):
        a = make_array(dt, sa, layout, np.random.default_rng(i))
        b = make_array(dt, sb, "C" if layout == "F" else "F", np.random.default_rng(i + 50))
        check(l_at, a, b, rtol=rtol, atol=atol)
        check(l_matmul, a, b, rtol=rtol, atol=atol)
    for sa, sb in [((2, 3, 4), (5, 4, 2)), ((2, 3, 4), (2, 5, 2))]:
        e = check(l_at, np.ones(sa, dt), np.ones(sb, dt))
        assert type(e) is ValueError
        if not AGAINST_NUMBA:
            with pytest.raises(ValueError) as exp:
                np.ones(sa, dt) @ np.ones(sb, dt)
            assert str(e) == str(exp.value)


@hpcjit.njit
def l_inner(a, b):
    return np.inner(a, b)


@hpcjit.njit
def l_kron(a, b):
    return np.kron(a, b)


@pytest.mark.parametrize("dt", FLOATS + [np.int8, np.int64, np.uint16, np.bool_])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_inner_kron(dt, layout):
    if AGAINST_NUMBA and np.dtype(dt).kind in "iub":
        pytest.skip("Numba: integer np.inner/np.kron go through BLAS")
    rtol, atol = tol(dt) if np.dtype(dt).kind in "fc" else (0, 0)
    for sa, sb in [((5,), (5,)), ((2, 5), (3, 5)), ((5,), (3, 5)), ((2, 5), (5,)), ((0, 5), (3, 5))]:
        a = make_array(dt, sa, layout, np.random.default_rng(1))
        b = make_array(dt, sb, "F" if layout == "C" else "C", np.random.default_rng(2))
        check(l_inner, a, b, rtol=rtol, atol=atol)
    for sa, sb in [((3,), (4,)), ((2, 3), (4, 2)), ((3,), (2, 2)), ((2, 2), (3,)), ((0, 2), (3, 1))]:
        a = make_array(dt, sa, layout, np.random.default_rng(3))
        b = make_array(dt, sb, layout, np.random.default_rng(4))
        check(l_kron, a, b, rtol=rtol, atol=atol)
    e = check(l_inner, np.ones((2, 3), dt), np.ones((2, 4), dt))
    assert type(e) is ValueError
    if not AGAINST_NUMBA:
        with pytest.raises(ValueError) as exp:
            np.inner(np.ones((2, 3), dt), np.ones((2, 4), dt))
        assert str(e) == str(exp.value)


def test_product_shape_errors():
    for sa, sb in [((2, 3), (4, 5)), ((3,), (4,)), ((2, 3), (4,)), ((3,), (4, 5))]:
        a, b = np.ones(sa), np.ones(sb)
        for f in (l_dot, l_matmul, l_at):
            e = check(f, a, b)
            assert isinstance(e, ValueError)
            if not AGAINST_NUMBA:
                with pytest.raises(ValueError) as exp:
                    f.py_func(a, b)
                assert str(e) == str(exp.value)
    e = check(l_vdot, np.ones(3), np.ones(4))
    assert isinstance(e, ValueError)


@hpcjit.njit
def l_matmul_scalar(a):
    return a @ 2.0


@hpcjit.njit
def l_dot_3d(a):
    return np.dot(a, a)


@pytest.mark.numba_skip("hpcjit's compile-time errors")
def test_product_typing_errors():
    with pytest.raises(hpcjit.TypingError, match=r"test_linalg\.py:\d+:\d+: error: matmul: Input operand 1"):
        l_matmul_scalar(np.ones((2, 2)))
    with pytest.raises(hpcjit.UnsupportedError, match="1-D and 2-D only"):
        l_dot_3d(np.ones((2, 2, 2)))


# ---------------------------------------------------------------------------
# trace and norm

@hpcjit.njit
def l_trace(a):
    return np.trace(a)


@hpcjit.njit
def l_trace_off(a, k):
    return np.trace(a, k)


@hpcjit.njit
def l_trace_method(a):
    return a.trace(offset=-1)


@pytest.mark.parametrize("dt", FLOATS + INTS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_trace(dt, layout):
    rtol, atol = tol(dt) if np.dtype(dt).kind in "fc" else (0, 0)
    for shape in [(4, 4), (3, 5), (5, 2), (0, 3)]:
        a = make_array(dt, shape, layout)
        check(l_trace, a, rtol=rtol, atol=atol)
        check(l_trace_method, a, rtol=rtol, atol=atol)
        for k in (-6, -2, 0, 1, 3, 7):
            check(l_trace_off, a, k, rtol=rtol, atol=atol)


@hpcjit.njit
def l_norm(x):
    return np.linalg.norm(x)


@hpcjit.njit
def l_norm_ord(x, p):
    return np.linalg.norm(x, p)


@hpcjit.njit
def l_norm_inf(x):
    return np.linalg.norm(x, np.inf), np.linalg.norm(x, -np.inf), np.linalg.norm(x, ord=1)


@hpcjit.njit
def l_norm_fro(x):
    return np.linalg.norm(x, "fro")


@hpcjit.njit
def l_norm_nuc(x):
    return np.linalg.norm(x, "nuc")


@pytest.mark.parametrize("dt", FLOATS + [np.int32])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_norm(dt, layout):
    if AGAINST_NUMBA and np.dtype(dt).kind in "iub":
        pytest.skip("Numba: np.linalg.norm of integers is not supported")
    rtol, atol = tol(dt) if np.dtype(dt).kind in "fc" else (1e-12, 0)
    v = make_array(dt, (9,), layout)
    m = make_array(dt, (4, 6), layout)
    for x in (v, m):
        check(l_norm, x, rtol=rtol, atol=atol)
        check(l_norm_inf, x, rtol=rtol, atol=atol)
    for p in (1, 2, 3, 0.5, np.inf, -np.inf, 0, -1):
        check(l_norm_ord, v, p, rtol=rtol, atol=atol)
    for p in (1, 2, -2, -1, np.inf, -np.inf):
        check(l_norm_ord, m, p, rtol=rtol, atol=atol)
    check(l_norm_fro, m, rtol=rtol, atol=atol)
    check(l_norm_nuc, m, rtol=rtol, atol=atol)


@hpcjit.njit
def l_norm_axes(x):
    return (np.linalg.norm(x, axis=0), np.linalg.norm(x, axis=1), np.linalg.norm(x, 1, axis=-1),
            np.linalg.norm(x, np.inf, 0), np.linalg.norm(x, axis=1, keepdims=True),
            np.linalg.norm(x, ord=3, axis=-2, keepdims=True))


@hpcjit.njit
def l_norm_axis_vec(x):
    return np.linalg.norm(x, axis=0) + np.linalg.norm(x, 1, -1)


@pytest.mark.parametrize("dt", FLOATS + [np.int64])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_norm_axis(dt, layout):
    if AGAINST_NUMBA:
        pytest.skip("Numba: np.linalg.norm has no axis=")
    rtol, atol = tol(dt) if np.dtype(dt).kind in "fc" else (1e-12, 0)
    for shape in [(4, 6), (1, 3), (5, 1)]:
        check(l_norm_axes, make_array(dt, shape, layout), rtol=rtol, atol=atol)
    check(l_norm_axis_vec, make_array(dt, (7,), layout), rtol=rtol, atol=atol)


@pytest.mark.parametrize("dt", FLOATS + [np.int32])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_norm_nd(dt, layout):
    if AGAINST_NUMBA:
        pytest.skip("Numba: np.linalg.norm takes 1-D and 2-D arrays")
    rtol, atol = tol(dt) if np.dtype(dt).kind in "fc" else (1e-12, 0)
    for shape in [(2, 3, 4), (3, 1, 2, 2), (2, 0, 3)]:
        check(l_norm, make_array(dt, shape, layout), rtol=rtol, atol=atol)


def test_norm_errors():
    e = check(l_norm_ord, np.ones((3, 3)), 3)  # ValueError: Invalid norm order for matrices.
    assert isinstance(e, ValueError)
    e = check(l_norm_fro, np.ones(3))
    assert isinstance(e, ValueError)


# ---------------------------------------------------------------------------
# solve, inv, det, cholesky

@hpcjit.njit
def l_solve(a, b):
    return np.linalg.solve(a, b)


@hpcjit.njit
def l_inv(a):
    return np.linalg.inv(a)


@hpcjit.njit
def l_det(a):
    return np.linalg.det(a)


@hpcjit.njit
def l_cholesky(a):
    return np.linalg.cholesky(a)


@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_solve_inv_det(dt, layout):
    rtol, atol = tol(dt)
    for n in (1, 3, 8):
        a = well_conditioned(dt, n, layout)
        b1 = make_array(dt, (n,), layout, np.random.default_rng(5))
        b2 = make_array(dt, (n, 3), layout, np.random.default_rng(6))
        before = (a.copy(), b1.copy(), b2.copy())
        check(l_solve, a, b1, rtol=rtol, atol=atol)
        check(l_solve, a, b2, rtol=rtol, atol=atol)
        check(l_inv, a, rtol=rtol, atol=atol)
        check(l_det, a, rtol=rtol * 10, atol=0)
        # inputs are never modified (LAPACK works on copies)
        l_solve(a, b2), l_inv(a), l_det(a)
        for x, y in zip((a, b1, b2), before):
            np.testing.assert_array_equal(x, y)


@pytest.mark.numba_skip("Numba's np.linalg does not take integer arrays")
@pytest.mark.parametrize("dt", [np.int32, np.int64, np.bool_])
def test_linalg_ints(dt):
    a = (np.eye(3) * 3 + np.tri(3)).astype(dt)
    check(l_solve, a, np.arange(3).astype(dt))
    check(l_inv, a)
    check(l_det, a)
    check(l_dot, a, a)
    check(l_norm, a)


@hpcjit.njit
def l_cholesky_upper(a):
    return np.linalg.cholesky(a, upper=True)


@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_cholesky(dt, layout):
    rtol, atol = tol(dt)
    for n in (1, 4, 9):
        check(l_cholesky, hermitian_pd(dt, n, layout), rtol=rtol, atol=atol)
        if not AGAINST_NUMBA:  # upper= is NumPy 2's
            check(l_cholesky_upper, hermitian_pd(dt, n, layout), rtol=rtol, atol=atol)


def test_linalg_errors():
    sing = np.array([[1.0, 2.0], [2.0, 4.0]])
    for f, args in [(l_inv, (sing,)), (l_solve, (sing, np.ones(2))), (l_solve, (np.zeros((3, 3)), np.ones((3, 2))))]:
        e = check(f, *args)
        assert type(e) is np.linalg.LinAlgError and str(e) == "Singular matrix"
    e = check(l_cholesky, -np.eye(3))
    assert type(e) is np.linalg.LinAlgError and str(e) == "Matrix is not positive definite"
    assert check(l_det, sing) == 0.0
    for f, args in [(l_inv, (np.ones((2, 3)),)), (l_det, (np.ones((3, 2)),)), (l_solve, (np.ones((2, 3)), np.ones(2)))]:
        e = check(f, *args)
        assert type(e) is np.linalg.LinAlgError and "must be square" in str(e)
    for b in (np.ones(4), np.ones((4, 2))):
        e = check(l_solve, np.eye(3), b)
        assert type(e) is ValueError
        if not AGAINST_NUMBA:
            with pytest.raises(ValueError) as exp:
                np.linalg.solve(np.eye(3), b)
            assert str(e) == str(exp.value)


@pytest.mark.numba_skip("Numba's np.linalg takes 2-D arrays only")
@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_stacked(dt, layout):
    rtol, atol = tol(dt)
    for shape in [(3, 4, 4), (2, 1, 3, 3), (0, 2, 2)]:
        a = make_array(dt, shape, layout, np.random.default_rng(6))
        a[...] = a / 10 + 3 * np.eye(shape[-1], dtype=dt)
        check(l_inv, a, rtol=rtol, atol=atol)
        check(l_det, a, rtol=rtol * 10, atol=atol)
        h = make_array(dt, shape, layout)
        h[...] = a @ np.swapaxes(a, -1, -2).conj()
        check(l_cholesky, h, rtol=rtol * 10, atol=atol * 10)
    sing = np.stack([np.eye(2), np.ones((2, 2))]).astype(dt)
    e = check(l_inv, sing)
    assert type(e) is np.linalg.LinAlgError and str(e) == "Singular matrix"
    e = check(l_det, np.ones((2, 3, 4), dt))
    assert type(e) is np.linalg.LinAlgError


@hpcjit.njit
def l_inv_vector(a):
    return np.linalg.inv(a)


@hpcjit.njit
def l_solve_scalar(a, b):
    return np.linalg.solve(a, b)


@pytest.mark.numba_skip("hpcjit's compile-time errors")
def test_linalg_typing_errors():
    line = inspect.getsourcelines(l_inv_vector.py_func)[1] + 2
    with pytest.raises(hpcjit.TypingError, match=rf"test_linalg\.py:{line}:\d+: error: inv\(\) needs a 2-D array"):
        l_inv_vector(np.ones(3))
    with pytest.raises(hpcjit.TypingError, match=r"solve\(\) needs a numeric array, not float64"):
        l_solve_scalar(np.eye(2), 1.0)
    with pytest.raises(hpcjit.UnsupportedError, match="stacked"):
        l_qr(np.ones((2, 3, 3)))


# ---------------------------------------------------------------------------
# eigh, svd, qr, lstsq

@hpcjit.njit
def l_eigh(a):
    return np.linalg.eigh(a)


@hpcjit.njit
def l_eigh_upper(a):
    return np.linalg.eigh(a, UPLO="U")


@hpcjit.njit
def l_eigvalsh(a):
    return np.linalg.eigvalsh(a)


def close(got, exp, dt, scale=1.0):
    rtol, atol = tol(dt)
    np.testing.assert_allclose(got, exp, rtol=rtol * 10, atol=atol * 10 * scale)


@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_eigh(dt, layout):
    for n in (1, 2, 6):
        a = hermitian_pd(dt, n, layout, seed=n)
        for f in (l_eigh, l_eigh_upper):
            w, v = f(a)
            ew, ev = f.py_func(a)
            assert w.dtype == ew.dtype and v.dtype == ev.dtype and v.shape == ev.shape
            close(w, ew, dt, n)
            close(np.abs(v), np.abs(ev), dt, n)
            close((v * w) @ v.conj().T, a, dt, n)
        check(l_eigvalsh, a, rtol=tol(dt)[0] * 10, atol=tol(dt)[1] * 10 * n)


@hpcjit.njit
def l_svd(a):
    return np.linalg.svd(a)


@hpcjit.njit
def l_svd_reduced(a):
    return np.linalg.svd(a, full_matrices=False)


@hpcjit.njit
def l_svd_values(a):
    return np.linalg.svd(a, compute_uv=False)


@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_svd(dt, layout):
    for shape in [(5, 3), (3, 5), (4, 4), (1, 3)]:
        a = make_array(dt, shape, layout, np.random.default_rng(3))
        k = min(shape)
        for f in (l_svd, l_svd_reduced):
            u, s, vt = f(a)
            eu, es, evt = f.py_func(a)
            assert (u.shape, s.shape, vt.shape) == (eu.shape, es.shape, evt.shape)
            assert (u.dtype, s.dtype, vt.dtype) == (eu.dtype, es.dtype, evt.dtype)
            close(s, es, dt, 10)
            close((u[:, :k] * s) @ vt[:k], a, dt, 10)
            close(u.conj().T @ u, np.eye(u.shape[1]), dt)
            close(vt @ vt.conj().T, np.eye(vt.shape[0]), dt)
        check(l_svd_values, a, rtol=tol(dt)[0] * 10, atol=tol(dt)[1] * 100)


@hpcjit.njit
def l_qr(a):
    return np.linalg.qr(a)


@hpcjit.njit
def l_qr_complete(a):
    return np.linalg.qr(a, mode="complete")


@hpcjit.njit
def l_qr_r(a):
    return np.linalg.qr(a, "r")


@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_qr(dt, layout):
    for shape in [(5, 3), (3, 5), (4, 4), (0, 3), (3, 0)]:
        a = make_array(dt, shape, layout, np.random.default_rng(4))
        for f in (l_qr, l_qr_complete):
            q, r = f(a)
            eq, er = f.py_func(a)
            assert (q.shape, r.shape, q.dtype, r.dtype) == (eq.shape, er.shape, eq.dtype, er.dtype)
            close(q @ r, a, dt, 10)
            close(np.abs(r), np.abs(er), dt, 10)
            close(q.conj().T @ q, np.eye(q.shape[1]), dt, 10)
            if f is l_qr and min(shape) > 0:
                close(np.abs(q), np.abs(eq), dt)
            np.testing.assert_array_equal(np.tril(r, -1), 0)
        r = l_qr_r(a)
        er = l_qr_r.py_func(a)
        assert (r.shape, r.dtype) == (er.shape, er.dtype)
        close(np.abs(r), np.abs(er), dt, 10)


@hpcjit.njit
def l_lstsq(a, b):
    return np.linalg.lstsq(a, b)


@hpcjit.njit
def l_lstsq_rcond(a, b, rc):
    return np.linalg.lstsq(a, b, rcond=rc)


@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_lstsq(dt, layout):
    rtol, atol = tol(dt)
    for sa, sb in [((6, 3), (6,)), ((6, 3), (6, 2)), ((3, 5), (3,)), ((4, 4), (4, 2))]:
        a = make_array(dt, sa, layout, np.random.default_rng(7))
        b = make_array(dt, sb, layout, np.random.default_rng(8))
        check(l_lstsq, a, b, rtol=rtol * 100, atol=atol * 100)
    # rank deficient: residuals empty, rank 1
    a = np.outer(np.arange(1.0, 6.0), np.ones(3)).astype(dt)
    check(l_lstsq, a, np.arange(5.0).astype(dt), rtol=rtol * 100, atol=atol * 100)
    check(l_lstsq_rcond, a, np.ones(5, dt), 0.5, rtol=rtol * 100, atol=atol * 100)
    e = check(l_lstsq, np.ones((3, 2), dt), np.ones(4, dt))
    assert type(e) is np.linalg.LinAlgError


# ---------------------------------------------------------------------------
# memory and the library

@pytest.mark.numba_skip("hpcjit's allocator statistics")
def test_no_leaks():
    a = well_conditioned(np.float64, 5, "F")
    b = make_array(np.float64, (5, 2), "strided")
    fns = [(l_at, (a, b)), (l_dot, (a[0], a)), (l_vdot, (a, a)), (l_outer, (a[0], b)), (l_solve, (a, b)),
           (l_inv, (a,)), (l_det, (a,)), (l_cholesky, (a @ a.T,)), (l_eigh, (a + a.T,)), (l_svd, (b,)),
           (l_svd_values, (b,)), (l_qr, (b,)), (l_lstsq, (b, a[:, 0])), (l_norm_nuc, (a,)), (l_trace, (a,)),
           (l_inv, (np.zeros((3, 3)),)), (l_at, (a, a[:3])), (l_cholesky, (-a @ a.T,)), (l_int_loop, (6,)),
           (l_slogdet, (a,)), (l_pinv, (b,)), (l_rank, (b,)), (l_cond, (a,)), (l_mpow, (a, -3)),
           (l_mpow, (b, 2)), (l_at, (np.ones((2, 3, 4)), b[:4])), (l_at, (np.ones((2, 3, 4)), np.ones((5, 4, 2)))),
           (l_eig, (a + a.T,)), (l_inv, (np.stack([a, a]),)), (l_inv, (np.stack([a, 0 * a]),)), (l_eigvals, (np.array([[0.0, -1.0], [1.0, 0.0]]),)), (l_norm_axes, (b,))]
    for f, args in fns:  # compile first
        try:
            f(*args)
        except (ValueError, np.linalg.LinAlgError):
            pass
    before = hpcjit._core.memstats()
    for _ in range(3):
        for f, args in fns:
            try:
                r = f(*args)
                del r
            except (ValueError, np.linalg.LinAlgError):
                pass
    after = hpcjit._core.memstats()
    assert after[0] - before[0] == after[1] - before[1], (before, after)


@hpcjit.njit
def l_int_loop(n):
    a = np.ones((n, n))
    acc = 0.0
    for i in range(n):
        x = np.linalg.solve(a + np.eye(n) * (i + 1), a[i])
        acc += np.dot(x, x) + np.linalg.det(a @ a.T + np.eye(n))
    return acc


def test_in_a_loop():
    check(l_int_loop, 6, rtol=1e-9)


@pytest.mark.numba_skip("hpcjit's BLAS loading")
def test_blas_loaded_lazily_and_missing():
    r = run_python("""
        import numpy as np, hpcjit
        def maps():
            return open('/proc/self/maps').read()
        @hpcjit.njit
        def f(x):
            return x + 1.0
        f(1.0)
        assert 'libopenblas.so' not in maps() and 'liblapack.so' not in maps(), 'BLAS loaded too early'
        @hpcjit.njit
        def g(a):
            return np.linalg.inv(a)
        print(g(np.eye(2) * 2.0)[0, 0])
        print(hpcjit._core.linalg_library())
    """)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.split()
    assert lines[0] == "0.5" and lines[1] != "None"
    r = run_python("""
        import numpy as np, hpcjit
        @hpcjit.njit
        def g(a):
            return np.linalg.inv(a)
        try:
            g(np.eye(2))
        except OSError as e:
            print('OSError', e)
        print(hpcjit._core.linalg_library())
    """, env={"HPCJIT_BLAS_LIB": "/nonexistent/libnoblas.so"})
    assert r.returncode == 0, r.stderr
    assert "OSError" in r.stdout and "/nonexistent/libnoblas.so" in r.stdout and "HPCJIT_BLAS_LIB" in r.stdout
    assert r.stdout.split()[-1] == "None"


# ---------------------------------------------------------------------------
# slogdet, pinv, matrix_rank, cond, matrix_power

@hpcjit.njit
def l_slogdet(a):
    return np.linalg.slogdet(a)


@hpcjit.njit
def l_pinv(a):
    return np.linalg.pinv(a)


@hpcjit.njit
def l_pinv_rcond(a, rc):
    return np.linalg.pinv(a, rcond=rc)


@hpcjit.njit
def l_rank(a):
    return np.linalg.matrix_rank(a)


@hpcjit.njit
def l_rank_tol(a, tol):
    return np.linalg.matrix_rank(a, tol)


@hpcjit.njit
def l_cond(a):
    return np.linalg.cond(a)


@hpcjit.njit
def l_mpow(a, k):
    return np.linalg.matrix_power(a, k)


@hpcjit.njit
def l_cond_p(a, p):
    return np.linalg.cond(a, p)


@hpcjit.njit
def l_cond_fro(a):
    return np.linalg.cond(a, "fro"), np.linalg.cond(a, "nuc"), np.linalg.cond(a, p=np.inf)


@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_cond_orders(dt, layout):
    rtol, atol = tol(dt)
    a = well_conditioned(dt, 4, layout)
    for p in (2, -2, 1, -1, np.inf, -np.inf):
        check(l_cond_p, a, p, rtol=rtol * 10, atol=0)
    check(l_cond_fro, a, rtol=rtol * 10, atol=0)
    sing = np.ones((3, 3), dt)
    check(l_cond_p, sing, 1)  # inf, as NumPy
    e = check(l_cond_p, np.ones((2, 3), dt), 1)
    assert type(e) is np.linalg.LinAlgError


@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_slogdet_pinv_rank_cond(dt, layout):
    rtol, atol = tol(dt)
    a = well_conditioned(dt, 5, layout)
    check(l_slogdet, a, rtol=rtol * 10, atol=atol * 10)
    check(l_slogdet, np.zeros((3, 3), dt))
    check(l_cond, a, rtol=rtol * 10, atol=0)
    check(l_rank, a)
    for shape in [(5, 3), (3, 5), (4, 4)]:
        m = make_array(dt, shape, layout, np.random.default_rng(9))
        check(l_pinv, m, rtol=rtol * 100, atol=atol * 100)
        check(l_pinv_rcond, m, 0.5, rtol=rtol * 100, atol=atol * 100)
        check(l_rank, m)
    low = np.outer(np.arange(1.0, 5.0), np.arange(1.0, 4.0)).astype(dt)  # rank 1
    check(l_rank, low)
    check(l_rank_tol, low, 1e3)
    # rank deficient: the cut must be above the rounding noise of each LAPACK
    check(l_pinv_rcond, low, 1e-4, rtol=rtol * 100, atol=atol * 100)


@pytest.mark.parametrize("dt", FLOATS + [np.int32, np.int64])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_matrix_power(dt, layout):
    if AGAINST_NUMBA and np.dtype(dt).kind in "iu":
        pytest.skip("Numba: integer matrix_power goes through BLAS")
    a = make_array(dt, (4, 4), layout)
    if np.dtype(dt).kind in "fc":
        a[...] = a / 10 + 2 * np.eye(4, dtype=dt)
    rtol, atol = (1e-3, 1e-3) if np.dtype(dt) in (np.float32, np.complex64) else (1e-9, 1e-9)
    ks = (0, 1, 2, 3, 5, 8) + ((-1, -3) if np.dtype(dt).kind in "fc" else ())
    for k in ks:
        check(l_mpow, a, k, rtol=rtol, atol=atol)
    e = check(l_mpow, np.ones((2, 3), dt), 2)
    assert type(e) is np.linalg.LinAlgError


@hpcjit.njit
def l_eig(a):
    return np.linalg.eig(a)


@hpcjit.njit
def l_eigvals(a):
    return np.linalg.eigvals(a)


def sorted_eig(w):
    return w[np.lexsort((np.round(w.imag, 4), np.round(w.real, 4)))] if w.dtype.kind == "c" else np.sort(w)


@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_eig(dt, layout):
    for n in (1, 3, 6):
        if np.dtype(dt).kind == "c":
            a = make_array(dt, (n, n), layout, np.random.default_rng(n)) / 10
        else:  # real eigenvalues: a similarity transform of a diagonal matrix
            p = well_conditioned(dt, n, "C", seed=n)
            a = make_array(dt, (n, n), layout)
            a[...] = p @ np.diag(np.arange(1.0, n + 1.0)) @ np.linalg.inv(p)
        w, v = l_eig(a)
        ew, ev = l_eig.py_func(a)
        assert (w.dtype, v.dtype, w.shape, v.shape) == (ew.dtype, ev.dtype, ew.shape, ev.shape)
        close(sorted_eig(w), sorted_eig(ew), dt, 10)
        close(a @ v, v * w, dt, 10)
        close(sorted_eig(l_eigvals(a)), sorted_eig(ew), dt, 10)
    if np.dtype(dt).kind == "f":  # complex eigenvalues of a real matrix: Numba's error
        with pytest.raises(ValueError, match="domain change"):
            l_eigvals(np.array([[0.0, -1.0], [1.0, 0.0]], dtype=dt))


@hpcjit.njit(parallel=True)
def l_parallel(A, B):
    n = A.shape[0]
    out = np.empty(n)
    for i in hpcjit.prange(n):
        x = np.linalg.solve(A[i], B[i])
        out[i] = np.dot(x, x) + np.trace(A[i] @ A[i].T) + np.linalg.det(A[i]) + np.linalg.norm(A[i] @ A[i])
    return out


def test_parallel_loop():
    # every worker calls the runtime (and BLAS/LAPACK) at once
    r = np.random.default_rng(11)
    A = r.random((200, 12, 12)) + 12 * np.eye(12)
    B = r.random((200, 12))
    check(l_parallel, A, B, rtol=1e-9)


@pytest.mark.numba_skip("hpcjit's BLAS loading")
def test_ilp64_numpy_openblas():
    # NumPy's wheels bundle an ILP64 OpenBLAS (64-bit integers, scipy_dgemm_64_);
    # hpcjit falls back to it when no system library loads
    import glob
    import os
    libs = glob.glob(os.path.join(os.path.dirname(np.__file__), "..", "numpy.libs", "*openblas*"))
    if not libs:
        pytest.skip("this NumPy bundles no OpenBLAS")
    r = run_python("""
        import numpy as np, hpcjit
        @hpcjit.njit
        def f(a, b):
            return (np.linalg.solve(a, b), a @ a, np.dot(a[0], b), np.linalg.eigh(a + a.T)[0],
                    np.linalg.svd(a)[1], np.linalg.det(a), np.linalg.lstsq(a[:, :20], b)[0],
                    np.linalg.qr(a)[1], np.linalg.inv(a), np.linalg.norm(a, 2))
        r = np.random.default_rng(0)
        a = r.random((40, 40)) + 40 * np.eye(40)
        b = r.random(40)
        got = f(a, b)
        exp = f.py_func(a, b)
        for i, (g, e) in enumerate(zip(got, exp)):
            if i == 7:
                g, e = np.abs(g), np.abs(e)
            np.testing.assert_allclose(g, e, rtol=1e-9, atol=1e-9, err_msg=str(i))
        print(hpcjit._core.linalg_library())
    """, env={"HPCJIT_BLAS_LIB": os.path.realpath(libs[0])})
    assert r.returncode == 0, r.stderr
    assert "(ILP64)" in r.stdout
