/* ast.c - node allocation and a readable dump of trees (see ast.h). */
#include "ast.h"

#include <stdio.h>
#include <string.h>

Node *ast_new(Arena *a, NodeKind k, SrcLoc loc) {
    Node *n = arena_alloc(a, sizeof(Node));
    n->kind = k;
    n->loc = loc;
    return n;
}

static const char *const kind_names[N_COUNT] = {
    [N_FUNCDEF] = "FuncDef",     [N_PARAM] = "Param",         [N_RETURN] = "Return",
    [N_ASSIGN] = "Assign",       [N_AUGASSIGN] = "AugAssign", [N_ANNASSIGN] = "AnnAssign",
    [N_FOR] = "For",             [N_WHILE] = "While",         [N_IF] = "If",
    [N_BREAK] = "Break",         [N_CONTINUE] = "Continue",   [N_PASS] = "Pass",
    [N_RAISE] = "Raise",         [N_ASSERT] = "Assert",       [N_EXPR] = "Expr",
    [N_DEL] = "Delete",          [N_GLOBAL] = "Global",       [N_NONLOCAL] = "Nonlocal",
    [N_IMPORT] = "Import",       [N_WITH] = "With",           [N_TRY] = "Try",
    [N_HANDLER] = "Handler",     [N_CLASSDEF] = "ClassDef",   [N_MATCH] = "Match",
    [N_NAME] = "Name",           [N_CONST] = "Const",         [N_BINOP] = "BinOp",
    [N_UNARYOP] = "UnaryOp",     [N_BOOLOP] = "BoolOp",       [N_COMPARE] = "Compare",
    [N_IFEXP] = "IfExp",         [N_CALL] = "Call",           [N_KEYWORD] = "Keyword",
    [N_ATTRIBUTE] = "Attribute", [N_SUBSCRIPT] = "Subscript", [N_SLICE] = "Slice",
    [N_TUPLE] = "Tuple",         [N_LIST] = "List",           [N_DICT] = "Dict",
    [N_SET] = "Set",             [N_STARRED] = "Starred",     [N_LAMBDA] = "Lambda",
    [N_COMP] = "Comp",           [N_COMPFOR] = "CompFor",     [N_NAMEDEXPR] = "NamedExpr",
    [N_YIELD] = "Yield",         [N_AWAIT] = "Await",         [N_FSTRING] = "FString",
    [N_FORMATTED] = "Formatted", [N_CAST] = "Cast", [N_ARRAYEXPR] = "ArrayExpr", [N_FUSED] = "Fused",
};

const char *ast_kind_name(NodeKind k) {
    if ((int)k < 0 || k >= N_COUNT || !kind_names[k])
        return "?";
    return kind_names[k];
}

const char *ast_op_str(OpKind op) {
    switch (op) {
    case OP_NONE: return "";
    case OP_ADD: return "+";
    case OP_SUB: return "-";
    case OP_MUL: return "*";
    case OP_DIV: return "/";
    case OP_FLOORDIV: return "//";
    case OP_MOD: return "%";
    case OP_POW: return "**";
    case OP_MATMUL: return "@";
    case OP_LSHIFT: return "<<";
    case OP_RSHIFT: return ">>";
    case OP_BITAND: return "&";
    case OP_BITOR: return "|";
    case OP_BITXOR: return "^";
    case OP_NEG: return "-";
    case OP_POS: return "+";
    case OP_INVERT: return "~";
    case OP_NOT: return "not";
    case OP_EQ: return "==";
    case OP_NE: return "!=";
    case OP_LT: return "<";
    case OP_LE: return "<=";
    case OP_GT: return ">";
    case OP_GE: return ">=";
    case OP_IS: return "is";
    case OP_ISNOT: return "is not";
    case OP_IN: return "in";
    case OP_NOTIN: return "not in";
    case OP_AND: return "and";
    case OP_OR: return "or";
    }
    return "?";
}

static void put_indent(StrBuf *b, int indent) {
    for (int i = 0; i < indent; i++)
        sb_puts(b, "  ");
}

static void put_quoted(StrBuf *b, const char *s, int n, bool is_bytes) {
    if (is_bytes)
        sb_putc(b, 'b');
    sb_putc(b, '\'');
    for (int i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '\n': sb_puts(b, "\\n"); break;
        case '\t': sb_puts(b, "\\t"); break;
        case '\r': sb_puts(b, "\\r"); break;
        case '\\': sb_puts(b, "\\\\"); break;
        case '\'': sb_puts(b, "\\'"); break;
        default:
            if (c < 0x20 || c == 0x7F || (is_bytes && c >= 0x80))
                sb_printf(b, "\\x%02x", c);
            else
                sb_putc(b, (char)c);
        }
    }
    sb_putc(b, '\'');
}

static void put_cval(StrBuf *b, const Cval *v) {
    switch (v->kind) {
    case CVAL_INT:
        if (v->overflow)
            sb_puts(b, "<int overflow>");
        else
            sb_printf(b, "%lld", (long long)v->i);
        break;
    case CVAL_FLOAT: sb_printf(b, "%.17g", v->f); break;
    case CVAL_COMPLEX:
        if (v->f != 0.0)
            sb_printf(b, "(%.17g%+.17gj)", v->f, v->f_imag);
        else
            sb_printf(b, "%.17gj", v->f_imag);
        break;
    case CVAL_BOOL: sb_puts(b, v->i ? "True" : "False"); break;
    case CVAL_NONE: sb_puts(b, "None"); break;
    case CVAL_STR: put_quoted(b, v->s ? v->s : "", v->slen, v->is_bytes); break;
    case CVAL_ELLIPSIS: sb_puts(b, "Ellipsis"); break;
    case CVAL_NPDT: sb_printf(b, "<datetime count %lld>", (long long)v->i); break;
    }
}

