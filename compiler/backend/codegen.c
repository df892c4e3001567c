/* codegen.c - verified LLVM module -> new-pass-manager optimisation ->
 * relocatable object bytes (and assembly text for inspect_asm). */
#include "codegen.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>

/* Longest IR excerpt put into a verifier diagnostic. */
#define IR_EXCERPT_MAX 4000

static pthread_once_t llvm_once = PTHREAD_ONCE_INIT;

static void init_llvm_once(void) {
    LLVMInitializeNativeTarget();
    LLVMInitializeNativeAsmPrinter();
    LLVMInitializeNativeAsmParser();
    /* LLVM 19 vectorizes a loop's remainder only when the main VF >= 16;
     * double loops get VF 4-8, so their tails ran scalar (matmul rows).
     * Ordered reductions: without fastmath a float reduction must add in
     * source order, which stops the vectorizer unless it may keep the
     * adds in order (vector.reduce.fadd with a start value, expanded to
     * sequential adds).  The work feeding the adds (loads, subtractions,
     * products: pairwise's (x - y)**2) then runs in vector lanes and the
     * result is bit-for-bit the scalar loop's.  x86 does not turn it on
     * by default (AArch64 SVE does). */
    /* No hoisting of common code out of if/else (simplifycfg-hoist-common):
     * with it SimplifyCFG folds an if/else whose two arms end in the same
     * branch (arms that only assign, once mem2reg has run) into selects,
     * whatever the cost (hoistSuccIdenticalTerminatorToSwitchOrIf has no
     * budget, unlike SpeculativelyExecuteBB).  On a loop-carried chain a
     * select waits for its condition where a predicted branch does not:
     * QuantEcon's brentq ran 1.3x slower than under Numba, whose IR keeps
     * those branches (docs/PERFORMANCE.md, 2026-11-27). */
    static const char *const argv[] = {"hpcjit", "-epilogue-vectorization-minimum-VF=8",
                                       "-force-ordered-reductions", "-simplifycfg-hoist-common=false",
                                       "-time-passes"};
    /* HPCJIT_DEBUG_COMPILE=passes: LLVM's time per pass, printed to stderr
     * after each pipeline and each object emission */
    const char *dbg = getenv("HPCJIT_DEBUG_COMPILE");
    LLVMParseCommandLineOptions(dbg && strcmp(dbg, "passes") == 0 ? 5 : 4, argv, NULL);
}

void codegen_init_llvm(void) { pthread_once(&llvm_once, init_llvm_once); }

char *codegen_llvm_error_string(LLVMErrorRef err, const char *what) {
    char *msg = LLVMGetErrorMessage(err); /* consumes err */
    StrBuf b;
    sb_init(&b);
    sb_printf(&b, "%s: %s", what, msg ? msg : "unknown LLVM error");
    LLVMDisposeErrorMessage(msg);
    return sb_take(&b);
}

int codegen_llvm_error(Diag *d, LLVMErrorRef err, const char *what) {
    char *msg = codegen_llvm_error_string(err, what);
    diag_error_noloc(d, HJ_DIAG_LLVM, "%s", msg ? msg : what);
    free(msg);
    return -1;
}

LLVMTargetMachineRef codegen_target_machine(const HjTarget *t, Diag *d) {
    codegen_init_llvm();
    LLVMTargetRef target = NULL;
    char *err = NULL;
    if (LLVMGetTargetFromTriple(t->triple, &target, &err)) {
        diag_error_noloc(d, HJ_DIAG_LLVM, "no LLVM target for triple '%s': %s", t->triple,
                         err ? err : "");
        LLVMDisposeMessage(err);
        return NULL;
    }
    LLVMCodeGenOptLevel level = t->opt_level <= 0   ? LLVMCodeGenLevelNone
                                : t->opt_level == 1 ? LLVMCodeGenLevelLess
                                : t->opt_level == 2 ? LLVMCodeGenLevelDefault
                                                    : LLVMCodeGenLevelAggressive;
    /* PIC + small code model: JITLink builds GOT/PLT entries for far
     * symbols (libm, the runtime), and the object stays usable for caches. */
    LLVMTargetMachineRef tm =
        LLVMCreateTargetMachine(target, t->triple, t->cpu ? t->cpu : "",
                                t->features ? t->features : "", level, LLVMRelocPIC,
                                LLVMCodeModelSmall);
    if (!tm)
        diag_error_noloc(d, HJ_DIAG_LLVM, "cannot create a target machine for '%s' (cpu '%s')",
                         t->triple, t->cpu ? t->cpu : "");
    return tm;
}

