/* set.c - the native set of compiled code (rt_set_*, hpcjit/containers.h).
 *
 * CPython's set table (Objects/setobject.c): slots {hash, key} probed 9
 * slots linearly, then by perturbation (i = 5i + 1 + perturb); deletion
 * leaves a dummy; an insert into a fresh slot that makes the table 3/5
 * full resizes it to 4 * len (2 * len past 50000), re-inserting in table
 * order.  The set algebra follows CPython's algorithms too (which operand
 * is walked, copies and merges), so a set of numbers built by the same
 * operations iterates in the same order as in CPython, which Python code
 * sometimes depends on (list(s), for x in s, s.pop()).
 *
 * A slot is EMPTY when its hash is SLOT_EMPTY (the hash 2^63, which no
 * number hashes to, is stored as 2^63 + 1) and a dummy when it is
 * SLOT_DUMMY (-1, which no Python hash is). */
#include <stdlib.h>
#include <string.h>

#include "containers_int.h"

#define SLOT_EMPTY (UINT64_C(1) << 63)
#define SLOT_DUMMY UINT64_MAX
#define MIN_SIZE 8
#define LINEAR_PROBES 9

struct HjSet {
    int64_t len;     /* live items: first, so len(s) can be inlined */
    int64_t fill;    /* live + dummy slots                           */
    int64_t mask;    /* table size - 1                               */
    int64_t finger;  /* where pop() starts looking                   */
    char *table;     /* (mask + 1) slots of `stride` bytes           */
    const RtItemOps *ops;
    int64_t stride, koff;
    int key_i64;     /* runtime int64 items: hash and compare inline */
};

#define SLOT(S, i) ((S)->table + (int64_t)(i) * (S)->stride)
#define SHASH(e) (*(uint64_t *)(void *)(e))
#define LIVE(h) ((h) != SLOT_EMPTY && (h) != SLOT_DUMMY)

static void set_dtor(HjMemInfo *mi)
{
    HjSet *S = mi->data;
    for (int64_t i = 0; S->table && i <= S->mask; i++)
        if (LIVE(SHASH(SLOT(S, i))))
            it_decref(S->ops, SLOT(S, i) + S->koff);
    free(S->table);
    free(mi);
}

static char *new_table(int64_t size, int64_t stride)
{
    char *t = ct_malloc_n(size, stride);
    if (t)
        for (int64_t i = 0; i < size; i++)
            SHASH(t + i * stride) = SLOT_EMPTY;
    return t;
}

HjMemInfo *rt_set_new(const RtItemOps *ops, int64_t n_hint)
{
    /* n_hint is not used: CPython grows a set from 8 slots, and the final
     * layout (the iteration order) depends on the growth */
    if (ct_check_ops(ops, 1))
        return NULL;
    HjMemInfo *mi = ct_alloc(sizeof(HjSet), set_dtor);
    if (!mi)
        return NULL;
    HjSet *S = mi->data;
    S->ops = ops;
    S->koff = ops->align > 8 ? ops->align : 8;
    int64_t align = S->koff;
    S->stride = (S->koff + ops->size + align - 1) & ~(align - 1);
    S->key_i64 = ops->hash == rt_hash_i64 && !ops->eq && ops->size == 8;
    S->mask = MIN_SIZE - 1;
    S->table = new_table(MIN_SIZE, S->stride);
    if (!S->table) {
        rt_decref(mi);
        return NULL;
    }
    return mi;
}

int64_t rt_set_len(HjMemInfo *s) { return ((HjSet *)s->data)->len; }

static inline uint64_t item_hash(const HjSet *S, const void *key)
{
    uint64_t h;
    if (S->key_i64) {
        int64_t v;
        memcpy(&v, key, 8);
        h = ct_pyhash_i64(v);
    } else {
        h = it_hash(S->ops, key);
    }
    return h == SLOT_EMPTY ? SLOT_EMPTY + 1 : h;
}

