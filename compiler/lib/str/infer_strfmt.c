/* infer_strfmt.c - str formatting other than f-strings, rewritten into
 * f-strings so that lower_text.c's machinery (the runtime's format
 * mini-language) writes them:
 *   "fmt" % args          printf-style, with a literal format
 *   "fmt".format(...)     replacement fields, with a literal format
 *   format(v[, spec]), hex(i), bin(i), oct(i)
 * The literal is parsed here, at compile time: its errors are CPython's
 * messages at the literal.  Every pass builds the N_FSTRING (infer_text.c
 * describes its shape) to type and check the values; the final pass puts a
 * BI_STR_FSTRING call of it in place of the expression.
 *
 * printf conversions map onto format specs exactly (checked against
 * CPython for every flag, width and precision of the numeric ones):
 * flags `-` `+` ` ` `#` `0` become align `<`, sign, `#` and zero padding;
 * %d/%i/%u are `d` (of a float: int(x), conversion "d"), %e/%f/%g take a
 * float64, %s/%r are str()/repr() aligned right unless `-`, %c of an int
 * is format 'c'.  A `*` constant is folded; a `*` variable makes the spec
 * an f-string of its own (lower_text.c builds it at run time), with
 * `w < 0 ? ... : ...` fields for the alignment CPython gives a negative
 * width. */
#include "infer.h"
#include "registry.h"
#include "str.h"

#include <stdio.h>
#include <string.h>

/* A failure reported where a node is returned. */
#define NONE(fail) ((void)(fail), (Node *)NULL)

static Type *T(Inf *I, TyKind k) { return infer_ty(I, k); }

static Node *text_part(Inf *I, SrcLoc loc, const char *s, size_t n) {
    Node *k = ast_new(I->a, N_CONST, loc);
    k->cval.kind = CVAL_STR;
    k->cval.s = arena_strndup(I->a, s, n);
    k->cval.slen = (int)n;
    k->ty = T(I, TY_STRING);
    return k;
}

/* A replacement field: value v, conversion ("r", "s" or NULL), spec text. */
static Node *field(Inf *I, Node *v, const char *conv, const char *spec, size_t nspec) {
    Node *p = ast_new(I->a, N_FORMATTED, v->loc);
    p->a = v;
    p->name = conv;
    if (nspec > 0) {
        p->b = ast_new(I->a, N_FSTRING, v->loc);
        vec_push(I->a, &p->b->args, text_part(I, v->loc, spec, nspec));
    }
    return p;
}

/* A value an f-string takes as a field: an f-string argument ("{}".format(
 * f"{x}")) as the str it makes (%c and the checks here read the value). */
static Node *value_node(Inf *I, Node *v) {
    if (!v || v->kind != N_FSTRING)
        return v;
    if (!infer_fstring(I, v))
        return NULL;
    Node *c = ast_new(I->a, N_CALL, v->loc);
    c->call_kind = CALL_BUILTIN;
    c->builtin = BI_STR_FSTRING;
    c->ty = T(I, TY_STRING);
    vec_push(I->a, &c->args, v);
    return c;
}

/* The code point at p (UTF-8), and its index among the code points before. */
static uint32_t code_point(const char *s, const char *p, int *index) {
    int k = 0;
    for (const char *q = s; q < p; q++)
        k += ((unsigned char)*q & 0xc0) != 0x80;
    *index = k;
    const unsigned char *u = (const unsigned char *)p;
    if (u[0] < 0x80)
        return u[0];
    int extra = u[0] >= 0xf0 ? 3 : u[0] >= 0xe0 ? 2 : 1;
    uint32_t c = u[0] & (0x3fu >> extra);
    for (int i = 1; i <= extra && u[i]; i++)
        c = (c << 6) | (u[i] & 0x3fu);
    return c;
}

