/* lower_objmode.c - a `with objmode(...)` block (CALL_PYCALL): the block
 * is a Python function (hpcjit.objmode_blocks) that compiled code calls
 * through the runtime:
 *     int32_t rt_objmode_call(int64_t handle, const char *in_tc, void *in,
 *                             const char *out_tc, void *out)
 * with the inputs stored as one tuple in the abi.h layout (the call takes
 * over a reference to each: they are increfed here) and the outputs
 * unboxed into a tuple the result owns (hpcjit/objmode.h).
 *
 * A block inside a prange loop runs on the pool's threads, which take the
 * GIL: the thread that starts a parallel loop lets it go for the loop's
 * duration (rt_objmode_unlock / rt_objmode_relock around rt_parallel_for)
 * in any compilation that holds an objmode block. */
#include "lower.h"

#include "hpcjit/compiler.h"
#include "hpcjit/objmode.h"

#include <stdio.h>

LLVMValueRef lower_pycall(Lower *L, Node *n, bool *owned) {
    const HjFunction *hf = &L->c->req->funcs[n->cval.i];
    Type *inty = n->op_ty;
    if (!inty || inty->kind != TY_TUPLE || !hf->ret_typecode)
        return lower_fail(L, n, HJ_DIAG_LOWERING, "objmode block was not resolved by inference");
    StrBuf tc;
    sb_init(&tc);
    ty_typecode(&tc, inty);
    LLVMValueRef in_tc = lower_cstr(L, tc.s ? tc.s : "()");
    sb_free(&tc);

    int mark = lower_temps_mark(L);
    LLVMTypeRef in_mem = lower_mem_type(L, inty);
    LLVMValueRef in = LLVMGetUndef(in_mem);
    for (int i = 0; i < n->args.len; i++) {
        Node *e = VEC_AT(n->args, i);
        LLVMValueRef v = lower_expr_use(L, e);
        if (!v)
            return NULL;
        v = lower_convert(L, e, v, e->ty, inty->elems[i]);
        if (!v)
            return NULL;
        lower_incref(L, v, inty->elems[i]); /* rt_objmode_call takes it over */
        in = LLVMBuildInsertValue(L->b, in, lower_to_mem(L, v, inty->elems[i]), (unsigned)i, "objmode.in");
    }
    LLVMValueRef inp = lower_alloca(L, in_mem, "objmode.in");
    LLVMBuildStore(L->b, in, inp);
    LLVMTypeRef out_mem = lower_mem_type(L, n->ty);
    LLVMValueRef outp = lower_alloca(L, out_mem, "objmode.out");

    LLVMTypeRef params[5] = {L->t_i64, L->t_ptr, L->t_ptr, L->t_ptr, L->t_ptr};
    LLVMValueRef args[5] = {lower_i64(L, hf->handle), in_tc, inp, lower_cstr(L, hf->ret_typecode), outp};
    LLVMValueRef st = lower_rt(L, "rt_objmode_call", L->t_i32, params, 5, args);
    lower_check_status(L, st);
    lower_temps_release(L, mark);
    LLVMValueRef r = lower_load(L, out_mem, outp, "objmode.out");
    *owned = lower_has_refs(n->ty);
    return lower_from_mem(L, r, n->ty);
}

/* CPython's operation `handle` (RT_OBJMODE_REPR, RT_OBJMODE_INVERT of
 * hpcjit/objmode.h) on the value v of type vt, through the objmode hook:
 * v is boxed as Python boxes it (an IntEnum member as the member), the
 * result unboxed as rt.  For what compiled code cannot know: an IntEnum
 * member's repr (its class's names), ~ of an IntFlag member (its class's
 * bits, CPython's boundary rules). */
LLVMValueRef lower_pyop(Lower *L, const Node *n, int64_t handle, LLVMValueRef v, Type *vt, Type *rt) {
    if (L->device)
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "%s of an IntEnum/IntFlag member is not supported in CUDA "
                          "kernels (it asks the Python interpreter)", handle == RT_OBJMODE_REPR ? "repr()" : "'~'");
    Type *inty = ty_tuple(L->c->tc, &vt, 1), *outty = ty_tuple(L->c->tc, &rt, 1);
    StrBuf tc;
    sb_init(&tc);
    ty_typecode(&tc, inty);
    LLVMValueRef in_tc = lower_cstr(L, tc.s ? tc.s : "()");
    sb_free(&tc);
    sb_init(&tc);
    ty_typecode(&tc, outty);
    LLVMValueRef out_tc = lower_cstr(L, tc.s ? tc.s : "()");
    sb_free(&tc);
    if (!v)
        return NULL;
    LLVMTypeRef in_mem = lower_mem_type(L, inty), out_mem = lower_mem_type(L, outty);
    lower_incref(L, v, vt); /* rt_objmode_call takes it over */
    LLVMValueRef in = LLVMBuildInsertValue(L->b, LLVMGetUndef(in_mem), lower_to_mem(L, v, vt), 0, "pyop.in");
    LLVMValueRef inp = lower_alloca(L, in_mem, "pyop.in");
    LLVMBuildStore(L->b, in, inp);
    LLVMValueRef outp = lower_alloca(L, out_mem, "pyop.out");
    LLVMTypeRef params[5] = {L->t_i64, L->t_ptr, L->t_ptr, L->t_ptr, L->t_ptr};
    LLVMValueRef args[5] = {lower_i64(L, handle), in_tc, inp, out_tc, outp};
    LLVMValueRef st = lower_rt(L, "rt_objmode_call", L->t_i32, params, 5, args);
    lower_check_status(L, st);
    LLVMValueRef r = LLVMBuildExtractValue(L->b, lower_load(L, out_mem, outp, "pyop.out"), 0, "");
    return lower_from_mem(L, r, rt);
}

