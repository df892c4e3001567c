"""Type objects for signatures and `Dispatcher.signatures` (Numba's names).

Each type knows its typecode (runtime/include/hpcjit/abi.h), which is what
the dispatcher and the compiler exchange; `str()` gives Numba's notation.
"""

__all__ = [
    "Type", "Number", "Boolean", "Integer", "Float", "Complex", "NoneType", "Array",
    "UniTuple", "Tuple", "DType", "Signature", "from_typecode", "typeof",
    "boolean", "bool_", "b1", "int8", "int16", "int32", "int64", "uint8", "uint16",
    "uint32", "uint64", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "intp", "uintp",
    "intc", "uintc", "int_", "float32", "float64", "f4", "f8", "float_", "double",
    "complex64", "complex128", "c8", "c16", "none", "void",
]


class Type:
    """Base of all hpcjit types.  Equal when their typecodes are equal."""
    __slots__ = ("name", "typecode")

    def __init__(self, name, typecode):
        self.name = name
        self.typecode = typecode

    def __str__(self):
        return self.name

    __repr__ = __str__

    def __eq__(self, other):
        return isinstance(other, Type) and other.typecode == self.typecode

    def __hash__(self):
        return hash(self.typecode)

    def __call__(self, *args):
        """float64(int64, int64) builds a Signature."""
        if len(args) == 1 and isinstance(args[0], (tuple, list)):
            args = tuple(args[0])
        for a in args:
            if not isinstance(a, Type):
                raise TypeError(f"signature argument {a!r} is not an hpcjit type")
        return Signature(self, args)


class Number(Type):
    __slots__ = ()

    def __getitem__(self, index):
        """float64[:] -> 1-D A array; [::1] -> C; [:, ::1] -> 2-D C; [::1, :] -> F."""
        if not isinstance(index, tuple):
            index = (index,)
        for s in index:
            if not isinstance(s, slice) or s.start is not None or s.stop is not None \
                    or s.step not in (None, 1):
                raise TypeError(f"can only index a type with ':' or '::1', got {index!r}")
        ndim = len(index)
        steps = [s.step for s in index]
        layout = "A"
        if steps[-1] == 1 and all(s is None for s in steps[:-1]):
            layout = "C"
        elif steps[0] == 1 and all(s is None for s in steps[1:]):
            layout = "F"
        elif any(s == 1 for s in steps):
            raise TypeError(f"'::1' must be on the first or the last axis: {index!r}")
        return Array(self, ndim, layout)


class Boolean(Number):
    __slots__ = ()


class Integer(Number):
    __slots__ = ("bitwidth", "signed")

    def __init__(self, name, typecode, bitwidth, signed):
        super().__init__(name, typecode)
        self.bitwidth = bitwidth
        self.signed = signed


class Float(Number):
    __slots__ = ("bitwidth",)

    def __init__(self, name, typecode, bitwidth):
        super().__init__(name, typecode)
        self.bitwidth = bitwidth


class Complex(Number):
    __slots__ = ("bitwidth",)

    def __init__(self, name, typecode, bitwidth):
        super().__init__(name, typecode)
        self.bitwidth = bitwidth


class NoneType(Type):
    __slots__ = ()


class Array(Type):
    """array(dtype, ndim, layout); layout 'C', 'F' or 'A'.  A read-only
    array type is named "readonly array(...)" (typecode 'r' for 'a')."""
    __slots__ = ("dtype", "ndim", "layout", "readonly")

    def __init__(self, dtype, ndim, layout="A", readonly=False):
        if not isinstance(dtype, Number):
            raise TypeError(f"array dtype must be a number type, not {dtype!r}")
        if not 0 <= int(ndim) <= 32:
            raise ValueError(f"array ndim must be in 0..32, not {ndim}")
        if layout not in ("C", "F", "A"):
            raise ValueError(f"array layout must be 'C', 'F' or 'A', not {layout!r}")
        super().__init__(("readonly " if readonly else "") + f"array({dtype}, {int(ndim)}d, {layout})",
                         ("r" if readonly else "a") + dtype.typecode + chr(ord("0") + int(ndim)) + layout)
        self.dtype = dtype
        self.ndim = int(ndim)
        self.layout = layout
        self.readonly = bool(readonly)


class BaseTuple(Type):
    __slots__ = ("types",)

    def __iter__(self):
        return iter(self.types)

    def __len__(self):
        return len(self.types)

    def __getitem__(self, i):
        return self.types[i]


class UniTuple(BaseTuple):
    """UniTuple(int64, 3): a homogeneous tuple."""
    __slots__ = ("dtype", "count")

    def __init__(self, dtype, count):
        count = int(count)
        super().__init__(f"UniTuple({dtype} x {count})", "(" + dtype.typecode * count + ")")
        self.types = (dtype,) * count
        self.dtype = dtype
        self.count = count


class Tuple(BaseTuple):
    """Tuple(int64, float64): a heterogeneous tuple (homogeneous ones become
    UniTuple, as in Numba)."""
    __slots__ = ()

    def __new__(cls, *types):
        if len(types) == 1 and isinstance(types[0], (tuple, list)):
            types = tuple(types[0])
        if types and all(t == types[0] for t in types):
            return UniTuple(types[0], len(types))
        return super().__new__(cls)

    def __init__(self, *types):
        if len(types) == 1 and isinstance(types[0], (tuple, list)):
            types = tuple(types[0])
        super().__init__("Tuple(" + ", ".join(str(t) for t in types) + ")",
                         "(" + "".join(t.typecode for t in types) + ")")
        self.types = tuple(types)