static inline int item_eq(const HjSet *S, const char *stored, const void *key)
{
    if (S->key_i64)
        return memcmp(stored, key, 8) == 0;
    return it_eq(S->ops, stored, key);
}

/* The slot holding key (hash h), or NULL (set_lookkey). */
static char *lookkey(const HjSet *S, const void *key, uint64_t h)
{
    uint64_t mask = (uint64_t)S->mask, i = h & mask, perturb = h;
    for (;;) {
        char *e = SLOT(S, i);
        int probes = (i + LINEAR_PROBES <= mask) ? LINEAR_PROBES : 0;
        do {
            uint64_t eh = SHASH(e);
            if (eh == SLOT_EMPTY)
                return NULL;
            if (eh == h && item_eq(S, e + S->koff, key))
                return e;
            e += S->stride;
        } while (probes--);
        perturb >>= 5;
        i = (i * 5 + 1 + perturb) & mask;
    }
}

/* Put an item known to be absent into a table without dummies. */
static void insert_clean(char *table, uint64_t mask, int64_t stride, const char *entry, uint64_t h)
{
    uint64_t i = h & mask, perturb = h;
    for (;;) {
        char *e = table + i * stride;
        if (SHASH(e) == SLOT_EMPTY)
            goto found;
        if (i + LINEAR_PROBES <= mask) {
            for (int j = 0; j < LINEAR_PROBES; j++) {
                e += stride;
                if (SHASH(e) == SLOT_EMPTY)
                    goto found;
            }
        }
        perturb >>= 5;
        i = (i * 5 + 1 + perturb) & mask;
        continue;
    found:
        memcpy(e, entry, (size_t)stride);
        return;
    }
}

/* set_table_resize: the smallest power of two > minused. */
static int resize(HjSet *S, int64_t minused)
{
    int64_t size = MIN_SIZE;
    while (size <= minused) {
        if (size > INT64_MAX / 4) {
            rt_raise("MemoryError", "");
            return -1;
        }
        size <<= 1;
    }
    char *t = new_table(size, S->stride);
    if (!t)
        return -1;
    for (int64_t i = 0; i <= S->mask; i++) {
        const char *e = SLOT(S, i);
        if (LIVE(SHASH(e)))
            insert_clean(t, (uint64_t)size - 1, S->stride, e, SHASH(e));
    }
    free(S->table);
    S->table = t;
    S->mask = size - 1;
    S->fill = S->len;
    return 0;
}

/* set_add_entry: add key (hash h) unless present; the stored copy is
 * increfed.  0 or -1. */
static int add_entry(HjSet *S, const void *key, uint64_t h)
{
    uint64_t mask = (uint64_t)S->mask, i = h & mask, perturb = h;
    char *freeslot = NULL, *e;
    for (;;) {
        e = SLOT(S, i);
        int probes = (i + LINEAR_PROBES <= mask) ? LINEAR_PROBES : 0;
        do {
            uint64_t eh = SHASH(e);
            if (eh == SLOT_EMPTY)
                goto found_unused_or_dummy;
            if (eh == h) {
                if (item_eq(S, e + S->koff, key))
                    return 0; /* present */
            } else if (eh == SLOT_DUMMY && !freeslot) {
                freeslot = e;
            }
            e += S->stride;
        } while (probes--);
        perturb >>= 5;
        i = (i * 5 + 1 + perturb) & mask;
    }
found_unused_or_dummy:
    if (freeslot) {
        SHASH(freeslot) = h;
        memcpy(freeslot + S->koff, key, (size_t)S->ops->size);
        it_incref(S->ops, freeslot + S->koff);
        S->len++;
        return 0;
    }
    SHASH(e) = h;
    memcpy(e + S->koff, key, (size_t)S->ops->size);
    it_incref(S->ops, e + S->koff);
    S->fill++;
    S->len++;
    if ((uint64_t)S->fill * 5 < mask * 3)
        return 0;
    if (resize(S, S->len > 50000 ? S->len * 2 : S->len * 4) == 0)
        return 0;
    /* the item is in (the old table is intact): the set stays valid */
    return -1;
}

