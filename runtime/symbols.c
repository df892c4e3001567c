/* symbols.c - the runtime functions compiled code may call, by name, for
 * the JIT to register as absolute symbols (see runtime.h). */
#include "hpcjit/parallel.h"
#include "hpcjit/pool.h"
#include "hpcjit/runtime.h"

/* Function pointers stored as data pointers: POSIX guarantees the
 * round trip, and the JIT only needs the address. */
#define RT_SYM(fn) { #fn, (void *)(uintptr_t)&fn }

static const RtSymbol symbol_table[] = {
    RT_SYM(rt_alloc),
    RT_SYM(rt_alloc_zeroed),
    RT_SYM(rt_incref),
    RT_SYM(rt_decref),
    RT_SYM(rt_raise),
    RT_SYM(rt_raise_index),
    RT_SYM(rt_raise_zerodiv),
    RT_SYM(rt_exc_pending),
    RT_SYM(rt_exc_clear),
    /* prange loops of parallel=True functions (compiler/lower_parallel.c) */
    RT_SYM(rt_parallel_for),
    RT_SYM(pool_parallel_for),
    RT_SYM(pool_get_num_threads),
    RT_SYM(pool_get_thread_id),
    { NULL, NULL },
};

const RtSymbol *rt_symbols(void) { return symbol_table; }
