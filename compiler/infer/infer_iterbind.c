/* infer_iterbind.c - a zip(), enumerate(), map() or filter() object bound
 * to a name, before typing.
 *
 *   z = zip(a, f(b))        ->   $it0 = f(b)
 *   ...                          ...
 *   for x, y in z: ...           for x, y in zip(a, $it0): ...
 *
 * hpcjit types these calls only where they are consumed: as the iterable
 * of a for loop or a comprehension, or the argument of list(), set(),
 * dict(), sum(), min(), max() or sorted() (infer_unroll.c).  So the call
 * replaces the name at its one use.  Python evaluates the arguments at the
 * binding and iterates them lazily at the use: an argument other than a
 * name, a constant or a nested zip/enumerate/map/filter call is evaluated
 * into a hidden temporary where the binding was, and the names the call
 * reads must not be rebound between the binding and the use.  The use is
 * in the statements after the binding in its block, outside any loop that
 * does not also hold the binding (a loop would consume the object again).
 *
 * A zip() (of 1 to 4 iterables), enumerate(), map() (of 1 to 4
 * iterables) or filter() object used twice (say next(z) then a loop),
 * consumed inside a loop that does not make it, or with a name it reads
 * rebound before the use keeps its binding: it is a generator object
 * (infer_call.c iterator_value), as is one passed to another function,
 * returned or stored.  Other forms (zip() of 5 iterables, keywords) are
 * located UnsupportedErrors (here, or at the call typed as a value,
 * infer_call.c).  A name bound to such a call more than once, or used in
 * another block than its binding's, keeps the binding too. */
#include "infer.h"
#include "registry.h"

#include <string.h>

/* What a walk over statements found about `z` (the name bound to the
 * object) and `ops` (the names its call reads). */
typedef struct Scan {
    const char *z;
    const char **ops;
    int nops;
    int reads, binds;
    Node **first;     /* the first read of z */
    bool first_loop;  /* ... inside a loop of the walk */
    Node *second;     /* the second read */
    Node *rebind;     /* a binding of one of ops before the first read */
    int loop;         /* loops around the node being walked */
} Scan;

static void scan_expr(Scan *S, Node **pn);
static void scan_stmts(Scan *S, PtrVec *v);

static void scan_exprs(Scan *S, PtrVec *v) {
    for (int i = 0; i < v->len; i++)
        scan_expr(S, (Node **)&VEC_AT(*v, i));
}

static void bind_name(Scan *S, Node *at, const char *name) {
    if (strcmp(name, S->z) == 0)
        S->binds++;
    for (int i = 0; i < S->nops && !S->rebind && !S->first; i++)
        if (strcmp(name, S->ops[i]) == 0)
            S->rebind = at;
}

static void bind_target(Scan *S, Node *t) {
    if (!t)
        return;
    if (t->kind == N_NAME) {
        bind_name(S, t, t->name);
    } else if (t->kind == N_TUPLE || t->kind == N_LIST) {
        for (int i = 0; i < t->args.len; i++)
            bind_target(S, VEC_AT(t->args, i));
    } else if (t->kind == N_STARRED) {
        bind_target(S, t->a);
    } else { /* x[i] = v, x.f = v: reads */
        scan_expr(S, &t->a);
        scan_expr(S, &t->b);
    }
}

static bool target_has(const Node *t, const char *name) {
    if (!t)
        return false;
    if (t->kind == N_NAME)
        return strcmp(t->name, name) == 0;
    if (t->kind == N_STARRED)
        return target_has(t->a, name);
    for (int i = 0; (t->kind == N_TUPLE || t->kind == N_LIST) && i < t->args.len; i++)
        if (target_has(VEC_AT(t->args, i), name))
            return true;
    return false;
}

