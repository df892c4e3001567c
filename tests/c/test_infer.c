/* test_infer.c - type inference on small functions: the types of the
 * variables and the return, the shape of the typed tree lowering relies on,
 * and the diagnostics (kind, message, location). */
#include "ast.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);     \
            failures++;                                                                  \
        }                                                                                \
    } while (0)

#define ENV_BUILTIN(n, q) {.name = n, .kind = HJ_ENV_BUILTIN, .qualname = q}
static const HjEnvEntry tuple_items[] = {{.kind = HJ_ENV_INT, .i = 3}, {.kind = HJ_ENV_FLOAT, .f = 0.5}};
static HjEnvEntry base_env[] = {
    {.name = "np", .kind = HJ_ENV_MODULE, .qualname = "numpy"},
    {.name = "math", .kind = HJ_ENV_MODULE, .qualname = "math"},
    ENV_BUILTIN("range", "builtins.range"),
    ENV_BUILTIN("len", "builtins.len"),
    ENV_BUILTIN("abs", "builtins.abs"),
    ENV_BUILTIN("min", "builtins.min"),
    ENV_BUILTIN("max", "builtins.max"),
    ENV_BUILTIN("round", "builtins.round"),
    ENV_BUILTIN("int", "builtins.int"),
    ENV_BUILTIN("float", "builtins.float"),
    ENV_BUILTIN("bool", "builtins.bool"),
    ENV_BUILTIN("complex", "builtins.complex"),
    ENV_BUILTIN("enumerate", "builtins.enumerate"),
    ENV_BUILTIN("zip", "builtins.zip"),
    ENV_BUILTIN("divmod", "builtins.divmod"),
    ENV_BUILTIN("ValueError", "builtins.ValueError"),
    ENV_BUILTIN("prange", "hpcjit.prange"),
    {.name = "N", .kind = HJ_ENV_INT, .i = 10},
    {.name = "SCALE", .kind = HJ_ENV_FLOAT, .f = 2.5},
    {.name = "FLAG", .kind = HJ_ENV_INT, .i = 1, .is_bool = 1},
    {.name = "PAIR", .kind = HJ_ENV_TUPLE, .items = tuple_items, .nitems = 2},
    {.name = "NAME", .kind = HJ_ENV_STR, .qualname = "abc"},
    {.name = "CFG", .kind = HJ_ENV_OTHER, .qualname = "a dict"},
    {.name = "g", .kind = HJ_ENV_FUNC, .func = 1},
    {.name = "f", .kind = HJ_ENV_FUNC, .func = 0},
    {.name = "h", .kind = HJ_ENV_FUNC, .func = 2},
};

/* Infer `src` (function 0; `src1`/`src2` are functions 1 and 2, may be
 * NULL) for the typecodes in `args` (space separated).  Returns
 * "(<args>) -> <ret>; var: type, ..." or "<kind> <line>:<col>: <message>". */
static char *infer_text(const char *src, const char *args, const char *src1, const char *src2) {
    HjFunction fs[3];
    const char *srcs[3] = {src, src1 ? src1 : "def g():\n    return 0\n", src2 ? src2 : "def h():\n    return 0\n"};
    const char *names[3] = {"f", "g", "h"};
    for (int i = 0; i < 3; i++) {
        memset(&fs[i], 0, sizeof fs[i]);
        fs[i].name = fs[i].qualname = names[i];
        fs[i].filename = "t.py";
        fs[i].source = srcs[i];
        fs[i].first_line = 1;
        fs[i].env = base_env;
        fs[i].nenv = (int)(sizeof base_env / sizeof base_env[0]);
    }
    HjRequest req = {.funcs = fs, .nfuncs = 3, .entry = 0};
    Compilation c = {0};
    arena_init(&c.arena);
    diag_init(&c.diag);
    c.tc = ty_ctx_new(&c.arena);
    c.req = &req;
    Type *argtys[16];
    int n = 0;
    const char *p = args;
    while (*p) {
        if (*p == ' ') {
            p++;
            continue;
        }
        argtys[n++] = ty_from_typecode(c.tc, &p);
    }
    StrBuf b;
    sb_init(&b);
    Spec *s = infer_spec(&c, 0, argtys, n, NULL);
    if (s) {
        sb_putc(&b, '(');
        for (int i = 0; i < s->nargs; i++) {
            if (i)
                sb_puts(&b, ", ");
            ty_name(&b, s->argtys[i]);
        }
        sb_puts(&b, ") -> ");
        ty_name(&b, s->ret);
        bool first = true;
        for (int i = 0; i < s->vars.len; i++) {
            Var *v = VEC_AT(s->vars, i);
            if (v->is_param && v->ty == s->argtys[i])
                continue;
            sb_printf(&b, "%s%s: ", first ? "; " : ", ", v->name);
            first = false;
            ty_name(&b, v->ty);
        }
    } else {
        static const char *kinds[] = {"none", "syntax", "unsupported", "typing", "name", "lowering",
                                      "llvm", "memory", "signature"};
        sb_printf(&b, "%s %d:%d: %s", kinds[c.diag.kind], c.diag.line, c.diag.col,
                  c.diag.short_msg ? c.diag.short_msg : "?");
    }
    diag_free(&c.diag);
    arena_free(&c.arena);
    return sb_take(&b);
}

