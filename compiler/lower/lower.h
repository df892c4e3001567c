/* lower.h - private interface of the lowering (typed AST -> LLVM IR),
 * shared by lower.c (context, conversions, statements, functions),
 * lower_expr.c (expressions) and lower_builtin.c (builtins, arrays).
 *
 * Values: every lowered expression yields an LLVM value in its register
 * form (bool is i1) plus an `owned` flag that says whether the value holds
 * its own references to the arrays inside it (see docs/DESIGN.md).  An
 * owned value that is only used (indexed, passed, read) is registered as a
 * temporary and released after the use; temporaries live at a failing call
 * are released on the error path. */
#ifndef HPCJIT_LOWER_H
#define HPCJIT_LOWER_H

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>

#include "ast.h"

typedef struct LoopFrame {
    LLVMBasicBlockRef brk, cont;
} LoopFrame;

/* An inlined generator loop being lowered (infer_unroll.c): a `return` in
 * its generator body goes to `done` (the else clause, then `end`), a
 * `break` in the consuming body to `end`; `mark` counts the temporaries
 * live before it (the rest are released on those ways out). */
typedef struct LowerGen {
    Node *loop;
    LLVMBasicBlockRef done, end;
    int mark;
} LowerGen;

#define LOWER_MAX_LOOPS 256
#define HJ_MAX_NDIM_LOWER 32 /* HJ_MAX_NDIM of abi.h */

typedef struct Lower {
    Compilation *c;
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    LLVMBuilderRef b;
    /* cached types */
    LLVMTypeRef t_i1, t_i8, t_i32, t_i64, t_f32, t_f64, t_ptr, t_void, t_empty;
    LLVMTypeRef t_meminfo; /* HjMemInfo: {i64 refcnt, ptr data, i64 size, ptr, ptr} */
    /* the function being lowered */
    Spec *spec;
    LLVMValueRef fn;
    LLVMValueRef retptr;
    LLVMValueRef status;          /* alloca i32: what the exit block returns */
    LLVMBasicBlockRef entry_bb;   /* allocas */
    LLVMBasicBlockRef exit_bb;    /* releases the variables, returns status */
    unsigned fastmath;            /* LLVMFastMathFlags set on float ops (lower_fm) */
    int error_model;              /* 0 python, 1 numpy */
    bool boundscheck;
    bool poll_signals;            /* loops poll the runtime's signal flag (lower.c) */
    LoopFrame loops[LOWER_MAX_LOOPS];
    int nloops;
    LowerGen gens[64]; /* innermost last */
    int ngens;
    /* owned temporaries live now (values and their types) */
    PtrVec temps, temp_tys;
    /* the innermost try statement being lowered in this function: an
     * exception goes to its handlers instead of the exit (lower.c) */
    struct LowerTry *try_top;
    LLVMValueRef handler_buf; /* the innermost except clause's saved exception (bare raise) */
    /* the innermost try with a finally clause being lowered: a return,
     * break or continue leaving it runs the clause first (lower.c) */
    struct LowerFinally *fin_top;
    /* parameters that keep the caller's (borrowed) reference */
    PtrVec borrowed;
    /* a generator function lowered as a coroutine (lower_gen.c): its
     * object's MemInfo and header, the coroutine handle, the header's type,
     * the block every suspension leaves through and the one a destroy
     * releases the variables in */
    LLVMValueRef gen_mi, gen_hdr, gen_hdl;
    LLVMTypeRef gen_hdr_ty;
    LLVMBasicBlockRef gen_ret, gen_destroy;
    /* string constants, interned per module */
    int nstrings;
    /* > 0 while lowering an outlined prange body (lower_parallel.c): an
     * inner prange then runs serially, as in Numba */
    int par_depth;
    /* > 0 while lowering a fused group's statements one by one, behind its
     * shape test (operands of different shapes, broadcasting: rare): their
     * array loops are the strided nest alone, no flat copy (lower_arrayexpr.c) */
    int ae_nest_only;
    /* > 0 while lowering the body of an hpcjit.mpi.prange loop (lower_mpi.c) */
    int dist_depth;
    const Node *dist_call; /* the hpcjit.mpi.prange(...) of that loop */
    /* device mode (hpcjit.cuda, lower_device.c): no reference counting,
     * allocation, signal polling, stack checks or runtime exceptions */
    bool device;
    const HjCudaOptions *cuda; /* the request's options in device mode */
    LLVMValueRef err_global;   /* __hpcjit_error (debug=True), made on first use */
    const Node *at;            /* the statement or expression being lowered */
    int nshared;               /* cuda.shared.array call sites so far (lib/cuda) */
    /* lineinfo=True: line tables (PTX .loc) for the device code */
    LLVMDIBuilderRef dib;
    LLVMMetadataRef di_file, di_sp;
    /* C wrappers of specialisations made first-class function values
     * (TY_FUNCTION to TY_FUNCPTR), their bodies emitted last: the Spec *,
     * the wrapper's LLVMValueRef, the TY_FUNCPTR (lower.c) */
    PtrVec cwrap_specs, cwrap_fns, cwrap_tys;
} Lower;

