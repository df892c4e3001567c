/* parse.c - recursive-descent parser for Python 3 (CPython 3.11's PEG
 * grammar, simplified) producing the AST of ast.h.
 *
 * Each rule is one function with the rule above it.  The parser builds
 * nodes for every construct, supported or not: refusing what hpcjit cannot
 * compile is inference's job, so that the message names the construct.
 * Nesting is bounded (MAX_DEPTH levels of brackets, blocks and unbracketed
 * recursion such as `- - x`; MAX_CHAIN for left-leaning chains such as
 * a + b + ...) so that no input overflows the C stack here or in the
 * passes that walk the tree. */
#include "ast.h"

#include <string.h>

#define MAX_DEPTH 200
#define MAX_CHAIN 1000

typedef struct Parser {
    Arena *a;
    const SrcFile *file;
    Diag *d;
    Token *t;
    int n, pos;
    int depth;
    bool in_fstring; /* parsing a replacement field: messages say "f-string: " */
} Parser;

static Node *expression(Parser *p);
static Node *named_expression(Parser *p);
static Node *star_expressions(Parser *p);
static Node *star_named_expression(Parser *p);
static Node *disjunction(Parser *p);
static Node *bitwise_or(Parser *p);
static Node *factor(Parser *p);
static Node *primary(Parser *p);
static Node *yield_expr(Parser *p);
static Node *lambdef(Parser *p);
static bool block(Parser *p, PtrVec *out, const char *what, int line);
static bool statement(Parser *p, PtrVec *out);
static bool fstring_body(Parser *p, const Token *tok, const char *s, const char *e, bool raw,
                         PtrVec *parts);

/* ---- token helpers ---- */

static Token *peek(Parser *p) { return &p->t[p->pos]; }
static Token *peek_at(Parser *p, int k) {
    int i = p->pos + k;
    return &p->t[i < p->n ? i : p->n - 1];
}
static bool at(Parser *p, TokKind k) { return p->t[p->pos].kind == k; }
static Token *advance(Parser *p) {
    Token *t = &p->t[p->pos];
    if (t->kind != TK_EOF)
        p->pos++;
    return t;
}
static bool accept(Parser *p, TokKind k) {
    if (!at(p, k))
        return false;
    advance(p);
    return true;
}
static bool is_soft_kw(const Token *t, const char *s) {
    return t->kind == TK_NAME && t->sval && strcmp(t->sval, s) == 0;
}

static void *syntax_error(Parser *p, const Token *t, const char *msg) {
    if (t->kind == TK_INDENT)
        msg = "unexpected indent";
    else if (t->kind == TK_DEDENT && strcmp(msg, "invalid syntax") == 0)
        msg = "unindent does not match any outer indentation level";
    if (p->in_fstring) {
        if (t->kind == TK_EOF)
            msg = "invalid syntax";
        if (strncmp(msg, "f-string: ", 10) != 0) {
            diag_error(p->d, HJ_DIAG_SYNTAX, t->loc, "f-string: %s", msg);
            return NULL;
        }
    }
    diag_error(p->d, HJ_DIAG_SYNTAX, t->loc, "%s", msg);
    return NULL;
}

static Token *expect(Parser *p, TokKind k, const char *msg) {
    if (at(p, k))
        return advance(p);
    syntax_error(p, peek(p), msg);
    return NULL;
}

static bool enter(Parser *p, const char *msg) {
    if (++p->depth > MAX_DEPTH) {
        syntax_error(p, peek(p), msg);
        return false;
    }
    return true;
}
static void leave(Parser *p) { p->depth--; }

static Node *new_node(Parser *p, NodeKind k, const Token *t) { return ast_new(p->a, k, t->loc); }

/* Can `t` begin an expression?  (Decides whether a trailing comma ends a
 * tuple.) */
static bool starts_expr(const Token *t) {
    switch (t->kind) {
    case TK_NAME: case TK_INT: case TK_FLOAT: case TK_IMAG: case TK_STRING:
    case TK_OP_LPAR: case TK_OP_LSQB: case TK_OP_LBRACE: case TK_OP_MINUS: case TK_OP_PLUS:
    case TK_OP_TILDE: case TK_KW_NOT: case TK_KW_LAMBDA: case TK_KW_AWAIT: case TK_KW_TRUE:
    case TK_KW_FALSE: case TK_KW_NONE: case TK_OP_ELLIPSIS: case TK_OP_STAR:
        return true;
    default:
        return false;
    }
}

/* What an invalid target is called in "cannot assign to X". */
static const char *target_desc(const Node *e) {
    switch (e->kind) {
    case N_CONST: return e->cval.kind == CVAL_NONE || e->cval.kind == CVAL_BOOL ? "constant" : "literal";
    case N_CALL: return "function call";
    case N_COMPARE: return "comparison";
    case N_IFEXP: return "conditional expression";
    case N_LAMBDA: return "lambda";
    case N_COMP: return (const char *[]){"list comprehension", "set comprehension",
                                         "dict comprehension", "generator expression"}[e->comp_kind & 3];
    case N_YIELD: return "yield expression";
    case N_AWAIT: return "await expression";
    case N_NAMEDEXPR: return "named expression";
    case N_DICT: return "dict literal";
    case N_SET: return "set display";
    case N_FSTRING: return "f-string expression";
    case N_STARRED: return "starred";
    default: return "expression";
    }
}

/* Is `e` a valid assignment (or del) target?  Reports the error. */
static bool check_target(Parser *p, Node *e, bool del) {
    switch (e->kind) {
    case N_NAME: case N_ATTRIBUTE: case N_SUBSCRIPT:
        return true;
    case N_TUPLE: case N_LIST: {
        int nstar = 0;
        for (int i = 0; i < e->args.len; i++) {
            Node *x = VEC_AT(e->args, i);
            if (x->kind == N_STARRED && !del) {
                if (++nstar > 1) {
                    diag_error(p->d, HJ_DIAG_SYNTAX, x->loc, "multiple starred expressions in assignment");
                    return false;
                }
                if (!check_target(p, x->a, del))
                    return false;
                continue;
            }
            if (!check_target(p, x, del))
                return false;
        }
        return true;
    }
    case N_STARRED:
        if (!del) {
            diag_error(p->d, HJ_DIAG_SYNTAX, e->loc, "starred assignment target must be in a list or tuple");
            return false;
        }
        break;
    default:
        break;
    }
    diag_error(p->d, HJ_DIAG_SYNTAX, e->loc, "cannot %s %s", del ? "delete" : "assign to", target_desc(e));
    return false;
}

/* ---- atoms ---- */

static Node *const_node(Parser *p, const Token *t, CvalKind k) {
    Node *n = new_node(p, N_CONST, t);
    n->cval.kind = k;
    return n;
}

/* Location of byte `q` inside the text of token `t` (which starts at t->loc). */
static SrcLoc loc_in_token(const Token *t, const char *q) {
    SrcLoc l = t->loc;
    for (const char *s = t->start; s < q; s++) {
        if (*s == '\n') {
            l.line++;
            l.col = 1;
        } else if (((unsigned char)*s & 0xC0) != 0x80) {
            l.col++;
        }
    }
    return l;
}

static void push_str_part(Parser *p, PtrVec *parts, SrcLoc loc, const char *s, int n) {
    if (n == 0)
        return;
    Node *last = parts->len ? VEC_AT(*parts, parts->len - 1) : NULL;
    if (last && last->kind == N_CONST) { /* merge adjacent literal parts */
        char *m = arena_alloc(p->a, (size_t)(last->cval.slen + n + 1));
        memcpy(m, last->cval.s, (size_t)last->cval.slen);
        memcpy(m + last->cval.slen, s, (size_t)n);
        last->cval.s = m;
        last->cval.slen += n;
        return;
    }
    Node *c = ast_new(p->a, N_CONST, loc);
    c->cval.kind = CVAL_STR;
    c->cval.s = s;
    c->cval.slen = n;
    vec_push(p->a, parts, c);
}

static void *fstring_error(Parser *p, const Token *tok, const char *q, const char *msg) {
    diag_error(p->d, HJ_DIAG_SYNTAX, loc_in_token(tok, q), "f-string: %s", msg);
    return NULL;
}

/* The replacement field starting after '{' at s (body ends at e):
 *   '{' (yield_expr | star_expressions) ['='] ['!' NAME] [':' format_spec] '}'
 * Returns the position after the closing '}', NULL on error. */
