/* memory.c - reference-counted array memory (rt_ memory API).
 *
 * Small arrays: one malloc holds the HjMemInfo header followed by the
 * data, rounded up to a 64-byte boundary: one allocation per array and no
 * separate free of the data.
 *
 * Large arrays (RT_LARGE bytes and more) are mmap'ed on a 2 MiB boundary
 * with MADV_HUGEPAGE (NumPy does the same above 4 MiB), and a freed large
 * block goes to a small cache (RT_CACHE_BLOCKS blocks, RT_CACHE_BYTES in
 * all) that the next large allocation of about its size reuses.  Without
 * it every array expression on arrays past glibc's mmap threshold gets a
 * fresh mapping and pays one page fault per 4 KiB page, which costs more
 * than the fused loop itself.  The cache is guarded by a mutex (frees
 * happen on any thread) and emptied by rt_memory_shutdown().  The data of
 * a large block starts RT_COLOUR bytes into its first page: see there.
 *
 * Medium arrays (RT_MEDIUM bytes up to RT_LARGE) are malloc'ed, and a
 * freed one goes to a cache of its own (the same reuse rule) instead of
 * back to glibc: past glibc's dynamic mmap threshold such blocks come from
 * the heap's top, and a free that leaves more than the trim threshold
 * (twice the mmap threshold, 1 MiB after a 512 KiB block) free at the top
 * gives the pages back, so the next array expression faults them in again
 * (NPBench stockham_fft_n at S, 512 KiB temporaries: 770 page faults a
 * call, Numba's process 1).  Not in HPCJIT_DEBUG_MEMORY mode, whose
 * quarantine holds plain blocks back itself.
 *
 * The allocation and free counts (rt_memstats) are kept per thread: compiled
 * code may allocate on several threads at once (nogil, prange), and one
 * pair of shared atomic counters had every allocation and free of a prange
 * body take the counters' cache line from the other core (NPBench
 * floyd_warshall_npr: a temporary per row, half the time in the two
 * increments).  Each thread adds to its own cache line; rt_memstats sums
 * them. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "hpcjit/runtime.h"
#include "memdebug.h"

#define RT_ALIGN 64

/* One thread's counts.  Only its thread writes them (a plain load and
 * store, no locked add); rt_memstats reads every slot.  A slot outlives its
 * thread: at the thread's exit it is marked free and the next new thread
 * takes it over, counts and all, so the sums stay right and slots are not
 * made per thread ever started. */
typedef struct Counts {
    _Alignas(64) atomic_llong alloc;
    atomic_llong free;
    atomic_int in_use;
    struct Counts *next; /* set once, before the slot is published */
} Counts;

static _Atomic(Counts *) all_counts;
static _Thread_local Counts *my_counts;
static pthread_key_t counts_key;
static pthread_once_t counts_once = PTHREAD_ONCE_INIT;

/* Shared by the threads that could not get a slot of their own (out of
 * memory): their counts may then race, but are still summed. */
static Counts spare;

static void release_counts(void *c)
{
    my_counts = NULL;
    atomic_store_explicit(&((Counts *)c)->in_use, 0, memory_order_release);
}

static void make_counts_key(void)
{
    (void)pthread_key_create(&counts_key, release_counts);
    atomic_init(&spare.in_use, 1); /* never released, never claimed */
    spare.next = atomic_load_explicit(&all_counts, memory_order_relaxed);
    atomic_store_explicit(&all_counts, &spare, memory_order_release);
}

static Counts *claim_counts(void)
{
    pthread_once(&counts_once, make_counts_key);
    Counts *c = NULL;
    for (Counts *k = atomic_load_explicit(&all_counts, memory_order_acquire); k && !c; k = k->next) {
        int idle = 0;
        if (atomic_compare_exchange_strong(&k->in_use, &idle, 1))
            c = k;
    }
    if (!c) {
        if (posix_memalign((void **)&c, 64, sizeof *c) != 0)
            return my_counts = &spare;
        memset(c, 0, sizeof *c);
        atomic_init(&c->in_use, 1);
        Counts *head = atomic_load_explicit(&all_counts, memory_order_relaxed);
        do
            c->next = head;
        while (!atomic_compare_exchange_weak_explicit(&all_counts, &head, c, memory_order_release,
                                                      memory_order_relaxed));
    }
    (void)pthread_setspecific(counts_key, c);
    my_counts = c;
    return c;
}

