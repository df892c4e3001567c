"""Python builtins and standard-library functions that compiled code calls,
written in Python and compiled by hpcjit like any @njit function (Numba
implements these the same way).  compiler._classify maps the real objects
(builtins.any, heapq.heappush...) to the dispatchers here.

Each works on whatever a `for` loop iterates in compiled code (lists,
1-D arrays, tuples of one type, ranges, sets, dict keys, strings);
heapq's functions work on lists, as in Numba (a list of one item type);
the operator module's functions are the operators they name."""
import math

from . import njit

__all__ = ["PYLIB"]


@njit
def any_(iterable):
    for v in iterable:
        if v:
            return True
    return False


@njit
def all_(iterable):
    for v in iterable:
        if not v:
            return False
    return True


# ---- heapq: a binary min-heap in a list (heap[k] <= heap[2k+1], heap[2k+2]) ----

@njit
def _sift_up(heap, pos):
    """Move heap[pos] toward the root while it is smaller than its parent."""
    item = heap[pos]
    while pos > 0:
        parent = (pos - 1) >> 1
        if item < heap[parent]:
            heap[pos] = heap[parent]
            pos = parent
        else:
            break
    heap[pos] = item


@njit
def _sift_down(heap, pos):
    """Move heap[pos] toward the leaves while a child is smaller."""
    n = len(heap)
    item = heap[pos]
    while True:
        child = 2 * pos + 1
        if child >= n:
            break
        if child + 1 < n and heap[child + 1] < heap[child]:
            child += 1
        if heap[child] < item:
            heap[pos] = heap[child]
            pos = child
        else:
            break
    heap[pos] = item


@njit
def heappush(heap, item):
    heap.append(item)
    _sift_up(heap, len(heap) - 1)


@njit
def heappop(heap):
    last = heap.pop()  # IndexError on an empty heap, as Python
    if len(heap) == 0:
        return last
    top = heap[0]
    heap[0] = last
    _sift_down(heap, 0)
    return top


@njit
def heapify(heap):
    for pos in range(len(heap) // 2 - 1, -1, -1):
        _sift_down(heap, pos)


@njit
def heapreplace(heap, item):
    if len(heap) == 0:
        raise IndexError("index out of range")
    top = heap[0]
    heap[0] = item
    _sift_down(heap, 0)
    return top


@njit
def heappushpop(heap, item):
    if len(heap) > 0 and heap[0] < item:
        top = heap[0]
        heap[0] = item
        _sift_down(heap, 0)
        return top
    return item


@njit
def nsmallest(n, iterable):
    out = sorted(iterable)
    return out[:max(n, 0)]


@njit
def nlargest(n, iterable):
    out = sorted(iterable)
    out.reverse()
    return out[:max(n, 0)]


# ---- repr(): CPython's, for numbers, bool, None (their str) and str ----

@njit
def _hex(o, width):
    digits = "0123456789abcdef"
    out = ""
    for k in range(width - 1, -1, -1):
        out += digits[(o >> (4 * k)) & 15]
    return out


@njit
def _repr_str(s):
    """unicode_repr (Objects/unicodeobject.c): single quotes unless the text
    has one and no double quote; escapes for the quote, the backslash, tab,
    newline, carriage return, other control characters and the characters
    str.isprintable refuses."""
    q = "'"
    if "'" in s and '"' not in s:
        q = '"'
    out = q
    for c in s:
        o = ord(c)
        if c == q or c == "\\":
            out += "\\" + c
        elif c == "\t":
            out += "\\t"
        elif c == "\n":
            out += "\\n"
        elif c == "\r":
            out += "\\r"
        elif o < 0x20 or o == 0x7f:
            out += "\\x" + _hex(o, 2)
        elif o < 0x7f or c.isprintable():
            out += c
        elif o <= 0xff:
            out += "\\x" + _hex(o, 2)
        elif o <= 0xffff:
            out += "\\u" + _hex(o, 4)
        else:
            out += "\\U" + _hex(o, 8)
    return out + q


def _enum_repr(obj):
    """hpcjit.$enum_repr in compiled code (compiler.py _known_objects): str(obj),
    but CPython's repr of an IntEnum/IntFlag member (<Color.RED: 1>)."""
    return repr(obj)


@njit
def repr_(obj):
    if isinstance(obj, str):
        return _repr_str(obj)
    return _enum_repr(obj)


# ---- operator: the functions Numba 0.68 lists, each the operator it names
# (the in-place ones return their first argument, updated as `a += b` does) ----

_BINARY = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "lshift", "rshift",
           "and_", "or_", "xor", "eq", "ne", "lt", "le", "gt", "ge")