static const char *fstring_field(Parser *p, const Token *tok, const char *s, const char *e,
                                 bool raw, PtrVec *parts) {
    const char *q = s;
    int depth = 0;
    while (q < e) {
        char c = *q;
        if (c == '\'' || c == '"') {
            bool triple = q + 2 < e && q[1] == c && q[2] == c;
            const char *r = q + (triple ? 3 : 1);
            while (r < e && !(*r == c && (!triple || (r + 2 < e && r[1] == c && r[2] == c))))
                r++;
            if (r >= e)
                return fstring_error(p, tok, q, "unterminated string");
            q = r + (triple ? 3 : 1);
            continue;
        }
        if (c == '(' || c == '[' || c == '{')
            depth++;
        else if ((c == ')' || c == ']' || c == '}') && depth > 0)
            depth--;
        else if (depth == 0 && (c == '}' || c == ':' || (c == '!' && q + 1 < e && q[1] != '=')))
            break;
        else if (c == '\\')
            return fstring_error(p, tok, q, "expression part cannot include a backslash");
        else if (c == '#')
            return fstring_error(p, tok, q, "expression part cannot include '#'");
        q++;
    }
    if (q >= e)
        return fstring_error(p, tok, s - 1, "expecting '}'");
    const char *xe = q;
    /* `{x=}`: the text of the expression, then its repr */
    const char *te = xe;
    while (te > s && (te[-1] == ' ' || te[-1] == '\t' || te[-1] == '\n'))
        te--;
    bool debug = te > s && te[-1] == '=' && (te - 1 == s || !strchr("=!<>", te[-2]));
    if (debug) {
        push_str_part(p, parts, loc_in_token(tok, s), arena_strndup(p->a, s, (size_t)(xe - s)),
                      (int)(xe - s));
        xe = te - 1;
    }
    const char *ws = s;
    while (ws < xe && (*ws == ' ' || *ws == '\t' || *ws == '\n'))
        ws++;
    if (ws == xe)
        return fstring_error(p, tok, s - 1, "empty expression not allowed");

    SrcLoc xl = loc_in_token(tok, s);
    int ntoks = 0;
    Token *toks = lex_tokenize_range(p->a, p->file, s, xe, xl.line, xl.col, p->d, &ntoks);
    if (!toks)
        return NULL;
    Parser sub = *p;
    sub.t = toks;
    sub.n = ntoks;
    sub.pos = 0;
    sub.in_fstring = true;
    Node *value = at(&sub, TK_KW_YIELD) ? yield_expr(&sub) : star_expressions(&sub);
    if (!value)
        return NULL;
    if (!at(&sub, TK_EOF))
        return syntax_error(&sub, peek(&sub), "f-string: invalid syntax");

    Node *f = ast_new(p->a, N_FORMATTED, value->loc);
    f->a = value;
    if (debug)
        f->name = "r";
    bool explicit_conv = *q == '!';
    if (explicit_conv) {
        q++;
        if (q >= e || !strchr("rsa", *q) || q + 1 >= e || (q[1] != ':' && q[1] != '}'))
            return fstring_error(p, tok, q,
                                 "invalid conversion character: expected 's', 'r', or 'a'");
        f->name = arena_strndup(p->a, q, 1);
        q++;
    }
    if (*q == ':') {
        q++;
        const char *ss = q;
        int d2 = 0;
        while (q < e && !(*q == '}' && d2 == 0)) {
            if (d2 > 0 && (*q == '\'' || *q == '"')) { /* a string inside a nested field */
                const char *r = q + 1;
                while (r < e && *r != *q)
                    r++;
                q = r < e ? r + 1 : r;
                continue;
            }
            if (*q == '{')
                d2++;
            else if (*q == '}')
                d2--;
            q++;
        }
        if (q >= e)
            return fstring_error(p, tok, s - 1, "expecting '}'");
        Node *spec = ast_new(p->a, N_FSTRING, loc_in_token(tok, ss));
        if (!enter(p, "f-string: expressions nested too deeply"))
            return NULL;
        bool ok = fstring_body(p, tok, ss, q, raw, &spec->args);
        leave(p);
        if (!ok)
            return NULL;
        f->b = spec;
        if (debug && !explicit_conv)
            f->name = NULL; /* `{x=:spec}` formats with the spec, not repr */
    }
    if (q >= e || *q != '}')
        return fstring_error(p, tok, s - 1, "expecting '}'");
    vec_push(p->a, parts, f);
    return q + 1;
}

/* Literal text and replacement fields of an f-string body [s, e). */
static bool fstring_body(Parser *p, const Token *tok, const char *s, const char *e, bool raw,
                         PtrVec *parts) {
    StrBuf run;
    sb_init(&run);
    const char *run_start = s;
    bool ok = false;
    while (s < e) {
        char c = *s;
        bool flush = false;
        if ((c == '{' || c == '}') && s + 1 < e && s[1] == c) {
            sb_putc(&run, c);
            s += 2;
            continue;
        }
        if (c == '}') {
            fstring_error(p, tok, s, "single '}' is not allowed");
            goto done;
        }
        if (c == '{') {
            flush = true;
        } else if (c == '\\' && !raw && s + 2 < e && s[1] == 'N' && s[2] == '{') {
            /* \N{NAME}: its braces are not a replacement field */
            const char *r = s + 3;
            while (r < e && *r != '}')
                r++;
            sb_putn(&run, s, (size_t)(r < e ? r + 1 - s : r - s));
            s = r < e ? r + 1 : r;
            continue;
        } else if (c == '\\' && !raw && s + 1 < e && s[1] != '{' && s[1] != '}') {
            sb_putn(&run, s, 2);
            s += 2;
            continue;
        } else {
            sb_putc(&run, c);
            s++;
            continue;
        }
        if (flush) {
            if (run.len) {
                const char *err = NULL;
                int n = 0;
                char *dec = lex_decode_string(p->a, run.s, (int)run.len, false, raw, &n, &err);
                if (!dec) {
                    fstring_error(p, tok, run_start, err ? err : "invalid escape");
                    goto done;
                }
                push_str_part(p, parts, loc_in_token(tok, run_start), dec, n);
                run.len = 0;
            }
            s = fstring_field(p, tok, s + 1, e, raw, parts);
            if (!s)
                goto done;
            run_start = s;
        }
    }
    if (run.len) {
        const char *err = NULL;
        int n = 0;
        char *dec = lex_decode_string(p->a, run.s, (int)run.len, false, raw, &n, &err);
        if (!dec) {
            fstring_error(p, tok, run_start, err ? err : "invalid escape");
            goto done;
        }
        push_str_part(p, parts, loc_in_token(tok, run_start), dec, n);
    }
    ok = !run.oom;
done:
    sb_free(&run);
    return ok;
}

/* strings: STRING+  (adjacent literals concatenate; any f-string makes the
 * whole an N_FSTRING) */
static Node *strings(Parser *p) {
    Token *first = peek(p);
    bool any_f = false;
    int total = 0, count = 0;
    for (Token *t = first; t->kind == TK_STRING; t++, count++) {
        if (t->is_bytes != first->is_bytes)
            return syntax_error(p, t, "cannot mix bytes and nonbytes literals");
        any_f |= t->is_fstring;
        total += t->slen;
    }
    if (!any_f) {
        Node *n = const_node(p, first, CVAL_STR);
        char *s = arena_alloc(p->a, (size_t)total + 1);
        int off = 0;
        for (int i = 0; i < count; i++) {
            Token *t = advance(p);
            if (!p->a->oom)
                memcpy(s + off, t->sval, (size_t)t->slen);
            off += t->slen;
        }
        n->cval.s = s;
        n->cval.slen = total;
        n->cval.is_bytes = first->is_bytes;
        return n;
    }
    Node *f = new_node(p, N_FSTRING, first);
    for (int i = 0; i < count; i++) {
        Token *t = advance(p);
        if (!t->is_fstring) {
            push_str_part(p, &f->args, t->loc, t->sval, t->slen);
            continue;
        }
        const char *s = t->start;
        bool raw = false;
        while (*s != '\'' && *s != '"') {
            raw |= (*s | 32) == 'r';
            s++;
        }
        int ql = (t->start + t->len - s >= 6 && s[1] == s[0] && s[2] == s[0]) ? 3 : 1;
        if (!fstring_body(p, t, s + ql, t->start + t->len - ql, raw, &f->args))
            return NULL;
    }
    return f;
}

/* for_if_clauses: (['async'] 'for' star_targets 'in' disjunction ('if' disjunction)*)+ */
static bool for_if_clauses(Parser *p, PtrVec *out);

/* A comprehension or generator expression whose element(s) are parsed. */
static Node *comprehension(Parser *p, const Token *start, int kind, Node *elt, Node *value) {
    Node *c = new_node(p, N_COMP, start);
    c->comp_kind = kind;
    c->a = elt;
    c->b = value;
    if (!for_if_clauses(p, &c->generators))
        return NULL;
    return c;
}

static bool at_for(Parser *p) {
    return at(p, TK_KW_FOR) || (at(p, TK_KW_ASYNC) && peek_at(p, 1)->kind == TK_KW_FOR);
}

/* star_targets: star_target (',' star_target)* [','];  star_target: ['*'] bitwise_or
 * (at bitwise_or level so that `in` ends the targets) */
static Node *star_targets(Parser *p) {
    Token *start = peek(p);
    Node *tup = NULL;
    for (;;) {
        Node *e;
        Token *t = peek(p);
        if (accept(p, TK_OP_STAR)) {
            Node *x = bitwise_or(p);
            if (!x)
                return NULL;
            e = new_node(p, N_STARRED, t);
            e->a = x;
        } else {
            e = bitwise_or(p);
            if (!e)
                return NULL;
        }
        if (!tup && !at(p, TK_OP_COMMA))
            return e;
        if (!tup)
            tup = new_node(p, N_TUPLE, start);
        vec_push(p->a, &tup->args, e);
        if (!accept(p, TK_OP_COMMA) || !starts_expr(peek(p)))
            return tup;
    }
}

