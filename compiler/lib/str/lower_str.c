/* lower_str.c - lowering of Python str values (typed by infer_str.c).
 *
 * A str is an HjMemInfo * whose data is the runtime's HjStr
 * (hpcjit/str.h); literals are immortal constants (lower_str_const).
 * len is read inline (HjStr's first field); everything else calls the
 * runtime (rt_str_*), whose results are new references (owned) or NULL
 * with an exception pending (the error exit).  split() and friends give
 * lists of str (rt_ops_str items) through rt_str_parts_list. */
#include "registry.h"
#include "str.h"

#include <stdint.h>

static LLVMValueRef rt(Lower *L, const char *name, LLVMTypeRef ret, LLVMTypeRef *ps, unsigned n, LLVMValueRef *as) {
    return lower_rt(L, name, ret, ps, n, as);
}

static Node *arg(Node *n, int i) { return i < n->args.len ? VEC_AT(n->args, i) : NULL; }

/* A new str (or list) from the runtime: NULL leaves through the error exit. */
static LLVMValueRef give(Lower *L, LLVMValueRef p, bool *owned) {
    lower_check_status(L, LLVMBuildZExt(L->b, LLVMBuildIsNull(L->b, p, ""), L->t_i32, ""));
    *owned = true;
    return p;
}

static LLVMValueRef use(Lower *L, Node *e) { return lower_expr_use(L, e); }

/* An optional int argument: RT_STR_NONE (or dflt) when absent. */
static LLVMValueRef opt_int(Lower *L, Node *e, int64_t dflt) { return e ? use(L, e) : lower_i64(L, dflt); }

static LLVMValueRef opt_str(Lower *L, Node *e) { return e ? use(L, e) : LLVMConstNull(L->t_ptr); }

static LLVMValueRef is_true(Lower *L, LLVMValueRef i32) {
    return LLVMBuildICmp(L->b, LLVMIntNE, i32, LLVMConstInt(L->t_i32, 0, 0), "");
}

static LLVMValueRef str_length(Lower *L, LLVMValueRef mi) {
    LLVMValueRef data = lower_load(L, L->t_ptr, LLVMBuildStructGEP2(L->b, L->t_meminfo, mi, 1, ""), "str");
    return lower_load(L, L->t_i64, data, "len");
}

/* ---- the hooks ---- */

LLVMValueRef lower_str_len(Lower *L, const Node *at, LLVMValueRef v, Type *t) {
    (void)at;
    (void)t;
    return str_length(L, v);
}

LLVMValueRef lower_str_item(Lower *L, const Node *at, LLVMValueRef v, Type *t, LLVMValueRef i, bool *owned) {
    (void)at;
    (void)t;
    LLVMTypeRef ps[2] = {L->t_ptr, L->t_i64};
    LLVMValueRef as[2] = {v, i};
    return give(L, rt(L, "rt_str_getitem", L->t_ptr, ps, 2, as), owned);
}

