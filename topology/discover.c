/* discover.c - what hwloc tells us about the node inside our binding, and
 * the architecture key. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "topo_internal.h"

const char *topo_strerror(int rc)
{
    switch (rc) {
    case TOPO_OK: return "ok";
    case TOPO_EHWLOC: return "hwloc could not load the topology";
    case TOPO_ENOMEM: return "out of memory";
    case TOPO_EINVAL: return "invalid argument";
    default: return "unknown error";
    }
}

char *topo_set_list(hwloc_const_bitmap_t set)
{
    char *s = NULL;
    if (hwloc_bitmap_list_asprintf(&s, set) < 0)
        return NULL;
    return s;
}

static void copy_str(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src ? src : "");
}

static int count_type(hwloc_topology_t t, hwloc_obj_type_t type)
{
    int n = hwloc_get_nbobjs_by_type(t, type);
    return n < 0 ? 0 : n;
}

static void add_caches(TopoNode *node)
{
    static const hwloc_obj_type_t types[] = {
        HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L1ICACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L2ICACHE,
        HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L3ICACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE,
    };
    TopoInfo *info = &node->info;
    for (size_t i = 0; i < sizeof types / sizeof types[0] && info->ncaches < TOPO_MAX_CACHES; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(node->topo, types[i], 0);
        if (!o || !o->attr)
            continue;
        TopoCache *c = &info->caches[info->ncaches++];
        c->level = (int)o->attr->cache.depth;
        c->kind = o->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION ? 'i'
                  : o->attr->cache.type == HWLOC_OBJ_CACHE_DATA      ? 'd'
                                                                      : 'u';
        c->size = o->attr->cache.size;
        c->linesize = o->attr->cache.linesize;
        c->ways = o->attr->cache.associativity;
        c->count = count_type(node->topo, types[i]);
    }
}

/* The cgroup's cpuset: the CPUs the job may use, which the restricted
 * topology no longer shows.  cgroup v2 first, then v1; NULL if unknown. */
static char *cgroup_cpus(void)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    char line[1024], v2[1024] = "", v1[1024] = "";
    int have_v2 = 0, have_v1 = 0;
    if (!f)
        return NULL;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':');
        char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        if (strncmp(line, "0::", 3) == 0) {
            copy_str(v2, sizeof v2, c2 + 1);
            have_v2 = 1;
        } else {
            *c2 = '\0';
            /* controllers are a comma list: "cpuset" or "cpu,cpuset" */
            for (char *tok = strtok(c1 + 1, ","); tok; tok = strtok(NULL, ","))
                if (strcmp(tok, "cpuset") == 0) {
                    copy_str(v1, sizeof v1, c2 + 1);
                    have_v1 = 1;
                }
        }
    }
    fclose(f);

    char path[1400], buf[4096];
    for (int pass = 0; pass < 2; pass++) {
        if ((pass == 0 && !have_v2) || (pass == 1 && !have_v1))
            continue;
        char dir[1024];
        copy_str(dir, sizeof dir, pass == 0 ? v2 : v1);
        /* Walk up: a cgroup without the cpuset controller inherits. */
        for (;;) {
            if (pass == 0)
                snprintf(path, sizeof path, "/sys/fs/cgroup%s/cpuset.cpus.effective", dir);
            else
                snprintf(path, sizeof path, "/sys/fs/cgroup/cpuset%s/cpuset.effective_cpus", dir);
            FILE *g = fopen(path, "r");
            if (g) {
                size_t n = fread(buf, 1, sizeof buf - 1, g);
                fclose(g);
                buf[n] = '\0';
                buf[strcspn(buf, "\n")] = '\0';
                hwloc_bitmap_t set = hwloc_bitmap_alloc();
                char *s = NULL;
                if (set && buf[0] && hwloc_bitmap_list_sscanf(set, buf) == 0 && !hwloc_bitmap_iszero(set))
                    s = topo_set_list(set);
                hwloc_bitmap_free(set);
                if (s)
                    return s;
            }
            char *slash = strrchr(dir, '/');
            if (!slash || dir[0] == '\0')
                break;
            *slash = '\0'; /* "/a/b" -> "/a" -> "" (the root) */
        }
    }
    return NULL;
}

static void device_osdevs(hwloc_obj_t pci, TopoDevice *d)
{
    size_t len = 0;
    for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling) {
        if (c->type != HWLOC_OBJ_OS_DEVICE || !c->name)
            continue;
        int n = snprintf(d->osdevs + len, sizeof d->osdevs - len, "%s%s", len ? "," : "", c->name);
        if (n < 0 || (size_t)n >= sizeof d->osdevs - len)
            break;
        len += (size_t)n;
    }
}

