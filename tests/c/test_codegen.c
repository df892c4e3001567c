/* test_codegen.c - codegen_emit_object on hand-built modules: object bytes
 * come out (ELF/Mach-O magic), a broken module is a LOWERING diagnostic
 * with the offending IR, optimisation produces IR text, hj_ir_to_asm and
 * the target overrides from the environment. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

static int failures;
#define CHECK(c)                                                                             \
    do {                                                                                     \
        if (!(c)) {                                                                          \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c);            \
            failures++;                                                                      \
        }                                                                                    \
    } while (0)

/* i64 add(i64, i64) */
static LLVMModuleRef build_add(LLVMContextRef ctx) {
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext("t_add", ctx);
    LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
    LLVMTypeRef params[2] = {i64, i64};
    LLVMTypeRef fty = LLVMFunctionType(i64, params, 2, 0);
    LLVMValueRef f = LLVMAddFunction(m, "hj_add", fty);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "entry"));
    LLVMBuildRet(b, LLVMBuildAdd(b, LLVMGetParam(f, 0), LLVMGetParam(f, 1), "s"));
    LLVMDisposeBuilder(b);
    return m;
}

/* A block without a terminator: the verifier must refuse it. */
static LLVMModuleRef build_broken(LLVMContextRef ctx) {
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext("t_broken", ctx);
    LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
    LLVMValueRef f = LLVMAddFunction(m, "hj_broken", LLVMFunctionType(i64, &i64, 1, 0));
    LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "entry"));
    LLVMBuildAdd(b, LLVMGetParam(f, 0), LLVMGetParam(f, 0), "twice");
    LLVMDisposeBuilder(b);
    return m;
}

static void host_target(HjTarget *t) {
    memset(t, 0, sizeof *t);
    hj_target_host(t);
}

static void test_object(void) {
    HjTarget t;
    host_target(&t);
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m = build_add(ctx);
    Diag d;
    diag_init(&d);
    char *obj = NULL, *ir = NULL;
    size_t size = 0;
    int rc = codegen_compile(m, &t, &obj, &size, &ir, NULL, &d);
    if (rc != 0)
        fprintf(stderr, "codegen: %s\n", d.message ? d.message : "?");
    CHECK(rc == 0);
    CHECK(size > 16 && obj != NULL);
    if (obj && size > 4)
        CHECK(memcmp(obj, "\x7f" "ELF", 4) == 0 || (unsigned char)obj[0] == 0xcf);
    CHECK(ir && strstr(ir, "hj_add") && strstr(ir, "target triple"));
    /* O3 folds the function to a single add */
    CHECK(ir && strstr(ir, "add i64"));
    free(obj);
    free(ir);
    diag_free(&d);
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
    hj_target_free(&t);
}

static void test_all_levels(void) {
    for (int level = 0; level <= 3; level++) {
        HjTarget t;
        host_target(&t);
        t.opt_level = level;
        LLVMContextRef ctx = LLVMContextCreate();
        LLVMModuleRef m = build_add(ctx);
        Diag d;
        diag_init(&d);
        char *obj = NULL;
        size_t size = 0;
        CHECK(codegen_emit_object(m, &t, &obj, &size, &d) == 0);
        CHECK(size > 0);
        free(obj);
        diag_free(&d);
        LLVMDisposeModule(m);
        LLVMContextDispose(ctx);
        hj_target_free(&t);
    }
}

static void test_verify_error(void) {
    HjTarget t;
    host_target(&t);
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m = build_broken(ctx);
    Diag d;
    diag_init(&d);
    char *obj = NULL;
    size_t size = 0;
    CHECK(codegen_emit_object(m, &t, &obj, &size, &d) == -1);
    CHECK(obj == NULL && size == 0);
    CHECK(d.kind == HJ_DIAG_LOWERING);
    CHECK(d.message && strstr(d.message, "invalid LLVM IR"));
    /* the excerpt shows the offending function */
    CHECK(d.message && strstr(d.message, "hj_broken"));
    diag_free(&d);
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
    hj_target_free(&t);
}

static void test_bad_triple(void) {
    HjTarget t = {.triple = "nonsense-unknown-nowhere", .cpu = "", .features = "", .opt_level = 2};
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m = build_add(ctx);
    Diag d;
    diag_init(&d);
    char *obj = NULL;
    size_t size = 0;
    CHECK(codegen_emit_object(m, &t, &obj, &size, &d) == -1);
    CHECK(d.kind == HJ_DIAG_LLVM);
    CHECK(d.message && strstr(d.message, "nonsense"));
    diag_free(&d);
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
}

