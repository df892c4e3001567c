/* lower_linalg.c - lowering of linear algebra to the runtime's rt_linalg_*
 * (runtime/linalg.c, hpcjit/linalg.h), which calls BLAS/LAPACK.
 *
 * Operands are passed as RtMat descriptors {data, m, n, row stride,
 * column stride} of the arrays as they are (any layout: the runtime copies
 * where BLAS cannot read them); only an operand of another dtype than the
 * call's op_ty is first converted into a C-contiguous temporary.  Results
 * are new C arrays allocated here, registered as temporaries while the
 * runtime may still fail, then handed to the caller (owned), as
 * lower_search.c does.  Tree shapes: infer_linalg.c. */
#include "np/lower_np.h"
#include "linalg.h"

#include "hpcjit/linalg.h"
#include "hpcjit/search.h"

static TyCtx *tc(Lower *L) { return L->c->tc; }

/* An array operand: its value, data, shape and strides. */
typedef struct Opnd {
    LLVMValueRef v, data, dims[HJ_MAX_NDIM_LOWER + 1], st[HJ_MAX_NDIM_LOWER + 1];
    Type *ty;
    int nd;
} Opnd;

static void opnd_of(Lower *L, LLVMValueRef v, Type *ty, Opnd *o) {
    o->v = v;
    o->ty = ty;
    o->nd = ty->ndim;
    o->data = lower_array_field(L, v, ARR_DATA, "");
    np_dims(L, v, o->nd, o->dims, o->st);
}

/* Lower e; converted to a C array of dtype dt when its dtype differs, or
 * always when `contig` (flattened operands of vdot/outer). */
static bool operand(Lower *L, Node *e, Type *dt, bool contig, Opnd *o) {
    LLVMValueRef v = lower_expr_use(L, e);
    if (!v)
        return false;
    Type *ty = e->ty;
    if (ty->dtype != dt || (contig && ty->ndim > 1)) {
        Type *cty = ty_array(tc(L), dt, ty->ndim, LAYOUT_C);
        v = np_own(L, np_copy_c(L, v, ty, cty), cty);
        ty = cty;
    }
    opnd_of(L, v, ty, o);
    return true;
}

static LLVMTypeRef mat_type(Lower *L) {
    LLVMTypeRef f[5] = {L->t_ptr, L->t_i64, L->t_i64, L->t_i64, L->t_i64};
    return LLVMStructTypeInContext(L->ctx, f, 5, 0);
}

/* An RtMat in a stack slot. */
static LLVMValueRef desc(Lower *L, LLVMValueRef data, LLVMValueRef m, LLVMValueRef n, LLVMValueRef rs,
                         LLVMValueRef cs) {
    LLVMTypeRef t = mat_type(L);
    LLVMValueRef p = lower_alloca(L, t, "mat");
    LLVMValueRef v[5] = {data, m, n, rs, cs};
    for (unsigned i = 0; i < 5; i++)
        LLVMBuildStore(L->b, v[i], LLVMBuildStructGEP2(L->b, t, p, i, ""));
    return p;
}

/* A 2-D operand as is; a 1-D one as a column (k x 1) or a row (1 x k). */
static LLVMValueRef mat_of(Lower *L, const Opnd *o, bool row) {
    LLVMValueRef z = lower_i64(L, 0), one = lower_i64(L, 1);
    if (o->nd == 2)
        return desc(L, o->data, o->dims[0], o->dims[1], o->st[0], o->st[1]);
    if (o->nd == 1)
        return row ? desc(L, o->data, one, o->dims[0], z, o->st[0]) : desc(L, o->data, o->dims[0], one, o->st[0], z);
    return desc(L, o->data, one, one, z, z);
}

/* A whole contiguous operand as one flat row or column of nitems. */
static LLVMValueRef flat_of(Lower *L, const Opnd *o, bool row) {
    if (o->nd == 1)
        return mat_of(L, o, row);
    LLVMValueRef cnt = lower_array_field(L, o->v, ARR_NITEMS, "n"), z = lower_i64(L, 0), one = lower_i64(L, 1);
    LLVMValueRef isz = lower_i64(L, ty_itemsize(o->ty->dtype));
    return row ? desc(L, o->data, one, cnt, z, isz) : desc(L, o->data, cnt, one, isz, z);
}

/* A new C result array of type rty with dims (owned temporary). */
static LLVMValueRef result(Lower *L, Type *rty, LLVMValueRef *dims, bool zeroed, Opnd *o) {
    LLVMValueRef d[HJ_MAX_NDIM_LOWER + 1];
    for (int i = 0; i < rty->ndim; i++)
        d[i] = dims[i];
    LLVMValueRef v = np_own(L, np_alloc(L, rty, d, zeroed), rty);
    opnd_of(L, v, rty, o);
    return v;
}

