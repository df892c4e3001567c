/* hpcjit/compiler.h - public interface of the hpcjit compiler library.
 *
 * The compiler never touches Python objects: the Python layer describes the
 * functions to compile (source text, environment of global names, options)
 * in plain C structs, and gets plain C results back.  That is what lets the
 * caller release the GIL around hj_compile().
 *
 * Two separate steps, so that on-disk caches and MPI broadcast can sit
 * between them:
 *   hj_compile()      source + argument types  -> object bytes for a target
 *   hj_jit_load()     object bytes             -> addresses in this process
 *
 * Thread-safety: hj_compile() may run concurrently in several threads (each
 * call owns its LLVM context).  HjJit is internally locked.
 */
#ifndef HPCJIT_COMPILER_H
#define HPCJIT_COMPILER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The hj_* functions are the API of libhpcjit_compiler.so
 * (-DHPCJIT_SHARED_COMPILER=ON): visible even though the compiler is built
 * with -fvisibility=hidden (compiler/hpcjit_compiler.map exports them). */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* ---- diagnostics ----------------------------------------------------- */
typedef enum HjDiagKind {
    HJ_DIAG_NONE = 0,
    HJ_DIAG_SYNTAX,      /* hpcjit.errors.HpcjitSyntaxError (a SyntaxError)  */
    HJ_DIAG_UNSUPPORTED, /* hpcjit.errors.UnsupportedError                    */
    HJ_DIAG_TYPING,      /* hpcjit.errors.TypingError                         */
    HJ_DIAG_NAME,        /* hpcjit.errors.TypingError (unknown name)          */
    HJ_DIAG_LOWERING,    /* hpcjit.errors.LoweringError (a compiler bug)      */
    HJ_DIAG_LLVM,        /* hpcjit.errors.LoweringError (LLVM said no)        */
    HJ_DIAG_MEMORY,      /* MemoryError                                       */
    HJ_DIAG_SIGNATURE,   /* TypeError: bad signature string                   */
} HjDiagKind;

/* ---- the environment: what a function's non-local names refer to ----- */
typedef enum HjEnvKind {
    HJ_ENV_MODULE,   /* qualname: "numpy", "math", "numpy.linalg", "hpcjit"  */
    HJ_ENV_BUILTIN,  /* qualname: "builtins.abs", "math.sqrt", "numpy.empty",
                        "numpy.float64" (dtype class), "builtins.ValueError",
                        "hpcjit.prange"                                        */
    HJ_ENV_FUNC,     /* func: index into HjRequest.funcs (an @njit function) */
    HJ_ENV_INT,      /* i (also used for bools with is_bool set)              */
    HJ_ENV_FLOAT,    /* f                                                      */
    HJ_ENV_COMPLEX,  /* f, f_imag                                              */
    HJ_ENV_NONE,     /* -                                                      */
    HJ_ENV_STR,      /* qualname holds the string value (for messages)        */
    HJ_ENV_TUPLE,    /* items, nitems                                          */
    HJ_ENV_ARRAY,    /* a NumPy array frozen as a read-only constant (Numba's
                        rule for global and closure arrays): qualname = its
                        typecode ("rd2C"), shape (ndim items), data/nbytes =
                        its items in C order                                  */
    HJ_ENV_DATETIME, /* a datetime64/timedelta64 scalar: qualname = its
                        typecode ("MD", "ms"), i = its count (NaT INT64_MIN)  */
    HJ_ENV_OTHER,    /* qualname: a description ("a dict") for the error      */
} HjEnvKind;

typedef struct HjEnvEntry HjEnvEntry;
struct HjEnvEntry {
    const char *name; /* the name as written in the function (NULL in tuples) */
    HjEnvKind kind;
    const char *qualname;
    int func;
    int is_bool;
    int64_t i;
    double f, f_imag;
    const HjEnvEntry *items;
    int nitems;
    const int64_t *shape;
    const void *data;
    int64_t nbytes;
};

/* Every LLVMFastMathFlags bit (llvm-c/Core.h's LLVMFastMathAll: reassoc 1,
 * nnan 2, ninf 4, nsz 8, arcp 16, contract 32, afn 64), for code that does
 * not include LLVM's headers. */
