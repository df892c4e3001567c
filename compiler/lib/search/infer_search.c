/* infer_search.c - typing of NumPy sorting and searching (sort, argsort,
 * searchsorted, unique, nonzero/1-argument where, argwhere, count_nonzero,
 * histogram, bincount, digitize, interp).
 *
 * Tree shape after the final pass (lower_search.c relies on
 * it): `args` has one slot per parameter as listed in sig_of, the array
 * operand in args[0] for methods too (self_node NULL), absent optional
 * arguments NULL.  Integers are cast to int64, float parameters of the
 * distributions to float64, sizes to int64 or UniTuple(int64).  String and
 * bool options (side=, right=, kind=) become N_CONST ints.
 * searchsorted/digitize: `op_ty` is the dtype both operands are compared
 * in.  rand/randn keep their dimensions as args (each int64). */
#include "infer.h"
#include "search.h"
#include "registry.h"

#include <string.h>

static Type *T(Inf *I, TyKind k) { return infer_ty(I, k); }

#define MAX_SLOTS INFER_MAX_SLOTS
#define SEARCH_MAXND 32 /* HJ_MAX_NDIM of abi.h */

typedef InferSig Sig;

static bool sig_of(BuiltinId id, Sig *s) {
#define S(name, ...) INFER_SIG(s, name, __VA_ARGS__)
    switch (id) {
    case BI_NP_SORT: S("sort", "a", "axis", "kind"); break;
    case BI_ARRAY_SORT: S("sort", "a", "axis", "kind"); break;
    case BI_NP_ARGSORT: S("argsort", "a", "axis", "kind"); break;
    case BI_NP_SEARCHSORTED: S("searchsorted", "a", "v", "side"); break;
    case BI_NP_UNIQUE: S("unique", "ar"); break;
    case BI_NP_NONZERO: S("nonzero", "a"); break;
    case BI_NP_ARGWHERE: S("argwhere", "a"); break;
    case BI_NP_COUNT_NONZERO: S("count_nonzero", "a"); break;
    case BI_NP_HISTOGRAM: S("histogram", "a", "bins", "range"); break;
    case BI_NP_BINCOUNT: S("bincount", "x", "weights", "minlength"); break;
    case BI_NP_DIGITIZE: S("digitize", "x", "bins", "right"); break;
    case BI_NP_INTERP: S("interp", "x", "xp", "fp", "left", "right"); break;
    case BI_NP_MEDIAN: S("median", "a", "axis"); break;
    case BI_NP_NANMEDIAN: S("nanmedian", "a", "axis"); break;
    case BI_NP_PERCENTILE: S("percentile", "a", "q"); break;
    case BI_NP_QUANTILE: S("quantile", "a", "q"); break;
    case BI_NP_NANPERCENTILE: S("nanpercentile", "a", "q"); break;
    case BI_NP_NANQUANTILE: S("nanquantile", "a", "q"); break;
    default: return false;
    }
#undef S
    return true;
}

static bool infer_search_handles(BuiltinId id) {
    Sig s;
    return sig_of(id, &s);
}

static bool infer_search_attr(Inf *I, Node *n, Type *base, Type **out) {
    return infer_method_attr(I, n, base, infer_search_handles, out);
}

static Node *int_const(Inf *I, SrcLoc loc, int64_t v) { return infer_const_int(I, loc, v); }

/* Type slot i (the receiver is typed already). */
static Type *slot_type(Inf *I, Node **sl, int i, Node *self) {
    if (i == 0 && self)
        return infer_value_ty(self);
    return infer_expr(I, &sl[i]);
}

/* A string option: the index of its value in `vals`, -1 after a diagnostic. */
static int str_option(Inf *I, Node **sl, int i, const char *fname, const char *what, const char *const *vals,
                      int nvals, int dflt) {
    Node *o = sl[i];
    if (!o || infer_is_none(o))
        return dflt;
    if (o->kind != N_CONST || o->cval.kind != CVAL_STR) {
        TYPING(I, o, "%s() %s must be a constant string", fname, what);
        return -1;
    }
    for (int k = 0; k < nvals; k++)
        if (strcmp(o->cval.s, vals[k]) == 0) {
            o->ty = T(I, TY_STRING);
            return k;
        }
    TYPING(I, o, "%s(): unknown %s '%s'", fname, what, o->cval.s);
    return -1;
}

