"""Methods of Python builtin types that compiled code calls, written as
overloads (hpcjit.extending) as Numba does: tuple.index(x)."""
from . import literal_unroll
from . import types as _types
from .extending import overload_method


@overload_method(_types.BaseTuple, "index")
def _ol_tuple_index(tup, x):
    if isinstance(tup, _types.UniTuple):
        def impl(tup, x):
            for i in range(len(tup)):
                if tup[i] == x:
                    return i
            raise ValueError("tuple.index(x): x not in tuple")
        return impl

    def impl(tup, x):  # noqa: F811 - one of the two is returned
        i = 0
        for v in literal_unroll(tup):
            if v == x:
                return i
            i += 1
        raise ValueError("tuple.index(x): x not in tuple")
    return impl
