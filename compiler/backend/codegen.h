/* codegen.h - LLVM module -> optimised object bytes for a target (private
 * to the compiler library).  Also the one-time LLVM target initialisation
 * shared with the JIT and the helper that turns LLVMErrorRef into a
 * diagnostic.
 *
 * Thread-safety: every function may be called concurrently from several
 * threads as long as each works on its own LLVM context/module. */
#ifndef HPCJIT_CODEGEN_H
#define HPCJIT_CODEGEN_H

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/TargetMachine.h>

#include "diag.h"

/* Initialise the native target, asm printer and asm parser once. */
void codegen_init_llvm(void);

/* A TargetMachine for `t` (PIC, small code model, t->opt_level).
 * NULL with a diagnostic on failure. */
LLVMTargetMachineRef codegen_target_machine(const HjTarget *t, Diag *d);

/* Verify `m`, set its triple and data layout, optimise at t->opt_level and
 * emit a relocatable object file.  *obj is malloc'ed.  Returns 0, or -1
 * with a diagnostic (HJ_DIAG_LOWERING for a module that fails to verify,
 * HJ_DIAG_LLVM when LLVM refuses). */
int codegen_emit_object(LLVMModuleRef m, const HjTarget *t, char **obj, size_t *size, Diag *d);
/* Seconds spent in codegen_compile's phases (HPCJIT_DEBUG_COMPILE). */
typedef struct CodegenTimes {
    double opt;  /* the pass pipeline                                  */
    double emit; /* instruction selection, machine passes, object file */
} CodegenTimes;

/* The same, and when ir_text is not NULL the optimised IR (malloc'ed);
 * when times is not NULL the phases' times. */
int codegen_compile(LLVMModuleRef m, const HjTarget *t, char **obj, size_t *size,
                    char **ir_text, CodegenTimes *times, Diag *d);

/* Verify m; -1 with a diagnostic (the first broken function's IR) if invalid. */
int codegen_verify(LLVMModuleRef m, Diag *d);

/* ptx.c: the NVPTX target of hpcjit.cuda.  Verify m (lowered in device
 * mode), link libdevice when it calls __nv_* functions, keep only `keep`
 * (the kernel or device function) and __hpcjit_error visible, optimise at
 * opt_level for sm_<cc> and emit PTX text (*ptx malloc'ed, NUL-terminated).
 * When ir_text is not NULL, the optimised IR too. */
int codegen_compile_ptx(LLVMModuleRef m, const HjCudaOptions *o, int opt_level, const char *keep, char **ptx,
                        size_t *size, char **ir_text, Diag *d);

/* Assembly text (malloc'ed) for LLVM IR text, optimised as for an object.
 * NULL with a diagnostic on failure. */
char *codegen_emit_asm(const char *ir, const HjTarget *t, Diag *d);

/* vecmath.c: glibc's libmvec variants of libm calls for the loop
 * vectorizer.  vecmath_enabled: on x86_64 Linux with libmvec, unless
 * HPCJIT_DISABLE_VECTOR_MATH / NUMBA_DISABLE_INTEL_SVML.  vecmath_attach
 * marks `m`'s libm calls with their variants for t's ISA (before the pass
 * pipeline; returns how many variants it declared); vecmath_cleanup
 * removes what it added and nothing calls (after it). */
bool vecmath_enabled(const HjTarget *t);
/* Open libmvec (RTLD_GLOBAL) once, if it is there: the JIT's process
 * symbol search then finds the variants an object calls. */
void vecmath_load_library(void);
int vecmath_attach(LLVMModuleRef m, const HjTarget *t);
void vecmath_cleanup(LLVMModuleRef m);

/* Consume `err` into a diagnostic of kind HJ_DIAG_LLVM: "<what>: <message>".
 * Returns -1. */
int codegen_llvm_error(Diag *d, LLVMErrorRef err, const char *what);
/* Consume `err` into a malloc'ed string "<what>: <message>". */
char *codegen_llvm_error_string(LLVMErrorRef err, const char *what);

#endif
