/*
 * Tier-1 of JPEG 2000 Part 1 (ITU-T T.800 | ISO/IEC 15444-1 Annex D): the
 * sequential EBCOT coder of one code-block with the MQ coder (mq.h).
 *
 * Samples are sign-magnitude words as in ht_block.h: bit 31 the sign, bits
 * 0..30 the magnitude, whose nbp low bits (the subband's M_b magnitude
 * bit-planes, 1..30) may be nonzero.  The coder starts at the block's most
 * significant nonzero bit-plane P (zero_planes = nbp - 1 - P planes above it
 * are all zero: Tier-2 signals that number) and codes 3P + 1 passes: the
 * cleanup pass of plane P, then significance propagation, magnitude
 * refinement and cleanup for each plane below (D.3, D.4).
 *
 * The decision sequence of the passes, (context, decision) pairs in coding
 * order, can be watched with a trace callback: the bit-parallel modeller
 * must reproduce exactly that sequence.  Decisions of raw passes
 * (SCI_T1_BYPASS) have no context: the trace reports them with
 * cx = SCI_T1_NCTX.
 */
#ifndef SCI_CODEC_T1_H
#define SCI_CODEC_T1_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SCI_T1_SIGN 0x80000000u
#define SCI_T1_MAX_SIDE 1024
#define SCI_T1_MAX_SAMPLES 4096
#define SCI_T1_MAX_PLANES 30
/* 3 * (SCI_T1_MAX_PLANES - 1) + 1 */
#define SCI_T1_MAX_PASSES 88

/* Context labels (our numbering of the 19 contexts of D.3): zero coding
 * 0..8 (Table D.1's labels), sign coding 9..13 (Table D.3's), magnitude
 * refinement 14..16 (Table D.4's), run-length 17, uniform 18. */
#define SCI_T1_CX_ZC 0
#define SCI_T1_CX_SC 9
#define SCI_T1_CX_MR 14
#define SCI_T1_CX_RL 17
#define SCI_T1_CX_UNI 18
#define SCI_T1_NCTX 19

/* Subband orientations: they choose the zero coding table (Table D.1). */
typedef enum {
    SCI_T1_LL = 0,
    SCI_T1_HL = 1,   /* horizontally high-pass */
    SCI_T1_LH = 2,   /* vertically high-pass */
    SCI_T1_HH = 3,
} sci_t1_band;

/* Code-block style bits, as in COD/COC's SPcod (Table A.19). */
#define SCI_T1_BYPASS 0x01   /* selective arithmetic coding bypass */
#define SCI_T1_RESET 0x02    /* reset context probabilities on each pass */
#define SCI_T1_TERMALL 0x04  /* termination on each coding pass */
#define SCI_T1_VCAUSAL 0x08  /* vertically causal context formation */
#define SCI_T1_PTERM 0x10    /* predictable termination */
#define SCI_T1_SEGSYM 0x20   /* segmentation symbols */
/* What this coder implements: all of Part 1's styles. */
#define SCI_T1_STYLES (SCI_T1_BYPASS | SCI_T1_RESET | SCI_T1_TERMALL | \
                       SCI_T1_VCAUSAL | SCI_T1_PTERM | SCI_T1_SEGSYM)

typedef void (*sci_t1_trace_fn)(void *user, unsigned cx, unsigned d);

typedef struct {
    unsigned w, h;        /* 1..1024 each, w * h <= 4096 */
    unsigned band;        /* sci_t1_band */
    unsigned nbp;         /* magnitude bit-planes M_b, 1..30 */
    unsigned style;       /* SCI_T1_* style bits, within SCI_T1_STYLES */
    sci_t1_trace_fn trace;  /* NULL: no trace */
    void *trace_user;
} sci_t1_params;

