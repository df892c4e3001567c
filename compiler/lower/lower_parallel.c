/* lower_parallel.c - prange loops of parallel=True functions, outlined
 * onto the thread pool.
 *
 * The loop body becomes `i32 body(ptr ctx, i64 begin, i64 end, i32 tid)`
 * (the pool's PoolBody), iterating positions [begin, end) of the range.
 * The enclosing function fills a context struct on its stack:
 *   { i64 start, i64 step, i64 len, ptr partials, ptr lastflag,
 *     one field per variable the body names (scalars by value, arrays and
 *     other reference holders by pointer to the enclosing slot),
 *     one ptr per lastprivate variable (its out slot) }
 * and calls rt_parallel_for, which runs the body on the pool and leaves
 * the first exception pending on the caller.  Each call of the body makes
 * private copies of the variables (arrays increfed, so the body's exit
 * path releases them like any function's), so nothing is written to the
 * enclosing frame while the loop runs.
 *
 * Reductions (parallel.h): the private copy starts at the operator's
 * identity.  Normal mode: the chunk's result is folded into partials[tid]
 * (a thread id never runs two chunks at once) and after the join the
 * partials are folded into the variable in thread-id order.  Deterministic
 * mode: the loop runs over blocks of PAR_DET_BLOCK iterations, each block
 * stores its own partial, and the partials are combined in a fixed
 * pairwise tree, so the result depends on the range alone. */
#include <math.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "lower.h"
#include "parallel.h"

enum { CTX_START, CTX_STEP, CTX_LEN, CTX_PARTIALS, CTX_FLAG, CTX_VARS };
#define PART_STRIDE 16 /* bytes per partial: the largest scalar (complex128) */

typedef struct Par {
    ParLoop *p;
    Node *n;
    Var **vars;        /* used variables with storage */
    int nvars;
    LLVMTypeRef ctx_ty;
    int written_base;  /* first field of the out pointers */
    LLVMValueRef cstart, cstep; /* the range's start and step where constants, else NULL */
    int nd;            /* pndindex(d0, ..): its dimensions' count (-1: a range) */
    int dims_base;     /* first field of the dimensions (i64 each) */
} Par;

static LLVMValueRef field_ptr(Lower *L, Par *P, LLVMValueRef ctx, int k) {
    return LLVMBuildStructGEP2(L->b, P->ctx_ty, ctx, (unsigned)k, "");
}

static bool by_pointer(Type *t) { return lower_has_refs(t); }

static LLVMValueRef identity(Lower *L, Type *t, ParRedOp op) {
    LLVMTypeRef lt = lower_type(L, t);
    bool fl = ty_is_float(t), cx = ty_is_complex(t);
    switch (op) {
    case PRED_ADD:
    case PRED_OR:
    case PRED_XOR: return LLVMConstNull(lt);
    case PRED_AND: return LLVMConstAllOnes(lt);
    case PRED_MUL:
        if (cx) {
            LLVMTypeRef pt = t->kind == TY_COMPLEX64 ? L->t_f32 : L->t_f64;
            LLVMValueRef parts[2] = {LLVMConstReal(pt, 1.0), LLVMConstReal(pt, 0.0)};
            return LLVMConstStructInContext(L->ctx, parts, 2, 0);
        }
        return fl ? LLVMConstReal(lt, 1.0) : LLVMConstInt(lt, 1, 0);
    case PRED_MIN:
    case PRED_MAX: {
        bool mn = op == PRED_MIN;
        if (fl)
            return LLVMConstReal(lt, mn ? (double)INFINITY : -(double)INFINITY);
        if (t->kind == TY_BOOL || ty_is_unsigned(t))
            return mn ? LLVMConstAllOnes(lt) : LLVMConstNull(lt);
        unsigned bits = (unsigned)ty_bits(t);
        unsigned long long top = 1ULL << (bits - 1);
        return mn ? LLVMConstInt(lt, top - 1, 0) : LLVMConstInt(lt, top, 0);
    }
    }
    return LLVMConstNull(lt);
}

/* a (accumulated) combined with b (a partial), in type t. */
static LLVMValueRef combine(Lower *L, const Node *at, Type *t, ParRedOp op, LLVMValueRef a, LLVMValueRef b) {
    if (op == PRED_MIN || op == PRED_MAX) {
        /* Python's min(a, b) keeps a unless b < a */
        LLVMValueRef better;
        if (ty_is_float(t))
            better = LLVMBuildFCmp(L->b, op == PRED_MIN ? LLVMRealOLT : LLVMRealOGT, b, a, "");
        else if (t->kind == TY_BOOL || ty_is_unsigned(t))
            better = LLVMBuildICmp(L->b, op == PRED_MIN ? LLVMIntULT : LLVMIntUGT, b, a, "");
        else
            better = LLVMBuildICmp(L->b, op == PRED_MIN ? LLVMIntSLT : LLVMIntSGT, b, a, "");
        return LLVMBuildSelect(L->b, better, b, a, "red");
    }
    OpKind k = op == PRED_ADD ? OP_ADD : op == PRED_MUL ? OP_MUL : op == PRED_OR ? OP_BITOR
               : op == PRED_AND ? OP_BITAND : OP_BITXOR;
    Type *rt = t;
    LLVMValueRef v = lower_binop(L, at, k, t, a, b, &rt);
    return v && rt != t ? lower_convert(L, at, v, rt, t) : v;
}

/* Address of the partial of reduction r in slot k (i64). */
static LLVMValueRef partial_ptr(Lower *L, LLVMValueRef base, LLVMValueRef k, int nreds, int r) {
    LLVMValueRef off = LLVMBuildMul(L->b, k, lower_i64(L, (int64_t)nreds * PART_STRIDE), "");
    off = LLVMBuildAdd(L->b, off, lower_i64(L, (int64_t)r * PART_STRIDE), "");
    return lower_gep(L, L->t_i8, base, &off, 1, "part");
}

static bool is_arr(const ParRed *r) { return ty_is_array(r->var->ty); }

