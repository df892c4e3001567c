/* infer_fuse.c - consecutive array statements into one loop nest.
 *
 *     logterm = np.log(price / strike)      # each line: one N_ARRAYEXPR,
 *     den = vol * np.sqrt(t)                # one loop and one new array
 *     d1 = (rt * t + logterm) / den
 *     d2 = d1 - den
 *
 * After the final pass, a run of two or more statements `name = <array
 * expression>` of the same rank becomes one N_FUSED statement (ast.h).
 * Lowering computes every statement's element in one nest
 * (lower_arrayexpr.c lower_fused), for any shapes when every kept target
 * reads every array the group reads, else when those arrays all have the
 * same shape at run time, running the statements one by one otherwise.  A
 * target that nothing after the group reads (every read of
 * its variable is a plain name in a later tree of the group) is never
 * allocated: its element lives in a register.  Numba fuses its parfors
 * across statements under parallel=True only; hpcjit does it everywhere.
 *
 * What joins a group, so that computing element by element gives the same
 * values and the same exceptions as statement after statement:
 *  - the leaves of the trees (what a tree does not compute element by
 *    element: names, constants, views) are evaluated once, before the nest,
 *    so each is a name, a constant or an expression that can neither raise
 *    nor read a variable an earlier statement of the group assigns (a
 *    basic slice with constant steps, scalar + - *, numeric casts);
 *  - a read of an earlier target is a plain name directly under an
 *    elementwise node;
 *  - every statement has the rank of the first, every array leaf too
 *    (broadcasting between ranks stays statement by statement);
 *  - inside a try body, no @vectorize kernel (it may raise after an earlier
 *    statement of the group would have finished: a handler could see it).
 * HPCJIT_NO_STMT_FUSION=1 turns it off (to compare; the compile cache
 * does not know about it). */
#include "infer.h"

#include <stdlib.h>
#include <string.h>

typedef struct Group {
    Node **st; /* the candidate statements so far */
    int n;
} Group;

static Var *target_var(const Node *st) { return ((Node *)VEC_AT(st->targets, 0))->var; }

/* `name = <array expression>` with a plain local target of the same type. */
static bool candidate(const Node *st) {
    if (st->kind != N_ASSIGN || st->targets.len != 1 || !st->a || st->a->kind != N_ARRAYEXPR)
        return false;
    const Node *t = VEC_AT(st->targets, 0);
    const Type *ty = st->a->ty;
    return t->kind == N_NAME && t->var && !t->var->decl && t->var->ty == ty && ty && ty->kind == TY_ARRAY &&
           ty->ndim >= 1 && ty->layout == LAYOUT_C && st->a->a;
}

/* The latest statement of g before index k that assigns v, or -1. */
static int defined_at(const Group *g, int k, const Var *v) {
    for (int j = k - 1; j >= 0; j--)
        if (target_var(g->st[j]) == v)
            return j;
    return -1;
}

static bool reads_group_var(const Node *n, const Group *g, int k, int depth);

static bool reads_vec(const PtrVec *v, const Group *g, int k, int depth) {
    for (int i = 0; i < v->len; i++)
        if (reads_group_var(VEC_AT(*v, i), g, k, depth + 1))
            return true;
    return false;
}

/* Does n read a variable that a statement of g before k assigns? */
static bool reads_group_var(const Node *n, const Group *g, int k, int depth) {
    if (!n)
        return false;
    if (depth > 200)
        return true;
    if (n->kind == N_NAME && n->var && defined_at(g, k, n->var) >= 0)
        return true;
    return reads_group_var(n->a, g, k, depth + 1) || reads_group_var(n->b, g, k, depth + 1) ||
           reads_group_var(n->c, g, k, depth + 1) || reads_vec(&n->args, g, k, depth) ||
           reads_vec(&n->args2, g, k, depth) || reads_vec(&n->keywords, g, k, depth);
}

static bool is_number(const Type *t) { return t && ty_is_number(t); }

