/* infer_index.c - typing of array subscripts beyond plain integers:
 * slices, None/np.newaxis, `...` (views), boolean masks and integer or
 * 1-D boolean array (advanced) indices, several of them broadcast together
 * (copies).  The resulting tree shapes are
 * IDX_BASIC/IDX_MASK/IDX_FANCY in ast.h and docs/TYPED_AST.md. */
#include "infer.h"

#include <string.h>

/* index items one subscript may hold: every axis plus as many newaxes */
#define HJ_MAX_NDIM_INDEX 64
/* dimensions of an array (HJ_MAX_NDIM of abi.h) */
#define MAX_NDIM 32

typedef enum ItemKind { IT_INT, IT_SLICE, IT_NEWAXIS, IT_ELLIPSIS, IT_ARRAY, IT_UNKNOWN } ItemKind;

static bool is_ellipsis(const Node *e) { return e->kind == N_CONST && e->cval.kind == CVAL_ELLIPSIS; }

static bool is_special_syntax(const Node *e) {
    return e->kind == N_SLICE || is_ellipsis(e) || (e->kind == N_CONST && e->cval.kind == CVAL_NONE);
}

/* One bound of a slice: absent, None, or an integer cast to int64. */
static bool slice_bound(Inf *I, Node **pb) {
    if (!*pb)
        return true;
    if ((*pb)->kind == N_CONST && (*pb)->cval.kind == CVAL_NONE) {
        if (I->final)
            *pb = NULL;
        return true;
    }
    Type *t = infer_expr(I, pb);
    if (!t)
        return false;
    if (IS_UNK(t))
        return true;
    if (!ty_is_int(t) && t->kind != TY_BOOL) {
        TYPING(I, *pb, "slice indices must be integers or None, not %s", infer_tyname(I, t));
        return false;
    }
    infer_cast(I, pb, infer_ty(I, TY_INT64));
    return true;
}

/* Classify and type one index item. */
static bool index_item(Inf *I, Node **pe, ItemKind *kind, bool *unk) {
    Node *e = *pe;
    if (is_ellipsis(e)) {
        e->ty = infer_ty(I, TY_NONE);
        *kind = IT_ELLIPSIS;
        return true;
    }
    if (e->kind == N_SLICE) {
        if (!slice_bound(I, &e->a) || !slice_bound(I, &e->b) || !slice_bound(I, &e->c))
            return false;
        e->ty = infer_ty(I, TY_NONE);
        *kind = IT_SLICE;
        return true;
    }
    Type *t = infer_expr(I, pe);
    if (!t)
        return false;
    if (IS_UNK(t)) {
        *unk = true;
        *kind = IT_UNKNOWN;
        return true;
    }
    if (infer_is_slice_value(t)) { /* s = slice(...); a[s]: the slice of its fields */
        if (e->kind != N_NAME) {
            UNSUP(I, e, "a slice value indexes an array as a variable in hpcjit (s = slice(...); a[s])");
            return false;
        }
        static const char *fields[3] = {"start", "stop", "step"};
        Node *sl = ast_new(I->a, N_SLICE, e->loc);
        Node **bounds[3] = {&sl->a, &sl->b, &sl->c};
        for (int i = 0; i < 3; i++) {
            Node *v = ast_new(I->a, N_NAME, e->loc);
            v->name = e->name;
            *bounds[i] = ast_new(I->a, N_ATTRIBUTE, e->loc);
            (*bounds[i])->a = v;
            (*bounds[i])->name = fields[i];
        }
        *pe = sl;
        return index_item(I, pe, kind, unk);
    }
    if (t->kind == TY_NONE) {
        *kind = IT_NEWAXIS;
        return true;
    }
    if (ty_is_int(t)) {
        infer_cast(I, pe, infer_ty(I, TY_INT64));
        *kind = IT_INT;
        return true;
    }
    if (t->kind == TY_ARRAY && (ty_is_int(t->dtype) || t->dtype->kind == TY_BOOL)) {
        *kind = IT_ARRAY;
        return true;
    }
    TYPING(I, *pe, "unsupported array index type %s (integers, slices, None, '...', and "
           "integer or boolean arrays are supported)", infer_tyname(I, t));
    return false;
}

/* Numba's rule: an index keeps contiguity when it is an integer, None or
 * `...`, or a slice without step on the innermost (physical) axis. */
static bool keeps(ItemKind k, bool has_step, bool innermost) {
    return k == IT_INT || k == IT_NEWAXIS || k == IT_ELLIPSIS || (innermost && k == IT_SLICE && !has_step);
}

static bool contiguous_after(ItemKind *k, bool *step, int n, bool reverse) {
    for (int j = 0; j < n; j++) {
        int i = reverse ? n - 1 - j : j;
        if (!keeps(k[i], step[i], j == n - 1))
            return false;
    }
    return true;
}

