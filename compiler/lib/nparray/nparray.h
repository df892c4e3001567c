/* nparray.h - the nparray feature (more of NumPy's array functions;
 * registered as lib_nparray_ops at the end of infer_nparray.c): what its
 * files share. */
#ifndef HPCJIT_LIB_NPARRAY_H
#define HPCJIT_LIB_NPARRAY_H

#include "lower.h"

/* lower_nparray.c: every call of the feature. */
LLVMValueRef lower_nparray_call(Lower *L, Node *n, bool *owned);

#endif
