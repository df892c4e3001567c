"""Run unmodified Numba programs on hpcjit: the drop-in.

    python -m hpcjit.numba SCRIPT [ARGS]      (or -m MODULE / -c CODE)
    HPCJIT_AS_NUMBA=1 python SCRIPT           (installed package: hpcjit-as-numba.pth)

install() puts a finder first on sys.meta_path that answers every import of
`numba` and `numba.*` with an alias module.  An alias module resolves a
name, once, in this order:
  1. OVERRIDES (numba.__version__ and the like);
  2. a Numba submodule (numba.core, numba.typed...): its own alias module;
  3. the hpcjit module it stands for (MODULES: numba -> hpcjit,
     numba.core.types -> hpcjit.types; numba.X -> hpcjit.X by default), if
     that exists;
  4. UNSUPPORTED: Numba's public names hpcjit lacks.  These give a stand-in
     that imports fine and raises hpcjit.errors.UnsupportedError naming the
     feature where it is used (called, subclassed, an attribute read), so
     `from numba import vectorize` works and `@vectorize` fails there.
When hpcjit gains a feature (hpcjit.vectorize, a module hpcjit.typed), step
3 finds it with no change here; its UNSUPPORTED entry is then dead and
should be deleted.
"""
import importlib
import importlib.abc
import importlib.machinery
import os
import sys
import types as _pytypes

from . import errors

# The Numba release whose API hpcjit follows: numba.__version__ under the
# drop-in is this with hpcjit's version as a PEP 440 local label
# ("0.68.0+hpcjit.0.1.0"), so that version checks in programs (>= "0.57")
# pass and the text still says what runs.
NUMBA_API_VERSION = (0, 68, 0)

# Numba module -> the hpcjit module that stands for it (None: none yet, the
# alias holds UNSUPPORTED names only).  A numba.X not listed maps to hpcjit.X.
MODULES = {
    "numba": "hpcjit",
    "numba.core": "hpcjit.core",
    "numba.core.types": "hpcjit.types",
    "numba.types": "hpcjit.types",
    "numba.core.errors": "hpcjit.errors",
    "numba.core.typing": "hpcjit.core.typing",
    "numba.core.cgutils": "hpcjit.cgutils",
    "numba.errors": "hpcjit.errors",
    "numba.core.config": "hpcjit.config",
    "numba.config": "hpcjit.config",
    "numba.np": "hpcjit.np",
    "numba.np.numpy_support": "hpcjit.numpy_support",
    "numba.np.linalg": "hpcjit._nplinalg",  # _LAPACK().numba_xgesv only
    # `from numba.np.unsafe.ndarray import to_fixed_tuple`
    "numba.np.unsafe": "hpcjit._unsafe",
    "numba.np.unsafe.ndarray": "hpcjit._unsafe",
    # `from numba.cpython.unsafe.tuple import tuple_setitem`
    "numba.cpython.unsafe": "hpcjit._unsafe",
    "numba.cpython.unsafe.tuple": "hpcjit._unsafe",
    # `from numba.np.extensions import cross2d`
    "numba.np.extensions": "hpcjit._npextensions",
    # numba.misc.special holds prange, literal_unroll, literally, typeof...
    "numba.misc.special": "hpcjit",
    # the modules Numba's type classes live in: all in hpcjit.types
    "numba.core.types.abstract": "hpcjit.types",
    "numba.core.types.common": "hpcjit.types",
    "numba.core.types.containers": "hpcjit.types",
    "numba.core.types.functions": "hpcjit.types",
    "numba.core.types.function_type": "hpcjit.types",
    "numba.core.types.iterators": "hpcjit.types",
    "numba.core.types.misc": "hpcjit.types",
    "numba.core.types.npytypes": "hpcjit.types",
    "numba.core.types.scalars": "hpcjit.types",
    # signature() only; the template classes are stand-ins (UNSUPPORTED)
    "numba.core.typing.templates": "hpcjit.core.typing",
    # `from numba.np.ufunc.gufunc import GUFunc` (numbagg, for annotations)
    "numba.np.ufunc.gufunc": "hpcjit.ufunc",
    "numba.typed": "hpcjit.typed",
    # `from numba.typed.typedlist import List` / `typeddict import Dict`
    "numba.typed.typedlist": "hpcjit.typed",
    "numba.typed.typeddict": "hpcjit.typed",
    "numba.experimental": "hpcjit.experimental",
    "numba.experimental.structref": "hpcjit.structref",
    "numba.extending": "hpcjit.extending",
    "numba.core.extending": "hpcjit.extending",
    "numba.cuda": "hpcjit.cuda",
    "numba.cuda.cudadrv.error": "hpcjit.cuda.cudadrv.error",
    "numba.cuda.cudadrv.driver": "hpcjit.cuda.cudadrv.driver",
    "numba.cuda.cudadrv.devicearray": "hpcjit.cuda.cudadrv.devicearray",
}

