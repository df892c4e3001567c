"""str formatting in compiled code (lib/str, infer_strfmt.c): printf-style
`"fmt" % args`, `"fmt".format(...)`, format(), hex(), bin(), oct(), and
the !s/!r conversions with a spec in f-strings, each compared with CPython
through check() over negative, zero, large, nan/inf and -0.0 values and
non-ASCII text, with memstats balance; and the refusals, located."""
import math

import pytest

import hpcjit
from hpcjit import njit
from conftest import AGAINST_NUMBA, assert_located_in, check

memstats = None if AGAINST_NUMBA else hpcjit._core.memstats

NS = pytest.mark.numba_skip
NO_PCT = "Numba does not support '%' formatting of str"
NO_FORMAT = "Numba does not support str.format()"
NO_BUILTIN = "Numba does not support hex/bin/oct/format()"

INTS = [0, 1, -1, 7, 42, -255, 4096, 123456789, -987654321, 2**63 - 1, -2**63, True, False]
FLOATS = [0.0, -0.0, 1.5, -2.25, 0.1, 3.0, 1e20, -1e-7, 123456.789, 1e300, math.inf, -math.inf, math.nan]
TEXTS = ["", "a", "ab", "hello", "café", "日本語", "emoji 😀", "ΣΑΣ", "x" * 20]


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


# ---- printf-style ----

@njit
def pct_int(x):
    return ("%d" % x, "%5d|" % x, "%-5d|" % x, "%05d" % x, "%+d" % x, "% d" % x, "%x" % x, "%X" % x,
            "%#x" % x, "%#o" % x, "%o" % x, "%#08X" % x, "%i" % x, "%u" % x, "%+08d" % x, "%-+8x|" % x,
            "% 07d" % x, "%-08d|" % x, "%ld" % x, "[%3d%%]" % x)


@njit
def pct_float(y):
    return ("%f" % y, "%.2f" % y, "%10.3f|" % y, "%-10.3f|" % y, "%+.1e" % y, "%E" % y, "%g" % y, "%G" % y,
            "%#g" % y, "%010.2f" % y, "% f" % y, "%F" % y, "%.0f" % y, "%.3g" % y, "%e" % y, "%+08.2F" % y,
            "%#.0f" % y, "%.12g" % y, "%-+12.4e|" % y)


@njit
def pct_int_as_float(x):
    return "%f %.1e %g" % (x, x, x)


@njit
def pct_float_as_int(y):
    return "%d|%5i|%-4u|%+08d|% d|%#d|%*d|" % (y, y, y, y, y, y, 40, y)


@njit
def pct_text(s):
    return ("%s" % s, "%10s|" % s, "%-10s|" % s, "%.3s|" % s, "%8.2s|" % s, "%r" % s, "%12r|" % s,
            "%-9r|" % s, "<%s>" % (s,), "%s and %s" % (s, s))


@njit
def pct_values(x, y, b):
    return ("%s %s %s %s" % (x, y, b, None), "%r|%r|%r" % (x, y, b), "%6s|%-7s|%4s" % (x, b, y),
            "%c%c%5c|%-3c|" % (65, 0x65e5, 97, "z"), "%d %x %s" % (b, b, b))


@njit
def pct_tuple_var(x, s):
    t = (x, s, x * 0.5)
    return "%d-%s-%.2f" % t


@njit
def pct_star(x, y):
    return "%*d|%-*d|%*d|%.*f|%*.*f|" % (6, x, 5, x, -5, x, 2, y, 10, 3, y)


@njit
def pct_plain():
    return "no fields" % (), "100%%" % ()


@NS(NO_PCT)
@pytest.mark.parametrize("x", INTS)
def test_pct_int(x):
    check(pct_int, x)
    check(pct_int_as_float, x)
    check(pct_star, x, 0.5)


@NS(NO_PCT)
@pytest.mark.parametrize("y", FLOATS)
def test_pct_float(y):
    check(pct_float, y)
    check(pct_float_as_int, y)  # nan: ValueError, inf: OverflowError, 1e300: every digit
    check(pct_float_as_int, -y / 3)
    check(pct_star, -3, y)


@NS(NO_PCT)
@pytest.mark.parametrize("s", TEXTS)
def test_pct_text(s):
    check(pct_text, s)
    check(pct_tuple_var, -4, s)


@NS(NO_PCT)
@pytest.mark.parametrize("x,y,b", [(0, 0.0, False), (-12, -0.0, True), (2**63 - 1, 1e-300, True),
                                   (5, math.nan, False), (-3, math.inf, True)])
def test_pct_values(x, y, b):
    check(pct_values, x, y, b)


