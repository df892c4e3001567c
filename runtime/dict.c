/* dict.c - the native dict of compiled code (rt_dict_*, hpcjit/containers.h).
 *
 * CPython's compact, insertion-ordered table (Objects/dictobject.c, 3.6+):
 * `index` is a power-of-two array of int32 slots (EMPTY, DUMMY or the
 * number of an entry), probed as CPython probes (i = 5i + perturb + 1,
 * perturb >>= 5), and `entries` a dense array of {hash, key, value} in
 * insertion order; deletion marks the entry's hash DELETED and its slot
 * DUMMY.  The entries hold at most 2/3 of the index size; when an insert
 * finds none left, the table is rebuilt for 3 * len (dropping deleted
 * entries), so iteration order is always insertion order.
 *
 * Keys and values that point into the table itself (d[k] = d[j] through a
 * borrowed rt_dict_lookup pointer) are copied before a resize moves them. */
#include <stdlib.h>
#include <string.h>

#include "containers_int.h"

#define EMPTY (-1)
#define DUMMY (-2)
#define DELETED UINT64_MAX
#define MIN_SIZE 8
#define MAX_SIZE (INT64_C(1) << 31) /* entry numbers fit an int32 slot */
#define USABLE(size) (((size) << 1) / 3)

struct HjDict {
    int64_t len;          /* live entries: first, so len(d) can be inlined */
    int64_t used;         /* entries[0..used) written (some DELETED)      */
    int64_t usable_left;  /* entries that may still be added before resize */
    int64_t mask;         /* index size - 1; index NULL: no table yet      */
    int32_t *index;
    char *entries;        /* USABLE(mask + 1) entries of `stride` bytes    */
    const RtItemOps *kops, *vops;
    int64_t stride, koff, voff;
    int key_i64;          /* runtime int64 keys: hash and compare inline   */
};

#define ENTRY(D, i) ((D)->entries + (i) * (D)->stride)
#define EHASH(e) (*(uint64_t *)(void *)(e))

static void dict_dtor(HjMemInfo *mi)
{
    HjDict *D = mi->data;
    for (int64_t i = 0; i < D->used; i++) {
        char *e = ENTRY(D, i);
        if (EHASH(e) != DELETED) {
            it_decref(D->kops, e + D->koff);
            it_decref(D->vops, e + D->voff);
        }
    }
    free(D->index);
    free(D->entries);
    free(mi);
}

static int dict_resize(HjDict *D, int64_t minused);

static int64_t round_up(int64_t x, int64_t a) { return (x + a - 1) & ~(a - 1); }

HjMemInfo *rt_dict_new(const RtItemOps *key_ops, const RtItemOps *value_ops, int64_t n_hint)
{
    if (ct_check_ops(key_ops, 1) || ct_check_ops(value_ops, 0))
        return NULL;
    HjMemInfo *mi = ct_alloc(sizeof(HjDict), dict_dtor);
    if (!mi)
        return NULL;
    HjDict *D = mi->data;
    D->kops = key_ops;
    D->vops = value_ops;
    int64_t align = 8;
    if (key_ops->align > align)
        align = key_ops->align;
    if (value_ops->align > align)
        align = value_ops->align;
    D->koff = round_up(8, key_ops->align);
    D->voff = round_up(D->koff + key_ops->size, value_ops->align);
    D->stride = round_up(D->voff + value_ops->size, align);
    D->key_i64 = key_ops->hash == rt_hash_i64 && !key_ops->eq && key_ops->size == 8;
    D->index = NULL;
    D->mask = 0;
    if (n_hint > 0) {
        if (dict_resize(D, n_hint)) {
            rt_decref(mi);
            return NULL;
        }
    }
    return mi;
}

int64_t rt_dict_len(HjMemInfo *d) { return ((HjDict *)d->data)->len; }

static inline uint64_t key_hash(const HjDict *D, const void *key)
{
    if (D->key_i64) {
        int64_t v;
        memcpy(&v, key, 8);
        return ct_pyhash_i64(v);
    }
    return it_hash(D->kops, key);
}

static inline int key_eq(const HjDict *D, const char *stored, const void *key)
{
    if (D->key_i64)
        return memcmp(stored, key, 8) == 0;
    return it_eq(D->kops, stored, key);
}

