/* test_str_rt.c - the native str runtime (runtime/str.c): every function,
 * on ASCII, Latin-1, BMP (kind 2) and astral (kind 4) text, the errors,
 * and no leaks.  Without the Unicode table (installed by hpcjit._core),
 * non-ASCII code points have no case; tests/python/test_str_runtime.py
 * checks those against CPython. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcjit/runtime.h"
#include "hpcjit/str.h"
#include "hpcjit/text.h"

static int failures;
#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);                  \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

#define NONE RT_STR_NONE

/* A str from UTF-8 (owned; the test frees it with rt_decref). */
static HjMemInfo *U(const char *s)
{
    HjMemInfo *r = rt_str_from_utf8(s, -1);
    if (!r) {
        fprintf(stderr, "rt_str_from_utf8(%s) failed\n", s);
        exit(1);
    }
    return r;
}

/* Does the (owned, consumed) result r equal the UTF-8 text `want`, with the
 * narrowest kind? */
static int is(HjMemInfo *r, const char *want, int line)
{
    if (!r) {
        const char *t = "", *m = "";
        rt_exc_fetch(&t, &m);
        fprintf(stderr, "%s:%d: NULL result (%s: %s), wanted '%s'\n", __FILE__, line, t, m, want);
        failures++;
        return 0;
    }
    char *got = rt_str_to_utf8(r, NULL);
    HjMemInfo *w = U(want);
    int ok = got && strcmp(got, want) == 0 && rt_str_eq(r, w) && RT_STR(r)->kind == RT_STR(w)->kind &&
             RT_STR(r)->is_ascii == RT_STR(w)->is_ascii;
    if (!ok) {
        fprintf(stderr, "%s:%d: got '%s' (kind %d ascii %d), wanted '%s' (kind %d)\n", __FILE__, line,
                got ? got : "?", RT_STR(r)->kind, RT_STR(r)->is_ascii, want, RT_STR(w)->kind);
        failures++;
    }
    free(got);
    rt_decref(w);
    rt_decref(r);
    return ok;
}
#define IS(r, want) is((r), (want), __LINE__)

/* An exception of `type` (with message `msg` unless NULL) is pending. */
static int raised(const char *type, const char *msg, int line)
{
    const char *t = NULL, *m = NULL;
    if (!rt_exc_fetch(&t, &m)) {
        fprintf(stderr, "%s:%d: no exception, wanted %s\n", __FILE__, line, type);
        failures++;
        return 0;
    }
    if (strcmp(t, type) != 0 || (msg && strcmp(m, msg) != 0)) {
        fprintf(stderr, "%s:%d: got %s: %s, wanted %s: %s\n", __FILE__, line, t, m, type, msg ? msg : "*");
        failures++;
        return 0;
    }
    return 1;
}
#define RAISED(type, msg) raised((type), (msg), __LINE__)

/* Join parts with '|' and compare (consumes parts). */
static void parts_are(HjMemInfo *parts, const char *want, int line)
{
    if (!parts) {
        is(NULL, want, line);
        return;
    }
    HjMemInfo *bar = U("|");
    HjMemInfo *j = rt_str_join(bar, rt_str_parts_items(parts), rt_str_parts_count(parts));
    is(j, want, line);
    rt_decref(bar);
    rt_str_parts_release(parts);
}
#define PARTS(p, want) parts_are((p), (want), __LINE__)

static const char *BMP = "h\xe2\x82\xac\xc3\xa9!";    /* "h€é!" kind 2 */
static const char *ASTRAL = "a\xf0\x9f\x98\x80" "b"; /* "a😀b" kind 4 */

