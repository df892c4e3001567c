/* types.h - the type system (ty_ module).
 *
 * Types belong to one compilation (TyCtx, arena allocated) and are interned:
 * within a TyCtx two equal types are the same pointer, so `a == b` is type
 * equality.  Scalars come from ty_scalar(); compound types from the
 * constructors below.  Unification and promotion rules (Numba's) live in
 * types.c and are used only by inference. */
#ifndef HPCJIT_TYPES_H
#define HPCJIT_TYPES_H

#include "util.h"

/* ORDER: the scalar kinds TY_BOOL..TY_COMPLEX128 are contiguous and in
 * promotion order within each family; typecode chars are in types.c. */
typedef enum TyKind {
    TY_UNKNOWN,    /* bottom of the lattice during inference (not yet known)  */
    TY_BOOL,
    TY_INT8, TY_INT16, TY_INT32, TY_INT64,
    TY_UINT8, TY_UINT16, TY_UINT32, TY_UINT64,
    TY_FLOAT16,    /* half: CUDA kernels only (LLVM half); the CPU refuses it */
    TY_FLOAT32, TY_FLOAT64,
    TY_COMPLEX64, TY_COMPLEX128,
    TY_NONE,       /* the None value                                            */
    TY_TUPLE,      /* elems, nelems (homogeneous when all elems equal)          */
    TY_ARRAY,      /* dtype (a scalar type), ndim, layout                       */
    TY_RANGE,      /* range(start, stop, step) of int64: a value {i64,i64,i64}  */
    TY_DTYPE,      /* dtype: the scalar type a dtype object/class stands for    */
    TY_STRING,     /* str (Numba's unicode_type): a value is an HjMemInfo * of an
                      HjStr (lib/str, hpcjit/str.h); a literal keeps its cval */
    TY_FUNCTION,   /* func: an @njit function (HjRequest.funcs index)           */
    TY_MODULE,     /* name: "numpy", "math", "numpy.linalg", ...                */
    TY_BUILTIN,    /* builtin: a BuiltinId (callable: abs, np.empty, ...)      */
    TY_EXC_CLASS,  /* name: "ValueError" - an exception class                   */
    TY_EXC_VALUE,  /* name: an exception instance, only as `raise` operand     */
    TY_BOUND_METHOD, /* builtin + self_ty: `arr.copy` before the call           */
    TY_OPTIONAL,   /* base: a value of type base, or None (Numba's OptionalType) */
    TY_LIST,       /* item: the element type (TY_UNKNOWN inside while an empty
                      list's items are not known yet); a value is an
                      HjMemInfo * of an HjList (lib/list, hpcjit/containers.h) */
    TY_DICT,       /* key, item (the value type), TY_UNKNOWN inside while an
                      empty dict's are not known; an HjMemInfo * of an HjDict
                      (lib/dict) */
    TY_SET,        /* item: the element type; an HjMemInfo * of an HjSet */
    TY_DICT_VIEW,  /* key, item of the dict; ndim: 0 keys(), 1 values(), 2
                      items(); the dict's HjMemInfo * (lib/dict) */
    TY_JITCLASS,   /* an instance of a jitclass: func (the class's id), name,
                      and once resolved (lib/jitclass) elems, nelems, fields:
                      its fields; an HjMemInfo * (hpcjit/jitclass.h) */
    TY_FUNCSET,    /* elems, nelems: two or more TY_FUNCTION types, sorted by
                      func; a value is the i64 position of the function it
                      holds (`f = g if c else h`, a loop over a tuple of
                      functions); calls dispatch on it */
    TY_CPOINTER,   /* dtype: the number pointed to, NULL for void* (cfunc
                      arguments; carray/farray make arrays of them): `ptr` */
    TY_GENERATOR,  /* item: the type its `yield`s produce; a generator object
                      (a call of an @njit generator function that no for loop
                      consumes): an HjMemInfo * of an HjGenerator holding the
                      suspended body (hpcjit/generator.h) */
    TY_NPGENERATOR, /* a numpy.random.Generator argument (typecode 'R'): a
                      value is its bit generator's bitgen_t * (NumPy's
                      numpy/random/bitgen.h), borrowed for the call; its
                      methods are lib/random's */
    TY_RECORD,     /* a NumPy structured dtype (Numba's Record): fields[nelems]
                      names, elems[nelems] their types (numbers or records),
                      offsets[nelems] in bytes, size (itemsize), aligned
                      (dtype.isalignedstruct), func: its id in the
                      dispatcher's registry of structured dtypes.  A value is
                      a pointer to the record's bytes (a view into its array
                      or argument: writes through it are seen there) */
    TY_CHARSEQ,    /* a record's character-sequence field ('S10', 'U3'): size
                      characters of ndim bytes (1: bytes, Numba's "[char x 10]";
                      4: str, "[unichr x 3]"); moved with its record, no
                      other operation */
    TY_DATETIME,   /* unit (DtUnit): NumPy's datetime64[unit] (Numba's
                      NPDatetime): an i64 count of units since 1970-01-01,
                      NaT is INT64_MIN (lower/lower_datetime.c) */
    TY_TIMEDELTA,  /* unit (DtUnit): timedelta64[unit] (NPTimedelta): an i64
                      count of units, NaT is INT64_MIN */
    TY_FUNCPTR,    /* elems[nelems]: argument types, item: the return type (none
                      for void): Numba's FunctionType(sig), a first-class
                      function value: a C function pointer (ptr) called
                      indirectly with the C types of the numbers (cfunc's
                      ABI: bool as i8); `fp` typecode 'P' ret '(' args ')' */
    TY_CLOSURE,    /* func, elems[nelems]: an inner function or lambda reading
                      variables of its enclosing function, made a value
                      (python/hpcjit/closures.py `_hj_closure(f, k)`): a value
                      is its environment, the tuple of those variables' values
                      (elems); a call passes them first (infer_call.c) */
    TY_COUNT
} TyKind;

