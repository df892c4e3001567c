/* test_jit.c - hj_jit_create / hj_jit_load with objects from hand-built
 * modules: a plain add, libm's sin with a constant-pool constant, a call
 * into the runtime (rt_raise), a powi helper, the same names loaded twice,
 * an unresolved symbol, and loads from two threads at once. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "hpcjit/runtime.h"

static int failures;
#define CHECK(c)                                                                             \
    do {                                                                                     \
        if (!(c)) {                                                                          \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c);            \
            failures++;                                                                      \
        }                                                                                    \
    } while (0)

typedef enum { M_ADD, M_SIN, M_RAISE, M_POWI, M_MISSING } ModKind;

static LLVMValueRef declare(LLVMModuleRef m, const char *name, LLVMTypeRef fty) {
    LLVMValueRef f = LLVMGetNamedFunction(m, name);
    return f ? f : LLVMAddFunction(m, name, fty);
}

/* Each kind defines one exported function named `name`. */
static LLVMModuleRef build(LLVMContextRef ctx, ModKind kind, const char *name) {
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext("t_jit", ctx);
    LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx), i32 = LLVMInt32TypeInContext(ctx);
    LLVMTypeRef f64 = LLVMDoubleTypeInContext(ctx), ptr = LLVMPointerTypeInContext(ctx, 0);
    LLVMTypeRef vd = LLVMVoidTypeInContext(ctx);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
    LLVMValueRef f = NULL;
    switch (kind) {
    case M_ADD: {
        LLVMTypeRef ps[2] = {i64, i64};
        f = LLVMAddFunction(m, name, LLVMFunctionType(i64, ps, 2, 0));
        LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "entry"));
        LLVMBuildRet(b, LLVMBuildAdd(b, LLVMGetParam(f, 0), LLVMGetParam(f, 1), ""));
        break;
    }
    case M_SIN: { /* sin(x) * 2.0 + 0.5 */
        LLVMTypeRef sty = LLVMFunctionType(f64, &f64, 1, 0);
        LLVMValueRef s = declare(m, "sin", sty);
        f = LLVMAddFunction(m, name, sty);
        LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "entry"));
        LLVMValueRef x = LLVMGetParam(f, 0);
        LLVMValueRef v = LLVMBuildCall2(b, sty, s, &x, 1, "");
        v = LLVMBuildFMul(b, v, LLVMConstReal(f64, 2.0), "");
        v = LLVMBuildFAdd(b, v, LLVMConstReal(f64, 0.5), "");
        LLVMBuildRet(b, v);
        break;
    }
    case M_RAISE: { /* i32 f(): rt_raise("ValueError", "boom"); return -1 */
        LLVMTypeRef ps[2] = {ptr, ptr};
        LLVMTypeRef rty = LLVMFunctionType(vd, ps, 2, 0);
        LLVMValueRef r = declare(m, "rt_raise", rty);
        f = LLVMAddFunction(m, name, LLVMFunctionType(i32, NULL, 0, 0));
        LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "entry"));
        LLVMValueRef args[2] = {LLVMBuildGlobalStringPtr(b, "ValueError", "exc"),
                                LLVMBuildGlobalStringPtr(b, "boom", "msg")};
        LLVMBuildCall2(b, rty, r, args, 2, "");
        LLVMBuildRet(b, LLVMConstInt(i32, (unsigned long long)-1, 1));
        break;
    }
    case M_POWI: { /* llvm.powi(x, n): a call to __powidf2 when not folded */
        LLVMTypeRef ps[2] = {f64, i32};
        LLVMTypeRef pty = LLVMFunctionType(f64, ps, 2, 0);
        LLVMValueRef p = declare(m, "llvm.powi.f64.i32", pty);
        f = LLVMAddFunction(m, name, pty);
        LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "entry"));
        LLVMValueRef args[2] = {LLVMGetParam(f, 0), LLVMGetParam(f, 1)};
        LLVMBuildRet(b, LLVMBuildCall2(b, pty, p, args, 2, ""));
        break;
    }
    case M_MISSING: {
        LLVMTypeRef gty = LLVMFunctionType(i64, NULL, 0, 0);
        LLVMValueRef g = declare(m, "hj_no_such_function", gty);
        f = LLVMAddFunction(m, name, gty);
        LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "entry"));
        LLVMBuildRet(b, LLVMBuildCall2(b, gty, g, NULL, 0, ""));
        break;
    }
    }
    LLVMDisposeBuilder(b);
    return m;
}

/* Object bytes for one module (malloc'ed), or NULL. */
static char *compile(ModKind kind, const char *name, int opt, size_t *size) {
    HjTarget t;
    memset(&t, 0, sizeof t);
    hj_target_host(&t);
    t.opt_level = opt;
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m = build(ctx, kind, name);
    Diag d;
    diag_init(&d);
    char *obj = NULL;
    if (codegen_emit_object(m, &t, &obj, size, &d) != 0) {
        fprintf(stderr, "codegen: %s\n", d.message ? d.message : "?");
        obj = NULL;
    }
    diag_free(&d);
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
    hj_target_free(&t);
    return obj;
}

