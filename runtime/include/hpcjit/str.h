/* hpcjit/str.h - the native str type of compiled code (runtime/str.c).
 *
 * VALUE
 * -----
 * A str in compiled code is an `HjMemInfo *` (runtime.h) whose `data`
 * points to an HjStr.  It is reference counted with rt_incref/rt_decref
 * like an array's MemInfo, so the compiler's reference counting covers it.
 * Strings are immutable: an operation returns a new reference (possibly to
 * one of its arguments, or to an immortal constant), never modifies one.
 *
 * The text is stored as CPython stores it (PEP 393): `kind` bytes per code
 * point (1: Latin-1, 2: UCS-2, 4: UCS-4), followed by one zero code unit.
 * The kind is always the NARROWEST that holds the largest code point, so
 * two strings are equal iff their kinds, lengths and bytes are; every
 * function here keeps that invariant, and so must code that builds an
 * HjStr itself (literals, the boxing in python/core/box_str.c).
 * `is_ascii` is 1 iff every code point is < 128 (then kind is 1 and the
 * data is also valid UTF-8).  `hash` is -1 until rt_str_hash computes and
 * caches it (written with a relaxed atomic store: any thread may do it).
 * `size` of the MemInfo is sizeof(HjStr) + (length + 1) * kind.
 *
 * LITERALS (immortal constants)
 * -----------------------------
 * The compiler emits a literal as one WRITABLE global (the hash is cached
 * into it) laid out as an HjMemInfo followed by the HjStr:
 *
 *   { { i64 RT_STR_IMMORTAL,        ; refcnt
 *       ptr @lit + 40,              ; data -> the HjStr below (field 1)
 *       i64 24 + (len + 1) * kind,  ; size
 *       ptr null, ptr null },       ; dtor, dtor_info
 *     { i64 len, i64 -1,            ; length, hash (not computed)
 *       i32 kind, i32 is_ascii,
 *       [ (len + 1) * kind x i8 ] } } ; code units, then a zero unit
 *
 * i.e. LLVM type { {i64, ptr, i64, ptr, ptr}, {i64, i64, i32, i32,
 * [N x i8]} } aligned to 8, with `data` a constant GEP to field 1.  The
 * code units are little-endian on the hosts we support (x86-64, aarch64),
 * the kind the narrowest for the text.  rt_incref/rt_decref never change a
 * refcount >= RT_REFCNT_IMMORTAL_MIN, so such an object is never freed and
 * is never counted by rt_memstats.  RtStrConst(N) below is the same layout
 * in C (the runtime's own constants use it).
 *
 * CONVENTIONS
 * -----------
 * - Arguments are borrowed; a returned `HjMemInfo *` is a new reference.
 * - Failure: NULL (or -1 for int32_t/int64_t status returns documented so)
 *   with an exception pending (rt_raise, runtime.h), as CPython would raise.
 * - Optional integer arguments (slice bounds, start/end of find...) take
 *   RT_STR_NONE for Python's None.
 * - "Parts" (split, rsplit, splitlines): a MemInfo from rt_alloc whose data
 *   is an array of `HjMemInfo *` (the strings, each an owned reference) and
 *   whose size is 8 * count (rt_str_parts_count).  Release it with
 *   rt_str_parts_release (decrefs the items, then the block).  A list
 *   runtime can adopt the items by moving the pointers out and freeing the
 *   block with a plain rt_decref.
 * - Thread safety: every function may be called from any thread without
 *   the GIL; none calls the Python C API.
 *
 * UNICODE DATABASE
 * ----------------
 * ASCII text takes fast paths with built-in rules.  For non-ASCII code
 * points, case mapping and character classes go through a table of
 * function pointers (RtUnicodeDb) that hpcjit._core installs at import with
 * CPython's own unicodedata functions (_PyUnicode_ToUpperFull,
 * _PyUnicode_IsAlpha, ...: pure table lookups, safe without the GIL), so
 * results equal CPython's.  Without a table (C tests) non-ASCII code points
 * have no case and no class, except whitespace and line breaks, which are
 * built in (the set is small and fixed: CPython's Py_UNICODE_ISSPACE and
 * the line boundaries of str.splitlines).
 */
#ifndef HPCJIT_STR_H
#define HPCJIT_STR_H

#include <stdint.h>

#include "hpcjit/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct HjStr {
    int64_t length;  /* code points                                        */
    int64_t hash;    /* -1: not computed yet                               */
    int32_t kind;    /* 1, 2 or 4 bytes per code point (narrowest)          */
    int32_t is_ascii;
    char data[];     /* length code units, then one zero code unit         */
} HjStr;

