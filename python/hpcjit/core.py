"""Numba's `numba.core` paths: hpcjit.core.types is hpcjit.types,
hpcjit.core.errors hpcjit.errors and hpcjit.core.config hpcjit.config (the
same module objects), so that `from hpcjit.core import types` and
`import hpcjit.core.types` work as they do for numba.core."""
import sys

from . import config, errors, types

__path__ = []  # a package: its submodules are the aliases below
for _name, _mod in (("types", types), ("errors", errors), ("config", config)):
    sys.modules.setdefault(f"{__name__}.{_name}", _mod)
del _name, _mod