/* An expression evaluated before the nest: no exception, no side effect. */
static bool quiet(const Node *n, int depth) {
    if (!n || depth > 50)
        return false;
    switch (n->kind) {
    case N_NAME:
    case N_CONST: return true;
    case N_CAST: return is_number(n->ty) && is_number(n->a->ty) && quiet(n->a, depth + 1);
    case N_UNARYOP:
        return is_number(n->ty) && (n->op == OP_NEG || n->op == OP_POS || n->op == OP_INVERT) &&
               quiet(n->a, depth + 1);
    case N_BINOP:
        return is_number(n->ty) && (n->op == OP_ADD || n->op == OP_SUB || n->op == OP_MUL) &&
               quiet(n->a, depth + 1) && quiet(n->b, depth + 1);
    case N_ATTRIBUTE:
        switch (n->attr_kind) {
        case ATTR_CONST: return true;
        case ATTR_COMPLEX_REAL:
        case ATTR_COMPLEX_IMAG:
        case ATTR_ARRAY_REAL:
        case ATTR_ARRAY_IMAG:
        case ATTR_ARRAY_SIZE:
        case ATTR_ARRAY_NDIM:
        case ATTR_ARRAY_ITEMSIZE: return quiet(n->a, depth + 1);
        default: return false;
        }
    case N_SUBSCRIPT: {
        if (n->idx_kind != IDX_BASIC || !n->b || n->b->kind != N_TUPLE || !quiet(n->a, depth + 1))
            return false;
        for (int i = 0; i < n->b->args.len; i++) {
            const Node *it = VEC_AT(n->b->args, i);
            if (it->kind == N_CONST && it->cval.kind == CVAL_NONE)
                continue; /* newaxis */
            if (it->kind != N_SLICE)
                return false; /* an integer index may raise IndexError */
            if ((it->a && !quiet(it->a, depth + 1)) || (it->b && !quiet(it->b, depth + 1)))
                return false;
            if (it->c && !(it->c->kind == N_CONST && it->c->cval.kind == CVAL_INT && it->c->cval.i != 0))
                return false; /* a step of 0 raises ValueError */
        }
        return true;
    }
    default: return false;
    }
}

/* Check the leaves of statement k's tree (node n) against the group. */
static bool leaves_ok(const Node *n, const Group *g, int k, int nd, bool in_try, int depth) {
    if (depth > 200)
        return false;
    if (infer_ae_is_elementwise(n)) {
        if (n->ty->ndim != nd)
            return false;
        if (n->kind == N_CALL && n->call_kind == CALL_ELEMWISE && in_try)
            return false;
        switch (n->kind) {
        case N_BINOP: return leaves_ok(n->a, g, k, nd, in_try, depth + 1) && leaves_ok(n->b, g, k, nd, in_try, depth + 1);
        case N_UNARYOP: return leaves_ok(n->a, g, k, nd, in_try, depth + 1);
        case N_COMPARE:
            return n->args.len == 1 && leaves_ok(n->a, g, k, nd, in_try, depth + 1) &&
                   leaves_ok(VEC_AT(n->args, 0), g, k, nd, in_try, depth + 1);
        default:
            if (n->keywords.len)
                return false;
            for (int i = 0; i < n->args.len; i++)
                if (!VEC_AT(n->args, i) || !leaves_ok(VEC_AT(n->args, i), g, k, nd, in_try, depth + 1))
                    return false;
            return true;
        }
    }
    if (!n->ty)
        return false;
    if (n->ty->kind == TY_ARRAY && n->ty->ndim != 0 && n->ty->ndim != nd)
        return false; /* broadcasting between ranks */
    if (n->kind == N_NAME)
        return true; /* a plain name: an earlier target's element, or read once */
    return quiet(n, 0) && !reads_group_var(n, g, k, 0);
}

/* ---- how often each target is named in the whole function ---- */

static int count_refs(const Node *n, const Var *v, int depth);

static int count_vec(const PtrVec *l, const Var *v, int depth) {
    int c = 0;
    for (int i = 0; i < l->len; i++)
        c += count_refs(VEC_AT(*l, i), v, depth + 1);
    return c;
}

/* N_NAME nodes of v anywhere under n, reads and targets (a generous count:
 * more means the array is kept). */
