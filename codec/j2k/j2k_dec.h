/*
 * JPEG 2000 decoder, the C reference (portable C99, no GStreamer, no CUDA):
 * the CPU backend of j2kdec and the oracle of its CUDA kernels.
 *
 * Decodes ITU-T T.800 | ISO/IEC 15444-1 (Part 1) codestreams and those of
 * T.814 | ISO/IEC 15444-15 (HTJ2K), raw (.j2c/.j2k) or in JP2/JPH files:
 *  - EBCOT code-blocks with every code-block style (bypass, reset,
 *    termination on every pass, vertically causal contexts, predictable
 *    termination, segmentation symbols), through codec/j2k/t1.h;
 *  - HT code-blocks (cleanup, SigProp and MagRef passes, placeholder passes
 *    and several HT sets, HT and EBCOT blocks mixed where COD says so),
 *    through codec/j2k/ht_dec.h;
 *  - one or many tiles and tile-parts, all five progression orders and POC,
 *    user precincts, quality layers, SOP/EPH, PPM/PPT packed headers,
 *    PLT/TLM/PLM skipped; RGN maxshift regions of interest;
 *  - the 5/3 and 9/7 transforms from any canvas origin, RCT/ICT, 1..16-bit
 *    components, signed or unsigned, 1..16384 components with subsampling.
 * Part 2 extensions are refused (SCI_J2K_EUNSUPPORTED, naming the marker).
 *
 * Reconstruction.  Reversible (5/3) blocks decoded to the last bit-plane
 * are exact.  A coefficient known down to bit-plane k >= 1 (a truncated
 * block, fewer layers) is reconstructed at the middle of its interval,
 * |q| + 2^(k-1).  Irreversible (9/7) coefficients are (|q| + r 2^k) Delta_b
 * with r = 1/2 also for k = 0, as OpenJPEG does (E.1.1.2 leaves r to the
 * decoder).  9/7 samples are rounded to nearest (ties to even, as lrintf),
 * then the DC level shift 2^(B-1) is added and the result clamped to the
 * component's range.
 *
 * Damage.  A codestream that breaks the standard in its headers is an
 * error naming the byte offset (sci_j2k_dec_error).  A tile whose packets
 * are cut short or damaged keeps what came before (a truncated code-block
 * ends early, as the standard permits), and a warning says where; a tile
 * that is missing decodes as zero coefficients (mid-grey), with a warning.
 * No input makes the decoder read outside it, crash or loop for long.
 *
 * Threads.  A decoder is single-threaded.  Its work splits into tiles and,
 * inside a tile, into independent code-blocks (sci_j2k_dec_tile_blocks +
 * sci_j2k_block_decode with a scratch per thread), which is also what a
 * GPU backend needs.
 */
#ifndef SCI_CODEC_J2K_DEC_H
#define SCI_CODEC_J2K_DEC_H

#include <stddef.h>
#include <stdint.h>

#include "codec/common/parallel.h"
#include "j2k_stream.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sci_j2k_dec sci_j2k_dec;

/* Most tiles times components a decode takes on (SCI_J2K_EUNSUPPORTED
 * beyond). */
#define SCI_J2K_MAX_TILE_COMPONENTS (1u << 24)

typedef struct {
    uint32_t x0, y0;          /* image origin on the canvas (XOsiz, YOsiz) */
    uint32_t width, height;   /* image area: Xsiz - XOsiz, Ysiz - YOsiz */
    unsigned components;
    uint32_t tiles_x, tiles_y;
    uint32_t tile_w, tile_h;  /* XTsiz, YTsiz */
    uint32_t tile_x0, tile_y0; /* XTOsiz, YTOsiz: the grid's origin */
    unsigned levels;          /* fewest decomposition levels of the main
                               * header's components (reduce's limit,
                               * unless a tile has fewer) */
    unsigned layers;          /* of the main header's COD */
    unsigned progression;     /* of the main header's COD */
    int reversible;           /* component 0 uses the 5/3 filter */
    int mct;                  /* RCT/ICT on components 0..2 */
    int ht;                   /* HT code-blocks (some or all) */
    unsigned cb_style;        /* component 0's code-block style */
    uint16_t rsiz;
    sci_j2k_colour colour;    /* from a JP2/JPH colr box */
    int file;                 /* JP2/JPH boxes around the codestream */
    int jph;
} sci_j2k_info;

typedef struct {
    uint32_t x0, y0;          /* origin of its samples, at that reduction */
    uint32_t w, h;            /* its samples at that reduction */
    unsigned depth;           /* bits, 1..38 (decodable: 1..16) */
    int is_signed;
    unsigned dx, dy;          /* subsampling */
} sci_j2k_comp_info;

typedef struct {
    unsigned reduce;          /* decode at 1 / 2^reduce of the resolution */
    unsigned max_layers;      /* decode only layers [0, max_layers); 0: all */
} sci_j2k_decode_params;

