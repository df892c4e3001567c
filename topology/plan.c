/* plan.c - how many threads, on which places, bound how: the OpenMP
 * environment read as the conventions file says, inside our binding. */
#define _GNU_SOURCE
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <hwloc.h>

#include "topo_internal.h"

#define MAX_THREADS 4096
#define MAX_PLACES 4096
#define MAX_CPU 65536 /* largest OS CPU number accepted in OMP_PLACES */

typedef struct Places {
    hwloc_bitmap_t *v;
    int n, cap;
} Places;

typedef struct Build {
    const TopoNode *node;
    char *warn;
    size_t wlen, wcap;
    int oom;
} Build;

__attribute__((format(printf, 2, 3))) static void warnf(Build *b, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    line[n] = '\0';
    if (b->wlen + (size_t)n + 1 > b->wcap) {
        size_t cap = (b->wcap ? b->wcap * 2 : 256) + (size_t)n;
        char *w = realloc(b->warn, cap);
        if (!w) {
            b->oom = 1;
            return;
        }
        b->warn = w;
        b->wcap = cap;
    }
    memcpy(b->warn + b->wlen, line, (size_t)n + 1);
    b->wlen += (size_t)n;
}

static int places_push(Places *p, hwloc_bitmap_t set)
{
    if (p->n == p->cap) {
        int cap = p->cap ? p->cap * 2 : 8;
        hwloc_bitmap_t *v = realloc(p->v, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        p->v = v;
        p->cap = cap;
    }
    p->v[p->n++] = set;
    return 0;
}

static void places_clear(Places *p)
{
    for (int i = 0; i < p->n; i++)
        hwloc_bitmap_free(p->v[i]);
    free(p->v);
    p->v = NULL;
    p->n = p->cap = 0;
}

/* ---- environment values ------------------------------------------------- */
/* A positive count; OMP_NUM_THREADS may be a list per nesting level, of
 * which the first item is ours. */
static int parse_count(const char *s, int *out)
{
    char *end = NULL;
    while (isspace((unsigned char)*s))
        s++;
    if (!isdigit((unsigned char)*s))
        return -1;
    long v = strtol(s, &end, 10);
    while (isspace((unsigned char)*end))
        end++;
    if ((*end != '\0' && *end != ',') || v < 1 || v > MAX_THREADS)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_bind(const char *s, TopoBind *out)
{
    static const struct { const char *name; TopoBind b; } names[] = {
        {"false", TOPO_BIND_FALSE}, {"true", TOPO_BIND_TRUE}, {"close", TOPO_BIND_CLOSE},
        {"spread", TOPO_BIND_SPREAD}, {"primary", TOPO_BIND_PRIMARY}, {"master", TOPO_BIND_PRIMARY},
    };
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strcspn(s, ", \t");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i].name) == n && strncasecmp(s, names[i].name, n) == 0) {
            *out = names[i].b;
            return 0;
        }
    return -1;
}

const char *topo_bind_name(TopoBind b)
{
    switch (b) {
    case TOPO_BIND_FALSE: return "false";
    case TOPO_BIND_TRUE: return "true";
    case TOPO_BIND_CLOSE: return "close";
    case TOPO_BIND_SPREAD: return "spread";
    case TOPO_BIND_PRIMARY: return "primary";
    }
    return "?";
}

const char *topo_places_name(TopoPlaces p)
{
    switch (p) {
    case TOPO_PLACES_DEFAULT: return "default";
    case TOPO_PLACES_THREADS: return "threads";
    case TOPO_PLACES_CORES: return "cores";
    case TOPO_PLACES_SOCKETS: return "sockets";
    case TOPO_PLACES_NUMA: return "numa_domains";
    case TOPO_PLACES_LLCACHES: return "ll_caches";
    case TOPO_PLACES_LIST: return "list";
    }
    return "?";
}

/* ---- OMP_PLACES explicit lists -------------------------------------------
 *   list  := item (',' item)*
 *   item  := '{' res (',' res)* '}' [':' len [':' stride]]
 *   res   := ['!'] num [':' len [':' stride]]
 * A place with ':len:stride' is repeated len times shifted by stride. */
typedef struct Parser {
    const char *s;
    const char *err;
} Parser;

static void skip_ws(Parser *p)
{
    while (isspace((unsigned char)*p->s))
        p->s++;
}

static int accept(Parser *p, char c)
{
    skip_ws(p);
    if (*p->s != c)
        return 0;
    p->s++;
    return 1;
}

