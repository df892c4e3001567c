/* test_types.c - interning, unification, promotion, names, typecodes and
 * the parser of Numba type expressions (types.c). */
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

static Arena arena;
static TyCtx *tc;

static const char *name(const Type *t) { return t ? ty_str(&arena, t) : "NULL"; }

static void check_name(const Type *t, const char *want, int line) {
    const char *got = name(t);
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "%s:%d: got %s, want %s\n", __FILE__, line, got, want);
        failures++;
    }
}
#define NAME_IS(t, want) check_name((t), (want), __LINE__)

static Type *S(TyKind k) { return ty_scalar(tc, k); }

static Type *P(const char *s) {
    const char *err = NULL;
    Type *t = ty_parse(tc, s, NULL, &err);
    if (!t) {
        fprintf(stderr, "ty_parse(%s): %s\n", s, err ? err : "?");
        failures++;
    }
    return t;
}

static void test_interning(void) {
    CHECK(S(TY_INT64) == S(TY_INT64));
    Type *a = ty_array(tc, S(TY_FLOAT64), 2, LAYOUT_C);
    CHECK(a == ty_array(tc, S(TY_FLOAT64), 2, LAYOUT_C));
    CHECK(a != ty_array(tc, S(TY_FLOAT64), 2, LAYOUT_F));
    Type *el[2] = {S(TY_INT64), S(TY_FLOAT64)};
    Type *t1 = ty_tuple(tc, el, 2);
    Type *el2[2] = {S(TY_INT64), S(TY_FLOAT64)};
    CHECK(t1 == ty_tuple(tc, el2, 2));
    el2[0] = S(TY_FLOAT64); /* the interned copy does not alias the caller's array */
    NAME_IS(t1, "Tuple(int64, float64)");
    CHECK(ty_module(tc, "numpy") == ty_module(tc, "numpy"));
    CHECK(ty_module(tc, "numpy") != ty_module(tc, "math"));
    CHECK(ty_dtype(tc, S(TY_INT32)) == ty_dtype(tc, S(TY_INT32)));
    CHECK(ty_bits(S(TY_INT16)) == 16 && ty_bits(S(TY_BOOL)) == 1 && ty_bits(S(TY_COMPLEX128)) == 64);
    CHECK(ty_itemsize(S(TY_BOOL)) == 1 && ty_itemsize(S(TY_COMPLEX64)) == 8 &&
          ty_itemsize(S(TY_FLOAT32)) == 4);
}

static void test_unify(void) {
    NAME_IS(ty_unify(tc, S(TY_INT64), S(TY_FLOAT64)), "float64");
    NAME_IS(ty_unify(tc, S(TY_INT32), S(TY_INT64)), "int64");
    NAME_IS(ty_unify(tc, S(TY_INT64), S(TY_UINT64)), "float64");
    NAME_IS(ty_unify(tc, S(TY_INT8), S(TY_UINT8)), "int16");
    NAME_IS(ty_unify(tc, S(TY_UINT32), S(TY_INT32)), "int64");
    NAME_IS(ty_unify(tc, S(TY_BOOL), S(TY_INT32)), "int32");
    NAME_IS(ty_unify(tc, S(TY_INT16), S(TY_FLOAT32)), "float32");
    NAME_IS(ty_unify(tc, S(TY_INT32), S(TY_FLOAT32)), "float64");
    NAME_IS(ty_unify(tc, S(TY_FLOAT32), S(TY_COMPLEX64)), "complex64");
    NAME_IS(ty_unify(tc, S(TY_INT64), S(TY_COMPLEX64)), "complex128");
    NAME_IS(ty_unify(tc, S(TY_UNKNOWN), S(TY_INT8)), "int8");
    NAME_IS(ty_unify(tc, S(TY_NONE), S(TY_INT64)), "OptionalType(int64)");
    NAME_IS(ty_unify(tc, ty_unify(tc, S(TY_INT32), S(TY_NONE)), S(TY_FLOAT64)), "OptionalType(float64)");
    NAME_IS(ty_unify(tc, S(TY_NONE), ty_optional(tc, S(TY_INT8))), "OptionalType(int8)");
    CHECK(ty_unify(tc, S(TY_NONE), S(TY_RANGE)) == NULL);
    CHECK(ty_unify(tc, ty_optional(tc, S(TY_INT64)), P("float64[:]")) == NULL);
    CHECK(ty_can_convert(S(TY_NONE), ty_optional(tc, S(TY_INT64))));
    CHECK(ty_can_convert(ty_optional(tc, S(TY_INT32)), S(TY_FLOAT64)));
    NAME_IS(ty_unify(tc, P("float64[:, ::1]"), P("float64[::1, :]")), "array(float64, 2d, A)");
    CHECK(ty_unify(tc, P("float64[:]"), P("int64[:]")) == NULL);
    CHECK(ty_unify(tc, P("float64[:]"), P("float64[:, :]")) == NULL);
    NAME_IS(ty_unify(tc, P("UniTuple(int64, 2)"), P("Tuple(float64, int32)")), "Tuple(float64, int64)");
    CHECK(ty_unify(tc, P("UniTuple(int64, 2)"), P("UniTuple(int64, 3)")) == NULL);
}

