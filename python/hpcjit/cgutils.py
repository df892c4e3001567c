"""numba.core.cgutils, the part extension code (@lower_builtin, @box,
@unbox: hpcjit.lowlevel) uses on llvmlite builders.  Other helpers of
Numba's reach its data model and are not provided."""
from .lowlevel import (alloca_once, alloca_once_value, create_struct_proxy, early_exit_if,  # noqa: F401
                       early_exit_if_null, get_null_value, if_likely, if_unlikely, is_not_null, is_null)
from .lowlevel import _const_bit


def get_or_insert_function(module, fnty, name):
    """The function `name` of `module`, declared with type `fnty` if it is
    not there yet (an LLVM intrinsic such as "llvm.ctpop.i8", say)."""
    fn = module.globals.get(name, None)
    if fn is None:
        from llvmlite import ir
        fn = ir.Function(module, fnty, name)
    return fn


def __getattr__(attr):
    if attr == "true_bit":
        return _const_bit(1)
    if attr == "false_bit":
        return _const_bit(0)
    raise AttributeError(f"hpcjit's cgutils has no {attr!r} (numba.core.cgutils's other helpers reach "
                         f"Numba's data model)")