static bool arr_red(const ParLoop *p, const Var *v) {
    for (int r = 0; r < p->nreds; r++)
        if (p->reds[r].var == v && is_arr(&p->reds[r]))
            return true;
    return false;
}

/* A counted loop `for (k = from; k < to; k += by)`: returns the counter
 * slot; the builder is left in the body; close with loop_end. */
typedef struct CLoop {
    LLVMValueRef slot, by;
    LLVMBasicBlockRef head, body, end;
} CLoop;

static LLVMValueRef loop_begin(Lower *L, CLoop *c, LLVMValueRef from, LLVMValueRef to, LLVMValueRef by) {
    c->slot = lower_alloca(L, L->t_i64, "k");
    c->by = by;
    LLVMBuildStore(L->b, from, c->slot);
    c->head = lower_block(L, "par.k");
    c->body = lower_block(L, "par.kbody");
    c->end = lower_block(L, "par.kend");
    LLVMBuildBr(L->b, c->head);
    lower_at(L, c->head);
    LLVMValueRef k = lower_load(L, L->t_i64, c->slot, "k");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, k, to, ""), c->body, c->end);
    lower_at(L, c->body);
    return k;
}

/* Returns the back edge. */
static LLVMValueRef loop_end(Lower *L, CLoop *c) {
    LLVMValueRef k = lower_load(L, L->t_i64, c->slot, "k");
    LLVMBuildStore(L->b, LLVMBuildNSWAdd(L->b, k, c->by, ""), c->slot); /* k < to: no overflow */
    LLVMValueRef br = LLVMBuildBr(L->b, c->head);
    lower_at(L, c->end);
    return br;
}

/* Field k of the range value when it is a constant: looks through the
 * insertvalue chain that built it (range(n) has start 0 and step 1). */
static LLVMValueRef range_const(LLVMValueRef range, unsigned k) {
    LLVMValueRef v = range;
    while (v && !LLVMIsConstant(v) && LLVMIsAInsertValueInst(v)) {
        if (LLVMGetNumIndices(v) == 1 && LLVMGetIndices(v)[0] == k) {
            LLVMValueRef f = LLVMGetOperand(v, 1);
            return LLVMIsAConstantInt(f) ? f : NULL;
        }
        v = LLVMGetOperand(v, 0);
    }
    if (v && LLVMIsConstant(v) && !LLVMIsUndef(v) && !LLVMIsPoison(v)) {
        LLVMValueRef f = LLVMGetAggregateElement(v, k);
        return f && LLVMIsAConstantInt(f) ? f : NULL;
    }
    return NULL;
}

/* llvm.assume(cond): a fact for LLVM's analyses. */
static void assume(Lower *L, LLVMValueRef cond) {
    unsigned id = LLVMLookupIntrinsicID("llvm.assume", 11);
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(L->mod, id, NULL, 0);
    lower_call(L, LLVMIntrinsicGetType(L->ctx, id, NULL, 0), fn, &cond, 1, "");
}

/* Keep LLVM from unrolling the loop whose back edge is `br`: unrolling the
 * loop over deterministic blocks duplicates the inner loop and leaves both
 * copies un-unrolled (2x slower sums). */
static void no_unroll(Lower *L, LLVMValueRef br) {
    static const char opt[] = "llvm.loop.unroll.disable";
    LLVMMetadataRef tmp = LLVMTemporaryMDNode(L->ctx, NULL, 0);
    LLVMMetadataRef flag = LLVMMDStringInContext2(L->ctx, opt, sizeof opt - 1);
    LLVMMetadataRef inner = LLVMMDNodeInContext2(L->ctx, &flag, 1);
    LLVMMetadataRef ops[2] = {tmp, inner};
    LLVMMetadataRef id = LLVMMDNodeInContext2(L->ctx, ops, 2);
    LLVMMetadataReplaceAllUsesWith(tmp, id); /* disposes tmp */
    unsigned kind = LLVMGetMDKindIDInContext(L->ctx, "llvm.loop", 9);
    LLVMSetMetadata(br, kind, LLVMMetadataAsValue(L->ctx, id));
}

/* ---- whole-array reductions --------------------------------------------------
 * A thread's partial is a fresh contiguous array of acc's shape (C order, F
 * for an F-typed acc), known by its MemInfo alone: the partial slot holds
 * that pointer and the array value is rebuilt from acc's shape. */

/* The array value over MemInfo mi with the shape of `like` (type t). */
static LLVMValueRef array_over(Lower *L, Type *t, LLVMValueRef like, LLVMValueRef mi) {
    int nd = t->ndim;
    LLVMValueRef v = LLVMBuildInsertValue(L->b, like, mi, ARR_MEMINFO, "");
    v = LLVMBuildInsertValue(L->b, v, LLVMConstNull(L->t_ptr), ARR_PARENT, "");
    LLVMValueRef data = lower_load(L, L->t_ptr, LLVMBuildStructGEP2(L->b, L->t_meminfo, mi, 1, ""), "data");
    v = LLVMBuildInsertValue(L->b, v, data, ARR_DATA, "");
    LLVMValueRef strides = LLVMBuildExtractValue(L->b, like, ARR_STRIDES, "");
    LLVMValueRef st = lower_array_field(L, like, ARR_ITEMSIZE, "itemsize");
    bool f = t->layout == LAYOUT_F;
    for (int k = 0; k < nd; k++) {
        int d = f ? k : nd - 1 - k;
        strides = LLVMBuildInsertValue(L->b, strides, st, (unsigned)d, "");
        st = LLVMBuildMul(L->b, st, lower_array_dim(L, like, ARR_SHAPE, d), "");
    }
    return LLVMBuildInsertValue(L->b, v, strides, ARR_STRIDES, "");
}

/* Byte offset of the element with C-order flat index f. */
static LLVMValueRef flat_offset(Lower *L, LLVMValueRef arr, int nd, LLVMValueRef f) {
    LLVMValueRef off = lower_i64(L, 0), rem = f;
    for (int d = nd - 1; d >= 0; d--) {
        LLVMValueRef n = lower_array_dim(L, arr, ARR_SHAPE, d);
        LLVMValueRef i = d ? LLVMBuildURem(L->b, rem, n, "") : rem;
        if (d)
            rem = LLVMBuildUDiv(L->b, rem, n, "");
        off = LLVMBuildAdd(L->b, off, LLVMBuildMul(L->b, i, lower_array_dim(L, arr, ARR_STRIDES, d), ""), "");
    }
    return off;
}