typedef enum Layout { LAYOUT_C = 'C', LAYOUT_F = 'F', LAYOUT_A = 'A' } Layout;

typedef struct Type Type;
struct Type {
    TyKind kind;
    /* TY_TUPLE (a named tuple when fields != NULL: fields[nelems] are its
     * field names, name its class's __name__, func its class's id in the
     * dispatcher's registry of named tuple classes) */
    Type **elems;
    int nelems;
    const char **fields;
    /* TY_RECORD: byte offset of each field, itemsize, isalignedstruct; a
     * record's subarray field (('v', 'f8', (3,))) is a TY_ARRAY (C) with
     * its shape in offsets[ndim] (Numba's nestedarray) */
    int *offsets;
    int size;
    bool aligned;
    /* TY_ARRAY, TY_DTYPE, TY_CPOINTER (dtype) */
    Type *dtype;
    int ndim;
    Layout layout;
    bool readonly;  /* TY_ARRAY: data may not be written (Numba: not mutable) */
    bool bytes;     /* TY_ARRAY: a Python bytes (readonly) or bytearray object's
                       buffer, uint8 1-d C (Numba's Bytes/ByteArray): an array
                       value that boxes as bytes/bytearray (typecodes 'y'/'Y') */
    /* TY_FUNCTION (name: the function's name, set by inference) */
    int func;
    /* TY_MODULE, TY_EXC_CLASS, TY_EXC_VALUE; an integer kind with a name
     * (and func, ndim) is an IntEnum member type (ty_intenum) */
    const char *name;
    /* TY_BUILTIN, TY_BOUND_METHOD */
    int builtin;    /* BuiltinId */
    Type *self_ty;  /* TY_BOUND_METHOD: the receiver's type */
    /* TY_OPTIONAL */
    Type *base;     /* a number, array or tuple type (never none or optional) */
    /* TY_LIST (and the containers of lib/: element, value) */
    Type *item;
    Type *key;      /* TY_DICT, TY_DICT_VIEW: the key type */
    bool typed;     /* TY_LIST, TY_DICT, TY_SET: an hpcjit.typed.List/Dict/Set
                       (Numba's ListType/DictType/SetType: shared with Python
                       by reference, typecodes '#'/'&'/'%'), else reflected /
                       a plain dict */
    /* TY_DATETIME, TY_TIMEDELTA: the DtUnit */
    int unit;
    /* every compound type: 1 + the deepest of its components (elems, item,
     * key, base, dtype, self_ty), a scalar's counting 1; set by interning
     * (see ty_depth) */
    int depth;
    /* owned by the lowering of the current compilation: cached LLVMTypeRef */
    void *llvm;
    void *llvm_mem; /* in-memory form when it differs (bool: i8) */
};

