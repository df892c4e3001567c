/* infer_ssa.c - split variables into versions before typing (as Numba's
 * SSA renaming), so that a name may be rebound to a value of another type
 * on a straight line:
 *
 *     x = a.reshape(2, 2)     # x    array(2d)
 *     x = x.sum(axis=0)       # x.1  array(1d)
 *     x = x.sum()             # x.2  float64
 *
 * Each assignment to a name is a definition.  A reaching-definitions pass
 * over the structured tree (if/else, loops with break/continue, try,
 * return/raise, walrus inside `and`/`or`/`x if c else y`) finds, for each
 * read of a name, the definitions that may reach it; the definitions that
 * reach one read are joined into one web (union-find).  Each web becomes a
 * variable of its own: definitions meet only where control flow merges
 * before a read (after an if, around a loop), and only there are their
 * types unified (infer.c, with its located error when they cannot be).
 * `x += v` reads and writes the same web (in place on arrays).
 *
 * The web holding the argument (or, without one, the first definition)
 * keeps the plain name; the others are renamed "x.1", "x.2", ... in the
 * order of their first definitions.  A name with one web is left alone.
 * Reads that no definition reaches keep the plain name (globals, or an
 * unbound local that inference reports).
 *
 * Reads that some path reaches unassigned are checked at run time
 * (UnboundLocalError).  When there are any, a second walk tracks, per
 * point, the possible sets of those names that are bound (one bit each),
 * so that it sees names assigned together: a checked read leaves its name
 * bound on the paths that go on, and a read that every path reaches with
 * its name bound needs no check even where a per-name analysis sees the
 * unassigned entry reach it (issue 15's Brent loop: `spre = scur` after
 * `abs(spre)` was checked, where every assignment of spre also binds
 * scur). */
#include "infer.h"

#include <stdint.h>
#include <string.h>

typedef struct ISet { /* a small sorted set of definition ids */
    int *v;
    int n;
} ISet;

typedef struct MSet { /* the second walk: possible sets of bound names (Ssa.bit) */
    uint64_t *v;        /* never changed in place */
    int n;
    bool top;           /* too many to list: any set */
} MSet;

#define MSET_MAX 64

typedef struct State { /* the definitions reaching a point, per local name */
    bool dead;          /* unreachable (after return/raise/break/continue) */
    ISet *s;            /* [nnames] */
    MSet m;             /* the second walk only */
} State;

typedef struct Def {
    int name;           /* index into Ssa.names */
    Node *node;         /* the N_NAME target (NULL for an argument) */
    int param;          /* the argument's index, or -1 */
    int parent;         /* union-find */
    int order;          /* definition order (source order of first visit) */
} Def;

typedef struct Use {
    Node *node;
    int def;            /* one reaching definition (its web is the use's) */
} Use;

typedef struct Loop {
    State brk, cont;
    struct Loop *up;
} Loop;

typedef struct TryAcc {
    State *acc;         /* every definition made inside the try body */
    struct TryAcc *up;
} TryAcc;

typedef struct Ssa {
    Inf *I;
    Arena *a;
    const char **names;
    int nnames, capnames;
    Def *defs;
    int ndefs, capdefs;
    Use *uses;
    int nuses, capuses;
    Loop *loop;
    TryAcc *tries;
    Node **marked;      /* reads marked maybe_unbound by the first walk */
    int nmarked, capmarked;
    int *bit;           /* the second walk: per name, its bit in MSet, or -1 */
    bool rel;           /* the second walk is running */
    int deferred;       /* inside a lambda: its reads run later */
    Node **seen;        /* reads the second walk finds maybe unbound */
    int nseen, capseen;
    bool lost;          /* out of memory for `seen`: keep every mark */
    Node **visited;     /* marked reads the second walk reached */
    int nvisited, capvisited;
} Ssa;

/* ---- sets and states ---- */

static bool iset_has(const ISet *s, int x) {
    for (int i = 0; i < s->n; i++)
        if (s->v[i] == x)
            return true;
    return false;
}

