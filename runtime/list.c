/* list.c - the native list of compiled code (rt_list_*, hpcjit/containers.h).
 *
 * A list is a growable array of fixed-size items (HjList), grown as
 * CPython's list_resize grows: about 1/8 over the needed size, so a loop
 * of appends reallocates O(log n) times and copies each item O(1) times on
 * average (and glibc moves large blocks with mremap, without copying).
 * Sorting is a stable bottom-up merge sort over the items (int64 and
 * float64 lists with the runtime's lt) or over pointers to them (others,
 * then one permuting pass). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "containers_int.h"

static void list_dtor(HjMemInfo *mi)
{
    HjList *L = mi->data;
    it_decref_n(L->ops, L->items, L->len);
    free(L->items);
    free(mi); /* the struct lives in the header's block (ct_alloc) */
}

HjMemInfo *rt_list_new(const RtItemOps *ops, int64_t cap)
{
    if (ct_check_ops(ops, 0))
        return NULL;
    HjMemInfo *mi = ct_alloc(sizeof(HjList), list_dtor);
    if (!mi)
        return NULL;
    HjList *L = mi->data;
    L->ops = ops;
    if (cap > 0) {
        L->items = ct_malloc_n(cap, ops->size);
        if (!L->items) {
            rt_decref(mi);
            return NULL;
        }
        L->cap = cap;
    }
    return mi;
}

/* Make cap >= need.  *alias, if it points into the storage (an item of
 * this list passed back to it), is moved along with it. */
static int grow(HjList *L, int64_t need, const void **alias)
{
    if (need <= L->cap)
        return 0;
    if (need > INT64_MAX / 2) {
        rt_raise("MemoryError", "");
        return -1;
    }
    /* CPython's list_resize: need + need/8 + 6, rounded down to 4; the
     * exact size when one call adds more than that */
    int64_t cap = (need + (need >> 3) + 6) & ~(int64_t)3;
    if (need - L->len > cap - need)
        cap = (need + 3) & ~(int64_t)3;
    int64_t off = -1;
    int64_t bytes = L->cap * L->ops->size;
    if (alias && *alias && (const char *)*alias >= L->items && (const char *)*alias < L->items + bytes)
        off = (const char *)*alias - L->items;
    char *p = ct_realloc_n(L->items, cap, L->ops->size);
    if (!p)
        return -1;
    L->items = p;
    L->cap = cap;
    if (off >= 0)
        *alias = p + off;
    return 0;
}

int32_t rt_list_reserve(HjMemInfo *l, int64_t n)
{
    HjList *L = l->data;
    if (n <= L->cap)
        return 0;
    char *p = ct_realloc_n(L->items, n, L->ops->size);
    if (!p)
        return -1;
    L->items = p;
    L->cap = n;
    return 0;
}

int32_t rt_list_append(HjMemInfo *l, const void *item)
{
    HjList *L = l->data;
    if (L->len == L->cap && grow(L, L->len + 1, &item))
        return -1;
    int64_t size = L->ops->size;
    char *dst = L->items + L->len * size;
    memcpy(dst, item, (size_t)size);
    it_incref(L->ops, dst);
    L->len++;
    return 0;
}

int32_t rt_list_extend_buf(HjMemInfo *l, const void *items, int64_t n)
{
    HjList *L = l->data;
    if (n <= 0)
        return 0;
    if (grow(L, L->len + n, &items))
        return -1;
    int64_t size = L->ops->size;
    char *dst = L->items + L->len * size;
    memmove(dst, items, (size_t)(n * size));
    it_incref_n(L->ops, dst, n);
    L->len += n;
    return 0;
}

int32_t rt_list_extend(HjMemInfo *l, HjMemInfo *other)
{
    HjList *O = other->data;
    return rt_list_extend_buf(l, O->items, O->len); /* other == l: aliasing handled by grow */
}

HjMemInfo *rt_list_from_strided(const RtItemOps *ops, const void *data, int64_t n, int64_t stride)
{
    HjMemInfo *l = rt_list_new(ops, n);
    if (!l)
        return NULL;
    HjList *L = l->data;
    int64_t size = ops->size;
    if (n <= 0) {
        return l;
    } else if (stride == size) {
        memcpy(L->items, data, (size_t)(n * size));
    } else {
        for (int64_t i = 0; i < n; i++)
            memcpy(L->items + i * size, (const char *)data + i * stride, (size_t)size);
    }
    it_incref_n(ops, L->items, n);
    L->len = n;
    return l;
}