/* A caller's plane for one component: w x h samples (sci_j2k_comp_info at
 * the decode's reduce), rows `stride` samples apart; 1 byte a sample
 * (depth <= 8) or 2 (a uint16_t, or int16_t for signed components, host
 * order).  Values are clamped to the component's range. */
typedef struct {
    void *data;
    size_t stride;
    unsigned bytes;
} sci_j2k_plane;

sci_j2k_dec *sci_j2k_dec_new(void);
void sci_j2k_dec_free(sci_j2k_dec *d);

/* Warnings (damage the decoder worked around) also go to fn, if set. */
void sci_j2k_dec_set_warning_func(sci_j2k_dec *d,
                                  void (*fn)(void *user, size_t offset,
                                             const char *msg),
                                  void *user);

/* Parses the file boxes, the main header and the tile-part headers of
 * data[0..len), which must stay valid until the next parse or the free.
 * Returns SCI_J2K_OK or a negative SCI_J2K_E* code (sci_j2k_dec_error). */
int sci_j2k_dec_parse(sci_j2k_dec *d, const uint8_t *data, size_t len,
                      sci_j2k_info *info);

/* Component c at a reduction (after a successful parse). */
int sci_j2k_dec_comp_info(const sci_j2k_dec *d, unsigned c, unsigned reduce,
                          sci_j2k_comp_info *ci);

/* Decodes the code-blocks, the components' inverse DWT, the colour
 * transform and the output of later sci_j2k_dec_decode calls, and tier-2
 * where PLT allows (sci_j2k_dec_t2_parallel), on pool's threads (NULL,
 * the default: on the calling thread).  The pool must
 * outlive those calls.  Samples and warnings are the same either way. */
void sci_j2k_dec_set_pool(sci_j2k_dec *d, sci_pool *pool);

/* Decodes the parsed codestream into planes[components].  Returns
 * SCI_J2K_OK (sci_j2k_dec_warnings may be nonzero: damage was worked
 * around) or a negative code. */
int sci_j2k_dec_decode(sci_j2k_dec *d, const sci_j2k_decode_params *p,
                       const sci_j2k_plane *planes);

/* The first error's message (with its byte offset), "" when none. */
const char *sci_j2k_dec_error(const sci_j2k_dec *d);
size_t sci_j2k_dec_error_offset(const sci_j2k_dec *d);
/* Warnings since the last parse, and the first one's message. */
unsigned sci_j2k_dec_warnings(const sci_j2k_dec *d);
const char *sci_j2k_dec_warning(const sci_j2k_dec *d);

/*
 * Hooks for other backends (a GPU decoder): tier-2 of one tile, and the
 * layout and code-blocks it found, so that block decoding, dequantization,
 * the inverse DWT and the colour transform can run elsewhere.
 */

/* A subband of the tile. */
typedef struct {
    unsigned comp, res, orient;  /* orient: 0 LL, 1 HL, 2 LH, 3 HH */
    uint32_t x0, y0, x1, y1;     /* in the band's coordinates */
    uint32_t px, py;             /* its first sample in the component plane */
    unsigned mb;                 /* M_b, magnitude bit-planes */
    unsigned roi;                /* RGN maxshift s (0: none) */
    int reversible;
    double step;                 /* Delta_b (irreversible) */
} sci_j2k_band_info;

/* A code-block with data.  Its bytes are arena[off .. off + len), all its
 * contributions in order. */
typedef struct {
    uint32_t band;               /* index into the tile's bands */
    uint32_t x0, y0, x1, y1;     /* in the band's coordinates */
    uint32_t px, py;             /* its first sample in the component plane */
    uint8_t ht;                  /* 1: HT block, 0: EBCOT */
    uint8_t style;               /* code-block style byte */
    uint8_t zbp;                 /* EBCOT: zero bit-planes; HT: missing MSBs
                                  * of the HT set decoded (Z plus
                                  * placeholder planes) */
    uint8_t passes;              /* EBCOT: passes; HT: 1..3 */
    size_t off, len;
    size_t src;                  /* codestream offset of its first byte */
    /* EBCOT: codeword segments in seg_end/seg_pass[first_seg .. + nseg):
     * cumulative end (from off) and the passes up to that end */
    uint32_t first_seg, nseg;
    /* HT: the cleanup segment at off + cup (lcup bytes) and the refinement
     * segment after it (lref bytes) */
    uint32_t cup, lcup, lref;
} sci_j2k_block;

typedef struct {
    unsigned comp;
    uint32_t w, h;               /* plane size: the kept resolution */
    uint32_t x0, y0;             /* its origin (resolution coordinates) */
    unsigned levels;             /* N_L */
    unsigned top;                /* resolution decoded: N_L - reduce */
    uint32_t rect[33][4];        /* resolutions 0..top: x0, y0, x1, y1 */
    int reversible;
} sci_j2k_tcomp_info;

