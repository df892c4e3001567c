/* gpu.c - a rank's GPUs.  `hpcjit run --gpus-per-rank G` runs every rank
 * of an srun/mpirun job through `hpcjit gpu-bind -g G -- PROGRAM`, which
 * sets CUDA_VISIBLE_DEVICES to the rank's G devices (chosen by node-local
 * rank, topo_gpu_select), CUDA_DEVICE_ORDER=PCI_BUS_ID (so that device
 * numbers are nvidia-smi's and hwloc's PCI order), narrows the rank's CPUs
 * to the first device's NUMA node, and execs PROGRAM.  One rank outside
 * Slurm does the same in `hpcjit run` itself. */
#define _GNU_SOURCE
#include "gpu.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "hpcjit/topo.h"

#define MAX_VISIBLE 256

const char gpu_bind_usage[] =
    "usage: hpcjit gpu-bind [-g G] [--] PROGRAM [ARGS...]\n"
    "\n"
    "Run PROGRAM as one rank of a job with its own GPUs: what `hpcjit run\n"
    "--gpus-per-rank G` starts each rank of an srun or mpirun job with.\n"
    "\n"
    "  - node-local rank r: SLURM_LOCALID, OMPI_COMM_WORLD_LOCAL_RANK,\n"
    "    MPI_LOCALRANKID, else 0\n"
    "  - devices it may use: the entries of CUDA_VISIBLE_DEVICES when set, else\n"
    "    the node's NVIDIA GPUs (hwloc, else /dev/nvidiaN)\n"
    "  - its devices: entries (r*G + i) mod n for i < G (ranks share round-robin\n"
    "    when there are more ranks than devices); under Slurm's --gpus-per-task\n"
    "    (SLURM_GPUS_PER_TASK set) each task already has its own: the first G\n"
    "  - exports CUDA_VISIBLE_DEVICES with them and CUDA_DEVICE_ORDER=PCI_BUS_ID\n"
    "    (unless set), and narrows the CPU affinity to the first device's NUMA\n"
    "    node when that keeps at least HPCJIT_NUM_THREADS CPUs (never widens)\n"
    "\n"
    "options:\n"
    "  -g, --gpus-per-rank G   devices per rank (default HPCJIT_GPUS_PER_RANK,\n"
    "                          else SLURM_GPUS_PER_TASK, else 1)\n"
    "  -h, --help              show this text\n"
    "\n"
    "HPCJIT_DISPLAY_AFFINITY=1 (or OMP_DISPLAY_AFFINITY=true) prints the choice.\n";

/* A count from the environment: "3", or Slurm's "type:3"; -1 when unset or
 * malformed. */
static long env_count(const char *name)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return -1;
    const char *colon = strrchr(s, ':');
    if (colon)
        s = colon + 1;
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    return (end != s && *end == '\0' && !errno && v >= 0) ? v : -1;
}

long gpu_default_count(void)
{
    long g = env_count("HPCJIT_GPUS_PER_RANK");
    if (g < 1)
        g = env_count("SLURM_GPUS_PER_TASK");
    return g < 1 ? 0 : g;
}

int gpu_display_wanted(void)
{
    const char *a = getenv("HPCJIT_DISPLAY_AFFINITY");
    const char *b = getenv("OMP_DISPLAY_AFFINITY");
    return (a && (strcmp(a, "1") == 0 || strcasecmp(a, "true") == 0)) || (b && strcasecmp(b, "true") == 0);
}

static void trim_copy(char *dst, size_t cap, const char *s, size_t n)
{
    while (n && isspace((unsigned char)*s))
        s++, n--;
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    snprintf(dst, cap, "%.*s", (int)n, s);
}

/* Split "0,1, 2" into at most MAX_VISIBLE entries; returns the count. */
static int split_list(const char *s, char items[][64])
{
    int n = 0;
    while (s && *s && n < MAX_VISIBLE) {
        size_t len = strcspn(s, ",");
        trim_copy(items[n], 64, s, len);
        if (items[n][0])
            n++;
        s += len + (s[len] == ',');
    }
    return n;
}

static int all_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return 0;
    return 1;
}

/* /dev/nvidia0, /dev/nvidia1, ...: the device files of NVIDIA's driver */
static int dev_nvidia_count(void)
{
    DIR *d = opendir("/dev");
    int n = 0;
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strncmp(e->d_name, "nvidia", 6) == 0 && all_digits(e->d_name + 6))
            n++;
    closedir(d);
    return n;
}

