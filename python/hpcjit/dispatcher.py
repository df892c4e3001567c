"""The Python side of hpcjit._core.Dispatcher: decoration, option checking,
and the slow paths the C dispatcher calls (keyword arguments, compilation on
a miss, error messages, introspection).  Nothing here runs on a hit."""
import functools
import sys

from . import _core, _srctext, config, errors
from . import types as _types

_ERROR_MODELS = ("python", "numpy")
_INLINE = ("never", "always")
_OPTIONS = ("nopython", "forceobj", "cache", "fastmath", "boundscheck", "nogil",
            "parallel", "error_model", "inline", "deterministic", "schedule", "poll_signals",
            "locals")
_SCHEDULES = ("static", "dynamic")
# Numba's options that change nothing here: debug info, the C wrappers,
# loop-lifting (object mode only)
_IGNORED = ("debug", "no_cpython_wrapper", "no_cfunc_wrapper", "looplift", "_nrt")
# Numba's options hpcjit does not implement yet: refused by name, unless
# given their default value
_UNSUPPORTED = {"target": "cpu", "pipeline_class": None, "forceinline": False,
                "no_rewrites": False, "_dbg_optnone": False, "_dbg_extend_lifetimes": False}


def _check_locals(decl):
    """locals={name: type}: {name: hpcjit type}; a type may be spelt as a
    string ("float32", "int64[:]")."""
    if not decl:
        return {}
    if not isinstance(decl, dict):
        raise TypeError(f"njit(locals=...) must be a dict of variable names to types, not "
                        f"{type(decl).__name__}")
    from . import objmode_blocks
    out = {}
    for name, ty in decl.items():
        if not isinstance(name, str):
            raise TypeError(f"njit(locals=...): variable names must be str, not {name!r}")
        code = objmode_blocks._typecode(ty)
        if code is None:
            raise errors.UnsupportedError(f"njit(locals=...): {name}={ty!r} is not a type hpcjit "
                                          "can compile")
        out[name] = ty if isinstance(ty, _types.Type) else _types.from_typecode(code)
    return out


# Numba's fastmath flag names -> LLVMFastMathFlags bits (llvm-c/Core.h)
_FASTMATH_BITS = {"reassoc": 1, "nnan": 2, "ninf": 4, "nsz": 8, "arcp": 16, "contract": 32,
                  "afn": 64, "fast": 127}


def _check_fastmath(value):
    """fastmath= as Numba accepts it (cpu.FastMathOptions): a bool, a set of
    flag names, or a dict name -> bool; the value itself is kept."""
    if value is None:
        return False
    if isinstance(value, (set, frozenset, dict)):
        bad = set(value) - set(_FASTMATH_BITS)
        if bad:
            raise ValueError(f"Unrecognized fastmath flags: {bad}")
        return value
    if isinstance(value, (bool, int)):
        return bool(value)
    raise ValueError("Expected fastmath option(s) to be either a bool, dict or set")


def fastmath_flags(value):
    """The LLVMFastMathFlags bits of a fastmath= value (True: all of them;
    {"nsz", "arcp", ...}: those; a dict: the names mapped to True)."""
    value = _check_fastmath(value)
    if isinstance(value, dict):
        value = {k for k, on in value.items() if on}
    if isinstance(value, (set, frozenset)):
        bits = 0
        for name in value:
            bits |= _FASTMATH_BITS[name]
        return bits
    return _FASTMATH_BITS["fast"] if value else 0


