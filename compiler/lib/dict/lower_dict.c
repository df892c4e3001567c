/* lower_dict.c - lowering of Python dicts and sets (typed by infer_dict.c).
 *
 * A dict is an HjMemInfo * whose data is the runtime's HjDict, a set's an
 * HjSet (hpcjit/containers.h); a keys()/values()/items() view is the
 * dict's own MemInfo.  Everything but len (the first field of both
 * structs, read inline) calls the runtime (rt_dict_*, rt_set_*) with keys
 * and values spilled to memory in their in-memory form (bool: i8).
 *
 * Item descriptors: keys of int64, uint64, int32, float64, float32 and
 * bool use the runtime's rt_ops_*; other number keys and tuples get an
 * internal constant with a hash (CPython's: rt_pyhash_* per field, then
 * rt_hash_tuple), an eq and a repr (for KeyError's message) emitted here.
 * Values use lib/list's descriptors (lower_list_ops: reference counting
 * and eq).  Iteration walks the table with the runtime's cursor
 * (RtDictIter / RtSetIter, the registry's lower_iter_begin/next), which
 * raises CPython's RuntimeError when the size changes under a loop. */
#include "dict.h"
#include "list/list.h"
#include "registry.h"

#include <string.h>

static LLVMValueRef rt(Lower *L, const char *name, LLVMTypeRef ret, LLVMTypeRef *ps, unsigned n, LLVMValueRef *as) {
    return lower_rt(L, name, ret, ps, n, as);
}

/* Leave through the error exit when p (a pointer from the runtime) is NULL. */
static void check_ptr(Lower *L, LLVMValueRef p) {
    lower_check_status(L, LLVMBuildZExt(L->b, LLVMBuildIsNull(L->b, p, ""), L->t_i32, ""));
}

static LLVMValueRef load_item(Lower *L, Type *t, LLVMValueRef p) {
    return lower_from_mem(L, lower_load(L, lower_mem_type(L, t), p, "item"), t);
}

/* v in memory, for the runtime's `const void *` parameters. */
static LLVMValueRef spill(Lower *L, Type *t, LLVMValueRef v) {
    LLVMValueRef p = lower_alloca(L, lower_mem_type(L, t), "item.tmp");
    LLVMBuildStore(L->b, lower_to_mem(L, v, t), p);
    return p;
}

/* An item read out of a container for a user: owned when it holds references. */
static LLVMValueRef read_item(Lower *L, Type *t, LLVMValueRef p, bool *owned) {
    LLVMValueRef v = load_item(L, t, p);
    if (lower_has_refs(t)) {
        lower_incref(L, v, t);
        *owned = true;
    }
    return v;
}

static Node *arg(Node *n, int i) { return i < n->args.len ? VEC_AT(n->args, i) : NULL; }

static Type *key_of(const Type *t) { return t->kind == TY_SET ? t->item : t->key; }

/* ---- item descriptors ---- */

static LLVMTypeRef ops_type(Lower *L) {
    LLVMTypeRef f[8] = {L->t_i64, L->t_i64, L->t_ptr, L->t_ptr, L->t_ptr, L->t_ptr, L->t_ptr, L->t_ptr};
    return LLVMStructTypeInContext(L->ctx, f, 8, 0);
}

/* CPython's hash() of v (a number or a tuple of them) as an i64. */
static LLVMValueRef hash_value(Lower *L, Type *t, LLVMValueRef v) {
    LLVMTypeRef i64 = L->t_i64;
    if (t->kind == TY_TUPLE) {
        LLVMTypeRef at = LLVMArrayType2(i64, (uint64_t)(t->nelems ? t->nelems : 1));
        LLVMValueRef lanes = lower_alloca(L, at, "lanes");
        for (int i = 0; i < t->nelems; i++) {
            LLVMValueRef h = hash_value(L, t->elems[i], LLVMBuildExtractValue(L->b, v, (unsigned)i, ""));
            LLVMValueRef idx[2] = {lower_i64(L, 0), lower_i64(L, i)};
            LLVMBuildStore(L->b, h, lower_gep(L, at, lanes, idx, 2, ""));
        }
        LLVMTypeRef ps[2] = {L->t_ptr, i64};
        LLVMValueRef as[2] = {lanes, lower_i64(L, t->nelems)};
        return rt(L, "rt_hash_tuple", i64, ps, 2, as);
    }
    if (ty_is_float(t)) {
        LLVMValueRef d = t->kind == TY_FLOAT64 ? v : LLVMBuildFPExt(L->b, v, L->t_f64, "");
        return rt(L, "rt_pyhash_double", i64, &L->t_f64, 1, &d);
    }
    if (t->kind == TY_STRING)
        return rt(L, "rt_str_hash", i64, &L->t_ptr, 1, &v);
    if (ty_is_complex(t)) { /* hash(re) + 1000003 * hash(im), -1 -> -2 (CPython's) */
        Type *ft = t->kind == TY_COMPLEX64 ? ty_scalar(L->c->tc, TY_FLOAT32) : ty_scalar(L->c->tc, TY_FLOAT64);
        LLVMValueRef re = hash_value(L, ft, LLVMBuildExtractValue(L->b, v, 0, ""));
        LLVMValueRef im = hash_value(L, ft, LLVMBuildExtractValue(L->b, v, 1, ""));
        LLVMValueRef h = LLVMBuildAdd(L->b, re, LLVMBuildMul(L->b, im, lower_i64(L, 1000003), ""), "");
        LLVMValueRef m1 = LLVMBuildICmp(L->b, LLVMIntEQ, h, lower_i64(L, -1), "");
        return LLVMBuildSelect(L->b, m1, lower_i64(L, -2), h, "hash");
    }
    bool u = ty_is_unsigned(t);
    LLVMValueRef x = t->kind == TY_BOOL || u ? LLVMBuildZExt(L->b, v, i64, "") : LLVMBuildSExt(L->b, v, i64, "");
    if (LLVMTypeOf(v) == i64)
        x = v;
    return rt(L, u ? "rt_pyhash_uint" : "rt_pyhash_int", i64, &i64, 1, &x);
}

