/* lower_index.c - array subscripts with slices, None and `...` (views of
 * the same memory), boolean masks and advanced (integer or 1-D boolean
 * array) indices, several broadcast together (copies), and scalar/array
 * stores through them.  The node forms are
 * IDX_BASIC/IDX_MASK/IDX_FANCY (ast.h, docs/TYPED_AST.md).
 *
 * Views are described while being built by a data pointer plus per-axis
 * shape and byte strides in registers; only a view that is a value gets
 * packed into an array struct (sharing the meminfo and parent, +1 ref). */
#include "lower.h"

#define MAXD HJ_MAX_NDIM_LOWER

typedef struct View {
    LLVMValueRef data;
    int nd;
    LLVMValueRef shape[MAXD], strides[MAXD];
} View;

/* ---- loops -------------------------------------------------------------- */

typedef struct Loop {
    LLVMBasicBlockRef pre, head, body;
    LLVMValueRef i;
} Loop;

static void loop_begin(Lower *L, Loop *lp, LLVMValueRef n) {
    lp->pre = LLVMGetInsertBlock(L->b);
    lp->head = lower_block(L, "ix.head");
    lp->body = lower_block(L, "ix.body");
    LLVMBuildBr(L->b, lp->head);
    lower_at(L, lp->head);
    lp->i = LLVMBuildPhi(L->b, L->t_i64, "ix.k");
    LLVMBasicBlockRef end = lower_block(L, "ix.end");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, lp->i, n, ""), lp->body, end);
    /* the end block is found again through the head's terminator */
    lower_at(L, lp->body);
}

static void loop_end(Lower *L, Loop *lp) {
    LLVMValueRef next = LLVMBuildNSWAdd(L->b, lp->i, lower_i64(L, 1), "ix.next");
    LLVMBasicBlockRef last = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, lp->head);
    LLVMValueRef in[2] = {lower_i64(L, 0), next};
    LLVMBasicBlockRef from[2] = {lp->pre, last};
    LLVMAddIncoming(lp->i, in, from, 2);
    LLVMBasicBlockRef end = LLVMGetSuccessor(LLVMGetBasicBlockTerminator(lp->head), 1);
    lower_at(L, end);
}

static LLVMValueRef load_elem(Lower *L, LLVMValueRef p, Type *dt) {
    if (dt->kind == TY_RECORD) /* a record: its address (lower_record.c) */
        return p;
    LLVMValueRef v = lower_load(L, lower_mem_type(L, dt), p, "elem");
    LLVMSetAlignment(v, (unsigned)ty_itemsize(dt));
    return lower_from_mem(L, v, dt);
}

static void store_elem(Lower *L, LLVMValueRef p, LLVMValueRef v, Type *dt) {
    if (dt->kind == TY_RECORD) { /* a record: its bytes */
        lower_record_put(L, p, v, dt);
        return;
    }
    LLVMValueRef st = LLVMBuildStore(L->b, lower_to_mem(L, v, dt), p);
    LLVMSetAlignment(st, (unsigned)ty_itemsize(dt));
}

static LLVMValueRef byte_gep(Lower *L, LLVMValueRef p, LLVMValueRef off) {
    return LLVMBuildGEP2(L->b, L->t_i8, p, &off, 1, "");
}

/* Visit every element of `nd` axes (shape[]) of up to two strided operands
 * in C order; fn gets the element pointers. */
typedef void (*ElemFn)(Lower *L, LLVMValueRef *p, void *ctx);

static void walk(Lower *L, int d, int nd, LLVMValueRef *shape, int np, LLVMValueRef *p,
                 LLVMValueRef (*strides)[MAXD], ElemFn fn, void *ctx) {
    if (d == nd) {
        fn(L, p, ctx);
        return;
    }
    Loop lp;
    loop_begin(L, &lp, shape[d]);
    LLVMValueRef q[2];
    for (int j = 0; j < np; j++)
        q[j] = byte_gep(L, p[j], LLVMBuildMul(L->b, lp.i, strides[j][d], ""));
    walk(L, d + 1, nd, shape, np, q, strides, fn, ctx);
    loop_end(L, &lp);
}

/* ---- views -------------------------------------------------------------- */

static void view_of(Lower *L, LLVMValueRef arr, Type *aty, View *v) {
    v->data = lower_array_field(L, arr, ARR_DATA, "data");
    v->nd = aty->ndim;
    for (int d = 0; d < aty->ndim; d++) {
        v->shape[d] = lower_array_dim(L, arr, ARR_SHAPE, d);
        v->strides[d] = lower_array_dim(L, arr, ARR_STRIDES, d);
    }
}

/* Wrap a negative index, then (when `check`) raise IndexError unless
 * 0 <= i < dim. */
static LLVMValueRef wrap(Lower *L, LLVMValueRef i, LLVMValueRef dim, int axis, bool check, bool is_signed) {
    LLVMValueRef w = i;
    if (is_signed)
        w = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, i, lower_i64(L, 0), ""),
                            LLVMBuildAdd(L->b, i, dim, ""), i, "idx");
    if (check) {
        LLVMBasicBlockRef ok = lower_branch_raise(L, LLVMBuildICmp(L->b, LLVMIntUGE, w, dim, ""), "index.error");
        LLVMTypeRef p[3] = {L->t_i64, L->t_i64, L->t_i64};
        LLVMValueRef a[3] = {i, lower_i64(L, axis), dim};
        lower_rt(L, "rt_raise_index", L->t_void, p, 3, a);
        lower_goto_error(L);
        lower_at(L, ok);
    }
    return w;
}

static LLVMValueRef sel(Lower *L, LLVMValueRef c, LLVMValueRef a, LLVMValueRef b) {
    return LLVMBuildSelect(L->b, c, a, b, "");
}

