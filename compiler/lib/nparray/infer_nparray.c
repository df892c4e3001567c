/* infer_nparray.c - typing of more of NumPy's array functions:
 * comparisons (isclose, allclose, array_equal), elementwise predicates
 * and maps (iscomplex, isneginf, nan_to_num, sinc), compile-time answers
 * (isscalar, iscomplexobj, shape), views (swapaxes, moveaxis, atleast_nd,
 * fliplr, rot90, broadcast_to), contiguity (ascontiguousarray, ...), and
 * array methods that are other calls (a.clip, a.conj, a.item).
 *
 * Tree shape after the final pass (lowering relies on it, lower_nparray.c):
 * `args` holds one slot per parameter as NumPy names them (see sig_of),
 * the array operand in args[0] for methods too (self_node NULL), absent
 * optional arguments NULL, integer arguments cast to int64, tolerances
 * and fill values cast to float64 (or the dtype they fill), flags to
 * bool, dtype slots NULL (the dtype is in `ty`).  Elementwise functions
 * of two operands keep them uncast and record the type they are compared
 * in as `op_ty`. */
#include "infer.h"
#include "nparray.h"
#include "registry.h"

#include <string.h>

static Type *T(Inf *I, TyKind k) { return infer_ty(I, k); }

typedef InferSig Sig;

static bool sig_of(BuiltinId id, Sig *s) {
#define S(name, ...) INFER_SIG(s, name, __VA_ARGS__)
    switch (id) {
    case BI_NPA_ISCLOSE: S("isclose", "a", "b", "rtol", "atol", "equal_nan"); break;
    case BI_NPA_ALLCLOSE: S("allclose", "a", "b", "rtol", "atol", "equal_nan"); break;
    case BI_NPA_ARRAY_EQUAL: S("array_equal", "a1", "a2", "equal_nan"); break;
    case BI_NPA_ISCOMPLEX: S("iscomplex", "x"); break;
    case BI_NPA_ISREAL: S("isreal", "x"); break;
    case BI_NPA_ISNEGINF: S("isneginf", "x"); break;
    case BI_NPA_ISPOSINF: S("isposinf", "x"); break;
    case BI_NPA_NAN_TO_NUM: S("nan_to_num", "x", "copy", "nan", "posinf", "neginf"); break;
    case BI_NPA_SINC: S("sinc", "x"); break;
    case BI_NPA_ISSCALAR: S("isscalar", "element"); break;
    case BI_NPA_ISCOMPLEXOBJ: S("iscomplexobj", "x"); break;
    case BI_NPA_ISREALOBJ: S("isrealobj", "x"); break;
    case BI_NPA_SHAPE: S("shape", "a"); break;
    case BI_NPA_SWAPAXES: S("swapaxes", "a", "axis1", "axis2"); break;
    case BI_NPA_MOVEAXIS: S("moveaxis", "a", "source", "destination"); break;
    case BI_NPA_ATLEAST_1D: S("atleast_1d", "arys"); break;
    case BI_NPA_ATLEAST_2D: S("atleast_2d", "arys"); break;
    case BI_NPA_ATLEAST_3D: S("atleast_3d", "arys"); break;
    case BI_NPA_FLIPLR: S("fliplr", "m"); break;
    case BI_NPA_FLIPUD: S("flipud", "m"); break;
    case BI_NPA_ROT90: S("rot90", "m", "k", "axes"); break;
    case BI_NPA_BROADCAST_TO: S("broadcast_to", "array", "shape"); break;
    case BI_NPA_ASCONTIGUOUSARRAY: S("ascontiguousarray", "a", "dtype"); break;
    case BI_NPA_ASFORTRANARRAY: S("asfortranarray", "a", "dtype"); break;
    case BI_NPA_ARRAY_CLIP: S("clip", "a", "min", "max"); break;
    case BI_NPA_ARRAY_CONJ: S("conj", "a"); break;
    case BI_NPA_ARRAY_ITEM: S("item", "a", "index"); break;
    case BI_NPA_ARRAY_VIEW: S("view", "a", "dtype"); break;
    case BI_NPA_ARRAY_TOBYTES: S("tobytes", "a"); break;
    case BI_NPA_FROMBUFFER: S("frombuffer", "buffer", "dtype", "count", "offset"); break;
    case BI_NPA_FLAT_VIEW: S("flat", "a", "index"); break;
    case BI_NPA_NDITER_VIEW: S("nditer_view", "a", "index", "shape", "fortran"); break;
    case BI_NPA_UNPACK: S("unpack", "a", "n"); break;
    case BI_NPA_DIAG: S("diag", "v", "k"); break;
    case BI_NPA_DIAGFLAT: S("diagflat", "v", "k"); break;
    case BI_NPA_TRI: S("tri", "N", "M", "k", "dtype"); break;
    case BI_NPA_FILL_DIAGONAL: S("fill_diagonal", "a", "val", "wrap"); break;
    case BI_NPA_INDICES: S("indices", "dimensions", "dtype"); break;
    case BI_NPA_VANDER: S("vander", "x", "N", "increasing"); break;
    case BI_NPA_TRIL_INDICES: S("tril_indices", "n", "k", "m"); break;
    case BI_NPA_TRIU_INDICES: S("triu_indices", "n", "k", "m"); break;
    case BI_NPA_TRIL_INDICES_FROM: S("tril_indices_from", "arr", "k"); break;
    case BI_NPA_TRIU_INDICES_FROM: S("triu_indices_from", "arr", "k"); break;
    case BI_NPA_FLATNONZERO: S("flatnonzero", "a"); break;
    case BI_NPA_EXTRACT: S("extract", "condition", "arr"); break;
    case BI_NPA_APPEND: S("append", "arr", "values", "axis"); break;
    case BI_NPA_DELETE: S("delete", "arr", "obj", "axis"); break;
    case BI_NPA_INSERT: S("insert", "arr", "obj", "values", "axis"); break;
    case BI_NPA_TRIM_ZEROS: S("trim_zeros", "filt", "trim"); break;
    case BI_NPA_EDIFF1D: S("ediff1d", "ary", "to_end", "to_begin"); break;
    case BI_NPA_TAKE: S("take", "a", "indices", "axis"); break;
    case BI_NPA_TAKE_ALONG_AXIS: S("take_along_axis", "arr", "indices", "axis"); break;
    case BI_NPA_RESIZE: S("resize", "a", "new_shape"); break;
    case BI_NPA_COLUMN_STACK: S("column_stack", "tup"); break;
    case BI_NPA_DSTACK: S("dstack", "tup"); break;
    case BI_NPA_SELECT: S("select", "condlist", "choicelist", "default"); break;
    case BI_NPA_BARTLETT: S("bartlett", "M"); break;
    case BI_NPA_BLACKMAN: S("blackman", "M"); break;
    case BI_NPA_HAMMING: S("hamming", "M"); break;
    case BI_NPA_HANNING: S("hanning", "M"); break;
    case BI_NPA_KAISER: S("kaiser", "M", "beta"); break;
    case BI_NPA_LOGSPACE: S("logspace", "start", "stop", "num", "endpoint", "base"); break;
    case BI_NPA_GEOMSPACE: S("geomspace", "start", "stop", "num", "endpoint"); break;
    case BI_NPA_TRAPEZOID: S("trapezoid", "y", "x", "dx", "axis"); break;
    case BI_NPA_CROSS: S("cross", "a", "b"); break;
    case BI_NPA_CONVOLVE: S("convolve", "a", "v", "mode"); break;
    case BI_NPA_CORRELATE: S("correlate", "a", "v", "mode"); break;
    case BI_NPA_UNWRAP: S("unwrap", "p", "discont", "axis", "period"); break;
    case BI_NPA_MODF: S("modf", "x"); break;
    case BI_NPA_FREXP: S("frexp", "x"); break;
    case BI_NPA_ROOTS: S("roots", "p"); break;
    case BI_NPA_PARTITION: S("partition", "a", "kth", "axis"); break;
    case BI_NPA_ARGPARTITION: S("argpartition", "a", "kth", "axis"); break;
    case BI_NPA_AS_STRIDED: S("as_strided", "x", "shape", "strides", "subok", "writeable"); break;
    case BI_NPA_SLIDING_WINDOW_VIEW: S("sliding_window_view", "x", "window_shape", "axis", "subok", "writeable"); break;
    case BI_NPA_BROADCAST_ARRAYS: S("broadcast_arrays", "*args", "*args", "*args", "*args", "*args", "*args"); break;
    case BI_NPA_BROADCAST_SHAPES: S("broadcast_shapes", "*args", "*args", "*args", "*args", "*args", "*args"); break;
    case BI_NPA_ASARRAY_CHKFINITE: S("asarray_chkfinite", "a", "dtype"); break;
    case BI_NPA_ISIN: S("isin", "element", "test_elements", "assume_unique", "invert"); break;
    case BI_NPA_INTERSECT1D: S("intersect1d", "ar1", "ar2", "assume_unique", "return_indices"); break;
    case BI_NPA_UNION1D: S("union1d", "ar1", "ar2"); break;
    case BI_NPA_SETDIFF1D: S("setdiff1d", "ar1", "ar2", "assume_unique"); break;
    case BI_NPA_SETXOR1D: S("setxor1d", "ar1", "ar2", "assume_unique"); break;
    case BI_NPA_SPLIT: S("split", "ary", "indices_or_sections", "axis"); break;
    case BI_NPA_ARRAY_SPLIT: S("array_split", "ary", "indices_or_sections", "axis"); break;
    case BI_NPA_HSPLIT: S("hsplit", "ary", "indices_or_sections"); break;
    case BI_NPA_VSPLIT: S("vsplit", "ary", "indices_or_sections"); break;
    case BI_NPA_DSPLIT: S("dsplit", "ary", "indices_or_sections"); break;
    default: return false;
    }
#undef S
    return true;
}

