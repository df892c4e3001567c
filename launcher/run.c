/* hpcjit run - start a program (a Python script or any executable) as a
 * job: with srun inside a Slurm allocation, with mpirun/mpiexec outside,
 * directly for one rank outside Slurm.  See ../../shared/HPC-CONVENTIONS.md
 * for the reasons behind each srun/mpirun option. */
#define _GNU_SOURCE
#include "run.h"
#include "gpu.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

const char run_usage[] =
    "usage: hpcjit run [-n RANKS] [-c THREADS_PER_RANK] [--gpus-per-rank G]\n"
    "                  [--bind cores|none] [--cache-dir DIR] [--no-cache] [--compile-once]\n"
    "                  [--dry-run] [--json] [--] PROGRAM [ARGS...]\n"
    "\n"
    "Start PROGRAM as a job of RANKS processes with THREADS_PER_RANK threads each.\n"
    "A PROGRAM ending in .py that is not executable runs under $HPCJIT_PYTHON\n"
    "(default python3).\n"
    "\n"
    "  inside a Slurm allocation (SLURM_JOB_ID set):\n"
    "      srun -n RANKS -c THREADS --cpu-bind=cores --kill-on-bad-exit=1 PROGRAM\n"
    "      with SRUN_CPUS_PER_TASK exported (srun of Slurm >= 22.05 no longer\n"
    "      inherits SLURM_CPUS_PER_TASK)\n"
    "  outside Slurm, RANKS > 1:\n"
    "      mpirun -n RANKS --map-by slot:PE=THREADS --bind-to core PROGRAM\n"
    "      (Open MPI; $HPCJIT_MPIEXEC names another mpirun), so that ranks on a\n"
    "      node never share cores\n"
    "  outside Slurm, one rank: PROGRAM itself (no MPI)\n"
    "\n"
    "options:\n"
    "  -n, --ranks RANKS        number of processes (default: SLURM_NTASKS inside\n"
    "                           an allocation, else 1)\n"
    "  -c, --threads THREADS    threads per rank (default: SLURM_CPUS_PER_TASK\n"
    "                           inside an allocation, else the CPUs of the\n"
    "                           affinity mask divided by RANKS, at least 1)\n"
    "  --gpus-per-rank G        GPUs per rank: srun gets --gpus-per-node (not\n"
    "                           --gpus-per-task, which hides peers from NCCL);\n"
    "                           each rank runs under `hpcjit gpu-bind`, which sets\n"
    "                           CUDA_VISIBLE_DEVICES to its G devices by node-local\n"
    "                           rank and narrows its CPUs to the first one's NUMA\n"
    "                           node (HPCJIT_GPUS_PER_RANK=G is exported).  Inside\n"
    "                           an allocation made with --gpus-per-task, G defaults\n"
    "                           to SLURM_GPUS_PER_TASK and each task keeps the\n"
    "                           devices Slurm gave it\n"
    "  --bind cores|none        pin each rank to its own cores (default cores);\n"
    "                           when RANKS x THREADS exceeds the CPUs here,\n"
    "                           mpirun oversubscribes without binding\n"
    "  --cache-dir DIR          compile cache (HPCJIT_CACHE_DIR); default inside\n"
    "                           Slurm: ${SLURM_TMPDIR:-${TMPDIR:-/tmp}}/hpcjit-$USER-$SLURM_JOB_ID\n"
    "                           (node-local: never a shared file system written by\n"
    "                           every rank); outside Slurm: unchanged (hpcjit's\n"
    "                           default, ~/.cache/hpcjit or node-local); a\n"
    "                           directory shared by the job's nodes also works\n"
    "                           (one compile per architecture for the whole job)\n"
    "  --no-cache               HPCJIT_CACHE=0: no on-disk cache.  Without it the\n"
    "                           cache is on for every function (HPCJIT_CACHE=1,\n"
    "                           unless HPCJIT_CACHE is set): the first rank that\n"
    "                           needs a specialisation compiles it, ranks of the\n"
    "                           same architecture wait on its lock file and load\n"
    "                           it (no MPI collective; see docs/CACHE.md)\n"
    "  --compile-once           HPCJIT_MPI_COMPILE_ONCE=1: one rank per node\n"
    "                           architecture compiles and broadcasts the code\n"
    "                           (every rank must call jitted functions with the\n"
    "                           same types in the same order)\n"
    "  --dry-run                print the command and environment, run nothing\n"
    "  --json                   with --dry-run: print them as one JSON object\n"
    "  -h, --help               show this text\n"
    "\n"
    "Every rank gets HPCJIT_NUM_THREADS and OMP_NUM_THREADS = THREADS.  SIGINT,\n"
    "SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 are forwarded to the job; the\n"
    "exit status is the job's (128+N when it died of signal N).\n";

