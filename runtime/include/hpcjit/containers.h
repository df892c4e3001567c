/* hpcjit/containers.h - native list, dict and set of compiled code
 * (runtime/list.c, runtime/dict.c, runtime/set.c, runtime/hash.c).
 *
 * VALUE
 * -----
 * A list, dict or set in compiled code is an `HjMemInfo *` (runtime.h)
 * whose `data` points to the container struct (HjList, HjDict, HjSet).  It
 * is reference counted with rt_incref/rt_decref like an array's MemInfo;
 * its destructor releases the items (ops->decref on each) and the storage.
 * The struct shares one malloc block with the MemInfo header (rt_alloc's
 * small path), so the pointer in `data` never changes over the container's
 * life; the item storage behind it does (growth).
 *
 * ITEMS AND THEIR DESCRIPTOR
 * --------------------------
 * Items, keys and values are fixed-size byte blobs laid out as the unboxed
 * value of their type (abi.h).  Compiled code describes them with an
 * RtItemOps set at creation.  A descriptor is a static constant of compiled
 * code (or one of the rt_ops_* below) and must outlive every container
 * that uses it: the JIT keeps a compiled module's globals while any of its
 * functions can run, and containers created by a module must not outlive
 * it (a container returned to Python is boxed, i.e. converted, on return).
 *
 * Reference convention:
 *  - an item passed IN (append, insert, setitem, add, extend_buf, ...) is
 *    BORROWED: the container calls ops->incref on the copy it keeps;
 *  - an item passed OUT by a pop-like function (pop, popitem, set pop,
 *    dict pop) carries the container's reference to the caller (the caller
 *    now owns it);
 *  - a pointer returned into the storage (rt_dict_lookup, rt_list_item) is
 *    borrowed and valid until the next call that modifies the container.
 *  - rt_dict_get / rt_list_getitem copy an item OUT and incref it (the
 *    caller owns the copy).
 *
 * Items must have align <= 16 (malloc's alignment): numbers, tuples of
 * numbers and the pointer-holding structs of arrays, strings and nested
 * containers all have align <= 8.
 *
 * HASHING
 * -------
 * ops->hash returns CPython's hash() of the value as a uint64_t (the bit
 * pattern of Py_hash_t).  The runtime ones below (rt_hash_*) are equal to
 * CPython's for numbers (hash(1) == hash(1.0) == hash(True), -1 -> -2)
 * except NaN, which hashes to 0 (CPython >= 3.10 hashes a NaN by its
 * object's address).  NaN keys never compare equal, so each NaN inserted
 * into a dict or set adds an entry, as distinct NaN objects do in CPython.
 * Tuples hash with rt_hash_tuple over the hashes of their fields (CPython's
 * xxHash-based tuple hash, so hash((1, 2.5)) equals CPython's).
 *
 * ERRORS AND THREADS
 * ------------------
 * Functions returning int32_t return 0 (or a documented non-negative
 * result) on success and -1 with an exception pending (rt_raise) on
 * failure; functions returning a pointer return NULL on failure.  The
 * exception types and messages are CPython's.  Nothing is leaked on any
 * failure path.  Every function may be called from any thread without the
 * GIL (no Python API); a container is not synchronised: concurrent
 * modification of one container from several threads is the caller's
 * problem, as for NumPy arrays.
 *
 * SLICES
 * ------
 * Slice bounds are int64_t with RT_SLICE_NONE (INT64_MIN) for Python's
 * None; they are clamped as PySlice_AdjustIndices does.
 */
#ifndef HPCJIT_CONTAINERS_H
#define HPCJIT_CONTAINERS_H

#include <stdint.h>

#include "hpcjit/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- item descriptor ------------------------------------------------------
 * NULL function pointers mean: incref/decref: POD item (nothing to do);
 * hash: not hashable (a dict/set of such keys cannot be created); eq:
 * compare the bytes (right for integers and tuples of integers, wrong for
 * floats: 0.0 == -0.0 and NaN != NaN, so float items need rt_eq_f64...);
 * lt: not orderable (sort, min/max, <, index-free algorithms refuse with
 * TypeError).  `repr` appends repr(item) to the current text of the
 * calling thread (hpcjit/text.h, rt_text_*): KeyError messages render the
 * key with it; NULL: keys of the rt_ops_* number descriptors are rendered
 * by the runtime, others leave the message empty. */
