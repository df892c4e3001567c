/* lower_mpi.c - hpcjit.mpi calls in compiled code (typed by infer_mpi.c)
 * lowered onto the runtime's rt_mpi_* functions (runtime/mpi_hooks.c, which
 * forward to hpcjit._mpi), and the distributed loops over hpcjit.mpi.prange.
 *
 * Buffers are passed as (data pointer, element count, type code); an array
 * whose layout is not C is checked to be C-contiguous at run time
 * (ValueError otherwise), a number goes through a stack slot.  Every call
 * returns a status that sends the function to its error exit. */
#include "mpi.h"
#include "parallel.h"

#include "hpcjit/mpi_hooks.h"

static int dtype_code(const Type *t) {
    switch (t->kind) {
    case TY_BOOL: return RT_MPI_BOOL;
    case TY_INT8: return RT_MPI_INT8;
    case TY_INT16: return RT_MPI_INT16;
    case TY_INT32: return RT_MPI_INT32;
    case TY_INT64: return RT_MPI_INT64;
    case TY_UINT8: return RT_MPI_UINT8;
    case TY_UINT16: return RT_MPI_UINT16;
    case TY_UINT32: return RT_MPI_UINT32;
    case TY_UINT64: return RT_MPI_UINT64;
    case TY_FLOAT32: return RT_MPI_FLOAT32;
    case TY_FLOAT64: return RT_MPI_FLOAT64;
    case TY_COMPLEX64: return RT_MPI_COMPLEX64;
    case TY_COMPLEX128: return RT_MPI_COMPLEX128;
    default: return -1;
    }
}

/* A buffer: data pointer and element count. */
typedef struct MBuf {
    LLVMValueRef data, count, value; /* value: the array, or the scalar */
    Type *ty, *et;
    LLVMValueRef slot;               /* scalar: its stack slot */
} MBuf;

/* ValueError unless arr (of type t) is C-contiguous. */
static void need_contig(Lower *L, LLVMValueRef arr, Type *t, const char *msg) {
    if (t->layout == LAYOUT_C || t->ndim == 0)
        return;
    LLVMValueRef ok = LLVMConstInt(L->t_i1, 1, 0);
    LLVMValueRef expect = lower_i64(L, ty_itemsize(t->dtype));
    for (int d = t->ndim - 1; d >= 0; d--) {
        LLVMValueRef sh = lower_array_dim(L, arr, ARR_SHAPE, d);
        LLVMValueRef st = lower_array_dim(L, arr, ARR_STRIDES, d);
        LLVMValueRef one = LLVMBuildICmp(L->b, LLVMIntSLE, sh, lower_i64(L, 1), "");
        LLVMValueRef eq = LLVMBuildICmp(L->b, LLVMIntEQ, st, expect, "");
        ok = LLVMBuildAnd(L->b, ok, LLVMBuildOr(L->b, one, eq, ""), "");
        expect = LLVMBuildMul(L->b, expect, sh, "");
    }
    LLVMValueRef empty = LLVMBuildICmp(L->b, LLVMIntEQ, lower_array_field(L, arr, ARR_NITEMS, ""), lower_i64(L, 0), "");
    ok = LLVMBuildOr(L->b, ok, empty, "");
    lower_raise_if(L, LLVMBuildNot(L->b, ok, ""), "ValueError", msg);
}

static bool buf_of(Lower *L, Node *e, const char *fname, MBuf *b) {
    b->ty = e->ty;
    b->et = ty_is_array(e->ty) ? e->ty->dtype : e->ty;
    b->value = lower_expr_use(L, e);
    if (!b->value)
        return false;
    if (ty_is_array(e->ty)) {
        need_contig(L, b->value, e->ty,
                    arena_printf(&L->c->arena, "hpcjit.mpi.%s: the array must be C-contiguous (use "
                                 "np.ascontiguousarray)", fname));
        b->data = lower_array_field(L, b->value, ARR_DATA, "");
        b->count = lower_array_field(L, b->value, ARR_NITEMS, "");
        b->slot = NULL;
        return true;
    }
    b->slot = lower_alloca(L, lower_mem_type(L, e->ty), "mpi.val");
    LLVMBuildStore(L->b, lower_to_mem(L, b->value, e->ty), b->slot);
    b->data = b->slot;
    b->count = lower_i64(L, 1);
    return true;
}

static LLVMValueRef int_or(Lower *L, Node *e, int64_t dflt) {
    return e ? lower_expr_use(L, e) : lower_i64(L, dflt);
}

