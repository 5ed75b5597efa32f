/*
 * The MQ arithmetic coder of ITU-T T.800 | ISO/IEC 15444-1 Annex C (the
 * same coder as JBIG2's, ITU-T T.88 Annex E, except for the termination):
 * an adaptive binary coder whose probability estimate per context is one of
 * the 47 states of Table C.2.
 *
 * The encoder writes one codeword segment; sci_mq_enc_flush terminates it
 * as C.2.9 does.  Rate control needs to cut a codeword short, after some
 * symbol, without terminating it there: sci_mq_enc_trunc_len gives a length
 * at which that cut is safe (see its comment and docs/ebcot.md).
 *
 * The decoder (C.3) is there to test the encoder and Tier-1; it reads bytes
 * beyond the end of its segment as 0xFF, as if the segment were followed by
 * a marker, so it feeds 1-bits there (C.3.4).
 */
#ifndef SCI_CODEC_MQ_H
#define SCI_CODEC_MQ_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Tier-1 uses 19 contexts; the coder itself takes any count up to this. */
#define SCI_MQ_MAX_CONTEXTS 64

/* One context's state: (index into Table C.2 << 1) | MPS. */
static inline uint8_t sci_mq_state(unsigned index, unsigned mps) {
    return (uint8_t)(index << 1 | (mps & 1));
}

typedef struct {
    uint32_t a, c;    /* interval size and code register (C.2.1) */
    unsigned ct;      /* shifts left before the next byte goes out */
    unsigned b;       /* the byte at bp, still open to a carry */
    long bp;          /* index of b in buf; first - 1 before any byte */
    long first;       /* where the current segment starts in buf */
    uint8_t *buf;
    size_t cap;
    int overflow;     /* a byte fell beyond cap (still counted in bp) */
    unsigned long symbols;  /* decisions coded since init */
    unsigned nctx;
    uint8_t cx[SCI_MQ_MAX_CONTEXTS];
} sci_mq_enc;

typedef struct {
    uint32_t a, c;
    unsigned ct, b;
    size_t bp, len;
    const uint8_t *buf;
    unsigned nctx;
    uint8_t cx[SCI_MQ_MAX_CONTEXTS];
} sci_mq_dec;

/* Qe of a state index (0..46), for tests and cost estimates. */
unsigned sci_mq_qe(unsigned index);

/* INITENC (C.2.8) writing to buf[0..cap); nctx contexts (at most
 * SCI_MQ_MAX_CONTEXTS), each set from init[] (sci_mq_state values), or to
 * state 0, MPS 0 where init is NULL. */
void sci_mq_enc_init(sci_mq_enc *e, uint8_t *buf, size_t cap, unsigned nctx,
                     const uint8_t *init);
/* INITENC again for a new segment that starts at buf[start] (termination on
 * each pass): the contexts are kept. */
void sci_mq_enc_restart(sci_mq_enc *e, size_t start);
/* ENCODE (C.2.2): decision d (0/1) in context cx. */
void sci_mq_enc_encode(sci_mq_enc *e, unsigned cx, unsigned d);
/* FLUSH (C.2.9): terminates the segment; returns the index one past its
 * last byte (a final 0xFF is left out, as C.2.9 says).  The bytes are in buf
 * unless e->overflow. */
size_t sci_mq_enc_flush(sci_mq_enc *e);

/* The number of bytes, from the start of the buffer, that a FLUSH now would
 * leave (without touching the encoder): the length of the codeword if it
 * were terminated after the current symbol.  That is the pass length under
 * termination on each pass; it is NOT a safe place to cut a codeword that
 * goes on, since the bytes that follow differ from the flush's. */
size_t sci_mq_enc_flush_len(const sci_mq_enc *e);

/* A cut of the final codeword (whatever is coded after now, and however it
 * is flushed) to this many bytes, read by a decoder that takes bytes beyond
 * the end as 0xFF, decodes every symbol coded so far correctly.  It is:
 *   the bytes emitted so far (up to and including the byte still open to a
 *   carry) + the fewest further bytes that carry the code register down to
 *   bit t, t = the number of trailing zero bits of C + A (the end of the
 *   current interval), counting 7 bits for every further byte that may
 *   follow a 0xFF.
 * Truncated there, the codeword reads as its first bytes followed by ones,
 * a value that stays below C + A because C + A is a multiple of the weight
 * of the last byte's lowest bit.  The caller may then clip it to the final
 * length.  One more rule: a cut that ends in 0xFF where the codeword goes
 * on must keep the byte after it too, since that byte's MSB may be a carry
 * into the 0xFF (the decoder's ones after a 0xFF leave that bit 0).  It is
 * a bound that holds for every continuation, so it can exceed the
 * shortest cut of the actual final codeword (sci_mq_cut_len) by a few
 * bytes. */
size_t sci_mq_enc_trunc_len(const sci_mq_enc *e);

/* The exact version, once the final codeword is known: a mark taken after
 * a symbol, and the shortest cut of the final codeword buf[0..len) that
 * still decodes every symbol up to the mark.  The cut's bytes, followed by
 * the decoder's ones, must read as a value in the interval [C, C + A) of
 * the mark; that is checked against the actual bytes (their stuffing
 * included) for the cuts that keep at least the byte open at the mark,
 * shortest first.  A last byte 0xFF of the cut is then left out (the same
 * value).  Never longer than sci_mq_enc_trunc_len (with its rules). */