static bool for_if_clauses(Parser *p, PtrVec *out) {
    while (at_for(p)) {
        Token *t = peek(p);
        Node *g = new_node(p, N_COMPFOR, t);
        g->is_async = accept(p, TK_KW_ASYNC);
        advance(p);
        g->a = star_targets(p);
        if (!g->a || !check_target(p, g->a, false))
            return false;
        if (!expect(p, TK_KW_IN, "expected 'in'"))
            return false;
        g->b = disjunction(p);
        if (!g->b)
            return false;
        while (accept(p, TK_KW_IF)) {
            Node *c = disjunction(p);
            if (!c)
                return false;
            vec_push(p->a, &g->args, c);
        }
        vec_push(p->a, out, g);
    }
    return true;
}

/* group/tuple/genexp:
 *   '(' [yield_expr | named_expression] ')'
 *   '(' [star_named_expression ',' [star_named_expressions]] ')'
 *   '(' named_expression for_if_clauses ')' */
static Node *paren_atom(Parser *p) {
    Token *open = advance(p);
    if (accept(p, TK_OP_RPAR))
        return new_node(p, N_TUPLE, open);
    if (at(p, TK_KW_YIELD)) {
        Node *y = yield_expr(p);
        if (!y || !expect(p, TK_OP_RPAR, "'(' was never closed"))
            return NULL;
        return y;
    }
    Node *e = star_named_expression(p);
    if (!e)
        return NULL;
    if (at_for(p)) {
        if (e->kind == N_STARRED)
            return syntax_error(p, open, "iterable unpacking cannot be used in comprehension");
        Node *c = comprehension(p, open, 3, e, NULL);
        if (!c || !expect(p, TK_OP_RPAR, "invalid syntax"))
            return NULL;
        return c;
    }
    if (accept(p, TK_OP_RPAR)) {
        if (e->kind == N_STARRED) {
            diag_error(p->d, HJ_DIAG_SYNTAX, e->loc, "cannot use starred expression here");
            return NULL;
        }
        return e;
    }
    Node *tup = new_node(p, N_TUPLE, open);
    vec_push(p->a, &tup->args, e);
    while (accept(p, TK_OP_COMMA)) {
        if (at(p, TK_OP_RPAR))
            break;
        e = star_named_expression(p);
        if (!e)
            return NULL;
        vec_push(p->a, &tup->args, e);
    }
    if (!expect(p, TK_OP_RPAR, "invalid syntax. Perhaps you forgot a comma?"))
        return NULL;
    return tup;
}

/* list: '[' [star_named_expressions] ']';  listcomp: '[' named_expression for_if_clauses ']' */
static Node *list_atom(Parser *p) {
    Token *open = advance(p);
    Node *l = new_node(p, N_LIST, open);
    if (accept(p, TK_OP_RSQB))
        return l;
    Node *e = star_named_expression(p);
    if (!e)
        return NULL;
    if (at_for(p)) {
        if (e->kind == N_STARRED)
            return syntax_error(p, open, "iterable unpacking cannot be used in comprehension");
        Node *c = comprehension(p, open, 0, e, NULL);
        if (!c || !expect(p, TK_OP_RSQB, "invalid syntax"))
            return NULL;
        return c;
    }
    vec_push(p->a, &l->args, e);
    while (accept(p, TK_OP_COMMA)) {
        if (at(p, TK_OP_RSQB))
            break;
        e = star_named_expression(p);
        if (!e)
            return NULL;
        vec_push(p->a, &l->args, e);
    }
    if (!expect(p, TK_OP_RSQB, "invalid syntax. Perhaps you forgot a comma?"))
        return NULL;
    return l;
}

/* dict: '{' [double_starred_kvpairs] '}';  set: '{' star_named_expressions '}'
 * dictcomp: '{' kvpair for_if_clauses '}';  setcomp: '{' named_expression for_if_clauses '}'
 * kvpair: expression ':' expression | '**' bitwise_or */
static Node *brace_atom(Parser *p) {
    Token *open = advance(p);
    if (accept(p, TK_OP_RBRACE))
        return new_node(p, N_DICT, open);
    bool is_dict;
    Node *k = NULL, *v = NULL;
    if (accept(p, TK_OP_DOUBLESTAR)) {
        is_dict = true;
        v = bitwise_or(p);
        if (!v)
            return NULL;
    } else {
        Token *kt = peek(p);
        k = star_named_expression(p);
        if (!k)
            return NULL;
        is_dict = at(p, TK_OP_COLON);
        if (is_dict) {
            if (k->kind == N_STARRED || (k->kind == N_NAMEDEXPR && kt->kind != TK_OP_LPAR)) {
                diag_error(p->d, HJ_DIAG_SYNTAX, k->loc, "invalid syntax");
                return NULL;
            }
            advance(p);
            v = expression(p);
            if (!v)
                return NULL;
        }
    }
    if (at_for(p)) {
        if ((is_dict && !k) || (k && k->kind == N_STARRED))
            return syntax_error(p, open, "iterable unpacking cannot be used in comprehension");
        Node *c = is_dict ? comprehension(p, open, 2, k, v) : comprehension(p, open, 1, k, NULL);
        if (!c || !expect(p, TK_OP_RBRACE, "invalid syntax"))
            return NULL;
        return c;
    }
    Node *n = new_node(p, is_dict ? N_DICT : N_SET, open);
    for (;;) {
        vec_push(p->a, &n->args, is_dict ? (void *)k : (void *)k);
        if (is_dict)
            vec_push(p->a, &n->args2, v);
        if (!accept(p, TK_OP_COMMA) || at(p, TK_OP_RBRACE))
            break;
        k = v = NULL;
        if (is_dict) {
            if (accept(p, TK_OP_DOUBLESTAR)) {
                v = bitwise_or(p);
                if (!v)
                    return NULL;
                continue;
            }
            k = expression(p);
            if (!k || !expect(p, TK_OP_COLON, "':' expected after dictionary key"))
                return NULL;
            v = expression(p);
            if (!v)
                return NULL;
        } else {
            k = star_named_expression(p);
            if (!k)
                return NULL;
        }
    }
    if (!expect(p, TK_OP_RBRACE, "invalid syntax. Perhaps you forgot a comma?"))
        return NULL;
    return n;
}

/* atom: NAME | 'True' | 'False' | 'None' | strings | NUMBER
 *     | (tuple | group | genexp) | (list | listcomp) | (dict | set | dictcomp | setcomp) | '...' */
static Node *atom(Parser *p) {
    Token *t = peek(p);
    Node *n;
    switch (t->kind) {
    case TK_NAME:
        advance(p);
        n = new_node(p, N_NAME, t);
        n->name = t->sval;
        return n;
    case TK_KW_TRUE: case TK_KW_FALSE:
        advance(p);
        n = const_node(p, t, CVAL_BOOL);
        n->cval.i = t->kind == TK_KW_TRUE;
        return n;
    case TK_KW_NONE:
        advance(p);
        return const_node(p, t, CVAL_NONE);
    case TK_OP_ELLIPSIS:
        advance(p);
        return const_node(p, t, CVAL_ELLIPSIS);
    case TK_INT:
        advance(p);
        n = const_node(p, t, CVAL_INT);
        n->cval.i = t->ival;
        n->cval.overflow = t->ival_overflow;
        n->cval.is_u64 = t->ival_u64;
        return n;
    case TK_FLOAT:
        advance(p);
        n = const_node(p, t, CVAL_FLOAT);
        n->cval.f = t->fval;
        return n;
    case TK_IMAG:
        advance(p);
        n = const_node(p, t, CVAL_COMPLEX);
        n->cval.f_imag = t->fval;
        return n;
    case TK_STRING:
        return strings(p);
    case TK_OP_LPAR: case TK_OP_LSQB: case TK_OP_LBRACE:
        if (!enter(p, "too many nested parentheses"))
            return NULL;
        n = t->kind == TK_OP_LPAR ? paren_atom(p) : t->kind == TK_OP_LSQB ? list_atom(p) : brace_atom(p);
        leave(p);
        return n;
    case TK_EOF:
        return syntax_error(p, t, "unexpected EOF while parsing");
    case TK_NEWLINE:
        return syntax_error(p, t, "invalid syntax");
    default:
        if (t->kind >= TK_KW_FALSE && t->kind <= TK_KW_YIELD)
            return syntax_error(p, t, "invalid syntax");
        return syntax_error(p, t, "invalid syntax");
    }
}

/* slice: [expression] ':' [expression] [':' [expression]] | named_expression */
static Node *slice(Parser *p) {
    Token *t = peek(p);
    Node *lo = NULL;
    if (!at(p, TK_OP_COLON)) {
        lo = named_expression(p);
        if (!lo || !at(p, TK_OP_COLON))
            return lo;
    }
    Node *s = new_node(p, N_SLICE, t);
    s->a = lo;
    advance(p); /* ':' */
    if (!at(p, TK_OP_COLON) && !at(p, TK_OP_COMMA) && !at(p, TK_OP_RSQB)) {
        s->b = expression(p);
        if (!s->b)
            return NULL;
    }
    if (accept(p, TK_OP_COLON) && !at(p, TK_OP_COMMA) && !at(p, TK_OP_RSQB)) {
        s->c = expression(p);
        if (!s->c)
            return NULL;
    }
    return s;
}

/* slices: slice !',' | ','.(slice | starred_expression)+ [','] */
static Node *slices(Parser *p) {
    Token *start = peek(p);
    Node *tup = NULL;
    for (;;) {
        Node *e;
        Token *t = peek(p);
        if (accept(p, TK_OP_STAR)) {
            Node *x = bitwise_or(p);
            if (!x)
                return NULL;
            e = new_node(p, N_STARRED, t);
            e->a = x;
        } else {
            e = slice(p);
            if (!e)
                return NULL;
        }
        if (!tup && !at(p, TK_OP_COMMA))
            return e;
        if (!tup)
            tup = new_node(p, N_TUPLE, start);
        vec_push(p->a, &tup->args, e);
        if (!accept(p, TK_OP_COMMA) || at(p, TK_OP_RSQB))
            return tup;
    }
}

