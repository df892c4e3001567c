/* infer_linalg.c - typing of linear algebra: np.dot, np.matmul and the
 * `@` operator, np.vdot, np.outer, np.trace (and the methods a.dot,
 * a.trace), np.linalg.norm/solve/inv/det/cholesky/eigh/eigvalsh/svd/qr/
 * lstsq.
 *
 * Tree shape after the final pass (lower_linalg.c relies on it): an
 * N_CALL with call_kind CALL_BUILTIN, `args` one slot per parameter of
 * sig_of (the receiver of a method in args[0], self_node NULL), absent
 * optional arguments NULL.  `op_ty` is the scalar type the operation
 * computes in: the promoted dtype of the operands for dot/matmul/vdot/
 * outer/inner/kron, the operand's dtype for trace, float64 for integer and bool
 * input of np.linalg (float32/complex64/complex128 stay); lowering
 * converts array operands whose dtype differs.  Options become N_CONST
 * ints: trace offset is an int64 expression; eigh/eigvalsh UPLO 1 for
 * 'U'; inv/det/cholesky of an N-d a (stacked matrices): ty N-d (det
 * (N-2)-d); cholesky upper 0/1; qr mode 0 'reduced', 1 'complete', 2 'r'
 * (ty R alone); eig/eigvals keep the dtype (real input must have real
 * eigenvalues, as in Numba); svd full_matrices, compute_uv 0/1; norm args are [x, ord, kind,
 * axis] with ord a float64 expression or NULL, kind an RT_NORM_*
 * constant (RT_NORM_FLAT: the 2-norm of an N-d x, flattened) and axis (0/1) given only for vector norms along an axis of a
 * 2-D x (ty 1-D, or 2-D with keepdims=True); lstsq rcond, pinv rcond,
 * matrix_rank tol: a float64 expression or NULL (None), hermitian
 * dropped; cond [x, p, kind] with p and kind as norm's ord and kind;
 * matrix_power n int64 with op_ty
 * a's dtype (integers stay integers).  matmul (only) takes N-d operands
 * and broadcasts their batch dimensions; inner and kron take 1-D and 2-D
 * operands like dot.  `a @ b` becomes np.matmul(a, b). */
#include "infer.h"
#include "linalg.h"
#include "registry.h"

#include <string.h>

#include "hpcjit/linalg.h"

static Type *T(Inf *I, TyKind k) { return infer_ty(I, k); }

typedef InferSig Sig;

static bool sig_of(BuiltinId id, Sig *s) {
#define S(name, ...) INFER_SIG(s, name, __VA_ARGS__)
    switch (id) {
    case BI_NP_DOT: S("dot", "a", "b"); break;
    case BI_NP_MATMUL: S("matmul", "x1", "x2"); break;
    case BI_NP_VDOT: S("vdot", "a", "b"); break;
    case BI_NP_OUTER: S("outer", "a", "b"); break;
    case BI_NP_TRACE: S("trace", "a", "offset"); break;
    case BI_NP_INNER: S("inner", "a", "b"); break;
    case BI_NP_KRON: S("kron", "a", "b"); break;
    case BI_LA_NORM: S("norm", "x", "ord", "axis", "keepdims"); break;
    case BI_LA_SOLVE: S("solve", "a", "b"); break;
    case BI_LA_INV: S("inv", "a"); break;
    case BI_LA_DET: S("det", "a"); break;
    case BI_LA_CHOLESKY: S("cholesky", "a", "upper"); break;
    case BI_LA_EIGH: S("eigh", "a", "UPLO"); break;
    case BI_LA_EIGVALSH: S("eigvalsh", "a", "UPLO"); break;
    case BI_LA_SVD: S("svd", "a", "full_matrices", "compute_uv", "hermitian"); break;
    case BI_LA_QR: S("qr", "a", "mode"); break;
    case BI_LA_LSTSQ: S("lstsq", "a", "b", "rcond"); break;
    case BI_LA_SLOGDET: S("slogdet", "a"); break;
    case BI_LA_PINV: S("pinv", "a", "rcond", "hermitian"); break;
    case BI_LA_MATRIX_RANK: S("matrix_rank", "A", "tol", "hermitian"); break;
    case BI_LA_COND: S("cond", "x", "p"); break;
    case BI_LA_MATRIX_POWER: S("matrix_power", "a", "n"); break;
    case BI_LA_EIG: S("eig", "a"); break;
    case BI_LA_EIGVALS: S("eigvals", "a"); break;
    default: return false;
    }
#undef S
    return true;
}