static void scan_expr(Scan *S, Node **pn) {
    Node *n = *pn;
    if (!n || n->kind == N_LAMBDA)
        return;
    if (n->kind == N_NAME) {
        if (strcmp(n->name, S->z) != 0)
            return;
        if (++S->reads == 1) {
            S->first = pn;
            S->first_loop = S->loop > 0;
        } else if (S->reads == 2) {
            S->second = n;
        }
        return;
    }
    if (n->kind == N_COMP) { /* the first iterable runs once, the rest per item */
        bool shadow = false; /* a comprehension variable named z: its reads are the variable's */
        for (int i = 0; i < n->generators.len; i++)
            shadow = shadow || target_has(((Node *)VEC_AT(n->generators, i))->a, S->z);
        for (int i = 0; i < n->generators.len; i++) {
            Node *g = VEC_AT(n->generators, i);
            if (i > 0)
                S->loop++;
            if (i == 0 || !shadow)
                scan_expr(S, &g->b);
            if (i > 0)
                S->loop--;
        }
        if (shadow)
            return;
        S->loop++;
        for (int i = 0; i < n->generators.len; i++)
            scan_exprs(S, &((Node *)VEC_AT(n->generators, i))->args);
        scan_expr(S, &n->a);
        scan_expr(S, &n->b);
        S->loop--;
        return;
    }
    if (n->kind == N_NAMEDEXPR) {
        scan_expr(S, &n->b);
        bind_target(S, n->a);
        return;
    }
    scan_expr(S, &n->a);
    scan_expr(S, &n->b);
    scan_expr(S, &n->c);
    scan_exprs(S, &n->args);
    scan_exprs(S, &n->args2);
    scan_exprs(S, &n->keywords);
}

/* The statements in the order they run (values before their targets). */
static void scan_stmt(Scan *S, Node *n) {
    switch (n->kind) {
    case N_ASSIGN:
        scan_expr(S, &n->a);
        for (int i = 0; i < n->targets.len; i++)
            bind_target(S, VEC_AT(n->targets, i));
        break;
    case N_AUGASSIGN:
        scan_expr(S, &n->b);
        scan_expr(S, &n->a);
        bind_target(S, n->a);
        break;
    case N_ANNASSIGN:
        scan_expr(S, &n->c);
        if (n->c)
            bind_target(S, n->a);
        break;
    case N_FOR:
        scan_expr(S, &n->b);
        S->loop++;
        bind_target(S, n->a);
        scan_stmts(S, &n->body);
        S->loop--;
        scan_stmts(S, &n->orelse);
        break;
    case N_WHILE:
        S->loop++;
        scan_expr(S, &n->a);
        scan_stmts(S, &n->body);
        S->loop--;
        scan_stmts(S, &n->orelse);
        break;
    case N_IF:
        scan_expr(S, &n->a);
        scan_stmts(S, &n->body);
        scan_stmts(S, &n->orelse);
        break;
    case N_WITH:
        scan_exprs(S, &n->args);
        for (int i = 0; i < n->targets.len; i++)
            bind_target(S, VEC_AT(n->targets, i));
        scan_stmts(S, &n->body);
        break;
    case N_TRY:
        scan_stmts(S, &n->body);
        for (int i = 0; i < n->handlers.len; i++) {
            Node *h = VEC_AT(n->handlers, i);
            scan_expr(S, &h->a);
            if (h->name)
                bind_name(S, h, h->name);
            scan_stmts(S, &h->body);
        }
        scan_stmts(S, &n->orelse);
        scan_stmts(S, &n->finalbody);
        break;
    case N_DEL:
        for (int i = 0; i < n->targets.len; i++)
            bind_target(S, VEC_AT(n->targets, i));
        break;
    case N_RETURN: case N_EXPR: case N_RAISE: case N_ASSERT:
        scan_expr(S, &n->a);
        scan_expr(S, &n->b);
        break;
    default: /* pass, break, continue, global, import, definitions */
        break;
    }
}

static void scan_stmts(Scan *S, PtrVec *v) {
    for (int i = 0; i < v->len; i++)
        scan_stmt(S, VEC_AT(*v, i));
}

static bool is_param(const Node *fn, const char *name) {
    for (int k = 0; k < fn->params.len; k++)
        if (strcmp(((Node *)VEC_AT(fn->params, k))->name, name) == 0)
            return true;
    return false;
}

/* `name` is never a local of fn (so it names its global). */
static bool never_local(const Node *fn, const char *name) {
    Scan S = {.z = name};
    scan_stmts(&S, (PtrVec *)&fn->body);
    return S.binds == 0 && !is_param(fn, name);
}

/* The builtin (BI_ZIP, BI_ENUMERATE, BI_MAP, BI_FILTER) that call n makes
 * an object of, or -1. */
