/* cuda.h - private to lib/cuda: what infer_cuda.c and lower_cuda.c share. */
#ifndef HPCJIT_LIB_CUDA_H
#define HPCJIT_LIB_CUDA_H

#include "lower.h"

/* A compile-time integer (infer_cuda.c): a literal, a global constant, or
 * + - * // % of them; false otherwise. */
bool cuda_const_int(const Node *n, int64_t *v);

/* Lower a call (or ATTR_LIB_VALUE attribute) typed by infer_cuda.c. */
LLVMValueRef lower_cuda_call(Lower *L, Node *n, bool *owned);

#endif
