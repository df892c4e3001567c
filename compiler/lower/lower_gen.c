/* lower_gen.c - generator objects (TY_GENERATOR, hpcjit/generator.h).
 *
 * A generator function called anywhere but as the iterable of a for loop
 * (which inlines it, lower.c gen_loop) is a Spec with is_gen: its function
 * is an LLVM switch-resumed coroutine ("presplitcoroutine"), so that
 * LLVM's coroutine passes (coro-early/split/cleanup, in every pipeline of
 * the pass builder, -O0 included) keep the locals live across the yields in
 * the coroutine frame.  The function keeps the internal calling convention
 * ({i32 status, ptr}): it allocates the generator block (rt_gen_new: the
 * HjGenerator header, the value slot, then the frame), takes its own
 * references to the arguments and suspends before the body, returning the
 * new object.  Each resume (rt_gen_next, through the module's C-convention
 * trampoline) runs the body to the next yield, which stores the value
 * (owned) into the slot and suspends with status READY, or to the exit,
 * which releases the variables as any function does, records DONE or
 * ERROR and suspends for the last time.  Destroying the frame of a body
 * suspended at a yield (the object's last reference went) releases the
 * temporaries live at that yield and the variables. */
#include "lower.h"

#include <string.h>

#include "hpcjit/generator.h"

enum { GH_RESUME, GH_DESTROY, GH_FRAME, GH_VALUE, GH_STATUS, GH_SLOT };

/* ORDER: HjGenerator (hpcjit/generator.h), then the value slot. */
static LLVMTypeRef header_type(Lower *L, Type *item) {
    LLVMTypeRef f[6] = {L->t_ptr, L->t_ptr, L->t_ptr, L->t_ptr, L->t_i32, lower_mem_type(L, item)};
    return LLVMStructTypeInContext(L->ctx, f, 6, 0);
}

static LLVMValueRef coro_call(Lower *L, const char *name, LLVMTypeRef *tys, unsigned ntys, LLVMValueRef *args,
                              unsigned n) {
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(L->mod, id, tys, ntys);
    LLVMTypeRef fnty = LLVMIntrinsicGetType(L->ctx, id, tys, ntys);
    return LLVMBuildCall2(L->b, fnty, fn, args, n, "");
}

/* void @name(ptr frame): llvm.coro.resume / llvm.coro.destroy for C
 * callers (the runtime), one of each per module. */
static LLVMValueRef trampoline(Lower *L, const char *name, const char *intrinsic) {
    LLVMValueRef fn = LLVMGetNamedFunction(L->mod, name);
    if (fn)
        return fn;
    LLVMTypeRef p = L->t_ptr;
    fn = LLVMAddFunction(L->mod, name, LLVMFunctionType(L->t_void, &p, 1, 0));
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    LLVMBasicBlockRef saved = LLVMGetInsertBlock(L->b);
    LLVMPositionBuilderAtEnd(L->b, LLVMAppendBasicBlockInContext(L->ctx, fn, "entry"));
    LLVMValueRef f = LLVMGetParam(fn, 0);
    coro_call(L, intrinsic, NULL, 0, &f, 1);
    LLVMBuildRetVoid(L->b);
    LLVMPositionBuilderAtEnd(L->b, saved);
    return fn;
}

static LLVMValueRef token_none(Lower *L) { return LLVMConstNull(LLVMTokenTypeInContext(L->ctx)); }

/* Suspend; resumed: continue at `resume`; destroyed: at `destroy`. */
static void suspend(Lower *L, bool final, LLVMBasicBlockRef resume, LLVMBasicBlockRef destroy) {
    LLVMValueRef a[2] = {token_none(L), LLVMConstInt(L->t_i1, final, 0)};
    LLVMValueRef s = coro_call(L, "llvm.coro.suspend", NULL, 0, a, 2);
    LLVMValueRef sw = LLVMBuildSwitch(L->b, s, L->gen_ret, 2);
    LLVMAddCase(sw, LLVMConstInt(L->t_i8, 0, 0), resume);
    LLVMAddCase(sw, LLVMConstInt(L->t_i8, 1, 0), destroy);
}

static LLVMValueRef header_field(Lower *L, LLVMValueRef hdr, unsigned k) {
    return LLVMBuildStructGEP2(L->b, L->gen_hdr_ty, hdr, k, "");
}

static void set_status(Lower *L, LLVMValueRef v) {
    LLVMBuildStore(L->b, v, header_field(L, L->gen_hdr, GH_STATUS));
}

