"""NumPy structured dtypes (record arrays) as Numba 0.68 supports them: record
arrays of any ndim/layout as arguments, record scalars (arr[i], np.void /
np.record arguments, writes seen by the caller), fields by attribute,
constant name (a literal, a constant tuple's element, literal_unroll) and
position, field stores, arr.f views, np.empty/np.zeros of a global
structured dtype, nested records and subarray fields.  Each compiled
function is compared with its py_func run on fresh copies of the inputs."""
import numpy as np
import pytest

import hpcjit
from hpcjit import literal_unroll, njit

NUMBA = getattr(hpcjit, "__hpcjit_numba_shim__", False)

DT = np.dtype([("a1", "f8"), ("a2", "i4")])
DTA = np.dtype([("x", "i4"), ("y", "f8"), ("b", "?"), ("c", "c8")], align=True)
DTN = np.dtype([("x", "i4"), ("n", [("p", "f4"), ("q", "i2")]), ("z", "f8")])
DTS = np.dtype([("x", "i4"), ("v", "f8", (3,)), ("m", "i2", (2, 2))])
FIELDS = ("a1", "a2")


def make(n=5, dtype=DT, rec=False):
    """A fresh record array with distinct values (a recarray when rec: its
    items are np.record, whose fields CPython reads as attributes)."""
    a = np.zeros(n, dtype)
    for k, name in enumerate(dtype.names):
        fdt = dtype.fields[name][0]
        if fdt.names is None and fdt.subdtype is None:
            vals = np.arange(n) * (k + 1) + 0.5 * (fdt.kind in "fc")
            a[name] = vals if fdt.kind != "b" else vals.astype(int) % 2 == 1
    return a.view(np.recarray) if rec else a


def plain(x):
    """A record or record array as comparable Python data."""
    if isinstance(x, np.ndarray):
        return np.asarray(x).tolist()
    if isinstance(x, np.void):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, tuple):
        return tuple(plain(e) for e in x)
    return x


def same_records(x, y):
    """Two record arrays hold the same values, field by field (nested
    records and subarray fields included; padding bytes ignored)."""
    assert x.dtype == y.dtype and x.shape == y.shape
    if x.dtype.names is None:
        np.testing.assert_array_equal(x, y)
        return
    for name in x.dtype.names:
        same_records(np.asarray(x[name]), np.asarray(y[name]))


def both(f, build):
    """Run f and f.py_func on fresh inputs from build() -> (args, arrays):
    compare the results and the arrays (the memory the inputs view) after
    the calls.  Returns the compiled result."""
    a_jit, m_jit = build()
    a_py, m_py = build()
    got = f(*a_jit)
    exp = f.py_func(*a_py)
    assert type(plain(got)) is type(plain(exp))
    if isinstance(exp, np.ndarray):
        assert got.dtype == exp.dtype and got.shape == exp.shape
    assert plain(got) == plain(exp), f"{got!r} != {exp!r}"
    for mj, mp in zip(m_jit, m_py):
        same_records(mj, mp)
    return got


# ---- types -------------------------------------------------------------------


def test_typeof_names_like_numba():
    a = make()
    assert str(hpcjit.typeof(a)) == (
        "unaligned array(Record(a1[type=float64;offset=0],a2[type=int32;offset=8];12;False), 1d, C)")
    assert str(hpcjit.typeof(a[0])) == "Record(a1[type=float64;offset=0],a2[type=int32;offset=8];12;False)"
    assert isinstance(hpcjit.typeof(a[0]), hpcjit.types.Record)
    assert str(hpcjit.typeof(np.zeros(2, DTA))) == (
        "array(Record(x[type=int32;offset=0],y[type=float64;offset=8],b[type=bool;offset=16],"
        "c[type=complex64;offset=20];32;True), 1d, C)")
    assert str(hpcjit.typeof(np.zeros((2, 3), DTN, order="F")[0, 0])) == (
        "Record(x[type=int32;offset=0],n[type=Record(p[type=float32;offset=0],q[type=int16;offset=4];6;False);"
        "offset=4],z[type=float64;offset=10];18;False)")
    assert str(hpcjit.typeof(np.zeros(2, DTS)[0])) == (
        "Record(x[type=int32;offset=0],v[type=nestedarray(float64, (3,));offset=4],"
        "m[type=nestedarray(int16, (2, 2));offset=28];36;False)")
    ro = make()
    ro.flags.writeable = False
    assert str(hpcjit.typeof(ro)).startswith("unaligned readonly array(Record(a1[")
    # a recarray and its items are typed as the plain structured dtype
    assert hpcjit.typeof(make(rec=True)) == hpcjit.typeof(make())


