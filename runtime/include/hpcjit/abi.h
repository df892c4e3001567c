/* hpcjit/abi.h - the contract between compiled code, the runtime and the
 * dispatcher.  Everything that crosses the boundary between the Python
 * extension and JIT-compiled code is described here.
 *
 * TYPECODES
 * ---------
 * A compact, unambiguous spelling of a type, used as the dispatcher's
 * fast-path key (the typecodes of all arguments concatenated and compared
 * with memcmp) and to tell the dispatcher how to box a return value.
 *
 *   '?' bool     'b' int8   'h' int16   'i' int32   'l' int64
 *                'B' uint8  'H' uint16  'I' uint32  'L' uint64
 *   'e' float16 (CUDA kernels only: the CPU compiler refuses it)
 *   'f' float32  'd' float64  'F' complex64  'D' complex128
 *   'n' None
 *   'a' <dtype> <ndim> <layout>      array; dtype one of the scalar codes
 *                                    above ('?'..'D'), ndim one character
 *                                    '0' + ndim (ndim <= 32), layout
 *                                    'C' | 'F' | 'A'.   "ad2C" = float64 2-D C
 *   'r' <dtype> <ndim> <layout>      read-only array (flags.writeable False):
 *                                    as 'a', but compiled code never stores
 *                                    into it.  An 'r' parameter accepts
 *                                    writable arrays too, an 'a' one not
 *                                    read-only ones.    "rd1C"
 *   'y'                              bytes: its buffer as a read-only uint8
 *                                    1-d C array (parent: the bytes object,
 *                                    borrowed); returned as a bytes object
 *   'Y'                              bytearray: the same, writable; returned
 *                                    as a bytearray
 *   '(' <typecode>* ')'              tuple (homogeneous or not): "(ll)"
 *   'o' <typecode>                   Optional (returns only): None or a value
 *                                    of that type: "ol"
 *   't' <dtype>                      a NumPy dtype object / scalar class
 *                                    (np.float64 or arr.dtype)
 *   's'                              str (lib/str; the dispatcher copies
 *                                    a Python str in, see UNBOXED LAYOUT)
 *   'G' <item>                       generator object yielding <item>s
 *                                    (hpcjit/generator.h): returned as an
 *                                    hpcjit._core.Generator (a lazy Python
 *                                    iterator); such an object passed back
 *                                    in is borrowed.  "Gl", "G(ld)"
 *   'P' <ret> '(' <args> ')'         FunctionType (a first-class function):
 *                                    a C function of that signature (numbers
 *                                    and bool; ret 'n' for void), from a
 *                                    @cfunc, a Wrapper Address Protocol
 *                                    object or a dispatcher compiled for it
 *                                    (python/hpcjit/_fntype.py).  "Pd(dl)"
 *   'R'                              a numpy.random.Generator (arguments
 *                                    only; lib/random)
 *   'V' <id> ':' <itemsize> ':' ('A'|'U') '{' (<name> '@' <offset> <field>)* '}'
 *                                    a record: an item of a NumPy structured
 *                                    dtype (Numba's Record); <id> numbers the
 *                                    dtype in _core's registry (record.c),
 *                                    'A' an aligned struct; a <field> is a
 *                                    number code, a nested 'V', or a subarray
 *                                    'x' <ndim> (<dim> ',')* <number code>, or
 *                                    a character sequence 'c' <n> ',' ('S<n>')
 *                                    / 'w' <n> ',' ('U<n>').
 *                                    As an array's dtype: "aV0:12:U{a@0db@8i}1C";
 *                                    as a dtype object: 't' 'V...'
 *   (range objects have no typecode: they are not passed across)
 *
 * CONTAINERS (proposed; runtime and boxing exist, the dispatcher does not
 * use them yet: hpcjit/containers.h, python/core/box_containers.c)
 *   '[' <item>                       list of one item type, from a Python
 *                                    list: copied in, REFLECTED (its final
 *                                    contents written back into the caller's
 *                                    list after the call, as Numba does);
 *                                    returned as a new Python list.  "[l",
 *                                    "[(ld)", "[ad1C", "[[d" (list of lists)
 *   '#' <item>                       hpcjit.typed.List: passed by reference
 *                                    (its own native list, no conversion),
 *                                    returned as a typed.List.  "#d"
 *   '{' <key> <value>                dict: an hpcjit.typed.Dict by reference
 *                                    (a plain dict argument: copied in and
 *                                    reflected); returned as a typed.Dict
 *                                    as Numba does.  "{ld", "{(ll)[d"
 *   '<' <item>                       set, from a Python set (reflected);
 *                                    returned as a new Python set.  "<l"
 *   The item typecodes are any of the above (nested containers included);
 *   the characters '[', '#', '{', '<' are otherwise unused.  A container
 *   type also needs an RtItemOps per item type: the compiler emits it and
 *   hands its address to the dispatcher with the entry point.
 *
 * UNBOXED LAYOUT (what args[i] points to, what the return buffer holds)
 * ---------------------------------------------------------------------
 *   bool       uint8_t, 0 or 1
 *   intN/uintN the C integer of that width
 *   float32/64 float / double
 *   complex64  struct { float re, im; }   complex128 struct { double re, im; }
 *   None       nothing (zero bytes)
 *   dtype      nothing (zero bytes)
 *   array      HjArray with ndim entries in shape_strides: shape[0..nd) then
 *              strides[0..nd) (in bytes)
 *   tuple      a C struct of its elements in order, natural alignment (the
 *              same layout LLVM gives a non-packed struct on x86-64/aarch64)
 *   Optional   struct { uint8_t valid; T value; }: valid 0 is None (value
 *              then zero)
 *   str        HjMemInfo * of a native str (hpcjit/str.h).  An
 *              argument is unboxed into a NEW native str that copies the
 *              PyUnicode's kind and code units (box_str_from_py); compiled
 *              code borrows it like any argument (increfs what it keeps)
 *              and the dispatcher decrefs it after the call.  A copy, not
 *              a view of the PyUnicode's buffer: HjStr keeps its code
 *              units inline after its header (one allocation, read by
 *              compiled code at a fixed offset), which a foreign buffer
 *              cannot satisfy without an indirection on every access;
 *              Python strs are immutable, so a copy is always right, and a
 *              str stored into a container outliving the call just stays a
 *              normal refcounted MemInfo.  The cost is a malloc and a
 *              memcpy, small beside a dispatch.  A returned str (also
 *              inside a tuple) owns one reference; the dispatcher boxes it
 *              with PyUnicode_FromKindAndData (box_str_to_py) and decrefs.
 *   generator  HjMemInfo * of an HjGenerator (hpcjit/generator.h); a
 *              returned one owns one reference, which the Python object
 *              takes (it also keeps the call's arguments alive)
 *   record     void * to its bytes: an np.void/np.record argument's own
 *              buffer (a view into its array: writes are seen there); a
 *              returned one is boxed as a new np.record holding a copy
 *   FunctionType  void *: the C function's address (boxed back as the
 *              object it was taken from)
 *   Generator  bitgen_t * of its BitGenerator (numpy/random/bitgen.h, from
 *              bit_generator.capsule), borrowed for the call
 *   list, dict, set (both kinds of list)
 *              HjMemInfo * whose data is an HjList / HjDict / HjSet
 *              (containers.h).  An argument is borrowed (the dispatcher
 *              makes it, reflects it, then releases it); a return value
 *              owns one reference.
 *
 * ENTRY POINT
 * -----------
 *   int32_t entry(void *ret, void **args);
 * returns 0 on success; -1 when a Python exception is pending in the
 * calling thread's runtime exception state (rt_exc_*, runtime.h).
 * Arguments are borrowed: an array argument from Python has meminfo NULL and
 * `parent` set to the borrowed PyArrayObject*.  A returned array owns one
 * reference to its meminfo (or has meminfo NULL and `parent` set when it is
 * an argument or a view of one: the dispatcher then returns a view of
 * `parent`).  A returned tuple owns references to the arrays inside it.
 */