/* arguments: (starred_expression | (assignment_expression | expression !':=') !'=')*
 *            kwarg_or_starred* kwarg_or_double_starred*
 * A lone generator expression argument needs no parentheses. */
static bool arguments(Parser *p, Node *call, TokKind close) {
    bool seen_kw = false, seen_kwstar = false;
    while (!at(p, close)) {
        Token *t = peek(p);
        if (accept(p, TK_OP_STAR)) {
            if (seen_kwstar) {
                syntax_error(p, t, "iterable argument unpacking follows keyword argument unpacking");
                return false;
            }
            Node *s = new_node(p, N_STARRED, t);
            s->a = expression(p);
            if (!s->a)
                return false;
            vec_push(p->a, &call->args, s);
            call->has_star = 1;
        } else if (accept(p, TK_OP_DOUBLESTAR)) {
            Node *k = new_node(p, N_KEYWORD, t);
            k->a = expression(p);
            if (!k->a)
                return false;
            vec_push(p->a, &call->keywords, k);
            call->has_star = 1;
            seen_kwstar = true;
        } else if (t->kind == TK_NAME && peek_at(p, 1)->kind == TK_OP_EQUAL) {
            advance(p);
            advance(p);
            Node *k = new_node(p, N_KEYWORD, t);
            k->name = t->sval;
            k->a = expression(p);
            if (!k->a)
                return false;
            for (int i = 0; i < call->keywords.len; i++) {
                Node *o = VEC_AT(call->keywords, i);
                if (o->name && strcmp(o->name, k->name) == 0) {
                    diag_error(p->d, HJ_DIAG_SYNTAX, k->loc, "keyword argument repeated: %s", k->name);
                    return false;
                }
            }
            vec_push(p->a, &call->keywords, k);
            seen_kw = true;
        } else {
            Node *e = named_expression(p);
            if (!e)
                return false;
            if (at_for(p)) {
                e = comprehension(p, t, 3, e, NULL);
                if (!e)
                    return false;
                if (call->args.len || call->keywords.len || !at(p, close)) {
                    diag_error(p->d, HJ_DIAG_SYNTAX, e->loc, "Generator expression must be parenthesized");
                    return false;
                }
            } else if (at(p, TK_OP_EQUAL)) {
                syntax_error(p, peek(p), "expression cannot contain assignment, perhaps you meant \"==\"?");
                return false;
            }
            if (seen_kwstar) {
                diag_error(p->d, HJ_DIAG_SYNTAX, e->loc, "positional argument follows keyword argument unpacking");
                return false;
            }
            if (seen_kw) {
                diag_error(p->d, HJ_DIAG_SYNTAX, e->loc, "positional argument follows keyword argument");
                return false;
            }
            vec_push(p->a, &call->args, e);
        }
        if (!accept(p, TK_OP_COMMA))
            break;
    }
    if (!at(p, close)) {
        syntax_error(p, peek(p), close == TK_OP_RPAR ? "invalid syntax. Perhaps you forgot a comma?"
                                                     : "invalid syntax");
        return false;
    }
    advance(p);
    return true;
}

/* primary: primary '.' NAME | primary genexp | primary '(' [arguments] ')'
 *        | primary '[' slices ']' | atom */
static Node *primary(Parser *p) {
    Node *e = atom(p);
    int chain = 0;
    while (e) {
        Token *t = peek(p);
        if (t->kind != TK_OP_DOT && t->kind != TK_OP_LPAR && t->kind != TK_OP_LSQB)
            break;
        if (++chain > MAX_CHAIN)
            return syntax_error(p, t, "expression too deeply nested");
        advance(p);
        if (t->kind == TK_OP_DOT) {
            Token *nm = expect(p, TK_NAME, "invalid syntax");
            if (!nm)
                return NULL;
            Node *at_ = ast_new(p->a, N_ATTRIBUTE, e->loc);
            at_->a = e;
            at_->name = nm->sval;
            e = at_;
            continue;
        }
        if (!enter(p, "too many nested parentheses"))
            return NULL;
        if (t->kind == TK_OP_LPAR) {
            Node *c = ast_new(p->a, N_CALL, e->loc);
            c->a = e;
            if (!arguments(p, c, TK_OP_RPAR))
                return NULL;
            e = c;
        } else {
            Node *s = ast_new(p->a, N_SUBSCRIPT, e->loc);
            s->a = e;
            s->b = slices(p);
            if (!s->b || !expect(p, TK_OP_RSQB, "invalid syntax"))
                return NULL;
            e = s;
        }
        leave(p);
    }
    return e;
}

/* await_primary: 'await' primary | primary */
static Node *await_primary(Parser *p) {
    Token *t = peek(p);
    if (accept(p, TK_KW_AWAIT)) {
        Node *w = new_node(p, N_AWAIT, t);
        w->a = primary(p);
        return w->a ? w : NULL;
    }
    return primary(p);
}

/* power: await_primary '**' factor | await_primary */
static Node *power(Parser *p) {
    Node *e = await_primary(p);
    if (!e || !at(p, TK_OP_DOUBLESTAR))
        return e;
    advance(p);
    if (!enter(p, "too deeply nested"))
        return NULL;
    Node *r = factor(p);
    leave(p);
    if (!r)
        return NULL;
    Node *b = ast_new(p->a, N_BINOP, e->loc);
    b->op = OP_POW;
    b->a = e;
    b->b = r;
    return b;
}

/* factor: '+' factor | '-' factor | '~' factor | power */
static Node *factor(Parser *p) {
    Token *t = peek(p);
    OpKind op = t->kind == TK_OP_PLUS ? OP_POS : t->kind == TK_OP_MINUS ? OP_NEG
              : t->kind == TK_OP_TILDE ? OP_INVERT : OP_NONE;
    if (op == OP_NONE)
        return power(p);
    advance(p);
    if (!enter(p, "too deeply nested"))
        return NULL;
    Node *x = factor(p);
    leave(p);
    if (!x)
        return NULL;
    /* -9223372036854775808 is an int64 even though its literal is not */
    if (op == OP_NEG && x->kind == N_CONST && x->cval.kind == CVAL_INT && x->cval.overflow &&
        (uint64_t)x->cval.i == (uint64_t)1 << 63 && t + 1 == &p->t[p->pos - 1]) {
        x->cval.overflow = false;
        x->cval.is_u64 = false;
        x->cval.i = INT64_MIN;
        x->loc = t->loc;
        return x;
    }
    Node *u = new_node(p, N_UNARYOP, t);
    u->op = op;
    u->a = x;
    return u;
}

/* Binary operator levels, loosest first:
 *   bitwise_or: bitwise_or '|' bitwise_xor;  bitwise_xor: '^';  bitwise_and: '&'
 *   shift_expr: '<<' '>>';  sum: '+' '-';  term: '*' '/' '//' '%' '@'  (then factor) */
typedef struct BinLevel {
    TokKind tk[5];
    OpKind op[5];
} BinLevel;

static const BinLevel bin_levels[] = {
    {{TK_OP_VBAR}, {OP_BITOR}},
    {{TK_OP_CIRCUMFLEX}, {OP_BITXOR}},
    {{TK_OP_AMPER}, {OP_BITAND}},
    {{TK_OP_LEFTSHIFT, TK_OP_RIGHTSHIFT}, {OP_LSHIFT, OP_RSHIFT}},
    {{TK_OP_PLUS, TK_OP_MINUS}, {OP_ADD, OP_SUB}},
    {{TK_OP_STAR, TK_OP_SLASH, TK_OP_DOUBLESLASH, TK_OP_PERCENT, TK_OP_AT},
     {OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD, OP_MATMUL}},
};
#define NLEVELS ((int)(sizeof bin_levels / sizeof bin_levels[0]))

static Node *binary(Parser *p, int level) {
    if (level == NLEVELS)
        return factor(p);
    Node *e = binary(p, level + 1);
    int chain = 0;
    while (e) {
        TokKind k = peek(p)->kind;
        OpKind op = OP_NONE;
        for (int i = 0; i < 5 && bin_levels[level].op[i] != OP_NONE; i++)
            if (bin_levels[level].tk[i] == k)
                op = bin_levels[level].op[i];
        if (op == OP_NONE)
            break;
        if (++chain > MAX_CHAIN)
            return syntax_error(p, peek(p), "expression too deeply nested");
        advance(p);
        Node *r = binary(p, level + 1);
        if (!r)
            return NULL;
        Node *b = ast_new(p->a, N_BINOP, e->loc);
        b->op = op;
        b->a = e;
        b->b = r;
        e = b;
    }
    return e;
}

static Node *bitwise_or(Parser *p) { return binary(p, 0); }

/* comparison: bitwise_or (compare_op bitwise_or)*
 * compare_op: '==' | '!=' | '<=' | '<' | '>=' | '>' | 'not' 'in' | 'in' | 'is' 'not' | 'is' */