typedef struct RtItemOps {
    int64_t size, align;                 /* bytes; align a power of 2 <= 16 */
    void (*incref)(void *item);
    void (*decref)(void *item);
    uint64_t (*hash)(const void *item);  /* CPython's hash() as uint64_t */
    int (*eq)(const void *a, const void *b);  /* 1 if a == b */
    int (*lt)(const void *a, const void *b);  /* 1 if a < b  */
    void (*repr)(const void *item);
} RtItemOps;

/* Descriptors of number items (hash == CPython's, eq/lt as Python's ==/<)
 * and of items that are one HjMemInfo * (nested containers, strings) or
 * start with one (arrays: HjArray's first field), for which only the
 * reference count is handled (no hash/eq/lt: the compiler supplies them). */
extern const RtItemOps rt_ops_i64, rt_ops_u64, rt_ops_i32, rt_ops_f64, rt_ops_f32, rt_ops_bool;
extern const RtItemOps rt_ops_meminfo;
/* str items (hpcjit/str.h): refcounted, hashed by rt_str_hash (equal
 * strings hash equally; not CPython's randomised hash(s)), compared and
 * ordered by code points, repr() as CPython's. */
extern const RtItemOps rt_ops_str;
uint64_t rt_hash_str(const void *item);
int rt_eq_str(const void *a, const void *b);
int rt_lt_str(const void *a, const void *b);

/* The functions behind them, for descriptors the compiler builds itself
 * (a tuple's descriptor calls rt_hash_* on its fields).  Items are read
 * unaligned-safe (memcpy). */
uint64_t rt_hash_i64(const void *item);
uint64_t rt_hash_u64(const void *item);
uint64_t rt_hash_i32(const void *item);
uint64_t rt_hash_f64(const void *item);
uint64_t rt_hash_f32(const void *item);
uint64_t rt_hash_bool(const void *item); /* uint8_t 0/1 */
int rt_eq_i64(const void *a, const void *b);
int rt_eq_i32(const void *a, const void *b);
int rt_eq_f64(const void *a, const void *b);
int rt_eq_f32(const void *a, const void *b);
int rt_eq_bool(const void *a, const void *b);
int rt_lt_i64(const void *a, const void *b);
int rt_lt_u64(const void *a, const void *b);
int rt_lt_i32(const void *a, const void *b);
int rt_lt_f64(const void *a, const void *b);
int rt_lt_f32(const void *a, const void *b);
int rt_lt_bool(const void *a, const void *b);
void rt_item_incref_mi(void *item); /* rt_incref(*(HjMemInfo **)item) */
void rt_item_decref_mi(void *item);

/* hash() of a number given by value (for tuple hashes built by compiled
 * code): ints, unsigned ints and floats as CPython. */
uint64_t rt_pyhash_int(int64_t v);
uint64_t rt_pyhash_uint(uint64_t v);
uint64_t rt_pyhash_double(double v);
/* CPython's tuple hash of n fields whose hashes are lanes[0..n). */
uint64_t rt_hash_tuple(const uint64_t *lanes, int64_t n);

/* ---- list -----------------------------------------------------------------
 * LAYOUT (compiled code may inline len, getitem/setitem and append):
 *   len(l)   = ((HjList *)mi->data)->len
 *   l[i]     = items + i * ops->size, 0 <= i < len (the compiler knows size)
 *   append fast path: if (len < cap) { ops->incref(copy of item) if any;
 *                                       memcpy(items + len*size, item, size);
 *                                       len++; } else rt_list_append(...)
 * `items` may move on any call that adds items. */
typedef struct HjList {
    int64_t len, cap;           /* items in use / allocated               */
    char *items;                /* cap * ops->size bytes (malloc)         */
    const RtItemOps *ops;
} HjList;

