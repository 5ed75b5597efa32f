/*
 * Bit-level pieces of JPEG 2000 tier-2 packet headers (ISO/IEC 15444-1
 * Annex B.10), both directions, shared by the encoder's packet writers
 * (htj2k.c, j2k_part1.c) and the decoder's reader (j2k_t2.c): the header
 * bits with their bit-stuffing rule, tag trees (B.10.2) for code-block
 * inclusion and zero bit-planes, the number of coding passes (Table B.4),
 * Lblock increments (B.10.7.1) and the width of a length field (B.10.7).
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

/* ---- reading ------------------------------------------------------------ */

typedef struct {
    const uint8_t *p;
    size_t len, pos;
    unsigned byte;   /* the byte being read */
    unsigned ct;     /* its bits left */
    int over;        /* read past the end (the bits read there are 0) */
} sci_t2_rd;

static inline void sci_t2_rd_init(sci_t2_rd *b, const uint8_t *p, size_t len,
                                  size_t pos) {
    b->p = p;
    b->len = len;
    b->pos = pos;
    b->byte = 0;
    b->ct = 0;
    b->over = 0;
}

/* The next byte, once the current one's bits are used. */
static inline void sci_t2_rd_fill(sci_t2_rd *b) {
    /* after 0xFF the next byte carries 7 bits, its MSB a stuffed 0 */
    unsigned n = b->byte == 0xFF ? 7 : 8;
    if (b->pos < b->len) {
        b->byte = b->p[b->pos++];
    } else {
        b->byte = 0;
        b->over = 1;
    }
    b->ct = n;
}

static inline unsigned sci_t2_rd_bit(sci_t2_rd *b) {
    if (b->ct == 0)
        sci_t2_rd_fill(b);
    b->ct--;
    return (b->byte >> b->ct) & 1;
}

/* n bits (n <= 32), most significant first: what is left of the byte at
 * a time. */
static inline uint32_t sci_t2_rd_bits(sci_t2_rd *b, unsigned n) {
    uint32_t v = 0;
    while (n) {
        if (b->ct == 0)
            sci_t2_rd_fill(b);
        unsigned take = n < b->ct ? n : b->ct;
        b->ct -= take;
        v = (uint32_t)((uint64_t)v << take) |
            ((b->byte >> b->ct) & ((1u << take) - 1));
        n -= take;
    }
    return v;
}

/* The end of a header: padding to the byte, and the byte a final 0xFF
 * brings along (what sci_t2_bits_finish wrote). */
static inline void sci_t2_rd_align(sci_t2_rd *b) {
    if (b->byte == 0xFF) {
        if (b->pos < b->len)
            b->pos++;
        else
            b->over = 1;
    }
    b->byte = 0;
    b->ct = 0;
}

/* Decodes, for leaf (x, y) of a w x h tag tree whose nodes (levels as
 * sci_tagtree's, leaves first) hold the bound known so far in low[] and
 * the value where found in val[] (INT32_MAX before), whether the leaf is
 * below `threshold`, reading only what sci_tagtree_encode sent for that
 * threshold.  Returns 1 when known to be below. */
int sci_tagtree_decode(sci_t2_rd *b, int32_t *low, int32_t *val, uint32_t w,
                       uint32_t h, uint32_t x, uint32_t y, int32_t threshold);

/* ---- the codes of a code-block's entry (B.10.6, B.10.7) ------------------ */

static inline unsigned sci_t2_floor_log2(unsigned v) {
    return v ? 31u - (unsigned)__builtin_clz(v) : 0;
}

/* Bits that v takes (0 for 0). */
static inline unsigned sci_t2_bit_len(uint64_t v) {
    return v ? 64u - (unsigned)__builtin_clzll(v) : 0;
}

/* Bits of the length field of a codeword segment of `passes` passes:
 * Lblock + floor(log2(passes)). */
static inline unsigned sci_t2_len_bits(unsigned lblock, unsigned passes) {
    return lblock + sci_t2_floor_log2(passes);
}

/* The number of new coding passes, 1..164 (Table B.4). */
void sci_t2_put_passes(sci_t2_bits *w, unsigned n);
unsigned sci_t2_get_passes(sci_t2_rd *b);

/* Lblock's increment: `inc` ones then a zero (B.10.7.1). */
static inline void sci_t2_put_lblock_inc(sci_t2_bits *w, unsigned inc) {
    sci_t2_bits_run(w, 1, inc);
    sci_t2_bits_put(w, 0, 1);
}
/* Reads the increment into *lblock; -1 when it would pass `most` (or the
 * bits run out). */
static inline int sci_t2_get_lblock_inc(sci_t2_rd *b, unsigned *lblock,
                                        unsigned most) {
    while (sci_t2_rd_bit(b)) {
        if (b->over || ++*lblock > most)
            return -1;
    }
    return b->over ? -1 : 0;
}

#ifdef __cplusplus
}
#endif
#endif
