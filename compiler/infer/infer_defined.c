/* infer_defined.c - a local variable read before any assignment can have
 * run: `b[0] = 1` above `b = np.zeros(3)`.  Python raises UnboundLocalError
 * there; compiled code would read an unset slot (found by the fuzzer:
 * tests/fuzz/regressions/).  Conservative, so that it never refuses a
 * correct program: a read is refused only when every assignment to the
 * name comes later in the text and the read is in no loop (a loop may
 * assign it in an earlier iteration) and in no nested function, lambda or
 * comprehension (their scopes are checked by Python at run time).  A name
 * assigned on some paths only is checked at run time instead: infer_ssa.c
 * marks the reads that some path reaches unassigned (N_NAME.maybe_unbound)
 * and lowering raises UnboundLocalError there. */
#include "infer.h"

#include <string.h>

typedef struct Def {
    const char *name;
    SrcLoc first_store; /* earliest assignment in the text */
} Def;

typedef struct Defs {
    Def *v;
    int n, cap;
    Arena *a;
} Defs;

static bool before(SrcLoc x, SrcLoc y) { return x.line < y.line || (x.line == y.line && x.col < y.col); }

static void note_store(Defs *d, const char *name, SrcLoc at) {
    if (!name)
        return;
    for (int i = 0; i < d->n; i++)
        if (strcmp(d->v[i].name, name) == 0) {
            if (before(at, d->v[i].first_store))
                d->v[i].first_store = at;
            return;
        }
    if (d->n == d->cap) {
        int cap = d->cap ? 2 * d->cap : 16;
        Def *nv = arena_alloc(d->a, sizeof(Def) * (size_t)cap);
        if (!nv)
            return;
        if (d->n)
            memcpy(nv, d->v, sizeof(Def) * (size_t)d->n);
        d->v = nv;
        d->cap = cap;
    }
    d->v[d->n++] = (Def){name, at};
}

static const Def *find(const Defs *d, const char *name) {
    for (int i = 0; i < d->n; i++)
        if (strcmp(d->v[i].name, name) == 0)
            return &d->v[i];
    return NULL;
}

/* Names a target binds (x, (x, y), [x, *y]); subscripts and attributes
 * bind nothing. */
static void target_stores(Defs *d, const Node *t) {
    if (!t)
        return;
    if (t->kind == N_NAME) {
        note_store(d, t->name, t->loc);
    } else if (t->kind == N_TUPLE || t->kind == N_LIST) {
        for (int i = 0; i < t->args.len; i++)
            target_stores(d, VEC_AT(t->args, i));
    } else if (t->kind == N_STARRED) {
        target_stores(d, t->a);
    }
}

/* Pass 1: every binding of the function's own scope. */
static void collect(Defs *d, const Node *n, int depth) {
    if (!n || depth > 10000)
        return;
    switch (n->kind) {
    case N_ASSIGN:
        for (int i = 0; i < n->targets.len; i++)
            target_stores(d, VEC_AT(n->targets, i));
        break;
    case N_AUGASSIGN:
    case N_FOR:
        target_stores(d, n->a);
        break;
    case N_ANNASSIGN:
        if (n->c)
            target_stores(d, n->a);
        break;
    case N_NAMEDEXPR:
        target_stores(d, n->a);
        break;
    case N_WITH:
        for (int i = 0; i < n->targets.len; i++)
            target_stores(d, VEC_AT(n->targets, i));
        break;
    case N_HANDLER:
        note_store(d, n->name, n->loc);
        break;
    case N_FUNCDEF:
        note_store(d, n->name, n->loc);
        return; /* its own scope */
    case N_IMPORT:
        for (int i = 0; i < n->names.len; i++) {
            const char *alias = i < n->aliases.len ? VEC_AT(n->aliases, i) : NULL;
            const char *nm = alias ? alias : VEC_AT(n->names, i);
            note_store(d, nm, n->loc);
        }
        return;
    case N_GLOBAL:
    case N_NONLOCAL:
    case N_LAMBDA:
    case N_COMP:
        return;
    default: break;
    }
    collect(d, n->a, depth + 1);
    collect(d, n->b, depth + 1);
    collect(d, n->c, depth + 1);
    const PtrVec *lists[] = {&n->body, &n->orelse, &n->finalbody, &n->handlers, &n->args, &n->args2,
                             &n->keywords, &n->targets};
    for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++)
        for (int i = 0; i < lists[k]->len; i++)
            collect(d, VEC_AT(*lists[k], i), depth + 1);
}

/* Names declared global/nonlocal are not locals. */
static void drop_declared(Defs *d, const Node *n, int depth) {
    if (!n || depth > 10000 || n->kind == N_FUNCDEF || n->kind == N_LAMBDA)
        return;
    if (n->kind == N_GLOBAL || n->kind == N_NONLOCAL) {
        for (int i = 0; i < n->names.len; i++)
            for (int j = 0; j < d->n; j++)
                if (strcmp(d->v[j].name, VEC_AT(n->names, i)) == 0)
                    d->v[j] = d->v[--d->n];
        return;
    }
    const PtrVec *lists[] = {&n->body, &n->orelse, &n->finalbody, &n->handlers};
    for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++)
        for (int i = 0; i < lists[k]->len; i++)
            drop_declared(d, VEC_AT(*lists[k], i), depth + 1);
}

