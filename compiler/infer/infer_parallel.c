/* infer_parallel.c - data-sharing analysis of prange loops under
 * parallel=True: which variables the outlined body needs, which are
 * reductions (and with which operator), which are written (lastprivate).
 * Runs on the fully typed body (final inference pass).  A loop left early
 * by `return` or `break` is not outlined: it runs serially as a range loop,
 * as Numba does ("more than one entry to or exit from the loop"). */
#include <stdlib.h>
#include <string.h>

#include "parallel.h"

typedef struct Scan {
    Compilation *c;
    ParLoop *p;
    /* per variable of `written`: the reduction op it is used with, -1 when
     * some assignment is not a reduction, -2 when not seen yet */
    PtrVec cand;   /* Var* assigned somewhere in the body */
    int *cand_op;
    int cand_cap;
    bool failed;
    bool serial; /* `return` or `break` leaves the loop early */
} Scan;

static bool in_vec(const PtrVec *v, const void *x) {
    for (int i = 0; i < v->len; i++)
        if (VEC_AT(*v, i) == x)
            return true;
    return false;
}

static void add_unique(Arena *a, PtrVec *v, void *x) {
    if (x && !in_vec(v, x))
        vec_push(a, v, x);
}

static Node *strip(Node *n) {
    while (n && n->kind == N_CAST)
        n = n->a;
    return n;
}

static bool is_var(Node *n, Var *v) {
    n = strip(n);
    return n && n->kind == N_NAME && n->var == v;
}

/* Does expression n name v anywhere? */
static bool mentions(Node *n, Var *v, int depth) {
    if (!n || depth > 1000)
        return false;
    if (n->kind == N_NAME && n->var == v)
        return true;
    if (mentions(n->a, v, depth + 1) || mentions(n->b, v, depth + 1) || mentions(n->c, v, depth + 1) ||
        mentions(n->self_node, v, depth + 1))
        return true;
    for (int i = 0; i < n->args.len; i++)
        if (mentions(VEC_AT(n->args, i), v, depth + 1))
            return true;
    return false;
}

static void note(Scan *S, Var *v, int op) {
    if (!v)
        return;
    int k = -1;
    for (int i = 0; i < S->cand.len; i++)
        if (VEC_AT(S->cand, i) == v)
            k = i;
    if (k < 0) {
        if (S->cand.len >= S->cand_cap) {
            int cap = S->cand_cap ? 2 * S->cand_cap : 16;
            int *m = arena_alloc(&S->c->arena, sizeof(int) * (size_t)cap);
            for (int i = 0; i < S->cand.len; i++)
                m[i] = S->cand_op[i];
            S->cand_op = m;
            S->cand_cap = cap;
        }
        k = S->cand.len;
        vec_push(&S->c->arena, &S->cand, v);
        S->cand_op[k] = op;
        return;
    }
    if (S->cand_op[k] != op)
        S->cand_op[k] = -1;
}

static void note_target(Scan *S, Node *t) {
    if (!t)
        return;
    if (t->kind == N_NAME && t->var)
        note(S, t->var, -1);
    else if (t->kind == N_TUPLE || t->kind == N_LIST)
        for (int i = 0; i < t->args.len; i++)
            note_target(S, VEC_AT(t->args, i));
    else if (t->kind == N_STARRED)
        note_target(S, t->a);
}

static int augop(OpKind op) {
    switch (op) {
    case OP_ADD:
    case OP_SUB: return PRED_ADD;
    case OP_MUL: return PRED_MUL;
    case OP_BITOR: return PRED_OR;
    case OP_BITAND: return PRED_AND;
    case OP_BITXOR: return PRED_XOR;
    default: return -1;
    }
}

/* `x = min(x, e)`, `x = max(e, x)`, `x = x + e`, `x = e * x`...: the
 * reduction operator, or -1. */
static int assign_redop(Var *x, Node *value) {
    Node *v = strip(value);
    if (!v)
        return -1;
    if (v->kind == N_CALL && v->call_kind == CALL_BUILTIN && (v->builtin == BI_MIN || v->builtin == BI_MAX) &&
        v->args.len == 2) {
        Node *a = VEC_AT(v->args, 0), *b = VEC_AT(v->args, 1);
        if ((is_var(a, x) && !mentions(b, x, 0)) || (is_var(b, x) && !mentions(a, x, 0)))
            return v->builtin == BI_MIN ? PRED_MIN : PRED_MAX;
        return -1;
    }
    if (v->kind == N_BINOP) {
        int op = augop(v->op);
        if (op < 0)
            return -1;
        if (is_var(v->a, x) && !mentions(v->b, x, 0))
            return op;
        if (v->op != OP_SUB && is_var(v->b, x) && !mentions(v->a, x, 0))
            return op;
    }
    return -1;
}