static LLVMValueRef slt(Lower *L, LLVMValueRef a, LLVMValueRef b) {
    return LLVMBuildICmp(L->b, LLVMIntSLT, a, b, "");
}

/* One bound of a slice clipped as Python does (PySlice_AdjustIndices). */
static LLVMValueRef clip_bound(Lower *L, LLVMValueRef x, LLVMValueRef n, LLVMValueRef neg) {
    LLVMValueRef zero = lower_i64(L, 0), m1 = lower_i64(L, -1);
    LLVMValueRef nm1 = LLVMBuildSub(L->b, n, lower_i64(L, 1), "");
    LLVMValueRef isneg = slt(L, x, zero);
    LLVMValueRef w = sel(L, isneg, LLVMBuildAdd(L->b, x, n, ""), x);
    LLVMValueRef lo = sel(L, neg, m1, zero), hi = sel(L, neg, nm1, n);
    w = sel(L, slt(L, w, zero), lo, w);
    return sel(L, LLVMBuildICmp(L->b, LLVMIntSGE, w, n, ""), hi, w);
}

/* start and element count of slice s over an axis of length n. */
static bool slice_params(Lower *L, Node *s, LLVMValueRef n, LLVMValueRef *start, LLVMValueRef *count,
                         LLVMValueRef *step) {
    LLVMValueRef zero = lower_i64(L, 0), one = lower_i64(L, 1);
    LLVMValueRef st = one, a = NULL, b = NULL;
    if (s->c) {
        if (!(st = lower_expr_use(L, s->c)))
            return false;
        lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntEQ, st, zero, ""), "ValueError", "slice step cannot be zero");
    }
    if (s->a && !(a = lower_expr_use(L, s->a)))
        return false;
    if (s->b && !(b = lower_expr_use(L, s->b)))
        return false;
    LLVMValueRef neg = slt(L, st, zero);
    LLVMValueRef lo = a ? clip_bound(L, a, n, neg) : sel(L, neg, LLVMBuildSub(L->b, n, one, ""), zero);
    LLVMValueRef hi = b ? clip_bound(L, b, n, neg) : sel(L, neg, lower_i64(L, -1), n);
    /* neg: start > stop ? (start - stop - 1) / -step + 1 : 0; pos: mirrored */
    LLVMValueRef span = sel(L, neg, LLVMBuildSub(L->b, lo, hi, ""), LLVMBuildSub(L->b, hi, lo, ""));
    LLVMValueRef astep = sel(L, neg, LLVMBuildNeg(L->b, st, ""), st);
    LLVMValueRef cnt = LLVMBuildAdd(L->b, LLVMBuildSDiv(L->b, LLVMBuildSub(L->b, span, one, ""), astep, ""), one, "");
    *count = sel(L, LLVMBuildICmp(L->b, LLVMIntSGT, span, zero, ""), cnt, zero);
    *start = lo;
    *step = st;
    return true;
}

/* An advanced index array (the section "advanced indices" below). */
typedef struct Adv {
    LLVMValueRef arr;        /* the index array (int64 positions for a boolean one) */
    Type *ity;               /* its type */
    int axis;                /* the source axis it indexes */
    LLVMValueRef dim, stride; /* that axis: length and byte stride */
    LLVMValueRef istr[MAXD]; /* its byte strides over B (0 where broadcast) */
} Adv;

typedef struct Fancy {
    View rest;              /* the other axes; integer items folded into data */
    int pos;                /* where B's axes go in the result */
    int nadv, nb;           /* index arrays; B's ndim */
    Adv adv[MAXD];
    Node *anode[MAXD];      /* the index arrays' nodes */
    LLVMValueRef bshape[MAXD];
} Fancy;

/* The positions of the true items of the 1-D boolean array b, which must
 * have the axis's length: a new int64 array (a temporary of the statement). */
/* Apply the items of an IDX_BASIC or IDX_FANCY index to `src`: the view of
 * the slices and None items, integer items folded into its data.  The
 * array items of an IDX_FANCY index go to *f (their axes, and where the
 * broadcast axes go: NumPy's placement rule). */
static bool apply_items(Lower *L, Node *n, const View *src, View *out, Fancy *f) {
    Node *ix = n->b;
    int d = 0, first = -1, before = 0;
    bool gap = false, basic_since = false;
    LLVMValueRef off = lower_i64(L, 0);
    out->nd = 0;
    if (f)
        f->nadv = 0;
    for (int i = 0; i < ix->args.len; i++) {
        Node *e = VEC_AT(ix->args, i);
        if (out->nd >= MAXD || d > src->nd) {
            lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "too many dimensions");
            return false;
        }
        /* integers and arrays are the advanced items; a slice or None between two separates them */
        bool adv = e->kind != N_SLICE && e->ty->kind != TY_NONE;
        if (adv && first < 0)
            first = i, before = out->nd;
        else if (adv && basic_since)
            gap = true;
        basic_since = first >= 0 && !adv;
        if (e->kind == N_SLICE) {
            LLVMValueRef start, count, step;
            if (d >= src->nd || !slice_params(L, e, src->shape[d], &start, &count, &step))
                return d < src->nd ? false : (lower_fail(L, n, HJ_DIAG_LOWERING, "bad slice"), false);
            off = LLVMBuildAdd(L->b, off, LLVMBuildMul(L->b, start, src->strides[d], ""), "");
            out->shape[out->nd] = count;
            out->strides[out->nd++] = LLVMBuildMul(L->b, src->strides[d], step, "");
            d++;
        } else if (e->ty->kind == TY_NONE) {
            out->shape[out->nd] = lower_i64(L, 1);
            out->strides[out->nd++] = lower_i64(L, 0);
        } else if (e->ty->kind == TY_ARRAY) {
            if (!f || d >= src->nd)
                return lower_fail(L, n, HJ_DIAG_LOWERING, "bad array index"), false;
            Adv *a = &f->adv[f->nadv];
            f->anode[f->nadv++] = e;
            a->axis = d;
            a->dim = src->shape[d];
            a->stride = src->strides[d];
            d++;
        } else {
            LLVMValueRef v = lower_expr_use(L, e);
            if (!v || d >= src->nd)
                return v ? (lower_fail(L, n, HJ_DIAG_LOWERING, "bad index"), false) : false;
            LLVMValueRef w = wrap(L, v, src->shape[d], d, L->boundscheck, true);
            off = LLVMBuildAdd(L->b, off, LLVMBuildMul(L->b, w, src->strides[d], ""), "");
            d++;
        }
    }
    if (d != src->nd) {
        lower_fail(L, n, HJ_DIAG_LOWERING, "index does not cover every axis");
        return false;
    }
    if (f)
        f->pos = gap ? 0 : before;
    out->data = byte_gep(L, src->data, off);
    return true;
}