/* ---- a pool of TargetMachines ----------------------------------------------
 * Creating one costs ~0.15 ms (more on the first compilation), and one may
 * not run two codegens at once, so each compilation borrows an idle machine
 * of its (triple, cpu, features, level) or makes one, and gives it back. */
#define TM_POOL_MAX 8

typedef struct TmEntry {
    char *triple, *cpu, *features;
    int level;
    int busy;
    LLVMTargetMachineRef tm;
} TmEntry;

static pthread_mutex_t tm_lock = PTHREAD_MUTEX_INITIALIZER;
static TmEntry tm_pool[TM_POOL_MAX];

static int streq(const char *a, const char *b) { return strcmp(a ? a : "", b ? b : "") == 0; }

static int entry_matches(const TmEntry *e, const HjTarget *t) {
    return e->tm && e->level == t->opt_level && streq(e->triple, t->triple) &&
           streq(e->cpu, t->cpu) && streq(e->features, t->features);
}

static void entry_clear(TmEntry *e) {
    free(e->triple);
    free(e->cpu);
    free(e->features);
    memset(e, 0, sizeof *e);
}

/* A TargetMachine for `t`, this thread's until tm_release. */
static LLVMTargetMachineRef tm_acquire(const HjTarget *t, Diag *d) {
    pthread_mutex_lock(&tm_lock);
    for (int i = 0; i < TM_POOL_MAX; i++) {
        if (!tm_pool[i].busy && entry_matches(&tm_pool[i], t)) {
            tm_pool[i].busy = 1;
            pthread_mutex_unlock(&tm_lock);
            return tm_pool[i].tm;
        }
    }
    pthread_mutex_unlock(&tm_lock);

    LLVMTargetMachineRef tm = codegen_target_machine(t, d);
    if (!tm)
        return NULL;
    TmEntry e = {strdup(t->triple ? t->triple : ""), strdup(t->cpu ? t->cpu : ""),
                 strdup(t->features ? t->features : ""), t->opt_level, 1, tm};
    if (!e.triple || !e.cpu || !e.features) {
        e.tm = NULL;
        entry_clear(&e);
        return tm; /* not pooled: tm_release disposes it */
    }
    LLVMTargetMachineRef evicted = NULL;
    pthread_mutex_lock(&tm_lock);
    int slot = -1;
    for (int i = 0; i < TM_POOL_MAX && slot < 0; i++)
        if (!tm_pool[i].tm)
            slot = i;
    for (int i = 0; i < TM_POOL_MAX && slot < 0; i++)
        if (!tm_pool[i].busy) { /* full: replace an idle one */
            evicted = tm_pool[i].tm;
            entry_clear(&tm_pool[i]);
            slot = i;
        }
    if (slot >= 0)
        tm_pool[slot] = e;
    pthread_mutex_unlock(&tm_lock);
    if (slot < 0) {
        e.tm = NULL;
        entry_clear(&e);
    }
    if (evicted)
        LLVMDisposeTargetMachine(evicted);
    return tm;
}

static void tm_release(LLVMTargetMachineRef tm) {
    if (!tm)
        return;
    pthread_mutex_lock(&tm_lock);
    for (int i = 0; i < TM_POOL_MAX; i++) {
        if (tm_pool[i].tm == tm) {
            tm_pool[i].busy = 0;
            pthread_mutex_unlock(&tm_lock);
            return;
        }
    }
    pthread_mutex_unlock(&tm_lock);
    LLVMDisposeTargetMachine(tm); /* one the pool had no room for */
}

/* The verifier's message, then the IR of the first broken function. */
int codegen_verify(LLVMModuleRef m, Diag *d) {
    char *msg = NULL;
    if (!LLVMVerifyModule(m, LLVMReturnStatusAction, &msg)) {
        LLVMDisposeMessage(msg);
        return 0;
    }
    StrBuf b;
    sb_init(&b);
    sb_printf(&b, "invalid LLVM IR (an hpcjit bug): %s", msg ? msg : "");
    LLVMDisposeMessage(msg);
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
        if (LLVMIsDeclaration(f) || !LLVMVerifyFunction(f, LLVMReturnStatusAction))
            continue;
        char *ir = LLVMPrintValueToString(f);
        size_t n = strlen(ir);
        sb_puts(&b, "\nin:\n");
        sb_putn(&b, ir, n > IR_EXCERPT_MAX ? IR_EXCERPT_MAX : n);
        if (n > IR_EXCERPT_MAX)
            sb_puts(&b, "\n...");
        LLVMDisposeMessage(ir);
        break;
    }
    char *text = sb_take(&b);
    diag_error_noloc(d, HJ_DIAG_LOWERING, "%s", text ? text : "invalid LLVM IR");
    free(text);
    return -1;
}

