/* np.h - the np feature (NumPy reductions, statistics, shape and creation
 * functions; registered as lib_np_ops at the end of infer_np.c): what its
 * files share. */
#ifndef HPCJIT_LIB_NP_H
#define HPCJIT_LIB_NP_H

#include "lower.h"

/* lower_np.c: every call of the feature, reductions there, the shape and
 * creation functions in lower_shape.c. */
LLVMValueRef lower_np_call(Lower *L, Node *n, bool *owned);
LLVMValueRef lower_np_reduce(Lower *L, Node *n, bool *owned);
LLVMValueRef lower_np_shape(Lower *L, Node *n, bool *owned);
/* lower_stats.c: np.cov, np.corrcoef. */
LLVMValueRef lower_np_cov(Lower *L, Node *n, bool *owned);

#endif
