"""First-class function values (Numba's FunctionType): the Python side of
the typecode 'P' <ret> '(' <args> ')' (runtime/include/hpcjit/abi.h).

A FunctionType value in compiled code is the address of a C function of
that signature, called indirectly (compiler/lower/lower_expr.c
call_funcptr).  The C core (python/core/convert.c) asks this module:

- `typecode(obj)`: the typecode of an object that is a first-class function
  by itself: a @cfunc object or any object of Numba's Wrapper Address
  Protocol (`__wrapper_address__()`, `signature()`); None for others.  A
  jitted function (dispatcher) has no typecode of its own: passed to a
  function compiled without a signature it stays a compile-time constant
  (dispatcher.py _call_with_functions), as Numba types it Dispatcher.
- `matches(obj, code)`: can obj be passed where the FunctionType `code` is
  expected (a FunctionType parameter of an explicit signature, an item of a
  typed.List of functions): a WAP object of that signature, or a
  dispatcher, which is compiled for the signature here, at the boundary, as
  a C callback (the same entry as @cfunc's), once per signature.
- `address(obj, code)`: that C function's address.
- `box(addr)`: the object a returned address came from (kept here as the
  addresses are made); a function made inside compiled code has none.
"""
from . import errors

_BY_ADDR = {}  # address -> the Python object it was taken from (kept alive)
_NUM = "?bhilBHILfd"


def code_of(ret, args):
    """'P' typecode of a signature's typecodes, or None when FunctionType
    cannot hold it (real numbers and bool in, those or none out)."""
    ret = ret or "n"
    if ret not in _NUM + "n" or any(a not in _NUM for a in args):
        return None
    return "P" + ret + "(" + "".join(args) + ")"


def _parts(code):
    """(ret, [args]) of a 'P' typecode."""
    return code[1], list(code[3:-1])


def _wap_code(obj):
    from .dispatcher import _signature_typecodes
    try:
        sig = obj.signature()
        ret, args = _signature_typecodes(sig)
    except Exception as exc:
        raise errors.TypingError(f"{obj!r}: its signature() does not give an hpcjit signature: {exc}") from None
    return code_of(ret, args)


def typecode(obj):
    from .ufunc import CFunc
    if isinstance(obj, CFunc):
        return code_of(obj._ret, obj._args)
    if hasattr(type(obj), "__wrapper_address__") and hasattr(obj, "signature"):
        return _wap_code(obj)
    return None


def _dispatcher_address(disp, code):
    """The C callback of jitted function `disp` for the signature `code`,
    compiled once per signature (as Numba compiles a dispatcher's cfunc
    wrapper when it becomes a FunctionType value)."""
    cache = disp.__dict__.setdefault("_hj_fnptrs", {})
    hit = cache.get(code)
    if hit is None:
        from . import compiler
        ret, args = _parts(code)
        res = compiler.compile_funcs(disp, args, ret, False, False, False, True)
        hit = cache[code] = (res["address"], res)  # res keeps the code loaded
        _BY_ADDR[hit[0]] = disp
    return hit[0]


def matches(obj, code):
    from . import _core
    if isinstance(obj, _core.Dispatcher):
        return len(_parts(code)[1]) == obj.py_func.__code__.co_argcount
    return typecode(obj) == code


def address(obj, code):
    from . import _core
    if isinstance(obj, _core.Dispatcher):
        return _dispatcher_address(obj, code)
    own = typecode(obj)
    if own != code:
        from .types import from_typecode
        want = from_typecode(code)
        have = from_typecode(own) if own else type(obj).__name__
        raise TypeError(f"hpcjit: a first-class function of type {want} expected, got {have}")
    addr = int(obj.__wrapper_address__())
    _BY_ADDR.setdefault(addr, obj)
    return addr


def box(addr):
    obj = _BY_ADDR.get(addr)
    if obj is None:
        raise TypeError(f"hpcjit: cannot return the first-class function at {addr:#x} to Python (it was "
                        f"not passed in from Python)")
    return obj
