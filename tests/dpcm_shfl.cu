/*
 * cuda/dpcm.cu with the warp reductions done by shuffle butterflies, as on
 * Turing (sm_75), whatever the architecture built for: parity-dpcm-shfl
 * runs parity_dpcm.c with it on a newer GPU.
 */
#define SCI_DPCM_SHFL_REDUCE 1
#include "cuda/dpcm.cu"
