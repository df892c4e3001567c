"""Bytes buffers in compiled code: a.tobytes() (a new bytes object of the
elements in C order, whatever the layout), np.frombuffer(buffer, dtype,
count, offset) over bytes (a read-only result, as NumPy and Numba),
bytearray (writable, sharing the buffer) and contiguous arrays, and bytes
and bytearray arguments themselves (uint8 buffers: len, indexing,
iteration; returned as the same object).  Each compiled function is
compared with NumPy (py_func); errors are NumPy's (ValueError) or located
TypingErrors."""
import os

import numpy as np
import pytest

import hpcjit
from conftest import assert_located_in, AGAINST_NUMBA, check, make_array

LAYOUTS = ["C", "strided"] if AGAINST_NUMBA else ["C", "F", "strided", "reversed"]
DTYPES = [np.int8, np.uint16, np.int32, np.int64, np.float32, np.float64, np.complex64, np.complex128, np.bool_]

def assert_located(exc, marker):
    assert_located_in(os.path.abspath(__file__), exc, marker)


# ---- a.tobytes() ---------------------------------------------------------------

@hpcjit.njit
def tobytes(a):
    return a.tobytes()


@hpcjit.njit
def tobytes_len(a):
    b = a.tobytes()
    s = 0
    for x in b:
        s += x
    return len(b), s, b[len(b) - 1] if len(b) else -1


@hpcjit.njit
def tobytes_then_write(a):
    b = a.tobytes()
    a[...] = 0  # the bytes are a copy
    return b


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_tobytes_layouts(dtype, layout):
    a = make_array(dtype, (3, 4), layout)
    got = check(tobytes, a)
    assert type(got) is bytes and got == a.tobytes()
    check(tobytes_len, a)


@pytest.mark.parametrize("shape", [0, (0, 3), (), 1, (2, 3, 2)])
def test_tobytes_shapes(shape):
    a = make_array(np.float64, shape) if shape != () else np.array(2.5)
    check(tobytes, a)
    check(tobytes_len, a)


def test_tobytes_is_a_copy():
    a = np.arange(4, dtype=np.int32)
    check(tobytes_then_write, a)


def test_tobytes_readonly_and_transposed():
    a = np.arange(6.0).reshape(2, 3)
    a.flags.writeable = False
    check(tobytes, a)
    check(tobytes, np.arange(6, dtype=np.int16).reshape(2, 3).T)


# ---- np.frombuffer -------------------------------------------------------------

@hpcjit.njit
def fb_default(b):
    return np.frombuffer(b)


@hpcjit.njit
def fb_dtype(b, dt):
    return np.frombuffer(b, dtype=dt)


@hpcjit.njit
def fb_u8(b):
    return np.frombuffer(b, np.uint8)


@hpcjit.njit
def fb_i16_count(b, count):
    return np.frombuffer(b, np.int16, count)


@hpcjit.njit
def fb_u8_full(b, count, offset):
    return np.frombuffer(b, np.uint8, count, offset)


@hpcjit.njit
def fb_i32_kw(b, offset):
    return np.frombuffer(b, dtype=np.int32, offset=offset)


@hpcjit.njit
def fb_str_dtype(b):
    return np.frombuffer(b, "float32")


@hpcjit.njit
def fb_roundtrip(a):
    return np.frombuffer(a.tobytes(), a.dtype)


@hpcjit.njit
def fb_write(b):
    r = np.frombuffer(b, np.uint8)
    r[0] = 7
    return r


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.float32, np.float64, np.complex128])
def test_frombuffer_bytes(dtype):
    raw = np.arange(8, dtype=np.float64).tobytes()
    got = check(fb_dtype, raw, dtype)
    assert not got.flags.writeable  # bytes are immutable: a read-only view, as NumPy
    got = check(fb_dtype, bytearray(raw), dtype)
    assert got.flags.writeable


def test_frombuffer_default_dtype_and_forms():
    raw = np.arange(4.0).tobytes()
    check(fb_default, raw)
    check(fb_str_dtype, raw)
    check(fb_u8, b"abc")
    check(fb_u8, b"")
    check(fb_i16_count, raw, 3)
    check(fb_i16_count, raw, 0)
    check(fb_i16_count, raw, -1)
    for count, offset in [(-1, 0), (2, 1), (0, 3), (-1, 3), (1, 2)]:
        check(fb_u8_full, b"abc", count, offset)
    check(fb_i32_kw, raw, 8)


@pytest.mark.parametrize("dtype", DTYPES)
def test_frombuffer_roundtrip(dtype):
    a = make_array(dtype, (2, 3), "strided")
    check(fb_roundtrip, a)


def test_frombuffer_array_buffer():
    # a contiguous array's bytes, any ndim; writable when the array is
    got = check(fb_u8, np.arange(6, dtype=np.int32).reshape(2, 3))
    assert got.flags.writeable
    ro = np.arange(3.0)
    ro.flags.writeable = False
    check(fb_u8, ro)
    assert not fb_u8(ro).flags.writeable  # check() passes writable copies
    check(fb_dtype, np.arange(4, dtype=np.int64), np.float64)


