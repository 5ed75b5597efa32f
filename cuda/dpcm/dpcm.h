/*
 * Online-DPCM frames (codec/dpcm/dpcm.h, docs/dpcm-format.md) coded and decoded
 * on the GPU, byte for byte and sample for sample what the C reference
 * writes and reads: both compile the rules of codec/dpcm/dpcm_core.h.
 *
 * Encoder: every pixel's least-squares system is built and solved at once
 * (running column sums from per-block sums and a scan over blocks, a group
 * of threads a system), the residuals, the thresholds and every segment's
 * range coding (a warp a segment) stay on the device; the host writes the
 * header around the segments.
 *
 * Decoder: segments decode in parallel into residuals (a warp each); then
 * every frame is rebuilt in strips of 32 columns, a thread block a strip:
 * the block solves the strip's systems of a row as soon as the row above
 * is final there, and one warp runs the row's recursion once the strip to
 * the left has finished it, so the strips of a frame advance together a
 * row apart.  A batch of frames decodes in one launch.
 *
 * Everything runs on the CUDA context current on the calling thread, on
 * `stream` (a cudaStream_t passed as void *); the calls return once the
 * results are in place (they synchronize the stream).  Device buffers grow
 * to the largest frames seen and are kept.
 *
 * Returns 0, a negative SCI_DPCM_E_* code of codec/dpcm/dpcm.h (the frame, or
 * the arguments), or a positive cudaError_t; sci_cuda_error_string
 * (cuda/j2k/dwt.h) tells the latter.
 */
#ifndef SCI_CUDA_DPCM_H
#define SCI_CUDA_DPCM_H

#include <stddef.h>
#include <stdint.h>

#include "codec/dpcm/dpcm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sci_cuda_dpcm sci_cuda_dpcm;

int sci_cuda_dpcm_create(sci_cuda_dpcm **out);
void sci_cuda_dpcm_destroy(sci_cuda_dpcm *c);

/* Device memory held now, in bytes. */
size_t sci_cuda_dpcm_device_bytes(const sci_cuda_dpcm *c);

/* Plans the kernels as for a GPU with at most `bytes` of shared memory a
 * block (0, the default: the device's own): a test on a large GPU runs the
 * launch shapes of a smaller one (65536: Turing) this way.  The bytes do
 * not depend on it. */
void sci_cuda_dpcm_limit_shared(sci_cuda_dpcm *c, size_t bytes);

/* Columns a strip of the decoder's wavefront, 1..32 (more is 32); 0, the
 * default, lets each batch choose from its width and the device's SMs.
 * For tests and benchmarks: the samples do not depend on it. */
void sci_cuda_dpcm_tune_strip(sci_cuda_dpcm *c, unsigned columns);

/* Encodes w x h samples (row y at samples + y * stride samples; device
 * memory of this device when on_device, else host memory or another
 * device's, which is copied first; sample_bytes 2: uint16_t, 1:
 * uint8_t, then depth <= 8) with meta_len bytes of metadata (0: none) into
 * the host buffer out; cap >= sci_dpcm_max_bytes(w, h, depth) + meta_len is
 * always enough.  The frame's length goes to *out_len.  p->scan =
 * SCI_DPCM_SCAN_COLUMNS codes the transpose (made on the device). */
int sci_cuda_dpcm_encode(sci_cuda_dpcm *c, const void *samples, size_t stride,
                         unsigned sample_bytes, int on_device, unsigned w,
                         unsigned h, unsigned depth, const sci_dpcm_params *p,
                         const uint8_t *meta, size_t meta_len, uint8_t *out,
                         size_t cap, size_t *out_len, void *stream);

/* Decodes n frames (frame i: len[i] bytes at in[i], host memory) into
 * out[i] (row y at out[i] + y * stride[i] samples of sample_bytes each: 2
 * uint16_t, 1 uint8_t; device memory when out_on_device, else host memory;
 * cap[i] samples there).  Every frame is checked as sci_dpcm_decode checks
 * it; status[i] gets its result (0 or a negative code, SCI_DPCM_E_BUFFER
 * also for a frame deeper than 8 bits into 8-bit samples; its samples are
 * unspecified then).  Returns 0 when every frame decoded, else the first
 * failing frame's code (or a CUDA error, which fails the whole batch).
 * Frames scanned by columns come back transposed to their own layout. */
int sci_cuda_dpcm_decode(sci_cuda_dpcm *c, unsigned n,
                         const uint8_t *const *in, const size_t *len,
                         void *const *out, const size_t *stride,
                         const size_t *cap, unsigned sample_bytes,
                         int out_on_device, int *status, void *stream);

/* Stage times of the last call, in ms, when timing is on (events around
 * each stage; off by default since they cost a little). */
typedef struct {
    float upload_ms;   /* samples or frames to the device */
    float predict_ms;  /* encoder: sums, scan, solves, residuals */
    float entropy_ms;  /* thresholds and segment coding, or decoding */
    float rebuild_ms;  /* decoder: the row recursion */
    float download_ms; /* the segments or samples back */
} sci_cuda_dpcm_times;

void sci_cuda_dpcm_set_timing(sci_cuda_dpcm *c, int on);
void sci_cuda_dpcm_get_times(const sci_cuda_dpcm *c, sci_cuda_dpcm_times *t);

#ifdef __cplusplus
}
#endif
#endif
