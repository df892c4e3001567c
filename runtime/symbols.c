/* symbols.c - the runtime functions compiled code may call, by name, for
 * the JIT to register as absolute symbols (see runtime.h). */
#include "hpcjit/linalg.h"
#include "hpcjit/complexmath.h"
#include "hpcjit/mpi_hooks.h"
#include "hpcjit/parallel.h"
#include "hpcjit/pool.h"
#include "hpcjit/runtime.h"
#include "hpcjit/search.h"
#include "hpcjit/text.h"

/* Function pointers stored as data pointers: POSIX guarantees the
 * round trip, and the JIT only needs the address. */
#define RT_SYM(fn) { #fn, (void *)(uintptr_t)&fn }

static const RtSymbol symbol_table[] = {
    RT_SYM(rt_alloc),
    RT_SYM(rt_alloc_zeroed),
    RT_SYM(rt_incref),
    RT_SYM(rt_decref),
    RT_SYM(rt_raise),
    RT_SYM(rt_raise_index),
    RT_SYM(rt_raise_zerodiv),
    RT_SYM(rt_exc_pending),
    RT_SYM(rt_exc_clear),
    /* prange loops of parallel=True functions (compiler/lower_parallel.c) */
    RT_SYM(rt_parallel_for),
    RT_SYM(rt_parallel_for_grain),
    RT_SYM(rt_set_num_threads),
    RT_SYM(pool_parallel_for),
    RT_SYM(pool_get_num_threads),
    RT_SYM(pool_get_thread_id),
    /* search: sorting/searching and np.random (search.c, random.c) */
    RT_SYM(rt_raise_axis),
    RT_SYM(rt_sort),
    RT_SYM(rt_argsort),
    RT_SYM(rt_unique),
    RT_SYM(rt_searchsorted),
    RT_SYM(rt_digitize),
    RT_SYM(rt_count_nonzero),
    RT_SYM(rt_nonzero),
    RT_SYM(rt_argwhere),
    RT_SYM(rt_bincount_len),
    RT_SYM(rt_bincount),
    RT_SYM(rt_interp),
    RT_SYM(rt_histogram),
    RT_SYM(rt_random_seed),
    RT_SYM(rt_random_stream),
    RT_SYM(rt_random_fill),
    RT_SYM(rt_random_randint),
    RT_SYM(rt_random_shuffle),
    RT_SYM(rt_random_sample),
    /* print() and f-string messages (text.c; compiler/lower_text.c) */
    RT_SYM(rt_text_begin),
    RT_SYM(rt_text_str),
    RT_SYM(rt_text_repr_str),
    RT_SYM(rt_text_int),
    RT_SYM(rt_text_uint),
    RT_SYM(rt_text_f64),
    RT_SYM(rt_text_f32),
    RT_SYM(rt_text_c128),
    RT_SYM(rt_text_c64),
    RT_SYM(rt_text_bool),
    RT_SYM(rt_text_format_int),
    RT_SYM(rt_text_format_float),
    RT_SYM(rt_text_array),
    RT_SYM(rt_text_print),
    RT_SYM(rt_text_raise),
    /* linear algebra (linalg.c; compiler/lower_linalg.c) */
    RT_SYM(rt_linalg_matmul),
    RT_SYM(rt_linalg_matmul_shape),
    RT_SYM(rt_linalg_matmul_nd),
    RT_SYM(rt_linalg_outer),
    RT_SYM(rt_linalg_kron),
    RT_SYM(rt_linalg_trace),
    RT_SYM(rt_linalg_norm),
    RT_SYM(rt_linalg_norm_axis),
    RT_SYM(rt_linalg_solve),
    RT_SYM(rt_linalg_inv),
    RT_SYM(rt_linalg_det),
    RT_SYM(rt_linalg_cholesky),
    RT_SYM(rt_linalg_eigh),
    RT_SYM(rt_linalg_eig),
    RT_SYM(rt_linalg_svd),
    RT_SYM(rt_linalg_qr),
    RT_SYM(rt_linalg_lstsq),
    RT_SYM(rt_linalg_stacked),
    RT_SYM(rt_linalg_slogdet),
    RT_SYM(rt_linalg_pinv),
    RT_SYM(rt_linalg_matrix_rank),
    RT_SYM(rt_linalg_cond),
    RT_SYM(rt_linalg_matrix_power),
    /* complex math of np ufuncs and cmath (complexmath.c; compiler/lower_cmath.c) */
    RT_SYM(rt_cmath_v),
    RT_SYM(rt_cmathf_v),
    /* hpcjit.mpi in compiled code (mpi_hooks.c; compiler/lower_mpi.c) */
    RT_SYM(rt_mpi_rank),
    RT_SYM(rt_mpi_size),
    RT_SYM(rt_mpi_local_rank),
    RT_SYM(rt_mpi_barrier),
    RT_SYM(rt_mpi_allreduce),
    RT_SYM(rt_mpi_reduce),
    RT_SYM(rt_mpi_bcast),
    RT_SYM(rt_mpi_gather),
    RT_SYM(rt_mpi_allgather),
    RT_SYM(rt_mpi_scatter),
    RT_SYM(rt_mpi_send),
    RT_SYM(rt_mpi_recv),
    RT_SYM(rt_mpi_block),
    { NULL, NULL },
};

const RtSymbol *rt_symbols(void) { return symbol_table; }
