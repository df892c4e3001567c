/* jitclass.c - instances of jitclass classes (hpcjit/jitclass.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hpcjit/jitclass.h"

/* Instances freed while another is being freed on this thread (a linked
 * list's next node) wait here instead of recursing, so a chain of any
 * length is freed in constant stack.  A dead instance's `size` links the
 * list (nothing reads it once the count reached zero). */
static _Thread_local HjMemInfo *pending;
static _Thread_local int draining;

static void jc_dtor(HjMemInfo *mi)
{
    if (draining) {
        mi->size = (int64_t)(intptr_t)pending;
        pending = mi;
        return;
    }
    draining = 1;
    while (mi) {
        const RtJcInfo *info = mi->dtor_info;
        for (int64_t i = 0; i < info->nrefs; i++) {
            HjMemInfo *f;
            memcpy(&f, (char *)mi->data + info->ref_offsets[i], sizeof f);
            rt_decref(f);
        }
        free(mi); /* a small rt_alloc block: the header and the fields */
        mi = pending;
        if (mi)
            pending = (HjMemInfo *)(intptr_t)mi->size;
    }
    draining = 0;
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
