/* infer_unroll.c - for loops over map(), filter(), generators and
 * literal_unroll(), rewritten into loops the typer and the lowering know.
 *
 * Before typing (infer_rewrite_for, from the collection of variables):
 *
 *   for t in map(f, a, b): body   ->  for ($m0, $m1) in zip(a, b):
 *                                          t = f($m0, $m1)
 *                                          body
 *   for t in filter(f, a): body   ->  for $m0 in a:
 *                                          if not f($m0): continue
 *                                          t = $m0
 *                                          body
 *   for t in gen(x): body         ->  N_FOR with is_from: finalbody holds
 *                                     `$p = x` per parameter of gen, then
 *                                     gen's body with its locals renamed
 *                                     apart ("p$g<line>.<col>") and its
 *                                     global names looked up in gen's
 *                                     environment (N_NAME env_hf); each
 *                                     `yield v` statement carries its own
 *                                     copy of `body` (N_YIELD body), run
 *                                     with t = v at that point; a `return`
 *                                     of gen ends the loop (N_RETURN is_from)
 *
 * While typing (infer_unroll_copies), once the tuple's type is known:
 *
 *   for t in literal_unroll(tup): body  ->  N_FOR with is_star: targets
 *       holds one N_FOR per element k (a = t renamed "t$u<k>", body a copy
 *       of body with t renamed), each typed with element k's type.
 *
 * Lowering (lower.c) runs the copies in order; `continue` goes to the next
 * copy (or past the yield), `break` leaves the whole loop. */
#include "infer.h"

#include <string.h>

/* ---- names ---- */

typedef struct Names {
    const char **from, **to;
    int n, cap;
} Names;

static void names_add(Inf *I, Names *m, const char *from, const char *to) {
    for (int i = 0; i < m->n; i++)
        if (strcmp(m->from[i], from) == 0)
            return;
    if (m->n == m->cap) {
        int cap = m->cap ? 2 * m->cap : 16;
        const char **f = arena_alloc(I->a, sizeof(char *) * (size_t)cap);
        const char **t = arena_alloc(I->a, sizeof(char *) * (size_t)cap);
        if (I->a->oom)
            return;
        if (m->n) {
            memcpy(f, m->from, sizeof(char *) * (size_t)m->n);
            memcpy(t, m->to, sizeof(char *) * (size_t)m->n);
        }
        m->from = f;
        m->to = t;
        m->cap = cap;
    }
    m->from[m->n] = from;
    m->to[m->n] = to;
    m->n++;
}

static const char *names_get(const Names *m, const char *name) {
    for (int i = 0; i < m->n; i++)
        if (strcmp(m->from[i], name) == 0)
            return m->to[i];
    return NULL;
}

static void bound_target(Inf *I, Names *m, Node *t, const char *suffix) {
    if (!t)
        return;
    if (t->kind == N_NAME)
        names_add(I, m, t->name, arena_printf(I->a, "%s$%s", t->name, suffix));
    else if (t->kind == N_TUPLE || t->kind == N_LIST)
        for (int i = 0; i < t->args.len; i++)
            bound_target(I, m, VEC_AT(t->args, i), suffix);
    else if (t->kind == N_STARRED)
        bound_target(I, m, t->a, suffix);
}

static void bound_vec(Inf *I, Names *m, PtrVec *v, const char *suffix);

/* Every name a statement list binds (assignments, loop targets, walrus,
 * comprehension targets): the locals of a generator's body. */
static void bound_names(Inf *I, Names *m, Node *n, const char *suffix) {
    if (!n)
        return;
    switch (n->kind) {
    case N_ASSIGN:
        for (int i = 0; i < n->targets.len; i++)
            bound_target(I, m, VEC_AT(n->targets, i), suffix);
        break;
    case N_AUGASSIGN: case N_ANNASSIGN: case N_FOR: case N_NAMEDEXPR: case N_COMPFOR:
        bound_target(I, m, n->a, suffix);
        break;
    case N_FUNCDEF: case N_LAMBDA: case N_CLASSDEF:
        return;
    default:
        break;
    }
    bound_names(I, m, n->a, suffix);
    bound_names(I, m, n->b, suffix);
    bound_names(I, m, n->c, suffix);
    bound_vec(I, m, &n->body, suffix);
    bound_vec(I, m, &n->orelse, suffix);
    bound_vec(I, m, &n->finalbody, suffix);
    bound_vec(I, m, &n->handlers, suffix);
    bound_vec(I, m, &n->args, suffix);
    bound_vec(I, m, &n->args2, suffix);
    bound_vec(I, m, &n->keywords, suffix);
    bound_vec(I, m, &n->generators, suffix);
}

