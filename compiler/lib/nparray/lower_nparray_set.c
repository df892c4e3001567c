/* lower_nparray_set.c - NumPy's set routines: isin, intersect1d, union1d,
 * setdiff1d, setxor1d.  Each operand is flattened, converted to the
 * common type (op_ty), sorted and made unique by the runtime (rt_sort,
 * rt_unique: NaNs last, one NaN kept); the results come from one merge
 * walk over two sorted unique runs.  As in NumPy, NaN never equals NaN:
 * it is in no intersection and never `in` anything.  Tree shapes:
 * infer_nparray.c. */
#include "np/lower_np.h"
#include "nparray.h"

#include "hpcjit/search.h"

#define MAXD NPA_MAXD

static LLVMValueRef data_of(Lower *L, LLVMValueRef arr) { return lower_array_field(L, arr, ARR_DATA, "data"); }
static LLVMValueRef i64c(Lower *L, int64_t v) { return lower_i64(L, v); }
static LLVMValueRef add1(Lower *L, LLVMValueRef a) { return LLVMBuildAdd(L->b, a, lower_i64(L, 1), ""); }
static LLVMValueRef slt(Lower *L, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildICmp(L->b, LLVMIntSLT, a, b, ""); }

static LLVMValueRef at_k(Lower *L, LLVMValueRef data, LLVMValueRef k, Type *dt) {
    return np_offset(L, data, np_mul(L, k, i64c(L, ty_itemsize(dt))));
}

/* Item i of a sorted run of k items, or a zero when i is past its end
 * (an empty run has no item to read). */
static LLVMValueRef item_or_zero(Lower *L, LLVMValueRef data, LLVMValueRef i, LLVMValueRef more, Type *ct) {
    LLVMValueRef slot = lower_alloca(L, lower_mem_type(L, ct), "zero");
    np_store(L, slot, lower_zero(L, ct), ct);
    return np_load(L, np_sel(L, more, at_k(L, data, i, ct), slot), ct);
}

/* A new 1-D C array of ct holding the operands' items in C order, one
 * after the other (a temporary); *total their count. */
static LLVMValueRef gather(Lower *L, Node **ops, int k, Type *ct, LLVMValueRef *total, NpaOpnd *o) {
    LLVMValueRef cnt[2];
    *total = i64c(L, 0);
    for (int i = 0; i < k; i++) {
        if (!npa_opnd(L, ops[i], &o[i]))
            return NULL;
        cnt[i] = i64c(L, 1);
        for (int d = 0; d < o[i].nd; d++)
            cnt[i] = np_mul(L, cnt[i], o[i].sh[d]);
        *total = LLVMBuildAdd(L->b, *total, cnt[i], "");
    }
    Type *aty = ty_array(L->c->tc, ct, 1, LAYOUT_C);
    LLVMValueRef buf = np_own(L, np_alloc(L, aty, total, false), aty);
    LLVMValueRef pos = i64c(L, 0);
    for (int i = 0; i < k; i++) {
        /* the operand's C order: its own dims, the buffer's C strides */
        LLVMValueRef ds[MAXD], acc = i64c(L, ty_itemsize(ct));
        for (int d = o[i].nd - 1; d >= 0; d--) {
            ds[d] = acc;
            acc = np_mul(L, acc, o[i].sh[d]);
        }
        np_copy_nd(L, o[i].nd, o[i].sh, o[i].data, o[i].st, o[i].dt, at_k(L, data_of(L, buf), pos, ct), ds, ct);
        pos = LLVMBuildAdd(L->b, pos, cnt[i], "");
    }
    return buf;
}

static void sort_buf(Lower *L, LLVMValueRef data, LLVMValueRef n, Type *ct) {
    LLVMTypeRef t4[4] = {L->t_ptr, L->t_i64, L->t_i64, L->t_i32};
    LLVMValueRef as[4] = {data, i64c(L, 1), n, lower_i32(L, np_dt_code(ct))};
    lower_check_status(L, lower_rt(L, "rt_sort", L->t_i32, t4, 4, as));
}

static LLVMValueRef unique_buf(Lower *L, LLVMValueRef data, LLVMValueRef n, Type *ct) {
    LLVMTypeRef t3[3] = {L->t_ptr, L->t_i64, L->t_i32};
    LLVMValueRef bs[3] = {data, n, lower_i32(L, np_dt_code(ct))};
    return lower_rt(L, "rt_unique", L->t_i64, t3, 3, bs);
}

/* The sorted unique items of one operand: their data, *k their count. */
static LLVMValueRef sorted_unique(Lower *L, Node *e, Type *ct, LLVMValueRef *k) {
    LLVMValueRef n;
    NpaOpnd o;
    LLVMValueRef buf = gather(L, &e, 1, ct, &n, &o);
    if (!buf)
        return NULL;
    sort_buf(L, data_of(L, buf), n, ct);
    *k = unique_buf(L, data_of(L, buf), n, ct);
    return data_of(L, buf);
}

