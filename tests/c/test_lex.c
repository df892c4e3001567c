/* test_lex.c - unit tests of the tokenizer: kinds, values, locations,
 * indentation and lexical errors. */
#include "token.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int failures;

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);     \
            failures++;                                                                  \
        }                                                                                \
    } while (0)

typedef struct Lexed {
    Arena a;
    Diag d;
    SrcFile f;
    Token *t;
    int n;
} Lexed;

static void lex(Lexed *L, const char *src) {
    arena_init(&L->a);
    diag_init(&L->d);
    L->f = (SrcFile){.name = "t.py", .text = src};
    L->n = 0;
    L->t = lex_tokenize(&L->a, &L->f, &L->d, &L->n);
}

static void done(Lexed *L) {
    diag_free(&L->d);
    arena_free(&L->a);
}

/* The token kinds as a space-separated string of lex_kind_name()s. */
static void kinds(const Lexed *L, char *out, size_t cap) {
    out[0] = 0;
    for (int i = 0; L->t && i < L->n; i++) {
        if (i)
            strncat(out, " ", cap - strlen(out) - 1);
        strncat(out, lex_kind_name(L->t[i].kind), cap - strlen(out) - 1);
    }
}

static void expect_kinds(const char *src, const char *want, int line) {
    Lexed L;
    char got[2048];
    lex(&L, src);
    kinds(&L, got, sizeof got);
    if (!L.t || strcmp(got, want) != 0) {
        fprintf(stderr, "%s:%d: tokens of %s\n  got:  %s\n  want: %s\n  diag: %s\n", __FILE__,
                line, src, got, want, L.d.message ? L.d.message : "-");
        failures++;
    }
    done(&L);
}
#define EXPECT_KINDS(src, want) expect_kinds(src, want, __LINE__)

/* A lexical error with this short message at line:col. */
static void expect_error(const char *src, const char *msg, int eline, int ecol, int line) {
    Lexed L;
    lex(&L, src);
    if (L.t || !L.d.short_msg || strcmp(L.d.short_msg, msg) != 0 || L.d.line != eline ||
        L.d.col != ecol) {
        fprintf(stderr, "%s:%d: error of %s\n  got:  %d:%d %s\n  want: %d:%d %s\n", __FILE__, line,
                src, L.d.line, L.d.col, L.d.short_msg ? L.d.short_msg : "(none)", eline, ecol, msg);
        failures++;
    }
    CHECK(L.d.kind == HJ_DIAG_SYNTAX);
    done(&L);
}
#define EXPECT_ERROR(src, msg, l, c) expect_error(src, msg, l, c, __LINE__)

static void test_basic(void) {
    EXPECT_KINDS("def f(a, b):\n    return a + b\n",
                 "def NAME ( NAME , NAME ) : NEWLINE INDENT return NAME + NAME NEWLINE DEDENT EOF");
    /* no newline at the end, comments, blank lines */
    EXPECT_KINDS("x = 1  # c\n\n   \n# only a comment\ny", "NAME = INT NEWLINE NAME NEWLINE EOF");
    EXPECT_KINDS("", "EOF");
    EXPECT_KINDS("\n\n# c\n", "EOF");
    /* implicit joining in brackets and backslash continuation */
    EXPECT_KINDS("f(1,\n      2)\nx = 1 + \\\n   2\n",
                 "NAME ( INT , INT ) NEWLINE NAME = INT + INT NEWLINE EOF");
    /* every operator, longest match */
    EXPECT_KINDS("a **= b //= c >>= d <<= e ... -> := != == <= >= @= ** // << >> !",
                 "NAME **= NAME //= NAME >>= NAME <<= NAME ... -> := != == <= >= @= ** // << >> ! "
                 "NEWLINE EOF");
    EXPECT_KINDS("+-*/%@&|^~<>()[]{},:.;=", "+ - * / % @ & | ^ ~ < > ( ) [ ] { } , : . ; = NEWLINE EOF");
    EXPECT_KINDS("+= -= *= /= %= &= |= ^=", "+= -= *= /= %= &= |= ^= NEWLINE EOF");
    /* keywords vs names */
    EXPECT_KINDS("if not x is None and y in z or True: pass",
                 "if not NAME is None and NAME in NAME or True : pass NEWLINE EOF");
    EXPECT_KINDS("match case _ print", "NAME NAME NAME NAME NEWLINE EOF");
    EXPECT_KINDS("\xc3\xa9t\xc3\xa9 = 1", "NAME = INT NEWLINE EOF");
}