/* The final pass: `n` (any node) becomes the call of the f-string value. */
static void install(Inf *I, Node *n, Node *f) {
    SrcLoc loc = n->loc;
    memset(n, 0, sizeof *n);
    n->kind = N_CALL;
    n->loc = loc;
    n->call_kind = CALL_BUILTIN;
    n->builtin = BI_STR_FSTRING;
    n->ty = T(I, TY_STRING);
    vec_push(I->a, &n->args, f);
}

/* ---- "fmt" % args ------------------------------------------------------------- */

/* A value to read more than once: a name or a constant (no side effects). */
static bool simple(const Node *v) {
    return v->kind == N_NAME || v->kind == N_CONST || (v->kind == N_ATTRIBUTE && simple(v->a));
}

typedef struct Pct {
    Inf *I;
    Node *at;     /* the literal: errors point at it */
    Node **args;  /* the values, typed */
    int nargs, next;
    Node *wnode, *pnode; /* a `*` width / precision known at run time only, or NULL */
} Pct;

/* A spec being built: constant text, and fields for `*` values. */
typedef struct SpecB {
    Inf *I;
    SrcLoc loc;
    Node *f; /* N_FSTRING, or NULL while only text */
    StrBuf text;
} SpecB;

static void spec_text(SpecB *S, const char *s) { sb_puts(&S->text, s); }

static void spec_flush(SpecB *S) {
    if (!S->f)
        S->f = ast_new(S->I->a, N_FSTRING, S->loc);
    if (S->text.len > 0)
        vec_push(S->I->a, &S->f->args, text_part(S->I, S->loc, S->text.s, S->text.len));
    S->text.len = 0;
}

static void spec_field(SpecB *S, Node *v) {
    spec_flush(S);
    Node *p = ast_new(S->I->a, N_FORMATTED, v->loc);
    p->a = v;
    vec_push(S->I->a, &S->f->args, p);
}

/* `w < 0 ? then : orelse` of a `*` value (a name or a constant: read again). */
static Node *if_negative(Inf *I, Node *w, Node *then, Node *orelse) {
    Node *zero = ast_new(I->a, N_CONST, w->loc);
    zero->cval.kind = CVAL_INT;
    Node *test = ast_new(I->a, N_COMPARE, w->loc);
    test->a = ast_clone_expr(I->a, w);
    vec_push(I->a, &test->args, zero);
    test->ops = arena_alloc(I->a, sizeof(OpKind));
    test->ops[0] = OP_LT;
    Node *e = ast_new(I->a, N_IFEXP, w->loc);
    e->a = test;
    e->b = then;
    e->c = orelse;
    return e;
}

static Node *lit(Inf *I, Node *w, const char *s) {
    Node *k = text_part(I, w->loc, s, strlen(s));
    k->ty = NULL; /* typed as a value of the expression */
    return k;
}

static Node *next_arg(Pct *P) {
    if (P->next >= P->nargs)
        return NONE(TYPING(P->I, P->at, "not enough arguments for format string"));
    return P->args[P->next++];
}

/* A `*` width or precision: a constant int (*out), or a value read at run
 * time (*node: a name, read again by the spec's fields). */
static bool star_value(Pct *P, int64_t *out, Node **node) {
    Node *v = next_arg(P);
    *node = NULL;
    if (!v)
        return false;
    if (!v->ty || IS_UNK(v->ty))
        return *out = 0, true;
    if (!ty_is_int(v->ty) && v->ty->kind != TY_BOOL)
        return TYPING(P->I, v, "* wants int"), false;
    if (v->kind == N_CONST && (v->cval.kind == CVAL_INT || v->cval.kind == CVAL_BOOL))
        return *out = v->cval.i, true;
    if (v->kind == N_UNARYOP && v->op == OP_NEG && v->a->kind == N_CONST && v->a->cval.kind == CVAL_INT)
        return *out = -v->a->cval.i, true;
    if (!simple(v))
        return UNSUP(P->I, v, "a '*' width or precision computed by an expression is not supported by hpcjit "
                     "(assign it to a variable first)"), false;
    *node = v;
    *out = 1; /* present */
    return true;
}

