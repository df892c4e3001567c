/* lower_text.c - print() and f-string exception messages: calls into the
 * runtime's text buffer (runtime/include/hpcjit/text.h).
 *
 * Every value is lowered first, in source order, and only then is the
 * text built, so that a call inside an argument that itself prints or
 * raises cannot clobber the half-built line (the buffer is per thread). */
#include "lower.h"

#include <stdio.h>
#include <string.h>

#include "hpcjit/runtime.h"
#include "util.h"

bool infer_text_is_strconst(const Node *n); /* infer_text.c */

typedef struct Vals {
    LLVMValueRef *v;
    int n, cap;
} Vals;

static void push(Lower *L, Vals *vs, LLVMValueRef v) {
    if (vs->n == vs->cap) {
        int cap = vs->cap ? vs->cap * 2 : 8;
        LLVMValueRef *p = arena_alloc(&L->c->arena, sizeof *p * (size_t)cap);
        if (vs->n)
            memcpy(p, vs->v, sizeof *p * (size_t)vs->n);
        vs->v = p;
        vs->cap = cap;
    }
    vs->v[vs->n++] = v;
}

static const char *const_text(Lower *L, const Node *n) {
    return arena_strndup(&L->c->arena, n->cval.s ? n->cval.s : "", (size_t)n->cval.slen);
}

/* ---- pass 1: evaluate ------------------------------------------------------- */

static bool eval_value(Lower *L, Node *n, Vals *vs);

/* A replacement field whose spec has replacement fields itself
 * (f"{x:>{w}}"): the spec is a str value made before the text. */
static bool dynamic_spec(const Node *p) {
    for (int j = 0; p->b && j < p->b->args.len; j++)
        if (((Node *)VEC_AT(p->b->args, j))->kind == N_FORMATTED)
            return true;
    return false;
}

/* A replacement field with a non-empty format spec. */
static bool has_spec(const Node *p) {
    if (dynamic_spec(p))
        return true;
    for (int j = 0; p->b && j < p->b->args.len; j++)
        if (((Node *)VEC_AT(p->b->args, j))->cval.slen > 0)
            return true;
    return false;
}

static bool eval_fstring(Lower *L, Node *f, Vals *vs) {
    for (int i = 0; i < f->args.len; i++) {
        Node *p = VEC_AT(f->args, i);
        if (p->kind != N_FORMATTED)
            continue;
        if (has_spec(p) && infer_text_is_strconst(p->a)) { /* f"{'ab':*<4}": formatted as a str value */
            LLVMValueRef v = lower_expr_use(L, p->a);
            if (!v)
                return false;
            push(L, vs, v);
        } else if (!eval_value(L, p->a, vs)) {
            return false;
        }
        if (dynamic_spec(p)) { /* the spec's text, a temporary str after the value */
            LLVMValueRef spec = lower_fstring_value(L, p->b);
            if (!spec)
                return false;
            lower_temp(L, spec, p->b->ty, true);
            push(L, vs, spec);
        }
    }
    return true;
}

static bool eval_value(Lower *L, Node *n, Vals *vs) {
    if (n->kind == N_FSTRING)
        return eval_fstring(L, n, vs);
    if (infer_text_is_strconst(n) || n->ty->kind == TY_NONE)
        return true;
    LLVMValueRef v = lower_expr_use(L, n); /* owned arrays live until the text is written */
    if (!v)
        return false;
    push(L, vs, v);
    return true;
}

/* ---- pass 2: write ------------------------------------------------------------ */

static void call(Lower *L, const char *fn, LLVMTypeRef p0, LLVMValueRef a0) {
    LLVMTypeRef p[1] = {p0};
    LLVMValueRef a[1] = {a0};
    lower_rt(L, fn, L->t_void, p, p0 ? 1 : 0, a);
}

static void text(Lower *L, const char *s) { call(L, "rt_text_str", L->t_ptr, lower_cstr(L, s)); }

static char dtype_char(const Type *dt) { return "?bhilBHILefdFD"[dt->kind - TY_BOOL]; }