/* ---- growing lists -------------------------------------------------------- */

typedef struct StrList {
    char **items;
    int n, cap;
} StrList;

static int list_push(StrList *l, const char *s)
{
    if (l->n + 2 > l->cap) {
        int cap = l->cap ? l->cap * 2 : 16;
        char **p = realloc(l->items, (size_t)cap * sizeof *p);
        if (!p)
            return -1;
        l->items = p;
        l->cap = cap;
    }
    if (!(l->items[l->n] = strdup(s)))
        return -1;
    l->items[++l->n] = NULL;
    return 0;
}

static int list_pushf(StrList *l, const char *fmt, long v)
{
    char buf[64];
    snprintf(buf, sizeof buf, fmt, v);
    return list_push(l, buf);
}

static void list_free(StrList *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->items[i]);
    free(l->items);
    l->items = NULL;
    l->n = l->cap = 0;
}

/* ---- the plan -------------------------------------------------------------- */

typedef enum { RUN_DIRECT, RUN_SRUN, RUN_MPIRUN } RunKind;

typedef struct RunPlan {
    RunKind kind;
    long ranks, threads, gpus;
    int bind; /* 1 cores, 0 none */
    int oversubscribed;
    int have_gpu;  /* RUN_DIRECT with GPUs: the choice made here (gpu.c) */
    GpuChoice gpu;
    StrList argv;
    StrList env; /* "NAME=value" */
} RunPlan;

static const char *kind_name(RunKind k)
{
    return k == RUN_SRUN ? "srun" : k == RUN_MPIRUN ? "mpirun" : "direct";
}

static int parse_count(const char *opt, const char *s, long min, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || !*s || *end || errno || v < min || v > INT_MAX) {
        fprintf(stderr, "hpcjit run: %s needs an integer >= %ld, got '%s'\n", opt, min, s ? s : "");
        return -1;
    }
    *out = v;
    return 0;
}

static long env_count(const char *name)
{
    const char *s = getenv(name);
    char *end = NULL;
    if (!s || !*s)
        return 0;
    long v = strtol(s, &end, 10); /* SLURM_CPUS_PER_TASK is a plain number */
    return (end != s && v > 0) ? v : 0;
}

static long affinity_cpus(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0)
            return n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
}

/* The first of `names` found as an executable in PATH (malloc'ed) */
static char *find_in_path(const char *const *names)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *const *nm = names; *nm; nm++) {
        if (strchr(*nm, '/'))
            return access(*nm, X_OK) == 0 ? strdup(*nm) : NULL;
        for (const char *p = path; *p;) {
            size_t len = strcspn(p, ":");
            char buf[PATH_MAX];
            /* the bare name: Open MPI's mpirun given as an absolute path acts
             * as --prefix and puts its bin dir first in the ranks' PATH */
            if (len > 0 && (size_t)snprintf(buf, sizeof buf, "%.*s/%s", (int)len, p, *nm) < sizeof buf &&
                access(buf, X_OK) == 0)
                return strdup(*nm);
            p += len + (p[len] == ':');
        }
    }
    return NULL;
}

static int env_add(RunPlan *p, const char *name, const char *value)
{
    size_t n = strlen(name) + strlen(value) + 2;
    char *s = malloc(n);
    if (!s)
        return -1;
    snprintf(s, n, "%s=%s", name, value);
    int rc = list_push(&p->env, s);
    free(s);
    return rc;
}

static int env_addl(RunPlan *p, const char *name, long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%ld", v);
    return env_add(p, name, buf);
}

/* ---- output -------------------------------------------------------------- */

static int needs_quotes(const char *s)
{
    if (!*s)
        return 1;
    for (const char *c = s; *c; c++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:@%", *c))
            return 1;
    return 0;
}

static void shell_word(FILE *f, const char *s)
{
    if (!needs_quotes(s)) {
        fputs(s, f);
        return;
    }
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    }
    fputc('\'', f);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(f, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(f, "\\u%04x", *c);
        else
            fputc(*c, f);
    }
    fputc('"', f);
}

