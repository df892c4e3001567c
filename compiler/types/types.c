/* types.c - interned types, Numba's unification and promotion rules,
 * names, typecodes and the parser of Numba type expressions. */
#include "ast.h"
#include "hpcjit/abi.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ORDER: indexed by TyKind TY_BOOL..TY_COMPLEX128 (abi.h typecodes). */
static const char scalar_codes[] = "?bhilBHILefdFD";
static const char *const scalar_names[] = {
    "bool",   "int8",   "int16",   "int32",   "int64",     "uint8",      "uint16",
    "uint32", "uint64", "float16", "float32", "float64", "complex64", "complex128",
};

struct TyCtx {
    Arena *arena;
    Type *scalars[TY_COUNT];
    PtrVec compound; /* every non-scalar type made so far (linear search) */
};

TyCtx *ty_ctx_new(Arena *a) {
    TyCtx *tc = arena_alloc(a, sizeof *tc);
    if (a->oom)
        return tc;
    tc->arena = a;
    return tc;
}

static Type *new_type(TyCtx *tc, TyKind k) {
    Type *t = arena_alloc(tc->arena, sizeof *t);
    t->kind = k;
    return t;
}

Type *ty_scalar(TyCtx *tc, TyKind k) {
    if (k < 0 || k >= TY_COUNT)
        return NULL;
    if (!tc->scalars[k])
        tc->scalars[k] = new_type(tc, k);
    return tc->scalars[k];
}

static bool same_shape(const Type *a, const Type *b) {
    if (a->kind != b->kind)
        return false;
    if (ty_is_int(a)) /* only IntEnum members are interned among the integers */
        return a->func == b->func && (a->name != NULL) == (b->name != NULL);
    switch (a->kind) {
    case TY_TUPLE:
    case TY_FUNCSET:
    case TY_FUNCPTR:
    case TY_CLOSURE:
        if ((a->kind == TY_FUNCPTR && a->item != b->item) || (a->kind == TY_CLOSURE && a->func != b->func))
            return false;
        if (a->nelems != b->nelems || (a->fields != NULL) != (b->fields != NULL) || (a->fields && a->func != b->func))
            return false;
        for (int i = 0; i < a->nelems; i++)
            if (a->elems[i] != b->elems[i])
                return false;
        return true;
    case TY_ARRAY:
        if ((a->offsets != NULL) != (b->offsets != NULL) ||
            (a->offsets && memcmp(a->offsets, b->offsets, sizeof(int) * (size_t)a->ndim) != 0))
            return false;
        return a->dtype == b->dtype && a->ndim == b->ndim && a->layout == b->layout &&
               a->readonly == b->readonly && a->bytes == b->bytes;
    case TY_DTYPE:
    case TY_CPOINTER:
        return a->dtype == b->dtype;
    case TY_FUNCTION:
        return a->func == b->func;
    case TY_MODULE:
    case TY_EXC_CLASS:
    case TY_EXC_VALUE:
        return strcmp(a->name, b->name) == 0;
    case TY_BUILTIN:
        return a->builtin == b->builtin;
    case TY_BOUND_METHOD:
        return a->builtin == b->builtin && a->self_ty == b->self_ty;
    case TY_OPTIONAL:
        return a->base == b->base;
    case TY_JITCLASS:
        return a->func == b->func;
    case TY_CHARSEQ:
        return a->size == b->size && a->ndim == b->ndim;
    case TY_DATETIME:
    case TY_TIMEDELTA:
        return a->unit == b->unit;
    case TY_RECORD:
        if (a->func != b->func || a->nelems != b->nelems || a->size != b->size || a->aligned != b->aligned)
            return false;
        for (int i = 0; i < a->nelems; i++)
            if (a->elems[i] != b->elems[i] || a->offsets[i] != b->offsets[i] || strcmp(a->fields[i], b->fields[i]))
                return false;
        return true;
    case TY_LIST:
        return a->item == b->item && a->typed == b->typed;
    case TY_GENERATOR:
        return a->item == b->item;
    case TY_DICT:
    case TY_SET:
    case TY_DICT_VIEW:
        return a->key == b->key && a->item == b->item && a->ndim == b->ndim && a->typed == b->typed;
    default:
        return true;
    }
}

/* Return the interned copy of the probe `p` (a stack value). */
static Type *intern(TyCtx *tc, const Type *p) {
    for (int i = 0; i < tc->compound.len; i++) {
        Type *t = VEC_AT(tc->compound, i);
        if (same_shape(t, p))
            return t;
    }
    Type *t = new_type(tc, p->kind);
    *t = *p;
    if ((p->kind == TY_TUPLE || p->kind == TY_FUNCSET || p->kind == TY_FUNCPTR || p->kind == TY_RECORD ||
         p->kind == TY_CLOSURE) &&
        p->nelems > 0) {
        t->elems = arena_alloc(tc->arena, sizeof(Type *) * (size_t)p->nelems);
        if (!tc->arena->oom)
            memcpy(t->elems, p->elems, sizeof(Type *) * (size_t)p->nelems);
    }
    if (p->name)
        t->name = arena_strdup(tc->arena, p->name);
    if (p->fields) {
        t->fields = arena_alloc(tc->arena, sizeof(char *) * (size_t)(p->nelems + 1));
        for (int i = 0; !tc->arena->oom && i < p->nelems; i++)
            t->fields[i] = arena_strdup(tc->arena, p->fields[i]);
    }
    if (p->offsets) { /* a record's offsets, a nested array's shape */
        int n = p->kind == TY_RECORD ? p->nelems : p->ndim;
        t->offsets = arena_alloc(tc->arena, sizeof(int) * (size_t)(n + 1));
        if (!tc->arena->oom)
            memcpy(t->offsets, p->offsets, sizeof(int) * (size_t)n);
    }
    int d = 0;
    for (int i = 0; t->elems && i < t->nelems; i++)
        d = d > ty_depth(t->elems[i]) ? d : ty_depth(t->elems[i]);
    const Type *parts[] = {t->item, t->key, t->base, t->dtype, t->self_ty};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        d = d > ty_depth(parts[i]) ? d : ty_depth(parts[i]);
    t->depth = d + 1;
    vec_push(tc->arena, &tc->compound, t);
    return t;
}

Type *ty_optional(TyCtx *tc, Type *base) {
    if (base->kind == TY_OPTIONAL)
        return base;
    Type p = {.kind = TY_OPTIONAL, .base = base};
    return intern(tc, &p);
}

Type *ty_list(TyCtx *tc, Type *item) {
    Type p = {.kind = TY_LIST, .item = item};
    return intern(tc, &p);
}

Type *ty_dict(TyCtx *tc, Type *key, Type *value) {
    Type p = {.kind = TY_DICT, .key = key, .item = value};
    return intern(tc, &p);
}

Type *ty_typed_list(TyCtx *tc, Type *item) {
    Type p = {.kind = TY_LIST, .item = item, .typed = true};
    return intern(tc, &p);
}

Type *ty_typed_dict(TyCtx *tc, Type *key, Type *value) {
    Type p = {.kind = TY_DICT, .key = key, .item = value, .typed = true};
    return intern(tc, &p);
}

Type *ty_container_like(TyCtx *tc, const Type *proto, Type *key, Type *item) {
    switch (proto->kind) {
    case TY_LIST: return proto->typed ? ty_typed_list(tc, item) : ty_list(tc, item);
    case TY_DICT: return proto->typed ? ty_typed_dict(tc, key, item) : ty_dict(tc, key, item);
    default: return proto->typed ? ty_typed_set(tc, item) : ty_set(tc, item);
    }
}

Type *ty_set(TyCtx *tc, Type *item) {
    Type p = {.kind = TY_SET, .item = item};
    return intern(tc, &p);
}

Type *ty_typed_set(TyCtx *tc, Type *item) {
    Type p = {.kind = TY_SET, .item = item, .typed = true};
    return intern(tc, &p);
}

Type *ty_dict_view(TyCtx *tc, Type *key, Type *value, int view) {
    Type p = {.kind = TY_DICT_VIEW, .key = key, .item = value, .ndim = view};
    return intern(tc, &p);
}

Type *ty_generator(TyCtx *tc, Type *item) {
    Type p = {.kind = TY_GENERATOR, .item = item};
    return intern(tc, &p);
}

Type *ty_jitclass(TyCtx *tc, int id) {
    Type p = {.kind = TY_JITCLASS, .func = id};
    return intern(tc, &p);
}