static inline void count_one(int is_free)
{
    Counts *c = my_counts;
    if (__builtin_expect(!c, 0))
        c = claim_counts();
    atomic_llong *n = is_free ? &c->free : &c->alloc;
    atomic_store_explicit(n, atomic_load_explicit(n, memory_order_relaxed) + 1, memory_order_relaxed);
}

/* The refcnt field is a plain int64_t in the shared layout (compiled code
 * reads it); every access from C goes through this atomic view. */
static inline _Atomic int64_t *refcnt_of(HjMemInfo *mi)
{
    return (_Atomic int64_t *)&mi->refcnt;
}

#define RT_LARGE (4u << 20)          /* bytes, header included */
#define RT_HUGE (2u << 20)           /* the huge-page size on x86-64 and aarch64 */
/* Page offset of a large array's data (past the header).  glibc puts the
 * data of every mmap'ed malloc chunk, hence of NumPy's large arrays, 16
 * bytes into a page; ours would sit at 64, and a loop that streams through
 * both at the same index then has loads and stores 48 bytes apart modulo
 * 4 KiB: the CPU takes such a load for one that depends on the store still
 * in flight (4K aliasing), and the two streams share L1 sets.  Half a page
 * apart neither happens (blur_f_order: 0.87 -> 0.73 ms). */
#define RT_COLOUR 2048u
#define RT_CACHE_BLOCKS 8
#define RT_CACHE_BYTES (256u << 20)
#define RT_MEDIUM (128u << 10)       /* bytes, header included: glibc's default mmap threshold */
#define RT_MEDIUM_BLOCKS 16
#define RT_MEDIUM_BYTES (32u << 20)
#define RT_MAX_BLOCKS 16 /* the larger of the two counts */

typedef struct Large {
    void *base;   /* the block; the HjMemInfo header sits at its start */
    size_t size;  /* its length */
} Large;

/* Freed blocks kept for reuse, oldest first; guarded by cache_lock. */
typedef struct Cache {
    Large b[RT_MAX_BLOCKS];
    int n;
    size_t bytes;
    int max_n;        /* at most RT_MAX_BLOCKS */
    size_t max_bytes;
} Cache;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static Cache large_cache = {.max_n = RT_CACHE_BLOCKS, .max_bytes = RT_CACHE_BYTES};
static Cache medium_cache = {.max_n = RT_MEDIUM_BLOCKS, .max_bytes = RT_MEDIUM_BYTES};
static int cache_closed;

/* Under cache_lock: keeps *b in c (b->base becomes NULL) unless the cache
 * is closed or b is larger than all of it; *out is the oldest block it had
 * to let go of, or NULL.  The caller releases both outside the lock. */
static void cache_put(Cache *c, Large *b, Large *out)
{
    out->base = NULL;
    if (cache_closed || b->size > c->max_bytes)
        return;
    if (c->n == c->max_n || c->bytes + b->size > c->max_bytes) { /* make room */
        *out = c->b[0];
        memmove(c->b, c->b + 1, sizeof(Large) * (size_t)(c->n - 1));
        c->n--;
        c->bytes -= out->size;
    }
    if (c->n < c->max_n && c->bytes + b->size <= c->max_bytes) {
        c->b[c->n++] = *b;
        c->bytes += b->size;
        b->base = NULL;
    }
}

/* Under cache_lock: the smallest cached block of at least `size` bytes and
 * less than twice that, taken out of c (its length in *got), or NULL. */
static void *cache_get(Cache *c, size_t size, size_t *got)
{
    int best = -1;
    for (int i = 0; i < c->n; i++)
        if (c->b[i].size >= size && c->b[i].size / 2 < size && (best < 0 || c->b[i].size < c->b[best].size))
            best = i;
    if (best < 0)
        return NULL;
    void *p = c->b[best].base;
    *got = c->b[best].size;
    c->bytes -= *got;
    memmove(c->b + best, c->b + best + 1, sizeof(Large) * (size_t)(c->n - best - 1));
    c->n--;
    return p;
}

