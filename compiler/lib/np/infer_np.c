/* infer_np.c - typing of NumPy reductions (sum, mean, argmin, cumsum...),
 * shape functions (reshape, transpose, concatenate, ...) and creation
 * functions (full, eye, linspace, array, astype, ...), as np. functions
 * and as array methods.
 *
 * Tree shape after the final pass (lowering relies on it, lower_np.c):
 * `args` holds one slot per parameter of the function as NumPy names them
 * (see sig_of), the array operand in args[0] for methods too (self_node is
 * NULL), absent optional arguments NULL, `axis=None` NULL, integer
 * arguments cast to int64, dtype slots NULL (the dtype is in `ty`).
 * reshape's shape is args[1..]: one int64 or UniTuple(int64) node, or
 * several int64 nodes (a.reshape(2, 3)). */
#include "infer.h"
#include "np.h"
#include "registry.h"

#include <string.h>

static Type *T(Inf *I, TyKind k) { return infer_ty(I, k); }

#define MAX_SLOTS INFER_MAX_SLOTS

typedef InferSig Sig;

static bool sig_of(BuiltinId id, Sig *s) {
#define S(name, ...) INFER_SIG(s, name, __VA_ARGS__)
    switch (id) {
    case BI_NP_SUM: S("sum", "a", "axis", "dtype"); break;
    case BI_NP_PROD: S("prod", "a", "axis", "dtype"); break;
    case BI_NP_AMIN: S("min", "a", "axis"); break;
    case BI_NP_AMAX: S("max", "a", "axis"); break;
    case BI_NP_MEAN: S("mean", "a", "axis", "dtype"); break;
    case BI_NP_STD: S("std", "a", "axis", "dtype", "out", "ddof"); break;
    case BI_NP_VAR: S("var", "a", "axis", "dtype", "out", "ddof"); break;
    case BI_NP_ARGMIN: S("argmin", "a", "axis"); break;
    case BI_NP_ARGMAX: S("argmax", "a", "axis"); break;
    case BI_NP_ALL: S("all", "a", "axis"); break;
    case BI_NP_ANY: S("any", "a", "axis"); break;
    case BI_NP_CUMSUM: S("cumsum", "a", "axis", "dtype"); break;
    case BI_NP_CUMPROD: S("cumprod", "a", "axis", "dtype"); break;
    case BI_NP_RAVEL: S("ravel", "a"); break;
    case BI_ARRAY_FLATTEN: S("flatten", "a"); break;
    case BI_NP_TRANSPOSE: S("transpose", "a", "axes"); break;
    case BI_NP_SQUEEZE: S("squeeze", "a", "axis"); break;
    case BI_NP_EXPAND_DIMS: S("expand_dims", "a", "axis"); break;
    case BI_NP_CONCATENATE: S("concatenate", "arrays", "axis"); break;
    case BI_NP_STACK: S("stack", "arrays", "axis"); break;
    case BI_NP_VSTACK: S("vstack", "tup"); break;
    case BI_NP_HSTACK: S("hstack", "tup"); break;
    case BI_NP_REPEAT: S("repeat", "a", "repeats", "axis"); break;
    case BI_NP_TILE: S("tile", "A", "reps"); break;
    case BI_NP_ROLL: S("roll", "a", "shift", "axis"); break;
    case BI_NP_FLIP: S("flip", "m", "axis"); break;
    case BI_NP_DIFF: S("diff", "a", "n", "axis"); break;
    case BI_NP_TRIU: S("triu", "m", "k"); break;
    case BI_NP_TRIL: S("tril", "m", "k"); break;
    case BI_NP_FULL: S("full", "shape", "fill_value", "dtype"); break;
    case BI_NP_FULL_LIKE: S("full_like", "a", "fill_value", "dtype"); break;
    case BI_NP_EYE: S("eye", "N", "M", "k", "dtype"); break;
    case BI_NP_IDENTITY: S("identity", "n", "dtype"); break;
    case BI_NP_LINSPACE: S("linspace", "start", "stop", "num", "endpoint"); break;
    case BI_NP_ARRAY: S("array", "object", "dtype"); break;
    case BI_NP_ASARRAY: S("asarray", "a", "dtype"); break;
    case BI_ARRAY_ASTYPE: S("astype", "a", "dtype"); break;
    case BI_ARRAY_FILL: S("fill", "a", "value"); break;
    case BI_NP_RESHAPE: S("reshape", "a", "newshape"); break;
    case BI_NP_ROUND: S("round", "a", "decimals"); break;
    case BI_NP_NANSUM: S("nansum", "a", "axis"); break;
    case BI_NP_NANPROD: S("nanprod", "a", "axis"); break;
    case BI_NP_NANMEAN: S("nanmean", "a", "axis"); break;
    case BI_NP_NANMIN: S("nanmin", "a", "axis"); break;
    case BI_NP_NANMAX: S("nanmax", "a", "axis"); break;
    case BI_NP_PTP: S("ptp", "a", "axis"); break;
    case BI_NP_REAL: S("real", "val"); break;
    case BI_NP_IMAG: S("imag", "val"); break;
    case BI_NP_NANCUMSUM: S("nancumsum", "a", "axis"); break;
    case BI_NP_NANCUMPROD: S("nancumprod", "a", "axis"); break;
    case BI_NP_NANVAR: S("nanvar", "a", "axis", "dtype", "out", "ddof"); break;
    case BI_NP_NANSTD: S("nanstd", "a", "axis", "dtype", "out", "ddof"); break;
    case BI_NP_COV: S("cov", "m", "y", "rowvar", "bias", "ddof"); break;
    case BI_NP_CORRCOEF: S("corrcoef", "x", "y", "rowvar"); break;
    default: return false;
    }
#undef S
    return true;
}

