/*
 * Bit-level pieces of JPEG 2000 tier-2 packet headers (ISO/IEC 15444-1
 * Annex B.10): the header bit writer with its bit-stuffing rule, and tag
 * trees (B.10.2) for code-block inclusion and zero bit-planes.
 *
 * Bits are written most significant first.  After a byte of 0xFF the next
 * byte carries only 7 bits (its top bit is a stuffed 0), so no two bytes of
 * a header read as a marker.  Finishing a header pads the last byte with
 * zeros and, if that byte is 0xFF, appends a 0x00 (B.10.1).
 */
#ifndef SCI_CODEC_T2_BITS_H
#define SCI_CODEC_T2_BITS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint8_t *buf;
    size_t cap;      /* bytes available at buf */
    size_t len;      /* whole bytes written */
    uint64_t acc;    /* pending bits, right-aligned */
    unsigned room;   /* bits the next byte takes: 8, or 7 after 0xFF */
    unsigned used;   /* bits pending in acc, fewer than room between puts */
    int overflow;    /* set when a byte did not fit in cap */
} sci_t2_bits;

void sci_t2_bits_init(sci_t2_bits *b, uint8_t *buf, size_t cap);
/* The low `n` bits of `v` (n <= 57), most significant first. */
void sci_t2_bits_put(sci_t2_bits *b, uint64_t v, unsigned n);
/* n copies of one bit (0 or 1), any n. */
void sci_t2_bits_run(sci_t2_bits *b, unsigned bit, unsigned n);
/* Pads, stuffs if needed; returns the header length in bytes, or 0 with
 * b->overflow set when the buffer was too small. */
size_t sci_t2_bits_finish(sci_t2_bits *b);

/*
 * A tag tree over a w x h array of non-negative values: each level halves
 * the one below (rounding up) until a single root.  The encoder state
 * remembers what the decoder already knows, so that coding a leaf against
 * successive thresholds (layers) emits only the new information.
 */
typedef struct {
    uint32_t w, h;
    unsigned levels;          /* leaf level is 0 */
    uint32_t lw[32], lh[32];  /* size of each level */
    size_t base[32];          /* first node of each level */
    int32_t *value;           /* per node: min of its children */
    int32_t *low;             /* per node: lower bound the decoder knows */
    uint8_t *known;           /* per node: decoder knows value exactly */
    size_t nodes;
} sci_tagtree;

/* Returns 0, or -1 when memory cannot be had; w, h >= 1. */
int sci_tagtree_init(sci_tagtree *t, uint32_t w, uint32_t h);
void sci_tagtree_free(sci_tagtree *t);
/* Sets leaf (x, y); call for every leaf, then sci_tagtree_build. */
void sci_tagtree_set(sci_tagtree *t, uint32_t x, uint32_t y, int32_t v);
/* Computes the inner nodes and resets what the decoder is assumed to know. */
void sci_tagtree_build(sci_tagtree *t);
/* Recomputes the inner nodes only, keeping what the decoder knows: for
 * leaves whose changes the decoder cannot yet have seen (inclusion tree
 * leaves still above the threshold coded so far). */
void sci_tagtree_refresh(sci_tagtree *t);
/* Emits what tells a decoder whether leaf (x, y) is below `threshold`
 * (and, if so, its exact value). */
void sci_tagtree_encode(sci_tagtree *t, sci_t2_bits *b, uint32_t x,
                        uint32_t y, int32_t threshold);

#ifdef __cplusplus
}
#endif
#endif