bool ty_has_function(const Type *t) {
    if (!t)
        return false;
    if (t->kind == TY_FUNCTION || t->kind == TY_FUNCSET || t->kind == TY_CLOSURE)
        return true;
    if (t->kind == TY_OPTIONAL)
        return ty_has_function(t->base);
    if (t->kind == TY_LIST || t->kind == TY_SET || t->kind == TY_DICT)
        return ty_has_function(t->item) || (t->key && ty_has_function(t->key));
    if (t->kind == TY_TUPLE)
        for (int i = 0; i < t->nelems; i++)
            if (ty_has_function(t->elems[i]))
                return true;
    return false;
}

bool ty_has_float16(const Type *t) {
    if (!t)
        return false;
    switch (t->kind) {
    case TY_FLOAT16: return true;
    case TY_ARRAY: case TY_DTYPE: case TY_CPOINTER: return ty_has_float16(t->dtype);
    case TY_OPTIONAL: return ty_has_float16(t->base);
    case TY_LIST: case TY_SET: case TY_GENERATOR: return ty_has_float16(t->item);
    case TY_DICT: case TY_DICT_VIEW: return ty_has_float16(t->key) || ty_has_float16(t->item);
    case TY_TUPLE:
        for (int i = 0; i < t->nelems; i++)
            if (ty_has_float16(t->elems[i]))
                return true;
        return false;
    default: return false;
    }
}

bool ty_has_unknown(const Type *t) {
    if (!t || t->kind == TY_UNKNOWN)
        return true;
    if (t->kind == TY_DICT || t->kind == TY_DICT_VIEW)
        return ty_has_unknown(t->key) || ty_has_unknown(t->item);
    if (t->kind == TY_SET || t->kind == TY_GENERATOR)
        return ty_has_unknown(t->item);
    if (t->kind == TY_LIST)
        return ty_has_unknown(t->item);
    if (t->kind == TY_TUPLE || t->kind == TY_CLOSURE)
        for (int i = 0; i < t->nelems; i++)
            if (ty_has_unknown(t->elems[i]))
                return true;
    return false;
}

/* A type that may become Optional(t): a value other than None. */
static bool optionable(const Type *t) {
    /* a jitclass instance: None or a reference (recursive classes' optional(node_type) fields) */
    return ty_is_number(t) || ty_is_npdt(t) || t->kind == TY_ARRAY || t->kind == TY_TUPLE || t->kind == TY_STRING ||
           t->kind == TY_JITCLASS;
}

Type *ty_tuple(TyCtx *tc, Type **elems, int n) {
    Type p = {.kind = TY_TUPLE, .elems = elems, .nelems = n};
    return intern(tc, &p);
}

Type *ty_named_tuple(TyCtx *tc, Type **elems, int n, int cls_id, const char *name, const char **fields) {
    Type p = {.kind = TY_TUPLE, .elems = elems, .nelems = n, .fields = fields, .func = cls_id, .name = name};
    return intern(tc, &p);
}

Type *ty_intenum(TyCtx *tc, TyKind k, int cls_id, const char *name, bool flag) {
    Type p = {.kind = k, .func = cls_id, .name = name, .ndim = flag};
    return intern(tc, &p);
}

Type *ty_plain(TyCtx *tc, Type *t) {
    return ty_is_intenum(t) ? ty_scalar(tc, t->kind) : t;
}

Type *ty_array_ro(TyCtx *tc, Type *dtype, int ndim, Layout layout, bool readonly) {
    dtype = ty_plain(tc, dtype); /* np.array([Color.RED]) holds ints */
    /* Numba: a 0-d or 1-d array that is C or F contiguous is both; keep 'C'
     * for 1-d F so that equal arrays are the same type */
    if (ndim <= 1 && layout == LAYOUT_F)
        layout = LAYOUT_C;
    Type p = {.kind = TY_ARRAY, .dtype = dtype, .ndim = ndim, .layout = layout, .readonly = readonly};
    return intern(tc, &p);
}

Type *ty_bytes(TyCtx *tc, bool bytearray) {
    Type p = {.kind = TY_ARRAY, .dtype = ty_scalar(tc, TY_UINT8), .ndim = 1, .layout = LAYOUT_C,
              .readonly = !bytearray, .bytes = true};
    return intern(tc, &p);
}

Type *ty_array(TyCtx *tc, Type *dtype, int ndim, Layout layout) {
    return ty_array_ro(tc, dtype, ndim, layout, false);
}

Type *ty_set_readonly(TyCtx *tc, Type *t, bool readonly) {
    if (!t || t->kind != TY_ARRAY || t->readonly == readonly)
        return t;
    return ty_array_ro(tc, t->dtype, t->ndim, t->layout, readonly);
}

Type *ty_dtype(TyCtx *tc, Type *scalar) {
    Type p = {.kind = TY_DTYPE, .dtype = scalar};
    return intern(tc, &p);
}

Type *ty_cpointer(TyCtx *tc, Type *to) {
    Type p = {.kind = TY_CPOINTER, .dtype = to};
    return intern(tc, &p);
}

Type *ty_record(TyCtx *tc, int id, int n, const char **names, Type **elems, const int *offsets, int size,
                bool aligned) {
    Type p = {.kind = TY_RECORD, .func = id, .nelems = n, .fields = names, .elems = elems,
              .offsets = (int *)offsets, .size = size, .aligned = aligned};
    return intern(tc, &p);
}

Type *ty_nested_array(TyCtx *tc, Type *dtype, int ndim, const int *dims) {
    Type p = {.kind = TY_ARRAY, .dtype = dtype, .ndim = ndim, .layout = LAYOUT_C, .offsets = (int *)dims};
    return intern(tc, &p);
}

Type *ty_charseq(TyCtx *tc, int n, int width) {
    Type p = {.kind = TY_CHARSEQ, .size = n, .ndim = width};
    return intern(tc, &p);
}

int ty_record_field(const Type *t, const char *name) {
    for (int i = 0; t && t->kind == TY_RECORD && i < t->nelems; i++)
        if (strcmp(t->fields[i], name) == 0)
            return i;
    return -1;
}

Type *ty_function(TyCtx *tc, int func) {
    Type p = {.kind = TY_FUNCTION, .func = func};
    return intern(tc, &p);
}

Type *ty_closure(TyCtx *tc, int func, Type **env, int n) {
    Type p = {.kind = TY_CLOSURE, .func = func, .elems = env, .nelems = n};
    return intern(tc, &p);
}

Type *ty_funcptr(TyCtx *tc, Type *ret, Type **args, int n) {
    Type p = {.kind = TY_FUNCPTR, .item = ret, .elems = args, .nelems = n};
    return intern(tc, &p);
}

static int add_funcs(Type **out, int n, Type *t) {
    Type **fs = t->kind == TY_FUNCSET ? t->elems : &t;
    int k = t->kind == TY_FUNCSET ? t->nelems : 1;
    for (int i = 0; i < k; i++) {
        int j = 0;
        while (j < n && out[j]->func < fs[i]->func)
            j++;
        if (j < n && out[j] == fs[i])
            continue;
        memmove(out + j + 1, out + j, sizeof(Type *) * (size_t)(n - j));
        out[j] = fs[i];
        n++;
    }
    return n;
}

Type *ty_funcset_union(TyCtx *tc, Type *a, Type *b) {
    int na = a->kind == TY_FUNCSET ? a->nelems : 1, nb = b->kind == TY_FUNCSET ? b->nelems : 1;
    Type **el = arena_alloc(tc->arena, sizeof(Type *) * (size_t)(na + nb + 1));
    if (tc->arena->oom)
        return NULL;
    int n = add_funcs(el, 0, a);
    n = add_funcs(el, n, b);
    if (n == 1)
        return el[0];
    Type p = {.kind = TY_FUNCSET, .elems = el, .nelems = n};
    return intern(tc, &p);
}

int ty_funcset_index(const Type *fs, int func) {
    for (int i = 0; i < fs->nelems; i++)
        if (fs->elems[i]->func == func)
            return i;
    return -1;
}

Type *ty_module(TyCtx *tc, const char *name) {
    Type p = {.kind = TY_MODULE, .name = name};
    return intern(tc, &p);
}

Type *ty_builtin(TyCtx *tc, int builtin) {
    Type p = {.kind = TY_BUILTIN, .builtin = builtin};
    return intern(tc, &p);
}

Type *ty_exc_class(TyCtx *tc, const char *name) {
    Type p = {.kind = TY_EXC_CLASS, .name = name};
    return intern(tc, &p);
}

