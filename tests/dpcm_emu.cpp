/*
 * cuda/dpcm.cu built for the host: each kernel becomes a loop over the
 * same device functions (one block of one thread).  With tests/cuda_emu.c
 * (and dwt_emu.cpp for sci_cuda_error_string) it runs parity_dpcm.c where
 * there is no GPU.
 */
#define SCI_DPCM_EMU 1
#include "cuda/dpcm.cu"
