/* ast.h - syntax tree (parse_ module builds it, infer_ annotates it,
 * lower_ reads it).
 *
 * One Node struct for statements and expressions (chibicc style); each kind
 * lists the fields it uses.  Every node has a SrcLoc.  Lists are PtrVec of
 * Node*.
 *
 * THE TYPED-AST CONTRACT (what inference guarantees to lowering)
 * --------------------------------------------------------------
 * After infer_function() succeeds for a Spec:
 *  - every expression node reachable from the function body has `ty` set to
 *    a concrete type (never TY_UNKNOWN);
 *  - every N_NAME that is a local has `var` set (var->ty is the variable's
 *    single unified type); a global/builtin name has `ty` set to its
 *    (constant-like) type and `cval`/`builtin` filled as for N_CONST /
 *    TY_BUILTIN; no other name kinds remain;
 *  - implicit conversions are explicit N_CAST nodes: the value of an
 *    assignment has its target's type, binary operands have `op_ty`
 *    (wrapped in casts to it), call arguments match parameter types,
 *    returned values have the spec's return type, conditions are bool
 *    (N_CAST to bool = truth value);
 *  - every N_CALL has `call_kind` and the fields that kind names;
 *  - constant folding of module constants (math.pi, np.nan) and frozen
 *    numeric globals yields N_CONST nodes with `ty` and `cval`.
 * Lowering contains no type rules: it switches on node kinds, call kinds,
 * builtin ids and types only.
 */
#ifndef HPCJIT_AST_H
#define HPCJIT_AST_H

#include "diag.h"
#include "token.h"
#include "types.h"

typedef enum BuiltinId {
#define BUILTIN(id, name) id,
#include "builtins.def"
#undef BUILTIN
    BI_COUNT
} BuiltinId;

/* Operators of N_BINOP / N_AUGASSIGN / N_UNARYOP / N_COMPARE. */
typedef enum OpKind {
    OP_NONE,
    OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD, OP_POW, OP_MATMUL,
    OP_LSHIFT, OP_RSHIFT, OP_BITAND, OP_BITOR, OP_BITXOR,
    /* unary */
    OP_NEG, OP_POS, OP_INVERT, OP_NOT,
    /* comparison */
    OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_IS, OP_ISNOT, OP_IN, OP_NOTIN,
    /* boolean */
    OP_AND, OP_OR,
} OpKind;