static Node *comparison(Parser *p) {
    Node *e = bitwise_or(p);
    if (!e)
        return NULL;
    Node *cmp = NULL;
    int cap = 0;
    for (;;) {
        Token *t = peek(p);
        OpKind op;
        switch (t->kind) {
        case TK_OP_EQEQUAL: op = OP_EQ; break;
        case TK_OP_NOTEQUAL: op = OP_NE; break;
        case TK_OP_LESS: op = OP_LT; break;
        case TK_OP_LESSEQUAL: op = OP_LE; break;
        case TK_OP_GREATER: op = OP_GT; break;
        case TK_OP_GREATEREQUAL: op = OP_GE; break;
        case TK_KW_IN: op = OP_IN; break;
        case TK_KW_IS: op = peek_at(p, 1)->kind == TK_KW_NOT ? OP_ISNOT : OP_IS; break;
        case TK_KW_NOT:
            if (peek_at(p, 1)->kind != TK_KW_IN)
                return cmp ? cmp : e;
            op = OP_NOTIN;
            break;
        default:
            return cmp ? cmp : e;
        }
        advance(p);
        if (op == OP_ISNOT || op == OP_NOTIN)
            advance(p);
        Node *r = bitwise_or(p);
        if (!r)
            return NULL;
        if (!cmp) {
            cmp = ast_new(p->a, N_COMPARE, e->loc);
            cmp->a = e;
        }
        if (cmp->args.len == cap) {
            int ncap = cap ? cap * 2 : 4;
            OpKind *nops = arena_alloc(p->a, sizeof(OpKind) * (size_t)ncap);
            if (p->a->oom)
                return NULL;
            if (cap)
                memcpy(nops, cmp->ops, sizeof(OpKind) * (size_t)cap);
            cmp->ops = nops;
            cap = ncap;
        }
        cmp->ops[cmp->args.len] = op;
        vec_push(p->a, &cmp->args, r);
    }
}

/* inversion: 'not' inversion | comparison */
static Node *inversion(Parser *p) {
    Token *t = peek(p);
    if (!accept(p, TK_KW_NOT))
        return comparison(p);
    if (!enter(p, "too deeply nested"))
        return NULL;
    Node *x = inversion(p);
    leave(p);
    if (!x)
        return NULL;
    Node *u = new_node(p, N_UNARYOP, t);
    u->op = OP_NOT;
    u->a = x;
    return u;
}

/* conjunction: inversion ('and' inversion)+ | inversion
 * disjunction: conjunction ('or' conjunction)+ | conjunction */
static Node *boolop(Parser *p, bool is_or) {
    Node *e = is_or ? boolop(p, false) : inversion(p);
    TokKind k = is_or ? TK_KW_OR : TK_KW_AND;
    if (!e || !at(p, k))
        return e;
    Node *b = ast_new(p->a, N_BOOLOP, e->loc);
    b->op = is_or ? OP_OR : OP_AND;
    vec_push(p->a, &b->args, e);
    while (accept(p, k)) {
        Node *x = is_or ? boolop(p, false) : inversion(p);
        if (!x)
            return NULL;
        vec_push(p->a, &b->args, x);
    }
    return b;
}

static Node *disjunction(Parser *p) { return boolop(p, true); }

/* expression: disjunction 'if' disjunction 'else' expression | disjunction | lambdef */
static Node *expression(Parser *p) {
    if (at(p, TK_KW_LAMBDA))
        return lambdef(p);
    Node *e = disjunction(p);
    if (!e || !at(p, TK_KW_IF))
        return e;
    advance(p);
    Node *x = ast_new(p->a, N_IFEXP, e->loc);
    x->b = e;
    x->a = disjunction(p);
    if (!x->a)
        return NULL;
    if (!expect(p, TK_KW_ELSE, "expected 'else' after 'if' expression"))
        return NULL;
    if (!enter(p, "too deeply nested"))
        return NULL;
    x->c = expression(p);
    leave(p);
    return x->c ? x : NULL;
}

/* named_expression: NAME ':=' expression | expression !':=' */
static Node *named_expression(Parser *p) {
    Token *t = peek(p);
    if (t->kind == TK_NAME && peek_at(p, 1)->kind == TK_OP_COLONEQUAL) {
        advance(p);
        advance(p);
        Node *n = new_node(p, N_NAMEDEXPR, t);
        n->a = new_node(p, N_NAME, t);
        n->a->name = t->sval;
        if (!enter(p, "too deeply nested"))
            return NULL;
        n->b = expression(p);
        leave(p);
        return n->b ? n : NULL;
    }
    Node *e = expression(p);
    if (e && at(p, TK_OP_COLONEQUAL)) {
        diag_error(p->d, HJ_DIAG_SYNTAX, e->loc, "cannot use assignment expressions with %s",
                   target_desc(e));
        return NULL;
    }
    return e;
}

/* star_named_expression: '*' bitwise_or | named_expression */
static Node *star_named_expression(Parser *p) {
    Token *t = peek(p);
    if (accept(p, TK_OP_STAR)) {
        Node *s = new_node(p, N_STARRED, t);
        s->a = bitwise_or(p);
        return s->a ? s : NULL;
    }
    return named_expression(p);
}

/* star_expression: '*' bitwise_or | expression */
static Node *star_expression(Parser *p) {
    Token *t = peek(p);
    if (accept(p, TK_OP_STAR)) {
        Node *s = new_node(p, N_STARRED, t);
        s->a = bitwise_or(p);
        return s->a ? s : NULL;
    }
    return expression(p);
}

/* star_expressions: star_expression (',' star_expression)* [','] */
static Node *star_expressions(Parser *p) {
    Token *start = peek(p);
    Node *e = star_expression(p);
    if (!e || !at(p, TK_OP_COMMA))
        return e;
    Node *tup = new_node(p, N_TUPLE, start);
    vec_push(p->a, &tup->args, e);
    while (accept(p, TK_OP_COMMA)) {
        if (!starts_expr(peek(p)))
            break;
        e = star_expression(p);
        if (!e)
            return NULL;
        vec_push(p->a, &tup->args, e);
    }
    return tup;
}

/* yield_expr: 'yield' 'from' expression | 'yield' [star_expressions] */
static Node *yield_expr(Parser *p) {
    Token *t = advance(p);
    Node *y = new_node(p, N_YIELD, t);
    if (accept(p, TK_KW_FROM)) {
        y->is_from = 1;
        y->a = expression(p);
        return y->a ? y : NULL;
    }
    if (starts_expr(peek(p))) {
        y->a = star_expressions(p);
        if (!y->a)
            return NULL;
    }
    return y;
}

/* params (def and lambda):
 *   [posonly ',' '/' ','] [param ['=' default]]* ['*' [param] (',' param ['=' default])*]
 *   [',' '**' param] [',']
 *   param: NAME [':' expression]   (no annotations in a lambda) */
static bool params(Parser *p, PtrVec *out, TokKind close, bool annotations) {
    bool kwonly = false, seen_default = false, seen_slash = false, seen_star = false;
    while (!at(p, close)) {
        Token *t = peek(p);
        if (accept(p, TK_OP_SLASH)) {
            if (seen_slash) {
                syntax_error(p, t, "/ may appear only once");
                return false;
            }
            if (kwonly) {
                syntax_error(p, t, "/ must be ahead of *");
                return false;
            }
            if (out->len == 0) {
                syntax_error(p, t, "at least one argument must precede /");
                return false;
            }
            for (int i = 0; i < out->len; i++)
                ((Node *)VEC_AT(*out, i))->is_posonly = 1;
            seen_slash = true;
        } else if (t->kind == TK_OP_STAR || t->kind == TK_OP_DOUBLESTAR) {
            bool kw = t->kind == TK_OP_DOUBLESTAR;
            advance(p);
            if (!kw && seen_star) {
                syntax_error(p, t, "* argument may appear only once");
                return false;
            }
            if (!kw && (at(p, TK_OP_COMMA) || at(p, close))) {
                /* bare '*': the following parameters are keyword-only */
                if (at(p, close) || peek_at(p, 1)->kind == close ||
                    peek_at(p, 1)->kind == TK_OP_DOUBLESTAR) {
                    syntax_error(p, t, "named arguments must follow bare *");
                    return false;
                }
                kwonly = seen_star = true;
            } else {
                Token *nm = expect(p, TK_NAME, "invalid syntax");
                if (!nm)
                    return false;
                Node *par = new_node(p, N_PARAM, nm);
                par->name = nm->sval;
                par->is_star = !kw;
                par->is_kwstar = kw;
                if (annotations && accept(p, TK_OP_COLON)) {
                    par->b = kw ? expression(p) : star_expression(p);
                    if (!par->b)
                        return false;
                }
                if (at(p, TK_OP_EQUAL)) {
                    syntax_error(p, peek(p), kw ? "var-keyword argument cannot have default value"
                                                : "var-positional argument cannot have default value");
                    return false;
                }
                vec_push(p->a, out, par);
                if (kw) {
                    accept(p, TK_OP_COMMA);
                    if (!at(p, close)) {
                        syntax_error(p, peek(p), "arguments cannot follow var-keyword argument");
                        return false;
                    }
                    break;
                }
                kwonly = seen_star = true;
            }
        } else {
            Token *nm = expect(p, TK_NAME, "invalid syntax");
            if (!nm)
                return false;
            Node *par = new_node(p, N_PARAM, nm);
            par->name = nm->sval;
            par->is_kwonly = kwonly;
            if (annotations && accept(p, TK_OP_COLON)) {
                par->b = expression(p);
                if (!par->b)
                    return false;
            }
            if (accept(p, TK_OP_EQUAL)) {
                par->a = expression(p);
                if (!par->a)
                    return false;
                if (!kwonly)
                    seen_default = true;
            } else if (seen_default && !kwonly) {
                syntax_error(p, nm, "non-default argument follows default argument");
                return false;
            }
            vec_push(p->a, out, par);
        }
        if (!accept(p, TK_OP_COMMA))
            break;
    }
    for (int i = 0; i < out->len; i++)
        for (int j = 0; j < i; j++) {
            Node *x = VEC_AT(*out, i), *y = VEC_AT(*out, j);
            if (strcmp(x->name, y->name) == 0) {
                diag_error(p->d, HJ_DIAG_SYNTAX, x->loc,
                           "duplicate argument '%s' in function definition", x->name);
                return false;
            }
        }
    return true;
}

