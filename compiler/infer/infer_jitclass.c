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
        if (*q == '!') /* experimental.py's mark of a deferred_type() not defined yet */
            return TYPING(I, at, "jitclass %s: the type of field '%s' is a deferred_type() that was never defined "
                          "(call its define() before compiling)", part(I, d, 1), tok), false;
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
        if (!infer_jc_resolve(I, att, base->dtype)) /* a bad class is reported here, not in the constructor */
            return false;
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
    Type *xt = NULL;
    if (base->kind == TY_JITCLASS && infer_extend_attr(I, n, base, &xt)) /* overload_method (structrefs) */
        return xt;
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

/* ---- dunder methods: operators and builtins on instances ----
 * Each use becomes a call of the method, `$jcm<id>.__op__(obj, ...)`, as
 * Python looks it up on the instance's class (Numba 0.68's set of dunders;
 * python/hpcjit/experimental.py lists them). */

static bool has_method(Inf *I, const Node *at, Type *t, const char *name) {
    if (!t || t->kind != TY_JITCLASS || !infer_jc_resolve(I, at, t))
        return false;
    const char *d = description(I, at, t);
    return d && listed(I, d, 3, name);
}

static Node *method_call(Inf *I, SrcLoc loc, Type *t, const char *name, Node *a0, Node *a1, Node *a2) {
    Node *c = ast_new(I->a, N_CALL, loc);
    c->a = hidden_name(I, loc, "$jcm%d.%s", t->func, name);
    Node *args[3] = {a0, a1, a2};
    for (int i = 0; i < 3 && args[i]; i++)
        vec_push(I->a, &c->args, args[i]);
    return c;
}

/* Node n becomes, in place, the call of t's method `name` and is typed. */
static Type *call_in_place(Inf *I, Node *n, Type *t, const char *name, Node *a0, Node *a1) {
    Node *c = method_call(I, n->loc, t, name, a0, a1, NULL);
    *n = *c;
    Node *p = n;
    Type *r = infer_call(I, &p);
    if (p != n)
        *n = *p;
    return r;
}

static const char *binop_name(OpKind op) {
    switch (op) {
    case OP_ADD: return "add";
    case OP_SUB: return "sub";
    case OP_MUL: return "mul";
    case OP_DIV: return "truediv";
    case OP_FLOORDIV: return "floordiv";
    case OP_MOD: return "mod";
    case OP_POW: return "pow";
    case OP_LSHIFT: return "lshift";
    case OP_RSHIFT: return "rshift";
    case OP_BITAND: return "and";
    case OP_BITOR: return "or";
    case OP_BITXOR: return "xor";
    case OP_MATMUL: return "matmul";
    default: return NULL;
    }
}

Type *infer_jc_binop(Inf *I, Node **pn, Type *a, Type *b) {
    Node *n = *pn;
    if (IS_UNK(a) || IS_UNK(b))
        return TY_UNK(I);
    const char *op = binop_name(n->op);
    if (op) {
        const char *fwd = arena_printf(I->a, "__%s__", op), *ref = arena_printf(I->a, "__r%s__", op);
        if (has_method(I, n, a, fwd))
            return call_in_place(I, n, a, fwd, n->a, n->b);
        if (has_method(I, n, b, ref))
            return call_in_place(I, n, b, ref, n->b, n->a);
    }
    return TYPING(I, n, "unsupported operand type(s) for %s: %s and %s (no %s method)", ast_op_str(n->op),
                  infer_tyname(I, a), infer_tyname(I, b),
                  op ? arena_printf(I->a, "__%s__", op) : "operator");
}

Type *infer_jc_unary(Inf *I, Node *n, Type *a) {
    const char *name = n->op == OP_NEG ? "__neg__" : n->op == OP_POS ? "__pos__" : "__invert__";
    if (!has_method(I, n, a, name))
        return TYPING(I, n, "bad operand type for unary %s: %s (no %s method)", ast_op_str(n->op),
                      infer_tyname(I, a), name);
    return call_in_place(I, n, a, name, n->a, NULL);
}

static OpKind swapped(OpKind op) {
    switch (op) {
    case OP_LT: return OP_GT;
    case OP_GT: return OP_LT;
    case OP_LE: return OP_GE;
    case OP_GE: return OP_LE;
    default: return op;
    }
}

static const char *compare_name(OpKind op) {
    switch (op) {
    case OP_EQ: return "__eq__";
    case OP_NE: return "__ne__";
    case OP_LT: return "__lt__";
    case OP_LE: return "__le__";
    case OP_GT: return "__gt__";
    case OP_GE: return "__ge__";
    default: return NULL;
    }
}

/* n (N_CALL, typed) becomes `not n` in place: a bool. */
static Type *negate_in_place(Inf *I, Node *n) {
    Node *c = ast_new(I->a, N_CALL, n->loc);
    *c = *n;
    Node *u = ast_new(I->a, N_UNARYOP, n->loc);
    u->op = OP_NOT;
    u->a = c;
    *n = *u;
    if (!infer_truth(I, &n->a))
        return NULL;
    n->op_ty = infer_ty(I, TY_BOOL);
    return n->ty = n->op_ty;
}

