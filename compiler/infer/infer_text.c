/* infer_text.c - typing of print() and of f-strings (as print() arguments
 * and as raise/assert messages).
 *
 * Tree shape after the final pass (lower_text.c relies on it):
 *  - print: `args` are the values; each is a string constant (N_CONST, or
 *    a name folded to one: ty TY_STRING, cval CVAL_STR), an N_FSTRING, or
 *    a value whose type is a number, None, a str, an array or a tuple of
 *    those.
 *    Keywords `sep` and `end` (string constants or None) are kept as they
 *    are; no other keyword is accepted.
 *  - N_FSTRING: ty TY_STRING; args are N_CONST strings and N_FORMATTED
 *    nodes whose `a` is a value as above (or a string constant) and whose
 *    `b` (format spec) is NULL or an N_FSTRING (of N_CONST strings only, or
 *    with replacement fields: a spec made at run time).  `name` is the
 *    conversion: NULL, "r" (repr without a spec; with one the value is made
 *    a str first), or "d": a float64 formatted as int(x) with a constant
 *    spec (printf's %d of a float, infer_strfmt.c). */
#include "infer.h"

#include <string.h>

bool infer_text_is_strconst(const Node *n) {
    return n && n->ty && n->ty->kind == TY_STRING && n->cval.kind == CVAL_STR && !n->cval.is_bytes &&
           (n->kind == N_CONST || n->kind == N_NAME || n->kind == N_ATTRIBUTE);
}

/* Numbers, None, arrays and tuples of them: what print() can write. */
static bool printable(const Type *t) {
    if (t->kind == TY_TUPLE) {
        for (int i = 0; i < t->nelems; i++)
            if (!printable(t->elems[i]))
                return false;
        return true;
    }
    if (t->kind == TY_OPTIONAL)
        return printable(t->base);
    return ty_is_number(t) || t->kind == TY_NONE || t->kind == TY_ARRAY || t->kind == TY_STRING ||
           t->kind == TY_UNKNOWN;
}

/* One value of print() or of a replacement field: its type, or NULL. */
static Type *text_value(Inf *I, Node **pn, const char *what) {
    Node *n = *pn;
    if (n->kind == N_FSTRING)
        return infer_fstring(I, n) ? n->ty : NULL;
    Type *t = infer_expr_opt(I, pn); /* an Optional prints None or its value */
    if (!t)
        return NULL;
    n = *pn;
    if (t->kind == TY_STRING) /* a constant, or a str value (lib/str) */
        return t;
    if (!printable(t))
        return UNSUP(I, n, "%s of %s is not supported by hpcjit", what, infer_tyname(I, t));
    return t;
}

/* A format spec: an f-string of constant text, or one with replacement
 * fields ("{x:>{w}}": lowered as a str value, then the formatter reads it). */
static bool spec_ok(Inf *I, Node *spec, Type *vt) {
    if (!spec)
        return true;
    size_t len = 0;
    for (int i = 0; i < spec->args.len; i++) {
        Node *p = VEC_AT(spec->args, i);
        if (p->kind == N_FORMATTED) {
            if (!infer_fstring(I, spec))
                return false;
            len = 1;
            break;
        }
        if (p->kind != N_CONST || p->cval.kind != CVAL_STR)
            return UNSUP(I, p, "unexpected part of a format spec"), false;
        len += (size_t)p->cval.slen;
        p->ty = infer_ty(I, TY_STRING);
    }
    spec->ty = infer_ty(I, TY_STRING);
    if (len == 0 || IS_UNK(vt))
        return true;
    if (vt->kind == TY_BOOL || ty_is_int(vt) || ty_is_float(vt) || vt->kind == TY_STRING)
        return true;
    return TYPING(I, spec, "format specs are supported for integers, floats and str only, not %s",
                  infer_tyname(I, vt)), false;
}

/* A spec with some text (f"{x:}" has an empty one). */
static bool spec_text(const Node *spec) {
    for (int i = 0; spec && i < spec->args.len; i++) {
        const Node *p = VEC_AT(spec->args, i);
        if (p->kind != N_CONST || p->cval.slen > 0)
            return true;
    }
    return false;
}

/* A typed value as a str made by a call the final pass places (typed:
 * no callee node). */