static LLVMValueRef elem_ptr_at(Lower *L, LLVMValueRef arr, int nd, LLVMValueRef f) {
    LLVMValueRef off = flat_offset(L, arr, nd, f);
    return lower_gep(L, L->t_i8, lower_array_field(L, arr, ARR_DATA, "data"), &off, 1, "");
}

/* dst op= src element by element (same shape). */
static void array_fold(Lower *L, const Node *at, Type *t, ParRedOp op, LLVMValueRef dst, LLVMValueRef src);

/* A new partial of acc's shape filled with op's identity; its MemInfo, or
 * NULL with MemoryError pending. */
static LLVMValueRef new_partial(Lower *L, Type *t, ParRedOp op, LLVMValueRef acc);

/* ---- the outlined body ------------------------------------------------------ */

typedef struct SavedFn {
    LLVMValueRef fn, retptr, status;
    LLVMBasicBlockRef entry_bb, exit_bb;
    PtrVec temps, temp_tys, borrowed;
    void **slots;
} SavedFn;

static LLVMValueRef outline_body(Lower *L, Par *P) {
    ParLoop *p = P->p;
    Spec *s = L->spec;
    Arena *a = &L->c->arena;
    SavedFn sv = {L->fn, L->retptr, L->status, L->entry_bb, L->exit_bb, L->temps, L->temp_tys, L->borrowed, NULL};
    sv.slots = arena_alloc(a, sizeof(void *) * (size_t)(s->vars.len + 1));
    for (int i = 0; i < s->vars.len; i++) {
        Var *v = VEC_AT(s->vars, i);
        sv.slots[i] = v->slot;
        v->slot = NULL; /* a variable the analysis missed fails loudly */
    }
    LLVMBasicBlockRef caller_bb = LLVMGetInsertBlock(L->b);

    LLVMTypeRef params[4] = {L->t_ptr, L->t_i64, L->t_i64, L->t_i32};
    char *name = arena_printf(a, "%s.prange.%d", s->symbol ? s->symbol : "f", L->nstrings++);
    LLVMValueRef fn = LLVMAddFunction(L->mod, name, LLVMFunctionType(L->t_i32, params, 4, 0));
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    L->fn = fn;
    L->retptr = LLVMConstNull(L->t_ptr);
    L->temps = (PtrVec){0};
    L->temp_tys = (PtrVec){0};
    L->borrowed = (PtrVec){0};
    L->par_depth++;
    L->entry_bb = lower_block(L, "entry");
    lower_at(L, L->entry_bb);
    L->status = LLVMBuildAlloca(L->b, L->t_i32, "status");
    LLVMBuildStore(L->b, lower_i32(L, 0), L->status);
    L->exit_bb = lower_block(L, "exit");
    LLVMValueRef ctx = LLVMGetParam(fn, 0), begin = LLVMGetParam(fn, 1), end = LLVMGetParam(fn, 2);
    LLVMValueRef tid = LLVMGetParam(fn, 3);

    /* private copies */
    for (int i = 0; i < P->nvars; i++) {
        Var *v = P->vars[i];
        LLVMTypeRef lt = lower_type(L, v->ty);
        LLVMValueRef slot = LLVMBuildAlloca(L->b, lt, v->name ? v->name : "");
        LLVMValueRef f = field_ptr(L, P, ctx, CTX_VARS + i);
        LLVMValueRef val;
        if (by_pointer(v->ty)) {
            val = lower_load(L, lt, lower_load(L, L->t_ptr, f, ""), v->name ? v->name : "");
            if (!arr_red(p, v)) /* array reductions borrow their partial */
                lower_incref(L, val, v->ty);
        } else {
            val = lower_load(L, lt, f, v->name ? v->name : "");
        }
        LLVMBuildStore(L->b, val, slot);
        v->slot = slot;
    }
    /* constants stay constants (prange(n): i is k), and the pool's chunk
     * bounds are never negative: with both, LLVM drops the negative-index
     * wrap of a[i] */
    LLVMValueRef start = P->cstart ? P->cstart : lower_load(L, L->t_i64, field_ptr(L, P, ctx, CTX_START), "start");
    LLVMValueRef step = P->cstep ? P->cstep : lower_load(L, L->t_i64, field_ptr(L, P, ctx, CTX_STEP), "step");
    assume(L, LLVMBuildICmp(L->b, LLVMIntSGE, begin, lower_i64(L, 0), ""));
    assume(L, LLVMBuildICmp(L->b, LLVMIntSLE, begin, end, ""));
    LLVMValueRef len = lower_load(L, L->t_i64, field_ptr(L, P, ctx, CTX_LEN), "len");
    LLVMValueRef parts = lower_load(L, L->t_ptr, field_ptr(L, P, ctx, CTX_PARTIALS), "partials");
    LLVMValueRef flag = lower_load(L, L->t_ptr, field_ptr(L, P, ctx, CTX_FLAG), "lastflag");

    /* units: one (the chunk) normally, blocks of the chunk in deterministic mode */
    bool det = p->deterministic && p->nreds > 0;
    CLoop units;
    LLVMValueRef u = loop_begin(L, &units, det ? begin : lower_i64(L, 0), det ? end : lower_i64(L, 1),
                                lower_i64(L, 1));
    LLVMValueRef lo = begin, hi = end, slotk = LLVMBuildSExt(L->b, tid, L->t_i64, "");
    if (det) {
        lo = LLVMBuildMul(L->b, u, lower_i64(L, PAR_DET_BLOCK), "lo");
        LLVMValueRef h = LLVMBuildAdd(L->b, lo, lower_i64(L, PAR_DET_BLOCK), "");
        hi = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, h, len, ""), h, len, "hi");
        slotk = u;
    }
    for (int r = 0; r < p->nreds; r++) {
        Var *v = p->reds[r].var;
        if (!is_arr(&p->reds[r])) {
            LLVMBuildStore(L->b, identity(L, v->ty, p->reds[r].op), (LLVMValueRef)v->slot);
            continue;
        }
        /* the enclosing acc, for its shape */
        int fi = 0;
        while (P->vars[fi] != v)
            fi++;
        LLVMValueRef acc = lower_load(L, lower_type(L, v->ty),
                                      lower_load(L, L->t_ptr, field_ptr(L, P, ctx, CTX_VARS + fi), ""), "acc");
        LLVMValueRef pp = partial_ptr(L, parts, slotk, p->nreds, r);
        LLVMValueRef mi;
        if (det) { /* a fresh partial per block, owned by its slot */
            mi = new_partial(L, v->ty, p->reds[r].op, acc);
            LLVMBasicBlockRef ok = lower_branch_raise(L, LLVMBuildIsNull(L->b, mi, ""), "par.nomem");
            lower_goto_error(L);
            lower_at(L, ok);
            LLVMBuildStore(L->b, mi, pp);
        } else {
            mi = lower_load(L, L->t_ptr, pp, "partial");
        }
        LLVMBuildStore(L->b, array_over(L, v->ty, acc, mi), (LLVMValueRef)v->slot);
    }

    /* pndindex: the dimensions */
    LLVMValueRef *dims = NULL;
    if (P->nd >= 0) {
        dims = arena_alloc(a, sizeof(LLVMValueRef) * (size_t)(P->nd + 1));
        for (int d = 0; d < P->nd; d++)
            dims[d] = lower_load(L, L->t_i64, field_ptr(L, P, ctx, P->dims_base + d), "dim");
    }

    /* the iterations */
    CLoop it;
    LLVMValueRef flagp = lower_poll_setup(L, P->n);
    LLVMValueRef idx = loop_begin(L, &it, lo, hi, lower_i64(L, 1));
    LLVMValueRef val;
    Type *vty = ty_scalar(L->c->tc, TY_INT64);
    if (P->nd >= 0) { /* position idx unravelled in C order (no extent is 0 here) */
        vty = P->n->b->ty;
        val = LLVMGetUndef(lower_type(L, vty));
        LLVMValueRef rem = idx;
        for (int d = P->nd - 1; d >= 0; d--) {
            LLVMValueRef x = d ? LLVMBuildURem(L->b, rem, dims[d], "") : rem;
            if (d)
                rem = LLVMBuildUDiv(L->b, rem, dims[d], "");
            val = LLVMBuildInsertValue(L->b, val, x, (unsigned)d, "");
        }
    } else { /* a value of the range: no overflow */
        val = LLVMBuildNSWAdd(L->b, start, LLVMBuildNSWMul(L->b, idx, step, ""), "i");
    }
    LLVMBasicBlockRef next = lower_block(L, "par.next");
    bool ok = lower_assign(L, P->n->a, val, vty, false);
    if (ok && L->nloops >= LOWER_MAX_LOOPS) {
        lower_fail(L, P->n, HJ_DIAG_UNSUPPORTED, "loops nested too deeply");
        ok = false;
    }
    if (ok) {
        L->loops[L->nloops].brk = next; /* break is refused by inference */
        L->loops[L->nloops].cont = next;
        L->nloops++;
        ok = lower_body(L, &P->n->body);
        L->nloops--;
    }
    if (ok) {
        if (!lower_terminated(L))
            LLVMBuildBr(L->b, next);
        lower_at(L, next);
        lower_poll_signals(L, flagp);
        loop_end(L, &it);

        /* fold the unit's reductions into its partial */
        for (int r = 0; r < p->nreds; r++) {
            Var *v = p->reds[r].var;
            if (is_arr(&p->reds[r]))
                continue; /* updated in place */
            LLVMTypeRef lt = lower_type(L, v->ty);
            LLVMValueRef pp = partial_ptr(L, parts, slotk, p->nreds, r);
            LLVMValueRef mine = lower_load(L, lt, (LLVMValueRef)v->slot, "");
            if (!det)
                mine = combine(L, P->n, v->ty, p->reds[r].op, lower_load(L, lt, pp, ""), mine);
            LLVMBuildStore(L->b, mine, pp);
        }
        /* the unit that ends the range hands out the lastprivate values */
        if (P->p->written.len) {
            LLVMValueRef last = LLVMBuildAnd(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, hi, len, ""),
                                             LLVMBuildICmp(L->b, LLVMIntSLT, lo, hi, ""), "last");
            LLVMBasicBlockRef out = lower_block(L, "par.lastprivate");
            LLVMBasicBlockRef done = lower_block(L, "par.unit.done");
            LLVMBuildCondBr(L->b, last, out, done);
            lower_at(L, out);
            for (int w = 0; w < p->written.len; w++) {
                Var *v = VEC_AT(p->written, w);
                if (!v->slot)
                    continue;
                LLVMValueRef x = lower_load(L, lower_type(L, v->ty), (LLVMValueRef)v->slot, "");
                lower_incref(L, x, v->ty); /* the out slot owns one reference */
                LLVMBuildStore(L->b, x, lower_load(L, L->t_ptr, field_ptr(L, P, ctx, P->written_base + w), ""));
            }
            LLVMBuildStore(L->b, LLVMConstInt(L->t_i8, 1, 0), flag);
            LLVMBuildBr(L->b, done);
            lower_at(L, done);
        }
        LLVMValueRef back = loop_end(L, &units);
        if (det)
            no_unroll(L, back);
        LLVMBuildBr(L->b, L->exit_bb);

        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
            if (!LLVMGetBasicBlockTerminator(bb) && bb != L->exit_bb) {
                lower_at(L, bb);
                LLVMBuildUnreachable(L->b);
            }
        LLVMMoveBasicBlockAfter(L->exit_bb, LLVMGetLastBasicBlock(fn));
        lower_at(L, L->exit_bb);
        for (int i = 0; i < P->nvars; i++) {
            Var *v = P->vars[i];
            if (by_pointer(v->ty) && !arr_red(p, v))
                lower_decref(L, lower_load(L, lower_type(L, v->ty), (LLVMValueRef)v->slot, ""), v->ty);
        }
        LLVMBuildRet(L->b, lower_load(L, L->t_i32, L->status, "status"));
    }

    L->par_depth--;
    for (int i = 0; i < s->vars.len; i++)
        ((Var *)VEC_AT(s->vars, i))->slot = sv.slots[i];
    L->fn = sv.fn, L->retptr = sv.retptr, L->status = sv.status;
    L->entry_bb = sv.entry_bb, L->exit_bb = sv.exit_bb;
    L->temps = sv.temps, L->temp_tys = sv.temp_tys, L->borrowed = sv.borrowed;
    lower_at(L, caller_bb);
    for (int i = 0; i < P->nvars; i++) { /* assigned by the loop: not tracked inside it */
        Var *v = P->vars[i];
        if (v->defslot)
            LLVMBuildStore(L->b, LLVMConstInt(L->t_i1, 1, 0), (LLVMValueRef)v->defslot);
    }
    return ok && !lower_failed(L) ? fn : NULL;
}