typedef enum NodeKind {
    /* ---- statements ---- */
    N_FUNCDEF,   /* name, params (N_PARAM list), body, decorators (exprs), a = returns annotation or NULL,
                    is_async */
    N_PARAM,     /* name, a = default or NULL, b = annotation or NULL, flags: is_star, is_kwstar, is_kwonly, is_posonly */
    N_RETURN,    /* a = value or NULL; is_from: ends an inlined generator */
    N_ASSIGN,    /* targets (one or more exprs: x = y = v), a = value */
    N_AUGASSIGN, /* a = target, b = value, op */
    N_ANNASSIGN, /* a = target, b = annotation, c = value or NULL */
    N_FOR,       /* a = target, b = iter, body, orelse; literal_unroll (is_star):
                    targets = one N_FOR per tuple element (a, body renamed);
                    an inlined generator (is_from): finalbody = its body
                    (infer_unroll.c) */
    N_WHILE,     /* a = cond, body, orelse */
    N_IF,        /* a = cond, body, orelse (an elif is an N_IF alone in orelse) */
    N_BREAK,     /* - */
    N_CONTINUE,  /* - */
    N_PASS,      /* - */
    N_RAISE,     /* a = exception or NULL, b = cause (from) or NULL */
    N_ASSERT,    /* a = test, b = message or NULL */
    N_EXPR,      /* a = expression */
    N_DEL,       /* targets                                             [unsupported] */
    N_GLOBAL,    /* names (char* list)                                  [unsupported] */
    N_NONLOCAL,  /* names (char* list)                                  [unsupported] */
    N_IMPORT,    /* names (char* list, dotted), aliases (char* or NULL);
                    from-import: is_from, name = module (leading dots kept) [unsupported] */
    N_WITH,      /* args = items (exprs), targets = their `as` targets (NULL
                    where absent), body, flags: is_async                 [unsupported] */
    N_TRY,       /* body, handlers (N_HANDLER), orelse, finalbody */
    N_HANDLER,   /* a = type or NULL, name or NULL, body, is_star (except*); after
                    inference: names = the exception class names it catches (char*) */
    N_CLASSDEF,  /* name, args (bases), keywords, body, decorators      [unsupported] */
    N_MATCH,     /* a = subject (cases are skipped)                     [unsupported] */
    /* ---- expressions ---- */
    N_NAME,      /* name; after inference: var (local) or ty/cval/builtin (global) */
    N_CONST,     /* cval (CVAL_*), ty after inference */
    N_BINOP,     /* op, a, b; after inference: op_ty (operand type) */
    N_UNARYOP,   /* op, a; op_ty */
    N_BOOLOP,    /* op (OP_AND/OP_OR), args (2 or more operands) */
    N_COMPARE,   /* a = left, args = comparators, ops (OpKind per comparator: ops[i]);
                    after inference: op_tys[i] is the type comparison i is done
                    in; lowering converts both sides to it exactly as an N_CAST
                    would (operands of a chain are evaluated once) */
    N_IFEXP,     /* a = cond, b = body, c = orelse */
    N_CALL,      /* a = func, args, keywords (N_KEYWORD), flags: has_star; after
                    inference call_kind (+ fields it names) */
    N_KEYWORD,   /* name (NULL for **kw), a = value */
    N_ATTRIBUTE, /* a = value, name; after inference attr_kind */
    N_SUBSCRIPT, /* a = value, b = index (an N_TUPLE for x[i, j]) */
    N_SLICE,     /* a = lower, b = upper, c = step (each may be NULL) */
    N_TUPLE,     /* args = elements */
    N_LIST,      /* args                                                [unsupported] */
    N_DICT,      /* args = keys, args2 = values                         [unsupported] */
    N_SET,       /* args                                                [unsupported] */
    N_STARRED,   /* a                                                   [unsupported outside calls] */
    N_LAMBDA,    /* params, a = body                                    [unsupported] */
    N_COMP,      /* comprehension/generator: comp_kind, a = elt, b = value (dict), generators (N_COMPFOR) [unsupported] */
    N_COMPFOR,   /* a = target, b = iter, args = ifs, flags: is_async    */
    N_NAMEDEXPR, /* a = target (N_NAME), b = value                      */
    N_YIELD,     /* a = value or NULL, flags: is_from; as a statement of an
                    inlined generator: body = the consuming loop's body */
    N_AWAIT,     /* a                                                   [unsupported] */
    N_FSTRING,   /* args = parts (N_CONST strings and N_FORMATTED)      [unsupported outside raise messages] */
    N_FORMATTED, /* a = value, b = format spec (an N_FSTRING) or NULL,
                    name = conversion "r"/"s"/"a" or NULL               */
    /* ---- inserted by inference ---- */
    N_CAST,      /* a = operand; ty = target type, a->ty = source type.  To
                    bool: truth value (x != 0, len != 0 for arrays...). */
    N_ARRAYEXPR, /* a = root of a fused elementwise tree; ty = its array type
                    (infer_arrayexpr.c; docs/TYPED_AST.md "Array expressions") */
    N_FUSED,     /* a statement: body = two or more consecutive `name = <N_ARRAYEXPR>`
                    assignments computed in one loop nest (infer_fuse.c); their
                    N_NAME targets' fused_keep, the reads of earlier targets
                    inside their trees fused_ref (docs/TYPED_AST.md "Fused
                    array statements") */
    N_COUNT
} NodeKind;

