/* infer_extend.c - calls to stub functions (HjFunction.stub): Numba's
 * extension API (hpcjit.extending: overload, overload_method,
 * overload_attribute, intrinsic) and objmode blocks.
 *
 * An overload's typing function is Python, run at compile time with the
 * argument types.  The compiler never calls Python (compiler.h), so the
 * stub carries the resolutions Python has made so far, keyed by the
 * argument types; a call whose key has none fails the compilation with
 * HjResult.need_overload set, and Python resolves that key (calls the
 * typing function, compiles the implementation it returns as a jitted
 * function) and compiles again.  A key is one token per argument, joined
 * by '\t':
 *
 *     [name=]typecode[\x01literal]      literal: "i<int>", "b<0|1>", "s<UTF-8
 *                                        in hex>", or "v<hex>": a container's
 *                                        initial value as a Python literal
 *
 * (name= for keyword arguments; the literal suffix for integer and bool
 * constants).  The key with literals is looked up first, then the one
 * without.  A method's receiver is the first argument.  A stub with
 * HjFunction.caller_parallel called from a parallel=True function has one
 * more token, "$parallel" (its implementation may differ: a stencil's loop
 * nest runs on the pool there). */
#include "infer.h"

#include <stdio.h>
#include <string.h>

/* float, int, bool and complex given where a value is passed (x.astype(float),
 * dtype=int): the NumPy type each stands for, as NumPy reads them */
static const char *builtin_dtype(Type *t) {
    if (t->kind != TY_BUILTIN)
        return NULL;
    switch (t->builtin) {
    case BI_FLOAT: return "$q:numpy.float64";
    case BI_INT: return "$q:numpy.int64";
    case BI_BOOL: return "$q:numpy.bool_";
    case BI_COMPLEX: return "$q:numpy.complex128";
    default: return NULL;
    }
}

/* An @njit function given to an overload (an integrator taking the
 * integrand): 'D' and, in hex, "filename NUL qualname NUL first_line" -
 * the same in every compilation and process (the key goes into the disk
 * cache); python/hpcjit/extending.py finds the dispatcher by it. */
static void function_token(StrBuf *b, const HjFunction *f) {
    StrBuf raw;
    sb_init(&raw);
    sb_puts(&raw, f->filename ? f->filename : "");
    sb_putc(&raw, 0);
    sb_puts(&raw, f->qualname ? f->qualname : "");
    sb_putc(&raw, 0);
    sb_printf(&raw, "%d", f->first_line);
    sb_putc(b, 'D');
    for (size_t k = 0; k < raw.len; k++)
        sb_printf(b, "%02x", (unsigned char)raw.s[k]);
    sb_free(&raw);
}

/* The key of the call's arguments; NULL (diagnostic given) when one has
 * no typecode; *unk when one is not known yet.  `self` (a method's
 * receiver, or an attribute's object) comes first. */