static void expect(const char *src, const char *args, const char *want, int line, const char *s1,
                   const char *s2) {
    char *got = infer_text(src, args, s1, s2);
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "%s:%d: inference of\n%s--- got:\n%s\n--- want:\n%s\n", __FILE__, line, src, got, want);
        failures++;
    }
    free(got);
}
#define EXPECT(src, args, want) expect(src, args, want, __LINE__, NULL, NULL)
#define EXPECT2(src, args, want, s1) expect(src, args, want, __LINE__, s1, NULL)
#define EXPECT3(src, args, want, s1, s2) expect(src, args, want, __LINE__, s1, s2)

static void test_scalars(void) {
    EXPECT("def f(a, b):\n    return a + b\n", "l d", "(int64, float64) -> float64");
    EXPECT("def f(a, b):\n    return a / b\n", "l l", "(int64, int64) -> float64");
    EXPECT("def f(a, b):\n    return a // b, a % b, a ** b\n", "i l", "(int32, int64) -> UniTuple(int64 x 3)");
    EXPECT("def f(a, b):\n    return a * b\n", "f f", "(float32, float32) -> float32");
    EXPECT("def f(a, b):\n    return a * b\n", "f l", "(float32, int64) -> float64");
    EXPECT("def f(a, b):\n    return a - b\n", "L l", "(uint64, int64) -> int64");
    EXPECT("def f(a, b):\n    return a + b\n", "d D", "(float64, complex128) -> complex128");
    EXPECT("def f(a):\n    return -a, ~a, not a\n", "b", "(int8) -> Tuple(int64, int64, bool)");
    EXPECT("def f(a, b):\n    return a & b, a << 2\n", "? ?", "(bool, bool) -> Tuple(bool, int64)");
    EXPECT("def f(a, b):\n    return a < b <= 3\n", "l d", "(int64, float64) -> bool");
    EXPECT("def f(a, b):\n    return a and b\n", "l d", "(int64, float64) -> float64");
    EXPECT("def f(a, b):\n    return a if a > b else b\n", "l d", "(int64, float64) -> float64");
    EXPECT("def f(a):\n    x = 1\n    x = x + a\n    return x\n", "d", "(float64) -> float64; x: int64, x.1: float64");
    EXPECT("def f(a):\n    x = 1\n    if a > 0:\n        x = x + a\n    return x\n", "d", "(float64) -> float64; x: float64");
    EXPECT("def f(a):\n    x = 0\n    for i in range(a):\n        x += i * 0.5\n    return x\n", "l",
           "(int64) -> float64; x: float64, i: int64");
    EXPECT("def f(n):\n    n = n / 2\n    return n\n", "l", "(int64) -> float64; n.1: float64");
    EXPECT("def f():\n    pass\n", "", "() -> none");
    EXPECT("def f(a):\n    a += 1\n", "l", "(int64) -> none");
    EXPECT("def f():\n    return N * SCALE, FLAG, PAIR\n", "",
           "() -> Tuple(float64, bool, Tuple(int64, float64))");
    EXPECT("def f(x):\n    return x.real, x.imag, abs(x)\n", "D", "(complex128) -> UniTuple(float64 x 3)");
    EXPECT("def f(a, b):\n    a, b = b, a\n    return a\n", "l d", "(int64, float64) -> float64; a.1: float64, b.1: int64");
    EXPECT("def f(t):\n    x, y = t\n    return t[0] + t[-1]\n", "(ld)", "(Tuple(int64, float64)) -> float64; x: int64, y: float64");
    EXPECT("def f(t, i):\n    return t[i]\n", "(ll) l", "(UniTuple(int64 x 2), int64) -> int64");
    EXPECT("def f(x):\n    while x > 0:\n        x -= 1\n        if x == 3:\n            break\n    else:\n        return 1.5\n    return x\n",
           "l", "(int64) -> float64");
    EXPECT("def f(x):\n    if x:\n        return 1\n    else:\n        return 2\n", "d", "(float64) -> int64");
    EXPECT("def f(x):\n    while True:\n        if x > 3:\n            return x\n        x += 1\n", "l",
           "(int64) -> int64");
    EXPECT("def f(x):\n    return x is None\n", "n", "(none) -> bool");
    EXPECT("def f(a, b):\n    return (a, b) == (b, a), (a, 1) < (a, 2.5)\n", "l d", "(int64, float64) -> UniTuple(bool x 2)");
    EXPECT("def f(z):\n    return z.conjugate()\n", "D", "(complex128) -> complex128");
    EXPECT("def f(x):\n    \"\"\"doc\"\"\"\n    assert x > 0, \"positive\"\n    if x > 10:\n        raise ValueError(\"big\")\n    raise ValueError\n",
           "l", "(int64) -> none");
}

