/* infer.h - private interface between the files of the type inference
 * (infer.c: specs, statements, expressions; infer_call.c: calls,
 * builtins and attributes). */
#ifndef HPCJIT_INFER_H
#define HPCJIT_INFER_H

#include "ast.h"

/* The walker state of one pass over one Spec.  Passes repeat until no
 * variable or return type changes; the last pass (`final`) sets the
 * annotations for good, inserts N_CAST nodes and rewrites nodes.  Earlier
 * passes only compute types and never change the tree's shape. */
typedef struct Inf {
    Compilation *c;
    Spec *s;
    TyCtx *tc;
    Arena *a;
    bool final;
    bool changed;
    int in_handler; /* > 0 inside an except clause: a bare `raise` re-raises */
    /* infer_unroll.c: loops rewritten so far (unique hidden names),
     * generator bodies inlined (bounded: recursion), and the generator
     * loops whose inlined body is being typed (innermost last) */
    int nrewrites, ngen_inline;
    Node *gen_stack[64];
    int ngen;
    /* infer_extend.c: while typing the call of an overload's implementation
     * found for the argument types alone, the request ("<stub>\t<key>") that
     * resolves the key with literals (infer_call_lits) */
    const char *stub_need;
} Inf;

/* Record a diagnostic of kind k at n (diag.h keeps the first) and return
 * NULL, so that typing code can `return TYPING(I, n, "...", ...)`. */
Type *infer_fail(Inf *I, HjDiagKind k, const Node *n, const char *fmt, ...) HJ_PRINTF(4, 5);
#define TYPING(I, n, ...) infer_fail((I), HJ_DIAG_TYPING, (n), __VA_ARGS__)
#define UNSUP(I, n, ...) infer_fail((I), HJ_DIAG_UNSUPPORTED, (n), __VA_ARGS__)

/* infer_defined.c: refuse a local read before any assignment can have run
 * (UnboundLocalError in Python); false with a diagnostic. */
bool infer_check_defined(Inf *I);

/* Type an expression; an Optional(T) value is unwrapped to T (an N_CAST
 * that checks it is not None). */
Type *infer_expr(Inf *I, Node **pn);
/* Type an expression, keeping Optional(T) (where values flow as they are:
 * assignments to names, returns, tuple elements, `is`, truth tests, ...). */
Type *infer_expr_opt(Inf *I, Node **pn);
/* The type of an expression typed by infer_expr: its value's type when the
 * node is an Optional (before the final pass inserts the unwrapping cast). */
static inline Type *infer_value_ty(const Node *n) {
    return n->ty && n->ty->kind == TY_OPTIONAL ? n->ty->base : n->ty;
}
/* Type `*pn` and convert it to `to` (a cast in the final pass). */
bool infer_coerce(Inf *I, Node **pn, Type *to, const char *what);
/* Wrap `*pn` into an N_CAST to `to` when its type differs (final pass). */
void infer_cast(Inf *I, Node **pn, Type *to);
/* Type a condition and make it bool. */
bool infer_truth(Inf *I, Node **pn);
Type *infer_call(Inf *I, Node **pn);
/* range(...) / prange(...)-like arguments: 1 to 3 integers, typed range. */
Type *infer_range_call(Inf *I, Node *n, const char *fname);
/* `a OP b` (an N_BINOP at *pn) with no core rule for its operands: the
 * builtin registered under `opname` ("operator.matmul") types it as a call
 * op(a, b), which replaces the N_BINOP in the final pass. */
Type *infer_operator_call(Inf *I, Node **pn, const char *opname);
Type *infer_attribute(Inf *I, Node *n);
/* Whether `obj.name` types for an obj of type t (hasattr(obj, "name"), as
 * Numba's typing resolves the attribute): 1 or 0; -1 when it cannot be
 * decided (an error is pending).  The attempt's diagnostic is dropped. */
int infer_has_attr(Inf *I, Type *t, const char *name, SrcLoc loc);
/* A tuple of two or more functions, not all the same: the homogeneous
 * tuple of their TY_FUNCSET it converts to (iteration, a run-time index);
 * NULL for other types. */
