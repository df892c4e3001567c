"""Compilation from Python: gather the source and the environment of every
reachable @njit function and hand them to hpcjit._compiler.

Imported on the first compilation only (_compiler loads libLLVM)."""
import ast
import builtins
import enum as _enum
import os
import sys
import weakref
import types as _pytypes

import numpy as np

from . import _core, _srctext, config, errors
from . import _npinfo  # noqa: F401  np.iinfo / np.finfo (overloads)
from . import _npnan  # noqa: F401  np.nanargmax / np.nanargmin (overloads)
from . import _npaverage  # noqa: F401  np.average (an overload)
from . import _npcompress  # noqa: F401  np.compress / a.compress (overloads)
from . import _npgradient  # noqa: F401  np.gradient (an overload)
from . import _nplist  # noqa: F401  np.array / np.asarray of lists (overloads)
from . import _pymethods  # noqa: F401  tuple.index (an overload)
from . import _nppoly  # noqa: F401  np.polynomial.polynomial (overloads)
from . import _npiter  # noqa: F401  np.nditer (an overload)
from . import _npextra  # noqa: F401  np.meshgrid, np.pad, np.lexsort, np.put... (overloads)
from . import _npeinsum  # noqa: F401  np.einsum (an overload)
from . import _ctypesfn  # ctypes functions called through their address
from . import types as _types
from . import ufunc as _ufunc

_known = None  # id(obj) -> (obj, qualname) of the functions/classes the compiler knows


def _numpy_class_name(cls):
    if cls is np.bool_:
        return "numpy.bool_"  # one spelling under NumPy 1.x and 2.x
    import warnings
    try:
        with warnings.catch_warnings():
            # NumPy 1.x only warns on abstract classes (np.floating...)
            warnings.simplefilter("error", DeprecationWarning)
            return "numpy." + np.dtype(cls).name
    except (TypeError, DeprecationWarning):  # abstract: np.number, np.character...
        return "numpy." + cls.__name__


# Modules whose functions and classes the compiler knows by name, scanned in
# this order (the first name registered for an object wins).  Only modules
# already imported are scanned: user code cannot hold an object of a module
# nobody imported, and importing numpy.random alone costs ~10 ms.
_KNOWN_MODULES = ("builtins", "math", "cmath", "numpy", "numpy.linalg", "numpy.random", "numpy.lib.stride_tricks",
                  "hpcjit.mpi")
_scanned = set()


def _scan_module(add, mod):
    name = mod.__name__
    ns = vars(mod)
    if name in ("builtins", "math", "cmath", "hpcjit.mpi"):
        for attr, obj in ns.items():
            if not attr.startswith("_") and callable(obj):
                add(obj, f"{name}.{attr}")
        return
    # numpy: canonical names first (np.abs is registered as numpy.absolute)
    for attr, obj in ns.items():
        if attr.startswith("_") or isinstance(obj, _pytypes.ModuleType) or not callable(obj):
            continue
        if isinstance(obj, type) and issubclass(obj, np.generic):
            add(obj, _numpy_class_name(obj))
            continue
        canon = getattr(obj, "__name__", None)
        if isinstance(canon, str) and ns.get(canon) is obj:
            add(obj, f"{name}.{canon}")
    for attr, obj in ns.items():
        if not attr.startswith("_") and callable(obj) and not isinstance(obj, _pytypes.ModuleType):
            add(obj, f"{name}.{attr}")


def _known_objects(want=None):
    """The identity map of known objects: builtins, math, cmath, numpy (ufuncs
    and scalar classes included), numpy.linalg, numpy.random and hpcjit's own,
    extended when one of those modules has been imported since.  With `want`
    (an object), scanning stops at the first module that names it: `range`
    needs only builtins, not the ~1 ms numpy scan.  Modules are always
    scanned in _KNOWN_MODULES order, so the name an object gets is the same."""
    global _known
    known = _known
    if known is None:
        known = _known = {}

    def add(obj, qual):
        # the object is kept in the value so that its id stays unique
        known.setdefault(id(obj), (obj, qual))

    if not known:
        from . import prange, pndindex, get_thread_id, get_num_threads, set_num_threads, literal_unroll
        from . import get_parallel_chunksize, set_parallel_chunksize, parallel_chunksize, literally
        add(prange, "hpcjit.prange")
        add(pndindex, "hpcjit.pndindex")
        add(literal_unroll, "hpcjit.literal_unroll")
        add(literally, "hpcjit.literally")
        # the pool from jitted code (also as numba.*, below)
        add(get_thread_id, "hpcjit.get_thread_id")
        add(get_num_threads, "hpcjit.get_num_threads")
        add(set_num_threads, "hpcjit.set_num_threads")
        add(get_parallel_chunksize, "hpcjit.get_parallel_chunksize")
        add(set_parallel_chunksize, "hpcjit.set_parallel_chunksize")
        add(parallel_chunksize, "hpcjit.parallel_chunksize")  # only as `with parallel_chunksize(n):`
        from .numpy_support import carray, farray
        add(carray, "hpcjit.carray")
        add(farray, "hpcjit.farray")
        from . import _pylib, typed
        add(_pylib._enum_repr, "hpcjit.$enum_repr")
        add(typed.List, "hpcjit.typed.List")
        add(typed.Dict, "hpcjit.typed.Dict")
        add(typed.Set, "hpcjit.typed.Set")
        # hpcjit's own scalar types used as casts: float64(x)
        for t in (_types.boolean, _types.int8, _types.int16, _types.int32, _types.int64,
                  _types.uint8, _types.uint16, _types.uint32, _types.uint64, _types.float32,
                  _types.float64, _types.complex64, _types.complex128):
            add(t, "numpy.bool_" if t is _types.boolean else "numpy." + t.name)
    if want is not None and id(want) in known:
        return known
    modules = sys.modules
    if "numba" not in _scanned and modules.get("numba") is not None:
        nb = modules["numba"]
        _scanned.add("numba")
        for attr in ("get_thread_id", "get_num_threads", "set_num_threads", "literal_unroll", "literally",
                     "get_parallel_chunksize", "set_parallel_chunksize", "parallel_chunksize"):
            if callable(getattr(nb, attr, None)):
                add(getattr(nb, attr), "hpcjit." + attr)
    for name in _KNOWN_MODULES:
        if name not in _scanned:
            mod = builtins if name == "builtins" else modules.get(name)
            if mod is not None:
                _scan_module(add, mod)
                _scanned.add(name)
                if want is not None and id(want) in known:
                    break
    return known


def _article(word):
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


_pylib = None


def _pylib_dispatcher(value):
    """The compiled Python version of a builtin or library function
    (_pylib.py: any, all, heapq...), or None."""
    global _pylib
    if _pylib is None:
        from . import _pylib as mod
        _pylib = mod.PYLIB
    e = _pylib.get(id(value))
    return e[1] if e is not None and e[0] is value else None