static int count_refs(const Node *n, const Var *v, int depth) {
    if (!n)
        return 0;
    if (depth > 10000)
        return 1 << 20;
    int c = n->kind == N_NAME && n->var == v;
    c += count_refs(n->a, v, depth + 1) + count_refs(n->b, v, depth + 1) + count_refs(n->c, v, depth + 1);
    c += count_refs(n->self_node, v, depth + 1);
    const PtrVec *lists[] = {&n->body,    &n->orelse,   &n->finalbody, &n->handlers, &n->args,
                             &n->args2,   &n->keywords, &n->targets,   &n->params,   &n->generators};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        c += count_vec(lists[i], v, depth);
    return c;
}

/* Plain-name reads under statement k's tree bound to statement j (marking
 * them when mark). */
static int bind_refs(Node *n, const Group *g, int k, int j, bool mark, int depth) {
    if (!n || depth > 200)
        return 0;
    if (infer_ae_is_elementwise(n)) {
        int c = bind_refs(n->a, g, k, j, mark, depth + 1) + bind_refs(n->b, g, k, j, mark, depth + 1);
        for (int i = 0; i < n->args.len; i++)
            c += bind_refs(VEC_AT(n->args, i), g, k, j, mark, depth + 1);
        return c;
    }
    if (n->kind == N_NAME && n->var && defined_at(g, k, n->var) == j) {
        if (mark)
            n->fused_ref = 1;
        return 1;
    }
    return 0;
}

static Node *make_group(Inf *I, Group *g) {
    Node *fu = ast_new(I->a, N_FUSED, g->st[0]->loc);
    int kept = 0;
    for (int j = 0; j < g->n; j++) {
        Var *v = target_var(g->st[j]);
        int inside = 0;
        for (int k = j + 1; k < g->n; k++)
            inside += bind_refs(g->st[k]->a->a, g, k, j, false, 0);
        int all = count_refs(I->s->fn, v, 0);
        Node *t = VEC_AT(g->st[j]->targets, 0);
        t->fused_keep = v->is_param || v->defflag || all != 1 + inside;
        kept += t->fused_keep;
    }
    /* worth a nest when it saves an array: with every target kept (or
     * none read at all) the statements stay one by one, as the fused code
     * would carry the statements again behind its shape test */
    if (kept == 0 || kept == g->n)
        return NULL;
    for (int j = 0; j < g->n; j++) {
        for (int k = j + 1; k < g->n; k++)
            bind_refs(g->st[k]->a->a, g, k, j, true, 0);
        vec_push(I->a, &fu->body, g->st[j]);
    }
    return fu;
}

static void fuse_list(Inf *I, PtrVec *v, bool in_try, int depth);

static void fuse_node(Inf *I, Node *n, bool in_try, int depth) {
    if (!n || depth > 2000)
        return;
    if (n->kind == N_TRY) {
        fuse_list(I, &n->body, true, depth + 1);
        for (int i = 0; i < n->handlers.len; i++)
            fuse_node(I, VEC_AT(n->handlers, i), in_try, depth + 1);
        fuse_list(I, &n->orelse, in_try, depth + 1);
        fuse_list(I, &n->finalbody, in_try, depth + 1);
        return;
    }
    fuse_list(I, &n->body, in_try, depth + 1);
    fuse_list(I, &n->orelse, in_try, depth + 1);
    fuse_list(I, &n->finalbody, in_try, depth + 1);
    if (n->kind == N_FOR && n->is_star) /* literal_unroll: one N_FOR per element */
        for (int i = 0; i < n->targets.len; i++)
            fuse_node(I, VEC_AT(n->targets, i), in_try, depth + 1);
}

/* A scalar `name = <quiet expression>` between array statements (powterm
 * = 0.5 * vol * vol) moves in front of the group: it reads nothing the
 * group assigns and the group's statements so far do not name it. */
static bool hoistable(const Node *st, const Group *g) {
    if (st->kind != N_ASSIGN || st->targets.len != 1 || !st->a || !is_number(st->a->ty))
        return false;
    const Node *t = VEC_AT(st->targets, 0);
    if (t->kind != N_NAME || !t->var || t->var->decl || !quiet(st->a, 0) || reads_group_var(st->a, g, g->n, 0))
        return false;
    for (int k = 0; k < g->n; k++)
        if (count_refs(g->st[k], t->var, 0))
            return false;
    return true;
}

