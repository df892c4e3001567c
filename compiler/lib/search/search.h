/* search.h - the search feature (sorting, searching, counting, median/percentile (lower_search.c);
 * registered as lib_search_ops at the end of infer_search.c): what its files share. */
#ifndef HPCJIT_LIB_SEARCH_H
#define HPCJIT_LIB_SEARCH_H

#include "lower.h"

LLVMValueRef lower_search_call(Lower *L, Node *n, bool *owned);

#endif
