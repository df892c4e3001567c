/* hpcjit/generator.h - generator objects (runtime/generator.c).
 *
 * Calling an @njit generator function anywhere but as the iterable of a
 * for loop in compiled code makes a generator object: an `HjMemInfo *`
 * whose data starts with an HjGenerator, followed by the yielded value's
 * slot and, at `frame`, the suspended body (an LLVM switch-resumed
 * coroutine frame, allocated by the compiled code inside the same block).
 * The compiled code fills the header when it creates the object; the
 * function pointers are C-convention trampolines of the compiled module
 * (they call llvm.coro.resume / llvm.coro.destroy on the frame).
 *
 * Protocol: `status` is RT_GEN_READY until the body ends.  rt_gen_next
 * resumes the body, which either stores the next value at `value` (an
 * owned reference for the consumer, in the unboxed layout of abi.h) and
 * leaves `status` READY, or runs to its end (DONE) or raises (ERROR, the
 * exception pending; the status then reads DONE).  When the last
 * reference goes, `destroy` releases what the suspended body holds (its
 * variables and temporaries) and the block is freed.  Not thread-safe: a
 * generator object is used by one thread at a time. */
#ifndef HPCJIT_GENERATOR_H
#define HPCJIT_GENERATOR_H

#include <stdint.h>

#include "hpcjit/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { RT_GEN_ERROR = -1, RT_GEN_READY = 0, RT_GEN_DONE = 1, RT_GEN_RUNNING = 2 };

/* ORDER: lower_gen_header_type (compiler/lower/lower_gen.c) builds the
 * same struct, followed by the value slot. */
typedef struct HjGenerator {
    void (*resume)(void *frame);  /* runs the body to its next yield or its end */
    void (*destroy)(void *frame); /* releases what the suspended body holds     */
    void *frame;                  /* the coroutine frame (in this block), or NULL */
    void *value;                  /* the slot a yield stores its value into    */
    int32_t status;               /* RT_GEN_*                                   */
} HjGenerator;

/* A new zeroed generator block of nbytes (header, value slot and frame);
 * NULL with MemoryError. */
HjMemInfo *rt_gen_new(int64_t nbytes);
/* Resume generator `gen`: RT_GEN_READY with the next value at
 * header->value, RT_GEN_DONE when it is exhausted (also on every later
 * call), RT_GEN_ERROR with the exception pending (the body raised, or
 * ValueError "generator already executing" when it resumes itself). */
int32_t rt_gen_next(HjMemInfo *gen);
/* The header of a generator object made by rt_gen_new, or NULL. */
HjGenerator *rt_gen_header(HjMemInfo *obj);

#ifdef __cplusplus
}
#endif
#endif