def test_from_dtype():
    if NUMBA:
        from numba.np.numpy_support import from_dtype
    else:
        from hpcjit.numpy_support import from_dtype
    t = from_dtype(DT)
    assert isinstance(t, hpcjit.types.Record)
    assert t == hpcjit.typeof(make()[0])
    assert str(t) == "Record(a1[type=float64;offset=0],a2[type=int32;offset=8];12;False)"


# ---- reading fields --------------------------------------------------------------


@njit
def read_attr(a, i):
    return a[i].a1 * 2 + a[i].a2


@njit
def read_name(a, i):
    return a[i]["a1"] - a[i]["a2"]


@njit
def read_rec(r):
    return r["a1"], r["a2"], r[0], r[1], r[-1]


@pytest.mark.parametrize("i", [0, 3, -1])
def test_read_fields(i):
    both(read_attr, lambda: ((make(rec=True), i), ()))
    both(read_name, lambda: ((make(), i), ()))


def test_record_argument():
    def build():
        a = make()
        return (a[2],), (a,)
    assert both(read_rec, build) == (2.5, 4, 2.5, 4, 4)


def test_record_from_recarray_attributes():
    @njit
    def f(r):
        return r.a1 + r.a2

    both(f, lambda: ((make(rec=True)[3],), ()))


# ---- constant field names (numba/tests/doc_examples/test_rec_array.py) ----------


@njit
def const_index(rec):
    fields_lc = ("a1", "a2")
    field_name1 = fields_lc[0]
    field_name2 = FIELDS[1]
    return rec[field_name1] + rec[field_name2]


@njit
def unrolled(rec):
    out = 0.0
    for f in literal_unroll(FIELDS):
        out += rec[f]
    return out


@njit
def unrolled_store(a):
    for i in range(len(a)):
        for f in literal_unroll(FIELDS):
            a[i][f] = a[i][f] + i


def test_constant_names():
    both(const_index, lambda: ((make()[1],), ()))
    both(unrolled, lambda: ((make()[4],), ()))

    def build():
        a = make()
        return (a,), (a,)
    both(unrolled_store, build)


# ---- writing fields --------------------------------------------------------------


@njit
def write_through_record(r, v):
    r["a1"] = v
    r["a2"] = 7


@njit
def write_attr(a):
    for i in range(len(a)):
        a[i].a1 = i * 10.0
        a[i].a2 = -i


@njit
def write_name(a):
    for i in range(a.shape[0]):
        a[i]["a1"] = 1.5 * i
        a[i]["a2"] += 3
        a[i].a1 *= 2.0


def test_writes_seen_by_caller():
    def build():
        a = make()
        return (a[1], 9.25), (a,)
    both(write_through_record, build)

    def build_rec():
        a = make(rec=True)
        return (a,), (a,)
    both(write_attr, build_rec)
    both(write_name, build_rec)


@njit
def copy_records(a):
    a[0] = a[3]
    a[1] = a[-1]


def test_record_assignment_copies_bytes():
    def build():
        a = make()
        return (a,), (a,)
    both(copy_records, build)


# ---- arrays of records -------------------------------------------------------------


@njit
def iterate(a):
    s = 0.0
    for r in a:
        s += r["a1"] * r["a2"]
    return s, len(a)


@njit
def two_d(a):
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            s += a[i, j]["y"] * (j + 1) + a[i, j]["x"]
    return s, a.shape, a.size, a.ndim, a.itemsize


@pytest.mark.parametrize("order", ["C", "F", "strided"])
def test_layouts(order):
    def build():
        a = make(12, DTA).reshape(3, 4)
        a = np.asfortranarray(a) if order == "F" else a[:, ::2] if order == "strided" else a
        return (a,), (a,)
    both(two_d, build)
    both(iterate, lambda: ((make(9)[::3],), ()))


@njit
def slice_records(a):
    b = a[1:4]
    b[0]["a2"] = 100
    return b, a[::2]


def test_slices_and_returned_arrays():
    def build():
        a = make()
        return (a,), (a,)
    b, c = both(slice_records, build)
    assert b.dtype == DT and c.dtype == DT


@njit
def return_record(a, i):
    return a[i]


def test_return_record_is_a_copy():
    a = make(rec=True)
    got = both(return_record, lambda: ((make(rec=True), 2), ()))
    assert isinstance(got, np.record)
    r = return_record(a, 2)
    r["a1"] = -1.0
    assert a[2]["a1"] == 2.5  # the caller's array is unchanged


@njit
def field_views(a):
    x = a.a1
    y = a["a2"]
    y[0] = 42
    x[1] = -1.0
    return x.sum() + y.sum(), x


