/* infer.c - type inference: specialisations, the fixpoint over variable
 * and return types, statements and expressions.  Calls, builtins and
 * attributes are in infer_call.c.  What the tree looks like afterwards is
 * documented in docs/TYPED_AST.md. */
#include "infer.h"
#include "hpcjit/abi.h"
#include "registry.h"
#include "parallel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INFER_DEPTH 64
#define MAX_PASSES 200

Type *infer_ty(Inf *I, TyKind k) { return ty_scalar(I->tc, k); }
const char *infer_tyname(Inf *I, const Type *t) { return ty_str(I->a, t); }

static int err(Inf *I, HjDiagKind k, Node *n, const char *fmt, ...) HJ_PRINTF(4, 5);
static int err(Inf *I, HjDiagKind k, Node *n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_verror(&I->c->diag, k, n->loc, fmt, ap);
    va_end(ap);
    return -1;
}

Type *infer_fail(Inf *I, HjDiagKind k, const Node *n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_verror(&I->c->diag, k, n->loc, fmt, ap);
    va_end(ap);
    return NULL;
}

bool infer_is_value(const Type *t) {
    switch (t->kind) {
    /* str values (lib/str) and functions (first-class) are values now, and
     * modules (`m = np.linalg`; cuda.cg.this_grid()'s group, lib/cuda):
     * values with no run-time part, resolved by name */
    case TY_BUILTIN: case TY_EXC_CLASS: case TY_EXC_VALUE:
    case TY_BOUND_METHOD:
        return false;
    case TY_TUPLE:
        for (int i = 0; i < t->nelems; i++)
            if (!infer_is_value(t->elems[i]))
                return false;
        return true;
    default:
        return true;
    }
}

bool infer_check_value(Inf *I, Node *n, Type *t) {
    if (infer_is_value(t))
        return true;
    if (t->kind == TY_STRING)
        err(I, HJ_DIAG_UNSUPPORTED, n,
            "strings are not supported by hpcjit (only in print() and as raise and assert messages)");
    else if (t->kind == TY_EXC_CLASS || t->kind == TY_EXC_VALUE)
        err(I, HJ_DIAG_UNSUPPORTED, n, "exceptions can only be raised, not used as values");
    else
        err(I, HJ_DIAG_TYPING, n, "%s cannot be used as a value", infer_tyname(I, t));
    return false;
}

Node *infer_const_int(Inf *I, SrcLoc loc, int64_t v) {
    Node *k = ast_new(I->a, N_CONST, loc);
    k->cval.kind = CVAL_INT;
    k->cval.i = v;
    k->ty = infer_ty(I, TY_INT64);
    return k;
}

/* ---- casts ---- */

/* A jitted function becoming a first-class function value (TY_FUNCTION to
 * TY_FUNCPTR, `lst.append(g)` on a typed.List of FunctionType): specialised
 * for the signature's arguments; the cast's spec is that specialisation,
 * which lowering wraps in a C function (lower.c lower_cfunc_wrapper). */
static void funcptr_cast(Inf *I, Node **pn, Type *to) {
    Node *n = *pn;
    const HjFunction *hf = &I->c->req->funcs[n->ty->func];
    Node *decl = hf->stub ? NULL : infer_func_decl(I->c, n->ty->func);
    if (!decl || decl->params.len != to->nelems) {
        err(I, HJ_DIAG_TYPING, n, "%s() cannot be the first-class function %s (%s)", hf->name,
            infer_tyname(I, to), decl ? "a different number of arguments" : "not a plain jitted function");
        return;
    }
    Spec *s = infer_spec_at(I, n->loc, n->ty->func, to->elems, to->nelems);
    if (!s || !I->final)
        return;
    if (IS_UNK(s->ret) || !ty_can_convert(s->ret, to->item) || (to->item->kind == TY_NONE) != (s->ret->kind == TY_NONE)) {
        err(I, HJ_DIAG_TYPING, n, "%s() returns %s for %s, not the %s of %s", hf->name, infer_tyname(I, s->ret),
            infer_tyname(I, to), infer_tyname(I, to->item), infer_tyname(I, to));
        return;
    }
    Node *c = ast_new(I->a, N_CAST, n->loc);
    c->a = n;
    c->ty = to;
    c->spec = s;
    *pn = c;
}

void infer_cast(Inf *I, Node **pn, Type *to) {
    Node *n = *pn;
    if (n && n->ty && n->ty->kind == TY_FUNCTION && to->kind == TY_FUNCPTR) {
        funcptr_cast(I, pn, to);
        return;
    }
    if (!I->final || !n || n->ty == to)
        return;
    if (n->ty && n->ty->kind == to->kind && ty_has_unknown(n->ty) && !ty_has_unknown(to)) {
        n->ty = to; /* an empty display (`[]`) takes the type it converts to */
        return;
    }
    if (n->kind == N_TUPLE && to->kind == TY_TUPLE && to->nelems == n->args.len) {
        /* push the conversion into the literal's elements */
        for (int i = 0; i < n->args.len; i++)
            infer_cast(I, (Node **)&VEC_AT(n->args, i), to->elems[i]);
        n->ty = to;
        return;
    }
    Node *c = ast_new(I->a, N_CAST, n->loc);
    c->a = n;
    c->ty = to;
    *pn = c;
}

static bool convert_check(Inf *I, Node *n, Type *from, Type *to, const char *what) {
    if (IS_UNK(from) || IS_UNK(to) || ty_can_convert(from, to))
        return true;
    err(I, HJ_DIAG_TYPING, n, "cannot convert %s to %s for %s", infer_tyname(I, from), infer_tyname(I, to),
        what);
    return false;
}

bool infer_coerce(Inf *I, Node **pn, Type *to, const char *what) {
    Type *t = infer_expr(I, pn);
    if (!t)
        return false;
    if (!convert_check(I, *pn, t, to, what))
        return false;
    infer_cast(I, pn, to);
    return true;
}

bool infer_truth(Inf *I, Node **pn) {
    if ((*pn)->kind == N_BOOLOP) {
        /* `if lst and lst[-1] == i:` (pandas' min/max kernels): as a test,
         * each operand is a truth test of its own (Numba branches on each;
         * no value is merged, so a list beside a bool is fine) */
        Node *n = *pn;
        for (int i = 0; i < n->args.len; i++)
            if (!infer_truth(I, (Node **)&VEC_AT(n->args, i)))
                return false;
        n->ty = infer_ty(I, TY_BOOL);
        return true;
    }
    Type *t = infer_expr_opt(I, pn);
    if (!t)
        return false;
    if (IS_UNK(t))
        return true;
    Type *v = t->kind == TY_OPTIONAL ? t->base : t; /* None is false, else the value's truth */
    if (t->kind == TY_JITCLASS && infer_jc_truth(I, pn, t)) { /* obj.__bool__() or obj.__len__() */
        t = v = (*pn)->ty;
        if (!t || IS_UNK(t))
            return t != NULL;
    }
    const LibOps *own = lib_type_owner(v); /* a str, list, dict, set: nonempty */
    if (!(ty_is_number(v) || v->kind == TY_NONE || v->kind == TY_ARRAY || v->kind == TY_TUPLE ||
          (own && own->lower_len))) {
        err(I, HJ_DIAG_TYPING, *pn, "cannot use %s as a condition", infer_tyname(I, t));
        return false;
    }
    infer_cast(I, pn, infer_ty(I, TY_BOOL));
    return true;
}

/* ---- variables ---- */

static Var *find_var(Spec *s, const char *name) {
    for (int i = 0; i < s->vars.len; i++) {
        Var *v = VEC_AT(s->vars, i);
        if (strcmp(v->name, name) == 0)
            return v;
    }
    return NULL;
}

/* The type locals={...} declares for `name` (any SSA version of it), or
 * NULL.  The entries are "name\ttypecode\n" (python/compiler_ext/request.c). */
static Type *declared_type(Inf *I, const char *name) {
    const char *p = I->s->hf ? I->s->hf->options.locals : NULL;
    if (!p || !*p)
        return NULL;
    const char *src = infer_ssa_source_name(I->a, name);
    size_t len = strlen(src);
    while (*p) {
        const char *tab = strchr(p, '\t');
        if (!tab)
            return NULL;
        const char *code = tab + 1;
        if ((size_t)(tab - p) == len && strncmp(p, src, len) == 0)
            return ty_from_typecode(I->tc, &code);
        const char *nl = strchr(code, '\n');
        if (!nl)
            return NULL;
        p = nl + 1;
    }
    return NULL;
}

static Var *add_var(Inf *I, const char *name, SrcLoc loc) {
    Var *v = find_var(I->s, name);
    if (v)
        return v;
    v = arena_alloc(I->a, sizeof *v);
    v->name = name;
    v->decl = declared_type(I, name);
    v->ty = v->decl ? v->decl : TY_UNK(I);
    v->first_def = loc;
    v->param_index = -1;
    vec_push(I->a, &I->s->vars, v);
    return v;
}

/* Give `v` the unification of its type and `t`. */
static bool var_assign(Inf *I, Node *at, Var *v, Type *t) {
    if (!infer_check_value(I, at, t))
        return false;
    if (v->decl) /* locals={...}: the assignment converts (convert_check says if it can) */
        return true;
    Type *u = ty_unify(I->tc, v->ty, t);
    if (!u) {
        err(I, HJ_DIAG_TYPING, at, "cannot unify %s and %s for variable '%s'", infer_tyname(I, v->ty),
            infer_tyname(I, t), infer_ssa_source_name(I->a, v->name));
        return false;
    }
    if (u != v->ty) {
        if (ty_depth(u) > TY_MAX_DEPTH && v->ty->kind != TY_UNKNOWN && ty_depth(u) > ty_depth(v->ty)) {
            /* `d[k] = d`, `l.append(l)`, `t = (t, x)` in a loop: one level
             * more each pass, which would end only at MAX_PASSES */
            err(I, HJ_DIAG_TYPING, at,
                "the type of '%s' nests more than %d levels deep and grows with each pass of type "
                "inference: does a container or tuple hold itself?",
                infer_ssa_source_name(I->a, v->name), TY_MAX_DEPTH);
            return false;
        }
        v->ty = u;
        I->changed = true;
    }
    return true;
}

/* v and the variables it shares its container with take t (an append
 * through either fills the same list). */
static bool widen(Inf *I, Node *at, Var *v, Type *t) {
    if (!var_assign(I, at, v, t))
        return false;
    for (int i = 0; i < v->shares.len; i++) {
        Var *o = VEC_AT(v->shares, i);
        if (o->ty != v->ty && ty_has_unknown(o->ty) && !widen(I, at, o, v->ty))
            return false;
    }
    return true;
}

bool infer_widen_var(Inf *I, Node *at, Node *name, Type *t) {
    if (!name || name->kind != N_NAME)
        return true;
    Var *v = name->var ? name->var : find_var(I->s, name->name);
    return !v || widen(I, at, v, t);
}

/* `b = acc` with acc's items unknown yet: what fills b fills acc (and b
 * may hold other lists too: they all have one type). */
static bool note_share(Inf *I, Node *t, const Node *value, Type *vt, Node *at) {
    if (t->kind != N_NAME || !t->var || value->kind != N_NAME || !ty_has_unknown(vt))
        return true;
    Var *src = value->var ? value->var : find_var(I->s, value->name);
    if (!src || src == t->var)
        return true;
    bool known = false;
    for (int i = 0; i < t->var->shares.len; i++)
        known = known || VEC_AT(t->var->shares, i) == src;
    if (!known) {
        vec_push(I->a, &t->var->shares, src);
        vec_push(I->a, &src->shares, t->var); /* both ways: acc.append(x) fixes b too */
    }
    return src->ty == t->var->ty || !ty_has_unknown(src->ty) || widen(I, at, src, t->var->ty);
}

/* ---- names declared by assignment ---- */

bool infer_is_local(Inf *I, const char *name) { return find_var(I->s, name) != NULL; }

Type *infer_param_type(Inf *I, const char *name) {
    Var *v = find_var(I->s, name);
    return v && v->is_param ? v->ty : NULL;
}

static void collect_target(Inf *I, Node *t);
void infer_collect_target(Inf *I, Node *t) { collect_target(I, t); }

static void collect_target(Inf *I, Node *t) {
    if (!t)
        return;
    if (t->kind == N_NAME)
        add_var(I, t->name, t->loc);
    else if (t->kind == N_TUPLE || t->kind == N_LIST)
        for (int i = 0; i < t->args.len; i++)
            collect_target(I, VEC_AT(t->args, i));
    else if (t->kind == N_STARRED)
        collect_target(I, t->a);
}

static void collect_vec(Inf *I, PtrVec *v);

static void collect(Inf *I, Node *n) {
    if (!n)
        return;
    /* list(gen(n)), sum(gen(n)), ...: a comprehension consuming the generator */
    Node **kids[3] = {&n->a, &n->b, &n->c};
    for (int i = 0; i < 3; i++)
        if (*kids[i] && (*kids[i])->kind == N_CALL)
            infer_rewrite_gen_arg(I, kids[i]);
    for (int i = 0; i < n->args.len; i++)
        if (VEC_AT(n->args, i) && ((Node *)VEC_AT(n->args, i))->kind == N_CALL)
            infer_rewrite_gen_arg(I, (Node **)&VEC_AT(n->args, i));
    switch (n->kind) {
    case N_ASSIGN:
        for (int i = 0; i < n->targets.len; i++)
            collect_target(I, VEC_AT(n->targets, i));
        collect(I, n->a);
        return;
    case N_AUGASSIGN:
    case N_ANNASSIGN:
        collect_target(I, n->a);
        collect(I, n->b);
        collect(I, n->c);
        return;
    case N_FOR:
        if (!n->is_from && !n->is_star && !infer_rewrite_for(I, n)) /* map, filter, generators */
            return;
        if (!n->is_star) /* literal_unroll: each copy has its own (infer_unroll_copies) */
            collect_target(I, n->a);
        break;
    case N_NAMEDEXPR:
        collect_target(I, n->a);
        break;
    case N_FUNCDEF:
    case N_CLASSDEF:
    case N_LAMBDA:
        return; /* refused before typing */
    case N_COMP: /* a list comprehension: a loop appending to a hidden list */
        infer_desugar_comp(I, n);
        break;
    default:
        break;
    }
    collect(I, n->a);
    collect(I, n->b);
    collect(I, n->c);
    collect_vec(I, &n->body);
    collect_vec(I, &n->orelse);
    collect_vec(I, &n->finalbody);
    collect_vec(I, &n->handlers);
    collect_vec(I, &n->args);
    collect_vec(I, &n->args2);
    collect_vec(I, &n->keywords);
}

static void collect_vec(Inf *I, PtrVec *v) {
    for (int i = 0; i < v->len; i++)
        collect(I, VEC_AT(*v, i));
}

/* ---- constructs refused before typing ---- */

static const char *unsupported_what(const Node *n, bool top) {
    switch (n->kind) {
    case N_FUNCDEF:
        if (!top)
            return "nested function definitions are";
        return n->is_async ? "async functions are" : NULL;
    case N_GLOBAL: return "'global' statements are";
    case N_NONLOCAL: return "'nonlocal' statements are";
    case N_WITH: return n->is_async ? "'async with' statements are" : "'with' statements are";
    case N_CLASSDEF: return "class definitions are";
    case N_MATCH: return "'match' statements are";
    case N_LAMBDA: return "lambda expressions are";
    case N_COMP:
        switch (n->comp_kind) {
        case 0:
        case 1:
        case 2: return NULL; /* a loop (infer_comp.c) */
        default: return "generator expressions are";
        }
    case N_YIELD: return NULL; /* a generator: inlined into the loops consuming it (infer_unroll.c) */
    case N_AWAIT: return "'await' expressions are";
    case N_FOR: return n->is_async ? "'async for' loops are" : NULL;
    case N_STARRED: return "star-expressions are";
    case N_AUGASSIGN: return n->op == OP_MATMUL ? "the matrix multiplication operator '@=' is" : NULL;
    default:
        return NULL;
    }
}

static bool check_vec(Inf *I, PtrVec *v);
static bool check_supported(Inf *I, Node *n, bool top);

static bool check_call_arg(Inf *I, Node *e) {
    if (e->kind == N_STARRED) /* f(*t): t's items (infer_call.c) */
        return check_call_arg(I, e->a);
    if (e->kind != N_LIST && e->kind != N_TUPLE)
        return check_supported(I, e, false);
    for (int i = 0; i < e->args.len; i++)
        if (!check_call_arg(I, VEC_AT(e->args, i)))
            return false;
    return true;
}

/* `sum(x * x for x in a)`: a generator expression that is the one argument
 * of a builtin consuming its iterable whole (sum, min, max, sorted, list,
 * set, tuple, any, all) is that builtin over a list (set) comprehension,
 * as hpcjit consumes generator calls there (infer_unroll.c).  any() and
 * all() then see every item computed, not only up to the first answer. */
static void genexpr_as_comprehension(Inf *I, Node *call) {
    static const char *const consumers[] = {"sum", "min", "max", "sorted", "list", "set", "tuple", "any", "all"};
    if (call->args.len != 1)
        return;
    Node *g = VEC_AT(call->args, 0);
    if (g->kind != N_COMP || g->comp_kind != 3)
        return;
    if (call->a->kind == N_ATTRIBUTE && strcmp(call->a->name, "join") == 0) { /* ", ".join(str(x) for x in a) */
        g->comp_kind = 0;
        return;
    }
    if (call->a->kind != N_NAME)
        return;
    const char *name = call->a->name;
    const HjEnvEntry *e = infer_env_lookup(I, name);
    if (!e)
        return;
    for (size_t i = 0; i < sizeof consumers / sizeof consumers[0]; i++) {
        if (strcmp(consumers[i], name) != 0)
            continue;
        bool builtin = e->kind == HJ_ENV_BUILTIN && e->qualname && strncmp(e->qualname, "builtins.", 9) == 0 &&
                       strcmp(e->qualname + 9, name) == 0;
        bool lib = e->kind == HJ_ENV_FUNC && (strcmp(name, "any") == 0 || strcmp(name, "all") == 0);
        if (builtin || lib)
            g->comp_kind = strcmp(name, "set") == 0 ? 1 : 0;
        return;
    }
}

