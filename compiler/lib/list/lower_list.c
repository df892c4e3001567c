/* lower_list.c - lowering of Python lists (typed by infer_list.c).
 *
 * A list is an HjMemInfo * whose data is an HjList {len, cap, items, ops}
 * (hpcjit/containers.h).  len, indexing, stores, iteration and the append
 * fast path (len < cap) are inline; growth, insertion, deletion, slices,
 * sorting and copies call the runtime (rt_list_*).  Searching (in, index,
 * count, remove), comparisons, min/max/sum are inline loops comparing items
 * with the core's comparison of their type, so they never depend on the
 * descriptor a list was made with (the dispatcher makes lists too).
 *
 * Items are stored in their in-memory form (lower_mem_type: bool is i8).
 * An item read out of a list is borrowed by the list; items holding
 * references (arrays, lists, tuples of them) are increfed and returned
 * owned, so that a later change of the list cannot free them under the
 * reader. */
#include "list.h"
#include "registry.h"

#include <string.h>

/* ---- layout ---- */

static LLVMTypeRef hjlist_type(Lower *L) {
    LLVMTypeRef f[4] = {L->t_i64, L->t_i64, L->t_ptr, L->t_ptr};
    return LLVMStructTypeInContext(L->ctx, f, 4, 0);
}

static LLVMValueRef field_ptr(Lower *L, LLVMTypeRef st, LLVMValueRef p, unsigned k) {
    LLVMValueRef idx[2] = {LLVMConstInt(L->t_i32, 0, 0), LLVMConstInt(L->t_i32, k, 0)};
    return lower_gep(L, st, p, idx, 2, "");
}

/* mi->data: the HjList */
static LLVMValueRef list_struct(Lower *L, LLVMValueRef mi) {
    return lower_load(L, L->t_ptr, field_ptr(L, L->t_meminfo, mi, 1), "list");
}

static LLVMValueRef list_len(Lower *L, LLVMValueRef mi) {
    return lower_load(L, L->t_i64, field_ptr(L, hjlist_type(L), list_struct(L, mi), 0), "len");
}

static LLVMValueRef item_addr(Lower *L, Type *item, LLVMValueRef mi, LLVMValueRef i) {
    LLVMValueRef items = lower_load(L, L->t_ptr, field_ptr(L, hjlist_type(L), list_struct(L, mi), 2), "items");
    return lower_gep(L, lower_mem_type(L, item), items, &i, 1, "item.p");
}

static LLVMValueRef load_item(Lower *L, Type *item, LLVMValueRef p) {
    return lower_from_mem(L, lower_load(L, lower_mem_type(L, item), p, "item"), item);
}

static void store_item(Lower *L, Type *item, LLVMValueRef p, LLVMValueRef v) {
    LLVMBuildStore(L->b, lower_to_mem(L, v, item), p);
}

/* v in memory, for the runtime's `const void *item` parameters. */
static LLVMValueRef spill(Lower *L, Type *item, LLVMValueRef v) {
    LLVMValueRef p = lower_alloca(L, lower_mem_type(L, item), "item.tmp");
    store_item(L, item, p, v);
    return p;
}

static LLVMValueRef rt(Lower *L, const char *name, LLVMTypeRef ret, LLVMTypeRef *ps, unsigned n, LLVMValueRef *as) {
    return lower_rt(L, name, ret, ps, n, as);
}

/* Leave through the error exit when p (a pointer from the runtime) is NULL. */
static void check_ptr(Lower *L, LLVMValueRef p) {
    lower_check_status(L, LLVMBuildZExt(L->b, LLVMBuildIsNull(L->b, p, ""), L->t_i32, ""));
}

/* ---- item descriptors ---- */

static LLVMTypeRef ops_type(Lower *L) {
    LLVMTypeRef f[8] = {L->t_i64, L->t_i64, L->t_ptr, L->t_ptr, L->t_ptr, L->t_ptr, L->t_ptr, L->t_ptr};
    return LLVMStructTypeInContext(L->ctx, f, 8, 0);
}

static LLVMValueRef extern_global(Lower *L, const char *name, LLVMTypeRef ty) {
    LLVMValueRef g = LLVMGetNamedGlobal(L->mod, name);
    if (!g) {
        g = LLVMAddGlobal(L->mod, ty, name);
        LLVMSetGlobalConstant(g, 1);
    }
    return g;
}

static LLVMValueRef extern_fn(Lower *L, const char *name, LLVMTypeRef ty) {
    LLVMValueRef f = LLVMGetNamedFunction(L->mod, name);
    return f ? f : LLVMAddFunction(L->mod, name, ty);
}

static LLVMValueRef item_cmp(Lower *L, const Node *at, OpKind op, Type *t, LLVMValueRef a, LLVMValueRef b);

/* void f(ptr item): incref or decref the references inside one item. */
static LLVMValueRef refop_fn(Lower *L, Type *item, bool inc) {
    const char *name = arena_printf(&L->c->arena, "hj.list.%s.%s", inc ? "incref" : "decref", lower_typecode(L, item));
    LLVMValueRef f = LLVMGetNamedFunction(L->mod, name);
    if (f)
        return f;
    LLVMTypeRef p = L->t_ptr;
    LowerSaved sv;
    f = lower_helper_begin(L, name, LLVMFunctionType(L->t_void, &p, 1, 0), &sv);
    LLVMValueRef v = load_item(L, item, LLVMGetParam(f, 0));
    if (inc)
        lower_incref(L, v, item);
    else
        lower_decref(L, v, item);
    LLVMBuildRetVoid(L->b);
    lower_helper_end(L, &sv);
    return f;
}

