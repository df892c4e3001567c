/* lower_expr.c - expressions: constants, names, arithmetic with Python
 * semantics, comparisons, boolean operators, conditional expressions,
 * tuples and calls between specialisations. */
#include "lower.h"

#include "hpcjit/objmode.h"
#include "registry.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* ---- constants ---------------------------------------------------------- */

/* A bytes literal: a read-only uint8 array over a private constant, with
 * no meminfo (nothing to count or free), as a frozen global array. */
static LLVMValueRef bytes_const(Lower *L, const Cval *cv) {
    LLVMValueRef init = LLVMConstStringInContext(L->ctx, cv->s, (unsigned)cv->slen, 1);
    LLVMValueRef g = LLVMAddGlobal(L->mod, LLVMTypeOf(init), "bytes.const");
    LLVMSetInitializer(g, init);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
    Type *t = ty_bytes(L->c->tc, false);
    LLVMValueRef v = LLVMGetUndef(lower_type(L, t));
    LLVMTypeRef vt = LLVMArrayType2(L->t_i64, 1);
    v = LLVMBuildInsertValue(L->b, v, LLVMConstNull(L->t_ptr), ARR_MEMINFO, "");
    v = LLVMBuildInsertValue(L->b, v, LLVMConstNull(L->t_ptr), ARR_PARENT, "");
    v = LLVMBuildInsertValue(L->b, v, lower_i64(L, cv->slen), ARR_NITEMS, "");
    v = LLVMBuildInsertValue(L->b, v, lower_i64(L, 1), ARR_ITEMSIZE, "");
    v = LLVMBuildInsertValue(L->b, v, g, ARR_DATA, "");
    v = LLVMBuildInsertValue(L->b, v, LLVMBuildInsertValue(L->b, LLVMGetUndef(vt), lower_i64(L, cv->slen), 0, ""),
                             ARR_SHAPE, "");
    return LLVMBuildInsertValue(L->b, v, LLVMBuildInsertValue(L->b, LLVMGetUndef(vt), lower_i64(L, 1), 0, ""),
                                ARR_STRIDES, "bytes");
}

static LLVMValueRef const_value(Lower *L, const Node *at, Type *ty, const Cval *cv) {
    TyCtx *tc = L->c->tc;
    LLVMValueRef v;
    Type *from;
    switch (cv->kind) {
    case CVAL_INT:
        if (ty_is_int(ty))
            return LLVMConstInt(lower_type(L, ty), (unsigned long long)cv->i, ty_is_signed(ty));
        from = ty_scalar(tc, TY_INT64);
        v = LLVMConstInt(L->t_i64, (unsigned long long)cv->i, 1);
        break;
    case CVAL_BOOL:
        from = ty_scalar(tc, TY_BOOL);
        v = LLVMConstInt(L->t_i1, cv->i != 0, 0);
        break;
    case CVAL_FLOAT:
        if (ty_is_float(ty))
            return LLVMConstReal(lower_type(L, ty), cv->f);
        from = ty_scalar(tc, TY_FLOAT64);
        v = LLVMConstReal(L->t_f64, cv->f);
        break;
    case CVAL_COMPLEX: {
        from = ty_scalar(tc, TY_COMPLEX128);
        LLVMValueRef p[2] = {LLVMConstReal(L->t_f64, cv->f), LLVMConstReal(L->t_f64, cv->f_imag)};
        v = LLVMConstStructInContext(L->ctx, p, 2, 0);
        break;
    }
    case CVAL_NPDT: /* a datetime global's count (lower_type: i64) */
        return LLVMConstInt(lower_type(L, ty), (unsigned long long)cv->i, 1);
    case CVAL_STR:
        if (ty->kind == TY_STRING && !cv->is_bytes) /* a str value: an immortal literal */
            return lower_str_const(L, cv->s, cv->slen);
        if (ty->kind == TY_ARRAY && ty->bytes && cv->is_bytes)
            return bytes_const(L, cv);
        return LLVMConstNull(lower_type(L, ty));
    default:
        /* None, Ellipsis: no runtime value */
        return LLVMConstNull(lower_type(L, ty));
    }
    return lower_convert(L, at, v, from, ty);
}

/* ---- arithmetic ------------------------------------------------------------ */

static void raise_zerodiv_if(Lower *L, LLVMValueRef cond, const char *msg) {
    LLVMBasicBlockRef ok = lower_branch_raise(L, cond, "zerodiv");
    LLVMTypeRef p = L->t_ptr;
    LLVMValueRef m = lower_cstr(L, msg);
    lower_rt(L, "rt_raise_zerodiv", L->t_void, &p, 1, &m);
    lower_goto_error(L);
    lower_at(L, ok);
}

/* `name`(vt base, et exp) = base ** exp by repeated squaring for exp >= 0,
 * an internal function of the module made on first use: the integer power
 * (vt == et) and the float power with an int64 exponent (the loop of
 * Numba's int_power_impl: the same products in the same order, so the same
 * bits). */
static LLVMValueRef powi_fn(Lower *L, const char *name, LLVMTypeRef vt, LLVMTypeRef et, LLVMTypeRef *fnty) {
    LLVMTypeRef p[2] = {vt, et};
    *fnty = LLVMFunctionType(vt, p, 2, 0);
    LLVMValueRef fn = LLVMGetNamedFunction(L->mod, name);
    if (fn)
        return fn;
    bool fl = LLVMGetTypeKind(vt) != LLVMIntegerTypeKind;
    fn = LLVMAddFunction(L->mod, name, *fnty);
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(L->ctx);
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(L->ctx, fn, "entry");
    LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(L->ctx, fn, "loop");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, fn, "done");
    LLVMValueRef one = LLVMConstInt(et, 1, 0), zero = LLVMConstInt(et, 0, 0);
    LLVMValueRef vone = fl ? LLVMConstReal(vt, 1.0) : LLVMConstInt(vt, 1, 0);
    LLVMPositionBuilderAtEnd(b, entry);
    LLVMValueRef base0 = LLVMGetParam(fn, 0), exp0 = LLVMGetParam(fn, 1);
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, exp0, zero, ""), done, loop);
    LLVMPositionBuilderAtEnd(b, loop);
    LLVMValueRef r = LLVMBuildPhi(b, vt, "r"), base = LLVMBuildPhi(b, vt, "b"), e = LLVMBuildPhi(b, et, "e");
    LLVMValueRef odd = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, e, one, ""), zero, "");
    LLVMValueRef rb = fl ? LLVMBuildFMul(b, r, base, "") : LLVMBuildMul(b, r, base, "");
    LLVMValueRef r2 = LLVMBuildSelect(b, odd, rb, r, "");
    LLVMValueRef e2 = LLVMBuildLShr(b, e, one, "");
    LLVMValueRef b2 = fl ? LLVMBuildFMul(b, base, base, "") : LLVMBuildMul(b, base, base, "");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, e2, zero, ""), done, loop);
    LLVMValueRef in_r[2] = {vone, r2}, in_b[2] = {base0, b2}, in_e[2] = {exp0, e2};
    LLVMBasicBlockRef from[2] = {entry, loop};
    LLVMAddIncoming(r, in_r, from, 2);
    LLVMAddIncoming(base, in_b, from, 2);
    LLVMAddIncoming(e, in_e, from, 2);
    LLVMPositionBuilderAtEnd(b, done);
    LLVMValueRef res = LLVMBuildPhi(b, vt, "res");
    LLVMValueRef in_res[2] = {vone, r2};
    LLVMAddIncoming(res, in_res, from, 2);
    LLVMBuildRet(b, res);
    LLVMDisposeBuilder(b);
    return fn;
}

/* Integer power, one helper per width: iN @hj.ipow.iN(iN base, iN exp). */
static LLVMValueRef ipow_fn(Lower *L, LLVMTypeRef t, LLVMTypeRef *fnty) {
    char name[32];
    snprintf(name, sizeof name, "hj.ipow.i%u", LLVMGetIntTypeWidth(t));
    return powi_fn(L, name, t, t, fnty);
}

static LLVMValueRef int_pow(Lower *L, Type *t, LLVMValueRef a, LLVMValueRef b) {
    LLVMTypeRef lt = lower_type(L, t), fnty;
    LLVMValueRef fn = ipow_fn(L, lt, &fnty);
    LLVMValueRef zero = LLVMConstInt(lt, 0, 0), one = LLVMConstInt(lt, 1, 0);
    if (!ty_is_signed(t)) {
        LLVMValueRef args[2] = {a, b};
        return lower_call(L, fnty, fn, args, 2, "pow");
    }
    /* Numba: a negative exponent gives 1/(a**-e) in integers (0 unless
     * |a| == 1) and 0 ** negative raises ZeroDivisionError */
    LLVMValueRef neg = LLVMBuildICmp(L->b, LLVMIntSLT, b, zero, "");
    raise_zerodiv_if(L, LLVMBuildAnd(L->b, neg, LLVMBuildICmp(L->b, LLVMIntEQ, a, zero, ""), ""),
                     "0 cannot be raised to a negative power");
    LLVMValueRef args[2] = {a, LLVMBuildSelect(L->b, neg, zero, b, "")};
    LLVMValueRef p = lower_call(L, fnty, fn, args, 2, "pow");
    LLVMValueRef odd = LLVMBuildICmp(L->b, LLVMIntNE, LLVMBuildAnd(L->b, b, one, ""), zero, "");
    LLVMValueRef mone = LLVMConstAllOnes(lt);
    LLVMValueRef negres = LLVMBuildSelect(
        L->b, LLVMBuildICmp(L->b, LLVMIntEQ, a, one, ""), one,
        LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, a, mone, ""),
                        LLVMBuildSelect(L->b, odd, mone, one, ""), zero, ""),
        "");
    return LLVMBuildSelect(L->b, neg, negres, p, "pow");
}