static void bound_vec(Inf *I, Names *m, PtrVec *v, const char *suffix) {
    for (int i = 0; i < v->len; i++)
        bound_names(I, m, VEC_AT(*v, i), suffix);
}

typedef struct Rewrite {
    const Names *m;
    const HjFunction *env_hf; /* set on names not renamed (a generator's globals) */
    bool gen;                 /* mark returns as ending the inlined generator */
} Rewrite;

static void rename_vec(const Rewrite *r, PtrVec *v);

static void rename(const Rewrite *r, Node *n) {
    if (!n)
        return;
    if (n->kind == N_NAME) {
        const char *to = names_get(r->m, n->name);
        if (to) {
            n->name = to;
            n->var = NULL;
        } else if (r->env_hf && !n->env_hf) {
            n->env_hf = r->env_hf;
        }
        return;
    }
    if (n->kind == N_FUNCDEF || n->kind == N_LAMBDA)
        return;
    if (r->gen && n->kind == N_RETURN)
        n->is_from = 1;
    if (n->kind == N_KEYWORD) { /* the keyword's name is not a variable */
        rename(r, n->a);
        return;
    }
    if (n->kind == N_ATTRIBUTE) { /* x.attr: only x */
        rename(r, n->a);
        return;
    }
    rename(r, n->a);
    rename(r, n->b);
    rename(r, n->c);
    rename_vec(r, &n->body);
    rename_vec(r, &n->orelse);
    rename_vec(r, &n->finalbody);
    rename_vec(r, &n->handlers);
    rename_vec(r, &n->args);
    rename_vec(r, &n->args2);
    rename_vec(r, &n->keywords);
    rename_vec(r, &n->targets);
    rename_vec(r, &n->generators);
}

static void rename_vec(const Rewrite *r, PtrVec *v) {
    for (int i = 0; i < v->len; i++)
        rename(r, VEC_AT(*v, i));
}

static Node *name_node(Inf *I, const char *name, SrcLoc loc) {
    Node *n = ast_new(I->a, N_NAME, loc);
    n->name = name;
    return n;
}

/* ---- what a for loop iterates over ---- */

enum { ITER_OTHER, ITER_MAP, ITER_FILTER, ITER_UNROLL, ITER_GEN, ITER_ZIP, ITER_ENUMERATE };

static const HjFunction *env_of(Inf *I, const Node *n) { return n->env_hf ? n->env_hf : I->s->hf; }

/* A yield of the function itself; `depth` counts the inlined generator
 * loops (a spec's typed tree) around n, whose own yields are not. */
static bool has_yield(const Node *n, int depth) {
    if (!n)
        return false;
    if (n->kind == N_YIELD) {
        if (depth == 0)
            return true;
        for (int i = 0; i < n->body.len; i++) /* the loop body: one level out */
            if (has_yield(VEC_AT(n->body, i), depth - 1))
                return true;
        return false;
    }
    if (n->kind == N_FUNCDEF || n->kind == N_LAMBDA)
        return false;
    if (has_yield(n->a, depth) || has_yield(n->b, depth) || has_yield(n->c, depth))
        return true;
    int inner = n->kind == N_FOR && n->is_from ? depth + 1 : depth;
    for (int i = 0; i < n->finalbody.len; i++)
        if (has_yield(VEC_AT(n->finalbody, i), inner))
            return true;
    const PtrVec *lists[] = {&n->body, &n->orelse, &n->handlers, &n->args, &n->args2, &n->keywords};
    for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++)
        for (int i = 0; i < lists[k]->len; i++)
            if (has_yield(VEC_AT(*lists[k], i), depth))
                return true;
    return false;
}

bool infer_is_generator(const Node *decl) {
    if (!decl)
        return false;
    for (int i = 0; i < decl->body.len; i++)
        if (has_yield(VEC_AT(decl->body, i), 0))
            return true;
    return false;
}

/* A fresh parse of function `func` (never a spec's typed tree). */
static Node *fresh_decl(Inf *I, int func) {
    const HjFunction *hf = &I->c->req->funcs[func];
    SrcFile *f = arena_alloc(I->a, sizeof *f);
    if (I->a->oom)
        return NULL;
    f->name = hf->filename;
    f->text = hf->source;
    f->line_offset = hf->first_line - 1;
    f->col_offset = hf->col_offset;
    return parse_function(I->a, f, &I->c->diag);
}

