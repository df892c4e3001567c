/* lower_arrayexpr.c - fused array expressions (N_ARRAYEXPR), ufuncs on
 * scalars, in-place array updates (`a += b`) and array stores into views.
 *
 * One tree -> one loop nest: the leaves (arrays, scalars) are evaluated
 * once, the broadcast shape is computed and checked once, the result is
 * allocated once, and each element is computed by walking the tree.  When
 * every array operand is contiguous with the result's shape the loop is a
 * single flat loop that LLVM vectorises; otherwise a nest over the
 * broadcast shape with per-operand strides (0 on broadcast axes).  Element
 * arithmetic follows NumPy: division by zero gives 0 / inf / nan (the
 * numpy error model), never an exception. */
#include "lower.h"
#include "lower_cmath.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAXND HJ_MAX_NDIM_LOWER

typedef struct Leaf {
    Node *n;
    Type *ty;
    LLVMValueRef v;       /* array value, or the scalar */
    LLVMValueRef elem;    /* in the loop: this element (arrays), or v */
    int src;              /* N_FUSED: the statement whose element this name
                             reads (elem set when it is computed), else -1 */
    int dup;              /* N_FUSED: an earlier leaf reading the same name
                             (the same value: v and elem are its), else -1 */
    bool self;            /* a store's destination itself (v is the
                             destination's value): see same_view */
} Leaf;

typedef struct Ae {
    Leaf **leaves;
    int nleaves, cap;
} Ae;

static Type *ety(Type *t) { return t->kind == TY_ARRAY ? t->dtype : t; }
static bool is_arr(const Leaf *f) { return f->src < 0 && f->ty->kind == TY_ARRAY && f->ty->ndim > 0; }

static bool is_ufunc(BuiltinId id) {
    return (id >= BI_NP_LOG1P && id <= BI_NP_CLIP) || id == BI_NP_SQRT || id == BI_NP_EXP || id == BI_NP_LOG ||
           id == BI_NP_SIN || id == BI_NP_COS || id == BI_NP_TAN || id == BI_NP_ABS || id == BI_ABS ||
           id == BI_NP_FLOOR || id == BI_NP_CEIL || id == BI_NP_ARCTAN2 || id == BI_NP_HYPOT;
}

static bool elementwise(const Node *n) {
    if (!n->ty || n->ty->kind != TY_ARRAY)
        return false;
    switch (n->kind) {
    case N_BINOP: return n->op != OP_MATMUL && n->op_ty && n->op_ty->kind != TY_ARRAY;
    case N_UNARYOP: return n->op != OP_NOT;
    case N_COMPARE: return true;
    case N_CALL:
        return (n->call_kind == CALL_BUILTIN && n->op_ty && is_ufunc(n->builtin)) || n->call_kind == CALL_ELEMWISE;
    default: return false;
    }
}

static Leaf *add_leaf(Lower *L, Ae *ae) {
    if (ae->nleaves == ae->cap) {
        int nc = ae->cap ? 2 * ae->cap : 8;
        Leaf **nl = arena_alloc(&L->c->arena, sizeof(Leaf *) * (size_t)nc);
        if (ae->nleaves)
            memcpy(nl, ae->leaves, sizeof(Leaf *) * (size_t)ae->nleaves);
        ae->leaves = nl;
        ae->cap = nc;
    }
    Leaf *f = arena_alloc(&L->c->arena, sizeof(Leaf));
    memset(f, 0, sizeof *f);
    f->src = -1;
    f->dup = -1;
    ae->leaves[ae->nleaves++] = f;
    return f;
}

/* Attach the alias-scope list md (`kind`: "alias.scope" or "noalias") to
 * the memory access inst; nothing when md is NULL. */
static void scoped(Lower *L, LLVMValueRef inst, const char *kind, LLVMMetadataRef md) {
    if (md)
        LLVMSetMetadata(inst, LLVMGetMDKindIDInContext(L->ctx, kind, (unsigned)strlen(kind)),
                        LLVMMetadataAsValue(L->ctx, md));
}

/* A load of an element; md: the "noalias" (or, for the destination,
 * "alias.scope") list, or NULL. */
static LLVMValueRef load_elem_md(Lower *L, LLVMValueRef p, Type *dt, const char *kind, LLVMMetadataRef md) {
    if (dt->kind == TY_RECORD) /* a record: its address (lower_record.c) */
        return p;
    LLVMValueRef v = lower_load(L, lower_mem_type(L, dt), p, "elem");
    LLVMSetAlignment(v, (unsigned)ty_itemsize(dt));
    scoped(L, v, kind, md);
    return lower_from_mem(L, v, dt);
}

static LLVMValueRef load_elem(Lower *L, LLVMValueRef p, Type *dt) { return load_elem_md(L, p, dt, NULL, NULL); }

static void store_elem(Lower *L, LLVMValueRef p, LLVMValueRef v, Type *dt, LLVMMetadataRef scope) {
    if (dt->kind == TY_RECORD) { /* a record: its bytes */
        lower_record_put(L, p, v, dt);
        return;
    }
    LLVMValueRef st = LLVMBuildStore(L->b, lower_to_mem(L, v, dt), p);
    LLVMSetAlignment(st, (unsigned)ty_itemsize(dt));
    scoped(L, st, "alias.scope", scope);
}

/* Evaluate the leaves of tree n left to right (Python's order). */
static bool collect(Lower *L, Ae *ae, Node *n) {
    if (elementwise(n)) {
        switch (n->kind) {
        case N_BINOP: return collect(L, ae, n->a) && collect(L, ae, n->b);
        case N_UNARYOP: return collect(L, ae, n->a);
        case N_COMPARE: return collect(L, ae, n->a) && collect(L, ae, VEC_AT(n->args, 0));
        default:
            for (int i = 0; i < n->args.len; i++)
                if (!collect(L, ae, VEC_AT(n->args, i)))
                    return false;
            return true;
        }
    }
    LLVMValueRef v = lower_expr_use(L, n);
    if (!v)
        return false;
    Leaf *f = add_leaf(L, ae);
    f->n = n;
    f->ty = n->ty;
    f->v = v;
    f->elem = v;
    n->lower_data = f;
    if (n->ty->kind == TY_ARRAY && n->ty->ndim == 0) /* a 0-d array is one scalar */
        f->elem = f->v = load_elem(L, lower_array_field(L, v, ARR_DATA, "data"), n->ty->dtype);
    return true;
}

/* ---- element kernels ---- */

static LLVMValueRef conv(Lower *L, const Node *at, LLVMValueRef v, Type *from, Type *to) {
    return v ? lower_convert(L, at, v, from, to) : NULL;
}

static LLVMValueRef fconst(Lower *L, Type *t, double d) { return LLVMConstReal(lower_type(L, t), d); }

static LLVMValueRef intr(Lower *L, const char *name, Type *t, LLVMValueRef *a, unsigned n) {
    LLVMTypeRef lt = lower_type(L, t);
    return lower_intrinsic(L, name, &lt, 1, a, n);
}

static LLVMValueRef libm(Lower *L, const char *name, Type *ft, LLVMValueRef *a, unsigned n) {
    char buf[32];
    snprintf(buf, sizeof buf, "%s%s", name, ft->kind == TY_FLOAT32 ? "f" : "");
    LLVMTypeRef t = lower_type(L, ft);
    LLVMTypeRef p[2] = {t, t};
    return lower_rt_math(L, buf, t, p, n, a);
}

static Type *part_of(Lower *L, Type *c) {
    return ty_scalar(L->c->tc, c->kind == TY_COMPLEX64 ? TY_FLOAT32 : TY_FLOAT64);
}

/* a op b for a comparison of elements of type t; complex orderings are
 * NumPy's lexicographic ones (the real parts decide unless equal; an
 * unordered imaginary part makes a strict real comparison false). */
static LLVMValueRef cmp_elem(Lower *L, const Node *at, OpKind op, Type *t, LLVMValueRef a, LLVMValueRef b) {
    if (!ty_is_complex(t) || op == OP_EQ || op == OP_NE)
        return lower_cmp(L, at, op, t, a, b);
    bool lt = op == OP_LT || op == OP_LE;
    LLVMRealPredicate strict = lt ? LLVMRealOLT : LLVMRealOGT;
    LLVMRealPredicate im = op == OP_LT ? LLVMRealOLT : op == OP_LE ? LLVMRealOLE : op == OP_GT ? LLVMRealOGT : LLVMRealOGE;
    LLVMValueRef ar = lower_cmath_part(L, a, 0), ai = lower_cmath_part(L, a, 1);
    LLVMValueRef br = lower_cmath_part(L, b, 0), bi = lower_cmath_part(L, b, 1);
    LLVMValueRef first = LLVMBuildAnd(L->b, LLVMBuildFCmp(L->b, strict, ar, br, ""),
                                      LLVMBuildFCmp(L->b, LLVMRealORD, ai, bi, ""), "");
    LLVMValueRef second = LLVMBuildAnd(L->b, LLVMBuildFCmp(L->b, LLVMRealOEQ, ar, br, ""),
                                       LLVMBuildFCmp(L->b, im, ai, bi, ""), "");
    return LLVMBuildOr(L->b, first, second, "ccmp");
}

/* a op b on elements of type t (NumPy: bool + is or, bool * is and). */
static LLVMValueRef binop_elem(Lower *L, const Node *at, OpKind op, Type *t, LLVMValueRef a, LLVMValueRef b,
                               Type **rt) {
    *rt = t;
    if (t->kind == TY_BOOL && op == OP_ADD)
        return LLVMBuildOr(L->b, a, b, "");
    if (t->kind == TY_BOOL && op == OP_MUL)
        return LLVMBuildAnd(L->b, a, b, "");
    return lower_binop(L, at, op, t, a, b, rt);
}

static LLVMValueRef minmax_elem(Lower *L, bool mx, bool nanprop, Type *t, LLVMValueRef a, LLVMValueRef b) {
    if (ty_is_complex(t)) {
        /* NumPy's complex loops: lexicographic a >= b (maximum) / a <= b,
         * a NaN part never orders; maximum keeps a NaN a, else takes b;
         * fmax keeps a unless it has a NaN part and b has none */
        LLVMValueRef ar = lower_cmath_part(L, a, 0), ai = lower_cmath_part(L, a, 1);
        LLVMValueRef br = lower_cmath_part(L, b, 0), bi = lower_cmath_part(L, b, 1);
        LLVMRealPredicate strict = mx ? LLVMRealOGT : LLVMRealOLT, loose = mx ? LLVMRealOGE : LLVMRealOLE;
        LLVMValueRef ord_i = LLVMBuildFCmp(L->b, LLVMRealORD, ai, bi, "");
        LLVMValueRef first = LLVMBuildAnd(L->b, LLVMBuildFCmp(L->b, strict, ar, br, ""), ord_i, "");
        LLVMValueRef second = LLVMBuildAnd(L->b, LLVMBuildFCmp(L->b, LLVMRealOEQ, ar, br, ""),
                                           LLVMBuildFCmp(L->b, loose, ai, bi, ""), "");
        LLVMValueRef keep = LLVMBuildOr(L->b, first, second, "");
        LLVMValueRef anan = LLVMBuildOr(L->b, LLVMBuildFCmp(L->b, LLVMRealUNO, ar, ar, ""),
                                        LLVMBuildFCmp(L->b, LLVMRealUNO, ai, ai, ""), "");
        LLVMValueRef bnan = LLVMBuildOr(L->b, LLVMBuildFCmp(L->b, LLVMRealUNO, br, br, ""),
                                        LLVMBuildFCmp(L->b, LLVMRealUNO, bi, bi, ""), "");
        keep = LLVMBuildOr(L->b, keep, nanprop ? anan : bnan, "");
        return LLVMBuildSelect(L->b, keep, a, b, mx ? "cmax" : "cmin");
    }
    if (ty_is_float(t)) {
        LLVMValueRef x[2] = {a, b};
        return intr(L, nanprop ? (mx ? "llvm.maximum" : "llvm.minimum") : (mx ? "llvm.maxnum" : "llvm.minnum"), t,
                    x, 2);
    }
    if (t->kind == TY_BOOL)
        return mx ? LLVMBuildOr(L->b, a, b, "") : LLVMBuildAnd(L->b, a, b, "");
    bool s = ty_is_signed(t);
    LLVMIntPredicate p = mx ? (s ? LLVMIntSGT : LLVMIntUGT) : (s ? LLVMIntSLT : LLVMIntULT);
    return LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, p, a, b, ""), a, b, mx ? "max" : "min");
}

static LLVMValueRef unary_elem(Lower *L, OpKind op, Type *t, LLVMValueRef x) {
    switch (op) {
    case OP_POS: return x;
    case OP_NEG:
        if (ty_is_int(t))
            return LLVMBuildNeg(L->b, x, "neg");
        if (ty_is_float(t))
            return lower_fm(L, LLVMBuildFNeg(L->b, x, "fneg"));
        if (ty_is_complex(t)) {
            LLVMValueRef re = lower_fm(L, LLVMBuildFNeg(L->b, LLVMBuildExtractValue(L->b, x, 0, ""), ""));
            LLVMValueRef im = lower_fm(L, LLVMBuildFNeg(L->b, LLVMBuildExtractValue(L->b, x, 1, ""), ""));
            return LLVMBuildInsertValue(L->b, LLVMBuildInsertValue(L->b, x, re, 0, ""), im, 1, "");
        }
        return NULL;
    case OP_INVERT:
        return (ty_is_int(t) || t->kind == TY_BOOL) ? LLVMBuildNot(L->b, x, "invert") : NULL;
    default: return NULL;
    }
}