static LLVMValueRef int_divmod(Lower *L, OpKind op, Type *t, LLVMValueRef a, LLVMValueRef b) {
    LLVMTypeRef lt = lower_type(L, t);
    LLVMValueRef zero = LLVMConstInt(lt, 0, 0), one = LLVMConstInt(lt, 1, 0);
    LLVMValueRef bzero = LLVMBuildICmp(L->b, LLVMIntEQ, b, zero, "");
    if (L->error_model == 0)
        raise_zerodiv_if(L, bzero, "integer division or modulo by zero");
    LLVMValueRef bs = b, res;
    if (L->error_model != 0)
        bs = LLVMBuildSelect(L->b, bzero, one, bs, "");
    long long bc = LLVMIsAConstantInt(b) ? LLVMConstIntGetSExtValue(b) : 0;
    unsigned long long ub = bc < 0 ? 0ULL - (unsigned long long)bc : (unsigned long long)bc;
    if (ty_is_signed(t) && bc != 0 && bc != LLONG_MIN && (ub & (ub - 1)) == 0) {
        /* a constant +-2^k: Python's floor forms are a shift and a mask,
         * branch-free and exact for every a (LLVM does not derive them
         * from the sdiv/srem form below) */
        unsigned k = 0;
        while ((1ULL << k) != ub)
            k++;
        LLVMValueRef sh = LLVMConstInt(lt, k, 0), mask = LLVMConstInt(lt, ub - 1, 0);
        LLVMValueRef r = LLVMBuildAnd(L->b, a, mask, "");
        if (bc > 0)
            return op == OP_FLOORDIV ? LLVMBuildAShr(L->b, a, sh, "floordiv") : r;
        /* a // -2^k == -ceil(a / 2^k); a % -2^k is r - 2^k unless r == 0 */
        LLVMValueRef inexact = LLVMBuildICmp(L->b, LLVMIntNE, r, zero, "");
        if (op == OP_FLOORDIV) {
            LLVMValueRef c = LLVMBuildAdd(L->b, LLVMBuildAShr(L->b, a, sh, ""),
                                          LLVMBuildZExt(L->b, inexact, lt, ""), "");
            return LLVMBuildSub(L->b, zero, c, "floordiv");
        }
        return LLVMBuildSelect(L->b, inexact, LLVMBuildAdd(L->b, r, b, ""), zero, "mod");
    }
    if (ty_is_signed(t)) {
        /* MIN // -1 traps in hardware: divide by 1 and negate instead */
        LLVMValueRef m1 = LLVMBuildICmp(L->b, LLVMIntEQ, b, LLVMConstAllOnes(lt), "");
        bs = LLVMBuildSelect(L->b, m1, one, bs, "");
        LLVMValueRef q = LLVMBuildSDiv(L->b, a, bs, "");
        LLVMValueRef r = LLVMBuildSRem(L->b, a, bs, "");
        q = LLVMBuildSelect(L->b, m1, LLVMBuildSub(L->b, zero, a, ""), q, "");
        /* floor: adjust when the division is inexact and a, b have
         * different signs (this form lets LLVM see that an exact
         * division by a power of two is a shift) */
        LLVMValueRef fix;
        if (bc != 0 && bc != LLONG_MIN && (bc & (bc - 1)) != 0 && (-bc & (-bc - 1)) != 0) {
            /* a constant that is not +-2^k: the remainder's sign alone
             * decides (one compare; LLVM does not derive it itself) */
            fix = LLVMBuildICmp(L->b, bc > 0 ? LLVMIntSLT : LLVMIntSGT, r, zero, "");
        } else {
            fix = LLVMBuildAnd(L->b, LLVMBuildICmp(L->b, LLVMIntNE, r, zero, ""),
                               LLVMBuildICmp(L->b, LLVMIntSLT, LLVMBuildXor(L->b, a, b, ""), zero, ""), "");
        }
        if (op == OP_FLOORDIV)
            res = LLVMBuildSub(L->b, q, LLVMBuildZExt(L->b, fix, lt, ""), "floordiv");
        else
            res = LLVMBuildAdd(L->b, r, LLVMBuildSelect(L->b, fix, b, zero, ""), "mod");
    } else {
        res = op == OP_FLOORDIV ? LLVMBuildUDiv(L->b, a, bs, "floordiv") : LLVMBuildURem(L->b, a, bs, "mod");
    }
    if (L->error_model != 0)
        res = LLVMBuildSelect(L->b, bzero, zero, res, ""); /* Numba: x // 0 == 0 */
    return res;
}

static LLVMValueRef fbin(Lower *L, LLVMOpcode op, LLVMValueRef a, LLVMValueRef b, const char *name) {
    return lower_fm(L, LLVMBuildBinOp(L->b, op, a, b, name));
}

static LLVMValueRef fcmp(Lower *L, LLVMRealPredicate p, LLVMValueRef a, LLVMValueRef b) {
    return lower_fm(L, LLVMBuildFCmp(L->b, p, a, b, ""));
}

/* The float power, one helper per float width: double @hj.fpowi.f64(double
 * base, i64 exp) for 0 <= exp <= 0x10000. */
static LLVMValueRef fpowi_fn(Lower *L, LLVMTypeRef ft, LLVMTypeRef *fnty) {
    return powi_fn(L, ft == L->t_f64 ? "hj.fpowi.f64" : "hj.fpowi.f32", ft, L->t_i64, fnty);
}

/* 1 / r for a negative exponent; r == 0 (0.0 ** -2, or a product that
 * underflowed) is Numba's ZeroDivisionError under the Python error model
 * (CPython's message for 0.0; inf under error_model='numpy'). */
static LLVMValueRef fpow_invert(Lower *L, LLVMValueRef r) {
    LLVMTypeRef ft = LLVMTypeOf(r);
    if (L->error_model == 0)
        raise_zerodiv_if(L, fcmp(L, LLVMRealOEQ, r, LLVMConstReal(ft, 0.0)), "0.0 cannot be raised to a negative power");
    return fbin(L, LLVMFDiv, LLVMConstReal(ft, 1.0), r, "fpow.inv");
}

/* float ** int (infer keeps the exponent an int64): Numba's
 * static_power_impl for a constant exponent (the products unrolled: x ** 3
 * is x * (x * x), no call to pow()) and int_power_impl otherwise (the loop
 * above); |exp| > 0x10000 takes pow(), as both do. */
LLVMValueRef lower_float_int_pow(Lower *L, Type *t, LLVMValueRef a, LLVMValueRef n) {
    LLVMTypeRef ft = lower_type(L, t);
    if (LLVMIsAConstantInt(n)) {
        long long e = LLVMConstIntGetSExtValue(n);
        if (e >= -0x10000 && e <= 0x10000) {
            unsigned long long u = e < 0 ? (unsigned long long)-e : (unsigned long long)e;
            LLVMValueRef r = NULL, v = a; /* r = 1: no product with 1.0 */
            while (u) {
                if (u & 1)
                    r = r ? fbin(L, LLVMFMul, r, v, "") : v;
                u >>= 1;
                if (u)
                    v = fbin(L, LLVMFMul, v, v, "");
            }
            if (!r)
                r = LLVMConstReal(ft, 1.0);
            return e < 0 ? fpow_invert(L, r) : r;
        }
    }
    LLVMValueRef zero = lower_i64(L, 0);
    LLVMValueRef neg = LLVMBuildICmp(L->b, LLVMIntSLT, n, zero, "");
    LLVMValueRef u = LLVMBuildSelect(L->b, neg, LLVMBuildNeg(L->b, n, ""), n, "");
    /* unsigned: -INT64_MIN stays 2**63, which is big too */
    LLVMValueRef big = LLVMBuildICmp(L->b, LLVMIntUGT, u, lower_i64(L, 0x10000), "");
    LLVMBasicBlockRef bb_big = lower_block(L, "fpow.big"), bb_sq = lower_block(L, "fpow.sq");
    LLVMBasicBlockRef bb_join = lower_block(L, "fpow.join");
    LLVMBuildCondBr(L->b, big, bb_big, bb_sq);
    lower_at(L, bb_big);
    /* Numba: math.pow(a, float(b)), in double */
    LLVMTypeRef dtys[1] = {L->t_f64};
    LLVMValueRef pargs[2] = {ft == L->t_f64 ? a : LLVMBuildFPExt(L->b, a, L->t_f64, ""),
                             LLVMBuildSIToFP(L->b, n, L->t_f64, "")};
    LLVMValueRef pbig = lower_intrinsic(L, "llvm.pow", dtys, 1, pargs, 2);
    if (ft != L->t_f64)
        pbig = LLVMBuildFPTrunc(L->b, pbig, ft, "");
    LLVMBasicBlockRef from_big = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, bb_join);
    lower_at(L, bb_sq);
    LLVMTypeRef fnty;
    LLVMValueRef fn = fpowi_fn(L, ft, &fnty);
    LLVMValueRef args[2] = {a, u};
    LLVMValueRef r = lower_call(L, fnty, fn, args, 2, "fpowi");
    LLVMBasicBlockRef bb_inv = lower_block(L, "fpow.inv"), from_sq = LLVMGetInsertBlock(L->b);
    LLVMBuildCondBr(L->b, neg, bb_inv, bb_join);
    lower_at(L, bb_inv);
    LLVMValueRef rinv = fpow_invert(L, r);
    LLVMBasicBlockRef from_inv = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, bb_join);
    lower_at(L, bb_join);
    LLVMValueRef phi = LLVMBuildPhi(L->b, ft, "fpow");
    LLVMValueRef in[3] = {pbig, r, rinv};
    LLVMBasicBlockRef bbs[3] = {from_big, from_sq, from_inv};
    LLVMAddIncoming(phi, in, bbs, 3);
    return phi;
}

