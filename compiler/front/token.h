/* token.h - tokens of Python 3 source (lex_ module). */
#ifndef HPCJIT_TOKEN_H
#define HPCJIT_TOKEN_H

#include "diag.h"

/* Token kinds.  Operators and keywords are X-macro tables so that the
 * lexer, the parser and the dumps stay in step. */
#define HJ_KEYWORDS(X)                                                                   \
    X(KW_FALSE, "False") X(KW_NONE, "None") X(KW_TRUE, "True") X(KW_AND, "and")          \
    X(KW_AS, "as") X(KW_ASSERT, "assert") X(KW_ASYNC, "async") X(KW_AWAIT, "await")      \
    X(KW_BREAK, "break") X(KW_CLASS, "class") X(KW_CONTINUE, "continue")                 \
    X(KW_DEF, "def") X(KW_DEL, "del") X(KW_ELIF, "elif") X(KW_ELSE, "else")              \
    X(KW_EXCEPT, "except") X(KW_FINALLY, "finally") X(KW_FOR, "for") X(KW_FROM, "from")  \
    X(KW_GLOBAL, "global") X(KW_IF, "if") X(KW_IMPORT, "import") X(KW_IN, "in")          \
    X(KW_IS, "is") X(KW_LAMBDA, "lambda") X(KW_NONLOCAL, "nonlocal") X(KW_NOT, "not")    \
    X(KW_OR, "or") X(KW_PASS, "pass") X(KW_RAISE, "raise") X(KW_RETURN, "return")        \
    X(KW_TRY, "try") X(KW_WHILE, "while") X(KW_WITH, "with") X(KW_YIELD, "yield")

/* Longest spellings first within each leading character is the lexer's
 * job; this table is only the list. */
#define HJ_OPERATORS(X)                                                                  \
    X(OP_LPAR, "(") X(OP_RPAR, ")") X(OP_LSQB, "[") X(OP_RSQB, "]") X(OP_LBRACE, "{")    \
    X(OP_RBRACE, "}") X(OP_COLON, ":") X(OP_COMMA, ",") X(OP_SEMI, ";") X(OP_PLUS, "+")  \
    X(OP_MINUS, "-") X(OP_STAR, "*") X(OP_SLASH, "/") X(OP_VBAR, "|") X(OP_AMPER, "&")   \
    X(OP_LESS, "<") X(OP_GREATER, ">") X(OP_EQUAL, "=") X(OP_DOT, ".") X(OP_PERCENT, "%") \
    X(OP_EQEQUAL, "==") X(OP_NOTEQUAL, "!=") X(OP_LESSEQUAL, "<=")                       \
    X(OP_GREATEREQUAL, ">=") X(OP_TILDE, "~") X(OP_CIRCUMFLEX, "^")                      \
    X(OP_LEFTSHIFT, "<<") X(OP_RIGHTSHIFT, ">>") X(OP_DOUBLESTAR, "**")                  \
    X(OP_PLUSEQUAL, "+=") X(OP_MINEQUAL, "-=") X(OP_STAREQUAL, "*=")                     \
    X(OP_SLASHEQUAL, "/=") X(OP_PERCENTEQUAL, "%=") X(OP_AMPEREQUAL, "&=")               \
    X(OP_VBAREQUAL, "|=") X(OP_CIRCUMFLEXEQUAL, "^=") X(OP_LEFTSHIFTEQUAL, "<<=")        \
    X(OP_RIGHTSHIFTEQUAL, ">>=") X(OP_DOUBLESTAREQUAL, "**=") X(OP_DOUBLESLASH, "//")    \
    X(OP_DOUBLESLASHEQUAL, "//=") X(OP_AT, "@") X(OP_ATEQUAL, "@=") X(OP_RARROW, "->")   \
    X(OP_ELLIPSIS, "...") X(OP_COLONEQUAL, ":=") X(OP_EXCLAMATION, "!")

typedef enum TokKind {
    TK_EOF,
    TK_NEWLINE,
    TK_INDENT,
    TK_DEDENT,
    TK_NAME,    /* text                                                     */
    TK_INT,     /* ival (ival_overflow set when it does not fit in int64;
                   ival_u64 too when it fits in uint64: ival holds its bits) */
    TK_FLOAT,   /* fval                                                     */
    TK_IMAG,    /* fval: the imaginary part                                 */
    TK_STRING,  /* sval/slen: decoded value (escapes processed); is_bytes,
                   is_fstring flags; adjacent literals are separate tokens  */
#define X(k, s) TK_##k,
    HJ_KEYWORDS(X) HJ_OPERATORS(X)
#undef X
    TK_COUNT
} TokKind;

typedef struct Token {
    TokKind kind;
    SrcLoc loc;
    const char *start; /* into the source text */
    int len;
    int64_t ival;
    double fval;
    char *sval; /* arena */
    int slen;
    unsigned ival_overflow : 1, ival_u64 : 1, is_bytes : 1, is_fstring : 1;
} Token;

typedef struct Lexer Lexer;

/* Tokenize all of `file->text` into an arena array terminated by TK_EOF.
 * Returns NULL with a diagnostic on a lexical error (bad indentation,
 * unterminated string, stray character). */
Token *lex_tokenize(Arena *a, const SrcFile *file, Diag *d, int *ntokens);
const char *lex_kind_name(TokKind k);
/* Tokenize text[start, end) of `file` as one expression (an f-string
 * replacement field): no NEWLINE/INDENT tokens, locations continue from
 * `line`:`col` of the file.  Same error contract as lex_tokenize. */
Token *lex_tokenize_range(Arena *a, const SrcFile *file, const char *start, const char *end,
                          int line, int col, Diag *d, int *ntokens);
/* Decode the escapes of a string literal body (raw: none).  Arena string,
 * length in *outlen; NULL with *err set on a bad escape. */
char *lex_decode_string(Arena *a, const char *s, int n, bool is_bytes, bool raw, int *outlen,
                        const char **err);

#endif