def check_options(options):
    """Validate @njit options; returns the dict the Dispatcher keeps."""
    for name in options:
        if name in _IGNORED:
            continue
        if name in _UNSUPPORTED:
            if options[name] == _UNSUPPORTED[name] or options[name] is None:
                continue
            raise errors.UnsupportedError(f"the njit option {name}={options[name]!r} is not "
                                          "supported by hpcjit yet")
        if name not in _OPTIONS:
            raise TypeError(f"njit() got an unexpected option {name!r} "
                            f"(hpcjit supports: {', '.join(_OPTIONS)})")
    if options.get("nopython", True) is False or options.get("forceobj", False):
        raise errors.UnsupportedError(
            "object mode is not supported: hpcjit compiles in nopython mode only "
            "(drop nopython=False / forceobj=True)")
    error_model = options.get("error_model", "python")
    if error_model not in _ERROR_MODELS:
        raise ValueError(f"error_model must be 'python' or 'numpy', not {error_model!r}")
    inline = options.get("inline", "never")
    if inline not in _INLINE:
        raise ValueError(f"inline must be 'never' or 'always', not {inline!r}")
    schedule = options.get("schedule", "static")
    if schedule not in _SCHEDULES:
        raise ValueError(f"schedule must be 'static' or 'dynamic', not {schedule!r}")
    deterministic = options.get("deterministic")
    if deterministic is None:
        deterministic = bool(config.DETERMINISTIC)
    boundscheck = options.get("boundscheck")
    if boundscheck is None:
        boundscheck = bool(config.BOUNDSCHECK)
    out = {
        "nopython": True,
        "cache": bool(options.get("cache", False)),
        # a bool, or Numba's set/dict of LLVM flag names, kept as given
        # (programs read and set targetoptions["fastmath"]); fastmath_flags()
        # turns it into the compiler's bits
        "fastmath": _check_fastmath(options.get("fastmath", False)),
        "boundscheck": bool(boundscheck),
        "nogil": bool(options.get("nogil", False)),
        "parallel": bool(options.get("parallel", False)),
        "error_model": error_model,
        "inline": inline,
        "deterministic": bool(deterministic),
        "schedule": schedule,
    }
    locals_ = _check_locals(options.get("locals"))
    if locals_:
        out["locals"] = locals_
    if options.get("poll_signals", True) is False:  # hpcjit's: loops do not answer signals
        out["poll_signals"] = False
    return out


def _compile_hook(disp, argcodes):
    from . import compiler
    try:
        compiler.compile_for(disp, argcodes, literal_retry=True)
    except compiler.LiteralRetry:
        return "literal"  # the dispatcher keys an argument by value now: it calls again


class GeneratorDispatcher(_core.Dispatcher):
    """An @njit generator function.  Compiled code that loops over it gets
    its body inlined into the loop; any other call, from compiled code or
    from Python, makes a generator object (its body compiled as a
    coroutine): from Python a lazy iterator (hpcjit._core.Generator) that
    runs nothing before the first next()."""


def make_dispatcher(py_func, options):
    if not callable(py_func) or not hasattr(py_func, "__code__"):
        raise TypeError(f"njit can only compile Python functions, not {py_func!r}")
    import inspect
    cls = GeneratorDispatcher if inspect.isgeneratorfunction(py_func) else _core.Dispatcher
    disp = cls(py_func, options, _compile_hook)
    functools.update_wrapper(disp, py_func)
    return disp


def compile_signatures(disp, sigs):
    """Compile eagerly for explicit signatures and lock the dispatcher."""
    for sig in sigs:
        _compile_signature(disp, sig)
    disp._lock()


def _signature_typecodes(sig):
    if isinstance(sig, str):
        from . import _compiler
        try:
            ret, args = _compiler.parse_signature(sig)
        except TypeError as exc:
            raise TypeError(f"invalid signature {sig!r}: {exc}") from None
        return ret, list(args)
    if isinstance(sig, _types.Signature):
        return sig.as_typecodes()
    if isinstance(sig, tuple) and all(isinstance(t, _types.Type) for t in sig):
        return None, [t.typecode for t in sig]  # argument types only
    raise TypeError(f"invalid signature {sig!r}: expected a string such as "
                    "'float64(float64[:], int64)' or a type call such as float64(int64)")


def _compile_signature(disp, sig):
    """disp.compile(sig): compiled now; returns a callable running it (the
    dispatcher, as Numba returns the overload's entry point)."""
    from . import compiler
    ret, args = _signature_typecodes(sig)
    compiler.compile_for(disp, args, ret)
    return disp


# ---- slow paths called from C ------------------------------------------------

def _py_signature(disp):
    d = disp.__dict__
    sig = d.get("_hj_pysig")
    if sig is None:
        import inspect
        sig = d["_hj_pysig"] = inspect.signature(disp.py_func)
    return sig


def _call_slow(disp, args, kwargs):
    """Keyword arguments, defaults, wrong argument counts."""
    sig = _py_signature(disp)
    for p in sig.parameters.values():
        if p.kind in (p.VAR_KEYWORD, p.KEYWORD_ONLY):
            raise errors.UnsupportedError(
                f"{disp.py_func.__qualname__}: **kwargs and keyword-only "
                "parameters are not supported")
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError as exc:
        raise TypeError(f"{disp.py_func.__name__}(): {exc}") from None
    bound.apply_defaults()
    return disp(*bound.args)