static void test_construct(void)
{
    HjMemInfo *a = U("hello"), *l = U("caf\xc3\xa9"), *b = U(BMP), *x = U(ASTRAL);
    CHECK(RT_STR(a)->kind == 1 && RT_STR(a)->is_ascii && RT_STR(a)->length == 5);
    CHECK(RT_STR(l)->kind == 1 && !RT_STR(l)->is_ascii && RT_STR(l)->length == 4);
    CHECK(RT_STR(b)->kind == 2 && RT_STR(b)->length == 4);
    CHECK(RT_STR(x)->kind == 4 && RT_STR(x)->length == 3);
    CHECK(rt_str_len(x) == 3 && rt_str_code_at(x, 1) == 0x1f600);
    CHECK(RT_STR(x)->data[12] == 0 && RT_STR(x)->data[15] == 0); /* the terminator */
    /* from kind+data narrows */
    uint32_t wide[3] = {'a', 0xe9, 'z'};
    HjMemInfo *n = rt_str_from_kind(4, wide, 3);
    CHECK(RT_STR(n)->kind == 1 && !RT_STR(n)->is_ascii);
    IS(n, "a\xc3\xa9z");
    uint16_t w2[2] = {'o', 'k'};
    IS(rt_str_from_kind(2, w2, 2), "ok");
    CHECK(rt_str_from_kind(3, w2, 2) == NULL);
    RAISED("ValueError", NULL);
    /* invalid UTF-8 */
    CHECK(rt_str_from_utf8("a\xff", -1) == NULL);
    RAISED("UnicodeDecodeError", NULL);
    CHECK(rt_str_from_utf8("\xed\xa0\x80", -1) == NULL); /* a surrogate */
    RAISED("UnicodeDecodeError", NULL);
    CHECK(rt_str_from_utf8("\xc3", -1) == NULL);
    RAISED("UnicodeDecodeError", NULL);
    HjMemInfo *z = rt_str_from_utf8("ab\0cd", 5);
    CHECK(rt_str_len(z) == 5);
    rt_decref(z);
    /* immortals survive any number of decrefs */
    HjMemInfo *t = rt_str_from_bool(1);
    CHECK(t->refcnt == RT_STR_IMMORTAL);
    for (int i = 0; i < 5; i++)
        rt_decref(t);
    rt_incref(t);
    CHECK(t->refcnt == RT_STR_IMMORTAL);
    IS(t, "True");
    IS(rt_str_from_bool(0), "False");
    rt_decref(a), rt_decref(l), rt_decref(b), rt_decref(x);
}

static void test_index_slice(void)
{
    HjMemInfo *a = U("hello"), *b = U(BMP), *x = U(ASTRAL);
    IS(rt_str_getitem(a, 1), "e");
    IS(rt_str_getitem(a, -1), "o");
    CHECK(rt_str_getitem(a, 5) == NULL);
    RAISED("IndexError", "string index out of range");
    CHECK(rt_str_getitem(a, -6) == NULL);
    RAISED("IndexError", "string index out of range");
    IS(rt_str_getitem(b, 1), "\xe2\x82\xac");
    IS(rt_str_getitem(b, 2), "\xc3\xa9"); /* narrows to Latin-1 */
    IS(rt_str_getitem(x, -2), "\xf0\x9f\x98\x80");
    IS(rt_str_slice(a, 1, 3, NONE), "el");
    IS(rt_str_slice(a, NONE, NONE, -1), "olleh");
    IS(rt_str_slice(a, NONE, NONE, 2), "hlo");
    IS(rt_str_slice(a, -2, NONE, NONE), "lo");
    IS(rt_str_slice(a, 10, 20, NONE), "");
    IS(rt_str_slice(a, 4, 0, -2), "ol");
    IS(rt_str_slice(a, -100, 100, 3), "hl");
    IS(rt_str_slice(b, 2, NONE, NONE), "\xc3\xa9!"); /* kind 2 -> 1 */
    IS(rt_str_slice(b, NONE, NONE, 2), "h\xc3\xa9");
    IS(rt_str_slice(x, NONE, NONE, -2), "ba");      /* kind 4 -> ASCII */
    IS(rt_str_slice(x, 1, 2, NONE), "\xf0\x9f\x98\x80");
    CHECK(rt_str_slice(a, 0, 1, 0) == NULL);
    RAISED("ValueError", "slice step cannot be zero");
    rt_decref(a), rt_decref(b), rt_decref(x);
}

