/* core.h - private interface between the files of hpcjit._core. */
#ifndef HPCJIT_CORE_H
#define HPCJIT_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* Built against NumPy 2.x headers, loadable under NumPy 1.24 and later. */
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define NPY_TARGET_VERSION NPY_1_24_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL hpcjit_core_ARRAY_API
#ifndef CORE_IMPORT_ARRAY
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>
#include <numpy/arrayscalars.h>

#include "hpcjit/abi.h"
#include "hpcjit/mpi_hooks.h"
#include "hpcjit/runtime.h"

/* Module state (multi-phase init). */
typedef struct CoreState {
    PyTypeObject *dispatcher_type;
    PyTypeObject *owner_type; /* _MemInfoOwner: base of arrays owning a MemInfo */
} CoreState;

/* ---- print() of compiled code (text.c) --------------------------------- */
void core_text_install(void);
void core_text_remove(void);

/* ---- str (box_str.c) --------------------------------------------------- */
/* A new native str (hpcjit/str.h) holding a copy of the Python str's code
 * units (same kind, no re-encoding); NULL with TypeError/MemoryError set. */
HjMemInfo *box_str_from_py(PyObject *obj);
/* A Python str with the text of `mi` (borrowed: the caller keeps its
 * reference). */
PyObject *box_str_to_py(HjMemInfo *mi);
/* Give the runtime CPython's Unicode database (case mappings, classes). */
void core_str_install(void);
/* _str_selftest(op, *args): tests run rt_str_ functions through it. */
extern PyMethodDef box_str_methods[];
/* ufunc.c: make_ufunc (hpcjit.vectorize) */
extern PyMethodDef uf_methods[];
extern PyMethodDef gu_methods[];
/* dispatcher.c: the runtime's pending exception as the Python exception (GIL held) */
void core_raise_pending(void);
/* Install the runtime's signal checker (dispatcher.c). */
void core_signals_init(void);
/* objmode.c: the hook compiled code runs `with objmode` blocks through;
 * core_objmode_take restores (1) the exception a block raised on this
 * thread when the runtime's pending one (type, msg) is that exception,
 * else 0 (GIL held). */
void core_objmode_install(CoreState *st);
void core_objmode_remove(void);
int core_objmode_take(const char *type, const char *msg);

/* ---- typecodes (typecode.c) -------------------------------------------- */
/* Size and alignment of the unboxed form of the typecode at *tc (abi.h);
 * advances *tc past it.  Returns -1 on a malformed typecode. */
int tc_layout(const char **tc, size_t *size, size_t *align);
/* Skip one typecode; -1 when malformed. */
int tc_skip(const char **tc);
/* NumPy type number of a scalar typecode char, -1 if none. */
int tc_npy_type(char c);
/* Scalar typecode char of a dtype (native byte order), 0 if unsupported. */
char tc_of_descr(PyArray_Descr *d);
/* datetime64 / timedelta64 (abi.h: 'M' | 'm' <unit char>).  tc_dt_of_descr:
 * the two characters of a datetime dtype of one whole unit (M8[D], not
 * M8[2D]) into out[0..2), 0 when d is none such.  tc_dt_of_scalar: the same
 * for an np.datetime64/np.timedelta64 scalar.  tc_dt_descr: a new
 * reference to the dtype of the two characters at p. */
int tc_dt_of_descr(PyArray_Descr *d, char *out);
int tc_dt_of_scalar(PyObject *obj, char *out);
PyArray_Descr *tc_dt_descr(const char *p);
/* The end of an element typecode at p (a number char, 'M'/'m' <unit>, a
 * 'V' record), NULL when malformed. */
const char *tc_elem_skip(const char *p);
/* IEEE binary16 ('e', float16: CUDA kernels only) to and from double, the
 * conversion rounding to nearest even as NumPy's np.float16(x). */
double tc_half_to_double(uint16_t h);
uint16_t tc_double_to_half(double d);

/* ---- boxing (convert.c) ------------------------------------------------ */
/* Append the typecode of `obj` to buf[*len..cap).  Returns 0, or -1 when the
 * value has no hpcjit type (no Python exception set) or the key is too long. */
int cv_typecode(PyObject *obj, char *buf, size_t *len, size_t cap);
/* Can `obj` be converted to the parameter typecode at *tc (advanced)?  Used
 * by dispatchers with explicit signatures: ints widen to floats, C/F arrays
 * pass as A arrays. */
int cv_matches(PyObject *obj, const char **tc);
/* The kind of conversion of number `obj` to the scalar typecode `want`, as
 * Numba's casting rules rank it: 0 exact, 1 promote, 2 safe, 3 unsafe (4:
 * not a number).  Dispatchers with several explicit signatures pick the
 * one whose worst conversions are fewest (int64 -> float64 over float32). */
int cv_conversion_kind(PyObject *obj, char want);
/* Unbox `obj` as typecode *tc (advanced) into `out` (aligned for it). 0 or
 * -1 with a Python exception set.  Arrays are borrowed (meminfo NULL,
 * parent = obj). */