/* Function `func` is a generator (never a stub: overloads, objmode
 * blocks have no source of their own). */
static bool is_gen_func(Inf *I, int func) {
    if (func < 0 || func >= I->c->req->nfuncs || I->c->req->funcs[func].stub)
        return false;
    return infer_is_generator(infer_func_decl(I->c, func));
}

static int iter_kind(Inf *I, const Node *call, int *func) {
    if (!call || call->kind != N_CALL || call->has_star)
        return ITER_OTHER;
    const Node *f = call->a;
    const char *qual = NULL;
    if (f->kind == N_NAME) {
        if (infer_is_local(I, f->name)) { /* a parameter holding a generator function: apply(gen, n) */
            Type *t = f->env_hf ? NULL : infer_param_type(I, f->name);
            if (!t || t->kind != TY_FUNCTION || !is_gen_func(I, t->func))
                return ITER_OTHER;
            *func = t->func;
            return ITER_GEN;
        }
        const HjEnvEntry *e = infer_env_find(env_of(I, f), f->name);
        if (!e)
            return ITER_OTHER;
        if (e->kind == HJ_ENV_FUNC) {
            if (!is_gen_func(I, e->func))
                return ITER_OTHER;
            *func = e->func;
            return ITER_GEN;
        }
        if (e->kind == HJ_ENV_BUILTIN)
            qual = e->qualname;
    } else if (f->kind == N_ATTRIBUTE && f->a->kind == N_NAME && strcmp(f->name, "literal_unroll") == 0 &&
               !infer_is_local(I, f->a->name)) { /* hpcjit.literal_unroll, numba.literal_unroll */
        const HjEnvEntry *e = infer_env_find(env_of(I, f->a), f->a->name);
        if (e && e->kind == HJ_ENV_MODULE && (strcmp(e->qualname, "hpcjit") == 0 || strcmp(e->qualname, "numba") == 0))
            return ITER_UNROLL;
    }
    if (!qual)
        return ITER_OTHER;
    int id = builtin_lookup(qual);
    return id == BI_MAP ? ITER_MAP : id == BI_FILTER ? ITER_FILTER : id == BI_LITERAL_UNROLL ? ITER_UNROLL
         : id == BI_ZIP ? ITER_ZIP : id == BI_ENUMERATE ? ITER_ENUMERATE : ITER_OTHER;
}

/* ---- map and filter ---- */

static bool rewrite_map(Inf *I, Node *n, bool filter) {
    Node *call = n->b;
    const char *fname = filter ? "filter" : "map";
    if (call->keywords.len)
        return UNSUP(I, call, "%s() takes no keyword arguments", fname), false;
    int na = call->args.len;
    if (filter ? na != 2 : na < 2)
        return TYPING(I, call, filter ? "filter() takes exactly 2 arguments (%d given)"
                                      : "map() must have at least 2 arguments (%d given)", na), false;
    Node *fn = VEC_AT(call->args, 0);
    SrcLoc loc = call->loc;
    int id = I->nrewrites++;
    /* the items: $m0 (one iterable) or ($m0, $m1, ...) over zip(...) */
    Node *items = NULL, *iter = NULL;
    Node *f_call = ast_new(I->a, N_CALL, loc);
    f_call->a = fn;
    if (na == 2) {
        items = name_node(I, arena_printf(I->a, "$m%d", id), loc);
        iter = VEC_AT(call->args, 1);
        vec_push(I->a, &f_call->args, name_node(I, items->name, loc));
    } else {
        items = ast_new(I->a, N_TUPLE, loc);
        iter = ast_new(I->a, N_CALL, loc);
        iter->a = name_node(I, "$q:builtins.zip", loc); /* the builtin, whatever zip names here */
        for (int i = 1; i < na; i++) {
            const char *nm = arena_printf(I->a, "$m%d.%d", id, i);
            vec_push(I->a, &items->args, name_node(I, nm, loc));
            vec_push(I->a, &f_call->args, name_node(I, nm, loc));
            vec_push(I->a, &iter->args, VEC_AT(call->args, i));
        }
    }
    PtrVec body = {0};
    Node *value = f_call;
    if (filter) {
        bool none = fn->kind == N_CONST && fn->cval.kind == CVAL_NONE;
        Node *test = ast_new(I->a, N_UNARYOP, loc);
        test->op = OP_NOT;
        test->a = none ? name_node(I, items->name, loc) : f_call;
        Node *iff = ast_new(I->a, N_IF, loc);
        iff->a = test;
        vec_push(I->a, &iff->body, ast_new(I->a, N_CONTINUE, loc));
        vec_push(I->a, &body, iff);
        value = name_node(I, items->name, loc);
    }
    Node *as = ast_new(I->a, N_ASSIGN, n->a->loc);
    vec_push(I->a, &as->targets, n->a);
    as->a = value;
    vec_push(I->a, &body, as);
    for (int i = 0; i < n->body.len; i++)
        vec_push(I->a, &body, VEC_AT(n->body, i));
    n->a = items;
    n->b = iter;
    n->body = body;
    return true;
}

