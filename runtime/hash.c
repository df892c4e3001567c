/* hash.c - CPython-compatible hashes of numbers and tuples, the item
 * descriptors of number items (hpcjit/containers.h) and the helpers that
 * list.c, dict.c and set.c share.
 *
 * CPython hashes a number by its value modulo the Mersenne prime 2^61 - 1
 * (Python/pyhash.c), so hash(1) == hash(1.0) == hash(True); -1 is never a
 * hash (it becomes -2).  A tuple's hash is the xxHash-style combination of
 * its fields' hashes (Objects/tupleobject.c, Python >= 3.8). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "containers_int.h"
#include "hpcjit/text.h"

#define HASH_BITS 61
#define HASH_MOD ((UINT64_C(1) << HASH_BITS) - 1)
#define HASH_INF UINT64_C(314159)

uint64_t rt_pyhash_uint(uint64_t v)
{
    /* 2^61 == 1 (mod 2^61 - 1): fold the top 3 bits onto the rest */
    uint64_t x = (v & HASH_MOD) + (v >> HASH_BITS);
    if (x >= HASH_MOD)
        x -= HASH_MOD;
    return x; /* < 2^61: never -1 */
}

uint64_t rt_pyhash_int(int64_t v)
{
    if (v >= 0)
        return rt_pyhash_uint((uint64_t)v);
    uint64_t h = 0 - rt_pyhash_uint(0 - (uint64_t)v);
    return h == UINT64_MAX ? UINT64_MAX - 1 : h;
}

uint64_t rt_pyhash_double(double v)
{
    if (isnan(v))
        return 0; /* CPython >= 3.10: the object's address; see containers.h */
    if (isinf(v))
        return v > 0 ? HASH_INF : 0 - HASH_INF;
    /* integral values hash as the int (the common case, and cheaper) */
    if (v >= -9.2e18 && v <= 9.2e18) {
        int64_t i = (int64_t)v;
        if ((double)i == v)
            return rt_pyhash_int(i);
    }
    int e;
    double m = frexp(v, &e);
    uint64_t sign = 1;
    if (m < 0) {
        sign = UINT64_MAX; /* -1 */
        m = -m;
    }
    uint64_t x = 0;
    while (m) {
        x = ((x << 28) & HASH_MOD) | x >> (HASH_BITS - 28);
        m *= 268435456.0; /* 2**28 */
        e -= 28;
        uint64_t y = (uint64_t)m;
        m -= (double)y;
        x += y;
        if (x >= HASH_MOD)
            x -= HASH_MOD;
    }
    e = e >= 0 ? e % HASH_BITS : HASH_BITS - 1 - ((-1 - e) % HASH_BITS);
    x = ((x << e) & HASH_MOD) | x >> (HASH_BITS - e);
    x = x * sign;
    return x == UINT64_MAX ? UINT64_MAX - 1 : x;
}

#define XXPRIME_1 UINT64_C(11400714785074694791)
#define XXPRIME_2 UINT64_C(14029467366897019727)
#define XXPRIME_5 UINT64_C(2870177450012600261)

uint64_t rt_hash_tuple(const uint64_t *lanes, int64_t n)
{
    uint64_t acc = XXPRIME_5;
    for (int64_t i = 0; i < n; i++) {
        acc += lanes[i] * XXPRIME_2;
        acc = (acc << 31) | (acc >> 33);
        acc *= XXPRIME_1;
    }
    acc += (uint64_t)n ^ (XXPRIME_5 ^ UINT64_C(3527539));
    return acc == UINT64_MAX ? UINT64_C(1546275796) : acc;
}

/* ---- per-type functions (items may be unaligned: memcpy) ------------- */
#define LOAD(T, p) ({ T v_; memcpy(&v_, (p), sizeof v_); v_; })

uint64_t rt_hash_i64(const void *item) { return rt_pyhash_int(LOAD(int64_t, item)); }
uint64_t rt_hash_u64(const void *item) { return rt_pyhash_uint(LOAD(uint64_t, item)); }
uint64_t rt_hash_i32(const void *item) { return rt_pyhash_int(LOAD(int32_t, item)); }
uint64_t rt_hash_f64(const void *item) { return rt_pyhash_double(LOAD(double, item)); }
uint64_t rt_hash_f32(const void *item) { return rt_pyhash_double(LOAD(float, item)); }
uint64_t rt_hash_bool(const void *item) { return *(const uint8_t *)item != 0; }

int rt_eq_i64(const void *a, const void *b) { return LOAD(int64_t, a) == LOAD(int64_t, b); }
int rt_eq_i32(const void *a, const void *b) { return LOAD(int32_t, a) == LOAD(int32_t, b); }
int rt_eq_f64(const void *a, const void *b) { return LOAD(double, a) == LOAD(double, b); }
int rt_eq_f32(const void *a, const void *b) { return LOAD(float, a) == LOAD(float, b); }
int rt_eq_bool(const void *a, const void *b) { return !*(const uint8_t *)a == !*(const uint8_t *)b; }