/* `import numpy as np`, `from math import sqrt, pi as PI`: the names are
 * bound as globals of the whole function (compiler.py _import_bindings
 * gives their env entries, as for a global module or function), and the
 * statement becomes a `pass`.  A name with no usable entry (a module
 * hpcjit cannot import, a name the module lacks) is refused here. */
static bool check_import(Inf *I, Node *n) {
    for (int i = 0; i < n->names.len; i++) {
        const char *nm = VEC_AT(n->names, i);
        const char *alias = i < n->aliases.len ? VEC_AT(n->aliases, i) : NULL;
        const char *mod = n->is_from ? n->name : nm;
        if (n->is_from && strcmp(nm, "*") == 0) {
            err(I, HJ_DIAG_UNSUPPORTED, n, "'from %s import *' is not supported by hpcjit (name the imported "
                "objects)", mod);
            return false;
        }
        if (mod[0] == '.') {
            err(I, HJ_DIAG_UNSUPPORTED, n, "the relative import of '%s' is not supported by hpcjit", mod);
            return false;
        }
        const char *bound = alias;
        if (!bound && n->is_from)
            bound = nm;
        if (!bound) { /* `import a.b` binds a */
            const char *dot = strchr(nm, '.');
            bound = dot ? arena_strndup(I->a, nm, (size_t)(dot - nm)) : nm;
        }
        const HjEnvEntry *e = infer_env_lookup(I, bound);
        const char *what = n->is_from ? arena_printf(I->a, "'%s' from module '%s'", nm, mod)
                                      : arena_printf(I->a, "module '%s'", nm);
        if (!e) {
            err(I, HJ_DIAG_UNSUPPORTED, n, "import of %s is not supported by hpcjit (the compiler knows no "
                "such module or object)", what);
            return false;
        }
        if (e->kind == HJ_ENV_OTHER) {
            err(I, HJ_DIAG_UNSUPPORTED, n, "import of %s is not supported by hpcjit: %s", what,
                e->qualname ? e->qualname : "an object it cannot use");
            return false;
        }
    }
    n->kind = N_PASS;
    return true;
}

static bool check_supported(Inf *I, Node *n, bool top) {
    if (!n)
        return true;
    if (n->kind == N_IMPORT)
        return check_import(I, n);
    if (n->kind == N_CALL)
        genexpr_as_comprehension(I, n);
    const char *what = unsupported_what(n, top);
    if (what && n->kind == N_WITH && infer_ssa_is_chunksize_with(I, n)) /* rewritten (infer_ssa.c) */
        return check_supported(I, VEC_AT(n->args, 0), false) && check_vec(I, &n->body);
    if (what) {
        err(I, HJ_DIAG_UNSUPPORTED, n, "%s not supported by hpcjit", what);
        return false;
    }
    if (n->kind == N_FUNCDEF) {
        for (int i = 0; i < n->params.len; i++) {
            Node *p = VEC_AT(n->params, i);
            if (p->is_kwstar) { /* *args is a tuple parameter (the dispatcher and calls pack it) */
                err(I, HJ_DIAG_UNSUPPORTED, p, "**kwargs parameters are not supported by hpcjit");
                return false;
            }
        }
        return check_vec(I, &n->body);
    }
    if (n->kind == N_CALL) {
        /* list literals pass as call arguments: np.array([[1, 2], [3, 4]]);
         * anywhere else (and in other calls) inference refuses them */
        if (!check_supported(I, n->a, false))
            return false;
        for (int i = 0; i < n->args.len; i++)
            if (!check_call_arg(I, VEC_AT(n->args, i)))
                return false;
        for (int i = 0; i < n->keywords.len; i++) {
            Node *k = VEC_AT(n->keywords, i);
            if (k->name && !check_call_arg(I, k->a))
                return false;
        }
    }
    if (n->kind == N_CALL && n->keywords.len) {
        for (int i = 0; i < n->keywords.len; i++) {
            Node *k = VEC_AT(n->keywords, i);
            if (!k->name) {
                err(I, HJ_DIAG_UNSUPPORTED, k, "star-arguments in calls are not supported by hpcjit");
                return false;
            }
        }
    }
    if (n->kind == N_CALL)
        return true;
    return check_supported(I, n->a, false) && check_supported(I, n->b, false) &&
           check_supported(I, n->c, false) && check_vec(I, &n->body) &&
           check_vec(I, &n->orelse) && check_vec(I, &n->finalbody) && check_vec(I, &n->handlers) &&
           check_vec(I, &n->args) && check_vec(I, &n->args2) && check_vec(I, &n->keywords) &&
           check_vec(I, &n->targets) && check_vec(I, &n->generators);
}

static bool check_vec(Inf *I, PtrVec *v) {
    for (int i = 0; i < v->len; i++)
        if (!check_supported(I, VEC_AT(*v, i), false))
            return false;
    return true;
}

/* ---- names ---- */

static const HjEnvEntry *env_find(const HjFunction *hf, const char *name);
const HjEnvEntry *infer_env_find(const HjFunction *hf, const char *name) { return env_find(hf, name); }

/* An array inside a global tuple, by the name compiler.py gave it ("$array:..."). */
static const HjEnvEntry *tuple_array(const HjEnvEntry *env, int n, const char *name) {
    for (int i = 0; i < n; i++) {
        if (env[i].kind == HJ_ENV_ARRAY && env[i].name && strcmp(env[i].name, name) == 0)
            return &env[i];
        const HjEnvEntry *e = env[i].kind == HJ_ENV_TUPLE ? tuple_array(env[i].items, env[i].nitems, name) : NULL;
        if (e)
            return e;
    }
    return NULL;
}

static const HjEnvEntry *env_find(const HjFunction *hf, const char *name) {
    for (int i = 0; i < hf->nenv; i++)
        if (hf->env[i].name && strcmp(hf->env[i].name, name) == 0)
            return &hf->env[i];
    return strncmp(name, "$array:", 7) == 0 ? tuple_array(hf->env, hf->nenv, name) : NULL;
}

const HjEnvEntry *infer_env_lookup(Inf *I, const char *name) {
    return I->s->hf ? env_find(I->s->hf, name) : NULL;
}

static const struct {
    const char *name;
    TyKind kind;
} dtype_classes[] = {
    {"numpy.bool_", TY_BOOL},        {"numpy.bool", TY_BOOL},         {"numpy.int8", TY_INT8},
    {"numpy.int16", TY_INT16},       {"numpy.int32", TY_INT32},       {"numpy.int64", TY_INT64},
    {"numpy.uint8", TY_UINT8},       {"numpy.uint16", TY_UINT16},     {"numpy.uint32", TY_UINT32},
    {"numpy.uint64", TY_UINT64},     {"numpy.float32", TY_FLOAT32},   {"numpy.float64", TY_FLOAT64},
    {"numpy.complex64", TY_COMPLEX64}, {"numpy.complex128", TY_COMPLEX128},
    {"numpy.intp", TY_INT64},        {"numpy.uintp", TY_UINT64},      {"numpy.int_", TY_INT64},
    {"numpy.double", TY_FLOAT64},    {"numpy.single", TY_FLOAT32},    {"numpy.byte", TY_INT8},
    {"numpy.ubyte", TY_UINT8},       {"numpy.short", TY_INT16},       {"numpy.ushort", TY_UINT16},
    {"numpy.intc", TY_INT32},        {"numpy.uintc", TY_UINT32},      {"numpy.longlong", TY_INT64},
    {"numpy.ulonglong", TY_UINT64},  {"numpy.float_", TY_FLOAT64},    {"numpy.complex_", TY_COMPLEX128},
    {"numpy.cdouble", TY_COMPLEX128}, {"numpy.csingle", TY_COMPLEX64},
    {"numpy.float16", TY_FLOAT16},   {"numpy.half", TY_FLOAT16},
};

/* The type a qualified name of a builtin stands for, or NULL. */
Type *infer_qualname_type(Inf *I, const char *q, int *builtin);
Type *infer_qualname_type(Inf *I, const char *q, int *builtin) {
    int b = builtin_lookup(q);
    if (b >= 0) {
        *builtin = b;
        return ty_builtin(I->tc, b);
    }
    for (size_t i = 0; i < sizeof dtype_classes / sizeof dtype_classes[0]; i++)
        if (strcmp(dtype_classes[i].name, q) == 0)
            return ty_dtype(I->tc, infer_ty(I, dtype_classes[i].kind));
    if (strncmp(q, "$nt:", 4) == 0) /* a named tuple class (infer_namedtuple.c) */
        return infer_nt_class(I, q + 4);
    if (strncmp(q, "$jcclass:", 9) == 0) /* a jitclass (infer_jitclass.c) */
        return ty_dtype(I->tc, ty_jitclass(I->tc, (int)strtol(q + 9, NULL, 10)));
    if (strncmp(q, "hpcjit.types.$", 14) == 0) { /* a global hpcjit/Numba type object, by its typecode */
        const char *p = q + 14;
        Type *t = ty_from_typecode(I->tc, &p);
        return t && !*p ? ty_dtype(I->tc, t) : NULL;
    }
    if (strncmp(q, "$exc:", 5) == 0) /* a program's exception class (compiler.py _exc_class) */
        return ty_exc_class(I->tc, arena_strdup(I->a, q + 5));
    if (strncmp(q, "builtins.", 9) == 0) {
        const char *nm = q + 9;
        size_t n = strlen(nm);
        if ((n > 5 && strcmp(nm + n - 5, "Error") == 0) ||
            (n >= 9 && strcmp(nm + n - 9, "Exception") == 0) || strcmp(nm, "StopIteration") == 0)
            return ty_exc_class(I->tc, nm);
    }
    return NULL;
}

static Node *env_const(Inf *I, const HjEnvEntry *e, SrcLoc loc, Node *into);

/* Fill `n` (N_NAME or a fresh N_CONST) with the constant of `e`. */
static bool env_scalar(Inf *I, const HjEnvEntry *e, Node *n) {
    switch (e->kind) {
    case HJ_ENV_INT:
        n->cval.kind = e->is_bool ? CVAL_BOOL : CVAL_INT;
        n->cval.i = e->i;
        n->ty = infer_ty(I, e->is_bool ? TY_BOOL : TY_INT64);
        return true;
    case HJ_ENV_FLOAT:
        n->cval.kind = CVAL_FLOAT;
        n->cval.f = e->f;
        n->ty = infer_ty(I, TY_FLOAT64);
        return true;
    case HJ_ENV_COMPLEX:
        n->cval.kind = CVAL_COMPLEX;
        n->cval.f = e->f;
        n->cval.f_imag = e->f_imag;
        n->ty = infer_ty(I, TY_COMPLEX128);
        return true;
    case HJ_ENV_NONE:
        n->cval.kind = CVAL_NONE;
        n->ty = infer_ty(I, TY_NONE);
        return true;
    case HJ_ENV_DATETIME: { /* frozen, as Numba freezes datetime globals */
        const char *p = e->qualname;
        Type *t = p ? ty_from_typecode(I->tc, &p) : NULL;
        if (!ty_is_npdt(t))
            return false;
        n->cval.kind = CVAL_NPDT;
        n->cval.i = e->i;
        n->ty = t;
        return true;
    }
    case HJ_ENV_STR: /* a str in a global tuple: a constant (lib/str) */
        n->cval.kind = CVAL_STR;
        n->cval.s = e->qualname ? e->qualname : "";
        n->cval.slen = (int)strlen(n->cval.s);
        n->ty = infer_ty(I, TY_STRING);
        return true;
    default:
        return false;
    }
}

/* A tuple constant: an N_TUPLE of N_CONSTs (written into `into` when given). */
static Node *env_const(Inf *I, const HjEnvEntry *e, SrcLoc loc, Node *into) {
    if (e->kind == HJ_ENV_TUPLE && e->qualname && e->nitems == 1 && e->items[0].kind == HJ_ENV_INT) {
        /* an IntEnum member ("<id>:<name>:_int_", compiler.py): its int
         * constant, typed as its class (types.h ty_intenum) */
        Type *cls = infer_nt_class(I, e->qualname);
        bool flag = cls && cls->kind == TY_DTYPE && cls->dtype->nelems == 1 &&
                    strcmp(cls->dtype->fields[0], TY_INTFLAG_FIELD) == 0;
        if (cls && cls->kind == TY_DTYPE && cls->dtype->nelems == 1 &&
            (flag || strcmp(cls->dtype->fields[0], TY_INTENUM_FIELD) == 0)) {
            Node *k = into ? into : ast_new(I->a, N_CONST, loc);
            if (!env_scalar(I, &e->items[0], k))
                return NULL;
            k->ty = ty_intenum(I->tc, k->ty->kind, cls->dtype->func, cls->dtype->name, flag);
            return k;
        }
    }
    if (e->kind == HJ_ENV_TUPLE) {
        Node *t = into ? into : ast_new(I->a, N_TUPLE, loc);
        PtrVec args = {0};
        Type **el = arena_alloc(I->a, sizeof(Type *) * (size_t)(e->nitems + 1));
        for (int i = 0; i < e->nitems; i++) {
            Node *k = env_const(I, &e->items[i], loc, NULL);
            if (!k)
                return NULL;
            vec_push(I->a, &args, k);
            el[i] = k->ty;
        }
        t->kind = N_TUPLE;
        t->args = args;
        t->ty = ty_tuple(I->tc, el, e->nitems);
        if (e->qualname) { /* a named tuple or Enum member: its class (compiler.py "ntuple") */
            Type *cls = infer_nt_class(I, e->qualname);
            if (!cls || cls->kind != TY_DTYPE || cls->dtype->nelems != e->nitems)
                return NULL;
            cls = cls->dtype;
            t->ty = ty_named_tuple(I->tc, el, e->nitems, cls->func, cls->name, cls->fields);
        }
        return t;
    }
    if (e->kind == HJ_ENV_ARRAY && e->name) { /* an array in a global tuple: frozen, by the
                                                  name compiler.py gave it (lower_expr.c) */
        const char *p = e->qualname;
        Type *t = p ? ty_from_typecode(I->tc, &p) : NULL;
        if (!t || t->kind != TY_ARRAY)
            return NULL;
        Node *k = ast_new(I->a, N_NAME, loc);
        k->name = e->name;
        k->ty = t;
        return k;
    }
    Node *k = ast_new(I->a, N_CONST, loc);
    if (e->kind == HJ_ENV_FUNC) { /* a function in a global tuple: no runtime value */
        k->cval.kind = CVAL_NONE;
        k->ty = ty_function(I->tc, e->func);
        if (!k->ty->name)
            k->ty->name = I->c->req->funcs[e->func].name;
        return k;
    }
    return env_scalar(I, e, k) ? k : NULL;
}

static Type *env_name(Inf *I, Node *n, const HjEnvEntry *e) {
    const char *what = NULL;
    switch (e->kind) {
    case HJ_ENV_MODULE:
        n->ty = ty_module(I->tc, e->qualname);
        return n->ty;
    case HJ_ENV_BUILTIN: {
        int b = -1;
        Type *t = infer_qualname_type(I, e->qualname, &b);
        int stub = t ? -1 : infer_extend_named(I, e->qualname); /* overload(np.foo) */
        if (stub >= 0) {
            n->ty = ty_function(I->tc, stub);
            return n->ty;
        }
        if (!t)
            return TYPING(I, n, "untyped global name '%s': %s is not supported by hpcjit", n->name,
                          e->qualname);
        if (b >= 0)
            n->builtin = (BuiltinId)b;
        n->ty = t;
        return t;
    }
    case HJ_ENV_FUNC:
        n->ty = ty_function(I->tc, e->func);
        if (!n->ty->name) /* for messages: "function(square)" */
            n->ty->name = I->c->req->funcs[e->func].name;
        return n->ty;
    case HJ_ENV_INT: case HJ_ENV_FLOAT: case HJ_ENV_COMPLEX: case HJ_ENV_NONE:
        env_scalar(I, e, n);
        return n->ty;
    case HJ_ENV_DATETIME:
        if (!env_scalar(I, e, n))
            return TYPING(I, n, "global name '%s' is a datetime64/timedelta64 of a unit hpcjit cannot use",
                          n->name);
        return n->ty;
    case HJ_ENV_TUPLE: {
        Node *t = env_const(I, e, n->loc, I->final ? n : NULL);
        if (!t)
            return TYPING(I, n, "global name '%s' is a tuple holding values hpcjit cannot use",
                          n->name);
        n->ty = t->ty;
        return t->ty;
    }
    case HJ_ENV_ARRAY: { /* a read-only constant (lower_expr.c bakes its items in) */
        const char *p = e->qualname;
        Type *t = p ? ty_from_typecode(I->tc, &p) : NULL;
        if (!t || t->kind != TY_ARRAY)
            return TYPING(I, n, "global name '%s' is an array hpcjit cannot freeze", n->name);
        n->ty = t;
        return t;
    }
    case HJ_ENV_STR: /* frozen as a constant, as Numba does (lib/str) */
        n->cval.kind = CVAL_STR;
        n->cval.s = e->qualname ? e->qualname : "";
        n->cval.slen = (int)strlen(n->cval.s);
        n->ty = infer_ty(I, TY_STRING);
        return n->ty;
    case HJ_ENV_OTHER:
        what = e->qualname ? e->qualname : "an unsupported object";
        return TYPING(I, n, "global name '%s' is %s, which hpcjit cannot use", n->name, what);
    }
    return TYPING(I, n, "global name '%s' cannot be used", n->name);
}

