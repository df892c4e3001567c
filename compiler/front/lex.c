/* lex.c - tokenizer for Python 3 source (see token.h).
 *
 * One pass over the text produces the whole token array.  Indentation is a
 * stack of columns (tabs to the next multiple of 8) checked, as CPython
 * does, against a second stack where a tab counts 1 so that a mix of tabs
 * and spaces that only works for one tab size is an error.  Inside
 * brackets newlines and indentation are ignored (implicit line joining). */
#include "token.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INDENT 100 /* CPython's limit: "too many levels of indentation" */

static const char *const kind_names[TK_COUNT] = {
    [TK_EOF] = "EOF",         [TK_NEWLINE] = "NEWLINE", [TK_INDENT] = "INDENT",
    [TK_DEDENT] = "DEDENT",   [TK_NAME] = "NAME",       [TK_INT] = "INT",
    [TK_FLOAT] = "FLOAT",     [TK_IMAG] = "IMAG",       [TK_STRING] = "STRING",
#define X(k, s) [TK_##k] = s,
    HJ_KEYWORDS(X) HJ_OPERATORS(X)
#undef X
};

const char *lex_kind_name(TokKind k) {
    if ((int)k < 0 || k >= TK_COUNT || !kind_names[k])
        return "?";
    return kind_names[k];
}

typedef struct Lexer {
    Arena *a;
    const SrcFile *file;
    Diag *d;
    const char *p, *end;
    int line;
    const char *line_start;
    /* column cache: col of col_p (same line), so that long lines stay linear */
    const char *col_p;
    int col_col;
    Token *toks;
    int ntoks, cap;
    /* open brackets: kind and location, for "'(' was never closed" */
    SrcLoc *brackets;
    char *bracket_ch;
    int depth, bracket_cap;
    int indents[MAX_INDENT + 1], alt_indents[MAX_INDENT + 1];
    int nindent;
    bool at_line_start;
    bool expr_mode; /* f-string replacement field: no NEWLINE/INDENT */
} Lexer;

static int peekc(const Lexer *L, int k) {
    return L->p + k < L->end ? (unsigned char)L->p[k] : 0;
}