/* dst |= src; true when dst grew */
static bool iset_union(Ssa *S, ISet *dst, const ISet *src) {
    int extra = 0;
    for (int i = 0; i < src->n; i++)
        if (!iset_has(dst, src->v[i]))
            extra++;
    if (!extra)
        return false;
    int *v = arena_alloc(S->a, sizeof(int) * (size_t)(dst->n + extra));
    if (dst->n)
        memcpy(v, dst->v, sizeof(int) * (size_t)dst->n);
    int n = dst->n;
    for (int i = 0; i < src->n; i++)
        if (!iset_has(dst, src->v[i]))
            v[n++] = src->v[i];
    dst->v = v;
    dst->n = n;
    return true;
}

static bool mset_has(const MSet *m, uint64_t x) {
    for (int i = 0; i < m->n; i++)
        if (m->v[i] == x)
            return true;
    return false;
}

/* dst |= src; true when dst grew */
static bool mset_union(Ssa *S, MSet *dst, const MSet *src) {
    if (dst->top)
        return false;
    if (src->top) {
        *dst = (MSet){.top = true};
        return true;
    }
    int extra = 0;
    for (int i = 0; i < src->n; i++)
        if (!mset_has(dst, src->v[i]))
            extra++;
    if (!extra)
        return false;
    if (dst->n + extra > MSET_MAX) {
        *dst = (MSet){.top = true};
        return true;
    }
    uint64_t *v = arena_alloc(S->a, sizeof(uint64_t) * (size_t)(dst->n + extra));
    if (!v) {
        *dst = (MSet){.top = true};
        return true;
    }
    if (dst->n)
        memcpy(v, dst->v, sizeof(uint64_t) * (size_t)dst->n);
    MSet r = {.v = v, .n = dst->n}; /* src holds no duplicates */
    for (int i = 0; i < src->n; i++)
        if (!mset_has(dst, src->v[i]))
            v[r.n++] = src->v[i];
    *dst = r;
    return true;
}

/* Each set with `b` set (an assignment) or only the sets holding it (a
 * checked read: the paths without it raised). */
static MSet mset_map(Ssa *S, const MSet *m, uint64_t b, bool assign) {
    if (m->top)
        return *m;
    MSet r = {.v = arena_alloc(S->a, sizeof(uint64_t) * (size_t)(m->n + 1))};
    if (!r.v)
        return (MSet){.top = true};
    for (int i = 0; i < m->n; i++) {
        uint64_t x = m->v[i];
        if (assign)
            x |= b;
        else if (!(x & b))
            continue;
        if (!mset_has(&r, x))
            r.v[r.n++] = x;
    }
    return r;
}

static State state_new(Ssa *S, bool dead) {
    State st = {.dead = dead, .s = arena_alloc(S->a, sizeof(ISet) * (size_t)(S->nnames + 1))};
    return st;
}

static State state_copy(Ssa *S, const State *src) {
    State st = state_new(S, src->dead);
    for (int i = 0; i < S->nnames; i++)
        st.s[i] = src->s[i]; /* sets are never changed in place (iset_union copies) */
    st.m = src->m;
    return st;
}

/* dst = dst joined with src (a control-flow merge); true when dst changed */
static bool state_join(Ssa *S, State *dst, const State *src) {
    if (src->dead)
        return false;
    if (dst->dead) {
        *dst = state_copy(S, src);
        return true;
    }
    bool grew = false;
    for (int i = 0; i < S->nnames; i++)
        grew |= iset_union(S, &dst->s[i], &src->s[i]);
    if (S->rel)
        grew |= mset_union(S, &dst->m, &src->m);
    return grew;
}

/* ---- names, definitions, webs ---- */

static int name_index(const Ssa *S, const char *name) {
    for (int i = 0; i < S->nnames; i++)
        if (strcmp(S->names[i], name) == 0)
            return i;
    return -1;
}

static void add_name(Ssa *S, const char *name) {
    if (name_index(S, name) >= 0)
        return;
    if (S->nnames == S->capnames) {
        int cap = S->capnames ? 2 * S->capnames : 16;
        const char **v = arena_alloc(S->a, sizeof(char *) * (size_t)cap);
        if (S->nnames)
            memcpy(v, S->names, sizeof(char *) * (size_t)S->nnames);
        S->names = v;
        S->capnames = cap;
    }
    S->names[S->nnames++] = name;
}

static int find(Ssa *S, int d) {
    while (S->defs[d].parent != d) {
        S->defs[d].parent = S->defs[S->defs[d].parent].parent;
        d = S->defs[d].parent;
    }
    return d;
}