static void test_indent(void) {
    EXPECT_KINDS("if a:\n    if b:\n        x\n    y\nz\n",
                 "if NAME : NEWLINE INDENT if NAME : NEWLINE INDENT NAME NEWLINE DEDENT NAME NEWLINE "
                 "DEDENT NAME NEWLINE EOF");
    /* dedent of two levels at once, and at the end of the file */
    EXPECT_KINDS("if a:\n  if b:\n    x\ny", "if NAME : NEWLINE INDENT if NAME : NEWLINE INDENT NAME "
                                            "NEWLINE DEDENT DEDENT NAME NEWLINE EOF");
    EXPECT_KINDS("if a:\n    x", "if NAME : NEWLINE INDENT NAME NEWLINE DEDENT EOF");
    /* a tab is 8 columns: consistently used, fine */
    EXPECT_KINDS("if a:\n\tx\n\ty\n", "if NAME : NEWLINE INDENT NAME NEWLINE NAME NEWLINE DEDENT EOF");
    /* blank and comment lines do not change the indentation */
    EXPECT_KINDS("if a:\n    x\n\n  # c\n    y\n",
                 "if NAME : NEWLINE INDENT NAME NEWLINE NAME NEWLINE DEDENT EOF");
    EXPECT_ERROR("if a:\n    x\n  y\n", "unindent does not match any outer indentation level", 3, 3);
    EXPECT_ERROR("if a:\n        x\n\ty\n", "inconsistent use of tabs and spaces in indentation", 3, 2);
    /* CRLF line ends */
    EXPECT_KINDS("if a:\r\n    x\r\n", "if NAME : NEWLINE INDENT NAME NEWLINE DEDENT EOF");
}

static void test_numbers(void) {
    Lexed L;
    lex(&L, "0 1_000 0x_fF 0o17 0b1_01 9223372036854775807 9223372036854775808 "
            "99999999999999999999999 1. .5 1e-3 1_000.5 1E+2 1j 2.5J 0.0");
    CHECK(L.t != NULL);
    if (L.t) {
        CHECK(L.t[0].kind == TK_INT && L.t[0].ival == 0);
        CHECK(L.t[1].kind == TK_INT && L.t[1].ival == 1000);
        CHECK(L.t[2].kind == TK_INT && L.t[2].ival == 255);
        CHECK(L.t[3].kind == TK_INT && L.t[3].ival == 15);
        CHECK(L.t[4].kind == TK_INT && L.t[4].ival == 5);
        CHECK(L.t[5].kind == TK_INT && L.t[5].ival == INT64_MAX && !L.t[5].ival_overflow);
        CHECK(L.t[6].kind == TK_INT && L.t[6].ival_overflow);
        CHECK(L.t[7].kind == TK_INT && L.t[7].ival_overflow);
        CHECK(L.t[8].kind == TK_FLOAT && L.t[8].fval == 1.0);
        CHECK(L.t[9].kind == TK_FLOAT && L.t[9].fval == 0.5);
        CHECK(L.t[10].kind == TK_FLOAT && L.t[10].fval == 1e-3);
        CHECK(L.t[11].kind == TK_FLOAT && L.t[11].fval == 1000.5);
        CHECK(L.t[12].kind == TK_FLOAT && L.t[12].fval == 100.0);
        CHECK(L.t[13].kind == TK_IMAG && L.t[13].fval == 1.0);
        CHECK(L.t[14].kind == TK_IMAG && L.t[14].fval == 2.5);
        CHECK(L.t[15].kind == TK_FLOAT && L.t[15].fval == 0.0);
        /* locations: 1-based columns */
        CHECK(L.t[1].loc.line == 1 && L.t[1].loc.col == 3);
        CHECK(L.t[2].loc.col == 9);
    }
    done(&L);
    /* attribute access on an int needs a space; `1.real` is a float then a name */
    EXPECT_KINDS("x[1:2] 1 .real 1..real", "NAME [ INT : INT ] INT . NAME FLOAT . NAME NEWLINE EOF");
    EXPECT_ERROR("x = 1__0", "invalid decimal literal", 1, 6);
    EXPECT_ERROR("x = 0x", "invalid hexadecimal literal", 1, 7);
    EXPECT_ERROR("x = 0b12", "invalid digit '2' in binary literal", 1, 8);
    EXPECT_ERROR("x = 0o8", "invalid octal literal", 1, 7);
    EXPECT_ERROR("x = 012", "leading zeros in decimal integer literals are not permitted; use an 0o "
                            "prefix for octal integers", 1, 5);
    EXPECT_ERROR("x = 1abc", "invalid decimal literal", 1, 6);
    EXPECT_KINDS("x = 00 + 0_0", "NAME = INT + INT NEWLINE EOF");
}

static void expect_string(const char *src, const char *want, int wlen, bool bytes, bool f, int line) {
    Lexed L;
    lex(&L, src);
    if (!L.t || L.t[0].kind != TK_STRING || L.t[0].slen != wlen || memcmp(L.t[0].sval, want, (size_t)wlen) ||
        L.t[0].is_bytes != bytes || L.t[0].is_fstring != f) {
        fprintf(stderr, "%s:%d: string %s decoded wrong (%s)\n", __FILE__, line, src,
                L.d.message ? L.d.message : (L.t && L.t[0].sval ? L.t[0].sval : "-"));
        failures++;
    }
    done(&L);
}
#define EXPECT_STRING(src, want, bytes, f) expect_string(src, want, (int)sizeof(want) - 1, bytes, f, __LINE__)