static Node *arg(Node *n, int i) { return i < n->args.len ? VEC_AT(n->args, i) : NULL; }

/* Call rt_<name>(args) with parameter kinds in `sig` ('p' ptr, 'l' i64,
 * 'i' i32) returning an i32 status, then branch to the error exit. */
static void rt_call(Lower *L, const char *name, const char *sig, LLVMValueRef *args) {
    LLVMTypeRef pt[8];
    unsigned n = 0;
    for (; sig[n]; n++)
        pt[n] = sig[n] == 'p' ? L->t_ptr : sig[n] == 'l' ? L->t_i64 : L->t_i32;
    lower_check_status(L, lower_rt(L, name, L->t_i32, pt, n, args));
}

/* An int64 identity call (rank, size...): -1 means an exception is pending. */
static LLVMValueRef ident_call(Lower *L, const char *name) {
    LLVMValueRef v = lower_rt(L, name, L->t_i64, NULL, 0, NULL);
    LLVMValueRef bad = LLVMBuildICmp(L->b, LLVMIntSLT, v, lower_i64(L, 0), "");
    lower_check_status(L, LLVMBuildZExt(L->b, bad, L->t_i32, ""));
    return v;
}

static LLVMValueRef code_of(Lower *L, const MBuf *b) { return lower_i32(L, dtype_code(b->et)); }

/* The result of a call that hands back an array operand (recv, buf). */
static LLVMValueRef give_back(Lower *L, const MBuf *b, bool *owned) {
    if (!ty_is_array(b->ty))
        return lower_from_mem(L, lower_load(L, lower_mem_type(L, b->ty), b->slot, ""), b->ty);
    lower_incref(L, b->value, b->ty);
    *owned = true;
    return b->value;
}

/* A new C array of type t with the dims of `like` (after `lead` leading
 * dims), registered as a temporary. */
static LLVMValueRef new_array(Lower *L, Type *t, const MBuf *like, LLVMValueRef lead) {
    LLVMValueRef dims[HJ_MAX_NDIM_LOWER + 1];
    int k = 0;
    if (lead)
        dims[k++] = lead;
    if (ty_is_array(like->ty))
        for (int d = 0; d < like->ty->ndim; d++)
            dims[k++] = lower_array_dim(L, like->value, ARR_SHAPE, d);
    LLVMValueRef a = lower_alloc_array(L, t, dims, false);
    if (a)
        lower_temp(L, a, t, true);
    return a;
}

static bool in_dist_loop(Lower *L, Node *n) {
    if (L->par_depth > 0) {
        lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "%s() inside a prange loop body: MPI calls run on the "
                   "rank's main thread, not in the outlined loop", builtin_name(n->builtin));
        return true;
    }
    if (L->dist_depth > 0 && n->builtin != BI_MPI_RANK && n->builtin != BI_MPI_SIZE &&
        n->builtin != BI_MPI_LOCAL_RANK) {
        lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "%s() inside an hpcjit.mpi.prange loop: the ranks run "
                   "different iterations, so they would not meet", builtin_name(n->builtin));
        return true;
    }
    return false;
}