typedef struct Finding {
    const Node *at;
} Finding;

static void check_expr(const Defs *d, const Node *e, Finding *f, int depth);

static void check_list(const Defs *d, const PtrVec *v, Finding *f, int depth) {
    for (int i = 0; i < v->len && !f->at; i++)
        check_expr(d, VEC_AT(*v, i), f, depth + 1);
}

/* Reads in an expression evaluated in straight-line code. */
static void check_expr(const Defs *d, const Node *e, Finding *f, int depth) {
    if (!e || f->at || depth > 10000)
        return;
    switch (e->kind) {
    case N_NAME: {
        const Def *def = find(d, e->name);
        if (def && before(e->loc, def->first_store))
            f->at = e;
        return;
    }
    case N_LAMBDA:
    case N_COMP:
    case N_FUNCDEF:
        return; /* evaluated later or in their own scope */
    case N_NAMEDEXPR:
        check_expr(d, e->b, f, depth + 1);
        return;
    default: break;
    }
    check_expr(d, e->a, f, depth + 1);
    check_expr(d, e->b, f, depth + 1);
    check_expr(d, e->c, f, depth + 1);
    check_list(d, &e->args, f, depth);
    check_list(d, &e->args2, f, depth);
    check_list(d, &e->keywords, f, depth);
}

/* A target's reads: the bases and indices of subscripts and attributes. */
static void check_target(const Defs *d, const Node *t, Finding *f, int depth) {
    if (!t || f->at)
        return;
    if (t->kind == N_TUPLE || t->kind == N_LIST) {
        for (int i = 0; i < t->args.len; i++)
            check_target(d, VEC_AT(t->args, i), f, depth + 1);
    } else if (t->kind == N_STARRED) {
        check_target(d, t->a, f, depth + 1);
    } else if (t->kind == N_SUBSCRIPT || t->kind == N_ATTRIBUTE) {
        check_expr(d, t, f, depth + 1);
    }
}

/* Statements outside loops, in text order. */
static void check_stmts(const Defs *d, const PtrVec *body, Finding *f, int depth) {
    for (int i = 0; i < body->len && !f->at; i++) {
        const Node *s = VEC_AT(*body, i);
        if (depth > 10000)
            return;
        switch (s->kind) {
        case N_ASSIGN:
            check_expr(d, s->a, f, depth + 1);
            for (int k = 0; k < s->targets.len; k++)
                check_target(d, VEC_AT(s->targets, k), f, depth + 1);
            break;
        case N_AUGASSIGN:
            check_expr(d, s->a, f, depth + 1); /* x += 1 reads x */
            check_expr(d, s->b, f, depth + 1);
            break;
        case N_ANNASSIGN:
            check_expr(d, s->c, f, depth + 1);
            if (s->c)
                check_target(d, s->a, f, depth + 1);
            break;
        case N_RETURN:
        case N_EXPR:
            check_expr(d, s->a, f, depth + 1);
            break;
        case N_RAISE:
        case N_ASSERT:
            check_expr(d, s->a, f, depth + 1);
            check_expr(d, s->b, f, depth + 1);
            break;
        case N_IF:
            check_expr(d, s->a, f, depth + 1);
            check_stmts(d, &s->body, f, depth + 1);
            check_stmts(d, &s->orelse, f, depth + 1);
            break;
        case N_FOR:
            check_expr(d, s->b, f, depth + 1); /* the iterable, once, before the loop */
            break;                             /* the body and else: in a loop */
        case N_WHILE:
            break; /* its test runs again after the body */
        case N_TRY:
            check_stmts(d, &s->body, f, depth + 1);
            for (int k = 0; k < s->handlers.len; k++)
                check_stmts(d, &((const Node *)VEC_AT(s->handlers, k))->body, f, depth + 1);
            check_stmts(d, &s->orelse, f, depth + 1);
            check_stmts(d, &s->finalbody, f, depth + 1);
            break;
        case N_WITH:
            check_list(d, &s->args, f, depth);
            check_stmts(d, &s->body, f, depth + 1);
            break;
        default: break; /* def, class, import, pass, break, ... */
        }
    }
}

bool infer_check_defined(Inf *I) {
    const Node *fn = I->s->fn;
    if (!fn)
        return true;
    Defs d = {.a = I->a};
    for (int i = 0; i < fn->body.len; i++)
        collect(&d, VEC_AT(fn->body, i), 1);
    for (int i = 0; i < fn->params.len; i++) {
        const Node *p = VEC_AT(fn->params, i);
        for (int j = 0; j < d.n; j++)
            if (p->name && strcmp(d.v[j].name, p->name) == 0)
                d.v[j--] = d.v[--d.n];
    }
    for (int i = 0; i < fn->body.len; i++)
        drop_declared(&d, VEC_AT(fn->body, i), 1);
    Finding f = {0};
    check_stmts(&d, &fn->body, &f, 0);
    if (f.at) {
        infer_fail(I, HJ_DIAG_NAME, f.at,
                   "local variable '%s' is referenced before assignment (it is assigned only "
                   "further down)",
                   f.at->name);
        return false;
    }
    return true;
}
