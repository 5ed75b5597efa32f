/*
 * cuda/seismic/seismic.cu built for the host: each kernel becomes a loop over the
 * same per-thread functions.  With tests/common/cuda_emu.c (and dwt_emu.cpp for
 * sci_cuda_error_string) it runs parity_seismic.c where there is no GPU.
 */
#define SCI_SEIS_EMU 1
#include "cuda/seismic/seismic.cu"
