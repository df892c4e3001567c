/* nparray.h - the nparray feature (more of NumPy's array functions;
 * registered as lib_nparray_ops at the end of infer_nparray.c): what its
 * files share. */
#ifndef HPCJIT_LIB_NPARRAY_H
#define HPCJIT_LIB_NPARRAY_H

#include "lower.h"

/* lower_nparray.c: every call of the feature; comparisons, elementwise
 * functions and views there, the building and selecting functions in
 * lower_nparray_make.c. */
LLVMValueRef lower_nparray_call(Lower *L, Node *n, bool *owned);
LLVMValueRef lower_nparray_make(Lower *L, Node *n, bool *owned);
/* lower_nparray_set.c: isin, intersect1d, union1d, setdiff1d, setxor1d. */
LLVMValueRef lower_nparray_set(Lower *L, Node *n, bool *owned);
/* lower_nparray_num.c: windows, logspace, geomspace, trapezoid, cross,
 * convolve, correlate, unwrap, modf, frexp. */
LLVMValueRef lower_nparray_num(Lower *L, Node *n, bool *owned);

#define NPA_MAXD (HJ_MAX_NDIM_LOWER + 2)
#define NPA_MAX_OPNDS 8 /* operands of npa_bcast */

/* An operand: an array of any layout, or a number spilled to a slot
 * (nd 0), read through data and the byte strides st. */
typedef struct NpaOpnd {
    Type *dt;
    int nd;
    LLVMValueRef v, data, sh[NPA_MAXD], st[NPA_MAXD];
} NpaOpnd;

bool npa_opnd(Lower *L, Node *e, NpaOpnd *o);
/* The broadcast shape (rnd dims) of k operands and each one's strides
 * over it (0 along broadcast axes); raises exc ("ValueError") when they
 * do not fit. */
void npa_bcast(Lower *L, NpaOpnd *o, int k, int rnd, LLVMValueRef *rdims, LLVMValueRef (*str)[NPA_MAXD],
               const char *exc);

#endif