static bool infer_linalg_handles(BuiltinId id) {
    Sig s;
    return sig_of(id, &s);
}

static bool infer_linalg_attr(Inf *I, Node *n, Type *base, Type **out) {
    return infer_method_attr(I, n, base, infer_linalg_handles, out);
}

static bool is_none(const Node *n) { return !n || (n->kind == N_CONST && n->cval.kind == CVAL_NONE); }

/* The LAPACK type of a dtype: float64 for integers and bool. */
static Type *lapack_type(Inf *I, Type *dt) {
    if (ty_is_float(dt) || ty_is_complex(dt))
        return dt;
    return T(I, TY_FLOAT64);
}

static Type *real_of(Inf *I, Type *dt) {
    if (dt->kind == TY_COMPLEX64 || dt->kind == TY_FLOAT32)
        return T(I, TY_FLOAT32);
    return T(I, TY_FLOAT64);
}

static Type *arr(Inf *I, Type *dt, int nd) { return ty_array(I->tc, dt, nd, LAYOUT_C); }

/* An operand that must be a numeric array of ndim in [lo, hi]. */
static bool need_array(Inf *I, Node *at, Type *t, const char *fname, int lo, int hi) {
    if (t->kind != TY_ARRAY || !ty_is_number(t->dtype)) {
        TYPING(I, at, "%s() needs a numeric array, not %s", fname, infer_tyname(I, t));
        return false;
    }
    if (t->ndim > hi && hi == 2 && lo == 2) {
        UNSUP(I, at, "%s() of stacked (%d-D) matrices is not supported by hpcjit", fname, t->ndim);
        return false;
    }
    if (t->ndim < lo || t->ndim > hi) {
        if (lo == hi)
            TYPING(I, at, "%s() needs a %d-D array, not %s", fname, lo, infer_tyname(I, t));
        else
            TYPING(I, at, "%s() needs a %d-D or %d-D array, not %s", fname, lo, hi, infer_tyname(I, t));
        return false;
    }
    return true;
}

/* A constant string option: its index in vals (or dflt when absent), -1
 * after a diagnostic. */
static int str_option(Inf *I, Node *o, const char *fname, const char *what, const char *const *vals, int nvals,
                      int dflt) {
    if (is_none(o))
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
    UNSUP(I, o, "%s() %s='%s' is not supported by hpcjit", fname, what, o->cval.s);
    return -1;
}

static int bool_option(Inf *I, Node *o, const char *fname, const char *what, int dflt) {
    if (!o)
        return dflt;
    if (o->kind == N_CONST && (o->cval.kind == CVAL_BOOL || o->cval.kind == CVAL_INT))
        return o->cval.i != 0;
    TYPING(I, o, "%s() %s must be a constant True or False", fname, what);
    return -1;
}

/* An optional real scalar cast to float64 (NULL when None); false on error. */
static bool real_arg(Inf *I, Node **pn, const char *fname, const char *what, bool *unk) {
    if (is_none(*pn)) {
        *pn = NULL;
        return true;
    }
    Type *t = infer_expr(I, pn);
    if (!t)
        return false;
    if (IS_UNK(t)) {
        *unk = true;
        return true;
    }
    if (!ty_is_number(t) || ty_is_complex(t)) {
        TYPING(I, *pn, "%s() %s must be a real number, not %s", fname, what, infer_tyname(I, t));
        return false;
    }
    infer_cast(I, pn, T(I, TY_FLOAT64));
    return true;
}