void rt_list_to_buffer(HjMemInfo *l, void *dst)
{
    HjList *L = l->data;
    if (L->len > 0)
        memcpy(dst, L->items, (size_t)(L->len * L->ops->size));
}

int32_t rt_list_insert(HjMemInfo *l, int64_t i, const void *item)
{
    HjList *L = l->data;
    int64_t n = L->len, size = L->ops->size;
    if (i < 0) {
        i += n;
        if (i < 0)
            i = 0;
    } else if (i > n) {
        i = n;
    }
    if (grow(L, n + 1, &item))
        return -1;
    char *at = L->items + i * size;
    /* item may be the one about to move one slot up */
    if ((const char *)item >= at && (const char *)item < L->items + n * size)
        item = (const char *)item + size;
    memmove(at + size, at, (size_t)((n - i) * size));
    memcpy(at, item, (size_t)size);
    it_incref(L->ops, at);
    L->len = n + 1;
    return 0;
}

static int norm_index(const HjList *L, int64_t *i, const char *msg)
{
    if (*i < 0)
        *i += L->len;
    if (*i < 0 || *i >= L->len) {
        rt_raise("IndexError", msg);
        return -1;
    }
    return 0;
}

int32_t rt_list_getitem(HjMemInfo *l, int64_t i, void *out)
{
    HjList *L = l->data;
    if (norm_index(L, &i, "list index out of range"))
        return -1;
    memcpy(out, L->items + i * L->ops->size, (size_t)L->ops->size);
    it_incref(L->ops, out);
    return 0;
}

/* Replace the item at dst by a copy of src: incref the new one first, so
 * that storing an item over itself keeps it alive. */
static void replace_item(const RtItemOps *ops, char *dst, const void *src)
{
    it_incref(ops, (void *)src);
    it_decref(ops, dst);
    memmove(dst, src, (size_t)ops->size);
}

int32_t rt_list_setitem(HjMemInfo *l, int64_t i, const void *item)
{
    HjList *L = l->data;
    if (norm_index(L, &i, "list assignment index out of range"))
        return -1;
    replace_item(L->ops, L->items + i * L->ops->size, item);
    return 0;
}

int32_t rt_list_pop(HjMemInfo *l, int64_t i, void *out)
{
    HjList *L = l->data;
    if (L->len == 0) {
        rt_raise("IndexError", "pop from empty list");
        return -1;
    }
    if (norm_index(L, &i, "pop index out of range"))
        return -1;
    int64_t size = L->ops->size;
    char *at = L->items + i * size;
    memcpy(out, at, (size_t)size); /* the list's reference moves to out */
    memmove(at, at + size, (size_t)((L->len - i - 1) * size));
    L->len--;
    return 0;
}

/* Remove items [i, i + n) (their references are dropped). */
static void remove_range(HjList *L, int64_t i, int64_t n)
{
    int64_t size = L->ops->size;
    char *at = L->items + i * size;
    it_decref_n(L->ops, at, n);
    memmove(at, at + n * size, (size_t)((L->len - i - n) * size));
    L->len -= n;
}

int32_t rt_list_delitem(HjMemInfo *l, int64_t i)
{
    HjList *L = l->data;
    if (norm_index(L, &i, "list assignment index out of range"))
        return -1;
    remove_range(L, i, 1);
    return 0;
}

/* First index in [lo, hi) whose item equals `item`, or -1. */
static int64_t find(const HjList *L, const void *item, int64_t lo, int64_t hi)
{
    const RtItemOps *ops = L->ops;
    int64_t size = ops->size;
    if (!ops->eq && size == 8) {
        uint64_t v;
        memcpy(&v, item, 8);
        for (int64_t i = lo; i < hi; i++) {
            uint64_t w;
            memcpy(&w, L->items + i * 8, 8);
            if (w == v)
                return i;
        }
        return -1;
    }
    for (int64_t i = lo; i < hi; i++)
        if (it_eq(ops, L->items + i * size, item))
            return i;
    return -1;
}

