"""numba.extending's low-level API: a new type with a struct data model.

What a Numba program writes to teach the compiler a Python class of its own
(Numba's "interval example"), and what hpcjit does with each part:

- ``class IntervalType(types.Type)`` and ``@register_model(IntervalType)``
  with a ``models.StructModel`` of numeric members: the type is a struct of
  those members.  hpcjit gives it a named tuple typecode (the members, under
  the attribute names ``make_attribute_wrapper`` gives them, others hidden),
  so compiled code holds it as a value in registers, as Numba does.
- ``make_attribute_wrapper(IntervalType, "lo", "lo")``: ``x.lo`` reads the
  member.  ``overload_attribute``/``overload_method`` on the type class work
  as on hpcjit's own types.
- ``@typeof_impl.register(Interval)``: instances passed to a compiled
  function are typed by calling it (per call, as Numba does).
- ``@type_callable(Interval)`` with ``@lower_builtin(Interval, types.Float,
  ...)``: ``Interval(a, b)`` in compiled code; the typer picks the type and
  the lowering runs at compile time on llvmlite builders (as an @intrinsic's
  codegen does: hpcjit.extending), with ``cgutils.create_struct_proxy``.
- ``@unbox``/``@box``: run once per type on llvmlite builders with a ``c``
  that offers ``c.pyapi`` (CPython's C API as Numba's pyapi names it),
  ``c.box``/``c.unbox`` of numbers, ``c.context`` and ``c.builder``; the IR
  is compiled by hpcjit's JIT into two native functions that the dispatcher
  calls at the boundary (python/core/extension.c).

Not portable: members that are not numbers (arrays, other structs: their data
model is Numba's), Numba's context services beyond those of @intrinsic
(``context.compile_internal``, NRT), and pyapi calls outside the list in
``_PyAPI`` (a located UnsupportedError names the missing one).
"""
import contextlib
import itertools
import re

from . import _core, errors
from . import types as _types

_TYPEOF = {}         # Python class -> typeof function(val, c)
_AS_TYPE = {}        # Python class -> hpcjit type
_MODELS = {}         # type class -> model class
_WRAPPERS = {}       # type class -> {struct member: attribute name}
_LOWER = {}          # id(func) -> [(argument type classes/instances, impl)]
_UNBOX = {}          # type class -> unbox(typ, obj, c)
_BOX = {}            # type class -> box(typ, val, c)
BY_ID = {}           # named tuple id -> extension type instance (types.from_typecode)
_KEEP = []           # objects compiled boxing code refers to by address
WHY_UNTYPEABLE = {}  # Python class -> why its last instance could not be typed
_COUNT = itertools.count()


def _by_mro(table, cls):
    for k in cls.__mro__:
        if k in table:
            return table[k]
    return None


# ---- registries (Numba's names) ----------------------------------------------

class _TypeofImpl:
    """typeof_impl: ``@typeof_impl.register(cls)`` gives the type of the
    instances of cls (Numba's is a functools.singledispatch function)."""

    def register(self, cls):
        def decorate(fn):
            _TYPEOF[cls] = fn
            _core._ext_watch(cls, _typecode_of)
            return fn
        return decorate

    def __call__(self, val, c=None):
        fn = _by_mro(_TYPEOF, type(val))
        return fn(val, c) if fn is not None else None


typeof_impl = _TypeofImpl()


def has_typeof(cls):
    return bool(_TYPEOF) and _by_mro(_TYPEOF, cls) is not None


class _AsNumbaType:
    """as_numba_type: the hpcjit type of a Python class (annotations)."""

    def register(self, py_type, numba_type):
        _AS_TYPE[py_type] = numba_type

    def __call__(self, py_type):
        t = _AS_TYPE.get(py_type)
        if t is None:
            raise errors.TypingError(f"cannot convert {py_type!r} to an hpcjit type")
        return t


as_numba_type = _AsNumbaType()


class _DataModelManager:
    """The `dmm` a model's __init__ is given (unused by StructModel here)."""


class _Model:
    def __init__(self, dmm, fe_type):
        self._dmm, self._fe_type = dmm, fe_type


class StructModel(_Model):
    """models.StructModel(dmm, fe_type, members): a struct of (name, type)."""

    def __init__(self, dmm, fe_type, members):
        super().__init__(dmm, fe_type)
        self._members = [(str(n), t) for n, t in members]