static char *call_key(Inf *I, Node *n, Node *self, const HjFunction *hf, bool literals,
                      bool *unk) {
    StrBuf b;
    sb_init(&b);
    int na = n ? n->args.len : 0, nk = n ? n->keywords.len : 0;
    int total = (self ? 1 : 0) + na + nk;
    bool fin = I->final;
    I->final = false; /* typed again when the implementation is called */
    for (int i = 0; i < total; i++) {
        Node *e = NULL;
        const char *kw = NULL;
        if (self && i == 0)
            e = self;
        else if (i - (self ? 1 : 0) < na)
            e = VEC_AT(n->args, i - (self ? 1 : 0));
        else {
            Node *k = VEC_AT(n->keywords, i - (self ? 1 : 0) - na);
            kw = k->name;
            e = k->a;
        }
        Node *tmp = e;
        Type *t = infer_expr_opt(I, &tmp);
        if (!t)
            goto fail;
        if (builtin_dtype(t) && !(self && i == 0)) { /* the argument becomes np.float64... */
            Node *d = ast_new(I->a, N_NAME, e->loc);
            d->name = builtin_dtype(t);
            if (kw)
                ((Node *)VEC_AT(n->keywords, i - (self ? 1 : 0) - na))->a = d;
            else
                VEC_AT(n->args, i - (self ? 1 : 0)) = d;
            e = tmp = d;
            if (!(t = infer_expr_opt(I, &tmp)))
                goto fail;
        }
        if (IS_UNK(t)) {
            *unk = true;
            goto fail;
        }
        if (i)
            sb_putc(&b, '\t');
        if (kw) {
            sb_puts(&b, kw);
            sb_putc(&b, '=');
        }
        size_t before = b.len;
        if (t->kind == TY_FUNCTION) /* an @njit function: Numba's types.Dispatcher */
            function_token(&b, &I->c->req->funcs[t->func]);
        else
            ty_typecode(&b, t);
        if (b.len == before) {
            infer_fail(I, HJ_DIAG_TYPING, e, "%s() cannot take %s (only values with a typecode: "
                       "numbers, arrays, tuples, None, containers)", hf->name, infer_tyname(I, t));
            goto fail;
        }
        if (infer_write_container(I, &b, e)) {
            /* LiteralList / LiteralStrKeyDict: the type itself is literal */
        } else if (literals && e->kind == N_CONST && (e->cval.kind == CVAL_INT || e->cval.kind == CVAL_BOOL)
            && !e->cval.overflow) {
            char lit[40];
            snprintf(lit, sizeof lit, "\x01%c%lld", e->cval.kind == CVAL_INT ? 'i' : 'b',
                     (long long)e->cval.i);
            sb_puts(&b, lit);
        } else if (literals && e->kind == N_CONST && e->cval.kind == CVAL_STR && !e->cval.is_bytes &&
                   t->kind == TY_STRING) { /* a StringLiteral: its UTF-8 in hex (keys hold no tabs) */
            sb_puts(&b, "\x01s");
            for (int k = 0; k < e->cval.slen; k++)
                sb_printf(&b, "%02x", (unsigned char)e->cval.s[k]);
        } else if (literals && infer_initial_value(I, e)) {
            /* a container's initial value: its Python literal in hex */
            StrBuf v;
            sb_init(&v);
            infer_write_pyliteral(&v, infer_initial_value(I, e));
            sb_puts(&b, "\x01v");
            for (size_t k = 0; k < v.len; k++)
                sb_printf(&b, "%02x", (unsigned char)v.s[k]);
            sb_free(&v);
        }
    }
    I->final = fin;
    if (hf->caller_parallel && I->s && I->s->hf && I->s->hf->options.parallel) {
        if (total)
            sb_putc(&b, '\t');
        sb_puts(&b, "$parallel");
    }
    {
        char *key = arena_strdup(I->a, b.s ? b.s : "");
        sb_free(&b);
        return key;
    }
fail:
    I->final = fin;
    sb_free(&b);
    return NULL;
}

static const HjStubImpl *find_impl(const HjFunction *hf, const char *key) {
    for (int i = 0; i < hf->nimpls; i++)
        if (strcmp(hf->impls[i].key, key) == 0)
            return &hf->impls[i];
    return NULL;
}

/* The implementation of stub `func` for the call `n` (and self), as a
 * function index; -1 with a diagnostic, -2 when an argument type is not
 * known yet.  *need: the request for the key with literals when the
 * implementation was found for the key without them (infer_call_lits asks
 * for it if the implementation wants a literal argument).  *elementwise
 * (when given): the implementation computes one element. */