#define HJ_FASTMATH_ALL 0x7f

/* Per-function options, as given to @njit. */
typedef struct HjOptions {
    int fastmath;       /* LLVMFastMathFlags bits on float ops (0: none, True:
                           LLVMFastMathAll; a set of Numba's flag names)        */
    int boundscheck;    /* IndexError on out-of-range indices                   */
    int error_model;    /* 0 = "python" (ZeroDivisionError), 1 = "numpy"       */
    int nogil;          /* informational for the compiler                       */
    int parallel;       /* prange loops run on the pool (compiler/parallel.h)  */
    int inline_always;  /* inline="always"                                      */
    int deterministic;  /* parallel reductions bitwise identical for any thread
                           count (deterministic=True or HPCJIT_DETERMINISTIC=1) */
    int schedule_dynamic; /* schedule="dynamic": prange chunks taken in turn   */
    int no_signal_poll;   /* poll_signals=False: loops do not answer signals    */
    uint64_t literal_params; /* bit i: parameter i is typed as the literal of its
                                argument at each call (literally(); infer_literal.c) */
    const char *locals; /* locals={name: type}: "name\ttypecode\n" per entry,
                           or NULL (infer.c: the variable keeps that type)  */
    const char *signatures; /* a dispatcher with explicit signatures: "ret\targs\n"
                               per signature (typecodes, the arguments' joined),
                               or NULL; compiled calls convert to the first that
                               takes the arguments (infer_call.c)              */
} HjOptions;

/* What a stub function (HjFunction.stub) does. */
typedef enum HjStubKind {
    HJ_STUB_NONE = 0, /* an ordinary def: source is compiled                    */
    HJ_STUB_OVERLOAD, /* hpcjit.extending.overload/overload_method/overload_attribute
                         (and @intrinsic): impls, nimpls                        */
    HJ_STUB_PYCALL,   /* an objmode block: handle, ret_typecode                 */
    HJ_STUB_LLVMIR,   /* a portable @intrinsic's code: source is LLVM IR text
                         defining the function qualname; ret_typecode,
                         arg_typecodes (infer_extend.c, lower_llvmir.c)        */
} HjStubKind;

/* One resolution of an overload stub for one argument key (see
 * infer_extend.c for the key's spelling): call funcs[func], or, when func
 * is -1, fail with diag_kind and message (the typing function declined). */
typedef struct HjStubImpl {
    const char *key;
    int func;
    int diag_kind;       /* HjDiagKind when func is -1 */
    const char *message; /* when func is -1 */
    int elementwise;     /* funcs[func] computes one element from the arguments'
                            elements (a @vectorize function called on arrays):
                            the call is an elementwise node of the caller's
                            array expressions (infer_arrayexpr.c) */
} HjStubImpl;

/* One Python function that may be compiled. */
typedef struct HjFunction {
    const char *name;       /* __name__                                        */
    const char *qualname;   /* __qualname__                                     */
    const char *filename;   /* co_filename                                      */
    const char *source;     /* dedented source of the def (decorators allowed) */
    int first_line;         /* user-file line of the first line of `source`    */
    int col_offset;         /* columns removed by dedenting                     */
    const HjEnvEntry *env;  /* globals, closure cells and builtins it names    */
    int nenv;
    HjOptions options;
    /* stubs (source unused): overloads and objmode blocks (HjStubKind) */
    int stub;
    const HjStubImpl *impls; /* HJ_STUB_OVERLOAD: the resolutions so far   */
    int nimpls;
    int caller_parallel;     /* HJ_STUB_OVERLOAD: the key of a call from a
                                parallel=True function ends in "$parallel"
                                (a stencil's loop nest goes on the pool) */
    int64_t handle;            /* HJ_STUB_PYCALL: the block's number (hpcjit.extending) */
    const char *ret_typecode;  /* HJ_STUB_PYCALL: the outputs, a tuple typecode;
                                  HJ_STUB_LLVMIR: the return typecode         */
    const char *arg_typecodes; /* HJ_STUB_LLVMIR: the parameters' typecodes, '\t'-joined */
} HjFunction;