#ifndef HPCJIT_ABI_H
#define HPCJIT_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HJ_MAX_NDIM 32
#define HJ_MAX_TYPECODE 256 /* longest typecode string accepted, with NUL */

/* An exception raised with arguments other than one message
 * (ValueError("bad", x), KeyError(3)): its message (rt_raise) is
 * HJ_EXC_ARGS_MARK, then per argument a tag and the argument's text,
 * HJ_EXC_ARGS_SEP between two; tags: s str, i int, f float (repr), c
 * complex, b bool, n None (compiler/infer/infer_call.c exc_args).  The
 * dispatcher makes the exception's args tuple back from it. */
#define HJ_EXC_ARGS_MARK "\x1e"
#define HJ_EXC_ARGS_SEP "\x1f"

typedef struct HjMemInfo HjMemInfo;

typedef struct HjArray {
    HjMemInfo *meminfo; /* owner of the data, NULL when borrowed from Python */
    void *parent;       /* PyArrayObject* the data came from, or NULL        */
    int64_t nitems;     /* product of shape                                   */
    int64_t itemsize;   /* bytes per element                                  */
    char *data;         /* first element                                      */
    int64_t shape_strides[]; /* shape[ndim], then strides[ndim] (bytes)      */
} HjArray;

#define HJ_ARRAY_SIZE(ndim) (sizeof(HjArray) + 2 * (size_t)(ndim) * sizeof(int64_t))

typedef int32_t (*HjEntryFn)(void *ret, void **args);

#ifdef __cplusplus
}
#endif
#endif