static LLVMValueRef isnan_f(Lower *L, LLVMValueRef x) { return LLVMBuildFCmp(L->b, LLVMRealUNO, x, x, "isnan"); }
static LLVMValueRef isinf_f(Lower *L, Type *t, LLVMValueRef x) {
    LLVMValueRef a = intr(L, "llvm.fabs", t, &x, 1);
    return LLVMBuildFCmp(L->b, LLVMRealOEQ, a, fconst(L, t, INFINITY), "isinf");
}
static LLVMValueRef isfin_f(Lower *L, Type *t, LLVMValueRef x) {
    LLVMValueRef a = intr(L, "llvm.fabs", t, &x, 1);
    return LLVMBuildFCmp(L->b, LLVMRealOLT, a, fconst(L, t, INFINITY), "isfinite");
}

static LLVMValueRef int_abs(Lower *L, Type *t, LLVMValueRef v) {
    if (!ty_is_signed(t))
        return v;
    LLVMValueRef neg = LLVMBuildICmp(L->b, LLVMIntSLT, v, LLVMConstInt(lower_type(L, t), 0, 0), "");
    return LLVMBuildSelect(L->b, neg, LLVMBuildNeg(L->b, v, ""), v, "abs");
}

/* NumPy's fmod: C's fmod for floats; for integers the remainder with the
 * dividend's sign, 0 for a zero divisor (NumPy warns and gives 0). */
static LLVMValueRef fmod_elem(Lower *L, Type *t, LLVMValueRef a, LLVMValueRef b) {
    if (ty_is_float(t))
        return LLVMBuildFRem(L->b, a, b, "fmod");
    LLVMTypeRef lt = lower_type(L, t);
    LLVMValueRef z = LLVMConstInt(lt, 0, 0), one = LLVMConstInt(lt, 1, 0);
    LLVMValueRef bz = LLVMBuildICmp(L->b, LLVMIntEQ, b, z, "");
    LLVMValueRef safe = LLVMBuildSelect(L->b, bz, one, b, "");
    if (!ty_is_signed(t))
        return LLVMBuildSelect(L->b, bz, z, LLVMBuildURem(L->b, a, safe, ""), "fmod");
    /* b == -1: 0 (and no overflow trap for the minimum) */
    LLVMValueRef m1 = LLVMBuildICmp(L->b, LLVMIntEQ, b, LLVMConstAllOnes(lt), "");
    safe = LLVMBuildSelect(L->b, m1, one, safe, "");
    return LLVMBuildSelect(L->b, LLVMBuildOr(L->b, bz, m1, ""), z, LLVMBuildSRem(L->b, a, safe, ""), "fmod");
}

/* gcd(|a|, |b|) by Euclid's algorithm (NumPy's npy_gcd: never negative). */
static LLVMValueRef gcd_elem(Lower *L, Type *t, LLVMValueRef a, LLVMValueRef b) {
    LLVMTypeRef lt = lower_type(L, t);
    a = int_abs(L, t, a);
    b = int_abs(L, t, b);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(L->b);
    LLVMBasicBlockRef head = lower_block(L, "gcd.head"), body = lower_block(L, "gcd.body"), done = lower_block(L, "gcd.done");
    LLVMBuildBr(L->b, head);
    lower_at(L, head);
    LLVMValueRef pa = LLVMBuildPhi(L->b, lt, "a"), pb = LLVMBuildPhi(L->b, lt, "b");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntNE, pb, LLVMConstInt(lt, 0, 0), ""), body, done);
    lower_at(L, body);
    LLVMValueRef r = LLVMBuildURem(L->b, pa, pb, ""); /* |INT_MIN| as unsigned: still right */
    LLVMBuildBr(L->b, head);
    LLVMValueRef ia[2] = {a, pb}, ib[2] = {b, r};
    LLVMBasicBlockRef from[2] = {pre, body};
    LLVMAddIncoming(pa, ia, from, 2);
    LLVMAddIncoming(pb, ib, from, 2);
    lower_at(L, done);
    return pa;
}

/* One element of ufunc `id` with arguments x[] already converted to t. */
static LLVMValueRef ufunc_elem(Lower *L, Node *n, Type *t, LLVMValueRef *x, Type *rt) {
    BuiltinId id = n->builtin;
    const char *in = NULL, *lm = NULL;
    if (ty_is_complex(t) && lower_cmath_code(id) >= 0) /* sqrt, exp, log, trig, sign, rint of complex */
        return lower_cmath(L, lower_cmath_code(id), t, x[0]);
    switch (id) {
    case BI_NP_SQRT: in = "llvm.sqrt"; break;
    case BI_NP_EXP: in = "llvm.exp"; break;
    case BI_NP_LOG: in = "llvm.log"; break;
    case BI_NP_LOG2: in = "llvm.log2"; break;
    case BI_NP_LOG10: in = "llvm.log10"; break;
    case BI_NP_EXP2: in = "llvm.exp2"; break;
    case BI_NP_SIN: in = "llvm.sin"; break;
    case BI_NP_COS: in = "llvm.cos"; break;
    case BI_NP_TAN: lm = "tan"; break;
    case BI_NP_LOG1P: lm = "log1p"; break;
    case BI_NP_EXPM1: lm = "expm1"; break;
    case BI_NP_ARCSIN: lm = "asin"; break;
    case BI_NP_ARCCOS: lm = "acos"; break;
    case BI_NP_ARCTAN: lm = "atan"; break;
    case BI_NP_SINH: lm = "sinh"; break;
    case BI_NP_COSH: lm = "cosh"; break;
    case BI_NP_TANH: lm = "tanh"; break;
    case BI_NP_ARCSINH: lm = "asinh"; break;
    case BI_NP_ARCCOSH: lm = "acosh"; break;
    case BI_NP_ARCTANH: lm = "atanh"; break;
    case BI_NP_CBRT: lm = "cbrt"; break;
    default: break;
    }
    if (in)
        return intr(L, in, t, x, 1);
    if (lm)
        return libm(L, lm, t, x, 1);
    switch (id) {
    case BI_NP_DEG2RAD: return lower_fm(L, LLVMBuildFMul(L->b, x[0], fconst(L, t, M_PI / 180.0), ""));
    case BI_NP_RAD2DEG: return lower_fm(L, LLVMBuildFMul(L->b, x[0], fconst(L, t, 180.0 / M_PI), ""));
    case BI_NP_ARCTAN2: return libm(L, "atan2", t, x, 2);
    case BI_NP_HYPOT: return libm(L, "hypot", t, x, 2);
    case BI_NP_COPYSIGN: return intr(L, "llvm.copysign", t, x, 2);
    case BI_NP_LOGADDEXP: {
        /* NumPy's npy_logaddexp: x + log1p(exp(-|x - y|)) from the larger */
        LLVMValueRef d = LLVMBuildFSub(L->b, x[0], x[1], "");
        LLVMValueRef ad = intr(L, "llvm.fabs", t, &d, 1);
        LLVMValueRef nad = LLVMBuildFNeg(L->b, ad, "");
        LLVMValueRef e = intr(L, "llvm.exp", t, &nad, 1);
        LLVMValueRef lp = libm(L, "log1p", t, &e, 1);
        LLVMValueRef big = minmax_elem(L, true, false, t, x[0], x[1]);
        LLVMValueRef r = LLVMBuildFAdd(L->b, big, lp, "");
        LLVMValueRef eq = LLVMBuildFCmp(L->b, LLVMRealOEQ, x[0], x[1], "");
        r = LLVMBuildSelect(L->b, eq, LLVMBuildFAdd(L->b, x[0], fconst(L, t, M_LN2), ""), r, "");
        return LLVMBuildSelect(L->b, isnan_f(L, d), d, r, "logaddexp");
    }
    case BI_NP_LOGADDEXP2: {
        /* NumPy's npy_logaddexp2: the larger + log2(1 + 2**-|x - y|); x + 1 when equal */
        LLVMValueRef d = LLVMBuildFSub(L->b, x[0], x[1], "");
        LLVMValueRef ad = intr(L, "llvm.fabs", t, &d, 1);
        LLVMValueRef nad = LLVMBuildFNeg(L->b, ad, "");
        LLVMValueRef e = intr(L, "llvm.exp2", t, &nad, 1);
        LLVMValueRef lp = LLVMBuildFMul(L->b, libm(L, "log1p", t, &e, 1), fconst(L, t, M_LOG2E), "");
        LLVMValueRef big = minmax_elem(L, true, false, t, x[0], x[1]);
        LLVMValueRef r = LLVMBuildFAdd(L->b, big, lp, "");
        LLVMValueRef eq = LLVMBuildFCmp(L->b, LLVMRealOEQ, x[0], x[1], "");
        r = LLVMBuildSelect(L->b, eq, LLVMBuildFAdd(L->b, x[0], fconst(L, t, 1.0), ""), r, "");
        return LLVMBuildSelect(L->b, isnan_f(L, d), d, r, "logaddexp2");
    }
    case BI_NP_NEXTAFTER: return libm(L, "nextafter", t, x, 2);
    case BI_NP_SPACING: {
        /* NumPy's npy_spacing: the gap to the next value away from zero,
         * negative for x < 0 (-0.0 counts as 0); NaN for inf and NaN */
        LLVMValueRef neg = LLVMBuildFCmp(L->b, LLVMRealOLT, x[0], fconst(L, t, 0.0), "");
        LLVMValueRef to[2] = {x[0], LLVMBuildSelect(L->b, neg, fconst(L, t, -INFINITY),
                                                    fconst(L, t, INFINITY), "")};
        LLVMValueRef r = LLVMBuildFSub(L->b, libm(L, "nextafter", t, to, 2), x[0], "");
        return LLVMBuildSelect(L->b, isfin_f(L, t, x[0]), r, fconst(L, t, NAN), "spacing");
    }
    case BI_NP_FLOOR: case BI_NP_CEIL: case BI_NP_TRUNC: case BI_NP_RINT:
        if (!ty_is_float(t))
            return x[0]; /* integers are their own floor */
        return intr(L, id == BI_NP_FLOOR ? "llvm.floor" : id == BI_NP_CEIL ? "llvm.ceil" : id == BI_NP_TRUNC ? "llvm.trunc" : "llvm.rint",
                    t, x, 1);
    case BI_NP_SIGN:
        if (ty_is_float(t)) {
            LLVMValueRef gt = LLVMBuildFCmp(L->b, LLVMRealOGT, x[0], fconst(L, t, 0), "");
            LLVMValueRef lt = LLVMBuildFCmp(L->b, LLVMRealOLT, x[0], fconst(L, t, 0), "");
            LLVMValueRef eq = LLVMBuildFCmp(L->b, LLVMRealOEQ, x[0], fconst(L, t, 0), "");
            return LLVMBuildSelect(L->b, gt, fconst(L, t, 1),
                                   LLVMBuildSelect(L->b, lt, fconst(L, t, -1),
                                                   LLVMBuildSelect(L->b, eq, fconst(L, t, 0), x[0], ""), ""),
                                   "sign");
        } else {
            LLVMTypeRef lt = lower_type(L, t);
            LLVMValueRef z = LLVMConstInt(lt, 0, 0);
            LLVMValueRef gt = LLVMBuildZExt(L->b, LLVMBuildICmp(L->b, ty_is_signed(t) ? LLVMIntSGT : LLVMIntUGT, x[0], z, ""), lt, "");
            LLVMValueRef ltz = LLVMBuildZExt(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, x[0], z, ""), lt, "");
            if (!ty_is_signed(t))
                return gt;
            return LLVMBuildSub(L->b, gt, ltz, "sign");
        }
    case BI_NP_NEGATIVE: return unary_elem(L, OP_NEG, t, x[0]);
    case BI_NP_POSITIVE: return x[0];
    case BI_NP_INVERT: return unary_elem(L, OP_INVERT, t, x[0]);
    case BI_NP_SQUARE: {
        Type *r = NULL;
        return binop_elem(L, n, OP_MUL, t, x[0], x[0], &r);
    }
    case BI_NP_RECIPROCAL: {
        if (ty_is_float(t))
            return lower_fm(L, LLVMBuildFDiv(L->b, fconst(L, t, 1.0), x[0], "recip"));
        if (ty_is_complex(t)) { /* NumPy's loop: Smith's division of 1 by z (signs of zero included) */
            Type *pt = part_of(L, t);
            LLVMValueRef re = lower_cmath_part(L, x[0], 0), im = lower_cmath_part(L, x[0], 1);
            LLVMValueRef are = intr(L, "llvm.fabs", pt, &re, 1), aim = intr(L, "llvm.fabs", pt, &im, 1);
            LLVMValueRef one = fconst(L, pt, 1.0);
            LLVMValueRef small = LLVMBuildFCmp(L->b, LLVMRealOLE, aim, are, ""); /* |im| <= |re| */
            LLVMValueRef r1 = LLVMBuildFDiv(L->b, im, re, ""); /* d1 = re + im * r1: 1/d1, -r1/d1 */
            LLVMValueRef d1 = LLVMBuildFAdd(L->b, re, LLVMBuildFMul(L->b, im, r1, ""), "");
            LLVMValueRef r2 = LLVMBuildFDiv(L->b, re, im, ""); /* d2 = re * r2 + im: r2/d2, -1/d2 */
            LLVMValueRef d2 = LLVMBuildFAdd(L->b, LLVMBuildFMul(L->b, re, r2, ""), im, "");
            LLVMValueRef ore = LLVMBuildSelect(L->b, small, LLVMBuildFDiv(L->b, one, d1, ""),
                                               LLVMBuildFDiv(L->b, r2, d2, ""), "");
            LLVMValueRef oim = LLVMBuildSelect(L->b, small, LLVMBuildFNeg(L->b, LLVMBuildFDiv(L->b, r1, d1, ""), ""),
                                               LLVMBuildFNeg(L->b, LLVMBuildFDiv(L->b, one, d2, ""), ""), "");
            return lower_cmath_make(L, t, ore, oim);
        }
        LLVMTypeRef lt = lower_type(L, t);
        LLVMValueRef z = LLVMConstInt(lt, 0, 0), one = LLVMConstInt(lt, 1, 0);
        LLVMValueRef isz = LLVMBuildICmp(L->b, LLVMIntEQ, x[0], z, "");
        LLVMValueRef d = LLVMBuildSelect(L->b, isz, one, x[0], "");
        LLVMValueRef q = ty_is_signed(t) ? LLVMBuildSDiv(L->b, one, d, "") : LLVMBuildUDiv(L->b, one, d, "");
        return LLVMBuildSelect(L->b, isz, z, q, "recip");
    }
    case BI_NP_CONJ:
        if (ty_is_complex(t))
            return LLVMBuildInsertValue(L->b, x[0], LLVMBuildFNeg(L->b, LLVMBuildExtractValue(L->b, x[0], 1, ""), ""), 1,
                                        "conj");
        return x[0];
    case BI_ABS: case BI_NP_ABS: case BI_NP_FABS:
        if (ty_is_complex(t)) {
            LLVMValueRef p[2] = {LLVMBuildExtractValue(L->b, x[0], 0, ""), LLVMBuildExtractValue(L->b, x[0], 1, "")};
            return libm(L, "hypot", part_of(L, t), p, 2);
        }
        if (ty_is_float(t))
            return intr(L, "llvm.fabs", t, x, 1);
        if (ty_is_signed(t))
            return LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, x[0], LLVMConstInt(lower_type(L, t), 0, 0), ""),
                                   LLVMBuildNeg(L->b, x[0], ""), x[0], "abs");
        return x[0];
    case BI_NP_ISNAN: case BI_NP_ISINF: case BI_NP_ISFINITE: {
        LLVMValueRef parts[2];
        int np = 0;
        Type *ft = t;
        if (ty_is_complex(t)) {
            ft = part_of(L, t);
            parts[np++] = LLVMBuildExtractValue(L->b, x[0], 0, "");
            parts[np++] = LLVMBuildExtractValue(L->b, x[0], 1, "");
        } else if (ty_is_float(t)) {
            parts[np++] = x[0];
        } else {
            return LLVMConstInt(L->t_i1, id == BI_NP_ISFINITE, 0);
        }
        LLVMValueRef r = NULL;
        for (int i = 0; i < np; i++) {
            LLVMValueRef c = id == BI_NP_ISNAN ? isnan_f(L, parts[i])
                             : id == BI_NP_ISINF ? isinf_f(L, ft, parts[i])
                                                 : isfin_f(L, ft, parts[i]);
            r = !r ? c : id == BI_NP_ISFINITE ? LLVMBuildAnd(L->b, r, c, "") : LLVMBuildOr(L->b, r, c, "");
        }
        return r;
    }
    case BI_NP_LOGICAL_NOT: return LLVMBuildNot(L->b, lower_truth(L, n, x[0], t), "lnot");
    case BI_NP_ANGLE: {
        if (ty_is_complex(t)) {
            LLVMValueRef p[2] = {LLVMBuildExtractValue(L->b, x[0], 1, ""), LLVMBuildExtractValue(L->b, x[0], 0, "")};
            return libm(L, "atan2", part_of(L, t), p, 2);
        }
        LLVMValueRef p[2] = {fconst(L, t, 0.0), x[0]};
        return libm(L, "atan2", t, p, 2);
    }
    case BI_NP_ADD: case BI_NP_SUBTRACT: case BI_NP_MULTIPLY: case BI_NP_DIVIDE: case BI_NP_FLOOR_DIVIDE:
    case BI_NP_REMAINDER: case BI_NP_POWER: case BI_NP_BITWISE_AND: case BI_NP_BITWISE_OR: case BI_NP_BITWISE_XOR:
    case BI_NP_LEFT_SHIFT: case BI_NP_RIGHT_SHIFT: {
        Type *r = NULL;
        LLVMValueRef v = binop_elem(L, n, n->op, t, x[0], x[1], &r);
        return conv(L, n, v, r, rt);
    }
    case BI_NP_EQUAL: case BI_NP_NOT_EQUAL: case BI_NP_LESS: case BI_NP_LESS_EQUAL: case BI_NP_GREATER:
    case BI_NP_GREATER_EQUAL:
        return cmp_elem(L, n, n->op, t, x[0], x[1]);
    case BI_NP_LOGICAL_AND: return LLVMBuildAnd(L->b, x[0], x[1], "land");
    case BI_NP_LOGICAL_OR: return LLVMBuildOr(L->b, x[0], x[1], "lor");
    case BI_NP_LOGICAL_XOR: return LLVMBuildXor(L->b, x[0], x[1], "lxor");
    case BI_NP_MINIMUM: return minmax_elem(L, false, true, t, x[0], x[1]);
    case BI_NP_MAXIMUM: return minmax_elem(L, true, true, t, x[0], x[1]);
    case BI_NP_FMIN: return minmax_elem(L, false, false, t, x[0], x[1]);
    case BI_NP_FMAX: return minmax_elem(L, true, false, t, x[0], x[1]);
    case BI_NP_CLIP: return minmax_elem(L, false, true, t, minmax_elem(L, true, true, t, x[0], x[1]), x[2]);
    case BI_NP_FMOD: return fmod_elem(L, t, x[0], x[1]);
    case BI_NP_GCD: return gcd_elem(L, t, x[0], x[1]);
    case BI_NP_LCM: {
        /* NumPy's npy_lcm: |a / gcd(a, b) * b|, 0 when the gcd is 0 */
        LLVMValueRef g = gcd_elem(L, t, x[0], x[1]);
        LLVMValueRef z = LLVMConstInt(lower_type(L, t), 0, 0);
        LLVMValueRef g0 = LLVMBuildICmp(L->b, LLVMIntEQ, g, z, "");
        LLVMValueRef gs = LLVMBuildSelect(L->b, g0, LLVMConstInt(lower_type(L, t), 1, 0), g, "");
        LLVMValueRef q = ty_is_signed(t) ? LLVMBuildSDiv(L->b, x[0], gs, "") : LLVMBuildUDiv(L->b, x[0], gs, "");
        LLVMValueRef m = int_abs(L, t, LLVMBuildMul(L->b, q, x[1], ""));
        return LLVMBuildSelect(L->b, g0, z, m, "lcm");
    }
    case BI_NP_FLOAT_POWER: {
        Type *r = NULL;
        return binop_elem(L, n, OP_POW, t, x[0], x[1], &r);
    }
    case BI_NP_SIGNBIT:
        if (ty_is_float(t)) { /* the sign bit itself: -0.0 and -nan too */
            LLVMTypeRef it = LLVMIntTypeInContext(L->ctx, (unsigned)(8 * ty_itemsize(t)));
            return LLVMBuildICmp(L->b, LLVMIntSLT, LLVMBuildBitCast(L->b, x[0], it, ""), LLVMConstInt(it, 0, 0), "signbit");
        }
        if (ty_is_signed(t))
            return LLVMBuildICmp(L->b, LLVMIntSLT, x[0], LLVMConstInt(lower_type(L, t), 0, 0), "signbit");
        return LLVMConstInt(L->t_i1, 0, 0);
    case BI_NP_LDEXP: {
        /* C's ldexp takes an int: larger exponents saturate (the result is then 0 or inf anyway) */
        LLVMValueRef e = x[1];
        e = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSGT, e, lower_i64(L, INT32_MAX), ""), lower_i64(L, INT32_MAX), e, "");
        e = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, e, lower_i64(L, INT32_MIN), ""), lower_i64(L, INT32_MIN), e, "");
        LLVMTypeRef ft = lower_type(L, t);
        LLVMTypeRef p[2] = {ft, L->t_i32};
        LLVMValueRef a[2] = {x[0], LLVMBuildTrunc(L->b, e, L->t_i32, "")};
        return lower_rt(L, t->kind == TY_FLOAT32 ? "ldexpf" : "ldexp", ft, p, 2, a);
    }
    default:
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "%s() is not supported on arrays", builtin_name(id));
    }
}