Type *infer_funcs_tuple(Inf *I, Type *t);
/* The element type produced by iterating over `*pn` (typed here). */
Type *infer_iter(Inf *I, Node **pn);

/* ---- shared argument typing (infer_args.c) ---- */
/* A None constant (an argument left out or given as None). */
bool infer_is_none(const Node *n);
/* The scalar type a dtype argument stands for (np.float64, a.dtype, a
 * dtype variable, float/int/bool/complex, or a string such as 'float32');
 * NULL after a diagnostic, the unknown type while it is not yet known. */
Type *infer_dtype_arg(Inf *I, Node **pd);
/* The same for an argument d already typed as t. */
Type *infer_dtype_of(Inf *I, Node *d, Type *t);
/* Optional integer slot i (axis=, ddof=, n=): a missing slot or None
 * becomes NULL; ints and bools are cast to int64; *unk set while the type
 * is unknown.  False after a diagnostic naming `fname`() and `what`. */
bool infer_opt_int(Inf *I, Node **sl, int i, const char *fname, const char *what, bool *unk);
/* An array-like argument given as a list or tuple (np.searchsorted(a, [1.5,
 * 2.5])): *slot becomes np.asarray(*slot), as NumPy converts it, and *t its
 * type.  The builtin's name must be in python/hpcjit/compiler.py's
 * _ASARRAY_USERS (np.asarray of a list is an overload it brings).  false:
 * an error. */
bool infer_asarray_arg(Inf *I, Node **slot, Type **t);
/* A required integer slot i: the same, but missing or None is a
 * TypingError (the lowering reads the slot). */
bool infer_req_int(Inf *I, Node *call, Node **sl, int i, const char *fname, const char *what, bool *unk);
/* A shape or reps: an int or a tuple of ints, cast to int64 /
 * UniTuple(int64); returns its length, 0 while unknown (*unk set), -1
 * after a diagnostic (naming fname() and what, or "array shape" when fname
 * is NULL). */
int infer_int_tuple(Inf *I, Node **ps, const char *fname, const char *what, bool *unk);

Type *infer_ty(Inf *I, TyKind k);
const char *infer_tyname(Inf *I, const Type *t);
/* A value that exists at run time (not a module, function, string...). */
bool infer_is_value(const Type *t);
bool infer_check_value(Inf *I, Node *n, Type *t);
Type *infer_binop_type(Inf *I, Node *at, OpKind op, Type *a, Type *b, Type **op_ty);
Node *infer_const_int(Inf *I, SrcLoc loc, int64_t v);
/* slice(...) values (infer_call.c): a named tuple "slice" of int64
 * start/stop/step; an array index of that type is the slice it holds
 * (infer_index.c) */
Type *infer_slice_type(Inf *I);
bool infer_is_slice_value(const Type *t);
Spec *infer_spec_at(Inf *I, SrcLoc loc, int func, Type **argtys, int nargs);
/* The type of parameter i of s after its typing: for an incomplete spec
 * (Spec.incomplete) what its body made of an empty container it was
 * given (`acc.append(x)` makes list(undefined) a list(int64)). */
Type *infer_spec_param(const Spec *s, int i);
/* infer_spec_at with literal parameters: lits[i] (i < nlits) the N_CONST
 * parameter i is the literal of, or NULL (infer_literal.c). */
Spec *infer_spec_lits(Inf *I, SrcLoc loc, int func, Type **argtys, int nargs, Node **lits, int nlits);
/* The specialisation for one explicit signature of the function (its
 * argument types and return type). */
Spec *infer_spec_sig(Inf *I, SrcLoc loc, int func, Type **argtys, int nargs, Type *ret);

/* ---- infer_literal.c: literal dispatch (numba.literally) ----
 * A parameter in HjOptions.literal_params (Python sets the bit when a
 * compilation asks for it) is typed, at each call, as the literal of its
 * argument: the Spec keeps the constant (Spec.lits) and its reads become
 * that constant.  A request names the function and parameter in
 * Compilation.need_overload as "L<func>\t<param>". */