/* zip(a, map(f, b)) / enumerate(map(f, b)): the map's iterable (a zip
 * of its iterables) in its place, and f applied in the body:
 *   for t in zip(a, map(f, b, c)): body  ->  for ($z0, ($z1.0, $z1.1)) in zip(a, zip(b, c)):
 *                                               t = ($z0, f($z1.0, $z1.1))
 *                                               body
 * false after a diagnostic; *done false when no argument is a map(). */
static bool rewrite_zip_map(Inf *I, Node *n, bool *done) {
    Node *call = n->b;
    int func = -1;
    *done = false;
    int first = -1;
    for (int i = 0; i < call->args.len; i++) {
        /* a generator or a filter() stays a call: its object (a filter
         * generator, _pylib.py filter_) */
        int k = iter_kind(I, VEC_AT(call->args, i), &func);
        if (k == ITER_MAP && first < 0)
            first = i;
    }
    if (first < 0)
        return true;
    bool enumerate = iter_kind(I, call, &func) == ITER_ENUMERATE;
    if (enumerate && first != 0)
        return true;
    int id = I->nrewrites++;
    SrcLoc loc = call->loc;
    Node *items = ast_new(I->a, N_TUPLE, loc), *value = ast_new(I->a, N_TUPLE, loc);
    if (enumerate) {
        const char *nm = arena_printf(I->a, "$z%d.i", id);
        vec_push(I->a, &items->args, name_node(I, nm, loc));
        vec_push(I->a, &value->args, name_node(I, nm, loc));
    }
    int last = enumerate ? 1 : call->args.len; /* enumerate's start stays as it is */
    for (int i = 0; i < last; i++) {
        Node *a = VEC_AT(call->args, i);
        const char *nm = arena_printf(I->a, "$z%d.%d", id, i);
        if (iter_kind(I, a, &func) != ITER_MAP || a->keywords.len || a->args.len < 2) {
            vec_push(I->a, &items->args, name_node(I, nm, loc));
            vec_push(I->a, &value->args, name_node(I, nm, loc));
            continue;
        }
        Node *f_call = ast_new(I->a, N_CALL, a->loc);
        f_call->a = VEC_AT(a->args, 0);
        if (a->args.len == 2) {
            vec_push(I->a, &items->args, name_node(I, nm, loc));
            vec_push(I->a, &f_call->args, name_node(I, nm, loc));
            VEC_AT(call->args, i) = VEC_AT(a->args, 1);
        } else {
            Node *sub = ast_new(I->a, N_TUPLE, loc), *zip = ast_new(I->a, N_CALL, a->loc);
            zip->a = name_node(I, "$q:builtins.zip", a->loc);
            for (int j = 1; j < a->args.len; j++) {
                const char *nj = arena_printf(I->a, "%s.%d", nm, j);
                vec_push(I->a, &sub->args, name_node(I, nj, loc));
                vec_push(I->a, &f_call->args, name_node(I, nj, loc));
                vec_push(I->a, &zip->args, VEC_AT(a->args, j));
            }
            vec_push(I->a, &items->args, sub);
            VEC_AT(call->args, i) = zip;
        }
        vec_push(I->a, &value->args, f_call);
    }
    Node *as = ast_new(I->a, N_ASSIGN, n->a->loc);
    vec_push(I->a, &as->targets, n->a);
    as->a = value;
    PtrVec body = {0};
    vec_push(I->a, &body, as);
    for (int i = 0; i < n->body.len; i++)
        vec_push(I->a, &body, VEC_AT(n->body, i));
    n->a = items;
    n->body = body;
    *done = true;
    return true;
}

/* ---- generators ---- */