/* Element type of an operand (arrays: their dtype). */
static LLVMValueRef ev(Lower *L, Node *n);

/* A ufunc typed by infer_arrayexpr.c's dt_ufunc: operands in their own units. */
static LLVMValueRef dt_ufunc_elem(Lower *L, Node *n, LLVMValueRef *args) {
    Type *t = n->op_ty;
    Type *ta = ety(((Node *)VEC_AT(n->args, 0))->ty), *tb = n->args.len > 1 ? ety(((Node *)VEC_AT(n->args, 1))->ty) : NULL;
    switch (n->builtin) {
    case BI_NP_ADD: case BI_NP_SUBTRACT: case BI_NP_MULTIPLY: case BI_NP_DIVIDE: case BI_NP_FLOOR_DIVIDE:
        return lower_dt_binop(L, n, n->op, t, args[0], ta, args[1], tb);
    case BI_NP_EQUAL: case BI_NP_NOT_EQUAL: case BI_NP_LESS: case BI_NP_LESS_EQUAL: case BI_NP_GREATER:
    case BI_NP_GREATER_EQUAL:
        return lower_dt_compare(L, n, n->op, t, args[0], ta, args[1], tb);
    case BI_NP_NEGATIVE: return lower_dt_unary(L, OP_NEG, args[0]);
    case BI_NP_POSITIVE: return args[0];
    case BI_NP_SIGN: { /* NumPy's integer loop: NaT (INT64_MIN) is -1 */
        LLVMValueRef gt = LLVMBuildICmp(L->b, LLVMIntSGT, args[0], lower_i64(L, 0), "");
        LLVMValueRef lt = LLVMBuildICmp(L->b, LLVMIntSLT, args[0], lower_i64(L, 0), "");
        return LLVMBuildSub(L->b, LLVMBuildZExt(L->b, gt, L->t_i64, ""), LLVMBuildZExt(L->b, lt, L->t_i64, ""), "sign");
    }
    case BI_ABS: case BI_NP_ABS: return lower_dt_unary(L, OP_NONE, args[0]);
    case BI_NP_ISNAT: case BI_NP_ISNAN: return lower_dt_isnat(L, args[0]);
    case BI_NP_ISFINITE: return LLVMBuildNot(L->b, lower_dt_isnat(L, args[0]), "");
    case BI_NP_ISINF: return LLVMConstInt(L->t_i1, 0, 0);
    case BI_NP_MINIMUM: case BI_NP_MAXIMUM: case BI_NP_FMIN: case BI_NP_FMAX: {
        /* maximum/minimum propagate NaT (as NaN), fmax/fmin take the other */
        bool mx = n->builtin == BI_NP_MAXIMUM || n->builtin == BI_NP_FMAX;
        bool prop = n->builtin == BI_NP_MAXIMUM || n->builtin == BI_NP_MINIMUM;
        LLVMValueRef x = lower_convert(L, n, args[0], ta, t), y = x ? lower_convert(L, n, args[1], tb, t) : NULL;
        if (!y)
            return NULL;
        LLVMValueRef pick = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, mx ? LLVMIntSGE : LLVMIntSLE, x, y, ""), x, y, "");
        LLVMValueRef xn = lower_dt_isnat(L, x), yn = lower_dt_isnat(L, y);
        if (prop)
            return LLVMBuildSelect(L->b, LLVMBuildOr(L->b, xn, yn, ""), lower_i64(L, TY_NAT), pick, "");
        return LLVMBuildSelect(L->b, xn, y, LLVMBuildSelect(L->b, yn, x, pick, ""), "");
    }
    default:
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "%s() is not supported on datetime64/timedelta64",
                          builtin_name(n->builtin));
    }
}

static LLVMValueRef ev_call(Lower *L, Node *n, LLVMValueRef *args) {
    Type *t = n->op_ty, *rt = ety(n->ty);
    LLVMValueRef x[3] = {0};
    if (ty_is_npdt(t))
        return dt_ufunc_elem(L, n, args);
    int k = n->args.len > 3 ? 3 : n->args.len;
    for (int i = 0; i < k; i++) {
        Node *a = VEC_AT(n->args, i);
        Type *to = (n->builtin == BI_NP_WHERE && i == 0) ? ety(a->ty) : t;
        if (n->builtin == BI_NP_LDEXP && i == 1) /* the exponent stays an integer */
            to = ty_scalar(L->c->tc, TY_INT64);
        x[i] = conv(L, a, args[i], ety(a->ty), to);
        if (!x[i])
            return NULL;
    }
    LLVMValueRef r;
    if (n->builtin == BI_NP_WHERE)
        r = LLVMBuildSelect(L->b, lower_truth(L, n, x[0], ety(((Node *)VEC_AT(n->args, 0))->ty)), x[1], x[2], "where");
    else
        r = ufunc_elem(L, n, t, x, rt);
    if (!r)
        return NULL;
    /* the kernel's own result type: bool predicates, float of complex */
    Type *kt = LLVMTypeOf(r) == lower_type(L, rt) ? rt : t;
    return conv(L, n, r, kt, rt);
}

/* CALL_ELEMWISE: the element function (a @vectorize kernel behind its
 * conversions) on the operands' elements; LLVM inlines it into the loop.
 * It may raise: the status goes to the loop's error path (on the pool, the
 * body's, which stops the loop and re-raises in the caller). */