Type *ty_exc_value(TyCtx *tc, const char *name) {
    Type p = {.kind = TY_EXC_VALUE, .name = name};
    return intern(tc, &p);
}

/* ---- datetime64 / timedelta64 units ---- */

/* ORDER: DtUnit.  The typecode characters (abi.h): 'x' is ms, 'g' generic. */
static const char dt_unit_codes[] = "YMWDhmsxunpfag";
static const char *const dt_unit_names[] = {"Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as", ""};

Type *ty_datetime(TyCtx *tc, bool timedelta, int unit) {
    Type p = {.kind = timedelta ? TY_TIMEDELTA : TY_DATETIME, .unit = unit};
    return intern(tc, &p);
}

const char *ty_dt_unit_name(int unit) { return unit >= 0 && unit < DT_NUNITS ? dt_unit_names[unit] : "?"; }

char ty_dt_unit_code(int unit) { return unit >= 0 && unit < DT_NUNITS ? dt_unit_codes[unit] : '?'; }

int ty_dt_unit_parse(const char *s, size_t n) {
    for (int u = 0; u < DT_NUNITS; u++)
        if (strlen(dt_unit_names[u]) == n && strncmp(dt_unit_names[u], s, n) == 0)
            return u;
    return -1;
}

static int dt_unit_from_code(char c) {
    const char *p = c ? strchr(dt_unit_codes, c) : NULL;
    return p ? (int)(p - dt_unit_codes) : -1;
}

bool ty_dt_factor(int from, int to, int64_t *factor) {
    /* the step from each unit to the next finer one it divides into
     * exactly: Y->M 12, W->D 7, D->h 24, ...; M and the generic unit have
     * none (a month is no whole number of weeks) */
    static const int next[DT_NUNITS] = {DT_M, -1, DT_D, DT_h, DT_m, DT_s, DT_ms, DT_us, DT_ns, DT_ps, DT_fs, DT_as, -1, -1};
    static const int64_t mult[DT_NUNITS] = {12, 0, 7, 24, 60, 60, 1000, 1000, 1000, 1000, 1000, 1000, 0, 0};
    int64_t f = 1;
    if (from == DT_GENERIC) {
        *factor = 1;
        return true;
    }
    int u = from;
    while (u >= 0 && u < to) {
        f *= mult[u];
        u = next[u];
    }
    *factor = f;
    return u == to;
}

int ty_dt_best_unit(int a, int b) {
    if (a == DT_GENERIC)
        return b;
    if (b == DT_GENERIC)
        return a;
    return a > b ? a : b;
}

Type *ty_bound_method(TyCtx *tc, int builtin, Type *self_ty) {
    Type p = {.kind = TY_BOUND_METHOD, .builtin = builtin, .self_ty = self_ty};
    return intern(tc, &p);
}

int ty_bits(const Type *t) {
    switch (t->kind) {
    case TY_BOOL: return 1;
    case TY_INT8: case TY_UINT8: return 8;
    case TY_INT16: case TY_UINT16: case TY_FLOAT16: return 16;
    case TY_INT32: case TY_UINT32: case TY_FLOAT32: case TY_COMPLEX64: return 32;
    case TY_INT64: case TY_UINT64: case TY_FLOAT64: case TY_COMPLEX128: return 64;
    default: return 0;
    }
}

int ty_itemsize(const Type *t) {
    switch (t->kind) {
    case TY_BOOL: return 1;
    case TY_COMPLEX64: return 8;
    case TY_COMPLEX128: return 16;
    case TY_RECORD: return t->size;
    case TY_CHARSEQ: return t->size * t->ndim;
    case TY_DATETIME: case TY_TIMEDELTA: return 8;
    case TY_ARRAY: { /* a nested array: its bytes */
        int n = t->offsets ? ty_itemsize(t->dtype) : 0;
        for (int d = 0; t->offsets && d < t->ndim; d++)
            n *= t->offsets[d];
        return n;
    }
    default:
        if (ty_is_number(t))
            return ty_bits(t) / 8;
        return 0;
    }
}

/* ---- unification and promotion (Numba = NumPy's promote_types) ---- */

/* The float kind that holds every value of an integer/bool/float kind. */
static TyKind float_for(const Type *t) {
    switch (t->kind) {
    case TY_BOOL: case TY_INT8: case TY_INT16: case TY_UINT8: case TY_UINT16: case TY_FLOAT16: case TY_FLOAT32:
        return TY_FLOAT32;
    default:
        return TY_FLOAT64;
    }
}

/* float16 with float16, bool, int8 or uint8 stays float16 (NumPy's
 * promote_types, which numba-cuda follows); with anything wider it is
 * float_for's float32 (int16, float32) or float64. */
static bool half_with(const Type *h, const Type *o) {
    return h->kind == TY_FLOAT16 &&
           (o->kind == TY_FLOAT16 || o->kind == TY_BOOL || o->kind == TY_INT8 || o->kind == TY_UINT8);
}

static TyKind int_kind(bool is_signed, int bits) {
    if (is_signed)
        return bits <= 8 ? TY_INT8 : bits <= 16 ? TY_INT16 : bits <= 32 ? TY_INT32 : TY_INT64;
    return bits <= 8 ? TY_UINT8 : bits <= 16 ? TY_UINT16 : bits <= 32 ? TY_UINT32 : TY_UINT64;
}

static Type *unify_numbers(TyCtx *tc, Type *a, Type *b) {
    if (a == b)
        return a;
    if (a->kind == TY_BOOL)
        return b;
    if (b->kind == TY_BOOL)
        return a;
    if (ty_is_complex(a) || ty_is_complex(b)) {
        const Type *ra = ty_is_complex(a) ? (a->kind == TY_COMPLEX64 ? ty_scalar(tc, TY_FLOAT32) : ty_scalar(tc, TY_FLOAT64)) : a;
        const Type *rb = ty_is_complex(b) ? (b->kind == TY_COMPLEX64 ? ty_scalar(tc, TY_FLOAT32) : ty_scalar(tc, TY_FLOAT64)) : b;
        bool small = float_for(ra) == TY_FLOAT32 && float_for(rb) == TY_FLOAT32;
        return ty_scalar(tc, small ? TY_COMPLEX64 : TY_COMPLEX128);
    }
    if (half_with(a, b) || half_with(b, a))
        return ty_scalar(tc, TY_FLOAT16);
    if (ty_is_float(a) || ty_is_float(b)) {
        bool small = float_for(a) == TY_FLOAT32 && float_for(b) == TY_FLOAT32;
        return ty_scalar(tc, small ? TY_FLOAT32 : TY_FLOAT64);
    }
    /* two integers */
    if (ty_is_signed(a) == ty_is_signed(b))
        return ty_bits(a) >= ty_bits(b) ? a : b;
    const Type *s = ty_is_signed(a) ? a : b, *u = ty_is_signed(a) ? b : a;
    if (ty_bits(s) > ty_bits(u))
        return (Type *)s;
    if (ty_bits(u) == 64)
        return ty_scalar(tc, TY_FLOAT64);
    return ty_scalar(tc, int_kind(true, ty_bits(u) * 2));
}

/* A container's key or item: equal, or one of them not fully known yet. */
static Type *unify_part(TyCtx *tc, Type *a, Type *b) {
    if (a == b)
        return a;
    return ty_has_unknown(a) || ty_has_unknown(b) ? ty_unify(tc, a, b) : NULL;
}

