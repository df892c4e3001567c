/* lower_builtin.c - arrays (indexing, views, attributes, allocation, copy)
 * and calls of builtins (math, abs/min/max/round, conversions).
 *
 * Array values are {meminfo, parent, nitems, itemsize, data, shape[nd],
 * strides[nd]} (HjArray).  Element addresses use the layout: C arrays are
 * row-major over `shape` with a constant item size (so loops vectorise),
 * F arrays column-major, A arrays go through `strides`. */
#include "hpcjit/objmode.h"
#include "lower.h"
#include "registry.h"
#include "lower_cmath.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- small helpers ----------------------------------------------------- */

LLVMValueRef lower_array_field(Lower *L, LLVMValueRef arr, unsigned field, const char *name) {
    return LLVMBuildExtractValue(L->b, arr, field, name);
}

LLVMValueRef lower_array_dim(Lower *L, LLVMValueRef arr, unsigned which, int k) {
    LLVMValueRef dims = LLVMBuildExtractValue(L->b, arr, which, "");
    return LLVMBuildExtractValue(L->b, dims, (unsigned)k, which == ARR_SHAPE ? "dim" : "stride");
}

static Type *t_i64(Lower *L) { return ty_scalar(L->c->tc, TY_INT64); }
static Type *t_f64(Lower *L) { return ty_scalar(L->c->tc, TY_FLOAT64); }

static Node *arg(Node *n, int i) { return i < n->args.len ? VEC_AT(n->args, i) : NULL; }

static int nargs_present(Node *n) {
    int k = 0;
    for (int i = 0; i < n->args.len; i++)
        if (VEC_AT(n->args, i))
            k++;
    return k;
}

/* A counted loop i = 0..n-1 with the index in a phi. */
typedef struct CLoop {
    LLVMBasicBlockRef pre, head, body, end;
    LLVMValueRef i, phi;
} CLoop;

static void loop_begin(Lower *L, CLoop *lp, LLVMValueRef n) {
    lp->pre = LLVMGetInsertBlock(L->b);
    lp->head = lower_block(L, "loop.head");
    lp->body = lower_block(L, "loop.body");
    lp->end = lower_block(L, "loop.end");
    LLVMBuildBr(L->b, lp->head);
    lower_at(L, lp->head);
    lp->phi = LLVMBuildPhi(L->b, L->t_i64, "k");
    lp->i = lp->phi;
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, lp->phi, n, ""), lp->body, lp->end);
    lower_at(L, lp->body);
}

static void loop_end(Lower *L, CLoop *lp) {
    LLVMValueRef next = LLVMBuildNUWAdd(L->b, lp->phi, lower_i64(L, 1), "k.next");
    LLVMBasicBlockRef last = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, lp->head);
    LLVMValueRef in[2] = {lower_i64(L, 0), next};
    LLVMBasicBlockRef from[2] = {lp->pre, last};
    LLVMAddIncoming(lp->phi, in, from, 2);
    lower_at(L, lp->end);
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

/* ---- indexing ----------------------------------------------------------------- */

/* Index `idx` (as written, any int type) on axis `axis`: negative values
 * wrap, then with boundscheck 0 <= idx < dim is checked. */
static LLVMValueRef wrap_index(Lower *L, const Node *at, LLVMValueRef idx, Type *t, LLVMValueRef dim, int axis) {
    LLVMValueRef i = lower_as_i64(L, at, idx, t);
    if (!i)
        return NULL;
    LLVMValueRef w = i;
    if (ty_is_signed(t))
        w = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, i, lower_i64(L, 0), ""),
                            LLVMBuildAdd(L->b, i, dim, ""), i, "idx");
    if (L->boundscheck) {
        LLVMValueRef bad = LLVMBuildICmp(L->b, LLVMIntUGE, w, dim, "oob");
        LLVMBasicBlockRef ok = lower_branch_raise(L, bad, "index.error");
        LLVMTypeRef p[3] = {L->t_i64, L->t_i64, L->t_i64};
        LLVMValueRef a[3] = {i, lower_i64(L, axis), dim};
        lower_rt(L, "rt_raise_index", L->t_void, p, 3, a);
        lower_goto_error(L);
        lower_at(L, ok);
    }
    return w;
}

/* Address of the element at full indices idx[0..nd) (already wrapped). */
static LLVMValueRef elem_ptr(Lower *L, LLVMValueRef arr, Type *aty, LLVMValueRef *idx) {
    int nd = aty->ndim;
    LLVMValueRef data = lower_array_field(L, arr, ARR_DATA, "data");
    LLVMTypeRef et = lower_elem_type(L, aty->dtype);
    if (nd == 0)
        return data;
    if (aty->layout == LAYOUT_C || aty->layout == LAYOUT_F) {
        bool c = aty->layout == LAYOUT_C;
        LLVMValueRef flat = idx[c ? 0 : nd - 1];
        for (int k = 1; k < nd; k++) {
            int d = c ? k : nd - 1 - k;
            flat = LLVMBuildAdd(L->b, LLVMBuildMul(L->b, flat, lower_array_dim(L, arr, ARR_SHAPE, d), ""), idx[d], "");
        }
        return lower_gep(L, et, data, &flat, 1, "elem.ptr");
    }
    LLVMValueRef off = NULL;
    for (int d = 0; d < nd; d++) {
        LLVMValueRef t = LLVMBuildMul(L->b, idx[d], lower_array_dim(L, arr, ARR_STRIDES, d), "");
        off = off ? LLVMBuildAdd(L->b, off, t, "") : t;
    }
    return LLVMBuildGEP2(L->b, L->t_i8, data, &off, 1, "elem.ptr");
}

/* A view arr[idx[0..k)] with k < ndim: same memory, one more reference. */
static LLVMValueRef make_view(Lower *L, LLVMValueRef arr, Type *aty, LLVMValueRef *idx, int k, Type *rty) {
    int nd = aty->ndim;
    LLVMValueRef off = lower_i64(L, 0);
    for (int d = 0; d < k; d++)
        off = LLVMBuildAdd(L->b, off, LLVMBuildMul(L->b, idx[d], lower_array_dim(L, arr, ARR_STRIDES, d), ""), "");
    LLVMValueRef data = LLVMBuildGEP2(L->b, L->t_i8, lower_array_field(L, arr, ARR_DATA, "data"), &off, 1, "");
    LLVMTypeRef vt = lower_type(L, rty);
    LLVMTypeRef dims_t = LLVMArrayType2(L->t_i64, (uint64_t)(nd - k));
    LLVMValueRef shape = LLVMGetUndef(dims_t), strides = LLVMGetUndef(dims_t);
    LLVMValueRef nitems = lower_i64(L, 1);
    for (int d = k; d < nd; d++) {
        LLVMValueRef s = lower_array_dim(L, arr, ARR_SHAPE, d);
        nitems = LLVMBuildMul(L->b, nitems, s, "");
        shape = LLVMBuildInsertValue(L->b, shape, s, (unsigned)(d - k), "");
        strides = LLVMBuildInsertValue(L->b, strides, lower_array_dim(L, arr, ARR_STRIDES, d), (unsigned)(d - k), "");
    }
    LLVMValueRef v = LLVMGetUndef(vt);
    v = LLVMBuildInsertValue(L->b, v, lower_array_field(L, arr, ARR_MEMINFO, ""), ARR_MEMINFO, "");
    v = LLVMBuildInsertValue(L->b, v, lower_array_field(L, arr, ARR_PARENT, ""), ARR_PARENT, "");
    v = LLVMBuildInsertValue(L->b, v, nitems, ARR_NITEMS, "");
    v = LLVMBuildInsertValue(L->b, v, lower_array_field(L, arr, ARR_ITEMSIZE, ""), ARR_ITEMSIZE, "");
    v = LLVMBuildInsertValue(L->b, v, data, ARR_DATA, "");
    v = LLVMBuildInsertValue(L->b, v, shape, ARR_SHAPE, "");
    v = LLVMBuildInsertValue(L->b, v, strides, ARR_STRIDES, "view");
    lower_incref(L, v, rty);
    return v;
}

LLVMValueRef lower_array_item(Lower *L, const Node *at, LLVMValueRef arr, Type *aty, LLVMValueRef i,
                              Type **ety, bool *owned) {
    *owned = false;
    if (aty->ndim == 1) {
        *ety = aty->dtype;
        return load_elem(L, elem_ptr(L, arr, aty, &i), aty->dtype);
    }
    *ety = ty_array(L->c->tc, aty->dtype, aty->ndim - 1, aty->layout == LAYOUT_C ? LAYOUT_C : LAYOUT_A);
    *owned = true;
    return make_view(L, arr, aty, &i, 1, *ety);
}

LLVMValueRef lower_elem_at(Lower *L, LLVMValueRef arr, Type *aty, LLVMValueRef *idx) {
    return load_elem(L, elem_ptr(L, arr, aty, idx), aty->dtype);
}

/* Evaluate the indices of subscript n on array value arr: *k of them. */
static bool array_indices(Lower *L, Node *n, LLVMValueRef arr, Type *aty, LLVMValueRef *idx, int *k) {
    Node *ix = n->b;
    *k = 0;
    if (ix->kind == N_TUPLE) {
        if (ix->args.len > aty->ndim) {
            lower_fail(L, n, HJ_DIAG_TYPING, "too many indices for array: array is %d-dimensional, but %d were indexed",
                       aty->ndim, ix->args.len);
            return false;
        }
        for (int d = 0; d < ix->args.len; d++) {
            Node *e = VEC_AT(ix->args, d);
            if (!ty_is_int(e->ty) && e->ty->kind != TY_BOOL) {
                lower_fail(L, e, HJ_DIAG_UNSUPPORTED, "only integer indices are supported");
                return false;
            }
            LLVMValueRef v = lower_expr_use(L, e);
            if (!v)
                return false;
            idx[d] = wrap_index(L, e, v, e->ty, lower_array_dim(L, arr, ARR_SHAPE, d), d);
            if (!idx[d])
                return false;
        }
        *k = ix->args.len;
        return true;
    }
    Type *t = ix->ty;
    if (ty_is_int(t)) {
        LLVMValueRef v = lower_expr_use(L, ix);
        if (!v || aty->ndim < 1)
            return v ? (lower_fail(L, n, HJ_DIAG_TYPING, "cannot index a 0-d array"), false) : false;
        idx[0] = wrap_index(L, ix, v, t, lower_array_dim(L, arr, ARR_SHAPE, 0), 0);
        *k = 1;
        return idx[0] != NULL;
    }
    if (t->kind == TY_TUPLE && t->nelems <= aty->ndim) {
        LLVMValueRef tv = lower_expr_use(L, ix);
        if (!tv)
            return false;
        for (int d = 0; d < t->nelems; d++) {
            if (!ty_is_int(t->elems[d])) {
                lower_fail(L, ix, HJ_DIAG_UNSUPPORTED, "only integer indices are supported");
                return false;
            }
            idx[d] = wrap_index(L, ix, LLVMBuildExtractValue(L->b, tv, (unsigned)d, ""), t->elems[d],
                                lower_array_dim(L, arr, ARR_SHAPE, d), d);
            if (!idx[d])
                return false;
        }
        *k = t->nelems;
        return true;
    }
    lower_fail(L, ix, HJ_DIAG_UNSUPPORTED, "unsupported array index (only integers and tuples of integers)");
    return false;
}

