/* hpcjit - the command-line program.  Subcommands:
 *   topo   the node, its architecture key and the thread plan
 *   run    a program as a job (run.c)
 *   cache  the compile cache: python -m hpcjit.cache
 *   cc     ahead-of-time modules: python -m hpcjit.aot */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpcjit/compiler.h"
#include "hpcjit/topo.h"
#include "gpu.h"
#include "run.h"

#ifndef HPCJIT_VERSION_STR
#define HPCJIT_VERSION_STR "unknown"
#endif

static const char main_usage[] =
    "usage: hpcjit [--help] [--version] <command> [<args>]\n"
    "\n"
    "hpcjit, a Numba-compatible JIT compiler for numerical Python.\n"
    "\n"
    "commands:\n"
    "  topo     show the node (packages, NUMA, cores, caches, cpusets, GPUs),\n"
    "           its architecture key and the thread plan\n"
    "  run      start a program as a job of MPI ranks: srun inside Slurm,\n"
    "           mpirun outside, directly for one rank\n"
    "  gpu-bind run a program as one rank with its own GPUs (CUDA_VISIBLE_DEVICES\n"
    "           by node-local rank, CPUs on the GPU's NUMA node): what\n"
    "           `run --gpus-per-rank` starts each rank with\n"
    "  cache    the compile cache: list, info, clear, prune --max-size SIZE,\n"
    "           warm SCRIPT (compile its explicit signatures before a job)\n"
    "           (runs $HPCJIT_PYTHON -m hpcjit.cache, default python3)\n"
    "  cc       compile a module's functions with explicit signatures ahead of\n"
    "           time into an extension module that needs no compiler at import,\n"
    "           one object per --archs architecture (runs python -m hpcjit.aot)\n"
    "\n"
    "'hpcjit <command> --help' describes a command.\n";

static const char topo_usage[] =
    "usage: hpcjit topo [--json] [--no-io] [--help]\n"
    "\n"
    "Show what hpcjit sees of this node from inside the process's CPU binding\n"
    "(taskset, Slurm's cgroup and --cpu-bind): packages, NUMA nodes, cores, PUs,\n"
    "caches, the allowed (cgroup) and current (binding) cpusets, the node's GPUs\n"
    "in PCI order with their NUMA nodes and CPUs (whatever the binding; JSON:\n"
    "gpu_list, empty when there is none), PCI devices with their locality, the\n"
    "architecture key compiled code is keyed by, and the plan for parallel threads.\n"
    "\n"
    "options:\n"
    "  --json    print one JSON object, for scripts\n"
    "  --no-io   skip PCI/GPU discovery (faster)\n"
    "  --help    show this text\n"
    "\n"
    "The plan reads HPCJIT_NUM_THREADS, NUMBA_NUM_THREADS, OMP_NUM_THREADS (else\n"
    "the CPUs of the affinity mask), OMP_PLACES, HPCJIT_PROC_BIND / OMP_PROC_BIND\n"
    "and compares with SLURM_CPUS_PER_TASK.\n";

/* ---- JSON output ---------------------------------------------------------- */
static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", f);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void json_warnings(FILE *f, const char *w)
{
    fputc('[', f);
    int first = 1;
    while (w && *w) {
        size_t n = strcspn(w, "\n");
        char line[600];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line - 1 ? n : sizeof line - 1), w);
        fputs(first ? "" : ", ", f);
        json_str(f, line);
        first = 0;
        w += n + (w[n] == '\n');
    }
    fputc(']', f);
}

