/* jitclass_feature.c - the jitclass feature's typing and lowering of its
 * builtins (jitclass.def): allocating an instance, reading a field, and
 * writing one (the core's assignment hands `obj.field = v` to lower_store).
 * Instances are HjMemInfo * reference counted by the core (owns_type);
 * fields live in the instance's data as a C struct (hpcjit/jitclass.h).
 * Everything about classes and names is in infer/infer_jitclass.c. */
#include "infer.h"
#include "lower.h"
#include "registry.h"

#include <stdio.h>
#include <string.h>

static bool jc_owns(const Type *t) { return t && t->kind == TY_JITCLASS; }

static Type *infer_jc_call(Inf *I, Node *n, BuiltinId id, Node *self) {
    (void)self;
    if (id != BI_JC_ALLOC || n->args.len != 1)
        return UNSUP(I, n, "%s() is not supported by hpcjit", builtin_name(id));
    Type *ct = infer_expr(I, (Node **)&VEC_AT(n->args, 0));
    if (!ct || IS_UNK(ct))
        return ct;
    if (ct->kind != TY_DTYPE || ct->dtype->kind != TY_JITCLASS)
        return TYPING(I, n, "$jc_alloc() takes a jitclass, not %s", infer_tyname(I, ct));
    if (!infer_jc_resolve(I, n, ct->dtype))
        return NULL;
    return ct->dtype;
}

/* ---- layout: the fields as a C struct (abi.h's unboxed values) ---- */

static void layout(const Type *t, int64_t *size, int64_t *align) {
    if (ty_is_number(t)) {
        *size = ty_itemsize(t);
        *align = ty_is_complex(t) ? *size / 2 : *size;
        return;
    }
    switch (t->kind) {
    case TY_ARRAY:
        *size = 40 + 16 * (int64_t)t->ndim;
        *align = 8;
        return;
    case TY_TUPLE: {
        int64_t off = 0, maxa = 1;
        for (int i = 0; i < t->nelems; i++) {
            int64_t s, a;
            layout(t->elems[i], &s, &a);
            off = (off + a - 1) / a * a + s;
            if (a > maxa)
                maxa = a;
        }
        *size = (off + maxa - 1) / maxa * maxa;
        *align = maxa;
        return;
    }
    case TY_NONE:
        *size = 0;
        *align = 1;
        return;
    case TY_OPTIONAL: { /* {i8 valid, value} (lower_mem_type) */
        int64_t s, a;
        layout(t->base, &s, &a);
        *align = a;
        *size = (a + s + a - 1) / a * a;
        return;
    }
    default: /* lists, dicts, sets, instances: a pointer */
        *size = 8;
        *align = 8;
        return;
    }
}

static LLVMTypeRef fields_type(Lower *L, Type *t) {
    LLVMTypeRef f[64];
    int n = t->nelems < 64 ? t->nelems : 64;
    for (int i = 0; i < n; i++)
        f[i] = lower_mem_type(L, t->elems[i]);
    return LLVMStructTypeInContext(L->ctx, f, (unsigned)n, 0);
}

static LLVMValueRef field_ptr(Lower *L, LLVMValueRef obj, Type *t, int i) {
    LLVMValueRef dp = LLVMBuildStructGEP2(L->b, L->t_meminfo, obj, 1, "data.p");
    LLVMValueRef data = LLVMBuildLoad2(L->b, L->t_ptr, dp, "data");
    return LLVMBuildStructGEP2(L->b, fields_type(L, t), data, (unsigned)i, t->fields[i]);
}

enum { MAX_REFS = 256 };

/* The offsets (from `at`) of the references a value of type t stored at
 * `at` holds, appended to offs[*n]; false when there are more than
 * MAX_REFS (the class is then refused, never leaked silently). */
static bool ref_offsets(const Type *t, int64_t at, int64_t *offs, int *n) {
    if (t->kind == TY_OPTIONAL) { /* the value follows the valid byte; None holds NULLs */
        int64_t s, a;
        layout(t, &s, &a);
        return ref_offsets(t->base, at + a, offs, n);
    }
    if (t->kind == TY_TUPLE) { /* each element at its offset in the tuple's struct (layout) */
        int64_t off = 0;
        for (int i = 0; i < t->nelems; i++) {
            int64_t s, a;
            layout(t->elems[i], &s, &a);
            off = (off + a - 1) / a * a;
            if (!ref_offsets(t->elems[i], at + off, offs, n))
                return false;
            off += s;
        }
        return true;
    }
    if (!lower_has_refs((Type *)t))
        return true;
    if (*n >= MAX_REFS)
        return false;
    offs[(*n)++] = at; /* an array's MemInfo is its first field; the others are the pointer */
    return true;
}

/* The class's RtJcInfo constant (one per class per module); NULL after a
 * diagnostic. */
