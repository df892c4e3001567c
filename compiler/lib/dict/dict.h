/* dict.h - the dict feature (Python dicts and sets in compiled code;
 * registered as lib_dict_ops at the end of infer_dict.c): what its files
 * share. */
#ifndef HPCJIT_LIB_DICT_H
#define HPCJIT_LIB_DICT_H

#include "lower.h"

/* A key or set item hpcjit can hash: numbers other than complex, tuples
 * of them. */
bool dict_hashable(const Type *t);

/* lower_dict.c: the hooks of lib_dict_ops (lib/registry.h) */
LLVMValueRef lower_dict_call(Lower *L, Node *n, bool *owned);
LLVMValueRef lower_dict_len(Lower *L, const Node *at, LLVMValueRef v, Type *t);
LLVMValueRef lower_dict_iter_begin(Lower *L, const Node *at, LLVMValueRef v, Type *t, LLVMValueRef len);
LLVMValueRef lower_dict_iter_next(Lower *L, const Node *at, LLVMValueRef v, Type *t, LLVMValueRef cursor,
                                  bool *owned);
LLVMValueRef lower_dict_compare(Lower *L, const Node *at, OpKind op, Type *op_ty, LLVMValueRef a, Type *at_ty,
                                LLVMValueRef b, Type *bt_ty);
bool lower_dict_store(Lower *L, Node *target, LLVMValueRef v, Type *vt);

#endif