static void scan(Scan *S, Node *n, int depth, int loops) {
    if (!n || S->failed || S->serial)
        return;
    if (depth > 10000) {
        diag_error(&S->c->diag, HJ_DIAG_UNSUPPORTED, n->loc, "prange body nested too deeply");
        S->failed = true;
        return;
    }
    Arena *a = &S->c->arena;
    switch (n->kind) {
    case N_NAME:
        if (n->var)
            add_unique(a, &S->p->used, n->var);
        break;
    case N_RETURN:
        S->serial = true; /* a second exit: the loop runs serially, as in Numba */
        return;
    case N_BREAK:
        if (loops == 0) {
            S->serial = true;
            return;
        }
        break;
    case N_ASSIGN: {
        Node *t0 = n->targets.len == 1 ? VEC_AT(n->targets, 0) : NULL;
        if (t0 && t0->kind == N_NAME && t0->var) {
            Var *x = t0->var;
            note(S, x, ty_is_number(x->ty) ? assign_redop(x, n->a) : -1);
        } else {
            for (int i = 0; i < n->targets.len; i++)
                note_target(S, VEC_AT(n->targets, i));
        }
        break;
    }
    case N_AUGASSIGN:
        if (n->a->kind == N_NAME && n->a->var) {
            Var *x = n->a->var;
            /* on an array: a whole-array reduction, updated in place */
            if (ty_is_array(x->ty) && (mentions(n->b, x, 0) || augop(n->op) < 0)) {
                diag_error(&S->c->diag, HJ_DIAG_UNSUPPORTED, n->loc,
                           "in-place update of array '%s' in a prange loop is not a reduction hpcjit "
                           "supports (threads would race on it)", x->name ? x->name : "?");
                S->failed = true;
                return;
            }
            note(S, x, mentions(n->b, x, 0) ? -1 : augop(n->op));
        }
        break;
    case N_ANNASSIGN:
    case N_NAMEDEXPR:
        note_target(S, n->a);
        break;
    case N_FOR:
        note_target(S, n->a);
        break;
    default: break;
    }
    int inner = loops + (n->kind == N_FOR || n->kind == N_WHILE);
    scan(S, n->a, depth + 1, loops);
    scan(S, n->b, depth + 1, loops);
    scan(S, n->c, depth + 1, loops);
    scan(S, n->self_node, depth + 1, loops);
    PtrVec *lists[] = {&n->args, &n->args2, &n->targets, &n->keywords};
    for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++)
        for (int i = 0; i < lists[k]->len; i++)
            scan(S, VEC_AT(*lists[k], i), depth + 1, loops);
    for (int i = 0; i < n->body.len; i++)
        scan(S, VEC_AT(n->body, i), depth + 1, inner);
    for (int i = 0; i < n->orelse.len; i++)
        scan(S, VEC_AT(n->orelse, i), depth + 1, loops);
    /* a finally clause; an inlined generator's body (a loop) */
    for (int i = 0; i < n->finalbody.len; i++)
        scan(S, VEC_AT(n->finalbody, i), depth + 1, n->kind == N_FOR ? inner : loops);
}

bool infer_parallel_loop(Compilation *c, Spec *s, Node *n) {
    (void)s;
    Arena *a = &c->arena;
    if (n->a->kind != N_NAME || !n->a->var) {
        diag_error(&c->diag, HJ_DIAG_UNSUPPORTED, n->a->loc,
                   "the target of a prange loop must be a simple name with parallel=True");
        return false;
    }
    ParLoop *p = arena_alloc(a, sizeof *p);
    memset(p, 0, sizeof *p);
    p->deterministic = s->hf && s->hf->options.deterministic;
    p->dynamic = s->hf && s->hf->options.schedule_dynamic;
    Scan S = {.c = c, .p = p};
    add_unique(a, &p->used, n->a->var);
    note(&S, n->a->var, -1);
    for (int i = 0; i < n->body.len; i++)
        scan(&S, VEC_AT(n->body, i), 0, 0);
    if (S.failed)
        return false;
    if (S.serial) /* Numba too runs a loop with more than one exit serially */
        return true;
    p->reds = arena_alloc(a, sizeof(ParRed) * (size_t)(S.cand.len + 1));
    for (int i = 0; i < S.cand.len; i++) {
        Var *v = VEC_AT(S.cand, i);
        Type *et = ty_is_array(v->ty) ? v->ty->dtype : v->ty;
        bool minmax = S.cand_op[i] == PRED_MIN || S.cand_op[i] == PRED_MAX;
        if (ty_is_array(v->ty) && S.cand_op[i] >= 0 && (minmax || v->ty->readonly)) {
            diag_error(&c->diag, HJ_DIAG_UNSUPPORTED, n->loc,
                       "unsupported reduction of array '%s' in a prange loop", v->name ? v->name : "?");
            return false;
        }
        if (S.cand_op[i] >= 0 && et && ty_is_number(et) &&
            !(ty_is_complex(et) && S.cand_op[i] != PRED_ADD && S.cand_op[i] != PRED_MUL)) {
            p->reds[p->nreds].var = v;
            p->reds[p->nreds].op = (ParRedOp)S.cand_op[i];
            p->nreds++;
        } else {
            add_unique(a, &p->written, v);
        }
    }
    n->par = p;
    return true;
}