class OpaqueModel(_Model):
    """models.OpaqueModel: a pointer hpcjit cannot give values of (refused
    with a located error when such a type reaches compiled code)."""


class _Models:
    StructModel = StructModel
    OpaqueModel = OpaqueModel
    register_default = None


models = _Models()


def register_model(type_class):
    """@register_model(MyType): the data model of a types.Type subclass."""
    def decorate(model_cls):
        _MODELS[type_class] = model_cls
        return model_cls
    return decorate


def make_attribute_wrapper(type_class, struct_attr, python_attr):
    """x.<python_attr> in compiled code reads the member struct_attr."""
    _WRAPPERS.setdefault(type_class, {})[struct_attr] = python_attr


def lower_builtin(func, *argtys):
    """@lower_builtin(func, *argument types): how a call of func is lowered
    (used with type_callable)."""
    def decorate(impl):
        _LOWER.setdefault(id(func), []).append((func, argtys, impl))
        return impl
    return decorate


def unbox(type_class):
    def decorate(fn):
        _UNBOX[type_class] = fn
        return fn
    return decorate


def box(type_class):
    def decorate(fn):
        _BOX[type_class] = fn
        return fn
    return decorate


class NativeValue:
    """What an @unbox gives: the native value and an i1 error flag."""

    def __init__(self, value, is_error=None, cleanup=None):
        self.value, self.is_error, self.cleanup = value, is_error, cleanup


def type_callable(func):
    """@type_callable(func): def f(context): return typer(*argument types),
    giving the call's return type or None; the call is lowered by the
    @lower_builtin(func, ...) that matches the argument types."""
    from . import extending

    def decorate(factory):
        typer = factory(extending._TypingContext())
        name = getattr(func, "__name__", repr(func))

        def typing(ctx, *args):
            rt = typer(*args)
            if rt is None:
                return None
            impl = _find_lowering(func, args)
            if impl is None:
                raise errors.TypingError(f"no @lower_builtin({name}, ...) matches the argument types "
                                         f"({', '.join(map(str, args))})")
            ext_typecode(rt)

            def codegen(context, builder, sig, llargs):
                return impl(context, builder, sig, llargs)
            return _types.Signature(rt, args), codegen

        entry = extending._BY_ID.get(id(func))
        if entry is None or entry[0] is not func:
            entry = (func, extending._Overload("intrinsic", name, func))
            extending._BY_ID[id(func)] = entry
        entry[1].templates.append((typing, {}, False, None))
        entry[1].impls.clear()
        return factory
    return decorate


def _arg_matches(spec, t):
    if isinstance(spec, type):
        return isinstance(t, spec)
    return spec == t


def _find_lowering(func, args):
    for f, argtys, impl in reversed(_LOWER.get(id(func), [])):
        if f is func and len(argtys) == len(args) and all(_arg_matches(s, t) for s, t in zip(argtys, args)):
            return impl
    return None


# ---- the extension type's typecode and boundary code ---------------------------

def _members(ty):
    model_cls = _by_mro(_MODELS, type(ty))
    if model_cls is None:
        return None
    model = model_cls(_DataModelManager(), ty)
    if not isinstance(model, StructModel):
        raise errors.UnsupportedError(
            f"the type {ty} has the data model {type(model).__name__}: hpcjit compiles extension types "
            f"with a models.StructModel of numbers only")
    for name, mt in model._members:
        if not isinstance(mt, (_types.Integer, _types.Float)) or isinstance(mt, _types.Boolean):
            raise errors.UnsupportedError(
                f"the member {name!r} of {ty} is of type {mt}: hpcjit compiles StructModel members "
                f"that are integers or floats (other types have Numba's data model)")
    return model._members


def is_extension(ty):
    return isinstance(ty, _types.Type) and _by_mro(_MODELS, type(ty)) is not None


