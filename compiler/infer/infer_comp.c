/* infer_comp.c - list comprehensions as loops, before typing.
 *
 *   [elt for t1 in it1 if c1 for t2 in it2]
 *
 * becomes a block expression (N_COMP with body and a):
 *
 *   body:  $c = []
 *          for t1' in it1:
 *              if c1':
 *                  for t2' in it2':
 *                      $c.append(elt')
 *   a:     $c
 *
 * so that the typer and the lowering see ordinary statements (the list's
 * item type comes from the append, as for `l = []` then `l.append(x)`).
 * The loop variables are renamed apart (t1 -> "t1$L.C"): comprehension
 * variables do not leak into the function, as in Python 3, and do not
 * clobber a variable of the same name.  A name is renamed from the
 * generator that binds it on, so `[x for x in x]` reads the outer x in its
 * first iterable; nested comprehensions are renamed by the enclosing one
 * first and then rename their own targets again, which keeps shadowing. */
#include "infer.h"

#include <string.h>

typedef struct Rename {
    const char *from, *to;
} Rename;

typedef struct RenameMap {
    Rename *r;
    int n, cap;
} RenameMap;

static const char *lookup(const RenameMap *m, const char *name) {
    for (int i = m->n - 1; i >= 0; i--) /* the latest binding wins */
        if (strcmp(m->r[i].from, name) == 0)
            return m->r[i].to;
    return NULL;
}

static void rename_vec(const RenameMap *m, PtrVec *v);

static void rename_expr(const RenameMap *m, Node *e) {
    if (!e)
        return;
    if (e->kind == N_NAME) {
        const char *to = lookup(m, e->name);
        if (to)
            e->name = to;
        return;
    }
    rename_expr(m, e->a);
    rename_expr(m, e->b);
    rename_expr(m, e->c);
    rename_vec(m, &e->args);
    rename_vec(m, &e->args2);
    rename_vec(m, &e->keywords);
    rename_vec(m, &e->generators);
    rename_vec(m, &e->body);
}

static void rename_vec(const RenameMap *m, PtrVec *v) {
    for (int i = 0; i < v->len; i++)
        rename_expr(m, VEC_AT(*v, i));
}

/* Add a renaming for every name bound by target t. */
static void bind_names(Inf *I, RenameMap *m, Node *t, const char *suffix) {
    if (!t)
        return;
    if (t->kind == N_NAME) {
        if (m->n == m->cap) {
            int cap = m->cap ? 2 * m->cap : 8;
            Rename *r = arena_alloc(I->a, sizeof(Rename) * (size_t)cap);
            if (m->n)
                memcpy(r, m->r, sizeof(Rename) * (size_t)m->n);
            m->r = r;
            m->cap = cap;
        }
        m->r[m->n].from = t->name;
        m->r[m->n].to = arena_printf(I->a, "%s$%s", t->name, suffix);
        m->n++;
        return;
    }
    if (t->kind == N_TUPLE || t->kind == N_LIST)
        for (int i = 0; i < t->args.len; i++)
            bind_names(I, m, VEC_AT(t->args, i), suffix);
    else if (t->kind == N_STARRED)
        bind_names(I, m, t->a, suffix);
}

static Node *name_node(Inf *I, const char *name, SrcLoc loc) {
    Node *n = ast_new(I->a, N_NAME, loc);
    n->name = name;
    return n;
}

void infer_desugar_comp(Inf *I, Node *n) {
    if (n->kind != N_COMP || n->comp_kind > 2 || n->body.len)
        return;
    const char *suffix = arena_printf(I->a, "%d.%d", n->loc.line, n->loc.col);
    const char *lst = arena_printf(I->a, "$%s%s", (const char *[]){"list", "set", "dict"}[n->comp_kind], suffix);
    RenameMap m = {0};
    /* $c = [] */
    Node *init = ast_new(I->a, N_ASSIGN, n->loc);
    vec_push(I->a, &init->targets, name_node(I, lst, n->loc));
    /* a set or dict comprehension: an empty N_SET (never parsed) or N_DICT */
    init->a = ast_new(I->a, (NodeKind[]){N_LIST, N_SET, N_DICT}[n->comp_kind], n->loc);
    vec_push(I->a, &n->body, init);
    PtrVec *into = &n->body;
    for (int g = 0; g < n->generators.len; g++) {
        Node *gen = VEC_AT(n->generators, g);
        rename_expr(&m, gen->b); /* the iterable: in the scope of the earlier generators */
        bind_names(I, &m, gen->a, suffix);
        rename_expr(&m, gen->a);
        Node *loop = ast_new(I->a, N_FOR, gen->loc);
        loop->a = gen->a;
        loop->b = gen->b;
        loop->is_async = gen->is_async;
        vec_push(I->a, into, loop);
        into = &loop->body;
        for (int k = 0; k < gen->args.len; k++) {
            Node *cond = VEC_AT(gen->args, k);
            rename_expr(&m, cond);
            Node *iff = ast_new(I->a, N_IF, cond->loc);
            iff->a = cond;
            vec_push(I->a, into, iff);
            into = &iff->body;
        }
    }
    rename_expr(&m, n->a);
    rename_expr(&m, n->b);
    Node *st;
    if (n->comp_kind == 2) { /* $c[key] = value */
        Node *sub = ast_new(I->a, N_SUBSCRIPT, n->a->loc);
        sub->a = name_node(I, lst, n->a->loc);
        sub->b = n->a;
        st = ast_new(I->a, N_ASSIGN, n->a->loc);
        vec_push(I->a, &st->targets, sub);
        st->a = n->b;
        n->b = NULL;
    } else { /* $c.append(elt), $c.add(elt) */
        Node *attr = ast_new(I->a, N_ATTRIBUTE, n->a->loc);
        attr->a = name_node(I, lst, n->a->loc);
        attr->name = n->comp_kind ? "add" : "append";
        Node *call = ast_new(I->a, N_CALL, n->a->loc);
        call->a = attr;
        vec_push(I->a, &call->args, n->a);
        st = ast_new(I->a, N_EXPR, n->a->loc);
        st->a = call;
    }
    vec_push(I->a, into, st);
    n->a = name_node(I, lst, n->loc);
    n->generators.len = 0;
}
