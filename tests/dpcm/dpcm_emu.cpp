/*
 * cuda/dpcm/dpcm.cu built for the host: each kernel becomes a loop over the
 * same device functions, the warp kernels a warp at a time with its lanes
 * as coroutines (warp_emu.cpp).  With tests/common/cuda_emu.c (and dwt_emu.cpp
 * for sci_cuda_error_string) it runs parity_dpcm.c where there is no GPU.
 * Built as is, sums, maxima and minima over a warp are the reduction
 * instructions of sm_80 and newer (emulated); with SCI_DPCM_SHFL_REDUCE,
 * Turing's shuffle butterflies (tests/meson.build builds both).
 */
#define SCI_DPCM_EMU 1
#include "cuda/dpcm/dpcm.cu"
