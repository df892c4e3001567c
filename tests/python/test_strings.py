"""str values in compiled code (lib/str): arguments, literals, returns,
operators, indexing, iteration, conversions, f-strings, the methods, and
strings inside lists, dicts and sets, compared with CPython through
check() on ASCII, Latin-1, BMP and astral text, with memstats balance."""
import pytest

import hpcjit
from hpcjit import njit
from conftest import AGAINST_NUMBA, check

memstats = None if AGAINST_NUMBA else hpcjit._core.memstats

NS = pytest.mark.numba_skip

TEXTS = ["", "a", "hello world", "  Hello, World!  ", "abcabcab", "café crème", "Straße ß",
         "ǅungla ǈ", "Ωμέγα σοφός", "日本語のテキスト", "emoji 😀 x 😀", "a\tb\nc\r\nd\x0be",
         "123", "٣٤٥", "½", "MiXeD CaSe", "ΣΑΣ", "x" * 40]


@pytest.fixture(autouse=True)
def balanced():
    """Every allocation made by the test is freed."""
    if memstats is None:
        yield
        return
    before = memstats()
    yield
    after = memstats()
    assert after[0] - before[0] == after[1] - before[1], (before, after)


def as_plain(x):
    """A returned dict (Numba returns a typed.Dict) as a plain dict."""
    return {k: as_plain(v) for k, v in dict(x).items()} if hasattr(x, "items") else x


def check_ret(f, *args):
    got, exp = f(*args), f.py_func(*args)
    assert as_plain(got) == as_plain(exp), (got, exp)
    assert type(as_plain(got)) is type(exp)


# ---- values, operators, indexing ----

@njit
def identity(s):
    return s


@njit
def literal():
    s = "héllo 😀"
    t = 'plain'
    return s, t, s + t


@njit
def concat(a, b):
    return a + b, b + a + "!", a * 3, 2 * b, a * -1, len(a + b)


@njit
def compare(a, b):
    return a == b, a != b, a < b, a <= b, a > b, a >= b, a in b, b in a, a not in b


@njit
def index_all(s):
    out = ""
    for i in range(-len(s), len(s)):
        out += s[i]
    return out


@njit
def slices(s):
    return s[1:], s[:-2], s[::2], s[::-1], s[1:7:3], s[-3::-2], s[5:1], s[100:], s[:]


@njit
def slice_args(s, a, b, c):
    return s[a:b:c]


@njit
def iterate(s):
    n = 0
    r = ""
    for c in s:
        n += 1
        r = c + r
    return n, r


@njit
def augmented(s, n):
    t = s
    t += "|"
    t *= n
    return t


@njit
def truth(s):
    if s:
        return 1
    return 0


@njit
def bad_index(s, i):
    return s[i]


@njit
def choose(flag):
    s = "yes" if flag else "no"
    return s


VALUE_CASES = [(identity, ()), (concat, ("xé",)), (index_all, ()), (slices, ()), (iterate, ()), (truth, ())]


@pytest.mark.parametrize("f,extra", VALUE_CASES, ids=lambda x: getattr(x, "__name__", ""))
@pytest.mark.parametrize("s", TEXTS)
def test_values(s, f, extra):
    check(f, s, *extra)


@NS("Numba has no str *=")
@pytest.mark.parametrize("s", TEXTS)
def test_augmented(s):
    check(augmented, s, 3)


def test_literals_and_branches():
    check(literal)
    check(choose, True)
    check(choose, False)


@pytest.mark.parametrize("a,b", [("abc", "abd"), ("abc", "abc"), ("", "a"), ("b", "abc"), ("é", "e"),
                                 ("日本", "日"), ("😀", "\uffff"), ("bc", "abcd")])
def test_compare(a, b):
    check(compare, a, b)
    check(compare, b, a)


def test_slice_steps():
    s = "abcdefghijé日😀"
    for a in (-20, -3, 0, 2, 5, 20):
        for b in (-20, -2, 0, 4, 20):
            for c in (-3, -1, 1, 2):
                check(slice_args, s, a, b, c)
    check(slice_args, s, 0, 5, 0)  # ValueError


def test_index_errors():
    check(bad_index, "abc", 3)
    check(bad_index, "abc", -4)
    check(bad_index, "", 0)


# ---- conversions and f-strings ----

@njit
def from_int(n):
    return str(n), str(-n), str(n * 1000003)


