/* objload.h - load an ELF relocatable object that hpcjit's back end wrote
 * (a cache entry, an object broadcast over MPI) without LLVM.
 *
 * A cache hit must cost far less than the compile it replaces; loading
 * libLLVM alone costs more than that.  rt_obj_load maps the object's
 * allocated sections, resolves its undefined symbols against the runtime
 * (rt_symbols()), the compiler-rt helpers the back end calls and the
 * process (dlsym), applies the relocations and returns the address of one
 * defined symbol.  It knows the relocations LLVM emits for hpcjit's code
 * model (PIC, small) on x86-64; anything else - another machine, a TLS or
 * constructor section, a relocation it does not know - is refused with a
 * message, and the caller loads the object through LLVM instead.
 *
 * Loaded code is never unmapped (as with the JIT, functions live as long
 * as the process).  Unwind tables are loaded but not registered. */
#ifndef HPCJIT_OBJLOAD_H
#define HPCJIT_OBJLOAD_H

#include <stddef.h>

/* The address of `symbol` in the loaded object, or NULL with a message
 * (at most errlen bytes, NUL-terminated) in err. */
void *rt_obj_load(const void *object, size_t size, const char *symbol, char *err, size_t errlen);

#endif
