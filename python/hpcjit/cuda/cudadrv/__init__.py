"""hpcjit.cuda.cudadrv: the CUDA driver layer (numba.cuda.cudadrv's names)."""
