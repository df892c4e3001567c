/* test_memdebug.c - the allocation-owner debug mode (runtime/memdebug.c):
 * double frees and stale count updates are reported and skipped, live
 * allocations are listed with their owners, the quarantine keeps a freed
 * block's address from being handed out again at once. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcjit/runtime.h"

static int failures;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                              \
        }                                                                            \
    } while (0)

static void owner_of_leak(HjMemInfo **out) { *out = rt_alloc(123); }

int main(void)
{
    setenv("HPCJIT_DEBUG_MEMORY", "1", 1);
    setenv("HPCJIT_DEBUG_MEMORY_QUIET", "1", 1); /* no report at exit */
    CHECK(rt_memdebug_on());
    RtMemDebugStats s0 = rt_memdebug_stats();
    CHECK(s0.enabled == 1 && s0.errors == 0);

    /* a balanced life: no error, nothing live afterwards */
    HjMemInfo *a = rt_alloc(64);
    rt_incref(a);
    rt_decref(a);
    rt_decref(a);
    RtMemDebugStats s1 = rt_memdebug_stats();
    CHECK(s1.errors == 0 && s1.live == s0.live && s1.allocations == s0.allocations + 1);

    /* a double free and a use after free: reported, skipped, no crash */
    rt_decref(a);
    rt_incref(a);
    RtMemDebugStats s2 = rt_memdebug_stats();
    CHECK(s2.errors == 2);

    /* the quarantine: the next allocations do not reuse a's address */
    HjMemInfo *b[16];
    for (int i = 0; i < 16; i++) {
        b[i] = rt_alloc(64);
        CHECK(b[i] != a);
    }
    for (int i = 0; i < 16; i++)
        rt_decref(b[i]);

    /* a leak: listed with its size and its owner */
    int64_t mark = rt_memdebug_stats().allocations;
    HjMemInfo *leak = NULL;
    owner_of_leak(&leak);
    HjMemInfo *packed = rt_alloc_packed(40);
    RtMemDebugEntry live[4];
    int64_t n = rt_memdebug_live(live, 4, mark);
    CHECK(n == 2);
    int saw123 = 0, saw40 = 0;
    for (int64_t i = 0; i < n && i < 4; i++) {
        saw123 |= live[i].size == 123 && live[i].address == leak && live[i].owner != NULL;
        saw40 |= live[i].size == 40 && live[i].address == packed;
    }
    CHECK(saw123 && saw40);
    rt_decref(leak);
    rt_decref(packed);
    CHECK(rt_memdebug_live(live, 4, mark) == 0);

    /* immortal and foreign MemInfos pass unchecked */
    HjMemInfo imm = {RT_REFCNT_IMMORTAL, NULL, 0, NULL, NULL};
    rt_incref(&imm);
    rt_decref(&imm);
    CHECK(imm.refcnt == RT_REFCNT_IMMORTAL);
    CHECK(rt_memdebug_stats().errors == 2);

    /* large blocks (own destructor) are tracked too */
    HjMemInfo *big = rt_alloc(8 << 20);
    CHECK(big && rt_memdebug_live(live, 4, rt_memdebug_stats().allocations - 1) == 1);
    rt_decref(big);
    rt_decref(big); /* double free of a large block: reported, not done */
    CHECK(rt_memdebug_stats().errors == 3);
    rt_exc_clear();
    if (failures) {
        fprintf(stderr, "test_memdebug: %d failures\n", failures);
        return 1;
    }
    printf("test_memdebug: ok\n");
    return 0;
}