def _type_name(value):
    t = _types.typeof_or_none(value)
    if t is not None:
        return str(t)
    if isinstance(value, str):
        return "unicode"
    if isinstance(value, list):
        return "reflected list"
    return f"pyobject ({type(value).__name__})"


def _no_match(disp, args):
    names = ", ".join(_type_name(a) for a in args)
    known = "\n".join("  " + str(info["signature"]) for info in disp._infos)
    raise TypeError(f"No matching definition for argument type(s) {names}\n"
                    f"Known signatures:\n{known}")


def _call_with_functions(disp, args, pos):
    """`apply(square, x)` from Python: @njit functions are compile-time
    constants in compiled code (the callee specialises on each), so the call
    goes through a compiled wrapper that passes them as globals,
    `def apply__fn(x): return apply(square, x)`, one per choice of functions
    (a tuple of functions is passed the same way, as a global tuple)."""
    key = tuple((i, _fn_key(args[i])) for i in pos)
    cache = disp.__dict__.setdefault("_hj_fnargs", {})
    hit = cache.get(key)
    if hit is None:
        import linecache
        py_func = disp.py_func
        names = [f"a{i}" for i in range(len(args)) if i not in pos]
        passed = ", ".join(f"_hj_fn{i}" if i in pos else f"a{i}" for i in range(len(args)))
        fname = f"{py_func.__name__}__fn"
        filename = f"<hpcjit: {py_func.__qualname__} with function arguments {len(cache)}>"
        src = f"def {fname}({', '.join(names)}):\n    return _hj_callee({passed})\n"
        linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
        glb = {"_hj_callee": disp}
        glb.update((f"_hj_fn{i}", args[i]) for i in pos)
        exec(compile(src, filename, "exec"), glb)
        wrapper = make_dispatcher(glb[fname], dict(disp.targetoptions))
        hit = cache[key] = (wrapper, [args[i] for i in pos])  # the functions stay alive
    return hit[0](*[a for i, a in enumerate(args) if i not in pos])


def _fn_key(value):
    """What identifies an argument made of jitted functions (a function, a
    tuple of them), or None: the key of the wrapper compiled for it."""
    from .ufunc import CFunc
    if isinstance(value, (_core.Dispatcher, CFunc)):
        return id(value)
    if isinstance(value, tuple) and value:
        keys = tuple(_fn_key(v) for v in value)
        if all(k is not None for k in keys):
            return ("tuple",) + keys
    return None


def _untypeable(disp, args, index):
    pos = [i for i, a in enumerate(args) if _fn_key(a) is not None]
    if pos and len(args) == len(_py_signature(disp).parameters):
        return _call_with_functions(disp, args, pos)
    names = list(_py_signature(disp).parameters)
    pname = names[index] if index < len(names) else str(index)
    value = args[index]
    why = f"Cannot determine hpcjit type of {type(value)!r}"
    import numpy as np
    if isinstance(value, list) and not value:
        why = ("cannot type an empty list (its item type is unknown, as in Numba): pass a non-empty "
               "list or build it inside the compiled function")
    elif isinstance(value, list):
        why = f"a list of {type(value[0]).__name__} items, which hpcjit cannot type"
    elif isinstance(value, (dict, set)) and not value:
        why = (f"cannot type an empty {type(value).__name__} (its key and value types are unknown, as in "
               "Numba): pass a non-empty one or build it inside the compiled function")
    elif isinstance(value, (_core._TypedList, _core._TypedDict)):
        why = (f"an empty typed.{'List' if isinstance(value, _core._TypedList) else 'Dict'} with no item "
               "types yet (make it with List.empty_list(item_type) / Dict.empty(key_type, value_type), "
               "or store an item first)")
    ll = sys.modules.get("hpcjit.lowlevel")
    if ll is not None and type(value) in ll.WHY_UNTYPEABLE:  # a typeof_impl class (lowlevel.py)
        why = f"{type(value).__name__}: {ll.WHY_UNTYPEABLE[type(value)]}"
    if hasattr(type(value), "__wrapper_address__"):  # a @cfunc / WAP object (_fntype.py)
        try:
            sig = value.signature()
        except Exception as exc:
            sig = f"<signature() raised {type(exc).__name__}: {exc}>"
        why = (f"a first-class function of signature {sig}, which FunctionType cannot hold (its arguments "
               f"and result must be numbers or bool, as hpcjit supports)")
    if isinstance(value, np.ndarray):
        why = (f"unsupported array (dtype {value.dtype}, ndim {value.ndim}, "
               f"aligned {value.flags.aligned})")
    raise errors.TypingError(
        f"cannot compile {disp.py_func.__qualname__} for these arguments:\n"
        f"- argument {index} ({pname!r}): {why}")