static void *load(HjJit *jit, ModKind kind, const char *name, int opt) {
    size_t size = 0;
    char *obj = compile(kind, name, opt, &size);
    CHECK(obj != NULL);
    if (!obj)
        return NULL;
    char *err = NULL;
    void *p = hj_jit_load(jit, obj, size, name, &err);
    if (!p)
        fprintf(stderr, "load %s: %s\n", name, err ? err : "?");
    free(err);
    free(obj);
    return p;
}

typedef int64_t (*AddFn)(int64_t, int64_t);
typedef double (*SinFn)(double);
typedef int32_t (*RaiseFn)(void);
typedef double (*PowiFn)(double, int32_t);

static HjJit *make_jit(void) {
    const RtSymbol *rs = rt_symbols();
    int n = 0;
    while (rs[n].name)
        n++;
    HjSymbol *syms = calloc((size_t)n + 1, sizeof *syms);
    for (int i = 0; i < n; i++) {
        syms[i].name = rs[i].name;
        syms[i].address = rs[i].address;
    }
    char *err = NULL;
    HjJit *jit = hj_jit_create(syms, n, &err);
    if (!jit)
        fprintf(stderr, "hj_jit_create: %s\n", err ? err : "?");
    free(err);
    free(syms);
    return jit;
}

typedef struct ThreadArg {
    HjJit *jit;
    int id;
    int ok;
} ThreadArg;

static void *thread_main(void *p) {
    ThreadArg *a = p;
    a->ok = 1;
    for (int i = 0; i < 5; i++) {
        AddFn add = (AddFn)(uintptr_t)load(a->jit, M_ADD, "hj_add", 2);
        if (!add || add(a->id, i) != a->id + i)
            a->ok = 0;
    }
    return NULL;
}

/* ---- the whole pipeline: hj_compile + hj_jit_load ---- */

static HjFunction func(const char *name, const char *src, const HjEnvEntry *env, int nenv) {
    HjFunction f;
    memset(&f, 0, sizeof f);
    f.name = f.qualname = name;
    f.filename = "pipeline.py";
    f.source = src;
    f.first_line = 10;
    f.env = env;
    f.nenv = nenv;
    return f;
}

/* Compile funcs[entry] for argtypes; load it when it compiles. */
static HjEntryFn compile_fn(HjJit *jit, const HjFunction *fs, int n, const char *const *argtypes,
                            int nargs, HjResult *res) {
    HjRequest req;
    memset(&req, 0, sizeof req);
    req.funcs = fs;
    req.nfuncs = n;
    req.entry = 0;
    req.argtypes = argtypes;
    req.nargs = nargs;
    req.want_llvm_ir = 1;
    if (hj_compile(&req, res) != 0)
        return NULL;
    char *err = NULL;
    void *p = hj_jit_load(jit, res->object, res->object_size, res->entry_symbol, &err);
    if (!p)
        fprintf(stderr, "load: %s\n", err ? err : "?");
    free(err);
    return (HjEntryFn)(uintptr_t)p;
}