static bool handles(BuiltinId id) {
    Sig s;
    return sig_of(id, &s);
}

/* ---- argument helpers ---- */

static Type *elt(Type *t) { return t->kind == TY_ARRAY ? t->dtype : t; }

/* An optional real number (rtol, nan=...): cast to `to`. */
static bool opt_real(Inf *I, Node **sl, int i, const char *fname, const char *what, Type *to, bool *unk) {
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
        TYPING(I, sl[i], "%s() %s must be a real number, not %s", fname, what, infer_tyname(I, t));
        return false;
    }
    infer_cast(I, &sl[i], to);
    return true;
}

/* An optional flag (equal_nan, copy): made bool. */
static bool opt_flag(Inf *I, Node **sl, int i, const char *fname, const char *what, bool *unk) {
    if (!sl[i])
        return true;
    Type *t = infer_expr(I, &sl[i]);
    if (!t)
        return false;
    if (IS_UNK(t)) {
        *unk = true;
        return true;
    }
    if (t->kind != TY_BOOL && !ty_is_int(t)) {
        TYPING(I, sl[i], "%s() %s must be a bool, not %s", fname, what, infer_tyname(I, t));
        return false;
    }
    infer_cast(I, &sl[i], T(I, TY_BOOL));
    return true;
}

/* An array or a number (of a number dtype). */
static Type *num_or_array(Inf *I, Node *at, Type *t, const char *fname, const char *what) {
    if (ty_is_number(elt(t)))
        return t;
    return TYPING(I, at, "%s() %s must be a number or an array of numbers, not %s", fname, what,
                  infer_tyname(I, t));
}

static Type *need_array(Inf *I, Node *at, Type *t, const char *fname, const char *what) {
    if (t->kind == TY_ARRAY)
        return t;
    return TYPING(I, at, "%s() %s must be an array, not %s", fname, what, infer_tyname(I, t));
}

/* The final pass turns the call n into a constant bool. */
static Type *const_bool(Inf *I, Node *n, bool v) {
    if (I->final) {
        n->kind = N_CONST;
        n->cval.kind = CVAL_BOOL;
        n->cval.i = v;
        n->args.len = 0;
        n->keywords.len = 0;
        n->self_node = NULL;
    }
    return T(I, TY_BOOL);
}

/* The type isclose compares in: NumPy makes y inexact (result_type(y,
 * 1.0)), then x - y promotes. */
static Type *close_type(Inf *I, Type *x, Type *y) {
    Type *ey = elt(y);
    if (!ty_is_float(ey) && !ty_is_complex(ey))
        ey = T(I, TY_FLOAT64);
    return ty_np_promote(I->tc, elt(x), ey);
}

/* The result of an elementwise function: a C array of the larger rank,
 * or the scalar when no operand is an array. */
static Type *ew_result(Inf *I, Type *dt, Type *a, Type *b) {
    int nd = -1;
    if (a->kind == TY_ARRAY)
        nd = a->ndim;
    if (b && b->kind == TY_ARRAY && b->ndim > nd)
        nd = b->ndim;
    return nd < 0 ? dt : ty_array(I->tc, dt, nd, LAYOUT_C);
}

/* ---- methods that are other calls ---- */

/* a.clip(min, max) is np.clip(a, min, max), a.conj() np.conjugate(a): the
 * ufuncs of the core's array expressions.  The final pass rewrites n
 * itself; earlier passes type a copy. */
static Type *as_ufunc(Inf *I, Node *n, BuiltinId uf, Node **sl, int k) {
    Node *c = n;
    if (!I->final) {
        c = ast_new(I->a, N_CALL, n->loc);
        *c = *n;
    }
    c->args = (PtrVec){0};
    Type *tys[3];
    for (int i = 0; i < k; i++) {
        vec_push(I->a, &c->args, sl[i]);
        tys[i] = infer_expr(I, (Node **)&VEC_AT(c->args, i));
        if (!tys[i])
            return NULL;
        if (IS_UNK(tys[i]))
            return tys[i];
    }
    c->keywords.len = 0;
    c->self_node = NULL;
    if (I->final)
        c->a = NULL; /* typed: infer_expr keeps a callee-less builtin call as it is */
    return infer_ae_ufunc_call(I, c, uf, tys);
}

/* ---- building and selecting ---- */

/* A tuple of arrays of at most maxnd dimensions: the promoted dtype. */
static Type *array_tuple(Inf *I, Node *at, Type *t, const char *fname, int maxnd) {
    if (t->kind != TY_TUPLE || t->nelems == 0)
        return TYPING(I, at, "%s() needs a non-empty tuple of arrays, not %s", fname, infer_tyname(I, t));
    Type *dt = NULL;
    for (int i = 0; i < t->nelems; i++) {
        Type *e = t->elems[i];
        if (e->kind != TY_ARRAY || !ty_is_number(e->dtype))
            return TYPING(I, at, "%s() needs a tuple of arrays, not %s", fname, infer_tyname(I, t));
        if (e->ndim > maxnd || e->ndim == 0)
            return UNSUP(I, at, "%s() of %dd arrays is not supported by hpcjit (1d to %dd)", fname, e->ndim, maxnd);
        dt = dt ? ty_np_promote(I->tc, dt, e->dtype) : e->dtype;
    }
    return dt;
}

/* Values put into an array of dtype dt (fill_diagonal, insert, ediff1d):
 * a number or an array of numbers that NumPy casts under same_kind. */
static bool fits_kind(Type *from, Type *to) {
    if (ty_is_complex(from))
        return ty_is_complex(to);
    if (ty_is_float(from))
        return ty_is_float(to) || ty_is_complex(to);
    if (ty_is_int(from))
        return to->kind != TY_BOOL && (ty_is_signed(to) || !ty_is_signed(from) || !ty_is_int(to));
    return true;
}

/* bool < integers < floats < complex */
static int kind_rank(const Type *t) {
    return t->kind == TY_BOOL ? 0 : ty_is_int(t) ? 1 : ty_is_float(t) ? 2 : 3;
}

/* The arrays of a tuple or a list of arrays (select's condlist and
 * choicelist): the promoted dtype, the largest ndim. */
static Type *array_seq(Inf *I, Node *at, Type *t, const char *fname, const char *what, int *nd) {
    Type *dt = NULL;
    int k = t->kind == TY_TUPLE ? t->nelems : 1;
    if ((t->kind != TY_TUPLE && t->kind != TY_LIST) || (t->kind == TY_TUPLE && k == 0))
        return TYPING(I, at, "%s() %s must be a non-empty tuple or a list of arrays, not %s", fname, what,
                      infer_tyname(I, t));
    for (int i = 0; i < k; i++) {
        Type *e = t->kind == TY_TUPLE ? t->elems[i] : t->item;
        if (e->kind != TY_ARRAY || !ty_is_number(e->dtype))
            return TYPING(I, at, "%s() %s must hold arrays, not %s", fname, what, infer_tyname(I, t));
        if (i > 0 && e->ndim != *nd)
            return UNSUP(I, at, "%s() of arrays of different dimensions is not supported by hpcjit", fname);
        *nd = e->ndim;
        dt = dt ? ty_np_promote(I->tc, dt, e->dtype) : e->dtype;
    }
    return dt;
}