/* Is k a constant that can be a literal (int64, bool, str)? */
bool infer_lit_ok(const Node *k);
bool infer_lit_eq(const Node *a, const Node *b);
/* Replace the reads of the spec's literal parameters that its body never
 * assigns by their constants. */
void infer_literal_params(Inf *I);
/* literally(x) (BI_LITERALLY): x itself when it is a literal; a request
 * for literal dispatch when x is a parameter; else a TypingError. */
Type *infer_literally_call(Inf *I, Node *n);
/* The literals of a call of `func` whose arguments (defaults filled in
 * or NULL) are sl[0..np): *out NULL when the function takes none.  False
 * with a diagnostic (or a request for the caller's own parameter). */
bool infer_call_lits(Inf *I, Node *n, int func, Node **sl, int np, Node ***out);
/* The initial value of a container expression (a display of constants, a
 * variable assigned once from one, a parameter given one), or NULL. */
const Node *infer_initial_value(Inf *I, const Node *a);
/* Append the Python literal of a constant display to b. */
void infer_write_pyliteral(StrBuf *b, const Node *n);
/* A list display without a common item type, or a str-keyed dict display
 * without a common value type (n): when it only reaches overloads, make
 * it a literal container (an N_TUPLE of the values with lit_container
 * set) and return true; else false (the caller's error stands). */
bool infer_literal_container(Inf *I, Node *n);
/* An overload's argument that is a literal container: append its
 * description to an overload key ("\x01c<hex>") and return true. */
bool infer_write_container(Inf *I, StrBuf *b, const Node *a);
/* base[key] with a str constant key on a LiteralStrKeyDict: the value's
 * position; -1 when base is no such container or key no str constant, -2
 * after a diagnostic (no such key). */
int infer_literal_key_index(Inf *I, const Node *base, const Node *key);
Node *infer_func_decl(Compilation *c, int func);

/* infer_index.c: slices, None, `...`, mask and fancy indices of an array
 * subscript.  False when the index is plain integers (left to infer.c);
 * true when handled, with *out the type (NULL after a diagnostic). */
bool infer_index(Inf *I, Node *n, Type *base, bool store, Type **out);
/* `t[...] = v` with an array value v into a mask/fancy target: types the
 * target and checks v.  -1 when the target is another form. */
int infer_index_store_array(Inf *I, Node *t, Node **pv, Type *vt);

/* infer_prune.c: remove the branches that the arguments' None-ness
 * decides (`if out is None:` ...) from the spec's tree, before typing;
 * hide[i]: argument i is None and reassigned before any read (its name is
 * left to a local variable). */
void infer_prune_branches(Inf *I, bool *hide);

/* infer_ssa.c: split every local name into versions ("x", "x.1", ...)
 * whose definitions never meet at a control-flow merge before a read, by
 * renaming the spec's N_NAME nodes, before typing; hide[i]: argument i
 * has a hidden name (infer_prune.c).  The source name of a version. */
void infer_ssa_rename(Inf *I, const bool *hide);
/* `it = a.flat` then reads of it: a.flat at each read (infer_flat.c). */
void infer_flat_aliases(Inf *I, Node *fn);
/* How many statements or targets in fn's body bind `name` (assignments,
 * loop targets, del, with-as, except-as, walrus; infer_flat.c). */
int infer_count_binds(const Node *fn, const char *name);
bool infer_ssa_is_version(const char *name);
/* `z = zip(a, b)` (enumerate, map, filter) then one use of z: the call at
 * that use (infer_iterbind.c); false after a diagnostic. */
bool infer_iter_bindings(Inf *I, Node *fn);
/* n is `with parallel_chunksize(k):` (hpcjit's or numba's), which the
 * SSA pass rewrites into a save, a try and a restoring finally. */
bool infer_ssa_is_chunksize_with(Inf *I, const Node *n);
const char *infer_ssa_source_name(Arena *a, const char *name);

/* isinstance(x, cls) at compile time: the qualified name of a class node
 * ("builtins.int", "numpy.ndarray", "numpy.float64"; NULL when it names
 * no class hpcjit knows), and whether a value of type t is an instance of
 * that class (1, 0; -1 when it cannot say). */