static LLVMValueRef tuple_subscript(Lower *L, Node *n) {
    Type *t = n->a->ty;
    LLVMValueRef tv = lower_expr_use(L, n->a);
    if (!tv)
        return NULL;
    if (!ty_is_int(n->b->ty))
        return lower_fail(L, n->b, HJ_DIAG_UNSUPPORTED, "tuple index must be an integer");
    LLVMValueRef iv = lower_expr_use(L, n->b);
    if (!iv)
        return NULL;
    if (LLVMIsAConstantInt(iv)) {
        long long i = LLVMConstIntGetSExtValue(iv);
        if (i < 0)
            i += t->nelems;
        if (i < 0 || i >= t->nelems)
            return lower_fail(L, n, HJ_DIAG_TYPING, "tuple index out of range");
        return lower_convert(L, n, LLVMBuildExtractValue(L->b, tv, (unsigned)i, ""), t->elems[i], n->ty);
    }
    for (int i = 1; i < t->nelems; i++)
        if (t->elems[i] != t->elems[0])
            return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "a heterogeneous tuple needs a constant index");
    if (t->nelems == 0)
        return lower_fail(L, n, HJ_DIAG_TYPING, "tuple index out of range");
    LLVMValueRef len = lower_i64(L, t->nelems);
    LLVMValueRef i = lower_as_i64(L, n->b, iv, n->b->ty);
    if (ty_is_signed(n->b->ty))
        i = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, i, lower_i64(L, 0), ""), LLVMBuildAdd(L->b, i, len, ""),
                            i, "");
    /* out of range is always an error for tuples (CPython raises) */
    lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntUGE, i, len, ""), "IndexError", "tuple index out of range");
    LLVMValueRef slot = lower_alloca(L, lower_type(L, t), "tuple");
    LLVMBuildStore(L->b, tv, slot);
    LLVMTypeRef et = lower_type(L, t->elems[0]);
    LLVMValueRef p = LLVMBuildGEP2(L->b, et, slot, &i, 1, "");
    return lower_convert(L, n, lower_load(L, et, p, "item"), t->elems[0], n->ty);
}

LLVMValueRef lower_subscript(Lower *L, Node *n, bool *owned) {
    *owned = false;
    Type *aty = n->a->ty;
    if (aty->kind == TY_TUPLE)
        return tuple_subscript(L, n);
    if (aty->kind != TY_ARRAY)
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "unsupported subscript");
    if (n->idx_kind != IDX_INT)
        return lower_index_expr(L, n, owned); /* lower_index.c */
    LLVMValueRef arr = lower_expr_use(L, n->a);
    if (!arr)
        return NULL;
    LLVMValueRef idx[HJ_MAX_NDIM_LOWER];
    int k = 0;
    if (aty->ndim > HJ_MAX_NDIM_LOWER)
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "too many dimensions");
    if (!array_indices(L, n, arr, aty, idx, &k))
        return NULL;
    if (k == aty->ndim)
        return lower_convert(L, n, load_elem(L, elem_ptr(L, arr, aty, idx), aty->dtype), aty->dtype, n->ty);
    if (n->ty->kind != TY_ARRAY || n->ty->ndim != aty->ndim - k)
        return lower_fail(L, n, HJ_DIAG_LOWERING, "view of the wrong type");
    *owned = true;
    return make_view(L, arr, aty, idx, k, n->ty);
}

/* Store v into every element of a (view) array: loops over the axes
 * through the strides. */
static void fill_strided(Lower *L, LLVMValueRef arr, Type *aty, int d, LLVMValueRef p, LLVMValueRef v) {
    if (d == aty->ndim) {
        store_elem(L, p, v, aty->dtype);
        return;
    }
    CLoop lp;
    loop_begin(L, &lp, lower_array_dim(L, arr, ARR_SHAPE, d));
    LLVMValueRef off = LLVMBuildMul(L->b, lp.i, lower_array_dim(L, arr, ARR_STRIDES, d), "");
    fill_strided(L, arr, aty, d + 1, LLVMBuildGEP2(L->b, L->t_i8, p, &off, 1, ""), v);
    loop_end(L, &lp);
}

bool lower_store_subscript(Lower *L, Node *n, LLVMValueRef v, Type *t) {
    Type *aty = n->a->ty;
    const LibOps *own = lib_type_owner(aty); /* lst[i] = v, d[k] = v */
    if (own && own->lower_store)
        return own->lower_store(L, n, v, t);
    if (aty->kind != TY_ARRAY) {
        lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "only array elements can be assigned to");
        return false;
    }
    if (n->idx_kind != IDX_INT)
        return lower_index_store(L, n, v, t); /* lower_index.c */
    LLVMValueRef arr = lower_expr_use(L, n->a);
    if (!arr)
        return false;
    LLVMValueRef idx[HJ_MAX_NDIM_LOWER];
    int k = 0;
    if (aty->ndim > HJ_MAX_NDIM_LOWER) {
        lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "too many dimensions");
        return false;
    }
    if (!array_indices(L, n, arr, aty, idx, &k))
        return false;
    if (k < aty->ndim && !ty_is_number(t)) {
        lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "only a scalar can be assigned to a sub-array");
        return false;
    }
    LLVMValueRef x = lower_convert(L, n, v, t, aty->dtype);
    if (!x)
        return false;
    if (k == aty->ndim) {
        store_elem(L, elem_ptr(L, arr, aty, idx), x, aty->dtype);
        return true;
    }
    /* a[i] = scalar on a 2-D array: fill the row, as NumPy broadcasts */
    Type *vty = ty_array(L->c->tc, aty->dtype, aty->ndim - k, LAYOUT_A);
    LLVMValueRef view = make_view(L, arr, aty, idx, k, vty);
    fill_strided(L, view, vty, 0, lower_array_field(L, view, ARR_DATA, "data"), x);
    lower_decref(L, view, vty);
    return true;
}

LLVMValueRef lower_subscript_ptr(Lower *L, Node *n, Type **elty) {
    Type *aty = n->a->ty;
    if (aty->kind != TY_ARRAY)
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "only array elements can be assigned to");
    if (n->idx_kind != IDX_INT)
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "augmented assignment to a slice or an indexed selection is not supported yet");
    LLVMValueRef arr = lower_expr_use(L, n->a);
    if (!arr)
        return NULL;
    LLVMValueRef idx[HJ_MAX_NDIM_LOWER];
    int k = 0;
    if (aty->ndim > HJ_MAX_NDIM_LOWER)
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "too many dimensions");
    if (!array_indices(L, n, arr, aty, idx, &k))
        return NULL;
    if (k != aty->ndim)
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "assignment to a sub-array (slice assignment) is not supported");
    *elty = aty->dtype;
    return elem_ptr(L, arr, aty, idx);
}

/* ---- attributes and len ----------------------------------------------------------- */

static LLVMValueRef dims_tuple(Lower *L, LLVMValueRef arr, Type *aty, unsigned which, Type *rty) {
    LLVMValueRef r = LLVMGetUndef(lower_type(L, rty));
    for (int d = 0; d < aty->ndim; d++)
        r = LLVMBuildInsertValue(L->b, r, lower_array_dim(L, arr, which, d), (unsigned)d, "");
    return r;
}

LLVMValueRef lower_attribute(Lower *L, Node *n, bool *owned) {
    *owned = false;
    Type *bt = n->a->ty;
    switch (n->attr_kind) {
    case ATTR_LIB_VALUE: { /* cuda.threadIdx.x (registry.h infer_value) */
        const LibOps *f = lib_ops(n->builtin);
        if (!f || !f->lower_call)
            return lower_fail(L, n, HJ_DIAG_LOWERING, "no lowering for '%s'", builtin_name(n->builtin));
        return f->lower_call(L, n, owned);
    }
    case ATTR_MODULE:
    case ATTR_METHOD:
    case ATTR_ARRAY_DTYPE:
        return LLVMConstNull(lower_type(L, n->ty));
    default: break;
    }
    if (n->attr_kind == ATTR_RECORD_FIELD || n->attr_kind == ATTR_ARRAY_FIELD)
        return lower_record_attr(L, n, owned); /* lower_record.c */
    LLVMValueRef v = lower_expr_use(L, n->a);
    if (!v)
        return NULL;
    switch (n->attr_kind) {
    case ATTR_ARRAY_SHAPE: return dims_tuple(L, v, bt, ARR_SHAPE, n->ty);
    case ATTR_ARRAY_STRIDES: return dims_tuple(L, v, bt, ARR_STRIDES, n->ty);
    case ATTR_ARRAY_NDIM: return lower_convert(L, n, lower_i64(L, bt->ndim), t_i64(L), n->ty);
    case ATTR_ARRAY_SIZE: return lower_convert(L, n, lower_array_field(L, v, ARR_NITEMS, "size"), t_i64(L), n->ty);
    case ATTR_ARRAY_ITEMSIZE:
        return lower_convert(L, n, lower_i64(L, ty_itemsize(bt->dtype)), t_i64(L), n->ty);
    case ATTR_ARRAY_NBYTES:
        return LLVMBuildMul(L->b, lower_array_field(L, v, ARR_NITEMS, "size"), lower_i64(L, ty_itemsize(bt->dtype)),
                            "nbytes");
    case ATTR_ARRAY_CTYPES: return lower_array_field(L, v, ARR_DATA, "ctypes"); /* borrowed: a's lifetime */
    case ATTR_ARRAY_REAL:
    case ATTR_ARRAY_IMAG: return lower_ae_real_imag(L, n, v, owned); /* lower_arrayexpr.c */
    case ATTR_TUPLE_FIELD: return LLVMBuildExtractValue(L->b, v, (unsigned)n->cval.i, n->name); /* borrowed */
    case ATTR_COMPLEX_REAL:
    case ATTR_COMPLEX_IMAG:
        if (ty_is_complex(bt)) {
            Type *pt = ty_scalar(L->c->tc, bt->kind == TY_COMPLEX64 ? TY_FLOAT32 : TY_FLOAT64);
            LLVMValueRef p = LLVMBuildExtractValue(L->b, v, n->attr_kind == ATTR_COMPLEX_REAL ? 0 : 1, "");
            return lower_convert(L, n, p, pt, n->ty);
        }
        if (n->attr_kind == ATTR_COMPLEX_REAL)
            return lower_convert(L, n, v, bt, n->ty);
        return lower_zero(L, n->ty);
    default:
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "unsupported attribute '%s'", n->name ? n->name : "?");
    }
}