def _classify(value, gather):
    """(kind, payload) of one global/closure value (see compiler.h HjEnvKind)."""
    if isinstance(value, _core.Dispatcher):
        return ("func", gather.add(value))
    lib = _pylib_dispatcher(value) if callable(value) else None
    if lib is not None:  # any(), heapq.heappush...: compiled Python (_pylib.py)
        return ("func", gather.add(lib))
    if isinstance(value, _ufunc.CFunc):  # a @cfunc called (or passed) in compiled code: its function
        return ("func", gather.add(value._disp))
    gu = _ufunc.gufunc_overload(value) if id(value) in _ufunc.GUFUNCS else None
    if gu is not None:  # a @guvectorize gufunc: a loop over its kernel, generated per call types
        return ("func", gather.add_stub(gu))
    vec = _ufunc.vectorize_overload(value) if id(value) in _ufunc.SCALAR_KERNELS else None
    if vec is not None:  # a @vectorize ufunc: its kernel on numbers, a broadcasting loop on arrays
        return ("func", gather.add_stub(vec))
    if isinstance(value, _pytypes.ModuleType):
        # numba, numba.types, numba.cuda... under the drop-in are aliases of
        # hpcjit's modules (numba.py): the compiler knows those names
        target = getattr(value, "__hpcjit_target__", None)
        if isinstance(target, _pytypes.ModuleType) and target.__name__.split(".")[0] == "hpcjit":
            return ("module", target.__name__)
        return ("module", value.__name__)
    if isinstance(value, _enum.EnumMeta):  # `Color.RED`: the members are its env attributes
        return ("module", _enum_qualname(value))
    if isinstance(value, _enum.Enum):
        header = _core._nt_header(type(value))  # "N<id>:<name>:_value_:" (namedtuple.c)
        if header is None:
            return ("other", f"the member {value!r} of an Enum class hpcjit cannot name")
        if isinstance(value, int):  # IntEnum/IntFlag: an int that keeps its class ("N<id>:<name>:_int_:", or _flag_)
            v = int(value)
            if _INT64_MIN <= v <= _INT64_MAX:
                return ("ntuple", (header[1:-1], [(None, "int", v)]))
            return ("other", "an IntEnum member that does not fit in int64")
        return ("ntuple", (header[1:-1], [(None,) + _classify(value.value, gather)]))
    cuda_api = sys.modules.get("hpcjit.cuda.device_api")
    if cuda_api is not None and isinstance(value, cuda_api.DeviceObject):
        # cuda.threadIdx, cuda.syncthreads...: compiler/lib/cuda by name
        if isinstance(value, cuda_api.Namespace):
            return ("module", value._hpcjit_qualname_)
        return ("builtin", value._hpcjit_qualname_)
    cuda_compiler = sys.modules.get("hpcjit.cuda.compiler")
    if cuda_compiler is not None and isinstance(value, cuda_compiler.DeviceFunction):
        return ("func", gather.add(value))  # cuda.jit(device=True): called from kernels
    # every known object is callable: constants need no scan
    k = _known_objects(value).get(id(value)) if callable(value) else None
    if k is not None and k[0] is value:
        return ("builtin", k[1])
    if isinstance(value, np.dtype):  # a dtype object (a structured one: a record type)
        t = _types._dtype_type(value)
        if t is not None and t.typecode is not None:
            return ("builtin", "hpcjit.types.$" + t.typecode)
    if isinstance(value, _types.Type):
        # a type object (types.float64[:]) as a value: typed.List.empty_list's argument
        if value.typecode is not None:
            return ("builtin", "hpcjit.types.$" + value.typecode)
        return ("other", f"the type {value}, which hpcjit cannot compile yet")
    exp = sys.modules.get("hpcjit.experimental")
    if exp is not None:  # jitclasses (experimental.py, compiler/infer/infer_jitclass.c)
        if value is exp._jc_alloc:
            return ("builtin", "hpcjit.experimental.$jc_alloc")
        if isinstance(value, exp.JitClassType):
            gather.jitclasses.add(value._id)
            return ("builtin", f"$jcclass:{value._id}")
    if isinstance(value, _npiter.BuiltinRef):  # a compiler builtin named by an overload's implementation
        return ("builtin", value.qualname)
    if isinstance(value, _nppoly.StructMaker):  # a registered class's maker: its named tuple constructor
        header = _core._nt_header(value.cls)
        if header is not None:
            return ("builtin", "$nt:" + header[1:-1])
    if isinstance(value, type) and issubclass(value, BaseException) and value.__module__ != "builtins":
        name = _exc_class(value)
        if name is None:
            return ("other", f"the exception class {value.__qualname__} (its name and bases are too long)")
        return ("builtin", name)
    if isinstance(value, type) and issubclass(value, tuple) and value is not tuple:
        header = _core._nt_header(value)  # a named tuple class: "N<id>:<name>:<fields>:"
        if header is not None:
            return ("builtin", "$nt:" + header[1:-1])
    if _ctypesfn.is_foreign(value):  # a ctypes function: called through its address (_ctypesfn.py)
        try:
            value = _ctypesfn.intrinsic_of(value)
        except errors.TypingError as e:
            return ("other", f"a ctypes function ({e})")
    elif _ctypesfn.is_wap(value):  # a WAP object (numba-stats' scipy.special): called through its address
        try:
            value = _ctypesfn.wap_intrinsic_of(value)
        except errors.TypingError as e:
            return ("other", f"a Wrapper Address Protocol object ({e})")
    if callable(value):
        from . import extending  # hpcjit.extending.overload(func) / @intrinsic
        ov = extending.overloads_of(value)
        if ov is not None:
            return ("func", gather.add_stub(ov))
    if isinstance(value, (np.datetime64, np.timedelta64)):  # before int: np.timedelta64 is an np.integer
        t = _types._dtype_type(value.dtype)  # frozen, as Numba freezes them
        if t is None:
            return ("other", f"a {value.dtype} value (a unit of more than one base unit)")
        return ("datetime", (t.typecode, int(value.view(np.int64))))
    if isinstance(value, (bool, np.bool_)):  # before int: bool is an int
        return ("bool", bool(value))
    if isinstance(value, (int, np.integer)):
        v = int(value)
        if _INT64_MIN <= v <= _INT64_MAX:
            return ("int", v)
        return ("other", "an int that does not fit in int64")
    if isinstance(value, (float, np.floating)):
        return ("float", float(value))
    if isinstance(value, (complex, np.complexfloating)):
        return ("complex", complex(value))
    if value is None:
        return ("none", None)
    if isinstance(value, str):
        return ("str", value)
    if isinstance(value, tuple):
        return ("tuple", [(_tuple_item_name(v),) + _classify(v, gather) for v in value])
    if isinstance(value, np.ndarray):
        # frozen into the compiled code as a read-only constant (Numba's rule)
        code = _ARRAY_CODES.get(value.dtype)
        if code is None and value.dtype.kind in "Mm":  # datetime64/timedelta64: "MD", "ms"
            t = _types._dtype_type(value.dtype)
            code = t.typecode if t is not None else None
        if code is None or value.ndim > 9:
            return ("other", f"an array of {value.dtype} with {value.ndim} dimensions")
        return ("array", (f"r{code}{value.ndim}C", [int(n) for n in value.shape],
                          np.ascontiguousarray(value).tobytes()))
    return ("other", _article(type(value).__name__))