/* repr(v) appended to the thread's text (KeyError's message). */
static void repr_value(Lower *L, Type *t, LLVMValueRef v) {
    LLVMTypeRef p = L->t_ptr;
    if (t->kind == TY_TUPLE) {
        LLVMValueRef s = lower_cstr(L, "(");
        rt(L, "rt_text_str", L->t_void, &p, 1, &s);
        for (int i = 0; i < t->nelems; i++) {
            if (i) {
                s = lower_cstr(L, ", ");
                rt(L, "rt_text_str", L->t_void, &p, 1, &s);
            }
            repr_value(L, t->elems[i], LLVMBuildExtractValue(L->b, v, (unsigned)i, ""));
        }
        s = lower_cstr(L, t->nelems == 1 ? ",)" : ")");
        rt(L, "rt_text_str", L->t_void, &p, 1, &s);
        return;
    }
    if (t->kind == TY_STRING) {
        rt(L, "rt_str_text_repr", L->t_void, &p, 1, &v);
    } else if (t->kind == TY_BOOL) {
        LLVMValueRef x = LLVMBuildZExt(L->b, v, L->t_i32, "");
        rt(L, "rt_text_bool", L->t_void, &L->t_i32, 1, &x);
    } else if (ty_is_float(t)) {
        LLVMValueRef d = t->kind == TY_FLOAT64 ? v : LLVMBuildFPExt(L->b, v, L->t_f64, "");
        rt(L, "rt_text_f64", L->t_void, &L->t_f64, 1, &d);
    } else {
        bool u = ty_is_unsigned(t);
        LLVMValueRef x = LLVMTypeOf(v) == L->t_i64 ? v
                         : u ? LLVMBuildZExt(L->b, v, L->t_i64, "") : LLVMBuildSExt(L->b, v, L->t_i64, "");
        rt(L, u ? "rt_text_uint" : "rt_text_int", L->t_void, &L->t_i64, 1, &x);
    }
}

/* The hash, eq or repr function of keys of type t. */
static LLVMValueRef key_fn(Lower *L, Type *t, int which) {
    static const char *const what[3] = {"hash", "eq", "repr"};
    const char *name = arena_printf(&L->c->arena, "hj.dict.%s.%s", what[which], lower_typecode(L, t));
    LLVMValueRef f = LLVMGetNamedFunction(L->mod, name);
    if (f)
        return f;
    LLVMTypeRef ps[2] = {L->t_ptr, L->t_ptr};
    LLVMTypeRef ret = which == 0 ? L->t_i64 : which == 1 ? L->t_i32 : L->t_void;
    LowerSaved sv;
    f = lower_helper_begin(L, name, LLVMFunctionType(ret, ps, which == 1 ? 2 : 1, 0), &sv);
    LLVMValueRef a = load_item(L, t, LLVMGetParam(f, 0));
    if (which == 0) {
        LLVMBuildRet(L->b, hash_value(L, t, a));
    } else if (which == 1) {
        LLVMValueRef b = load_item(L, t, LLVMGetParam(f, 1));
        LLVMValueRef c = lower_cmp(L, NULL, OP_EQ, t, a, b);
        LLVMBuildRet(L->b, LLVMBuildZExt(L->b, c ? c : LLVMConstInt(L->t_i1, 0, 0), L->t_i32, ""));
    } else {
        repr_value(L, t, a);
        LLVMBuildRetVoid(L->b);
    }
    lower_helper_end(L, &sv);
    return f;
}

