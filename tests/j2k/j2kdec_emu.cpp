/*
 * cuda/j2k/j2kdec.cu and j2kdec_lanes.cu built for the host: the kernel
 * launches become loops over the pieces and code-blocks running the same
 * device functions.  With
 * dwt_emu.cpp (the inverse DWT), error_emu.cpp and tests/common/cuda_emu.c
 * it runs parity_j2k_dec.c where there is no GPU.
 */
#define SCI_J2KDEC_EMU 1
#include "cuda/j2k/j2kdec.cu"
#include "cuda/j2k/j2kdec_lanes.cu"