static Type *name_expr(Inf *I, Node *n) {
    if (!n->var)
        n->var = find_var(I->s, n->name);
    if (n->var) {
        Type *t = n->var->ty;
        n->var->read = true;
        if (n->maybe_unbound)
            n->var->defflag = true;
        if (I->final && IS_UNK(t))
            return TYPING(I, n, "cannot determine the type of variable '%s' (is it assigned before use?)",
                          infer_ssa_source_name(I->a, n->name));
        n->ty = t;
        return t;
    }
    if (strncmp(n->name, "$q:", 3) == 0) { /* a builtin named by a rewrite (infer_unroll.c) */
        int b = -1;
        Type *t = infer_qualname_type(I, n->name + 3, &b);
        if (!t)
            return TYPING(I, n, "unknown builtin %s", n->name + 3);
        if (b >= 0)
            n->builtin = (BuiltinId)b;
        return n->ty = t;
    }
    const HjFunction *hf = n->env_hf ? n->env_hf : I->s->hf; /* an inlined generator's globals */
    const HjEnvEntry *e = hf ? env_find(hf, n->name) : NULL;
    if (!e) {
        err(I, HJ_DIAG_NAME, n, "name '%s' is not defined", n->name);
        return NULL;
    }
    return env_name(I, n, e);
}

/* `mod.attr` of a module the compiler does not know (a user's module):
 * the gatherer put its attributes that the code names in the env under
 * their qualified names (python/hpcjit/compiler.py, _env), so n (N_ATTR)
 * becomes the global name q.  False when q is not there. */
bool infer_module_env_attr(Inf *I, Node *n, const char *q, Type **out) {
    const HjFunction *hf = n->a && n->a->env_hf ? n->a->env_hf : I->s->hf;
    const HjEnvEntry *e = hf ? env_find(hf, q) : NULL;
    if (!e)
        return false;
    n->env_hf = n->a ? n->a->env_hf : NULL;
    n->kind = N_NAME;
    n->name = q;
    n->a = NULL;
    n->var = NULL;
    *out = env_name(I, n, e);
    return true;
}

/* ---- operators ---- */

static const char *op_verb(OpKind op) {
    switch (op) {
    case OP_ADD: return "add";
    case OP_SUB: return "subtract";
    case OP_MUL: return "multiply";
    case OP_DIV: return "divide";
    case OP_FLOORDIV: return "floor-divide";
    case OP_MOD: return "take the remainder of";
    case OP_POW: return "raise to a power";
    case OP_LSHIFT: return "left-shift";
    case OP_RSHIFT: return "right-shift";
    case OP_BITAND: return "bitwise-and";
    case OP_BITOR: return "bitwise-or";
    case OP_BITXOR: return "bitwise-xor";
    default: return "combine";
    }
}

Type *infer_binop_type(Inf *I, Node *at, OpKind op, Type *a, Type *b, Type **op_ty) {
    if (IS_UNK(a) || IS_UNK(b)) {
        *op_ty = TY_UNK(I);
        return TY_UNK(I);
    }
    if (!ty_is_number(a) || !ty_is_number(b)) {
        if (ty_is_array(a) || ty_is_array(b))
            return TYPING(I, at, "cannot %s %s and %s (array expressions are not supported yet)",
                          op_verb(op), infer_tyname(I, a), infer_tyname(I, b));
        return TYPING(I, at, "cannot %s %s and %s", op_verb(op), infer_tyname(I, a),
                      infer_tyname(I, b));
    }
    Type *t = ty_promote_arith(I->tc, a, b);
    bool cplx = ty_is_complex(t), flt = ty_is_float(t);
    switch (op) {
    case OP_ADD: case OP_SUB: case OP_MUL:
        *op_ty = t;
        return t;
    case OP_DIV:
        *op_ty = t;
        return (cplx || flt) ? t : infer_ty(I, TY_FLOAT64);
    case OP_FLOORDIV: case OP_MOD:
        if (cplx)
            return TYPING(I, at, "cannot %s %s and %s (complex numbers have no %s)", op_verb(op),
                          infer_tyname(I, a), infer_tyname(I, b), op == OP_MOD ? "remainder" : "floor division");
        *op_ty = t;
        return t;
    case OP_POW:
        if (a->kind == TY_FLOAT32 && ty_is_int(b))
            t = a;
        *op_ty = t;
        return t;
    case OP_LSHIFT: case OP_RSHIFT:
        if (cplx || flt)
            return TYPING(I, at, "cannot %s %s and %s (integers only)", op_verb(op), infer_tyname(I, a),
                          infer_tyname(I, b));
        t = infer_ty(I, ty_is_unsigned(a) ? TY_UINT64 : TY_INT64);
        *op_ty = t;
        return t;
    case OP_BITAND: case OP_BITOR: case OP_BITXOR:
        if (cplx || flt)
            return TYPING(I, at, "cannot %s %s and %s (integers and bools only)", op_verb(op),
                          infer_tyname(I, a), infer_tyname(I, b));
        if (a->kind == TY_BOOL && b->kind == TY_BOOL)
            t = a;
        *op_ty = t;
        /* Perm.R | Perm.W, p & 4: an IntFlag member with a member of its
         * class or an int is a member (CPython's IntFlag; Numba types
         * IntFlag arguments as plain ints); with another class's member,
         * of the left one's class (its __and__ takes any int) */
        if (ty_is_intflag(a) && ty_is_int(b))
            return a;
        if (ty_is_intflag(b) && ty_is_int(a) && !ty_is_intenum(a))
            return b;
        return t;
    default:
        return UNSUP(I, at, "operator '%s' is not supported by hpcjit", ast_op_str(op));
    }
}

/* -3, or a folded negative integer constant */
static bool negative_int_const(const Node *e) {
    if (e->kind == N_CONST)
        return e->cval.kind == CVAL_INT && e->cval.i < 0;
    return e->kind == N_UNARYOP && e->op == OP_NEG && e->a->kind == N_CONST && e->a->cval.kind == CVAL_INT &&
           e->a->cval.i > 0;
}

/* bytes and bytearray values are uint8 arrays inside, but their operators
 * are Python's (== compares, + concatenates): refused, as Numba does,
 * rather than computed elementwise. */
static bool refuse_bytes_op(Inf *I, Node *at, const Type *a, const Type *b) {
    const Type *t = a && a->kind == TY_ARRAY && a->bytes ? a : b && b->kind == TY_ARRAY && b->bytes ? b : NULL;
    if (!t)
        return false;
    UNSUP(I, at, "operators on %s are not supported by hpcjit (np.frombuffer(b, np.uint8) gives its bytes "
          "as an array)", infer_tyname(I, t));
    return true;
}

/* bytes, or a read-only 1-d uint8 array (a stepped slice of bytes). */
static bool bytes_like(const Type *t) {
    return t->kind == TY_ARRAY && t->ndim == 1 && t->dtype->kind == TY_UINT8 && (t->bytes || t->readonly);
}

static Type *binop_expr(Inf *I, Node **pn) {
    Node *n = *pn;
    Type *a = infer_expr(I, &n->a);
    Type *b = a ? infer_expr(I, &n->b) : NULL;
    if (!b || refuse_bytes_op(I, n, a, b))
        return NULL;
    const LibOps *own = lib_type_owner2(a, b); /* str + str, list * int, ... */
    if (own && own->infer_binop)
        return own->infer_binop(I, pn, a, b);
    if (!IS_UNK(a) && !IS_UNK(b) && (ty_is_array(a) || ty_is_array(b)) && n->op != OP_MATMUL)
        return infer_ae_binop(I, n, a, b);
    if (!IS_UNK(a) && !IS_UNK(b) && (ty_is_npdt(a) || ty_is_npdt(b))) { /* operands keep their units */
        Type *op_ty = NULL, *t = infer_dt_binop(I, n, n->op, a, b, &op_ty);
        if (t && ty_is_int(a) && !ty_is_npdt(a)) /* td * 3: the int as int64, as Numba */
            infer_cast(I, &n->a, infer_ty(I, TY_INT64));
        if (t && ty_is_int(b) && !ty_is_npdt(b))
            infer_cast(I, &n->b, infer_ty(I, TY_INT64));
        n->op_ty = op_ty;
        return t;
    }
    if (n->op == OP_MUL && (a->kind == TY_TUPLE) != (b->kind == TY_TUPLE)) { /* t * 3, 3 * t */
        Node *tn = a->kind == TY_TUPLE ? n->a : n->b, *kn = a->kind == TY_TUPLE ? n->b : n->a;
        Type *tt = a->kind == TY_TUPLE ? a : b;
        while (kn->kind == N_CAST)
            kn = kn->a;
        bool neg = kn->kind == N_UNARYOP && kn->op == OP_NEG && kn->a->kind == N_CONST;
        if (neg)
            kn = kn->a;
        if (ty_is_named_tuple(tt) || kn->kind != N_CONST || (kn->cval.kind != CVAL_INT && kn->cval.kind != CVAL_BOOL))
            return UNSUP(I, n, "tuple * n needs n to be an integer constant (the length is part of the "
                               "tuple's type)"), NULL;
        int64_t times = neg ? -kn->cval.i : kn->cval.i;
        if (tn->kind != N_NAME && tn->kind != N_TUPLE && tn->kind != N_CONST)
            return UNSUP(I, n, "tuple * n of an expression: bind the tuple to a name first"), NULL;
        if (times > 1024 || times * (int64_t)tt->nelems > 1024)
            return UNSUP(I, n, "tuple * n of more than 1024 items is not supported by hpcjit"), NULL;
        /* the concatenation t + t + ... of n copies (a name or a display: nothing evaluated twice
         * that could differ); () for n <= 0 */
        Node *res = ast_new(I->a, N_TUPLE, n->loc);
        for (int64_t k = 0; k < times; k++) {
            Node *cp = ast_clone_expr(I->a, tn);
            if (k == 0) {
                res = cp;
                continue;
            }
            Node *add = ast_new(I->a, N_BINOP, n->loc);
            add->op = OP_ADD;
            add->a = res;
            add->b = cp;
            res = add;
        }
        *pn = res;
        return infer_expr(I, pn);
    }
    if (n->op == OP_ADD && a->kind == TY_TUPLE && b->kind == TY_TUPLE && !ty_is_named_tuple(a) &&
        !ty_is_named_tuple(b)) { /* (1, 2) + (3,): the concatenation; op_ty stays NULL */
        Type **el = arena_alloc(I->a, sizeof(Type *) * (size_t)(a->nelems + b->nelems + 1));
        for (int i = 0; i < a->nelems; i++)
            el[i] = a->elems[i];
        for (int i = 0; i < b->nelems; i++)
            el[a->nelems + i] = b->elems[i];
        n->op_ty = NULL;
        return ty_tuple(I->tc, el, a->nelems + b->nelems);
    }
    Type *op_ty = NULL;
    Type *t = infer_binop_type(I, n, n->op, a, b, &op_ty);
    if (!t)
        return NULL;
    if (n->op == OP_POW && (ty_is_int(op_ty) || op_ty->kind == TY_BOOL) && negative_int_const(n->b)) {
        /* `x ** -2` is a float in Python; the constant exponent decides it
         * at compile time (Numba gives the integer 1 // x**2 instead) */
        op_ty = t = infer_ty(I, TY_FLOAT64);
    }
    n->op_ty = op_ty;
    infer_cast(I, &n->a, op_ty);
    if (n->op == OP_POW && ty_is_float(op_ty) && ty_is_float(a) && ty_is_int(b)) {
        /* float ** int keeps its exponent an int64: repeated squaring, as
         * Numba's int_power_impl (x ** 3 is x * (x * x), not pow()) */
        infer_cast(I, &n->b, infer_ty(I, TY_INT64));
        return t;
    }
    infer_cast(I, &n->b, op_ty);
    return t;
}

static Type *unary_expr(Inf *I, Node *n) {
    if (n->op == OP_NOT) {
        /* infer_truth types the operand once (not None is True): typing it
         * twice in the final pass retyped a view subscript (fuzz finding) */
        if (!infer_truth(I, &n->a))
            return NULL;
        n->op_ty = infer_ty(I, TY_BOOL);
        return n->op_ty;
    }
    Type *a = infer_expr(I, &n->a);
    if (!a)
        return NULL;
    if (IS_UNK(a))
        return a;
    if (a->kind == TY_JITCLASS) /* -obj: obj.__neg__() */
        return infer_jc_unary(I, n, a);
    if (refuse_bytes_op(I, n, a, NULL))
        return NULL;
    if (ty_is_array(a))
        return infer_ae_unary(I, n, a);
    if (ty_is_npdt(a))
        return n->op_ty = infer_dt_unary(I, n, n->op, a);
    if (!ty_is_number(a)) {
        if (ty_is_array(a))
            return TYPING(I, n, "cannot apply unary '%s' to %s (array expressions are not supported yet)",
                          ast_op_str(n->op), infer_tyname(I, a));
        return TYPING(I, n, "cannot apply unary '%s' to %s", ast_op_str(n->op), infer_tyname(I, a));
    }
    Type *t = a;
    if (n->op == OP_INVERT && ty_is_intflag(a)) {
        /* ~Perm.R is the member CPython makes (its class's bits, boundary
         * rules): asked of CPython at run time (lower_pyop) */
        n->op_ty = a;
        I->c->uses_pyops = true;
        return a;
    }
    if (ty_is_int(a) || a->kind == TY_BOOL) {
        if (n->op == OP_INVERT && a->kind == TY_BOOL)
            t = a;
        else
            t = infer_ty(I, ty_is_unsigned(a) ? TY_UINT64 : TY_INT64);
    } else if (n->op == OP_INVERT) {
        return TYPING(I, n, "cannot apply unary '~' to %s (integers and bools only)", infer_tyname(I, a));
    }
    n->op_ty = t;
    infer_cast(I, &n->a, t);
    return t;
}

/* A function value: one @njit function, or one of a set (TY_FUNCSET). */
static bool is_func(const Type *t) { return t->kind == TY_FUNCTION || t->kind == TY_FUNCSET; }

/* A comparison of Enum members (ty_is_enum): within one class `==`, `!=`,
 * `is`, `is not` compare the members' values (a class's members are
 * singletons with distinct values), so both operands become their value
 * and `is` becomes `==`; anything else but `is None` is a TypingError, as
 * in Numba (members of different classes are never equal).  Returns the
 * value type. */
static Type *enum_compare(Inf *I, Node *n, int i, Type *left, Type *right, Node **pr) {
    OpKind op = n->ops[i];
    bool eq = op == OP_EQ || op == OP_NE || op == OP_IS || op == OP_ISNOT;
    if (left != right || !eq)
        return TYPING(I, n, "cannot compare %s and %s with '%s'%s", infer_tyname(I, left),
                      infer_tyname(I, right), ast_op_str(op),
                      ty_is_enum(left) && ty_is_enum(right) && eq
                          ? " (members of different Enum classes are never equal)" : "");
    Node **pl = i == 0 ? &n->a : (Node **)&VEC_AT(n->args, i - 1);
    Node **ops[2] = {pl, pr};
    for (int k = 0; k < 2; k++) {
        Node *v = ast_new(I->a, N_ATTRIBUTE, (*ops[k])->loc);
        v->a = *ops[k];
        v->name = "_value_";
        *ops[k] = v;
        if (!infer_expr(I, ops[k]))
            return NULL;
    }
    if (op == OP_IS)
        n->ops[i] = OP_EQ;
    else if (op == OP_ISNOT)
        n->ops[i] = OP_NE;
    return left->elems[0];
}