def test_frombuffer_shares_the_buffer():
    ba = bytearray(b"abc")
    r = fb_write(ba)
    assert ba == bytearray(b"\x07bc") and r.base is ba and r.flags.writeable
    a = np.arange(3, dtype=np.uint8)
    check(fb_write, a)  # the argument array is written through the view


def test_frombuffer_errors():
    raw = np.arange(4.0).tobytes()
    for args in [(b"abc", np.int16), (b"abcd", np.float64)]:
        e = check(fb_dtype, *args)
        assert isinstance(e, ValueError) and "multiple of element size" in str(e)
    e = check(fb_i16_count, raw, 17)
    assert isinstance(e, ValueError) and "smaller than requested size" in str(e)
    for offset in [-1, 4]:
        e = check(fb_u8_full, b"abc", -1, offset)
        assert isinstance(e, ValueError) and "offset must be non-negative" in str(e)
    # NumPy makes an unaligned array: hpcjit refuses (items load at their alignment)
    with pytest.raises(ValueError, match="aligned"):
        fb_i32_kw(raw[:31], 3)


@hpcjit.njit
def fb_strided(a):
    return np.frombuffer(a[::2], np.uint8)  # FB_STRIDED


@hpcjit.njit
def fb_number(x):
    return np.frombuffer(x, np.uint8)  # FB_NUMBER


@hpcjit.njit
def fb_bad_count(b):
    return np.frombuffer(b, np.uint8, 1.5)  # FB_COUNT


def test_frombuffer_typing_errors():
    with pytest.raises(hpcjit.TypingError, match="buffer-like") as ei:
        fb_strided(np.arange(6, dtype=np.uint8))
    assert_located(ei.value, "FB_STRIDED")
    with pytest.raises(hpcjit.TypingError, match="buffer-like") as ei:
        fb_number(3)
    assert_located(ei.value, "FB_NUMBER")
    with pytest.raises(hpcjit.TypingError, match="count must be an integer") as ei:
        fb_bad_count(b"abc")
    assert_located(ei.value, "FB_COUNT")


# ---- bytes and bytearray arguments ------------------------------------------------

@hpcjit.njit
def ident(b):
    return b


@hpcjit.njit
def summary(b):
    s = 0
    for x in b:
        s += x
    return len(b), s, b[0], b[-1]


@hpcjit.njit
def set_first(b, v):
    b[0] = v


@hpcjit.njit
def store_into_bytes(b):
    b[0] = 65  # STORE_BYTES


def test_bytes_arguments():
    assert ident(b"abc") == b"abc" and type(ident(b"abc")) is bytes
    ba = bytearray(b"xyz")
    assert ident(ba) is ba
    b = b"hello"
    assert ident(b) is b
    check(summary, b"hello")
    check(summary, bytearray(b"\x00\xff\x10"))
    check(set_first, bytearray(b"abc"), 66)
    with pytest.raises(hpcjit.TypingError, match="readonly") as ei:
        store_into_bytes(b"abc")
    assert_located(ei.value, "STORE_BYTES")


def test_bytes_types():
    assert str(hpcjit.typeof(b"ab")) == "readonly bytes(uint8, 1d, C)"
    assert str(hpcjit.typeof(bytearray(b"ab"))) == "bytearray(uint8, 1d, C)"


@hpcjit.njit
def bytes_eq(a, b):
    return a == b  # BYTES_EQ


@hpcjit.njit
def bytes_cat(a, b):
    return a + b  # BYTES_CAT


@hpcjit.njit
def bytes_neg(a):
    return -a  # BYTES_NEG


@hpcjit.njit
def tobytes_eq(a):
    return a.tobytes() != a.tobytes()  # TOBYTES_NE


@hpcjit.njit
def bytearray_iadd(a):
    a += a  # BYTEARRAY_IADD


@pytest.mark.numba_skip(reason="Numba compares bytes elementwise")
def test_bytes_equality():
    # == and != of bytes are Python's: the same length and bytes
    for a, b in ((b"ab", b"ab"), (b"ab", b"ac"), (b"", b""), (b"abc", b"ab")):
        check(bytes_eq, a, b)
    check(tobytes_eq, np.arange(3))


@hpcjit.njit
def bytes_literals(b):
    total = 0
    for x in b"abc":
        total += x
    return (len(b), b[1:4] == b"ell", b"xy" == b"xy", len(b""), b[::2] == b"hlobts", b"ab", b[1:4],
            b[2:] != b, total)


@pytest.mark.numba_skip(reason="Numba compares bytes elementwise")
def test_bytes_literals_and_slices():
    check(bytes_literals, b"hello bytes")
    check(bytes_literals, b"")


def test_bytes_operators_refused():
    # Python's bytes operators compare and concatenate; elementwise uint8
    # arithmetic would be silently wrong, so they are refused (as by Numba)
    for f, args, marker in [(bytes_cat, (b"ab", b"cd"), "BYTES_CAT"), (bytes_neg, (b"ab",), "BYTES_NEG"),
                            (bytearray_iadd, (bytearray(b"ab"),), "BYTEARRAY_IADD")]:
        with pytest.raises(hpcjit.UnsupportedError, match="operators on") as ei:
            f(*args)
        assert_located(ei.value, marker)