typedef struct TyCtx TyCtx;

TyCtx *ty_ctx_new(Arena *a);
/* How deep `t` nests other types: 1 for a scalar, 2 for a list of floats.
 * Inference refuses a variable whose type grows past TY_MAX_DEPTH (a
 * container stored into itself grows one level per pass). */
#define TY_MAX_DEPTH 32
static inline int ty_depth(const Type *t) { return !t ? 0 : t->depth > 0 ? t->depth : 1; }
Type *ty_scalar(TyCtx *tc, TyKind k);          /* TY_UNKNOWN..TY_NONE, TY_RANGE, TY_STRING */
Type *ty_tuple(TyCtx *tc, Type **elems, int n);
/* A named tuple of class `cls_id` (named `name`, fields[n]) holding elems. */
Type *ty_named_tuple(TyCtx *tc, Type **elems, int n, int cls_id, const char *name, const char **fields);
static inline bool ty_is_named_tuple(const Type *t) { return t && t->kind == TY_TUPLE && t->fields; }
/* An enum.Enum member (not IntEnum: those are ints): a named tuple of the
 * member's class with the one field "_value_" (python/core/namedtuple.c,
 * enum_fields), which no namedtuple class can have (no leading '_').  Boxed
 * by cls(value), which gives the member itself. */
static inline bool ty_is_enum(const Type *t)
{
    return ty_is_named_tuple(t) && t->nelems == 1 && t->fields[0][0] == '_' && !__builtin_strcmp(t->fields[0], "_value_");
}
/* An IntEnum or IntFlag member (Numba's IntEnumMember, "IntEnum<int64>(Color)"):
 * an integer of kind k (int64, or uint64 for members above it) that keeps its
 * class, `name` and `func` (its id in the dispatcher's registry of named tuple
 * classes), ndim 1 for an IntFlag class.  It computes as the integer;
 * arithmetic gives the plain integer (an IntFlag's `|`, `&`, `^` its class,
 * as CPython), while names, returns and containers keep the class, so that
 * a returned member boxes as cls(value).  Across the boundary it is the
 * named tuple N<id>:<name>:_int_:(l), or _flag_ for an IntFlag
 * (python/core/namedtuple.c, enum_fields): fields no namedtuple class can
 * have (a leading '_'). */
#define TY_INTENUM_FIELD "_int_"
#define TY_INTFLAG_FIELD "_flag_"
Type *ty_intenum(TyCtx *tc, TyKind k, int cls_id, const char *name, bool flag);
static inline bool ty_is_intenum(const Type *t)
{
    return t && t->kind >= TY_INT8 && t->kind <= TY_UINT64 && t->name;
}
static inline bool ty_is_intflag(const Type *t) { return ty_is_intenum(t) && t->ndim == 1; }
/* The plain integer of an IntEnum member type; other types as they are. */
Type *ty_plain(TyCtx *tc, Type *t);
Type *ty_array(TyCtx *tc, Type *dtype, int ndim, Layout layout);
/* ty_array with the read-only flag ("readonly array(float64, 1d, C)"). */
Type *ty_array_ro(TyCtx *tc, Type *dtype, int ndim, Layout layout, bool readonly);
/* A bytes (readonly) or bytearray buffer: an array of uint8, 1-d, C. */
Type *ty_bytes(TyCtx *tc, bool bytearray);
/* `t` (an array) with its read-only flag set to `readonly`; other types as is. */
Type *ty_set_readonly(TyCtx *tc, Type *t, bool readonly);
Type *ty_dtype(TyCtx *tc, Type *scalar);
/* A C pointer to a number (float64*), or void* when `to` is NULL. */
Type *ty_cpointer(TyCtx *tc, Type *to);
Type *ty_function(TyCtx *tc, int func);
/* The closure of @njit function `func` over an environment of n values. */
Type *ty_closure(TyCtx *tc, int func, Type **env, int n);
/* FunctionType(ret(args...)): a function pointer of that C signature. */
Type *ty_funcptr(TyCtx *tc, Type *ret, Type **args, int n);
/* A record (structured dtype `id` of the dispatcher's registry) of n fields:
 * names[i] at offsets[i] of type elems[i]; size bytes in all. */
