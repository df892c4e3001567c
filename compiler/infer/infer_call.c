/* infer_call.c - typing of calls (builtins, @njit functions, exception
 * constructors, conversions), attributes and iteration.  The resulting
 * tree shapes are listed in docs/TYPED_AST.md. */
#include "hpcjit/abi.h"
#include "infer.h"
#include "registry.h"

#include <stdlib.h>
#include <string.h>

Type *infer_qualname_type(Inf *I, const char *q, int *builtin);
bool infer_exc_message(Inf *I, Node *m);

static Type *T(Inf *I, TyKind k) { return infer_ty(I, k); }

/* ---- attributes ---- */

static const struct {
    const char *name;
    double value;
} module_consts[] = {
    {"math.pi", 3.141592653589793},  {"math.e", 2.718281828459045},
    {"math.tau", 6.283185307179586}, {"math.inf", __builtin_inf()},
    {"math.nan", __builtin_nan("")}, {"numpy.pi", 3.141592653589793},
    {"numpy.e", 2.718281828459045},  {"numpy.inf", __builtin_inf()},
    {"numpy.nan", __builtin_nan("")}, {"numpy.euler_gamma", 0.5772156649015329},
    {"cmath.pi", 3.141592653589793},  {"cmath.e", 2.718281828459045},
    {"cmath.tau", 6.283185307179586}, {"cmath.inf", __builtin_inf()},
    {"cmath.nan", __builtin_nan("")},
};

static const char *const submodules[] = {"numpy.linalg", "numpy.random", "numpy.fft", "hpcjit.mpi",
                                         "hpcjit.types", "hpcjit.typed", "hpcjit.cuda",
                                         "numpy.lib", "numpy.lib.stride_tricks", /* lib/nparray */
                                         "numpy.polynomial", "numpy.polynomial.polynomial", /* _nppoly.py */
                                         /* hpcjit.cuda's namespaces (lib/cuda) */
                                         "hpcjit.cuda.threadIdx", "hpcjit.cuda.blockIdx", "hpcjit.cuda.blockDim",
                                         "hpcjit.cuda.gridDim", "hpcjit.cuda.shared", "hpcjit.cuda.local",
                                         "hpcjit.cuda.const", "hpcjit.cuda.atomic", "hpcjit.cuda.cg",
                                         "hpcjit.cuda.fp16"};

/* hpcjit.mpi's int constants (python/hpcjit/mpi.py) */
static const struct {
    const char *name;
    int64_t value;
} module_ints[] = {
    {"hpcjit.mpi.SUM", 0}, {"hpcjit.mpi.PROD", 1}, {"hpcjit.mpi.MIN", 2},
    {"hpcjit.mpi.MAX", 3}, {"hpcjit.mpi.ANY_SOURCE", -1}, {"hpcjit.mpi.ANY_TAG", -1},
};

static Type *module_attr(Inf *I, Node *n, Type *mod) {
    const char *q = arena_printf(I->a, "%s.%s", mod->name, n->name);
    for (size_t i = 0; i < sizeof module_consts / sizeof module_consts[0]; i++)
        if (strcmp(module_consts[i].name, q) == 0) {
            n->attr_kind = ATTR_CONST;
            n->cval.kind = CVAL_FLOAT;
            n->cval.f = module_consts[i].value;
            return T(I, TY_FLOAT64);
        }
    for (size_t i = 0; i < sizeof module_ints / sizeof module_ints[0]; i++)
        if (strcmp(module_ints[i].name, q) == 0) {
            n->attr_kind = ATTR_CONST;
            n->cval.kind = CVAL_INT;
            n->cval.i = module_ints[i].value;
            return T(I, TY_INT64);
        }
    for (size_t i = 0; i < sizeof submodules / sizeof submodules[0]; i++)
        if (strcmp(submodules[i], q) == 0) {
            n->attr_kind = ATTR_MODULE;
            return ty_module(I->tc, q);
        }
    if (strcmp(q, "numpy.newaxis") == 0) { /* None: an index (infer_index.c) */
        n->attr_kind = ATTR_CONST;
        n->cval.kind = CVAL_NONE;
        return T(I, TY_NONE);
    }
    if (strcmp(mod->name, "hpcjit.types") == 0 || strcmp(mod->name, "hpcjit") == 0) {
        /* types.int64, numba.uint8: the type as a value */
        const char *err = NULL, *end = NULL;
        Type *st = ty_parse(I->tc, n->name, &end, &err);
        if (st && end && !*end && ty_is_number(st)) {
            n->attr_kind = ATTR_MODULE;
            return ty_dtype(I->tc, st);
        }
        if (strcmp(n->name, "unicode_type") == 0 || strcmp(n->name, "string") == 0) {
            n->attr_kind = ATTR_MODULE;
            return ty_dtype(I->tc, T(I, TY_STRING));
        }
    }
    int b = -1;
    Type *t = infer_qualname_type(I, q, &b);
    if (!t) {
        Type *et = NULL;
        if (infer_module_env_attr(I, n, q, &et)) /* mymod.f, mymod.CONST */
            return et;
        int stub = infer_extend_named(I, q); /* hpcjit.extending.overload(np.foo) */
        if (stub >= 0) {
            n->attr_kind = ATTR_MODULE;
            return ty_function(I->tc, stub);
        }
        return TYPING(I, n, "unknown attribute '%s' of module '%s' (not supported by hpcjit)", n->name,
                      mod->name);
    }
    if (b >= 0) {
        n->builtin = (BuiltinId)b;
        const LibOps *f = lib_ops((BuiltinId)b);
        Type *vt = f && f->infer_value ? f->infer_value(I, n, (BuiltinId)b) : NULL;
        if (vt) { /* cuda.threadIdx.x: a value */
            n->attr_kind = ATTR_LIB_VALUE;
            return vt;
        }
    }
    n->attr_kind = ATTR_MODULE;
    return t;
}

static bool is_record_array(const Node *e) {
    return e && e->ty && e->ty->kind == TY_ARRAY && ty_is_record(e->ty->dtype);
}

/* A call with an array of records among its operands: the library's
 * kernels are written for numbers, so only those that move whole items
 * (record_array_ok) take one. */
static bool record_array_operand(const Node *n, const Node *self) {
    if (is_record_array(self))
        return true;
    for (int i = 0; i < n->args.len; i++)
        if (is_record_array(VEC_AT(n->args, i)))
            return true;
    for (int i = 0; i < n->keywords.len; i++)
        if (is_record_array(((const Node *)VEC_AT(n->keywords, i))->a))
            return true;
    return false;
}

static bool record_array_ok(BuiltinId id) {
    static const char *const ok[] = {"array.copy", "numpy.copy", "array.reshape", "numpy.reshape",
                                     "array.transpose", "numpy.transpose", "numpy.empty_like",
                                     "numpy.shape", "numpy.ndim"};
    const char *nm = builtin_name(id);
    for (size_t i = 0; nm && i < sizeof ok / sizeof ok[0]; i++)
        if (strcmp(nm, ok[i]) == 0)
            return true;
    return false;
}

/* A datetime64/timedelta64 value or array among a call's operands: only
 * the calls below know their NaT and units; others would treat them as
 * int64 (or crash lowering), so they are refused. */
static bool is_dt_node(const Node *e) {
    const Type *t = e ? e->ty : NULL;
    return t && (ty_is_npdt(t) || (t->kind == TY_ARRAY && ty_is_npdt(t->dtype)));
}

static bool dt_operand(const Node *n, const Node *self) {
    if (is_dt_node(self))
        return true;
    for (int i = 0; i < n->args.len; i++)
        if (is_dt_node(VEC_AT(n->args, i)))
            return true;
    for (int i = 0; i < n->keywords.len; i++)
        if (is_dt_node(((const Node *)VEC_AT(n->keywords, i))->a))
            return true;
    return false;
}

static bool dt_ok(BuiltinId id) {
    static const char *const ok[] = {"array.copy", "numpy.copy", "array.reshape", "numpy.reshape",
                                     "array.transpose", "numpy.transpose", "numpy.empty_like", "numpy.zeros_like",
                                     "numpy.full_like", "numpy.full", "numpy.shape", "numpy.ndim", "array.ravel",
                                     "numpy.ravel", "array.flatten", "array.fill",
                                     /* NaT wins min/max and sorts last (lower_np.c, runtime/search.c) */
                                     "numpy.min", "numpy.max", "numpy.argmin", "numpy.argmax", "numpy.nanmin",
                                     "numpy.nanmax", "numpy.sort", "array.sort", "numpy.argsort", "numpy.unique",
                                     /* items moved, not computed with */
                                     "numpy.expand_dims", "numpy.squeeze", "numpy.repeat", "numpy.tile", "numpy.roll",
                                     "numpy.flip", "numpy.fliplr", "numpy.flipud", "numpy.rot90", "numpy.asarray",
                                     "numpy.ascontiguousarray", "numpy.swapaxes", "numpy.moveaxis",
                                     "numpy.atleast_1d", "numpy.atleast_2d", "numpy.atleast_3d", "numpy.take",
                                     "numpy.delete", "numpy.triu", "numpy.tril", "numpy.diag", "array.view",
                                     "numpy.array_equal", "numpy.diff", /* NaT - x is NaT (lower_shape.c) */
                                     "array.astype", /* to numbers only (infer_np.c) */
                                     /* lists hold them; lower_cmp compares them (NaT unordered) */
                                     "builtins.list", "builtins.sorted", "list.append", "list.extend", "list.insert",
                                     "list.pop", "list.remove", "list.index", "list.count", "list.reverse",
                                     "list.clear", "list.copy", "list.sort", "list.$getitem", "list.$getslice",
                                     "list.$delitem", "list.$delslice", "list.$add", "list.$mul", "list.$iadd",
                                     "list.$imul", "list.$min", "list.$max", "list.$minkey", "list.$maxkey", "hpcjit.typed.List",
                                     /* timedeltas only (infer_np.c) */
                                     "numpy.sum", "numpy.cumsum", "numpy.mean", "numpy.median",
                                     "numpy.searchsorted"};
    const char *nm = builtin_name(id);
    for (size_t i = 0; nm && i < sizeof ok / sizeof ok[0]; i++)
        if (strcmp(nm, ok[i]) == 0)
            return true;
    return false;
}