static void unite(Ssa *S, int x, int y) {
    x = find(S, x);
    y = find(S, y);
    if (x != y)
        S->defs[y].parent = x;
}

/* The definition made by target node `node` (one per node: a loop body is
 * visited until its state settles, and revisits find the same one). */
static int def_of(Ssa *S, int name, Node *node, int param) {
    for (int i = S->ndefs - 1; i >= 0; i--)
        if (node && S->defs[i].node == node)
            return i;
    if (S->ndefs == S->capdefs) {
        int cap = S->capdefs ? 2 * S->capdefs : 32;
        Def *v = arena_alloc(S->a, sizeof(Def) * (size_t)cap);
        if (S->ndefs)
            memcpy(v, S->defs, sizeof(Def) * (size_t)S->ndefs);
        S->defs = v;
        S->capdefs = cap;
    }
    int d = S->ndefs++;
    S->defs[d] = (Def){.name = name, .node = node, .param = param, .parent = d, .order = d};
    return d;
}

static void add_use(Ssa *S, Node *node, int def) {
    for (int i = S->nuses - 1; i >= 0; i--)
        if (S->uses[i].node == node) {
            unite(S, S->uses[i].def, def);
            return;
        }
    if (S->nuses == S->capuses) {
        int cap = S->capuses ? 2 * S->capuses : 32;
        Use *v = arena_alloc(S->a, sizeof(Use) * (size_t)cap);
        if (S->nuses)
            memcpy(v, S->uses, sizeof(Use) * (size_t)S->nuses);
        S->uses = v;
        S->capuses = cap;
    }
    S->uses[S->nuses++] = (Use){.node = node, .def = def};
}

/* `name` now holds definition d only. */
static void define(Ssa *S, State *st, int name, int d) {
    ISet one = {.v = arena_alloc(S->a, sizeof(int)), .n = 1};
    one.v[0] = d;
    MSet bound = {0};
    if (S->rel && S->bit[name] >= 0 && !st->dead)
        bound = mset_map(S, &st->m, (uint64_t)1 << S->bit[name], true);
    for (TryAcc *t = S->tries; t; t = t->up) /* an exception may leave the try after it */
        if (!t->acc->dead) {
            iset_union(S, &t->acc->s[name], &one);
            if (S->rel && S->bit[name] >= 0 && !st->dead) /* every set made in the try */
                mset_union(S, &t->acc->m, &bound);           /* reaches its handlers */
        }
    if (!st->dead) {
        st->s[name] = one;
        if (S->rel && S->bit[name] >= 0)
            st->m = bound;
    }
}

/* false when out of memory */
static bool push_node(Ssa *S, Node ***v, int *n, int *cap, Node *x) {
    for (int i = 0; i < *n; i++)
        if ((*v)[i] == x)
            return true;
    if (*n == *cap) {
        int c = *cap ? 2 * *cap : 16;
        Node **nv = arena_alloc(S->a, sizeof(Node *) * (size_t)c);
        if (!nv)
            return false;
        if (*n)
            memcpy(nv, *v, sizeof(Node *) * (size_t)*n);
        *v = nv;
        *cap = c;
    }
    (*v)[(*n)++] = x;
    return true;
}

#define UNDEF_PARAM (-2) /* Def.param of a name's "not yet assigned" definition */

static bool is_undef(const Ssa *S, int d) { return S->defs[d].param == UNDEF_PARAM; }

/* A read of N_NAME n: the webs of every definition reaching it merge.
 * When the name's "unassigned" pseudo-definition (made at the entry)
 * reaches it too, some path gets here with the name unbound: the read is
 * marked, and lowering tests a flag there (UnboundLocalError).  `checked`:
 * lowering surely evaluates the read (so tests the flag when marked). */