static void set_target(LLVMModuleRef m, const HjTarget *t, LLVMTargetMachineRef tm) {
    LLVMSetTarget(m, t->triple);
    LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
    LLVMSetModuleDataLayout(m, td); /* copies the layout */
    LLVMDisposeTargetData(td);
}

/* ---- the pass pipeline -----------------------------------------------------
 * At O3: LLVM 19's default<O3> as `opt -passes='default<O3>'
 * -print-pipeline-passes` prints it, run in two parts, with changes that
 * cut a compilation's LLVM work by a fifth (callgrind over the 44 kernels
 * of benchmarks/compile_time.py) without slowing the compiled code
 * (benchmarks/run.py's kernels, old build against new):
 *  - loop unswitching is trivial only, as at O2: non-trivial unswitching
 *    copied whole loop nests (jacobi2d's three times) for conditions that
 *    are loop-invariant but cold in our IR (is a reference count's MemInfo
 *    NULL, the signal poll); ~9% of all the work;
 *  - between the two parts the scalar remainders of vectorized loops are
 *    marked not to be unrolled at run time (no_runtime_unroll_of_remainders);
 *  - passes that never fire on hpcjit's IR are left out: OpenMP, PGO-only
 *    CHR, annotations, instrumentation, lower-expect (no llvm.expect),
 *    divergent-target speculation, auto-init, transform warnings.
 * Two changes of what the code does rather than of its cost (issue 15):
 * jump-threading after the first mem2reg, and no hoisting of common code
 * out of if/else arms (-simplifycfg-hoist-common=false, init_llvm_once);
 * both kept branches from becoming selects on loop-carried chains.
 * The coroutine passes (coro-early, coro-elide, coro-split, coro-cleanup)
 * stay, in default<O3>'s places: no-ops on functions that are not
 * coroutines.  Parsed from text, the inliner takes LLVM's default
 * parameters (threshold 225; default<O3>'s is 250).  Below O3,
 * default<O0..2>. */
#define SIMPLIFYCFG(opts)                                                                     \
    "simplifycfg<bonus-inst-threshold=1;" opts ";speculate-blocks;simplify-cond-branch;"     \
    "no-speculate-unpredictables>"
#define SCFG_LOOPS SIMPLIFYCFG("no-forward-switch-cond;switch-range-to-icmp;no-switch-to-lookup;" \
                               "keep-loops;no-hoist-common-insts;no-sink-common-insts")
#define INSTCOMBINE "instcombine<max-iterations=1;no-use-loop-info;no-verify-fixpoint>"

