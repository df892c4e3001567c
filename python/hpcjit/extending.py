"""Numba's `numba.extending` API (and `objmode`) as far as hpcjit implements it.

- register_jitable(fn) / register_jitable(**options): `njit` with the
  options (every compiled function can call another compiled function).
- overload(func, jit_options={}, prefer_literal=False): the decorated typing
  function is called at compile time with the argument types (hpcjit.types
  objects: `isinstance(x, types.Integer)`, `types.Array` with
  .ndim/.dtype/.layout, ...) and returns an implementation (a Python
  function), compiled as a jitted callee (`njit(**jit_options)`), or None
  when it does not apply.  `func` is a Python function, or a NumPy/math/
  builtin function; for those hpcjit's own builtin wins where it has one
  (an overload of np.sum is never used), so overloads add functions
  (np.foo that hpcjit lacks), they do not replace them.
- overload_method(cls, "name") / overload_attribute(cls, "name"): `x.name(...)`
  / `x.name` on values of type class `cls` (types.Array, types.Integer,
  types.Float, ...) where hpcjit has no attribute of that name.
- intrinsic: the typing function runs at compile time and returns
  (signature, codegen).  The portable part: a signature of numbers, bools
  and None (void), and a codegen written with llvmlite.ir on the `builder`
  and the `args` it is given, using of `context` only get_value_type,
  get_data_type, get_constant, get_constant_generic, get_dummy_value and
  cast between numbers.  hpcjit runs the codegen in Python on an llvmlite
  function of the signature's types, and the module's text becomes a stub
  (compiler.h HJ_STUB_LLVMIR) that the compiler parses, links into its
  module and inlines (compiler/lower/lower_llvmir.c).  Not portable (a
  located UnsupportedError at the call): arrays, tuples and other types in
  the signature (their data model is Numba's), Numba's context services
  (context.compile_internal, nrt, cgutils helpers that reach Numba's data
  model, pyapi).

How it reaches the compiler: each overload is a stub function in the
compilation (compiler.h HJ_STUB_OVERLOAD) holding the resolutions made so
far, keyed by argument types (compiler/infer/infer_extend.c); a call with a
new key fails with the key attached, `resolve_need()` runs the typing
function, and the compilation is repeated.

literally(x) (hpcjit.literally): literal dispatch.  A parameter an
implementation (or a compiled function) passes to literally() is compiled
as the literal of its argument (compiler/infer/infer_literal.c); the typing
function then sees types.IntegerLiteral/StringLiteral/BooleanLiteral.
For a key with literals the typing function gets the plain types first
(as Numba), unless the implementation it returns is known to ask for a
literal of one of them (compiler.LITERAL_PARAMS), then the literal types.
Containers: LiteralList / LiteralStrKeyDict for heterogeneous displays
(the "c" key suffix, in the plain key too), and initial_value for a
display of constants ("v", literal types only).

objmode: `with objmode(x="float64[:]", n="int64"):` is a no-op context
manager in the interpreter (py_func, DISABLE_JIT); in a compiled function
the block runs in the interpreter on the function's variables and gives
back the declared ones (objmode_blocks.py).
"""
import sys
import types as _pytypes
import weakref

from . import errors
from . import types as _types

_DIAG_UNSUPPORTED = 2  # HjDiagKind (compiler.h)
_DIAG_TYPING = 3


class _Overload:
    """One overloaded name: a function (by identity), or a method / an
    attribute name.  `templates` are (typing_fn, jit_options,
    prefer_literal, cls); `impls` the resolutions, key -> (dispatcher or
    None, diag kind, message).  With `caller_parallel` the key of a call
    from a parallel=True function ends in "$parallel" (compiler.h), and
    the typing function sees caller_is_parallel() true (stencils)."""

    def __init__(self, kind, name, target=None):
        self.kind = kind  # "function", "method", "attribute", "intrinsic"
        self.name = name
        self.target = target
        self.templates = []
        self.impls = {}
        self.caller_parallel = False


_BY_ID = {}        # id(func) -> (func, _Overload)
_METHODS = {}      # name -> _Overload
_ATTRS = {}        # name -> _Overload


def register_jitable(*args, **options):
    """@register_jitable or @register_jitable(**options): a function that
    compiled code can call (hpcjit: njit with these options)."""
    from . import njit

    if args and callable(args[0]) and len(args) == 1 and not options:
        return njit(args[0])
    if args:
        raise TypeError("register_jitable() takes a function or keyword options only")
    return lambda fn: njit(fn, **options)