static int number(Parser *p, long lo, long hi, long *out)
{
    char *end = NULL;
    skip_ws(p);
    if (!isdigit((unsigned char)*p->s) && *p->s != '-') {
        p->err = "expected a number";
        return -1;
    }
    long v = strtol(p->s, &end, 10);
    if (end == p->s || v < lo || v > hi) {
        p->err = "number out of range";
        return -1;
    }
    p->s = end;
    *out = v;
    return 0;
}

/* Optional ":len[:stride]"; defaults 1 and 1. */
static int interval(Parser *p, long *len, long *stride)
{
    *len = 1;
    *stride = 1;
    if (!accept(p, ':'))
        return 0;
    if (number(p, 1, MAX_PLACES, len) < 0)
        return -1;
    if (accept(p, ':') && number(p, -MAX_CPU, MAX_CPU, stride) < 0)
        return -1;
    return 0;
}

static int parse_place(Parser *p, hwloc_bitmap_t set)
{
    if (!accept(p, '{')) {
        p->err = "expected '{'";
        return -1;
    }
    do {
        int neg = accept(p, '!');
        long first, len, stride;
        if (number(p, 0, MAX_CPU - 1, &first) < 0 || interval(p, &len, &stride) < 0)
            return -1;
        for (long k = 0; k < len; k++) {
            long cpu = first + k * stride;
            if (cpu < 0 || cpu >= MAX_CPU) {
                p->err = "CPU number out of range";
                return -1;
            }
            if (neg)
                hwloc_bitmap_clr(set, (unsigned)cpu);
            else
                hwloc_bitmap_set(set, (unsigned)cpu);
        }
    } while (accept(p, ','));
    if (!accept(p, '}')) {
        p->err = "expected '}'";
        return -1;
    }
    return 0;
}

static int parse_list(const char *s, Places *out, const char **err)
{
    Parser p = {s, NULL};
    hwloc_bitmap_t place = NULL;
    do {
        long len, stride;
        place = hwloc_bitmap_alloc();
        if (!place) {
            p.err = "out of memory";
            goto error;
        }
        if (parse_place(&p, place) < 0 || interval(&p, &len, &stride) < 0)
            goto error;
        for (long k = 0; k < len; k++) {
            hwloc_bitmap_t shifted = hwloc_bitmap_alloc();
            unsigned i;
            if (!shifted || out->n >= MAX_PLACES) {
                hwloc_bitmap_free(shifted);
                p.err = shifted ? "too many places" : "out of memory";
                goto error;
            }
            hwloc_bitmap_foreach_begin(i, place) {
                long cpu = (long)i + k * stride;
                if (cpu >= 0 && cpu < MAX_CPU)
                    hwloc_bitmap_set(shifted, (unsigned)cpu);
            }
            hwloc_bitmap_foreach_end();
            if (places_push(out, shifted) < 0) {
                hwloc_bitmap_free(shifted);
                p.err = "out of memory";
                goto error;
            }
        }
        hwloc_bitmap_free(place);
        place = NULL;
    } while (accept(&p, ','));
    skip_ws(&p);
    if (*p.s != '\0') {
        p.err = "unexpected text after the list";
        goto error;
    }
    return 0;
error:
    hwloc_bitmap_free(place);
    places_clear(out);
    *err = p.err;
    return -1;
}

/* ---- places ------------------------------------------------------------- */
static int places_of_type(const TopoNode *node, hwloc_obj_type_t type, long limit, Places *out)
{
    int n = hwloc_get_nbobjs_by_type(node->topo, type);
    for (int i = 0; i < n && (limit <= 0 || out->n < limit); i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(node->topo, type, (unsigned)i);
        if (!o || !o->cpuset || !hwloc_bitmap_intersects(o->cpuset, node->cpuset))
            continue;
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        if (!set || places_push(out, set) < 0) {
            hwloc_bitmap_free(set);
            return -1;
        }
        hwloc_bitmap_and(set, o->cpuset, node->cpuset);
    }
    return 0;
}

static hwloc_obj_type_t last_level_cache(const TopoNode *node)
{
    static const hwloc_obj_type_t order[] = {HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L3CACHE,
                                             HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L1CACHE};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (hwloc_get_nbobjs_by_type(node->topo, order[i]) > 0)
            return order[i];
    return HWLOC_OBJ_PACKAGE;
}

