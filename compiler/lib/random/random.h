/* random.h - the random feature (np.random; registered as lib_random_ops
 * at the end of infer_random.c): what its files share. */
#ifndef HPCJIT_LIB_RANDOM_H
#define HPCJIT_LIB_RANDOM_H

#include "lower.h"

LLVMValueRef lower_random_call(Lower *L, Node *n, bool *owned);

#endif