static void test_promote(void) {
    NAME_IS(ty_promote_arith(tc, S(TY_INT8), S(TY_INT8)), "int64");
    NAME_IS(ty_promote_arith(tc, S(TY_BOOL), S(TY_BOOL)), "int64");
    NAME_IS(ty_promote_arith(tc, S(TY_UINT8), S(TY_UINT32)), "uint64");
    NAME_IS(ty_promote_arith(tc, S(TY_UINT64), S(TY_INT64)), "int64"); /* as Numba */
    NAME_IS(ty_promote_arith(tc, S(TY_FLOAT32), S(TY_FLOAT32)), "float32");
    NAME_IS(ty_promote_arith(tc, S(TY_FLOAT32), S(TY_INT16)), "float32");
    NAME_IS(ty_promote_arith(tc, S(TY_FLOAT32), S(TY_INT64)), "float64");
    NAME_IS(ty_promote_arith(tc, S(TY_INT64), S(TY_FLOAT64)), "float64");
    NAME_IS(ty_promote_arith(tc, S(TY_COMPLEX64), S(TY_FLOAT64)), "complex128");
    CHECK(ty_promote_arith(tc, S(TY_NONE), S(TY_INT64)) == NULL);
}

static void test_convert(void) {
    CHECK(ty_can_convert(S(TY_INT64), S(TY_FLOAT32)));
    CHECK(ty_can_convert(S(TY_FLOAT64), S(TY_COMPLEX128)));
    CHECK(!ty_can_convert(S(TY_COMPLEX128), S(TY_FLOAT64)));
    CHECK(ty_can_convert(P("float64[:, ::1]"), P("float64[:, :]")));
    CHECK(!ty_can_convert(P("float64[:, :]"), P("float64[:, ::1]")));
    CHECK(!ty_can_convert(P("float64[:]"), P("float32[:]")));
    CHECK(!ty_can_convert(S(TY_NONE), S(TY_INT64)));
    CHECK(ty_can_convert(P("UniTuple(int32, 2)"), P("Tuple(int64, float64)")));
}

static void test_parse(void) {
    NAME_IS(P("float64"), "float64");
    NAME_IS(P("f8"), "float64");
    NAME_IS(P("double"), "float64");
    NAME_IS(P("float_"), "float64");
    NAME_IS(P("i8"), "int64");
    NAME_IS(P("intp"), "int64");
    NAME_IS(P("uintp"), "uint64");
    NAME_IS(P("f4"), "float32");
    NAME_IS(P("i4"), "int32");
    NAME_IS(P("u1"), "uint8");
    NAME_IS(P("b1"), "bool");
    NAME_IS(P("boolean"), "bool");
    NAME_IS(P("complex128"), "complex128");
    NAME_IS(P("none"), "none");
    NAME_IS(P("float64[:]"), "array(float64, 1d, A)");
    NAME_IS(P("float64[::1]"), "array(float64, 1d, C)");
    NAME_IS(P("float64[:, ::1]"), "array(float64, 2d, C)");
    NAME_IS(P("float64[::1, :]"), "array(float64, 2d, F)");
    NAME_IS(P("int32[:, :, :]"), "array(int32, 3d, A)");
    NAME_IS(P(" numba.types.int64 [ : ] "), "array(int64, 1d, A)");
    NAME_IS(P("UniTuple(int64, 3)"), "UniTuple(int64 x 3)");
    NAME_IS(P("Tuple(int64, float64)"), "Tuple(int64, float64)");
    NAME_IS(P("Tuple(int64, UniTuple(f4, 2), float64[:])"),
            "Tuple(int64, UniTuple(float32 x 2), array(float64, 1d, A))");
    NAME_IS(P("array(float64, 2d, F)"), "array(float64, 2d, F)");

    const char *err = NULL, *end = NULL;
    CHECK(ty_parse(tc, "float65", NULL, &err) == NULL && err);
    err = NULL;
    CHECK(ty_parse(tc, "float64[:, ::1, :]", NULL, &err) == NULL && err);
    err = NULL;
    CHECK(ty_parse(tc, "float64[", NULL, &err) == NULL && err);
    err = NULL;
    CHECK(ty_parse(tc, "float64 x", NULL, &err) == NULL && err);
    Type *t = ty_parse(tc, "float64(int64)", &end, &err);
    CHECK(t == S(TY_FLOAT64) && end && strcmp(end, "(int64)") == 0);
    /* deep nesting is refused, not a stack overflow */
    char deep[4000];
    int n = 0;
    for (int i = 0; i < 600; i++)
        n += snprintf(deep + n, sizeof deep - (size_t)n, "Tuple(");
    snprintf(deep + n, sizeof deep - (size_t)n, "int64");
    err = NULL;
    CHECK(ty_parse(tc, deep, NULL, &err) == NULL && err);
}