/* `return <array expression>` right after an array statement of its rank
 * becomes `$fused.ret = <array expression>; return $fused.ret`, so that the
 * returned array can join the group: the statements' arrays that only it
 * reads are then not allocated either (Numba's parfor fuses the returned
 * expression too). */
static void split_returns(Inf *I, PtrVec *v) {
    int n = 0;
    for (int i = 1; i < v->len; i++) {
        Node *r = VEC_AT(*v, i), *prev = VEC_AT(*v, i - 1);
        n += r->kind == N_RETURN && !r->is_from && r->a && r->a->kind == N_ARRAYEXPR && candidate(prev);
    }
    if (!n)
        return;
    PtrVec out = {0};
    for (int i = 0; i < v->len; i++) {
        Node *r = VEC_AT(*v, i);
        Node *prev = i ? VEC_AT(*v, i - 1) : NULL;
        Type *ty = r->kind == N_RETURN && r->a ? r->a->ty : NULL;
        if (!prev || r->is_from || !ty || r->a->kind != N_ARRAYEXPR || !candidate(prev) || ty->kind != TY_ARRAY ||
            ty->ndim != prev->a->ty->ndim || ty->layout != LAYOUT_C || !r->a->a) {
            vec_push(I->a, &out, r);
            continue;
        }
        Var *var = arena_alloc(I->a, sizeof *var);
        memset(var, 0, sizeof *var);
        var->name = arena_printf(I->a, "$fused.ret.%d", I->s->vars.len);
        var->ty = ty;
        var->param_index = -1;
        var->first_def = r->loc;
        vec_push(I->a, &I->s->vars, var);
        Node *st = ast_new(I->a, N_ASSIGN, r->loc), *tgt = ast_new(I->a, N_NAME, r->loc),
             *use = ast_new(I->a, N_NAME, r->loc);
        tgt->name = use->name = var->name;
        tgt->var = use->var = var;
        tgt->ty = use->ty = ty;
        vec_push(I->a, &st->targets, tgt);
        st->a = r->a;
        r->a = use;
        vec_push(I->a, &out, st);
        vec_push(I->a, &out, r);
    }
    *v = out;
}

static void fuse_list(Inf *I, PtrVec *v, bool in_try, int depth) {
    split_returns(I, v);
    Group g = {arena_alloc(I->a, sizeof(Node *) * (size_t)(v->len + 1)), 0};
    Node **hoist = arena_alloc(I->a, sizeof(Node *) * (size_t)(v->len + 1));
    PtrVec out = {0};
    int i = 0;
    while (i < v->len) {
        Node *st = VEC_AT(*v, i);
        g.n = 0;
        int nh = 0, used = 0; /* statements taken: the group's and the hoisted ones before its last */
        if (candidate(st)) {
            int nd = st->a->ty->ndim, nh_all = 0;
            for (int j = i; j < v->len; j++) {
                Node *c = VEC_AT(*v, j);
                if (!candidate(c) || c->a->ty->ndim != nd) {
                    if (!hoistable(c, &g))
                        break;
                    hoist[nh_all++] = c;
                    continue;
                }
                g.st[g.n] = c;
                if (!leaves_ok(c->a->a, &g, g.n, nd, in_try, 0))
                    break;
                g.n++;
                nh = nh_all;
                used = j - i + 1;
            }
        }
        Node *fu = g.n >= 2 ? make_group(I, &g) : NULL;
        if (fu) {
            for (int k = 0; k < nh; k++)
                vec_push(I->a, &out, hoist[k]);
            vec_push(I->a, &out, fu);
            i += used;
            continue;
        }
        fuse_node(I, st, in_try, depth + 1);
        vec_push(I->a, &out, st);
        i++;
    }
    *v = out;
}

void infer_fuse_statements(Inf *I) {
    const char *off = getenv("HPCJIT_NO_STMT_FUSION");
    if ((off && *off && strcmp(off, "0") != 0) || !I->s->fn || I->s->is_gen)
        return;
    fuse_list(I, &I->s->fn->body, false, 0);
}
