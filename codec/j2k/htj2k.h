/*
 * High-Throughput JPEG 2000 encoder (ITU-T T.814 | ISO/IEC 15444-15) on
 * top of the wavelet stage: quantization, the HT cleanup block coder, tier-2
 * packets and the codestream markers, for one image (one tile) per call.
 *
 * Input is the coefficient buffer of wavelet_frame.h (the output of
 * sci_wt_forward or of the CUDA DWT): 5/3 int32 coefficients are coded
 * without quantization (reversible, lossless), 9/7 float coefficients are
 * quantized with a dead-zone scalar quantizer whose steps derive from one
 * base step `qstep` exactly as `ojph_compress -qstep` does: the step is
 * relative to the full sample range (2^depth) and each subband's step is
 * qstep divided by the L2 norm of that subband's synthesis basis function,
 * so every subband adds the same noise power per coefficient in the image.
 *
 * Output is a raw codestream (.j2c: SOC ... EOC) or the JPH file format
 * (.jph, ISO/IEC 15444-15 Annex D boxes around the codestream).
 */
#ifndef SCI_CODEC_HTJ2K_H
#define SCI_CODEC_HTJ2K_H

#include <stddef.h>
#include <stdint.h>

#include "ht_tables.h"
#include "codec/common/parallel.h"
#include "t1.h"
#include "wavelet_frame.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The widest and tallest image: every resolution is one precinct, and a
 * precinct spans at most 2^15 (COD's PPx and PPy are 4 bits; B.6), so the
 * full resolution of a wider image would need two, which tier-2 does not
 * write.  (The wavelet stage itself takes 65535.) */
#define SCI_HTJ2K_MAX_SIZE 32768

/* The finest base step worth asking for (qstep), a round number just above
 * 2^-30: at or below 2^-30 every subband's step is the finest its 30
 * bit-planes allow (exponent 30, as the synthesis gains are >= 1), so all
 * such steps code the same codestream. */
#define SCI_HTJ2K_MIN_QSTEP 1e-9

/* The values of COD's progression order byte (ISO/IEC 15444-1 Table A.16). */
typedef enum {
    SCI_J2K_LRCP = 0,
    SCI_J2K_RLCP = 1,
    SCI_J2K_RPCL = 2,
    SCI_J2K_PCRL = 3,
    SCI_J2K_CPRL = 4,
} sci_j2k_progression;

/* The block coder: HT (Part 15, a single cleanup pass a block) or the
 * EBCOT Tier-1 of Part 1 (three passes a bit-plane, MQ coded; t1.h). */
typedef enum {
    SCI_J2K_CODER_HT = 0,
    SCI_J2K_CODER_PART1 = 1,
} sci_j2k_coder;

#define SCI_J2K_MAX_LAYERS 64

/* HT refinement passes (T.814 clause 7: one HT set is a cleanup pass and
 * up to two refinement passes, SigProp and MagRef, in one codeword
 * segment).  Off, each block's cleanup pass codes every bit-plane down to
 * the quantised LSB (plane 0).  On, the cleanup pass codes the planes
 * from 1 up and the refinement passes plane 0: SigProp the samples that
 * become significant there beside an already significant one (a sample
 * significant only at plane 0 with no significant neighbour is not coded:
 * it decodes as 0), MagRef the plane-0 bit of the samples significant
 * above it.  9/7 (quantised) only: a lossless stream would lose those
 * samples.  Under a bitrate target the refinement passes are extra
 * truncation points of every block (rate control drops MagRef, then
 * SigProp, where they buy the least). */
typedef enum {
    SCI_HTJ2K_REF_NONE = 0,    /* cleanup only (default) */
    SCI_HTJ2K_REF_SIGPROP = 1, /* cleanup + SigProp */
    SCI_HTJ2K_REF_ALL = 2,     /* cleanup + SigProp + MagRef */
} sci_htj2k_refinement;

typedef struct {
    sci_j2k_coder coder;
    double qstep;        /* 9/7 only: base step, (0, 2]; 1/256 by default */
    unsigned cb_w_log2;  /* code-block width 2^cb_w_log2: 2..10 */
    unsigned cb_h_log2;  /* code-block height; cb_w_log2 + cb_h_log2 <= 12 */
    sci_j2k_progression progression;
    /* Target bits per pixel, 0 = off.  HT: 9/7 only, met by the step.
     * Part 1: either filter, met by truncating blocks at the convex hull
     * (PCRD), the step staying qstep. */
    double bitrate;
    /* Part 1 only.  layers: quality layers, 1..SCI_J2K_MAX_LAYERS; layer
     * l of L ends at a size of 2^-(L-1-l) of the last, which holds every
     * pass (or the bitrate target).  cb_style: SCI_T1_* style bits. */
    unsigned layers;
    unsigned cb_style;
    int jph;             /* nonzero: wrap the codestream in a JPH file
                          * (HT only) */
    /* HT, 9/7 only: refinement passes (above); SCI_HTJ2K_REF_NONE by
     * default, which writes the same bytes as before the field existed.
     * The blocks are then coded by the C coder (sci_htj2k_encode): the
     * block API below (sci_htj2k_write and friends) codes cleanup-only
     * blocks and refuses an encoder with refinement. */
    sci_htj2k_refinement refinement;
    /* Nonzero: PLT marker segments (ISO/IEC 15444-1 A.7.3) in the
     * tile-part header list every packet's length (header and body) in
     * codestream order, so that a reader (an RTP payloader) finds packet
     * boundaries without decoding packet headers.  0 by default, which
     * writes the same bytes as before the field existed.  Without a
     * bitrate target the packets are the same either way; with one the
     * PLT bytes count against it. */
    int plt;
} sci_htj2k_params;

void sci_htj2k_params_default(sci_htj2k_params *p);

/* NULL when the geometry (sci_wt_geometry_check) and the parameters can be
 * coded, else why not (a static string). */
const char *sci_htj2k_check(const sci_wt_geometry *g, const sci_htj2k_params *p);

typedef struct sci_htj2k_enc sci_htj2k_enc;

/* NULL on an invalid configuration (see sci_htj2k_check) or no memory.
 * All memory the encoder needs is taken here: encoding a frame allocates
 * nothing.  `pool` (NULL: the calling thread; parallel.h) runs the block
 * coding and the copies of sci_htj2k_encode and sci_j2k_part1_write: it
 * must outlive the encoder, and the encoder holds per-thread state for as
 * many threads as it has. */
sci_htj2k_enc *sci_htj2k_enc_new(const sci_wt_geometry *g,
                                 const sci_htj2k_params *p, sci_pool *pool);
void sci_htj2k_enc_free(sci_htj2k_enc *e);

/* An upper bound on the bytes one frame can take. */
size_t sci_htj2k_max_bytes(const sci_htj2k_enc *e);

/* Encodes one frame of coefficients (layout of wavelet_frame.h).  Returns
 * the bytes written to out, or 0 when cap is too small (never when cap >=
 * sci_htj2k_max_bytes).  With a bitrate target, the step actually used is
 * reported through sci_htj2k_last_qstep. */
size_t sci_htj2k_encode(sci_htj2k_enc *e, const void *coeffs, uint8_t *out,
                        size_t cap);
double sci_htj2k_last_qstep(const sci_htj2k_enc *e);

/*
 * For other backends (cuda/j2k/htj2k.cu): the encoder's code-block layout, its
 * quantization and tier-2, so that only the block coding moves.  A backend
 * codes block i of the frame into its own bytes and hands the lengths and
 * bytes to sci_htj2k_write.
 */
typedef struct {
    unsigned comp;
    uint32_t x0, y0, w, h;  /* in the component's coefficient plane */
    unsigned mb;            /* magnitude bit-planes: |q| < 2^mb */
    unsigned band;          /* orientation, sci_t1_band */
    size_t max_bytes;       /* bound on its coded length */
} sci_htj2k_block_info;

size_t sci_htj2k_block_count(const sci_htj2k_enc *e);
void sci_htj2k_block_get(const sci_htj2k_enc *e, size_t i,
                         sci_htj2k_block_info *info);
/* 9/7: 1 / quantization step of block i's band, for the current qstep */
float sci_htj2k_block_inv_step(const sci_htj2k_enc *e, size_t i);
/* Offset of component c's plane in the coefficient buffer, in samples. */
size_t sci_htj2k_comp_offset(const sci_htj2k_enc *e, unsigned c);
const sci_ht_enc_tables *sci_htj2k_tables(const sci_htj2k_enc *e);
/* 9/7: changes the base step (rate control); steps of every band follow. */
void sci_htj2k_set_qstep(sci_htj2k_enc *e, double qstep);

/* Writes the file or codestream around coded blocks: block i has len[i]
 * bytes (0: all zero, left out) at bytes + off[i].  Returns the length, or 0
 * when cap is too small. */
size_t sci_htj2k_write(sci_htj2k_enc *e, const long *len, const uint8_t *bytes,
                       const size_t *off, uint8_t *out, size_t cap);

/*
 * Tier-2 without the block bodies, for backends that bring the bodies into
 * `out` themselves (cuda/j2k/htj2k.cu copies them from the device straight to
 * their place).  Each packet (one per component and resolution) codes the
 * blocks first .. first + count - 1, a consecutive range of block indices
 * whatever the progression order; its body is the bytes of those with
 * len > 0, in index order, one after the other, which is one contiguous run
 * of a buffer that packs the blocks in index order.
 */
typedef struct {
    size_t dst;    /* where the packet's body goes: out + dst */
    size_t first;  /* its first block */
    size_t count;  /* its blocks (some may have len 0) */
    size_t bytes;  /* its body: the sum of len over those blocks */
} sci_htj2k_span;

/* Packets of a frame: the most spans sci_htj2k_write_frame reports. */
size_t sci_htj2k_packet_count(const sci_htj2k_enc *e);

/* Writes all but the block bodies of the frame whose block i has len[i]
 * bytes (0: left out): markers, packet headers, and room for each packet's
 * body, which stays unwritten; spans (room for sci_htj2k_packet_count)
 * receive, in stream order, one entry for every packet with a body
 * (*nspans of them).  Returns the codestream's (or file's) length, which
 * sci_htj2k_write would give for the same lengths, or 0 when cap is too
 * small (then *nspans is 0).  Once the bodies are in place, out holds
 * exactly what sci_htj2k_write writes. */
size_t sci_htj2k_write_frame(sci_htj2k_enc *e, const long *len, uint8_t *out,
                             size_t cap, sci_htj2k_span *spans, size_t *nspans);

/* Rate control over any backend: `code` codes every block at the encoder's
 * current steps, storing each length in len[], and returns 0 (-1 on failure);
 * this searches qstep so that the codestream meets the bitrate target and
 * leaves the encoder at the chosen step, the blocks coded at it.  Returns
 * 0, or -1 when `code` failed. */
int sci_htj2k_search_rate(sci_htj2k_enc *e, long (*code)(void *ctx, long *len),
                          void *ctx);

/*
 * Part 1: rate allocation and tier-2 over Tier-1 results that any backend
 * produced.  Block i was coded by sci_t1_encode (or its equal) from its
 * quantized samples with the parameters sci_htj2k_t1_params gives; its
 * passes are described by blk[i] and its codeword is at bytes + off[i].
 * Chooses each layer's truncation points (PCRD on the convex hull of every
 * block's rate-distortion points, the distortion weighted by the band's
 * step and synthesis norm) and writes the codestream.  Returns its length,
 * or 0 when cap is too small (never when cap >= sci_htj2k_max_bytes).
 * The result depends only on the arguments: equal Tier-1 output gives an
 * equal codestream.
 */
typedef struct {
    unsigned passes;          /* 0: every sample zero, not coded */
    unsigned zero_planes;
    const size_t *pass_len;   /* as in sci_t1_result */
    const double *pass_dist;
    const uint8_t *pass_term;
} sci_j2k_block_passes;

void sci_htj2k_t1_params(const sci_htj2k_enc *e, size_t i, sci_t1_params *p);
/* Block i's sign-magnitude quantization indices (as sci_htj2k_encode makes
 * them) into sm (w * h words, rows w apart); -1 when a 5/3 magnitude
 * exceeds the band's range. */
int sci_htj2k_block_quantize(const sci_htj2k_enc *e, size_t i,
                             const void *coeffs, uint32_t *sm);
void sci_j2k_block_passes_from(sci_j2k_block_passes *b, const sci_t1_result *r);
size_t sci_j2k_part1_write(sci_htj2k_enc *e, const sci_j2k_block_passes *blk,
                           const uint8_t *bytes, const size_t *off,
                           uint8_t *out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
