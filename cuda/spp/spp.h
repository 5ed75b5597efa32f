/*
 * SPP (codec/spp/spp.h) on the GPU: the paper's four kernels, centroid, norms
 * (here the unit vectors with them), similarity (alpha) and displacement.
 * The similarity kernel works on tiles of 16 x 16 pixels with their
 * window's halo in shared memory, a chunk of bands at a time, each thread
 * one pixel and a group of its neighbours at a time; unit vectors are
 * computed once per pixel, not once per pair.  Arithmetic is double, as in
 * the reference; the sums' orders differ from it only where the work is
 * split (the centroid over blocks, a norm over a warp's lanes) and
 * |u + v|^2 is taken as 4 - |u - v|^2: within a few ulps of the
 * reference's values before the output is rounded to float.
 *
 * Everything runs on the CUDA context current on the calling thread, on
 * `stream` (a cudaStream_t passed as void *); the call returns once the
 * output is in place.  Device buffers grow to the largest cube seen.
 *
 * Returns 0, a negative SCI_SPP_E_* code of codec/spp/spp.h, or a positive
 * cudaError_t (sci_cuda_error_string of cuda/error.h names it).
 */
#ifndef SCI_CUDA_SPP_H
#define SCI_CUDA_SPP_H

#include <stddef.h>

#include "codec/spp/spp.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sci_cuda_spp sci_cuda_spp;

int sci_cuda_spp_create(sci_cuda_spp **out);
void sci_cuda_spp_destroy(sci_cuda_spp *c);

/* Device memory held now, in bytes. */
size_t sci_cuda_spp_device_bytes(const sci_cuda_spp *c);

/* Plans the kernels as for a GPU with at most `bytes` of shared memory a
 * block (0, the default: the device's own): a test on a large GPU runs the
 * launch shapes of a smaller one (65536: Turing) this way.  The output
 * does not depend on it. */
void sci_cuda_spp_limit_shared(sci_cuda_spp *c, size_t bytes);

/* Filters the BIP cube `in` (lines x samples x bands values of format f;
 * device memory when in_on_device, else host memory) into the BIP float
 * cube `out` (device memory when out_on_device, else host memory).  On
 * an error (SCI_SPP_E_VALUE too) out's contents are unspecified. */
int sci_cuda_spp_filter(sci_cuda_spp *c, const void *in, int in_on_device,
                        sci_spp_format f, size_t lines, size_t samples,
                        size_t bands, unsigned window, float *out,
                        int out_on_device, void *stream);

/* Stage times of the last call in ms, when timing is on. */
typedef struct {
    float upload_ms, centroid_ms, unit_ms, alpha_ms, displace_ms,
        download_ms;
} sci_cuda_spp_times;

void sci_cuda_spp_set_timing(sci_cuda_spp *c, int on);
void sci_cuda_spp_get_times(const sci_cuda_spp *c, sci_cuda_spp_times *t);

#ifdef __cplusplus
}
#endif

#endif