/* Python's float floor division and modulo (Objects/floatobject.c). */
static LLVMValueRef float_divmod(Lower *L, OpKind op, LLVMValueRef vx, LLVMValueRef wx) {
    LLVMTypeRef ft = LLVMTypeOf(vx);
    LLVMValueRef zero = LLVMConstReal(ft, 0.0), one = LLVMConstReal(ft, 1.0);
    LLVMValueRef wzero = fcmp(L, LLVMRealOEQ, wx, zero);
    if (L->error_model == 0)
        raise_zerodiv_if(L, wzero, op == OP_FLOORDIV ? "float floor division by zero" : "float modulo");
    LLVMValueRef mod = fbin(L, LLVMFRem, vx, wx, "fmod");
    LLVMValueRef div = fbin(L, LLVMFDiv, fbin(L, LLVMFSub, vx, mod, ""), wx, "");
    LLVMValueRef modnz = fcmp(L, LLVMRealUNE, mod, zero);
    LLVMValueRef signs = LLVMBuildXor(L->b, fcmp(L, LLVMRealOLT, wx, zero), fcmp(L, LLVMRealOLT, mod, zero), "");
    LLVMValueRef adj = LLVMBuildAnd(L->b, modnz, signs, "");
    LLVMValueRef szero[2] = {zero, wx};
    LLVMTypeRef tys[1] = {ft};
    LLVMValueRef mod_z = lower_intrinsic(L, "llvm.copysign", tys, 1, szero, 2);
    LLVMValueRef mod2 = LLVMBuildSelect(L->b, modnz, LLVMBuildSelect(L->b, adj, fbin(L, LLVMFAdd, mod, wx, ""), mod, ""),
                                        mod_z, "mod");
    if (op == OP_MOD)
        return mod2; /* numpy model with w == 0: fmod gives nan, like Numba */
    div = LLVMBuildSelect(L->b, adj, fbin(L, LLVMFSub, div, one, ""), div, "");
    LLVMValueRef divnz = fcmp(L, LLVMRealUNE, div, zero);
    LLVMValueRef fl = lower_intrinsic(L, "llvm.floor", tys, 1, &div, 1);
    LLVMValueRef up = fcmp(L, LLVMRealOGT, fbin(L, LLVMFSub, div, fl, ""), LLVMConstReal(ft, 0.5));
    fl = LLVMBuildSelect(L->b, up, fbin(L, LLVMFAdd, fl, one, ""), fl, "");
    LLVMValueRef q[2] = {zero, fbin(L, LLVMFDiv, vx, wx, "")};
    LLVMValueRef fz = lower_intrinsic(L, "llvm.copysign", tys, 1, q, 2);
    LLVMValueRef res = LLVMBuildSelect(L->b, divnz, fl, fz, "floordiv");
    if (L->error_model != 0) /* Numba: x // 0.0 is x / 0.0 */
        res = LLVMBuildSelect(L->b, wzero, q[1], res, "");
    return res;
}

static LLVMValueRef complex_pow_general(Lower *L, Type *t, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c,
                                        LLVMValueRef d);

static LLVMValueRef complex_binop(Lower *L, const Node *at, OpKind op, Type *t, LLVMValueRef x, LLVMValueRef y) {
    LLVMValueRef a = LLVMBuildExtractValue(L->b, x, 0, "a"), b = LLVMBuildExtractValue(L->b, x, 1, "b");
    LLVMValueRef c = LLVMBuildExtractValue(L->b, y, 0, "c"), d = LLVMBuildExtractValue(L->b, y, 1, "d");
    LLVMValueRef re, im;
    switch (op) {
    case OP_ADD: re = fbin(L, LLVMFAdd, a, c, ""), im = fbin(L, LLVMFAdd, b, d, ""); break;
    case OP_SUB: re = fbin(L, LLVMFSub, a, c, ""), im = fbin(L, LLVMFSub, b, d, ""); break;
    case OP_MUL:
        re = fbin(L, LLVMFSub, fbin(L, LLVMFMul, a, c, ""), fbin(L, LLVMFMul, b, d, ""), "");
        im = fbin(L, LLVMFAdd, fbin(L, LLVMFMul, a, d, ""), fbin(L, LLVMFMul, b, c, ""), "");
        break;
    case OP_DIV: {
        /* CPython's _Py_c_quot (Smith's method) */
        LLVMTypeRef ft = LLVMTypeOf(a);
        LLVMTypeRef tys[1] = {ft};
        LLVMValueRef zero = LLVMConstReal(ft, 0.0);
        LLVMValueRef ac = lower_intrinsic(L, "llvm.fabs", tys, 1, &c, 1);
        LLVMValueRef ad = lower_intrinsic(L, "llvm.fabs", tys, 1, &d, 1);
        if (L->error_model == 0)
            raise_zerodiv_if(L, LLVMBuildAnd(L->b, fcmp(L, LLVMRealOEQ, c, zero), fcmp(L, LLVMRealOEQ, d, zero), ""),
                             "complex division by zero");
        LLVMValueRef big_re = fcmp(L, LLVMRealOGE, ac, ad);
        /* |c| >= |d| */
        LLVMValueRef r1 = fbin(L, LLVMFDiv, d, c, "");
        LLVMValueRef den1 = fbin(L, LLVMFAdd, c, fbin(L, LLVMFMul, d, r1, ""), "");
        LLVMValueRef re1 = fbin(L, LLVMFDiv, fbin(L, LLVMFAdd, a, fbin(L, LLVMFMul, b, r1, ""), ""), den1, "");
        LLVMValueRef im1 = fbin(L, LLVMFDiv, fbin(L, LLVMFSub, b, fbin(L, LLVMFMul, a, r1, ""), ""), den1, "");
        /* |d| > |c| */
        LLVMValueRef r2 = fbin(L, LLVMFDiv, c, d, "");
        LLVMValueRef den2 = fbin(L, LLVMFAdd, fbin(L, LLVMFMul, c, r2, ""), d, "");
        LLVMValueRef re2 = fbin(L, LLVMFDiv, fbin(L, LLVMFAdd, fbin(L, LLVMFMul, a, r2, ""), b, ""), den2, "");
        LLVMValueRef im2 = fbin(L, LLVMFDiv, fbin(L, LLVMFSub, fbin(L, LLVMFMul, b, r2, ""), a, ""), den2, "");
        re = LLVMBuildSelect(L->b, big_re, re1, re2, "");
        im = LLVMBuildSelect(L->b, big_re, im1, im2, "");
        break;
    }
    case OP_POW: {
        /* CPython's complex_pow: an integral exponent with |n| <= 100 is
         * raised by repeated squaring (c_powi), bit for bit CPython's
         * result and, for a constant such as z ** 2, a few products
         * instead of hypot/atan2/pow/cos/sin; other exponents take the
         * general path (_Py_c_pow) below */
        LLVMTypeRef ft = LLVMTypeOf(a);
        LLVMTypeRef ftys[1] = {ft};
        if (L->error_model == 0) {
            LLVMValueRef z = LLVMConstReal(ft, 0.0);
            LLVMValueRef bzero = LLVMBuildAnd(L->b, fcmp(L, LLVMRealOEQ, c, z), fcmp(L, LLVMRealOEQ, d, z), "");
            LLVMValueRef azero = LLVMBuildAnd(L->b, fcmp(L, LLVMRealOEQ, a, z), fcmp(L, LLVMRealOEQ, b, z), "");
            LLVMValueRef bad =
                LLVMBuildAnd(L->b, LLVMBuildAnd(L->b, azero, LLVMBuildNot(L->b, bzero, ""), ""),
                             LLVMBuildOr(L->b, fcmp(L, LLVMRealUNE, d, z), fcmp(L, LLVMRealOLT, c, z), ""), "");
            raise_zerodiv_if(L, bad, "0.0 to a negative or complex power");
        }
        LLVMValueRef fl = lower_intrinsic(L, "llvm.floor", ftys, 1, &c, 1);
        LLVMValueRef ac = lower_intrinsic(L, "llvm.fabs", ftys, 1, &c, 1);
        LLVMValueRef isint = LLVMBuildAnd(
            L->b, LLVMBuildAnd(L->b, fcmp(L, LLVMRealOEQ, d, LLVMConstReal(ft, 0.0)), fcmp(L, LLVMRealOEQ, c, fl), ""),
            fcmp(L, LLVMRealOLE, ac, LLVMConstReal(ft, 100.0)), "powi");
        LLVMBasicBlockRef bb_int = lower_block(L, "cpow.int"), bb_gen = lower_block(L, "cpow.gen");
        LLVMBasicBlockRef bb_join = lower_block(L, "cpow.join");
        LLVMBuildCondBr(L->b, isint, bb_int, bb_gen);
        lower_at(L, bb_int);
        LLVMValueRef n = LLVMBuildFPToSI(L->b, c, L->t_i64, "");
        LLVMValueRef nneg = LLVMBuildICmp(L->b, LLVMIntSLT, n, lower_i64(L, 0), "");
        LLVMValueRef un = LLVMBuildSelect(L->b, nneg, LLVMBuildNeg(L->b, n, ""), n, "");
        LLVMValueRef rr = LLVMConstReal(ft, 1.0), ri = LLVMConstReal(ft, 0.0), pr = a, pi = b;
        for (int k = 0; k < 7; k++) { /* 100 < 2^7 */
            LLVMValueRef bit = LLVMBuildICmp(
                L->b, LLVMIntNE, LLVMBuildAnd(L->b, un, lower_i64(L, 1LL << k), ""), lower_i64(L, 0), "");
            LLVMValueRef qr = fbin(L, LLVMFSub, fbin(L, LLVMFMul, rr, pr, ""), fbin(L, LLVMFMul, ri, pi, ""), "");
            LLVMValueRef qi = fbin(L, LLVMFAdd, fbin(L, LLVMFMul, rr, pi, ""), fbin(L, LLVMFMul, ri, pr, ""), "");
            rr = LLVMBuildSelect(L->b, bit, qr, rr, "");
            ri = LLVMBuildSelect(L->b, bit, qi, ri, "");
            LLVMValueRef sr = fbin(L, LLVMFSub, fbin(L, LLVMFMul, pr, pr, ""), fbin(L, LLVMFMul, pi, pi, ""), "");
            LLVMValueRef si = fbin(L, LLVMFAdd, fbin(L, LLVMFMul, pr, pi, ""), fbin(L, LLVMFMul, pi, pr, ""), "");
            pr = sr, pi = si;
        }
        LLVMValueRef pos = LLVMGetUndef(lower_type(L, t));
        pos = LLVMBuildInsertValue(L->b, LLVMBuildInsertValue(L->b, pos, rr, 0, ""), ri, 1, "");
        LLVMValueRef onec = LLVMGetUndef(lower_type(L, t));
        onec = LLVMBuildInsertValue(L->b, onec, LLVMConstReal(ft, 1.0), 0, "");
        onec = LLVMBuildInsertValue(L->b, onec, LLVMConstReal(ft, 0.0), 1, "");
        LLVMBasicBlockRef bb_neg = lower_block(L, "cpow.neg"), bb_intend = lower_block(L, "cpow.intend");
        LLVMBasicBlockRef from_pos = LLVMGetInsertBlock(L->b);
        LLVMBuildCondBr(L->b, nneg, bb_neg, bb_intend);
        lower_at(L, bb_neg); /* x ** -n == 1 / x ** n, as c_powi */
        LLVMValueRef inv = complex_binop(L, at, OP_DIV, t, onec, pos);
        if (!inv)
            return NULL;
        LLVMBasicBlockRef from_neg = LLVMGetInsertBlock(L->b);
        LLVMBuildBr(L->b, bb_intend);
        lower_at(L, bb_intend);
        LLVMValueRef ires = LLVMBuildPhi(L->b, lower_type(L, t), "");
        LLVMValueRef iv[2] = {pos, inv};
        LLVMBasicBlockRef ib[2] = {from_pos, from_neg};
        LLVMAddIncoming(ires, iv, ib, 2);
        LLVMBasicBlockRef from_int = LLVMGetInsertBlock(L->b);
        LLVMBuildBr(L->b, bb_join);
        lower_at(L, bb_gen);
        LLVMValueRef gres = complex_pow_general(L, t, a, b, c, d);
        LLVMBasicBlockRef from_gen = LLVMGetInsertBlock(L->b);
        LLVMBuildBr(L->b, bb_join);
        lower_at(L, bb_join);
        LLVMValueRef res = LLVMBuildPhi(L->b, lower_type(L, t), "cpow");
        LLVMValueRef rv[2] = {ires, gres};
        LLVMBasicBlockRef rb[2] = {from_int, from_gen};
        LLVMAddIncoming(res, rv, rb, 2);
        return res;
    }
    default:
        return lower_fail(L, at, HJ_DIAG_UNSUPPORTED, "unsupported operator '%s' on complex numbers",
                          ast_op_str(op));
    }
    LLVMValueRef v = LLVMGetUndef(lower_type(L, t));
    v = LLVMBuildInsertValue(L->b, v, re, 0, "");
    return LLVMBuildInsertValue(L->b, v, im, 1, "");
}