/* One conversion: the field for value v (typed), or NULL (reported). */
static Node *pct_field(Pct *P, Node *v, const char *flags, int64_t width, int64_t prec, char conv) {
    Inf *I = P->I;
    Type *t = v->ty;
    bool minus = strchr(flags, '-'), plus = strchr(flags, '+'), space = strchr(flags, ' '),
         alt = strchr(flags, '#'), zero = strchr(flags, '0');
    bool isint = ty_is_int(t) || t->kind == TY_BOOL, isfloat = ty_is_float(t);
    const char *conv_name = NULL;
    switch (conv) {
    case 'd': case 'i': case 'u': case 'x': case 'X': case 'o':
        if (isfloat && (conv == 'd' || conv == 'i' || conv == 'u')) {
            if (P->wnode)
                return NONE(UNSUP(I, P->wnode, "a '*' width from a variable for %%%c of a float is not supported "
                                  "by hpcjit (a constant width is)", conv));
            infer_cast(I, &v, T(I, TY_FLOAT64)); /* int(x) formatted by the runtime */
            conv_name = "d";
        } else if (!isint) {
            if (conv == 'd' || conv == 'i' || conv == 'u')
                return NONE(TYPING(I, v, "%%%c format: a real number is required, not %s", conv, infer_tyname(I, t)));
            return NONE(TYPING(I, v, "%%%c format: an integer is required, not %s", conv, infer_tyname(I, t)));
        }
        if (prec >= 0)
            return NONE(UNSUP(I, P->at, "a precision for %%%c (a minimum count of digits) is not supported by hpcjit",
                         conv));
        break;
    case 'e': case 'E': case 'f': case 'F': case 'g': case 'G':
        if (!isint && !isfloat)
            return NONE(TYPING(I, v, "must be real number, not %s", infer_tyname(I, t)));
        infer_cast(I, &v, T(I, TY_FLOAT64)); /* float(x), as CPython */
        break;
    case 'c':
        if (isint) {
            break; /* format(i, 'c') */
        } else if (infer_text_is_strconst(v)) {
            int len = 0;
            for (int k = 0; k < v->cval.slen; k++)
                len += ((unsigned char)v->cval.s[k] & 0xc0) != 0x80;
            if (len != 1)
                return NONE(TYPING(I, v, "%%c requires int or char"));
        } else if (t->kind == TY_STRING) {
            return NONE(UNSUP(I, v, "%%c of a str value is not supported by hpcjit (of an int or a one-character "
                         "literal it is)"));
        } else {
            return NONE(TYPING(I, v, "%%c requires int or char"));
        }
        prec = -1;
        break;
    case 's':
    case 'r':
        conv_name = conv == 's' ? "s" : "r";
        if (v->kind == N_CAST && v->a->ty && v->a->ty->kind == TY_OPTIONAL && width <= 0 && prec < 0)
            v = v->a; /* an Optional as it is: None prints "None" */
        break;
    case 'a': return NONE(UNSUP(I, P->at, "%%a (ascii()) is not supported by hpcjit"));
    default: return NULL;
    }
    SpecB S = {.I = I, .loc = v->loc};
    sb_init(&S.text);
    Node *w = P->wnode, *pr = conv == 'c' ? NULL : P->pnode; /* %c has no precision */
    bool text = conv == 's' || conv == 'r' || (conv == 'c' && !isint);
    if (text || conv == 'c') {
        if (minus)
            spec_text(&S, "<");
        else if (w)
            spec_field(&S, if_negative(I, w, lit(I, w, "<"), lit(I, w, ">")));
        else if (width > 0 || (text && prec >= 0))
            spec_text(&S, ">");
    } else {
        if (minus)
            spec_text(&S, "<");
        else if (w)
            spec_field(&S, if_negative(I, w, lit(I, w, "<"), lit(I, w, "")));
        if (plus || space)
            spec_text(&S, plus ? "+" : " ");
        if (alt)
            spec_text(&S, "#");
        if (zero && !minus && w)
            spec_field(&S, if_negative(I, w, lit(I, w, ""), lit(I, w, "0")));
        else if (zero && !minus && width > 0)
            spec_text(&S, "0");
    }
    char num[32];
    if (w) {
        Node *neg = ast_new(I->a, N_UNARYOP, w->loc);
        neg->op = OP_NEG;
        neg->a = ast_clone_expr(I->a, w);
        spec_field(&S, if_negative(I, w, neg, ast_clone_expr(I->a, w)));
    } else if (width > 0) {
        snprintf(num, sizeof num, "%lld", (long long)width);
        spec_text(&S, num);
    }
    if (pr) {
        Node *zero0 = ast_new(I->a, N_CONST, pr->loc);
        zero0->cval.kind = CVAL_INT;
        spec_text(&S, ".");
        spec_field(&S, if_negative(I, pr, zero0, ast_clone_expr(I->a, pr)));
    } else if (prec >= 0) {
        snprintf(num, sizeof num, ".%lld", (long long)prec);
        spec_text(&S, num);
    }
    if (!text) {
        num[0] = conv == 'i' || conv == 'u' ? 'd' : conv;
        num[1] = '\0';
        spec_text(&S, num);
    }
    Node *part;
    if (S.f) { /* a spec made at run time */
        spec_flush(&S);
        part = field(I, v, conv_name, NULL, 0);
        part->b = S.f;
    } else {
        part = field(I, v, conv_name, S.text.s, S.text.len);
    }
    sb_free(&S.text);
    return part;
}