typedef enum CvalKind {
    CVAL_INT,     /* i (overflow: the literal did not fit int64: a uint64 when
                     is_u64, its bits in i, as Numba types it; else an error) */
    CVAL_FLOAT,   /* f */
    CVAL_COMPLEX, /* f (real), f_imag */
    CVAL_BOOL,    /* i (0/1) */
    CVAL_NONE,
    CVAL_STR,     /* s, slen (bytes: is_bytes) */
    CVAL_ELLIPSIS,
    CVAL_NPDT,    /* i: the count of a datetime64/timedelta64 global (a frozen
                     constant), its type already in the node's ty */
} CvalKind;

typedef struct Cval {
    CvalKind kind;
    int64_t i;
    double f, f_imag;
    const char *s;
    int slen;
    bool is_bytes, overflow, is_u64;
} Cval;

/* After inference, what a call does.  Fields each kind uses: */
typedef enum CallKind {
    CALL_UNRESOLVED,
    CALL_BUILTIN,   /* builtin (BuiltinId), args (already cast), self_node for
                       methods (the receiver expression), kw_args: keyword
                       arguments resolved to positional slots by inference
                       (args has NULL for absent optional arguments) */
    CALL_FUNC,      /* spec (the callee's Spec), args cast to its parameter types */
    CALL_EXC,       /* exception construction: ty is TY_EXC_VALUE; args holds
                       the message (N_CONST string or N_FSTRING), or none; an
                       N_FSTRING encoding the arguments when they are not one
                       message (abi.h HJ_EXC_ARGS_MARK) */
    CALL_DTYPE,     /* np.float64(x): conversion; ty is the scalar type, args[0] */
    CALL_FUNCSET,   /* a = the callee (a TY_FUNCSET value), specs: one per
                       function of the set (same order), args as CALL_FUNC */
    CALL_FUNCPTR,   /* a = the callee (a TY_FUNCPTR value), args cast to its
                       argument types: an indirect call of the C function */
    CALL_PYCALL,    /* an objmode block (HJ_STUB_PYCALL): cval.i is the stub's
                       function index (its handle); args are the inputs,
                       boxed; op_ty their tuple type; ty is the outputs'
                       tuple (lower_objmode.c) */
    CALL_LLVMIR,    /* a portable @intrinsic (HJ_STUB_LLVMIR): cval.i is the
                       stub's function index; args cast to its parameter
                       types (lower_llvmir.c) */
    CALL_ELEMWISE,  /* an overload resolved elementwise (HjStubImpl.elementwise:
                       a @vectorize function on arrays): spec = the element
                       function, typed on the arguments' element types; args
                       NOT cast (arrays and numbers, possibly elementwise
                       nodes of the same tree); ty = array(spec->ret, largest
                       ndim, C).  An elementwise node of an array expression
                       (infer_arrayexpr.c, lower_arrayexpr.c) */
} CallKind;