/* CPython's _Py_c_pow (the general path) of a + bj ** c + dj. */
static LLVMValueRef complex_pow_general(Lower *L, Type *t, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c,
                                        LLVMValueRef d) {
    LLVMValueRef re, im;
    {
        LLVMTypeRef ft = LLVMTypeOf(a);
        bool f32 = ft == L->t_f32;
        LLVMTypeRef tys[1] = {ft};
        LLVMValueRef zero = LLVMConstReal(ft, 0.0), one = LLVMConstReal(ft, 1.0);
        LLVMValueRef bzero = LLVMBuildAnd(L->b, fcmp(L, LLVMRealOEQ, c, zero), fcmp(L, LLVMRealOEQ, d, zero), "");
        LLVMValueRef azero = LLVMBuildAnd(L->b, fcmp(L, LLVMRealOEQ, a, zero), fcmp(L, LLVMRealOEQ, b, zero), "");
        LLVMTypeRef p2[2] = {ft, ft};
        LLVMValueRef ab[2] = {a, b}, ba[2] = {b, a};
        LLVMValueRef vabs = lower_rt(L, f32 ? "hypotf" : "hypot", ft, p2, 2, ab);
        LLVMValueRef pw[2] = {vabs, c};
        LLVMValueRef len = lower_intrinsic(L, "llvm.pow", tys, 1, pw, 2);
        LLVMValueRef ang = lower_rt(L, f32 ? "atan2f" : "atan2", ft, p2, 2, ba);
        LLVMValueRef phase = fbin(L, LLVMFMul, ang, c, "");
        LLVMValueRef e = fbin(L, LLVMFMul, ang, d, "");
        LLVMValueRef len2 = fbin(L, LLVMFDiv, len, lower_intrinsic(L, "llvm.exp", tys, 1, &e, 1), "");
        LLVMValueRef phase2 = fbin(L, LLVMFAdd, phase, fbin(L, LLVMFMul, d, lower_intrinsic(L, "llvm.log", tys, 1, &vabs, 1), ""), "");
        LLVMValueRef dnz = fcmp(L, LLVMRealUNE, d, zero);
        len = LLVMBuildSelect(L->b, dnz, len2, len, "");
        phase = LLVMBuildSelect(L->b, dnz, phase2, phase, "");
        re = fbin(L, LLVMFMul, len, lower_intrinsic(L, "llvm.cos", tys, 1, &phase, 1), "");
        im = fbin(L, LLVMFMul, len, lower_intrinsic(L, "llvm.sin", tys, 1, &phase, 1), "");
        /* x ** 0 == 1; 0 ** y == 0 (y real and positive) */
        re = LLVMBuildSelect(L->b, bzero, one, LLVMBuildSelect(L->b, azero, zero, re, ""), "");
        im = LLVMBuildSelect(L->b, bzero, zero, LLVMBuildSelect(L->b, azero, zero, im, ""), "");
    }
    LLVMValueRef v = LLVMGetUndef(lower_type(L, t));
    v = LLVMBuildInsertValue(L->b, v, re, 0, "");
    return LLVMBuildInsertValue(L->b, v, im, 1, "");
}

LLVMValueRef lower_binop(Lower *L, const Node *at, OpKind op, Type *t, LLVMValueRef a, LLVMValueRef b,
                         Type **res_ty) {
    TyCtx *tc = L->c->tc;
    *res_ty = t;
    if (!a || !b)
        return NULL;
    if (t->kind == TY_BOOL) {
        switch (op) {
        case OP_BITAND: return LLVMBuildAnd(L->b, a, b, "");
        case OP_BITOR: return LLVMBuildOr(L->b, a, b, "");
        case OP_BITXOR: return LLVMBuildXor(L->b, a, b, "");
        default: {
            /* arithmetic on bools is done in int64 */
            Type *i64 = ty_scalar(tc, TY_INT64);
            return lower_binop(L, at, op, i64, lower_convert(L, at, a, t, i64), lower_convert(L, at, b, t, i64),
                               res_ty);
        }
        }
    }
    if (ty_is_int(t)) {
        LLVMTypeRef lt = lower_type(L, t);
        switch (op) {
        /* signed arithmetic is nsw, as in Numba: an index such as
         * a[i + k] with i, k from ranges is then known non-negative, so
         * the negative-index wrap folds away (a wrapped sum is no valid
         * index anyway) */
        case OP_ADD:
            return ty_is_signed(t) ? LLVMBuildNSWAdd(L->b, a, b, "add") : LLVMBuildAdd(L->b, a, b, "add");
        case OP_SUB:
            return ty_is_signed(t) ? LLVMBuildNSWSub(L->b, a, b, "sub") : LLVMBuildSub(L->b, a, b, "sub");
        case OP_MUL:
            return ty_is_signed(t) ? LLVMBuildNSWMul(L->b, a, b, "mul") : LLVMBuildMul(L->b, a, b, "mul");
        case OP_DIV: {
            Type *f = ty_scalar(tc, TY_FLOAT64);
            return lower_binop(L, at, op, f, lower_convert(L, at, a, t, f), lower_convert(L, at, b, t, f), res_ty);
        }
        case OP_FLOORDIV:
        case OP_MOD: return int_divmod(L, op, t, a, b);
        case OP_POW: return int_pow(L, t, a, b);
        case OP_LSHIFT:
        case OP_RSHIFT: {
            /* the count is taken modulo the width, as the hardware (and
             * Numba) does, instead of an undefined result */
            LLVMValueRef cnt = LLVMBuildAnd(L->b, b, LLVMConstInt(lt, (unsigned long long)ty_bits(t) - 1, 0), "");
            if (op == OP_LSHIFT)
                return LLVMBuildShl(L->b, a, cnt, "shl");
            return ty_is_signed(t) ? LLVMBuildAShr(L->b, a, cnt, "shr") : LLVMBuildLShr(L->b, a, cnt, "shr");
        }
        case OP_BITAND: return LLVMBuildAnd(L->b, a, b, "and");
        case OP_BITOR: return LLVMBuildOr(L->b, a, b, "or");
        case OP_BITXOR: return LLVMBuildXor(L->b, a, b, "xor");
        default: break;
        }
    } else if (ty_is_float(t)) {
        switch (op) {
        case OP_ADD: return fbin(L, LLVMFAdd, a, b, "fadd");
        case OP_SUB: return fbin(L, LLVMFSub, a, b, "fsub");
        case OP_MUL: return fbin(L, LLVMFMul, a, b, "fmul");
        case OP_DIV:
            if (L->error_model == 0)
                raise_zerodiv_if(L, fcmp(L, LLVMRealOEQ, b, LLVMConstReal(lower_type(L, t), 0.0)),
                                 "float division by zero");
            return fbin(L, LLVMFDiv, a, b, "fdiv");
        case OP_FLOORDIV:
        case OP_MOD: return float_divmod(L, op, a, b);
        case OP_POW: {
            LLVMTypeRef tys[1] = {lower_type(L, t)};
            LLVMValueRef args[2] = {a, b};
            return lower_intrinsic(L, "llvm.pow", tys, 1, args, 2);
        }
        default: break;
        }
    } else if (ty_is_complex(t)) {
        return complex_binop(L, at, op, t, a, b);
    }
    StrBuf s;
    sb_init(&s);
    ty_name(&s, t);
    lower_fail(L, at, HJ_DIAG_UNSUPPORTED, "unsupported operator '%s' on %s", ast_op_str(op), s.s ? s.s : "?");
    sb_free(&s);
    return NULL;
}

