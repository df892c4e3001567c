/* str.h - the str feature (Python str values in compiled code; registered
 * as lib_str_ops at the end of infer_str.c): what its files share. */
#ifndef HPCJIT_LIB_STR_H
#define HPCJIT_LIB_STR_H

#include "lower.h"

/* lower_str.c: the hooks of lib_str_ops (lib/registry.h) */
LLVMValueRef lower_str_call(Lower *L, Node *n, bool *owned);
LLVMValueRef lower_str_len(Lower *L, const Node *at, LLVMValueRef v, Type *t);
LLVMValueRef lower_str_item(Lower *L, const Node *at, LLVMValueRef v, Type *t, LLVMValueRef i, bool *owned);
LLVMValueRef lower_str_compare(Lower *L, const Node *at, OpKind op, Type *op_ty, LLVMValueRef a, Type *at_ty,
                               LLVMValueRef b, Type *bt_ty);

/* infer_strfmt.c: "fmt" % args, "fmt".format(...), format(), hex(), bin()
 * and oct() as f-strings (lib/str's infer hooks call them) */
typedef struct Inf Inf;
Type *strfmt_percent(Inf *I, Node **pn, Type *bt);
Type *strfmt_call(Inf *I, Node *n, BuiltinId id, Node *self);

#endif
