/* infer_prune.c - dead branches on argument types and on constants,
 * before typing (as Numba's dead-branch pruning).
 *
 * A condition made of constants (`if DEBUG:` on a global bool, `MODE == 2`,
 * `x if VERBOSE else y`, `a.ndim == 1` on an array argument) keeps only the
 * branch that runs, so the other is never typed, as in Numba.
 *
 * A spec knows whether each argument is None: `if out is None:`, `if scale
 * is not None:` (and `not`, `and`, `or` of such tests, `x if p is None else
 * y`) on an argument are decided here, and the branch that cannot run is
 * removed from this spec's copy of the tree, so that it is never typed
 * (`x * scale` with scale None would be a type error).  A test is decided
 * only on an argument that nothing assigns before it: anywhere in the
 * function for tests inside loops or undecided branches, on the straight
 * line of top-level statements otherwise.
 *
 * The idiom `def f(a, out=None): if out is None: out = np.empty_like(a)`
 * then leaves `out = ...` as a top-level statement.  When a None argument
 * is assigned on the top-level line before anything reads it, the body's
 * name becomes a local variable of its own (the argument, which holds no
 * value, is hidden), so `out` is typed by what is assigned to it instead
 * of unifying None with an array.  Statements after a return, raise,
 * break or continue in the same block are dropped: they cannot run. */
#include "infer.h"

#include <stdio.h>
#include <string.h>

typedef enum { UNKNOWN, FALSE_, TRUE_ } Tri;

typedef struct Prune {
    Inf *I;
    Spec *s;
    int np;
    bool *pristine;   /* per argument: not assigned on the path so far */
    bool *ever;       /* per argument: assigned anywhere in the function */
    bool *read;       /* per argument: read on the top-level line so far */
} Prune;

static int param_of(const Prune *P, const char *name) {
    for (int i = 0; i < P->np; i++)
        if (strcmp(((Node *)VEC_AT(P->s->fn->params, i))->name, name) == 0)
            return i;
    return -1;
}

/* ---- which names a subtree assigns / mentions ---------------------------- */

static void mark_target(const Prune *P, Node *t, bool *set) {
    if (!t)
        return;
    if (t->kind == N_NAME) {
        int i = param_of(P, t->name);
        if (i >= 0)
            set[i] = true;
    } else if (t->kind == N_TUPLE || t->kind == N_LIST) {
        for (int i = 0; i < t->args.len; i++)
            mark_target(P, VEC_AT(t->args, i), set);
    } else if (t->kind == N_STARRED) {
        mark_target(P, t->a, set);
    }
}

static void assigned_vec(const Prune *P, PtrVec *v, bool *set);

static void assigned(const Prune *P, Node *n, bool *set) {
    if (!n)
        return;
    switch (n->kind) {
    case N_ASSIGN:
        for (int i = 0; i < n->targets.len; i++)
            mark_target(P, VEC_AT(n->targets, i), set);
        break;
    case N_AUGASSIGN: case N_ANNASSIGN: case N_FOR: case N_NAMEDEXPR:
        mark_target(P, n->a, set);
        break;
    default:
        break;
    }
    assigned(P, n->a, set);
    assigned(P, n->b, set);
    assigned(P, n->c, set);
    assigned_vec(P, &n->body, set);
    assigned_vec(P, &n->orelse, set);
    assigned_vec(P, &n->finalbody, set);
    assigned_vec(P, &n->args, set);
    assigned_vec(P, &n->keywords, set);
}

static void assigned_vec(const Prune *P, PtrVec *v, bool *set) {
    for (int i = 0; i < v->len; i++)
        assigned(P, VEC_AT(*v, i), set);
}

/* Every N_NAME in the subtree (loads and stores alike). */
static void mentioned_vec(const Prune *P, PtrVec *v, bool *set);