static Type *make_call(Inf *I, Node *n, BuiltinId id, const Sig *s, Node **sl, Type *at) {
    const char *fname = s->fname;
    bool unk = false;
    Type *i64 = T(I, TY_INT64), *rt = NULL;
    Type *t1 = NULL;
    /* the second argument, where it is an operand */
    switch (id) {
    case BI_NPA_FILL_DIAGONAL: case BI_NPA_EXTRACT: case BI_NPA_APPEND: case BI_NPA_DELETE: case BI_NPA_INSERT:
    case BI_NPA_TAKE: case BI_NPA_TAKE_ALONG_AXIS: case BI_NPA_SELECT: case BI_NPA_SPLIT: case BI_NPA_ARRAY_SPLIT:
    case BI_NPA_HSPLIT: case BI_NPA_VSPLIT: case BI_NPA_DSPLIT: case BI_NPA_ISIN: case BI_NPA_INTERSECT1D:
    case BI_NPA_UNION1D: case BI_NPA_SETDIFF1D: case BI_NPA_SETXOR1D:
        if (!sl[1])
            return TYPING(I, n, "%s() missing required argument '%s'", fname, s->names[1]);
        if (!(t1 = infer_expr(I, &sl[1])))
            return NULL;
        unk = IS_UNK(t1);
        break;
    default: break;
    }
    if (IS_UNK(at) || unk)
        return TY_UNK(I);
    switch (id) {
    case BI_NPA_DIAG: case BI_NPA_DIAGFLAT:
        if (!(id == BI_NPA_DIAG ? need_array(I, sl[0], at, fname, "v") : num_or_array(I, sl[0], at, fname, "v")) ||
            !infer_opt_int(I, sl, 1, fname, "k", &unk))
            return NULL;
        if (id == BI_NPA_DIAG && at->ndim != 1 && at->ndim != 2)
            return TYPING(I, sl[0], "diag(): Input must be 1- or 2-d.");
        rt = ty_array(I->tc, elt(at), id == BI_NPA_DIAG && at->ndim == 2 ? 1 : 2, LAYOUT_C);
        break;
    case BI_NPA_TRI: {
        if (!infer_req_int(I, n, sl, 0, fname, "N", &unk) || !infer_opt_int(I, sl, 1, fname, "M", &unk) ||
            !infer_opt_int(I, sl, 2, fname, "k", &unk))
            return NULL;
        Type *dt = T(I, TY_FLOAT64);
        if (sl[3] && !infer_is_none(sl[3]) && !(dt = infer_dtype_arg(I, &sl[3])))
            return NULL;
        if (unk || IS_UNK(dt))
            return TY_UNK(I);
        sl[3] = NULL;
        rt = ty_array(I->tc, dt, 2, LAYOUT_C);
        break;
    }
    case BI_NPA_FILL_DIAGONAL:
        if (!need_array(I, sl[0], at, fname, "a") || !opt_flag(I, sl, 2, fname, "wrap", &unk))
            return NULL;
        if (at->ndim < 2)
            return TYPING(I, sl[0], "fill_diagonal(): array must be at least 2-d");
        if (at->readonly)
            return TYPING(I, sl[0], "Cannot modify readonly array of type: %s", infer_tyname(I, at));
        if (!num_or_array(I, sl[1], t1, fname, "val"))
            return NULL;
        if (t1->kind == TY_ARRAY && t1->ndim != 1)
            return UNSUP(I, sl[1], "fill_diagonal() with a %dd val is not supported by hpcjit (a number or a 1d array)",
                         t1->ndim);
        if (ty_is_complex(elt(t1)) && !ty_is_complex(at->dtype))
            return TYPING(I, sl[1], "fill_diagonal(): cannot fill a %s array with %s", infer_tyname(I, at->dtype),
                          infer_tyname(I, elt(t1)));
        if (t1->kind != TY_ARRAY)
            infer_cast(I, &sl[1], at->dtype);
        rt = T(I, TY_NONE);
        break;
    case BI_NPA_INDICES: {
        int k = infer_int_tuple(I, &sl[0], fname, "dimensions", &unk);
        if (k < 0)
            return NULL;
        Type *dt = i64;
        if (sl[1] && !(dt = infer_dtype_arg(I, &sl[1])))
            return NULL;
        if (unk || IS_UNK(dt))
            return TY_UNK(I);
        if (sl[0]->ty->kind != TY_TUPLE)
            return TYPING(I, sl[0], "indices() dimensions must be a tuple of ints");
        sl[1] = NULL;
        rt = ty_array(I->tc, dt, k + 1, LAYOUT_C);
        break;
    }
    case BI_NPA_VANDER:
        if (!need_array(I, sl[0], at, fname, "x") || !infer_opt_int(I, sl, 1, fname, "N", &unk) ||
            !opt_flag(I, sl, 2, fname, "increasing", &unk))
            return NULL;
        if (at->ndim != 1)
            return TYPING(I, sl[0], "vander(): x must be a one-dimensional array or sequence.");
        if (!ty_is_number(at->dtype))
            return TYPING(I, sl[0], "vander() needs numbers, not %s", infer_tyname(I, at));
        rt = ty_array(I->tc, ty_np_promote(I->tc, at->dtype, i64), 2, LAYOUT_C);
        break;
    case BI_NPA_TRIL_INDICES: case BI_NPA_TRIU_INDICES: case BI_NPA_TRIL_INDICES_FROM: case BI_NPA_TRIU_INDICES_FROM: {
        bool from = id == BI_NPA_TRIL_INDICES_FROM || id == BI_NPA_TRIU_INDICES_FROM;
        if (from) {
            if (!need_array(I, sl[0], at, fname, "arr"))
                return NULL;
            if (at->ndim != 2)
                return TYPING(I, sl[0], "%s(): input array must be 2-d", fname);
        } else if (!infer_req_int(I, n, sl, 0, fname, "n", &unk) || (s->n > 2 && !infer_opt_int(I, sl, 2, fname, "m", &unk))) {
            return NULL;
        }
        if (!infer_opt_int(I, sl, 1, fname, "k", &unk))
            return NULL;
        Type *a1 = ty_array(I->tc, i64, 1, LAYOUT_C);
        Type *el[2] = {a1, a1};
        rt = ty_tuple(I->tc, el, 2);
        break;
    }
    case BI_NPA_FLATNONZERO:
        if (!need_array(I, sl[0], at, fname, "a"))
            return NULL;
        rt = ty_array(I->tc, i64, 1, LAYOUT_C);
        break;
    case BI_NPA_EXTRACT:
        if (!need_array(I, sl[0], at, fname, "condition") || !need_array(I, sl[1], t1, fname, "arr"))
            return NULL;
        if (!ty_is_number(at->dtype))
            return TYPING(I, sl[0], "extract() condition must be an array of numbers or bools, not %s",
                          infer_tyname(I, at));
        rt = ty_array(I->tc, t1->dtype, 1, LAYOUT_C);
        break;
    case BI_NPA_APPEND: /* arr and values as lists: np.asarray of them, as NumPy */
        if (!infer_asarray_arg(I, &sl[0], &at) || !infer_asarray_arg(I, &sl[1], &t1))
            return NULL;
        if (!num_or_array(I, sl[0], at, fname, "arr") || !num_or_array(I, sl[1], t1, fname, "values") ||
            !infer_opt_int(I, sl, 2, fname, "axis", &unk))
            return NULL;
        if (sl[2] && (at->kind != TY_ARRAY || t1->kind != TY_ARRAY || at->ndim != t1->ndim))
            return TYPING(I, n, "append(): with an axis, arr and values must be arrays of the same number of "
                          "dimensions");
        if (sl[2] && at->ndim == 0)
            return TYPING(I, n, "append(): zero-dimensional arrays cannot be concatenated");
        rt = ty_array(I->tc, ty_np_promote(I->tc, elt(at), elt(t1)), sl[2] ? at->ndim : 1, LAYOUT_C);
        break;
    case BI_NPA_DELETE: case BI_NPA_TAKE:
        if (!need_array(I, sl[0], at, fname, id == BI_NPA_TAKE ? "a" : "arr"))
            return NULL;
        if (sl[2] && !infer_is_none(sl[2]))
            return UNSUP(I, sl[2], "%s() with an axis is not supported by hpcjit", fname);
        sl[2] = NULL;
        if (ty_is_int(t1) || t1->kind == TY_BOOL) {
            infer_cast(I, &sl[1], i64);
            rt = id == BI_NPA_TAKE ? at->dtype : ty_array(I->tc, at->dtype, 1, LAYOUT_C);
        } else if (t1->kind == TY_ARRAY && ty_is_int(t1->dtype) && (id == BI_NPA_TAKE || t1->ndim == 1)) {
            rt = ty_array(I->tc, at->dtype, id == BI_NPA_TAKE ? t1->ndim : 1, LAYOUT_C);
        } else {
            return TYPING(I, sl[1], "%s() %s must be an integer or an array of integers%s, not %s", fname,
                          s->names[1], id == BI_NPA_DELETE ? " (1d)" : "", infer_tyname(I, t1));
        }
        break;
    case BI_NPA_INSERT: {
        if (!need_array(I, sl[0], at, fname, "arr"))
            return NULL;
        if (!ty_is_int(t1))
            return UNSUP(I, sl[1], "insert() obj must be an integer in hpcjit, not %s", infer_tyname(I, t1));
        infer_cast(I, &sl[1], i64);
        if (!sl[2])
            return TYPING(I, n, "insert() missing required argument 'values'");
        Type *vt = infer_expr(I, &sl[2]);
        if (!vt)
            return NULL;
        if (IS_UNK(vt))
            return vt;
        if (!num_or_array(I, sl[2], vt, fname, "values"))
            return NULL;
        if (vt->kind == TY_ARRAY && vt->ndim > 1)
            return UNSUP(I, sl[2], "insert() of %dd values is not supported by hpcjit (a number or a 1d array)",
                         vt->ndim);
        if (ty_is_complex(elt(vt)) && !ty_is_complex(at->dtype))
            return TYPING(I, sl[2], "insert(): cannot insert %s into a %s array", infer_tyname(I, elt(vt)),
                          infer_tyname(I, at->dtype));
        if (sl[3] && !infer_is_none(sl[3]))
            return UNSUP(I, sl[3], "insert() with an axis is not supported by hpcjit");
        sl[3] = NULL;
        if (vt->kind != TY_ARRAY)
            infer_cast(I, &sl[2], at->dtype);
        rt = ty_array(I->tc, at->dtype, 1, LAYOUT_C);
        break;
    }
    case BI_NPA_TRIM_ZEROS: {
        if (!need_array(I, sl[0], at, fname, "filt"))
            return NULL;
        if (at->ndim != 1)
            return UNSUP(I, sl[0], "trim_zeros() of a %dd array is not supported by hpcjit", at->ndim);
        int mode = 3; /* bit 0: front, bit 1: back */
        if (sl[1]) {
            if (sl[1]->kind != N_CONST || sl[1]->cval.kind != CVAL_STR)
                return TYPING(I, sl[1], "trim_zeros() trim must be a constant string");
            const char *t = sl[1]->cval.s;
            mode = 0;
            for (const char *c = t; *c; c++) {
                if (*c == 'f' || *c == 'F')
                    mode |= 1;
                else if (*c == 'b' || *c == 'B')
                    mode |= 2;
                else
                    return TYPING(I, sl[1], "trim_zeros(): unexpected character(s) in `trim`: '%s'", t);
            }
        }
        n->cval.kind = CVAL_INT; /* the trim mode for lowering */
        n->cval.i = mode;
        sl[1] = NULL;
        rt = ty_array(I->tc, at->dtype, 1, at->layout == LAYOUT_C ? LAYOUT_C : LAYOUT_A);
        break;
    }
    case BI_NPA_EDIFF1D:
        if (!need_array(I, sl[0], at, fname, "ary"))
            return NULL;
        if (at->dtype->kind == TY_BOOL)
            return TYPING(I, sl[0], "ediff1d(): numpy boolean subtract, the `-` operator, is not supported, use the "
                          "bitwise_xor, the `^` operator, or the logical_xor function instead.");
        for (int i = 1; i < 3; i++) {
            if (!sl[i] || infer_is_none(sl[i])) {
                sl[i] = NULL;
                continue;
            }
            Type *t = infer_expr(I, &sl[i]);
            if (!t)
                return NULL;
            if (IS_UNK(t))
                return t;
            if (!num_or_array(I, sl[i], t, fname, s->names[i]))
                return NULL;
            if (!fits_kind(elt(t), at->dtype))
                return TYPING(I, sl[i], "dtype of `%s` must be compatible with input `ary` under the `same_kind` rule.",
                              s->names[i]);
            if (t->kind != TY_ARRAY)
                infer_cast(I, &sl[i], at->dtype);
        }
        rt = ty_array(I->tc, at->dtype, 1, LAYOUT_C);
        break;
    case BI_NPA_TAKE_ALONG_AXIS:
        if (!need_array(I, sl[0], at, fname, "arr") || !need_array(I, sl[1], t1, fname, "indices"))
            return NULL;
        if (!ty_is_int(t1->dtype))
            return TYPING(I, sl[1], "take_along_axis(): `indices` must be an integer array");
        if (t1->ndim != at->ndim)
            return TYPING(I, sl[1], "take_along_axis(): `indices` and `arr` must have the same number of dimensions");
        if (sl[2] && infer_is_none(sl[2]))
            return UNSUP(I, sl[2], "take_along_axis() with axis=None is not supported by hpcjit");
        if (!infer_opt_int(I, sl, 2, fname, "axis", &unk))
            return NULL;
        if (at->ndim == 0)
            return TYPING(I, sl[0], "take_along_axis(): axis -1 is out of bounds for array of dimension 0");
        rt = ty_array(I->tc, at->dtype, at->ndim, LAYOUT_C);
        break;
    case BI_NPA_RESIZE: {
        if (!need_array(I, sl[0], at, fname, "a"))
            return NULL;
        if (!sl[1])
            return TYPING(I, n, "resize() missing required argument 'new_shape'");
        int k = infer_int_tuple(I, &sl[1], fname, "new_shape", &unk);
        if (k < 0)
            return NULL;
        rt = ty_array(I->tc, at->dtype, k, LAYOUT_C);
        break;
    }
    case BI_NPA_COLUMN_STACK: case BI_NPA_DSTACK: {
        int rnd = id == BI_NPA_COLUMN_STACK ? 2 : 3;
        Type *dt = array_tuple(I, sl[0], at, fname, rnd);
        if (!dt)
            return NULL;
        rt = ty_array(I->tc, dt, rnd, LAYOUT_C);
        break;
    }
    case BI_NPA_SELECT: {
        int nc = 0, nv = 0;
        Type *cdt = array_seq(I, sl[0], at, fname, "condlist", &nc);
        Type *dt = cdt ? array_seq(I, sl[1], t1, fname, "choicelist", &nv) : NULL;
        if (!dt)
            return NULL;
        int k0 = at->kind == TY_TUPLE ? at->nelems : -1, k1 = t1->kind == TY_TUPLE ? t1->nelems : -1;
        if (k0 >= 0 && k1 >= 0 && k0 != k1)
            return TYPING(I, n, "select(): list of cases must be same length as list of conditions");
        for (int i = 0; i < (k0 >= 0 ? k0 : 1); i++) {
            Type *e = at->kind == TY_TUPLE ? at->elems[i] : at->item;
            if (e->dtype->kind != TY_BOOL)
                return TYPING(I, sl[0], "select(): invalid entry %d in condlist: should be boolean ndarray", i);
        }
        if (nc != nv)
            return UNSUP(I, n, "select() of conditions and choices of different dimensions is not supported by hpcjit");
        for (int side = 0; side < 2 && (at->kind == TY_LIST) != (t1->kind == TY_LIST); side++) {
            Type *tt = side ? t1 : at; /* with a list on the other side, a tuple of one array type */
            for (int i = 1; tt->kind == TY_TUPLE && i < tt->nelems; i++)
                if (tt->elems[i] != tt->elems[0])
                    return UNSUP(I, sl[side], "select() of a list and a tuple of arrays of different types is not "
                                 "supported by hpcjit");
        }
        if (sl[2]) { /* the default is a weak Python scalar, as NumPy 2's */
            Type *d = infer_expr(I, &sl[2]);
            if (!d)
                return NULL;
            if (IS_UNK(d))
                return d;
            if (!ty_is_number(d))
                return TYPING(I, sl[2], "select() default must be a number, not %s", infer_tyname(I, d));
            if (kind_rank(d) > kind_rank(dt))
                dt = ty_np_promote(I->tc, dt, d);
        }
        rt = ty_array(I->tc, dt, nv, LAYOUT_C);
        break;
    }
    case BI_NPA_ISIN: case BI_NPA_INTERSECT1D: case BI_NPA_UNION1D: case BI_NPA_SETDIFF1D: case BI_NPA_SETXOR1D: {
        if (!num_or_array(I, sl[0], at, fname, s->names[0]) || !num_or_array(I, sl[1], t1, fname, s->names[1]))
            return NULL;
        Type *ct = ty_np_promote(I->tc, elt(at), elt(t1));
        if (id == BI_NPA_UNION1D) { /* concatenate: a Python number is weak (NumPy 2) */
            if (t1->kind != TY_ARRAY && at->kind == TY_ARRAY && kind_rank(t1) <= kind_rank(at->dtype))
                ct = at->dtype;
            if (at->kind != TY_ARRAY && t1->kind == TY_ARRAY && kind_rank(at) <= kind_rank(t1->dtype))
                ct = t1->dtype;
        }
        if (ty_is_complex(ct))
            return UNSUP(I, n, "%s() of complex numbers is not supported by hpcjit", fname);
        for (int i = 2; i < s->n; i++) /* assume_unique (the result is the same), invert, return_indices */
            if (!opt_flag(I, sl, i, fname, s->names[i], &unk))
                return NULL;
        if (id == BI_NPA_INTERSECT1D && sl[3]) {
            const Node *r = sl[3]->kind == N_CAST ? sl[3]->a : sl[3];
            if (r->kind != N_CONST || r->cval.i != 0)
                return UNSUP(I, sl[3], "intersect1d() with return_indices is not supported by hpcjit");
            sl[3] = NULL;
        }
        n->op_ty = ct;
        if (id == BI_NPA_ISIN)
            rt = ty_array(I->tc, T(I, TY_BOOL), at->kind == TY_ARRAY ? at->ndim : 0, LAYOUT_C);
        else
            rt = ty_array(I->tc, id == BI_NPA_SETDIFF1D ? elt(at) : ct, 1, LAYOUT_C);
        break;
    }
    case BI_NPA_SPLIT: case BI_NPA_ARRAY_SPLIT: case BI_NPA_HSPLIT: case BI_NPA_VSPLIT: case BI_NPA_DSPLIT: {
        if (!need_array(I, sl[0], at, fname, "ary"))
            return NULL;
        int need = id == BI_NPA_VSPLIT ? 2 : id == BI_NPA_DSPLIT ? 3 : 1;
        if (at->ndim < need)
            return TYPING(I, sl[0], "%s only works on arrays of %d or more dimensions", fname, need);
        if (ty_is_int(t1) || t1->kind == TY_BOOL) {
            infer_cast(I, &sl[1], i64);
        } else if (t1->kind == TY_TUPLE) {
            if (infer_int_tuple(I, &sl[1], fname, "indices_or_sections", &unk) < 0)
                return NULL;
        } else if (!(t1->kind == TY_ARRAY && t1->ndim == 1 && ty_is_int(t1->dtype))) {
            return TYPING(I, sl[1], "%s() indices_or_sections must be an integer, a tuple or a 1d array of integers, "
                          "not %s", fname, infer_tyname(I, t1));
        }
        bool axis0 = id == BI_NPA_VSPLIT || (id == BI_NPA_HSPLIT && at->ndim == 1);
        if (id == BI_NPA_SPLIT || id == BI_NPA_ARRAY_SPLIT) {
            if (!infer_opt_int(I, sl, 2, fname, "axis", &unk))
                return NULL;
            axis0 = !sl[2];
        }
        Type *item = ty_array(I->tc, at->dtype, at->ndim, axis0 && at->layout == LAYOUT_C ? LAYOUT_C : LAYOUT_A);
        rt = ty_list(I->tc, ty_set_readonly(I->tc, item, at->readonly));
        break;
    }
    default:
        return UNSUP(I, n, "%s() is not supported by hpcjit yet", fname);
    }
    if (unk)
        return TY_UNK(I);
    infer_store_slots(I, n, sl, s->n);
    return rt;
}