def ext_typecode(ty):
    """The typecode of extension type ty ('N' header + members), made and
    its boundary code compiled on first use; None when ty has no model."""
    if ty.typecode is not None or not is_extension(ty):
        return ty.typecode
    members = _members(ty)
    wrap = _by_mro(_WRAPPERS, type(ty)) or {}
    name = re.sub(r"\W", "_", str(ty)) or "ext"
    key = ("hpcjit.extension", type(ty).__module__, type(ty).__qualname__, str(ty))
    nid = _core._ext_register(key, name)
    fields = ",".join(wrap.get(m, "$" + m) for m, _ in members)
    codes = "".join(mt.typecode for _, mt in members)
    ty.typecode = f"N{nid}:{name}:{fields}:({codes})"
    BY_ID[nid] = ty
    unbox_addr, box_addr = _compile_boundary(ty, nid, members)
    _core._ext_set(nid, None, unbox_addr, box_addr)
    return ty.typecode


def _typecode_of(obj):
    """The dispatcher's typecode of an instance of a typeof_impl class."""
    fn = _by_mro(_TYPEOF, type(obj))
    try:
        ty = fn(obj, None) if fn is not None else None
        if not isinstance(ty, _types.Type):
            return None
        tc = ext_typecode(ty)
    except Exception as e:  # the dispatcher's error says why (dispatcher._untypeable)
        WHY_UNTYPEABLE[type(obj)] = f"{type(e).__name__}: {e}"
        raise
    if tc is not None and tc.startswith("N"):
        _core._ext_set(int(tc[1:tc.index(":")]), type(obj), 0, 0)
    return tc


def ir_type(t):
    """The llvmlite type of an extension type's values, else None."""
    if not is_extension(t):
        return None
    from llvmlite import ir
    from .extending import _ir_type
    return ir.LiteralStructType([_ir_type(mt, str(t)) for _, mt in _members(t)])


def _compile_boundary(ty, nid, members):
    """(unbox address, box address) of the type's @unbox/@box code; 0 for
    one the program does not give."""
    from llvmlite import ir
    from . import _compiler
    st = ir_type(ty)
    out = []
    for kind, table in (("unbox", _UNBOX), ("box", _BOX)):
        fn_user = _by_mro(table, type(ty))
        if fn_user is None:
            out.append(0)
            continue
        sym = f"hpcjit_ext_{kind}_{nid}_{next(_COUNT)}"
        mod = ir.Module(name=sym)
        if kind == "unbox":
            fnty = ir.FunctionType(ir.IntType(8), [_PYOBJ(), st.as_pointer()])
        else:
            fnty = ir.FunctionType(_PYOBJ(), [st.as_pointer()])
        fn = ir.Function(mod, fnty, name=sym)
        builder = ir.IRBuilder(fn.append_basic_block("entry"))
        c = _BoxingContext(builder, mod, str(ty))
        try:
            if kind == "unbox":
                nv = fn_user(ty, fn.args[0], c)
                if not isinstance(nv, NativeValue):
                    raise errors.TypingError(f"@unbox of {ty} returned {nv!r}, not a NativeValue")
                builder.store(nv.value, fn.args[1])
                err = nv.is_error if nv.is_error is not None else ir.Constant(ir.IntType(1), 0)
                builder.ret(builder.zext(err, ir.IntType(8)))
            else:
                res = fn_user(ty, builder.load(fn.args[0]), c)
                builder.ret(res)
        except errors.HpcjitError:
            raise
        except Exception as e:
            raise errors.TypingError(f"the @{kind} code of {ty} raised {type(e).__name__}: {e}") from None
        text = "\n".join(line for line in str(mod).splitlines()
                         if not line.startswith(("target triple", "target datalayout")))
        out.append(_compiler.load(_compiler.compile_ir(text), sym))
    return out[0], out[1]


# ---- what @unbox/@box code gets as `c` -----------------------------------------

def _PYOBJ():
    from llvmlite import ir
    return ir.IntType(8).as_pointer()


class _Serialized:
    """A Python object the boxing code refers to (pyapi.serialize_object)."""

    def __init__(self, obj):
        self.obj = obj
        _KEEP.append(obj)


