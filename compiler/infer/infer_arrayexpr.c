/* infer_arrayexpr.c - typing of array expressions: operators and ufuncs on
 * arrays (and the ufuncs on scalars), NumPy's dtype promotion and the
 * N_ARRAYEXPR roots that lowering fuses into one loop nest.
 *
 * Tree shape (docs/TYPED_AST.md, "Array expressions"): an N_ARRAYEXPR's `a`
 * is an elementwise node (N_BINOP, N_UNARYOP, N_COMPARE with one
 * comparison, an N_CALL of a ufunc or a CALL_ELEMWISE one) whose `ty` is
 * an array.  Its operands
 * are NOT cast: each elementwise node has `op_ty`, the scalar type the
 * operation is done in, and lowering converts each operand's element to it
 * as an N_CAST would.  Operands that are themselves elementwise array nodes
 * belong to the same tree; anything else is a leaf evaluated once. */
#include "infer.h"

#include <string.h>

static Type *T(Inf *I, TyKind k) { return infer_ty(I, k); }
static Type *elt(Type *t) { return t->kind == TY_ARRAY ? t->dtype : t; }
static int ndim_of(Type *t) { return t->kind == TY_ARRAY ? t->ndim : 0; }

/* bool < integers < floats < complex: the "kind" NumPy's scalar rules use. */
static int kind_rank(const Type *t) {
    if (t->kind == TY_BOOL)
        return 0;
    if (ty_is_int(t))
        return 1;
    if (ty_is_float(t))
        return 2;
    return 3;
}

/* The float an integer (or bool) meets a float in: small ones fit float32. */
static Type *float_for(Inf *I, Type *t) {
    if (ty_is_float(t))
        return t;
    if (ty_is_complex(t))
        return T(I, t->kind == TY_COMPLEX64 ? TY_FLOAT32 : TY_FLOAT64);
    return T(I, (t->kind == TY_BOOL || ty_bits(t) <= 16) ? TY_FLOAT32 : TY_FLOAT64);
}

/* Promotion of the operands of one ufunc: arrays by np.promote_types; a
 * scalar of a lower kind than the arrays does not widen them (Numba 0.68:
 * float32 array + 1 is float32, int8 array + 1 is int64). */
static Type *ae_promote(Inf *I, Type **tys, int n) {
    Type *arr = NULL, *sc = NULL;
    for (int i = 0; i < n; i++) {
        Type *e = elt(tys[i]);
        if (tys[i]->kind == TY_ARRAY)
            arr = arr ? ty_np_promote(I->tc, arr, e) : e;
        else
            sc = sc ? ty_np_promote(I->tc, sc, e) : e;
    }
    if (!arr)
        return sc;
    if (!sc || kind_rank(arr) > kind_rank(sc))
        return arr;
    return ty_np_promote(I->tc, arr, sc);
}

static bool operand_ok(Inf *I, Node *at, Type *t) {
    Type *e = elt(t);
    if (!ty_is_number(e)) {
        TYPING(I, at, "cannot use %s in an array expression", infer_tyname(I, t));
        return false;
    }
    return true;
}

/* Result of an elementwise op: a C array of the broadcast rank, or the
 * scalar when no operand is an array. */
static Type *result(Inf *I, Type *dt, Type **tys, int n) {
    int nd = -1;
    for (int i = 0; i < n; i++)
        if (tys[i]->kind == TY_ARRAY && tys[i]->ndim > nd)
            nd = tys[i]->ndim;
    return nd < 0 ? dt : ty_array(I->tc, dt, nd, LAYOUT_C);
}

static void unwrap(Inf *I, Node **pn) {
    if (I->final && *pn && (*pn)->kind == N_ARRAYEXPR)
        *pn = (*pn)->a;
}

/* Operator `op` on elements of types a and b: sets *op_ty, returns the
 * element type of the result, or NULL with a diagnostic. */
