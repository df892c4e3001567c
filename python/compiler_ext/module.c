/* module.c - hpcjit._compiler: the compiler and the JIT (links LLVM). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static struct PyModuleDef compiler_module = {
    PyModuleDef_HEAD_INIT, "hpcjit._compiler", "hpcjit compiler", 0, NULL,
};

PyMODINIT_FUNC PyInit__compiler(void);
PyMODINIT_FUNC PyInit__compiler(void) { return PyModuleDef_Init(&compiler_module); }