Type *ty_unify(TyCtx *tc, Type *a, Type *b) {
    if (!a || !b)
        return NULL;
    if (a == b)
        return a;
    if (a->kind == TY_UNKNOWN)
        return b;
    if (b->kind == TY_UNKNOWN)
        return a;
    if (ty_is_intenum(a) || ty_is_intenum(b)) {
        /* members of two IntEnum classes do not unify (Numba: "Can't unify");
         * a member and a number unify as the plain integer */
        if (ty_is_intenum(a) && ty_is_intenum(b))
            return NULL;
        if (ty_is_number(a) && ty_is_number(b))
            return unify_numbers(tc, ty_plain(tc, a), ty_plain(tc, b));
    }
    if (ty_is_number(a) && ty_is_number(b))
        return unify_numbers(tc, a, b);
    if (a->kind == TY_NONE || b->kind == TY_NONE || a->kind == TY_OPTIONAL || b->kind == TY_OPTIONAL) {
        /* none+T, Optional(T)+U, Optional+none: Optional of the values' unification */
        Type *x = a->kind == TY_OPTIONAL ? a->base : a, *y = b->kind == TY_OPTIONAL ? b->base : b;
        Type *u = x->kind == TY_NONE ? y : y->kind == TY_NONE ? x : ty_unify(tc, x, y);
        return u && optionable(u) ? ty_optional(tc, u) : NULL;
    }
    if ((a->kind == TY_FUNCTION || a->kind == TY_FUNCSET) && (b->kind == TY_FUNCTION || b->kind == TY_FUNCSET))
        return ty_funcset_union(tc, a, b);
    if (a->kind != b->kind)
        return NULL;
    switch (a->kind) {
    case TY_DATETIME:
    case TY_TIMEDELTA: { /* the finer unit, when the coarser one converts to it */
        int64_t f;
        int best = ty_dt_best_unit(a->unit, b->unit);
        Type *fine = best == a->unit ? a : b, *coarse = fine == a ? b : a;
        return ty_dt_factor(coarse->unit, fine->unit, &f) ? fine : NULL;
    }
    case TY_ARRAY:
        if (a->dtype != b->dtype || a->ndim != b->ndim)
            return NULL;
        if (a->bytes && b->bytes) /* bytes and bytearray: a read-only buffer */
            return a->readonly == b->readonly ? a : ty_bytes(tc, false);
        return ty_array_ro(tc, a->dtype, a->ndim, a->layout == b->layout ? a->layout : LAYOUT_A,
                           a->readonly || b->readonly);
    case TY_TUPLE: {
        if (a->nelems != b->nelems || (a->fields != NULL) != (b->fields != NULL) || (a->fields && a->func != b->func))
            return NULL;
        Type **el = arena_alloc(tc->arena, sizeof(Type *) * (size_t)(a->nelems + 1));
        for (int i = 0; i < a->nelems; i++) {
            el[i] = ty_unify(tc, a->elems[i], b->elems[i]);
            if (!el[i])
                return NULL;
        }
        if (a->fields)
            return ty_named_tuple(tc, el, a->nelems, a->func, a->name, a->fields);
        return ty_tuple(tc, el, a->nelems);
    }
    case TY_LIST: {
        /* only an unknown item type (an empty list) is filled in: as Numba,
         * list(int64) and list(float64) do not unify */
        if ((!ty_has_unknown(a->item) && !ty_has_unknown(b->item)) || a->typed != b->typed)
            return NULL;
        Type *u = ty_unify(tc, a->item, b->item);
        return u ? ty_container_like(tc, a, NULL, u) : NULL;
    }
    case TY_DICT:
    case TY_SET: {
        /* as lists: only unknown parts (an empty {} or set()) are filled in */
        Type *k = a->kind == TY_DICT ? unify_part(tc, a->key, b->key) : NULL;
        Type *v = unify_part(tc, a->item, b->item);
        if (!v || (a->kind == TY_DICT && !k) || a->typed != b->typed)
            return NULL;
        return ty_container_like(tc, a, k, v);
    }
    default:
        return NULL; /* distinct interned types of the same kind */
    }
}

/* The float an integer or bool converts to without loss in NumPy's rules. */
static Type *np_float_for(TyCtx *tc, Type *t) {
    if (ty_is_complex(t))
        return ty_scalar(tc, t->kind == TY_COMPLEX64 ? TY_FLOAT32 : TY_FLOAT64);
    if (ty_is_float(t))
        return t;
    return ty_scalar(tc, (t->kind == TY_BOOL || ty_bits(t) <= 16) ? TY_FLOAT32 : TY_FLOAT64);
}

Type *ty_np_promote(TyCtx *tc, Type *a, Type *b) {
    a = ty_plain(tc, a);
    b = ty_plain(tc, b);
    if (a == b)
        return a;
    if (a->kind == TY_BOOL)
        return b;
    if (b->kind == TY_BOOL)
        return a;
    if (ty_is_complex(a) || ty_is_complex(b)) {
        Type *f = ty_np_promote(tc, np_float_for(tc, a), np_float_for(tc, b));
        return ty_scalar(tc, f->kind == TY_FLOAT32 ? TY_COMPLEX64 : TY_COMPLEX128);
    }
    if (half_with(a, b) || half_with(b, a))
        return ty_scalar(tc, TY_FLOAT16);
    if (ty_is_float(a) || ty_is_float(b)) {
        Type *fa = np_float_for(tc, a), *fb = np_float_for(tc, b);
        return ty_bits(fa) >= ty_bits(fb) ? fa : fb;
    }
    if (ty_is_signed(a) == ty_is_signed(b))
        return ty_bits(a) >= ty_bits(b) ? a : b;
    Type *s = ty_is_signed(a) ? a : b, *u = ty_is_signed(a) ? b : a;
    if (ty_bits(u) < ty_bits(s))
        return s;
    switch (ty_bits(u)) {
    case 8: return ty_scalar(tc, TY_INT16);
    case 16: return ty_scalar(tc, TY_INT32);
    case 32: return ty_scalar(tc, TY_INT64);
    default: return ty_scalar(tc, TY_FLOAT64);
    }
}

Type *ty_promote_arith(TyCtx *tc, Type *a, Type *b) {
    if (!ty_is_number(a) || !ty_is_number(b))
        return NULL;
    if (ty_is_complex(a) || ty_is_complex(b) || ty_is_float(a) || ty_is_float(b))
        return unify_numbers(tc, a, b);
    /* integers (and bools) compute in 64 bits: unsigned only when both are */
    if (ty_is_unsigned(a) && ty_is_unsigned(b))
        return ty_scalar(tc, TY_UINT64);
    return ty_scalar(tc, TY_INT64);
}

/* `to` is `from` with unknown parts filled in. */
static bool fills(const Type *from, const Type *to) {
    if (from == to || from->kind == TY_UNKNOWN)
        return true;
    if (from->kind != to->kind || from->typed != to->typed)
        return false;
    if (from->kind == TY_LIST || from->kind == TY_SET)
        return fills(from->item, to->item);
    if (from->kind == TY_DICT)
        return fills(from->key, to->key) && fills(from->item, to->item);
    if (from->kind != TY_TUPLE || from->nelems != to->nelems)
        return false;
    for (int i = 0; i < from->nelems; i++)
        if (!fills(from->elems[i], to->elems[i]))
            return false;
    return true;
}

bool ty_can_convert(const Type *from, const Type *to) {
    if (!from || !to)
        return false;
    if (from == to)
        return true;
    if (from->kind == TY_UNKNOWN)
        return true;
    if (ty_is_number(from) && ty_is_number(to))
        return !(ty_is_complex(from) && !ty_is_complex(to));
    if (to->kind == TY_OPTIONAL)
        return from->kind == TY_NONE || ty_can_convert(from->kind == TY_OPTIONAL ? from->base : from, to->base);
    if (from->kind == TY_OPTIONAL)
        return ty_can_convert(from->base, to); /* checked not None at run time */
    if (to->kind == TY_FUNCPTR && from->kind == TY_FUNCTION)
        return true; /* specialised for the signature where it converts (infer.c funcptr_cast) */
    if (to->kind == TY_FUNCSET && (from->kind == TY_FUNCTION || from->kind == TY_FUNCSET)) {
        for (int i = 0; i < (from->kind == TY_FUNCSET ? from->nelems : 1); i++)
            if (ty_funcset_index(to, from->kind == TY_FUNCSET ? from->elems[i]->func : from->func) < 0)
                return false;
        return true;
    }
    if (from->kind != to->kind)
        return false;
    switch (from->kind) {
    case TY_ARRAY:
        return from->dtype == to->dtype && from->ndim == to->ndim && (!from->readonly || to->readonly) &&
               (from->bytes || !to->bytes) &&
               (to->layout == LAYOUT_A || from->layout == to->layout);
    case TY_TUPLE:
        /* a named tuple converts to a plain tuple (unpacking), not back */
        if (from->nelems != to->nelems || (!from->fields && to->fields) ||
            (from->fields && to->fields && from->func != to->func))
            return false;
        for (int i = 0; i < from->nelems; i++)
            if (!ty_can_convert(from->elems[i], to->elems[i]))
                return false;
        return true;
    case TY_NONE:
    case TY_RANGE:
        return true;
    case TY_CPOINTER: /* any pointer is a void* */
        return from->dtype == to->dtype || !to->dtype;
    case TY_DATETIME:
    case TY_TIMEDELTA: { /* to a finer unit by an integer factor */
        int64_t f;
        return ty_dt_factor(from->unit, to->unit, &f);
    }
    case TY_LIST: /* an empty list takes the item type it is given */
    case TY_DICT:
    case TY_SET:
        return fills(from, to);
    default:
        return false;
    }
}