/* A one-item scalar slot of type dt and its 1 x 1 descriptor. */
static LLVMValueRef scalar_slot(Lower *L, Type *dt, LLVMValueRef *mat) {
    LLVMValueRef p = lower_alloca(L, lower_mem_type(L, dt), "scalar");
    LLVMValueRef one = lower_i64(L, 1), isz = lower_i64(L, ty_itemsize(dt));
    if (mat)
        *mat = desc(L, p, one, one, isz, isz);
    return p;
}

static LLVMValueRef load_scalar(Lower *L, LLVMValueRef p, Type *dt) { return np_load(L, p, dt); }

static LLVMValueRef rt(Lower *L, const char *name, LLVMTypeRef ret, LLVMTypeRef *ps, unsigned n, LLVMValueRef *as) {
    return lower_rt(L, name, ret, ps, n, as);
}

static void call_checked(Lower *L, const char *name, LLVMValueRef *as, unsigned n) {
    LLVMTypeRef ts[16];
    for (unsigned i = 0; i < n; i++)
        ts[i] = LLVMTypeOf(as[i]);
    lower_check_status(L, rt(L, name, L->t_i32, ts, n, as));
}

/* nd i64 values into a stack array. */
static LLVMValueRef i64_buf(Lower *L, LLVMValueRef *v, int nd, const char *name) {
    LLVMTypeRef t = LLVMArrayType2(L->t_i64, (uint64_t)(nd ? nd : 1));
    LLVMValueRef p = lower_alloca(L, t, name);
    for (int d = 0; d < nd; d++) {
        LLVMValueRef idx[2] = {lower_i64(L, 0), lower_i64(L, d)};
        LLVMBuildStore(L->b, v[d], lower_gep(L, t, p, idx, 2, ""));
    }
    return p;
}

/* matmul with an operand of ndim > 2: the runtime works out the
 * broadcast shape, then loops over the batch. */
static LLVMValueRef matmul_nd(Lower *L, Node *n, Opnd *A, Opnd *B, bool *owned) {
    Type *rty = n->ty;
    int nd = rty->ndim;
    LLVMValueRef sha = i64_buf(L, A->dims, A->nd, "sha"), sta = i64_buf(L, A->st, A->nd, "sta");
    LLVMValueRef shb = i64_buf(L, B->dims, B->nd, "shb"), stb = i64_buf(L, B->st, B->nd, "stb");
    LLVMTypeRef at = LLVMArrayType2(L->t_i64, (uint64_t)nd);
    LLVMValueRef shc = lower_alloca(L, at, "shc");
    LLVMValueRef as[5] = {lower_i32(L, A->nd), sha, lower_i32(L, B->nd), shb, shc};
    call_checked(L, "rt_linalg_matmul_shape", as, 5);
    LLVMValueRef dims[HJ_MAX_NDIM_LOWER + 1];
    for (int d = 0; d < nd; d++) {
        LLVMValueRef idx[2] = {lower_i64(L, 0), lower_i64(L, d)};
        dims[d] = lower_load(L, L->t_i64, lower_gep(L, at, shc, idx, 2, ""), "dim");
    }
    Opnd C;
    LLVMValueRef out = result(L, rty, dims, false, &C);
    LLVMValueRef bs[11] = {lower_i32(L, np_dt_code(n->op_ty)), lower_i32(L, A->nd), A->data, sha, sta,
                           lower_i32(L, B->nd), B->data, shb, stb, C.data, i64_buf(L, C.st, nd, "stc")};
    call_checked(L, "rt_linalg_matmul_nd", bs, 11);
    return np_give(L, out, rty, owned);
}

/* float32/64, complex64/128: the types BLAS multiplies */
static bool blas_type(const Type *t) {
    return t->kind == TY_FLOAT32 || t->kind == TY_FLOAT64 || ty_is_complex(t);
}

/* The array of an operand `alpha * x` or `x * alpha` of a product whose
 * scaling can go to BLAS's alpha instead of a scaled copy of x: x an
 * array already of the product's type dt (a name, a view or an attribute,
 * not another elementwise node) of at most 2 dimensions, alpha a scalar
 * the multiplication converts to dt (it does not promote x).  NULL when
 * the operand is not of that shape; *alpha gets the scalar's node. */
static Node *scaled_operand(Node *e, Type *dt, Node **alpha) {
    if (e->kind != N_ARRAYEXPR || !e->a || e->a->kind != N_BINOP || e->a->op != OP_MUL || e->a->op_ty != dt ||
        !blas_type(dt) || e->ty->kind != TY_ARRAY || e->ty->dtype != dt)
        return NULL;
    Node *x = e->a->a, *s = e->a->b;
    if (s->ty->kind == TY_ARRAY) {
        x = e->a->b;
        s = e->a->a;
    }
    if (s->ty->kind == TY_ARRAY || !ty_is_number(s->ty) || x->ty->kind != TY_ARRAY || x->ty->dtype != dt ||
        x->ty->ndim > 2 || (x->kind != N_NAME && x->kind != N_SUBSCRIPT && x->kind != N_ATTRIBUTE))
        return NULL;
    *alpha = s;
    return x;
}