/* dot/matmul/vdot/outer/inner/kron of a and b (types known, not unknown). */
static Type *product(Inf *I, Node *n, BuiltinId id, const char *fname, Node **sl, Type *at, Type *bt) {
    for (int i = 0; i < 2; i++) {
        Type *t = i ? bt : at;
        if (t->kind != TY_ARRAY || !ty_is_number(t->dtype)) {
            if (ty_is_number(t) && id != BI_NP_MATMUL)
                return UNSUP(I, sl[i], "%s() of a scalar is not supported by hpcjit (use *)", fname);
            if (ty_is_number(t) && id == BI_NP_MATMUL)
                return TYPING(I, sl[i], "matmul: Input operand %d does not have enough dimensions (has 0, gufunc "
                                        "core with signature (n?,k),(k,m?)->(n?,m?) requires 1)", i);
            return TYPING(I, sl[i], "%s() needs numeric arrays, not %s", fname, infer_tyname(I, t));
        }
        if (t->ndim == 0 && id == BI_NP_MATMUL)
            return TYPING(I, sl[i], "matmul: Input operand %d does not have enough dimensions (has 0, gufunc "
                                    "core with signature (n?,k),(k,m?)->(n?,m?) requires 1)", i);
        if ((id == BI_NP_DOT || id == BI_NP_INNER || id == BI_NP_KRON) && (t->ndim == 0 || t->ndim > 2))
            return UNSUP(I, sl[i], "%s() of %d-D arrays is not supported by hpcjit (1-D and 2-D only)", fname,
                         t->ndim);
    }
    Type *dt = ty_np_promote(I->tc, at->dtype, bt->dtype);
    n->op_ty = dt;
    switch (id) {
    case BI_NP_VDOT: return dt;
    case BI_NP_OUTER: return arr(I, dt, 2);
    case BI_NP_KRON: return arr(I, dt, at->ndim > bt->ndim ? at->ndim : bt->ndim);
    case BI_NP_INNER: {
        int nd = (at->ndim - 1) + (bt->ndim - 1);
        return nd == 0 ? dt : arr(I, dt, nd);
    }
    default: { /* matmul: batch dimensions broadcast, then m (a not 1-D), n (b not 1-D) */
        int na = at->ndim > 2 ? at->ndim - 2 : 0, nb = bt->ndim > 2 ? bt->ndim - 2 : 0;
        int nd = (na > nb ? na : nb) + (at->ndim > 1) + (bt->ndim > 1);
        return nd == 0 ? dt : arr(I, dt, nd);
    }
    }
}

/* A constant int (possibly negated); false when n is not one. */
static bool const_int(const Node *n, int64_t *v) {
    if (n->kind == N_CONST && n->cval.kind == CVAL_INT) {
        *v = n->cval.i;
        return true;
    }
    if (n->kind == N_UNARYOP && n->op == OP_NEG && const_int(n->a, v)) {
        *v = -*v;
        return true;
    }
    return false;
}

/* A norm order (norm's ord, cond's p): its RT_NORM_* kind, the slot left
 * a float64 expression (RT_NORM_P) or NULL; -1 after a diagnostic. */
static int order_arg(Inf *I, Node **po, const char *fname, const char *what, bool *unk) {
    Node *o = *po;
    if (is_none(o)) {
        *po = NULL;
        return RT_NORM_NONE;
    }
    if (o->kind == N_CONST && o->cval.kind == CVAL_STR) {
        int kind = strcmp(o->cval.s, "fro") == 0 ? RT_NORM_FRO : strcmp(o->cval.s, "nuc") == 0 ? RT_NORM_NUC : -1;
        if (kind < 0) {
            TYPING(I, o, "Invalid norm order '%s'", o->cval.s);
            return -1;
        }
        o->ty = T(I, TY_STRING);
        *po = NULL;
        return kind;
    }
    return real_arg(I, po, fname, what, unk) ? RT_NORM_P : -1;
}

