/* infer_mpi.c - typing of hpcjit.mpi calls in compiled code (area "mpijit";
 * lowered by lower_mpi.c onto the runtime's rt_mpi_* functions) and of the
 * distributed loops over hpcjit.mpi.prange.
 *
 * Typed tree of a call (docs/TYPED_AST.md "hpcjit.mpi"): args are the slots
 * below, NULL for an absent optional one, integers cast to int64:
 *   rank() size() local_rank() barrier()
 *   allreduce(send, recv, op)    buffer form: recv is an array (ty = recv's)
 *   allreduce(value, NULL, op)   value form: ty = value's (a new C array for arrays)
 *   reduce(send, recv, op, root) gather(send, recv, root)  (ty = None)
 *   bcast(data, root)            ty = data's (arrays: in place)
 *   allgather(send, recv)        buffer form (ty = recv's); allgather(value, NULL):
 *                                ty = a new C array of ndim + 1
 *   scatter(send, recv, root)    ty = recv's
 *   send(data, dest, tag)        ty = None;  recv(buf, source, tag): ty = buf's
 * Every call marks the compilation as using MPI (HjResult.uses_mpi), so
 * that Python starts MPI before the code runs. */
#include "infer.h"
#include "mpi.h"
#include "registry.h"
#include "parallel.h"

#include <string.h>

static const InferSig sigs[] = {
    {"hpcjit.mpi.rank", {0}, 0},
    {"hpcjit.mpi.size", {0}, 0},
    {"hpcjit.mpi.local_rank", {0}, 0},
    {"hpcjit.mpi.barrier", {0}, 0},
    {"hpcjit.mpi.bcast", {"data", "root"}, 2},
    {"hpcjit.mpi.reduce", {"send", "recv", "op", "root"}, 4},
    {"hpcjit.mpi.allreduce", {"send", "recv", "op"}, 3},
    {"hpcjit.mpi.gather", {"send", "recv", "root"}, 3},
    {"hpcjit.mpi.allgather", {"send", "recv"}, 2},
    {"hpcjit.mpi.scatter", {"send", "recv", "root"}, 3},
    {"hpcjit.mpi.send", {"data", "dest", "tag"}, 3},
    {"hpcjit.mpi.recv", {"buf", "source", "tag"}, 3},
};

/* An array or number hpcjit.mpi can move: numeric elements. */
static Type *data_arg(Inf *I, Node **pn, const char *fname, const char *what, bool array_only) {
    Type *t = infer_expr(I, pn);
    if (!t || IS_UNK(t))
        return t;
    Type *et = ty_is_array(t) ? t->dtype : t;
    if (!ty_is_number(et) || (array_only && !ty_is_array(t)))
        return TYPING(I, *pn, "%s(): %s must be %s, not %s", fname, what,
                      array_only ? "a NumPy array" : "a NumPy array or a number", infer_tyname(I, t));
    return t;
}

/* An integer argument (op, root, dest, tag), cast to int64. */
static bool int_arg(Inf *I, Node **pn, const char *fname, const char *what) {
    if (!*pn)
        return true;
    Type *t = infer_expr(I, pn);
    if (!t)
        return false;
    if (IS_UNK(t))
        return true;
    if (!ty_is_int(t) && t->kind != TY_BOOL) {
        TYPING(I, *pn, "%s(): %s must be an integer, not %s", fname, what, infer_tyname(I, t));
        return false;
    }
    infer_cast(I, pn, infer_ty(I, TY_INT64));
    return true;
}

/* A constant op that does not apply to the type: the TypeError hpcjit.mpi
 * raises, at compile time (other ops are checked at run time). */
static bool op_fits(Inf *I, Node *op, Type *t, const char *fname) {
    Node *o = op;
    while (o && o->kind == N_CAST)
        o = o->a;
    if (!o || !(o->kind == N_CONST || (o->kind == N_ATTRIBUTE && o->attr_kind == ATTR_CONST)) ||
        o->cval.kind != CVAL_INT)
        return true;
    static const char *const names[] = {"SUM", "PROD", "MIN", "MAX"};
    int64_t v = o->cval.i;
    Type *et = ty_is_array(t) ? t->dtype : t;
    if (v < 0 || v > 3) {
        TYPING(I, op, "%s(): unknown reduction op %lld (use hpcjit.mpi.SUM, PROD, MIN or MAX)", fname,
               (long long)v);
        return false;
    }
    if (ty_is_complex(et) && v >= 2) {
        TYPING(I, op, "%s(): %s of complex numbers is not defined", fname, names[v]);
        return false;
    }
    if (et->kind == TY_BOOL && v <= 1) {
        TYPING(I, op, "%s(): %s of booleans: convert to an integer type first", fname, names[v]);
        return false;
    }
    return true;
}