static Type *compare_expr(Inf *I, Node *n) {
    Type *left = infer_expr_opt(I, &n->a);
    if (!left)
        return NULL;
    if (I->final || !n->op_tys)
        n->op_tys = arena_alloc(I->a, sizeof(Type *) * (size_t)(n->args.len + 1));
    bool unk = IS_UNK(left);
    for (int i = 0; i < n->args.len; i++) {
        Node **pr = (Node **)&VEC_AT(n->args, i);
        Type *right = infer_expr_opt(I, pr);
        if (!right)
            return NULL;
        if (n->args.len == 1 && (left->kind == TY_JITCLASS || right->kind == TY_JITCLASS) && n->ops[0] != OP_IS &&
            n->ops[0] != OP_ISNOT) /* a dunder method of the instance */
            return infer_jc_compare(I, n, left, right);
        OpKind op = n->ops[i];
        bool is_none = (op == OP_IS || op == OP_ISNOT) && (left->kind == TY_NONE || right->kind == TY_NONE);
        if ((ty_is_enum(left) || ty_is_enum(right)) && !is_none) { /* Color.RED == c, c is Color.RED */
            if (!(left = enum_compare(I, n, i, left, right, pr)))
                return NULL;
            right = left;
            op = n->ops[i];
        }
        if ((op == OP_EQ || op == OP_NE) && n->args.len == 1 && bytes_like(left) && bytes_like(right) &&
            (left->bytes || right->bytes)) {
            /* b == c of bytes (b[::2] is a read-only uint8 array): np.array_equal(b, c), the same
             * length and bytes; != negated */
            Node *call = ast_new(I->a, N_CALL, n->loc);
            call->a = ast_new(I->a, N_NAME, n->loc);
            call->a->name = "$q:numpy.array_equal";
            vec_push(I->a, &call->args, n->a);
            vec_push(I->a, &call->args, VEC_AT(n->args, 0));
            Node *res = call;
            if (op == OP_NE) {
                res = ast_new(I->a, N_UNARYOP, n->loc);
                res->op = OP_NOT;
                res->a = call;
            }
            *n = *res;
            return infer_expr_opt(I, &n);
        }
        if (op != OP_IS && op != OP_ISNOT && refuse_bytes_op(I, n, left, right))
            return NULL;
        Type *ot = NULL;
        Type *lv = left->kind == TY_OPTIONAL ? left->base : left;
        Type *rv = right->kind == TY_OPTIONAL ? right->base : right;
        if ((op == OP_EQ || op == OP_NE) && (left->kind == TY_OPTIONAL || right->kind == TY_OPTIONAL) &&
            ty_is_number(lv) && ty_is_number(rv)) {
            /* None == 3 is False, None == None True: compared with the flags */
            ot = ty_promote_arith(I->tc, lv, rv);
            if (lv->kind == TY_BOOL && rv->kind == TY_BOOL)
                ot = lv;
            n->op_tys[i] = ot;
            left = right;
            continue;
        }
        if (op != OP_IS && op != OP_ISNOT) {
            /* only `is`, `==` and `!=` see an Optional as such: elsewhere it
             * is its value */
            if (right->kind == TY_OPTIONAL) {
                infer_cast(I, pr, right->base);
                right = right->base;
            }
            if (left->kind == TY_OPTIONAL) {
                infer_cast(I, i == 0 ? &n->a : (Node **)&VEC_AT(n->args, i - 1), left->base);
                left = left->base;
            }
        }
        bool with_none = (op == OP_IS || op == OP_ISNOT) && (left->kind == TY_NONE || right->kind == TY_NONE);
        const LibOps *own = with_none ? NULL : lib_type_owner2(left, right); /* `s is None`: the core's */
        if (IS_UNK(left) || IS_UNK(right)) {
            unk = true;
            ot = TY_UNK(I);
        } else if (!own && (ty_is_npdt(left) || ty_is_npdt(right)) && !ty_is_array(left) && !ty_is_array(right)) {
            if (!(ot = infer_dt_compare(I, n, op, left, right)))
                return NULL;
        } else if (own && own->infer_compare) { /* a library type's comparison, `x in lst` */
            if (!(ot = own->infer_compare(I, n, op, left, right)))
                return NULL;
        } else if ((op == OP_IN || op == OP_NOTIN) && n->args.len == 1 && ty_is_array(right) &&
                   ((ty_is_number(left) && ty_is_number(right->dtype)) ||
                    (ty_is_npdt(left) && ty_is_npdt(right->dtype)))) {
            /* x in a: np.any(a == x), as ndarray.__contains__; the node
             * becomes that call (negated for `not in`) */
            Node *eq = ast_new(I->a, N_COMPARE, n->loc);
            eq->a = VEC_AT(n->args, 0);
            vec_push(I->a, &eq->args, n->a);
            eq->ops = arena_alloc(I->a, sizeof(OpKind));
            eq->ops[0] = OP_EQ;
            Node *call = ast_new(I->a, N_CALL, n->loc);
            call->a = ast_new(I->a, N_NAME, n->loc);
            call->a->name = "$q:numpy.any";
            vec_push(I->a, &call->args, eq);
            Node *res = call;
            if (op == OP_NOTIN) {
                res = ast_new(I->a, N_UNARYOP, n->loc);
                res->op = OP_NOT;
                res->a = call;
            }
            *n = *res;
            return infer_expr_opt(I, &n);
        } else if (op == OP_IN || op == OP_NOTIN) {
            /* x in (a, b, ...): x == a or x == b ..., compared in the
             * promotion of x with every element */
            bool ok = ty_is_number(left) && right->kind == TY_TUPLE;
            ot = left;
            for (int j = 0; ok && j < right->nelems; j++) {
                ok = ty_is_number(right->elems[j]);
                if (ok)
                    ot = ty_promote_arith(I->tc, ot, right->elems[j]);
            }
            if (!ok)
                return UNSUP(I, n, "'%s' is supported for a number and a tuple of numbers, not %s and %s",
                             ast_op_str(op), infer_tyname(I, left), infer_tyname(I, right));
        } else if (left->kind == TY_FUNCPTR && right->kind == TY_FUNCPTR &&
                   (op == OP_IS || op == OP_ISNOT || op == OP_EQ || op == OP_NE)) {
            /* f is g on first-class functions: the same address (never
             * for two signatures) */
            ot = left;
        } else if ((left->kind == TY_FUNCPTR && is_func(right)) || (is_func(left) && right->kind == TY_FUNCPTR)) {
            return UNSUP(I, n, "comparing a first-class function (%s) with the jitted function %s is not supported "
                         "(its address is made where it converts; Numba answers False)",
                         infer_tyname(I, left->kind == TY_FUNCPTR ? left : right),
                         infer_tyname(I, left->kind == TY_FUNCPTR ? right : left));
        } else if (is_func(left) && is_func(right) && op != OP_IN && op != OP_NOTIN && op != OP_LT &&
                   op != OP_LE && op != OP_GT && op != OP_GE) {
            /* dist == alternative_dot, f is g: the same function or not (a
             * constant, as Numba's; a set of functions compares its position) */
            ot = left;
        } else if ((op == OP_IS || op == OP_ISNOT) && ty_is_intenum(left) && left == right) {
            /* c is Shape.SQUARE: a class's members are singletons with
             * distinct values (an alias is the same object), so `==` */
            n->ops[i] = op = op == OP_IS ? OP_EQ : OP_NE;
            ot = ty_plain(I->tc, left);
        } else if ((op == OP_IS || op == OP_ISNOT) && (ty_is_intenum(left) || ty_is_intenum(right)) &&
                   ty_is_number(left) && ty_is_number(right)) {
            /* c is 1, c is Shape.SQUARE: a member is never the same object
             * as a plain number or another class's member (CPython's
             * False; lower_expr.c compare_one) */
            ot = left;
        } else if (op == OP_IS || op == OP_ISNOT) {
            if (left->kind == TY_NONE || right->kind == TY_NONE)
                ot = infer_ty(I, TY_NONE);
            else if (left == right && left->kind == TY_BOOL)
                ot = left;
            else
                return UNSUP(I, n, "'%s' is only supported with None (comparing %s and %s)",
                             ast_op_str(op), infer_tyname(I, left), infer_tyname(I, right));
        } else if (ty_is_array(left) || ty_is_array(right)) {
            return infer_ae_compare(I, n, left, right);
        } else if (ty_is_number(left) && ty_is_number(right)) {
            ot = ty_promote_arith(I->tc, left, right);
            if (ty_is_complex(ot) && op != OP_EQ && op != OP_NE)
                return TYPING(I, n, "cannot order complex numbers (%s %s %s)", infer_tyname(I, left),
                              ast_op_str(op), infer_tyname(I, right));
            if (left->kind == TY_BOOL && right->kind == TY_BOOL)
                ot = left;
        } else if (left->kind == TY_TUPLE && right->kind == TY_TUPLE &&
                   (ot = ty_unify(I->tc, left, right)) != NULL) {
            /* element by element (lexicographic for orderings) */
            for (int j = 0; j < ot->nelems; j++)
                if (!ty_is_number(ot->elems[j]) || (ty_is_complex(ot->elems[j]) && op != OP_EQ && op != OP_NE))
                    return TYPING(I, n, "cannot compare %s and %s with '%s'", infer_tyname(I, left),
                                  infer_tyname(I, right), ast_op_str(op));
        } else if (left->kind == TY_NONE && right->kind == TY_NONE && (op == OP_EQ || op == OP_NE)) {
            ot = left;
        } else if (left->kind == TY_DTYPE && right->kind == TY_DTYPE && (op == OP_EQ || op == OP_NE)) {
            ot = left; /* a.dtype == np.float64: decided at compile time (lower_expr.c) */
        } else {
            return TYPING(I, n, "cannot compare %s and %s with '%s'%s", infer_tyname(I, left),
                          infer_tyname(I, right), ast_op_str(op),
                          (ty_is_array(left) || ty_is_array(right))
                              ? " (array expressions are not supported yet)"
                              : "");
        }
        n->op_tys[i] = ot;
        left = right;
    }
    (void)unk;
    return infer_ty(I, TY_BOOL);
}

static Type *boolop_expr(Inf *I, Node *n) {
    Type *t = TY_UNK(I);
    for (int i = 0; i < n->args.len; i++) {
        Type *a = infer_expr_opt(I, (Node **)&VEC_AT(n->args, i));
        if (!a)
            return NULL;
        if (!IS_UNK(a) && !(ty_is_number(a) || a->kind == TY_NONE || a->kind == TY_ARRAY ||
                            a->kind == TY_TUPLE || a->kind == TY_OPTIONAL))
            return TYPING(I, VEC_AT(n->args, i), "cannot use %s in '%s'", infer_tyname(I, a),
                          n->op == OP_AND ? "and" : "or");
        Type *u = ty_unify(I->tc, t, a);
        if (!u)
            return TYPING(I, VEC_AT(n->args, i),
                          "cannot unify %s and %s in '%s' (its value is one of the operands)",
                          infer_tyname(I, t), infer_tyname(I, a), n->op == OP_AND ? "and" : "or");
        t = u;
    }
    if (!IS_UNK(t))
        for (int i = 0; i < n->args.len; i++)
            infer_cast(I, (Node **)&VEC_AT(n->args, i), t);
    return t;
}

static Type *ifexp_expr(Inf *I, Node **pn) {
    Node *n = *pn;
    if (!infer_truth(I, &n->a))
        return NULL;
    int r = infer_decided_test(I, n->a); /* `x.shape[0] if hasattr(x, "shape") else x`: the arm that runs */
    if (r >= 0) {
        *pn = r ? n->b : n->c;
        return infer_expr_opt(I, pn);
    }
    Type *b = infer_expr_opt(I, &n->b);
    Type *c = b ? infer_expr_opt(I, &n->c) : NULL;
    if (!c)
        return NULL;
    Type *t = ty_unify(I->tc, b, c);
    if (!t)
        return TYPING(I, n, "cannot unify %s and %s in a conditional expression", infer_tyname(I, b),
                      infer_tyname(I, c));
    if (!IS_UNK(t) && (!infer_check_value(I, n->b, b) || !infer_check_value(I, n->c, c)))
        return NULL;
    infer_cast(I, &n->b, t);
    infer_cast(I, &n->c, t);
    return t;
}

static Type *tuple_expr(Inf *I, Node *n) {
    Type **el = arena_alloc(I->a, sizeof(Type *) * (size_t)(n->args.len + 1));
    bool unk = false;
    for (int i = 0; i < n->args.len; i++) {
        el[i] = infer_expr_opt(I, (Node **)&VEC_AT(n->args, i));
        if (!el[i])
            return NULL;
        if (IS_UNK(el[i]))
            unk = true;
        else if (!infer_check_value(I, VEC_AT(n->args, i), el[i]))
            return NULL;
    }
    if (unk)
        return TY_UNK(I);
    Type *nt = n->ty; /* a named tuple made by its class (infer_namedtuple.c) keeps its class */
    if (ty_is_named_tuple(nt) && nt->nelems == n->args.len)
        return ty_named_tuple(I->tc, el, nt->nelems, nt->func, nt->name, nt->fields);
    return ty_tuple(I->tc, el, n->args.len);
}

/* A constant integer index (5, -1), or false. */
static bool const_index(Node *n, int64_t *v) {
    if (n->kind == N_CONST && n->cval.kind == CVAL_INT) {
        *v = n->cval.i;
        return true;
    }
    if (n->kind == N_UNARYOP && (n->op == OP_NEG || n->op == OP_POS) && n->a->kind == N_CONST &&
        n->a->cval.kind == CVAL_INT) {
        *v = n->op == OP_NEG ? -n->a->cval.i : n->a->cval.i;
        return true;
    }
    return false;
}

/* Type the index of an array subscript; returns the number of indices or -1. */
static int array_index(Inf *I, Node *n, bool *unk) {
    Node **pidx = &n->b;
    Node *idx = *pidx;
    if (idx->kind == N_TUPLE) {
        Type **el = arena_alloc(I->a, sizeof(Type *) * (size_t)(idx->args.len + 1));
        for (int i = 0; i < idx->args.len; i++) {
            Node **pe = (Node **)&VEC_AT(idx->args, i);
            if ((*pe)->kind == N_SLICE) {
                err(I, HJ_DIAG_UNSUPPORTED, *pe, "array slicing is not supported yet");
                return -1;
            }
            Type *t = infer_expr(I, pe);
            if (!t)
                return -1;
            if (IS_UNK(t)) {
                *unk = true;
            } else if (!ty_is_int(t)) {
                err(I, HJ_DIAG_TYPING, *pe, "array index must be an integer, not %s", infer_tyname(I, t));
                return -1;
            }
            infer_cast(I, pe, infer_ty(I, TY_INT64));
            el[i] = infer_ty(I, TY_INT64);
        }
        idx->ty = ty_tuple(I->tc, el, idx->args.len);
        return idx->args.len;
    }
    if (idx->kind == N_SLICE) {
        err(I, HJ_DIAG_UNSUPPORTED, idx, "array slicing is not supported yet");
        return -1;
    }
    Type *t = infer_expr(I, pidx);
    if (!t)
        return -1;
    if (IS_UNK(t)) {
        *unk = true;
        return 1;
    }
    if (t->kind == TY_TUPLE) {
        for (int i = 0; i < t->nelems; i++)
            if (!ty_is_int(t->elems[i])) {
                err(I, HJ_DIAG_TYPING, idx, "array index must be integers, not %s", infer_tyname(I, t));
                return -1;
            }
        Type **el = arena_alloc(I->a, sizeof(Type *) * (size_t)(t->nelems + 1));
        for (int i = 0; i < t->nelems; i++)
            el[i] = infer_ty(I, TY_INT64);
        infer_cast(I, pidx, ty_tuple(I->tc, el, t->nelems));
        return t->nelems;
    }
    if (!ty_is_int(t)) {
        err(I, HJ_DIAG_TYPING, idx, "array index must be an integer, not %s%s", infer_tyname(I, t),
            t->kind == TY_ARRAY ? " (fancy indexing is not supported yet)" : "");
        return -1;
    }
    infer_cast(I, pidx, infer_ty(I, TY_INT64));
    return 1;
}

/* A view of a read-only array is read-only (Numba: Array.copy keeps
 * `mutable`); `src` is the viewed operand, maybe behind casts. */
static Type *keep_readonly(Inf *I, const Node *src, Type *t) {
    if (!t || t->kind != TY_ARRAY || !src || !src->ty || src->ty->kind != TY_ARRAY || !src->ty->readonly)
        return t;
    return ty_set_readonly(I->tc, t, true);
}

/* Library builtins whose array result may share the argument's memory. */
static bool is_view_call(const Node *call, const Type *t) {
    const LibOps *ops = lib_ops(call->builtin);
    return ops && ops->is_view && ops->is_view(call, t);
}

static bool refuse_readonly_store(Inf *I, Node *at, const Type *t) {
    if (t && t->kind == TY_ARRAY && t->readonly) {
        err(I, HJ_DIAG_TYPING, at, "Cannot modify readonly array of type: %s", infer_tyname(I, t));
        return true;
    }
    return false;
}

/* A subscript at *pn (replaced by a library type's hook in the final
 * pass, as `s[i]` becoming a call); store: an assignment target. */
/* An expression that evaluating twice changes nothing: a name, an
 * attribute of one (a.shape), a constant. */
static bool pure_expr(const Node *n) {
    while (n->kind == N_ATTRIBUTE)
        n = n->a;
    return n->kind == N_NAME || n->kind == N_CONST;
}

/* A slice bound: a constant int, or absent/None (dflt). */
static bool slice_bound(const Node *b, int64_t dflt, int64_t *v) {
    if (!b || (b->kind == N_CONST && b->cval.kind == CVAL_NONE)) {
        *v = dflt;
        return true;
    }
    return const_index((Node *)b, v);
}

/* t[a:b:c] of a tuple with constant bounds (A.shape[:2], t[1:], t[::-1]):
 * the tuple of the elements it selects, Python's slice rules, rewritten
 * as a tuple display of t[i] (t is a name or an attribute: evaluated once
 * per element at no cost). */
static Type *tuple_slice(Inf *I, Node **pn, Type *base) {
    Node *n = *pn, *sl = n->b;
    int64_t len = base->nelems, step, start, stop;
    if (!slice_bound(sl->c, 1, &step))
        return UNSUP(I, sl, "tuple slices need constant bounds (the result's type depends on them)");
    if (step == 0)
        return TYPING(I, sl, "slice step cannot be zero");
    if (!slice_bound(sl->a, step > 0 ? 0 : len - 1, &start) ||
        !slice_bound(sl->b, step > 0 ? len : -len - 1, &stop))
        return UNSUP(I, sl, "tuple slices need constant bounds (the result's type depends on them)");
    if (!pure_expr(n->a))
        return UNSUP(I, n->a, "a slice of this tuple expression is not supported by hpcjit (slice a variable)");
    /* PySlice_AdjustIndices */
    if (start < 0)
        start = start + len < 0 ? (step < 0 ? -1 : 0) : start + len;
    else if (start >= len)
        start = step < 0 ? len - 1 : len;
    if (stop < 0)
        stop = stop + len < 0 ? (step < 0 ? -1 : 0) : stop + len;
    else if (stop >= len)
        stop = step < 0 ? len - 1 : len;
    Node *t = ast_new(I->a, N_TUPLE, n->loc);
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
        Node *e = ast_new(I->a, N_SUBSCRIPT, n->loc);
        e->a = ast_clone_expr(I->a, n->a);
        e->b = infer_const_int(I, sl->loc, i);
        vec_push(I->a, &t->args, e);
    }
    *pn = t;
    return infer_expr(I, pn);
}

/* a.flat[i] (subscript n) becomes $flat_view(a, i)[0], so that loads,
 * stores and a.flat[i] += v are an array element's (lib/nparray); false
 * after a diagnostic. */
static bool flat_subscript(Inf *I, Node *n) {
    if (n->kind != N_SUBSCRIPT || n->a->kind != N_ATTRIBUTE || strcmp(n->a->name, "flat") != 0)
        return true;
    if (n->b->kind == N_SLICE || n->b->kind == N_TUPLE)
        return UNSUP(I, n->b, "a.flat takes one integer index in hpcjit"), false;
    Node *v = ast_new(I->a, N_CALL, n->loc);
    v->a = ast_new(I->a, N_NAME, n->a->loc);
    v->a->name = "$q:numpy.$flat_view";
    vec_push(I->a, &v->args, n->a->a);
    vec_push(I->a, &v->args, n->b);
    n->a = v;
    n->b = infer_const_int(I, n->loc, 0);
    return true;
}

/* types.float64[:, ::1] in compiled code: the array type, as the same
 * expression gives in Python (hpcjit.types.Type.__getitem__): ':' per axis,
 * '::1' on the last (C) or the first (F) axis.  The node becomes the type
 * object a global of that type would be (hpcjit.types.$<typecode>). */