LLVMValueRef lower_len(Lower *L, const Node *at, LLVMValueRef v, Type *t) {
    switch (t->kind) {
    case TY_ARRAY:
        if (t->ndim == 0)
            return lower_fail(L, at, HJ_DIAG_TYPING, "len() of unsized object");
        return lower_array_dim(L, v, ARR_SHAPE, 0);
    case TY_TUPLE: return lower_i64(L, t->nelems);
    case TY_RANGE:
        return lower_range_len(L, LLVMBuildExtractValue(L->b, v, 0, ""), LLVMBuildExtractValue(L->b, v, 1, ""),
                               LLVMBuildExtractValue(L->b, v, 2, ""));
    default: {
        const LibOps *own = lib_type_owner(t); /* a str, list, dict, set */
        if (own && own->lower_len)
            return own->lower_len(L, at, v, t);
        return lower_fail(L, at, HJ_DIAG_TYPING, "object has no len()");
    }
    }
}

/* ---- allocation ---------------------------------------------------------------- */

/* A new array of type aty with dims[0..nd): sizes checked, memory from the
 * runtime (zeroed when asked), C or F strides; owned. */
static LLVMValueRef alloc_array(Lower *L, Type *aty, LLVMValueRef *dims, bool zeroed) {
    int nd = aty->ndim;
    int64_t isz = ty_itemsize(aty->dtype);
    LLVMValueRef zero = lower_i64(L, 0);
    LLVMValueRef neg = LLVMConstInt(L->t_i1, 0, 0);
    for (int d = 0; d < nd; d++)
        neg = LLVMBuildOr(L->b, neg, LLVMBuildICmp(L->b, LLVMIntSLT, dims[d], zero, ""), "");
    lower_raise_if(L, neg, "ValueError", "negative dimensions are not allowed");
    LLVMTypeRef tys[1] = {L->t_i64};
    LLVMValueRef nitems = lower_i64(L, 1), ovf = LLVMConstInt(L->t_i1, 0, 0);
    for (int d = 0; d < nd + 1; d++) {
        LLVMValueRef a[2] = {nitems, d < nd ? dims[d] : lower_i64(L, isz)};
        LLVMValueRef r = lower_intrinsic(L, "llvm.smul.with.overflow", tys, 1, a, 2);
        ovf = LLVMBuildOr(L->b, ovf, LLVMBuildExtractValue(L->b, r, 1, ""), "");
        if (d < nd)
            nitems = LLVMBuildExtractValue(L->b, r, 0, "nitems");
        else
            a[0] = LLVMBuildExtractValue(L->b, r, 0, "nbytes"), dims[nd] = a[0];
    }
    LLVMValueRef nbytes = dims[nd];
    lower_raise_if(L, ovf, "MemoryError",
                   "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.");
    LLVMTypeRef pt = L->t_i64;
    LLVMValueRef mi = lower_rt(L, zeroed ? "rt_alloc_zeroed" : "rt_alloc", L->t_ptr, &pt, 1, &nbytes);
    LLVMBasicBlockRef ok = lower_branch_raise(L, LLVMBuildIsNull(L->b, mi, ""), "alloc.failed");
    lower_goto_error(L); /* the runtime has set MemoryError/ValueError */
    lower_at(L, ok);
    LLVMValueRef dp = LLVMBuildStructGEP2(L->b, L->t_meminfo, mi, 1, "");
    LLVMValueRef data = lower_load(L, L->t_ptr, dp, "data");
    LLVMTypeRef dims_t = LLVMArrayType2(L->t_i64, (uint64_t)nd);
    LLVMValueRef shape = LLVMGetUndef(dims_t), strides = LLVMGetUndef(dims_t);
    LLVMValueRef acc = lower_i64(L, isz);
    bool f = aty->layout == LAYOUT_F;
    for (int k = 0; k < nd; k++) {
        int d = f ? k : nd - 1 - k;
        shape = LLVMBuildInsertValue(L->b, shape, dims[d], (unsigned)d, "");
        strides = LLVMBuildInsertValue(L->b, strides, acc, (unsigned)d, "");
        acc = LLVMBuildMul(L->b, acc, dims[d], "");
    }
    LLVMValueRef v = LLVMGetUndef(lower_type(L, aty));
    v = LLVMBuildInsertValue(L->b, v, mi, ARR_MEMINFO, "");
    v = LLVMBuildInsertValue(L->b, v, LLVMConstNull(L->t_ptr), ARR_PARENT, "");
    v = LLVMBuildInsertValue(L->b, v, nitems, ARR_NITEMS, "");
    v = LLVMBuildInsertValue(L->b, v, lower_i64(L, isz), ARR_ITEMSIZE, "");
    v = LLVMBuildInsertValue(L->b, v, data, ARR_DATA, "");
    v = LLVMBuildInsertValue(L->b, v, shape, ARR_SHAPE, "");
    return LLVMBuildInsertValue(L->b, v, strides, ARR_STRIDES, "array");
}

LLVMValueRef lower_alloc_array(Lower *L, Type *aty, LLVMValueRef *dims, bool zeroed) {
    return alloc_array(L, aty, dims, zeroed);
}

static void fill_array(Lower *L, LLVMValueRef arr, Type *dt, LLVMValueRef val) {
    CLoop lp;
    LLVMValueRef data = lower_array_field(L, arr, ARR_DATA, "data");
    loop_begin(L, &lp, lower_array_field(L, arr, ARR_NITEMS, "nitems"));
    store_elem(L, lower_gep(L, lower_elem_type(L, dt), data, &lp.i, 1, ""), val, dt);
    loop_end(L, &lp);
}

/* Shape argument: an int or a tuple of ints, into dims[0..nd). */
static bool shape_dims(Lower *L, Node *n, Node *s, int nd, LLVMValueRef *dims) {
    if (!s)
        return lower_fail(L, n, HJ_DIAG_TYPING, "missing shape argument"), false;
    LLVMValueRef v = lower_expr_use(L, s);
    if (!v)
        return false;
    if (ty_is_int(s->ty) || s->ty->kind == TY_BOOL) {
        if (nd != 1)
            return lower_fail(L, n, HJ_DIAG_LOWERING, "shape does not match the array type"), false;
        dims[0] = lower_as_i64(L, s, v, s->ty);
        return dims[0] != NULL;
    }
    if (s->ty->kind == TY_TUPLE && s->ty->nelems == nd) {
        for (int d = 0; d < nd; d++) {
            dims[d] = lower_as_i64(L, s, LLVMBuildExtractValue(L->b, v, (unsigned)d, ""), s->ty->elems[d]);
            if (!dims[d])
                return false;
        }
        return true;
    }
    lower_fail(L, s, HJ_DIAG_UNSUPPORTED, "the shape must be an int or a tuple of ints");
    return false;
}

static LLVMValueRef one_of(Lower *L, Type *dt) {
    if (ty_is_float(dt))
        return LLVMConstReal(lower_type(L, dt), 1.0);
    if (ty_is_complex(dt)) {
        LLVMTypeRef pt = dt->kind == TY_COMPLEX64 ? L->t_f32 : L->t_f64;
        LLVMValueRef p[2] = {LLVMConstReal(pt, 1.0), LLVMConstReal(pt, 0.0)};
        return LLVMConstStructInContext(L->ctx, p, 2, 0);
    }
    return LLVMConstInt(lower_type(L, dt), 1, 0);
}

static LLVMValueRef np_alloc(Lower *L, Node *n, bool *owned) {
    Type *aty = n->ty;
    if (aty->kind != TY_ARRAY || aty->ndim > HJ_MAX_NDIM_LOWER)
        return lower_fail(L, n, HJ_DIAG_LOWERING, "allocation without an array type");
    LLVMValueRef dims[HJ_MAX_NDIM_LOWER + 1];
    BuiltinId b = n->builtin;
    bool like = b == BI_NP_EMPTY_LIKE || b == BI_NP_ZEROS_LIKE || b == BI_NP_ONES_LIKE;
    if (like) {
        Node *src = arg(n, 0);
        if (!src || src->ty->kind != TY_ARRAY || src->ty->ndim != aty->ndim)
            return lower_fail(L, n, HJ_DIAG_LOWERING, "_like of a non-array");
        LLVMValueRef a = lower_expr_use(L, src);
        if (!a)
            return NULL;
        for (int d = 0; d < aty->ndim; d++)
            dims[d] = lower_array_dim(L, a, ARR_SHAPE, d);
    } else if (!shape_dims(L, n, arg(n, 0), aty->ndim, dims)) {
        return NULL;
    }
    bool zeroed = b == BI_NP_ZEROS || b == BI_NP_ZEROS_LIKE;
    LLVMValueRef v = alloc_array(L, aty, dims, zeroed);
    if (b == BI_NP_ONES || b == BI_NP_ONES_LIKE)
        fill_array(L, v, aty->dtype, one_of(L, aty->dtype));
    *owned = true;
    return v;
}

/* np.arange([start,] stop[, step]): length ceil((stop - start) / step). */
static LLVMValueRef np_arange(Lower *L, Node *n, bool *owned) {
    Type *aty = n->ty, *dt = aty->dtype;
    Node *a[3] = {NULL, NULL, NULL};
    int k = 0;
    for (int i = 0; i < n->args.len && k < 3; i++) {
        Node *e = VEC_AT(n->args, i);
        if (e && ty_is_number(e->ty))
            a[k++] = e;
    }
    if (k == 0)
        return lower_fail(L, n, HJ_DIAG_TYPING, "arange() requires stop to be specified");
    bool fl = !ty_is_int(dt);
    if (ty_is_complex(dt))
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "complex arange");
    Type *ct = fl ? dt : t_i64(L); /* computed in the dtype (ints in int64) */
    LLVMValueRef v[3];
    for (int i = 0; i < k; i++) {
        v[i] = lower_convert(L, a[i], lower_expr_use(L, a[i]), a[i]->ty, ct);
        if (!v[i])
            return NULL;
    }
    LLVMValueRef start, stop, step;
    LLVMTypeRef lt = lower_type(L, ct);
    if (k == 1)
        start = LLVMConstNull(lt), stop = v[0], step = fl ? LLVMConstReal(lt, 1.0) : lower_i64(L, 1);
    else
        start = v[0], stop = v[1], step = k == 3 ? v[2] : (fl ? LLVMConstReal(lt, 1.0) : lower_i64(L, 1));
    LLVMValueRef len;
    if (fl) {
        lower_raise_if(L, lower_fm(L, LLVMBuildFCmp(L->b, LLVMRealOEQ, step, LLVMConstNull(lt), "")),
                       "ZeroDivisionError", "division by zero");
        LLVMValueRef q = lower_fm(L, LLVMBuildFDiv(L->b, lower_fm(L, LLVMBuildFSub(L->b, stop, start, "")), step, ""));
        LLVMTypeRef tys[1] = {lt};
        q = lower_intrinsic(L, "llvm.ceil", tys, 1, &q, 1);
        LLVMValueRef pos = lower_fm(L, LLVMBuildFCmp(L->b, LLVMRealOGT, q, LLVMConstNull(lt), ""));
        len = LLVMBuildSelect(L->b, pos, LLVMBuildFPToSI(L->b, q, L->t_i64, ""), lower_i64(L, 0), "len");
    } else {
        lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntEQ, step, lower_i64(L, 0), ""), "ZeroDivisionError",
                       "division by zero");
        len = lower_range_len(L, start, stop, step);
    }
    LLVMValueRef dims[2] = {len, NULL};
    LLVMValueRef arr = alloc_array(L, aty, dims, false);
    CLoop lp;
    LLVMValueRef data = lower_array_field(L, arr, ARR_DATA, "data");
    loop_begin(L, &lp, len);
    LLVMValueRef x;
    if (fl)
        x = lower_fm(L, LLVMBuildFAdd(L->b, start,
                                      lower_fm(L, LLVMBuildFMul(L->b, LLVMBuildSIToFP(L->b, lp.i, lt, ""), step, "")), ""));
    else
        x = LLVMBuildAdd(L->b, start, LLVMBuildMul(L->b, lp.i, step, ""), "");
    x = lower_convert(L, n, x, ct, dt);
    store_elem(L, lower_gep(L, lower_elem_type(L, dt), data, &lp.i, 1, ""), x, dt);
    loop_end(L, &lp);
    *owned = true;
    return arr;
}