class _PyAPI:
    """Numba's PythonAPI names for CPython's C API, on one builder."""

    def __init__(self, builder, module, where):
        from llvmlite import ir
        self.builder, self.module, self._where = builder, module, where
        self.pyobj = _PYOBJ()
        self.cstring = ir.IntType(8).as_pointer()
        self.long = ir.IntType(64)
        self.longlong = ir.IntType(64)
        self.py_ssize_t = ir.IntType(64)
        self.double = ir.DoubleType()

    def _fn(self, name, ret, args, var_arg=False):
        from llvmlite import ir
        fn = self.module.globals.get(name)
        if fn is None:
            fn = ir.Function(self.module, ir.FunctionType(ret, args, var_arg=var_arg), name=name)
        return fn

    def _cstr(self, s):
        from llvmlite import ir
        data = bytearray(s.encode("utf-8")) + b"\0"
        g = ir.GlobalVariable(self.module, ir.ArrayType(ir.IntType(8), len(data)),
                              name=f".str.{next(_COUNT)}")
        g.global_constant = True
        g.linkage = "internal"
        g.initializer = ir.Constant(ir.ArrayType(ir.IntType(8), len(data)), data)
        return self.builder.bitcast(g, self.cstring)

    def _global_obj(self, name):
        from llvmlite import ir
        g = self.module.globals.get(name)
        if g is None:
            g = ir.GlobalVariable(self.module, self.pyobj, name=name)
        return g

    # references
    def incref(self, obj):
        from llvmlite import ir
        self.builder.call(self._fn("Py_IncRef", ir.VoidType(), [self.pyobj]), [obj])

    def decref(self, obj):
        from llvmlite import ir
        self.builder.call(self._fn("Py_DecRef", ir.VoidType(), [self.pyobj]), [obj])

    def get_null_object(self):
        from llvmlite import ir
        return ir.Constant(self.pyobj, None)

    def borrow_none(self):
        from llvmlite import ir
        g = self.module.globals.get("_Py_NoneStruct")
        if g is None:
            g = ir.GlobalVariable(self.module, ir.IntType(8), name="_Py_NoneStruct")
        return self.builder.bitcast(g, self.pyobj)

    def make_none(self):
        obj = self.borrow_none()
        self.incref(obj)
        return obj

    # attributes and calls
    def object_getattr_string(self, obj, attr):
        return self.builder.call(self._fn("PyObject_GetAttrString", self.pyobj, [self.pyobj, self.cstring]),
                                 [obj, self._cstr(attr)])

    def object_setattr_string(self, obj, attr, val):
        from llvmlite import ir
        return self.builder.call(self._fn("PyObject_SetAttrString", ir.IntType(32),
                                          [self.pyobj, self.cstring, self.pyobj]),
                                 [obj, self._cstr(attr), val])

    def object_getattr(self, obj, attr):
        return self.builder.call(self._fn("PyObject_GetAttr", self.pyobj, [self.pyobj, self.pyobj]), [obj, attr])

    def call_function_objargs(self, callee, objargs):
        fn = self._fn("PyObject_CallFunctionObjArgs", self.pyobj, [self.pyobj], var_arg=True)
        return self.builder.call(fn, [callee] + list(objargs) + [self.get_null_object()])

    def call(self, callee, args=None, kws=None):
        fn = self._fn("PyObject_Call", self.pyobj, [self.pyobj] * 3)
        return self.builder.call(fn, [callee, args if args is not None else self.tuple_pack([]),
                                      kws if kws is not None else self.get_null_object()])

    def tuple_pack(self, items):
        from llvmlite import ir
        fn = self._fn("PyTuple_Pack", self.pyobj, [self.py_ssize_t], var_arg=True)
        return self.builder.call(fn, [ir.Constant(self.py_ssize_t, len(items))] + list(items))

    def tuple_getitem(self, tup, idx):
        from llvmlite import ir
        fn = self._fn("PyTuple_GetItem", self.pyobj, [self.pyobj, self.py_ssize_t])
        return self.builder.call(fn, [tup, ir.Constant(self.py_ssize_t, idx)])

    def serialize_object(self, obj):
        return _Serialized(obj)

    def unserialize(self, handle):
        """A new reference to the object (its address is part of the code:
        boundary code is made per process, never cached)."""
        from llvmlite import ir
        obj = handle.obj if isinstance(handle, _Serialized) else handle
        _KEEP.append(obj)
        ptr = ir.Constant(ir.IntType(64), id(obj)).inttoptr(self.pyobj)
        self.incref(ptr)
        return ptr

    # numbers
    def float_from_double(self, val):
        return self.builder.call(self._fn("PyFloat_FromDouble", self.pyobj, [self.double]), [val])

    def float_as_double(self, obj):
        return self.builder.call(self._fn("PyFloat_AsDouble", self.double, [self.pyobj]), [obj])

    def number_float(self, obj):
        return self.builder.call(self._fn("PyNumber_Float", self.pyobj, [self.pyobj]), [obj])

    def number_long(self, obj):
        return self.builder.call(self._fn("PyNumber_Long", self.pyobj, [self.pyobj]), [obj])

    def long_from_longlong(self, val):
        return self.builder.call(self._fn("PyLong_FromLongLong", self.pyobj, [self.longlong]), [val])

    long_from_long = long_from_ssize_t = long_from_longlong

    def long_from_ulonglong(self, val):
        return self.builder.call(self._fn("PyLong_FromUnsignedLongLong", self.pyobj, [self.longlong]), [val])

    def long_as_longlong(self, obj):
        return self.builder.call(self._fn("PyLong_AsLongLong", self.longlong, [self.pyobj]), [obj])

    long_as_long = long_as_ssize_t = long_as_longlong

    def long_as_ulonglong(self, obj):
        return self.builder.call(self._fn("PyLong_AsUnsignedLongLong", self.longlong, [self.pyobj]), [obj])

    def bool_from_bool(self, bval):
        from llvmlite import ir
        v = self.builder.zext(bval, ir.IntType(64))
        return self.builder.call(self._fn("PyBool_FromLong", self.pyobj, [ir.IntType(64)]), [v])

    def object_istrue(self, obj):
        from llvmlite import ir
        return self.builder.call(self._fn("PyObject_IsTrue", ir.IntType(32), [self.pyobj]), [obj])

    # errors
    def err_occurred(self):
        return self.builder.call(self._fn("PyErr_Occurred", self.pyobj, []), [])

    def err_clear(self):
        from llvmlite import ir
        self.builder.call(self._fn("PyErr_Clear", ir.VoidType(), []), [])

    def err_set_string(self, exctype, msg):
        from llvmlite import ir
        if isinstance(exctype, str):
            exctype = self.builder.load(self._global_obj(exctype))
        self.builder.call(self._fn("PyErr_SetString", ir.VoidType(), [self.pyobj, self.cstring]),
                          [exctype, self._cstr(msg) if isinstance(msg, str) else msg])

    def __getattr__(self, attr):
        raise errors.UnsupportedError(
            f"the boxing code of {self._where} uses pyapi.{attr}, which hpcjit does not provide "
            f"(see hpcjit.lowlevel._PyAPI for the names it has)")