/* ---- numerics ---- */

/* A float of t's kind: float32 stays, complex stays, the rest float64. */
static Type *inexact(Inf *I, Type *t) {
    return (ty_is_float(t) || ty_is_complex(t)) ? t : T(I, TY_FLOAT64);
}

static Type *num_call(Inf *I, Node *n, BuiltinId id, const Sig *s, Node **sl, Type *at) {
    const char *fname = s->fname;
    bool unk = false;
    Type *f64 = T(I, TY_FLOAT64), *rt = NULL;
    if (IS_UNK(at))
        return at;
    switch (id) {
    case BI_NPA_BARTLETT: case BI_NPA_BLACKMAN: case BI_NPA_HAMMING: case BI_NPA_HANNING: case BI_NPA_KAISER:
        if (!infer_req_int(I, n, sl, 0, fname, "M", &unk))
            return NULL;
        if (id == BI_NPA_KAISER) {
            if (!sl[1])
                return TYPING(I, n, "kaiser() missing required argument 'beta'");
            if (!opt_real(I, sl, 1, fname, "beta", f64, &unk))
                return NULL;
        }
        rt = ty_array(I->tc, f64, 1, LAYOUT_C);
        break;
    case BI_NPA_LOGSPACE: case BI_NPA_GEOMSPACE:
        if (!sl[1])
            return TYPING(I, n, "%s() missing required argument 'stop'", fname);
        for (int i = 0; i < 2; i++) {
            Type *t = infer_expr(I, &sl[i]);
            if (!t)
                return NULL;
            if (!IS_UNK(t) && ty_is_complex(t))
                return UNSUP(I, sl[i], "%s() of complex numbers is not supported by hpcjit", fname);
            if (!opt_real(I, sl, i, fname, s->names[i], f64, &unk))
                return NULL;
        }
        if (!infer_opt_int(I, sl, 2, fname, "num", &unk) || !opt_flag(I, sl, 3, fname, "endpoint", &unk))
            return NULL;
        if (id == BI_NPA_LOGSPACE && !opt_real(I, sl, 4, fname, "base", f64, &unk))
            return NULL;
        rt = ty_array(I->tc, f64, 1, LAYOUT_C);
        break;
    case BI_NPA_TRAPEZOID: {
        if (!need_array(I, sl[0], at, fname, "y"))
            return NULL;
        if (at->ndim != 1)
            return UNSUP(I, sl[0], "trapezoid() of a %dd array is not supported by hpcjit (1d)", at->ndim);
        if (!ty_is_number(at->dtype) || at->dtype->kind == TY_BOOL)
            return TYPING(I, sl[0], "trapezoid() needs numbers, not %s", infer_tyname(I, at));
        Type *base = at->dtype;
        if (sl[1] && infer_is_none(sl[1]))
            sl[1] = NULL;
        if (sl[1]) {
            Type *xt = infer_expr(I, &sl[1]);
            if (!xt)
                return NULL;
            if (IS_UNK(xt))
                return xt;
            if (xt->kind != TY_ARRAY || xt->ndim != 1 || !ty_is_number(xt->dtype) || ty_is_complex(xt->dtype))
                return UNSUP(I, sl[1], "trapezoid() x must be a 1d array of real numbers in hpcjit, not %s",
                             infer_tyname(I, xt));
            base = ty_np_promote(I->tc, base, xt->dtype);
        }
        if (!opt_real(I, sl, 2, fname, "dx", f64, &unk) || !infer_opt_int(I, sl, 3, fname, "axis", &unk))
            return NULL;
        rt = inexact(I, base);
        n->op_ty = at->dtype->kind == TY_BOOL ? T(I, TY_INT64) : at->dtype;
        break;
    }
    case BI_NPA_CROSS: case BI_NPA_CONVOLVE: case BI_NPA_CORRELATE: {
        if (!sl[1])
            return TYPING(I, n, "%s() missing required argument '%s'", fname, s->names[1]);
        Type *bt = infer_expr(I, &sl[1]);
        if (!bt)
            return NULL;
        if (IS_UNK(bt))
            return bt;
        if (!need_array(I, sl[0], at, fname, s->names[0]) || !need_array(I, sl[1], bt, fname, s->names[1]))
            return NULL;
        if (!ty_is_number(at->dtype) || !ty_is_number(bt->dtype))
            return TYPING(I, n, "%s() needs arrays of numbers", fname);
        Type *dt = ty_np_promote(I->tc, at->dtype, bt->dtype);
        if (id == BI_NPA_CROSS) {
            if (at->ndim < 1 || at->ndim > 2 || bt->ndim < 1 || bt->ndim > 2)
                return UNSUP(I, n, "cross() of arrays of more than 2 dimensions is not supported by hpcjit");
            if (dt->kind == TY_BOOL)
                return TYPING(I, n, "cross(): numpy boolean subtract, the `-` operator, is not supported");
            rt = ty_array(I->tc, dt, at->ndim > bt->ndim ? at->ndim : bt->ndim, LAYOUT_C);
            break;
        }
        if (at->ndim != 1 || bt->ndim != 1)
            return TYPING(I, n, "%s(): object too deep for desired array (1d arrays only)", fname);
        int mode = id == BI_NPA_CONVOLVE ? 0 : 2;
        if (sl[2]) {
            const char *m = sl[2]->kind == N_CONST && sl[2]->cval.kind == CVAL_STR ? sl[2]->cval.s : NULL;
            if (!m)
                return TYPING(I, sl[2], "%s() mode must be a constant string", fname);
            if (strcmp(m, "full") == 0 || strcmp(m, "f") == 0)
                mode = 0;
            else if (strcmp(m, "same") == 0 || strcmp(m, "s") == 0)
                mode = 1;
            else if (strcmp(m, "valid") == 0 || strcmp(m, "v") == 0)
                mode = 2;
            else
                return TYPING(I, sl[2], "%s(): mode must be one of 'valid', 'same', or 'full' (got '%s')", fname, m);
            sl[2] = NULL;
        }
        n->cval.kind = CVAL_INT; /* the mode for lowering */
        n->cval.i = mode;
        rt = ty_array(I->tc, dt->kind == TY_BOOL ? T(I, TY_BOOL) : dt, 1, LAYOUT_C);
        break;
    }
    case BI_NPA_UNWRAP:
        if (!need_array(I, sl[0], at, fname, "p"))
            return NULL;
        if (at->ndim != 1)
            return UNSUP(I, sl[0], "unwrap() of a %dd array is not supported by hpcjit (1d)", at->ndim);
        if (!ty_is_number(at->dtype) || ty_is_complex(at->dtype) || at->dtype->kind == TY_BOOL)
            return TYPING(I, sl[0], "unwrap() needs real numbers, not %s", infer_tyname(I, at));
        rt = ty_array(I->tc, inexact(I, at->dtype), 1, LAYOUT_C);
        if (!opt_real(I, sl, 1, fname, "discont", rt->dtype, &unk) || !infer_opt_int(I, sl, 2, fname, "axis", &unk) ||
            !opt_real(I, sl, 3, fname, "period", rt->dtype, &unk))
            return NULL;
        break;
    case BI_NPA_MODF: case BI_NPA_FREXP: {
        if (!num_or_array(I, sl[0], at, fname, "x"))
            return NULL;
        Type *dt = elt(at);
        if (ty_is_complex(dt))
            return TYPING(I, sl[0], "np.%s() is not defined for complex numbers (%s)", fname, infer_tyname(I, dt));
        Type *ft = ty_is_float(dt) ? dt : f64;
        Type *st = id == BI_NPA_MODF ? ft : T(I, TY_INT32);
        Type *el[2] = {ft, st};
        if (at->kind == TY_ARRAY) {
            el[0] = ty_array(I->tc, ft, at->ndim, LAYOUT_C);
            el[1] = ty_array(I->tc, st, at->ndim, LAYOUT_C);
        }
        rt = ty_tuple(I->tc, el, 2);
        break;
    }
    case BI_NPA_ROOTS: /* always complex128, as Numba (NumPy's dtype depends on the roots) */
        if (!need_array(I, sl[0], at, fname, "p"))
            return NULL;
        if (at->ndim != 1)
            return TYPING(I, sl[0], "roots(): Input must be a rank-1 array.");
        if (!ty_is_number(at->dtype))
            return TYPING(I, sl[0], "roots() needs numbers, not %s", infer_tyname(I, at));
        rt = ty_array(I->tc, T(I, TY_COMPLEX128), 1, LAYOUT_C);
        break;
    case BI_NPA_PARTITION: case BI_NPA_ARGPARTITION: {
        if (!need_array(I, sl[0], at, fname, "a"))
            return NULL;
        if (at->ndim == 0)
            return TYPING(I, sl[0], "%s(): axis -1 is out of bounds for array of dimension 0", fname);
        if (!sl[1])
            return TYPING(I, n, "%s() missing required argument 'kth'", fname);
        Type *kt = infer_expr(I, &sl[1]);
        if (!kt)
            return NULL;
        if (IS_UNK(kt))
            return kt;
        if (kt->kind == TY_TUPLE) {
            if (infer_int_tuple(I, &sl[1], fname, "kth", &unk) < 0)
                return NULL;
        } else if (kt->kind == TY_ARRAY) { /* np.partition(a, kth=np.unique(idx)): numbagg's nanquantile */
            if (kt->ndim > 1 || !ty_is_int(kt->dtype))
                return TYPING(I, sl[1], "%s() kth must be an integer or a 1-D array of integers, not %s",
                              fname, infer_tyname(I, kt));
        } else if (!infer_req_int(I, n, sl, 1, fname, "kth", &unk)) {
            return NULL;
        }
        if (sl[2]) { /* the last axis only: a constant */
            const Node *a = sl[2]->kind == N_UNARYOP && sl[2]->op == OP_NEG ? sl[2]->a : sl[2];
            int64_t v = a->kind == N_CONST && a->cval.kind == CVAL_INT ? (a == sl[2] ? a->cval.i : -a->cval.i) : 0;
            if (a->kind != N_CONST || a->cval.kind != CVAL_INT || (v != -1 && v != at->ndim - 1))
                return UNSUP(I, sl[2], "%s() along another axis than the last is not supported by hpcjit", fname);
            sl[2] = NULL;
        }
        rt = ty_array(I->tc, id == BI_NPA_PARTITION ? at->dtype : T(I, TY_INT64), at->ndim, LAYOUT_C);
        break;
    }
    default:
        return UNSUP(I, n, "%s() is not supported by hpcjit yet", fname);
    }
    if (unk)
        return TY_UNK(I);
    infer_store_slots(I, n, sl, s->n);
    return rt;
}