@NS(NO_PCT)
def test_pct_plain():
    check(pct_plain)


@njit
def pct_star_runtime(x, y, s, w, p):
    return ("%*d|%-*d|%0*d|%+0*x|%*.*f|%.*f|" % (w, x, w, x, w, x, w, x, w, p, y, p, y),
            "%*s|%-*s|%.*s|%*c|%*r|%0*.*e|" % (w, s, w, s, p, s, w, 65, w, s, w, p, y))


@NS(NO_PCT)
@pytest.mark.parametrize("w", [-9, -1, 0, 4, 13])
@pytest.mark.parametrize("p", [-2, 0, 3])
def test_pct_star_runtime(w, p):
    check(pct_star_runtime, -42, 3.14159, "é日", w, p)
    check(pct_star_runtime, 2**63 - 1, -math.inf, "", w, p)


@njit
def fmt_nested_spec(x, w, p, s):
    return ("{:{}}|{:{}.{}f}|{:{f}^{w}}|".format(x, w, x, w, p, s, f="*", w=w),
            "{0:{1}}|{0:{1}.{2}f}|{0:>{w}}|{3:{w}}".format(x, w, p, s, w=w),
            f"{x:>{w}}|{x:{w}.{p}e}|{s:*^{w}}|{'lit':>{w}}|{w:0{w}d}")


@NS(NO_FORMAT)
@pytest.mark.parametrize("x,w,p,s", [(1.5, 8, 2, "é"), (-3.25, 3, 0, "ab"), (math.nan, 12, 5, "日本"),
                                     (-0.0, 1, 1, "")])
def test_format_nested_spec(x, w, p, s):
    check(fmt_nested_spec, x, w, p, s)


@njit
def fmt_bad_runtime_spec(x, spec):
    return "{:{}}".format(x, spec)


@NS(NO_FORMAT)
def test_format_bad_runtime_spec():
    check(fmt_bad_runtime_spec, 3, ">5")
    check(fmt_bad_runtime_spec, 3, "q")  # ValueError from the formatter
    check(fmt_bad_runtime_spec, 3.5, "=+9.2f")


# ---- str.format ----

@njit
def fmt_fields(x, y, s):
    return ("{} and {:.3f}".format(x, y), "{0}{1}{0}".format(x, s), "{1}|{0}".format(x, s),
            "{n}:{v:.2e}".format(n=s, v=y), "{0}-{k}".format(x, k=s), "{{}}{{{0}}}".format(x),
            "{!r} {!s} {}".format(s, s, s), "{0!r:>12}|{0!s:<9}|{0:^9}|".format(s),
            "{:*^11}|{:>10}|{:<6}|".format(s, s, s), "plain {{text}}".format())


@njit
def fmt_int_specs(x):
    return "{:>8}|{:<8}|{:^9}|{:08d}|{:+d}|{: d}|{:,}|{:_}|{:x}|{:#X}|{:b}|{:#o}|{:=+12,}|{:e}|{:.1%}|{!r:>6}|{:c}".format(
        x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, 65)


@njit
def fmt_float_specs(y):
    return "{:08.3f}|{:,.2f}|{:e}|{:.2%}|{:g}|{:>12}|{:<12}|{:^+12.3}|{:.0f}|{:#.3g}|{:_.1f}|{!s:>14}|{}".format(
        y, y, y, y, y, y, y, y, y, y, y, y, y)


@njit
def fmt_bool_none(b):
    return "{} {!r} {!s:>7} {:>4} {:d} {}".format(b, b, b, b, b, None)


@NS(NO_FORMAT)
@pytest.mark.parametrize("s", TEXTS)
def test_format_fields(s):
    check(fmt_fields, -42, 2.0 / 3.0, s)
    check(fmt_fields, 2**63 - 1, math.nan, s)


@NS(NO_FORMAT)
@pytest.mark.parametrize("x", INTS)
def test_format_int_specs(x):
    check(fmt_int_specs, x)


@NS(NO_FORMAT)
@pytest.mark.parametrize("y", FLOATS)
def test_format_float_specs(y):
    check(fmt_float_specs, y)


@NS(NO_FORMAT)
@pytest.mark.parametrize("b", [True, False])
def test_format_bool_none(b):
    check(fmt_bool_none, b)


# ---- format(), hex(), bin(), oct() ----

@njit
def radix(x):
    return hex(x) + " " + bin(x) + " " + oct(x)


@njit
def builtin_format(x, y, s):
    return (format(x, ".2f"), format(x), format(x, ">+8"), format(y, ".2f"), format(y), format(y, "e"),
            format(s), format(s, "^9"), format(True), format(x, "#b"), format(y, "010.3%"))


