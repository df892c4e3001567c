/* stack.c - deep recursion in compiled code raises RecursionError.
 *
 * The entry of every function on a call cycle (Spec.recursive) compares
 * its frame address with rt_stack_hint and, below it, calls
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

/* Compiled code calls rt_stack_check only for frames below this address:
 * the main thread's limit once known (other threads' stacks lie below the
 * main stack, so their frames always take the call, which knows their own
 * limits).  Until then, and in `hpcjit cc` modules, every frame does. */
uintptr_t rt_stack_hint = UINTPTR_MAX;

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
        __atomic_store_n(&rt_stack_hint, stack_low, __ATOMIC_RELAXED);
    pthread_attr_destroy(&attr);
}

int rt_stack_check(void *frame) {
    if (!stack_low) {
        if (stack_unknown)
            return 0;
        find_stack();
        if (!stack_low)
            return 0;
    }
    if ((uintptr_t)frame >= stack_low)
        return 0;
    rt_raise("RecursionError", "maximum recursion depth exceeded in compiled code (the thread's "
                               "stack is nearly full)");
    return -1;
}