static void mentioned(const Prune *P, Node *n, bool *set) {
    if (!n)
        return;
    if (n->kind == N_NAME) {
        int i = param_of(P, n->name);
        if (i >= 0)
            set[i] = true;
    }
    mentioned(P, n->a, set);
    mentioned(P, n->b, set);
    mentioned(P, n->c, set);
    mentioned_vec(P, &n->body, set);
    mentioned_vec(P, &n->orelse, set);
    mentioned_vec(P, &n->finalbody, set);
    mentioned_vec(P, &n->args, set);
    mentioned_vec(P, &n->targets, set);
    mentioned_vec(P, &n->keywords, set);
}

static void mentioned_vec(const Prune *P, PtrVec *v, bool *set) {
    for (int i = 0; i < v->len; i++)
        mentioned(P, VEC_AT(*v, i), set);
}

/* ---- constants ---------------------------------------------------------------- */

/* A condition made of constants: a literal number, bool or None, or a
 * global (frozen when the function compiles, as in Numba) that no
 * statement of the function binds.  *v its value, *none for None. */
static bool constant(const Prune *P, const Node *e, double *v, bool *none) {
    *none = false;
    if (e->kind == N_CONST) {
        switch (e->cval.kind) {
        case CVAL_INT: if (e->cval.overflow) return false; *v = (double)e->cval.i; return true;
        case CVAL_BOOL: *v = (double)e->cval.i; return true;
        case CVAL_FLOAT: *v = e->cval.f; return true;
        case CVAL_NONE: *none = true; *v = 0; return true;
        default: return false;
        }
    }
    if (e->kind == N_ATTRIBUTE && e->a->kind == N_NAME && strcmp(e->name, "ndim") == 0) {
        /* `a.ndim` of an array argument nothing assigns: a constant of the
         * spec, as Numba's rewrite_semantic_constants (stumpy: `if PA.ndim
         * == 1: ... else: k = PA.shape[1]`, the other branch untypable) */
        int i = param_of(P, e->a->name);
        if (i < 0 || P->ever[i] || P->s->argtys[i]->kind != TY_ARRAY)
            return false;
        *v = (double)P->s->argtys[i]->ndim;
        return true;
    }
    if (e->kind != N_NAME || !P->s->hf || param_of(P, e->name) >= 0 || infer_count_binds(P->s->fn, e->name) > 0)
        return false;
    const HjFunction *hf = P->s->hf;
    for (int i = 0; i < hf->nenv; i++) {
        const HjEnvEntry *g = &hf->env[i];
        if (!g->name || strcmp(g->name, e->name) != 0)
            continue;
        switch (g->kind) {
        case HJ_ENV_INT: *v = (double)g->i; return true; /* bools too */
        case HJ_ENV_FLOAT: *v = g->f; return true;
        case HJ_ENV_NONE: *none = true; *v = 0; return true;
        default: return false;
        }
    }
    return false;
}

/* `DEBUG`, `not VERBOSE`, `MODE == 2`, `LEVEL > 1`, `None is X`: decided
 * by constants alone. */
static Tri decide_constant(const Prune *P, const Node *e) {
    double x, y;
    bool xn, yn;
    if (e->kind == N_COMPARE && e->args.len == 1) {
        if (!constant(P, e->a, &x, &xn) || !constant(P, VEC_AT(e->args, 0), &y, &yn))
            return UNKNOWN;
        bool r;
        switch (e->ops[0]) {
        case OP_IS: case OP_EQ: r = xn || yn ? xn == yn : x == y; break;
        case OP_ISNOT: case OP_NE: r = xn || yn ? xn != yn : x != y; break;
        case OP_LT: if (xn || yn) return UNKNOWN; r = x < y; break;
        case OP_LE: if (xn || yn) return UNKNOWN; r = x <= y; break;
        case OP_GT: if (xn || yn) return UNKNOWN; r = x > y; break;
        case OP_GE: if (xn || yn) return UNKNOWN; r = x >= y; break;
        default: return UNKNOWN;
        }
        if ((e->ops[0] == OP_IS || e->ops[0] == OP_ISNOT) && !xn && !yn)
            return UNKNOWN; /* `is` between numbers: identity, not decided here */
        return r ? TRUE_ : FALSE_;
    }
    if (!constant(P, e, &x, &xn))
        return UNKNOWN;
    return !xn && x != 0 ? TRUE_ : FALSE_;
}