/* `x @ a[idx]` / np.dot(x, a[idx]) of 1-D operands, idx an integer
 * array (NPBench's spmv: `vals @ x[cols]` per row): rt_linalg_gather_dot
 * reads a's items in place instead of a copy of a[idx], with the copy's
 * bounds checks and the product's exact sums.  gside: which operand
 * gathers.  Python's order: the left operand, then the right one. */
static LLVMValueRef gather_dot(Lower *L, Node *n, int gside) {
    Type *dt = n->op_ty;
    Opnd X;
    LowerGather g;
    if (gside == 1 ? !operand(L, np_arg(n, 0), dt, false, &X) || !lower_fancy_gather(L, np_arg(n, 1), &g)
                   : !lower_fancy_gather(L, np_arg(n, 0), &g) || !operand(L, np_arg(n, 1), dt, false, &X))
        return NULL;
    LLVMValueRef out = scalar_slot(L, dt, NULL);
    int32_t how = (n->builtin == BI_NP_MATMUL ? RT_LA_MATMUL : RT_LA_DOT) | (1 << 2) | (1 << 4);
    LLVMValueRef as[15] = {lower_i32(L, np_dt_code(dt)), lower_i32(L, how), lower_i32(L, gside), X.data,
                           X.dims[0], X.st[0], g.data, g.len, g.stride, g.idx, g.nidx, g.istride,
                           lower_i32(L, np_dt_code(g.ity)), lower_i32(L, g.axis), out};
    call_checked(L, "rt_linalg_gather_dot", as, 15);
    return load_scalar(L, out, dt);
}

/* Which operand of a 1-D product gathers (see gather_dot), -1 if none.  A
 * gathering left operand only before a name: the copy's IndexError would
 * come before anything the right operand may raise. */
static int gather_side(Node *n) {
    Node *ea = np_arg(n, 0), *eb = np_arg(n, 1);
    if ((n->builtin != BI_NP_MATMUL && n->builtin != BI_NP_DOT) || n->ty->kind == TY_ARRAY ||
        ea->ty->kind != TY_ARRAY || eb->ty->kind != TY_ARRAY || ea->ty->ndim != 1 || eb->ty->ndim != 1)
        return -1;
    if (lower_fancy_gathers(eb) && eb->ty->dtype == n->op_ty)
        return 1;
    if (lower_fancy_gathers(ea) && ea->ty->dtype == n->op_ty && eb->kind == N_NAME)
        return 0;
    return -1;
}

/* dot, matmul, vdot, inner: rt_linalg_matmul with the result's shape.
 * `(alpha * A) @ B` and `A @ (alpha * B)` (NPBench's gemm, k2mm, gesummv,
 * gemver) call rt_linalg_matmul_scaled with alpha instead, when both
 * operands have at most 2 dimensions: no scaled copy of the operand. */
