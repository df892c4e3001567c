"""hpcjit.experimental.jitclass (also numba.experimental.jitclass under the
drop-in): classes whose instances live in native memory, shared by compiled
code and Python.

    @jitclass([("n", int64), ("data", float64[:])])     # or annotations
    class Buf:
        def __init__(self, n):
            self.n = n
            self.data = np.zeros(n)
        def add(self, i, v):
            self.data[i] += v
        @property
        def total(self):
            return self.data.sum()
        @staticmethod
        def make(n):
            return Buf(n)

An instance is a reference-counted block holding the fields as a C struct
(runtime/jitclass.c); compiled code takes it by reference (typecode 'J'
<id>), so a method called from Python or from compiled code changes the same
object.  Every method, property getter and static method is an @njit
function taking the instance first; the constructor and the field accessors
used from Python are small @njit functions generated here.  The compiler
learns a class from hidden globals added to every function's environment
(compiler.py, compiler/infer/infer_jitclass.c).  Fields: numbers, tuples,
arrays, typed containers, other jitclass instances, optionals of these
(None or a value), and deferred_type()s defined after the class (recursive
classes: a field optional(node_type) where node_type.define(
Cls.class_type.instance_type) follows the class).  Property setters and
Numba's dunder methods (_DUNDERS: len, items, operators, comparisons,
conversions) are methods too.  Not supported: class attributes other than
methods, inheritance, __iter__ (as in Numba)."""
import types as _pytypes

from . import _core, errors
from . import types as _types

__all__ = ["jitclass"]

_classes = []  # id -> JitClassType


def _jc_alloc(cls):
    """Stand-in of the compiler's allocator (only compiled code calls it)."""
    raise errors.UnsupportedError("$jc_alloc can only be called from compiled code")


_SCALARS = {int: _types.int64, float: _types.float64, bool: _types.boolean, complex: _types.complex128}


def _from_typing(name, t):
    """typing.List[float], Dict[str, int], Tuple[int, float], Optional[int]
    (and the builtin generics list[float]...) as Numba maps them: typed
    containers, tuples, optionals of the mapped argument types."""
    import typing
    origin = typing.get_origin(t)
    if origin is None:
        return t
    args = [_field_type(name, a) for a in typing.get_args(t) if a is not type(None)]
    if origin is list and len(args) == 1:
        return _types.ListType(args[0])
    if origin is dict and len(args) == 2:
        return _types.DictType(args[0], args[1])
    if origin is tuple and args and Ellipsis not in typing.get_args(t):
        return _types.Tuple(tuple(args))
    if origin is typing.Union and len(typing.get_args(t)) == 2 and len(args) == 1:
        return _types.Optional(args[0])
    return t


def _field_type(name, t):
    if t is str:
        t = _types.unicode_type
    t = _SCALARS.get(t, t)
    t = _from_typing(name, t)
    if isinstance(t, JitClassType):  # an instance of another jitclass
        t = t.instance_type
    if isinstance(t, _types.DeferredType) or (isinstance(t, _types.Optional)
                                              and isinstance(t.type, _types.DeferredType)):
        return t  # defined later (recursive classes): its typecode is read at compile time
    if not isinstance(t, _types.Type) or t.typecode is None:
        raise errors.UnsupportedError(f"jitclass field '{name}': the type {t!r} is not supported by hpcjit")
    if ";" in t.typecode or "|" in t.typecode:
        raise errors.UnsupportedError(f"jitclass field '{name}': the type {t} is not supported by hpcjit")
    return t


def _deferred_typecode(name, t):
    """A field's typecode at compile time: a deferred_type() (or an optional
    of one) is known once defined; "!" until then, which the compiler
    reports where the class is used (infer/infer_jitclass.c)."""
    if not isinstance(t, (_types.DeferredType, _types.Optional)) or t.typecode is not None:
        return t.typecode
    d = t if isinstance(t, _types.DeferredType) else t.type
    if d._define is None:
        return "!"
    tc = t.typecode
    if tc is None or ";" in tc or "|" in tc:
        raise errors.UnsupportedError(f"jitclass field '{name}': the type {t} is not supported by hpcjit")
    return tc