/* ---- deciding a test ------------------------------------------------------- */

/* `p is None` / `p is not None` / `None is p`: true when the argument is
 * None, as far as `ok` (the arguments nothing has assigned) allows. */
static Tri decide_isinstance(const Prune *P, const Node *e, const bool *ok);
static Tri decide_hasattr(const Prune *P, const Node *e, const bool *ok);

static Tri decide(const Prune *P, const Node *e, const bool *ok) {
    Tri c = decide_constant(P, e);
    if (c != UNKNOWN)
        return c;
    switch (e->kind) {
    case N_COMPARE: {
        if (e->args.len != 1 || (e->ops[0] != OP_IS && e->ops[0] != OP_ISNOT))
            return UNKNOWN;
        const Node *l = e->a, *r = VEC_AT(e->args, 0);
        const Node *name = infer_is_none(r) ? l : infer_is_none(l) ? r : NULL;
        if (!name || name->kind != N_NAME)
            return UNKNOWN;
        int i = param_of(P, name->name);
        if (i < 0 || !ok[i] || P->s->argtys[i]->kind == TY_OPTIONAL)
            return UNKNOWN; /* an Optional argument (from a jitted caller) is known at run time only */
        bool none = P->s->argtys[i]->kind == TY_NONE;
        return none == (e->ops[0] == OP_IS) ? TRUE_ : FALSE_;
    }
    case N_CALL: {
        Tri t = decide_hasattr(P, e, ok);
        return t != UNKNOWN ? t : decide_isinstance(P, e, ok);
    }
    case N_UNARYOP:
        if (e->op == OP_NOT) {
            Tri t = decide(P, e->a, ok);
            return t == UNKNOWN ? UNKNOWN : t == TRUE_ ? FALSE_ : TRUE_;
        }
        return UNKNOWN;
    case N_BOOLOP: {
        /* decided only by operands evaluated before any undecided one */
        Tri stop = e->op == OP_AND ? FALSE_ : TRUE_;
        for (int i = 0; i < e->args.len; i++) {
            Tri t = decide(P, VEC_AT(e->args, i), ok);
            if (t == UNKNOWN || t == stop)
                return t;
        }
        return stop == FALSE_ ? TRUE_ : FALSE_;
    }
    default:
        return UNKNOWN;
    }
}

const char *infer_class_name(const HjFunction *hf, const Node *n) {
    const char *mod = NULL, *attr = NULL;
    if (!n) /* a call the compiler made itself (string concatenation, repetition...) names no class */
        return NULL;
    if (n->kind == N_NAME) {
        for (int i = 0; i < hf->nenv; i++)
            if (hf->env[i].name && strcmp(hf->env[i].name, n->name) == 0)
                return hf->env[i].kind == HJ_ENV_BUILTIN ? hf->env[i].qualname : NULL;
        return NULL;
    }
    if (n->kind == N_ATTRIBUTE && n->a->kind == N_NAME) {
        for (int i = 0; i < hf->nenv; i++)
            if (hf->env[i].name && strcmp(hf->env[i].name, n->a->name) == 0 && hf->env[i].kind == HJ_ENV_MODULE)
                mod = hf->env[i].qualname;
        attr = n->name;
    }
    if (!mod || !attr)
        return NULL;
    static _Thread_local char buf[128];
    snprintf(buf, sizeof buf, "%s.%s", mod, attr);
    return buf;
}

