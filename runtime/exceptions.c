/* exceptions.c - the per-thread pending exception of compiled code.
 *
 * Compiled code records an exception here and returns -1 up the call
 * chain; the dispatcher fetches it once back in Python.  The strings are
 * copied into thread-local buffers so that callers may pass temporaries. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcjit/abi.h"
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

void rt_raise_broadcast(const int32_t *desc, const int64_t *shapes, int64_t nd)
{
    static const char head[] = "operands could not be broadcast together with shapes ";
    int32_t n = desc[0];
    int64_t *st = nd > 0 && n > 0 ? malloc(sizeof(int64_t) * (size_t)n * (size_t)nd) : NULL;
    if (!st || nd > HJ_MAX_NDIM) {
        free(st);
        rt_raise("ValueError", "operands could not be broadcast together");
        return;
    }
    const int32_t *p = desc + 1;
    for (int32_t k = 0; k < n; k++) {
        int32_t m = *p++;
        int64_t *cur = st + (size_t)k * (size_t)nd;
        bool bad = false;
        for (int64_t d = 0; d < nd; d++)
            cur[d] = 1;
        for (int32_t o = 0; o < m; o++) { /* broadcast_shape's steps */
            const int64_t *s = p[o] >= 0 ? shapes + (size_t)p[o] * (size_t)nd : st + (size_t)(-1 - p[o]) * (size_t)nd;
            for (int64_t d = 0; d < nd; d++) {
                bad |= s[d] != cur[d] && s[d] != 1 && cur[d] != 1;
                if (cur[d] == 1)
                    cur[d] = s[d];
            }
        }
        if (bad) { /* raise_shapes' text: at most four operands */
            char msg[512];
            size_t len = 0;
            len += (size_t)snprintf(msg, sizeof msg, "%s", head);
            for (int32_t o = 0; o < m && o < 4 && len < sizeof msg; o++) {
                const int64_t *s = p[o] >= 0 ? shapes + (size_t)p[o] * (size_t)nd : st + (size_t)(-1 - p[o]) * (size_t)nd;
                for (int64_t d = 0; d < nd && len < sizeof msg; d++)
                    len += (size_t)snprintf(msg + len, sizeof msg - len, d ? ",%lld" : "(%lld", (long long)s[d]);
                if (len < sizeof msg)
                    len += (size_t)snprintf(msg + len, sizeof msg - len, nd == 1 ? ",) " : ") ");
            }
            free(st);
            rt_raise("ValueError", msg);
            return;
        }
        p += m;
    }
    free(st);
    rt_raise("ValueError", "operands could not be broadcast together");
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
    char text[RT_EXC_MSG_MAX];
    copy_trunc(text, sizeof text, msg ? msg : "");
    if (text[0] == HJ_EXC_ARGS_MARK[0]) { /* the raise's arguments (abi.h): "a, b" without their tags */
        size_t o = 0;
        for (const char *p = text + 1; *p; p++) {
            bool field_start = p == text + 1 || p[-1] == HJ_EXC_ARGS_SEP[0];
            if (*p == HJ_EXC_ARGS_SEP[0]) {
                text[o++] = ',';
                text[o++] = ' '; /* ", " (2 bytes) replaces the separator and the next tag: never longer */
            } else if (!field_start) {
                text[o++] = *p;
            }
        }
        text[o] = '\0';
    }
    fprintf(stderr, "hpcjit: exception in %s (ignored, the function returns 0): %s%s%s\n", where, type,
            text[0] ? ": " : "", text);
}

/* CPython's builtin exception classes (and NumPy's that compiled code
 * raises) with their bases; a class not listed derives from Exception. */
static const struct {
    const char *cls, *base, *base2;
} exc_bases[] = {
    {"Exception", "BaseException", NULL},
    {"ArithmeticError", "Exception", NULL},
    {"ZeroDivisionError", "ArithmeticError", NULL},
    {"OverflowError", "ArithmeticError", NULL},
    {"FloatingPointError", "ArithmeticError", NULL},
    {"LookupError", "Exception", NULL},
    {"IndexError", "LookupError", NULL},
    {"KeyError", "LookupError", NULL},
    {"ValueError", "Exception", NULL},
    {"UnicodeError", "ValueError", NULL},
    {"RuntimeError", "Exception", NULL},
    {"NotImplementedError", "RuntimeError", NULL},
    {"RecursionError", "RuntimeError", NULL},
    {"NameError", "Exception", NULL},
    {"UnboundLocalError", "NameError", NULL},
    {"StopIteration", "Exception", NULL},
    {"numpy.linalg.LinAlgError", "ValueError", NULL},
    {"numpy.exceptions.AxisError", "ValueError", "IndexError"},
    {"SystemExit", "BaseException", NULL},
    {"KeyboardInterrupt", "BaseException", NULL},
    {"GeneratorExit", "BaseException", NULL},
};

static int is_subclass(const char *t, const char *cls, int depth) {
    if (strcmp(t, cls) == 0)
        return 1;
    if (depth > 8 || strcmp(t, "BaseException") == 0)
        return 0;
    for (size_t i = 0; i < sizeof exc_bases / sizeof exc_bases[0]; i++)
        if (strcmp(exc_bases[i].cls, t) == 0)
            return is_subclass(exc_bases[i].base, cls, depth + 1) ||
                   (exc_bases[i].base2 && is_subclass(exc_bases[i].base2, cls, depth + 1));
    return is_subclass("Exception", cls, depth + 1); /* any other class is an Exception */
}

/* Is `key` (up to '|' or the end) one of the keys after the first '|' of
 * the program class name t ("<builtin base>|<key>|<key of a base>...")? */
static int has_key(const char *t, const char *key) {
    size_t n = strcspn(key, "|");
    for (const char *p = strchr(t, '|'); p; p = strchr(p + 1, '|'))
        if (strncmp(p + 1, key, n) == 0 && (p[1 + n] == '|' || p[1 + n] == '\0'))
            return 1;
    return 0;
}

int rt_exc_matches(const char *cls) {
    if (!exc_state.pending)
        return 0;
    const char *t = exc_state.type;
    const char *cbar = strchr(cls, '|');
    if (cbar) /* a class of the program: the raised class or one derived from it */
        return strchr(t, '|') && has_key(t, cbar + 1);
    char base[RT_EXC_TYPE_MAX]; /* a builtin class: the raised class's builtin base decides */
    copy_trunc(base, sizeof base, t);
    base[strcspn(base, "|")] = '\0';
    return is_subclass(base, cls, 0);
}

void rt_exc_save(char *buf) {
    const char *type = NULL, *msg = NULL;
    buf[0] = buf[RT_EXC_TYPE_MAX] = '\0';
    if (!rt_exc_fetch(&type, &msg))
        return;
    copy_trunc(buf, RT_EXC_TYPE_MAX, type);
    copy_trunc(buf + RT_EXC_TYPE_MAX, RT_EXC_MSG_MAX, msg ? msg : "");
}

void rt_exc_reraise(const char *buf) {
    const char *msg = buf + RT_EXC_TYPE_MAX;
    rt_raise(buf[0] ? buf : "RuntimeError", msg[0] ? msg : NULL);
}
