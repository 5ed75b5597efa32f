/*
 * Tier-2 decoding of one JPEG 2000 tile (ITU-T T.800 Annex B.9-B.12, with
 * T.814's rules for HT code-blocks): packets in the tile's progression
 * order (all five, and POC progression changes), packet headers (tag
 * trees, inclusion, zero bit-planes, number of passes, Lblock, codeword
 * segment lengths) read from the tile's data or from PPM/PPT, SOP and EPH
 * markers, and the code-block contributions they announce.
 *
 * Output: every code-block's contributions as pieces of the tile's data
 * (offset, length, and the number of passes the block has once the piece
 * is added), linked per block in stream order.  Contributions of layers
 * >= max_layers and of resolutions above what a decode keeps are parsed
 * (later packets depend on them) but not recorded.
 *
 * Damage: a packet header or body that runs past the tile's data stops
 * the tile there with a warning (what came before is kept; a body cut
 * short keeps the bytes there are); invalid header values (a length that
 * no codeword segment can have, a number of passes beyond 164 in a block,
 * zero bit-planes above 74) stop it likewise.
 */
#ifndef SCI_CODEC_J2K_T2_H
#define SCI_CODEC_J2K_T2_H

#include "j2k_layout.h"
#include "j2k_stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most passes a code-block can have: 3 * 37 - 2 (T.800: M_b <= 37 with
 * the ROI shift counted elsewhere) rounded up to the packet header's 164. */
#define SCI_J2K_MAX_PASSES 164

enum {
    J2K_PIECE_P1 = 0,    /* part of an EBCOT codeword segment */
    J2K_PIECE_HT_CUP,    /* an HT cleanup segment (possibly after
                          * placeholder passes in the same length field) */
    J2K_PIECE_HT_REF,    /* part of an HT refinement segment */
    J2K_PIECE_HT_PHLD,   /* placeholder passes (no bytes) */
};

typedef struct {
    uint32_t off, len;     /* bytes in the tile's body buffer */
    uint16_t pass_end;     /* the block's passes including this piece */
    uint8_t kind;          /* J2K_PIECE_* */
    int32_t next;          /* the block's next piece, -1: none */
} sci_j2k_piece;

typedef struct {
    const sci_j2k_tcp *tcp;
    sci_j2k_tile *tile;
    const uint8_t *body;   /* the tile's packet data, tile-parts joined */
    size_t body_len;
    const uint8_t *hdr;    /* packed packet headers (PPM/PPT), or NULL */
    size_t hdr_len;
    /* tile-part boundaries in body, for error offsets: body offset
     * tp_body[i] is codestream offset tp_cs[i] */
    const size_t *tp_body, *tp_cs;
    size_t ntp;
    unsigned max_layers;   /* record layers [0, max_layers) */
    const uint8_t *keep_res; /* per component: record resolutions <= it */
    sci_j2k_status *st;
    /* output */
    sci_j2k_piece *pieces;
    size_t npieces, pieces_cap;
    int stopped;           /* the tile's data ended early or was damaged */
    /* scratch */
    void *scratch;
    size_t scratch_cap;
} sci_j2k_t2;

/* Parses every packet of the tile.  Returns 0 (damage only warns and
 * stops, t2->stopped set), or an error code for a failure to allocate or
 * a progression the decoder cannot follow. */
int sci_j2k_t2_decode(sci_j2k_t2 *t2);
void sci_j2k_t2_free(sci_j2k_t2 *t2);

/* The codestream offset of byte `off` of the body (for messages). */
size_t sci_j2k_t2_cs_offset(const sci_j2k_t2 *t2, size_t off);

#ifdef __cplusplus
}
#endif
#endif
