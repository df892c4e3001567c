/* test_parse.c - unit tests of the parser: trees (compared as ast_dump
 * text), syntax errors with their locations, nesting bounds, and a little
 * fuzzing (truncated and mutated inputs must give a diagnostic or a tree,
 * never a crash). */
#include "ast.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);     \
            failures++;                                                                  \
        }                                                                                \
    } while (0)

/* Parse `src` as a module; the dump of its statements, or "error: <short
 * message> @line:col". malloc'ed. */
static char *parse_text(const char *src) {
    Arena a;
    Diag d;
    arena_init(&a);
    diag_init(&d);
    SrcFile f = {.name = "t.py", .text = src};
    PtrVec out = {0};
    StrBuf b;
    sb_init(&b);
    if (parse_module(&a, &f, &d, &out)) {
        for (int i = 0; i < out.len; i++)
            ast_dump(&b, VEC_AT(out, i), 0);
    } else {
        sb_printf(&b, "error: %s @%d:%d", d.short_msg ? d.short_msg : "(no message)", d.line, d.col);
    }
    diag_free(&d);
    arena_free(&a);
    return sb_take(&b);
}

static void expect_dump(const char *src, const char *want, int line) {
    char *got = parse_text(src);
    /* trailing newline of the dump is not significant */
    size_t gl = strlen(got), wl = strlen(want);
    while (gl && got[gl - 1] == '\n')
        gl--;
    while (wl && want[wl - 1] == '\n')
        wl--;
    if (gl != wl || memcmp(got, want, gl) != 0) {
        fprintf(stderr, "%s:%d: parse of\n%s\n--- got:\n%s\n--- want:\n%s\n", __FILE__, line, src, got, want);
        failures++;
    }
    free(got);
}
#define EXPECT_DUMP(src, want) expect_dump(src, want, __LINE__)
#define EXPECT_ERR(src, msg, l, c) expect_dump(src, "error: " msg " @" #l ":" #c, __LINE__)

static void expect_ok(const char *src, int line) {
    char *got = parse_text(src);
    if (strncmp(got, "error:", 6) == 0) {
        fprintf(stderr, "%s:%d: parse of\n%s\nfailed: %s\n", __FILE__, line, src, got);
        failures++;
    }
    free(got);
}
#define EXPECT_OK(src) expect_ok(src, __LINE__)

static void test_function(void) {
    EXPECT_DUMP("def f(a, b):\n    return a + b\n",
                "FuncDef f\n"
                "  params:\n"
                "    Param a\n"
                "    Param b\n"
                "  body:\n"
                "    Return\n"
                "      a:\n"
                "        BinOp +\n"
                "          a:\n"
                "            Name a\n"
                "          b:\n"
                "            Name b\n");
    EXPECT_DUMP("@njit(cache=True)\n@other\ndef g(a, /, b: int = 1, *args, c, d=2, **kw) -> float: pass\n",
                "FuncDef g\n"
                "  decorators:\n"
                "    Call\n"
                "      a:\n"
                "        Name njit\n"
                "      keywords:\n"
                "        Keyword cache\n"
                "          a:\n"
                "            Const True\n"
                "    Name other\n"
                "  params:\n"
                "    Param a posonly\n"
                "    Param b\n"
                "      a:\n"
                "        Const 1\n"
                "      b:\n"
                "        Name int\n"
                "    Param args *\n"
                "    Param c kwonly\n"
                "    Param d kwonly\n"
                "      a:\n"
                "        Const 2\n"
                "    Param kw **\n"
                "  a:\n"
                "    Name float\n"
                "  body:\n"
                "    Pass\n");
    /* parse_function: location of the def, line numbers of the nodes */
    Arena a;
    Diag d;
    arena_init(&a);
    diag_init(&d);
    SrcFile f = {.name = "t.py", .text = "@dec\ndef h(x):\n    y = x\n    return y\n",
                 .line_offset = 10};
    Node *fn = parse_function(&a, &f, &d);
    CHECK(fn && fn->kind == N_FUNCDEF && strcmp(fn->name, "h") == 0);
    CHECK(fn && fn->loc.line == 2 && fn->loc.col == 1);
    CHECK(fn && fn->body.len == 2 && ((Node *)VEC_AT(fn->body, 1))->loc.line == 4 &&
          ((Node *)VEC_AT(fn->body, 1))->loc.col == 5);
    diag_free(&d);
    arena_free(&a);
    arena_init(&a);
    f.text = "x = 1\n";
    CHECK(parse_function(&a, &f, &d) == NULL && d.kind == HJ_DIAG_SYNTAX && d.line == 11);
    diag_free(&d);
    arena_free(&a);
}

