/* ptx.c - the NVPTX target of hpcjit.cuda: a module lowered in device
 * mode -> libdevice linked in -> optimised for sm_XY -> PTX text.
 *
 * LLVM 19's NVPTX back end knows sm_20 .. sm_90a and PTX ISA 3.2 .. 8.5.
 * Each architecture gets the lowest PTX ISA that has it (and the sync
 * warp intrinsics, PTX 6.0), so that the PTX loads on the oldest driver
 * that can run the device; a compute capability newer than sm_90 gets
 * sm_90 PTX, which the driver compiles for the newer device.
 *
 * libdevice (libdevice.10.bc) is found through HjCudaOptions.libdevice,
 * HPCJIT_LIBDEVICE, CUDA_HOME, CUDA_PATH, then /usr/local/cuda; its bytes
 * are read once per process. */
#include "codegen.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>

#define NVPTX_TRIPLE "nvptx64-nvidia-cuda"
#define NVPTX_MAX_SM 90 /* LLVM 19 */

static pthread_once_t nvptx_once = PTHREAD_ONCE_INIT;

static void init_nvptx_once(void) {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
}

/* The lowest PTX ISA version (x10) that knows sm and the .sync warp
 * instructions (PTX ISA release notes, "PTX ISA versions"). */
static int ptx_isa_for(int sm) {
    if (sm >= 90) return 78;
    if (sm >= 89) return 78;
    if (sm >= 87) return 74;
    if (sm >= 86) return 71;
    if (sm >= 80) return 70;
    if (sm >= 75) return 63;
    if (sm >= 72) return 61;
    return 60;
}

/* ---- libdevice ------------------------------------------------------------------ */

static pthread_mutex_t libdevice_lock = PTHREAD_MUTEX_INITIALIZER;
static char *libdevice_bytes; /* the file, read once (never freed: process lifetime) */
static size_t libdevice_size;
static char *libdevice_path;

static char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n > 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n))) {
            if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
                free(buf);
                buf = NULL;
            } else {
                *size = (size_t)n;
            }
        }
    }
    fclose(f);
    return buf;
}

/* Bytes of libdevice.10.bc, or NULL with a diagnostic naming where it looked. */
static const char *libdevice(const HjCudaOptions *o, size_t *size, Diag *d) {
    pthread_mutex_lock(&libdevice_lock);
    if (!libdevice_bytes) {
        char cand[5][1024];
        int nc = 0;
        const char *v;
        if (o->libdevice && *o->libdevice)
            snprintf(cand[nc++], sizeof cand[0], "%s", o->libdevice);
        if ((v = getenv("HPCJIT_LIBDEVICE")) && *v)
            snprintf(cand[nc++], sizeof cand[0], "%s", v);
        if ((v = getenv("CUDA_HOME")) && *v)
            snprintf(cand[nc++], sizeof cand[0], "%s/nvvm/libdevice/libdevice.10.bc", v);
        if ((v = getenv("CUDA_PATH")) && *v)
            snprintf(cand[nc++], sizeof cand[0], "%s/nvvm/libdevice/libdevice.10.bc", v);
        snprintf(cand[nc++], sizeof cand[0], "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc");
        for (int i = 0; i < nc && !libdevice_bytes; i++) {
            libdevice_bytes = read_file(cand[i], &libdevice_size);
            if (libdevice_bytes)
                libdevice_path = strdup(cand[i]);
        }
        if (!libdevice_bytes) {
            StrBuf b;
            sb_init(&b);
            sb_puts(&b, "libdevice.10.bc not found (math functions in CUDA kernels need it; set "
                        "HPCJIT_LIBDEVICE or CUDA_HOME); looked at:");
            for (int i = 0; i < nc; i++)
                sb_printf(&b, " %s", cand[i]);
            char *msg = sb_take(&b);
            diag_error_noloc(d, HJ_DIAG_UNSUPPORTED, "%s", msg ? msg : "libdevice.10.bc not found");
            free(msg);
        }
    }
    const char *bytes = libdevice_bytes;
    *size = libdevice_size;
    pthread_mutex_unlock(&libdevice_lock);
    return bytes;
}

static bool calls_libdevice(LLVMModuleRef m) {
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
        size_t n = 0;
        const char *name = LLVMGetValueName2(f, &n);
        if (LLVMIsDeclaration(f) && n > 5 && strncmp(name, "__nv_", 5) == 0)
            return true;
    }
    return false;
}