/* ---- views of other shapes and strides ---- */

/* A constant bool argument (writeable=, subok=): its value, -1 if not constant. */
static int const_flag(const Node *e) {
    if (e && e->kind == N_CAST)
        e = e->a;
    return (e && e->kind == N_CONST && (e->cval.kind == CVAL_BOOL || e->cval.kind == CVAL_INT)) ? (int)(e->cval.i != 0)
                                                                                                 : -1;
}

static Type *stride_call(Inf *I, Node *n, BuiltinId id, const Sig *s, Node **sl, Type *at) {
    const char *fname = s->fname;
    bool unk = false;
    Type *rt = NULL;
    if (IS_UNK(at))
        return at;
    switch (id) {
    case BI_NPA_AS_STRIDED: case BI_NPA_SLIDING_WINDOW_VIEW: {
        if (!need_array(I, sl[0], at, fname, "x"))
            return NULL;
        for (int i = 3; i < 5; i++) { /* subok, writeable: constants */
            if (sl[i] && const_flag(sl[i]) < 0)
                return UNSUP(I, sl[i], "%s() %s must be a constant bool in hpcjit", fname, s->names[i]);
        }
        if (sl[3] && const_flag(sl[3]))
            return UNSUP(I, sl[3], "%s() with subok=True is not supported by hpcjit", fname);
        bool ro = id == BI_NPA_SLIDING_WINDOW_VIEW ? const_flag(sl[4]) != 1 : const_flag(sl[4]) == 0;
        sl[3] = sl[4] = NULL;
        int nd;
        if (id == BI_NPA_AS_STRIDED) {
            /* shape, strides: x's own where None (then of x's length) */
            for (int i = 1; i < 3; i++)
                if (sl[i] && infer_is_none(sl[i]))
                    sl[i] = NULL;
            nd = sl[1] ? infer_int_tuple(I, &sl[1], fname, "shape", &unk) : at->ndim;
            int ns = nd < 0 ? -1 : sl[2] ? infer_int_tuple(I, &sl[2], fname, "strides", &unk) : at->ndim;
            if (nd < 0 || ns < 0)
                return NULL;
            if (!unk && ns != nd)
                return TYPING(I, sl[sl[2] ? 2 : 1], "as_strided(): shape and strides must have the same length");
        } else {
            if (!sl[1])
                return TYPING(I, n, "sliding_window_view() missing required argument 'window_shape'");
            int k = infer_int_tuple(I, &sl[1], fname, "window_shape", &unk);
            if (k < 0)
                return NULL;
            if (sl[2] && infer_is_none(sl[2]))
                sl[2] = NULL;
            if (sl[2]) {
                int ka = infer_int_tuple(I, &sl[2], fname, "axis", &unk);
                if (ka < 0)
                    return NULL;
                if (!unk && ka != k)
                    return TYPING(I, sl[2], "sliding_window_view(): Must provide matching length window_shape and "
                                  "axis; got %d window_shape elements and %d axes elements.", k, ka);
            } else if (!unk && k != at->ndim) {
                return TYPING(I, sl[1], "sliding_window_view(): Since axis is `None`, must provide window_shape for "
                              "all dimensions of `x`; got %d window_shape elements and `x.ndim` is %d.", k, at->ndim);
            }
            nd = at->ndim + k;
        }
        if (unk)
            return TY_UNK(I);
        rt = ty_array_ro(I->tc, at->dtype, nd, LAYOUT_A, ro || at->readonly);
        break;
    }
    case BI_NPA_BROADCAST_ARRAYS: case BI_NPA_BROADCAST_SHAPES: {
        int k = 0, rnd = 0, nds[INFER_MAX_SLOTS];
        Type *tys[INFER_MAX_SLOTS];
        while (k < s->n && sl[k])
            k++;
        for (int i = 0; i < k; i++) {
            if (id == BI_NPA_BROADCAST_SHAPES) {
                nds[i] = infer_int_tuple(I, &sl[i], fname, "shape", &unk);
                if (nds[i] < 0)
                    return NULL;
            } else {
                tys[i] = i == 0 ? at : infer_expr(I, &sl[i]);
                if (!tys[i])
                    return NULL;
                if (IS_UNK(tys[i]))
                    return tys[i];
                if (!need_array(I, sl[i], tys[i], fname, "each argument"))
                    return NULL;
                nds[i] = tys[i]->ndim;
            }
            if (nds[i] > rnd)
                rnd = nds[i];
        }
        if (unk)
            return TY_UNK(I);
        Type *el[INFER_MAX_SLOTS > 32 ? INFER_MAX_SLOTS : 32];
        if (id == BI_NPA_BROADCAST_SHAPES) {
            for (int d = 0; d < rnd; d++)
                el[d] = T(I, TY_INT64);
            rt = ty_tuple(I->tc, el, rnd);
        } else {
            for (int i = 0; i < k; i++)
                el[i] = ty_array_ro(I->tc, tys[i]->dtype, rnd, LAYOUT_A, tys[i]->readonly);
            rt = ty_tuple(I->tc, el, k);
        }
        break;
    }
    case BI_NPA_ASARRAY_CHKFINITE: {
        if (!need_array(I, sl[0], at, fname, "a"))
            return NULL;
        Type *dt = at->dtype;
        if (sl[1]) {
            if (!(dt = infer_dtype_arg(I, &sl[1])))
                return NULL;
            if (IS_UNK(dt))
                return dt;
            sl[1] = NULL;
        }
        rt = dt == at->dtype ? at : ty_array(I->tc, dt, at->ndim, LAYOUT_C);
        break;
    }
    default:
        return UNSUP(I, n, "%s() is not supported by hpcjit yet", fname);
    }
    infer_store_slots(I, n, sl, s->n);
    return rt;
}