static int iter_builtin(Inf *I, const Node *fn, const Node *n) {
    if (!n || n->kind != N_CALL || n->has_star || n->a->kind != N_NAME)
        return -1;
    const HjEnvEntry *e = infer_env_find(I->s->hf, n->a->name);
    if (!e || e->kind != HJ_ENV_BUILTIN)
        return -1;
    int id = builtin_lookup(e->qualname);
    if (id != BI_ZIP && id != BI_ENUMERATE && id != BI_MAP && id != BI_FILTER)
        return -1;
    return never_local(fn, n->a->name) ? id : -1;
}

static const char *iter_name(int id) {
    return id == BI_ZIP ? "zip" : id == BI_ENUMERATE ? "enumerate" : id == BI_MAP ? "map" : "filter";
}

typedef struct Hoist {
    PtrVec temps; /* N_ASSIGN of the hidden temporaries, in order */
    PtrVec names; /* const char *: the names the call reads */
} Hoist;

static void read_names(Inf *I, Hoist *h, const Node *n) {
    if (!n)
        return;
    if (n->kind == N_NAME)
        vec_push(I->a, &h->names, (void *)n->name);
    read_names(I, h, n->a);
    read_names(I, h, n->b);
    read_names(I, h, n->c);
    for (int i = 0; i < n->args.len; i++)
        read_names(I, h, VEC_AT(n->args, i));
    for (int i = 0; i < n->keywords.len; i++)
        read_names(I, h, VEC_AT(n->keywords, i));
}

/* Keep names, constants and nested iterator calls in the call; evaluate
 * anything else into a temporary now, as Python does at the binding. */
static void hoist(Inf *I, const Node *fn, Hoist *h, Node **pe) {
    Node *e = *pe;
    if (!e || e->kind == N_NAME || e->kind == N_CONST ||
        (e->kind == N_UNARYOP && e->a->kind == N_CONST))
        return;
    if (e->kind == N_KEYWORD) {
        hoist(I, fn, h, &e->a);
        return;
    }
    if (iter_builtin(I, fn, e) >= 0) {
        for (int i = 0; i < e->args.len; i++)
            hoist(I, fn, h, (Node **)&VEC_AT(e->args, i));
        for (int i = 0; i < e->keywords.len; i++)
            hoist(I, fn, h, (Node **)&VEC_AT(e->keywords, i));
        return;
    }
    Node *t = ast_new(I->a, N_NAME, e->loc);
    t->name = arena_printf(I->a, "$it%d", I->nrewrites++);
    Node *as = ast_new(I->a, N_ASSIGN, e->loc);
    vec_push(I->a, &as->targets, t);
    as->a = e;
    vec_push(I->a, &h->temps, as);
    Node *r = ast_new(I->a, N_NAME, e->loc);
    r->name = t->name;
    *pe = r;
}

/* A zip(), enumerate(), map() or filter() call that can be a value of its
 * own: a generator object of _pylib.py's helper for it, which the gatherer
 * put in the environment ("<pylib>zip2", "<pylib>map1"; infer_call.c). */
static bool as_value(Inf *I, const Node *fn, const Node *call) {
    int id = iter_builtin(I, fn, call);
    const char *helper = NULL;
    if (id == BI_ZIP && !call->keywords.len && call->args.len >= 1 && call->args.len <= 4)
        helper = arena_printf(I->a, "<pylib>zip%d", call->args.len);
    else if (id == BI_ENUMERATE)
        helper = "<pylib>enumerate";
    else if (id == BI_MAP && !call->keywords.len && call->args.len >= 2 && call->args.len <= 5)
        helper = arena_printf(I->a, "<pylib>map%d", call->args.len - 1);
    else if (id == BI_FILTER && !call->keywords.len && call->args.len == 2)
        helper = infer_is_none(VEC_AT(call->args, 0)) ? "<pylib>filter_none" : "<pylib>filter";
    const HjEnvEntry *e = helper ? infer_env_find(I->s->hf, helper) : NULL;
    return e && e->kind == HJ_ENV_FUNC;
}

/* Statement i of block v binds a name to an iterator call: replace it by
 * its temporaries and its one use by the call.  False after a diagnostic. */