static Layout view_layout(Type *base, ItemKind *k, bool *step, int n, int ell, int n_idx) {
    /* left: items before the ellipsis, right: after it (ellipsis excluded) */
    int nl = ell < 0 ? n : ell;
    int nr = ell < 0 ? 0 : n - ell - 1;
    if (base->layout == LAYOUT_C) {
        if (n_idx == base->ndim) {
            /* every axis is named: where the ellipsis stands does not matter */
            ItemKind kk[HJ_MAX_NDIM_INDEX];
            bool ss[HJ_MAX_NDIM_INDEX];
            int m = 0;
            for (int i = 0; i < n; i++)
                if (i != ell)
                    kk[m] = k[i], ss[m++] = step[i];
            return contiguous_after(kk, ss, m, false) ? LAYOUT_C : LAYOUT_A;
        }
        if (nr > 0)
            return LAYOUT_A;
        return contiguous_after(k, step, nl, false) ? LAYOUT_C : LAYOUT_A;
    }
    if (base->layout == LAYOUT_F) {
        if (n_idx == base->ndim) {
            ItemKind kk[HJ_MAX_NDIM_INDEX];
            bool ss[HJ_MAX_NDIM_INDEX];
            int m = 0;
            for (int i = 0; i < n; i++)
                if (i != ell)
                    kk[m] = k[i], ss[m++] = step[i];
            return contiguous_after(kk, ss, m, true) ? LAYOUT_F : LAYOUT_A;
        }
        if (nl > 0)
            return LAYOUT_A;
        return contiguous_after(k + ell + 1, step + ell + 1, nr, true) ? LAYOUT_F : LAYOUT_A;
    }
    return LAYOUT_A;
}

static Node *full_slice(Inf *I, SrcLoc loc) {
    Node *s = ast_new(I->a, N_SLICE, loc);
    s->ty = infer_ty(I, TY_NONE);
    return s;
}