static Type *elem_binop(Inf *I, Node *at, OpKind op, Type *pa, Type *pb, Type **op_ty) {
    Type *tys[2] = {pa, pb};
    Type *t = ae_promote(I, tys, 2);
    Type *a = elt(pa), *b = elt(pb);
    bool cplx = ty_is_complex(t), flt = ty_is_float(t), bl = t->kind == TY_BOOL;
    *op_ty = t;
    switch (op) {
    case OP_ADD: case OP_MUL:
        return t; /* bool: logical or / and, as NumPy */
    case OP_SUB:
        if (bl)
            return TYPING(I, at, "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, "
                                 "the `^` operator, or the logical_xor function instead");
        return t;
    case OP_DIV:
        if (!cplx && !flt)
            *op_ty = t = T(I, TY_FLOAT64);
        return t;
    case OP_FLOORDIV: case OP_MOD:
        if (cplx)
            return TYPING(I, at, "cannot %s %s and %s (complex numbers have no %s)",
                          op == OP_MOD ? "take the remainder of" : "floor-divide", infer_tyname(I, pa),
                          infer_tyname(I, pb), op == OP_MOD ? "remainder" : "floor division");
        if (bl)
            *op_ty = t = T(I, TY_INT8);
        return t;
    case OP_POW:
        if (bl)
            *op_ty = t = T(I, TY_INT8);
        return t;
    case OP_LSHIFT: case OP_RSHIFT:
    case OP_BITAND: case OP_BITOR: case OP_BITXOR:
        if (cplx || flt || ((op == OP_LSHIFT || op == OP_RSHIFT) && bl))
            return TYPING(I, at, "cannot apply '%s' to %s and %s (integers%s only)", ast_op_str(op),
                          infer_tyname(I, pa), infer_tyname(I, pb),
                          (op == OP_LSHIFT || op == OP_RSHIFT) ? "" : " and bools");
        if ((op == OP_LSHIFT || op == OP_RSHIFT) && (a->kind == TY_BOOL || b->kind == TY_BOOL) && bl)
            return TYPING(I, at, "cannot shift bools");
        return t;
    default:
        return UNSUP(I, at, "operator '%s' is not supported on arrays", ast_op_str(op));
    }
}

Type *infer_ae_binop(Inf *I, Node *n, Type *a, Type *b) {
    if (ty_is_npdt(elt(a)) || ty_is_npdt(elt(b))) { /* elements keep their units (infer_datetime.c) */
        Type *op_ty = NULL, *tys[2] = {a, b};
        Type *r = infer_dt_binop(I, n, n->op, elt(a), elt(b), &op_ty);
        if (!r)
            return NULL;
        n->op_ty = op_ty;
        unwrap(I, &n->a);
        unwrap(I, &n->b);
        return result(I, r, tys, 2);
    }
    /* name both operand types, as the scalar path does */
    if (!ty_is_number(elt(a)) || !ty_is_number(elt(b)))
        return TYPING(I, n, "unsupported operand types for '%s': %s and %s", ast_op_str(n->op),
                      infer_tyname(I, a), infer_tyname(I, b));
    Type *op_ty = NULL;
    Type *r = elem_binop(I, n, n->op, a, b, &op_ty);
    if (!r)
        return NULL;
    n->op_ty = op_ty;
    unwrap(I, &n->a);
    unwrap(I, &n->b);
    Type *tys[2] = {a, b};
    return result(I, r, tys, 2);
}

Type *infer_ae_unary(Inf *I, Node *n, Type *a) {
    if (ty_is_npdt(elt(a))) {
        if (!infer_dt_unary(I, n, n->op, elt(a)))
            return NULL;
        n->op_ty = elt(a);
        unwrap(I, &n->a);
        return ty_array(I->tc, elt(a), a->ndim, LAYOUT_C);
    }
    if (!operand_ok(I, n->a, a))
        return NULL;
    Type *e = elt(a);
    if (n->op == OP_NEG && e->kind == TY_BOOL)
        return TYPING(I, n, "the numpy boolean negative, the `-` operator, is not supported, use the `~` operator "
                            "or the logical_not function instead");
    if (n->op == OP_INVERT && !(ty_is_int(e) || e->kind == TY_BOOL))
        return TYPING(I, n, "cannot apply unary '~' to %s (integers and bools only)", infer_tyname(I, a));
    n->op_ty = e;
    unwrap(I, &n->a);
    return ty_array(I->tc, e, a->ndim, LAYOUT_C);
}