static bool record_array_attr_ok(const char *a) {
    static const char *const ok[] = {"T", "transpose", "reshape", "copy"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (strcmp(a, ok[i]) == 0)
            return true;
    return false;
}

Type *infer_attribute(Inf *I, Node *n) {
    Type *base = infer_expr(I, &n->a);
    if (!base)
        return NULL;
    if (IS_UNK(base))
        return base;
    const char *a = n->name;
    if (base->kind == TY_CLOSURE && strncmp(a, "$env", 4) == 0) { /* item i of its environment (closure_call) */
        int i = atoi(a + 4);
        if (i < 0 || i >= base->nelems)
            return TYPING(I, n, "no item %d in the environment of %s", i, infer_tyname(I, base));
        n->attr_kind = ATTR_TUPLE_FIELD;
        n->cval.i = i;
        return base->elems[i];
    }
    if (base->kind == TY_MODULE)
        return module_attr(I, n, base);
    if (base->kind == TY_RECORD) /* r.a1 (infer_record.c) */
        return infer_record_attr(I, n, base);
    if (base->kind == TY_ARRAY && ty_is_record(base->dtype) && ty_record_field(base->dtype, a) >= 0)
        return infer_record_attr(I, n, base); /* arr.a1: a view of the field */
    if (base->kind == TY_ARRAY) {
        Type **el = arena_alloc(I->a, sizeof(Type *) * (size_t)(base->ndim + 1));
        for (int i = 0; i < base->ndim; i++)
            el[i] = T(I, TY_INT64);
        if (strcmp(a, "shape") == 0 || strcmp(a, "strides") == 0) {
            n->attr_kind = a[1] == 'h' ? ATTR_ARRAY_SHAPE : ATTR_ARRAY_STRIDES;
            return ty_tuple(I->tc, el, base->ndim);
        }
        if (strcmp(a, "ndim") == 0 || strcmp(a, "itemsize") == 0) {
            n->attr_kind = a[0] == 'n' ? ATTR_ARRAY_NDIM : ATTR_ARRAY_ITEMSIZE;
            n->cval.kind = CVAL_INT;
            n->cval.i = a[0] == 'n' ? base->ndim : ty_itemsize(base->dtype);
            return T(I, TY_INT64);
        }
        if (strcmp(a, "size") == 0 || strcmp(a, "nbytes") == 0) {
            n->attr_kind = a[0] == 's' ? ATTR_ARRAY_SIZE : ATTR_ARRAY_NBYTES;
            return T(I, TY_INT64);
        }
        if (strcmp(a, "ctypes") == 0 && ty_is_number(base->dtype) && !ty_is_complex(base->dtype)) {
            /* a.ctypes as a C function's pointer argument, or carray's:
               the data pointer (QuantEcon passes it to LAPACK's xgesv) */
            n->attr_kind = ATTR_ARRAY_CTYPES;
            return ty_cpointer(I->tc, base->dtype);
        }
        if (strcmp(a, "dtype") == 0) {
            n->attr_kind = ATTR_ARRAY_DTYPE;
            return ty_dtype(I->tc, base->dtype);
        }
        if (strcmp(a, "copy") == 0) {
            n->attr_kind = ATTR_METHOD;
            return ty_bound_method(I->tc, BI_ARRAY_COPY, base);
        }
        if (strcmp(a, "real") == 0 || strcmp(a, "imag") == 0) /* infer_arrayexpr.c */
            return infer_ae_real_imag(I, n, base);
        if (strcmp(a, "flat") == 0) /* a.flat[i], len(a.flat), for x in a.flat: infer.c, above, infer_iter */
            return UNSUP(I, n, "a.flat is supported as a for loop's iterable, indexed by an integer "
                         "(a.flat[i], a.flat[i] = v) and in len(a.flat) by hpcjit, not as a value");
        for (int i = 0; i < lib_feature_count(); i++) { /* a.sum(), a.T, a.sort(), a.dot()... */
            const LibOps *f = lib_feature(i);
            Type *ft = NULL;
            if (f->infer_attr && f->infer_attr(I, n, base, &ft)) {
                if (ft && ty_is_record(base->dtype) && !record_array_attr_ok(a))
                    return UNSUP(I, n, "'%s' of an array of records (a structured dtype) is not supported by hpcjit", a);
                return ft;
            }
        }
        Type *xt = NULL;
        if (infer_extend_attr(I, n, base, &xt)) /* overload_method / overload_attribute */
            return xt;
        return TYPING(I, n, "unknown attribute '%s' of %s (not supported by hpcjit)", a,
                      infer_tyname(I, base));
    }
    if (base->kind == TY_JITCLASS || (base->kind == TY_DTYPE && base->dtype->kind == TY_JITCLASS))
        return infer_jc_attr(I, n, base);
    if (ty_is_intenum(base) && strcmp(a, "value") == 0) {
        /* Shape.SQUARE.value: the member as its plain integer */
        Type *t = ty_plain(I->tc, base);
        if (I->final) {
            n->kind = N_CAST;
            n->ty = t;
        }
        return t;
    }
    if (ty_is_enum(base) && strcmp(a, "value") == 0)
        a = "_value_"; /* Color.RED.value: the member's one field */
    else if (ty_is_enum(base) && strcmp(a, "name") == 0)
        return UNSUP(I, n, "the name of an Enum member (%s) is not supported (nor by Numba)",
                     infer_tyname(I, base));
    if (ty_is_named_tuple(base)) { /* p.x: the field's element */
        for (int i = 0; i < base->nelems; i++)
            if (strcmp(base->fields[i], a) == 0) {
                n->attr_kind = ATTR_TUPLE_FIELD;
                n->cval.i = i;
                return base->elems[i];
            }
        Type *xt = NULL; /* an extension type's overload_attribute/method (hpcjit/lowlevel.py) */
        if (infer_extend_attr(I, n, base, &xt))
            return xt;
        return TYPING(I, n, "%s has no field '%s'", infer_tyname(I, base), a);
    }
    const LibOps *own = lib_type_owner(base); /* lst.append, s.upper: the type's feature */
    if (own && own->infer_attr) {
        Type *ft = NULL;
        if (own->infer_attr(I, n, base, &ft))
            return ft;
    }
    if (base->kind == TY_NPGENERATOR) /* rng.normal: a Generator's methods (lib/random) */
        for (int i = 0; i < lib_feature_count(); i++) {
            const LibOps *f = lib_feature(i);
            Type *ft = NULL;
            if (f->infer_attr && f->infer_attr(I, n, base, &ft))
                return ft;
        }
    if (base->kind == TY_DTYPE && strcmp(a, "type") == 0 && ty_is_number(base->dtype)) {
        /* a.dtype.type(0): the scalar type, called as a conversion (numbagg's nansum) */
        n->attr_kind = ATTR_ARRAY_DTYPE;
        return base;
    }
    if (base->kind == TY_DTYPE && strcmp(a, "kind") == 0 &&
        (ty_is_number(base->dtype) || ty_is_npdt(base->dtype))) {
        /* out.dtype.kind == "f": NumPy's character, a constant (Numba gives 'i' for
           unsigned integers and nothing for bool and complex; this is NumPy's) */
        Type *dt = base->dtype;
        n->attr_kind = ATTR_CONST;
        n->cval.kind = CVAL_STR;
        n->cval.s = dt->kind == TY_BOOL ? "b" : ty_is_unsigned(dt) ? "u" : ty_is_int(dt) ? "i"
                    : ty_is_float(dt) ? "f" : ty_is_complex(dt) ? "c"
                    : dt->kind == TY_DATETIME ? "M" : "m";
        n->cval.slen = 1;
        return T(I, TY_STRING);
    }
    if (base->kind == TY_DTYPE && strcmp(a, "itemsize") == 0) { /* arr.dtype.itemsize, np.float32.itemsize */
        n->attr_kind = ATTR_CONST;
        n->cval.kind = CVAL_INT;
        n->cval.i = ty_itemsize(base->dtype);
        return T(I, TY_INT64);
    }
    if (ty_is_number(base) && strcmp(a, "conjugate") == 0) {
        n->attr_kind = ATTR_METHOD;
        return ty_bound_method(I->tc, BI_COMPLEX_CONJUGATE, base);
    }
    if (ty_is_number(base) && strcmp(a, "item") == 0) { /* start[i].item() (pandas' kernels) */
        n->attr_kind = ATTR_METHOD;
        return ty_bound_method(I->tc, BI_NUMBER_ITEM, base);
    }
    if (ty_is_number(base) && (strcmp(a, "real") == 0 || strcmp(a, "imag") == 0)) {
        n->attr_kind = a[0] == 'r' ? ATTR_COMPLEX_REAL : ATTR_COMPLEX_IMAG;
        if (base->kind == TY_COMPLEX64)
            return T(I, TY_FLOAT32);
        if (base->kind == TY_COMPLEX128)
            return T(I, TY_FLOAT64);
        return base;
    }
    if (base->kind == TY_BUILTIN) { /* List.empty_list, Dict.empty: a builtin's own attribute */
        int b = builtin_lookup(arena_printf(I->a, "%s.%s", builtin_name((BuiltinId)base->builtin), a));
        if (b >= 0) {
            n->builtin = (BuiltinId)b;
            n->attr_kind = ATTR_MODULE;
            return ty_builtin(I->tc, b);
        }
    }
    Type *xt = NULL;
    if (infer_extend_attr(I, n, base, &xt)) /* overload_method / overload_attribute */
        return xt;
    return TYPING(I, n, "unknown attribute '%s' of %s", a, infer_tyname(I, base));
}

int infer_has_attr(Inf *I, Type *t, const char *name, SrcLoc loc) {
    if (diag_failed(&I->c->diag))
        return -1;
    Node *base = ast_new(I->a, N_ARRAYEXPR, loc); /* a stand-in node of type t: typing it returns t */
    base->ty = t;
    Node *at = ast_new(I->a, N_ATTRIBUTE, loc);
    at->a = base;
    at->name = name;
    if (infer_attribute(I, at))
        return 1;
    if (I->a->oom)
        return -1;
    diag_free(&I->c->diag); /* no such attribute: the attempt's error is not the user's */
    diag_init(&I->c->diag);
    return 0;
}

/* ---- argument slots ---- */

/* Put positional and keyword arguments of `n` into `nslot` slots named
 * `names` (NULL for absent).  In the final pass the call's args/keywords
 * are replaced by the slots. */
static bool slots(Inf *I, Node *n, const char *fname, const char *const *names, int nslot,
                  Node **out) {
    for (int i = 0; i < nslot; i++)
        out[i] = NULL;
    if (n->args.len > nslot) {
        TYPING(I, n, "%s() takes at most %d argument%s (%d given)", fname, nslot,
             nslot == 1 ? "" : "s", n->args.len);
        return false;
    }
    for (int i = 0; i < n->args.len; i++)
        out[i] = VEC_AT(n->args, i);
    for (int k = 0; k < n->keywords.len; k++) {
        Node *kw = VEC_AT(n->keywords, k);
        int j = -1;
        for (int i = 0; i < nslot; i++)
            if (names[i] && strcmp(names[i], kw->name) == 0)
                j = i;
        if (j < 0) {
            TYPING(I, kw, "%s() got an unexpected keyword argument '%s'", fname, kw->name);
            return false;
        }
        if (out[j]) {
            TYPING(I, kw, "%s() got multiple values for argument '%s'", fname, kw->name);
            return false;
        }
        out[j] = kw->a;
    }
    return true;
}

/* Store the slots as the call's arguments (final pass). */
static void set_args(Inf *I, Node *n, Node **sl, int ns) {
    if (!I->final)
        return;
    PtrVec v = {0};
    for (int i = 0; i < ns; i++)
        vec_push(I->a, &v, sl[i]);
    n->args = v;
    n->keywords.len = 0;
}

static bool no_keywords(Inf *I, Node *n, const char *fname) {
    if (n->keywords.len) {
        Node *kw = VEC_AT(n->keywords, 0);
        TYPING(I, kw, "%s() takes no keyword arguments", fname);
        return false;
    }
    return true;
}

static bool nargs_between(Inf *I, Node *n, const char *fname, int lo, int hi) {
    int k = n->args.len;
    if (k < lo || k > hi) {
        if (lo == hi)
            TYPING(I, n, "%s() takes %d argument%s (%d given)", fname, lo,
                 lo == 1 ? "" : "s", k);
        else
            TYPING(I, n, "%s() takes %d to %d arguments (%d given)", fname, lo, hi, k);
        return false;
    }
    return true;
}

/* Positional arguments (the receiver first for methods) and keywords into
 * the slots of `s` (the library areas' builtins: infer_np.c, infer_search.c). */
bool infer_method_attr(Inf *I, Node *n, Type *base, bool (*handles)(BuiltinId), Type **out) {
    int b = builtin_lookup(arena_printf(I->a, "array.%s", n->name));
    if (b < 0 || !handles((BuiltinId)b))
        return false;
    n->attr_kind = ATTR_METHOD;
    *out = ty_bound_method(I->tc, b, base);
    return true;
}

bool infer_bind_slots(Inf *I, Node *n, Node *self, const InferSig *s, Node **sl) {
    for (int i = 0; i < INFER_MAX_SLOTS; i++)
        sl[i] = NULL;
    int k = 0;
    if (self)
        sl[k++] = self;
    if (n->args.len + k > s->n) {
        TYPING(I, n, "%s() takes at most %d argument%s (%d given)", s->fname, s->n - k,
             s->n - k == 1 ? "" : "s", n->args.len);
        return false;
    }
    for (int i = 0; i < n->args.len; i++)
        sl[k++] = VEC_AT(n->args, i);
    for (int j = 0; j < n->keywords.len; j++) {
        Node *kw = VEC_AT(n->keywords, j);
        int at = -1;
        for (int i = self ? 1 : 0; i < s->n; i++)
            if (kw->name && strcmp(s->names[i], kw->name) == 0)
                at = i;
        if (at < 0) {
            TYPING(I, kw, "%s() got an unexpected keyword argument '%s'", s->fname,
                 kw->name ? kw->name : "**");
            return false;
        }
        if (sl[at]) {
            TYPING(I, kw, "%s() got multiple values for argument '%s'", s->fname, kw->name);
            return false;
        }
        sl[at] = kw->a;
    }
    return true;
}

/* Store the slots as the call's arguments (final pass). */
void infer_store_slots(Inf *I, Node *n, Node **sl, int ns) {
    if (!I->final)
        return;
    PtrVec v = {0};
    for (int i = 0; i < ns; i++)
        vec_push(I->a, &v, sl[i]);
    n->args = v;
    n->keywords.len = 0;
    n->self_node = NULL;
    n->self_in_args = 1;
}

#define ARG(i) ((Node **)&VEC_AT(n->args, (i)))

/* The float type math functions compute in for a real number. */
static Type *float_of(Inf *I, Type *t) {
    return t->kind == TY_FLOAT32 ? t : t->kind == TY_FLOAT16 ? T(I, TY_FLOAT32) : T(I, TY_FLOAT64);
}

/* math functions numba-cuda gives a float16 version (its
 * Math_unary_with_fp16); the others take float16 as float32. */
static bool has_half_version(BuiltinId id) {
    switch (id) {
    case BI_MATH_SIN: case BI_MATH_COS: case BI_MATH_SQRT: case BI_MATH_LOG: case BI_MATH_LOG2:
    case BI_MATH_LOG10: case BI_MATH_EXP: case BI_MATH_FABS: case BI_MATH_CEIL: case BI_MATH_FLOOR:
    case BI_MATH_TRUNC:
        return true;
    default:
        return false;
    }
}

static Type *need_real(Inf *I, Node *at, Type *t, const char *fname) {
    if (ty_is_number(t) && !ty_is_complex(t))
        return t;
    return TYPING(I, at, "%s() does not accept %s%s", fname, infer_tyname(I, t),
                  t->kind == TY_ARRAY ? " (array arguments are not supported yet)" : "");
}

static Type *need_number(Inf *I, Node *at, Type *t, const char *fname) {
    if (ty_is_number(t))
        return t;
    return TYPING(I, at, "%s() does not accept %s%s", fname, infer_tyname(I, t),
                  t->kind == TY_ARRAY ? " (array arguments are not supported yet)" : "");
}

/* Type every argument; false on error, *unk when one is still unknown. */
static bool type_args(Inf *I, Node *n, Type **tys, bool *unk) {
    *unk = false;
    for (int i = 0; i < n->args.len; i++) {
        if (!VEC_AT(n->args, i)) {
            tys[i] = NULL;
            continue;
        }
        tys[i] = infer_expr(I, ARG(i));
        if (!tys[i])
            return false;
        if (IS_UNK(tys[i]))
            *unk = true;
    }
    return true;
}

/* Turn the call into an N_CAST of its one argument (final pass). */
static Type *rewrite_cast(Inf *I, Node *n, Type *to) {
    if (I->final) {
        Node *arg = VEC_AT(n->args, 0);
        n->kind = N_CAST;
        n->a = arg;
        n->args.len = 0;
        n->keywords.len = 0;
    }
    return to;
}

/* npextra: float(a), int(a) of a 0-d array (np.nditer's items) convert
 * a[()].  The argument is typed once per pass, so the subscript wraps it in
 * the pass after the one that found the 0-d array (its type then). */
static bool zero_d_number(const Type *t) {
    return t && t->kind == TY_ARRAY && t->ndim == 0 && ty_is_number(t->dtype);
}

static Type *conversion(Inf *I, Node *n, const char *fname, Type *to) {
    Node *a0 = n->args.len >= 1 ? VEC_AT(n->args, 0) : NULL;
    if (a0 && to->kind != TY_BOOL && a0->kind != N_SUBSCRIPT && a0->ty && zero_d_number(infer_value_ty(a0))) {
        Node *e = ast_new(I->a, N_SUBSCRIPT, a0->loc);
        e->a = a0;
        e->b = ast_new(I->a, N_TUPLE, a0->loc);
        VEC_AT(n->args, 0) = e;
    }
    Type *t = NULL;
    if (n->args.len >= 1 && (to->kind == TY_INT64 || to->kind == TY_FLOAT64)) { /* int(s), float(s): str's owner */
        t = infer_expr(I, ARG(0));
        if (!t)
            return NULL;
        const LibOps *own = IS_UNK(t) ? NULL : lib_type_owner(t);
        if (t->kind == TY_STRING && own && own->infer_call)
            return own->infer_call(I, n, to->kind == TY_INT64 ? BI_INT : BI_FLOAT, NULL);
    }
    if (!no_keywords(I, n, fname) || !nargs_between(I, n, fname, 1, 1))
        return NULL;
    if (!t && !(t = infer_expr(I, ARG(0)))) /* typed once: a method call's receiver moves into its args */
        return NULL;
    if (IS_UNK(t))
        return t;
    if (to->kind == TY_INT64 && t->kind == TY_TIMEDELTA) /* int(td): its count, as Numba (NaT: INT64_MIN) */
        return rewrite_cast(I, n, to);
    if (to->kind != TY_BOOL && zero_d_number(t) && !I->final && !ty_is_complex(t->dtype))
        return to; /* wrapped in the next pass */
    if (to->kind == TY_BOOL) {
        if (!(ty_is_number(t) || t->kind == TY_NONE || t->kind == TY_ARRAY || t->kind == TY_TUPLE ||
              (lib_type_owner(t) && lib_type_owner(t)->lower_len)))
            return TYPING(I, n, "cannot convert %s to bool", infer_tyname(I, t));
    } else if (!ty_is_number(t) || (ty_is_complex(t) && !ty_is_complex(to))) {
        return TYPING(I, n, "cannot convert %s to %s", infer_tyname(I, t), infer_tyname(I, to));
    }
    return rewrite_cast(I, n, to);
}

static Type *alloc_call(Inf *I, Node *n, BuiltinId id, const char *fname) {
    static const char *const names[] = {"shape", "dtype"};
    Node *sl[2];
    if (!slots(I, n, fname, names, 2, sl))
        return NULL;
    if (!sl[0])
        return TYPING(I, n, "%s() missing required argument 'shape'", fname);
    Type *dt = T(I, TY_FLOAT64);
    /* typed once: a call typed twice in the final pass would lose its rewritten arguments */
    bool typed = sl[1] && sl[1]->kind != N_CONST;
    Type *rt = typed ? infer_expr(I, &sl[1]) : NULL; /* DT, a.dtype */
    if (typed && !rt)
        return NULL;
    if (rt && rt->kind == TY_DTYPE && rt->dtype->kind == TY_RECORD) { /* a structured dtype: records */
        if (id != BI_NP_EMPTY && id != BI_NP_ZEROS)
            return TYPING(I, sl[1], "%s() of a structured dtype is not supported (np.empty and np.zeros are)", fname);
        dt = rt->dtype;
    } else if (sl[1]) {
        dt = typed ? infer_dtype_of(I, sl[1], rt) : infer_dtype_arg(I, &sl[1]);
        if (!dt)
            return NULL;
    }
    bool unk = false;
    int nd = infer_int_tuple(I, &sl[0], NULL, NULL, &unk);
    if (nd < 0)
        return NULL;
    if (unk || IS_UNK(dt))
        return TY_UNK(I);
    sl[1] = NULL; /* the dtype lives in the result type */
    set_args(I, n, sl, 2);
    return ty_array(I->tc, dt, nd, LAYOUT_C);
}

/* carray(ptr, shape, dtype=None), farray(...): an array view (C / Fortran
 * order) over the memory ptr points to; the dtype is the pointer's, or
 * given for a void*.  $ptr_view(ptr, i): the one-element view at ptr + i. */
static Type *carray_call(Inf *I, Node *n, BuiltinId id, const char *fname) {
    static const char *const names[] = {"ptr", "shape", "dtype"};
    Node *sl[3];
    if (!slots(I, n, fname, names, 3, sl))
        return NULL;
    if (!sl[0] || !sl[1])
        return TYPING(I, n, "%s() missing required argument '%s'", fname, sl[0] ? "shape" : "ptr");
    Type *pt = infer_expr(I, &sl[0]);
    if (!pt)
        return NULL;
    if (IS_UNK(pt))
        return pt;
    if (pt->kind != TY_CPOINTER)
        return TYPING(I, sl[0], "%s() needs a C pointer (a cfunc's CPointer or voidptr argument), not %s",
                      fname, infer_tyname(I, pt));
    if (id == BI_PTR_VIEW) {
        Type *it = infer_expr(I, &sl[1]);
        if (!it || IS_UNK(it))
            return it;
        if (!ty_is_int(it) && it->kind != TY_BOOL)
            return TYPING(I, sl[1], "a C pointer index must be an integer, not %s", infer_tyname(I, it));
        if (!pt->dtype)
            return TYPING(I, n, "a void* cannot be indexed (make an array of it: carray(ptr, shape, dtype))");
        infer_cast(I, &sl[1], T(I, TY_INT64));
        set_args(I, n, sl, 2);
        return ty_array(I->tc, pt->dtype, 1, LAYOUT_C);
    }
    Type *dt = pt->dtype;
    if (sl[2]) {
        Type *given = infer_dtype_arg(I, &sl[2]);
        if (!given)
            return NULL;
        if (IS_UNK(given))
            return given;
        if (dt && given != dt)
            return TYPING(I, sl[2], "%s(): the dtype %s does not match the pointer's %s", fname,
                          infer_tyname(I, given), infer_tyname(I, pt));
        dt = given;
    }
    if (!dt)
        return TYPING(I, n, "%s() of a void* needs a dtype", fname);
    bool unk = false;
    int nd = infer_int_tuple(I, &sl[1], NULL, NULL, &unk);
    if (nd < 0)
        return NULL;
    if (unk)
        return TY_UNK(I);
    sl[2] = NULL; /* the dtype lives in the result type */
    set_args(I, n, sl, 2);
    return ty_array(I->tc, dt, nd, id == BI_FARRAY ? LAYOUT_F : LAYOUT_C);
}

static Type *like_call(Inf *I, Node *n, const char *fname) {
    static const char *const names[] = {"a", "dtype"};
    Node *sl[2];
    if (!slots(I, n, fname, names, 2, sl))
        return NULL;
    if (!sl[0])
        return TYPING(I, n, "%s() missing required argument 'a'", fname);
    Type *t = infer_expr(I, &sl[0]);
    if (!t)
        return NULL;
    Type *dt = NULL;
    if (sl[1] && !(dt = infer_dtype_arg(I, &sl[1])))
        return NULL;
    if (IS_UNK(t) || (dt && IS_UNK(dt)))
        return TY_UNK(I);
    if (t->kind != TY_ARRAY)
        return TYPING(I, n, "%s() needs an array, not %s", fname, infer_tyname(I, t));
    if (ty_is_record(dt ? dt : t->dtype) && strstr(fname, "ones_like"))
        return UNSUP(I, n, "ones_like() of an array of records (a structured dtype) is not supported by hpcjit");
    sl[1] = NULL;
    set_args(I, n, sl, 2);
    /* NumPy's order='K' keeps F for F inputs; Numba types A inputs as C */
    return ty_array(I->tc, dt ? dt : t->dtype, t->ndim, t->layout == LAYOUT_F ? LAYOUT_F : LAYOUT_C);
}

static Type *arange_call(Inf *I, Node *n) {
    static const char *const names[] = {"start", "stop", "step", "dtype"};
    Node *sl[4];
    if (!slots(I, n, "arange", names, 4, sl))
        return NULL;
    if (n->args.len == 1 && !sl[1]) { /* arange(stop) */
        sl[1] = sl[0];
        sl[0] = NULL;
    }
    if (!sl[1])
        return TYPING(I, n, "arange() needs a stop value");
    Type *dt = NULL;
    if (sl[3] && !(dt = infer_dtype_arg(I, &sl[3])))
        return NULL;
    Type *ct = T(I, TY_INT64);
    for (int i = 0; i < 3; i++) {
        if (!sl[i])
            continue;
        Type *t = infer_expr(I, &sl[i]);
        if (!t)
            return NULL;
        if (IS_UNK(t))
            return t;
        if (!need_real(I, sl[i], t, "arange"))
            return NULL;
        if (ty_is_float(t))
            ct = T(I, TY_FLOAT64);
    }
    if (dt && IS_UNK(dt))
        return dt;
    if (I->final) {
        if (!sl[0])
            sl[0] = infer_const_int(I, n->loc, 0);
        if (!sl[2])
            sl[2] = infer_const_int(I, n->loc, 1);
        for (int i = 0; i < 3; i++)
            infer_cast(I, &sl[i], ct);
        sl[3] = NULL;
        set_args(I, n, sl, 4);
    }
    return ty_array(I->tc, dt ? dt : ct, 1, LAYOUT_C);
}

Type *infer_range_call(Inf *I, Node *n, const char *fname) {
    if (!no_keywords(I, n, fname) || !nargs_between(I, n, fname, 1, 3))
        return NULL;
    Type *tys[3];
    bool unk;
    if (!type_args(I, n, tys, &unk))
        return NULL;
    for (int i = 0; i < n->args.len; i++)
        if (!IS_UNK(tys[i]) && !ty_is_int(tys[i]))
            return TYPING(I, VEC_AT(n->args, i), "%s() arguments must be integers, not %s", fname,
                          infer_tyname(I, tys[i]));
    if (unk)
        return TY_UNK(I);
    if (n->args.len == 3) {
        Node *st = VEC_AT(n->args, 2);
        if (st->kind == N_CONST && st->cval.kind == CVAL_INT && st->cval.i == 0)
            return TYPING(I, st, "%s() step must not be zero", fname);
    }
    if (I->final) {
        Node *sl[3];
        if (n->args.len == 1) {
            sl[0] = infer_const_int(I, n->loc, 0);
            sl[1] = VEC_AT(n->args, 0);
            sl[2] = infer_const_int(I, n->loc, 1);
        } else {
            sl[0] = VEC_AT(n->args, 0);
            sl[1] = VEC_AT(n->args, 1);
            sl[2] = n->args.len == 3 ? VEC_AT(n->args, 2) : infer_const_int(I, n->loc, 1);
        }
        for (int i = 0; i < 3; i++)
            infer_cast(I, &sl[i], T(I, TY_INT64));
        set_args(I, n, sl, 3);
    }
    return T(I, TY_RANGE);
}

/* slice(stop), slice(start, stop[, step]) as a value (QuantEcon's
 * `slice_ = slice(None, None, step)` then `a[slice_]`): a named tuple
 * "slice" of three int64 (infer_is_slice_value), start/stop/step readable
 * as fields.  None is filled as Numba's slices do, by the step's sign:
 * start 0 (step > 0) or INT64_MAX, stop INT64_MAX or INT64_MIN,
 * which indexing clamps to the array as Python's slice.indices does; so
 * a None bound with a step known only at run time needs the step as a name
 * or a constant (it is read again). */
static Node *cmp_node(Inf *I, Node *step, OpKind op) {
    Node *c = ast_new(I->a, N_COMPARE, step->loc);
    c->a = step;
    vec_push(I->a, &c->args, infer_const_int(I, step->loc, 0));
    c->ops = arena_alloc(I->a, sizeof(OpKind));
    c->ops[0] = op;
    return c;
}

static Node *copy_operand(Inf *I, const Node *e) {
    Node *k = ast_new(I->a, e->kind, e->loc);
    k->name = e->name;
    k->cval = e->cval;
    return k;
}

static Node *slice_default(Inf *I, Node *step, int64_t if_pos, int64_t if_neg) {
    if (!step)
        return infer_const_int(I, (SrcLoc){0}, if_pos);
    if (step->kind == N_CONST)
        return infer_const_int(I, step->loc, step->cval.i > 0 ? if_pos : if_neg);
    Node *e = ast_new(I->a, N_IFEXP, step->loc);
    e->a = cmp_node(I, copy_operand(I, step), OP_GT);
    e->b = infer_const_int(I, step->loc, if_pos);
    e->c = infer_const_int(I, step->loc, if_neg);
    return e;
}

static bool is_none(const Node *e) { return e->kind == N_CONST && e->cval.kind == CVAL_NONE; }

Type *infer_slice_type(Inf *I) {
    static const char *fields[3] = {"start", "stop", "step"};
    Type *el[3] = {T(I, TY_INT64), T(I, TY_INT64), T(I, TY_INT64)};
    return ty_named_tuple(I->tc, el, 3, -1, "slice", fields);
}

bool infer_is_slice_value(const Type *t) {
    return ty_is_named_tuple(t) && t->func == -1 && t->name && strcmp(t->name, "slice") == 0;
}

static Type *slice_call(Inf *I, Node *n, const char *fname) {
    if (!no_keywords(I, n, fname) || !nargs_between(I, n, fname, 1, 3))
        return NULL;
    Type *tys[3];
    bool unk;
    if (!type_args(I, n, tys, &unk))
        return NULL;
    for (int i = 0; i < n->args.len; i++)
        if (!IS_UNK(tys[i]) && !ty_is_int(tys[i]) && tys[i]->kind != TY_BOOL && tys[i]->kind != TY_NONE)
            return TYPING(I, VEC_AT(n->args, i), "slice indices must be integers or None, not %s",
                          infer_tyname(I, tys[i]));
    if (unk)
        return TY_UNK(I);
    Node *sl[3] = {NULL, NULL, NULL}; /* start, stop, step; NULL: None */
    for (int i = 0; i < n->args.len; i++) {
        Node *a = VEC_AT(n->args, i);
        sl[n->args.len == 1 ? 1 : i] = is_none(a) ? NULL : a;
    }
    Node *step = sl[2];
    if (step && (step->kind == N_CONST || (step->kind == N_CAST && step->a->kind == N_CONST))) {
        Node *k = step->kind == N_CONST ? step : step->a;
        if (k->cval.kind == CVAL_INT && k->cval.i == 0)
            return TYPING(I, step, "slice step cannot be zero");
        step = k;
    }
    if (step && step->kind != N_CONST && step->kind != N_NAME && (!sl[0] || !sl[1]))
        return UNSUP(I, step, "slice() with a None bound takes its step as a name or a constant in hpcjit "
                     "(bind the step to a variable first)");
    if (I->final) {
        Node *v[3];
        v[0] = sl[0] ? sl[0] : slice_default(I, step, 0, INT64_MAX);
        v[1] = sl[1] ? sl[1] : slice_default(I, step, INT64_MAX, INT64_MIN);
        v[2] = sl[2] ? sl[2] : infer_const_int(I, n->loc, 1);
        PtrVec args = {0};
        for (int i = 0; i < 3; i++) {
            if (!v[i]->loc.file)
                v[i]->loc = n->loc;
            Type *t = infer_expr(I, &v[i]);
            if (!t)
                return NULL;
            infer_cast(I, &v[i], T(I, TY_INT64));
            vec_push(I->a, &args, v[i]);
        }
        n->kind = N_TUPLE;
        n->args = args;
        n->keywords.len = 0;
        n->ty = infer_slice_type(I);
    }
    return infer_slice_type(I);
}

static bool is_unary_float_math(BuiltinId id) {
    switch (id) {
    case BI_MATH_ACOS: case BI_MATH_ACOSH: case BI_MATH_ASIN: case BI_MATH_ASINH: case BI_MATH_ATAN:
    case BI_MATH_ATANH: case BI_MATH_COS: case BI_MATH_COSH: case BI_MATH_DEGREES: case BI_MATH_ERF:
    case BI_MATH_ERFC: case BI_MATH_EXP: case BI_MATH_EXPM1: case BI_MATH_FABS: case BI_MATH_GAMMA:
    case BI_MATH_LGAMMA: case BI_MATH_LOG10: case BI_MATH_LOG1P: case BI_MATH_LOG2:
    case BI_MATH_RADIANS: case BI_MATH_SIN: case BI_MATH_SINH: case BI_MATH_SQRT: case BI_MATH_TAN:
    case BI_MATH_TANH:
        return true;
    default:
        return false;
    }
}

/* Short name for messages: "math.sqrt" -> "math.sqrt", "builtins.abs" -> "abs". */
static const char *short_name(BuiltinId id) {
    const char *s = builtin_name(id);
    if (strncmp(s, "builtins.", 9) == 0)
        return s + 9;
    if (strncmp(s, "numpy.", 6) == 0) {
        static _Thread_local char buf[64];
        size_t n = strlen(s + 6);
        if (n > sizeof buf - 4)
            n = sizeof buf - 4;
        memcpy(buf, "np.", 3);
        memcpy(buf + 3, s + 6, n);
        buf[3 + n] = 0;
        return buf;
    }
    return s;
}

static Type *abs_type(Inf *I, Node *n, Type *t, const char *fname) {
    if (!need_number(I, VEC_AT(n->args, 0), t, fname))
        return NULL;
    if (ty_is_complex(t))
        return T(I, t->kind == TY_COMPLEX64 ? TY_FLOAT32 : TY_FLOAT64);
    if (ty_is_float(t))
        return t;
    Type *it = T(I, ty_is_unsigned(t) ? TY_UINT64 : TY_INT64);
    infer_cast(I, ARG(0), it);
    return it;
}

/* cmath functions (Numba's set): a real argument becomes complex128, a
 * complex one keeps its type. */
static Type *cmath_type(Inf *I, Type *t) {
    return ty_is_complex(t) ? t : T(I, TY_COMPLEX128);
}

static Type *cmath_call(Inf *I, Node *n, BuiltinId id, Type **tys, const char *fname) {
    int k = n->args.len;
    int lo = 1, hi = 1;
    if (id == BI_CMATH_LOG)
        hi = 2;
    if (id == BI_CMATH_RECT)
        lo = hi = 2;
    if (!nargs_between(I, n, fname, lo, hi))
        return NULL;
    for (int i = 0; i < k; i++)
        if (!(id == BI_CMATH_RECT ? need_real : need_number)(I, VEC_AT(n->args, i), tys[i], fname))
            return NULL;
    if (id == BI_CMATH_RECT) {
        for (int i = 0; i < 2; i++)
            infer_cast(I, ARG(i), T(I, TY_FLOAT64));
        return T(I, TY_COMPLEX128);
    }
    Type *ct = cmath_type(I, tys[0]);
    if (k == 2 && (ct != tys[1] || !ty_is_complex(tys[1]))) /* log(z, base): one type for both */
        ct = T(I, TY_COMPLEX128);
    for (int i = 0; i < k; i++)
        infer_cast(I, ARG(i), ct);
    Type *ft = T(I, ct->kind == TY_COMPLEX64 ? TY_FLOAT32 : TY_FLOAT64);
    switch (id) {
    case BI_CMATH_ISNAN: case BI_CMATH_ISINF: case BI_CMATH_ISFINITE:
        return T(I, TY_BOOL);
    case BI_CMATH_PHASE:
        return ft;
    case BI_CMATH_POLAR: {
        Type *el[2] = {ft, ft};
        return ty_tuple(I->tc, el, 2);
    }
    default:
        return ct;
    }
}

static bool is_cmath(BuiltinId id) {
    switch (id) {
    case BI_CMATH_ACOS: case BI_CMATH_ACOSH: case BI_CMATH_ASIN: case BI_CMATH_ASINH: case BI_CMATH_ATAN:
    case BI_CMATH_ATANH: case BI_CMATH_COS: case BI_CMATH_COSH: case BI_CMATH_EXP: case BI_CMATH_ISFINITE:
    case BI_CMATH_ISINF: case BI_CMATH_ISNAN: case BI_CMATH_LOG: case BI_CMATH_LOG10: case BI_CMATH_PHASE:
    case BI_CMATH_POLAR: case BI_CMATH_RECT: case BI_CMATH_SIN: case BI_CMATH_SINH: case BI_CMATH_SQRT:
    case BI_CMATH_TAN: case BI_CMATH_TANH:
        return true;
    default:
        return false;
    }
}

/* The accumulator of sum(): Python adds left to right from `start`; an
 * integer start with float or complex items takes their type (a Python int
 * is a weak scalar for NumPy: 0 + float32 is float32), otherwise the
 * arithmetic promotion. */
static Type *sum_acc(Inf *I, Type *acc, Type *item) {
    if ((ty_is_float(item) || ty_is_complex(item)) && !ty_is_float(acc) && !ty_is_complex(acc))
        return item;
    return ty_promote_arith(I->tc, acc, item);
}

/* min(g), max(g), sum(g): a generator object's items become a list,
 * `list(g)` (lib/list), whose owner then types the call.  *px is replaced
 * by that call; the caller puts the argument back unless this is the final
 * pass (earlier passes keep the tree's shape).  NULL after a diagnostic. */
static Type *gen_as_list(Inf *I, Node **px) {
    Node *c = ast_new(I->a, N_CALL, (*px)->loc);
    c->call_kind = CALL_BUILTIN;
    c->builtin = BI_LIST;
    vec_push(I->a, &c->args, *px);
    const LibOps *ops = lib_ops(BI_LIST);
    Type *lt = ops && ops->infer_call ? ops->infer_call(I, c, BI_LIST, NULL) : NULL;
    if (!lt)
        return NULL;
    c->ty = lt;
    *px = c;
    return lt;
}

/* A value sum(), min() and max() take as list(v): a generator object, or
 * a value iterated by a cursor (a set, a dict or one of its views). */
static bool via_list(const Type *t) {
    const LibOps *own = t->kind == TY_GENERATOR ? NULL : lib_type_owner(t);
    return t->kind == TY_GENERATOR || (own && own->lower_iter_begin);
}

/* sum(iterable, start=0): iterable a 1-D array, a range or a tuple of
 * numbers; args become [iterable, start or NULL], ty the accumulator. */
static Type *sum_call(Inf *I, Node *n, const char *fname) {
    static const char *const names[] = {"iterable", "start"};
    Node *sl[2];
    if (!slots(I, n, fname, names, 2, sl))
        return NULL;
    if (!sl[0])
        return TYPING(I, n, "sum() missing required argument 'iterable'");
    set_args(I, n, sl, 2);
    /* taken as list(v): list() types v, once in the final pass (which
     * rewrites what it types), where the pass before gave v's type */
    Type *prev = I->final && sl[0]->ty ? infer_value_ty(sl[0]) : NULL;
    Type *x = prev && via_list(prev) ? prev : infer_expr(I, &sl[0]);
    Type *st = x && sl[1] ? infer_expr(I, &sl[1]) : T(I, TY_INT64);
    if (!x || !st)
        return NULL;
    if (IS_UNK(x) || IS_UNK(st))
        return TY_UNK(I);
    Node *gen = via_list(x) ? sl[0] : NULL;
    if (gen && !(x = gen_as_list(I, &sl[0]))) /* sum(g), sum(d.values()): of list(g) */
        return NULL;
    if (lib_type_owner(x) && lib_type_owner(x)->infer_call) { /* sum(lst): args [iterable, start or NULL] */
        set_args(I, n, sl, 2);
        Type *r = lib_type_owner(x)->infer_call(I, n, BI_SUM, NULL);
        if (gen && !I->final)
            VEC_AT(n->args, 0) = gen;
        return r;
    }
    if (!ty_is_number(st))
        return TYPING(I, sl[1], "sum() start must be a number, not %s", infer_tyname(I, st));
    Type *acc = st->kind == TY_BOOL ? T(I, TY_INT64) : st;
    if (x->kind == TY_ARRAY && x->ndim == 1 && ty_is_number(x->dtype)) {
        acc = sum_acc(I, acc, x->dtype->kind == TY_BOOL ? T(I, TY_INT64) : x->dtype);
    } else if (x->kind == TY_RANGE) {
        acc = ty_promote_arith(I->tc, acc, T(I, TY_INT64));
    } else if (x->kind == TY_TUPLE) {
        for (int i = 0; i < x->nelems; i++) {
            if (!ty_is_number(x->elems[i]))
                return TYPING(I, sl[0], "sum() of %s: the items must be numbers", infer_tyname(I, x));
            acc = sum_acc(I, acc, x->elems[i]->kind == TY_BOOL ? T(I, TY_INT64) : x->elems[i]);
        }
    } else if (x->kind == TY_ARRAY && x->ndim > 1) {
        return UNSUP(I, sl[0], "sum() of a %dd array (the sum of its rows) is not supported by hpcjit: use "
                     "np.sum(a, axis=0)", x->ndim);
    } else {
        return TYPING(I, sl[0], "sum() needs a 1-d array, a range or a tuple of numbers, not %s",
                      infer_tyname(I, x));
    }
    if (sl[1])
        infer_cast(I, &sl[1], acc);
    set_args(I, n, sl, 2);
    return acc;
}

/* type(x) of a number: its class (Numba's NumberClass), called as a
 * conversion: `type(scale)(1)`.  The call becomes a constant of the class
 * in the final pass (x is not evaluated, as isinstance). */
static Type *type_call(Inf *I, Node *n) {
    if (!no_keywords(I, n, "type") || !nargs_between(I, n, "type", 1, 1))
        return NULL;
    Type *t = infer_expr(I, ARG(0));
    if (!t)
        return NULL;
    if (IS_UNK(t))
        return t;
    t = infer_value_ty(VEC_AT(n->args, 0));
    if (!ty_is_number(t))
        return UNSUP(I, n, "type() of %s is not supported by hpcjit (only of a number)", infer_tyname(I, t));
    Type *cls = ty_dtype(I->tc, t);
    if (I->final) {
        n->kind = N_CONST;
        n->cval.kind = CVAL_NONE;
        n->args.len = 0;
    }
    return cls;
}

/* hasattr(obj, "name"): a constant (the call becomes it in the final
 * pass; obj is not evaluated, as isinstance). */
static Type *hasattr_call(Inf *I, Node *n) {
    if (!no_keywords(I, n, "hasattr") || !nargs_between(I, n, "hasattr", 2, 2))
        return NULL;
    Node *nm = VEC_AT(n->args, 1);
    if (nm->kind != N_CONST || nm->cval.kind != CVAL_STR || nm->cval.is_bytes)
        return TYPING(I, nm, "hasattr() needs the attribute's name as a string constant (as in Numba)");
    Type *t = infer_expr(I, ARG(0));
    if (!t)
        return NULL;
    if (IS_UNK(t))
        return t;
    const char *name = arena_printf(I->a, "%.*s", nm->cval.slen, nm->cval.s);
    int r = infer_has_attr(I, infer_value_ty(VEC_AT(n->args, 0)), name, n->loc);
    if (r < 0)
        return NULL;
    if (I->final) {
        n->kind = N_CONST;
        n->cval.kind = CVAL_BOOL;
        n->cval.i = r;
        n->args.len = 0;
    }
    return T(I, TY_BOOL);
}

/* ---- iterators: generator objects of _pylib.py's helpers ---- */

static Type *func_call(Inf *I, Node *n, int func);
static Type *closure_make(Inf *I, Node *n);
static Type *iter_of(Inf *I, Node *at, Type *t);

/* Helper `name` of _pylib.py that the gatherer put in the environment of
 * the function making call n ("<pylib>name": python/hpcjit/compiler.py), or
 * -1 (a call that a rewrite made, named by qualname). */
static int pylib_func(Inf *I, const Node *n, const char *name) {
    const HjFunction *hf = n->a && n->a->env_hf ? n->a->env_hf : I->s->hf;
    const HjEnvEntry *e = hf ? infer_env_find(hf, arena_printf(I->a, "<pylib>%s", name)) : NULL;
    return e && e->kind == HJ_ENV_FUNC ? e->func : -1;
}

/* The type of argument *pn, typed once per pass: func_call types it again,
 * and a final pass must type a node once (its rewrites, as a method call's
 * receiver moving into the arguments, are not idempotent), so there it is
 * the previous pass's type (NULL if none: nothing to check). */
static Type *arg_type(Inf *I, Node **pn) {
    if (!I->final)
        return infer_expr(I, pn);
    return (*pn)->ty ? infer_value_ty(*pn) : TY_UNK(I);
}

/* The argument at *pn can be iterated: false after a located error in the
 * user's code (rather than one in the helper's loop); *unk while its type
 * is not known yet. */
static bool iterable_arg(Inf *I, Node **pn, bool *unk) {
    Type *t = arg_type(I, pn);
    if (!t)
        return false;
    if (IS_UNK(t)) {
        *unk = !I->final;
        return true;
    }
    const LibOps *own = lib_type_owner(t);
    Type *el = own && own->infer_iter ? own->infer_iter(I, pn, t) /* reads *pn for messages only */
             : t->kind == TY_GENERATOR ? t->item
             : infer_funcs_tuple(I, t) ? t->elems[0]
             : iter_of(I, *pn, t);
    return el != NULL;
}

/* zip(a, b) or enumerate(a, start) as a value (`it = zip(a, b)` then
 * next(it)): a generator object of _pylib's zip2_/enumerate_ over them,
 * its type in *out (NULL after a diagnostic).  False when the helper is
 * not in the environment. */
static bool iterator_value(Inf *I, Node *n, BuiltinId id, Type **out) {
    bool unk = false;
    if (id == BI_MAP || id == BI_FILTER) { /* map(f, a, ...), filter(f, a): f is an argument of the helper */
        bool none = id == BI_FILTER && infer_is_none(VEC_AT(n->args, 0));
        int f = id == BI_MAP ? pylib_func(I, n, arena_printf(I->a, "map%d", n->args.len - 1))
                : pylib_func(I, n, none ? "filter_none" : "filter");
        if (f < 0)
            return false;
        *out = NULL;
        if (!arg_type(I, ARG(0)))
            return true;
        for (int i = 1; i < n->args.len; i++)
            if (!iterable_arg(I, ARG(i), &unk))
                return true;
        *out = unk ? TY_UNK(I) : func_call(I, n, f);
        return true;
    }
    int f = id == BI_ZIP ? pylib_func(I, n, arena_printf(I->a, "zip%d", n->args.len)) : pylib_func(I, n, "enumerate");
    if (f < 0)
        return false;
    *out = NULL;
    Node **it = NULL; /* the iterable: enumerate's first argument or iterable= */
    if (id == BI_ENUMERATE) {
        if (n->args.len)
            it = ARG(0);
        for (int i = 0; i < n->keywords.len && !it; i++) {
            Node *kw = VEC_AT(n->keywords, i);
            if (kw->name && strcmp(kw->name, "iterable") == 0)
                it = &kw->a;
        }
        if (it && !iterable_arg(I, it, &unk))
            return true;
        Node **st = n->args.len > 1 ? ARG(1) : NULL; /* start: an integer (checked here, not in the helper) */
        for (int i = 0; i < n->keywords.len && !st; i++) {
            Node *kw = VEC_AT(n->keywords, i);
            if (kw->name && strcmp(kw->name, "start") == 0)
                st = &kw->a;
        }
        Type *stt = st ? arg_type(I, st) : NULL;
        if (st && !stt)
            return true;
        if (stt && !IS_UNK(stt) && !ty_is_int(stt) && stt->kind != TY_BOOL) {
            TYPING(I, *st, "enumerate() start must be an integer, not %s", infer_tyname(I, stt));
            return true;
        }
    } else {
        for (int i = 0; i < n->args.len; i++)
            if (!iterable_arg(I, ARG(i), &unk))
                return true;
    }
    *out = unk ? TY_UNK(I) : func_call(I, n, f);
    return true;
}

/* iter(x) of anything a for loop iterates (Numba: lists, homogeneous
 * tuples, arrays, ranges, str, dicts and their views, sets, zip and
 * enumerate objects): a generator object of _pylib's iter_ over x, which
 * next() resumes and a for loop finishes; of a generator object, that
 * object.  Numba's type is iter(...); a heterogeneous tuple has none (as
 * in Numba, a TypingError). */
static Type *iter_call(Inf *I, Node *n) {
    if (!no_keywords(I, n, "iter") || !nargs_between(I, n, "iter", 1, 1))
        return NULL;
    Type *t = arg_type(I, ARG(0));
    if (!t)
        return NULL;
    if (IS_UNK(t) && !I->final)
        return t;
    if (t->kind == TY_GENERATOR || IS_UNK(t)) /* itself */
        return I->final ? infer_expr(I, ARG(0)) : t;
    int f = pylib_func(I, n, "iter");
    if (f < 0)
        return UNSUP(I, n, "iter() of %s here (a call a rewrite made) is not supported by hpcjit",
                     infer_tyname(I, t));
    bool unk = false;
    if (!iterable_arg(I, ARG(0), &unk))
        return NULL;
    return func_call(I, n, f);
}

/* reversed(seq) as a value (" ".join(reversed(words)), list(reversed(l))):
 * a generator object of _pylib's reversed_, whose loop is the one
 * `for x in reversed(seq)` compiles (infer_iter: ranges, arrays, tuples,
 * lists, str). */
static Type *reversed_call(Inf *I, Node *n) {
    if (!no_keywords(I, n, "reversed") || !nargs_between(I, n, "reversed", 1, 1))
        return NULL;
    Type *t = arg_type(I, ARG(0));
    if (!t || (IS_UNK(t) && !I->final))
        return t;
    int f = pylib_func(I, n, "reversed");
    if (f < 0)
        return UNSUP(I, n, "reversed() of %s here (a call a rewrite made) is not supported by hpcjit",
                     infer_tyname(I, t));
    if (!IS_UNK(t) && t->kind != TY_RANGE && t->kind != TY_ARRAY && t->kind != TY_TUPLE && !lib_type_owner(t))
        return TYPING(I, n, "reversed() of %s is not supported", infer_tyname(I, t));
    return func_call(I, n, f);
}

/* Howard Hinnant's days_from_civil: days from 1970-01-01 to y-m-d. */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400, yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

/* Read `n` digits of s at *i into *v (false if they are not all digits). */
static bool dt_digits(const char *s, int len, int *i, int n, int64_t *v) {
    *v = 0;
    for (int k = 0; k < n; k++, (*i)++) {
        if (*i >= len || s[*i] < '0' || s[*i] > '9')
            return false;
        *v = *v * 10 + (s[*i] - '0');
    }
    return true;
}

/* An ISO date string as NumPy's datetime64 reads it: its unit (the last
 * field given: Y, M, D, h, m, s) and *count of that unit since 1970, or
 * -1.  "NaT" is NaT of the generic unit. */
static int dt_parse_iso(const char *s, int len, int64_t *count) {
    if (len == 3 && strncmp(s, "NaT", 3) == 0) {
        *count = TY_NAT;
        return DT_GENERIC;
    }
    int i = 0;
    int64_t y, mo = 1, d = 1, h = 0, mi = 0, se = 0;
    if (!dt_digits(s, len, &i, 4, &y))
        return -1;
    int unit = DT_Y;
    if (i < len && s[i] == '-') {
        i++;
        if (!dt_digits(s, len, &i, 2, &mo) || mo < 1 || mo > 12)
            return -1;
        unit = DT_M;
        if (i < len && s[i] == '-') {
            i++;
            static const int mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
            if (!dt_digits(s, len, &i, 2, &d) || d < 1 || d > mdays[mo - 1] ||
                (mo == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)))
                return -1;
            unit = DT_D;
            if (i < len && (s[i] == 'T' || s[i] == ' ')) {
                i++;
                if (!dt_digits(s, len, &i, 2, &h) || h > 23)
                    return -1;
                unit = DT_h;
                if (i < len && s[i] == ':') {
                    i++;
                    if (!dt_digits(s, len, &i, 2, &mi) || mi > 59)
                        return -1;
                    unit = DT_m;
                    if (i < len && s[i] == ':') {
                        i++;
                        if (!dt_digits(s, len, &i, 2, &se) || se > 59)
                            return -1;
                        unit = DT_s;
                    }
                }
            }
        }
    }
    if (i != len)
        return -1;
    int64_t days = days_from_civil(y, mo, d);
    switch (unit) {
    case DT_Y: *count = y - 1970; break;
    case DT_M: *count = (y - 1970) * 12 + (mo - 1); break;
    case DT_D: *count = days; break;
    case DT_h: *count = days * 24 + h; break;
    case DT_m: *count = (days * 24 + h) * 60 + mi; break;
    default: *count = ((days * 24 + h) * 60 + mi) * 60 + se; break;
    }
    return unit;
}

