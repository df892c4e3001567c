/* util.c - arena, vectors and string buffers (see util.h). */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ArenaBlock {
    ArenaBlock *next;
    size_t used, cap;
    _Alignas(16) unsigned char mem[];
};

#define BLOCK_SIZE (64 * 1024)

static _Alignas(16) unsigned char oom_block[4096];

void arena_init(Arena *a) {
    a->head = NULL;
    a->oom = false;
}

void arena_free(Arena *a) {
    ArenaBlock *b = a->head;
    while (b) {
        ArenaBlock *n = b->next;
        free(b);
        b = n;
    }
    a->head = NULL;
}

void *arena_alloc(Arena *a, size_t n) {
    n = (n + 15) & ~(size_t)15;
    if (n == 0)
        n = 16;
    ArenaBlock *b = a->head;
    if (!b || b->used + n > b->cap) {
        size_t cap = n > BLOCK_SIZE ? n : BLOCK_SIZE;
        b = malloc(sizeof(ArenaBlock) + cap);
        if (!b) {
            a->oom = true;
            memset(oom_block, 0, sizeof oom_block);
            return n <= sizeof oom_block ? oom_block : NULL;
        }
        b->used = 0;
        b->cap = cap;
        if (a->head && n > BLOCK_SIZE) {
            /* keep the partly used head block current */
            b->next = a->head->next;
            a->head->next = b;
        } else {
            b->next = a->head;
            a->head = b;
        }
    }
    void *p = b->mem + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
    char *p = arena_alloc(a, n + 1);
    if (p && !a->oom)
        memcpy(p, s, n);
    return p;
}

char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_vprintf(Arena *a, const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        n = 0;
    char *p = arena_alloc(a, (size_t)n + 1);
    if (p && !a->oom)
        vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

char *arena_printf(Arena *a, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *p = arena_vprintf(a, fmt, ap);
    va_end(ap);
    return p;
}

void vec_push(Arena *a, PtrVec *v, void *p) {
    if (v->len == v->cap) {
        int ncap = v->cap ? v->cap * 2 : 4;
        void **nd = arena_alloc(a, sizeof(void *) * (size_t)ncap);
        if (a->oom)
            return;
        if (v->len)
            memcpy(nd, v->data, sizeof(void *) * (size_t)v->len);
        v->data = nd;
        v->cap = ncap;
    }
    v->data[v->len++] = p;
}

void sb_init(StrBuf *b) {
    b->s = NULL;
    b->len = b->cap = 0;
    b->oom = false;
}

void sb_free(StrBuf *b) {
    free(b->s);
    sb_init(b);
}

static bool sb_reserve(StrBuf *b, size_t extra) {
    if (b->oom)
        return false;
    if (b->len + extra + 1 <= b->cap)
        return true;
    size_t ncap = b->cap ? b->cap * 2 : 64;
    while (ncap < b->len + extra + 1)
        ncap *= 2;
    char *ns = realloc(b->s, ncap);
    if (!ns) {
        b->oom = true;
        return false;
    }
    b->s = ns;
    b->cap = ncap;
    return true;
}

void sb_putn(StrBuf *b, const char *s, size_t n) {
    if (!sb_reserve(b, n))
        return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

void sb_puts(StrBuf *b, const char *s) { sb_putn(b, s, strlen(s)); }
void sb_putc(StrBuf *b, char c) { sb_putn(b, &c, 1); }

void sb_printf(StrBuf *b, const char *fmt, ...) {
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n > 0 && sb_reserve(b, (size_t)n)) {
        vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
        b->len += (size_t)n;
    }
    va_end(ap);
}

char *sb_take(StrBuf *b) {
    char *s = b->s;
    if (!s) {
        s = malloc(1);
        if (s)
            s[0] = 0;
    }
    sb_init(b);
    return s;
}