static LLVMValueRef unaryop(Lower *L, Node *n) {
    Type *t = n->op_ty ? n->op_ty : n->a->ty;
    LLVMValueRef v = lower_expr_use(L, n->a);
    if (!v)
        return NULL;
    if (n->op == OP_NOT)
        return LLVMBuildNot(L->b, lower_truth(L, n, v, n->a->ty), "not");
    if (ty_is_npdt(t))
        return lower_dt_unary(L, n->op, v);
    if (n->op == OP_INVERT && ty_is_intflag(t)) /* infer.c unary_expr */
        return lower_convert(L, n, lower_flag_invert(L, n, lower_convert(L, n, v, n->a->ty, t), t), t, n->ty);
    v = lower_convert(L, n, v, n->a->ty, t);
    if (!v)
        return NULL;
    Type *rt = t;
    LLVMValueRef r = NULL;
    switch (n->op) {
    case OP_POS: r = v; break;
    case OP_NEG:
        if (t->kind == TY_BOOL) {
            rt = ty_scalar(L->c->tc, TY_INT64);
            r = LLVMBuildNeg(L->b, lower_convert(L, n, v, t, rt), "neg");
        } else if (ty_is_int(t))
            r = LLVMBuildNeg(L->b, v, "neg");
        else if (ty_is_float(t))
            r = lower_fm(L, LLVMBuildFNeg(L->b, v, "fneg"));
        else if (ty_is_complex(t)) {
            LLVMValueRef re = lower_fm(L, LLVMBuildFNeg(L->b, LLVMBuildExtractValue(L->b, v, 0, ""), ""));
            LLVMValueRef im = lower_fm(L, LLVMBuildFNeg(L->b, LLVMBuildExtractValue(L->b, v, 1, ""), ""));
            r = LLVMBuildInsertValue(L->b, LLVMBuildInsertValue(L->b, LLVMGetUndef(lower_type(L, t)), re, 0, ""),
                                     im, 1, "");
        }
        break;
    case OP_INVERT:
        if (t->kind == TY_BOOL) {
            rt = ty_scalar(L->c->tc, TY_INT64);
            r = LLVMBuildNot(L->b, lower_convert(L, n, v, t, rt), "invert");
        } else if (ty_is_int(t))
            r = LLVMBuildNot(L->b, v, "invert");
        break;
    default: break;
    }
    if (!r)
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "unsupported unary operator '%s'", ast_op_str(n->op));
    return lower_convert(L, n, r, rt, n->ty);
}

/* ---- comparisons --------------------------------------------------------------- */

bool lower_icmp_pred(OpKind op, bool is_signed, LLVMIntPredicate *p) {
    bool s = is_signed;
    switch (op) {
    case OP_EQ: *p = LLVMIntEQ; return true;
    case OP_NE: *p = LLVMIntNE; return true;
    case OP_LT: *p = s ? LLVMIntSLT : LLVMIntULT; return true;
    case OP_LE: *p = s ? LLVMIntSLE : LLVMIntULE; return true;
    case OP_GT: *p = s ? LLVMIntSGT : LLVMIntUGT; return true;
    case OP_GE: *p = s ? LLVMIntSGE : LLVMIntUGE; return true;
    default: return false;
    }
}

LLVMValueRef lower_cmp(Lower *L, const Node *at, OpKind op, Type *t, LLVMValueRef a, LLVMValueRef b) {
    const LibOps *own = lib_type_owner(t); /* a str inside a tuple or a list: its owner compares */
    if (own && own->lower_compare && t->kind == TY_STRING)
        return own->lower_compare(L, at, op, t, a, t, b, t);
    if (ty_is_npdt(t)) /* two values of one datetime type: NaT is unordered */
        return lower_dt_compare(L, at, op, t, a, t, b, t);
    if (t->kind == TY_BOOL || ty_is_int(t)) {
        LLVMIntPredicate p;
        if (!lower_icmp_pred(op, ty_is_signed(t), &p))
            goto unsupported;
        return LLVMBuildICmp(L->b, p, a, b, "cmp");
    }
    if (ty_is_float(t)) {
        LLVMRealPredicate p;
        switch (op) {
        case OP_EQ: p = LLVMRealOEQ; break;
        case OP_NE: p = LLVMRealUNE; break;
        case OP_LT: p = LLVMRealOLT; break;
        case OP_LE: p = LLVMRealOLE; break;
        case OP_GT: p = LLVMRealOGT; break;
        case OP_GE: p = LLVMRealOGE; break;
        default: goto unsupported;
        }
        return fcmp(L, p, a, b);
    }
    if (ty_is_complex(t) && (op == OP_EQ || op == OP_NE)) {
        LLVMValueRef re = fcmp(L, op == OP_EQ ? LLVMRealOEQ : LLVMRealUNE, LLVMBuildExtractValue(L->b, a, 0, ""),
                               LLVMBuildExtractValue(L->b, b, 0, ""));
        LLVMValueRef im = fcmp(L, op == OP_EQ ? LLVMRealOEQ : LLVMRealUNE, LLVMBuildExtractValue(L->b, a, 1, ""),
                               LLVMBuildExtractValue(L->b, b, 1, ""));
        return op == OP_EQ ? LLVMBuildAnd(L->b, re, im, "") : LLVMBuildOr(L->b, re, im, "");
    }
    if (t->kind == TY_NONE && (op == OP_EQ || op == OP_NE))
        return LLVMConstInt(L->t_i1, op == OP_EQ, 0);
    if (t->kind == TY_TUPLE && (op == OP_LT || op == OP_LE || op == OP_GT || op == OP_GE)) {
        /* lexicographic: the first unequal element decides; all equal
         * gives <= and >= */
        OpKind strict = op == OP_LT || op == OP_LE ? OP_LT : OP_GT;
        LLVMValueRef r = LLVMConstInt(L->t_i1, op == OP_LE || op == OP_GE, 0);
        for (int i = t->nelems - 1; i >= 0; i--) {
            LLVMValueRef x = LLVMBuildExtractValue(L->b, a, (unsigned)i, "");
            LLVMValueRef y = LLVMBuildExtractValue(L->b, b, (unsigned)i, "");
            LLVMValueRef eq = lower_cmp(L, at, OP_EQ, t->elems[i], x, y);
            LLVMValueRef c = eq ? lower_cmp(L, at, strict, t->elems[i], x, y) : NULL;
            if (!c)
                return NULL;
            r = LLVMBuildSelect(L->b, eq, r, c, "");
        }
        return r;
    }
    if (t->kind == TY_TUPLE && (op == OP_EQ || op == OP_NE)) {
        LLVMValueRef r = LLVMConstInt(L->t_i1, 1, 0);
        for (int i = 0; i < t->nelems; i++) {
            LLVMValueRef e = lower_cmp(L, at, OP_EQ, t->elems[i], LLVMBuildExtractValue(L->b, a, (unsigned)i, ""),
                                       LLVMBuildExtractValue(L->b, b, (unsigned)i, ""));
            if (!e)
                return NULL;
            r = LLVMBuildAnd(L->b, r, e, "");
        }
        return op == OP_EQ ? r : LLVMBuildNot(L->b, r, "");
    }
unsupported: {
    StrBuf s;
    sb_init(&s);
    ty_name(&s, t);
    lower_fail(L, at, HJ_DIAG_UNSUPPORTED, "unsupported comparison '%s' on %s", ast_op_str(op), s.s ? s.s : "?");
    sb_free(&s);
    return NULL;
}
}

/* The position of function `f` in the set `set`, or -1. */
static int funcset_index(const Type *set, const Type *f) {
    for (int i = 0; i < set->nelems; i++)
        if (set->elems[i]->func == f->func)
            return i;
    return -1;
}

/* f == g, f is g on functions (infer.c): a constant for two functions (the
 * same one or not, as Numba's); a set's value is its position in the set. */
static LLVMValueRef func_compare(Lower *L, const Node *n, OpKind op, LLVMValueRef a, const Type *at, LLVMValueRef b,
                                 const Type *bt) {
    bool eq = op == OP_EQ || op == OP_IS;
    if (at->kind == TY_FUNCTION && bt->kind == TY_FUNCTION)
        return LLVMConstInt(L->t_i1, (at->func == bt->func) == eq, 0);
    if (at->kind == TY_FUNCSET && bt->kind == TY_FUNCSET) {
        if (at != bt) /* distinct sets: compare what each holds */
            return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "comparing values of two different sets of functions");
        return LLVMBuildICmp(L->b, eq ? LLVMIntEQ : LLVMIntNE, a, b, "");
    }
    LLVMValueRef pos = at->kind == TY_FUNCSET ? a : b;
    int j = at->kind == TY_FUNCSET ? funcset_index(at, bt) : funcset_index(bt, at);
    if (j < 0)
        return LLVMConstInt(L->t_i1, !eq, 0);
    return LLVMBuildICmp(L->b, eq ? LLVMIntEQ : LLVMIntNE, pos, LLVMConstInt(LLVMTypeOf(pos), (unsigned long long)j, 0),
                         "");
}