static LLVMValueRef ev_elemwise(Lower *L, Node *n) {
    Spec *s = n->spec;
    if (!s || !s->llvm_fn || s->nargs != n->args.len)
        return lower_fail(L, n, HJ_DIAG_LOWERING, "elementwise call of a function that was not specialised");
    LLVMValueRef small[8];
    LLVMValueRef *a = s->nargs <= 8 ? small : arena_alloc(&L->c->arena, sizeof(LLVMValueRef) * (size_t)s->nargs);
    for (int i = 0; i < s->nargs; i++) {
        Node *e = VEC_AT(n->args, i);
        if (!(a[i] = conv(L, e, ev(L, e), ety(e->ty), s->argtys[i])))
            return NULL;
    }
    LLVMValueRef fn = (LLVMValueRef)s->llvm_fn;
    LLVMValueRef res = lower_call(L, LLVMGlobalGetValueType(fn), fn, a, (unsigned)s->nargs, "elem");
    lower_check_status(L, LLVMBuildExtractValue(L->b, res, 0, "status"));
    return conv(L, n, LLVMBuildExtractValue(L->b, res, 1, "result"), s->ret, ety(n->ty));
}

static LLVMValueRef ev(Lower *L, Node *n) {
    if (!elementwise(n)) {
        Leaf *f = (Leaf *)n->lower_data;
        if (!f)
            return lower_fail(L, n, HJ_DIAG_LOWERING, "array expression operand was not evaluated");
        return f->elem;
    }
    Type *rt = ety(n->ty);
    switch (n->kind) {
    case N_BINOP: {
        if (ty_is_npdt(n->op_ty)) { /* elements in their own units (lower_datetime.c) */
            LLVMValueRef a = ev(L, n->a);
            LLVMValueRef b = a ? ev(L, n->b) : NULL;
            return b ? lower_dt_binop(L, n, n->op, n->op_ty, a, ety(n->a->ty), b, ety(n->b->ty)) : NULL;
        }
        LLVMValueRef a = conv(L, n->a, ev(L, n->a), ety(n->a->ty), n->op_ty);
        LLVMValueRef b = a ? conv(L, n->b, ev(L, n->b), ety(n->b->ty), n->op_ty) : NULL;
        if (!b)
            return NULL;
        Type *r = NULL;
        LLVMValueRef v = binop_elem(L, n, n->op, n->op_ty, a, b, &r);
        return conv(L, n, v, r, rt);
    }
    case N_UNARYOP: {
        if (ty_is_npdt(n->op_ty)) {
            LLVMValueRef a = ev(L, n->a);
            return a ? lower_dt_unary(L, n->op, a) : NULL;
        }
        LLVMValueRef a = conv(L, n->a, ev(L, n->a), ety(n->a->ty), n->op_ty);
        if (!a)
            return NULL;
        LLVMValueRef v = unary_elem(L, n->op, n->op_ty, a);
        if (!v)
            return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "unary '%s' is not supported on this array",
                              ast_op_str(n->op));
        return conv(L, n, v, n->op_ty, rt);
    }
    case N_COMPARE: {
        Node *rn = VEC_AT(n->args, 0);
        Type *t = n->op_tys[0];
        if (ty_is_npdt(t)) {
            LLVMValueRef a = ev(L, n->a);
            LLVMValueRef b = a ? ev(L, rn) : NULL;
            return b ? lower_dt_compare(L, n, n->ops[0], t, a, ety(n->a->ty), b, ety(rn->ty)) : NULL;
        }
        LLVMValueRef a = conv(L, n->a, ev(L, n->a), ety(n->a->ty), t);
        LLVMValueRef b = a ? conv(L, rn, ev(L, rn), ety(rn->ty), t) : NULL;
        if (!b)
            return NULL;
        return cmp_elem(L, n, n->ops[0], t, a, b);
    }
    default: {
        if (n->call_kind == CALL_ELEMWISE)
            return ev_elemwise(L, n);
        LLVMValueRef args[3] = {0};
        int k = n->args.len > 3 ? 3 : n->args.len;
        for (int i = 0; i < k; i++)
            if (!(args[i] = ev(L, VEC_AT(n->args, i))))
                return NULL;
        return ev_call(L, n, args);
    }
    }
}

/* ---- the loop nest ---- */

typedef struct Loop {
    LLVMBasicBlockRef pre, head, body, end;
    LLVMValueRef i, from;
} Loop;

/* for i in [from, n) */
static void loop_begin_from(Lower *L, Loop *lp, LLVMValueRef from, LLVMValueRef n, const char *name) {
    lp->from = from;
    lp->pre = LLVMGetInsertBlock(L->b);
    lp->head = lower_block(L, name);
    lp->body = lower_block(L, "ae.body");
    lp->end = lower_block(L, "ae.end");
    LLVMBuildBr(L->b, lp->head);
    lower_at(L, lp->head);
    lp->i = LLVMBuildPhi(L->b, L->t_i64, "i");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, lp->i, n, ""), lp->body, lp->end);
    lower_at(L, lp->body);
}

static void loop_begin(Lower *L, Loop *lp, LLVMValueRef n, const char *name) {
    loop_begin_from(L, lp, lower_i64(L, 0), n, name);
}

static void loop_end(Lower *L, Loop *lp) {
    LLVMValueRef next = LLVMBuildNSWAdd(L->b, lp->i, lower_i64(L, 1), "i.next");
    LLVMBasicBlockRef last = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, lp->head);
    LLVMValueRef in[2] = {lp->from, next};
    LLVMBasicBlockRef from[2] = {lp->pre, last};
    LLVMAddIncoming(lp->i, in, from, 2);
    lower_at(L, lp->end);
}

/* Raise ValueError with NumPy's text listing the operands' shapes. */
static void raise_shapes(Lower *L, LLVMValueRef bad, Ae *ae, const char *head, LLVMValueRef out, int ond) {
    LLVMBasicBlockRef ok = lower_branch_raise(L, bad, "ae.badshape");
    StrBuf fmt;
    sb_init(&fmt);
    sb_puts(&fmt, head);
    LLVMValueRef args[2 + 4 * MAXND];
    int na = 2;
    int nshapes = 0;
    for (int s = 0; s <= ae->nleaves; s++) {
        LLVMValueRef v = s == ae->nleaves ? out : ae->leaves[s]->v;
        int nd = s == ae->nleaves ? ond : (is_arr(ae->leaves[s]) ? ae->leaves[s]->ty->ndim : -1);
        if (!v || nd < 0)
            continue;
        if (s == ae->nleaves)
            sb_puts(&fmt, "into shape ");
        sb_puts(&fmt, "(");
        for (int d = 0; d < nd; d++) {
            sb_puts(&fmt, d ? ",%lld" : "%lld");
            if (na < (int)(sizeof args / sizeof *args) - 1)
                args[na++] = lower_array_dim(L, v, ARR_SHAPE, d);
        }
        sb_puts(&fmt, nd == 1 ? ",) " : ") ");
        if (++nshapes >= 4 && s < ae->nleaves - 1)
            s = ae->nleaves - 1; /* at most a few operands, then the output */
    }
    if (out && fmt.len && fmt.s[fmt.len - 1] == ' ') /* NumPy's "... into shape (4,)" ends there; */
        fmt.s[--fmt.len] = 0;                         /* its operands message keeps the space */
    LLVMTypeRef at = LLVMArrayType2(L->t_i8, 512);
    LLVMValueRef buf = lower_alloca(L, at, "msg");
    args[1] = lower_i64(L, 512);
    LLVMValueRef fstr = lower_cstr(L, fmt.s ? fmt.s : "");
    sb_free(&fmt);
    LLVMValueRef cargs[2 + 4 * MAXND + 1];
    cargs[0] = buf;
    cargs[1] = args[1];
    cargs[2] = fstr;
    for (int i = 2; i < na; i++)
        cargs[i + 1] = args[i];
    LLVMTypeRef pt[3] = {L->t_ptr, L->t_i64, L->t_ptr};
    LLVMTypeRef fnty = LLVMFunctionType(L->t_i32, pt, 3, 1);
    LLVMValueRef fn = LLVMGetNamedFunction(L->mod, "snprintf");
    if (!fn)
        fn = LLVMAddFunction(L->mod, "snprintf", fnty);
    lower_call(L, fnty, fn, cargs, (unsigned)(na + 1), "");
    LLVMValueRef ra[2] = {lower_cstr(L, "ValueError"), buf};
    LLVMTypeRef rp[2] = {L->t_ptr, L->t_ptr};
    lower_rt(L, "rt_raise", L->t_void, rp, 2, ra);
    lower_goto_error(L);
    lower_at(L, ok);
}

/* Byte stride of leaf f along output axis d of an nd-D result (0 where the
 * leaf broadcasts). */
static LLVMValueRef leaf_stride(Lower *L, Leaf *f, int d, int nd) {
    int k = f->ty->ndim, j = d - (nd - k);
    if (j < 0)
        return lower_i64(L, 0);
    LLVMValueRef s = lower_array_dim(L, f->v, ARR_SHAPE, j);
    LLVMValueRef st = lower_array_dim(L, f->v, ARR_STRIDES, j);
    return LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, s, lower_i64(L, 1), ""), lower_i64(L, 0), st, "");
}

/* A leaf that may use the flat loop (contiguous, all of the result's shape;
 * `same`: its shape is known to be the result's). */
static LLVMValueRef flat_ok(Lower *L, Leaf *f, LLVMValueRef *shape, int nd, bool same) {
    if (f->ty->ndim != nd)
        return LLVMConstInt(L->t_i1, 0, 0);
    if (same && f->ty->layout == LAYOUT_C)
        return LLVMConstInt(L->t_i1, 1, 0);
    LLVMValueRef ok = LLVMConstInt(L->t_i1, 1, 0);
    for (int d = 0; d < nd; d++)
        ok = LLVMBuildAnd(L->b, ok, LLVMBuildICmp(L->b, LLVMIntEQ, lower_array_dim(L, f->v, ARR_SHAPE, d), shape[d], ""), "");
    if (f->ty->layout != LAYOUT_C) {
        if (nd != 1)
            return LLVMConstInt(L->t_i1, 0, 0);
        ok = LLVMBuildAnd(L->b, ok,
                          LLVMBuildICmp(L->b, LLVMIntEQ, lower_array_dim(L, f->v, ARR_STRIDES, 0),
                                        lower_i64(L, ty_itemsize(f->ty->dtype)), ""),
                          "");
    }
    return ok;
}

/* The store of one element: into out at p, computed by the tree (or, for
 * `t op= v`, by op on the target's element and the tree). */
typedef struct Fused Fused;
typedef struct Emit {
    Node *root;
    Type *out_dt;
    OpKind aug_op;       /* OP_NONE for plain stores */
    Type *aug_op_ty, *aug_res;
    Node *at;
    Fused *fu;           /* N_FUSED: every statement's element (root unused) */
    bool same_shape;     /* every array leaf is known to have out's shape */
    LLVMMetadataRef scope; /* stores into a destination every other array
                              leaf is known not to overlap: the list of its
                              alias scope (leaf loads: !noalias), else NULL */
} Emit;

/* An N_FUSED group being lowered: statement k computes root[k] into an
 * element of ty[k]; a kept one is stored into out[k] (NULL for the others;
 * values of the function the loop is in: swapped inside an outlined pool
 * body). */
struct Fused {
    int n;
    Node **root;
    Type **ty;
    Node **target;
    bool *keep;
    LLVMValueRef *out;
    Ae *ae;
};

static bool emit_fused(Lower *L, const Emit *e, LLVMValueRef flat_i, LLVMValueRef *idx, int nd);

/* An array leaf's element at p: !noalias the destination's scope, or in
 * it when the leaf is the destination itself (with no scope LLVM would
 * put the leaves it may alias in one set with the stores, and test them at
 * run time). */
static LLVMValueRef load_leaf(Lower *L, const Emit *e, const Leaf *f, LLVMValueRef p) {
    return load_elem_md(L, p, f->ty->dtype, f->self ? "alias.scope" : "noalias", e->scope);
}

static bool emit_elem(Lower *L, const Emit *e, LLVMValueRef p) {
    LLVMValueRef v = ev(L, e->root);
    if (!v)
        return false;
    Type *vt = ety(e->root->ty);
    if (e->aug_op != OP_NONE && ty_is_npdt(e->aug_op_ty)) { /* in the result's unit (lower_datetime.c) */
        v = lower_dt_binop(L, e->at, e->aug_op, e->aug_op_ty, load_elem_md(L, p, e->out_dt, "alias.scope", e->scope),
                           e->out_dt, v, vt);
        vt = e->aug_op_ty;
    } else if (e->aug_op != OP_NONE) {
        LLVMValueRef cur = conv(L, e->at, load_elem_md(L, p, e->out_dt, "alias.scope", e->scope), e->out_dt,
                                e->aug_op_ty);
        LLVMValueRef y = conv(L, e->at, v, vt, e->aug_op_ty);
        if (!cur || !y)
            return false;
        Type *r = NULL;
        v = binop_elem(L, e->at, e->aug_op, e->aug_op_ty, cur, y, &r);
        vt = r;
    }
    v = conv(L, e->at, v, vt, e->out_dt);
    if (!v)
        return false;
    store_elem(L, p, v, e->out_dt, e->scope);
    return true;
}

/* The flat loop over items [lo, hi) of out (data odata) and of every array
 * leaf (all contiguous with out's shape). */