const char *infer_class_name(const HjFunction *hf, const Node *n);
int infer_isinstance(const Type *t, const char *cls);
/* A typed condition that the types decide (infer_prune.c): hasattr(expr,
 * "name") on any expression of a known type, isinstance(t, C) on the
 * variable of a literal_unroll copy, a constant bool, and `not`,
 * `and`, `or` of these evaluated up to the first undecided operand: 1 or 0,
 * -1 when it is decided at run time. */
int infer_decided_test(Inf *I, const Node *e);

/* infer_unroll.c: for loops over map()/filter() become plain loops and
 * over a generator function's call an inlined generator loop (before
 * typing, from the collection of variables; false after a diagnostic);
 * a literal_unroll() loop is marked (is_star) and gets its `count`
 * renamed copies of the body (infer_unroll_copies, while typing). */
bool infer_rewrite_for(Inf *I, Node *n);
/* Copy cp of a literal_unroll loop whose element is the constant k (a str
 * or an int literal): the loop variable's reads in its body become that
 * constant, so calls see a literal (overloads' StringLiteral and
 * IntegerLiteral, as in Numba).  Nothing when the body assigns it. */
void infer_unroll_const(Inf *I, Node *cp, const Node *k);
/* Replace every read of `name` in body by a copy of the constant k,
 * unless body assigns the name (then false, nothing changed). */
bool infer_const_reads(PtrVec *body, const char *name, const Node *k);
bool infer_unroll_copies(Inf *I, Node *n, int count);
/* list(gen(n)), set(...), sum/min/max/sorted(gen(n)) with gen a generator
 * function: the argument (or for list/set the call) becomes a
 * comprehension over it (before typing). */
void infer_rewrite_gen_arg(Inf *I, Node **pn);
/* The function's body holds a `yield` (it is a generator). */
bool infer_is_generator(const Node *decl);
/* A generator function lowered as a coroutine: its yields are statements,
 * none `yield from` or inside a try with a finally clause (false with a
 * diagnostic). */
bool infer_check_gen_body(Inf *I, Node *decl);
/* infer.c, for infer_unroll.c */
bool infer_is_local(Inf *I, const char *name);
/* The type of the parameter `name` of the spec (known before typing), or NULL. */
Type *infer_param_type(Inf *I, const char *name);
const HjEnvEntry *infer_env_find(const HjFunction *hf, const char *name);
void infer_collect_target(Inf *I, Node *t);

/* infer_comp.c: a list comprehension (N_COMP, before typing) becomes a
 * block expression: n->body holds `$c = []` and the loops appending the
 * element to $c, n->a reads $c.  Its loop variables are renamed apart
 * (they do not leak, as in Python 3). */
void infer_desugar_comp(Inf *I, Node *n);
/* Widen the variable named by `name` (an N_NAME of a local) with t, as an
 * assignment would: `lst.append(x)` on an empty list fixes its item type.
 * False after a diagnostic; true with nothing done for other nodes. */
bool infer_widen_var(Inf *I, Node *at, Node *name, Type *t);

/* infer_extend.c: stub functions (HjFunction.stub): overloads of
 * hpcjit.extending and objmode blocks.  infer_func_call types a call to
 * funcs[func] (an ordinary jitted function: infer_call.c). */
Type *infer_stub_call(Inf *I, Node *n, int func);
int infer_extend_named(Inf *I, const char *qualname);
bool infer_extend_attr(Inf *I, Node *n, Type *base, Type **out);
Type *infer_func_call(Inf *I, Node *n, int func);

/* infer_record.c: structured dtypes.  infer_record_attr types `r.f` (base
 * a record) or `arr.f` (base an array of records; NULL without a
 * diagnostic when f is not one of its fields); infer_record_subscript types
 * `r[k]` (or `arr['f']`, NULL without a diagnostic when the index is not a
 * constant name) and rewrites it into the attribute. */
Type *infer_record_attr(Inf *I, Node *n, Type *base);
Type *infer_record_subscript(Inf *I, Node **pn, Type *base);

