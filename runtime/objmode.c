/* objmode.c - the call from compiled code into an objmode block's Python
 * function, through the hook hpcjit._core installs (hpcjit/objmode.h). */
#include "hpcjit/objmode.h"

#include <stdatomic.h>

#include "hpcjit/runtime.h"

static _Atomic(RtObjmodeHook) hook;

void rt_objmode_set_hook(RtObjmodeHook h) { atomic_store(&hook, h); }

int32_t rt_objmode_call(int64_t handle, const char *in_tc, void *in, const char *out_tc, void *out)
{
    RtObjmodeHook h = atomic_load(&hook);
    if (!h) {
        rt_raise("SystemError", "hpcjit: objmode block called without hpcjit._core loaded");
        return -1;
    }
    return h(handle, in_tc, in, out_tc, out);
}
