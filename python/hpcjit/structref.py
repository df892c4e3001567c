"""hpcjit.experimental.structref (numba.experimental.structref): mutable
structures passed by reference, whose field types come from the values
they are made with.

    @structref.register
    class MyStructType(types.StructRef):
        def preprocess_fields(self, fields):
            return tuple((name, types.unliteral(typ)) for name, typ in fields)

    class MyStruct(structref.StructRefProxy):
        def __new__(cls, name, vector):
            return structref.StructRefProxy.__new__(cls, name, vector)

    structref.define_proxy(MyStruct, MyStructType, ["name", "vector"])

hpcjit builds each one on its jitclasses: every combination of field types
is a jitclass with those fields (made on first use, from Python or while
compiling), its instances are boxed as a subclass of the proxy class (so the
proxy's properties and methods apply), and its instance type is an
instance of the registered StructRef subclass (so `overload_method(
MyStructType, "distance")` matches it).  Calling the proxy class in
compiled code is an overload that picks the specialisation from the
arguments' types.  Fields are read and written in compiled code as
`s.field`; from Python through the proxy's own properties (as in Numba,
define_proxy adds none)."""
from . import types as _types

__all__ = ["register", "StructRefProxy", "define_proxy", "define_constructor", "define_attributes"]

# (StructRef subclass, ((name, typecode), ...)) -> the jitclass of that layout
_SPECS = {}
# jitclass id -> the StructRef type of its instances (types.from_typecode)
BY_CLASS_ID = {}
# StructRef subclass -> (proxy class, field names)
_PROXIES = {}


def register(struct_type):
    """@structref.register: a StructRef subclass whose instances hpcjit
    knows (it needs define_proxy to be made)."""
    if not (isinstance(struct_type, type) and issubclass(struct_type, _types.StructRef)):
        raise TypeError("structref.register() takes a subclass of types.StructRef")
    return struct_type


def define_attributes(struct_type):
    """Numba defines the fields' attribute access in compiled code here;
    hpcjit's structrefs have it already (they are jitclasses)."""
    return struct_type


def _jitclass_for(struct_type, fields, proxy):
    """The jitclass of struct_type with these (name, type) fields."""
    key = (struct_type, tuple((n, t.typecode) for n, t in fields))
    jc = _SPECS.get(key)
    if jc is not None:
        return jc
    names = [n for n, _ in fields]
    ns = {}
    src = (f"def __init__(self, {', '.join(names)}):\n" +
           "".join(f"    self.{n} = {n}\n" for n in names))
    exec(compile(src, f"<structref {struct_type.__name__}>", "exec"), ns)
    py_class = type(struct_type.__name__, (), {"__init__": ns["__init__"], "__module__": proxy.__module__})
    import linecache
    linecache.cache[f"<structref {struct_type.__name__}>"] = (len(src), None, src.splitlines(True),
                                                             f"<structref {struct_type.__name__}>")
    jc = _class_type()(py_class, list(fields), proxy)
    inst = struct_type(fields)
    inst.typecode = f"J{jc._id}"
    BY_CLASS_ID[jc._id] = inst
    _SPECS[key] = jc
    return jc


def _make_class_type():
    from .experimental import JitClassType
    from . import _core

    class StructRefClass(JitClassType):
        """A jitclass whose boxed instances are the proxy class's."""

        def __init__(self, py_class, spec, proxy):
            self._proxy = proxy
            super().__init__(py_class, spec)

        def _make_box(self):
            proxy = self._proxy
            ns = {"__slots__": (), "__module__": proxy.__module__, "_hj_class": self,
                  "__qualname__": proxy.__qualname__}
            box = type(proxy.__name__, (proxy,), ns)
            if not issubclass(box, _core._JitObject):
                raise TypeError(f"{proxy.__name__} must derive from structref.StructRefProxy")
            return box
    return StructRefClass