#define RT_STR(mi) ((HjStr *)(mi)->data)

/* The refcount of an immortal literal (see runtime.h's
 * RT_REFCNT_IMMORTAL_MIN). */
#define RT_STR_IMMORTAL RT_REFCNT_IMMORTAL

/* Python's None for an optional integer argument. */
#define RT_STR_NONE INT64_MIN

/* An immortal constant in C: the literal layout above with room for N
 * bytes of code units (the terminator included). */
#define RtStrConst(N)                                                                              \
    struct {                                                                                       \
        HjMemInfo mi;                                                                              \
        struct {                                                                                   \
            int64_t length, hash;                                                                  \
            int32_t kind, is_ascii;                                                                \
            char data[N];                                                                          \
        } s;                                                                                       \
    }

/* ---- construction and access -------------------------------------------- */
/* A str from n bytes of UTF-8 (n < 0: NUL-terminated).  UnicodeDecodeError
 * for invalid UTF-8 (surrogates included). */
HjMemInfo *rt_str_from_utf8(const char *p, int64_t n);
/* A str of n code units of `kind`, uninitialised but for the terminator
 * (refcount 1), for code that fills it: the kind must be the narrowest for
 * what is written, is_ascii exact (boxing copies CPython's data, which is
 * already so).  MemoryError when too long. */
HjMemInfo *rt_str_alloc(int32_t kind, int64_t n, int32_t is_ascii);
/* A str from n code units of `kind` (1, 2, 4); the result is narrowed. */
HjMemInfo *rt_str_from_kind(int32_t kind, const void *data, int64_t n);
/* The text built by rt_text_* (text.h) since rt_text_begin(), as a str:
 * f-strings as values (the compiler evaluates the pieces first, then
 * rt_text_begin, rt_text_* per piece, rt_str_text for str pieces, and
 * this).  UnicodeDecodeError if the text is not UTF-8. */
HjMemInfo *rt_str_from_text(void);
/* Append s to the rt_text_* buffer as UTF-8 (print(s), f"{s}"), or its
 * repr() ('abc', escapes as CPython's; needs the Unicode table for
 * non-ASCII printability, else every non-ASCII code point is printable). */
void rt_str_text(const HjMemInfo *s);
void rt_str_text_repr(const HjMemInfo *s);
/* The UTF-8 encoding of s into a malloc'ed, NUL-terminated buffer (caller
 * frees); *n gets its length when n is not NULL.  NULL on MemoryError. */
char *rt_str_to_utf8(const HjMemInfo *s, int64_t *n);

int64_t rt_str_len(const HjMemInfo *s);
/* s[i] (negative i counts from the end); IndexError "string index out of
 * range". */
HjMemInfo *rt_str_getitem(const HjMemInfo *s, int64_t i);
/* The code point s[i], i in [0, len) unchecked (iteration). */
int32_t rt_str_code_at(const HjMemInfo *s, int64_t i);
/* s[start:stop:step], each RT_STR_NONE or a value; ValueError "slice step
 * cannot be zero". */
HjMemInfo *rt_str_slice(const HjMemInfo *s, int64_t start, int64_t stop, int64_t step);
HjMemInfo *rt_str_concat(const HjMemInfo *a, const HjMemInfo *b);
/* s * n (n <= 0: ''); OverflowError "repeated string is too long". */
HjMemInfo *rt_str_repeat(const HjMemInfo *s, int64_t n);

/* ---- comparison and hashing --------------------------------------------- */
int32_t rt_str_eq(const HjMemInfo *a, const HjMemInfo *b); /* 1 or 0 */
/* -1, 0, 1 as a < b, a == b, a > b by code points (Python's <, <=, ...). */
int32_t rt_str_cmp(const HjMemInfo *a, const HjMemInfo *b);
/* CPython's hash(s) (SipHash-1-3 of the code units with the process's
 * key; never -1), cached in the HjStr. */
int64_t rt_str_hash(const HjMemInfo *s);
/* The key of rt_str_hash (CPython's _Py_HashSecret.siphash, set once by
 * hpcjit._core at import, before any compiled code runs; 0 without it). */
void rt_str_hash_seed(uint64_t k0, uint64_t k1);

