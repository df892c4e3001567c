/* lower_record.c - NumPy structured dtypes (TY_RECORD): a record value is
 * a pointer to its bytes (into its array or argument), so `arr[i]` is the
 * element's address, a field is a load or store at the field's offset
 * (fields of packed dtypes may be unaligned: byte alignment), a nested
 * record field is the address itself, `a[i] = r` copies the bytes, and
 * `arr.f` is a view of the field with the array's strides.  Typing:
 * infer/infer_record.c. */
#include "lower.h"

/* Address of field i of the record at p. */
static LLVMValueRef field_ptr(Lower *L, LLVMValueRef p, const Type *rt, int i) {
    LLVMValueRef off = lower_i64(L, rt->offsets[i]);
    return LLVMBuildGEP2(L->b, L->t_i8, p, &off, 1, rt->fields[i]);
}

LLVMValueRef lower_record_load(Lower *L, LLVMValueRef p, Type *ft) {
    if (ft->kind == TY_RECORD)
        return p;
    LLVMValueRef v = lower_load(L, lower_mem_type(L, ft), p, "field");
    LLVMSetAlignment(v, 1);
    return lower_from_mem(L, v, ft);
}

void lower_record_put(Lower *L, LLVMValueRef p, LLVMValueRef v, Type *ft) {
    if (ft->kind == TY_RECORD) {
        LLVMBuildMemMove(L->b, p, 1, v, 1, lower_i64(L, ft->size));
        return;
    }
    LLVMValueRef st = LLVMBuildStore(L->b, lower_to_mem(L, v, ft), p);
    LLVMSetAlignment(st, 1);
}

LLVMValueRef lower_record_field_ptr(Lower *L, Node *n, Type **fty) {
    Type *rt = n->a->ty;
    LLVMValueRef base = lower_expr_use(L, n->a);
    if (!base)
        return NULL;
    *fty = rt->elems[n->cval.i];
    return field_ptr(L, base, rt, (int)n->cval.i);
}

LLVMValueRef lower_record_attr(Lower *L, Node *n, bool *owned) {
    *owned = false;
    if (n->attr_kind == ATTR_RECORD_FIELD) {
        Type *ft = NULL;
        LLVMValueRef p = lower_record_field_ptr(L, n, &ft);
        if (p && ty_is_nested_array(ft)) { /* a subarray field: a C array over its bytes, borrowed */
            LLVMValueRef dims[HJ_MAX_NDIM_LOWER];
            if (ft->ndim > HJ_MAX_NDIM_LOWER)
                return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "too many dimensions");
            for (int d = 0; d < ft->ndim; d++)
                dims[d] = lower_i64(L, ft->offsets[d]);
            return lower_array_over(L, n->ty, p, dims);
        }
        return p ? lower_convert(L, n, lower_record_load(L, p, ft), ft, n->ty) : NULL;
    }
    /* ATTR_ARRAY_FIELD: the array with data moved to the field and the
     * field's itemsize; it shares the array's memory (a view: owned) */
    Type *aty = n->a->ty, *rt = aty->dtype;
    int i = (int)n->cval.i;
    LLVMValueRef arr = lower_expr_use(L, n->a);
    if (!arr)
        return NULL;
    LLVMValueRef data = field_ptr(L, lower_array_field(L, arr, ARR_DATA, "data"), rt, i);
    Type *ft = rt->elems[i];
    LLVMValueRef v;
    if (ty_is_nested_array(ft)) { /* arr.v: the array's axes, then the subarray's (C strides) */
        int nd = aty->ndim, sd = ft->ndim;
        int64_t stride = ty_itemsize(ft->dtype), sub = 1;
        LLVMValueRef shape = LLVMGetUndef(LLVMArrayType2(L->t_i64, (uint64_t)(nd + sd)));
        LLVMValueRef strides = shape;
        for (int d = 0; d < nd; d++) {
            shape = LLVMBuildInsertValue(L->b, shape, lower_array_dim(L, arr, ARR_SHAPE, d), (unsigned)d, "");
            strides = LLVMBuildInsertValue(L->b, strides, lower_array_dim(L, arr, ARR_STRIDES, d), (unsigned)d, "");
        }
        for (int d = sd - 1; d >= 0; d--) {
            shape = LLVMBuildInsertValue(L->b, shape, lower_i64(L, ft->offsets[d]), (unsigned)(nd + d), "");
            strides = LLVMBuildInsertValue(L->b, strides, lower_i64(L, stride), (unsigned)(nd + d), "");
            stride *= ft->offsets[d];
            sub *= ft->offsets[d];
        }
        LLVMValueRef nitems = LLVMBuildMul(L->b, lower_array_field(L, arr, ARR_NITEMS, "n"), lower_i64(L, sub), "");
        v = LLVMGetUndef(lower_type(L, n->ty));
        v = LLVMBuildInsertValue(L->b, v, lower_array_field(L, arr, ARR_MEMINFO, ""), ARR_MEMINFO, "");
        v = LLVMBuildInsertValue(L->b, v, lower_array_field(L, arr, ARR_PARENT, ""), ARR_PARENT, "");
        v = LLVMBuildInsertValue(L->b, v, nitems, ARR_NITEMS, "");
        v = LLVMBuildInsertValue(L->b, v, lower_i64(L, ty_itemsize(ft->dtype)), ARR_ITEMSIZE, "");
        v = LLVMBuildInsertValue(L->b, v, data, ARR_DATA, "");
        v = LLVMBuildInsertValue(L->b, v, shape, ARR_SHAPE, "");
        v = LLVMBuildInsertValue(L->b, v, strides, ARR_STRIDES, "field");
    } else {
        v = LLVMBuildInsertValue(L->b, arr, data, ARR_DATA, "");
        v = LLVMBuildInsertValue(L->b, v, lower_i64(L, ty_itemsize(ft)), ARR_ITEMSIZE, "field");
    }
    lower_incref(L, v, n->ty);
    *owned = true;
    return v;
}

bool lower_record_store(Lower *L, Node *target, LLVMValueRef v, Type *t) {
    Type *ft = NULL;
    LLVMValueRef p = lower_record_field_ptr(L, target, &ft);
    LLVMValueRef x = p ? lower_convert(L, target, v, t, ft) : NULL;
    if (!x)
        return false;
    lower_record_put(L, p, x, ft);
    return true;
}