/* A view value of type rty over v, sharing arr's meminfo and parent: a
 * reference of its own unless `borrowed`. */
static LLVMValueRef pack_view(Lower *L, LLVMValueRef arr, const View *v, Type *rty, bool borrowed) {
    LLVMTypeRef dims_t = LLVMArrayType2(L->t_i64, (uint64_t)v->nd);
    LLVMValueRef shape = LLVMGetUndef(dims_t), strides = LLVMGetUndef(dims_t);
    LLVMValueRef nitems = lower_i64(L, 1);
    for (int d = 0; d < v->nd; d++) {
        nitems = LLVMBuildMul(L->b, nitems, v->shape[d], "");
        shape = LLVMBuildInsertValue(L->b, shape, v->shape[d], (unsigned)d, "");
        strides = LLVMBuildInsertValue(L->b, strides, v->strides[d], (unsigned)d, "");
    }
    LLVMValueRef r = LLVMGetUndef(lower_type(L, rty));
    r = LLVMBuildInsertValue(L->b, r, lower_array_field(L, arr, ARR_MEMINFO, ""), ARR_MEMINFO, "");
    r = LLVMBuildInsertValue(L->b, r, lower_array_field(L, arr, ARR_PARENT, ""), ARR_PARENT, "");
    r = LLVMBuildInsertValue(L->b, r, nitems, ARR_NITEMS, "");
    r = LLVMBuildInsertValue(L->b, r, lower_array_field(L, arr, ARR_ITEMSIZE, ""), ARR_ITEMSIZE, "");
    r = LLVMBuildInsertValue(L->b, r, v->data, ARR_DATA, "");
    r = LLVMBuildInsertValue(L->b, r, shape, ARR_SHAPE, "");
    r = LLVMBuildInsertValue(L->b, r, strides, ARR_STRIDES, "view");
    if (!borrowed)
        lower_incref(L, r, rty);
    return r;
}

/* The base array of n and the view its items select. */
static bool basic_view(Lower *L, Node *n, LLVMValueRef *arr, View *v) {
    Type *aty = n->a->ty;
    if (aty->ndim > MAXD)
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "too many dimensions"), false;
    if (!(*arr = lower_expr_use(L, n->a)))
        return false;
    View src;
    view_of(L, *arr, aty, &src);
    return apply_items(L, n, &src, v, NULL);
}

static LLVMValueRef index_view(Lower *L, Node *n, bool borrowed) {
    LLVMValueRef arr;
    View v;
    Type *rty = n->op_ty && n->op_ty->kind == TY_ARRAY ? n->op_ty : n->ty;
    if (n->idx_kind != IDX_BASIC || rty->kind != TY_ARRAY)
        return lower_fail(L, n, HJ_DIAG_LOWERING, "not a view subscript");
    if (!basic_view(L, n, &arr, &v))
        return NULL;
    if (v.nd != rty->ndim)
        return lower_fail(L, n, HJ_DIAG_LOWERING, "view of the wrong type");
    return pack_view(L, arr, &v, rty, borrowed);
}

LLVMValueRef lower_index_view(Lower *L, Node *n) { return index_view(L, n, false); }

LLVMValueRef lower_index_view_borrowed(Lower *L, Node *n) { return index_view(L, n, true); }

/* ---- element visitors --------------------------------------------------- */

typedef struct Ctx {
    Lower *L;
    Node *at;              /* for diagnostics of conversions */
    Type *sdt, *ddt;       /* element types (source, destination) */
    LLVMValueRef value;    /* scalar to store */
    LLVMValueRef counter;  /* alloca i64 */
    LLVMValueRef out;      /* destination base pointer (mask reads) */
    LLVMValueRef vdata, vstride, vstep; /* array value: data, stride, 0 or 1 */
} Ctx;

static void count_true(Lower *L, LLVMValueRef *p, void *cx) {
    Ctx *c = cx;
    LLVMValueRef m = load_elem(L, p[0], c->sdt);
    LLVMValueRef k = lower_load(L, L->t_i64, c->counter, "");
    LLVMBuildStore(L->b, LLVMBuildAdd(L->b, k, LLVMBuildZExt(L->b, m, L->t_i64, ""), ""), c->counter);
}

static void copy_elem(Lower *L, LLVMValueRef *p, void *cx) {
    Ctx *c = cx;
    store_elem(L, p[0], lower_convert(L, c->at, load_elem(L, p[1], c->sdt), c->sdt, c->ddt), c->ddt);
}

static void fill_elem(Lower *L, LLVMValueRef *p, void *cx) {
    Ctx *c = cx;
    store_elem(L, p[0], c->value, c->ddt);
}