bool lower_gen_begin(Lower *L, Spec *s) {
    Type *item = s->yield_ty;
    L->gen_hdr_ty = header_type(L, item);
    LLVMValueRef fn = L->fn;
    unsigned k = LLVMGetEnumAttributeKindForName("presplitcoroutine", 17);
    LLVMAddAttributeAtIndex(fn, (unsigned)LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(L->ctx, k, 0));
    /* never inlined: the object escapes anyway, and the ramp's allocation
     * must not be elided into a caller's frame */
    k = LLVMGetEnumAttributeKindForName("noinline", 8);
    LLVMAddAttributeAtIndex(fn, (unsigned)LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(L->ctx, k, 0));

    LLVMValueRef nul = LLVMConstNull(L->t_ptr);
    LLVMValueRef ida[4] = {lower_i32(L, 0), nul, nul, nul};
    LLVMValueRef id = coro_call(L, "llvm.coro.id", NULL, 0, ida, 4);
    LLVMValueRef fsize = coro_call(L, "llvm.coro.size", &L->t_i64, 1, NULL, 0);
    /* the frame starts at the header's size rounded up to 64 bytes */
    LLVMValueRef hsize = LLVMBuildPtrToInt(
        L->b, LLVMBuildGEP2(L->b, L->gen_hdr_ty, nul, (LLVMValueRef[]){lower_i64(L, 1)}, 1, ""), L->t_i64, "");
    LLVMValueRef off = LLVMBuildAnd(L->b, LLVMBuildAdd(L->b, hsize, lower_i64(L, 63), ""), lower_i64(L, ~(int64_t)63),
                                    "frame.off");
    LLVMValueRef total = LLVMBuildAdd(L->b, off, fsize, "");
    LLVMTypeRef pt = L->t_i64;
    LLVMValueRef mi = lower_rt(L, "rt_gen_new", L->t_ptr, &pt, 1, &total);
    LLVMBasicBlockRef nomem = lower_block(L, "gen.nomem"), made = lower_block(L, "gen.made");
    LLVMBuildCondBr(L->b, LLVMBuildIsNull(L->b, mi, ""), nomem, made);
    lower_at(L, nomem);
    LLVMTypeRef rm[2] = {L->t_i32, L->t_ptr};
    LLVMValueRef r = LLVMGetUndef(LLVMStructTypeInContext(L->ctx, rm, 2, 0));
    r = LLVMBuildInsertValue(L->b, r, lower_i32(L, -1), 0, "");
    r = LLVMBuildInsertValue(L->b, r, nul, 1, "");
    LLVMBuildRet(L->b, r);
    lower_at(L, made);
    LLVMValueRef hdr = lower_load(L, L->t_ptr, LLVMBuildStructGEP2(L->b, L->t_meminfo, mi, 1, ""), "gen.hdr");
    LLVMValueRef frame = LLVMBuildGEP2(L->b, L->t_i8, hdr, &off, 1, "frame");
    LLVMValueRef ba[2] = {id, frame};
    LLVMValueRef hdl = coro_call(L, "llvm.coro.begin", NULL, 0, ba, 2);
    L->gen_hdr = hdr;
    L->gen_mi = mi;
    L->gen_hdl = hdl;
    LLVMBuildStore(L->b, trampoline(L, "hj_gen_resume", "llvm.coro.resume"), header_field(L, hdr, GH_RESUME));
    LLVMBuildStore(L->b, trampoline(L, "hj_gen_destroy", "llvm.coro.destroy"), header_field(L, hdr, GH_DESTROY));
    LLVMBuildStore(L->b, hdl, header_field(L, hdr, GH_FRAME));
    LLVMBuildStore(L->b, header_field(L, hdr, GH_SLOT), header_field(L, hdr, GH_VALUE));
    LLVMBasicBlockRef here = LLVMGetInsertBlock(L->b);

    /* every suspension's way out: the ramp returns the object, the
     * resume and destroy clones return */
    L->gen_ret = lower_block(L, "gen.suspend");
    lower_at(L, L->gen_ret);
    LLVMValueRef ea[3] = {hdl, LLVMConstInt(L->t_i1, 0, 0), token_none(L)};
    coro_call(L, "llvm.coro.end", NULL, 0, ea, 3);
    r = LLVMGetUndef(LLVMStructTypeInContext(L->ctx, rm, 2, 0));
    r = LLVMBuildInsertValue(L->b, r, lower_i32(L, 0), 0, "");
    r = LLVMBuildInsertValue(L->b, r, mi, 1, "");
    LLVMBuildRet(L->b, r);
    /* destroyed while suspended before its end: release the variables
     * (the temporaries of the yield first, see lower_gen_yield) */
    L->gen_destroy = lower_block(L, "gen.destroy");
    lower_at(L, L->gen_destroy);
    for (int i = 0; i < s->vars.len; i++) {
        Var *v = VEC_AT(s->vars, i);
        if (v->slot && lower_has_refs(v->ty))
            lower_decref(L, lower_load(L, lower_type(L, v->ty), v->slot, ""), v->ty);
    }
    LLVMBuildBr(L->b, L->gen_ret);
    lower_at(L, here);
    return !lower_failed(L);
}

