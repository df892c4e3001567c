/* jitclass.c - instances of jitclass classes (hpcjit/jitclass.h). */
#include <stdlib.h>
#include <string.h>

#include "hpcjit/jitclass.h"

static void jc_dtor(HjMemInfo *mi)
{
    const RtJcInfo *info = mi->dtor_info;
    for (int64_t i = 0; i < info->nrefs; i++) {
        HjMemInfo *f;
        memcpy(&f, (char *)mi->data + info->ref_offsets[i], sizeof f);
        rt_decref(f);
    }
    free(mi); /* a small rt_alloc block: the header and the fields */
}

HjMemInfo *rt_jc_new(int64_t size, const RtJcInfo *info)
{
    if (size > 65536) { /* far below rt_alloc's large (mmap) blocks, whose destructor is taken */
        rt_raise("MemoryError", "jitclass instance too large");
        return NULL;
    }
    HjMemInfo *mi = rt_alloc_zeroed(size);
    if (!mi)
        return NULL;
    mi->dtor = jc_dtor;
    mi->dtor_info = (void *)info;
    return mi;
}

const RtJcInfo *rt_jc_info(HjMemInfo *obj) { return obj && obj->dtor == jc_dtor ? obj->dtor_info : NULL; }