/* ---- names ---- */

void ty_name(StrBuf *b, const Type *t) {
    if (!t) {
        sb_puts(b, "<null>");
        return;
    }
    if (ty_is_intenum(t)) { /* Numba's IntEnumMember */
        sb_printf(b, "IntEnum<%s>(%s)", scalar_names[t->kind - TY_BOOL], t->name);
        return;
    }
    if (ty_is_number(t)) {
        sb_puts(b, scalar_names[t->kind - TY_BOOL]);
        return;
    }
    switch (t->kind) {
    case TY_UNKNOWN: sb_puts(b, "undefined"); break;
    case TY_NONE: sb_puts(b, "none"); break;
    case TY_RANGE: sb_puts(b, "range"); break;
    case TY_STRING: sb_puts(b, "unicode"); break;
    case TY_CPOINTER:
        if (t->dtype)
            ty_name(b, t->dtype);
        else
            sb_puts(b, "void");
        sb_putc(b, '*');
        break;
    case TY_NPGENERATOR: sb_puts(b, "NumPyRandomGeneratorType"); break;
    case TY_TUPLE: {
        if (t->fields) { /* Numba: "Point(int64, float64)" */
            sb_printf(b, "%s(", t->name ? t->name : "namedtuple");
            for (int i = 0; i < t->nelems; i++) {
                if (i)
                    sb_puts(b, ", ");
                ty_name(b, t->elems[i]);
            }
            sb_putc(b, ')');
            break;
        }
        bool uni = t->nelems > 0;
        for (int i = 1; i < t->nelems; i++)
            if (t->elems[i] != t->elems[0])
                uni = false;
        if (uni) {
            sb_puts(b, "UniTuple(");
            ty_name(b, t->elems[0]);
            sb_printf(b, " x %d)", t->nelems);
        } else {
            sb_puts(b, "Tuple(");
            for (int i = 0; i < t->nelems; i++) {
                if (i)
                    sb_puts(b, ", ");
                ty_name(b, t->elems[i]);
            }
            sb_putc(b, ')');
        }
        break;
    }
    case TY_CHARSEQ: sb_printf(b, "[%s x %d]", t->ndim == 1 ? "char" : "unichr", t->size); break;
    case TY_DATETIME: sb_printf(b, "datetime64[%s]", ty_dt_unit_name(t->unit)); break;
    case TY_TIMEDELTA: sb_printf(b, "timedelta64[%s]", ty_dt_unit_name(t->unit)); break;
    case TY_RECORD: /* Numba: "Record(a[type=float64;offset=0],b[type=int32;offset=8];12;False)" */
        sb_puts(b, "Record(");
        for (int i = 0; i < t->nelems; i++) {
            sb_printf(b, "%s%s[type=", i ? "," : "", t->fields[i]);
            ty_name(b, t->elems[i]);
            sb_printf(b, ";offset=%d]", t->offsets[i]);
        }
        sb_printf(b, ";%d;%s)", t->size, t->aligned ? "True" : "False");
        break;
    case TY_ARRAY:
        if (t->offsets) { /* a record's subarray field: "nestedarray(float64, (3,))" */
            sb_puts(b, "nestedarray(");
            ty_name(b, t->dtype);
            sb_puts(b, ", (");
            for (int d = 0; d < t->ndim; d++)
                sb_printf(b, "%s%d", d ? ", " : "", t->offsets[d]);
            sb_puts(b, t->ndim == 1 ? ",))" : "))");
            break;
        }
        if (ty_is_record(t->dtype) && !t->dtype->aligned) /* Numba's order */
            sb_puts(b, "unaligned ");
        if (t->readonly)
            sb_puts(b, "readonly ");
        sb_puts(b, t->bytes ? (t->readonly ? "bytes(" : "bytearray(") : "array(");
        ty_name(b, t->dtype);
        sb_printf(b, ", %dd, %c)", t->ndim, (char)t->layout);
        break;
    case TY_DTYPE:
        sb_puts(b, "dtype(");
        ty_name(b, t->dtype);
        sb_putc(b, ')');
        break;
    case TY_FUNCTION:
        if (t->name)
            sb_printf(b, "function(%s)", t->name);
        else
            sb_printf(b, "function(#%d)", t->func);
        break;
    case TY_CLOSURE: /* the inner function's name is its lifted one (closures.py) */
        sb_puts(b, "closure(");
        if (t->name)
            sb_puts(b, t->name);
        else
            sb_printf(b, "#%d", t->func);
        sb_puts(b, " over (");
        for (int i = 0; i < t->nelems; i++) {
            if (i)
                sb_puts(b, ", ");
            ty_name(b, t->elems[i]);
        }
        sb_puts(b, "))");
        break;
    case TY_FUNCPTR: /* Numba: "FunctionType[int64(int64, float64)]" */
        sb_puts(b, "FunctionType[");
        ty_name(b, t->item);
        sb_putc(b, '(');
        for (int i = 0; i < t->nelems; i++) {
            if (i)
                sb_puts(b, ", ");
            ty_name(b, t->elems[i]);
        }
        sb_puts(b, ")]");
        break;
    case TY_FUNCSET:
        sb_puts(b, "FunctionSet(");
        for (int i = 0; i < t->nelems; i++) {
            if (i)
                sb_puts(b, ", ");
            ty_name(b, t->elems[i]);
        }
        sb_putc(b, ')');
        break;
    case TY_OPTIONAL:
        sb_puts(b, "OptionalType(");
        ty_name(b, t->base);
        sb_putc(b, ')');
        break;
    case TY_LIST:
        sb_puts(b, t->typed ? "ListType[" : "reflected list(");
        ty_name(b, t->item);
        sb_putc(b, t->typed ? ']' : ')');
        break;
    case TY_DICT:
    case TY_DICT_VIEW:
        if (t->kind == TY_DICT_VIEW)
            sb_puts(b, t->ndim == 0 ? "dict_keys[" : t->ndim == 1 ? "dict_values[" : "dict_items[");
        sb_puts(b, "DictType[");
        ty_name(b, t->key);
        sb_putc(b, ',');
        ty_name(b, t->item);
        sb_puts(b, t->kind == TY_DICT_VIEW ? "]]" : "]");
        break;
    case TY_SET:
        sb_puts(b, t->typed ? "SetType[" : "reflected set(");
        ty_name(b, t->item);
        sb_putc(b, t->typed ? ']' : ')');
        break;
    case TY_GENERATOR:
        sb_puts(b, "generator(");
        ty_name(b, t->item);
        sb_putc(b, ')');
        break;
    case TY_JITCLASS: sb_printf(b, "instance.jitclass%s%s#%d", t->name ? "." : "", t->name ? t->name : "", t->func); break;
    case TY_MODULE: sb_printf(b, "Module(%s)", t->name); break;
    case TY_BUILTIN: sb_printf(b, "Function(%s)", builtin_name((BuiltinId)t->builtin)); break;
    case TY_EXC_CLASS: sb_printf(b, "class(%s)", t->name); break;
    case TY_EXC_VALUE: sb_printf(b, "%s(...)", t->name); break;
    case TY_BOUND_METHOD:
        sb_printf(b, "BoundFunction(%s for ", builtin_name((BuiltinId)t->builtin));
        ty_name(b, t->self_ty);
        sb_putc(b, ')');
        break;
    default: sb_puts(b, "?"); break;
    }
}

const char *ty_str(Arena *a, const Type *t) {
    StrBuf b;
    sb_init(&b);
    ty_name(&b, t);
    const char *s = arena_strdup(a, b.s ? b.s : "");
    sb_free(&b);
    return s;
}

/* ---- typecodes ---- */

