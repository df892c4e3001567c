/* cmplx.h - <complex.h> plus CMPLX/CMPLXF where the C library leaves them
 * out (glibc defines them for GCC >= 4.7 only; clang, the fuzzing build,
 * gets the builtin they expand to).  Private to the runtime. */
#ifndef HPCJIT_RUNTIME_CMPLX_H
#define HPCJIT_RUNTIME_CMPLX_H
#include <complex.h>
#ifndef CMPLX
#define CMPLX(x, y) __builtin_complex((double)(x), (double)(y))
#endif
#ifndef CMPLXF
#define CMPLXF(x, y) __builtin_complex((float)(x), (float)(y))
#endif
#endif
