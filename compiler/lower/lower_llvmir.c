/* lower_llvmir.c - a call of a portable @intrinsic (CALL_LLVMIR).
 *
 * hpcjit.extending runs the intrinsic's codegen (llvmlite.ir builders) in
 * Python at compile time on a function of the signature's scalar types and
 * hands the module's text over as the stub's source (HJ_STUB_LLVMIR).  Here
 * that text is parsed into the compilation's context, linked into the
 * module once, made internal and always-inline, and called like any
 * function: after optimisation nothing of the call is left. */
#include "lower.h"

#include "hpcjit/compiler.h"

#include <llvm-c/IRReader.h>
#include <llvm-c/Linker.h>
#include <stdlib.h>
#include <string.h>

/* The function of stub hf in the module, parsed and linked on first use;
 * NULL with a diagnostic at n. */
static LLVMValueRef link_ir(Lower *L, Node *n, const HjFunction *hf) {
    const char *sym = hf->qualname;
    LLVMValueRef fn = LLVMGetNamedFunction(L->mod, sym);
    if (fn && LLVMCountBasicBlocks(fn))
        return fn;
    const char *src = hf->source ? hf->source : "";
    LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(src, strlen(src), sym);
    LLVMModuleRef m = NULL;
    char *err = NULL;
    /* LLVMParseIRInContext takes ownership of buf, also on failure */
    if (LLVMParseIRInContext(L->ctx, buf, &m, &err)) {
        lower_fail(L, n, HJ_DIAG_LOWERING, "@intrinsic %s: its code is not valid LLVM IR: %s", hf->name,
                   err ? err : "?");
        LLVMDisposeMessage(err);
        return NULL;
    }
    LLVMValueRef def = LLVMGetNamedFunction(m, sym);
    if (!def || !LLVMCountBasicBlocks(def)) {
        LLVMDisposeModule(m);
        return lower_fail(L, n, HJ_DIAG_LOWERING, "@intrinsic %s: its code defines no function %s",
                          hf->name, sym);
    }
    LLVMSetTarget(m, LLVMGetTarget(L->mod));
    LLVMSetDataLayout(m, LLVMGetDataLayoutStr(L->mod));
    /* LLVMLinkModules2 destroys m, also on failure */
    if (LLVMLinkModules2(L->mod, m))
        return lower_fail(L, n, HJ_DIAG_LOWERING, "@intrinsic %s: its code cannot be linked into "
                          "the module (a symbol it defines clashes)", hf->name);
    fn = LLVMGetNamedFunction(L->mod, sym);
    if (!fn)
        return lower_fail(L, n, HJ_DIAG_LOWERING, "@intrinsic %s: linking lost %s", hf->name, sym);
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    unsigned kind = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(L->ctx, kind, 0));
    return fn;
}

LLVMValueRef lower_llvmir_call(Lower *L, Node *n) {
    const HjFunction *hf = &L->c->req->funcs[n->cval.i];
    LLVMValueRef fn = link_ir(L, n, hf);
    if (!fn)
        return NULL;
    unsigned na = (unsigned)n->args.len;
    LLVMValueRef *args = na ? malloc(sizeof(LLVMValueRef) * na) : NULL;
    LLVMTypeRef *params = na ? malloc(sizeof(LLVMTypeRef) * na) : NULL;
    LLVMValueRef r = NULL;
    if (na && (!args || !params)) {
        r = lower_fail(L, n, HJ_DIAG_LOWERING, "out of memory");
        goto done;
    }
    for (unsigned i = 0; i < na; i++) {
        Node *e = VEC_AT(n->args, i);
        if (!(args[i] = lower_expr_use(L, e)))
            goto done;
        params[i] = lower_type(L, e->ty);
    }
    bool none = n->ty->kind == TY_NONE;
    LLVMTypeRef ret = none ? L->t_void : lower_type(L, n->ty);
    LLVMTypeRef fnty = LLVMFunctionType(ret, params, na, 0);
    /* the IR's own signature must be the one the typing gave */
    LLVMTypeRef have = LLVMGlobalGetValueType(fn);
    bool same = LLVMGetReturnType(have) == ret && LLVMCountParamTypes(have) == na;
    if (same && na) {
        LLVMTypeRef *hp = malloc(sizeof(LLVMTypeRef) * na);
        if (!hp) {
            r = lower_fail(L, n, HJ_DIAG_LOWERING, "out of memory");
            goto done;
        }
        LLVMGetParamTypes(have, hp);
        for (unsigned i = 0; i < na; i++)
            same = same && hp[i] == params[i];
        free(hp);
    }
    if (!same) {
        r = lower_fail(L, n, HJ_DIAG_LOWERING, "@intrinsic %s: its LLVM function's type does not match "
                       "its signature", hf->name);
        goto done;
    }
    r = lower_call(L, fnty, fn, args, na, "");
    if (none)
        r = LLVMConstNull(lower_type(L, n->ty));
done:
    free(args);
    free(params);
    return r;
}
