/* module.c - hpcjit._core: the dispatcher and the runtime, without LLVM. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "hpcjit._core", "hpcjit dispatcher and runtime", 0, NULL,
};

PyMODINIT_FUNC PyInit__core(void);
PyMODINIT_FUNC PyInit__core(void) { return PyModuleDef_Init(&core_module); }
