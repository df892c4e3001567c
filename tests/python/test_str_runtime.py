"""The native str runtime (runtime/str.c) against CPython's str methods.

hpcjit._core._str_selftest(op, *args) unboxes Python strs into native ones,
runs one rt_str_ function, and boxes the result; each test compares it with
the str method on random strings of four alphabets: ASCII, Latin-1, BMP
(kind 2) and astral (kind 4), with the case-mapping and class corner cases
CPython's Unicode database has (final sigma, 'ß', titlecase digraphs...).
"""
import random

import pytest

pytestmark = pytest.mark.numba_skip("tests hpcjit's str runtime, not compiled code")

_core = pytest.importorskip("hpcjit._core")
T = getattr(_core, "_str_selftest", None)
if T is None:
    pytest.skip("no _str_selftest in this build", allow_module_level=True)

ALPHABETS = {
    "ascii": "abcXYZ019 _-,.\t\n\r\x0b\x1c'\"\\",
    "latin1": "aZ9 é\xe0\xdf\xff\xb5\xaa\xa0\x85\xbd\xb2",
    "bmp": "aZ1 Σσς\u03a3\u01c5\u01c6\u0130\u2160\u0665\u3000\u2028\u20ac\ufb01\u1e9e\u00df",
    "astral": "aZ 1\U0001f600\U00010400\U00010428\U0001d7d8\U00020000é€",
}
SEEDS = range(60)


def strings(alphabet, seed, n=None):
    rng = random.Random(seed)
    chars = ALPHABETS[alphabet]
    n = rng.randint(0, 12) if n is None else n
    return "".join(rng.choice(chars) for _ in range(n))


def both(op, method, *args):
    """Compare T(op, *args) with method(*args), exceptions included."""
    try:
        want = method(*args)
    except Exception as e:  # noqa: BLE001 - compared below
        with pytest.raises(type(e)) as got:
            T(op, *args)
        assert str(got.value) == str(e), (op, args)
        return
    if isinstance(want, int) and not isinstance(want, bool) and not -2**63 <= want < 2**63:
        with pytest.raises(OverflowError):  # native ints are int64
            T(op, *args)
        return
    got = T(op, *args)
    if isinstance(want, float) and want != want:
        assert isinstance(got, float) and got != got, (op, args, got)
        return
    assert got == want and type(got) is type(want), (op, args, got, want)
    if isinstance(want, str):
        # the narrowest kind: equal to CPython's
        assert T("kind", got) == T("kind", want)


@pytest.mark.parametrize("alphabet", ALPHABETS)
def test_roundtrip_and_kind(alphabet):
    for seed in SEEDS:
        s = strings(alphabet, seed)
        assert T("roundtrip", s) == s
        assert T("len", s) == len(s)
        kind, ascii_ = T("kind", s)
        want = 1 if not s or max(map(ord, s)) < 256 else 2 if max(map(ord, s)) < 65536 else 4
        assert (kind, ascii_) == (want, int(s.isascii()))


UNARY = ["upper", "lower", "capitalize", "title", "swapcase", "casefold",
         "isdigit", "isalpha", "isalnum", "isspace", "isupper", "islower", "isdecimal",
         "isnumeric", "istitle", "isidentifier", "isascii", "isprintable"]


@pytest.mark.parametrize("alphabet", ALPHABETS)
@pytest.mark.parametrize("op", UNARY)
def test_unary(alphabet, op):
    for seed in SEEDS:
        s = strings(alphabet, seed)
        both(op, getattr(str, op), s)


CASES = ["ΟΔΟΣ", "ΣΑΣ.", "Σ", "aΣ", "aΣb", "a'Σ'", "ǅemal", "ǆ", "straße", "ﬁne", "İstanbul",
         "\u1e9e", "ⅰⅱ", "Ⅻ", "١٢٣", "²", "½", "x\u0301y", "Hello World", "hello_world1",
         "_id", "1x", "\u00b5", "ÿ", "\U00010428\U00010400", "", " ", "\u3000"]


