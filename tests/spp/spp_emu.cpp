/*
 * cuda/spp/spp.cu built for the host: each kernel becomes a loop over the
 * same device functions (a block's threads one after another between its
 * barriers).  With tests/common/cuda_emu.c (and dwt_emu.cpp for
 * sci_cuda_error_string) it runs parity_spp.c where there is no GPU.
 */
#define SCI_SPP_EMU 1
#include "cuda/spp/spp.cu"