#define RT_SLICE_NONE INT64_MIN

static inline HjList *rt_list_of(HjMemInfo *mi) { return (HjList *)mi->data; }

/* A new empty list with room for `cap` items (>= 0). */
HjMemInfo *rt_list_new(const RtItemOps *ops, int64_t cap);
/* A new list of n items copied from data (stride bytes apart; pass
 * ops->size for contiguous data): list(array) / list(tuple). */
HjMemInfo *rt_list_from_strided(const RtItemOps *ops, const void *data, int64_t n, int64_t stride);
/* Copy the len items to dst (len * size bytes): np.array(list).  Borrowed
 * copies: a list of reference items is copied without incref. */
void rt_list_to_buffer(HjMemInfo *l, void *dst);
/* Make room for at least n items (0 / -1 MemoryError). */
int32_t rt_list_reserve(HjMemInfo *l, int64_t n);
int32_t rt_list_append(HjMemInfo *l, const void *item);
/* l.extend(other) (other may be l) and the same from n contiguous items. */
int32_t rt_list_extend(HjMemInfo *l, HjMemInfo *other);
int32_t rt_list_extend_buf(HjMemInfo *l, const void *items, int64_t n);
int32_t rt_list_insert(HjMemInfo *l, int64_t i, const void *item); /* i clamped */
/* Borrowed pointer to l[i] (i already normalised by the caller, unchecked). */
static inline void *rt_list_item(HjMemInfo *l, int64_t i)
{
    HjList *L = rt_list_of(l);
    return L->items + i * L->ops->size;
}
/* out = l[i] (negative i counts from the end; a new reference); IndexError
 * "list index out of range". */
int32_t rt_list_getitem(HjMemInfo *l, int64_t i, void *out);
/* l[i] = item; IndexError "list assignment index out of range". */
int32_t rt_list_setitem(HjMemInfo *l, int64_t i, const void *item);
/* out = l.pop(i) (use -1 for pop()); IndexError "pop from empty list" /
 * "pop index out of range". */
int32_t rt_list_pop(HjMemInfo *l, int64_t i, void *out);
/* del l[i]; IndexError "list assignment index out of range". */
int32_t rt_list_delitem(HjMemInfo *l, int64_t i);
/* l.remove(x); ValueError "list.remove(x): x not in list". */
int32_t rt_list_remove(HjMemInfo *l, const void *item);
/* l.index(x, start, stop) (bounds RT_SLICE_NONE or clamped as CPython);
 * ValueError "list.index(x): x not in list". */
int64_t rt_list_index(HjMemInfo *l, const void *item, int64_t start, int64_t stop);
int64_t rt_list_count(HjMemInfo *l, const void *item);
int32_t rt_list_contains(HjMemInfo *l, const void *item); /* 1 or 0 */
void rt_list_reverse(HjMemInfo *l);
/* l.sort(reverse=reverse): stable, ordered by `lt` (NULL: ops->lt;
 * TypeError if both are NULL).  reverse keeps equal items in their order,
 * as CPython (reverse, stable sort, reverse).  Lists of int64/float64 with
 * the runtime's lt take a fast path.  NaNs: with Python's `<` a NaN is
 * neither less nor greater than anything, so CPython's result depends on
 * its algorithm's comparison sequence; ours is a stable merge sort with the
 * same `<` (a float list with NaNs gives a permutation in which the
 * NaN-free stretches between NaNs are sorted; it may differ from CPython's).
 * 0, or -1 with MemoryError / TypeError pending. */
int32_t rt_list_sort(HjMemInfo *l, int (*lt)(const void *, const void *), int32_t reverse);
/* l.sort(key=..., reverse=...): `keys` (same length, computed by compiled
 * code, ordered by its own ops->lt) decides the order; l is permuted and
 * keys too.  ValueError "list modified during sort" if lengths differ. */
int32_t rt_list_sort_keyed(HjMemInfo *l, HjMemInfo *keys, int32_t reverse);
/* l[start:stop:step] as a new list; ValueError "slice step cannot be zero". */
HjMemInfo *rt_list_getslice(HjMemInfo *l, int64_t start, int64_t stop, int64_t step);
/* l[start:stop:step] = src (src may be l).  Step 1: any length; else
 * ValueError "attempt to assign sequence of size 2 to extended slice of
 * size 3". */
