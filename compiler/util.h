/* util.h - arena allocation, growable arrays and string buffers used by the
 * whole compiler.  Everything a compilation allocates comes from one Arena
 * and is freed with it (arena_free); nothing here ever exits the process:
 * allocation failure is reported through the arena's `oom` flag and the
 * caller turns it into a diagnostic.  Not thread-safe: one arena per
 * compilation, one compilation per thread. */
#ifndef HPCJIT_UTIL_H
#define HPCJIT_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#if defined(__GNUC__)
#define HJ_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define HJ_PRINTF(fmt, args)
#endif

typedef struct ArenaBlock ArenaBlock;
typedef struct Arena {
    ArenaBlock *head;
    bool oom; /* set when an allocation failed; the result is then a static
                 zeroed block so callers can unwind without NULL checks */
} Arena;

void arena_init(Arena *a);
void arena_free(Arena *a);
/* Zeroed, 16-byte aligned memory owned by the arena. */
void *arena_alloc(Arena *a, size_t n);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);
char *arena_printf(Arena *a, const char *fmt, ...) HJ_PRINTF(2, 3);
char *arena_vprintf(Arena *a, const char *fmt, va_list ap);

/* A growable array of pointers allocated from an arena. */
typedef struct PtrVec {
    void **data;
    int len, cap;
} PtrVec;

void vec_push(Arena *a, PtrVec *v, void *p);
#define VEC_AT(v, i) ((v).data[(i)])

/* A growable heap string (malloc, not arena): used for IR dumps, type
 * names and messages that leave the compiler.  sb_take() hands ownership
 * of the buffer to the caller (free() it). */
typedef struct StrBuf {
    char *s;
    size_t len, cap;
    bool oom;
} StrBuf;

void sb_init(StrBuf *b);
void sb_free(StrBuf *b);
void sb_putn(StrBuf *b, const char *s, size_t n);
void sb_puts(StrBuf *b, const char *s);
void sb_putc(StrBuf *b, char c);
void sb_printf(StrBuf *b, const char *fmt, ...) HJ_PRINTF(2, 3);
char *sb_take(StrBuf *b);

#endif
