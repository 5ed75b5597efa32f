/*
 * Tier-2 of JPEG 2000 (ITU-T T.800 Annex B.9-B.12, with T.814's rules for
 * HT code-blocks): a code-block's entry in a packet header written (for the
 * encoder's block coders, j2k_coder.h), and the decoding of one tile: packets in the tile's progression
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
#include "t2_bits.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- writing ------------------------------------------------------------- */

/* The entry of a Part 1 code-block's passes [from, to) (to > from) in a
 * packet header, after its inclusion and zero bit-plane bits (B.10.4,
 * B.10.5): their count (Table B.4), one Lblock increment for all (*lblock
 * follows it), then the length of each codeword segment, in Lblock +
 * floor(log2(its passes)) bits (B.10.7).  pass_len[j]: the block's bytes
 * after pass j; pass_term[j]: pass j ends a segment (the last of the
 * range always ends one here).  This is what the decoder's tier-2 reads
 * for a Part 1 block.  Returns the bytes the passes add to the body. */
size_t sci_j2k_t2_put_p1_passes(sci_t2_bits *w, uint8_t *lblock,
                                const size_t *pass_len,
                                const uint8_t *pass_term, unsigned from,
                                unsigned to);

/* The entry of an HT code-block in the one packet that holds it: one
 * cleanup pass (a 0), the Lblock increment from 3 and the length, len
 * bytes; after `pre` bits of value pre_v (its tag-tree bits), all put at
 * once where they fit in 57 bits, as a header of many blocks wants. */
static inline void sci_j2k_t2_put_ht_single(sci_t2_bits *w, uint64_t pre_v,
                                            unsigned pre, uint64_t len) {
    unsigned need = sci_t2_bit_len(len), lblock = need > 3 ? need : 3;
    unsigned inc = lblock - 3;
    /* pass 0, inc ones, 0, len: 1 + inc + 1 + lblock bits */
    unsigned tail = 2 * lblock - 1;
    if (pre + tail <= 57) {
        uint64_t v = (pre_v << 1) << (inc + 1 + lblock);
        v |= (((UINT64_C(1) << inc) - 1) << (lblock + 1)) | len;
        sci_t2_bits_put(w, v, pre + tail);
    } else {
        sci_t2_bits_put(w, pre_v, pre);
        sci_t2_put_passes(w, 1);
        sci_t2_put_lblock_inc(w, inc);
        sci_t2_bits_put(w, len, lblock);
    }
}

/* ---- decoding ------------------------------------------------------------ */

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
    /* the tile's packet lengths from PLT (nplt of them; NULL: none) and a
     * pool: with both, and the headers in the body, the precincts' packets
     * are decoded on the pool's threads where the lengths hold */
    const uint32_t *plt;
    size_t nplt;
    struct sci_pool *pool;
    /* split(split_user, 0) once, before the first packet of resolution
     * split_res or above (NULL: never), with the pieces found so far in
     * pieces[0 .. npieces); for progressions that send every lower
     * resolution first.  In parallel (PLT), split(split_user, 1) first
     * asks, before any packet, whether to split at all (0: no, and the
     * precincts go in one round), then the lower resolutions' precincts
     * are decoded, split runs, then the others.  A negative return stops
     * tier-2 with that code. */
    int (*split)(void *split_user, int ask);
    void *split_user;
    unsigned split_res;
    size_t split_at;       /* the body offset where resolution split_res
                            * starts (or the walk is, when it runs) */
    /* output */
    int parallel;          /* the packets were decoded in parallel */
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
