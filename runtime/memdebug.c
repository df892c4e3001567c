/* memdebug.c - the allocation-owner debug mode of the reference-counted
 * memory (HPCJIT_DEBUG_MEMORY=1, or NUMBA_DEBUG_NRT=1 when ours is unset).
 *
 * Off (the default) it costs one predictable branch per allocation and per
 * count update.  On, every MemInfo that rt_alloc* hands out is recorded in a
 * table with its size, a sequence number and its owner (the code address
 * that asked for it: compiled code or a runtime function), and every
 * rt_incref/rt_decref checks its MemInfo against the table before touching
 * it:
 *  - a count update on a MemInfo that was freed (double free, use after
 *    free) is reported and NOT performed, so the process goes on;
 *  - blocks freed by the default path are held back (a bounded quarantine
 *    with their count poisoned) so that a stale pointer cannot hit a new
 *    allocation at the same address while the quarantine holds it;
 *  - at exit, or when asked (rt_memdebug_report), the allocations still
 *    live are listed with their owners: leaks, or arrays Python still holds.
 * A MemInfo the table never saw (immortal strings, static data) passes
 * unchecked.
 *
 * Reports go to stderr as "hpcjit-memdebug: ..." lines, and the counts to
 * rt_memdebug_stats() (hpcjit._core.memory_debug() in Python). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcjit/runtime.h"
#include "memdebug.h"

#define QUARANTINE 4096
#define POISON INT64_C(-0x0dead0dead0dead)

typedef struct Entry {
    HjMemInfo *mi;   /* NULL: empty; TOMB: deleted */
    int64_t size;
    int64_t seq;
    void *owner;
    int freed;       /* 1: freed (kept to name the block in a report) */
} Entry;

#define TOMB ((HjMemInfo *)(uintptr_t)1)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int enabled;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Entry *table;
static size_t cap, used; /* used counts live, freed and tomb slots */
static int64_t seq, nlive, nbad, nfreed_kept;
static HjMemInfo *quarantine[QUARANTINE];
static size_t qhead, qn;

static size_t slot_of(HjMemInfo *mi)
{
    uint64_t h = (uint64_t)(uintptr_t)mi;
    h ^= h >> 33;
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    return (size_t)h & (cap - 1);
}

static Entry *find(HjMemInfo *mi)
{
    if (!cap)
        return NULL;
    for (size_t i = slot_of(mi);; i = (i + 1) & (cap - 1)) {
        if (table[i].mi == mi)
            return &table[i];
        if (!table[i].mi)
            return NULL;
    }
}

static int grow(void)
{
    size_t ncap = cap ? cap * 2 : 4096;
    Entry *old = table, *nt = calloc(ncap, sizeof(Entry));
    size_t ocap = cap;
    if (!nt)
        return -1;
    table = nt;
    cap = ncap;
    used = 0;
    for (size_t i = 0; i < ocap; i++)
        if (old[i].mi && old[i].mi != TOMB) {
            Entry *e = &table[slot_of(old[i].mi)];
            while (e->mi)
                e = (e + 1 == table + cap) ? table : e + 1;
            *e = old[i];
            used++;
        }
    free(old);
    return 0;
}

static void describe(char *buf, size_t n, void *owner)
{
    Dl_info info;
    if (owner && dladdr(owner, &info) && info.dli_sname)
        snprintf(buf, n, "%s+0x%lx", info.dli_sname,
                 (unsigned long)((char *)owner - (char *)info.dli_saddr));
    else
        snprintf(buf, n, "code at %p", owner);
}

static void at_exit(void)
{
    if (getenv("HPCJIT_DEBUG_MEMORY_QUIET"))
        return;
    rt_memdebug_report(20);
}

static void init(void)
{
    const char *v = getenv("HPCJIT_DEBUG_MEMORY");
    if (!v || !*v)
        v = getenv("NUMBA_DEBUG_NRT");
    enabled = v && *v && strcmp(v, "0") != 0;
    if (enabled)
        atexit(at_exit);
}

int rt_memdebug_on(void)
{
    pthread_once(&once, init);
    return enabled;
}