/* ---- the calls ---- */

static Type *infer_nparray_call(Inf *I, Node *n, BuiltinId id, Node *self) {
    Sig s;
    if (!sig_of(id, &s))
        return UNSUP(I, n, "%s() is not supported by hpcjit yet", builtin_name(id));
    const char *fname = s.fname;
    n->call_kind = CALL_BUILTIN;
    n->builtin = id;
    Node *sl[INFER_MAX_SLOTS] = {0};
    int ns = s.n;
    bool unk = false;
    if (!infer_bind_slots(I, n, self, &s, sl))
        return NULL;
    if (!sl[0])
        return TYPING(I, n, "%s() missing required argument '%s'", fname, s.names[0]);
    Type *at = (self && sl[0] == self) ? infer_value_ty(self) : infer_expr(I, &sl[0]);
    if (!at)
        return NULL;

    switch (id) {
    case BI_NPA_ISCLOSE: case BI_NPA_ALLCLOSE: case BI_NPA_ARRAY_EQUAL: {
        if (!sl[1])
            return TYPING(I, n, "%s() missing required argument '%s'", fname, s.names[1]);
        Type *bt = infer_expr(I, &sl[1]);
        if (!bt)
            return NULL;
        Type *f64 = T(I, TY_FLOAT64);
        if (id == BI_NPA_ARRAY_EQUAL) {
            if (!opt_flag(I, sl, 2, fname, "equal_nan", &unk))
                return NULL;
        } else if (!opt_real(I, sl, 2, fname, "rtol", f64, &unk) || !opt_real(I, sl, 3, fname, "atol", f64, &unk) ||
                   !opt_flag(I, sl, 4, fname, "equal_nan", &unk)) {
            return NULL;
        }
        if (unk || IS_UNK(at) || IS_UNK(bt))
            return TY_UNK(I);
        if (id == BI_NPA_ARRAY_EQUAL && (ty_is_npdt(elt(at)) || ty_is_npdt(elt(bt)))) {
            /* datetimes: compared in their common unit, NaT never equal (but for equal_nan) */
            if (!(n->op_ty = infer_dt_compare(I, n, OP_EQ, elt(at), elt(bt))))
                return NULL;
            infer_store_slots(I, n, sl, ns);
            return T(I, TY_BOOL);
        }
        if (!num_or_array(I, sl[0], at, fname, s.names[0]) || !num_or_array(I, sl[1], bt, fname, s.names[1]))
            return NULL;
        n->op_ty = id == BI_NPA_ARRAY_EQUAL ? ty_np_promote(I->tc, elt(at), elt(bt)) : close_type(I, at, bt);
        infer_store_slots(I, n, sl, ns);
        if (id == BI_NPA_ISCLOSE)
            return ew_result(I, T(I, TY_BOOL), at, bt);
        return T(I, TY_BOOL);
    }
    case BI_NPA_ISCOMPLEX: case BI_NPA_ISREAL: case BI_NPA_ISNEGINF: case BI_NPA_ISPOSINF: case BI_NPA_SINC: {
        if (IS_UNK(at))
            return at;
        if (!num_or_array(I, sl[0], at, fname, s.names[0]))
            return NULL;
        Type *dt = elt(at), *rt = T(I, TY_BOOL);
        if ((id == BI_NPA_ISNEGINF || id == BI_NPA_ISPOSINF) && ty_is_complex(dt))
            return TYPING(I, sl[0], "%s(): This operation is not supported for complex values because it would be "
                          "ambiguous.", fname);
        if (id == BI_NPA_SINC) {
            if (ty_is_complex(dt))
                return UNSUP(I, sl[0], "sinc() of complex numbers is not supported by hpcjit");
            rt = dt->kind == TY_FLOAT32 ? dt : T(I, TY_FLOAT64);
        }
        infer_store_slots(I, n, sl, ns);
        return ew_result(I, rt, at, NULL);
    }
    case BI_NPA_NAN_TO_NUM: {
        if (IS_UNK(at))
            return at;
        if (!num_or_array(I, sl[0], at, fname, "x"))
            return NULL;
        Type *dt = elt(at);
        Type *pt = ty_is_complex(dt) ? T(I, dt->kind == TY_COMPLEX64 ? TY_FLOAT32 : TY_FLOAT64) : dt;
        if (!ty_is_float(pt))
            pt = T(I, TY_FLOAT64);
        if (!opt_flag(I, sl, 1, fname, "copy", &unk))
            return NULL;
        for (int i = 2; i < 5; i++)
            if (!opt_real(I, sl, i, fname, s.names[i], T(I, TY_FLOAT64), &unk))
                return NULL;
        if (unk)
            return TY_UNK(I);
        if (sl[1] && sl[1]->kind == N_CONST && !sl[1]->cval.i && at->kind == TY_ARRAY)
            return UNSUP(I, sl[1], "nan_to_num() with copy=False is not supported by hpcjit");
        sl[1] = NULL;
        infer_store_slots(I, n, sl, ns);
        return at->kind == TY_ARRAY ? ty_array(I->tc, dt, at->ndim, LAYOUT_C) : dt;
    }
    case BI_NPA_ISSCALAR:
        if (IS_UNK(at))
            return at;
        return const_bool(I, n, ty_is_number(at) || at->kind == TY_STRING);
    case BI_NPA_ISCOMPLEXOBJ: case BI_NPA_ISREALOBJ:
        if (IS_UNK(at))
            return at;
        if (!num_or_array(I, sl[0], at, fname, "x"))
            return NULL;
        return const_bool(I, n, ty_is_complex(elt(at)) == (id == BI_NPA_ISCOMPLEXOBJ));
    case BI_NPA_SHAPE: {
        if (IS_UNK(at))
            return at;
        if (at->kind == TY_ARRAY) { /* a.shape: the final pass rewrites the call into the attribute */
            Node *a = I->final ? n : ast_new(I->a, N_ATTRIBUTE, n->loc);
            a->kind = N_ATTRIBUTE;
            a->a = sl[0];
            a->name = "shape";
            a->args.len = 0;
            a->keywords.len = 0;
            a->self_node = NULL;
            a->call_kind = CALL_UNRESOLVED;
            return infer_attribute(I, a);
        }
        if (!ty_is_number(at))
            return TYPING(I, sl[0], "shape() needs an array or a number, not %s", infer_tyname(I, at));
        if (I->final) { /* a number: the empty tuple */
            n->kind = N_TUPLE;
            n->args.len = 0;
            n->keywords.len = 0;
        }
        return ty_tuple(I->tc, NULL, 0);
    }
    case BI_NPA_ARRAY_CLIP: { /* one bound: np.maximum / np.minimum (None is no bound) */
        for (int i = 1; i < 3; i++)
            if (infer_is_none(sl[i]))
                sl[i] = NULL;
        if (!sl[1] && !sl[2])
            return TYPING(I, n, "clip(): One of max or min must be given");
        if (sl[1] && sl[2])
            return as_ufunc(I, n, BI_NP_CLIP, sl, 3);
        Node *two[2] = {sl[0], sl[1] ? sl[1] : sl[2]};
        return as_ufunc(I, n, sl[1] ? BI_NP_MAXIMUM : BI_NP_MINIMUM, two, 2);
    }
    case BI_NPA_ARRAY_CONJ:
        return as_ufunc(I, n, BI_NP_CONJ, sl, 1);
    case BI_NPA_ARRAY_VIEW: { /* the same bytes as another dtype */
        if (IS_UNK(at))
            return at;
        if (!need_array(I, n, at, fname, "a"))
            return NULL;
        if (!sl[1])
            return UNSUP(I, n, "view() needs a dtype in hpcjit");
        Type *dt = infer_dtype_arg(I, &sl[1]);
        if (!dt)
            return NULL;
        if (IS_UNK(dt))
            return dt;
        sl[1] = NULL;
        bool same = ty_itemsize(dt) == ty_itemsize(at->dtype);
        if (!same && at->ndim == 0)
            return TYPING(I, n, "view(): Changing the dtype of a 0d array is only supported if the itemsize is "
                          "unchanged");
        infer_store_slots(I, n, sl, ns);
        return ty_array_ro(I->tc, dt, at->ndim, same || at->layout == LAYOUT_C ? at->layout : LAYOUT_A, at->readonly);
    }
    case BI_NPA_ARRAY_TOBYTES: /* a new bytes object of the elements in C order */
        if (IS_UNK(at))
            return at;
        if (!need_array(I, n, at, fname, "a"))
            return NULL;
        if (!ty_is_number(at->dtype))
            return UNSUP(I, n, "tobytes() of %s is not supported by hpcjit", infer_tyname(I, at));
        infer_store_slots(I, n, sl, ns);
        return ty_bytes(I->tc, false);
    case BI_NPA_FROMBUFFER: { /* a 1-d view of a contiguous buffer's bytes, read-only as it */
        if (IS_UNK(at))
            return at;
        if (at->kind != TY_ARRAY || at->layout != LAYOUT_C || !ty_is_number(at->dtype) || ty_is_nested_array(at))
            return TYPING(I, sl[0], "Argument \"buffer\" must be buffer-like. Got %s", infer_tyname(I, at));
        Type *dt = T(I, TY_FLOAT64);
        if (sl[1] && !infer_is_none(sl[1]) && !(dt = infer_dtype_arg(I, &sl[1])))
            return NULL;
        if (IS_UNK(dt))
            return dt;
        sl[1] = NULL;
        if (!infer_opt_int(I, sl, 2, fname, "count", &unk) || !infer_opt_int(I, sl, 3, fname, "offset", &unk))
            return NULL;
        if (unk)
            return TY_UNK(I);
        infer_store_slots(I, n, sl, ns);
        return ty_array_ro(I->tc, dt, 1, LAYOUT_C, at->readonly);
    }
    case BI_NPA_FLAT_VIEW: { /* a.flat[i]: the element at C-order index i, as a 1-element view */
        if (IS_UNK(at))
            return at;
        if (at->kind != TY_ARRAY)
            return TYPING(I, sl[0], "unknown attribute 'flat' of %s", infer_tyname(I, at));
        Type *it = infer_expr(I, &sl[1]);
        if (!it)
            return NULL;
        if (IS_UNK(it))
            return it;
        if (!ty_is_int(it) && it->kind != TY_BOOL)
            return UNSUP(I, sl[1], "a.flat takes one integer index in hpcjit, not %s", infer_tyname(I, it));
        infer_cast(I, &sl[1], T(I, TY_INT64));
        infer_store_slots(I, n, sl, ns);
        return ty_array_ro(I->tc, at->dtype, 1, LAYOUT_C, at->readonly);
    }
    case BI_NPA_UNPACK: { /* $unpack(a, k): a's k items along its first axis, as a tuple */
        if (IS_UNK(at))
            return at;
        if (at->kind != TY_ARRAY || at->ndim == 0 || !sl[1] || sl[1]->kind != N_CONST || sl[1]->cval.kind != CVAL_INT)
            return TYPING(I, n, "cannot unpack %s", infer_tyname(I, at));
        int k = (int)sl[1]->cval.i;
        if (k < 1 || k > 64)
            return UNSUP(I, n, "unpacking an array into %d targets is not supported by hpcjit", k);
        Type *item = at->ndim == 1 ? at->dtype
                                   : ty_array_ro(I->tc, at->dtype, at->ndim - 1,
                                                 at->layout == LAYOUT_C ? LAYOUT_C : LAYOUT_A, at->readonly);
        Type **el = arena_alloc(I->a, sizeof(Type *) * (size_t)k);
        for (int i = 0; i < k; i++)
            el[i] = item;
        infer_store_slots(I, n, sl, ns);
        return ty_tuple(I->tc, el, k);
    }
    case BI_NPA_NDITER_VIEW: { /* $nditer_view(a, i, shape, fortran): a 0-d view */
        if (IS_UNK(at))
            return at;
        if (at->kind != TY_ARRAY)
            return TYPING(I, sl[0], "nditer(): operands must be arrays, not %s", infer_tyname(I, at));
        if (!sl[1] || !sl[2] || !sl[3] || sl[3]->kind != N_CONST || sl[3]->cval.kind != CVAL_BOOL)
            return TYPING(I, n, "$nditer_view(a, i, shape, fortran) takes a constant bool fortran");
        if (!infer_opt_int(I, sl, 1, fname, "index", &unk))
            return NULL;
        int k = infer_int_tuple(I, &sl[2], fname, "shape", &unk);
        if (k < 0)
            return NULL;
        if (unk)
            return TY_UNK(I);
        if (k < at->ndim)
            return TYPING(I, sl[2], "nditer(): the shape has fewer dimensions than the operand");
        infer_store_slots(I, n, sl, ns);
        return ty_array_ro(I->tc, at->dtype, 0, LAYOUT_C, at->readonly);
    }
    case BI_NPA_ARRAY_ITEM:
        if (IS_UNK(at))
            return at;
        if (!need_array(I, n, at, fname, "a"))
            return NULL;
        if (sl[1]) { /* a flat index */
            Type *it = infer_expr(I, &sl[1]);
            if (!it)
                return NULL;
            if (IS_UNK(it))
                return it;
            if (!ty_is_int(it))
                return UNSUP(I, sl[1], "item() takes one integer (a flat index) in hpcjit, not %s",
                             infer_tyname(I, it));
            infer_cast(I, &sl[1], T(I, TY_INT64));
        }
        infer_store_slots(I, n, sl, ns);
        return at->dtype;

    case BI_NPA_DIAG: case BI_NPA_DIAGFLAT: case BI_NPA_TRI: case BI_NPA_FILL_DIAGONAL: case BI_NPA_INDICES:
    case BI_NPA_VANDER: case BI_NPA_TRIL_INDICES: case BI_NPA_TRIU_INDICES: case BI_NPA_TRIL_INDICES_FROM:
    case BI_NPA_TRIU_INDICES_FROM: case BI_NPA_FLATNONZERO: case BI_NPA_EXTRACT: case BI_NPA_APPEND:
    case BI_NPA_DELETE: case BI_NPA_INSERT: case BI_NPA_TRIM_ZEROS: case BI_NPA_EDIFF1D: case BI_NPA_TAKE:
    case BI_NPA_TAKE_ALONG_AXIS: case BI_NPA_RESIZE: case BI_NPA_COLUMN_STACK: case BI_NPA_DSTACK:
    case BI_NPA_SELECT: case BI_NPA_SPLIT: case BI_NPA_ARRAY_SPLIT: case BI_NPA_HSPLIT: case BI_NPA_VSPLIT:
    case BI_NPA_DSPLIT: case BI_NPA_ISIN: case BI_NPA_INTERSECT1D: case BI_NPA_UNION1D: case BI_NPA_SETDIFF1D:
    case BI_NPA_SETXOR1D:
        return make_call(I, n, id, &s, sl, at);
    case BI_NPA_BARTLETT: case BI_NPA_BLACKMAN: case BI_NPA_HAMMING: case BI_NPA_HANNING: case BI_NPA_KAISER:
    case BI_NPA_LOGSPACE: case BI_NPA_GEOMSPACE: case BI_NPA_TRAPEZOID: case BI_NPA_CROSS: case BI_NPA_CONVOLVE:
    case BI_NPA_CORRELATE: case BI_NPA_UNWRAP: case BI_NPA_MODF: case BI_NPA_FREXP: case BI_NPA_PARTITION:
    case BI_NPA_ARGPARTITION: case BI_NPA_ROOTS:
        return num_call(I, n, id, &s, sl, at);
    case BI_NPA_AS_STRIDED: case BI_NPA_SLIDING_WINDOW_VIEW: case BI_NPA_BROADCAST_ARRAYS:
    case BI_NPA_BROADCAST_SHAPES: case BI_NPA_ASARRAY_CHKFINITE:
        return stride_call(I, n, id, &s, sl, at);
    default:
        break;
    }

    /* the views and the contiguity functions: one array */
    if (IS_UNK(at))
        return at;
    bool scalar_ok = id == BI_NPA_ATLEAST_1D || id == BI_NPA_ATLEAST_2D || id == BI_NPA_ATLEAST_3D ||
                     id == BI_NPA_ASCONTIGUOUSARRAY || id == BI_NPA_ASFORTRANARRAY;
    if (scalar_ok && ty_is_number(at)) {
        /* a number: a new array (0-d for now, made 1-d, 2-d... below) */
    } else if (!need_array(I, sl[0], at, fname, s.names[0])) {
        return NULL;
    }
    int nd = at->kind == TY_ARRAY ? at->ndim : 0;
    Type *dt = elt(at);
    Layout lay = at->kind == TY_ARRAY ? at->layout : LAYOUT_C;
    Type *rt = NULL;
    switch (id) {
    case BI_NPA_SWAPAXES: case BI_NPA_MOVEAXIS:
        if (!infer_req_int(I, n, sl, 1, fname, s.names[1], &unk) ||
            !infer_req_int(I, n, sl, 2, fname, s.names[2], &unk))
            return NULL;
        if (unk)
            return TY_UNK(I);
        rt = ty_array(I->tc, dt, nd, nd <= 1 ? lay : LAYOUT_A);
        break;
    case BI_NPA_ATLEAST_1D: case BI_NPA_ATLEAST_2D: case BI_NPA_ATLEAST_3D: {
        int want = id == BI_NPA_ATLEAST_1D ? 1 : id == BI_NPA_ATLEAST_2D ? 2 : 3;
        if (nd >= want) {
            rt = at;
            break;
        }
        rt = ty_array(I->tc, dt, want, (lay == LAYOUT_C || nd == 0) ? LAYOUT_C : LAYOUT_A);
        break;
    }
    case BI_NPA_FLIPLR: case BI_NPA_FLIPUD:
        if (nd < (id == BI_NPA_FLIPLR ? 2 : 1))
            return TYPING(I, sl[0], "%s(): Input must be >= %d-d.", fname, id == BI_NPA_FLIPLR ? 2 : 1);
        rt = ty_array(I->tc, dt, nd, LAYOUT_A);
        break;
    case BI_NPA_ROT90: {
        if (nd < 2)
            return TYPING(I, sl[0], "rot90(): Axes must be different.");
        if (!infer_opt_int(I, sl, 1, fname, "k", &unk))
            return NULL;
        if (sl[2]) {
            int k = infer_int_tuple(I, &sl[2], fname, "axes", &unk);
            if (k < 0)
                return NULL;
            if (!unk && k != 2)
                return TYPING(I, sl[2], "rot90(): len(axes) must be 2.");
        }
        if (unk)
            return TY_UNK(I);
        rt = ty_array(I->tc, dt, nd, LAYOUT_A);
        break;
    }
    case BI_NPA_BROADCAST_TO: {
        if (!sl[1])
            return TYPING(I, n, "broadcast_to() missing required argument 'shape'");
        int k = infer_int_tuple(I, &sl[1], fname, "shape", &unk);
        if (k < 0)
            return NULL;
        if (unk)
            return TY_UNK(I);
        if (k < nd)
            return TYPING(I, sl[1], "broadcast_to(): input operand has more dimensions than allowed by the axis "
                          "remapping");
        rt = ty_array_ro(I->tc, dt, k, LAYOUT_A, true); /* NumPy's result is a read-only view */
        break;
    }
    case BI_NPA_ASCONTIGUOUSARRAY: case BI_NPA_ASFORTRANARRAY: {
        if (sl[1]) {
            Type *d = infer_dtype_arg(I, &sl[1]);
            if (!d)
                return NULL;
            if (IS_UNK(d))
                return d;
            dt = d;
            sl[1] = NULL;
        }
        int rnd = nd ? nd : 1;
        rt = ty_array(I->tc, dt, rnd, id == BI_NPA_ASFORTRANARRAY && rnd > 1 ? LAYOUT_F : LAYOUT_C);
        break;
    }
    default:
        return UNSUP(I, n, "%s() is not supported by hpcjit yet", fname);
    }
    infer_store_slots(I, n, sl, ns);
    return rt;
}

