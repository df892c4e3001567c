/* lower_datetime.c - datetime64 / timedelta64 values: unit conversions,
 * the operators typed by infer_datetime.c, np.isnat.
 *
 * A value is an i64 count of its unit (since 1970-01-01 for a datetime);
 * NaT is INT64_MIN.  Every operation with a NaT operand gives NaT (a
 * float NaN for td / td, 0 for td // td as NumPy), every comparison with
 * one is false except != (Numba's npdatetime.py, NumPy's loops). */
#include "lower.h"

#include <math.h>

#define B (L->b)

static LLVMValueRef i64c(Lower *L, int64_t v) { return lower_i64(L, v); }

LLVMValueRef lower_dt_isnat(Lower *L, LLVMValueRef v) {
    return LLVMBuildICmp(B, LLVMIntEQ, v, i64c(L, TY_NAT), "isnat");
}

/* a // c and a mod c rounded towards minus infinity, c > 0 a constant. */
static LLVMValueRef floordiv_c(Lower *L, LLVMValueRef a, int64_t c) {
    LLVMValueRef q = LLVMBuildSDiv(B, a, i64c(L, c), "");
    LLVMValueRef r = LLVMBuildSRem(B, a, i64c(L, c), "");
    LLVMValueRef neg = LLVMBuildICmp(B, LLVMIntSLT, r, i64c(L, 0), "");
    return LLVMBuildSub(B, q, LLVMBuildZExt(B, neg, L->t_i64, ""), "");
}

/* Days since 1970-01-01 of the first day of month `mm` counted from
 * 1970-01 (Howard Hinnant's days_from_civil, floor divisions so years
 * before 1970 work too). */
static LLVMValueRef months_to_days(Lower *L, LLVMValueRef mm) {
    LLVMValueRef y = LLVMBuildAdd(B, floordiv_c(L, mm, 12), i64c(L, 1970), "year");
    LLVMValueRef m0 = LLVMBuildSub(B, mm, LLVMBuildMul(B, floordiv_c(L, mm, 12), i64c(L, 12), ""), "m0"); /* 0..11 */
    LLVMValueRef jan_feb = LLVMBuildICmp(B, LLVMIntSLT, m0, i64c(L, 2), "");
    y = LLVMBuildSub(B, y, LLVMBuildZExt(B, jan_feb, L->t_i64, ""), "");
    LLVMValueRef era = floordiv_c(L, y, 400);
    LLVMValueRef yoe = LLVMBuildSub(B, y, LLVMBuildMul(B, era, i64c(L, 400), ""), "yoe");
    /* month counted from March: m0 + 10 for Jan/Feb, m0 - 2 otherwise */
    LLVMValueRef mp = LLVMBuildSelect(B, jan_feb, LLVMBuildAdd(B, m0, i64c(L, 10), ""),
                                      LLVMBuildSub(B, m0, i64c(L, 2), ""), "mp");
    LLVMValueRef doy = LLVMBuildSDiv(B, LLVMBuildAdd(B, LLVMBuildMul(B, mp, i64c(L, 153), ""), i64c(L, 2), ""),
                                     i64c(L, 5), "doy");
    LLVMValueRef doe = LLVMBuildAdd(B, LLVMBuildMul(B, yoe, i64c(L, 365), ""), LLVMBuildSDiv(B, yoe, i64c(L, 4), ""), "");
    doe = LLVMBuildSub(B, doe, LLVMBuildSDiv(B, yoe, i64c(L, 100), ""), "");
    doe = LLVMBuildAdd(B, doe, doy, "doe");
    return LLVMBuildSub(B, LLVMBuildAdd(B, LLVMBuildMul(B, era, i64c(L, 146097), ""), doe, ""), i64c(L, 719468),
                        "days");
}

/* v (not NaT) of unit `from` in unit `to`, or NULL when no conversion
 * exists (a timedelta of months in days). */