/* i32 f(ptr a, ptr b): a < b (op OP_LT) or a == b (OP_EQ). */
static LLVMValueRef cmp_fn(Lower *L, const Node *at, Type *item, OpKind op) {
    const char *sfx = lower_rt_suffix(item);
    LLVMTypeRef ps[2] = {L->t_ptr, L->t_ptr};
    LLVMTypeRef fty = LLVMFunctionType(L->t_i32, ps, 2, 0);
    if (sfx && !(op == OP_EQ && item->kind == TY_UINT64))
        return extern_fn(L, arena_printf(&L->c->arena, "rt_%s_%s", op == OP_LT ? "lt" : "eq", sfx), fty);
    const char *name = arena_printf(&L->c->arena, "hj.list.%s.%s", op == OP_LT ? "lt" : "eq", lower_typecode(L, item));
    LLVMValueRef f = LLVMGetNamedFunction(L->mod, name);
    if (f)
        return f;
    LowerSaved sv;
    f = lower_helper_begin(L, name, fty, &sv);
    LLVMValueRef a = load_item(L, item, LLVMGetParam(f, 0));
    LLVMValueRef b = load_item(L, item, LLVMGetParam(f, 1));
    LLVMValueRef c = item_cmp(L, at, op, item, a, b);
    if (c)
        LLVMBuildRet(L->b, LLVMBuildZExt(L->b, c, L->t_i32, ""));
    lower_helper_end(L, &sv);
    return c ? f : NULL;
}

static bool orderable(const Type *t) {
    if (ty_is_npdt(t)) /* NaT compares false, as in Python */
        return true;
    if (ty_is_number(t))
        return !ty_is_complex(t);
    if (t->kind == TY_TUPLE) {
        for (int i = 0; i < t->nelems; i++)
            if (!orderable(t->elems[i]))
                return false;
        return true;
    }
    return t->kind == TY_STRING || (t->kind == TY_LIST && orderable(t->item));
}

static bool comparable(const Type *t) {
    if (ty_is_number(t) || ty_is_npdt(t))
        return true;
    if (t->kind == TY_TUPLE) {
        for (int i = 0; i < t->nelems; i++)
            if (!comparable(t->elems[i]))
                return false;
        return true;
    }
    return t->kind == TY_STRING || (t->kind == TY_LIST && comparable(t->item));
}

LLVMValueRef lower_list_ops(Lower *L, Type *item) {
    const char *sfx = lower_rt_suffix(item);
    LLVMTypeRef oty = ops_type(L);
    if (sfx)
        return extern_global(L, arena_printf(&L->c->arena, "rt_ops_%s", sfx), oty);
    if (item->kind == TY_LIST)
        return extern_global(L, "rt_ops_meminfo", oty);
    const char *name = arena_printf(&L->c->arena, "hj.listops.%s", lower_typecode(L, item));
    LLVMValueRef g = LLVMGetNamedGlobal(L->mod, name);
    if (g)
        return g;
    LLVMTypeRef mt = lower_mem_type(L, item);
    LLVMValueRef null = LLVMConstNull(L->t_ptr);
    LLVMValueRef f[8] = {LLVMSizeOf(mt), LLVMAlignOf(mt), null, null, null, null, null, null};
    if (lower_has_refs(item)) {
        LLVMTypeRef p = L->t_ptr;
        LLVMTypeRef fty = LLVMFunctionType(L->t_void, &p, 1, 0);
        if (item->kind == TY_ARRAY) { /* the meminfo is the struct's first field */
            f[2] = extern_fn(L, "rt_item_incref_mi", fty);
            f[3] = extern_fn(L, "rt_item_decref_mi", fty);
        } else {
            f[2] = refop_fn(L, item, true);
            f[3] = refop_fn(L, item, false);
        }
    }
    if (comparable(item) && !lower_failed(L)) {
        LLVMValueRef e = cmp_fn(L, NULL, item, OP_EQ);
        f[5] = e ? e : null;
        if (orderable(item)) {
            LLVMValueRef lt = cmp_fn(L, NULL, item, OP_LT);
            f[6] = lt ? lt : null;
        }
    }
    g = LLVMAddGlobal(L->mod, oty, name);
    LLVMSetLinkage(g, LLVMInternalLinkage);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetInitializer(g, LLVMConstNamedStruct(oty, f, 8));
    return g;
}

/* ---- loops ---- */

typedef struct Loop {
    LLVMValueRef slot;
    LLVMBasicBlockRef cond, body, end;
} Loop;

/* for (i = from; i < to; i++): returns i, the builder in the body. */
static LLVMValueRef loop_begin(Lower *L, Loop *lp, LLVMValueRef from, LLVMValueRef to) {
    lp->slot = lower_alloca(L, L->t_i64, "i");
    LLVMBuildStore(L->b, from, lp->slot);
    lp->cond = lower_block(L, "list.loop");
    lp->body = lower_block(L, "list.body");
    lp->end = lower_block(L, "list.end");
    LLVMBuildBr(L->b, lp->cond);
    lower_at(L, lp->cond);
    LLVMValueRef i = lower_load(L, L->t_i64, lp->slot, "i");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, i, to, ""), lp->body, lp->end);
    lower_at(L, lp->body);
    return i;
}

static void loop_end(Lower *L, Loop *lp, LLVMValueRef i) {
    if (!lower_terminated(L)) {
        LLVMBuildStore(L->b, LLVMBuildAdd(L->b, i, lower_i64(L, 1), ""), lp->slot);
        LLVMBuildBr(L->b, lp->cond);
    }
    lower_at(L, lp->end);
}

/* ---- comparisons ---- */

static LLVMValueRef list_richcmp(Lower *L, const Node *at, OpKind op, Type *lt, LLVMValueRef a, LLVMValueRef b);

static bool holds_list(const Type *t) {
    if (t->kind == TY_LIST)
        return true;
    if (t->kind == TY_TUPLE)
        for (int i = 0; i < t->nelems; i++)
            if (holds_list(t->elems[i]))
                return true;
    return false;
}


/* Python's tuple comparison, for tuples holding lists (the core's
 * lower_cmp knows no lists): the first unequal elements decide, all equal
 * gives ==, <= and >=.  Every element is compared (no side effects). */
