"""hpcjit.typed.List, hpcjit.typed.Dict and hpcjit.typed.Set: Numba's typed
containers.

Each object holds a native list or dict of compiled code (runtime/list.c,
runtime/dict.c; the C side is python/core/typed.c).  Compiled code gets that
very container as an argument (typecodes '#'/'&', no conversion, no copy
back: both sides see each change at once), and typed containers compiled
code makes (`List()`, `Dict.empty(types.int64, types.float64)`) come back
as these classes.  Items are numbers, tuples of numbers, arrays (sharing the
ndarray's data), and typed containers; dict keys made from Python are
numbers (compiled code makes tuple keys too).  An empty `List()` / `Dict()`
takes its types from the first item stored, as in Numba."""
from collections.abc import MutableMapping, MutableSequence, MutableSet

from . import _core
from . import types as _types

__all__ = ["List", "Dict", "Set"]


def _code_of(value, what):
    tc = _core._typecode(value)
    if tc is None:
        raise TypeError(f"hpcjit: cannot store {type(value).__name__} values in a typed.{what} "
                        f"(no hpcjit type)")
    return tc


def _type_code(t, what):
    tc = getattr(t, "typecode", None)
    if not isinstance(t, _types.Type) or tc is None:
        raise TypeError(f"hpcjit: {what} must be an hpcjit/Numba type that hpcjit compiles, got {t!r}")
    return tc


class List(_core._TypedList, MutableSequence):
    """numba.typed.List: a list of one item type shared with compiled code."""
    __slots__ = ()

    def __init__(self, iterable=None, allocated=0):
        if iterable is not None:
            self.extend(iterable)

    @classmethod
    def empty_list(cls, item_type, allocated=0):
        lst = cls()
        lst._set_item_type(_type_code(item_type, "item_type"))
        return lst

    @property
    def _numba_type_(self):
        tc = self._item_typecode
        return _types.from_typecode("#" + tc) if tc else None

    @property
    def item_type(self):
        tc = self._item_typecode
        return _types.from_typecode(tc) if tc else None

    def _typed(self, value):
        if self._item_typecode is None:
            self._set_item_type(_code_of(value, "List"))

    # ---- the sequence protocol ----
    def __len__(self):
        return _core._TypedList.__len__(self)

    def __getitem__(self, i):
        if isinstance(i, slice):
            out = type(self)()
            if self._item_typecode is not None:
                out._set_item_type(self._item_typecode)
            for k in range(*i.indices(len(self))):
                out._append(self._getitem(k))
            return out
        return self._getitem(_index(i))

    def __setitem__(self, i, value):
        if isinstance(i, slice):
            idx = range(*i.indices(len(self)))
            values = list(value)
            if i.step not in (None, 1):
                if len(values) != len(idx):
                    raise ValueError(f"attempt to assign sequence of size {len(values)} to extended "
                                     f"slice of size {len(idx)}")
                for k, v in zip(idx, values):
                    self._setitem(k, v)
                return
            start = idx.start
            stop = max(idx.stop, start)
            for _ in range(stop - start):
                self._delitem(start)
            for k, v in enumerate(values):
                self.insert(start + k, v)
            return
        self._setitem(_index(i), value)

    def __delitem__(self, i):
        if isinstance(i, slice):
            idx = sorted(range(*i.indices(len(self))), reverse=True)
            for k in idx:
                self._delitem(k)
            return
        self._delitem(_index(i))

    def __iter__(self):
        for k in range(len(self)):
            if k >= len(self):
                return
            yield self._getitem(k)

    def append(self, value):
        self._typed(value)
        self._append(value)

    def insert(self, i, value):
        self._typed(value)
        self._insert(_index(i), value)

    def extend(self, iterable):
        if isinstance(iterable, (list, tuple)):  # in C, one loop (_extend)
            if iterable:
                self._typed(iterable[0])
                self._extend(iterable)
            return
        if iterable is self:
            iterable = list(self)
        for v in iterable:  # a generator keeps what it gave before it raised
            self.append(v)

    def pop(self, i=-1):
        return self._pop(_index(i))

    def clear(self):
        self._clear()

    def reverse(self):
        self._reverse()

    def copy(self):
        return self[:]

    def sort(self, key=None, reverse=False):
        items = sorted(self, key=key, reverse=reverse)
        for k, v in enumerate(items):
            self._setitem(k, v)

    def __eq__(self, other):
        if not isinstance(other, List):
            return NotImplemented
        return len(self) == len(other) and all(_same(a, b) for a, b in zip(self, other))

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None

    def __iadd__(self, other):
        self.extend(other)
        return self

    def __str__(self):
        # Numba's: str() of each item ([x, y] for str items, arrays as NumPy prints them)
        return "[" + ", ".join(str(v) for v in self) + "]"

    def __repr__(self):
        tc = self._item_typecode
        name = str(_types.from_typecode(tc)) if tc else "<undefined>"
        return f"ListType[{name}]({self})"