bool infer_index(Inf *I, Node *n, Type *base, bool store, Type **out) {
    *out = NULL;
    Node *ix = n->b;
    bool tuple = ix->kind == N_TUPLE;
    int n_items = tuple ? ix->args.len : 1;
    Node **items = tuple ? (Node **)ix->args.data : &n->b;
    if (n_items > HJ_MAX_NDIM_INDEX) {
        TYPING(I, n, "too many indices for array: array is %d-dimensional, but %d were indexed",
               base->ndim, n_items);
        return true;
    }
    /* only the forms of this file; plain integer indices stay in infer.c */
    bool special = false;
    for (int i = 0; i < n_items; i++)
        if (is_special_syntax(items[i]))
            special = true;
    ItemKind kinds[HJ_MAX_NDIM_INDEX];
    bool step[HJ_MAX_NDIM_INDEX];
    bool unk = false;
    if (!special) {
        /* a store through fewer integers than axes (a[i] = row, a[i] += b)
         * writes a sub-array: it is typed as the view a[i, :, ...] */
        bool partial_store = store && n_items < base->ndim;
        /* a name or call may still be an array or None: type the items */
        if (!partial_store && !tuple && ix->kind != N_NAME && ix->kind != N_ATTRIBUTE &&
            ix->kind != N_CALL && ix->kind != N_SUBSCRIPT && ix->kind != N_COMPARE &&
            ix->kind != N_BINOP && ix->kind != N_UNARYOP)
            return false;
        bool all_int = true;
        for (int i = 0; i < n_items; i++) {
            Type *t = infer_expr(I, &items[i]);
            if (!t) {
                return true;
            }
            if (t->kind == TY_NONE || t->kind == TY_ARRAY || infer_is_slice_value(t))
                special = true;
            if (!ty_is_int(t))
                all_int = false;
        }
        if (partial_store && all_int)
            special = true;
        if (!special)
            return false;
    }
    int ell = -1, n_idx = 0, n_new = 0, n_arr = 0, arr_at = -1, n_slices = 0;
    for (int i = 0; i < n_items; i++) {
        if (!index_item(I, &items[i], &kinds[i], &unk))
            return true;
        step[i] = kinds[i] == IT_SLICE && items[i]->c != NULL;
        switch (kinds[i]) {
        case IT_ELLIPSIS:
            if (ell >= 0) {
                TYPING(I, items[i], "an index can only have a single ellipsis ('...')");
                return true;
            }
            ell = i;
            break;
        case IT_NEWAXIS: n_new++; break;
        case IT_SLICE: n_slices++, n_idx++; break;
        case IT_INT: n_idx++; break;
        case IT_ARRAY: {
            Type *at = items[i]->ty;
            n_arr++;
            arr_at = i;
            n_idx += at->dtype->kind == TY_BOOL ? at->ndim : 1;
            break;
        }
        case IT_UNKNOWN: n_idx++; break;
        }
    }
    if (unk) {
        *out = TY_UNK(I);
        return true;
    }
    if (n_idx > base->ndim) {
        TYPING(I, n, "too many indices for array: array is %d-dimensional, but %d were indexed",
               base->ndim, n_idx);
        return true;
    }
    int fill = base->ndim - n_idx;
    IndexKind kind = IDX_BASIC;
    Type *rty = NULL;
    /* a bool array of the array's shape alone is a mask; a 1-D bool array
     * among other items stands for its true positions; integer arrays of
     * any ndim broadcast together (NumPy's advanced indexing, lower_index.c) */
    int bnd = 0; /* the ndim of the broadcast index arrays */
    for (int i = 0; n_arr && i < n_items; i++) {
        if (kinds[i] != IT_ARRAY)
            continue;
        Type *at = items[i]->ty;
        if (at->dtype->kind == TY_BOOL && !(n_items == 1 && at->ndim == base->ndim) && at->ndim != 1) {
            TYPING(I, items[i], "a %d-D boolean array index is supported only alone and of the array's shape, "
                   "not %s with %d other index item%s", at->ndim, infer_tyname(I, at), n_items - 1,
                   n_items == 2 ? "" : "s");
            return true;
        }
        if (at->ndim > bnd)
            bnd = at->ndim;
    }
    if (n_arr == 1 && items[arr_at]->ty->dtype->kind == TY_BOOL && n_items == 1 &&
        items[arr_at]->ty->ndim == base->ndim) {
        kind = IDX_MASK;
        rty = ty_array(I->tc, base->dtype, 1, LAYOUT_C);
    } else if (n_arr >= 1) {
        kind = IDX_FANCY;
        int nd = n_slices + n_new + fill + bnd;
        if (nd > MAX_NDIM) {
            TYPING(I, n, "the result of this index would have %d dimensions (at most %d)", nd, MAX_NDIM);
            return true;
        }
        rty = ty_array(I->tc, base->dtype, nd, LAYOUT_C);
    } else {
        int nd = n_slices + n_new + fill;
        rty = ty_array(I->tc, base->dtype, nd, view_layout(base, kinds, step, n_items, ell, n_idx));
    }
    if (store) {
        /* a scalar is stored into every selected element; the view type is
         * kept in op_ty for array values (see docs/TYPED_AST.md) */
        n->op_ty = rty;
        *out = base->dtype;
    } else {
        *out = rty;
    }
    n->idx_kind = kind; /* an annotation in every pass: the store hook reads it */
    if (!I->final)
        return true;
    if (kind == IDX_MASK) {
        if (tuple)
            n->b = items[0];
        return true;
    }
    /* the expanded item list: the ellipsis (or the end) becomes full slices */
    Node *tup = ast_new(I->a, N_TUPLE, ix->loc);
    for (int i = 0; i < n_items; i++) {
        if (i == ell) {
            for (int f = 0; f < fill; f++)
                vec_push(I->a, &tup->args, full_slice(I, items[i]->loc));
            continue;
        }
        vec_push(I->a, &tup->args, items[i]);
    }
    if (ell < 0)
        for (int f = 0; f < fill; f++)
            vec_push(I->a, &tup->args, full_slice(I, ix->loc));
    tup->ty = infer_ty(I, TY_NONE);
    n->b = tup;
    return true;
}

int infer_index_store_array(Inf *I, Node *t, Node **pv, Type *vt) {
    Type *base = infer_expr(I, &t->a);
    if (!base)
        return 0;
    if (base->kind != TY_ARRAY)
        return -1;
    Type *tt = NULL;
    if (!infer_index(I, t, base, true, &tt))
        return -1;
    if (!tt)
        return 0;
    if (IS_UNK(tt))
        return 1;
    if (t->idx_kind != IDX_MASK && t->idx_kind != IDX_FANCY)
        return -1; /* array into a view: array expressions (see TYPED_AST.md) */
    /* an advanced selection takes any value broadcasting to its shape
     * (checked at run time); a mask's is 1-D */
    if (t->idx_kind == IDX_FANCY ? vt->ndim > t->op_ty->ndim : (vt->ndim != 1 || t->op_ty->ndim != 1)) {
        TYPING(I, *pv, "cannot assign %s to a %d-D selection of %s (a scalar or an array that broadcasts "
               "to it is needed)", infer_tyname(I, vt), t->op_ty->ndim, infer_tyname(I, base));
        return 0;
    }
    if (!ty_can_convert(vt->dtype, base->dtype)) {
        TYPING(I, *pv, "cannot assign %s to elements of %s", infer_tyname(I, vt), infer_tyname(I, base));
        return 0;
    }
    t->ty = vt; /* the value stays an array: lowering converts element-wise */
    return 1;
}