int32_t rt_set_add(HjMemInfo *s, const void *item)
{
    HjSet *S = s->data;
    return add_entry(S, item, item_hash(S, item));
}

int32_t rt_set_add_buf(HjMemInfo *s, const void *items, int64_t n)
{
    HjSet *S = s->data;
    for (int64_t i = 0; i < n; i++) {
        const char *it = (const char *)items + i * S->ops->size;
        if (add_entry(S, it, item_hash(S, it)))
            return -1;
    }
    return 0;
}

int32_t rt_set_contains(HjMemInfo *s, const void *item)
{
    HjSet *S = s->data;
    return lookkey(S, item, item_hash(S, item)) != NULL;
}

/* Make e a dummy; its item is left for the caller to move out or drop. */
static void unlink_slot(HjSet *S, char *e)
{
    SHASH(e) = SLOT_DUMMY;
    S->len--;
}

static int discard_h(HjSet *S, const void *item, uint64_t h)
{
    char *e = lookkey(S, item, h);
    if (!e)
        return 0;
    unlink_slot(S, e);
    it_decref(S->ops, e + S->koff);
    return 1;
}

int32_t rt_set_discard(HjMemInfo *s, const void *item)
{
    HjSet *S = s->data;
    return discard_h(S, item, item_hash(S, item));
}

int32_t rt_set_remove(HjMemInfo *s, const void *item)
{
    HjSet *S = s->data;
    if (discard_h(S, item, item_hash(S, item)))
        return 0;
    ct_raise_key(S->ops, item);
    return -1;
}

int32_t rt_set_pop(HjMemInfo *s, void *out)
{
    HjSet *S = s->data;
    if (S->len == 0) {
        rt_raise("KeyError", "pop from an empty set");
        return -1;
    }
    int64_t i = S->finger & S->mask;
    while (!LIVE(SHASH(SLOT(S, i))))
        i = (i + 1) & S->mask;
    char *e = SLOT(S, i);
    unlink_slot(S, e);
    memcpy(out, e + S->koff, (size_t)S->ops->size); /* the set's reference moves */
    S->finger = i + 1;
    return 0;
}

void rt_set_clear(HjMemInfo *s)
{
    HjSet *S = s->data;
    char *old = S->table, *t = new_table(MIN_SIZE, S->stride);
    int64_t oldsize = S->mask + 1;
    if (!t) { /* keep the table, just empty it */
        for (int64_t i = 0; i < oldsize; i++) {
            char *e = SLOT(S, i);
            if (LIVE(SHASH(e)))
                it_decref(S->ops, e + S->koff);
            SHASH(e) = SLOT_EMPTY;
        }
        S->len = S->fill = 0;
        return;
    }
    /* detach first: the set is empty while the items are released */
    S->table = t;
    S->mask = MIN_SIZE - 1;
    S->len = S->fill = 0;
    for (int64_t i = 0; i < oldsize; i++) {
        char *e = old + i * S->stride;
        if (LIVE(SHASH(e)))
            it_decref(S->ops, e + S->koff);
    }
    free(old);
}

