/* compiler_ext.h - private to hpcjit._compiler: turning the Python
 * description of a compilation into plain C structs (request.c) that
 * hj_compile() reads with the GIL released. */
#ifndef HPCJIT_COMPILER_EXT_H
#define HPCJIT_COMPILER_EXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "hpcjit/compiler.h"
#include "util.h"

/* Fill *req from the Python arguments of _compiler.compile(); every string
 * and array is copied into `arena`, so no Python object is needed while
 * the request is used.  Returns 0, or -1 with a Python exception set.
 * Needs the GIL. */
int cx_build_request(Arena *arena, HjRequest *req, PyObject *funcs, int entry,
                     PyObject *argtypes, PyObject *rettype);

#endif