/* Link libdevice into m (LLVMLinkModules2 destroys the source module). */
static int link_libdevice(LLVMModuleRef m, const HjCudaOptions *o, Diag *d) {
    size_t size = 0;
    const char *bytes = libdevice(o, &size, d);
    if (!bytes)
        return -1;
    LLVMContextRef ctx = LLVMGetModuleContext(m);
    LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange(bytes, size, "libdevice.10.bc", 0);
    LLVMModuleRef lib = NULL;
    int bad = LLVMParseBitcodeInContext2(ctx, buf, &lib);
    LLVMDisposeMemoryBuffer(buf);
    if (bad || !lib)
        return diag_error_noloc(d, HJ_DIAG_LLVM, "cannot read libdevice (%s)",
                                libdevice_path ? libdevice_path : "?");
    /* libdevice says nvptx64-nvidia-gpulibs with an older layout: take ours */
    LLVMSetTarget(lib, LLVMGetTarget(m));
    LLVMSetDataLayout(lib, LLVMGetDataLayoutStr(m));
    if (LLVMLinkModules2(m, lib)) /* lib is consumed */
        return diag_error_noloc(d, HJ_DIAG_LLVM, "cannot link libdevice into the kernel's module");
    return 0;
}

/* The kernels' complex functions (lib/cuda/devlib/cmath.c), bitcode made
 * at build time by clang and embedded (cuda_cmath_bc.c, generated): linked
 * before libdevice, whose __nv_* functions they call. */
extern const unsigned char hj_cuda_cmath_bc[];
extern const unsigned long hj_cuda_cmath_bc_size;

static int link_cmath(LLVMModuleRef m, Diag *d) {
    if (hj_cuda_cmath_bc_size == 0)
        return diag_error_noloc(d, HJ_DIAG_UNSUPPORTED,
                                "complex functions (cmath, np.exp of complex...) in CUDA kernels need the "
                                "device library that clang builds with hpcjit; this build had no clang");
    LLVMContextRef ctx = LLVMGetModuleContext(m);
    LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange((const char *)hj_cuda_cmath_bc,
                                                                    (size_t)hj_cuda_cmath_bc_size, "cmath.bc", 0);
    LLVMModuleRef lib = NULL;
    int bad = LLVMParseBitcodeInContext2(ctx, buf, &lib);
    LLVMDisposeMemoryBuffer(buf);
    if (bad || !lib)
        return diag_error_noloc(d, HJ_DIAG_LLVM, "cannot read the CUDA complex-function library");
    LLVMSetTarget(lib, LLVMGetTarget(m));
    LLVMSetDataLayout(lib, LLVMGetDataLayoutStr(m));
    if (LLVMLinkModules2(m, lib)) /* lib is consumed */
        return diag_error_noloc(d, HJ_DIAG_LLVM, "cannot link the CUDA complex-function library");
    return 0;
}

/* Only the entry and __hpcjit_error stay visible: the rest (libdevice
 * included) is internal, so that the optimiser drops what is not used. */
static void internalize(LLVMModuleRef m, const char *keep) {
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
        size_t n = 0;
        const char *name = LLVMGetValueName2(f, &n);
        if (!LLVMIsDeclaration(f) && strcmp(name, keep) != 0)
            LLVMSetLinkage(f, LLVMInternalLinkage);
    }
    for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
        size_t n = 0;
        const char *name = LLVMGetValueName2(g, &n);
        if (!LLVMIsDeclaration(g) && strcmp(name, "__hpcjit_error") != 0)
            LLVMSetLinkage(g, LLVMInternalLinkage);
    }
}

static void set_fn_attr(LLVMModuleRef m, const char *key, const char *value) {
    LLVMContextRef ctx = LLVMGetModuleContext(m);
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
        if (!LLVMIsDeclaration(f))
            LLVMAddAttributeAtIndex(f, (unsigned)LLVMAttributeFunctionIndex,
                                    LLVMCreateStringAttribute(ctx, key, (unsigned)strlen(key), value,
                                                              (unsigned)strlen(value)));
}