static void array_fold(Lower *L, const Node *at, Type *t, ParRedOp op, LLVMValueRef dst, LLVMValueRef src) {
    Type *dt = t->dtype;
    LLVMTypeRef mt = lower_mem_type(L, dt);
    CLoop c;
    LLVMValueRef f = loop_begin(L, &c, lower_i64(L, 0), lower_array_field(L, dst, ARR_NITEMS, "nitems"), lower_i64(L, 1));
    LLVMValueRef pd = elem_ptr_at(L, dst, t->ndim, f), ps = elem_ptr_at(L, src, t->ndim, f);
    LLVMValueRef a = lower_from_mem(L, lower_load(L, mt, pd, ""), dt);
    LLVMValueRef b = lower_from_mem(L, lower_load(L, mt, ps, ""), dt);
    LLVMValueRef x = combine(L, at, dt, op, a, b);
    if (x)
        LLVMBuildStore(L->b, lower_to_mem(L, x, dt), pd);
    loop_end(L, &c);
}

static LLVMValueRef new_partial(Lower *L, Type *t, ParRedOp op, LLVMValueRef acc) {
    Type *dt = t->dtype;
    LLVMValueRef n = lower_array_field(L, acc, ARR_NITEMS, "nitems");
    LLVMValueRef bytes = LLVMBuildMul(L->b, n, lower_array_field(L, acc, ARR_ITEMSIZE, "itemsize"), "");
    LLVMTypeRef pi = L->t_i64;
    LLVMValueRef mi = lower_rt(L, "rt_alloc_zeroed", L->t_ptr, &pi, 1, &bytes);
    if (op == PRED_ADD || op == PRED_OR || op == PRED_XOR)
        return mi; /* zeros are the identity */
    LLVMBasicBlockRef fill = lower_block(L, "par.fill");
    LLVMBasicBlockRef done = lower_block(L, "par.filled");
    LLVMBuildCondBr(L->b, LLVMBuildIsNull(L->b, mi, ""), done, fill);
    lower_at(L, fill);
    LLVMValueRef data = lower_load(L, L->t_ptr, LLVMBuildStructGEP2(L->b, L->t_meminfo, mi, 1, ""), "data");
    LLVMTypeRef mt = lower_mem_type(L, dt);
    LLVMValueRef one = lower_to_mem(L, identity(L, dt, op), dt);
    CLoop c;
    LLVMValueRef f = loop_begin(L, &c, lower_i64(L, 0), n, lower_i64(L, 1));
    LLVMBuildStore(L->b, one, lower_gep(L, mt, data, &f, 1, ""));
    loop_end(L, &c);
    LLVMBuildBr(L->b, done);
    lower_at(L, done);
    return mi;
}