static void use(Ssa *S, State *st, Node *n, bool checked) {
    int k = name_index(S, n->name);
    if (k < 0 || st->dead)
        return;
    const ISet *r = &st->s[k];
    int first = -1;
    for (int i = 0; i < r->n; i++) {
        if (is_undef(S, r->v[i])) {
            n->maybe_unbound = 1;
            if (!S->rel)
                push_node(S, &S->marked, &S->nmarked, &S->capmarked, n);
        } else if (first < 0)
            first = r->v[i];
        else
            unite(S, first, r->v[i]);
    }
    if (first >= 0)
        add_use(S, n, first);
    if (S->rel && S->bit[k] >= 0) {
        uint64_t b = (uint64_t)1 << S->bit[k];
        bool lacks = st->m.top;
        for (int i = 0; i < st->m.n && !lacks; i++)
            lacks = !(st->m.v[i] & b);
        push_node(S, &S->visited, &S->nvisited, &S->capvisited, n);
        if (lacks && !push_node(S, &S->seen, &S->nseen, &S->capseen, n))
            S->lost = true;
        if (checked && !S->deferred) /* past its check, the name is bound */
            st->m = mset_map(S, &st->m, b, false);
    }
}

/* ---- the walk ---- */

static void expr(Ssa *S, Node *e, State *st);
static void stmts(Ssa *S, PtrVec *v, State *st);

static void expr_vec(Ssa *S, PtrVec *v, State *st) {
    for (int i = 0; i < v->len; i++)
        expr(S, VEC_AT(*v, i), st);
}

static void target(Ssa *S, Node *t, State *st) {
    if (!t)
        return;
    switch (t->kind) {
    case N_NAME: {
        int k = name_index(S, t->name);
        if (k >= 0)
            define(S, st, k, def_of(S, k, t, -1));
        return;
    }
    case N_TUPLE:
    case N_LIST:
        for (int i = 0; i < t->args.len; i++)
            target(S, VEC_AT(t->args, i), st);
        return;
    case N_STARRED:
        target(S, t->a, st);
        return;
    default: /* a[i] = v, o.x = v: reads of a, i, o */
        expr(S, t, st);
        return;
    }
}

/* An operand whose value lowering always computes (arithmetic, an
 * ordering, abs/min/max, a subscript): a read there is checked.  Elsewhere
 * a read may be decided from its type and never run (isinstance(x, ...),
 * `x is None`, a dtype argument), so it proves nothing for later reads. */
static void value(Ssa *S, Node *e, State *st) {
    if (e && e->kind == N_NAME)
        use(S, st, e, true);
    else
        expr(S, e, st);
}

static bool is_ordering(OpKind op) { return op == OP_LT || op == OP_LE || op == OP_GT || op == OP_GE; }

static void expr(Ssa *S, Node *e, State *st) {
    if (!e)
        return;
    switch (e->kind) {
    case N_NAME:
        use(S, st, e, false);
        return;
    case N_BINOP:
        value(S, e->a, st);
        value(S, e->b, st);
        return;
    case N_UNARYOP:
        if (e->op == OP_NOT)
            expr(S, e->a, st);
        else
            value(S, e->a, st);
        return;
    case N_COMPARE: { /* a < b < c: c only when a < b */
        bool ord = e->args.len && e->ops && is_ordering(e->ops[0]);
        (ord ? value : expr)(S, e->a, st);
        for (int i = 0; i < e->args.len; i++)
            (ord && i == 0 ? value : expr)(S, VEC_AT(e->args, i), st);
        return;
    }
    case N_SUBSCRIPT:
        value(S, e->a, st);
        value(S, e->b, st);
        return;
    case N_CALL:
        if (e->a && e->a->kind == N_NAME && !e->keywords.len && !e->has_star && name_index(S, e->a->name) < 0 &&
            (strcmp(e->a->name, "abs") == 0 || strcmp(e->a->name, "min") == 0 ||
             strcmp(e->a->name, "max") == 0)) {
            expr(S, e->a, st);
            for (int i = 0; i < e->args.len; i++)
                value(S, VEC_AT(e->args, i), st);
            return;
        }
        break;
    case N_NAMEDEXPR:
        expr(S, e->b, st);
        target(S, e->a, st);
        return;
    case N_IFEXP: {
        expr(S, e->a, st);
        State other = state_copy(S, st);
        expr(S, e->b, st);
        expr(S, e->c, &other);
        state_join(S, st, &other);
        return;
    }
    case N_BOOLOP: { /* each operand after the first may not run */
        if (!e->args.len)
            return;
        expr(S, VEC_AT(e->args, 0), st);
        State out = state_copy(S, st);
        for (int i = 1; i < e->args.len; i++) {
            expr(S, VEC_AT(e->args, i), st);
            state_join(S, &out, st);
        }
        *st = out;
        return;
    }
    case N_COMP:
        infer_desugar_comp(S->I, e); /* a loop appending to a hidden list */
        stmts(S, &e->body, st);
        expr(S, e->a, st);
        return;
    case N_LAMBDA:
        S->deferred++;
        expr(S, e->a, st);
        S->deferred--;
        return;
    default:
        break;
    }
    expr(S, e->a, st);
    expr(S, e->b, st);
    expr(S, e->c, st);
    expr_vec(S, &e->args, st);
    expr_vec(S, &e->args2, st);
    expr_vec(S, &e->keywords, st);
}