_TARGET_OPTS = ("target",)


def _check_options(where, jit_options, options):
    for k in options:
        if k not in ("inline", "strict", "target") and k not in _TARGET_OPTS:
            raise errors.UnsupportedError(f"{where}(): option {k!r} is not supported by hpcjit")
    if options.get("target") not in (None, "cpu", "generic"):
        raise errors.UnsupportedError(f"{where}(): target={options['target']!r} is not supported by hpcjit")
    if not isinstance(jit_options, dict):
        raise TypeError(f"{where}(): jit_options must be a dict")
    return {k: v for k, v in jit_options.items() if k not in ("no_cpython_wrapper", "cache")}


def overload(func, jit_options={}, strict=True, inline="never", prefer_literal=False, **kwargs):
    """@overload(func): the typing function that gives compiled code its
    implementation of `func` for the argument types of a call."""
    jit_options = _check_options("overload", jit_options, kwargs)
    if not callable(func):
        raise TypeError(f"overload() takes a function, not {func!r}")

    def decorate(typing_fn):
        entry = _BY_ID.get(id(func))
        if entry is None or entry[0] is not func:
            entry = (func, _Overload("function", getattr(func, "__name__", repr(func)), func))
            _BY_ID[id(func)] = entry
        entry[1].templates.append((typing_fn, jit_options, prefer_literal, None))
        entry[1].impls.clear()
        return typing_fn

    return decorate


def _type_class_check(cls, where):
    if not (isinstance(cls, _types.Type) or (isinstance(cls, type) and issubclass(cls, _types.Type))):
        raise TypeError(f"{where}() takes an hpcjit type class (types.Array, ...), not {cls!r}")


def _overload_member(table, kind, cls, attr, typing_fn, jit_options, prefer_literal):
    ov = table.get(attr)
    if ov is None:
        ov = table[attr] = _Overload(kind, attr)
    ov.templates.append((typing_fn, jit_options, prefer_literal, cls))
    ov.impls.clear()
    return typing_fn


def overload_method(typ, attr, jit_options={}, prefer_literal=False, **kwargs):
    """@overload_method(types.Array, "name"): arr.name(...) in compiled code;
    the typing function gets the receiver's type first."""
    _type_class_check(typ, "overload_method")
    jit_options = _check_options("overload_method", jit_options, kwargs)
    return lambda fn: _overload_member(_METHODS, "method", typ, attr, fn, jit_options, prefer_literal)


def overload_attribute(typ, attr, jit_options={}, prefer_literal=False, **kwargs):
    """@overload_attribute(types.Array, "name"): arr.name in compiled code;
    the typing function gets the object's type and returns impl(obj)."""
    _type_class_check(typ, "overload_attribute")
    jit_options = _check_options("overload_attribute", jit_options, kwargs)
    return lambda fn: _overload_member(_ATTRS, "attribute", typ, attr, fn, jit_options, prefer_literal)


class _TypingContext:
    """What an @intrinsic's typing function gets as `typingctx`: enough for
    `typingctx.resolve_value_type(v)` and `unify_pairs`."""

    def resolve_value_type(self, value):
        return _types.typeof(value)

    def unify_pairs(self, a, b):
        return a if a == b else None


class _Intrinsic:
    """An @intrinsic function (see the module's docstring)."""

    def __init__(self, typing_fn, prefer_literal=False):
        self._defn = typing_fn
        self.__name__ = getattr(typing_fn, "__name__", "intrinsic")
        self.__doc__ = getattr(typing_fn, "__doc__", None)
        ov = _Overload("intrinsic", self.__name__, self)
        ov.templates.append((typing_fn, {}, prefer_literal, None))
        _BY_ID[id(self)] = (self, ov)

    def __call__(self, *args, **kwargs):
        raise errors.UnsupportedError(
            f"@intrinsic {self.__name__} can only be called from compiled code (and hpcjit cannot "
            f"run intrinsics' llvmlite code generation)")


def intrinsic(*args, **kwargs):
    """@intrinsic / @intrinsic(prefer_literal=True): see the module's
    docstring (the typing part runs; calls raise UnsupportedError)."""
    if args and callable(args[0]) and len(args) == 1 and not kwargs:
        return _Intrinsic(args[0])
    prefer_literal = kwargs.pop("prefer_literal", False)
    kwargs.pop("target", None)
    return lambda fn: _Intrinsic(fn, prefer_literal)