void lower_gen_start(Lower *L) {
    LLVMBasicBlockRef body = lower_block(L, "gen.body");
    suspend(L, false, body, L->gen_destroy);
    lower_at(L, body);
}

bool lower_gen_yield(Lower *L, Node *y) {
    Type *item = L->spec->yield_ty;
    int mark = lower_temps_mark(L);
    if (y->a) {
        LLVMValueRef v = lower_expr_owned(L, y->a);
        v = v ? lower_convert(L, y, v, y->a->ty, item) : NULL;
        if (!v)
            return false;
        LLVMBuildStore(L->b, lower_to_mem(L, v, item), header_field(L, L->gen_hdr, GH_SLOT));
    }
    lower_temps_release(L, mark);
    set_status(L, lower_i32(L, RT_GEN_READY));
    LLVMBasicBlockRef resume = lower_block(L, "gen.resume"), cleanup = lower_block(L, "gen.cleanup");
    suspend(L, false, resume, cleanup);
    lower_at(L, cleanup); /* destroyed here: what the enclosing loops hold */
    for (int i = L->temps.len - 1; i >= 0; i--)
        lower_decref(L, VEC_AT(L->temps, i), VEC_AT(L->temp_tys, i));
    LLVMBuildBr(L->b, L->gen_destroy);
    lower_at(L, resume);
    return !lower_failed(L);
}

void lower_gen_finish(Lower *L) {
    LLVMValueRef st = lower_load(L, L->t_i32, L->status, "status");
    LLVMValueRef ok = LLVMBuildICmp(L->b, LLVMIntEQ, st, lower_i32(L, 0), "");
    set_status(L, LLVMBuildSelect(L->b, ok, lower_i32(L, RT_GEN_DONE), lower_i32(L, RT_GEN_ERROR), ""));
    LLVMBasicBlockRef never = lower_block(L, "gen.over");
    suspend(L, true, never, L->gen_ret); /* destroyed at the end: nothing is left to release */
    lower_at(L, never);
    LLVMBuildUnreachable(L->b);
}

static LLVMValueRef next_status(Lower *L, LLVMValueRef g);

LLVMValueRef lower_gen_resume(Lower *L, LLVMValueRef g) {
    LLVMValueRef st = next_status(L, g);
    return LLVMBuildICmp(L->b, LLVMIntEQ, st, lower_i32(L, RT_GEN_READY), "gen.ready");
}

/* rt_gen_next(g): the status, after a branch to the error exit when the
 * body raised. */
static LLVMValueRef next_status(Lower *L, LLVMValueRef g) {
    /* rt_gen_next inline on its fast path (READY): the resume is then one
     * indirect call into the coroutine, without the runtime's call and the
     * trampoline's */
    LLVMTypeRef ht = header_type(L, ty_scalar(L->c->tc, TY_NONE)); /* the fields before the slot */
    LLVMValueRef hdr = lower_load(L, L->t_ptr, LLVMBuildStructGEP2(L->b, L->t_meminfo, g, 1, ""), "gen.hdr");
    LLVMValueRef stp = LLVMBuildStructGEP2(L->b, ht, hdr, GH_STATUS, "");
    LLVMValueRef st0 = lower_load(L, L->t_i32, stp, "gen.status");
    LLVMBasicBlockRef fast = lower_block(L, "gen.resume"), slow = lower_block(L, "gen.slow");
    LLVMBasicBlockRef join = lower_block(L, "gen.resumed");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, st0, lower_i32(L, RT_GEN_READY), ""), fast, slow);
    lower_at(L, fast);
    LLVMBuildStore(L->b, lower_i32(L, RT_GEN_RUNNING), stp);
    LLVMValueRef frame = lower_load(L, L->t_ptr, LLVMBuildStructGEP2(L->b, ht, hdr, GH_FRAME, ""), "frame");
    coro_call(L, "llvm.coro.resume", NULL, 0, &frame, 1);
    LLVMValueRef st1 = lower_load(L, L->t_i32, stp, "gen.status");
    LLVMValueRef raised = LLVMBuildICmp(L->b, LLVMIntEQ, st1, lower_i32(L, RT_GEN_ERROR), "");
    LLVMBuildStore(L->b, LLVMBuildSelect(L->b, raised, lower_i32(L, RT_GEN_DONE), st1, ""), stp);
    LLVMBasicBlockRef fast_end = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, join);
    lower_at(L, slow); /* exhausted, or resumed from its own body: the runtime's answer */
    LLVMTypeRef p = L->t_ptr;
    LLVMValueRef st2 = lower_rt(L, "rt_gen_next", L->t_i32, &p, 1, &g);
    LLVMBuildBr(L->b, join);
    lower_at(L, join);
    LLVMValueRef st = LLVMBuildPhi(L->b, L->t_i32, "gen.st");
    LLVMValueRef vals[2] = {st1, st2};
    LLVMBasicBlockRef bbs[2] = {fast_end, slow};
    LLVMAddIncoming(st, vals, bbs, 2);
    LLVMBasicBlockRef err = lower_block(L, "gen.raised"), ok = lower_block(L, "gen.next");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, st, lower_i32(L, 0), ""), err, ok);
    lower_at(L, err);
    lower_goto_error(L);
    lower_at(L, ok);
    return st;
}

