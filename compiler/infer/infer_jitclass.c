/* infer_jitclass.c - hpcjit.experimental.jitclass instances and classes
 * (see infer.h).  The description global "$jc<id>" is a builtin name
 * "$jc:<id>|<class name>|<field>=<typecode>;...|<method>;...|<property>;...|
 * <staticmethod>;..." made by python/hpcjit/experimental.py; methods,
 * properties, static methods and the constructor are @njit functions of
 * the hidden globals named in infer.h, so calling them is calling a
 * function.  Fields are read through the jitclass feature's builtin
 * (lib/jitclass) and written by the core's assignment (lower.c). */
#include "infer.h"
#include "registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The i-th '|'-separated part of the description (a fresh copy). */
static char *part(Inf *I, const char *d, int i) {
    for (; i > 0 && d; i--) {
        d = strchr(d, '|');
        if (d)
            d++;
    }
    if (!d)
        return NULL;
    const char *e = strchr(d, '|');
    size_t n = e ? (size_t)(e - d) : strlen(d);
    char *c = arena_alloc(I->a, n + 1);
    if (I->a->oom)
        return NULL;
    memcpy(c, d, n);
    c[n] = '\0';
    return c;
}

/* The next ';'-separated token of *p (cut in place), or NULL; compilations
 * may run on several threads, so no strtok. */
static char *next_tok(char **p) {
    while (*p && **p == ';')
        (*p)++;
    if (!*p || !**p)
        return NULL;
    char *tok = *p, *e = strchr(tok, ';');
    if (e) {
        *e = '\0';
        *p = e + 1;
    } else {
        *p = NULL;
    }
    return tok;
}

/* Is `name` one of the ';'-separated names of part i? */
static bool listed(Inf *I, const char *d, int i, const char *name) {
    char *p = part(I, d, i);
    for (char *tok; (tok = next_tok(&p));)
        if (strcmp(tok, name) == 0)
            return true;
    return false;
}

static const char *description(Inf *I, const Node *at, const Type *t) {
    char key[32];
    snprintf(key, sizeof key, "$jc%d", t->func);
    const HjEnvEntry *e = infer_env_lookup(I, key);
    if (!e || e->kind != HJ_ENV_BUILTIN || !e->qualname || strncmp(e->qualname, "$jc:", 4) != 0) {
        TYPING(I, at, "the jitclass #%d is not known to this function", t->func);
        return NULL;
    }
    return e->qualname + 4;
}

bool infer_jc_resolve(Inf *I, const Node *at, Type *t) {
    if (t->name)
        return true;
    const char *d = description(I, at, t);
    if (!d)
        return false;
    char *fields = part(I, d, 2);
    PtrVec names = {0}, types = {0};
    for (char *tok; (tok = next_tok(&fields));) {
        char *eq = strchr(tok, '=');
        if (!eq)
            return TYPING(I, at, "bad jitclass description"), false;
        *eq = '\0';
        const char *q = eq + 1;
        Type *ft = ty_from_typecode(I->tc, &q);
        if (!ft || *q)
            return TYPING(I, at, "bad type of jitclass field '%s'", tok), false;
        vec_push(I->a, &names, tok);
        vec_push(I->a, &types, ft);
    }
    /* the interned type is completed in place: it stands for its class */
    t->elems = (Type **)types.data;
    t->fields = (const char **)names.data;
    t->nelems = names.len;
    t->name = part(I, d, 1);
    return t->name != NULL;
}

static int field_index(const Type *t, const char *name) {
    for (int i = 0; i < t->nelems; i++)
        if (strcmp(t->fields[i], name) == 0)
            return i;
    return -1;
}

static Node *hidden_name(Inf *I, SrcLoc loc, const char *fmt, int id, const char *name) {
    Node *nm = ast_new(I->a, N_NAME, loc);
    nm->name = arena_printf(I->a, fmt, id, name);
    return nm;
}

