/* linalg.h - the linalg feature (np.dot/matmul/@, products, np.linalg through BLAS/LAPACK;
 * `a @ b` reaches it through the alias "operator.matmul" in linalg.def; registered as lib_linalg_ops at the end of
 * infer_linalg.c): what its files share. */
#ifndef HPCJIT_LIB_LINALG_H
#define HPCJIT_LIB_LINALG_H

#include "lower.h"

LLVMValueRef lower_linalg_call(Lower *L, Node *n, bool *owned);

#endif
