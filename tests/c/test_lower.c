/* test_lower.c - the lowering through the whole pipeline: hj_compile() a
 * function, hj_jit_load() it, call the entry from C and compare with values
 * worked out by hand from CPython's semantics.  Covers Python integer and
 * float floor division/modulo, int power, range with negative steps,
 * loops with break/continue/else, chained comparisons, and/or, arrays of
 * each layout, allocation with reference counting (no leaks), exceptions,
 * boundscheck, calls and recursion, complex numbers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcjit/compiler.h"
#include "hpcjit/runtime.h"

static int failures;
#define CHECK(c)                                                                             \
    do {                                                                                     \
        if (!(c)) {                                                                          \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c);            \
            failures++;                                                                      \
        }                                                                                    \
    } while (0)

static HjJit *jit;

static const HjEnvEntry env[] = {
    {.name = "np", .kind = HJ_ENV_MODULE, .qualname = "numpy"},
    {.name = "math", .kind = HJ_ENV_MODULE, .qualname = "math"},
    {.name = "range", .kind = HJ_ENV_BUILTIN, .qualname = "builtins.range"},
    {.name = "len", .kind = HJ_ENV_BUILTIN, .qualname = "builtins.len"},
    {.name = "abs", .kind = HJ_ENV_BUILTIN, .qualname = "builtins.abs"},
    {.name = "min", .kind = HJ_ENV_BUILTIN, .qualname = "builtins.min"},
    {.name = "max", .kind = HJ_ENV_BUILTIN, .qualname = "builtins.max"},
    {.name = "round", .kind = HJ_ENV_BUILTIN, .qualname = "builtins.round"},
    {.name = "enumerate", .kind = HJ_ENV_BUILTIN, .qualname = "builtins.enumerate"},
    {.name = "zip", .kind = HJ_ENV_BUILTIN, .qualname = "builtins.zip"},
    {.name = "ValueError", .kind = HJ_ENV_BUILTIN, .qualname = "builtins.ValueError"},
    {.name = "divmod", .kind = HJ_ENV_BUILTIN, .qualname = "builtins.divmod"},
    {.name = "fib", .kind = HJ_ENV_FUNC, .func = 0},
};

/* Compile `src` (function `name`) for argtypes and load its entry. */
static HjEntryFn compile_opts(const char *name, const char *src, const char *const *argtypes, int nargs,
                              HjOptions opt) {
    HjFunction f;
    memset(&f, 0, sizeof f);
    f.name = f.qualname = name;
    f.filename = "test_lower.py";
    f.source = src;
    f.first_line = 1;
    f.env = env;
    f.nenv = (int)(sizeof env / sizeof env[0]);
    f.options = opt;
    HjRequest req;
    memset(&req, 0, sizeof req);
    req.funcs = &f;
    req.nfuncs = 1;
    req.argtypes = argtypes;
    req.nargs = nargs;
    HjResult res;
    memset(&res, 0, sizeof res);
    if (hj_compile(&req, &res) != 0) {
        fprintf(stderr, "compile %s: %s\n", name, res.diag_message ? res.diag_message : "?");
        hj_result_free(&res);
        failures++;
        return NULL;
    }
    char *err = NULL;
    void *p = hj_jit_load(jit, res.object, res.object_size, res.entry_symbol, &err);
    if (!p) {
        fprintf(stderr, "load %s: %s\n", name, err ? err : "?");
        failures++;
    }
    free(err);
    hj_result_free(&res);
    return (HjEntryFn)(uintptr_t)p;
}

static HjEntryFn compile(const char *name, const char *src, const char *const *argtypes, int nargs) {
    HjOptions o;
    memset(&o, 0, sizeof o);
    return compile_opts(name, src, argtypes, nargs, o);
}

/* The pending exception's type after a failed call ("" when none). */
static const char *exc_type(void) {
    static char buf[64];
    const char *t = NULL, *m = NULL;
    if (!rt_exc_fetch(&t, &m))
        return "";
    snprintf(buf, sizeof buf, "%s", t ? t : "?");
    return buf;
}