def _exc_class(cls):
    """A program's exception class as compiled code names it: "$exc:" and
    "<nearest builtin base>|<key>|<key of each base that is not a builtin>",
    each key a hash of the class's module and qualified name (the same in
    every process and rank), the class registered under it for the
    dispatcher (python/core/dispatcher.c) and handlers matching by keys
    (runtime/exceptions.c).  None when that does not fit the runtime's 64
    characters."""
    import hashlib
    keys, base = [], "Exception"
    for c in cls.__mro__:
        if c.__module__ == "builtins":
            base = c.__name__
            break
        key = hashlib.sha1(f"{c.__module__}.{c.__qualname__}".encode()).hexdigest()[:8]
        _core._register_exception(key, c)
        keys.append(key)
    name = "|".join([base] + keys)
    return "$exc:" + name if len(name) < 64 else None


def _tuple_item_name(v):
    """An array in a global tuple (pynndescent's `dist_args = (sigma,)`) is
    frozen as a global array is: named by its contents, so that compiled
    code finds its items (infer.c env_const, lower_expr.c frozen_array)
    and the cache key stays the same from run to run."""
    if not isinstance(v, np.ndarray):
        return None
    import hashlib
    h = hashlib.sha1(np.ascontiguousarray(v).tobytes())
    h.update(f"{v.dtype.str}{v.shape}".encode())
    return f"$array:{h.hexdigest()[:20]}"


def _enum_qualname(cls):
    """The module-like name an Enum class has in the env: `Color.RED` is
    the env entry "<it>.RED" (infer_module_env_attr)."""
    return f"$enum:{cls.__module__}.{cls.__qualname__}"


def _enum_attrs(cls, names, gather, env):
    """The members of an Enum class that the code names, as module attributes."""
    q = _enum_qualname(cls)
    members = cls.__members__
    for attr in sorted(names):
        m = members.get(attr)
        if m is not None:
            env.append((f"{q}.{attr}",) + _classify(m, gather))


_ARRAY_CODES = {np.dtype(t): c for t, c in (
    (np.bool_, "?"), (np.int8, "b"), (np.int16, "h"), (np.int32, "i"), (np.int64, "l"),
    (np.uint8, "B"), (np.uint16, "H"), (np.uint32, "I"), (np.uint64, "L"), (np.float32, "f"),
    (np.float64, "d"), (np.complex64, "F"), (np.complex128, "D"))}


def _code_names(code, out):
    out.update(code.co_names)
    for c in code.co_consts:
        if isinstance(c, _pytypes.CodeType):
            _code_names(c, out)
    return out


def _code_strs(code, out):
    """The identifiers among the code's str constants: `Color['RED']`
    names the member RED."""
    for c in code.co_consts:
        if isinstance(c, str) and c.isidentifier():
            out.add(c)
        elif isinstance(c, _pytypes.CodeType):
            _code_strs(c, out)
    return out


_GLOBAL_LOADS = ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF", "LOAD_CLASSDEREF")


# code object -> its _global_chain_names (a function of the code alone:
# every compilation that gathers a function again, e.g. each earlier
# implementation of an overload, would scan its bytecode again)
_CHAIN_NAMES = weakref.WeakKeyDictionary()


def _global_chain_names(code, out):
    """Names a function reaches from a global: `np.dtype`, `np.random.foo`
    and `dtype` (a global) give dtype, random, foo; `a.dtype` on a local
    gives nothing.  For overloads reached by qualified name (named_env), so
    that an attribute of a value with the same name does not pull them in."""
    known = _CHAIN_NAMES.get(code)
    if known is None:
        known = _CHAIN_NAMES[code] = frozenset(_scan_chain_names(code, set()))
    out |= known
    return out


def _scan_chain_names(code, out):
    import dis
    chain = False
    for ins in dis.get_instructions(code):
        if ins.opname in _GLOBAL_LOADS:
            out.add(ins.argval)
            chain = True
        elif chain and ins.opname in ("LOAD_ATTR", "LOAD_METHOD"):
            out.add(ins.argval)
        elif ins.opname not in ("CACHE", "EXTENDED_ARG", "PRECALL"):
            chain = False
    for c in code.co_consts:
        if isinstance(c, _pytypes.CodeType):
            _scan_chain_names(c, out)
    return out


def _import_module(modname):
    """The module an import statement in compiled code names: the packages
    the compiler knows are imported (as the function would import them);
    another module only when Python has imported it already (importing it
    here could run its code at compile time).  None when neither."""
    import importlib
    top = modname.split(".")[0]
    if top in _KNOWN_PACKAGES or modname in _NAMED_MODULES or top in ("hpcjit", "numba"):
        try:
            return importlib.import_module(modname)
        except ImportError:
            return None
    return sys.modules.get(modname)


def _import_bindings(code):
    """[(name, value or None, module)] for the names that the import
    statements of the code bind (`import numpy as np`, `from math import
    sqrt`), read from the bytecode: the compiler binds them as globals
    (compiler/infer/infer.c check_import), None where the module cannot be
    had (_import_module) or has no such attribute."""
    import dis
    out = []
    stack = []  # (value, module name) of IMPORT_NAME / IMPORT_FROM results
    consts = [0, None]  # the level and fromlist loaded before IMPORT_NAME
    # most code imports nothing: its opcodes (every other byte of the
    # wordcode) tell without decoding the instructions
    imports = dis.opmap["IMPORT_NAME"] in code.co_code[0::2]
    for ins in dis.get_instructions(code) if imports else ():
        op = ins.opname
        if op == "LOAD_CONST":
            consts = [consts[1], ins.argval]
        elif op == "IMPORT_NAME":
            level, fromlist = consts
            modname = ins.argval
            if level:  # relative: no package to resolve it against in compiled code
                stack.append((None, "." * level + modname))
                continue
            mod = _import_module(modname)
            if fromlist is None:  # `import a.b` (and `import a.b as c`, then IMPORT_FROM b) start at a
                modname = modname.split(".")[0]
                mod = sys.modules.get(modname) if mod is not None else None
            stack.append((mod, modname))
        elif op == "IMPORT_FROM" and stack:
            base, modname = stack[-1]
            value = getattr(base, ins.argval, None) if base is not None else None
            if value is None and base is not None:
                value = _import_module(f"{modname}.{ins.argval}")
            stack.append((value, f"{modname}.{ins.argval}"))
        elif op in ("STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF") and stack:
            value, modname = stack.pop()
            out.append((ins.argval, value, modname))
        elif op == "POP_TOP" and stack:
            stack.pop()
    for c in code.co_consts:
        if isinstance(c, _pytypes.CodeType):
            out += _import_bindings(c)
    return out


