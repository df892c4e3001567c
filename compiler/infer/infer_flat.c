/* infer_flat.c - `it = a.flat` as a value, before typing.
 *
 *   it = a.flat          ->   pass
 *   x = it[5]                 x = a.flat[5]
 *   for v in it: ...          for v in a.flat: ...
 *
 * a.flat is typed where it is used (a.flat[i], a.flat[i] = v, len(a.flat),
 * for loops, np.array(a.flat)), so a name bound to it is replaced by the
 * expression at each read.  That is the same value when the name is bound
 * once, in the function's own body (not under a branch or loop: every read
 * comes after it), and the array's name is never rebound (a parameter or
 * a global) or bound once, in the body itself, above.  Any other binding
 * keeps the name, and its use as a value stays the located
 * UnsupportedError of infer_call.c. */
#include "infer.h"

#include <string.h>

typedef struct Binds {
    const char *name;
    int n; /* bindings of name anywhere */
} Binds;

static void count_target(Binds *b, const Node *t) {
    if (!t)
        return;
    if (t->kind == N_NAME) {
        b->n += strcmp(t->name, b->name) == 0;
    } else if (t->kind == N_TUPLE || t->kind == N_LIST) {
        for (int i = 0; i < t->args.len; i++)
            count_target(b, VEC_AT(t->args, i));
    } else if (t->kind == N_STARRED) {
        count_target(b, t->a);
    }
}

static void count_binds(Binds *b, const Node *n);

static void count_vec(Binds *b, const PtrVec *v) {
    for (int i = 0; i < v->len; i++)
        count_binds(b, VEC_AT(*v, i));
}

static void count_binds(Binds *b, const Node *n) {
    if (!n)
        return;
    switch (n->kind) {
    case N_ASSIGN:
    case N_DEL:
    case N_WITH:
        for (int i = 0; i < n->targets.len; i++)
            count_target(b, VEC_AT(n->targets, i));
        break;
    case N_AUGASSIGN:
    case N_ANNASSIGN:
    case N_FOR:
    case N_NAMEDEXPR:
    case N_COMPFOR:
        count_target(b, n->a);
        break;
    case N_HANDLER:
        b->n += n->name && strcmp(n->name, b->name) == 0;
        break;
    default:
        break;
    }
    count_binds(b, n->a);
    count_binds(b, n->b);
    count_binds(b, n->c);
    count_vec(b, &n->args);
    count_vec(b, &n->args2);
    count_vec(b, &n->keywords);
    count_vec(b, &n->targets);
    count_vec(b, &n->generators);
    count_vec(b, &n->body);
    count_vec(b, &n->orelse);
    count_vec(b, &n->finalbody);
    count_vec(b, &n->handlers);
}

int infer_count_binds(const Node *fn, const char *name) {
    Binds b = {name, 0};
    count_vec(&b, &fn->body);
    return b.n;
}

static int binds_of(const Node *fn, const char *name) { return infer_count_binds(fn, name); }

/* Every read of `alias` below n becomes base.flat. */
static void substitute(Inf *I, Node **pn, const char *alias, const char *base);

static void substitute_vec(Inf *I, PtrVec *v, const char *alias, const char *base) {
    for (int i = 0; i < v->len; i++)
        substitute(I, (Node **)&VEC_AT(*v, i), alias, base);
}

static void substitute(Inf *I, Node **pn, const char *alias, const char *base) {
    Node *n = *pn;
    if (!n)
        return;
    if (n->kind == N_NAME) {
        if (strcmp(n->name, alias) != 0)
            return;
        Node *attr = ast_new(I->a, N_ATTRIBUTE, n->loc);
        attr->a = ast_new(I->a, N_NAME, n->loc);
        attr->a->name = base;
        attr->name = "flat";
        *pn = attr;
        return;
    }
    substitute(I, &n->a, alias, base);
    substitute(I, &n->b, alias, base);
    substitute(I, &n->c, alias, base);
    substitute_vec(I, &n->args, alias, base);
    substitute_vec(I, &n->args2, alias, base);
    substitute_vec(I, &n->keywords, alias, base);
    substitute_vec(I, &n->targets, alias, base);
    substitute_vec(I, &n->generators, alias, base);
    substitute_vec(I, &n->body, alias, base);
    substitute_vec(I, &n->orelse, alias, base);
    substitute_vec(I, &n->finalbody, alias, base);
    substitute_vec(I, &n->handlers, alias, base);
}

void infer_flat_aliases(Inf *I, Node *fn) {
    for (int i = 0; i < fn->body.len; i++) {
        Node *st = VEC_AT(fn->body, i);
        if (st->kind != N_ASSIGN || st->targets.len != 1 || !st->a || st->a->kind != N_ATTRIBUTE ||
            strcmp(st->a->name, "flat") != 0 || st->a->a->kind != N_NAME)
            continue;
        Node *t = VEC_AT(st->targets, 0);
        if (t->kind != N_NAME)
            continue;
        const char *alias = t->name, *base = st->a->a->name;
        bool param = false;
        for (int k = 0; k < fn->params.len; k++)
            param = param || strcmp(((Node *)VEC_AT(fn->params, k))->name, alias) == 0;
        if (param || strcmp(alias, base) == 0 || binds_of(fn, alias) != 1)
            continue;
        int nb = binds_of(fn, base); /* the array: never rebound, or once above, in the body itself */
        bool before = false;
        for (int k = 0; k < i && nb == 1; k++) {
            Node *o = VEC_AT(fn->body, k);
            before = before || (o->kind == N_ASSIGN && o->targets.len == 1 &&
                                ((Node *)VEC_AT(o->targets, 0))->kind == N_NAME &&
                                strcmp(((Node *)VEC_AT(o->targets, 0))->name, base) == 0);
        }
        if (nb > 1 || (nb == 1 && !before))
            continue;
        for (int k = i + 1; k < fn->body.len; k++)
            substitute(I, (Node **)&VEC_AT(fn->body, k), alias, base);
        Node *pass = ast_new(I->a, N_PASS, st->loc);
        VEC_AT(fn->body, i) = pass;
    }
}