static bool infer_np_handles(BuiltinId id) {
    Sig s;
    return sig_of(id, &s);
}

/* ---- NumPy's dtype rules ---- */

/* sum/prod/cumsum/cumprod: small ints accumulate in the platform int. */
static Type *sum_dtype(Inf *I, Type *t) {
    if (t->kind == TY_BOOL || ty_is_signed(t))
        return T(I, TY_INT64);
    if (ty_is_unsigned(t))
        return T(I, TY_UINT64);
    return t;
}

static Type *mean_dtype(Inf *I, Type *t) {
    return (ty_is_float(t) || ty_is_complex(t)) ? t : T(I, TY_FLOAT64);
}

static Type *var_dtype(Inf *I, Type *t) {
    if (t->kind == TY_COMPLEX64 || t->kind == TY_FLOAT32)
        return T(I, TY_FLOAT32);
    return T(I, TY_FLOAT64);
}

/* ---- argument helpers ---- */

/* Type slot i: the receiver (already typed) or an argument. */
static Type *slot_type(Inf *I, Node **sl, int i, Node *self) {
    if (i == 0 && self)
        return infer_value_ty(self);
    return infer_expr(I, &sl[i]);
}

static Type *need_array(Inf *I, Node *at, Type *t, const char *fname) {
    if (t->kind == TY_ARRAY)
        return t;
    return TYPING(I, at, "%s() needs an array, not %s", fname, infer_tyname(I, t));
}

/* A tuple of arrays (concatenate & co): checks ndim, gives the dtype. */
static Type *array_seq(Inf *I, Node **ps, const char *fname, int *ndim, bool *unk) {
    Type *t = infer_expr(I, ps);
    if (!t)
        return NULL;
    if (IS_UNK(t)) {
        *unk = true;
        return t;
    }
    if (t->kind != TY_TUPLE || t->nelems == 0)
        return TYPING(I, *ps, "%s() needs a non-empty tuple of arrays, not %s", fname, infer_tyname(I, t));
    Type *dt = NULL;
    for (int i = 0; i < t->nelems; i++) {
        Type *e = t->elems[i];
        if (e->kind != TY_ARRAY)
            return TYPING(I, *ps, "%s() needs a tuple of arrays, not %s", fname, infer_tyname(I, t));
        if (i == 0)
            *ndim = e->ndim;
        else if (e->ndim != *ndim)
            return TYPING(I, *ps,
                          "%s(): all the input arrays must have same number of dimensions, but the array at "
                          "index 0 has %d dimension(s) and the array at index %d has %d dimension(s)",
                          fname, *ndim, i, e->ndim);
        dt = dt ? ty_np_promote(I->tc, dt, e->dtype) : e->dtype;
    }
    return dt;
}

/* Nested tuples of numbers for np.array: the dims (*nd of them, each a
 * compile-time length) and the common dtype. */
static Type *nested_numbers(Inf *I, Node *at, Type *t, int depth, int *nd, int64_t *dims, Type *dt) {
    if (ty_is_number(t)) {
        if (*nd < 0)
            *nd = depth;
        else if (*nd != depth)
            return TYPING(I, at, "np.array() of a ragged nested sequence");
        return dt ? ty_np_promote(I->tc, dt, t) : t;
    }
    if (t->kind != TY_TUPLE || depth >= 32)
        return TYPING(I, at, "np.array() needs numbers or (nested) tuples of numbers, not %s", infer_tyname(I, t));
    if (*nd >= 0 && depth >= *nd)
        return TYPING(I, at, "np.array() of a ragged nested sequence");
    if (dims[depth] < 0)
        dims[depth] = t->nelems;
    else if (dims[depth] != t->nelems)
        return TYPING(I, at, "np.array() of a ragged nested sequence");
    if (t->nelems == 0) {
        if (*nd < 0)
            *nd = depth + 1;
        return dt ? dt : T(I, TY_FLOAT64);
    }
    for (int i = 0; i < t->nelems; i++) {
        dt = nested_numbers(I, at, t->elems[i], depth + 1, nd, dims, dt);
        if (!dt)
            return NULL;
    }
    return dt;
}

/* A list, or a tuple holding lists or arrays (a list display of arrays
 * becomes a tuple here): np.array's overload in python/hpcjit/_nplist.py
 * makes the array, the builtin the others. */
static bool for_list_overload(const Type *t) {
    if (!t)
        return false;
    if (t->kind == TY_LIST)
        return true;
    if (t->kind != TY_TUPLE)
        return false;
    for (int i = 0; i < t->nelems; i++)
        if (t->elems[i]->kind == TY_ARRAY || for_list_overload(t->elems[i]))
            return true;
    return false;
}

/* The argument of np.array/np.asarray is the one place a list literal is
 * accepted (infer.c lets lists through only as call arguments): a nested
 * sequence of scalars, typed as the tuple of the same elements. */
static void lists_to_tuples(Node *e) {
    if (e->kind != N_LIST && e->kind != N_TUPLE)
        return;
    e->kind = N_TUPLE;
    for (int i = 0; i < e->args.len; i++)
        lists_to_tuples(VEC_AT(e->args, i));
}

/* Python's int, float, bool, complex values as NumPy dtypes of fill values. */
/* A datetime fills a datetime array of its unit or a finer one (as a store
 * converts); numbers do not fill datetime arrays, nor datetimes numbers. */
