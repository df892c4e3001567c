/* jit.c - loading object bytes into this process with ORC LLJIT.
 *
 * Each load gets a fresh JITDylib, so two loads may define the same names
 * (every compilation has its own internal specs and entry).  The C API has
 * no way to set a JITDylib's link order, so every fresh JITDylib gets its
 * own copy of the absolute runtime symbols and its own generator for the
 * process (libc, libm); both are cheap.  One mutex serialises loads. */
#include "codegen.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include <llvm-c/LLJIT.h>
#include <llvm-c/Object.h>
#include <llvm-c/Orc.h>

/* Helpers from libgcc / compiler-rt that LLVM may emit calls to (powi,
 * 128-bit division, complex multiply/divide).  They are linked statically
 * into this library, so the process generator may not see them. */
extern double __powidf2(double, int);
extern float __powisf2(float, int);
extern __int128 __divti3(__int128, __int128);
extern __int128 __modti3(__int128, __int128);
extern unsigned __int128 __udivti3(unsigned __int128, unsigned __int128);
extern unsigned __int128 __umodti3(unsigned __int128, unsigned __int128);
extern _Complex double __muldc3(double, double, double, double);
extern _Complex double __divdc3(double, double, double, double);
extern _Complex float __mulsc3(float, float, float, float);
extern _Complex float __divsc3(float, float, float, float);

#define HELPER(fn) { #fn, (void *)(uintptr_t)&fn }
static const HjSymbol compiler_helpers[] = {
    HELPER(__powidf2), HELPER(__powisf2), HELPER(__divti3),  HELPER(__modti3),
    HELPER(__udivti3), HELPER(__umodti3), HELPER(__muldc3), HELPER(__divdc3),
    HELPER(__mulsc3),  HELPER(__divsc3),
};
#define NHELPERS ((int)(sizeof compiler_helpers / sizeof compiler_helpers[0]))

struct HjJit {
    pthread_mutex_t lock;
    LLVMOrcLLJITRef lljit;
    HjSymbol *syms; /* runtime symbols then compiler helpers (names owned) */
    int nsyms;
    unsigned long nloads; /* for unique JITDylib names */
    char *session_error;  /* last error ORC reported (e.g. missing symbols) */
    bool perf_map;        /* HPCJIT_ENABLE_PROFILING: name loaded code for perf */
};

static bool env_on(const char *name) {
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

/* HPCJIT_ENABLE_PROFILING=1 (NUMBA_ENABLE_PROFILING as in Numba): append
 * the functions of a loaded object to /tmp/perf-PID.map, the file `perf
 * report` reads to name addresses in JIT code.  ORC lays a section of the
 * object out as one block, so a function's address is the entry's address
 * moved by the difference of their offsets in the entry's section; other
 * sections' symbols (none today: no function sections) are left out, and
 * so is everything when the object cannot be read (profiling is best
 * effort, never an error). */
static void perf_map_add(const char *object, size_t size, const char *entry, uint64_t addr) {
    LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange(object, size, "hpcjit-object", 0);
    char *msg = NULL;
    LLVMBinaryRef bin = LLVMCreateBinary(buf, NULL, &msg);
    LLVMDisposeMessage(msg);
    if (!bin) {
        LLVMDisposeMemoryBuffer(buf);
        return;
    }
    LLVMSymbolIteratorRef sym = LLVMObjectFileCopySymbolIterator(bin);
    LLVMSectionIteratorRef sec = LLVMObjectFileCopySectionIterator(bin);
    uint64_t entry_off = 0, entry_sec = UINT64_MAX;
    for (int pass = 0; pass < 2 && sym && sec; pass++) {
        FILE *out = NULL;
        if (pass == 1) {
            char path[64];
            snprintf(path, sizeof path, "/tmp/perf-%ld.map", (long)getpid());
            if (entry_sec == UINT64_MAX || !(out = fopen(path, "a")))
                break;
        }
        for (; !LLVMObjectFileIsSymbolIteratorAtEnd(bin, sym); LLVMMoveToNextSymbol(sym)) {
            const char *name = LLVMGetSymbolName(sym);
            if (!name || !*name)
                continue;
            LLVMMoveToContainingSection(sec, sym);
            if (LLVMObjectFileIsSectionIteratorAtEnd(bin, sec))
                continue;
            uint64_t where = (uint64_t)(uintptr_t)LLVMGetSectionContents(sec); /* names the section */
            if (pass == 0 && strcmp(name, entry) == 0) {
                entry_off = LLVMGetSymbolAddress(sym);
                entry_sec = where;
            } else if (pass == 1 && where == entry_sec && LLVMGetSymbolSize(sym) > 0) {
                fprintf(out, "%" PRIx64 " %" PRIx64 " %s\n", addr - entry_off + LLVMGetSymbolAddress(sym),
                        LLVMGetSymbolSize(sym), name);
            }
        }
        if (out)
            fclose(out);
        LLVMDisposeSymbolIterator(sym);
        sym = LLVMObjectFileCopySymbolIterator(bin);
    }
    if (sym)
        LLVMDisposeSymbolIterator(sym);
    if (sec)
        LLVMDisposeSectionIterator(sec);
    LLVMDisposeBinary(bin);
    LLVMDisposeMemoryBuffer(buf);
}

static char *err_dup(const char *fmt, const char *a, const char *b) {
    size_t n = strlen(fmt) + strlen(a) + strlen(b) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, fmt, a, b);
    return s;
}