static Type *builtin_call(Inf *I, Node *n, BuiltinId id, Node *self) {
    const char *fname = short_name(id);
    Type *tys[8] = {0};
    bool unk = false;
    n->call_kind = CALL_BUILTIN;
    n->builtin = id;
    if (id == BI_NP_WHERE && n->args.len == 1 && n->keywords.len == 0) {
        int nz = builtin_lookup("numpy.nonzero"); /* np.where(c) is np.nonzero(c) */
        if (nz >= 0 && lib_ops((BuiltinId)nz))
            return builtin_call(I, n, (BuiltinId)nz, self);
    }
    if (id == BI_LITERALLY)
        return infer_literally_call(I, n);
    if (id == BI_ENUM_REPR) { /* repr(x) of a non-str: str(x) but for an IntEnum member */
        if (!no_keywords(I, n, "repr") || !nargs_between(I, n, "repr", 1, 1))
            return NULL;
        Type *t = infer_expr_opt(I, ARG(0));
        if (!t)
            return NULL;
        if (IS_UNK(t))
            return TY_UNK(I);
        if (!ty_is_intenum(t))
            return builtin_call(I, n, BI_STR, self);
        I->c->uses_pyops = true; /* lower_pyop */
        return T(I, TY_STRING);
    }
    if (id == BI_ITER)
        return iter_call(I, n);
    if (id == BI_REVERSED)
        return reversed_call(I, n);
    if (id == BI_ISINSTANCE) { /* decided from the typed value: a constant */
        if (!no_keywords(I, n, "isinstance") || !nargs_between(I, n, "isinstance", 2, 2))
            return NULL;
        Type *t = infer_expr_opt(I, ARG(0));
        if (!t)
            return NULL;
        if (IS_UNK(t))
            return TY_UNK(I);
        Node *c = VEC_AT(n->args, 1);
        int nc = c->kind == N_TUPLE ? c->args.len : 1, any = 0;
        for (int k = 0; k < nc; k++) {
            Node *ck = c->kind == N_TUPLE ? VEC_AT(c->args, k) : c;
            const char *cls = infer_class_name(I->s->hf, ck);
            int r = infer_isinstance(t, cls);
            if (r < 0)
                return UNSUP(I, ck, "isinstance() with %s%s is not supported by hpcjit (known: int, float, "
                             "complex, bool, tuple, str, np.ndarray)",
                             cls ? cls : "this class", t->kind == TY_OPTIONAL ? " on an Optional value" : "");
            any |= r;
        }
        if (I->final) { /* the call becomes its value */
            n->kind = N_CONST;
            n->cval.kind = CVAL_BOOL;
            n->cval.i = any;
            n->args.len = 0;
        }
        return T(I, TY_BOOL);
    }
    if (id == BI_TYPE)
        return type_call(I, n);
    if (id == BI_HASATTR)
        return hasattr_call(I, n);
    if (id == BI_CLOSURE)
        return closure_make(I, n);
    if (id == BI_GETATTR) { /* getattr(obj, "name"): the node becomes obj.name, as Numba */
        if (!no_keywords(I, n, "getattr") || !nargs_between(I, n, "getattr", 2, 2))
            return NULL;
        Node *nm = VEC_AT(n->args, 1);
        if (nm->kind != N_CONST || nm->cval.kind != CVAL_STR || nm->cval.is_bytes)
            return UNSUP(I, nm, "getattr() needs the attribute's name as a string constant (and no default) "
                         "in hpcjit, as in Numba");
        Node *at = ast_new(I->a, N_ATTRIBUTE, n->loc);
        at->a = VEC_AT(n->args, 0);
        at->name = arena_printf(I->a, "%.*s", nm->cval.slen, nm->cval.s);
        *n = *at;
        Node *p = n;
        Type *t = infer_expr(I, &p);
        if (p != n)
            *n = *p;
        return t;
    }
    Node *fa = n->args.len == 1 ? VEC_AT(n->args, 0) : NULL;
    if (id == BI_LEN && fa && fa->kind == N_ATTRIBUTE && strcmp(fa->name, "flat") == 0) {
        /* len(a.flat) is a.size (a.flat has no value of its own in hpcjit) */
        Type *bt = infer_expr(I, &fa->a);
        if (!bt)
            return NULL;
        if (bt->kind == TY_ARRAY) { /* the call node becomes the attribute */
            n->kind = N_ATTRIBUTE;
            n->a = fa->a;
            n->name = "size";
            n->args.len = 0;
            return infer_attribute(I, n);
        }
    }
    if ((id == BI_LEN || id == BI_ABS || id == BI_INT || id == BI_FLOAT || id == BI_BOOL || id == BI_COMPLEX ||
         id == BI_STR || id == BI_HASH) && n->args.len == 1 && !n->keywords.len && !self) {
        Node *a0 = VEC_AT(n->args, 0); /* len(obj) of a jitclass instance: obj.__len__() */
        bool container_item = false; /* lst[i], d[k]: never an array view, typed twice */
        if (a0->kind == N_SUBSCRIPT && a0->a->kind == N_NAME) {
            Type *bt = infer_expr(I, &a0->a);
            container_item = bt && bt->kind != TY_ARRAY && lib_type_owner(bt);
        }
        /* only leaves are typed ahead here: the argument is typed again
         * below, and typing a call (abs(abs(...))) twice per level made
         * nested calls exponential */
        if (a0->kind == N_NAME || (a0->kind == N_ATTRIBUTE && a0->a->kind == N_NAME) || container_item) {
            Type *t = infer_expr(I, ARG(0));
            if (!t)
                return NULL;
            if (t->kind == TY_JITCLASS)
                return infer_jc_builtin(I, n, id, t);
        }
    }
    const LibOps *ops = lib_ops(id); /* a library feature's (lib/registry.h) */
    if (ops && ops->infer_call) {
        Type *r = ops->infer_call(I, n, id, self);
        if (r && !IS_UNK(r) && record_array_operand(n, self) && !record_array_ok(id))
            return UNSUP(I, n, "%s() of an array of records (a structured dtype) is not supported by hpcjit",
                         builtin_name(id));
        if (r && !IS_UNK(r) && dt_operand(n, self) && !dt_ok(id))
            return UNSUP(I, n, "%s() of datetime64/timedelta64 values is not supported by hpcjit",
                         builtin_name(id));
        return r;
    }
    switch (id) {
    case BI_INT: return conversion(I, n, fname, T(I, TY_INT64));
    case BI_FLOAT: return conversion(I, n, fname, T(I, TY_FLOAT64));
    case BI_BOOL: return conversion(I, n, fname, T(I, TY_BOOL));
    case BI_COMPLEX:
        if (n->args.len <= 1)
            return conversion(I, n, fname, T(I, TY_COMPLEX128));
        if (!no_keywords(I, n, fname) || !nargs_between(I, n, fname, 1, 2) || !type_args(I, n, tys, &unk))
            return NULL;
        if (unk)
            return TY_UNK(I);
        for (int i = 0; i < 2; i++) {
            if (!need_real(I, VEC_AT(n->args, i), tys[i], fname))
                return NULL;
            infer_cast(I, ARG(i), T(I, TY_FLOAT64));
        }
        return T(I, TY_COMPLEX128);
    case BI_RANGE:
    case BI_PRANGE:
        return infer_range_call(I, n, fname);
    case BI_SLICE:
        return slice_call(I, n, fname);
    case BI_GET_THREAD_ID:
    case BI_GET_NUM_THREADS:
    case BI_GET_PARALLEL_CHUNKSIZE:
        if (!no_keywords(I, n, fname) || !nargs_between(I, n, fname, 0, 0))
            return NULL;
        return T(I, TY_INT64);
    case BI_SET_NUM_THREADS:
    case BI_SET_PARALLEL_CHUNKSIZE: /* returns the previous chunk size */
        if (!no_keywords(I, n, fname) || !nargs_between(I, n, fname, 1, 1) || !type_args(I, n, tys, &unk))
            return NULL;
        if (unk)
            return TY_UNK(I);
        if (!ty_is_int(tys[0]) && tys[0]->kind != TY_BOOL)
            return TYPING(I, VEC_AT(n->args, 0), "%s() needs an integer, not %s", fname,
                          infer_tyname(I, tys[0]));
        infer_cast(I, ARG(0), T(I, TY_INT64));
        return T(I, id == BI_SET_NUM_THREADS ? TY_NONE : TY_INT64);
    case BI_NP_EMPTY: case BI_NP_ZEROS: case BI_NP_ONES:
        return alloc_call(I, n, id, fname);
    case BI_NP_EMPTY_LIKE: case BI_NP_ZEROS_LIKE: case BI_NP_ONES_LIKE:
        return like_call(I, n, fname);
    case BI_NP_ARANGE:
        return arange_call(I, n);
    case BI_PRINT:
        return infer_print_call(I, n); /* infer_text.c */
    case BI_SUM:
        return sum_call(I, n, fname);
    case BI_CARRAY: case BI_FARRAY: case BI_PTR_VIEW:
        return carray_call(I, n, id, fname);
    case BI_ENUMERATE: case BI_ZIP: case BI_MAP: case BI_FILTER:
        /* what infer_unroll.c and infer_iterbind.c do not rewrite into a
         * consumer: enumerate, zip, map and filter objects are generator
         * objects (_pylib.py) */
        if (id == BI_ENUMERATE || (id == BI_ZIP && n->args.len >= 1 && n->args.len <= 4 && !n->keywords.len) ||
            (id == BI_MAP && n->args.len >= 2 && n->args.len <= 5 && !n->keywords.len) ||
            (id == BI_FILTER && n->args.len == 2 && !n->keywords.len)) {
            Type *r;
            if (iterator_value(I, n, id, &r))
                return r;
        }
        return UNSUP(I, n, "a %s() object used as a value (passed to a function, returned, stored, or bound to a "
                     "name that is not used once after it in the same block) is not supported by hpcjit: it can "
                     "be the iterable of a for loop or comprehension, or the argument of list(), set(), dict(), "
                     "sum(), min(), max() or sorted()", fname);
    case BI_NP_NDINDEX:
    case BI_NP_NDENUMERATE:
    case BI_PNDINDEX:
        return UNSUP(I, n, "%s() is only supported as the iterable of a for loop", fname);
    default:
        break;
    }
    if (id == BI_ROUND) {
        static const char *const names[] = {"number", "ndigits"};
        Node *sl[2];
        if (!slots(I, n, fname, names, 2, sl))
            return NULL;
        if (!sl[0])
            return TYPING(I, n, "round() missing required argument 'number'");
        set_args(I, n, sl, sl[1] ? 2 : 1);
        Type *x = infer_expr(I, &sl[0]);
        Type *nd = x && sl[1] ? infer_expr(I, &sl[1]) : x;
        if (!x || !nd)
            return NULL;
        if (IS_UNK(x) || IS_UNK(nd))
            return TY_UNK(I);
        if (!need_real(I, sl[0], x, fname))
            return NULL;
        if (sl[1] && !ty_is_int(nd))
            return TYPING(I, sl[1], "round() ndigits must be an integer, not %s", infer_tyname(I, nd));
        if (!ty_is_float(x))
            infer_cast(I, &sl[0], T(I, TY_INT64));
        if (sl[1])
            infer_cast(I, &sl[1], T(I, TY_INT64));
        set_args(I, n, sl, sl[1] ? 2 : 1);
        return (sl[1] && ty_is_float(x)) ? x : T(I, TY_INT64);
    }
    if (id == BI_ARRAY_COPY) {
        if (!no_keywords(I, n, fname))
            return NULL;
        Type *t;
        if (self) {
            if (!nargs_between(I, n, "copy", 0, 0))
                return NULL;
            t = infer_value_ty(self);
        } else {
            if (!nargs_between(I, n, fname, 1, 1))
                return NULL;
            t = infer_expr(I, ARG(0));
            if (!t)
                return NULL;
            self = VEC_AT(n->args, 0);
        }
        if (IS_UNK(t))
            return t;
        if (t->kind != TY_ARRAY)
            return TYPING(I, n, "%s() needs an array, not %s", fname, infer_tyname(I, t));
        if (I->final) {
            n->self_node = self;
            n->args.len = 0;
        }
        return ty_array(I->tc, t->dtype, t->ndim, LAYOUT_C);
    }
    if (id == BI_COMPLEX_CONJUGATE) {
        if (!no_keywords(I, n, "conjugate") || !nargs_between(I, n, "conjugate", 0, 0))
            return NULL;
        if (I->final)
            n->self_node = self;
        return infer_value_ty(self)->kind == TY_BOOL ? T(I, TY_INT64) : infer_value_ty(self);
    }
    if (id == BI_NUMBER_ITEM) {
        if (!no_keywords(I, n, "item") || !nargs_between(I, n, "item", 0, 0))
            return NULL;
        if (I->final)
            n->self_node = self;
        return infer_value_ty(self);
    }
    if ((id == BI_MIN || id == BI_MAX) && n->keywords.len) /* min(it, key=f): lib/list */
        return lib_ops(BI_LIST)->infer_call(I, n, id, NULL);
    if (!no_keywords(I, n, fname))
        return NULL;
    int k = n->args.len;
    if (k > 8)
        return TYPING(I, n, "too many arguments for %s()", fname);
    if ((id == BI_MIN || id == BI_MAX) && k == 1 && I->final && (*ARG(0))->ty &&
        via_list(infer_value_ty(*ARG(0)))) { /* min(g), min(d): list() types g, once */
        if (!gen_as_list(I, ARG(0)))
            return NULL;
        return lib_ops(BI_LIST)->infer_call(I, n, id, NULL);
    }
    if (!type_args(I, n, tys, &unk))
        return NULL;
    if (unk)
        return TY_UNK(I);
    if (infer_ae_is_ufunc(id)) { /* arrexpr: ufuncs (arrays always, new ones on scalars too) */
        bool arr = infer_ae_owns_scalar(id);
        for (int i = 0; i < k; i++) /* complex scalars too: one set of complex kernels */
            arr = arr || tys[i]->kind == TY_ARRAY || (ty_is_complex(tys[i]) && id != BI_ABS) || ty_is_npdt(tys[i]);
        if (arr)
            return infer_ae_ufunc_call(I, n, id, tys);
    }
    switch (id) {
    case BI_NP_DATETIME64:
    case BI_NP_TIMEDELTA64: { /* np.timedelta64(n, "D"): an integer count of a constant unit */
        if (!nargs_between(I, n, fname, 1, 2))
            return NULL;
        int unit = DT_GENERIC;
        Node *u = k == 2 ? VEC_AT(n->args, 1) : NULL;
        if (u && (u->kind != N_CONST || u->cval.kind != CVAL_STR || u->cval.is_bytes ||
                  (unit = ty_dt_unit_parse(u->cval.s, (size_t)u->cval.slen)) < 0))
            return TYPING(I, u, "%s(): the unit must be a constant string such as \"D\" or \"ms\"", fname);
        Node *v = VEC_AT(n->args, 0);
        if (id == BI_NP_DATETIME64 && v->kind == N_CONST && v->cval.kind == CVAL_STR && !v->cval.is_bytes) {
            /* np.datetime64("2020-01-04"): the count and unit, read now; the call becomes
             * np.datetime64(<count>, "<unit>") */
            int64_t cnt;
            int su = dt_parse_iso(v->cval.s, v->cval.slen, &cnt);
            if (su < 0)
                return UNSUP(I, v, "np.datetime64() of this string is not supported by hpcjit (YYYY, YYYY-MM, "
                             "YYYY-MM-DD, then THH, THH:MM or THH:MM:SS; or NaT)");
            int64_t f = 1;
            if (u && unit != su && (cnt == TY_NAT ? false : !ty_dt_factor(su, unit, &f)))
                return UNSUP(I, u, "np.datetime64(): a string of unit %s in unit %s is not supported by hpcjit",
                             ty_dt_unit_name(su), ty_dt_unit_name(unit));
            if (!u)
                unit = su;
            Node *c = infer_const_int(I, v->loc, cnt == TY_NAT ? TY_NAT : cnt * f);
            Node *un = ast_new(I->a, N_CONST, v->loc);
            un->cval.kind = CVAL_STR;
            un->cval.s = ty_dt_unit_name(unit);
            un->cval.slen = (int)strlen(un->cval.s);
            n->args.len = 0;
            vec_push(I->a, &n->args, c);
            vec_push(I->a, &n->args, un);
            if (!infer_expr(I, ARG(0)) || !infer_expr(I, ARG(1)))
                return NULL;
            return ty_datetime(I->tc, false, unit);
        }
        if (!ty_is_int(tys[0]) && tys[0]->kind != TY_BOOL)
            return TYPING(I, VEC_AT(n->args, 0), "%s() of %s is not supported by hpcjit (an integer count and a "
                         "unit constant; pass other values in as arguments)", fname, infer_tyname(I, tys[0]));
        infer_cast(I, ARG(0), T(I, TY_INT64));
        return ty_datetime(I->tc, id == BI_NP_TIMEDELTA64, unit);
    }
    case BI_ABS:
    case BI_NP_ABS:
        if (!nargs_between(I, n, fname, 1, 1))
            return NULL;
        return abs_type(I, n, tys[0], fname);
    case BI_MIN:
    case BI_MAX: {
        if (k == 1 && via_list(tys[0])) { /* min(g), min(d): of list(g) */
            Node *gen = VEC_AT(n->args, 0);
            if (!gen_as_list(I, ARG(0)))
                return NULL;
            Type *r = lib_ops(BI_LIST)->infer_call(I, n, id, NULL);
            if (!I->final)
                VEC_AT(n->args, 0) = gen;
            return r;
        }
        if (k == 1 && lib_type_owner(tys[0]) && lib_type_owner(tys[0])->infer_call) /* min(lst): its owner's */
            return lib_type_owner(tys[0])->infer_call(I, n, id, NULL);
        if (k == 1 && tys[0]->kind == TY_ARRAY && tys[0]->ndim == 1 && ty_is_number(tys[0]->dtype) &&
            !ty_is_complex(tys[0]->dtype)) { /* max(a) of a 1-D array: its elements' max, as np.max */
            BuiltinId np = id == BI_MIN ? BI_NP_AMIN : BI_NP_AMAX;
            n->builtin = np;
            return lib_ops(np)->infer_call(I, n, np, NULL);
        }
        if (k == 1 && tys[0]->kind == TY_ARRAY && tys[0]->ndim == 1 && ty_is_npdt(tys[0]->dtype))
            return tys[0]->dtype; /* Python's loop of '<': a NaT is kept only when it comes first */
        if (k >= 2 && ty_is_npdt(tys[0])) { /* datetimes: in their common unit (infer_dt_compare) */
            Type *u = tys[0];
            for (int i = 1; i < k; i++)
                if (!(u = infer_dt_compare(I, VEC_AT(n->args, i), OP_LT, u, tys[i])))
                    return NULL;
            for (int i = 0; i < k; i++)
                infer_cast(I, ARG(i), u);
            return u;
        }
        if (k == 1 && tys[0]->kind == TY_TUPLE && tys[0]->nelems > 0) { /* max((a, b, c)): of list(t) */
            Node *tup = VEC_AT(n->args, 0);
            if (!gen_as_list(I, ARG(0)))
                return NULL;
            Type *r = lib_ops(BI_LIST)->infer_call(I, n, id, NULL);
            if (!I->final)
                VEC_AT(n->args, 0) = tup;
            return r;
        }
        if (k < 2)
            return TYPING(I, n, "%s() of a single argument is not supported yet (give 2 or more numbers)",
                          fname);
        Type *u = T(I, TY_UNKNOWN);
        for (int i = 0; i < k; i++) {
            if (!need_number(I, VEC_AT(n->args, i), tys[i], fname))
                return NULL;
            u = ty_unify(I->tc, u, tys[i]);
        }
        for (int i = 0; i < k; i++)
            infer_cast(I, ARG(i), u);
        return u;
    }
    case BI_LEN:
        if (!nargs_between(I, n, fname, 1, 1))
            return NULL;
        if (tys[0]->kind != TY_ARRAY && tys[0]->kind != TY_TUPLE && tys[0]->kind != TY_RANGE &&
            !(lib_type_owner(tys[0]) && lib_type_owner(tys[0])->lower_len))
            return TYPING(I, n, "len() of %s is not supported", infer_tyname(I, tys[0]));
        return T(I, TY_INT64);
    case BI_NEXT: /* next(it), next(it, default) of an iterator (a generator object) */
    case BI_ITER: {
        if (!nargs_between(I, n, fname, 1, id == BI_NEXT ? 2 : 1))
            return NULL;
        if (tys[0]->kind != TY_GENERATOR)
            return TYPING(I, VEC_AT(n->args, 0), "'%s' is not an iterator: next() takes what iter(x) or a "
                          "generator function returns", infer_tyname(I, tys[0]));
        if (id == BI_ITER)
            return tys[0];
        if (k == 1)
            return tys[0]->item;
        Type *u = ty_unify(I->tc, tys[0]->item, tys[1]);
        if (!u)
            return TYPING(I, n, "next(): the default (%s) and the generator's items (%s) have no common type",
                          infer_tyname(I, tys[1]), infer_tyname(I, tys[0]->item));
        infer_cast(I, ARG(1), u);
        return u;
    }
    case BI_DIVMOD:
    case BI_POW: {
        if (id == BI_POW && k == 3) { /* pow(b, e, m): Python ints (rt_int_powmod) */
            for (int i = 0; i < 3; i++) {
                if (!ty_is_int(tys[i]) && tys[i]->kind != TY_BOOL)
                    return TYPING(I, VEC_AT(n->args, i),
                                  "pow() 3rd argument not allowed unless all arguments are integers (got %s)",
                                  infer_tyname(I, tys[i]));
                infer_cast(I, ARG(i), T(I, TY_INT64));
            }
            return T(I, TY_INT64);
        }
        if (!nargs_between(I, n, fname, 2, 2))
            return NULL;
        Type *op_ty = NULL;
        Type *r = infer_binop_type(I, n, id == BI_POW ? OP_POW : OP_FLOORDIV, tys[0], tys[1], &op_ty);
        if (!r)
            return NULL;
        infer_cast(I, ARG(0), op_ty);
        if (id == BI_POW && ty_is_float(op_ty) && ty_is_float(tys[0]) && ty_is_int(tys[1]))
            infer_cast(I, ARG(1), T(I, TY_INT64)); /* pow(x, 3): repeated squaring, as x ** 3 */
        else
            infer_cast(I, ARG(1), op_ty);
        if (id == BI_POW)
            return r;
        Type *el[2] = {r, r};
        return ty_tuple(I->tc, el, 2);
    }
    default:
        break;
    }
    if (is_cmath(id))
        return cmath_call(I, n, id, tys, fname);
    if (is_unary_float_math(id) || (id == BI_MATH_LOG && k == 1)) {
        if (!nargs_between(I, n, fname, 1, 1) || !need_real(I, VEC_AT(n->args, 0), tys[0], fname))
            return NULL;
        Type *ft = tys[0]->kind == TY_FLOAT16 && has_half_version(id) ? tys[0] : float_of(I, tys[0]);
        infer_cast(I, ARG(0), ft);
        return ft;
    }
    switch (id) {
    case BI_MATH_LOG:
    case BI_MATH_ATAN2: case BI_MATH_COPYSIGN: case BI_MATH_HYPOT: case BI_MATH_POW: case BI_MATH_FMOD:
    case BI_NP_ARCTAN2: case BI_NP_HYPOT: {
        if (!nargs_between(I, n, fname, 2, 2))
            return NULL;
        for (int i = 0; i < 2; i++)
            if (!need_real(I, VEC_AT(n->args, i), tys[i], fname))
                return NULL;
        Type *ft = (tys[0]->kind == TY_FLOAT32 && tys[1]->kind == TY_FLOAT32) ? tys[0] : T(I, TY_FLOAT64);
        if (id == BI_MATH_LOG)
            ft = T(I, TY_FLOAT64);
        infer_cast(I, ARG(0), ft);
        infer_cast(I, ARG(1), ft);
        return ft;
    }
    case BI_MATH_CEIL: case BI_MATH_FLOOR: case BI_MATH_TRUNC:
        if (!nargs_between(I, n, fname, 1, 1) || !need_real(I, VEC_AT(n->args, 0), tys[0], fname))
            return NULL;
        if (tys[0]->kind == TY_FLOAT16) /* numba-cuda: math.floor(float16) is a float16 */
            return tys[0];
        if (!ty_is_float(tys[0]))
            infer_cast(I, ARG(0), T(I, TY_INT64));
        return T(I, TY_INT64);
    case BI_MATH_ISNAN: case BI_MATH_ISINF: case BI_MATH_ISFINITE:
        if (!nargs_between(I, n, fname, 1, 1) || !need_real(I, VEC_AT(n->args, 0), tys[0], fname))
            return NULL;
        infer_cast(I, ARG(0), float_of(I, tys[0]));
        return T(I, TY_BOOL);
    case BI_MATH_LDEXP:
        if (!nargs_between(I, n, fname, 2, 2) || !need_real(I, VEC_AT(n->args, 0), tys[0], fname))
            return NULL;
        if (!ty_is_int(tys[1]))
            return TYPING(I, VEC_AT(n->args, 1), "ldexp() exponent must be an integer, not %s",
                          infer_tyname(I, tys[1]));
        infer_cast(I, ARG(0), float_of(I, tys[0]));
        infer_cast(I, ARG(1), T(I, TY_INT32));
        return float_of(I, tys[0]);
    case BI_MATH_FREXP:
    case BI_MATH_MODF: {
        if (!nargs_between(I, n, fname, 1, 1) || !need_real(I, VEC_AT(n->args, 0), tys[0], fname))
            return NULL;
        Type *ft = float_of(I, tys[0]);
        infer_cast(I, ARG(0), ft);
        Type *el[2] = {ft, id == BI_MATH_FREXP ? T(I, TY_INT32) : ft};
        return ty_tuple(I->tc, el, 2);
    }
    case BI_MATH_GCD:
        if (!nargs_between(I, n, fname, 2, 2))
            return NULL;
        for (int i = 0; i < 2; i++) {
            if (!ty_is_int(tys[i]) && tys[i]->kind != TY_BOOL)
                return TYPING(I, VEC_AT(n->args, i), "gcd() arguments must be integers, not %s",
                              infer_tyname(I, tys[i]));
            infer_cast(I, ARG(i), T(I, TY_INT64));
        }
        return T(I, TY_INT64);
    case BI_NP_SQRT: case BI_NP_EXP: case BI_NP_LOG: case BI_NP_SIN: case BI_NP_COS: case BI_NP_TAN: {
        if (!nargs_between(I, n, fname, 1, 1) || !need_number(I, VEC_AT(n->args, 0), tys[0], fname))
            return NULL;
        Type *ft = ty_is_complex(tys[0]) ? tys[0] : float_of(I, tys[0]);
        infer_cast(I, ARG(0), ft);
        return ft;
    }
    case BI_NP_FLOOR: case BI_NP_CEIL: {
        if (!nargs_between(I, n, fname, 1, 1) || !need_real(I, VEC_AT(n->args, 0), tys[0], fname))
            return NULL;
        Type *ft = float_of(I, tys[0]);
        infer_cast(I, ARG(0), ft);
        return ft;
    }
    default:
        return UNSUP(I, n, "%s() is not supported by hpcjit yet", fname);
    }
}

