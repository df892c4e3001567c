"""Type objects for signatures and `Dispatcher.signatures` (Numba's names).

Each type knows its typecode (runtime/include/hpcjit/abi.h), which is what
the dispatcher and the compiler exchange; `str()` gives Numba's notation.

Numba programs also spell types hpcjit cannot compile yet (unicode_type,
ListType, DictType, NamedTuple, Literal, pyobject, ...): those exist here
with Numba's names and str() so that such programs import, and have no
typecode (None); a signature that uses one is refused with UnsupportedError
naming the type.  This module is also numba.core.types under the drop-in
(hpcjit.numba).
"""

__all__ = [
    "Type", "Number", "Boolean", "Integer", "Float", "Complex", "NoneType", "Array",
    "UniTuple", "Tuple", "DType", "Record", "NestedArray", "Signature", "from_typecode", "typeof",
    "boolean", "bool_", "b1", "int8", "int16", "int32", "int64", "uint8", "uint16",
    "uint32", "uint64", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "intp", "uintp",
    "intc", "uintc", "int_", "float32", "float64", "f4", "f8", "float_", "double",
    "complex64", "complex128", "c8", "c16", "none", "void",
    # Numba's other names (see the end of the file)
    "Optional", "optional", "DeferredType", "deferred_type", "UnicodeType", "unicode_type", "string", "ListType", "DictType",
    "List", "Set", "SetType", "NamedTuple", "NamedUniTuple", "IntEnumMember", "BaseTuple", "Literal", "IntegerLiteral",
    "BooleanLiteral", "StringLiteral", "LiteralList", "LiteralStrKeyDict", "literal", "unliteral", "Omitted", "PyObject",
    "pyobject", "ffi_forced_object", "Any", "CPointer", "voidptr", "NPDatetime", "StructRef",
    "NPTimedelta", "float16", "f2", "byte", "char", "uchar", "short", "ushort", "uint",
    "long_", "ulong", "longlong", "ulonglong", "ssize_t", "size_t", "np_bool_", "np_int8",
    "np_int16", "np_int32", "np_int64", "np_uint8", "np_uint16", "np_uint32", "np_uint64",
    "np_intp", "np_uintp", "np_intc", "np_uintc", "np_float32", "np_float64", "np_double",
    "np_complex64", "np_complex128", "np_float16", "integer_domain", "real_domain",
    "complex_domain", "number_domain", "signed_domain", "unsigned_domain",
    "NumPyRandomGeneratorType", "npy_rng", "FunctionType", "WrapperAddressProtocol",
]


class Type:
    """Base of all hpcjit types.  Equal when their typecodes are equal; a
    type hpcjit cannot compile has typecode None and is equal to the types
    of its class with the same name."""
    __slots__ = ("name", "typecode")

    def __init__(self, name, typecode=None):
        self.name = name
        self.typecode = typecode

    def __str__(self):
        return self.name

    __repr__ = __str__

    @property
    def key(self):
        """What equality compares (Numba's Type.key)."""
        return self.typecode if self.typecode is not None else (type(self).__name__, self.name)

    def __eq__(self, other):
        return isinstance(other, Type) and other.key == self.key

    def __hash__(self):
        return hash(self.key)

    def __call__(self, *args):
        """float64(int64, int64) builds a Signature; uint8(300) casts a
        value (in Python, as Numba's types do: numba.uint8(x) in code that
        also runs uncompiled)."""
        if len(args) == 1 and not isinstance(args[0], (Type, tuple, list)):
            return self.cast_python_value(args[0])
        if len(args) == 1 and isinstance(args[0], (tuple, list)):
            args = tuple(args[0])
        for a in args:
            if not isinstance(a, Type):
                raise TypeError(f"signature argument {a!r} is not an hpcjit type")
        return Signature(self, args)

    def cast_python_value(self, value):
        raise TypeError(f"signature argument {value!r} is not an hpcjit type")