/* A loop: `head` is the state at the top of each iteration, a fixpoint
 * over the entry and the ends of the body (and its continues). */
static void loop(Ssa *S, Node *n, State *st) {
    Loop L = {.up = S->loop};
    S->loop = &L;
    State head = state_copy(S, st);
    State exit_st;
    for (;;) {
        L.brk = state_new(S, true);
        L.cont = state_new(S, true);
        State body = state_copy(S, &head);
        if (n->kind == N_WHILE)
            expr(S, n->a, &body);
        /* the condition is false / the iterator is done (never for `while True:`) */
        exit_st = state_copy(S, &body);
        if (n->kind == N_WHILE && n->a->kind == N_CONST &&
            (n->a->cval.kind == CVAL_BOOL || n->a->cval.kind == CVAL_INT) && n->a->cval.i != 0)
            exit_st.dead = true;
        if (n->kind == N_FOR)
            target(S, n->a, &body);
        stmts(S, &n->body, &body);
        state_join(S, &body, &L.cont);
        if (!state_join(S, &head, &body))
            break;
    }
    S->loop = L.up;
    stmts(S, &n->orelse, &exit_st);
    state_join(S, &exit_st, &L.brk);
    *st = exit_st;
}

static void try_stmt(Ssa *S, Node *n, State *st) {
    State acc = state_copy(S, st);
    TryAcc T = {.acc = &acc, .up = S->tries};
    S->tries = &T;
    State body = state_copy(S, st);
    stmts(S, &n->body, &body);
    S->tries = T.up;
    stmts(S, &n->orelse, &body);
    State out = body;
    for (int i = 0; i < n->handlers.len; i++) {
        Node *h = VEC_AT(n->handlers, i);
        expr(S, h->a, &acc);
        State hs = state_copy(S, &acc);
        stmts(S, &h->body, &hs);
        state_join(S, &out, &hs);
    }
    if (n->finalbody.len) {
        State fin = state_copy(S, &out);
        state_join(S, &fin, &acc); /* also run on the way out of an exception */
        bool dead = out.dead;
        stmts(S, &n->finalbody, &fin);
        fin.dead = fin.dead || dead;
        out = fin;
    }
    *st = out;
}

static void stmt(Ssa *S, Node *n, State *st) {
    switch (n->kind) {
    case N_ASSIGN:
        expr(S, n->a, st);
        for (int i = 0; i < n->targets.len; i++)
            target(S, VEC_AT(n->targets, i), st);
        return;
    case N_AUGASSIGN:
        if (n->a->kind == N_NAME) { /* reads and writes one web */
            int k = name_index(S, n->a->name);
            use(S, st, n->a, false);
            expr(S, n->b, st);
            if (k >= 0) {
                int d = def_of(S, k, n->a, -1);
                if (!st->dead)
                    for (int i = 0; i < st->s[k].n; i++)
                        if (!is_undef(S, st->s[k].v[i]))
                            unite(S, st->s[k].v[i], d);
                define(S, st, k, d);
            }
            return;
        }
        expr(S, n->a, st);
        expr(S, n->b, st);
        return;
    case N_ANNASSIGN:
        if (n->c) {
            expr(S, n->c, st);
            target(S, n->a, st);
        }
        return;
    case N_FOR:
        expr(S, n->b, st);
        loop(S, n, st);
        return;
    case N_WHILE:
        loop(S, n, st);
        return;
    case N_IF: {
        expr(S, n->a, st);
        State other = state_copy(S, st);
        stmts(S, &n->body, st);
        stmts(S, &n->orelse, &other);
        state_join(S, st, &other);
        return;
    }
    case N_RETURN:
    case N_RAISE:
        expr(S, n->a, st);
        expr(S, n->b, st);
        st->dead = true;
        return;
    case N_BREAK:
    case N_CONTINUE:
        if (S->loop)
            state_join(S, n->kind == N_BREAK ? &S->loop->brk : &S->loop->cont, st);
        st->dead = true;
        return;
    case N_TRY:
        try_stmt(S, n, st);
        return;
    case N_ASSERT: {
        expr(S, n->a, st);
        State msg = state_copy(S, st); /* the message is read only on failure */
        expr(S, n->b, &msg);
        return;
    }
    case N_DEL:
        for (int i = 0; i < n->targets.len; i++)
            expr(S, VEC_AT(n->targets, i), st);
        return;
    default:
        expr(S, n->a, st);
        expr(S, n->b, st);
        expr(S, n->c, st);
        return;
    }
}