/* ---- calls to @njit functions ---- */

static Node *copy_default(Inf *I, Node *d, SrcLoc loc) {
    Node *k = ast_new(I->a, d->kind, loc);
    k->cval = d->cval;
    k->op = d->op;
    if (d->a) {
        k->a = ast_new(I->a, d->a->kind, loc);
        k->a->cval = d->a->cval;
    }
    return k;
}

static const char *container_word(const Type *t) {
    return t->kind == TY_DICT ? "dict" : t->kind == TY_SET ? "set" : "list";
}

/* A call passing an empty container (`acc = []; add(acc, x)`, or a
 * closure's free variable: closures.py makes it an argument): the spec s
 * typed for the incomplete types tells what the body puts into it (its
 * parameters' types).  The caller's variable is widened to that, as an
 * append in the caller would (infer_widen_var: the next pass sees the
 * complete type), a display passed as it is (`add([], x)`) takes it, and
 * the call goes to the spec for the complete types.  Arguments still
 * incomplete after that are a TypingError in the final pass (the items
 * are known nowhere): an incomplete spec is never lowered. */
static Spec *refine_args(Inf *I, Node *n, int func, Spec *s, Node **sl, Type **tys, int nt, Node **lits,
                         int np) {
    bool again = false;
    for (int i = 0; i < nt; i++) {
        if (!ty_has_unknown(tys[i]))
            continue;
        Type *r = infer_spec_param(s, i);
        Type *u = r ? ty_unify(I->tc, tys[i], r) : NULL;
        if (!u || u == tys[i])
            continue;
        if (!infer_widen_var(I, sl[i], sl[i], u))
            return NULL;
        infer_cast(I, &sl[i], u);
        tys[i] = u;
        again = true;
    }
    if (again && !(s = infer_spec_lits(I, n->loc, func, tys, nt, lits, np)))
        return NULL;
    for (int i = 0; I->final && s->incomplete && i < nt; i++)
        if (ty_has_unknown(tys[i])) {
            Node *p = VEC_AT(s->fn->params, i);
            TYPING(I, sl[i], "cannot determine the type of argument '%s' of %s(): %s (the items of an empty %s "
                   "are never known)", p->name, s->hf->name, infer_tyname(I, tys[i]), container_word(tys[i]));
            return NULL;
        }
    return s;
}

