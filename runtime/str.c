/* str.c - the native str type of compiled code (hpcjit/str.h): PEP 393
 * strings in a refcounted MemInfo, CPython's str methods on them.
 *
 * Results are always in the narrowest kind: either the kind is known from
 * the inputs (concat, join: the widest input kind, since each input is
 * narrowest), or the result is built in a wide enough kind and narrowed by
 * finish() (slices, replace, case mapping).  Non-ASCII character classes
 * and case mappings come from the RtUnicodeDb hook (str.h). */
#define _GNU_SOURCE /* memmem, memrchr */
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcjit/containers.h"
#include "hpcjit/runtime.h"
#include "hpcjit/str.h"
#include "hpcjit/text.h"

#define MAXCHAR_ALL 0x10ffffu

/* ---- code units ------------------------------------------------------------ */

static inline uint32_t rd(int kind, const void *d, int64_t i)
{
    switch (kind) {
    case 1: return ((const uint8_t *)d)[i];
    case 2: return ((const uint16_t *)d)[i];
    default: return ((const uint32_t *)d)[i];
    }
}

static inline void wr(int kind, void *d, int64_t i, uint32_t c)
{
    switch (kind) {
    case 1: ((uint8_t *)d)[i] = (uint8_t)c; break;
    case 2: ((uint16_t *)d)[i] = (uint16_t)c; break;
    default: ((uint32_t *)d)[i] = c; break;
    }
}

static inline int kind_for(uint32_t maxc) { return maxc < 0x100 ? 1 : maxc < 0x10000 ? 2 : 4; }

static inline const HjStr *S(const HjMemInfo *mi) { return (const HjStr *)mi->data; }

/* Copy n units from src (kind sk) to dst (kind dk), dk >= sk or the values
 * known to fit. */
#define CONVERT_UNITS(DT, ST)                                                                      \
    do {                                                                                           \
        DT *d_ = dst;                                                                              \
        const ST *s_ = src;                                                                        \
        for (int64_t i = 0; i < n; i++)                                                            \
            d_[i] = (DT)s_[i];                                                                     \
    } while (0)

static void copy_units(int dk, void *dst, int sk, const void *src, int64_t n)
{
    if (dk == sk) {
        memcpy(dst, src, (size_t)n * (size_t)dk);
        return;
    }
    /* one typed loop per pair of kinds (slices and joins of mixed text) */
    switch (dk * 8 + sk) {
    case 1 * 8 + 2: CONVERT_UNITS(uint8_t, uint16_t); break;
    case 1 * 8 + 4: CONVERT_UNITS(uint8_t, uint32_t); break;
    case 2 * 8 + 1: CONVERT_UNITS(uint16_t, uint8_t); break;
    case 2 * 8 + 4: CONVERT_UNITS(uint16_t, uint32_t); break;
    case 4 * 8 + 1: CONVERT_UNITS(uint32_t, uint8_t); break;
    default: CONVERT_UNITS(uint32_t, uint16_t); break;
    }
}

static uint32_t max_char(int kind, const void *d, int64_t n)
{
    uint32_t m = 0;
    if (kind == 1) {
        const uint8_t *p = d;
        for (int64_t i = 0; i < n; i++)
            m |= p[i]; /* the top bit is all that matters for kind 1 */
        return m;
    }
    if (kind == 2) {
        const uint16_t *p = d;
        uint16_t m2 = 0;
        for (int64_t i = 0; i < n; i++)
            m2 = p[i] > m2 ? p[i] : m2;
        return m2;
    }
    const uint32_t *p = d;
    for (int64_t i = 0; i < n; i++)
        m = p[i] > m ? p[i] : m;
    return m;
}

/* ---- immortal constants ------------------------------------------------------ */

#define CONST_INIT(var, len, text)                                                                 \
    { {RT_STR_IMMORTAL, &var.s, (int64_t)sizeof(HjStr) + (len) + 1, NULL, NULL},                  \
      {(len), -1, 1, 1, text} }

static RtStrConst(1) empty_c = CONST_INIT(empty_c, 0, "");
static RtStrConst(5) true_c = CONST_INIT(true_c, 4, "True");
static RtStrConst(6) false_c = CONST_INIT(false_c, 5, "False");

/* The 256 one-character strings of Latin-1 (as CPython caches them). */
static RtStrConst(2) latin1_c[256];
static pthread_once_t latin1_once = PTHREAD_ONCE_INIT;

static void latin1_init(void)
{
    for (int i = 0; i < 256; i++) {
        latin1_c[i].mi.refcnt = RT_STR_IMMORTAL;
        latin1_c[i].mi.data = &latin1_c[i].s;
        latin1_c[i].mi.size = (int64_t)sizeof(HjStr) + 2;
        latin1_c[i].s.length = 1;
        latin1_c[i].s.hash = -1;
        latin1_c[i].s.kind = 1;
        latin1_c[i].s.is_ascii = i < 128;
        latin1_c[i].s.data[0] = (char)i;
    }
}

static HjMemInfo *empty(void) { return &empty_c.mi; }

static HjMemInfo *latin1(uint32_t c)
{
    pthread_once(&latin1_once, latin1_init);
    return &latin1_c[c].mi;
}

static HjMemInfo *ref(const HjMemInfo *s)
{
    rt_incref((HjMemInfo *)s);
    return (HjMemInfo *)s;
}

/* ---- allocation ------------------------------------------------------------------ */

/* A str of n code units of `kind`, uninitialised but for the terminator. */
static HjMemInfo *str_alloc(int kind, int64_t n, int is_ascii)
{
    if (n < 0 || n > (INT64_MAX / 2 - (int64_t)sizeof(HjStr)) / kind - 1) {
        rt_raise("MemoryError", "string too long");
        return NULL;
    }
    HjMemInfo *mi = rt_alloc_packed((int64_t)sizeof(HjStr) + (n + 1) * kind);
    if (!mi)
        return NULL;
    HjStr *s = mi->data;
    s->length = n;
    s->hash = -1;
    s->kind = kind;
    s->is_ascii = is_ascii;
    wr(kind, s->data, n, 0);
    return mi;
}

HjMemInfo *rt_str_alloc(int32_t kind, int64_t n, int32_t is_ascii)
{
    if (kind != 1 && kind != 2 && kind != 4) {
        rt_raise("ValueError", "string kind must be 1, 2 or 4");
        return NULL;
    }
    return str_alloc(kind, n, is_ascii != 0);
}

HjMemInfo *rt_str_from_kind(int32_t kind, const void *data, int64_t n)
{
    if (kind != 1 && kind != 2 && kind != 4) {
        rt_raise("ValueError", "string kind must be 1, 2 or 4");
        return NULL;
    }
    if (n == 0)
        return empty();
    uint32_t m = max_char(kind, data, n);
    if (n == 1 && m < 256)
        return latin1(m);
    int k = kind_for(m);
    HjMemInfo *mi = str_alloc(k, n, m < 128);
    if (mi)
        copy_units(k, RT_STR(mi)->data, kind, data, n);
    return mi;
}

/* Narrow a freshly built str (refcount 1, is_ascii unknown) to its
 * narrowest kind; takes over `mi`. */
static HjMemInfo *finish(HjMemInfo *mi)
{
    if (!mi)
        return NULL;
    HjStr *s = mi->data;
    uint32_t m = max_char(s->kind, s->data, s->length);
    if (s->length <= 1 || kind_for(m) != s->kind) {
        HjMemInfo *r = rt_str_from_kind(s->kind, s->data, s->length);
        rt_decref(mi);
        return r;
    }
    s->is_ascii = m < 128;
    return mi;
}

/* s[i:j] (0 <= i <= j <= len). */
static HjMemInfo *sub(const HjMemInfo *smi, int64_t i, int64_t j)
{
    const HjStr *s = S(smi);
    if (i == 0 && j == s->length)
        return ref(smi);
    if (s->is_ascii) {
        if (j - i <= 1)
            return j == i ? empty() : latin1((uint8_t)s->data[i]);
        HjMemInfo *mi = str_alloc(1, j - i, 1);
        if (mi)
            memcpy(RT_STR(mi)->data, s->data + i, (size_t)(j - i));
        return mi;
    }
    return rt_str_from_kind(s->kind, s->data + i * s->kind, j - i);
}

/* A growable buffer of UCS-4 code points (case mapping, expandtabs...). */
typedef struct Ucs {
    uint32_t *p;
    int64_t n, cap;
    bool oom;
} Ucs;