int32_t rt_list_setslice(HjMemInfo *l, int64_t start, int64_t stop, int64_t step, HjMemInfo *src);
int32_t rt_list_delslice(HjMemInfo *l, int64_t start, int64_t stop, int64_t step);
HjMemInfo *rt_list_concat(HjMemInfo *a, HjMemInfo *b);   /* a + b       */
HjMemInfo *rt_list_repeat(HjMemInfo *a, int64_t n);      /* a * n       */
int32_t rt_list_irepeat(HjMemInfo *l, int64_t n);        /* l *= n      */
HjMemInfo *rt_list_copy(HjMemInfo *l);
void rt_list_clear(HjMemInfo *l);
/* Rich comparison of two lists of the same item type, as Python: op one of
 * RT_CMP_*; 1 or 0, or -1 with TypeError when ordering needs a missing lt. */
enum { RT_CMP_LT, RT_CMP_LE, RT_CMP_EQ, RT_CMP_NE, RT_CMP_GT, RT_CMP_GE };
int32_t rt_list_richcompare(HjMemInfo *a, HjMemInfo *b, int32_t op);
int32_t rt_list_eq(HjMemInfo *a, HjMemInfo *b); /* 1 or 0 */

/* ---- dict -----------------------------------------------------------------
 * Insertion-ordered compact hash table (CPython 3.6+): an index table of
 * int32 slots pointing into a dense array of entries {hash, key, value}.
 * Iteration follows insertion order.  The struct is opaque except `len`,
 * the first field: len(d) = *(int64_t *)mi->data.  At most 2^30 entries
 * (MemoryError beyond). */
typedef struct HjDict HjDict;

/* A new dict; `n_hint` items fit without resizing.  value_ops may describe
 * size 0 values. */
HjMemInfo *rt_dict_new(const RtItemOps *key_ops, const RtItemOps *value_ops, int64_t n_hint);
int64_t rt_dict_len(HjMemInfo *d);
/* Borrowed pointer to the value of key, or NULL (no exception). */
void *rt_dict_lookup(HjMemInfo *d, const void *key);
/* As lookup, but NULL raises KeyError(key) (see RtItemOps.repr). */
void *rt_dict_getitem(HjMemInfo *d, const void *key);
/* d[key] = value. */
int32_t rt_dict_setitem(HjMemInfo *d, const void *key, const void *value);
/* out = d.get(key, dflt) (a new reference); 1 if found, 0 if the default. */
int32_t rt_dict_get(HjMemInfo *d, const void *key, const void *dflt, void *out);
/* d.setdefault(key, dflt): borrowed pointer to the value now stored. */
void *rt_dict_setdefault(HjMemInfo *d, const void *key, const void *dflt);
/* out = d.pop(key) (the dict's reference moves to out); KeyError. */
int32_t rt_dict_pop(HjMemInfo *d, const void *key, void *out);
/* out = d.pop(key, dflt): 1 if found, 0 if out is the default (increfed). */
int32_t rt_dict_pop_default(HjMemInfo *d, const void *key, const void *dflt, void *out);
/* d.popitem() (the last inserted); KeyError "popitem(): dictionary is empty". */
int32_t rt_dict_popitem(HjMemInfo *d, void *key_out, void *value_out);
int32_t rt_dict_delitem(HjMemInfo *d, const void *key); /* KeyError */
int32_t rt_dict_contains(HjMemInfo *d, const void *key); /* 1 or 0 */
void rt_dict_clear(HjMemInfo *d);
HjMemInfo *rt_dict_copy(HjMemInfo *d);
int32_t rt_dict_update(HjMemInfo *d, HjMemInfo *other); /* same types */
/* 1 if equal (same keys, values equal by value_ops eq or bytes), else 0. */
int32_t rt_dict_eq(HjMemInfo *a, HjMemInfo *b);
/* list(d.keys()) / list(d.values()) with the dict's ops. */
HjMemInfo *rt_dict_keys(HjMemInfo *d);
HjMemInfo *rt_dict_values(HjMemInfo *d);