Type *ty_record(TyCtx *tc, int id, int n, const char **names, Type **elems, const int *offsets, int size,
                bool aligned);
/* A record's subarray field: a C array of `dtype` with shape dims[ndim]
 * ("nestedarray(float64, (3,))"); its values are plain C arrays. */
Type *ty_nested_array(TyCtx *tc, Type *dtype, int ndim, const int *dims);
static inline bool ty_is_nested_array(const Type *t) { return t && t->kind == TY_ARRAY && t->offsets; }
/* A record's character-sequence field of n characters of `width` bytes. */
Type *ty_charseq(TyCtx *tc, int n, int width);
/* The index of field `name` of record t, or -1. */
int ty_record_field(const Type *t, const char *name);
/* The set of the functions in a and b (each a TY_FUNCTION or TY_FUNCSET);
 * a itself when b adds nothing to it. */
Type *ty_funcset_union(TyCtx *tc, Type *a, Type *b);
/* Position of function `func` in the TY_FUNCSET fs, or -1. */
int ty_funcset_index(const Type *fs, int func);
Type *ty_module(TyCtx *tc, const char *name);
Type *ty_builtin(TyCtx *tc, int builtin);
Type *ty_exc_class(TyCtx *tc, const char *name);
Type *ty_exc_value(TyCtx *tc, const char *name);
Type *ty_bound_method(TyCtx *tc, int builtin, Type *self_ty);
/* Optional(base); base itself when it is already optional. */
Type *ty_optional(TyCtx *tc, Type *base);
/* A list of `item`s ("reflected list(int64)"). */
Type *ty_list(TyCtx *tc, Type *item);
/* A dict ("DictType[int64,float64]"), a set ("reflected set(int64)"), a
 * view of a dict's keys/values/items (view 0/1/2). */
Type *ty_dict(TyCtx *tc, Type *key, Type *value);
Type *ty_set(TyCtx *tc, Type *item);
/* A typed.Set (typecode '%'): a set passed by reference ("SetType[int64]"). */
Type *ty_typed_set(TyCtx *tc, Type *item);
/* typed.List ("ListType[int64]") and typed.Dict ("DictType[int64,float64]",
 * typed); ty_container_like: a list/dict/set of the same kind and typed flag
 * as `proto` with the given parts (key ignored for lists and sets). */
Type *ty_typed_list(TyCtx *tc, Type *item);
Type *ty_typed_dict(TyCtx *tc, Type *key, Type *value);
Type *ty_container_like(TyCtx *tc, const Type *proto, Type *key, Type *item);
Type *ty_dict_view(TyCtx *tc, Type *key, Type *value, int view);
/* A generator object yielding `item`s ("generator(int64)"); two generators
 * of the same item type are one type whatever function made them (their
 * values resume through the object's own function pointers). */
Type *ty_generator(TyCtx *tc, Type *item);
/* The instance type of jitclass `id` (fields not resolved yet). */
Type *ty_jitclass(TyCtx *tc, int id);
/* t is or contains a function (TY_FUNCTION, TY_FUNCSET). */
bool ty_has_function(const Type *t);
/* t is or contains float16 (a scalar, an array's dtype, a tuple element). */
bool ty_has_float16(const Type *t);
/* t is or contains TY_UNKNOWN (an empty list's items not known yet). */
bool ty_has_unknown(const Type *t);

static inline bool ty_is_int(const Type *t) { return t->kind >= TY_INT8 && t->kind <= TY_UINT64; }
static inline bool ty_is_signed(const Type *t) { return t->kind >= TY_INT8 && t->kind <= TY_INT64; }
static inline bool ty_is_unsigned(const Type *t) { return t->kind >= TY_UINT8 && t->kind <= TY_UINT64; }
static inline bool ty_is_float(const Type *t) { return t->kind >= TY_FLOAT16 && t->kind <= TY_FLOAT64; }
static inline bool ty_is_complex(const Type *t) { return t->kind == TY_COMPLEX64 || t->kind == TY_COMPLEX128; }
/* bool, ints, floats, complex */
static inline bool ty_is_number(const Type *t) { return t->kind >= TY_BOOL && t->kind <= TY_COMPLEX128; }
static inline bool ty_is_array(const Type *t) { return t->kind == TY_ARRAY; }
static inline bool ty_is_optional(const Type *t) { return t->kind == TY_OPTIONAL; }
static inline bool ty_is_record(const Type *t) { return t && t->kind == TY_RECORD; }
/* Bits of an integer or float kind (bool: 1; complex: of one part). */
int ty_bits(const Type *t);
/* Size in bytes of a scalar's (or record's) in-memory (array element) form. */
int ty_itemsize(const Type *t);