static void roundtrip(const char *code) {
    const char *p = code;
    Type *t = ty_from_typecode(tc, &p);
    if (!t || *p) {
        fprintf(stderr, "typecode %s did not parse\n", code);
        failures++;
        return;
    }
    StrBuf b;
    sb_init(&b);
    ty_typecode(&b, t);
    if (strcmp(b.s ? b.s : "", code) != 0) {
        fprintf(stderr, "typecode %s came back as %s\n", code, b.s);
        failures++;
    }
    sb_free(&b);
}

static void test_typecodes(void) {
    const char *codes[] = {"?", "b", "h", "i", "l", "B", "H", "I", "L", "f", "d", "F", "D", "n",
                           "ad2C", "af1A", "a?3F", "(ll)", "(d(ad1C?)n)", "()", "td", "aD9A",
                           "Pl(l)", "Pn()", "P?(id?)", "(Pd(d)Pd(d))"};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        roundtrip(codes[i]);
    const char *bad[] = {"x", "a", "ad", "adZC", "ad2Q", "(ll", "t", "tx",
                         "P", "Pl", "Pl(l", "Pad1C(l)", "Pl(ad1C)", "PD(l)", "Pl(Pl(l))"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *p = bad[i];
        CHECK(ty_from_typecode(tc, &p) == NULL);
    }
    const char *p = "ad2C";
    NAME_IS(ty_from_typecode(tc, &p), "array(float64, 2d, C)");
    p = "(ll)";
    NAME_IS(ty_from_typecode(tc, &p), "UniTuple(int64 x 2)");
    p = "td";
    NAME_IS(ty_from_typecode(tc, &p), "dtype(float64)");
    p = "Pd(l?)"; /* FunctionType: Numba's name, interned */
    Type *fp = ty_from_typecode(tc, &p);
    NAME_IS(fp, "FunctionType[float64(int64, bool)]");
    p = "Pd(l?)";
    CHECK(ty_from_typecode(tc, &p) == fp);
    p = "Pd(l)";
    CHECK(ty_from_typecode(tc, &p) != fp);
}

/* Records (structured dtypes, typecode 'V'): round trip, Numba's names,
 * interning, field lookup, malformed codes. */
static void test_records(void) {
    const char *codes[] = {"V0:12:U{a1@0da2@8i}", "aV0:12:U{a1@0da2@8i}1C", "tV3:32:A{x@0iy@8db@16?c@20F}",
                           "V1:18:U{x@0in@4V2:6:U{p@0fq@4h}z@10d}", "V4:36:U{x@0iv@4x13,dm@28x22,2,h}",
                           "V5:30:U{a@0ds@8c10,u@18w3,}"};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        roundtrip(codes[i]);
    const char *p = "aV0:12:U{a1@0da2@8i}1C";
    Type *a = ty_from_typecode(tc, &p);
    NAME_IS(a, "unaligned array(Record(a1[type=float64;offset=0],a2[type=int32;offset=8];12;False), 1d, C)");
    p = "V0:12:U{a1@0da2@8i}";
    Type *r = ty_from_typecode(tc, &p);
    CHECK(a && r && a->dtype == r && ty_itemsize(r) == 12);
    CHECK(ty_record_field(r, "a2") == 1 && ty_record_field(r, "zz") == -1);
    p = "V4:36:U{x@0iv@4x13,dm@28x22,2,h}";
    NAME_IS(ty_from_typecode(tc, &p), "Record(x[type=int32;offset=0],v[type=nestedarray(float64, (3,));offset=4],"
                                      "m[type=nestedarray(int16, (2, 2));offset=28];36;False)");
    const char *bad[] = {"V", "V0", "V0:12:U", "V0:12:Q{}", "V0:12:U{a1@0d", "V0:12:U{@0d}", "V0:12:U{a@99d}",
                         "V0:12:U{a@0x0,d}", "V0:12:U{a@0n}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        p = bad[i];
        CHECK(ty_from_typecode(tc, &p) == NULL);
    }
}

int main(void) {
    arena_init(&arena);
    tc = ty_ctx_new(&arena);
    test_interning();
    test_unify();
    test_promote();
    test_convert();
    test_parse();
    test_typecodes();
    test_records();
    arena_free(&arena);
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("test_types: ok\n");
    return 0;
}