/* arr.copy() / np.copy(arr): a new array, any source layout. */
/* dst[...] = src[...] over sh[d..nd) (byte strides ss / ds). */
static void copy_nest(Lower *L, int d, int nd, LLVMValueRef *sh, LLVMValueRef sp, LLVMValueRef *ss, Type *sdt,
                      LLVMValueRef dp, LLVMValueRef *ds, Type *ddt) {
    if (nd == 0) {
        store_elem(L, dp, load_elem(L, sp, sdt), ddt);
        return;
    }
    if (d < nd - 1) {
        CLoop lp;
        loop_begin(L, &lp, sh[d]);
        LLVMValueRef so = LLVMBuildMul(L->b, lp.i, ss[d], ""), doff = LLVMBuildMul(L->b, lp.i, ds[d], "");
        copy_nest(L, d + 1, nd, sh, LLVMBuildGEP2(L->b, L->t_i8, sp, &so, 1, ""), ss, sdt,
                  LLVMBuildGEP2(L->b, L->t_i8, dp, &doff, 1, ""), ds, ddt);
        loop_end(L, &lp);
        return;
    }
    LLVMValueRef unit = LLVMBuildAnd(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, ss[d], lower_i64(L, ty_itemsize(sdt)), ""),
                                     LLVMBuildICmp(L->b, LLVMIntEQ, ds[d], lower_i64(L, ty_itemsize(ddt)), ""), "");
    LLVMBasicBlockRef cont = lower_block(L, "copy.unit"), strided = lower_block(L, "copy.strided"),
                      done = lower_block(L, "copy.row");
    LLVMBuildCondBr(L->b, unit, cont, strided);
    for (int pass = 0; pass < 2; pass++) {
        lower_at(L, pass ? strided : cont);
        CLoop lp;
        loop_begin(L, &lp, sh[d]);
        LLVMValueRef a, b;
        if (pass) {
            LLVMValueRef so = LLVMBuildMul(L->b, lp.i, ss[d], ""), doff = LLVMBuildMul(L->b, lp.i, ds[d], "");
            a = LLVMBuildGEP2(L->b, L->t_i8, sp, &so, 1, "");
            b = LLVMBuildGEP2(L->b, L->t_i8, dp, &doff, 1, "");
        } else {
            a = lower_gep(L, lower_mem_type(L, sdt), sp, &lp.i, 1, "");
            b = lower_gep(L, lower_mem_type(L, ddt), dp, &lp.i, 1, "");
        }
        store_elem(L, b, load_elem(L, a, sdt), ddt);
        loop_end(L, &lp);
        LLVMBuildBr(L->b, done);
    }
    lower_at(L, done);
}

static LLVMValueRef array_copy(Lower *L, Node *n, bool *owned) {
    Node *src = n->self_node ? n->self_node : arg(n, 0);
    Type *aty = n->ty;
    if (!src || src->ty->kind != TY_ARRAY || aty->kind != TY_ARRAY || aty->ndim > HJ_MAX_NDIM_LOWER)
        return lower_fail(L, n, HJ_DIAG_LOWERING, "copy of a non-array");
    Type *sty = src->ty;
    LLVMValueRef s = lower_expr_use(L, src);
    if (!s)
        return NULL;
    LLVMValueRef dims[HJ_MAX_NDIM_LOWER + 1];
    int nd = sty->ndim;
    for (int d = 0; d < nd; d++)
        dims[d] = lower_array_dim(L, s, ARR_SHAPE, d);
    LLVMValueRef r = alloc_array(L, aty, dims, false);
    LLVMValueRef sdata = lower_array_field(L, s, ARR_DATA, "src");
    LLVMValueRef ddata = lower_array_field(L, r, ARR_DATA, "dst");
    int64_t isz = ty_itemsize(aty->dtype);
    if (nd <= 1 ? sty->layout != LAYOUT_A : sty->layout == aty->layout) {
        LLVMValueRef nb = LLVMBuildMul(L->b, lower_array_field(L, r, ARR_NITEMS, ""), lower_i64(L, isz), "");
        LLVMBuildMemCpy(L->b, ddata, 64, sdata, (unsigned)isz, nb);
    } else {
        /* layouts differ: a nest over the shape in the destination's order,
         * the innermost axis a typed (vectorizable) loop when both sides are
         * contiguous along it */
        LLVMValueRef sst[HJ_MAX_NDIM_LOWER], dst[HJ_MAX_NDIM_LOWER], sh[HJ_MAX_NDIM_LOWER];
        bool cdst = aty->layout != LAYOUT_F;
        for (int k = 0; k < nd; k++) {
            int d = cdst ? k : nd - 1 - k;
            sh[k] = dims[d];
            sst[k] = lower_array_dim(L, s, ARR_STRIDES, d);
            dst[k] = lower_array_dim(L, r, ARR_STRIDES, d);
        }
        copy_nest(L, 0, nd, sh, sdata, sst, sty->dtype, ddata, dst, aty->dtype);
    }
    *owned = true;
    return r;
}

/* ---- math ------------------------------------------------------------------------ */

static LLVMTypeRef float_of(Lower *L, Type *t, Type **ft) {
    *ft = t->kind == TY_FLOAT32 || t->kind == TY_FLOAT16 ? ty_scalar(L->c->tc, t->kind) : t_f64(L);
    return lower_type(L, *ft);
}

/* One float argument converted to its float type (int -> float64). */
static LLVMValueRef float_arg(Lower *L, Node *e, Type **ft) {
    LLVMValueRef v = lower_expr_use(L, e);
    if (!v)
        return NULL;
    float_of(L, e->ty, ft);
    return lower_convert(L, e, v, e->ty, *ft);
}

static LLVMValueRef libm1(Lower *L, const char *name, Type *ft, LLVMValueRef x) {
    char buf[32];
    snprintf(buf, sizeof buf, "%s%s", name, ft->kind == TY_FLOAT32 ? "f" : "");
    LLVMTypeRef t = lower_type(L, ft);
    return lower_rt_math(L, buf, t, &t, 1, &x);
}

static LLVMValueRef libm2(Lower *L, const char *name, Type *ft, LLVMValueRef x, LLVMValueRef y) {
    char buf[32];
    snprintf(buf, sizeof buf, "%s%s", name, ft->kind == TY_FLOAT32 ? "f" : "");
    LLVMTypeRef t = lower_type(L, ft);
    LLVMTypeRef p[2] = {t, t};
    LLVMValueRef a[2] = {x, y};
    return lower_rt_math(L, buf, t, p, 2, a);
}

static LLVMValueRef intr1(Lower *L, const char *name, Type *ft, LLVMValueRef x) {
    LLVMTypeRef t = lower_type(L, ft);
    return lower_intrinsic(L, name, &t, 1, &x, 1);
}

static LLVMValueRef intr2(Lower *L, const char *name, Type *ft, LLVMValueRef x, LLVMValueRef y) {
    LLVMTypeRef t = lower_type(L, ft);
    LLVMValueRef a[2] = {x, y};
    return lower_intrinsic(L, name, &t, 1, a, 2);
}

static const char *intrinsic_of(BuiltinId b) {
    switch (b) {
    case BI_MATH_SQRT: case BI_NP_SQRT: return "llvm.sqrt";
    case BI_MATH_EXP: case BI_NP_EXP: return "llvm.exp";
    case BI_MATH_LOG: case BI_NP_LOG: return "llvm.log";
    case BI_MATH_LOG10: return "llvm.log10";
    case BI_MATH_LOG2: return "llvm.log2";
    case BI_MATH_SIN: case BI_NP_SIN: return "llvm.sin";
    case BI_MATH_COS: case BI_NP_COS: return "llvm.cos";
    case BI_MATH_FABS: return "llvm.fabs";
    case BI_MATH_FLOOR: case BI_NP_FLOOR: return "llvm.floor";
    case BI_MATH_CEIL: case BI_NP_CEIL: return "llvm.ceil";
    case BI_MATH_TRUNC: return "llvm.trunc";
    default: return NULL;
    }
}

static const char *libm_of(BuiltinId b) {
    switch (b) {
    case BI_MATH_TAN: case BI_NP_TAN: return "tan";
    case BI_MATH_ASIN: return "asin";
    case BI_MATH_ACOS: return "acos";
    case BI_MATH_ATAN: return "atan";
    case BI_MATH_SINH: return "sinh";
    case BI_MATH_COSH: return "cosh";
    case BI_MATH_TANH: return "tanh";
    case BI_MATH_ASINH: return "asinh";
    case BI_MATH_ACOSH: return "acosh";
    case BI_MATH_ATANH: return "atanh";
    case BI_MATH_ERF: return "erf";
    case BI_MATH_ERFC: return "erfc";
    case BI_MATH_EXPM1: return "expm1";
    case BI_MATH_LOG1P: return "log1p";
    case BI_MATH_GAMMA: return "tgamma";
    case BI_MATH_LGAMMA: return "lgamma";
    default: return NULL;
    }
}