static bool fill_ok(Inf *I, Node *v, Type *vt, Type *et, const char *fname) {
    if ((ty_is_npdt(vt) || ty_is_npdt(et)) && !ty_can_convert(vt, et)) {
        TYPING(I, v, "%s(): cannot fill a %s array with %s", fname, infer_tyname(I, et), infer_tyname(I, vt));
        return false;
    }
    return true;
}

static Type *value_dtype(Inf *I, Type *t) {
    if (t->kind == TY_BOOL || ty_is_number(t))
        return t;
    return T(I, TY_FLOAT64);
}

/* np.cov(m, y=None, rowvar=True, bias=False, ddof=None) and
 * np.corrcoef(x, y=None, rowvar=True) on 1-D and 2-D arrays (Numba's
 * forms): float64 (complex128 for complex input); an nv x nv array, or
 * for one 1-D array and no y a 0-d array (cov) or a scalar (corrcoef).
 * The final pass gives the call args m, y, rowvar, bias, ddof (NULL where
 * absent), m and y converted to C-contiguous copies of the result dtype. */
static Type *cov_call(Inf *I, Node *n, BuiltinId id, const Sig *s) {
    Node *sl[MAX_SLOTS] = {0};
    if (!infer_bind_slots(I, n, NULL, s, sl))
        return NULL;
    if (!sl[0])
        return TYPING(I, n, "%s() missing required argument '%s'", s->fname, s->names[0]);
    bool unk = false, cx = false;
    Type *tys[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++) {
        if (!sl[i] || (i > 0 && infer_is_none(sl[i]))) { /* y=None: absent; m=None is refused below */
            sl[i] = NULL;
            continue;
        }
        Type *t = infer_expr(I, &sl[i]);
        if (!t)
            return NULL;
        if (IS_UNK(t)) {
            unk = true;
            continue;
        }
        if (t->kind != TY_ARRAY)
            return TYPING(I, sl[i], "%s() needs a 1-D or 2-D array for %s, not %s", s->fname, s->names[i],
                          infer_tyname(I, t));
        if (t->ndim < 1 || t->ndim > 2)
            return UNSUP(I, sl[i], "%s() needs a 1-D or 2-D array for %s, not %s", s->fname, s->names[i],
                         infer_tyname(I, t));
        if (!ty_is_number(t->dtype))
            return TYPING(I, sl[i], "%s() needs numbers, not %s", s->fname, infer_tyname(I, t));
        cx = cx || ty_is_complex(t->dtype);
        tys[i] = t;
    }
    for (int i = 2; i < 4 && i < s->n; i++) /* rowvar, bias */
        if (sl[i] && !infer_truth(I, &sl[i]))
            return NULL;
    if (s->n > 4 && !infer_opt_int(I, sl, 4, s->fname, "ddof", &unk))
        return NULL;
    if (unk)
        return TY_UNK(I);
    Type *dt = T(I, cx ? TY_COMPLEX128 : TY_FLOAT64);
    if (I->final) {
        for (int i = 0; i < 2; i++) {
            if (!sl[i] || (tys[i]->dtype == dt && tys[i]->layout == LAYOUT_C))
                continue;
            Node *c = ast_new(I->a, N_CALL, sl[i]->loc); /* x.astype(dt): a C copy */
            c->call_kind = CALL_BUILTIN;
            c->builtin = BI_ARRAY_ASTYPE;
            vec_push(I->a, &c->args, sl[i]);
            vec_push(I->a, &c->args, NULL);
            c->ty = ty_array(I->tc, dt, tys[i]->ndim, LAYOUT_C);
            sl[i] = c;
        }
        for (int i = s->n; i < 5; i++)
            sl[i] = NULL;
        infer_store_slots(I, n, sl, 5);
    }
    n->call_kind = CALL_BUILTIN;
    n->builtin = id;
    if (tys[0]->ndim == 1 && !tys[1])
        return id == BI_NP_COV ? ty_array(I->tc, dt, 0, LAYOUT_C) : dt;
    return ty_array(I->tc, dt, 2, LAYOUT_C);
}

