/*
 * The seismic decoder on the GPU: the frames of codec/seismic/seismic.h decoded in
 * batches, a lane per 64-bit package, with dequantization fused and the
 * float 5/3 inverse DWT (codec/j2k/dwt.h's sci_dwt53f_inverse, the same float
 * operations in the same order: the output equals the C reference's to the
 * bit).  The host checks each frame's header and CRC and decompresses its
 * code lengths (sci_seis_parse, sci_seis_code_lengths); the device builds
 * the canonical tables and does the rest.
 *
 * Runs on the CUDA context current on the calling thread (the one of the
 * first decode), its kernels queued on `stream` (a cudaStream_t passed as
 * void *) and a decode's uploads on a stream of the handle's own, which
 * `stream` waits for; sci_cuda_seis_decode returns once the batch is
 * decoded (it synchronises the stream to read back the frames' status).
 */
#ifndef SCI_CUDA_SEISMIC_H
#define SCI_CUDA_SEISMIC_H

#include "codec/seismic/seismic.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sci_cuda_seis sci_cuda_seis;

/* Device and pinned host scratch grow with the largest batch seen. */
int sci_cuda_seis_create(sci_cuda_seis **out);
void sci_cuda_seis_destroy(sci_cuda_seis *s);

/* Decodes the n frames frames[i] (host memory, parsed by sci_seis_parse
 * into info[i]) into the device buffers out[i] (traces x samples floats),
 * and their quantization indices into q[i] (device, traces x samples, Mallat
 * layout) where q is not NULL and q[i] is not NULL.  status[i] (when status
 * is not NULL) gets 0 or the frame's error (SCI_SEIS_E_DATA, ...): a bad
 * frame does not stop the others.  Returns 0, the first frame's error, or a
 * cudaError_t (positive) when CUDA fails. */
int sci_cuda_seis_decode(sci_cuda_seis *s, unsigned n,
                         const uint8_t *const frames[],
                         const sci_seis_info info[], float *const out[],
                         uint16_t *const q[], int status[], void *stream);

/* Encodes the n gathers gathers[i] (device memory, traces x samples floats,
 * parameters p[i]) into the frames out[i] (host memory, cap[i] bytes,
 * sci_seis_frame_bound is enough; length into out_len[i]) with meta_len[i]
 * bytes of metadata meta[i] (meta may be NULL: none).  The device checks the
 * samples, transforms, finds the extremes and quantizes; the host builds
 * each code and packs (sci_seis_encode_indices), a gather a thread.  The
 * frames are sci_seis_encode's, byte for byte.  status[i] and bad_index[i]
 * (either may be NULL) as sci_seis_encode gives them; returns 0, the first
 * gather's error, or a cudaError_t (positive).  Synchronises the stream.
 * A gather with levels = 0 must not be changed while this runs. */
int sci_cuda_seis_encode(sci_cuda_seis *s, unsigned n,
                         const sci_seis_params p[],
                         const float *const gathers[],
                         const uint8_t *const meta[], const size_t meta_len[],
                         uint8_t *const out[], const size_t cap[],
                         size_t out_len[], int status[], size_t bad_index[],
                         void *stream);

/* Where the last decode's time went, in ms (all 0 unless timing is on):
 * host = the host's staging of every chunk (code lengths and packages,
 * one pool region, which also sends each chunk once it is staged); the
 * others summed over the chunks, which overlap one another and the
 * staging: upload = from a chunk's first copy to the device (its code
 * tables) to the end of its last (its packages, staged in between);
 * decode = the tables and package kernels (tables, first indices,
 * symbols); dwt = the inverse DWT launches. */
typedef struct {
    float host, upload, decode, dwt;
} sci_cuda_seis_times;

/* The threads that do the host's work on a batch (NULL, the default: the
 * calling thread; codec/common/parallel.h).  A decode's pool threads also
 * send staged chunks to the device, on the calling thread's device and
 * stream.  The pool must outlive its use here. */
void sci_cuda_seis_set_pool(sci_cuda_seis *s, sci_pool *pool);

/* A decode goes to the device in up to four chunks of frames, so that the
 * host stages a chunk while the device uploads and decodes the ones
 * before: a chunk for every `packages` packages of the batch (0: the
 * default, about 128 Ki; tests set 1 to cut small batches), the first a
 * quarter of an even share, every chunk's code tables staged and built
 * before any chunk's packages. */
void sci_cuda_seis_tune_chunks(sci_cuda_seis *s, size_t packages);

/* Timing costs a few event records a batch; off by default. */
int sci_cuda_seis_set_timing(sci_cuda_seis *s, int on);
void sci_cuda_seis_get_times(const sci_cuda_seis *s,
                             sci_cuda_seis_times *t);

#ifdef __cplusplus
}
#endif
#endif