/* NumPy's datetime units, coarse to fine (ORDER: dt_unit_codes and
 * dt_unit_names in types.c); DT_GENERIC is the unit-less datetime64 that
 * converts to any unit (np.datetime64('NaT')). */
typedef enum DtUnit {
    DT_Y, DT_M, DT_W, DT_D, DT_h, DT_m, DT_s, DT_ms, DT_us, DT_ns, DT_ps, DT_fs, DT_as, DT_GENERIC, DT_NUNITS
} DtUnit;
#define TY_NAT INT64_MIN
/* datetime64[unit] (timedelta false) or timedelta64[unit]. */
Type *ty_datetime(TyCtx *tc, bool timedelta, int unit);
static inline bool ty_is_npdt(const Type *t) {
    return t && (t->kind == TY_DATETIME || t->kind == TY_TIMEDELTA);
}
/* "D", "ms", "" (generic); the one-character typecode of a unit (abi.h). */
const char *ty_dt_unit_name(int unit);
char ty_dt_unit_code(int unit);
/* The unit named s[0..n) ("D", "us", "" generic), or -1. */
int ty_dt_unit_parse(const char *s, size_t n);
/* The integer factor that turns a count of `from` units into `to` units
 * (Numba's get_timedelta_conversion_factor: Y->M, W->D->h->...->as, generic
 * to anything); false when no integer factor does (M to D, ms to s). */
bool ty_dt_factor(int from, int to, int64_t *factor);
/* The finer of two units (Numba's get_best_unit; generic yields). */
int ty_dt_best_unit(int a, int b);

/* Numba's unification: the smallest type both can be converted to, or NULL.
 * int64+float64 -> float64, int32+int64 -> int64, int64+uint64 -> float64,
 * bool+int -> int, array layouts differing -> 'A', read-only with
 * writable arrays -> read-only, tuples elementwise, none+T ->
 * Optional(T) (T a number, array or tuple), UNKNOWN+x -> x. */
Type *ty_unify(TyCtx *tc, Type *a, Type *b);
/* NumPy's np.promote_types of two numbers: bool < ints < floats < complex;
 * a signed and an unsigned int give the signed int twice as wide (uint64
 * with a signed int: float64); a float takes ints of 16 bits or less
 * without widening (float32 + int16 is float32, + int32 float64). */
Type *ty_np_promote(TyCtx *tc, Type *a, Type *b);
/* Result type of arithmetic on two numbers (Numba: small ints widen to
 * int64/uint64, int+float -> float64, float32+float32 -> float32, ...). */
Type *ty_promote_arith(TyCtx *tc, Type *a, Type *b);
/* Can a value of `from` be converted implicitly to `to` (assignment,
 * argument passing)?  Numbers to numbers (not complex to real), arrays to
 * A-layout arrays of the same dtype and ndim (writable to read-only, not
 * back), tuples elementwise; none and T to Optional(T'), Optional(T) to T'
 * (with a check at run time that it is not None). */
bool ty_can_convert(const Type *from, const Type *to);

/* Names: "float64", "array(float64, 2d, C)", "UniTuple(int64 x 3)",
 * "Tuple(int64, float64)", "range", "dtype(float64)", "none". */
void ty_name(StrBuf *b, const Type *t);
const char *ty_str(Arena *a, const Type *t); /* arena copy of ty_name */

/* Typecodes (see runtime/include/hpcjit/abi.h). */
void ty_typecode(StrBuf *b, const Type *t);
/* Parse one typecode starting at *p, advancing *p.  NULL on bad input. */
Type *ty_from_typecode(TyCtx *tc, const char **p);
/* Parse a Numba type expression: "float64", "f8", "int64[:]",
 * "float64[:, ::1]", "float64[::1, :]", "UniTuple(int64, 3)",
 * "Tuple(int64, float64)", "complex128", "boolean"/"b1", "none", "intp".
 * NULL on error, with *err set (arena). */
Type *ty_parse(TyCtx *tc, const char *s, const char **end, const char **err);

#endif