int codegen_compile_ptx(LLVMModuleRef m, const HjCudaOptions *o, int opt_level, const char *keep, char **ptx,
                        size_t *size, char **ir_text, Diag *d) {
    int rc = -1;
    LLVMTargetMachineRef tm = NULL;
    LLVMTargetRef target = NULL;
    char *err = NULL;
    *ptx = NULL;
    *size = 0;
    if (ir_text)
        *ir_text = NULL;
    pthread_once(&nvptx_once, init_nvptx_once);
    codegen_init_llvm(); /* command-line options are parsed once for all targets */

    int sm = o->cc_major * 10 + o->cc_minor;
    if (o->cc_major < 5 || o->cc_minor < 0 || o->cc_minor > 9)
        return diag_error_noloc(d, HJ_DIAG_UNSUPPORTED,
                                "compute capability %d.%d is not supported (hpcjit.cuda needs 5.0 or newer)",
                                o->cc_major, o->cc_minor);
    if (sm > NVPTX_MAX_SM)
        sm = NVPTX_MAX_SM; /* forward-compatible PTX, compiled by the driver */
    char cpu[16], features[16];
    snprintf(cpu, sizeof cpu, "sm_%d", sm);
    snprintf(features, sizeof features, "+ptx%d", ptx_isa_for(sm));

    if (codegen_verify(m, d) < 0)
        goto done;
    if (LLVMGetTargetFromTriple(NVPTX_TRIPLE, &target, &err)) {
        diag_error_noloc(d, HJ_DIAG_LLVM, "no NVPTX target in this LLVM: %s", err ? err : "");
        LLVMDisposeMessage(err);
        goto done;
    }
    int level = opt_level < 0 ? 0 : opt_level > 3 ? 3 : opt_level;
    tm = LLVMCreateTargetMachine(target, NVPTX_TRIPLE, cpu, features,
                                 level == 0 ? LLVMCodeGenLevelNone : level == 1 ? LLVMCodeGenLevelLess
                                 : level == 2 ? LLVMCodeGenLevelDefault : LLVMCodeGenLevelAggressive,
                                 LLVMRelocDefault, LLVMCodeModelDefault);
    if (!tm) {
        diag_error_noloc(d, HJ_DIAG_LLVM, "cannot create an NVPTX target machine for %s", cpu);
        goto done;
    }
    LLVMSetTarget(m, NVPTX_TRIPLE);
    LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
    LLVMSetModuleDataLayout(m, td);
    LLVMDisposeTargetData(td);
    /* libdevice's __nvvm_reflect("__CUDA_FTZ"): flush denormals with fastmath */
    LLVMContextRef ctx = LLVMGetModuleContext(m);
    LLVMAddModuleFlag(m, LLVMModuleFlagBehaviorOverride, "nvvm-reflect-ftz", 16,
                      LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(ctx), o->fastmath ? 1 : 0, 0)));
    if (o->fastmath) { /* div.approx, sqrt.approx, ftz (NVPTX reads these per function) */
        set_fn_attr(m, "unsafe-fp-math", "true");
        set_fn_attr(m, "denormal-fp-math-f32", "preserve-sign,preserve-sign");
    }
    if (LLVMGetNamedFunction(m, "__hj_cmath") && link_cmath(m, d) < 0)
        goto done;
    if (calls_libdevice(m) && link_libdevice(m, o, d) < 0)
        goto done;
    internalize(m, keep);

    /* globaldce first: the unused part of libdevice (internal now) goes
     * before the optimiser would spend time on it */
    char pipeline[48];
    snprintf(pipeline, sizeof pipeline, "globaldce,default<O%d>", level);
    LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
    LLVMPassBuilderOptionsSetLoopUnrolling(opts, level >= 2);
    LLVMErrorRef perr = LLVMRunPasses(m, pipeline, tm, opts);
    LLVMDisposePassBuilderOptions(opts);
    if (perr) {
        codegen_llvm_error(d, perr, "LLVMRunPasses (NVPTX)");
        goto done;
    }
    if (ir_text) {
        char *s = LLVMPrintModuleToString(m);
        *ir_text = strdup(s);
        LLVMDisposeMessage(s);
        if (!*ir_text) {
            diag_error_noloc(d, HJ_DIAG_MEMORY, "out of memory printing LLVM IR");
            goto done;
        }
    }
    LLVMMemoryBufferRef buf = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMAssemblyFile, &err, &buf)) {
        diag_error_noloc(d, HJ_DIAG_LLVM, "cannot emit PTX: %s", err ? err : "");
        LLVMDisposeMessage(err);
        goto done;
    }
    size_t n = LLVMGetBufferSize(buf);
    *ptx = malloc(n + 1);
    if (!*ptx) {
        LLVMDisposeMemoryBuffer(buf);
        diag_error_noloc(d, HJ_DIAG_MEMORY, "out of memory copying PTX");
        goto done;
    }
    memcpy(*ptx, LLVMGetBufferStart(buf), n);
    (*ptx)[n] = '\0';
    *size = n;
    LLVMDisposeMemoryBuffer(buf);
    rc = 0;
done:
    if (rc < 0 && ir_text) {
        free(*ir_text);
        *ir_text = NULL;
    }
    if (tm)
        LLVMDisposeTargetMachine(tm);
    return rc;
}