Type *infer_jc_compare(Inf *I, Node *n, Type *l, Type *r) {
    OpKind op = n->ops[0];
    Node *ln = n->a, *rn = VEC_AT(n->args, 0);
    if (op == OP_IN || op == OP_NOTIN) {
        if (!has_method(I, n, r, "__contains__"))
            return TYPING(I, n, "argument of type %s is not iterable (no __contains__ method)", infer_tyname(I, r));
        Type *t = call_in_place(I, n, r, "__contains__", rn, ln);
        if (!t)
            return NULL;
        return op == OP_NOTIN ? negate_in_place(I, n) : t;
    }
    const char *name = compare_name(op);
    if (!name)
        return UNSUP(I, n, "'%s' is not supported between %s and %s", ast_op_str(op), infer_tyname(I, l),
                     infer_tyname(I, r));
    if (has_method(I, n, l, name))
        return call_in_place(I, n, l, name, ln, rn);
    const char *rname = compare_name(swapped(op));
    if (has_method(I, n, r, rname))
        return call_in_place(I, n, r, rname, rn, ln);
    if (op == OP_NE && (has_method(I, n, l, "__eq__") || has_method(I, n, r, "__eq__"))) {
        bool left = has_method(I, n, l, "__eq__");
        if (!call_in_place(I, n, left ? l : r, "__eq__", left ? ln : rn, left ? rn : ln))
            return NULL;
        return negate_in_place(I, n);
    }
    return TYPING(I, n, "'%s' is not supported between %s and %s (no %s method)", ast_op_str(op),
                  infer_tyname(I, l), infer_tyname(I, r), name);
}

bool infer_jc_truth(Inf *I, Node **pn, Type *t) {
    const char *name = has_method(I, *pn, t, "__bool__") ? "__bool__"
                     : has_method(I, *pn, t, "__len__")  ? "__len__" : NULL;
    if (!name)
        return false;
    *pn = method_call(I, (*pn)->loc, t, name, *pn, NULL, NULL);
    return infer_expr(I, pn) != NULL;
}

Type *infer_jc_builtin(Inf *I, Node *n, BuiltinId id, Type *t) {
    const char *name;
    switch (id) {
    case BI_LEN: name = "__len__"; break;
    case BI_ABS: name = "__abs__"; break;
    case BI_FLOAT: name = "__float__"; break;
    case BI_INT: name = has_method(I, n, t, "__int__") ? "__int__" : "__index__"; break;
    case BI_COMPLEX: name = "__complex__"; break;
    case BI_BOOL: name = "__bool__"; break;
    case BI_STR: name = "__str__"; break;
    case BI_HASH: name = "__hash__"; break;
    default: return NULL;
    }
    if (!has_method(I, n, t, name))
        return TYPING(I, n, "%s() of %s is not supported (no %s method)", builtin_name(id), infer_tyname(I, t), name);
    return call_in_place(I, n, t, name, VEC_AT(n->args, 0), NULL);
}

Type *infer_jc_subscript(Inf *I, Node **pn, Type *base) {
    Node *n = *pn;
    if (!has_method(I, n, base, "__getitem__"))
        return TYPING(I, n, "%s is not subscriptable (no __getitem__ method)", infer_tyname(I, base));
    if (n->b->kind == N_SLICE)
        return UNSUP(I, n, "slicing a jitclass instance is not supported by hpcjit");
    return call_in_place(I, n, base, "__getitem__", n->a, n->b);
}

bool infer_jc_assign(Inf *I, Node *n) {
    if (n->targets.len != 1)
        return false;
    Node *t = VEC_AT(n->targets, 0);
    if (t->kind != N_SUBSCRIPT && t->kind != N_ATTRIBUTE)
        return false;
    Type *bt = infer_expr(I, &t->a);
    if (!bt || bt->kind != TY_JITCLASS || !infer_jc_resolve(I, t, bt))
        return false;
    Node *call = NULL;
    if (t->kind == N_SUBSCRIPT) {
        if (!has_method(I, t, bt, "__setitem__"))
            return false; /* the core's diagnostic */
        if (t->b->kind == N_SLICE)
            return false;
        call = method_call(I, t->loc, bt, "__setitem__", t->a, t->b, n->a);
    } else {
        const char *d = description(I, t, bt);
        if (!d || field_index(bt, t->name) >= 0 || !listed(I, d, 6, t->name))
            return false;
        call = ast_new(I->a, N_CALL, t->loc);
        call->a = hidden_name(I, t->loc, "$jcps%d.%s", bt->func, t->name);
        vec_push(I->a, &call->args, t->a);
        vec_push(I->a, &call->args, n->a);
    }
    n->kind = N_EXPR; /* obj[i] = v -> obj.__setitem__(i, v); obj.prop = v -> the setter */
    n->a = call;
    n->targets.len = 0;
    return true;
}

bool infer_jc_augassign(Inf *I, Node *n, Type *ot) {
    Node *t = n->a;
    if (ot->kind != TY_JITCLASS || (t->kind != N_NAME && t->kind != N_SUBSCRIPT))
        return false;
    const char *op = binop_name(n->op);
    const char *in = op ? arena_printf(I->a, "__i%s__", op) : NULL;
    Node *value;
    if (t->kind == N_NAME && in && has_method(I, t, ot, in)) { /* x = x.__iadd__(v) */
        value = method_call(I, n->loc, ot, in, ast_clone_expr(I->a, t), n->b, NULL);
    } else { /* x = x + v, obj[i] = obj[i] + v */
        value = ast_new(I->a, N_BINOP, n->loc);
        value->op = n->op;
        value->a = ast_clone_expr(I->a, t);
        value->b = n->b;
    }
    n->kind = N_ASSIGN;
    n->targets.len = 0;
    vec_push(I->a, &n->targets, t);
    n->a = value;
    n->b = NULL;
    return true;
}