/* set_merge: add every item of O to S. */
static int merge(HjSet *S, const HjSet *O)
{
    if (S == O || O->len == 0)
        return 0;
    if ((S->fill + O->len) * 5 >= S->mask * 3 && resize(S, (S->len + O->len) * 2))
        return -1;
    if (S->fill == 0 && S->mask == O->mask && O->fill == O->len) {
        /* same size, no dummies: copy slot by slot */
        memcpy(S->table, O->table, (size_t)((O->mask + 1) * O->stride));
        for (int64_t i = 0; i <= S->mask; i++)
            if (LIVE(SHASH(SLOT(S, i))))
                it_incref(S->ops, SLOT(S, i) + S->koff);
        S->fill = S->len = O->len;
        return 0;
    }
    if (S->fill == 0) {
        for (int64_t i = 0; i <= O->mask; i++) {
            const char *e = SLOT(O, i);
            if (LIVE(SHASH(e))) {
                insert_clean(S->table, (uint64_t)S->mask, S->stride, e, SHASH(e));
                S->len++;
            }
        }
        S->fill = S->len;
        for (int64_t i = 0; i <= S->mask; i++)
            if (LIVE(SHASH(SLOT(S, i))))
                it_incref(S->ops, SLOT(S, i) + S->koff);
        return 0;
    }
    for (int64_t i = 0; i <= O->mask; i++) {
        const char *e = SLOT(O, i);
        if (LIVE(SHASH(e)) && add_entry(S, e + O->koff, SHASH(e)))
            return -1;
    }
    return 0;
}

HjMemInfo *rt_set_copy(HjMemInfo *s)
{
    HjSet *S = s->data;
    HjMemInfo *c = rt_set_new(S->ops, 0);
    if (c && merge(c->data, S)) {
        rt_decref(c);
        return NULL;
    }
    return c;
}

HjMemInfo *rt_set_to_list(HjMemInfo *s)
{
    HjSet *S = s->data;
    HjMemInfo *l = rt_list_new(S->ops, S->len);
    if (!l)
        return NULL;
    HjList *L = l->data;
    for (int64_t i = 0; i <= S->mask; i++) {
        const char *e = SLOT(S, i);
        if (LIVE(SHASH(e)))
            memcpy(L->items + L->len++ * S->ops->size, e + S->koff, (size_t)S->ops->size);
    }
    it_incref_n(S->ops, L->items, L->len);
    return l;
}

int32_t rt_set_update(HjMemInfo *a, HjMemInfo *b) { return merge(a->data, b->data); }

HjMemInfo *rt_set_union(HjMemInfo *a, HjMemInfo *b)
{
    HjMemInfo *r = rt_set_copy(a);
    if (r && merge(r->data, b->data)) {
        rt_decref(r);
        return NULL;
    }
    return r;
}

HjMemInfo *rt_set_intersection(HjMemInfo *a, HjMemInfo *b)
{
    HjSet *S = a->data, *O = b->data;
    HjMemInfo *r = rt_set_new(S->ops, 0);
    if (!r)
        return NULL;
    if (O->len > S->len) { /* walk the smaller one */
        HjSet *t = S;
        S = O;
        O = t;
    }
    for (int64_t i = 0; i <= O->mask; i++) {
        const char *e = SLOT(O, i);
        if (LIVE(SHASH(e)) && lookkey(S, e + O->koff, SHASH(e)) && add_entry(r->data, e + O->koff, SHASH(e))) {
            rt_decref(r);
            return NULL;
        }
    }
    return r;
}

/* Exchange the tables of two sets of the same type (set_swap_bodies). */
static void swap_bodies(HjSet *x, HjSet *y)
{
    HjSet t = *x;
    *x = *y;
    *y = t;
}

int32_t rt_set_intersection_update(HjMemInfo *a, HjMemInfo *b)
{
    HjMemInfo *r = rt_set_intersection(a, b);
    if (!r)
        return -1;
    swap_bodies(a->data, r->data);
    rt_decref(r); /* the old table of a */
    return 0;
}

int32_t rt_set_difference_update(HjMemInfo *a, HjMemInfo *b)
{
    HjSet *S = a->data, *O = b->data;
    if (a == b) {
        rt_set_clear(a);
        return 0;
    }
    HjMemInfo *inter = NULL;
    if ((O->len >> 3) > S->len) { /* other much larger: walk the intersection */
        inter = rt_set_intersection(a, b);
        if (!inter)
            return -1;
        O = inter->data;
    }
    for (int64_t i = 0; i <= O->mask; i++) {
        const char *e = SLOT(O, i);
        if (LIVE(SHASH(e)))
            discard_h(S, e + O->koff, SHASH(e));
    }
    rt_decref(inter);
    /* more than 1/4 dummies: resize them away (failure leaves a valid set) */
    if (S->fill - S->len <= S->mask / 4)
        return 0;
    return resize(S, S->len > 50000 ? S->len * 2 : S->len * 4);
}

