/* test_search_rt.c - runtime helpers of sorting/searching (runtime/search.c). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "hpcjit/runtime.h"
#include "hpcjit/search.h"

static int failures;
#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);                  \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static const int32_t F64 = RT_DT(RT_K_FLOAT, 8), I64 = RT_DT(RT_K_INT, 8);

static void test_sort(void) {
    double a[8] = {3, NAN, -1, 2, 2, -INFINITY, NAN, 0};
    CHECK(rt_sort(a, 1, 8, F64) == 0);
    CHECK(a[0] == -INFINITY && a[1] == -1 && a[2] == 0 && a[3] == 2 && a[4] == 2 && a[5] == 3);
    CHECK(isnan(a[6]) && isnan(a[7]));
    CHECK(rt_unique(a, 8, F64) == 6); /* the NaNs fold into one */
    int64_t big[100], idx[100];
    for (int i = 0; i < 100; i++)
        big[i] = (i * 37) % 10;
    CHECK(rt_argsort(big, idx, 1, 100, I64) == 0);
    for (int i = 1; i < 100; i++) {
        CHECK(big[idx[i - 1]] <= big[idx[i]]);
        if (big[idx[i - 1]] == big[idx[i]])
            CHECK(idx[i - 1] < idx[i]); /* stable */
    }
    int64_t s[5] = {1, 2, 2, 2, 5}, v[3] = {2, 0, 9}, out[3];
    rt_searchsorted(s, 5, v, 3, out, I64, 0);
    CHECK(out[0] == 1 && out[1] == 0 && out[2] == 5);
    rt_searchsorted(s, 5, v, 3, out, I64, 1);
    CHECK(out[0] == 4 && out[1] == 0 && out[2] == 5);
}

/* each kth holds its sorted value, nothing after it before, nothing before it after */
static void test_partition(void) {
    double a[200], sorted[200];
    for (int i = 0; i < 200; i++)
        a[i] = i % 7 == 3 ? NAN : (double)((i * 53) % 31); /* repeats and NaNs */
    memcpy(sorted, a, sizeof a);
    CHECK(rt_sort(sorted, 1, 200, F64) == 0);
    int32_t kth[4] = {150, 10, -1, 10}; /* unordered, negative, repeated */
    CHECK(rt_partition(a, 1, 200, F64, kth, 4, sizeof(int32_t), RT_DT(RT_K_INT, 4)) == 0);
    int ks[3] = {10, 150, 199};
    for (int j = 0; j < 3; j++) {
        int k = ks[j];
        CHECK(a[k] == sorted[k] || (isnan(a[k]) && isnan(sorted[k])));
        for (int i = 0; i < 200; i++) {
            if (i < k)
                CHECK(!isnan(a[i]) ? isnan(a[k]) || a[i] <= a[k] : isnan(a[k])); /* NaN last */
            if (i > k)
                CHECK(isnan(a[i]) || (!isnan(a[k]) && a[i] >= a[k]));
        }
    }
}

static void test_errors(void) {
    int64_t x[3] = {1, -1, 2}, len = 0;
    const char *type = NULL, *msg = NULL;
    CHECK(rt_bincount_len(x, 3, 0, &len) == -1);
    CHECK(rt_exc_fetch(&type, &msg) == 1 && strcmp(type, "ValueError") == 0);
}

int main(void) {
    test_sort();
    test_partition();
    test_errors();
    if (failures)
        fprintf(stderr, "%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
