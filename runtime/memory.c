/* memory.c - reference-counted array memory (rt_ memory API).
 *
 * One malloc holds the HjMemInfo header followed by the data, rounded up
 * to a 64-byte boundary: one allocation per array and no separate free of
 * the data.  Counts are C11 atomics because compiled code may run without
 * the GIL on several threads (nogil, prange). */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hpcjit/runtime.h"

#define RT_ALIGN 64

static atomic_llong n_alloc;
static atomic_llong n_free;

/* The refcnt field is a plain int64_t in the shared layout (compiled code
 * reads it); every access from C goes through this atomic view. */
static inline _Atomic int64_t *refcnt_of(HjMemInfo *mi)
{
    return (_Atomic int64_t *)&mi->refcnt;
}

static HjMemInfo *alloc_block(int64_t nbytes, int zero)
{
    if (nbytes < 0) {
        rt_raise("ValueError", "negative dimensions are not allowed");
        return NULL;
    }
    /* header + worst-case alignment padding must not overflow size_t */
    const uint64_t overhead = sizeof(HjMemInfo) + RT_ALIGN;
    if ((uint64_t)nbytes > (uint64_t)PTRDIFF_MAX - overhead) {
        rt_raise("MemoryError", "Allocation failed (probably too large).");
        return NULL;
    }
    size_t total = (size_t)nbytes + (size_t)overhead;
    char *block = zero ? calloc(1, total) : malloc(total);
    if (!block) {
        rt_raise("MemoryError", "Allocation failed (probably too large).");
        return NULL;
    }
    HjMemInfo *mi = (HjMemInfo *)block;
    uintptr_t p = (uintptr_t)(block + sizeof(HjMemInfo));
    p = (p + RT_ALIGN - 1) & ~(uintptr_t)(RT_ALIGN - 1);
    atomic_init(refcnt_of(mi), 1);
    mi->data = (void *)p;
    mi->size = nbytes;
    mi->dtor = NULL;
    mi->dtor_info = NULL;
    atomic_fetch_add_explicit(&n_alloc, 1, memory_order_relaxed);
    return mi;
}

HjMemInfo *rt_alloc(int64_t nbytes) { return alloc_block(nbytes, 0); }

HjMemInfo *rt_alloc_zeroed(int64_t nbytes) { return alloc_block(nbytes, 1); }

void rt_incref(HjMemInfo *mi)
{
    if (mi)
        atomic_fetch_add_explicit(refcnt_of(mi), 1, memory_order_relaxed);
}

void rt_decref(HjMemInfo *mi)
{
    if (!mi)
        return;
    /* release/acquire so that writes to the data by other owners happen
     * before the free */
    if (atomic_fetch_sub_explicit(refcnt_of(mi), 1, memory_order_release) != 1)
        return;
    atomic_thread_fence(memory_order_acquire);
    atomic_fetch_add_explicit(&n_free, 1, memory_order_relaxed);
    if (mi->dtor)
        mi->dtor(mi); /* a custom owner releases its data and the header */
    else
        free(mi);
}

RtMemStats rt_memstats(void)
{
    RtMemStats s;
    s.alloc = atomic_load_explicit(&n_alloc, memory_order_relaxed);
    s.free = atomic_load_explicit(&n_free, memory_order_relaxed);
    return s;
}