static void test_statements(void) {
    EXPECT_DUMP("x = y = a[1:2, ::-1, ...]\n",
                "Assign\n"
                "  targets:\n"
                "    Name x\n"
                "    Name y\n"
                "  a:\n"
                "    Subscript\n"
                "      a:\n"
                "        Name a\n"
                "      b:\n"
                "        Tuple\n"
                "          args:\n"
                "            Slice\n"
                "              a:\n"
                "                Const 1\n"
                "              b:\n"
                "                Const 2\n"
                "            Slice\n"
                "              c:\n"
                "                UnaryOp -\n"
                "                  a:\n"
                "                    Const 1\n"
                "            Const Ellipsis\n");
    EXPECT_DUMP("a, b = b, a\n*r, s = t\n",
                "Assign\n  targets:\n    Tuple\n      args:\n        Name a\n        Name b\n"
                "  a:\n    Tuple\n      args:\n        Name b\n        Name a\n"
                "Assign\n  targets:\n    Tuple\n      args:\n        Starred\n          a:\n"
                "            Name r\n        Name s\n  a:\n    Name t\n");
    EXPECT_DUMP("x += 1; y //= 2;\nz: int = 3\nw: float\n",
                "AugAssign +\n  a:\n    Name x\n  b:\n    Const 1\n"
                "AugAssign //\n  a:\n    Name y\n  b:\n    Const 2\n"
                "AnnAssign\n  a:\n    Name z\n  b:\n    Name int\n  c:\n    Const 3\n"
                "AnnAssign\n  a:\n    Name w\n  b:\n    Name float\n");
    EXPECT_DUMP("for i in range(3):\n    continue\nelse:\n    break\n",
                "For\n  a:\n    Name i\n  b:\n    Call\n      a:\n        Name range\n      args:\n"
                "        Const 3\n  body:\n    Continue\n  orelse:\n    Break\n");
    EXPECT_DUMP("for i, (j, k) in z: pass\n",
                "For\n  a:\n    Tuple\n      args:\n        Name i\n        Tuple\n          args:\n"
                "            Name j\n            Name k\n  b:\n    Name z\n  body:\n    Pass\n");
    EXPECT_DUMP("if a: x\nelif b: y\nelif c: z\nelse: w\n",
                "If\n  a:\n    Name a\n  body:\n    Expr\n      a:\n        Name x\n  orelse:\n"
                "    If\n      a:\n        Name b\n      body:\n        Expr\n          a:\n"
                "            Name y\n      orelse:\n        If\n          a:\n            Name c\n"
                "          body:\n            Expr\n              a:\n                Name z\n"
                "          orelse:\n            Expr\n              a:\n                Name w\n");
    EXPECT_DUMP("while (n := n - 1) > 0:\n    pass\nelse:\n    pass\n",
                "While\n  a:\n    Compare >\n      a:\n        NamedExpr\n          a:\n            Name n\n"
                "          b:\n            BinOp -\n              a:\n                Name n\n"
                "              b:\n                Const 1\n      args:\n        Const 0\n"
                "  body:\n    Pass\n  orelse:\n    Pass\n");
    EXPECT_DUMP("raise ValueError('x') from e\nraise\nassert x, 'm'\n",
                "Raise\n  a:\n    Call\n      a:\n        Name ValueError\n      args:\n        Const 'x'\n"
                "  b:\n    Name e\nRaise\nAssert\n  a:\n    Name x\n  b:\n    Const 'm'\n");
    EXPECT_DUMP("del a, b[0]\nglobal g, h\nnonlocal n\n",
                "Delete\n  targets:\n    Name a\n    Subscript\n      a:\n        Name b\n      b:\n"
                "        Const 0\nGlobal names=g,h\nNonlocal names=n\n");
    EXPECT_DUMP("import numpy as np, os.path\nfrom ..a.b import (c as d, e,)\nfrom . import *\n",
                "Import names=numpy,os.path as=np,-\n"
                "Import ..a.b from names=c,e as=d,-\n"
                "Import . from names=* as=-\n");
    EXPECT_DUMP("with open(f) as g, h:\n    pass\n",
                "With\n  targets:\n    Name g\n    -\n  args:\n    Call\n      a:\n"
                "        Name open\n      args:\n        Name f\n    Name h\n  body:\n    Pass\n");
    EXPECT_DUMP("try:\n    pass\nexcept (A, B) as e:\n    pass\nexcept:\n    pass\nelse:\n    pass\n"
                "finally:\n    pass\n",
                "Try\n  body:\n    Pass\n  handlers:\n    Handler e\n      a:\n        Tuple\n"
                "          args:\n            Name A\n            Name B\n      body:\n        Pass\n"
                "    Handler\n      body:\n        Pass\n  orelse:\n    Pass\n  finalbody:\n    Pass\n");
    EXPECT_DUMP("class C(B, metaclass=M):\n    x = 1\n",
                "ClassDef C\n  args:\n    Name B\n  keywords:\n    Keyword metaclass\n      a:\n"
                "        Name M\n  body:\n    Assign\n      targets:\n        Name x\n      a:\n"
                "        Const 1\n");
    EXPECT_DUMP("match p:\n    case 1:\n        pass\n    case _:\n        pass\nx = 1\n",
                "Match\n  a:\n    Name p\nAssign\n  targets:\n    Name x\n  a:\n    Const 1\n");
    EXPECT_DUMP("match = 1\nmatch(x)\n",
                "Assign\n  targets:\n    Name match\n  a:\n    Const 1\n"
                "Expr\n  a:\n    Call\n      a:\n        Name match\n      args:\n        Name x\n");
    EXPECT_DUMP("async def f():\n    await g()\n    async for x in y: pass\n    async with a: pass\n",
                "FuncDef f async\n  body:\n    Expr\n      a:\n        Await\n          a:\n"
                "            Call\n              a:\n                Name g\n"
                "    For async\n      a:\n        Name x\n      b:\n        Name y\n      body:\n"
                "        Pass\n    With async\n      targets:\n        -\n      args:\n        Name a\n"
                "      body:\n        Pass\n");
    EXPECT_DUMP("def g():\n    yield\n    yield from x\n    y = yield 1, 2\n",
                "FuncDef g\n  body:\n    Expr\n      a:\n        Yield\n    Expr\n      a:\n"
                "        Yield from\n          a:\n            Name x\n    Assign\n      targets:\n"
                "        Name y\n      a:\n        Yield\n          a:\n            Tuple\n"
                "              args:\n                Const 1\n                Const 2\n");
    EXPECT_DUMP("return\n", "Return\n");
    EXPECT_DUMP("return 1,\n", "Return\n  a:\n    Tuple\n      args:\n        Const 1\n");
}