/* Parse the literal and build the f-string's parts; false: reported. */
static bool pct_parse(Pct *P, Node *f) {
    Inf *I = P->I;
    const char *s = P->at->cval.s ? P->at->cval.s : "", *e = s + P->at->cval.slen, *lit = s;
    SrcLoc loc = P->at->loc;
    for (const char *q = s; q < e;) {
        if (*q != '%') {
            q++;
            continue;
        }
        if (q > lit)
            vec_push(I->a, &f->args, text_part(I, loc, lit, (size_t)(q - lit)));
        q++;
        if (q < e && *q == '(')
            return UNSUP(I, P->at, "'%%(name)' keys in '%%' formatting are not supported by hpcjit "
                         "(use str.format() with keyword arguments)"), false;
        char flags[8] = {0};
        int nf = 0;
        for (; q < e && strchr("-+ #0", *q); q++)
            if (!strchr(flags, *q) && nf < 6)
                flags[nf++] = *q;
        int64_t width = -1, prec = -1;
        P->wnode = P->pnode = NULL;
        if (q < e && *q == '*') {
            if (!star_value(P, &width, &P->wnode))
                return false;
            if (width < 0 && nf < 6) { /* a negative width left-aligns */
                flags[nf++] = '-';
                width = -width;
            }
            q++;
        } else {
            for (; q < e && *q >= '0' && *q <= '9'; q++)
                width = width > 1000000 ? width : (width < 0 ? 0 : width) * 10 + (*q - '0');
        }
        if (q < e && *q == '.') {
            q++;
            prec = 0;
            if (q < e && *q == '*') {
                if (!star_value(P, &prec, &P->pnode))
                    return false;
                if (prec < 0)
                    prec = 0;
                q++;
            } else {
                for (; q < e && *q >= '0' && *q <= '9'; q++)
                    prec = prec > 1000000 ? prec : prec * 10 + (*q - '0');
            }
        }
        if (width > 100000 || prec > 100000)
            return UNSUP(I, P->at, "a width or precision above 100000 is not supported by hpcjit"), false;
        while (q < e && (*q == 'h' || *q == 'l' || *q == 'L')) /* length modifiers: ignored, as CPython */
            q++;
        if (q >= e)
            return TYPING(I, P->at, "incomplete format"), false;
        char conv = *q;
        if (conv == '%') {
            vec_push(I->a, &f->args, text_part(I, loc, "%", 1));
            lit = ++q;
            continue;
        }
        if (!strchr("diuxXoeEfFgGcsra", conv)) {
            int index = 0;
            uint32_t c = code_point(s, q, &index);
            char ch[8] = {0};
            int nb = 1;
            if ((unsigned char)*q >= 0xc0)
                nb = (unsigned char)*q >= 0xf0 ? 4 : (unsigned char)*q >= 0xe0 ? 3 : 2;
            memcpy(ch, q, (size_t)(q + nb <= e ? nb : 1));
            return TYPING(I, P->at, "unsupported format character '%s' (0x%x) at index %d", ch, (unsigned)c,
                          index), false;
        }
        Node *v = next_arg(P);
        if (!v)
            return false;
        if (!v->ty || IS_UNK(v->ty)) {
            lit = ++q;
            continue;
        }
        Node *part = pct_field(P, v, flags, width, prec, conv);
        if (!part)
            return false;
        vec_push(I->a, &f->args, part);
        lit = ++q;
    }
    if (e > lit)
        vec_push(I->a, &f->args, text_part(I, loc, lit, (size_t)(e - lit)));
    if (P->next < P->nargs)
        return TYPING(I, P->at, "not all arguments converted during string formatting"), false;
    return true;
}


