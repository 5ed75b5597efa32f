/*
 * Tier-1 of JPEG 2000 Part 1 on the GPU (ebcotcm, issue 7): quantization,
 * the bit-parallel EBCOT context modeller and the MQ coder of every
 * code-block of a frame, straight from the device coefficient buffer that
 * sci_cuda_wt_forward wrote (layout of codec/j2k/wavelet_frame.h).  For each
 * block the result is exactly what sci_t1_encode (codec/j2k/t1.h) gives on the
 * host for the same quantized samples: codeword bytes, passes, zero
 * bit-planes, length, pass lengths, distortions (bit for bit), segment
 * ends and raw passes, decision counts.  Design and timings:
 * docs/ebcot.md, "GPU Tier-1".
 *
 * Everything runs on the CUDA context current on the calling thread, the
 * kernels on `stream` (a cudaStream_t passed as void *), the results' way
 * back on a stream of the handle's own.  sci_cuda_t1_code and _encode
 * return once the results are on the host; sci_cuda_t1_submit and _finish
 * split that, so that a stream of frames can keep the GPU busy while the
 * host writes the frame before (docs/ebcot.md, "Frames in flight").  All
 * device and pinned memory is taken when the handle is made.
 *
 * Errors are cudaError_t values (0 = success) or the codes below, which
 * are cuda/j2k/htj2k.h's (sci_cuda_error_string, cuda/error.h, tells them).
 */
#ifndef SCI_CUDA_T1_H
#define SCI_CUDA_T1_H

#include <stddef.h>
#include <stdint.h>

#include "codec/j2k/htj2k.h"
#include "codec/j2k/t1.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A 5/3 magnitude beyond its band's range (2^nbp - 1): the C encoder
 * refuses such a frame too.  Equal to SCI_CUDA_HT_ERR_BLOCK. */
#define SCI_CUDA_T1_ERR_BLOCK 100001
/* `out` is smaller than the codestream.  Equal to SCI_CUDA_HT_ERR_CAP. */
#define SCI_CUDA_T1_ERR_CAP 100002

typedef struct sci_cuda_t1 sci_cuda_t1;

/* Uploads the code-block layout of `enc` (p->coder must be
 * SCI_J2K_CODER_PART1; g and p are those enc was made with), with each
 * block's Tier-1 parameters from sci_htj2k_t1_params.  `enc` must outlive
 * the handle. */
int sci_cuda_t1_create(sci_cuda_t1 **out, sci_htj2k_enc *enc,
                       const sci_wt_geometry *g, const sci_htj2k_params *p);

/* The same without an encoder, from a table of blocks (tests, other
 * layouts): block i is the w x h samples at base + y * stride + x of the
 * coefficient buffer (int32 when !irreversible, float otherwise), coded
 * with p (trace unused); 9/7 samples are quantized with inv_step and
 * clamped at 2^nbp - 1.  cudaErrorInvalidValue when a p fails
 * sci_t1_check. */
typedef struct {
    size_t base;
    uint32_t stride;
    float inv_step;
    sci_t1_params p;
} sci_cuda_t1_block;

int sci_cuda_t1_create_blocks(sci_cuda_t1 **out, const sci_cuda_t1_block *blk,
                              size_t n, int irreversible);
void sci_cuda_t1_destroy(sci_cuda_t1 *h);

/* Device memory held by the handle, in bytes. */
size_t sci_cuda_t1_device_bytes(const sci_cuda_t1 *h);

/* Quantizes every block from the device buffer d_coeffs (as
 * sci_htj2k_block_quantize does on the host) and codes it:
 * sci_cuda_t1_submit, then sci_cuda_t1_finish. */
int sci_cuda_t1_code(sci_cuda_t1 *h, const void *d_coeffs, void *stream);

/* The same in two halves.  submit queues the frame's kernels on `stream`
 * after whatever it holds and returns at once; finish waits for them
 * (not for later work on that stream) and brings the results to the
 * host.  A handle has one frame in flight: a submit before the last one
 * was finished waits for it and drops it.  d_coeffs must hold the frame
 * until finish returns (a block whose codeword outgrows its device slot
 * is coded again on the host from it).  With two handles, frame n + 1
 * can be submitted before frame n is finished and written, so that the
 * host's share of frame n runs beside the kernels of frame n + 1. */
int sci_cuda_t1_submit(sci_cuda_t1 *h, const void *d_coeffs, void *stream);
int sci_cuda_t1_finish(sci_cuda_t1 *h);

/* After a successful sci_cuda_t1_code or _finish, on the host, valid
 * until the next submit: each block's passes (for sci_j2k_part1_write),
 * and its codeword at bytes + off[i]. */
const sci_j2k_block_passes *sci_cuda_t1_passes(const sci_cuda_t1 *h);
void sci_cuda_t1_bytes(const sci_cuda_t1 *h, const uint8_t **bytes,
                       const size_t **off);
/* Block i's whole sci_t1_result (segments, raw passes and decision
 * counts too), for tests. */
void sci_cuda_t1_result(const sci_cuda_t1 *h, size_t i, sci_t1_result *r);

/* sci_j2k_part1_write of the finished frame into the host buffer out
 * (handles from sci_cuda_t1_create only; handles made with one encoder
 * may take turns, one write at a time). */
int sci_cuda_t1_write(sci_cuda_t1 *h, uint8_t *out, size_t cap, size_t *out_len);

/* sci_cuda_t1_code, then sci_cuda_t1_write. */
int sci_cuda_t1_encode(sci_cuda_t1 *h, const void *d_coeffs, uint8_t *out,
                       size_t cap, size_t *out_len, void *stream);

/* Stage timings of the last frame, in ms, when asked for
 * (sci_cuda_t1_set_timing): the modeller kernel (quantization included),
 * the MQ kernel, the packing of the codewords (scan and copy), then, on
 * the host clock, the copies of the results to the host once the kernels
 * are done (with the host's share of them) and sci_j2k_part1_write.
 * fallbacks: blocks whose codeword outgrew its device slot and were coded
 * again on the host (sci_t1_encode). */
typedef struct {
    float model_ms, mq_ms, pack_ms;
    float d2h_ms, write_ms;
    unsigned fallbacks;
    unsigned long long symbols;  /* decisions coded in the frame */
    unsigned max_symbols;        /* ... in its largest block */
} sci_cuda_t1_times;

void sci_cuda_t1_set_timing(sci_cuda_t1 *h, int on);
void sci_cuda_t1_get_times(const sci_cuda_t1 *h, sci_cuda_t1_times *t);

/* For tests and benchmarks.  slot_limit: caps every block's device
 * codeword slot at that many bytes (0: no cap), so that the host fallback
 * runs.  The MQ kernel codes the blocks, most decisions first, one a warp
 * in mq_heavy warps, then mq_lanes a warp (1..32); by default as many
 * heavy warps as the device has warp schedulers and 4 lanes. */
void sci_cuda_t1_set_slot_limit(sci_cuda_t1 *h, size_t bytes);
void sci_cuda_t1_set_mq_lanes(sci_cuda_t1 *h, unsigned lanes);
void sci_cuda_t1_set_mq_heavy(sci_cuda_t1 *h, unsigned warps);
/* For tests: handles made after this split their blocks into batches of
 * about this many bytes of (CX, D) pairs (0: the default, 768 MiB or a
 * sixteenth of the device's memory, whichever is more); each
 * batch is modelled, MQ coded and packed in turn. */
void sci_cuda_t1_test_batch_bytes(size_t bytes);

#ifdef __cplusplus
}
#endif
#endif