int infer_isinstance(const Type *t, const char *cls) {
    if (!t || !cls || t->kind == TY_UNKNOWN || t->kind == TY_OPTIONAL)
        return -1;
    if (strcmp(cls, "builtins.object") == 0)
        return 1;
    /* Python's classes, as Numba decides them from the type: an integer
     * value is an int and a float64 a float whether it came from Python or
     * from a NumPy array (NumPy's scalar classes cannot be told apart that
     * way, so they are not decided) */
    if (strcmp(cls, "builtins.int") == 0)
        return t->kind == TY_BOOL || ty_is_int(t);
    if (strcmp(cls, "builtins.bool") == 0)
        return t->kind == TY_BOOL;
    if (strcmp(cls, "builtins.float") == 0)
        return ty_is_float(t);
    if (strcmp(cls, "builtins.complex") == 0)
        return ty_is_complex(t);
    if (strcmp(cls, "builtins.tuple") == 0)
        return t->kind == TY_TUPLE;
    if (strcmp(cls, "builtins.str") == 0)
        return t->kind == TY_STRING;
    if (strcmp(cls, "numpy.ndarray") == 0)
        return t->kind == TY_ARRAY;
    return -1;
}

/* isinstance(arg, C) / isinstance(arg, (C, D)) on an argument nothing
 * assigned: decided by the argument's type. */
static Tri decide_isinstance(const Prune *P, const Node *e, const bool *ok) {
    if (e->args.len != 2 || e->keywords.len || e->a->kind != N_NAME || !P->s->hf)
        return UNKNOWN;
    const char *fn = infer_class_name(P->s->hf, e->a);
    const Node *x = VEC_AT(e->args, 0), *c = VEC_AT(e->args, 1);
    if (!fn || strcmp(fn, "builtins.isinstance") != 0 || x->kind != N_NAME)
        return UNKNOWN;
    int i = param_of(P, x->name);
    if (i < 0 || !ok[i])
        return UNKNOWN;
    int n = c->kind == N_TUPLE ? c->args.len : 1;
    bool any = false;
    for (int k = 0; k < n; k++) {
        const Node *ck = c->kind == N_TUPLE ? VEC_AT(c->args, k) : c;
        int r = infer_isinstance(P->s->argtys[i], infer_class_name(P->s->hf, ck));
        if (r < 0)
            return UNKNOWN;
        any = any || r;
    }
    return any ? TRUE_ : FALSE_;
}

/* hasattr(arg, "name") on an argument nothing assigned: decided by the
 * argument's type (infer_has_attr), so that `if hasattr(obj, "y"): obj.y`
 * is not typed where obj has no y, as in Numba. */
static Tri decide_hasattr(const Prune *P, const Node *e, const bool *ok) {
    if (e->args.len != 2 || e->keywords.len || e->a->kind != N_NAME || !P->s->hf)
        return UNKNOWN;
    const char *fn = infer_class_name(P->s->hf, e->a);
    const Node *x = VEC_AT(e->args, 0), *nm = VEC_AT(e->args, 1);
    if (!fn || strcmp(fn, "builtins.hasattr") != 0 || x->kind != N_NAME || nm->kind != N_CONST ||
        nm->cval.kind != CVAL_STR || nm->cval.is_bytes)
        return UNKNOWN;
    int i = param_of(P, x->name);
    if (i < 0 || !ok[i] || P->s->argtys[i]->kind == TY_OPTIONAL || P->s->argtys[i]->kind == TY_UNKNOWN)
        return UNKNOWN;
    const char *name = arena_printf(P->I->a, "%.*s", nm->cval.slen, nm->cval.s);
    int r = infer_has_attr(P->I, P->s->argtys[i], name, e->loc);
    return r < 0 ? UNKNOWN : r ? TRUE_ : FALSE_;
}

/* isinstance(t, C) / isinstance(t, (C, D)) on the variable of one copy of
 * a literal_unroll body ("t$u<k>...", infer_unroll_copies): its type is
 * that element's for good, so the test is decided and the other arm of
 * `if isinstance(t, str): len(t) else: t + 1` is never typed (Numba
 * types each element's version of the body the same way).  Other locals
 * are left to run time: their type may still widen in a later pass. */
