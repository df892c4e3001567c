/* infer_record.c - typing of NumPy structured dtypes (TY_RECORD, Numba's
 * Record): field reads and writes by attribute (`r.a1`), by constant name
 * (`r['a1']`, `r[name]` where name is a compile-time constant: a constant
 * tuple's element, a global tuple's, a literal_unroll variable) and by
 * constant position (`r[0]`), and the strided view of one field of a record
 * array (`arr.a1`, `arr['a1']`; a subarray field's axes follow the array's).  Every form becomes an N_ATTRIBUTE with
 * attr_kind ATTR_RECORD_FIELD or ATTR_ARRAY_FIELD, cval.i the field's
 * index (lower_record.c lowers them). */
#include "infer.h"
#include "types.h"
#include "hpcjit/abi.h"

#include <string.h>

/* The field names of record t, for diagnostics: "'a1', 'a2'". */
static const char *field_list(Inf *I, const Type *t) {
    StrBuf b;
    sb_init(&b);
    for (int i = 0; i < t->nelems; i++)
        sb_printf(&b, "%s'%s'", i ? ", " : "", t->fields[i]);
    const char *s = arena_strdup(I->a, b.s ? b.s : "");
    sb_free(&b);
    return s;
}

typedef struct Finder {
    const char *name;
    Node *value; /* the value of the one assignment to `name` */
    int count;
} Finder;

static void find_defs(PtrVec *body, Finder *f);

static void find_def(Node *s, Finder *f) {
    if (!s)
        return;
    if (s->kind == N_ASSIGN)
        for (int i = 0; i < s->targets.len; i++) {
            Node *t = VEC_AT(s->targets, i);
            if (t->kind == N_NAME && strcmp(t->name, f->name) == 0) {
                f->count++;
                f->value = s->a;
            } else if (t->kind != N_NAME) {
                f->count += t->kind == N_TUPLE || t->kind == N_LIST; /* unpacked: not a constant we follow */
            }
        }
    if (s->kind == N_AUGASSIGN && s->a->kind == N_NAME && strcmp(s->a->name, f->name) == 0)
        f->count += 2;
    if (s->kind == N_FOR && s->a && s->a->kind == N_NAME && strcmp(s->a->name, f->name) == 0)
        f->count += 2;
    find_defs(&s->body, f);
    find_defs(&s->orelse, f);
    find_defs(&s->finalbody, f);
    find_defs(&s->handlers, f);
}

static void find_defs(PtrVec *body, Finder *f) {
    for (int i = 0; i < body->len; i++)
        find_def(VEC_AT(*body, i), f);
}

/* The compile-time constant str an index expression stands for, or NULL:
 * 'a1'; t[k] of a constant tuple t (a display, a global tuple, a local
 * assigned once) and constant k; a local assigned once from one of these. */
static const char *const_name(Inf *I, Node *e, int depth) {
    if (!e || depth > 16)
        return NULL;
    switch (e->kind) {
    case N_CONST:
        return e->cval.kind == CVAL_STR && !e->cval.is_bytes ? e->cval.s : NULL;
    case N_NAME: {
        if (!I->s->fn || !infer_is_local(I, e->name))
            return NULL;
        Finder f = {.name = e->name};
        find_defs(&I->s->fn->body, &f);
        return f.count == 1 ? const_name(I, f.value, depth + 1) : NULL;
    }
    case N_SUBSCRIPT: {
        Node *t = e->a, *k = e->b;
        int64_t i;
        if (k->kind == N_CONST && k->cval.kind == CVAL_INT)
            i = k->cval.i;
        else if (k->kind == N_UNARYOP && k->op == OP_NEG && k->a->kind == N_CONST && k->a->cval.kind == CVAL_INT)
            i = -k->a->cval.i;
        else
            return NULL;
        for (int hop = 0; t && t->kind == N_NAME && hop < 16; hop++) { /* a local tuple assigned once */
            if (!infer_is_local(I, t->name)) { /* a global tuple of strs */
                const HjEnvEntry *g = I->s->hf ? infer_env_find(I->s->hf, t->name) : NULL;
                if (!g || g->kind != HJ_ENV_TUPLE)
                    return NULL;
                if (i < 0)
                    i += g->nitems;
                return i >= 0 && i < g->nitems && g->items[i].kind == HJ_ENV_STR ? g->items[i].qualname : NULL;
            }
            Finder f = {.name = t->name};
            find_defs(&I->s->fn->body, &f);
            t = f.count == 1 ? f.value : NULL;
        }
        if (!t || t->kind != N_TUPLE)
            return NULL;
        if (i < 0)
            i += t->args.len;
        return i >= 0 && i < t->args.len ? const_name(I, VEC_AT(t->args, i), depth + 1) : NULL;
    }
    default:
        return NULL;
    }
}