/* ---- searching (start/end: RT_STR_NONE or an index, as str.find) -------- */
int32_t rt_str_contains(const HjMemInfo *s, const HjMemInfo *sub); /* sub in s */
int64_t rt_str_find(const HjMemInfo *s, const HjMemInfo *sub, int64_t start, int64_t end);
int64_t rt_str_rfind(const HjMemInfo *s, const HjMemInfo *sub, int64_t start, int64_t end);
/* As find/rfind, but -1 means ValueError "substring not found" is pending. */
int64_t rt_str_index(const HjMemInfo *s, const HjMemInfo *sub, int64_t start, int64_t end);
int64_t rt_str_rindex(const HjMemInfo *s, const HjMemInfo *sub, int64_t start, int64_t end);
int64_t rt_str_count(const HjMemInfo *s, const HjMemInfo *sub, int64_t start, int64_t end);
/* 1 or 0.  A tuple of prefixes is a loop in compiled code. */
int32_t rt_str_startswith(const HjMemInfo *s, const HjMemInfo *prefix, int64_t start, int64_t end);
int32_t rt_str_endswith(const HjMemInfo *s, const HjMemInfo *suffix, int64_t start, int64_t end);

/* ---- building ------------------------------------------------------------ */
/* s.replace(old, new, count); count < 0: all. */
HjMemInfo *rt_str_replace(const HjMemInfo *s, const HjMemInfo *old, const HjMemInfo *repl, int64_t count);
/* s.split(sep, maxsplit) / s.rsplit(...): sep NULL is None (runs of
 * whitespace); maxsplit < 0: no limit.  ValueError "empty separator".
 * Returns parts (see CONVENTIONS). */
HjMemInfo *rt_str_split(const HjMemInfo *s, const HjMemInfo *sep, int64_t maxsplit);
HjMemInfo *rt_str_rsplit(const HjMemInfo *s, const HjMemInfo *sep, int64_t maxsplit);
/* s.splitlines(keepends): parts. */
HjMemInfo *rt_str_splitlines(const HjMemInfo *s, int32_t keepends);
int64_t rt_str_parts_count(const HjMemInfo *parts);
HjMemInfo **rt_str_parts_items(const HjMemInfo *parts);
void rt_str_parts_release(HjMemInfo *parts); /* NULL is ignored */
/* The parts as a new list of str (rt_ops_str items, containers.h); the
 * parts are consumed.  NULL in (a failed split) gives NULL, the exception
 * left pending; MemoryError. */
HjMemInfo *rt_str_parts_list(HjMemInfo *parts);
/* sep.join(items[0..n)): items borrowed (a list's storage or parts). */
HjMemInfo *rt_str_join(const HjMemInfo *sep, HjMemInfo *const *items, int64_t n);
/* s.partition(sep) / s.rpartition(sep) into out[0..3) (new references):
 * 0, or -1 with ValueError "empty separator" (out untouched). */
int32_t rt_str_partition(const HjMemInfo *s, const HjMemInfo *sep, HjMemInfo **out);
int32_t rt_str_rpartition(const HjMemInfo *s, const HjMemInfo *sep, HjMemInfo **out);
/* strip/lstrip/rstrip(chars): chars NULL is None (whitespace). */
HjMemInfo *rt_str_strip(const HjMemInfo *s, const HjMemInfo *chars);
HjMemInfo *rt_str_lstrip(const HjMemInfo *s, const HjMemInfo *chars);
HjMemInfo *rt_str_rstrip(const HjMemInfo *s, const HjMemInfo *chars);
/* Case mapping as CPython (full mappings: 'ß'.upper() == 'SS', final
 * sigma in lower()). */
HjMemInfo *rt_str_upper(const HjMemInfo *s);
HjMemInfo *rt_str_lower(const HjMemInfo *s);
HjMemInfo *rt_str_capitalize(const HjMemInfo *s);
HjMemInfo *rt_str_title(const HjMemInfo *s);
HjMemInfo *rt_str_swapcase(const HjMemInfo *s);
HjMemInfo *rt_str_casefold(const HjMemInfo *s);
/* Padding: fill NULL is ' ', else a str of length 1 (TypeError "The fill
 * character must be exactly one character long"). */
HjMemInfo *rt_str_zfill(const HjMemInfo *s, int64_t width);
HjMemInfo *rt_str_center(const HjMemInfo *s, int64_t width, const HjMemInfo *fill);
HjMemInfo *rt_str_ljust(const HjMemInfo *s, int64_t width, const HjMemInfo *fill);
HjMemInfo *rt_str_rjust(const HjMemInfo *s, int64_t width, const HjMemInfo *fill);
HjMemInfo *rt_str_expandtabs(const HjMemInfo *s, int64_t tabsize);
/* format(s, spec): [[fill]align][width][.precision][s]; ValueError for a
 * bad spec (sign, '=', '#', ',' or another type). */