/* OMP_PLACES -> places inside the binding.  Returns 0, or -1 when out of
 * memory; a bad value leaves TOPO_PLACES_DEFAULT with a warning. */
static int read_places(Build *b, TopoPlaces *kind, const char **from, Places *out)
{
    static const struct { const char *name; TopoPlaces kind; } names[] = {
        {"threads", TOPO_PLACES_THREADS}, {"cores", TOPO_PLACES_CORES},
        {"sockets", TOPO_PLACES_SOCKETS}, {"numa_domains", TOPO_PLACES_NUMA},
        {"ll_caches", TOPO_PLACES_LLCACHES},
    };
    const char *env = getenv("OMP_PLACES");
    *kind = TOPO_PLACES_DEFAULT;
    *from = "default";
    if (!env || !*env)
        return 0;
    const char *s = env;
    while (isspace((unsigned char)*s))
        s++;
    if (*s == '{') {
        const char *err = NULL;
        if (parse_list(s, out, &err) < 0) {
            if (err && strcmp(err, "out of memory") == 0)
                return -1;
            warnf(b, "OMP_PLACES='%s' ignored: %s", env, err ? err : "invalid");
            return 0;
        }
        /* Never widen the binding: keep each place's part inside it. */
        int kept = 0, trimmed = 0;
        for (int i = 0; i < out->n; i++) {
            if (!hwloc_bitmap_isincluded(out->v[i], b->node->cpuset))
                trimmed++;
            hwloc_bitmap_and(out->v[i], out->v[i], b->node->cpuset);
            if (hwloc_bitmap_iszero(out->v[i]))
                hwloc_bitmap_free(out->v[i]);
            else
                out->v[kept++] = out->v[i];
        }
        int dropped = out->n - kept;
        out->n = kept;
        if (trimmed)
            warnf(b, "OMP_PLACES: %d of %d places reach outside the CPUs this process may use; "
                     "kept their part inside (%d empty places dropped)", trimmed, kept + dropped, dropped);
        if (kept == 0) {
            warnf(b, "OMP_PLACES='%s' ignored: no place inside the binding", env);
            return 0;
        }
        *kind = TOPO_PLACES_LIST;
        *from = "OMP_PLACES";
        return 0;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t n = strlen(names[i].name);
        if (strncasecmp(s, names[i].name, n) != 0)
            continue;
        const char *rest = s + n;
        long limit = 0;
        while (isspace((unsigned char)*rest))
            rest++;
        if (*rest == '(') {
            char *end = NULL;
            limit = strtol(rest + 1, &end, 10);
            if (end == rest + 1 || *end != ')' || limit < 1)
                break;
            rest = end + 1;
            while (isspace((unsigned char)*rest))
                rest++;
        }
        if (*rest != '\0')
            break;
        hwloc_obj_type_t type = names[i].kind == TOPO_PLACES_THREADS   ? HWLOC_OBJ_PU
                                : names[i].kind == TOPO_PLACES_CORES   ? HWLOC_OBJ_CORE
                                : names[i].kind == TOPO_PLACES_SOCKETS ? HWLOC_OBJ_PACKAGE
                                : names[i].kind == TOPO_PLACES_NUMA    ? HWLOC_OBJ_NUMANODE
                                                                       : last_level_cache(b->node);
        if (places_of_type(b->node, type, limit, out) < 0)
            return -1;
        if (out->n == 0) {
            warnf(b, "OMP_PLACES='%s' ignored: no such objects inside the binding", env);
            return 0;
        }
        *kind = names[i].kind;
        *from = "OMP_PLACES";
        return 0;
    }
    warnf(b, "OMP_PLACES='%s' ignored: expected threads, cores, sockets, numa_domains, "
             "ll_caches or a list such as {0,1},{2:2}", env);
    return 0;
}

/* ---- the plan ----------------------------------------------------------- */
static void read_count(Build *b, TopoPlan *plan)
{
    static const char *vars[] = {"HPCJIT_NUM_THREADS", "NUMBA_NUM_THREADS", "OMP_NUM_THREADS"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        int n;
        if (!v || !*v)
            continue;
        if (parse_count(v, &n) == 0) {
            plan->nthreads = n;
            plan->nthreads_from = vars[i];
            return;
        }
        warnf(b, "%s='%s' ignored: not a thread count in 1..%d", vars[i], v, MAX_THREADS);
    }
    int w = hwloc_bitmap_weight(b->node->cpuset);
    plan->nthreads = w > 0 ? w : 1;
    plan->nthreads_from = "affinity mask";
}

