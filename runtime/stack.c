/* stack.c - deep recursion in compiled code raises RecursionError.
 *
 * The entry of every function on a call cycle (Spec.recursive) compares
 * its stack pointer with its module's copy of the main thread's limit
 * (compiler/lower/lower.c, stack_check) and, below it, calls
 * rt_stack_check; when the frame is within
 * RT_STACK_MARGIN of the end of the thread's stack (found once per thread
 * with pthread_getattr_np), the call raises RecursionError and the
 * recursion unwinds through the normal error exits, releasing what each
 * frame holds.  CPython's own limit counts frames; this one counts bytes,
 * so any depth that fits runs. */
#define _GNU_SOURCE
#include "hpcjit/runtime.h"

#include <pthread.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

/* room left for the raise and the unwinding (and a signal handler) */
#define RT_STACK_MARGIN (256 * 1024)

/* the main thread's limit once known: compiled modules keep a copy of it
 * (other threads' stacks lie below the main stack, so their frames always
 * take the call, which knows their own limits) */
static uintptr_t main_low;

static __thread uintptr_t stack_low; /* lowest address a frame may use; 0: not known yet */
static __thread int stack_unknown;

static void find_stack(void) {
    pthread_attr_t attr;
    void *addr = NULL;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) {
        stack_unknown = 1;
        return;
    }
    if (pthread_attr_getstack(&attr, &addr, &size) == 0 && addr && size > 2 * RT_STACK_MARGIN)
        stack_low = (uintptr_t)addr + RT_STACK_MARGIN;
    else
        stack_unknown = 1;
    if (stack_low && syscall(SYS_gettid) == getpid()) /* the main thread */
        __atomic_store_n(&main_low, stack_low, __ATOMIC_RELAXED);
    pthread_attr_destroy(&attr);
}

int rt_stack_check(void *frame, uintptr_t *hint) {
    if (!stack_low) {
        if (stack_unknown)
            return 0;
        find_stack();
        if (!stack_low)
            return 0;
    }
    uintptr_t m = __atomic_load_n(&main_low, __ATOMIC_RELAXED);
    if (hint && m && *hint != m) /* the caller's module learns the main thread's limit */
        __atomic_store_n(hint, m, __ATOMIC_RELAXED);
    if ((uintptr_t)frame >= stack_low)
        return 0;
    rt_raise("RecursionError", "maximum recursion depth exceeded in compiled code (the thread's "
                               "stack is nearly full)");
    return -1;
}