# ---- resolution (called by compiler.py when a compilation needs it) ----------

def overloads_of(value):
    """The _Overload of a value named in compiled code, or None."""
    entry = _BY_ID.get(id(value))
    return entry[1] if entry is not None and entry[0] is value else None


def named_overloads():
    """[(env name, _Overload)]: overloads reached by qualified name
    ("<overload>numpy.foo"), method and attribute overloads."""
    out = []
    if _BY_ID:
        from .compiler import _known_objects
        for obj, ov in list(_BY_ID.values()):
            if ov.kind not in ("function",):
                continue
            names = set()
            k = _known_objects(obj).get(id(obj)) if callable(obj) else None
            if k is not None and k[0] is obj:
                names.add(k[1])
            mod, nm = getattr(obj, "__module__", None), getattr(obj, "__name__", None)
            if isinstance(mod, str) and isinstance(nm, str):
                names.add(f"{mod}.{nm}")
                if mod == "numpy":
                    names.add(f"numpy.{nm}")
                parts = mod.split(".")  # re-exported by a parent package: np.polynomial.Polynomial
                for k in range(1, len(parts)):
                    parent = sys.modules.get(".".join(parts[:k]))
                    if parent is not None and getattr(parent, nm, None) is obj:
                        names.add(f"{'.'.join(parts[:k])}.{nm}")
            for q in sorted(names):
                out.append(("<overload>" + q, ov))
    out += [("<method>" + name, ov) for name, ov in _METHODS.items()]
    out += [("<attr>" + name, ov) for name, ov in _ATTRS.items()]
    return out


def _parse_key(key):
    """[(keyword name or None, typecode, literal value or _NOLIT)]."""
    out = []
    for tok in key.split("\t") if key else []:
        lit = _NOLIT
        if "\x01" in tok:
            tok, l = tok.split("\x01", 1)
            if l[0] == "s":  # a str literal: its UTF-8 in hex
                lit = bytes.fromhex(l[1:]).decode("utf-8")
            elif l[0] == "v":  # a container's initial value: a Python literal in hex
                import ast
                lit = _InitialValue(ast.literal_eval(bytes.fromhex(l[1:]).decode("utf-8")))
            elif l[0] == "c":  # a literal container: its description in hex (infer_literal.c)
                import ast
                lit = _Container(ast.literal_eval(bytes.fromhex(l[1:]).decode("utf-8")))
            else:
                lit = bool(int(l[1:])) if l[0] == "b" else int(l[1:])
        name = None
        if "=" in tok:
            name, tok = tok.split("=", 1)
        out.append((name, tok, lit))
    return out


_NOLIT = object()


class _Container:
    """A LiteralList / LiteralStrKeyDict argument: ('L', [item, ...]) or
    ('D', [(key, item), ...]), each item ('i'|'b'|'s', constant),
    ('iv', typecode, initial value) or ('t', typecode)."""

    def __init__(self, desc):
        self.desc = desc

    @staticmethod
    def _item(d):
        if d[0] in ("i", "b", "s"):
            return _types.literal(d[1])
        t = _types.from_typecode(d[1])
        if d[0] == "iv":
            if isinstance(t, _types.List):
                t = _types.List(t.dtype, initial_value=d[2])
            else:
                t = _types.with_initial_value(t, d[2])
        return t

    def type(self):
        kind, items = self.desc
        if kind == "D":
            return _types.LiteralStrKeyDict({_types.literal(k): self._item(v) for k, v in items})
        return _types.LiteralList([self._item(v) for v in items])


class _InitialValue:
    """The initial value of a list/dict argument (a display of constants)."""

    def __init__(self, value):
        self.value = value


def _plain_key(key):
    # a literal container's description stays: the type itself is literal
    return "\t".join(t if "\x01c" in t else t.split("\x01", 1)[0] for t in key.split("\t")) if key else ""


# @njit functions given to overloads, by the key token the compiler spells
# for them (infer_extend.c function_token): "D" and, in hex, filename NUL
# qualname NUL first line.  compiler.py registers each function it gathers.
_FUNCTIONS = weakref.WeakValueDictionary()