/* Integers through floor/ceil/trunc/fabs stay exact: no float round trip. */
static LLVMValueRef math1(Lower *L, Node *n) {
    BuiltinId b = n->builtin;
    Node *e = arg(n, 0);
    if (!e)
        return lower_fail(L, n, HJ_DIAG_TYPING, "%s() takes one argument", builtin_name(b));
    if ((ty_is_int(e->ty) || e->ty->kind == TY_BOOL) &&
        (b == BI_MATH_FLOOR || b == BI_MATH_CEIL || b == BI_MATH_TRUNC) && ty_is_int(n->ty)) {
        LLVMValueRef v = lower_expr_use(L, e);
        return lower_convert(L, n, v, e->ty, n->ty);
    }
    if (ty_is_complex(e->ty)) /* complex goes through the ufunc kernels (lower_cmath.c) */
        return lower_fail(L, n, HJ_DIAG_LOWERING, "%s() of a complex value", builtin_name(b));
    Type *ft = NULL;
    LLVMValueRef x = float_arg(L, e, &ft);
    if (!x)
        return NULL;
    const char *in = intrinsic_of(b), *lm = libm_of(b);
    LLVMValueRef r;
    if (in)
        r = intr1(L, in, ft, x);
    else if (lm)
        r = libm1(L, lm, ft, x);
    else
        return NULL;
    return lower_convert(L, n, r, ft, n->ty);
}

static LLVMValueRef gcd(Lower *L, Node *n) {
    Node *a0 = arg(n, 0), *a1 = arg(n, 1);
    if (!a0 || !a1)
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "math.gcd() with other than two arguments");
    LLVMValueRef x = lower_as_i64(L, a0, lower_expr_use(L, a0), a0->ty);
    LLVMValueRef y = lower_as_i64(L, a1, lower_expr_use(L, a1), a1->ty);
    if (!x || !y)
        return NULL;
    LLVMValueRef zero = lower_i64(L, 0);
    x = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, x, zero, ""), LLVMBuildNeg(L->b, x, ""), x, "");
    y = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, y, zero, ""), LLVMBuildNeg(L->b, y, ""), y, "");
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(L->b);
    LLVMBasicBlockRef head = lower_block(L, "gcd.head"), body = lower_block(L, "gcd.body"), end = lower_block(L, "gcd.end");
    LLVMBuildBr(L->b, head);
    lower_at(L, head);
    LLVMValueRef pa = LLVMBuildPhi(L->b, L->t_i64, "a"), pb = LLVMBuildPhi(L->b, L->t_i64, "b");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, pb, zero, ""), end, body);
    lower_at(L, body);
    LLVMValueRef r = LLVMBuildURem(L->b, pa, pb, "");
    LLVMBuildBr(L->b, head);
    LLVMValueRef ia[2] = {x, pb}, ib[2] = {y, r};
    LLVMBasicBlockRef from[2] = {pre, body};
    LLVMAddIncoming(pa, ia, from, 2);
    LLVMAddIncoming(pb, ib, from, 2);
    lower_at(L, end);
    return lower_convert(L, n, pa, t_i64(L), n->ty);
}

static LLVMValueRef math_call(Lower *L, Node *n, bool *handled) {
    BuiltinId b = n->builtin;
    *handled = true;
    if (intrinsic_of(b) || libm_of(b)) {
        if (b == BI_MATH_LOG && nargs_present(n) == 2) {
            Type *ft = NULL, *ft2 = NULL;
            LLVMValueRef x = float_arg(L, arg(n, 0), &ft);
            LLVMValueRef base = float_arg(L, arg(n, 1), &ft2);
            if (!x || !base)
                return NULL;
            x = lower_convert(L, n, x, ft, t_f64(L));
            base = lower_convert(L, n, base, ft2, t_f64(L));
            LLVMValueRef r = lower_fm(L, LLVMBuildFDiv(L->b, intr1(L, "llvm.log", t_f64(L), x),
                                                       intr1(L, "llvm.log", t_f64(L), base), ""));
            return lower_convert(L, n, r, t_f64(L), n->ty);
        }
        return math1(L, n);
    }
    Type *ft = NULL, *ft2 = NULL;
    switch (b) {
    case BI_MATH_ATAN2: case BI_NP_ARCTAN2:
    case BI_MATH_HYPOT: case BI_NP_HYPOT:
    case BI_MATH_COPYSIGN: case BI_MATH_POW: case BI_MATH_FMOD: {
        Node *a0 = arg(n, 0), *a1 = arg(n, 1);
        if (!a0 || !a1)
            return lower_fail(L, n, HJ_DIAG_TYPING, "%s() takes two arguments", builtin_name(b));
        LLVMValueRef x = float_arg(L, a0, &ft), y = float_arg(L, a1, &ft2);
        if (!x || !y)
            return NULL;
        if (ft != ft2) { /* mixed widths: float64 */
            x = lower_convert(L, n, x, ft, t_f64(L));
            y = lower_convert(L, n, y, ft2, t_f64(L));
            ft = t_f64(L);
        }
        LLVMValueRef r;
        if (b == BI_MATH_COPYSIGN)
            r = intr2(L, "llvm.copysign", ft, x, y);
        else if (b == BI_MATH_POW)
            r = intr2(L, "llvm.pow", ft, x, y);
        else if (b == BI_MATH_FMOD) /* C's fmod: the sign of x (a zero y gives NaN, as Numba's domain rule) */
            r = LLVMBuildFRem(L->b, x, y, "fmod");
        else
            r = libm2(L, b == BI_MATH_HYPOT || b == BI_NP_HYPOT ? "hypot" : "atan2", ft, x, y);
        return lower_convert(L, n, r, ft, n->ty);
    }
    case BI_MATH_DEGREES:
    case BI_MATH_RADIANS: {
        LLVMValueRef x = float_arg(L, arg(n, 0), &ft);
        if (!x)
            return NULL;
        double k = b == BI_MATH_DEGREES ? 180.0 / M_PI : M_PI / 180.0;
        LLVMValueRef r = lower_fm(L, LLVMBuildFMul(L->b, x, LLVMConstReal(lower_type(L, ft), k), ""));
        return lower_convert(L, n, r, ft, n->ty);
    }
    case BI_MATH_ISNAN:
    case BI_MATH_ISINF:
    case BI_MATH_ISFINITE: {
        Node *e = arg(n, 0);
        if (!e)
            return lower_fail(L, n, HJ_DIAG_TYPING, "%s() takes one argument", builtin_name(b));
        if (!ty_is_float(e->ty)) {
            LLVMValueRef v = lower_expr_use(L, e); /* evaluated for its effects */
            if (!v)
                return NULL;
            return lower_convert(L, n, LLVMConstInt(L->t_i1, b == BI_MATH_ISFINITE, 0), ty_scalar(L->c->tc, TY_BOOL), n->ty);
        }
        LLVMValueRef x = float_arg(L, e, &ft);
        if (!x)
            return NULL;
        LLVMValueRef r;
        /* no fast-math here: the question is about NaN and inf */
        if (b == BI_MATH_ISNAN)
            r = LLVMBuildFCmp(L->b, LLVMRealUNO, x, x, "");
        else {
            LLVMTypeRef t = lower_type(L, ft);
            unsigned id = LLVMLookupIntrinsicID("llvm.fabs", 9);
            LLVMValueRef fn = LLVMGetIntrinsicDeclaration(L->mod, id, &t, 1);
            LLVMValueRef ax = lower_call(L, LLVMIntrinsicGetType(L->ctx, id, &t, 1), fn, &x, 1, "");
            r = LLVMBuildFCmp(L->b, b == BI_MATH_ISINF ? LLVMRealOEQ : LLVMRealOLT, ax, LLVMConstReal(t, INFINITY), "");
        }
        return lower_convert(L, n, r, ty_scalar(L->c->tc, TY_BOOL), n->ty);
    }
    case BI_MATH_LDEXP: {
        Node *e1 = arg(n, 1);
        LLVMValueRef x = float_arg(L, arg(n, 0), &ft);
        LLVMValueRef i = e1 ? lower_expr_use(L, e1) : NULL;
        if (!x || !i)
            return NULL;
        i = lower_convert(L, e1, i, e1->ty, ty_scalar(L->c->tc, TY_INT32));
        LLVMTypeRef t = lower_type(L, ft);
        LLVMTypeRef p[2] = {t, L->t_i32};
        LLVMValueRef a[2] = {x, i};
        LLVMValueRef r = lower_rt(L, ft->kind == TY_FLOAT32 ? "ldexpf" : "ldexp", t, p, 2, a);
        return lower_convert(L, n, r, ft, n->ty);
    }
    case BI_MATH_FREXP:
    case BI_MATH_MODF: {
        LLVMValueRef x = float_arg(L, arg(n, 0), &ft);
        if (!x)
            return NULL;
        LLVMTypeRef t = lower_type(L, ft);
        bool fr = b == BI_MATH_FREXP;
        LLVMValueRef out = lower_alloca(L, fr ? L->t_i32 : t, "out");
        LLVMTypeRef p[2] = {t, L->t_ptr};
        LLVMValueRef a[2] = {x, out};
        const char *name = fr ? (ft->kind == TY_FLOAT32 ? "frexpf" : "frexp") : (ft->kind == TY_FLOAT32 ? "modff" : "modf");
        LLVMValueRef m = lower_rt(L, name, t, p, 2, a);
        LLVMValueRef o = lower_load(L, fr ? L->t_i32 : t, out, "");
        Type *elems[2];
        LLVMValueRef vals[2];
        elems[0] = ft;
        vals[0] = m;
        if (fr) {
            elems[1] = ty_scalar(L->c->tc, TY_INT32);
            vals[1] = o;
        } else {
            /* modf returns (fractional, integral) */
            elems[1] = ft;
            vals[1] = o;
        }
        Type *tt = ty_tuple(L->c->tc, elems, 2);
        LLVMValueRef r = LLVMGetUndef(lower_type(L, tt));
        r = LLVMBuildInsertValue(L->b, r, vals[0], 0, "");
        r = LLVMBuildInsertValue(L->b, r, vals[1], 1, "");
        return lower_convert(L, n, r, tt, n->ty);
    }
    case BI_MATH_GCD: return gcd(L, n);
    default: break;
    }
    *handled = false;
    return NULL;
}

/* cmath: the complex kernels shared with np ufuncs (lower_cmath.c); the
 * argument is already cast to its complex type (infer_call.c). */