/* The entry number of key (hash h), or -1; *slot: its index slot. */
static inline int64_t lookup(const HjDict *D, const void *key, uint64_t h, int64_t *slot)
{
    if (!D->index)
        return -1;
    uint64_t mask = (uint64_t)D->mask, i = h & mask, perturb = h;
    for (;;) {
        int32_t ix = D->index[i];
        if (ix == EMPTY)
            return -1;
        if (ix >= 0) {
            const char *e = ENTRY(D, ix);
            if (EHASH(e) == h && key_eq(D, e + D->koff, key)) {
                if (slot)
                    *slot = (int64_t)i;
                return ix;
            }
        }
        perturb >>= 5;
        i = (i * 5 + perturb + 1) & mask;
    }
}

/* The first EMPTY or DUMMY slot on h's probe sequence. */
static inline int64_t free_slot(const HjDict *D, uint64_t h)
{
    uint64_t mask = (uint64_t)D->mask, i = h & mask, perturb = h;
    while (D->index[i] >= 0) {
        perturb >>= 5;
        i = (i * 5 + perturb + 1) & mask;
    }
    return (int64_t)i;
}

/* Rebuild the table with room for `minused` entries (CPython: the
 * smallest power of two whose 2/3 holds them), dropping deleted ones. */
static int dict_resize(HjDict *D, int64_t minused)
{
    int64_t size = MIN_SIZE;
    while (USABLE(size) < minused && size < MAX_SIZE)
        size <<= 1;
    if (USABLE(size) < minused) {
        rt_raise("MemoryError", "dict too large");
        return -1;
    }
    int32_t *index = ct_malloc_n(size, sizeof(int32_t));
    char *entries = index ? ct_malloc_n(USABLE(size), D->stride) : NULL;
    if (!entries) {
        free(index);
        return -1;
    }
    memset(index, 0xff, (size_t)size * sizeof(int32_t)); /* EMPTY */
    int64_t n = 0;
    if (D->used == 0) {
        /* nothing to move (entries may be NULL) */
    } else if (D->len == D->used) {
        memcpy(entries, D->entries, (size_t)(D->used * D->stride));
        n = D->used;
    } else {
        for (int64_t i = 0; i < D->used; i++) {
            const char *e = ENTRY(D, i);
            if (EHASH(e) != DELETED)
                memcpy(entries + n++ * D->stride, e, (size_t)D->stride);
        }
    }
    free(D->index);
    free(D->entries);
    D->index = index;
    D->entries = entries;
    D->mask = size - 1;
    D->used = n;
    D->usable_left = USABLE(size) - n;
    for (int64_t i = 0; i < n; i++)
        D->index[free_slot(D, EHASH(ENTRY(D, i)))] = (int32_t)i;
    return 0;
}

/* A copy of an item that may live inside the table, made before the
 * table moves: p is redirected to it. */
typedef struct Saved {
    char buf[64];
    char *heap;
} Saved;

static int save_if_inside(const HjDict *D, const void **p, int64_t size, Saved *s)
{
    s->heap = NULL;
    const char *c = *p;
    if (!D->entries || c < D->entries || c >= ENTRY(D, USABLE(D->mask + 1)))
        return 0;
    char *dst = s->buf;
    if (size > (int64_t)sizeof s->buf) {
        dst = s->heap = ct_malloc_n(size, 1);
        if (!dst)
            return -1;
    }
    memcpy(dst, c, (size_t)size);
    *p = dst;
    return 0;
}

/* Append a new entry (key known to be absent).  The key and value are
 * copied and increfed. */
static int insert_new(HjDict *D, const void *key, uint64_t h, const void *value)
{
    if (D->usable_left <= 0) {
        Saved sk, sv;
        if (save_if_inside(D, &key, D->kops->size, &sk))
            return -1;
        if (save_if_inside(D, &value, D->vops->size, &sv)) {
            free(sk.heap);
            return -1;
        }
        int r = dict_resize(D, D->len * 3 > MIN_SIZE ? D->len * 3 : MIN_SIZE);
        if (r == 0)
            r = insert_new(D, key, h, value);
        free(sk.heap);
        free(sv.heap);
        return r;
    }
    char *e = ENTRY(D, D->used);
    EHASH(e) = h;
    memcpy(e + D->koff, key, (size_t)D->kops->size);
    memcpy(e + D->voff, value, (size_t)D->vops->size);
    it_incref(D->kops, e + D->koff);
    it_incref(D->vops, e + D->voff);
    D->index[free_slot(D, h)] = (int32_t)D->used;
    D->used++;
    D->usable_left--;
    D->len++;
    return 0;
}