/* A fresh mapping of `size` bytes (a multiple of RT_HUGE) starting on a
 * 2 MiB boundary, so that transparent huge pages can back all of it. */
static void *map_large(size_t size)
{
    size_t len = size + RT_HUGE;
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    uintptr_t a = ((uintptr_t)p + RT_HUGE - 1) & ~(uintptr_t)(RT_HUGE - 1);
    size_t head = a - (uintptr_t)p, tail = len - head - size;
    if (head)
        munmap(p, head);
    if (tail)
        munmap((char *)a + size, tail);
#ifdef MADV_HUGEPAGE
    madvise((void *)a, size, MADV_HUGEPAGE); /* advice only: failure is harmless */
#endif
    return (void *)a;
}

static void free_large(HjMemInfo *mi)
{
    Large b = {mi, (size_t)(uintptr_t)mi->dtor_info}, out;
    pthread_mutex_lock(&cache_lock);
    cache_put(&large_cache, &b, &out);
    pthread_mutex_unlock(&cache_lock);
    if (out.base)
        munmap(out.base, out.size);
    if (b.base)
        munmap(b.base, b.size);
}

/* A cached block of at least `size` bytes and less than twice that (the
 * smallest such), or a new mapping. */
static void *get_large(size_t size, size_t *got, int *fresh)
{
    pthread_mutex_lock(&cache_lock);
    void *p = cache_get(&large_cache, size, got);
    pthread_mutex_unlock(&cache_lock);
    if (p) {
        *fresh = 0;
        return p;
    }
    *fresh = 1;
    *got = size;
    return map_large(size);
}

static void free_medium(HjMemInfo *mi)
{
    Large b = {mi, (size_t)(uintptr_t)mi->dtor_info}, out;
    pthread_mutex_lock(&cache_lock);
    cache_put(&medium_cache, &b, &out);
    pthread_mutex_unlock(&cache_lock);
    free(out.base);
    free(b.base);
}

/* The medium counterpart of get_large: a cached block, or malloc's
 * (calloc's where `zero`). */
static void *get_medium(size_t size, int zero, size_t *got, int *fresh)
{
    pthread_mutex_lock(&cache_lock);
    void *p = cache_get(&medium_cache, size, got);
    pthread_mutex_unlock(&cache_lock);
    if (p) {
        *fresh = 0;
        return p;
    }
    *fresh = 1;
    *got = size;
    return zero ? calloc(1, size) : malloc(size);
}

void rt_memory_shutdown(void)
{
    pthread_mutex_lock(&cache_lock);
    for (int i = 0; i < large_cache.n; i++)
        munmap(large_cache.b[i].base, large_cache.b[i].size);
    for (int i = 0; i < medium_cache.n; i++)
        free(medium_cache.b[i].base);
    large_cache.n = medium_cache.n = 0;
    large_cache.bytes = medium_cache.bytes = 0;
    cache_closed = 1; /* blocks freed from now on go straight back */
    pthread_mutex_unlock(&cache_lock);
}

/* HPCJIT_DEBUG_MEMORY (memdebug.c), read once: the hooks below cost one
 * well-predicted branch when it is off. */
static int debug_on = -1;

static inline int debugging(void)
{
    int d = __atomic_load_n(&debug_on, __ATOMIC_RELAXED);
    if (__builtin_expect(d < 0, 0)) {
        d = rt_memdebug_on();
        __atomic_store_n(&debug_on, d, __ATOMIC_RELAXED);
    }
    return d;
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
    char *block = NULL;
    size_t mapped = 0, kept = 0, colour = 0;
    if (total >= RT_LARGE) {
        colour = RT_COLOUR;
        size_t size = (total + colour + RT_HUGE - 1) & ~(size_t)(RT_HUGE - 1);
        int fresh = 0;
        block = get_large(size, &mapped, &fresh);
        zero = zero && !fresh; /* a fresh mapping is zero already */
    } else if (total >= RT_MEDIUM && !debugging()) {
        int fresh = 0;
        block = get_medium(total, zero, &kept, &fresh);
        zero = zero && !fresh;
    } else {
        block = zero ? calloc(1, total) : malloc(total);
        zero = 0;
    }
    if (!block) {
        rt_raise("MemoryError", "Allocation failed (probably too large).");
        return NULL;
    }
    HjMemInfo *mi = (HjMemInfo *)block;
    uintptr_t p = (uintptr_t)(block + sizeof(HjMemInfo) + colour);
    p = (p + RT_ALIGN - 1) & ~(uintptr_t)(RT_ALIGN - 1);
    if (zero) /* a reused large block */
        memset((void *)p, 0, (size_t)nbytes);
    atomic_init(refcnt_of(mi), 1);
    mi->data = (void *)p;
    mi->size = nbytes;
    /* a large block returns to the cache through its destructor; the
     * mapping's length rides in dtor_info */
    mi->dtor = mapped ? free_large : kept ? free_medium : NULL;
    mi->dtor_info = mapped ? (void *)(uintptr_t)mapped : (void *)(uintptr_t)kept;
    count_one(0);
    return mi;
}