static int resolve(Inf *I, Node *at, Node *n, Node *self, int func, const char **need, bool *elementwise) {
    const HjFunction *hf = &I->c->req->funcs[func];
    bool unk = false;
    char *lit = call_key(I, n, self, hf, true, &unk);
    if (!lit)
        return unk ? -2 : -1;
    char *plain = call_key(I, n, self, hf, false, &unk);
    if (!plain)
        return unk ? -2 : -1;
    const HjStubImpl *im = find_impl(hf, lit);
    if (need)
        *need = NULL;
    if (!im) {
        im = find_impl(hf, plain);
        /* a failure for the plain types (an earlier call with a variable)
         * says nothing of the literal ones: those are resolved too */
        if (im && im->func < 0 && strcmp(lit, plain) != 0)
            im = NULL;
        if (im && need && strcmp(lit, plain) != 0)
            *need = arena_printf(I->a, "%d\t%s", func, lit);
    }
    if (!im) {
        /* Python resolves the literal key (it knows both) and compiles again */
        I->c->need_overload = arena_printf(I->a, "%d\t%s", func, lit);
        infer_fail(I, HJ_DIAG_TYPING, at, "no implementation of %s() for these argument types "
                   "(hpcjit.extending resolves it)", hf->name);
        return -1;
    }
    if (im->func < 0) {
        infer_fail(I, im->diag_kind ? (HjDiagKind)im->diag_kind : HJ_DIAG_TYPING, at, "%s",
                   im->message ? im->message : "no implementation");
        return -1;
    }
    if (elementwise)
        *elementwise = im->elementwise != 0;
    return im->func;
}

/* A call of a portable @intrinsic's code (HJ_STUB_LLVMIR): the arguments
 * are cast to the parameter types its typing function gave. */
static Type *llvmir_call(Inf *I, Node *n, int impl) {
    const HjFunction *hf = &I->c->req->funcs[impl];
    if (n->keywords.len)
        return TYPING(I, n, "@intrinsic %s takes positional arguments only", hf->name);
    const char *p = hf->ret_typecode;
    Type *ret = p ? ty_from_typecode(I->tc, &p) : NULL;
    if (!ret || *p)
        return UNSUP(I, n, "@intrinsic %s: bad return typecode", hf->name);
    const char *q = hf->arg_typecodes ? hf->arg_typecodes : "";
    int i = 0;
    while (*q) {
        Type *t = ty_from_typecode(I->tc, &q);
        if (!t || (*q && *q != '\t'))
            return UNSUP(I, n, "@intrinsic %s: bad parameter typecode", hf->name);
        if (*q == '\t')
            q++;
        if (i >= n->args.len)
            return TYPING(I, n, "@intrinsic %s: its signature takes more than the %d argument(s) "
                          "given", hf->name, n->args.len);
        if (!infer_coerce(I, (Node **)&VEC_AT(n->args, i), t, "an @intrinsic argument"))
            return NULL;
        i++;
    }
    if (i < n->args.len)
        return TYPING(I, VEC_AT(n->args, i), "@intrinsic %s: its signature takes %d argument(s), "
                      "%d given", hf->name, i, n->args.len);
    n->call_kind = CALL_LLVMIR;
    n->cval.i = impl;
    return ret;
}

/* A call to stub `func`: an overload (through the implementation the
 * typing function chose) or an objmode block. */
