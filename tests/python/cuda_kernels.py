"""The CUDA kernel suite shared by the compile-only tests (test_cuda_ptx.py),
the simulator tests and the GPU tests.

CASES is a list of Case objects:
  case.name       a short unique name
  case.kernel     the Python function (decorate it: cuda.jit(case.kernel))
  case.make(rng)  the launch arguments: a list of NumPy arrays and scalars
  case.grid, case.block   launch configuration (ints or tuples)
  case.shared     dynamic shared memory in bytes (0: none)
  case.outputs    indices of the arguments the kernel writes
  case.reference(args)  the expected values of those outputs (a list, same
                  order), computed by NumPy from the arguments as made
  case.rtol       relative tolerance of the comparison (0: exact)
  case.cc_min     the lowest compute capability the kernel needs
typecodes(args) gives the argument typecodes compile_kernel takes.
Kernels name hpcjit.cuda through `cuda`; under the drop-in numba.cuda works
the same."""
import cmath
import math

import numpy as np

from hpcjit import cuda
from hpcjit.cuda import random as cuda_random

_CODES = {np.dtype(t): c for t, c in (
    (np.bool_, "?"), (np.int8, "b"), (np.int16, "h"), (np.int32, "i"), (np.int64, "l"),
    (np.uint8, "B"), (np.uint16, "H"), (np.uint32, "I"), (np.uint64, "L"), (np.float16, "e"), (np.float32, "f"),
    (np.float64, "d"), (np.complex64, "F"), (np.complex128, "D"))}


def typecode(x):
    if isinstance(x, np.ndarray):
        layout = "C" if x.flags.c_contiguous else "F" if x.flags.f_contiguous else "A"
        return f"a{_CODES[x.dtype]}{x.ndim}{layout}"
    if isinstance(x, (bool, np.bool_)):
        return "?"
    if isinstance(x, (int, np.integer)):
        return _CODES[np.dtype(type(x))] if isinstance(x, np.integer) else "l"
    if isinstance(x, (float, np.floating)):
        return _CODES[np.dtype(type(x))] if isinstance(x, np.floating) else "d"
    if isinstance(x, (complex, np.complexfloating)):
        return _CODES[np.dtype(type(x))] if isinstance(x, np.complexfloating) else "D"
    if isinstance(x, tuple):
        return "(" + "".join(typecode(v) for v in x) + ")"
    raise TypeError(f"no typecode for {type(x).__name__}")


def typecodes(args):
    return [typecode(a) for a in args]


class Case:
    def __init__(self, kernel, make, grid, block, outputs, reference, shared=0, rtol=0.0, cc_min=(5, 0)):
        self.name = kernel.__name__
        self.kernel = kernel
        self.make = make
        self.grid = grid
        self.block = block
        self.outputs = outputs
        self.reference = reference
        self.shared = shared
        self.rtol = rtol
        self.cc_min = cc_min

    def __repr__(self):
        return f"Case({self.name})"


CASES = []


def case(make, grid, block, outputs, reference, **kw):
    def deco(f):
        CASES.append(Case(f, make, grid, block, outputs, reference, **kw))
        return f
    return deco


N = 1000
TPB = 128
BLOCKS = (N + TPB - 1) // TPB


def _vec(rng, dtype=np.float64, n=N):
    return rng.standard_normal(n).astype(dtype)


# ---- 1-D grids -----------------------------------------------------------------------

@case(lambda r: [_vec(r, np.float32), _vec(r, np.float32), np.zeros(N, np.float32)], BLOCKS, TPB, [2],
      lambda a: [a[0] + a[1]], rtol=1e-6)
def vec_add(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


@case(lambda r: [np.zeros(N), _vec(r), _vec(r), 2.5], BLOCKS, TPB, [0], lambda a: [a[1] + a[3] * a[2]], rtol=1e-12)
def triad(a, b, c, s):
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    if i < a.shape[0]:
        a[i] = b[i] + s * c[i]


@case(lambda r: [_vec(r), np.zeros(N)], 2, 64, [1], lambda a: [a[0] * 3.0])
def grid_stride(a, out):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, a.shape[0], stride):
        out[i] = a[i] * 3.0


@case(lambda r: [np.arange(N, dtype=np.int64), np.zeros(N, np.int64)], BLOCKS, TPB, [1],
      lambda a: [a[0][::-1].copy()])