typedef struct { int64_t a, b; } I2;
typedef struct { double a, b; } D2;

static void test_int_divmod(void) {
    const char *ll[] = {"l", "l"};
    HjEntryFn f = compile("dm", "def dm(a, b):\n    return a // b, a % b\n", ll, 2);
    if (!f)
        return;
    struct { int64_t a, b, q, r; } cases[] = {
        {7, 2, 3, 1}, {-7, 2, -4, 1}, {7, -2, -4, -1}, {-7, -2, 3, -1}, {6, -3, -2, 0},
        {INT64_MIN, -1, INT64_MIN, 0}, {0, 5, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        I2 r = {0, 0};
        void *args[2] = {&cases[i].a, &cases[i].b};
        CHECK(f(&r, args) == 0);
        CHECK(r.a == cases[i].q && r.b == cases[i].r);
    }
    int64_t a = 1, b = 0;
    I2 r;
    void *args[2] = {&a, &b};
    CHECK(f(&r, args) == -1);
    CHECK(strcmp(exc_type(), "ZeroDivisionError") == 0);
}

static void test_float_divmod(void) {
    const char *dd[] = {"d", "d"};
    HjEntryFn f = compile("fdm", "def fdm(a, b):\n    return a // b, a % b\n", dd, 2);
    if (!f)
        return;
    struct { double a, b, q, r; } cases[] = {
        {7.5, 2.0, 3.0, 1.5}, {-7.5, 2.0, -4.0, 0.5}, {7.5, -2.0, -4.0, -0.5}, {-7.5, -2.0, 3.0, -1.5},
        {1.0, 0.1, 9.0, 0.09999999999999995},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        D2 r = {0, 0};
        void *args[2] = {&cases[i].a, &cases[i].b};
        CHECK(f(&r, args) == 0);
        CHECK(r.a == cases[i].q && r.b == cases[i].r);
    }
    double a = -0.0, b = 3.0;
    D2 r;
    void *args[2] = {&a, &b};
    CHECK(f(&r, args) == 0 && r.a == 0.0 && signbit(r.a) && r.b == 0.0 && !signbit(r.b));
    b = 0.0;
    CHECK(f(&r, args) == -1);
    CHECK(strcmp(exc_type(), "ZeroDivisionError") == 0);

    HjOptions o;
    memset(&o, 0, sizeof o);
    o.error_model = 1;
    HjEntryFn g = compile_opts("fdn", "def fdn(a, b):\n    return a / b, a // b\n", dd, 2, o);
    if (g) {
        a = 1.0, b = 0.0;
        CHECK(g(&r, args) == 0 && isinf(r.a) && r.a > 0 && isinf(r.b) && r.b > 0);
    }
}

static void test_pow(void) {
    const char *ll[] = {"l", "l"};
    HjEntryFn f = compile("p", "def p(a, b):\n    return a ** b\n", ll, 2);
    if (!f)
        return;
    struct { int64_t a, b, r; } cases[] = {
        {3, 4, 81}, {2, 0, 1}, {-2, 3, -8}, {2, -1, 0}, {-1, -3, -1}, {1, -5, 1}, {3, 40, -6289078614652622815LL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t r = 0;
        void *args[2] = {&cases[i].a, &cases[i].b};
        CHECK(f(&r, args) == 0 && r == cases[i].r);
    }
    int64_t a = 0, b = -1, r;
    void *args[2] = {&a, &b};
    CHECK(f(&r, args) == -1);
    CHECK(strcmp(exc_type(), "ZeroDivisionError") == 0);
}

static void test_loops(void) {
    const char *lll[] = {"l", "l", "l"}, *l[] = {"l"};
    HjEntryFn f = compile("r", "def r(a, b, c):\n    s = 0\n    for i in range(a, b, c):\n        s += i\n    return s\n",
                          lll, 3);
    if (f) {
        struct { int64_t a, b, c, s; } cases[] = {
            {10, -3, -3, 20}, {0, 10, 1, 45}, {0, 10, 3, 18}, {5, 5, 1, 0}, {5, 0, 1, 0}, {-5, 5, 7, -3},
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            int64_t s = -99;
            void *args[3] = {&cases[i].a, &cases[i].b, &cases[i].c};
            CHECK(f(&s, args) == 0 && s == cases[i].s);
        }
        int64_t a = 0, b = 10, c = 0, s;
        void *args[3] = {&a, &b, &c};
        CHECK(f(&s, args) == -1);
        CHECK(strcmp(exc_type(), "ValueError") == 0);
    }
    HjEntryFn g = compile("fe",
                          "def fe(n):\n"
                          "    s = 0\n"
                          "    for i in range(n):\n"
                          "        if i == 5:\n"
                          "            break\n"
                          "        if i % 2:\n"
                          "            continue\n"
                          "        s += i\n"
                          "    else:\n"
                          "        s = -1\n"
                          "    k = 0\n"
                          "    while k < 3:\n"
                          "        k += 1\n"
                          "    else:\n"
                          "        s += 100\n"
                          "    return s\n",
                          l, 1);
    if (g) {
        int64_t n = 3, s = 0;
        void *args[1] = {&n};
        CHECK(g(&s, args) == 0 && s == 99);
        n = 10;
        CHECK(g(&s, args) == 0 && s == 106);
    }
}

static void test_compare_boolop(void) {
    const char *lll[] = {"l", "l", "l"};
    HjEntryFn f = compile("cc", "def cc(a, b, c):\n    return (a < b < c) + (a and b or c) * 10\n", lll, 3);
    if (!f)
        return;
    struct { int64_t a, b, c, r; } cases[] = {{1, 2, 3, 21}, {0, 2, 3, 31}, {3, 2, 1, 20}, {1, 0, 5, 50}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t r = 0;
        void *args[3] = {&cases[i].a, &cases[i].b, &cases[i].c};
        CHECK(f(&r, args) == 0 && r == cases[i].r);
    }
}

/* A 2-D float64 array struct as the entry ABI expects it. */
typedef struct {
    void *meminfo, *parent;
    int64_t nitems, itemsize;
    char *data;
    int64_t shape[2], strides[2];
} Arr2;

typedef struct {
    void *meminfo, *parent;
    int64_t nitems, itemsize;
    char *data;
    int64_t shape[1], strides[1];
} Arr1;

static void test_arrays(void) {
    static const char *src =
        "def asum(a):\n"
        "    s = 0.0\n"
        "    for i in range(a.shape[0]):\n"
        "        for j in range(a.shape[1]):\n"
        "            s += a[i, j] * (i + 1) + a[i, -1]\n"
        "    return s\n";
    double buf[24];
    for (int i = 0; i < 24; i++)
        buf[i] = i;
    /* logical 3x4 matrix m[i][j] = 10*i + j */
    double want = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            want += (10 * i + j) * (i + 1) + (10 * i + 3);
    const char *layouts[] = {"ad2C", "ad2F", "ad2A"};
    for (int k = 0; k < 3; k++) {
        const char *at[] = {layouts[k]};
        HjEntryFn f = compile("asum", src, at, 1);
        if (!f)
            continue;
        Arr2 a = {NULL, NULL, 12, 8, (char *)buf, {3, 4}, {0, 0}};
        if (k == 0) {
            a.strides[0] = 32, a.strides[1] = 8;
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 4; j++)
                    buf[i * 4 + j] = 10 * i + j;
        } else if (k == 1) {
            a.strides[0] = 8, a.strides[1] = 24;
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 4; j++)
                    buf[j * 3 + i] = 10 * i + j;
        } else { /* every other element, rows reversed */
            a.data = (char *)&buf[2 * 4 * 2];
            a.strides[0] = -64, a.strides[1] = 16;
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 4; j++)
                    buf[(2 - i) * 8 + 2 * j] = 10 * i + j;
        }
        double r = 0;
        void *args[1] = {&a};
        CHECK(f(&r, args) == 0 && r == want);
    }

    /* iteration over the first axis (views) with enumerate */
    const char *c2[] = {"ad2C"};
    HjEntryFn g = compile("it",
                          "def it(a):\n"
                          "    s = 0.0\n"
                          "    for i, row in enumerate(a):\n"
                          "        for x in row:\n"
                          "            s += x * i\n"
                          "    return s\n",
                          c2, 1);
    if (g) {
        for (int i = 0; i < 12; i++)
            buf[i] = i;
        Arr2 a = {NULL, NULL, 12, 8, (char *)buf, {3, 4}, {32, 8}};
        double r = 0;
        void *args[1] = {&a};
        CHECK(g(&r, args) == 0 && r == (4 + 5 + 6 + 7) + 2 * (8 + 9 + 10 + 11));
    }
}

