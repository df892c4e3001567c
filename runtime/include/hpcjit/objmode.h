/* objmode.h - `with objmode(...)` blocks of compiled functions.
 *
 * hpcjit.objmode_blocks turns each block into a Python function of the
 * variables it reads that returns a tuple of the variables it declares;
 * compiled code calls it through rt_objmode_call.  The runtime links no
 * Python: hpcjit._core installs the hook that does the work (with the GIL,
 * taken with PyGILState_Ensure, so nogil code may call it too):
 *   - box the inputs: `in` points to a tuple of typecode in_tc (abi.h
 *     layout) whose references the call takes over;
 *   - call block number `handle` with them;
 *   - unbox the returned tuple into `out` (typecode out_tc) after checking
 *     each value against its declared type; arrays keep the NumPy array
 *     alive through a MemInfo that owns a reference to it.
 * Returns 0, or -1 with the runtime's exception set: the Python exception
 * the block raised (its class name and message; the hook keeps the
 * exception object itself for the dispatcher, which raises that object), or
 * a TypeError for a value that does not match its declaration. */
#ifndef HPCJIT_OBJMODE_H
#define HPCJIT_OBJMODE_H

#include <stdint.h>

typedef int32_t (*RtObjmodeHook)(int64_t handle, const char *in_tc, void *in, const char *out_tc,
                                 void *out);

/* Install the hooks (hpcjit._core); NULL removes them.  unlock lets the
 * GIL go when the calling thread holds it (its token, else NULL); relock
 * takes it back. */
typedef void *(*RtGilUnlock)(void);
typedef void (*RtGilRelock)(void *token);
void rt_objmode_set_hook(RtObjmodeHook hook, RtGilUnlock unlock, RtGilRelock relock);
/* Reserved handles: not a block but CPython's own operation on the one
 * input (an IntEnum/IntFlag member, boxed as the member), its result the
 * one output: repr(x), ~x (compiler/lower/lower_objmode.c lower_pyop). */
#define RT_OBJMODE_REPR (-1)
#define RT_OBJMODE_INVERT (-2)
/* What compiled code calls (see above). */
int32_t rt_objmode_call(int64_t handle, const char *in_tc, void *in, const char *out_tc, void *out);
/* Around a parallel loop whose threads may run objmode blocks: the thread
 * that starts it must not hold the GIL while it waits for them. */
void *rt_objmode_unlock(void);
void rt_objmode_relock(void *token);

#endif