static int setitem_h(HjDict *D, const void *key, uint64_t h, const void *value)
{
    int64_t ix = lookup(D, key, h, NULL);
    if (ix >= 0) {
        char *v = ENTRY(D, ix) + D->voff;
        it_incref(D->vops, (void *)value);
        it_decref(D->vops, v);
        memmove(v, value, (size_t)D->vops->size);
        return 0;
    }
    return insert_new(D, key, h, value);
}

void *rt_dict_lookup(HjMemInfo *d, const void *key)
{
    HjDict *D = d->data;
    if (D->len == 0)
        return NULL;
    int64_t ix = lookup(D, key, key_hash(D, key), NULL);
    return ix >= 0 ? ENTRY(D, ix) + D->voff : NULL;
}

void *rt_dict_getitem(HjMemInfo *d, const void *key)
{
    void *v = rt_dict_lookup(d, key);
    if (!v)
        ct_raise_key(((HjDict *)d->data)->kops, key);
    return v;
}

int32_t rt_dict_contains(HjMemInfo *d, const void *key) { return rt_dict_lookup(d, key) != NULL; }

int32_t rt_dict_setitem(HjMemInfo *d, const void *key, const void *value)
{
    HjDict *D = d->data;
    return setitem_h(D, key, key_hash(D, key), value);
}

int32_t rt_dict_get(HjMemInfo *d, const void *key, const void *dflt, void *out)
{
    HjDict *D = d->data;
    const void *v = rt_dict_lookup(d, key);
    memcpy(out, v ? v : dflt, (size_t)D->vops->size);
    it_incref(D->vops, out);
    return v != NULL;
}

void *rt_dict_setdefault(HjMemInfo *d, const void *key, const void *dflt)
{
    HjDict *D = d->data;
    uint64_t h = key_hash(D, key);
    int64_t ix = lookup(D, key, h, NULL);
    if (ix < 0) {
        if (insert_new(D, key, h, dflt))
            return NULL;
        ix = D->used - 1;
    }
    return ENTRY(D, ix) + D->voff;
}

/* Unlink entry ix (in slot `slot`): its key and value are left in the
 * entry for the caller to move out or release. */
static void unlink_entry(HjDict *D, int64_t ix, int64_t slot)
{
    D->index[slot] = DUMMY;
    EHASH(ENTRY(D, ix)) = DELETED;
    D->len--;
}

/* 1 and the value moved to out (key released) if found, else 0. */
static int pop_into(HjDict *D, const void *key, void *out)
{
    if (D->len == 0)
        return 0;
    int64_t slot = 0, ix = lookup(D, key, key_hash(D, key), &slot);
    if (ix < 0)
        return 0;
    char *e = ENTRY(D, ix);
    unlink_entry(D, ix, slot);
    memcpy(out, e + D->voff, (size_t)D->vops->size);
    it_decref(D->kops, e + D->koff);
    return 1;
}

int32_t rt_dict_pop(HjMemInfo *d, const void *key, void *out)
{
    HjDict *D = d->data;
    if (pop_into(D, key, out))
        return 0;
    ct_raise_key(D->kops, key);
    return -1;
}

int32_t rt_dict_pop_default(HjMemInfo *d, const void *key, const void *dflt, void *out)
{
    HjDict *D = d->data;
    if (pop_into(D, key, out))
        return 1;
    memcpy(out, dflt, (size_t)D->vops->size);
    it_incref(D->vops, out);
    return 0;
}

int32_t rt_dict_delitem(HjMemInfo *d, const void *key)
{
    HjDict *D = d->data;
    int64_t slot = 0, ix = D->len ? lookup(D, key, key_hash(D, key), &slot) : -1;
    if (ix < 0) {
        ct_raise_key(D->kops, key);
        return -1;
    }
    char *e = ENTRY(D, ix);
    unlink_entry(D, ix, slot);
    it_decref(D->kops, e + D->koff);
    it_decref(D->vops, e + D->voff);
    return 0;
}