/* var op= partial k of reduction r (after the join, in the enclosing function). */
static void fold_into_var(Lower *L, const Node *at, ParRed *red, LLVMValueRef parts, LLVMValueRef k, int nreds,
                          int r) {
    Var *v = red->var;
    LLVMTypeRef lt = lower_type(L, v->ty);
    LLVMValueRef pp = partial_ptr(L, parts, k, nreds, r);
    LLVMValueRef cur = lower_load(L, lt, (LLVMValueRef)v->slot, "");
    if (is_arr(red)) {
        array_fold(L, at, v->ty, red->op, cur, array_over(L, v->ty, cur, lower_load(L, L->t_ptr, pp, "")));
        return;
    }
    LLVMBuildStore(L->b, combine(L, at, v->ty, red->op, cur, lower_load(L, lt, pp, "")), (LLVMValueRef)v->slot);
}

/* Release the partial arrays (NULL slots are skipped by rt_decref) and the
 * partials block. */
static void release_partials(Lower *L, ParLoop *p, LLVMValueRef parts, LLVMValueRef nslots, LLVMValueRef mi) {
    LLVMTypeRef pp = L->t_ptr;
    bool any = false;
    for (int r = 0; r < p->nreds; r++)
        any |= is_arr(&p->reds[r]);
    if (any) {
        CLoop c;
        LLVMValueRef k = loop_begin(L, &c, lower_i64(L, 0), nslots, lower_i64(L, 1));
        for (int r = 0; r < p->nreds; r++)
            if (is_arr(&p->reds[r])) {
                LLVMValueRef a = lower_load(L, L->t_ptr, partial_ptr(L, parts, k, p->nreds, r), "");
                lower_rt(L, "rt_decref", L->t_void, &pp, 1, &a);
            }
        loop_end(L, &c);
    }
    lower_rt(L, "rt_decref", L->t_void, &pp, 1, &mi);
}

/* ---- the call site -------------------------------------------------------------- */

/* pndindex(d0, d1, ...) / pndindex(shape): the dimensions as i64s
 * (negative ones raise ValueError, as np.ndindex) and their product. */