/* A constant bool option (right=, replace=). -1 after a diagnostic. */
static int bool_option(Inf *I, Node **sl, int i, const char *fname, const char *what, int dflt) {
    Node *o = sl[i];
    if (!o)
        return dflt;
    if (o->kind == N_CONST && (o->cval.kind == CVAL_BOOL || o->cval.kind == CVAL_INT))
        return o->cval.i != 0;
    TYPING(I, o, "%s() %s must be a constant True or False", fname, what);
    return -1;
}

/* An optional real-number parameter cast to float64; false on error. */
static bool real_arg(Inf *I, Node **sl, int i, const char *fname, bool *unk) {
    if (!sl[i] || infer_is_none(sl[i])) {
        sl[i] = NULL;
        return true;
    }
    Type *t = infer_expr(I, &sl[i]);
    if (!t)
        return false;
    if (IS_UNK(t)) {
        *unk = true;
        return true;
    }
    if (!ty_is_number(t) || ty_is_complex(t)) {
        TYPING(I, sl[i], "%s() %s must be a real number, not %s", fname, "argument", infer_tyname(I, t));
        return false;
    }
    infer_cast(I, &sl[i], T(I, TY_FLOAT64));
    return true;
}

static Type *need_array(Inf *I, Node *at, Type *t, const char *fname) {
    if (t->kind == TY_ARRAY)
        return t;
    return TYPING(I, at, "%s() needs an array, not %s", fname, infer_tyname(I, t));
}

static bool real_dtype(Inf *I, Node *at, Type *dt, const char *fname) {
    if (ty_is_complex(dt)) {
        UNSUP(I, at, "%s() of complex values is not supported by hpcjit", fname);
        return false;
    }
    return true;
}