class DType(Type):
    """dtype(float64): a NumPy dtype object or scalar class as a value."""
    __slots__ = ("dtype",)

    def __init__(self, dtype):
        super().__init__(f"dtype({dtype})", "t" + dtype.typecode)
        self.dtype = dtype


class Signature:
    """return_type(args...).  str() is Numba's "(int64, int64) -> float64"."""
    __slots__ = ("return_type", "args")

    def __init__(self, return_type, args):
        self.return_type = return_type
        self.args = tuple(args)

    def __str__(self):
        return f"{self.args} -> {self.return_type}"

    __repr__ = __str__

    def __eq__(self, other):
        return (isinstance(other, Signature) and other.return_type == self.return_type
                and other.args == self.args)

    def __hash__(self):
        return hash((self.return_type, self.args))

    def as_typecodes(self):
        """(return typecode or None, [argument typecodes])."""
        ret = self.return_type.typecode if self.return_type is not None else None
        return ret, [a.typecode for a in self.args]


boolean = bool_ = b1 = Boolean("bool", "?")
int8 = i1 = Integer("int8", "b", 8, True)
int16 = i2 = Integer("int16", "h", 16, True)
int32 = i4 = intc = Integer("int32", "i", 32, True)
int64 = i8 = intp = int_ = Integer("int64", "l", 64, True)
uint8 = u1 = Integer("uint8", "B", 8, False)
uint16 = u2 = Integer("uint16", "H", 16, False)
uint32 = u4 = uintc = Integer("uint32", "I", 32, False)
uint64 = u8 = uintp = Integer("uint64", "L", 64, False)
float32 = f4 = Float("float32", "f", 32)
float64 = f8 = float_ = double = Float("float64", "d", 64)
complex64 = c8 = Complex("complex64", "F", 64)
complex128 = c16 = Complex("complex128", "D", 128)
none = void = NoneType("none", "n")

_SCALARS = {t.typecode: t for t in (boolean, int8, int16, int32, int64, uint8, uint16, uint32,
                                    uint64, float32, float64, complex64, complex128, none)}


def _parse(tc, i):
    c = tc[i]
    if c in _SCALARS:
        return _SCALARS[c], i + 1
    if c in "ar":
        return Array(_SCALARS[tc[i + 1]], ord(tc[i + 2]) - ord("0"), tc[i + 3], c == "r"), i + 4
    if c == "t":
        return DType(_SCALARS[tc[i + 1]]), i + 2
    if c == "(":
        items = []
        i += 1
        while tc[i] != ")":
            t, i = _parse(tc, i)
            items.append(t)
        return Tuple(*items) if items else Tuple(()), i + 1
    raise ValueError(f"bad typecode {tc!r} at {i}")


def from_typecode(tc):
    """The type object for one typecode ("ad2C" -> array(float64, 2d, C))."""
    try:
        t, end = _parse(tc, 0)
    except (IndexError, KeyError):
        raise ValueError(f"bad typecode {tc!r}") from None
    if end != len(tc):
        raise ValueError(f"bad typecode {tc!r}: trailing characters")
    return t


def typeof(value):
    """The hpcjit type of a Python value, as the dispatcher computes it, or
    None when the value has no hpcjit type."""
    import numpy as np
    if isinstance(value, bool):
        return boolean
    if isinstance(value, np.ndarray):
        dt = _dtype_type(value.dtype)
        if dt is None or value.ndim > 32 or not value.flags.aligned:
            return None
        if value.flags.c_contiguous:
            layout = "C"
        elif value.flags.f_contiguous:
            layout = "F"
        else:
            layout = "A"
        return Array(dt, value.ndim, layout, not value.flags.writeable)
    if isinstance(value, np.generic):
        return _dtype_type(value.dtype)
    if isinstance(value, int):
        return int64
    if isinstance(value, float):
        return float64
    if isinstance(value, complex):
        return complex128
    if value is None:
        return none
    if isinstance(value, tuple):
        items = [typeof(v) for v in value]
        if any(t is None for t in items):
            return None
        return Tuple(*items) if items else Tuple(())
    if isinstance(value, np.dtype):
        dt = _dtype_type(value)
        return DType(dt) if dt is not None else None
    if isinstance(value, type) and issubclass(value, np.generic):
        dt = _dtype_type(np.dtype(value))
        return DType(dt) if dt is not None else None
    return None


def _dtype_type(dtype):
    if not dtype.isnative:
        return None
    code = {"b": {1: "b", 2: "h", 4: "i", 8: "l"}, "u": {1: "B", 2: "H", 4: "I", 8: "L"},
            "f": {4: "f", 8: "d"}, "c": {8: "F", 16: "D"}, "?": {1: "?"}}
    kind = "?" if dtype.kind == "b" else ("b" if dtype.kind == "i" else dtype.kind)
    tc = code.get(kind, {}).get(dtype.itemsize)
    return _SCALARS[tc] if tc else None
