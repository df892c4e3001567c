/* hpcjit/topo.h - the node hpcjit runs on, and the plan for its threads.
 *
 * topo_discover() loads the hwloc topology restricted to the process's
 * current CPU binding (what taskset, Slurm's cgroup/cpuset and
 * --cpu-bind leave us), so every count and cpuset here lies inside that
 * binding.  topo_plan() turns the environment (HPCJIT_/NUMBA_/OMP_ thread
 * count, OMP_PLACES, HPCJIT_PROC_BIND / OMP_PROC_BIND) into one CPU set
 * per thread; topo_bind_thread() applies it from a worker thread.
 *
 * Cpusets are shown as lists of OS CPU numbers ("0-3,8").  Errors are
 * return codes (TOPO_E*); nothing here prints or exits.
 *
 * Thread-safety: a TopoNode and a TopoPlan are immutable once made and may
 * be read from any thread; topo_bind_thread() may be called concurrently.
 * topo_discover() and topo_plan() read the environment (getenv).
 */
#ifndef HPCJIT_TOPO_H
#define HPCJIT_TOPO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    TOPO_OK = 0,
    TOPO_EHWLOC = -1, /* hwloc failed (errno kept in topo_strerror's text)  */
    TOPO_ENOMEM = -2,
    TOPO_EINVAL = -3,
};
const char *topo_strerror(int rc);

/* Flags of topo_discover. */
enum {
    TOPO_DISCOVER_IO = 1, /* also PCI devices, GPUs and their locality (slower) */
};

typedef struct TopoCache {
    int level;         /* 1..5                                              */
    char kind;         /* 'd' data, 'i' instruction, 'u' unified            */
    uint64_t size;     /* bytes of one cache                                */
    unsigned linesize; /* bytes, 0 if unknown                               */
    int ways;          /* associativity, 0 unknown, -1 fully associative    */
    int count;         /* instances inside the binding                      */
} TopoCache;

typedef struct TopoDevice {
    char busid[16];     /* "0000:3b:00.0"                                   */
    unsigned class_id;  /* PCI class and subclass (0x0300 VGA, 0x0302 3D)    */
    unsigned vendor_id, device_id;
    int is_gpu;         /* a compute GPU (the rule of TopoGpu, topo_gpus)   */
    char name[128];     /* vendor and device names when hwloc knows them    */
    char osdevs[128];   /* OS names of the device ("eth0", "card0,cuda0")   */
    char locality[64];  /* cpuset list of the CPUs closest to the device    */
} TopoDevice;

#define TOPO_MAX_CACHES 12

typedef struct TopoInfo {
    int npackages, nnuma, ncores, npus; /* inside the current binding       */
    char cpu_vendor[64];  /* hwloc's CPUVendor ("GenuineIntel"), or ""      */
    char cpu_model[128];  /* hwloc's CPUModel, or ""                        */
    int ncaches;
    TopoCache caches[TOPO_MAX_CACHES]; /* by level, data/unified first       */
    char *allowed_cpus;   /* the cgroup's cpuset (what the job may use)     */
    char *current_cpus;   /* the process's binding (taskset, --cpu-bind)    */
    int io_discovered;    /* TOPO_DISCOVER_IO was given and I/O was loaded  */
    int ndevices, ngpus;  /* devices: the important PCI devices (GPUs, NICs, */
    TopoDevice *devices;  /* storage); none is a normal answer               */
} TopoInfo;

typedef struct TopoNode TopoNode; /* owns the hwloc topology */

/* Discover the node.  On success *out owns everything (topo_free).
 * Typical cost: a few ms, tens of ms with TOPO_DISCOVER_IO. */
int topo_discover(TopoNode **out, unsigned flags);
void topo_free(TopoNode *node); /* NULL is ignored */
const TopoInfo *topo_info(const TopoNode *node);

/* A stable key for "code compiled here runs there": readable parts (LLVM CPU
 * name, hwloc vendor/model) and a hash of the CPU name, the sorted feature
 * list and hwloc's CPU identification, e.g.
 * "znver3-amd-epyc-7b13-3f09c2a1d4e5b6c7".  cpu_name / cpu_features come
 * from the compiler (hj_target_host); NULL is read as "".  Returns a malloc'ed
 * string, or NULL when out of memory. */
char *topo_arch_key(const TopoNode *node, const char *cpu_name, const char *cpu_features);

/* ---- GPUs ----------------------------------------------------------------- */
typedef struct TopoGpu {
    int index;          /* among the node's GPUs, in PCI bus order            */
    int vendor_index;   /* among this vendor's GPUs, in PCI bus order: the
                           CUDA device number under CUDA_DEVICE_ORDER=PCI_BUS_ID
                           (nvidia-smi's) for NVIDIA's (vendor 0x10de)        */
    char busid[16];     /* "0000:3b:00.0"                                     */
    unsigned class_id, vendor_id, device_id;
    char name[128];     /* vendor and device names when hwloc knows them      */
    char osdevs[128];   /* hwloc's OS devices ("card1,renderD128,cuda0")      */
    char numa[64];      /* OS indices of the NUMA nodes closest to it ("1"),
                           "" when unknown                                    */
    char cpus[256];     /* the CPUs of those NUMA nodes (whole node, not only
                           this process's binding), "" when unknown           */
} TopoGpu;