HjMemInfo *rt_set_difference(HjMemInfo *a, HjMemInfo *b)
{
    HjSet *S = a->data, *O = b->data;
    if ((S->len >> 2) > O->len) { /* copy, then remove the common items */
        HjMemInfo *r = rt_set_copy(a);
        if (r && rt_set_difference_update(r, b)) {
            rt_decref(r);
            return NULL;
        }
        return r;
    }
    HjMemInfo *r = rt_set_new(S->ops, 0);
    if (!r)
        return NULL;
    for (int64_t i = 0; i <= S->mask; i++) {
        const char *e = SLOT(S, i);
        if (LIVE(SHASH(e)) && !lookkey(O, e + S->koff, SHASH(e)) && add_entry(r->data, e + S->koff, SHASH(e))) {
            rt_decref(r);
            return NULL;
        }
    }
    return r;
}

int32_t rt_set_symmetric_difference_update(HjMemInfo *a, HjMemInfo *b)
{
    HjSet *S = a->data, *O = b->data;
    if (a == b) {
        rt_set_clear(a);
        return 0;
    }
    for (int64_t i = 0; i <= O->mask; i++) {
        const char *e = SLOT(O, i);
        if (LIVE(SHASH(e)) && !discard_h(S, e + O->koff, SHASH(e)) && add_entry(S, e + O->koff, SHASH(e)))
            return -1;
    }
    return 0;
}

HjMemInfo *rt_set_symmetric_difference(HjMemInfo *a, HjMemInfo *b)
{
    /* CPython: a copy of b, updated with a */
    HjMemInfo *r = rt_set_copy(b);
    if (r && rt_set_symmetric_difference_update(r, a)) {
        rt_decref(r);
        return NULL;
    }
    return r;
}

int32_t rt_set_issubset(HjMemInfo *a, HjMemInfo *b)
{
    HjSet *S = a->data, *O = b->data;
    if (S->len > O->len)
        return 0;
    for (int64_t i = 0; i <= S->mask; i++) {
        const char *e = SLOT(S, i);
        if (LIVE(SHASH(e)) && !lookkey(O, e + S->koff, SHASH(e)))
            return 0;
    }
    return 1;
}

int32_t rt_set_issuperset(HjMemInfo *a, HjMemInfo *b) { return rt_set_issubset(b, a); }

int32_t rt_set_isdisjoint(HjMemInfo *a, HjMemInfo *b)
{
    HjSet *S = a->data, *O = b->data;
    if (S->len > O->len) {
        HjSet *t = S;
        S = O;
        O = t;
    }
    for (int64_t i = 0; i <= S->mask; i++) {
        const char *e = SLOT(S, i);
        if (LIVE(SHASH(e)) && lookkey(O, e + S->koff, SHASH(e)))
            return 0;
    }
    return 1;
}

int32_t rt_set_eq(HjMemInfo *a, HjMemInfo *b)
{
    return ((HjSet *)a->data)->len == ((HjSet *)b->data)->len && rt_set_issubset(a, b);
}

int32_t rt_set_iter_next(HjMemInfo *s, RtSetIter *it, void **item)
{
    HjSet *S = s->data;
    if (S->len != it->len) {
        it->pos = INT64_MAX;
        it->len = -1;
        rt_raise("RuntimeError", "Set changed size during iteration");
        return -1;
    }
    while (it->pos <= S->mask) {
        char *e = SLOT(S, it->pos);
        it->pos++;
        if (LIVE(SHASH(e))) {
            *item = e + S->koff;
            return 1;
        }
    }
    return 0;
}