static Type *type_subscript(Inf *I, Node **pn, Type *base) {
    Node *n = *pn;
    Type *dt = base->dtype;
    if (!dt || !(ty_is_number(dt) || ty_is_record(dt)))
        return TYPING(I, n, "cannot index %s", infer_tyname(I, base));
    Node *one = n->b;
    Node **ix = n->b->kind == N_TUPLE ? (Node **)n->b->args.data : &one;
    int nd = n->b->kind == N_TUPLE ? n->b->args.len : 1;
    if (nd < 1 || nd > HJ_MAX_NDIM)
        return TYPING(I, n->b, "an array type takes 1 to %d axes, %d given", HJ_MAX_NDIM, nd);
    int unit = -1; /* the axis with '::1' */
    for (int d = 0; d < nd; d++) {
        Node *sl = ix[d];
        int64_t step = 0;
        if (sl->kind != N_SLICE || sl->a || sl->b ||
            (sl->c && !(sl->c->kind == N_CONST && sl->c->cval.kind == CVAL_INT && (step = sl->c->cval.i) == 1) &&
             !(sl->c->kind == N_CONST && sl->c->cval.kind == CVAL_NONE)))
            return TYPING(I, sl, "can only index a type with ':' or '::1'");
        if (step == 1) {
            if (unit >= 0)
                return TYPING(I, sl, "'::1' may be given on one axis only");
            unit = d;
        }
    }
    Layout lay = LAYOUT_A;
    if (unit == nd - 1)
        lay = LAYOUT_C;
    else if (unit == 0)
        lay = LAYOUT_F;
    else if (unit > 0)
        return TYPING(I, ix[unit], "'::1' must be on the first or the last axis");
    Type *at = ty_array(I->tc, dt, nd, lay);
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, "$q:hpcjit.types.$");
    ty_typecode(&b, at);
    char *q = b.oom ? NULL : arena_strdup(I->a, b.s);
    sb_free(&b);
    if (!q)
        return TYPING(I, n, "out of memory");
    Node *name = ast_new(I->a, N_NAME, n->loc);
    name->name = q;
    *pn = name;
    return infer_expr(I, pn);
}

static Type *subscript_at(Inf *I, Node **pn, bool store) {
    Node *n = *pn;
    if (!flat_subscript(I, n))
        return NULL;
    Type *base = infer_expr(I, &n->a);
    if (!base)
        return NULL;
    if (store && refuse_readonly_store(I, n, base))
        return NULL;
    if (base->kind == TY_MODULE && strncmp(base->name, "$enum:", 6) == 0) {
        /* Color['RED'], as Numba: the member named by a constant string
         * (compiler.py _env puts the members the code's strings name in the env) */
        Type *et = NULL;
        if (!store && n->b->kind == N_CONST && n->b->cval.kind == CVAL_STR &&
            infer_module_env_attr(I, n, arena_printf(I->a, "%s.%s", base->name, n->b->cval.s), &et))
            return et;
        if (store)
            return TYPING(I, n, "cannot assign to a member of the Enum class %s", base->name + 6);
        if (n->b->kind != N_CONST || n->b->cval.kind != CVAL_STR)
            return TYPING(I, n, "the Enum class %s is indexed by the name of a member as a constant str",
                          base->name + 6);
        return TYPING(I, n, "'%s' is not a member of the Enum class %s", n->b->cval.s, base->name + 6);
    }
    if (IS_UNK(base)) {
        if (n->b->kind != N_SLICE && !infer_expr(I, &n->b))
            return NULL;
        return base;
    }
    const LibOps *own = lib_type_owner(base); /* s[i], lst[1:3], d[k] */
    if (own && own->infer_subscript && !store)
        return own->infer_subscript(I, pn, base);
    if (base->kind == TY_RECORD) /* r['a1'], r[0] (infer_record.c) */
        return infer_record_subscript(I, pn, base);
    if (base->kind == TY_ARRAY && ty_is_record(base->dtype) && n->b->kind == N_CONST && n->b->cval.kind == CVAL_STR)
        return infer_record_subscript(I, pn, base); /* arr['a1']: a view of the field */
    if (base->kind == TY_ARRAY) {
        Type *xt = NULL;
        if (infer_index(I, n, base, store, &xt))
            return xt;
        bool unk = false;
        int k = array_index(I, n, &unk);
        if (k < 0)
            return NULL;
        if (unk)
            return TY_UNK(I);
        if (k > base->ndim)
            return TYPING(I, n, "too many indices for %s: %d given", infer_tyname(I, base), k);
        if (k == base->ndim)
            return base->dtype;
        if (store)
            return base->dtype; /* a[i] = x on a 2-D array fills the row with x */
        return ty_array(I->tc, base->dtype, base->ndim - k,
                        base->layout == LAYOUT_C ? LAYOUT_C : LAYOUT_A);
    }
    if (base->kind == TY_CPOINTER) { /* p[i] is $ptr_view(p, i)[0]: loads, stores, p[i] += v */
        if (n->b->kind == N_SLICE || n->b->kind == N_TUPLE)
            return TYPING(I, n->b, "a C pointer takes one integer index");
        Node *v = ast_new(I->a, N_CALL, n->loc);
        v->a = ast_new(I->a, N_NAME, n->loc);
        v->a->name = "$q:hpcjit.$ptr_view";
        vec_push(I->a, &v->args, n->a);
        vec_push(I->a, &v->args, n->b);
        n->a = v;
        n->b = infer_const_int(I, n->loc, 0);
        return subscript_at(I, pn, store);
    }
    if (base->kind == TY_TUPLE) {
        if (store)
            return TYPING(I, n, "tuples are immutable: cannot assign to an element of %s",
                          infer_tyname(I, base));
        int64_t v;
        if (n->b->kind == N_SLICE)
            return tuple_slice(I, pn, base);
        int key = infer_literal_key_index(I, n->a, n->b); /* d['a'] of a LiteralStrKeyDict */
        if (key == -2)
            return NULL;
        if (key >= 0 && key < base->nelems) {
            if (I->final)
                n->b = infer_const_int(I, n->b->loc, key);
            return base->elems[key];
        }
        if (const_index(n->b, &v)) {
            int64_t i = v < 0 ? v + base->nelems : v;
            if (i < 0 || i >= base->nelems)
                return TYPING(I, n->b, "tuple index %lld out of range for %s", (long long)v,
                              infer_tyname(I, base));
            if (I->final)
                n->b = infer_const_int(I, n->b->loc, i);
            return base->elems[i];
        }
        Type *t = infer_expr(I, &n->b);
        if (!t)
            return NULL;
        if (IS_UNK(t))
            return t;
        if (!ty_is_int(t))
            return TYPING(I, n->b, "tuple index must be an integer, not %s", infer_tyname(I, t));
        Type *fs = infer_funcs_tuple(I, base);
        if (fs) { /* funcs[i]: the tuple as one of its functions' set */
            infer_cast(I, &n->a, fs);
            base = fs;
        }
        bool uni = base->nelems > 0;
        for (int i = 1; i < base->nelems; i++)
            if (base->elems[i] != base->elems[0])
                uni = false;
        if (!uni)
            return TYPING(I, n->b, "a heterogeneous %s can only be indexed by a constant",
                          infer_tyname(I, base));
        infer_cast(I, &n->b, infer_ty(I, TY_INT64));
        return base->elems[0];
    }
    if (base->kind == TY_DTYPE && !store)
        return type_subscript(I, pn, base);
    return TYPING(I, n, "cannot index %s", infer_tyname(I, base));
}

static Type *subscript_expr(Inf *I, Node *n, bool store) { return subscript_at(I, &n, store); }

static bool stmts(Inf *I, PtrVec *v);

/* A display (`[1, 2]`): typed by the library feature that claims it. */
static Type *display_expr(Inf *I, Node **pn) {
    for (int i = 0; i < lib_feature_count(); i++) {
        const LibOps *f = lib_feature(i);
        Type *t = NULL;
        if (f->infer_display && f->infer_display(I, pn, &t))
            return t;
    }
    return UNSUP(I, *pn, "%s literals are not supported by hpcjit",
                 (*pn)->kind == N_LIST ? "list" : (*pn)->kind == N_DICT ? "dict" : "set");
}

/* An Optional(T) value used as a T: unwrapped (checked not None at run
 * time, TypeError otherwise), as Numba does. */
Type *infer_expr(Inf *I, Node **pn) {
    Type *t = infer_expr_opt(I, pn);
    if (!t || t->kind != TY_OPTIONAL)
        return t;
    infer_cast(I, pn, t->base);
    return t->base;
}

Type *infer_expr_opt(Inf *I, Node **pn) {
    Node *n = *pn;
    Type *t = NULL;
    switch (n->kind) {
    case N_NAME:
        t = name_expr(I, n);
        break;
    case N_CONST:
        switch (n->cval.kind) {
        case CVAL_INT:
            if (n->cval.overflow && n->cval.is_u64) { /* 2**63 <= v < 2**64: uint64, as Numba */
                t = infer_ty(I, TY_UINT64);
                break;
            }
            if (n->cval.overflow)
                return TYPING(I, n, "integer literal does not fit in uint64");
            t = infer_ty(I, TY_INT64);
            break;
        case CVAL_FLOAT: t = infer_ty(I, TY_FLOAT64); break;
        case CVAL_COMPLEX: t = infer_ty(I, TY_COMPLEX128); break;
        case CVAL_BOOL: t = infer_ty(I, TY_BOOL); break;
        case CVAL_NONE: t = infer_ty(I, TY_NONE); break;
        case CVAL_STR:
            if (n->cval.is_bytes) { /* a read-only bytes constant (lower_expr.c const_value) */
                t = ty_bytes(I->tc, false);
                break;
            }
            t = infer_ty(I, TY_STRING);
            break;
        case CVAL_ELLIPSIS:
            return UNSUP(I, n, "'...' is not supported by hpcjit");
        case CVAL_NPDT: /* a frozen datetime global: typed when it was made */
            t = n->ty;
            break;
        }
        break;
    case N_BINOP:
        if (n->op == OP_MATMUL) { /* np.matmul, registered by a library feature */
            t = infer_operator_call(I, pn, "operator.matmul");
            n = *pn;
            break;
        }
        t = binop_expr(I, pn);
        n = *pn;
        break;
    case N_UNARYOP: t = unary_expr(I, n); break;
    case N_COMPARE: t = compare_expr(I, n); break;
    case N_BOOLOP: t = boolop_expr(I, n); break;
    case N_IFEXP:
        t = ifexp_expr(I, pn);
        n = *pn;
        break;
    case N_TUPLE: t = tuple_expr(I, n); break;
    case N_SUBSCRIPT:
        t = subscript_at(I, pn, false);
        n = *pn;
        t = keep_readonly(I, n->a, t);
        if (t && t->kind == TY_ARRAY && t->ndim == 1 && t->layout == LAYOUT_C && n->kind == N_SUBSCRIPT &&
            n->a->ty && n->a->ty->kind == TY_ARRAY && n->a->ty->bytes && n->a->ty->readonly)
            t = n->a->ty; /* b[i:j] of bytes is bytes (a view: bytes never change); a bytearray's is a copy */
        break;
    case N_CALL:
        if (!n->a && n->call_kind == CALL_BUILTIN && n->ty) { /* made by the final pass (a feature's call): typed */
            t = n->ty;
            break;
        }
        t = infer_call(I, pn);
        n = *pn; /* may have been rewritten */
        if (t && n->kind == N_CALL && n->call_kind == CALL_BUILTIN && is_view_call(n, t))
            t = keep_readonly(I, n->self_node ? n->self_node : (n->args.len ? VEC_AT(n->args, 0) : NULL), t);
        break;
    case N_ATTRIBUTE:
        t = infer_attribute(I, n);
        t = keep_readonly(I, n->a, t);
        break;
    case N_CAST:
        if (!infer_expr(I, &n->a))
            return NULL;
        return n->ty;
    case N_ARRAYEXPR:
        return n->ty;
    case N_NAMEDEXPR: {
        Var *v = find_var(I->s, n->a->name);
        Type *vt = infer_expr(I, &n->b);
        if (!vt || !v || !var_assign(I, n, v, vt))
            return NULL;
        n->a->var = v;
        n->a->ty = v->ty;
        if (!convert_check(I, n, vt, v->ty, "the assignment"))
            return NULL;
        infer_cast(I, &n->b, v->ty);
        t = v->ty;
        break;
    }
    case N_LIST:
    case N_DICT:
    case N_SET:
        t = display_expr(I, pn);
        n = *pn;
        break;
    case N_COMP: /* desugared (infer_comp.c): its loop, then its list */
        if (I->final && n->is_from) /* typed already in this pass (the tree is final) */
            return n->ty;
        if (!stmts(I, &n->body))
            return NULL;
        t = infer_expr(I, &n->a);
        n->is_from = I->final; /* N_COMP: is_from marks a body the final pass typed */
        break;
    case N_SLICE:
        return UNSUP(I, n, "slices are only supported as indices (and not yet for arrays)");
    case N_FSTRING: /* an f-string as a str value: a call lib/str lowers */
        if (!infer_fstring(I, n))
            return NULL;
        t = infer_ty(I, TY_STRING);
        if (I->final) {
            Node *c = ast_new(I->a, N_CALL, n->loc);
            c->call_kind = CALL_BUILTIN;
            c->builtin = builtin_lookup("str.$fstring");
            vec_push(I->a, &c->args, n);
            *pn = n = c;
        }
        break;
    default:
        return UNSUP(I, n, "%s expressions are not supported by hpcjit", ast_kind_name(n->kind));
    }
    if (!t)
        return NULL;
    if (I->final && IS_UNK(t))
        return TYPING(I, n, "cannot determine the type of this expression");
    if (ty_has_float16(t) && !HJ_ENTRY_IS_CUDA(I->c->entry_kind)) /* as Numba's NotImplementedError */
        return UNSUP(I, n, "float16 is supported only in CUDA kernels and device functions, not on the CPU");
    n->ty = t;
    if (I->final && t->kind == TY_ARRAY)
        *pn = infer_ae_root(I, n); /* fused array expression */
    return t;
}

/* ---- assignment ---- */

static Type *target_type(Inf *I, Node *t) {
    switch (t->kind) {
    case N_NAME:
        if (!t->var)
            t->var = find_var(I->s, t->name);
        return t->var->ty;
    case N_SUBSCRIPT:
        return subscript_expr(I, t, true);
    case N_TUPLE:
    case N_LIST: {
        Type **el = arena_alloc(I->a, sizeof(Type *) * (size_t)(t->args.len + 1));
        for (int i = 0; i < t->args.len; i++) {
            el[i] = target_type(I, VEC_AT(t->args, i));
            if (!el[i])
                return NULL;
            if (IS_UNK(el[i]))
                return TY_UNK(I);
        }
        return ty_tuple(I->tc, el, t->args.len);
    }
    case N_ATTRIBUTE: {
        Type *bt = infer_expr(I, &t->a);
        if (bt && bt->kind == TY_RECORD) { /* r.a1 = v */
            Type *ft = infer_attribute(I, t);
            if (ft && ft->kind == TY_ARRAY)
                return UNSUP(I, t, "assigning a whole subarray field is not supported by hpcjit (assign "
                             "its elements: r.%s[:] = v)", t->name);
            return ft;
        }
        return infer_jc_target(I, t); /* obj.field = v (jitclass instances) */
    }
    default:
        return UNSUP(I, t, "cannot assign to %s", ast_kind_name(t->kind));
    }
}

/* First half of an assignment: widen the variables of target `t` with the
 * value type `vt`, checking arity. */
static bool bind_target(Inf *I, Node *t, Type *vt, Node *at) {
    if (IS_UNK(vt))
        return true;
    switch (t->kind) {
    case N_NAME:
        if (!t->var)
            t->var = find_var(I->s, t->name);
        return var_assign(I, at, t->var, vt);
    case N_TUPLE:
    case N_LIST:
        if (vt->kind != TY_TUPLE) {
            err(I, HJ_DIAG_TYPING, at, "cannot unpack %s into %d targets%s", infer_tyname(I, vt),
                t->args.len, vt->kind == TY_ARRAY ? " (only a whole target list of names and items, no *)" : "");
            return false;
        }
        if (vt->nelems != t->args.len) {
            err(I, HJ_DIAG_TYPING, at, "cannot unpack %s into %d targets (it has %d elements)",
                infer_tyname(I, vt), t->args.len, vt->nelems);
            return false;
        }
        for (int i = 0; i < t->args.len; i++)
            if (!bind_target(I, VEC_AT(t->args, i), vt->elems[i], at))
                return false;
        return true;
    case N_SUBSCRIPT:
    case N_ATTRIBUTE:
        return infer_check_value(I, at, vt);
    default:
        return true;
    }
}

/* Second half: type the targets with the variables' final types. */
static Type *settle_target(Inf *I, Node *t, Node *at) {
    Type *tt = target_type(I, t);
    if (!tt)
        return NULL;
    if (t->kind == N_TUPLE || t->kind == N_LIST)
        for (int i = 0; i < t->args.len; i++) {
            Node *e = VEC_AT(t->args, i);
            if (e->kind == N_NAME && e->var) /* no var: a name the pass did not bind (fuzz finding) */
                e->ty = e->var->ty;
        }
    t->ty = tt;
    (void)at;
    return tt;
}

/* A list or plain tuple of numbers (what np.asarray makes an array of numbers). */
static bool seq_of_numbers(const Type *t) {
    if (t->kind == TY_LIST)
        return t->item && ty_is_number(t->item);
    if (t->kind != TY_TUPLE || ty_is_named_tuple(t) || t->nelems == 0)
        return false;
    for (int i = 0; i < t->nelems; i++)
        if (!ty_is_number(t->elems[i]))
            return false;
    return true;
}