def test_field_views():
    def build():
        a = make(6, rec=True)
        return (a,), (a,)
    got = both(field_views, build)
    assert not got[1].flags.c_contiguous


# ---- creation -------------------------------------------------------------------


@njit
def create(n):
    a = np.empty(n, dtype=DT)
    for i in range(n):
        a[i]["a1"] = i / 2
        a[i]["a2"] = i * i
    return a


@njit
def create_zeros(n):
    a = np.zeros((n, 2), DTA)
    a[1, 1]["y"] = 3.5
    return a


def test_empty_and_zeros():
    got = both(create, lambda: ((5,), ()))
    assert got.dtype == DT
    both(create_zeros, lambda: ((3,), ()))


@njit
def create_ones(n):
    return np.ones(n, DT)


@pytest.mark.numba_skip("Numba's np.ones of a structured dtype fails differently (no implementation)")
def test_ones_refused():
    with pytest.raises(hpcjit.TypingError, match="structured dtype"):
        create_ones(3)


# ---- field kinds -------------------------------------------------------------------


@njit
def mixed_fields(a):
    a[0]["b"] = True
    a[0]["c"] = 1 + 2j
    a[0]["x"] = 7
    return a[0]["y"] + a[0]["x"], a[0]["b"], a[1]["c"]


def test_bool_complex_aligned():
    def build():
        a = make(3, DTA)
        return (a,), (a,)
    both(mixed_fields, build)


@njit
def nested(a):
    a[0]["n"]["p"] = 2.5
    a[1]["n"]["q"] = 3
    a[2]["n"] = a[1]["n"]
    return a[0]["n"]["q"] + a[0]["n"]["p"] + a[2]["z"]


@njit
def subarrays(a):
    a[1]["v"][1] = 3.0
    a[1]["m"][1, 0] = 4
    a[0]["v"][:] = 1.5
    return a[1]["v"].sum() + a[0]["v"][2], a[1]["m"].sum(), a[1]["v"].shape


def test_nested_and_subarray_fields():
    def build_n():
        a = make(3, DTN)
        return (a,), (a,)
    both(nested, build_n)

    def build_s():
        a = make(3, DTS)
        return (a,), (a,)
    both(subarrays, build_s)


@njit
def callee(r):
    return r["a1"] * 3


@njit
def caller(a):
    return callee(a[1]) + callee(a[4])


def test_records_between_jitted_functions():
    both(caller, lambda: ((make(),), ()))


def test_dispatch_by_dtype():
    @njit
    def first(a):
        return a[0][0]

    assert first(make()) == first.py_func(make())
    other = np.zeros(2, [("u", "i8"), ("w", "f4")])
    other["u"] = 5
    assert first(other) == 5
    assert len(first.signatures) == 2
    first(np.zeros(3, np.dtype([("a1", "f8"), ("a2", "i4")])))  # an equal dtype: no new compilation
    assert len(first.signatures) == 2


# ---- errors ------------------------------------------------------------------


@njit
def bad_field(r):
    return r.zz


@njit
def bad_name(r):
    return r["nope"]


@njit
def runtime_name(r, name):
    return r[name]


def test_unknown_field():
    # Numba 0.68 raises a bare KeyError from its typer here
    exc = (hpcjit.TypingError, KeyError) if NUMBA else hpcjit.TypingError
    with pytest.raises(exc) as ei:
        bad_field(make()[0])
    with pytest.raises(exc):
        bad_name(make()[0])
    if not NUMBA:
        msg = str(ei.value)
        assert "'zz'" in msg and "'a1', 'a2'" in msg and "test_records.py" in msg and "^" in msg


def test_non_constant_field_name():
    with pytest.raises(hpcjit.TypingError) as ei:
        runtime_name(make()[0], "a1")
    if not NUMBA:
        assert "compile-time constant" in str(ei.value)


@pytest.mark.numba_skip("Numba cannot return a tuple holding a record")
def test_tuple_with_record():
    @njit
    def f(a):
        return a[1], a[1]["a2"]

    got = f(make())
    assert isinstance(got[0], np.record) and got[0].tolist() == (1.5, 2) and got[1] == 2


# ---- whole-item array operations -------------------------------------------------


@njit
def reshaped(a):
    b = a.reshape(2, 3)
    return b.T, np.transpose(b).copy(), b[1, 2]["a2"]


@njit
def selected(a):
    return a[np.array([0, 2, 5])], a[a["a2"] > 4], a[::-1], np.copy(a[::2])


def test_reshape_transpose_select():
    both(reshaped, lambda: ((make(6),), ()))
    both(selected, lambda: ((make(6),), ()))


@njit
def record_sum(a):
    return a.sum()