int cv_unbox(PyObject *obj, const char **tc, char *out);
/* Box the value at `in` of typecode *tc (advanced).  Takes over the
 * references the value owns (arrays' MemInfos) even on failure. */
PyObject *cv_box(CoreState *st, const char **tc, char *in);
/* Release the references held by a value that will not be boxed. */
void cv_release(const char **tc, char *in);
/* Release the native strs an unboxed argument holds (typecode 's', also
 * inside tuples): the dispatcher's copies, after the call. */
void cv_release_strs(const char **tc, char *in);

PyObject *cv_owner_new(CoreState *st, HjMemInfo *mi);
extern PyType_Spec cv_owner_spec;

/* ---- native containers (box_containers.c) ------------------------------
 * Python list/dict/set <-> native containers (hpcjit/containers.h).  The
 * item conversions are callbacks: BxUnboxFn writes an OWNED unboxed item
 * to `out` (0, or -1 with a Python exception); BxBoxFn returns a new
 * Python reference for a BORROWED item (NULL with an exception).  `ctx`
 * is passed through.  The *_from_py functions return a new container
 * (refcount 1); *_to_py a new Python object; *_reflect write a native
 * container's final contents into the caller's Python object after a call
 * (Numba's reflected lists and sets), leaving it unchanged if boxing
 * fails.  All need the GIL; not yet called by the dispatcher (abi.h,
 * CONTAINERS, has the proposed typecodes). */
typedef struct RtItemOps RtItemOps;
typedef int (*BxUnboxFn)(PyObject *obj, void *out, void *ctx);
typedef PyObject *(*BxBoxFn)(const void *item, void *ctx);
/* The runtime's pending exception (rt_exc_fetch) as the Python exception
 * of the same builtin class (box_containers.c). */
void bx_raise_runtime(void);
HjMemInfo *bx_list_from_py(PyObject *list, const RtItemOps *ops, BxUnboxFn unbox, void *ctx);
PyObject *bx_list_to_py(HjMemInfo *l, BxBoxFn box, void *ctx);
int bx_list_reflect(HjMemInfo *l, PyObject *list, BxBoxFn box, void *ctx);
HjMemInfo *bx_dict_from_py(PyObject *dict, const RtItemOps *key_ops, const RtItemOps *value_ops,
                           BxUnboxFn unbox_key, BxUnboxFn unbox_value, void *ctx);
PyObject *bx_dict_to_py(HjMemInfo *d, BxBoxFn box_key, BxBoxFn box_value, void *ctx);
int bx_dict_reflect(HjMemInfo *d, PyObject *dict, BxBoxFn box_key, BxBoxFn box_value, void *ctx);
HjMemInfo *bx_set_from_py(PyObject *set, const RtItemOps *ops, BxUnboxFn unbox, void *ctx);
PyObject *bx_set_to_py(HjMemInfo *s, BxBoxFn box, void *ctx);
int bx_set_reflect(HjMemInfo *s, PyObject *set, BxBoxFn box, void *ctx);

/* ---- reflected lists, typecode '[' (box_list.c) ------------------------
 * As cv_unbox / cv_box / cv_matches for a list typecode at *tc (advanced).
 * box_list_reflect writes the native list unboxed at `in` back into the
 * argument `obj` after a call and releases it (0, or -1 with an
 * exception). */
int box_list_unbox(PyObject *obj, const char **tc, char *out);
PyObject *box_list_box(CoreState *st, const char **tc, char *in);
/* Give the value at `in` (typecode at *tc, which is advanced past it) one
 * more reference for each HjMemInfo it holds (arrays, containers, str,
 * generators, jitclass instances; inside tuples too): what boxing a copy
 * of an item that a container keeps needs. */
void box_retain(const char **tc, char *in);
int box_list_reflect(CoreState *st, PyObject *obj, const char **tc, char *in);
int box_list_matches(PyObject *obj, const char **tc);

/* ---- dicts '{' and sets '<' (box_dict.c) --------------------------------
 * As the reflected lists' functions above, for a dict or set typecode. */
int box_dict_unbox(PyObject *obj, const char **tc, char *out);
PyObject *box_dict_box(CoreState *st, const char **tc, char *in);
int box_dict_reflect(CoreState *st, PyObject *obj, const char **tc, char *in);
int box_dict_matches(PyObject *obj, const char **tc);

/* ---- typed.List '#' and typed.Dict '&' (typed.c) ----------------------
 * typed_typecode: as cv_typecode, 1 when obj is no typed container.
 * typed_unbox passes the native container borrowed; typed_box wraps a
 * returned one (taking its reference); typed_after_call gives array items
 * that compiled code stored borrowed a reference to their ndarray. */
int typed_init(PyObject *mod);
int typed_typecode(PyObject *obj, char *buf, size_t *len, size_t cap);
int typed_matches(PyObject *obj, const char **tc);
int typed_unbox(PyObject *obj, const char **tc, char *out);
PyObject *typed_box(const char **tc, char *in);
int typed_after_call(PyObject *obj, const char *tc);
/* generator objects 'G' <item> (generator.c): as the typed_ functions;
 * gen_box takes the returned object's reference.  Between gen_keep_push
 * and gen_keep_pop (what push returned; nested calls stack) every
 * generator object boxed holds the call's arguments, whose arrays its
 * body may still read (GIL held). */