static void read_bind(Build *b, TopoPlan *plan)
{
    static const char *vars[] = {"HPCJIT_PROC_BIND", "OMP_PROC_BIND"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (!v || !*v)
            continue;
        if (parse_bind(v, &plan->bind) == 0) {
            plan->bind_from = vars[i];
            return;
        }
        warnf(b, "%s='%s' ignored: expected close, spread, true, false or primary", vars[i], v);
    }
    /* Pinned by default: an unpinned worker migrates and loses its cache. */
    plan->bind = TOPO_BIND_SPREAD;
    plan->bind_from = "default";
}

/* The place of thread i of n over p places (OpenMP's close and spread). */
static int place_index(TopoBind bind, int i, int n, int p)
{
    if (bind == TOPO_BIND_PRIMARY)
        return 0;
    if (n <= p && bind == TOPO_BIND_CLOSE)
        return i;
    return (int)((long long)i * p / n);
}

static int assign_default(const TopoNode *node, TopoPlan *plan, hwloc_bitmap_t *sets)
{
    int n = plan->nthreads;
    if (plan->bind == TOPO_BIND_SPREAD || plan->bind == TOPO_BIND_TRUE) {
        hwloc_obj_t root = hwloc_get_root_obj(node->topo);
        /* hwloc_distrib allocates the sets itself */
        for (int i = 0; i < n; i++) {
            hwloc_bitmap_free(sets[i]);
            sets[i] = NULL;
        }
        if (hwloc_distrib(node->topo, &root, 1, sets, (unsigned)n, INT_MAX, 0) < 0)
            return -1;
        for (int i = 0; i < n; i++) {
            hwloc_bitmap_and(sets[i], sets[i], node->cpuset);
            if (hwloc_bitmap_iszero(sets[i]))
                hwloc_bitmap_copy(sets[i], node->cpuset);
            hwloc_bitmap_singlify(sets[i]);
        }
        return 0;
    }
    /* close / primary: PUs in logical order, so SMT siblings stay adjacent */
    int npu = hwloc_get_nbobjs_by_type(node->topo, HWLOC_OBJ_PU);
    for (int i = 0; i < n; i++) {
        int k = npu > 0 ? place_index(plan->bind, i, n, npu) : 0;
        hwloc_obj_t pu = npu > 0 ? hwloc_get_obj_by_type(node->topo, HWLOC_OBJ_PU, (unsigned)k) : NULL;
        hwloc_bitmap_copy(sets[i], pu && pu->cpuset ? pu->cpuset : node->cpuset);
        hwloc_bitmap_and(sets[i], sets[i], node->cpuset);
        hwloc_bitmap_singlify(sets[i]);
    }
    return 0;
}

static void free_sets(hwloc_bitmap_t *sets, int n)
{
    if (!sets)
        return;
    for (int i = 0; i < n; i++)
        hwloc_bitmap_free(sets[i]);
    free(sets);
}

void topo_plan_free(TopoPlan *plan)
{
    if (!plan)
        return;
    for (int i = 0; plan->place_cpus && i < plan->nplaces; i++)
        free(plan->place_cpus[i]);
    for (int i = 0; plan->thread_cpus && i < plan->nthreads; i++)
        free(plan->thread_cpus[i]);
    free(plan->place_cpus);
    free(plan->thread_cpus);
    free(plan->thread_place);
    free(plan->thread_pu);
    free(plan->warnings);
    free_sets(plan->sets_, plan->nthreads);
    free(plan);
}

