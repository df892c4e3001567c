/* registry.h - the one registry of library callables: each BuiltinId
 * (lib/builtins.def) belongs to the core or to one feature in
 * lib/<feature>/, and lib_ops(id) returns the functions that feature
 * registered for typing and lowering it (as Numba's typing templates pair
 * with its lowering registry).  The core typer (infer/) and lowerer
 * (lower/) look callables up here and name no feature; a feature uses the
 * core only through infer.h and lower.h.
 *
 * Adding a function to a feature: its BUILTIN line in the feature's .def,
 * its typing in the feature's infer_*.c, its lowering in lower_*.c (see
 * docs/DESIGN.md, "Adding a NumPy function").  Adding a feature: a folder
 * with a <feature>.def included by lib/builtins.def, a `const LibOps
 * lib_<feature>_ops`, and its line in registry.c's feature list.
 *
 * Thread-safety: everything here is constant data. */
#ifndef HPCJIT_REGISTRY_H
#define HPCJIT_REGISTRY_H

#include "ast.h"

#include <llvm-c/Types.h>

typedef struct Inf Inf;     /* infer.h */
typedef struct Lower Lower; /* lower.h */

/* A feature's entry points; any may be NULL. */
typedef struct LibOps {
    const char *name; /* the feature's folder under lib/ */
    /* Type the call n of builtin id (the callee resolved; self: the
     * receiver of a bound method, or NULL).  NULL after a diagnostic. */
    Type *(*infer_call)(Inf *I, Node *n, BuiltinId id, Node *self);
    /* Type attribute n (n->attr) of a value of type base: methods bound
     * to it, properties.  False when the name is not one of the feature's. */
    bool (*infer_attr)(Inf *I, Node *n, Type *base, Type **out);
    /* The array returned by call n may share its first operand's memory
     * (a view: read-only when that operand is). */
    bool (*is_view)(const Node *call, const Type *result);
    /* Final pass: a `for` loop (N_FOR) whose iterable is a call of one of
     * the feature's builtins.  False after a diagnostic. */
    bool (*infer_loop)(Inf *I, Node *loop);
    /* A module attribute that resolved to builtin id and is a value, not a
     * callable (cuda.threadIdx.x): its type, or NULL when id is a callable
     * (the attribute stays ATTR_MODULE).  Such attributes become
     * ATTR_LIB_VALUE, lowered by lower_call(L, attribute node, owned). */
    Type *(*infer_value)(Inf *I, Node *n, BuiltinId id);
    /* Lower a call typed by infer_call; *owned: the value holds its references. */
    LLVMValueRef (*lower_call)(Lower *L, Node *n, bool *owned);
    /* Lower a loop that infer_loop marked (n->dist); false after a diagnostic. */
    bool (*lower_loop)(Lower *L, Node *loop);
    /* A range-like iterable (the call is typed as a range): narrow the
     * evaluated bounds [start, stop) by step, e.g. to this rank's block. */
    bool (*lower_range)(Lower *L, Node *call, LLVMValueRef *start, LLVMValueRef *stop, LLVMValueRef step);

    /* ---- values of the feature's own types (str, list, dict, set) ----
     * The core offers an operation to the owner of an operand's type
     * (lib_type_owner) before its own rules, so a feature defines what its
     * values do.  Typing hooks return NULL after a diagnostic (TY_UNKNOWN
     * while operands are unknown); in the final pass they may replace *pn,
     * e.g. by a call of one of the feature's builtins, which is then
     * lowered by lower_call.  Methods (`s.upper()`) come through
     * infer_attr as for arrays. */
    bool (*owns_type)(const Type *t);
    /* Values of an owned type are `HjMemInfo *` (runtime.h): LLVM `ptr`,
     * reference counted with rt_incref/rt_decref by the core (variables,
     * temporaries, tuples, returns), NULL or immortal for constants. */
    /* N_BINOP at *pn (op n->op) with an operand of an owned type. */
    Type *(*infer_binop)(Inf *I, Node **pn, Type *a, Type *b);
    /* One link `a op b` of an N_COMPARE (==, !=, <, <=, >, >=, in, not in,
     * is, is not) with an operand of an owned type: the type recorded in
     * n->op_tys for lower_compare (the core converts nothing). */
    Type *(*infer_compare)(Inf *I, Node *at, OpKind op, Type *a, Type *b);
    /* `v[index]` as a value: N_SUBSCRIPT at *pn, base type an owned type. */
    Type *(*infer_subscript)(Inf *I, Node **pn, Type *base);
    /* `v[index] = value` (target an N_SUBSCRIPT of an owned type, value *pv
     * of type vt, typed): check and convert the value; false after a
     * diagnostic.  Lowered by lower_store. */
    bool (*infer_store)(Inf *I, Node *target, Node **pv, Type *vt);
    /* The item type of `for x in v` (v at *pn, of owned type t): needs
     * lower_len and lower_item; NULL after a diagnostic. */
    Type *(*infer_iter)(Inf *I, Node **pn, Type *t);
    /* len(v) as i64; also the truth of v (nonzero) and the count of a loop. */
    LLVMValueRef (*lower_len)(Lower *L, const Node *at, LLVMValueRef v, Type *t);
    /* The type of the items a for loop over a value of type t produces
     * (what infer_iter returned). */
    Type *(*item_type)(TyCtx *tc, const Type *t);
    /* Item i (i64, 0 <= i < len) of v for a for loop; *owned as lower_expr. */
    LLVMValueRef (*lower_item)(Lower *L, const Node *at, LLVMValueRef v, Type *t, LLVMValueRef i, bool *owned);
    /* One comparison typed by infer_compare: an i1. */
    LLVMValueRef (*lower_compare)(Lower *L, const Node *at, OpKind op, Type *op_ty, LLVMValueRef a, Type *at_ty,
                                  LLVMValueRef b, Type *bt_ty);
    /* target[index] = v, v of type vt (borrowed). */
    bool (*lower_store)(Lower *L, Node *target, LLVMValueRef v, Type *vt);
    /* A display (N_LIST `[a, b]`, N_DICT, N_SET at *pn), offered to each
     * feature in turn: false when it is not the feature's, else *out is its
     * type (NULL after a diagnostic; items still unknown, as in an empty
     * `[]`, stay TY_UNKNOWN inside it: converting it to a type with them
     * known gives the node that type).  The final pass replaces *pn by a
     * call of one of the feature's builtins. */
    bool (*infer_display)(Inf *I, Node **pn, Type **out);
    /* `t op= v` (N_AUGASSIGN n) where t (n->a) is a name of owned type ot
     * (`lst += other` extends lst in place) or a subscript whose base has
     * the owned type ot (`lst[i] += 1`, `d[k] += 1`); the hook types v.
     * Non-NULL when typed (TY_UNKNOWN while operands are), NULL after a
     * diagnostic; the final pass rewrites n into a statement the core
     * lowers (an N_EXPR of one of the feature's calls). */
    Type *(*infer_augassign)(Inf *I, Node *n, Type *ot);
    /* `del v[index]` (target *pt, an N_SUBSCRIPT whose base has an owned
     * type): false after a diagnostic; the final pass replaces *pt by a
     * call of one of the feature's builtins, lowered for its effect.
     * The core's builtins of one iterable (min(v), max(v), sum(v, start))
     * are offered to v's owner through infer_call, which makes the call
     * one of its own (n->builtin) in the final pass. */
    bool (*infer_del)(Inf *I, Node **pt, Type *base);
    /* A value iterated by a cursor rather than by index (a hash table):
     * lower_iter_begin makes the cursor where a for loop starts, after
     * lower_len gave the loop's count; lower_iter_next gives the next item
     * at the top of the body in place of lower_item (*owned as
     * lower_expr).  Such values cannot be iterated in reverse. */
    LLVMValueRef (*lower_iter_begin)(Lower *L, const Node *at, LLVMValueRef v, Type *t, LLVMValueRef len);
    LLVMValueRef (*lower_iter_next)(Lower *L, const Node *at, LLVMValueRef v, Type *t, LLVMValueRef cursor,
                                    bool *owned);
} LibOps;

/* The feature that owns id, or NULL for the core's builtins. */
const LibOps *lib_ops(BuiltinId id);
/* The features in lookup order (attributes are offered to each in turn). */
int lib_feature_count(void);
const LibOps *lib_feature(int i);
/* The feature whose owns_type claims t (Optional(T): T's owner), or NULL. */
const LibOps *lib_type_owner(const Type *t);
/* The owner of a or of b (a's first), or NULL. */
const LibOps *lib_type_owner2(const Type *a, const Type *b);
/* The builtin a call node calls, when it is a typed builtin call, else -1. */
int lib_call_builtin(const Node *n);

#endif