/* Iteration: `RtDictIter it = {0, rt_dict_len(d)};` then
 *   while ((r = rt_dict_iter_next(d, &it, &k, &v)) == 1) ...
 * 1: *key and *value are borrowed pointers to the next entry (either may be
 * NULL if not wanted: keys(), values(), items() are the same walk);
 * 0: done; -1: RuntimeError "dictionary changed size during iteration". */
typedef struct RtDictIter {
    int64_t pos;  /* next entry of the dense array */
    int64_t len;  /* len(d) when iteration began  */
} RtDictIter;
int32_t rt_dict_iter_next(HjMemInfo *d, RtDictIter *it, void **key, void **value);

/* ---- set ------------------------------------------------------------------
 * CPython's set table (open addressing, 9 linear probes then perturbation,
 * the same sizes and resize rule), so a set of numbers built by the same
 * operations iterates in the same order as in CPython.  Opaque except
 * `len`, the first field.  Binary operations take two sets of the same
 * item type. */
typedef struct HjSet HjSet;

HjMemInfo *rt_set_new(const RtItemOps *ops, int64_t n_hint);
int64_t rt_set_len(HjMemInfo *s);
int32_t rt_set_add(HjMemInfo *s, const void *item);
/* add each of n contiguous items: set literals, set(list) */
int32_t rt_set_add_buf(HjMemInfo *s, const void *items, int64_t n);
int32_t rt_set_discard(HjMemInfo *s, const void *item); /* 1 removed, 0 absent */
int32_t rt_set_remove(HjMemInfo *s, const void *item);  /* KeyError(item) */
/* out = s.pop() (the set's reference moves to out); KeyError "pop from an
 * empty set". */
int32_t rt_set_pop(HjMemInfo *s, void *out);
int32_t rt_set_contains(HjMemInfo *s, const void *item); /* 1 or 0 */
void rt_set_clear(HjMemInfo *s);
HjMemInfo *rt_set_copy(HjMemInfo *s);
HjMemInfo *rt_set_to_list(HjMemInfo *s); /* list(s), iteration order */
HjMemInfo *rt_set_union(HjMemInfo *a, HjMemInfo *b);                /* a | b */
HjMemInfo *rt_set_intersection(HjMemInfo *a, HjMemInfo *b);         /* a & b */
HjMemInfo *rt_set_difference(HjMemInfo *a, HjMemInfo *b);           /* a - b */
HjMemInfo *rt_set_symmetric_difference(HjMemInfo *a, HjMemInfo *b); /* a ^ b */
int32_t rt_set_update(HjMemInfo *a, HjMemInfo *b);                     /* |= */
int32_t rt_set_intersection_update(HjMemInfo *a, HjMemInfo *b);        /* &= */
int32_t rt_set_difference_update(HjMemInfo *a, HjMemInfo *b);          /* -= */
int32_t rt_set_symmetric_difference_update(HjMemInfo *a, HjMemInfo *b); /* ^= */
int32_t rt_set_issubset(HjMemInfo *a, HjMemInfo *b);   /* a <= b: 1 or 0 */
int32_t rt_set_issuperset(HjMemInfo *a, HjMemInfo *b); /* a >= b */
int32_t rt_set_isdisjoint(HjMemInfo *a, HjMemInfo *b);
int32_t rt_set_eq(HjMemInfo *a, HjMemInfo *b);

/* Iteration in table order: `RtSetIter it = {0, rt_set_len(s)};` then
 * rt_set_iter_next(s, &it, &item) == 1 while items remain (borrowed
 * pointer); 0 at the end; -1: RuntimeError "Set changed size during
 * iteration". */
typedef struct RtSetIter {
    int64_t pos, len;
} RtSetIter;
int32_t rt_set_iter_next(HjMemInfo *s, RtSetIter *it, void **item);

#ifdef __cplusplus
}
#endif
#endif