int32_t rt_list_remove(HjMemInfo *l, const void *item)
{
    HjList *L = l->data;
    int64_t i = find(L, item, 0, L->len);
    if (i < 0) {
        rt_raise("ValueError", "list.remove(x): x not in list");
        return -1;
    }
    remove_range(L, i, 1);
    return 0;
}

int64_t rt_list_index(HjMemInfo *l, const void *item, int64_t start, int64_t stop)
{
    HjList *L = l->data;
    int64_t n = L->len;
    if (start == RT_SLICE_NONE)
        start = 0;
    if (stop == RT_SLICE_NONE)
        stop = n;
    if (start < 0 && (start += n) < 0)
        start = 0;
    if (stop < 0 && (stop += n) < 0)
        stop = 0;
    if (stop > n)
        stop = n;
    int64_t i = start < stop ? find(L, item, start, stop) : -1;
    if (i < 0)
        rt_raise("ValueError", "list.index(x): x not in list");
    return i;
}

int64_t rt_list_count(HjMemInfo *l, const void *item)
{
    HjList *L = l->data;
    int64_t c = 0;
    for (int64_t i = 0; (i = find(L, item, i, L->len)) >= 0; i++)
        c++;
    return c;
}

int32_t rt_list_contains(HjMemInfo *l, const void *item)
{
    HjList *L = l->data;
    return find(L, item, 0, L->len) >= 0;
}

static void swap_bytes(char *a, char *b, int64_t size)
{
    char tmp[64];
    while (size > 0) {
        size_t k = size < (int64_t)sizeof tmp ? (size_t)size : sizeof tmp;
        memcpy(tmp, a, k);
        memcpy(a, b, k);
        memcpy(b, tmp, k);
        a += k, b += k, size -= (int64_t)k;
    }
}