LLVMValueRef lower_str_compare(Lower *L, const Node *at, OpKind op, Type *op_ty, LLVMValueRef a, Type *at_ty,
                               LLVMValueRef b, Type *bt_ty) {
    if ((op == OP_IN || op == OP_NOTIN) && bt_ty->kind == TY_TUPLE) { /* s in ("a", "b"): any equal */
        LLVMValueRef r = LLVMConstInt(L->t_i1, 0, 0);
        for (int k = 0; k < bt_ty->nelems; k++) {
            LLVMValueRef e = LLVMBuildExtractValue(L->b, b, (unsigned)k, "");
            r = LLVMBuildOr(L->b, r, lower_str_compare(L, at, OP_EQ, at_ty, a, at_ty, e, at_ty), "");
        }
        return op == OP_IN ? r : LLVMBuildNot(L->b, r, "");
    }
    if ((op == OP_IN || op == OP_NOTIN) && bt_ty->kind != TY_STRING) { /* s in lst, s in d: the container's */
        const LibOps *own = lib_type_owner(bt_ty);
        if (!own || !own->lower_compare)
            return lower_fail(L, at, HJ_DIAG_UNSUPPORTED, "'in' on this container is not supported");
        return own->lower_compare(L, at, op, op_ty, a, at_ty, b, bt_ty);
    }
    LLVMTypeRef ps[2] = {L->t_ptr, L->t_ptr};
    LLVMValueRef as[2] = {a, b};
    switch (op) {
    case OP_IN:
    case OP_NOTIN: {
        LLVMValueRef r[2] = {b, a}; /* a in b: b contains a */
        LLVMValueRef c = is_true(L, rt(L, "rt_str_contains", L->t_i32, ps, 2, r));
        return op == OP_IN ? c : LLVMBuildNot(L->b, c, "");
    }
    case OP_IS:
    case OP_ISNOT: return LLVMBuildICmp(L->b, op == OP_IS ? LLVMIntEQ : LLVMIntNE, a, b, "is");
    case OP_EQ:
    case OP_NE: {
        LLVMValueRef c = is_true(L, rt(L, "rt_str_eq", L->t_i32, ps, 2, as));
        return op == OP_EQ ? c : LLVMBuildNot(L->b, c, "");
    }
    default: {
        LLVMValueRef c = rt(L, "rt_str_cmp", L->t_i32, ps, 2, as);
        LLVMIntPredicate p = LLVMIntSGE; /* rt_str_cmp's sign against 0 */
        lower_icmp_pred(op, true, &p);
        return LLVMBuildICmp(L->b, p, c, LLVMConstInt(L->t_i32, 0, 0), "");
    }
    }
}

/* str(x) of a number, None or a str. */
static LLVMValueRef to_str(Lower *L, Node *n, bool *owned) {
    Node *e = arg(n, 0);
    Type *t = e->ty;
    LLVMValueRef v = use(L, e);
    if (!v)
        return NULL;
    if (t->kind == TY_STRING) {
        lower_incref(L, v, t);
        *owned = true;
        return v;
    }
    if (t->kind == TY_NONE)
        return lower_str_const(L, "None", 4);
    const char *fn;
    LLVMTypeRef pt;
    if (t->kind == TY_BOOL) {
        fn = "rt_str_from_bool";
        pt = L->t_i32;
        v = LLVMBuildZExt(L->b, v, pt, "");
    } else if (t->kind == TY_FLOAT64) {
        fn = "rt_str_from_double";
        pt = L->t_f64;
    } else if (t->kind == TY_FLOAT32) {
        fn = "rt_str_from_float32";
        pt = L->t_f32;
    } else if (ty_is_unsigned(t)) {
        fn = "rt_str_from_uint64";
        pt = L->t_i64;
        v = LLVMBuildZExt(L->b, v, pt, "");
    } else {
        fn = "rt_str_from_int64";
        pt = L->t_i64;
        if (LLVMTypeOf(v) != pt)
            v = LLVMBuildSExt(L->b, v, pt, "");
    }
    return give(L, rt(L, fn, L->t_ptr, &pt, 1, &v), owned);
}

/* The runtime function of a method taking (s) or (s, str-or-NULL). */
static const char *simple_fn(BuiltinId id) {
    switch (id) {
    case BI_STR_STRIP: return "rt_str_strip";
    case BI_STR_LSTRIP: return "rt_str_lstrip";
    case BI_STR_RSTRIP: return "rt_str_rstrip";
    case BI_STR_UPPER: return "rt_str_upper";
    case BI_STR_LOWER: return "rt_str_lower";
    case BI_STR_CAPITALIZE: return "rt_str_capitalize";
    case BI_STR_TITLE: return "rt_str_title";
    case BI_STR_SWAPCASE: return "rt_str_swapcase";
    case BI_STR_CASEFOLD: return "rt_str_casefold";
    default: return NULL;
    }
}

