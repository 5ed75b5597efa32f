/*
 * Quantization of JPEG 2000 subbands (ITU-T T.800 | ISO/IEC 15444-1 Annex
 * E), both directions, for the encoder and the decoder of codec/j2k:
 *
 *   - a subband's nominal range R_b = R_I + log2(gain_b), the gain bits
 *     being 0 (LL), 1 (HL, LH) or 2 (HH) (E-4);
 *   - quantization entries (SPqcd / SPqcc): epsilon << 11 | mu, a step
 *     Delta_b = 2^(R_b - epsilon) (1 + mu / 2^11) (E-3), M_b = G +
 *     epsilon - 1 magnitude bit-planes (E-2), the derived style (E-5);
 *   - what an encoder chooses: the entry nearest a step, the reversible
 *     exponents from the 5/3 filters' BIBO gains, the L2 norms of the
 *     synthesis basis functions that weigh a band's steps and errors;
 *   - code-block samples to sign-magnitude indices (the dead-zone scalar
 *     quantizer of E.1, or the 5/3 integers as they are) and back (E.1.1,
 *     with the ROI shift of H.1 and reconstruction within the interval of
 *     the bit-planes decoded).
 *
 * Depends on the DWT (dwt.h) only, for the synthesis norms.
 */
#ifndef SCI_CODEC_J2K_QUANT_H
#define SCI_CODEC_J2K_QUANT_H

#include <stddef.h>
#include <stdint.h>

#include "dwt.h"
#include "j2k_stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sign bit of a sign-magnitude index (as SCI_HT_SIGN, SCI_T1_SIGN). */
#define SCI_J2K_SIGN 0x80000000u

/* log2 of subband orientation o's nominal gain (Table E.1): 0 LL, 1 HL or
 * LH, 2 HH. */
static inline unsigned sci_j2k_gain_bits(unsigned orient) {
    return orient == 0 ? 0u : orient == 3 ? 2u : 1u;
}

/* M_b of an entry under `guard` guard bits (E-2); negative when the entry
 * leaves no magnitude bit-plane. */
static inline int sci_j2k_entry_mb(unsigned guard, unsigned entry) {
    return (int)guard + (int)(entry >> 11) - 1;
}

/* Delta_b of an entry for a band of orientation o in a component of
 * `depth` bits (E-3), in coefficient units. */
double sci_j2k_entry_step(unsigned entry, unsigned depth, unsigned orient);

/* The entry of subband `band` (0: LL of level N_L, then HL, LH, HH of
 * levels N_L, N_L - 1, ..., 1, SPqcd's order) of a component with N_L
 * levels: epsilon << 11 | mu, derived from the LL entry under style 1
 * (E-5).  -1 when the marker holds too few entries. */
int sci_j2k_qcd_step(const sci_j2k_qcd *q, unsigned levels, unsigned band);

/* The entry of a step `rel` relative to 2^R_b: the exponent that brings it
 * into [1, 2) (at most 31) and the mantissa rounded to 11 bits. */
unsigned sci_j2k_step_encode(double rel);

/* The irreversible entry of a band whose step in coefficient units is
 * `step`, with no more than max_mb magnitude bit-planes under `guard`
 * (a coarser step, mantissa 0, when the finest would need more). */
unsigned sci_j2k_irrev_entry(double step, unsigned depth, unsigned orient,
                             unsigned guard, unsigned max_mb);

/* The reversible entries (exponents, mu = 0) of the 3 * levels + 1 bands
 * of a component in SPqcd's order, for samples of range_bits bits (the
 * depth, plus one for the RCT's chroma differences): each band's exponent
 * is range_bits plus the bits of its 5/3 analysis gain (the product of the
 * L1 norms of its filters) times 1.1.  Returns 0, or -1 without memory. */
int sci_j2k_rev_entries(unsigned levels, unsigned range_bits,
                        uint16_t *entries);

/* L2 norm of the 2-D synthesis basis function of a coefficient of
 * subband (level, orient) under our normalisation of filter f (the 5/3
 * without rounding): what a unit of quantization error in the band becomes
 * in the image.  Each 1-D norm is computed once in the process. */
double sci_j2k_band_norm(sci_dwt_filter f, unsigned level, unsigned orient);

/* Quantizes a w x h block of coefficients (rows `stride` samples apart):
 * 9/7 floats by the dead-zone quantizer with 1 / step inv_step, magnitudes
 * capped at 2^mb - 1; 5/3 integers as they are.  dst: sign-magnitude
 * words, rows dst_stride apart.  Returns 0, or -1 when a 5/3 magnitude is
 * 2^mb or more (beyond what the band signals). */
int sci_j2k_quantize_block(const void *src, size_t stride, unsigned w,
                           unsigned h, int reversible, float inv_step,
                           unsigned mb, uint32_t *dst, size_t dst_stride);

/* The inverse: sign-magnitude words sm (w x h, rows w apart) whose lowest
 * decoded bit-plane is low[] (0: exact; low is read only where the
 * magnitude is nonzero), after an ROI shift of `roi` (H.1), to
 * coefficients at dst (rows `stride` samples apart): 5/3 integers, 9/7
 * floats times step, at the middle of the interval the decoded bit-planes
 * leave. */
void sci_j2k_dequantize_block(const uint32_t *sm, const uint8_t *low,
                              unsigned w, unsigned h, unsigned roi,
                              int reversible, double step, void *dst,
                              size_t stride);

#ifdef __cplusplus
}
#endif
#endif