def _env(py_func, gather, disp=None):
    """Every global, builtin and closure name the function's code uses.
    The function's own name, not bound yet (an explicit signature compiles
    at decoration, before `fib = njit(sig)(fib)` binds it), is the
    dispatcher `disp` being compiled: self-recursion, as Numba resolves it."""
    code = py_func.__code__
    env = []
    seen = set()
    names = _code_names(code, set())
    if code.co_freevars and py_func.__closure__:
        for name, cell in zip(code.co_freevars, py_func.__closure__):
            try:
                value = cell.cell_contents
            except ValueError:  # an empty cell: assigned later in the outer function
                if disp is not None and name == py_func.__name__:  # itself, eagerly compiled
                    seen.add(name)
                    env.append((name, "func", gather.add(disp)))
                continue
            seen.add(name)
            env.append((name,) + _classify(value, gather))
            if isinstance(value, _pytypes.ModuleType):
                _module_attrs(value, names, gather, env, 0)
            elif isinstance(value, _enum.EnumMeta):
                _enum_attrs(value, names | _code_strs(code, set()), gather, env)
    for name, value, modname in _import_bindings(code):  # import statements: globals of the function
        if name in seen:
            continue
        seen.add(name)
        if value is None:
            env.append((name, "other", f"'{modname}' is not a module the compiler knows nor one already "
                        "imported, or a name its module lacks"))
            continue
        env.append((name,) + _classify(value, gather))
        if isinstance(value, _pytypes.ModuleType):
            _module_attrs(value, names, gather, env, 0)
    glb = py_func.__globals__
    blt = glb.get("__builtins__", builtins)
    if isinstance(blt, _pytypes.ModuleType):
        blt = vars(blt)
    missing = object()
    for name in sorted(names):
        if name in seen:
            continue
        value = glb.get(name, missing)
        if value is missing:
            value = blt.get(name, missing)
        if value is missing and disp is not None and name == py_func.__name__:
            env.append((name, "func", gather.add(disp)))  # already gathered: its index
            continue
        if value is missing:
            continue  # an attribute name, or truly undefined: the compiler says which
        env.append((name,) + _classify(value, gather))
        if any(value is b for b in (builtins.iter, builtins.zip, builtins.enumerate, builtins.map, builtins.filter,
                                    builtins.reversed)):
            from . import _pylib as pl  # their objects as values: generators (_pylib.helpers)
            env += [(hname, "func", gather.add(h)) for hname, h in pl.helpers(value)]
        from . import _pylib as pl
        if (name in pl.KEY_NAMES and value is getattr(builtins, name)
                and names & {"sorted", "sort", "min", "max"}):  # key=len: a jitted function of one item
            env.append((f"<pylib>key_{name}", "func", gather.add(getattr(pl, "key_" + name))))
        if isinstance(value, _pytypes.ModuleType):
            _module_attrs(value, names, gather, env, 0)
        elif isinstance(value, _enum.EnumMeta):
            _enum_attrs(value, names | _code_strs(code, set()), gather, env)
    return env


def _default_env(py_func, source, seen, gather):
    """Env entries for the default values written as a name (`tol=TOL_PIV`;
    the body need not read the global): the name bound to the value in
    __defaults__/__kwdefaults__, as Numba reads them, which the compiler
    folds into the parameter's default (compiler/infer/infer.c
    fold_name_defaults)."""
    written = _DEFAULT_NAMES.get(source)
    if written is None:
        written = _DEFAULT_NAMES[source] = _default_names(source)
    positional, keyword = written
    pairs = []
    defaults = py_func.__defaults__ or ()
    if len(positional) == len(defaults):
        pairs += list(zip(positional, defaults))
    kwdefaults = py_func.__kwdefaults__ or {}
    for arg, name in keyword:
        if arg in kwdefaults:
            pairs.append((name, kwdefaults[arg]))
    env = []
    for name, value in pairs:
        if name is not None and name not in seen:
            seen.add(name)
            env.append((name,) + _classify(value, gather))
    return env


# source text -> _default_names of it (parsing it again for every gather of
# the function, e.g. of each earlier implementation of an overload, was most
# of an overload call's compile time)
_DEFAULT_NAMES = {}


def _default_names(source):
    """([the name or None per positional default], [(kw-only parameter,
    name)]) of the outer def's defaults written as a plain name."""
    import ast
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return [], []
    fn = next((n for n in ast.walk(tree)  # the outer def comes first
               if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))), None)
    if fn is None:
        return [], []
    name = lambda e: e.id if isinstance(e, ast.Name) else None
    return ([name(d) for d in fn.args.defaults],
            [(arg.arg, name(d)) for arg, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults) if d is not None])


# modules whose attributes the compiler knows by name (compiler/lib): the
# first five with their submodules (numpy.linalg...), the others exactly
_KNOWN_PACKAGES = ("numpy", "math", "cmath", "random", "operator", "builtins")
_NAMED_MODULES = ("hpcjit", "hpcjit.cuda", "hpcjit.types", "hpcjit.mpi", "numba")


def _module_attrs(mod, names, gather, env, depth):
    """`mymod.f(x)`, `pkg.sub.CONST`: the attributes of a user's module that
    the code names (co_names holds attribute names too), in the env under
    their qualified names (compiler/infer/infer.c, infer_module_env_attr)."""
    target = getattr(mod, "__hpcjit_target__", mod)
    modname = getattr(target, "__name__", "")
    if modname == "operator":  # operator.add...: compiled Python (_pylib.py)
        from . import _pylib as pl
        for attr in sorted(names & pl.operator_names()):
            env.append((f"operator.{attr}",) + _classify(getattr(mod, attr), gather))
        return
    if modname == "math":  # math.comb...: compiled Python (_pylib.py); the others are the compiler's
        from . import _pylib as pl
        for attr in sorted(names & pl.math_names()):
            env.append((f"math.{attr}",) + _classify(getattr(mod, attr), gather))
        return
    if modname in ("hpcjit", "numba") and "config" in names:
        # `numba.config.NUMBA_NUM_THREADS` (stumpy): the settings module's
        # values frozen at compile time, as Numba reads module globals
        from . import config as cfg
        env.append((f"{modname}.config", "module", cfg.__name__))
        _module_attrs(cfg, names, gather, env, depth + 1)
    if depth > 3 or modname.split(".")[0] in _KNOWN_PACKAGES or modname in _NAMED_MODULES:
        return
    d = getattr(target, "__dict__", {})
    for attr in sorted(names):
        value = d.get(attr, _MISSING)
        if value is _MISSING:
            continue
        env.append((f"{modname}.{attr}",) + _classify(value, gather))
        if isinstance(value, _pytypes.ModuleType):
            _module_attrs(value, names, gather, env, depth + 1)
        elif isinstance(value, _enum.EnumMeta):
            _enum_attrs(value, names, gather, env)


_MISSING = object()


class _Source:
    __slots__ = ("source", "first_line", "col_offset", "filename", "decompiled")

    def __init__(self):
        self.decompiled = False