static bool rewrite_gen(Inf *I, Node *n, int func) {
    Node *call = n->b;
    const HjFunction *hf = &I->c->req->funcs[func];
    if (++I->ngen_inline > 256)
        return UNSUP(I, call, "more than 256 generator loops inlined into one function (a recursive "
                              "generator?) are not supported by hpcjit"), false;
    Node *decl = fresh_decl(I, func);
    if (!decl)
        return false;
    int np = decl->params.len;
    Node **sl = arena_alloc(I->a, sizeof(Node *) * (size_t)(np + 1));
    if (call->args.len > np)
        return TYPING(I, call, "%s() takes %d argument%s but %d were given", hf->name, np, np == 1 ? "" : "s",
                      call->args.len), false;
    for (int i = 0; i < call->args.len; i++)
        sl[i] = VEC_AT(call->args, i);
    for (int k = 0; k < call->keywords.len; k++) {
        Node *kw = VEC_AT(call->keywords, k);
        int i = 0;
        while (i < np && (!kw->name || strcmp(((Node *)VEC_AT(decl->params, i))->name, kw->name) != 0))
            i++;
        if (i == np)
            return TYPING(I, kw, "%s() got an unexpected keyword argument '%s'", hf->name,
                          kw->name ? kw->name : "**"), false;
        if (sl[i])
            return TYPING(I, kw, "%s() got multiple values for argument '%s'", hf->name, kw->name), false;
        sl[i] = kw->a;
    }
    const char *suffix = arena_printf(I->a, "g%d.%d.%d", call->loc.line, call->loc.col, I->nrewrites++);
    Names m = {0};
    for (int i = 0; i < np; i++) {
        Node *p = VEC_AT(decl->params, i);
        if (p->is_star || p->is_kwstar)
            return UNSUP(I, p, "*args and **kwargs parameters are not supported by hpcjit"), false;
        names_add(I, &m, p->name, arena_printf(I->a, "%s$%s", p->name, suffix));
    }
    bound_vec(I, &m, &decl->body, suffix);
    Rewrite r = {&m, hf, true};
    PtrVec fin = {0};
    for (int i = 0; i < np; i++) { /* $p = argument (or the default) */
        Node *p = VEC_AT(decl->params, i);
        Node *v = sl[i];
        if (!v) {
            if (!p->a)
                return TYPING(I, call, "%s() missing required argument '%s'", hf->name, p->name), false;
            v = ast_clone(I->a, p->a);
            rename(&(Rewrite){&(Names){0}, hf, false}, v);
        }
        Node *as = ast_new(I->a, N_ASSIGN, v->loc);
        vec_push(I->a, &as->targets, name_node(I, names_get(&m, p->name), p->loc));
        as->a = v;
        vec_push(I->a, &fin, as);
    }
    rename_vec(&r, &decl->body);
    for (int i = 0; i < decl->body.len; i++)
        vec_push(I->a, &fin, VEC_AT(decl->body, i));
    n->is_from = 1;
    n->finalbody = fin;
    return true;
}

/* Give every `yield` statement of an inlined generator body its copy of
 * the consumer's body (not into loops inlined inside it: those have their
 * own). */
static bool attach_bodies(Inf *I, Node *loop, Node *n, int in_try) {
    if (!n)
        return true;
    if (n->kind == N_FUNCDEF || n->kind == N_LAMBDA)
        return true;
    if (n->kind == N_EXPR && n->a && n->a->kind == N_YIELD) {
        Node *y = n->a;
        if (y->is_from)
            return UNSUP(I, y, "'yield from' is not supported by hpcjit"), false;
        /* the loop body runs in place of the yield: the try would catch
         * its exceptions, which Python does not */
        if (in_try)
            return UNSUP(I, y, "'yield' inside a 'try' statement is not supported by hpcjit"), false;
        y->body = (PtrVec){0};
        for (int i = 0; i < loop->body.len; i++)
            vec_push(I->a, &y->body, ast_clone(I->a, VEC_AT(loop->body, i)));
        y->lower_data = NULL;
        return true;
    }
    if (n->kind == N_YIELD)
        return UNSUP(I, n, "the value of a 'yield' expression (send()) is not supported by hpcjit; "
                           "'yield' must be a statement of its own"), false;
    in_try += n->kind == N_TRY;
    if (!attach_bodies(I, loop, n->a, in_try) || !attach_bodies(I, loop, n->b, in_try) ||
        !attach_bodies(I, loop, n->c, in_try))
        return false;
    PtrVec *lists[] = {&n->body, &n->orelse, &n->finalbody, &n->handlers, &n->args, &n->args2, &n->keywords};
    for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++)
        for (int i = 0; i < lists[k]->len; i++)
            if (!attach_bodies(I, loop, VEC_AT(*lists[k], i), in_try))
                return false;
    return true;
}