static LLVMValueRef cmath_call(Lower *L, Node *n, bool *handled) {
    BuiltinId b = n->builtin;
    *handled = true;
    Node *e = arg(n, 0);
    if (!e)
        return lower_fail(L, n, HJ_DIAG_TYPING, "%s() takes an argument", builtin_name(b));
    LLVMValueRef z = lower_expr_use(L, e);
    if (!z)
        return NULL;
    Type *ct = e->ty;
    if (b == BI_CMATH_RECT) { /* (r, phi), both float64 */
        LLVMValueRef phi = lower_expr_use(L, arg(n, 1));
        if (!phi)
            return NULL;
        Type *ft = t_f64(L);
        LLVMValueRef re = lower_fm(L, LLVMBuildFMul(L->b, z, intr1(L, "llvm.cos", ft, phi), ""));
        LLVMValueRef im = lower_fm(L, LLVMBuildFMul(L->b, z, intr1(L, "llvm.sin", ft, phi), ""));
        /* phi == 0: (r, 0) exactly, also for an infinite r */
        LLVMValueRef zero = LLVMBuildFCmp(L->b, LLVMRealOEQ, phi, LLVMConstReal(L->t_f64, 0.0), "");
        LLVMValueRef one = LLVMConstReal(L->t_f64, 1.0);
        re = LLVMBuildSelect(L->b, zero, z, re, "");
        im = LLVMBuildSelect(L->b, zero, LLVMBuildFMul(L->b, phi, intr2(L, "llvm.copysign", ft, one, z), ""), im, "");
        return lower_cmath_make(L, n->ty, re, im);
    }
    if (!ty_is_complex(ct))
        return lower_fail(L, n, HJ_DIAG_LOWERING, "%s() of a non-complex value", builtin_name(b));
    Type *ft = ty_scalar(L->c->tc, ct->kind == TY_COMPLEX64 ? TY_FLOAT32 : TY_FLOAT64);
    LLVMValueRef re = lower_cmath_part(L, z, 0), im = lower_cmath_part(L, z, 1);
    switch (b) {
    case BI_CMATH_ISNAN: case BI_CMATH_ISINF: case BI_CMATH_ISFINITE: {
        LLVMValueRef r;
        if (b == BI_CMATH_ISNAN) {
            r = LLVMBuildOr(L->b, LLVMBuildFCmp(L->b, LLVMRealUNO, re, re, ""),
                            LLVMBuildFCmp(L->b, LLVMRealUNO, im, im, ""), "isnan");
        } else {
            LLVMValueRef inf = LLVMConstReal(lower_type(L, ft), INFINITY);
            LLVMValueRef ar = intr1(L, "llvm.fabs", ft, re), ai = intr1(L, "llvm.fabs", ft, im);
            if (b == BI_CMATH_ISINF)
                r = LLVMBuildOr(L->b, LLVMBuildFCmp(L->b, LLVMRealOEQ, ar, inf, ""),
                                LLVMBuildFCmp(L->b, LLVMRealOEQ, ai, inf, ""), "isinf");
            else
                r = LLVMBuildAnd(L->b, LLVMBuildFCmp(L->b, LLVMRealOLT, ar, inf, ""),
                                 LLVMBuildFCmp(L->b, LLVMRealOLT, ai, inf, ""), "isfinite");
        }
        return lower_convert(L, n, r, ty_scalar(L->c->tc, TY_BOOL), n->ty);
    }
    case BI_CMATH_PHASE:
        return libm2(L, "atan2", ft, im, re);
    case BI_CMATH_POLAR: {
        LLVMValueRef r = LLVMGetUndef(lower_type(L, n->ty));
        r = LLVMBuildInsertValue(L->b, r, libm2(L, "hypot", ft, re, im), 0, "");
        return LLVMBuildInsertValue(L->b, r, libm2(L, "atan2", ft, im, re), 1, "polar");
    }
    default: break;
    }
    int code = lower_cmath_code(b);
    if (code < 0)
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "%s() is not supported in compiled code", builtin_name(b));
    LLVMValueRef r = lower_cmath(L, code, ct, z);
    if (b == BI_CMATH_LOG && arg(n, 1)) { /* log(z, base) = log(z) / log(base) */
        LLVMValueRef base = lower_expr_use(L, arg(n, 1));
        if (!base)
            return NULL;
        Type *rt = NULL;
        r = lower_binop(L, n, OP_DIV, ct, r, lower_cmath(L, RT_CM_LOG, ct, base), &rt);
    }
    return r;
}

/* ---- Python builtins -------------------------------------------------------------------- */

static LLVMValueRef abs_value(Lower *L, Node *n) {
    Node *e = arg(n, 0);
    if (!e)
        return lower_fail(L, n, HJ_DIAG_TYPING, "abs() takes one argument");
    LLVMValueRef v = lower_expr_use(L, e);
    if (!v)
        return NULL;
    Type *t = e->ty;
    LLVMValueRef r;
    if (t->kind == TY_BOOL) {
        t = t_i64(L);
        v = lower_convert(L, n, v, e->ty, t);
    }
    if (ty_is_signed(t)) {
        /* wraps for the most negative value, like Numba */
        r = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, v, LLVMConstNull(LLVMTypeOf(v)), ""),
                            LLVMBuildNeg(L->b, v, ""), v, "abs");
    } else if (ty_is_unsigned(t)) {
        r = v;
    } else if (ty_is_float(t)) {
        r = intr1(L, "llvm.fabs", t, v);
    } else if (ty_is_complex(t)) {
        Type *ft = ty_scalar(L->c->tc, t->kind == TY_COMPLEX64 ? TY_FLOAT32 : TY_FLOAT64);
        r = libm2(L, "hypot", ft, LLVMBuildExtractValue(L->b, v, 0, ""), LLVMBuildExtractValue(L->b, v, 1, ""));
        t = ft;
    } else {
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "abs() of this type");
    }
    return lower_convert(L, n, r, t, n->ty);
}

/* min/max like Python: keep the first, replace when strictly better; NaN
 * compares false so a leading NaN stays and a later one is skipped. */
static LLVMValueRef minmax(Lower *L, Node *n) {
    bool is_min = n->builtin == BI_MIN;
    Type *t = n->ty;
    if ((!ty_is_number(t) && !ty_is_npdt(t)) || ty_is_complex(t))
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "%s() of this type", is_min ? "min" : "max");
    OpKind op = is_min ? OP_LT : OP_GT;
    int np = nargs_present(n);
    LLVMValueRef cur = NULL;
    if (np == 1) {
        Node *e = arg(n, 0);
        LLVMValueRef v = lower_expr_use(L, e);
        if (!v)
            return NULL;
        if (e->ty->kind == TY_TUPLE) {
            if (e->ty->nelems == 0)
                return lower_fail(L, n, HJ_DIAG_TYPING, "%s() arg is an empty sequence", is_min ? "min" : "max");
            for (int i = 0; i < e->ty->nelems; i++) {
                LLVMValueRef x = lower_convert(L, n, LLVMBuildExtractValue(L->b, v, (unsigned)i, ""), e->ty->elems[i], t);
                if (!x)
                    return NULL;
                cur = !cur ? x : LLVMBuildSelect(L->b, lower_cmp(L, n, op, t, x, cur), x, cur, "");
            }
            return cur;
        }
        if (e->ty->kind == TY_ARRAY) {
            Type *aty = e->ty;
            LLVMValueRef nitems = lower_array_field(L, v, ARR_NITEMS, "");
            lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntEQ, nitems, lower_i64(L, 0), ""), "ValueError",
                           is_min ? "zero-size array to reduction operation minimum which has no identity"
                                  : "zero-size array to reduction operation maximum which has no identity");
            if (aty->layout == LAYOUT_A && aty->ndim > 1)
                return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "min/max of a non-contiguous multi-dimensional array");
            LLVMValueRef data = lower_array_field(L, v, ARR_DATA, "");
            LLVMValueRef first = lower_convert(L, n, load_elem(L, data, aty->dtype), aty->dtype, t);
            LLVMValueRef acc = lower_alloca(L, lower_type(L, t), "acc");
            LLVMBuildStore(L->b, first, acc);
            CLoop lp;
            loop_begin(L, &lp, nitems);
            LLVMValueRef p;
            if (aty->layout == LAYOUT_A) {
                LLVMValueRef off = LLVMBuildMul(L->b, lp.i, lower_array_dim(L, v, ARR_STRIDES, 0), "");
                p = LLVMBuildGEP2(L->b, L->t_i8, data, &off, 1, "");
            } else {
                p = lower_gep(L, lower_elem_type(L, aty->dtype), data, &lp.i, 1, "");
            }
            LLVMValueRef x = lower_convert(L, n, load_elem(L, p, aty->dtype), aty->dtype, t);
            LLVMValueRef c = lower_load(L, lower_type(L, t), acc, "");
            /* NumPy propagates NaN in reductions */
            LLVMValueRef better = lower_cmp(L, n, op, t, x, c);
            if (ty_is_float(t))
                better = LLVMBuildOr(L->b, better, LLVMBuildFCmp(L->b, LLVMRealUNO, x, x, ""), "");
            if (ty_is_float(t))
                better = LLVMBuildAnd(L->b, better, LLVMBuildFCmp(L->b, LLVMRealORD, c, c, ""), "");
            LLVMBuildStore(L->b, LLVMBuildSelect(L->b, better, x, c, ""), acc);
            loop_end(L, &lp);
            return lower_load(L, lower_type(L, t), acc, is_min ? "min" : "max");
        }
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "%s() of this type", is_min ? "min" : "max");
    }
    for (int i = 0; i < n->args.len; i++) {
        Node *e = arg(n, i);
        if (!e)
            continue;
        LLVMValueRef x = lower_convert(L, e, lower_expr_use(L, e), e->ty, t);
        if (!x)
            return NULL;
        cur = !cur ? x : LLVMBuildSelect(L->b, lower_cmp(L, n, op, t, x, cur), x, cur, is_min ? "min" : "max");
    }
    if (!cur)
        return lower_fail(L, n, HJ_DIAG_TYPING, "%s expected at least 1 argument", is_min ? "min" : "max");
    return cur;
}

/* round(x): half to even, as an int; round(x, n): Numba's algorithm. */
/* CPython's round(x, n) for 0 <= n <= 300 rounds the exact binary value
 * half-even: the C library's "%.*f" does the same, strtod reads it back. */