/* Write value v of type t as str() does (`repr`: as repr() inside tuples). */
static void write_value(Lower *L, LLVMValueRef v, Type *t, bool repr) {
    switch (t->kind) {
    case TY_NONE: text(L, "None"); return;
    case TY_OPTIONAL: {
        LLVMBasicBlockRef some = lower_block(L, "opt.value"), none = lower_block(L, "opt.none"),
                          done = lower_block(L, "opt.done");
        LLVMBuildCondBr(L->b, LLVMBuildExtractValue(L->b, v, 0, "valid"), some, none);
        lower_at(L, some);
        write_value(L, LLVMBuildExtractValue(L->b, v, 1, ""), t->base, repr);
        LLVMBuildBr(L->b, done);
        lower_at(L, none);
        text(L, "None");
        LLVMBuildBr(L->b, done);
        lower_at(L, done);
        return;
    }
    case TY_BOOL: call(L, "rt_text_bool", L->t_i32, LLVMBuildZExt(L->b, v, L->t_i32, "")); return;
    case TY_FLOAT32: call(L, "rt_text_f32", L->t_f32, v); return;
    case TY_FLOAT64: call(L, "rt_text_f64", L->t_f64, v); return;
    case TY_COMPLEX64: case TY_COMPLEX128: {
        LLVMTypeRef ft = t->kind == TY_COMPLEX64 ? L->t_f32 : L->t_f64;
        LLVMTypeRef p[2] = {ft, ft};
        LLVMValueRef a[2] = {LLVMBuildExtractValue(L->b, v, 0, "re"), LLVMBuildExtractValue(L->b, v, 1, "im")};
        lower_rt(L, t->kind == TY_COMPLEX64 ? "rt_text_c64" : "rt_text_c128", L->t_void, p, 2, a);
        return;
    }
    case TY_ARRAY: {
        LLVMValueRef slot = lower_alloca(L, lower_type(L, t), "arr.text");
        LLVMBuildStore(L->b, v, slot);
        LLVMTypeRef p[4] = {L->t_ptr, L->t_i32, L->t_i32, L->t_i32};
        LLVMValueRef a[4] = {slot, lower_i32(L, t->ndim), lower_i32(L, dtype_char(t->dtype)), lower_i32(L, repr)};
        lower_rt(L, "rt_text_array", L->t_void, p, 4, a);
        return;
    }
    case TY_STRING: /* a str value (lib/str) */
        call(L, repr ? "rt_str_text_repr" : "rt_str_text", L->t_ptr, v);
        return;
    case TY_TUPLE:
        text(L, "(");
        for (int i = 0; i < t->nelems; i++) {
            if (i > 0)
                text(L, ", ");
            write_value(L, LLVMBuildExtractValue(L->b, v, (unsigned)i, ""), t->elems[i], true);
        }
        text(L, t->nelems == 1 ? ",)" : ")");
        return;
    default:
        if (ty_is_unsigned(t))
            call(L, "rt_text_uint", L->t_i64, LLVMBuildZExt(L->b, v, L->t_i64, ""));
        else
            call(L, "rt_text_int", L->t_i64, LLVMBuildSExt(L->b, v, L->t_i64, ""));
        return;
    }
}

/* format(v, spec) for a bool, integer or float with a non-empty spec. */
static void write_formatted(Lower *L, LLVMValueRef v, Type *t, const char *spec) {
    LLVMValueRef st;
    if (t->kind == TY_STRING) { /* format(s, spec) as a new str, written, released */
        LLVMTypeRef p[2] = {L->t_ptr, L->t_ptr};
        LLVMValueRef a[2] = {v, lower_str_const(L, spec, (int64_t)strlen(spec))};
        LLVMValueRef r = lower_rt(L, "rt_str_format", L->t_ptr, p, 2, a);
        lower_check_status(L, LLVMBuildZExt(L->b, LLVMBuildIsNull(L->b, r, ""), L->t_i32, ""));
        call(L, "rt_str_text", L->t_ptr, r);
        lower_decref(L, r, t);
        return;
    }
    if (ty_is_float(t)) {
        LLVMTypeRef p[3] = {L->t_f64, L->t_i32, L->t_ptr};
        LLVMValueRef a[3] = {t->kind == TY_FLOAT32 ? LLVMBuildFPExt(L->b, v, L->t_f64, "") : v,
                             lower_i32(L, t->kind == TY_FLOAT32), lower_cstr(L, spec)};
        st = lower_rt(L, "rt_text_format_float", L->t_i32, p, 3, a);
    } else {
        bool u = ty_is_unsigned(t);
        LLVMValueRef x = u || t->kind == TY_BOOL ? LLVMBuildZExt(L->b, v, L->t_i64, "")
                                                 : LLVMBuildSExt(L->b, v, L->t_i64, "");
        LLVMTypeRef p[3] = {L->t_i64, L->t_i32, L->t_ptr};
        LLVMValueRef a[3] = {x, lower_i32(L, u), lower_cstr(L, spec)};
        st = lower_rt(L, "rt_text_format_int", L->t_i32, p, 3, a);
    }
    lower_check_status(L, st);
}