# Numba's public names hpcjit does not have yet, per module ("*": every
# public name of that module).  A value is a hint added to the message.
_LATER = "not supported by hpcjit yet"
UNSUPPORTED = {
    "numba": {
        "generated_jit": "removed in Numba 0.59 too",
        "gdb": "", "gdb_breakpoint": "", "gdb_init": "",
        "ffi": "",
    },
    "numba.experimental": {"function_type": ""},
    "numba.extending": {
        "overload_classmethod": "", "lower_cast": "", "lower_getattr": "",
        "lower_getattr_generic": "", "lower_setattr": "", "infer": "", "infer_getattr": "",
        "infer_global": "",
        "include_path": "",
    },
    "numba.core.types": {
        "ClassType": "",
        "ClassInstanceType": "",
        "EnumMember": "", "Buffer": "", "ByteArray": "", "MemoryView": "",
        "UnicodeCharSeq": "",
        "SliceType": "", "RangeType": "", "ExternalFunction": "",
        "ExternalFunctionPointer": "", "RawPointer": "", "MemInfoPointer": "",
        "NumPyRandomBitGeneratorType": "", "slice2_type": "",
        "slice3_type": "", "range_iter64_type": "", "range_state64_type": "", "Poison": "",
        "Dummy": "", "Opaque": "", "Function": "", "BoundFunction": "", "TypeRef": "",
        "Callable": "", "UnionType": "", "ListTypeIterableType": "",
        "EphemeralArray": "",
    },
    "numba.np": {"ufunc": "", "arraymath": "", "npyfuncs": ""},
    # Numba's typing templates (AbstractTemplate, ConcreteTemplate,
    # infer_global, Registry...): its type system's internals
    "numba.core.typing.templates": {"*": "Numba's typing internals; use numba.extending.overload"},
    "numba.np.numpy_support": {"from_struct_dtype": ""},
}
UNSUPPORTED["numba.core.extending"] = UNSUPPORTED["numba.extending"]
UNSUPPORTED["numba.types"] = UNSUPPORTED["numba.core.types"]

# Numba modules known to exist beyond MODULES: importing one of them (and of
# the names above, numba.typed.typedlist...) gives an alias module with no
# hpcjit counterpart, whose public names are all stand-ins
KNOWN_MODULES = ("numba.experimental.jitclass", "numba.core.imputils",
                 "numba.core.target_extension", "numba.core.unsafe", "numba.core.unsafe.nrt",
                 "numba.core.registry", "numba.core.dispatcher",
                 "numba.core.decorators", "numba.np.ufunc", "numba.np.arraymath",
                 "numba.misc", "numba.stencils", "numba.parfors", "numba.pycc",
                 "numba.cpython", "numba.cuda.random", "numba.cuda.cudadrv",
                 "numba.cuda.libdevice", "numba.testing", "numba.tests")


def _overrides(modname):
    if modname == "numba":
        from . import __version__
        major, minor, patch = NUMBA_API_VERSION
        full = f"{major}.{minor}.{patch}+hpcjit.{__version__}"
        import collections
        vi = collections.namedtuple("version_info", "major minor patch short full string tuple "
                                    "git_revision")
        return {
            "__version__": full,
            "version_info": vi(major, minor, patch, (major, minor), (major, minor, patch), full,
                               (str(major), str(minor), str(patch)), None),
            "__hpcjit__": True,
            "__hpcjit_version__": __version__,
        }
    return {}