/* The kind of the conversion of number type `from` to `to` by Numba's
 * casting rules, closed over chains (a chain is as bad as its worst step):
 * 0 exact, 1 promote (a wider int of the same signedness, float32 ->
 * float64), 2 safe (bool -> a number, unsigned -> a wider signed int,
 * int16 -> float32, any int -> float64, real -> complex), 3 unsafe.  The
 * dispatcher ranks Python arguments the same way (python/core/convert.c
 * cv_conversion_kind). */
static int conversion_kind(const Type *from, const Type *to) {
    if (from == to || from->kind == to->kind)
        return 0;
    if (!ty_is_number(from) || !ty_is_number(to))
        return 3;
    if (from->kind == TY_BOOL)
        return 2;
    int fb = ty_bits(from), tb = ty_bits(to);
    if (ty_is_int(from) && ty_is_int(to)) {
        if (ty_is_unsigned(from) == ty_is_unsigned(to))
            return tb > fb ? 1 : 3;
        return ty_is_unsigned(from) && tb > fb ? 2 : 3;
    }
    if (ty_is_int(from))
        return to->kind == TY_FLOAT64 || to->kind == TY_COMPLEX128 ? 2
               : (to->kind == TY_FLOAT32 || to->kind == TY_COMPLEX64) && fb <= 16 ? 2 : 3;
    if (from->kind == TY_FLOAT32)
        return to->kind == TY_FLOAT64 ? 1 : ty_is_complex(to) ? 2 : 3;
    if (from->kind == TY_FLOAT64)
        return to->kind == TY_COMPLEX128 ? 2 : 3;
    if (from->kind == TY_COMPLEX64)
        return to->kind == TY_COMPLEX128 ? 1 : 3;
    return 3;
}