static void test_alloc_and_refcount(void) {
    const char *l[] = {"l"};
    RtMemStats before = rt_memstats();
    HjEntryFn f = compile("mk",
                          "def mk(n):\n"
                          "    a = np.zeros((n, 2))\n"
                          "    for i in range(n):\n"
                          "        a[i, 0] = i\n"
                          "        a[i, 1] = -i\n"
                          "    b = a\n"
                          "    return b\n",
                          l, 1);
    if (f) {
        int64_t n = 5;
        Arr2 r;
        memset(&r, 0, sizeof r);
        void *args[1] = {&n};
        CHECK(f(&r, args) == 0);
        CHECK(r.meminfo != NULL && r.shape[0] == 5 && r.shape[1] == 2 && r.strides[0] == 16 && r.strides[1] == 8);
        CHECK(r.nitems == 10 && r.itemsize == 8);
        if (r.data) {
            double *d = (double *)r.data;
            CHECK(d[8] == 4.0 && d[9] == -4.0 && d[1] == 0.0);
        }
        CHECK(((HjMemInfo *)r.meminfo)->refcnt == 1);
        rt_decref(r.meminfo);
        n = -1;
        CHECK(f(&r, args) == -1);
        CHECK(strcmp(exc_type(), "ValueError") == 0);
    }
    HjEntryFn g = compile("churn",
                          "def churn(n):\n"
                          "    s = 0.0\n"
                          "    for i in range(n):\n"
                          "        a = np.ones(3)\n"
                          "        b = a\n"
                          "        c = np.arange(4)\n"
                          "        s += b[1] + np.empty(2).size + c[-1] + np.ones((2, 2))[1][0]\n"
                          "        if i == 700:\n"
                          "            return s\n"
                          "    return s\n",
                          l, 1);
    if (g) {
        int64_t n = 1000;
        double s = 0;
        void *args[1] = {&n};
        CHECK(g(&s, args) == 0 && s == 4907.0);
        n = 20;
        CHECK(g(&s, args) == 0 && s == 140.0);
    }
    RtMemStats after = rt_memstats();
    CHECK(after.alloc - before.alloc == after.free - before.free);
    CHECK(after.alloc - before.alloc >= 4 * 721);
}

