"""Everyday programs, part 5: strings and bytes, typed containers nested,
tuples of arrays, records, datetime64, complex, bits and fixed-width
integer wraparound."""
import sys, math, cmath
import numpy as np
import numba
from numba import njit, types, typed

from _runner import case, run

@case("key=value; other = thing ;last=1")
def str_partition(s):
    out = []
    for item in s.split(";"):
        k, sep, v = item.partition("=")
        out.append(k.strip() + ":" + v.strip() + ":" + str(len(sep)))
    a, _, c = "a/b/c".rpartition("/")
    return out, a, c, "x,y,z,w".rsplit(",", 1), "1 2  3".split()

@case("Hello World, hello numba")
def str_count_index(s):
    low = s.lower()
    return (low.count("hello"), s.index("World"), s.rindex("l"),
            s.find("o", 5), s.rfind("o", 0, 10), s.find("zz"), "lo" in s)

@case("abc", 7)
def str_pad(s, w):
    return (s.ljust(w, "*"), s.rjust(w, "-"), s.center(w + 1, "."),
            "-42".zfill(6), "+7".zfill(4), ("|" + s) * 3)

@case("Numba2024 is_fast x1 ÄÖü")
def str_predicates(s):
    res = []
    for w in s.split(" "):
        res.append((w.isalnum(), w.isdecimal(), w.isnumeric(), w.isidentifier(),
                    w.islower(), w.isupper(), w.isascii(), w.isprintable()))
    return res

@case("Straße Grüße ÉCOLE")
def str_unicode(s):
    return s.upper(), s.lower(), s.casefold(), len(s), s[::-1], s.swapcase()

@case("line one\nline two\r\nline three\n")
def str_splitlines(s):
    n = 0
    words = []
    for ln in s.splitlines():
        n += 1
        words.append(ln.split(" ")[-1])
    return n, words, "a\tb\tc".expandtabs(4), s.splitlines(True)[1]

@case(12345, -3.25)
def str_numbers(n, x):
    s = str(n)
    digits = 0
    for ch in s:
        digits += ord(ch) - ord("0")
    return s, digits, str(-n), int(s[::-1]) + 1, float("2.5") * x, str(True), f"{n}-{n * 2}"

@case("hello")
def str_chr_ord(s):
    shifted = ""
    for ch in s:
        shifted += chr((ord(ch) - 97 + 3) % 26 + 97)
    return shifted, [ord(c) for c in s], "".join([chr(65 + i) for i in range(5)]), s < "help", max(s), min(s)

@case(b"hello bytes")
def bytes_ops(b):
    total = 0
    for x in b:
        total += x
    return len(b), b[0], b[-1], total, b[1:4] == b"ell"

INT_LIST = types.ListType(types.int64)

@case(6)
def nested_typed(n):
    d = typed.Dict.empty(key_type=types.unicode_type, value_type=INT_LIST)
    for i in range(n):
        key = "even" if i % 2 == 0 else "odd"
        if key not in d:
            d[key] = typed.List.empty_list(types.int64)
        d[key].append(i * i)
    out = []
    for k in sorted(d.keys()):
        out.append((k, sum(d[k]), len(d[k])))
    return out

@case(4)
def dict_tuple_keys(n):
    grid = {}
    for i in range(n):
        for j in range(n):
            if (i + j) % 3 == 0:
                grid[(i, j)] = float(i * n + j)
    tot = 0.0
    for (i, j), v in grid.items():
        tot += v * (i - j)
    return len(grid), tot, (1, 2) in grid, grid.get((0, 0), -1.0), grid.pop((3, 3))

@case(np.array([3.0, 1.0, 2.0, 5.0, 4.0]))
def dict_of_arrays(a):
    d = typed.Dict.empty(key_type=types.int64, value_type=types.float64[:])
    for k in range(3):
        d[k] = a * k
    s = 0.0
    for k, v in d.items():
        s += v.sum()
    return s, d[2][1]