Type *strfmt_percent(Inf *I, Node **pn, Type *bt) {
    Node *n = *pn;
    if (!infer_text_is_strconst(n->a))
        return UNSUP(I, n->a, "'%%' formatting of a str that is not a literal is not supported by hpcjit "
                     "(use a literal format or an f-string)");
    if (IS_UNK(bt))
        return T(I, TY_UNKNOWN);
    Node *b = n->b;
    Pct P = {.I = I, .at = n->a};
    if (bt->kind == TY_TUPLE) {
        P.nargs = bt->nelems;
        P.args = arena_alloc(I->a, sizeof(Node *) * (size_t)(P.nargs + 1));
        if (b->kind == N_TUPLE && b->args.len == bt->nelems) {
            for (int i = 0; i < P.nargs; i++)
                P.args[i] = VEC_AT(b->args, i);
        } else if (simple(b)) { /* t[0], t[1], ... of a tuple variable */
            for (int i = 0; i < P.nargs; i++) {
                Node *ix = ast_new(I->a, N_CONST, b->loc);
                ix->cval.kind = CVAL_INT;
                ix->cval.i = i;
                Node *sub = ast_new(I->a, N_SUBSCRIPT, b->loc);
                sub->a = ast_clone_expr(I->a, b);
                sub->b = ix;
                if (!infer_expr(I, &sub))
                    return NULL;
                P.args[i] = sub;
            }
        } else {
            return UNSUP(I, b, "'%%' formatting of a tuple made by an expression is not supported by hpcjit "
                         "(assign it to a variable first)");
        }
    } else if (bt->kind == TY_DICT || bt->kind == TY_LIST) {
        return UNSUP(I, b, "'%%' formatting with %s is not supported by hpcjit (a value or a tuple of values "
                     "is)", infer_tyname(I, bt));
    } else {
        P.nargs = 1;
        P.args = arena_alloc(I->a, sizeof(Node *));
        P.args[0] = n->b;
    }
    for (int i = 0; i < P.nargs; i++) {
        if (!(P.args[i] = value_node(I, P.args[i])))
            return NULL;
        if (!P.args[i]->ty || IS_UNK(P.args[i]->ty))
            return T(I, TY_UNKNOWN);
    }
    Node *f = ast_new(I->a, N_FSTRING, n->loc);
    if (!pct_parse(&P, f) || !infer_fstring(I, f))
        return NULL;
    if (I->final) {
        Node *c = ast_new(I->a, N_CALL, n->loc);
        install(I, c, f);
        *pn = c;
    }
    return T(I, TY_STRING);
}

/* ---- "fmt".format(...) ---------------------------------------------------------- */