def _generated(name, text, glb, options=None):
    """An @njit function from generated source (it has no file)."""
    from .dispatcher import make_dispatcher
    from . import compiler
    ns = dict(glb)
    exec(compile(text, f"<jitclass {name}>", "exec"), ns)
    fn = ns[name]
    disp = make_dispatcher(fn, dict(options or {}))
    disp.__dict__["_hj_source"] = compiler._make_source(text, 1, 0, f"<jitclass {name}>")
    return disp


class JitClassType:
    """A jitclass: calling it makes an instance (its constructor is compiled
    code); isinstance() recognises its instances."""

    def __init__(self, cls, spec):
        from .dispatcher import make_dispatcher
        self.class_type = self
        self.py_class = cls
        self.__name__ = cls.__name__
        self.__qualname__ = cls.__qualname__
        self.__doc__ = cls.__doc__
        if spec is None:
            spec = getattr(cls, "__annotations__", {})
        items = list(spec.items()) if isinstance(spec, dict) else list(spec)
        self.spec = [(n, _field_type(n, t)) for n, t in items]
        self._id = len(_classes)
        self.methods, self.properties, self.statics, self.setters = {}, {}, {}, {}
        for name, v in cls.__dict__.items():
            if isinstance(v, _pytypes.FunctionType):
                if name.startswith("__") and name.endswith("__") and name not in _DUNDERS:
                    raise errors.UnsupportedError(f"jitclass {cls.__name__}: the method {name} is not "
                                                  f"supported by hpcjit")
                self.methods[name] = make_dispatcher(v, {})
            elif isinstance(v, property):
                if v.fget is None:
                    raise errors.UnsupportedError(f"jitclass {cls.__name__}: the property '{name}' has "
                                                  f"no getter")
                self.properties[name] = make_dispatcher(v.fget, {})
                if v.fset is not None:
                    self.setters[name] = make_dispatcher(v.fset, {})
            elif isinstance(v, staticmethod):
                self.statics[name] = make_dispatcher(v.__func__, {})
        fields = {n for n, _ in self.spec}
        for name in list(self.methods) + list(self.properties) + list(self.statics):
            if name in fields:
                raise errors.UnsupportedError(f"jitclass {cls.__name__}: '{name}' is a field and a method")
        self._ctor = self._make_ctor()
        self._getters, self._setters = {}, {}
        for n, _ in self.spec:
            self._getters[n] = _generated("__hj_get", f"def __hj_get(self):\n    return self.{n}\n", {})
            self._setters[n] = _generated("__hj_set", f"def __hj_set(self, v):\n    self.{n} = v\n", {})
        self._box = self._make_box()
        _classes.append(self)
        _core._jc_register(self._id, self._box)

    def _make_ctor(self):
        import inspect
        init = self.methods.get("__init__")
        params, names = [], []
        if init is not None:
            sig = inspect.signature(init.py_func)
            for k, p in enumerate(sig.parameters.values()):
                if k == 0:
                    continue
                if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                    raise errors.UnsupportedError(f"jitclass {self.__name__}: __init__'s *args/**kwargs and "
                                                  f"keyword-only parameters are not supported by hpcjit")
                if p.default is p.empty:
                    params.append(p.name)
                elif isinstance(p.default, (int, float, bool, complex)) or p.default is None:
                    params.append(f"{p.name}={p.default!r}")
                else:
                    raise errors.UnsupportedError(f"jitclass {self.__name__}: the default of '{p.name}' "
                                                  f"is not a number")
                names.append(p.name)
        call = f"    __hj_init(self, {', '.join(names)})\n" if init is not None else ""
        text = (f"def __hj_new({', '.join(params)}):\n    self = __hj_alloc(__hj_cls)\n{call}"
                f"    return self\n")
        return _generated("__hj_new", text, {"__hj_alloc": _jc_alloc, "__hj_cls": self,
                                             "__hj_init": init})

    def _make_box(self):
        ns = {"__slots__": (), "__module__": self.py_class.__module__, "__doc__": self.__doc__,
              "_hj_class": self}
        for n, _ in self.spec:
            get, put = self._getters[n], self._setters[n]
            ns[n] = property(lambda obj, g=get: g(obj), lambda obj, v, s=put: s(obj, v))
        for name, disp in self.methods.items():
            if name == "__init__":
                continue
            ns[name] = (lambda d: lambda obj, *a, **k: d(obj, *a, **k))(disp)
        if "__eq__" in self.methods and "__hash__" not in self.methods:
            ns["__hash__"] = None  # as Python does for a class with __eq__
        for name, disp in self.properties.items():
            put = self.setters.get(name)
            ns[name] = property(lambda obj, g=disp: g(obj),
                                None if put is None else (lambda obj, v, s=put: s(obj, v)))
        for name, disp in self.statics.items():
            ns[name] = staticmethod(disp)

        def __repr__(obj):
            return f"<{self.py_class.__module__}.{self.__name__} object (jitclass)>"
        ns["__repr__"] = __repr__
        return type(self.__name__, (_core._JitObject,), ns)

    # ---- what the compiler needs (compiler.py) ----
    def _description(self):
        fields = ";".join(f"{n}={_deferred_typecode(n, t)}" for n, t in self.spec)
        methods = ";".join(n for n in self.methods if n != "__init__")
        return (f"$jc:{self._id}|{self.__name__}|{fields}|{methods}|{';'.join(self.properties)}|"
                f"{';'.join(self.statics)}|{';'.join(self.setters)}")

    def _env(self, gather):
        i = self._id
        env = [(f"$jc{i}", "builtin", self._description()), (f"$jcnew{i}", "func", gather.add(self._ctor))]
        env += [(f"$jcm{i}.{n}", "func", gather.add(d)) for n, d in self.methods.items() if n != "__init__"]
        env += [(f"$jcp{i}.{n}", "func", gather.add(d)) for n, d in self.properties.items()]
        env += [(f"$jcps{i}.{n}", "func", gather.add(d)) for n, d in self.setters.items()]
        env += [(f"$jcs{i}.{n}", "func", gather.add(d)) for n, d in self.statics.items()]
        return env

    @property
    def instance_type(self):
        """The type of the instances (Numba's Cls.class_type.instance_type):
        for fields, typed containers and signatures."""
        return _types.JitClassInstanceType(self._id)

    # ---- Python side ----
    def __call__(self, *args, **kwargs):
        return self._ctor(*args, **kwargs)

    def __instancecheck__(self, obj):
        return isinstance(obj, self._box)

    def __getattr__(self, name):
        statics = self.__dict__.get("statics", {})
        if name in statics:
            return statics[name]
        raise AttributeError(f"jitclass {self.__dict__.get('__name__', '?')} has no attribute {name!r}")

    def __repr__(self):
        return f"<jitclass {self.py_class.__module__}.{self.__name__}>"