/* ---- lower.c: types, helpers ---- */
LLVMTypeRef lower_type(Lower *L, Type *t);
/* lower_objmode.c: CPython's operation `handle` (hpcjit/objmode.h
 * RT_OBJMODE_*) on v of type vt, its result of type rt (owned). */
LLVMValueRef lower_pyop(Lower *L, const Node *n, int64_t handle, LLVMValueRef v, Type *vt, Type *rt);
/* ~v of an IntFlag member (t): CPython's, computed with the class's bits. */
LLVMValueRef lower_flag_invert(Lower *L, const Node *n, LLVMValueRef v, Type *t);
/* The address of a C function (the FunctionType `fp`'s ABI) calling
 * specialisation s: a first-class function value of s. */
LLVMValueRef lower_cfunc_wrapper(Lower *L, Spec *s, Type *fp);
LLVMTypeRef lower_mem_type(Lower *L, Type *t);
/* The type of one array element of dtype dt in memory, for element
 * addresses (GEP): lower_mem_type, except a record's [size x i8]. */
LLVMTypeRef lower_elem_type(Lower *L, Type *dt);
LLVMTypeRef lower_array_type(Lower *L, int ndim);
/* Record a lowering diagnostic at n (kind HJ_DIAG_UNSUPPORTED or
 * HJ_DIAG_LOWERING); returns NULL so callers can `return lower_fail(...)`. */
LLVMValueRef lower_fail(Lower *L, const Node *n, HjDiagKind kind, const char *fmt, ...)
    HJ_PRINTF(4, 5);
bool lower_failed(const Lower *L);

LLVMValueRef lower_call(Lower *L, LLVMTypeRef fnty, LLVMValueRef fn, LLVMValueRef *args,
                        unsigned n, const char *name);
LLVMValueRef lower_load(Lower *L, LLVMTypeRef ty, LLVMValueRef ptr, const char *name);
LLVMValueRef lower_gep(Lower *L, LLVMTypeRef ty, LLVMValueRef ptr, LLVMValueRef *idx,
                       unsigned n, const char *name);
LLVMValueRef lower_alloca(Lower *L, LLVMTypeRef ty, const char *name);
LLVMBasicBlockRef lower_block(Lower *L, const char *name);
/* Position the builder at bb (which must be empty or open). */
void lower_at(Lower *L, LLVMBasicBlockRef bb);
bool lower_terminated(Lower *L);
/* An internal helper function of the module emitted while another one is
 * (a container's hash or compare function): lower_helper_begin saves the
 * builder's place and the function-level state, adds `name` and positions
 * at its entry block; lower_helper_end goes back. */
typedef struct LowerSaved {
    LLVMValueRef fn;
    LLVMBasicBlockRef entry_bb, cur;
} LowerSaved;
LLVMValueRef lower_helper_begin(Lower *L, const char *name, LLVMTypeRef fnty, LowerSaved *sv);
void lower_helper_end(Lower *L, LowerSaved *sv);
/* The typecode of t (abi.h) in the compilation's arena: a name part for
 * helpers specialised per type. */
const char *lower_typecode(Lower *L, Type *t);
/* The runtime's suffix for container operations on items of type t
 * ("i64", "f64", "str": rt_list_append_i64...), NULL for other types. */
const char *lower_rt_suffix(const Type *t);
/* Declare (once) and call a runtime or libm function. */
LLVMValueRef lower_rt(Lower *L, const char *name, LLVMTypeRef ret, LLVMTypeRef *params,
                      unsigned n, LLVMValueRef *args);
