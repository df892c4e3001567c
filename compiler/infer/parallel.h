/* parallel.h - what inference learns about a `for i in prange(...)` loop of
 * a parallel=True function (infer_parallel.c) and lowering uses to outline
 * it onto the pool (lower_parallel.c).
 *
 * Data-sharing follows Numba: every variable is private to the outlined
 * body (a copy made from the enclosing function's value at the start of
 * each chunk); arrays share their data; reductions get a private copy that
 * starts at the operator's identity and are combined after the join;
 * other scalars written in the body take the value of the last iteration
 * (the chunk that ends the range copies it out). */
#ifndef HPCJIT_PARALLEL_H
#define HPCJIT_PARALLEL_H

#include "ast.h"

/* How partial results of a reduction variable combine. */
typedef enum ParRedOp {
    PRED_ADD,  /* += and -= (a -= partial sums with a negated identity: 0) */
    PRED_MUL,  /* *=                                                        */
    PRED_MIN,  /* x = min(x, ...)                                           */
    PRED_MAX,  /* x = max(x, ...)                                           */
    PRED_OR,   /* |=                                                        */
    PRED_AND,  /* &=                                                        */
    PRED_XOR,  /* ^=                                                        */
} ParRedOp;

/* A scalar reduction, or a whole-array one (`acc += row` on an array var:
 * each thread accumulates into its own array of acc's shape, folded into
 * acc element by element after the join). */
typedef struct ParRed {
    Var *var;
    ParRedOp op;
} ParRed;

/* Block of iterations reduced into one partial in deterministic mode: the
 * blocks and the tree that combines them do not depend on the threads. */
#define PAR_DET_BLOCK 4096

typedef struct ParLoop {
    PtrVec used;     /* Var*: every variable the body names (the target too) */
    PtrVec written;  /* Var*: assigned in the body, not reductions (lastprivate) */
    ParRed *reds;
    int nreds;
    bool deterministic;
    bool dynamic;    /* schedule="dynamic" */
} ParLoop;

/* infer_parallel.c: called on an N_FOR over prange in the final pass of a
 * parallel=True spec; sets n->par.  False after a diagnostic. */
bool infer_parallel_loop(Compilation *c, Spec *s, Node *n);

#endif