static LLVMValueRef product_call(Lower *L, Node *n, bool *owned) {
    BuiltinId id = n->builtin;
    Type *dt = n->op_ty;
    bool vdot = id == BI_NP_VDOT;
    Opnd A, B, C;
    Node *ea = np_arg(n, 0), *eb = np_arg(n, 1), *alpha = NULL, *x;
    int side = -1;
    int gside = gather_side(n);
    if (gside >= 0)
        return gather_dot(L, n, gside);
    if ((id == BI_NP_MATMUL || id == BI_NP_DOT) && ea->ty->kind == TY_ARRAY && eb->ty->kind == TY_ARRAY &&
        ea->ty->ndim <= 2 && eb->ty->ndim <= 2) {
        if ((x = scaled_operand(ea, dt, &alpha)) != NULL) {
            ea = x;
            side = 0;
        } else if ((x = scaled_operand(eb, dt, &alpha)) != NULL) {
            eb = x;
            side = 1;
        }
    }
    /* Python's order: the left operand, then the right; alpha before or
     * after its array as it was written */
    LLVMValueRef av = NULL;
    bool alpha_first = side >= 0 && alpha == np_arg(n, side)->a->a;
    if (side == 0 && alpha_first && !(av = lower_expr_use(L, alpha)))
        return NULL;
    if (!operand(L, ea, dt, vdot, &A))
        return NULL;
    if (side == 0 && !alpha_first && !(av = lower_expr_use(L, alpha)))
        return NULL;
    if (side == 1 && alpha_first && !(av = lower_expr_use(L, alpha)))
        return NULL;
    if (!operand(L, eb, dt, vdot, &B))
        return NULL;
    if (side == 1 && !alpha_first && !(av = lower_expr_use(L, alpha)))
        return NULL;
    if (!vdot && (A.nd > 2 || B.nd > 2))
        return matmul_nd(L, n, &A, &B, owned);
    LLVMValueRef ma = vdot ? flat_of(L, &A, true) : mat_of(L, &A, true);
    LLVMValueRef mb = vdot ? flat_of(L, &B, false) : mat_of(L, &B, false);
    bool inner = id == BI_NP_INNER;
    if (inner && B.nd == 2) { /* inner(a, b) = dot(a, b.T) */
        LLVMValueRef t = B.dims[0];
        B.dims[0] = B.dims[1];
        B.dims[1] = t;
        t = B.st[0];
        B.st[0] = B.st[1];
        B.st[1] = t;
        mb = mat_of(L, &B, false);
    }
    int32_t how = vdot ? RT_LA_VDOT : (id == BI_NP_MATMUL ? RT_LA_MATMUL : RT_LA_DOT);
    how |= (A.nd << 2) | (B.nd << 4);
    Type *rty = n->ty;
    LLVMValueRef out = NULL, slot = NULL, mc = NULL;
    if (rty->kind == TY_ARRAY) {
        LLVMValueRef dims[2];
        int k = 0;
        if (A.nd == 2)
            dims[k++] = A.dims[0];
        if (B.nd == 2)
            dims[k++] = B.dims[1];
        out = result(L, rty, dims, false, &C);
        LLVMValueRef isz = lower_i64(L, ty_itemsize(dt)), one = lower_i64(L, 1);
        if (rty->ndim == 2)
            mc = mat_of(L, &C, false);
        else if (A.nd == 2) /* m x 1 */
            mc = desc(L, C.data, C.dims[0], one, isz, isz);
        else /* 1 x n */
            mc = desc(L, C.data, one, C.dims[0], np_mul(L, C.dims[0], isz), isz);
    } else {
        slot = scalar_slot(L, dt, &mc);
    }
    LLVMValueRef as[7] = {lower_i32(L, np_dt_code(dt)), lower_i32(L, how), ma, mb, mc, NULL, NULL};
    if (side >= 0) {
        LLVMValueRef ap = lower_alloca(L, lower_mem_type(L, dt), "alpha");
        np_store(L, ap, lower_convert(L, alpha, av, alpha->ty, dt), dt);
        as[5] = ap;
        as[6] = lower_i32(L, side);
        call_checked(L, "rt_linalg_matmul_scaled", as, 7);
    } else {
        call_checked(L, "rt_linalg_matmul", as, 5);
    }
    if (out)
        return np_give(L, out, rty, owned);
    return load_scalar(L, slot, dt);
}

static LLVMValueRef kron_call(Lower *L, Node *n, bool *owned) {
    Type *dt = n->op_ty;
    Opnd A, B, C;
    if (!operand(L, np_arg(n, 0), dt, false, &A) || !operand(L, np_arg(n, 1), dt, false, &B))
        return NULL;
    /* a 1-D operand is one row */
    LLVMValueRef one = lower_i64(L, 1);
    LLVMValueRef am = A.nd == 2 ? A.dims[0] : one, an = A.nd == 2 ? A.dims[1] : A.dims[0];
    LLVMValueRef bm = B.nd == 2 ? B.dims[0] : one, bn = B.nd == 2 ? B.dims[1] : B.dims[0];
    LLVMValueRef dims[2] = {np_mul(L, am, bm), np_mul(L, an, bn)};
    if (n->ty->ndim == 1)
        dims[0] = dims[1];
    LLVMValueRef out = result(L, n->ty, dims, false, &C);
    LLVMValueRef as[4] = {lower_i32(L, np_dt_code(dt)), mat_of(L, &A, true), mat_of(L, &B, true), C.data};
    LLVMTypeRef ts[4] = {L->t_i32, L->t_ptr, L->t_ptr, L->t_ptr};
    rt(L, "rt_linalg_kron", L->t_void, ts, 4, as);
    return np_give(L, out, n->ty, owned);
}

static LLVMValueRef outer_call(Lower *L, Node *n, bool *owned) {
    Type *dt = n->op_ty;
    Opnd A, B, C;
    if (!operand(L, np_arg(n, 0), dt, true, &A) || !operand(L, np_arg(n, 1), dt, true, &B))
        return NULL;
    LLVMValueRef dims[2] = {lower_array_field(L, A.v, ARR_NITEMS, "m"), lower_array_field(L, B.v, ARR_NITEMS, "n")};
    /* a strided 1-D operand: made contiguous too */
    if (A.nd == 1) {
        Type *cty = ty_array(tc(L), dt, 1, LAYOUT_C);
        opnd_of(L, np_own(L, np_copy_c(L, A.v, A.ty, cty), cty), cty, &A);
    }
    if (B.nd == 1) {
        Type *cty = ty_array(tc(L), dt, 1, LAYOUT_C);
        opnd_of(L, np_own(L, np_copy_c(L, B.v, B.ty, cty), cty), cty, &B);
    }
    LLVMValueRef out = result(L, n->ty, dims, false, &C);
    LLVMValueRef as[6] = {lower_i32(L, np_dt_code(dt)), A.data, dims[0], B.data, dims[1], C.data};
    LLVMTypeRef ts[6] = {L->t_i32, L->t_ptr, L->t_i64, L->t_ptr, L->t_i64, L->t_ptr};
    rt(L, "rt_linalg_outer", L->t_void, ts, 6, as);
    return np_give(L, out, n->ty, owned);
}