static void reverse_items(char *items, int64_t n, int64_t size)
{
    if (size == 8) {
        uint64_t *p = (uint64_t *)(void *)items; /* malloc'ed: aligned */
        for (int64_t i = 0, j = n - 1; i < j; i++, j--) {
            uint64_t t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        return;
    }
    for (int64_t i = 0, j = n - 1; i < j; i++, j--)
        swap_bytes(items + i * size, items + j * size, size);
}

void rt_list_reverse(HjMemInfo *l)
{
    HjList *L = l->data;
    reverse_items(L->items, L->len, L->ops->size);
}

/* ---- sorting ----------------------------------------------------------
 * Bottom-up merge sort: insertion sort of RUN-item runs, then passes that
 * merge neighbouring runs between a and tmp; a merge whose halves are
 * already in order is a copy.  Stable: the right item goes first only when
 * it is strictly less.  MSORT(name, T, LESS) defines name(a, tmp, n, lt)
 * sorting a[0..n) of T with LESS(x, y). */
#define RUN 24
#define MSORT(name, T, LESS)                                                                       \
    static void name(T *a, T *tmp, int64_t n, int (*lt)(const void *, const void *))              \
    {                                                                                              \
        (void)lt;                                                                                  \
        for (int64_t lo = 0; lo < n; lo += RUN) {                                                  \
            int64_t hi = lo + RUN < n ? lo + RUN : n;                                              \
            for (int64_t i = lo + 1; i < hi; i++) {                                                \
                T x = a[i];                                                                        \
                int64_t j = i;                                                                     \
                while (j > lo && LESS(x, a[j - 1])) {                                              \
                    a[j] = a[j - 1];                                                               \
                    j--;                                                                           \
                }                                                                                  \
                a[j] = x;                                                                          \
            }                                                                                      \
        }                                                                                          \
        T *src = a, *dst = tmp;                                                                    \
        for (int64_t w = RUN; w < n; w *= 2) {                                                     \
            for (int64_t lo = 0; lo < n; lo += 2 * w) {                                            \
                int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;       \
                if (mid == hi || !LESS(src[mid], src[mid - 1])) {                                  \
                    memcpy(dst + lo, src + lo, sizeof(T) * (size_t)(hi - lo));                     \
                    continue;                                                                      \
                }                                                                                  \
                int64_t i = lo, j = mid, k = lo;                                                   \
                while (i < mid && j < hi)                                                          \
                    dst[k++] = LESS(src[j], src[i]) ? src[j++] : src[i++];                         \
                while (i < mid)                                                                    \
                    dst[k++] = src[i++];                                                           \
                while (j < hi)                                                                     \
                    dst[k++] = src[j++];                                                           \
            }                                                                                      \
            T *t = src;                                                                            \
            src = dst;                                                                             \
            dst = t;                                                                               \
        }                                                                                          \
        if (src != a)                                                                              \
            memcpy(a, src, sizeof(T) * (size_t)n);                                                 \
    }

#define LESS_NUM(x, y) ((x) < (y))
#define LESS_PTR(x, y) lt((x), (y))
MSORT(msort_i64, int64_t, LESS_NUM)
MSORT(msort_f64, double, LESS_NUM)
typedef char *ItemPtr;
MSORT(msort_ptr, ItemPtr, LESS_PTR)

/* Stable sort of n items of `size` bytes at items by lt.  If perm is not
 * NULL, perm[k] receives the old index of the item now at k (and items is
 * left unchanged: the keyed sort permutes two lists by it). */
static int sort_items(char *items, int64_t n, int64_t size, int (*lt)(const void *, const void *),
                      int64_t *perm)
{
    if (n < 2) {
        if (perm && n == 1)
            perm[0] = 0;
        return 0;
    }
    if (!perm && size == 8 && (lt == rt_lt_i64 || lt == rt_lt_f64)) {
        void *tmp = ct_malloc_n(n, 8);
        if (!tmp)
            return -1;
        if (lt == rt_lt_i64)
            msort_i64((int64_t *)(void *)items, tmp, n, NULL);
        else
            msort_f64((double *)(void *)items, tmp, n, NULL);
        free(tmp);
        return 0;
    }
    char **p = ct_malloc_n(2 * n, sizeof(char *));
    if (!p)
        return -1;
    for (int64_t i = 0; i < n; i++)
        p[i] = items + i * size;
    msort_ptr(p, p + n, n, lt);
    if (perm) {
        for (int64_t i = 0; i < n; i++)
            perm[i] = (p[i] - items) / size;
        free(p);
        return 0;
    }
    char *out = ct_malloc_n(n, size);
    if (!out) {
        free(p);
        return -1;
    }
    for (int64_t i = 0; i < n; i++)
        memcpy(out + i * size, p[i], (size_t)size);
    memcpy(items, out, (size_t)(n * size));
    free(out);
    free(p);
    return 0;
}

static int no_order(void)
{
    rt_raise("TypeError", "'<' not supported between instances of these items");
    return -1;
}

int32_t rt_list_sort(HjMemInfo *l, int (*lt)(const void *, const void *), int32_t reverse)
{
    HjList *L = l->data;
    if (!lt)
        lt = L->ops->lt;
    if (!lt)
        return no_order();
    /* reverse as CPython: reverse, stable sort, reverse (equal items keep
     * their order) */
    if (reverse)
        reverse_items(L->items, L->len, L->ops->size);
    int r = sort_items(L->items, L->len, L->ops->size, lt, NULL);
    if (reverse)
        reverse_items(L->items, L->len, L->ops->size);
    return r;
}

/* Apply perm (new k <- old perm[k]) to n items of size bytes. */
static int permute(char *items, int64_t n, int64_t size, const int64_t *perm)
{
    char *out = ct_malloc_n(n, size);
    if (!out)
        return -1;
    for (int64_t k = 0; k < n; k++)
        memcpy(out + k * size, items + perm[k] * size, (size_t)size);
    memcpy(items, out, (size_t)(n * size));
    free(out);
    return 0;
}

int32_t rt_list_sort_keyed(HjMemInfo *l, HjMemInfo *keys, int32_t reverse)
{
    HjList *L = l->data, *K = keys->data;
    if (L->len != K->len) {
        rt_raise("ValueError", "list modified during sort");
        return -1;
    }
    if (!K->ops->lt)
        return no_order();
    int64_t n = L->len;
    if (n < 2)
        return 0;
    int64_t *perm = ct_malloc_n(n, sizeof(int64_t));
    if (!perm)
        return -1;
    if (reverse) {
        reverse_items(L->items, n, L->ops->size);
        reverse_items(K->items, n, K->ops->size);
    }
    int r = sort_items(K->items, n, K->ops->size, K->ops->lt, perm);
    if (r == 0)
        r = permute(K->items, n, K->ops->size, perm);
    if (r == 0)
        r = permute(L->items, n, L->ops->size, perm);
    if (reverse) {
        reverse_items(L->items, n, L->ops->size);
        reverse_items(K->items, n, K->ops->size);
    }
    free(perm);
    return r;
}

/* ---- slices ----------------------------------------------------------- */

/* PySlice_Unpack + PySlice_AdjustIndices: the slice length, or -1 with
 * ValueError for step 0. */
static int64_t slice_adjust(int64_t len, int64_t *start, int64_t *stop, int64_t step)
{
    if (step == 0) {
        rt_raise("ValueError", "slice step cannot be zero");
        return -1;
    }
    if (*start == RT_SLICE_NONE)
        *start = step < 0 ? INT64_MAX : 0;
    if (*stop == RT_SLICE_NONE)
        *stop = step < 0 ? INT64_MIN + 1 : INT64_MAX;
    if (*start < 0) {
        *start += len;
        if (*start < 0)
            *start = step < 0 ? -1 : 0;
    } else if (*start >= len) {
        *start = step < 0 ? len - 1 : len;
    }
    if (*stop < 0) {
        *stop += len;
        if (*stop < 0)
            *stop = step < 0 ? -1 : 0;
    } else if (*stop >= len) {
        *stop = step < 0 ? len - 1 : len;
    }
    if (step < 0) {
        if (*stop < *start)
            return (*start - *stop - 1) / (-step) + 1;
    } else if (*start < *stop) {
        return (*stop - *start - 1) / step + 1;
    }
    return 0;
}

HjMemInfo *rt_list_getslice(HjMemInfo *l, int64_t start, int64_t stop, int64_t step)
{
    HjList *L = l->data;
    int64_t n = slice_adjust(L->len, &start, &stop, step);
    if (n < 0)
        return NULL;
    if (step == 1)
        return rt_list_from_strided(L->ops, L->items + start * L->ops->size, n, L->ops->size);
    return rt_list_from_strided(L->ops, L->items + start * L->ops->size, n, step * L->ops->size);
}

HjMemInfo *rt_list_copy(HjMemInfo *l)
{
    HjList *L = l->data;
    return rt_list_from_strided(L->ops, L->items, L->len, L->ops->size);
}

int32_t rt_list_delslice(HjMemInfo *l, int64_t start, int64_t stop, int64_t step)
{
    HjList *L = l->data;
    int64_t n = slice_adjust(L->len, &start, &stop, step);
    if (n <= 0)
        return (int32_t)n; /* 0, or -1 for step 0 */
    if (step == 1) {
        remove_range(L, start, n);
        return 0;
    }
    if (step < 0) { /* the same items, walked upwards */
        start += step * (n - 1);
        step = -step;
    }
    int64_t size = L->ops->size, k = start;
    for (int64_t i = start; i < L->len; i++) {
        char *it = L->items + i * size;
        if (i >= start && (i - start) % step == 0 && (i - start) / step < n) {
            it_decref(L->ops, it);
            continue;
        }
        if (k != i)
            memcpy(L->items + k * size, it, (size_t)size);
        k++;
    }
    L->len = k;
    return 0;
}

int32_t rt_list_setslice(HjMemInfo *l, int64_t start, int64_t stop, int64_t step, HjMemInfo *src)
{
    HjList *L = l->data;
    int64_t n = slice_adjust(L->len, &start, &stop, step);
    if (n < 0)
        return -1;
    HjMemInfo *own = NULL;
    if (src == l) { /* a[::2] = a, a[1:] = a: from a copy, as CPython */
        own = rt_list_copy(l);
        if (!own)
            return -1;
        src = own;
    }
    HjList *S = src->data;
    int64_t size = L->ops->size, m = S->len;
    int32_t r = 0;
    if (step == 1) {
        if (stop < start)
            stop = start;
        int64_t old = stop - start, len = L->len;
        /* the replaced items are released after the list is consistent */
        char *gone = NULL;
        if (old > 0 && L->ops->decref) {
            gone = ct_malloc_n(old, size);
            if (!gone) {
                r = -1;
                goto out;
            }
            memcpy(gone, L->items + start * size, (size_t)(old * size));
        }
        if (m > old && grow(L, len + m - old, NULL)) {
            free(gone);
            r = -1;
            goto out;
        }
        char *at = L->items + start * size;
        memmove(at + m * size, at + old * size, (size_t)((len - stop) * size));
        memcpy(at, S->items, (size_t)(m * size));
        it_incref_n(L->ops, at, m);
        L->len = len + m - old;
        if (gone) {
            it_decref_n(L->ops, gone, old);
            free(gone);
        }
        goto out;
    }
    if (m != n) {
        char msg[128];
        snprintf(msg, sizeof msg, "attempt to assign sequence of size %lld to extended slice of size %lld",
                 (long long)m, (long long)n);
        rt_raise("ValueError", msg);
        r = -1;
        goto out;
    }
    for (int64_t k = 0; k < n; k++)
        replace_item(L->ops, L->items + (start + k * step) * size, S->items + k * size);
out:
    rt_decref(own);
    return r;
}

/* ---- whole-list operations --------------------------------------------- */

HjMemInfo *rt_list_concat(HjMemInfo *a, HjMemInfo *b)
{
    HjList *A = a->data, *B = b->data;
    HjMemInfo *r = rt_list_new(A->ops, A->len + B->len);
    if (!r || rt_list_extend(r, a) || rt_list_extend(r, b)) {
        rt_decref(r);
        return NULL;
    }
    return r;
}

/* Append n - 1 more copies of the first len items (n >= 1). */
static int repeat_tail(HjList *L, int64_t n)
{
    int64_t len = L->len, size = L->ops->size;
    if (n <= 1 || len == 0)
        return 0;
    if (len > INT64_MAX / n) {
        rt_raise("MemoryError", "");
        return -1;
    }
    if (grow(L, len * n, NULL))
        return -1;
    for (int64_t k = 1; k < n; k++)
        memcpy(L->items + k * len * size, L->items, (size_t)(len * size));
    it_incref_n(L->ops, L->items + len * size, len * (n - 1));
    L->len = len * n;
    return 0;
}

HjMemInfo *rt_list_repeat(HjMemInfo *a, int64_t n)
{
    HjList *A = a->data;
    HjMemInfo *r = rt_list_new(A->ops, 0);
    if (!r)
        return NULL;
    if (n > 0 && (rt_list_extend(r, a) || repeat_tail(r->data, n))) {
        rt_decref(r);
        return NULL;
    }
    return r;
}

int32_t rt_list_irepeat(HjMemInfo *l, int64_t n)
{
    if (n <= 0) {
        rt_list_clear(l);
        return 0;
    }
    return repeat_tail(l->data, n);
}

void rt_list_clear(HjMemInfo *l)
{
    HjList *L = l->data;
    int64_t n = L->len;
    char *items = L->items;
    /* detach first: the list is empty while the items are released */
    L->len = 0;
    L->cap = 0;
    L->items = NULL;
    it_decref_n(L->ops, items, n);
    free(items);
}

int32_t rt_list_richcompare(HjMemInfo *a, HjMemInfo *b, int32_t op)
{
    HjList *A = a->data, *B = b->data;
    const RtItemOps *ops = A->ops;
    if ((op == RT_CMP_EQ || op == RT_CMP_NE) && A->len != B->len)
        return op == RT_CMP_NE;
    int64_t n = A->len < B->len ? A->len : B->len, size = ops->size, i = 0;
    while (i < n && it_eq(ops, A->items + i * size, B->items + i * size))
        i++;
    if (i == n) { /* one is a prefix of the other: compare lengths */
        int64_t x = A->len, y = B->len;
        switch (op) {
        case RT_CMP_LT: return x < y;
        case RT_CMP_LE: return x <= y;
        case RT_CMP_EQ: return x == y;
        case RT_CMP_NE: return x != y;
        case RT_CMP_GT: return x > y;
        default: return x >= y;
        }
    }
    if (op == RT_CMP_EQ)
        return 0;
    if (op == RT_CMP_NE)
        return 1;
    if (!ops->lt)
        return no_order();
    const char *x = A->items + i * size, *y = B->items + i * size;
    switch (op) {
    case RT_CMP_LT: return ops->lt(x, y);
    case RT_CMP_LE: return ops->lt(x, y) || it_eq(ops, x, y);
    case RT_CMP_GT: return ops->lt(y, x);
    default: return ops->lt(y, x) || it_eq(ops, x, y);
    }
}

int32_t rt_list_eq(HjMemInfo *a, HjMemInfo *b) { return rt_list_richcompare(a, b, RT_CMP_EQ); }