/* format(v, spec) with the spec a str value (made at run time). */
static void write_formatted_dyn(Lower *L, LLVMValueRef v, Type *t, LLVMValueRef spec, Type *str_ty) {
    LLVMValueRef r;
    if (t->kind == TY_STRING) {
        LLVMTypeRef p[2] = {L->t_ptr, L->t_ptr};
        LLVMValueRef a[2] = {v, spec};
        r = lower_rt(L, "rt_str_format", L->t_ptr, p, 2, a);
    } else if (ty_is_float(t)) {
        LLVMTypeRef p[3] = {L->t_f64, L->t_i32, L->t_ptr};
        LLVMValueRef a[3] = {t->kind == TY_FLOAT64 ? v : LLVMBuildFPExt(L->b, v, L->t_f64, ""),
                             lower_i32(L, t->kind == TY_FLOAT32), spec};
        r = lower_rt(L, "rt_str_format_float", L->t_ptr, p, 3, a);
    } else {
        bool u = ty_is_unsigned(t);
        LLVMValueRef x = u || t->kind == TY_BOOL ? LLVMBuildZExt(L->b, v, L->t_i64, "")
                                                 : LLVMBuildSExt(L->b, v, L->t_i64, "");
        LLVMTypeRef p[3] = {L->t_i64, L->t_i32, L->t_ptr};
        LLVMValueRef a[3] = {x, lower_i32(L, u), spec};
        r = lower_rt(L, "rt_str_format_int", L->t_ptr, p, 3, a);
    }
    lower_check_status(L, LLVMBuildZExt(L->b, LLVMBuildIsNull(L->b, r, ""), L->t_i32, ""));
    call(L, "rt_str_text", L->t_ptr, r);
    lower_decref(L, r, str_ty);
}

static void write_node(Lower *L, Node *n, const Vals *vs, int *k, bool repr);

static void write_fstring(Lower *L, Node *f, const Vals *vs, int *k) {
    for (int i = 0; i < f->args.len; i++) {
        Node *p = VEC_AT(f->args, i);
        if (p->kind == N_CONST) {
            if (p->cval.slen > 0)
                text(L, const_text(L, p));
            continue;
        }
        StrBuf spec;
        sb_init(&spec);
        for (int j = 0; p->b && j < p->b->args.len; j++) {
            Node *s = VEC_AT(p->b->args, j);
            sb_putn(&spec, s->cval.s ? s->cval.s : "", (size_t)s->cval.slen);
        }
        bool repr = p->name && strcmp(p->name, "r") == 0;
        if (p->name && p->name[0] == 'd') { /* int(x) of a float, formatted */
            LLVMTypeRef ps[2] = {L->t_f64, L->t_ptr};
            LLVMValueRef as[2] = {vs->v[(*k)++], lower_cstr(L, arena_strndup(&L->c->arena, spec.s ? spec.s : "",
                                                                               spec.len))};
            lower_check_status(L, lower_rt(L, "rt_text_format_float_int", L->t_i32, ps, 2, as));
        } else if (dynamic_spec(p)) {
            LLVMValueRef v = vs->v[(*k)++];
            write_formatted_dyn(L, v, p->a->ty, vs->v[(*k)++], p->b->ty);
        } else if (spec.len > 0 && p->a->ty->kind != TY_NONE) {
            write_formatted(L, vs->v[(*k)++], p->a->ty, arena_strndup(&L->c->arena, spec.s, spec.len));
        } else if (p->a->ty->kind == TY_FLOAT32 && !infer_text_is_strconst(p->a)) {
            /* np.float32.__format__ formats the value as a Python float */
            write_value(L, LLVMBuildFPExt(L->b, vs->v[(*k)++], L->t_f64, ""), ty_scalar(L->c->tc, TY_FLOAT64),
                        repr);
        } else {
            write_node(L, p->a, vs, k, repr);
        }
        sb_free(&spec);
    }
}