@njit
def format_spec_var(x, y, s, spec):
    return format(x, spec) + "|" + format(y, spec) + "|" + format(s, spec[:1] + "^9")


@NS(NO_BUILTIN)
@pytest.mark.parametrize("spec", [">8", "*<10", "+", "", "^7", "010", "q", ",", "#x", ".3"])
def test_format_spec_var(spec):
    check(format_spec_var, 12345, -2.5, "é日", spec)
    check(format_spec_var, -7, math.inf, "", spec)


@NS(NO_BUILTIN)
@pytest.mark.parametrize("x", INTS)
def test_radix(x):
    check(radix, x)


@NS(NO_BUILTIN)
@pytest.mark.parametrize("x,y,s", [(0, 0.0, ""), (-7, -0.0, "é"), (2**63 - 1, 1e300, "日本"),
                                   (-2**63, math.nan, "ab"), (3, -math.inf, "emoji 😀")])
def test_builtin_format(x, y, s):
    check(builtin_format, x, y, s)


# ---- f-strings: the conversions with a spec ----

@njit
def fstring_conversions(b, s, y):
    return f"{b!s:>6}|{s!r:>9}|{s!r:<9}|{b!r:^7}|{y!s:>12}|{y!r:<12}|{None!s:>6}|{'lit'!r:>7}"


@NS("Numba does not support conversions with format specs in f-strings")
@pytest.mark.parametrize("s", TEXTS[:6])
def test_fstring_conversions(s):
    check(fstring_conversions, True, s, -1.5)
    check(fstring_conversions, False, s, math.nan)


@njit
def nested_fstrings(x, s):
    return f"[{f'{x:>3}'!r:>9}|{f'<{x}>'}|{f'{s}{s}':*^12}]"


@NS("Numba does not support format specs in f-strings")
@pytest.mark.parametrize("x", [5, -1234, 2**63 - 1])
def test_nested_fstrings(x):
    check(nested_fstrings, x, "é")


# ---- the brief's examples, and global constant formats ----

FMT = "{:>6}|{!r}"
PFMT = "%-6.2f|%s"


@njit
def examples(x):
    return ("%d items %.2f" % (x, x / 3), "{} and {:.3f}".format(x, x / 3), hex(x) + bin(x) + oct(x),
            format(x, ".2f"))


@njit
def global_formats(x, s):
    return FMT.format(x, s) + PFMT % (x, s) + format(x, FMT[1:3])


@NS(NO_PCT)
@pytest.mark.parametrize("x", [0, 7, -300, 2**62])
def test_examples(x):
    check(examples, x)
    check(global_formats, x, "é")
    check(global_formats, x * 0.25, "")


# ---- in a loop: the values are released ----

@njit
def join_lines(n):
    out = ""
    for i in range(n):
        out += "%3d: %s\n" % (i, "{:>6.2f}".format(i / 7)) + hex(i * 977) + "\n"
    return out


@NS(NO_PCT)
def test_loop():
    check(join_lines, 50)


# ---- values of other kinds, and formatted text used elsewhere ----

@njit
def nested_values(x):
    return ("%s|%5s" % ("%d" % x, f"{x}"), "{}|{:>6}".format(f"<{x}>", f"{x}"), format(f"{x}", ">5"),
            "%s" % ((x, 2.5),))


@njit
def array_values(a, u):
    return "%s %r" % (a, a) + " %d %x %s" % (u[0], u[0], u[0]) + " {:b}".format(u[0])


@njit
def float32_values(a):
    return "%s %f %.3e" % (a[0], a[0], a[0]) + "|{}|{!s:>5}|".format(a[0], a[0]) + format(a[0], ".2f")


@njit
def optional_values(x):
    y = None if x > 0 else x
    return "%s %r" % (y, y) + "|{} {!r}|".format(y, y) + format(y)


@njit
def char_values(x):
    return "%c|%5c|%-5c|" % (x, x, x) + "{:c}|{:^5c}|".format(x, x)


@njit
def raise_formatted(x):
    if x > 0:
        raise ValueError("bad %d of %s" % (x, "{:.1f}".format(x / 4)))
    return x


@njit
def print_formatted(x):
    print("%d: %s" % (x, "{:>4}".format(x)), hex(x), f"{x:>{x % 7 + 2}}", "%*d" % (x, x))


@NS(NO_PCT)
@pytest.mark.parametrize("x", [0, -17, 123456])
def test_other_values(x):
    import numpy as np
    check(nested_values, x)
    check(array_values, np.arange(3.0) * x, np.array([2**64 - 1 - abs(x)], dtype=np.uint64))
    check(float32_values, np.array([1.1 * x], dtype=np.float32))
    check(optional_values, x)
    check(raise_formatted, x)