def function_token(filename, qualname, first_line):
    raw = f"{filename}\0{qualname}\0{first_line}".encode("utf-8")
    return "D" + raw.hex()


def register_function(disp, filename, qualname, first_line):
    _FUNCTIONS[function_token(filename, qualname, first_line)] = disp


def _type_of_token(tc):
    if tc.startswith("D"):
        disp = _FUNCTIONS.get(tc)
        if disp is None:
            raw = bytes.fromhex(tc[1:]).decode("utf-8", "replace").split("\0")
            raise errors.TypingError(f"the function {raw[1] if len(raw) > 1 else '?'} given to an "
                                     f"overload is gone")
        return _types.Dispatcher(disp)
    return _types.from_typecode(tc)


def _arg_types(parsed, literal):
    pos, kws = [], {}
    for name, tc, lit in parsed:
        t = _type_of_token(tc)
        if isinstance(lit, _Container):
            t = lit.type()
        elif literal and isinstance(lit, _InitialValue):
            t = _types.with_initial_value(t, lit.value)
        elif literal and lit is not _NOLIT:
            t = _types.literal(lit)
        if name is None:
            pos.append(t)
        else:
            kws[name] = t
    return pos, kws


def _describe(pos, kws):
    return ", ".join([str(t) for t in pos] + [f"{k}={v}" for k, v in kws.items()])


def _call_template(ov, template, pos, kws):
    """The implementation function a template gives, or None; raises
    errors.TypingError for a typing function that fails."""
    import inspect
    typing_fn, jit_options, prefer_literal, cls = template
    args = list(pos)
    if ov.kind == "intrinsic":
        args = [_TypingContext()] + args
    try:
        inspect.signature(typing_fn).bind(*args, **kws)
    except TypeError as e:
        raise errors.TypingError(f"{ov.name}(): {e}") from None
    except ValueError:
        pass
    try:
        res = typing_fn(*args, **kws)
    except errors.ForceLiteralArg:
        raise
    except errors.HpcjitError as e:
        raise errors.TypingError(f"{ov.name}(): {e}") from None
    except Exception as e:  # the typing function's own bug: say where it came from
        raise errors.TypingError(f"{ov.name}(): the typing function {typing_fn.__qualname__} raised "
                                 f"{type(e).__name__}: {e}") from None
    return res


def _matches(cls, t):
    if isinstance(cls, _types.Type):
        return cls == t
    return isinstance(t, cls)


def _wants_literal(impl, parsed):
    """Does implementation `impl` ask for a literal (literally()) of an
    argument the key has a literal for?  Known once it has been compiled
    (compiler.LITERAL_PARAMS)."""
    from .compiler import LITERAL_PARAMS
    code = getattr(impl, "__code__", None)
    mask = LITERAL_PARAMS.get(code, 0) if code is not None else 0
    if not mask:
        return False
    import inspect
    try:
        names = list(inspect.signature(impl).parameters)
    except (TypeError, ValueError):
        names = []
    for i, (name, _, lit) in enumerate(parsed):
        if lit is _NOLIT:
            continue
        p = names.index(name) if name is not None and name in names else (i if name is None else -1)
        if p >= 0 and mask >> p & 1:
            return True
    return False


_CALLER = {"parallel": False}


def caller_is_parallel():
    """While an overload with caller_parallel resolves a key: whether the
    call is in a parallel=True function."""
    return _CALLER["parallel"]


_PARALLEL_TOKEN = "$parallel"


def resolve_need(ov, key):
    """Resolve one key of `ov` (a compilation needs it): add the
    resolution to ov.impls."""
    toks = key.split("\t") if key else []
    parallel = ov.caller_parallel and bool(toks) and toks[-1] == _PARALLEL_TOKEN
    _CALLER["parallel"] = parallel
    try:
        _resolve(ov, key, "\t".join(toks[:-1]) if parallel else key)
    finally:
        _CALLER["parallel"] = False