/* lower_rt for a C math function of numbers only (libm's erf, lgamma...):
 * declared memory(none) nounwind willreturn, as clang's -fno-math-errno
 * does, so that LLVM may hoist a call of loop-invariant arguments out of a
 * loop and keep values in registers across it (errno is never read by
 * compiled code). */
LLVMValueRef lower_rt_math(Lower *L, const char *name, LLVMTypeRef ret, LLVMTypeRef *params,
                           unsigned n, LLVMValueRef *args);
/* Call an overloaded LLVM intrinsic ("llvm.sqrt") on `n` args of type ty. */
LLVMValueRef lower_intrinsic(Lower *L, const char *name, LLVMTypeRef *tys, unsigned ntys,
                             LLVMValueRef *args, unsigned n);
LLVMValueRef lower_cstr(Lower *L, const char *s);
LLVMValueRef lower_i64(Lower *L, int64_t v);
/* float `a` ** int64 `n` (infer kept the exponent an int): repeated
 * squaring, as Numba's int_power_impl (lower_expr.c). */
LLVMValueRef lower_float_int_pow(Lower *L, Type *t, LLVMValueRef a, LLVMValueRef n);
LLVMValueRef lower_i32(Lower *L, int32_t v);
/* Puts the loop hint {name, value} ("llvm.loop.vectorize.width", 16) on the
 * loop whose back edge is the branch `br`. */
void lower_loop_hint(Lower *L, LLVMValueRef br, const char *name, unsigned value);
/* Apply the spec's fast-math flags to a float instruction. */
LLVMValueRef lower_fm(Lower *L, LLVMValueRef v);
LLVMValueRef lower_zero(Lower *L, Type *t);

/* Conversion as an N_CAST does it (numbers, truth values, layouts). */
LLVMValueRef lower_convert(Lower *L, const Node *at, LLVMValueRef v, Type *from, Type *to);

/* ---- datetime64 / timedelta64 (lower_datetime.c) ----
 * Values are i64 counts of their unit, NaT INT64_MIN.  lower_dt_binop and
 * lower_dt_compare take the operands in their own types (ta, tb) and
 * op_ty, the type infer_datetime.c computes in; they return the result
 * (the node's type: a datetime, timedelta, float64 or int64) or the i1. */
LLVMValueRef lower_dt_isnat(Lower *L, LLVMValueRef v);
LLVMValueRef lower_dt_convert(Lower *L, const Node *at, LLVMValueRef v, Type *from, Type *to);
LLVMValueRef lower_dt_binop(Lower *L, const Node *at, OpKind op, Type *op_ty, LLVMValueRef a, Type *ta,
                            LLVMValueRef b, Type *tb);
LLVMValueRef lower_dt_compare(Lower *L, const Node *at, OpKind op, Type *op_ty, LLVMValueRef a, Type *ta,
                              LLVMValueRef b, Type *tb);
LLVMValueRef lower_dt_unary(Lower *L, OpKind op, LLVMValueRef v);
LLVMValueRef lower_truth(Lower *L, const Node *at, LLVMValueRef v, Type *from);
/* Register form <-> in-memory form (bool i1 <-> i8, element-wise in tuples). */
LLVMValueRef lower_to_mem(Lower *L, LLVMValueRef v, Type *t);
LLVMValueRef lower_from_mem(Lower *L, LLVMValueRef v, Type *t);

/* ---- reference counting ---- */
bool lower_has_refs(const Type *t);
void lower_incref(Lower *L, LLVMValueRef v, Type *t);
void lower_decref(Lower *L, LLVMValueRef v, Type *t);
/* Registers v as a live owned temporary when `owned` and t holds refs. */
void lower_temp(Lower *L, LLVMValueRef v, Type *t, bool owned);
int lower_temps_mark(Lower *L);
void lower_temps_release(Lower *L, int mark);
/* Forget the temporaries registered since `mark` without releasing them:
 * their references were handed over (into a tuple, a new array). */
void lower_temps_keep(Lower *L, int mark);
/* Forget the one temporary v (registered by lower_temp) without releasing
 * it, leaving the others (registered after it too) live. */
void lower_temp_handed_over(Lower *L, LLVMValueRef v);