static Type *infer_np_call(Inf *I, Node *n, BuiltinId id, Node *self) {
    Sig s;
    if (!sig_of(id, &s))
        return UNSUP(I, n, "%s() is not supported by hpcjit yet", builtin_name(id));
    const char *fname = s.fname;
    n->call_kind = CALL_BUILTIN;
    n->builtin = id;
    Node *sl[MAX_SLOTS] = {0};
    int ns = s.n;
    bool unk = false;

    if (id == BI_NP_REAL || id == BI_NP_IMAG) {
        /* np.real(x) / np.imag(x) are x.real / x.imag: the final pass
         * rewrites the call into that attribute (a view for arrays) */
        if (!infer_bind_slots(I, n, self, &s, sl))
            return NULL;
        if (!sl[0])
            return TYPING(I, n, "%s() missing required argument 'val'", fname);
        Node *at = I->final ? n : ast_new(I->a, N_ATTRIBUTE, n->loc);
        at->kind = N_ATTRIBUTE;
        at->a = sl[0];
        at->name = id == BI_NP_REAL ? "real" : "imag";
        at->args.len = 0;
        at->keywords.len = 0;
        at->self_node = NULL;
        at->call_kind = CALL_UNRESOLVED;
        return infer_attribute(I, at);
    }

    if (id == BI_NP_RESHAPE) {
        /* varargs shape on the method: a.reshape(2, 3) */
        if (!self) {
            if (!infer_bind_slots(I, n, NULL, &s, sl))
                return NULL;
        } else {
            if (n->keywords.len) {
                Node *kw = VEC_AT(n->keywords, 0);
                if (n->args.len || strcmp(kw->name, "shape") != 0 || n->keywords.len > 1)
                    return TYPING(I, kw, "reshape() got an unexpected keyword argument '%s'", kw->name);
            }
        }
        Type *at = self ? infer_value_ty(self) : (sl[0] ? infer_expr(I, &sl[0]) : NULL);
        if (!sl[0] && !self)
            return TYPING(I, n, "reshape() missing required argument 'a'");
        if (!at)
            return NULL;
        PtrVec dims = {0};
        if (self) {
            if (n->keywords.len)
                vec_push(I->a, &dims, ((Node *)VEC_AT(n->keywords, 0))->a);
            for (int i = 0; i < n->args.len; i++)
                vec_push(I->a, &dims, VEC_AT(n->args, i));
        } else if (sl[1]) {
            vec_push(I->a, &dims, sl[1]);
        }
        if (dims.len == 0)
            return TYPING(I, n, "reshape() missing required argument 'shape'");
        int nd = 0;
        for (int i = 0; i < dims.len; i++) {
            int k = infer_int_tuple(I, (Node **)&VEC_AT(dims, i), fname, "shape", &unk);
            if (k < 0)
                return NULL;
            if (dims.len > 1 && ((Node *)VEC_AT(dims, i))->ty && ((Node *)VEC_AT(dims, i))->ty->kind == TY_TUPLE)
                return TYPING(I, n, "reshape(): the shape must be ints or one tuple of ints");
            nd += dims.len > 1 ? 1 : k;
        }
        if (unk || IS_UNK(at))
            return TY_UNK(I);
        if (!need_array(I, n, at, fname))
            return NULL;
        if (I->final) {
            PtrVec v = {0};
            vec_push(I->a, &v, self ? self : sl[0]);
            for (int i = 0; i < dims.len; i++)
                vec_push(I->a, &v, VEC_AT(dims, i));
            n->args = v;
            n->keywords.len = 0;
            n->self_node = NULL;
        }
        return ty_array(I->tc, at->dtype, nd, LAYOUT_C);
    }

    if (id == BI_NP_TRANSPOSE && self && n->args.len > 1) {
        /* a.transpose(1, 0, 2) is a.transpose((1, 0, 2)) */
        Node *tup = ast_new(I->a, N_TUPLE, ((Node *)VEC_AT(n->args, 0))->loc);
        tup->args = n->args;
        n->args = (PtrVec){0};
        vec_push(I->a, &n->args, tup);
    }
    if (id == BI_NP_COV || id == BI_NP_CORRCOEF)
        return cov_call(I, n, id, &s);
    if (!infer_bind_slots(I, n, self, &s, sl))
        return NULL;
    if (!sl[0])
        return TYPING(I, n, "%s() missing required argument '%s'", fname, s.names[0]);

    switch (id) {
    case BI_NP_SUM: case BI_NP_PROD: case BI_NP_AMIN: case BI_NP_AMAX: case BI_NP_MEAN:
    case BI_NP_STD: case BI_NP_VAR: case BI_NP_ARGMIN: case BI_NP_ARGMAX: case BI_NP_ALL:
    case BI_NP_ANY: case BI_NP_CUMSUM: case BI_NP_CUMPROD: case BI_NP_NANSUM: case BI_NP_NANPROD:
    case BI_NP_NANMEAN: case BI_NP_NANMIN: case BI_NP_NANMAX: case BI_NP_PTP: case BI_NP_NANCUMSUM:
    case BI_NP_NANCUMPROD: case BI_NP_NANVAR: case BI_NP_NANSTD: {
        Type *at = slot_type(I, sl, 0, self);
        if (!at)
            return NULL;
        if (!infer_opt_int(I, sl, 1, fname, "axis", &unk))
            return NULL;
        Type *want = NULL; /* dtype= of sum/prod/mean/cumsum/cumprod: accumulate in it */
        if (ns == 3 && sl[2] && !infer_is_none(sl[2])) {
            want = infer_dtype_arg(I, &sl[2]);
            if (!want)
                return NULL;
            if (IS_UNK(want))
                unk = true;
        }
        if (ns == 3)
            sl[2] = NULL;
        if (ns > 3) {
            if (sl[2] && !infer_is_none(sl[2]))
                return UNSUP(I, sl[2], "%s() with dtype= is not supported by hpcjit", fname);
            if (sl[3] && !infer_is_none(sl[3]))
                return UNSUP(I, sl[3], "%s() with out= is not supported by hpcjit", fname);
            sl[2] = sl[3] = NULL;
            if (!infer_opt_int(I, sl, 4, fname, "ddof", &unk))
                return NULL;
        }
        if (unk || IS_UNK(at))
            return TY_UNK(I);
        if (!need_array(I, n, at, fname))
            return NULL;
        Type *dt = at->dtype, *rt;
        if (ty_is_npdt(dt) && (id == BI_NP_SUM || id == BI_NP_CUMSUM || id == BI_NP_MEAN)) {
            /* timedeltas add up in their unit (NaT propagates); datetimes do not add */
            if (dt->kind == TY_DATETIME)
                return TYPING(I, n, "%s() of %s: NumPy cannot add datetimes", fname, infer_tyname(I, at));
            if (want)
                return UNSUP(I, sl[2], "%s() of timedeltas with dtype= is not supported by hpcjit", fname);
            infer_store_slots(I, n, sl, ns);
            if (id == BI_NP_CUMSUM)
                return ty_array(I->tc, dt, sl[1] ? (at->ndim ? at->ndim : 1) : 1, LAYOUT_C);
            return !sl[1] || at->ndim <= 1 ? dt : ty_array(I->tc, dt, at->ndim - 1, LAYOUT_C);
        }
        bool nanf = id == BI_NP_NANSUM || id == BI_NP_NANPROD || id == BI_NP_NANMEAN || id == BI_NP_NANMIN ||
                    id == BI_NP_NANMAX || id == BI_NP_NANCUMSUM || id == BI_NP_NANCUMPROD || id == BI_NP_NANVAR ||
                    id == BI_NP_NANSTD;
        if (nanf && ty_is_complex(dt))
            return UNSUP(I, n, "%s() of complex arrays is not supported by hpcjit", fname);
        if (id == BI_NP_PTP && dt->kind == TY_BOOL)
            return TYPING(I, n, "ptp() of a bool array: numpy boolean subtract is not supported");
        switch (id) {
        case BI_NP_SUM: case BI_NP_PROD: case BI_NP_CUMSUM: case BI_NP_CUMPROD: case BI_NP_NANSUM:
        case BI_NP_NANPROD: case BI_NP_NANCUMSUM: case BI_NP_NANCUMPROD:
            rt = sum_dtype(I, dt);
            break;
        case BI_NP_MEAN: case BI_NP_NANMEAN: rt = mean_dtype(I, dt); break;
        case BI_NP_STD: case BI_NP_VAR: case BI_NP_NANSTD: case BI_NP_NANVAR: rt = var_dtype(I, dt); break;
        case BI_NP_ARGMIN: case BI_NP_ARGMAX: rt = T(I, TY_INT64); break;
        case BI_NP_ALL: case BI_NP_ANY: rt = T(I, TY_BOOL); break;
        default: rt = dt; break;
        }
        if (want) {
            if (ty_is_complex(dt) && !ty_is_complex(want))
                return TYPING(I, n, "%s(): cannot accumulate %s in %s (the imaginary part would be lost)",
                              fname, infer_tyname(I, dt), infer_tyname(I, want));
            rt = want;
        }
        infer_store_slots(I, n, sl, ns);
        bool cum = id == BI_NP_CUMSUM || id == BI_NP_CUMPROD || id == BI_NP_NANCUMSUM || id == BI_NP_NANCUMPROD;
        if (cum)
            return ty_array(I->tc, rt, sl[1] ? (at->ndim ? at->ndim : 1) : 1, LAYOUT_C);
        if (!sl[1] || at->ndim <= 1)
            return rt;
        return ty_array(I->tc, rt, at->ndim - 1, LAYOUT_C);
    }
    case BI_NP_ROUND: { /* np.round/np.around/a.round(decimals): elementwise, same type */
        Type *at = slot_type(I, sl, 0, self);
        if (!at)
            return NULL;
        if (!infer_opt_int(I, sl, 1, fname, "decimals", &unk))
            return NULL;
        if (unk || IS_UNK(at))
            return TY_UNK(I);
        Type *et = at->kind == TY_ARRAY ? at->dtype : at;
        if (!ty_is_number(et) || et->kind == TY_BOOL)
            return TYPING(I, n, "round() needs numbers or an array of numbers, not %s", infer_tyname(I, at));
        infer_store_slots(I, n, sl, ns);
        return at->kind == TY_ARRAY ? ty_array(I->tc, et, at->ndim, LAYOUT_C) : et;
    }
    case BI_NP_RAVEL: case BI_ARRAY_FLATTEN: case BI_NP_TRANSPOSE: case BI_NP_SQUEEZE:
    case BI_NP_EXPAND_DIMS: case BI_NP_FLIP: case BI_NP_DIFF: case BI_NP_ROLL: case BI_NP_REPEAT:
    case BI_NP_TRIU: case BI_NP_TRIL: case BI_ARRAY_ASTYPE: case BI_ARRAY_FILL: case BI_NP_FULL_LIKE: case BI_NP_TILE: {
        Type *at = slot_type(I, sl, 0, self);
        if (!at)
            return NULL;
        Type *dt = NULL, *vt = NULL;
        int k = 0;
        switch (id) {
        case BI_NP_SQUEEZE: case BI_NP_FLIP:
            if (!infer_opt_int(I, sl, 1, fname, "axis", &unk))
                return NULL;
            break;
        case BI_NP_EXPAND_DIMS:
            if (!infer_req_int(I, n, sl, 1, fname, "axis", &unk))
                return NULL;
            break;
        case BI_NP_DIFF:
            if (!infer_opt_int(I, sl, 1, fname, "n", &unk) || !infer_opt_int(I, sl, 2, fname, "axis", &unk))
                return NULL;
            break;
        case BI_NP_TRIU: case BI_NP_TRIL:
            if (!infer_opt_int(I, sl, 1, fname, "k", &unk))
                return NULL;
            break;
        case BI_NP_TRANSPOSE: /* axes: None, or a permutation of the axes (checked at run time) */
            if (sl[1] && infer_is_none(sl[1]))
                sl[1] = NULL;
            if (sl[1] && (k = infer_int_tuple(I, &sl[1], fname, "axes", &unk)) < 0)
                return NULL;
            break;
        case BI_NP_ROLL: case BI_NP_REPEAT:
            if (!sl[1])
                return TYPING(I, n, "%s() missing required argument '%s'", fname, s.names[1]);
            if (!infer_req_int(I, n, sl, 1, fname, s.names[1], &unk) || !infer_opt_int(I, sl, 2, fname, "axis", &unk))
                return NULL;
            break;
        case BI_NP_TILE:
            if (!sl[1])
                return TYPING(I, n, "tile() missing required argument 'reps'");
            if ((k = infer_int_tuple(I, &sl[1], fname, "reps", &unk)) < 0)
                return NULL;
            break;
        case BI_ARRAY_ASTYPE:
            if (!sl[1])
                return TYPING(I, n, "astype() missing required argument 'dtype'");
            if (!(dt = infer_dtype_arg(I, &sl[1])))
                return NULL;
            unk = unk || IS_UNK(dt);
            if (!unk && at->kind == TY_ARRAY && (ty_is_npdt(at->dtype) || ty_is_npdt(dt)) && dt != at->dtype &&
                (!ty_is_npdt(at->dtype) || ty_is_npdt(dt) || ty_is_complex(dt) || !ty_is_number(dt)))
                return UNSUP(I, n, "astype() from %s to %s is not supported by hpcjit (datetime64/timedelta64 "
                             "arrays convert to integers and floats: their counts of the unit)",
                             infer_tyname(I, at->dtype), infer_tyname(I, dt));
            sl[1] = NULL;
            break;
        case BI_ARRAY_FILL: case BI_NP_FULL_LIKE:
            if (!sl[1])
                return TYPING(I, n, "%s() missing required argument '%s'", fname, s.names[1]);
            if (!(vt = infer_expr(I, &sl[1])))
                return NULL;
            if (!IS_UNK(vt) && !ty_is_number(vt) && !ty_is_npdt(vt))
                return TYPING(I, sl[1], "%s() needs a number, not %s", fname, infer_tyname(I, vt));
            unk = unk || IS_UNK(vt);
            if (id == BI_NP_FULL_LIKE && sl[2]) {
                if (!(dt = infer_dtype_arg(I, &sl[2])))
                    return NULL;
                unk = unk || IS_UNK(dt);
                sl[2] = NULL;
            }
            break;
        default:
            break;
        }
        if (unk || IS_UNK(at))
            return TY_UNK(I);
        if (!need_array(I, n, at, fname))
            return NULL;
        Type *rt = NULL;
        int nd = at->ndim;
        Layout lay = at->layout;
        switch (id) {
        case BI_NP_RAVEL: case BI_ARRAY_FLATTEN: rt = ty_array(I->tc, at->dtype, 1, LAYOUT_C); break;
        case BI_NP_TRANSPOSE:
            if (sl[1] && k != nd)
                return TYPING(I, sl[1], "transpose(): axes don't match array (%d given for %d dimensions)", k,
                              nd);
            if (sl[1]) { /* any permutation: contiguous only when it keeps the order */
                rt = ty_array(I->tc, at->dtype, nd, nd <= 1 ? lay : LAYOUT_A);
                break;
            }
            if (nd > 1 && lay != LAYOUT_A)
                lay = lay == LAYOUT_C ? LAYOUT_F : LAYOUT_C;
            rt = ty_array(I->tc, at->dtype, nd, lay);
            break;
        case BI_NP_SQUEEZE:
            if (!sl[1] && nd > 0)
                return UNSUP(I, n, "squeeze() needs axis= in compiled code (without it the number of "
                                   "dimensions of the result depends on the data)");
            if (nd == 0) {
                if (sl[1])
                    return TYPING(I, n, "squeeze(): axis is out of bounds for array of dimension 0");
                rt = at;
                break;
            }
            /* dropping a length-1 axis keeps C/F contiguity */
            if (nd - 1 <= 1 && lay != LAYOUT_A)
                lay = LAYOUT_C;
            rt = ty_array(I->tc, at->dtype, nd - 1, lay);
            break;
        case BI_NP_EXPAND_DIMS:
            rt = ty_array(I->tc, at->dtype, nd + 1, nd == 0 ? LAYOUT_C : lay);
            break;
        case BI_NP_FLIP: rt = ty_array(I->tc, at->dtype, nd, nd == 0 ? LAYOUT_C : LAYOUT_A); break;
        case BI_NP_DIFF:
            if (nd == 0)
                return TYPING(I, n, "diff requires input that is at least one dimensional");
            rt = ty_array(I->tc, ty_is_npdt(at->dtype) ? ty_datetime(I->tc, true, at->dtype->unit) : at->dtype,
                          nd, LAYOUT_C); /* datetime64 differences are timedelta64s */
            break;
        case BI_NP_ROLL: rt = ty_array(I->tc, at->dtype, nd, LAYOUT_C); break;
        case BI_NP_TRIU: case BI_NP_TRIL: /* on the last two axes, as NumPy */
            if (nd < 2)
                return UNSUP(I, n, "%s() of a %dd array is not supported by hpcjit (NumPy makes a 2d result "
                             "from a 1d one): pass a 2d array", fname, nd);
            rt = ty_array(I->tc, at->dtype, nd, LAYOUT_C);
            break;
        case BI_NP_REPEAT: rt = ty_array(I->tc, at->dtype, sl[2] ? (nd ? nd : 1) : 1, LAYOUT_C); break;
        case BI_NP_TILE: rt = ty_array(I->tc, at->dtype, nd > k ? nd : k, LAYOUT_C); break;
        case BI_ARRAY_ASTYPE: rt = ty_array(I->tc, dt, nd, LAYOUT_C); break;
        case BI_ARRAY_FILL:
            if (!fill_ok(I, sl[1], vt, at->dtype, fname))
                return NULL;
            infer_cast(I, &sl[1], at->dtype);
            rt = T(I, TY_NONE);
            break;
        case BI_NP_FULL_LIKE: {
            Type *et = dt ? dt : at->dtype;
            if (!fill_ok(I, sl[1], vt, et, fname))
                return NULL;
            if (ty_is_complex(vt) && !ty_is_complex(et))
                return TYPING(I, sl[1], "full_like(): cannot fill a %s array with %s", infer_tyname(I, et),
                              infer_tyname(I, vt));
            infer_cast(I, &sl[1], et);
            rt = ty_array(I->tc, et, nd, LAYOUT_C);
            break;
        }
        default: break;
        }
        infer_store_slots(I, n, sl, ns);
        return rt;
    }
    case BI_NP_CONCATENATE: case BI_NP_STACK: case BI_NP_VSTACK: case BI_NP_HSTACK: {
        int nd = 0;
        Type *dt = array_seq(I, &sl[0], fname, &nd, &unk);
        if (!dt)
            return NULL;
        if (id == BI_NP_CONCATENATE && infer_is_none(sl[1]))
            return UNSUP(I, sl[1], "concatenate() with axis=None is not supported by hpcjit");
        if (ns > 1 && !infer_opt_int(I, sl, 1, fname, "axis", &unk))
            return NULL;
        if (unk)
            return TY_UNK(I);
        int rnd = nd;
        if (id == BI_NP_CONCATENATE && nd == 0)
            return TYPING(I, n, "zero-dimensional arrays cannot be concatenated");
        if (id == BI_NP_STACK || (id == BI_NP_VSTACK && nd == 1))
            rnd = nd + 1;
        if ((id == BI_NP_VSTACK || id == BI_NP_HSTACK) && nd == 0)
            return UNSUP(I, n, "%s() of 0-d arrays is not supported by hpcjit", fname);
        infer_store_slots(I, n, sl, ns);
        return ty_array(I->tc, dt, rnd, LAYOUT_C);
    }
    case BI_NP_FULL: {
        int nd = infer_int_tuple(I, &sl[0], fname, "shape", &unk);
        if (nd < 0)
            return NULL;
        if (!sl[1])
            return TYPING(I, n, "full() missing required argument 'fill_value'");
        Type *vt = infer_expr(I, &sl[1]);
        if (!vt)
            return NULL;
        Type *dt = NULL;
        if (sl[2] && !(dt = infer_dtype_arg(I, &sl[2])))
            return NULL;
        if (unk || IS_UNK(vt) || (dt && IS_UNK(dt)))
            return TY_UNK(I);
        if (!ty_is_number(vt) && !ty_is_npdt(vt))
            return TYPING(I, sl[1], "full() needs a number as fill_value, not %s", infer_tyname(I, vt));
        Type *et = dt ? dt : ty_is_npdt(vt) ? vt : value_dtype(I, vt);
        if (!fill_ok(I, sl[1], vt, et, fname))
            return NULL;
        if (ty_is_complex(vt) && !ty_is_complex(et))
            return TYPING(I, sl[1], "full(): cannot fill a %s array with %s", infer_tyname(I, et), infer_tyname(I, vt));
        infer_cast(I, &sl[1], et);
        sl[2] = NULL;
        infer_store_slots(I, n, sl, ns);
        return ty_array(I->tc, et, nd, LAYOUT_C);
    }
    case BI_NP_EYE: case BI_NP_IDENTITY: {
        int di = id == BI_NP_EYE ? 3 : 1;
        if (!infer_req_int(I, n, sl, 0, fname, s.names[0], &unk))
            return NULL;
        if (id == BI_NP_EYE && (!infer_opt_int(I, sl, 1, fname, "M", &unk) || !infer_opt_int(I, sl, 2, fname, "k", &unk)))
            return NULL;
        Type *dt = T(I, TY_FLOAT64);
        if (sl[di] && !(dt = infer_dtype_arg(I, &sl[di])))
            return NULL;
        if (unk || IS_UNK(dt))
            return TY_UNK(I);
        if (!sl[0])
            return TYPING(I, n, "%s() missing required argument '%s'", fname, s.names[0]);
        sl[di] = NULL;
        infer_store_slots(I, n, sl, ns);
        return ty_array(I->tc, dt, 2, LAYOUT_C);
    }
    case BI_NP_LINSPACE: {
        Type *t0 = infer_expr(I, &sl[0]);
        Type *t1 = sl[1] ? infer_expr(I, &sl[1]) : NULL;
        if (!t0 || (sl[1] && !t1))
            return NULL;
        if (!sl[1])
            return TYPING(I, n, "linspace() missing required argument 'stop'");
        if (!infer_opt_int(I, sl, 2, fname, "num", &unk))
            return NULL;
        if (sl[3]) {
            Type *te = infer_expr(I, &sl[3]);
            if (!te)
                return NULL;
            if (IS_UNK(te))
                unk = true;
            else if (te->kind != TY_BOOL && !ty_is_int(te))
                return TYPING(I, sl[3], "linspace() endpoint must be a bool, not %s", infer_tyname(I, te));
            else
                infer_cast(I, &sl[3], T(I, TY_BOOL));
        }
        if (unk || IS_UNK(t0) || IS_UNK(t1))
            return TY_UNK(I);
        if (!ty_is_number(t0) || !ty_is_number(t1))
            return TYPING(I, n, "linspace() needs numbers for start and stop");
        Type *ct = (ty_is_complex(t0) || ty_is_complex(t1)) ? T(I, TY_COMPLEX128) : T(I, TY_FLOAT64);
        infer_cast(I, &sl[0], ct);
        infer_cast(I, &sl[1], ct);
        infer_store_slots(I, n, sl, ns);
        return ty_array(I->tc, ct, 1, LAYOUT_C);
    }
    case BI_NP_ARRAY: case BI_NP_ASARRAY: {
        if (!sl[0])
            return TYPING(I, n, "%s() missing required argument '%s'", fname, s.names[0]);
        lists_to_tuples(sl[0]);
        if (sl[0]->kind == N_ATTRIBUTE && strcmp(sl[0]->name, "flat") == 0) { /* np.array(a.flat): a.flatten() */
            Node *m = ast_new(I->a, N_ATTRIBUTE, sl[0]->loc);
            m->a = sl[0]->a;
            m->name = "flatten";
            Node *c = ast_new(I->a, N_CALL, sl[0]->loc);
            c->a = m;
            sl[0] = c;
            infer_store_slots(I, n, sl, ns);
        }
        /* a list (reflected or typed), or a tuple of arrays: the overload
         * (for_list_overload) makes the array.  The stub
         * call types the argument itself: in the final pass (which rewrites
         * what it types, once) the type of the pass before decides */
        int stub = self ? -1 : infer_extend_named(I, id == BI_NP_ARRAY ? "numpy.array" : "numpy.asarray");
        const Type *before = sl[0]->ty ? infer_value_ty(sl[0]) : NULL;
        if (stub >= 0 && I->final && for_list_overload(before))
            return infer_stub_call(I, n, stub);
        Type *ot = infer_expr(I, &sl[0]);
        if (!ot)
            return NULL;
        if (stub >= 0 && !I->final && for_list_overload(ot))
            return infer_stub_call(I, n, stub);
        Type *dt = NULL;
        if (sl[1] && !(dt = infer_dtype_arg(I, &sl[1])))
            return NULL;
        if (IS_UNK(ot) || (dt && IS_UNK(dt)))
            return TY_UNK(I);
        sl[1] = NULL;
        if (ot->kind == TY_ARRAY) {
            infer_store_slots(I, n, sl, ns);
            if (id == BI_NP_ASARRAY && (!dt || dt == ot->dtype))
                return ot; /* the same data: a view keeping the layout */
            return ty_array(I->tc, dt ? dt : ot->dtype, ot->ndim, LAYOUT_C);
        }
        int nd = -1;
        int64_t dims[33];
        for (int i = 0; i < 33; i++)
            dims[i] = -1;
        Type *et = nested_numbers(I, sl[0], ot, 0, &nd, dims, NULL);
        if (!et)
            return NULL;
        if (dt && ty_is_complex(et) && !ty_is_complex(dt))
            return TYPING(I, sl[0], "np.array(): cannot convert %s to %s", infer_tyname(I, et), infer_tyname(I, dt));
        infer_store_slots(I, n, sl, ns);
        return ty_array(I->tc, dt ? dt : et, nd, LAYOUT_C);
    }
    default:
        break;
    }
    return UNSUP(I, n, "%s() is not supported by hpcjit yet", fname);
}