Type *infer_stub_call(Inf *I, Node *n, int func) {
    const HjFunction *hf = &I->c->req->funcs[func];
    Node *self = NULL;
    if (n->a && n->a->kind == N_ATTRIBUTE && n->a->attr_kind == ATTR_OVERLOAD_METHOD)
        self = n->a->a;
    if (hf->stub == HJ_STUB_PYCALL) {
        if (n->keywords.len)
            return UNSUP(I, n, "objmode block called with keywords");
        Type **tys = arena_alloc(I->a, sizeof(Type *) * (size_t)(n->args.len + 1));
        for (int i = 0; i < n->args.len; i++) {
            Node **pa = (Node **)&VEC_AT(n->args, i);
            Type *t = infer_expr_opt(I, pa); /* an Optional passes as None or its value */
            if (!t)
                return NULL;
            if (IS_UNK(t))
                return t;
            StrBuf b;
            sb_init(&b);
            ty_typecode(&b, t);
            bool ok = b.len > 0;
            /* a container would be a copy whose changes never come back (Numba
             * refuses list inputs too) */
            bool container = ok && strpbrk(b.s, "[{<#") != NULL;
            sb_free(&b);
            if (container)
                return TYPING(I, *pa, "objmode: a variable of type %s cannot be passed into an "
                              "objmode block (its changes would not come back); pass arrays, "
                              "numbers or tuples", infer_tyname(I, t));
            if (!ok)
                return UNSUP(I, *pa, "objmode: a variable of type %s cannot be passed into an "
                             "objmode block (only numbers, str, arrays, tuples, None)",
                             infer_tyname(I, t));
            tys[i] = t;
        }
        const char *p = hf->ret_typecode;
        Type *ret = p ? ty_from_typecode(I->tc, &p) : NULL;
        if (!ret || *p)
            return UNSUP(I, n, "objmode: bad output typecode");
        n->call_kind = CALL_PYCALL;
        n->cval.i = func;
        n->op_ty = ty_tuple(I->tc, tys, n->args.len); /* the inputs, boxed as one tuple */
        return ret;
    }
    const char *need = NULL;
    bool elementwise = false;
    int impl = resolve(I, n, n, self, func, &need, &elementwise);
    if (impl == -2)
        return TY_UNK(I);
    if (impl < 0)
        return NULL;
    if (I->c->req->funcs[impl].stub == HJ_STUB_LLVMIR)
        return llvmir_call(I, n, impl);
    if (elementwise && !self) { /* a @vectorize function on arrays: fused (infer_arrayexpr.c) */
        bool not_here = false;
        Type *t = infer_ae_elemwise_call(I, n, func, impl, &not_here);
        if (!not_here)
            return t;
    }
    I->stub_need = need;
    if (!self) {
        Type *t = infer_func_call(I, n, impl);
        I->stub_need = NULL;
        return t;
    }
    /* a method: the receiver becomes the first argument, on a copy of the
     * call until the final pass (earlier passes keep the tree's shape) */
    Node *call = ast_new(I->a, N_CALL, n->loc);
    call->a = n->a;
    vec_push(I->a, &call->args, self);
    for (int i = 0; i < n->args.len; i++)
        vec_push(I->a, &call->args, VEC_AT(n->args, i));
    call->keywords = n->keywords;
    Type *t = infer_func_call(I, call, impl);
    I->stub_need = NULL;
    if (t && I->final) {
        n->args = call->args;
        n->keywords = call->keywords;
        n->call_kind = call->call_kind;
        n->spec = call->spec;
    }
    return t;
}

static int env_stub(const HjFunction *hf, const char *prefix, const char *name) {
    size_t lp = strlen(prefix);
    for (int i = 0; i < hf->nenv; i++) {
        const HjEnvEntry *e = &hf->env[i];
        if (e->kind == HJ_ENV_FUNC && e->name && strncmp(e->name, prefix, lp) == 0 &&
            strcmp(e->name + lp, name) == 0)
            return e->func;
    }
    return -1;
}

/* An overload of a function hpcjit has no builtin for, by qualified name
 * ("numpy.foo" reached as np.foo or imported): its stub, or -1. */
int infer_extend_named(Inf *I, const char *qualname) {
    return I->s && I->s->hf ? env_stub(I->s->hf, "<overload>", qualname) : -1;
}

/* `obj.name` that hpcjit has no attribute for: an overload_method (typed
 * as the stub, called with obj first) or an overload_attribute (the node
 * becomes a call of the implementation on obj in the final pass).  False
 * when neither names it. */
bool infer_extend_attr(Inf *I, Node *n, Type *base, Type **out) {
    (void)base;
    if (!I->s || !I->s->hf)
        return false;
    int m = env_stub(I->s->hf, "<method>", n->name);
    if (m >= 0) {
        n->attr_kind = ATTR_OVERLOAD_METHOD;
        *out = ty_function(I->tc, m);
        return true;
    }
    int f = env_stub(I->s->hf, "<attr>", n->name);
    if (f < 0)
        return false;
    int impl = resolve(I, n, NULL, n->a, f, NULL, NULL);
    if (impl == -2) {
        *out = TY_UNK(I);
        return true;
    }
    if (impl < 0) {
        *out = NULL;
        return true;
    }
    Node *call = ast_new(I->a, N_CALL, n->loc);
    vec_push(I->a, &call->args, n->a);
    Type *t = infer_func_call(I, call, impl);
    if (t && I->final) {
        n->kind = N_CALL; /* n->a stays the object, typed; lowering reads args */
        n->args = call->args;
        n->call_kind = call->call_kind;
        n->spec = call->spec;
    }
    *out = t;
    return true;
}