static LLVMValueRef tuple_cmp(Lower *L, const Node *at, OpKind op, Type *t, LLVMValueRef a, LLVMValueRef b) {
    bool eqop = op == OP_EQ || op == OP_NE;
    OpKind strict = op == OP_LT || op == OP_LE ? OP_LT : OP_GT;
    LLVMValueRef r = LLVMConstInt(L->t_i1, op == OP_EQ || op == OP_LE || op == OP_GE, 0);
    for (int i = t->nelems - 1; i >= 0; i--) {
        LLVMValueRef x = LLVMBuildExtractValue(L->b, a, (unsigned)i, "");
        LLVMValueRef y = LLVMBuildExtractValue(L->b, b, (unsigned)i, "");
        LLVMValueRef eq = item_cmp(L, at, OP_EQ, t->elems[i], x, y);
        if (!eq)
            return NULL;
        LLVMValueRef c = eqop ? LLVMConstInt(L->t_i1, op == OP_NE, 0) : item_cmp(L, at, strict, t->elems[i], x, y);
        if (!c)
            return NULL;
        r = LLVMBuildSelect(L->b, eq, r, c, "");
    }
    return r;
}

/* One comparison of two items of type t (numbers, tuples, lists). */
static LLVMValueRef item_cmp(Lower *L, const Node *at, OpKind op, Type *t, LLVMValueRef a, LLVMValueRef b) {
    if (t->kind == TY_LIST)
        return list_richcmp(L, at, op, t, a, b);
    if (t->kind == TY_TUPLE && holds_list(t))
        return tuple_cmp(L, at, op, t, a, b);
    return lower_cmp(L, at, op, t, a, b);
}

/* Python's list comparison: the first unequal items decide, else the lengths. */
static LLVMValueRef list_richcmp(Lower *L, const Node *at, OpKind op, Type *lt, LLVMValueRef a, LLVMValueRef b) {
    Type *item = lt->item;
    LLVMValueRef la = list_len(L, a), lb = list_len(L, b);
    LLVMValueRef res = lower_alloca(L, L->t_i1, "lcmp");
    LLVMValueRef m = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, la, lb, ""), la, lb, "");
    LLVMBasicBlockRef diff = lower_block(L, "lcmp.diff"), done = lower_block(L, "lcmp.done");
    Loop lp;
    LLVMValueRef i = loop_begin(L, &lp, lower_i64(L, 0), m);
    LLVMValueRef x = load_item(L, item, item_addr(L, item, a, i));
    LLVMValueRef y = load_item(L, item, item_addr(L, item, b, i));
    LLVMValueRef e = item_cmp(L, at, OP_EQ, item, x, y);
    if (!e)
        return NULL;
    LLVMBasicBlockRef next = lower_block(L, "lcmp.next");
    LLVMBuildCondBr(L->b, e, next, diff);
    lower_at(L, diff);
    LLVMValueRef r;
    if (op == OP_EQ || op == OP_NE)
        r = LLVMConstInt(L->t_i1, op == OP_NE, 0);
    else if (!(r = item_cmp(L, at, op, item, x, y)))
        return NULL;
    LLVMBuildStore(L->b, r, res);
    LLVMBuildBr(L->b, done);
    lower_at(L, next);
    loop_end(L, &lp, i);
    LLVMIntPredicate p = LLVMIntSGE; /* the lengths decide once the common items are equal */
    lower_icmp_pred(op, true, &p);
    LLVMBuildStore(L->b, LLVMBuildICmp(L->b, p, la, lb, ""), res);
    LLVMBuildBr(L->b, done);
    lower_at(L, done);
    return lower_load(L, L->t_i1, res, "");
}

/* The first index in [from, to) whose item equals x (of type ct, the items
 * converted to ct), or -1. */
static LLVMValueRef find(Lower *L, const Node *at, LLVMValueRef mi, Type *lt, LLVMValueRef x, Type *ct,
                         LLVMValueRef from, LLVMValueRef to) {
    LLVMValueRef res = lower_alloca(L, L->t_i64, "found");
    LLVMBuildStore(L->b, lower_i64(L, -1), res);
    LLVMBasicBlockRef hit = lower_block(L, "find.hit");
    Loop lp;
    LLVMValueRef i = loop_begin(L, &lp, from, to);
    LLVMValueRef y = lower_convert(L, at, load_item(L, lt->item, item_addr(L, lt->item, mi, i)), lt->item, ct);
    LLVMValueRef e = item_cmp(L, at, OP_EQ, ct, x, y);
    if (!e)
        return NULL;
    LLVMBasicBlockRef next = lower_block(L, "find.next");
    LLVMBuildCondBr(L->b, e, hit, next);
    lower_at(L, hit);
    LLVMBuildStore(L->b, i, res);
    LLVMBuildBr(L->b, lp.end);
    lower_at(L, next);
    loop_end(L, &lp, i);
    return lower_load(L, L->t_i64, res, "index");
}

/* ---- construction ---- */

/* A new empty list for `cap` items, held as a temporary (released at the
 * end of the statement, or on an error). */
static LLVMValueRef new_list(Lower *L, const Node *at, Type *lt, LLVMValueRef cap) {
    if (ty_has_unknown(lt->item))
        return lower_fail(L, at, HJ_DIAG_TYPING, "cannot determine the type of the items of this empty list");
    LLVMValueRef ops = lower_list_ops(L, lt->item);
    if (lower_failed(L))
        return NULL;
    LLVMTypeRef ps[2] = {L->t_ptr, L->t_i64};
    LLVMValueRef as[2] = {ops, cap};
    LLVMValueRef mi = rt(L, "rt_list_new", L->t_ptr, ps, 2, as);
    check_ptr(L, mi);
    lower_temp(L, mi, lt, true);
    return mi;
}

/* The temporary list `mi` as an owned result. */
static LLVMValueRef give(Lower *L, LLVMValueRef mi, Type *lt, bool *owned) {
    lower_incref(L, mi, lt);
    *owned = true;
    return mi;
}