static LLVMValueRef round_exact(Lower *L, LLVMValueRef x, LLVMValueRef k, LLVMValueRef fallback) {
    enum { BUF = 512 };
    LLVMValueRef ok = LLVMBuildAnd(L->b, LLVMBuildICmp(L->b, LLVMIntSGE, k, lower_i64(L, 0), ""),
                                   LLVMBuildICmp(L->b, LLVMIntSLE, k, lower_i64(L, 300), ""), "");
    LLVMValueRef ax = intr1(L, "llvm.fabs", t_f64(L), x);
    ok = LLVMBuildAnd(L->b, ok, LLVMBuildFCmp(L->b, LLVMRealOLT, ax, LLVMConstReal(L->t_f64, INFINITY), ""), "");
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(L->b);
    LLVMBasicBlockRef slow = lower_block(L, "round.exact"), done = lower_block(L, "round.done");
    LLVMBuildCondBr(L->b, ok, slow, done);
    lower_at(L, slow);
    LLVMValueRef buf = lower_alloca(L, LLVMArrayType2(L->t_i8, BUF), "round.buf");
    LLVMTypeRef sp[3] = {L->t_ptr, L->t_i64, L->t_ptr};
    LLVMTypeRef snty = LLVMFunctionType(L->t_i32, sp, 3, 1);
    LLVMValueRef sn = LLVMGetNamedFunction(L->mod, "snprintf");
    if (!sn)
        sn = LLVMAddFunction(L->mod, "snprintf", snty);
    LLVMValueRef a[5] = {buf, lower_i64(L, BUF), lower_cstr(L, "%.*f"), LLVMBuildTrunc(L->b, k, L->t_i32, ""), x};
    LLVMValueRef len = lower_call(L, snty, sn, a, 5, "len");
    LLVMTypeRef tp[2] = {L->t_ptr, L->t_ptr};
    LLVMValueRef ta[2] = {buf, LLVMConstNull(L->t_ptr)};
    LLVMValueRef r = lower_rt(L, "strtod", L->t_f64, tp, 2, ta);
    LLVMValueRef fits = LLVMBuildICmp(L->b, LLVMIntSLT, len, lower_i32(L, BUF), "");
    r = LLVMBuildSelect(L->b, fits, r, fallback, "");
    LLVMBasicBlockRef slow_end = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, done);
    lower_at(L, done);
    LLVMValueRef phi = LLVMBuildPhi(L->b, L->t_f64, "round");
    LLVMValueRef in[2] = {fallback, r};
    LLVMBasicBlockRef from[2] = {pre, slow_end};
    LLVMAddIncoming(phi, in, from, 2);
    return phi;
}

static LLVMValueRef round_value(Lower *L, Node *n) {
    Node *e = arg(n, 0), *nd = arg(n, 1);
    if (!e)
        return lower_fail(L, n, HJ_DIAG_TYPING, "round() takes at least one argument");
    if (!ty_is_float(e->ty)) {
        LLVMValueRef v = lower_expr_use(L, e);
        if (nd && v && !lower_expr_use(L, nd))
            return NULL;
        return lower_convert(L, n, v, e->ty, n->ty);
    }
    Type *ft = e->ty;
    LLVMValueRef x = lower_expr_use(L, e);
    if (!x)
        return NULL;
    if (!nd)
        return lower_convert(L, n, intr1(L, "llvm.roundeven", ft, x), ft, n->ty);
    LLVMValueRef k = lower_as_i64(L, nd, lower_expr_use(L, nd), nd->ty);
    if (!k)
        return NULL;
    LLVMTypeRef t = lower_type(L, ft);
    Type *f64 = t_f64(L);
    LLVMValueRef xd = lower_convert(L, n, x, ft, f64);
    LLVMValueRef ten = LLVMConstReal(L->t_f64, 10.0);
    LLVMValueRef zero = lower_i64(L, 0);
    LLVMValueRef nonneg = LLVMBuildICmp(L->b, LLVMIntSGE, k, zero, "");
    LLVMValueRef big = LLVMBuildICmp(L->b, LLVMIntSGT, k, lower_i64(L, 22), "");
    LLVMValueRef absk = LLVMBuildSelect(L->b, nonneg, k, LLVMBuildNeg(L->b, k, ""), "");
    /* ndigits >= 0: pow1 = 10**(n-22 or n), pow2 = 1e22 or 1 */
    LLVMValueRef e1 = LLVMBuildSelect(L->b, big, LLVMBuildSub(L->b, absk, lower_i64(L, 22), ""), absk, "");
    LLVMValueRef pow1 = intr2(L, "llvm.pow", f64, ten, LLVMBuildSIToFP(L->b, e1, L->t_f64, ""));
    LLVMValueRef pow2 = LLVMBuildSelect(L->b, big, LLVMConstReal(L->t_f64, 1e22), LLVMConstReal(L->t_f64, 1.0), "");
    LLVMValueRef y = lower_fm(L, LLVMBuildFMul(L->b, lower_fm(L, LLVMBuildFMul(L->b, xd, pow1, "")), pow2, ""));
    LLVMValueRef ry = intr1(L, "llvm.rint", f64, y);
    LLVMValueRef rpos = lower_fm(L, LLVMBuildFDiv(L->b, lower_fm(L, LLVMBuildFDiv(L->b, ry, pow2, "")), pow1, ""));
    LLVMValueRef ay = intr1(L, "llvm.fabs", f64, y);
    LLVMValueRef isinf = LLVMBuildFCmp(L->b, LLVMRealOEQ, ay, LLVMConstReal(L->t_f64, INFINITY), "");
    rpos = LLVMBuildSelect(L->b, isinf, xd, rpos, "");
    /* ndigits < 0: rint(x / 10**-n) * 10**-n */
    LLVMValueRef yn = lower_fm(L, LLVMBuildFDiv(L->b, xd, pow1, ""));
    LLVMValueRef rneg = lower_fm(L, LLVMBuildFMul(L->b, intr1(L, "llvm.rint", f64, yn), pow1, ""));
    LLVMValueRef r = LLVMBuildSelect(L->b, nonneg, rpos, rneg, "round");
    (void)t;
    r = round_exact(L, xd, k, r);
    return lower_convert(L, n, r, f64, n->ty);
}

static LLVMValueRef complex_ctor(Lower *L, Node *n) {
    Type *t = n->ty;
    if (!ty_is_complex(t))
        return lower_fail(L, n, HJ_DIAG_LOWERING, "complex() without a complex type");
    Node *re = arg(n, 0), *im = arg(n, 1);
    LLVMValueRef r = re ? lower_convert(L, re, lower_expr_use(L, re), re->ty, t) : lower_zero(L, t);
    if (!r)
        return NULL;
    if (!im)
        return r;
    LLVMValueRef i = lower_convert(L, im, lower_expr_use(L, im), im->ty, t);
    if (!i)
        return NULL;
    /* re + im * 1j */
    LLVMValueRef a = LLVMBuildExtractValue(L->b, r, 0, ""), b = LLVMBuildExtractValue(L->b, r, 1, "");
    LLVMValueRef c = LLVMBuildExtractValue(L->b, i, 0, ""), d = LLVMBuildExtractValue(L->b, i, 1, "");
    LLVMValueRef v = LLVMGetUndef(lower_type(L, t));
    v = LLVMBuildInsertValue(L->b, v, lower_fm(L, LLVMBuildFSub(L->b, a, d, "")), 0, "");
    return LLVMBuildInsertValue(L->b, v, lower_fm(L, LLVMBuildFAdd(L->b, b, c, "")), 1, "complex");
}

static LLVMValueRef divmod_value(Lower *L, Node *n) {
    Node *a0 = arg(n, 0), *a1 = arg(n, 1);
    if (!a0 || !a1 || n->ty->kind != TY_TUPLE || n->ty->nelems != 2)
        return lower_fail(L, n, HJ_DIAG_TYPING, "divmod() takes two arguments");
    Type *t = n->ty->elems[0];
    LLVMValueRef x = lower_convert(L, a0, lower_expr_use(L, a0), a0->ty, t);
    LLVMValueRef y = lower_convert(L, a1, lower_expr_use(L, a1), a1->ty, t);
    if (!x || !y)
        return NULL;
    Type *r1 = NULL, *r2 = NULL;
    LLVMValueRef q = lower_binop(L, n, OP_FLOORDIV, t, x, y, &r1);
    LLVMValueRef m = lower_binop(L, n, OP_MOD, t, x, y, &r2);
    if (!q || !m)
        return NULL;
    LLVMValueRef v = LLVMGetUndef(lower_type(L, n->ty));
    v = LLVMBuildInsertValue(L->b, v, lower_convert(L, n, q, r1, n->ty->elems[0]), 0, "");
    return LLVMBuildInsertValue(L->b, v, lower_convert(L, n, m, r2, n->ty->elems[1]), 1, "divmod");
}

/* sum(iterable, start): start + item0 + item1 ... left to right in the
 * accumulator type n->ty (items: a 1-D array, a range, a tuple). */
static LLVMValueRef sum_value(Lower *L, Node *n) {
    Node *xs = arg(n, 0), *st = arg(n, 1);
    Type *acc_t = n->ty, *xt = xs->ty;
    LLVMValueRef x = lower_expr_use(L, xs);
    LLVMValueRef acc = st ? lower_expr_use(L, st) : lower_convert(L, n, lower_i64(L, 0), t_i64(L), acc_t);
    if (!x || !acc)
        return NULL;
    Type *rt = NULL;
    if (xt->kind == TY_TUPLE) {
        for (int i = 0; i < xt->nelems && acc; i++) {
            LLVMValueRef e = lower_convert(L, n, LLVMBuildExtractValue(L->b, x, (unsigned)i, ""), xt->elems[i], acc_t);
            acc = e ? lower_binop(L, n, OP_ADD, acc_t, acc, e, &rt) : NULL;
        }
        return acc;
    }
    LLVMValueRef len, start = NULL, step = NULL;
    if (xt->kind == TY_RANGE) {
        start = LLVMBuildExtractValue(L->b, x, 0, "start");
        step = LLVMBuildExtractValue(L->b, x, 2, "step");
        len = lower_range_len(L, start, LLVMBuildExtractValue(L->b, x, 1, "stop"), step);
    } else {
        len = lower_array_dim(L, x, ARR_SHAPE, 0);
    }
    LLVMValueRef slot = lower_alloca(L, lower_type(L, acc_t), "sum.acc");
    LLVMValueRef islot = lower_alloca(L, L->t_i64, "sum.i");
    LLVMBuildStore(L->b, acc, slot);
    LLVMBuildStore(L->b, lower_i64(L, 0), islot);
    LLVMBasicBlockRef cond = lower_block(L, "sum.cond"), body = lower_block(L, "sum.body"),
                      done = lower_block(L, "sum.done");
    LLVMBuildBr(L->b, cond);
    lower_at(L, cond);
    LLVMValueRef i = lower_load(L, L->t_i64, islot, "i");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, i, len, ""), body, done);
    lower_at(L, body);
    LLVMValueRef item;
    Type *it;
    if (xt->kind == TY_RANGE) {
        item = LLVMBuildAdd(L->b, start, LLVMBuildMul(L->b, i, step, ""), "item");
        it = t_i64(L);
    } else {
        bool owned = false;
        item = lower_array_item(L, n, x, xt, i, &it, &owned); /* 1-D: a scalar, never owned */
    }
    LLVMValueRef e = item ? lower_convert(L, n, item, it, acc_t) : NULL;
    LLVMValueRef s = e ? lower_binop(L, n, OP_ADD, acc_t, lower_load(L, lower_type(L, acc_t), slot, ""), e, &rt)
                       : NULL;
    if (!s)
        return NULL;
    LLVMBuildStore(L->b, s, slot);
    LLVMBuildStore(L->b, LLVMBuildAdd(L->b, i, lower_i64(L, 1), ""), islot);
    LLVMBuildBr(L->b, cond);
    lower_at(L, done);
    return lower_load(L, lower_type(L, acc_t), slot, "sum");
}