static Type *norm_call(Inf *I, Node *n, Node **sl, Type *xt, bool *unk) {
    /* N-d x: only the 2-norm of the flattened array (ord=None, axis=None) */
    bool flat = xt->kind == TY_ARRAY && (xt->ndim == 0 || xt->ndim > 2) && is_none(sl[1]) && is_none(sl[2]) &&
                ty_is_number(xt->dtype);
    if (!flat && !need_array(I, sl[0], xt, "norm", 1, 2))
        return NULL;
    int64_t axis = -1;
    if (!is_none(sl[2])) {
        if (!const_int(sl[2], &axis))
            return UNSUP(I, sl[2], "norm() axis must be a constant integer or None in hpcjit");
        if (axis < -xt->ndim || axis >= xt->ndim)
            return TYPING(I, sl[2], "axis %lld is out of bounds for array of dimension %d", (long long)axis,
                          xt->ndim);
        axis = axis < 0 ? axis + xt->ndim : axis;
    }
    int keep = 0;
    if (sl[3] && (keep = bool_option(I, sl[3], "norm", "keepdims", 0)) < 0)
        return NULL;
    if (keep && (axis < 0 || xt->ndim == 1))
        return UNSUP(I, sl[3], "norm() with keepdims=True is supported by hpcjit only with an axis of a 2-D array");
    int kind = order_arg(I, &sl[1], "norm", "ord", unk);
    if (kind < 0)
        return NULL;
    n->op_ty = lapack_type(I, xt->dtype);
    if (flat)
        kind = RT_NORM_FLAT;
    bool rows = axis >= 0 && xt->ndim == 2; /* vector norms along an axis */
    if (I->final) {
        sl[2] = infer_const_int(I, n->loc, kind);
        sl[3] = rows ? infer_const_int(I, n->loc, axis) : NULL;
    }
    Type *rt = real_of(I, n->op_ty);
    return rows ? arr(I, rt, keep ? 2 : 1) : rt;
}