/* The argument types of the explicit signature (HjOptions.signatures) a
 * call with argument types `tys` takes: one equal to them, else the one
 * they convert to with the fewest unsafe, then safe, then promoting
 * conversions, as Numba ranks them (an int64 given to f4(f4)/f8(f8) takes
 * float64); NULL when none does (the call is then specialised for the
 * arguments as they are).  *ret: its return type. */
static Type **pick_signature(Inf *I, const char *sigs, Type **tys, int np, Type **ret) {
    Type **best = NULL, *best_ret = NULL;
    long best_cost = 0;
    for (const char *p = sigs; *p;) {
        Type *r = ty_from_typecode(I->tc, &p);
        if (!r || *p != '\t')
            return NULL;
        p++;
        Type **st = arena_alloc(I->a, sizeof(Type *) * (size_t)(np + 1));
        int k = 0;
        bool ok = true;
        while (*p && *p != '\n') {
            Type *t = ty_from_typecode(I->tc, &p);
            if (!t)
                return NULL;
            if (k < np)
                st[k] = t;
            k++;
        }
        if (*p == '\n')
            p++;
        if (k != np)
            continue;
        bool exact = true;
        long cost = 0;
        for (int i = 0; i < np && ok; i++) {
            exact = exact && st[i] == tys[i];
            bool nums = ty_is_number(st[i]) && ty_is_number(tys[i]);
            ok = st[i] == tys[i] || (nums && ty_can_convert(tys[i], st[i])) ||
                 (st[i]->kind == TY_ARRAY && ty_can_convert(tys[i], st[i]));
            int kind = nums ? conversion_kind(tys[i], st[i]) : 0;
            cost += kind == 3 ? 1L << 40 : kind == 2 ? 1L << 20 : kind;
        }
        if (exact) {
            *ret = r;
            return st;
        }
        if (ok && (!best || cost < best_cost)) {
            best = st;
            best_ret = r;
            best_cost = cost;
        }
    }
    *ret = best_ret;
    return best;
}

