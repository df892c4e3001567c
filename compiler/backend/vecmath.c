/* vecmath.c - vector forms of libm calls for the loop vectorizer: glibc's
 * libmvec (sin, exp, log, pow, tanh, atan2, erf...: 2, 4, 8 or 16 lanes).
 *
 * Without them a loop that calls `sin` or `np.exp` runs one call per
 * element, as under Numba without Intel's SVML.  Each call of a libm
 * function (or of the llvm.sin/exp/log/pow intrinsics) gets the call-site
 * attribute "vector-function-abi-variant" that names libmvec's variants
 * for this target's ISA, and the variants are declared in the module and
 * kept by llvm.compiler.used until the vectorizer has run; it then picks
 * a variant by cost, as it does for the veclib mappings clang's -fveclib
 * gives.  Afterwards the declarations nothing calls and the
 * llvm.compiler.used list are removed again (vecmath_cleanup), so the
 * object references only what it calls.
 *
 * Accuracy: libmvec's functions are within 4 ulp of the correctly rounded
 * result (glibc manual, "Known Maximum Errors"), where the scalar libm is
 * within 1 ulp; special values (NaN, infinities, huge arguments) go through
 * the scalar function.  HPCJIT_DISABLE_VECTOR_MATH=1 (or Numba's
 * NUMBA_DISABLE_INTEL_SVML=1) keeps every call scalar. */
#include "codegen.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

/* libmvec's functions (double forms; the float forms add 'f') */
static const struct {
    const char *name;
    unsigned nargs;
} mvec_fns[] = {
    {"sin", 1},   {"cos", 1},   {"tan", 1},   {"asin", 1},  {"acos", 1},  {"atan", 1},
    {"atan2", 2}, {"sinh", 1},  {"cosh", 1},  {"tanh", 1},  {"asinh", 1}, {"acosh", 1},
    {"atanh", 1}, {"exp", 1},   {"exp2", 1},  {"exp10", 1}, {"expm1", 1}, {"log", 1},
    {"log2", 1},  {"log10", 1}, {"log1p", 1}, {"cbrt", 1},  {"erf", 1},   {"erfc", 1},
    {"hypot", 2}, {"pow", 2},
};
enum { NMVEC = sizeof mvec_fns / sizeof mvec_fns[0] };

static pthread_once_t mvec_once = PTHREAD_ONCE_INIT;
static bool mvec_present;

static void probe_libmvec(void) {
    /* the loader resolves the variants from it (runtime/objload.c) */
    mvec_present = dlopen("libmvec.so.1", RTLD_LAZY | RTLD_GLOBAL) != NULL;
}

void vecmath_load_library(void) { pthread_once(&mvec_once, probe_libmvec); }