static const char o3_pipeline[] =
    /* module simplification */
    "inferattrs,coro-early,"
    "function<eager-inv>("
    SIMPLIFYCFG("no-forward-switch-cond;no-switch-range-to-icmp;no-switch-to-lookup;keep-loops;"
                "no-hoist-common-insts;no-sink-common-insts")
    ",sroa<modify-cfg>,early-cse<>,callsite-splitting),"
    "ipsccp,globalopt,"
    /* jump-threading: a variable's "assigned" flag checked again where an
     * earlier check of it dominates is known true (LazyValueInfo) before
     * SimplifyCFG merges the check into the branch before it, with a
     * select per PHI (QuantEcon's brentq; docs/PERFORMANCE.md, 2026-11-27) */
    "function<eager-inv>(mem2reg," INSTCOMBINE ",jump-threading," SCFG_LOOPS "),"
    "always-inline,require<globals-aa>,function(invalidate<aa>),require<profile-summary>,"
    /* the inliner and the function simplification pipeline, per SCC */
    "cgscc(devirt<4>(inline,function-attrs<skip-non-recursive-function-attrs>,argpromotion,"
    "function<eager-inv;no-rerun>(sroa<modify-cfg>,early-cse<memssa>,jump-threading,"
    "correlated-propagation," SCFG_LOOPS "," INSTCOMBINE ",aggressive-instcombine,"
    "libcalls-shrinkwrap,tailcallelim," SCFG_LOOPS ",reassociate,constraint-elimination,"
    "loop-mssa(loop-instsimplify,loop-simplifycfg,licm<no-allowspeculation>,"
    "loop-rotate<header-duplication;no-prepare-for-lto>,licm<allowspeculation>,"
    "simple-loop-unswitch<no-nontrivial;trivial>),"
    SCFG_LOOPS "," INSTCOMBINE ","
    "loop(loop-idiom,indvars,simple-loop-unswitch<no-nontrivial;trivial>,loop-deletion,"
    "loop-unroll-full),"
    "sroa<modify-cfg>,vector-combine,mldst-motion<no-split-footer-bb>,gvn<>,sccp,bdce,"
    INSTCOMBINE ",jump-threading,correlated-propagation,adce,memcpyopt,dse,"
    "loop-mssa(licm<allowspeculation>),coro-elide,"
    SIMPLIFYCFG("no-forward-switch-cond;switch-range-to-icmp;no-switch-to-lookup;keep-loops;"
                "hoist-common-insts;sink-common-insts")
    "," INSTCOMBINE "),"
    "function-attrs,function(require<should-not-run-function-passes>),coro-split)),"
    "deadargelim,coro-cleanup,globalopt,globaldce,rpo-function-attrs,recompute-globalsaa,"
    /* module optimisation: vectorization, unrolling, clean-up */
    "function<eager-inv>(float2int,lower-constant-intrinsics,"
    "loop(loop-rotate<header-duplication;no-prepare-for-lto>,loop-deletion),loop-distribute,"
    "inject-tli-mappings,loop-vectorize<no-interleave-forced-only;no-vectorize-forced-only;>,"
    "infer-alignment,loop-load-elim," INSTCOMBINE ","
    SIMPLIFYCFG("forward-switch-cond;switch-range-to-icmp;switch-to-lookup;no-keep-loops;"
                "hoist-common-insts;sink-common-insts")
    ",slp-vectorizer,vector-combine," INSTCOMBINE ")";

/* after no_runtime_unroll_of_remainders: the rest of default<O3> */
static const char o3_pipeline_tail[] =
    "function<eager-inv>(loop-unroll<O3>,"
    "sroa<preserve-cfg>,infer-alignment," INSTCOMBINE ",loop-mssa(licm<allowspeculation>),"
    "alignment-from-assumptions,loop-sink,instsimplify,div-rem-pairs,tailcallelim,"
    "simplifycfg<bonus-inst-threshold=1;no-forward-switch-cond;switch-range-to-icmp;"
    "no-switch-to-lookup;keep-loops;no-hoist-common-insts;no-sink-common-insts;"
    "speculate-blocks;simplify-cond-branch;speculate-unpredictables>),"
    "globaldce,constmerge,rel-lookup-table-converter";

/* Is the MDString `md` (a metadata value) `name`? */
static int md_string_is(LLVMValueRef md, const char *name) {
    unsigned len = 0;
    const char *str = md ? LLVMGetMDString(md, &len) : NULL;
    return str && len == strlen(name) && memcmp(str, name, len) == 0;
}

/* Does the loop ID `id` hold the hint {name, ...}? */
static int loop_has_hint(LLVMValueRef id, const char *name) {
    unsigned n = LLVMGetMDNodeNumOperands(id);
    LLVMValueRef ops[64];
    if (n > 64)
        return 1; /* not ours to rewrite */
    LLVMGetMDNodeOperands(id, ops);
    for (unsigned i = 1; i < n; i++) {
        if (!ops[i] || !LLVMIsAMDNode(ops[i]) || LLVMGetMDNodeNumOperands(ops[i]) < 1)
            continue;
        LLVMValueRef sub[8];
        if (LLVMGetMDNodeNumOperands(ops[i]) > 8)
            continue;
        LLVMGetMDNodeOperands(ops[i], sub);
        if (md_string_is(sub[0], name))
            return 1;
    }
    return 0;
}