static void test_expressions(void) {
    /* precedence: or < and < not < comparison < | < ^ < & < shifts < + < * < unary < ** */
    EXPECT_DUMP("x or y and not z\n",
                "Expr\n  a:\n    BoolOp or\n      args:\n        Name x\n        BoolOp and\n"
                "          args:\n            Name y\n            UnaryOp not\n              a:\n"
                "                Name z\n");
    EXPECT_DUMP("a | b ^ c & d << e + f * -g ** h\n",
                "Expr\n  a:\n    BinOp |\n      a:\n        Name a\n      b:\n        BinOp ^\n"
                "          a:\n            Name b\n          b:\n            BinOp &\n"
                "              a:\n                Name c\n              b:\n"
                "                BinOp <<\n                  a:\n                    Name d\n"
                "                  b:\n                    BinOp +\n                      a:\n"
                "                        Name e\n                      b:\n"
                "                        BinOp *\n                          a:\n"
                "                            Name f\n                          b:\n"
                "                            UnaryOp -\n                              a:\n"
                "                                BinOp **\n                                  a:\n"
                "                                    Name g\n                                  b:\n"
                "                                    Name h\n");
    /* left associativity, ** right associativity */
    EXPECT_DUMP("a - b - c\n", "Expr\n  a:\n    BinOp -\n      a:\n        BinOp -\n          a:\n"
                               "            Name a\n          b:\n            Name b\n      b:\n"
                               "        Name c\n");
    EXPECT_DUMP("a ** b ** c\n", "Expr\n  a:\n    BinOp **\n      a:\n        Name a\n      b:\n"
                                 "        BinOp **\n          a:\n            Name b\n          b:\n"
                                 "            Name c\n");
    EXPECT_DUMP("a // b % c @ d / e\n",
                "Expr\n  a:\n    BinOp /\n      a:\n        BinOp @\n          a:\n            BinOp %\n"
                "              a:\n                BinOp //\n                  a:\n"
                "                    Name a\n                  b:\n                    Name b\n"
                "              b:\n                Name c\n          b:\n            Name d\n"
                "      b:\n        Name e\n");
    EXPECT_DUMP("a < b <= c is not d not in e == f != g > h >= i is j in k\n",
                "Expr\n  a:\n    Compare < <= is not not in == != > >= is in\n      a:\n        Name a\n"
                "      args:\n        Name b\n        Name c\n        Name d\n        Name e\n"
                "        Name f\n        Name g\n        Name h\n        Name i\n        Name j\n"
                "        Name k\n");
    EXPECT_DUMP("x if c else y if d else z\n",
                "Expr\n  a:\n    IfExp\n      a:\n        Name c\n      b:\n        Name x\n      c:\n"
                "        IfExp\n          a:\n            Name d\n          b:\n            Name y\n"
                "          c:\n            Name z\n");
    EXPECT_DUMP("f(a, *b, c=1, **d)\n",
                "Expr\n  a:\n    Call has_star\n      a:\n        Name f\n      args:\n        Name a\n"
                "        Starred\n          a:\n            Name b\n      keywords:\n"
                "        Keyword c\n          a:\n            Const 1\n        Keyword **\n"
                "          a:\n            Name d\n");
    EXPECT_DUMP("a.b.c(1)[2]\n",
                "Expr\n  a:\n    Subscript\n      a:\n        Call\n          a:\n"
                "            Attribute c\n              a:\n                Attribute b\n"
                "                  a:\n                    Name a\n          args:\n"
                "            Const 1\n      b:\n        Const 2\n");
    EXPECT_DUMP("(), (1,), [1, *x], {}, {1: 2, **d}, {1, 2}\n",
                "Expr\n  a:\n    Tuple\n      args:\n        Tuple\n        Tuple\n          args:\n"
                "            Const 1\n        List\n          args:\n            Const 1\n"
                "            Starred\n              a:\n                Name x\n        Dict\n"
                "        Dict\n          args:\n            Const 1\n            -\n"
                "          args2:\n            Const 2\n            Name d\n        Set\n"
                "          args:\n            Const 1\n            Const 2\n");
    EXPECT_DUMP("[x for x in y if x if z for w in x]\n",
                "Expr\n  a:\n    Comp list\n      a:\n        Name x\n      generators:\n"
                "        CompFor\n          a:\n            Name x\n          b:\n            Name y\n"
                "          args:\n            Name x\n            Name z\n        CompFor\n"
                "          a:\n            Name w\n          b:\n            Name x\n");
    EXPECT_DUMP("sum(x for x in y), {k: v for k, v in z}, {a for a in b}\n",
                "Expr\n  a:\n    Tuple\n      args:\n        Call\n          a:\n            Name sum\n"
                "          args:\n            Comp gen\n              a:\n                Name x\n"
                "              generators:\n                CompFor\n                  a:\n"
                "                    Name x\n                  b:\n                    Name y\n"
                "        Comp dict\n          a:\n            Name k\n          b:\n            Name v\n"
                "          generators:\n            CompFor\n              a:\n                Tuple\n"
                "                  args:\n                    Name k\n                    Name v\n"
                "              b:\n                Name z\n        Comp set\n          a:\n"
                "            Name a\n          generators:\n            CompFor\n              a:\n"
                "                Name a\n              b:\n                Name b\n");
    EXPECT_DUMP("lambda x, *y, z=1, **w: x\n",
                "Expr\n  a:\n    Lambda\n      params:\n        Param x\n        Param y *\n"
                "        Param z kwonly\n          a:\n            Const 1\n        Param w **\n"
                "      a:\n        Name x\n");
    /* literals */
    EXPECT_DUMP("1, 2.5, 3j, True, None, 'a' \"b\", b'c', -9223372036854775808, 9223372036854775808\n",
                "Expr\n  a:\n    Tuple\n      args:\n        Const 1\n        Const 2.5\n        Const 3j\n"
                "        Const True\n        Const None\n        Const 'ab'\n        Const b'c'\n"
                "        Const -9223372036854775808\n        Const <int overflow>\n");
    EXPECT_DUMP("f'a{x!r}b{y:>{w}}{z=}'\n",
                "Expr\n  a:\n    FString\n      args:\n        Const 'a'\n        Formatted r\n"
                "          a:\n            Name x\n        Const 'b'\n        Formatted\n"
                "          a:\n            Name y\n          b:\n            FString\n"
                "              args:\n                Const '>'\n                Formatted\n"
                "                  a:\n                    Name w\n        Const 'z='\n"
                "        Formatted r\n          a:\n            Name z\n");
    EXPECT_DUMP("'a' f'{{b}}' 'c'\n", "Expr\n  a:\n    FString\n      args:\n        Const 'a{b}c'\n");
    EXPECT_OK("x[a:b], x[:], x[::], x[a:], x[:, None], x[*a], x[i := 1]\n");
    EXPECT_OK("print(*a, sep='', **k)\n");
    EXPECT_OK("x = not a == b\n");
    EXPECT_OK("x = [*a, *b]\n");
    EXPECT_OK("(yield)\n");
    EXPECT_OK("x = a if b else lambda: 0\n");
    EXPECT_OK("x = 1 if a else 2,\n");
    EXPECT_OK("@a.b[c](d)\ndef f(): pass\n");
    EXPECT_OK("def f(*, a): pass\n");
    EXPECT_OK("with (open(a) as b, open(c) as d,):\n    pass\n");
    EXPECT_OK("with (a, b):\n    pass\n");
    EXPECT_OK("try:\n    pass\nexcept* E:\n    pass\n");
    EXPECT_OK("x = f'{a!s:{b}}' rf'\\{c}' F'''{d\n}'''\n");
    EXPECT_OK("if x:\n    pass\n# comment at the end");
    /* found by parsing the standard library */
    EXPECT_OK("x = f'{a}\\N{DASH}{b}'\n");
    EXPECT_OK("x = f\"{'''it's'''}\"\n");
    EXPECT_OK("x = f'{3:{\"}\"}>10}'\n");
    EXPECT_OK("x = {(c := a): (a := b) for _ in r}\n");
    EXPECT_OK("match w := x,:\n    case y:\n        pass\n");
}