static void print_plan(FILE *f, const RunPlan *p, int json)
{
    if (json) {
        fprintf(f, "{\"launcher\": \"%s\", \"ranks\": %ld, \"threads_per_rank\": %ld, \"gpus_per_rank\": %ld, "
                   "\"bind\": \"%s\", \"oversubscribed\": %s,\n \"env\": {",
                kind_name(p->kind), p->ranks, p->threads, p->gpus, p->bind ? "cores" : "none",
                p->oversubscribed ? "true" : "false");
        for (int i = 0; i < p->env.n; i++) {
            const char *eq = strchr(p->env.items[i], '=');
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)(eq - p->env.items[i]), p->env.items[i]);
            fputs(i ? ", " : "", f);
            json_string(f, name);
            fputs(": ", f);
            json_string(f, eq + 1);
        }
        fputs("},\n \"gpu\": ", f);
        if (p->have_gpu) {
            const GpuChoice *g = &p->gpu;
            fprintf(f, "{\"local_rank\": %ld, \"local_rank_from\": \"%s\", \"per_task\": %s, \"visible\": %d, "
                       "\"visible_from\": \"%s\", \"devices\": ",
                    g->local_rank, g->local_rank_from, g->per_task ? "true" : "false", g->nvisible, g->visible_from);
            json_string(f, g->devices);
            fputs(", \"busid\": ", f);
            json_string(f, g->busid);
            fputs(", \"numa\": ", f);
            json_string(f, g->numa);
            fputs(", \"cpus\": ", f);
            json_string(f, g->cpus);
            fputs(", \"note\": ", f);
            json_string(f, g->note);
            fputc('}', f);
        } else {
            fputs("null", f);
        }
        fputs(",\n \"argv\": [", f);
        for (int i = 0; i < p->argv.n; i++) {
            fputs(i ? ", " : "", f);
            json_string(f, p->argv.items[i]);
        }
        fputs("]}\n", f);
        return;
    }
    fprintf(f, "# hpcjit run: %s, %ld rank%s x %ld thread%s, binding %s%s\n", kind_name(p->kind), p->ranks,
            p->ranks == 1 ? "" : "s", p->threads, p->threads == 1 ? "" : "s", p->bind ? "cores" : "none",
            p->oversubscribed ? " (oversubscribed: not bound)" : "");
    if (p->have_gpu)
        fprintf(f, "# GPUs: local rank %ld (%s): CUDA_VISIBLE_DEVICES=%s of %d (%s)%s%s%s%s%s%s\n",
                p->gpu.local_rank, p->gpu.local_rank_from, p->gpu.devices, p->gpu.nvisible, p->gpu.visible_from,
                p->gpu.busid[0] ? ", GPU " : "", p->gpu.busid, p->gpu.numa[0] ? " on NUMA node " : "",
                p->gpu.numa, p->gpu.note[0] ? "; " : "", p->gpu.note);
    for (int i = 0; i < p->env.n; i++) {
        const char *eq = strchr(p->env.items[i], '=');
        fprintf(f, "export %.*s=", (int)(eq - p->env.items[i]), p->env.items[i]);
        shell_word(f, eq + 1);
        fputc('\n', f);
    }
    for (int i = 0; i < p->argv.n; i++) {
        fputs(i ? " " : "", f);
        shell_word(f, p->argv.items[i]);
    }
    fputc('\n', f);
}

/* ---- running ------------------------------------------------------------- */

static volatile sig_atomic_t child_pid = 0;

static void forward_signal(int sig, siginfo_t *info, void *ctx)
{
    (void)ctx;
    /* a terminal's ^C already reached the child (same process group) */
    if (info && info->si_code == SI_KERNEL && sig == SIGINT)
        return;
    if (child_pid > 0)
        kill((pid_t)child_pid, sig);
}

static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

static int run_child(char **argv)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = forward_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++)
        sigaction(forwarded[i], &sa, NULL);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "hpcjit run: fork: %s\n", strerror(errno));
        return 1;
    }
    if (pid == 0) {
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++)
            sigaction(forwarded[i], &dfl, NULL);
        execvp(argv[0], argv);
        fprintf(stderr, "hpcjit run: cannot run '%s': %s\n", argv[0], strerror(errno));
        _exit(errno == ENOENT ? 127 : 126);
    }
    child_pid = pid;
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "hpcjit run: waitpid: %s\n", strerror(errno));
            return 1;
        }
    }
    child_pid = 0;
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 1;
}