/* The node's GPUs (NVIDIA display/3D controllers, other vendors' 3D and
 * compute-class controllers, processing accelerators, devices with a
 * CUDA/OpenCL/NVML/RSMI OS device), whatever this process's binding.  On
 * success *out is a malloc'ed array of *count (free() it); no GPU is
 * TOPO_OK with *out NULL and *count 0.  Costs one hwloc load with I/O. */
int topo_gpus(TopoGpu **out, int *count);

/* The GPUs of one rank: `gpus_per_rank` (G) devices for node-local rank
 * `local_rank` out of the `nvisible` it may use (the entries of
 * CUDA_VISIBLE_DEVICES, or the node's GPUs): entries (local_rank * G + i)
 * mod nvisible for i < G, so ranks share devices round-robin when there are
 * more ranks than devices; all of them when G >= nvisible.  With
 * `per_task` (the resource manager already gave each task its own devices:
 * Slurm's --gpus-per-task) the first G.
 * Writes min(G, nvisible) indices into out (room for G) and returns that
 * count; 0 when nothing is visible or G is 0; -1 for a negative argument.
 * Pure: reads no environment and no hardware. */
int topo_gpu_select(long local_rank, int gpus_per_rank, int nvisible, int per_task, int *out);

/* ---- the thread plan ---------------------------------------------------- */
typedef enum TopoBind {
    TOPO_BIND_FALSE,   /* threads are not pinned                            */
    TOPO_BIND_TRUE,    /* pinned; hpcjit's policy (spread)                  */
    TOPO_BIND_CLOSE,   /* consecutive threads on consecutive places         */
    TOPO_BIND_SPREAD,  /* threads spaced evenly over the places             */
    TOPO_BIND_PRIMARY, /* every thread on the first place                   */
} TopoBind;

typedef enum TopoPlaces {
    TOPO_PLACES_DEFAULT,  /* none given: one PU per thread (hwloc_distrib)   */
    TOPO_PLACES_THREADS,  /* one place per PU                                */
    TOPO_PLACES_CORES,    /* one place per core                              */
    TOPO_PLACES_SOCKETS,  /* one place per package                           */
    TOPO_PLACES_NUMA,     /* one place per NUMA node ("numa_domains")        */
    TOPO_PLACES_LLCACHES, /* one place per last-level cache ("ll_caches")    */
    TOPO_PLACES_LIST,     /* an explicit list ("{0,1},{2:2}")                */
} TopoPlaces;

typedef struct TopoPlan {
    int nthreads;             /* >= 1                                        */
    const char *nthreads_from;/* "HPCJIT_NUM_THREADS", ..., "affinity mask"   */
    TopoBind bind;
    const char *bind_from;    /* "HPCJIT_PROC_BIND", "OMP_PROC_BIND", "default" */
    TopoPlaces places;
    const char *places_from;  /* "OMP_PLACES" or "default"                   */
    int nplaces;              /* 0 with TOPO_PLACES_DEFAULT or when unbound  */
    char **place_cpus;        /* [nplaces] cpuset lists                       */
    int *thread_place;        /* [nthreads] place index, -1 when not a place  */
    char **thread_cpus;       /* [nthreads] cpuset list each thread runs on   */
    int *thread_pu;           /* [nthreads] OS index when a single PU, else -1 */
    char *warnings;           /* "" or lines ending in '\n' (not printed)    */
    void *sets_;              /* internal: hwloc bitmaps per thread           */
} TopoPlan;

/* Compute the plan for this process from the environment.  Never widens the
 * binding: places are intersected with it.  Bad values are skipped with a
 * line in `warnings`, as is disagreement with SLURM_CPUS_PER_TASK. */
int topo_plan(const TopoNode *node, TopoPlan **out);
void topo_plan_free(TopoPlan *plan); /* NULL is ignored */
const char *topo_bind_name(TopoBind b);
const char *topo_places_name(TopoPlaces p);

/* Give thread 0 (the caller, which the pool does not pin) the set that
 * holds `cpu`, the CPU the caller runs on now, by swapping it with the
 * thread that has it: no worker is then pinned where the caller runs.
 * Returns the thread swapped with 0, or 0 (nothing to do: unbound, one
 * place for all, thread 0 has it already, or no thread has it). */
int topo_plan_keep_cpu(TopoPlan *plan, int cpu);

/* Pin the calling thread to thread `tid`'s CPUs (hwloc_set_cpubind with
 * HWLOC_CPUBIND_THREAD).  No-op success when the plan is unbound. */
int topo_bind_thread(const TopoNode *node, const TopoPlan *plan, int tid);

/* The calling thread's current binding as a malloc'ed cpuset list. */
char *topo_thread_cpus(const TopoNode *node);

#ifdef __cplusplus
}
#endif
#endif
