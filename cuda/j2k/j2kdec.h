/*
 * JPEG 2000 decoding on the GPU: the CUDA backend of the C reference decoder
 * (codec/j2k/j2k_dec.h), whose samples it reproduces exactly (5/3 and 9/7;
 * tests/j2k/parity_j2k_dec.c).  Codestream bytes in host memory in, the
 * frame's component planes in device memory out.
 *
 * Per frame, the host parses the headers and runs tier-2 (packet headers:
 * where each code-block's bytes are) with the C reference while the
 * codestream goes to the device (through pinned memory), then copies a
 * table of the code-blocks and of their byte pieces: the codestream is the
 * only large host-to-device copy.
 * On the device: the pieces are gathered, the code-blocks decoded, one
 * warp each, with the dequantization fused, straight into the wavelet
 * planes (int32 for 5/3, float for 9/7, in the layout of
 * codec/j2k/wavelet_frame.h): HT blocks (cleanup, SigProp, MagRef) and
 * EBCOT (Part 1) blocks (MQ decoding, every code-block style); the inverse
 * DWT runs on cuda/j2k/dwt.cu's kernels, and its last level applies the
 * inverse RCT/ICT, the DC shift and the clamp while it writes the output
 * planes.  What it covers and what falls back (sci_cuda_j2kdec_path says
 * which path a frame took):
 *
 *  SCI_CUDA_J2KDEC_DEVICE      one tile or a grid of up to
 *      SCI_CUDA_J2KDEC_MAX_DEVICE_TILES whose every tile-component starts,
 *      at the kept resolution, on a multiple of 2^levels (an image and
 *      tile grid at 0 with tiles a multiple of 2^levels: the usual
 *      case); in each tile all components with the same filter and
 *      levels, 1..4 components with subsampling 1..4; at any reduce and
 *      layers (set_decode): all of the above, the blocks of all tiles in
 *      one launch, then an inverse DWT a tile, writing its rectangle.
 *  SCI_CUDA_J2KDEC_HOST_BLOCKS the same geometry, only when asked for
 *      (sci_cuda_j2kdec_tune), with EBCOT code-blocks: those are decoded
 *      and dequantized on the host by the C reference (on the decoder's
 *      CPU threads), the HT ones too, and the coefficient planes uploaded;
 *      the inverse DWT, colour transform and output run on the device.
 *  SCI_CUDA_J2KDEC_HOST        anything else (a tile-component whose
 *      origin is not so aligned, more tiles, per-component levels or
 *      filters, more
 *      than 4 components or larger subsampling, a colour transform the C
 *      reference does not apply): the whole frame is decoded by the C
 *      reference and its planes uploaded.  The output planes must then be
 *      planar (pixel_stride == bytes).
 *
 * Frames in flight: submit queues a frame and returns; finish waits for it.
 * Up to `slots` frames (sci_cuda_j2kdec_create) may be submitted before the
 * oldest is finished.  Each slot has its own host thread, which does a
 * frame's host work after the submit (tier-2, the tables, the upload; the
 * parse stays on the caller's thread), and its own CUDA stream and device
 * buffers (4 bytes a sample of coefficients, 1.25 of wavelet scratch,
 * twice the codestream), so the host work and the device work of the
 * frames in flight run at once.  With one slot there is no thread: the
 * submit does the host work.  The slot threads run in the CUDA context
 * current where the decoder was created.  A decoder is used by one thread
 * at a time.
 * A frame starts after the work queued on `stream` before its submit; its
 * planes are written when finish returns (later work on `stream` does not
 * wait for them by itself).
 *
 * Errors: 0, a cudaError_t, or SCI_CUDA_J2KDEC_ERR_*; sci_cuda_error_string
 * (cuda/error.h) names them and sci_cuda_j2kdec_error tells the details.
 */
#ifndef SCI_CUDA_J2KDEC_H
#define SCI_CUDA_J2KDEC_H

#include <stddef.h>
#include <stdint.h>