def _resolve(ov, key, args_key):
    from . import njit

    parsed = _parse_key(args_key)
    has_lit = any(lit is not _NOLIT and not isinstance(lit, _Container) for _, _, lit in parsed)
    plain = _plain_key(key)
    last_error = lit_error = None
    for typing_fn, jit_options, prefer_literal, cls in reversed(ov.templates):
        template = (typing_fn, jit_options, prefer_literal, cls)
        orders = [False]
        if has_lit:
            orders = [True, False] if prefer_literal else [False, True]
        for literal in orders:
            pos, kws = _arg_types(parsed, literal)
            if cls is not None and not (pos and _matches(cls, pos[0])):
                break
            try:
                res = _call_template(ov, template, pos, kws)
            except errors.TypingError as e:
                if literal:
                    lit_error = str(e)
                else:
                    last_error = str(e)
                continue
            except errors.ForceLiteralArg as e:
                if not literal and has_lit:
                    continue  # the literal types of the constant arguments next
                # none to offer: the caller's arguments are asked for as
                # literals (literally() on them), and the call typed again
                ov.impls[plain] = (njit(_force_literal(typing_fn, e), **jit_options), 0, None)
                return
            if res is None:
                continue
            use_key = key if literal else plain
            if ov.kind == "intrinsic":
                ov.impls[use_key] = _intrinsic_impl(ov.name, res)
                return
            if isinstance(res, tuple) and len(res) == 2:  # (signature, implementation)
                res = res[1]
            if not literal and has_lit and _wants_literal(res, parsed):
                continue  # its literally() fails on the plain types: as Numba, the literal types next
            if not isinstance(res, _pytypes.FunctionType):
                ov.impls[use_key] = (None, _DIAG_TYPING,
                                     f"{ov.name}(): the overload's typing function returned "
                                     f"{type(res).__name__}, not a function")
                return
            ov.impls[use_key] = (njit(res, **jit_options), 0, None)
            return
    pos, kws = _arg_types(parsed, False)
    what = {"function": "function", "intrinsic": "intrinsic", "method": "method",
            "attribute": "attribute"}[ov.kind]
    if ov.kind in ("method", "attribute") and pos:
        msg = f"no implementation of {what} '{ov.name}' of {pos[0]}"
        if ov.kind == "method" and (len(pos) > 1 or kws):
            msg += f" for arguments ({_describe(pos[1:], kws)})"
    else:
        msg = f"no implementation of {what} {ov.name}() for argument types ({_describe(pos, kws)})"
    # the plain key keeps the plain types' refusal (a later call with a
    # variable gets it); the literal key, which the compiler looks up
    # first, the literal types' (the more specific) when there was one
    ov.impls[plain] = (None, _DIAG_TYPING, msg + (f": {last_error}" if last_error else ""))
    if key != plain:
        err = lit_error or last_error
        ov.impls[key] = (None, _DIAG_TYPING, msg + (f": {err}" if err else ""))


# ---- @intrinsic code generation (see the module's docstring) --------------------

class IRImpl:
    """A portable intrinsic's code for one signature: LLVM IR text defining
    `symbol` (compiler.py makes it an HJ_STUB_LLVMIR function)."""

    def __init__(self, name, symbol, text, ret_typecode, arg_typecodes):
        self.name, self.symbol, self.text = name, symbol, text
        self.ret_typecode, self.arg_typecodes = ret_typecode, arg_typecodes


_IR_COUNT = [0]


def _ir_type(t, name):
    from llvmlite import ir
    from . import lowlevel
    lt = lowlevel.ir_type(t)  # an extension type: the struct of its members
    if lt is not None:
        return lt
    if isinstance(t, _types.Boolean):
        return ir.IntType(1)
    if isinstance(t, _types.Integer):
        return ir.IntType(t.bitwidth)
    if t == _types.float32:
        return ir.FloatType()
    if t == _types.float64:
        return ir.DoubleType()
    if isinstance(t, _types.NoneType):
        return ir.VoidType()
    if isinstance(t, _types.CPointer):  # opaque in LLVM 19: every pointer is `ptr`
        return ir.IntType(8).as_pointer()
    raise errors.UnsupportedError(
        f"@intrinsic {name}: type {t} in its signature is not portable to hpcjit (only numbers, "
        f"bool and None: other types have Numba's data model)")