Type *infer_ae_compare(Inf *I, Node *n, Type *a, Type *b) {
    if (n->args.len != 1)
        return TYPING(I, n, "chained comparisons of arrays are ambiguous (the truth value of an array "
                            "with more than one element is ambiguous)");
    OpKind op = n->ops[0];
    Type *tys[2] = {a, b};
    Type *t;
    if (ty_is_npdt(elt(a)) || ty_is_npdt(elt(b))) { /* compared in the finer unit (infer_datetime.c) */
        if (!(t = infer_dt_compare(I, n, op, elt(a), elt(b))))
            return NULL;
    } else {
        if (!operand_ok(I, n->a, a) || !operand_ok(I, VEC_AT(n->args, 0), b))
            return NULL;
        if (op != OP_EQ && op != OP_NE && op != OP_LT && op != OP_LE && op != OP_GT && op != OP_GE)
            return UNSUP(I, n, "'%s' is not supported on arrays", ast_op_str(op));
        t = ae_promote(I, tys, 2);
    }
    if (I->final || !n->op_tys)
        n->op_tys = arena_alloc(I->a, sizeof(Type *) * 2);
    n->op_tys[0] = t;
    n->op_ty = t;
    unwrap(I, &n->a);
    unwrap(I, (Node **)&VEC_AT(n->args, 0));
    return result(I, T(I, TY_BOOL), tys, 2);
}

Type *infer_ae_augassign(Inf *I, Node *n, Type *tt, Type *vt) {
    if (ty_is_npdt(tt->dtype) || ty_is_npdt(elt(vt))) {
        Type *op_ty = NULL, *r = NULL;
        if (ndim_of(vt) > tt->ndim)
            return TYPING(I, n, "cannot update %s in place with %s (the value has more dimensions)",
                          infer_tyname(I, tt), infer_tyname(I, vt));
        if (!(r = infer_dt_binop(I, n, n->op, tt->dtype, elt(vt), &op_ty)))
            return NULL;
        if (!ty_is_npdt(r) || !ty_can_convert(r, tt->dtype))
            return TYPING(I, n, "Cannot cast ufunc '%s' output from %s to %s with casting rule 'same_kind'",
                          ast_op_str(n->op), infer_tyname(I, r), infer_tyname(I, tt->dtype));
        n->op_ty = op_ty;
        unwrap(I, &n->b);
        return ty_array(I->tc, r, tt->ndim, LAYOUT_C);
    }
    if (!operand_ok(I, n->a, tt) || !operand_ok(I, n->b, vt))
        return NULL;
    if (ndim_of(vt) > tt->ndim)
        return TYPING(I, n, "cannot update %s in place with %s (the value has more dimensions)",
                      infer_tyname(I, tt), infer_tyname(I, vt));
    Type *op_ty = NULL;
    Type *r = elem_binop(I, n, n->op, tt, vt, &op_ty);
    if (!r)
        return NULL;
    if (kind_rank(r) > kind_rank(tt->dtype))
        return TYPING(I, n, "Cannot cast ufunc '%s' output from %s to %s with casting rule 'same_kind'",
                      ast_op_str(n->op), infer_tyname(I, r), infer_tyname(I, tt->dtype));
    n->op_ty = op_ty;
    unwrap(I, &n->b);
    return ty_array(I->tc, r, tt->ndim, LAYOUT_C);
}

/* `t[...] = v` with v an array and t a basic-index (view) target: v is
 * broadcast into the view; -1 when the target is another form. */
int infer_ae_store(Inf *I, Node *t, Node **pv, Type *vt) {
    if (t->idx_kind != IDX_BASIC || !t->op_ty || t->op_ty->kind != TY_ARRAY || vt->kind != TY_ARRAY)
        return -1;
    Type *vty = t->op_ty;
    if (!ty_is_npdt(vt->dtype) && !operand_ok(I, *pv, vt)) /* datetimes: copied, units converted */
        return 0;
    /* a value of more dimensions is stored when the extra leading ones are
     * 1 (checked at run time, lower_arrayexpr.c check_into): Numba's
     * `result[i, :] = f(window)` with f giving shape (1, n) (pandas' table
     * rolling apply) */
    if (!ty_can_convert(vt->dtype, vty->dtype)) {
        TYPING(I, *pv, "cannot assign %s to elements of %s", infer_tyname(I, vt), infer_tyname(I, vty));
        return 0;
    }
    t->ty = vty->dtype;
    unwrap(I, pv); /* the store is the loop: fuse the value into it */
    return 1;
}