/* ---- exits ---- */
/* Branch to the error exit when status (i32) is nonzero. */
/* br (a conditional branch) rarely takes its first successor. */
void lower_unlikely(Lower *L, LLVMValueRef br);
void lower_check_status(Lower *L, LLVMValueRef status);
/* Branch on cond (i1) to a new block where the builder is left to emit
 * the raise (then lower_goto_error); returns the block to continue in. */
LLVMBasicBlockRef lower_branch_raise(Lower *L, LLVMValueRef cond, const char *name);
/* if (cond) { rt_raise(type, msg); exit -1 } */
void lower_raise_if(Lower *L, LLVMValueRef cond, const char *type, const char *msg);
/* Unconditional: rt_raise(type, msg) and exit with -1. */
void lower_raise(Lower *L, const char *type, const char *msg);
/* Leave through the error exit from the current block. */
void lower_goto_error(Lower *L);

/* ---- signals (lower.c): loops answer Ctrl-C/SIGTERM ---- */
/* Before a loop: the runtime's signal flag address when `loop` (N_FOR,
 * N_WHILE, or a prange's N_FOR) polls it, else NULL. */
LLVMValueRef lower_poll_setup(Lower *L, const Node *loop);
/* At the loop's back edge: run a pending signal's handler, unwind if it raised. */
void lower_poll_signals(Lower *L, LLVMValueRef flagp);

/* ---- variables ---- */
/* Store v (of type `from`) into var; takes ownership when owned. */
void lower_store_var(Lower *L, const Node *at, Var *var, LLVMValueRef v, Type *from, bool owned);
/* Before a read of `v` at N_NAME `at`: UnboundLocalError when `at` is
 * marked maybe_unbound and no store has set v's flag.  false on failure. */
bool lower_check_bound(Lower *L, const Node *at, Var *v);

LLVMValueRef lower_range_len(Lower *L, LLVMValueRef start, LLVMValueRef stop, LLVMValueRef step);
/* Any integer (or bool) value as i64. */
LLVMValueRef lower_as_i64(Lower *L, const Node *at, LLVMValueRef v, Type *t);
/* range(...) call -> {start, stop, step} (checks step != 0). */
LLVMValueRef lower_range_value(Lower *L, Node *call);

/* ---- lower_expr.c ---- */
/* Lower an expression; *owned says whether the value holds its references. */
LLVMValueRef lower_expr(Lower *L, Node *n, bool *owned);
/* Lower and register an owned result as a temporary (value only used). */
LLVMValueRef lower_expr_use(Lower *L, Node *n);
/* Lower and return a value that owns its references. */
LLVMValueRef lower_expr_owned(Lower *L, Node *n);
LLVMValueRef lower_binop(Lower *L, const Node *at, OpKind op, Type *t, LLVMValueRef a,
                         LLVMValueRef b, Type **res_ty);
LLVMValueRef lower_cmp(Lower *L, const Node *at, OpKind op, Type *t, LLVMValueRef a,
                       LLVMValueRef b);
/* The integer predicate of comparison `op` (==, !=, <, <=, >, >=), signed or
 * unsigned; false (and *p untouched) for any other operator. */
bool lower_icmp_pred(OpKind op, bool is_signed, LLVMIntPredicate *p);

/* ---- lower_builtin.c ---- */
LLVMValueRef lower_builtin_call(Lower *L, Node *n, bool *owned);
/* lower_llvmir.c: a call of a portable @intrinsic (CALL_LLVMIR): its LLVM
 * IR text is parsed and linked into the module on the first call. */
LLVMValueRef lower_llvmir_call(Lower *L, Node *n);
/* lower_objmode.c: a `with objmode` block's call (CALL_PYCALL); whether
 * the compilation holds one; around a parallel loop, let the GIL go
 * (token NULL: nothing to do) and take it back */
LLVMValueRef lower_pycall(Lower *L, Node *n, bool *owned);
bool lower_objmode_used(Lower *L);
LLVMValueRef lower_objmode_unlock(Lower *L);
void lower_objmode_relock(Lower *L, LLVMValueRef token);
LLVMValueRef lower_attribute(Lower *L, Node *n, bool *owned);
/* Element pointer of arr[idx...] (k == ndim) after wrap-around and bounds
 * checks; or, with k < ndim, a view (owned). */