static Node *str_call(Inf *I, BuiltinId id, Node *arg) {
    Node *c = ast_new(I->a, N_CALL, arg->loc);
    c->call_kind = CALL_BUILTIN;
    c->builtin = id;
    c->ty = infer_ty(I, TY_STRING);
    vec_push(I->a, &c->args, arg);
    return c;
}

/* The !s and !r conversions: format(str(x), spec) and format(repr(x),
 * spec).  Without a spec lowering writes str()/repr() itself; with one
 * (and for str() of a float32, which is not its format()) the value
 * becomes a str first: str(x), or the f-string value f"{x!r}".  Returns
 * the type the spec applies to, NULL when refused. */
static Type *convert(Inf *I, Node *p, Type *t) {
    bool r = p->name[0] == 'r';
    if (t->kind == TY_STRING && !r) {
        p->name = NULL;
        return t;
    }
    if (!spec_text(p->b) && (r || t->kind != TY_FLOAT32))
        return t;
    if (!r && !(t->kind == TY_NONE || t->kind == TY_BOOL || (ty_is_number(t) && !ty_is_complex(t))) && !IS_UNK(t))
        return UNSUP(I, p->a, "str() of %s with a width or format spec is not supported by hpcjit",
                     infer_tyname(I, t));
    if (I->final) {
        Node *v = p->a;
        if (r) {
            Node *inner = ast_new(I->a, N_FORMATTED, v->loc), *f = ast_new(I->a, N_FSTRING, v->loc);
            inner->a = v;
            inner->name = "r";
            inner->ty = f->ty = infer_ty(I, TY_STRING);
            vec_push(I->a, &f->args, inner);
            p->a = str_call(I, BI_STR_FSTRING, f);
        } else {
            p->a = str_call(I, BI_STR, v);
        }
        p->name = NULL;
    }
    return infer_ty(I, TY_STRING);
}

bool infer_fstring(Inf *I, Node *f) {
    for (int i = 0; i < f->args.len; i++) {
        Node *p = VEC_AT(f->args, i);
        if (p->kind == N_CONST) {
            p->ty = infer_ty(I, TY_STRING);
            continue;
        }
        if (p->kind != N_FORMATTED)
            return UNSUP(I, p, "unexpected part of an f-string"), false;
        if (p->name && strcmp(p->name, "a") == 0)
            return UNSUP(I, p, "the !a conversion is not supported by hpcjit"), false;
        Type *t;
        if (p->a->kind == N_FSTRING) { /* f"{f'{x}':>5}": the inner one as a str value */
            if (!infer_fstring(I, p->a))
                return false;
            if (I->final)
                p->a = str_call(I, BI_STR_FSTRING, p->a);
            t = infer_ty(I, TY_STRING);
        } else {
            t = text_value(I, &p->a, "formatting a value");
        }
        if (t && p->name && (p->name[0] == 'r' || p->name[0] == 's'))
            t = convert(I, p, t);
        if (!t || !spec_ok(I, p->b, t))
            return false;
        p->ty = infer_ty(I, TY_STRING);
    }
    f->ty = infer_ty(I, TY_STRING);
    return true;
}

/* print(*values, sep=' ', end='\n') */
Type *infer_print_call(Inf *I, Node *n) {
    for (int i = 0; i < n->keywords.len; i++) {
        Node *k = VEC_AT(n->keywords, i);
        if (!k->name)
            return UNSUP(I, k, "print(**kwargs) is not supported by hpcjit");
        if (strcmp(k->name, "sep") != 0 && strcmp(k->name, "end") != 0)
            return UNSUP(I, k, "print() keyword '%s' is not supported by hpcjit (only sep= and end=)", k->name);
        Type *t = infer_expr(I, &k->a);
        if (!t)
            return NULL;
        if (!(t->kind == TY_NONE || infer_text_is_strconst(k->a)))
            return TYPING(I, k->a, "print() %s must be a string constant or None, not %s", k->name,
                          infer_tyname(I, t));
    }
    for (int i = 0; i < n->args.len; i++)
        if (!text_value(I, (Node **)&VEC_AT(n->args, i), "print()"))
            return NULL;
    return infer_ty(I, TY_NONE);
}
