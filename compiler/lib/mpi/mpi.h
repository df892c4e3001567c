/* mpi.h - the mpi feature (hpcjit.mpi calls and hpcjit.mpi.prange loops in
 * compiled code; registered as lib_mpi_ops at the end of infer_mpi.c): what
 * its files share. */
#ifndef HPCJIT_LIB_MPI_H
#define HPCJIT_LIB_MPI_H

#include "lower.h"

LLVMValueRef lower_mpi_call(Lower *L, Node *n, bool *owned);
/* An N_FOR with n->dist: the rank's block, reductions allreduced after it. */
bool lower_mpi_for(Lower *L, Node *n);
/* hpcjit.mpi.prange's range narrowed to this rank's block (start/stop in
 * place; other ranges are left alone). */
bool lower_mpi_block(Lower *L, Node *call, LLVMValueRef *start, LLVMValueRef *stop, LLVMValueRef step);

#endif