/* x before y in the sorted order (NaNs last); x equal to y (never NaN). */
static LLVMValueRef before(Lower *L, Type *t, LLVMValueRef x, LLVMValueRef y) {
    if (!ty_is_float(t))
        return lower_cmp(L, np_at(L), OP_LT, t, x, y);
    LLVMValueRef ynan = LLVMBuildFCmp(L->b, LLVMRealUNO, y, y, ""), xnan = LLVMBuildFCmp(L->b, LLVMRealUNO, x, x, "");
    return LLVMBuildOr(L->b, LLVMBuildFCmp(L->b, LLVMRealOLT, x, y, ""),
                       LLVMBuildAnd(L->b, ynan, LLVMBuildNot(L->b, xnan, ""), ""), "");
}

/* The result of length *count (<= cap) in out: a view of its first items. */
static LLVMValueRef shorten(Lower *L, LLVMValueRef out, Type *rty, LLVMValueRef count, bool *owned) {
    LLVMValueRef isz = i64c(L, ty_itemsize(rty->dtype));
    *owned = true;
    return np_view(L, out, rty, data_of(L, out), &count, &isz);
}

/* intersect1d, setdiff1d, setxor1d: one merge walk over the sorted unique
 * items of both; which items are kept depends on the function. */
static LLVMValueRef merge(Lower *L, Node *n, bool *owned) {
    BuiltinId b = n->builtin;
    Type *ct = n->op_ty, *rty = n->ty, *rdt = rty->dtype;
    LLVMValueRef k1, k2;
    LLVMValueRef u1 = sorted_unique(L, np_arg(n, 0), ct, &k1);
    LLVMValueRef u2 = u1 ? sorted_unique(L, np_arg(n, 1), ct, &k2) : NULL;
    if (!u2)
        return NULL;
    LLVMValueRef cap = b == BI_NPA_SETXOR1D ? LLVMBuildAdd(L->b, k1, k2, "") : k1;
    LLVMValueRef out = np_own(L, np_alloc(L, rty, &cap, false), rty);
    LLVMValueRef od = data_of(L, out);
    LLVMValueRef pi = lower_alloca(L, L->t_i64, "i"), pj = lower_alloca(L, L->t_i64, "j"),
                 pk = lower_alloca(L, L->t_i64, "k");
    LLVMBuildStore(L->b, i64c(L, 0), pi);
    LLVMBuildStore(L->b, i64c(L, 0), pj);
    LLVMBuildStore(L->b, i64c(L, 0), pk);
    LLVMBasicBlockRef head = lower_block(L, "merge.head"), body = lower_block(L, "merge.body"),
                      done = lower_block(L, "merge.done");
    LLVMBuildBr(L->b, head);
    lower_at(L, head);
    LLVMValueRef i = lower_load(L, L->t_i64, pi, ""), j = lower_load(L, L->t_i64, pj, "");
    LLVMValueRef more1 = slt(L, i, k1), more2 = slt(L, j, k2);
    /* intersect1d stops when either run ends; setdiff1d when the first does;
     * setxor1d when both do */
    LLVMValueRef go = b == BI_NPA_INTERSECT1D ? LLVMBuildAnd(L->b, more1, more2, "")
                      : b == BI_NPA_SETDIFF1D ? more1
                                              : LLVMBuildOr(L->b, more1, more2, "");
    LLVMBuildCondBr(L->b, go, body, done);
    lower_at(L, body);
    /* beyond a run's end its side counts as +inf: take from the other */
    LLVMValueRef x = item_or_zero(L, u1, i, more1, ct), y = item_or_zero(L, u2, j, more2, ct);
    LLVMValueRef eq = LLVMBuildAnd(L->b, LLVMBuildAnd(L->b, more1, more2, ""), lower_cmp(L, n, OP_EQ, ct, x, y), "");
    LLVMValueRef xfirst = LLVMBuildAnd(L->b, more1, LLVMBuildOr(L->b, LLVMBuildNot(L->b, more2, ""), before(L, ct, x, y), ""), "");
    xfirst = LLVMBuildAnd(L->b, xfirst, LLVMBuildNot(L->b, eq, ""), "");
    LLVMValueRef yfirst = LLVMBuildNot(L->b, LLVMBuildOr(L->b, eq, xfirst, ""), "");
    LLVMValueRef keep, val;
    switch (b) {
    case BI_NPA_INTERSECT1D: keep = eq; val = x; break;
    case BI_NPA_SETDIFF1D: keep = xfirst; val = x; break;
    default: keep = LLVMBuildNot(L->b, eq, ""); val = np_sel(L, xfirst, x, y); break;
    }
    LLVMBasicBlockRef put = lower_block(L, "merge.put"), next = lower_block(L, "merge.next");
    LLVMBuildCondBr(L->b, keep, put, next);
    lower_at(L, put);
    LLVMValueRef k = lower_load(L, L->t_i64, pk, "");
    np_store(L, at_k(L, od, k, rdt), lower_convert(L, n, val, ct, rdt), rdt);
    LLVMBuildStore(L->b, add1(L, k), pk);
    LLVMBuildBr(L->b, next);
    lower_at(L, next);
    /* advance past what was looked at (both NaNs, unequal: the second) */
    LLVMValueRef adv1 = LLVMBuildOr(L->b, eq, xfirst, ""), adv2 = LLVMBuildOr(L->b, eq, yfirst, "");
    LLVMBuildStore(L->b, np_sel(L, adv1, add1(L, i), i), pi);
    LLVMBuildStore(L->b, np_sel(L, adv2, add1(L, j), j), pj);
    LLVMBuildBr(L->b, head);
    lower_at(L, done);
    return shorten(L, out, rty, lower_load(L, L->t_i64, pk, "count"), owned);
}