_INPLACE = ("iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow", "imatmul", "ilshift",
            "irshift", "iand", "ior", "ixor")
_UNARY = ("neg", "pos", "invert", "not_")


@njit
def op_add(a, b):
    return a + b


@njit
def op_sub(a, b):
    return a - b


@njit
def op_mul(a, b):
    return a * b


@njit
def op_truediv(a, b):
    return a / b


@njit
def op_floordiv(a, b):
    return a // b


@njit
def op_mod(a, b):
    return a % b


@njit
def op_pow(a, b):
    return a ** b


@njit
def op_matmul(a, b):
    return a @ b


@njit
def op_lshift(a, b):
    return a << b


@njit
def op_rshift(a, b):
    return a >> b


@njit
def op_and_(a, b):
    return a & b


@njit
def op_or_(a, b):
    return a | b


@njit
def op_xor(a, b):
    return a ^ b


@njit
def op_eq(a, b):
    return a == b


@njit
def op_ne(a, b):
    return a != b


@njit
def op_lt(a, b):
    return a < b


@njit
def op_le(a, b):
    return a <= b


@njit
def op_gt(a, b):
    return a > b


@njit
def op_ge(a, b):
    return a >= b


@njit
def op_iadd(a, b):
    a += b
    return a


@njit
def op_isub(a, b):
    a -= b
    return a


@njit
def op_imul(a, b):
    a *= b
    return a


@njit
def op_itruediv(a, b):
    a /= b
    return a


@njit
def op_ifloordiv(a, b):
    a //= b
    return a


@njit
def op_imod(a, b):
    a %= b
    return a


@njit
def op_ipow(a, b):
    a **= b
    return a


@njit
def op_imatmul(a, b):
    a @= b
    return a


@njit
def op_ilshift(a, b):
    a <<= b
    return a


@njit
def op_irshift(a, b):
    a >>= b
    return a


@njit
def op_iand(a, b):
    a &= b
    return a


@njit
def op_ior(a, b):
    a |= b
    return a


@njit
def op_ixor(a, b):
    a ^= b
    return a


@njit
def op_neg(a):
    return -a


@njit
def op_pos(a):
    return +a


@njit
def op_invert(a):
    return ~a


@njit
def op_not_(a):
    return not a


# ---- iterators: iter(x) and zip()/enumerate()/map()/filter() objects used
# as values are generator objects over what a for loop iterates (the
# compiler calls these for its builtins, compiler/infer/infer_call.c
# pylib_call; Numba has an iterator type per iterable instead) ----

@njit
def iter_(iterable):
    for v in iterable:
        yield v


@njit
def reversed_(seq):
    for v in reversed(seq):
        yield v


@njit
def enumerate_(iterable, start=0):
    for v in enumerate(iterable, start):
        yield v


@njit
def zip1_(a):
    for v in zip(a):
        yield v


@njit
def zip2_(a, b):
    for v in zip(a, b):
        yield v


@njit
def zip3_(a, b, c):
    for v in zip(a, b, c):
        yield v


@njit
def zip4_(a, b, c, d):
    for v in zip(a, b, c, d):
        yield v


@njit
def map1_(f, a):
    for v in map(f, a):
        yield v


@njit
def map2_(f, a, b):
    for v in map(f, a, b):
        yield v


@njit
def map3_(f, a, b, c):
    for v in map(f, a, b, c):
        yield v


@njit
def map4_(f, a, b, c, d):
    for v in map(f, a, b, c, d):
        yield v


@njit
def filter_(f, a):
    for v in filter(f, a):
        yield v


@njit
def filter_none_(f, a):  # filter(None, a): the truthy items (f is None)
    for v in a:
        if v:
            yield v


# ---- builtins as sort/min/max keys (sorted(words, key=len)): a jitted
# function of one item each, "<pylib>key_NAME" in the environment of a
# function that sorts or takes min/max (compiler.py _env, infer_list.c) ----

@njit
def key_abs(x):
    return abs(x)


@njit
def key_len(x):
    return len(x)


@njit
def key_int(x):
    return int(x)


@njit
def key_float(x):
    return float(x)


@njit
def key_str(x):
    return str(x)


@njit
def key_sum(x):
    return sum(x)


@njit
def key_min(x):
    return min(x)


@njit
def key_max(x):
    return max(x)


KEY_NAMES = ("abs", "len", "int", "float", "str", "sum", "min", "max")