#include "codec/j2k/j2k_dec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The codestream cannot be decoded (sci_cuda_j2kdec_error: the C
 * reference's message with its byte offset). */
#define SCI_CUDA_J2KDEC_ERR_DECODE 100101
/* Invalid call: planes that do not fit the parsed codestream, no parse,
 * too many frames in flight, an unknown ticket. */
#define SCI_CUDA_J2KDEC_ERR_ARG 100102
/* A frame on the host path asked for packed output. */
#define SCI_CUDA_J2KDEC_ERR_UNSUPPORTED 100103

/* Most tiles a frame on the device path has (each tile's inverse DWT is
 * its own launches; beyond, the host path). */
#define SCI_CUDA_J2KDEC_MAX_DEVICE_TILES 4096

typedef enum {
    SCI_CUDA_J2KDEC_DEVICE = 0,
    SCI_CUDA_J2KDEC_HOST_BLOCKS = 1,
    SCI_CUDA_J2KDEC_HOST = 2,
} sci_cuda_j2kdec_path_t;

/* A component's output plane in device memory: the sample at (x, y) is at
 * data + y * row_stride + x * pixel_stride, `bytes` (1, or 2: a uint16_t,
 * int16_t for signed components) wide, clamped to the component's range. */
typedef struct {
    void *data;
    ptrdiff_t row_stride;
    unsigned pixel_stride;
    unsigned bytes;
} sci_cuda_j2kdec_plane;

typedef struct sci_cuda_j2kdec sci_cuda_j2kdec;

/* slots: frames in flight, 1..8.  threads: CPU threads for the host paths
 * (0: all CPUs). */
int sci_cuda_j2kdec_create(sci_cuda_j2kdec **out, unsigned slots,
                           unsigned threads);
/* Waits for the frames in flight. */
void sci_cuda_j2kdec_destroy(sci_cuda_j2kdec *d);

/* Parses data[0..len) (sci_j2k_dec_parse) into the next slot, which must
 * not be in flight (SCI_CUDA_J2KDEC_ERR_ARG); data must stay valid until
 * the frame's finish returns.  comp: NULL or room for info->components
 * entries (at most 16384) of sci_j2k_dec_comp_info at reduce 0. */
int sci_cuda_j2kdec_parse(sci_cuda_j2kdec *d, const uint8_t *data, size_t len,
                          sci_j2k_info *info, sci_j2k_comp_info *comp,
                          unsigned ncomp);

/* Decodes from the next parse on at 1 / 2^reduce of the resolution (the
 * planes and the comp_info of parse at that size; a reduce beyond the
 * fewest decomposition levels is taken as those levels) and only quality
 * layers [0, max_layers) (0: all), as sci_j2k_decode_params.  Both 0 at
 * first. */
void sci_cuda_j2kdec_set_decode(sci_cuda_j2kdec *d, unsigned reduce,
                                unsigned max_layers);

/* Queues the decode of the parsed codestream (at set_decode's reduce and
 * layers) into planes[components] after the work queued on `stream` (a
 * cudaStream_t) and returns a ticket for finish.  What the slot's thread
 * finds then (planes it refuses, a codestream the C reference fails on, a
 * CUDA error) is the finish's error.  The host paths decode on that
 * thread too. */
int sci_cuda_j2kdec_submit(sci_cuda_j2kdec *d,
                           const sci_cuda_j2kdec_plane *planes, void *stream,
                           unsigned *ticket);
/* Waits for the frame of `ticket`; its planes are then written.  Warnings
 * (damage worked around, as the C reference reports it, plus a count of
 * the damaged code-blocks decoded on the device) are then in
 * sci_cuda_j2kdec_warnings. */
int sci_cuda_j2kdec_finish(sci_cuda_j2kdec *d, unsigned ticket);
/* parse + submit + finish. */
int sci_cuda_j2kdec_decode(sci_cuda_j2kdec *d, const uint8_t *data,
                           size_t len, const sci_cuda_j2kdec_plane *planes,
                           void *stream);