/* The target machine of a compilation. */
typedef struct HjTarget {
    const char *triple;   /* NULL: the host's                                  */
    const char *cpu;      /* NULL: host CPU (LLVMGetHostCPUName)              */
    const char *features; /* NULL: host features (LLVMGetHostCPUFeatures)     */
    int opt_level;        /* 0..3                                              */
} HjTarget;

/* Resolve NULL fields of `t` from HPCJIT_CPU_NAME / NUMBA_CPU_NAME,
 * HPCJIT_CPU_FEATURES / NUMBA_CPU_FEATURES, HPCJIT_OPT / NUMBA_OPT, then the
 * host.  Returned strings are malloc'ed into *out (free with hj_target_free). */
void hj_target_host(HjTarget *out);
/* Do loops over libm calls on `t` use glibc's vector math (libmvec)?
 * x86_64 Linux with libmvec, unless HPCJIT_DISABLE_VECTOR_MATH (or
 * NUMBA_DISABLE_INTEL_SVML) is set: part of the cache key. */
int hj_target_vector_math(const HjTarget *t);
void hj_target_free(HjTarget *t);

/* CUDA compilations (HJ_ENTRY_CUDA_KERNEL / HJ_ENTRY_CUDA_DEVICE): the
 * target is nvptx64-nvidia-cuda, the result PTX text (docs/CUDA.md). */
typedef struct HjCudaOptions {
    int cc_major, cc_minor; /* compute capability: sm_<major><minor>          */
    int fastmath;           /* fast-math flags, nvvm-reflect-ftz=1, approx div */
    int debug;              /* bounds checks and raise record __hpcjit_error   */
    int lineinfo;           /* .loc line information in the PTX                */
    int max_registers;      /* 0: no limit (else nvvm.annotations maxnreg)     */
    int max_threads;        /* launch bound maxntid.x (0: none)                */
    int min_blocks;         /* launch bound minctasm (0: none)                 */
    const char *libdevice;  /* libdevice.10.bc path; NULL: search (ptx.c)       */
} HjCudaOptions;

typedef struct HjRequest {
    const HjFunction *funcs; /* every function reachable from the entry       */
    int nfuncs;
    int entry;               /* index into funcs                               */
    /* Argument types of the entry specialisation, as typecodes (see
     * runtime/include/hpcjit/abi.h), one string per argument. */
    const char *const *argtypes;
    int nargs;
    const char *rettype;     /* typecode of an explicit return type, or NULL  */
    const HjTarget *target;
    int want_llvm_ir;        /* fill HjResult.llvm_ir (optimised IR text)     */
    int want_types;          /* fill HjResult.types_text (inspect_types)      */
    /* HJ_ENTRY_CALL: the entry wrapper of abi.h, int32 (void *ret, void **args).
     * HJ_ENTRY_UFUNC_LOOP: an element loop for a NumPy ufunc (@vectorize),
     *   int32 loop(char **args, int64 n, const int64 *steps): args[0..nargs)
     *   the inputs and args[nargs] the output, each advanced by its step in
     *   bytes; every argument and the return are numbers.  Returns 0, or -1
     *   with the exception pending (rt_exc_fetch) after the failing element.
     * HJ_ENTRY_CFUNC: a C function of the argument and return types (real
     *   numbers) for callbacks (@cfunc); an exception is written to stderr
     *   (rt_exc_unraisable) and the function returns 0.
     * HJ_ENTRY_CUDA_KERNEL: a PTX .entry with the flattened parameters of
     *   docs/CUDA.md; HjResult.object is the PTX text (NUL-terminated).
     * HJ_ENTRY_CUDA_DEVICE: a .visible .func `entry(ptr ret, params...)`
     *   with the same flattened parameters (compile_ptx(device=True)). */
    int entry_kind;
    const HjCudaOptions *cuda; /* the CUDA kinds: required                  */
} HjRequest;