/* The body of a generator function lowered as a coroutine (Spec.is_gen):
 * every yield a statement of its own, none of them `yield from` or inside
 * a try with a finally clause (an abandoned generator object is destroyed
 * without running the clause, where CPython runs it). */
static bool check_gen_yields(Inf *I, Node *n, int in_fin) {
    if (!n || n->kind == N_FUNCDEF || n->kind == N_LAMBDA)
        return true;
    if (n->kind == N_EXPR && n->a && n->a->kind == N_YIELD) {
        Node *y = n->a;
        if (y->is_from)
            return UNSUP(I, y, "'yield from' is not supported by hpcjit"), false;
        if (in_fin)
            return UNSUP(I, y, "'yield' inside a 'try' statement with a 'finally' clause is not supported by "
                               "hpcjit (the clause would not run when the generator is abandoned)"), false;
        return !y->a || check_gen_yields(I, y->a, in_fin);
    }
    if (n->kind == N_YIELD)
        return UNSUP(I, n, n->is_from ? "'yield from' is not supported by hpcjit"
                                      : "the value of a 'yield' expression (send()) is not supported by hpcjit; "
                                        "'yield' must be a statement of its own"), false;
    int fin = in_fin + (n->kind == N_TRY && n->finalbody.len > 0);
    if (!check_gen_yields(I, n->a, in_fin) || !check_gen_yields(I, n->b, in_fin) ||
        !check_gen_yields(I, n->c, in_fin))
        return false;
    for (int i = 0; i < n->body.len; i++)
        if (!check_gen_yields(I, VEC_AT(n->body, i), fin))
            return false;
    for (int i = 0; i < n->handlers.len; i++)
        if (!check_gen_yields(I, VEC_AT(n->handlers, i), fin))
            return false;
    PtrVec *lists[] = {&n->orelse, &n->finalbody, &n->args, &n->args2, &n->keywords};
    for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++)
        for (int i = 0; i < lists[k]->len; i++)
            if (!check_gen_yields(I, VEC_AT(*lists[k], i), k <= 1 ? fin : in_fin))
                return false;
    return true;
}

bool infer_check_gen_body(Inf *I, Node *decl) {
    for (int i = 0; i < decl->body.len; i++)
        if (!check_gen_yields(I, VEC_AT(decl->body, i), 0))
            return false;
    return true;
}

/* What keeps a generator out of the consumer's loop: a call of itself
 * (its inlined copies would never end) or a yield inside a try statement
 * (the try would catch the loop body's exceptions).  Such a loop iterates
 * a generator object instead (lower_gen.c). */
static bool not_inlinable(Inf *I, const Node *n, int func, int in_try) {
    if (!n || n->kind == N_FUNCDEF || n->kind == N_LAMBDA)
        return false;
    if (n->kind == N_YIELD && in_try)
        return true;
    if (n->kind == N_CALL && n->a && n->a->kind == N_NAME) {
        const HjEnvEntry *e = infer_env_find(&I->c->req->funcs[func], n->a->name);
        if (e && e->kind == HJ_ENV_FUNC && e->func == func)
            return true;
    }
    in_try += n->kind == N_TRY;
    if (not_inlinable(I, n->a, func, in_try) || not_inlinable(I, n->b, func, in_try) ||
        not_inlinable(I, n->c, func, in_try))
        return true;
    const PtrVec *lists[] = {&n->body, &n->orelse, &n->finalbody, &n->handlers, &n->args, &n->args2, &n->keywords};
    for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++)
        for (int i = 0; i < lists[k]->len; i++)
            if (not_inlinable(I, VEC_AT(*lists[k], i), func, in_try))
                return true;
    return false;
}

static bool inlinable(Inf *I, int func) {
    const Node *decl = infer_func_decl(I->c, func);
    if (!decl)
        return false;
    for (int i = 0; i < decl->body.len; i++)
        if (not_inlinable(I, VEC_AT(decl->body, i), func, 0))
            return false;
    return true;
}