/* ~v of an IntFlag member of type t, as CPython computes it: v ^ bits,
 * bits being CPython's ~cls(0) (the class's bits: _all_bits_ under the KEEP
 * boundary, _flag_mask_ under the others), asked once per module and class
 * and kept in a global; a value with bits outside those (a KEEP
 * pseudo-member) asks CPython for ~v itself. */
LLVMValueRef lower_flag_invert(Lower *L, const Node *n, LLVMValueRef v, Type *t) {
    if (L->device || !v)
        return lower_pyop(L, n, RT_OBJMODE_INVERT, v, t, t); /* refused there */
    char name[48];
    snprintf(name, sizeof name, "hj.flagbits.%d", t->func);
    LLVMValueRef g = LLVMGetNamedGlobal(L->mod, name);
    if (!g) {
        g = LLVMAddGlobal(L->mod, L->t_i64, name);
        LLVMSetInitializer(g, lower_i64(L, -1)); /* not asked yet */
        LLVMSetLinkage(g, LLVMInternalLinkage);
    }
    LLVMValueRef bits = LLVMBuildLoad2(L->b, L->t_i64, g, "flagbits");
    LLVMSetOrdering(bits, LLVMAtomicOrderingMonotonic); /* threads may ask at once: the same value */
    LLVMSetAlignment(bits, 8);
    LLVMValueRef outside = LLVMBuildAnd(L->b, v, LLVMBuildNot(L->b, bits, ""), "");
    LLVMValueRef fast_ok = LLVMBuildAnd(L->b, LLVMBuildICmp(L->b, LLVMIntSGE, bits, lower_i64(L, 0), ""),
                                        LLVMBuildICmp(L->b, LLVMIntEQ, outside, lower_i64(L, 0), ""), "");
    LLVMBasicBlockRef fast = lower_block(L, "flaginv.fast"), slow = lower_block(L, "flaginv.ask"),
                      join = lower_block(L, "flaginv.join");
    LLVMBuildCondBr(L->b, fast_ok, fast, slow);
    lower_at(L, fast);
    LLVMValueRef r1 = LLVMBuildXor(L->b, v, bits, "invert");
    LLVMBuildBr(L->b, join);
    lower_at(L, slow);
    LLVMValueRef b2 = lower_pyop(L, n, RT_OBJMODE_INVERT, lower_i64(L, 0), t, t);
    if (!b2)
        return NULL;
    LLVMValueRef st = LLVMBuildStore(L->b, b2, g);
    LLVMSetOrdering(st, LLVMAtomicOrderingMonotonic);
    LLVMSetAlignment(st, 8);
    LLVMValueRef r2 = lower_pyop(L, n, RT_OBJMODE_INVERT, v, t, t);
    if (!r2)
        return NULL;
    LLVMBasicBlockRef from2 = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, join);
    lower_at(L, join);
    LLVMValueRef phi = LLVMBuildPhi(L->b, L->t_i64, "invert");
    LLVMValueRef vals[2] = {r1, r2};
    LLVMBasicBlockRef from[2] = {fast, from2};
    LLVMAddIncoming(phi, vals, from, 2);
    return phi;
}

bool lower_objmode_used(Lower *L) {
    const HjRequest *req = L->c->req;
    if (L->c->uses_pyops)
        return true;
    for (int i = 0; i < req->nfuncs; i++)
        if (req->funcs[i].stub == HJ_STUB_PYCALL)
            return true;
    return false;
}

LLVMValueRef lower_objmode_unlock(Lower *L) {
    if (!lower_objmode_used(L))
        return NULL;
    return lower_rt(L, "rt_objmode_unlock", L->t_ptr, NULL, 0, NULL);
}

void lower_objmode_relock(Lower *L, LLVMValueRef token) {
    if (!token)
        return;
    LLVMTypeRef pt[1] = {L->t_ptr};
    LLVMValueRef args[1] = {token};
    lower_rt(L, "rt_objmode_relock", L->t_void, pt, 1, args);
}
