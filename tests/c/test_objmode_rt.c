/* test_objmode_rt - rt_objmode_call and the GIL hooks (runtime/objmode.c):
 * without hpcjit._core's hooks a call is a SystemError and unlock/relock do
 * nothing; with them the arguments reach the hook unchanged. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hpcjit/objmode.h"
#include "hpcjit/runtime.h"

static int failures;
#define CHECK(c)                                                                                    \
    do {                                                                                            \
        if (!(c)) {                                                                                 \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);                 \
            failures++;                                                                             \
        }                                                                                           \
    } while (0)

static int64_t seen_handle;
static const char *seen_in, *seen_out;
static int unlocked, relocked;
static int token;

static int32_t fake_hook(int64_t handle, const char *in_tc, void *in, const char *out_tc, void *out)
{
    seen_handle = handle;
    seen_in = in_tc;
    seen_out = out_tc;
    double x;
    memcpy(&x, in, sizeof x);
    if (x < 0) {
        rt_raise("ValueError", "negative");
        return -1;
    }
    int64_t r = (int64_t)(x * 2);
    memcpy(out, &r, sizeof r);
    return 0;
}

static void *fake_unlock(void)
{
    unlocked++;
    return &token;
}

static void fake_relock(void *t)
{
    if (t == &token)
        relocked++;
}

int main(void)
{
    double in = 2.5;
    int64_t out = 0;
    const char *type = NULL, *msg = NULL;

    /* no hooks: a SystemError, and the GIL calls do nothing */
    CHECK(rt_objmode_call(3, "(d)", &in, "(l)", &out) == -1);
    CHECK(rt_exc_fetch(&type, &msg) && strcmp(type, "SystemError") == 0);
    CHECK(rt_objmode_unlock() == NULL);
    rt_objmode_relock(NULL);

    rt_objmode_set_hook(fake_hook, fake_unlock, fake_relock);
    CHECK(rt_objmode_call(7, "(d)", &in, "(l)", &out) == 0);
    CHECK(out == 5 && seen_handle == 7 && strcmp(seen_in, "(d)") == 0 && strcmp(seen_out, "(l)") == 0);
    CHECK(!rt_exc_pending());
    in = -1.0;
    CHECK(rt_objmode_call(7, "(d)", &in, "(l)", &out) == -1);
    CHECK(rt_exc_fetch(&type, &msg) && strcmp(type, "ValueError") == 0 && strcmp(msg, "negative") == 0);
    void *t = rt_objmode_unlock();
    CHECK(t == &token && unlocked == 1);
    rt_objmode_relock(t);
    CHECK(relocked == 1);
    rt_objmode_relock(NULL); /* nothing was let go */
    CHECK(relocked == 1);

    rt_objmode_set_hook(NULL, NULL, NULL);
    CHECK(rt_objmode_unlock() == NULL);
    if (failures)
        fprintf(stderr, "%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
