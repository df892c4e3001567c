/* hpcjit/runtime.h - what compiled code calls: reference-counted memory for
 * arrays and the per-thread exception state.
 *
 * The runtime lives in the light extension module (hpcjit._core) so that it
 * is loaded without LLVM.  The compiler learns the addresses of these
 * functions through rt_symbols() and registers them with the JIT as
 * absolute symbols under the same names; compiled code declares them with
 * the prototypes below (the lowering keeps its declarations in sync).
 *
 * Thread-safety: every function here may be called from any thread, with
 * or without the GIL.  Reference counts are atomic.  The exception state is
 * thread-local.  No function here touches the Python C API.
 */
#ifndef HPCJIT_RUNTIME_H
#define HPCJIT_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "hpcjit/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- memory --------------------------------------------------------------
 * A MemInfo owns one block of array data.  Layout is fixed because compiled
 * code reads `data` directly and may inline the reference count update. */
struct HjMemInfo {
    int64_t refcnt;  /* atomic */
    void *data;      /* 64-byte aligned (rt_alloc_packed: 8)              */
    int64_t size;    /* bytes                                             */
    void (*dtor)(HjMemInfo *); /* NULL: the default (free the block)       */
    void *dtor_info;
};

/* Allocate `nbytes` (>= 0) of 64-byte aligned array memory with refcount 1.
 * On failure sets MemoryError (too large / out of memory) or ValueError
 * (negative size) and returns NULL. */
HjMemInfo *rt_alloc(int64_t nbytes);
/* Like rt_alloc but the data is zero-filled. */
HjMemInfo *rt_alloc_zeroed(int64_t nbytes);
/* As rt_alloc, but the data follows the header directly (8-byte aligned,
 * no padding to RT_ALIGN): for small objects nothing vectorises over
 * (strs, hpcjit/str.h), where the padding would double the block. */
HjMemInfo *rt_alloc_packed(int64_t nbytes);
void rt_incref(HjMemInfo *mi); /* NULL is ignored */
void rt_decref(HjMemInfo *mi); /* NULL is ignored; frees at zero */
/* Immortal objects (constants the compiler emits, such as str literals:
 * hpcjit/str.h) carry refcnt RT_REFCNT_IMMORTAL; rt_incref and rt_decref
 * leave any count >= RT_REFCNT_IMMORTAL_MIN unchanged, so they are never
 * freed (and an inlined update that does change it stays far from 0). */
#define RT_REFCNT_IMMORTAL (INT64_C(1) << 62)
#define RT_REFCNT_IMMORTAL_MIN (INT64_C(1) << 61)

/* Allocation statistics (for leak tests): allocations and frees so far. */
typedef struct RtMemStats {
    int64_t alloc, free;
} RtMemStats;
RtMemStats rt_memstats(void);

/* The allocation-owner debug mode (runtime/memdebug.c), on when
 * HPCJIT_DEBUG_MEMORY (or NUMBA_DEBUG_NRT) is set and not "0": every
 * allocation is recorded with its owner, count updates on freed MemInfos
 * are reported (stderr) and skipped, and the live allocations are listed
 * at exit. */
typedef struct RtMemDebugStats {
    int64_t enabled, allocations, live, errors; /* errors: bad count updates */
} RtMemDebugStats;
typedef struct RtMemDebugEntry {
    void *address;
    int64_t size, seq;
    void *owner;           /* the code address that allocated it */
    char owner_name[160];  /* its symbol+offset, or "code at 0x..." (compiled code has no symbols) */
} RtMemDebugEntry;
int rt_memdebug_on(void);
RtMemDebugStats rt_memdebug_stats(void);
/* The live allocations with a sequence number above after_seq: writes up
 * to max of them to out and returns how many there are. */
int64_t rt_memdebug_live(RtMemDebugEntry *out, int64_t max, int64_t after_seq);
/* Print the counts and up to max live allocations to stderr. */
void rt_memdebug_report(int max);
/* Return the cached large blocks to the system; later frees of large
 * blocks unmap them at once.  Called when hpcjit._core is freed. */