void ty_typecode(StrBuf *b, const Type *t) {
    if (ty_is_intenum(t)) { /* the named tuple of its integer (types.h ty_intenum) */
        sb_printf(b, "N%d:%s:%s:(%c)", t->func, t->name, ty_is_intflag(t) ? TY_INTFLAG_FIELD : TY_INTENUM_FIELD,
                  scalar_codes[t->kind - TY_BOOL]);
        return;
    }
    if (ty_is_number(t)) {
        sb_putc(b, scalar_codes[t->kind - TY_BOOL]);
        return;
    }
    switch (t->kind) {
    case TY_NONE: sb_putc(b, 'n'); break;
    case TY_ARRAY:
        if (t->offsets) { /* a record's subarray field: 'x' ndim (dim ',')* dtype */
            sb_printf(b, "x%c", (char)('0' + t->ndim));
            for (int d = 0; d < t->ndim; d++)
                sb_printf(b, "%d,", t->offsets[d]);
            ty_typecode(b, t->dtype);
            break;
        }
        if (t->bytes) {
            sb_putc(b, t->readonly ? 'y' : 'Y');
            break;
        }
        sb_putc(b, t->readonly ? 'r' : 'a');
        ty_typecode(b, t->dtype);
        sb_putc(b, (char)('0' + t->ndim));
        sb_putc(b, (char)t->layout);
        break;
    case TY_TUPLE:
        if (t->fields) { /* 'N' id ':' name ':' field,field ':' then the tuple (abi.h) */
            sb_printf(b, "N%d:%s:", t->func, t->name ? t->name : "");
            for (int i = 0; i < t->nelems; i++) {
                if (i)
                    sb_putc(b, ',');
                sb_puts(b, t->fields[i]);
            }
            sb_putc(b, ':');
        }
        sb_putc(b, '(');
        for (int i = 0; i < t->nelems; i++)
            ty_typecode(b, t->elems[i]);
        sb_putc(b, ')');
        break;
    case TY_DTYPE:
        sb_putc(b, 't');
        ty_typecode(b, t->dtype);
        break;
    case TY_OPTIONAL:
        sb_putc(b, 'o');
        ty_typecode(b, t->base);
        break;
    case TY_DICT:
        sb_putc(b, t->typed ? '&' : '{');
        ty_typecode(b, t->key);
        ty_typecode(b, t->item);
        break;
    case TY_SET:
        sb_putc(b, t->typed ? '%' : '<');
        ty_typecode(b, t->item);
        break;
    case TY_GENERATOR:
        sb_putc(b, 'G');
        ty_typecode(b, t->item);
        break;
    case TY_JITCLASS:
        sb_printf(b, "J%d", t->func);
        break;
    case TY_LIST:
        sb_putc(b, t->typed ? '#' : '[');
        ty_typecode(b, t->item);
        break;
    case TY_STRING: sb_putc(b, 's'); break;
    case TY_CPOINTER: /* 'p' <dtype> or "pv" (void*) */
        sb_putc(b, 'p');
        if (t->dtype)
            ty_typecode(b, t->dtype);
        else
            sb_putc(b, 'v');
        break;
    case TY_NPGENERATOR: sb_putc(b, 'R'); break;
    case TY_FUNCPTR: /* 'P' ret '(' args ')' (abi.h) */
        sb_putc(b, 'P');
        ty_typecode(b, t->item);
        sb_putc(b, '(');
        for (int i = 0; i < t->nelems; i++)
            ty_typecode(b, t->elems[i]);
        sb_putc(b, ')');
        break;
    case TY_DATETIME: sb_printf(b, "M%c", ty_dt_unit_code(t->unit)); break;
    case TY_TIMEDELTA: sb_printf(b, "m%c", ty_dt_unit_code(t->unit)); break;
    case TY_CHARSEQ: sb_printf(b, "%c%d,", t->ndim == 1 ? 'c' : 'w', t->size); break;
    case TY_RECORD: /* 'V' id ':' size ':' A|U '{' (name '@' offset typecode)* '}' (abi.h) */
        sb_printf(b, "V%d:%d:%c{", t->func, t->size, t->aligned ? 'A' : 'U');
        for (int i = 0; i < t->nelems; i++) {
            sb_printf(b, "%s@%d", t->fields[i], t->offsets[i]);
            ty_typecode(b, t->elems[i]);
        }
        sb_putc(b, '}');
        break;
    default:
        break; /* no value crosses the boundary */
    }
}

static Type *scalar_from_code(TyCtx *tc, char c) {
    const char *p = c ? strchr(scalar_codes, c) : NULL;
    return p ? ty_scalar(tc, (TyKind)(TY_BOOL + (p - scalar_codes))) : NULL;
}

/* A number code, or a datetime64/timedelta64 'M'|'m' <unit>: an array's
 * element, a dtype object's scalar; advances *s. */
static Type *elem_from_code(TyCtx *tc, const char **s) {
    const char *p = *s;
    if (*p == 'M' || *p == 'm') {
        int u = dt_unit_from_code(p[1]);
        if (u < 0)
            return NULL;
        *s = p + 2;
        return ty_datetime(tc, *p == 'm', u);
    }
    Type *t = scalar_from_code(tc, *p);
    if (t)
        *s = p + 1;
    return t;
}

static Type *from_typecode(TyCtx *tc, const char **p, int depth);

/* 'V' id ':' size ':' A|U '{' (name '@' offset typecode)* '}' */
static Type *record_from_typecode(TyCtx *tc, const char **p, int depth) {
    const char *s = *p + 1;
    char *end = NULL;
    long id = strtol(s, &end, 10), size = 0;
    if (end == s || *end != ':')
        return NULL;
    s = end + 1;
    size = strtol(s, &end, 10);
    if (end == s || *end != ':' || (end[1] != 'A' && end[1] != 'U') || end[2] != '{')
        return NULL;
    bool aligned = end[1] == 'A';
    s = end + 3;
    PtrVec names = {0}, elems = {0};
    int cap = 8, n = 0;
    int *offs = arena_alloc(tc->arena, sizeof(int) * (size_t)cap);
    while (*s && *s != '}') {
        const char *at = strchr(s, '@');
        if (!at || at == s)
            return NULL;
        char *nm = arena_alloc(tc->arena, (size_t)(at - s) + 1);
        if (tc->arena->oom)
            return NULL;
        memcpy(nm, s, (size_t)(at - s));
        nm[at - s] = '\0';
        s = at + 1;
        long off = strtol(s, &end, 10);
        if (end == s || off < 0 || off >= size)
            return NULL;
        s = end;
        Type *ft = NULL;
        if (*s == 'x') { /* a subarray field: 'x' ndim (dim ',')* dtype */
            int nd = s[1] - '0';
            if (nd < 1 || nd > HJ_MAX_NDIM)
                return NULL;
            int *dims = arena_alloc(tc->arena, sizeof(int) * (size_t)nd);
            s += 2;
            for (int d = 0; d < nd && !tc->arena->oom; d++) {
                long v = strtol(s, &end, 10);
                if (end == s || *end != ',' || v < 0)
                    return NULL;
                dims[d] = (int)v;
                s = end + 1;
            }
            Type *et = scalar_from_code(tc, *s++);
            ft = et && !tc->arena->oom ? ty_nested_array(tc, et, nd, dims) : NULL;
        } else if (*s == 'c' || *s == 'w') { /* a character sequence: 'c'|'w' count ',' */
            bool wide = *s == 'w';
            long cnt = strtol(s + 1, &end, 10);
            if (end == s + 1 || *end != ',' || cnt < 0)
                return NULL;
            s = end + 1;
            ft = ty_charseq(tc, (int)cnt, wide ? 4 : 1);
        } else {
            ft = from_typecode(tc, &s, depth + 1);
        }
        if (!ft || !(ty_is_number(ft) || ft->kind == TY_RECORD || ty_is_nested_array(ft) || ft->kind == TY_CHARSEQ))
            return NULL;
        if (n == cap) {
            int *bigger = arena_alloc(tc->arena, sizeof(int) * (size_t)cap * 2);
            if (tc->arena->oom)
                return NULL;
            memcpy(bigger, offs, sizeof(int) * (size_t)cap);
            offs = bigger;
            cap *= 2;
        }
        offs[n++] = (int)off;
        vec_push(tc->arena, &names, nm);
        vec_push(tc->arena, &elems, ft);
    }
    if (*s != '}' || tc->arena->oom)
        return NULL;
    *p = s + 1;
    return ty_record(tc, (int)id, n, (const char **)names.data, (Type **)elems.data, offs, (int)size, aligned);
}