/* Append v (borrowed, of the item type): inline while there is room. */
static void append(Lower *L, LLVMValueRef mi, Type *item, LLVMValueRef v) {
    LLVMTypeRef ht = hjlist_type(L);
    LLVMValueRef hl = list_struct(L, mi);
    LLVMValueRef lenp = field_ptr(L, ht, hl, 0);
    LLVMValueRef len = lower_load(L, L->t_i64, lenp, "len");
    LLVMValueRef cap = lower_load(L, L->t_i64, field_ptr(L, ht, hl, 1), "cap");
    LLVMBasicBlockRef fast = lower_block(L, "append.fast"), slow = lower_block(L, "append.grow"),
                      done = lower_block(L, "append.done");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, len, cap, ""), fast, slow);
    lower_at(L, fast);
    LLVMValueRef items = lower_load(L, L->t_ptr, field_ptr(L, ht, hl, 2), "items");
    store_item(L, item, lower_gep(L, lower_mem_type(L, item), items, &len, 1, ""), v);
    if (lower_has_refs(item))
        lower_incref(L, v, item);
    LLVMBuildStore(L->b, LLVMBuildAdd(L->b, len, lower_i64(L, 1), ""), lenp);
    LLVMBuildBr(L->b, done);
    lower_at(L, slow);
    LLVMTypeRef ps[2] = {L->t_ptr, L->t_ptr};
    LLVMValueRef as[2] = {mi, spill(L, item, v)};
    lower_check_status(L, rt(L, "rt_list_append", L->t_i32, ps, 2, as));
    LLVMBuildBr(L->b, done);
    lower_at(L, done);
}

static void reserve(Lower *L, LLVMValueRef mi, LLVMValueRef more) {
    LLVMTypeRef ps[2] = {L->t_ptr, L->t_i64};
    LLVMValueRef as[2] = {mi, LLVMBuildAdd(L->b, list_len(L, mi), more, "")};
    lower_check_status(L, rt(L, "rt_list_reserve", L->t_i32, ps, 2, as));
}

/* Append every item of `src` (a list, range, array, tuple or generator
 * object) to mi. */
static bool fill(Lower *L, const Node *at, LLVMValueRef mi, Type *item, Node *src_node) {
    Type *st = src_node->ty;
    LLVMValueRef src = lower_expr_use(L, src_node);
    if (!src)
        return false;
    Loop lp;
    switch (st->kind) {
    case TY_LIST: {
        if (st->item == item) {
            LLVMTypeRef ps[2] = {L->t_ptr, L->t_ptr};
            LLVMValueRef as[2] = {mi, src};
            lower_check_status(L, rt(L, "rt_list_extend", L->t_i32, ps, 2, as));
            return true;
        }
        LLVMValueRef n = list_len(L, src);
        reserve(L, mi, n);
        LLVMValueRef i = loop_begin(L, &lp, lower_i64(L, 0), n);
        LLVMValueRef x = load_item(L, st->item, item_addr(L, st->item, src, i));
        append(L, mi, item, lower_convert(L, at, x, st->item, item));
        loop_end(L, &lp, i);
        return true;
    }
    case TY_RANGE: {
        LLVMValueRef start = LLVMBuildExtractValue(L->b, src, 0, "start");
        LLVMValueRef step = LLVMBuildExtractValue(L->b, src, 2, "step");
        LLVMValueRef n = lower_range_len(L, start, LLVMBuildExtractValue(L->b, src, 1, "stop"), step);
        reserve(L, mi, n);
        LLVMValueRef i = loop_begin(L, &lp, lower_i64(L, 0), n);
        LLVMValueRef x = LLVMBuildAdd(L->b, start, LLVMBuildMul(L->b, i, step, ""), "");
        append(L, mi, item, lower_convert(L, at, x, ty_scalar(L->c->tc, TY_INT64), item));
        loop_end(L, &lp, i);
        return true;
    }
    case TY_ARRAY: {
        LLVMValueRef n = lower_array_dim(L, src, ARR_SHAPE, 0);
        reserve(L, mi, n);
        LLVMValueRef i = loop_begin(L, &lp, lower_i64(L, 0), n);
        Type *ety = NULL;
        bool o = false;
        LLVMValueRef x = lower_array_item(L, at, src, st, i, &ety, &o);
        if (!x)
            return false;
        append(L, mi, item, lower_convert(L, at, x, ety, item));
        if (o)
            lower_decref(L, x, ety);
        loop_end(L, &lp, i);
        return true;
    }
    case TY_TUPLE:
        for (int k = 0; k < st->nelems; k++)
            append(L, mi, item, lower_convert(L, at, LLVMBuildExtractValue(L->b, src, (unsigned)k, ""), st->elems[k], item));
        return true;
    case TY_GENERATOR: { /* resumed until it ends */
        LLVMBasicBlockRef head = lower_block(L, "fill.next"), body = lower_block(L, "fill.item");
        LLVMBasicBlockRef done = lower_block(L, "fill.done");
        LLVMBuildBr(L->b, head);
        lower_at(L, head);
        LLVMBuildCondBr(L->b, lower_gen_resume(L, src), body, done);
        lower_at(L, body);
        int mark = lower_temps_mark(L);
        LLVMValueRef x = lower_gen_value(L, src, st->item);
        lower_temp(L, x, st->item, true); /* released after the append, or by its failure */
        append(L, mi, item, lower_convert(L, at, x, st->item, item));
        lower_temps_release(L, mark);
        LLVMBuildBr(L->b, head);
        lower_at(L, done);
        return true;
    }
    default: {
        /* a str (by index), a set, dict or view (by its cursor): the items
         * as the value's feature gives them */
        const LibOps *own = lib_type_owner(st);
        bool cursor = own && own->lower_iter_begin && own->lower_iter_next;
        if (own && own->lower_len && (cursor || own->lower_item)) {
            LLVMValueRef n = own->lower_len(L, at, src, st);
            reserve(L, mi, n);
            LLVMValueRef cur = cursor ? own->lower_iter_begin(L, at, src, st, n) : NULL;
            LLVMValueRef i = loop_begin(L, &lp, lower_i64(L, 0), n);
            bool o = false;
            LLVMValueRef x = cursor ? own->lower_iter_next(L, at, src, st, cur, &o)
                                    : own->lower_item(L, at, src, st, i, &o);
            if (!x)
                return false;
            Type *ety = own->item_type(L->c->tc, st);
            append(L, mi, item, lower_convert(L, at, x, ety, item));
            if (o)
                lower_decref(L, x, ety);
            loop_end(L, &lp, i);
            return true;
        }
        lower_fail(L, at, HJ_DIAG_UNSUPPORTED, "cannot make a list from this value");
        return false;
    }
    }
}

