/* infer_namedtuple.c - named tuple classes (collections.namedtuple,
 * typing.NamedTuple) in compiled code.  A class used by the function is a
 * global whose value is its tuple type with unknown elements (a TY_DTYPE:
 * a type as a value); calling it with positional or keyword arguments makes
 * a tuple of the argument types that keeps the class (Type.fields), so that
 * `p.x` reads a field by name and the value returns as the same class.
 * The call becomes an N_TUPLE of the arguments in field order (final pass);
 * everything else is a tuple's (indexing, unpacking, iteration, len). */
#include "infer.h"

#include <stdlib.h>
#include <string.h>

/* The class from its header "<id>:<name>:<field>,<field>" (compiler.py). */
Type *infer_nt_class(Inf *I, const char *h) {
    char *end = NULL;
    long id = strtol(h, &end, 10);
    if (!end || *end != ':')
        return NULL;
    const char *nm = end + 1, *c2 = strchr(nm, ':');
    if (!c2)
        return NULL;
    const char *f = c2 + 1;
    PtrVec fields = {0}, elems = {0};
    while (*f) {
        const char *e = strchr(f, ',');
        size_t n = e ? (size_t)(e - f) : strlen(f);
        char *cp = arena_alloc(I->a, n + 1);
        if (I->a->oom)
            return NULL;
        memcpy(cp, f, n);
        cp[n] = '\0';
        vec_push(I->a, &fields, cp);
        vec_push(I->a, &elems, infer_ty(I, TY_UNKNOWN));
        f += n + (e ? 1 : 0);
    }
    char *name = arena_alloc(I->a, (size_t)(c2 - nm) + 1);
    if (I->a->oom)
        return NULL;
    memcpy(name, nm, (size_t)(c2 - nm));
    name[c2 - nm] = '\0';
    const char *none[1] = {NULL};
    Type *t = ty_named_tuple(I->tc, (Type **)elems.data, elems.len, (int)id, name,
                             fields.len ? (const char **)fields.data : none);
    return ty_dtype(I->tc, t);
}

Type *infer_nt_construct(Inf *I, Node *n, Type *cls) {
    int nf = cls->nelems;
    Node **sl = arena_alloc(I->a, sizeof(Node *) * (size_t)(nf + 1));
    if (I->a->oom)
        return NULL;
    if (n->args.len > nf)
        return TYPING(I, n, "%s() takes %d positional argument%s but %d were given", cls->name, nf,
                      nf == 1 ? "" : "s", n->args.len);
    for (int i = 0; i < n->args.len; i++) {
        Node *a = VEC_AT(n->args, i);
        if (a->kind == N_STARRED)
            return UNSUP(I, a, "*args in a call of the named tuple class %s is not supported", cls->name);
        sl[i] = a;
    }
    for (int k = 0; k < n->keywords.len; k++) {
        Node *kw = VEC_AT(n->keywords, k);
        int j = -1;
        for (int i = 0; kw->name && i < nf; i++)
            if (strcmp(cls->fields[i], kw->name) == 0)
                j = i;
        if (j < 0)
            return TYPING(I, kw, "%s() got an unexpected keyword argument '%s'", cls->name,
                          kw->name ? kw->name : "**");
        if (sl[j])
            return TYPING(I, kw, "%s() got multiple values for argument '%s'", cls->name, kw->name);
        sl[j] = kw->a;
    }
    Type **el = arena_alloc(I->a, sizeof(Type *) * (size_t)(nf + 1));
    bool unk = false;
    for (int i = 0; i < nf; i++) {
        if (!sl[i])
            return TYPING(I, n, "%s() missing required argument '%s' (field defaults are not supported by hpcjit)",
                          cls->name, cls->fields[i]);
        el[i] = infer_expr(I, &sl[i]);
        if (!el[i])
            return NULL;
        if (IS_UNK(el[i]))
            unk = true;
        else if (!infer_check_value(I, sl[i], el[i]))
            return NULL;
    }
    if (unk)
        return TY_UNK(I);
    Type *t = ty_named_tuple(I->tc, el, nf, cls->func, cls->name, cls->fields);
    if (I->final) { /* the tuple of the arguments in field order */
        PtrVec args = {0};
        for (int i = 0; i < nf; i++)
            vec_push(I->a, &args, sl[i]);
        n->kind = N_TUPLE;
        n->args = args;
        n->keywords.len = 0;
        n->ty = t;
    }
    return t;
}