@NS(NO_PCT)
@pytest.mark.parametrize("x", [65, 0x65e5, 0x1F600, 0, True, 0x110000, -1])
def test_char_values(x):
    check(char_values, x)


@NS(NO_PCT)
def test_print_formatted(capfd):
    print_formatted(-42)
    got = capfd.readouterr().out
    print_formatted.py_func(-42)
    assert got == capfd.readouterr().out


# ---- refusals and Python's errors, located ----

@njit
def non_literal_pct(s):
    return s % 3  # marker: non_literal_pct


@njit
def non_literal_format(s):
    return s.format(3)  # marker: non_literal_format


@njit
def attribute_field(x):
    return "{0.real}".format(x)  # marker: attribute_field


@njit
def index_field(x):
    return "{0[1]}".format(x)  # marker: index_field


@njit
def too_few(x):
    return "%d %d" % (x,)  # marker: too_few


@njit
def too_many(x):
    return "%d" % (x, x)  # marker: too_many


@njit
def bad_char(x):
    return "%y" % x  # marker: bad_char


@njit
def incomplete(x):
    return "abc %" % x  # marker: incomplete


@njit
def mapping_key(x):
    return "%(a)s" % x  # marker: mapping_key


@njit
def hex_float(x):
    return "%x" % (x * 0.5)  # marker: hex_float


@njit
def d_of_str(s):
    return "%d" % s  # marker: d_of_str


@njit
def index_out_of_range(x):
    return "{2}".format(x, x)  # marker: index_out_of_range


@njit
def missing_keyword(x):
    return "{name}".format(x)  # marker: missing_keyword


@njit
def switch_numbering(x):
    return "{}{0}".format(x)  # marker: switch_numbering


@njit
def runtime_star(x, w):
    return "%*d" % (w + 1, x)  # marker: runtime_star


@njit
def builtin_hex_float(y):
    return hex(y)  # marker: builtin_hex_float




@njit
def nested_spec(x, w):
    return "{:{:{}}}".format(x, w, w)  # marker: nested_spec


@njit
def single_brace(x):
    return "a } b".format(x)  # marker: single_brace


@njit
def star_float_d(y, w):
    return "%*d" % (w, y)  # marker: star_float_d


@njit
def precision_int(x):
    return "%.3d" % x  # marker: precision_int


REFUSALS = [
    (non_literal_pct, ("%d",), "UnsupportedError", "'%' formatting of a str that is not a literal"),
    (non_literal_format, ("{}",), "UnsupportedError", r"str.format\(\) of a str that is not a literal"),
    (attribute_field, (3,), "UnsupportedError", r"'\{0.real\}' names an attribute"),
    (index_field, (3,), "UnsupportedError", r"'\{0\[1\]\}' names an item"),
    (too_few, (3,), "TypingError", "not enough arguments for format string"),
    (too_many, (3,), "TypingError", "not all arguments converted during string formatting"),
    (bad_char, (3,), "TypingError", r"unsupported format character 'y' \(0x79\) at index 1"),
    (incomplete, (3,), "TypingError", "incomplete format"),
    (mapping_key, (3,), "UnsupportedError", r"'%\(name\)' keys"),
    (hex_float, (3,), "TypingError", "%x format: an integer is required, not float64"),
    (d_of_str, ("a",), "TypingError", "%d format: a real number is required, not unicode"),
    (index_out_of_range, (3,), "TypingError", "Replacement index 2 out of range"),
    (missing_keyword, (3,), "TypingError", "no argument named 'name'"),
    (switch_numbering, (3,), "TypingError", "cannot switch from automatic field numbering"),
    (runtime_star, (3, 4), "UnsupportedError", r"a '\*' width or precision computed by an expression"),
    (builtin_hex_float, (1.5,), "TypingError", "'float64' object cannot be interpreted as an integer"),
    (nested_spec, (3, 4), "TypingError", "Max string recursion exceeded"),
    (single_brace, (3,), "TypingError", "Single '}' encountered in format string"),
    (precision_int, (3,), "UnsupportedError", "a precision for %d"),
    (star_float_d, (2.5, 4), "UnsupportedError", r"a '\*' width from a variable for %d of a float"),
]


@NS("hpcjit's messages and located diagnostics")
@pytest.mark.parametrize("f,args,cls,match", REFUSALS, ids=[r[0].py_func.__name__ for r in REFUSALS])
def test_refusals(f, args, cls, match):
    import hpcjit.errors
    with pytest.raises(getattr(hpcjit.errors, cls), match=match) as e:
        f(*args)
    assert_located_in(__file__, e.value, "marker: " + f.py_func.__name__)