static void test_exceptions_calls(void) {
    const char *l[] = {"l"};
    HjEntryFn f = compile("rz", "def rz(x):\n    if x < 0:\n        raise ValueError(\"neg\")\n    return x\n", l, 1);
    if (f) {
        int64_t x = -1, r = 0;
        void *args[1] = {&x};
        CHECK(f(&r, args) == -1);
        const char *t = NULL, *m = NULL;
        CHECK(rt_exc_fetch(&t, &m) && strcmp(t, "ValueError") == 0 && m && strcmp(m, "neg") == 0);
        x = 4;
        CHECK(f(&r, args) == 0 && r == 4);
    }
    HjEntryFn g = compile("fib", "def fib(n):\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n", l, 1);
    if (g) {
        int64_t n = 20, r = 0;
        void *args[1] = {&n};
        CHECK(g(&r, args) == 0 && r == 6765);
    }
    HjOptions o;
    memset(&o, 0, sizeof o);
    o.boundscheck = 1;
    const char *al[] = {"ad1C", "l"};
    HjEntryFn h = compile_opts("get", "def get(a, i):\n    return a[i]\n", al, 2, o);
    if (h) {
        double buf[5] = {1, 2, 3, 4, 5};
        Arr1 a = {NULL, NULL, 5, 8, (char *)buf, {5}, {8}};
        int64_t i = -5;
        double r = 0;
        void *args[2] = {&a, &i};
        CHECK(h(&r, args) == 0 && r == 1.0);
        i = 5;
        CHECK(h(&r, args) == -1);
        const char *t = NULL, *m = NULL;
        CHECK(rt_exc_fetch(&t, &m) && strcmp(t, "IndexError") == 0 && m && strstr(m, "5"));
    }
}