@pytest.mark.parametrize("op", UNARY)
def test_unary_corner_cases(op):
    for s in CASES:
        both(op, getattr(str, op), s)


@pytest.mark.parametrize("alphabet", ALPHABETS)
def test_search(alphabet):
    rng = random.Random(alphabet)
    for seed in SEEDS:
        s = strings(alphabet, seed, 20)
        for _ in range(6):
            i = rng.randint(0, len(s))
            sub = s[i:i + rng.randint(0, 3)] if rng.random() < 0.7 else strings(alphabet, rng.random(), 2)
            start = rng.choice([None, rng.randint(-25, 25)])
            end = rng.choice([None, rng.randint(-25, 25)])
            for op in ["find", "rfind", "count", "index", "rindex", "startswith", "endswith"]:
                both(op, lambda s_, sub_, a, b, op=op: getattr(s_, op)(sub_, a, b), s, sub, start, end)
            assert T("contains", s, sub) == (sub in s)


@pytest.mark.parametrize("alphabet", ALPHABETS)
def test_slice_index_concat(alphabet):
    rng = random.Random(alphabet)
    for seed in SEEDS:
        s = strings(alphabet, seed)
        t = strings(alphabet, seed + 1000)
        for _ in range(5):
            a, b = rng.choice([None, rng.randint(-15, 15)]), rng.choice([None, rng.randint(-15, 15)])
            c = rng.choice([None, 1, -1, 2, -3, 0])
            both("slice", lambda s_, a_, b_, c_: s_[a_:b_:c_], s, a, b, c)
            both("getitem", lambda s_, i: s_[i], s, rng.randint(-15, 15))
        both("concat", str.__add__, s, t)
        both("repeat", str.__mul__, s, rng.randint(-1, 4))
        assert T("eq", s, t) == (s == t) and T("eq", s, s[:]) is True
        assert T("cmp", s, t) == (s > t) - (s < t)
        assert (T("hash", s) == T("hash", t)) == (s == t) or s != t


@pytest.mark.parametrize("alphabet", ALPHABETS)
def test_split_join_replace(alphabet):
    rng = random.Random(alphabet)
    for seed in SEEDS:
        s = strings(alphabet, seed, 25)
        sep = rng.choice([None, s[3:4] or " ", s[5:7] or "ab", "é", "\u20ac", "\U0001f600"])
        m = rng.choice([None, -1, 0, 1, 2])
        both("split", lambda s_, p, n: s_.split(p, -1 if n is None else n), s, sep, m)
        both("rsplit", lambda s_, p, n: s_.rsplit(p, -1 if n is None else n), s, sep, m)
        both("splitlines", lambda s_, k: s_.splitlines(bool(k)), s, rng.randint(0, 1))
        parts = s.split(sep) if sep else s.split()
        joiner = rng.choice(["", ",", "\u20ac", "\U0001f600"])
        both("join", lambda j, p: j.join(p), joiner, parts)
        old = rng.choice([s[2:4], "", "zz", s[:1]])
        new = rng.choice(["", "-", "\xe9\xe9", "\u20ac", "\U0001f600"])
        both("replace", lambda s_, o, n, c: s_.replace(o, n, -1 if c is None else c), s, old, new,
             rng.choice([None, 0, 1, 2]))
        if sep:
            both("partition", str.partition, s, sep)
            both("rpartition", str.rpartition, s, sep)
    for op in ["split", "rsplit", "partition", "rpartition"]:
        both(op, getattr(str, op), "abc", "")


@pytest.mark.parametrize("alphabet", ALPHABETS)
def test_strip_pad(alphabet):
    rng = random.Random(alphabet)
    for seed in SEEDS:
        s = strings(alphabet, seed)
        chars = rng.choice([None, s[:2], " a", "\u20ac\U0001f600"])
        for op in ["strip", "lstrip", "rstrip"]:
            both(op, getattr(str, op), s, chars)
        w = rng.randint(-1, 18)
        fill = rng.choice([None, "*", "\u20ac", "\U0001f600", "ab"])
        for op in ["center", "ljust", "rjust"]:
            both(op, lambda s_, w_, f: getattr(s_, op)(w_) if f is None else getattr(s_, op)(w_, f), s, w, fill)
        both("zfill", str.zfill, rng.choice(["", "-", "+"]) + s, w)
        both("expandtabs", str.expandtabs, s + "\tx\t", rng.randint(0, 8))