static bool bind_one(Inf *I, Node *fn, PtrVec *v, int i, PtrVec *out) {
    Node *st = VEC_AT(*v, i);
    Node *t = VEC_AT(st->targets, 0);
    const char *z = t->name, *what = iter_name(iter_builtin(I, fn, st->a));
    Scan all = {.z = z};
    scan_stmts(&all, &fn->body);
    if (all.binds != 1 || is_param(fn, z)) {
        vec_push(I->a, out, st); /* left to the typing's error at the call */
        return true;
    }
    Scan rest = {.z = z};
    PtrVec tail = {.data = v->data + i + 1, .len = v->len - i - 1};
    scan_stmts(&rest, &tail);
    if (rest.reads < all.reads) { /* a read before the binding or in another block */
        vec_push(I->a, out, st);
        return true;
    }
    if (as_value(I, fn, st->a)) { /* where the one use cannot take the call: a generator object */
        bool keep = rest.reads > 1 || (rest.reads && rest.first_loop);
        if (!keep && rest.reads) { /* the names the call reads (all of them: no hoisting) rebound */
            Hoist names = {{0}, {0}};
            read_names(I, &names, st->a);
            Scan rb = {.z = z, .ops = (const char **)names.names.data, .nops = names.names.len};
            scan_stmts(&rb, &tail);
            keep = rb.rebind != NULL;
        }
        if (keep) {
            vec_push(I->a, out, st);
            return true;
        }
    }
    if (rest.reads > 1)
        return UNSUP(I, rest.second, "using the %s() object '%s' more than once is not supported by hpcjit (the call "
                     "takes the place of its one use; make a list of it to use it again)", what, z), false;
    if (rest.reads && rest.first_loop)
        return UNSUP(I, *rest.first, "consuming the %s() object '%s' inside a loop that does not make it is not "
                     "supported by hpcjit (after the first pass it is empty)", what, z), false;
    Hoist h = {{0}, {0}};
    hoist(I, fn, &h, &st->a);
    if (rest.reads) { /* the names left in the call keep their values until the use */
        read_names(I, &h, st->a);
        rest = (Scan){.z = z, .ops = (const char **)h.names.data, .nops = h.names.len};
        scan_stmts(&rest, &tail);
        if (rest.rebind)
            return UNSUP(I, rest.rebind, "rebinding a name that the %s() object '%s' reads before it is consumed is "
                         "not supported by hpcjit", what, z), false;
    }
    for (int k = 0; k < h.temps.len; k++)
        vec_push(I->a, out, VEC_AT(h.temps, k));
    if (all.reads)
        *rest.first = st->a;
    else if (!h.temps.len) /* never used: nothing to evaluate */
        vec_push(I->a, out, ast_new(I->a, N_PASS, st->loc));
    return true;
}

static bool bind_block(Inf *I, Node *fn, PtrVec *v);

static bool bind_nested(Inf *I, Node *fn, Node *n) {
    if (!bind_block(I, fn, &n->body) || !bind_block(I, fn, &n->orelse) || !bind_block(I, fn, &n->finalbody))
        return false;
    for (int i = 0; i < n->handlers.len; i++)
        if (!bind_block(I, fn, &((Node *)VEC_AT(n->handlers, i))->body))
            return false;
    return true;
}

static bool bind_block(Inf *I, Node *fn, PtrVec *v) {
    PtrVec out = {0};
    bool edited = false;
    for (int i = 0; i < v->len; i++) {
        Node *st = VEC_AT(*v, i);
        if (st->kind == N_FUNCDEF || st->kind == N_CLASSDEF) {
            vec_push(I->a, &out, st);
            continue;
        }
        if (!bind_nested(I, fn, st))
            return false;
        if (st->kind != N_ASSIGN || st->targets.len != 1 || ((Node *)VEC_AT(st->targets, 0))->kind != N_NAME ||
            iter_builtin(I, fn, st->a) < 0) {
            vec_push(I->a, &out, st);
            continue;
        }
        if (!bind_one(I, fn, v, i, &out))
            return false;
        edited = true;
    }
    if (edited)
        *v = out;
    return true;
}

bool infer_iter_bindings(Inf *I, Node *fn) { return bind_block(I, fn, &fn->body); }
