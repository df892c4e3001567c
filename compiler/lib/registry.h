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
    /* Lower a call typed by infer_call; *owned: the value holds its references. */
    LLVMValueRef (*lower_call)(Lower *L, Node *n, bool *owned);
    /* Lower a loop that infer_loop marked (n->dist); false after a diagnostic. */
    bool (*lower_loop)(Lower *L, Node *loop);
    /* A range-like iterable (the call is typed as a range): narrow the
     * evaluated bounds [start, stop) by step, e.g. to this rank's block. */
    bool (*lower_range)(Lower *L, Node *call, LLVMValueRef *start, LLVMValueRef *stop, LLVMValueRef step);
} LibOps;

/* The feature that owns id, or NULL for the core's builtins. */
const LibOps *lib_ops(BuiltinId id);
/* The features in lookup order (attributes are offered to each in turn). */
int lib_feature_count(void);
const LibOps *lib_feature(int i);
/* The builtin a call node calls, when it is a typed builtin call, else -1. */
int lib_call_builtin(const Node *n);

#endif