Type *infer_ae_real_imag(Inf *I, Node *n, Type *base) {
    bool re = n->name[0] == 'r';
    n->attr_kind = re ? ATTR_ARRAY_REAL : ATTR_ARRAY_IMAG;
    if (ty_is_complex(base->dtype)) /* strided over the complex items */
        return ty_array_ro(I->tc, float_for(I, base->dtype), base->ndim, LAYOUT_A, base->readonly);
    if (re)
        return base;
    return ty_array(I->tc, base->dtype, base->ndim, LAYOUT_C);
}

/* ---- ufuncs ---- */

typedef enum UfCat {
    UF_NONE,
    UF_FLOAT,   /* x -> float of x (sqrt, exp, sin, ...) */
    UF_FLOAT2,  /* (x, y) -> float of their promotion (arctan2, hypot, ...) */
    UF_SAME,    /* x -> x's type (negative, square, floor on ints, ...) */
    UF_ABS,     /* x -> x's type, complex -> its float */
    UF_PRED,    /* x -> bool (isnan, ...), computed in x's type */
    UF_ANGLE,   /* x -> float */
    UF_BINOP,   /* as the operator `op` */
    UF_CMP,     /* as the comparison `op` */
    UF_LOGIC2,  /* (x, y) -> bool of their truth values */
    UF_MINMAX,  /* (x, y) -> promotion */
    UF_WHERE,   /* (c, x, y) -> promotion of x, y */
    UF_CLIP,    /* (x, lo, hi) -> promotion */
    UF_FMOD,    /* (x, y) -> promotion, not complex (fmod) */
    UF_INT2,    /* (x, y) -> promotion, integers only (gcd, lcm) */
    UF_FPOW,    /* (x, y) -> float64 or complex128 (float_power) */
    UF_LDEXP,   /* (x, int) -> float of x */
} UfCat;

static UfCat ufunc_cat(BuiltinId id, OpKind *op) {
    *op = OP_NONE;
    switch (id) {
    case BI_NP_SQRT: case BI_NP_EXP: case BI_NP_LOG: case BI_NP_SIN: case BI_NP_COS: case BI_NP_TAN:
    case BI_NP_LOG1P: case BI_NP_EXPM1: case BI_NP_LOG2: case BI_NP_LOG10: case BI_NP_EXP2:
    case BI_NP_ARCSIN: case BI_NP_ARCCOS: case BI_NP_ARCTAN: case BI_NP_SINH: case BI_NP_COSH:
    case BI_NP_TANH: case BI_NP_ARCSINH: case BI_NP_ARCCOSH: case BI_NP_ARCTANH: case BI_NP_DEG2RAD:
    case BI_NP_RAD2DEG: case BI_NP_CBRT: case BI_NP_SPACING:
        return UF_FLOAT;
    case BI_NP_ARCTAN2: case BI_NP_HYPOT: case BI_NP_COPYSIGN: case BI_NP_LOGADDEXP:
    case BI_NP_LOGADDEXP2: case BI_NP_NEXTAFTER:
        return UF_FLOAT2;
    case BI_NP_FLOOR: case BI_NP_CEIL: case BI_NP_TRUNC: case BI_NP_RINT: case BI_NP_SIGN:
    case BI_NP_NEGATIVE: case BI_NP_POSITIVE: case BI_NP_SQUARE: case BI_NP_RECIPROCAL: case BI_NP_CONJ:
    case BI_NP_INVERT:
        return UF_SAME;
    case BI_ABS: case BI_NP_ABS: case BI_NP_FABS:
        return UF_ABS;
    case BI_NP_ISNAN: case BI_NP_ISINF: case BI_NP_ISFINITE: case BI_NP_LOGICAL_NOT: case BI_NP_SIGNBIT:
    case BI_NP_ISNAT:
        return UF_PRED;
    case BI_NP_FMOD: return UF_FMOD;
    case BI_NP_GCD: case BI_NP_LCM: return UF_INT2;
    case BI_NP_FLOAT_POWER: return UF_FPOW;
    case BI_NP_LDEXP: return UF_LDEXP;
    case BI_NP_ANGLE:
        return UF_ANGLE;
    case BI_NP_ADD: *op = OP_ADD; return UF_BINOP;
    case BI_NP_SUBTRACT: *op = OP_SUB; return UF_BINOP;
    case BI_NP_MULTIPLY: *op = OP_MUL; return UF_BINOP;
    case BI_NP_DIVIDE: *op = OP_DIV; return UF_BINOP;
    case BI_NP_FLOOR_DIVIDE: *op = OP_FLOORDIV; return UF_BINOP;
    case BI_NP_REMAINDER: *op = OP_MOD; return UF_BINOP;
    case BI_NP_POWER: *op = OP_POW; return UF_BINOP;
    case BI_NP_BITWISE_AND: *op = OP_BITAND; return UF_BINOP;
    case BI_NP_BITWISE_OR: *op = OP_BITOR; return UF_BINOP;
    case BI_NP_BITWISE_XOR: *op = OP_BITXOR; return UF_BINOP;
    case BI_NP_LEFT_SHIFT: *op = OP_LSHIFT; return UF_BINOP;
    case BI_NP_RIGHT_SHIFT: *op = OP_RSHIFT; return UF_BINOP;
    case BI_NP_EQUAL: *op = OP_EQ; return UF_CMP;
    case BI_NP_NOT_EQUAL: *op = OP_NE; return UF_CMP;
    case BI_NP_LESS: *op = OP_LT; return UF_CMP;
    case BI_NP_LESS_EQUAL: *op = OP_LE; return UF_CMP;
    case BI_NP_GREATER: *op = OP_GT; return UF_CMP;
    case BI_NP_GREATER_EQUAL: *op = OP_GE; return UF_CMP;
    case BI_NP_LOGICAL_AND: *op = OP_BITAND; return UF_LOGIC2;
    case BI_NP_LOGICAL_OR: *op = OP_BITOR; return UF_LOGIC2;
    case BI_NP_LOGICAL_XOR: *op = OP_BITXOR; return UF_LOGIC2;
    case BI_NP_MINIMUM: case BI_NP_MAXIMUM: case BI_NP_FMIN: case BI_NP_FMAX:
        return UF_MINMAX;
    case BI_NP_WHERE: return UF_WHERE;
    case BI_NP_CLIP: return UF_CLIP;
    default: return UF_NONE;
    }
}