static bool flat_range(Lower *L, Ae *ae, const Emit *e, LLVMValueRef odata, LLVMValueRef lo, LLVMValueRef hi) {
    LLVMTypeRef omt = lower_mem_type(L, e->out_dt);
    Loop lp;
    loop_begin_from(L, &lp, lo, hi, "ae.flat.head");
    for (int i = 0; i < ae->nleaves; i++) {
        Leaf *f = ae->leaves[i];
        if (!is_arr(f))
            continue;
        if (f->dup >= 0) {
            f->elem = ae->leaves[f->dup]->elem;
            continue;
        }
        LLVMValueRef p = lower_gep(L, lower_mem_type(L, f->ty->dtype), lower_array_field(L, f->v, ARR_DATA, ""),
                                   &lp.i, 1, "");
        f->elem = load_leaf(L, e, f, p);
    }
    bool ok = e->fu ? emit_fused(L, e, lp.i, NULL, 0) : emit_elem(L, e, lower_gep(L, omt, odata, &lp.i, 1, ""));
    loop_end(L, &lp);
    return ok;
}

/* The nest over out's shape (nd >= 1 axes), the outer index in [lo, hi);
 * byte offsets from the strides (0 on broadcast axes). */
static bool nest_range(Lower *L, Ae *ae, const Emit *e, LLVMValueRef out, int nd, LLVMValueRef lo,
                       LLVMValueRef hi) {
    LLVMValueRef odata = lower_array_field(L, out, ARR_DATA, "out");
    LLVMValueRef ostr[MAXND], shape[MAXND];
    LLVMValueRef *lstr = arena_alloc(&L->c->arena, sizeof(LLVMValueRef) * (size_t)(ae->nleaves * nd + 1));
    for (int d = 0; d < nd; d++) {
        shape[d] = lower_array_dim(L, out, ARR_SHAPE, d);
        ostr[d] = lower_array_dim(L, out, ARR_STRIDES, d);
    }
    for (int i = 0; i < ae->nleaves; i++)
        if (is_arr(ae->leaves[i]) && ae->leaves[i]->dup < 0)
            for (int d = 0; d < nd; d++)
                lstr[i * nd + d] = leaf_stride(L, ae->leaves[i], d, nd);
    Loop lps[MAXND];
    LLVMValueRef idx[MAXND];
    for (int d = 0; d < nd; d++) {
        if (d == 0)
            loop_begin_from(L, &lps[d], lo, hi, "ae.nest.head");
        else
            loop_begin(L, &lps[d], shape[d], "ae.nest.head");
        idx[d] = lps[d].i;
    }
    LLVMValueRef ooff = lower_i64(L, 0);
    for (int d = 0; d < nd; d++)
        ooff = LLVMBuildAdd(L->b, ooff, LLVMBuildMul(L->b, idx[d], ostr[d], ""), "");
    for (int i = 0; i < ae->nleaves; i++) {
        Leaf *f = ae->leaves[i];
        if (!is_arr(f))
            continue;
        if (f->dup >= 0) {
            f->elem = ae->leaves[f->dup]->elem;
            continue;
        }
        LLVMValueRef off = lower_i64(L, 0);
        for (int d = 0; d < nd; d++)
            off = LLVMBuildAdd(L->b, off, LLVMBuildMul(L->b, idx[d], lstr[i * nd + d], ""), "");
        LLVMValueRef p = LLVMBuildGEP2(L->b, L->t_i8, lower_array_field(L, f->v, ARR_DATA, ""), &off, 1, "");
        f->elem = load_leaf(L, e, f, p);
    }
    bool ok = e->fu ? emit_fused(L, e, NULL, idx, nd) : emit_elem(L, e, LLVMBuildGEP2(L->b, L->t_i8, odata, &ooff, 1, ""));
    for (int d = nd - 1; d >= 0; d--)
        loop_end(L, &lps[d]);
    return ok;
}

/* The outer index in [lo, hi): the flat loop where flat (an i1) is true,
 * else the nest (the outer bound hi_flat or hi_nest); a constant flat
 * emits one of them. */
static bool loops_range(Lower *L, Ae *ae, const Emit *e, LLVMValueRef out, int nd, LLVMValueRef flat,
                        LLVMValueRef lo, LLVMValueRef hi_flat, LLVMValueRef hi_nest) {
    if (LLVMIsAConstantInt(flat))
        return LLVMConstIntGetZExtValue(flat) ? flat_range(L, ae, e, lower_array_field(L, out, ARR_DATA, "out"), lo, hi_flat)
                                              : nest_range(L, ae, e, out, nd, lo, hi_nest);
    LLVMBasicBlockRef fast = lower_block(L, "ae.flat"), slow = lower_block(L, "ae.strided"),
                      done = lower_block(L, "ae.done");
    LLVMBuildCondBr(L->b, flat, fast, slow);
    lower_at(L, fast); /* one loop over every item */
    bool ok = flat_range(L, ae, e, lower_array_field(L, out, ARR_DATA, "out"), lo, hi_flat);
    LLVMBuildBr(L->b, done);
    lower_at(L, slow); /* a nest over the shape */
    ok = ok && nest_range(L, ae, e, out, nd, lo, hi_nest);
    LLVMBuildBr(L->b, done);
    lower_at(L, done);
    return ok;
}

/* ---- on the pool (parallel=True): the outer loop outlined by
 * lower_par_range; out, the flat test and the leaves travel in its context
 * (once each: not the constants, not a name read twice) ---- */
typedef struct ParAe {
    Ae *ae;
    const Emit *e;
    int nd;
    LLVMValueRef flat; /* a constant, or the context's value 1 */
    int *slot;         /* leaf i's value: vals[slot[i]] (-1: none); kept
                          statement k's array: vals[slot[nleaves + k]] */
} ParAe;

static bool par_ae_body(Lower *L, void *arg, LLVMValueRef *vals, LLVMValueRef begin, LLVMValueRef end) {
    ParAe *pa = arg;
    Ae *ae = pa->ae;
    Arena *a = &L->c->arena;
    Fused *fu = pa->e->fu;
    int nf = fu ? fu->n : 0;
    LLVMValueRef *sv = arena_alloc(a, sizeof(LLVMValueRef) * (size_t)(2 * ae->nleaves + nf + 1));
    for (int i = 0; i < ae->nleaves; i++) {
        Leaf *f = ae->leaves[i];
        sv[2 * i] = f->v, sv[2 * i + 1] = f->elem;
        if (pa->slot[i] < 0)
            continue; /* an earlier statement's element (computed in the body), a constant */
        if (is_arr(f))
            f->v = vals[pa->slot[i]];
        else
            f->v = f->elem = vals[pa->slot[i]];
    }
    for (int k = 0; k < nf; k++) {
        sv[2 * ae->nleaves + k] = fu->out[k];
        if (fu->keep[k])
            fu->out[k] = vals[pa->slot[ae->nleaves + k]];
    }
    LLVMValueRef flat = LLVMIsAConstantInt(pa->flat) ? pa->flat : vals[1];
    bool ok = loops_range(L, ae, pa->e, vals[0], pa->nd, flat, begin, end, end);
    for (int i = 0; i < ae->nleaves; i++)
        ae->leaves[i]->v = sv[2 * i], ae->leaves[i]->elem = sv[2 * i + 1];
    for (int k = 0; k < nf; k++)
        fu->out[k] = sv[2 * ae->nleaves + k];
    return ok;
}

/* The loops over out: the flat loop where flat (an i1) is true, over
 * `total` items, else the nest, whose outer axis has n0 items.  Under
 * parallel=True the outer loop of both is one pool body: rt_parallel_for_grain
 * runs it on the pool when the array has at least 2 * LOWER_PAR_GRAIN items
 * (each thread gets at least LOWER_PAR_GRAIN), else on the calling thread
 * (the pool not started; 0 items: not at all). */
static bool outer_loop(Lower *L, Ae *ae, const Emit *e, LLVMValueRef out, int nd, LLVMValueRef flat,
                       LLVMValueRef total, LLVMValueRef n0) {
    LLVMValueRef zero = lower_i64(L, 0), one = lower_i64(L, 1);
    if (!lower_par_library(L) || nd == 0)
        return loops_range(L, ae, e, out, nd, flat, zero, total, n0);
    int nf = e->fu ? e->fu->n : 0, nv = 0;
    bool cflat = LLVMIsAConstantInt(flat);
    LLVMValueRef *vals = arena_alloc(&L->c->arena, sizeof(LLVMValueRef) * (size_t)(ae->nleaves + nf + 2));
    int *slot = arena_alloc(&L->c->arena, sizeof(int) * (size_t)(ae->nleaves + nf + 1));
    vals[nv++] = out;
    if (!cflat)
        vals[nv++] = flat;
    for (int i = 0; i < ae->nleaves; i++) {
        Leaf *f = ae->leaves[i];
        if (f->src >= 0 || (!is_arr(f) && LLVMIsConstant(f->elem))) /* constants stay constants: x ** 2 folds to x * x */
            slot[i] = -1;
        else if (f->dup >= 0)
            slot[i] = slot[f->dup];
        else
            slot[i] = nv, vals[nv++] = is_arr(f) ? f->v : f->elem;
    }
    for (int k = 0; k < nf; k++) { /* the kept statements' arrays */
        int *sk = &slot[ae->nleaves + k];
        if (!e->fu->keep[k])
            *sk = -1;
        else if (e->fu->out[k] == out)
            *sk = 0;
        else
            *sk = nv, vals[nv++] = e->fu->out[k];
    }
    /* flat: n / grain threads, so fewer than 2 * LOWER_PAR_GRAIN items stay
     * on the caller */
    LLVMValueRef grain = lower_i64(L, LOWER_PAR_GRAIN), n = total;
    if (!cflat || !LLVMConstIntGetZExtValue(flat)) {
        /* rows of the first axis: at least LOWER_PAR_GRAIN items each, none below 2 * LOWER_PAR_GRAIN */
        LLVMValueRef big = LLVMBuildICmp(L->b, LLVMIntSGE, total, lower_i64(L, 2 * LOWER_PAR_GRAIN), "");
        /* big: n0 > 0 and total / n0 > 0; else no division by 0 either */
        LLVMValueRef inner = LLVMBuildSDiv(L->b, total, LLVMBuildSelect(L->b, big, n0, one, ""), "inner");
        inner = LLVMBuildSelect(L->b, big, inner, one, "");
        LLVMValueRef g = LLVMBuildSDiv(L->b, grain, inner, "");
        g = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, g, one, ""), one, g, "");
        g = LLVMBuildSelect(L->b, big, g, lower_i64(L, INT64_MAX), "grain");
        grain = cflat ? g : LLVMBuildSelect(L->b, flat, grain, g, "");
        n = cflat ? n0 : LLVMBuildSelect(L->b, flat, total, n0, "");
    }
    ParAe pa = {ae, e, nd, flat, slot};
    return lower_par_range(L, "arrayexpr", n, grain, nv, vals, par_ae_body, &pa);
}

/* The loops over out (an nd-D array of dtype e->out_dt, possibly strided)
 * with every array leaf broadcast to its shape. */
static bool emit_loops(Lower *L, Ae *ae, const Emit *e, LLVMValueRef out, Type *oty) {
    int nd = oty->ndim;
    LLVMValueRef shape[MAXND] = {0};
    for (int d = 0; d < nd; d++)
        shape[d] = lower_array_dim(L, out, ARR_SHAPE, d);
    int saved_em = L->error_model;
    L->error_model = 1; /* NumPy: no exceptions from element arithmetic */
    LLVMValueRef total = lower_i64(L, 1);
    for (int d = 0; d < nd; d++)
        total = LLVMBuildMul(L->b, total, shape[d], "");
    LLVMValueRef n0 = nd ? shape[0] : lower_i64(L, 1);
    LLVMValueRef flat;
    if (L->ae_nest_only && nd > 0) { /* a fused group's rare path: the nest alone is enough */
        flat = LLVMConstInt(L->t_i1, 0, 0);
    } else { /* every array leaf contiguous with out's shape: one flat loop */
        flat = LLVMConstInt(L->t_i1, oty->layout == LAYOUT_C || nd <= 1, 0);
        if (nd == 1 && oty->layout != LAYOUT_C)
            flat = LLVMBuildICmp(L->b, LLVMIntEQ, lower_array_dim(L, out, ARR_STRIDES, 0),
                                 lower_i64(L, ty_itemsize(e->out_dt)), "");
        for (int i = 0; i < ae->nleaves; i++)
            if (is_arr(ae->leaves[i]) && ae->leaves[i]->dup < 0)
                flat = LLVMBuildAnd(L->b, flat, flat_ok(L, ae->leaves[i], shape, nd, e->same_shape), "");
    }
    bool ok = outer_loop(L, ae, e, out, nd, flat, total, n0);
    L->error_model = saved_em;
    return ok;
}

/* The broadcast shape of the leaves (nd axes); returns whether they do
 * not broadcast. */
static LLVMValueRef broadcast_dims(Lower *L, Ae *ae, int nd, LLVMValueRef *shape) {
    LLVMValueRef one = lower_i64(L, 1), bad = LLVMConstInt(L->t_i1, 0, 0);
    for (int d = 0; d < nd; d++)
        shape[d] = one;
    for (int i = 0; i < ae->nleaves; i++) {
        Leaf *f = ae->leaves[i];
        if (!is_arr(f) || f->dup >= 0)
            continue;
        int k = f->ty->ndim;
        if (k > nd) { /* not an operand of an nd-D expression (stores only: check_into) */
            bad = LLVMConstInt(L->t_i1, 1, 0);
            continue;
        }
        for (int j = 0; j < k; j++) {
            int d = nd - k + j;
            LLVMValueRef s = lower_array_dim(L, f->v, ARR_SHAPE, j);
            LLVMValueRef cur1 = LLVMBuildICmp(L->b, LLVMIntEQ, shape[d], one, "");
            LLVMValueRef mism = LLVMBuildAnd(
                L->b, LLVMBuildICmp(L->b, LLVMIntNE, s, shape[d], ""),
                LLVMBuildAnd(L->b, LLVMBuildICmp(L->b, LLVMIntNE, s, one, ""), LLVMBuildNot(L->b, cur1, ""), ""), "");
            bad = LLVMBuildOr(L->b, bad, mism, "");
            shape[d] = LLVMBuildSelect(L->b, cur1, s, shape[d], "bshape");
        }
    }
    return bad;
}

