/* lower_stats.c - np.cov and np.corrcoef: the shapes, checks and the
 * result array here, the arithmetic in the runtime (runtime/stats.c,
 * rt_cov).  Inference (infer_np.c cov_call) made m and y C-contiguous
 * arrays of the result dtype. */
#include "lower_np.h"
#include "np.h"

/* The variables of a C-contiguous 1-D or 2-D array: how many, the item
 * strides between variables and between observations, and the number of
 * observations (rowvar: one variable per row). */
static void layout_of(Lower *L, LLVMValueRef arr, Type *t, LLVMValueRef rowvar, LLVMValueRef *f) {
    LLVMValueRef sh[2];
    np_dims(L, arr, t->ndim, sh, NULL);
    LLVMValueRef one = lower_i64(L, 1), zero = lower_i64(L, 0);
    if (t->ndim == 1) {
        f[0] = one;
        f[1] = zero;
        f[2] = one;
        f[3] = sh[0];
        return;
    }
    f[0] = np_sel(L, rowvar, sh[0], sh[1]);
    f[1] = np_sel(L, rowvar, sh[1], one);
    f[2] = np_sel(L, rowvar, one, sh[1]);
    f[3] = np_sel(L, rowvar, sh[1], sh[0]);
}

LLVMValueRef lower_np_cov(Lower *L, Node *n, bool *owned) {
    Node *mn = np_arg(n, 0), *yn = np_arg(n, 1), *rv = np_arg(n, 2), *bs = np_arg(n, 3), *dd = np_arg(n, 4);
    Type *dt = n->ty->kind == TY_ARRAY ? n->ty->dtype : n->ty;
    bool cx = ty_is_complex(dt);
    LLVMValueRef rowvar = LLVMConstInt(L->t_i1, 1, 0);
    if (rv && !(rowvar = lower_expr_use(L, rv)))
        return NULL;
    LLVMValueRef arr[2] = {NULL, NULL}, f[2][4];
    Node *in[2] = {mn, yn};
    for (int i = 0; i < 2; i++) {
        if (!in[i])
            continue;
        bool own = false;
        if (!(arr[i] = lower_expr(L, in[i], &own)))
            return NULL;
        if (own)
            lower_temp(L, arr[i], in[i]->ty, true);
        layout_of(L, arr[i], in[i]->ty, rowvar, f[i]);
    }
    if (arr[1])
        lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntNE, f[0][3], f[1][3], ""), "ValueError",
                       "all the input array dimensions except for the concatenation axis must match exactly");
    LLVMValueRef ddof = lower_i64(L, 1);
    if (dd) {
        if (!(ddof = lower_expr_use(L, dd)))
            return NULL;
    } else if (bs) {
        LLVMValueRef b = lower_expr_use(L, bs);
        if (!b)
            return NULL;
        ddof = np_sel(L, b, lower_i64(L, 0), lower_i64(L, 1));
    }
    /* RtCovIn in[2] = {{data, nv, vs, os}, ...} */
    LLVMTypeRef fields[4] = {L->t_ptr, L->t_i64, L->t_i64, L->t_i64};
    LLVMTypeRef st = LLVMStructTypeInContext(L->ctx, fields, 4, 0);
    LLVMTypeRef at = LLVMArrayType2(st, 2);
    LLVMValueRef desc = lower_alloca(L, at, "cov.in");
    for (int i = 0; i < 2; i++) {
        LLVMValueRef v = LLVMGetUndef(st);
        v = LLVMBuildInsertValue(L->b, v, arr[i] ? lower_array_field(L, arr[i], ARR_DATA, "") : LLVMConstNull(L->t_ptr),
                                 0, "");
        for (int k = 0; k < 3; k++)
            v = LLVMBuildInsertValue(L->b, v, arr[i] ? f[i][k] : lower_i64(L, 0), (unsigned)(k + 1), "");
        LLVMValueRef idx[2] = {lower_i64(L, 0), lower_i64(L, i)};
        LLVMBuildStore(L->b, v, LLVMBuildGEP2(L->b, at, desc, idx, 2, ""));
    }
    LLVMValueRef nv = arr[1] ? LLVMBuildAdd(L->b, f[0][0], f[1][0], "nv") : f[0][0];
    LLVMValueRef out = NULL, data;
    if (n->ty->kind == TY_ARRAY) {
        LLVMValueRef dims[2] = {nv, nv};
        out = np_own(L, np_alloc(L, n->ty, dims, false), n->ty);
        data = lower_array_field(L, out, ARR_DATA, "");
    } else { /* corrcoef of one 1-D array: a number */
        data = lower_alloca(L, lower_type(L, dt), "corr");
    }
    LLVMTypeRef p[6] = {L->t_ptr, L->t_i64, L->t_i64, L->t_i32, L->t_i32, L->t_ptr};
    LLVMValueRef a[6] = {desc, f[0][3], ddof, LLVMConstInt(L->t_i32, cx, 0),
                         LLVMConstInt(L->t_i32, n->builtin == BI_NP_CORRCOEF, 0), data};
    LLVMValueRef r = lower_rt(L, "rt_cov", L->t_i32, p, 6, a);
    LLVMBasicBlockRef ok = lower_branch_raise(L, LLVMBuildICmp(L->b, LLVMIntNE, r, LLVMConstInt(L->t_i32, 0, 0), ""),
                                              "cov.err");
    lower_goto_error(L);
    lower_at(L, ok);
    if (!out) {
        *owned = false;
        return lower_load(L, lower_type(L, dt), data, "corr");
    }
    return np_give(L, out, n->ty, owned);
}
