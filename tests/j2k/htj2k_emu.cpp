/*
 * cuda/j2k/htj2k.cu built for the host: each kernel launch becomes a loop over
 * the code-blocks running the same device functions.  With tests/common/cuda_emu.c
 * (and dwt_emu.cpp for sci_cuda_error_string) it runs parity_htj2k.c where
 * there is no GPU.
 */
#define SCI_HT_EMU 1
#include "cuda/j2k/htj2k.cu"