def _register_command_source(py_func):
    """`python -c CODE`: functions have co_filename "<string>" and inspect
    cannot find their source, but sys.orig_argv still holds CODE.  Make it
    visible to linecache when the function's def line is found there (exec()
    of other strings also uses "<string>", so check before trusting it)."""
    import linecache
    code = py_func.__code__
    argv = getattr(sys, "orig_argv", None)
    if code.co_filename != "<string>" or not argv or "-c" not in argv:
        return False
    i = argv.index("-c")
    if i + 1 >= len(argv):
        return False
    lines = argv[i + 1].splitlines(True)
    n = code.co_firstlineno
    if not 1 <= n <= len(lines):
        return False
    # the def may sit below its decorators
    window = "".join(lines[n - 1:n + 20])
    if f"def {py_func.__name__}" not in window and "lambda" not in window:
        return False
    linecache.cache["<string>"] = (len(argv[i + 1]), None, lines, "<string>")
    return True


def _code_last_line(code, last):
    """The last source line any instruction of `code` (nested code included)
    comes from."""
    if hasattr(code, "co_positions"):
        ends = (pos[1] for pos in code.co_positions())
    else:  # 3.10: start lines only; the checks in _fast_source_lines cover the rest
        ends = (line for _, _, line in code.co_lines())
    for end in ends:
        if end is not None and end > last:
            last = end
    for c in code.co_consts:
        if isinstance(c, _pytypes.CodeType):
            last = _code_last_line(c, last)
    return last


def _indent(line):
    return len(line) - len(line.lstrip(" \t"))


def _fast_source_lines(py_func):
    """(lines, first_line) of the def from linecache and the code object's
    positions, or None when that is not conclusive (inspect decides then).
    inspect.getsourcelines tokenizes the whole block, ~1-2 ms a function."""
    import linecache
    code = py_func.__code__
    if code.co_name == "<lambda>":
        return None
    filename = code.co_filename
    linecache.checkcache(filename)
    lines = linecache.getlines(filename, py_func.__globals__)
    first = code.co_firstlineno  # the first decorator's line
    if not lines or not 1 <= first <= len(lines):
        return None
    last = min(_code_last_line(code, first), len(lines))
    # statements without code (pass, a string) may end the body: take the
    # lines indented deeper than the def, then drop trailing blank and
    # comment lines
    base = _indent(lines[first - 1])
    n = last
    while n < len(lines):
        text = lines[n]
        if text.strip() and not text.lstrip().startswith("#") and _indent(text) <= base:
            break
        n += 1
    while n > last and (not lines[n - 1].strip() or lines[n - 1].lstrip().startswith("#")):
        n -= 1
    block = lines[first - 1:n]
    # a block cut short (a body ending in a bare string with lines at column 0)
    # or text that is not this code's (an edited file) does not parse:
    # inspect decides then
    try:
        compile(_srctext.dedent("".join(block))[0], filename, "exec", ast.PyCF_ONLY_AST,
                dont_inherit=True)
    except Exception:  # SyntaxError, MemoryError, RecursionError on odd input
        return None
    return block, first


def _lambda_in_file(code, lambdas):
    """(the ast.Lambda, the file's text) of `code` found by parsing its whole
    file, or None: the lambdas on its first line, told apart by the column of
    its first instruction when there are several."""
    import linecache
    text = "".join(linecache.getlines(code.co_filename))
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    found = [n for n in lambdas(tree) if n.lineno == code.co_firstlineno]
    if len(found) > 1:
        pos = [(ln, col) for ln, _, col, end in code.co_positions()  # RESUME's is (line, 0, 0)
               if ln is not None and col is not None and end is not None and end > col]
        if not pos:
            return None
        at = min(pos)
        found = [n for n in found if (n.body.lineno, n.body.col_offset) <= at
                 <= (n.body.end_lineno, n.body.end_col_offset)]
    return (found[0], text) if len(found) == 1 else None


def _lambda_source(py_func, lines, first_line):
    """A def standing for the lambda of `py_func` found in `lines` (the
    source lines that hold it, from `first_line`): `def _lambda_(args):` on
    the line above and `return <body>` with the body at its own line and
    column, so that diagnostics point into the user's text.  None when the
    lambda cannot be told apart."""
    code = py_func.__code__
    names = list(code.co_varnames[:code.co_argcount])

    def lambdas(tree):
        return [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)
                and [a.arg for a in n.args.args] == names and not n.args.vararg and not n.args.kwarg
                and not n.args.kwonlyargs and not n.args.defaults]

    text = "".join(lines)
    dedented, shift = _srctext.dedent(text)
    try:
        found = lambdas(ast.parse(dedented))
    except SyntaxError:  # a lambda in a call's continuation line, `.apply(lambda x: ...)`
        found = []
    if len(found) != 1:  # the whole file: the lambdas that start on the code's first line
        found = _lambda_in_file(code, lambdas)
        if found is None:
            return None
        dedented, shift, first_line = found[1], 0, 1
        found = [found[0]]
    lam = found[0]
    body = ast.get_source_segment(dedented, lam.body)
    if body is None:
        return None
    line = first_line + lam.body.lineno - 1  # the body's line in the file
    col = lam.body.col_offset + shift        # and column
    head = f"def _lambda_({', '.join(names)}):\n"
    # a body over several lines was inside parentheses the segment leaves out
    ret, close = ("return (", ")") if "\n" in body else ("return ", "")
    pad = col - len(ret)
    if pad < 1:  # no room left of the body: keep the line, not the column
        pad = 4
    return head + " " * pad + ret + body + close + "\n", line - 1


def _source(disp):
    """Dedented source of the def (decorators included), cached on the dispatcher."""
    d = disp.__dict__
    src = d.get("_hj_source")
    if src is not None:
        return src
    py_func = disp.py_func
    if (os.environ.get("HPCJIT_SOURCE_FROM_BYTECODE") == "1"  # tests of bytecode.py
            and not (getattr(py_func, "__module__", None) or "").startswith("hpcjit.")):
        # (hpcjit's own helpers, _pylib's generators among them, keep their source)
        src = _decompiled_source(py_func, "HPCJIT_SOURCE_FROM_BYTECODE=1")
        d["_hj_source"] = src
        return src
    found = _fast_source_lines(py_func)
    if found is not None:
        lines, first_line = found
    else:
        import inspect
        try:
            try:
                lines, first_line = inspect.getsourcelines(py_func)
            except OSError:
                if not _register_command_source(py_func):
                    raise
                lines, first_line = inspect.getsourcelines(py_func)
        except (OSError, TypeError) as exc:
            # exec(), `python - <<EOF`: the source is rebuilt from the bytecode
            src = _decompiled_source(py_func, exc)
            d["_hj_source"] = src
            return src
    if py_func.__code__.co_name == "<lambda>":
        made = _lambda_source(py_func, lines, first_line)
        if made is None:
            raise errors.UnsupportedError(
                f"cannot compile the lambda of {py_func.__qualname__} at "
                f"{py_func.__code__.co_filename}:{py_func.__code__.co_firstlineno}: several lambdas "
                f"with the same arguments (or defaults, *args) on its lines; use a def")
        lines, first_line = [made[0]], made[1]
    text = "".join(lines)
    dedented, col_offset = _srctext.dedent(text)
    src = _Source()
    src.source = dedented
    src.first_line = max(first_line, 1)
    src.col_offset = col_offset
    src.filename = py_func.__code__.co_filename
    d["_hj_source"] = src
    return src


