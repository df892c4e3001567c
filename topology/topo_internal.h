/* topo_internal.h - what discover.c and plan.c share; not installed. */
#ifndef HPCJIT_TOPO_INTERNAL_H
#define HPCJIT_TOPO_INTERNAL_H

#include <hwloc.h>

#include "hpcjit/topo.h"

struct TopoNode {
    hwloc_topology_t topo;
    int have_topo;
    hwloc_bitmap_t cpuset; /* the binding the topology was restricted to */
    char cpu_ident[256];   /* vendor|model|family|model number|stepping   */
    TopoInfo info;
};

/* A PCI device is a compute GPU (gpu.c: the rule of TopoGpu) */
int topo_pci_is_gpu(hwloc_obj_t pci);

/* A malloc'ed cpuset list ("0-3,8"), NULL when out of memory. */
char *topo_set_list(hwloc_const_bitmap_t set);

#endif