static void test_locations(void) {
    Arena a;
    Diag d;
    arena_init(&a);
    diag_init(&d);
    SrcFile f = {.name = "t.py", .text = "def f(x):\n    return x * 2 + g(x)\n"};
    Node *fn = parse_function(&a, &f, &d);
    CHECK(fn != NULL);
    if (fn) {
        Node *ret = VEC_AT(fn->body, 0);
        CHECK(ret->kind == N_RETURN && ret->loc.line == 2 && ret->loc.col == 5);
        Node *add = ret->a;
        CHECK(add->kind == N_BINOP && add->op == OP_ADD && add->loc.col == 12);
        CHECK(add->b->kind == N_CALL && add->b->loc.col == 20);
        CHECK(add->a->b->kind == N_CONST && add->a->b->loc.col == 16);
    }
    diag_free(&d);
    arena_free(&a);
    /* f-string field expressions keep their place in the file */
    arena_init(&a);
    f.text = "x = f'ab{c + d}'\n";
    PtrVec out = {0};
    CHECK(parse_module(&a, &f, &d, &out));
    if (out.len == 1) {
        Node *fs = ((Node *)VEC_AT(out, 0))->a;
        CHECK(fs->kind == N_FSTRING && fs->args.len == 2);
        if (fs->args.len == 2) {
            Node *fm = VEC_AT(fs->args, 1);
            CHECK(fm->kind == N_FORMATTED && fm->a->loc.col == 10 && fm->a->b->loc.col == 14);
        }
    }
    diag_free(&d);
    arena_free(&a);
}