static LLVMValueRef trace_call(Lower *L, Node *n) {
    Opnd A;
    Node *off = np_arg(n, 1);
    if (!operand(L, np_arg(n, 0), n->op_ty, false, &A))
        return NULL;
    LLVMValueRef ov = off ? lower_expr_use(L, off) : lower_i64(L, 0);
    if (!ov)
        return NULL;
    LLVMValueRef slot = scalar_slot(L, n->ty, NULL);
    LLVMValueRef as[5] = {lower_i32(L, np_dt_code(n->op_ty)), mat_of(L, &A, false), ov, lower_i32(L, np_dt_code(n->ty)),
                          slot};
    LLVMTypeRef ts[5] = {L->t_i32, L->t_ptr, L->t_i64, L->t_i32, L->t_ptr};
    rt(L, "rt_linalg_trace", L->t_void, ts, 5, as);
    return load_scalar(L, slot, n->ty);
}

static LLVMValueRef norm_call(Lower *L, Node *n, bool *owned) {
    Opnd A, C;
    Node *ord = np_arg(n, 1), *kind = np_arg(n, 2), *axis = np_arg(n, 3);
    bool flat = kind->cval.i == RT_NORM_FLAT; /* an N-d x as one C vector */
    if (!operand(L, np_arg(n, 0), n->op_ty, flat, &A))
        return NULL;
    LLVMValueRef p = ord ? lower_expr_use(L, ord) : LLVMConstReal(L->t_f64, 0.0);
    if (!p)
        return NULL;
    if (axis) { /* vector norms of the columns (axis 0) or rows (1) */
        int ax = (int)axis->cval.i;
        Type *rty = n->ty;
        LLVMValueRef one = lower_i64(L, 1), dims[2];
        if (rty->ndim == 2) { /* keepdims */
            dims[0] = ax == 0 ? one : A.dims[0];
            dims[1] = ax == 0 ? A.dims[1] : one;
        } else {
            dims[0] = A.dims[1 - ax];
        }
        LLVMValueRef out = result(L, rty, dims, false, &C);
        LLVMValueRef as[8] = {lower_i32(L, np_dt_code(n->op_ty)), mat_of(L, &A, false), lower_i32(L, ax),
                              lower_i32(L, (int32_t)kind->cval.i), p, C.data,
                              lower_i64(L, ty_itemsize(rty->dtype)), lower_i32(L, np_dt_code(rty->dtype))};
        call_checked(L, "rt_linalg_norm_axis", as, 8);
        return np_give(L, out, rty, owned);
    }
    LLVMValueRef out = lower_alloca(L, L->t_f64, "norm");
    LLVMValueRef as[6] = {lower_i32(L, np_dt_code(n->op_ty)), flat ? flat_of(L, &A, false) : mat_of(L, &A, false),
                          lower_i32(L, A.nd == 1 || flat), lower_i32(L, flat ? RT_NORM_NONE : (int32_t)kind->cval.i),
                          p, out};
    call_checked(L, "rt_linalg_norm", as, 6);
    Type *f64 = ty_scalar(tc(L), TY_FLOAT64);
    return lower_convert(L, n, lower_load(L, L->t_f64, out, "norm"), f64, n->ty);
}

/* A square-matrix routine: inv, cholesky (array), det (scalar). */
/* inv, det, cholesky of stacked matrices: the runtime loops over the stack. */
static LLVMValueRef stacked_call(Lower *L, Node *n, Opnd *A, bool *owned) {
    Type *rty = n->ty;
    int op = n->builtin == BI_LA_INV ? RT_STACK_INV : n->builtin == BI_LA_DET ? RT_STACK_DET : RT_STACK_CHOLESKY;
    Opnd C;
    LLVMValueRef out = result(L, rty, A->dims, false, &C);
    LLVMValueRef upper = lower_i32(L, op == RT_STACK_CHOLESKY ? (int32_t)np_arg(n, 1)->cval.i : 0);
    LLVMValueRef as[9] = {lower_i32(L, op), lower_i32(L, np_dt_code(n->op_ty)), lower_i32(L, A->nd), A->data,
                          i64_buf(L, A->dims, A->nd, "sh"), i64_buf(L, A->st, A->nd, "st"), C.data,
                          i64_buf(L, C.st, rty->ndim, "ost"), upper};
    call_checked(L, "rt_linalg_stacked", as, 9);
    return np_give(L, out, rty, owned);
}