static void print_json(FILE *f, const TopoInfo *in, const TopoGpu *gpus, int ngpus, const char *key,
                       const HjTarget *tgt, const TopoPlan *p)
{
    fprintf(f, "{\n  \"node\": {\"packages\": %d, \"numa_nodes\": %d, \"cores\": %d, \"pus\": %d,\n",
            in->npackages, in->nnuma, in->ncores, in->npus);
    fputs("    \"cpu_vendor\": ", f);
    json_str(f, in->cpu_vendor);
    fputs(", \"cpu_model\": ", f);
    json_str(f, in->cpu_model);
    fputs(",\n    \"allowed_cpus\": ", f);
    json_str(f, in->allowed_cpus);
    fputs(", \"current_cpus\": ", f);
    json_str(f, in->current_cpus);
    fputs(",\n    \"caches\": [", f);
    for (int i = 0; i < in->ncaches; i++) {
        const TopoCache *c = &in->caches[i];
        fprintf(f, "%s\n      {\"level\": %d, \"kind\": \"%s\", \"size\": %llu, \"linesize\": %u, "
                   "\"ways\": %d, \"count\": %d}",
                i ? "," : "", c->level, c->kind == 'i' ? "instruction" : c->kind == 'd' ? "data" : "unified",
                (unsigned long long)c->size, c->linesize, c->ways, c->count);
    }
    fprintf(f, "],\n    \"io_discovered\": %s, \"gpus\": %d, \"gpu_list\": [", in->io_discovered ? "true" : "false",
            ngpus);
    for (int i = 0; i < ngpus; i++) {
        const TopoGpu *g = &gpus[i];
        fprintf(f, "%s\n      {\"index\": %d, \"vendor_index\": %d, \"busid\": \"%s\", \"class\": \"%04x\", "
                   "\"vendor_id\": \"%04x\", \"device_id\": \"%04x\", \"name\": ",
                i ? "," : "", g->index, g->vendor_index, g->busid, g->class_id, g->vendor_id, g->device_id);
        json_str(f, g->name);
        fputs(", \"osdevs\": ", f);
        json_str(f, g->osdevs);
        fputs(", \"numa_nodes\": ", f);
        json_str(f, g->numa);
        fputs(", \"cpus\": ", f);
        json_str(f, g->cpus);
        fputc('}', f);
    }
    fputs("],\n    \"devices\": [", f);
    for (int i = 0; i < in->ndevices; i++) {
        const TopoDevice *d = &in->devices[i];
        fprintf(f, "%s\n      {\"busid\": \"%s\", \"class\": \"%04x\", \"vendor_id\": \"%04x\", "
                   "\"device_id\": \"%04x\", \"gpu\": %s, \"name\": ",
                i ? "," : "", d->busid, d->class_id, d->vendor_id, d->device_id, d->is_gpu ? "true" : "false");
        json_str(f, d->name);
        fputs(", \"osdevs\": ", f);
        json_str(f, d->osdevs);
        fputs(", \"locality\": ", f);
        json_str(f, d->locality);
        fputc('}', f);
    }
    fputs("]},\n  \"arch\": {\"key\": ", f);
    json_str(f, key);
    fputs(", \"llvm_cpu\": ", f);
    json_str(f, tgt->cpu);
    fputs(", \"llvm_features\": ", f);
    json_str(f, tgt->features);
    fprintf(f, "},\n  \"plan\": {\"threads\": %d, \"threads_from\": ", p->nthreads);
    json_str(f, p->nthreads_from);
    fprintf(f, ", \"bind\": \"%s\", \"bind_from\": ", topo_bind_name(p->bind));
    json_str(f, p->bind_from);
    fprintf(f, ", \"places\": \"%s\", \"places_from\": ", topo_places_name(p->places));
    json_str(f, p->places_from);
    fputs(",\n    \"place_cpus\": [", f);
    for (int i = 0; i < p->nplaces; i++) {
        fputs(i ? ", " : "", f);
        json_str(f, p->place_cpus[i]);
    }
    fputs("],\n    \"thread_cpus\": [", f);
    for (int i = 0; i < p->nthreads; i++) {
        fputs(i ? ", " : "", f);
        json_str(f, p->thread_cpus[i]);
    }
    fputs("],\n    \"warnings\": ", f);
    json_warnings(f, p->warnings);
    fputs("}\n}\n", f);
}

/* ---- readable output ------------------------------------------------------ */
static void human_size(char *buf, size_t cap, unsigned long long b)
{
    if (b >= (1ULL << 20) && b % (1ULL << 20) == 0)
        snprintf(buf, cap, "%llu MiB", b >> 20);
    else if (b >= 1024)
        snprintf(buf, cap, "%llu KiB", b >> 10);
    else
        snprintf(buf, cap, "%llu B", b);
}