class _UnsupportedMeta(type):
    """Stand-ins for Numba features hpcjit lacks are classes of this
    metaclass: calling one, subclassing it, reading its attributes or
    indexing it raises UnsupportedError naming the feature; isinstance()
    against one is False (nothing is an instance of what does not exist)."""

    def __new__(mcs, name, bases, ns, feature=None, hint=""):
        for b in bases:
            if isinstance(b, _UnsupportedMeta):
                b._hj_fail()
        cls = super().__new__(mcs, name, bases, ns)
        cls._hj_feature = feature
        cls._hj_hint = hint
        return cls

    def __init__(cls, name, bases, ns, feature=None, hint=""):
        super().__init__(name, bases, ns)

    def _hj_fail(cls, *args, **kwargs):
        msg = f"{cls._hj_feature} is {_LATER}"
        if cls._hj_hint:
            msg += f" ({cls._hj_hint})"
        raise errors.UnsupportedError(msg)

    __call__ = _hj_fail

    def __getattr__(cls, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        cls._hj_fail()

    def __getitem__(cls, key):
        cls._hj_fail()

    def __instancecheck__(cls, obj):
        return False

    def __subclasscheck__(cls, sub):
        return False

    def __repr__(cls):
        return f"<{cls._hj_feature}: {_LATER}>"


def unsupported(feature, hint=""):
    """A stand-in for the Numba feature named `feature` (e.g. "numba.vectorize")."""
    return _UnsupportedMeta(feature.rsplit(".", 1)[-1], (), {"__module__": feature.rsplit(".", 1)[0]},
                            feature=feature, hint=hint)


def _target(modname):
    """The hpcjit module that stands for Numba's `modname`, or None."""
    target = MODULES.get(modname)
    if target is None:
        target = "hpcjit" + modname[len("numba"):]
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as exc:
        # only the module itself (or a parent) missing means "none yet"; a
        # missing dependency inside it is an error to show
        if exc.name and target.startswith(exc.name):
            return None
        raise


def _is_known(modname):
    return (modname in MODULES or modname in UNSUPPORTED or modname in KNOWN_MODULES
            or modname == "numba")


class AliasModule(_pytypes.ModuleType):
    """numba or one of its submodules, resolved against hpcjit (see the
    module docstring).  Resolved names are cached in the module."""

    def __init__(self, name, target):
        super().__init__(name, getattr(target, "__doc__", None))
        self.__path__ = []  # a package: numba.X.Y imports go through the finder
        self.__hpcjit_target__ = target
        for k, v in _overrides(name).items():
            setattr(self, k, v)
        if target is not None and getattr(target, "__file__", None):
            self.__file__ = target.__file__

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        value = _resolve(self, name)
        setattr(self, name, value)
        return value

    def __dir__(self):
        names = set(super().__dir__())
        target = self.__hpcjit_target__
        if target is not None:
            names.update(n for n in dir(target) if not n.startswith("_"))
        names.update(n for n in UNSUPPORTED.get(self.__name__, ()) if n != "*")
        return sorted(names)


_MISSING = object()


def _resolve(mod, name):
    modname = mod.__name__
    sub = f"{modname}.{name}"
    target = mod.__hpcjit_target__
    if target is not None:
        value = getattr(target, name, _MISSING)
        # hpcjit's own modules (compiler, dispatcher, mpi...) are not Numba's
        if value is not _MISSING and not isinstance(value, _pytypes.ModuleType):
            return value
    if modname == "numba" and not name.startswith("_"):
        # Numba's top level also holds every name of numba.core.errors and
        # numba.core.types (`from numba import NumbaDeprecationWarning, int_`)
        for extra in ("errors", "types"):
            value = getattr(importlib.import_module("hpcjit." + extra), name, _MISSING)
            if value is not _MISSING and not isinstance(value, _pytypes.ModuleType):
                return value
    table = UNSUPPORTED.get(modname, {})
    if not name.startswith("_"):
        # a name before a submodule of the same name, as in Numba
        # (numba.experimental.jitclass is the decorator)
        if name in table:
            return unsupported(sub, table[name])
        if _is_known(sub):
            return importlib.import_module(sub)
        if "*" in table:
            return unsupported(sub, table["*"])
        if target is None and modname in KNOWN_MODULES:
            return unsupported(sub)
    raise AttributeError(f"module {modname!r} has no attribute {name!r} "
                         f"(hpcjit's drop-in for Numba: hpcjit has no such name)")


class _Loader(importlib.abc.Loader):
    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        return AliasModule(spec.name, self.target)

    def exec_module(self, module):
        pass


class NumbaFinder(importlib.abc.MetaPathFinder):
    """Answers `import numba...` with alias modules (first on sys.meta_path)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "numba" and not fullname.startswith("numba."):
            return None
        hj = _target(fullname)
        if hj is None and not _is_known(fullname):
            # not a module Numba has (that we know of): Python's own error
            return None
        return importlib.machinery.ModuleSpec(fullname, _Loader(hj), is_package=True)


FINDER = NumbaFinder()


def install():
    """Make `import numba` give hpcjit in this process (idempotent).
    RuntimeError if the real Numba is imported already."""
    mod = sys.modules.get("numba")
    if mod is not None and not isinstance(mod, AliasModule):
        raise RuntimeError("hpcjit.numba.install(): the real numba is imported already; "
                           "install the drop-in before anything imports numba")
    if FINDER not in sys.meta_path:
        sys.meta_path.insert(0, FINDER)
    # processes started from here (multiprocessing, subprocess python) get
    # the drop-in too where hpcjit-as-numba.pth is installed
    os.environ["HPCJIT_AS_NUMBA"] = "1"


def uninstall():
    """Undo install() and forget the alias modules (for tests)."""
    if FINDER in sys.meta_path:
        sys.meta_path.remove(FINDER)
    for name in [n for n, m in sys.modules.items() if isinstance(m, AliasModule)]:
        del sys.modules[name]
    os.environ.pop("HPCJIT_AS_NUMBA", None)


USAGE = """\
usage: python -m hpcjit.numba SCRIPT [ARGS...]
       python -m hpcjit.numba -m MODULE [ARGS...]
       python -m hpcjit.numba -c CODE [ARGS...]

Run a Python program written for Numba on hpcjit, unmodified: `import numba`,
`from numba import njit, prange`, numba.core.types, numba.typed... resolve
to hpcjit.  Numba features hpcjit lacks raise hpcjit.errors.UnsupportedError
naming the feature where they are used.  The same without this command:
HPCJIT_AS_NUMBA=1 python SCRIPT (needs hpcjit installed with pip, which adds
hpcjit-as-numba.pth to site-packages); it is set for child processes.

options:
  -h, --help     show this message and exit
  --version      print the versions (hpcjit, and the Numba API it follows)
"""


def main(argv=None):
    import runpy
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, end="", file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    if argv[0] == "--version":
        from . import __version__
        print(f"hpcjit {__version__} (Numba API {'.'.join(map(str, NUMBA_API_VERSION))})")
        return 0
    install()
    if argv[0] == "-m":
        if len(argv) < 2:
            print("python -m hpcjit.numba: -m needs a module name", file=sys.stderr)
            return 2
        sys.argv = [argv[1]] + argv[2:]
        sys.path.insert(0, os.getcwd())
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    elif argv[0] == "-c":
        if len(argv) < 2:
            print("python -m hpcjit.numba: -c needs code", file=sys.stderr)
            return 2
        sys.argv = ["-c"] + argv[2:]
        sys.path.insert(0, "")
        main_mod = _pytypes.ModuleType("__main__")
        sys.modules["__main__"] = main_mod
        exec(compile(argv[1], "<string>", "exec"), main_mod.__dict__)
    else:
        if argv[0].startswith("-"):
            print(f"python -m hpcjit.numba: unknown option {argv[0]}\n" + USAGE, file=sys.stderr)
            return 2
        sys.argv = argv
        # as `python SCRIPT`: the script's folder first on the path, not the cwd
        sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
        runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    # run the one hpcjit.numba module (FINDER, AliasModule), not this __main__ copy
    from hpcjit.numba import main as _main
    sys.exit(_main())