/* lambdef: 'lambda' [lambda_params] ':' expression */
static Node *lambdef(Parser *p) {
    Token *t = advance(p);
    Node *l = new_node(p, N_LAMBDA, t);
    if (!enter(p, "too deeply nested"))
        return NULL;
    if (!params(p, &l->params, TK_OP_COLON, false) || !expect(p, TK_OP_COLON, "expected ':'"))
        return NULL;
    l->a = expression(p);
    leave(p);
    return l->a ? l : NULL;
}

/* ---- statements ---- */

static Node *simple_stmt(Parser *p);

/* simple_stmts: simple_stmt (';' simple_stmt)* [';'] NEWLINE */
static bool simple_stmts(Parser *p, PtrVec *out) {
    for (;;) {
        Node *s = simple_stmt(p);
        if (!s)
            return false;
        vec_push(p->a, out, s);
        if (accept(p, TK_OP_SEMI)) {
            if (at(p, TK_NEWLINE) || at(p, TK_EOF))
                break;
            continue;
        }
        break;
    }
    if (at(p, TK_EOF))
        return true;
    return expect(p, TK_NEWLINE, "invalid syntax") != NULL;
}

/* dotted_name: NAME ('.' NAME)* */
static const char *dotted_name(Parser *p) {
    Token *t = expect(p, TK_NAME, "invalid syntax");
    if (!t)
        return NULL;
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, t->sval);
    while (at(p, TK_OP_DOT) && peek_at(p, 1)->kind == TK_NAME) {
        advance(p);
        sb_putc(&b, '.');
        sb_puts(&b, advance(p)->sval);
    }
    const char *s = arena_strdup(p->a, b.s ? b.s : "");
    sb_free(&b);
    return s;
}

/* import_name: 'import' dotted_as_names
 * import_from: 'from' ('.' | '...')* dotted_name 'import' import_from_targets
 *            | 'from' ('.' | '...')+ 'import' import_from_targets
 * import_from_targets: '(' import_from_as_names [','] ')' | import_from_as_names | '*' */
static Node *import_stmt(Parser *p) {
    Token *t = advance(p);
    Node *n = new_node(p, N_IMPORT, t);
    if (t->kind == TK_KW_IMPORT) {
        do {
            const char *nm = dotted_name(p);
            if (!nm)
                return NULL;
            const char *alias = NULL;
            if (accept(p, TK_KW_AS)) {
                Token *a = expect(p, TK_NAME, "invalid syntax");
                if (!a)
                    return NULL;
                alias = a->sval;
            }
            vec_push(p->a, &n->names, (void *)nm);
            vec_push(p->a, &n->aliases, (void *)alias);
        } while (accept(p, TK_OP_COMMA));
        return n;
    }
    n->is_from = 1;
    StrBuf mod;
    sb_init(&mod);
    for (;;) {
        if (accept(p, TK_OP_DOT))
            sb_putc(&mod, '.');
        else if (accept(p, TK_OP_ELLIPSIS))
            sb_puts(&mod, "...");
        else
            break;
    }
    if (!at(p, TK_KW_IMPORT)) {
        const char *nm = dotted_name(p);
        if (!nm) {
            sb_free(&mod);
            return NULL;
        }
        sb_puts(&mod, nm);
    }
    n->name = arena_strdup(p->a, mod.s ? mod.s : "");
    sb_free(&mod);
    if (!expect(p, TK_KW_IMPORT, "invalid syntax"))
        return NULL;
    if (accept(p, TK_OP_STAR)) {
        vec_push(p->a, &n->names, "*");
        vec_push(p->a, &n->aliases, NULL);
        return n;
    }
    bool paren = accept(p, TK_OP_LPAR);
    do {
        if (paren && at(p, TK_OP_RPAR))
            break;
        Token *nm = expect(p, TK_NAME, "invalid syntax");
        if (!nm)
            return NULL;
        const char *alias = NULL;
        if (accept(p, TK_KW_AS)) {
            Token *a = expect(p, TK_NAME, "invalid syntax");
            if (!a)
                return NULL;
            alias = a->sval;
        }
        vec_push(p->a, &n->names, nm->sval);
        vec_push(p->a, &n->aliases, (void *)alias);
    } while (accept(p, TK_OP_COMMA));
    if (paren && !expect(p, TK_OP_RPAR, "invalid syntax"))
        return NULL;
    if (!paren && at(p, TK_OP_COMMA))
        return syntax_error(p, peek(p), "trailing comma not allowed without surrounding parentheses");
    return n;
}

/* assignment:
 *   single_target ':' expression ['=' annotated_rhs]
 *   (star_targets '=')+ (yield_expr | star_expressions)
 *   single_target augassign (yield_expr | star_expressions)
 * | star_expressions   (expression statement) */
static Node *expr_stmt(Parser *p) {
    Token *start = peek(p);
    Node *e = star_expressions(p);
    if (!e)
        return NULL;
    Token *t = peek(p);
    if (t->kind == TK_OP_COLON) {
        advance(p);
        if (e->kind == N_TUPLE) {
            diag_error(p->d, HJ_DIAG_SYNTAX, e->loc, "only single target (not tuple) can be annotated");
            return NULL;
        }
        if (e->kind == N_LIST) {
            diag_error(p->d, HJ_DIAG_SYNTAX, e->loc, "only single target (not list) can be annotated");
            return NULL;
        }
        if (e->kind != N_NAME && e->kind != N_ATTRIBUTE && e->kind != N_SUBSCRIPT) {
            diag_error(p->d, HJ_DIAG_SYNTAX, e->loc, "illegal target for annotation");
            return NULL;
        }
        Node *n = new_node(p, N_ANNASSIGN, start);
        n->a = e;
        n->b = expression(p);
        if (!n->b)
            return NULL;
        if (accept(p, TK_OP_EQUAL)) {
            n->c = at(p, TK_KW_YIELD) ? yield_expr(p) : star_expressions(p);
            if (!n->c)
                return NULL;
        }
        return n;
    }
    OpKind aug = OP_NONE;
    switch (t->kind) {
    case TK_OP_PLUSEQUAL: aug = OP_ADD; break;
    case TK_OP_MINEQUAL: aug = OP_SUB; break;
    case TK_OP_STAREQUAL: aug = OP_MUL; break;
    case TK_OP_SLASHEQUAL: aug = OP_DIV; break;
    case TK_OP_DOUBLESLASHEQUAL: aug = OP_FLOORDIV; break;
    case TK_OP_PERCENTEQUAL: aug = OP_MOD; break;
    case TK_OP_DOUBLESTAREQUAL: aug = OP_POW; break;
    case TK_OP_ATEQUAL: aug = OP_MATMUL; break;
    case TK_OP_LEFTSHIFTEQUAL: aug = OP_LSHIFT; break;
    case TK_OP_RIGHTSHIFTEQUAL: aug = OP_RSHIFT; break;
    case TK_OP_AMPEREQUAL: aug = OP_BITAND; break;
    case TK_OP_VBAREQUAL: aug = OP_BITOR; break;
    case TK_OP_CIRCUMFLEXEQUAL: aug = OP_BITXOR; break;
    default: break;
    }
    if (aug != OP_NONE) {
        advance(p);
        if (e->kind != N_NAME && e->kind != N_ATTRIBUTE && e->kind != N_SUBSCRIPT) {
            diag_error(p->d, HJ_DIAG_SYNTAX, e->loc, "'%s' is an illegal expression for augmented assignment",
                       e->kind == N_TUPLE ? "tuple" : e->kind == N_LIST ? "list" : target_desc(e));
            return NULL;
        }
        Node *n = new_node(p, N_AUGASSIGN, start);
        n->op = aug;
        n->a = e;
        n->b = at(p, TK_KW_YIELD) ? yield_expr(p) : star_expressions(p);
        return n->b ? n : NULL;
    }
    if (t->kind == TK_OP_EQUAL) {
        Node *n = new_node(p, N_ASSIGN, start);
        while (accept(p, TK_OP_EQUAL)) {
            if (!check_target(p, e, false))
                return NULL;
            vec_push(p->a, &n->targets, e);
            e = at(p, TK_KW_YIELD) ? yield_expr(p) : star_expressions(p);
            if (!e)
                return NULL;
        }
        n->a = e;
        return n;
    }
    if (e->kind == N_STARRED) {
        diag_error(p->d, HJ_DIAG_SYNTAX, e->loc, "can't use starred expression here");
        return NULL;
    }
    Node *n = new_node(p, N_EXPR, start);
    n->a = e;
    return n;
}