static const char *pred_fn(BuiltinId id) {
    switch (id) {
    case BI_STR_ISDIGIT: return "rt_str_isdigit";
    case BI_STR_ISALPHA: return "rt_str_isalpha";
    case BI_STR_ISALNUM: return "rt_str_isalnum";
    case BI_STR_ISSPACE: return "rt_str_isspace";
    case BI_STR_ISUPPER: return "rt_str_isupper";
    case BI_STR_ISLOWER: return "rt_str_islower";
    case BI_STR_ISDECIMAL: return "rt_str_isdecimal";
    case BI_STR_ISNUMERIC: return "rt_str_isnumeric";
    case BI_STR_ISTITLE: return "rt_str_istitle";
    case BI_STR_ISIDENTIFIER: return "rt_str_isidentifier";
    case BI_STR_ISASCII: return "rt_str_isascii";
    case BI_STR_ISPRINTABLE: return "rt_str_isprintable";
    default: return NULL;
    }
}

static const char *search_fn(BuiltinId id) {
    switch (id) {
    case BI_STR_FIND: return "rt_str_find";
    case BI_STR_RFIND: return "rt_str_rfind";
    case BI_STR_INDEX: return "rt_str_index";
    case BI_STR_RINDEX: return "rt_str_rindex";
    case BI_STR_COUNT: return "rt_str_count";
    case BI_STR_STARTSWITH: return "rt_str_startswith";
    case BI_STR_ENDSWITH: return "rt_str_endswith";
    default: return NULL;
    }
}