static LLVMValueRef class_info(Lower *L, const Node *n, Type *t, int64_t *size) {
    int64_t off = 0, maxa = 1;
    int64_t offs[MAX_REFS];
    int nrefs = 0;
    Type *tup = ty_tuple(L->c->tc, t->elems, t->nelems);
    for (int i = 0; i < t->nelems; i++) {
        int64_t s, a;
        layout(t->elems[i], &s, &a);
        off = (off + a - 1) / a * a;
        if (!ref_offsets(t->elems[i], off, offs, &nrefs))
            return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "jitclass %s: its fields hold more than %d arrays, "
                              "containers or instances, which hpcjit does not support", t->name, MAX_REFS);
        off += s;
        if (a > maxa)
            maxa = a;
    }
    *size = (off + maxa - 1) / maxa * maxa;
    char name[64];
    snprintf(name, sizeof name, "hj.jcinfo.%d", t->func);
    LLVMValueRef g = LLVMGetNamedGlobal(L->mod, name);
    if (g)
        return g;
    StrBuf b;
    sb_init(&b);
    ty_typecode(&b, tup);
    LLVMValueRef str = LLVMConstStringInContext(L->ctx, b.s ? b.s : "()", (unsigned)(b.s ? strlen(b.s) : 2), 0);
    sb_free(&b);
    LLVMValueRef gs = LLVMAddGlobal(L->mod, LLVMTypeOf(str), "hj.jcinfo.tc");
    LLVMSetInitializer(gs, str);
    LLVMSetGlobalConstant(gs, 1);
    LLVMSetLinkage(gs, LLVMPrivateLinkage);
    LLVMValueRef ov[MAX_REFS];
    for (int i = 0; i < nrefs; i++)
        ov[i] = LLVMConstInt(L->t_i64, (unsigned long long)offs[i], 0);
    LLVMTypeRef at = LLVMArrayType2(L->t_i64, (uint64_t)nrefs);
    LLVMValueRef go = LLVMAddGlobal(L->mod, at, "hj.jcinfo.offs");
    LLVMSetInitializer(go, LLVMConstArray2(L->t_i64, ov, (uint64_t)nrefs));
    LLVMSetGlobalConstant(go, 1);
    LLVMSetLinkage(go, LLVMPrivateLinkage);
    LLVMTypeRef it[3] = {L->t_ptr, L->t_i64, L->t_ptr};
    LLVMTypeRef st = LLVMStructTypeInContext(L->ctx, it, 3, 0);
    LLVMValueRef iv[3] = {gs, LLVMConstInt(L->t_i64, (unsigned long long)nrefs, 0), go};
    g = LLVMAddGlobal(L->mod, st, name);
    LLVMSetInitializer(g, LLVMConstNamedStruct(st, iv, 3));
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    return g;
}

static LLVMValueRef lower_jc_call(Lower *L, Node *n, bool *owned) {
    *owned = false;
    Type *t = n->ty;
    if (n->builtin == BI_JC_ALLOC) {
        int64_t size = 0;
        LLVMValueRef info = class_info(L, n, t, &size);
        if (!info)
            return NULL;
        LLVMTypeRef ps[2] = {L->t_i64, L->t_ptr};
        LLVMValueRef as[2] = {lower_i64(L, size), info};
        LLVMValueRef obj = lower_rt(L, "rt_jc_new", L->t_ptr, ps, 2, as);
        lower_check_status(L, LLVMBuildZExt(L->b, LLVMBuildIsNull(L->b, obj, ""), L->t_i32, ""));
        *owned = true;
        return obj;
    }
    if (n->builtin == BI_JC_GETFIELD) {
        Node *on = VEC_AT(n->args, 0);
        Type *ct = on->ty;
        LLVMValueRef obj = lower_expr_use(L, on);
        if (!obj)
            return NULL;
        int i = (int)n->cval.i;
        Type *ft = ct->elems[i];
        LLVMValueRef v = lower_from_mem(L, LLVMBuildLoad2(L->b, lower_mem_type(L, ft), field_ptr(L, obj, ct, i),
                                                          ct->fields[i]), ft);
        if (lower_has_refs(ft)) { /* a later store may replace the field: the value keeps its own reference */
            lower_incref(L, v, ft);
            *owned = true;
        }
        return v;
    }
    return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "%s() is not supported by hpcjit", builtin_name(n->builtin));
}

/* obj.field = v (v borrowed, converted to the field's type by inference). */
static bool lower_jc_store(Lower *L, Node *target, LLVMValueRef v, Type *vt) {
    if (target->kind != N_ATTRIBUTE || target->attr_kind != ATTR_JC_FIELD)
        return lower_fail(L, target, HJ_DIAG_UNSUPPORTED, "cannot assign to this expression"), false;
    Type *ct = target->a->ty;
    LLVMValueRef obj = lower_expr_use(L, target->a);
    if (!obj)
        return false;
    int i = (int)target->cval.i;
    Type *ft = ct->elems[i];
    v = lower_convert(L, target, v, vt, ft);
    if (!v)
        return false;
    LLVMValueRef p = field_ptr(L, obj, ct, i);
    LLVMTypeRef mt = lower_mem_type(L, ft);
    LLVMValueRef old = lower_has_refs(ft) ? lower_from_mem(L, LLVMBuildLoad2(L->b, mt, p, "old"), ft) : NULL;
    if (old)
        lower_incref(L, v, ft);
    LLVMBuildStore(L->b, lower_to_mem(L, v, ft), p);
    if (old)
        lower_decref(L, old, ft);
    return true;
}

/* the feature's entry in the registry (lib/registry.h) */
const LibOps lib_jitclass_ops = {
    .name = "jitclass",
    .infer_call = infer_jc_call,
    .lower_call = lower_jc_call,
    .owns_type = jc_owns,
    .infer_binop = infer_jc_binop,
    .infer_subscript = infer_jc_subscript,
    .lower_store = lower_jc_store,
};