/* The RtItemOps of keys (and set items) of type t. */
static LLVMValueRef key_ops(Lower *L, const Node *at, Type *t) {
    if (ty_has_unknown(t) || !dict_hashable(t))
        return lower_fail(L, at, HJ_DIAG_TYPING, "cannot determine the key type of this dict or set");
    LLVMTypeRef oty = ops_type(L);
    const char *sfx = lower_rt_suffix(t);
    const char *name = sfx ? arena_printf(&L->c->arena, "rt_ops_%s", sfx)
                           : arena_printf(&L->c->arena, "hj.keyops.%s", lower_typecode(L, t));
    LLVMValueRef g = LLVMGetNamedGlobal(L->mod, name);
    if (g)
        return g;
    if (sfx) {
        g = LLVMAddGlobal(L->mod, oty, name);
        LLVMSetGlobalConstant(g, 1);
        return g;
    }
    LLVMTypeRef mt = lower_mem_type(L, t);
    LLVMValueRef null = LLVMConstNull(L->t_ptr);
    LLVMValueRef f[8] = {LLVMSizeOf(mt), LLVMAlignOf(mt), null, null,
                         key_fn(L, t, 0), key_fn(L, t, 1), null, key_fn(L, t, 2)};
    g = LLVMAddGlobal(L->mod, oty, name);
    LLVMSetLinkage(g, LLVMInternalLinkage);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetInitializer(g, LLVMConstNamedStruct(oty, f, 8));
    return g;
}

/* ---- construction ---- */

/* A new empty dict or set of type ct for n_hint items, held as a
 * temporary (released at the end of the statement, or on an error). */
static LLVMValueRef new_container(Lower *L, const Node *at, Type *ct, LLVMValueRef hint) {
    if (ty_has_unknown(ct))
        return lower_fail(L, at, HJ_DIAG_TYPING, "cannot determine the types of this %s: %s",
                          ct->kind == TY_SET ? "set" : "dict", "its items are never known");
    LLVMValueRef kops = key_ops(L, at, key_of(ct));
    LLVMValueRef mi;
    if (!kops)
        return NULL;
    if (ct->kind == TY_DICT) {
        LLVMValueRef vops = lower_list_ops(L, ct->item);
        if (lower_failed(L))
            return NULL;
        LLVMTypeRef ps[3] = {L->t_ptr, L->t_ptr, L->t_i64};
        LLVMValueRef as[3] = {kops, vops, hint};
        mi = rt(L, "rt_dict_new", L->t_ptr, ps, 3, as);
    } else {
        LLVMTypeRef ps[2] = {L->t_ptr, L->t_i64};
        LLVMValueRef as[2] = {kops, hint};
        mi = rt(L, "rt_set_new", L->t_ptr, ps, 2, as);
    }
    check_ptr(L, mi);
    lower_temp(L, mi, ct, true);
    return mi;
}

/* The temporary container `mi` as an owned result. */
static LLVMValueRef give(Lower *L, LLVMValueRef mi, Type *ct, bool *owned) {
    lower_incref(L, mi, ct);
    *owned = true;
    return mi;
}

static void set_add(Lower *L, LLVMValueRef s, Type *item, LLVMValueRef v) {
    LLVMTypeRef ps[2] = {L->t_ptr, L->t_ptr};
    LLVMValueRef as[2] = {s, spill(L, item, v)};
    lower_check_status(L, rt(L, "rt_set_add", L->t_i32, ps, 2, as));
}

static void dict_set(Lower *L, LLVMValueRef d, Type *dt, LLVMValueRef k, LLVMValueRef v) {
    LLVMTypeRef ps[3] = {L->t_ptr, L->t_ptr, L->t_ptr};
    LLVMValueRef as[3] = {d, spill(L, dt->key, k), spill(L, dt->item, v)};
    lower_check_status(L, rt(L, "rt_dict_setitem", L->t_i32, ps, 3, as));
}

/* ---- loops ---- */

typedef struct Loop {
    LLVMValueRef slot;
    LLVMBasicBlockRef cond, body, end;
} Loop;

/* for (i = 0; i < n; i++): returns i, the builder in the body. */
static LLVMValueRef loop_begin(Lower *L, Loop *lp, LLVMValueRef n) {
    lp->slot = lower_alloca(L, L->t_i64, "i");
    LLVMBuildStore(L->b, lower_i64(L, 0), lp->slot);
    lp->cond = lower_block(L, "dict.loop");
    lp->body = lower_block(L, "dict.body");
    lp->end = lower_block(L, "dict.end");
    LLVMBuildBr(L->b, lp->cond);
    lower_at(L, lp->cond);
    LLVMValueRef i = lower_load(L, L->t_i64, lp->slot, "i");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, i, n, ""), lp->body, lp->end);
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

/* ---- the hooks ---- */

