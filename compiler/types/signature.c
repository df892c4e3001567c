/* signature.c - Numba-style signature strings to typecodes, and typecodes
 * back to display names.  The type grammar itself is ty_parse (types.c). */
#include <stdlib.h>
#include <string.h>

#include "hpcjit/compiler.h"
#include "types.h"

static const char *skip_ws(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

static char *typecode_of(const Type *t) {
    StrBuf b;
    sb_init(&b);
    ty_typecode(&b, t);
    return sb_take(&b);
}

static int sig_error(char **err, const char *sig, const char *why) {
    if (err) {
        StrBuf b;
        sb_init(&b);
        sb_printf(&b, "invalid signature '%s': %s", sig, why);
        *err = sb_take(&b);
    }
    return -1;
}

int hj_parse_signature(const char *sig, char **ret, char ***args, int *nargs, char **err) {
    Arena arena;
    PtrVec argtys = {0};
    Type *rty = NULL;
    const char *why = NULL, *end = NULL;
    char **out = NULL;
    int rc = -1;

    *ret = NULL;
    *args = NULL;
    *nargs = 0;
    arena_init(&arena);
    TyCtx *tc = ty_ctx_new(&arena);
    const char *p = skip_ws(sig);
    if (*p != '(') {
        rty = ty_parse(tc, p, &end, &why);
        if (!rty) {
            sig_error(err, sig, why);
            goto done;
        }
        p = skip_ws(end);
        if (*p != '(') {
            sig_error(err, sig, "expected '(' and the argument types after the return type");
            goto done;
        }
    }
    p = skip_ws(p + 1);
    while (*p != ')') {
        Type *t = ty_parse(tc, p, &end, &why);
        if (!t) {
            sig_error(err, sig, why);
            goto done;
        }
        vec_push(&arena, &argtys, t);
        p = skip_ws(end);
        if (*p == ',')
            p = skip_ws(p + 1);
        else if (*p != ')') {
            sig_error(err, sig, "expected ',' or ')' after an argument type");
            goto done;
        }
    }
    p = skip_ws(p + 1);
    if (*p) {
        sig_error(err, sig, "unexpected text after the argument types");
        goto done;
    }
    if (arena.oom) {
        sig_error(err, sig, "out of memory");
        goto done;
    }
    out = calloc((size_t)argtys.len + 1, sizeof *out);
    if (!out)
        goto oom;
    for (int i = 0; i < argtys.len; i++)
        if (!(out[i] = typecode_of(VEC_AT(argtys, i))))
            goto oom;
    if (rty && !(*ret = typecode_of(rty)))
        goto oom;
    *args = out;
    *nargs = argtys.len;
    out = NULL;
    rc = 0;
    goto done;
oom:
    sig_error(err, sig, "out of memory");
done:
    if (out) {
        for (int i = 0; i < argtys.len; i++)
            free(out[i]);
        free(out);
    }
    arena_free(&arena);
    return rc;
}

char *hj_typecode_display(const char *typecode) {
    Arena arena;
    char *res = NULL;
    arena_init(&arena);
    TyCtx *tc = ty_ctx_new(&arena);
    const char *p = typecode;
    Type *t = ty_from_typecode(tc, &p);
    if (t && *p == '\0') {
        StrBuf b;
        sb_init(&b);
        ty_name(&b, t);
        res = sb_take(&b);
    }
    arena_free(&arena);
    return res;
}