def _decompiled_source(py_func, exc):
    """A _Source rebuilt from the code object (bytecode.py), its lines at
    the user's line numbers; marked so that diagnostics say so."""
    from . import bytecode
    code = py_func.__code__
    try:
        text, first_line = bytecode.decompile(py_func)
    except bytecode.DecompileError as err:
        line = err.lineno or code.co_firstlineno
        raise errors.UnsupportedError(
            f"{code.co_filename}:{line}: error: cannot compile {py_func.__qualname__}: its source "
            f"code is not available ({exc}) and it cannot be reconstructed from its bytecode: "
            f"{err} is not supported") from None
    src = _make_source(text, first_line, 0, code.co_filename)
    src.decompiled = True
    return src


def _make_source(text, first_line, col_offset, filename):
    src = _Source()
    src.source = text
    src.first_line = max(first_line, 1)
    src.col_offset = col_offset
    src.filename = filename
    return src


def _lifted(disp, src):
    """(source, [(name, Lifted)]) with the inner functions lifted, or None
    (cached on the dispatcher)."""
    d = disp.__dict__
    if "_hj_lifted" not in d:
        from . import closures
        got = closures.lift(disp.py_func, src, disp.targetoptions, _make_source)
        if got is not None:
            got = (_make_source(got[0], src.first_line, src.col_offset, src.filename), got[1])
        d["_hj_lifted"] = got
    return d["_hj_lifted"]


_COMPILER_OPTIONS = ("fastmath", "boundscheck", "error_model", "nogil", "parallel", "inline",
                     "poll_signals")
# only meaningful with parallel=True (prange loops on the pool)
_PARALLEL_OPTIONS = ("deterministic", "schedule")


# builtins that take an array-like argument as a list or tuple through
# np.asarray (infer_asarray_arg in compiler/infer/infer_args.c)
_ASARRAY_USERS = frozenset(("percentile", "quantile", "nanpercentile", "nanquantile", "searchsorted", "digitize",
                            "interp", "append"))


class _Gather:
    """Collects every @njit function reachable from the entry, each once."""

    def __init__(self):
        self.funcs = []
        self.index = {}
        self.keep = []  # the dispatchers, so that ids stay unique meanwhile
        self.stubs = {}  # func index -> extending._Overload
        self._named = None
        self.jitclasses = set()  # ids of the jitclasses met (experimental.py)
        self.decompiled = {}  # filename -> qualnames whose text came from bytecode
        self.disps = {}  # func index -> dispatcher (literal dispatch requests name them)

    def add_entry(self, disp, argcodes=()):
        """add(disp), then the hidden globals of every jitclass the
        functions or the argument types name, in every function's
        environment (compiler/infer/infer_jitclass.c)."""
        import re
        entry = self.add(disp)
        exp = sys.modules.get("hpcjit.experimental")
        if exp is None:
            return entry
        ids = lambda text: {int(m) for m in re.findall(r"J(\d+)", text) if int(m) < len(exp._classes)}
        for code in argcodes:
            self.jitclasses |= ids(code)
        done, extra = set(), []
        while self.jitclasses - done:
            for i in sorted(self.jitclasses - done):
                done.add(i)
                cls = exp._classes[i]
                extra += cls._env(self)  # may meet more classes
                for _, t in cls.spec:
                    self.jitclasses |= ids(t.typecode or "")  # None: a deferred_type() not defined yet
        for f in self.funcs:
            f[6].extend(extra)
        return entry

    def add_stub(self, ov):
        """A stub function for an overload (compiler.h HJ_STUB_OVERLOAD)."""
        idx = self.index.get(id(ov))
        if idx is not None:
            return idx
        idx = len(self.funcs)
        self.index[id(ov)] = idx
        self.keep.append(ov)
        self.stubs[idx] = ov
        self.funcs.append(None)
        impls = []
        for key, (disp, kind, msg) in list(ov.impls.items()):
            if isinstance(disp, _ir_impl_class()):  # a portable @intrinsic's code
                fidx = len(self.funcs)
                self.funcs.append((disp.name, disp.symbol, "<intrinsic>", disp.text, 1, 0, [], {},
                                   ("llvmir", disp.ret_typecode, disp.arg_typecodes)))
                impls.append((key, fidx, kind, msg))
                continue
            if disp is not None and getattr(getattr(disp, "py_func", None), "__hpcjit_elementwise__", False):
                # one element of a @vectorize call on arrays (ufunc.py): fused by the compiler
                impls.append((key, self.add(disp), kind, msg, 1))
                continue
            impls.append((key, self.add(disp) if disp is not None else -1, kind, msg))
        stub = ("overload", impls, 1) if ov.caller_parallel else ("overload", impls)
        self.funcs[idx] = (ov.name, ov.name, "<overload>", "", 1, 0, [], {}, stub)
        return idx

    def named_env(self, code):
        """Env entries for the overloads reached by qualified name, method
        and attribute name (extending.named_overloads()) that the code names."""
        from . import extending
        if not (extending._BY_ID or extending._METHODS or extending._ATTRS):
            return []
        if self._named is None:
            self._named = extending.named_overloads()
        names = _code_names(code, set())
        # builtins whose typing makes np.asarray(q) of a list argument
        # (compiler/lib/search/infer_search.c): the list overload comes too
        implied = {"asarray"} if names & _ASARRAY_USERS else set()
        names |= implied
        qualified = None  # names reached from a global, for "<overload>numpy.foo" (made on first need)
        out = []
        for name, ov in self._named:
            last = name.rsplit(".", 1)[-1].split(">", 1)[-1]
            if last not in names:
                continue
            if name.startswith("<overload>") and last not in implied:
                if qualified is None:
                    qualified = _global_chain_names(code, set())
                if last not in qualified:  # `a.dtype`: not np.dtype
                    continue
            out.append((name, "func", self.add_stub(ov)))
        return out

    def add(self, disp):
        idx = self.index.get(id(disp))
        if idx is not None:
            return idx
        idx = len(self.funcs)
        self.index[id(disp)] = idx
        self.keep.append(disp)
        self.disps[idx] = disp
        self.funcs.append(None)  # reserved: recursion finds the index above
        py_func = disp.py_func
        src = _source(disp)
        if src.decompiled:
            self.decompiled.setdefault(src.filename, []).append(py_func.__qualname__)
        env = _env(py_func, self, disp)
        if py_func.__defaults__ or py_func.__kwdefaults__:
            env += _default_env(py_func, src.source, {e[0] for e in env}, self)
        for name, lf in getattr(disp, "siblings", {}).items():  # a lifted inner function's
            env.append((name, "func", self.add(lf)))
        lifted = _lifted(disp, src)
        if lifted is not None:  # inner functions and named lambdas (closures.py)
            src, inner = lifted
            env = [e for e in env if e[0] not in dict(inner)]
            env += [(name, "func", self.add(lf)) for name, lf in inner]
        if "_hj_closure(" in src.source:  # an inner function passed as a value (closures.py _closure_text)
            env.append(("_hj_closure", "builtin", "hpcjit.$closure"))
        env += self.named_env(py_func.__code__)
        blocks = None
        if "objmode" in src.source:
            from . import objmode_blocks
            blocks = objmode_blocks.rewrite(disp, src, _make_source)
        if blocks:  # objmode blocks (objmode_blocks.py): the source calls stubs
            src = blocks[0]
            for name, handle, retcode in blocks[1]:
                bidx = len(self.funcs)
                self.funcs.append((name, name, src.filename, "", 1, 0, [], {},
                                   ("pycall", handle, retcode)))
                env.append((name, "func", bidx))
        opts = {k: disp.targetoptions[k] for k in _COMPILER_OPTIONS if k in disp.targetoptions}
        if not isinstance(opts.get("fastmath", False), bool):
            # Numba's set of flag names (stumpy: no nnan/ninf) as LLVM's bits;
            # read at each compile, as programs set targetoptions["fastmath"]
            from .dispatcher import fastmath_flags
            opts["fastmath"] = fastmath_flags(opts["fastmath"])
        lit = LITERAL_PARAMS.get(py_func.__code__)
        if lit:
            opts["literal_params"] = lit
        if getattr(disp, "_locked", False):  # explicit signatures: compiled calls use them (infer_call.c)
            sigs = [f"{i['rettype_code']}\t{''.join(i['argcodes'])}\n" for i in disp._infos
                    if not any("=" in c or "\x01" in c for c in i["argcodes"])]
            if sigs:
                opts["signatures"] = "".join(sigs)
        decl = disp.targetoptions.get("locals")
        if decl:  # the compiler reads "name\ttypecode\n" per variable (infer.c)
            opts["locals"] = "".join(f"{k}\t{t.typecode}\n" for k, t in sorted(decl.items()))
        if opts.get("parallel"):
            opts.update((k, disp.targetoptions[k]) for k in _PARALLEL_OPTIONS if k in disp.targetoptions)
        self.funcs[idx] = (py_func.__name__, py_func.__qualname__, src.filename, src.source,
                           src.first_line, src.col_offset, env, opts)
        # it may be given to an overload: found there by its key token (extending.py)
        _extending().register_function(disp, src.filename, py_func.__qualname__, src.first_line)
        return idx


