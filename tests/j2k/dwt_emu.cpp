/*
 * cuda/j2k/dwt.cu built for the host: each kernel launch becomes a loop over
 * its blocks, each block NT coroutines meeting at every barrier (in an
 * order that alternates, so a missing barrier shows).  With tests/common/cuda_emu.c
 * it runs parity_dwt.c where there is no GPU.
 */
#define SCI_DWT_EMU 1
#include "cuda/j2k/dwt.cu"