bool infer_rewrite_for(Inf *I, Node *n) {
    for (int guard = 0; guard < 64; guard++) {
        int func = -1;
        switch (iter_kind(I, n->b, &func)) {
        case ITER_MAP:
        case ITER_FILTER:
            if (!rewrite_map(I, n, iter_kind(I, n->b, &func) == ITER_FILTER))
                return false;
            continue; /* map(f, filter(g, a)) */
        case ITER_UNROLL:
            n->is_star = 1;
            return true;
        case ITER_ZIP:
        case ITER_ENUMERATE: {
            bool done = false;
            if (!rewrite_zip_map(I, n, &done))
                return false;
            if (done)
                continue; /* zip(map(f, a), map(g, b)) */
            return true;
        }
        case ITER_GEN:
            if (!inlinable(I, func))
                return true; /* a loop over the generator object of the call */
            if (!rewrite_gen(I, n, func))
                return false;
            for (int i = 0; i < n->finalbody.len; i++)
                if (!attach_bodies(I, n, VEC_AT(n->finalbody, i), 0))
                    return false;
            n->body = (PtrVec){0}; /* only its copies at the yields run */
            return true;
        default:
            return true;
        }
    }
    return true;
}

/* list(gen(n)), set(gen(n)), sum/min/max/sorted(gen(n)): the generator
 * consumed by a comprehension's loop, [v for v in gen(n)] (a set
 * comprehension for set()), which list() / set() then is.  The same for
 * map(), filter(), zip() and enumerate() calls, and dict() of any of them
 * is the dict comprehension {k: v for k, v in zip(a, b)}. */
void infer_rewrite_gen_arg(Inf *I, Node **pn) {
    Node *n = *pn;
    int func = -1;
    if (n->kind != N_CALL || n->args.len != 1 || n->a->kind != N_NAME || n->has_star ||
        infer_is_local(I, n->a->name))
        return;
    const HjEnvEntry *e = infer_env_find(env_of(I, n->a), n->a->name);
    if (!e || e->kind != HJ_ENV_BUILTIN)
        return;
    int id = builtin_lookup(e->qualname);
    bool is_dict = id == builtin_lookup("builtins.dict");
    bool whole = id == builtin_lookup("builtins.list") || id == builtin_lookup("builtins.set") || is_dict;
    if (!whole && id != BI_SUM && id != BI_MIN && id != BI_MAX && id != builtin_lookup("builtins.sorted"))
        return;
    Node *g = VEC_AT(n->args, 0);
    switch (iter_kind(I, g, &func)) {
    case ITER_GEN: case ITER_MAP: case ITER_FILTER: case ITER_ZIP: case ITER_ENUMERATE:
        break; /* map, filter, zip, enumerate: the comprehension's loop rewrites them (infer_rewrite_for) */
    default:
        return;
    }
    SrcLoc loc = g->loc;
    const char *v = arena_printf(I->a, "$v%d", I->nrewrites++);
    Node *comp = ast_new(I->a, N_COMP, loc);
    comp->comp_kind = is_dict ? 2 : id == builtin_lookup("builtins.set") ? 1 : 0;
    comp->a = name_node(I, v, loc);
    Node *cf = ast_new(I->a, N_COMPFOR, loc);
    cf->a = name_node(I, v, loc);
    cf->b = g;
    if (is_dict) { /* dict(zip(keys, values)): {$k: $v for $k, $v in ...} */
        const char *k = arena_printf(I->a, "$k%d", I->nrewrites++);
        cf->a = ast_new(I->a, N_TUPLE, loc);
        vec_push(I->a, &cf->a->args, name_node(I, k, loc));
        vec_push(I->a, &cf->a->args, name_node(I, v, loc));
        comp->a = name_node(I, k, loc);
        comp->b = name_node(I, v, loc);
    }
    vec_push(I->a, &comp->generators, cf);
    if (whole && n->keywords.len == 0)
        *pn = comp;
    else
        VEC_AT(n->args, 0) = comp;
}

/* ---- literal_unroll ---- */

static bool assigns(const Node *n, const char *name);

static bool assigns_vec(const PtrVec *v, const char *name) {
    for (int i = 0; i < v->len; i++)
        if (assigns(VEC_AT(*v, i), name))
            return true;
    return false;
}

/* Is `name` a target anywhere in n (assignment, augmented assignment,
 * loop, with, except, del, walrus)? */