static LLVMValueRef union1d(Lower *L, Node *n, bool *owned) {
    Type *ct = n->op_ty, *rty = n->ty;
    Node *ops[2] = {np_arg(n, 0), np_arg(n, 1)};
    LLVMValueRef total;
    NpaOpnd o[2];
    LLVMValueRef buf = gather(L, ops, 2, ct, &total, o);
    if (!buf)
        return NULL;
    sort_buf(L, data_of(L, buf), total, ct);
    LLVMValueRef k = unique_buf(L, data_of(L, buf), total, ct);
    return shorten(L, buf, rty, k, owned);
}

/* isin(element, test_elements, invert): a binary search of each element in
 * the sorted unique test elements. */
static LLVMValueRef isin(Lower *L, Node *n, bool *owned) {
    Type *ct = n->op_ty, *rty = n->ty;
    Node *en = np_arg(n, 0);
    LLVMValueRef k;
    LLVMValueRef u = sorted_unique(L, np_arg(n, 1), ct, &k);
    if (!u)
        return NULL;
    LLVMValueRef inv = LLVMConstInt(L->t_i1, 0, 0);
    if (np_arg(n, 3) && !(inv = lower_expr_use(L, np_arg(n, 3))))
        return NULL;
    LLVMValueRef ne;
    NpaOpnd eo;
    LLVMValueRef vals = gather(L, &en, 1, ct, &ne, &eo);
    if (!vals)
        return NULL;
    Type *i64 = ty_scalar(L->c->tc, TY_INT64), *it = ty_array(L->c->tc, i64, 1, LAYOUT_C);
    LLVMValueRef idx = np_own(L, np_alloc(L, it, &ne, false), it);
    LLVMTypeRef ps[7] = {L->t_ptr, L->t_i64, L->t_ptr, L->t_i64, L->t_ptr, L->t_i32, L->t_i32};
    LLVMValueRef as[7] = {u, k, data_of(L, vals), ne, data_of(L, idx), lower_i32(L, np_dt_code(ct)), lower_i32(L, 0)};
    lower_rt(L, "rt_searchsorted", L->t_void, ps, 7, as);
    LLVMValueRef out = np_own(L, np_alloc(L, rty, eo.sh, false), rty);
    Type *bt = rty->dtype;
    NpLoop lp;
    np_loop_begin(L, &lp, ne);
    LLVMValueRef p = np_load(L, at_k(L, data_of(L, idx), lp.i, i64), i64);
    LLVMValueRef inside = slt(L, p, k);
    LLVMValueRef v = np_load(L, at_k(L, data_of(L, vals), lp.i, ct), ct);
    LLVMValueRef w = item_or_zero(L, u, p, inside, ct);
    LLVMValueRef found = LLVMBuildAnd(L->b, inside, lower_cmp(L, n, OP_EQ, ct, v, w), "");
    np_store(L, at_k(L, data_of(L, out), lp.i, bt), LLVMBuildXor(L->b, found, inv, ""), bt);
    np_loop_end(L, &lp);
    return np_give(L, out, rty, owned);
}

LLVMValueRef lower_nparray_set(Lower *L, Node *n, bool *owned) {
    *owned = false;
    switch (n->builtin) {
    case BI_NPA_ISIN: return isin(L, n, owned);
    case BI_NPA_UNION1D: return union1d(L, n, owned);
    case BI_NPA_INTERSECT1D: case BI_NPA_SETDIFF1D: case BI_NPA_SETXOR1D: return merge(L, n, owned);
    default:
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "%s() is not supported in compiled code", builtin_name(n->builtin));
    }
}