int32_t rt_dict_popitem(HjMemInfo *d, void *key_out, void *value_out)
{
    HjDict *D = d->data;
    if (D->len == 0) {
        rt_raise("KeyError", "popitem(): dictionary is empty");
        return -1;
    }
    int64_t ix = D->used - 1;
    while (EHASH(ENTRY(D, ix)) == DELETED)
        ix--;
    char *e = ENTRY(D, ix);
    /* its slot: the one on its hash's probe sequence that holds ix */
    uint64_t h = EHASH(e), mask = (uint64_t)D->mask, i = h & mask, perturb = h;
    while (D->index[i] != ix) {
        perturb >>= 5;
        i = (i * 5 + perturb + 1) & mask;
    }
    unlink_entry(D, ix, (int64_t)i);
    D->used = ix; /* as CPython: the entries after it are all deleted */
    memcpy(key_out, e + D->koff, (size_t)D->kops->size);
    memcpy(value_out, e + D->voff, (size_t)D->vops->size);
    return 0;
}

void rt_dict_clear(HjMemInfo *d)
{
    HjDict *D = d->data;
    int32_t *index = D->index;
    char *entries = D->entries;
    int64_t used = D->used;
    /* detach first: the dict is empty while the items are released */
    D->index = NULL;
    D->entries = NULL;
    D->len = D->used = D->usable_left = D->mask = 0;
    for (int64_t i = 0; i < used; i++) {
        char *e = entries + i * D->stride;
        if (EHASH(e) != DELETED) {
            it_decref(D->kops, e + D->koff);
            it_decref(D->vops, e + D->voff);
        }
    }
    free(index);
    free(entries);
}

int32_t rt_dict_update(HjMemInfo *d, HjMemInfo *other)
{
    HjDict *D = d->data, *O = other->data;
    if (d == other)
        return 0;
    for (int64_t i = 0; i < O->used; i++) {
        const char *e = ENTRY(O, i);
        if (EHASH(e) != DELETED && setitem_h(D, e + O->koff, EHASH(e), e + O->voff))
            return -1;
    }
    return 0;
}

HjMemInfo *rt_dict_copy(HjMemInfo *d)
{
    HjDict *D = d->data;
    HjMemInfo *c = rt_dict_new(D->kops, D->vops, D->len);
    if (!c)
        return NULL;
    HjDict *C = c->data;
    for (int64_t i = 0; i < D->used; i++) {
        const char *e = ENTRY(D, i);
        /* no key is repeated: straight to insert_new (room reserved) */
        if (EHASH(e) != DELETED && insert_new(C, e + D->koff, EHASH(e), e + D->voff)) {
            rt_decref(c);
            return NULL;
        }
    }
    return c;
}

int32_t rt_dict_eq(HjMemInfo *a, HjMemInfo *b)
{
    HjDict *A = a->data, *B = b->data;
    if (A->len != B->len)
        return 0;
    for (int64_t i = 0; i < A->used; i++) {
        const char *e = ENTRY(A, i);
        if (EHASH(e) == DELETED)
            continue;
        int64_t ix = lookup(B, e + A->koff, EHASH(e), NULL);
        if (ix < 0 || !it_eq(A->vops, e + A->voff, ENTRY(B, ix) + B->voff))
            return 0;
    }
    return 1;
}

static HjMemInfo *to_list(HjDict *D, int values)
{
    const RtItemOps *ops = values ? D->vops : D->kops;
    int64_t off = values ? D->voff : D->koff;
    HjMemInfo *l = rt_list_new(ops, D->len);
    if (!l)
        return NULL;
    HjList *L = l->data;
    for (int64_t i = 0; i < D->used; i++) {
        const char *e = ENTRY(D, i);
        if (EHASH(e) != DELETED)
            memcpy(L->items + L->len++ * ops->size, e + off, (size_t)ops->size);
    }
    it_incref_n(ops, L->items, L->len);
    return l;
}

HjMemInfo *rt_dict_keys(HjMemInfo *d) { return to_list(d->data, 0); }
HjMemInfo *rt_dict_values(HjMemInfo *d) { return to_list(d->data, 1); }

int32_t rt_dict_iter_next(HjMemInfo *d, RtDictIter *it, void **key, void **value)
{
    HjDict *D = d->data;
    if (D->len != it->len) {
        it->pos = INT64_MAX; /* stays an error if called again */
        it->len = -1;
        rt_raise("RuntimeError", "dictionary changed size during iteration");
        return -1;
    }
    while (it->pos < D->used) {
        char *e = ENTRY(D, it->pos);
        it->pos++;
        if (EHASH(e) != DELETED) {
            if (key)
                *key = e + D->koff;
            if (value)
                *value = e + D->voff;
            return 1;
        }
    }
    return 0;
}