static bool assign_value(Inf *I, PtrVec *targets, Node **pv, Node *stmt) {
    Type *vt = infer_expr_opt(I, pv);
    if (!vt)
        return false;
    Node *t0 = targets->len == 1 ? VEC_AT(*targets, 0) : NULL;
    if (vt->kind == TY_ARRAY && vt->ndim > 0 && t0 && (t0->kind == N_TUPLE || t0->kind == N_LIST)) {
        bool star = false;
        for (int i = 0; i < t0->args.len; i++)
            star = star || ((Node *)VEC_AT(t0->args, i))->kind == N_STARRED;
        if (!star) { /* x, y = a: $unpack(a, 2), a tuple of a's items (lib/nparray) */
            Node *c = ast_new(I->a, N_CALL, (*pv)->loc);
            c->a = ast_new(I->a, N_NAME, (*pv)->loc);
            c->a->name = "$q:numpy.$unpack";
            vec_push(I->a, &c->args, *pv);
            vec_push(I->a, &c->args, infer_const_int(I, (*pv)->loc, t0->args.len));
            *pv = c;
            if (!(vt = infer_expr_opt(I, pv)))
                return false;
        }
    }
    if (t0 && t0->kind == N_SUBSCRIPT && seq_of_numbers(vt) && (vt->kind == TY_TUPLE || (*pv)->kind == N_LIST)) {
        /* a[i] = [x, y], a[1:3] = (x, y) into an array of numbers: the display
           or tuple as an array, copied as one (Numba's sequence source of
           setitem; numbagg's nanquantile).  A record array's element takes
           its tuple.  A list variable is not converted (np.asarray of one
           is an overload the call site must name). */
        Type *bt = infer_expr(I, &t0->a);
        if (!bt)
            return false;
        if (bt->kind == TY_ARRAY && ty_is_number(bt->dtype) && !infer_asarray_arg(I, pv, &vt))
            return false;
    }
    bool names_only = true;
    for (int i = 0; i < targets->len; i++)
        names_only = names_only && ((Node *)VEC_AT(*targets, i))->kind == N_NAME;
    Type *ft = vt->kind == TY_OPTIONAL && t0 && t0->kind == N_ATTRIBUTE ? target_type(I, t0) : NULL;
    if (vt->kind == TY_OPTIONAL && !names_only && !(ft && ft->kind == TY_OPTIONAL)) {
        infer_cast(I, pv, vt->base); /* stored into an array or unpacked: must not be None (an optional field may) */
        vt = vt->base;
    }
    if (!IS_UNK(vt) && !infer_check_value(I, *pv, vt))
        return false;
    for (int i = 0; i < targets->len; i++) {
        if (!bind_target(I, VEC_AT(*targets, i), vt, stmt))
            return false;
        if (!note_share(I, VEC_AT(*targets, i), *pv, vt, stmt))
            return false;
    }
    for (int i = 0; i < targets->len; i++) {
        Node *t = VEC_AT(*targets, i);
        if (t->kind == N_SUBSCRIPT) {
            Type *bt = flat_subscript(I, t) ? infer_expr(I, &t->a) : NULL;
            if (!bt || refuse_readonly_store(I, t, bt))
                return false;
            const LibOps *own = lib_type_owner(bt); /* lst[i] = v, d[k] = v */
            if (own && own->infer_store) {
                if (!own->infer_store(I, t, pv, vt))
                    return false;
                continue;
            }
        }
        if (targets->len == 1 && t->kind == N_SUBSCRIPT && vt->kind == TY_ARRAY) {
            int r = infer_index_store_array(I, t, pv, vt); /* infer_index.c */
            if (r >= 0)
                return r == 1;
            r = infer_ae_store(I, t, pv, vt); /* infer_arrayexpr.c */
            if (r >= 0)
                return r == 1;
        }
        Type *tt = settle_target(I, t, stmt);
        if (!tt)
            return false;
        if (!convert_check(I, *pv, vt, tt, "the assignment"))
            return false;
        if (targets->len == 1)
            infer_cast(I, pv, tt);
    }
    return true;
}

/* ---- statements ---- */

/* a[i], a[i, j] with names and constants as indices: cheap and pure, so
 * `a[i].f += v` may evaluate it twice. */
static bool simple_subscript(const Node *e) {
    if (e->kind != N_SUBSCRIPT || e->a->kind != N_NAME)
        return false;
    const Node *ix = e->b;
    if (ix->kind == N_TUPLE) {
        for (int i = 0; i < ix->args.len; i++) {
            const Node *x = VEC_AT(ix->args, i);
            if (x->kind != N_NAME && x->kind != N_CONST)
                return false;
        }
        return true;
    }
    return ix->kind == N_NAME || ix->kind == N_CONST;
}

/* NumPy's same_kind casting between dtype kinds: b < u < i < f < c, and
 * an unsigned integer may become a signed one but not the reverse. */
static int cast_kind(const Type *t) {
    if (t->kind == TY_BOOL)
        return 0;
    if (ty_is_unsigned(t))
        return 1;
    if (ty_is_int(t))
        return 2;
    return ty_is_float(t) ? 3 : 4;
}

/* `a[mask] op= v` and `a[idx] op= v` work on a copy of the selection, as in
 * NumPy: the statement becomes `a[mask] = a[mask] op v` (the read is the
 * copy of the target made before typing), with NumPy's same_kind check on
 * the in-place operation.  The index is evaluated twice, so it must be free
 * of calls. */
static bool pure_index(const Node *e) {
    if (!e)
        return true;
    if (e->kind == N_CALL || e->kind == N_NAMEDEXPR)
        return false;
    if (!pure_index(e->a) || !pure_index(e->b) || !pure_index(e->c))
        return false;
    for (int i = 0; i < e->args.len; i++)
        if (!pure_index(VEC_AT(e->args, i)))
            return false;
    return true;
}

static bool selection_augassign(Inf *I, Node *n) {
    Node *t = n->a, *rd = n->c;
    if (!pure_index(rd->a) || !pure_index(rd->b))
        return UNSUP(I, t, "augmented assignment to a masked or fancy-indexed selection needs an index "
                           "without calls (assign it to a variable first)"), false;
    Type *rt = subscript_expr(I, rd, false);
    if (!rt)
        return false;
    Type *vt = infer_expr(I, &n->b);
    if (!vt)
        return false;
    if (IS_UNK(rt) || IS_UNK(vt))
        return true;
    Node *bin = ast_new(I->a, N_BINOP, n->loc);
    bin->op = n->op;
    bin->a = rd;
    bin->b = n->b;
    Type *r = infer_expr(I, &bin);
    if (!r)
        return false;
    /* a Python int is weak (NEP 50): it adds to any integer array in place */
    int k = vt->kind == TY_ARRAY ? cast_kind(r->dtype) : ty_is_int(vt) ? 1 : cast_kind(vt);
    if (!IS_UNK(r) && r->kind == TY_ARRAY && k > cast_kind(t->a->ty->dtype))
        return TYPING(I, n, "Cannot cast ufunc '%s' output from %s to %s with casting rule 'same_kind'",
                      ast_op_str(n->op), infer_tyname(I, r->dtype), infer_tyname(I, t->a->ty->dtype)), false;
    n->kind = N_ASSIGN;
    n->targets = (PtrVec){0};
    vec_push(I->a, &n->targets, t);
    n->a = bin;
    n->b = n->c = NULL;
    n->op = OP_NONE;
    return assign_value(I, &n->targets, &n->a, n);
}

static bool stmts(Inf *I, PtrVec *v);

static bool return_stmt(Inf *I, Node *n) {
    Spec *s = I->s;
    Type *t;
    if (n->is_from) { /* ends an inlined generator: its value (StopIteration's) is dropped */
        if (!I->ngen)
            return UNSUP(I, n, "'return' of a generator outside the loop consuming it"), false;
        return !n->a || infer_expr_opt(I, &n->a) != NULL;
    }
    if (s->is_gen) /* ends a generator object's body: the value is dropped too */
        return !n->a || infer_expr_opt(I, &n->a) != NULL;
    if (n->a) {
        t = infer_expr_opt(I, &n->a);
        if (!t)
            return false;
        if (!IS_UNK(t) && !infer_check_value(I, n->a, t))
            return false;
    } else {
        t = infer_ty(I, TY_NONE);
    }
    if (s->explicit_ret) {
        if (!convert_check(I, n->a ? n->a : n, t, s->explicit_ret, "the return value"))
            return false;
    } else {
        Type *u = ty_unify(I->tc, s->ret, t);
        if (!u) {
            err(I, HJ_DIAG_TYPING, n->a ? n->a : n, "cannot unify the return types of '%s': %s and %s",
                s->hf->name, infer_tyname(I, s->ret), infer_tyname(I, t));
            return false;
        }
        if (u != s->ret) {
            s->ret = u;
            I->changed = true;
        }
    }
    if (I->final && n->a)
        infer_cast(I, &n->a, s->ret);
    return true;
}

static bool raise_stmt(Inf *I, Node *n) {
    if (!n->a && I->in_handler > 0)
        return true; /* re-raises the exception being handled */
    if (!n->a)
        return TYPING(I, n, "bare 'raise' outside an except clause: no exception to re-raise"), false;
    if (n->b)
        return UNSUP(I, n->b, "'raise ... from ...' is not supported by hpcjit"), false;
    Type *t = infer_expr(I, &n->a);
    if (!t)
        return false;
    if (t->kind != TY_EXC_CLASS && t->kind != TY_EXC_VALUE)
        return TYPING(I, n->a, "exceptions must be exception classes or instances, not %s",
                      infer_tyname(I, t)), false;
    return true;
}

static bool stmts(Inf *I, PtrVec *v);

/* The exception class names of `except T:` (T a class or a tuple of them)
 * into h->names; bare `except:` catches BaseException. */
static bool handler_types(Inf *I, Node *h) {
    h->names.len = 0;
    if (!h->a) {
        vec_push(I->a, &h->names, (void *)"BaseException");
        return true;
    }
    Node *one[1] = {h->a};
    Node **items = one;
    int n = 1;
    if (h->a->kind == N_TUPLE) {
        items = (Node **)h->a->args.data;
        n = h->a->args.len;
    }
    for (int i = 0; i < n; i++) {
        Type *t = infer_expr(I, &items[i]);
        if (!t)
            return false;
        if (t->kind != TY_EXC_CLASS || !t->name)
            return TYPING(I, items[i], "except needs an exception class (or a tuple of them), not %s",
                          infer_tyname(I, t)), false;
        vec_push(I->a, &h->names, (void *)t->name);
    }
    return true;
}

static bool has_jump(const PtrVec *v);

/* Some statement in v, at any depth, is a return. */
static bool has_return(const PtrVec *v) {
    for (int i = 0; i < v->len; i++) {
        const Node *n = VEC_AT(*v, i);
        if (n->kind == N_RETURN || has_return(&n->body) || has_return(&n->orelse) || has_return(&n->finalbody))
            return true;
        for (int j = 0; j < n->handlers.len; j++)
            if (has_return(&((const Node *)VEC_AT(n->handlers, j))->body))
                return true;
    }
    return false;
}

static bool stmt_has_jump(const Node *n) {
    switch (n->kind) {
    case N_RETURN: case N_BREAK: case N_CONTINUE: return true;
    case N_IF: case N_WITH: return has_jump(&n->body) || has_jump(&n->orelse);
    case N_TRY:
        if (has_jump(&n->body) || has_jump(&n->orelse) || has_jump(&n->finalbody))
            return true;
        for (int i = 0; i < n->handlers.len; i++)
            if (has_jump(&((Node *)VEC_AT(n->handlers, i))->body))
                return true;
        return false;
    case N_FOR: case N_WHILE: /* a break/continue there stays in the loop; a return leaves */
        return has_jump(&n->orelse) || has_return(&n->body);
    default: return false;
    }
}

static bool has_jump(const PtrVec *v) {
    for (int i = 0; i < v->len; i++)
        if (stmt_has_jump(VEC_AT(*v, i)))
            return true;
    return false;
}

/* try/except/else/finally (Numba's extent: classes or tuples of classes,
 * bare except, re-raise; no `as` binding).  A return/break/continue that
 * leaves a try with a finally clause runs the clause first (lower.c); the
 * clause itself may then not jump too. */
static bool mentions_vec(const PtrVec *v, const char *name);

/* Whether n (a statement or expression) names `name` anywhere, nested
 * functions included. */
static bool mentions(const Node *n, const char *name) {
    if (!n)
        return false;
    if (n->kind == N_NAME && n->name && strcmp(n->name, name) == 0)
        return true;
    if (n->kind == N_HANDLER && n->name && strcmp(n->name, name) == 0)
        return true;
    return mentions(n->a, name) || mentions(n->b, name) || mentions(n->c, name) || mentions_vec(&n->body, name) ||
           mentions_vec(&n->orelse, name) || mentions_vec(&n->finalbody, name) ||
           mentions_vec(&n->handlers, name) || mentions_vec(&n->args, name) || mentions_vec(&n->args2, name) ||
           mentions_vec(&n->keywords, name) || mentions_vec(&n->targets, name) ||
           mentions_vec(&n->params, name) || mentions_vec(&n->generators, name);
}

static bool mentions_vec(const PtrVec *v, const char *name) {
    for (int i = 0; i < v->len; i++)
        if (mentions(v->data[i], name))
            return true;
    return false;
}

static bool try_stmt(Inf *I, Node *n) {
    if (n->finalbody.len && has_jump(&n->finalbody)) {
        bool jump = has_jump(&n->body) || has_jump(&n->orelse);
        for (int i = 0; !jump && i < n->handlers.len; i++)
            jump = has_jump(&((Node *)VEC_AT(n->handlers, i))->body);
        if (jump)
            return UNSUP(I, n, "'return', 'break' or 'continue' in a 'finally' clause of a 'try' that "
                               "also leaves by one is not supported by hpcjit"), false;
    }
    if (!stmts(I, &n->body))
        return false;
    for (int i = 0; i < n->handlers.len; i++) {
        Node *h = VEC_AT(n->handlers, i);
        if (h->is_star)
            return UNSUP(I, h, "'except*' is not supported by hpcjit"), false;
        if (h->name && mentions_vec(&h->body, h->name))
            return UNSUP(I, h, "reading the exception bound by 'except ... as %s' is not supported by hpcjit "
                               "(Numba binds none)", h->name), false;
        h->name = NULL; /* bound and never read: nothing to bind (Python deletes it after the handler) */
        if (!handler_types(I, h))
            return false;
        I->in_handler++;
        bool ok = stmts(I, &h->body);
        I->in_handler--;
        if (!ok)
            return false;
    }
    return stmts(I, &n->orelse) && stmts(I, &n->finalbody);
}

static bool message_ok(Inf *I, Node *m) {
    if (!m)
        return true;
    if (m->kind == N_FSTRING)
        return infer_fstring(I, m); /* infer_text.c */
    if (m->kind == N_CONST && m->cval.kind == CVAL_STR && m->cval.is_bytes)
        return UNSUP(I, m, "the message must be a str"), false;
    if (m->kind != N_CONST || m->cval.kind != CVAL_STR) {
        /* a str (or any printable) value: the message is f"{m}", as str(exc) */
        Node *v = ast_new(I->a, m->kind, m->loc);
        *v = *m;
        Node *part = ast_new(I->a, N_FORMATTED, m->loc);
        part->a = v;
        SrcLoc loc = m->loc;
        memset(m, 0, sizeof *m);
        m->kind = N_FSTRING;
        m->loc = loc;
        vec_push(I->a, &m->args, part);
        return infer_fstring(I, m);
    }
    m->ty = infer_ty(I, TY_STRING);
    return true;
}

bool infer_exc_message(Inf *I, Node *m);
bool infer_exc_message(Inf *I, Node *m) { return message_ok(I, m); }

static bool stmts(Inf *I, PtrVec *v);

/* The target of a loop (or a yield feeding it) takes a value of type el. */
static bool loop_target(Inf *I, Node *t, Type *el) {
    if (!bind_target(I, t, el, t))
        return false;
    if (!IS_UNK(el)) {
        Type *tt = target_type(I, t);
        if (!tt)
            return false;
        if (!convert_check(I, t, el, tt, "the loop variable"))
            return false;
        if (t->kind == N_TUPLE || t->kind == N_LIST)
            settle_target(I, t, t);
        t->ty = el;
    }
    return true;
}

/* `yield v` of a generator function made into a generator object: the
 * yielded type is the unification of every yield's. */
static bool spec_yield(Inf *I, Node *y) {
    Spec *s = I->s;
    Node *at = y->a ? y->a : y;
    Type *t = y->a ? infer_expr_opt(I, &y->a) : infer_ty(I, TY_NONE);
    if (!t)
        return false;
    if (IS_UNK(t))
        return true;
    if (!infer_check_value(I, at, t))
        return false;
    Type *u = ty_unify(I->tc, s->yield_ty, t);
    if (!u) {
        err(I, HJ_DIAG_TYPING, at, "cannot unify the yielded types of generator '%s': %s and %s", s->hf->name,
            infer_tyname(I, s->yield_ty), infer_tyname(I, t));
        return false;
    }
    if (u != s->yield_ty) {
        s->yield_ty = u;
        s->ret = ty_generator(I->tc, u);
        I->changed = true;
    }
    if (I->final && y->a)
        infer_cast(I, &y->a, u);
    return true;
}

/* `yield v` of a generator inlined into a loop: the loop's target takes v,
 * then this yield's copy of the loop body runs (outside the generator). */
static bool yield_stmt(Inf *I, Node *y) {
    if (!I->ngen && I->s->is_gen)
        return spec_yield(I, y);
    if (!I->ngen)
        return UNSUP(I, y, "a generator can only be consumed by a for loop in compiled code (calling it "
                           "elsewhere, next() and generator objects are not supported by hpcjit)"), false;
    Node *g = I->gen_stack[I->ngen - 1];
    Type *t;
    if (y->a) {
        t = infer_expr_opt(I, &y->a);
        if (!t)
            return false;
        if (!IS_UNK(t) && !infer_check_value(I, y->a, t))
            return false;
    } else {
        t = infer_ty(I, TY_NONE);
    }
    if (!loop_target(I, g->a, t))
        return false;
    I->ngen--;
    bool ok = stmts(I, &y->body);
    I->gen_stack[I->ngen++] = g;
    return ok;
}

/* for t in literal_unroll(tup): one copy of the body per element, typed
 * with that element's type; other iterables loop as they are. */