int topo_plan(const TopoNode *node, TopoPlan **out)
{
    Build b = {node, NULL, 0, 0, 0};
    Places places = {NULL, 0, 0};
    TopoPlan *plan = NULL;
    hwloc_bitmap_t *sets = NULL;
    if (!node || !out)
        return TOPO_EINVAL;
    *out = NULL;
    plan = calloc(1, sizeof *plan);
    if (!plan)
        return TOPO_ENOMEM;

    read_count(&b, plan);
    read_bind(&b, plan);
    if (read_places(&b, &plan->places, &plan->places_from, &places) < 0)
        goto oom;
    int n = plan->nthreads;
    plan->thread_place = malloc((size_t)n * sizeof *plan->thread_place);
    plan->thread_pu = malloc((size_t)n * sizeof *plan->thread_pu);
    plan->thread_cpus = calloc((size_t)n, sizeof *plan->thread_cpus);
    if (!plan->thread_place || !plan->thread_pu || !plan->thread_cpus)
        goto oom;
    if (places.n > 0) {
        plan->place_cpus = calloc((size_t)places.n, sizeof *plan->place_cpus);
        if (!plan->place_cpus)
            goto oom;
        plan->nplaces = places.n;
        for (int i = 0; i < places.n; i++)
            if (!(plan->place_cpus[i] = topo_set_list(places.v[i])))
                goto oom;
    }

    if (plan->bind != TOPO_BIND_FALSE) {
        sets = calloc((size_t)n, sizeof *sets);
        if (!sets)
            goto oom;
        for (int i = 0; i < n; i++)
            if (!(sets[i] = hwloc_bitmap_alloc()))
                goto oom;
        if (places.n == 0) {
            if (assign_default(node, plan, sets) < 0)
                goto oom;
        }
        for (int i = 0; i < n; i++) {
            plan->thread_place[i] = -1;
            if (places.n > 0) {
                int k = place_index(plan->bind, i, n, places.n);
                plan->thread_place[i] = k;
                hwloc_bitmap_copy(sets[i], places.v[k]);
            }
            plan->thread_pu[i] = hwloc_bitmap_weight(sets[i]) == 1 ? hwloc_bitmap_first(sets[i]) : -1;
            if (!(plan->thread_cpus[i] = topo_set_list(sets[i])))
                goto oom;
        }
        plan->sets_ = sets;
        sets = NULL;
    } else {
        for (int i = 0; i < n; i++) {
            plan->thread_place[i] = -1;
            plan->thread_pu[i] = -1;
            if (!(plan->thread_cpus[i] = topo_set_list(node->cpuset)))
                goto oom;
        }
    }

    int ncpu = hwloc_bitmap_weight(node->cpuset);
    if (ncpu > 0 && n > ncpu)
        warnf(&b, "%d threads on %d CPUs of the binding: oversubscribed", n, ncpu);
    const char *slurm = getenv("SLURM_CPUS_PER_TASK");
    int per_task;
    if (slurm && *slurm && parse_count(slurm, &per_task) == 0 && per_task != n)
        warnf(&b, "SLURM_CPUS_PER_TASK=%d but the plan runs %d threads (from %s)", per_task, n,
              plan->nthreads_from);
    if (b.oom)
        goto oom;
    plan->warnings = b.warn ? b.warn : strdup("");
    b.warn = NULL;
    if (!plan->warnings)
        goto oom;
    places_clear(&places);
    *out = plan;
    return TOPO_OK;

oom:
    free(b.warn);
    free_sets(sets, plan->nthreads);
    places_clear(&places);
    topo_plan_free(plan);
    return TOPO_ENOMEM;
}

int topo_plan_keep_cpu(TopoPlan *plan, int cpu)
{
    hwloc_bitmap_t *sets = plan ? plan->sets_ : NULL;
    if (!sets || cpu < 0 || plan->bind == TOPO_BIND_PRIMARY || hwloc_bitmap_isset(sets[0], (unsigned)cpu))
        return 0;
    for (int k = 1; k < plan->nthreads; k++) {
        if (!hwloc_bitmap_isset(sets[k], (unsigned)cpu))
            continue;
        hwloc_bitmap_t s = sets[0];
        sets[0] = sets[k], sets[k] = s;
        int place = plan->thread_place[0], pu = plan->thread_pu[0];
        plan->thread_place[0] = plan->thread_place[k], plan->thread_place[k] = place;
        plan->thread_pu[0] = plan->thread_pu[k], plan->thread_pu[k] = pu;
        char *cpus = plan->thread_cpus[0];
        plan->thread_cpus[0] = plan->thread_cpus[k], plan->thread_cpus[k] = cpus;
        return k;
    }
    return 0;
}

int topo_bind_thread(const TopoNode *node, const TopoPlan *plan, int tid)
{
    if (!node || !plan || tid < 0 || tid >= plan->nthreads)
        return TOPO_EINVAL;
    hwloc_bitmap_t *sets = plan->sets_;
    if (!sets)
        return TOPO_OK;
    if (hwloc_set_cpubind(node->topo, sets[tid], HWLOC_CPUBIND_THREAD) < 0)
        return TOPO_EHWLOC;
    return TOPO_OK;
}
