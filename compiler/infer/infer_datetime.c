/* infer_datetime.c - the typing of datetime64 / timedelta64 operators
 * (Numba's numba/np/types/datetime.py templates, NumPy's unit rules).
 *
 * Operands keep their own types: the typer records in op_ty the type the
 * operation computes in (its unit), and lower_datetime.c converts each
 * operand's unit itself (a datetime of years or months goes to days
 * through the calendar, which no N_CAST between two units could say). */
#include "infer.h"

/* Numba's can_cast_timedelta_units: from -> to by an integer factor. */
static bool td_castable(int from, int to) {
    int64_t f;
    return from == to || (to != DT_GENERIC && ty_dt_factor(from, to, &f));
}

/* The unit of datetime[d] combined with timedelta[t] (Numba's
 * combine_datetime_timedelta_units): -1 when a month or year timedelta
 * meets a datetime of weeks or finer. */
static int combine_units(int d, int t) {
    if (d == DT_GENERIC)
        return t;
    if (t == DT_GENERIC)
        return d;
    if (t < DT_W && d >= DT_W)
        return -1;
    return d > t ? d : t;
}

static bool is_int_or_float(const Type *t) { return ty_is_int(t) || ty_is_float(t); }

Type *infer_dt_binop(Inf *I, Node *at, OpKind op, Type *a, Type *b, Type **op_ty) {
    bool adt = a->kind == TY_DATETIME, atd = a->kind == TY_TIMEDELTA;
    bool bdt = b->kind == TY_DATETIME, btd = b->kind == TY_TIMEDELTA;
    Type *r = NULL;
    switch (op) {
    case OP_ADD:
    case OP_SUB:
        if (atd && btd) {
            if (td_castable(a->unit, b->unit))
                r = b;
            else if (td_castable(b->unit, a->unit))
                r = a;
            else
                return TYPING(I, at, "cannot %s %s and %s: NumPy has no common unit for [%s] and [%s] (a month "
                                     "or a year is no whole number of days)",
                              op == OP_ADD ? "add" : "subtract", infer_tyname(I, a), infer_tyname(I, b),
                              ty_dt_unit_name(a->unit), ty_dt_unit_name(b->unit));
        } else if ((adt && btd) || (op == OP_ADD && atd && bdt)) {
            Type *d = adt ? a : b, *t = adt ? b : a;
            int u = combine_units(d->unit, t->unit);
            if (u < 0)
                return TYPING(I, at, "cannot %s %s and %s: a datetime of [%s] has no whole number of [%s]",
                              op == OP_ADD ? "add" : "subtract", infer_tyname(I, a), infer_tyname(I, b),
                              ty_dt_unit_name(d->unit), ty_dt_unit_name(t->unit));
            r = ty_datetime(I->tc, false, u);
        } else if (op == OP_SUB && adt && bdt) {
            int u = ty_dt_best_unit(a->unit, b->unit);
            *op_ty = ty_datetime(I->tc, false, u);
            return ty_datetime(I->tc, true, u);
        }
        break;
    case OP_MUL:
        if ((atd && is_int_or_float(b)) || (btd && is_int_or_float(a)))
            r = atd ? a : b;
        break;
    case OP_DIV:
    case OP_FLOORDIV:
        if (atd && is_int_or_float(b)) {
            r = a;
        } else if (atd && btd) {
            if (!td_castable(a->unit, b->unit) && !td_castable(b->unit, a->unit))
                return TYPING(I, at, "cannot divide %s by %s: NumPy has no common unit for [%s] and [%s]",
                              infer_tyname(I, a), infer_tyname(I, b), ty_dt_unit_name(a->unit),
                              ty_dt_unit_name(b->unit));
            *op_ty = ty_datetime(I->tc, true, ty_dt_best_unit(a->unit, b->unit));
            /* td / td is a float; td // td NumPy's int64 (Numba's is broken) */
            return infer_ty(I, op == OP_DIV ? TY_FLOAT64 : TY_INT64);
        }
        break;
    default:
        break;
    }
    if (!r)
        return TYPING(I, at, "unsupported operand types for '%s': %s and %s", ast_op_str(op), infer_tyname(I, a),
                      infer_tyname(I, b));
    *op_ty = r;
    return r;
}

Type *infer_dt_compare(Inf *I, Node *at, OpKind op, Type *a, Type *b) {
    if (op != OP_EQ && op != OP_NE && op != OP_LT && op != OP_LE && op != OP_GT && op != OP_GE)
        return UNSUP(I, at, "'%s' is not supported on %s and %s", ast_op_str(op), infer_tyname(I, a),
                     infer_tyname(I, b));
    if (a->kind == TY_DATETIME && b->kind == TY_DATETIME) /* any units: years and months through the calendar */
        return ty_datetime(I->tc, false, ty_dt_best_unit(a->unit, b->unit));
    if (a->kind == TY_TIMEDELTA && b->kind == TY_TIMEDELTA) {
        if (td_castable(a->unit, b->unit))
            return b;
        if (td_castable(b->unit, a->unit))
            return a;
        return TYPING(I, at, "cannot compare %s and %s: NumPy has no common unit for [%s] and [%s]",
                      infer_tyname(I, a), infer_tyname(I, b), ty_dt_unit_name(a->unit), ty_dt_unit_name(b->unit));
    }
    return TYPING(I, at, "cannot compare %s and %s", infer_tyname(I, a), infer_tyname(I, b));
}

Type *infer_dt_unary(Inf *I, Node *at, OpKind op, Type *a) {
    if (a->kind == TY_TIMEDELTA && (op == OP_NEG || op == OP_POS))
        return a;
    return TYPING(I, at, "cannot apply unary '%s' to %s", ast_op_str(op), infer_tyname(I, a));
}