static void test_complex(void) {
    const char *DD[] = {"D", "D"};
    HjEntryFn f = compile("cm", "def cm(a, b):\n    return abs(a * b / (a - b)), a == b\n", DD, 2);
    if (!f)
        return;
    D2 a = {1.0, 2.0}, b = {3.0, -1.0};
    struct { double v; uint8_t eq; } r;
    void *args[2] = {&a, &b};
    CHECK(f(&r, args) == 0);
    /* (1+2j)*(3-1j) = 5+5j; a-b = -2+3j; |5+5j| / |-2+3j| */
    CHECK(fabs(r.v - sqrt(50.0) / sqrt(13.0)) < 1e-12 && r.eq == 0);
}

static void test_misc(void) {
    const char *ll[] = {"l", "l"};
    HjEntryFn f = compile("misc",
                          "def misc(a, b):\n"
                          "    q, r = divmod(a, b)\n"
                          "    t = (a, b, 3)\n"
                          "    s = 0\n"
                          "    for x in t:\n"
                          "        s += x\n"
                          "    if (n := s * 2) > 0 and a != 3:\n"
                          "        s += n\n"
                          "    a, b = b, a\n"
                          "    return q * 1000 + r * 100 + s + (a - b) * 100000\n",
                          ll, 2);
    if (!f)
        return;
    int64_t a = -7, b = 2, r = 0;
    void *args[2] = {&a, &b};
    /* divmod(-7, 2) = (-4, 1); s = -2; n = -4 (not > 0); swap: a - b = 9 */
    CHECK(f(&r, args) == 0 && r == -4000 + 100 - 2 + 900000);
    a = 2, b = 5;
    /* (0, 2); s = 10; n = 20 > 0 and a != 3: s = 30; a - b = 3 */
    CHECK(f(&r, args) == 0 && r == 0 + 200 + 30 + 300000);
}

int main(void) {
    char *err = NULL;
    const RtSymbol *rs = rt_symbols();
    int n = 0;
    while (rs[n].name)
        n++;
    HjSymbol *syms = calloc((size_t)n + 1, sizeof *syms);
    for (int i = 0; i < n; i++)
        syms[i].name = rs[i].name, syms[i].address = rs[i].address;
    jit = hj_jit_create(syms, n, &err);
    free(syms);
    if (!jit) {
        fprintf(stderr, "hj_jit_create: %s\n", err ? err : "?");
        return 1;
    }
    test_int_divmod();
    test_float_divmod();
    test_pow();
    test_loops();
    test_compare_boolop();
    test_arrays();
    test_alloc_and_refcount();
    test_exceptions_calls();
    test_complex();
    test_misc();
    hj_jit_destroy(jit);
    if (failures)
        fprintf(stderr, "%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