static LLVMValueRef convert_unit(Lower *L, LLVMValueRef v, bool datetime, int from, int to) {
    int64_t f;
    if (from == to || to == DT_GENERIC)
        return v;
    if (datetime && (from == DT_Y || from == DT_M) && to >= DT_W) {
        /* through the calendar to days (weeks: floor of days / 7) */
        v = months_to_days(L, from == DT_Y ? LLVMBuildMul(B, v, i64c(L, 12), "") : v);
        if (to == DT_W)
            return floordiv_c(L, v, 7);
        from = DT_D;
    }
    if (!ty_dt_factor(from, to, &f))
        return NULL;
    return f == 1 ? v : LLVMBuildMul(B, v, i64c(L, f), "");
}

/* v of type `from` in the unit of `to` (either kind), NaT kept. */
static LLVMValueRef to_unit(Lower *L, const Node *at, LLVMValueRef v, Type *from, int to) {
    LLVMValueRef r = convert_unit(L, v, from->kind == TY_DATETIME, from->unit, to);
    if (!r)
        return lower_fail(L, at, HJ_DIAG_LOWERING, "cannot convert %s to the unit [%s]",
                          ty_str(&L->c->arena, from), ty_dt_unit_name(to));
    if (r == v)
        return v;
    return LLVMBuildSelect(B, lower_dt_isnat(L, v), i64c(L, TY_NAT), r, "");
}

LLVMValueRef lower_dt_convert(Lower *L, const Node *at, LLVMValueRef v, Type *from, Type *to) {
    if (ty_is_npdt(from) && ty_is_npdt(to))
        return to_unit(L, at, v, from, to->unit);
    if (ty_is_npdt(from) && ty_is_int(to)) /* int(td): the count, as Numba's cast */
        return LLVMBuildTrunc(B, v, lower_type(L, to), "");
    return lower_fail(L, at, HJ_DIAG_LOWERING, "cannot convert %s to %s", ty_str(&L->c->arena, from),
                      ty_str(&L->c->arena, to));
}

/* A double to a timedelta count: truncated; NaN and out-of-range give NaT. */
static LLVMValueRef from_double(Lower *L, LLVMValueRef x) {
    LLVMValueRef ok = LLVMBuildAnd(
        B, LLVMBuildFCmp(B, LLVMRealOLT, x, LLVMConstReal(L->t_f64, 9.2233720368547758e18), ""),
        LLVMBuildFCmp(B, LLVMRealOGT, x, LLVMConstReal(L->t_f64, -9.2233720368547758e18), ""), "");
    LLVMValueRef safe = LLVMBuildSelect(B, ok, x, LLVMConstReal(L->t_f64, 0.0), "");
    return LLVMBuildSelect(B, ok, LLVMBuildFPToSI(B, safe, L->t_i64, ""), i64c(L, TY_NAT), "");
}