static void test_builtins(void) {
    EXPECT("def f(x):\n    return math.floor(x), math.sqrt(x), math.isnan(x), round(x), round(x, 2)\n", "d",
           "(float64) -> Tuple(int64, float64, bool, int64, float64)");
    EXPECT("def f(x):\n    return math.sqrt(x), math.frexp(x), abs(x)\n", "f",
           "(float32) -> Tuple(float32, Tuple(float32, int32), float32)");
    EXPECT("def f(x):\n    return math.sqrt(x), abs(x), math.gcd(x, 4), divmod(x, 3)\n", "l",
           "(int64) -> Tuple(float64, int64, int64, UniTuple(int64 x 2))");
    EXPECT("def f(a, b):\n    return min(a, b), max(a, b, 1)\n", "l d", "(int64, float64) -> UniTuple(float64 x 2)");
    EXPECT("def f(x):\n    return int(x), float(x), bool(x), complex(x), complex(x, 1), np.float32(x)\n", "l",
           "(int64) -> Tuple(int64, float64, bool, complex128, complex128, float32)");
    EXPECT("def f(x):\n    return math.pi * x, np.nan, np.sqrt(x), np.floor(x)\n", "l",
           "(int64) -> UniTuple(float64 x 4)");
    EXPECT("def f(n):\n    a = np.empty(n)\n    b = np.zeros((n, 2), dtype=np.int32)\n    c = np.ones((2, 2, 2), np.float32)\n    return a, b, c\n",
           "l", "(int64) -> Tuple(array(float64, 1d, C), array(int32, 2d, C), array(float32, 3d, C)); a: array(float64, 1d, C), b: array(int32, 2d, C), c: array(float32, 3d, C)");
    EXPECT("def f(a):\n    return np.empty_like(a), np.zeros_like(a, dtype=np.int64), a.copy(), np.copy(a)\n", "ad2F",
           "(array(float64, 2d, F)) -> Tuple(array(float64, 2d, F), array(int64, 2d, F), array(float64, 2d, C), array(float64, 2d, C))");
    EXPECT("def f(n):\n    return np.arange(n), np.arange(0.0, 1.0, 0.1), np.arange(3, dtype=np.float32), np.zeros(3, dtype=int)\n", "l",
           "(int64) -> Tuple(array(int64, 1d, C), array(float64, 1d, C), array(float32, 1d, C), array(int64, 1d, C))");
    EXPECT("def f(a):\n    return a.shape, a.ndim, a.size, a.strides, len(a), a.itemsize\n", "ad2C",
           "(array(float64, 2d, C)) -> Tuple(UniTuple(int64 x 2), int64, int64, UniTuple(int64 x 2), int64, int64)");
    EXPECT("def f(n):\n    t = np.empty(3, np.zeros(2, np.uint8).dtype)\n    return t\n", "l",
           "(int64) -> array(uint8, 1d, C); t: array(uint8, 1d, C)");
}

