/*
 * The HT cleanup-pass block encoder of ITU-T T.814 | ISO/IEC 15444-15
 * (clause 7 and Annex C seen from the encoder's side): one code-block of
 * quantization indices in, one HT cleanup segment out.
 *
 * Samples are sign-magnitude words: bit 31 the sign, bits 0..30 the
 * magnitude mu.  The whole magnitude is coded in the cleanup pass (bit-plane
 * p = 0), so the packet header must signal M_b - 1 missing MSBs for the
 * block, M_b being the subband's magnitude bit-planes; magnitudes must be
 * below 2^M_b and M_b <= 30.
 *
 * Segment layout (clause 7.1): the MagSgn bytes, then the MEL bytes, then
 * the VLC bytes (written from the end backwards); the last 12 bits hold
 * Scup, the length of MEL plus VLC.
 */
#ifndef SCI_CODEC_HT_BLOCK_H
#define SCI_CODEC_HT_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "ht_tables.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SCI_HT_SIGN 0x80000000u
/* Scup is a 12-bit field and at least 2 (clause 7.1). */
#define SCI_HT_MAX_SCUP 4079u
/* The code-block style bit that changes HT coding (vertically causal
 * context in the SigProp pass). */
#ifndef SCI_HT_STYLE_VCAUSAL
#define SCI_HT_STYLE_VCAUSAL 0x08u
#endif

/* Bytes a block of n samples with magnitudes below 2^mb can take. */
static inline size_t sci_ht_block_max_bytes(size_t n, unsigned mb) {
    /* MagSgn: at most mb + 1 bits a sample, 7 a byte after stuffing */
    return (n * (mb + 1) + 6) / 7 + 2 + SCI_HT_MAX_SCUP;
}

/* Encodes a w x h block (1 <= w, h; w * h <= 4096) whose rows are `stride`
 * words apart.  Returns the segment length, 0 when every magnitude is zero
 * (nothing to code: the block is left out of its packets), or -1 when the
 * segment would not fit in cap or MEL plus VLC exceed SCI_HT_MAX_SCUP. */
long sci_ht_encode_block(const sci_ht_enc_tables *t, const uint32_t *sm,
                         unsigned w, unsigned h, size_t stride, uint8_t *out,
                         size_t cap);

/*
 * Lengths of a block coded with refinement passes (clause 7.1: a cleanup
 * segment, then one refinement segment holding the SigProp bytes forwards
 * and the MagRef bytes backwards from its end).  The packet header signals
 * the cleanup segment's length and the refinement segment's: ref_sp when
 * the block contributes two passes (cleanup, SigProp), ref for three.  The
 * SigProp bytes are terminated on their own, so the first ref_sp bytes of
 * the three-pass refinement segment are the two-pass one.
 */
typedef struct {
    size_t cup;    /* Lcup */
    size_t ref_sp; /* refinement segment of cleanup + SigProp */
    size_t ref;    /* refinement segment of cleanup + SigProp + MagRef */
} sci_ht_ref_lengths;

/* Bytes the refinement segment of n samples can take: at most two bits a
 * sample (a SigProp bit and a sign, or one MagRef bit), 7 a byte. */
static inline size_t sci_ht_ref_max_bytes(size_t n) {
    return (2 * n + 6) / 7 + (n + 6) / 7 + 3;
}

/*
 * Codes the cleanup pass at bit-plane p (the magnitudes >> p, exactly as
 * sci_ht_encode_block codes them: the packet header signals M_b - 1 - p
 * missing MSBs), then the SigProp and MagRef passes of plane p - 1 into
 * the refinement segment right after it.  1 <= p <= 29 and magnitudes
 * below 2^M_b, M_b <= 30; `style` is the code-block style byte, of which
 * SCI_HT_STYLE_VCAUSAL (0x08) changes the SigProp pass.  Returns the bytes
 * written (len->cup + len->ref), 0 when no magnitude reaches plane p (the
 * cleanup pass codes nothing, and then neither can the others: choose a
 * lower p), or -1 for bad arguments, no room in cap, or a cleanup pass the
 * encoder refuses.  Samples that become significant at plane p - 1 without
 * a significant neighbour are not coded: only a cleanup pass finds them.
 */
long sci_ht_encode_block_ref(const sci_ht_enc_tables *t, const uint32_t *sm,
                             unsigned w, unsigned h, size_t stride, unsigned p,
                             unsigned style, uint8_t *out, size_t cap,
                             sci_ht_ref_lengths *len);

#ifdef __cplusplus
}
#endif
#endif
