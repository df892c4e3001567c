"""Numba's `numba.core` paths: hpcjit.core.types is hpcjit.types,
hpcjit.core.errors hpcjit.errors and hpcjit.core.config hpcjit.config (the
same module objects), so that `from hpcjit.core import types` and
`import hpcjit.core.types` work as they do for numba.core."""
import sys
import types as _pytypes

from . import config, errors, types

__path__ = []  # a package: its submodules are the aliases below

# numba.core.typing: signature(return_type, *args), as @intrinsic typing
# functions build theirs
typing = _pytypes.ModuleType(f"{__name__}.typing")
typing.__doc__ = "numba.core.typing's signature()."


def _signature(return_type, *args):
    """signature(types.int64, types.int64, types.float64): the same as
    types.int64(types.int64, types.float64)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    return types.Signature(return_type, args)


typing.signature = _signature
typing.Signature = types.Signature

# numba.core.runtime.rtsys.get_allocation_stats(), which Numba's examples
# print to show that nothing leaked: hpcjit counts MemInfos only
runtime = _pytypes.ModuleType(f"{__name__}.runtime")
runtime.__doc__ = "numba.core.runtime's rtsys.get_allocation_stats()."


class _RtSys:
    def get_allocation_stats(self):
        """(alloc, free, mi_alloc, mi_free) so far, as Numba's _nrt_mstats."""
        import collections
        from . import _core
        alloc, free = _core.memstats()
        stats = collections.namedtuple("_nrt_mstats", "alloc free mi_alloc mi_free")
        return stats(alloc, free, alloc, free)


runtime.rtsys = _RtSys()
for _name, _mod in (("types", types), ("errors", errors), ("config", config), ("typing", typing),
                    ("runtime", runtime)):
    sys.modules.setdefault(f"{__name__}.{_name}", _mod)
del _name, _mod