/* Ufuncs this file types (also on scalars); the older numpy math builtins
 * (np.sqrt, np.abs, ...) and abs() come here only with an array argument. */
bool infer_ae_is_ufunc(BuiltinId id) {
    OpKind op;
    return ufunc_cat(id, &op) != UF_NONE;
}

bool infer_ae_owns_scalar(BuiltinId id) {
    switch (id) {
    case BI_NP_SQRT: case BI_NP_EXP: case BI_NP_LOG: case BI_NP_SIN: case BI_NP_COS: case BI_NP_TAN:
    case BI_NP_ARCTAN2: case BI_NP_HYPOT: case BI_NP_FLOOR: case BI_NP_CEIL: case BI_NP_ABS: case BI_ABS:
        return false;
    default:
        return infer_ae_is_ufunc(id);
    }
}

static int ufunc_nargs(UfCat c) {
    switch (c) {
    case UF_FLOAT2: case UF_BINOP: case UF_CMP: case UF_LOGIC2: case UF_MINMAX: case UF_FMOD: case UF_INT2:
    case UF_FPOW: case UF_LDEXP:
        return 2;
    case UF_WHERE: case UF_CLIP: return 3;
    default: return 1;
    }
}

static const char *np_name(BuiltinId id) {
    const char *s = builtin_name(id);
    const char *dot = strrchr(s, '.');
    return dot ? dot + 1 : s;
}

/* `np.f(a, b, out)` / `np.f(a, b, out=o)` as a statement: rewritten into
 * `out[...] = np.f(a, b)` (the result converted into out's items, as
 * NumPy does), before anything in it is typed.  True when rewritten. */