class _BoxingContext:
    """`c` of @unbox/@box: builder, context, pyapi, box and unbox of numbers."""

    def __init__(self, builder, module, where):
        from .extending import _CodegenContext
        self.builder = builder
        self.context = _CodegenContext(where)
        self.pyapi = _PyAPI(builder, module, where)
        self._where = where

    def box(self, typ, val):
        from llvmlite import ir
        api, b = self.pyapi, self.builder
        if isinstance(typ, _types.Boolean):
            return api.bool_from_bool(val)
        if isinstance(typ, _types.Float):
            if typ.bitwidth == 32:
                val = b.fpext(val, ir.DoubleType())
            return api.float_from_double(val)
        if isinstance(typ, _types.Integer):
            if typ.bitwidth < 64:
                val = (b.sext if typ.signed else b.zext)(val, ir.IntType(64))
            return api.long_from_longlong(val) if typ.signed else api.long_from_ulonglong(val)
        raise errors.UnsupportedError(f"c.box({typ}) in the boxing code of {self._where}: hpcjit boxes "
                                      f"numbers here")

    def unbox(self, typ, obj):
        from llvmlite import ir
        api, b = self.pyapi, self.builder
        if isinstance(typ, _types.Boolean):
            r = api.object_istrue(obj)
            return NativeValue(b.icmp_signed("!=", r, ir.Constant(r.type, 0)),
                               is_error=b.icmp_signed("<", r, ir.Constant(r.type, 0)))
        if isinstance(typ, _types.Float):
            f = api.number_float(obj)
            val = api.float_as_double(f)   # NULL f: TypeError, as Numba's
            api.decref(f)
            if typ.bitwidth == 32:
                val = b.fptrunc(val, ir.FloatType())
        elif isinstance(typ, _types.Integer):
            i = api.number_long(obj)
            val = api.long_as_longlong(i) if typ.signed else api.long_as_ulonglong(i)
            api.decref(i)
            if typ.bitwidth < 64:
                val = b.trunc(val, ir.IntType(typ.bitwidth))
        else:
            raise errors.UnsupportedError(f"c.unbox({typ}) in the boxing code of {self._where}: hpcjit "
                                          f"unboxes numbers here")
        err = b.icmp_unsigned("!=", api.err_occurred(), api.get_null_object())
        return NativeValue(val, is_error=err)