def _signatures(disp):
    return [info["argtypes"] for info in disp._infos]


def _recompile(disp):
    """disp.recompile(), as Numba's: every signature compiled again now,
    with targetoptions as they are (stumpy sets targetoptions["fastmath"],
    then recompiles); the old overloads are retired."""
    from . import compiler
    infos = disp._infos
    locked = disp._locked
    disp._retire_overloads()
    disp._unlock()
    try:
        for info in infos:
            compiler.compile_for(disp, info["argcodes"], info.get("explicit_rettype"))
    finally:
        if locked:
            disp._lock()


def _enable_caching(disp):
    """disp.enable_caching(), as Numba's: later compilations go to the
    on-disk cache (hpcjit/cache.py), as with cache=True."""
    disp.targetoptions["cache"] = True


def _nopython_signatures(disp):
    return [_types.Signature(_types.from_typecode(info["rettype_code"]), info["argtypes"])
            for info in disp._infos]


class CompileResult(dict):
    """One overload's compile info (a dict, as hpcjit keeps it) with the
    attributes of Numba's CompileResult that programs read: `entry_point`
    (a callable running the compiled code: the dispatcher, whose fast path
    finds this overload for arguments of its types), `signature`,
    `argtypes`, `restype`."""
    __slots__ = ("_disp",)

    @property
    def entry_point(self):
        return self._disp

    @property
    def signature(self):
        return _types.Signature(self.restype, self["argtypes"])

    @property
    def argtypes(self):
        return self["argtypes"]

    @property
    def restype(self):
        return _types.from_typecode(self["rettype_code"])


def _reduce(disp):
    """Pickle a dispatcher by reference (its module and qualified name) when
    they find it, else by value as Numba does: its function (cloudpickle,
    when installed) and options; compiled again where it is loaded.  A
    second dispatcher of one function (`njit(parallel=True)(f.py_func)`)
    is such a one."""
    py_func = disp.py_func
    obj = sys.modules.get(py_func.__module__)
    for part in py_func.__qualname__.split("."):
        obj = getattr(obj, part, None)
    if obj is disp:
        return disp.__qualname__
    try:
        import cloudpickle
    except ImportError:
        return disp.__qualname__  # pickle says it is not the same object
    return (_rebuild, (cloudpickle.dumps(py_func), dict(disp.targetoptions)))


def _rebuild(payload, options):
    import pickle
    return make_dispatcher(pickle.loads(payload), options)


def _overloads(disp):
    out = {}
    for info in disp._infos:
        r = CompileResult(info)
        r._disp = disp
        out[info["argtypes"]] = r
    return out


def _select(disp, signature):
    infos = disp._infos
    if signature is None:
        return infos
    want = tuple(signature.args) if isinstance(signature, _types.Signature) else tuple(signature)
    chosen = [i for i in infos if i["argtypes"] == want]
    if not chosen:
        raise KeyError(f"no overload for signature {signature}")
    return chosen


def _ensure(disp, info, field):
    """IR and annotated source are produced only when asked: recompile the
    overload once to get them."""
    if info.get(field) is None:
        from . import compiler
        compiler.fill_info(disp, info)
    return info[field]


def _inspect_types(disp, signature=None, file=None):
    import sys
    out = file if file is not None else sys.stdout
    for info in _select(disp, signature):
        # the compiler's text starts with "name (args) -> ret"
        print(_ensure(disp, info, "types_text").rstrip("\n"), file=out)
        print("=" * 80, file=out)


def _inspect_llvm(disp, signature=None):
    res = {info["argtypes"]: _ensure(disp, info, "llvm_ir") for info in _select(disp, signature)}
    return next(iter(res.values())) if signature is not None else res


def _inspect_asm(disp, signature=None):
    from . import _compiler
    res = {}
    for info in _select(disp, signature):
        if info.get("asm") is None:
            info["asm"] = _compiler.ir_to_asm(_ensure(disp, info, "llvm_ir"))
        res[info["argtypes"]] = info["asm"]
    return next(iter(res.values())) if signature is not None else res


# ---- compile metadata and parallel diagnostics (Numba's Dispatcher methods) ----