static LLVMValueRef square_call(Lower *L, Node *n, bool *owned) {
    Type *dt = n->op_ty;
    Opnd A, C;
    if (!operand(L, np_arg(n, 0), dt, false, &A))
        return NULL;
    if (A.nd > 2)
        return stacked_call(L, n, &A, owned);
    LLVMValueRef code = lower_i32(L, np_dt_code(dt)), ma = mat_of(L, &A, false);
    if (n->builtin == BI_LA_DET) {
        LLVMValueRef slot = scalar_slot(L, dt, NULL);
        LLVMValueRef as[3] = {code, ma, slot};
        call_checked(L, "rt_linalg_det", as, 3);
        return load_scalar(L, slot, dt);
    }
    LLVMValueRef dims[2] = {A.dims[0], A.dims[1]};
    LLVMValueRef out = result(L, n->ty, dims, false, &C);
    if (n->builtin == BI_LA_INV) {
        LLVMValueRef as[3] = {code, ma, mat_of(L, &C, false)};
        call_checked(L, "rt_linalg_inv", as, 3);
    } else {
        LLVMValueRef as[4] = {code, ma, lower_i32(L, (int32_t)np_arg(n, 1)->cval.i), mat_of(L, &C, false)};
        call_checked(L, "rt_linalg_cholesky", as, 4);
    }
    return np_give(L, out, n->ty, owned);
}

static LLVMValueRef solve_call(Lower *L, Node *n, bool *owned) {
    Type *dt = n->op_ty;
    Opnd A, B, X;
    if (!operand(L, np_arg(n, 0), dt, false, &A) || !operand(L, np_arg(n, 1), dt, false, &B))
        return NULL;
    LLVMValueRef out = result(L, n->ty, B.dims, false, &X);
    LLVMValueRef as[5] = {lower_i32(L, np_dt_code(dt)), mat_of(L, &A, false), mat_of(L, &B, false),
                          lower_i32(L, B.nd == 1), mat_of(L, &X, false)};
    call_checked(L, "rt_linalg_solve", as, 5);
    return np_give(L, out, n->ty, owned);
}

static LLVMValueRef tuple_of(Lower *L, Type *t, LLVMValueRef *v, int k) {
    LLVMValueRef tup = LLVMGetUndef(lower_type(L, t));
    for (int i = 0; i < k; i++)
        tup = LLVMBuildInsertValue(L->b, tup, v[i], (unsigned)i, "");
    return tup;
}

static LLVMValueRef eigh_call(Lower *L, Node *n, bool *owned) {
    Type *dt = n->op_ty;
    bool general = n->builtin == BI_LA_EIG || n->builtin == BI_LA_EIGVALS;
    bool vecs = n->builtin == BI_LA_EIGH || n->builtin == BI_LA_EIG;
    Opnd A, W, V;
    if (!operand(L, np_arg(n, 0), dt, false, &A))
        return NULL;
    Type *wty = vecs ? n->ty->elems[0] : n->ty;
    LLVMValueRef w = result(L, wty, A.dims, false, &W), v = NULL, mv = LLVMConstNull(L->t_ptr);
    if (vecs) {
        LLVMValueRef dims[2] = {A.dims[0], A.dims[0]};
        v = result(L, n->ty->elems[1], dims, false, &V);
        mv = mat_of(L, &V, false);
    }
    if (general) {
        LLVMValueRef as[4] = {lower_i32(L, np_dt_code(dt)), mat_of(L, &A, false), mat_of(L, &W, false), mv};
        LLVMTypeRef ts[4] = {L->t_i32, L->t_ptr, L->t_ptr, L->t_ptr};
        lower_check_status(L, rt(L, "rt_linalg_eig", L->t_i32, ts, 4, as));
    } else {
        LLVMValueRef as[5] = {lower_i32(L, np_dt_code(dt)), mat_of(L, &A, false),
                              lower_i32(L, (int32_t)np_arg(n, 1)->cval.i), mat_of(L, &W, false), mv};
        LLVMTypeRef ts[5] = {L->t_i32, L->t_ptr, L->t_i32, L->t_ptr, L->t_ptr};
        lower_check_status(L, rt(L, "rt_linalg_eigh", L->t_i32, ts, 5, as));
    }
    if (!vecs)
        return np_give(L, w, wty, owned);
    LLVMValueRef parts[2] = {w, v};
    return np_give(L, tuple_of(L, n->ty, parts, 2), n->ty, owned);
}

static LLVMValueRef svd_call(Lower *L, Node *n, bool *owned) {
    Type *dt = n->op_ty;
    bool full = np_arg(n, 1)->cval.i != 0, uv = np_arg(n, 2)->cval.i != 0;
    Opnd A, U, S, VT;
    if (!operand(L, np_arg(n, 0), dt, false, &A))
        return NULL;
    LLVMValueRef m = A.dims[0], nn = A.dims[1];
    LLVMValueRef k = np_sel(L, LLVMBuildICmp(L->b, LLVMIntSLT, m, nn, ""), m, nn);
    Type *sty = uv ? n->ty->elems[1] : n->ty;
    LLVMValueRef u = NULL, vt = NULL, mu = LLVMConstNull(L->t_ptr), mvt = mu;
    if (uv) {
        LLVMValueRef ud[2] = {m, full ? m : k}, vd[2] = {full ? nn : k, nn};
        u = result(L, n->ty->elems[0], ud, false, &U);
        vt = result(L, n->ty->elems[2], vd, false, &VT);
        mu = mat_of(L, &U, false);
        mvt = mat_of(L, &VT, false);
    }
    LLVMValueRef s = result(L, sty, &k, false, &S);
    LLVMValueRef as[6] = {lower_i32(L, np_dt_code(dt)), mat_of(L, &A, false), lower_i32(L, full), mu, mat_of(L, &S, false),
                          mvt};
    LLVMTypeRef ts[6] = {L->t_i32, L->t_ptr, L->t_i32, L->t_ptr, L->t_ptr, L->t_ptr};
    lower_check_status(L, rt(L, "rt_linalg_svd", L->t_i32, ts, 6, as));
    if (!uv)
        return np_give(L, s, sty, owned);
    LLVMValueRef parts[3] = {u, s, vt};
    return np_give(L, tuple_of(L, n->ty, parts, 3), n->ty, owned);
}