static void stmts(Ssa *S, PtrVec *v, State *st) {
    for (int i = 0; i < v->len; i++)
        stmt(S, VEC_AT(*v, i), st);
}

/* ---- which names are locals ---- */

static void collect_targets(Ssa *S, Node *t) {
    if (!t)
        return;
    if (t->kind == N_NAME)
        add_name(S, t->name);
    else if (t->kind == N_TUPLE || t->kind == N_LIST)
        for (int i = 0; i < t->args.len; i++)
            collect_targets(S, VEC_AT(t->args, i));
    else if (t->kind == N_STARRED)
        collect_targets(S, t->a);
}

static void collect_vec(Ssa *S, PtrVec *v);

static void collect(Ssa *S, Node *n) {
    if (!n)
        return;
    switch (n->kind) {
    case N_ASSIGN:
        for (int i = 0; i < n->targets.len; i++)
            collect_targets(S, VEC_AT(n->targets, i));
        break;
    case N_AUGASSIGN: case N_ANNASSIGN: case N_FOR: case N_NAMEDEXPR:
        collect_targets(S, n->a);
        break;
    case N_COMP:
        infer_desugar_comp(S->I, n);
        break;
    default:
        break;
    }
    collect(S, n->a);
    collect(S, n->b);
    collect(S, n->c);
    collect_vec(S, &n->body);
    collect_vec(S, &n->orelse);
    collect_vec(S, &n->finalbody);
    collect_vec(S, &n->handlers);
    collect_vec(S, &n->args);
    collect_vec(S, &n->args2);
    collect_vec(S, &n->keywords);
}

static void collect_vec(Ssa *S, PtrVec *v) {
    for (int i = 0; i < v->len; i++)
        collect(S, VEC_AT(*v, i));
}

/* ---- chained assignment ---- */

/* `t1 = t2 = v` becomes `$chain = v; t1 = $chain; t2 = $chain` (Python
 * evaluates v once, then assigns the targets from left to right), so that
 * each target is typed and stored as a single assignment is (an array
 * into a slice, a conversion into an element, ...). */
static void unchain_vec(Inf *I, PtrVec *v);

static void unchain(Inf *I, Node *n) {
    unchain_vec(I, &n->body);
    unchain_vec(I, &n->orelse);
    unchain_vec(I, &n->finalbody);
    for (int i = 0; i < n->handlers.len; i++)
        unchain_vec(I, &((Node *)VEC_AT(n->handlers, i))->body);
}

/* `with parallel_chunksize(n):` (hpcjit's or numba's): the one context
 * manager compiled code has, as Numba.  True when n is one. */
bool infer_ssa_is_chunksize_with(Inf *I, const Node *n) {
    if (n->kind != N_WITH || n->args.len != 1 || (n->targets.len && VEC_AT(n->targets, 0)))
        return false;
    const Node *c = VEC_AT(n->args, 0);
    if (c->kind != N_CALL || c->args.len != 1 || c->keywords.len)
        return false;
    const Node *f = c->a;
    if (f->kind == N_NAME) {
        const HjEnvEntry *e = infer_env_lookup(I, f->name);
        return e && e->kind == HJ_ENV_BUILTIN && e->qualname &&
               strcmp(e->qualname, "hpcjit.parallel_chunksize") == 0;
    }
    if (f->kind == N_ATTRIBUTE && f->a->kind == N_NAME && strcmp(f->name, "parallel_chunksize") == 0) {
        const HjEnvEntry *e = infer_env_lookup(I, f->a->name);
        return e && e->kind == HJ_ENV_MODULE && e->qualname &&
               (strcmp(e->qualname, "hpcjit") == 0 || strcmp(e->qualname, "numba") == 0);
    }
    return false;
}