static void set_err(char **err, char *msg) {
    if (err)
        *err = msg;
    else
        free(msg);
}

/* Define the runtime and helper symbols in `jd` as absolute addresses. */
static LLVMErrorRef define_symbols(HjJit *jit, LLVMOrcJITDylibRef jd) {
    if (jit->nsyms == 0)
        return LLVMErrorSuccess;
    LLVMOrcCSymbolMapPair *pairs = calloc((size_t)jit->nsyms, sizeof *pairs);
    if (!pairs)
        return LLVMCreateStringError("out of memory");
    for (int i = 0; i < jit->nsyms; i++) {
        /* the names' references are handed to LLVMOrcAbsoluteSymbols */
        pairs[i].Name = LLVMOrcLLJITMangleAndIntern(jit->lljit, jit->syms[i].name);
        pairs[i].Sym.Address = (LLVMOrcExecutorAddress)(uintptr_t)jit->syms[i].address;
        pairs[i].Sym.Flags.GenericFlags =
            LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable;
        pairs[i].Sym.Flags.TargetFlags = 0;
    }
    LLVMOrcMaterializationUnitRef mu = LLVMOrcAbsoluteSymbols(pairs, (size_t)jit->nsyms);
    free(pairs);
    LLVMErrorRef e = LLVMOrcJITDylibDefine(jd, mu);
    if (e)
        LLVMOrcDisposeMaterializationUnit(mu); /* still ours on failure */
    return e;
}

/* Runtime and helpers first, then whatever the process exports. */
static LLVMErrorRef setup_dylib(HjJit *jit, LLVMOrcJITDylibRef jd) {
    LLVMErrorRef e = define_symbols(jit, jd);
    if (e)
        return e;
    LLVMOrcDefinitionGeneratorRef gen = NULL;
    e = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
        &gen, LLVMOrcLLJITGetGlobalPrefix(jit->lljit), NULL, NULL);
    if (e)
        return e;
    LLVMOrcJITDylibAddGenerator(jd, gen); /* jd owns gen now */
    return LLVMErrorSuccess;
}

/* ORC reports linking errors (the useful "Symbols not found: [ f ]") here,
 * apart from the lookup's own "Failed to materialize" error.  Called
 * while jit->lock is held by the load that triggered it. */
static void session_error(void *ctx, LLVMErrorRef e) {
    HjJit *jit = ctx;
    char *msg = codegen_llvm_error_string(e, "JIT session error");
    free(jit->session_error);
    jit->session_error = msg;
}

HjJit *hj_jit_create(const HjSymbol *runtime, int nruntime, char **err) {
    HjJit *jit = NULL;
    LLVMOrcLLJITBuilderRef builder = NULL;
    LLVMErrorRef e = NULL;

    codegen_init_llvm();
    vecmath_load_library(); /* the process search below finds libmvec's variants */
    jit = calloc(1, sizeof *jit);
    if (!jit) {
        set_err(err, strdup("out of memory"));
        return NULL;
    }
    pthread_mutex_init(&jit->lock, NULL);
    jit->perf_map = env_on("HPCJIT_ENABLE_PROFILING") ||
                    (!getenv("HPCJIT_ENABLE_PROFILING") && env_on("NUMBA_ENABLE_PROFILING"));
    jit->syms = calloc((size_t)(nruntime > 0 ? nruntime : 0) + NHELPERS, sizeof *jit->syms);
    if (!jit->syms)
        goto oom;
    for (int i = 0; i < nruntime; i++) {
        char *name = strdup(runtime[i].name);
        if (!name)
            goto oom;
        jit->syms[jit->nsyms].name = name;
        jit->syms[jit->nsyms].address = runtime[i].address;
        jit->nsyms++;
    }
    for (int i = 0; i < NHELPERS; i++) {
        char *name = strdup(compiler_helpers[i].name);
        if (!name)
            goto oom;
        jit->syms[jit->nsyms].name = name;
        jit->syms[jit->nsyms].address = compiler_helpers[i].address;
        jit->nsyms++;
    }

    builder = LLVMOrcCreateLLJITBuilder();
    e = LLVMOrcCreateLLJIT(&jit->lljit, builder); /* consumes builder */
    builder = NULL;
    if (e) {
        jit->lljit = NULL;
        set_err(err, codegen_llvm_error_string(e, "LLVMOrcCreateLLJIT"));
        goto fail;
    }
    LLVMOrcExecutionSessionSetErrorReporter(LLVMOrcLLJITGetExecutionSession(jit->lljit),
                                            session_error, jit);
    e = setup_dylib(jit, LLVMOrcLLJITGetMainJITDylib(jit->lljit));
    if (e) {
        set_err(err, codegen_llvm_error_string(e, "hpcjit JIT setup"));
        goto fail;
    }
    return jit;
oom:
    set_err(err, strdup("out of memory"));
fail:
    hj_jit_destroy(jit);
    return NULL;
}