/* The broadcast shape of the leaves (nd axes), checked. */
static void broadcast_shape(Lower *L, Ae *ae, int nd, LLVMValueRef *shape) {
    LLVMValueRef bad = broadcast_dims(L, ae, nd, shape);
    raise_shapes(L, bad, ae, "operands could not be broadcast together with shapes ", NULL, 0);
}

/* Every array leaf must broadcast to out's shape (stores, in-place ops). */
static void check_into(Lower *L, Ae *ae, LLVMValueRef out, Type *oty) {
    LLVMValueRef one = lower_i64(L, 1), bad = LLVMConstInt(L->t_i1, 0, 0);
    int nd = oty->ndim;
    for (int i = 0; i < ae->nleaves; i++) {
        Leaf *f = ae->leaves[i];
        if (!is_arr(f))
            continue;
        int k = f->ty->ndim;
        for (int j = 0; j < k - nd; j++) /* extra leading axes: of length 1 (NumPy, Numba) */
            bad = LLVMBuildOr(L->b, bad, LLVMBuildICmp(L->b, LLVMIntNE, lower_array_dim(L, f->v, ARR_SHAPE, j), one, ""),
                              "");
        for (int j = k > nd ? k - nd : 0; j < k; j++) {
            LLVMValueRef s = lower_array_dim(L, f->v, ARR_SHAPE, j);
            LLVMValueRef o = lower_array_dim(L, out, ARR_SHAPE, nd - k + j);
            bad = LLVMBuildOr(L->b, bad,
                              LLVMBuildAnd(L->b, LLVMBuildICmp(L->b, LLVMIntNE, s, o, ""),
                                           LLVMBuildICmp(L->b, LLVMIntNE, s, one, ""), ""),
                              "");
        }
    }
    raise_shapes(L, bad, ae, "could not broadcast input array from shape ", out, nd);
}

/* ---- entry points ---- */

/* A fused array expression: one allocation, one loop nest. */
LLVMValueRef lower_arrayexpr(Lower *L, Node *n, bool *owned) {
    *owned = false;
    Node *root = n->kind == N_ARRAYEXPR ? n->a : n;
    Type *oty = n->ty;
    Ae ae = {0};
    if (!collect(L, &ae, root))
        return NULL;
    int nd = oty->ndim;
    LLVMValueRef shape[MAXND + 1];
    broadcast_shape(L, &ae, nd, shape);
    LLVMValueRef out = lower_alloc_array(L, oty, shape, false);
    if (!out)
        return NULL;
    /* released if an element operation raises; handed over below */
    int mark = lower_temps_mark(L);
    lower_temp(L, out, oty, true);
    Emit e = {.root = root, .out_dt = oty->dtype, .aug_op = OP_NONE, .at = n};
    int narr = 0; /* one array leaf of the result's rank: out has its shape */
    for (int i = 0; i < ae.nleaves; i++)
        narr += is_arr(ae.leaves[i]) ? (ae.leaves[i]->ty->ndim == nd ? 1 : 2) : 0;
    e.same_shape = narr == 1;
    bool ok = emit_loops(L, &ae, &e, out, oty);
    lower_temps_keep(L, mark);
    if (!ok)
        return NULL;
    *owned = true;
    return out;
}

/* ---- read element by element by another nest (lower.h) ---- */
struct AeSrc {
    Ae ae;
    Node *n, *root;
    int nd;
    LLVMValueRef *lstr; /* leaf i's byte stride along axis d: lstr[i * nd + d] */
};

AeSrc *lower_ae_open(Lower *L, Node *n, LLVMValueRef *shape) {
    AeSrc *s = arena_alloc(&L->c->arena, sizeof(AeSrc));
    memset(s, 0, sizeof *s);
    s->n = n;
    s->root = n->kind == N_ARRAYEXPR ? n->a : n;
    s->nd = n->ty->ndim;
    if (!collect(L, &s->ae, s->root))
        return NULL;
    broadcast_shape(L, &s->ae, s->nd, shape);
    s->lstr = arena_alloc(&L->c->arena, sizeof(LLVMValueRef) * (size_t)(s->ae.nleaves * s->nd + 1));
    for (int i = 0; i < s->ae.nleaves; i++)
        if (is_arr(s->ae.leaves[i]))
            for (int d = 0; d < s->nd; d++)
                s->lstr[i * s->nd + d] = leaf_stride(L, s->ae.leaves[i], d, s->nd);
    return s;
}

/* The element of s's expression from its leaves' current elements,
 * converted to the result's dtype. */
static LLVMValueRef root_value(Lower *L, AeSrc *s) {
    int saved_em = L->error_model;
    L->error_model = 1; /* NumPy: no exceptions from element arithmetic */
    LLVMValueRef v = conv(L, s->n, ev(L, s->root), ety(s->root->ty), s->n->ty->dtype);
    L->error_model = saved_em;
    return v;
}

LLVMValueRef lower_ae_at(Lower *L, AeSrc *s, LLVMValueRef *idx) {
    int nd = s->nd;
    for (int i = 0; i < s->ae.nleaves; i++) {
        Leaf *f = s->ae.leaves[i];
        if (!is_arr(f))
            continue;
        LLVMValueRef off = lower_i64(L, 0);
        for (int d = 0; d < nd; d++)
            off = LLVMBuildAdd(L->b, off, LLVMBuildMul(L->b, idx[d], s->lstr[i * nd + d], ""), "");
        LLVMValueRef p = LLVMBuildGEP2(L->b, L->t_i8, lower_array_field(L, f->v, ARR_DATA, ""), &off, 1, "");
        f->elem = load_elem(L, p, f->ty->dtype);
    }
    return root_value(L, s);
}

/* Whether every array leaf of s is contiguous with the broadcast shape
 * (an i1, often a constant), so lower_ae_at_flat may read item i of each:
 * a nest over run-time strides does not vectorize (LLVM can only version
 * it on a byte stride of 1). */
LLVMValueRef lower_ae_flat_ok(Lower *L, AeSrc *s, LLVMValueRef *shape) {
    int narr = 0;
    for (int i = 0; i < s->ae.nleaves; i++)
        if (is_arr(s->ae.leaves[i]))
            narr += s->ae.leaves[i]->ty->ndim == s->nd ? 1 : 2;
    LLVMValueRef ok = LLVMConstInt(L->t_i1, 1, 0);
    for (int i = 0; i < s->ae.nleaves; i++)
        if (is_arr(s->ae.leaves[i]))
            ok = LLVMBuildAnd(L->b, ok, flat_ok(L, s->ae.leaves[i], shape, s->nd, narr == 1), "");
    return ok;
}

LLVMValueRef lower_ae_at_flat(Lower *L, AeSrc *s, LLVMValueRef i) {
    for (int k = 0; k < s->ae.nleaves; k++) {
        Leaf *f = s->ae.leaves[k];
        if (!is_arr(f))
            continue;
        LLVMValueRef p = lower_gep(L, lower_mem_type(L, f->ty->dtype), lower_array_field(L, f->v, ARR_DATA, ""), &i, 1,
                                   "");
        f->elem = load_elem(L, p, f->ty->dtype);
    }
    return root_value(L, s);
}

/* Byte range [lo, hi) an array's elements span (empty: lo == hi). */
static void extent(Lower *L, LLVMValueRef v, Type *t, LLVMValueRef *lo, LLVMValueRef *hi) {
    LLVMValueRef base = LLVMBuildPtrToInt(L->b, lower_array_field(L, v, ARR_DATA, ""), L->t_i64, "");
    LLVMValueRef neg = lower_i64(L, 0), pos = lower_i64(L, ty_itemsize(t->dtype));
    LLVMValueRef empty = LLVMConstInt(L->t_i1, 0, 0), zero = lower_i64(L, 0);
    for (int d = 0; d < t->ndim; d++) {
        LLVMValueRef s = lower_array_dim(L, v, ARR_SHAPE, d);
        empty = LLVMBuildOr(L->b, empty, LLVMBuildICmp(L->b, LLVMIntEQ, s, zero, ""), "");
        LLVMValueRef span = LLVMBuildMul(L->b, LLVMBuildSub(L->b, s, lower_i64(L, 1), ""),
                                         lower_array_dim(L, v, ARR_STRIDES, d), "");
        LLVMValueRef isneg = LLVMBuildICmp(L->b, LLVMIntSLT, span, zero, "");
        neg = LLVMBuildAdd(L->b, neg, LLVMBuildSelect(L->b, isneg, span, zero, ""), "");
        pos = LLVMBuildAdd(L->b, pos, LLVMBuildSelect(L->b, isneg, zero, span, ""), "");
    }
    *lo = LLVMBuildAdd(L->b, base, neg, "lo");
    *hi = LLVMBuildSelect(L->b, empty, *lo, LLVMBuildAdd(L->b, base, pos, ""), "hi");
}

static bool has_walrus(const Node *n, int depth);

/* A new alias scope (in a domain of its own) as a one-element list:
 * self-referential nodes, as LLVM's own anonymous scopes. */
static LLVMMetadataRef alias_scope(Lower *L) {
    LLVMMetadataRef tmp = LLVMTemporaryMDNode(L->ctx, NULL, 0);
    LLVMMetadataRef dops[2] = {tmp, LLVMMDStringInContext2(L->ctx, "hpcjit.store", 12)};
    LLVMMetadataRef dom = LLVMMDNodeInContext2(L->ctx, dops, 2);
    LLVMMetadataReplaceAllUsesWith(tmp, dom);
    tmp = LLVMTemporaryMDNode(L->ctx, NULL, 0);
    LLVMMetadataRef sops[2] = {tmp, dom};
    LLVMMetadataRef scope = LLVMMDNodeInContext2(L->ctx, sops, 2);
    LLVMMetadataReplaceAllUsesWith(tmp, scope);
    return LLVMMDNodeInContext2(L->ctx, &scope, 1);
}

/* Are no two elements of v at one address?  (Sufficient, not necessary:
 * each axis, innermost first, steps past all the axes inside it, as in
 * any C-ordered view, reversed or strided; a view of another order
 * answers no.) */
static LLVMValueRef no_self_overlap(Lower *L, LLVMValueRef v, Type *t) {
    LLVMValueRef ok = LLVMConstInt(L->t_i1, 1, 0), span = lower_i64(L, ty_itemsize(t->dtype));
    LLVMValueRef one = lower_i64(L, 1), zero = lower_i64(L, 0);
    for (int d = t->ndim - 1; d >= 0; d--) {
        LLVMValueRef n = lower_array_dim(L, v, ARR_SHAPE, d), s = lower_array_dim(L, v, ARR_STRIDES, d);
        LLVMValueRef as = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, s, zero, ""),
                                          LLVMBuildNeg(L->b, s, ""), s, "");
        LLVMValueRef many = LLVMBuildICmp(L->b, LLVMIntSGT, n, one, "");
        LLVMValueRef fits = LLVMBuildICmp(L->b, LLVMIntSGE, as, span, "");
        ok = LLVMBuildAnd(L->b, ok, LLVMBuildOr(L->b, LLVMBuildNot(L->b, many, ""), fits, ""), "");
        LLVMValueRef grown = LLVMBuildAdd(L->b, LLVMBuildMul(L->b, LLVMBuildSub(L->b, n, one, ""), as, ""), span, "");
        span = LLVMBuildSelect(L->b, many, grown, span, "");
    }
    return ok;
}

/* Do a and b name the same view, computed from the same values?  Only
 * what cannot change between the two evaluations in one statement: local
 * names (a store's right side rebinds none: no walrus), integer constants,
 * slices, and + - * of those. */
static bool same_view(const Node *a, const Node *b, int depth) {
    if (!a || !b)
        return a == b;
    if (a->kind != b->kind || depth > 32)
        return false;
    switch (a->kind) {
    case N_NAME: return a->var && a->var == b->var;
    case N_CONST:
        return a->cval.kind == b->cval.kind && (a->cval.kind == CVAL_INT || a->cval.kind == CVAL_BOOL ||
                                                a->cval.kind == CVAL_NONE) &&
               a->cval.i == b->cval.i;
    case N_SLICE:
        return same_view(a->a, b->a, depth + 1) && same_view(a->b, b->b, depth + 1) && same_view(a->c, b->c, depth + 1);
    case N_TUPLE:
        if (a->args.len != b->args.len)
            return false;
        for (int i = 0; i < a->args.len; i++)
            if (!same_view(VEC_AT(a->args, i), VEC_AT(b->args, i), depth + 1))
                return false;
        return true;
    case N_UNARYOP:
        return a->op == b->op && a->op == OP_NEG && a->ty == b->ty && a->ty && ty_is_int(a->ty) &&
               same_view(a->a, b->a, depth + 1);
    case N_BINOP:
        return a->op == b->op && (a->op == OP_ADD || a->op == OP_SUB || a->op == OP_MUL) && a->ty == b->ty && a->ty &&
               ty_is_int(a->ty) && same_view(a->a, b->a, depth + 1) && same_view(a->b, b->b, depth + 1);
    case N_CAST: return a->ty == b->ty && same_view(a->a, b->a, depth + 1);
    case N_SUBSCRIPT:
        return a->idx_kind == IDX_BASIC && b->idx_kind == IDX_BASIC && same_view(a->a, b->a, depth + 1) &&
               same_view(a->b, b->b, depth + 1);
    default: return false;
    }
}

