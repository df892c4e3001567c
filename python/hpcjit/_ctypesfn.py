"""ctypes foreign functions called from compiled code (Numba's "ctypes
support"): a global `proc.sin` with `argtypes` and `restype` set, or a
CFUNCTYPE object (a C pointer to a Python callback), is called through its
address with the C signature its ctypes types give.

Each function object becomes an @intrinsic (hpcjit.extending) whose code
is a call through the address as a constant, so it is inlined into the
caller like any portable intrinsic (compiler/lower/lower_llvmir.c).  The
address is part of the code, so a disk-cache entry of a function calling
it is keyed by it and never reused by another process where the library
sits elsewhere.  Numbers, bool, c_void_p arguments (`a.ctypes`) and a void
result only (other pointers and structures: a located TypingError naming
the ctypes type)."""
import ctypes

from . import errors
from . import types as _types

_BY_ID = {}  # id(function object) -> (function object, intrinsic)


def _number_type(ct, fname, what):
    """The hpcjit type of a ctypes number type."""
    if ct is None and what == "restype":
        return _types.void
    if ct is ctypes.c_bool:
        return _types.boolean
    if ct is ctypes.c_void_p and what != "restype":  # a.ctypes, a cfunc's pointer (as Numba's voidptr)
        return _types.voidptr
    if ct in (ctypes.c_double, ctypes.c_longdouble) and ctypes.sizeof(ct) == 8:
        return _types.float64
    if ct is ctypes.c_float:
        return _types.float32
    if isinstance(ct, type) and issubclass(ct, ctypes._SimpleCData) and ct._type_ in "bBhHiIlLqQ":
        bits = 8 * ctypes.sizeof(ct)
        return getattr(_types, ("int" if ct._type_.islower() else "uint") + str(bits))
    name = getattr(ct, "__name__", repr(ct))
    raise errors.TypingError(f"ctypes function {fname}: its {what} {name} is not supported by hpcjit "
                             f"(numbers and bool only, as in Numba)")


def is_foreign(value):
    return isinstance(value, ctypes._CFuncPtr)


def intrinsic_of(fn):
    """The @intrinsic calling ctypes function object fn, made once."""
    got = _BY_ID.get(id(fn))
    if got is not None and got[0] is fn:
        return got[1]
    name = getattr(fn, "__name__", "ctypes_function")
    argtypes = getattr(fn, "argtypes", None)
    if argtypes is None:
        raise errors.TypingError(f"ctypes function {name} has no argtypes: set them so that hpcjit knows "
                                 f"its C signature")
    args = [_number_type(t, name, "argument type") for t in argtypes]
    ret = _number_type(getattr(fn, "restype", ctypes.c_int), name, "restype")
    addr = ctypes.cast(fn, ctypes.c_void_p).value
    return _remember(fn, _address_intrinsic(name, addr, ret, args))


def is_wap(value):
    """A Wrapper Address Protocol object used as a global (numba-stats'
    scipy.special functions: `__wrapper_address__()` of
    get_cython_function_address, `signature()` float64(float64))."""
    return isinstance(value, _types.WrapperAddressProtocol)


def wap_intrinsic_of(obj):
    """The @intrinsic calling WAP object obj through its address, made once."""
    got = _BY_ID.get(id(obj))
    if got is not None and got[0] is obj:
        return got[1]
    name = type(obj).__name__
    try:
        sig = obj.signature()
        addr = int(obj.__wrapper_address__())
    except Exception as e:  # noqa: BLE001 - the user's methods: reported where the global is used
        raise errors.TypingError(f"{name}.signature() or __wrapper_address__() raised "
                                 f"{type(e).__name__}: {e}") from None
    if not isinstance(sig, _types.Signature):
        raise errors.TypingError(f"{name}.signature() gave {sig!r}, not a signature such as float64(float64)")
    ret = sig.return_type if sig.return_type is not None else _types.void
    for t in (ret, *sig.args):
        if t is not _types.void and not isinstance(t, (_types.Integer, _types.Float, _types.Boolean)):
            raise errors.TypingError(f"{name}: the type {t} in its signature is not supported by hpcjit "
                                     f"(numbers and bool only)")
    return _remember(obj, _address_intrinsic(name, addr, ret, list(sig.args)))


def _remember(obj, intr):
    _BY_ID[id(obj)] = (obj, intr)
    return intr


def _address_intrinsic(name, addr, ret, args):
    """An @intrinsic named name calling the C function at addr, ret(*args)."""
    from . import extending
    sig = ret(*args)

    def codegen(context, builder, signature, llargs):
        from llvmlite import ir
        fnty = ir.FunctionType(context.get_value_type(ret), [context.get_value_type(a) for a in args])
        ptr = builder.inttoptr(ir.Constant(ir.IntType(64), addr), fnty.as_pointer())
        res = builder.call(ptr, list(llargs))
        return res if ret != _types.void else context.get_dummy_value()

    params = ", ".join(f"a{i}" for i in range(len(args)))
    ns = {"sig": sig, "codegen": codegen}
    exec(f"def {name}(typingctx{', ' if params else ''}{params}):\n    return sig, codegen\n", ns)
    return extending.intrinsic(ns[name])