void hj_jit_destroy(HjJit *jit) {
    if (!jit)
        return;
    if (jit->lljit) {
        LLVMErrorRef e = LLVMOrcDisposeLLJIT(jit->lljit);
        if (e)
            LLVMConsumeError(e);
    }
    for (int i = 0; i < jit->nsyms; i++)
        free((char *)jit->syms[i].name);
    free(jit->syms);
    free(jit->session_error);
    pthread_mutex_destroy(&jit->lock);
    free(jit);
}

/* LLVMOrcExecutionSessionLookup reports through a callback, possibly on
 * another thread when ORC runs a task dispatcher. */
typedef struct LookupWait {
    pthread_mutex_t m;
    pthread_cond_t cv;
    int done;
    uint64_t address;
    char *error;
} LookupWait;

static void lookup_done(LLVMErrorRef e, LLVMOrcCSymbolMapPairs result, size_t n, void *ctx) {
    LookupWait *w = ctx;
    pthread_mutex_lock(&w->m);
    if (e)
        w->error = codegen_llvm_error_string(e, "symbol lookup");
    else if (n >= 1)
        w->address = result[0].Sym.Address;
    w->done = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->m);
}

static uint64_t lookup_in(HjJit *jit, LLVMOrcJITDylibRef jd, const char *symbol, char **err) {
    LookupWait w = {.done = 0, .address = 0, .error = NULL};
    pthread_mutex_init(&w.m, NULL);
    pthread_cond_init(&w.cv, NULL);
    LLVMOrcCJITDylibSearchOrderElement order[1] = {
        {jd, LLVMOrcJITDylibLookupFlagsMatchExportedSymbolsOnly}};
    LLVMOrcCLookupSetElement names[1] = {
        /* the lookup takes over this reference */
        {LLVMOrcLLJITMangleAndIntern(jit->lljit, symbol), LLVMOrcSymbolLookupFlagsRequiredSymbol}};
    LLVMOrcExecutionSessionLookup(LLVMOrcLLJITGetExecutionSession(jit->lljit),
                                  LLVMOrcLookupKindStatic, order, 1, names, 1, lookup_done, &w);
    pthread_mutex_lock(&w.m);
    while (!w.done)
        pthread_cond_wait(&w.cv, &w.m);
    pthread_mutex_unlock(&w.m);
    pthread_cond_destroy(&w.cv);
    pthread_mutex_destroy(&w.m);
    if (w.error) {
        if (jit->session_error) {
            set_err(err, err_dup("%s (%s)", jit->session_error, w.error));
            free(w.error);
        } else {
            set_err(err, w.error);
        }
        return 0;
    }
    if (!w.address)
        set_err(err, err_dup("symbol %s%s has address 0", symbol, ""));
    return w.address;
}

void *hj_jit_load(HjJit *jit, const char *object, size_t size, const char *symbol, char **err) {
    char name[64];
    LLVMErrorRef e = NULL;
    LLVMOrcJITDylibRef jd = NULL;
    uint64_t addr = 0;

    pthread_mutex_lock(&jit->lock);
    free(jit->session_error);
    jit->session_error = NULL;
    snprintf(name, sizeof name, "hpcjit.load.%lu", ++jit->nloads);
    jd = LLVMOrcExecutionSessionCreateBareJITDylib(LLVMOrcLLJITGetExecutionSession(jit->lljit),
                                                   name);
    e = setup_dylib(jit, jd);
    if (e) {
        set_err(err, codegen_llvm_error_string(e, "hpcjit JIT setup"));
        goto done;
    }
    LLVMMemoryBufferRef buf =
        LLVMCreateMemoryBufferWithMemoryRangeCopy(object, size, "hpcjit-object");
    e = LLVMOrcLLJITAddObjectFile(jit->lljit, jd, buf); /* takes buf */
    if (e) {
        set_err(err, codegen_llvm_error_string(e, "cannot add object file to the JIT"));
        goto done;
    }
    /* the lookup links the object: unresolved symbols are reported here */
    addr = lookup_in(jit, jd, symbol, err);
    if (addr && jit->perf_map)
        perf_map_add(object, size, symbol, addr);
done:
    pthread_mutex_unlock(&jit->lock);
    return (void *)(uintptr_t)addr;
}