def _extending():
    from . import extending
    return extending


def _ir_impl_class():
    from .extending import IRImpl
    return IRImpl


def gather(disp):
    """(funcs, entry index) in the format _compiler.compile takes."""
    g = _Gather()
    entry = g.add_entry(disp)
    return g.funcs, entry


# resolutions one compilation may ask for before it is given up (each
# resolution compiles the front end again)
_MAX_RESOLUTIONS = 200


# literal dispatch (numba.literally, compiler/infer/infer_literal.c): code
# object -> bit mask of the parameters compiled as literals of their
# arguments.  Kept by code object, so the implementations an overload's
# typing function returns (a new function each time) share it.
LITERAL_PARAMS = {}


class LiteralRetry(errors.TypingError):
    """The entry asked for literal dispatch on a parameter: the dispatcher
    keys that argument by its value now, and compiles again (a compilation
    without the values of a call, such as an explicit signature, cannot)."""


def _literal_request(disp, g, entry, need, argcodes):
    fidx, p = (int(x) for x in need[1:].split("\t", 1))
    target = g.disps.get(fidx)
    if target is None:
        raise errors.TypingError("literally(): a literal argument was asked of a function hpcjit "
                                 "cannot compile again")
    if p >= 64:
        raise errors.UnsupportedError("literally(): hpcjit takes literal arguments among the first 64")
    code = target.py_func.__code__
    mask = LITERAL_PARAMS.get(code, 0)
    tc = argcodes[p] if fidx == entry and p < len(argcodes) else None
    repeated = bool(mask >> p & 1) if fidx != entry else (tc is None or "\x01" in tc)
    if repeated:
        raise errors.CompilerError(
            f"Repeated literal typing request.\nArg #{p} of {target.py_func.__qualname__}: its "
            f"literal cannot be given (is the argument assigned in the function?)")
    keyed = disp.__dict__.get("_hj_litmask", 0) >> p & 1 if fidx == entry else 0
    if fidx == entry and (tc[0] not in "l?s" or keyed):  # int64, bool, str have literals
        cls = {"d": float, "f": float, "D": complex, "F": complex}.get(tc[0])
        what = repr(cls) if cls is not None else (
            "<class 'numpy.ndarray'>" if tc[0] == "a" else str(_types.from_typecode(tc)))
        if tc[0] in "l?s":  # the dispatcher could not key it: too long for a key
            what = f"this {_types.from_typecode(tc)} value (too long for a dispatch key)"
        raise errors.LiteralTypingError(f"{what} cannot be used as a literal")
    LITERAL_PARAMS[code] = mask | 1 << p
    if fidx == entry:
        raise LiteralRetry(f"{target.py_func.__qualname__}: argument {p} is compiled as a literal of "
                           f"its value (literally()), which needs the values of a call")


def compile_funcs(disp, *args):
    """_compiler.compile(funcs, entry, *args) on gather(disp), resolving
    the overloads the compilation meets (hpcjit.extending) and the literal
    arguments it asks for (literally()) in between."""
    from . import _compiler, extending
    resolved = []  # [(stub index, key)] resolved on the way; None after a literal request
    for _ in range(_MAX_RESOLUTIONS):
        g = _Gather()
        entry = g.add_entry(disp, args[0] if args else ())
        try:
            res = _compiler.compile(g.funcs, entry, *args)
        except errors.HpcjitError as e:
            need = getattr(e, "need_overload", None)
            if need is None:
                if g.decompiled:
                    _note_decompiled(e, g.decompiled)
                raise
            if need.startswith("L"):
                _literal_request(disp, g, entry, need, list(args[0]) if args else [])
                resolved = None
                continue
            idx, key = need.split("\t", 1)
            ov = g.stubs.get(int(idx))
            if ov is None or key in ov.impls:
                raise
            extending.resolve_need(ov, key)
            if resolved is not None:
                resolved.append((int(idx), key))
            continue
        # for the disk cache (cache.py): what was resolved, and the code as compiled
        res["resolutions"] = resolved
        res["final_funcs"] = (g.funcs, entry)
        return res
    raise errors.TypingError(f"{disp.py_func.__qualname__}: too many overload resolutions")


def _uses_pycalls(funcs):
    """Code with objmode blocks calls Python objects of this process: it is
    not put in the disk cache.  Overloads are: the implementations their
    typing functions chose are jitted functions in `funcs` (their source,
    frozen globals and options are in the key), and a process that has not
    resolved them yet misses, resolves, and looks again with the same key."""
    return any(len(f) > 8 and f[8] is not None and f[8][0] == "pycall" for f in funcs)


def _note_decompiled(exc, decompiled):
    """Say in a diagnostic that points into text rebuilt from bytecode that
    the line shown is a reconstruction."""
    names = decompiled.get(getattr(exc, "filename", None))
    if names and exc.args and isinstance(exc.args[0], str):
        exc.args = (exc.args[0] + f"\n    (no source for {', '.join(names)}: the line shown was "
                    f"reconstructed from its bytecode)",) + exc.args[1:]