LLVMValueRef lower_array_over(Lower *L, Type *aty, LLVMValueRef data, LLVMValueRef *dims) {
    int64_t isz = ty_itemsize(aty->dtype);
    LLVMValueRef v = LLVMGetUndef(lower_type(L, aty));
    v = LLVMBuildInsertValue(L->b, v, LLVMConstNull(L->t_ptr), ARR_MEMINFO, "");
    v = LLVMBuildInsertValue(L->b, v, LLVMConstNull(L->t_ptr), ARR_PARENT, "");
    v = LLVMBuildInsertValue(L->b, v, lower_i64(L, isz), ARR_ITEMSIZE, "");
    v = LLVMBuildInsertValue(L->b, v, data, ARR_DATA, "");
    LLVMTypeRef dt = LLVMArrayType2(L->t_i64, (uint64_t)aty->ndim);
    LLVMValueRef sh = LLVMGetUndef(dt), st = LLVMGetUndef(dt);
    LLVMValueRef stride = lower_i64(L, isz), nitems = lower_i64(L, 1);
    bool f = aty->layout == LAYOUT_F;
    for (int k = 0; k < aty->ndim; k++) {
        int d = f ? k : aty->ndim - 1 - k; /* innermost first */
        sh = LLVMBuildInsertValue(L->b, sh, dims[d], (unsigned)d, "");
        st = LLVMBuildInsertValue(L->b, st, stride, (unsigned)d, "");
        stride = LLVMBuildMul(L->b, stride, dims[d], "");
        nitems = LLVMBuildMul(L->b, nitems, dims[d], "");
    }
    v = LLVMBuildInsertValue(L->b, v, nitems, ARR_NITEMS, "");
    v = LLVMBuildInsertValue(L->b, v, sh, ARR_SHAPE, "");
    return LLVMBuildInsertValue(L->b, v, st, ARR_STRIDES, "");
}

/* carray/farray(ptr, shape) and $ptr_view(ptr, i): an array over foreign
 * memory (lower_array_over). */
static LLVMValueRef carray_value(Lower *L, Node *n) {
    Type *aty = n->ty;
    LLVMValueRef p = lower_expr_use(L, arg(n, 0));
    LLVMValueRef s = p ? lower_expr_use(L, arg(n, 1)) : NULL;
    if (!s)
        return NULL;
    LLVMValueRef dims[HJ_MAX_NDIM_LOWER];
    if (n->builtin == BI_PTR_VIEW) { /* p + i, one element */
        LLVMValueRef off = LLVMBuildMul(L->b, s, lower_i64(L, ty_itemsize(aty->dtype)), "");
        p = LLVMBuildGEP2(L->b, L->t_i8, p, &off, 1, "p.i");
        dims[0] = lower_i64(L, 1);
    } else if (arg(n, 1)->ty->kind == TY_TUPLE) {
        for (int d = 0; d < aty->ndim; d++)
            dims[d] = LLVMBuildExtractValue(L->b, s, (unsigned)d, "");
    } else {
        dims[0] = s;
    }
    return lower_array_over(L, aty, p, dims);
}

LLVMValueRef lower_builtin_call(Lower *L, Node *n, bool *owned) {
    *owned = false;
    BuiltinId b = n->builtin;
    if (lower_ae_is_ufunc_call(n))
        return lower_ae_call(L, n, owned); /* lower_arrayexpr.c */
    switch (b) {
    case BI_PRINT: return lower_print_call(L, n); /* lower_text.c */
    case BI_ENUM_REPR: { /* an IntEnum member's repr, CPython's (infer_call.c) */
        Node *e = VEC_AT(n->args, 0);
        *owned = true;
        return lower_pyop(L, n, RT_OBJMODE_REPR, lower_expr_use(L, e), e->ty, n->ty);
    }
    case BI_SUM: return sum_value(L, n);
    case BI_RANGE:
    case BI_PRANGE: return lower_range_value(L, n);
    case BI_GET_THREAD_ID:
    case BI_GET_NUM_THREADS: {
        LLVMValueRef v = lower_rt(L, b == BI_GET_THREAD_ID ? "pool_get_thread_id" : "pool_get_num_threads", L->t_i32,
                                  NULL, 0, NULL);
        return LLVMBuildSExt(L->b, v, L->t_i64, "");
    }
    case BI_CARRAY:
    case BI_FARRAY:
    case BI_PTR_VIEW: return carray_value(L, n);
    case BI_GET_PARALLEL_CHUNKSIZE: return lower_rt(L, "rt_get_parallel_chunksize", L->t_i64, NULL, 0, NULL);
    case BI_SET_PARALLEL_CHUNKSIZE: {
        LLVMValueRef k = lower_expr_use(L, arg(n, 0));
        if (!k)
            return NULL;
        LLVMTypeRef t = L->t_i64;
        LLVMValueRef old = lower_rt(L, "rt_set_parallel_chunksize", L->t_i64, &t, 1, &k);
        lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntSLT, old, lower_i64(L, 0), ""), "ValueError",
                       "chunksize must be greater than or equal to zero");
        return old;
    }
    case BI_SET_NUM_THREADS: {
        LLVMValueRef k = lower_expr_use(L, arg(n, 0));
        if (!k)
            return NULL;
        LLVMTypeRef t = L->t_i64;
        lower_check_status(L, lower_rt(L, "rt_set_num_threads", L->t_i32, &t, 1, &k));
        return lower_zero(L, n->ty);
    }
    case BI_NEXT: return lower_gen_next(L, n, owned);
    case BI_ITER: return lower_expr(L, arg(n, 0), owned); /* a generator object is its own iterator */
    case BI_LEN: {
        Node *e = arg(n, 0);
        if (!e)
            return lower_fail(L, n, HJ_DIAG_TYPING, "len() takes exactly one argument");
        LLVMValueRef v = lower_expr_use(L, e);
        return v ? lower_convert(L, n, lower_len(L, n, v, e->ty), t_i64(L), n->ty) : NULL;
    }
    case BI_ABS:
    case BI_NP_ABS: return abs_value(L, n);
    case BI_MIN:
    case BI_MAX: return minmax(L, n);
    case BI_ROUND: return round_value(L, n);
    case BI_INT:
    case BI_FLOAT:
    case BI_BOOL: {
        Node *e = arg(n, 0);
        if (!e)
            return lower_zero(L, n->ty);
        bool o = false;
        LLVMValueRef v = lower_expr(L, e, &o);
        if (!v)
            return NULL;
        LLVMValueRef r = b == BI_BOOL ? lower_truth(L, n, v, e->ty) : lower_convert(L, n, v, e->ty, n->ty);
        if (o)
            lower_decref(L, v, e->ty);
        return b == BI_BOOL ? lower_convert(L, n, r, ty_scalar(L->c->tc, TY_BOOL), n->ty) : r;
    }
    case BI_COMPLEX: return complex_ctor(L, n);
    case BI_DIVMOD: return divmod_value(L, n);
    case BI_NP_DATETIME64:
    case BI_NP_TIMEDELTA64: return lower_expr_use(L, arg(n, 0)); /* the int64 count is the value */
    case BI_POW: {
        Node *a0 = arg(n, 0), *a1 = arg(n, 1);
        if (a0 && a1 && arg(n, 2)) { /* pow(b, e, m) of int64s (infer_call.c) */
            LLVMValueRef as[4]; /* one statement each: left to right, as Python */
            as[0] = lower_expr_use(L, a0);
            as[1] = as[0] ? lower_expr_use(L, a1) : NULL;
            as[2] = as[1] ? lower_expr_use(L, arg(n, 2)) : NULL;
            if (!as[2])
                return NULL;
            as[3] = lower_alloca(L, L->t_i64, "powmod");
            LLVMTypeRef ps[4] = {L->t_i64, L->t_i64, L->t_i64, L->t_ptr};
            lower_check_status(L, lower_rt(L, "rt_int_powmod", L->t_i32, ps, 4, as));
            return lower_load(L, L->t_i64, as[3], "powmod");
        }
        if (!a0 || !a1)
            return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "pow() with other than two arguments");
        Type *t = a0->ty, *rt = NULL;
        LLVMValueRef x = lower_expr_use(L, a0);
        if (x && ty_is_float(t) && ty_is_int(a1->ty)) { /* infer kept an int64 exponent */
            LLVMValueRef e = lower_expr_use(L, a1);
            return e ? lower_convert(L, n, lower_float_int_pow(L, t, x, e), t, n->ty) : NULL;
        }
        LLVMValueRef y = lower_convert(L, a1, lower_expr_use(L, a1), a1->ty, t);
        if (!x || !y)
            return NULL;
        /* two statements: C leaves the order of a call's arguments open, and
         * rt is set by lower_binop */
        LLVMValueRef r = lower_binop(L, n, OP_POW, t, x, y, &rt);
        return r ? lower_convert(L, n, r, rt, n->ty) : NULL;
    }
    case BI_NP_EMPTY:
    case BI_NP_ZEROS:
    case BI_NP_ONES:
    case BI_NP_EMPTY_LIKE:
    case BI_NP_ZEROS_LIKE:
    case BI_NP_ONES_LIKE: return np_alloc(L, n, owned);
    case BI_NP_ARANGE: return np_arange(L, n, owned);
    case BI_ARRAY_COPY: return array_copy(L, n, owned);
    case BI_NUMBER_ITEM:
    case BI_COMPLEX_CONJUGATE: {
        Node *e = n->self_node ? n->self_node : arg(n, 0);
        if (!e)
            return lower_fail(L, n, HJ_DIAG_LOWERING, "%s() without a receiver", b == BI_NUMBER_ITEM ? "item" : "conjugate");
        LLVMValueRef v = lower_expr_use(L, e);
        if (v && b == BI_COMPLEX_CONJUGATE && ty_is_complex(e->ty)) {
            LLVMValueRef im = lower_fm(L, LLVMBuildFNeg(L->b, LLVMBuildExtractValue(L->b, v, 1, ""), ""));
            v = LLVMBuildInsertValue(L->b, v, im, 1, "conj");
        }
        return lower_convert(L, n, v, e->ty, n->ty);
    }
    default: break;
    }
    const LibOps *ops = lib_ops(b); /* a library feature's (lib/registry.h) */
    if (ops && ops->lower_call)
        return ops->lower_call(L, n, owned);
    bool handled = false;
    LLVMValueRef r = math_call(L, n, &handled);
    if (handled)
        return r;
    if (b >= BI_CMATH_ACOS && b <= BI_CMATH_TANH) /* builtins.def keeps them together */
        return cmath_call(L, n, &handled);
    return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "%s() is not supported in compiled code", builtin_name(b));
}