class Dict(_core._TypedDict, MutableMapping):
    """numba.typed.Dict: a dict of one key and one value type shared with
    compiled code."""
    __slots__ = ()

    def __init__(self, dct=None, **kwargs):
        if dct is not None:
            self.update(dct)
        if kwargs:
            self.update(kwargs)

    @classmethod
    def empty(cls, key_type, value_type, n_keys=0):
        d = cls()
        d._set_types(_type_code(key_type, "key_type"), _type_code(value_type, "value_type"))
        return d

    @property
    def _numba_type_(self):
        tcs = self._typecodes
        return _types.from_typecode("&" + tcs[0] + tcs[1]) if tcs else None

    @property
    def key_type(self):
        tcs = self._typecodes
        return _types.from_typecode(tcs[0]) if tcs else None

    @property
    def value_type(self):
        tcs = self._typecodes
        return _types.from_typecode(tcs[1]) if tcs else None

    def __len__(self):
        return _core._TypedDict.__len__(self)

    def __getitem__(self, key):
        return self._getitem(key)

    def __setitem__(self, key, value):
        if self._typecodes is None:
            self._set_types(_code_of(key, "Dict"), _code_of(value, "Dict"))
        self._setitem(key, value)

    def __delitem__(self, key):
        self._delitem(key)

    def __contains__(self, key):
        return self._contains(key)

    def __iter__(self):
        n = len(self)
        for k in self._entries(0):
            if len(self) != n:
                raise RuntimeError("dictionary changed size during iteration")
            yield k

    def get(self, key, default=None):
        return self._getitem(key) if self._contains(key) else default

    def popitem(self):
        return self._popitem()

    def clear(self):
        self._clear()

    def copy(self):
        d = type(self)()
        tcs = self._typecodes
        if tcs:
            d._set_types(*tcs)
        for k, v in self._entries(2):
            d[k] = v
        return d

    def __eq__(self, other):
        # another typed.Dict or any mapping (a dict), as Numba's Mapping equality
        if not isinstance(other, (Dict, dict)) and not hasattr(other, "items"):
            return NotImplemented
        if len(self) != len(other):
            return False
        for k, v in self._entries(2):
            if k not in other or not _same(other[k], v):
                return False
        return True

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None

    def __str__(self):
        # Numba's: str() of keys and values ({a: [0. 1.]})
        return "{" + ", ".join(f"{k}: {v}" for k, v in self._entries(2)) + "}"

    def __repr__(self):
        tcs = self._typecodes
        if tcs:
            name = f"DictType[{_types.from_typecode(tcs[0])},{_types.from_typecode(tcs[1])}]"
        else:
            name = "DictType[<undefined>,<undefined>]"
        return f"{name}<iv=None>({self})"


class Set(_core._TypedSet, MutableSet):
    """numba.typed.Set: a set of one item type shared with compiled code
    (Set.empty(item_type), or Set() typed by the first item added)."""
    __slots__ = ()

    def __init__(self, iterable=None):
        if iterable is not None:
            self.update(iterable)

    @classmethod
    def empty(cls, key_type, n_keys=0):
        s = cls()
        s._set_item_type(_type_code(key_type, "key_type"))
        return s

    @classmethod
    def _from_iterable(cls, it):  # what MutableSet's operators (a | b, ...) build
        return cls(it)

    @property
    def _numba_type_(self):
        tc = self._item_typecode
        return _types.from_typecode("%" + tc) if tc else None

    @property
    def key_type(self):
        tc = self._item_typecode
        return _types.from_typecode(tc) if tc else None

    def __len__(self):
        return _core._TypedSet.__len__(self)

    def __contains__(self, item):
        return self._contains(item)

    def __iter__(self):
        n = len(self)
        for item in self._items():
            if len(self) != n:
                raise RuntimeError("Set changed size during iteration")
            yield item

    def add(self, item):
        if self._item_typecode is None:
            self._set_item_type(_code_of(item, "Set"))
        self._add(item)

    def discard(self, item):
        self._discard(item)

    def remove(self, item):
        if not self._discard(item):
            raise KeyError(item)

    def pop(self):
        return self._pop()

    def clear(self):
        self._clear()

    def update(self, *iterables):
        for it in iterables:
            for item in it:
                self.add(item)

    def copy(self):
        s = type(self)()
        tc = self._item_typecode
        if tc:
            s._set_item_type(tc)
        s.update(self._items())
        return s

    def __str__(self):
        return "{" + ", ".join(str(x) for x in self._items()) + "}"

    def __repr__(self):
        return f"{self._numba_type_ or 'SetType[?]'}({self})"


def _index(i):
    try:
        return i.__index__()
    except AttributeError:
        raise TypeError(f"list indices must be integers or slices, not {type(i).__name__}") from None


def _same(a, b):
    r = a == b
    if isinstance(r, bool):
        return r
    try:  # arrays: all elements equal
        import numpy as np
        return bool(np.all(r))
    except Exception:
        return False


_core._register_typed(List, Dict, Set)