@njit
def from_float(x):
    return str(x)


@njit
def to_int(s):
    return int(s)


@njit
def to_int_base(s, b):
    return int(s, b)


@njit
def to_float(s):
    return float(s)


@njit
def ord_chr(s):
    out = ""
    for c in s:
        out += chr(ord(c) + 1)
    return out


@njit
def fstring(name, n, x):
    return f"{name}: {n} items, mean {x:.3f} [{name!r}] {n:>5d}|{name:*^9}|"


@njit
def fstring_plain(name, n):
    return f"{name}={n}"


@pytest.mark.parametrize("n", [0, 7, -12, 2 ** 40])
def test_str_of_int(n):
    check(from_int, n)


@NS("Numba has no str() of a float")
@pytest.mark.parametrize("x", [0.0, -0.0, 1.5, 0.1, 1e16, 1e-7, 123456789.125, float("inf"), float("nan"), 3.0])
def test_str_of_float(x):
    check(from_float, x)


@NS("Numba has no int(str)/float(str)")
def test_parse_numbers():
    for s in ["0", "42", " -17 ", "+5", "1_000", "٣٤", "12a", "", "9223372036854775807"]:
        check(to_int, s)
    with pytest.raises(OverflowError):  # an int64, where Python's int would grow
        to_int("99999999999999999999")
    check(to_int_base, "ff", 16)
    check(to_int_base, "0x1F", 0)
    check(to_int_base, "101", 2)
    check(to_int_base, "z", 37)
    for s in ["1.5", " -2e3 ", "inf", "-nan", "1_0.5", "abc", ".5", "1e400"]:
        check(to_float, s)


def test_ord_chr():
    check(ord_chr, "abc é日😀")


@NS("Numba's f-strings take no format specs")
def test_fstring():
    check(fstring, "wörd", 42, 3.14159)
    check(fstring, "", -3, -0.5)


def test_fstring_plain():
    check(fstring_plain, "a", 3)
    check(fstring_plain, "日本", -7)


# ---- methods ----

@njit
def split_default(s):
    return s.split(), s.rsplit()


@njit
def split_sep(s, sep):
    return s.split(sep), s.split(sep, 1), s.rsplit(sep), s.rsplit(sep, 1)


@njit
def split_max(s):
    return s.split(None, 1), s.rsplit(None, 1), s.split(maxsplit=2)


@njit
def join(sep, s):
    return sep.join(s.split())


@njit
def join_list(sep, parts):
    return sep.join(parts)


@njit
def strips(s):
    return s.strip(), s.lstrip(), s.rstrip(), s.strip("a "), s.lstrip("abc"), s.rstrip("! ")


@njit
def affixes(s, p):
    return s.startswith(p), s.endswith(p), s.startswith(p, 1), s.endswith(p, 0, 5)


@njit
def searches(s, sub):
    return (s.find(sub), s.rfind(sub), s.find(sub, 2), s.rfind(sub, 0, 6), s.count(sub), s.count(sub, 1, 8),
            sub in s)


@njit
def index_of(s, sub):
    return s.index(sub), s.rindex(sub)


@njit
def replaces(s, a, b):
    return s.replace(a, b), s.replace(a, b, 1), s.replace(a, b, 0)


@njit
def cases(s):
    return s.upper(), s.lower(), s.capitalize(), s.title(), s.swapcase()


@njit
def casefold(s):
    return s.casefold()


@njit
def predicates(s):
    return s.isspace(), s.isupper(), s.islower(), s.isnumeric(), s.istitle()


@njit
def digit_predicates(s):
    return s.isdigit(), s.isalpha(), s.isalnum(), s.isdecimal()


@njit
def more_predicates(s):
    return s.isidentifier(), s.isascii(), s.isprintable()


@njit
def padding(s, w):
    return s.zfill(w), s.center(w), s.ljust(w), s.rjust(w), s.center(w, "*"), s.ljust(w, "é"), s.rjust(w, "日")


@njit
def lines(s):
    return s.splitlines(), s.splitlines(True)


@njit
def partitions(s, sep):
    return s.partition(sep), s.rpartition(sep)


@njit
def tabs(s):
    return s.expandtabs(), s.expandtabs(4)