class PassTimings:
    """The phases of one compilation, longest first on request (what Numba's
    llvm_pass_timings records per LLVM pass; hpcjit times its phases:
    HPCJIT_DEBUG_COMPILE prints the same)."""

    _NAMES = (("frontend", "Front end (parse, type inference, checks)"),
              ("lower", "Lowering to LLVM IR"),
              ("opt", "Module passes (optimisation pipeline)"),
              ("emit", "Finalize object (code generation, object emission)"),
              ("load", "Load object (link into the process)"))

    def __init__(self, name, info):
        self.name = name
        ph = dict(info.get("time_phases") or {})
        ph.setdefault("frontend", info.get("time_frontend") or 0.0)
        if not any(k in ph for k in ("lower", "opt", "emit")):
            ph["emit"] = info.get("time_llvm") or 0.0  # the LLVM part as one phase
        self.records = [(label, float(ph.get(key, 0.0))) for key, label in self._NAMES if key in ph]

    def get_total_time(self):
        return sum(t for _, t in self.records)

    def list_longest_first(self):
        return sorted(self.records, key=lambda r: -r[1])

    def list_top(self, n):
        return self.list_longest_first()[:n]

    def summary(self, topn=5):
        total = self.get_total_time() or 1e-300
        lines = [f"Total {self.get_total_time() * 1e3:.3f} ms"]
        for label, t in self.list_top(topn):
            lines.append(f"  {t * 1e3:9.3f} ms {100 * t / total:5.1f}%  {label}")
        return "\n".join(lines)

    def __str__(self):
        return f"Printing pass timings for {self.name}\n" + self.summary(len(self.records))

    __repr__ = __str__


def _get_metadata(disp, signature=None):
    out = {}
    for info in _select(disp, signature):
        total = (info.get("time_frontend") or 0.0) + (info.get("time_llvm") or 0.0)
        out[info["argtypes"]] = {
            "timers": {"compiler_lock": total, "llvm_lock": info.get("time_llvm") or 0.0},
            "llvm_pass_timings": PassTimings(f"{disp.py_func.__qualname__}{info['argtypes']}", info),
            "cache": info.get("cache"),
        }
    if signature is not None:
        return next(iter(out.values()))
    return out


def _parallel_diagnostics(disp, signature=None, level=1):
    """Print the function's prange (and pndindex) loops and what hpcjit does with them:
    each runs on the pinned pool (parallel=True), its reductions combined
    in thread order; a prange inside another runs serially, as in Numba."""
    import ast
    import inspect
    if not (isinstance(level, int) and 1 <= level <= 4):
        raise ValueError("parallel_diagnostics: level must be an int between 1 and 4")
    name = disp.py_func.__qualname__
    try:
        src = _srctext.dedent(inspect.getsource(disp.py_func))[0]
        first = disp.py_func.__code__.co_firstlineno
        tree = ast.parse(src)
    except (OSError, TypeError, SyntaxError):
        print(f"{name}: no source to report on")
        return
    fname = disp.py_func.__code__.co_filename
    bar = "=" * 80
    print(bar)
    print(f" Parallel loops of {name}, {fname} ({first}) ".center(80, "="))
    print(bar)
    if not disp.targetoptions.get("parallel"):
        print("The function is not compiled with parallel=True: prange runs as range.")
        return

    def is_prange(call):
        f = call.func if isinstance(call, ast.Call) else None
        loops = ("prange", "pndindex")
        return (isinstance(f, ast.Name) and f.id in loops) or (isinstance(f, ast.Attribute) and f.attr in loops)

    count = [0]

    def visit(node, depth):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.For) and is_prange(child.iter):
                count[0] += 1
                line = first + child.lineno - 1
                if depth == 0:
                    kind = "parallel: outlined onto the pinned pool"
                    reds = sorted({n.target.id for n in ast.walk(child) if isinstance(n, ast.AugAssign)
                                   and isinstance(n.target, ast.Name)})
                    print(f"Loop #{count[0]} (line {line}): {kind}"
                          + (f"; reductions: {', '.join(reds)}" if reds else ""))
                else:
                    print(f"Loop #{count[0]} (line {line}): nested in a parallel loop: serial (as Numba)")
                visit(child, depth + 1)
            else:
                visit(child, depth)

    visit(tree, 0)
    if not count[0]:
        print("No prange loops.")
    if level >= 2:
        print(f"Threads: {get_num_threads_safe()}, schedule: {disp.targetoptions.get('schedule', 'static')}")


def get_num_threads_safe():
    from . import _core
    try:
        return _core.get_num_threads()
    except Exception:  # noqa: BLE001 - the pool may not exist yet
        return "?"