/* noinline: the owner recorded in debug mode is the caller's address */
__attribute__((noinline)) HjMemInfo *rt_alloc(int64_t nbytes)
{
    HjMemInfo *mi = alloc_block(nbytes, 0);
    if (mi && __builtin_expect(debugging(), 0))
        md_alloc(mi, nbytes, __builtin_return_address(0));
    return mi;
}

__attribute__((noinline)) HjMemInfo *rt_alloc_zeroed(int64_t nbytes)
{
    HjMemInfo *mi = alloc_block(nbytes, 1);
    if (mi && __builtin_expect(debugging(), 0))
        md_alloc(mi, nbytes, __builtin_return_address(0));
    return mi;
}

__attribute__((noinline)) HjMemInfo *rt_alloc_packed(int64_t nbytes)
{
    if (nbytes < 0 || (uint64_t)nbytes > (uint64_t)PTRDIFF_MAX - sizeof(HjMemInfo)) {
        rt_raise("MemoryError", "Allocation failed (probably too large).");
        return NULL;
    }
    HjMemInfo *mi = malloc(sizeof(HjMemInfo) + (size_t)nbytes);
    if (!mi) {
        rt_raise("MemoryError", "Allocation failed (probably too large).");
        return NULL;
    }
    atomic_init(refcnt_of(mi), 1);
    mi->data = mi + 1;
    mi->size = nbytes;
    mi->dtor = NULL; /* rt_decref frees the one block */
    mi->dtor_info = NULL;
    count_one(0);
    if (__builtin_expect(debugging(), 0))
        md_alloc(mi, nbytes, __builtin_return_address(0));
    return mi;
}

void rt_incref(HjMemInfo *mi)
{
    if (__builtin_expect(debugging(), 0) && mi && !md_check(mi, "incref", __builtin_return_address(0)))
        return;
    /* an immortal's count is only read: its memory may be shared by all */
    if (mi && atomic_load_explicit(refcnt_of(mi), memory_order_relaxed) < RT_REFCNT_IMMORTAL_MIN)
        atomic_fetch_add_explicit(refcnt_of(mi), 1, memory_order_relaxed);
}

void rt_decref(HjMemInfo *mi)
{
    int dbg = __builtin_expect(debugging(), 0);
    if (dbg && mi && !md_check(mi, "decref", __builtin_return_address(0)))
        return;
    if (!mi || atomic_load_explicit(refcnt_of(mi), memory_order_relaxed) >= RT_REFCNT_IMMORTAL_MIN)
        return;
    /* release/acquire so that writes to the data by other owners happen
     * before the free */
    if (atomic_fetch_sub_explicit(refcnt_of(mi), 1, memory_order_release) != 1)
        return;
    atomic_thread_fence(memory_order_acquire);
    count_one(1);
    if (dbg && md_free(mi))
        return; /* quarantined (memdebug.c) */
    if (mi->dtor)
        mi->dtor(mi); /* a custom owner releases its data and the header */
    else
        free(mi);
}

RtMemStats rt_memstats(void)
{
    RtMemStats s;
    s.alloc = s.free = 0;
    for (Counts *k = atomic_load_explicit(&all_counts, memory_order_acquire); k; k = k->next) {
        s.alloc += atomic_load_explicit(&k->alloc, memory_order_relaxed);
        s.free += atomic_load_explicit(&k->free, memory_order_relaxed);
    }
    return s;
}