enum {
    HJ_ENTRY_CALL = 0,
    HJ_ENTRY_UFUNC_LOOP = 1,
    HJ_ENTRY_CFUNC = 2,
    HJ_ENTRY_CUDA_KERNEL = 3,
    HJ_ENTRY_CUDA_DEVICE = 4,
};
#define HJ_ENTRY_IS_CUDA(k) ((k) == HJ_ENTRY_CUDA_KERNEL || (k) == HJ_ENTRY_CUDA_DEVICE)

typedef struct HjResult {
    /* on success */
    char *object;          /* relocatable object file bytes (malloc)          */
    size_t object_size;
    char *entry_symbol;    /* symbol of the entry wrapper: int32 (void*, void**) */
    char *rettype;         /* typecode of the return type                     */
    char *signature;       /* display form: "(float64, array(float64, 2d, C)) -> float64" */
    char *llvm_ir;         /* optional                                         */
    char *types_text;      /* optional: source annotated with variable types  */
    /* on failure */
    HjDiagKind diag_kind;  /* HJ_DIAG_NONE on success                          */
    char *diag_message;    /* full message: file:line:col, line, caret         */
    char *diag_filename;
    int diag_line, diag_col;
    double seconds_frontend, seconds_llvm; /* for HPCJIT_DEBUG_COMPILE         */
    /* seconds_llvm in parts: lowering to IR, the pass pipeline, instruction
     * selection and object emission, loading into the JIT (set by the
     * caller that loads; 0 when nothing is loaded) */
    double seconds_lower, seconds_opt, seconds_emit, seconds_load;
    int uses_mpi;          /* calls hpcjit.mpi: Python starts MPI before running it */
    int cuda_error_global; /* CUDA: the PTX defines __hpcjit_error (docs/CUDA.md) */
    /* on failure: an overload stub met an argument key it has no resolution
     * for: "<func index>\t<key>" (malloc); Python resolves it and compiles
     * again (python/hpcjit/extending.py) */
    char *need_overload;
} HjResult;

/* Compile one specialisation.  Returns 0 on success, -1 with
 * res->diag_* filled on failure.  Never exits, never touches Python. */
int hj_compile(const HjRequest *req, HjResult *res);
void hj_result_free(HjResult *res);

/* Parse a Numba-style signature string ("float64(float64[:], int64)" or a
 * bare argument tuple "(float64[:], int64)") into typecodes.  On success
 * *ret is the return typecode (NULL when absent) and args[0..*nargs) the
 * argument typecodes, all malloc'ed; returns 0.  On failure returns -1 and
 * sets *err (malloc'ed message). */
int hj_parse_signature(const char *sig, char **ret, char ***args, int *nargs, char **err);
/* Display form of a typecode ("array(float64, 2d, C)"); malloc'ed, NULL
 * for a malformed typecode. */
char *hj_typecode_display(const char *typecode);

/* Assembly text for LLVM IR text (for Dispatcher.inspect_asm()). */
char *hj_ir_to_asm(const char *llvm_ir, const HjTarget *target, char **err);
/* Object code for the host of LLVM IR text as it is (verified, not
 * optimised), for hj_jit_load; malloc'ed, *size its length; NULL with *err
 * (malloc'ed) on failure.  For code made outside the compiler: the @box and
 * @unbox functions of extension types (hpcjit/lowlevel.py). */
char *hj_ir_to_object(const char *llvm_ir, size_t *size, char **err);

/* The version of the LLVM the compiler was built with (part of cache keys). */
void hj_llvm_version(unsigned *major, unsigned *minor, unsigned *patch);

/* ---- loading object code into this process --------------------------- */
typedef struct HjJit HjJit;
typedef struct HjSymbol {
    const char *name;
    void *address;
} HjSymbol;

/* Create the process's JIT.  `runtime` lists the runtime functions compiled
 * code may call (absolute symbols); the C library and libm are found in the
 * process.  Returns NULL and sets *err on failure. */
HjJit *hj_jit_create(const HjSymbol *runtime, int nruntime, char **err);
void hj_jit_destroy(HjJit *jit);
/* Load object bytes (copied) and return the address of `symbol`, or NULL
 * with *err set.  Each load gets its own symbol namespace, so two loads
 * may define the same names. */
void *hj_jit_load(HjJit *jit, const char *object, size_t size, const char *symbol, char **err);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif
