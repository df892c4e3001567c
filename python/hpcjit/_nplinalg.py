"""numba.np.linalg under the drop-in: the one internal name libraries reach
for, `_LAPACK().numba_xgesv(dtype)` (QuantEcon's `_numba_linalg_solve`
overload, support enumeration).

Numba's numba_xgesv is an external C function (its helper library calling
SciPy's LAPACK) taking `(kind, n, nrhs, a.ctypes, lda, ipiv.ctypes,
b.ctypes, ldb)`: A (n x n, Fortran order) and B (n x nrhs) are overwritten
with the LU factors and the solution, ipiv with the 1-based pivots, and the
result is LAPACK's info (0, or k > 0 when U[k-1, k-1] is exactly zero: no
error is raised).  Here it is a compiled function doing what LAPACK's
unblocked xgetf2/xgetrs do (partial pivoting on the largest |a|), reading
the pointers through farray; `a.ctypes` in compiled code is the data
pointer (compiler/infer/infer_call.c ATTR_ARRAY_CTYPES)."""
import numpy as np

from . import errors
from . import types as _types
from .numpy_support import farray

_KINDS = {_types.float32: np.float32, _types.float64: np.float64,
          _types.complex64: np.complex64, _types.complex128: np.complex128}


def _xgesv_impl(dtype):
    def xgesv(kind, n, nrhs, a, lda, ipiv, b, ldb):
        A = farray(a, (lda, n), dtype)
        B = farray(b, (ldb, nrhs), dtype)
        P = farray(ipiv, (n,), np.int32)
        info = 0
        for j in range(n):  # xgetf2: column j
            p = j
            big = abs(A[j, j])
            for i in range(j + 1, n):
                if abs(A[i, j]) > big:
                    big = abs(A[i, j])
                    p = i
            P[j] = p + 1
            if A[p, j] == 0:
                if info == 0:
                    info = j + 1
                continue
            if p != j:
                for k in range(n):
                    A[j, k], A[p, k] = A[p, k], A[j, k]
            piv = A[j, j]
            for i in range(j + 1, n):
                A[i, j] = A[i, j] / piv
            for k in range(j + 1, n):
                t = A[j, k]
                if t != 0:
                    for i in range(j + 1, n):
                        A[i, k] -= A[i, j] * t
        if info != 0:  # xgesv: B is left as it was
            return np.int32(info)
        for j in range(n):  # the row swaps on B, then L and U
            p = P[j] - 1
            if p != j:
                for k in range(nrhs):
                    B[j, k], B[p, k] = B[p, k], B[j, k]
        for k in range(nrhs):
            for j in range(n):
                t = B[j, k]
                for i in range(j + 1, n):
                    B[i, k] -= t * A[i, j]
            for j in range(n - 1, -1, -1):
                B[j, k] = B[j, k] / A[j, j]
                t = B[j, k]
                for i in range(j):
                    B[i, k] -= t * A[i, j]
        return np.int32(0)

    return xgesv


class _LAPACK:
    """Numba's numba.np.linalg._LAPACK, with numba_xgesv only."""

    _made = {}

    def numba_xgesv(self, dtype):
        np_dtype = _KINDS.get(dtype)
        if np_dtype is None:
            raise errors.TypingError(f"numba_xgesv: unsupported dtype {dtype} (float32, float64, "
                                     f"complex64 or complex128)")
        fn = self._made.get(np_dtype)
        if fn is None:
            from . import njit
            fn = self._made[np_dtype] = njit(_xgesv_impl(np_dtype))
        return fn

    def __getattr__(self, name):
        if name.startswith("numba_x"):
            raise errors.UnsupportedError(f"numba.np.linalg._LAPACK().{name} is not supported by hpcjit "
                                          f"(numba_xgesv is)")
        raise AttributeError(name)
