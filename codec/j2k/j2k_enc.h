/*
 * Internal to the JPEG 2000 encoder: the frame layout (bands, code-blocks,
 * packets) and the encoder state, which its core (htj2k.c) sets up and its
 * block coders (j2k_coder.h: j2k_coder_ht.c, j2k_part1.c) work on.
 */
#ifndef SCI_CODEC_J2K_ENC_H
#define SCI_CODEC_J2K_ENC_H

#include <string.h>

#include "htj2k.h"
#include "j2k_markers.h"
#include "j2k_quant.h"
#include "t2_bits.h"

#define MAX_BANDS (SCI_WT_MAX_COMPONENTS * (3 * SCI_DWT_MAX_LEVELS + 1))
/* Largest resolution that one precinct of 2^15 covers. */
#define MAX_PRECINCT ((uint32_t)SCI_HTJ2K_MAX_SIZE)

typedef struct {
    unsigned comp, res, type;   /* type: 0 LL, 1 HL, 2 LH, 3 HH */
    unsigned level;             /* decomposition level (LL: levels) */
    uint32_t x0, y0, w, h;      /* in the component's coefficient plane */
    unsigned nbx, nby;          /* code-blocks across and down */
    unsigned mb;                /* magnitude bit-planes M_b */
    uint16_t spqcd;             /* QCD entry: exponent (and mantissa) */
    float inv_step;             /* 9/7: 1 / step, in coefficient units */
    double weight;              /* 9/7: L2 norm of its synthesis basis */
    /* Part 1: image-domain squared error of a unit of squared index
     * error (step, synthesis norm and colour transform gain, squared) */
    double dist_weight;
    size_t first_block;
    /* tag-tree geometry and node storage, used by tier-2 for bands with
     * both included and left-out blocks (values, first-visit flags) */
    sci_tagtree incl, zbp;
} band;

typedef struct {
    unsigned band;
    uint32_t x0, y0, w, h;      /* in the component's coefficient plane */
    size_t slot, slot_cap;      /* its bytes in the block arena */
} block;

/* The packet of one (component, resolution): its bands are consecutive in
 * bands[] and their blocks consecutive in blocks[] (layout order). */
typedef struct {
    unsigned first_band, nbands;
    size_t first_block, nblocks;
} packet;

#define MAX_PACKETS (SCI_WT_MAX_COMPONENTS * (SCI_DWT_MAX_LEVELS + 1))

struct sci_htj2k_enc {
    sci_wt_geometry g;
    sci_htj2k_params p;
    sci_pool *pool;             /* the threads that code blocks; may be NULL */
    sci_ht_enc_tables tables;
    unsigned guard_bits;
    unsigned nbands;
    band bands[MAX_BANDS];
    size_t nblocks;
    block *blocks;
    uint8_t *arena;             /* the C backend's coded blocks */
    size_t arena_size;
    long *len;                  /* coded length of each block */
    size_t *slot_off;           /* arena offset of each block */
    unsigned npackets;
    packet packets[MAX_PACKETS];  /* index c * (levels + 1) + r */
    sci_htj2k_span spans[MAX_PACKETS];
    uint32_t *plen;             /* params plt: each packet's bytes */
    size_t comp_offset[SCI_WT_MAX_COMPONENTS];
    double last_qstep;
    /* rate control: the step and log-log slope the last frame ended on
     * (0: no frame yet) */
    double rate_q, rate_slope;
    const struct j2k_block_coder *coder;  /* j2k_coder.h */
    uint8_t *hdr;               /* HT: one packet header */
    size_t hdr_cap;
    struct j2k_p1 *p1;          /* EBCOT state (j2k_part1.c); NULL for HT */
    /* HT refinement passes (params refinement): each block's segment
     * lengths and passes (j2k_coder_ht.c); NULL without */
    struct j2k_htref *htref;
    /* what the main header says, in the structures the decoder parses it
     * into (j2k_stream.h); tcp.qcd follows the steps */
    sci_j2k_siz siz;
    sci_j2k_siz_comp siz_comp[SCI_WT_MAX_COMPONENTS];
    sci_j2k_tcp tcp;
    uint32_t pcap;
    uint16_t ccap15;
    sci_j2k_jp2 jp2;            /* the JPH boxes (params jph) */
};

/* The byte writer of the markers (j2k_markers.h), under shorter names. */
typedef sci_j2k_out out_buf;

static inline void put8(out_buf *o, unsigned v) {
    sci_j2k_put8(o, v);
}
static inline void put16(out_buf *o, unsigned v) {
    sci_j2k_put16(o, v);
}
static inline void put32(out_buf *o, uint32_t v) {
    sci_j2k_put32(o, v);
}
static inline void put_bytes(out_buf *o, const uint8_t *s, size_t n) {
    sci_j2k_put_bytes(o, s, n);
}

/* Block i's sign-magnitude indices into dst (rows `stride` apart) from
 * the frame's coefficients; -1 when a 5/3 magnitude exceeds its band's
 * range. */
static inline int j2k_quantize_block(const sci_htj2k_enc *e, size_t i,
                                     const void *coeffs, uint32_t *dst,
                                     size_t stride) {
    const sci_wt_geometry *g = &e->g;
    const block *k = &e->blocks[i];
    const band *b = &e->bands[k->band];
    uint32_t cw = sci_wt_comp_width(g, b->comp);
    size_t base = e->comp_offset[b->comp] + (size_t)k->y0 * cw + k->x0;
    return sci_j2k_quantize_block((const int32_t *)coeffs + base, cw, k->w,
                                  k->h, g->filter == SCI_DWT_53, b->inv_step,
                                  b->mb, dst, stride);
}

#endif