/* The value the last resume of g stored (owned when it holds references). */
LLVMValueRef lower_gen_value(Lower *L, LLVMValueRef g, Type *item) {
    LLVMTypeRef ht = header_type(L, item);
    LLVMValueRef hdr = lower_load(L, L->t_ptr, LLVMBuildStructGEP2(L->b, L->t_meminfo, g, 1, ""), "gen.hdr");
    LLVMValueRef v = lower_load(L, lower_mem_type(L, item), LLVMBuildStructGEP2(L->b, ht, hdr, GH_SLOT, ""), "item");
    return lower_from_mem(L, v, item);
}

LLVMValueRef lower_gen_next(Lower *L, Node *n, bool *owned) {
    Node *gn = VEC_AT(n->args, 0);
    Node *dn = n->args.len > 1 ? VEC_AT(n->args, 1) : NULL;
    Type *item = gn->ty->item;
    LLVMValueRef g = lower_expr_use(L, gn);
    if (!g)
        return NULL;
    LLVMValueRef d = NULL;
    if (dn && !(d = lower_expr_owned(L, dn))) /* evaluated before the call, as in Python */
        return NULL;
    LLVMValueRef st = next_status(L, g);
    LLVMBasicBlockRef got = lower_block(L, "next.value"), end = lower_block(L, "next.end");
    LLVMBasicBlockRef over = lower_block(L, "next.stop");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, st, lower_i32(L, RT_GEN_READY), ""), got, over);
    lower_at(L, got);
    LLVMValueRef v = lower_convert(L, n, lower_gen_value(L, g, item), item, n->ty);
    if (!v)
        return NULL;
    if (d)
        lower_decref(L, d, n->ty);
    LLVMBasicBlockRef got_end = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, end);
    lower_at(L, over);
    if (!d) {
        LLVMTypeRef p[2] = {L->t_ptr, L->t_ptr};
        LLVMValueRef a[2] = {lower_cstr(L, "StopIteration"), LLVMConstNull(L->t_ptr)};
        lower_rt(L, "rt_raise", L->t_void, p, 2, a);
        lower_goto_error(L);
        lower_at(L, end);
        *owned = lower_has_refs(n->ty);
        return v;
    }
    LLVMBasicBlockRef over_end = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, end);
    lower_at(L, end);
    LLVMValueRef phi = LLVMBuildPhi(L->b, lower_type(L, n->ty), "next");
    LLVMValueRef vals[2] = {v, d};
    LLVMBasicBlockRef bbs[2] = {got_end, over_end};
    LLVMAddIncoming(phi, vals, bbs, 2);
    *owned = lower_has_refs(n->ty);
    return phi;
}

bool lower_gen_for(Lower *L, Node *n) {
    int mark = lower_temps_mark(L);
    Type *item = n->b->ty->item;
    LLVMValueRef g = lower_expr_use(L, n->b);
    if (!g)
        return false;
    if (L->nloops >= LOWER_MAX_LOOPS)
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "loops nested too deeply"), false;
    LLVMBasicBlockRef head = lower_block(L, "genfor.next"), body = lower_block(L, "genfor.body");
    LLVMBasicBlockRef els = n->orelse.len ? lower_block(L, "genfor.else") : NULL;
    LLVMBasicBlockRef end = lower_block(L, "genfor.end");
    LLVMBuildBr(L->b, head);
    lower_at(L, head);
    LLVMValueRef st = next_status(L, g);
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, st, lower_i32(L, RT_GEN_READY), ""), body,
                    els ? els : end);
    lower_at(L, body);
    if (!lower_assign(L, n->a, lower_gen_value(L, g, item), item, lower_has_refs(item)))
        return false;
    L->loops[L->nloops].brk = end;
    L->loops[L->nloops].cont = head;
    L->nloops++;
    bool ok = lower_body(L, &n->body);
    L->nloops--;
    if (!ok)
        return false;
    if (!lower_terminated(L))
        LLVMBuildBr(L->b, head);
    if (els) {
        lower_at(L, els);
        if (!lower_body(L, &n->orelse))
            return false;
        if (!lower_terminated(L))
            LLVMBuildBr(L->b, end);
    }
    lower_at(L, end);
    lower_temps_release(L, mark);
    return true;
}
