/* objmode.c - the call from compiled code into an objmode block's Python
 * function, through the hook hpcjit._core installs (hpcjit/objmode.h). */
#include "hpcjit/objmode.h"

#include <stdatomic.h>

#include "hpcjit/runtime.h"

static _Atomic(RtObjmodeHook) hook;
static _Atomic(RtGilUnlock) unlock_hook;
static _Atomic(RtGilRelock) relock_hook;

void rt_objmode_set_hook(RtObjmodeHook h, RtGilUnlock unlock, RtGilRelock relock)
{
    atomic_store(&hook, h);
    atomic_store(&unlock_hook, unlock);
    atomic_store(&relock_hook, relock);
}

void *rt_objmode_unlock(void)
{
    RtGilUnlock u = atomic_load(&unlock_hook);
    return u ? u() : NULL;
}

void rt_objmode_relock(void *token)
{
    RtGilRelock r = atomic_load(&relock_hook);
    if (token && r)
        r(token);
}

int32_t rt_objmode_call(int64_t handle, const char *in_tc, void *in, const char *out_tc, void *out)
{
    RtObjmodeHook h = atomic_load(&hook);
    if (!h) {
        rt_raise("SystemError", "hpcjit: objmode block called without hpcjit._core loaded");
        return -1;
    }
    return h(handle, in_tc, in, out_tc, out);
}