static void write_node(Lower *L, Node *n, const Vals *vs, int *k, bool repr) {
    if (n->kind == N_FSTRING) {
        write_fstring(L, n, vs, k);
    } else if (infer_text_is_strconst(n)) {
        LLVMValueRef s = lower_cstr(L, const_text(L, n));
        call(L, repr ? "rt_text_repr_str" : "rt_text_str", L->t_ptr, s);
    } else if (n->ty->kind == TY_NONE) {
        text(L, "None");
    } else {
        write_value(L, vs->v[(*k)++], n->ty, repr);
    }
}

/* sep= / end= of print(): the constant's text, or dflt for None/absent. */
static const char *keyword_text(Lower *L, Node *call_node, const char *name, const char *dflt) {
    for (int i = 0; i < call_node->keywords.len; i++) {
        Node *kw = VEC_AT(call_node->keywords, i);
        if (kw->name && strcmp(kw->name, name) == 0)
            return infer_text_is_strconst(kw->a) ? const_text(L, kw->a) : dflt;
    }
    return dflt;
}

/* ---- print() in CUDA kernels: one vprintf call --------------------------------
 * The line is one format string (string constants as text, `%` doubled)
 * and one buffer of 8-byte slots, as CUDA's printf takes them: integers as
 * `%lld`/`%llu` of int64, floats as `%f` of a double (Numba's formats),
 * bools and None as text.  Other values are an UnsupportedError. */

static void fmt_text(StrBuf *fmt, const char *s) {
    for (; *s; s++) {
        if (*s == '%')
            sb_putc(fmt, '%');
        sb_putc(fmt, *s);
    }
}

static LLVMValueRef device_cstr(Lower *L, const char *s) {
    LLVMValueRef init = LLVMConstStringInContext(L->ctx, s, (unsigned)strlen(s), 0);
    return lower_device_global(L, LLVMTypeOf(init), ".hjfmt", 4, init);
}