int gen_init(PyObject *mod);
int gen_typecode(PyObject *obj, char *buf, size_t *len, size_t cap);
int gen_matches(PyObject *obj, const char **tc);
int gen_unbox(PyObject *obj, const char **tc, char *out);
PyObject *gen_box(CoreState *st, const char **tc, char *in);
PyObject *gen_keep_push(PyObject *const *args, Py_ssize_t nargs);
void gen_keep_pop(PyObject *prev);
/* jitclass instances 'J' <id> (typed.c): as the typed_ functions */
int jc_typecode(PyObject *obj, char *buf, size_t *len, size_t cap);
int jc_matches(PyObject *obj, const char **tc);
int jc_unbox(PyObject *obj, const char **tc, char *out);
PyObject *jc_box(const char **tc, char *in);

/* ---- named tuples 'N' (namedtuple.c) ------------------------------------
 * nt_header appends "N<id>:<name>:<fields>:" for a class (-1: not
 * nameable, no exception); nt_skip_header returns the '(' after the header
 * of the 'N' typecode at p (NULL if malformed) and its class id; nt_class
 * is the class of an id (borrowed; NULL with SystemError). */
int nt_is_class(PyObject *cls);
int nt_header(PyObject *cls, char *buf, size_t *len, size_t cap);
const char *nt_skip_header(const char *p, long *id);
/* Whether the typecodes in [tc, end) hold a reference (an array, str,
 * bytes, list, tuple of such, typed container...: the items of a container
 * made from Python then need copy/free operations); a named tuple's header
 * is skipped (its names are not codes). */
int tc_has_refs(const char *tc, const char *end);
PyObject *nt_class(long id);
long nt_id(PyObject *cls);
/* The integer code ('l', 'L') of the IntEnum member typecode at tc
 * ("N<id>:<name>:_int_:(l)", or _flag_), else 0: its values are that int
 * (hashed and compared as it, as compiled code does). */
char nt_int_code(const char *tc);
/* A class registered with _nt_register_struct(cls, fields) crosses as a
 * named tuple of those stored attributes (np.polynomial.Polynomial: coef,
 * domain, window): nt_struct_values is a new tuple of obj's attributes
 * when obj is an instance of such a class, else NULL (no exception unless
 * an attribute is missing); it boxes as cls(*values). */
PyObject *nt_struct_values(PyObject *obj);
extern PyMethodDef nt_methods[];

/* ---- structured dtypes 'V' (record.c) ----------------------------------
 * rec_typecode appends the 'V' typecode of a structured dtype (-1: it has
 * none, no exception); rec_skip returns the end of the 'V' typecode at p
 * (NULL if malformed) and its id; rec_descr is the dtype of an id
 * (borrowed; NULL with SystemError); a record scalar (np.void/np.record
 * with fields) is passed as rec_scalar_data, its bytes; rec_box makes a
 * new np.record holding a copy of a record's bytes. */
int rec_typecode(PyArray_Descr *d, char *buf, size_t *len, size_t cap);
const char *rec_skip(const char *p, long *id);
PyArray_Descr *rec_descr(long id);
/* Is d the dtype of the 'V' typecode at p?  rec_scalar_descr: the dtype of
 * a record scalar (borrowed). */
int rec_same(PyArray_Descr *d, const char *p);
/* d is p's record or a width subtype of it (Numba's record subtyping: d
 * has every field of p, same name, offset and type). */
int rec_subtype(PyArray_Descr *d, const char *p);
PyArray_Descr *rec_scalar_descr(PyObject *obj);
int rec_is_record_scalar(PyObject *obj);
int rec_scalar_typecode(PyObject *obj, char *buf, size_t *len, size_t cap);
void *rec_scalar_data(PyObject *obj);
PyObject *rec_box(long id, const void *data);
extern PyMethodDef rec_methods[];

/* ---- extension types of numba.extending (extension.c) ---------------------
 * Named tuple ids whose values cross the boundary through the user's
 * @unbox/@box code.  ext_typecode: 1 when obj is no such value, else as
 * cv_typecode; the others take the id from the 'N' header. */
int ext_is(long id);
int ext_typecode(PyObject *obj, char *buf, size_t *len, size_t cap);
int ext_matches(long id, PyObject *obj);
int ext_unbox(long id, PyObject *obj, char *out);
PyObject *ext_box(long id, const char *in);
extern PyMethodDef ext_methods[];

/* ---- dispatcher (dispatcher.c) ----------------------------------------- */
extern PyType_Spec dp_dispatcher_spec;
/* parallel.c: set_num_threads, get_thread_id, set_parallel_chunksize... */
extern PyMethodDef pa_methods[];
/* cuda.c: the CUDA driver layer and the kernel launch fast path (hpcjit.cuda) */
extern PyMethodDef cu_methods[];

/* _register_exception(key, cls): a program's exception class that compiled
 * code raises under `key` (dispatcher.c). */
PyObject *core_register_exception(PyObject *mod, PyObject *args);

#endif