/* One comparison of a chain: `is`/`in` need the operands' own types. */
static LLVMValueRef compare_one(Lower *L, Node *n, OpKind op, Type *t, LLVMValueRef a, Type *at,
                                LLVMValueRef b, Type *bt) {
    bool with_none = (op == OP_IS || op == OP_ISNOT) && (at->kind == TY_NONE || bt->kind == TY_NONE);
    const LibOps *own = with_none ? NULL : lib_type_owner2(at, bt); /* typed by its infer_compare */
    if (own && own->lower_compare)
        return own->lower_compare(L, n, op, t, a, at, b, bt);
    if (t && ty_is_npdt(t)) /* NaT compares false but for != (lower_datetime.c) */
        return lower_dt_compare(L, n, op, t, a, at, b, bt);
    if ((at->kind == TY_FUNCTION || at->kind == TY_FUNCSET) && (bt->kind == TY_FUNCTION || bt->kind == TY_FUNCSET))
        return func_compare(L, n, op, a, at, b, bt);
    if (at->kind == TY_FUNCPTR && bt->kind == TY_FUNCPTR) {
        bool eq = op == OP_EQ || op == OP_IS;
        if (at != bt) /* two signatures: never the same function */
            return LLVMConstInt(L->t_i1, !eq, 0);
        return LLVMBuildICmp(L->b, eq ? LLVMIntEQ : LLVMIntNE, a, b, "");
    }
    if (op == OP_IS || op == OP_ISNOT) {
        bool same;
        if ((at->kind == TY_OPTIONAL && bt->kind == TY_NONE) || (bt->kind == TY_OPTIONAL && at->kind == TY_NONE)) {
            LLVMValueRef valid = LLVMBuildExtractValue(L->b, at->kind == TY_OPTIONAL ? a : b, 0, "valid");
            return op == OP_IS ? LLVMBuildNot(L->b, valid, "isnone") : valid;
        }
        if (at->kind == TY_OPTIONAL || bt->kind == TY_OPTIONAL)
            return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "'is' between Optional values is only supported with None");
        if (at->kind == TY_NONE || bt->kind == TY_NONE)
            same = at->kind == bt->kind;
        else if (at != bt && (ty_is_intenum(at) || ty_is_intenum(bt))) /* a member is no other object */
            same = false;
        else if (at == bt && (at->kind == TY_BOOL))
            return LLVMBuildICmp(L->b, op == OP_IS ? LLVMIntEQ : LLVMIntNE, a, b, "");
        else if (at->kind != bt->kind)
            same = false;
        else
            return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "'is' is only supported with None and bools");
        return LLVMConstInt(L->t_i1, (op == OP_IS) == same, 0);
    }
    if (at->kind == TY_DTYPE && bt->kind == TY_DTYPE) /* interned: the same dtype is the same Type */
        return LLVMConstInt(L->t_i1, (at->dtype == bt->dtype) == (op == OP_EQ), 0);
    if ((op == OP_EQ || op == OP_NE) && (at->kind == TY_OPTIONAL || bt->kind == TY_OPTIONAL)) {
        /* equal when both are None, or both are values and equal */
        bool oa = at->kind == TY_OPTIONAL, ob = bt->kind == TY_OPTIONAL;
        LLVMValueRef one = LLVMConstInt(L->t_i1, 1, 0);
        LLVMValueRef va = oa ? LLVMBuildExtractValue(L->b, a, 0, "") : one;
        LLVMValueRef vb = ob ? LLVMBuildExtractValue(L->b, b, 0, "") : one;
        LLVMValueRef x = lower_convert(L, n, oa ? LLVMBuildExtractValue(L->b, a, 1, "") : a, oa ? at->base : at, t);
        LLVMValueRef y = lower_convert(L, n, ob ? LLVMBuildExtractValue(L->b, b, 1, "") : b, ob ? bt->base : bt, t);
        LLVMValueRef c = x && y ? lower_cmp(L, n, OP_EQ, t, x, y) : NULL;
        if (!c)
            return NULL;
        LLVMValueRef both = LLVMBuildAnd(L->b, va, vb, "");
        LLVMValueRef neither = LLVMBuildNot(L->b, LLVMBuildOr(L->b, va, vb, ""), "");
        LLVMValueRef eq = LLVMBuildOr(L->b, LLVMBuildAnd(L->b, both, c, ""), neither, "opteq");
        return op == OP_EQ ? eq : LLVMBuildNot(L->b, eq, "optne");
    }
    if (op == OP_IN || op == OP_NOTIN) {
        if (bt->kind != TY_TUPLE)
            return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "'in' is only supported on tuples");
        LLVMValueRef r = LLVMConstInt(L->t_i1, 0, 0);
        for (int i = 0; i < bt->nelems; i++) {
            Type *et = bt->elems[i];
            Type *ct = t && ty_is_number(t) ? t : et;
            if (!ty_is_number(ct) || !ty_is_number(at) || !ty_is_number(et))
                return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "'in' is only supported on tuples of numbers");
            LLVMValueRef x = lower_convert(L, n, a, at, ct);
            LLVMValueRef y = lower_convert(L, n, LLVMBuildExtractValue(L->b, b, (unsigned)i, ""), et, ct);
            LLVMValueRef c = x && y ? lower_cmp(L, n, OP_EQ, ct, x, y) : NULL;
            if (!c)
                return NULL;
            r = LLVMBuildOr(L->b, r, c, "");
        }
        return op == OP_IN ? r : LLVMBuildNot(L->b, r, "");
    }
    LLVMValueRef x = lower_convert(L, n, a, at, t);
    LLVMValueRef y = lower_convert(L, n, b, bt, t);
    if (!x || !y)
        return NULL;
    return lower_cmp(L, n, op, t, x, y);
}

/* Operands holding arrays are only ever compared by identity with None:
 * they are released as soon as they are evaluated. */
static LLVMValueRef cmp_operand(Lower *L, Node *e) {
    bool owned = false;
    LLVMValueRef v = lower_expr(L, e, &owned);
    if (v && owned && lib_type_owner(e->ty)) /* a str, list, dict: compared by value, kept to the statement's end */
        lower_temp(L, v, e->ty, true);
    else if (v && owned)
        lower_decref(L, v, e->ty);
    return v;
}

static LLVMValueRef compare(Lower *L, Node *n) {
    int k = n->args.len;
    LLVMValueRef left = cmp_operand(L, n->a);
    if (!left)
        return NULL;
    Type *lt = n->a->ty;
    LLVMBasicBlockRef end = k > 1 ? lower_block(L, "cmp.end") : NULL;
    LLVMValueRef *vals = arena_alloc(&L->c->arena, sizeof(LLVMValueRef) * (size_t)k);
    LLVMBasicBlockRef *from = arena_alloc(&L->c->arena, sizeof(LLVMBasicBlockRef) * (size_t)k);
    LLVMValueRef c = NULL;
    for (int i = 0; i < k; i++) {
        Node *rn = VEC_AT(n->args, i);
        LLVMValueRef right = cmp_operand(L, rn);
        if (!right)
            return NULL;
        Type *ct = n->op_tys ? n->op_tys[i] : NULL;
        if (!ct && n->ops[i] != OP_IS && n->ops[i] != OP_ISNOT && n->ops[i] != OP_IN && n->ops[i] != OP_NOTIN)
            return lower_fail(L, n, HJ_DIAG_LOWERING, "comparison without an operand type");
        c = compare_one(L, n, n->ops[i], ct, left, lt, right, rn->ty);
        if (!c)
            return NULL;
        if (i < k - 1) {
            LLVMBasicBlockRef next = lower_block(L, "cmp.next");
            vals[i] = LLVMConstInt(L->t_i1, 0, 0);
            from[i] = LLVMGetInsertBlock(L->b);
            LLVMBuildCondBr(L->b, c, next, end);
            lower_at(L, next);
        }
        left = right;
        lt = rn->ty;
    }
    if (k > 1) {
        vals[k - 1] = c;
        from[k - 1] = LLVMGetInsertBlock(L->b);
        LLVMBuildBr(L->b, end);
        lower_at(L, end);
        LLVMValueRef phi = LLVMBuildPhi(L->b, L->t_i1, "cmp");
        LLVMAddIncoming(phi, vals, from, (unsigned)k);
        c = phi;
    }
    return lower_convert(L, n, c, ty_scalar(L->c->tc, TY_BOOL), n->ty);
}

/* a and b / a or b: the value of the deciding operand, as the node's type.
 * The truth test looks through an inserted cast so that it tests the
 * operand as written. */
static LLVMValueRef boolop(Lower *L, Node *n) {
    int k = n->args.len;
    if (lower_has_refs(n->ty))
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "'and'/'or' on arrays");
    LLVMBasicBlockRef end = lower_block(L, "bool.end");
    LLVMValueRef *vals = arena_alloc(&L->c->arena, sizeof(LLVMValueRef) * (size_t)k);
    LLVMBasicBlockRef *from = arena_alloc(&L->c->arena, sizeof(LLVMBasicBlockRef) * (size_t)k);
    for (int i = 0; i < k; i++) {
        Node *e = VEC_AT(n->args, i);
        /* the operand before its conversion (its own truth), unless that
         * is a container's truth test (infer_truth: `lst and ...`) */
        Node *inner = e->kind == N_CAST && !(e->ty->kind == TY_BOOL && lower_has_refs(e->a->ty)) ? e->a : e;
        int mark = lower_temps_mark(L);
        bool owned = false;
        LLVMValueRef v = lower_expr(L, inner, &owned);
        if (!v)
            return NULL;
        LLVMValueRef truth = i < k - 1 ? lower_truth(L, e, v, inner->ty) : NULL;
        LLVMValueRef val = lower_convert(L, e, v, inner->ty, e->ty);
        val = lower_convert(L, e, val, e->ty, n->ty);
        if (!val)
            return NULL;
        if (owned)
            lower_decref(L, v, inner->ty);
        lower_temps_release(L, mark);
        vals[i] = val;
        from[i] = LLVMGetInsertBlock(L->b);
        if (i < k - 1) {
            LLVMBasicBlockRef next = lower_block(L, "bool.next");
            if (n->op == OP_AND)
                LLVMBuildCondBr(L->b, truth, next, end);
            else
                LLVMBuildCondBr(L->b, truth, end, next);
            lower_at(L, next);
        } else {
            LLVMBuildBr(L->b, end);
        }
    }
    lower_at(L, end);
    LLVMValueRef phi = LLVMBuildPhi(L->b, lower_type(L, n->ty), "boolop");
    LLVMAddIncoming(phi, vals, from, (unsigned)k);
    return phi;
}

static LLVMValueRef ifexp(Lower *L, Node *n, bool *owned) {
    bool refs = lower_has_refs(n->ty);
    int mark = lower_temps_mark(L);
    bool o = false;
    LLVMValueRef cv = lower_expr(L, n->a, &o);
    if (!cv)
        return NULL;
    LLVMValueRef c = lower_truth(L, n->a, cv, n->a->ty);
    if (o)
        lower_decref(L, cv, n->a->ty);
    lower_temps_release(L, mark);
    LLVMBasicBlockRef bt = lower_block(L, "ifexp.then"), bf = lower_block(L, "ifexp.else");
    LLVMBasicBlockRef end = lower_block(L, "ifexp.end");
    LLVMBuildCondBr(L->b, c, bt, bf);
    LLVMValueRef vals[2];
    LLVMBasicBlockRef from[2];
    Node *arms[2] = {n->b, n->c};
    LLVMBasicBlockRef bbs[2] = {bt, bf};
    for (int i = 0; i < 2; i++) {
        lower_at(L, bbs[i]);
        int m = lower_temps_mark(L);
        LLVMValueRef v;
        if (refs) {
            v = lower_expr_owned(L, arms[i]);
        } else {
            v = lower_expr_use(L, arms[i]);
        }
        v = lower_convert(L, arms[i], v, arms[i]->ty, n->ty);
        if (!v)
            return NULL;
        lower_temps_release(L, m);
        vals[i] = v;
        from[i] = LLVMGetInsertBlock(L->b);
        LLVMBuildBr(L->b, end);
    }
    lower_at(L, end);
    LLVMValueRef phi = LLVMBuildPhi(L->b, lower_type(L, n->ty), "ifexp");
    LLVMAddIncoming(phi, vals, from, 2);
    *owned = refs;
    return phi;
}

