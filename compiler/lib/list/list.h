/* list.h - the list feature (Python lists in compiled code; registered as
 * lib_list_ops at the end of infer_list.c): what its files share. */
#ifndef HPCJIT_LIB_LIST_H
#define HPCJIT_LIB_LIST_H

#include "lower.h"

/* lower_list.c: the hooks of lib_list_ops (lib/registry.h) */
LLVMValueRef lower_list_call(Lower *L, Node *n, bool *owned);
LLVMValueRef lower_list_len(Lower *L, const Node *at, LLVMValueRef v, Type *t);
LLVMValueRef lower_list_item(Lower *L, const Node *at, LLVMValueRef v, Type *t, LLVMValueRef i, bool *owned);
LLVMValueRef lower_list_compare(Lower *L, const Node *at, OpKind op, Type *op_ty, LLVMValueRef a, Type *at_ty,
                                LLVMValueRef b, Type *bt_ty);
bool lower_list_store(Lower *L, Node *target, LLVMValueRef v, Type *vt);

/* For other features building lists (lib/nparray's np.split): a new
 * empty list of type lt for cap items, held as a temporary (NULL after a
 * diagnostic), and appending v (borrowed, of lt's item type; the list
 * takes its own reference). */
LLVMValueRef lower_list_new(Lower *L, const Node *at, Type *lt, LLVMValueRef cap);
void lower_list_append(Lower *L, LLVMValueRef list, Type *lt, LLVMValueRef v);

/* The RtItemOps (hpcjit/containers.h) of items of type `item`: the
 * runtime's for numbers, else an internal constant of the module. */
LLVMValueRef lower_list_ops(Lower *L, Type *item);

#endif