METHOD_CASES = [
    (split_default, ()), (split_sep, ("ab",)), (join, ("-",)), (join, ("",)),
    (join, (" · ",)), (strips, ()), (affixes, ("a",)), (affixes, ("",)), (searches, ("a",)), (searches, ("",)),
    (searches, ("ß",)), (replaces, ("a", "xyz")), (replaces, ("b", "")), (cases, ()), (predicates, ()),
    (padding, (12,)), (padding, (0,)), (lines, ()), (partitions, (" ",)),
]


@pytest.mark.parametrize("f,extra", METHOD_CASES, ids=lambda x: getattr(x, "__name__", repr(x)))
@pytest.mark.parametrize("s", TEXTS)
def test_methods(s, f, extra):
    check(f, s, *extra)


@pytest.mark.parametrize("s", TEXTS)
def test_index_of(s):
    check(index_of, s + "é", "é")


@NS("methods Numba's str lacks or splits differently")
@pytest.mark.parametrize("s", TEXTS)
def test_methods_hpcjit_only(s):
    check(split_max, s)
    check(digit_predicates, s)  # Numba returns ints for these
    check(replaces, s, "", "-")  # Numba: ''.replace('', '-') is '--'
    check(split_sep, s, " ")  # Numba splits '  a' on ' ' wrongly
    check(split_sep, s, "l")  # Numba's rsplit('l') of 'll' is wrong
    check(casefold, s)
    check(more_predicates, s)
    check(tabs, s)


def test_method_errors():
    check(index_of, "abc", "z")  # ValueError
    check(split_sep, "abc", "")  # ValueError: empty separator
    check(partitions, "abc", "")


@NS("Numba's error types differ")
def test_fill_error():
    check(padding, "abc", 5) and None
    with pytest.raises(TypeError):
        padding_bad("abc")


@njit
def padding_bad(s):
    return s.center(9, "ab")


# ---- containers ----

@njit
def word_counts(text):
    d = {}
    for w in text.split():
        if w in d:
            d[w] += 1
        else:
            d[w] = 1
    return d


@njit
def word_counts_get(text):
    d = {}
    for w in text.split():
        d[w] = d.get(w, 0) + 1
    return d


@njit
def word_lengths(text):
    d = {}
    for w in text.split():
        d[w] = len(w)
    keys = []
    for k in d:
        keys.append(k)
    keys.sort()
    return keys, "a" in d, "zz" in d


@njit
def list_of_str(n):
    out = []
    for i in range(n):
        out.append("item" + str(i))
    out.append("é")
    return out, out[1], len(out), "item2" in out, out.index("item3"), sorted(out)[0], min(out), max(out)


@njit
def modify_list(words):
    words.append("new")
    words[0] = words[0].upper()
    return len(words)


@njit
def str_set(text):
    s = set()
    for w in text.split():
        s.add(w)
    return len(s), "b" in s, "q" in s


@njit
def str_set_return(text):
    return set(text.split())


@njit
def values_str(n):
    d = {}
    for i in range(n):
        d[i] = "v" * i
    return d


@njit
def tuple_keys(text):
    d = {}
    for w in text.split():
        d[(w, len(w))] = 1
    return len(d)


@njit
def missing_key(d, k):
    return d[k]


def test_dict_keys():
    text = "the cat and the hat and the bat é é 日"
    check_ret(word_counts, text)
    check(word_lengths, text)
    check(tuple_keys, text)


@NS("Numba types 'v' * i in a dict value as Optional")
def test_dict_values():
    check_ret(values_str, 5)


@NS("Numba cannot type d.get() on an empty dict")
def test_dict_get():
    check_ret(word_counts_get, "the cat and the hat and the bat é é 日")


def test_list_of_str():
    check(list_of_str, 5)
    check(join_list, ", ", ["a", "bé", "日本"])


@NS("Numba does not reflect a list of str argument")
def test_reflected_list():
    words = ["abc", "déf"]
    exp = list(words)
    n = modify_list(words)
    modify_list.py_func(exp)
    assert n == 3 and words == exp


@NS("Numba takes no plain dict argument (only a typed.Dict)")
def test_dict_argument():
    check(missing_key, {"a": 1, "bé": 2}, "bé")
    check(missing_key, {"a": 1, "bé": 2}, "x")  # KeyError
    with pytest.raises(KeyError, match="'zz'"):
        missing_key({"a": 1}, "zz")


def test_sets():
    check(str_set, "a b c b a é")