/* ---- the command ----------------------------------------------------------- */

static int build_plan(RunPlan *p, long ranks, long threads, long gpus, int bind, const char *cache_dir,
                      int cache, int compile_once, char **prog, int nprog)
{
    const char *job = getenv("SLURM_JOB_ID");
    int in_slurm = job && *job;
    char buf[PATH_MAX];
    /* an allocation made with --gpus-per-task: srun inherits it (and each
     * task sees only its devices); G defaults to it */
    const char *gpt = getenv("SLURM_GPUS_PER_TASK");
    int per_task = in_slurm && gpt && *gpt;
    if (gpus <= 0 && per_task)
        gpus = gpu_default_count();

    if (ranks <= 0)
        ranks = in_slurm && env_count("SLURM_NTASKS") ? env_count("SLURM_NTASKS") : 1;
    if (threads <= 0) {
        if (in_slurm)
            threads = env_count("SLURM_CPUS_PER_TASK") ? env_count("SLURM_CPUS_PER_TASK") : 1;
        else
            threads = affinity_cpus() / ranks > 0 ? affinity_cpus() / ranks : 1;
    }
    p->ranks = ranks;
    p->threads = threads;
    p->gpus = gpus;
    p->bind = bind;
    p->kind = in_slurm ? RUN_SRUN : ranks > 1 ? RUN_MPIRUN : RUN_DIRECT;

    if (env_addl(p, "HPCJIT_NUM_THREADS", threads) < 0 || env_addl(p, "OMP_NUM_THREADS", threads) < 0)
        return -1;
    if (p->kind == RUN_SRUN && env_addl(p, "SRUN_CPUS_PER_TASK", threads) < 0)
        return -1;
    if (!cache_dir && in_slurm) {
        const char *tmp = getenv("SLURM_TMPDIR");
        if (!tmp || !*tmp)
            tmp = getenv("TMPDIR");
        if (!tmp || !*tmp)
            tmp = "/tmp";
        const char *user = getenv("USER");
        if (!user || !*user)
            user = getenv("LOGNAME");
        if (!user || !*user) {
            static char uid[32];
            snprintf(uid, sizeof uid, "%ld", (long)getuid());
            user = uid;
        }
        snprintf(buf, sizeof buf, "%s/hpcjit-%s-%s", tmp, user, job);
        cache_dir = buf;
    }
    if (cache_dir && env_add(p, "HPCJIT_CACHE_DIR", cache_dir) < 0)
        return -1;
    /* the cache on by default; a value the user set wins over the default */
    const char *user_cache = getenv("HPCJIT_CACHE");
    if (!cache ? env_add(p, "HPCJIT_CACHE", "0") < 0
               : (!user_cache || !*user_cache) && env_add(p, "HPCJIT_CACHE", "1") < 0)
        return -1;
    if (gpus > 0 && env_addl(p, "HPCJIT_GPUS_PER_RANK", gpus) < 0)
        return -1;
    if (compile_once && env_add(p, "HPCJIT_MPI_COMPILE_ONCE", "1") < 0)
        return -1;

    if (p->kind == RUN_SRUN) {
        if (list_push(&p->argv, "srun") < 0 || list_push(&p->argv, "-n") < 0 ||
            list_pushf(&p->argv, "%ld", ranks) < 0 || list_push(&p->argv, "-c") < 0 ||
            list_pushf(&p->argv, "%ld", threads) < 0 ||
            list_push(&p->argv, bind ? "--cpu-bind=cores" : "--cpu-bind=none") < 0 ||
            list_push(&p->argv, "--kill-on-bad-exit=1") < 0)
            return -1;
        if (gpus > 0 && !per_task) {
            long nodes = env_count("SLURM_JOB_NUM_NODES");
            if (!nodes)
                nodes = env_count("SLURM_NNODES");
            if (!nodes)
                nodes = 1;
            long per_node = (ranks + nodes - 1) / nodes;
            if (list_pushf(&p->argv, "--gpus-per-node=%ld", gpus * per_node) < 0)
                return -1;
        }
    } else if (p->kind == RUN_MPIRUN) {
        static const char *const names[] = {"mpirun", "mpiexec", NULL};
        const char *over = getenv("HPCJIT_MPIEXEC");
        char *mpirun = NULL;
        if (over && *over) {
            mpirun = strdup(over);
        } else if (!(mpirun = find_in_path(names))) {
            fprintf(stderr, "hpcjit run: %ld ranks need mpirun or mpiexec (Open MPI: apt-get install "
                            "openmpi-bin), none found in PATH\n", ranks);
            return -2;
        }
        int rc = mpirun ? list_push(&p->argv, mpirun) : -1;
        free(mpirun);
        if (rc < 0 || list_push(&p->argv, "-n") < 0 || list_pushf(&p->argv, "%ld", ranks) < 0)
            return -1;
        p->oversubscribed = ranks * threads > affinity_cpus();
        if (p->oversubscribed) {
            if (bind)
                fprintf(stderr, "hpcjit run: warning: %ld ranks x %ld threads > %ld CPUs here: ranks are "
                                "not bound (oversubscribed)\n", ranks, threads, affinity_cpus());
            if (list_push(&p->argv, "--oversubscribe") < 0 || list_push(&p->argv, "--bind-to") < 0 ||
                list_push(&p->argv, "none") < 0)
                return -1;
        } else if (bind) {
            if (list_push(&p->argv, "--map-by") < 0 || list_pushf(&p->argv, "slot:PE=%ld", threads) < 0 ||
                list_push(&p->argv, "--bind-to") < 0 || list_push(&p->argv, "core") < 0)
                return -1;
        } else if (list_push(&p->argv, "--bind-to") < 0 || list_push(&p->argv, "none") < 0) {
            return -1;
        }
        /* Open MPI forwards only -x variables to remote nodes */
        static const char *const pass[] = {"PATH", "LD_LIBRARY_PATH", "PYTHONPATH", "HPCJIT_PYTHON",
                                           "HPCJIT_AS_NUMBA", NULL};
        for (int i = 0; i < p->env.n; i++) {
            snprintf(buf, sizeof buf, "%.*s", (int)strcspn(p->env.items[i], "="), p->env.items[i]);
            if (list_push(&p->argv, "-x") < 0 || list_push(&p->argv, buf) < 0)
                return -1;
        }
        for (const char *const *v = pass; *v; v++)
            if (getenv(*v) && (list_push(&p->argv, "-x") < 0 || list_push(&p->argv, *v) < 0))
                return -1;
    }

    if (gpus > 0 && p->kind != RUN_DIRECT) {
        /* each rank chooses its devices on its node: hpcjit gpu-bind */
        char self[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n > 0)
            self[n] = '\0';
        else
            snprintf(self, sizeof self, "hpcjit");
        if (list_push(&p->argv, self) < 0 || list_push(&p->argv, "gpu-bind") < 0 || list_push(&p->argv, "-g") < 0 ||
            list_pushf(&p->argv, "%ld", gpus) < 0 || list_push(&p->argv, "--") < 0)
            return -1;
    } else if (gpus > 0) {
        /* one rank here: choose now, the environment goes with the plan */
        if (gpu_choose(gpus, &p->gpu) < 0)
            return -1;
        p->have_gpu = 1;
        if (p->gpu.nvisible > 0 &&
            (env_add(p, "CUDA_VISIBLE_DEVICES", p->gpu.devices) < 0 ||
             (!getenv("CUDA_DEVICE_ORDER") && env_add(p, "CUDA_DEVICE_ORDER", "PCI_BUS_ID") < 0)))
            return -1;
    }

    size_t plen = strlen(prog[0]);
    if (plen > 3 && strcmp(prog[0] + plen - 3, ".py") == 0 && access(prog[0], X_OK) != 0) {
        const char *py = getenv("HPCJIT_PYTHON");
        if (list_push(&p->argv, py && *py ? py : "python3") < 0)
            return -1;
    }
    for (int i = 0; i < nprog; i++)
        if (list_push(&p->argv, prog[i]) < 0)
            return -1;
    return 0;
}