static int add_devices(TopoNode *node)
{
    hwloc_topology_t t = node->topo;
    TopoInfo *info = &node->info;
    int n = 0;
    for (hwloc_obj_t o = hwloc_get_next_pcidev(t, NULL); o; o = hwloc_get_next_pcidev(t, o))
        n++;
    if (n == 0)
        return TOPO_OK;
    info->devices = calloc((size_t)n, sizeof *info->devices);
    if (!info->devices)
        return TOPO_ENOMEM;
    for (hwloc_obj_t o = hwloc_get_next_pcidev(t, NULL); o; o = hwloc_get_next_pcidev(t, o)) {
        TopoDevice *d = &info->devices[info->ndevices++];
        struct hwloc_pcidev_attr_s *p = &o->attr->pcidev;
        snprintf(d->busid, sizeof d->busid, "%04x:%02x:%02x.%01x", p->domain, p->bus, p->dev, p->func);
        d->class_id = p->class_id;
        d->vendor_id = p->vendor_id;
        d->device_id = p->device_id;
        d->is_gpu = topo_pci_is_gpu(o);
        const char *vendor = hwloc_obj_get_info_by_name(o, "PCIVendor");
        const char *device = hwloc_obj_get_info_by_name(o, "PCIDevice");
        if (vendor || device)
            snprintf(d->name, sizeof d->name, "%s%s%s", vendor ? vendor : "", vendor && device ? " " : "",
                     device ? device : "");
        else if (o->name)
            copy_str(d->name, sizeof d->name, o->name);
        device_osdevs(o, d);
        hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(t, o);
        char *loc = anc && anc->cpuset ? topo_set_list(anc->cpuset) : NULL;
        copy_str(d->locality, sizeof d->locality, loc);
        free(loc);
        if (d->is_gpu)
            info->ngpus++;
    }
    return TOPO_OK;
}

int topo_discover(TopoNode **out, unsigned flags)
{
    TopoNode *node = NULL;
    hwloc_bitmap_t cur = NULL;
    int rc = TOPO_ENOMEM;
    if (!out)
        return TOPO_EINVAL;
    *out = NULL;
    node = calloc(1, sizeof *node);
    if (!node)
        return TOPO_ENOMEM;
    if (hwloc_topology_init(&node->topo) < 0) {
        free(node);
        return TOPO_EHWLOC;
    }
    node->have_topo = 1;
    rc = TOPO_EHWLOC;
    if (hwloc_topology_set_flags(node->topo, HWLOC_TOPOLOGY_FLAG_RESTRICT_TO_CPUBINDING |
                                                 HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM) < 0)
        goto error;
    if (flags & TOPO_DISCOVER_IO)
        hwloc_topology_set_io_types_filter(node->topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_load(node->topo) < 0)
        goto error;

    TopoInfo *info = &node->info;
    info->io_discovered = (flags & TOPO_DISCOVER_IO) != 0;
    info->npackages = count_type(node->topo, HWLOC_OBJ_PACKAGE);
    info->nnuma = count_type(node->topo, HWLOC_OBJ_NUMANODE);
    info->ncores = count_type(node->topo, HWLOC_OBJ_CORE);
    info->npus = count_type(node->topo, HWLOC_OBJ_PU);
    hwloc_obj_t pkg = hwloc_get_obj_by_type(node->topo, HWLOC_OBJ_PACKAGE, 0);
    hwloc_obj_t root = hwloc_get_root_obj(node->topo);
    const char *vendor = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUVendor") : NULL;
    const char *model = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : NULL;
    if (!vendor)
        vendor = hwloc_obj_get_info_by_name(root, "CPUVendor");
    if (!model)
        model = hwloc_obj_get_info_by_name(root, "CPUModel");
    copy_str(info->cpu_vendor, sizeof info->cpu_vendor, vendor);
    copy_str(info->cpu_model, sizeof info->cpu_model, model);
    const char *fam = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUFamilyNumber") : NULL;
    const char *mod = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModelNumber") : NULL;
    const char *step = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUStepping") : NULL;
    snprintf(node->cpu_ident, sizeof node->cpu_ident, "%s|%s|%s|%s|%s", info->cpu_vendor, info->cpu_model,
             fam ? fam : "", mod ? mod : "", step ? step : "");
    add_caches(node);

    /* The restricted topology's cpuset is the binding; ask the OS too, for
     * a process whose threads were bound differently since. */
    rc = TOPO_ENOMEM;
    node->cpuset = hwloc_bitmap_dup(hwloc_topology_get_topology_cpuset(node->topo));
    cur = hwloc_bitmap_alloc();
    if (!node->cpuset || !cur)
        goto error;
    if (hwloc_get_cpubind(node->topo, cur, HWLOC_CPUBIND_PROCESS) == 0 && !hwloc_bitmap_iszero(cur))
        hwloc_bitmap_and(cur, cur, node->cpuset);
    if (hwloc_bitmap_iszero(cur))
        hwloc_bitmap_copy(cur, node->cpuset);
    info->current_cpus = topo_set_list(cur);
    info->allowed_cpus = cgroup_cpus();
    if (!info->allowed_cpus)
        info->allowed_cpus = topo_set_list(hwloc_topology_get_allowed_cpuset(node->topo));
    if (!info->current_cpus || !info->allowed_cpus)
        goto error;
    hwloc_bitmap_free(cur);
    cur = NULL;
    if (info->io_discovered && (rc = add_devices(node)) != TOPO_OK)
        goto error;
    *out = node;
    return TOPO_OK;

error:
    hwloc_bitmap_free(cur);
    topo_free(node);
    return rc;
}