/* Is target `x[:]` (`x[:, :]`, `x[...]`: every axis whole) of the array
 * named by leaf?  Then the leaf `x` is the destination's view too. */
static bool whole_of(const Node *leaf, const Node *target) {
    if (leaf->kind != N_NAME || !leaf->var || target->kind != N_SUBSCRIPT || target->idx_kind != IDX_BASIC ||
        !target->a || target->a->kind != N_NAME || target->a->var != leaf->var || !target->b ||
        target->b->kind != N_TUPLE || !leaf->ty || leaf->ty->kind != TY_ARRAY ||
        target->b->args.len != leaf->ty->ndim)
        return false;
    for (int i = 0; i < target->b->args.len; i++) {
        const Node *it = VEC_AT(target->b->args, i);
        if (it->kind != N_SLICE || it->a || it->b || it->c)
            return false;
    }
    return true;
}

/* Does any array leaf share memory with dst?  (Conservative: byte ranges.
 * A leaf that is dst itself, read at the index it is stored to, is no
 * overlap unless dst overlaps itself.) */
static LLVMValueRef overlaps(Lower *L, Ae *ae, LLVMValueRef dst, Type *dty) {
    LLVMValueRef dlo, dhi, any = LLVMConstInt(L->t_i1, 0, 0);
    extent(L, dst, dty, &dlo, &dhi);
    for (int i = 0; i < ae->nleaves; i++) {
        Leaf *f = ae->leaves[i];
        if (!is_arr(f))
            continue;
        if (f->self) {
            any = LLVMBuildOr(L->b, any, LLVMBuildNot(L->b, no_self_overlap(L, dst, dty), ""), "");
            continue;
        }
        LLVMValueRef lo, hi;
        extent(L, f->v, f->ty, &lo, &hi);
        LLVMValueRef o = LLVMBuildAnd(L->b, LLVMBuildICmp(L->b, LLVMIntULT, lo, dhi, ""),
                                      LLVMBuildICmp(L->b, LLVMIntULT, dlo, hi, ""), "");
        any = LLVMBuildOr(L->b, any, o, "");
    }
    return any;
}

/* Write the tree `root` (leaves in ae) into the existing array dst; with
 * aug_op, dst op= tree.  When an operand shares memory with dst (stencils:
 * a[1:-1] = a[:-2] + a[2:]) the tree is first computed into a temporary,
 * as NumPy does, so that no element is read after it was overwritten. */
static bool store_into(Lower *L, Ae *ae, Node *root, Node *at, OpKind aug_op, Type *aug_op_ty,
                       LLVMValueRef dst, Type *dty, const Node *target) {
    check_into(L, ae, dst, dty);
    /* a leaf naming the destination's view (`x[i, :] = np.minimum(x[i, :],
     * ...)`) reads dst itself: LLVM then sees one pointer, no overlap to
     * test at run time */
    bool walrus = target && has_walrus(root, 0);
    for (int i = 0; i < ae->nleaves && target && !walrus; i++) {
        Leaf *f = ae->leaves[i];
        if (is_arr(f) && f->ty->ndim == dty->ndim && f->ty->dtype == dty->dtype &&
            (same_view(f->n, target, 0) || whole_of(f->n, target))) {
            f->self = true;
            f->v = dst;
        }
    }
    Emit e = {.root = root, .out_dt = dty->dtype, .aug_op = aug_op, .aug_op_ty = aug_op_ty, .at = at};
    LLVMValueRef ov = overlaps(L, ae, dst, dty);
    LLVMBasicBlockRef direct = lower_block(L, "ae.direct"), copy = lower_block(L, "ae.viatemp"),
                      join = lower_block(L, "ae.stored");
    LLVMBuildCondBr(L->b, ov, copy, direct);
    lower_at(L, direct);
    /* every other array leaf is known here not to overlap dst: tell LLVM,
     * whose own run-time test, hoisted out of an enclosing loop, may span
     * every row the loop visits and always fail (NPBench floyd_warshall) */
    e.scope = alias_scope(L);
    if (!emit_loops(L, ae, &e, dst, dty))
        return false;
    e.scope = NULL;
    LLVMBuildBr(L->b, join);

    lower_at(L, copy);
    /* tmp = tree, broadcast to dst's shape */
    Type *vt = ety(root->ty);
    Type *tty = ty_array(L->c->tc, vt, dty->ndim, LAYOUT_C);
    LLVMValueRef dims[MAXND + 1];
    for (int d = 0; d < dty->ndim; d++)
        dims[d] = lower_array_dim(L, dst, ARR_SHAPE, d);
    LLVMValueRef tmp = lower_alloc_array(L, tty, dims, false);
    if (!tmp)
        return false;
    int mark = lower_temps_mark(L);
    lower_temp(L, tmp, tty, true);
    Emit te = {.root = root, .out_dt = vt, .aug_op = OP_NONE, .at = at};
    if (!emit_loops(L, ae, &te, tmp, tty))
        return false;
    /* dst (op)= tmp: one leaf */
    Node *tn = ast_new(&L->c->arena, N_NAME, at->loc);
    tn->ty = tty;
    Ae one = {0};
    Leaf *f = add_leaf(L, &one);
    f->n = tn;
    f->ty = tty;
    f->v = f->elem = tmp;
    tn->lower_data = f;
    Emit ce = e;
    ce.root = tn;
    if (!emit_loops(L, &one, &ce, dst, dty))
        return false;
    lower_temps_release(L, mark);
    LLVMBuildBr(L->b, join);
    lower_at(L, join);
    return true;
}

/* Does n hold a named expression (which could rebind a name in it)? */
static bool has_walrus(const Node *n, int depth) {
    if (!n || depth > 10000)
        return false;
    if (n->kind == N_NAMEDEXPR)
        return true;
    if (has_walrus(n->a, depth + 1) || has_walrus(n->b, depth + 1) || has_walrus(n->c, depth + 1))
        return true;
    const PtrVec *lists[] = {&n->body, &n->orelse, &n->finalbody, &n->args, &n->args2, &n->targets};
    for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++)
        for (int i = 0; i < lists[k]->len; i++)
            if (has_walrus(VEC_AT(*lists[k], i), depth + 1))
                return true;
    return false;
}

/* `t op= v` with t an array: in place, no allocation (NumPy casts the
 * result back to t's dtype). */
bool lower_ae_augassign(Lower *L, Node *n) {
    Node *t = n->a;
    LLVMValueRef arr; /* the target first, as Python */
    if (t->kind == N_SUBSCRIPT && t->idx_kind == IDX_BASIC) {
        /* only stored into, in this statement: borrowed, unless v may
         * rebind the base's variable (`a[1:] += (a := b)`) and free it
         * while the view is in use */
        if (!has_walrus(n->b, 0)) {
            arr = lower_index_view_borrowed(L, t);
        } else if ((arr = lower_index_view(L, t)) != NULL) {
            lower_temp(L, arr, t->ty, true);
        }
    } else {
        arr = lower_expr_use(L, t);
    }
    if (!arr)
        return false;
    Ae ae = {0};
    if (!collect(L, &ae, n->b))
        return false;
    return store_into(L, &ae, n->b, n, n->op, n->op_ty, arr, t->ty,
                      (t->kind == N_SUBSCRIPT && t->idx_kind == IDX_BASIC) || t->kind == N_NAME ? t : NULL);
}

bool lower_ae_is_store(const Node *target, const Node *value) {
    return target->kind == N_SUBSCRIPT && target->idx_kind == IDX_BASIC && target->op_ty &&
           target->op_ty->kind == TY_ARRAY && value->ty && value->ty->kind == TY_ARRAY;
}

/* target[...] = v with v an array (expression): v first (Python's order),
 * then the destination view. */
bool lower_ae_assign(Lower *L, Node *target, Node *v) {
    Node *root = v->kind == N_ARRAYEXPR ? v->a : v;
    Ae ae = {0};
    if (!collect(L, &ae, root))
        return false;
    /* no reference of its own: it is only stored into, in this statement
     * (a loop of `D[:, :, k] = tmp` paid an incref and a decref a trip) */
    LLVMValueRef dst = lower_index_view_borrowed(L, target);
    if (!dst)
        return false;
    return store_into(L, &ae, root, v, OP_NONE, NULL, dst, target->op_ty, target);
}

/* ---- consecutive array statements in one nest (N_FUSED, infer_fuse.c) ---- */

/* One element of every statement of the group, in order: each converted
 * to its array's dtype (as a store and a load would), handed to the names
 * that read it, and stored where the array is kept.  flat_i: the item of
 * the flat loop; else idx[0..nd) of the nest. */
static bool emit_fused(Lower *L, const Emit *e, LLVMValueRef flat_i, LLVMValueRef *idx, int nd) {
    Fused *fu = e->fu;
    for (int k = 0; k < fu->n; k++) {
        Node *root = fu->root[k];
        Type *dt = fu->ty[k]->dtype;
        LLVMValueRef v = conv(L, root, ev(L, root), ety(root->ty), dt);
        if (!v)
            return false;
        for (int i = 0; i < fu->ae->nleaves; i++)
            if (fu->ae->leaves[i]->src == k)
                fu->ae->leaves[i]->elem = v;
        if (!fu->keep[k])
            continue;
        LLVMValueRef data = lower_array_field(L, fu->out[k], ARR_DATA, "");
        LLVMValueRef p;
        if (flat_i) {
            p = lower_gep(L, lower_mem_type(L, dt), data, &flat_i, 1, "");
        } else {
            LLVMValueRef off = lower_i64(L, 0);
            for (int d = 0; d < nd; d++)
                off = LLVMBuildAdd(L->b, off,
                                   LLVMBuildMul(L->b, idx[d], lower_array_dim(L, fu->out[k], ARR_STRIDES, d), ""), "");
            p = LLVMBuildGEP2(L->b, L->t_i8, data, &off, 1, "");
        }
        store_elem(L, p, v, dt, NULL);
    }
    return true;
}

/* The leaves of statement k's tree: a name marked fused_ref reads the
 * element of the latest earlier statement assigning its variable. */
static bool collect_fused(Lower *L, Ae *ae, Fused *fu, int k, Node *n) {
    if (elementwise(n)) {
        switch (n->kind) {
        case N_BINOP: return collect_fused(L, ae, fu, k, n->a) && collect_fused(L, ae, fu, k, n->b);
        case N_UNARYOP: return collect_fused(L, ae, fu, k, n->a);
        case N_COMPARE: return collect_fused(L, ae, fu, k, n->a) && collect_fused(L, ae, fu, k, VEC_AT(n->args, 0));
        default:
            for (int i = 0; i < n->args.len; i++)
                if (!collect_fused(L, ae, fu, k, VEC_AT(n->args, i)))
                    return false;
            return true;
        }
    }
    if (n->kind == N_NAME && n->fused_ref) {
        int j = k - 1;
        while (j >= 0 && fu->target[j]->var != n->var)
            j--;
        Leaf *f = add_leaf(L, ae);
        f->n = n;
        f->ty = n->ty;
        f->src = j;
        n->lower_data = f;
        return j >= 0;
    }
    return collect(L, ae, n);
}

/* Whether lowering's trees agree with inference's: every fused_ref name
 * is reached as a leaf (it would otherwise be read from its variable,
 * which the nest does not assign), and every array leaf has the rank. */
static int fused_refs(const Node *n, int depth) {
    if (!n || depth > 200)
        return 1 << 20;
    int c = n->kind == N_NAME && n->fused_ref;
    if (n->a)
        c += fused_refs(n->a, depth + 1);
    if (n->b)
        c += fused_refs(n->b, depth + 1);
    if (n->c)
        c += fused_refs(n->c, depth + 1);
    for (int i = 0; i < n->args.len; i++)
        if (VEC_AT(n->args, i))
            c += fused_refs(VEC_AT(n->args, i), depth + 1);
    for (int i = 0; i < n->args2.len; i++)
        if (VEC_AT(n->args2, i))
            c += fused_refs(VEC_AT(n->args2, i), depth + 1);
    return c;
}

static bool leaf_refs(const Node *n, int nd, int *refs, int depth) {
    if (depth > 200)
        return false;
    if (elementwise(n)) {
        if (n->ty->ndim != nd)
            return false;
        switch (n->kind) {
        case N_BINOP: return leaf_refs(n->a, nd, refs, depth + 1) && leaf_refs(n->b, nd, refs, depth + 1);
        case N_UNARYOP: return leaf_refs(n->a, nd, refs, depth + 1);
        case N_COMPARE: return leaf_refs(n->a, nd, refs, depth + 1) && leaf_refs(VEC_AT(n->args, 0), nd, refs, depth + 1);
        default:
            for (int i = 0; i < n->args.len; i++)
                if (!VEC_AT(n->args, i) || !leaf_refs(VEC_AT(n->args, i), nd, refs, depth + 1))
                    return false;
            return true;
        }
    }
    *refs += n->kind == N_NAME && n->fused_ref;
    return !(n->ty->kind == TY_ARRAY && n->ty->ndim != 0 && n->ty->ndim != nd);
}

static bool fusible(const Node *g, int nd) {
    for (int k = 0; k < g->body.len; k++) {
        const Node *st = VEC_AT(g->body, k);
        const Node *root = st->a->a;
        int reached = 0;
        if (root->ty->ndim != nd || !elementwise(root) || !leaf_refs(root, nd, &reached, 0) ||
            reached != fused_refs(root, 0))
            return false;
    }
    return true;
}