static Type *func_call(Inf *I, Node *n, int func) {
    Compilation *c = I->c;
    const HjFunction *hf = &c->req->funcs[func];
    if (hf->stub)
        return infer_stub_call(I, n, func);
    Node *decl = infer_func_decl(c, func);
    if (!decl)
        return NULL;
    int np = decl->params.len;
    const char **names = arena_alloc(I->a, sizeof(char *) * (size_t)(np + 1));
    for (int i = 0; i < np; i++) {
        Node *p = VEC_AT(decl->params, i);
        names[i] = p->is_posonly || p->is_star ? NULL : p->name;
        if (p->is_star && !n->star_packed && n->args.len >= i) {
            /* def f(a, *args) called f(x, 1, 2): args = (1, 2), a tuple
             * display in the call, as the dispatcher packs it from Python */
            Node *t = ast_new(I->a, N_TUPLE, n->loc);
            PtrVec kept = {0};
            for (int j = 0; j < n->args.len; j++)
                vec_push(I->a, j < i ? &kept : &t->args, VEC_AT(n->args, j));
            vec_push(I->a, &kept, t);
            n->args = kept;
            n->star_packed = 1;
        }
    }
    Node **sl = arena_alloc(I->a, sizeof(Node *) * (size_t)(np + 1));
    if (n->args.len > np)
        return TYPING(I, n, "%s() takes %d argument%s but %d were given", hf->name, np,
                      np == 1 ? "" : "s", n->args.len);
    if (!slots(I, n, hf->name, names, np, sl))
        return NULL;
    for (int i = 0; i < np; i++) {
        Node *p = VEC_AT(decl->params, i);
        if (!sl[i] && p->is_star) /* f(x) of def f(a, b=1, *args): args = () */
            sl[i] = ast_new(I->a, N_TUPLE, n->loc);
        if (!sl[i] && !p->a)
            return TYPING(I, n, "%s() missing required argument '%s'", hf->name, p->name);
        if (sl[i] && p->is_kwonly && i < n->args.len)
            return TYPING(I, n, "%s() got too many positional arguments", hf->name);
    }
    /* omitted parameters get fresh copies of their defaults */
    int given = 0;
    for (int i = 0; i < np; i++)
        if (sl[i])
            given = i + 1;
    Type **tys = arena_alloc(I->a, sizeof(Type *) * (size_t)(np + 1));
    for (int i = 0; i < np; i++) {
        bool is_default = !sl[i];
        if (is_default) {
            if (i >= given && !I->final)
                continue;
            sl[i] = copy_default(I, ((Node *)VEC_AT(decl->params, i))->a, n->loc);
        }
        Type *t = infer_expr_opt(I, &sl[i]); /* an Optional is passed as it is */
        if (!t)
            return NULL;
        if (IS_UNK(t))
            return t;
        if (!infer_check_value(I, sl[i], t))
            return NULL;
        tys[i] = t;
    }
    if (hf->options.signatures && given == np) { /* explicit signatures: Numba calls one of them */
        Type *ret = NULL;
        Type **st = pick_signature(I, hf->options.signatures, tys, np, &ret);
        if (st) {
            for (int i = 0; i < np; i++)
                infer_cast(I, &sl[i], st[i]);
            Spec *s = infer_spec_sig(I, n->loc, func, st, np, ret);
            if (!s)
                return NULL;
            n->call_kind = CALL_FUNC;
            n->spec = s;
            set_args(I, n, sl, np);
            return s->ret;
        }
    }
    Node **lits = NULL; /* parameters typed as literals (infer_literal.c) */
    if (!infer_call_lits(I, n, func, sl, np, &lits))
        return NULL;
    int nt = I->final ? np : given;
    Spec *s = infer_spec_lits(I, n->loc, func, tys, nt, lits, np);
    if (!s)
        return NULL;
    if (s->incomplete && !(s = refine_args(I, n, func, s, sl, tys, nt, lits, np)))
        return NULL;
    n->call_kind = CALL_FUNC;
    n->spec = s;
    set_args(I, n, sl, np);
    if (I->final && s->ret->kind == TY_UNKNOWN)
        return TYPING(I, n, "cannot infer the return type of recursive function '%s'", hf->name);
    return s->ret;
}

/* _hj_closure(f, k, ...) (python/hpcjit/closures.py): the inner function
 * f (lifted: the variables it reads of the enclosing function come first
 * among its parameters) made a value, over the values k, ... have now.
 * The final pass makes the node the cast of the tuple (k, ...) to the
 * TY_CLOSURE: a closure's value is its environment. */
static Type *closure_make(Inf *I, Node *n) {
    if (n->keywords.len || n->args.len < 1)
        return TYPING(I, n, "_hj_closure() takes a function and its environment's values");
    Type *ft = infer_expr(I, ARG(0));
    if (!ft || IS_UNK(ft))
        return ft;
    if (ft->kind != TY_FUNCTION || I->c->req->funcs[ft->func].stub)
        return TYPING(I, n, "_hj_closure() of %s: an inner function was expected", infer_tyname(I, ft));
    int m = n->args.len - 1;
    Type **el = arena_alloc(I->a, sizeof(Type *) * (size_t)(m + 1));
    for (int i = 0; i < m; i++) {
        Type *t = infer_expr_opt(I, ARG(i + 1));
        if (!t)
            return NULL;
        if (IS_UNK(t))
            return t;
        if (!infer_check_value(I, VEC_AT(n->args, i + 1), t))
            return NULL;
        el[i] = t;
    }
    Type *ct = ty_closure(I->tc, ft->func, el, m);
    if (!ct->name) /* for messages: "closure(_hj_lambda0 over (int64))" */
        ct->name = I->c->req->funcs[ft->func].name;
    if (I->final) {
        Node *tup = ast_new(I->a, N_TUPLE, n->loc);
        for (int i = 0; i < m; i++)
            vec_push(I->a, &tup->args, VEC_AT(n->args, i + 1));
        tup->ty = ty_tuple(I->tc, el, m);
        n->kind = N_CAST;
        n->a = tup;
        n->args.len = 0;
        n->ty = ct;
    }
    return ct;
}

/* f(x) of a closure value f: f's environment's items ($env<i>, borrowed)
 * become the first arguments of the call of its function.  f is a name,
 * or the closure made where it is called (map(lambda v: v * s, a) is a
 * loop calling `_hj_closure(...)(v)`, infer_unroll.c): a node without
 * effects, shared by those items. */
static Type *closure_call(Inf *I, Node *n, Type *ct) {
    if (!n->closure_args) {
        Node *f = n->a;
        if (f->kind != N_NAME && f->kind != N_CAST && !(f->kind == N_CALL && f->builtin == BI_CLOSURE))
            return UNSUP(I, n, "calling %s other than through a name it is bound to", infer_tyname(I, ct));
        PtrVec args = {0};
        for (int i = 0; i < ct->nelems; i++) {
            Node *e = ast_new(I->a, N_ATTRIBUTE, n->a->loc);
            e->a = f;
            e->name = arena_printf(I->a, "$env%d", i);
            vec_push(I->a, &args, e);
        }
        for (int i = 0; i < n->args.len; i++)
            vec_push(I->a, &args, VEC_AT(n->args, i));
        n->args = args;
        n->closure_args = 1;
    }
    Node *decl = infer_func_decl(I->c, ct->func);
    if (!decl)
        return NULL;
    int own = decl->params.len - ct->nelems, given = n->args.len - ct->nelems;
    if (given > own) /* counted without the environment (func_call would count it) */
        return TYPING(I, n, "%s() takes %d argument%s but %d were given", I->c->req->funcs[ct->func].name, own,
                      own == 1 ? "" : "s", given);
    return func_call(I, n, ct->func);
}

/* A call through a variable that may hold one of several functions
 * (TY_FUNCSET): every one is specialised for the arguments' types, and
 * all must take them positionally and return the same type. */
static Type *funcset_call(Inf *I, Node *n, Type *fs) {
    Compilation *c = I->c;
    if (n->keywords.len)
        return UNSUP(I, n, "keyword arguments in a call through a variable holding one of %s",
                     infer_tyname(I, fs));
    int na = n->args.len;
    Type **tys = arena_alloc(I->a, sizeof(Type *) * (size_t)(na + 1));
    for (int i = 0; i < na; i++) {
        Type *t = infer_expr_opt(I, ARG(i));
        if (!t)
            return NULL;
        if (IS_UNK(t))
            return t;
        if (!infer_check_value(I, VEC_AT(n->args, i), t))
            return NULL;
        tys[i] = t;
    }
    Spec **specs = arena_alloc(I->a, sizeof(Spec *) * (size_t)fs->nelems);
    Type *ret = NULL;
    for (int k = 0; k < fs->nelems; k++) {
        int func = fs->elems[k]->func;
        const HjFunction *hf = &c->req->funcs[func];
        if (hf->stub)
            return UNSUP(I, n, "a variable that may hold one of %s: %s() is an overload, which hpcjit "
                         "calls only directly", infer_tyname(I, fs), hf->name);
        Node *decl = infer_func_decl(c, func);
        if (!decl)
            return NULL;
        if (decl->params.len != na)
            return TYPING(I, n, "the functions this call may reach (%s) take different arguments: %s() takes %d, "
                          "the call passes %d", infer_tyname(I, fs), hf->name, decl->params.len, na);
        specs[k] = infer_spec_at(I, n->loc, func, tys, na);
        if (!specs[k])
            return NULL;
        for (int i = 0; I->final && specs[k]->incomplete && i < na; i++)
            if (ty_has_unknown(tys[i]))
                return TYPING(I, VEC_AT(n->args, i), "cannot determine the type of this argument: %s (the items "
                              "of an empty %s are never known; a call through a function variable does not "
                              "learn them)", infer_tyname(I, tys[i]), container_word(tys[i]));
        Type *r = specs[k]->ret;
        if (IS_UNK(r)) {
            if (I->final)
                return TYPING(I, n, "cannot infer the return type of recursive function '%s'", hf->name);
            return r;
        }
        if (ret && r != ret)
            return TYPING(I, n, "the functions this call may reach have different signatures: %s() returns %s, "
                          "%s() returns %s (a function variable needs functions of one signature)",
                          c->req->funcs[fs->elems[0]->func].name, infer_tyname(I, ret), hf->name,
                          infer_tyname(I, r));
        ret = r;
    }
    n->call_kind = CALL_FUNCSET;
    n->specs = specs;
    return ret;
}

/* A call through a first-class function value (TY_FUNCPTR, Numba's
 * FunctionType): the arguments are cast to its argument types, positionally. */
static Type *funcptr_call(Inf *I, Node *n, Type *fp) {
    if (n->keywords.len)
        return TYPING(I, n, "keyword arguments in a call of a first-class function %s", infer_tyname(I, fp));
    if (n->args.len != fp->nelems)
        return TYPING(I, n, "%s takes %d argument%s, the call passes %d", infer_tyname(I, fp), fp->nelems,
                      fp->nelems == 1 ? "" : "s", n->args.len);
    for (int i = 0; i < n->args.len; i++) {
        Node **pa = (Node **)&VEC_AT(n->args, i);
        Type *t = infer_expr(I, pa);
        if (!t)
            return NULL;
        if (IS_UNK(t))
            return t;
        if (!ty_is_number(t) || !ty_can_convert(ty_plain(I->tc, t), fp->elems[i]))
            return TYPING(I, *pa, "cannot pass %s as argument %d of %s", infer_tyname(I, t), i + 1,
                          infer_tyname(I, fp));
        infer_cast(I, pa, fp->elems[i]);
    }
    n->call_kind = CALL_FUNCPTR;
    return fp->item;
}

Type *infer_func_call(Inf *I, Node *n, int func) { return func_call(I, n, func); }

/* ---- exceptions ---- */

static Node *const_text(Inf *I, SrcLoc loc, const char *text) {
    Node *k = ast_new(I->a, N_CONST, loc);
    k->cval.kind = CVAL_STR;
    k->cval.s = text;
    k->cval.slen = (int)strlen(text);
    k->ty = infer_ty(I, TY_STRING);
    return k;
}

/* The arguments of an exception other than one message (ValueError("bad",
 * x), KeyError(3)) travel in the runtime's message text: HJ_EXC_ARGS_MARK,
 * then per argument (HJ_EXC_ARGS_SEP between two) a tag and its text: s
 * str, i int, f float (its repr: the value round-trips), c complex, b bool,
 * n None.  The dispatcher makes the tuple back (python/core/dispatcher.c),
 * so the exception's args are CPython's and Numba's.  The arguments are
 * typed first; the f-string replaces them in the final pass (when casts
 * apply).  false: refused. */
static const char *exc_arg_tag(const Type *t) {
    return t->kind == TY_STRING ? "s" : t->kind == TY_BOOL ? "b" : ty_is_int(t) ? "i" : ty_is_float(t) ? "f"
           : ty_is_complex(t) ? "c" : t->kind == TY_NONE ? "n" : NULL;
}

/* An Optional variable v as an exception argument: its tag and text are
 * chosen when it is raised, `"<sep>n" if v is None else f"<sep><tag>{v}"`. */
static Node *exc_optional_arg(Inf *I, Node *v, const char *sep, const char *tag) {
    Node *test = ast_new(I->a, N_COMPARE, v->loc);
    test->a = v;
    Node *none = ast_new(I->a, N_CONST, v->loc);
    none->cval.kind = CVAL_NONE;
    vec_push(I->a, &test->args, none);
    test->ops = arena_alloc(I->a, sizeof(OpKind));
    test->ops[0] = OP_IS;
    Node *again = ast_new(I->a, N_NAME, v->loc);
    again->name = v->name;
    Node *part = ast_new(I->a, N_FORMATTED, v->loc);
    part->a = again;
    Node *text = ast_new(I->a, N_FSTRING, v->loc);
    vec_push(I->a, &text->args, const_text(I, v->loc, arena_printf(I->a, "%s%s", sep, tag)));
    vec_push(I->a, &text->args, part);
    Node *ife = ast_new(I->a, N_IFEXP, v->loc);
    ife->a = test;
    ife->b = const_text(I, v->loc, arena_printf(I->a, "%sn", sep));
    ife->c = text;
    Node *out = ast_new(I->a, N_FORMATTED, v->loc);
    out->a = ife;
    return out;
}

static bool exc_args(Inf *I, Node *n) {
    Node *f = I->final ? ast_new(I->a, N_FSTRING, n->loc) : NULL;
    for (int i = 0; i < n->args.len; i++) {
        Node **pa = (Node **)&VEC_AT(n->args, i);
        Type *t = infer_expr_opt(I, pa);
        if (!t)
            return false;
        if (IS_UNK(t))
            continue;
        if (t->kind == TY_OPTIONAL) {
            const char *btag = exc_arg_tag(t->base);
            if (btag && (*pa)->kind == N_NAME && (btag[0] != 'f' || t->base->kind == TY_FLOAT64) &&
                (btag[0] != 'c' || t->base->kind == TY_COMPLEX128)) {
                if (f)
                    vec_push(I->a, &f->args,
                             exc_optional_arg(I, *pa, i ? HJ_EXC_ARGS_SEP : HJ_EXC_ARGS_MARK, btag));
                continue;
            }
            infer_cast(I, pa, t->base); /* another expression: unwrapped (None raises TypeError) */
            t = t->base;
        }
        const char *tag = exc_arg_tag(t);
        if (!tag)
            return UNSUP(I, *pa, "an exception argument of type %s is not supported by hpcjit (str, numbers, "
                         "bools and None are)", infer_tyname(I, t)), false;
        if (!f)
            continue;
        if (tag[0] == 'f')
            infer_cast(I, pa, T(I, TY_FLOAT64));
        else if (tag[0] == 'c')
            infer_cast(I, pa, T(I, TY_COMPLEX128));
        vec_push(I->a, &f->args, const_text(I, (*pa)->loc, arena_printf(I->a, "%s%s", i ? HJ_EXC_ARGS_SEP :
                                                                           HJ_EXC_ARGS_MARK, tag)));
        if (tag[0] == 'n')
            continue;
        Node *part = ast_new(I->a, N_FORMATTED, (*pa)->loc);
        part->a = *pa;
        vec_push(I->a, &f->args, part);
    }
    if (!f)
        return true;
    if (!infer_fstring(I, f))
        return false;
    n->args = (PtrVec){0};
    vec_push(I->a, &n->args, f);
    return true;
}