static void test_arrays(void) {
    EXPECT("def f(X):\n    m, k = X.shape\n    D = np.empty((m, m))\n    for i in range(m):\n        for j in range(m):\n            d = 0.0\n"
           "            for t in range(k):\n                diff = X[i, t] - X[j, t]\n                d += diff * diff\n"
           "            D[i, j] = np.sqrt(d)\n    return D\n",
           "ad2C", "(array(float64, 2d, C)) -> array(float64, 2d, C); m: int64, k: int64, D: array(float64, 2d, C), i: int64, j: int64, d: float64, t: int64, diff: float64");
    EXPECT("def f(a):\n    s = 0\n    for x in a:\n        s += x\n    return s\n", "ai1A", "(array(int32, 1d, A)) -> int64; s: int64, x: int32");
    EXPECT("def f(a):\n    for row in a:\n        r = row\n    return a[0], a[1, 2]\n", "ad2C",
           "(array(float64, 2d, C)) -> Tuple(array(float64, 1d, C), float64); row: array(float64, 1d, C), r: array(float64, 1d, C)");
    EXPECT("def f(a):\n    return a[0]\n", "ad2F", "(array(float64, 2d, F)) -> array(float64, 1d, A)");
    EXPECT("def f(a, b):\n    x = a\n    if a.size:\n        x = b\n    return x\n", "ad1C ad1A",
           "(array(float64, 1d, C), array(float64, 1d, A)) -> array(float64, 1d, A); x: array(float64, 1d, A)");
    EXPECT("def f(a):\n    for i, x in enumerate(a):\n        a[i] = x * 2\n    for x, y in zip(a, range(3)):\n        pass\n    return a\n",
           "al1C", "(array(int64, 1d, C)) -> array(int64, 1d, C); i: int64, x: int64, x.1: int64, y: int64");
    EXPECT("def f(n):\n    s = 0\n    for i in prange(n):\n        s += i\n    for v in (1, 2, 3):\n        s += v\n    return s\n", "l",
           "(int64) -> int64; s: int64, i: int64, v: int64");
}

static void test_calls(void) {
    EXPECT2("def f(x):\n    return g(x) + g(x, 2.5)\n", "l", "(int64) -> float64",
            "def g(a, b=1):\n    return a * b\n");
    EXPECT2("def f(x):\n    return g(b=x, a=1)\n", "d", "(float64) -> float64",
            "def g(a, b=1):\n    return a * b\n");
    EXPECT("def f(n):\n    if n < 2:\n        return n\n    return f(n - 1) + f(n - 2)\n", "l", "(int64) -> int64");
    EXPECT3("def f(n):\n    return g(n)\n", "l", "(int64) -> int64",
            "def g(n):\n    if n <= 0:\n        return 0\n    return h(n - 1)\n",
            "def h(n):\n    if n <= 0:\n        return 1\n    return g(n - 1)\n");
    EXPECT("def f(n):\n    return f(n - 1)\n", "l",
           "typing 1:1: cannot infer the return type of recursive function 'f'");
    EXPECT2("def f():\n    return g(1, 2, 3)\n", "", "typing 2:12: g() takes 2 arguments but 3 were given",
            "def g(a, b=1):\n    return a * b\n");
}