/* For a set mask item: out[k++] = *p (read) or *p = value / value[k++] (write). */
static void mask_hit(Lower *L, LLVMValueRef p, Ctx *c, bool read) {
    LLVMValueRef k = lower_load(L, L->t_i64, c->counter, "");
    if (read) {
        LLVMValueRef dst = LLVMBuildGEP2(L->b, lower_elem_type(L, c->ddt), c->out, &k, 1, "");
        store_elem(L, dst, load_elem(L, p, c->sdt), c->ddt);
    } else if (c->vdata) {
        LLVMValueRef off = LLVMBuildMul(L->b, LLVMBuildMul(L->b, k, c->vstep, ""), c->vstride, "");
        LLVMValueRef x = load_elem(L, byte_gep(L, c->vdata, off), c->sdt);
        store_elem(L, p, lower_convert(L, c->at, x, c->sdt, c->ddt), c->ddt);
    } else {
        store_elem(L, p, c->value, c->ddt);
    }
    LLVMBuildStore(L->b, LLVMBuildAdd(L->b, k, lower_i64(L, 1), ""), c->counter);
}

/* if mask (p[1]) is set: mask_hit on p[0] */
static void masked(Lower *L, LLVMValueRef *p, void *cx, bool read) {
    Ctx *c = cx;
    LLVMValueRef m = load_elem(L, p[1], ty_scalar(L->c->tc, TY_BOOL));
    LLVMBasicBlockRef yes = lower_block(L, "mask.yes"), next = lower_block(L, "mask.next");
    LLVMBuildCondBr(L->b, m, yes, next);
    lower_at(L, yes);
    mask_hit(L, p[0], c, read);
    LLVMBuildBr(L->b, next);
    lower_at(L, next);
}

static void mask_read(Lower *L, LLVMValueRef *p, void *cx) { masked(L, p, cx, true); }
static void mask_write(Lower *L, LLVMValueRef *p, void *cx) { masked(L, p, cx, false); }

/* ---- boolean masks ------------------------------------------------------- */

/* The array and its mask (same shape, else IndexError). */
static bool mask_operands(Lower *L, Node *n, View *a, View *m) {
    Type *aty = n->a->ty, *mty = n->b->ty;
    if (aty->ndim > MAXD || mty->ndim != aty->ndim)
        return lower_fail(L, n, HJ_DIAG_LOWERING, "mask of the wrong shape"), false;
    LLVMValueRef arr = lower_expr_use(L, n->a);
    if (!arr)
        return false;
    LLVMValueRef mask = lower_expr_use(L, n->b);
    if (!mask)
        return false;
    view_of(L, arr, aty, a);
    view_of(L, mask, mty, m);
    LLVMValueRef bad = LLVMConstInt(L->t_i1, 0, 0);
    for (int d = 0; d < aty->ndim; d++)
        bad = LLVMBuildOr(L->b, bad, LLVMBuildICmp(L->b, LLVMIntNE, a->shape[d], m->shape[d], ""), "");
    lower_raise_if(L, bad, "IndexError", "boolean index did not match indexed array");
    return true;
}

static LLVMValueRef count_mask(Lower *L, const View *m, Ctx *c) {
    c->sdt = ty_scalar(L->c->tc, TY_BOOL);
    c->counter = lower_alloca(L, L->t_i64, "count");
    LLVMBuildStore(L->b, lower_i64(L, 0), c->counter);
    LLVMValueRef p[1] = {m->data};
    LLVMValueRef st[1][MAXD];
    for (int d = 0; d < m->nd; d++)
        st[0][d] = m->strides[d];
    walk(L, 0, m->nd, (LLVMValueRef *)m->shape, 1, p, st, count_true, c);
    return lower_load(L, L->t_i64, c->counter, "count");
}

static void walk2(Lower *L, const View *a, const View *b, ElemFn fn, Ctx *c) {
    LLVMValueRef p[2] = {a->data, b->data};
    LLVMValueRef st[2][MAXD];
    for (int d = 0; d < a->nd; d++)
        st[0][d] = a->strides[d], st[1][d] = b->strides[d];
    walk(L, 0, a->nd, (LLVMValueRef *)a->shape, 2, p, st, fn, c);
}

/* i1: v, of type t, is C-contiguous (a constant when t's layout says so). */
static LLVMValueRef c_contiguous(Lower *L, const View *v, const Type *t) {
    LLVMValueRef ok = LLVMConstInt(L->t_i1, 1, 0), want = lower_i64(L, ty_itemsize(t->dtype)), one = lower_i64(L, 1);
    if (t->layout == LAYOUT_C)
        return ok;
    for (int d = v->nd - 1; d >= 0; d--) {
        LLVMValueRef fits = LLVMBuildOr(L->b, LLVMBuildICmp(L->b, LLVMIntSLE, v->shape[d], one, ""),
                                        LLVMBuildICmp(L->b, LLVMIntEQ, v->strides[d], want, ""), "");
        ok = LLVMBuildAnd(L->b, ok, fits, "");
        want = LLVMBuildMul(L->b, want, v->shape[d], "");
    }
    return ok;
}

#define MASK_BLOCK 32

/* mask_hit for each set item of the mask m over the n items of a, both
 * C-contiguous: MASK_BLOCK mask bytes compared at once, a block with none
 * set skipped, and in the others only the set ones visited (lowest bit
 * first: the items' order).  A sparse mask (NPBench azimint_naive: about
 * one item in a thousand) costs one compare per block instead of a load
 * and a branch per item. */
