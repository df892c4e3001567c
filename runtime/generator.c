/* generator.c - generator objects (hpcjit/generator.h). */
#include <stdlib.h>
#include <string.h>

#include "hpcjit/generator.h"

/* small blocks only: rt_alloc's large (mmap) blocks have a destructor of
 * their own */
#define GEN_MAX_BYTES (1 << 20)

static void gen_dtor(HjMemInfo *mi)
{
    HjGenerator *g = mi->data;
    if (g->destroy && g->frame)
        g->destroy(g->frame); /* the body's variables and temporaries */
    free(mi);                 /* one rt_alloc block: header and data */
}

HjMemInfo *rt_gen_new(int64_t nbytes)
{
    if (nbytes < (int64_t)sizeof(HjGenerator) || nbytes > GEN_MAX_BYTES) {
        rt_raise("MemoryError", "generator state too large");
        return NULL;
    }
    HjMemInfo *mi = rt_alloc_zeroed(nbytes);
    if (!mi)
        return NULL;
    mi->dtor = gen_dtor;
    return mi;
}

HjGenerator *rt_gen_header(HjMemInfo *obj) { return obj && obj->dtor == gen_dtor ? obj->data : NULL; }

int32_t rt_gen_next(HjMemInfo *gen)
{
    HjGenerator *g = gen->data;
    if (g->status == RT_GEN_RUNNING) {
        rt_raise("ValueError", "generator already executing");
        return RT_GEN_ERROR;
    }
    if (g->status != RT_GEN_READY)
        return RT_GEN_DONE;
    g->status = RT_GEN_RUNNING;
    g->resume(g->frame); /* sets the status: a yield READY, the end DONE or ERROR */
    int32_t s = g->status;
    if (s == RT_GEN_ERROR)
        g->status = RT_GEN_DONE;
    return s;
}