/* Array attributes of this area: methods (a.sum, a.reshape...) and a.T. */
static bool infer_np_attr(Inf *I, Node *n, Type *base, Type **out) {
    const char *a = n->name;
    if (strcmp(a, "T") == 0) {
        /* a.T is a.transpose(): rewritten into that call in the final pass */
        Type *rt = base;
        if (base->ndim > 1 && base->layout != LAYOUT_A)
            rt = ty_array(I->tc, base->dtype, base->ndim, base->layout == LAYOUT_C ? LAYOUT_F : LAYOUT_C);
        if (I->final) {
            Node *recv = n->a;
            n->kind = N_CALL;
            n->call_kind = CALL_BUILTIN;
            n->builtin = BI_NP_TRANSPOSE;
            n->args = (PtrVec){0};
            vec_push(I->a, &n->args, recv);
            n->keywords.len = 0;
            n->self_node = NULL;
            n->a = ast_new(I->a, N_CONST, n->loc);
            n->a->cval.kind = CVAL_NONE;
            n->a->ty = T(I, TY_NONE);
        }
        *out = rt;
        return true;
    }
    return infer_method_attr(I, n, base, infer_np_handles, out);
}

/* ---- the feature's entry in the registry (lib/registry.h) ---- */

/* a.fill(v) stores into its receiver: refused on a read-only array. */
static Type *np_infer_call(Inf *I, Node *n, BuiltinId id, Node *self) {
    Type *t = infer_np_call(I, n, id, self);
    if (t && id == BI_ARRAY_FILL && n->kind == N_CALL) {
        Node *recv = n->self_node ? n->self_node : (n->args.len ? VEC_AT(n->args, 0) : NULL);
        Type *rt = recv ? infer_value_ty(recv) : NULL;
        if (rt && rt->kind == TY_ARRAY && rt->readonly)
            return TYPING(I, n, "Cannot modify readonly array of type: %s", infer_tyname(I, rt));
    }
    return t;
}

/* Results that may share the operand's memory. */
static bool np_is_view(const Node *call, const Type *result) {
    switch (call->builtin) {
    case BI_NP_RESHAPE: case BI_NP_RAVEL: case BI_NP_TRANSPOSE: case BI_NP_SQUEEZE:
    case BI_NP_EXPAND_DIMS: case BI_NP_FLIP:
        return true;
    case BI_NP_ASARRAY: /* no copy when the dtype is kept */
        return call->args.len && result == ((const Node *)VEC_AT(call->args, 0))->ty;
    default:
        return false;
    }
}

const LibOps lib_np_ops = {.name = "np", .infer_call = np_infer_call, .infer_attr = infer_np_attr,
                           .is_view = np_is_view, .lower_call = lower_np_call};