bool infer_ae_ufunc_out_stmt(Inf *I, Node *st) {
    Node *call = st->a;
    if (st->kind != N_EXPR || call->kind != N_CALL || !call->a || call->has_star)
        return false;
    Node *f = call->a;
    if (f->kind != N_NAME && f->kind != N_ATTRIBUTE)
        return false;
    Type *ft = infer_expr_opt(I, &call->a);
    if (!ft || ft->kind != TY_BUILTIN || !infer_ae_is_ufunc((BuiltinId)ft->builtin))
        return false;
    OpKind op = OP_NONE;
    int k = ufunc_nargs(ufunc_cat((BuiltinId)ft->builtin, &op));
    Node *out = NULL;
    if (call->args.len == k + 1 && call->keywords.len == 0) {
        out = VEC_AT(call->args, k);
        call->args.len = k;
    } else if (call->args.len == k && call->keywords.len == 1 &&
               ((Node *)VEC_AT(call->keywords, 0))->name &&
               strcmp(((Node *)VEC_AT(call->keywords, 0))->name, "out") == 0) {
        out = ((Node *)VEC_AT(call->keywords, 0))->a;
        call->keywords.len = 0;
    } else {
        return false;
    }
    Node *sub = ast_new(I->a, N_SUBSCRIPT, out->loc);
    sub->a = out;
    sub->b = ast_new(I->a, N_CONST, out->loc);
    sub->b->cval.kind = CVAL_ELLIPSIS;
    st->kind = N_ASSIGN;
    st->targets = (PtrVec){0};
    vec_push(I->a, &st->targets, sub);
    return true;
}

/* A ufunc with a datetime64/timedelta64 operand (Numba's table of their
 * loops), or np.isnat: op_ty is the type it computes in (the operands keep
 * their units: lower_datetime.c); NULL after a diagnostic. */
static Type *dt_ufunc(Inf *I, Node *n, BuiltinId id, UfCat cat, OpKind op, Type **tys, int k, Type **op_ty) {
    Type *a = elt(tys[0]), *b = k > 1 ? elt(tys[1]) : NULL;
    const char *fname = np_name(id);
    for (int i = 0; i < k; i++)
        if (!ty_is_npdt(elt(tys[i])) && !ty_is_number(elt(tys[i])))
            return TYPING(I, VEC_AT(n->args, i), "np.%s() cannot take %s", fname, infer_tyname(I, tys[i]));
    switch (cat) {
    case UF_BINOP:
        if (op != OP_ADD && op != OP_SUB && op != OP_MUL && op != OP_DIV && op != OP_FLOORDIV)
            break;
        n->op = op;
        return infer_dt_binop(I, n, op, a, b, op_ty);
    case UF_CMP:
        n->op = op;
        *op_ty = infer_dt_compare(I, n, op, a, b);
        return *op_ty ? T(I, TY_BOOL) : NULL;
    case UF_MINMAX: /* in the finer unit; two datetimes or two timedeltas */
        if (a->kind != b->kind)
            break;
        *op_ty = infer_dt_compare(I, n, OP_LT, a, b);
        return *op_ty;
    case UF_SAME:
    case UF_ABS:
        if (a->kind != TY_TIMEDELTA ||
            (id != BI_NP_NEGATIVE && id != BI_NP_POSITIVE && id != BI_NP_ABS && id != BI_ABS && id != BI_NP_SIGN))
            break;
        return *op_ty = a;
    case UF_PRED:
        if (!ty_is_npdt(a) || (id != BI_NP_ISNAT && id != BI_NP_ISNAN && id != BI_NP_ISFINITE && id != BI_NP_ISINF))
            return TYPING(I, n, "np.%s() is not defined for %s%s", fname, infer_tyname(I, tys[0]),
                          id == BI_NP_ISNAT ? " (only for datetime64 and timedelta64)" : "");
        *op_ty = a;
        return T(I, TY_BOOL);
    default:
        break;
    }
    return TYPING(I, n, "np.%s() is not supported on %s%s%s", fname, infer_tyname(I, tys[0]), k > 1 ? " and " : "",
                  k > 1 ? infer_tyname(I, tys[1]) : "");
}

