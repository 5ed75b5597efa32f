/*
 * HT block coding on the GPU for the HTJ2K encoder of codec/j2k/htj2k.h: the
 * quantization and the HT cleanup pass of every code-block run on the
 * device, straight from the coefficient buffer that sci_cuda_wt_forward
 * wrote (layout of wavelet_frame.h); the coded blocks are packed into one
 * contiguous device buffer, only those bytes come back to the host, and
 * codec/j2k/htj2k.c writes tier-2 and the markers around them.  The output is
 * byte for byte that of sci_htj2k_encode on the same coefficients.
 *
 * Everything runs on the CUDA context current on the calling thread, on
 * `stream` (a cudaStream_t passed as void *); sci_cuda_ht_encode returns
 * once the codestream is in `out` (it synchronizes the stream).
 *
 * Errors are cudaError_t values (0 = success), or the codes below;
 * sci_cuda_error_string (cuda/error.h) tells either.
 */
#ifndef SCI_CUDA_HTJ2K_H
#define SCI_CUDA_HTJ2K_H

#include <stddef.h>
#include <stdint.h>

#include "codec/j2k/htj2k.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A code-block could not be coded (a 5/3 magnitude beyond its band's
 * range, or a segment over the HT limits): sci_htj2k_encode fails too. */
#define SCI_CUDA_HT_ERR_BLOCK 100001
/* `out` is smaller than the codestream. */
#define SCI_CUDA_HT_ERR_CAP 100002

typedef struct sci_cuda_ht sci_cuda_ht;

/* Uploads the block layout and the VLC tables of `enc` and takes all the
 * device and pinned host memory a frame needs; encoding allocates nothing.
 * g and p must be those `enc` was made with (htj2k.h has no getters).
 * `enc` must outlive the handle (its tier-2 state and, with a bitrate
 * target, its quantization steps are used and changed per frame). */
int sci_cuda_ht_create(sci_cuda_ht **out, sci_htj2k_enc *enc,
                       const sci_wt_geometry *g, const sci_htj2k_params *p);
void sci_cuda_ht_destroy(sci_cuda_ht *h);

/* Device memory held by the handle, in bytes. */
size_t sci_cuda_ht_device_bytes(const sci_cuda_ht *h);

/* Encodes one frame: d_coeffs is a device buffer of
 * sci_wt_coeff_count(g) int32 (5/3) or float (9/7) coefficients.  Writes
 * the codestream (or JPH file) to the host buffer out and its length to
 * *out_len; out of cap >= sci_htj2k_max_bytes(enc) bytes never is too
 * small.  Pinned `out` (cudaMallocHost, cudaHostRegister) is fastest: the
 * coded blocks then go from the device straight to their place in it. */
int sci_cuda_ht_encode(sci_cuda_ht *h, const void *d_coeffs, uint8_t *out,
                       size_t cap, size_t *out_len, void *stream);

/* The coded blocks of the last successful sci_cuda_ht_encode, on the host
 * (for tests; copies them from the device): block i has len[i] bytes at
 * bytes + off[i]; valid until the next call. */
void sci_cuda_ht_last_blocks(const sci_cuda_ht *h, const long **len,
                             const uint8_t **bytes, const size_t **off);

/* Stage timings of the last sci_cuda_ht_encode, in ms, when the handle was
 * asked to time (sci_cuda_ht_set_timing): block coding (every rate-control
 * trial included), compaction (with the lengths' copy to the host), host
 * tier-2 (markers and packet headers, sci_htj2k_write_frame, which
 * overlaps the compaction), then the bodies' way into `out` after it (wall
 * time: the device-to-host copies, straight into `out` when it is pinned,
 * else the wait for the one staged copy and the host's copies into out). */
typedef struct {
    float code_ms, compact_ms, write_ms;
    int trials; /* block-coding launches */
    float d2h_ms;
} sci_cuda_ht_times;

void sci_cuda_ht_set_timing(sci_cuda_ht *h, int on);
void sci_cuda_ht_get_times(const sci_cuda_ht *h, sci_cuda_ht_times *t);

#ifdef __cplusplus
}
#endif
#endif