static void print_text(FILE *f, const TopoInfo *in, const TopoGpu *gpus, int ngpus, const char *key,
                       const HjTarget *tgt, const TopoPlan *p)
{
    fputs("node (inside this process's binding)\n", f);
    fprintf(f, "  cpu           %s%s%s\n", in->cpu_vendor[0] ? in->cpu_vendor : "unknown vendor",
            in->cpu_model[0] ? ", " : "", in->cpu_model);
    fprintf(f, "  packages      %d\n  NUMA nodes    %d\n  cores         %d\n  PUs           %d\n", in->npackages,
            in->nnuma, in->ncores, in->npus);
    fprintf(f, "  allowed cpus  %s   (cgroup/cpuset)\n", in->allowed_cpus);
    fprintf(f, "  current cpus  %s   (affinity: taskset, --cpu-bind)\n", in->current_cpus);
    fputs("  caches       ", f);
    if (in->ncaches == 0)
        fputs(" none reported", f);
    for (int i = 0; i < in->ncaches; i++) {
        const TopoCache *c = &in->caches[i];
        char sz[32];
        human_size(sz, sizeof sz, (unsigned long long)c->size);
        fprintf(f, "%s L%d%s %s x%d", i ? "," : "", c->level, c->kind == 'i' ? "i" : c->kind == 'd' ? "d" : "", sz,
                c->count);
    }
    fputc('\n', f);
    /* GPUs: the whole node's (topo_gpus), in PCI order, with their NUMA nodes */
    if (!in->io_discovered)
        fputs("  GPUs          not looked for (--no-io)\n", f);
    else if (ngpus == 0)
        fputs("  GPUs          none\n", f);
    for (int i = 0; i < ngpus; i++) {
        const TopoGpu *g = &gpus[i];
        fprintf(f, "  %-13s %d: %s class %04x %04x:%04x%s%s%s%s, NUMA node %s, cpus %s\n", i ? "" : "GPUs",
                g->index, g->busid, g->class_id, g->vendor_id, g->device_id, g->name[0] ? " " : "", g->name,
                g->osdevs[0] ? " " : "", g->osdevs, g->numa[0] ? g->numa : "?", g->cpus[0] ? g->cpus : "?");
    }
    int shown = 0;
    for (int i = 0; i < in->ndevices; i++) {
        const TopoDevice *d = &in->devices[i];
        if (d->is_gpu)
            continue;
        fprintf(f, "  %-13s %s class %04x %04x:%04x%s%s%s%s near cpus %s\n", shown++ ? "" : "PCI devices",
                d->busid, d->class_id, d->vendor_id, d->device_id, d->name[0] ? " " : "", d->name,
                d->osdevs[0] ? " " : "", d->osdevs, d->locality[0] ? d->locality : "?");
    }
    fprintf(f, "\narchitecture\n  key           %s\n  LLVM cpu      %s\n", key, tgt->cpu ? tgt->cpu : "");
    fprintf(f, "\nthread plan\n  threads       %d (from %s)\n", p->nthreads, p->nthreads_from);
    fprintf(f, "  binding       %s (from %s)\n", topo_bind_name(p->bind), p->bind_from);
    fprintf(f, "  places        %s (from %s)", topo_places_name(p->places), p->places_from);
    for (int i = 0; i < p->nplaces; i++)
        fprintf(f, "%s{%s}", i ? "," : " ", p->place_cpus[i]);
    fputc('\n', f);
    for (int i = 0; i < p->nthreads; i++)
        fprintf(f, "  thread %-5d  cpus %s%s\n", i, p->thread_cpus[i], p->bind == TOPO_BIND_FALSE ? " (not pinned)" : "");
    for (const char *w = p->warnings; w && *w;) {
        size_t n = strcspn(w, "\n");
        fprintf(f, "  warning: %.*s\n", (int)n, w);
        w += n + (w[n] == '\n');
    }
}