/* Does tree n call a @vectorize kernel (which may raise)? */
static bool calls_kernel(const Node *n, int depth) {
    if (!n || depth > 200 || !elementwise(n))
        return depth > 200;
    if (n->kind == N_CALL && n->call_kind == CALL_ELEMWISE)
        return true;
    switch (n->kind) {
    case N_BINOP: return calls_kernel(n->a, depth + 1) || calls_kernel(n->b, depth + 1);
    case N_UNARYOP: return calls_kernel(n->a, depth + 1);
    case N_COMPARE: return calls_kernel(n->a, depth + 1) || calls_kernel(VEC_AT(n->args, 0), depth + 1);
    default:
        for (int i = 0; i < n->args.len; i++)
            if (calls_kernel(VEC_AT(n->args, i), depth + 1))
                return true;
        return false;
    }
}

/* Does every kept statement read every array leaf of the group, directly
 * or through earlier statements (a dup as the leaf it repeats)?  Then
 * every kept array has the broadcast shape of all the leaves.  start[k]:
 * statement k's first leaf. */
static bool kept_read_all(Lower *L, const Fused *fu, const Ae *ae, const int *start) {
    int nl = ae->nleaves;
    size_t sz = (size_t)fu->n * (size_t)nl + 1;
    bool *dep = arena_alloc(&L->c->arena, sz); /* dep[k * nl + i]: statement k reads leaf i */
    memset(dep, 0, sz);
    for (int k = 0; k < fu->n; k++) {
        bool *dk = dep + (size_t)k * (size_t)nl;
        for (int i = start[k]; i < start[k + 1]; i++) {
            const Leaf *f = ae->leaves[i];
            if (f->src >= 0)
                for (int j = 0; j < nl; j++)
                    dk[j] |= dep[(size_t)f->src * (size_t)nl + (size_t)j];
            else if (is_arr(f))
                dk[f->dup >= 0 ? f->dup : i] = true;
        }
        for (int i = 0; i < nl && fu->keep[k]; i++)
            if (is_arr(ae->leaves[i]) && ae->leaves[i]->dup < 0 && !dk[i])
                return false;
    }
    return true;
}

/* The group's operands do not broadcast: the ValueError of the first
 * statement that would raise it alone (rt_raise_broadcast), from a table
 * of each statement's array operands and the leaves' shapes. */
static void raise_group_shapes(Lower *L, const Fused *fu, const Ae *ae, const int *start, int nd) {
    Arena *a = &L->c->arena;
    int nl = ae->nleaves, nin = 0, nc = 0;
    int *in = arena_alloc(a, sizeof(int) * (size_t)(nl + 1));
    LLVMValueRef *codes = arena_alloc(a, sizeof(LLVMValueRef) * (size_t)(1 + fu->n + nl));
    for (int i = 0; i < nl; i++) {
        const Leaf *f = ae->leaves[i];
        in[i] = !is_arr(f) ? -1 : f->dup >= 0 ? in[f->dup] : nin++;
    }
    codes[nc++] = lower_i32(L, fu->n);
    for (int k = 0; k < fu->n; k++) {
        int at = nc++, m = 0;
        for (int i = start[k]; i < start[k + 1]; i++) {
            const Leaf *f = ae->leaves[i];
            if (f->src >= 0 || is_arr(f))
                codes[nc++] = lower_i32(L, f->src >= 0 ? -1 - f->src : in[i]), m++;
        }
        codes[at] = lower_i32(L, m);
    }
    LLVMValueRef init = LLVMConstArray2(L->t_i32, codes, (uint64_t)nc);
    LLVMValueRef desc = LLVMAddGlobal(L->mod, LLVMTypeOf(init), "fused.operands");
    LLVMSetInitializer(desc, init);
    LLVMSetGlobalConstant(desc, 1);
    LLVMSetLinkage(desc, LLVMPrivateLinkage);
    LLVMSetUnnamedAddress(desc, LLVMGlobalUnnamedAddr);
    LLVMTypeRef st = LLVMArrayType2(L->t_i64, (uint64_t)(nin * nd));
    LLVMValueRef shapes = lower_alloca(L, st, "fused.shapes");
    for (int i = 0; i < nl; i++) {
        if (in[i] < 0 || ae->leaves[i]->dup >= 0)
            continue;
        for (int d = 0; d < nd; d++) {
            LLVMValueRef o = lower_i64(L, in[i] * nd + d);
            LLVMBuildStore(L->b, lower_array_dim(L, ae->leaves[i]->v, ARR_SHAPE, d),
                           lower_gep(L, L->t_i64, shapes, &o, 1, ""));
        }
    }
    LLVMTypeRef pt[3] = {L->t_ptr, L->t_ptr, L->t_i64};
    LLVMValueRef args[3] = {desc, shapes, lower_i64(L, nd)};
    lower_rt(L, "rt_raise_broadcast", L->t_void, pt, 3, args);
    lower_goto_error(L);
}

/* The group's nest over shape: the kept arrays allocated (released if an
 * element raises), every statement's element computed, the kept arrays
 * assigned to their variables.  same_shape: every array leaf has shape. */
static bool fused_nest(Lower *L, Node *g, Fused *fu, Ae *ae, LLVMValueRef *shape, int first, bool same_shape) {
    int mark = lower_temps_mark(L);
    for (int k = 0; k < fu->n; k++) {
        if (!fu->keep[k])
            continue;
        fu->out[k] = lower_alloc_array(L, fu->ty[k], shape, false);
        if (!fu->out[k])
            return false;
        lower_temp(L, fu->out[k], fu->ty[k], true);
    }
    Emit e = {.root = fu->root[first], .out_dt = fu->ty[first]->dtype, .aug_op = OP_NONE, .at = g, .fu = fu,
              .same_shape = same_shape};
    if (!emit_loops(L, ae, &e, fu->out[first], fu->ty[first]))
        return false;
    lower_temps_keep(L, mark);
    for (int k = 0; k < fu->n; k++)
        if (fu->keep[k]) {
            lower_store_var(L, fu->target[k], fu->target[k]->var, fu->out[k], fu->ty[k], true);
            if (lower_failed(L))
                return false;
        }
    return true;
}

/* N_FUSED: the leaves of every statement, then one nest computing every
 * statement's element (the kept arrays allocated and assigned to their
 * variables).  Returns 2 when that nest serves any shapes (every kept
 * array reads every leaf: kept_read_all); else 1, the nest only when every
 * array leaf has the same shape, with the builder at *plain, where the
 * caller lowers the statements one by one (another shape, or the same
 * shape with broadcasting), both ending at *join.  0: not fusible here
 * (nothing emitted); -1: an error. */
int lower_fused(Lower *L, Node *g, LLVMBasicBlockRef *plain, LLVMBasicBlockRef *join) {
    if (L->device || g->body.len < 2)
        return 0;
    Node *st0 = VEC_AT(g->body, 0);
    int nd = st0->a->ty->ndim;
    if (nd < 1 || nd > MAXND || !fusible(g, nd))
        return 0;
    Arena *a = &L->c->arena;
    Fused *fu = arena_alloc(a, sizeof *fu);
    memset(fu, 0, sizeof *fu);
    int n = g->body.len;
    fu->n = n;
    fu->root = arena_alloc(a, sizeof(Node *) * (size_t)n);
    fu->ty = arena_alloc(a, sizeof(Type *) * (size_t)n);
    fu->target = arena_alloc(a, sizeof(Node *) * (size_t)n);
    fu->keep = arena_alloc(a, sizeof(bool) * (size_t)n);
    fu->out = arena_alloc(a, sizeof(LLVMValueRef) * (size_t)n);
    Ae *ae = arena_alloc(a, sizeof *ae);
    memset(ae, 0, sizeof *ae);
    fu->ae = ae;
    int first = -1;
    for (int k = 0; k < n; k++) {
        Node *st = VEC_AT(g->body, k);
        fu->target[k] = VEC_AT(st->targets, 0);
        fu->root[k] = st->a->a;
        fu->ty[k] = st->a->ty;
        fu->keep[k] = fu->target[k]->fused_keep;
        fu->out[k] = NULL;
        if (fu->keep[k] && first < 0)
            first = k;
    }
    if (first < 0)
        return 0;
    /* every leaf once, in the statements' order (inference made them quiet) */
    int *start = arena_alloc(a, sizeof(int) * (size_t)(n + 1));
    bool kernel = false;
    for (int k = 0; k < n; k++) {
        L->at = VEC_AT(g->body, k);
        start[k] = ae->nleaves;
        kernel |= calls_kernel(fu->root[k], 0);
        if (!collect_fused(L, ae, fu, k, fu->root[k]))
            return lower_failed(L) ? -1 : (lower_fail(L, g, HJ_DIAG_LOWERING, "fused statement reads an unknown element"), -1);
    }
    start[n] = ae->nleaves;
    /* a name read twice: one value (quiet leaves, nothing assigned between:
     * a read after the group assigns it is an element, src >= 0) */
    for (int i = 0; i < ae->nleaves; i++) {
        Leaf *f = ae->leaves[i];
        for (int j = 0; j < i && f->src < 0 && f->n->kind == N_NAME && f->n->var; j++) {
            Leaf *h = ae->leaves[j];
            if (h->src < 0 && h->dup < 0 && h->n->kind == N_NAME && h->n->var == f->n->var && h->ty == f->ty) {
                f->dup = j;
                f->v = h->v, f->elem = h->elem;
                break;
            }
        }
    }
    if (!kernel && kept_read_all(L, fu, ae, start)) {
        /* every kept array has the broadcast shape of all the leaves: one
         * nest for any shapes (stride 0 on broadcast axes; a statement of
         * a smaller shape that is not kept is computed again along them,
         * the same values), nothing one by one.  Not with a @vectorize
         * kernel: one by one, its exception would come before a later
         * statement's broadcasting error. */
        LLVMValueRef shape[MAXND + 1];
        LLVMValueRef bad = broadcast_dims(L, ae, nd, shape);
        LLVMBasicBlockRef ok = lower_branch_raise(L, bad, "fused.badshape");
        raise_group_shapes(L, fu, ae, start, nd);
        lower_at(L, ok);
        return fused_nest(L, g, fu, ae, shape, first, false) ? 2 : -1;
    }
    /* same shape everywhere? */
    Leaf *f0 = NULL;
    LLVMValueRef same = LLVMConstInt(L->t_i1, 1, 0);
    for (int i = 0; i < ae->nleaves; i++) {
        Leaf *f = ae->leaves[i];
        if (!is_arr(f) || f->dup >= 0)
            continue;
        if (!f0) {
            f0 = f;
            continue;
        }
        for (int d = 0; d < nd; d++)
            same = LLVMBuildAnd(L->b, same,
                                LLVMBuildICmp(L->b, LLVMIntEQ, lower_array_dim(L, f->v, ARR_SHAPE, d),
                                              lower_array_dim(L, f0->v, ARR_SHAPE, d), ""), "");
    }
    if (!f0)
        return lower_fail(L, g, HJ_DIAG_LOWERING, "fused statements read no array"), -1;
    LLVMBasicBlockRef go = lower_block(L, "fused"), alone = lower_block(L, "fused.plain"),
                      done = lower_block(L, "fused.done");
    LLVMBuildCondBr(L->b, same, go, alone);
    lower_at(L, go);
    LLVMValueRef shape[MAXND + 1];
    for (int d = 0; d < nd; d++)
        shape[d] = lower_array_dim(L, f0->v, ARR_SHAPE, d);
    /* the leaves have one shape (tested above), out has it too */
    if (!fused_nest(L, g, fu, ae, shape, first, true))
        return -1;
    LLVMBuildBr(L->b, done);
    lower_at(L, alone);
    *plain = alone;
    *join = done;
    return 1;
}

bool lower_ae_is_ufunc_call(const Node *n) { return n->kind == N_CALL && n->op_ty && is_ufunc(n->builtin); }

/* A ufunc call on scalars (np.log1p(x)), or an unfused array call. */
LLVMValueRef lower_ae_call(Lower *L, Node *n, bool *owned) {
    *owned = false;
    if (n->ty->kind == TY_ARRAY)
        return lower_arrayexpr(L, n, owned);
    LLVMValueRef args[3] = {0};
    int k = n->args.len > 3 ? 3 : n->args.len;
    for (int i = 0; i < k; i++)
        if (!(args[i] = lower_expr_use(L, VEC_AT(n->args, i))))
            return NULL;
    int saved = L->error_model;
    L->error_model = 1;
    LLVMValueRef r = ev_call(L, n, args);
    L->error_model = saved;
    return r;
}

LLVMValueRef lower_ae_real_imag(Lower *L, Node *n, LLVMValueRef arr, bool *owned) {
    Type *bt = n->a->ty;
    bool imag = n->attr_kind == ATTR_ARRAY_IMAG;
    *owned = true;
    if (!ty_is_complex(bt->dtype)) {
        if (imag) {
            LLVMValueRef dims[MAXND + 1];
            for (int d = 0; d < bt->ndim; d++)
                dims[d] = lower_array_dim(L, arr, ARR_SHAPE, d);
            return lower_alloc_array(L, n->ty, dims, true);
        }
        lower_incref(L, arr, bt);
        return arr;
    }
    /* the same items, each one part: offset by a part for .imag */
    int psz = ty_itemsize(bt->dtype) / 2;
    LLVMValueRef data = lower_array_field(L, arr, ARR_DATA, "");
    if (imag) {
        LLVMValueRef off = lower_i64(L, psz);
        data = LLVMBuildGEP2(L->b, L->t_i8, data, &off, 1, "imag");
    }
    LLVMValueRef v = LLVMBuildInsertValue(L->b, arr, data, ARR_DATA, "");
    v = LLVMBuildInsertValue(L->b, v, lower_i64(L, psz), ARR_ITEMSIZE, "part");
    lower_incref(L, v, n->ty);
    return v;
}