void topo_free(TopoNode *node)
{
    if (!node)
        return;
    free(node->info.allowed_cpus);
    free(node->info.current_cpus);
    free(node->info.devices);
    hwloc_bitmap_free(node->cpuset);
    if (node->have_topo)
        hwloc_topology_destroy(node->topo);
    free(node);
}

const TopoInfo *topo_info(const TopoNode *node) { return node ? &node->info : NULL; }

char *topo_thread_cpus(const TopoNode *node)
{
    char *s = NULL;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (set && node && hwloc_get_cpubind(node->topo, set, HWLOC_CPUBIND_THREAD) == 0)
        s = topo_set_list(set);
    hwloc_bitmap_free(set);
    return s;
}

/* ---- architecture key ---------------------------------------------------- */
static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Lower-case alphanumerics and single dashes, at most `max` characters. */
static size_t slug(char *dst, size_t cap, const char *src, size_t max)
{
    size_t n = 0;
    int dash = 0;
    for (const char *p = src; *p && n + 1 < cap && n < max; p++) {
        if (isalnum((unsigned char)*p)) {
            if (dash && n > 0)
                dst[n++] = '-';
            dash = 0;
            if (n + 1 < cap && n < max)
                dst[n++] = (char)tolower((unsigned char)*p);
        } else {
            dash = 1;
        }
    }
    while (n > 0 && dst[n - 1] == '-')
        n--;
    dst[n] = '\0';
    return n;
}

char *topo_arch_key(const TopoNode *node, const char *cpu_name, const char *cpu_features)
{
    char *feat = NULL, **toks = NULL, *key = NULL;
    size_t ntok = 0;
    uint64_t h = 0xcbf29ce484222325ULL;
    if (!cpu_name)
        cpu_name = "";
    if (!cpu_features)
        cpu_features = "";
    h = fnv1a(h, cpu_name, strlen(cpu_name) + 1);

    /* The feature string's order is LLVM's business: hash it sorted. */
    feat = strdup(cpu_features);
    toks = calloc(strlen(cpu_features) / 2 + 2, sizeof *toks);
    if (!feat || !toks)
        goto done;
    char *save = NULL;
    for (char *t = strtok_r(feat, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (*t)
            toks[ntok++] = t;
    qsort(toks, ntok, sizeof *toks, cmp_str);
    for (size_t i = 0; i < ntok; i++)
        h = fnv1a(h, toks[i], strlen(toks[i]) + 1);
    const char *ident = node ? node->cpu_ident : "";
    h = fnv1a(h, ident, strlen(ident) + 1);

    char cpu[40], model[40];
    slug(cpu, sizeof cpu, cpu_name[0] ? cpu_name : "generic", 32);
    slug(model, sizeof model, node && node->info.cpu_model[0] ? node->info.cpu_model : "unknown-model", 32);
    size_t cap = strlen(cpu) + strlen(model) + 24;
    key = malloc(cap);
    if (key)
        snprintf(key, cap, "%s-%s-%016llx", cpu, model, (unsigned long long)h);
done:
    free(toks);
    free(feat);
    return key;
}