# The dunder methods a jitclass may define (Numba 0.68's set): compiled code
# calls them for the operators and builtins (infer/infer_jitclass.c), and
# the boxed instances have them in Python.
_BINARY = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lshift", "rshift",
           "and", "or", "xor", "matmul")
_DUNDERS = frozenset(
    ["__init__", "__len__", "__getitem__", "__setitem__", "__contains__", "__eq__", "__ne__",
     "__lt__", "__le__", "__gt__", "__ge__", "__neg__", "__pos__", "__invert__", "__abs__",
     "__bool__", "__float__", "__int__", "__index__", "__complex__", "__hash__", "__str__"]
    + [f"__{p}{op}__" for op in _BINARY for p in ("", "r", "i")])


def jitclass(cls_or_spec=None, spec=None):
    """@jitclass(spec), @jitclass (fields from annotations) or jitclass(cls, spec)."""
    if cls_or_spec is not None and isinstance(cls_or_spec, type) and not isinstance(cls_or_spec, JitClassType):
        return JitClassType(cls_or_spec, spec)

    def wrap(cls):
        return JitClassType(cls, cls_or_spec if cls_or_spec is not None else spec)
    return wrap


def __getattr__(name):
    if name == "structref":  # hpcjit.experimental.structref (imports this module)
        from . import structref
        return structref
    raise AttributeError(f"module 'hpcjit.experimental' has no attribute {name!r}")