class _CodegenContext:
    """What an @intrinsic's codegen gets as `context` on hpcjit: the
    portable part of Numba's lowering context."""

    def __init__(self, name):
        self._name = name

    def get_value_type(self, ty):
        return _ir_type(ty, self._name)

    get_data_type = get_value_type

    def get_constant(self, ty, value):
        from llvmlite import ir
        lt = _ir_type(ty, self._name)
        if isinstance(lt, ir.IntType):
            value = int(value)
        elif isinstance(lt, (ir.FloatType, ir.DoubleType)):
            value = float(value)
        return ir.Constant(lt, value)

    def get_constant_generic(self, builder, ty, value):
        return self.get_constant(ty, value)

    def get_dummy_value(self):
        from llvmlite import ir
        return ir.Constant(ir.IntType(8).as_pointer(), None)

    def cast(self, builder, val, fromty, toty):
        from llvmlite import ir
        a, b = _ir_type(fromty, self._name), _ir_type(toty, self._name)
        if a == b:
            return val
        fa, fb = not isinstance(a, ir.IntType), not isinstance(b, ir.IntType)
        signed = not isinstance(fromty, _types.Integer) or fromty.signed
        if isinstance(toty, _types.Boolean):
            zero = ir.Constant(a, 0)
            return builder.fcmp_unordered("!=", val, zero) if fa else builder.icmp_unsigned("!=", val, zero)
        if fa and fb:
            return builder.fpext(val, b) if isinstance(b, ir.DoubleType) else builder.fptrunc(val, b)
        if not fa and not fb:
            if b.width > a.width:
                return builder.sext(val, b) if signed and not isinstance(fromty, _types.Boolean) \
                    else builder.zext(val, b)
            return builder.trunc(val, b)
        if fa:
            return builder.fptosi(val, b) if toty.signed else builder.fptoui(val, b)
        return builder.sitofp(val, b) if signed and not isinstance(fromty, _types.Boolean) \
            else builder.uitofp(val, b)

    def __getattr__(self, attr):
        raise errors.UnsupportedError(
            f"@intrinsic {self._name}: its codegen uses context.{attr}, which is Numba's lowering "
            f"context and not portable to hpcjit (see hpcjit.extending)")


def _intrinsic_impl(name, res):
    """impls entry for an intrinsic's typing result (signature, codegen):
    (IRImpl, 0, None), or (None, diag kind, message)."""
    if not (isinstance(res, tuple) and len(res) == 2 and callable(res[1])):
        return (None, _DIAG_TYPING, f"@intrinsic {name}: the typing function must return "
                                    f"(signature, codegen), not {res!r}")
    sig, codegen = res
    if not isinstance(sig, _types.Signature):
        return (None, _DIAG_TYPING, f"@intrinsic {name}: the typing function returned {sig!r}, "
                                    f"not a signature")
    try:
        from llvmlite import ir
    except ImportError:
        return (None, _DIAG_UNSUPPORTED, f"@intrinsic {name}: its codegen needs llvmlite, which "
                                         f"is not installed")
    ret = sig.return_type if sig.return_type is not None else _types.none
    try:
        argtys = [_ir_type(a, name) for a in sig.args]
        if any(isinstance(a, ir.VoidType) for a in argtys):
            raise errors.UnsupportedError(f"@intrinsic {name}: None as a parameter type")
        retty = _ir_type(ret, name)
        _IR_COUNT[0] += 1
        symbol = f"hpcjit.intrinsic.{name}.{_IR_COUNT[0]}"
        mod = ir.Module(name=symbol)
        fn = ir.Function(mod, ir.FunctionType(retty, argtys), name=symbol)
        builder = ir.IRBuilder(fn.append_basic_block("entry"))
        value = codegen(_CodegenContext(name), builder, sig, list(fn.args))
        if not builder.block.is_terminated:
            if isinstance(retty, ir.VoidType):
                builder.ret_void()
            else:
                if value is None or getattr(value, "type", None) != retty:
                    raise errors.UnsupportedError(
                        f"@intrinsic {name}: its codegen returned {value!r}, not a value of "
                        f"LLVM type {retty} ({ret})")
                builder.ret(value)
        text = "\n".join(line for line in str(mod).splitlines()
                         if not line.startswith(("target triple", "target datalayout")))
    except errors.HpcjitError as e:
        return (None, _DIAG_UNSUPPORTED, str(e))
    except Exception as e:  # the codegen's own error, or llvmlite's
        return (None, _DIAG_UNSUPPORTED, f"@intrinsic {name}: its codegen raised "
                                         f"{type(e).__name__}: {e}")
    impl = IRImpl(name, symbol, text, ret.typecode, "\t".join(a.typecode for a in sig.args))
    return (impl, 0, None)


# ---- objmode ---------------------------------------------------------------------

