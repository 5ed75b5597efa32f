/*
 * The block coders of the JPEG 2000 encoder, as plug-ins of its core
 * (htj2k.c).  Layers, each depending only on those above it:
 *
 *   codestream layer   j2k_markers (j2k_stream's structures), j2k_quant,
 *                      t2_bits (tier-2 codes), j2k_enc.h (the frame's
 *                      bands, code-blocks and packets, the encoder state)
 *   block coders       j2k_coder_ht.c (HT, ht_block.c: one pass a block,
 *                      one layer, rate by the step) and j2k_part1.c
 *                      (EBCOT, t1.c: passes, PCRD truncation over layers)
 *   encoder core       htj2k.c: layout, steps, markers, the codestream and
 *                      file around the packets, step search, public API
 *
 * The core calls a coder only through this table and a coder calls nothing
 * of the core; a coder codes the blocks, chooses what of them goes in each
 * layer and writes the packets.
 */
#ifndef SCI_CODEC_J2K_CODER_H
#define SCI_CODEC_J2K_CODER_H

#include "j2k_enc.h"

typedef struct j2k_block_coder {
    const char *name;
    /* Its state for an encoder whose layout, packets and steps are set;
     * -1 without memory.  free undoes it (also after a failed init). */
    int (*init)(sci_htj2k_enc *e);
    void (*free)(sci_htj2k_enc *e);
    /* Quantization and Tier-1 of every block with the C coder, into the
     * arena (HT: e->len[] their lengths); -1 when a 5/3 magnitude exceeds
     * its band's range or a block fails. */
    int (*code_blocks)(sci_htj2k_enc *e, const void *coeffs);
    /* Layered coders: the passes of the blocks code_blocks made, and the
     * truncation points of every layer for blocks any backend coded (blk,
     * their bytes at bytes + off[i]), the markers around the packets
     * taking `overhead` bytes; -1 on failure.  NULL for a coder of one
     * pass a block (HT), whose rate is the step's. */
    const sci_j2k_block_passes *(*passes)(const sci_htj2k_enc *e);
    int (*allocate)(sci_htj2k_enc *e, const sci_j2k_block_passes *blk,
                    const uint8_t *bytes, const size_t *off, size_t overhead);
    /* The tile's packets in progression order, after SOD.  len[i]: block
     * i's coded bytes (HT); with spans, HT writes only the headers and
     * says where each packet's bodies go (offsets from out - base, as
     * sci_htj2k_write_frame).  plen (may be NULL): each packet's bytes,
     * header and body, in stream order (npackets * layers of them).  -1
     * when a packet cannot be written. */
    int (*write_packets)(sci_htj2k_enc *e, const long *len, out_buf *o,
                         size_t base, sci_htj2k_span *spans,
                         size_t *nspans, uint32_t *plen);
    /* Bound on the coded bytes of block k (its room in the arena). */
    size_t (*block_bytes_bound)(const sci_htj2k_enc *e, const block *k);
    /* Bound on the packets' bytes beyond the blocks' own. */
    size_t (*packet_overhead_bound)(const sci_htj2k_enc *e);
    /* HT with refinement passes: after code_blocks, truncates blocks at
     * their refinement passes so that the packets (headers and bodies)
     * take at most `budget` bytes where dropping passes can reach it.
     * NULL for coders without such truncation points. */
    int (*fit_rate)(sci_htj2k_enc *e, size_t budget);
} j2k_block_coder;

extern const j2k_block_coder j2k_coder_ht;    /* j2k_coder_ht.c */
extern const j2k_block_coder j2k_coder_ebcot; /* j2k_part1.c */

#endif
