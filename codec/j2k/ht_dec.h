/*
 * The HT block decoder of ITU-T T.814 | ISO/IEC 15444-15 (clause 7): one
 * code-block's HT cleanup segment and, optionally, its HT refinement
 * segment (SigProp and MagRef passes) in, the block's quantization indices
 * out.  Portable C99; the CPU backend and the oracle of a CUDA kernel.
 *
 * Bit-planes.  The cleanup pass codes each magnitude from the top down to
 * bit-plane p = M_b - 1 - Z, Z being the missing MSBs the packet header
 * signals for the block (p = 0 when the cleanup pass codes everything, as
 * sci_ht_encode_block's segments do).  The SigProp pass then finds samples
 * that become significant at plane p - 1 next to significant ones, and the
 * MagRef pass adds bit p - 1 of every sample that the cleanup pass found
 * significant.
 *
 * Output.  Sign-magnitude words, bit 31 the sign and bits 0..30 the
 * magnitude, with every decoded bit at its own bit-plane position and every
 * bit below the last decoded plane zero:
 *   passes = 1: magnitude = mu << p, mu the cleanup pass's value;
 *   passes = 2: as above, and a sample the SigProp pass made significant
 *               has magnitude 1 << (p - 1);
 *   passes = 3: also bit p - 1 of every cleanup-significant sample.
 * So a nonzero sample is known down to plane p - 1 when passes = 3, or
 * when passes = 2 and its magnitude is exactly 1 << (p - 1); otherwise down
 * to plane p.  The caller dequantizes; a lossy reconstruction offset (half
 * of the last decoded plane, 2^(k-1) for a sample known down to plane
 * k >= 1) is the caller's choice.  Zero samples carry no sign.
 *
 * Code-block style (the SPcod/SPcoc byte): only VCAUSAL (0x08) changes HT
 * decoding: the SigProp pass then treats samples of the next stripe of four
 * rows as insignificant.  BYPASS, RESET, TERMALL, PTERM and SEGMARK have no
 * meaning for the HT passes and are ignored; the HT (0x40) and mixed (0x80)
 * bits are the caller's business.
 *
 * Limits: 1 <= w, h <= 1024 and w * h <= 4096 (T.800 code-block sizes);
 * 1 <= M_b <= 30 (SCI_HT_DEC_MAX_MB), as for the encoder.  M_b = 31 would
 * still fit the 31-bit magnitude, but the MagSgn values v = 2(mu - 1) + s
 * then need 32 bits (exponents up to 32), a 64-bit-safe bound check, and
 * no bit would remain below the LSB for the caller's reconstruction offset:
 * the output would have to become 64-bit words.
 *
 * Corrupt or truncated data.  Every byte read lies inside the segments
 * given; readers past an end see the fill the standard gives (MagSgn and
 * MEL 0xFF, VLC, SigProp and MagRef zeros), so decoding always ends, after
 * at most one visit of each quad and sample.  Detected damage (Lcup or Scup
 * out of range, the VLC stream consumed below its start, MagSgn more than
 * one fill byte past its end, MEL past the segment, an exponent or a
 * magnitude above what M_b allows) stops the cleanup pass: the line-pairs
 * of quads decoded before the damaged one are kept, the rest of the block
 * is zero, no refinement pass runs, and a negative code says which check
 * failed.  Damage that decodes to plausible values cannot be detected
 * (HT has no redundancy) and gives wrong but deterministic samples.
 */
#ifndef SCI_CODEC_HT_DEC_H
#define SCI_CODEC_HT_DEC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SCI_HT_DEC_MAX_MB 30u
#define SCI_HT_DEC_MAX_SCUP 4079u
/* The code-block style bit that HT decoding uses. */
#ifndef SCI_HT_STYLE_VCAUSAL
#define SCI_HT_STYLE_VCAUSAL 0x08u
#endif

enum {
    SCI_HT_DEC_OK = 0,
    SCI_HT_DEC_EARG = -1,    /* sizes, M_b, Z, passes, or a NULL pointer */
    SCI_HT_DEC_ESCUP = -2,   /* Lcup < 2, or Scup < 2 or above min(Lcup, 4079) */
    SCI_HT_DEC_EVLC = -3,    /* the VLC stream consumed below its first byte */
    SCI_HT_DEC_EMAGSGN = -4, /* MagSgn consumed past its end and fill byte */
    SCI_HT_DEC_EMEL = -5,    /* MEL consumed past the segment */
    SCI_HT_DEC_EMAG = -6,    /* an exponent or magnitude above M_b's bound */
};

#if defined(__CUDACC__)
#define SCI_HT_DEC_HD __host__ __device__
#else
#define SCI_HT_DEC_HD
#endif

/* The cleanup segment's split (its last two bytes give Scup, the length
 * of its MEL and VLC part): the MagSgn part's length in *pcup, and
 * SCI_HT_DEC_OK, or SCI_HT_DEC_ESCUP.  Shared with the CUDA decoder. */
static inline SCI_HT_DEC_HD int sci_ht_dec_split(const uint8_t *cup,
                                                 size_t lcup, size_t *pcup) {
    if (lcup < 2)
        return SCI_HT_DEC_ESCUP;
    size_t scup = (size_t)cup[lcup - 1] << 4 | (cup[lcup - 2] & 15u);
    if (scup < 2 || scup > lcup || scup > SCI_HT_DEC_MAX_SCUP)
        return SCI_HT_DEC_ESCUP;
    *pcup = lcup - scup;
    return SCI_HT_DEC_OK;
}

/*
 * CxtVLC decoding lookup, built from the rows of codec/j2k/ht_tables.c (the
 * same rows the encoder's lookup comes from): entry [(c_q << 7) | the next
 * 7 VLC bits] packs rho (bits 0-3), u_off (bit 4), e_k (5-8), e_1 (9-12)
 * and the codeword length (13-15).
 */
typedef struct {
    uint16_t vlc[2][1024]; /* [0]: first line-pair, [1]: the others */
} sci_ht_dec_tables;

/* Returns 0, or -1 if some context and bit pattern has no codeword (a
 * defective table). */
int sci_ht_dec_tables_init(sci_ht_dec_tables *t);

typedef struct {
    unsigned w, h;     /* block size */
    unsigned mb;       /* M_b: magnitude bit-planes of the subband */
    unsigned zbp;      /* Z: missing MSBs from the packet header, < M_b */
    unsigned passes;   /* 0: block absent (all zero); 1 cleanup; 2 + SigProp;
                          3 + MagRef.  2 and 3 need p >= 1 */
    unsigned style;    /* code-block style byte; see above */
} sci_ht_dec_params;

/*
 * Decodes a block into the w x h words at out, rows `stride` words apart.
 * cup/lcup: the cleanup segment; ref/lref: the refinement segment (SigProp
 * bytes forwards, MagRef bytes backwards; lref may be 0, ref NULL when
 * lref is 0), used only when passes >= 2.  Returns SCI_HT_DEC_OK or a
 * negative code (see above); the block is fully written whatever the
 * result, except for SCI_HT_DEC_EARG, which writes nothing.
 */
int sci_ht_decode_block(const sci_ht_dec_tables *t, const uint8_t *cup,
                        size_t lcup, const uint8_t *ref, size_t lref,
                        const sci_ht_dec_params *prm, uint32_t *out,
                        size_t stride);

/* A short English description of a return code. */
const char *sci_ht_dec_strerror(int code);

#ifdef __cplusplus
}
#endif
#endif