LLVMValueRef lower_mpi_call(Lower *L, Node *n, bool *owned) {
    *owned = false;
    MBuf a = {0}, b = {0};
    const char *fname = builtin_name(n->builtin) + 11; /* after "hpcjit.mpi." */
    switch (n->builtin) {
    case BI_MPI_RANK: case BI_MPI_SIZE: case BI_MPI_LOCAL_RANK: case BI_MPI_BARRIER: case BI_MPI_BCAST:
    case BI_MPI_REDUCE: case BI_MPI_ALLREDUCE: case BI_MPI_GATHER: case BI_MPI_ALLGATHER:
    case BI_MPI_SCATTER: case BI_MPI_SEND: case BI_MPI_RECV:
        break;
    case BI_MPI_PRANGE: /* as a value: the whole range (narrowed only in loops) */
        return lower_range_value(L, n);
    default:
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "%s() is not supported in compiled code", builtin_name(n->builtin));
    }
    if (in_dist_loop(L, n))
        return NULL;
    switch (n->builtin) {
    case BI_MPI_RANK: return ident_call(L, "rt_mpi_rank");
    case BI_MPI_SIZE: return ident_call(L, "rt_mpi_size");
    case BI_MPI_LOCAL_RANK: return ident_call(L, "rt_mpi_local_rank");
    case BI_MPI_BARRIER:
        rt_call(L, "rt_mpi_barrier", "", NULL);
        return lower_zero(L, n->ty);
    default: break;
    }
    if (!buf_of(L, arg(n, 0), fname, &a))
        return NULL;
    if (arg(n, 1) && ty_is_array(arg(n, 1)->ty) && n->builtin != BI_MPI_SEND && n->builtin != BI_MPI_RECV &&
        n->builtin != BI_MPI_BCAST && !buf_of(L, arg(n, 1), fname, &b))
        return NULL;
    bool bufform = b.value != NULL;
    switch (n->builtin) {
    case BI_MPI_BCAST: {
        LLVMValueRef args[] = {a.data, a.count, code_of(L, &a), int_or(L, arg(n, 1), 0)};
        rt_call(L, "rt_mpi_bcast", "plil", args);
        return give_back(L, &a, owned);
    }
    case BI_MPI_ALLREDUCE: {
        LLVMValueRef op = int_or(L, arg(n, 2), RT_MPI_SUM);
        if (bufform) {
            /* in place when send and recv are one array */
            LLVMValueRef args[] = {a.data, b.data, a.count, b.count, code_of(L, &a), op};
            rt_call(L, "rt_mpi_allreduce", "ppllil", args);
            return give_back(L, &b, owned);
        }
        if (!ty_is_array(a.ty)) {
            LLVMValueRef out = lower_alloca(L, lower_mem_type(L, a.ty), "mpi.out");
            LLVMValueRef args[] = {a.data, out, a.count, a.count, code_of(L, &a), op};
            rt_call(L, "rt_mpi_allreduce", "ppllil", args);
            return lower_from_mem(L, lower_load(L, lower_mem_type(L, a.ty), out, ""), a.ty);
        }
        LLVMValueRef r = new_array(L, n->ty, &a, NULL);
        if (!r)
            return NULL;
        LLVMValueRef args[] = {a.data, lower_array_field(L, r, ARR_DATA, ""), a.count, a.count, code_of(L, &a), op};
        rt_call(L, "rt_mpi_allreduce", "ppllil", args);
        lower_incref(L, r, n->ty);
        *owned = true;
        return r;
    }
    case BI_MPI_REDUCE: {
        LLVMValueRef args[] = {a.data, b.data, a.count, b.count, code_of(L, &a), int_or(L, arg(n, 2), RT_MPI_SUM),
                               int_or(L, arg(n, 3), 0)};
        rt_call(L, "rt_mpi_reduce", "ppllill", args);
        return lower_zero(L, n->ty);
    }
    case BI_MPI_GATHER: {
        LLVMValueRef args[] = {a.data, b.data, a.count, b.count, code_of(L, &a), int_or(L, arg(n, 2), 0)};
        rt_call(L, "rt_mpi_gather", "ppllil", args);
        return lower_zero(L, n->ty);
    }
    case BI_MPI_ALLGATHER: {
        if (bufform) {
            LLVMValueRef args[] = {a.data, b.data, a.count, b.count, code_of(L, &a)};
            rt_call(L, "rt_mpi_allgather", "pplli", args);
            return give_back(L, &b, owned);
        }
        LLVMValueRef size = ident_call(L, "rt_mpi_size");
        LLVMValueRef r = new_array(L, n->ty, &a, size);
        if (!r)
            return NULL;
        LLVMValueRef args[] = {a.data, lower_array_field(L, r, ARR_DATA, ""), a.count,
                               lower_array_field(L, r, ARR_NITEMS, ""), code_of(L, &a)};
        rt_call(L, "rt_mpi_allgather", "pplli", args);
        lower_incref(L, r, n->ty);
        *owned = true;
        return r;
    }
    case BI_MPI_SCATTER: {
        LLVMValueRef args[] = {a.data, b.data, a.count, b.count, code_of(L, &a), int_or(L, arg(n, 2), 0)};
        rt_call(L, "rt_mpi_scatter", "ppllil", args);
        return give_back(L, &b, owned);
    }
    case BI_MPI_SEND: {
        LLVMValueRef args[] = {a.data, a.count, code_of(L, &a), int_or(L, arg(n, 1), 0), int_or(L, arg(n, 2), 0)};
        rt_call(L, "rt_mpi_send", "plill", args);
        return lower_zero(L, n->ty);
    }
    case BI_MPI_RECV: {
        LLVMValueRef args[] = {a.data, a.count, code_of(L, &a), int_or(L, arg(n, 1), RT_MPI_ANY),
                               int_or(L, arg(n, 2), RT_MPI_ANY)};
        rt_call(L, "rt_mpi_recv", "plill", args);
        return give_back(L, &a, owned);
    }
    default: break;
    }
    return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "%s() is not supported in compiled code", builtin_name(n->builtin));
}