/* ---- indexing ---- */

/* i (int64) counted from the end when negative, checked to be < len. */
static LLVMValueRef norm_index(Lower *L, LLVMValueRef mi, LLVMValueRef i, const char *msg) {
    LLVMValueRef len = list_len(L, mi);
    LLVMValueRef neg = LLVMBuildICmp(L->b, LLVMIntSLT, i, lower_i64(L, 0), "");
    i = LLVMBuildSelect(L->b, neg, LLVMBuildAdd(L->b, i, len, ""), i, "idx");
    lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntUGE, i, len, ""), "IndexError", msg);
    return i;
}

/* An item read out for a user: owned when it holds references. */
static LLVMValueRef read_item(Lower *L, Type *item, LLVMValueRef p, bool *owned) {
    LLVMValueRef v = load_item(L, item, p);
    if (lower_has_refs(item)) {
        lower_incref(L, v, item);
        *owned = true;
    }
    return v;
}

static LLVMValueRef slice_bound(Lower *L, Node *e) {
    return e ? lower_expr_use(L, e) : lower_i64(L, INT64_MIN); /* RT_SLICE_NONE */
}

static LLVMValueRef slice_step(Lower *L, Node *e) { return e ? lower_expr_use(L, e) : lower_i64(L, 1); }

static Node *arg(Node *n, int i) { return i < n->args.len ? VEC_AT(n->args, i) : NULL; }

/* ---- the hooks ---- */

LLVMValueRef lower_list_new(Lower *L, const Node *at, Type *lt, LLVMValueRef cap) { return new_list(L, at, lt, cap); }

void lower_list_append(Lower *L, LLVMValueRef list, Type *lt, LLVMValueRef v) { append(L, list, lt->item, v); }

LLVMValueRef lower_list_len(Lower *L, const Node *at, LLVMValueRef v, Type *t) {
    (void)at;
    (void)t;
    return list_len(L, v);
}

LLVMValueRef lower_list_item(Lower *L, const Node *at, LLVMValueRef v, Type *t, LLVMValueRef i, bool *owned) {
    (void)at;
    *owned = false;
    /* the loop's count was taken at its start: a list shrunk by the body raises */
    lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntUGE, i, list_len(L, v), ""), "IndexError",
                   "list index out of range (the list shrank during iteration)");
    return read_item(L, t->item, item_addr(L, t->item, v, i), owned);
}

LLVMValueRef lower_list_compare(Lower *L, const Node *at, OpKind op, Type *op_ty, LLVMValueRef a, Type *at_ty,
                                LLVMValueRef b, Type *bt_ty) {
    if (op == OP_IN || op == OP_NOTIN) {
        if (ty_has_unknown(bt_ty->item)) /* nothing is in an empty list */
            return LLVMConstInt(L->t_i1, op == OP_NOTIN, 0);
        LLVMValueRef x = lower_convert(L, at, a, at_ty, op_ty);
        LLVMValueRef k = find(L, at, b, bt_ty, x, op_ty, lower_i64(L, 0), list_len(L, b));
        if (!k)
            return NULL;
        return LLVMBuildICmp(L->b, op == OP_IN ? LLVMIntSGE : LLVMIntSLT, k, lower_i64(L, 0), "in");
    }
    if (op == OP_IS || op == OP_ISNOT)
        return LLVMBuildICmp(L->b, op == OP_IS ? LLVMIntEQ : LLVMIntNE, a, b, "is");
    return list_richcmp(L, at, op, op_ty, a, b);
}

bool lower_list_store(Lower *L, Node *target, LLVMValueRef v, Type *vt) {
    Type *lt = target->a->ty;
    LLVMValueRef mi = lower_expr_use(L, target->a);
    if (!mi)
        return false;
    if (target->b->kind == N_SLICE) {
        Node *s = target->b;
        LLVMValueRef as[5] = {mi, slice_bound(L, s->a), slice_bound(L, s->b), slice_step(L, s->c), v};
        LLVMTypeRef ps[5] = {L->t_ptr, L->t_i64, L->t_i64, L->t_i64, L->t_ptr};
        lower_check_status(L, rt(L, "rt_list_setslice", L->t_i32, ps, 5, as));
        return true;
    }
    LLVMValueRef i = lower_expr_use(L, target->b);
    if (!i)
        return false;
    i = norm_index(L, mi, i, "list assignment index out of range");
    LLVMValueRef p = item_addr(L, lt->item, mi, i);
    v = lower_convert(L, target, v, vt, lt->item);
    if (lower_has_refs(lt->item)) {
        LLVMValueRef old = load_item(L, lt->item, p);
        lower_incref(L, v, lt->item);
        store_item(L, lt->item, p, v);
        lower_decref(L, old, lt->item);
    } else {
        store_item(L, lt->item, p, v);
    }
    return true;
}

/* The environment of a key that is a closure (lowered once, borrowed), or NULL. */
static LLVMValueRef key_env(Lower *L, Node *key, bool *failed) {
    if (key->ty->kind != TY_CLOSURE)
        return NULL;
    LLVMValueRef env = lower_expr_use(L, key);
    *failed = !env;
    return env;
}

/* Call the key function (a spec) on x, after a closure's environment
 * `env`: its result, owned when it holds refs. */