static void test_concat_repeat_cmp(void)
{
    HjMemInfo *a = U("ab"), *b = U(BMP), *x = U(ASTRAL), *e = U("");
    IS(rt_str_concat(a, b), "abh\xe2\x82\xac\xc3\xa9!");
    IS(rt_str_concat(x, a), "a\xf0\x9f\x98\x80" "bab");
    IS(rt_str_concat(e, a), "ab");
    IS(rt_str_repeat(a, 3), "ababab");
    IS(rt_str_repeat(b, 2), "h\xe2\x82\xac\xc3\xa9!h\xe2\x82\xac\xc3\xa9!");
    IS(rt_str_repeat(a, 0), "");
    IS(rt_str_repeat(a, -4), "");
    CHECK(rt_str_repeat(a, INT64_MAX / 2) == NULL);
    RAISED("OverflowError", NULL);
    HjMemInfo *a2 = U("ab"), *ac = U("ac"), *abc = U("abc");
    CHECK(rt_str_eq(a, a2) && !rt_str_eq(a, ac) && !rt_str_eq(a, b));
    CHECK(rt_str_cmp(a, a2) == 0 && rt_str_cmp(a, ac) < 0 && rt_str_cmp(ac, a) > 0);
    CHECK(rt_str_cmp(a, abc) < 0 && rt_str_cmp(abc, a) > 0 && rt_str_cmp(e, a) < 0);
    CHECK(rt_str_cmp(b, x) > 0); /* 'h' > 'a' */
    HjMemInfo *h1 = U("h\xe2\x82\xac"), *h2 = U("h\xf0\x9f\x98\x80");
    CHECK(rt_str_cmp(h1, h2) < 0 && rt_str_cmp(h2, h1) > 0); /* by code point across kinds */
    CHECK(rt_str_hash(a) == rt_str_hash(a2) && rt_str_hash(a) != rt_str_hash(ac));
    CHECK(rt_str_hash(a) != -1 && RT_STR(a)->hash == rt_str_hash(a));
    HjMemInfo *bb = U(BMP);
    CHECK(rt_str_hash(b) == rt_str_hash(bb) && rt_str_eq(b, bb));
    rt_decref(bb), rt_decref(h1), rt_decref(h2), rt_decref(a2), rt_decref(ac), rt_decref(abc);
    rt_decref(a), rt_decref(b), rt_decref(x), rt_decref(e);
}

static void test_search(void)
{
    HjMemInfo *s = U("abcabcab"), *ab = U("ab"), *c = U("c"), *e = U(""), *z = U("zz");
    CHECK(rt_str_find(s, ab, NONE, NONE) == 0);
    CHECK(rt_str_find(s, ab, 1, NONE) == 3);
    CHECK(rt_str_find(s, ab, 1, 4) == -1);
    CHECK(rt_str_find(s, ab, -3, NONE) == 6);
    CHECK(rt_str_rfind(s, ab, NONE, NONE) == 6);
    CHECK(rt_str_rfind(s, ab, NONE, -1) == 3);
    CHECK(rt_str_find(s, e, 3, NONE) == 3 && rt_str_rfind(s, e, NONE, 5) == 5);
    CHECK(rt_str_find(s, e, 9, NONE) == -1 && rt_str_find(s, e, 8, NONE) == 8);
    CHECK(rt_str_count(s, ab, NONE, NONE) == 3 && rt_str_count(s, c, 3, NONE) == 1);
    CHECK(rt_str_count(s, e, NONE, NONE) == 9 && rt_str_count(s, e, 5, 2) == 0);
    HjMemInfo *aaa = U("aaaa"), *aa = U("aa");
    CHECK(rt_str_count(aaa, aa, NONE, NONE) == 2); /* non-overlapping */
    CHECK(rt_str_contains(s, c) && !rt_str_contains(s, z) && rt_str_contains(s, e));
    CHECK(rt_str_index(s, c, NONE, NONE) == 2 && rt_str_rindex(s, c, NONE, NONE) == 5);
    CHECK(rt_str_index(s, z, NONE, NONE) == -1);
    RAISED("ValueError", "substring not found");
    CHECK(rt_str_rindex(s, ab, 7, NONE) == -1);
    RAISED("ValueError", "substring not found");
    CHECK(rt_str_startswith(s, ab, NONE, NONE) && !rt_str_startswith(s, c, NONE, NONE));
    CHECK(rt_str_startswith(s, c, 2, NONE) && rt_str_startswith(s, e, 8, NONE) && !rt_str_startswith(s, e, 9, NONE));
    CHECK(rt_str_endswith(s, ab, NONE, NONE) && rt_str_endswith(s, c, NONE, -2) && !rt_str_endswith(s, c, NONE, NONE));
    /* kinds: needle narrower than the haystack, wider, astral */
    HjMemInfo *b = U("x\xe2\x82\xac" "ab\xe2\x82\xac" "ab"), *eu = U("\xe2\x82\xac"), *x = U(ASTRAL), *sm = U("\xf0\x9f\x98\x80");
    CHECK(rt_str_find(b, ab, NONE, NONE) == 2 && rt_str_rfind(b, ab, NONE, NONE) == 5);
    CHECK(rt_str_find(b, eu, 2, NONE) == 4 && rt_str_count(b, eu, NONE, NONE) == 2);
    CHECK(rt_str_find(s, eu, NONE, NONE) == -1 && rt_str_find(b, sm, NONE, NONE) == -1);
    HjMemInfo *bee = U("b");
    CHECK(rt_str_find(x, sm, NONE, NONE) == 1 && rt_str_endswith(x, bee, NONE, NONE) == 1);
    rt_decref(bee);
    CHECK(rt_str_startswith(b, eu, 1, NONE) && rt_str_endswith(b, ab, NONE, NONE));
    /* a byte match across code unit boundaries is not a match */
    uint16_t h[3] = {0x4100, 0x0042, 0x20ac}, n1[1] = {0x0041};
    HjMemInfo *hs = rt_str_from_kind(2, h, 3), *ns = rt_str_from_kind(2, n1, 1);
    CHECK(rt_str_find(hs, ns, NONE, NONE) == -1);
    rt_decref(hs), rt_decref(ns);
    rt_decref(b), rt_decref(eu), rt_decref(x), rt_decref(sm), rt_decref(aaa), rt_decref(aa);
    rt_decref(s), rt_decref(ab), rt_decref(c), rt_decref(e), rt_decref(z);
}