static LLVMValueRef device_print(Lower *L, Node *n) {
    Vals vs = {0};
    for (int i = 0; i < n->args.len; i++) {
        Node *a = VEC_AT(n->args, i);
        if (a->kind == N_FSTRING) {
            lower_fail(L, a, HJ_DIAG_UNSUPPORTED, "f-strings are not supported in CUDA kernels "
                                                  "(print the values as separate arguments)");
            return NULL;
        }
        Type *t = a->ty;
        if (!infer_text_is_strconst(a) && t->kind != TY_NONE && !ty_is_number(t) && t->kind != TY_BOOL) {
            lower_fail(L, a, HJ_DIAG_UNSUPPORTED, "print() of %s is not supported in CUDA kernels "
                       "(numbers, bools, None and string constants are)", ty_str(&L->c->arena, t));
            return NULL;
        }
        if (!eval_value(L, a, &vs))
            return NULL;
    }
    const char *sep = keyword_text(L, n, "sep", " "), *end = keyword_text(L, n, "end", "\n");
    StrBuf fmt;
    sb_init(&fmt);
    LLVMValueRef slots[64];
    int ns = 0, k = 0;
    for (int i = 0; i < n->args.len; i++) {
        Node *a = VEC_AT(n->args, i);
        Type *t = a->ty;
        if (i > 0)
            fmt_text(&fmt, sep);
        if (infer_text_is_strconst(a)) {
            fmt_text(&fmt, const_text(L, a));
            continue;
        }
        if (t->kind == TY_NONE) {
            sb_puts(&fmt, "None");
            continue;
        }
        LLVMValueRef v = vs.v[k++];
        if (ns + 2 > (int)(sizeof slots / sizeof slots[0])) {
            sb_free(&fmt);
            lower_fail(L, a, HJ_DIAG_UNSUPPORTED, "print() in a CUDA kernel takes at most 32 values");
            return NULL;
        }
        if (t->kind == TY_BOOL) {
            sb_puts(&fmt, "%s");
            slots[ns++] = LLVMBuildSelect(L->b, v, device_cstr(L, "True"), device_cstr(L, "False"), "");
        } else if (ty_is_float(t)) {
            sb_puts(&fmt, "%f");
            slots[ns++] = t->kind != TY_FLOAT64 ? LLVMBuildFPExt(L->b, v, L->t_f64, "") : v; /* float32, float16 */
        } else if (t->kind == TY_COMPLEX64 || t->kind == TY_COMPLEX128) {
            sb_puts(&fmt, "(%f%+fj)");
            for (unsigned p = 0; p < 2; p++) {
                LLVMValueRef x = LLVMBuildExtractValue(L->b, v, p, "");
                slots[ns++] = t->kind == TY_COMPLEX64 ? LLVMBuildFPExt(L->b, x, L->t_f64, "") : x;
            }
        } else if (ty_is_unsigned(t)) {
            sb_puts(&fmt, "%llu");
            slots[ns++] = LLVMBuildZExt(L->b, v, L->t_i64, "");
        } else {
            sb_puts(&fmt, "%lld");
            slots[ns++] = LLVMBuildSExt(L->b, v, L->t_i64, "");
        }
    }
    fmt_text(&fmt, end);
    LLVMValueRef buf = LLVMConstNull(L->t_ptr);
    if (ns > 0) {
        LLVMTypeRef st[64];
        for (int i = 0; i < ns; i++)
            st[i] = LLVMTypeOf(slots[i]);
        LLVMTypeRef sty = LLVMStructTypeInContext(L->ctx, st, (unsigned)ns, 0);
        buf = lower_alloca(L, sty, "printf.args");
        for (int i = 0; i < ns; i++)
            LLVMBuildStore(L->b, slots[i], LLVMBuildStructGEP2(L->b, sty, buf, (unsigned)i, ""));
    }
    LLVMValueRef f = device_cstr(L, arena_strndup(&L->c->arena, fmt.s ? fmt.s : "", fmt.len));
    sb_free(&fmt);
    LLVMTypeRef p[2] = {L->t_ptr, L->t_ptr};
    LLVMValueRef args[2] = {f, buf};
    LLVMTypeRef fnty = LLVMFunctionType(L->t_i32, p, 2, 0);
    LLVMValueRef fn = LLVMGetNamedFunction(L->mod, "vprintf");
    if (!fn)
        fn = LLVMAddFunction(L->mod, "vprintf", fnty);
    lower_call(L, fnty, fn, args, 2, "");
    return lower_zero(L, n->ty);
}

LLVMValueRef lower_print_call(Lower *L, Node *n) {
    if (L->device)
        return device_print(L, n);
    Vals vs = {0};
    int mark = lower_temps_mark(L);
    for (int i = 0; i < n->args.len; i++)
        if (!eval_value(L, VEC_AT(n->args, i), &vs))
            return NULL;
    const char *sep = keyword_text(L, n, "sep", " "), *end = keyword_text(L, n, "end", "\n");
    call(L, "rt_text_begin", NULL, NULL);
    int k = 0;
    for (int i = 0; i < n->args.len; i++) {
        if (i > 0 && *sep)
            text(L, sep);
        write_node(L, VEC_AT(n->args, i), &vs, &k, false);
    }
    LLVMTypeRef p[1] = {L->t_ptr};
    LLVMValueRef a[1] = {lower_cstr(L, end)};
    lower_check_status(L, lower_rt(L, "rt_text_print", L->t_i32, p, 1, a));
    lower_temps_release(L, mark);
    return lower_zero(L, n->ty);
}

bool lower_raise_fstring(Lower *L, Node *msg, const char *type) {
    if (L->device) { /* no text on the GPU: the class and the location only */
        lower_raise(L, type, NULL);
        return true;
    }
    Vals vs = {0};
    int mark = lower_temps_mark(L);
    if (!eval_fstring(L, msg, &vs))
        return false;
    call(L, "rt_text_begin", NULL, NULL);
    int k = 0;
    write_fstring(L, msg, &vs, &k);
    call(L, "rt_text_raise", L->t_ptr, lower_cstr(L, type));
    lower_goto_error(L);        /* releases the message's temporaries */
    lower_temps_release(L, mark); /* only forgets them: the block is closed */
    return true;
}