static LLVMValueRef call_key(Lower *L, const Node *key, LLVMValueRef env, LLVMValueRef x, Type *item) {
    Spec *s = key->spec;
    LLVMValueRef fn = (LLVMValueRef)s->llvm_fn;
    LLVMValueRef small[8];
    LLVMValueRef *a = s->nargs <= 8 ? small : arena_alloc(&L->c->arena, sizeof(LLVMValueRef) * (size_t)s->nargs);
    for (int i = 0; env && i < s->nargs - 1; i++)
        a[i] = LLVMBuildExtractValue(L->b, env, (unsigned)i, "env");
    a[s->nargs - 1] = lower_convert(L, key, x, item, s->argtys[s->nargs - 1]);
    LLVMValueRef res = lower_call(L, LLVMGlobalGetValueType(fn), fn, a, (unsigned)s->nargs, "key");
    lower_check_status(L, LLVMBuildExtractValue(L->b, res, 0, "status"));
    return LLVMBuildExtractValue(L->b, res, 1, "key.value");
}

/* lst.sort(key=, reverse=) in place. */
static bool sort_list(Lower *L, Node *n, LLVMValueRef mi, Type *lt, Node *key, Node *rev) {
    LLVMValueRef r = rev ? LLVMBuildZExt(L->b, lower_expr_use(L, rev), L->t_i32, "") : lower_i32(L, 0);
    if (key) {
        Spec *s = key->spec;
        if (!s || !s->llvm_fn)
            return lower_fail(L, key, HJ_DIAG_LOWERING, "sort key was not specialised"), false;
        bool failed = false;
        LLVMValueRef env = key_env(L, key, &failed);
        if (failed)
            return false;
        Type *klt = ty_list(L->c->tc, s->ret);
        LLVMValueRef len = list_len(L, mi);
        LLVMValueRef keys = new_list(L, n, klt, len);
        if (!keys)
            return false;
        Loop lp;
        LLVMValueRef i = loop_begin(L, &lp, lower_i64(L, 0), len);
        LLVMValueRef x = load_item(L, lt->item, item_addr(L, lt->item, mi, i));
        LLVMValueRef k = call_key(L, key, env, x, lt->item);
        append(L, keys, s->ret, k);
        if (lower_has_refs(s->ret))
            lower_decref(L, k, s->ret);
        loop_end(L, &lp, i);
        LLVMTypeRef ps[3] = {L->t_ptr, L->t_ptr, L->t_i32};
        LLVMValueRef as[3] = {mi, keys, r};
        lower_check_status(L, rt(L, "rt_list_sort_keyed", L->t_i32, ps, 3, as));
        return true;
    }
    LLVMValueRef lt_fn = cmp_fn(L, n, lt->item, OP_LT);
    if (!lt_fn)
        return false;
    LLVMTypeRef ps[3] = {L->t_ptr, L->t_ptr, L->t_i32};
    LLVMValueRef as[3] = {mi, lt_fn, r};
    lower_check_status(L, rt(L, "rt_list_sort", L->t_i32, ps, 3, as));
    return true;
}

/* The index of the first least (is_min) or greatest item of the list `mi`
 * of `len` (>= 1) items of type t: Python's choice on ties. */
static LLVMValueRef best_index(Lower *L, Node *n, bool is_min, Type *t, LLVMValueRef mi, LLVMValueRef len) {
    LLVMValueRef best = lower_alloca(L, L->t_i64, "best");
    LLVMBuildStore(L->b, lower_i64(L, 0), best);
    Loop lp;
    LLVMValueRef i = loop_begin(L, &lp, lower_i64(L, 1), len);
    LLVMValueRef x = load_item(L, t, item_addr(L, t, mi, i));
    LLVMValueRef b = load_item(L, t, item_addr(L, t, mi, lower_load(L, L->t_i64, best, "")));
    LLVMValueRef c = item_cmp(L, n, is_min ? OP_LT : OP_GT, t, x, b);
    if (!c)
        return NULL;
    LLVMBuildStore(L->b, LLVMBuildSelect(L->b, c, i, lower_load(L, L->t_i64, best, ""), ""), best);
    loop_end(L, &lp, i);
    return lower_load(L, L->t_i64, best, "");
}

/* min/max (Python's: the first of the smallest/largest) and sum. */
static LLVMValueRef reduce(Lower *L, Node *n, LLVMValueRef mi, Type *lt, bool *owned) {
    Type *item = lt->item;
    LLVMValueRef len = list_len(L, mi);
    if (n->builtin == BI_LIST_SUM) {
        Node *st = arg(n, 1);
        LLVMValueRef acc0 = lower_expr_use(L, st);
        if (!acc0)
            return NULL;
        LLVMValueRef acc = lower_alloca(L, lower_type(L, n->ty), "sum");
        LLVMBuildStore(L->b, acc0, acc);
        Loop lp;
        LLVMValueRef i = loop_begin(L, &lp, lower_i64(L, 0), len);
        LLVMValueRef x = lower_convert(L, n, load_item(L, item, item_addr(L, item, mi, i)), item, n->ty);
        Type *rt_ = NULL;
        LLVMValueRef s = lower_binop(L, n, OP_ADD, n->ty, lower_load(L, lower_type(L, n->ty), acc, ""), x, &rt_);
        if (!s)
            return NULL;
        LLVMBuildStore(L->b, lower_convert(L, n, s, rt_, n->ty), acc);
        loop_end(L, &lp, i);
        return lower_load(L, lower_type(L, n->ty), acc, "sum");
    }
    bool is_min = n->builtin == BI_LIST_MIN;
    lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntEQ, len, lower_i64(L, 0), ""), "ValueError",
                   is_min ? "min() arg is an empty sequence" : "max() arg is an empty sequence");
    LLVMValueRef best = best_index(L, n, is_min, item, mi, len);
    return best ? read_item(L, item, item_addr(L, item, mi, best), owned) : NULL;
}

/* min/max(iterable, key=f): list(iterable), the list of its keys, then the
 * first index whose key is the least / greatest (Python's choice on ties). */