static void test_replace_split_join(void)
{
    HjMemInfo *s = U("a,b,,c"), *comma = U(","), *semi = U(";;"), *e = U("");
    IS(rt_str_replace(s, comma, semi, -1), "a;;b;;;;c");
    IS(rt_str_replace(s, comma, semi, 2), "a;;b;;,c");
    IS(rt_str_replace(s, comma, e, -1), "abc");
    HjMemInfo *abc = U("abc"), *dash = U("-");
    IS(rt_str_replace(abc, e, dash, -1), "-a-b-c-");
    IS(rt_str_replace(abc, e, dash, 2), "-a-bc");
    IS(rt_str_replace(e, e, dash, -1), "-");
    HjMemInfo *b = U("x\xe2\x82\xacy"), *eu = U("\xe2\x82\xac"), *x = U(ASTRAL), *sm = U("\xf0\x9f\x98\x80");
    IS(rt_str_replace(b, eu, dash, -1), "x-y"); /* kind 2 -> ASCII */
    HjMemInfo *bee = U("b");
    IS(rt_str_replace(abc, bee, sm, -1), "a\xf0\x9f\x98\x80" "c");
    rt_decref(bee);
    IS(rt_str_replace(x, sm, eu, -1), "a\xe2\x82\xac" "b"); /* kind 4 -> 2 */
    IS(rt_str_replace(abc, sm, dash, -1), "abc");

    PARTS(rt_str_split(s, comma, -1), "a|b||c");
    PARTS(rt_str_split(s, comma, 1), "a|b,,c");
    PARTS(rt_str_rsplit(s, comma, 1), "a,b,|c");
    PARTS(rt_str_rsplit(s, comma, -1), "a|b||c");
    HjMemInfo *ws = U("  one\ttwo \n three  ");
    PARTS(rt_str_split(ws, NULL, -1), "one|two|three");
    PARTS(rt_str_split(ws, NULL, 1), "one|two \n three  ");
    PARTS(rt_str_rsplit(ws, NULL, 1), "  one\ttwo|three");
    PARTS(rt_str_split(e, NULL, -1), "");
    HjMemInfo *p = rt_str_split(e, NULL, -1);
    CHECK(p && rt_str_parts_count(p) == 0);
    rt_str_parts_release(p);
    p = rt_str_split(e, comma, -1);
    CHECK(p && rt_str_parts_count(p) == 1);
    rt_str_parts_release(p);
    CHECK(rt_str_split(s, e, -1) == NULL);
    RAISED("ValueError", "empty separator");
    CHECK(rt_str_rsplit(s, e, -1) == NULL);
    RAISED("ValueError", "empty separator");
    /* Unicode whitespace (built in, no table needed) */
    HjMemInfo *uws = U("a\xe3\x80\x80" "b\xc2\xa0" "c\xc2\x85");
    PARTS(rt_str_split(uws, NULL, -1), "a|b|c");
    HjMemInfo *bs = U("1\xe2\x82\xac" "2\xe2\x82\xac" "3");
    PARTS(rt_str_split(bs, eu, -1), "1|2|3");
    PARTS(rt_str_split(bs, comma, -1), "1\xe2\x82\xac" "2\xe2\x82\xac" "3");
    HjMemInfo *lines = U("a\nb\r\nc\rd\x0b" "e\xe2\x80\xa8" "f\n");
    PARTS(rt_str_splitlines(lines, 0), "a|b|c|d|e|f");
    PARTS(rt_str_splitlines(lines, 1), "a\n|b\r\n|c\r|d\x0b|e\xe2\x80\xa8|f\n");
    PARTS(rt_str_splitlines(e, 0), "");

    HjMemInfo *items[3] = {U("x"), U("\xe2\x82\xac"), U("y")};
    IS(rt_str_join(comma, items, 3), "x,\xe2\x82\xac,y");
    IS(rt_str_join(eu, items, 1), "x");
    IS(rt_str_join(eu, items, 0), "");
    HjMemInfo *only[2] = {items[0], items[2]};
    IS(rt_str_join(e, only, 2), "xy");
    IS(rt_str_join(eu, only, 2), "x\xe2\x82\xacy");
    for (int i = 0; i < 3; i++)
        rt_decref(items[i]);

    HjMemInfo *out[3];
    CHECK(rt_str_partition(s, comma, out) == 0);
    IS(out[0], "a"), IS(out[1], ","), IS(out[2], "b,,c");
    CHECK(rt_str_rpartition(s, comma, out) == 0);
    IS(out[0], "a,b,"), IS(out[1], ","), IS(out[2], "c");
    CHECK(rt_str_partition(s, semi, out) == 0);
    IS(out[0], "a,b,,c"), IS(out[1], ""), IS(out[2], "");
    CHECK(rt_str_rpartition(s, semi, out) == 0);
    IS(out[0], ""), IS(out[1], ""), IS(out[2], "a,b,,c");
    CHECK(rt_str_partition(s, e, out) == -1);
    RAISED("ValueError", "empty separator");
    CHECK(rt_str_partition(bs, eu, out) == 0);
    IS(out[0], "1"), IS(out[1], "\xe2\x82\xac"), IS(out[2], "2\xe2\x82\xac" "3");

    rt_decref(lines), rt_decref(bs), rt_decref(uws), rt_decref(ws);
    rt_decref(b), rt_decref(eu), rt_decref(x), rt_decref(sm), rt_decref(abc), rt_decref(dash);
    rt_decref(s), rt_decref(comma), rt_decref(semi), rt_decref(e);
}

