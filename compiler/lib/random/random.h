/* random.h - the random feature (np.random, the random module, the methods
 * of a NumPy Generator argument; registered as lib_random_ops at the end
 * of infer_random.c): what its files share. */
#ifndef HPCJIT_LIB_RANDOM_H
#define HPCJIT_LIB_RANDOM_H

#include "lower.h"

/* Whose function a builtin is, from its name's prefix. */
typedef enum RandomApi {
    RND_NUMPY, /* "numpy.random.": np.random's per-thread generator */
    RND_GEN,   /* "Generator.": a method; args[0] is the Generator */
    RND_PY     /* "random.": the random module's per-thread generator */
} RandomApi;

/* A distribution drawn by rt_random_dist (hpcjit/random.h): its float64
 * parameters in order, then size= (np.random and Generator). */
typedef struct RandomDist {
    const char *name;      /* the name after the prefix */
    int kind;              /* RtDist */
    int np;                /* number of parameters (<= 3) */
    const char *params[3]; /* their names */
    double dflt[3];        /* defaults of the optional ones (NaN: None) */
    unsigned req;          /* bit i: parameter i is required */
    unsigned ints;         /* bit i: parameter i is an integer (NumPy casts it to int64) */
} RandomDist;

/* The distribution builtin id draws, or NULL; *api its API. */
const RandomDist *random_dist(BuiltinId id, RandomApi *api);
RandomApi random_api(BuiltinId id);

LLVMValueRef lower_random_call(Lower *L, Node *n, bool *owned);

#endif