def reverse_neg_index(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[-1 - i]  # negative indices wrap as on the CPU


@case(lambda r: [np.arange(N, dtype=np.float64), np.zeros(N // 2)], BLOCKS, TPB, [1],
      lambda a: [a[0][::2].copy()])
def slice_view(a, out):
    v = a[::2]  # a view
    i = cuda.grid(1)
    if i < v.size:
        out[i] = v[i]


@case(lambda r: [_vec(r), np.zeros(N)], BLOCKS, TPB, [1], lambda a: [np.where(a[0] > 0, a[0], 0.1 * a[0])])
def leaky_relu(x, y):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        y[i] = v if v > 0 else 0.1 * v


@case(lambda r: [np.arange(N, dtype=np.int32), np.zeros(N, np.int32)], BLOCKS, TPB, [1],
      lambda a: [np.where(a[0] % 3 == 0, a[0] // 3, np.where(a[0] % 2 == 0, a[0] << 1, a[0] ^ 5))])
def int_ops(a, out):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        if x % 3 == 0:
            out[i] = x // 3
        elif x % 2 == 0:
            out[i] = x << 1
        else:
            out[i] = x ^ 5


@case(lambda r: [np.zeros(N, np.int32)], BLOCKS, TPB, [0], lambda a: [np.arange(N, dtype=np.int32) % 32])
def lane_ids(out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = cuda.laneid + 0 * cuda.warpsize


# ---- 2-D and 3-D grids -----------------------------------------------------------------

def _mat(r, m=37, n=45, dtype=np.float64):
    return r.standard_normal((m, n)).astype(dtype)


@case(lambda r: [_mat(r), np.zeros((45, 37))], (3, 3), (16, 16), [1], lambda a: [a[0].T.copy()])
def transpose2d(a, out):
    x, y = cuda.grid(2)
    if y < a.shape[0] and x < a.shape[1]:
        out[x, y] = a[y, x]


@case(lambda r: [_mat(r), _mat(r), np.zeros((37, 45))], (3, 3), (16, 16), [2], lambda a: [a[0] * a[1] + 1.0],
      rtol=1e-12)
def mul_add2d(a, b, c):
    x, y = cuda.grid(2)
    w, h = cuda.gridsize(2)
    for j in range(y, c.shape[0], h):
        for i in range(x, c.shape[1], w):
            c[j, i] = a[j, i] * b[j, i] + 1.0


@case(lambda r: [np.zeros((8, 9, 10), np.int64)], (3, 2, 2), (4, 5, 5), [0],
      lambda a: [np.fromfunction(lambda z, y, x: x + 100 * y + 10000 * z, (8, 9, 10), dtype=np.int64)])
def index3d(out):
    x, y, z = cuda.grid(3)
    if z < out.shape[0] and y < out.shape[1] and x < out.shape[2]:
        out[z, y, x] = x + 100 * y + 10000 * z


@case(lambda r: [np.zeros((4, 4, 4), np.int32)], (1, 1, 1), (4, 4, 4), [0],
      lambda a: [np.fromfunction(lambda z, y, x: (x + y + z) * 1, (4, 4, 4), dtype=np.int32)])
def thread3d(out):
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tz = cuda.threadIdx.z
    out[tz, ty, tx] = tx + ty + tz + cuda.blockIdx.x + cuda.blockIdx.y + cuda.blockIdx.z


@case(lambda r: [np.zeros((3, 3), np.int32)], (3, 3), (1, 1), [0],
      lambda a: [np.fromfunction(lambda y, x: 10 * y + x + 0 * 3, (3, 3), dtype=np.int32)])
def block_dims(out):
    bx = cuda.blockIdx.x
    by = cuda.blockIdx.y
    out[by, bx] = 10 * by + bx + 0 * (cuda.gridDim.x + cuda.gridDim.y + cuda.gridDim.z + cuda.blockDim.y +
                                       cuda.blockDim.z)


# ---- shared memory ----------------------------------------------------------------------

TILE = 16


@case(lambda r: [_mat(r, 40, 24, np.float32), _mat(r, 24, 33, np.float32), np.zeros((40, 33), np.float32)],
      (3, 3), (TILE, TILE), [2], lambda a: [a[0] @ a[1]], rtol=1e-4)
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), np.float32)
    sB = cuda.shared.array((TILE, TILE), np.float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x, y = cuda.grid(2)
    acc = np.float32(0.0)
    for t in range((A.shape[1] + TILE - 1) // TILE):
        if y < A.shape[0] and t * TILE + tx < A.shape[1]:
            sA[ty, tx] = A[y, t * TILE + tx]
        else:
            sA[ty, tx] = 0.0
        if x < B.shape[1] and t * TILE + ty < B.shape[0]:
            sB[ty, tx] = B[t * TILE + ty, x]
        else:
            sB[ty, tx] = 0.0
        cuda.syncthreads()
        for k in range(TILE):
            acc += sA[ty, k] * sB[k, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = acc


@case(lambda r: [_vec(r), np.zeros(BLOCKS)], BLOCKS, TPB, [1],
      lambda a: [np.add.reduceat(a[0], np.arange(0, N, TPB))], rtol=1e-12)
def block_sum_shared(a, out):
    s = cuda.shared.array(TPB, np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = a[i] if i < a.size else 0.0
    cuda.syncthreads()
    step = TPB // 2
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        out[cuda.blockIdx.x] = s[0]


@case(lambda r: [np.arange(N, dtype=np.float32), np.zeros(N, np.float32)], BLOCKS, TPB, [1],
      lambda a: [a[0].reshape(-1)[np.arange(N) ^ 1 if N % 2 == 0 else np.arange(N)]],
      shared=TPB * 4)
def dynamic_shared_swap(a, out):
    s = cuda.shared.array(0, np.float32)  # dynamic: sized at launch
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if i < a.size:
        s[t] = a[i]
    cuda.syncthreads()
    if i < a.size:
        out[i] = s[t ^ 1]


@case(lambda r: [_vec(r), np.zeros(N)], BLOCKS, TPB, [1],
      lambda a: [np.convolve(np.pad(a[0], 1), [1 / 3, 1 / 3, 1 / 3], "valid")], rtol=1e-12)
def stencil3_shared(a, out):
    s = cuda.shared.array(TPB + 2, np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    n = a.size
    s[t + 1] = a[i] if i < n else 0.0
    if t == 0:
        s[0] = a[i - 1] if i > 0 else 0.0
    if t == TPB - 1:
        s[TPB + 1] = a[i + 1] if i + 1 < n else 0.0
    cuda.syncthreads()
    if i < n:
        out[i] = (s[t] + s[t + 1] + s[t + 2]) / 3.0


@case(lambda r: [_mat(r, 30, 30), np.zeros((30, 30))], (2, 2), (16, 16), [1],
      lambda a: [_lap(a[0])], rtol=1e-12)
def laplace2d(u, out):
    x, y = cuda.grid(2)
    if 0 < y < u.shape[0] - 1 and 0 < x < u.shape[1] - 1:
        out[y, x] = u[y - 1, x] + u[y + 1, x] + u[y, x - 1] + u[y, x + 1] - 4.0 * u[y, x]


def _lap(u):
    out = np.zeros_like(u)
    out[1:-1, 1:-1] = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]
    return out


# ---- local and constant memory -----------------------------------------------------------

@case(lambda r: [np.arange(N, dtype=np.int64), np.zeros(N, np.int64)], BLOCKS, TPB, [1],
      lambda a: [a[0] * 10 + 45])
def local_array_sum(a, out):
    buf = cuda.local.array(10, np.int64)
    i = cuda.grid(1)
    if i < a.size:
        for k in range(10):
            buf[k] = a[i] + k
        s = 0
        for k in range(10):
            s += buf[k]
        out[i] = s


@case(lambda r: [np.zeros(N, np.float32)], BLOCKS, TPB, [0], lambda a: [np.zeros(N, np.float32) + 6.0])
def local_array_2d(out):
    m = cuda.local.array((2, 3), np.float32)
    for p in range(2):
        for q in range(3):
            m[p, q] = 1.0
    i = cuda.grid(1)
    if i < out.size:
        s = np.float32(0.0)
        for p in range(2):
            for q in range(3):
                s += m[p, q]
        out[i] = s


COEFFS = np.array([1.0, -2.0, 0.5, 4.0])


@case(lambda r: [_vec(r), np.zeros(N)], BLOCKS, TPB, [1],
      lambda a: [np.polyval(COEFFS[::-1], a[0])], rtol=1e-12)
def const_poly(x, out):
    c = cuda.const.array_like(COEFFS)
    i = cuda.grid(1)
    if i < x.size:
        acc = 0.0
        for k in range(c.size - 1, -1, -1):
            acc = acc * x[i] + c[k]
        out[i] = acc


# ---- atomics -------------------------------------------------------------------------------

@case(lambda r: [r.integers(0, 16, N).astype(np.int32), np.zeros(16, np.int32)], BLOCKS, TPB, [1],
      lambda a: [np.bincount(a[0], minlength=16).astype(np.int32)])
def histogram(data, hist):
    i = cuda.grid(1)
    if i < data.size:
        cuda.atomic.add(hist, data[i], 1)


@case(lambda r: [r.integers(0, 8, N).astype(np.int64), np.zeros(8, np.int32)], BLOCKS, TPB, [1],
      lambda a: [np.bincount(a[0], minlength=8).astype(np.int32)])
def histogram_shared(data, hist):
    h = cuda.shared.array(8, np.int32)
    t = cuda.threadIdx.x
    if t < 8:
        h[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < data.size:
        cuda.atomic.add(h, data[i], 1)
    cuda.syncthreads()
    if t < 8:
        cuda.atomic.add(hist, t, h[t])


@case(lambda r: [_vec(r), np.zeros(1)], BLOCKS, TPB, [1], lambda a: [np.array([a[0].sum()])], rtol=1e-9)
def sum_atomic_f64(a, out):
    i = cuda.grid(1)
    if i < a.size:
        cuda.atomic.add(out, 0, a[i])


@case(lambda r: [_vec(r, np.float32), np.array([-np.inf, np.inf], np.float32)], BLOCKS, TPB, [1],
      lambda a: [np.array([a[0].max(), a[0].min()], np.float32)])
def minmax_atomic_f32(a, out):
    i = cuda.grid(1)
    if i < a.size:
        cuda.atomic.max(out, 0, a[i])
        cuda.atomic.min(out, 1, a[i])


@case(lambda r: [r.integers(-1000, 1000, N).astype(np.int64), np.array([-(1 << 62), 1 << 62], np.int64)],
      BLOCKS, TPB, [1], lambda a: [np.array([a[0].max(), a[0].min()])])
def minmax_atomic_i64(a, out):
    i = cuda.grid(1)
    if i < a.size:
        cuda.atomic.max(out, 0, a[i])
        cuda.atomic.min(out, 1, a[i])


@case(lambda r: [np.zeros(4, np.uint32), np.zeros(1, np.uint64)], 4, 64, [0, 1],
      lambda a: [np.array([256 % 10, 0, 0xFF, 0], np.uint32), np.array([256], np.uint64)])
def atomic_bits_uint(u, cnt):
    cuda.atomic.inc(u, 0, np.uint32(9))      # wraps to 0 after 9: 256 % 10
    cuda.atomic.or_(u, 2, np.uint32(1) << np.uint32(cuda.threadIdx.x % 8))
    cuda.atomic.and_(u, 3, np.uint32(0))
    cuda.atomic.xor(u, 1, np.uint32(0))
    cuda.atomic.add(cnt, 0, np.uint64(1))


@case(lambda r: [np.zeros(2, np.int32), np.zeros(1, np.int32)], 1, 32, [0, 1],
      lambda a: [np.array([-32, 0], np.int32), np.array([1], np.int32)])
def atomic_sub_exch_cas(v, flag):
    cuda.atomic.sub(v, 0, 1)
    cuda.atomic.exch(v, 1, 0)
    cuda.atomic.compare_and_swap(flag, 0, 1)
    cuda.atomic.cas(flag, 0, 1, 1)


@case(lambda r: [np.zeros((2, 2), np.float32)], 1, 64, [0], lambda a: [np.array([[64, 0], [0, 32]], np.float32)])
def atomic_tuple_index(m):
    t = cuda.threadIdx.x
    cuda.atomic.add(m, (0, 0), 1.0)
    if t % 2 == 0:
        cuda.atomic.add(m, (1, 1), np.float32(1.0))


@case(lambda r: [np.array([1.0, np.nan, 3.0, -2.0]), np.array([-np.inf, np.inf])], 1, 4, [1],
      lambda a: [np.array([3.0, -2.0])])
def atomic_nanminmax(a, out):
    i = cuda.threadIdx.x
    cuda.atomic.nanmax(out, 0, a[i])
    cuda.atomic.nanmin(out, 1, a[i])


# ---- warps -------------------------------------------------------------------------------------

@case(lambda r: [_vec(r), np.zeros(1)], BLOCKS, TPB, [1], lambda a: [np.array([a[0].sum()])], rtol=1e-9)
def warp_reduce_shfl(a, out):
    i = cuda.grid(1)
    v = a[i] if i < a.size else 0.0
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
        off //= 2
    if cuda.laneid == 0:
        cuda.atomic.add(out, 0, v)


@case(lambda r: [np.arange(64, dtype=np.int32), np.zeros(64, np.int32), np.zeros(64, np.int32),
                 np.zeros(64, np.int32)], 1, 64, [1, 2, 3],
      lambda a: [(a[0] // 32) * 32, np.where(a[0] % 32 == 0, a[0], a[0] - 1), a[0] ^ 1])
def shfl_variants(a, bcast, up, xr):
    t = cuda.threadIdx.x
    v = a[t]
    bcast[t] = cuda.shfl_sync(0xFFFFFFFF, v, 0)
    up[t] = cuda.shfl_up_sync(0xFFFFFFFF, v, 1)
    xr[t] = cuda.shfl_xor_sync(0xFFFFFFFF, v, 1)


@case(lambda r: [np.arange(64, dtype=np.int64), np.zeros(64, np.int64), np.zeros(64)], 1, 64, [1, 2],
      lambda a: [(a[0] // 32) * 32 + 31, ((a[0] // 32) * 32 + 31) * 0.5])
def shfl_64bit(a, out, outf):
    t = cuda.threadIdx.x
    out[t] = cuda.shfl_sync(0xFFFFFFFF, a[t], 31)
    outf[t] = cuda.shfl_sync(0xFFFFFFFF, a[t] * 0.5, 31)


@case(lambda r: [np.arange(64, dtype=np.int32), np.zeros((64, 5), np.int32)], 1, 64, [1],
      lambda a: [np.tile(np.array([0, 1, 0, 0x55555555, 1], np.int32), (64, 1))])
def votes(a, out):
    t = cuda.threadIdx.x
    m = cuda.activemask()
    out[t, 0] = 1 if cuda.all_sync(m, a[t] % 2 == 0) else 0
    out[t, 1] = 1 if cuda.any_sync(m, a[t] % 2 == 0) else 0
    out[t, 2] = 1 if cuda.eq_sync(m, a[t]) else 0
    out[t, 3] = cuda.ballot_sync(m, a[t] % 2 == 0)
    out[t, 4] = 1 if cuda.eq_sync(m, 7) else 0
    cuda.syncwarp()


@case(lambda r: [np.zeros(64, np.uint32)], 1, 64, [0],
      lambda a: [np.array([(1 << (t % 32)) - 1 for t in range(64)], np.uint32)])
def lanemask(out):
    t = cuda.threadIdx.x
    out[t] = cuda.lanemask_lt()


@case(lambda r: [np.arange(BLOCKS * TPB, dtype=np.int32), np.zeros(3, np.int32)], BLOCKS, TPB, [1],
      lambda a: [np.array([N // 2, BLOCKS * 0, BLOCKS], np.int32)])
def syncthreads_preds(a, out):
    i = cuda.grid(1)
    c = cuda.syncthreads_count(i < N and i % 2 == 0)
    al = cuda.syncthreads_and(i >= N)
    an = cuda.syncthreads_or(i < N)
    if cuda.threadIdx.x == 0:
        cuda.atomic.add(out, 0, c)
        cuda.atomic.add(out, 1, al)
        cuda.atomic.add(out, 2, an)
    cuda.threadfence()
    cuda.threadfence_block()
    cuda.threadfence_system()


# ---- bits and math -----------------------------------------------------------------------------

@case(lambda r: [np.array([0, 1, 2, 3, 0xF0, 0x80000000, 0xFFFFFFFF, 12345], np.uint32),
                 np.zeros((8, 4), np.uint32)], 1, 8, [1],
      lambda a: [np.array([[bin(int(x)).count("1"), int(f"{int(x):032b}"[::-1], 2), 32 - int(x).bit_length(),
                            (int(x) & -int(x)).bit_length()] for x in a[0]], np.uint32)])
def bit_intrinsics(a, out):
    t = cuda.threadIdx.x
    x = a[t]
    out[t, 0] = cuda.popc(x)
    out[t, 1] = cuda.brev(x)
    out[t, 2] = cuda.clz(x)
    out[t, 3] = cuda.ffs(x)


@case(lambda r: [np.abs(_vec(r)) + 0.5, np.zeros((N, 12))], BLOCKS, TPB, [1],
      lambda a: [np.stack([np.sin(a[0]), np.cos(a[0]), np.tan(a[0]), np.exp(a[0]), np.log(a[0]), np.sqrt(a[0]),
                           np.arctan2(a[0], 2.0), np.power(a[0], 1.5), np.tanh(a[0]), np.log1p(a[0]),
                           np.hypot(a[0], 3.0), np.floor(a[0])], axis=1)], rtol=1e-12)
def math_f64(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i, 0] = math.sin(v)
        out[i, 1] = math.cos(v)
        out[i, 2] = math.tan(v)
        out[i, 3] = math.exp(v)
        out[i, 4] = math.log(v)
        out[i, 5] = math.sqrt(v)
        out[i, 6] = math.atan2(v, 2.0)
        out[i, 7] = math.pow(v, 1.5)
        out[i, 8] = math.tanh(v)
        out[i, 9] = math.log1p(v)
        out[i, 10] = math.hypot(v, 3.0)
        out[i, 11] = math.floor(v)


@case(lambda r: [(np.abs(_vec(r)) + 0.5).astype(np.float32), np.zeros((N, 8), np.float32)], BLOCKS, TPB, [1],
      lambda a: [np.stack([np.sin(a[0]), np.exp(a[0]), np.log2(a[0]), np.log10(a[0]), np.cbrt(a[0]),
                           a[0] * 2.0 + 1.0, np.arcsin(a[0] / 10), np.cosh(a[0] / 4)], axis=1)], rtol=1e-5)
def math_f32(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i, 0] = math.sin(v)
        out[i, 1] = math.exp(v)
        out[i, 2] = math.log2(v)
        out[i, 3] = math.log10(v)
        out[i, 4] = cuda.cbrt(v)
        out[i, 5] = cuda.fma(v, np.float32(2.0), np.float32(1.0))
        out[i, 6] = math.asin(v / np.float32(10.0))
        out[i, 7] = math.cosh(v / np.float32(4.0))


@case(lambda r: [_vec(r), np.zeros(N)], BLOCKS, TPB, [1],
      lambda a: [np.where(np.isfinite(a[0]), np.erf(a[0]) if hasattr(np, "erf") else _erf(a[0]), 0.0)],
      rtol=1e-12)
def math_special(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i] = math.erf(v) if math.isfinite(v) else 0.0


def _erf(x):
    return np.array([math.erf(v) for v in x])


# ---- complex ----------------------------------------------------------------------------------------

@case(lambda r: [(_vec(r) + 1j * _vec(r)), (_vec(r) + 1j * _vec(r)), np.zeros(N, np.complex128)],
      BLOCKS, TPB, [2], lambda a: [a[0] * a[1] + a[0].conjugate() - 2.0 * a[1]], rtol=1e-12)
def complex_arith(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] * b[i] + a[i].conjugate() - 2.0 * b[i]


@case(lambda r: [(_vec(r) + 1j * _vec(r)).astype(np.complex64), np.zeros((N, 3), np.float32)],
      BLOCKS, TPB, [1], lambda a: [np.stack([np.abs(a[0]), a[0].real, a[0].imag], axis=1)], rtol=1e-5)
def complex_parts(z, out):
    i = cuda.grid(1)
    if i < z.size:
        out[i, 0] = abs(z[i])
        out[i, 1] = z[i].real
        out[i, 2] = z[i].imag


@case(lambda r: [np.zeros(N, np.complex128), 0.5 + 0.25j], BLOCKS, TPB, [0],
      lambda a: [np.full(N, (0.5 + 0.25j) ** 2 + 1)], rtol=1e-12)
def complex_scalar_arg(out, z):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = z * z + 1


# ---- device functions ----------------------------------------------------------------------------------

@cuda.compiler.DeviceFunction
def clamp(x, lo, hi):
    return min(max(x, lo), hi)


@cuda.compiler.DeviceFunction
def smooth(x):
    return clamp(x * x * (3.0 - 2.0 * x), 0.0, 1.0)  # a device function calling another


@case(lambda r: [r.random(N) * 1.4 - 0.2, np.zeros(N)], BLOCKS, TPB, [1],
      lambda a: [np.clip(a[0] * a[0] * (3.0 - 2.0 * a[0]), 0.0, 1.0)], rtol=1e-12)
def device_calls(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = smooth(x[i])


@cuda.compiler.DeviceFunction
def warp_sum(v):
    off = 16
    while off > 0:
        v += cuda.shfl_xor_sync(0xFFFFFFFF, v, off)
        off //= 2
    return v


@case(lambda r: [np.arange(64, dtype=np.float32), np.zeros(64, np.float32)], 1, 64, [1],
      lambda a: [np.repeat([a[0][:32].sum(), a[0][32:].sum()], 32).astype(np.float32)], rtol=1e-6)
def device_warp_sum(a, out):
    t = cuda.threadIdx.x
    out[t] = warp_sum(a[t])


@case(lambda r: [np.arange(10, dtype=np.int64), np.zeros(1, np.int64), (3, 4)], 1, 1, [1],
      lambda a: [np.array([a[0][3] * a[0][4]])])
def tuple_arg(a, out, ij):
    i, j = ij
    out[0] = a[i] * a[j]


@case(lambda r: [np.arange(N, dtype=np.float64), np.zeros(N), True], BLOCKS, TPB, [1],
      lambda a: [np.arange(N) * 2.0])
def bool_arg_loop(a, out, double):
    i = cuda.grid(1)
    if i < a.size:
        acc = 0.0
        for k in range(2 if double else 1):
            acc += a[i]
        out[i] = acc


@case(lambda r: [np.asfortranarray(_mat(r, 20, 30)), np.zeros((20, 30))], (2, 2), (16, 16), [1],
      lambda a: [np.ascontiguousarray(a[0]) * 2])
def fortran_layout(a, out):
    x, y = cuda.grid(2)
    if y < a.shape[0] and x < a.shape[1]:
        out[y, x] = a[y, x] * 2


@case(lambda r: [r.random(4 * 32), np.zeros(4 * 32), np.zeros(4 * 32)], 4, 32, [1, 2],
      lambda a: [a[0][::-1] * 2, a[0][::-1] * 2 + a[0] * 2])
def grid_sync(x, y, out):
    """Each phase reads what other blocks wrote in the phase before:
    cg.this_grid().sync() (a cooperative launch) between them."""
    i = cuda.grid(1)
    n = x.size
    g = cuda.cg.this_grid()
    out[i] = x[i] * 2
    g.sync()
    y[i] = out[n - 1 - i]
    g.sync()
    out[i] = y[i] + y[n - 1 - i]
    cuda.cg.this_grid().sync()


def _cplx(r, n, dtype):
    return ((r.random(n) - 0.5) * 4 + 1j * (r.random(n) - 0.5) * 4).astype(dtype)


@case(lambda r: [_cplx(r, N, np.complex128), np.zeros(N, np.complex128)], BLOCKS, TPB, [1],
      lambda a: [np.exp(a[0]) + np.sqrt(a[0]) * np.log(a[0]) - np.arctanh(a[0] / 3) + np.sin(a[0])
                 + np.arccos(a[0]) * np.tanh(a[0]) + np.log10(a[0]) / np.cosh(a[0])], rtol=1e-12)
def complex_math(z, out):
    """cmath in kernels: the device library lib/cuda/devlib/cmath.c."""
    i = cuda.grid(1)
    if i < z.size:
        w = z[i]
        out[i] = (cmath.exp(w) + cmath.sqrt(w) * cmath.log(w) - cmath.atanh(w / 3) + cmath.sin(w)
                  + cmath.acos(w) * cmath.tanh(w) + cmath.log10(w) / cmath.cosh(w))


@case(lambda r: [_cplx(r, N, np.complex64), np.zeros(N, np.complex64)], BLOCKS, TPB, [1],
      lambda a: [np.exp(a[0]) * np.asinh(a[0]) + np.tan(a[0]) + np.arctan(a[0])], rtol=2e-5)
def complex64_math(z, out):
    i = cuda.grid(1)
    if i < z.size:
        out[i] = np.exp(z[i]) * np.arcsinh(z[i]) + np.tan(z[i]) + np.arctan(z[i])


def _rng_reference(a):
    """The same draws by the device functions run in CPython."""
    st, out = a[0].copy(), np.zeros_like(a[1])
    for i in range(out.shape[0]):
        for _ in range(4):
            out[i, 0] += cuda_random.xoroshiro128p_uniform_float64(st, i)
        out[i, 1] = cuda_random.xoroshiro128p_normal_float32(st, i)
    return [st, out]


@case(lambda r: [cuda_random._host_init(256, 7, 0), np.zeros((256, 2))], 2, 128, [0, 1],
      _rng_reference, rtol=1e-5)
def xoroshiro_draws(states, out):
    """hpcjit.cuda.random: one xoroshiro128+ generator per thread."""
    i = cuda.grid(1)
    if i < out.shape[0]:
        acc = 0.0
        for _ in range(4):
            acc += cuda_random.xoroshiro128p_uniform_float64(states, i)
        out[i, 0] = acc
        out[i, 1] = cuda_random.xoroshiro128p_normal_float32(states, i)


# ---- float16 (cc 5.3+: LLVM half, add.rn.f16 & co; the references round every step in NumPy's float16) ----

NH = 256
H = np.float16


def _half(rng, lo=0.25, hi=4.0, n=NH):
    return rng.uniform(lo, hi, n).astype(H)


@case(lambda r: [_half(r), _half(r), H(0.3), np.zeros(NH, H), np.zeros(NH, np.bool_)], 2, 128, [3, 4],
      lambda a: [np.where(a[0] < a[1], (a[0] * a[1] + a[2]) - (-a[0] / a[1]), a[0] - a[1]),
                 (a[0] >= a[1]) | (a[0] == a[2])], cc_min=(5, 3))
def fp16_arith(x, y, s, out, flags):
    i = cuda.grid(1)
    if i < out.size:
        a = x[i]
        b = y[i]
        if a < b:
            out[i] = (a * b + s) - (-a / b)
        else:
            out[i] = a - b
        flags[i] = a >= b or a == s


@case(lambda r: [_half(r), r.standard_normal(NH).astype(np.float32), r.integers(-50, 50, NH),
                 r.integers(-9, 9, NH).astype(np.int8), np.zeros(NH, np.float32), np.zeros(NH),
                 np.zeros(NH, H)], 2, 128, [4, 5, 6],
      lambda a: [a[0].astype(np.float32) + a[1], a[0].astype(np.float64) + a[2], a[0] * a[3]], cc_min=(5, 3))
def fp16_mixed(h, f, n, k, out32, out64, out16):
    """float16 with float32 is float32, with int64 float64, with int8 float16 (NumPy's rules, numba-cuda's)."""
    i = cuda.grid(1)
    if i < h.size:
        out32[i] = h[i] + f[i]
        out64[i] = h[i] + n[i]
        out16[i] = h[i] * k[i]


def _f32(fn, x):
    return fn(x.astype(np.float32)).astype(H)


@case(lambda r: [_half(r), np.zeros((8, NH), H)], 2, 128, [1],
      lambda a: [np.stack([_f32(np.sin, a[0]), _f32(np.cos, a[0]), _f32(np.exp, a[0]), _f32(np.log, a[0]),
                           _f32(np.sqrt, a[0]), np.floor(a[0]), np.abs(-a[0]), _f32(np.tanh, a[0])])],
      rtol=2e-3, cc_min=(5, 3))
def fp16_math(x, out):
    """math.* on float16: numba-cuda's float16 set stays float16 (floor too); tanh goes through float32."""
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[0, i] = math.sin(v)
        out[1, i] = math.cos(v)
        out[2, i] = math.exp(v)
        out[3, i] = math.log(v)
        out[4, i] = math.sqrt(v)
        out[5, i] = math.floor(v)
        out[6, i] = abs(-v)
        out[7, i] = math.tanh(v)


def _fp16_exact_ref(a):
    x, y, z = a[0], a[1], a[2]
    with np.errstate(all="ignore"):
        fma = (x.astype(np.float64) * y.astype(np.float64) + z.astype(np.float64)).astype(H)
        vals = [x + y, x - y, x * y, x / y, np.fmax(x, y), np.fmin(x, y), fma, -x, np.abs(-x),
                np.floor(x), np.ceil(x), np.rint(x), np.trunc(x), _f32(np.sqrt, x), H(1) / x]
    cmps = [x == y, (x != y) & ~np.isnan(x) & ~np.isnan(y), x > y, x >= y, x < y, x <= y]
    return [np.stack(vals), np.stack(cmps)]


def _fp16_operands(r):
    x, y = _half(r, -3.0, 3.0), _half(r, 0.5, 3.0)
    y[:16] = x[:16]            # equal operands for heq/hne
    x[16:20] = H(np.nan)       # ordered comparisons, hmax/hmin take the other operand
    return [x, y, _half(r), np.zeros((15, NH), H), np.zeros((6, NH), np.bool_)]


@case(_fp16_operands, 2, 128, [3, 4], _fp16_exact_ref, cc_min=(5, 3))
def fp16_intrinsics(x, y, z, out, cmp):
    """cuda.fp16's correctly rounded operations and comparisons (exact)."""
    i = cuda.grid(1)
    if i < x.size:
        a, b, c = x[i], y[i], z[i]
        out[0, i] = cuda.fp16.hadd(a, b)
        out[1, i] = cuda.fp16.hsub(a, b)
        out[2, i] = cuda.fp16.hmul(a, b)
        out[3, i] = cuda.fp16.hdiv(a, b)
        out[4, i] = cuda.fp16.hmax(a, b)
        out[5, i] = cuda.fp16.hmin(a, b)
        out[6, i] = cuda.fp16.hfma(a, b, c)
        out[7, i] = cuda.fp16.hneg(a)
        out[8, i] = cuda.fp16.habs(cuda.fp16.hneg(a))
        out[9, i] = cuda.fp16.hfloor(a)
        out[10, i] = cuda.fp16.hceil(a)
        out[11, i] = cuda.fp16.hrint(a)
        out[12, i] = cuda.fp16.htrunc(a)
        out[13, i] = cuda.fp16.hsqrt(a)
        out[14, i] = cuda.fp16.hrcp(a)
        cmp[0, i] = cuda.fp16.heq(a, b)
        cmp[1, i] = cuda.fp16.hne(a, b)
        cmp[2, i] = cuda.fp16.hgt(a, b)
        cmp[3, i] = cuda.fp16.hge(a, b)
        cmp[4, i] = cuda.fp16.hlt(a, b)
        cmp[5, i] = cuda.fp16.hle(a, b)


@case(lambda r: [_half(r, 0.5, 2.0), np.zeros((9, NH), H)], 2, 128, [1],
      lambda a: [np.stack([_f32(f, a[0]) for f in (np.sin, np.cos, np.log, np.log10, np.log2, np.exp,
                                                   lambda v: np.float32(10) ** v, np.exp2,
                                                   lambda v: 1 / np.sqrt(v))])],
      rtol=2e-3, cc_min=(5, 3))
def fp16_transcendental(x, out):
    """cuda.fp16's functions computed in float32 and rounded (within a float16 ulp)."""
    i = cuda.grid(1)
    if i < x.size:
        a = x[i]
        out[0, i] = cuda.fp16.hsin(a)
        out[1, i] = cuda.fp16.hcos(a)
        out[2, i] = cuda.fp16.hlog(a)
        out[3, i] = cuda.fp16.hlog10(a)
        out[4, i] = cuda.fp16.hlog2(a)
        out[5, i] = cuda.fp16.hexp(a)
        out[6, i] = cuda.fp16.hexp10(a)
        out[7, i] = cuda.fp16.hexp2(a)
        out[8, i] = cuda.fp16.hrsqrt(a)


@case(lambda r: [_half(r), H(1.5), np.zeros(NH, H)], 2, 128, [2],
      lambda a: [np.concatenate([a[0][:128][::-1], a[0][128:][::-1]]) * a[1] + (a[0] * a[0])],
      cc_min=(5, 3))
def fp16_shared_local(x, s, out):
    """float16 in shared and local arrays, a float16 scalar parameter."""
    sh = cuda.shared.array(128, np.float16)
    loc = cuda.local.array(2, np.float16)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[t] = x[i]
    loc[0] = x[i] * x[i]
    loc[1] = np.float16(s)
    cuda.syncthreads()
    out[i] = sh[127 - t] * loc[1] + loc[0]


# ---- debug: bounds checks and raise (the kernels record __hpcjit_error) ------------------------------

def debug_index_oob(a):
    i = cuda.grid(1)
    a[i + a.size] = 1.0  # out of bounds: IndexError with debug=True


def debug_raise(a):
    i = cuda.grid(1)
    if a[i] < 0:
        raise ValueError("negative")
    a[i] = math.sqrt(a[i])


DEBUG_KERNELS = [debug_index_oob, debug_raise]