static void test_strip_case_pad(void)
{
    HjMemInfo *s = U(" \t hi there \n"), *xy = U("xy"), *t = U("xyxhixx");
    IS(rt_str_strip(s, NULL), "hi there");
    IS(rt_str_lstrip(s, NULL), "hi there \n");
    IS(rt_str_rstrip(s, NULL), " \t hi there");
    IS(rt_str_strip(t, xy), "hi");
    IS(rt_str_lstrip(t, xy), "hixx");
    IS(rt_str_rstrip(t, xy), "xyxhi");
    HjMemInfo *u = U("\xe3\x80\x80\xe2\x82\xac" "a\xe3\x80\x80"), *eu = U("\xe2\x82\xac");
    IS(rt_str_strip(u, NULL), "\xe2\x82\xac" "a");
    HjMemInfo *u2 = U("\xe2\x82\xac" "a\xe2\x82\xac");
    IS(rt_str_strip(u2, eu), "a");
    HjMemInfo *m = U("hello World_x1");
    IS(rt_str_upper(m), "HELLO WORLD_X1");
    IS(rt_str_lower(m), "hello world_x1");
    IS(rt_str_capitalize(m), "Hello world_x1");
    IS(rt_str_title(m), "Hello World_X1");
    IS(rt_str_swapcase(m), "HELLO wORLD_X1");
    IS(rt_str_casefold(m), "hello world_x1");
    HjMemInfo *ua = U("ab\xe2\x82\xac" "cD");
    IS(rt_str_upper(ua), "AB\xe2\x82\xac" "CD"); /* € has no case */
    IS(rt_str_title(ua), "Ab\xe2\x82\xac" "Cd");  /* without the table € is not cased */

    HjMemInfo *n = U("42"), *neg = U("-42"), *star = U("*"), *wide = U("\xe2\x82\xac"), *two = U("ab");
    IS(rt_str_zfill(n, 5), "00042");
    IS(rt_str_zfill(neg, 5), "-0042");
    IS(rt_str_zfill(neg, 2), "-42");
    HjMemInfo *plus = U("+");
    IS(rt_str_zfill(plus, 3), "+00");
    rt_decref(plus);
    IS(rt_str_center(n, 5, star), "**42*");
    IS(rt_str_center(two, 5, NULL), "  ab ");
    HjMemInfo *three = U("abc");
    IS(rt_str_center(three, 6, star), "*abc**");
    IS(rt_str_center(three, 8, star), "**abc***");
    IS(rt_str_ljust(n, 4, wide), "42\xe2\x82\xac\xe2\x82\xac");
    IS(rt_str_rjust(n, 4, NULL), "  42");
    IS(rt_str_rjust(n, 1, NULL), "42");
    CHECK(rt_str_center(n, 5, two) == NULL);
    RAISED("TypeError", "The fill character must be exactly one character long");
    HjMemInfo *tabs = U("a\tbc\t\n\tx");
    IS(rt_str_expandtabs(tabs, 8), "a       bc      \n        x");
    IS(rt_str_expandtabs(tabs, 4), "a   bc  \n    x");
    IS(rt_str_expandtabs(tabs, 0), "abc\nx");
    rt_decref(tabs), rt_decref(three);
    rt_decref(n), rt_decref(neg), rt_decref(star), rt_decref(wide), rt_decref(two);
    rt_decref(ua), rt_decref(m), rt_decref(u2), rt_decref(u), rt_decref(eu);
    rt_decref(s), rt_decref(xy), rt_decref(t);
}