def helpers(obj):
    """The (env name, dispatcher) pairs the compiler may call for the
    builtin `obj` (named "<pylib>NAME" in a function's environment)."""
    import builtins
    if obj is builtins.iter:
        return [("<pylib>iter", iter_)]
    if obj is builtins.enumerate:
        return [("<pylib>enumerate", enumerate_)]
    if obj is builtins.reversed:
        return [("<pylib>reversed", reversed_)]
    if obj is builtins.zip:
        return [("<pylib>zip1", zip1_), ("<pylib>zip2", zip2_), ("<pylib>zip3", zip3_), ("<pylib>zip4", zip4_)]
    if obj is builtins.map:
        return [("<pylib>map1", map1_), ("<pylib>map2", map2_), ("<pylib>map3", map3_), ("<pylib>map4", map4_)]
    if obj is builtins.filter:
        return [("<pylib>filter", filter_), ("<pylib>filter_none", filter_none_)]
    return []


# ---- math's integer functions (Python ints; int64 here: OverflowError
# where the result does not fit, rather than a wrapped value) ----

_I64_MAX = 9223372036854775807


@njit
def isqrt(n):
    if n < 0:
        raise ValueError("isqrt() argument must be nonnegative")
    r = int(math.sqrt(float(n)))
    while r * r > n:
        r -= 1
    while (r + 1) * (r + 1) <= n:
        r += 1
    return r


@njit
def factorial(n):
    if n < 0:
        raise ValueError("factorial() not defined for negative values")
    if n > 20:
        raise OverflowError("factorial() result does not fit in int64 in hpcjit")
    r = 1
    for k in range(2, n + 1):
        r *= k
    return r


@njit
def _mul_checked(a, b):
    if b != 0 and a > _I64_MAX // b:
        raise OverflowError("math.comb()/math.perm() result does not fit in int64 in hpcjit")
    return a * b


@njit
def comb(n, k):
    if n < 0 or k < 0:
        raise ValueError("n and k must be non-negative integers")
    if k > n:
        return 0
    k = min(k, n - k)
    r = 1
    for i in range(k):  # r = C(n, i + 1), exact at every step
        g = math.gcd(r, i + 1)
        r = _mul_checked(r // g, (n - i) // ((i + 1) // g))
    return r


@njit
def perm(n, k=-1):
    if k == -1:
        k = n
    if n < 0 or k < 0:
        raise ValueError("n and k must be non-negative integers")
    if k > n:
        return 0
    r = 1
    for i in range(k):
        r = _mul_checked(r, n - i)
    return r


@njit
def lcm(a, b):
    if a == 0 or b == 0:
        return 0
    return abs(a // math.gcd(a, b) * b)


@njit
def prod(iterable, start=1):
    r = start
    for v in iterable:
        r = r * v
    return r


@njit
def isclose(a, b, rel_tol=1e-09, abs_tol=0.0):
    if rel_tol < 0.0 or abs_tol < 0.0:
        raise ValueError("tolerances must be non-negative")
    if a == b:
        return True
    if math.isinf(a) or math.isinf(b):
        return False
    d = abs(b - a)
    return d <= abs(rel_tol * b) or d <= abs(rel_tol * a) or d <= abs_tol


@njit
def dist(p, q):
    if len(p) != len(q):
        raise ValueError("both points must have the same number of dimensions")
    s = 0.0
    for i in range(len(p)):
        s += (p[i] - q[i]) ** 2
    return math.sqrt(s)


_MATH = ("isqrt", "factorial", "comb", "perm", "lcm", "prod", "isclose", "dist")


def math_names():
    """The math module's names that _table maps (compiler.py: `math.comb`)."""
    return set(_MATH)


def _table():
    import builtins
    import heapq
    pairs = [(builtins.any, any_), (builtins.all, all_), (builtins.repr, repr_)]
    for name in _MATH:
        pairs.append((getattr(math, name), globals()[name]))
    for name in ("heappush", "heappop", "heapify", "heapreplace", "heappushpop", "nsmallest", "nlargest"):
        pairs.append((getattr(heapq, name), globals()[name]))
        cpy = getattr(heapq, "_" + name, None)  # the pure-Python twins heapq keeps
        if cpy is not None:
            pairs.append((cpy, globals()[name]))
    import operator
    for name in _BINARY + _INPLACE + _UNARY:
        pairs.append((getattr(operator, name), globals()["op_" + name]))
    return {id(obj): (obj, disp) for obj, disp in pairs}


def operator_names():
    """The operator module's names that _table maps (compiler.py: `operator.add`)."""
    return set(_BINARY) | set(_INPLACE) | set(_UNARY)


PYLIB = _table()
