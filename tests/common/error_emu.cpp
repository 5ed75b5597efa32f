/*
 * cuda/error.cu built for the host, for the emulated parity tests (their
 * CUDA runtime is tests/common/cuda_emu.c).
 */
#include "cuda/error.cu"