static bool writable(Inf *I, Node *n, Type *t, const char *fname, const char *what) {
    if (ty_is_array(t) && t->readonly) {
        TYPING(I, n, "%s(): the %s array is read-only", fname, what);
        return false;
    }
    return true;
}

static bool same_dtype(Inf *I, Node *n, Type *a, Type *b, const char *fname) {
    if (a->dtype == b->dtype || a->dtype->kind == b->dtype->kind)
        return true;
    TYPING(I, n, "%s(): the send array is %s and the receive array %s; compiled code needs one dtype "
           "(convert with .astype)", fname, infer_tyname(I, a), infer_tyname(I, b));
    return false;
}

static Type *infer_mpi_call(Inf *I, Node *n, BuiltinId id, Node *self) {
    if (id == BI_MPI_PRANGE) /* a range, narrowed to this rank's block in loops */
        return infer_range_call(I, n, "prange");
    const InferSig *s = &sigs[id - BI_MPI_RANK];
    const char *fname = s->fname;
    Node *sl[INFER_MAX_SLOTS];
    n->call_kind = CALL_BUILTIN;
    n->builtin = id;
    I->c->uses_mpi = true;
    for (int k = 0; k < n->keywords.len; k++) {
        Node *kw = VEC_AT(n->keywords, k);
        if (kw->name && strcmp(kw->name, "comm") == 0)
            return UNSUP(I, kw, "%s(): comm= is not supported in compiled code (MPI_COMM_WORLD is used)", fname);
    }
    if (!infer_bind_slots(I, n, NULL, s, sl))
        return NULL;
    Type *none = infer_ty(I, TY_NONE), *i64 = infer_ty(I, TY_INT64);
    if (s->n > 0 && !sl[0])
        return TYPING(I, n, "%s() missing required argument '%s'", fname, s->names[0]);
    Type *t0 = NULL, *t1 = NULL;
    if (s->n > 0 && !(t0 = data_arg(I, &sl[0], fname, s->names[0], false)))
        return NULL;
    /* the second slot: a buffer in the buffer forms, else an integer */
    bool buf2 = id == BI_MPI_REDUCE || id == BI_MPI_ALLREDUCE || id == BI_MPI_GATHER ||
                id == BI_MPI_ALLGATHER || id == BI_MPI_SCATTER;
    if (buf2 && sl[1]) {
        if (!(t1 = infer_expr(I, &sl[1])))
            return NULL;
        if (id == BI_MPI_ALLREDUCE && !IS_UNK(t1) && !ty_is_array(t1)) {
            /* allreduce(value, op): the value form */
            if (sl[2])
                return TYPING(I, sl[2], "allreduce(): allreduce(send, recv, op) takes an array as recv");
            sl[2] = sl[1];
            sl[1] = NULL;
            t1 = NULL;
        } else if (!IS_UNK(t1) && !ty_is_array(t1)) {
            return TYPING(I, sl[1], "%s(): recv must be a NumPy array, not %s", fname, infer_tyname(I, t1));
        }
    }
    int first_int = buf2 ? 2 : 1;
    for (int i = first_int; i < s->n; i++)
        if (!int_arg(I, &sl[i], fname, s->names[i]))
            return NULL;
    if (id == BI_MPI_SEND && !sl[1])
        return TYPING(I, n, "send() missing required argument 'dest'");
    if ((t0 && IS_UNK(t0)) || (t1 && IS_UNK(t1)))
        return infer_ty(I, TY_UNKNOWN);
    Type *r = NULL;
    switch (id) {
    case BI_MPI_RANK: case BI_MPI_SIZE: case BI_MPI_LOCAL_RANK: r = i64; break;
    case BI_MPI_BARRIER: r = none; break;
    case BI_MPI_BCAST:
        if (!writable(I, sl[0], t0, fname, "data"))
            return NULL;
        r = t0;
        break;
    case BI_MPI_ALLREDUCE:
        if (!op_fits(I, sl[2], t0, fname))
            return NULL;
        if (t1) {
            if (!ty_is_array(t0) || !same_dtype(I, sl[1], t0, t1, fname) || !writable(I, sl[1], t1, fname, "recv"))
                return ty_is_array(t0) ? NULL : TYPING(I, sl[0], "allreduce(): with a recv array, send must be an array");
            r = t1;
        } else {
            r = ty_is_array(t0) ? ty_array(I->tc, t0->dtype, t0->ndim, LAYOUT_C) : t0;
        }
        break;
    case BI_MPI_REDUCE: case BI_MPI_GATHER: case BI_MPI_SCATTER: case BI_MPI_ALLGATHER:
        if (!t1) {
            if (id == BI_MPI_ALLGATHER) {
                Type *et = ty_is_array(t0) ? t0->dtype : t0;
                int nd = ty_is_array(t0) ? t0->ndim + 1 : 1;
                if (nd > 32) /* HJ_MAX_NDIM */
                    return UNSUP(I, sl[0], "allgather(): the result would have more than 32 dimensions");
                r = ty_array(I->tc, et, nd, LAYOUT_C);
                break;
            }
            return UNSUP(I, n, "%s(): only the buffer form %s(send, recv, ...) in compiled code (the value form "
                         "returns None off the root)", fname, fname + 11);
        }
        if (!ty_is_array(t0) && id != BI_MPI_REDUCE && id != BI_MPI_GATHER)
            return TYPING(I, sl[0], "%s(): send must be an array in the buffer form", fname);
        if (ty_is_array(t0) && !same_dtype(I, sl[1], t0, t1, fname))
            return NULL;
        if (!ty_is_array(t0) && t0->kind != t1->dtype->kind)
            return TYPING(I, sl[0], "%s(): send is %s and recv %s; compiled code needs one dtype", fname,
                          infer_tyname(I, t0), infer_tyname(I, t1));
        if (!writable(I, sl[1], t1, fname, "recv"))
            return NULL;
        if (id == BI_MPI_REDUCE && !op_fits(I, sl[2], t0, fname))
            return NULL;
        r = id == BI_MPI_REDUCE || id == BI_MPI_GATHER ? none : t1;
        break;
    case BI_MPI_SEND: r = none; break;
    case BI_MPI_RECV:
        if (!ty_is_array(t0))
            return UNSUP(I, sl[0], "recv(): compiled code receives into an array: recv(buf, source, tag)");
        if (!writable(I, sl[0], t0, fname, "buf"))
            return NULL;
        r = t0;
        break;
    default: return UNSUP(I, n, "%s() is not supported in compiled code", fname);
    }
    infer_store_slots(I, n, sl, s->n);
    return r;
}