LLVMValueRef lower_subscript(Lower *L, Node *n, bool *owned);
/* arr[idx...] = v (v of type t): one element, or with fewer indices than
 * dimensions every element of the sub-array. */
bool lower_store_subscript(Lower *L, Node *n, LLVMValueRef v, Type *t);
/* Pointer to the element addressed by subscript node n (a store target). */
/* The array value (no meminfo, no parent: nothing owned) over `data` with
 * shape dims[aty->ndim] and contiguous strides in aty's layout (F for
 * LAYOUT_F, else C): cuda.shared/local arrays, carray/farray. */
LLVMValueRef lower_array_over(Lower *L, Type *aty, LLVMValueRef data, LLVMValueRef *dims);
LLVMValueRef lower_subscript_ptr(Lower *L, Node *n, Type **elty);
/* Element i (i64) of the first axis of arr: a scalar or a view (owned). */
LLVMValueRef lower_array_item(Lower *L, const Node *at, LLVMValueRef arr, Type *aty,
                              LLVMValueRef i, Type **ety, bool *owned);
LLVMValueRef lower_array_field(Lower *L, LLVMValueRef arr, unsigned field, const char *name);
/* The element at indices idx[0..ndim) known to be in range (no wrap-around,
 * no bounds check). */
LLVMValueRef lower_elem_at(Lower *L, LLVMValueRef arr, Type *aty, LLVMValueRef *idx);
LLVMValueRef lower_array_dim(Lower *L, LLVMValueRef arr, unsigned which, int k);
LLVMValueRef lower_len(Lower *L, const Node *at, LLVMValueRef v, Type *t);

/* A new array of type aty, shape dims[0..ndim) (dims needs ndim+1 slots:
 * scratch); owned.  Raises ValueError/MemoryError on bad sizes. */
LLVMValueRef lower_alloc_array(Lower *L, Type *aty, LLVMValueRef *dims, bool zeroed);

/* ---- lower_record.c: structured dtypes (a record is a pointer to its bytes) ---- */
/* The value of a field of type ft at p (a record field: p itself); store
 * v there (a record: its bytes copied). */
LLVMValueRef lower_record_load(Lower *L, LLVMValueRef p, Type *ft);
void lower_record_put(Lower *L, LLVMValueRef p, LLVMValueRef v, Type *ft);
/* The address of the field an ATTR_RECORD_FIELD node n names, *fty its type. */
LLVMValueRef lower_record_field_ptr(Lower *L, Node *n, Type **fty);
/* ATTR_RECORD_FIELD (a field's value) and ATTR_ARRAY_FIELD (a view, owned). */
LLVMValueRef lower_record_attr(Lower *L, Node *n, bool *owned);
/* r.f = v (target an ATTR_RECORD_FIELD node, v of type t). */
bool lower_record_store(Lower *L, Node *target, LLVMValueRef v, Type *t);

/* ---- lower_text.c: print() and f-string messages ---- */
LLVMValueRef lower_print_call(Lower *L, Node *n);
/* Raise `type` with the f-string `msg` as its message; leaves through the
 * error exit. */
bool lower_raise_fstring(Lower *L, Node *msg, const char *type);
/* A str literal (nbytes of UTF-8) as an immortal native str (hpcjit/str.h
 * LITERALS): a borrowed `ptr`. */
LLVMValueRef lower_str_const(Lower *L, const char *s, int64_t nbytes);
/* An f-string as a new str (owned); NULL after a failure. */
LLVMValueRef lower_fstring_value(Lower *L, Node *f);

/* ---- lower_index.c: subscripts with idx_kind != IDX_INT ---- */
LLVMValueRef lower_index_expr(Lower *L, Node *n, bool *owned);
/* n[...] = v: v a scalar of type t, or (mask/fancy targets) a 1-D array. */
bool lower_index_store(Lower *L, Node *n, LLVMValueRef v, Type *t);
/* The destination view of an IDX_BASIC store target (type n->op_ty); owned. */
LLVMValueRef lower_index_view(Lower *L, Node *n);
/* The same view without a reference of its own: only for a destination
 * used within the statement (its base is a variable or one of the
 * statement's temporaries, alive until the statement ends). */