def test_format():
    for s in ["", "abc", "\u20acx", "\U0001f600"]:
        for spec in ["", "5", ">6", "*^7", "\u20ac<4", ".1", "<6.2s", "05", "x<05", "=5", "+3", "#", ",",
                     "d", ".", "_", "z"]:
            both("format", format, s, spec)
    for v, spec in [(1234567, ","), (255, "#x"), (-5, "+08d"), (7, "x^5")]:
        assert T("format_int", v, spec) == format(v, spec)
    for v, spec in [(3.14159, ".2f"), (1e20, "g"), (-0.5, "+.1%"), (2.5, "*>9.3e")]:
        assert T("format_float", v, spec) == format(v, spec)
    with pytest.raises(ValueError, match="Unknown format code"):
        T("format_int", 1, "q")


def test_repr():
    for s in CASES + ["it's", 'say "hi"', "both ' \"", "\x00\x7f\x80\xa0\xad", "\ud800", "\U000e0001",
                      "tab\tnl\nbs\\"]:
        assert T("repr", s) == repr(s)


def test_numbers_to_str():
    for v in [0, -1, 2**63 - 1, -2**63, 1234567890]:
        assert T("from_int", v) == str(v)
    for v in [0, 2**64 - 1]:
        assert T("from_uint", v) == str(v)
    for v in [0.0, -0.0, 0.1, 1e16, 1e-5, 123.0, 1.5e300, float("inf"), float("-inf"), float("nan"),
              2.0 / 3, 1e15, 123456789.123]:
        assert T("from_float", v) == repr(v)
    assert T("from_bool", True) == "True" and T("from_bool", False) == "False"


INTS = ["0", "42", " -7 ", "+1_000", "0x_1f", "0o17", "0b1_01", "00", "0_0", "010", "1__0", "_1", "1_",
        "", " ", "x", "12a", "\u0661\u0662", "\u3000 5\u2028", "\x1c5", "9223372036854775807",
        "-9223372036854775808", "\U0001d7d8", "\u00b2", "ff", "0xff", "z", "٣.٥", "\x00", "1\x00"]


@pytest.mark.parametrize("base", [10, 0, 2, 8, 16, 36])
def test_int(base):
    for s in INTS:
        both("int", lambda s_, b: int(s_, b), s, base)
    both("int", lambda s_, b: int(s_, b), "1", 1)
    with pytest.raises(OverflowError):
        T("int", "9223372036854775808", 10)


FLOATS = ["1.5", " -2.5e3\n", "1_000.5", "1e1_0", ".5", "5.", "inf", "-Infinity", "nAn", "+nan", "1e400",
          "-1e-400", "1_e5", ".", "e5", "1e", "", "0x10", "1__0", "_1", "1.5x", "infx", "nan(1)",
          "\u0661.\u0662", "\u3000 3.25 \u2029", "1_000_000", "0.1", "1.7976931348623157e308",
          "4.9e-324", "1.e5", "1_.5", "1._5"]


def test_float():
    for s in FLOATS:
        both("float", float, s)


def test_ord_chr():
    for s in ["a", "\xe9", "\u20ac", "\U0001f600", "", "ab"]:
        both("ord", ord, s)
    for i in [0, 97, 255, 256, 0x20ac, 0xd800, 0x10ffff, 0x110000, -1]:
        both("chr", chr, i)


def test_no_leaks():
    before = _core.memstats()
    for seed in range(20):
        s = strings("bmp", seed, 30)
        T("split", s, None)
        T("upper", s)
        T("replace", s, "a", "\U0001f600", -1)
        T("join", ",", [s, s])
        try:
            T("index", s, "\U0010ffff", None, None)
        except ValueError:
            pass
    after = _core.memstats()
    assert after[0] - before[0] == after[1] - before[1]