/* infer_text.c: print() and f-strings (print arguments, raise/assert
 * messages); a string constant (N_CONST or a folded global). */
Type *infer_print_call(Inf *I, Node *n);
bool infer_fstring(Inf *I, Node *f);
bool infer_text_is_strconst(const Node *n);

/* infer_call.c: keyword binding for the library builtins of infer_np.c and
 * infer_search.c.  A Sig names a function's parameters in order. */
#define INFER_MAX_SLOTS 6
typedef struct InferSig {
    const char *fname;
    const char *names[INFER_MAX_SLOTS];
    int n;
} InferSig;
bool infer_bind_slots(Inf *I, Node *n, Node *self, const InferSig *s, Node **sl);
/* Fill *sig with the function's name and its parameter names in order:
 * INFER_SIG(sig, "sort", "a", "axis", "kind"). */
#define INFER_SIG(sig, name, ...)                                                                      \
    do {                                                                                               \
        const char *nm_[] = {__VA_ARGS__};                                                             \
        (sig)->fname = name;                                                                           \
        (sig)->n = (int)(sizeof nm_ / sizeof nm_[0]);                                                  \
        for (int i_ = 0; i_ < (sig)->n; i_++)                                                          \
            (sig)->names[i_] = nm_[i_];                                                                \
    } while (0)
/* arr.name as a bound method when "array.name" is a builtin that
 * `handles` types (infer_np.c, infer_search.c, infer_linalg.c); false if
 * it is not one of them. */
bool infer_method_attr(Inf *I, Node *n, Type *base, bool (*handles)(BuiltinId), Type **out);
void infer_store_slots(Inf *I, Node *n, Node **sl, int ns);

/* infer_arrayexpr.c: operators and ufuncs on arrays (area "arrexpr").
 * The *_binop/_unary/_compare/_augassign hooks are called with operand
 * types known and at least one of them an array. */
/* datetime64 / timedelta64 operators (infer_datetime.c): the result type,
 * *op_ty (binop) or the returned type (compare) the type the operation
 * computes in; operands are not cast (lower_datetime.c converts their
 * units).  NULL after a diagnostic. */
Type *infer_dt_binop(Inf *I, Node *at, OpKind op, Type *a, Type *b, Type **op_ty);
Type *infer_dt_compare(Inf *I, Node *at, OpKind op, Type *a, Type *b);
Type *infer_dt_unary(Inf *I, Node *at, OpKind op, Type *a);
Type *infer_ae_binop(Inf *I, Node *n, Type *a, Type *b);
Type *infer_ae_unary(Inf *I, Node *n, Type *a);
Type *infer_ae_compare(Inf *I, Node *n, Type *a, Type *b);
/* `t op= v` on an array target of type tt: returns the operation's array type. */
Type *infer_ae_augassign(Inf *I, Node *n, Type *tt, Type *vt);
/* Ufuncs typed by infer_ae_ufunc_call; the older scalar numpy builtins
 * (np.sqrt, abs, ...) only when an argument is an array
 * (infer_ae_owns_scalar is false for them). */
/* `t[...] = v` (array v, view target): 1 typed, 0 error, -1 not this form. */
int infer_ae_store(Inf *I, Node *t, Node **pv, Type *vt);
/* arr.real / arr.imag (ATTR_ARRAY_REAL/IMAG). */
Type *infer_ae_real_imag(Inf *I, Node *n, Type *base);
bool infer_ae_is_ufunc(BuiltinId id);
/* `np.add(a, b, out)` as a statement becomes `out[...] = np.add(a, b)`;
 * true when the statement was rewritten (into an N_ASSIGN). */
bool infer_ae_ufunc_out_stmt(Inf *I, Node *st);
bool infer_ae_owns_scalar(BuiltinId id);
Type *infer_ae_ufunc_call(Inf *I, Node *n, BuiltinId id, Type **tys);
/* A call of overload stub `stub` whose implementation `impl` computes one
 * element (HjStubImpl.elementwise): a CALL_ELEMWISE node when an argument
 * is an array (else NULL with *not_here set: an ordinary call). */