/* np.f(...) with `tys` the types of n->args (all known). */
Type *infer_ae_ufunc_call(Inf *I, Node *n, BuiltinId id, Type **tys) {
    OpKind op = OP_NONE;
    UfCat cat = ufunc_cat(id, &op);
    const char *fname = np_name(id);
    int k = ufunc_nargs(cat);
    if (n->args.len != k)
        return TYPING(I, n, "np.%s() takes %d argument%s (%d given)", fname, k, k == 1 ? "" : "s", n->args.len);
    for (int i = 0; i < k; i++) {
        if (!VEC_AT(n->args, i))
            return TYPING(I, n, "np.%s() takes %d arguments", fname, k);
    }
    bool dt = id == BI_NP_ISNAT;
    for (int i = 0; i < k; i++)
        dt = dt || ty_is_npdt(elt(tys[i]));
    if (dt) {
        Type *ot = NULL, *r = dt_ufunc(I, n, id, cat, op, tys, k, &ot);
        if (!r)
            return NULL;
        n->call_kind = CALL_BUILTIN;
        n->builtin = id;
        n->op_ty = ot;
        for (int i = 0; i < k; i++)
            unwrap(I, (Node **)&VEC_AT(n->args, i));
        return result(I, r, tys, k);
    }
    for (int i = 0; i < k; i++)
        if (!operand_ok(I, VEC_AT(n->args, i), tys[i]))
            return NULL;
    Type *t = ae_promote(I, tys, k);
    Type *r = NULL;
    bool cplx = ty_is_complex(t);
    switch (cat) {
    case UF_FLOAT:
    case UF_FLOAT2:
        if (cplx) { /* NumPy's complex loops; none for the others */
            if (cat == UF_FLOAT2 || id == BI_NP_DEG2RAD || id == BI_NP_RAD2DEG || id == BI_NP_CBRT ||
                id == BI_NP_SPACING)
                return TYPING(I, n, "np.%s() is not defined for complex numbers (%s)", fname,
                              infer_tyname(I, t));
            r = t;
            break;
        }
        t = float_for(I, t);
        r = t;
        break;
    case UF_SAME:
        if (cplx && (id == BI_NP_FLOOR || id == BI_NP_CEIL || id == BI_NP_TRUNC || id == BI_NP_INVERT))
            return TYPING(I, n, "np.%s() is not defined for complex numbers (%s)", fname, infer_tyname(I, t));
        if (id == BI_NP_INVERT && !(ty_is_int(t) || t->kind == TY_BOOL))
            return TYPING(I, n, "np.invert() takes integers and bools, not %s", infer_tyname(I, tys[0]));
        if (id == BI_NP_NEGATIVE && t->kind == TY_BOOL)
            return TYPING(I, n, "the numpy boolean negative is not supported, use np.logical_not instead");
        if ((id == BI_NP_SIGN || id == BI_NP_SQUARE || id == BI_NP_RECIPROCAL) && t->kind == TY_BOOL)
            t = T(I, TY_INT8); /* Numba: bool loops of these are int8 */
        r = t;
        break;
    case UF_ABS:
        if (cplx && id == BI_NP_FABS)
            return TYPING(I, n, "np.fabs() is not defined for complex numbers (%s); use np.abs()",
                          infer_tyname(I, t));
        r = cplx ? float_for(I, t) : t;
        break;
    case UF_PRED:
        if (cplx && id == BI_NP_SIGNBIT)
            return TYPING(I, n, "np.signbit() is not defined for complex numbers (%s)", infer_tyname(I, t));
        r = T(I, TY_BOOL);
        break;
    case UF_FMOD:
    case UF_INT2:
        if (cplx || (cat == UF_INT2 && !ty_is_int(t)))
            return TYPING(I, n, "np.%s() is not defined for %s", fname, infer_tyname(I, t));
        if (t->kind == TY_BOOL)
            t = T(I, TY_INT8); /* NumPy's bool loops of these are int8 */
        r = t;
        break;
    case UF_FPOW:
        t = r = T(I, cplx ? TY_COMPLEX128 : TY_FLOAT64);
        break;
    case UF_LDEXP: {
        Type *e = elt(tys[1]);
        if (!ty_is_int(e) && e->kind != TY_BOOL)
            return TYPING(I, VEC_AT(n->args, 1), "np.ldexp() exponent must be an integer, not %s",
                          infer_tyname(I, e));
        Type *m = elt(tys[0]);
        if (ty_is_complex(m))
            return TYPING(I, VEC_AT(n->args, 0), "np.ldexp() is not defined for complex numbers (%s)",
                          infer_tyname(I, m));
        t = r = ty_is_float(m) ? m : T(I, TY_FLOAT64);
        break;
    }
    case UF_ANGLE:
        r = float_for(I, t);
        if (!cplx)
            t = r;
        break;
    case UF_BINOP: {
        Type *ot = NULL;
        r = elem_binop(I, n, op, tys[0], tys[1], &ot);
        if (!r)
            return NULL;
        t = ot;
        n->op = op;
        break;
    }
    case UF_CMP:
        n->op = op;
        r = T(I, TY_BOOL);
        break;
    case UF_LOGIC2:
        n->op = op;
        t = r = T(I, TY_BOOL);
        break;
    case UF_MINMAX:
    case UF_CLIP:
        /* complex: lexicographic order (lower_arrayexpr.c minmax_elem); clip
         * is minimum(maximum(x, lo), hi), as NumPy's complex loop */
        r = t;
        break;
    case UF_WHERE:
        t = ae_promote(I, tys + 1, 2);
        r = t;
        break;
    case UF_NONE:
        return UNSUP(I, n, "np.%s() is not a ufunc", fname);
    }
    n->call_kind = CALL_BUILTIN;
    n->builtin = id;
    n->op_ty = t;
    for (int i = 0; i < k; i++)
        unwrap(I, (Node **)&VEC_AT(n->args, i));
    return result(I, r, tys, k);
}