static void mask_blocks(Lower *L, const View *a, const View *m, LLVMValueRef n, Ctx *c, bool read) {
    int64_t size = ty_itemsize(read ? c->sdt : c->ddt);
    LLVMTypeRef vt = LLVMVectorType(L->t_i8, MASK_BLOCK), bt = LLVMIntTypeInContext(L->ctx, MASK_BLOCK);
    LLVMValueRef nb = LLVMBuildSDiv(L->b, n, lower_i64(L, MASK_BLOCK), "mask.blocks");
    /* a scalar stored: a block with items set gets one pass of selects
     * (vector blends) over its 32 items, not a branch per set item (a dense
     * mask mispredicts half of them) */
    bool blend = !read && !c->vdata && c->ddt->kind != TY_RECORD;
    Loop lp;
    loop_begin(L, &lp, nb);
    LLVMValueRef j0 = LLVMBuildMul(L->b, lp.i, lower_i64(L, MASK_BLOCK), "");
    LLVMValueRef v = lower_load(L, vt, byte_gep(L, m->data, j0), "mask.v");
    LLVMSetAlignment(v, 1);
    LLVMValueRef bits = LLVMBuildBitCast(L->b, LLVMBuildICmp(L->b, LLVMIntNE, v, LLVMConstNull(vt), ""), bt, "");
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(L->b), hit = lower_block(L, "mask.hit"),
                      done = lower_block(L, "mask.done");
    if (blend) {
        LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntNE, bits, LLVMConstNull(bt), ""), hit, done);
        lower_at(L, hit);
        Loop sl;
        loop_begin(L, &sl, lower_i64(L, MASK_BLOCK));
        LLVMValueRef jj = LLVMBuildAdd(L->b, j0, sl.i, "");
        LLVMValueRef mb = lower_load(L, L->t_i8, byte_gep(L, m->data, jj), "");
        LLVMSetAlignment(mb, 1);
        LLVMValueRef pa = byte_gep(L, a->data, LLVMBuildMul(L->b, jj, lower_i64(L, size), ""));
        LLVMValueRef set = LLVMBuildICmp(L->b, LLVMIntNE, mb, LLVMConstInt(L->t_i8, 0, 0), "");
        store_elem(L, pa, LLVMBuildSelect(L->b, set, c->value, load_elem(L, pa, c->ddt), ""), c->ddt);
        loop_end(L, &sl);
        LLVMBuildBr(L->b, done);
    } else {
        LLVMBasicBlockRef head = lower_block(L, "mask.bits");
        LLVMBuildBr(L->b, head);
        lower_at(L, head);
        LLVMValueRef cur = LLVMBuildPhi(L->b, bt, "bits");
        LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntNE, cur, LLVMConstNull(bt), ""), hit, done);
        lower_at(L, hit);
        LLVMValueRef targs[2] = {cur, LLVMConstInt(L->t_i1, 1, 0)};
        LLVMValueRef t = lower_intrinsic(L, "llvm.cttz", &bt, 1, targs, 2);
        LLVMValueRef j = LLVMBuildAdd(L->b, j0, LLVMBuildZExt(L->b, t, L->t_i64, ""), "");
        mask_hit(L, byte_gep(L, a->data, LLVMBuildMul(L->b, j, lower_i64(L, size), "")), c, read);
        LLVMValueRef rest = LLVMBuildAnd(L->b, cur, LLVMBuildSub(L->b, cur, LLVMConstInt(bt, 1, 0), ""), "");
        LLVMBasicBlockRef last = LLVMGetInsertBlock(L->b);
        LLVMBuildBr(L->b, head);
        LLVMValueRef in[2] = {bits, rest};
        LLVMBasicBlockRef from[2] = {pre, last};
        LLVMAddIncoming(cur, in, from, 2);
    }
    lower_at(L, done);
    loop_end(L, &lp);
    /* the last n % MASK_BLOCK items one by one */
    LLVMValueRef t0 = LLVMBuildMul(L->b, nb, lower_i64(L, MASK_BLOCK), "");
    Loop tl;
    loop_begin(L, &tl, LLVMBuildSub(L->b, n, t0, ""));
    LLVMValueRef jt = LLVMBuildAdd(L->b, t0, tl.i, "");
    LLVMValueRef p[2] = {byte_gep(L, a->data, LLVMBuildMul(L->b, jt, lower_i64(L, size), "")),
                         byte_gep(L, m->data, jt)};
    masked(L, p, c, read);
    loop_end(L, &tl);
}

/* The masked visit of a and m (the operands of the subscript sub):
 * mask_blocks when both are C-contiguous, else the strided walk. */
static void mask_visit(Lower *L, Node *sub, const View *a, const View *m, Ctx *c, bool read) {
    LLVMValueRef n = lower_i64(L, 1);
    for (int d = 0; d < a->nd; d++)
        n = LLVMBuildMul(L->b, n, a->shape[d], "");
    LLVMValueRef fast = LLVMBuildAnd(L->b, c_contiguous(L, a, sub->a->ty), c_contiguous(L, m, sub->b->ty), "");
    LLVMBasicBlockRef blocks = lower_block(L, "mask.contig"), strided = lower_block(L, "mask.strided"),
                      join = lower_block(L, "mask.visited");
    LLVMBuildCondBr(L->b, fast, blocks, strided);
    lower_at(L, blocks);
    mask_blocks(L, a, m, n, c, read);
    LLVMBuildBr(L->b, join);
    lower_at(L, strided);
    walk2(L, a, m, read ? mask_read : mask_write, c);
    LLVMBuildBr(L->b, join);
    lower_at(L, join);
}

static LLVMValueRef mask_get(Lower *L, Node *n, bool *owned) {
    View a, m;
    if (!mask_operands(L, n, &a, &m))
        return NULL;
    Ctx c = {.L = L, .at = n};
    LLVMValueRef cnt = count_mask(L, &m, &c);
    LLVMValueRef dims[2] = {cnt, NULL};
    LLVMValueRef r = lower_alloc_array(L, n->ty, dims, false);
    c.sdt = c.ddt = n->ty->dtype;
    c.out = lower_array_field(L, r, ARR_DATA, "out");
    LLVMBuildStore(L->b, lower_i64(L, 0), c.counter);
    mask_visit(L, n, &a, &m, &c, true);
    *owned = true;
    return r;
}

/* A 1-D array value v of type vt that must provide `need` items (or one,
 * broadcast): sets c->vdata/vstride/vstep; ValueError otherwise. */