static SrcLoc loc_at(Lexer *L, const char *q) {
    if (!L->col_p || L->col_p < L->line_start || L->col_p > q) {
        L->col_p = L->line_start;
        L->col_col = 1;
    }
    for (const char *s = L->col_p; s < q; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            L->col_col++;
    L->col_p = q;
    return (SrcLoc){L->file, L->line, L->col_col};
}

static void newline_at(Lexer *L, const char *after) {
    L->line++;
    L->line_start = after;
    L->col_p = NULL;
}

static Token *push_tok(Lexer *L, TokKind k, const char *start, int len, SrcLoc loc) {
    if (L->ntoks == L->cap) {
        int ncap = L->cap ? L->cap * 2 : 256;
        Token *nt = arena_alloc(L->a, sizeof(Token) * (size_t)ncap);
        if (L->a->oom)
            return NULL;
        if (L->ntoks)
            memcpy(nt, L->toks, sizeof(Token) * (size_t)L->ntoks);
        L->toks = nt;
        L->cap = ncap;
    }
    Token *t = &L->toks[L->ntoks++];
    memset(t, 0, sizeof *t);
    t->kind = k;
    t->loc = loc;
    t->start = start;
    t->len = len;
    return t;
}

static bool is_id_start(int c) { return c == '_' || ((c | 32) >= 'a' && (c | 32) <= 'z') || c >= 0x80; }
static bool is_id_char(int c) { return is_id_start(c) || (c >= '0' && c <= '9'); }

/* Decode one UTF-8 code point at s (for messages about stray characters). */
static unsigned decode_utf8(const unsigned char *s, const unsigned char *end, int *n) {
    unsigned c = s[0];
    int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    if (s + len > end)
        len = 1;
    if (len > 1) {
        c &= 0x7F >> len;
        for (int i = 1; i < len; i++)
            c = (c << 6) | (s[i] & 0x3F);
    }
    *n = len;
    return c;
}

/* Non-ASCII code points that cannot be in an identifier: punctuation,
 * symbols and spaces of the common blocks (a rough cut of Unicode's XID
 * classes that catches pasted quotes, dashes and operators). */
static bool is_unicode_id(unsigned cp) {
    if (cp < 0x80)
        return is_id_char((int)cp);
    if ((cp >= 0x80 && cp <= 0xBF && cp != 0xAA && cp != 0xB5 && cp != 0xBA) || cp == 0xD7 ||
        cp == 0xF7)
        return false;
    if ((cp >= 0x2000 && cp <= 0x206F) || (cp >= 0x20A0 && cp <= 0x20CF) ||
        (cp >= 0x2190 && cp <= 0x23FF) || (cp >= 0x2500 && cp <= 0x27BF) ||
        (cp >= 0x2900 && cp <= 0x2BFF) || (cp >= 0x3000 && cp <= 0x303F) ||
        (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF0F) ||
        (cp >= 0xFF1A && cp <= 0xFF20) || cp == 0xFEFF || (cp >= 0xD800 && cp <= 0xDFFF) ||
        cp > 0x10FFFF)
        return false;
    return true;
}

static void put_utf8(StrBuf *b, unsigned cp) {
    if (cp < 0x80) {
        sb_putc(b, (char)cp);
    } else if (cp < 0x800) {
        sb_putc(b, (char)(0xC0 | (cp >> 6)));
        sb_putc(b, (char)(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        sb_putc(b, (char)(0xE0 | (cp >> 12)));
        sb_putc(b, (char)(0x80 | ((cp >> 6) & 0x3F)));
        sb_putc(b, (char)(0x80 | (cp & 0x3F)));
    } else {
        sb_putc(b, (char)(0xF0 | (cp >> 18)));
        sb_putc(b, (char)(0x80 | ((cp >> 12) & 0x3F)));
        sb_putc(b, (char)(0x80 | ((cp >> 6) & 0x3F)));
        sb_putc(b, (char)(0x80 | (cp & 0x3F)));
    }
}

static int hexval(int c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if ((c | 32) >= 'a' && (c | 32) <= 'f')
        return (c | 32) - 'a' + 10;
    return -1;
}

char *lex_decode_string(Arena *a, const char *s, int n, bool is_bytes, bool raw, int *outlen,
                        const char **err) {
    StrBuf b;
    sb_init(&b);
    *err = NULL;
    const char *e = s + n;
    while (s < e) {
        char c = *s;
        if (c == '\r' && s + 1 < e && s[1] == '\n') { /* normalise CRLF */
            s++;
            continue;
        }
        if (c != '\\' || raw || s + 1 >= e) {
            sb_putc(&b, c);
            s++;
            continue;
        }
        char x = s[1];
        s += 2;
        switch (x) {
        case '\n': break; /* line continuation inside the literal */
        case '\r':
            if (s < e && *s == '\n')
                s++;
            break;
        case '\\': sb_putc(&b, '\\'); break;
        case '\'': sb_putc(&b, '\''); break;
        case '"': sb_putc(&b, '"'); break;
        case 'a': sb_putc(&b, '\a'); break;
        case 'b': sb_putc(&b, '\b'); break;
        case 'f': sb_putc(&b, '\f'); break;
        case 'n': sb_putc(&b, '\n'); break;
        case 'r': sb_putc(&b, '\r'); break;
        case 't': sb_putc(&b, '\t'); break;
        case 'v': sb_putc(&b, '\v'); break;
        case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
            unsigned v = (unsigned)(x - '0');
            for (int i = 0; i < 2 && s < e && *s >= '0' && *s <= '7'; i++)
                v = v * 8 + (unsigned)(*s++ - '0');
            if (is_bytes)
                sb_putc(&b, (char)(v & 0xFF));
            else
                put_utf8(&b, v);
            break;
        }
        case 'x': case 'u': case 'U': {
            int nd = x == 'x' ? 2 : x == 'u' ? 4 : 8;
            if (x != 'x' && is_bytes) { /* not an escape in bytes: kept as is */
                sb_putc(&b, '\\');
                sb_putc(&b, x);
                break;
            }
            unsigned v = 0;
            for (int i = 0; i < nd; i++) {
                int h = s < e ? hexval((unsigned char)*s) : -1;
                if (h < 0) {
                    *err = x == 'x' ? "truncated \\xXX escape"
                           : x == 'u' ? "truncated \\uXXXX escape"
                                      : "truncated \\UXXXXXXXX escape";
                    sb_free(&b);
                    return NULL;
                }
                v = v * 16 + (unsigned)h;
                s++;
            }
            if (v > 0x10FFFF) {
                *err = "illegal Unicode character";
                sb_free(&b);
                return NULL;
            }
            if (is_bytes)
                sb_putc(&b, (char)v);
            else
                put_utf8(&b, v);
            break;
        }
        default:
            /* unknown escapes (and \N{...}) keep the backslash, as Python does */
            sb_putc(&b, '\\');
            sb_putc(&b, x);
            break;
        }
    }
    if (b.oom) {
        sb_free(&b);
        *err = "out of memory";
        return NULL;
    }
    char *out = arena_strndup(a, b.s ? b.s : "", b.len);
    *outlen = (int)b.len;
    sb_free(&b);
    return out;
}

static int lex_err(Lexer *L, SrcLoc loc, const char *fmt, const char *arg) {
    return diag_error(L->d, HJ_DIAG_SYNTAX, loc, fmt, arg);
}

/* ---- indentation ---- */

/* At the start of a logical line: measure the indentation, skip blank and
 * comment-only lines, emit INDENT/DEDENT.  Returns -1 on error. */
static int indentation(Lexer *L) {
    for (;;) {
        int col = 0, alt = 0;
        const char *q = L->p;
        while (q < L->end) {
            if (*q == ' ') {
                col++;
                alt++;
            } else if (*q == '\t') {
                col = (col / 8 + 1) * 8;
                alt++;
            } else if (*q == '\f') {
                col = alt = 0;
            } else {
                break;
            }
            q++;
        }
        L->p = q;
        /* blank line, comment-only line, or end: no indentation change */
        if (q >= L->end)
            return 0;
        if (*q == '#' || *q == '\n' || *q == '\r' ||
            (*q == '\\' && q + 1 < L->end && (q[1] == '\n' || q[1] == '\r'))) {
            if (*q == '#')
                while (L->p < L->end && *L->p != '\n')
                    L->p++;
            if (L->p < L->end && *L->p == '\\')
                L->p++;
            if (L->p < L->end && *L->p == '\r')
                L->p++;
            if (L->p < L->end && *L->p == '\n') {
                L->p++;
                newline_at(L, L->p);
                continue;
            }
            return 0;
        }
        SrcLoc loc = loc_at(L, q);
        int top = L->indents[L->nindent - 1], alttop = L->alt_indents[L->nindent - 1];
        if (col == top) {
            if (alt != alttop)
                return lex_err(L, loc, "%s", "inconsistent use of tabs and spaces in indentation");
        } else if (col > top) {
            if (alt <= alttop)
                return lex_err(L, loc, "%s", "inconsistent use of tabs and spaces in indentation");
            if (L->nindent > MAX_INDENT)
                return lex_err(L, loc, "%s", "too many levels of indentation");
            L->indents[L->nindent] = col;
            L->alt_indents[L->nindent++] = alt;
            push_tok(L, TK_INDENT, q, 0, loc);
        } else {
            while (L->nindent > 1 && col < L->indents[L->nindent - 1]) {
                L->nindent--;
                push_tok(L, TK_DEDENT, q, 0, loc);
            }
            if (col != L->indents[L->nindent - 1])
                return lex_err(L, loc, "%s", "unindent does not match any outer indentation level");
            if (alt != L->alt_indents[L->nindent - 1])
                return lex_err(L, loc, "%s", "inconsistent use of tabs and spaces in indentation");
        }
        return 0;
    }
}

/* ---- numbers ---- */

static bool is_digit_in(int c, int base) {
    if (base == 16)
        return hexval(c) >= 0;
    return c >= '0' && c < '0' + base;
}

/* Digits of `base` with single underscores between them.  Returns the
 * count of digits read, -1 on a misplaced underscore. */
static int scan_digits(Lexer *L, int base) {
    int n = 0;
    for (;;) {
        int c = peekc(L, 0);
        if (is_digit_in(c, base)) {
            L->p++;
            n++;
        } else if (c == '_' && n > 0 && is_digit_in(peekc(L, 1), base)) {
            L->p++;
        } else {
            return (c == '_') ? -1 : n;
        }
    }
}

static int lex_number(Lexer *L, SrcLoc loc) {
    const char *start = L->p;
    int base = 10;
    bool is_float = false, is_imag = false;
    if (peekc(L, 0) == '0' && strchr("xXoObB", peekc(L, 1)) && peekc(L, 1)) {
        int c = peekc(L, 1) | 32;
        base = c == 'x' ? 16 : c == 'o' ? 8 : 2;
        L->p += 2;
        if (peekc(L, 0) == '_')
            L->p++;
        int n = scan_digits(L, base);
        if (n <= 0) {
            const char *what = base == 16 ? "invalid hexadecimal literal"
                               : base == 8 ? "invalid octal literal"
                                           : "invalid binary literal";
            return lex_err(L, loc_at(L, L->p), "%s", what);
        }
        if (is_digit_in(peekc(L, 0), 10) || is_id_char(peekc(L, 0))) {
            const char *what = base == 16 ? "invalid hexadecimal literal"
                               : base == 8 ? "invalid digit '%c' in octal literal"
                                           : "invalid digit '%c' in binary literal";
            if (base == 16)
                return lex_err(L, loc_at(L, L->p), "%s", what);
            return diag_error(L->d, HJ_DIAG_SYNTAX, loc_at(L, L->p), what, peekc(L, 0));
        }
    } else {
        int n = 0;
        if (peekc(L, 0) != '.') {
            n = scan_digits(L, 10);
            if (n < 0)
                return lex_err(L, loc_at(L, L->p), "%s", "invalid decimal literal");
        }
        if (peekc(L, 0) == '.') {
            is_float = true;
            L->p++;
            if (is_digit_in(peekc(L, 0), 10) && scan_digits(L, 10) < 0)
                return lex_err(L, loc_at(L, L->p), "%s", "invalid decimal literal");
        }
        if ((peekc(L, 0) | 32) == 'e') {
            int k = 1;
            if (peekc(L, 1) == '+' || peekc(L, 1) == '-')
                k = 2;
            if (is_digit_in(peekc(L, k), 10)) {
                is_float = true;
                L->p += k;
                if (scan_digits(L, 10) < 0)
                    return lex_err(L, loc_at(L, L->p), "%s", "invalid decimal literal");
            } else if (!is_id_char(peekc(L, 1)) || k == 2) {
                return lex_err(L, loc_at(L, L->p), "%s", "invalid decimal literal");
            }
        }
        if ((peekc(L, 0) | 32) == 'j') {
            is_imag = true;
            L->p++;
        }
        if (is_id_char(peekc(L, 0)))
            return lex_err(L, loc_at(L, L->p), "%s", "invalid decimal literal");
        if (!is_float && !is_imag && start[0] == '0') {
            for (const char *q = start; q < L->p; q++)
                if (*q != '0' && *q != '_')
                    return lex_err(L, loc, "%s",
                                   "leading zeros in decimal integer literals are not permitted; "
                                   "use an 0o prefix for octal integers");
        }
    }
    int len = (int)(L->p - start);
    /* digits without underscores (and without the base prefix) */
    char buf[128];
    int nb = 0;
    bool too_long = false;
    for (const char *q = start + (base != 10 ? 2 : 0); q < L->p; q++) {
        if (*q == '_' || (*q | 32) == 'j')
            continue;
        if (nb < (int)sizeof buf - 1)
            buf[nb++] = *q;
        else
            too_long = true;
    }
    buf[nb] = 0;
    Token *t = push_tok(L, is_imag ? TK_IMAG : is_float ? TK_FLOAT : TK_INT, start, len, loc);
    if (!t)
        return -1;
    if (is_float || is_imag) {
        if (too_long) {
            /* long mantissas: strtod on an arena copy */
            StrBuf sb;
            sb_init(&sb);
            for (const char *q = start; q < L->p; q++)
                if (*q != '_' && (*q | 32) != 'j')
                    sb_putc(&sb, *q);
            t->fval = sb.s ? strtod(sb.s, NULL) : 0.0;
            sb_free(&sb);
        } else {
            t->fval = strtod(buf, NULL);
        }
    } else {
        /* value modulo 2^64; overflow flagged when it exceeds int64 */
        uint64_t v = 0;
        bool over = false;
        for (int i = 0; i < nb; i++) {
            uint64_t dgt = (uint64_t)hexval((unsigned char)buf[i]);
            if (v > (UINT64_MAX - dgt) / (uint64_t)base)
                over = true;
            v = v * (uint64_t)base + dgt;
        }
        bool u64 = !over && !too_long && v > (uint64_t)INT64_MAX;
        if (too_long || v > (uint64_t)INT64_MAX)
            over = true;
        t->ival = (int64_t)v;
        t->ival_overflow = over;
        t->ival_u64 = u64;
    }
    return 0;
}

/* ---- strings ---- */

/* `prefix_len` letters of prefix before the quote at L->p. */
static int lex_string(Lexer *L, const char *start, SrcLoc loc, int prefix_len) {
    bool raw = false, bytes = false, fstr = false;
    for (int i = 0; i < prefix_len; i++) {
        int c = start[i] | 32;
        if (c == 'r')
            raw = true;
        else if (c == 'b')
            bytes = true;
        else if (c == 'f')
            fstr = true;
    }
    char q = *L->p;
    bool triple = peekc(L, 1) == q && peekc(L, 2) == q;
    int startline = L->line;
    L->p += triple ? 3 : 1;
    const char *body = L->p;
    const char *body_end = NULL;
    while (L->p < L->end) {
        char c = *L->p;
        if (c == '\\' && L->p + 1 < L->end) {
            if (L->p[1] == '\n') {
                L->p += 2;
                newline_at(L, L->p);
            } else {
                L->p += 2;
            }
            continue;
        }
        if (c == '\n') {
            if (!triple)
                break;
            L->p++;
            newline_at(L, L->p);
            continue;
        }
        if (c == q && (!triple || (peekc(L, 1) == q && peekc(L, 2) == q))) {
            body_end = L->p;
            L->p += triple ? 3 : 1;
            break;
        }
        if (bytes && (unsigned char)c >= 0x80)
            return lex_err(L, loc, "%s", "bytes can only contain ASCII literal characters");
        L->p++;
    }
    if (!body_end) {
        return diag_error(L->d, HJ_DIAG_SYNTAX, loc,
                          triple ? "unterminated triple-quoted string literal (detected at line %d)"
                                 : "unterminated string literal (detected at line %d)",
                          triple ? L->line : startline);
    }
    const char *err = NULL;
    int slen = 0;
    char *s = lex_decode_string(L->a, body, (int)(body_end - body), bytes, raw, &slen, &err);
    if (!s)
        return lex_err(L, loc, "%s", err ? err : "invalid string literal");
    Token *t = push_tok(L, TK_STRING, start, (int)(L->p - start), loc);
    if (!t)
        return -1;
    t->sval = s;
    t->slen = slen;
    t->is_bytes = bytes;
    t->is_fstring = fstr;
    return 0;
}

/* Length of a valid string prefix (r b rb br f rf fr u, any case) that is
 * the whole identifier [s, e) followed by a quote, else 0. */
static int string_prefix(const char *s, const char *e) {
    int n = (int)(e - s);
    if (n < 1 || n > 2)
        return 0;
    char a = (char)(s[0] | 32), b = n == 2 ? (char)(s[1] | 32) : 0;
    if (n == 1)
        return strchr("rbfu", a) ? 1 : 0;
    if ((a == 'r' && (b == 'b' || b == 'f')) || ((a == 'b' || a == 'f') && b == 'r'))
        return 2;
    return 0;
}

/* ---- operators ---- */

typedef struct OpSpell {
    TokKind kind;
    const char *s;
    int len;
} OpSpell;

static const OpSpell op_table[] = {
#define X(k, s) {TK_##k, s, (int)sizeof(s) - 1},
    HJ_OPERATORS(X)
#undef X
};

static int lex_operator(Lexer *L, SrcLoc loc) {
    /* longest match over the table */
    const OpSpell *best = NULL;
    for (size_t i = 0; i < sizeof op_table / sizeof op_table[0]; i++) {
        const OpSpell *o = &op_table[i];
        if (L->p + o->len <= L->end && memcmp(L->p, o->s, (size_t)o->len) == 0 &&
            (!best || o->len > best->len))
            best = o;
    }
    if (!best) {
        int n = 1;
        unsigned cp = decode_utf8((const unsigned char *)L->p, (const unsigned char *)L->end, &n);
        if (cp == '$' || cp == '?' || cp == '`')
            return lex_err(L, loc, "%s", "invalid syntax");
        char tmp[8] = {0};
        memcpy(tmp, L->p, (size_t)n);
        return diag_error(L->d, HJ_DIAG_SYNTAX, loc, "invalid character '%s' (U+%04X)",
                          cp < 0x20 ? "?" : tmp, cp);
    }
    const char *start = L->p;
    L->p += best->len;
    switch (best->kind) {
    case TK_OP_LPAR: case TK_OP_LSQB: case TK_OP_LBRACE:
        if (L->depth == L->bracket_cap) {
            int ncap = L->bracket_cap ? L->bracket_cap * 2 : 32;
            SrcLoc *nl = arena_alloc(L->a, sizeof(SrcLoc) * (size_t)ncap);
            char *nc = arena_alloc(L->a, (size_t)ncap);
            if (L->a->oom)
                return diag_error_noloc(L->d, HJ_DIAG_MEMORY, "out of memory");
            if (L->depth) {
                memcpy(nl, L->brackets, sizeof(SrcLoc) * (size_t)L->depth);
                memcpy(nc, L->bracket_ch, (size_t)L->depth);
            }
            L->brackets = nl;
            L->bracket_ch = nc;
            L->bracket_cap = ncap;
        }
        L->brackets[L->depth] = loc;
        L->bracket_ch[L->depth++] = *start;
        break;
    case TK_OP_RPAR: case TK_OP_RSQB: case TK_OP_RBRACE: {
        char tmp[2] = {*start, 0};
        if (L->depth == 0 && !L->expr_mode)
            return lex_err(L, loc, "unmatched '%s'", tmp);
        if (L->depth > 0) {
            char open = L->bracket_ch[L->depth - 1];
            char want = open == '(' ? ')' : open == '[' ? ']' : '}';
            if (want != *start) {
                return diag_error(L->d, HJ_DIAG_SYNTAX, loc,
                                  "closing parenthesis '%c' does not match opening parenthesis '%c'",
                                  *start, open);
            }
            L->depth--;
        }
        break;
    }
    default:
        break;
    }
    return push_tok(L, best->kind, start, best->len, loc) ? 0 : -1;
}

static TokKind keyword_kind(const char *s, int n) {
#define X(k, sp)                                                                          \
    if (n == (int)sizeof(sp) - 1 && memcmp(s, sp, (size_t)n) == 0)                        \
        return TK_##k;
    HJ_KEYWORDS(X)
#undef X
    return TK_NAME;
}

static int lex_all(Lexer *L) {
    L->indents[0] = L->alt_indents[0] = 0;
    L->nindent = 1;
    L->at_line_start = !L->expr_mode;
    for (;;) {
        if (L->a->oom)
            return diag_error_noloc(L->d, HJ_DIAG_MEMORY, "out of memory");
        if (L->at_line_start) {
            L->at_line_start = false;
            if (indentation(L) < 0)
                return -1;
        }
        if (L->p >= L->end)
            break;
        char c = *L->p;
        if (c == ' ' || c == '\t' || c == '\f' || c == '\r') {
            L->p++;
            continue;
        }
        if (c == '#') {
            while (L->p < L->end && *L->p != '\n')
                L->p++;
            continue;
        }
        if (c == '\\') {
            const char *q = L->p + 1;
            if (q < L->end && *q == '\r')
                q++;
            if (q < L->end && *q == '\n') {
                L->p = q + 1;
                newline_at(L, L->p);
                if (L->p >= L->end)
                    return lex_err(L, loc_at(L, L->p), "%s", "unexpected EOF while parsing");
                continue;
            }
            return lex_err(L, loc_at(L, L->p), "%s",
                           "unexpected character after line continuation character");
        }
        if (c == '\n') {
            if (L->depth == 0 && !L->expr_mode && L->ntoks > 0 &&
                L->toks[L->ntoks - 1].kind != TK_NEWLINE) {
                if (!push_tok(L, TK_NEWLINE, L->p, 1, loc_at(L, L->p)))
                    return -1;
            }
            L->p++;
            newline_at(L, L->p);
            if (L->depth == 0 && !L->expr_mode)
                L->at_line_start = true;
            continue;
        }
        SrcLoc loc = loc_at(L, L->p);
        int ch = (unsigned char)c;
        if (is_id_start(ch)) {
            const char *s = L->p;
            while (L->p < L->end && is_id_char((unsigned char)*L->p)) {
                if ((unsigned char)*L->p >= 0x80) {
                    int cl = 1;
                    unsigned cp = decode_utf8((const unsigned char *)L->p,
                                              (const unsigned char *)L->end, &cl);
                    if (!is_unicode_id(cp)) {
                        char tmp[8] = {0};
                        memcpy(tmp, L->p, (size_t)cl);
                        return diag_error(L->d, HJ_DIAG_SYNTAX, loc_at(L, L->p),
                                          "invalid character '%s' (U+%04X)", tmp, cp);
                    }
                    L->p += cl;
                    continue;
                }
                L->p++;
            }
            int pl = string_prefix(s, L->p);
            if (pl && L->p < L->end && (*L->p == '\'' || *L->p == '"')) {
                if (lex_string(L, s, loc, pl) < 0)
                    return -1;
                continue;
            }
            int n = (int)(L->p - s);
            TokKind k = keyword_kind(s, n);
            Token *t = push_tok(L, k, s, n, loc);
            if (!t)
                return -1;
            if (k == TK_NAME)
                t->sval = arena_strndup(L->a, s, (size_t)n), t->slen = n;
            continue;
        }
        if ((c >= '0' && c <= '9') || (c == '.' && is_digit_in(peekc(L, 1), 10))) {
            if (lex_number(L, loc) < 0)
                return -1;
            continue;
        }
        if (c == '\'' || c == '"') {
            if (lex_string(L, L->p, loc, 0) < 0)
                return -1;
            continue;
        }
        if (lex_operator(L, loc) < 0)
            return -1;
    }
    SrcLoc eof = loc_at(L, L->p);
    if (L->depth > 0 && !L->expr_mode) {
        char tmp[2] = {L->bracket_ch[L->depth - 1], 0};
        return lex_err(L, L->brackets[L->depth - 1], "'%s' was never closed", tmp);
    }
    if (!L->expr_mode) {
        if (L->ntoks > 0 && L->toks[L->ntoks - 1].kind != TK_NEWLINE &&
            L->toks[L->ntoks - 1].kind != TK_DEDENT)
            push_tok(L, TK_NEWLINE, L->p, 0, eof);
        while (L->nindent > 1) {
            L->nindent--;
            push_tok(L, TK_DEDENT, L->p, 0, eof);
        }
    }
    push_tok(L, TK_EOF, L->p, 0, eof);
    if (L->a->oom)
        return diag_error_noloc(L->d, HJ_DIAG_MEMORY, "out of memory");
    return 0;
}

Token *lex_tokenize(Arena *a, const SrcFile *file, Diag *d, int *ntokens) {
    Lexer L;
    memset(&L, 0, sizeof L);
    L.a = a;
    L.file = file;
    L.d = d;
    L.p = file->text ? file->text : "";
    L.end = L.p + strlen(L.p);
    L.line = 1;
    L.line_start = L.p;
    /* a UTF-8 byte order mark is not part of the text */
    if (L.end - L.p >= 3 && memcmp(L.p, "\xEF\xBB\xBF", 3) == 0)
        L.p += 3, L.line_start = L.p;
    if (lex_all(&L) < 0)
        return NULL;
    if (ntokens)
        *ntokens = L.ntoks;
    return L.toks;
}

Token *lex_tokenize_range(Arena *a, const SrcFile *file, const char *start, const char *end,
                          int line, int col, Diag *d, int *ntokens) {
    Lexer L;
    memset(&L, 0, sizeof L);
    L.a = a;
    L.file = file;
    L.d = d;
    L.p = start;
    L.end = end;
    L.line = line;
    /* a virtual line start so that loc_at() yields `col` at `start` */
    L.line_start = start;
    L.col_p = start;
    L.col_col = col;
    L.expr_mode = true;
    if (lex_all(&L) < 0)
        return NULL;
    if (ntokens)
        *ntokens = L.ntoks;
    return L.toks;
}
