/* A rank's GPUs: CUDA_VISIBLE_DEVICES chosen by node-local rank, and the
 * rank's CPUs narrowed to the GPU's NUMA node (hpcjit run --gpus-per-rank,
 * hpcjit gpu-bind).  See ../../shared/HPC-CONVENTIONS.md, "NCCL and GPUs". */
#ifndef HPCJIT_LAUNCHER_GPU_H
#define HPCJIT_LAUNCHER_GPU_H

#include <stddef.h>

typedef struct GpuChoice {
    long gpus_per_rank;
    long local_rank;
    const char *local_rank_from; /* "SLURM_LOCALID", ..., "default"          */
    int per_task;                /* Slurm's --gpus-per-task: first G visible */
    const char *visible_from;    /* "CUDA_VISIBLE_DEVICES", "hwloc",
                                    "/dev/nvidia*" or "nothing"              */
    int nvisible;
    char devices[256];           /* the rank's CUDA_VISIBLE_DEVICES, "" none */
    char busid[16];              /* its first GPU, "" when unknown           */
    char numa[64];               /* that GPU's NUMA nodes, "" when unknown   */
    char cpus[256];              /* their CPUs, "" when unknown              */
    char note[256];              /* why something is unknown, or ""          */
} GpuChoice;

/* G (>= 1) from an option value, else HPCJIT_GPUS_PER_RANK, else Slurm's
 * SLURM_GPUS_PER_TASK ("2" or "h100:2"), else 0. */
long gpu_default_count(void);

/* Choose this rank's GPUs from the environment (local rank, visible
 * devices, Slurm's --gpus-per-task) and the node (hwloc).  Changes nothing.
 * Returns 0, -1 when out of memory. */
int gpu_choose(long gpus_per_rank, GpuChoice *c);

/* Narrow this process's CPU affinity to its intersection with the GPU's
 * NUMA node when that holds at least `threads` CPUs (never widens); a line
 * saying what was done goes into msg.  Returns 1 when the affinity
 * changed, 0 when left alone. */
int gpu_pin(const GpuChoice *c, long threads, char *msg, size_t cap);

/* Display the choice (HPCJIT_DISPLAY_AFFINITY=1 / OMP_DISPLAY_AFFINITY=true) */
int gpu_display_wanted(void);

extern const char gpu_bind_usage[];
/* hpcjit gpu-bind: argv[0] is "gpu-bind"; execs the program (or returns
 * its failure status). */
int cmd_gpu_bind(int argc, char **argv);

#endif