static void test_errors(void) {
    EXPECT_ERR("if x\n    pass\n", "expected ':'", 1, 5);
    EXPECT_ERR("def f(:\n    pass\n", "'(' was never closed", 1, 6);
    EXPECT_ERR("def f(1): pass\n", "invalid syntax", 1, 7);
    EXPECT_ERR("def f():\nreturn 1\n", "expected an indented block after function definition on line 1", 2, 1);
    EXPECT_ERR("x = 1\n    y = 2\n", "unexpected indent", 2, 5);
    EXPECT_ERR("x = (1, 2\n", "'(' was never closed", 1, 5);
    EXPECT_ERR("x = 1 +\n", "invalid syntax", 1, 8);
    EXPECT_ERR("f() = 1\n", "cannot assign to function call", 1, 1);
    EXPECT_ERR("1 = x\n", "cannot assign to literal", 1, 1);
    EXPECT_ERR("a + b += 1\n", "'expression' is an illegal expression for augmented assignment", 1, 1);
    EXPECT_ERR("for 1 in x: pass\n", "cannot assign to literal", 1, 5);
    EXPECT_ERR("del f()\n", "cannot delete function call", 1, 5);
    EXPECT_ERR("a, b: int\n", "only single target (not tuple) can be annotated", 1, 1);
    EXPECT_ERR("*a, *b = c\n", "multiple starred expressions in assignment", 1, 5);
    EXPECT_ERR("f(a=1, b)\n", "positional argument follows keyword argument", 1, 8);
    EXPECT_ERR("f(**a, *b)\n", "iterable argument unpacking follows keyword argument unpacking", 1, 8);
    EXPECT_ERR("f(a=1, a=2)\n", "keyword argument repeated: a", 1, 8);
    EXPECT_ERR("f(x for x in y, 1)\n", "Generator expression must be parenthesized", 1, 3);
    EXPECT_ERR("def f(a=1, b): pass\n", "non-default argument follows default argument", 1, 12);
    EXPECT_ERR("def f(a, a): pass\n", "duplicate argument 'a' in function definition", 1, 10);
    EXPECT_ERR("def f(*): pass\n", "named arguments must follow bare *", 1, 7);
    EXPECT_ERR("x = 1 2\n", "invalid syntax", 1, 7);
    EXPECT_ERR("x := 1\n", "invalid syntax", 1, 3);
    EXPECT_ERR("x = 'a' b'c'\n", "cannot mix bytes and nonbytes literals", 1, 9);
    EXPECT_ERR("x = f'{}'\n", "f-string: empty expression not allowed", 1, 7);
    EXPECT_ERR("x = f'{a'\n", "f-string: expecting '}'", 1, 7);
    EXPECT_ERR("x = f'a}'\n", "f-string: single '}' is not allowed", 1, 8);
    EXPECT_ERR("x = f'{a!x}'\n", "f-string: invalid conversion character: expected 's', 'r', or 'a'", 1, 10);
    EXPECT_ERR("x = f'{a +}'\n", "f-string: invalid syntax", 1, 11);
    EXPECT_ERR("x = f'{a b}'\n", "f-string: invalid syntax", 1, 10);
    EXPECT_ERR("try:\n    pass\nx = 1\n", "expected 'except' or 'finally' block", 3, 1);
    EXPECT_ERR("try:\n    pass\nexcept:\n    pass\nexcept E:\n    pass\n", "default 'except:' must be last", 5, 1);
    EXPECT_ERR("else: pass\n", "invalid syntax", 1, 1);
    EXPECT_ERR("x = yield = 1\n", "cannot assign to yield expression", 1, 5);
    EXPECT_ERR("lambda: (yield)\nf(a.b=1)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 2, 6);
    EXPECT_ERR("(*a)\n", "cannot use starred expression here", 1, 2);
    EXPECT_ERR("x = [1, 2 3]\n", "invalid syntax. Perhaps you forgot a comma?", 1, 11);
    /* a diagnostic's line includes the file's line offset */
    Arena a;
    Diag d;
    arena_init(&a);
    diag_init(&d);
    SrcFile f = {.name = "u.py", .text = "def f(x):\n    return x +\n", .line_offset = 41, .col_offset = 4};
    CHECK(parse_function(&a, &f, &d) == NULL);
    CHECK(d.line == 43 && d.col == 19 && d.kind == HJ_DIAG_SYNTAX);
    CHECK(d.message && strncmp(d.message, "u.py:43:19: error: invalid syntax\n", 34) == 0);
    diag_free(&d);
    arena_free(&a);
}

static char *repeat3(const char *pre, const char *mid, const char *post, int n) {
    size_t lp = strlen(pre), lm = strlen(mid), lpo = strlen(post);
    char *s = malloc(lp * (size_t)n + lm + lpo * (size_t)n + 32);
    size_t k = 0;
    memcpy(s, "def f():\n    return ", 20);
    k = 20;
    for (int i = 0; i < n; i++, k += lp)
        memcpy(s + k, pre, lp);
    memcpy(s + k, mid, lm);
    k += lm;
    for (int i = 0; i < n; i++, k += lpo)
        memcpy(s + k, post, lpo);
    s[k++] = '\n';
    s[k] = 0;
    return s;
}

static void expect_nesting(const char *pre, const char *mid, const char *post, int n, const char *msg,
                           int line) {
    char *src = repeat3(pre, mid, post, n);
    char *got = parse_text(src);
    char want[200];
    snprintf(want, sizeof want, "error: %s", msg);
    if (strncmp(got, want, strlen(want)) != 0) {
        fprintf(stderr, "%s:%d: %d x '%s': got %.200s\n", __FILE__, line, n, pre, got);
        failures++;
    }
    free(got);
    free(src);
}

static void test_nesting(void) {
    expect_nesting("(", "1", ")", 3000, "too many nested parentheses @2:212", __LINE__);
    expect_nesting("[", "1", "]", 3000, "too many nested parentheses", __LINE__);
    expect_nesting("{", "1", "}", 3000, "too many nested parentheses", __LINE__);
    expect_nesting("f(", "1", ")", 3000, "too many nested parentheses", __LINE__);
    expect_nesting("a[", "1", "]", 3000, "too many nested parentheses", __LINE__);
    expect_nesting("-", "1", "", 100000, "too deeply nested", __LINE__);
    expect_nesting("not ", "1", "", 100000, "too deeply nested", __LINE__);
    expect_nesting("2**", "1", "", 100000, "too deeply nested", __LINE__);
    expect_nesting("1 if x else ", "1", "", 100000, "too deeply nested", __LINE__);
    expect_nesting("lambda: ", "1", "", 100000, "too deeply nested", __LINE__);
    expect_nesting("1+", "1", "", 100000, "expression too deeply nested", __LINE__);
    expect_nesting("", "a", ".b", 100000, "expression too deeply nested", __LINE__);
    /* 199 levels are fine */
    char *src = repeat3("(", "1", ")", 199);
    char *got = parse_text(src);
    CHECK(strncmp(got, "Return", 6) == 0 || strncmp(got, "FuncDef", 7) == 0);
    free(got);
    free(src);
}

/* Truncations and byte mutations of a valid program: each must end in a
 * tree or a diagnostic. */
static void test_fuzz(void) {
    static const char prog[] =
        "@njit\n"
        "def f(a, b=1, *c, d, **e) -> int:\n"
        "    x = [i * 2 for i in range(10) if i % 2]\n"
        "    y: float = a[1:2, ::-1, ...] if b else {1: 2}\n"
        "    for i, j in zip(a, b):\n"
        "        while i < j <= 3 and not i:\n"
        "            i += 1; j -= 1\n"
        "        else:\n"
        "            break\n"
        "    try:\n"
        "        raise ValueError(f'bad {x!r:>{b}}') from None\n"
        "    except (A, B) as e:\n"
        "        pass\n"
        "    with open('x') as fh:\n"
        "        return lambda q: (q ** -2, 0x1F, 1.5e3j, b'\\x00', \"\"\"doc\"\"\")\n";
    size_t n = sizeof prog - 1;
    char *buf = malloc(n + 1);
    for (size_t cut = 0; cut <= n; cut++) {
        memcpy(buf, prog, cut);
        buf[cut] = 0;
        free(parse_text(buf));
    }
    static const char alphabet[] = "()[]{}:,;.=+-*/%<>!@#'\"\\\n\t fx0_1e.jbr";
    unsigned seed = 12345;
    for (int iter = 0; iter < 20000; iter++) {
        memcpy(buf, prog, n + 1);
        int muts = 1 + iter % 4;
        for (int m = 0; m < muts; m++) {
            seed = seed * 1103515245u + 12345u;
            size_t pos = (seed >> 8) % n;
            seed = seed * 1103515245u + 12345u;
            buf[pos] = alphabet[(seed >> 8) % (sizeof alphabet - 1)];
        }
        free(parse_text(buf));
    }
    /* random bytes, including non-ASCII and NUL-free junk */
    for (int iter = 0; iter < 2000; iter++) {
        size_t len = (size_t)(iter % 200);
        for (size_t i = 0; i < len && i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            buf[i] = (char)(1 + (seed >> 8) % 255);
        }
        buf[len < n ? len : n] = 0;
        free(parse_text(buf));
    }
    free(buf);
}

int main(void) {
    test_function();
    test_statements();
    test_expressions();
    test_locations();
    test_errors();
    test_nesting();
    test_fuzz();
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("test_parse: ok\n");
    return 0;
}
