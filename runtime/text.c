/* text.c - print() and f-string messages of compiled code (see
 * hpcjit/text.h): a per-thread text buffer, Python's repr of numbers, the
 * format mini-language, and the output of a line. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpcjit/runtime.h"
#include "hpcjit/text.h"

/* ---- the per-thread buffer ---------------------------------------------------- */

typedef struct TextBuf {
    char *p;
    size_t len, cap;
    bool oom; /* an append failed: the text is cut there */
} TextBuf;

static _Thread_local TextBuf tbuf;
static pthread_key_t buf_key; /* frees a thread's buffer when it exits */
static pthread_once_t buf_once = PTHREAD_ONCE_INIT;

static void free_buf(void *p) { free(p); }
static void make_key(void) { (void)pthread_key_create(&buf_key, free_buf); }

static void put(const char *s, size_t n)
{
    TextBuf *b = &tbuf;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (b->len + n + 1 > cap)
            cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q) {
            b->oom = true;
            return;
        }
        if (!b->p) {
            pthread_once(&buf_once, make_key);
            (void)pthread_setspecific(buf_key, q);
        } else if (q != b->p) {
            (void)pthread_setspecific(buf_key, q);
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void puts_(const char *s) { put(s, strlen(s)); }

static void putc_n(char c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        put(&c, 1);
}

void rt_text_begin(void)
{
    tbuf.len = 0;
    tbuf.oom = false;
    if (tbuf.p)
        tbuf.p[0] = '\0';
}

const char *rt_text_current(size_t *len)
{
    if (len)
        *len = tbuf.len;
    return tbuf.p ? tbuf.p : "";
}

void rt_text_str(const char *s) { puts_(s ? s : ""); }

void rt_text_repr_str(const char *s)
{
    /* repr() of a str: single quotes unless the text holds one and no double */
    s = s ? s : "";
    char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
    put(&q, 1);
    for (const char *c = s; *c; c++) {
        char esc[8];
        switch (*c) {
        case '\\': puts_("\\\\"); break;
        case '\n': puts_("\\n"); break;
        case '\r': puts_("\\r"); break;
        case '\t': puts_("\\t"); break;
        default:
            if (*c == q) {
                esc[0] = '\\', esc[1] = q;
                put(esc, 2);
            } else if ((unsigned char)*c < 0x20 || *c == 0x7f) {
                snprintf(esc, sizeof esc, "\\x%02x", (unsigned char)*c);
                puts_(esc);
            } else {
                put(c, 1);
            }
        }
    }
    put(&q, 1);
}

void rt_text_int(int64_t v)
{
    char s[32];
    snprintf(s, sizeof s, "%" PRId64, v);
    puts_(s);
}

void rt_text_uint(uint64_t v)
{
    char s[32];
    snprintf(s, sizeof s, "%" PRIu64, v);
    puts_(s);
}

void rt_text_bool(int32_t v) { puts_(v ? "True" : "False"); }

/* ---- repr of floats ------------------------------------------------------------ */

/* Python's repr of a float (float32: NumPy's str of np.float32): the
 * shortest digits that read back to the same value, positional for
 * decimal exponents -4..15, else scientific; `dot0` appends ".0" to an
 * integral positional value (not done inside complex reprs). */
static void repr_float(char *out, size_t cap, double v, bool f32, bool dot0)
{
    if (isnan(v)) {
        snprintf(out, cap, "nan");
        return;
    }
    if (isinf(v)) {
        snprintf(out, cap, v < 0 ? "-inf" : "inf");
        return;
    }
    char e[48];
    int maxp = f32 ? 9 : 17;
    for (int p = 1; p <= maxp; p++) {
        snprintf(e, sizeof e, "%.*e", p - 1, v);
        double back = strtod(e, NULL);
        if (f32 ? (float)back == (float)v : back == v)
            break;
    }
    /* e: [-]d[.ddd]e[+-]XX */
    const char *s = e;
    bool neg = *s == '-';
    if (neg)
        s++;
    char digits[24];
    int nd = 0;
    for (; *s && *s != 'e'; s++)
        if (*s != '.' && nd < (int)sizeof digits - 1)
            digits[nd++] = *s;
    int exp = *s == 'e' ? atoi(s + 1) : 0;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = '\0';

    char *o = out, *end = out + cap - 1;
#define EMIT(ch) do { if (o < end) *o++ = (ch); } while (0)
    if (neg)
        EMIT('-');
    if (exp < -4 || exp >= 16) {
        EMIT(digits[0]);
        if (nd > 1) {
            EMIT('.');
            for (int i = 1; i < nd; i++)
                EMIT(digits[i]);
        }
        char x[16];
        snprintf(x, sizeof x, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
        for (char *c = x; *c; c++)
            EMIT(*c);
    } else {
        int decpt = exp + 1; /* digits before the point */
        if (decpt <= 0) {
            EMIT('0');
            EMIT('.');
            for (int i = 0; i < -decpt; i++)
                EMIT('0');
            for (int i = 0; i < nd; i++)
                EMIT(digits[i]);
        } else if (decpt >= nd) {
            for (int i = 0; i < nd; i++)
                EMIT(digits[i]);
            for (int i = nd; i < decpt; i++)
                EMIT('0');
            if (dot0) {
                EMIT('.');
                EMIT('0');
            }
        } else {
            for (int i = 0; i < nd; i++) {
                if (i == decpt)
                    EMIT('.');
                EMIT(digits[i]);
            }
        }
    }
#undef EMIT
    *o = '\0';
}

void rt_text_f64(double v)
{
    char s[48];
    repr_float(s, sizeof s, v, false, true);
    puts_(s);
}

void rt_text_f32(float v)
{
    char s[48];
    repr_float(s, sizeof s, v, true, true);
    puts_(s);
}

static void complex_text(double re, double im, bool f32)
{
    char r[48], i[48];
    repr_float(i, sizeof i, im, f32, false);
    if (re == 0.0 && !signbit(re)) {
        puts_(i);
        puts_("j");
        return;
    }
    repr_float(r, sizeof r, re, f32, false);
    puts_("(");
    puts_(r);
    if (i[0] != '-')
        puts_("+");
    puts_(i);
    puts_("j)");
}

void rt_text_c128(double re, double im) { complex_text(re, im, false); }
void rt_text_c64(float re, float im) { complex_text(re, im, true); }

/* ---- the format mini-language ---------------------------------------------------
 * [[fill]align][sign][z][#][0][width][grouping][.precision][type] */

typedef struct Spec {
    char fill[5]; /* one UTF-8 character */
    bool fill_given;
    char align;   /* '<' '>' '^' '=' or 0 */
    char sign;    /* '+' '-' ' ' or 0 */
    bool alt, zero;
    long width;   /* -1: none */
    char group;   /* ',' '_' or 0 */
    long prec;    /* -1: none */
    char type;    /* 0: none */
} Spec;

static int utf8_len(unsigned char c) { return c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1; }
static bool is_align(char c) { return c == '<' || c == '>' || c == '^' || c == '='; }

static int bad_spec(const char *spec, const char *what)
{
    char msg[200];
    snprintf(msg, sizeof msg, "Invalid format specifier '%s' %s", spec, what);
    rt_raise("ValueError", msg);
    return -1;
}

static int parse_spec(const char *spec, Spec *sp)
{
    memset(sp, 0, sizeof *sp);
    sp->width = sp->prec = -1;
    strcpy(sp->fill, " ");
    const char *s = spec;
    int fl = *s ? utf8_len((unsigned char)*s) : 0;
    if (*s && (int)strnlen(s, (size_t)fl) == fl && is_align(s[fl])) {
        memcpy(sp->fill, s, (size_t)fl);
        sp->fill[fl] = '\0';
        sp->fill_given = true;
        sp->align = s[fl];
        s += fl + 1;
    } else if (is_align(*s)) {
        sp->align = *s++;
    }
    if (*s == '+' || *s == '-' || *s == ' ')
        sp->sign = *s++;
    if (*s == 'z')
        s++; /* negative zero to positive: rare, accepted and ignored */
    if (*s == '#')
        sp->alt = true, s++;
    if (*s == '0') {
        sp->zero = true;
        s++;
    }
    if (*s >= '0' && *s <= '9') {
        sp->width = strtol(s, (char **)&s, 10);
        if (sp->width > 10000)
            return bad_spec(spec, "(width too large)");
    }
    if (*s == ',' || *s == '_')
        sp->group = *s++;
    if (*s == '.') {
        s++;
        if (!(*s >= '0' && *s <= '9'))
            return bad_spec(spec, "(missing precision)");
        sp->prec = strtol(s, (char **)&s, 10);
        if (sp->prec > 1000)
            return bad_spec(spec, "(precision too large)");
    }
    if (*s)
        sp->type = *s++;
    if (*s)
        return bad_spec(spec, "(unexpected characters at the end)");
    /* '0': zero fill unless a fill was given, sign-aware unless aligned */
    if (sp->zero && !sp->fill_given)
        strcpy(sp->fill, "0");
    if (sp->zero && !sp->align)
        sp->align = '=';
    if (sp->group && sp->type == 'n') {
        char msg[64];
        snprintf(msg, sizeof msg, "Cannot specify '%c' with 'n'.", sp->group);
        rt_raise("ValueError", msg);
        return -1;
    }
    return 0;
}

/* A digit of the integer part: hex letters count only for hex (every 4),
 * so that the e of 1e+20 does not. */
static bool is_digit_char(char c, int every)
{
    return (c >= '0' && c <= '9') || (every == 4 && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')));
}

/* Insert the grouping character into the leading run of digits of `core`. */
static void group_digits(char *core, size_t cap, char sep, int every)
{
    size_t nd = 0;
    while (is_digit_char(core[nd], every))
        nd++;
    if (nd <= (size_t)every)
        return;
    size_t nsep = (nd - 1) / (size_t)every, len = strlen(core);
    if (len + nsep + 1 > cap)
        return;
    memmove(core + nd + nsep, core + nd, len - nd + 1);
    size_t src = nd, dst = nd + nsep, k = 0;
    while (src > 0) {
        core[--dst] = core[--src];
        if (++k % (size_t)every == 0 && src > 0)
            core[--dst] = sep;
    }
}

/* Group the leading digits of `core`; with sign-aware zero padding the
 * zeros are digits too, and get separators (format(1, '08,') is
 * '0,000,001'), so they are added here before grouping. */
static void group_core(const Spec *sp, const char *head, char *core, size_t cap, int every)
{
    if (!sp->group)
        return;
    bool zpad = sp->align == '=' && strcmp(sp->fill, "0") == 0 && sp->width > 0;
    size_t nd = 0;
    while (is_digit_char(core[nd], every))
        nd++;
    size_t rest = strlen(core) - nd, hl = strlen(head);
    /* CPython adds zeros until the width is reached, so a separator that
     * would lead makes the result one wider: format(1, '08,') is '0,000,001' */
    while (zpad && hl + nd + (nd ? (nd - 1) / (size_t)every : 0) + rest < (size_t)sp->width &&
           strlen(core) + 2 < cap) {
        memmove(core + 1, core, strlen(core) + 1);
        core[0] = '0';
        nd++;
    }
    group_digits(core, cap, sp->group, every);
}

/* Pad sign+prefix and core to the width, as the spec's alignment says. */
static void emit_padded(const Spec *sp, const char *head, const char *core, char dflt_align)
{
    size_t n = strlen(head) + strlen(core);
    size_t pad = sp->width > 0 && (size_t)sp->width > n ? (size_t)sp->width - n : 0;
    char a = sp->align ? sp->align : dflt_align;
    size_t left = a == '>' ? pad : a == '^' ? pad / 2 : 0, right = a == '<' ? pad : a == '^' ? pad - pad / 2 : 0;
    for (size_t i = 0; i < left; i++)
        puts_(sp->fill);
    puts_(head);
    if (a == '=')
        for (size_t i = 0; i < pad; i++)
            puts_(sp->fill);
    puts_(core);
    for (size_t i = 0; i < right; i++)
        puts_(sp->fill);
}

static void sign_head(char *head, bool neg, char sign)
{
    head[0] = neg ? '-' : sign == '+' ? '+' : sign == ' ' ? ' ' : '\0';
    head[1] = '\0';
}

/* Drop trailing zeros of the digits after a '.' (and the '.' when none
 * remain), up to an exponent if there is one. */
static void strip_zeros(char *s)
{
    char *dot = strchr(s, '.');
    if (!dot)
        return;
    char *e = strpbrk(dot, "eE");
    char *end = e ? e : s + strlen(s);
    char *q = end;
    while (q > dot + 1 && q[-1] == '0')
        q--;
    if (q == dot + 1)
        q = dot;
    memmove(q, end, strlen(end) + 1);
}

/* CPython's float format with a precision and no type: p significant
 * digits (0 counts as 1); positional unless the decimal point would come
 * before the 4th leading zero or leave no room for a digit after it
 * (format(5.0, '.1') is '5e+00', format(1.0, '.2') is '1.0'); trailing
 * zeros dropped unless '#', a positional integer gets ".0". */
static void no_type_precision(char *core, size_t cap, double a, int p, bool alt)
{
    int sig = p > 0 ? p : 1;
    char e[64];
    snprintf(e, sizeof e, "%.*e", sig - 1, a);
    int decpt = atoi(strchr(e, 'e') + 1) + 1;
    if (decpt <= -4 || decpt > sig - 1) {
        snprintf(core, cap, alt ? "%#.*e" : "%.*e", sig - 1, a);
    } else {
        snprintf(core, cap, alt ? "%#.*f" : "%.*f", sig - decpt, a);
        if (!alt)
            strip_zeros(core);
        if (!strchr(core, '.'))
            strncat(core, ".0", cap - strlen(core) - 1);
        return;
    }
    if (!alt)
        strip_zeros(core);
}

static int format_float(double v, bool f32, const Spec *sp, const char *spec)
{
    char t = sp->type;
    if (t && !strchr("eEfFgGn%", t)) {
        char msg[120];
        snprintf(msg, sizeof msg, "Unknown format code '%c' for object of type 'float'", t);
        rt_raise("ValueError", msg);
        return -1;
    }
    bool neg = signbit(v) && !isnan(v);
    double a = fabs(v);
    char core[1200], head[4];
    bool upper = t == 'E' || t == 'F' || t == 'G';
    if (isnan(v) || isinf(v)) {
        snprintf(core, sizeof core, "%s%s", isnan(v) ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf"),
                 t == '%' ? "%" : "");
    } else if (!t && sp->prec < 0) {
        repr_float(core, sizeof core, a, f32, true);
        char *e = strchr(core, 'e');
        if (sp->alt && e && !strchr(core, '.')) /* '#': 1.e+20 */
            memmove(e + 1, e, strlen(e) + 1), *e = '.';
    } else {
        int p = sp->prec < 0 ? 6 : (int)sp->prec;
        char ct = t ? t : 'g';
        if (ct == 'n')
            ct = 'g';
        if (ct == '%') {
            snprintf(core, sizeof core - 1, sp->alt ? "%#.*f" : "%.*f", p, a * 100.0);
            strcat(core, "%");
        } else {
            char fmt[8];
            snprintf(fmt, sizeof fmt, "%%%s.*%c", sp->alt ? "#" : "", ct);
            snprintf(core, sizeof core, fmt, (ct == 'g' || ct == 'G') && p == 0 ? 1 : p, a);
        }
        if (!t)
            no_type_precision(core, sizeof core, a, p, sp->alt);
    }
    sign_head(head, neg, sp->sign);
    if (core[0] >= '0' && core[0] <= '9')
        group_core(sp, head, core, sizeof core, 3);
    emit_padded(sp, head, core, '>');
    return 0;
}

int32_t rt_text_format_float(double v, int32_t is_f32, const char *spec)
{
    Spec sp;
    if (parse_spec(spec ? spec : "", &sp) < 0)
        return -1;
    return format_float(v, is_f32 != 0, &sp, spec ? spec : "");
}

int32_t rt_text_format_float_int(double v, const char *spec)
{
    if (isnan(v)) {
        rt_raise("ValueError", "cannot convert float NaN to integer");
        return -1;
    }
    if (isinf(v)) {
        rt_raise("OverflowError", "cannot convert float infinity to integer");
        return -1;
    }
    v = trunc(v) + 0.0; /* int(v); + 0.0 makes -0.0 0 */
    spec = spec ? spec : "";
    if (v > -9.2e18 && v < 9.2e18)
        return rt_text_format_int((int64_t)v, 0, spec);
    /* past int64: the exact digits of the integral double ('.0f'), the spec's
     * flags kept; its type is 'd' or none (printf's %d, %i, %u) */
    char fs[128];
    size_t n = strlen(spec);
    if (n + 4 > sizeof fs) {
        rt_raise("ValueError", "format spec too long");
        return -1;
    }
    memcpy(fs, spec, n + 1);
    if (n > 0 && fs[n - 1] == 'd')
        fs[--n] = '\0';
    memcpy(fs + n, ".0f", 4);
    Spec sp;
    if (parse_spec(fs, &sp) < 0)
        return -1;
    sp.alt = false; /* '#' of an int is no decimal point */
    return format_float(v, false, &sp, fs);
}

/* format(i, 'c'): the character of code point i, padded by code points. */
static int format_char(int64_t v, int32_t is_unsigned, Spec *sp)
{
    if (sp->sign) {
        rt_raise("ValueError", "Sign not allowed with integer format specifier 'c'");
        return -1;
    }
    if (sp->alt) {
        rt_raise("ValueError", "Alternate form (#) not allowed with integer format specifier 'c'");
        return -1;
    }
    if (sp->group) {
        rt_raise("ValueError", "Cannot specify ',' with 'c'.");
        return -1;
    }
    if (sp->prec >= 0) {
        rt_raise("ValueError", "Precision not allowed in integer format specifier");
        return -1;
    }
    if ((!is_unsigned && v < 0) || (uint64_t)v > 0x10ffff) {
        rt_raise("OverflowError", "%c arg not in range(0x110000)");
        return -1;
    }
    uint32_t c = (uint32_t)v;
    char core[5] = {0};
    int nb = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    if (nb == 1) {
        core[0] = (char)c;
    } else {
        for (int i = nb - 1; i > 0; i--, c >>= 6)
            core[i] = (char)(0x80 | (c & 0x3f));
        core[0] = (char)((nb == 2 ? 0xc0 : nb == 3 ? 0xe0 : 0xf0) | c);
    }
    /* emit_padded's layout for one character, written by length (it may be NUL) */
    size_t pad = sp->width > 1 ? (size_t)sp->width - 1 : 0;
    char a = sp->align ? sp->align : '>';
    size_t left = a == '>' || a == '=' ? pad : a == '^' ? pad / 2 : 0;
    for (size_t i = 0; i < left; i++)
        puts_(sp->fill);
    put(core, (size_t)nb);
    for (size_t i = left; i < pad; i++)
        puts_(sp->fill);
    return 0;
}

int32_t rt_text_format_int(int64_t v, int32_t is_unsigned, const char *spec)
{
    Spec sp;
    spec = spec ? spec : "";
    if (parse_spec(spec, &sp) < 0)
        return -1;
    char t = sp.type;
    if (t && strchr("eEfFgG%", t))
        return format_float(is_unsigned ? (double)(uint64_t)v : (double)v, false, &sp, spec);
    if (t == 'c')
        return format_char(v, is_unsigned, &sp);
    if (t && !strchr("bdoxXn", t)) {
        char msg[120];
        snprintf(msg, sizeof msg, "Unknown format code '%c' for object of type 'int'", t);
        rt_raise("ValueError", msg);
        return -1;
    }
    if (sp.prec >= 0) {
        rt_raise("ValueError", "Precision not allowed in integer format specifier");
        return -1;
    }
    bool neg = !is_unsigned && v < 0;
    uint64_t m = neg ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    int base = t == 'b' ? 2 : t == 'o' ? 8 : (t == 'x' || t == 'X') ? 16 : 10;
    char core[100], rev[70], head[8];
    int n = 0;
    const char *dig = t == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
    do {
        rev[n++] = dig[m % (uint64_t)base];
        m /= (uint64_t)base;
    } while (m);
    for (int i = 0; i < n; i++)
        core[i] = rev[n - 1 - i];
    core[n] = '\0';
    if (sp.group == ',' && base != 10) {
        char msg[64];
        snprintf(msg, sizeof msg, "Cannot specify ',' with '%c'.", t);
        rt_raise("ValueError", msg);
        return -1;
    }
    sign_head(head, neg, sp.sign);
    if (sp.alt && base != 10) {
        size_t hl = strlen(head);
        head[hl] = '0';
        head[hl + 1] = t;
        head[hl + 2] = '\0';
    }
    group_core(&sp, head, core, sizeof core, base == 10 ? 3 : 4);
    emit_padded(&sp, head, core, '>');
    return 0;
}

/* ---- arrays ---------------------------------------------------------------------- */

static _Atomic(const RtTextHooks *) hooks;

void rt_text_set_hooks(const RtTextHooks *h) { atomic_store(&hooks, h); }

static void item_text(const char *p, int32_t dt)
{
    switch (dt) {
    case '?': rt_text_bool(*(const uint8_t *)p); break;
    case 'b': rt_text_int(*(const int8_t *)p); break;
    case 'h': rt_text_int(*(const int16_t *)p); break;
    case 'i': rt_text_int(*(const int32_t *)p); break;
    case 'l': rt_text_int(*(const int64_t *)p); break;
    case 'B': rt_text_uint(*(const uint8_t *)p); break;
    case 'H': rt_text_uint(*(const uint16_t *)p); break;
    case 'I': rt_text_uint(*(const uint32_t *)p); break;
    case 'L': rt_text_uint(*(const uint64_t *)p); break;
    case 'f': rt_text_f32(*(const float *)p); break;
    case 'd': rt_text_f64(*(const double *)p); break;
    case 'F': rt_text_c64(((const float *)p)[0], ((const float *)p)[1]); break;
    case 'D': rt_text_c128(((const double *)p)[0], ((const double *)p)[1]); break;
    default: puts_("?"); break;
    }
}

/* Without NumPy (no GIL on this thread): nested brackets, items by repr. */
static void array_plain(const HjArray *a, int32_t ndim, int32_t dt, int32_t axis, const char *p)
{
    if (axis == ndim) {
        item_text(p, dt);
        return;
    }
    const int64_t *shape = a->shape_strides, *strides = a->shape_strides + ndim;
    puts_("[");
    for (int64_t i = 0; i < shape[axis]; i++) {
        if (i > 0) {
            if (axis == ndim - 1) {
                puts_(" ");
            } else {
                putc_n('\n', (size_t)(ndim - 1 - axis));
                putc_n(' ', (size_t)axis + 1);
            }
        }
        array_plain(a, ndim, dt, axis + 1, p + i * strides[axis]);
    }
    puts_("]");
}

void rt_text_array(const HjArray *a, int32_t ndim, int32_t dt, int32_t repr)
{
    const RtTextHooks *h = atomic_load(&hooks);
    char *s = NULL;
    if (h && h->array_text && h->array_text(a, ndim, dt, repr, &s) == 1 && s) {
        puts_(s);
        free(s);
        return;
    }
    array_plain(a, ndim, dt, 0, a->data);
}

/* ---- output ------------------------------------------------------------------------ */

static pthread_mutex_t fd_lock = PTHREAD_MUTEX_INITIALIZER;

static void write_fd1(const char *s, size_t n)
{
    pthread_mutex_lock(&fd_lock);
    while (n > 0) {
        ssize_t w = write(1, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break; /* stdout closed: print() output is dropped, as by Python at exit */
        s += w;
        n -= (size_t)w;
    }
    pthread_mutex_unlock(&fd_lock);
}

int32_t rt_text_print(const char *end)
{
    rt_text_str(end ? end : "\n");
    if (tbuf.oom) {
        rt_raise("MemoryError", "print(): out of memory while formatting the line");
        return -1;
    }
    const char *s = rt_text_current(NULL);
    size_t n = tbuf.len;
    const RtTextHooks *h = atomic_load(&hooks);
    int r = h && h->write_stdout ? h->write_stdout(s, n) : 0;
    if (r < 0)
        return -1;
    if (r == 0)
        write_fd1(s, n);
    return 0;
}

void rt_text_raise(const char *type)
{
    rt_raise(type, rt_text_current(NULL));
}
