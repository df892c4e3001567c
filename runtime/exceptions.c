/* exceptions.c - the per-thread pending exception of compiled code.
 *
 * Compiled code records an exception here and returns -1 up the call
 * chain; the dispatcher fetches it once back in Python.  The strings are
 * copied into thread-local buffers so that callers may pass temporaries. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hpcjit/runtime.h"

typedef struct RtExcState {
    int pending;
    char type[RT_EXC_TYPE_MAX];
    char msg[RT_EXC_MSG_MAX];
} RtExcState;

static _Thread_local RtExcState exc_state;

static void copy_trunc(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

void rt_raise(const char *type, const char *msg)
{
    RtExcState *st = &exc_state;
    copy_trunc(st->type, sizeof st->type, type ? type : "RuntimeError");
    copy_trunc(st->msg, sizeof st->msg, msg ? msg : "");
    st->pending = 1;
}

void rt_raise_index(int64_t index, int64_t axis, int64_t size)
{
    char buf[128];
    snprintf(buf, sizeof buf, "index %" PRId64 " is out of bounds for axis %" PRId64 " with size %" PRId64,
             index, axis, size);
    rt_raise("IndexError", buf);
}

void rt_raise_zerodiv(const char *msg)
{
    rt_raise("ZeroDivisionError", msg ? msg : "division by zero");
}

int rt_exc_fetch(const char **type, const char **msg)
{
    RtExcState *st = &exc_state;
    if (!st->pending)
        return 0;
    st->pending = 0;
    if (type)
        *type = st->type;
    if (msg)
        *msg = st->msg;
    return 1;
}

int rt_exc_pending(void) { return exc_state.pending; }

void rt_exc_clear(void) { exc_state.pending = 0; }

void rt_exc_unraisable(const char *where) {
    const char *type = NULL, *msg = NULL;
    if (!rt_exc_fetch(&type, &msg))
        return;
    fprintf(stderr, "hpcjit: exception in %s (ignored, the function returns 0): %s%s%s\n", where, type,
            msg && msg[0] ? ": " : "", msg ? msg : "");
}