/* simple_stmt: assignment | star_expressions | return_stmt | import_stmt | raise_stmt
 *            | 'pass' | del_stmt | yield_stmt | assert_stmt | 'break' | 'continue'
 *            | global_stmt | nonlocal_stmt */
static Node *simple_stmt(Parser *p) {
    Token *t = peek(p);
    Node *n;
    switch (t->kind) {
    case TK_KW_PASS: advance(p); return new_node(p, N_PASS, t);
    case TK_KW_BREAK: advance(p); return new_node(p, N_BREAK, t);
    case TK_KW_CONTINUE: advance(p); return new_node(p, N_CONTINUE, t);
    case TK_KW_RETURN:
        /* return_stmt: 'return' [star_expressions] */
        advance(p);
        n = new_node(p, N_RETURN, t);
        if (starts_expr(peek(p)) && !(n->a = star_expressions(p)))
            return NULL;
        return n;
    case TK_KW_RAISE:
        /* raise_stmt: 'raise' expression ['from' expression] | 'raise' */
        advance(p);
        n = new_node(p, N_RAISE, t);
        if (starts_expr(peek(p))) {
            if (!(n->a = expression(p)))
                return NULL;
            if (accept(p, TK_KW_FROM) && !(n->b = expression(p)))
                return NULL;
        }
        return n;
    case TK_KW_ASSERT:
        /* assert_stmt: 'assert' expression [',' expression] */
        advance(p);
        n = new_node(p, N_ASSERT, t);
        if (!(n->a = expression(p)))
            return NULL;
        if (accept(p, TK_OP_COMMA) && !(n->b = expression(p)))
            return NULL;
        return n;
    case TK_KW_DEL: {
        /* del_stmt: 'del' del_targets */
        advance(p);
        n = new_node(p, N_DEL, t);
        /* del_targets: ','.bitwise_or+ [','] */
        do {
            if (!starts_expr(peek(p)) && n->targets.len)
                break;
            Node *e = bitwise_or(p);
            if (!e || !check_target(p, e, true))
                return NULL;
            vec_push(p->a, &n->targets, e);
        } while (accept(p, TK_OP_COMMA));
        return n;
    }
    case TK_KW_GLOBAL: case TK_KW_NONLOCAL:
        /* global_stmt: 'global' ','.NAME+ ;  nonlocal_stmt: 'nonlocal' ','.NAME+ */
        advance(p);
        n = new_node(p, t->kind == TK_KW_GLOBAL ? N_GLOBAL : N_NONLOCAL, t);
        do {
            Token *nm = expect(p, TK_NAME, "invalid syntax");
            if (!nm)
                return NULL;
            vec_push(p->a, &n->names, nm->sval);
        } while (accept(p, TK_OP_COMMA));
        return n;
    case TK_KW_IMPORT: case TK_KW_FROM:
        return import_stmt(p);
    case TK_KW_YIELD: {
        n = new_node(p, N_EXPR, t);
        n->a = yield_expr(p);
        return n->a ? n : NULL;
    }
    default:
        if (!starts_expr(t) && t->kind != TK_KW_AWAIT)
            return syntax_error(p, t, "invalid syntax");
        return expr_stmt(p);
    }
}

/* block: NEWLINE INDENT statements DEDENT | simple_stmts */
static bool block(Parser *p, PtrVec *out, const char *what, int line) {
    if (!accept(p, TK_NEWLINE))
        return simple_stmts(p, out);
    if (!at(p, TK_INDENT)) {
        diag_error(p->d, HJ_DIAG_SYNTAX, peek(p)->loc, "expected an indented block after %s on line %d",
                   what, line + (p->file ? p->file->line_offset : 0));
        return false;
    }
    advance(p); /* nesting of blocks is bounded by the lexer's indentation limit */
    while (!at(p, TK_DEDENT) && !at(p, TK_EOF))
        if (!statement(p, out))
            return false;
    accept(p, TK_DEDENT);
    return true;
}

/* The `:` and block of a compound statement. */
static bool suite(Parser *p, PtrVec *out, const char *what, const Token *kw) {
    if (!expect(p, TK_OP_COLON, "expected ':'"))
        return false;
    return block(p, out, what, kw->loc.line);
}

/* function_def: decorators? ['async'] 'def' NAME '(' [params] ')' ['->' expression] ':' block */
static Node *funcdef(Parser *p, Token *first, bool is_async) {
    Token *kw = advance(p); /* 'def' */
    Node *f = new_node(p, N_FUNCDEF, first);
    f->is_async = is_async;
    Token *nm = expect(p, TK_NAME, "invalid syntax");
    if (!nm)
        return NULL;
    f->name = nm->sval;
    if (!expect(p, TK_OP_LPAR, "expected '('"))
        return NULL;
    if (!params(p, &f->params, TK_OP_RPAR, true))
        return NULL;
    if (!expect(p, TK_OP_RPAR, "invalid syntax"))
        return NULL;
    if (accept(p, TK_OP_RARROW) && !(f->a = expression(p)))
        return NULL;
    if (!suite(p, &f->body, "function definition", kw))
        return NULL;
    return f;
}

/* class_def: decorators? 'class' NAME ['(' [arguments] ')'] ':' block */
static Node *classdef(Parser *p) {
    Token *kw = advance(p);
    Node *c = new_node(p, N_CLASSDEF, kw);
    Token *nm = expect(p, TK_NAME, "invalid syntax");
    if (!nm)
        return NULL;
    c->name = nm->sval;
    if (at(p, TK_OP_LPAR)) {
        Token *open = advance(p);
        if (!enter(p, "too many nested parentheses"))
            return NULL;
        /* bases and keywords, as for a call */
        Node tmp;
        memset(&tmp, 0, sizeof tmp);
        tmp.loc = open->loc;
        if (!arguments(p, &tmp, TK_OP_RPAR))
            return NULL;
        leave(p);
        c->args = tmp.args;
        c->keywords = tmp.keywords;
    }
    if (!suite(p, &c->body, "class definition", kw))
        return NULL;
    return c;
}

/* if_stmt: 'if' named_expression ':' block (elif_stmt | [else_block])
 * elif_stmt: 'elif' named_expression ':' block (elif_stmt | [else_block])
 * (the elif chain is built in a loop, each elif an N_IF alone in orelse) */
static Node *if_stmt(Parser *p) {
    Token *kw = advance(p);
    Node *top = new_node(p, N_IF, kw), *cur = top;
    int chain = 0;
    if (!(top->a = named_expression(p)) || !suite(p, &top->body, "'if' statement", kw))
        return NULL;
    while (at(p, TK_KW_ELIF)) {
        Token *ekw = advance(p);
        if (++chain > MAX_CHAIN)
            return syntax_error(p, ekw, "too many elif branches");
        Node *e = new_node(p, N_IF, ekw);
        if (!(e->a = named_expression(p)) || !suite(p, &e->body, "'elif' statement", ekw))
            return NULL;
        vec_push(p->a, &cur->orelse, e);
        cur = e;
    }
    if (at(p, TK_KW_ELSE)) {
        Token *ekw = advance(p);
        if (!suite(p, &cur->orelse, "'else' statement", ekw))
            return NULL;
    }
    return top;
}

static bool else_block(Parser *p, PtrVec *out) {
    if (!at(p, TK_KW_ELSE))
        return true;
    Token *kw = advance(p);
    return suite(p, out, "'else' statement", kw);
}

/* while_stmt: 'while' named_expression ':' block [else_block] */
static Node *while_stmt(Parser *p) {
    Token *kw = advance(p);
    Node *w = new_node(p, N_WHILE, kw);
    if (!(w->a = named_expression(p)) || !suite(p, &w->body, "'while' statement", kw) ||
        !else_block(p, &w->orelse))
        return NULL;
    return w;
}

/* for_stmt: ['async'] 'for' star_targets 'in' star_expressions ':' block [else_block] */
static Node *for_stmt(Parser *p, Token *first, bool is_async) {
    Token *kw = advance(p);
    Node *f = new_node(p, N_FOR, first);
    f->is_async = is_async;
    if (!(f->a = star_targets(p)) || !check_target(p, f->a, false))
        return NULL;
    if (!expect(p, TK_KW_IN, "invalid syntax"))
        return NULL;
    if (!(f->b = star_expressions(p)))
        return NULL;
    if (!suite(p, &f->body, "'for' statement", kw) || !else_block(p, &f->orelse))
        return NULL;
    return f;
}

/* Does a parenthesised with-item list start here: '(' ... 'as' ... ')' ':'
 * with an `as` or a trailing comma directly inside the parentheses? */
static bool paren_with_items(Parser *p) {
    int depth = 0;
    bool seen_as = false;
    for (int i = p->pos; i < p->n; i++) {
        TokKind k = p->t[i].kind;
        if (k == TK_OP_LPAR || k == TK_OP_LSQB || k == TK_OP_LBRACE)
            depth++;
        else if (k == TK_OP_RPAR || k == TK_OP_RSQB || k == TK_OP_RBRACE) {
            if (--depth == 0)
                return seen_as && i + 1 < p->n && p->t[i + 1].kind == TK_OP_COLON;
        } else if (k == TK_KW_AS && depth == 1)
            seen_as = true;
        else if (k == TK_NEWLINE || k == TK_EOF)
            return false;
    }
    return false;
}