/* ---- str values: literals and f-strings (lib/str) ------------------------------ */

/* One code point from the UTF-8 the lexer produced (lenient: a bad byte
 * stands for itself). */
static uint32_t utf8_next(const unsigned char *p, int64_t n, int64_t *i) {
    uint32_t c = p[*i];
    int extra = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
    if (extra && *i + extra >= n) {
        (*i)++;
        return c;
    }
    if (extra)
        c &= 0x3fu >> extra;
    for (int k = 1; k <= extra; k++)
        c = (c << 6) | (p[*i + k] & 0x3fu);
    *i += 1 + extra;
    return c;
}

LLVMValueRef lower_str_const(Lower *L, const char *s, int64_t nbytes) {
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    int64_t n = 0;
    uint32_t maxc = 0;
    for (int64_t i = 0; i < nbytes; n++) {
        uint32_t c = utf8_next(p, nbytes, &i);
        if (c > maxc)
            maxc = c;
    }
    int kind = maxc < 0x100 ? 1 : maxc < 0x10000 ? 2 : 4;
    size_t units = (size_t)(n + 1) * (size_t)kind;
    unsigned char *buf = arena_alloc(&L->c->arena, units);
    memset(buf, 0, units);
    int64_t k = 0;
    for (int64_t i = 0; i < nbytes; k++) {
        uint32_t c = utf8_next(p, nbytes, &i);
        for (int b = 0; b < kind; b++) /* little-endian code units (abi: x86-64, aarch64) */
            buf[k * kind + b] = (unsigned char)(c >> (8 * b));
    }
    /* { HjMemInfo, HjStr } as hpcjit/str.h's LITERALS describes */
    LLVMTypeRef arr = LLVMArrayType2(L->t_i8, units);
    LLVMTypeRef hs[5] = {L->t_i64, L->t_i64, L->t_i32, L->t_i32, arr};
    LLVMTypeRef hst = LLVMStructTypeInContext(L->ctx, hs, 5, 0);
    LLVMTypeRef top[2] = {L->t_meminfo, hst};
    LLVMTypeRef gt = LLVMStructTypeInContext(L->ctx, top, 2, 0);
    char name[32];
    snprintf(name, sizeof name, ".hjstr.%d", L->nstrings++);
    LLVMValueRef g = LLVMAddGlobal(L->mod, gt, name);
    LLVMValueRef idx[2] = {LLVMConstInt(L->t_i32, 0, 0), LLVMConstInt(L->t_i32, 1, 0)};
    LLVMValueRef data = LLVMConstGEP2(gt, g, idx, 2);
    LLVMValueRef null = LLVMConstNull(L->t_ptr);
    LLVMValueRef mi[5] = {lower_i64(L, RT_REFCNT_IMMORTAL), data, lower_i64(L, 24 + (int64_t)units), null, null};
    LLVMValueRef hv[5] = {lower_i64(L, n), lower_i64(L, -1), lower_i32(L, kind), lower_i32(L, maxc < 0x80),
                          LLVMConstStringInContext(L->ctx, (const char *)buf, (unsigned)units, 1)};
    LLVMValueRef parts[2] = {LLVMConstStructInContext(L->ctx, mi, 5, 0), LLVMConstStructInContext(L->ctx, hv, 5, 0)};
    LLVMSetInitializer(g, LLVMConstStructInContext(L->ctx, parts, 2, 0));
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    LLVMSetAlignment(g, 8);
    return g; /* writable: rt_str_hash caches the hash into it */
}

LLVMValueRef lower_fstring_value(Lower *L, Node *f) {
    Vals vs = {0};
    int mark = lower_temps_mark(L);
    if (!eval_fstring(L, f, &vs))
        return NULL;
    call(L, "rt_text_begin", NULL, NULL);
    int k = 0;
    write_fstring(L, f, &vs, &k);
    LLVMValueRef s = lower_rt(L, "rt_str_from_text", L->t_ptr, NULL, 0, NULL);
    lower_check_status(L, LLVMBuildZExt(L->b, LLVMBuildIsNull(L->b, s, ""), L->t_i32, ""));
    lower_temps_release(L, mark);
    return s; /* owned */
}