typedef struct {
    unsigned passes;       /* 0 when every magnitude is 0: not coded */
    unsigned zero_planes;  /* nbp - 1 - P (nbp when passes == 0) */
    size_t len;            /* codeword bytes */
    unsigned long symbols; /* decisions coded (MQ, and raw under BYPASS) */
    /* After pass i (0-based): the bytes a decoder needs to decode passes
     * 0..i (cumulative, non-decreasing, pass_len[passes - 1] == len): the
     * end of the codeword segment where pass i ends one (pass_term[i]),
     * else the shortest cut of the segment's final bytes that still
     * decodes the pass (sci_mq_cut_len for MQ passes, the bytes holding
     * its bits for raw ones; see docs/ebcot.md). */
    size_t pass_len[SCI_T1_MAX_PASSES];
    /* Codeword segments (D.4): pass i ends one iff pass_term[i] (the last
     * pass always; every pass under SCI_T1_TERMALL; under SCI_T1_BYPASS
     * Table D.9's boundaries).  Segment j spans from the pass_len of the
     * previous terminating pass (0 for the first) to that of its own
     * last pass.  pass_raw[i]: pass i was coded raw (bypass). */
    unsigned segments;
    uint8_t pass_term[SCI_T1_MAX_PASSES];
    uint8_t pass_raw[SCI_T1_MAX_PASSES];
    /* Decrease of the squared error of the quantization indices that pass
     * i brings, with the reconstruction of sci_t1_decode: the exact integer
     * sum of the pass's per-sample terms (int64 each, summed in 128 bits,
     * so independent of the order of summation), rounded once to double.
     * Their sum is the block's sum of squared magnitudes. */
    double pass_dist[SCI_T1_MAX_PASSES];
    /* Decisions coded up to the end of pass i (cumulative). */
    unsigned long pass_symbols[SCI_T1_MAX_PASSES];
} sci_t1_result;

/* Working memory of one coder (about 40 KiB): no allocation inside.  One
 * per thread. */
typedef struct {
    uint16_t flags[(SCI_T1_MAX_SIDE + 2) * (4 + 2)];
    uint32_t mag[SCI_T1_MAX_SAMPLES];
    uint8_t low[SCI_T1_MAX_SAMPLES];
} sci_t1_coder;

/* NULL when p can be coded, else why not (a static string). */
const char *sci_t1_check(const sci_t1_params *p);

/* An upper bound on the codeword bytes of a w x h block with nbp planes. */
size_t sci_t1_max_bytes(unsigned w, unsigned h, unsigned nbp);

/* Codes the block sm (rows `stride` words apart) into out[0..cap).
 * Returns 0, -1 for invalid parameters or a magnitude >= 2^nbp, -2 when
 * cap is too small (never when cap >= sci_t1_max_bytes). */
int sci_t1_encode(sci_t1_coder *t, const sci_t1_params *p, const uint32_t *sm,
                  size_t stride, uint8_t *out, size_t cap, sci_t1_result *r);

/* Decodes the first `passes` passes of a block coded with p and
 * zero_planes, from in[0..len) (len = pass_len[passes - 1] of the encoder,
 * or less: bytes beyond len read as 0xFF).  pass_len (the encoder's
 * cumulative lengths, entries 0..passes-1) is needed under SCI_T1_TERMALL
 * and SCI_T1_BYPASS (where segments start), else unused.
 * A sample whose bit-planes down to q >= 1 were decoded is reconstructed at
 * the midpoint of its interval, magnitude | 2^(q-1); one decoded down to
 * plane 0 is exact.  Returns 0, -1 for invalid parameters, 1 when a
 * segmentation symbol came out wrong (corrupt data; samples still written).
 * p->trace, if set, sees the decoded (context, decision) pairs. */
int sci_t1_decode(sci_t1_coder *t, const sci_t1_params *p, const uint8_t *in,
                  size_t len, unsigned zero_planes, unsigned passes,
                  const size_t *pass_len, uint32_t *sm, size_t stride);

/* As sci_t1_decode, for decoders that reconstruct themselves (the
 * decoder of codec/j2k/): sm gets the decoded bits only (the magnitude bits
 * of the planes decoded, and the sign), and low[y * low_stride + x] the
 * lowest bit-plane decoded of each nonzero sample (0: its magnitude is
 * exact); low is left alone where the sample is zero. */
int sci_t1_decode_raw(sci_t1_coder *t, const sci_t1_params *p,
                      const uint8_t *in, size_t len, unsigned zero_planes,
                      unsigned passes, const size_t *pass_len, uint32_t *sm,
                      size_t stride, uint8_t *low, size_t low_stride);

#ifdef __cplusplus
}
#endif
#endif