static int decided_isinstance(Inf *I, const Node *e) {
    const Node *x = VEC_AT(e->args, 0), *c = VEC_AT(e->args, 1);
    if (x->kind != N_NAME || !x->name || !strstr(x->name, "$u"))
        return -1;
    Type *t = infer_value_ty(x);
    if (!t || ty_has_unknown(t) || t->kind == TY_OPTIONAL)
        return -1;
    int nc = c->kind == N_TUPLE ? c->args.len : 1, any = 0;
    for (int k = 0; k < nc; k++) {
        int r = infer_isinstance(t, infer_class_name(I->s->hf, c->kind == N_TUPLE ? VEC_AT(c->args, k) : c));
        if (r < 0)
            return -1;
        any |= r;
    }
    return any;
}

int infer_decided_test(Inf *I, const Node *e) {
    while (e->kind == N_CAST)
        e = e->a;
    switch (e->kind) {
    case N_CONST: /* a literal, or hasattr() made constant in the final pass */
        return e->cval.kind == CVAL_BOOL ? (int)(e->cval.i != 0) : -1;
    case N_CALL: {
        if (e->args.len != 2 || e->keywords.len || !I->s->hf)
            return -1;
        const char *fn = infer_class_name(I->s->hf, e->a);
        if (fn && strcmp(fn, "builtins.isinstance") == 0)
            return decided_isinstance(I, e);
        const Node *nm = VEC_AT(e->args, 1);
        if (!fn || strcmp(fn, "builtins.hasattr") != 0 || nm->kind != N_CONST || nm->cval.kind != CVAL_STR ||
            nm->cval.is_bytes)
            return -1;
        Type *t = infer_value_ty(VEC_AT(e->args, 0));
        if (!t || ty_has_unknown(t) || t->kind == TY_OPTIONAL)
            return -1;
        return infer_has_attr(I, t, arena_printf(I->a, "%.*s", nm->cval.slen, nm->cval.s), e->loc);
    }
    case N_UNARYOP: {
        int r = e->op == OP_NOT ? infer_decided_test(I, e->a) : -1;
        return r < 0 ? -1 : !r;
    }
    case N_BOOLOP: {
        int stop = e->op == OP_AND ? 0 : 1;
        for (int i = 0; i < e->args.len; i++) {
            int r = infer_decided_test(I, VEC_AT(e->args, i));
            if (r < 0 || r == stop)
                return r;
        }
        return !stop;
    }
    default:
        return -1;
    }
}

/* ---- rewriting ---------------------------------------------------------------- */

static void prune_expr(const Prune *P, Node **pn, const bool *ok);

static void prune_expr_vec(const Prune *P, PtrVec *v, const bool *ok) {
    for (int i = 0; i < v->len; i++)
        if (VEC_AT(*v, i))
            prune_expr(P, (Node **)&VEC_AT(*v, i), ok);
}

/* `x if p is None else y` -> the arm that runs. */
static void prune_expr(const Prune *P, Node **pn, const bool *ok) {
    Node *n = *pn;
    if (!n || n->kind == N_FUNCDEF || n->kind == N_LAMBDA || n->kind == N_CLASSDEF)
        return;
    if (n->kind == N_IFEXP) {
        Tri t = decide(P, n->a, ok);
        if (t != UNKNOWN) {
            *pn = t == TRUE_ ? n->b : n->c;
            prune_expr(P, pn, ok);
            return;
        }
    }
    if (n->a)
        prune_expr(P, &n->a, ok);
    if (n->b)
        prune_expr(P, &n->b, ok);
    if (n->c)
        prune_expr(P, &n->c, ok);
    prune_expr_vec(P, &n->args, ok);
    prune_expr_vec(P, &n->keywords, ok);
}

/* Prune a statement list.  `top`: the function's own top-level line, where
 * P->pristine tracks the arguments not assigned so far; elsewhere only
 * arguments never assigned anywhere (`ok` = !ever) are decided. */
