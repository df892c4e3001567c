/* lower_cmath.h - complex elementary functions in compiled code, shared by
 * np.* ufuncs on complex scalars and arrays (lower_arrayexpr.c) and the
 * cmath module (lower_builtin.c); the work is done by the runtime's
 * rt_cmath_v / rt_cmathf_v (runtime/complexmath.c). */
#ifndef HPCJIT_LOWER_CMATH_H
#define HPCJIT_LOWER_CMATH_H

#include "hpcjit/complexmath.h"
#include "lower.h"

/* The RT_CM_* code computing builtin `id` on a complex number, -1 if none. */
int lower_cmath_code(BuiltinId id);
/* fn(z) for z of complex type ct; same type back. */
LLVMValueRef lower_cmath(Lower *L, int fn, Type *ct, LLVMValueRef z);
/* Real and imaginary parts of a complex value, and back. */
LLVMValueRef lower_cmath_part(Lower *L, LLVMValueRef z, unsigned i);
LLVMValueRef lower_cmath_make(Lower *L, Type *ct, LLVMValueRef re, LLVMValueRef im);

#endif