int cmd_run(int argc, char **argv)
{
    long ranks = 0, threads = 0, gpus = 0;
    int bind = 1, dry = 0, json = 0, compile_once = 0, cache = 1, rc = 1;
    const char *cache_dir = NULL;
    RunPlan plan;
    memset(&plan, 0, sizeof plan);

    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-')
            break;
        /* options with a value: "-n 4", "-n4", "--ranks=4", "--ranks 4" */
        static const char *const valued[] = {"-n", "--ranks", "-c", "--threads", "--gpus-per-rank",
                                             "--bind", "--cache-dir", NULL};
        const char *name = NULL;
        for (const char *const *v = valued; *v && !name; v++) {
            size_t len = strlen(*v);
            if (strncmp(a, *v, len) != 0)
                continue;
            if (a[len] == '\0') {
                if (i + 1 >= argc) {
                    fprintf(stderr, "hpcjit run: %s needs a value\n", a);
                    return 2;
                }
                name = *v;
                val = argv[++i];
            } else if (a[len] == '=' || (a[1] != '-' && len == 2)) {
                name = *v;
                val = a + len + (a[len] == '=');
            }
        }
        if (!name) {
            if (strcmp(a, "--dry-run") == 0)
                dry = 1;
            else if (strcmp(a, "--json") == 0)
                json = 1;
            else if (strcmp(a, "--compile-once") == 0)
                compile_once = 1;
            else if (strcmp(a, "--no-cache") == 0)
                cache = 0;
            else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
                fputs(run_usage, stdout);
                return 0;
            } else {
                fprintf(stderr, "hpcjit run: unknown option '%s'\n\n%s", a, run_usage);
                return 2;
            }
            continue;
        }
        if (strcmp(name, "-n") == 0 || strcmp(name, "--ranks") == 0) {
            if (parse_count("-n", val, 1, &ranks) < 0)
                return 2;
        } else if (strcmp(name, "-c") == 0 || strcmp(name, "--threads") == 0) {
            if (parse_count("-c", val, 1, &threads) < 0)
                return 2;
        } else if (strcmp(name, "--gpus-per-rank") == 0) {
            if (parse_count("--gpus-per-rank", val, 0, &gpus) < 0)
                return 2;
        } else if (strcmp(name, "--bind") == 0) {
            if (strcmp(val, "cores") == 0 || strcmp(val, "core") == 0)
                bind = 1;
            else if (strcmp(val, "none") == 0)
                bind = 0;
            else {
                fprintf(stderr, "hpcjit run: --bind takes 'cores' or 'none', not '%s'\n", val);
                return 2;
            }
        } else {
            if (!*val) {
                fputs("hpcjit run: --cache-dir needs a directory\n", stderr);
                return 2;
            }
            cache_dir = val;
        }
    }
    if (i >= argc) {
        fprintf(stderr, "hpcjit run: no program given\n\n%s", run_usage);
        return 2;
    }
    if (json && !dry) {
        fputs("hpcjit run: --json goes with --dry-run\n", stderr);
        return 2;
    }

    int brc = build_plan(&plan, ranks, threads, gpus, bind, cache_dir, cache, compile_once, argv + i,
                         argc - i);
    if (brc < 0) {
        if (brc == -1)
            fputs("hpcjit run: out of memory\n", stderr);
        goto done;
    }
    if (dry) {
        print_plan(stdout, &plan, json);
        rc = fflush(stdout) == 0 ? 0 : 1;
        goto done;
    }
    for (int k = 0; k < plan.env.n; k++) {
        char *eq = strchr(plan.env.items[k], '=');
        *eq = '\0';
        int src = setenv(plan.env.items[k], eq + 1, 1);
        *eq = '=';
        if (src < 0) {
            fprintf(stderr, "hpcjit run: setenv: %s\n", strerror(errno));
            goto done;
        }
    }
    if (plan.kind == RUN_DIRECT) {
        /* one process, nothing to forward: become the program */
        if (plan.have_gpu) {
            char pinned[400] = "";
            if (plan.gpu.nvisible == 0)
                fprintf(stderr, "hpcjit run: warning: --gpus-per-rank %ld: %s\n", plan.gpus, plan.gpu.note);
            else
                gpu_pin(&plan.gpu, plan.threads, pinned, sizeof pinned);
            if (gpu_display_wanted())
                fprintf(stderr, "hpcjit run: local rank %ld: CUDA_VISIBLE_DEVICES=%s; %s%s%s\n", plan.gpu.local_rank,
                        plan.gpu.devices, pinned, plan.gpu.note[0] ? "; " : "", plan.gpu.note);
        }
        fflush(NULL);
        execvp(plan.argv.items[0], plan.argv.items);
        fprintf(stderr, "hpcjit run: cannot run '%s': %s\n", plan.argv.items[0], strerror(errno));
        rc = errno == ENOENT ? 127 : 126;
        goto done;
    }
    rc = run_child(plan.argv.items);
done:
    list_free(&plan.argv);
    list_free(&plan.env);
    return rc;
}