static void array_value(Lower *L, LLVMValueRef v, Type *vt, LLVMValueRef need, Ctx *c, const char *msg) {
    LLVMValueRef len = lower_array_dim(L, v, ARR_SHAPE, 0);
    LLVMValueRef one = LLVMBuildICmp(L->b, LLVMIntEQ, len, lower_i64(L, 1), "");
    lower_raise_if(L, LLVMBuildAnd(L->b, LLVMBuildICmp(L->b, LLVMIntNE, len, need, ""), LLVMBuildNot(L->b, one, ""), ""),
                   "ValueError", msg);
    c->vdata = lower_array_field(L, v, ARR_DATA, "vdata");
    c->vstride = lower_array_dim(L, v, ARR_STRIDES, 0);
    c->vstep = sel(L, one, lower_i64(L, 0), lower_i64(L, 1));
    c->sdt = vt->dtype;
}

static bool mask_set(Lower *L, Node *n, LLVMValueRef v, Type *t) {
    View a, m;
    if (!mask_operands(L, n, &a, &m))
        return false;
    Type *dt = n->a->ty->dtype;
    Ctx c = {.L = L, .at = n, .ddt = dt};
    if (t->kind == TY_ARRAY) {
        LLVMValueRef cnt = count_mask(L, &m, &c);
        array_value(L, v, t, cnt, &c, "NumPy boolean array indexing assignment cannot assign the input "
                                      "values to the output values where the mask is true");
    } else {
        c.counter = lower_alloca(L, L->t_i64, "count");
        if (!(c.value = lower_convert(L, n, v, t, dt)))
            return false;
    }
    LLVMBuildStore(L->b, lower_i64(L, 0), c.counter);
    mask_visit(L, n, &a, &m, &c, false);
    return true;
}

/* ---- advanced indices: integer arrays and 1-D boolean ones -------------- */

/* NumPy's advanced indexing: the index arrays broadcast together to a
 * shape B; each element of B picks one position on each indexed axis; the
 * other axes (slices, None) are kept whole.  B's axes replace the indexed
 * ones where the advanced items (arrays and integers) are adjacent, and go
 * first when a slice or None separates them.  A 1-D boolean array stands
 * for the positions of its true items. */

static LLVMValueRef true_positions(Lower *L, Node *n, LLVMValueRef b, Type *bty, LLVMValueRef dim, Type **pty) {
    View m;
    view_of(L, b, bty, &m);
    lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntNE, m.shape[0], dim, ""), "IndexError",
                   "boolean index did not match indexed array");
    Ctx c = {.L = L, .at = n};
    LLVMValueRef cnt = count_mask(L, &m, &c);
    Type *ity = ty_array(L->c->tc, ty_scalar(L->c->tc, TY_INT64), 1, LAYOUT_C);
    LLVMValueRef dims[2] = {cnt, NULL};
    LLVMValueRef r = lower_alloc_array(L, ity, dims, false);
    lower_temp(L, r, ity, true);
    LLVMValueRef out = lower_array_field(L, r, ARR_DATA, "pos");
    LLVMValueRef k = lower_alloca(L, L->t_i64, "pos.k");
    LLVMBuildStore(L->b, lower_i64(L, 0), k);
    Loop lp;
    loop_begin(L, &lp, m.shape[0]);
    LLVMValueRef x = load_elem(L, byte_gep(L, m.data, LLVMBuildMul(L->b, lp.i, m.strides[0], "")),
                               ty_scalar(L->c->tc, TY_BOOL));
    LLVMBasicBlockRef yes = lower_block(L, "pos.yes"), next = lower_block(L, "pos.next");
    LLVMBuildCondBr(L->b, x, yes, next);
    lower_at(L, yes);
    LLVMValueRef kv = lower_load(L, L->t_i64, k, "");
    LLVMBuildStore(L->b, lp.i, LLVMBuildGEP2(L->b, L->t_i64, out, &kv, 1, ""));
    LLVMBuildStore(L->b, LLVMBuildAdd(L->b, kv, lower_i64(L, 1), ""), k);
    LLVMBuildBr(L->b, next);
    lower_at(L, next);
    loop_end(L, &lp);
    *pty = ity;
    return r;
}

static bool fancy_operands(Lower *L, Node *n, Fancy *f) {
    Type *aty = n->a->ty;
    if (aty->ndim > MAXD)
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "too many dimensions"), false;
    LLVMValueRef arr = lower_expr_use(L, n->a);
    if (!arr)
        return false;
    View src;
    view_of(L, arr, aty, &src);
    if (!apply_items(L, n, &src, &f->rest, f))
        return false;
    if (!f->nadv)
        return lower_fail(L, n, HJ_DIAG_LOWERING, "advanced index without an array"), false;
    /* the index arrays (boolean ones as their positions), then B */
    f->nb = 0;
    for (int j = 0; j < f->nadv; j++) {
        Adv *a = &f->adv[j];
        a->ity = f->anode[j]->ty;
        if (!(a->arr = lower_expr_use(L, f->anode[j])))
            return false;
        if (a->ity->dtype->kind == TY_BOOL)
            a->arr = true_positions(L, n, a->arr, a->ity, a->dim, &a->ity);
        if (a->ity->ndim > f->nb)
            f->nb = a->ity->ndim;
    }
    LLVMValueRef one = lower_i64(L, 1), zero = lower_i64(L, 0);
    LLVMValueRef bad = LLVMConstInt(L->t_i1, 0, 0);
    for (int b = 0; b < f->nb; b++) {
        LLVMValueRef bs = one;
        for (int j = 0; j < f->nadv; j++) {
            int k = b - (f->nb - f->adv[j].ity->ndim);
            if (k >= 0) {
                LLVMValueRef dj = lower_array_dim(L, f->adv[j].arr, ARR_SHAPE, k);
                bs = sel(L, LLVMBuildICmp(L->b, LLVMIntNE, dj, one, ""), dj, bs);
            }
        }
        f->bshape[b] = bs;
        for (int j = 0; j < f->nadv; j++) {
            Adv *a = &f->adv[j];
            int k = b - (f->nb - a->ity->ndim);
            if (k < 0) {
                a->istr[b] = zero;
                continue;
            }
            LLVMValueRef dj = lower_array_dim(L, a->arr, ARR_SHAPE, k);
            LLVMValueRef is1 = LLVMBuildICmp(L->b, LLVMIntEQ, dj, one, "");
            bad = LLVMBuildOr(L->b, bad, LLVMBuildAnd(L->b, LLVMBuildNot(L->b, is1, ""),
                                                      LLVMBuildICmp(L->b, LLVMIntNE, dj, bs, ""), ""), "");
            a->istr[b] = sel(L, is1, zero, lower_array_dim(L, a->arr, ARR_STRIDES, k));
        }
    }
    lower_raise_if(L, bad, "IndexError", "shape mismatch: indexing arrays could not be broadcast together");
    return true;
}