/* The scalar loop the loop vectorizer leaves behind a vector loop (marked
 * llvm.loop.isvectorized) runs the remainder, fewer iterations than one
 * vector step, or the whole loop when the run-time checks fail (short
 * trips, overlapping arrays): unrolling it at run time only adds code, and
 * its many address uses made loop strength reduction the costliest pass of
 * the code generator (half of jacobi2d's).  Loops the vectorizer left alone
 * keep runtime unrolling (six_reductions' scalar loops gain 10% from it). */
static void no_runtime_unroll_of_remainders(LLVMModuleRef m) {
    LLVMContextRef ctx = LLVMGetModuleContext(m);
    unsigned loop_kind = LLVMGetMDKindIDInContext(ctx, "llvm.loop", 9);
    static const char disable[] = "llvm.loop.unroll.runtime.disable";
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb)) {
            LLVMValueRef br = LLVMGetBasicBlockTerminator(bb);
            LLVMValueRef id = br ? LLVMGetMetadata(br, loop_kind) : NULL;
            if (!id || !loop_has_hint(id, "llvm.loop.isvectorized") || loop_has_hint(id, disable))
                continue;
            /* a new distinct loop ID: the old hints, then the new one */
            unsigned n = LLVMGetMDNodeNumOperands(id);
            LLVMValueRef old[64];
            LLVMMetadataRef ops[65];
            LLVMGetMDNodeOperands(id, old);
            LLVMMetadataRef tmp = LLVMTemporaryMDNode(ctx, NULL, 0);
            ops[0] = tmp;
            for (unsigned i = 1; i < n; i++)
                ops[i] = LLVMValueAsMetadata(old[i]);
            LLVMMetadataRef hint = LLVMMDStringInContext2(ctx, disable, sizeof disable - 1);
            ops[n] = LLVMMDNodeInContext2(ctx, &hint, 1);
            LLVMMetadataRef nid = LLVMMDNodeInContext2(ctx, ops, n + 1);
            LLVMMetadataReplaceAllUsesWith(tmp, nid); /* disposes tmp */
            LLVMSetMetadata(br, loop_kind, LLVMMetadataAsValue(ctx, nid));
        }
    }
}

static int optimise(LLVMModuleRef m, const HjTarget *t, LLVMTargetMachineRef tm, Diag *d) {
    int level = t->opt_level < 0 ? 0 : t->opt_level > 3 ? 3 : t->opt_level;
    char pipeline[32];
    snprintf(pipeline, sizeof pipeline, "default<O%d>", level);
    LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
    /* what clang and Numba turn on at -O2/-O3 (SLP is off by default in
     * the pass builder's tuning options) */
    LLVMPassBuilderOptionsSetLoopVectorization(opts, level >= 2);
    LLVMPassBuilderOptionsSetSLPVectorization(opts, level >= 2);
    LLVMPassBuilderOptionsSetLoopInterleaving(opts, level >= 2);
    LLVMPassBuilderOptionsSetLoopUnrolling(opts, level >= 2);
    LLVMErrorRef err = NULL;
    if (level >= 2)
        vecmath_attach(m, t);
    if (level < 3)
        err = LLVMRunPasses(m, pipeline, tm, opts);
    else if (!(err = LLVMRunPasses(m, o3_pipeline, tm, opts))) {
        no_runtime_unroll_of_remainders(m);
        err = LLVMRunPasses(m, o3_pipeline_tail, tm, opts);
    }
    LLVMDisposePassBuilderOptions(opts);
    vecmath_cleanup(m);
    if (err)
        return codegen_llvm_error(d, err, "LLVMRunPasses");
    return 0;
}

