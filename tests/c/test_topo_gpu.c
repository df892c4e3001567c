/* test_topo_gpu - topo_gpu_select (a rank's GPUs by node-local rank: pure)
 * and topo_gpus (the node's GPUs from hwloc, checked against
 * /sys/bus/pci: none here is an empty list). */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcjit/topo.h"

static int failures;
#define CHECK(c)                                                                                    \
    do {                                                                                            \
        if (!(c)) {                                                                                 \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);                 \
            failures++;                                                                             \
        }                                                                                           \
    } while (0)

/* select(...) == the expected list, as text ("2,3") */
static int selects(long rank, int g, int n, int per_task, const char *want)
{
    int out[64];
    char got[256] = "";
    memset(out, 0xff, sizeof out);
    int k = topo_gpu_select(rank, g, n, per_task, out);
    if (k < 0)
        snprintf(got, sizeof got, "error");
    for (int i = 0; i < k; i++)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%d", i ? "," : "", out[i]);
    /* nothing written past the count */
    for (int i = k > 0 ? k : 0; i < 64; i++)
        if (out[i] != -1)
            snprintf(got, sizeof got, "wrote past the count");
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "topo_gpu_select(%ld, %d, %d, %d) = '%s', want '%s'\n", rank, g, n, per_task, got, want);
        return 0;
    }
    return 1;
}

static void test_select(void)
{
    /* one GPU per rank, four visible: rank r gets r */
    CHECK(selects(0, 1, 4, 0, "0"));
    CHECK(selects(3, 1, 4, 0, "3"));
    /* two per rank */
    CHECK(selects(0, 2, 4, 0, "0,1"));
    CHECK(selects(1, 2, 4, 0, "2,3"));
    /* more ranks than devices: round-robin sharing */
    CHECK(selects(4, 1, 4, 0, "0"));
    CHECK(selects(5, 1, 2, 0, "1"));
    CHECK(selects(1, 2, 3, 0, "2,0"));
    CHECK(selects(7, 1, 1, 0, "0"));
    /* more per rank than visible: all of them */
    CHECK(selects(0, 8, 3, 0, "0,1,2"));
    CHECK(selects(2, 8, 3, 0, "0,1,2"));
    /* Slurm's --gpus-per-task: the task's own devices, whatever its rank */
    CHECK(selects(5, 2, 2, 1, "0,1"));
    CHECK(selects(3, 1, 4, 1, "0"));
    /* nothing visible or nothing asked */
    CHECK(selects(0, 1, 0, 0, ""));
    CHECK(selects(2, 0, 4, 0, ""));
    /* large ranks do not overflow */
    CHECK(selects(4000000000L, 3, 7, 0, "2,3,4")); /* 12e9 mod 7 = 2 */
    /* bad arguments */
    CHECK(selects(-1, 1, 4, 0, "error"));
    CHECK(selects(0, -1, 4, 0, "error"));
    CHECK(selects(0, 1, -4, 0, "error"));
    CHECK(topo_gpu_select(0, 1, 4, 0, NULL) == -1);
}

/* compute GPUs in /sys/bus/pci by the rule of TopoGpu; -1 if unreadable */
static int sysfs_gpus(char found[][16], int cap)
{
    DIR *d = opendir("/sys/bus/pci/devices");
    int n = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char path[512];
        unsigned vendor = 0, cls = 0;
        snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/vendor", e->d_name);
        FILE *f = fopen(path, "r");
        int ok = f && fscanf(f, "%x", &vendor) == 1;
        if (f)
            fclose(f);
        snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/class", e->d_name);
        f = fopen(path, "r");
        ok = ok && f && fscanf(f, "%x", &cls) == 1;
        if (f)
            fclose(f);
        if (!ok) {
            closedir(d);
            return -1;
        }
        cls >>= 8;
        if (((cls == 0x0300 && vendor == 0x10de) || cls == 0x0302 || cls == 0x0380 || (cls >> 8) == 0x12) &&
            n < cap)
            snprintf(found[n++], 16, "%.15s", e->d_name);
    }
    closedir(d);
    return n;
}

static void test_gpus(void)
{
    TopoGpu *g = NULL;
    int n = -1;
    CHECK(topo_gpus(NULL, &n) == TOPO_EINVAL);
    CHECK(topo_gpus(&g, NULL) == TOPO_EINVAL);
    int rc = topo_gpus(&g, &n);
    CHECK(rc == TOPO_OK);
    if (rc != TOPO_OK)
        return;
    CHECK(n >= 0 && (n == 0) == (g == NULL));
    for (int i = 0; i < n; i++) {
        CHECK(g[i].index == i);
        CHECK(strlen(g[i].busid) == 12 && g[i].busid[4] == ':' && g[i].busid[10] == '.');
        CHECK(i == 0 || strcmp(g[i - 1].busid, g[i].busid) < 0);
        CHECK(g[i].vendor_index >= 0 && g[i].vendor_index <= i);
        CHECK((g[i].numa[0] == '\0') == (g[i].cpus[0] == '\0'));
        printf("GPU %d: %s %04x:%04x %s, NUMA %s, cpus %s\n", i, g[i].busid, g[i].vendor_id, g[i].device_id,
               g[i].name, g[i].numa[0] ? g[i].numa : "?", g[i].cpus[0] ? g[i].cpus : "?");
    }
    char want[64][16];
    int nw = sysfs_gpus(want, 64);
    if (nw >= 0) {
        /* every GPU the kernel shows is listed (none here: an empty list) */
        for (int j = 0; j < nw; j++) {
            int seen = 0;
            for (int i = 0; i < n; i++)
                seen |= strcmp(g[i].busid, want[j]) == 0;
            CHECK(seen);
        }
        printf("%d GPU(s) from hwloc, %d in /sys/bus/pci\n", n, nw);
        fflush(stdout);
    }
    free(g);
}

int main(void)
{
    test_select();
    test_gpus();
    if (failures) {
        fprintf(stderr, "test_topo_gpu: %d failure(s)\n", failures);
        return 1;
    }
    puts("test_topo_gpu: ok");
    return 0;
}
