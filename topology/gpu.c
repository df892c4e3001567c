/* gpu.c - the node's GPUs with their NUMA nodes (hwloc), and the choice of
 * a rank's GPUs by node-local rank.
 *
 * Unlike topo_discover(), topo_gpus() loads the whole node, not only what
 * the process's binding shows: a rank bound to one socket must still learn
 * that the GPU it was given hangs off the other one. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "topo_internal.h"

/* A compute GPU: NVIDIA's display controllers (VGA 0x0300 or 3D 0x0302),
 * any vendor's 3D (0x0302) or other display controller (0x0380: AMD
 * Instinct, Intel data-centre GPUs), processing accelerators (0x12xx), and
 * any device for which hwloc made a CUDA/OpenCL/NVML/RSMI OS device.  Not a
 * server's BMC VGA (ASPEED, Matrox: 0x0300 of another vendor), which only
 * has a DRM "card" OS device. */
int topo_pci_is_gpu(hwloc_obj_t pci)
{
    const struct hwloc_pcidev_attr_s *p = &pci->attr->pcidev;
    if ((p->class_id == 0x0300 && p->vendor_id == 0x10de) || p->class_id == 0x0302 || p->class_id == 0x0380 ||
        (p->class_id >> 8) == 0x12)
        return 1;
    for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling) {
        if (c->type != HWLOC_OBJ_OS_DEVICE || !c->attr)
            continue;
        if (c->attr->osdev.type == HWLOC_OBJ_OSDEV_COPROC)
            return 1;
        if (c->attr->osdev.type == HWLOC_OBJ_OSDEV_GPU && c->name &&
            (strncmp(c->name, "nvml", 4) == 0 || strncmp(c->name, "rsmi", 4) == 0))
            return 1;
    }
    return 0;
}

static void set_str(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src ? src : "");
}

static int cmp_busid(const void *a, const void *b)
{
    return strcmp(((const TopoGpu *)a)->busid, ((const TopoGpu *)b)->busid);
}

static void fill_gpu(hwloc_topology_t t, hwloc_obj_t o, TopoGpu *g)
{
    const struct hwloc_pcidev_attr_s *p = &o->attr->pcidev;
    snprintf(g->busid, sizeof g->busid, "%04x:%02x:%02x.%01x", p->domain, p->bus, p->dev, p->func);
    g->class_id = p->class_id;
    g->vendor_id = p->vendor_id;
    g->device_id = p->device_id;
    const char *vendor = hwloc_obj_get_info_by_name(o, "PCIVendor");
    const char *device = hwloc_obj_get_info_by_name(o, "PCIDevice");
    if (vendor || device)
        snprintf(g->name, sizeof g->name, "%s%s%s", vendor ? vendor : "", vendor && device ? " " : "",
                 device ? device : "");
    size_t len = 0;
    for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling) {
        if (c->type != HWLOC_OBJ_OS_DEVICE || !c->name)
            continue;
        int n = snprintf(g->osdevs + len, sizeof g->osdevs - len, "%s%s", len ? "," : "", c->name);
        if (n < 0 || (size_t)n >= sizeof g->osdevs - len)
            break;
        len += (size_t)n;
    }
    /* the closest non-I/O object: its NUMA nodes and CPUs (NUMA nodes are
     * memory children in hwloc 2, so its nodeset says which) */
    hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(t, o);
    char *s = NULL;
    if (anc && anc->nodeset && !hwloc_bitmap_iszero(anc->nodeset) &&
        !hwloc_bitmap_isequal(anc->nodeset, hwloc_topology_get_topology_nodeset(t)) &&
        hwloc_bitmap_list_asprintf(&s, anc->nodeset) >= 0)
        set_str(g->numa, sizeof g->numa, s);
    else if (anc && anc->nodeset && hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE) == 1 &&
             hwloc_bitmap_list_asprintf(&s, anc->nodeset) >= 0)
        set_str(g->numa, sizeof g->numa, s); /* one NUMA node: that one */
    free(s);
    s = NULL;
    if (g->numa[0] && anc->cpuset && hwloc_bitmap_list_asprintf(&s, anc->cpuset) >= 0)
        set_str(g->cpus, sizeof g->cpus, s);
    free(s);
}

int topo_gpus(TopoGpu **out, int *count)
{
    hwloc_topology_t t;
    TopoGpu *gpus = NULL;
    int n = 0, rc = TOPO_EHWLOC;
    if (!out || !count)
        return TOPO_EINVAL;
    *out = NULL;
    *count = 0;
    if (hwloc_topology_init(&t) < 0)
        return TOPO_EHWLOC;
    if (hwloc_topology_set_flags(t, HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM) < 0 ||
        hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT) < 0 ||
        hwloc_topology_load(t) < 0)
        goto done;
    for (hwloc_obj_t o = hwloc_get_next_pcidev(t, NULL); o; o = hwloc_get_next_pcidev(t, o))
        n += topo_pci_is_gpu(o);
    rc = TOPO_OK;
    if (n == 0)
        goto done;
    rc = TOPO_ENOMEM;
    if (!(gpus = calloc((size_t)n, sizeof *gpus)))
        goto done;
    int k = 0;
    for (hwloc_obj_t o = hwloc_get_next_pcidev(t, NULL); o && k < n; o = hwloc_get_next_pcidev(t, o))
        if (topo_pci_is_gpu(o))
            fill_gpu(t, o, &gpus[k++]);
    /* PCI bus order: what nvidia-smi and CUDA_DEVICE_ORDER=PCI_BUS_ID number */
    qsort(gpus, (size_t)n, sizeof *gpus, cmp_busid);
    int per_vendor[8][2] = {{0}}; /* (vendor, next index) for the first vendors seen */
    for (int i = 0; i < n; i++) {
        gpus[i].index = i;
        gpus[i].vendor_index = -1;
        for (int v = 0; v < 8; v++) {
            if (per_vendor[v][0] == 0)
                per_vendor[v][0] = (int)gpus[i].vendor_id;
            if (per_vendor[v][0] == (int)gpus[i].vendor_id) {
                gpus[i].vendor_index = per_vendor[v][1]++;
                break;
            }
        }
    }
    *out = gpus;
    *count = n;
    gpus = NULL;
    rc = TOPO_OK;
done:
    free(gpus);
    hwloc_topology_destroy(t);
    return rc;
}

int topo_gpu_select(long local_rank, int gpus_per_rank, int nvisible, int per_task, int *out)
{
    if (local_rank < 0 || gpus_per_rank < 0 || nvisible < 0 || (gpus_per_rank > 0 && !out))
        return -1;
    if (nvisible == 0 || gpus_per_rank == 0)
        return 0;
    int n = gpus_per_rank < nvisible ? gpus_per_rank : nvisible;
    /* (r * G + i) mod n, in 64 bits: no overflow for any int G and long r;
     * all of them, in order, when G >= n */
    unsigned long long first =
        per_task || gpus_per_rank >= nvisible ? 0 : (unsigned long long)local_rank * (unsigned)gpus_per_rank;
    for (int i = 0; i < n; i++)
        out[i] = (int)((first + (unsigned)i) % (unsigned)nvisible);
    return n;
}