LLVMValueRef lower_str_call(Lower *L, Node *n, bool *owned) {
    *owned = false;
    BuiltinId id = n->builtin;
    LLVMTypeRef p = L->t_ptr, i64 = L->t_i64, i32 = L->t_i32;
    switch (id) {
    case BI_STR: return to_str(L, n, owned);
    case BI_STR_FSTRING: {
        LLVMValueRef s = lower_fstring_value(L, arg(n, 0));
        *owned = s != NULL;
        return s;
    }
    case BI_CHR: {
        LLVMValueRef c = use(L, arg(n, 0));
        return c ? give(L, rt(L, "rt_str_chr", p, &i64, 1, &c), owned) : NULL;
    }
    default: break;
    }
    LLVMValueRef s = use(L, arg(n, 0));
    if (!s)
        return NULL;
    const char *fn;
    if ((fn = simple_fn(id))) {
        bool chars = id == BI_STR_STRIP || id == BI_STR_LSTRIP || id == BI_STR_RSTRIP;
        LLVMTypeRef ps[2] = {p, p};
        LLVMValueRef as[2] = {s, chars ? opt_str(L, arg(n, 1)) : NULL};
        return give(L, rt(L, fn, p, ps, chars ? 2 : 1, as), owned);
    }
    if ((fn = pred_fn(id)))
        return is_true(L, rt(L, fn, i32, &p, 1, &s));
    if ((fn = search_fn(id))) {
        LLVMValueRef sub = use(L, arg(n, 1));
        LLVMValueRef a = opt_int(L, arg(n, 2), INT64_MIN), b = opt_int(L, arg(n, 3), INT64_MIN);
        if (!sub || !a || !b)
            return NULL;
        LLVMTypeRef ps[4] = {p, p, i64, i64};
        LLVMValueRef as[4] = {s, sub, a, b};
        Type *subt = arg(n, 1)->ty;
        if (subt->kind == TY_TUPLE) { /* any of the prefixes */
            LLVMValueRef r = LLVMConstInt(L->t_i1, 0, 0);
            for (int k = 0; k < subt->nelems; k++) {
                as[1] = LLVMBuildExtractValue(L->b, sub, (unsigned)k, "");
                r = LLVMBuildOr(L->b, r, is_true(L, rt(L, fn, i32, ps, 4, as)), "");
            }
            return r;
        }
        if (id == BI_STR_STARTSWITH || id == BI_STR_ENDSWITH)
            return is_true(L, rt(L, fn, i32, ps, 4, as));
        LLVMValueRef r = rt(L, fn, i64, ps, 4, as);
        if (id == BI_STR_INDEX || id == BI_STR_RINDEX) /* -1: ValueError pending */
            lower_check_status(L, LLVMBuildZExt(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, r, lower_i64(L, 0), ""),
                                                i32, ""));
        return r;
    }
    switch (id) {
    case BI_STR_MIN:
    case BI_STR_MAX: {
        LLVMTypeRef ps[2] = {p, i32};
        LLVMValueRef as[2] = {s, lower_i32(L, id == BI_STR_MAX)};
        return give(L, rt(L, "rt_str_minmax", p, ps, 2, as), owned);
    }
    case BI_ORD: {
        LLVMValueRef r = rt(L, "rt_str_ord", i64, &p, 1, &s);
        lower_check_status(L, LLVMBuildZExt(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, r, lower_i64(L, 0), ""), i32, ""));
        return r;
    }
    case BI_STR_TO_INT:
    case BI_STR_TO_FLOAT: {
        bool isint = id == BI_STR_TO_INT;
        LLVMValueRef out = lower_alloca(L, isint ? i64 : L->t_f64, "conv");
        LLVMValueRef st;
        if (isint) {
            LLVMValueRef base = opt_int(L, arg(n, 1), 10);
            if (!base)
                return NULL;
            LLVMTypeRef ps[3] = {p, i64, p};
            LLVMValueRef as[3] = {s, base, out};
            st = rt(L, "rt_str_to_int64", i32, ps, 3, as);
        } else {
            LLVMTypeRef ps[2] = {p, p};
            LLVMValueRef as[2] = {s, out};
            st = rt(L, "rt_str_to_double", i32, ps, 2, as);
        }
        lower_check_status(L, st);
        return lower_load(L, isint ? i64 : L->t_f64, out, "");
    }
    case BI_STR_GETITEM: {
        LLVMValueRef i = use(L, arg(n, 1));
        if (!i)
            return NULL;
        LLVMTypeRef ps[2] = {p, i64};
        LLVMValueRef as[2] = {s, i};
        return give(L, rt(L, "rt_str_getitem", p, ps, 2, as), owned);
    }
    case BI_STR_GETSLICE: {
        LLVMValueRef a = opt_int(L, arg(n, 1), INT64_MIN), b = opt_int(L, arg(n, 2), INT64_MIN),
                     c = opt_int(L, arg(n, 3), INT64_MIN);
        if (!a || !b || !c)
            return NULL;
        LLVMTypeRef ps[4] = {p, i64, i64, i64};
        LLVMValueRef as[4] = {s, a, b, c};
        return give(L, rt(L, "rt_str_slice", p, ps, 4, as), owned);
    }
    case BI_STR_CONCAT: {
        LLVMValueRef b = use(L, arg(n, 1));
        if (!b)
            return NULL;
        LLVMTypeRef ps[2] = {p, p};
        LLVMValueRef as[2] = {s, b};
        return give(L, rt(L, "rt_str_concat", p, ps, 2, as), owned);
    }
    case BI_STR_REPEAT:
    case BI_STR_ZFILL:
    case BI_STR_EXPANDTABS: {
        LLVMValueRef k = opt_int(L, arg(n, 1), 8);
        if (!k)
            return NULL;
        LLVMTypeRef ps[2] = {p, i64};
        LLVMValueRef as[2] = {s, k};
        fn = id == BI_STR_REPEAT ? "rt_str_repeat" : id == BI_STR_ZFILL ? "rt_str_zfill" : "rt_str_expandtabs";
        return give(L, rt(L, fn, p, ps, 2, as), owned);
    }
    case BI_STR_CENTER:
    case BI_STR_LJUST:
    case BI_STR_RJUST: {
        LLVMValueRef w = use(L, arg(n, 1)), f = opt_str(L, arg(n, 2));
        if (!w || !f)
            return NULL;
        LLVMTypeRef ps[3] = {p, i64, p};
        LLVMValueRef as[3] = {s, w, f};
        fn = id == BI_STR_CENTER ? "rt_str_center" : id == BI_STR_LJUST ? "rt_str_ljust" : "rt_str_rjust";
        return give(L, rt(L, fn, p, ps, 3, as), owned);
    }
    case BI_STR_REPLACE: {
        LLVMValueRef o = use(L, arg(n, 1)), w = use(L, arg(n, 2)), k = opt_int(L, arg(n, 3), -1);
        if (!o || !w || !k)
            return NULL;
        LLVMTypeRef ps[4] = {p, p, p, i64};
        LLVMValueRef as[4] = {s, o, w, k};
        return give(L, rt(L, "rt_str_replace", p, ps, 4, as), owned);
    }
    case BI_STR_SPLIT:
    case BI_STR_RSPLIT:
    case BI_STR_SPLITLINES: {
        LLVMValueRef parts;
        if (id == BI_STR_SPLITLINES) {
            LLVMValueRef k = arg(n, 1) ? use(L, arg(n, 1)) : LLVMConstInt(L->t_i1, 0, 0);
            if (!k)
                return NULL;
            LLVMTypeRef ps[2] = {p, i32};
            LLVMValueRef as[2] = {s, LLVMBuildZExt(L->b, k, i32, "")};
            parts = rt(L, "rt_str_splitlines", p, ps, 2, as);
        } else {
            LLVMValueRef sep = opt_str(L, arg(n, 1)), k = opt_int(L, arg(n, 2), -1);
            if (!sep || !k)
                return NULL;
            LLVMTypeRef ps[3] = {p, p, i64};
            LLVMValueRef as[3] = {s, sep, k};
            parts = rt(L, id == BI_STR_SPLIT ? "rt_str_split" : "rt_str_rsplit", p, ps, 3, as);
        }
        return give(L, rt(L, "rt_str_parts_list", p, &p, 1, &parts), owned);
    }
    case BI_STR_JOIN: {
        LLVMValueRef lst = use(L, arg(n, 1));
        if (!lst)
            return NULL;
        /* HjList {i64 len, i64 cap, ptr items, ptr ops} (containers.h) */
        LLVMValueRef hl = lower_load(L, p, LLVMBuildStructGEP2(L->b, L->t_meminfo, lst, 1, ""), "list");
        LLVMTypeRef f[4] = {i64, i64, p, p};
        LLVMTypeRef ht = LLVMStructTypeInContext(L->ctx, f, 4, 0);
        LLVMValueRef len = lower_load(L, i64, LLVMBuildStructGEP2(L->b, ht, hl, 0, ""), "len");
        LLVMValueRef items = lower_load(L, p, LLVMBuildStructGEP2(L->b, ht, hl, 2, ""), "items");
        LLVMTypeRef ps[3] = {p, p, i64};
        LLVMValueRef as[3] = {s, items, len};
        return give(L, rt(L, "rt_str_join", p, ps, 3, as), owned);
    }
    case BI_STR_PARTITION:
    case BI_STR_RPARTITION: {
        LLVMValueRef sep = use(L, arg(n, 1));
        if (!sep)
            return NULL;
        LLVMTypeRef at = LLVMArrayType2(p, 3);
        LLVMValueRef out = lower_alloca(L, at, "parts");
        LLVMTypeRef ps[3] = {p, p, p};
        LLVMValueRef as[3] = {s, sep, out};
        lower_check_status(L, rt(L, id == BI_STR_PARTITION ? "rt_str_partition" : "rt_str_rpartition", i32, ps, 3,
                                 as));
        LLVMValueRef r = LLVMGetUndef(lower_type(L, n->ty));
        for (unsigned k = 0; k < 3; k++) {
            LLVMValueRef idx[2] = {lower_i64(L, 0), lower_i64(L, k)};
            LLVMValueRef e = lower_load(L, p, lower_gep(L, at, out, idx, 2, ""), "");
            r = LLVMBuildInsertValue(L->b, r, e, k, "");
        }
        *owned = true;
        return r;
    }
    default:
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "%s() is not supported by hpcjit", builtin_name(id));
    }
}