def _fields_of(struct_type, proxy, args, kwargs):
    names = _PROXIES[struct_type][1]
    values = _bind(proxy, names, args, kwargs)
    fields = [(n, _types.typeof(v)) for n, v in zip(names, values)]
    return _preprocess(struct_type, fields), values


def _preprocess(struct_type, fields):
    probe = struct_type.__new__(struct_type)
    probe._fields = tuple(fields)
    pre = getattr(probe, "preprocess_fields", None)
    out = tuple(pre(tuple(fields))) if pre is not None else tuple(fields)
    return tuple((n, _types.unliteral(t)) for n, t in out)


def _bind(proxy, names, args, kwargs):
    if len(args) > len(names):
        raise TypeError(f"{proxy.__name__}() takes {len(names)} arguments ({len(args)} given)")
    values = list(args) + [None] * (len(names) - len(args))
    given = [True] * len(args) + [False] * (len(names) - len(args))
    for k, v in kwargs.items():
        if k not in names:
            raise TypeError(f"{proxy.__name__}() got an unexpected keyword argument '{k}'")
        i = names.index(k)
        if given[i]:
            raise TypeError(f"{proxy.__name__}() got multiple values for argument '{k}'")
        values[i], given[i] = v, True
    missing = [n for n, g in zip(names, given) if not g]
    if missing:
        raise TypeError(f"{proxy.__name__}() missing argument '{missing[0]}'")
    return values


def _base():
    from . import _core
    return _core._JitObject


class StructRefProxy(_base()):
    """Base of a structref's Python class: StructRefProxy.__new__(cls,
    *fields) makes an instance (a jitclass instance of the specialisation
    for the values' types, boxed as a subclass of cls)."""
    __slots__ = ()

    def __new__(cls, *args, **kwargs):
        st = _struct_type_of(cls)
        fields, values = _fields_of(st, cls, args, kwargs)
        jc = _jitclass_for(st, fields, _PROXIES[st][0])
        return jc._ctor(*values)

    @property
    def _numba_type_(self):
        return BY_CLASS_ID.get(self._hj_class._id)


def _struct_type_of(proxy):
    for st, (p, _) in _PROXIES.items():
        if issubclass(proxy, p):
            return st
    raise TypeError(f"{proxy.__name__} has no structref type (structref.define_proxy)")


def define_constructor(proxy, struct_type, field_names):
    """Calling proxy (the class) in compiled code: an overload that makes the
    specialisation for the arguments' types."""
    from . import extending
    names = list(field_names)
    params = ", ".join(names)

    def specialise(*types):
        fields = _preprocess(struct_type, list(zip(names, types)))
        jc = _jitclass_for(struct_type, fields, proxy)
        ns = {"__ctor": jc._ctor}
        exec(compile(f"def impl({params}):\n    return __ctor({params})\n", "<structref ctor>", "exec"), ns)
        return ns["impl"]

    ns = {"specialise": specialise}
    exec(compile(f"def typing({params}):\n    return specialise({params})\n", "<structref typing>", "exec"), ns)
    extending.overload(proxy)(ns["typing"])


def define_proxy(proxy, struct_type, field_names):
    """Make proxy (a StructRefProxy subclass) the Python class of struct_type
    with these fields, callable from Python and compiled code."""
    if not (isinstance(proxy, type) and issubclass(proxy, StructRefProxy)):
        raise TypeError("define_proxy() takes a subclass of structref.StructRefProxy")
    if not (isinstance(struct_type, type) and issubclass(struct_type, _types.StructRef)):
        raise TypeError("define_proxy() takes a StructRef subclass registered with structref.register")
    names = list(field_names)
    _PROXIES[struct_type] = (proxy, names)
    define_constructor(proxy, struct_type, names)
    define_attributes(struct_type)


_StructRefClass = None  # made on first use (hpcjit.experimental imports this module)


def _class_type():
    global _StructRefClass
    if _StructRefClass is None:
        _StructRefClass = _make_class_type()
    return _StructRefClass