# ---- cgutils (Numba's numba.core.cgutils, the part such code uses: hpcjit.cgutils) --

def _const_bit(v):
    from llvmlite import ir
    return ir.Constant(ir.IntType(1), v)


def alloca_once(builder, ty, size=None, name="", zfill=False):
    """An alloca at the start of the function (so loops do not grow the
    stack), optionally zero-filled where the builder is."""
    from llvmlite import ir
    with builder.goto_entry_block():
        ptr = builder.alloca(ty, size=size, name=name)
    if zfill:
        builder.store(ir.Constant(ty, None), ptr)
    return ptr


def alloca_once_value(builder, value, name=""):
    ptr = alloca_once(builder, value.type, name=name)
    builder.store(value, ptr)
    return ptr


def is_null(builder, val):
    from llvmlite import ir
    return builder.icmp_unsigned("==", val, ir.Constant(val.type, None))


def is_not_null(builder, val):
    from llvmlite import ir
    return builder.icmp_unsigned("!=", val, ir.Constant(val.type, None))


def get_null_value(ltype):
    from llvmlite import ir
    return ir.Constant(ltype, None)


@contextlib.contextmanager
def if_likely(builder, pred):
    with builder.if_then(pred, likely=True):
        yield


@contextlib.contextmanager
def if_unlikely(builder, pred):
    with builder.if_then(pred, likely=False):
        yield


@contextlib.contextmanager
def early_exit_if(builder, stack, cond):
    """The block under `with` runs when cond holds and then leaves the
    ExitStack's scope; what follows the `with` runs otherwise (until the
    stack closes, where both paths meet)."""
    then, otherwise = stack.enter_context(builder.if_else(cond, likely=False))
    with then:
        yield
    stack.enter_context(otherwise)


def early_exit_if_null(builder, stack, obj):
    return early_exit_if(builder, stack, is_null(builder, obj))


def create_struct_proxy(typ):
    """A class whose instances are a struct value of extension type typ on
    the stack, read and written by member name."""
    members = _members(typ)
    if members is None:
        raise errors.UnsupportedError(f"create_struct_proxy({typ}): the type has no StructModel")
    names = [m for m, _ in members]

    class _StructProxy:
        def __init__(self, context, builder, value=None, ref=None):
            object.__setattr__(self, "_builder", builder)
            lt = ir_type(typ)
            object.__setattr__(self, "_type", lt)
            if ref is not None:
                object.__setattr__(self, "_ptr", ref)
            else:
                object.__setattr__(self, "_ptr", alloca_once(builder, lt, zfill=value is None))
                if value is not None:
                    builder.store(value, self._ptr)

        def _gep(self, name):
            from llvmlite import ir
            if name not in names:
                raise AttributeError(f"{typ} has no member {name!r} (members: {', '.join(names)})")
            i32 = ir.IntType(32)
            return self._builder.gep(self._ptr, [ir.Constant(i32, 0), ir.Constant(i32, names.index(name))],
                                     inbounds=True)

        def __getattr__(self, name):
            if name.startswith("_"):
                raise AttributeError(name)
            return self._builder.load(self._gep(name))

        def __setattr__(self, name, value):
            self._builder.store(value, self._gep(name))

        def __getitem__(self, i):
            return getattr(self, names[i])

        def __setitem__(self, i, value):
            setattr(self, names[i], value)

        def _getvalue(self):
            return self._builder.load(self._ptr)

        def _setvalue(self, value):
            self._builder.store(value, self._ptr)

        def _getpointer(self):
            return self._ptr

    _StructProxy.__name__ = f"StructProxy_{typ}"
    return _StructProxy