typedef struct Fmt {
    Inf *I;
    Node *at, *call;
    int auto_next; /* -1: manual numbering seen */
    bool manual;
    int *uses, *kwuses; /* per positional and keyword argument */
} Fmt;

static Node *fmt_value(Fmt *F, const char *name, size_t len) {
    Inf *I = F->I;
    Node *n = F->call;
    int pos = -1;
    if (len == 0) {
        if (F->manual)
            return NONE(TYPING(I, F->at, "cannot switch from manual field specification to automatic field numbering"));
        pos = F->auto_next++;
    } else if (name[0] >= '0' && name[0] <= '9') {
        if (F->auto_next > 0)
            return NONE(TYPING(I, F->at, "cannot switch from automatic field numbering to manual field specification"));
        F->manual = true;
        pos = 0;
        for (size_t k = 0; k < len; k++) {
            if (name[k] < '0' || name[k] > '9' || pos > 100000)
                return NONE(UNSUP(I, F->at, "the field name '%.*s' is not supported by hpcjit", (int)len, name));
            pos = pos * 10 + (name[k] - '0');
        }
    }
    if (pos >= 0) {
        if (pos >= n->args.len)
            return NONE(TYPING(I, F->at, "Replacement index %d out of range for positional args tuple", pos));
        Node *v = VEC_AT(n->args, pos);
        if (F->uses[pos]++ > 0 && !simple(v))
            return NONE(UNSUP(I, v, "str.format() argument %d is used by more than one field: hpcjit evaluates it "
                         "once per field (assign it to a variable first)", pos));
        return v;
    }
    for (int i = 0; i < n->keywords.len; i++) {
        Node *k = VEC_AT(n->keywords, i);
        if (strlen(k->name) == len && memcmp(k->name, name, len) == 0) {
            if (F->kwuses[i]++ > 0 && !simple(k->a))
                return NONE(UNSUP(I, k->a, "str.format() argument '%s' is used by more than one field: hpcjit "
                             "evaluates it once per field (assign it to a variable first)", k->name));
            return k->a;
        }
    }
    return NONE(TYPING(I, F->at, "str.format() has no argument named '%.*s' (KeyError)", (int)len, name));
}

/* One field "{name!conv:spec}" between q (after '{') and its '}'. */
static Node *fmt_field(Fmt *F, const char *s, const char *q, const char *end, bool nested) {
    Inf *I = F->I;
    const char *name = q;
    while (q < end && *q != '!' && *q != ':') {
        if (*q == '.' || *q == '[')
            return NONE(UNSUP(I, F->at, "the replacement field '{%.*s}' names %s: not supported by hpcjit "
                         "(pass the value itself)", (int)(end - name), name,
                         *q == '.' ? "an attribute" : "an item"));
        q++;
    }
    size_t nlen = (size_t)(q - name);
    const char *conv = NULL;
    if (q < end && *q == '!') {
        if (q + 1 >= end)
            return NONE(TYPING(I, F->at, "unmatched '{' in format spec"));
        char c = q[1];
        if (q + 2 < end && q[2] != ':')
            return NONE(TYPING(I, F->at, "expected ':' after conversion specifier"));
        if (c == 'a')
            return NONE(UNSUP(I, F->at, "the !a conversion is not supported by hpcjit"));
        if (c != 'r' && c != 's') {
            int index;
            uint32_t cp = code_point(s, q + 1, &index);
            if (cp < 0x80)
                return NONE(TYPING(I, F->at, "Unknown conversion specifier %c", c));
            return NONE(TYPING(I, F->at, "Unknown conversion specifier \\x%x", (unsigned)cp));
        }
        conv = c == 'r' ? "r" : "s";
        q += 2;
    }
    const char *spec = NULL;
    size_t nspec = 0;
    if (q < end && *q == ':') {
        spec = q + 1;
        nspec = (size_t)(end - spec);
    }
    Node *v = value_node(I, fmt_value(F, name, nlen)); /* numbered before the spec's fields */
    if (!v)
        return NULL;
    if (!spec || !memchr(spec, '{', nspec))
        return field(I, v, conv, spec, nspec);
    if (nested)
        return NONE(TYPING(I, F->at, "Max string recursion exceeded"));
    /* "{:{w}.{p}f}": the spec made at run time from its fields */
    Node *sf = ast_new(I->a, N_FSTRING, v->loc);
    const char *t = spec, *se = spec + nspec;
    for (const char *k = spec; k < se;) {
        if (*k != '{') {
            k++;
            continue;
        }
        const char *ke = memchr(k, '}', (size_t)(se - k));
        if (!ke)
            return NONE(TYPING(I, F->at, "unmatched '{' in format spec"));
        if (k > t)
            vec_push(I->a, &sf->args, text_part(I, v->loc, t, (size_t)(k - t)));
        Node *inner = fmt_field(F, s, k + 1, ke, true);
        if (!inner)
            return NULL;
        vec_push(I->a, &sf->args, inner);
        t = k = ke + 1;
    }
    if (se > t)
        vec_push(I->a, &sf->args, text_part(I, v->loc, t, (size_t)(se - t)));
    Node *part = field(I, v, conv, NULL, 0);
    part->b = sf;
    return part;
}

