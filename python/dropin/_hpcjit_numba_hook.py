"""HPCJIT_AS_NUMBA=1: `import numba` gives hpcjit (see hpcjit/numba.py).

Run at every interpreter start by hpcjit-as-numba.pth (installed in
site-packages beside hpcjit), so it must stay cheap: it imports nothing but
os and sys, and puts a finder on sys.meta_path only when the variable is
set; hpcjit itself is imported when the program first imports numba."""
import os
import sys


def enabled():
    v = os.environ.get("HPCJIT_AS_NUMBA", "").strip().lower()
    return v not in ("", "0", "false", "no", "off")


class _Finder:
    """Stands in for hpcjit.numba.FINDER until `numba` is first imported."""

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        if fullname != "numba" and not fullname.startswith("numba."):
            return None
        if cls in sys.meta_path:
            sys.meta_path.remove(cls)
        import hpcjit.numba
        hpcjit.numba.install()
        return hpcjit.numba.FINDER.find_spec(fullname, path, target)


def install():
    if enabled() and _Finder not in sys.meta_path and "numba" not in sys.modules:
        sys.meta_path.insert(0, _Finder)