void md_alloc(HjMemInfo *mi, int64_t size, void *owner)
{
    pthread_mutex_lock(&lock);
    if ((used + 1) * 2 > cap && grow() < 0) {
        pthread_mutex_unlock(&lock);
        return; /* out of memory for the table: this block goes unchecked */
    }
    Entry *e = find(mi);
    if (e) { /* the address of a freed block, reused */
        if (e->freed)
            nfreed_kept--;
        else
            nlive--; /* cannot happen: every free passes md_free */
    } else {
        e = &table[slot_of(mi)];
        while (e->mi && e->mi != TOMB)
            e = (e + 1 == table + cap) ? table : e + 1;
        if (!e->mi)
            used++;
    }
    *e = (Entry){mi, size, ++seq, owner, 0};
    nlive++;
    pthread_mutex_unlock(&lock);
}

static void report_bad(const char *what, HjMemInfo *mi, const Entry *e, void *caller)
{
    char by[160], at[160];
    describe(by, sizeof by, e ? e->owner : NULL);
    describe(at, sizeof at, caller);
    fprintf(stderr,
            "hpcjit-memdebug: %s: %s of freed MemInfo %p (%lld bytes, allocation #%lld by %s), from %s; "
            "the update was not done\n",
            strcmp(what, "decref") == 0 ? "double free" : "use after free", what, (void *)mi, (long long)(e ? e->size : -1), (long long)(e ? e->seq : -1), by, at);
}

int md_check(HjMemInfo *mi, const char *op, void *caller)
{
    int ok = 1;
    pthread_mutex_lock(&lock);
    Entry *e = find(mi);
    if (e && e->freed) {
        nbad++;
        report_bad(op, mi, e, caller);
        ok = 0;
    }
    pthread_mutex_unlock(&lock);
    return ok;
}

int md_free(HjMemInfo *mi)
{
    int keep = 0;
    HjMemInfo *out = NULL;
    pthread_mutex_lock(&lock);
    Entry *e = find(mi);
    if (e && !e->freed) {
        e->freed = 1;
        nlive--;
        nfreed_kept++;
        if (!mi->dtor) { /* the default free: hold the block back */
            mi->refcnt = POISON;
            if (qn == QUARANTINE) {
                out = quarantine[qhead];
                qhead = (qhead + 1) % QUARANTINE;
                qn--;
                Entry *o = find(out);
                if (o) { /* forget it: its address may come back */
                    o->mi = TOMB;
                    nfreed_kept--;
                }
            }
            quarantine[(qhead + qn) % QUARANTINE] = mi;
            qn++;
            keep = 1;
        }
    }
    pthread_mutex_unlock(&lock);
    free(out);
    return keep;
}

RtMemDebugStats rt_memdebug_stats(void)
{
    RtMemDebugStats s = {0, 0, 0, 0};
    if (!rt_memdebug_on())
        return s;
    pthread_mutex_lock(&lock);
    s.enabled = 1;
    s.allocations = seq;
    s.live = nlive;
    s.errors = nbad;
    pthread_mutex_unlock(&lock);
    return s;
}

int64_t rt_memdebug_live(RtMemDebugEntry *out, int64_t max, int64_t after_seq)
{
    int64_t n = 0;
    if (!rt_memdebug_on())
        return 0;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < cap; i++) {
        Entry *e = &table[i];
        if (!e->mi || e->mi == TOMB || e->freed || e->seq <= after_seq)
            continue;
        if (n < max) {
            out[n].address = e->mi;
            out[n].size = e->size;
            out[n].seq = e->seq;
            out[n].owner = e->owner;
            describe(out[n].owner_name, sizeof out[n].owner_name, e->owner);
        }
        n++;
    }
    pthread_mutex_unlock(&lock);
    return n;
}

void rt_memdebug_report(int max)
{
    FILE *f = stderr;
    RtMemDebugStats s = rt_memdebug_stats();
    if (!s.enabled)
        return;
    RtMemDebugEntry *live = calloc((size_t)(max > 0 ? max : 1), sizeof *live);
    int64_t n = live ? rt_memdebug_live(live, max, 0) : 0;
    fprintf(f, "hpcjit-memdebug: %lld allocations, %lld live, %lld bad count updates\n",
            (long long)s.allocations, (long long)s.live, (long long)s.errors);
    for (int64_t i = 0; i < n && i < max; i++)
        fprintf(f, "hpcjit-memdebug:   live #%lld: %lld bytes at %p, allocated by %s\n",
                (long long)live[i].seq, (long long)live[i].size, live[i].address, live[i].owner_name);
    if (n > max)
        fprintf(f, "hpcjit-memdebug:   ... and %lld more\n", (long long)(n - max));
    free(live);
}