/* After inference, what an attribute access is. */
typedef enum AttrKind {
    ATTR_UNRESOLVED,
    ATTR_CONST,         /* folded into cval (math.pi, np.nan) - node kind stays
                           N_ATTRIBUTE; lowering treats it as a constant */
    ATTR_MODULE,        /* a submodule or module function: no runtime value */
    ATTR_LIB_VALUE,     /* a feature's value named as a module attribute
                           (cuda.threadIdx.x): builtin, lowered by its
                           feature's lower_call (registry.h infer_value) */
    ATTR_ARRAY_SHAPE,   /* tuple of ndim int64 */
    ATTR_ARRAY_STRIDES, /* tuple of ndim int64 */
    ATTR_ARRAY_NDIM,    /* int64 constant */
    ATTR_ARRAY_SIZE,    /* int64 */
    ATTR_ARRAY_DTYPE,   /* TY_DTYPE, no runtime value (a.dtype, a.dtype.type) */
    ATTR_ARRAY_ITEMSIZE,/* int64 constant */
    ATTR_ARRAY_NBYTES,  /* int64: size * itemsize */
    ATTR_ARRAY_CTYPES,  /* a.ctypes: a CPointer of the dtype to the data,
                           borrowed (Numba's ArrayCTypes passed to a C function) */
    ATTR_ARRAY_FLAT,    /* a.flat as the iterable of a for loop: ty is a's type */
    ATTR_COMPLEX_REAL,  /* real part of a complex (or the number itself) */
    ATTR_COMPLEX_IMAG,  /* imaginary part (0 for reals) */
    ATTR_METHOD,        /* bound method: ty is TY_BOUND_METHOD */
    ATTR_OVERLOAD_METHOD, /* a method of hpcjit.extending.overload_method: ty is
                           TY_FUNCTION of the stub; the call passes a as self */
    ATTR_ARRAY_REAL,    /* arr.real: complex -> a view of the real parts (A layout), real -> arr */
    ATTR_ARRAY_IMAG,    /* arr.imag: complex -> a view of the imaginary parts, real -> new zeros */
    ATTR_TUPLE_FIELD,   /* a named tuple's field by name: cval.i is its index */
    ATTR_JC_FIELD,      /* a jitclass instance's field as an assignment target: cval.i is its index */
    ATTR_RECORD_FIELD,  /* a record's field (r.f, r['f'], r[0]): cval.i is its index; a
                           value, or an assignment target */
    ATTR_ARRAY_FIELD,   /* arr.f of an array of records: a strided view of field cval.i */
} AttrKind;

/* After inference, the form of an array subscript (N_SUBSCRIPT on an
 * array); docs/TYPED_AST.md "Indexing and views" has the details. */
typedef enum IndexKind {
    IDX_INT,    /* b = int64 or N_TUPLE/tuple of int64 (k <= ndim): the original form */
    IDX_BASIC,  /* b = N_TUPLE of items, one per source axis plus newaxes:
                   int64 expr | N_SLICE (a/b/c int64 or NULL) | N_CONST None.
                   Ellipsis expanded, trailing axes padded: a view */
    IDX_MASK,   /* b = bool array of a's ndim: a 1-D C copy of the selected items */
    IDX_FANCY,  /* b = N_TUPLE as IDX_BASIC, exactly one item is a 1-D int or
                   bool array (other axes as IDX_BASIC): a C copy */
} IndexKind;

typedef struct Spec Spec;
typedef struct Var Var;

typedef struct Node Node;
struct Node {
    NodeKind kind;
    SrcLoc loc;
    /* children and data, used per kind as listed in NodeKind */
    Node *a, *b, *c;
    PtrVec body, orelse, finalbody, handlers;
    PtrVec args, args2, keywords, targets, params, decorators, generators;
    PtrVec names, aliases; /* char* */
    const char *name;
    const HjFunction *env_hf; /* N_NAME of an inlined generator: whose globals it names */
    OpKind op;
    OpKind *ops;       /* N_COMPARE: one per comparator */
    Cval cval;
    int comp_kind;     /* N_COMP: 0 list, 1 set, 2 dict, 3 generator */
    unsigned is_star : 1, is_kwstar : 1, is_kwonly : 1, is_posonly : 1, has_star : 1,
        is_async : 1, is_from : 1;
    unsigned maybe_unbound : 1; /* N_NAME read that some path reaches with the
                                   name unassigned (infer_ssa.c): lowering
                                   tests the Var's defined flag */
    unsigned fused_keep : 1; /* N_NAME target of an N_FUSED statement: the array
                                is read after the group (stored), else only its
                                elements inside the nest are */
    unsigned fused_ref : 1;  /* N_NAME leaf of an N_FUSED tree reading an earlier
                                statement's target: that statement's element */
    unsigned closure_args : 1; /* N_CALL of a TY_CLOSURE value: its environment's
                                  items were put first in args (infer_call.c) */
    unsigned star_packed : 1;  /* N_CALL of a function with *args: the arguments
                                  past its other parameters are one N_TUPLE now */
    unsigned self_in_args : 1; /* N_CALL whose slots infer_store_slots stored (final
                                  pass): a method's receiver is args[0] now, so a
                                  second typing of the call passes no self */
    unsigned lit_container : 2; /* N_TUPLE made of a heterogeneous display given
                                   to an overload (infer_literal.c): 1 a list
                                   (LiteralList), 2 a dict with str keys
                                   (LiteralStrKeyDict; args2 = the keys) */