static LLVMValueRef tuple_expr(Lower *L, Node *n, bool *owned) {
    Type *t = n->ty;
    if (t->kind != TY_TUPLE || t->nelems != n->args.len)
        return lower_fail(L, n, HJ_DIAG_LOWERING, "tuple expression without a tuple type");
    bool refs = lower_has_refs(t);
    LLVMValueRef r = LLVMGetUndef(lower_type(L, t));
    /* the elements made so far are released if a later one raises, and
     * handed over to the tuple at the end (the temporaries made while
     * computing them stay live until the statement ends) */
    LLVMValueRef *held = refs ? arena_alloc(&L->c->arena, sizeof(LLVMValueRef) * (size_t)n->args.len) : NULL;
    for (int i = 0; i < n->args.len; i++) {
        Node *e = VEC_AT(n->args, i);
        LLVMValueRef v = refs ? lower_expr_owned(L, e) : lower_expr_use(L, e);
        v = lower_convert(L, e, v, e->ty, t->elems[i]);
        if (!v)
            return NULL;
        if (refs)
            lower_temp(L, held[i] = v, t->elems[i], true);
        r = LLVMBuildInsertValue(L->b, r, v, (unsigned)i, "");
    }
    for (int i = 0; refs && i < n->args.len; i++)
        lower_temp_handed_over(L, held[i]);
    *owned = refs;
    return r;
}

/* A call to another specialisation: borrowed arguments, owned result. */
static LLVMValueRef call_func(Lower *L, Node *n, bool *owned) {
    Spec *s = n->spec;
    if (!s || !s->llvm_fn)
        return lower_fail(L, n, HJ_DIAG_LOWERING, "call to a function that was not specialised");
    int mark = lower_temps_mark(L);
    int na = s->nargs;
    LLVMValueRef small[16];
    LLVMValueRef *a = na <= 16 ? small : arena_alloc(&L->c->arena, sizeof(LLVMValueRef) * (size_t)na);
    for (int i = 0, j = 0; i < n->args.len && j < s->nargs; i++) {
        Node *e = VEC_AT(n->args, i);
        if (!e)
            continue;
        LLVMValueRef v = lower_expr_use(L, e);
        v = lower_convert(L, e, v, e->ty, s->argtys[j]);
        if (!v)
            return NULL;
        a[j++] = v;
    }
    LLVMValueRef fn = (LLVMValueRef)s->llvm_fn;
    LLVMValueRef res = lower_call(L, LLVMGlobalGetValueType(fn), fn, a, (unsigned)na, "res");
    lower_check_status(L, LLVMBuildExtractValue(L->b, res, 0, "status"));
    lower_temps_release(L, mark);
    LLVMValueRef r = LLVMBuildExtractValue(L->b, res, 1, "result");
    *owned = lower_has_refs(s->ret);
    return lower_convert(L, n, r, s->ret, n->ty);
}

/* A call through a TY_FUNCSET value: a switch over the functions it may
 * hold, each branch a direct call to that function's specialisation (all
 * of one signature, checked by inference). */
static LLVMValueRef call_funcset(Lower *L, Node *n, bool *owned) {
    Type *fs = n->a->ty;
    int nf = fs->nelems;
    for (int k = 0; k < nf; k++)
        if (!n->specs || !n->specs[k] || !n->specs[k]->llvm_fn)
            return lower_fail(L, n, HJ_DIAG_LOWERING, "call to a function that was not specialised");
    LLVMValueRef which = lower_expr_use(L, n->a);
    if (!which)
        return NULL;
    int mark = lower_temps_mark(L);
    Spec *s0 = n->specs[0];
    int na = s0->nargs;
    LLVMValueRef small[16];
    LLVMValueRef *a = na <= 16 ? small : arena_alloc(&L->c->arena, sizeof(LLVMValueRef) * (size_t)na);
    for (int i = 0, j = 0; i < n->args.len && j < na; i++) {
        Node *e = VEC_AT(n->args, i);
        if (!e)
            continue;
        LLVMValueRef v = lower_expr_use(L, e);
        v = lower_convert(L, e, v, e->ty, s0->argtys[j]);
        if (!v)
            return NULL;
        a[j++] = v;
    }
    LLVMTypeRef rty = LLVMGlobalGetValueType((LLVMValueRef)s0->llvm_fn);
    LLVMTypeRef resty = LLVMGetReturnType(rty);
    LLVMBasicBlockRef join = lower_block(L, "fcall.join");
    LLVMBasicBlockRef bad = lower_block(L, "fcall.none");
    LLVMValueRef sw = LLVMBuildSwitch(L->b, which, bad, (unsigned)nf);
    LLVMValueRef *vals = arena_alloc(&L->c->arena, sizeof(LLVMValueRef) * (size_t)nf);
    LLVMBasicBlockRef *from = arena_alloc(&L->c->arena, sizeof(LLVMBasicBlockRef) * (size_t)nf);
    for (int k = 0; k < nf; k++) {
        LLVMBasicBlockRef bb = lower_block(L, "fcall");
        LLVMAddCase(sw, lower_i64(L, k), bb);
        lower_at(L, bb);
        LLVMValueRef fn = (LLVMValueRef)n->specs[k]->llvm_fn;
        vals[k] = lower_call(L, LLVMGlobalGetValueType(fn), fn, a, (unsigned)na, "res");
        from[k] = LLVMGetInsertBlock(L->b);
        LLVMBuildBr(L->b, join);
    }
    lower_at(L, bad);
    LLVMBuildUnreachable(L->b);
    lower_at(L, join);
    LLVMValueRef res = LLVMBuildPhi(L->b, resty, "res");
    LLVMAddIncoming(res, vals, from, (unsigned)nf);
    lower_check_status(L, LLVMBuildExtractValue(L->b, res, 0, "status"));
    lower_temps_release(L, mark);
    LLVMValueRef r = LLVMBuildExtractValue(L->b, res, 1, "result");
    *owned = lower_has_refs(s0->ret);
    return lower_convert(L, n, r, s0->ret, n->ty);
}

/* A call through a first-class function value (TY_FUNCPTR): the C
 * function's ABI, numbers in their in-memory form (bool as i8), as a
 * @cfunc's entry (lower.c lower_cfunc_entry) and a WAP object's address. */
static LLVMValueRef call_funcptr(Lower *L, Node *n, bool *owned) {
    Type *fp = n->a->ty;
    int na = fp->nelems;
    LLVMValueRef fn = lower_expr_use(L, n->a);
    if (!fn)
        return NULL;
    LLVMValueRef small[16];
    LLVMTypeRef tsmall[16];
    LLVMValueRef *a = na <= 16 ? small : arena_alloc(&L->c->arena, sizeof(LLVMValueRef) * (size_t)na);
    LLVMTypeRef *pt = na <= 16 ? tsmall : arena_alloc(&L->c->arena, sizeof(LLVMTypeRef) * (size_t)na);
    for (int i = 0; i < na; i++) {
        Node *e = VEC_AT(n->args, i);
        LLVMValueRef v = lower_convert(L, e, lower_expr_use(L, e), e->ty, fp->elems[i]);
        if (!v)
            return NULL;
        a[i] = lower_to_mem(L, v, fp->elems[i]);
        pt[i] = lower_mem_type(L, fp->elems[i]);
    }
    bool isvoid = fp->item->kind == TY_NONE;
    LLVMTypeRef fty = LLVMFunctionType(isvoid ? L->t_void : lower_mem_type(L, fp->item), pt, (unsigned)na, 0);
    LLVMValueRef r = lower_call(L, fty, fn, a, (unsigned)na, isvoid ? "" : "res");
    *owned = false;
    if (isvoid)
        return lower_zero(L, n->ty);
    return lower_convert(L, n, lower_from_mem(L, r, fp->item), fp->item, n->ty);
}

static LLVMValueRef call_expr(Lower *L, Node *n, bool *owned) {
    switch (n->call_kind) {
    case CALL_FUNC: return call_func(L, n, owned);
    case CALL_FUNCSET: return call_funcset(L, n, owned);
    case CALL_FUNCPTR: return call_funcptr(L, n, owned);
    case CALL_BUILTIN: return lower_builtin_call(L, n, owned);
    case CALL_EXC: return LLVMConstNull(lower_type(L, n->ty));
    case CALL_PYCALL: return lower_pycall(L, n, owned); /* lower_objmode.c */
    case CALL_LLVMIR: *owned = false; return lower_llvmir_call(L, n); /* lower_llvmir.c */
    case CALL_ELEMWISE: return lower_arrayexpr(L, n, owned); /* a tree of one node (lower_arrayexpr.c) */
    case CALL_DTYPE: {
        Node *e = n->args.len ? VEC_AT(n->args, 0) : NULL;
        if (!e)
            return lower_zero(L, n->ty);
        return lower_convert(L, n, lower_expr_use(L, e), e->ty, n->ty);
    }
    default: return lower_fail(L, n, HJ_DIAG_LOWERING, "call was not resolved by inference");
    }
}

/* A global or closure NumPy array: its items are a private constant of
 * the module and the value an array without owner (meminfo and parent
 * NULL: references are not counted; boxing copies it). */