HjMemInfo *rt_str_format(const HjMemInfo *s, const HjMemInfo *spec);

/* ---- predicates: 1 or 0, as CPython's str.isX() ------------------------- */
int32_t rt_str_isdigit(const HjMemInfo *s);
int32_t rt_str_isalpha(const HjMemInfo *s);
int32_t rt_str_isalnum(const HjMemInfo *s);
int32_t rt_str_isspace(const HjMemInfo *s);
int32_t rt_str_isupper(const HjMemInfo *s);
int32_t rt_str_islower(const HjMemInfo *s);
int32_t rt_str_isdecimal(const HjMemInfo *s);
int32_t rt_str_isnumeric(const HjMemInfo *s);
int32_t rt_str_istitle(const HjMemInfo *s);
int32_t rt_str_isidentifier(const HjMemInfo *s);
int32_t rt_str_isascii(const HjMemInfo *s);
int32_t rt_str_isprintable(const HjMemInfo *s);

/* ---- conversions ----------------------------------------------------------- */
HjMemInfo *rt_str_from_int64(int64_t v);
HjMemInfo *rt_str_from_uint64(uint64_t v);
HjMemInfo *rt_str_from_double(double v); /* repr(float): '1e+16', 'inf', 'nan' */
HjMemInfo *rt_str_from_float32(float v); /* str(np.float32) */
HjMemInfo *rt_str_from_bool(int32_t v);  /* 'True' / 'False' (immortal) */
/* format(v, spec) of an int (`is_unsigned`: v is a uint64) or a float, as
 * rt_text_format_int/_float (text.h), as a str. */
HjMemInfo *rt_str_format_int(int64_t v, int32_t is_unsigned, const HjMemInfo *spec);
HjMemInfo *rt_str_format_float(double v, int32_t is_f32, const HjMemInfo *spec);
/* int(s, base): CPython's syntax (whitespace, sign, 0x/0o/0b prefixes,
 * single underscores between digits, any Unicode decimal digits with the
 * table).  0, or -1 with ValueError "invalid literal for int() with base
 * 10: 'x'" / "int() base must be >= 2 and <= 36, or 0", or OverflowError
 * "int too large to convert to int64". */
int32_t rt_str_to_int64(const HjMemInfo *s, int64_t base, int64_t *out);
/* float(s): CPython's syntax (whitespace, underscores, inf/infinity/nan in
 * any case).  0, or -1 with ValueError "could not convert string to float:
 * 'x'". */
int32_t rt_str_to_double(const HjMemInfo *s, double *out);
/* ord(s): the code point, or -1 with TypeError "ord() expected a character,
 * but string of length 3 found". */
int64_t rt_str_ord(const HjMemInfo *s);
/* min(s) / max(s) (is_max): the least / greatest character; ValueError
 * "min() arg is an empty sequence". */
HjMemInfo *rt_str_minmax(const HjMemInfo *s, int32_t is_max);
/* chr(i): ValueError "chr() arg not in range(0x110000)". */
HjMemInfo *rt_str_chr(int64_t i);

/* ---- the Unicode database hook --------------------------------------------- */
/* The signatures of CPython's _PyUnicode_* functions (Py_UCS4 is uint32_t):
 * a *_full mapping writes up to 3 code points to res and returns how many.
 * Every member must be set. */
typedef struct RtUnicodeDb {
    int (*to_lower_full)(uint32_t ch, uint32_t *res);
    int (*to_upper_full)(uint32_t ch, uint32_t *res);
    int (*to_title_full)(uint32_t ch, uint32_t *res);
    int (*to_folded_full)(uint32_t ch, uint32_t *res);
    int (*is_cased)(uint32_t ch);
    int (*is_case_ignorable)(uint32_t ch);
    int (*is_lowercase)(uint32_t ch);
    int (*is_uppercase)(uint32_t ch);
    int (*is_titlecase)(uint32_t ch);
    int (*is_alpha)(uint32_t ch);
    int (*is_decimal_digit)(uint32_t ch);
    int (*is_digit)(uint32_t ch);
    int (*is_numeric)(uint32_t ch);
    int (*is_printable)(uint32_t ch);
    int (*is_xid_start)(uint32_t ch);
    int (*is_xid_continue)(uint32_t ch);
    int (*to_decimal_digit)(uint32_t ch); /* -1 when not a decimal digit */
} RtUnicodeDb;
/* Install the table (NULL removes it).  The table must outlive its use. */
void rt_str_set_unicode_db(const RtUnicodeDb *db);

#ifdef __cplusplus
}
#endif
#endif