def _compile(disp, argcodes, rettype, want_ir, want_types):
    g = _Gather()
    entry = g.add_entry(disp, argcodes)  # jitclasses' methods too: they are part of the code
    funcs = g.funcs

    def run():
        # _compiler (libLLVM) is imported there: not for a cache hit
        debug = config._env_bool("DEBUG_COMPILE", config.DEBUG_COMPILE)
        if debug:
            import time
            t0 = time.perf_counter()
        res = compile_funcs(disp, list(argcodes), rettype, bool(want_ir), bool(want_types))
        if debug:
            ph = res.get("time_phases") or {}
            total = time.perf_counter() - t0
            rest = total - res["time_frontend"] - res["time_llvm"] - ph.get("jit", 0.0)
            print(f"hpcjit: compiled {disp.py_func.__qualname__} {res['signature']}: "
                  f"front end {res['time_frontend'] * 1e3:.2f} ms, "
                  f"LLVM {res['time_llvm'] * 1e3:.2f} ms (lower {ph.get('lower', 0) * 1e3:.2f}, "
                  f"passes {ph.get('opt', 0) * 1e3:.2f}, codegen {ph.get('emit', 0) * 1e3:.2f}, "
                  f"load {ph.get('load', 0) * 1e3:.2f}), JIT made {ph.get('jit', 0) * 1e3:.2f} ms, "
                  f"Python and import {rest * 1e3:.2f} ms", file=sys.stderr)
        return res

    # the on-disk cache (cache.py) sits inside hpcjit.mpi's compile-once
    # wrapper, so a group's root may answer from it and broadcast the object
    # objmode blocks call this process's Python objects: such code is not cached
    literal = any("\x01" in c for c in argcodes) or any(
        f is not None and len(f) > 7 and isinstance(f[7], dict) and f[7].get("literal_params") for f in funcs)
    if not (want_ir or want_types) and not _uses_pycalls(funcs) and not literal and (
            disp.targetoptions.get("cache") or os.environ.get("HPCJIT_CACHE")):
        from . import cache
        if cache.enabled(disp):
            return cache.compile_cached(disp, funcs, entry, argcodes, rettype, run,
                                        _SameResolutions(disp, g, argcodes, rettype))
    res = run()
    res.pop("resolutions", None)
    res.pop("final_funcs", None)
    return res


class _SameResolutions:
    """check(meta) for cache.compile_cached.  Code calling overloads is
    keyed before their resolution; the entry found is valid when resolving
    the (stub, argument key) pairs it records, here, gives the code it was
    compiled from (implementations and their globals included: the typing
    functions run, nothing is compiled).  `pairs`: the pairs replayed by the
    last call, which a compilation after a miss no longer meets but must
    record."""

    def __init__(self, disp, g, argcodes, rettype):
        self.disp, self.g, self.argcodes, self.rettype = disp, g, argcodes, rettype
        self.pairs = []

    def __call__(self, meta):
        resolved = meta.get("resolved")
        self.pairs = []
        if not resolved:
            return True
        from . import cache, extending
        g, entry = self.g, None
        try:
            for idx, key in resolved:  # each index is into the code gathered after the ones before
                ov = g.stubs.get(idx)
                if ov is None:
                    return False
                if key not in ov.impls:
                    extending.resolve_need(ov, key)
                self.pairs.append((idx, key))
                g = _Gather()
                entry = g.add_entry(self.disp, self.argcodes)
            return cache.cache_key(g.funcs, entry, self.argcodes, self.rettype).hex() == meta.get("resolved_key")
        except Exception:  # noqa: BLE001 - a typing function that fails now: compile and report
            return False


def _omitted(disp, argcodes):
    """The typecodes for the compiler: a parameter the caller left to its
    default (marked '=' by the dispatcher, python/core/dispatcher.c) is
    compiled with the default as a constant, as Numba types an omitted
    argument Omitted(default): "<typecode>=<value>"."""
    if not any(c.startswith("=") for c in argcodes):
        return argcodes
    defaults = disp.py_func.__defaults__ or ()
    first = len(argcodes) - len(defaults)
    out = []
    for i, c in enumerate(argcodes):
        if c.startswith("=") and "\x01" in c:  # a literal argument: its value is the constant
            c = c[1:]
        elif c.startswith("="):
            v = defaults[i - first] if 0 <= i - first < len(defaults) else None
            if isinstance(v, bool):
                c = f"{c[1:]}={int(v)}"
            elif isinstance(v, int):
                c = f"{c[1:]}={v}"
            elif isinstance(v, float):
                c = f"{c[1:]}={v.hex()}"
            else:
                c = c[1:]
        out.append(c)
    return tuple(out)


def code_type(code):
    """The type of an argument typecode; with a literal suffix
    ("l\x01i3\x02", python/core/dispatcher.c) the Literal type."""
    if "\x01" not in code:
        return _types.from_typecode(code)
    from .extending import _parse_key
    return _types.literal(_parse_key(code.rstrip("\x02"))[0][2])


def compile_for(disp, argcodes, rettype=None, want_ir=False, want_types=False, literal_retry=False):
    """Compile `disp` for the argument typecodes and add the overload.
    literal_retry (the dispatcher's compile hook): a request for literal
    dispatch on an argument raises LiteralRetry after telling the
    dispatcher, which computes the key again."""
    argcodes = tuple(argcodes)
    try:
        res = _compile(disp, _omitted(disp, argcodes), rettype, want_ir, want_types)
    except LiteralRetry as e:
        if not literal_retry or getattr(disp, "_locked", False):
            raise errors.TypingError(str(e)) from None
        mask = LITERAL_PARAMS.get(disp.py_func.__code__, 0)
        disp._set_literal_params(mask)
        disp.__dict__["_hj_litmask"] = mask
        raise
    info = {
        "argtypes": tuple(code_type(c.lstrip("=")) for c in argcodes),
        "argcodes": argcodes,
        "explicit_rettype": rettype,
        "entry_symbol": res.get("entry_symbol"),
        "llvm_ir": res.get("llvm_ir"),
        "types_text": res.get("types_text"),
        "time_frontend": res.get("time_frontend"),
        "time_llvm": res.get("time_llvm"),
        "time_phases": res.get("time_phases"),  # lower, opt, emit, load, jit (when the compiler reports them)
        "cache": res.get("cache"),  # "hit", "miss" or None (not cached)
    }
    if res.get("uses_mpi"):
        # compiled code calls MPI through the runtime's table: start MPI
        # (collective) and install it before the code can run
        from . import mpi
        mpi._init_for_compiled_code()
    disp._add_overload("".join(argcodes), res["address"], res["rettype"], res["signature"], info)
    return info


def fill_info(disp, info):
    """Recompile an overload to get its IR and annotated source."""
    res = _compile(disp, _omitted(disp, info["argcodes"]), info.get("explicit_rettype"), True, True)
    info["llvm_ir"] = res.get("llvm_ir")
    info["types_text"] = res.get("types_text")
