/* infer_literal.c - literal dispatch (numba.literally, hpcjit.literally).
 *
 * `literally(n)` on a parameter asks for the function to be compiled with
 * that parameter typed as the literal of its argument, as Numba's
 * ForceLiteralArg does.  The compiler never calls Python, so the request
 * fails the compilation with Compilation.need_overload set to
 *
 *     L<func index>\t<parameter index>
 *
 * and Python (compiler.py) records the parameter in the function's
 * HjOptions.literal_params (kept on its code object) and compiles again.
 * From then on every call of the function passes that argument as a
 * literal: a constant argument gives a Spec of its own (Spec.lits, part of
 * the Spec's key), a parameter of the caller that is not a literal asks
 * the same of the caller, up to the entry, whose dispatcher then keys its
 * specialisations by the argument's value (python/core/dispatcher.c).
 * Inside such a Spec the parameter's reads are the constant, so calls of
 * overloads see an IntegerLiteral/StringLiteral/BooleanLiteral
 * (infer_extend.c) and `literally(n)` is n. */
#include "infer.h"

#include <stdlib.h>
#include <string.h>

bool infer_lit_ok(const Node *k) {
    if (!k || k->kind != N_CONST)
        return false;
    return (k->cval.kind == CVAL_INT && !k->cval.overflow) || k->cval.kind == CVAL_BOOL ||
           (k->cval.kind == CVAL_STR && !k->cval.is_bytes);
}