static Type *infer_search_call(Inf *I, Node *n, BuiltinId id, Node *self) {
    Sig s;
    if (!sig_of(id, &s))
        return UNSUP(I, n, "%s() is not supported by hpcjit yet", builtin_name(id));
    const char *fname = s.fname;
    /* npextra: np.unique(ar, return_index=...) and np.count_nonzero(a, axis)
     * are overloads (python/hpcjit/_npextra.py); the builtin keeps the
     * one-argument form */
    if (!self && (id == BI_NP_UNIQUE || id == BI_NP_COUNT_NONZERO) && n->args.len + n->keywords.len > 1) {
        int stub = infer_extend_named(I, id == BI_NP_UNIQUE ? "numpy.unique" : "numpy.count_nonzero");
        if (stub >= 0)
            return infer_stub_call(I, n, stub);
    }
    n->call_kind = CALL_BUILTIN;
    n->builtin = id;
    Node *sl[MAX_SLOTS];
    if (!infer_bind_slots(I, n, self, &s, sl))
        return NULL;
    if (!sl[0])
        return TYPING(I, n, "%s() missing required argument '%s'", fname, s.names[0]);
    Type *at = slot_type(I, sl, 0, self);
    if (!at)
        return NULL;
    bool pct = id == BI_NP_PERCENTILE || id == BI_NP_QUANTILE || id == BI_NP_NANPERCENTILE || id == BI_NP_NANQUANTILE;
    if (!self && (pct || id == BI_NP_SEARCHSORTED || id == BI_NP_DIGITIZE || id == BI_NP_INTERP) &&
        !infer_asarray_arg(I, &sl[0], &at)) /* the first operand as a list: np.asarray of it */
        return NULL;
    Type *types[MAX_SLOTS] = {at};
    bool unk = IS_UNK(at);
    /* type the other array/number operands */
    int nops = id == BI_NP_SEARCHSORTED || id == BI_NP_DIGITIZE || pct ? 2 : id == BI_NP_INTERP ? 3 : 1;
    for (int i = 1; i < nops; i++) {
        if (!sl[i])
            return TYPING(I, n, "%s() missing required argument '%s'", fname, s.names[i]);
        types[i] = infer_expr(I, &sl[i]);
        if (!types[i])
            return NULL;
        /* q, v or bins as a list or tuple of numbers: np.asarray of it, as NumPy */
        if (!infer_asarray_arg(I, &sl[i], &types[i]))
            return NULL;
        unk = unk || IS_UNK(types[i]);
    }
    if (unk)
        return TY_UNK(I);
    Type *i64 = T(I, TY_INT64);
    Type *r = NULL;
    switch (id) {
    case BI_NP_SORT:
    case BI_ARRAY_SORT:
    case BI_NP_ARGSORT: {
        if (!need_array(I, sl[0], at, fname))
            return NULL;
        static const char *const kinds[] = {"quicksort", "mergesort", "heapsort", "stable"};
        if (str_option(I, sl, 2, fname, "kind", kinds, 4, 0) < 0)
            return NULL;
        /* axis: None flattens (not for a.sort()); an int (default -1) may be
         * any expression, checked at run time (AxisError) */
        bool flat = false, unk_axis = false;
        if (sl[1] && infer_is_none(sl[1])) {
            if (id == BI_ARRAY_SORT)
                return TYPING(I, sl[1], "sort() axis must be an integer, not None");
            flat = true;
            sl[1] = NULL;
        } else if (sl[1]) {
            if (!infer_opt_int(I, sl, 1, fname, "argument", &unk_axis))
                return NULL;
            if (unk_axis)
                return TY_UNK(I);
        }
        if (at->ndim == 0 && !flat)
            return TYPING(I, sl[0], "%s(): axis -1 is out of bounds for array of dimension 0", fname);
        if (id == BI_ARRAY_SORT && at->readonly)
            return TYPING(I, sl[0], "sort() of a read-only array");
        if (I->final) {
            sl[2] = sl[1]; /* the axis (int64) or NULL: the last one */
            sl[1] = int_const(I, n->loc, flat);
        }
        Type *dt = id == BI_NP_ARGSORT ? i64 : at->dtype;
        r = id == BI_ARRAY_SORT ? T(I, TY_NONE) : ty_array(I->tc, dt, flat ? 1 : at->ndim, LAYOUT_C);
        break;
    }
    case BI_NP_MEDIAN:
    case BI_NP_NANMEDIAN: { /* args [a, axis int64 or NULL]; ty: the mean's float type */
        if (!need_array(I, sl[0], at, fname))
            return NULL;
        if (ty_is_complex(at->dtype) || at->dtype->kind == TY_BOOL)
            return UNSUP(I, sl[0], "median() of %s is not supported by hpcjit", infer_tyname(I, at));
        bool unk_axis = false;
        if (!infer_opt_int(I, sl, 1, fname, "argument", &unk_axis))
            return NULL;
        if (unk_axis)
            return TY_UNK(I);
        if (at->dtype->kind == TY_DATETIME)
            return TYPING(I, sl[0], "%s() of %s: NumPy cannot add datetimes", fname, infer_tyname(I, at));
        if (ty_is_npdt(at->dtype) && id == BI_NP_NANMEDIAN)
            return UNSUP(I, sl[0], "nanmedian() of %s is not supported by hpcjit", infer_tyname(I, at));
        Type *ft = ty_is_float(at->dtype) || ty_is_npdt(at->dtype) ? at->dtype : T(I, TY_FLOAT64);
        r = (!sl[1] || at->ndim <= 1) ? ft : ty_array(I->tc, ft, at->ndim - 1, LAYOUT_C);
        break;
    }
    case BI_NP_PERCENTILE: case BI_NP_QUANTILE: case BI_NP_NANPERCENTILE: case BI_NP_NANQUANTILE: {
        /* args [a, q]: q a float64 scalar, or an array of real numbers (not
         * cast); ty: a scalar (float32 for a float32 array, as NumPy, else
         * float64), or a float64 array of q's shape */
        if (!need_array(I, sl[0], at, fname))
            return NULL;
        if (ty_is_complex(at->dtype) || at->dtype->kind == TY_BOOL)
            return TYPING(I, sl[0], "%s() of %s is not supported", fname, infer_tyname(I, at));
        Type *qt = types[1], *qe = qt->kind == TY_ARRAY ? qt->dtype : qt;
        if (!ty_is_number(qe) || ty_is_complex(qe))
            return TYPING(I, sl[1], "%s() q must be a real number or an array of them, not %s", fname,
                          infer_tyname(I, qt));
        if (qt->kind == TY_ARRAY) {
            r = ty_array(I->tc, T(I, TY_FLOAT64), qt->ndim, LAYOUT_C);
        } else {
            infer_cast(I, &sl[1], T(I, TY_FLOAT64));
            r = at->dtype->kind == TY_FLOAT32 ? at->dtype : T(I, TY_FLOAT64);
        }
        break;
    }
    case BI_NP_SEARCHSORTED: {
        if (!need_array(I, sl[0], at, fname))
            return NULL;
        if (at->ndim != 1)
            return TYPING(I, sl[0], "searchsorted() needs a 1-D array, not %s", infer_tyname(I, at));
        Type *vt = types[1];
        if (vt->kind != TY_ARRAY && !ty_is_number(vt) && !ty_is_npdt(vt))
            return TYPING(I, sl[1], "searchsorted() v must be a number or an array, not %s", infer_tyname(I, vt));
        Type *ve = vt->kind == TY_ARRAY ? vt->dtype : vt;
        Type *dct = NULL; /* datetimes: searched in their common unit (NaT sorts last) */
        if (ty_is_npdt(at->dtype) || ty_is_npdt(ve)) {
            if (!ty_is_npdt(at->dtype) || !ty_is_npdt(ve))
                return TYPING(I, sl[1], "searchsorted() cannot search %s in %s", infer_tyname(I, vt),
                              infer_tyname(I, at));
            if (!(dct = infer_dt_compare(I, sl[1], OP_LT, at->dtype, ve)))
                return NULL;
        }
        static const char *const sides[] = {"left", "right"};
        int side = str_option(I, sl, 2, fname, "side", sides, 2, 0);
        if (side < 0)
            return NULL;
        n->op_ty = dct                    ? dct
                   : vt->kind == TY_ARRAY ? ty_np_promote(I->tc, at->dtype, vt->dtype)
                                          : ty_np_promote(I->tc, at->dtype, vt); /* v goes through np.asarray */
        if (I->final)
            sl[2] = int_const(I, n->loc, side);
        r = vt->kind == TY_ARRAY ? ty_array(I->tc, i64, vt->ndim, LAYOUT_C) : i64;
        break;
    }
    case BI_NP_DIGITIZE: {
        Type *xt = at, *bt = types[1];
        if (xt->kind != TY_ARRAY && !ty_is_number(xt))
            return TYPING(I, sl[0], "digitize() x must be a number or an array, not %s", infer_tyname(I, xt));
        if (bt->kind != TY_ARRAY || bt->ndim != 1)
            return TYPING(I, sl[1], "digitize() bins must be a 1-D array, not %s", infer_tyname(I, bt));
        if (!real_dtype(I, n, bt->dtype, fname) || !real_dtype(I, n, xt->kind == TY_ARRAY ? xt->dtype : xt, fname))
            return NULL;
        int right = bool_option(I, sl, 2, fname, "right", 0);
        if (right < 0)
            return NULL;
        n->op_ty = xt->kind == TY_ARRAY ? ty_np_promote(I->tc, bt->dtype, xt->dtype) : ty_np_promote(I->tc, bt->dtype, xt);
        if (I->final)
            sl[2] = int_const(I, n->loc, right);
        r = xt->kind == TY_ARRAY ? ty_array(I->tc, i64, xt->ndim, LAYOUT_C) : i64;
        break;
    }
    case BI_NP_UNIQUE:
        if (!need_array(I, sl[0], at, fname))
            return NULL;
        r = ty_array(I->tc, at->dtype, 1, LAYOUT_C);
        break;
    case BI_NP_NONZERO: {
        if (!need_array(I, sl[0], at, fname))
            return NULL;
        if (at->ndim == 0)
            return TYPING(I, sl[0], "Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() "
                                    "instead.");
        Type *el[SEARCH_MAXND];
        for (int i = 0; i < at->ndim; i++)
            el[i] = ty_array(I->tc, i64, 1, LAYOUT_C);
        r = ty_tuple(I->tc, el, at->ndim);
        break;
    }
    case BI_NP_ARGWHERE:
        if (!need_array(I, sl[0], at, fname))
            return NULL;
        if (at->ndim == 0)
            return UNSUP(I, sl[0], "argwhere() of a 0-d array is not supported by hpcjit");
        r = ty_array(I->tc, i64, 2, LAYOUT_C);
        break;
    case BI_NP_COUNT_NONZERO:
        if (!need_array(I, sl[0], at, fname))
            return NULL;
        r = i64;
        break;
    case BI_NP_BINCOUNT: {
        if (!need_array(I, sl[0], at, fname))
            return NULL;
        if (at->ndim != 1 || (!ty_is_int(at->dtype) && at->dtype->kind != TY_BOOL))
            return TYPING(I, sl[0], "bincount() needs a 1-D array of integers, not %s", infer_tyname(I, at));
        bool u = false;
        if (sl[1] && infer_is_none(sl[1]))
            sl[1] = NULL;
        if (sl[1]) {
            Type *wt = infer_expr(I, &sl[1]);
            if (!wt)
                return NULL;
            if (IS_UNK(wt))
                return wt;
            if (wt->kind != TY_ARRAY || wt->ndim != 1 || ty_is_complex(wt->dtype))
                return TYPING(I, sl[1], "bincount() weights must be a 1-D real array, not %s", infer_tyname(I, wt));
        }
        if (!infer_opt_int(I, sl, 2, fname, "argument", &u))
            return NULL;
        if (u)
            return TY_UNK(I);
        r = ty_array(I->tc, T(I, sl[1] ? TY_FLOAT64 : TY_INT64), 1, LAYOUT_C);
        break;
    }
    case BI_NP_INTERP: {
        Type *xt = at, *xp = types[1], *fp = types[2];
        if (xt->kind != TY_ARRAY && !ty_is_number(xt))
            return TYPING(I, sl[0], "interp() x must be a number or an array, not %s", infer_tyname(I, xt));
        if (xp->kind != TY_ARRAY || xp->ndim != 1 || fp->kind != TY_ARRAY || fp->ndim != 1)
            return TYPING(I, n, "interp() xp and fp must be 1-D arrays");
        if (!real_dtype(I, n, xp->dtype, fname) || !real_dtype(I, n, fp->dtype, fname) ||
            !real_dtype(I, n, xt->kind == TY_ARRAY ? xt->dtype : xt, fname))
            return NULL;
        bool u = false;
        if (!real_arg(I, sl, 3, fname, &u) || !real_arg(I, sl, 4, fname, &u))
            return NULL;
        if (u)
            return TY_UNK(I);
        Type *f64 = T(I, TY_FLOAT64);
        r = xt->kind == TY_ARRAY ? ty_array(I->tc, f64, xt->ndim, LAYOUT_C) : f64;
        break;
    }
    case BI_NP_HISTOGRAM: {
        if (!need_array(I, sl[0], at, fname))
            return NULL;
        if (!real_dtype(I, sl[0], at->dtype, fname))
            return NULL;
        Type *et = at->dtype->kind == TY_FLOAT32 ? at->dtype : T(I, TY_FLOAT64);
        if (sl[1]) {
            Type *bt = infer_expr(I, &sl[1]);
            if (!bt)
                return NULL;
            if (IS_UNK(bt))
                return bt;
            if (bt->kind == TY_ARRAY) {
                if (bt->ndim != 1 || !real_dtype(I, sl[1], bt->dtype, fname))
                    return TYPING(I, sl[1], "histogram() bins must be 1d");
                if (sl[2] && !infer_is_none(sl[2]))
                    return UNSUP(I, sl[2], "histogram() range= with an array of bins is not supported by hpcjit");
                sl[2] = NULL;
                et = bt->dtype;
            } else if (ty_is_int(bt)) {
                infer_cast(I, &sl[1], i64);
            } else {
                return TYPING(I, sl[1], "histogram() bins must be an int or a 1-D array, not %s",
                              infer_tyname(I, bt));
            }
        }
        if (sl[2] && infer_is_none(sl[2]))
            sl[2] = NULL;
        if (sl[2]) {
            Type *rt = infer_expr(I, &sl[2]);
            if (!rt)
                return NULL;
            if (IS_UNK(rt))
                return rt;
            if (rt->kind != TY_TUPLE || rt->nelems != 2 || !ty_is_number(rt->elems[0]) ||
                !ty_is_number(rt->elems[1]) || ty_is_complex(rt->elems[0]) || ty_is_complex(rt->elems[1]))
                return TYPING(I, sl[2], "histogram() range must be a (min, max) tuple of numbers, not %s",
                              infer_tyname(I, rt));
            Type *ff[2] = {T(I, TY_FLOAT64), T(I, TY_FLOAT64)};
            infer_cast(I, &sl[2], ty_tuple(I->tc, ff, 2));
        }
        Type *el[2] = {ty_array(I->tc, i64, 1, LAYOUT_C), ty_array(I->tc, et, 1, LAYOUT_C)};
        r = ty_tuple(I->tc, el, 2);
        break;
    }
    default: return UNSUP(I, n, "%s() is not supported by hpcjit", fname);
    }
    infer_store_slots(I, n, sl, s.n);
    return r;
}

/* the feature's entry in the registry (lib/registry.h) */
const LibOps lib_search_ops = {.name = "search", .infer_call = infer_search_call, .infer_attr = infer_search_attr,
                               .lower_call = lower_search_call};