static bool unroll_stmt(Inf *I, Node *n) {
    Node *call = n->b;
    if (call->keywords.len || call->args.len != 1)
        return TYPING(I, call, "literal_unroll() takes exactly one argument"), false;
    Type *t = infer_expr_opt(I, (Node **)&VEC_AT(call->args, 0));
    if (!t)
        return false;
    if (IS_UNK(t))
        return I->final ? (TYPING(I, call, "cannot determine the type of literal_unroll()'s argument"), false) : true;
    if (t->kind != TY_TUPLE) { /* a list, an array, a range: an ordinary loop */
        n->is_star = 0;
        n->b = VEC_AT(call->args, 0);
        infer_collect_target(I, n->a);
        return false; /* not handled */
    }
    if (t->nelems == 0)
        return TYPING(I, call, "literal_unroll() of an empty tuple"), false;
    call->ty = t;
    bool fresh = n->targets.len == 0;
    if (!infer_unroll_copies(I, n, t->nelems))
        return false;
    Node *tup = VEC_AT(call->args, 0);
    if (fresh && tup->kind == N_NAME && !tup->var) { /* a global tuple: its constants */
        const HjEnvEntry *e = infer_env_lookup(I, tup->name);
        Node *c = e && e->kind == HJ_ENV_TUPLE ? env_const(I, e, tup->loc, NULL) : NULL;
        if (c)
            tup = c;
    }
    if (fresh && tup->kind == N_TUPLE && tup->args.len == t->nelems)
        for (int k = 0; k < t->nelems; k++) /* constants stay literals (overloads see StringLiteral...) */
            infer_unroll_const(I, VEC_AT(n->targets, k), VEC_AT(tup->args, k));
    for (int k = 0; k < t->nelems; k++) {
        Node *cp = VEC_AT(n->targets, k);
        if (!loop_target(I, cp->a, t->elems[k]) || !stmts(I, &cp->body))
            return false;
    }
    return stmts(I, &n->orelse);
}

static bool for_stmt(Inf *I, Node *n) {
    if (n->is_from) { /* an inlined generator (infer_unroll.c) */
        if (I->ngen >= 64)
            return UNSUP(I, n, "generator loops nested more than 64 deep"), false;
        I->gen_stack[I->ngen++] = n;
        bool ok = stmts(I, &n->finalbody);
        I->ngen--;
        return ok && stmts(I, &n->orelse);
    }
    if (n->is_star) {
        if (unroll_stmt(I, n))
            return true;
        if (n->is_star || diag_failed(&I->c->diag))
            return false;
    }
    Type *el = infer_iter(I, &n->b);
    if (!el)
        return false;
    PtrVec one = {0};
    vec_push(I->a, &one, n->a);
    if (!bind_target(I, n->a, el, n->a))
        return false;
    if (!IS_UNK(el)) {
        Type *tt = target_type(I, n->a);
        if (!tt)
            return false;
        if (!convert_check(I, n->a, el, tt, "the loop variable"))
            return false;
        if (n->a->kind == N_TUPLE || n->a->kind == N_LIST)
            settle_target(I, n->a, n->a);
        n->a->ty = el; /* the element as the iteration produces it */
    }
    if (!stmts(I, &n->body) || !stmts(I, &n->orelse))
        return false;
    /* a library's loop (hpcjit.mpi.prange: a distributed loop) */
    if (I->final && lib_call_builtin(n->b) >= 0) {
        const LibOps *ops = lib_ops(n->b->builtin);
        if (ops && ops->infer_loop)
            return ops->infer_loop(I, n);
    }
    /* parallel=True: outline prange loops onto the pool (infer_parallel.c) */
    if (I->final && I->s->hf && I->s->hf->options.parallel && n->b->kind == N_CALL &&
        n->b->call_kind == CALL_BUILTIN && (n->b->builtin == BI_PRANGE || n->b->builtin == BI_PNDINDEX))
        return infer_parallel_loop(I->c, I->s, n);
    return true;
}

static bool stmt(Inf *I, Node *n) {
    switch (n->kind) {
    case N_ASSIGN:
        for (int i = 0; i < n->targets.len; i++)
            if (!flat_subscript(I, VEC_AT(n->targets, i)))
                return false;
        if (infer_jc_assign(I, n)) /* obj[i] = v, obj.prop = v: a method call */
            return stmt(I, n);
        return assign_value(I, &n->targets, &n->a, n);
    case N_ANNASSIGN: {
        if (!n->c)
            return true;
        PtrVec one = {0};
        vec_push(I->a, &one, n->a);
        return assign_value(I, &one, &n->c, n);
    }
    case N_AUGASSIGN: {
        Node *t = n->a;
        if (t->kind == N_ATTRIBUTE && (t->a->kind == N_NAME || simple_subscript(t->a))) {
            /* self.x += v: self.x = self.x + v; arr[i].f += v alike */
            Node *v = ast_new(I->a, N_BINOP, n->loc);
            v->op = n->op;
            v->a = ast_clone_expr(I->a, t);
            v->b = n->b;
            n->kind = N_ASSIGN;
            n->targets.len = 0;
            vec_push(I->a, &n->targets, t);
            n->a = v;
            n->b = NULL;
            return stmt(I, n);
        }
        if (t->kind != N_NAME && t->kind != N_SUBSCRIPT)
            return UNSUP(I, t, "augmented assignment to %s is not supported by hpcjit",
                         ast_kind_name(t->kind)), false;
        if (!flat_subscript(I, t))
            return false;
        Type *ot = t->kind == N_NAME ? name_expr(I, t) : infer_expr(I, &t->a);
        if (!ot)
            return false;
        if (infer_jc_augassign(I, n, ot)) /* x += v on an instance: its dunder methods */
            return stmt(I, n);
        const LibOps *own = IS_UNK(ot) ? NULL : lib_type_owner(ot); /* lst += x, lst[i] += x */
        if (own && own->infer_augassign) {
            n->ty = own->infer_augassign(I, n, ot);
            return n->ty != NULL;
        }
        if (t->kind == N_SUBSCRIPT && !n->c)
            n->c = ast_clone_expr(I->a, t); /* the read of a[mask] op= v, see below */
        Type *tt = t->kind == N_NAME ? name_expr(I, t) : subscript_expr(I, t, true);
        if (!tt)
            return false;
        if (t->kind == N_SUBSCRIPT && (t->idx_kind == IDX_MASK || t->idx_kind == IDX_FANCY))
            return selection_augassign(I, n);
        Type *vt = infer_expr(I, &n->b);
        if (!vt)
            return false;
        if (t->kind == N_SUBSCRIPT && t->idx_kind == IDX_BASIC && t->op_ty && ty_is_array(t->op_ty))
            tt = t->op_ty; /* a view updated in place */
        if (refuse_bytes_op(I, n, tt, vt))
            return false;
        if (!IS_UNK(tt) && !IS_UNK(vt) && ty_is_array(tt) && n->op != OP_MATMUL) {
            if (refuse_readonly_store(I, t, tt))
                return false;
            /* in place on the array */
            t->ty = tt;
            n->ty = infer_ae_augassign(I, n, tt, vt);
            return n->ty != NULL;
        }
        Type *op_ty = NULL;
        Type *r = infer_binop_type(I, n, n->op, tt, vt, &op_ty);
        if (!r)
            return false;
        if (t->kind == N_NAME) {
            if (!var_assign(I, n, t->var, r))
                return false;
            t->ty = tt = t->var->ty;
        } else {
            t->ty = tt;
        }
        if (!IS_UNK(r) && !convert_check(I, n, r, tt, "the augmented assignment"))
            return false;
        n->op_ty = op_ty;
        n->ty = r;
        if (n->op == OP_POW && ty_is_float(op_ty) && ty_is_float(tt) && ty_is_int(vt))
            infer_cast(I, &n->b, infer_ty(I, TY_INT64)); /* x **= 3: repeated squaring, as x ** 3 */
        else
            infer_cast(I, &n->b, op_ty);
        return true;
    }
    case N_RETURN:
        return return_stmt(I, n);
    case N_DEL: /* del lst[i], del d[k]: the owner of the base's type */
        for (int i = 0; i < n->targets.len; i++) {
            Node **pt = (Node **)&VEC_AT(n->targets, i);
            Type *bt = (*pt)->kind == N_SUBSCRIPT ? infer_expr(I, &(*pt)->a) : NULL;
            if (bt && IS_UNK(bt))
                continue;
            const LibOps *own = bt ? lib_type_owner(bt) : NULL;
            if (!own || !own->infer_del)
                return ((*pt)->kind == N_NAME ? UNSUP(I, *pt, "'del' of a variable is not supported by hpcjit")
                        : bt ? UNSUP(I, *pt, "'del' is not supported on items of %s", infer_tyname(I, bt))
                             : UNSUP(I, *pt, "'del' is only supported on items and slices of lists")), false;
            if (!own->infer_del(I, pt, bt))
                return false;
        }
        return true;
    case N_FUSED: /* typed already (infer_fuse.c): its statements, as before */
        return stmts(I, &n->body);
    case N_IF:
        return infer_truth(I, &n->a) && stmts(I, &n->body) && stmts(I, &n->orelse);
    case N_WHILE:
        return infer_truth(I, &n->a) && stmts(I, &n->body) && stmts(I, &n->orelse);
    case N_FOR:
        return for_stmt(I, n);
    case N_BREAK:
    case N_CONTINUE:
    case N_PASS:
        return true;
    case N_RAISE:
        return raise_stmt(I, n);
    case N_TRY:
        return try_stmt(I, n);
    case N_ASSERT:
        return infer_truth(I, &n->a) && message_ok(I, n->b);
    case N_EXPR:
        if (n->a->kind == N_YIELD)
            return yield_stmt(I, n->a);
        if (n->a->kind == N_CONST && n->a->cval.kind == CVAL_STR) {
            n->a->ty = infer_ty(I, TY_STRING); /* docstring */
            return true;
        }
        if (n->a->kind == N_CONST && n->a->cval.kind == CVAL_ELLIPSIS) {
            n->a->ty = infer_ty(I, TY_NONE); /* a body of `...`: nothing to do */
            return true;
        }
        if (infer_ae_ufunc_out_stmt(I, n)) /* np.add(a, b, out): now out[...] = np.add(a, b) */
            return stmt(I, n);
        return infer_expr(I, &n->a) != NULL;
    default:
        return UNSUP(I, n, "%s statements are not supported by hpcjit", ast_kind_name(n->kind)), false;
    }
}

static bool stmt_ends(const Node *n);

/* `if hasattr(x, "shape"):` on a local of a known type (infer_decided_test):
 * the branch that runs replaces the if in v at i, so the other is never
 * typed (as Numba's dead-branch pruning, which infer_prune.c does before
 * typing for arguments).  *decided: whether it was. */
static bool if_decided(Inf *I, PtrVec *v, int i, bool *decided) {
    Node *n = VEC_AT(*v, i);
    *decided = false;
    if (!infer_truth(I, &n->a))
        return false;
    int r = infer_decided_test(I, n->a);
    if (r < 0)
        return true;
    PtrVec *keep = r ? &n->body : &n->orelse, out = {0};
    for (int k = 0; k < v->len; k++)
        if (k != i)
            vec_push(I->a, &out, VEC_AT(*v, k));
        else
            for (int j = 0; j < keep->len; j++)
                vec_push(I->a, &out, VEC_AT(*keep, j));
    *v = out;
    *decided = true;
    return true;
}

static bool stmts(Inf *I, PtrVec *v) {
    bool spliced = false;
    for (int i = 0; i < v->len; i++) {
        Node *n = VEC_AT(*v, i);
        if (n->kind == N_IF) {
            bool decided;
            if (!if_decided(I, v, i, &decided))
                return false;
            if (decided) {
                spliced = true;
                i--; /* the kept branch's first statement (if any) is next */
                continue;
            }
            if (!stmts(I, &n->body) || !stmts(I, &n->orelse))
                return false;
        } else if (!stmt(I, n)) {
            return false;
        }
        if (spliced && stmt_ends(n))
            v->len = i + 1; /* after a spliced-in return: unreachable, never typed */
    }
    return true;
}

/* ---- can control reach the end of a block? ---- */

static bool has_break(const PtrVec *v);

static bool stmt_has_break(const Node *n) {
    if (n->kind == N_BREAK)
        return true;
    if (n->kind == N_IF)
        return has_break(&n->body) || has_break(&n->orelse);
    if (n->kind == N_TRY) {
        if (has_break(&n->body) || has_break(&n->orelse) || has_break(&n->finalbody))
            return true;
        for (int i = 0; i < n->handlers.len; i++)
            if (has_break(&((const Node *)VEC_AT(n->handlers, i))->body))
                return true;
    }
    return false; /* breaks inside nested loops belong to those loops */
}

static bool has_break(const PtrVec *v) {
    for (int i = 0; i < v->len; i++)
        if (stmt_has_break(VEC_AT(*v, i)))
            return true;
    return false;
}

static bool block_ends(const PtrVec *v);

static bool stmt_ends(const Node *n) {
    switch (n->kind) {
    case N_RETURN:
    case N_RAISE:
        return true;
    case N_IF:
        return n->orelse.len && block_ends(&n->body) && block_ends(&n->orelse);
    case N_WHILE:
        if (n->a->kind == N_CONST && (n->a->cval.kind == CVAL_BOOL || n->a->cval.kind == CVAL_INT) &&
            n->a->cval.i != 0)
            return !has_break(&n->body);
        return false;
    case N_ASSERT:
        return n->a->kind == N_CONST && n->a->cval.kind == CVAL_BOOL && n->a->cval.i == 0;
    case N_TRY: {
        if (block_ends(&n->finalbody))
            return true;
        if (!block_ends(&n->body) && !block_ends(&n->orelse))
            return false;
        for (int i = 0; i < n->handlers.len; i++)
            if (!block_ends(&((const Node *)VEC_AT(n->handlers, i))->body))
                return false;
        return true;
    }
    default:
        return false;
    }
}

static bool block_ends(const PtrVec *v) {
    for (int i = 0; i < v->len; i++)
        if (stmt_ends(VEC_AT(*v, i)))
            return true;
    return false;
}

static bool returns_value(const PtrVec *v) {
    for (int i = 0; i < v->len; i++) {
        const Node *n = VEC_AT(*v, i);
        if ((n->kind == N_RETURN && n->a) || returns_value(&n->body) || returns_value(&n->orelse))
            return true;
    }
    return false;
}

/* ---- specialisations ---- */

static Type *default_type(Inf *I, Node *d) {
    int64_t v;
    if (const_index(d, &v))
        return infer_ty(I, TY_INT64);
    if (d->kind == N_CONST || (d->kind == N_UNARYOP && d->op == OP_NEG && d->a->kind == N_CONST)) {
        Type *t = infer_expr(I, &d);
        if (t && infer_is_value(t))
            return t;
        diag_failed(&I->c->diag) ? (void)0
                                 : (void)err(I, HJ_DIAG_UNSUPPORTED, d,
                                             "default values must be number, bool or None constants");
        return NULL;
    }
    return UNSUP(I, d, "default values must be number, bool or None constants");
}

/* A default value that names a global number (`tol=TOL_PIV`, QuantEcon's
 * pivoting): the constant it had when the function compiled, from the
 * function's env (compiler.py adds the defaults' names), as Numba reads
 * __defaults__.  Other defaults are left as they are. */
static void fold_name_defaults(Arena *a, const HjFunction *hf, Node *fn) {
    for (int i = 0; i < fn->params.len; i++) {
        Node *p = VEC_AT(fn->params, i);
        if (!p->a || p->a->kind != N_NAME)
            continue;
        for (int k = 0; k < hf->nenv; k++) {
            const HjEnvEntry *e = &hf->env[k];
            if (!e->name || strcmp(e->name, p->a->name) != 0)
                continue;
            Cval v = {0};
            if (e->kind == HJ_ENV_INT) {
                v.kind = e->is_bool ? CVAL_BOOL : CVAL_INT;
                v.i = e->i;
            } else if (e->kind == HJ_ENV_FLOAT) {
                v.kind = CVAL_FLOAT;
                v.f = e->f;
            } else if (e->kind == HJ_ENV_NONE) {
                v.kind = CVAL_NONE;
            } else {
                break;
            }
            Node *k2 = ast_new(a, N_CONST, p->a->loc);
            k2->cval = v;
            p->a = k2;
            break;
        }
    }
}

Node *infer_func_decl(Compilation *c, int func) {
    for (Spec *s = c->specs; s; s = s->next)
        if (s->func == func && s->fn)
            return s->fn;
    const HjFunction *hf = &c->req->funcs[func];
    SrcFile *f = arena_alloc(&c->arena, sizeof *f);
    f->name = hf->filename;
    f->text = hf->source;
    f->line_offset = hf->first_line - 1;
    f->col_offset = hf->col_offset;
    Node *fn = parse_function(&c->arena, f, &c->diag);
    if (fn)
        fold_name_defaults(&c->arena, hf, fn);
    return fn;
}

static bool same_key(Spec *s, int func, Type **argtys, int nargs, Type *explicit_ret, Node **lits,
                     int nlits) {
    if (s->func != func || s->nargs != nargs || s->explicit_ret != explicit_ret)
        return false;
    for (int i = 0; i < nargs; i++)
        if (s->argtys[i] != argtys[i])
            return false;
    for (int i = 0; i < nargs; i++)
        if (!infer_lit_eq(s->lits ? s->lits[i] : NULL, lits && i < nlits ? lits[i] : NULL))
            return false;
    return true;
}

static bool run_passes(Inf *I) {
    Spec *s = I->s;
    for (int pass = 0;; pass++) {
        if (pass >= MAX_PASSES) {
            err(I, HJ_DIAG_TYPING, s->fn, "type inference of '%s' did not converge", s->hf->name);
            return false;
        }
        I->changed = false;
        if (!stmts(I, &s->fn->body))
            return false;
        if (!I->changed)
            return true;
    }
}

/* An empty list, dict or set that nothing reads (`fs = []` left over in a
 * loop) has items no code ever needs: Numba drops the dead assignment; here
 * its unknown items become int64 so that it lowers as an empty container. */
