/* target.c - the target machine of a compilation: the host, overridden by
 * HPCJIT_CPU_NAME / HPCJIT_CPU_FEATURES / HPCJIT_OPT (Numba's NUMBA_* names
 * are read when ours are unset).  HPCJIT_CPU_FEATURES=default means the named
 * CPU's own features, nothing of the host's (hpcjit cc --archs). */
#include "hpcjit/compiler.h"

#include "codegen.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

/* The first of two environment variables that is set and not empty. */
static const char *env2(const char *ours, const char *numba) {
    const char *v = getenv(ours);
    if (v && *v)
        return v;
    v = getenv(numba);
    if (v && *v)
        return v;
    return NULL;
}

/* LLVM hands out strings that must be freed with LLVMDisposeMessage;
 * HjTarget's are plain malloc so the caller needs no LLVM. */
static char *take_llvm_string(char *s) {
    char *r = strdup(s ? s : "");
    LLVMDisposeMessage(s);
    return r;
}

/* The host's triple, CPU and features, asked once: LLVMGetHostCPUFeatures
 * runs cpuid for every feature and builds a long string each time. */
static pthread_once_t host_once = PTHREAD_ONCE_INIT;
static char *host_triple, *host_cpu, *host_features;

static void query_host(void) {
    host_triple = take_llvm_string(LLVMGetDefaultTargetTriple());
    host_cpu = take_llvm_string(LLVMGetHostCPUName());
    host_features = take_llvm_string(LLVMGetHostCPUFeatures());
}

void hj_target_host(HjTarget *out) {
    pthread_once(&host_once, query_host);
    if (!out->triple)
        out->triple = host_triple ? strdup(host_triple)
                                  : take_llvm_string(LLVMGetDefaultTargetTriple());
    else
        out->triple = strdup(out->triple);

    if (!out->cpu) {
        const char *v = env2("HPCJIT_CPU_NAME", "NUMBA_CPU_NAME");
        if (v && strcmp(v, "host") != 0)
            out->cpu = strdup(v);
        else
            out->cpu = host_cpu ? strdup(host_cpu) : take_llvm_string(LLVMGetHostCPUName());
    } else {
        out->cpu = strdup(out->cpu);
    }

    if (!out->features) {
        const char *v = env2("HPCJIT_CPU_FEATURES", "NUMBA_CPU_FEATURES");
        if (v && strcmp(v, "default") == 0) /* the CPU's own features only */
            out->features = strdup("");
        else if (v && strcmp(v, "host") != 0)
            out->features = strdup(v);
        else
            out->features = host_features ? strdup(host_features)
                                          : take_llvm_string(LLVMGetHostCPUFeatures());
    } else {
        out->features = strdup(out->features);
    }

    const char *opt = env2("HPCJIT_OPT", "NUMBA_OPT");
    int level = 3;
    if (opt) {
        char *end = NULL;
        long l = strtol(opt, &end, 10);
        if (end != opt && *end == '\0' && l >= 0 && l <= 3)
            level = (int)l;
    }
    out->opt_level = level;
}

void hj_target_free(HjTarget *t) {
    if (!t)
        return;
    free((char *)t->triple);
    free((char *)t->cpu);
    free((char *)t->features);
    t->triple = t->cpu = t->features = NULL;
}

void hj_llvm_version(unsigned *major, unsigned *minor, unsigned *patch) {
    LLVMGetVersion(major, minor, patch);
}

int hj_target_vector_math(const HjTarget *t) { return vecmath_enabled(t); }