int gpu_choose(long gpus_per_rank, GpuChoice *c)
{
    char items[MAX_VISIBLE][64], phys[MAX_VISIBLE][64];
    TopoGpu *gpus = NULL;
    int ngpus = 0, rc = 0;
    int *sel = NULL;

    memset(c, 0, sizeof *c);
    c->gpus_per_rank = gpus_per_rank;
    c->local_rank_from = "default";
    static const char *const rank_vars[] = {"SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                            NULL};
    for (const char *const *v = rank_vars; *v; v++) {
        long r = env_count(*v);
        const char *s = getenv(*v);
        if (r >= 0 && !strchr(s, ':')) {
            c->local_rank = r;
            c->local_rank_from = *v;
            break;
        }
    }
    const char *gpt = getenv("SLURM_GPUS_PER_TASK");
    c->per_task = gpt && *gpt;

    /* hwloc's view of the node, for the NUMA nodes (and the count when
     * CUDA_VISIBLE_DEVICES is unset); none is a normal answer */
    if (topo_gpus(&gpus, &ngpus) != TOPO_OK) {
        gpus = NULL;
        ngpus = 0;
    }
    int nnvidia = 0;
    for (int i = 0; i < ngpus; i++)
        nnvidia += gpus[i].vendor_id == 0x10de;

    const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
    int n = 0;
    if (cvd) {
        c->visible_from = "CUDA_VISIBLE_DEVICES";
        n = split_list(cvd, items);
    } else if (nnvidia > 0) {
        c->visible_from = "hwloc";
        for (n = 0; n < nnvidia && n < MAX_VISIBLE; n++)
            snprintf(items[n], sizeof items[n], "%d", n);
    } else if ((n = dev_nvidia_count()) > 0) {
        c->visible_from = "/dev/nvidia*";
        if (n > MAX_VISIBLE)
            n = MAX_VISIBLE;
        for (int i = 0; i < n; i++)
            snprintf(items[i], sizeof items[i], "%d", i);
    } else {
        c->visible_from = "nothing";
    }
    c->nvisible = n;
    if (n == 0) {
        if (cvd)
            snprintf(c->note, sizeof c->note, "no GPU visible (CUDA_VISIBLE_DEVICES='%.200s')", cvd);
        else
            snprintf(c->note, sizeof c->note, "no GPU found (hwloc, /dev/nvidia*)");
        goto done;
    }

    rc = -1;
    if (!(sel = calloc((size_t)(gpus_per_rank > 0 ? gpus_per_rank : 1), sizeof *sel)))
        goto done;
    rc = 0;
    int k = topo_gpu_select(c->local_rank, (int)gpus_per_rank, n, c->per_task, sel);
    size_t len = 0;
    for (int i = 0; i < k; i++) {
        int w = snprintf(c->devices + len, sizeof c->devices - len, "%s%s", i ? "," : "", items[sel[i]]);
        if (w < 0 || (size_t)w >= sizeof c->devices - len)
            break;
        len += (size_t)w;
    }
    if (!c->per_task && (c->local_rank + 1) * gpus_per_rank > n)
        snprintf(c->note, sizeof c->note, "local rank %ld shares its GPU(s): %d visible for %ld per rank",
                 c->local_rank, n, gpus_per_rank);

    /* the first device's place on the node: its physical number, through
     * Slurm's list when CUDA_VISIBLE_DEVICES was renumbered for the step */
    if (k > 0) {
        const char *entry = items[sel[0]];
        const char *slurm = getenv("SLURM_STEP_GPUS");
        if (!slurm || !*slurm)
            slurm = getenv("SLURM_JOB_GPUS");
        if (cvd && slurm && *slurm && split_list(slurm, phys) == n)
            entry = phys[sel[0]];
        if (!all_digits(entry)) {
            if (!c->note[0])
                snprintf(c->note, sizeof c->note, "NUMA node unknown: device '%s' is not a number", entry);
        } else {
            long p = strtol(entry, NULL, 10);
            for (int i = 0; i < ngpus; i++)
                if (gpus[i].vendor_id == 0x10de && gpus[i].vendor_index == p) {
                    snprintf(c->busid, sizeof c->busid, "%s", gpus[i].busid);
                    snprintf(c->numa, sizeof c->numa, "%s", gpus[i].numa);
                    snprintf(c->cpus, sizeof c->cpus, "%s", gpus[i].cpus);
                }
            if (!c->busid[0] && !c->note[0])
                snprintf(c->note, sizeof c->note, "NUMA node unknown: hwloc does not show GPU %ld", p);
        }
    }
done:
    free(sel);
    free(gpus);
    return rc;
}

/* "0-3,8" -> set; -1 on bad syntax */
static int parse_cpus(const char *s, cpu_set_t *set)
{
    CPU_ZERO(set);
    if (!*s)
        return -1;
    while (*s) {
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (end == s || a < 0)
            return -1;
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        for (long i = a; i <= b && i < CPU_SETSIZE; i++)
            CPU_SET((int)i, set);
        if (*end == ',')
            end++;
        else if (*end)
            return -1;
        s = end;
    }
    return 0;
}

static void format_cpus(const cpu_set_t *set, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < CPU_SETSIZE; i++) {
        if (!CPU_ISSET(i, set))
            continue;
        int j = i;
        while (j + 1 < CPU_SETSIZE && CPU_ISSET(j + 1, set))
            j++;
        int w = j > i ? snprintf(buf + len, cap - len, "%s%d-%d", len ? "," : "", i, j)
                      : snprintf(buf + len, cap - len, "%s%d", len ? "," : "", i);
        if (w < 0 || (size_t)w >= cap - len)
            return;
        len += (size_t)w;
        i = j;
    }
}

