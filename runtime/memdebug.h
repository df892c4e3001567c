/* memdebug.h - private hooks of the allocation-owner debug mode
 * (memdebug.c) for memory.c.  Each is called only when rt_memdebug_on(). */
#ifndef HPCJIT_MEMDEBUG_H
#define HPCJIT_MEMDEBUG_H

#include "hpcjit/runtime.h"

/* Record a new MemInfo of `size` bytes asked for by code at `owner`. */
void md_alloc(HjMemInfo *mi, int64_t size, void *owner);
/* 1 if a count update (`op`: "incref", "decref") on mi may go ahead; 0
 * (reported) if mi was freed. */
int md_check(HjMemInfo *mi, const char *op, void *caller);
/* mi's count reached zero: returns 1 when the debug mode keeps the block
 * (quarantine) and the caller must not free it. */
int md_free(HjMemInfo *mi);

#endif