/* Field `name` of record rt accessed at n (an N_ATTRIBUTE): its type. */
static Type *record_field(Inf *I, Node *n, Type *rt, const char *name) {
    int i = ty_record_field(rt, name);
    if (i < 0)
        return TYPING(I, n, "%s has no field '%s' (its fields: %s)", infer_tyname(I, rt), name, field_list(I, rt));
    Type *ft = rt->elems[i];
    if (ft->kind == TY_CHARSEQ)
        return UNSUP(I, n, "field '%s' of %s is a character sequence (%s): hpcjit moves it with its record "
                     "but does not read or write it", name, infer_tyname(I, rt), infer_tyname(I, ft));
    n->attr_kind = ATTR_RECORD_FIELD;
    n->cval.i = i;
    if (ty_is_nested_array(ft)) /* a subarray field: a C array over the record's bytes */
        return ty_array(I->tc, ft->dtype, ft->ndim, LAYOUT_C);
    return ft;
}

Type *infer_record_attr(Inf *I, Node *n, Type *base) {
    if (base->kind == TY_RECORD)
        return record_field(I, n, base, n->name);
    /* arr.a1: the field of every record, a view with the array's strides */
    Type *rt = base->dtype;
    int i = ty_record_field(rt, n->name);
    if (i < 0)
        return NULL;
    Type *ft = rt->elems[i];
    if (ft->kind == TY_CHARSEQ)
        return UNSUP(I, n, "field '%s' is a character sequence (%s): its view is not supported by hpcjit", n->name,
                     infer_tyname(I, ft));
    n->attr_kind = ATTR_ARRAY_FIELD;
    n->cval.i = i;
    if (ty_is_nested_array(ft)) { /* a subarray field: its axes follow the array's */
        if (base->ndim + ft->ndim > HJ_MAX_NDIM)
            return UNSUP(I, n, "the view of field '%s' would have more than %d dimensions", n->name, HJ_MAX_NDIM);
        return ty_array_ro(I->tc, ft->dtype, base->ndim + ft->ndim, LAYOUT_A, base->readonly);
    }
    return ty_array_ro(I->tc, ft, base->ndim, LAYOUT_A, base->readonly);
}

/* n (an N_SUBSCRIPT) becomes the attribute `n->a.name`. */
static void to_attribute(Node *n, const char *name) {
    n->kind = N_ATTRIBUTE;
    n->name = name;
    n->b = NULL;
}

Type *infer_record_subscript(Inf *I, Node **pn, Type *base) {
    Node *n = *pn;
    Type *rt = base->kind == TY_RECORD ? base : base->dtype;
    if (n->b->kind == N_SLICE || n->b->kind == N_TUPLE)
        return TYPING(I, n->b, "a record is indexed by one field name or position, not by %s",
                      n->b->kind == N_SLICE ? "a slice" : "a tuple");
    Type *it = infer_expr(I, &n->b);
    if (!it)
        return NULL;
    const char *name = const_name(I, n->b, 0);
    int64_t k = 0;
    bool pos = n->b->kind == N_CONST && n->b->cval.kind == CVAL_INT;
    if (pos)
        k = n->b->cval.i;
    else if (n->b->kind == N_UNARYOP && n->b->op == OP_NEG && n->b->a->kind == N_CONST && n->b->a->cval.kind == CVAL_INT)
        pos = true, k = -n->b->a->cval.i;
    if (!name && base->kind == TY_RECORD && pos) { /* r[0], r[-1]: the field at that position */
        if (k < 0)
            k += rt->nelems;
        if (k < 0 || k >= rt->nelems)
            return TYPING(I, n->b, "field index %lld out of range for %s (%d fields)", (long long)k,
                          infer_tyname(I, rt), rt->nelems);
        name = rt->fields[k];
    }
    if (!name) {
        if (IS_UNK(it))
            return it;
        if (base->kind == TY_ARRAY)
            return NULL; /* an ordinary array index */
        return TYPING(I, n->b,
                      "a record field name must be a compile-time constant (a str literal, a constant "
                      "tuple's element or a literal_unroll() variable), not %s; fields of %s: %s",
                      infer_tyname(I, it), infer_tyname(I, rt), field_list(I, rt));
    }
    if (base->kind == TY_ARRAY && ty_record_field(rt, name) < 0)
        return TYPING(I, n->b, "%s has no field '%s' (its fields: %s)", infer_tyname(I, rt), name, field_list(I, rt));
    to_attribute(n, name);
    return infer_record_attr(I, n, base);
}
