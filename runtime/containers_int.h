/* containers_int.h - private helpers shared by list.c, dict.c, set.c and
 * hash.c (not installed; compiled code uses hpcjit/containers.h). */
#ifndef HPCJIT_CONTAINERS_INT_H
#define HPCJIT_CONTAINERS_INT_H

#include <stdint.h>
#include <string.h>

#include "hpcjit/containers.h"

/* A MemInfo whose data is a zeroed struct of `size` bytes and whose
 * destructor is `dtor` (which must end with free(mi): the struct shares
 * rt_alloc's malloc block with the header).  NULL with MemoryError. */
HjMemInfo *ct_alloc(size_t size, void (*dtor)(HjMemInfo *));
/* ValueError for a descriptor compiled code should never produce. */
int ct_check_ops(const RtItemOps *ops, int need_hash);
/* KeyError(key), rendered with ops->repr or the number descriptors. */
void ct_raise_key(const RtItemOps *ops, const void *key);
/* malloc of n * size bytes with overflow check; NULL with MemoryError. */
void *ct_malloc_n(int64_t n, int64_t size);
void *ct_realloc_n(void *p, int64_t n, int64_t size);

static inline void it_incref(const RtItemOps *ops, void *item)
{
    if (ops->incref)
        ops->incref(item);
}

static inline void it_decref(const RtItemOps *ops, void *item)
{
    if (ops->decref)
        ops->decref(item);
}

static inline int it_eq(const RtItemOps *ops, const void *a, const void *b)
{
    return ops->eq ? ops->eq(a, b) : memcmp(a, b, (size_t)ops->size) == 0;
}

/* rt_pyhash_int, inlined where the tables hash int64 keys */
static inline uint64_t ct_pyhash_i64(int64_t v)
{
    const uint64_t mod = (UINT64_C(1) << 61) - 1;
    uint64_t u = v >= 0 ? (uint64_t)v : 0 - (uint64_t)v;
    uint64_t x = (u & mod) + (u >> 61);
    if (x >= mod)
        x -= mod;
    if (v >= 0)
        return x;
    x = 0 - x;
    return x == UINT64_MAX ? UINT64_MAX - 1 : x;
}

/* The hash a table stores: ops->hash with -1 mapped to -2 as CPython does
 * (so -1 can mark deleted entries). */
static inline uint64_t it_hash(const RtItemOps *ops, const void *key)
{
    uint64_t h = ops->hash(key);
    return h == UINT64_MAX ? UINT64_MAX - 1 : h;
}

/* incref each of n items stored `size` apart. */
static inline void it_incref_n(const RtItemOps *ops, char *p, int64_t n)
{
    if (ops->incref)
        for (int64_t i = 0; i < n; i++)
            ops->incref(p + i * ops->size);
}

static inline void it_decref_n(const RtItemOps *ops, char *p, int64_t n)
{
    if (ops->decref)
        for (int64_t i = 0; i < n; i++)
            ops->decref(p + i * ops->size);
}

#endif