Type *infer_ae_elemwise_call(Inf *I, Node *n, int stub, int impl, bool *not_here);
bool infer_ae_is_elementwise(const Node *n);
/* Final pass: wrap an elementwise array node into its N_ARRAYEXPR root. */
Node *infer_ae_root(Inf *I, Node *n);
/* After the final pass: runs of array statements into N_FUSED (infer_fuse.c). */
void infer_fuse_statements(Inf *I);

/* infer_jitclass.c: jitclass instances (TY_JITCLASS) and classes.  The
 * class's description and its functions come from hidden globals that
 * python/hpcjit/experimental.py adds to every function's environment:
 * "$jc<id>" (fields, methods), "$jcm<id>.<method>", "$jcp<id>.<property>",
 * "$jcs<id>.<staticmethod>", "$jcnew<id>" (the constructor).
 * infer_jc_resolve fills in the fields of an instance type (false after a
 * diagnostic at `at`); infer_jc_method_call rewrites `obj.method(args)`
 * into a call of the method with obj first (true when it did: the call is
 * then typed as usual; earlier passes may make this change, which is its
 * own fixed point); infer_jc_attr types `obj.field`, `obj.property`,
 * `Cls.staticmethod`; infer_jc_target the field of `obj.field = v`. */
bool infer_jc_resolve(Inf *I, const Node *at, Type *t);
bool infer_jc_method_call(Inf *I, Node *n, Type *base);
Type *infer_jc_attr(Inf *I, Node *n, Type *base);
Type *infer_jc_target(Inf *I, Node *t);
/* Dunder methods (infer_jitclass.c): the node becomes a call of the
 * instance's method.  infer_jc_binop is the jitclass feature's infer_binop
 * (a, b: the operand types, one an instance; reflected __rop__ for the
 * right one); infer_jc_unary `-obj`; infer_jc_compare one comparison
 * `l op r` (N_COMPARE n with one comparator; `in` is __contains__ of the
 * right one); infer_jc_truth wraps *pn (an instance of type t) in
 * __bool__/__len__ (false when it has neither: the core's diagnostic);
 * infer_jc_builtin len()/abs()/int()/float()/complex()/bool()/str() of
 * an instance (NULL for another builtin, without a diagnostic);
 * infer_jc_subscript is the feature's infer_subscript (__getitem__);
 * infer_jc_assign rewrites `obj[i] = v` (__setitem__) and `obj.prop = v`
 * (a property setter) into an N_EXPR of the call, infer_jc_augassign
 * `x op= v` into `x = x.__iop__(v)` or `x = x op v` (true when rewritten:
 * the caller types the statement again). */
Type *infer_jc_binop(Inf *I, Node **pn, Type *a, Type *b);
Type *infer_jc_unary(Inf *I, Node *n, Type *a);
Type *infer_jc_compare(Inf *I, Node *n, Type *l, Type *r);
bool infer_jc_truth(Inf *I, Node **pn, Type *t);
Type *infer_jc_builtin(Inf *I, Node *n, BuiltinId id, Type *t);
Type *infer_jc_subscript(Inf *I, Node **pn, Type *base);
bool infer_jc_assign(Inf *I, Node *n);
bool infer_jc_augassign(Inf *I, Node *n, Type *ot);
const HjEnvEntry *infer_env_lookup(Inf *I, const char *name);
/* `mod.attr` (n, an N_ATTR) of a user's module found in the env under the
 * qualified name q: n becomes that global name, *out its type (NULL after
 * a diagnostic).  False when q is not in the env. */
bool infer_module_env_attr(Inf *I, Node *n, const char *q, Type **out);

/* infer_namedtuple.c: a call of a named tuple class (cls: the class's
 * tuple type, elements unknown) and the class as a global value. */
Type *infer_nt_construct(Inf *I, Node *n, Type *cls);
Type *infer_nt_class(Inf *I, const char *header);

#define TY_UNK(I) infer_ty((I), TY_UNKNOWN)
#define IS_UNK(t) ((t)->kind == TY_UNKNOWN)

#endif