LLVMValueRef lower_dict_len(Lower *L, const Node *at, LLVMValueRef v, Type *t) {
    (void)at;
    (void)t;
    LLVMValueRef idx[2] = {LLVMConstInt(L->t_i32, 0, 0), LLVMConstInt(L->t_i32, 1, 0)};
    LLVMValueRef data = lower_load(L, L->t_ptr, lower_gep(L, L->t_meminfo, v, idx, 2, ""), "data");
    return lower_load(L, L->t_i64, data, "len"); /* HjDict and HjSet start with len */
}

LLVMValueRef lower_dict_iter_begin(Lower *L, const Node *at, LLVMValueRef v, Type *t, LLVMValueRef len) {
    (void)at;
    (void)v;
    (void)t;
    LLVMTypeRef f[2] = {L->t_i64, L->t_i64}; /* RtDictIter, RtSetIter: {pos, len} */
    LLVMTypeRef it_ty = LLVMStructTypeInContext(L->ctx, f, 2, 0);
    LLVMValueRef it = lower_alloca(L, it_ty, "dict.it");
    LLVMValueRef idx[2] = {LLVMConstInt(L->t_i32, 0, 0), LLVMConstInt(L->t_i32, 0, 0)};
    LLVMBuildStore(L->b, lower_i64(L, 0), lower_gep(L, it_ty, it, idx, 2, ""));
    idx[1] = LLVMConstInt(L->t_i32, 1, 0);
    LLVMBuildStore(L->b, len, lower_gep(L, it_ty, it, idx, 2, ""));
    return it;
}

LLVMValueRef lower_dict_iter_next(Lower *L, const Node *at, LLVMValueRef v, Type *t, LLVMValueRef cursor,
                                  bool *owned) {
    (void)at;
    *owned = false;
    LLVMValueRef kp = lower_alloca(L, L->t_ptr, "key.p"), vp = NULL, st;
    if (t->kind == TY_SET) {
        LLVMTypeRef ps[3] = {L->t_ptr, L->t_ptr, L->t_ptr};
        LLVMValueRef as[3] = {v, cursor, kp};
        st = rt(L, "rt_set_iter_next", L->t_i32, ps, 3, as);
    } else {
        vp = lower_alloca(L, L->t_ptr, "value.p");
        LLVMTypeRef ps[4] = {L->t_ptr, L->t_ptr, L->t_ptr, L->t_ptr};
        LLVMValueRef as[4] = {v, cursor, kp, vp};
        st = rt(L, "rt_dict_iter_next", L->t_i32, ps, 4, as);
    }
    /* 0 (ended early): the table was changed under the loop at the same size */
    lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntEQ, st, lower_i32(L, 0), ""), "RuntimeError",
                   t->kind == TY_SET ? "Set changed size during iteration" : "dictionary keys changed during iteration");
    lower_check_status(L, LLVMBuildZExt(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, st, lower_i32(L, 0), ""), L->t_i32, ""));
    Type *kt = key_of(t);
    int view = t->kind == TY_DICT_VIEW ? t->ndim : 0;
    if (view == 0)
        return load_item(L, kt, lower_load(L, L->t_ptr, kp, ""));
    LLVMValueRef val = read_item(L, t->item, lower_load(L, L->t_ptr, vp, ""), owned);
    if (view == 1)
        return val;
    /* items(): the pair is owned as a whole when either part holds
     * references (a str key is then a reference of its own) */
    Type *pair[2] = {kt, t->item};
    LLVMValueRef key = load_item(L, kt, lower_load(L, L->t_ptr, kp, ""));
    if (lower_has_refs(kt)) {
        lower_incref(L, key, kt);
        *owned = true;
    }
    LLVMValueRef r = LLVMGetUndef(lower_type(L, ty_tuple(L->c->tc, pair, 2)));
    r = LLVMBuildInsertValue(L->b, r, key, 0, "");
    return LLVMBuildInsertValue(L->b, r, val, 1, "item");
}