int gpu_pin(const GpuChoice *c, long threads, char *msg, size_t cap)
{
    cpu_set_t gpu, cur, both;
    char buf[256];
    msg[0] = '\0';
    if (!c->cpus[0] || parse_cpus(c->cpus, &gpu) < 0) {
        snprintf(msg, cap, "cpus unchanged (the GPU's NUMA node is unknown)");
        return 0;
    }
    if (sched_getaffinity(0, sizeof cur, &cur) < 0) {
        snprintf(msg, cap, "cpus unchanged (sched_getaffinity: %s)", strerror(errno));
        return 0;
    }
    CPU_AND(&both, &cur, &gpu);
    if (threads < 1)
        threads = 1;
    if (CPU_EQUAL(&both, &cur)) {
        format_cpus(&cur, buf, sizeof buf);
        snprintf(msg, cap, "cpus %s (already on NUMA node %s)", buf, c->numa);
        return 0;
    }
    if (CPU_COUNT(&both) < threads) {
        format_cpus(&cur, buf, sizeof buf);
        snprintf(msg, cap, "cpus %s unchanged: %d of them on the GPU's NUMA node %s, %ld threads", buf,
                 CPU_COUNT(&both), c->numa, threads);
        return 0;
    }
    if (sched_setaffinity(0, sizeof both, &both) < 0) {
        snprintf(msg, cap, "cpus unchanged (sched_setaffinity: %s)", strerror(errno));
        return 0;
    }
    format_cpus(&both, buf, sizeof buf);
    snprintf(msg, cap, "cpus %s (NUMA node %s of the GPU)", buf, c->numa);
    return 1;
}

int cmd_gpu_bind(int argc, char **argv)
{
    long g = 0;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(gpu_bind_usage, stdout);
            return 0;
        }
        const char *val = NULL;
        if (strcmp(a, "-g") == 0 || strcmp(a, "--gpus-per-rank") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "hpcjit gpu-bind: %s needs a value\n", a);
                return 2;
            }
            val = argv[++i];
        } else if (strncmp(a, "--gpus-per-rank=", 16) == 0) {
            val = a + 16;
        } else if (a[0] == '-') {
            fprintf(stderr, "hpcjit gpu-bind: unknown option '%s'\n\n%s", a, gpu_bind_usage);
            return 2;
        } else {
            break;
        }
        char *end = NULL;
        errno = 0;
        g = strtol(val, &end, 10);
        if (!*val || *end || errno || g < 1 || g > 4096) {
            fprintf(stderr, "hpcjit gpu-bind: -g needs an integer >= 1, got '%s'\n", val);
            return 2;
        }
    }
    if (i >= argc) {
        fprintf(stderr, "hpcjit gpu-bind: no program given\n\n%s", gpu_bind_usage);
        return 2;
    }
    if (g == 0)
        g = gpu_default_count();
    if (g == 0)
        g = 1;

    GpuChoice c;
    if (gpu_choose(g, &c) < 0) {
        fputs("hpcjit gpu-bind: out of memory\n", stderr);
        return 1;
    }
    char pinned[400] = "";
    if (c.nvisible == 0) {
        fprintf(stderr, "hpcjit gpu-bind: warning: local rank %ld: %s\n", c.local_rank, c.note);
    } else {
        if (setenv("CUDA_VISIBLE_DEVICES", c.devices, 1) < 0 ||
            (!getenv("CUDA_DEVICE_ORDER") && setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1) < 0)) {
            fprintf(stderr, "hpcjit gpu-bind: setenv: %s\n", strerror(errno));
            return 1;
        }
        long threads = 0;
        const char *t = getenv("HPCJIT_NUM_THREADS");
        if (t)
            threads = strtol(t, NULL, 10);
        gpu_pin(&c, threads, pinned, sizeof pinned);
    }
    if (gpu_display_wanted())
        fprintf(stderr, "hpcjit gpu-bind: local rank %ld (%s): CUDA_VISIBLE_DEVICES=%s of %d (%s)%s%s%s%s; %s%s%s\n",
                c.local_rank, c.local_rank_from, c.devices, c.nvisible, c.visible_from,
                c.busid[0] ? ", GPU " : "", c.busid, c.numa[0] ? " on NUMA node " : "", c.numa, pinned,
                c.note[0] ? "; " : "", c.note);
    fflush(NULL);
    execvp(argv[i], argv + i);
    fprintf(stderr, "hpcjit gpu-bind: cannot run '%s': %s\n", argv[i], strerror(errno));
    return errno == ENOENT ? 127 : 126;
}
