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

#ifdef __cplusplus
}
#endif
#endif
