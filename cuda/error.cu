/*
 * The one error string of every cuda/ API: cudaError_t values and the
 * families' own codes (the DPCM codec's negative ones, the HT block
 * coder's).  It sits above the families, which know nothing of each other.
 */
#include <cuda_runtime.h>

#include "error.h"
#include "codec/dpcm/dpcm.h"
#include "cuda/j2k/htj2k.h"
#include "cuda/j2k/j2kdec.h"

extern "C" const char *sci_cuda_error_string(int err) {
    /* the DPCM codec's frame and argument codes (cuda/dpcm/dpcm.h) */
    if (err < 0)
        return sci_dpcm_error_string(err);
    /* the HT block coder's own codes (cuda/j2k/htj2k.h) */
    if (err == SCI_CUDA_HT_ERR_BLOCK)
        return "a code-block could not be coded (magnitude out of range)";
    if (err == SCI_CUDA_HT_ERR_CAP)
        return "output buffer too small for the codestream";
    /* the JPEG 2000 decoder's (cuda/j2k/j2kdec.h) */
    if (err == SCI_CUDA_J2KDEC_ERR_DECODE)
        return "the JPEG 2000 codestream cannot be decoded";
    if (err == SCI_CUDA_J2KDEC_ERR_ARG)
        return "invalid call of the JPEG 2000 decoder";
    if (err == SCI_CUDA_J2KDEC_ERR_UNSUPPORTED)
        return "packed output planes for a frame decoded on the host";
    return cudaGetErrorString((cudaError_t)err);
}