/* ---- distributed loops ---- */

bool lower_mpi_block(Lower *L, Node *call, LLVMValueRef *start, LLVMValueRef *stop, LLVMValueRef step) {
    if (call->builtin != BI_MPI_PRANGE)
        return true;
    if (L->par_depth > 0 || (L->dist_depth > 0 && call != L->dist_call)) {
        lower_fail(L, call, HJ_DIAG_UNSUPPORTED, "hpcjit.mpi.prange inside a prange or hpcjit.mpi.prange loop "
                   "(only the outermost loop is distributed)");
        return false;
    }
    LLVMValueRef len = lower_range_len(L, *start, *stop, step);
    LLVMValueRef lo = lower_alloca(L, L->t_i64, "mpi.lo"), hi = lower_alloca(L, L->t_i64, "mpi.hi");
    LLVMValueRef args[] = {len, lo, hi};
    rt_call(L, "rt_mpi_block", "lpp", args);
    LLVMValueRef s0 = *start;
    *start = LLVMBuildAdd(L->b, s0, LLVMBuildMul(L->b, lower_load(L, L->t_i64, lo, ""), step, ""), "mpi.start");
    *stop = LLVMBuildAdd(L->b, s0, LLVMBuildMul(L->b, lower_load(L, L->t_i64, hi, ""), step, ""), "mpi.stop");
    return true;
}

static int mpi_op(ParRedOp op) {
    switch (op) {
    case PRED_ADD: return RT_MPI_SUM;
    case PRED_MUL: return RT_MPI_PROD;
    case PRED_MIN: return RT_MPI_MIN;
    case PRED_MAX: return RT_MPI_MAX;
    case PRED_OR: return RT_MPI_BOR;
    case PRED_AND: return RT_MPI_BAND;
    case PRED_XOR: return RT_MPI_BXOR;
    }
    return RT_MPI_SUM;
}

/* Each reduction variable starts the rank's block at the operator's
 * identity; after the loop the ranks' partials are allreduced and combined
 * with the value the variable had before the loop. */
bool lower_mpi_for(Lower *L, Node *n) {
    ParLoop *p = n->dist;
    if (L->par_depth > 0 || L->dist_depth > 0)
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "hpcjit.mpi.prange inside a prange or hpcjit.mpi.prange "
                          "loop (only the outermost loop is distributed)") != NULL;
    LLVMValueRef *before = arena_alloc(&L->c->arena, sizeof(LLVMValueRef) * (size_t)(p->nreds + 1));
    for (int r = 0; r < p->nreds; r++) {
        Var *v = p->reds[r].var;
        before[r] = NULL;
        if (!v->slot)
            continue;
        before[r] = lower_load(L, lower_type(L, v->ty), (LLVMValueRef)v->slot, "mpi.before");
        LLVMBuildStore(L->b, lower_par_identity(L, v->ty, p->reds[r].op), (LLVMValueRef)v->slot);
    }
    const Node *outer = L->dist_call;
    L->dist_depth++;
    L->dist_call = n->b;
    bool ok = lower_for_loop(L, n);
    L->dist_depth--;
    L->dist_call = outer;
    if (!ok || lower_terminated(L))
        return ok;
    for (int r = 0; r < p->nreds; r++) {
        Var *v = p->reds[r].var;
        if (!before[r])
            continue;
        LLVMTypeRef mt = lower_mem_type(L, v->ty);
        LLVMValueRef tmp = lower_alloca(L, mt, "mpi.part");
        LLVMValueRef part = lower_load(L, lower_type(L, v->ty), (LLVMValueRef)v->slot, "");
        LLVMBuildStore(L->b, lower_to_mem(L, part, v->ty), tmp);
        LLVMValueRef args[] = {tmp, tmp, lower_i64(L, 1), lower_i64(L, 1), lower_i32(L, dtype_code(v->ty)),
                               lower_i64(L, mpi_op(p->reds[r].op))};
        rt_call(L, "rt_mpi_allreduce", "ppllil", args);
        LLVMValueRef total = lower_from_mem(L, lower_load(L, mt, tmp, ""), v->ty);
        LLVMValueRef x = lower_par_combine(L, n, v->ty, p->reds[r].op, before[r], total);
        if (!x)
            return false;
        LLVMBuildStore(L->b, x, (LLVMValueRef)v->slot);
    }
    return !lower_failed(L);
}