/* `with parallel_chunksize(k): body` becomes
 *     $chunksizeL.C = set_parallel_chunksize(k)
 *     try: body
 *     finally: set_parallel_chunksize($chunksizeL.C)
 * (the size restored however the block is left). */
static void desugar_chunksize(Inf *I, Node *n, PtrVec *out) {
    const Node *c = VEC_AT(n->args, 0);
    const char *tmp = arena_printf(I->a, "$chunksize%d.%d", n->loc.line, n->loc.col);
    Node *set = ast_new(I->a, N_CALL, c->loc);
    set->a = ast_new(I->a, N_NAME, c->a->loc);
    set->a->name = "$q:hpcjit.set_parallel_chunksize";
    vec_push(I->a, &set->args, VEC_AT(c->args, 0));
    Node *save = ast_new(I->a, N_ASSIGN, n->loc);
    Node *tn = ast_new(I->a, N_NAME, n->loc);
    tn->name = tmp;
    vec_push(I->a, &save->targets, tn);
    save->a = set;
    vec_push(I->a, out, save);
    Node *restore = ast_new(I->a, N_CALL, n->loc);
    restore->a = ast_new(I->a, N_NAME, n->loc);
    restore->a->name = "$q:hpcjit.set_parallel_chunksize";
    Node *old = ast_new(I->a, N_NAME, n->loc);
    old->name = tmp;
    vec_push(I->a, &restore->args, old);
    Node *es = ast_new(I->a, N_EXPR, n->loc);
    es->a = restore;
    Node *t = ast_new(I->a, N_TRY, n->loc);
    t->body = n->body;
    vec_push(I->a, &t->finalbody, es);
    vec_push(I->a, out, t);
}

static void unchain_vec(Inf *I, PtrVec *v) {
    PtrVec out = {0};
    bool any = false;
    for (int i = 0; i < v->len; i++) {
        Node *n = VEC_AT(*v, i);
        unchain(I, n);
        if (infer_ssa_is_chunksize_with(I, n)) {
            any = true;
            desugar_chunksize(I, n, &out);
            continue;
        }
        if (n->kind != N_ASSIGN || n->targets.len < 2) {
            vec_push(I->a, &out, n);
            continue;
        }
        any = true;
        const char *tmp = arena_printf(I->a, "$chain%d.%d", n->loc.line, n->loc.col);
        Node *first = ast_new(I->a, N_ASSIGN, n->loc);
        Node *tn = ast_new(I->a, N_NAME, n->loc);
        tn->name = tmp;
        vec_push(I->a, &first->targets, tn);
        first->a = n->a;
        vec_push(I->a, &out, first);
        for (int k = 0; k < n->targets.len; k++) {
            Node *t = VEC_AT(n->targets, k);
            Node *st = ast_new(I->a, N_ASSIGN, t->loc);
            vec_push(I->a, &st->targets, t);
            st->a = ast_new(I->a, N_NAME, n->a->loc);
            st->a->name = tmp;
            vec_push(I->a, &out, st);
        }
    }
    if (any)
        *v = out;
}

/* ---- names bound together ---- */

/* The second walk (see the top of the file) over the names with marked
 * reads, from the same entry state (the same definitions); clears the marks
 * of the reads it finds bound on every path.  Names beyond 64 keep theirs. */