LLVMValueRef lower_index_view_borrowed(Lower *L, Node *n);
/* A 1-D read a[idx] of integer-array idx, left as its parts so that a
 * consumer (lower_linalg.c's gather-dot) reads the items in place instead
 * of copying them: the base's data, length and byte stride along the
 * selected axis (`axis` of the error message), and idx's data, length,
 * byte stride and dtype.  lower_fancy_gathers(n) says whether n is such a
 * read; lower_fancy_gather evaluates it as far as the copy would before
 * its bounds checks, which the consumer makes (NULL fields after a failure). */
typedef struct LowerGather {
    LLVMValueRef data, len, stride, idx, nidx, istride;
    Type *ity;
    int axis;
} LowerGather;
bool lower_fancy_gathers(const Node *n);
bool lower_fancy_gather(Lower *L, Node *n, LowerGather *g);

/* ---- lower_arrayexpr.c: fused array expressions (area "arrexpr") ---- */
/* An N_ARRAYEXPR (or an unfused elementwise array node): a new array, owned. */
LLVMValueRef lower_arrayexpr(Lower *L, Node *n, bool *owned);
/* `t op= v` on an array target, in place. */
bool lower_ae_augassign(Lower *L, Node *n);
/* `t[...] = v` with an IDX_BASIC target and an array (expression) v:
 * v broadcast into the view (ValueError when it does not fit). */
bool lower_ae_is_store(const Node *target, const Node *value);
bool lower_ae_assign(Lower *L, Node *target, Node *v);
/* Calls typed by infer_arrayexpr.c (ufuncs, scalar or array). */
bool lower_ae_is_ufunc_call(const Node *n);
/* N_FUSED (lower_arrayexpr.c): 2 with the group lowered, one nest for
 * every shape; 1 with the fused nest emitted behind a shape test and the
 * builder at *plain (the statements one by one, for the caller), both
 * paths meeting at *join; 0 when it is not fused here (nothing emitted:
 * lower the statements); -1 on error. */
int lower_fused(Lower *L, Node *g, LLVMBasicBlockRef *plain, LLVMBasicBlockRef *join);
/* arr.real / arr.imag: a view (complex arrays), arr itself or new zeros; owned. */
LLVMValueRef lower_ae_real_imag(Lower *L, Node *n, LLVMValueRef arr, bool *owned);
LLVMValueRef lower_ae_call(Lower *L, Node *n, bool *owned);
/* An N_ARRAYEXPR read element by element by another loop nest (a reduction
 * that fuses it, lib/np), never stored: lower_ae_open evaluates the leaves
 * (temporaries of the statement) and fills shape[0..ndim) with the checked
 * broadcast shape (NULL on error); lower_ae_at is the element at index
 * idx[0..ndim), in the expression's dtype, emitted where the builder is. */
typedef struct AeSrc AeSrc;
AeSrc *lower_ae_open(Lower *L, Node *n, LLVMValueRef *shape);
LLVMValueRef lower_ae_at(Lower *L, AeSrc *s, LLVMValueRef *idx);
/* i1: every array leaf contiguous with the shape lower_ae_open filled;
 * then lower_ae_at_flat(i) is the element at flat (C order) index i. */
LLVMValueRef lower_ae_flat_ok(Lower *L, AeSrc *s, LLVMValueRef *shape);
LLVMValueRef lower_ae_at_flat(Lower *L, AeSrc *s, LLVMValueRef i);

/* ---- lower.c, for lower_parallel.c ---- */
bool lower_body(Lower *L, PtrVec *body);
/* Assign v (of type t) to an assignment target (name, subscript, tuple). */
bool lower_assign(Lower *L, Node *target, LLVMValueRef v, Type *t, bool owned);

/* ---- lower_parallel.c: prange loops of parallel=True functions ---- */
/* An N_FOR with n->par set: outlined onto the pool (infer/parallel.h). */
bool lower_parallel_for(Lower *L, Node *n);
/* Library loops (array expressions, whole-array reductions) of a
 * parallel=True function may run on the pool: not inside a prange body. */
bool lower_par_library(Lower *L);
/* Emits the loop over [begin, end) of the outlined body; vals are the
 * caller's values reloaded in the body (same order).  False after
 * lower_fail.  The body may raise (lower_check_status, lower_goto_error):
 * the pool stops the loop and the caller raises the exception's type and
 * message. */