/* Array methods of the feature: a.clip, a.conj, a.conjugate, a.item. */
static bool infer_nparray_attr(Inf *I, Node *n, Type *base, Type **out) {
    return infer_method_attr(I, n, base, handles, out);
}

/* Results that may share the operand's memory. */
static bool nparray_is_view(const Node *call, const Type *result) {
    const Node *a0 = call->args.len ? VEC_AT(call->args, 0) : NULL;
    switch (call->builtin) {
    case BI_NPA_SWAPAXES: case BI_NPA_MOVEAXIS: case BI_NPA_FLIPLR: case BI_NPA_FLIPUD: case BI_NPA_ROT90:
    case BI_NPA_BROADCAST_TO:
        return true;
    case BI_NPA_ATLEAST_1D: case BI_NPA_ATLEAST_2D: case BI_NPA_ATLEAST_3D:
        return a0 && a0->ty && a0->ty->kind == TY_ARRAY;
    case BI_NPA_TRIM_ZEROS: case BI_NPA_AS_STRIDED: case BI_NPA_SLIDING_WINDOW_VIEW: case BI_NPA_ARRAY_VIEW:
    case BI_NPA_FROMBUFFER: case BI_NPA_FLAT_VIEW: case BI_NPA_NDITER_VIEW:
        return true;
    case BI_NPA_ASARRAY_CHKFINITE:
        return a0 && a0->ty == result;
    case BI_NPA_ASCONTIGUOUSARRAY: case BI_NPA_ASFORTRANARRAY: /* no copy when the type already fits */
        return a0 && a0->ty && a0->ty->kind == TY_ARRAY && a0->ty->ndim > 0 && a0->ty->dtype == result->dtype &&
               a0->ty->layout == result->layout;
    default:
        return false;
    }
}

const LibOps lib_nparray_ops = {.name = "nparray", .infer_call = infer_nparray_call,
                                .infer_attr = infer_nparray_attr, .is_view = nparray_is_view,
                                .lower_call = lower_nparray_call};