static void dump_list(StrBuf *b, const char *label, const PtrVec *v, int indent) {
    if (v->len == 0)
        return;
    put_indent(b, indent);
    sb_printf(b, "%s:\n", label);
    for (int i = 0; i < v->len; i++) {
        if (VEC_AT(*v, i))
            ast_dump(b, VEC_AT(*v, i), indent + 1);
        else {
            put_indent(b, indent + 1);
            sb_puts(b, "-\n");
        }
    }
}

static void dump_names(StrBuf *b, const char *label, const PtrVec *v) {
    if (v->len == 0)
        return;
    sb_printf(b, " %s=", label);
    for (int i = 0; i < v->len; i++) {
        const char *s = VEC_AT(*v, i);
        sb_printf(b, "%s%s", i ? "," : "", s ? s : "-");
    }
}

static void dump_child(StrBuf *b, const char *label, const Node *n, int indent) {
    if (!n)
        return;
    put_indent(b, indent);
    sb_printf(b, "%s:\n", label);
    ast_dump(b, n, indent + 1);
}

/* One line per node: kind, then its scalar fields; children below, each
 * under a label naming its field (a:, b:, body:, ...). */
void ast_dump(StrBuf *b, const Node *n, int indent) {
    put_indent(b, indent);
    if (!n) {
        sb_puts(b, "-\n");
        return;
    }
    sb_puts(b, ast_kind_name(n->kind));
    if (n->kind == N_CONST) {
        sb_putc(b, ' ');
        put_cval(b, &n->cval);
    }
    if (n->name)
        sb_printf(b, " %s", n->name);
    else if (n->kind == N_KEYWORD)
        sb_puts(b, " **");
    if (n->op != OP_NONE)
        sb_printf(b, " %s", ast_op_str(n->op));
    if (n->kind == N_COMPARE) {
        for (int i = 0; i < n->args.len; i++)
            sb_printf(b, " %s", ast_op_str(n->ops ? n->ops[i] : OP_NONE));
    }
    if (n->kind == N_COMP)
        sb_printf(b, " %s", (const char *[]){"list", "set", "dict", "gen"}[n->comp_kind & 3]);
    if (n->is_star)
        sb_puts(b, " *");
    if (n->is_kwstar)
        sb_puts(b, " **");
    if (n->is_kwonly)
        sb_puts(b, " kwonly");
    if (n->is_posonly)
        sb_puts(b, " posonly");
    if (n->has_star)
        sb_puts(b, " has_star");
    if (n->is_async)
        sb_puts(b, " async");
    if (n->is_from)
        sb_puts(b, " from");
    dump_names(b, "names", &n->names);
    dump_names(b, "as", &n->aliases);
    sb_putc(b, '\n');
    dump_list(b, "decorators", &n->decorators, indent + 1);
    dump_list(b, "params", &n->params, indent + 1);
    dump_list(b, "targets", &n->targets, indent + 1);
    dump_child(b, "a", n->a, indent + 1);
    dump_child(b, "b", n->b, indent + 1);
    dump_child(b, "c", n->c, indent + 1);
    dump_list(b, "args", &n->args, indent + 1);
    dump_list(b, "args2", &n->args2, indent + 1);
    dump_list(b, "keywords", &n->keywords, indent + 1);
    dump_list(b, "generators", &n->generators, indent + 1);
    dump_list(b, "body", &n->body, indent + 1);
    dump_list(b, "handlers", &n->handlers, indent + 1);
    dump_list(b, "orelse", &n->orelse, indent + 1);
    dump_list(b, "finalbody", &n->finalbody, indent + 1);
}

static void clone_vec(Arena *a, PtrVec *dst, const PtrVec *src) {
    *dst = (PtrVec){0};
    for (int i = 0; i < src->len; i++)
        vec_push(a, dst, ast_clone_expr(a, src->data[i]));
}

Node *ast_clone_expr(Arena *a, const Node *n) {
    if (!n)
        return NULL;
    Node *c = ast_new(a, n->kind, n->loc);
    *c = *n;
    c->a = ast_clone_expr(a, n->a);
    c->b = ast_clone_expr(a, n->b);
    c->c = ast_clone_expr(a, n->c);
    clone_vec(a, &c->args, &n->args);
    clone_vec(a, &c->args2, &n->args2);
    clone_vec(a, &c->keywords, &n->keywords);
    return c;
}

static void clone_all(Arena *a, PtrVec *dst, const PtrVec *src) {
    *dst = (PtrVec){0};
    for (int i = 0; i < src->len; i++)
        vec_push(a, dst, ast_clone(a, src->data[i]));
}

Node *ast_clone(Arena *a, const Node *n) {
    if (!n)
        return NULL;
    Node *c = ast_new(a, n->kind, n->loc);
    *c = *n;
    c->a = ast_clone(a, n->a);
    c->b = ast_clone(a, n->b);
    c->c = ast_clone(a, n->c);
    clone_all(a, &c->body, &n->body);
    clone_all(a, &c->orelse, &n->orelse);
    clone_all(a, &c->finalbody, &n->finalbody);
    clone_all(a, &c->handlers, &n->handlers);
    clone_all(a, &c->args, &n->args);
    clone_all(a, &c->args2, &n->args2);
    clone_all(a, &c->keywords, &n->keywords);
    clone_all(a, &c->targets, &n->targets);
    clone_all(a, &c->params, &n->params);
    clone_all(a, &c->decorators, &n->decorators);
    clone_all(a, &c->generators, &n->generators);
    return c;
}