/* ---- distributed loops ---- */

/* `for i in hpcjit.mpi.prange(...)` (final pass): the loop's reductions
 * (infer_parallel.c's analysis) go to n->dist, allreduced after the loop by
 * lower_mpi.c; under parallel=True n->par keeps them too and the rank's
 * block is outlined onto the pool. */
static bool infer_mpi_loop(Inf *I, Node *n) {
    if (n->b->builtin != BI_MPI_PRANGE)
        return true;
    I->c->uses_mpi = true;
    if (!infer_parallel_loop(I->c, I->s, n))
        return false;
    ParLoop *p = n->par;
    if (!p) { /* infer_parallel.c leaves a loop with `return`/`break` serial */
        diag_error(&I->c->diag, HJ_DIAG_UNSUPPORTED, n->loc,
                   "'return' or 'break' inside an hpcjit.mpi.prange loop: the ranks run different "
                   "iterations, so they cannot leave the loop together");
        return false;
    }
    for (int r = 0; r < p->nreds; r++)
        if (ty_is_array(p->reds[r].var->ty)) {
            diag_error(&I->c->diag, HJ_DIAG_UNSUPPORTED, n->loc,
                       "array reduction of '%s' in an hpcjit.mpi.prange loop: combine it with "
                       "hpcjit.mpi.allreduce after the loop", p->reds[r].var->name ? p->reds[r].var->name : "?");
            return false;
        }
    n->dist = p;
    if (!(I->s->hf && I->s->hf->options.parallel))
        n->par = NULL;
    return true;
}

/* the feature's entry in the registry (lib/registry.h): hpcjit.mpi calls,
 * and hpcjit.mpi.prange as a range-like iterable whose loops are
 * distributed over the ranks */
const LibOps lib_mpi_ops = {.name = "mpi", .infer_call = infer_mpi_call, .infer_loop = infer_mpi_loop,
                            .lower_call = lower_mpi_call, .lower_loop = lower_mpi_for, .lower_range = lower_mpi_block};
