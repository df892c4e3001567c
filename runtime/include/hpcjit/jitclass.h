/* hpcjit/jitclass.h - instances of hpcjit.experimental.jitclass classes
 * (runtime/jitclass.c).
 *
 * An instance is an `HjMemInfo *` whose data holds its fields as a C struct
 * laid out as the unboxed tuple of the field types (abi.h), zeroed at
 * creation.  Compiled code describes the class with an RtJcInfo (a constant
 * of the compiled module, which outlives its instances as RtItemOps do):
 * the offsets of the fields that hold a reference (arrays: their MemInfo is
 * the HjArray's first field; containers and other instances: the pointer
 * itself), released when the instance dies, and the typecode of the field
 * tuple, which the dispatcher walks to keep argument arrays stored into an
 * instance alive.  Any thread, no GIL. */
#ifndef HPCJIT_JITCLASS_H
#define HPCJIT_JITCLASS_H

#include <stdint.h>

#include "hpcjit/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct RtJcInfo {
    const char *fields_typecode; /* "(ld[ad1C)": the field tuple's typecode */
    int64_t nrefs;               /* entries of ref_offsets                  */
    const int64_t *ref_offsets;  /* byte offsets of HjMemInfo * to release  */
} RtJcInfo;

/* A new zeroed instance of `size` bytes; NULL with MemoryError. */
HjMemInfo *rt_jc_new(int64_t size, const RtJcInfo *info);
/* The class description of an instance made by rt_jc_new. */
const RtJcInfo *rt_jc_info(HjMemInfo *obj);

#ifdef __cplusplus
}
#endif
#endif