static bool assigns(const Node *n, const char *name) {
    if (!n)
        return false;
    if ((n->kind == N_NAME) && n->name && strcmp(n->name, name) == 0)
        return false; /* a read: targets are found through their statements below */
    switch (n->kind) {
    case N_ASSIGN: case N_AUGASSIGN: case N_ANNASSIGN: case N_FOR: case N_NAMEDEXPR: case N_DEL: {
        const Node *t = n->kind == N_ASSIGN || n->kind == N_DEL ? NULL : n->a;
        if (t && t->kind == N_NAME && strcmp(t->name, name) == 0)
            return true;
        for (int i = 0; i < n->targets.len; i++) {
            const Node *tt = VEC_AT(n->targets, i);
            if (tt && tt->kind == N_NAME && strcmp(tt->name, name) == 0)
                return true;
            if (tt && (tt->kind == N_TUPLE || tt->kind == N_LIST))
                for (int j = 0; j < tt->args.len; j++) {
                    const Node *e = VEC_AT(tt->args, j);
                    if (e->kind == N_NAME && strcmp(e->name, name) == 0)
                        return true;
                }
        }
        break;
    }
    default:
        break;
    }
    return assigns(n->a, name) || assigns(n->b, name) || assigns(n->c, name) || assigns_vec(&n->body, name) ||
           assigns_vec(&n->orelse, name) || assigns_vec(&n->finalbody, name) || assigns_vec(&n->handlers, name) ||
           assigns_vec(&n->args, name) || assigns_vec(&n->targets, name);
}

static void const_reads(Node *n, const char *name, const Node *k) {
    if (!n)
        return;
    if (n->kind == N_NAME && n->name && strcmp(n->name, name) == 0) {
        SrcLoc loc = n->loc;
        *n = *k;
        n->loc = loc;
        return;
    }
    if (n->kind == N_FUNCDEF || n->kind == N_LAMBDA)
        return;
    if (n->kind == N_COMP) /* a comprehension binding the same name has its own */
        for (int i = 0; i < n->generators.len; i++) {
            const Node *g = VEC_AT(n->generators, i);
            if (g->a && g->a->kind == N_NAME && strcmp(g->a->name, name) == 0)
                return;
        }
    const_reads(n->a, name, k);
    const_reads(n->b, name, k);
    const_reads(n->c, name, k);
    /* targets: the name is read in `a[i][f] = v` (the body never assigns it) */
    PtrVec *vs[] = {&n->body, &n->orelse, &n->finalbody, &n->handlers, &n->args, &n->keywords,
                    &n->generators, &n->targets};
    for (size_t v = 0; v < sizeof vs / sizeof vs[0]; v++)
        for (int i = 0; i < vs[v]->len; i++)
            const_reads(VEC_AT(*vs[v], i), name, k);
}

void infer_unroll_const(Inf *I, Node *cp, const Node *k) {
    (void)I;
    if (!cp->a || cp->a->kind != N_NAME || k->kind != N_CONST)
        return;
    if (k->cval.kind != CVAL_STR && k->cval.kind != CVAL_INT && k->cval.kind != CVAL_BOOL)
        return;
    if (assigns_vec(&cp->body, cp->a->name))
        return;
    for (int i = 0; i < cp->body.len; i++)
        const_reads(VEC_AT(cp->body, i), cp->a->name, k);
}

bool infer_const_reads(PtrVec *body, const char *name, const Node *k) {
    if (assigns_vec(body, name))
        return false;
    for (int i = 0; i < body->len; i++)
        const_reads(VEC_AT(*body, i), name, k);
    return true;
}

bool infer_unroll_copies(Inf *I, Node *n, int count) {
    if (n->targets.len == count)
        return true;
    if (n->targets.len)
        return TYPING(I, n->b, "literal_unroll() over a tuple whose length changed while typing"), false;
    for (int k = 0; k < count; k++) {
        const char *suffix = arena_printf(I->a, "u%d.%d.%d", k, n->loc.line, n->loc.col);
        Names m = {0};
        bound_target(I, &m, n->a, suffix);
        Rewrite r = {&m, NULL, false};
        Node *cp = ast_new(I->a, N_FOR, n->loc);
        cp->a = ast_clone(I->a, n->a);
        rename(&r, cp->a);
        for (int i = 0; i < n->body.len; i++) {
            Node *s = ast_clone(I->a, VEC_AT(n->body, i));
            rename(&r, s);
            vec_push(I->a, &cp->body, s);
        }
        infer_collect_target(I, cp->a);
        vec_push(I->a, &n->targets, cp);
    }
    return true;
}