static LLVMValueRef pnd_dims(Lower *L, Node *e, int nd, LLVMValueRef *dims) {
    Node *a0 = e->args.len ? VEC_AT(e->args, 0) : NULL;
    bool shape = e->args.len == 1 && a0->ty->kind == TY_TUPLE;
    LLVMValueRef sv = shape ? lower_expr_use(L, a0) : NULL;
    if (shape && !sv)
        return NULL;
    LLVMValueRef len = lower_i64(L, 1);
    for (int d = 0; d < nd; d++) {
        dims[d] = shape ? LLVMBuildExtractValue(L->b, sv, (unsigned)d, "") : lower_expr_use(L, VEC_AT(e->args, d));
        if (!dims[d])
            return NULL;
        lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntSLT, dims[d], lower_i64(L, 0), ""), "ValueError",
                       "negative dimensions are not allowed");
        len = LLVMBuildMul(L->b, len, dims[d], "");
    }
    return len;
}

bool lower_parallel_for(Lower *L, Node *n) {
    ParLoop *p = n->par;
    Arena *a = &L->c->arena;
    Par P = {.p = p, .n = n, .nd = -1};
    if (n->b->builtin == BI_PNDINDEX)
        P.nd = n->b->ty->nelems;
    P.vars = arena_alloc(a, sizeof(Var *) * (size_t)(p->used.len + 1));
    for (int i = 0; i < p->used.len; i++) {
        Var *v = VEC_AT(p->used, i);
        if (v->slot && v->ty && v->ty->kind != TY_UNKNOWN)
            P.vars[P.nvars++] = v;
    }
    P.dims_base = CTX_VARS + P.nvars + p->written.len;
    int nf = P.dims_base + (P.nd > 0 ? P.nd : 0);
    LLVMTypeRef *fields = arena_alloc(a, sizeof(LLVMTypeRef) * (size_t)nf);
    fields[CTX_START] = fields[CTX_STEP] = fields[CTX_LEN] = L->t_i64;
    fields[CTX_PARTIALS] = fields[CTX_FLAG] = L->t_ptr;
    for (int i = 0; i < P.nvars; i++)
        fields[CTX_VARS + i] = by_pointer(P.vars[i]->ty) ? L->t_ptr : lower_type(L, P.vars[i]->ty);
    P.written_base = CTX_VARS + P.nvars;
    for (int w = 0; w < p->written.len; w++)
        fields[P.written_base + w] = L->t_ptr;
    for (int d = 0; d < P.nd; d++)
        fields[P.dims_base + d] = L->t_i64;
    P.ctx_ty = LLVMStructTypeInContext(L->ctx, fields, (unsigned)nf, 0);

    int mark = lower_temps_mark(L);
    LLVMValueRef start, step, len;
    LLVMValueRef *dims = arena_alloc(a, sizeof(LLVMValueRef) * (size_t)(P.nd + 1));
    if (P.nd >= 0) {
        start = P.cstart = lower_i64(L, 0);
        step = P.cstep = lower_i64(L, 1);
        len = pnd_dims(L, n->b, P.nd, dims);
        if (!len)
            return false;
    } else {
        LLVMValueRef range = lower_range_value(L, n->b);
        if (!range)
            return false;
        start = LLVMBuildExtractValue(L->b, range, 0, "start");
        LLVMValueRef stop = LLVMBuildExtractValue(L->b, range, 1, "stop");
        step = LLVMBuildExtractValue(L->b, range, 2, "step");
        len = lower_range_len(L, start, stop, step);
        P.cstart = range_const(range, 0);
        P.cstep = range_const(range, 2);
    }
    lower_temps_release(L, mark);

    LLVMValueRef bodyfn = outline_body(L, &P);
    if (!bodyfn)
        return false;

    LLVMValueRef ctx = lower_alloca(L, P.ctx_ty, "par.ctx");
    LLVMValueRef flag = lower_alloca(L, L->t_i8, "par.last");
    LLVMBuildStore(L->b, LLVMConstInt(L->t_i8, 0, 0), flag);
    LLVMBuildStore(L->b, start, field_ptr(L, &P, ctx, CTX_START));
    LLVMBuildStore(L->b, step, field_ptr(L, &P, ctx, CTX_STEP));
    LLVMBuildStore(L->b, len, field_ptr(L, &P, ctx, CTX_LEN));
    LLVMBuildStore(L->b, flag, field_ptr(L, &P, ctx, CTX_FLAG));
    for (int d = 0; d < P.nd; d++)
        LLVMBuildStore(L->b, dims[d], field_ptr(L, &P, ctx, P.dims_base + d));
    for (int i = 0; i < P.nvars; i++) {
        Var *v = P.vars[i];
        LLVMValueRef f = field_ptr(L, &P, ctx, CTX_VARS + i);
        if (by_pointer(v->ty))
            LLVMBuildStore(L->b, (LLVMValueRef)v->slot, f);
        else
            LLVMBuildStore(L->b, lower_load(L, lower_type(L, v->ty), (LLVMValueRef)v->slot, ""), f);
    }
    LLVMValueRef *outs = arena_alloc(a, sizeof(LLVMValueRef) * (size_t)(p->written.len + 1));
    for (int w = 0; w < p->written.len; w++) {
        Var *v = VEC_AT(p->written, w);
        outs[w] = NULL;
        if (!v->slot)
            continue;
        outs[w] = lower_alloca(L, lower_type(L, v->ty), "par.out");
        LLVMBuildStore(L->b, outs[w], field_ptr(L, &P, ctx, P.written_base + w));
    }

    /* partials: one slot per thread, or per block in deterministic mode */
    bool det = p->deterministic && p->nreds > 0;
    LLVMValueRef nslots = NULL, mi = NULL, parts = LLVMConstNull(L->t_ptr);
    if (p->nreds > 0) {
        if (det) {
            nslots = LLVMBuildSDiv(L->b, LLVMBuildAdd(L->b, len, lower_i64(L, PAR_DET_BLOCK - 1), ""),
                                   lower_i64(L, PAR_DET_BLOCK), "nblocks");
        } else {
            LLVMValueRef nt = lower_rt(L, "pool_get_num_threads", L->t_i32, NULL, 0, NULL);
            nslots = LLVMBuildSExt(L->b, nt, L->t_i64, "nthreads");
        }
        LLVMValueRef bytes = LLVMBuildMul(L->b, nslots, lower_i64(L, (int64_t)p->nreds * PART_STRIDE), "");
        LLVMTypeRef pi = L->t_i64;
        mi = lower_rt(L, "rt_alloc_zeroed", L->t_ptr, &pi, 1, &bytes); /* array slots start NULL */
        LLVMBasicBlockRef ok = lower_branch_raise(L, LLVMBuildIsNull(L->b, mi, ""), "par.nomem");
        lower_goto_error(L);
        lower_at(L, ok);
        LLVMValueRef dp = LLVMBuildStructGEP2(L->b, L->t_meminfo, mi, 1, "");
        parts = lower_load(L, L->t_ptr, dp, "partials");
        if (!det) {
            CLoop c;
            LLVMValueRef k = loop_begin(L, &c, lower_i64(L, 0), nslots, lower_i64(L, 1));
            for (int r = 0; r < p->nreds; r++) {
                Var *v = p->reds[r].var;
                LLVMValueRef pp = partial_ptr(L, parts, k, p->nreds, r);
                if (!is_arr(&p->reds[r])) {
                    LLVMBuildStore(L->b, identity(L, v->ty, p->reds[r].op), pp);
                    continue;
                }
                LLVMValueRef acc = lower_load(L, lower_type(L, v->ty), (LLVMValueRef)v->slot, "acc");
                LLVMValueRef pa = new_partial(L, v->ty, p->reds[r].op, acc);
                LLVMBasicBlockRef ok2 = lower_branch_raise(L, LLVMBuildIsNull(L->b, pa, ""), "par.nomem");
                release_partials(L, p, parts, nslots, mi);
                lower_goto_error(L);
                lower_at(L, ok2);
                LLVMBuildStore(L->b, pa, pp);
            }
            loop_end(L, &c);
        }
    }
    LLVMBuildStore(L->b, parts, field_ptr(L, &P, ctx, CTX_PARTIALS));

    LLVMTypeRef pt[4] = {L->t_i64, L->t_ptr, L->t_ptr, L->t_i32};
    LLVMValueRef args[4] = {det ? nslots : len, bodyfn, ctx, lower_i32(L, p->dynamic ? 1 : 0)};
    LLVMValueRef gil = lower_objmode_unlock(L); /* objmode blocks on the pool (lower_objmode.c) */
    LLVMValueRef status = lower_rt(L, "rt_parallel_for", L->t_i32, pt, 4, args);
    lower_objmode_relock(L, gil);

    /* lastprivate values move into the variables (also on failure: the
     * variables' owner releases them) */
    if (p->written.len) {
        LLVMValueRef set = LLVMBuildICmp(L->b, LLVMIntNE, lower_load(L, L->t_i8, flag, ""),
                                         LLVMConstInt(L->t_i8, 0, 0), "");
        LLVMBasicBlockRef cp = lower_block(L, "par.copyout");
        LLVMBasicBlockRef done = lower_block(L, "par.copied");
        LLVMBuildCondBr(L->b, set, cp, done);
        lower_at(L, cp);
        for (int w = 0; w < p->written.len; w++) {
            Var *v = VEC_AT(p->written, w);
            if (!outs[w])
                continue;
            LLVMValueRef x = lower_load(L, lower_type(L, v->ty), outs[w], "");
            lower_store_var(L, n, v, x, v->ty, true);
        }
        LLVMBuildBr(L->b, done);
        lower_at(L, done);
    }

    if (p->nreds > 0) {
        LLVMBasicBlockRef comb = lower_block(L, "par.combine");
        LLVMBasicBlockRef freeb = lower_block(L, "par.free");
        LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, status, lower_i32(L, 0), ""), comb, freeb);
        lower_at(L, comb);
        if (det) {
            /* pairwise tree: p[k] op= p[k + s] for s = 1, 2, 4, ... */
            LLVMValueRef sslot = lower_alloca(L, L->t_i64, "s");
            LLVMBuildStore(L->b, lower_i64(L, 1), sslot);
            LLVMBasicBlockRef shead = lower_block(L, "tree.s");
            LLVMBasicBlockRef sbody = lower_block(L, "tree.sbody");
            LLVMBasicBlockRef send = lower_block(L, "tree.send");
            LLVMBuildBr(L->b, shead);
            lower_at(L, shead);
            LLVMValueRef sv = lower_load(L, L->t_i64, sslot, "s");
            LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, sv, nslots, ""), sbody, send);
            lower_at(L, sbody);
            LLVMValueRef lim = LLVMBuildSub(L->b, nslots, sv, "");
            CLoop c;
            LLVMValueRef k = loop_begin(L, &c, lower_i64(L, 0), lim, LLVMBuildShl(L->b, sv, lower_i64(L, 1), ""));
            LLVMValueRef k2 = LLVMBuildAdd(L->b, k, sv, "");
            for (int r = 0; r < p->nreds; r++) {
                Var *v = p->reds[r].var;
                Type *t = v->ty;
                LLVMValueRef pa = partial_ptr(L, parts, k, p->nreds, r);
                LLVMValueRef pb = partial_ptr(L, parts, k2, p->nreds, r);
                if (is_arr(&p->reds[r])) {
                    LLVMValueRef acc = lower_load(L, lower_type(L, t), (LLVMValueRef)v->slot, "acc");
                    array_fold(L, n, t, p->reds[r].op, array_over(L, t, acc, lower_load(L, L->t_ptr, pa, "")),
                               array_over(L, t, acc, lower_load(L, L->t_ptr, pb, "")));
                    continue;
                }
                LLVMTypeRef lt = lower_type(L, t);
                LLVMValueRef x = combine(L, n, t, p->reds[r].op, lower_load(L, lt, pa, ""), lower_load(L, lt, pb, ""));
                LLVMBuildStore(L->b, x, pa);
            }
            loop_end(L, &c);
            LLVMBuildStore(L->b, LLVMBuildShl(L->b, sv, lower_i64(L, 1), ""), sslot);
            LLVMBuildBr(L->b, shead);
            lower_at(L, send);
            LLVMBasicBlockRef fold = lower_block(L, "tree.fold");
            LLVMBasicBlockRef fdone = lower_block(L, "tree.done");
            LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSGT, nslots, lower_i64(L, 0), ""), fold, fdone);
            lower_at(L, fold);
            for (int r = 0; r < p->nreds; r++)
                fold_into_var(L, n, &p->reds[r], parts, lower_i64(L, 0), p->nreds, r);
            LLVMBuildBr(L->b, fdone);
            lower_at(L, fdone);
        } else {
            /* thread-id order */
            CLoop c;
            LLVMValueRef k = loop_begin(L, &c, lower_i64(L, 0), nslots, lower_i64(L, 1));
            for (int r = 0; r < p->nreds; r++)
                fold_into_var(L, n, &p->reds[r], parts, k, p->nreds, r);
            loop_end(L, &c);
        }
        LLVMBuildBr(L->b, freeb);
        lower_at(L, freeb);
        release_partials(L, p, parts, nslots, mi);
    }
    lower_check_status(L, status);

    if (n->orelse.len && !lower_body(L, &n->orelse))
        return false;
    return !lower_failed(L);
}