static void test_errors(void) {
    EXPECT("def f(a):\n    return a + foo\n", "l", "name 2:16: name 'foo' is not defined");
    EXPECT("def f(a):\n    return a + \"s\"\n", "ad1C",
           "typing 2:12: unsupported operand types for '+': array(float64, 1d, C) and unicode");
    /* None with a value: Optional (Numba's OptionalType) */
    EXPECT("def f(a):\n    x = 1\n    if a:\n        x = None\n    return x\n", "l",
           "(int64) -> OptionalType(int64); x: OptionalType(int64)");
    EXPECT("def f(a):\n    if a:\n        return 1\n    return None\n", "l", "(int64) -> OptionalType(int64)");
    EXPECT("def f(a):\n    if a:\n        return 1\n", "l", "(int64) -> OptionalType(int64)");
    EXPECT("def f(a):\n    x = None\n    if a:\n        x = range(a)\n    return x is None\n", "l",
           "typing 4:9: cannot unify none and range for variable 'x'");
    EXPECT("def f(a):\n    x = None\n    x = range(a)\n    return 1\n", "l", "(int64) -> int64; x: none, x.1: range");
    EXPECT("def f(a):\n    if a:\n        return 1\n    if a > 3:\n        return None\n    return (a, a)\n", "l",
           "typing 6:12: cannot unify the return types of 'f': OptionalType(int64) and UniTuple(int64 x 2)");
    EXPECT("def f(a):\n    with a:\n        pass\n", "l", "unsupported 2:5: 'with' statements are not supported by hpcjit");
    EXPECT("def f(a):\n    try:\n        pass\n    except* ValueError:\n        pass\n", "l",
           "unsupported 4:5: 'except*' is not supported by hpcjit");
    EXPECT("def f(a):\n    return {1: a, **{2: a}}\n", "l",
           "unsupported 2:21: unpacking in dict displays is not supported by hpcjit");
    EXPECT("def f(a):\n    global N\n    return a\n", "l", "unsupported 2:5: 'global' statements are not supported by hpcjit");
    EXPECT("def f(a):\n    def g():\n        return 1\n    return a\n", "l",
           "unsupported 2:5: nested function definitions are not supported by hpcjit");
    EXPECT("def f(**a):\n    return 1\n", "", "unsupported 1:9: **kwargs parameters are not supported by hpcjit");
    EXPECT("def f(*a):\n    return len(a)\n", "(ll)", "(UniTuple(int64 x 2)) -> int64");
    EXPECT("def f():\n    return NAME\n", "", "() -> unicode");
    EXPECT("def f():\n    return CFG\n", "", "typing 2:12: global name 'CFG' is a dict, which hpcjit cannot use");
    EXPECT("def f(a):\n    return a.foo\n", "ad1C", "typing 2:12: unknown attribute 'foo' of array(float64, 1d, C) (not supported by hpcjit)");
    EXPECT("def f(a):\n    return np.foo(a)\n", "l", "typing 2:12: unknown attribute 'foo' of module 'numpy' (not supported by hpcjit)");
    EXPECT("def f(a):\n    return a[1, 2]\n", "ad1C", "typing 2:12: too many indices for array(float64, 1d, C): 2 given");
    EXPECT("def f(a):\n    a[0] = 1\n", "ad2C", "(array(float64, 2d, C)) -> none");
    /* more dimensions than the target: their leading extra axes must be 1 at run time (Numba) */
    EXPECT("def f(a):\n    a[0] = a\n", "ad2C", "(array(float64, 2d, C)) -> none");
    EXPECT("def f(a):\n    x, y = a, 1, 2\n", "l", "typing 2:5: cannot unpack UniTuple(int64 x 3) into 2 targets (it has 3 elements)");
    EXPECT("def f(t):\n    return t[2]\n", "(ld)", "typing 2:14: tuple index 2 out of range for Tuple(int64, float64)");
    EXPECT("def f(a):\n    raise ValueError(f\"bad {a}\")\n", "l", "(int64) -> none");
    EXPECT("def f(a):\n    raise ValueError(f\"bad {a:{a}}\")\n", "l", "(int64) -> none");
    EXPECT("def f(a):\n    return \"%d %d\" % (a,)\n", "l", "typing 2:12: not enough arguments for format string");
    EXPECT("def f(a):\n    return \"{0[1]}\".format(a)\n", "l",
           "unsupported 2:12: the replacement field '{0[1]}' names an item: not supported by hpcjit (pass the value "
           "itself)");
    EXPECT("def f(a):\n    return \"%5.1f|%x\" % (a * 0.5, a) + \"{:x}\".format(a)\n", "l", "(int64) -> unicode");
    EXPECT("def f(a):\n    x = \"s\"\n    return a\n", "l", "(int64) -> int64; x: unicode");
    EXPECT("def f(a):\n    return a << 1.5\n", "l", "typing 2:12: cannot left-shift int64 and float64 (integers only)");
    EXPECT("def f(a):\n    return math.sqrt(a)\n", "D", "typing 2:22: math.sqrt() does not accept complex128");
    EXPECT("def f(a):\n    return np.empty(a)\n", "d", "typing 2:21: array shape must be an int or a tuple of ints, not float64");
    EXPECT("def f(a):\n    x = 1\n    for i in range(3):\n        x = a\n    return x\n", "ad1C", "typing 4:9: cannot unify int64 and array(float64, 1d, C) for variable 'x'");
    EXPECT("def f(a):\n    return len(a)\n", "l", "typing 2:12: len() of int64 is not supported");
}

int main(void) {
    test_scalars();
    test_builtins();
    test_arrays();
    test_calls();
    test_errors();
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("test_infer: ok\n");
    return 0;
}
