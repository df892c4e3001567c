"""Numba's `numba.extending` API, as far as hpcjit implements it.

- register_jitable(fn) / register_jitable(**options): makes `fn` callable
  from compiled code.  In hpcjit every compiled function can call another
  compiled function found in its globals or closure, so this is `njit` with
  the same options (called from Python it runs compiled, with the same
  results as the Python function, where Numba would run it in the
  interpreter).

The other names of numba.extending (overload, intrinsic, ...) are not
implemented yet: under the drop-in (`python -m hpcjit.numba`) they import
and fail where they are used with an UnsupportedError naming them.
"""


def register_jitable(*args, **options):
    """@register_jitable or @register_jitable(**options): a function that
    compiled code can call (hpcjit: njit with these options)."""
    from . import njit

    if args and callable(args[0]) and len(args) == 1 and not options:
        return njit(args[0])
    if args:
        raise TypeError("register_jitable() takes a function or keyword options only")
    return lambda fn: njit(fn, **options)


__all__ = ["register_jitable"]