static bool fmt_parse(Fmt *F, Node *f) {
    Inf *I = F->I;
    const char *s = F->at->cval.s ? F->at->cval.s : "", *e = s + F->at->cval.slen;
    SrcLoc loc = F->at->loc;
    StrBuf lit;
    sb_init(&lit);
    bool ok = true;
    for (const char *q = s; q < e && ok;) {
        if (*q == '}') {
            if (q + 1 < e && q[1] == '}') {
                sb_putc(&lit, '}');
                q += 2;
                continue;
            }
            TYPING(I, F->at, "Single '}' encountered in format string");
            ok = false;
            break;
        }
        if (*q != '{') {
            sb_putc(&lit, *q++);
            continue;
        }
        if (q + 1 < e && q[1] == '{') {
            sb_putc(&lit, '{');
            q += 2;
            continue;
        }
        const char *end = q + 1; /* the matching '}' (a spec may nest one level) */
        int depth = 1;
        for (; end < e; end++) {
            if (*end == '{')
                depth++;
            else if (*end == '}' && --depth == 0)
                break;
        }
        if (end >= e) {
            TYPING(I, F->at, depth > 1 || q + 1 < e ? "expected '}' before end of string"
                                                    : "Single '{' encountered in format string");
            ok = false;
            break;
        }
        if (lit.len > 0)
            vec_push(I->a, &f->args, text_part(I, loc, lit.s, lit.len));
        lit.len = 0;
        Node *part = fmt_field(F, s, q + 1, end, false);
        if (!part) {
            ok = false;
            break;
        }
        vec_push(I->a, &f->args, part);
        q = end + 1;
    }
    if (ok && lit.len > 0)
        vec_push(I->a, &f->args, text_part(I, loc, lit.s, lit.len));
    sb_free(&lit);
    if (!ok)
        return false;
    for (int i = 0; i < F->call->args.len; i++) /* Python evaluates every argument */
        if (!F->uses[i] && !simple(VEC_AT(F->call->args, i)))
            return UNSUP(I, VEC_AT(F->call->args, i), "str.format() argument %d is not used by the format: "
                         "hpcjit would not evaluate it", i), false;
    return true;
}