static LLVMValueRef minmax_key(Lower *L, Node *n, bool *owned) {
    bool is_min = n->builtin == BI_LIST_MINKEY;
    Type *item = n->ty, *lt = ty_list(L->c->tc, item);
    LLVMValueRef mi = new_list(L, n, lt, lower_i64(L, 0));
    if (!mi || !fill(L, n, mi, item, arg(n, 0)))
        return NULL;
    LLVMValueRef len = list_len(L, mi);
    lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntEQ, len, lower_i64(L, 0), ""), "ValueError",
                   is_min ? "min() arg is an empty sequence" : "max() arg is an empty sequence");
    Node *key = arg(n, 1);
    Type *kt = item;
    LLVMValueRef keys = mi;
    if (key) {
        Spec *s = key->spec;
        if (!s || !s->llvm_fn)
            return lower_fail(L, key, HJ_DIAG_LOWERING, "min/max key was not specialised");
        kt = s->ret;
        bool failed = false;
        LLVMValueRef env = key_env(L, key, &failed);
        if (failed)
            return NULL;
        if (!(keys = new_list(L, n, ty_list(L->c->tc, kt), len)))
            return NULL;
        Loop lp;
        LLVMValueRef i = loop_begin(L, &lp, lower_i64(L, 0), len);
        LLVMValueRef k = call_key(L, key, env, load_item(L, item, item_addr(L, item, mi, i)), item);
        append(L, keys, kt, k);
        if (lower_has_refs(kt))
            lower_decref(L, k, kt);
        loop_end(L, &lp, i);
    }
    LLVMValueRef best = best_index(L, n, is_min, kt, keys, len);
    return best ? read_item(L, item, item_addr(L, item, mi, best), owned) : NULL;
}