/* ---- library loops on the pool ----------------------------------------------
 * Array expressions and whole-array reductions of parallel=True functions
 * (lower_arrayexpr.c, lower_np.c) run their outer loop through one helper:
 * the values the loop needs travel by value in a context struct, the loop
 * itself is emitted by a callback into `i32 body(ptr ctx, i64 begin, i64 end,
 * i32 tid)`, and rt_parallel_for_grain runs it on at most n / grain threads. */

bool lower_par_library(Lower *L) {
    return L->spec && L->spec->hf && L->spec->hf->options.parallel && L->par_depth == 0;
}

bool lower_par_range(Lower *L, const char *what, LLVMValueRef n, LLVMValueRef grain, int nvals, LLVMValueRef *vals,
                     LowerParEmit emit, void *arg) {
    Spec *s = L->spec;
    Arena *a = &L->c->arena;
    LLVMTypeRef *ft = arena_alloc(a, sizeof(LLVMTypeRef) * (size_t)(nvals + 1));
    for (int i = 0; i < nvals; i++)
        ft[i] = LLVMTypeOf(vals[i]);
    LLVMTypeRef cty = LLVMStructTypeInContext(L->ctx, ft, (unsigned)nvals, 0);

    SavedFn sv = {L->fn, L->retptr, L->status, L->entry_bb, L->exit_bb, L->temps, L->temp_tys, L->borrowed, NULL};
    int saved_loops = L->nloops;
    LLVMBasicBlockRef caller_bb = LLVMGetInsertBlock(L->b);
    LLVMTypeRef params[4] = {L->t_ptr, L->t_i64, L->t_i64, L->t_i32};
    char *name = arena_printf(a, "%s.%s.%d", s->symbol ? s->symbol : "f", what, L->nstrings++);
    LLVMValueRef fn = LLVMAddFunction(L->mod, name, LLVMFunctionType(L->t_i32, params, 4, 0));
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    L->fn = fn;
    L->retptr = LLVMConstNull(L->t_ptr);
    L->temps = (PtrVec){0};
    L->temp_tys = (PtrVec){0};
    L->borrowed = (PtrVec){0};
    L->nloops = 0;
    L->par_depth++;
    L->entry_bb = lower_block(L, "entry");
    lower_at(L, L->entry_bb);
    L->status = LLVMBuildAlloca(L->b, L->t_i32, "status");
    LLVMBuildStore(L->b, lower_i32(L, 0), L->status);
    L->exit_bb = lower_block(L, "exit");
    LLVMValueRef ctx = LLVMGetParam(fn, 0);
    LLVMValueRef *in = arena_alloc(a, sizeof(LLVMValueRef) * (size_t)(nvals + 1));
    for (int i = 0; i < nvals; i++)
        in[i] = lower_load(L, ft[i], LLVMBuildStructGEP2(L->b, cty, ctx, (unsigned)i, ""), "");
    bool ok = emit(L, arg, in, LLVMGetParam(fn, 1), LLVMGetParam(fn, 2));
    if (ok) {
        if (!lower_terminated(L))
            LLVMBuildBr(L->b, L->exit_bb);
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
            if (!LLVMGetBasicBlockTerminator(bb) && bb != L->exit_bb) {
                lower_at(L, bb);
                LLVMBuildUnreachable(L->b);
            }
        LLVMMoveBasicBlockAfter(L->exit_bb, LLVMGetLastBasicBlock(fn));
        lower_at(L, L->exit_bb);
        LLVMBuildRet(L->b, lower_load(L, L->t_i32, L->status, "status"));
    }
    L->par_depth--;
    L->nloops = saved_loops;
    L->fn = sv.fn, L->retptr = sv.retptr, L->status = sv.status;
    L->entry_bb = sv.entry_bb, L->exit_bb = sv.exit_bb;
    L->temps = sv.temps, L->temp_tys = sv.temp_tys, L->borrowed = sv.borrowed;
    lower_at(L, caller_bb);
    if (!ok || lower_failed(L))
        return false;

    LLVMValueRef cv = lower_alloca(L, cty, "par.lib");
    for (int i = 0; i < nvals; i++)
        LLVMBuildStore(L->b, vals[i], LLVMBuildStructGEP2(L->b, cty, cv, (unsigned)i, ""));
    LLVMTypeRef pt[4] = {L->t_i64, L->t_ptr, L->t_ptr, L->t_i64};
    LLVMValueRef args[4] = {n, fn, cv, grain};
    lower_check_status(L, lower_rt(L, "rt_parallel_for_grain", L->t_i32, pt, 4, args));
    return true;
}

/* ---- for lower_mpi.c (distributed loops combine across ranks the same way) ---- */

LLVMValueRef lower_par_identity(Lower *L, Type *t, int op) { return identity(L, t, (ParRedOp)op); }

LLVMValueRef lower_par_combine(Lower *L, const Node *at, Type *t, int op, LLVMValueRef a, LLVMValueRef b) {
    return combine(L, at, t, (ParRedOp)op, a, b);
}