static void relate_bound(Ssa *S, const State *entry) {
    if (!S->nmarked)
        return;
    S->bit = arena_alloc(S->a, sizeof(int) * (size_t)(S->nnames + 1));
    if (!S->bit)
        return;
    for (int k = 0; k < S->nnames; k++)
        S->bit[k] = -1;
    int nbits = 0;
    for (int i = 0; i < S->nmarked; i++) {
        int k = name_index(S, S->marked[i]->name);
        if (k >= 0 && S->bit[k] < 0 && nbits < 64)
            S->bit[k] = nbits++;
    }
    State st = state_copy(S, entry);
    st.m = (MSet){.v = arena_alloc(S->a, sizeof(uint64_t)), .n = 1};
    if (!st.m.v)
        return;
    st.m.v[0] = 0; /* every tracked name unbound */
    S->rel = true;
    stmts(S, &S->I->s->fn->body, &st);
    S->rel = false;
    for (int i = 0; i < S->nmarked && !S->lost; i++) {
        Node *n = S->marked[i];
        int k = name_index(S, n->name);
        if (k < 0 || S->bit[k] < 0)
            continue;
        bool seen = false, visited = false;
        for (int j = 0; j < S->nseen && !seen; j++)
            seen = S->seen[j] == n;
        for (int j = 0; j < S->nvisited && !visited; j++)
            visited = S->visited[j] == n;
        if (visited && !seen)
            n->maybe_unbound = 0;
    }
}

/* ---- renaming ---- */

bool infer_ssa_is_version(const char *name) {
    const char *dot = strrchr(name, '.');
    if (!dot || !dot[1] || strchr(name, '$'))
        return false;
    for (const char *p = dot + 1; *p; p++)
        if (*p < '0' || *p > '9')
            return false;
    return true;
}

const char *infer_ssa_source_name(Arena *a, const char *name) {
    if (!infer_ssa_is_version(name))
        return name;
    return arena_strndup(a, name, (size_t)(strrchr(name, '.') - name));
}

void infer_ssa_rename(Inf *I, const bool *hide) {
    Spec *s = I->s;
    Ssa S = {.I = I, .a = I->a};
    unchain_vec(I, &s->fn->body);
    int np = s->fn->params.len;
    for (int i = 0; i < np; i++)
        add_name(&S, ((Node *)VEC_AT(s->fn->params, i))->name);
    collect_vec(&S, &s->fn->body);
    State st = state_new(&S, false);
    for (int i = 0; i < np; i++) {
        if (hide && hide[i]) /* a None argument with a hidden name: no reads reach it */
            continue;
        int k = name_index(&S, ((Node *)VEC_AT(s->fn->params, i))->name);
        define(&S, &st, k, def_of(&S, k, NULL, i));
    }
    for (int k = 0; k < S.nnames; k++) /* every other name starts unassigned */
        if (!st.s[k].n)
            define(&S, &st, k, def_of(&S, k, NULL, UNDEF_PARAM));
    State entry = state_copy(&S, &st);
    stmts(&S, &s->fn->body, &st);
    relate_bound(&S, &entry);

    /* name the webs: per local name, the argument's web (else the first
     * defined) keeps the name, the others get "name.1", "name.2", ... */
    const char **web_name = arena_alloc(I->a, sizeof(char *) * (size_t)(S.ndefs + 1));
    for (int k = 0; k < S.nnames; k++) {
        int keep = -1, nwebs = 0;
        for (int d = 0; d < S.ndefs; d++)
            if (S.defs[d].name == k && S.defs[d].param >= 0)
                keep = find(&S, d);
        for (int d = 0; d < S.ndefs; d++) {
            if (S.defs[d].name != k || find(&S, d) != d || is_undef(&S, d))
                continue;
            nwebs++;
            if (keep < 0)
                keep = d;
        }
        if (nwebs <= 1)
            continue;
        int next = 1;
        for (int d = 0; d < S.ndefs; d++) { /* defs are in the order first visited */
            if (S.defs[d].name != k || is_undef(&S, d))
                continue;
            int r = find(&S, d);
            if (web_name[r])
                continue;
            if (r == keep)
                web_name[r] = S.names[k];
            else {
                const char *nm;
                do /* never one the source (or an earlier renaming) uses */
                    nm = arena_printf(I->a, "%s.%d", S.names[k], next++);
                while (name_index(&S, nm) >= 0);
                web_name[r] = nm;
            }
        }
    }
    for (int d = 0; d < S.ndefs; d++) {
        const char *nm = web_name[find(&S, d)];
        if (nm && S.defs[d].node)
            S.defs[d].node->name = nm;
    }
    for (int u = 0; u < S.nuses; u++) {
        const char *nm = web_name[find(&S, S.uses[u].def)];
        if (nm)
            S.uses[u].node->name = nm;
    }
}