/* For benchmarks and tests: ebcot_on_host 1 decodes frames with EBCOT
 * blocks on the SCI_CUDA_J2KDEC_HOST_BLOCKS path, 0 on the device (the
 * default). */
void sci_cuda_j2kdec_tune(sci_cuda_j2kdec *d, int ebcot_on_host);

/* For benchmarks and tests: where the symbols of HT code-blocks (MEL,
 * CxtVLC, U-VLC) are decoded on the device. */
enum {
    SCI_CUDA_J2KDEC_SYM_AUTO = 0,   /* by the frame's blocks and bytes, and
                                     * a block a thread while other frames
                                     * are in flight (the default) */
    SCI_CUDA_J2KDEC_SYM_THREAD = 1, /* a code-block a thread, a kernel
                                     * before the blocks' warps */
    SCI_CUDA_J2KDEC_SYM_WARP = 2    /* lane 0 of each block's warp */
};
void sci_cuda_j2kdec_tune_ht(sci_cuda_j2kdec *d, int symbols);

/* One frame at a time, a one-tile frame whose packets come resolution by
 * resolution (RLCP or RPCL, no POC) may go to the device in two parts:
 * the blocks of every resolution but the highest decoded are launched as
 * soon as tier-2 has read them (the heaviest code-blocks are there), and
 * the highest resolution's, on a second stream, once tier-2 ends; so the
 * host's tier-2 of the rest overlaps the device's longest blocks.  The
 * decoder splits frames with EBCOT blocks, and HT frames whose highest
 * resolution is light (a low rate); frames submitted while others are in
 * flight, profiled ones and those on the host-blocks path go in one part.
 * For benchmarks and tests: */
enum {
    SCI_CUDA_J2KDEC_SPLIT_AUTO = 0,   /* as above (the default) */
    SCI_CUDA_J2KDEC_SPLIT_OFF = 1,    /* one part */
    SCI_CUDA_J2KDEC_SPLIT_ALWAYS = 2  /* two wherever the frame allows */
};
void sci_cuda_j2kdec_tune_split(sci_cuda_j2kdec *d, int mode);
/* The last finished frame's parts: 2 when it went in two, else 1 (0 for
 * a host path). */
unsigned sci_cuda_j2kdec_phases(const sci_cuda_j2kdec *d);

/* Stage times of device-path frames (CUDA events, for benchmarks): after
 * profile(d, 1) (with no frame in flight), stage_ms gives the last
 * finished frame's milliseconds of [0] the uploads and the plane clearing
 * (from the codestream's upload, which overlaps the host's tier-2, to the
 * first kernel), [1] the gather, [2] the HT blocks, [3] the EBCOT blocks,
 * [4] the inverse DWT and output; -1 each for a frame on a host path or
 * not profiled. */
int sci_cuda_j2kdec_profile(sci_cuda_j2kdec *d, int on);
void sci_cuda_j2kdec_stage_ms(const sci_cuda_j2kdec *d, float ms[5]);
/* Host milliseconds of the last finished frame's submit, when it took the
 * device path (else -1): [0] tier-2 (sci_j2k_dec_tile_blocks), [1] the
 * block and piece tables and the buffers, [2] the codestream into pinned
 * memory, [3] the whole of the submit's host work (those three, the
 * copies and launches queued, the rest). */
void sci_cuda_j2kdec_host_ms(const sci_cuda_j2kdec *d, float ms[4]);

/* The path of the last finished frame. */
sci_cuda_j2kdec_path_t sci_cuda_j2kdec_path(const sci_cuda_j2kdec *d);
/* The last error's details, "" when none. */
const char *sci_cuda_j2kdec_error(const sci_cuda_j2kdec *d);
/* Warnings of the last finished frame, and the first one's message. */
unsigned sci_cuda_j2kdec_warnings(const sci_cuda_j2kdec *d);
const char *sci_cuda_j2kdec_warning(const sci_cuda_j2kdec *d);

#ifdef __cplusplus
}
#endif
#endif