bool infer_jc_method_call(Inf *I, Node *n, Type *base) {
    Node *att = n->a;
    if (base->kind == TY_DTYPE && base->dtype->kind == TY_JITCLASS) { /* Cls(args): the constructor */
        n->a = hidden_name(I, att->loc, "$jcnew%d%s", base->dtype->func, "");
        return true;
    }
    if (base->kind != TY_JITCLASS || att->kind != N_ATTRIBUTE || !infer_jc_resolve(I, att, base))
        return false;
    const char *d = description(I, att, base);
    if (!d)
        return false;
    if (listed(I, d, 3, att->name)) { /* obj.method(args) -> method(obj, args) */
        n->a = hidden_name(I, att->loc, "$jcm%d.%s", base->func, att->name);
        vec_push(I->a, &n->args, NULL);
        for (int i = n->args.len - 1; i > 0; i--)
            VEC_AT(n->args, i) = VEC_AT(n->args, i - 1);
        VEC_AT(n->args, 0) = att->a;
        return true;
    }
    if (listed(I, d, 5, att->name)) { /* obj.staticmethod(args) */
        n->a = hidden_name(I, att->loc, "$jcs%d.%s", base->func, att->name);
        return true;
    }
    return false;
}

Type *infer_jc_attr(Inf *I, Node *n, Type *base) {
    if (base->kind == TY_DTYPE) { /* Cls.staticmethod as a value */
        Type *cls = base->dtype;
        if (!infer_jc_resolve(I, n, cls))
            return NULL;
        const char *d = description(I, n, cls);
        if (!d)
            return NULL;
        if (!listed(I, d, 5, n->name))
            return TYPING(I, n, "jitclass %s has no static method '%s'", cls->name, n->name);
        n->kind = N_NAME;
        n->name = arena_printf(I->a, "$jcs%d.%s", cls->func, n->name);
        n->a = NULL;
        return infer_expr(I, &n);
    }
    if (!infer_jc_resolve(I, n, base))
        return NULL;
    int i = field_index(base, n->name);
    if (i >= 0) {
        if (I->final) { /* the feature's read of field i (lib/jitclass) */
            Node *obj = n->a;
            n->kind = N_CALL;
            n->a = NULL;
            n->args.len = 0;
            vec_push(I->a, &n->args, obj);
            n->keywords.len = 0;
            n->call_kind = CALL_BUILTIN;
            n->builtin = BI_JC_GETFIELD;
            n->cval.i = i;
        }
        return base->elems[i];
    }
    const char *d = description(I, n, base);
    if (!d)
        return NULL;
    if (listed(I, d, 4, n->name)) { /* obj.prop: the getter called with obj */
        Node *obj = n->a;
        n->kind = N_CALL;
        n->a = hidden_name(I, n->loc, "$jcp%d.%s", base->func, n->name);
        n->args.len = 0;
        vec_push(I->a, &n->args, obj);
        n->keywords.len = 0;
        return infer_call(I, &n);
    }
    if (listed(I, d, 3, n->name) || listed(I, d, 5, n->name)) { /* called: infer_call rewrites the call */
        n->attr_kind = ATTR_METHOD;
        return ty_bound_method(I->tc, BI_JC_METHOD, base);
    }
    return TYPING(I, n, "jitclass %s has no attribute '%s'", base->name, n->name);
}

Type *infer_jc_target(Inf *I, Node *t) {
    Type *bt = infer_expr(I, &t->a);
    if (!bt || IS_UNK(bt))
        return bt;
    if (bt->kind != TY_JITCLASS)
        return UNSUP(I, t, "assigning to attributes is only supported on jitclass instances, not on %s",
                     infer_tyname(I, bt));
    if (!infer_jc_resolve(I, t, bt))
        return NULL;
    int i = field_index(bt, t->name);
    if (i < 0) {
        const char *d = description(I, t, bt);
        if (d && listed(I, d, 4, t->name))
            return UNSUP(I, t, "assigning to the property '%s' of %s is not supported by hpcjit", t->name, bt->name);
        return TYPING(I, t, "jitclass %s has no field '%s'", bt->name, t->name);
    }
    t->attr_kind = ATTR_JC_FIELD;
    t->cval.i = i;
    return bt->elems[i];
}