int rt_lt_i64(const void *a, const void *b) { return LOAD(int64_t, a) < LOAD(int64_t, b); }
int rt_lt_u64(const void *a, const void *b) { return LOAD(uint64_t, a) < LOAD(uint64_t, b); }
int rt_lt_i32(const void *a, const void *b) { return LOAD(int32_t, a) < LOAD(int32_t, b); }
int rt_lt_f64(const void *a, const void *b) { return LOAD(double, a) < LOAD(double, b); }
int rt_lt_f32(const void *a, const void *b) { return LOAD(float, a) < LOAD(float, b); }
int rt_lt_bool(const void *a, const void *b) { return !*(const uint8_t *)a && *(const uint8_t *)b; }

void rt_item_incref_mi(void *item) { rt_incref(LOAD(HjMemInfo *, item)); }
void rt_item_decref_mi(void *item) { rt_decref(LOAD(HjMemInfo *, item)); }

static void repr_i64(const void *item) { rt_text_int(LOAD(int64_t, item)); }
static void repr_u64(const void *item) { rt_text_uint(LOAD(uint64_t, item)); }
static void repr_i32(const void *item) { rt_text_int(LOAD(int32_t, item)); }
static void repr_f64(const void *item) { rt_text_f64(LOAD(double, item)); }
static void repr_f32(const void *item) { rt_text_f32(LOAD(float, item)); }
static void repr_bool(const void *item) { rt_text_bool(*(const uint8_t *)item != 0); }

/* eq NULL for integers: the tables compare their bytes inline */
const RtItemOps rt_ops_i64 = {8, 8, NULL, NULL, rt_hash_i64, NULL, rt_lt_i64, repr_i64};
const RtItemOps rt_ops_u64 = {8, 8, NULL, NULL, rt_hash_u64, NULL, rt_lt_u64, repr_u64};
const RtItemOps rt_ops_i32 = {4, 4, NULL, NULL, rt_hash_i32, NULL, rt_lt_i32, repr_i32};
const RtItemOps rt_ops_f64 = {8, 8, NULL, NULL, rt_hash_f64, rt_eq_f64, rt_lt_f64, repr_f64};
const RtItemOps rt_ops_f32 = {4, 4, NULL, NULL, rt_hash_f32, rt_eq_f32, rt_lt_f32, repr_f32};
const RtItemOps rt_ops_bool = {1, 1, NULL, NULL, rt_hash_bool, rt_eq_bool, rt_lt_bool, repr_bool};
const RtItemOps rt_ops_meminfo = {sizeof(HjMemInfo *), sizeof(HjMemInfo *), rt_item_incref_mi,
                                  rt_item_decref_mi, NULL, NULL, NULL, NULL};

/* ---- shared helpers --------------------------------------------------- */
HjMemInfo *ct_alloc(size_t size, void (*dtor)(HjMemInfo *))
{
    HjMemInfo *mi = rt_alloc((int64_t)size);
    if (!mi)
        return NULL;
    memset(mi->data, 0, size);
    mi->dtor = dtor;
    return mi;
}

int ct_check_ops(const RtItemOps *ops, int need_hash)
{
    if (!ops || ops->size < 0 || ops->align < 1 || ops->align > 16 || (ops->align & (ops->align - 1))) {
        rt_raise("SystemError", "hpcjit: bad container item descriptor");
        return -1;
    }
    if (need_hash && !ops->hash) {
        rt_raise("TypeError", "unhashable type");
        return -1;
    }
    return 0;
}

void ct_raise_key(const RtItemOps *ops, const void *key)
{
    if (!ops->repr) {
        rt_raise("KeyError", "");
        return;
    }
    rt_text_begin();
    ops->repr(key);
    rt_text_raise("KeyError");
}

void *ct_malloc_n(int64_t n, int64_t size)
{
    if (n < 0 || (size > 0 && n > (int64_t)(PTRDIFF_MAX / 2) / size)) {
        rt_raise("MemoryError", "");
        return NULL;
    }
    size_t bytes = (size_t)(n * size);
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        rt_raise("MemoryError", "");
    return p;
}

void *ct_realloc_n(void *p, int64_t n, int64_t size)
{
    if (n < 0 || (size > 0 && n > (int64_t)(PTRDIFF_MAX / 2) / size)) {
        rt_raise("MemoryError", "");
        return NULL;
    }
    size_t bytes = (size_t)(n * size);
    void *q = realloc(p, bytes ? bytes : 1);
    if (!q)
        rt_raise("MemoryError", "");
    return q;
}