LLVMValueRef lower_dict_compare(Lower *L, const Node *at, OpKind op, Type *op_ty, LLVMValueRef a, Type *at_ty,
                                LLVMValueRef b, Type *bt_ty) {
    LLVMTypeRef ps[2] = {L->t_ptr, L->t_ptr};
    if (op == OP_IN || op == OP_NOTIN) {
        if (ty_has_unknown(key_of(bt_ty))) /* nothing is in a container of unknown keys */
            return LLVMConstInt(L->t_i1, op == OP_NOTIN, 0);
        LLVMValueRef x = lower_convert(L, at, a, at_ty, op_ty);
        LLVMValueRef as[2] = {b, spill(L, op_ty, x)};
        LLVMValueRef r = rt(L, bt_ty->kind == TY_SET ? "rt_set_contains" : "rt_dict_contains", L->t_i32, ps, 2, as);
        return LLVMBuildICmp(L->b, op == OP_IN ? LLVMIntNE : LLVMIntEQ, r, lower_i32(L, 0), "in");
    }
    if (op == OP_IS || op == OP_ISNOT)
        return LLVMBuildICmp(L->b, op == OP_IS ? LLVMIntEQ : LLVMIntNE, a, b, "is");
    LLVMValueRef as[2] = {a, b};
    bool set = op_ty->kind == TY_SET;
    if (op == OP_EQ || op == OP_NE) {
        LLVMValueRef r = rt(L, set ? "rt_set_eq" : "rt_dict_eq", L->t_i32, ps, 2, as);
        return LLVMBuildICmp(L->b, op == OP_EQ ? LLVMIntNE : LLVMIntEQ, r, lower_i32(L, 0), "eq");
    }
    /* set inclusion: <= subset, < proper subset, >= superset, > proper superset */
    bool sub = op == OP_LE || op == OP_LT;
    LLVMValueRef r = rt(L, sub ? "rt_set_issubset" : "rt_set_issuperset", L->t_i32, ps, 2, as);
    LLVMValueRef c = LLVMBuildICmp(L->b, LLVMIntNE, r, lower_i32(L, 0), "");
    if (op == OP_LT || op == OP_GT)
        c = LLVMBuildAnd(L->b, c,
                         LLVMBuildICmp(L->b, LLVMIntNE, lower_dict_len(L, at, a, at_ty), lower_dict_len(L, at, b, bt_ty), ""),
                         "proper");
    return c;
}

bool lower_dict_store(Lower *L, Node *target, LLVMValueRef v, Type *vt) {
    Type *dt = target->a->ty;
    LLVMValueRef d = lower_expr_use(L, target->a);
    LLVMValueRef k = d ? lower_expr_use(L, target->b) : NULL;
    if (!k)
        return false;
    k = lower_convert(L, target, k, target->b->ty, dt->key);
    dict_set(L, d, dt, k, lower_convert(L, target, v, vt, dt->item));
    return true;
}

/* Put x (of type xt, borrowed) into c: a set's item, or for a dict a
 * (key, value) pair, as dict(pairs) takes them. */
static void put_item(Lower *L, const Node *at, LLVMValueRef c, Type *ct, LLVMValueRef x, Type *xt) {
    if (ct->kind == TY_SET) {
        set_add(L, c, ct->item, lower_convert(L, at, x, xt, ct->item));
        return;
    }
    LLVMValueRef k = LLVMBuildExtractValue(L->b, x, 0, "key"), v = LLVMBuildExtractValue(L->b, x, 1, "value");
    dict_set(L, c, ct, lower_convert(L, at, k, xt->elems[0], ct->key), lower_convert(L, at, v, xt->elems[1], ct->item));
}

/* An item read by a loop below: put into c, then released when the read
 * gave a reference (a str of a list, a row of an array). */
static void put_read(Lower *L, const Node *at, LLVMValueRef c, Type *ct, LLVMValueRef x, Type *xt, bool owned) {
    put_item(L, at, c, ct, x, xt);
    if (owned)
        lower_decref(L, x, xt);
}

/* Add every item of `src` (a list, 1-d array, range, tuple, set, dict,
 * view or generator object) to the set c, or every pair to the dict c. */
