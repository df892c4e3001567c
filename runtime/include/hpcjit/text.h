/* text.h - text built by compiled code (runtime/text.c): the lines of
 * print() and the messages of exceptions raised with an f-string.
 *
 * Compiled code evaluates every value first, then calls rt_text_begin(),
 * one rt_text_* per piece, and ends with rt_text_print() or
 * rt_text_raise().  The text lives in a per-thread buffer, so each thread
 * (prange workers included) builds its own lines.  Numbers are written as
 * Python writes them: floats by their shortest round-trip repr, complex as
 * "(1+2j)", bools as True/False.
 *
 * Output: a line goes to Python's sys.stdout when the calling thread holds
 * the GIL (so it interleaves with Python's own prints and is captured like
 * them), else straight to file descriptor 1 under a lock (prange workers,
 * nogil=True functions).  Arrays are formatted by NumPy (str/repr) when the
 * GIL is held, else by a plain C rendering ("[1.0 2.5 3.0]").  Both go
 * through hooks that hpcjit._core installs (rt_text_set_hooks); without
 * them the C fallbacks are used.
 *
 * Thread safety: every function may be called from any thread. */
#ifndef HPCJIT_TEXT_H
#define HPCJIT_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "hpcjit/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

void rt_text_begin(void);
void rt_text_str(const char *s);          /* as is */
void rt_text_repr_str(const char *s);     /* quoted like repr(): 'abc' */
void rt_text_int(int64_t v);
void rt_text_uint(uint64_t v);
void rt_text_f64(double v);               /* repr(float) */
void rt_text_f32(float v);                /* str(np.float32) */
void rt_text_c128(double re, double im);  /* repr(complex) */
void rt_text_c64(float re, float im);
void rt_text_bool(int32_t v);
/* format(v, spec) of Python's format mini-language for an integer
 * (`is_unsigned`: v is a uint64) or a float (`is_f32`: print the shortest
 * float32 repr when no precision is given).  0, or -1 with ValueError
 * pending for a bad spec. */
int32_t rt_text_format_int(int64_t v, int32_t is_unsigned, const char *spec);
int32_t rt_text_format_float(double v, int32_t is_f32, const char *spec);
/* format(int(v), spec) of a float (printf's %d of a float): ValueError for
 * nan, OverflowError for infinities, exact digits past int64. */
int32_t rt_text_format_float_int(double v, const char *spec);
/* str(a) (repr(a) when `repr`) of an array; `dt` is its dtype's typecode
 * character ('d', 'l', ... of abi.h). */
void rt_text_array(const HjArray *a, int32_t ndim, int32_t dt, int32_t repr);
/* Write the text and `end` as one line of output. 0, or -1 with an
 * exception pending when Python's sys.stdout raised. */
int32_t rt_text_print(const char *end);
/* Raise exception class `type` (a name as rt_raise takes) with the text
 * as its message. */
void rt_text_raise(const char *type);

/* The current text (for tests); valid until the next rt_text_* call. */
const char *rt_text_current(size_t *len);

/* Hooks installed by hpcjit._core.  write_stdout: write n bytes to
 * sys.stdout if the calling thread holds the GIL; returns 1 if written, 0
 * if the GIL is not held (the runtime then writes to fd 1), -1 with the
 * Python error turned into a pending runtime exception.  array_text:
 * str()/repr() of the array through NumPy into a malloc'ed string (*out,
 * caller frees), 1 on success, 0 when not possible now (no GIL). */
typedef struct RtTextHooks {
    int (*write_stdout)(const char *s, size_t n);
    int (*array_text)(const HjArray *a, int32_t ndim, int32_t dt, int32_t repr, char **out);
} RtTextHooks;
void rt_text_set_hooks(const RtTextHooks *hooks); /* NULL removes them */

#ifdef __cplusplus
}
#endif
#endif