static LLVMValueRef qr_call(Lower *L, Node *n, bool *owned) {
    Type *dt = n->op_ty;
    int mode = (int)np_arg(n, 1)->cval.i; /* reduced, complete, r */
    Opnd A, Q, R;
    if (!operand(L, np_arg(n, 0), dt, false, &A))
        return NULL;
    LLVMValueRef m = A.dims[0], nn = A.dims[1];
    LLVMValueRef k = np_sel(L, LLVMBuildICmp(L->b, LLVMIntSLT, m, nn, ""), m, nn);
    LLVMValueRef qd[2] = {m, mode == 1 ? m : k}, rd[2] = {mode == 1 ? m : k, nn};
    Type *rty = mode == 2 ? n->ty : n->ty->elems[1];
    LLVMValueRef q = NULL, mq = LLVMConstNull(L->t_ptr);
    if (mode != 2) {
        q = result(L, n->ty->elems[0], qd, false, &Q);
        mq = mat_of(L, &Q, false);
    }
    LLVMValueRef r = result(L, rty, rd, false, &R);
    LLVMValueRef as[4] = {lower_i32(L, np_dt_code(dt)), mat_of(L, &A, false), mq, mat_of(L, &R, false)};
    LLVMTypeRef ts[4] = {L->t_i32, L->t_ptr, L->t_ptr, L->t_ptr};
    lower_check_status(L, rt(L, "rt_linalg_qr", L->t_i32, ts, 4, as));
    if (mode == 2)
        return np_give(L, r, rty, owned);
    LLVMValueRef parts[2] = {q, r};
    return np_give(L, tuple_of(L, n->ty, parts, 2), n->ty, owned);
}

static LLVMValueRef lstsq_call(Lower *L, Node *n, bool *owned) {
    Type *dt = n->op_ty;
    Node *rc = np_arg(n, 2);
    Opnd A, B, X, R, S;
    if (!operand(L, np_arg(n, 0), dt, false, &A) || !operand(L, np_arg(n, 1), dt, false, &B))
        return NULL;
    LLVMValueRef rcv = rc ? lower_expr_use(L, rc) : LLVMConstReal(L->t_f64, __builtin_nan(""));
    if (!rcv)
        return NULL;
    LLVMValueRef m = A.dims[0], nn = A.dims[1];
    LLVMValueRef k = np_sel(L, LLVMBuildICmp(L->b, LLVMIntSLT, m, nn, ""), m, nn);
    LLVMValueRef nrhs = B.nd == 2 ? B.dims[1] : lower_i64(L, 1);
    LLVMValueRef xd[2] = {nn, nrhs};
    Type *xty = n->ty->elems[0], *rty = n->ty->elems[1], *sty = n->ty->elems[3];
    LLVMValueRef x = result(L, xty, xd, false, &X);
    LLVMValueRef res = result(L, rty, &nrhs, true, &R);
    LLVMValueRef s = result(L, sty, &k, false, &S);
    LLVMValueRef nres = lower_alloca(L, L->t_i64, "nres"), rank = lower_alloca(L, L->t_i64, "rank");
    LLVMValueRef mx = xty->ndim == 2 ? mat_of(L, &X, false)
                                     : desc(L, X.data, nn, lower_i64(L, 1), X.st[0], lower_i64(L, 0));
    LLVMValueRef as[9] = {lower_i32(L, np_dt_code(dt)), mat_of(L, &A, false), mat_of(L, &B, false), rcv, mx,
                          mat_of(L, &R, false), nres, rank, mat_of(L, &S, false)};
    call_checked(L, "rt_linalg_lstsq", as, 9);
    /* residuals: a view of the first *nres items (0 when rank < n or m <= n) */
    LLVMValueRef cnt = lower_load(L, L->t_i64, nres, "nres");
    LLVMValueRef isz = lower_i64(L, ty_itemsize(rty->dtype));
    LLVMValueRef rv = np_view(L, res, rty, R.data, &cnt, &isz);
    LLVMValueRef parts[4] = {x, rv, lower_load(L, L->t_i64, rank, "rank"), s};
    lower_incref(L, x, xty);
    lower_incref(L, s, sty);
    *owned = true;
    return tuple_of(L, n->ty, parts, 4);
}