static Type *exc_call(Inf *I, Node *n, Type *cls) {
    if (!no_keywords(I, n, cls->name))
        return NULL;
    Node *m = n->args.len == 1 ? VEC_AT(n->args, 0) : NULL;
    bool message = m && (m->kind == N_FSTRING || (m->kind == N_CONST && m->cval.kind == CVAL_STR));
    if (m && !message) { /* one argument: a str value is the message, another value an argument */
        Type *t = infer_expr(I, (Node **)&VEC_AT(n->args, 0));
        if (!t)
            return NULL;
        m = VEC_AT(n->args, 0);
        /* a number, bool or None is the argument; other values (arrays,
         * tuples, optionals) are printed into the message */
        message = !(ty_is_number(t) || t->kind == TY_NONE);
    }
    if (message && !infer_exc_message(I, m))
        return NULL;
    if (!message && n->args.len && !exc_args(I, n))
        return NULL;
    n->call_kind = CALL_EXC;
    return ty_exc_value(I->tc, cls->name);
}

/* f(a, *t): the items of t, a tuple variable or display, become arguments
 * (`t[0], t[1], ...`), as Numba's; rewritten once t's type is known.
 * 1: done, 0: t's type is not known yet, -1: refused. */
static int expand_star_args(Inf *I, Node *n) {
    PtrVec out = {0};
    for (int i = 0; i < n->args.len; i++) {
        Node *e = VEC_AT(n->args, i);
        if (e->kind != N_STARRED) {
            vec_push(I->a, &out, e);
            continue;
        }
        if (e->a->kind == N_TUPLE) {
            for (int j = 0; j < e->a->args.len; j++)
                vec_push(I->a, &out, VEC_AT(e->a->args, j));
            continue;
        }
        if (e->a->kind != N_NAME)
            return UNSUP(I, e, "star-arguments in calls are supported for a tuple variable or a tuple display"),
                   -1;
        Type *tt = infer_expr(I, &e->a);
        if (!tt)
            return -1;
        if (IS_UNK(tt))
            return 0;
        if (tt->kind != TY_TUPLE)
            return UNSUP(I, e, "star-arguments in calls are supported for tuples, not %s", infer_tyname(I, tt)), -1;
        for (int j = 0; j < tt->nelems; j++) {
            Node *ix = ast_new(I->a, N_SUBSCRIPT, e->loc);
            ix->a = ast_clone_expr(I->a, e->a);
            ix->b = infer_const_int(I, e->loc, j);
            vec_push(I->a, &out, ix);
        }
    }
    n->args = out;
    n->has_star = 0;
    return 1;
}

Type *infer_call(Inf *I, Node **pn) {
    Node *n = *pn;
    if (n->has_star) { /* `**kw` was refused before typing: these are `*t` */
        int r = expand_star_args(I, n);
        if (r <= 0)
            return r < 0 ? NULL : TY_UNK(I);
    }
    Type *ft = infer_expr(I, &n->a);
    if (!ft)
        return NULL;
    if (IS_UNK(ft))
        return ft;
    switch (ft->kind) {
    case TY_BUILTIN:
        return builtin_call(I, n, (BuiltinId)ft->builtin, NULL);
    case TY_BOUND_METHOD:
        if (ft->builtin == BI_JC_METHOD) /* obj.method(args): a call of the method (infer_jitclass.c) */
            return infer_jc_method_call(I, n, ft->self_ty) ? infer_call(I, pn)
                                                           : TYPING(I, n, "cannot call this jitclass method");
        /* typed again in the final pass (the receiver of another method,
         * `d.setdefault(k, []).append(v)`): the receiver is in args already */
        return builtin_call(I, n, (BuiltinId)ft->builtin, n->self_in_args ? NULL : n->a->a);
    case TY_DTYPE:
        if (ty_is_named_tuple(ft->dtype)) /* Point(1, 2.0): a named tuple class */
            return infer_nt_construct(I, n, ft->dtype);
        if (ft->dtype->kind == TY_JITCLASS) { /* Cls(args): its constructor */
            return infer_jc_method_call(I, n, ft) ? infer_call(I, pn) : NULL; /* NULL: reported */
        }
        if (!ty_is_number(ft->dtype))
            return TYPING(I, n, "the type %s is not callable", infer_tyname(I, ft->dtype));
        n->call_kind = CALL_DTYPE;
        return conversion(I, n, infer_tyname(I, ft->dtype), ft->dtype);
    case TY_FUNCTION:
        return func_call(I, n, ft->func);
    case TY_FUNCSET:
        return funcset_call(I, n, ft);
    case TY_CLOSURE:
        return closure_call(I, n, ft);
    case TY_FUNCPTR:
        return funcptr_call(I, n, ft);
    case TY_EXC_CLASS:
        return exc_call(I, n, ft);
    default:
        if (ft->kind == TY_MODULE && strncmp(ft->name, "$enum:", 6) == 0) /* compiler.py _enum_qualname */
            return TYPING(I, n, "calling the Enum class %s (a member from its value) is not supported (nor by Numba)",
                          ft->name + 6);
        return TYPING(I, n, "%s is not callable", infer_tyname(I, ft));
    }
}

/* ---- iteration ---- */

Type *infer_funcs_tuple(Inf *I, Type *t) {
    if (t->kind != TY_TUPLE || t->nelems < 2)
        return NULL;
    Type *u = t->elems[0];
    for (int i = 0; i < t->nelems; i++) {
        Type *e = t->elems[i];
        if (e->kind != TY_FUNCTION && e->kind != TY_FUNCSET)
            return NULL;
        u = ty_funcset_union(I->tc, u, e);
    }
    if (u->kind != TY_FUNCSET)
        return NULL; /* the same function throughout: homogeneous already */
    Type **el = arena_alloc(I->a, sizeof(Type *) * (size_t)t->nelems);
    for (int i = 0; i < t->nelems; i++)
        el[i] = u;
    return ty_tuple(I->tc, el, t->nelems);
}

static Type *iter_of(Inf *I, Node *at, Type *t) {
    if (IS_UNK(t))
        return t;
    switch (t->kind) {
    case TY_RANGE:
        return T(I, TY_INT64);
    case TY_ARRAY:
        if (t->ndim == 0)
            return TYPING(I, at, "cannot iterate over a 0-d array");
        if (t->ndim == 1)
            return t->dtype;
        return ty_array(I->tc, t->dtype, t->ndim - 1, t->layout == LAYOUT_C ? LAYOUT_C : LAYOUT_A);
    case TY_TUPLE:
        for (int i = 1; i < t->nelems; i++)
            if (t->elems[i] != t->elems[0])
                return TYPING(I, at, "cannot iterate over the heterogeneous %s", infer_tyname(I, t));
        if (t->nelems == 0)
            return TYPING(I, at, "cannot iterate over an empty tuple");
        return t->elems[0];
    default:
        return TYPING(I, at, "cannot iterate over %s", infer_tyname(I, t));
    }
}

#define ITER_MAXND 32 /* HJ_MAX_NDIM of abi.h */

/* for idx in np.ndindex(shape) / np.ndindex(d0, d1, ...): UniTuple(int64 x nd);
 * for idx, x in np.ndenumerate(a): Tuple(UniTuple(int64 x nd), dtype).
 * ndindex's args become int64 dims (a shape tuple is kept, cast to int64s). */
static Type *ndindex_iter(Inf *I, Node *n, BuiltinId id) {
    const char *fname = id == BI_NP_NDINDEX ? "ndindex" : id == BI_PNDINDEX ? "pndindex" : "ndenumerate";
    n->call_kind = CALL_BUILTIN;
    n->builtin = id;
    if (!no_keywords(I, n, fname))
        return NULL;
    Type *tys[ITER_MAXND + 1] = {0};
    if (n->args.len > ITER_MAXND)
        return TYPING(I, n, "%s() of more than %d dimensions", fname, ITER_MAXND);
    bool unk = false;
    if (!type_args(I, n, tys, &unk))
        return NULL;
    if (unk)
        return TY_UNK(I);
    int nd = 0;
    Type *el = NULL;
    if (id == BI_NP_NDENUMERATE) {
        if (n->args.len != 1 || tys[0]->kind != TY_ARRAY)
            return TYPING(I, n, "ndenumerate() needs one array");
        nd = tys[0]->ndim;
        el = tys[0]->dtype;
    } else if (n->args.len == 1 && tys[0]->kind == TY_TUPLE) {
        nd = tys[0]->nelems;
        for (int i = 0; i < nd; i++)
            if (!ty_is_int(tys[0]->elems[i]))
                return TYPING(I, (Node *)VEC_AT(n->args, 0), "%s() shape must hold integers, not %s",
                              fname, infer_tyname(I, tys[0]));
        Type **i64s = arena_alloc(I->a, sizeof(Type *) * (size_t)(nd + 1));
        for (int i = 0; i < nd; i++)
            i64s[i] = T(I, TY_INT64);
        infer_cast(I, ARG(0), ty_tuple(I->tc, i64s, nd));
    } else {
        nd = n->args.len;
        for (int i = 0; i < nd; i++) {
            if (!ty_is_int(tys[i]))
                return TYPING(I, (Node *)VEC_AT(n->args, i), "%s() dimensions must be integers, not %s",
                              fname, infer_tyname(I, tys[i]));
            infer_cast(I, ARG(i), T(I, TY_INT64));
        }
    }
    Type **ix = arena_alloc(I->a, sizeof(Type *) * (size_t)(nd + 1));
    for (int i = 0; i < nd; i++)
        ix[i] = T(I, TY_INT64);
    Type *idx = ty_tuple(I->tc, ix, nd);
    if (!el)
        return n->ty = idx;
    Type *pair[2] = {idx, el};
    return n->ty = ty_tuple(I->tc, pair, 2);
}

Type *infer_iter(Inf *I, Node **pn) {
    Node *n = *pn;
    if (n->kind == N_ATTRIBUTE && strcmp(n->name, "flat") == 0) { /* for x in a.flat: C order */
        Type *bt = infer_expr(I, &n->a);
        if (!bt)
            return NULL;
        if (IS_UNK(bt))
            return bt;
        if (bt->kind != TY_ARRAY)
            return TYPING(I, n, "unknown attribute 'flat' of %s", infer_tyname(I, bt));
        n->attr_kind = ATTR_ARRAY_FLAT;
        n->ty = bt;
        return bt->dtype;
    }
    if (n->kind == N_CALL) {
        Type *ft = infer_expr(I, &n->a);
        if (!ft)
            return NULL;
        if (ft->kind == TY_BUILTIN &&
            (ft->builtin == BI_NP_NDINDEX || ft->builtin == BI_NP_NDENUMERATE || ft->builtin == BI_PNDINDEX))
            return ndindex_iter(I, n, (BuiltinId)ft->builtin);
        if (ft->kind == TY_BUILTIN && ft->builtin == BI_ITER && n->args.len == 1 && !n->keywords.len &&
            !n->has_star) { /* for x in iter(y): the loop over y (the same items, no generator object) */
            *pn = VEC_AT(n->args, 0);
            return infer_iter(I, pn);
        }
        if (ft->kind == TY_BUILTIN && ft->builtin == BI_REVERSED) { /* for x in reversed(seq) */
            n->call_kind = CALL_BUILTIN;
            n->builtin = BI_REVERSED;
            if (!no_keywords(I, n, "reversed"))
                return NULL;
            if (n->args.len != 1)
                return TYPING(I, n, "reversed() takes exactly one argument (%d given)", n->args.len);
            Node *a = VEC_AT(n->args, 0);
            if (a->kind == N_CALL) { /* reversed(enumerate(...)) / reversed(zip(...)) are not sequences */
                Type *at = infer_expr(I, &a->a);
                if (!at)
                    return NULL;
                if (at->kind == TY_BUILTIN && (at->builtin == BI_ENUMERATE || at->builtin == BI_ZIP ||
                                               at->builtin == BI_REVERSED))
                    return TYPING(I, n, "'%s' object is not reversible", builtin_name((BuiltinId)at->builtin) + 9);
            }
            Type *el = infer_iter(I, ARG(0));
            if (!el)
                return NULL;
            Type *st = infer_value_ty(VEC_AT(n->args, 0));
            if (st && !IS_UNK(st) && st->kind != TY_RANGE && st->kind != TY_ARRAY && st->kind != TY_TUPLE &&
                !lib_type_owner(st))
                return TYPING(I, n, "reversed() of %s is not supported", infer_tyname(I, st));
            n->ty = st;
            return el;
        }
        if (ft->kind == TY_BUILTIN && (ft->builtin == BI_ENUMERATE || ft->builtin == BI_ZIP)) {
            n->call_kind = CALL_BUILTIN;
            n->builtin = (BuiltinId)ft->builtin;
            if (ft->builtin == BI_ENUMERATE) {
                static const char *const names[] = {"iterable", "start"};
                Node *sl[2];
                if (!slots(I, n, "enumerate", names, 2, sl))
                    return NULL;
                if (!sl[0])
                    return TYPING(I, n, "enumerate() missing required argument 'iterable'");
                Type *el = infer_iter(I, &sl[0]);
                if (!el)
                    return NULL;
                if (sl[1]) {
                    Type *st = infer_expr(I, &sl[1]);
                    if (!st)
                        return NULL;
                    if (!IS_UNK(st) && !ty_is_int(st))
                        return TYPING(I, sl[1], "enumerate() start must be an integer, not %s",
                                      infer_tyname(I, st));
                }
                if (IS_UNK(el))
                    return el;
                if (I->final) {
                    if (!sl[1])
                        sl[1] = infer_const_int(I, n->loc, 0);
                    infer_cast(I, &sl[1], T(I, TY_INT64));
                    set_args(I, n, sl, 2);
                }
                Type *pair[2] = {T(I, TY_INT64), el};
                n->ty = ty_tuple(I->tc, pair, 2);
                return n->ty;
            }
            if (!no_keywords(I, n, "zip"))
                return NULL;
            if (n->args.len == 0)
                return TYPING(I, n, "zip() needs at least one iterable");
            Type **el = arena_alloc(I->a, sizeof(Type *) * (size_t)(n->args.len + 1));
            bool unk = false;
            for (int i = 0; i < n->args.len; i++) {
                el[i] = infer_iter(I, ARG(i));
                if (!el[i])
                    return NULL;
                if (IS_UNK(el[i]))
                    unk = true;
            }
            if (unk)
                return TY_UNK(I);
            n->ty = ty_tuple(I->tc, el, n->args.len);
            return n->ty;
        }
    }
    Type *t = infer_expr(I, pn);
    if (!t)
        return NULL;
    const LibOps *own = lib_type_owner(t); /* a library type iterates as its feature says */
    if (own && own->infer_iter)
        return own->infer_iter(I, pn, t);
    if (t->kind == TY_GENERATOR) /* a generator object: resumed until it ends */
        return t->item;
    Type *fs = infer_funcs_tuple(I, t);
    if (fs) { /* a tuple of different functions: each item a function variable */
        infer_cast(I, pn, fs);
        return fs->elems[0];
    }
    return iter_of(I, *pn, t);
}

Type *infer_operator_call(Inf *I, Node **pn, const char *opname) {
    Node *b = *pn;
    int id = builtin_lookup(opname);
    const LibOps *ops = id >= 0 ? lib_ops((BuiltinId)id) : NULL;
    if (!ops || !ops->infer_call)
        return UNSUP(I, b, "the operator %s is not supported by hpcjit", opname + 9);
    Node *c = ast_new(I->a, N_CALL, b->loc);
    vec_push(I->a, &c->args, b->a);
    vec_push(I->a, &c->args, b->b);
    Type *t = ops->infer_call(I, c, (BuiltinId)id, NULL);
    if (t && I->final && !IS_UNK(t)) {
        c->ty = t;
        *pn = c;
    } else {
        b->a = VEC_AT(c->args, 0); /* the operands may have been rewritten */
        b->b = VEC_AT(c->args, 1);
    }
    return t;
}