void rt_memory_shutdown(void);

/* ---- exceptions ----------------------------------------------------------
 * Compiled code sets the pending exception and returns -1 up the call chain;
 * the dispatcher fetches it and raises the Python exception of that name.
 * `type` is the name of a Python builtin exception class ("ValueError") or a
 * dotted "module.Class" ("numpy.linalg.LinAlgError"), or a class of the
 * program: "<builtin base>|<key>|<key of each of its program bases>"
 * (python/hpcjit/compiler.py _exc_class); type and message are truncated
 * to these sizes. */
#define RT_EXC_TYPE_MAX 64
#define RT_EXC_MSG_MAX 1024
void rt_raise(const char *type, const char *msg);  /* msg may be NULL */
/* IndexError: "index 7 is out of bounds for axis 0 with size 5" */
void rt_raise_index(int64_t index, int64_t axis, int64_t size);
/* Shorthand used by compiled code for the common constant messages. */
void rt_raise_zerodiv(const char *msg);
/* ValueError "operands could not be broadcast together with shapes (3,)
 * (4,) " of the first statement of a fused group (compiler/lower/
 * lower_arrayexpr.c) whose operands do not broadcast, as that statement
 * alone would raise it.  desc: the statement count, then per statement its
 * count of array operands and each operand: i >= 0 the leaf whose nd axes
 * are shapes[i * nd ...], or -1 - j the array statement j computed. */
void rt_raise_broadcast(const int32_t *desc, const int64_t *shapes, int64_t nd);

/* pow(base, exp, mod) of Python ints (intmath.c): *out in [0, mod) for
 * mod > 0, (mod, 0] for mod < 0; a negative exp takes base's inverse.
 * 0, or -1 with ValueError raised (mod 0, base not invertible).
 * Thread-safe. */
int32_t rt_int_powmod(int64_t base, int64_t exp, int64_t mod, int64_t *out);

/* For the dispatcher: returns 1 and fills *type / *msg (valid until the next
 * raise on this thread) if an exception is pending, clearing it; else 0. */
int rt_exc_fetch(const char **type, const char **msg);
int rt_exc_pending(void);
void rt_exc_clear(void);
/* try/except in compiled code.  rt_exc_matches: is the pending exception
 * of class `cls` (a builtin exception class name, "Exception",
 * "BaseException", or a dotted class compared by name), following CPython's
 * hierarchy of builtin exceptions (ZeroDivisionError is an ArithmeticError,
 * numpy's AxisError a ValueError and an IndexError, ...)?  rt_exc_save
 * moves the pending exception into buf (RT_EXC_SAVE_SIZE bytes, the
 * handler's) and clears it; rt_exc_reraise makes it pending again (a bare
 * `raise` in the handler). */
#define RT_EXC_SAVE_SIZE (RT_EXC_TYPE_MAX + RT_EXC_MSG_MAX)
int rt_exc_matches(const char *cls);
/* stack.c: called at the entry of functions on a call cycle with their
 * stack pointer when it lies below *hint (the calling module's copy of the
 * main thread's limit, which it updates; may be NULL): 0, or -1 with
 * RecursionError pending when the thread's stack is nearly full.
 * Thread-safe. */
int rt_stack_check(void *frame, uintptr_t *hint);
void rt_exc_save(char *buf);
void rt_exc_reraise(const char *buf);
/* A C callback (@cfunc) cannot raise: write the pending exception to
 * stderr, naming `where`, and clear it (Numba prints it the same way). */
void rt_exc_unraisable(const char *where);

/* ---- symbols for the JIT ------------------------------------------------ */
typedef struct RtSymbol {
    const char *name;
    void *address;
} RtSymbol;
/* The table of runtime functions compiled code may call (NULL-terminated). */
const RtSymbol *rt_symbols(void);

#ifdef __cplusplus
}
#endif
#endif