    /* ---- set by inference ---- */
    Type *ty;          /* type of an expression */
    Type *op_ty;       /* N_BINOP/N_UNARYOP: type the operation is done in;
                          CALL_PYCALL: the inputs' tuple */
    Type **op_tys;     /* N_COMPARE: per comparison */
    Var *var;          /* N_NAME (local), N_FOR target names are N_NAMEs */
    CallKind call_kind;
    BuiltinId builtin;
    Spec *spec;        /* CALL_FUNC */
    Spec **specs;      /* CALL_FUNCSET */
    Node *self_node;   /* CALL_BUILTIN on a method: the receiver */
    AttrKind attr_kind;
    IndexKind idx_kind; /* N_SUBSCRIPT on an array (infer_index.c) */
    void *lower_data;  /* scratch for lowering */
    void *par;         /* N_FOR over prange under parallel=True: ParLoop*
                          (infer/parallel.h, infer_parallel.c) */
    void *dist;        /* N_FOR over hpcjit.mpi.prange: ParLoop* of its
                          reductions, allreduced after the loop (infer_mpi.c) */
};

/* A local variable of one specialisation. */
struct Var {
    const char *name;
    Type *ty;          /* unified over every assignment */
    bool is_param;
    int param_index;
    SrcLoc first_def;
    Type *decl;        /* @njit(locals={name: type}): every assignment converts
                          to it (all SSA versions of the name), or NULL */
    PtrVec shares;     /* Var*: the variables whose container it was assigned
                          (`b = acc`) while that container's items were unknown;
                          widening it widens them (infer_widen_var) */
    void *slot;        /* lowering: the alloca (LLVMValueRef) */
    bool defflag;      /* some read may find it unassigned (N_NAME.maybe_unbound):
                          lowering keeps an i1 "assigned" flag in defslot */
    void *defslot;
    bool read;         /* some expression reads it (name_expr): an empty
                          container never read may keep unknown items */
};

/* One compiled specialisation of one function for one tuple of argument
 * types.  All nodes of `fn` belong to this Spec alone (each Spec parses its
 * own copy of the source, so annotations never clash). */
typedef enum SpecState { SPEC_NEW, SPEC_INFERRING, SPEC_DONE } SpecState;
struct Spec {
    int func;          /* index into HjRequest.funcs */
    const HjFunction *hf;
    SrcFile file;
    Node *fn;          /* N_FUNCDEF */
    Type **argtys;
    int nargs;
    Node **lits;       /* NULL, or per parameter the N_CONST (int, bool, str)
                          it is the literal of (literally(): infer_literal.c);
                          reads of such a parameter are that constant */
    Type *ret;         /* unified over every return (None when it falls off the end) */
    Type *explicit_ret;/* from a signature, or NULL */
    PtrVec vars;       /* Var*, parameters first */
    SpecState state;
    bool provisional;  /* inferred while a spec it calls was still in progress */
    bool recursive;    /* re-entered while being inferred: on a call cycle (its
                          entry checks the stack: RecursionError, not a crash) */
    bool is_gen;       /* a generator function: `ret` is TY_GENERATOR of
                          `yield_ty`, the function is lowered as a coroutine
                          (lower_gen.c) that makes the generator object */
    Type *yield_ty;    /* is_gen: the unified type of its yields */
    bool incomplete;   /* called with an argument whose type has unknown
                          parts (an empty list, dict or set): typed without
                          its final pass only so that the caller learns what
                          the body puts into it (infer_spec_param); never
                          lowered, dropped from `specs` when inference ends */
    char *symbol;      /* LLVM name of the function */
    void *llvm_fn;     /* lowering: LLVMValueRef */
    Spec *next;        /* list of all specs of a compilation */
    /* inference bookkeeping (infer.c): the nesting level while
     * SPEC_INFERRING, and the lowest level of an unfinished spec it
     * depends on (recursion through calls) */
    int infer_level, infer_low;
};