static bool env_on(const char *name) {
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

bool vecmath_enabled(const HjTarget *t) {
    if (env_on("HPCJIT_DISABLE_VECTOR_MATH") ||
        (!getenv("HPCJIT_DISABLE_VECTOR_MATH") && env_on("NUMBA_DISABLE_INTEL_SVML")))
        return false;
    if (!t->triple || strncmp(t->triple, "x86_64", 6) != 0 || !strstr(t->triple, "linux"))
        return false;
    vecmath_load_library();
    return mvec_present;
}

/* Does the feature string hold "+feat" (a whole entry)? */
static bool has_feature(const char *features, const char *feat) {
    size_t n = strlen(feat);
    for (const char *p = features ? strstr(features, feat) : NULL; p; p = strstr(p + 1, feat))
        if (p > features && p[-1] == '+' && (p[n] == ',' || p[n] == '\0'))
            return true;
    return false;
}

/* The libmvec function of callee `name` with `nargs` operands of type
 * `ft` (double or float): its index in mvec_fns, or -1. */
static int mvec_index(const char *name, size_t len, bool f32, unsigned nargs) {
    char base[32];
    if (len > 5 && memcmp(name, "llvm.", 5) == 0) {
        /* llvm.sin.f64 / llvm.sin.f32 */
        if (len < 9 || memcmp(name + len - 4, f32 ? ".f32" : ".f64", 4) != 0 || len - 9 >= sizeof base)
            return -1;
        memcpy(base, name + 5, len - 9);
        base[len - 9] = '\0';
    } else {
        if (f32 && (len < 2 || name[len - 1] != 'f'))
            return -1;
        size_t bl = f32 ? len - 1 : len;
        if (bl >= sizeof base)
            return -1;
        memcpy(base, name, bl);
        base[bl] = '\0';
    }
    for (int i = 0; i < NMVEC; i++)
        if (strcmp(mvec_fns[i].name, base) == 0 && mvec_fns[i].nargs == nargs)
            return i;
    return -1;
}

/* Is `fnty` (ret)(ret, ...) with `ret` double or float? */
static bool float_signature(LLVMTypeRef fnty, bool *f32, unsigned *nargs) {
    LLVMTypeRef ret = LLVMGetReturnType(fnty);
    LLVMTypeKind k = LLVMGetTypeKind(ret);
    if (k != LLVMDoubleTypeKind && k != LLVMFloatTypeKind)
        return false;
    unsigned n = LLVMCountParamTypes(fnty);
    if (n < 1 || n > 2 || LLVMIsFunctionVarArg(fnty))
        return false;
    LLVMTypeRef ps[2];
    LLVMGetParamTypes(fnty, ps);
    for (unsigned i = 0; i < n; i++)
        if (ps[i] != ret)
            return false;
    *f32 = k == LLVMFloatTypeKind;
    *nargs = n;
    return true;
}

typedef struct {
    char isa;
    unsigned lanes64; /* lanes of a double variant; float has twice as many */
} Isa;

/* Declare the vector variant `vname` (lanes x elt) -> lanes x elt. */
static LLVMValueRef declare_variant(LLVMModuleRef m, const char *vname, LLVMTypeRef elt, unsigned lanes,
                                    unsigned nargs) {
    LLVMValueRef f = LLVMGetNamedFunction(m, vname);
    if (f)
        return f;
    LLVMContextRef ctx = LLVMGetModuleContext(m);
    LLVMTypeRef vt = LLVMVectorType(elt, lanes), ps[2] = {vt, vt};
    f = LLVMAddFunction(m, vname, LLVMFunctionType(vt, ps, nargs, 0));
    static const char *const attrs[] = {"memory", "nounwind", "willreturn"};
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
        LLVMAddAttributeAtIndex(
            f, LLVMAttributeFunctionIndex,
            LLVMCreateEnumAttribute(ctx, LLVMGetEnumAttributeKindForName(attrs[i], strlen(attrs[i])), 0));
    return f;
}

int vecmath_attach(LLVMModuleRef m, const HjTarget *t) {
    if (!vecmath_enabled(t) || LLVMGetNamedGlobal(m, "llvm.compiler.used"))
        return 0;
    /* best first: the vectorizer takes the first variant of a width */
    Isa isas[3];
    int nisa = 0;
    if (has_feature(t->features, "avx512f"))
        isas[nisa++] = (Isa){'e', 8};
    if (has_feature(t->features, "avx2"))
        isas[nisa++] = (Isa){'d', 4};
    else if (has_feature(t->features, "avx"))
        isas[nisa++] = (Isa){'c', 4};
    isas[nisa++] = (Isa){'b', 2};
    LLVMContextRef ctx = LLVMGetModuleContext(m);
    LLVMValueRef used[NMVEC * 2 * 3];
    int nused = 0;
    bool seen[NMVEC][2] = {{false}};
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
            for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
                if (LLVMGetInstructionOpcode(in) != LLVMCall)
                    continue;
                LLVMValueRef callee = LLVMGetCalledValue(in);
                if (!callee || !LLVMIsAFunction(callee))
                    continue;
                bool f32 = false;
                unsigned nargs = 0;
                if (!float_signature(LLVMGetCalledFunctionType(in), &f32, &nargs))
                    continue;
                size_t len = 0;
                const char *name = LLVMGetValueName2(callee, &len);
                int ix = mvec_index(name, len, f32, nargs);
                if (ix < 0)
                    continue;
                LLVMTypeRef elt = f32 ? LLVMFloatTypeInContext(ctx) : LLVMDoubleTypeInContext(ctx);
                char list[1024], vname[48];
                size_t at = 0;
                for (int i = 0; i < nisa; i++) {
                    unsigned lanes = isas[i].lanes64 * (f32 ? 2 : 1);
                    snprintf(vname, sizeof vname, "_ZGV%cN%u%s_%s%s", isas[i].isa, lanes,
                             nargs == 2 ? "vv" : "v", mvec_fns[ix].name, f32 ? "f" : "");
                    LLVMValueRef vf = declare_variant(m, vname, elt, lanes, nargs);
                    if (!seen[ix][f32] && nused < (int)(sizeof used / sizeof used[0]))
                        used[nused++] = vf;
                    int w = snprintf(list + at, sizeof list - at, "%s_ZGV_LLVM_N%u%s_%.*s(%s)",
                                     at ? "," : "", lanes, nargs == 2 ? "vv" : "v", (int)len, name, vname);
                    if (w < 0 || (size_t)w >= sizeof list - at)
                        break;
                    at += (size_t)w;
                }
                seen[ix][f32] = true;
                LLVMAttributeRef a = LLVMCreateStringAttribute(ctx, "vector-function-abi-variant", 27,
                                                               list, (unsigned)at);
                LLVMAddCallSiteAttribute(in, LLVMAttributeFunctionIndex, a);
            }
        }
    }
    if (!nused)
        return 0;
    /* @llvm.compiler.used = appending global [n x ptr] [...], section "llvm.metadata" */
    LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
    LLVMValueRef init = LLVMConstArray2(ptr, used, (uint64_t)nused);
    LLVMValueRef g = LLVMAddGlobal(m, LLVMTypeOf(init), "llvm.compiler.used");
    LLVMSetInitializer(g, init);
    LLVMSetLinkage(g, LLVMAppendingLinkage);
    LLVMSetSection(g, "llvm.metadata");
    return nused;
}

/* Is every use of `v` by a constant (the list llvm.compiler.used held,
 * which outlives its global as a uniqued constant)? */
static bool only_constant_users(LLVMValueRef v) {
    for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u))
        if (!LLVMIsAConstant(LLVMGetUser(u)))
            return false;
    return true;
}

void vecmath_cleanup(LLVMModuleRef m) {
    LLVMValueRef g = LLVMGetNamedGlobal(m, "llvm.compiler.used");
    if (!g)
        return;
    LLVMDeleteGlobal(g);
    LLVMValueRef next = NULL;
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = next) {
        next = LLVMGetNextFunction(fn);
        size_t len = 0;
        const char *name = LLVMGetValueName2(fn, &len);
        if (len <= 4 || memcmp(name, "_ZGV", 4) != 0 || !LLVMIsDeclaration(fn) || !only_constant_users(fn))
            continue;
        /* the dead list's reference goes to poison, then nothing uses fn */
        LLVMReplaceAllUsesWith(fn, LLVMGetPoison(LLVMTypeOf(fn)));
        LLVMDeleteFunction(fn);
    }
}