class Number(Type):
    __slots__ = ()

    def cast_python_value(self, value):
        """The NumPy scalar of this type, as Numba's (np.uint8(13))."""
        import numpy as np
        if isinstance(self, Boolean):
            return bool(value)
        return getattr(np, self.name)(value)

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
        if not isinstance(dtype, (Number, Record)):
            raise TypeError(f"array dtype must be a number type, not {dtype!r}")
        if not 0 <= int(ndim) <= 32:
            raise ValueError(f"array ndim must be in 0..32, not {ndim}")
        if layout not in ("C", "F", "A"):
            raise ValueError(f"array layout must be 'C', 'F' or 'A', not {layout!r}")
        code = None
        if dtype.typecode is not None:
            code = ("r" if readonly else "a") + dtype.typecode + chr(ord("0") + int(ndim)) + layout
        unaligned = "unaligned " if isinstance(dtype, Record) and not dtype.aligned else ""
        super().__init__(unaligned + ("readonly " if readonly else "") + f"array({dtype}, {int(ndim)}d, {layout})",
                         code)
        self.dtype = dtype
        self.ndim = int(ndim)
        self.layout = layout
        self.readonly = bool(readonly)

    @property
    def mutable(self):
        return not self.readonly

    def copy(self, dtype=None, ndim=None, layout=None, readonly=None):
        """Numba's Array.copy(): the same type with some fields replaced."""
        return Array(self.dtype if dtype is None else dtype, self.ndim if ndim is None else ndim,
                     self.layout if layout is None else layout,
                     self.readonly if readonly is None else readonly)


class Bytes(Array):
    """A Python bytes (read-only) or bytearray object's buffer: an array of
    uint8, 1-d, C that boxes back as bytes/bytearray (Numba's Bytes and
    ByteArray; typecodes 'y' and 'Y')."""
    __slots__ = ()

    def __init__(self, bytearray=False):
        super().__init__(uint8, 1, "C", not bytearray)
        self.name = "bytearray(uint8, 1d, C)" if bytearray else "readonly bytes(uint8, 1d, C)"
        self.typecode = "Y" if bytearray else "y"


class BaseTuple(Type):
    __slots__ = ("types",)

    def __iter__(self):
        return iter(self.types)

    def __len__(self):
        return len(self.types)

    def __getitem__(self, i):
        return self.types[i]


def _tuple_code(types):
    if any(t.typecode is None for t in types):
        return None
    return "(" + "".join(t.typecode for t in types) + ")"


class UniTuple(BaseTuple):
    """UniTuple(int64, 3): a homogeneous tuple."""
    __slots__ = ("dtype", "count")

    def __init__(self, dtype, count):
        count = int(count)
        super().__init__(f"UniTuple({dtype} x {count})", _tuple_code((dtype,) * count))
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
        super().__init__("Tuple(" + ", ".join(str(t) for t in types) + ")", _tuple_code(types))
        self.types = tuple(types)


class DType(Type):
    """dtype(float64): a NumPy dtype object or scalar class as a value.
    Numba has two types for these, DType (np.dtype('f8'), a.dtype) and
    NumberClass (np.float64 itself); hpcjit has one, so NumberClass is
    this class too and `instance_type` is `dtype`."""
    __slots__ = ("dtype",)

    def __init__(self, dtype):
        super().__init__(f"dtype({dtype})", None if dtype.typecode is None else "t" + dtype.typecode)
        self.dtype = dtype

    @property
    def instance_type(self):
        return self.dtype


NumberClass = DType


class Dispatcher(Type):
    """An @njit function given to an overload's typing function (Numba's
    types.Dispatcher): `dispatcher` is the function object, its py_func the
    Python function.  Not a type of values passed from Python."""
    __slots__ = ("dispatcher",)

    def __init__(self, dispatcher):
        super().__init__(f"type({dispatcher!r})", None)
        self.dispatcher = dispatcher

    @property
    def key(self):
        return ("Dispatcher", id(self.dispatcher))