typedef struct {
    uint32_t c, a;
    unsigned ct, b;
    long bp, first;
} sci_mq_mark;

void sci_mq_enc_mark(const sci_mq_enc *e, sci_mq_mark *m);
size_t sci_mq_cut_len(const sci_mq_mark *m, const uint8_t *buf, size_t len);

/* Predictable termination (D.4.2) instead of FLUSH: C itself (the low end
 * of the interval) is pushed out until at least 12 - CT more bits are out,
 * and the open byte goes out unless it is 0xFF.  Returns the index one
 * past the segment's last byte.  A decoder that reads 0xFF beyond the end
 * decodes it like a FLUSHed segment. */
size_t sci_mq_enc_pterm(sci_mq_enc *e);

/* The raw segments of selective arithmetic coding bypass (D.6): decisions
 * are bits, packed MSB first; after a 0xFF byte the next byte's MSB is a
 * stuffed 0 (only 7 bits go in), so no 0xFF is followed by a byte above
 * 0x7F. */
typedef struct {
    uint8_t *buf;
    size_t cap;
    long bp;          /* index of the byte being filled */
    unsigned c;       /* its bits so far */
    unsigned ct;      /* bits still free in it */
    unsigned full;    /* its size in bits: 8, or 7 after a 0xFF */
    int overflow;
    unsigned long symbols;
} sci_raw_enc;

/* Starts a raw segment at buf[start]. */
void sci_raw_enc_init(sci_raw_enc *r, uint8_t *buf, size_t cap, size_t start);
void sci_raw_enc_put(sci_raw_enc *r, unsigned d);
/* Index one past the last byte holding a bit coded so far (a partly
 * filled byte counts): a cut of the final segment there decodes them. */
size_t sci_raw_enc_len(const sci_raw_enc *r);
/* Terminates the segment: a partly filled byte is padded with 0, 1, 0, ...
 * (D.6's predictable padding; used with and without pterm).  A last 0xFF
 * with nothing after it is left out (the decoder's 0xFF reads the same
 * ones), except under predictable termination, where a byte 0x2A (the 7
 * bits 0101010) follows it.  Returns the index one past the last byte. */
size_t sci_raw_enc_flush(sci_raw_enc *r, int pterm);

typedef struct {
    const uint8_t *buf;
    size_t len, bp;
    unsigned c, ct;
} sci_raw_dec;

/* Reads the raw segment buf[0..len); bytes beyond len read as 0xFF. */
void sci_raw_dec_init(sci_raw_dec *r, const uint8_t *buf, size_t len);
unsigned sci_raw_dec_get(sci_raw_dec *r);

/* INITDEC (C.3.5) over buf[0..len); contexts as for sci_mq_enc_init. */
void sci_mq_dec_init(sci_mq_dec *d, const uint8_t *buf, size_t len,
                     unsigned nctx, const uint8_t *init);
/* INITDEC for the next segment, buf[0..len), keeping the contexts. */
void sci_mq_dec_restart(sci_mq_dec *d, const uint8_t *buf, size_t len);
/* BYTEIN (C.3.4), for sci_mq_dec_decode. */
void sci_mq_dec_bytein(sci_mq_dec *d);

/* Table C.2 by a context's state byte (sci_mq_state): Qe << 16, the state
 * after an MPS << 8, the state after an LPS (its MPS already switched). */
extern const uint32_t sci_mq_dec_tab[94];

/* RENORMD (C.3.3) with A > 0: the shifts that bring A's bit 15 up, made
 * in runs between the new bytes rather than one at a time. */
static inline void sci_mq_dec_renorm(sci_mq_dec *d) {
    unsigned n = (unsigned)__builtin_clz(d->a) - 16;
    while (n > d->ct) {
        d->a <<= d->ct;
        d->c <<= d->ct;
        n -= d->ct;
        d->ct = 0;
        sci_mq_dec_bytein(d);
    }
    d->a <<= n;
    d->c <<= n;
    d->ct -= n;
}

/* DECODE (C.3.2): the next decision in context cx.  Inline: the block
 * decoders spend most of their time here. */
static inline unsigned sci_mq_dec_decode(sci_mq_dec *d, unsigned cx) {
    uint8_t *s = &d->cx[cx];
    uint32_t t = sci_mq_dec_tab[*s];
    uint32_t qe = t >> 16;
    unsigned mps = *s & 1u, bit;
    d->a -= qe;
    if ((d->c >> 16) < qe) {
        /* the lower sub-interval: the LPS, unless exchanged */
        if (d->a < qe) {
            bit = mps;
            *s = (uint8_t)(t >> 8);
        } else {
            bit = mps ^ 1u;
            *s = (uint8_t)t;
        }
        d->a = qe;
        sci_mq_dec_renorm(d);
        return bit;
    }
    d->c -= qe << 16;
    if (d->a & 0x8000u)
        return mps;
    /* MPS_EXCHANGE */
    if (d->a < qe) {
        bit = mps ^ 1u;
        *s = (uint8_t)t;
    } else {
        bit = mps;
        *s = (uint8_t)(t >> 8);
    }
    sci_mq_dec_renorm(d);
    return bit;
}

#ifdef __cplusplus
}
#endif
#endif