static Type *from_typecode(TyCtx *tc, const char **p, int depth) {
    const char *s = *p;
    if (depth > 64)
        return NULL;
    char c = *s;
    Type *t = elem_from_code(tc, p);
    if (t)
        return t;
    switch (c) {
    case 'n':
        *p = s + 1;
        return ty_scalar(tc, TY_NONE);
    case 's':
        *p = s + 1;
        return ty_scalar(tc, TY_STRING);
    case 'p':
        if (s[1] == 'v') {
            *p = s + 2;
            return ty_cpointer(tc, NULL);
        }
        t = scalar_from_code(tc, s[1]);
        if (!t)
            return NULL;
        *p = s + 2;
        return ty_cpointer(tc, t);
    case 'R':
        *p = s + 1;
        return ty_scalar(tc, TY_NPGENERATOR);
    case 'P': { /* FunctionType: 'P' ret '(' real numbers ')' */
        s++;
        Type *rt = from_typecode(tc, &s, depth + 1);
        if (!rt || !(rt->kind == TY_NONE || (ty_is_number(rt) && !ty_is_complex(rt))) || *s != '(')
            return NULL;
        s++;
        PtrVec args = {0};
        while (*s && *s != ')') {
            Type *at = from_typecode(tc, &s, depth + 1);
            if (!at || !ty_is_number(at) || ty_is_complex(at))
                return NULL;
            vec_push(tc->arena, &args, at);
        }
        if (*s != ')' || tc->arena->oom)
            return NULL;
        *p = s + 1;
        return ty_funcptr(tc, rt, (Type **)args.data, args.len);
    }
    case 't':
        s++;
        t = s[0] == 'V' ? from_typecode(tc, &s, depth + 1) : elem_from_code(tc, &s);
        if (!t)
            return NULL;
        *p = s;
        return ty_dtype(tc, t);
    case 'V':
        return record_from_typecode(tc, p, depth);
    case 'o':
        s++;
        t = from_typecode(tc, &s, depth + 1);
        if (!t || !optionable(t))
            return NULL;
        *p = s;
        return ty_optional(tc, t);
    case 'a':
    case 'r': {
        s++;
        Type *dt = s[0] == 'V' ? from_typecode(tc, &s, depth + 1) : elem_from_code(tc, &s);
        if (!dt || s[0] < '0' || s[0] > '0' + HJ_MAX_NDIM)
            return NULL;
        int nd = s[0] - '0';
        char lay = s[1];
        if (lay != 'C' && lay != 'F' && lay != 'A')
            return NULL;
        *p = s + 2;
        return ty_array_ro(tc, dt, nd, (Layout)lay, c == 'r');
    }
    case 'y': /* bytes */
    case 'Y': /* bytearray */
        *p = s + 1;
        return ty_bytes(tc, c == 'Y');
    case 'J': { /* a jitclass instance: J<id> */
        char *end = NULL;
        long id = strtol(s + 1, &end, 10);
        if (!end || end == s + 1)
            return NULL;
        *p = end;
        return ty_jitclass(tc, (int)id);
    }
    case 'N': { /* a named tuple: N<id>:<name>:<fields>:(<elems>) */
        char *end = NULL;
        long id = strtol(s + 1, &end, 10);
        if (!end || *end != ':')
            return NULL;
        const char *nm = end + 1, *c2 = strchr(nm, ':');
        const char *fl = c2 ? c2 + 1 : NULL, *c3 = fl ? strchr(fl, ':') : NULL;
        if (!c3 || c3[1] != '(')
            return NULL;
        const char *q = c3 + 1;
        Type *tt = from_typecode(tc, &q, depth + 1);
        if (!tt || tt->kind != TY_TUPLE)
            return NULL;
        const char **fields = arena_alloc(tc->arena, sizeof(char *) * (size_t)(tt->nelems + 1));
        const char *f = fl;
        for (int i = 0; i < tt->nelems; i++) {
            const char *e = f;
            while (e < c3 && *e != ',')
                e++;
            if (e == f)
                return NULL;
            char *cp = arena_alloc(tc->arena, (size_t)(e - f) + 1);
            if (tc->arena->oom)
                return NULL;
            memcpy(cp, f, (size_t)(e - f));
            cp[e - f] = '\0';
            fields[i] = cp;
            f = e < c3 ? e + 1 : e;
        }
        if (f != c3)
            return NULL;
        char *name = arena_alloc(tc->arena, (size_t)(c2 - nm) + 1);
        if (tc->arena->oom)
            return NULL;
        memcpy(name, nm, (size_t)(c2 - nm));
        name[c2 - nm] = '\0';
        *p = q;
        bool flag = tt->nelems == 1 && !strcmp(fields[0], TY_INTFLAG_FIELD);
        if (tt->nelems == 1 && ty_is_int(tt->elems[0]) && (flag || !strcmp(fields[0], TY_INTENUM_FIELD)))
            return ty_intenum(tc, tt->elems[0]->kind, (int)id, name, flag); /* an IntEnum member */
        return ty_named_tuple(tc, tt->elems, tt->nelems, (int)id, name, fields);
    }
    case '(': {
        PtrVec el = {0};
        s++;
        while (*s && *s != ')') {
            Type *e = from_typecode(tc, &s, depth + 1);
            if (!e)
                return NULL;
            vec_push(tc->arena, &el, e);
        }
        if (*s != ')')
            return NULL;
        *p = s + 1;
        return ty_tuple(tc, (Type **)el.data, el.len);
    }
    case '[':
    case '#':
        s++;
        t = from_typecode(tc, &s, depth + 1);
        if (!t)
            return NULL;
        *p = s;
        return c == '#' ? ty_typed_list(tc, t) : ty_list(tc, t);
    case '{':
    case '&': {
        s++;
        Type *k = from_typecode(tc, &s, depth + 1);
        Type *v = k ? from_typecode(tc, &s, depth + 1) : NULL;
        if (!v)
            return NULL;
        *p = s;
        return c == '&' ? ty_typed_dict(tc, k, v) : ty_dict(tc, k, v);
    }
    case '<':
    case '%': /* a typed.Set */
        s++;
        t = from_typecode(tc, &s, depth + 1);
        if (!t)
            return NULL;
        *p = s;
        return c == '%' ? ty_typed_set(tc, t) : ty_set(tc, t);
    case 'G': /* a generator object passed back in from Python */
        s++;
        t = from_typecode(tc, &s, depth + 1);
        if (!t)
            return NULL;
        *p = s;
        return ty_generator(tc, t);
    default:
        return NULL;
    }
}

Type *ty_from_typecode(TyCtx *tc, const char **p) { return from_typecode(tc, p, 0); }

/* ---- Numba type expressions ---- */

static const struct {
    const char *name;
    TyKind kind;
} type_names[] = {
    {"bool", TY_BOOL},        {"boolean", TY_BOOL},     {"b1", TY_BOOL},         {"bool_", TY_BOOL},
    {"int8", TY_INT8},        {"i1", TY_INT8},          {"byte", TY_UINT8},      {"int16", TY_INT16},
    {"i2", TY_INT16},         {"int32", TY_INT32},      {"i4", TY_INT32},        {"intc", TY_INT32},
    {"int64", TY_INT64},      {"i8", TY_INT64},         {"intp", TY_INT64},      {"int_", TY_INT64},
    {"uint8", TY_UINT8},      {"u1", TY_UINT8},         {"uint16", TY_UINT16},   {"u2", TY_UINT16},
    {"uint32", TY_UINT32},    {"u4", TY_UINT32},        {"uintc", TY_UINT32},    {"uint64", TY_UINT64},
    {"u8", TY_UINT64},        {"uintp", TY_UINT64},     {"float32", TY_FLOAT32}, {"f4", TY_FLOAT32},
    {"single", TY_FLOAT32},   {"float16", TY_FLOAT16},  {"f2", TY_FLOAT16},      {"half", TY_FLOAT16},
    {"float64", TY_FLOAT64},  {"f8", TY_FLOAT64},      {"double", TY_FLOAT64},
    {"float_", TY_FLOAT64},   {"complex64", TY_COMPLEX64}, {"c8", TY_COMPLEX64}, {"csingle", TY_COMPLEX64},
    {"complex128", TY_COMPLEX128}, {"c16", TY_COMPLEX128}, {"cdouble", TY_COMPLEX128},
    {"complex_", TY_COMPLEX128}, {"none", TY_NONE},     {"void", TY_NONE},       {"None", TY_NONE},
    {"unicode_type", TY_STRING}, {"string", TY_STRING},
};

typedef struct TyParser {
    TyCtx *tc;
    const char *p;
    const char *err;
    int depth;
} TyParser;

static void skip_ws(TyParser *P) {
    while (*P->p == ' ' || *P->p == '\t' || *P->p == '\n')
        P->p++;
}