class Record(Type):
    """Record(a[type=float64;offset=0],...;size;aligned): a NumPy structured
    dtype (typecode 'V', abi.h).  fields: {name: (type, offset)} in order;
    a record value is a view of its bytes (np.void / np.record)."""
    __slots__ = ("dtype", "fields", "size", "aligned")

    def __init__(self, dtype):
        import numpy as np
        from . import _core
        dtype = np.dtype(dtype)
        fields = {}
        for name in dtype.names:
            fdt, off = dtype.fields[name][:2]
            if fdt.kind in "SU":  # a character sequence: moved with the record only
                t = CharSeq(fdt.itemsize // (4 if fdt.kind == "U" else 1), fdt.kind == "U")
            elif fdt.subdtype is not None:  # ('v', 'f8', (3,)): a nested array
                base = _dtype_type(fdt.subdtype[0])
                t = NestedArray(base, fdt.subdtype[1]) if isinstance(base, Number) else None
            else:
                t = _dtype_type(fdt)
            if t is None:
                from .errors import NumbaNotImplementedError
                raise NumbaNotImplementedError(f"field {name!r} of {dtype} has no hpcjit type")
            fields[name] = (t, off)
        self.dtype = dtype
        self.fields = fields
        self.size = dtype.itemsize
        self.aligned = dtype.isalignedstruct
        desc = ",".join(f"{n}[type={t};offset={o}]" for n, (t, o) in fields.items())
        super().__init__(f"Record({desc};{self.size};{self.aligned})", _core._rec_typecode(dtype))

    def typeof(self, name):
        """The type of field `name`."""
        return self.fields[name][0]

    def offset(self, name):
        """The byte offset of field `name`."""
        return self.fields[name][1]

    @property
    def members(self):
        return [(n, t) for n, (t, _) in self.fields.items()]

    def __getitem__(self, index):
        return Number.__getitem__(self, index)


class CharSeq(Type):
    """[char x 10] / [unichr x 3]: a record's 'S10' / 'U3' field."""
    __slots__ = ("count", "unicode")

    def __init__(self, count, unicode=False):
        super().__init__(f"[{'unichr' if unicode else 'char'} x {count}]", f"{'w' if unicode else 'c'}{count},")
        self.count = count
        self.unicode = unicode


class NestedArray(Type):
    """nestedarray(float64, (3,)): a record's subarray field (typecode 'x')."""
    __slots__ = ("dtype", "shape")

    def __init__(self, dtype, shape):
        shape = tuple(int(d) for d in shape)
        code = f"x{chr(ord('0') + len(shape))}" + "".join(f"{d}," for d in shape) + dtype.typecode
        super().__init__(f"nestedarray({dtype}, {shape})", code)
        self.dtype = dtype
        self.shape = shape

    @property
    def ndim(self):
        return len(self.shape)


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
        """(return typecode or None, [argument typecodes]); UnsupportedError
        when a type has no typecode (hpcjit cannot compile it yet)."""
        for t in ((self.return_type,) if self.return_type is not None else ()) + self.args:
            check_compilable(t, self)
        ret = self.return_type.typecode if self.return_type is not None else None
        return ret, [a.typecode for a in self.args]


def check_compilable(t, where=None):
    """Raise UnsupportedError when hpcjit has no typecode for type `t`."""
    if not isinstance(t, Type):
        raise TypeError(f"signature argument {t!r} is not an hpcjit type")
    if t.typecode is None:
        from .errors import UnsupportedError
        ctx = f" (in signature {where})" if where is not None else ""
        raise UnsupportedError(f"type {t} is not supported by hpcjit yet{ctx}")


boolean = bool_ = b1 = Boolean("bool", "?")
int8 = i1 = Integer("int8", "b", 8, True)
int16 = i2 = Integer("int16", "h", 16, True)
int32 = i4 = intc = Integer("int32", "i", 32, True)
int64 = i8 = intp = int_ = Integer("int64", "l", 64, True)
uint8 = u1 = Integer("uint8", "B", 8, False)
uint16 = u2 = Integer("uint16", "H", 16, False)
uint32 = u4 = uintc = Integer("uint32", "I", 32, False)
uint64 = u8 = uintp = Integer("uint64", "L", 64, False)
float16 = f2 = Float("float16", "e", 16)  # CUDA kernels only (the CPU refuses it)
float32 = f4 = Float("float32", "f", 32)
float64 = f8 = float_ = double = Float("float64", "d", 64)
complex64 = c8 = Complex("complex64", "F", 64)
complex128 = c16 = Complex("complex128", "D", 128)
none = void = NoneType("none", "n")

bytes_type = Bytes(False)
bytearray_type = Bytes(True)

_SCALARS = {t.typecode: t for t in (boolean, int8, int16, int32, int64, uint8, uint16, uint32,
                                    uint64, float16, float32, float64, complex64, complex128, none)}


def _parse(tc, i):
    c = tc[i]
    if c in _SCALARS:
        return _SCALARS[c], i + 1
    if c in "Mm":
        unit = _DT_UNITS[_DT_CODES.index(tc[i + 1])]
        return (NPDatetime(unit) if c == "M" else NPTimedelta(unit)), i + 2
    if c in "ar":
        dt, j = _parse(tc, i + 1)
        return Array(dt, ord(tc[j]) - ord("0"), tc[j + 1], c == "r"), j + 2
    if c == "t":
        dt, j = _parse(tc, i + 1)
        return DType(dt), j
    if c in "yY":
        return (bytearray_type if c == "Y" else bytes_type), i + 1
    if c == "V":  # a record: V<id>:<size>:<A|U>{<name>@<offset><typecode>...}
        from . import _core
        depth, j = 0, tc.index("{", i)
        while True:
            depth += {"{": 1, "}": -1}.get(tc[j], 0)
            j += 1
            if depth == 0:
                break
        return Record(_core._rec_dtype(int(tc[i + 1:tc.index(":", i)]))), j
    if c == "s":
        return unicode_type, i + 1
    if c == "p":
        return (voidptr, i + 2) if tc[i + 1] == "v" else (CPointer(_SCALARS[tc[i + 1]]), i + 2)
    if c == "R":
        return npy_rng, i + 1
    if c == "P":  # FunctionType: P <ret> ( <args> )
        ret, i = _parse(tc, i + 1)
        args, i = _parse(tc, i)
        return FunctionType(Signature(ret, args.types)), i
    if c == "o":
        t, i = _parse(tc, i + 1)
        return Optional(t), i
    if c == "[":
        t, i = _parse(tc, i + 1)
        return List(t, reflected=True), i
    if c in "{&":
        k, i = _parse(tc, i + 1)
        v, i = _parse(tc, i)
        return DictType(k, v, _plain=c == "{"), i
    if c == "#":
        t, i = _parse(tc, i + 1)
        return ListType(t), i
    if c == "<":
        t, i = _parse(tc, i + 1)
        return Set(t, reflected=True), i
    if c == "%":
        t, i = _parse(tc, i + 1)
        return SetType(t), i
    if c == "G":
        t, i = _parse(tc, i + 1)
        return Generator(t), i
    if c == "J":  # a jitclass instance: J<id> (a structref's: its StructRef type)
        j = i + 1
        while j < len(tc) and tc[j].isdigit():
            j += 1
        import sys
        sr = sys.modules.get("hpcjit.structref")
        st = sr.BY_CLASS_ID.get(int(tc[i + 1:j])) if sr is not None else None
        return (st if st is not None else JitClassInstanceType(int(tc[i + 1:j]))), j
    if c == "N":  # a named tuple: N<id>:<name>:<fields>:(...)
        from . import _core
        end = tc.index(":", i)
        import sys
        ll = sys.modules.get("hpcjit.lowlevel")
        ext = ll.BY_ID.get(int(tc[i + 1:end])) if ll is not None else None
        if ext is not None:  # an extension type of numba.extending's low-level API
            j = tc.index(":", tc.index(":", end + 1) + 1) + 1
            return ext, _parse(tc, j)[1]
        cls = _core._nt_class(int(tc[i + 1:end]))
        j = tc.index(":", tc.index(":", end + 1) + 1) + 1
        t, i = _parse(tc, j)
        if tc[tc.index(":", end + 1) + 1:j - 1] in ("_int_", "_flag_"):  # an IntEnum member (namedtuple.c)
            return IntEnumMember(cls, t.types[0]), i
        return NamedTuple(t.types, cls), i
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


def typeof(value, purpose=None):
    """Numba's typeof(): the type of a Python value, ValueError when there is
    none.  Compilable values get the type the dispatcher computes; strings,
    lists, sets and named tuples get Numba's (uncompilable) types."""
    import sys
    ll = sys.modules.get("hpcjit.lowlevel")
    if ll is not None and ll.has_typeof(type(value)):  # a class registered with typeof_impl
        t = ll.typeof_impl(value, purpose)
        if t is not None:
            return t
    t = typeof_or_none(value)
    if t is not None:
        if isinstance(value, tuple) and hasattr(type(value), "_fields"):
            return NamedTuple(t.types, type(value))
        return t
    if isinstance(value, str):
        return unicode_type
    if isinstance(value, (list, set)) and value:
        item = typeof(next(iter(value)), purpose)
        return List(item, reflected=True) if isinstance(value, list) else Set(item, reflected=True)
    if isinstance(value, tuple):
        items = tuple(typeof(v, purpose) for v in value)
        if hasattr(type(value), "_fields"):
            return NamedTuple(items, type(value))
        return Tuple(*items)
    raise ValueError(f"cannot determine Numba type of {type(value)!r}")


def typeof_or_none(value):
    """The hpcjit type of a Python value, as the dispatcher computes it, or
    None when the value has no hpcjit type."""
    import numpy as np
    if isinstance(value, bool):
        return boolean
    from . import _core
    if isinstance(value, (_core._TypedList, _core._TypedDict, _core._TypedSet,
                          _core._JitObject)):  # typed containers, jitclasses
        tc = _core._typecode(value)
        return from_typecode(tc) if tc else None
    if isinstance(value, np.ndarray):
        dt = _dtype_type(value.dtype)
        if dt is None or value.ndim > 32 or (not value.flags.aligned and value.dtype.names is None):
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
    if type(value) is bytes:
        return bytes_type
    if type(value) is bytearray:
        return bytearray_type
    if isinstance(value, int):
        # above int64, up to uint64: uint64, as Numba types it
        it = uint64 if 2**63 <= value < 2**64 else int64
        if type(value) is not int:  # an IntEnum/IntFlag member keeps its class
            import enum
            if isinstance(value, enum.Enum) and _core._nt_header(type(value)) is not None:
                return IntEnumMember(type(value), it)
        return it
    if isinstance(value, float):
        return float64
    if isinstance(value, complex):
        return complex128
    if value is None:
        return none
    if isinstance(value, tuple):
        items = [typeof_or_none(v) for v in value]
        if any(t is None for t in items):
            return None
        return Tuple(*items) if items else Tuple(())
    if hasattr(type(value), "__wrapper_address__"):  # a @cfunc, a WAP object: FunctionType
        from . import _fntype
        try:
            code = _fntype.typecode(value)
        except Exception:
            return None
        return from_typecode(code) if code else None
    if isinstance(value, np.dtype):
        dt = _dtype_type(value)
        return DType(dt) if dt is not None else None
    if isinstance(value, type) and issubclass(value, np.generic):
        dt = _dtype_type(np.dtype(value))
        return DType(dt) if dt is not None else None
    return None


def _dtype_type(dtype):
    if dtype.names is not None:
        try:
            t = Record(dtype)
        except Exception:
            return None
        return t if t.typecode is not None else None
    if not dtype.isnative:
        return None
    if dtype.kind in "Mm":
        import numpy as np
        unit, count = np.datetime_data(dtype)
        if count != 1 and unit != "generic":
            return None
        unit = "" if unit == "generic" else unit
        return NPDatetime(unit) if dtype.kind == "M" else NPTimedelta(unit)
    code = {"b": {1: "b", 2: "h", 4: "i", 8: "l"}, "u": {1: "B", 2: "H", 4: "I", 8: "L"},
            "f": {2: "e", 4: "f", 8: "d"}, "c": {8: "F", 16: "D"}, "?": {1: "?"}}
    kind = "?" if dtype.kind == "b" else ("b" if dtype.kind == "i" else dtype.kind)
    tc = code.get(kind, {}).get(dtype.itemsize)
    return _SCALARS[tc] if tc else None


# ---- Numba's other type names -----------------------------------------------
# Types below without a typecode exist so that programs written for Numba
# import and can build signatures; compiling with one raises UnsupportedError.

class Optional(Type):
    """OptionalType(int64): None or a value of the type (typecode 'o' + the
    type's; the compiler returns these, it does not take them yet)."""
    __slots__ = ("type",)

    def __init__(self, typ):
        if not isinstance(typ, Type):
            raise TypeError(f"Optional() takes an hpcjit type, not {typ!r}")
        if isinstance(typ, Optional):
            typ = typ.type
        super().__init__(f"OptionalType({typ})", None if typ.typecode is None else "o" + typ.typecode)
        self.type = typ
        if isinstance(typ, DeferredType) and typ.typecode is None:
            typ._users.append(self)  # completed by define()


optional = Optional


class DeferredType(Type):
    """deferred_type(): a type named before it exists, for recursive
    jitclasses (a field optional(node_type) of the class node_type will
    stand for).  define(t) fixes it once; until then its typecode is None,
    and so is that of an Optional of it (define() completes those)."""
    __slots__ = ("_users", "_define")

    def __init__(self):
        super().__init__(f"DeferredType#{id(self):x}", None)
        self._users, self._define = [], None

    def define(self, typ):
        if self._define is not None:
            raise TypeError("deferred type already defined")
        if not isinstance(typ, Type) or isinstance(typ, DeferredType):
            raise TypeError(f"deferred_type().define() takes an hpcjit type, not {typ!r}")
        self._define = typ
        self.name, self.typecode = f"DeferredType({typ})", typ.typecode
        for opt in self._users:
            opt.name = f"OptionalType({typ})"
            opt.typecode = None if typ.typecode is None else "o" + typ.typecode
        self._users = []

    def get(self):
        """The defined type (Numba's DeferredType.get())."""
        if self._define is None:
            raise TypeError("deferred type not defined")
        return self._define


deferred_type = DeferredType


class UnicodeType(Type):
    __slots__ = ()


unicode_type = string = UnicodeType("unicode_type", "s")


class NumPyRandomGeneratorType(Type):
    """A numpy.random.Generator argument (Numba's NumPyRandomGeneratorType):
    compiled code draws from its bit generator (lib/random)."""
    __slots__ = ()


npy_rng = NumPyRandomGeneratorType("NumPyRandomGeneratorType", "R")


class ListType(Type):
    """ListType[int64]: numba.typed.List's type."""
    __slots__ = ("item_type", "dtype")

    def __init__(self, item_type):
        # typecode '#' + the item's: a typed.List crosses by reference
        ic = getattr(item_type, "typecode", None)
        super().__init__(f"ListType[{item_type}]", "#" + ic if ic else None)
        self.item_type = self.dtype = item_type


class DictType(Type):
    """DictType[unicode_type,float64]: numba.typed.Dict's type.
    initial_value: the dict display it was made from, as an overload's
    typing function sees it with literal types (else None)."""
    __slots__ = ("key_type", "value_type", "initial_value")

    def __init__(self, key_type, value_type, _plain=False, initial_value=None):
        # typecode '&' + the key's + the value's: a typed.Dict crosses by
        # reference; '{' (_plain): a Python dict, copied in and reflected
        kc, vc = getattr(key_type, "typecode", None), getattr(value_type, "typecode", None)
        iv = f"<iv={initial_value!r}>" if initial_value is not None else ""
        super().__init__(f"DictType[{key_type},{value_type}]{iv}",
                         ("{" if _plain else "&") + kc + vc if kc and vc else None)
        self.key_type = key_type
        self.value_type = value_type
        self.initial_value = initial_value


class List(Type):
    """list(int64) / reflected list(int64): a Python list.  initial_value:
    the list display it was made from (see DictType)."""
    __slots__ = ("dtype", "reflected", "initial_value")

    def __init__(self, dtype, reflected=False, initial_value=None):
        # a reflected list crosses the boundary: typecode '[' + the item's
        tc = "[" + dtype.typecode if reflected and getattr(dtype, "typecode", None) else None
        iv = f"<iv={initial_value!r}>" if initial_value is not None else ""
        super().__init__(("reflected " if reflected else "") + f"list({dtype}){iv}", tc)
        self.dtype = dtype
        self.reflected = bool(reflected)
        self.initial_value = initial_value


def with_initial_value(t, value):
    """The list/dict type t with the initial value of its display (what an
    overload's typing function gets with literal types); other types as
    they are."""
    if isinstance(t, DictType):
        plain = t.typecode is not None and t.typecode.startswith("{")
        return DictType(t.key_type, t.value_type, _plain=plain, initial_value=value)
    if isinstance(t, List):  # a list compiled code made: not reflected, as Numba prints it
        return List(t.dtype, False, initial_value=value)
    return t


class Set(Type):
    __slots__ = ("dtype", "reflected")

    def __init__(self, dtype, reflected=False):
        tc = "<" + dtype.typecode if reflected and getattr(dtype, "typecode", None) else None
        super().__init__(("reflected " if reflected else "") + f"set({dtype})", tc)
        self.dtype = dtype
        self.reflected = bool(reflected)


class SetType(Type):
    """SetType[unicode_type]: numba.typed.Set's type (typecode '%' + the
    item's: a typed.Set crosses by reference)."""
    __slots__ = ("dtype",)

    def __init__(self, dtype):
        ic = getattr(dtype, "typecode", None)
        super().__init__(f"SetType[{dtype}]", "%" + ic if ic else None)
        self.dtype = dtype

    @property
    def item_type(self):
        return self.dtype


class Generator(Type):
    """generator(int64): a generator object of compiled code, by the type
    of what it yields (hpcjit's generators of one item type are one type,
    whatever function made them)."""
    __slots__ = ("yield_type",)

    def __init__(self, yield_type):
        tc = "G" + yield_type.typecode if getattr(yield_type, "typecode", None) else None
        super().__init__(f"generator({yield_type})", tc)
        self.yield_type = yield_type


class JitClassInstanceType(Type):
    """instance.jitclass.Name#id: an instance of a hpcjit.experimental.jitclass."""
    __slots__ = ("class_id",)

    def __init__(self, class_id):
        import sys
        exp = sys.modules.get("hpcjit.experimental")
        cls = exp._classes[class_id] if exp is not None and class_id < len(exp._classes) else None
        super().__init__(f"instance.jitclass.{cls.__name__ if cls else '?'}#{class_id}", f"J{class_id}")
        self.class_id = class_id


class StructRef(Type):
    """numba's types.StructRef: the type of a structref instance with these
    (name, type) fields (hpcjit.structref).  Subclasses registered with
    structref.register are the types users write; an instance's typecode
    is that of the jitclass hpcjit makes for its fields ("J<id>")."""

    def __init__(self, fields):
        fields = tuple(fields)
        self._fields = fields
        inner = ", ".join(f"({n!r}, {t})" for n, t in fields)
        super().__init__(f"numba.{type(self).__name__}(({inner}))", None)

    @property
    def fields(self):
        return self._fields

    @property
    def field_dict(self):
        return dict(self._fields)

    def preprocess_fields(self, fields):
        return fields


class NamedTuple(BaseTuple):
    """NamedTuple((int64, float64), Point): str() is "Point(int64, float64)"."""
    __slots__ = ("instance_class", "fields")

    def __init__(self, types, cls):
        types = tuple(types)
        from . import _core
        header = _core._nt_header(cls)
        code = _tuple_code(types) if header is not None else None
        super().__init__(f"{cls.__name__}(" + ", ".join(str(t) for t in types) + ")",
                         header + code if code else None)
        self.types = types
        self.instance_class = cls
        self.fields = tuple(getattr(cls, "_fields", ()))


class IntEnumMember(Type):
    """IntEnumMember(Color, int64): str() is "IntEnum<int64>(Color)" (Numba's);
    a member of an IntEnum/IntFlag class, an integer in compiled code that
    is returned as the member (typecode N<id>:Color:_int_:(l), namedtuple.c)."""
    __slots__ = ("instance_class", "dtype")

    def __init__(self, cls, dtype):
        from . import _core
        header = _core._nt_header(cls)
        code = header + "(" + dtype.typecode + ")" if header is not None and dtype.typecode else None
        super().__init__(f"IntEnum<{dtype}>({cls.__name__})", code)
        self.instance_class = cls
        self.dtype = dtype


class NamedUniTuple(BaseTuple):
    __slots__ = ("dtype", "count", "instance_class", "fields")

    def __init__(self, dtype, count, cls):
        count = int(count)
        super().__init__(f"{cls.__name__}({dtype} x {count})", None)
        self.types = (dtype,) * count
        self.dtype = dtype
        self.count = count
        self.instance_class = cls
        self.fields = tuple(getattr(cls, "_fields", ()))


class Literal(Type):
    """Literal[int](3): a compile-time constant (types.literal(3))."""
    __slots__ = ("literal_value",)

    def __init__(self, value):
        super().__init__(f"Literal[{type(value).__name__}]({value})", None)
        self.literal_value = value


class IntegerLiteral(Literal):
    __slots__ = ()


class BooleanLiteral(Literal):
    __slots__ = ()


class StringLiteral(Literal):
    __slots__ = ()


class LiteralList(Literal):
    """LiteralList((Literal[str](a), complex128, ...)): a list display of
    items without a common type, as an overload's typing function sees it
    (`literal_value`: the items' types; the value is a tuple of them)."""
    __slots__ = ()

    def __init__(self, items):
        super().__init__(list(items))
        self.name = f"LiteralList(({', '.join(str(t) for t in items)}))"

    @property
    def types(self):
        return tuple(self.literal_value)

    def __len__(self):
        return len(self.literal_value)


class LiteralStrKeyDict(Literal):
    """LiteralStrKey[Dict]({Literal[str](a): Literal[int](1), ...}): a dict
    display with str constant keys and values without a common type
    (`literal_value`: key literal -> value type)."""
    __slots__ = ()

    def __init__(self, items):
        super().__init__(dict(items))
        body = ", ".join(f"{k}: {v}" for k, v in self.literal_value.items())
        self.name = f"LiteralStrKey[Dict]({{{body}}})"

    @property
    def types(self):
        return tuple(self.literal_value.values())


def literal(value):
    """types.literal(value): the Literal type of a constant."""
    if isinstance(value, bool):
        return BooleanLiteral(value)
    if isinstance(value, int):
        return IntegerLiteral(value)
    if isinstance(value, str):
        return StringLiteral(value)
    return Literal(value)


def unliteral(t):
    """The type of a literal's value (int64 for Literal[int](3))."""
    return typeof(t.literal_value) if isinstance(t, Literal) else t


class Omitted(Type):
    """omitted(default=3): an argument left to its default."""
    __slots__ = ("value",)

    def __init__(self, value):
        super().__init__(f"omitted(default={value!r})", None)
        self.value = value


class PyObject(Type):
    __slots__ = ()


pyobject = ffi_forced_object = PyObject("pyobject", None)
Any = Type("any", None)


class CPointer(Type):
    """float64*: a C pointer (cfunc signatures; carray/farray make arrays of
    it, p[i] reads and writes an element).  Typecode 'p' + the number's."""
    __slots__ = ("dtype",)

    def __init__(self, dtype):
        code = getattr(dtype, "typecode", None)
        ok = code is not None and len(code) == 1 and code in _SCALARS
        super().__init__(f"{dtype}*", "p" + code if ok else None)
        self.dtype = dtype


class _VoidPtr(CPointer):
    __slots__ = ()

    def __init__(self):
        Type.__init__(self, "void*", "pv")
        self.dtype = None


voidptr = _VoidPtr()


class FunctionType(Type):
    """FunctionType(sig), Numba's type of first-class functions: a C
    function pointer of that signature (real numbers and bool in, a real
    number, bool or none out).  Typecode 'P' <ret> '(' <args> ')'; jitted
    functions, @cfunc objects and WrapperAddressProtocol objects convert to
    it where a call passes them (python/hpcjit/_fntype.py)."""
    __slots__ = ("signature",)

    def __init__(self, signature):
        if not isinstance(signature, Signature):
            raise TypeError(f"FunctionType() takes a signature (int64(int64)), not {signature!r}")
        ret = signature.return_type if signature.return_type is not None else none
        parts = (ret,) + tuple(signature.args)
        ok = all(isinstance(t, (Integer, Float, Boolean)) and t.typecode not in (None, "e") for t in parts[1:]) \
            and (ret is none or (isinstance(ret, (Integer, Float, Boolean)) and ret.typecode != "e"))
        code = "P" + ret.typecode + "(" + "".join(a.typecode for a in signature.args) + ")" if ok else None
        args = ", ".join(str(a) for a in signature.args)
        super().__init__(f"FunctionType[{ret}({args})]", code)
        self.signature = Signature(ret, signature.args)

    @property
    def nargs(self):
        return len(self.signature.args)


class WrapperAddressProtocol:
    """Base of objects that are first-class functions by their address
    (Numba's Wrapper Address Protocol): `__wrapper_address__()` gives the
    C function's address, `signature()` its signature."""

    def __wrapper_address__(self):
        raise NotImplementedError

    def signature(self):
        raise NotImplementedError


# ORDER: the unit characters of the typecodes 'M<u>'/'m<u>' (abi.h,
# compiler/types/types.c dt_unit_codes)
_DT_UNITS = ("Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as", "")
_DT_CODES = "YMWDhmsxunpfag"


class _NPDatetimeBase(Number):
    """datetime64[unit] / timedelta64[unit] (Numba's NPDatetime/NPTimedelta):
    typecode 'M'/'m' and the unit's character; `unit` "" is the generic one."""
    __slots__ = ("unit",)
    _kind = "M"
    _type_name = "datetime64"

    def __init__(self, unit=""):
        if unit not in _DT_UNITS:
            raise ValueError(f"unknown datetime unit {unit!r}")
        super().__init__(f"{self._type_name}[{unit}]", self._kind + _DT_CODES[_DT_UNITS.index(unit)])
        self.unit = unit


class NPDatetime(_NPDatetimeBase):
    __slots__ = ()


class NPTimedelta(_NPDatetimeBase):
    __slots__ = ()
    _kind = "m"
    _type_name = "timedelta64"


# C names, with the sizes of the LP64 ABI hpcjit runs on (as Numba's)
byte = uint8
char = int8
uchar = uint8
short = int16
ushort = uint16
uint = uint32
long_ = int64
ulong = uint64
longlong = int64
ulonglong = uint64
ssize_t = int64
size_t = uint64
# numba.core.types.np_*: the NumPy scalar names
np_bool_ = boolean
np_int8, np_int16, np_int32, np_int64 = int8, int16, int32, int64
np_uint8, np_uint16, np_uint32, np_uint64 = uint8, uint16, uint32, uint64
np_intp, np_uintp, np_intc, np_uintc = intp, uintp, intc, uintc
np_float16, np_float32, np_float64, np_double = float16, float32, float64, float64
np_complex64, np_complex128 = complex64, complex128

signed_domain = frozenset([int8, int16, int32, int64])
unsigned_domain = frozenset([uint8, uint16, uint32, uint64])
integer_domain = signed_domain | unsigned_domain
real_domain = frozenset([float32, float64])
complex_domain = frozenset([complex64, complex128])
number_domain = real_domain | integer_domain | complex_domain