static bool settle_unread_containers(Inf *I) {
    Spec *s = I->s;
    for (int i = 0; i < s->vars.len; i++) {
        Var *v = VEC_AT(s->vars, i);
        Type *t = v->ty;
        if (v->read || v->is_param || !t || !ty_has_unknown(t))
            continue;
        if (t->kind != TY_LIST && t->kind != TY_SET && t->kind != TY_DICT)
            continue;
        Type *i64 = infer_ty(I, TY_INT64);
        Type *key = t->kind != TY_DICT ? NULL : IS_UNK(t->key) ? i64 : t->key;
        Type *item = IS_UNK(t->item) ? i64 : t->item;
        if ((key && ty_has_unknown(key)) || ty_has_unknown(item))
            continue; /* nested unknowns: left to the error below */
        Node at = {.loc = v->first_def};
        if (!widen(I, &at, v, ty_container_like(I->tc, t, key, item)))
            return false;
    }
    return true;
}

static bool final_pass(Inf *I) {
    Spec *s = I->s;
    I->final = true;
    /* an unknown return is a call cycle's only when the spec is on one;
     * otherwise a variable it returns could not be typed: name it below */
    if (!s->explicit_ret && IS_UNK(s->ret) && s->recursive) {
        err(I, HJ_DIAG_TYPING, s->fn, "cannot infer the return type of recursive function '%s'",
            s->hf->name);
        return false;
    }
    if (!settle_unread_containers(I))
        return false;
    for (int i = 0; i < s->vars.len; i++) {
        Var *v = VEC_AT(s->vars, i);
        if (IS_UNK(v->ty)) {
            Node at = {.loc = v->first_def};
            err(I, HJ_DIAG_TYPING, &at, "cannot determine the type of variable '%s'",
                infer_ssa_source_name(I->a, v->name));
            return false;
        }
        if (ty_has_unknown(v->ty)) {
            Node at = {.loc = v->first_def};
            err(I, HJ_DIAG_TYPING, &at, "cannot determine the type of variable '%s': %s (the items of an "
                "empty %s are never known)", infer_ssa_source_name(I->a, v->name), infer_tyname(I, v->ty),
                v->ty->kind == TY_DICT ? "dict" : v->ty->kind == TY_SET ? "set" : "list");
            return false;
        }
    }
    if (!s->explicit_ret && IS_UNK(s->ret)) {
        err(I, HJ_DIAG_TYPING, s->fn, "cannot infer the return type of '%s' (a value it returns was "
            "never typed)", s->hf->name);
        return false;
    }
    if (!s->explicit_ret && ty_has_unknown(s->ret)) {
        err(I, HJ_DIAG_TYPING, s->fn, "cannot determine the return type of '%s': %s (the items of an "
            "empty list are never known)", s->hf->name, infer_tyname(I, s->ret));
        return false;
    }
    if (!stmts(I, &s->fn->body))
        return false;
    infer_fuse_statements(I);
    return true;
}

static Spec *new_spec(Compilation *c, int func, Node *fn, Type **argtys, int nargs,
                      Type *explicit_ret, const SrcFile *file, Node **lits, int nlits) {
    Spec *s = arena_alloc(&c->arena, sizeof *s);
    s->func = func;
    s->hf = &c->req->funcs[func];
    s->file = *file;
    s->fn = fn;
    s->argtys = arena_alloc(&c->arena, sizeof(Type *) * (size_t)(nargs + 1));
    for (int i = 0; i < nargs; i++)
        s->argtys[i] = argtys[i];
    s->nargs = nargs;
    for (int i = 0; i < nargs && i < nlits && lits; i++)
        if (lits[i]) {
            if (!s->lits)
                s->lits = arena_alloc(&c->arena, sizeof(Node *) * (size_t)(nargs + 1));
            s->lits[i] = lits[i];
        }
    s->explicit_ret = explicit_ret;
    s->ret = explicit_ret ? explicit_ret : ty_scalar(c->tc, TY_UNKNOWN);
    s->state = SPEC_NEW;
    Spec **tail = &c->specs;
    while (*tail)
        tail = &(*tail)->next;
    *tail = s;
    return s;
}

/* Parse a fresh copy of the function and fill omitted arguments from the
 * defaults.  *is_new tells whether the Spec was made here. */
static Spec *create_spec(Compilation *c, int func, Type **argtys, int nargs, Type *explicit_ret,
                         SrcLoc call_loc, Node **lits, int nlits, bool *is_new) {
    const HjFunction *hf = &c->req->funcs[func];
    /* the nodes keep pointers to their SrcFile: it lives in the arena */
    SrcFile *file = arena_alloc(&c->arena, sizeof *file);
    file->name = hf->filename;
    file->text = hf->source;
    file->line_offset = hf->first_line - 1;
    file->col_offset = hf->col_offset;
    Node *fn = parse_function(&c->arena, file, &c->diag);
    if (!fn)
        return NULL;
    fold_name_defaults(&c->arena, hf, fn);
    Spec probe = {.hf = hf, .fn = fn, .func = func};
    Inf I = {.c = c, .tc = c->tc, .a = &c->arena, .s = &probe};
    if (!check_supported(&I, fn, true))
        return NULL;
    int np = fn->params.len;
    Node at = {.loc = call_loc.file ? call_loc : fn->loc};
    if (nargs > np) {
        err(&I, HJ_DIAG_TYPING, &at, "%s() takes %d argument%s but %d were given", hf->name, np,
            np == 1 ? "" : "s", nargs);
        return NULL;
    }
    Type **full = arena_alloc(&c->arena, sizeof(Type *) * (size_t)(np + 1));
    for (int i = 0; i < np; i++) {
        Node *p = VEC_AT(fn->params, i);
        if (i < nargs) {
            full[i] = argtys[i];
            continue;
        }
        if (!p->a) {
            err(&I, HJ_DIAG_TYPING, &at, "%s() missing required argument '%s'", hf->name, p->name);
            return NULL;
        }
        full[i] = default_type(&I, p->a);
        if (!full[i])
            return NULL;
        p->a->ty = full[i];
    }
    /* an identical spec may already exist (the request omitted defaults) */
    for (Spec *o = c->specs; o; o = o->next)
        if (same_key(o, func, full, np, explicit_ret, lits, nlits)) {
            *is_new = false;
            return o;
        }
    *is_new = true;
    return new_spec(c, func, fn, full, np, explicit_ret, file, lits, nlits);
}

static bool bind_params(Compilation *c, Spec *s) {
    Inf I = {.c = c, .tc = c->tc, .a = &c->arena, .s = s};
    for (int i = 0; i < s->fn->params.len; i++) {
        Node *p = VEC_AT(s->fn->params, i);
        for (int j = 0; j < i; j++)
            if (strcmp(p->name, ((Node *)VEC_AT(s->fn->params, j))->name) == 0) {
                err(&I, HJ_DIAG_SYNTAX, p, "duplicate argument '%s' in function definition", p->name);
                return false;
            }
    }
    /* branches decided by which arguments are None (infer_prune.c); a None
     * argument reassigned before it is read gets a hidden name, leaving its
     * name to a local of the assigned type */
    bool *hide = arena_alloc(&c->arena, sizeof(bool) * (size_t)(s->fn->params.len + 1));
    infer_literal_params(&I); /* reads of literal parameters are their constants */
    infer_prune_branches(&I, hide);
    infer_flat_aliases(&I, s->fn); /* it = a.flat: a.flat where it is read (infer_flat.c) */
    if (!infer_iter_bindings(&I, s->fn)) /* z = zip(a, b): the call where z is used */
        return false;
    infer_ssa_rename(&I, hide); /* versions of rebound names (infer_ssa.c) */
    for (int i = 0; i < s->fn->params.len; i++) {
        Node *p = VEC_AT(s->fn->params, i);
        Var *v = add_var(&I, hide[i] ? arena_printf(&c->arena, "%s.arg", p->name) : p->name, p->loc);
        v->is_param = true;
        v->param_index = i;
        v->decl = NULL; /* an argument keeps its type; a later binding of the name converts */
        v->ty = s->argtys[i];
        if (!infer_is_value(v->ty)) {
            err(&I, HJ_DIAG_TYPING, p, "argument '%s' of type %s cannot be passed", p->name,
                infer_tyname(&I, v->ty));
            return false;
        }
    }
    if (infer_is_generator(s->fn)) { /* called, not consumed by a loop: a generator object */
        if (s->explicit_ret) {
            err(&I, HJ_DIAG_UNSUPPORTED, s->fn, "an explicit signature for generator function '%s' is not "
                "supported by hpcjit", s->hf->name);
            return false;
        }
        if (!infer_check_gen_body(&I, s->fn))
            return false;
        s->is_gen = true;
        s->yield_ty = ty_scalar(c->tc, TY_UNKNOWN);
        s->ret = ty_generator(c->tc, s->yield_ty);
    }
    collect_vec(&I, &s->fn->body);
    return !diag_failed(&c->diag); /* a loop rewrite may have failed (infer_unroll.c) */
}

static Spec *infer_spec_impl(Compilation *c, int func, Type **argtys, int nargs, Type *explicit_ret,
                             SrcLoc call_loc, Spec *caller, Node **lits, int nlits) {
    if (!c->tc)
        c->tc = ty_ctx_new(&c->arena);
    if (func < 0 || !c->req || func >= c->req->nfuncs) {
        diag_error_noloc(&c->diag, HJ_DIAG_LOWERING, "bad function index %d", func);
        return NULL;
    }
    Spec *s = NULL;
    for (Spec *o = c->specs; o; o = o->next)
        if (same_key(o, func, argtys, nargs, explicit_ret, lits, nlits)) {
            s = o;
            break;
        }
    if (!s) {
        bool is_new = false;
        s = create_spec(c, func, argtys, nargs, explicit_ret, call_loc, lits, nlits, &is_new);
        if (!s)
            return NULL;
        if (is_new && !bind_params(c, s))
            return NULL;
        if (is_new && caller)
            for (int i = 0; i < s->nargs; i++)
                s->incomplete |= ty_has_unknown(s->argtys[i]);
    }
    if (s->state == SPEC_DONE)
        return s;
    if (s->state == SPEC_INFERRING) {
        /* recursion: use the return type so far */
        s->recursive = true;
        if (caller && caller != s && s->infer_level < caller->infer_low)
            caller->infer_low = s->infer_level;
        return s;
    }
    if (c->depth >= MAX_INFER_DEPTH) {
        Node at = {.loc = call_loc};
        Inf I = {.c = c, .tc = c->tc, .a = &c->arena, .s = s};
        err(&I, HJ_DIAG_TYPING, &at,
            "calls nest too deeply while inferring types (more than %d levels)", MAX_INFER_DEPTH);
        return NULL;
    }
    c->depth++;
    s->state = SPEC_INFERRING;
    s->infer_level = c->depth;
    s->infer_low = c->depth;
    Inf I = {.c = c, .tc = c->tc, .a = &c->arena, .s = s};
    bool ok = infer_check_defined(&I) && run_passes(&I);
    if (ok && s->infer_low < s->infer_level) {
        /* depends on a spec still being inferred further up: finish later */
        s->state = SPEC_NEW;
        s->provisional = true;
        if (caller && s->infer_low < caller->infer_low)
            caller->infer_low = s->infer_low;
        c->depth--;
        return s;
    }
    if (ok && s->is_gen && IS_UNK(s->yield_ty)) { /* no yield is reached: it yields nothing */
        s->yield_ty = ty_scalar(c->tc, TY_NONE);
        s->ret = ty_generator(c->tc, s->yield_ty);
    }
    if (ok && IS_UNK(s->ret) && !s->explicit_ret && !returns_value(&s->fn->body))
        s->ret = ty_scalar(c->tc, TY_NONE); /* it only raises */
    if (ok && !s->is_gen) {
        /* returns of a function whose end is reachable include None */
        if (!block_ends(&s->fn->body) && !s->explicit_ret) {
            Type *u = ty_unify(c->tc, s->ret, ty_scalar(c->tc, TY_NONE));
            if (!u) {
                err(&I, HJ_DIAG_TYPING, s->fn, "function '%s' returns %s on some paths and None at its end",
                    s->hf->name, infer_tyname(&I, s->ret));
                ok = false;
            } else {
                s->ret = u;
            }
        } else if (!block_ends(&s->fn->body) && s->explicit_ret &&
                   s->explicit_ret->kind != TY_NONE) {
            err(&I, HJ_DIAG_TYPING, s->fn,
                "function '%s' can end without a return value but its signature returns %s",
                s->hf->name, infer_tyname(&I, s->explicit_ret));
            ok = false;
        }
    }
    if (ok && s->incomplete) {
        /* what the body put into the empty containers it was given is in
         * its parameters' types now (infer_spec_param); the caller widens
         * its own variables and calls a complete specialisation */
        s->state = SPEC_DONE;
        s->provisional = false;
        c->depth--;
        return s;
    }
    if (ok) {
        s->state = SPEC_DONE; /* calls back into it see the final return type */
        s->provisional = false;
        ok = final_pass(&I);
    }
    c->depth--;
    return ok ? s : NULL;
}

Spec *infer_spec_at(Inf *I, SrcLoc loc, int func, Type **argtys, int nargs) {
    return infer_spec_impl(I->c, func, argtys, nargs, NULL, loc, I->s, NULL, 0);
}

Spec *infer_spec_lits(Inf *I, SrcLoc loc, int func, Type **argtys, int nargs, Node **lits, int nlits) {
    return infer_spec_impl(I->c, func, argtys, nargs, NULL, loc, I->s, lits, nlits);
}

Spec *infer_spec_sig(Inf *I, SrcLoc loc, int func, Type **argtys, int nargs, Type *ret) {
    return infer_spec_impl(I->c, func, argtys, nargs, ret, loc, I->s, NULL, 0);
}

Spec *infer_spec(Compilation *c, int func, Type **argtys, int nargs, Type *explicit_ret) {
    SrcLoc none = {0};
    bool entry = !c->entry && c->req && func == c->req->entry;
    Spec *s = infer_spec_impl(c, func, argtys, nargs, explicit_ret, none, NULL,
                              entry ? c->entry_lits : NULL, entry ? c->nentry_lits : 0);
    if (s && s->state != SPEC_DONE) {
        /* cannot happen from the top level; keep the contract anyway */
        diag_error_noloc(&c->diag, HJ_DIAG_TYPING, "type inference of '%s' did not finish",
                         s->hf->name);
        return NULL;
    }
    if (s && !c->entry)
        c->entry = s;
    /* the specialisations typed for incomplete argument types only served
     * their callers' inference: no final call refers to them */
    for (Spec **p = &c->specs; s && *p;)
        if ((*p)->incomplete)
            *p = (*p)->next;
        else
            p = &(*p)->next;
    return s;
}

Type *infer_spec_param(const Spec *s, int i) {
    for (int k = 0; k < s->vars.len; k++) {
        const Var *v = VEC_AT(s->vars, k);
        if (v->is_param && v->param_index == i)
            return v->ty;
    }
    return i < s->nargs ? s->argtys[i] : NULL;
}

/* ---- inspect_types ---- */

static void note_assign(Arena *a, PtrVec *lines, Node *t) {
    if (!t)
        return;
    if (t->kind == N_NAME && t->var)
        vec_push(a, lines, t);
    else if (t->kind == N_TUPLE || t->kind == N_LIST)
        for (int i = 0; i < t->args.len; i++)
            note_assign(a, lines, VEC_AT(t->args, i));
}

static void gather(Arena *a, PtrVec *out, PtrVec *v);
static void gather_stmt(Arena *a, PtrVec *out, Node *n) {
    switch (n->kind) {
    case N_ASSIGN:
        for (int i = 0; i < n->targets.len; i++)
            note_assign(a, out, VEC_AT(n->targets, i));
        break;
    case N_AUGASSIGN:
    case N_ANNASSIGN:
    case N_FOR:
        note_assign(a, out, n->a);
        break;
    default:
        break;
    }
    gather(a, out, &n->body);
    gather(a, out, &n->orelse);
}
static void gather(Arena *a, PtrVec *out, PtrVec *v) {
    for (int i = 0; i < v->len; i++)
        gather_stmt(a, out, VEC_AT(*v, i));
}

char *infer_types_text(Compilation *c, Spec *s) {
    StrBuf b;
    sb_init(&b);
    Arena *a = &c->arena;
    for (Spec *x = s ? s : c->specs; x; x = s ? NULL : x->next) {
        sb_printf(&b, "%s (", x->hf->name);
        for (int i = 0; i < x->nargs; i++) {
            if (i)
                sb_puts(&b, ", ");
            ty_name(&b, x->argtys[i]);
        }
        sb_puts(&b, ") -> ");
        ty_name(&b, x->ret);
        sb_putc(&b, '\n');
        sb_puts(&b, "# variables\n");
        for (int i = 0; i < x->vars.len; i++) {
            Var *v = VEC_AT(x->vars, i);
            sb_printf(&b, "#   %s: ", v->name);
            ty_name(&b, v->ty);
            sb_puts(&b, v->is_param ? "  (argument)\n" : "\n");
        }
        PtrVec marks = {0};
        if (x->fn)
            gather(a, &marks, &x->fn->body);
        const char *p = x->file.text ? x->file.text : "";
        int line = 1;
        while (*p) {
            const char *e = strchr(p, '\n');
            int len = e ? (int)(e - p) : (int)strlen(p);
            sb_printf(&b, "%5d | %.*s", line + x->file.line_offset, len, p);
            bool first = true;
            for (int i = 0; i < marks.len; i++) {
                Node *t = VEC_AT(marks, i);
                if (t->loc.line != line)
                    continue;
                bool dup = false;
                for (int j = 0; j < i; j++) {
                    Node *u = VEC_AT(marks, j);
                    if (u->loc.line == line && u->var == t->var)
                        dup = true;
                }
                if (dup)
                    continue;
                sb_puts(&b, first ? "    # " : ", ");
                first = false;
                sb_printf(&b, "%s: ", t->var->name);
                ty_name(&b, t->var->ty);
            }
            sb_putc(&b, '\n');
            line++;
            p = e ? e + 1 : p + len;
        }
        if (!s)
            sb_putc(&b, '\n');
    }
    return sb_take(&b);
}