LLVMValueRef lower_list_call(Lower *L, Node *n, bool *owned) {
    *owned = false;
    BuiltinId id = n->builtin;
    Type *rt_ty = n->ty;
    if (id == BI_LIST_DISPLAY) {
        LLVMValueRef mi = new_list(L, n, rt_ty, lower_i64(L, n->args.len));
        if (!mi)
            return NULL;
        for (int i = 0; i < n->args.len; i++) {
            Node *e = arg(n, i);
            LLVMValueRef v = lower_expr_use(L, e);
            if (!v)
                return NULL;
            append(L, mi, rt_ty->item, lower_convert(L, e, v, e->ty, rt_ty->item));
        }
        return give(L, mi, rt_ty, owned);
    }
    if (id == BI_LIST_MINKEY || id == BI_LIST_MAXKEY)
        return minmax_key(L, n, owned);
    if (id == BI_LIST || id == BI_SORTED) {
        LLVMValueRef mi = new_list(L, n, rt_ty, lower_i64(L, 0));
        if (!mi || (arg(n, 0) && !fill(L, n, mi, rt_ty->item, arg(n, 0))))
            return NULL;
        if (id == BI_SORTED && !sort_list(L, n, mi, rt_ty, arg(n, 1), arg(n, 2)))
            return NULL;
        return give(L, mi, rt_ty, owned);
    }
    Node *ln = arg(n, 0);
    Type *lt = ln->ty;
    Type *item = lt->item;
    LLVMValueRef mi = lower_expr_use(L, ln);
    if (!mi)
        return NULL;
    LLVMValueRef none = lower_zero(L, ty_scalar(L->c->tc, TY_NONE));
    LLVMTypeRef p = L->t_ptr, i64 = L->t_i64;
    switch (id) {
    case BI_LIST_APPEND: {
        LLVMValueRef v = lower_expr_use(L, arg(n, 1));
        if (!v)
            return NULL;
        append(L, mi, item, lower_convert(L, n, v, arg(n, 1)->ty, item));
        return none;
    }
    case BI_LIST_EXTEND:
    case BI_LIST_IADD:
        return fill(L, n, mi, item, arg(n, 1)) ? none : NULL;
    case BI_LIST_INSERT: {
        LLVMValueRef i = lower_expr_use(L, arg(n, 1)), v = lower_expr_use(L, arg(n, 2));
        if (!i || !v)
            return NULL;
        LLVMTypeRef ps[3] = {p, i64, p};
        LLVMValueRef as[3] = {mi, i, spill(L, item, lower_convert(L, n, v, arg(n, 2)->ty, item))};
        lower_check_status(L, rt(L, "rt_list_insert", L->t_i32, ps, 3, as));
        return none;
    }
    case BI_LIST_POP: {
        LLVMValueRef i = arg(n, 1) ? lower_expr_use(L, arg(n, 1)) : lower_i64(L, -1);
        if (!i)
            return NULL;
        LLVMValueRef out = lower_alloca(L, lower_mem_type(L, item), "popped");
        LLVMTypeRef ps[3] = {p, i64, p};
        LLVMValueRef as[3] = {mi, i, out};
        lower_check_status(L, rt(L, "rt_list_pop", L->t_i32, ps, 3, as));
        *owned = lower_has_refs(item); /* the list's reference moved out */
        return load_item(L, item, out);
    }
    case BI_LIST_REMOVE:
    case BI_LIST_INDEX:
    case BI_LIST_COUNT: {
        Node *xn = arg(n, 1);
        LLVMValueRef x = lower_expr_use(L, xn);
        if (!x)
            return NULL;
        if (ty_has_unknown(item)) { /* an empty list of unknown items */
            if (id == BI_LIST_COUNT)
                return lower_i64(L, 0);
            lower_raise(L, "ValueError", id == BI_LIST_REMOVE ? "list.remove(x): x not in list" : "x is not in list");
            lower_at(L, lower_block(L, "dead"));
            return id == BI_LIST_INDEX ? lower_i64(L, 0) : none;
        }
        Type *ct = xn->ty == item ? item : ty_promote_arith(L->c->tc, xn->ty, item);
        x = lower_convert(L, n, x, xn->ty, ct);
        LLVMValueRef len = list_len(L, mi);
        if (id == BI_LIST_COUNT) {
            LLVMValueRef cnt = lower_alloca(L, i64, "count");
            LLVMBuildStore(L->b, lower_i64(L, 0), cnt);
            Loop lp;
            LLVMValueRef i = loop_begin(L, &lp, lower_i64(L, 0), len);
            LLVMValueRef y = lower_convert(L, n, load_item(L, item, item_addr(L, item, mi, i)), item, ct);
            LLVMValueRef e = item_cmp(L, n, OP_EQ, ct, x, y);
            if (!e)
                return NULL;
            LLVMValueRef c = lower_load(L, i64, cnt, "");
            LLVMBuildStore(L->b, LLVMBuildAdd(L->b, c, LLVMBuildZExt(L->b, e, i64, ""), ""), cnt);
            loop_end(L, &lp, i);
            return lower_load(L, i64, cnt, "count");
        }
        LLVMValueRef from = lower_i64(L, 0), to = len;
        if (id == BI_LIST_INDEX) { /* start/stop as slice bounds */
            LLVMValueRef b[2] = {from, to};
            for (int k = 0; k < 2; k++) {
                if (!arg(n, 2 + k))
                    continue;
                LLVMValueRef v = lower_expr_use(L, arg(n, 2 + k));
                if (!v)
                    return NULL;
                LLVMValueRef neg = LLVMBuildICmp(L->b, LLVMIntSLT, v, lower_i64(L, 0), "");
                v = LLVMBuildSelect(L->b, neg, LLVMBuildAdd(L->b, v, len, ""), v, "");
                v = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, v, lower_i64(L, 0), ""), lower_i64(L, 0), v, "");
                b[k] = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSGT, v, len, ""), len, v, "");
            }
            from = b[0];
            to = b[1];
        }
        LLVMValueRef k = find(L, n, mi, lt, x, ct, from, to);
        if (!k)
            return NULL;
        lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntSLT, k, lower_i64(L, 0), ""), "ValueError",
                       id == BI_LIST_REMOVE ? "list.remove(x): x not in list" : "x is not in list");
        if (id == BI_LIST_INDEX)
            return k;
        LLVMTypeRef ps[2] = {p, i64};
        LLVMValueRef as[2] = {mi, k};
        lower_check_status(L, rt(L, "rt_list_delitem", L->t_i32, ps, 2, as));
        return none;
    }
    case BI_LIST_REVERSE:
        rt(L, "rt_list_reverse", L->t_void, &p, 1, &mi);
        return none;
    case BI_LIST_CLEAR:
        rt(L, "rt_list_clear", L->t_void, &p, 1, &mi);
        return none;
    case BI_LIST_COPY: {
        LLVMValueRef c = rt(L, "rt_list_copy", L->t_ptr, &p, 1, &mi);
        check_ptr(L, c);
        *owned = true;
        return c;
    }
    case BI_LIST_SORT:
        return sort_list(L, n, mi, lt, arg(n, 1), arg(n, 2)) ? none : NULL;
    case BI_LIST_GETITEM: {
        LLVMValueRef i = lower_expr_use(L, arg(n, 1));
        if (!i)
            return NULL;
        i = norm_index(L, mi, i, "list index out of range");
        return read_item(L, item, item_addr(L, item, mi, i), owned);
    }
    case BI_LIST_GETSLICE:
    case BI_LIST_DELSLICE: {
        LLVMTypeRef ps[4] = {p, i64, i64, i64};
        LLVMValueRef as[4] = {mi, slice_bound(L, arg(n, 1)), slice_bound(L, arg(n, 2)), slice_step(L, arg(n, 3))};
        if (id == BI_LIST_DELSLICE) {
            lower_check_status(L, rt(L, "rt_list_delslice", L->t_i32, ps, 4, as));
            return none;
        }
        LLVMValueRef c = rt(L, "rt_list_getslice", L->t_ptr, ps, 4, as);
        check_ptr(L, c);
        *owned = true;
        return c;
    }
    case BI_LIST_DELITEM: {
        LLVMValueRef i = lower_expr_use(L, arg(n, 1));
        if (!i)
            return NULL;
        i = norm_index(L, mi, i, "list assignment index out of range");
        LLVMTypeRef ps[2] = {p, i64};
        LLVMValueRef as[2] = {mi, i};
        lower_check_status(L, rt(L, "rt_list_delitem", L->t_i32, ps, 2, as));
        return none;
    }
    case BI_LIST_CONCAT: {
        LLVMValueRef b = lower_expr_use(L, arg(n, 1));
        if (!b)
            return NULL;
        LLVMTypeRef ps[2] = {p, p};
        LLVMValueRef as[2] = {mi, b};
        LLVMValueRef c = rt(L, "rt_list_concat", L->t_ptr, ps, 2, as);
        check_ptr(L, c);
        *owned = true;
        return c;
    }
    case BI_LIST_REPEAT:
    case BI_LIST_IMUL: {
        LLVMValueRef k = lower_expr_use(L, arg(n, 1));
        if (!k)
            return NULL;
        LLVMTypeRef ps[2] = {p, i64};
        LLVMValueRef as[2] = {mi, k};
        if (id == BI_LIST_IMUL) {
            lower_check_status(L, rt(L, "rt_list_irepeat", L->t_i32, ps, 2, as));
            return none;
        }
        LLVMValueRef c = rt(L, "rt_list_repeat", L->t_ptr, ps, 2, as);
        check_ptr(L, c);
        *owned = true;
        return c;
    }
    case BI_LIST_AUGITEM: {
        LLVMValueRef i = lower_expr_use(L, arg(n, 1)), v = lower_expr_use(L, arg(n, 2));
        if (!i || !v)
            return NULL;
        i = norm_index(L, mi, i, "list index out of range");
        LLVMValueRef ip = item_addr(L, item, mi, i);
        LLVMValueRef x = lower_convert(L, n, load_item(L, item, ip), item, n->op_ty);
        Type *res_ty = NULL;
        LLVMValueRef r = lower_binop(L, n, n->op, n->op_ty, x, v, &res_ty);
        if (!r)
            return NULL;
        store_item(L, item, item_addr(L, item, mi, i), lower_convert(L, n, r, res_ty, item));
        return none;
    }
    case BI_LIST_MIN:
    case BI_LIST_MAX:
    case BI_LIST_SUM:
        return reduce(L, n, mi, lt, owned);
    default:
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "%s() is not supported by hpcjit", builtin_name(id));
    }
}