static Type *infer_linalg_call(Inf *I, Node *n, BuiltinId id, Node *self) {
    Sig s;
    if (!sig_of(id, &s))
        return UNSUP(I, n, "%s() is not supported by hpcjit yet", builtin_name(id));
    const char *fname = s.fname;
    n->call_kind = CALL_BUILTIN;
    n->builtin = id;
    Node *sl[INFER_MAX_SLOTS];
    if (!infer_bind_slots(I, n, self, &s, sl))
        return NULL;
    if (!sl[0])
        return TYPING(I, n, "%s() missing required argument '%s'", fname, s.names[0]);
    Type *at = self ? infer_value_ty(self) : infer_expr(I, &sl[0]);
    if (!at)
        return NULL;
    bool two = id == BI_NP_DOT || id == BI_NP_MATMUL || id == BI_NP_VDOT || id == BI_NP_OUTER || id == BI_NP_INNER ||
               id == BI_NP_KRON ||
               id == BI_LA_SOLVE || id == BI_LA_LSTSQ;
    Type *bt = NULL;
    if (two) {
        if (!sl[1])
            return TYPING(I, n, "%s() missing required argument '%s'", fname, s.names[1]);
        bt = infer_expr(I, &sl[1]);
        if (!bt)
            return NULL;
    }
    bool unk = IS_UNK(at) || (bt && IS_UNK(bt));
    if (unk)
        return TY_UNK(I);
    Type *r = NULL;
    switch (id) {
    case BI_NP_DOT:
    case BI_NP_MATMUL:
    case BI_NP_VDOT:
    case BI_NP_OUTER:
    case BI_NP_INNER:
    case BI_NP_KRON:
        r = product(I, n, id, fname, sl, at, bt);
        break;
    case BI_NP_TRACE: {
        if (!need_array(I, sl[0], at, fname, 2, 2))
            return NULL;
        if (sl[1] && !is_none(sl[1])) {
            Type *ot = infer_expr(I, &sl[1]);
            if (!ot)
                return NULL;
            if (IS_UNK(ot))
                return ot;
            if (!ty_is_int(ot) && ot->kind != TY_BOOL)
                return TYPING(I, sl[1], "trace() offset must be an integer, not %s", infer_tyname(I, ot));
            infer_cast(I, &sl[1], T(I, TY_INT64));
        } else {
            sl[1] = NULL;
        }
        Type *dt = at->dtype;
        n->op_ty = dt;
        r = ty_is_unsigned(dt) ? T(I, TY_UINT64) : (ty_is_int(dt) || dt->kind == TY_BOOL) ? T(I, TY_INT64) : dt;
        break;
    }
    case BI_LA_NORM:
        r = norm_call(I, n, sl, at, &unk);
        break;
    case BI_LA_SOLVE:
    case BI_LA_LSTSQ: {
        if (!need_array(I, sl[0], at, fname, 2, 2) || !need_array(I, sl[1], bt, fname, 1, 2))
            return NULL;
        Type *dt = lapack_type(I, ty_np_promote(I->tc, at->dtype, bt->dtype));
        n->op_ty = dt;
        if (id == BI_LA_SOLVE) {
            r = arr(I, dt, bt->ndim);
            break;
        }
        if (!real_arg(I, &sl[2], fname, "rcond", &unk))
            return NULL;
        Type *el[4] = {arr(I, dt, bt->ndim), arr(I, real_of(I, dt), 1), T(I, TY_INT64), arr(I, real_of(I, dt), 1)};
        r = ty_tuple(I->tc, el, 4);
        break;
    }
    case BI_LA_SLOGDET:
    case BI_LA_PINV:
    case BI_LA_MATRIX_RANK:
    case BI_LA_COND: {
        if (!need_array(I, sl[0], at, fname, 2, 2))
            return NULL;
        Type *dt = lapack_type(I, at->dtype);
        n->op_ty = dt;
        if (id == BI_LA_PINV || id == BI_LA_MATRIX_RANK) {
            int herm = bool_option(I, sl[2], fname, "hermitian", 0);
            if (herm < 0)
                return NULL;
            if (herm)
                return UNSUP(I, sl[2], "%s(hermitian=True) is not supported by hpcjit", fname);
            if (!real_arg(I, &sl[1], fname, id == BI_LA_PINV ? "rcond" : "tol", &unk))
                return NULL;
            sl[2] = NULL;
        }
        if (id == BI_LA_COND) {
            int kind = order_arg(I, &sl[1], fname, "p", &unk);
            if (kind < 0)
                return NULL;
            if (I->final)
                sl[2] = infer_const_int(I, n->loc, kind);
        }
        if (id == BI_LA_SLOGDET) {
            Type *el[2] = {dt, real_of(I, dt)};
            r = ty_tuple(I->tc, el, 2);
        } else {
            r = id == BI_LA_PINV ? arr(I, dt, 2) : id == BI_LA_MATRIX_RANK ? T(I, TY_INT64) : real_of(I, dt);
        }
        break;
    }
    case BI_LA_MATRIX_POWER: {
        if (!need_array(I, sl[0], at, fname, 2, 2))
            return NULL;
        if (!sl[1])
            return TYPING(I, n, "matrix_power() missing required argument 'n'");
        Type *nt = infer_expr(I, &sl[1]);
        if (!nt)
            return NULL;
        if (IS_UNK(nt))
            return nt;
        if (!ty_is_int(nt) && nt->kind != TY_BOOL)
            return TYPING(I, sl[1], "exponent must be an integer, not %s", infer_tyname(I, nt));
        infer_cast(I, &sl[1], T(I, TY_INT64));
        n->op_ty = at->dtype;
        r = arr(I, at->dtype, 2);
        break;
    }
    case BI_LA_INV:
    case BI_LA_DET:
    case BI_LA_CHOLESKY:
    case BI_LA_EIG:
    case BI_LA_EIGVALS:
    case BI_LA_EIGH:
    case BI_LA_EIGVALSH:
    case BI_LA_SVD:
    case BI_LA_QR: {
        /* inv, det and cholesky also take stacked matrices (..., M, M) */
        bool stacked = (id == BI_LA_INV || id == BI_LA_DET || id == BI_LA_CHOLESKY) && at->kind == TY_ARRAY &&
                       at->ndim > 2;
        if (!stacked && !need_array(I, sl[0], at, fname, 2, 2))
            return NULL;
        if (stacked && !ty_is_number(at->dtype))
            return TYPING(I, sl[0], "%s() needs a numeric array, not %s", fname, infer_tyname(I, at));
        Type *dt = lapack_type(I, at->dtype);
        n->op_ty = dt;
        if (id == BI_LA_DET && stacked) {
            r = arr(I, dt, at->ndim - 2);
        } else if (id == BI_LA_CHOLESKY) {
            int up = bool_option(I, sl[1], fname, "upper", 0);
            if (up < 0)
                return NULL;
            if (I->final)
                sl[1] = infer_const_int(I, n->loc, up);
            r = arr(I, dt, at->ndim);
        } else if (id == BI_LA_INV) {
            r = arr(I, dt, at->ndim);
        } else if (id == BI_LA_EIG) {
            Type *el[2] = {arr(I, dt, 1), arr(I, dt, 2)};
            r = ty_tuple(I->tc, el, 2);
        } else if (id == BI_LA_EIGVALS) {
            r = arr(I, dt, 1);
        } else if (id == BI_LA_DET) {
            r = dt;
        } else if (id == BI_LA_EIGH || id == BI_LA_EIGVALSH) {
            static const char *const uplo[] = {"L", "U"};
            int u = str_option(I, sl[1], fname, "UPLO", uplo, 2, 0);
            if (u < 0)
                return NULL;
            if (I->final)
                sl[1] = infer_const_int(I, n->loc, u);
            if (id == BI_LA_EIGVALSH) {
                r = arr(I, real_of(I, dt), 1);
            } else {
                Type *el[2] = {arr(I, real_of(I, dt), 1), arr(I, dt, 2)};
                r = ty_tuple(I->tc, el, 2);
            }
        } else if (id == BI_LA_SVD) {
            int full = bool_option(I, sl[1], fname, "full_matrices", 1);
            int uv = full < 0 ? -1 : bool_option(I, sl[2], fname, "compute_uv", 1);
            int herm = uv < 0 ? -1 : bool_option(I, sl[3], fname, "hermitian", 0);
            if (herm < 0)
                return NULL;
            if (herm)
                return UNSUP(I, sl[3], "svd(hermitian=True) is not supported by hpcjit");
            if (I->final) {
                sl[1] = infer_const_int(I, n->loc, full);
                sl[2] = infer_const_int(I, n->loc, uv);
                sl[3] = NULL;
            }
            if (!uv) {
                r = arr(I, real_of(I, dt), 1);
            } else {
                Type *el[3] = {arr(I, dt, 2), arr(I, real_of(I, dt), 1), arr(I, dt, 2)};
                r = ty_tuple(I->tc, el, 3);
            }
        } else {
            static const char *const modes[] = {"reduced", "complete", "r"};
            int mode = str_option(I, sl[1], fname, "mode", modes, 3, 0);
            if (mode < 0)
                return NULL;
            if (I->final)
                sl[1] = infer_const_int(I, n->loc, mode);
            Type *el[2] = {arr(I, dt, 2), arr(I, dt, 2)};
            r = mode == 2 ? el[1] : ty_tuple(I->tc, el, 2);
        }
        break;
    }
    default: return UNSUP(I, n, "%s() is not supported by hpcjit", fname);
    }
    if (!r)
        return NULL;
    if (unk)
        return TY_UNK(I);
    infer_store_slots(I, n, sl, id == BI_LA_COND ? 3 : s.n); /* cond: + the order's kind */
    return r;
}

/* the feature's entry in the registry (lib/registry.h) */
const LibOps lib_linalg_ops = {.name = "linalg", .infer_call = infer_linalg_call, .infer_attr = infer_linalg_attr,
                               .lower_call = lower_linalg_call};