static bool fill(Lower *L, const Node *at, LLVMValueRef c, Type *ct, Node *src_node) {
    Type *st = src_node->ty;
    LLVMValueRef src = lower_expr_use(L, src_node);
    if (!src)
        return false;
    Loop lp;
    switch (st->kind) {
    case TY_LIST: {
        LLVMValueRef n = lower_list_len(L, at, src, st);
        LLVMValueRef i = loop_begin(L, &lp, n);
        bool o = false;
        LLVMValueRef x = lower_list_item(L, at, src, st, i, &o);
        if (!x)
            return false;
        put_read(L, at, c, ct, x, st->item, o);
        loop_end(L, &lp, i);
        return true;
    }
    case TY_RANGE: {
        LLVMValueRef start = LLVMBuildExtractValue(L->b, src, 0, "start");
        LLVMValueRef step = LLVMBuildExtractValue(L->b, src, 2, "step");
        LLVMValueRef n = lower_range_len(L, start, LLVMBuildExtractValue(L->b, src, 1, "stop"), step);
        LLVMValueRef i = loop_begin(L, &lp, n);
        LLVMValueRef x = LLVMBuildAdd(L->b, start, LLVMBuildMul(L->b, i, step, ""), "");
        put_item(L, at, c, ct, x, ty_scalar(L->c->tc, TY_INT64));
        loop_end(L, &lp, i);
        return true;
    }
    case TY_ARRAY: {
        LLVMValueRef n = lower_array_dim(L, src, ARR_SHAPE, 0);
        LLVMValueRef i = loop_begin(L, &lp, n);
        Type *ety = NULL;
        bool o = false;
        LLVMValueRef x = lower_array_item(L, at, src, st, i, &ety, &o);
        if (!x)
            return false;
        put_read(L, at, c, ct, x, ety, o);
        loop_end(L, &lp, i);
        return true;
    }
    case TY_TUPLE:
        for (int k = 0; k < st->nelems; k++)
            put_item(L, at, c, ct, LLVMBuildExtractValue(L->b, src, (unsigned)k, ""), st->elems[k]);
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
        lower_temp(L, x, st->item, true); /* released after the add, or by its failure */
        put_item(L, at, c, ct, x, st->item);
        lower_temps_release(L, mark);
        LLVMBuildBr(L->b, head);
        lower_at(L, done);
        return true;
    }
    case TY_SET:
    case TY_DICT:
    case TY_DICT_VIEW: {
        Type *et = lib_type_owner(st)->item_type(L->c->tc, st); /* a key, a value, or a (key, value) pair */
        LLVMValueRef n = lower_dict_len(L, at, src, st);
        LLVMValueRef cur = lower_dict_iter_begin(L, at, src, st, n);
        LLVMValueRef i = loop_begin(L, &lp, n);
        bool o = false;
        LLVMValueRef x = lower_dict_iter_next(L, at, src, st, cur, &o);
        if (!x)
            return false;
        put_read(L, at, c, ct, x, et, o);
        loop_end(L, &lp, i);
        return true;
    }
    default:
        lower_fail(L, at, HJ_DIAG_UNSUPPORTED, "cannot make a %s from this value", ct->kind == TY_SET ? "set" : "dict");
        return false;
    }
}

/* A key argument, converted to the container's key type. */
static LLVMValueRef key_arg(Lower *L, Node *n, int i, Type *ct) {
    Node *k = arg(n, i);
    LLVMValueRef v = lower_expr_use(L, k);
    if (!v)
        return NULL;
    Type *kt = key_of(ct);
    return spill(L, kt, lower_convert(L, n, v, k->ty, kt));
}

/* d.get(k, default) / d.pop(k, default): the value converted to the
 * call's type when k is present, else the default (None without one). */
static LLVMValueRef get_or_default(Lower *L, Node *n, LLVMValueRef d, Type *dt, bool pop, bool *owned) {
    Type *r = n->ty;
    LLVMValueRef kp = key_arg(L, n, 1, dt);
    Node *dn = arg(n, 2);
    LLVMValueRef dv = dn ? lower_expr_use(L, dn) : lower_zero(L, ty_scalar(L->c->tc, TY_NONE));
    if (!kp || !dv)
        return NULL;
    Type *dty = dn ? dn->ty : ty_scalar(L->c->tc, TY_NONE);
    LLVMTypeRef ps[3] = {L->t_ptr, L->t_ptr, L->t_ptr};
    LLVMValueRef as[3] = {d, kp, NULL};
    LLVMValueRef p = rt(L, "rt_dict_lookup", L->t_ptr, ps, 2, as);
    LLVMValueRef res = lower_alloca(L, lower_type(L, r), "get");
    LLVMBasicBlockRef found = lower_block(L, "get.found"), missing = lower_block(L, "get.missing"),
                      done = lower_block(L, "get.done");
    LLVMBuildCondBr(L->b, LLVMBuildIsNull(L->b, p, ""), missing, found);
    lower_at(L, found);
    bool refs = lower_has_refs(r);
    LLVMValueRef v;
    if (pop) {
        LLVMValueRef out = lower_alloca(L, lower_mem_type(L, dt->item), "popped");
        as[2] = out;
        lower_check_status(L, rt(L, "rt_dict_pop", L->t_i32, ps, 3, as));
        v = load_item(L, dt->item, out); /* the dict's reference moved out */
    } else {
        v = load_item(L, dt->item, p);
        if (refs)
            lower_incref(L, v, dt->item);
    }
    LLVMBuildStore(L->b, lower_convert(L, n, v, dt->item, r), res);
    LLVMBuildBr(L->b, done);
    lower_at(L, missing);
    LLVMValueRef x = lower_convert(L, n, dv, dty, r);
    if (refs)
        lower_incref(L, x, r);
    LLVMBuildStore(L->b, x, res);
    LLVMBuildBr(L->b, done);
    lower_at(L, done);
    *owned = refs;
    return lower_load(L, lower_type(L, r), res, "get");
}

static const char *set_binop_fn(OpKind op) {
    switch (op) {
    case OP_BITOR: return "rt_set_union";
    case OP_BITAND: return "rt_set_intersection";
    case OP_SUB: return "rt_set_difference";
    default: return "rt_set_symmetric_difference";
    }
}