/* The state of one hj_compile() call, shared by the passes. */
typedef struct Compilation {
    Arena arena;
    TyCtx *tc;
    Diag diag;
    const HjRequest *req;
    Spec *specs;       /* every specialisation, entry first */
    Spec *entry;
    int depth;         /* nesting of inference through calls (bounded) */
    bool uses_mpi;     /* some spec calls hpcjit.mpi (HjResult.uses_mpi) */
    bool uses_pyops;   /* some spec asks CPython through the objmode hook
                          (lower_pyop: an IntEnum member's repr, ~ of an
                          IntFlag member): a parallel loop lets the GIL go */
    int entry_kind;    /* HjRequest.entry_kind: the wrapper lower_program makes */
    const char *need_overload; /* HjResult.need_overload (infer_extend.c,
                                  infer_literal.c) */
    Node **entry_lits; /* the entry's literal arguments (typecode suffixes), or NULL */
    int nentry_lits;
    /* per entry argument, NULL or the text of the value it always has: a
     * parameter the caller left to its default (a typecode then '=' and
     * the value, HjRequest.argtypes), made a constant by the entry wrapper
     * as Numba's Omitted arguments are */
    const char **arg_const;
} Compilation;

/* ---- parse_ ---- */
/* Parse a module-level source holding one `def` (decorators allowed) into
 * an N_FUNCDEF.  NULL with a diagnostic on error.  Nesting of expressions
 * and blocks is bounded (diagnostic "too many nested parentheses" etc.). */
Node *parse_function(Arena *a, const SrcFile *file, Diag *d);
/* Parse a whole module (for tests): a list of statements. */
bool parse_module(Arena *a, const SrcFile *file, Diag *d, PtrVec *out);
Node *ast_new(Arena *a, NodeKind k, SrcLoc loc);
/* A deep copy of an expression (a, b, c, args, args2, keywords), made
 * before typing: the copy carries no inference annotations of its own. */
Node *ast_clone_expr(Arena *a, const Node *n);
/* A deep copy of a statement or expression with every child list (bodies,
 * handlers, targets...), made before typing as ast_clone_expr. */
Node *ast_clone(Arena *a, const Node *n);
/* Readable dump of a tree, for golden tests and debugging. */
void ast_dump(StrBuf *b, const Node *n, int indent);
const char *ast_kind_name(NodeKind k);
const char *ast_op_str(OpKind op);

/* ---- builtins ---- */
const char *builtin_name(BuiltinId id);
/* Look up "numpy.sqrt", "array.copy", aliases included; -1 if unknown. */
int builtin_lookup(const char *qualname);

/* ---- infer_ ---- */
/* Find or create the specialisation of `func` for `argtys`, inferring it
 * (and everything it calls).  NULL with a diagnostic on error. */
Spec *infer_spec(Compilation *c, int func, Type **argtys, int nargs, Type *explicit_ret);
/* The N_CONST of an argument's literal typecode suffix ("i<int>", "b<0|1>",
 * "s<UTF-8 in hex>", ended by \x02 or the string), or NULL
 * (infer_literal.c; the entry's Compilation.entry_lits). */
Node *infer_lit_decode(Arena *a, const char *suffix);
/* inspect_types text of every variable and the return type (malloc'ed). */
char *infer_types_text(Compilation *c, Spec *s);

/* ---- lower_ ---- */
/* Lower every spec of the compilation and the entry wrapper into one LLVM
 * module (LLVMModuleRef returned as void* to keep LLVM out of this header).
 * NULL with a diagnostic on error.  The module is verified. */
void *lower_program(Compilation *c, void *llvm_context, const char *entry_symbol);

#endif