class _ObjModeContext:
    """`with objmode(x="float64[:]"):` in compiled code (see hpcjit.objmode_blocks).
    Called from Python (or with DISABLE_JIT) the block just runs."""

    def __init__(self, **outputs):
        self.outputs = outputs

    def __call__(self, *args, **outputs):
        if args:
            raise TypeError("objmode() takes output types as keyword arguments only")
        return _ObjModeContext(**outputs)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


objmode = _ObjModeContext()


def sentry_literal_args(pysig, literal_args, args, kwargs):
    """In an overload's typing function: raise errors.ForceLiteralArg when
    an argument named in `literal_args` is not a literal type, so that the
    call is typed again with the literal types of its constant arguments
    (Numba's).  pysig is the typing function's inspect.Signature."""
    bound = pysig.bind(*args, **kwargs)
    request, missing = set(), []
    for i, (name, value) in enumerate(bound.arguments.items()):
        if name in literal_args:
            request.add(i)
            if not isinstance(value, _types.Literal):
                missing.append(name)
    if missing:
        def folded(a, k):
            return tuple(pysig.bind(*a, **k).arguments.values())
        raise errors.ForceLiteralArg(request, folded).bind_fold_arguments(folded) from None


def _force_literal(typing_fn, exc):
    """An implementation that asks for its requested arguments as literals
    (literally()): compiled, it makes the caller pass them as literals (a
    parameter of the caller is then keyed by its value), and the typing
    function runs again with their literal types."""
    import inspect
    params = [p for p in inspect.signature(typing_fn).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    names = [p.name for p in params]
    asked = [names[i] for i in sorted(exc.requested_args) if i < len(names)]
    src = (f"def _hj_force_literal({', '.join(names)}):\n"
           + "".join(f"    literally({n})\n" for n in asked) + "    return None\n")
    from . import literally
    ns = {"literally": literally}
    exec(compile(src, f"<literal arguments of {typing_fn.__qualname__}>", "exec"), ns)
    return ns["_hj_force_literal"]


class SentryLiteralArgs:
    """SentryLiteralArgs(["n"]).for_function(typing_fn).bind(n): see
    sentry_literal_args."""

    def __init__(self, literal_args):
        self.literal_args = tuple(literal_args)

    def for_function(self, func):
        import inspect
        return self.for_pysig(inspect.signature(func))

    def for_pysig(self, pysig):
        return _BoundLiteralArgs(pysig, self.literal_args)


class _BoundLiteralArgs:
    def __init__(self, pysig, literal_args):
        self.pysig, self.literal_args = pysig, literal_args

    def bind(self, *args, **kwargs):
        return sentry_literal_args(self.pysig, self.literal_args, args, kwargs)


def is_jitted(function):
    """True when `function` is a compiled function made by hpcjit's
    @njit/@jit (a dispatcher), as Numba's is_jitted: False for plain
    functions and for @vectorize/@cfunc objects."""
    from . import _core
    return isinstance(function, _core.Dispatcher)


def get_cython_function_address(module_name, function_name):
    """The address of a function a Cython module exports in its
    `__pyx_capi__` (scipy.special.cython_special's `j0`, `gammaln`, ...):
    wrapped in a ctypes function type, it can be called from compiled code.
    ValueError when the module exports no function of that name."""
    import ctypes
    import importlib
    module = importlib.import_module(module_name)
    capi = getattr(module, "__pyx_capi__", None)
    if not isinstance(capi, dict):
        raise ValueError(f"module {module_name!r} has no __pyx_capi__ (not a Cython module "
                         f"exporting C functions)")
    cap = capi.get(function_name)
    if cap is None:
        raise ValueError(f"No function {function_name!r} found in __pyx_capi__ of {module_name!r}")
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype = ctypes.c_char_p
    get_name.argtypes = [ctypes.py_object]
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return get_pointer(cap, get_name(cap))

from .lowlevel import (typeof_impl, as_numba_type, type_callable, models, register_model,  # noqa: E402
                       make_attribute_wrapper, lower_builtin, box, unbox, NativeValue)

__all__ = ["register_jitable", "overload", "is_jitted", "get_cython_function_address", "SentryLiteralArgs",
           "sentry_literal_args", "overload_method", "overload_attribute", "intrinsic",
           "objmode", "typeof_impl", "as_numba_type", "type_callable", "models", "register_model",
           "make_attribute_wrapper", "lower_builtin", "box", "unbox", "NativeValue"]