/* slogdet, matrix_rank, cond (scalars) and pinv, matrix_power (arrays). */
static LLVMValueRef misc_call(Lower *L, Node *n, bool *owned) {
    Type *dt = n->op_ty;
    Opnd A, C;
    if (!operand(L, np_arg(n, 0), dt, false, &A))
        return NULL;
    LLVMValueRef code = lower_i32(L, np_dt_code(dt)), ma = mat_of(L, &A, false);
    switch (n->builtin) {
    case BI_LA_SLOGDET: {
        Type *rt = n->ty->elems[1];
        LLVMValueRef sign = scalar_slot(L, dt, NULL), ld = scalar_slot(L, rt, NULL);
        LLVMValueRef as[4] = {code, ma, sign, ld};
        call_checked(L, "rt_linalg_slogdet", as, 4);
        LLVMValueRef parts[2] = {load_scalar(L, sign, dt), load_scalar(L, ld, rt)};
        return tuple_of(L, n->ty, parts, 2);
    }
    case BI_LA_MATRIX_RANK:
    case BI_LA_COND: {
        bool rank = n->builtin == BI_LA_MATRIX_RANK;
        Node *tol = np_arg(n, 1);
        LLVMValueRef out = lower_alloca(L, rank ? L->t_i64 : L->t_f64, "out");
        if (rank) {
            LLVMValueRef tv = tol ? lower_expr_use(L, tol) : LLVMConstReal(L->t_f64, __builtin_nan(""));
            if (!tv)
                return NULL;
            LLVMValueRef as[4] = {code, ma, tv, out};
            call_checked(L, "rt_linalg_matrix_rank", as, 4);
            return lower_load(L, L->t_i64, out, "rank");
        }
        LLVMValueRef pv = tol ? lower_expr_use(L, tol) : LLVMConstReal(L->t_f64, 0.0);
        if (!pv)
            return NULL;
        LLVMValueRef as[5] = {code, ma, lower_i32(L, (int32_t)np_arg(n, 2)->cval.i), pv, out};
        call_checked(L, "rt_linalg_cond", as, 5);
        return lower_convert(L, n, lower_load(L, L->t_f64, out, "cond"), ty_scalar(tc(L), TY_FLOAT64), n->ty);
    }
    case BI_LA_PINV: {
        Node *rc = np_arg(n, 1);
        LLVMValueRef rv = rc ? lower_expr_use(L, rc) : LLVMConstReal(L->t_f64, 1e-15);
        if (!rv)
            return NULL;
        LLVMValueRef dims[2] = {A.dims[1], A.dims[0]};
        LLVMValueRef res = result(L, n->ty, dims, false, &C);
        LLVMValueRef as[4] = {code, ma, rv, mat_of(L, &C, false)};
        call_checked(L, "rt_linalg_pinv", as, 4);
        return np_give(L, res, n->ty, owned);
    }
    default: { /* matrix_power */
        LLVMValueRef pw = lower_expr_use(L, np_arg(n, 1));
        if (!pw)
            return NULL;
        LLVMValueRef dims[2] = {A.dims[0], A.dims[1]};
        LLVMValueRef res = result(L, n->ty, dims, false, &C);
        LLVMValueRef as[4] = {code, ma, pw, mat_of(L, &C, false)};
        call_checked(L, "rt_linalg_matrix_power", as, 4);
        return np_give(L, res, n->ty, owned);
    }
    }
}

LLVMValueRef lower_linalg_call(Lower *L, Node *n, bool *owned) {
    switch (n->builtin) {
    case BI_NP_DOT: case BI_NP_MATMUL: case BI_NP_VDOT: case BI_NP_INNER: return product_call(L, n, owned);
    case BI_NP_KRON: return kron_call(L, n, owned);
    case BI_NP_OUTER: return outer_call(L, n, owned);
    case BI_NP_TRACE: return trace_call(L, n);
    case BI_LA_NORM: return norm_call(L, n, owned);
    case BI_LA_SOLVE: return solve_call(L, n, owned);
    case BI_LA_INV: case BI_LA_DET: case BI_LA_CHOLESKY: return square_call(L, n, owned);
    case BI_LA_EIGH: case BI_LA_EIGVALSH: case BI_LA_EIG: case BI_LA_EIGVALS: return eigh_call(L, n, owned);
    case BI_LA_SVD: return svd_call(L, n, owned);
    case BI_LA_QR: return qr_call(L, n, owned);
    case BI_LA_LSTSQ: return lstsq_call(L, n, owned);
    case BI_LA_SLOGDET: case BI_LA_PINV: case BI_LA_MATRIX_RANK: case BI_LA_COND: case BI_LA_MATRIX_POWER:
        return misc_call(L, n, owned);
    default: break;
    }
    return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "%s() is not supported in compiled code", builtin_name(n->builtin));
}