static void ucs_put(Ucs *b, uint32_t c)
{
    if (b->n == b->cap) {
        int64_t cap = b->cap ? b->cap * 2 : 64;
        uint32_t *q = realloc(b->p, (size_t)cap * sizeof *q);
        if (!q) {
            b->oom = true;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    b->p[b->n++] = c;
}

static HjMemInfo *ucs_finish(Ucs *b)
{
    HjMemInfo *r = NULL;
    if (b->oom)
        rt_raise("MemoryError", NULL);
    else
        r = rt_str_from_kind(4, b->p, b->n);
    free(b->p);
    return r;
}

/* ---- UTF-8 -------------------------------------------------------------------- */

static int utf8_error(const unsigned char *p, int64_t pos, const char *why)
{
    char msg[160];
    snprintf(msg, sizeof msg, "'utf-8' codec can't decode byte 0x%02x in position %" PRId64 ": %s", p[pos], pos,
             why);
    rt_raise("UnicodeDecodeError", msg);
    return -1;
}

/* Decode one code point at p[i] (i < n) into *c; returns its byte length or
 * -1 (exception set). */
static int utf8_next(const unsigned char *p, int64_t i, int64_t n, uint32_t *c)
{
    unsigned char b = p[i];
    int len;
    uint32_t v, min;
    if (b < 0x80) {
        *c = b;
        return 1;
    } else if (b >= 0xc2 && b < 0xe0) {
        len = 2, v = b & 0x1f, min = 0x80;
    } else if (b >= 0xe0 && b < 0xf0) {
        len = 3, v = b & 0x0f, min = 0x800;
    } else if (b >= 0xf0 && b < 0xf5) {
        len = 4, v = b & 0x07, min = 0x10000;
    } else {
        return utf8_error(p, i, "invalid start byte");
    }
    for (int k = 1; k < len; k++) {
        if (i + k >= n)
            return utf8_error(p, i, "unexpected end of data");
        if ((p[i + k] & 0xc0) != 0x80)
            return utf8_error(p, i, "invalid continuation byte");
        v = (v << 6) | (p[i + k] & 0x3f);
    }
    if (v < min || v > MAXCHAR_ALL || (v >= 0xd800 && v < 0xe000))
        return utf8_error(p, i, "invalid continuation byte");
    *c = v;
    return len;
}

HjMemInfo *rt_str_from_utf8(const char *cp, int64_t n)
{
    const unsigned char *p = (const unsigned char *)cp;
    if (n < 0)
        n = (int64_t)strlen(cp);
    int64_t len = 0, i = 0;
    uint32_t m = 0, c;
    while (i < n) {
        if (p[i] < 0x80) {
            i++, len++;
            continue;
        }
        int k = utf8_next(p, i, n, &c);
        if (k < 0)
            return NULL;
        if (c > m)
            m = c;
        i += k, len++;
    }
    if (m == 0) /* ASCII */
        return rt_str_from_kind(1, p, n);
    int kind = kind_for(m);
    if (len == 1 && m < 256)
        return latin1(m);
    HjMemInfo *mi = str_alloc(kind, len, 0);
    if (!mi)
        return NULL;
    char *d = RT_STR(mi)->data;
    for (int64_t j = 0, o = 0; j < n; o++) {
        int k = utf8_next(p, j, n, &c);
        wr(kind, d, o, c);
        j += k;
    }
    return mi;
}

/* UTF-8 of one code point into out (4 bytes); lone surrogates are written
 * as their 3-byte form (as 'surrogatepass'). */
static int utf8_put(uint32_t c, char *out)
{
    if (c < 0x80) {
        out[0] = (char)c;
        return 1;
    } else if (c < 0x800) {
        out[0] = (char)(0xc0 | (c >> 6));
        out[1] = (char)(0x80 | (c & 0x3f));
        return 2;
    } else if (c < 0x10000) {
        out[0] = (char)(0xe0 | (c >> 12));
        out[1] = (char)(0x80 | ((c >> 6) & 0x3f));
        out[2] = (char)(0x80 | (c & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | (c >> 18));
    out[1] = (char)(0x80 | ((c >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((c >> 6) & 0x3f));
    out[3] = (char)(0x80 | (c & 0x3f));
    return 4;
}

char *rt_str_to_utf8(const HjMemInfo *smi, int64_t *np)
{
    const HjStr *s = S(smi);
    size_t cap = s->is_ascii ? (size_t)s->length + 1 : (size_t)s->length * 4 + 1;
    char *out = malloc(cap);
    if (!out) {
        rt_raise("MemoryError", NULL);
        return NULL;
    }
    size_t o = 0;
    if (s->is_ascii) {
        memcpy(out, s->data, (size_t)s->length);
        o = (size_t)s->length;
    } else {
        for (int64_t i = 0; i < s->length; i++)
            o += (size_t)utf8_put(rd(s->kind, s->data, i), out + o);
    }
    out[o] = '\0';
    if (np)
        *np = (int64_t)o;
    return out;
}

/* ---- the Unicode database --------------------------------------------------------- */

static _Atomic(const RtUnicodeDb *) unicode_db;

void rt_str_set_unicode_db(const RtUnicodeDb *db) { atomic_store_explicit(&unicode_db, db, memory_order_release); }

static inline const RtUnicodeDb *udb(void) { return atomic_load_explicit(&unicode_db, memory_order_acquire); }

/* Py_UNICODE_ISSPACE: ASCII \t\n\v\f\r, \x1c-\x1f, space, and the Unicode
 * characters of bidirectional class WS/B/S or category Zs (a fixed set). */
static bool is_space(uint32_t c)
{
    if (c < 128)
        return c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f);
    return c == 0x85 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 ||
           c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
}

/* The line boundaries of str.splitlines. */
static bool is_linebreak(uint32_t c)
{
    return (c >= 0x0a && c <= 0x0d) || (c >= 0x1c && c <= 0x1e) || c == 0x85 || c == 0x2028 || c == 0x2029;
}

static inline bool a_lower(uint32_t c) { return c >= 'a' && c <= 'z'; }
static inline bool a_upper(uint32_t c) { return c >= 'A' && c <= 'Z'; }
static inline bool a_digit(uint32_t c) { return c >= '0' && c <= '9'; }

/* A class of a non-ASCII code point through the table; false without it. */
#define DB_CLASS(name, member, ascii)                                                              \
    static bool name(uint32_t c)                                                                   \
    {                                                                                              \
        if (c < 128)                                                                               \
            return ascii;                                                                          \
        const RtUnicodeDb *db = udb();                                                             \
        return db && db->member(c);                                                                \
    }

DB_CLASS(is_lower, is_lowercase, a_lower(c))
DB_CLASS(is_upper, is_uppercase, a_upper(c))
DB_CLASS(is_title, is_titlecase, false)
DB_CLASS(is_alpha, is_alpha, a_lower(c) || a_upper(c))
DB_CLASS(is_decimal, is_decimal_digit, a_digit(c))
DB_CLASS(is_digit, is_digit, a_digit(c))
DB_CLASS(is_numeric, is_numeric, a_digit(c))
DB_CLASS(is_cased, is_cased, a_lower(c) || a_upper(c))
DB_CLASS(is_xid_start, is_xid_start, a_lower(c) || a_upper(c) || c == '_')
DB_CLASS(is_xid_continue, is_xid_continue, a_lower(c) || a_upper(c) || c == '_' || a_digit(c))
DB_CLASS(is_case_ignorable, is_case_ignorable, c == '\'' || c == '.' || c == ':' || c == '^' || c == '`')

static bool is_alnum(uint32_t c) { return is_alpha(c) || is_decimal(c) || is_digit(c) || is_numeric(c); }

static bool is_printable(uint32_t c)
{
    if (c < 128)
        return c >= 0x20 && c < 0x7f;
    const RtUnicodeDb *db = udb();
    return db ? db->is_printable(c) != 0 : true;
}

static int to_decimal(uint32_t c)
{
    if (c < 128)
        return a_digit(c) ? (int)(c - '0') : -1;
    const RtUnicodeDb *db = udb();
    return db ? db->to_decimal_digit(c) : -1;
}

enum { MAP_LOWER, MAP_UPPER, MAP_TITLE, MAP_FOLD };

/* The full case mapping of c into res (up to 3 code points). */
static int map_full(int how, uint32_t c, uint32_t *res)
{
    if (c < 128) {
        if (how == MAP_UPPER || how == MAP_TITLE)
            res[0] = a_lower(c) ? c - 32 : c;
        else
            res[0] = a_upper(c) ? c + 32 : c;
        return 1;
    }
    const RtUnicodeDb *db = udb();
    if (!db) {
        res[0] = c;
        return 1;
    }
    switch (how) {
    case MAP_LOWER: return db->to_lower_full(c, res);
    case MAP_UPPER: return db->to_upper_full(c, res);
    case MAP_TITLE: return db->to_title_full(c, res);
    default: return db->to_folded_full(c, res);
    }
}

/* ---- basics ----------------------------------------------------------------------- */

int64_t rt_str_len(const HjMemInfo *s) { return S(s)->length; }

int32_t rt_str_code_at(const HjMemInfo *s, int64_t i) { return (int32_t)rd(S(s)->kind, S(s)->data, i); }

HjMemInfo *rt_str_getitem(const HjMemInfo *smi, int64_t i)
{
    const HjStr *s = S(smi);
    if (i < 0)
        i += s->length;
    if (i < 0 || i >= s->length) {
        rt_raise("IndexError", "string index out of range");
        return NULL;
    }
    uint32_t c = rd(s->kind, s->data, i);
    return c < 256 ? latin1(c) : rt_str_from_kind(4, &c, 1);
}

HjMemInfo *rt_str_slice(const HjMemInfo *smi, int64_t start, int64_t stop, int64_t step)
{
    const HjStr *s = S(smi);
    int64_t n = s->length;
    if (step == RT_STR_NONE)
        step = 1;
    if (step == 0) {
        rt_raise("ValueError", "slice step cannot be zero");
        return NULL;
    }
    /* PySlice_AdjustIndices */
    int64_t lo = step < 0 ? -1 : 0, hi = step < 0 ? n - 1 : n;
    if (start == RT_STR_NONE) {
        start = step < 0 ? hi : lo;
    } else if (start < 0) {
        start += n;
        if (start < 0)
            start = lo;
    } else if (start >= n) {
        start = hi;
    }
    if (stop == RT_STR_NONE) {
        stop = step < 0 ? lo : hi;
    } else if (stop < 0) {
        stop += n;
        if (stop < 0)
            stop = lo;
    } else if (stop >= n) {
        stop = hi;
    }
    int64_t len = 0;
    if (step < 0 ? stop < start : start < stop)
        len = step < 0 ? (start - stop - 1) / (-step) + 1 : (stop - start - 1) / step + 1;
    if (step == 1)
        return sub(smi, start, start + len);
    if (len == 0)
        return empty();
    HjMemInfo *mi = str_alloc(s->kind, len, s->is_ascii);
    if (!mi)
        return NULL;
    for (int64_t i = 0, j = start; i < len; i++, j += step)
        wr(s->kind, RT_STR(mi)->data, i, rd(s->kind, s->data, j));
    return s->is_ascii ? (len == 1 ? (rt_decref(mi), latin1((uint8_t)s->data[start])) : mi) : finish(mi);
}

HjMemInfo *rt_str_concat(const HjMemInfo *a, const HjMemInfo *b)
{
    const HjStr *x = S(a), *y = S(b);
    if (y->length == 0)
        return ref(a);
    if (x->length == 0)
        return ref(b);
    int k = x->kind > y->kind ? x->kind : y->kind;
    if (x->length > INT64_MAX / 8 - y->length) {
        rt_raise("OverflowError", "strings are too large to concat");
        return NULL;
    }
    HjMemInfo *mi = str_alloc(k, x->length + y->length, x->is_ascii && y->is_ascii);
    if (!mi)
        return NULL;
    char *d = RT_STR(mi)->data;
    copy_units(k, d, x->kind, x->data, x->length);
    copy_units(k, d + x->length * k, y->kind, y->data, y->length);
    return mi;
}

HjMemInfo *rt_str_repeat(const HjMemInfo *smi, int64_t n)
{
    const HjStr *s = S(smi);
    if (n <= 0 || s->length == 0)
        return empty();
    if (n == 1)
        return ref(smi);
    if (s->length > INT64_MAX / 8 / n) {
        rt_raise("OverflowError", "repeated string is too long");
        return NULL;
    }
    HjMemInfo *mi = str_alloc(s->kind, s->length * n, s->is_ascii);
    if (!mi)
        return NULL;
    char *d = RT_STR(mi)->data;
    size_t unit = (size_t)(s->length * s->kind), total = unit * (size_t)n, done = unit;
    memcpy(d, s->data, unit);
    while (done < total) { /* doubling copies */
        size_t c = done < total - done ? done : total - done;
        memcpy(d + done, d, c);
        done += c;
    }
    return mi;
}

/* ---- comparison and hashing --------------------------------------------------------- */

int32_t rt_str_eq(const HjMemInfo *a, const HjMemInfo *b)
{
    if (a == b)
        return 1;
    const HjStr *x = S(a), *y = S(b);
    if (x->length != y->length || x->kind != y->kind)
        return 0;
    int64_t hx = __atomic_load_n(&x->hash, __ATOMIC_RELAXED), hy = __atomic_load_n(&y->hash, __ATOMIC_RELAXED);
    if (hx != -1 && hy != -1 && hx != hy)
        return 0;
    return memcmp(x->data, y->data, (size_t)(x->length * x->kind)) == 0;
}

int32_t rt_str_cmp(const HjMemInfo *a, const HjMemInfo *b)
{
    const HjStr *x = S(a), *y = S(b);
    int64_t n = x->length < y->length ? x->length : y->length;
    if (x->kind == 1 && y->kind == 1) {
        int c = memcmp(x->data, y->data, (size_t)n);
        if (c)
            return c < 0 ? -1 : 1;
    } else {
        for (int64_t i = 0; i < n; i++) {
            uint32_t p = rd(x->kind, x->data, i), q = rd(y->kind, y->data, i);
            if (p != q)
                return p < q ? -1 : 1;
        }
    }
    return x->length < y->length ? -1 : x->length > y->length ? 1 : 0;
}

/* CPython's str hash: SipHash-1-3 (PEP 456; sys.hash_info.algorithm) of
 * the canonical 1/2/4-byte code units, keyed with the interpreter's hash
 * secret (rt_str_hash_seed; PYTHONHASHSEED), so hash(s) in compiled code
 * equals Python's and string sets iterate in CPython's order. */
static uint64_t hash_k0, hash_k1;

void rt_str_hash_seed(uint64_t k0, uint64_t k1)
{
    hash_k0 = k0;
    hash_k1 = k1;
}

#define ROTL64(x, b) (((x) << (b)) | ((x) >> (64 - (b))))
#define SIP_ROUND(v0, v1, v2, v3)                                                                 \
    do {                                                                                           \
        v0 += v1; v1 = ROTL64(v1, 13); v1 ^= v0; v0 = ROTL64(v0, 32);                              \
        v2 += v3; v3 = ROTL64(v3, 16); v3 ^= v2;                                                   \
        v0 += v3; v3 = ROTL64(v3, 21); v3 ^= v0;                                                   \
        v2 += v1; v1 = ROTL64(v1, 17); v1 ^= v2; v2 = ROTL64(v2, 32);                              \
    } while (0)

static uint64_t siphash13(uint64_t k0, uint64_t k1, const unsigned char *p, size_t n)
{
    uint64_t v0 = k0 ^ 0x736f6d6570736575u, v1 = k1 ^ 0x646f72616e646f6du;
    uint64_t v2 = k0 ^ 0x6c7967656e657261u, v3 = k1 ^ 0x7465646279746573u;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) { /* little-endian words (x86-64, aarch64) */
        uint64_t m;
        memcpy(&m, p + i, 8);
        v3 ^= m;
        SIP_ROUND(v0, v1, v2, v3);
        v0 ^= m;
    }
    uint64_t last = (uint64_t)n << 56;
    for (size_t k = 0; i + k < n; k++)
        last |= (uint64_t)p[i + k] << (8 * k);
    v3 ^= last;
    SIP_ROUND(v0, v1, v2, v3);
    v0 ^= last;
    v2 ^= 0xff;
    SIP_ROUND(v0, v1, v2, v3);
    SIP_ROUND(v0, v1, v2, v3);
    SIP_ROUND(v0, v1, v2, v3);
    return v0 ^ v1 ^ v2 ^ v3;
}

int64_t rt_str_hash(const HjMemInfo *smi)
{
    HjStr *s = smi->data;
    int64_t h = __atomic_load_n(&s->hash, __ATOMIC_RELAXED);
    if (h != -1)
        return h;
    size_t nb = (size_t)(s->length * s->kind);
    h = nb ? (int64_t)siphash13(hash_k0, hash_k1, (const unsigned char *)s->data, nb) : 0;
    if (h == -1)
        h = -2;
    __atomic_store_n(&s->hash, h, __ATOMIC_RELAXED);
    return h;
}

/* ---- searching --------------------------------------------------------------------- */

/* str.find's index adjustment (ADJUST_INDICES). */
static void adjust(int64_t *start, int64_t *end, int64_t len)
{
    if (*end == RT_STR_NONE || *end > len) {
        *end = len;
    } else if (*end < 0) {
        *end += len;
        if (*end < 0)
            *end = 0;
    }
    if (*start == RT_STR_NONE) {
        *start = 0;
    } else if (*start < 0) {
        *start += len;
        if (*start < 0)
            *start = 0;
    }
}

/* A needle in the haystack's kind: its units (widened into buf when it is
 * short, else NULL and `slow` set: compare code point by code point), or
 * `absent` when it holds a code point the haystack's kind cannot. */
typedef struct Needle {
    const char *units; /* in the haystack's kind, or NULL */
    const HjStr *s;
    int64_t m;
    bool absent;
    _Alignas(8) char buf[1024];
} Needle;

static void needle_init(Needle *nd, const HjStr *sub, int kind)
{
    nd->s = sub;
    nd->m = sub->length;
    nd->absent = sub->kind > kind;
    nd->units = NULL;
    if (nd->absent || sub->kind == kind) {
        nd->units = sub->data;
    } else if (sub->length * kind <= (int64_t)sizeof nd->buf) {
        copy_units(kind, nd->buf, sub->kind, sub->data, sub->length);
        nd->units = nd->buf;
    }
}

static bool match_at(const HjStr *h, int64_t i, const Needle *nd)
{
    if (nd->units)
        return memcmp(h->data + i * h->kind, nd->units, (size_t)(nd->m * h->kind)) == 0;
    for (int64_t j = 0; j < nd->m; j++)
        if (rd(h->kind, h->data, i + j) != rd(nd->s->kind, nd->s->data, j))
            return false;
    return true;
}

/* First index >= i, <= last of the needle in h, or -1. */
static int64_t scan_fwd(const HjStr *h, int64_t i, int64_t end, const Needle *nd)
{
    int64_t m = nd->m, k = h->kind;
    if (m == 0)
        return i <= end ? i : -1;
    if (end - i < m)
        return -1;
    if (nd->units && m == 1 && k > 1) { /* one code unit: a typed scan (memmem's setup costs more) */
        uint32_t c = rd((int)k, nd->units, 0);
        if (k == 2) {
            const uint16_t *p = (const uint16_t *)(const void *)h->data;
            for (int64_t j = i; j < end; j++)
                if (p[j] == c)
                    return j;
        } else {
            const uint32_t *p = (const uint32_t *)(const void *)h->data;
            for (int64_t j = i; j < end; j++)
                if (p[j] == c)
                    return j;
        }
        return -1;
    }
    if (nd->units) {
        const char *base = h->data, *p = base + i * k, *stop = base + end * k;
        size_t nb = (size_t)(m * k);
        while (p < stop) {
            const char *q = (k == 1 && m == 1) ? memchr(p, nd->units[0], (size_t)(stop - p))
                                               : memmem(p, (size_t)(stop - p), nd->units, nb);
            if (!q)
                return -1;
            if ((q - base) % k == 0)
                return (q - base) / k;
            p = q + 1;
        }
        return -1;
    }
    for (int64_t j = i; j + m <= end; j++)
        if (match_at(h, j, nd))
            return j;
    return -1;
}

/* Last index of the needle within h[start:end], or -1. */
static int64_t scan_rev(const HjStr *h, int64_t start, int64_t end, const Needle *nd)
{
    int64_t m = nd->m;
    if (end - start < m)
        return -1;
    if (m == 1 && h->kind == 1 && nd->units) {
        const char *q = memrchr(h->data + start, nd->units[0], (size_t)(end - start));
        return q ? q - h->data : -1;
    }
    for (int64_t j = end - m; j >= start; j--)
        if (match_at(h, j, nd))
            return j;
    return -1;
}

static int64_t find_dir(const HjMemInfo *smi, const HjMemInfo *submi, int64_t start, int64_t end, int dir)
{
    const HjStr *s = S(smi), *u = S(submi);
    adjust(&start, &end, s->length);
    if (end - start < u->length)
        return -1;
    if (u->length == 0)
        return dir > 0 ? start : end;
    Needle nd;
    needle_init(&nd, u, s->kind);
    if (nd.absent)
        return -1;
    return dir > 0 ? scan_fwd(s, start, end, &nd) : scan_rev(s, start, end, &nd);
}

int64_t rt_str_find(const HjMemInfo *s, const HjMemInfo *sub_, int64_t start, int64_t end)
{
    return find_dir(s, sub_, start, end, 1);
}

int64_t rt_str_rfind(const HjMemInfo *s, const HjMemInfo *sub_, int64_t start, int64_t end)
{
    return find_dir(s, sub_, start, end, -1);
}

static int64_t not_found(int64_t r)
{
    if (r < 0)
        rt_raise("ValueError", "substring not found");
    return r;
}

int64_t rt_str_index(const HjMemInfo *s, const HjMemInfo *sub_, int64_t start, int64_t end)
{
    return not_found(find_dir(s, sub_, start, end, 1));
}

int64_t rt_str_rindex(const HjMemInfo *s, const HjMemInfo *sub_, int64_t start, int64_t end)
{
    return not_found(find_dir(s, sub_, start, end, -1));
}

int32_t rt_str_contains(const HjMemInfo *s, const HjMemInfo *sub_)
{
    return find_dir(s, sub_, RT_STR_NONE, RT_STR_NONE, 1) >= 0;
}

int64_t rt_str_count(const HjMemInfo *smi, const HjMemInfo *submi, int64_t start, int64_t end)
{
    const HjStr *s = S(smi), *u = S(submi);
    adjust(&start, &end, s->length);
    if (end - start < u->length)
        return 0;
    if (u->length == 0)
        return end - start + 1;
    Needle nd;
    needle_init(&nd, u, s->kind);
    if (nd.absent)
        return 0;
    int64_t n = 0, i = start;
    while ((i = scan_fwd(s, i, end, &nd)) >= 0) {
        n++;
        i += u->length;
    }
    return n;
}

static int32_t tailmatch(const HjMemInfo *smi, const HjMemInfo *submi, int64_t start, int64_t end, int dir)
{
    const HjStr *s = S(smi), *u = S(submi);
    adjust(&start, &end, s->length);
    end -= u->length;
    if (end < start)
        return 0;
    if (u->length == 0)
        return 1;
    Needle nd;
    needle_init(&nd, u, s->kind);
    if (nd.absent)
        return 0;
    return match_at(s, dir < 0 ? start : end, &nd);
}

int32_t rt_str_startswith(const HjMemInfo *s, const HjMemInfo *prefix, int64_t start, int64_t end)
{
    return tailmatch(s, prefix, start, end, -1);
}

int32_t rt_str_endswith(const HjMemInfo *s, const HjMemInfo *suffix, int64_t start, int64_t end)
{
    return tailmatch(s, suffix, start, end, 1);
}

/* ---- replace ------------------------------------------------------------------------ */

HjMemInfo *rt_str_replace(const HjMemInfo *smi, const HjMemInfo *oldmi, const HjMemInfo *newmi, int64_t count)
{
    const HjStr *s = S(smi), *o = S(oldmi), *r = S(newmi);
    if (count < 0)
        count = INT64_MAX;
    if (count == 0)
        return ref(smi);
    int64_t n = s->length, m = o->length;
    /* the positions to replace (at most `count`) */
    int64_t *pos = NULL, npos = 0, cap = 0;
    Needle nd;
    if (m == 0) { /* before every character and at the end */
        npos = n + 1 < count ? n + 1 : count;
    } else {
        if (m > n)
            return ref(smi);
        needle_init(&nd, o, s->kind);
        if (nd.absent)
            return ref(smi);
        for (int64_t i = 0; npos < count && (i = scan_fwd(s, i, n, &nd)) >= 0; i += m) {
            if (npos == cap) {
                cap = cap ? cap * 2 : 16;
                int64_t *q = realloc(pos, (size_t)cap * sizeof *q);
                if (!q) {
                    free(pos);
                    rt_raise("MemoryError", NULL);
                    return NULL;
                }
                pos = q;
            }
            pos[npos++] = i;
        }
    }
    if (npos == 0) {
        free(pos);
        return ref(smi);
    }
    int k = s->kind > r->kind ? s->kind : r->kind;
    int64_t len = n + npos * (r->length - m);
    HjMemInfo *mi = len < 0 || r->length - m > (INT64_MAX / 8 - n) / npos ? NULL : str_alloc(k, len, 0);
    if (!mi) {
        free(pos);
        if (!rt_exc_pending())
            rt_raise("OverflowError", "replace string is too long");
        return NULL;
    }
    char *d = RT_STR(mi)->data;
    int64_t i = 0, o_ = 0; /* next input index, output index */
    for (int64_t p = 0; p < npos; p++) {
        int64_t at = m == 0 ? p : pos[p];
        copy_units(k, d + o_ * k, s->kind, s->data + i * s->kind, at - i);
        o_ += at - i;
        copy_units(k, d + o_ * k, r->kind, r->data, r->length);
        o_ += r->length;
        i = at + m;
    }
    copy_units(k, d + o_ * k, s->kind, s->data + i * s->kind, n - i);
    free(pos);
    if (s->is_ascii && r->is_ascii) {
        RT_STR(mi)->is_ascii = 1;
        return len <= 1 ? finish(mi) : mi;
    }
    return finish(mi); /* the wide characters may all have been replaced */
}

/* ---- parts: split, rsplit, splitlines ------------------------------------------------ */

typedef struct Parts {
    HjMemInfo **p;
    int64_t n, cap;
    bool failed;
} Parts;

/* Add s[i:j] to the parts. */
static void parts_add(Parts *ps, const HjMemInfo *s, int64_t i, int64_t j)
{
    if (ps->failed)
        return;
    if (ps->n == ps->cap) {
        int64_t cap = ps->cap ? ps->cap * 2 : 8;
        HjMemInfo **q = realloc(ps->p, (size_t)cap * sizeof *q);
        if (!q) {
            rt_raise("MemoryError", NULL);
            ps->failed = true;
            return;
        }
        ps->p = q;
        ps->cap = cap;
    }
    HjMemInfo *x = sub(s, i, j);
    if (!x) {
        ps->failed = true;
        return;
    }
    ps->p[ps->n++] = x;
}

static HjMemInfo *parts_finish(Parts *ps, bool reverse)
{
    HjMemInfo *mi = ps->failed ? NULL : rt_alloc(ps->n * (int64_t)sizeof(HjMemInfo *));
    if (!mi) {
        for (int64_t i = 0; i < ps->n; i++)
            rt_decref(ps->p[i]);
    } else {
        HjMemInfo **d = mi->data;
        for (int64_t i = 0; i < ps->n; i++)
            d[i] = ps->p[reverse ? ps->n - 1 - i : i];
    }
    free(ps->p);
    return mi;
}

int64_t rt_str_parts_count(const HjMemInfo *parts) { return parts->size / (int64_t)sizeof(HjMemInfo *); }

HjMemInfo **rt_str_parts_items(const HjMemInfo *parts) { return parts->data; }

void rt_str_parts_release(HjMemInfo *parts)
{
    if (!parts)
        return;
    HjMemInfo **d = parts->data;
    for (int64_t i = 0, n = rt_str_parts_count(parts); i < n; i++)
        rt_decref(d[i]);
    rt_decref(parts);
}

static int empty_sep(const HjMemInfo *sep)
{
    if (sep && S(sep)->length == 0) {
        rt_raise("ValueError", "empty separator");
        return 1;
    }
    return 0;
}

HjMemInfo *rt_str_split(const HjMemInfo *smi, const HjMemInfo *sep, int64_t maxsplit)
{
    if (empty_sep(sep))
        return NULL;
    const HjStr *s = S(smi);
    int64_t n = s->length, i = 0, j;
    if (maxsplit < 0)
        maxsplit = INT64_MAX;
    Parts ps = {0};
    if (!sep) { /* CPython's split_whitespace */
        while (maxsplit-- > 0) {
            while (i < n && is_space(rd(s->kind, s->data, i)))
                i++;
            if (i == n)
                break;
            j = i++;
            while (i < n && !is_space(rd(s->kind, s->data, i)))
                i++;
            parts_add(&ps, smi, j, i);
        }
        if (i < n) {
            while (i < n && is_space(rd(s->kind, s->data, i)))
                i++;
            if (i != n)
                parts_add(&ps, smi, i, n);
        }
        return parts_finish(&ps, false);
    }
    Needle nd;
    needle_init(&nd, S(sep), s->kind);
    int64_t m = S(sep)->length;
    while (!nd.absent && maxsplit-- > 0 && (j = scan_fwd(s, i, n, &nd)) >= 0) {
        parts_add(&ps, smi, i, j);
        i = j + m;
    }
    parts_add(&ps, smi, i, n);
    return parts_finish(&ps, false);
}

HjMemInfo *rt_str_rsplit(const HjMemInfo *smi, const HjMemInfo *sep, int64_t maxsplit)
{
    if (empty_sep(sep))
        return NULL;
    const HjStr *s = S(smi);
    int64_t n = s->length, i = n - 1, j;
    if (maxsplit < 0)
        maxsplit = INT64_MAX;
    Parts ps = {0};
    if (!sep) { /* CPython's rsplit_whitespace */
        while (maxsplit-- > 0) {
            while (i >= 0 && is_space(rd(s->kind, s->data, i)))
                i--;
            if (i < 0)
                break;
            j = i--;
            while (i >= 0 && !is_space(rd(s->kind, s->data, i)))
                i--;
            parts_add(&ps, smi, i + 1, j + 1);
        }
        if (i >= 0) {
            while (i >= 0 && is_space(rd(s->kind, s->data, i)))
                i--;
            if (i >= 0)
                parts_add(&ps, smi, 0, i + 1);
        }
        return parts_finish(&ps, true);
    }
    Needle nd;
    needle_init(&nd, S(sep), s->kind);
    int64_t m = S(sep)->length, end = n, pos;
    while (!nd.absent && maxsplit-- > 0 && (pos = scan_rev(s, 0, end, &nd)) >= 0) {
        parts_add(&ps, smi, pos + m, end);
        end = pos;
    }
    parts_add(&ps, smi, 0, end);
    return parts_finish(&ps, true);
}

HjMemInfo *rt_str_splitlines(const HjMemInfo *smi, int32_t keepends)
{
    const HjStr *s = S(smi);
    int64_t n = s->length, i = 0, j = 0;
    Parts ps = {0};
    while (i < n) {
        while (i < n && !is_linebreak(rd(s->kind, s->data, i)))
            i++;
        int64_t eol = i;
        if (i < n) {
            if (rd(s->kind, s->data, i) == '\r' && i + 1 < n && rd(s->kind, s->data, i + 1) == '\n')
                i += 2;
            else
                i++;
            if (keepends)
                eol = i;
        }
        parts_add(&ps, smi, j, eol);
        j = i;
    }
    return parts_finish(&ps, false);
}

/* ---- join, partition ---------------------------------------------------------------- */

HjMemInfo *rt_str_join(const HjMemInfo *sepmi, HjMemInfo *const *items, int64_t n)
{
    if (n <= 0)
        return empty();
    if (n == 1)
        return ref(items[0]);
    const HjStr *sep = S(sepmi);
    int k = sep->kind, ascii = sep->is_ascii;
    int64_t len = sep->length * (n - 1);
    for (int64_t i = 0; i < n; i++) {
        const HjStr *x = S(items[i]);
        if (x->kind > k)
            k = x->kind;
        ascii &= x->is_ascii;
        if (x->length > INT64_MAX / 8 - len) {
            rt_raise("OverflowError", "join() result is too long");
            return NULL;
        }
        len += x->length;
    }
    HjMemInfo *mi = str_alloc(k, len, ascii);
    if (!mi)
        return NULL;
    char *d = RT_STR(mi)->data;
    int64_t o = 0;
    for (int64_t i = 0; i < n; i++) {
        const HjStr *x = S(items[i]);
        if (i > 0 && sep->length) {
            copy_units(k, d + o * k, sep->kind, sep->data, sep->length);
            o += sep->length;
        }
        copy_units(k, d + o * k, x->kind, x->data, x->length);
        o += x->length;
    }
    return len <= 1 ? finish(mi) : mi;
}

static int32_t partition(const HjMemInfo *smi, const HjMemInfo *sep, HjMemInfo **out, int dir)
{
    if (empty_sep(sep))
        return -1;
    const HjStr *s = S(smi);
    int64_t pos = find_dir(smi, sep, RT_STR_NONE, RT_STR_NONE, dir), m = S(sep)->length;
    if (pos < 0) {
        out[0] = dir > 0 ? ref(smi) : empty();
        out[1] = empty();
        out[2] = dir > 0 ? empty() : ref(smi);
        return 0;
    }
    out[0] = sub(smi, 0, pos);
    out[2] = sub(smi, pos + m, s->length);
    if (!out[0] || !out[2]) {
        rt_decref(out[0]);
        rt_decref(out[2]);
        return -1;
    }
    out[1] = ref(sep);
    return 0;
}

int32_t rt_str_partition(const HjMemInfo *s, const HjMemInfo *sep, HjMemInfo **out)
{
    return partition(s, sep, out, 1);
}

int32_t rt_str_rpartition(const HjMemInfo *s, const HjMemInfo *sep, HjMemInfo **out)
{
    return partition(s, sep, out, -1);
}

/* ---- strip --------------------------------------------------------------------------- */

static bool in_chars(uint32_t c, const HjStr *chars)
{
    if (!chars)
        return is_space(c);
    for (int64_t i = 0; i < chars->length; i++)
        if (rd(chars->kind, chars->data, i) == c)
            return true;
    return false;
}

static HjMemInfo *strip(const HjMemInfo *smi, const HjMemInfo *chars, bool left, bool right)
{
    const HjStr *s = S(smi), *cs = chars ? S(chars) : NULL;
    int64_t i = 0, j = s->length;
    if (left)
        while (i < j && in_chars(rd(s->kind, s->data, i), cs))
            i++;
    if (right)
        while (j > i && in_chars(rd(s->kind, s->data, j - 1), cs))
            j--;
    return sub(smi, i, j);
}

HjMemInfo *rt_str_strip(const HjMemInfo *s, const HjMemInfo *chars) { return strip(s, chars, true, true); }
HjMemInfo *rt_str_lstrip(const HjMemInfo *s, const HjMemInfo *chars) { return strip(s, chars, true, false); }
HjMemInfo *rt_str_rstrip(const HjMemInfo *s, const HjMemInfo *chars) { return strip(s, chars, false, true); }

/* ---- case mapping ------------------------------------------------------------------- */

/* CPython's handle_capital_sigma: U+03A3 lowers to final sigma U+03C2 at
 * the end of a cased word. */
static uint32_t lower_sigma(const HjStr *s, int64_t i)
{
    int64_t j;
    uint32_t c = 0;
    for (j = i - 1; j >= 0; j--) {
        c = rd(s->kind, s->data, j);
        if (!is_case_ignorable(c))
            break;
    }
    bool final = j >= 0 && is_cased(c);
    if (final) {
        for (j = i + 1; j < s->length; j++) {
            c = rd(s->kind, s->data, j);
            if (!is_case_ignorable(c))
                break;
        }
        final = j == s->length || !is_cased(c);
    }
    return final ? 0x3c2 : 0x3c3;
}

static void put_lower(Ucs *b, const HjStr *s, int64_t i, uint32_t c)
{
    if (c == 0x3a3) {
        ucs_put(b, lower_sigma(s, i));
        return;
    }
    uint32_t res[3];
    int n = map_full(MAP_LOWER, c, res);
    for (int k = 0; k < n; k++)
        ucs_put(b, res[k]);
}

static void put_map(Ucs *b, int how, uint32_t c)
{
    uint32_t res[3];
    int n = map_full(how, c, res);
    for (int k = 0; k < n; k++)
        ucs_put(b, res[k]);
}

enum { CASE_UPPER, CASE_LOWER, CASE_CAPITALIZE, CASE_TITLE, CASE_SWAP, CASE_FOLD };

static HjMemInfo *case_map(const HjMemInfo *smi, int how)
{
    const HjStr *s = S(smi);
    if (s->length == 0)
        return empty();
    if (s->is_ascii) {
        HjMemInfo *mi = str_alloc(1, s->length, 1);
        if (!mi)
            return NULL;
        const unsigned char *p = (const unsigned char *)s->data;
        unsigned char *d = (unsigned char *)RT_STR(mi)->data;
        bool prev_cased = false;
        for (int64_t i = 0; i < s->length; i++) {
            unsigned char c = p[i];
            bool up;
            switch (how) {
            case CASE_UPPER: up = true; break;
            case CASE_LOWER: case CASE_FOLD: up = false; break;
            case CASE_CAPITALIZE: up = i == 0; break;
            case CASE_TITLE: up = !prev_cased; break;
            default: up = a_lower(c); break;
            }
            prev_cased = a_lower(c) || a_upper(c);
            d[i] = up ? (a_lower(c) ? c - 32 : c) : (a_upper(c) ? c + 32 : c);
        }
        return s->length == 1 ? finish(mi) : mi;
    }
    Ucs b = {0};
    bool prev_cased = false;
    for (int64_t i = 0; i < s->length; i++) {
        uint32_t c = rd(s->kind, s->data, i);
        switch (how) {
        case CASE_UPPER: put_map(&b, MAP_UPPER, c); break;
        case CASE_LOWER: put_lower(&b, s, i, c); break;
        case CASE_FOLD: put_map(&b, MAP_FOLD, c); break;
        case CASE_CAPITALIZE:
            if (i == 0)
                put_map(&b, MAP_TITLE, c);
            else
                put_lower(&b, s, i, c);
            break;
        case CASE_TITLE:
            if (prev_cased)
                put_lower(&b, s, i, c);
            else
                put_map(&b, MAP_TITLE, c);
            prev_cased = is_cased(c);
            break;
        default: /* swapcase */
            if (is_upper(c))
                put_lower(&b, s, i, c);
            else if (is_lower(c))
                put_map(&b, MAP_UPPER, c);
            else
                ucs_put(&b, c);
            break;
        }
    }
    return ucs_finish(&b);
}

HjMemInfo *rt_str_upper(const HjMemInfo *s) { return case_map(s, CASE_UPPER); }
HjMemInfo *rt_str_lower(const HjMemInfo *s) { return case_map(s, CASE_LOWER); }
HjMemInfo *rt_str_capitalize(const HjMemInfo *s) { return case_map(s, CASE_CAPITALIZE); }
HjMemInfo *rt_str_title(const HjMemInfo *s) { return case_map(s, CASE_TITLE); }
HjMemInfo *rt_str_swapcase(const HjMemInfo *s) { return case_map(s, CASE_SWAP); }
HjMemInfo *rt_str_casefold(const HjMemInfo *s) { return case_map(s, CASE_FOLD); }

/* ---- predicates --------------------------------------------------------------------- */

/* Every code point in the class, and at least one. */
static int32_t all_of(const HjMemInfo *smi, bool (*cls)(uint32_t))
{
    const HjStr *s = S(smi);
    if (s->length == 0)
        return 0;
    for (int64_t i = 0; i < s->length; i++)
        if (!cls(rd(s->kind, s->data, i)))
            return 0;
    return 1;
}

int32_t rt_str_isdigit(const HjMemInfo *s) { return all_of(s, is_digit); }
int32_t rt_str_isalpha(const HjMemInfo *s) { return all_of(s, is_alpha); }
int32_t rt_str_isalnum(const HjMemInfo *s) { return all_of(s, is_alnum); }
int32_t rt_str_isspace(const HjMemInfo *s) { return all_of(s, is_space); }
int32_t rt_str_isdecimal(const HjMemInfo *s) { return all_of(s, is_decimal); }
int32_t rt_str_isnumeric(const HjMemInfo *s) { return all_of(s, is_numeric); }
int32_t rt_str_isascii(const HjMemInfo *s) { return S(s)->is_ascii; }

int32_t rt_str_isprintable(const HjMemInfo *smi)
{
    return S(smi)->length == 0 || all_of(smi, is_printable);
}

int32_t rt_str_isupper(const HjMemInfo *smi)
{
    const HjStr *s = S(smi);
    int cased = 0;
    for (int64_t i = 0; i < s->length; i++) {
        uint32_t c = rd(s->kind, s->data, i);
        if (is_lower(c) || is_title(c))
            return 0;
        if (!cased && is_upper(c))
            cased = 1;
    }
    return cased;
}

int32_t rt_str_islower(const HjMemInfo *smi)
{
    const HjStr *s = S(smi);
    int cased = 0;
    for (int64_t i = 0; i < s->length; i++) {
        uint32_t c = rd(s->kind, s->data, i);
        if (is_upper(c) || is_title(c))
            return 0;
        if (!cased && is_lower(c))
            cased = 1;
    }
    return cased;
}

int32_t rt_str_istitle(const HjMemInfo *smi)
{
    const HjStr *s = S(smi);
    int cased = 0, prev_cased = 0;
    for (int64_t i = 0; i < s->length; i++) {
        uint32_t c = rd(s->kind, s->data, i);
        if (is_upper(c) || is_title(c)) {
            if (prev_cased)
                return 0;
            prev_cased = cased = 1;
        } else if (is_lower(c)) {
            if (!prev_cased)
                return 0;
            prev_cased = cased = 1;
        } else {
            prev_cased = 0;
        }
    }
    return cased;
}

int32_t rt_str_isidentifier(const HjMemInfo *smi)
{
    const HjStr *s = S(smi);
    if (s->length == 0)
        return 0;
    uint32_t c0 = rd(s->kind, s->data, 0);
    if (!is_xid_start(c0) && c0 != '_')
        return 0;
    for (int64_t i = 1; i < s->length; i++)
        if (!is_xid_continue(rd(s->kind, s->data, i)))
            return 0;
    return 1;
}

/* ---- padding --------------------------------------------------------------------------- */

/* s with `left` and `right` copies of fill around it. */
static HjMemInfo *pad(const HjMemInfo *smi, int64_t left, int64_t right, uint32_t fill)
{
    const HjStr *s = S(smi);
    if (left <= 0 && right <= 0)
        return ref(smi);
    left = left > 0 ? left : 0;
    right = right > 0 ? right : 0;
    int k = kind_for(fill) > s->kind ? kind_for(fill) : s->kind;
    HjMemInfo *mi = str_alloc(k, left + s->length + right, s->is_ascii && fill < 128);
    if (!mi)
        return NULL;
    char *d = RT_STR(mi)->data;
    for (int64_t i = 0; i < left; i++)
        wr(k, d, i, fill);
    copy_units(k, d + left * k, s->kind, s->data, s->length);
    for (int64_t i = 0; i < right; i++)
        wr(k, d, left + s->length + i, fill);
    return mi;
}

/* The fill character: ' ' for NULL, else a str of length 1. */
static int fill_char(const HjMemInfo *fill, uint32_t *c)
{
    if (!fill) {
        *c = ' ';
        return 0;
    }
    if (S(fill)->length != 1) {
        rt_raise("TypeError", "The fill character must be exactly one character long");
        return -1;
    }
    *c = rd(S(fill)->kind, S(fill)->data, 0);
    return 0;
}

HjMemInfo *rt_str_ljust(const HjMemInfo *s, int64_t width, const HjMemInfo *fill)
{
    uint32_t c;
    if (fill_char(fill, &c) < 0)
        return NULL;
    return pad(s, 0, width - S(s)->length, c);
}

HjMemInfo *rt_str_rjust(const HjMemInfo *s, int64_t width, const HjMemInfo *fill)
{
    uint32_t c;
    if (fill_char(fill, &c) < 0)
        return NULL;
    return pad(s, width - S(s)->length, 0, c);
}

HjMemInfo *rt_str_center(const HjMemInfo *s, int64_t width, const HjMemInfo *fill)
{
    uint32_t c;
    if (fill_char(fill, &c) < 0)
        return NULL;
    int64_t marg = width - S(s)->length;
    if (marg <= 0)
        return ref(s);
    int64_t left = marg / 2 + (marg & width & 1); /* CPython's rounding */
    return pad(s, left, marg - left, c);
}

HjMemInfo *rt_str_zfill(const HjMemInfo *smi, int64_t width)
{
    const HjStr *s = S(smi);
    int64_t fill = width - s->length;
    if (fill <= 0)
        return ref(smi);
    HjMemInfo *mi = pad(smi, fill, 0, '0');
    if (mi && s->length > 0) {
        HjStr *r = RT_STR(mi);
        uint32_t c = rd(r->kind, r->data, fill);
        if (c == '+' || c == '-') { /* the sign moves to the front */
            wr(r->kind, r->data, 0, c);
            wr(r->kind, r->data, fill, '0');
        }
    }
    return mi;
}

HjMemInfo *rt_str_expandtabs(const HjMemInfo *smi, int64_t tabsize)
{
    const HjStr *s = S(smi);
    Ucs b = {0};
    int64_t col = 0;
    for (int64_t i = 0; i < s->length; i++) {
        uint32_t c = rd(s->kind, s->data, i);
        if (c == '\t') {
            if (tabsize > 0) {
                int64_t n = tabsize - col % tabsize;
                col += n;
                while (n-- > 0)
                    ucs_put(&b, ' ');
            }
        } else {
            ucs_put(&b, c);
            col = c == '\n' || c == '\r' ? 0 : col + 1;
        }
    }
    return ucs_finish(&b);
}

/* ---- format(s, spec) ------------------------------------------------------------------ */

static bool is_align(uint32_t c) { return c == '<' || c == '>' || c == '^' || c == '='; }

static HjMemInfo *bad_format(const char *msg)
{
    rt_raise("ValueError", msg);
    return NULL;
}

HjMemInfo *rt_str_format(const HjMemInfo *smi, const HjMemInfo *specmi)
{
    const HjStr *sp = S(specmi);
    int64_t n = sp->length, i = 0;
#define AT(j) ((j) < n ? rd(sp->kind, sp->data, (j)) : 0u)
    uint32_t fill = ' ', align = '<';
    bool fill_given = false;
    if (n >= 2 && is_align(AT(1))) {
        fill = AT(0), align = AT(1), i = 2, fill_given = true;
    } else if (n >= 1 && is_align(AT(0))) {
        align = AT(0), i = 1;
    }
    if (AT(i) == '+' || AT(i) == '-' || AT(i) == ' ')
        return bad_format("Sign not allowed in string format specifier");
    if (AT(i) == 'z')
        return bad_format("Negative zero coercion (z) not allowed in string format specifier");
    if (AT(i) == '#')
        return bad_format("Alternate form (#) not allowed in string format specifier");
    if (AT(i) == '0') {
        if (!fill_given)
            fill = '0';
        i++;
    }
    int64_t width = -1, prec = -1;
    while (a_digit(AT(i))) {
        width = (width < 0 ? 0 : width) * 10 + (AT(i) - '0');
        if (width > (INT64_C(1) << 40))
            return bad_format("Too many decimal digits in format string");
        i++;
    }
    if (AT(i) == ',' || AT(i) == '_') {
        char msg[64];
        snprintf(msg, sizeof msg, "Cannot specify '%c' with 's'.", (char)AT(i));
        return bad_format(msg);
    }
    if (AT(i) == '.') {
        i++;
        if (!a_digit(AT(i)))
            return bad_format("Format specifier missing precision");
        prec = 0;
        while (a_digit(AT(i))) {
            prec = prec * 10 + (AT(i) - '0');
            if (prec > (INT64_C(1) << 40))
                return bad_format("Too many decimal digits in format string");
            i++;
        }
    }
    if (i < n && !(i == n - 1 && AT(i) == 's')) {
        if (i == n - 1) {
            char msg[96];
            uint32_t t = AT(i);
            if (t < 128)
                snprintf(msg, sizeof msg, "Unknown format code '%c' for object of type 'str'", (char)t);
            else
                snprintf(msg, sizeof msg, "Unknown format code '\\x%x' for object of type 'str'", t);
            return bad_format(msg);
        }
        return bad_format("Invalid format specifier");
    }
#undef AT
    if (align == '=')
        return bad_format("'=' alignment not allowed in string format specifier");
    const HjStr *s = S(smi);
    HjMemInfo *body = prec >= 0 && prec < s->length ? sub(smi, 0, prec) : ref(smi);
    if (!body)
        return NULL;
    int64_t marg = width - S(body)->length;
    HjMemInfo *r = body;
    if (marg > 0) {
        int64_t left = align == '>' ? marg : align == '^' ? marg / 2 : 0;
        r = pad(body, left, marg - left, fill);
        rt_decref(body);
    }
    return r;
}

/* ---- conversions to str --------------------------------------------------------------- */

/* The decimal digits of u (and a '-' when neg) as an ASCII str: str(n)
 * is hot in loops, so no snprintf. */
static HjMemInfo *from_digits(uint64_t u, bool neg)
{
    char b[24];
    int i = (int)sizeof b;
    do {
        b[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (neg)
        b[--i] = '-';
    int64_t n = (int64_t)sizeof b - i;
    if (n == 1)
        return latin1((unsigned char)b[i]);
    HjMemInfo *mi = str_alloc(1, n, 1);
    if (mi)
        memcpy(RT_STR(mi)->data, b + i, (size_t)n);
    return mi;
}

HjMemInfo *rt_str_from_int64(int64_t v)
{
    return from_digits(v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, v < 0);
}

HjMemInfo *rt_str_from_uint64(uint64_t v) { return from_digits(v, false); }

HjMemInfo *rt_str_from_bool(int32_t v) { return v ? &true_c.mi : &false_c.mi; }

/* The rt_text_* buffer (text.h) formats numbers as Python does; these
 * borrow it, keeping what compiled code had put there. */
static char *text_save(void)
{
    size_t n = 0;
    const char *cur = rt_text_current(&n);
    char *saved = n ? strdup(cur) : NULL;
    rt_text_begin();
    return saved;
}

static void text_restore(char *saved)
{
    rt_text_begin();
    if (saved) {
        rt_text_str(saved);
        free(saved);
    }
}

static HjMemInfo *text_take(char *saved)
{
    HjMemInfo *r = rt_str_from_text();
    text_restore(saved);
    return r;
}

HjMemInfo *rt_str_from_text(void)
{
    size_t n = 0;
    const char *p = rt_text_current(&n);
    return rt_str_from_utf8(p, (int64_t)n);
}

HjMemInfo *rt_str_from_double(double v)
{
    char *saved = text_save();
    rt_text_f64(v);
    return text_take(saved);
}

HjMemInfo *rt_str_from_float32(float v)
{
    char *saved = text_save();
    rt_text_f32(v);
    return text_take(saved);
}

HjMemInfo *rt_str_format_int(int64_t v, int32_t is_unsigned, const HjMemInfo *spec)
{
    char *sp = rt_str_to_utf8(spec, NULL);
    if (!sp)
        return NULL;
    char *saved = text_save();
    int32_t rc = rt_text_format_int(v, is_unsigned, sp);
    free(sp);
    if (rc < 0) {
        text_restore(saved);
        return NULL;
    }
    return text_take(saved);
}

HjMemInfo *rt_str_format_float(double v, int32_t is_f32, const HjMemInfo *spec)
{
    char *sp = rt_str_to_utf8(spec, NULL);
    if (!sp)
        return NULL;
    char *saved = text_save();
    int32_t rc = rt_text_format_float(v, is_f32, sp);
    free(sp);
    if (rc < 0) {
        text_restore(saved);
        return NULL;
    }
    return text_take(saved);
}

/* ---- text output: print(s), repr(s) ---------------------------------------------------- */

typedef struct CBuf {
    char *p;
    size_t n, cap;
    bool oom;
} CBuf;

static void cb_put(CBuf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (b->n + n + 1 > cap)
            cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q) {
            b->oom = true;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

/* CPython's repr of a str as UTF-8, of its first `limit` code points of
 * repr (limit < 0: all), as "%.200R" does. */
static void repr_into(CBuf *b, const HjStr *s, int64_t limit)
{
    bool sq = false, dq = false;
    for (int64_t i = 0; i < s->length; i++) {
        uint32_t c = rd(s->kind, s->data, i);
        sq |= c == '\'';
        dq |= c == '"';
    }
    char q = sq && !dq ? '"' : '\'';
    int64_t out = 0; /* code points written */
    char e[16];
#define EMIT(str, len, cps)                                                                        \
    do {                                                                                           \
        if (limit >= 0 && out + (cps) > limit)                                                     \
            return;                                                                                \
        cb_put(b, str, len);                                                                       \
        out += (cps);                                                                              \
    } while (0)
    EMIT(&q, 1, 1);
    for (int64_t i = 0; i < s->length; i++) {
        uint32_t c = rd(s->kind, s->data, i);
        int n;
        if (c == (uint32_t)q || c == '\\') {
            e[0] = '\\', e[1] = (char)c, n = 2;
        } else if (c == '\t' || c == '\n' || c == '\r') {
            e[0] = '\\', e[1] = c == '\t' ? 't' : c == '\n' ? 'n' : 'r', n = 2;
        } else if (c < 0x20 || c == 0x7f) {
            n = snprintf(e, sizeof e, "\\x%02x", c);
        } else if (c < 0x7f) {
            e[0] = (char)c, n = 1;
        } else if (is_printable(c)) {
            n = utf8_put(c, e);
            EMIT(e, (size_t)n, 1);
            continue;
        } else {
            n = snprintf(e, sizeof e, c <= 0xff ? "\\x%02x" : c <= 0xffff ? "\\u%04x" : "\\U%08x", c);
        }
        EMIT(e, (size_t)n, n);
    }
    EMIT(&q, 1, 1);
#undef EMIT
}

void rt_str_text(const HjMemInfo *smi)
{
    const HjStr *s = S(smi);
    if (s->is_ascii) {
        rt_text_str(s->data);
        return;
    }
    char *u = rt_str_to_utf8(smi, NULL);
    if (u) {
        rt_text_str(u);
        free(u);
    } else {
        rt_exc_clear(); /* as text.c does, the line is cut on out of memory */
    }
}

void rt_str_text_repr(const HjMemInfo *smi)
{
    CBuf b = {0};
    repr_into(&b, S(smi), -1);
    if (b.p)
        rt_text_str(b.p);
    free(b.p);
}

/* ValueError "<what>: <repr(s) cut at 200>". */
static int value_error_repr(const char *what, const HjStr *s)
{
    CBuf b = {0};
    cb_put(&b, what, strlen(what));
    repr_into(&b, s, 200);
    rt_raise("ValueError", b.oom ? what : b.p);
    free(b.p);
    return -1;
}

/* ---- parsing: int(s), float(s) --------------------------------------------------------- */

/* CPython's _PyUnicode_TransformDecimalAndSpaceToASCII: ASCII as is,
 * other whitespace to ' ', Unicode decimal digits to ASCII ones, anything
 * else to '?'.  Returns a malloc'ed NUL-terminated string (NULL: no memory;
 * the text's own NULs become '?': nothing parses past them). */
static char *to_ascii_digits(const HjStr *s)
{
    char *a = malloc((size_t)s->length + 1);
    if (!a) {
        rt_raise("MemoryError", NULL);
        return NULL;
    }
    for (int64_t i = 0; i < s->length; i++) {
        uint32_t c = rd(s->kind, s->data, i);
        int d;
        if (c == 0)
            a[i] = '?';
        else if (c < 128)
            a[i] = (char)c;
        else if (is_space(c))
            a[i] = ' ';
        else if ((d = to_decimal(c)) >= 0)
            a[i] = (char)('0' + d);
        else
            a[i] = '?';
    }
    a[s->length] = '\0';
    return a;
}

/* Py_ISSPACE: the C locale's whitespace. */
static bool c_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

static int digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'Z')
        return c - 'A' + 10;
    return 99;
}

/* PyLong_FromString's grammar: 0 and *out, 1 when not a valid literal, 2
 * on int64 overflow. */
static int parse_int(const char *p, int base, int64_t *out)
{
    while (c_space(*p))
        p++;
    bool neg = false;
    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    bool zeros_only = false;
    if (base == 0) {
        if (p[0] != '0')
            base = 10;
        else if (p[1] == 'x' || p[1] == 'X')
            base = 16;
        else if (p[1] == 'o' || p[1] == 'O')
            base = 8;
        else if (p[1] == 'b' || p[1] == 'B')
            base = 2;
        else
            zeros_only = true, base = 10; /* old octal "010" is invalid, "00" is 0 */
    }
    if (p[0] == '0' && ((base == 16 && (p[1] == 'x' || p[1] == 'X')) || (base == 8 && (p[1] == 'o' || p[1] == 'O')) ||
                        (base == 2 && (p[1] == 'b' || p[1] == 'B')))) {
        p += 2;
        if (*p == '_') /* one underscore allowed after the prefix */
            p++;
    }
    if (*p == '_')
        return 1;
    uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    int ndig = 0, overflow = 0;
    char prev = 0;
    for (; digit_value(*p) < base || *p == '_'; prev = *p++) {
        if (*p == '_') {
            if (prev == '_')
                return 1;
            continue;
        }
        uint64_t d = (uint64_t)digit_value(*p);
        if (zeros_only && d)
            return 1;
        if (v > (lim - d) / (uint64_t)base)
            overflow = 1;
        else
            v = v * (uint64_t)base + d;
        ndig++;
    }
    if (prev == '_' || ndig == 0)
        return 1;
    while (c_space(*p))
        p++;
    if (*p)
        return 1;
    if (overflow)
        return 2;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

int32_t rt_str_to_int64(const HjMemInfo *smi, int64_t base, int64_t *out)
{
    if ((base != 0 && base < 2) || base > 36) {
        rt_raise("ValueError", "int() base must be >= 2 and <= 36, or 0");
        return -1;
    }
    const HjStr *s = S(smi);
    bool plain = s->is_ascii && !memchr(s->data, 0, (size_t)s->length);
    char *a = plain ? NULL : to_ascii_digits(s);
    if (!plain && !a)
        return -1;
    int rc = parse_int(a ? a : s->data, (int)base, out);
    free(a);
    if (rc == 2) {
        rt_raise("OverflowError", "int too large to convert to int64");
        return -1;
    }
    if (rc) {
        char what[64];
        snprintf(what, sizeof what, "invalid literal for int() with base %d: ", (int)base);
        return value_error_repr(what, s);
    }
    return 0;
}

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;
static void make_c_locale(void) { c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0); }

static bool ieq(const char *a, const char *lit, size_t n)
{
    if (strlen(lit) != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((a[i] | 0x20) != lit[i])
            return false;
    return true;
}

/* float()'s grammar after whitespace is stripped: [sign] (inf | infinity |
 * nan | digits [. digits] [e [sign] digits]) with single underscores only
 * between digits.  The underscores are dropped in place. */
static int parse_float(char *p, size_t n, double *out)
{
    if (n == 0)
        return 1;
    size_t i = 0;
    bool neg = false;
    if (p[0] == '+' || p[0] == '-')
        neg = p[0] == '-', i = 1;
    if (ieq(p + i, "inf", n - i) || ieq(p + i, "infinity", n - i)) {
        *out = neg ? -INFINITY : INFINITY;
        return 0;
    }
    if (ieq(p + i, "nan", n - i)) {
        *out = neg ? -NAN : NAN;
        return 0;
    }
    /* drop underscores, each between two digits */
    size_t o = 0;
    for (size_t j = 0; j < n; j++) {
        if (p[j] == '_') {
            if (j == 0 || !a_digit((unsigned char)p[j - 1]) || j + 1 == n || !a_digit((unsigned char)p[j + 1]))
                return 1;
            continue;
        }
        p[o++] = p[j];
    }
    p[o] = '\0';
    n = o;
    /* validate the decimal grammar, then strtod in the C locale */
    size_t j = i, intd = 0, frac = 0;
    while (j < n && a_digit((unsigned char)p[j]))
        j++, intd++;
    if (j < n && p[j] == '.') {
        j++;
        while (j < n && a_digit((unsigned char)p[j]))
            j++, frac++;
    }
    if (intd + frac == 0)
        return 1;
    if (j < n && (p[j] == 'e' || p[j] == 'E')) {
        j++;
        if (j < n && (p[j] == '+' || p[j] == '-'))
            j++;
        size_t ed = 0;
        while (j < n && a_digit((unsigned char)p[j]))
            j++, ed++;
        if (ed == 0)
            return 1;
    }
    if (j != n)
        return 1;
    pthread_once(&c_locale_once, make_c_locale);
    *out = c_locale ? strtod_l(p, NULL, c_locale) : strtod(p, NULL);
    return 0;
}

int32_t rt_str_to_double(const HjMemInfo *smi, double *out)
{
    const HjStr *s = S(smi);
    char *a = to_ascii_digits(s);
    if (!a)
        return -1;
    char *p = a;
    size_t n = strlen(a);
    while (n && c_space(*p))
        p++, n--;
    while (n && c_space(p[n - 1]))
        n--;
    int rc = parse_float(p, n, out);
    free(a);
    if (rc)
        return value_error_repr("could not convert string to float: ", s);
    return 0;
}

/* ---- ord, chr ------------------------------------------------------------------------ */

int64_t rt_str_ord(const HjMemInfo *smi)
{
    const HjStr *s = S(smi);
    if (s->length != 1) {
        char msg[96];
        snprintf(msg, sizeof msg, "ord() expected a character, but string of length %" PRId64 " found", s->length);
        rt_raise("TypeError", msg);
        return -1;
    }
    return rd(s->kind, s->data, 0);
}

HjMemInfo *rt_str_chr(int64_t i)
{
    if (i < 0 || i > MAXCHAR_ALL) {
        rt_raise("ValueError", "chr() arg not in range(0x110000)");
        return NULL;
    }
    uint32_t c = (uint32_t)i;
    return c < 256 ? latin1(c) : rt_str_from_kind(4, &c, 1);
}

/* ---- str items of containers (containers.h) ------------------------------- */

static const HjMemInfo *item_str(const void *item)
{
    const HjMemInfo *s;
    memcpy(&s, item, sizeof s);
    return s;
}

uint64_t rt_hash_str(const void *item) { return (uint64_t)rt_str_hash(item_str(item)); }
int rt_eq_str(const void *a, const void *b) { return rt_str_eq(item_str(a), item_str(b)); }
int rt_lt_str(const void *a, const void *b) { return rt_str_cmp(item_str(a), item_str(b)) < 0; }
static void repr_str_item(const void *item) { rt_str_text_repr(item_str(item)); }

const RtItemOps rt_ops_str = {sizeof(HjMemInfo *), sizeof(HjMemInfo *), rt_item_incref_mi, rt_item_decref_mi,
                              rt_hash_str, rt_eq_str, rt_lt_str, repr_str_item};

HjMemInfo *rt_str_parts_list(HjMemInfo *parts)
{
    if (!parts)
        return NULL;
    int64_t n = rt_str_parts_count(parts);
    HjMemInfo *mi = rt_list_new(&rt_ops_str, n);
    if (!mi) {
        rt_str_parts_release(parts);
        return NULL;
    }
    HjList *l = mi->data;
    if (n > 0)
        memcpy(l->items, rt_str_parts_items(parts), (size_t)n * sizeof(HjMemInfo *));
    l->len = n;
    rt_decref(parts); /* the items moved into the list */
    return mi;
}

HjMemInfo *rt_str_minmax(const HjMemInfo *smi, int32_t is_max)
{
    const HjStr *s = S(smi);
    if (s->length == 0) {
        rt_raise("ValueError", is_max ? "max() arg is an empty sequence" : "min() arg is an empty sequence");
        return NULL;
    }
    int64_t best = 0;
    uint32_t bc = rd(s->kind, s->data, 0);
    for (int64_t i = 1; i < s->length; i++) {
        uint32_t c = rd(s->kind, s->data, i);
        if (is_max ? c > bc : c < bc) {
            bc = c;
            best = i;
        }
    }
    return rt_str_getitem(smi, best);
}