/* with_stmt: ['async'] 'with' ('(' ','.with_item+ ','? ')' | ','.with_item+) ':' block
 * with_item: expression ['as' star_target]
 * (items in args, their `as` targets in targets, NULL where absent) */
static Node *with_stmt(Parser *p, Token *first, bool is_async) {
    Token *kw = advance(p);
    Node *w = new_node(p, N_WITH, first);
    w->is_async = is_async;
    bool paren = at(p, TK_OP_LPAR) && paren_with_items(p);
    if (paren) {
        advance(p);
        if (!enter(p, "too many nested parentheses"))
            return NULL;
    }
    do {
        if (paren && at(p, TK_OP_RPAR))
            break;
        Node *e = expression(p);
        if (!e)
            return NULL;
        Node *tgt = NULL;
        if (accept(p, TK_KW_AS)) {
            Token *t = peek(p);
            if (accept(p, TK_OP_STAR)) {
                tgt = new_node(p, N_STARRED, t);
                if (!(tgt->a = bitwise_or(p)))
                    return NULL;
            } else if (!(tgt = bitwise_or(p))) {
                return NULL;
            }
            if (!check_target(p, tgt, false))
                return NULL;
        }
        vec_push(p->a, &w->args, e);
        vec_push(p->a, &w->targets, tgt);
    } while (accept(p, TK_OP_COMMA));
    if (paren) {
        if (!expect(p, TK_OP_RPAR, "invalid syntax"))
            return NULL;
        leave(p);
    }
    if (!suite(p, &w->body, "'with' statement", kw))
        return NULL;
    return w;
}

/* try_stmt: 'try' ':' block finally_block
 *         | 'try' ':' block except_block+ [else_block] [finally_block]
 *         | 'try' ':' block except_star_block+ [else_block] [finally_block]
 * except_block: 'except' ['*'] expression ['as' NAME] ':' block | 'except' ':' block */
static Node *try_stmt(Parser *p) {
    Token *kw = advance(p);
    Node *t = new_node(p, N_TRY, kw);
    if (!suite(p, &t->body, "'try' statement", kw))
        return NULL;
    bool bare_seen = false;
    while (at(p, TK_KW_EXCEPT)) {
        Token *ekw = advance(p);
        if (bare_seen)
            return syntax_error(p, ekw, "default 'except:' must be last");
        Node *h = new_node(p, N_HANDLER, ekw);
        h->is_star = accept(p, TK_OP_STAR);
        if (!at(p, TK_OP_COLON)) {
            if (!(h->a = expression(p)))
                return NULL;
            if (at(p, TK_OP_COMMA))
                return syntax_error(p, peek(p), "multiple exception types must be parenthesized");
            if (accept(p, TK_KW_AS)) {
                Token *nm = expect(p, TK_NAME, "invalid syntax");
                if (!nm)
                    return NULL;
                h->name = nm->sval;
            }
        } else {
            bare_seen = true;
        }
        if (!suite(p, &h->body, "'except' statement", ekw))
            return NULL;
        vec_push(p->a, &t->handlers, h);
    }
    if (t->handlers.len && !else_block(p, &t->orelse))
        return NULL;
    if (at(p, TK_KW_FINALLY)) {
        Token *fkw = advance(p);
        if (!suite(p, &t->finalbody, "'finally' statement", fkw))
            return NULL;
    }
    if (t->handlers.len == 0 && t->finalbody.len == 0)
        return syntax_error(p, peek(p), "expected 'except' or 'finally' block");
    return t;
}

/* Is the NAME `match` at the current token the soft keyword?  It is when
 * the logical line ends with ':' and the next token can start a subject. */
static bool at_match(Parser *p) {
    if (!is_soft_kw(peek(p), "match") || !starts_expr(peek_at(p, 1)))
        return false;
    int i = p->pos + 1;
    while (i < p->n && p->t[i].kind != TK_NEWLINE && p->t[i].kind != TK_EOF)
        i++;
    return i + 1 < p->n && p->t[i].kind == TK_NEWLINE && p->t[i - 1].kind == TK_OP_COLON &&
           p->t[i + 1].kind == TK_INDENT;
}

/* match_stmt: "match" subject_expr ':' NEWLINE INDENT case_block+ DEDENT
 * The case blocks are skipped: hpcjit does not compile match statements. */
static Node *match_stmt(Parser *p) {
    Token *kw = advance(p);
    Node *m = new_node(p, N_MATCH, kw);
    /* subject_expr: star_named_expression ',' star_named_expressions? | named_expression */
    Token *st = peek(p);
    if (!(m->a = star_named_expression(p)))
        return NULL;
    if (at(p, TK_OP_COMMA)) {
        Node *tup = new_node(p, N_TUPLE, st);
        vec_push(p->a, &tup->args, m->a);
        while (accept(p, TK_OP_COMMA) && !at(p, TK_OP_COLON)) {
            Node *e = star_named_expression(p);
            if (!e)
                return NULL;
            vec_push(p->a, &tup->args, e);
        }
        m->a = tup;
    }
    if (!expect(p, TK_OP_COLON, "expected ':'") || !expect(p, TK_NEWLINE, "invalid syntax") ||
        !expect(p, TK_INDENT, "expected an indented block"))
        return NULL;
    int depth = 1;
    while (depth > 0 && !at(p, TK_EOF)) {
        Token *t = advance(p);
        if (t->kind == TK_INDENT)
            depth++;
        else if (t->kind == TK_DEDENT)
            depth--;
    }
    return m;
}

/* decorators: ('@' named_expression NEWLINE)+ */
static Node *decorated(Parser *p) {
    PtrVec decos = {0};
    while (at(p, TK_OP_AT)) {
        advance(p);
        Node *e = named_expression(p);
        if (!e || !expect(p, TK_NEWLINE, "invalid syntax"))
            return NULL;
        vec_push(p->a, &decos, e);
    }
    Token *t = peek(p);
    Node *n;
    if (t->kind == TK_KW_DEF)
        n = funcdef(p, t, false);
    else if (t->kind == TK_KW_ASYNC && peek_at(p, 1)->kind == TK_KW_DEF) {
        advance(p);
        n = funcdef(p, t, true);
    } else if (t->kind == TK_KW_CLASS)
        n = classdef(p);
    else
        return syntax_error(p, t, "invalid syntax");
    if (n)
        n->decorators = decos;
    return n;
}

/* statement: compound_stmt | simple_stmts
 * compound_stmt: function_def | if_stmt | class_def | with_stmt | for_stmt
 *              | try_stmt | while_stmt | match_stmt */
static bool statement(Parser *p, PtrVec *out) {
    Token *t = peek(p);
    Node *n = NULL;
    switch (t->kind) {
    case TK_KW_DEF: case TK_OP_AT: case TK_KW_CLASS:
        n = decorated(p);
        break;
    case TK_KW_IF: n = if_stmt(p); break;
    case TK_KW_WHILE: n = while_stmt(p); break;
    case TK_KW_FOR: n = for_stmt(p, t, false); break;
    case TK_KW_WITH: n = with_stmt(p, t, false); break;
    case TK_KW_TRY: n = try_stmt(p); break;
    case TK_KW_ASYNC:
        advance(p);
        if (at(p, TK_KW_DEF))
            n = funcdef(p, t, true);
        else if (at(p, TK_KW_FOR))
            n = for_stmt(p, t, true);
        else if (at(p, TK_KW_WITH))
            n = with_stmt(p, t, true);
        else
            return syntax_error(p, peek(p), "invalid syntax");
        break;
    case TK_INDENT:
        return syntax_error(p, t, "unexpected indent");
    case TK_KW_ELSE: case TK_KW_ELIF: case TK_KW_EXCEPT: case TK_KW_FINALLY:
        return syntax_error(p, t, "invalid syntax");
    case TK_NAME:
        if (at_match(p)) {
            n = match_stmt(p);
            break;
        }
        return simple_stmts(p, out);
    default:
        return simple_stmts(p, out);
    }
    if (!n)
        return false;
    vec_push(p->a, out, n);
    return true;
}

/* file: [statements] ENDMARKER */
bool parse_module(Arena *a, const SrcFile *file, Diag *d, PtrVec *out) {
    int n = 0;
    Token *toks = lex_tokenize(a, file, d, &n);
    if (!toks)
        return false;
    Parser p = {a, file, d, toks, n, 0, 0, false};
    while (!at(&p, TK_EOF)) {
        if (at(&p, TK_NEWLINE)) { /* a lone ';'-free newline cannot occur, but be safe */
            advance(&p);
            continue;
        }
        if (at(&p, TK_DEDENT)) {
            syntax_error(&p, peek(&p), "unindent does not match any outer indentation level");
            return false;
        }
        if (!statement(&p, out))
            return false;
        if (a->oom) {
            diag_error_noloc(d, HJ_DIAG_MEMORY, "out of memory while parsing");
            return false;
        }
    }
    return !diag_failed(d);
}

Node *parse_function(Arena *a, const SrcFile *file, Diag *d) {
    PtrVec stmts = {0};
    if (!parse_module(a, file, d, &stmts))
        return NULL;
    Node *f = stmts.len ? VEC_AT(stmts, 0) : NULL;
    if (!f || f->kind != N_FUNCDEF) {
        SrcLoc loc = f ? f->loc : (SrcLoc){file, 1, 1};
        diag_error(d, HJ_DIAG_SYNTAX, loc, "expected a function definition");
        return NULL;
    }
    return f;
}