@case(np.linspace(0.0, 1.0, 7))
def tuple_of_arrays(x):
    parts = (x[:3], x[3:], x * 2.0)
    tot = 0.0
    for p in parts:
        tot += p.sum()
    lo, hi, dbl = parts
    return tot, lo.size, hi.shape, (dbl[0], dbl[-1])

REC = np.dtype([("id", np.int32), ("x", np.float64), ("flag", np.bool_)])

@case(np.array([(1, 0.5, True), (2, 1.5, False), (3, -2.0, True)], dtype=REC))
def structured_fields(r):
    xs = r["x"]
    total = 0.0
    ids = 0
    for i in range(r.shape[0]):
        if r[i]["flag"]:
            total += r[i]["x"]
            ids += r[i]["id"]
    r[0]["x"] = 10.0
    r["id"][1] = 20
    return total, ids, xs.max(), r[0]["x"], r["id"].sum()

@case(np.array(["2024-01-01", "2024-02-29", "2024-12-31"], dtype="datetime64[D]"))
def datetime_diff(d):
    gaps = np.diff(d)
    first = d[0]
    later = first + np.timedelta64(45, "D")
    n = 0
    for x in d:
        if x > later:
            n += 1
    return gaps.astype(np.int64), n, (d[-1] - d[0]) / np.timedelta64(1, "D"), later

@case(np.array([1 + 2j, -3 + 0.5j, 0 - 1j]))
def complex_arrays(z):
    r = np.abs(z)
    ang = np.angle(z)
    c = z * np.conj(z)
    w = cmath.sqrt(z[0]) + cmath.exp(z[1]) + cmath.log(z[2])
    m, p = cmath.polar(z[0])
    return r, ang, c.real, z.imag.sum(), w, m, p, cmath.rect(2.0, 0.5), complex(1.0, 2.0) ** 2

@case(np.array([1, 7, 255, 1024, 12345], dtype=np.int64))
def bit_tricks(a):
    pops = np.zeros(a.size, dtype=np.int64)
    for i in range(a.size):
        x = a[i]
        c = 0
        while x:
            x &= x - 1
            c += 1
        pops[i] = c
    pow2 = [(v & (v - 1)) == 0 for v in a]
    rev = 0
    v = 11
    for _ in range(8):
        rev = (rev << 1) | (v & 1)
        v >>= 1
    return pops, pow2, rev, ~5, -17 >> 2, 0xF0 ^ 0x3C, (1 << 40) | 3

@case(np.array([200, 100, 50, 250], dtype=np.uint8), np.array([2000000000, 1500000000], dtype=np.int32))
def int_wraparound(u, i):
    s = u + u
    d = u - np.uint8(210)
    m = i * np.int32(2)
    tot = np.uint8(0)
    for v in u:
        tot += v
    return s, d, m, tot, u.sum(), i.sum(), np.int8(127) + np.int8(1)

@case(7, -3)
def int_div_mod(a, b):
    return (a // b, a % b, -a // 3, -a % 3, divmod(a, b), divmod(-a, 4),
            7.5 % -2.0, -7.5 // 2.0, a ** 3, 2 ** -1, pow(a, 2, 5), abs(b))

@case(10)
def set_dict_comps(n):
    sq = {i: i * i for i in range(n) if i % 2}
    mods = {i % 4 for i in range(n)}
    inv = {v: k for k, v in sq.items()}
    nested = [[i * j for j in range(3)] for i in range(3)]
    flat = [x for row in nested for x in row if x > 0]
    return sorted(sq.items()), sorted(mods), inv[49], flat

@case(np.array([4.0, 1.0, 3.0, 2.0]))
def list_of_tuples(a):
    pairs = [(a[i], i) for i in range(a.size)]
    pairs.sort(reverse=True)
    by_idx = sorted(pairs, key=lambda p: p[1])
    best = max(pairs, key=lambda p: -p[0])
    return pairs, by_idx[0], best, [p[1] for p in pairs]

if __name__ == "__main__":
    run()