@njit
def record_np_sum(a):
    return np.sum(a)


@pytest.mark.numba_skip("Numba 0.68 fails inside its lowering (AttributeError in constant_record)")
def test_numeric_kernels_refused():
    for f in (record_sum, record_np_sum):
        with pytest.raises(hpcjit.UnsupportedError) as ei:
            f(make())
        assert "array of records" in str(ei.value) and "test_records.py" in str(ei.value)


# ---- explicit signatures (numpysupported.rst) ----------------------------------------


def test_attribute_access_doc_example():
    record_type = np.dtype([("ival", np.int32), ("fval", np.float64)], align=True)

    def f(rec):
        value = 2.5
        rec[0].ival = int(value)
        rec[0].fval = value
        return rec

    arr = np.ones(1, dtype=record_type)
    out = njit(f)(arr)
    assert out.tolist() == [(2, 2.5)] and arr.tolist() == [(2, 2.5)]
    with pytest.raises(AttributeError):  # CPython: np.void has no attributes
        f(np.ones(1, dtype=record_type))


def test_record_width_subtyping():
    record1 = np.array([1], dtype=[("a", "f8")])[0]
    record2 = np.array([(2, 3)], dtype=[("a", "f8"), ("b", "f8")])[0]

    @njit(hpcjit.types.float64(hpcjit.typeof(record1)))
    def foo(rec):
        return rec["a"]

    assert foo(record1) == foo.py_func(record1) == 1.0
    assert foo(record2) == foo.py_func(record2) == 2.0  # a subtype: no new compilation
    assert len(foo.signatures) == 1
    with pytest.raises(TypeError):  # field 'a' at another offset: not a subtype
        foo(np.array([(2, 3)], dtype=[("b", "f8"), ("a", "f8")])[0])


def test_explicit_array_signature():
    a = make()

    @njit(hpcjit.types.float64(hpcjit.typeof(a)))
    def total(arr):
        s = 0.0
        for i in range(arr.shape[0]):
            s += arr[i]["a1"] + arr[i]["a2"]
        return s

    assert total(a) == total.py_func(a)


@njit
def subarray_views(a):
    v = a["v"]
    v[1, 2] = -1.0
    return v, a["m"][::2], a["m"].sum(), a[::-1]["v"][0, 1]


def test_subarray_field_of_every_record():
    def build():
        a = make(4, DTS)
        a["v"] = np.arange(12).reshape(4, 3)
        a["m"] = np.arange(16).reshape(4, 2, 2)
        return (a,), (a,)
    got = both(subarray_views, build)
    assert got[0].shape == (4, 3) and got[1].shape == (2, 2, 2)


@njit
def like_and_dtype_attr(a):
    z = np.zeros_like(a)
    e = np.empty(a.shape[0], a.dtype)
    for i in range(a.shape[0]):
        e[i] = a[i]
        r = z[i]
        r["a1"], r["a2"] = a[i]["a1"] * 2, i
    return z, e, a.itemsize


def test_zeros_like_and_dtype_attribute():
    both(like_and_dtype_attr, lambda: ((make(),), ()))


@njit
def ones_like_records(a):
    return np.ones_like(a)


@pytest.mark.numba_skip("Numba refuses it with its own message")
def test_ones_like_refused():
    with pytest.raises(hpcjit.UnsupportedError, match="ones_like"):
        ones_like_records(make())


DTC = np.dtype([("a", "f8"), ("s", "S10"), ("u", "U3")])


@njit
def move_chars(a):
    a[0] = a[1]
    return a[0]["a"] + 1


def test_character_sequence_fields():
    assert str(hpcjit.typeof(np.zeros(2, DTC))) == (
        "unaligned array(Record(a[type=float64;offset=0],s[type=[char x 10];offset=8],"
        "u[type=[unichr x 3];offset=18];30;False), 1d, C)")

    def build():
        a = np.zeros(2, DTC)
        a[1] = (2.5, b"hi", "xy")
        return (a,), (a,)
    both(move_chars, build)


@njit
def read_chars(a):
    return a[0]["s"]


@pytest.mark.numba_skip("Numba reads a character sequence as bytes; hpcjit only moves it")
def test_character_sequence_read_refused():
    with pytest.raises(hpcjit.UnsupportedError, match="character sequence"):
        read_chars(np.zeros(2, DTC))


@njit(parallel=True)
def parallel_fields(a):
    s = 0.0
    for i in hpcjit.prange(a.shape[0]):
        r = a[i]
        r["a1"] = i * 0.5
        s += r["a1"] + a[i]["a2"]
    return s


def test_prange_over_records():
    def build():
        a = make(1000)
        return (a,), (a,)
    both(parallel_fields, build)