static int cmd_topo(int argc, char **argv)
{
    int json = 0, io = 1, rc = 1;
    TopoNode *node = NULL;
    TopoPlan *plan = NULL;
    char *key = NULL;
    HjTarget tgt = {0};
    TopoGpu *gpus = NULL;
    int ngpus = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (strcmp(argv[i], "--no-io") == 0)
            io = 0;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(topo_usage, stdout);
            return 0;
        } else {
            fprintf(stderr, "hpcjit topo: unknown option '%s'\n\n%s", argv[i], topo_usage);
            return 2;
        }
    }
    int trc = topo_discover(&node, io ? TOPO_DISCOVER_IO : 0);
    if (trc != TOPO_OK) {
        fprintf(stderr, "hpcjit topo: %s\n", topo_strerror(trc));
        goto done;
    }
    if (io && (trc = topo_gpus(&gpus, &ngpus)) != TOPO_OK) {
        fprintf(stderr, "hpcjit topo: GPUs: %s\n", topo_strerror(trc));
        goto done;
    }
    if ((trc = topo_plan(node, &plan)) != TOPO_OK) {
        fprintf(stderr, "hpcjit topo: thread plan: %s\n", topo_strerror(trc));
        goto done;
    }
    hj_target_host(&tgt);
    key = topo_arch_key(node, tgt.cpu, tgt.features);
    if (!key) {
        fputs("hpcjit topo: out of memory\n", stderr);
        goto done;
    }
    if (json)
        print_json(stdout, topo_info(node), gpus, ngpus, key, &tgt, plan);
    else
        print_text(stdout, topo_info(node), gpus, ngpus, key, &tgt, plan);
    rc = fflush(stdout) == 0 ? 0 : 1;
done:
    free(key);
    free(gpus);
    hj_target_free(&tgt);
    topo_plan_free(plan);
    topo_free(node);
    return rc;
}

/* hpcjit cache ARGS: the management commands live in Python beside the
 * cache (python/hpcjit/cache.py); run them with the job's interpreter. */
/* A subcommand written in Python: exec $HPCJIT_PYTHON -m MODULE ARGS. */
static int cmd_python(const char *cmd, const char *module, int argc, char **argv)
{
    const char *py = getenv("HPCJIT_PYTHON");
    if (!py || !*py)
        py = "python3";
    char **args = calloc((size_t)argc + 3, sizeof *args);
    if (!args) {
        fprintf(stderr, "hpcjit %s: out of memory\n", cmd);
        return 1;
    }
    args[0] = (char *)py;
    args[1] = "-m";
    args[2] = (char *)module;
    for (int i = 1; i < argc; i++)
        args[i + 2] = argv[i];
    fflush(NULL);
    execvp(py, args);
    fprintf(stderr, "hpcjit %s: cannot run '%s': %s\n", cmd, py, strerror(errno));
    free(args);
    return errno == ENOENT ? 127 : 126;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(main_usage, stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        if (argc > 2 && strcmp(argv[2], "topo") == 0)
            fputs(topo_usage, stdout);
        else if (argc > 2 && strcmp(argv[2], "run") == 0)
            fputs(run_usage, stdout);
        else if (argc > 2 && strcmp(argv[2], "gpu-bind") == 0)
            fputs(gpu_bind_usage, stdout);
        else
            fputs(main_usage, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("hpcjit %s\n", HPCJIT_VERSION_STR);
        return 0;
    }
    if (strcmp(cmd, "topo") == 0)
        return cmd_topo(argc - 1, argv + 1);
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc - 1, argv + 1);
    if (strcmp(cmd, "gpu-bind") == 0)
        return cmd_gpu_bind(argc - 1, argv + 1);
    if (strcmp(cmd, "cache") == 0)
        return cmd_python("cache", "hpcjit.cache", argc - 1, argv + 1);
    if (strcmp(cmd, "cc") == 0)
        return cmd_python("cc", "hpcjit.aot", argc - 1, argv + 1);
    fprintf(stderr, "hpcjit: unknown command '%s'\n\n%s", cmd, main_usage);
    return 2;
}