static void test_predicates(void)
{
    struct {
        const char *s;
        int digit, alpha, alnum, space, upper, lower, decimal, numeric, title, ident, ascii, printable;
    } cases[] = {
        {"123", 1, 0, 1, 0, 0, 0, 1, 1, 0, 0, 1, 1},
        {"abc", 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 1},
        {"ABC", 0, 1, 1, 0, 1, 0, 0, 0, 0, 1, 1, 1},
        {"Abc Def", 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1},
        {"Abc dEf", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1},
        {" \t\n", 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0},
        {"", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1},
        {"_x1", 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1},
        {"1x", 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 1},
        {"A1!", 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1},
        {"\xe3\x80\x80\xc2\xa0", 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        HjMemInfo *s = U(cases[i].s);
        int got[12] = {rt_str_isdigit(s), rt_str_isalpha(s), rt_str_isalnum(s), rt_str_isspace(s),
                       rt_str_isupper(s), rt_str_islower(s), rt_str_isdecimal(s), rt_str_isnumeric(s),
                       rt_str_istitle(s), rt_str_isidentifier(s), rt_str_isascii(s), rt_str_isprintable(s)};
        int *want = &cases[i].digit;
        for (int k = 0; k < 12; k++)
            if (got[k] != want[k]) {
                fprintf(stderr, "predicate %d of '%s': got %d, wanted %d\n", k, cases[i].s, got[k], want[k]);
                failures++;
            }
        rt_decref(s);
    }
}

static void test_numbers(void)
{
    IS(rt_str_from_int64(-1234567890123), "-1234567890123");
    IS(rt_str_from_int64(INT64_MIN), "-9223372036854775808");
    IS(rt_str_from_uint64(UINT64_MAX), "18446744073709551615");
    IS(rt_str_from_int64(7), "7");
    IS(rt_str_from_double(0.1), "0.1");
    IS(rt_str_from_double(1e16), "1e+16");
    IS(rt_str_from_double(123.0), "123.0");
    IS(rt_str_from_double(-0.0), "-0.0");
    IS(rt_str_from_double(INFINITY), "inf");
    IS(rt_str_from_double(-INFINITY), "-inf");
    IS(rt_str_from_double(NAN), "nan");
    IS(rt_str_from_double(1.5e-7), "1.5e-07");
    IS(rt_str_from_float32(0.1f), "0.1");
    /* the text buffer of a line being built survives */
    rt_text_begin();
    rt_text_str("keep ");
    IS(rt_str_from_double(2.5), "2.5");
    CHECK(strcmp(rt_text_current(NULL), "keep ") == 0);
    HjMemInfo *sp = U("*^9,"), *bad = U("q"), *fs = U(".3f");
    IS(rt_str_format_int(1234567, 0, sp), "1,234,567");
    IS(rt_str_format_float(3.14159, 0, fs), "3.142");
    CHECK(rt_str_format_int(1, 0, bad) == NULL);
    RAISED("ValueError", "Unknown format code 'q' for object of type 'int'");
    CHECK(strcmp(rt_text_current(NULL), "keep ") == 0);
    rt_decref(sp), rt_decref(bad), rt_decref(fs);
    /* f-string as a value */
    rt_text_begin();
    rt_text_str("x=");
    rt_text_int(3);
    HjMemInfo *e = U("\xe2\x82\xac");
    rt_str_text(e);
    rt_str_text_repr(e);
    IS(rt_str_from_text(), "x=3\xe2\x82\xac'\xe2\x82\xac'");
    rt_text_begin();
    HjMemInfo *q = U("it's \"q\"\n\\\x01"), *q2 = U("it's");
    rt_str_text_repr(q);
    rt_str_text_repr(q2);
    CHECK(strcmp(rt_text_current(NULL), "'it\\'s \"q\"\\n\\\\\\x01'\"it's\"") == 0);
    rt_text_begin();
    rt_decref(q), rt_decref(q2), rt_decref(e);

    struct {
        const char *s;
        int base;
        int64_t v;
        const char *err;
    } ints[] = {
        {"42", 10, 42, NULL},
        {"  -42\n", 10, -42, NULL},
        {"+1_000", 10, 1000, NULL},
        {"0x_ff", 0, 255, NULL},
        {"0o17", 0, 15, NULL},
        {"0b101", 0, 5, NULL},
        {"ff", 16, 255, NULL},
        {"0xFF", 16, 255, NULL},
        {"zz", 36, 1295, NULL},
        {"00", 0, 0, NULL},
        {"0_0", 0, 0, NULL},
        {"9223372036854775807", 10, INT64_MAX, NULL},
        {"-9223372036854775808", 10, INT64_MIN, NULL},
        {"\xe3\x80\x80" "7\xc2\xa0", 10, 7, NULL},
        {"010", 0, 0, "invalid literal for int() with base 0: '010'"},
        {"1__0", 10, 0, "invalid literal for int() with base 10: '1__0'"},
        {"_1", 10, 0, "invalid literal for int() with base 10: '_1'"},
        {"1_", 10, 0, "invalid literal for int() with base 10: '1_'"},
        {"", 10, 0, "invalid literal for int() with base 10: ''"},
        {"x", 10, 0, "invalid literal for int() with base 10: 'x'"},
        {"0x_f", 10, 0, "invalid literal for int() with base 10: '0x_f'"},
        {"12a", 10, 0, "invalid literal for int() with base 10: '12a'"},
        {"\x1c" "5", 10, 0, "invalid literal for int() with base 10: '\\x1c5'"},
        {"\xe2\x82\xac", 10, 0, "invalid literal for int() with base 10: '\xe2\x82\xac'"},
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        HjMemInfo *s = U(ints[i].s);
        int64_t v = -99;
        int rc = rt_str_to_int64(s, ints[i].base, &v);
        if (ints[i].err) {
            CHECK(rc == -1);
            if (rc == -1 && !RAISED("ValueError", ints[i].err))
                fprintf(stderr, "  for int('%s')\n", ints[i].s);
        } else if (rc != 0 || v != ints[i].v) {
            fprintf(stderr, "int('%s', %d): rc %d, %" PRId64 "\n", ints[i].s, ints[i].base, rc, v);
            failures++;
            rt_exc_clear();
        }
        rt_decref(s);
    }
    HjMemInfo *big = U("9223372036854775808"), *one = U("1");
    int64_t v;
    CHECK(rt_str_to_int64(big, 10, &v) == -1);
    RAISED("OverflowError", NULL);
    CHECK(rt_str_to_int64(one, 1, &v) == -1);
    RAISED("ValueError", "int() base must be >= 2 and <= 36, or 0");
    CHECK(rt_str_to_int64(one, 37, &v) == -1);
    RAISED("ValueError", NULL);
    rt_decref(big), rt_decref(one);

    struct {
        const char *s;
        double v;
        int ok;
    } fl[] = {
        {"1.5", 1.5, 1}, {" -2.5e3\n", -2500, 1}, {"1_000.5", 1000.5, 1}, {"1e1_0", 1e10, 1},
        {".5", 0.5, 1},  {"5.", 5, 1},            {"inf", INFINITY, 1}, {"-Infinity", -INFINITY, 1},
        {"nan", NAN, 1}, {"1e400", INFINITY, 1},  {"1_e5", 0, 0},       {".", 0, 0},
        {"e5", 0, 0},    {"1e", 0, 0},            {"", 0, 0},           {"0x10", 0, 0},
        {"1__0", 0, 0},  {"_1", 0, 0},            {"1.5x", 0, 0},       {"infx", 0, 0},
        {"nan(1)", 0, 0},
    };
    for (size_t i = 0; i < sizeof fl / sizeof fl[0]; i++) {
        HjMemInfo *s = U(fl[i].s);
        double d = -99;
        int rc = rt_str_to_double(s, &d);
        int good = fl[i].ok ? rc == 0 && (isnan(fl[i].v) ? isnan(d) : d == fl[i].v) : rc == -1;
        if (!good) {
            fprintf(stderr, "float('%s'): rc %d, %g\n", fl[i].s, rc, d);
            failures++;
        }
        if (rc < 0) {
            char msg[128];
            snprintf(msg, sizeof msg, "could not convert string to float: '%s'", fl[i].s);
            RAISED("ValueError", msg);
        }
        rt_decref(s);
    }

    HjMemInfo *a = U("a"), *eu = U("\xe2\x82\xac"), *sm = U("\xf0\x9f\x98\x80"), *ab = U("ab");
    CHECK(rt_str_ord(a) == 97 && rt_str_ord(eu) == 0x20ac && rt_str_ord(sm) == 0x1f600);
    CHECK(rt_str_ord(ab) == -1);
    RAISED("TypeError", "ord() expected a character, but string of length 2 found");
    IS(rt_str_chr(97), "a");
    IS(rt_str_chr(0xe9), "\xc3\xa9");
    IS(rt_str_chr(0x1f600), "\xf0\x9f\x98\x80");
    CHECK(rt_str_chr(0x110000) == NULL);
    RAISED("ValueError", "chr() arg not in range(0x110000)");
    CHECK(rt_str_chr(-1) == NULL);
    RAISED("ValueError", NULL);
    rt_decref(a), rt_decref(eu), rt_decref(sm), rt_decref(ab);
}

static void test_format(void)
{
    HjMemInfo *s = U("abc"), *b = U("\xe2\x82\xac" "x");
    struct {
        const char *spec, *want, *err;
    } f[] = {
        {"", "abc", NULL},
        {"5", "abc  ", NULL},
        {">5", "  abc", NULL},
        {"*^7", "**abc**", NULL},
        {"\xe2\x82\xac^6", "\xe2\x82\xac" "abc\xe2\x82\xac\xe2\x82\xac", NULL},
        {".2", "ab", NULL},
        {"<6.1s", "a     ", NULL},
        {"05", "abc00", NULL},
        {"x<05", "abcxx", NULL},
        {"=5", NULL, "'=' alignment not allowed in string format specifier"},
        {"+5", NULL, "Sign not allowed in string format specifier"},
        {"#", NULL, "Alternate form (#) not allowed in string format specifier"},
        {",", NULL, "Cannot specify ',' with 's'."},
        {"d", NULL, "Unknown format code 'd' for object of type 'str'"},
        {".", NULL, "Format specifier missing precision"},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        HjMemInfo *spec = U(f[i].spec);
        HjMemInfo *r = rt_str_format(s, spec);
        if (f[i].want) {
            IS(r, f[i].want);
        } else {
            CHECK(r == NULL);
            RAISED("ValueError", f[i].err);
        }
        rt_decref(spec);
    }
    HjMemInfo *w = U("^4");
    IS(rt_str_format(b, w), " \xe2\x82\xac" "x ");
    rt_decref(w), rt_decref(s), rt_decref(b);
}

int main(void)
{
    RtMemStats before = rt_memstats();
    test_construct();
    test_index_slice();
    test_concat_repeat_cmp();
    test_search();
    test_replace_split_join();
    test_strip_case_pad();
    test_predicates();
    test_numbers();
    test_format();
    CHECK(!rt_exc_pending());
    RtMemStats after = rt_memstats();
    if (after.alloc - before.alloc != after.free - before.free) {
        fprintf(stderr, "leak: %" PRId64 " allocations, %" PRId64 " frees\n", after.alloc - before.alloc,
                after.free - before.free);
        failures++;
    }
    if (failures)
        fprintf(stderr, "%d failure(s)\n", failures);
    else
        printf("ok\n");
    return failures ? 1 : 0;
}