typedef bool (*LowerParEmit)(Lower *L, void *arg, LLVMValueRef *vals, LLVMValueRef begin, LLVMValueRef end);
/* Run emit's loop over [0, n) on the pool, on at most n / grain threads
 * (rt_parallel_for_grain); what names the outlined function. */
bool lower_par_range(Lower *L, const char *what, LLVMValueRef n, LLVMValueRef grain, int nvals, LLVMValueRef *vals,
                     LowerParEmit emit, void *arg);
/* Elements below which a library loop stays on the calling thread, and
 * the least each thread gets: 2^14 (a fork/join costs a few microseconds). */
#define LOWER_PAR_GRAIN 16384
/* The reduction identity and a op b (Python's min/max rule) for a ParRedOp
 * (parallel.h), for lower_mpi.c */
LLVMValueRef lower_par_identity(Lower *L, Type *t, int op);
LLVMValueRef lower_par_combine(Lower *L, const Node *at, Type *t, int op, LLVMValueRef a, LLVMValueRef b);

/* ---- lower_gen.c: generator objects (TY_GENERATOR, hpcjit/generator.h) ----
 * A Spec with is_gen is a coroutine: lower_spec calls lower_gen_begin
 * after the variables' slots (allocates the object, fills its header),
 * lower_gen_start after the parameters (the suspension before the body)
 * and lower_gen_finish in the exit block after the variables are released
 * (records DONE or ERROR, the final suspension); each `yield` statement of
 * its own body is lower_gen_yield. */
bool lower_gen_begin(Lower *L, Spec *s);
void lower_gen_start(Lower *L);
bool lower_gen_yield(Lower *L, Node *y);
void lower_gen_finish(Lower *L);
/* Resume generator object g: an i1, true when it yielded a value (which
 * lower_gen_value then reads, owned when it holds references), false when
 * it is exhausted; when it raised, control went to the error exit. */
LLVMValueRef lower_gen_resume(Lower *L, LLVMValueRef g);
LLVMValueRef lower_gen_value(Lower *L, LLVMValueRef g, Type *item);
/* next(g) / next(g, default) (BI_NEXT); for x in g over a generator object. */
LLVMValueRef lower_gen_next(Lower *L, Node *n, bool *owned);
bool lower_gen_for(Lower *L, Node *n);

/* ---- lower.c: a for loop (serial, or outlined when n->par) ---- */
bool lower_for_loop(Lower *L, Node *n);

/* ---- lower_device.c: device mode (hpcjit.cuda, docs/CUDA.md) ---- */
/* lower_rt in device mode: raises record __hpcjit_error (debug), libm
 * becomes libdevice (__nv_*), reference counting vanishes, anything else
 * is an UnsupportedError at L->at. */
LLVMValueRef lower_device_rt(Lower *L, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, unsigned n,
                             LLVMValueRef *args);
/* lower_intrinsic in device mode: the libdevice function for intrinsics
 * NVPTX cannot select (llvm.sin, llvm.exp, llvm.pow...), or NULL. */
const char *lower_device_libcall(const char *intrinsic, LLVMTypeRef ty, char *buf, size_t size);
/* The kernel (HJ_ENTRY_CUDA_KERNEL) or device function (HJ_ENTRY_CUDA_DEVICE)
 * wrapper with the flattened parameters of docs/CUDA.md. */
bool lower_cuda_entry(Lower *L, Spec *s, const char *symbol);
/* lineinfo: start the line tables (lower_program), give spec s its
 * subprogram (lower_spec), locate what is built next at n (statements and
 * expressions), finish them (before the module is verified).  No-ops
 * without lineinfo. */
void lower_device_debug_begin(Lower *L);
void lower_device_debug_spec(Lower *L, Spec *s);
void lower_device_debug_loc(Lower *L, const Node *n);
void lower_device_debug_end(Lower *L);
/* A global array in device memory: addrspace 1, or 4 (constant) when
 * constant; returns the generic pointer to it. */
LLVMValueRef lower_device_global(Lower *L, LLVMTypeRef ty, const char *name, unsigned addrspace, LLVMValueRef init);

enum { ARR_MEMINFO, ARR_PARENT, ARR_NITEMS, ARR_ITEMSIZE, ARR_DATA, ARR_SHAPE, ARR_STRIDES };

#endif