LLVMValueRef lower_dict_call(Lower *L, Node *n, bool *owned) {
    *owned = false;
    BuiltinId id = n->builtin;
    if (id == BI_HASH) {
        Node *a = VEC_AT(n->args, 0);
        LLVMValueRef v = lower_expr_use(L, a);
        return v ? hash_value(L, a->ty, v) : NULL;
    }
    Type *rt_ty = n->ty;
    LLVMTypeRef p = L->t_ptr;
    if (id == BI_DICT_DISPLAY || id == BI_SET_DISPLAY) {
        bool d = id == BI_DICT_DISPLAY;
        LLVMValueRef mi = new_container(L, n, rt_ty, lower_i64(L, d ? n->args.len / 2 : n->args.len));
        if (!mi)
            return NULL;
        for (int i = 0; i < n->args.len; i += d ? 2 : 1) {
            Node *k = arg(n, i), *vn = d ? arg(n, i + 1) : NULL;
            LLVMValueRef kv = lower_expr_use(L, k);
            LLVMValueRef vv = kv && d ? lower_expr_use(L, vn) : kv;
            if (!vv)
                return NULL;
            kv = lower_convert(L, k, kv, k->ty, key_of(rt_ty));
            if (d)
                dict_set(L, mi, rt_ty, kv, lower_convert(L, vn, vv, vn->ty, rt_ty->item));
            else
                set_add(L, mi, rt_ty->item, kv);
        }
        return give(L, mi, rt_ty, owned);
    }
    if (id == BI_DICT || id == BI_SET) {
        Node *src = arg(n, 0);
        if (src && src->ty == rt_ty) { /* dict(d), set(s): a copy */
            LLVMValueRef s = lower_expr_use(L, src);
            if (!s)
                return NULL;
            LLVMValueRef c = rt(L, id == BI_DICT ? "rt_dict_copy" : "rt_set_copy", p, &p, 1, &s);
            check_ptr(L, c);
            *owned = true;
            return c;
        }
        LLVMValueRef mi = new_container(L, n, rt_ty, lower_i64(L, 0));
        if (!mi || (src && !fill(L, n, mi, rt_ty, src)))
            return NULL;
        return give(L, mi, rt_ty, owned);
    }
    Node *cn = arg(n, 0);
    Type *ct = cn->ty;
    LLVMValueRef mi = lower_expr_use(L, cn);
    if (!mi)
        return NULL;
    LLVMValueRef none = lower_zero(L, ty_scalar(L->c->tc, TY_NONE));
    LLVMTypeRef pp[3] = {p, p, p};
    switch (id) {
    case BI_DICT_GETITEM: {
        LLVMValueRef kp = key_arg(L, n, 1, ct);
        if (!kp)
            return NULL;
        LLVMValueRef as[2] = {mi, kp};
        LLVMValueRef vp = rt(L, "rt_dict_getitem", p, pp, 2, as);
        check_ptr(L, vp);
        return read_item(L, ct->item, vp, owned);
    }
    case BI_DICT_DELITEM:
    case BI_SET_DISCARD:
    case BI_SET_REMOVE:
    case BI_SET_ADD: {
        LLVMValueRef kp = key_arg(L, n, 1, ct);
        if (!kp)
            return NULL;
        LLVMValueRef as[2] = {mi, kp};
        const char *fn = id == BI_DICT_DELITEM ? "rt_dict_delitem"
                         : id == BI_SET_DISCARD ? "rt_set_discard"
                         : id == BI_SET_REMOVE  ? "rt_set_remove"
                                                : "rt_set_add";
        LLVMValueRef r = rt(L, fn, L->t_i32, pp, 2, as);
        if (id != BI_SET_DISCARD)
            lower_check_status(L, r);
        return none;
    }
    case BI_DICT_AUGITEM: {
        LLVMValueRef kp = key_arg(L, n, 1, ct), v = kp ? lower_expr_use(L, arg(n, 2)) : NULL;
        if (!v)
            return NULL;
        LLVMValueRef as[2] = {mi, kp};
        LLVMValueRef vp = rt(L, "rt_dict_getitem", p, pp, 2, as);
        check_ptr(L, vp);
        LLVMValueRef x = lower_convert(L, n, load_item(L, ct->item, vp), ct->item, n->op_ty);
        Type *res_ty = NULL;
        LLVMValueRef r = lower_binop(L, n, n->op, n->op_ty, x, v, &res_ty);
        if (!r)
            return NULL;
        LLVMBuildStore(L->b, lower_to_mem(L, lower_convert(L, n, r, res_ty, ct->item), ct->item), vp);
        return none;
    }
    case BI_DICT_GET:
        return get_or_default(L, n, mi, ct, false, owned);
    case BI_DICT_POP: {
        if (arg(n, 2))
            return get_or_default(L, n, mi, ct, true, owned);
        LLVMValueRef kp = key_arg(L, n, 1, ct);
        if (!kp)
            return NULL;
        LLVMValueRef out = lower_alloca(L, lower_mem_type(L, ct->item), "popped");
        LLVMValueRef as[3] = {mi, kp, out};
        lower_check_status(L, rt(L, "rt_dict_pop", L->t_i32, pp, 3, as));
        *owned = lower_has_refs(ct->item); /* the dict's reference moved out */
        return load_item(L, ct->item, out);
    }
    case BI_DICT_SETDEFAULT: {
        LLVMValueRef kp = key_arg(L, n, 1, ct), v = kp ? lower_expr_use(L, arg(n, 2)) : NULL;
        if (!v)
            return NULL;
        LLVMValueRef as[3] = {mi, kp, spill(L, ct->item, lower_convert(L, n, v, arg(n, 2)->ty, ct->item))};
        LLVMValueRef vp = rt(L, "rt_dict_setdefault", p, pp, 3, as);
        check_ptr(L, vp);
        return read_item(L, ct->item, vp, owned);
    }
    case BI_DICT_POPITEM: {
        LLVMValueRef ko = lower_alloca(L, lower_mem_type(L, ct->key), "key.out");
        LLVMValueRef vo = lower_alloca(L, lower_mem_type(L, ct->item), "value.out");
        LLVMValueRef as[3] = {mi, ko, vo};
        lower_check_status(L, rt(L, "rt_dict_popitem", L->t_i32, pp, 3, as));
        LLVMValueRef r = LLVMGetUndef(lower_type(L, rt_ty));
        r = LLVMBuildInsertValue(L->b, r, load_item(L, ct->key, ko), 0, "");
        *owned = lower_has_refs(ct->item);
        return LLVMBuildInsertValue(L->b, r, load_item(L, ct->item, vo), 1, "item");
    }
    case BI_SET_POP: {
        LLVMValueRef out = lower_alloca(L, lower_mem_type(L, ct->item), "popped");
        LLVMValueRef as[2] = {mi, out};
        lower_check_status(L, rt(L, "rt_set_pop", L->t_i32, pp, 2, as));
        return load_item(L, ct->item, out);
    }
    case BI_DICT_KEYS:
    case BI_DICT_VALUES:
    case BI_DICT_ITEMS: /* a view is the dict itself */
        return give(L, mi, ct, owned);
    case BI_DICT_COPY:
    case BI_SET_COPY: {
        LLVMValueRef c = rt(L, id == BI_DICT_COPY ? "rt_dict_copy" : "rt_set_copy", p, &p, 1, &mi);
        check_ptr(L, c);
        *owned = true;
        return c;
    }
    case BI_DICT_CLEAR:
    case BI_SET_CLEAR:
        rt(L, id == BI_DICT_CLEAR ? "rt_dict_clear" : "rt_set_clear", L->t_void, &p, 1, &mi);
        return none;
    default:
        break;
    }
    /* the operations of two containers */
    LLVMValueRef o = lower_expr_use(L, arg(n, 1));
    if (!o)
        return NULL;
    LLVMValueRef as[2] = {mi, o};
    const char *fn = NULL;
    bool status = false, truth = false;
    switch (id) {
    case BI_DICT_UPDATE: fn = "rt_dict_update", status = true; break;
    case BI_SET_UPDATE: fn = "rt_set_update", status = true; break;
    case BI_SET_INTERSECTION_UPDATE: fn = "rt_set_intersection_update", status = true; break;
    case BI_SET_DIFFERENCE_UPDATE: fn = "rt_set_difference_update", status = true; break;
    case BI_SET_SYMMETRIC_DIFFERENCE_UPDATE: fn = "rt_set_symmetric_difference_update", status = true; break;
    case BI_SET_UNION: fn = "rt_set_union"; break;
    case BI_SET_INTERSECTION: fn = "rt_set_intersection"; break;
    case BI_SET_DIFFERENCE: fn = "rt_set_difference"; break;
    case BI_SET_SYMMETRIC_DIFFERENCE: fn = "rt_set_symmetric_difference"; break;
    case BI_SET_BINOP: fn = set_binop_fn(n->op); break;
    case BI_SET_ISSUBSET: fn = "rt_set_issubset", truth = true; break;
    case BI_SET_ISSUPERSET: fn = "rt_set_issuperset", truth = true; break;
    case BI_SET_ISDISJOINT: fn = "rt_set_isdisjoint", truth = true; break;
    default:
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "%s() is not supported by hpcjit", builtin_name(id));
    }
    if (status || truth) {
        LLVMValueRef r = rt(L, fn, L->t_i32, pp, 2, as);
        if (truth)
            return LLVMBuildICmp(L->b, LLVMIntNE, r, lower_i32(L, 0), "");
        lower_check_status(L, r);
        return none;
    }
    LLVMValueRef c = rt(L, fn, p, pp, 2, as);
    check_ptr(L, c);
    *owned = true;
    return c;
}