static Type *format_method(Inf *I, Node *n, Node *self) {
    if (!self || !infer_text_is_strconst(self))
        return UNSUP(I, self ? self : n, "str.format() of a str that is not a literal is not supported by hpcjit "
                     "(use a literal format or an f-string)");
    if (n->has_star)
        return UNSUP(I, n, "str.format(*args) is not supported by hpcjit");
    for (int i = 0; i < n->keywords.len; i++) {
        Node *k = VEC_AT(n->keywords, i);
        if (!k->name)
            return UNSUP(I, k, "str.format(**kwargs) is not supported by hpcjit");
    }
    Fmt F = {.I = I, .at = self, .call = n};
    F.uses = arena_alloc(I->a, sizeof(int) * (size_t)(n->args.len + 1));
    F.kwuses = arena_alloc(I->a, sizeof(int) * (size_t)(n->keywords.len + 1));
    memset(F.uses, 0, sizeof(int) * (size_t)(n->args.len + 1));
    memset(F.kwuses, 0, sizeof(int) * (size_t)(n->keywords.len + 1));
    Node *f = ast_new(I->a, N_FSTRING, n->loc);
    if (!fmt_parse(&F, f))
        return NULL;
    for (int i = 0; i < n->keywords.len; i++) {
        Node *k = VEC_AT(n->keywords, i);
        if (!F.kwuses[i] && !simple(k->a))
            return UNSUP(I, k->a, "str.format() argument '%s' is not used by the format: hpcjit would not "
                         "evaluate it", k->name);
    }
    if (!infer_fstring(I, f))
        return NULL;
    if (I->final)
        install(I, n, f);
    return T(I, TY_STRING);
}

/* ---- format(), hex(), bin(), oct() ---------------------------------------------- */

Type *strfmt_call(Inf *I, Node *n, BuiltinId id, Node *self) {
    if (id == BI_STR_FORMAT)
        return format_method(I, n, self);
    const char *fname = builtin_name(id) + 9; /* "builtins." */
    if (n->keywords.len || n->has_star)
        return TYPING(I, n, "%s() takes no keyword arguments", fname);
    int nmax = id == BI_FORMAT ? 2 : 1;
    if (n->args.len < 1 || n->args.len > nmax)
        return TYPING(I, n, "%s() takes %s (%d given)", fname,
                      nmax == 2 ? "from 1 to 2 positional arguments" : "exactly one argument", n->args.len);
    Node **pv = (Node **)&VEC_AT(n->args, 0);
    /* format(v) of an Optional writes None or the value, as str() */
    Type *t = id == BI_FORMAT && n->args.len == 1 ? infer_expr_opt(I, pv) : infer_expr(I, pv);
    if (!t)
        return NULL;
    const char *spec = "";
    Node *spec_value = NULL; /* a spec known at run time only */
    if (id == BI_FORMAT && n->args.len == 2) {
        Node **ps = (Node **)&VEC_AT(n->args, 1);
        Type *st = infer_expr(I, ps);
        if (!st)
            return NULL;
        if (!IS_UNK(st) && st->kind != TY_STRING)
            return TYPING(I, *ps, "format() argument 2 must be str, not %s", infer_tyname(I, st));
        if (infer_text_is_strconst(*ps))
            spec = arena_strndup(I->a, (*ps)->cval.s ? (*ps)->cval.s : "", (size_t)(*ps)->cval.slen);
        else if (!(spec_value = value_node(I, *ps)))
            return NULL;
    }
    if (IS_UNK(t))
        return t;
    if (id != BI_FORMAT) {
        if (!ty_is_int(t) && t->kind != TY_BOOL)
            return TYPING(I, *pv, "'%s' object cannot be interpreted as an integer", infer_tyname(I, t));
        spec = id == BI_HEX ? "#x" : id == BI_BIN ? "#b" : "#o";
    }
    Node *v = value_node(I, *pv);
    if (!v)
        return NULL;
    Node *f = ast_new(I->a, N_FSTRING, n->loc), *part = field(I, v, NULL, spec, strlen(spec));
    if (spec_value) { /* f"{v:{spec}}" */
        part->b = ast_new(I->a, N_FSTRING, spec_value->loc);
        vec_push(I->a, &part->b->args, field(I, spec_value, NULL, "", 0));
    }
    vec_push(I->a, &f->args, part);
    if (!infer_fstring(I, f))
        return NULL;
    if (I->final)
        install(I, n, f);
    return T(I, TY_STRING);
}