/* For each element of B (C order): body(b index, pointer to the selected
 * sub-array of the source, of f->rest's axes). */
typedef void (*SelFn)(Lower *L, Fancy *f, LLVMValueRef *bidx, LLVMValueRef src, void *ctx);

static void each_selected(Lower *L, Node *n, Fancy *f, int level, LLVMValueRef *bidx, SelFn body, void *ctx) {
    if (level == f->nb) {
        LLVMValueRef off = lower_i64(L, 0);
        for (int j = 0; j < f->nadv; j++) {
            Adv *a = &f->adv[j];
            LLVMValueRef io = lower_i64(L, 0);
            for (int b = 0; b < f->nb; b++)
                io = LLVMBuildAdd(L->b, io, LLVMBuildMul(L->b, bidx[b], a->istr[b], ""), "");
            Type *it = a->ity->dtype;
            LLVMValueRef x = load_elem(L, byte_gep(L, lower_array_field(L, a->arr, ARR_DATA, "idx"), io), it);
            /* out-of-range entries always raise, as in NumPy */
            LLVMValueRef w = wrap(L, lower_as_i64(L, n, x, it), a->dim, a->axis, true, ty_is_signed(it));
            off = LLVMBuildAdd(L->b, off, LLVMBuildMul(L->b, w, a->stride, ""), "");
        }
        body(L, f, bidx, byte_gep(L, f->rest.data, off), ctx);
        return;
    }
    Loop lp;
    loop_begin(L, &lp, f->bshape[level]);
    bidx[level] = lp.i;
    each_selected(L, n, f, level + 1, bidx, body, ctx);
    loop_end(L, &lp);
}

/* v (of the result's axes) with B's axes fixed at bidx: the rest's axes. */
static void fix_b(Lower *L, const View *v, const Fancy *f, LLVMValueRef *bidx, View *out) {
    LLVMValueRef off = lower_i64(L, 0);
    out->nd = 0;
    for (int d = 0; d < v->nd; d++) {
        if (d >= f->pos && d < f->pos + f->nb)
            off = LLVMBuildAdd(L->b, off, LLVMBuildMul(L->b, bidx[d - f->pos], v->strides[d], ""), "");
        else
            out->shape[out->nd] = v->shape[d], out->strides[out->nd++] = v->strides[d];
    }
    out->data = byte_gep(L, v->data, off);
}

typedef struct FCtx {
    View other; /* the result (read) or the value broadcast to the result's shape (store) */
    bool has_value;
    Ctx c;
} FCtx;

static void source_view(const Fancy *f, LLVMValueRef src, View *s) {
    *s = f->rest;
    s->data = src;
}

static void fancy_copy(Lower *L, Fancy *f, LLVMValueRef *bidx, LLVMValueRef src, void *cx) {
    FCtx *fc = cx;
    View s, d;
    source_view(f, src, &s);
    fix_b(L, &fc->other, f, bidx, &d);
    walk2(L, &d, &s, copy_elem, &fc->c);
}

static void fancy_fill(Lower *L, Fancy *f, LLVMValueRef *bidx, LLVMValueRef src, void *cx) {
    FCtx *fc = cx;
    View s;
    source_view(f, src, &s);
    if (fc->has_value) {
        View v;
        fix_b(L, &fc->other, f, bidx, &v);
        walk2(L, &s, &v, copy_elem, &fc->c);
        return;
    }
    LLVMValueRef p[1] = {s.data};
    LLVMValueRef st[1][MAXD];
    for (int d = 0; d < s.nd; d++)
        st[0][d] = s.strides[d];
    walk(L, 0, s.nd, s.shape, 1, p, st, fill_elem, &fc->c);
}

/* The result's shape: the rest's axes with B's inserted at f->pos. */
static int result_dims(const Fancy *f, LLVMValueRef *dims) {
    int k = 0;
    for (int d = 0; d < f->pos; d++)
        dims[k++] = f->rest.shape[d];
    for (int b = 0; b < f->nb; b++)
        dims[k++] = f->bshape[b];
    for (int d = f->pos; d < f->rest.nd; d++)
        dims[k++] = f->rest.shape[d];
    return k;
}

static LLVMValueRef fancy_get(Lower *L, Node *n, bool *owned) {
    Fancy f;
    if (!fancy_operands(L, n, &f))
        return NULL;
    Type *rty = n->ty;
    LLVMValueRef dims[2 * MAXD + 1];
    if (result_dims(&f, dims) != rty->ndim)
        return lower_fail(L, n, HJ_DIAG_LOWERING, "fancy index of the wrong type");
    LLVMValueRef r = lower_alloc_array(L, rty, dims, false);
    lower_temp(L, r, rty, true); /* released if an index is out of range */
    FCtx fc = {.c = {.L = L, .at = n, .sdt = rty->dtype, .ddt = rty->dtype}};
    view_of(L, r, rty, &fc.other);
    LLVMValueRef bidx[MAXD];
    each_selected(L, n, &f, 0, bidx, fancy_copy, &fc);
    lower_temp_handed_over(L, r);
    *owned = true;
    return r;
}

