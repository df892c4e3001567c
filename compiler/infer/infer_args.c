/* infer_args.c - typing of the arguments that many library functions share:
 * a dtype (np.float64, a.dtype, float, 'float32'), an optional integer
 * (axis=, ddof=, n=), and a shape or reps (an int or a tuple of ints).
 * Each checks, casts to the canonical type (int64, UniTuple(int64)) and
 * reports a located TypingError; lib/<name> and infer_call.c call them. */
#include "infer.h"

static Type *T(Inf *I, TyKind k) { return infer_ty(I, k); }

bool infer_is_none(const Node *n) { return n && n->kind == N_CONST && n->cval.kind == CVAL_NONE; }

Type *infer_dtype_of(Inf *I, Node *d, Type *t) {
    if (!t)
        return NULL;
    if (IS_UNK(t))
        return t;
    if (t->kind == TY_DTYPE && (ty_is_number(t->dtype) || ty_is_npdt(t->dtype)))
        return t->dtype;
    if (t->kind == TY_BUILTIN) {
        switch (t->builtin) {
        case BI_FLOAT: return T(I, TY_FLOAT64);
        case BI_INT: return T(I, TY_INT64);
        case BI_BOOL: return T(I, TY_BOOL);
        case BI_COMPLEX: return T(I, TY_COMPLEX128);
        default: break;
        }
    }
    return TYPING(I, d, "%s is not a dtype", infer_tyname(I, t));
}

Type *infer_dtype_arg(Inf *I, Node **pd) {
    Node *d = *pd;
    if (d->kind == N_CONST && d->cval.kind == CVAL_STR) {
        const char *e = NULL;
        Type *t = ty_parse(I->tc, d->cval.s, NULL, &e);
        if (!t || !(ty_is_number(t) || ty_is_npdt(t)))
            return TYPING(I, d, "unknown dtype '%s'", d->cval.s);
        d->ty = ty_dtype(I->tc, t);
        return t;
    }
    return infer_dtype_of(I, *pd, infer_expr(I, pd));
}

bool infer_asarray_arg(Inf *I, Node **slot, Type **t) {
    if (!*t || ((*t)->kind != TY_LIST && (*t)->kind != TY_TUPLE))
        return true;
    Node *c = ast_new(I->a, N_CALL, (*slot)->loc);
    c->a = ast_new(I->a, N_NAME, (*slot)->loc);
    c->a->name = "$q:numpy.asarray";
    vec_push(I->a, &c->args, *slot);
    *slot = c;
    return (*t = infer_expr(I, slot)) != NULL;
}

bool infer_opt_int(Inf *I, Node **sl, int i, const char *fname, const char *what, bool *unk) {
    if (!sl[i] || infer_is_none(sl[i])) {
        sl[i] = NULL;
        return true;
    }
    Type *t = infer_expr(I, &sl[i]);
    if (!t)
        return false;
    if (IS_UNK(t)) {
        *unk = true;
        return true;
    }
    if (!ty_is_int(t) && t->kind != TY_BOOL) {
        TYPING(I, sl[i], "%s() %s must be an integer, not %s", fname, what, infer_tyname(I, t));
        return false;
    }
    infer_cast(I, &sl[i], T(I, TY_INT64));
    return true;
}

bool infer_req_int(Inf *I, Node *call, Node **sl, int i, const char *fname, const char *what, bool *unk) {
    if (!sl[i]) {
        TYPING(I, call, "%s() missing required argument '%s'", fname, what);
        return false;
    }
    if (infer_is_none(sl[i])) { /* not "left out": lowering reads the slot */
        TYPING(I, sl[i], "%s() %s must be an integer, not None", fname, what);
        return false;
    }
    return infer_opt_int(I, sl, i, fname, what, unk);
}

int infer_int_tuple(Inf *I, Node **ps, const char *fname, const char *what, bool *unk) {
    Type *t = infer_expr(I, ps);
    if (!t)
        return -1;
    if (IS_UNK(t)) {
        *unk = true;
        return 0;
    }
    if (ty_is_int(t)) {
        infer_cast(I, ps, T(I, TY_INT64));
        return 1;
    }
    if (t->kind == TY_TUPLE) {
        Type **el = arena_alloc(I->a, sizeof(Type *) * (size_t)(t->nelems + 1));
        for (int i = 0; i < t->nelems; i++) {
            if (!ty_is_int(t->elems[i]))
                goto bad;
            el[i] = T(I, TY_INT64);
        }
        infer_cast(I, ps, ty_tuple(I->tc, el, t->nelems));
        return t->nelems;
    }
bad:
    if (fname)
        TYPING(I, *ps, "%s() %s must be an int or a tuple of ints, not %s", fname, what, infer_tyname(I, t));
    else
        TYPING(I, *ps, "array shape must be an int or a tuple of ints, not %s", infer_tyname(I, t));
    return -1;
}