/* f(a, b) with f an overload resolved elementwise (a @vectorize function:
 * python/hpcjit/ufunc.py gives the function of one element, which converts
 * the elements to the loop types NumPy picked and calls the kernel): the
 * element function is specialised for the arguments' element types and
 * the call is one more node of the caller's fused tree, so it broadcasts
 * and runs on the pool as np.exp does. */
Type *infer_ae_elemwise_call(Inf *I, Node *n, int stub, int impl, bool *not_here) {
    const char *name = I->c->req->funcs[stub].name;
    int k = n->args.len;
    *not_here = false;
    if (n->keywords.len || n->has_star)
        return TYPING(I, n, "%s() takes positional arguments only on arrays", name);
    Type **tys = arena_alloc(I->a, sizeof(Type *) * (size_t)(k + 1));
    Type **etys = arena_alloc(I->a, sizeof(Type *) * (size_t)(k + 1));
    bool any_array = false;
    for (int i = 0; i < k; i++) {
        Type *t = infer_expr(I, (Node **)&VEC_AT(n->args, i));
        if (!t)
            return NULL;
        if (IS_UNK(t))
            return t;
        if (!operand_ok(I, VEC_AT(n->args, i), t))
            return NULL;
        any_array = any_array || t->kind == TY_ARRAY;
        tys[i] = t;
        etys[i] = elt(t);
    }
    if (!any_array) {
        *not_here = true;
        return NULL;
    }
    Spec *s = infer_spec_at(I, n->loc, impl, etys, k);
    if (!s)
        return NULL;
    if (IS_UNK(s->ret)) {
        if (I->final)
            return TYPING(I, n, "cannot infer the element type of %s()", name);
        return s->ret;
    }
    if (!ty_is_number(s->ret))
        return TYPING(I, n, "%s() returns %s for one element, not a number", name, infer_tyname(I, s->ret));
    n->call_kind = CALL_ELEMWISE;
    n->spec = s;
    for (int i = 0; i < k; i++)
        unwrap(I, (Node **)&VEC_AT(n->args, i));
    return result(I, s->ret, tys, k);
}

/* An elementwise node whose value is an array: the root of a fused tree. */
bool infer_ae_is_elementwise(const Node *n) {
    if (!n->ty || n->ty->kind != TY_ARRAY)
        return false;
    switch (n->kind) {
    case N_BINOP: return n->op != OP_MATMUL && n->op_ty && n->op_ty->kind != TY_ARRAY;
    case N_UNARYOP: return n->op != OP_NOT;
    case N_COMPARE: return true;
    case N_CALL:
        return (n->call_kind == CALL_BUILTIN && infer_ae_is_ufunc(n->builtin)) || n->call_kind == CALL_ELEMWISE;
    default: return false;
    }
}

Node *infer_ae_root(Inf *I, Node *n) {
    if (!I->final || !infer_ae_is_elementwise(n))
        return n;
    Node *r = ast_new(I->a, N_ARRAYEXPR, n->loc);
    r->a = n;
    r->ty = n->ty;
    return r;
}