bool infer_lit_eq(const Node *a, const Node *b) {
    if (!a || !b || a->kind != N_CONST || b->kind != N_CONST)
        return a == b; /* initial values of containers: the same display */
    if (a->cval.kind != b->cval.kind)
        return false;
    if (a->cval.kind == CVAL_STR)
        return a->cval.slen == b->cval.slen && memcmp(a->cval.s, b->cval.s, (size_t)a->cval.slen) == 0;
    return a->cval.i == b->cval.i;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

Node *infer_lit_decode(Arena *a, const char *p) {
    SrcLoc none = {0};
    Node *k = ast_new(a, N_CONST, none);
    size_t len = strcspn(p, "\x02\t");
    if (len < 1)
        return NULL;
    if (p[0] == 'i' || p[0] == 'b') {
        char buf[32], *end = NULL;
        if (len - 1 >= sizeof buf)
            return NULL;
        memcpy(buf, p + 1, len - 1);
        buf[len - 1] = '\0';
        long long v = strtoll(buf, &end, 10);
        if (!buf[0] || *end)
            return NULL;
        k->cval.kind = p[0] == 'i' ? CVAL_INT : CVAL_BOOL;
        k->cval.i = p[0] == 'i' ? v : (v != 0);
        return k;
    }
    if (p[0] == 's' && (len - 1) % 2 == 0) {
        int n = (int)(len - 1) / 2;
        char *s = arena_alloc(a, (size_t)n + 1);
        for (int i = 0; i < n; i++) {
            int hi = hexval(p[1 + 2 * i]), lo = hexval(p[2 + 2 * i]);
            if (hi < 0 || lo < 0)
                return NULL;
            s[i] = (char)(hi * 16 + lo);
        }
        k->cval.kind = CVAL_STR;
        k->cval.s = s;
        k->cval.slen = n;
        return k;
    }
    return NULL;
}

void infer_literal_params(Inf *I) {
    Spec *s = I->s;
    if (!s->lits)
        return;
    for (int i = 0; i < s->nargs && i < s->fn->params.len; i++)
        if (s->lits[i] && s->lits[i]->kind == N_CONST) /* a parameter the body assigns keeps its reads */
            infer_const_reads(&s->fn->body, ((Node *)VEC_AT(s->fn->params, i))->name, s->lits[i]);
}

static const Node *strip_casts(const Node *n);
static void find_defs(const Node *n, const char *name, const Node **def, int *count);
static const Node *literal_container_of(Inf *I, const Node *a);
static int display_kind(const Node *n);

/* Ask Python to compile again with parameter `param` of function `func`
 * as a literal. */
static Type *request(Inf *I, const Node *at, int func, int param) {
    const HjFunction *hf = &I->c->req->funcs[func];
    Node *decl = infer_func_decl(I->c, func);
    const char *pname = decl && param < decl->params.len ? ((Node *)VEC_AT(decl->params, param))->name : "?";
    I->c->need_overload = arena_printf(I->a, "L%d\t%d", func, param);
    return TYPING(I, at, "literal dispatch: argument '%s' of %s() is compiled as a literal (hpcjit "
                  "compiles again)", pname, hf->name);
}

/* A read of a parameter of the spec being typed that is not a literal:
 * its index, else -1. */
static int plain_param(Inf *I, const Node *a) {
    if (!a || a->kind != N_NAME || !a->var || !a->var->is_param)
        return -1;
    int i = a->var->param_index;
    if (i >= 64 || (I->s->lits && i < I->s->nargs && I->s->lits[i]))
        return -1; /* a literal parameter the body assigns: no literal to give */
    return i;
}

Type *infer_literally_call(Inf *I, Node *n) {
    if (n->keywords.len || n->args.len != 1)
        return TYPING(I, n, "literally() takes exactly one argument");
    Node **pa = (Node **)&VEC_AT(n->args, 0);
    Type *t = infer_expr_opt(I, pa);
    if (!t || IS_UNK(t))
        return t;
    Node *a = *pa;
    if (infer_lit_ok(a)) { /* the call is its argument */
        SrcLoc loc = n->loc;
        *n = *a;
        n->loc = loc;
        return t;
    }
    if (infer_initial_value(I, a) || literal_container_of(I, a)) { /* a container with an initial value, a
                                                                       literal container: itself */
        if (I->final) {
            SrcLoc loc = n->loc;
            *n = *a;
            n->loc = loc;
        }
        return t;
    }
    int p = plain_param(I, a);
    if (p < 0 && a->kind == N_NAME && a->name && a->var && !a->var->is_param) {
        /* m = n; literally(m): the parameter m was assigned from, once */
        const Node *def = NULL;
        int count = 0;
        for (int i = 0; i < I->s->fn->body.len; i++)
            find_defs(VEC_AT(I->s->fn->body, i), a->name, &def, &count);
        if (count == 1 && def && infer_lit_ok(strip_casts(def))) { /* a literal's copy: itself */
            if (I->final) {
                SrcLoc loc = n->loc;
                *n = *a;
                n->loc = loc;
            }
            return t;
        }
        if (count == 1 && def)
            p = plain_param(I, strip_casts(def));
    }
    if (p >= 0)
        return request(I, n, I->s->func, p);
    return TYPING(I, n, "Invalid use of non-Literal type in literally(%s)", infer_tyname(I, t));
}

bool infer_call_lits(Inf *I, Node *n, int func, Node **sl, int np, Node ***out) {
    const HjFunction *hf = &I->c->req->funcs[func];
    uint64_t mask = hf->options.literal_params;
    *out = NULL;
    /* a literal container is passed as one whether asked or not: its type
     * is literal (d['key'] in the callee) */
    Node **lits = NULL;
    for (int i = 0; i < np; i++) {
        const Node *a = sl[i] ? strip_casts(sl[i]) : NULL;
        const Node *c = a && a->ty && a->ty->kind == TY_TUPLE ? literal_container_of(I, a) : NULL;
        if (!c || (i < 64 && mask >> i & 1))
            continue;
        if (!lits)
            lits = arena_alloc(I->a, sizeof(Node *) * (size_t)(np + 1));
        lits[i] = (Node *)c;
    }
    *out = lits;
    if (!mask)
        return true;
    Node *decl = infer_func_decl(I->c, func);
    if (!decl)
        return false;
    if (!lits)
        lits = arena_alloc(I->a, sizeof(Node *) * (size_t)(np + 1));
    for (int i = 0; i < np && i < 64; i++) {
        if (!(mask >> i & 1))
            continue;
        Node *par = VEC_AT(decl->params, i);
        Node *a = sl[i] ? sl[i] : par->a; /* an omitted argument: its default */
        if (!a)
            continue;
        const Node *iv = infer_lit_ok(a) ? a : infer_initial_value(I, a);
        if (!iv)
            iv = literal_container_of(I, a);
        if (iv) {
            if (I->stub_need) {
                /* an overload's implementation chosen for the argument types
                 * asks for this literal: the typing function decides again
                 * with the literal types (extending.resolve_need) */
                I->c->need_overload = I->stub_need;
                TYPING(I, n, "%s(): the overload is resolved again for literal arguments", hf->name);
                return false;
            }
            lits[i] = (Node *)iv;
            continue;
        }
        int p = plain_param(I, strip_casts(a));
        if (p >= 0) {
            request(I, a, I->s->func, p);
            return false;
        }
        TYPING(I, a, "Cannot request literal type: argument '%s' of %s() must be a literal (a constant "
               "or an argument of the caller), not a computed value", par->name, hf->name);
        return false;
    }
    *out = lits;
    return true;
}

/* ---- initial values of containers (Numba's InitialValue types) ----------
 * A list or dict display of constants, or a variable assigned once from
 * one, has an initial value: an overload's typing function sees it as
 * `x.initial_value` when it is given the literal types, and literally(x)
 * accepts it.  A parameter gets it from its argument (Spec.lits holds the
 * display; its reads are not replaced: the container may have changed). */

static const Node *strip_casts(const Node *n) {
    while (n && n->kind == N_CAST)
        n = n->a;
    return n;
}

/* n as a display: 'l' [a, b] (args), 'd' {k: v} (args = keys, args2 =
 * values), and the calls the final pass makes of them: 'L' (args the
 * items), 'D' (args k0, v0, k1, v1, ...); 0 for anything else. */
static int display_kind(const Node *n) {
    if (n->kind == N_LIST)
        return 'l';
    if (n->kind == N_DICT)
        return n->args.len == n->args2.len ? 'd' : 0;
    if (n->kind == N_CALL && n->call_kind == CALL_BUILTIN && n->builtin == BI_LIST_DISPLAY)
        return 'L';
    if (n->kind == N_CALL && n->call_kind == CALL_BUILTIN && n->builtin == BI_DICT_DISPLAY)
        return n->args.len % 2 == 0 ? 'D' : 0;
    return 0;
}

static int display_len(const Node *n, int k) { return k == 'D' ? n->args.len / 2 : n->args.len; }

static const Node *display_key(const Node *n, int k, int i) {
    return k == 'd' ? VEC_AT(n->args, i) : k == 'D' ? VEC_AT(n->args, 2 * i) : NULL;
}

static const Node *display_value(const Node *n, int k, int i) {
    return k == 'd' ? VEC_AT(n->args2, i) : k == 'D' ? VEC_AT(n->args, 2 * i + 1) : VEC_AT(n->args, i);
}

static bool const_display(const Node *n, int depth) {
    n = strip_casts(n);
    if (!n || depth > 8)
        return false;
    if (n->kind == N_CONST)
        return infer_lit_ok(n) || (n->cval.kind == CVAL_FLOAT && n->cval.f - n->cval.f == 0.0);
    int k = display_kind(n);
    if (!k)
        return false;
    for (int i = 0; i < display_len(n, k); i++)
        if ((display_key(n, k, i) && !const_display(display_key(n, k, i), depth + 1)) ||
            !const_display(display_value(n, k, i), depth + 1))
            return false;
    return true;
}

/* The assignments to `name` under n: *count of them, *def the value of
 * the last plain `name = value`. */
static void find_defs(const Node *n, const char *name, const Node **def, int *count) {
    if (!n)
        return;
    switch (n->kind) {
    case N_ASSIGN:
        for (int i = 0; i < n->targets.len; i++) {
            const Node *t = VEC_AT(n->targets, i);
            if (t && t->kind == N_NAME && t->name && strcmp(t->name, name) == 0) {
                (*count)++;
                *def = n->a;
            }
        }
        break;
    case N_AUGASSIGN: case N_ANNASSIGN: case N_FOR: case N_NAMEDEXPR:
        if (n->a && n->a->kind == N_NAME && n->a->name && strcmp(n->a->name, name) == 0)
            (*count)++;
        break;
    case N_FUNCDEF: case N_LAMBDA:
        return;
    default:
        break;
    }
    const PtrVec *vs[] = {&n->body, &n->orelse, &n->finalbody, &n->handlers};
    for (size_t v = 0; v < sizeof vs / sizeof vs[0]; v++)
        for (int i = 0; i < vs[v]->len; i++)
            find_defs(VEC_AT(*vs[v], i), name, def, count);
}

const Node *infer_initial_value(Inf *I, const Node *a) {
    a = strip_casts(a);
    if (!a)
        return NULL;
    if (display_kind(a))
        return const_display(a, 0) ? a : NULL;
    if (a->kind != N_NAME || !a->name || !I->s || !I->s->fn)
        return NULL;
    if (a->var && a->var->is_param) {
        int i = a->var->param_index;
        const Spec *s = I->s;
        return s->lits && i < s->nargs && s->lits[i] && display_kind(s->lits[i]) ? s->lits[i] : NULL;
    }
    const Node *def = NULL;
    int count = 0;
    for (int i = 0; i < I->s->fn->body.len; i++)
        find_defs(VEC_AT(I->s->fn->body, i), a->name, &def, &count);
    def = strip_casts(def);
    return count == 1 && def && display_kind(def) && const_display(def, 0) ? def : NULL;
}

/* The Python literal of a constant display (ast.literal_eval reads it). */
void infer_write_pyliteral(StrBuf *b, const Node *n) {
    n = strip_casts(n);
    if (n->kind == N_CONST) {
        switch (n->cval.kind) {
        case CVAL_BOOL: sb_puts(b, n->cval.i ? "True" : "False"); return;
        case CVAL_INT: sb_printf(b, "%lld", (long long)n->cval.i); return;
        case CVAL_FLOAT: sb_printf(b, "%.17g", n->cval.f);
            if (!strpbrk(b->s + (b->len > 24 ? b->len - 24 : 0), ".e"))
                sb_puts(b, ".0");
            return;
        case CVAL_STR:
            sb_putc(b, '\'');
            for (int i = 0; i < n->cval.slen; i++) {
                unsigned char c = (unsigned char)n->cval.s[i];
                if (c == '\\' || c == '\'')
                    sb_printf(b, "\\%c", c);
                else if (c < 0x20 || c == 0x7f)
                    sb_printf(b, "\\x%02x", c);
                else
                    sb_putc(b, (char)c);
            }
            sb_putc(b, '\'');
            return;
        default:
            sb_puts(b, "None");
            return;
        }
    }
    int k = display_kind(n);
    bool dict = k == 'd' || k == 'D';
    sb_putc(b, dict ? '{' : '[');
    for (int i = 0; i < display_len(n, k); i++) {
        if (i)
            sb_puts(b, ", ");
        if (dict) {
            infer_write_pyliteral(b, display_key(n, k, i));
            sb_puts(b, ": ");
        }
        infer_write_pyliteral(b, display_value(n, k, i));
    }
    sb_putc(b, dict ? '}' : ']');
}

/* ---- literal containers (LiteralList, LiteralStrKeyDict) ------------------
 * A list display whose items have no common type, or a dict display with
 * str constant keys whose values have none, is an error, except where it
 * is given to an overload (directly, or through a variable assigned once
 * and only passed to overloads): there it is Numba's LiteralList /
 * LiteralStrKeyDict, whose typing function sees each item's type (the
 * Literal of a constant) as `x.literal_value`.  The value is the tuple of
 * the items (values); the call key carries the description ("c" suffix,
 * in the plain key too: the type itself is literal). */

static Node *parent_in(Node *n, const Node *target);

static Node *parent_in_vec(const PtrVec *v, const Node *target) {
    for (int i = 0; i < v->len; i++) {
        Node *c = VEC_AT(*v, i);
        if (c == target)
            return NULL; /* the caller sees it */
        Node *p = parent_in(c, target);
        if (p)
            return p;
    }
    return NULL;
}

static bool holds(const Node *n, const Node *target) {
    if (n->a == target || n->b == target || n->c == target)
        return true;
    const PtrVec *vs[] = {&n->args, &n->args2, &n->keywords, &n->targets, &n->body, &n->orelse,
                          &n->finalbody, &n->handlers, &n->generators};
    for (size_t v = 0; v < sizeof vs / sizeof vs[0]; v++)
        for (int i = 0; i < vs[v]->len; i++)
            if (VEC_AT(*vs[v], i) == target)
                return true;
    return false;
}

/* The node one of whose children is target, under n (NULL: not found). */
static Node *parent_in(Node *n, const Node *target) {
    if (!n || n == target)
        return NULL;
    if (holds(n, target))
        return n;
    Node *p = NULL;
    if ((p = parent_in(n->a, target)) || (p = parent_in(n->b, target)) || (p = parent_in(n->c, target)))
        return p;
    const PtrVec *vs[] = {&n->args, &n->args2, &n->keywords, &n->targets, &n->body, &n->orelse,
                          &n->finalbody, &n->handlers, &n->generators};
    for (size_t v = 0; v < sizeof vs / sizeof vs[0]; v++)
        if ((p = parent_in_vec(vs[v], target)))
            return p;
    return NULL;
}

static Node *parent_of(Inf *I, const Node *target) {
    Node *fn = I->s->fn;
    for (int i = 0; i < fn->body.len; i++) {
        Node *c = VEC_AT(fn->body, i);
        if (c == target)
            return fn;
        Node *p = parent_in(c, target);
        if (p)
            return p;
    }
    return NULL;
}

/* Is call an overload's call (its callee a global name of a stub)? */
static bool overload_call(Inf *I, const Node *call) {
    if (!call || call->kind != N_CALL || !call->a || call->a->kind != N_NAME || !call->a->name)
        return false;
    const HjFunction *hf = I->s->hf;
    for (int i = 0; hf && i < hf->nenv; i++) {
        const HjEnvEntry *e = &hf->env[i];
        if (e->kind == HJ_ENV_FUNC && e->name && strcmp(e->name, call->a->name) == 0)
            return e->func >= 0 && e->func < I->c->req->nfuncs &&
                   I->c->req->funcs[e->func].stub == HJ_STUB_OVERLOAD;
    }
    return false;
}

/* Is `e` an argument of an overload's call? */
static bool overload_arg(Inf *I, const Node *e) {
    Node *p = parent_of(I, e);
    if (p && p->kind == N_KEYWORD)
        p = parent_of(I, p);
    if (!p || p->kind != N_CALL || p->a == e)
        return false;
    return overload_call(I, p);
}

/* Every read of `name` under n is an argument of an overload's call. */
static bool reads_only_overload_args(Inf *I, const Node *n, const char *name) {
    if (!n)
        return true;
    if (n->kind == N_NAME && n->name && strcmp(n->name, name) == 0)
        return overload_arg(I, n);
    if (n->kind == N_ASSIGN) { /* the targets are not reads */
        if (!reads_only_overload_args(I, n->a, name))
            return false;
        for (int i = 0; i < n->targets.len; i++) {
            const Node *t = VEC_AT(n->targets, i);
            if (!(t && t->kind == N_NAME) && !reads_only_overload_args(I, t, name))
                return false;
        }
        return true;
    }
    if (!reads_only_overload_args(I, n->a, name) || !reads_only_overload_args(I, n->b, name) ||
        !reads_only_overload_args(I, n->c, name))
        return false;
    const PtrVec *vs[] = {&n->args, &n->args2, &n->keywords, &n->targets, &n->body, &n->orelse,
                          &n->finalbody, &n->handlers, &n->generators};
    for (size_t v = 0; v < sizeof vs / sizeof vs[0]; v++)
        for (int i = 0; i < vs[v]->len; i++)
            if (!reads_only_overload_args(I, VEC_AT(*vs[v], i), name))
                return false;
    return true;
}

/* May display n be a literal container (it only reaches overloads)? */
static bool literal_container_ok(Inf *I, Node *n) {
    if (!I->s || !I->s->fn || !I->s->hf)
        return false;
    if (overload_arg(I, n))
        return true;
    Node *p = parent_of(I, n);
    if (!p || p->kind != N_ASSIGN || p->a != n || p->targets.len != 1)
        return false;
    const Node *t = VEC_AT(p->targets, 0);
    if (!t || t->kind != N_NAME || !t->name)
        return false;
    const Node *def = NULL;
    int count = 0;
    Node *fn = I->s->fn;
    for (int i = 0; i < fn->body.len; i++)
        find_defs(VEC_AT(fn->body, i), t->name, &def, &count);
    if (count != 1)
        return false;
    for (int i = 0; i < fn->body.len; i++)
        if (!reads_only_overload_args(I, VEC_AT(fn->body, i), t->name))
            return false;
    return true;
}

bool infer_literal_container(Inf *I, Node *n) {
    if (n->kind == N_DICT) {
        if (n->args.len != n->args2.len || !n->args.len)
            return false;
        for (int i = 0; i < n->args.len; i++) {
            const Node *k = VEC_AT(n->args, i);
            if (!k || k->kind != N_CONST || k->cval.kind != CVAL_STR || k->cval.is_bytes)
                return false;
        }
    } else if (n->kind != N_LIST || !n->args.len) {
        return false;
    }
    if (!literal_container_ok(I, n))
        return false;
    if (n->kind == N_DICT) {
        PtrVec keys = n->args;
        n->args = n->args2;
        n->args2 = keys;
    }
    n->lit_container = n->kind == N_DICT ? 2 : 1;
    n->kind = N_TUPLE;
    return true;
}

/* The literal container an overload's argument is, or NULL. */
static const Node *literal_container_of(Inf *I, const Node *a) {
    a = strip_casts(a);
    if (!a)
        return NULL;
    if (a->kind == N_TUPLE && a->lit_container)
        return a;
    if (a->kind != N_NAME || !a->name || !I->s || !I->s->fn)
        return NULL;
    if (a->var && a->var->is_param) { /* given one by the caller (Spec.lits) */
        int i = a->var->param_index;
        const Spec *s = I->s;
        const Node *l = s->lits && i < s->nargs ? s->lits[i] : NULL;
        return l && l->kind == N_TUPLE && l->lit_container ? l : NULL;
    }
    const Node *def = NULL;
    int count = 0;
    for (int i = 0; i < I->s->fn->body.len; i++)
        find_defs(VEC_AT(I->s->fn->body, i), a->name, &def, &count);
    def = strip_casts(def);
    return count == 1 && def && def->kind == N_TUPLE && def->lit_container ? def : NULL;
}

/* One item's description: ('i', v) / ('b', v) / ('s', v) constants,
 * ('iv', typecode, value) a display of constants (its initial value),
 * ('t', typecode) anything else. */
static void write_item(StrBuf *b, const Node *e) {
    e = strip_casts(e);
    if (infer_lit_ok(e)) {
        sb_printf(b, "('%c', ", e->cval.kind == CVAL_INT ? 'i' : e->cval.kind == CVAL_BOOL ? 'b' : 's');
        infer_write_pyliteral(b, e);
        sb_putc(b, ')');
        return;
    }
    StrBuf tc;
    sb_init(&tc);
    if (e->ty)
        ty_typecode(&tc, e->ty);
    bool iv = display_kind(e) && const_display(e, 0);
    sb_puts(b, iv ? "('iv', '" : "('t', '");
    if (tc.s)
        sb_puts(b, tc.s);
    sb_puts(b, "'");
    if (iv) {
        sb_puts(b, ", ");
        infer_write_pyliteral(b, e);
    }
    sb_putc(b, ')');
    sb_free(&tc);
}

bool infer_write_container(Inf *I, StrBuf *b, const Node *a) {
    const Node *n = literal_container_of(I, a);
    if (!n)
        return false;
    StrBuf v;
    sb_init(&v);
    sb_puts(&v, n->lit_container == 2 ? "('D', [" : "('L', [");
    for (int i = 0; i < n->args.len; i++) {
        if (i)
            sb_puts(&v, ", ");
        if (n->lit_container == 2) {
            sb_putc(&v, '(');
            infer_write_pyliteral(&v, VEC_AT(n->args2, i));
            sb_puts(&v, ", ");
            write_item(&v, VEC_AT(n->args, i));
            sb_putc(&v, ')');
        } else {
            write_item(&v, VEC_AT(n->args, i));
        }
    }
    sb_puts(&v, "])");
    sb_puts(b, "\x01" "c");
    for (size_t k = 0; k < v.len; k++)
        sb_printf(b, "%02x", (unsigned char)v.s[k]);
    sb_free(&v);
    return true;
}

int infer_literal_key_index(Inf *I, const Node *base, const Node *key) {
    if (!key || key->kind != N_CONST || key->cval.kind != CVAL_STR || key->cval.is_bytes)
        return -1;
    const Node *c = literal_container_of(I, base);
    if (!c || c->lit_container != 2)
        return -1;
    for (int i = 0; i < c->args2.len; i++)
        if (infer_lit_eq(VEC_AT(c->args2, i), key))
            return i;
    TYPING(I, key, "key '%.*s' is not in the LiteralStrKeyDict", key->cval.slen, key->cval.s);
    return -2;
}