@NS("Numba returns a reflected set of str differently")
def test_set_return():
    check(str_set_return, "a b c b a é")


# ---- errors ----

@njit
def unsupported_method(s):
    return s.format(1)


@njit
def item_assign(s):
    s[0] = "x"
    return s


@njit
def percent(s):
    return s % 3


@njit
def add_int(s):
    return s + 1


@NS("hpcjit's messages")
def test_errors():
    from hpcjit.errors import TypingError, UnsupportedError
    with pytest.raises(UnsupportedError, match=r"str.format\(\) of a str that is not a literal is not supported") as e:
        unsupported_method("a{}")
    assert "test_strings.py" in str(e.value) and "^" in str(e.value)
    with pytest.raises(TypingError, match="does not support item assignment"):
        item_assign("abc")
    with pytest.raises(UnsupportedError, match="'%' formatting of a str that is not a literal"):
        percent("%d")
    with pytest.raises(TypingError, match="cannot add unicode and int64"):
        add_int("a")


# ---- messages, print, tuples ----

@njit
def raising(s, n):
    if n > 2:
        raise ValueError("bad: " + s)
    assert n != 1, s * 2
    return n


@njit
def printing(s, n):
    print(s, n, (s, n), "lit", s[0])
    print(f"[{s}]")


@njit
def tuple_in_out(t):
    a, b = t
    return b + a, (a, len(b))


@NS("Numba's exception messages from str values differ")
def test_raise_messages():
    for n in (0, 1, 3):
        check(raising, "é日", n)
    with pytest.raises(ValueError, match="^bad: é日$"):
        raising("é日", 3)
    with pytest.raises(AssertionError, match="^é日é日$"):
        raising("é日", 1)


def test_print(capfd):
    printing("héllo", 3)
    jit_out = capfd.readouterr().out
    printing.py_func("héllo", 3)
    assert jit_out == capfd.readouterr().out


def test_tuples():
    check(tuple_in_out, ("x", "yz"))
    check(tuple_in_out, ("😀", ""))


# ---- more builtins over str ----

@njit
def list_sorted(s):
    return list(s), sorted(s)


@njit
def enumerate_zip_reversed(a, b):
    out = []
    for i, c in enumerate(a):
        out.append(c * i)
    z = ""
    for x, y in zip(a, b):
        z += y + x
    return out, z


@njit
def reversed_str(a):
    r = ""
    for c in reversed(a):
        r += c
    return r


@njit
def min_max(s):
    return min(s), max(s)


@njit
def comprehension(s):
    return "".join([c.upper() for c in s if c != "b"]), {w: len(w) for w in s.split()}


@njit
def in_tuple(s):
    return s in ("a", "bé"), s not in ("x",), s.startswith(("x", "ab")), s.endswith(("é", "c"))


@njit
def optional_str(n):
    s = None
    if n > 0:
        s = "pos" + str(n)
    if s is None:
        return "none"
    return s.upper()


@njit
def optional_return(words, w):
    for x in words:
        if x == w:
            return x
    return None


def test_builtins_over_str():
    check(list_sorted, "bcaé日")
    check(enumerate_zip_reversed, "abc日", "xyz")
    check(in_tuple, "bé")
    check(in_tuple, "abc")


@NS("Numba has no reversed(), min() or max() of a str")
def test_reversed_min_max():
    check(reversed_str, "abc日")
    check(min_max, "hello")
    check(min_max, "")  # ValueError


@NS("Numba's comprehensions over str differ")
def test_str_comprehensions():
    check_ret(comprehension, "abcb a bb")


def test_optional_str():
    check(optional_str, 2)
    check(optional_str, 0)


@NS("Numba takes no list of str argument")
def test_optional_return():
    check(optional_return, ["a", "b"], "b")
    check(optional_return, ["a", "b"], "z")


@njit
def made_str_test(x, mode, a):
    # tests on strings the compiler builds itself: repetition and concatenation
    r = x * 2 if mode * "double" else x * 1
    if a + "":
        r += 10
    if not (a * mode):
        r += 100
    return r


@pytest.mark.parametrize("mode", [-1, 0, 1, 3])
@pytest.mark.parametrize("a", ["", "é"])
def test_truth_of_built_strings(mode, a):
    """A str made by an operator in an `if` test (a mutant once crashed inference here)."""
    check(made_str_test, 3, mode, a)
    check(made_str_test, 2.5, mode, a)