LLVMValueRef lower_dt_binop(Lower *L, const Node *at, OpKind op, Type *op_ty, LLVMValueRef a, Type *ta,
                            LLVMValueRef b, Type *tb) {
    if (!a || !b)
        return NULL;
    bool anp = ty_is_npdt(ta), bnp = ty_is_npdt(tb);
    LLVMValueRef nat = i64c(L, TY_NAT);
    if (anp && bnp) {
        LLVMValueRef x = to_unit(L, at, a, ta, op_ty->unit), y = x ? to_unit(L, at, b, tb, op_ty->unit) : NULL;
        if (!y)
            return NULL;
        LLVMValueRef either = LLVMBuildOr(B, lower_dt_isnat(L, a), lower_dt_isnat(L, b), "anynat");
        switch (op) {
        case OP_ADD: return LLVMBuildSelect(B, either, nat, LLVMBuildAdd(B, x, y, ""), "");
        case OP_SUB: return LLVMBuildSelect(B, either, nat, LLVMBuildSub(B, x, y, ""), "");
        case OP_DIV: {
            LLVMValueRef q = LLVMBuildFDiv(B, LLVMBuildSIToFP(B, x, L->t_f64, ""), LLVMBuildSIToFP(B, y, L->t_f64, ""),
                                           "");
            return LLVMBuildSelect(B, either, LLVMConstReal(L->t_f64, (double)NAN), q, "");
        }
        case OP_FLOORDIV: { /* NumPy: floor; 0 for NaT or a zero divisor */
            LLVMValueRef zero = LLVMBuildICmp(B, LLVMIntEQ, y, i64c(L, 0), "");
            LLVMValueRef bad = LLVMBuildOr(B, either, zero, "");
            LLVMValueRef ys = LLVMBuildSelect(B, bad, i64c(L, 1), y, "");
            LLVMValueRef q = LLVMBuildSDiv(B, x, ys, ""), r = LLVMBuildSRem(B, x, ys, "");
            LLVMValueRef adj = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntNE, r, i64c(L, 0), ""),
                                            LLVMBuildXor(B, LLVMBuildICmp(B, LLVMIntSLT, r, i64c(L, 0), ""),
                                                         LLVMBuildICmp(B, LLVMIntSLT, ys, i64c(L, 0), ""), ""),
                                            "");
            q = LLVMBuildSub(B, q, LLVMBuildZExt(B, adj, L->t_i64, ""), "");
            return LLVMBuildSelect(B, bad, i64c(L, 0), q, "");
        }
        default: break;
        }
    } else {
        /* a timedelta and a number (int64 or float) */
        LLVMValueRef td = anp ? a : b, num = anp ? b : a;
        Type *nt = anp ? tb : ta;
        bool flt = ty_is_float(nt);
        if (flt && nt->kind != TY_FLOAT64)
            num = LLVMBuildFPExt(B, num, L->t_f64, "");
        LLVMValueRef isnat = lower_dt_isnat(L, td);
        if (op == OP_MUL) {
            LLVMValueRef r = flt ? from_double(L, LLVMBuildFMul(B, LLVMBuildSIToFP(B, td, L->t_f64, ""), num, ""))
                                 : LLVMBuildMul(B, td, num, "");
            return LLVMBuildSelect(B, isnat, nat, r, "");
        }
        if (op == OP_DIV || op == OP_FLOORDIV) { /* Numba: truncated; NaT for a zero or NaN divisor */
            LLVMValueRef bad;
            LLVMValueRef r;
            if (flt) {
                bad = LLVMBuildFCmp(B, LLVMRealUEQ, num, LLVMConstReal(L->t_f64, 0.0), "");
                r = from_double(L, LLVMBuildFDiv(B, LLVMBuildSIToFP(B, td, L->t_f64, ""), num, ""));
            } else {
                bad = LLVMBuildICmp(B, LLVMIntEQ, num, i64c(L, 0), "");
                LLVMValueRef d = LLVMBuildSelect(B, bad, i64c(L, 1), num, "");
                /* INT64_MIN / -1 overflows: only NaT is INT64_MIN, masked below */
                d = LLVMBuildSelect(B, isnat, i64c(L, 1), d, "");
                r = LLVMBuildSDiv(B, td, d, "");
            }
            return LLVMBuildSelect(B, LLVMBuildOr(B, isnat, bad, ""), nat, r, "");
        }
    }
    return lower_fail(L, at, HJ_DIAG_LOWERING, "unsupported datetime operator '%s'", ast_op_str(op));
}

LLVMValueRef lower_dt_compare(Lower *L, const Node *at, OpKind op, Type *op_ty, LLVMValueRef a, Type *ta,
                              LLVMValueRef b, Type *tb) {
    LLVMValueRef x = a ? to_unit(L, at, a, ta, op_ty->unit) : NULL, y = x ? to_unit(L, at, b, tb, op_ty->unit) : NULL;
    if (!y)
        return NULL;
    LLVMIntPredicate p;
    if (!lower_icmp_pred(op, true, &p))
        return lower_fail(L, at, HJ_DIAG_LOWERING, "unsupported datetime comparison '%s'", ast_op_str(op));
    LLVMValueRef either = LLVMBuildOr(B, lower_dt_isnat(L, a), lower_dt_isnat(L, b), "anynat");
    return LLVMBuildSelect(B, either, LLVMConstInt(L->t_i1, op == OP_NE, 0), LLVMBuildICmp(B, p, x, y, ""), "dtcmp");
}

/* -td (OP_NEG), +td (OP_POS), abs(td) (any other op): NaT stays NaT, its
 * negation wraps to itself. */
LLVMValueRef lower_dt_unary(Lower *L, OpKind op, LLVMValueRef v) {
    if (op == OP_POS)
        return v;
    LLVMValueRef neg = LLVMBuildNeg(B, v, "");
    if (op == OP_NEG)
        return neg;
    return LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, v, i64c(L, 0), ""), neg, v, "abs"); /* abs */
}