static void test_pipeline(HjJit *jit) {
    HjResult res;
    const char *ll[] = {"l", "l"}, *dd[] = {"d", "d"};

    HjFunction add = func("add", "def add(a, b):\n    return a + b\n", NULL, 0);
    HjEntryFn f = compile_fn(jit, &add, 1, ll, 2, &res);
    CHECK(f != NULL);
    if (!f)
        fprintf(stderr, "add: %s\n", res.diag_message ? res.diag_message : "?");
    CHECK(res.rettype && strcmp(res.rettype, "l") == 0);
    CHECK(res.signature && strcmp(res.signature, "(int64, int64) -> int64") == 0);
    CHECK(res.llvm_ir && strstr(res.llvm_ir, res.entry_symbol ? res.entry_symbol : "?"));
    if (f) {
        int64_t a = 40, b = 2, r = 0;
        void *args[2] = {&a, &b};
        CHECK(f(&r, args) == 0 && r == 42);
    }
    hj_result_free(&res);

    HjEnvEntry env[1] = {{.name = "math", .kind = HJ_ENV_MODULE, .qualname = "math"}};
    HjFunction hyp =
        func("hyp", "def hyp(x, y):\n    return math.sqrt(x * x + y * y)\n", env, 1);
    f = compile_fn(jit, &hyp, 1, dd, 2, &res);
    CHECK(f != NULL);
    if (!f)
        fprintf(stderr, "hyp: %s\n", res.diag_message ? res.diag_message : "?");
    if (f) {
        double x = 3.0, y = 4.0, r = 0;
        void *args[2] = {&x, &y};
        CHECK(f(&r, args) == 0 && r == 5.0);
    }
    hj_result_free(&res);

    /* diagnostics carry the user's line numbers */
    HjFunction bad = func("bad", "def bad(a):\n    return a +\n", NULL, 0);
    CHECK(compile_fn(jit, &bad, 1, ll, 1, &res) == NULL);
    CHECK(res.diag_kind == HJ_DIAG_SYNTAX);
    CHECK(res.diag_line == 11);
    CHECK(res.diag_filename && strcmp(res.diag_filename, "pipeline.py") == 0);
    CHECK(res.diag_message && strstr(res.diag_message, "pipeline.py:11:"));
    hj_result_free(&res);

    HjFunction unk = func("unk", "def unk(a):\n    return a + nowhere\n", NULL, 0);
    CHECK(compile_fn(jit, &unk, 1, ll, 1, &res) == NULL);
    CHECK(res.diag_kind == HJ_DIAG_NAME || res.diag_kind == HJ_DIAG_TYPING);
    CHECK(res.diag_message && strstr(res.diag_message, "nowhere"));
    hj_result_free(&res);

    const char *bad_tc[] = {"zz"};
    CHECK(compile_fn(jit, &add, 1, bad_tc, 1, &res) == NULL);
    CHECK(res.diag_kind == HJ_DIAG_SIGNATURE);
    hj_result_free(&res);

    /* 3000 nested parentheses: a diagnostic, not a stack overflow */
    size_t depth = 3000, len = 0;
    char *deep = malloc(2 * depth + 64);
    len += (size_t)sprintf(deep, "def deep(a):\n    return ");
    for (size_t i = 0; i < depth; i++)
        deep[len++] = '(';
    deep[len++] = 'a';
    for (size_t i = 0; i < depth; i++)
        deep[len++] = ')';
    strcpy(deep + len, "\n");
    HjFunction dp = func("deep", deep, NULL, 0);
    f = compile_fn(jit, &dp, 1, ll, 1, &res);
    CHECK(f != NULL || res.diag_kind != HJ_DIAG_NONE);
    hj_result_free(&res);
    free(deep);
}

int main(void) {
    HjJit *jit = make_jit();
    CHECK(jit != NULL);
    if (!jit)
        return 1;

    AddFn add = (AddFn)(uintptr_t)load(jit, M_ADD, "hj_add", 3);
    CHECK(add && add(40, 2) == 42);
    /* the same name again in its own namespace */
    AddFn add2 = (AddFn)(uintptr_t)load(jit, M_ADD, "hj_add", 0);
    CHECK(add2 && add2 != add && add2(-5, 3) == -2);

    SinFn s = (SinFn)(uintptr_t)load(jit, M_SIN, "hj_sin", 3);
    CHECK(s && fabs(s(1.0) - (sin(1.0) * 2.0 + 0.5)) < 1e-15);

    RaiseFn r = (RaiseFn)(uintptr_t)load(jit, M_RAISE, "hj_raise", 3);
    CHECK(r != NULL);
    if (r) {
        rt_exc_clear();
        CHECK(r() == -1);
        const char *type = NULL, *msg = NULL;
        CHECK(rt_exc_fetch(&type, &msg) == 1);
        CHECK(type && strcmp(type, "ValueError") == 0);
        CHECK(msg && strcmp(msg, "boom") == 0);
    }

    PowiFn pw = (PowiFn)(uintptr_t)load(jit, M_POWI, "hj_powi", 0);
    CHECK(pw && pw(2.0, 10) == 1024.0 && pw(2.0, -1) == 0.5);

    /* an unresolved symbol is an error message, not a crash */
    size_t size = 0;
    char *obj = compile(M_MISSING, "hj_missing", 2, &size);
    CHECK(obj != NULL);
    char *err = NULL;
    void *p = hj_jit_load(jit, obj, size, "hj_missing", &err);
    CHECK(p == NULL);
    CHECK(err && strstr(err, "hj_no_such_function"));
    free(err);
    free(obj);
    /* a symbol the object does not define */
    obj = compile(M_ADD, "hj_add", 2, &size);
    err = NULL;
    p = hj_jit_load(jit, obj, size, "hj_other", &err);
    CHECK(p == NULL && err != NULL);
    free(err);
    free(obj);
    /* the JIT still works after failures */
    add = (AddFn)(uintptr_t)load(jit, M_ADD, "hj_add", 2);
    CHECK(add && add(1, 1) == 2);

    pthread_t th[2];
    ThreadArg ta[2] = {{jit, 100, 0}, {jit, 200, 0}};
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, thread_main, &ta[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    CHECK(ta[0].ok && ta[1].ok);

    test_pipeline(jit);

    hj_jit_destroy(jit);
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("test_jit: ok\n");
    return 0;
}
