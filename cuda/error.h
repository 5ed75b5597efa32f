/*
 * Error codes of the cuda/ APIs as words: cudaError_t values (0 = success)
 * and each family's own codes (negative: codec/dpcm/dpcm.h's; the HT block
 * coder's SCI_CUDA_HT_ERR_*, cuda/j2k/htj2k.h; the JPEG 2000 decoder's
 * SCI_CUDA_J2KDEC_ERR_*, cuda/j2k/j2kdec.h).
 */
#ifndef SCI_CUDA_ERROR_H
#define SCI_CUDA_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

const char *sci_cuda_error_string(int err);

#ifdef __cplusplus
}
#endif
#endif