typedef struct {
    unsigned tile;
    uint32_t x0, y0, x1, y1;     /* on the canvas */
    int present;                 /* the codestream has tile-parts for it */
    unsigned ncomp;
    const sci_j2k_tcomp_info *comps;
    size_t nbands;
    const sci_j2k_band_info *bands;
    size_t nblocks;
    const sci_j2k_block *blocks;
    const uint8_t *arena;
    size_t arena_len;
    const uint32_t *seg_end;
    const uint16_t *seg_pass;
    int mct;                     /* apply RCT/ICT to components 0..2 */
    /* refs mode only (sci_j2k_dec_set_refs; NULL otherwise): arena is
     * NULL, and block i's bytes are the codestream pieces
     * refs[ref_first[i] .. ref_first[i + 1]), which laid end to end from
     * its off make the arena that its offsets refer to (arena_len bytes) */
    const struct sci_j2k_block_ref *refs;
    const uint32_t *ref_first;
} sci_j2k_tile_blocks;

/* Where a piece of a code-block's bytes lies in the data given to
 * sci_j2k_dec_parse. */
typedef struct sci_j2k_block_ref {
    size_t src;
    uint32_t len;
} sci_j2k_block_ref;

/* Refs mode, for a backend that moves the bytes itself (the GPU decoder
 * uploads the codestream as it is and gathers the blocks on the device):
 * sci_j2k_dec_tile_blocks then copies no block bytes on the host (nor,
 * for a tile of one tile-part, the tile's data), and says where they are
 * instead.  sci_j2k_block_decode cannot run on such a tile (no arena),
 * and sci_j2k_dec_decode turns the mode off. */
void sci_j2k_dec_set_refs(sci_j2k_dec *d, int on);

/* What is left of a tile when sci_j2k_dec_set_split's function runs:
 * the bytes of its packets not read yet (of the resolutions still to
 * come, when asked), and its code-blocks (with data or not) of those
 * resolutions. */
typedef struct {
    size_t bytes, blocks;
} sci_j2k_split_rest;

/* For a backend that starts on a tile's low resolutions while tier-2
 * reads the rest (the GPU decoder, one frame at a time): in later
 * sci_j2k_dec_tile_blocks calls on tiles whose packets come resolution
 * by resolution (RLCP or RPCL, no POC), fn(user, part, rest) runs once
 * tier-2 has read every packet of the resolutions below res (> 0), with
 * their blocks in part, laid out as tile_blocks lays out a tile's (their
 * arena from offset 0).  When fn returns 1 it has taken those blocks: the
 * tile_blocks call then gives only the blocks of resolutions res and
 * above (an arena of their own, from 0 again); 0 leaves them in; a
 * negative return is an error code that tile_blocks returns.  part and
 * its arrays are valid only during the call.  Where tier-2 knows the
 * packets' lengths before it starts (PLT, on a pool), it first asks,
 * fn(user, NULL, rest): 0 splits nothing (the precincts are decoded in
 * one round), 1 decodes the lower resolutions' precincts first, then
 * hands them over, then decodes the rest.  fn NULL: no split (the
 * default). */
void sci_j2k_dec_set_split(sci_j2k_dec *d, unsigned res,
                           int (*fn)(void *user, const sci_j2k_tile_blocks *part,
                                     const sci_j2k_split_rest *rest),
                           void *user);

/* For other backends: the decoder's status, so that their warnings (a
 * damaged block) join the decoder's own through sci_j2k_warn, and whether
 * the input ends inside a tile-part (sci_j2k_dec_decode then warns, when
 * nothing else did: "the codestream is truncated"). */
sci_j2k_status *sci_j2k_dec_status(sci_j2k_dec *d);
int sci_j2k_dec_truncated(const sci_j2k_dec *d);

/* Tiles, since the last parse, whose packets tier-2 decoded precinct by
 * precinct on the pool's threads: it does so where the tile's PLT
 * segments give every packet's length, the packet headers are in the
 * tile's data (no PPM/PPT) and the decoder has a pool of 2 or more
 * threads; where a packet then does not end as PLT says, or shows any
 * damage, the tile is decoded in sequence instead (the same result). */
unsigned sci_j2k_dec_t2_parallel(const sci_j2k_dec *d);

/* Tier-2 of tile t with p's reduce and layers; the result stays valid
 * until the next call on d. */
int sci_j2k_dec_tile_blocks(sci_j2k_dec *d, unsigned t,
                            const sci_j2k_decode_params *p,
                            sci_j2k_tile_blocks *tb);

/* Scratch of one block decoder (about 60 KiB): one per thread. */
typedef struct sci_j2k_block_scratch sci_j2k_block_scratch;
sci_j2k_block_scratch *sci_j2k_block_scratch_new(void);
void sci_j2k_block_scratch_free(sci_j2k_block_scratch *s);

/* Decodes block i of tb and writes its dequantized coefficients into the
 * component plane (int32 for reversible bands, float for irreversible),
 * rows `stride` samples apart.  Returns 0, or 1 when the block was
 * damaged (a warning went to st when not NULL). */
int sci_j2k_block_decode(const sci_j2k_tile_blocks *tb, size_t i,
                         sci_j2k_block_scratch *s, void *plane, size_t stride,
                         sci_j2k_status *st);

#ifdef __cplusplus
}
#endif
#endif