static const HjEnvEntry *find_frozen(const HjEnvEntry *env, int n, const char *name) {
    for (int i = 0; i < n; i++) {
        if (env[i].name && strcmp(env[i].name, name) == 0 && env[i].kind == HJ_ENV_ARRAY)
            return &env[i];
        if (env[i].kind == HJ_ENV_TUPLE) { /* an array in a global tuple (infer.c env_const) */
            const HjEnvEntry *e = find_frozen(env[i].items, env[i].nitems, name);
            if (e)
                return e;
        }
    }
    return NULL;
}

static LLVMValueRef frozen_array(Lower *L, Node *n) {
    const HjFunction *hf = L->spec ? L->spec->hf : NULL;
    const HjEnvEntry *e = hf ? find_frozen(hf->env, hf->nenv, n->name) : NULL;
    if (!e)
        return lower_fail(L, n, HJ_DIAG_LOWERING, "global array '%s' has no frozen value", n->name);
    Type *t = n->ty;
    LLVMValueRef init = LLVMConstStringInContext(L->ctx, (const char *)e->data, (unsigned)e->nbytes, 1);
    LLVMValueRef g;
    if (L->device) { /* constant memory (cuda.const.array_like names such arrays) */
        g = lower_device_global(L, LLVMTypeOf(init), "frozen.array", 4, init);
    } else {
        g = LLVMAddGlobal(L->mod, LLVMTypeOf(init), "frozen.array");
        LLVMSetInitializer(g, init);
        LLVMSetGlobalConstant(g, 1);
        LLVMSetLinkage(g, LLVMPrivateLinkage);
        LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
        LLVMSetAlignment(g, 16);
    }
    int64_t isz = ty_itemsize(t->dtype), n_items = 1;
    LLVMValueRef sh[HJ_MAX_NDIM_LOWER + 1], st[HJ_MAX_NDIM_LOWER + 1];
    int64_t stride = isz;
    for (int d = t->ndim - 1; d >= 0; d--) {
        sh[d] = lower_i64(L, e->shape[d]);
        st[d] = lower_i64(L, stride);
        stride *= e->shape[d];
        n_items *= e->shape[d];
    }
    LLVMTypeRef at = lower_type(L, t);
    LLVMValueRef v = LLVMGetUndef(at);
    v = LLVMBuildInsertValue(L->b, v, LLVMConstNull(L->t_ptr), ARR_MEMINFO, "");
    v = LLVMBuildInsertValue(L->b, v, LLVMConstNull(L->t_ptr), ARR_PARENT, "");
    v = LLVMBuildInsertValue(L->b, v, lower_i64(L, n_items), ARR_NITEMS, "");
    v = LLVMBuildInsertValue(L->b, v, lower_i64(L, isz), ARR_ITEMSIZE, "");
    v = LLVMBuildInsertValue(L->b, v, g, ARR_DATA, "");
    if (t->ndim) {
        LLVMTypeRef vt = LLVMArrayType2(L->t_i64, (unsigned)t->ndim);
        LLVMValueRef shv = LLVMGetUndef(vt), stv = LLVMGetUndef(vt);
        for (int d = 0; d < t->ndim; d++) {
            shv = LLVMBuildInsertValue(L->b, shv, sh[d], (unsigned)d, "");
            stv = LLVMBuildInsertValue(L->b, stv, st[d], (unsigned)d, "");
        }
        v = LLVMBuildInsertValue(L->b, v, shv, ARR_SHAPE, "");
        v = LLVMBuildInsertValue(L->b, v, stv, ARR_STRIDES, "");
    }
    return v;
}

/* ---- entry points ------------------------------------------------------------------ */

static LLVMValueRef expr(Lower *L, Node *n, bool *owned);

/* L->at names the innermost expression for device-mode diagnostics. */
LLVMValueRef lower_expr(Lower *L, Node *n, bool *owned) {
    const Node *outer = L->at;
    L->at = n;
    if (L->di_sp)
        lower_device_debug_loc(L, n);
    LLVMValueRef v = expr(L, n, owned);
    L->at = outer;
    return v;
}

static LLVMValueRef expr(Lower *L, Node *n, bool *owned) {
    *owned = false;
    if (!n->ty)
        return lower_fail(L, n, HJ_DIAG_LOWERING, "expression without a type");
    switch (n->kind) {
    case N_CONST: return const_value(L, n, n->ty, &n->cval);
    case N_NAME:
        if (n->var) {
            Var *v = n->var;
            if (!v->slot)
                return lower_fail(L, n, HJ_DIAG_LOWERING, "variable '%s' has no storage", v->name);
            if (!lower_check_bound(L, n, v))
                return NULL;
            LLVMValueRef x = lower_load(L, lower_type(L, v->ty), (LLVMValueRef)v->slot, v->name);
            return lower_convert(L, n, x, v->ty, n->ty);
        }
        if (ty_is_number(n->ty) || ty_is_npdt(n->ty) || (n->ty->kind == TY_STRING && n->cval.kind == CVAL_STR))
            return const_value(L, n, n->ty, &n->cval);
        if (n->ty->kind == TY_ARRAY)
            return frozen_array(L, n);
        if (n->ty->kind == TY_TUPLE || n->ty->kind == TY_RANGE)
            return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "global '%s' of this type cannot be frozen", n->name);
        return LLVMConstNull(lower_type(L, n->ty));
    case N_ARRAYEXPR: return lower_arrayexpr(L, n, owned); /* lower_arrayexpr.c */
    case N_CAST: {
        bool o = false;
        LLVMValueRef v = lower_expr(L, n->a, &o);
        if (!v)
            return NULL;
        LLVMValueRef r = lower_convert(L, n, v, n->a->ty, n->ty);
        if (o && !lower_has_refs(n->ty))
            lower_decref(L, v, n->a->ty);
        else
            *owned = o;
        return r;
    }
    case N_BINOP: {
        if (n->op == OP_ADD && n->ty->kind == TY_TUPLE && n->a->ty->kind == TY_TUPLE && !n->op_ty) {
            LLVMValueRef a = lower_expr_use(L, n->a); /* a tuple concatenation */
            LLVMValueRef b = a ? lower_expr_use(L, n->b) : NULL;
            if (!b)
                return NULL;
            LLVMValueRef r = LLVMGetUndef(lower_type(L, n->ty));
            int na = n->a->ty->nelems;
            for (int i = 0; i < n->ty->nelems; i++)
                r = LLVMBuildInsertValue(L->b, r,
                                         LLVMBuildExtractValue(L->b, i < na ? a : b, (unsigned)(i < na ? i : i - na), ""),
                                         (unsigned)i, "");
            if (lower_has_refs(n->ty)) { /* the new tuple holds its own references */
                lower_incref(L, r, n->ty);
                *owned = true;
            }
            return r;
        }
        Type *t = n->op_ty ? n->op_ty : n->ty;
        if (ty_is_npdt(t)) { /* operands in their own units (lower_datetime.c) */
            LLVMValueRef a = lower_expr_use(L, n->a);
            LLVMValueRef b = a ? lower_expr_use(L, n->b) : NULL;
            return b ? lower_dt_binop(L, n, n->op, t, a, n->a->ty, b, n->b->ty) : NULL;
        }
        LLVMValueRef a = lower_expr_use(L, n->a);
        a = lower_convert(L, n, a, n->a->ty, t);
        if (!a)
            return NULL;
        LLVMValueRef b = lower_expr_use(L, n->b);
        if (b && n->op == OP_POW && ty_is_float(t) && ty_is_int(n->b->ty)) /* infer kept an int64 exponent */
            return lower_convert(L, n, lower_float_int_pow(L, t, a, b), t, n->ty);
        b = lower_convert(L, n, b, n->b->ty, t);
        if (!b)
            return NULL;
        Type *rt = NULL;
        LLVMValueRef r = lower_binop(L, n, n->op, t, a, b, &rt);
        return lower_convert(L, n, r, rt, n->ty);
    }
    case N_UNARYOP: return unaryop(L, n);
    case N_COMPARE: return compare(L, n);
    case N_BOOLOP: return boolop(L, n);
    case N_IFEXP: return ifexp(L, n, owned);
    case N_CALL: return call_expr(L, n, owned);
    case N_ATTRIBUTE:
        if (n->attr_kind == ATTR_CONST)
            return const_value(L, n, n->ty, &n->cval);
        return lower_attribute(L, n, owned);
    case N_SUBSCRIPT: return lower_subscript(L, n, owned);
    case N_TUPLE: return tuple_expr(L, n, owned);
    case N_NAMEDEXPR: {
        bool o = false;
        LLVMValueRef v = lower_expr(L, n->b, &o);
        if (!v || !n->a->var)
            return v ? lower_fail(L, n, HJ_DIAG_LOWERING, "walrus target without a variable") : NULL;
        lower_store_var(L, n, n->a->var, v, n->b->ty, o);
        /* the value is now the variable's: read it back borrowed */
        Var *var = n->a->var;
        LLVMValueRef x = lower_load(L, lower_type(L, var->ty), (LLVMValueRef)var->slot, "");
        return lower_convert(L, n, x, var->ty, n->ty);
    }
    case N_COMP: { /* a list comprehension: its loops, then its list (infer_comp.c) */
        if (!lower_body(L, &n->body))
            return NULL;
        Var *v = n->a->var;
        if (!v || !v->slot)
            return lower_fail(L, n, HJ_DIAG_LOWERING, "comprehension without its list");
        LLVMValueRef x = lower_load(L, lower_type(L, v->ty), (LLVMValueRef)v->slot, v->name);
        if (lower_has_refs(v->ty)) { /* the hidden variable's reference moves to the value */
            LLVMBuildStore(L->b, LLVMConstNull(lower_type(L, v->ty)), (LLVMValueRef)v->slot);
            *owned = true;
        }
        return x;
    }
    default:
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "unsupported expression (%s)", ast_kind_name(n->kind));
    }
}

LLVMValueRef lower_expr_use(Lower *L, Node *n) {
    bool owned = false;
    LLVMValueRef v = lower_expr(L, n, &owned);
    lower_temp(L, v, n->ty, owned);
    return v;
}

LLVMValueRef lower_expr_owned(Lower *L, Node *n) {
    bool owned = false;
    LLVMValueRef v = lower_expr(L, n, &owned);
    if (v && !owned)
        lower_incref(L, v, n->ty);
    return v;
}