static bool accept(TyParser *P, const char *s) {
    skip_ws(P);
    size_t n = strlen(s);
    if (strncmp(P->p, s, n) == 0) {
        P->p += n;
        return true;
    }
    return false;
}

static Type *fail(TyParser *P, const char *msg) {
    if (!P->err) {
        const char *at = *P->p ? P->p : "end of input";
        P->err = arena_printf(P->tc->arena, "%s at '%.20s'", msg, at);
    }
    return NULL;
}

static bool parse_int(TyParser *P, long *out) {
    skip_ws(P);
    if (!isdigit((unsigned char)*P->p))
        return false;
    char *e;
    *out = strtol(P->p, &e, 10);
    P->p = e;
    return true;
}

static Type *parse_type(TyParser *P);

/* "[:, ::1]" after a scalar: one ':' or '::1' per dimension. */
static Type *parse_dims(TyParser *P, Type *dtype) {
    int nd = 0, c_last = 0, f_first = 0;
    bool any_contig = false;
    do {
        skip_ws(P);
        if (accept(P, "::1")) {
            if (any_contig)
                return fail(P, "more than one '::1' in array type");
            any_contig = true;
            if (nd == 0)
                f_first = 1;
            c_last = 1;
        } else if (accept(P, ":")) {
            c_last = 0;
        } else {
            return fail(P, "expected ':' or '::1' in array type");
        }
        nd++;
        if (nd > HJ_MAX_NDIM)
            return fail(P, "too many dimensions in array type");
    } while (accept(P, ","));
    if (!accept(P, "]"))
        return fail(P, "expected ']' in array type");
    Layout lay = LAYOUT_A;
    if (any_contig) {
        if (c_last)
            lay = LAYOUT_C;
        else if (f_first)
            lay = LAYOUT_F;
        else
            return fail(P, "'::1' must be on the first or last dimension");
    }
    return ty_array(P->tc, dtype, nd, lay);
}

static Type *parse_base(TyParser *P) {
    skip_ws(P);
    const char *s = P->p;
    /* module prefixes as written in Python: numba.types.float64, nb.f8, types.int64 */
    static const char *const prefixes[] = {"numba.types.", "nb.types.", "numba.", "nb.", "types."};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(s, prefixes[i], strlen(prefixes[i])) == 0) {
            s += strlen(prefixes[i]);
            break;
        }
    const char *e = s;
    while (isalnum((unsigned char)*e) || *e == '_')
        e++;
    size_t n = (size_t)(e - s);
    if (n == 0)
        return fail(P, "expected a type name");
    P->p = e;
    if (n == 2 && (s[0] == 'M' || s[0] == 'm') && s[1] == '8' && *P->p == '[') { /* NumPy's 'M8[D]', 'm8[s]' */
        P->p++;
        const char *ue = P->p;
        while (isalpha((unsigned char)*ue))
            ue++;
        int unit = ty_dt_unit_parse(P->p, (size_t)(ue - P->p));
        if (unit < 0 || *ue != ']')
            return fail(P, "unknown datetime unit");
        P->p = ue + 1;
        return ty_datetime(P->tc, s[0] == 'm', unit);
    }
    if ((n == 10 && strncmp(s, "datetime64", 10) == 0) || (n == 11 && strncmp(s, "timedelta64", 11) == 0) ||
        (n == 10 && strncmp(s, "NPDatetime", 10) == 0) || (n == 11 && strncmp(s, "NPTimedelta", 11) == 0)) {
        /* datetime64[D], timedelta64[ms], datetime64[] (generic); NPDatetime('D') */
        bool td = n == 11, call = s[0] == 'N';
        skip_ws(P);
        if (*P->p != (call ? '(' : '['))
            return fail(P, call ? "expected '(' after NPDatetime" : "expected '[unit]' after datetime64");
        const char *u = ++P->p;
        if (call && (*u == '\'' || *u == '"'))
            u++;
        const char *ue = u;
        while (isalpha((unsigned char)*ue))
            ue++;
        int unit = ty_dt_unit_parse(u, (size_t)(ue - u));
        if (unit < 0)
            return fail(P, "unknown datetime unit");
        P->p = ue;
        if (call && (*P->p == '\'' || *P->p == '"'))
            P->p++;
        if (!accept(P, call ? ")" : "]"))
            return fail(P, "expected the end of the datetime unit");
        return ty_datetime(P->tc, td, unit);
    }
    if (n == 8 && strncmp(s, "readonly", 8) == 0) { /* Numba's name of a read-only array type */
        Type *t = parse_base(P);
        if (t && t->kind != TY_ARRAY)
            return fail(P, "'readonly' applies to array types only");
        return ty_set_readonly(P->tc, t, true);
    }
    if (n == 8 && strncmp(s, "UniTuple", 8) == 0) {
        if (!accept(P, "("))
            return fail(P, "expected '(' after UniTuple");
        Type *el = parse_type(P);
        if (!el)
            return NULL;
        long cnt;
        if (!accept(P, ",") && !accept(P, "x"))
            return fail(P, "expected ', count' in UniTuple");
        if (!parse_int(P, &cnt) || cnt < 0 || cnt > 1000)
            return fail(P, "expected a count in UniTuple");
        if (!accept(P, ")"))
            return fail(P, "expected ')' after UniTuple");
        Type **els = arena_alloc(P->tc->arena, sizeof(Type *) * (size_t)(cnt + 1));
        for (long i = 0; i < cnt; i++)
            els[i] = el;
        return ty_tuple(P->tc, els, (int)cnt);
    }
    if (n == 5 && strncmp(s, "Tuple", 5) == 0) {
        if (!accept(P, "("))
            return fail(P, "expected '(' after Tuple");
        PtrVec el = {0};
        if (!accept(P, ")")) {
            do {
                if (accept(P, ")")) /* trailing comma */
                    goto done;
                Type *t = parse_type(P);
                if (!t)
                    return NULL;
                vec_push(P->tc->arena, &el, t);
            } while (accept(P, ","));
            if (!accept(P, ")"))
                return fail(P, "expected ')' after Tuple");
        }
    done:
        return ty_tuple(P->tc, (Type **)el.data, el.len);
    }
    if ((n == 5 && strncmp(s, "array", 5) == 0) || (n == 5 && strncmp(s, "Array", 5) == 0)) {
        /* the display form: array(float64, 2d, C) */
        if (!accept(P, "("))
            return fail(P, "expected '(' after array");
        Type *dt = parse_type(P);
        if (!dt)
            return NULL;
        if (!ty_is_number(dt) && !ty_is_npdt(dt))
            return fail(P, "array dtype must be a number type");
        long nd;
        if (!accept(P, ",") || !parse_int(P, &nd) || nd < 0 || nd > HJ_MAX_NDIM)
            return fail(P, "expected the number of dimensions in array type");
        accept(P, "d");
        Layout lay = LAYOUT_A;
        if (!accept(P, ","))
            return fail(P, "expected the layout in array type");
        if (accept(P, "'C'") || accept(P, "C"))
            lay = LAYOUT_C;
        else if (accept(P, "'F'") || accept(P, "F"))
            lay = LAYOUT_F;
        else if (accept(P, "'A'") || accept(P, "A"))
            lay = LAYOUT_A;
        else
            return fail(P, "expected C, F or A as the layout");
        if (!accept(P, ")"))
            return fail(P, "expected ')' after array type");
        return ty_array(P->tc, dt, (int)nd, lay);
    }
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
        if (strlen(type_names[i].name) == n && strncmp(type_names[i].name, s, n) == 0)
            return ty_scalar(P->tc, type_names[i].kind);
    P->p = s;
    return fail(P, "unknown type name");
}

static Type *parse_type(TyParser *P) {
    if (++P->depth > 64) {
        P->depth--;
        return fail(P, "type expression nested too deeply");
    }
    Type *t = parse_base(P);
    while (t && accept(P, "[")) {
        if (!ty_is_number(t) && !ty_is_npdt(t)) {
            t = fail(P, "only number types can be array dtypes");
            break;
        }
        t = parse_dims(P, t);
    }
    P->depth--;
    return t;
}

Type *ty_parse(TyCtx *tc, const char *s, const char **end, const char **err) {
    TyParser P = {.tc = tc, .p = s};
    Type *t = parse_type(&P);
    if (t) {
        skip_ws(&P);
        if (end)
            *end = P.p;
        else if (*P.p) {
            t = fail(&P, "unexpected text after type");
        }
    }
    if (!t && err)
        *err = P.err ? P.err : "bad type expression";
    return t;
}