static bool fancy_set(Lower *L, Node *n, LLVMValueRef v, Type *t) {
    Fancy f;
    if (!fancy_operands(L, n, &f))
        return false;
    Type *dt = n->a->ty->dtype;
    FCtx fc = {.c = {.L = L, .at = n, .ddt = dt}};
    if (t->kind == TY_ARRAY) {
        /* the value broadcast to the selection's shape (ValueError otherwise) */
        LLVMValueRef dims[2 * MAXD + 1];
        int rnd = result_dims(&f, dims);
        if (t->ndim > rnd || rnd > MAXD)
            return lower_fail(L, n, HJ_DIAG_LOWERING, "value of the wrong ndim"), false;
        View val;
        view_of(L, v, t, &val);
        LLVMValueRef one = lower_i64(L, 1), bad = LLVMConstInt(L->t_i1, 0, 0);
        fc.other.data = val.data;
        fc.other.nd = rnd;
        for (int d = 0; d < rnd; d++) {
            int k = d - (rnd - t->ndim);
            fc.other.shape[d] = dims[d];
            if (k < 0) {
                fc.other.strides[d] = lower_i64(L, 0);
                continue;
            }
            LLVMValueRef is1 = LLVMBuildICmp(L->b, LLVMIntEQ, val.shape[k], one, "");
            LLVMValueRef ne = LLVMBuildICmp(L->b, LLVMIntNE, val.shape[k], dims[d], "");
            bad = LLVMBuildOr(L->b, bad, LLVMBuildAnd(L->b, LLVMBuildNot(L->b, is1, ""), ne, ""), "");
            fc.other.strides[d] = sel(L, is1, lower_i64(L, 0), val.strides[k]);
        }
        lower_raise_if(L, bad, "ValueError", "shape mismatch: value array could not be broadcast to indexing result");
        fc.has_value = true;
        fc.c.sdt = t->dtype;
    } else if (!(fc.c.value = lower_convert(L, n, v, t, dt))) {
        return false;
    }
    LLVMValueRef bidx[MAXD];
    each_selected(L, n, &f, 0, bidx, fancy_fill, &fc);
    return true;
}

bool lower_fancy_gathers(const Node *n) {
    if (n->kind != N_SUBSCRIPT || n->idx_kind != IDX_FANCY || n->ty->kind != TY_ARRAY || n->ty->ndim != 1 || !n->b)
        return false;
    int narr = 0;
    bool ok = false;
    for (int i = 0; i < n->b->args.len; i++) {
        Node *e = VEC_AT(n->b->args, i);
        if (e->ty && e->ty->kind == TY_ARRAY)
            narr++, ok = e->ty->ndim == 1 && ty_is_int(e->ty->dtype);
    }
    return narr == 1 && ok;
}

bool lower_fancy_gather(Lower *L, Node *n, LowerGather *g) {
    Fancy f;
    if (!fancy_operands(L, n, &f))
        return false;
    if (f.rest.nd != 0 || f.nadv != 1 || f.nb != 1 || f.adv[0].ity->dtype->kind == TY_BOOL)
        return lower_fail(L, n, HJ_DIAG_LOWERING, "gather of the wrong type"), false;
    Adv *a = &f.adv[0];
    g->data = f.rest.data;
    g->len = a->dim;
    g->stride = a->stride;
    g->idx = lower_array_field(L, a->arr, ARR_DATA, "idx");
    g->nidx = lower_array_dim(L, a->arr, ARR_SHAPE, 0);
    g->istride = lower_array_dim(L, a->arr, ARR_STRIDES, 0);
    g->ity = a->ity->dtype;
    g->axis = a->axis;
    return true;
}

/* ---- entry points ------------------------------------------------------- */

LLVMValueRef lower_index_expr(Lower *L, Node *n, bool *owned) {
    *owned = false;
    switch (n->idx_kind) {
    case IDX_BASIC: {
        LLVMValueRef v = lower_index_view(L, n);
        *owned = v != NULL;
        return v;
    }
    case IDX_MASK: return mask_get(L, n, owned);
    case IDX_FANCY: return fancy_get(L, n, owned);
    case IDX_INT: break;
    }
    return lower_fail(L, n, HJ_DIAG_LOWERING, "unexpected subscript form");
}

bool lower_index_store(Lower *L, Node *n, LLVMValueRef v, Type *t) {
    switch (n->idx_kind) {
    case IDX_BASIC: {
        if (!ty_is_number(t) && !ty_is_npdt(t))
            return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "assigning an array to a slice is not supported yet"),
                   false;
        LLVMValueRef arr;
        View w;
        if (!basic_view(L, n, &arr, &w))
            return false;
        Ctx c = {.L = L, .at = n, .ddt = n->a->ty->dtype};
        if (!(c.value = lower_convert(L, n, v, t, c.ddt)))
            return false;
        LLVMValueRef p[1] = {w.data};
        LLVMValueRef st[1][MAXD];
        for (int d = 0; d < w.nd; d++)
            st[0][d] = w.strides[d];
        walk(L, 0, w.nd, w.shape, 1, p, st, fill_elem, &c);
        return true;
    }
    case IDX_MASK: return mask_set(L, n, v, t);
    case IDX_FANCY: return fancy_set(L, n, v, t);
    case IDX_INT: break;
    }
    lower_fail(L, n, HJ_DIAG_LOWERING, "unexpected subscript form");
    return false;
}
