/*
 * The wavelet stage on the GPU: the same transform as codec/j2k/wavelet_frame.h
 * (DC level shift, RCT/ICT, 5/3 or 9/7 DWT, Mallat layout, same coefficient
 * buffer layout), with every address a device address.  Integer results
 * equal the C reference exactly; float results too, as the kernels do the
 * reference's float operations in the reference's order (built with
 * -fmad=false).
 *
 * Everything runs on the CUDA context current on the calling thread and is
 * queued on `stream` (a cudaStream_t, passed as void * so C callers need no
 * CUDA headers); nothing synchronises, the caller does.
 *
 * Errors are cudaError_t values (0 = success); sci_cuda_error_string (cuda/error.h)
 * tells them.
 */
#ifndef SCI_CUDA_DWT_H
#define SCI_CUDA_DWT_H

#include "codec/j2k/wavelet_frame.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device scratch for one geometry; create once per negotiated format, not
 * per frame. */
typedef struct sci_cuda_wt sci_cuda_wt;

int sci_cuda_wt_create(sci_cuda_wt **out, const sci_wt_geometry *g);
void sci_cuda_wt_destroy(sci_cuda_wt *wt);

/* src[c]: component c's samples; coeffs: sci_wt_coeff_count(g) * 4 bytes. */
int sci_cuda_wt_forward(sci_cuda_wt *wt, const sci_wt_plane src[],
                        void *coeffs, void *stream);
/* coeffs is left unchanged. */
int sci_cuda_wt_inverse(sci_cuda_wt *wt, const void *coeffs,
                        const sci_wt_plane dst[], void *stream);

/* A component's output by the JPEG 2000 decoder's rules (as
 * codec/j2k/j2k_dec.c writes samples): add `shift` (the DC level shift,
 * 0 for signed components), clamp to [lo, hi], `bytes` (1 or 2) a sample;
 * 9/7 values rounded to nearest, ties to even. */
typedef struct {
    int32_t shift, lo, hi;
    unsigned bytes;
} sci_cuda_wt_out;

/* sci_cuda_wt_inverse with out[c] per component instead of the geometry's
 * depth (used by cuda/j2k/j2kdec.cu). */
int sci_cuda_wt_inverse_dec(sci_cuda_wt *wt, const void *coeffs,
                            const sci_wt_plane dst[],
                            const sci_cuda_wt_out out[], void *stream);
/* The same in two calls: levels above `level` (>= 1; their low bands,
 * which need only the coefficients of those levels), then the rest down
 * to the samples; sci_cuda_wt_inverse_dec is the two in turn.  dst and
 * out are read by the second call only. */
int sci_cuda_wt_inverse_dec_above(sci_cuda_wt *wt, const void *coeffs,
                                  unsigned level, void *stream);
int sci_cuda_wt_inverse_dec_rest(sci_cuda_wt *wt, const void *coeffs,
                                 unsigned level, const sci_wt_plane dst[],
                                 const sci_cuda_wt_out out[], void *stream);

#ifdef __cplusplus
}
#endif
#endif