static void test_asm(void) {
    const char *ir = "define i64 @hj_twice(i64 %x) {\n"
                     "  %r = shl i64 %x, 1\n"
                     "  ret i64 %r\n"
                     "}\n";
    char *err = NULL;
    char *text = hj_ir_to_asm(ir, NULL, &err);
    CHECK(text != NULL);
    CHECK(text && strstr(text, "hj_twice"));
    free(text);
    CHECK(err == NULL);
    text = hj_ir_to_asm("this is not IR", NULL, &err);
    CHECK(text == NULL);
    CHECK(err && strstr(err, "parse"));
    free(err);
}

static void test_target_env(void) {
    HjTarget t;
    setenv("HPCJIT_OPT", "1", 1);
    setenv("NUMBA_CPU_NAME", "skylake", 1);
    setenv("HPCJIT_CPU_FEATURES", "+avx2", 1);
    host_target(&t);
    CHECK(t.opt_level == 1);
    CHECK(strcmp(t.cpu, "skylake") == 0);
    CHECK(strcmp(t.features, "+avx2") == 0);
    CHECK(t.triple && strlen(t.triple) > 0);
    hj_target_free(&t);

    setenv("HPCJIT_CPU_NAME", "host", 1);
    setenv("HPCJIT_OPT", "7", 1); /* out of range: the default */
    unsetenv("HPCJIT_CPU_FEATURES");
    host_target(&t);
    CHECK(t.opt_level == 3);
    CHECK(strcmp(t.cpu, "skylake") != 0 && strlen(t.cpu) > 0);
    hj_target_free(&t);

    setenv("NUMBA_OPT", "0", 1);
    unsetenv("HPCJIT_OPT");
    host_target(&t);
    CHECK(t.opt_level == 0);
    hj_target_free(&t);
    unsetenv("NUMBA_OPT");
    unsetenv("NUMBA_CPU_NAME");
    unsetenv("HPCJIT_CPU_NAME");
}

static void check_sig(const char *sig, const char *want_ret, int want_n, const char *const *want) {
    char *ret = NULL, **args = NULL, *err = NULL;
    int n = -1;
    int rc = hj_parse_signature(sig, &ret, &args, &n, &err);
    if (rc != 0)
        fprintf(stderr, "%s: %s\n", sig, err ? err : "?");
    CHECK(rc == 0);
    if (rc != 0) {
        free(err);
        return;
    }
    CHECK(want_ret ? (ret && strcmp(ret, want_ret) == 0) : ret == NULL);
    CHECK(n == want_n);
    for (int i = 0; i < n && i < want_n; i++) {
        if (strcmp(args[i], want[i]) != 0)
            fprintf(stderr, "%s: arg %d is %s, want %s\n", sig, i, args[i], want[i]);
        CHECK(strcmp(args[i], want[i]) == 0);
    }
    for (int i = 0; i < n; i++)
        free(args[i]);
    free(args);
    free(ret);
}

static void check_bad_sig(const char *sig) {
    char *ret = NULL, **args = NULL, *err = NULL;
    int n = -1;
    CHECK(hj_parse_signature(sig, &ret, &args, &n, &err) == -1);
    CHECK(err && strstr(err, "invalid signature"));
    CHECK(ret == NULL && args == NULL && n == 0);
    free(err);
}

static void test_signature(void) {
    check_sig("float64(float64[:], int64)", "d", 2, (const char *const[]){"ad1A", "l"});
    check_sig("(float64, int64)", NULL, 2, (const char *const[]){"d", "l"});
    check_sig(" void ( float32[:, ::1] , f8[::1, :] ) ", "n", 2,
              (const char *const[]){"af2C", "ad2F"});
    check_sig("int64()", "l", 0, NULL);
    check_sig("UniTuple(int64, 2)(Tuple(int32, float64), complex128,)", "(ll)", 2,
              (const char *const[]){"(id)", "D"});
    check_bad_sig("float64(float64");
    check_bad_sig("float64(nosuchtype)");
    check_bad_sig("float64");
    check_bad_sig("float64(int64) junk");
    check_bad_sig("");

    char *s = hj_typecode_display("ad2C");
    CHECK(s && strcmp(s, "array(float64, 2d, C)") == 0);
    free(s);
    s = hj_typecode_display("l");
    CHECK(s && strcmp(s, "int64") == 0);
    free(s);
    s = hj_typecode_display("zz");
    CHECK(s == NULL);
    s = hj_typecode_display("ll");
    CHECK(s == NULL);
}

int main(void) {
    const char *vars[] = {"HPCJIT_OPT", "NUMBA_OPT", "HPCJIT_CPU_NAME", "NUMBA_CPU_NAME",
                          "HPCJIT_CPU_FEATURES", "NUMBA_CPU_FEATURES"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
    test_object();
    test_all_levels();
    test_verify_error();
    test_bad_triple();
    test_asm();
    test_target_env();
    test_signature();
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("test_codegen: ok\n");
    return 0;
}