static int emit(LLVMModuleRef m, LLVMTargetMachineRef tm, LLVMCodeGenFileType kind, char **out,
                size_t *size, Diag *d) {
    char *err = NULL;
    LLVMMemoryBufferRef buf = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, kind, &err, &buf)) {
        diag_error_noloc(d, HJ_DIAG_LLVM, "cannot emit %s: %s",
                         kind == LLVMObjectFile ? "object code" : "assembly", err ? err : "");
        LLVMDisposeMessage(err);
        return -1;
    }
    size_t n = LLVMGetBufferSize(buf);
    /* +1: assembly text is returned as a C string */
    char *copy = malloc(n + 1);
    if (!copy) {
        LLVMDisposeMemoryBuffer(buf);
        return diag_error_noloc(d, HJ_DIAG_MEMORY, "out of memory copying object code");
    }
    memcpy(copy, LLVMGetBufferStart(buf), n);
    copy[n] = '\0';
    LLVMDisposeMemoryBuffer(buf);
    *out = copy;
    *size = n;
    return 0;
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int codegen_compile(LLVMModuleRef m, const HjTarget *t, char **obj, size_t *size,
                    char **ir_text, CodegenTimes *times, Diag *d) {
    int rc = -1;
    double t0;
    LLVMTargetMachineRef tm = NULL;
    *obj = NULL;
    *size = 0;
    if (ir_text)
        *ir_text = NULL;
    if (codegen_verify(m, d) < 0)
        goto done;
    tm = tm_acquire(t, d);
    if (!tm)
        goto done;
    set_target(m, t, tm);
    t0 = now_seconds();
    if (optimise(m, t, tm, d) < 0)
        goto done;
    if (times)
        times->opt = now_seconds() - t0;
    if (ir_text) {
        char *s = LLVMPrintModuleToString(m);
        *ir_text = strdup(s);
        LLVMDisposeMessage(s);
        if (!*ir_text) {
            diag_error_noloc(d, HJ_DIAG_MEMORY, "out of memory printing LLVM IR");
            goto done;
        }
    }
    t0 = now_seconds();
    if (emit(m, tm, LLVMObjectFile, obj, size, d) < 0)
        goto done;
    if (times)
        times->emit = now_seconds() - t0;
    rc = 0;
done:
    if (rc < 0 && ir_text) {
        free(*ir_text);
        *ir_text = NULL;
    }
    tm_release(tm);
    return rc;
}

int codegen_emit_object(LLVMModuleRef m, const HjTarget *t, char **obj, size_t *size, Diag *d) {
    return codegen_compile(m, t, obj, size, NULL, NULL, d);
}

/* Assembly or object code (kind) for LLVM IR text: parsed, verified,
 * emitted as given (no optimisation: the text is already what is wanted). */
static char *emit_ir(const char *ir, const HjTarget *t, LLVMCodeGenFileType kind, size_t *size, Diag *d) {
    char *out = NULL, *err = NULL;
    size_t n = 0;
    LLVMContextRef ctx = NULL;
    LLVMModuleRef m = NULL;
    LLVMTargetMachineRef tm = NULL;
    codegen_init_llvm();
    ctx = LLVMContextCreate();
    LLVMMemoryBufferRef buf =
        LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, strlen(ir), "hpcjit-ir");
    /* LLVMParseIRInContext takes ownership of buf, also on failure */
    if (LLVMParseIRInContext(ctx, buf, &m, &err)) {
        diag_error_noloc(d, HJ_DIAG_LLVM, "cannot parse LLVM IR: %s", err ? err : "");
        LLVMDisposeMessage(err);
        m = NULL;
        goto done;
    }
    if (kind == LLVMObjectFile && codegen_verify(m, d) < 0)
        goto done;
    tm = tm_acquire(t, d);
    if (!tm)
        goto done;
    set_target(m, t, tm);
    if (emit(m, tm, kind, &out, &n, d) < 0)
        out = NULL;
    if (size)
        *size = n;
done:
    tm_release(tm);
    if (m)
        LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
    return out;
}

char *codegen_emit_asm(const char *ir, const HjTarget *t, Diag *d) {
    return emit_ir(ir, t, LLVMAssemblyFile, NULL, d);
}

char *hj_ir_to_object(const char *llvm_ir, size_t *size, char **err) {
    HjTarget host = {0};
    Diag d;
    diag_init(&d);
    hj_target_host(&host);
    char *obj = emit_ir(llvm_ir ? llvm_ir : "", &host, LLVMObjectFile, size, &d);
    if (!obj && err)
        *err = strdup(d.short_msg ? d.short_msg : "cannot emit object code");
    hj_target_free(&host);
    diag_free(&d);
    return obj;
}

char *hj_ir_to_asm(const char *llvm_ir, const HjTarget *target, char **err) {
    HjTarget host = {0};
    Diag d;
    diag_init(&d);
    /* resolve NULL fields; hj_target_host copies the given ones */
    if (target)
        host = *target;
    hj_target_host(&host);
    if (target)
        host.opt_level = target->opt_level;
    char *asm_text = codegen_emit_asm(llvm_ir ? llvm_ir : "", &host, &d);
    if (!asm_text && err)
        *err = strdup(d.short_msg ? d.short_msg : "cannot emit assembly");
    hj_target_free(&host);
    diag_free(&d);
    return asm_text;
}