static void test_strings(void) {
    EXPECT_STRING("'abc'", "abc", false, false);
    EXPECT_STRING("\"a'b\"", "a'b", false, false);
    EXPECT_STRING("'a\\n\\t\\\\\\'\\\"'", "a\n\t\\'\"", false, false);
    EXPECT_STRING("'\\x41\\101\\u00e9\\U0001F600'", "AA\xc3\xa9\xf0\x9f\x98\x80", false, false);
    EXPECT_STRING("'\\N{DASH}\\q'", "\\N{DASH}\\q", false, false);
    EXPECT_STRING("r'a\\nb'", "a\\nb", false, false);
    EXPECT_STRING("R'\\''", "\\'", false, false);
    EXPECT_STRING("b'\\x00\\xff'", "\x00\xff", true, false);
    EXPECT_STRING("Rb'\\x'", "\\x", true, false);
    EXPECT_STRING("bR'x'", "x", true, false);
    EXPECT_STRING("u'x'", "x", false, false);
    EXPECT_STRING("'''a\nb'c''d'''", "a\nb'c''d", false, false);
    EXPECT_STRING("\"\"\"x\"\"\"", "x", false, false);
    EXPECT_STRING("'a\\\nb'", "ab", false, false);
    EXPECT_STRING("f'n={n}'", "n={n}", false, true);
    EXPECT_STRING("rF'{x}\\n'", "{x}\\n", false, true);
    EXPECT_STRING("Fr\"{x}\"", "{x}", false, true);
    /* adjacent literals stay separate tokens; locations count characters */
    Lexed L;
    lex(&L, "x = 'h\xc3\xa9' \"y\"\n");
    CHECK(L.t && L.t[2].kind == TK_STRING && L.t[3].kind == TK_STRING);
    CHECK(L.t && L.t[3].loc.line == 1 && L.t[3].loc.col == 10);
    done(&L);
    lex(&L, "s = '''a\nb'''\nt = 1\n");
    CHECK(L.t && L.t[4].kind == TK_NAME && L.t[4].loc.line == 3 && L.t[4].loc.col == 1);
    done(&L);
    EXPECT_ERROR("x = 'abc\n", "unterminated string literal (detected at line 1)", 1, 5);
    EXPECT_ERROR("x = '''abc\n\n", "unterminated triple-quoted string literal (detected at line 3)", 1, 5);
    EXPECT_ERROR("x = '\\x4'", "truncated \\xXX escape", 1, 5);
    EXPECT_ERROR("x = b'\xc3\xa9'", "bytes can only contain ASCII literal characters", 1, 5);
    /* a prefix that is not one is a name */
    EXPECT_KINDS("br bx'a'", "NAME NAME STRING NEWLINE EOF");
}

static void test_errors(void) {
    EXPECT_ERROR("f(1, 2\n", "'(' was never closed", 1, 2);
    EXPECT_ERROR("x = [1,\n (2, 3\n", "'(' was never closed", 2, 2);
    EXPECT_ERROR("x = 1)", "unmatched ')'", 1, 6);
    EXPECT_ERROR("x = (1]", "closing parenthesis ']' does not match opening parenthesis '('", 1, 7);
    EXPECT_ERROR("x = 1 $ 2", "invalid syntax", 1, 7);
    EXPECT_ERROR("x = 1 \xe2\x82\xac 2", "invalid character '\xe2\x82\xac' (U+20AC)", 1, 7);
    EXPECT_ERROR("x = 1 \\ 2", "unexpected character after line continuation character", 1, 7);
    /* 101 levels of indentation */
    char buf[200 * 110];
    size_t n = 0;
    for (int i = 0; i < 101; i++) {
        for (int j = 0; j < i; j++)
            buf[n++] = ' ';
        memcpy(buf + n, "if x:\n", 6);
        n += 6;
    }
    for (int j = 0; j < 101; j++)
        buf[n++] = ' ';
    memcpy(buf + n, "pass\n", 6);
    Lexed L;
    lex(&L, buf);
    CHECK(!L.t && L.d.short_msg && strcmp(L.d.short_msg, "too many levels of indentation") == 0);
    done(&L);
}

static void test_range(void) {
    /* the lexer of f-string fields: locations continue from the given point */
    Arena a;
    Diag d;
    arena_init(&a);
    diag_init(&d);
    const char *text = "f'{a +\n b}'";
    SrcFile f = {.name = "t.py", .text = text};
    int n = 0;
    Token *t = lex_tokenize_range(&a, &f, text + 3, text + 9, 1, 4, &d, &n);
    CHECK(t && n == 4);
    if (t && n == 4) {
        CHECK(t[0].kind == TK_NAME && t[0].loc.line == 1 && t[0].loc.col == 4);
        CHECK(t[1].kind == TK_OP_PLUS && t[1].loc.col == 6);
        CHECK(t[2].kind == TK_NAME && t[2].loc.line == 2 && t[2].loc.col == 2);
        CHECK(t[3].kind == TK_EOF);
    }
    diag_free(&d);
    arena_free(&a);
}

int main(void) {
    test_basic();
    test_indent();
    test_numbers();
    test_strings();
    test_errors();
    test_range();
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("test_lex: ok\n");
    return 0;
}
