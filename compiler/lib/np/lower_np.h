/* lower_np.h - private interface of the lowering of NumPy reductions
 * (lower_np.c), shape and creation functions (lower_shape.c): loops over
 * strided N-d arrays, allocation, views, axes. */
#ifndef HPCJIT_LOWER_NP_H
#define HPCJIT_LOWER_NP_H

#include <stdio.h>

#include "lower.h"

#define NP_MAX_OPS 3

typedef struct NpLoop {
    LLVMBasicBlockRef pre, head, body, end;
    LLVMValueRef i;
} NpLoop;

/* Called for each element of a nest with one pointer per operand. */
typedef void (*NpElemFn)(Lower *L, void *ctx, LLVMValueRef *ptrs);

Node *np_arg(Node *n, int i);
Type *np_i64(Lower *L);
const Node *np_at(Lower *L);
void np_loop_begin(Lower *L, NpLoop *lp, LLVMValueRef n);
/* Close the loop; returns its back edge (for loop hints). */
LLVMValueRef np_loop_end(Lower *L, NpLoop *lp);
LLVMValueRef np_load(Lower *L, LLVMValueRef p, Type *dt);
void np_store(Lower *L, LLVMValueRef p, LLVMValueRef v, Type *dt);
LLVMValueRef np_offset(Lower *L, LLVMValueRef p, LLVMValueRef bytes);
LLVMValueRef np_mul(Lower *L, LLVMValueRef a, LLVMValueRef b);
LLVMValueRef np_sel(Lower *L, LLVMValueRef c, LLVMValueRef a, LLVMValueRef b);
LLVMValueRef np_ieq(Lower *L, LLVMValueRef a, LLVMValueRef b);
void np_dims(Lower *L, LLVMValueRef arr, int nd, LLVMValueRef *shape, LLVMValueRef *strides);
LLVMValueRef np_alloc(Lower *L, Type *aty, LLVMValueRef *dims, bool zeroed);
LLVMValueRef np_make(Lower *L, Type *aty, LLVMValueRef mi, LLVMValueRef parent, LLVMValueRef data,
                     LLVMValueRef *shape, LLVMValueRef *strides);
LLVMValueRef np_view(Lower *L, LLVMValueRef src, Type *rty, LLVMValueRef data, LLVMValueRef *shape,
                     LLVMValueRef *strides);
LLVMValueRef np_axis(Lower *L, LLVMValueRef axis, int nd);
LLVMValueRef np_pick(Lower *L, LLVMValueRef *v, int n, LLVMValueRef j);
void np_drop(Lower *L, LLVMValueRef *v, int n, LLVMValueRef axis, LLVMValueRef *out);
void np_nest(Lower *L, int nd, LLVMValueRef *dims, int nops, LLVMValueRef *base,
             LLVMValueRef (*strides)[HJ_MAX_NDIM_LOWER + 2], NpElemFn fn, void *ctx);
void np_copy_nd(Lower *L, int nd, LLVMValueRef *dims, LLVMValueRef src, LLVMValueRef *sstr, Type *sdt,
                LLVMValueRef dst, LLVMValueRef *dstr, Type *ddt);
LLVMValueRef np_copy_c(Lower *L, LLVMValueRef src, Type *sty, Type *rty);
LLVMValueRef np_arith(Lower *L, char op, Type *t, LLVMValueRef a, LLVMValueRef b);
/* The runtime's element-type code RT_DT(kind, size) (hpcjit/search.h). */
int32_t np_dt_code(Type *dt);
/* A new result is first a temporary (error paths free it): np_own;
 * np_give adds the reference the caller owns once nothing can fail. */
LLVMValueRef np_own(Lower *L, LLVMValueRef v, Type *t);
LLVMValueRef np_give(Lower *L, LLVMValueRef v, Type *t, bool *owned);
LLVMValueRef np_one(Lower *L, Type *t);

#endif
