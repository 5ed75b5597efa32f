/*
 * cuda/j2k/t1.cu built for the host: each kernel launch becomes a loop over the
 * code-blocks running the same device functions, the modeller's warp as 32
 * coroutines.  With tests/common/cuda_emu.c (and dwt_emu.cpp for
 * sci_cuda_error_string) it runs parity_t1.c where there is no GPU.
 */
#define SCI_T1_EMU 1
#include "cuda/j2k/t1.cu"