static void prune_block(Prune *P, Arena *a, PtrVec *v, bool top) {
    PtrVec out = {0};
    bool *never = arena_alloc(a, sizeof(bool) * (size_t)(P->np + 1));
    for (int i = 0; i < P->np; i++)
        never[i] = !P->ever[i];
    /* a work list, so that a decided if splices its branch in place */
    PtrVec work = {0};
    for (int i = v->len - 1; i >= 0; i--)
        vec_push(a, &work, VEC_AT(*v, i));
    while (work.len > 0) {
        Node *n = VEC_AT(work, work.len - 1);
        work.len--;
        const bool *ok = top ? P->pristine : never;
        if (n->kind == N_IF) {
            Tri t = decide(P, n->a, ok);
            if (t != UNKNOWN) {
                PtrVec *keep = t == TRUE_ ? &n->body : &n->orelse;
                for (int i = keep->len - 1; i >= 0; i--)
                    vec_push(a, &work, VEC_AT(*keep, i));
                continue;
            }
        }
        if (n->kind == N_FUNCDEF || n->kind == N_CLASSDEF) {
            vec_push(a, &out, n); /* refused later, left as it is */
            continue;
        }
        if (top) {
            /* reads on the line before the argument is first assigned */
            bool *m = arena_alloc(a, sizeof(bool) * (size_t)(P->np + 1));
            bool *w = arena_alloc(a, sizeof(bool) * (size_t)(P->np + 1));
            memset(m, 0, sizeof(bool) * (size_t)(P->np + 1));
            memset(w, 0, sizeof(bool) * (size_t)(P->np + 1));
            mentioned(P, n, m);
            assigned(P, n, w);
            bool simple = n->kind == N_ASSIGN && n->targets.len == 1 && ((Node *)VEC_AT(n->targets, 0))->kind == N_NAME;
            for (int i = 0; i < P->np; i++) {
                if (!P->pristine[i] || !m[i])
                    continue;
                bool rhs_reads = false;
                if (simple && w[i]) {
                    bool *r = arena_alloc(a, sizeof(bool) * (size_t)(P->np + 1));
                    memset(r, 0, sizeof(bool) * (size_t)(P->np + 1));
                    mentioned(P, n->a, r);
                    rhs_reads = r[i];
                }
                if (!(simple && w[i]) || rhs_reads)
                    P->read[i] = true; /* anything but `p = <expr without p>` */
            }
            prune_expr(P, &n->a, P->pristine);
            prune_expr(P, &n->b, P->pristine);
            prune_expr(P, &n->c, P->pristine);
            prune_expr_vec(P, &n->args, P->pristine);
            prune_expr_vec(P, &n->targets, P->pristine);
            for (int i = 0; i < P->np; i++)
                if (w[i])
                    P->pristine[i] = false;
        } else {
            prune_expr(P, &n->a, never);
            prune_expr(P, &n->b, never);
            prune_expr(P, &n->c, never);
            prune_expr_vec(P, &n->args, never);
        }
        prune_block(P, a, &n->body, false);
        prune_block(P, a, &n->orelse, false);
        prune_block(P, a, &n->finalbody, false);
        vec_push(a, &out, n);
        if (n->kind == N_RETURN || n->kind == N_RAISE || n->kind == N_BREAK || n->kind == N_CONTINUE)
            break; /* the rest of the block cannot run (`if w is None: raise ...` spliced in) */
    }
    *v = out;
}

void infer_prune_branches(Inf *I, bool *hide) {
    Spec *s = I->s;
    Prune P = {.I = I, .s = s, .np = s->fn->params.len};
    size_t sz = sizeof(bool) * (size_t)(P.np + 1);
    P.pristine = arena_alloc(I->a, sz);
    P.ever = arena_alloc(I->a, sz);
    P.read = arena_alloc(I->a, sz);
    memset(P.ever, 0, sz);
    memset(P.read, 0, sz);
    for (int i = 0; i < P.np; i++)
        P.pristine[i] = true;
    assigned_vec(&P, &s->fn->body, P.ever);
    prune_block(&P, I->a, &s->fn->body, true);
    /* what is left assigns a None argument: a fresh local if nothing read
     * the argument first */
    bool *now = arena_alloc(I->a, sz);
    memset(now, 0, sz);
    assigned_vec(&P, &s->fn->body, now);
    for (int i = 0; i < P.np; i++)
        hide[i] = now[i] && !P.read[i] && !P.pristine[i] && s->argtys[i]->kind == TY_NONE;
}
