/*
 * MQ coder, ISO/IEC 15444-1 Annex C, written from the flow charts of C.2
 * (encoder) and C.3 (decoder) with the register conventions of Table C.1:
 * the encoder's C holds 27 bits below the byte that is still open to a
 * carry (b), A is the 16-bit interval, CT the shifts before the next byte.
 */
#include "mq.h"

#include <string.h>

/* Table C.2, a row an index: Qe, the next index after an MPS and after an
 * LPS, and whether an LPS switches the MPS sense.  The encoder's tables and
 * the decoder's are made from it. */
#define MQ_TABLE(X) \
    X(0x5601, 1, 1, 1) X(0x3401, 2, 6, 0) X(0x1801, 3, 9, 0) \
    X(0x0AC1, 4, 12, 0) X(0x0521, 5, 29, 0) X(0x0221, 38, 33, 0) \
    X(0x5601, 7, 6, 1) X(0x5401, 8, 14, 0) X(0x4801, 9, 14, 0) \
    X(0x3801, 10, 14, 0) X(0x3001, 11, 17, 0) X(0x2401, 12, 18, 0) \
    X(0x1C01, 13, 20, 0) X(0x1601, 29, 21, 0) X(0x5601, 15, 14, 1) \
    X(0x5401, 16, 14, 0) X(0x5101, 17, 15, 0) X(0x4801, 18, 16, 0) \
    X(0x3801, 19, 17, 0) X(0x3401, 20, 18, 0) X(0x3001, 21, 19, 0) \
    X(0x2801, 22, 19, 0) X(0x2401, 23, 20, 0) X(0x2201, 24, 21, 0) \
    X(0x1C01, 25, 22, 0) X(0x1801, 26, 23, 0) X(0x1601, 27, 24, 0) \
    X(0x1401, 28, 25, 0) X(0x1201, 29, 26, 0) X(0x1101, 30, 27, 0) \
    X(0x0AC1, 31, 28, 0) X(0x09C1, 32, 29, 0) X(0x08A1, 33, 30, 0) \
    X(0x0521, 34, 31, 0) X(0x0441, 35, 32, 0) X(0x02A1, 36, 33, 0) \
    X(0x0221, 37, 34, 0) X(0x0141, 38, 35, 0) X(0x0111, 39, 36, 0) \
    X(0x0085, 40, 37, 0) X(0x0049, 41, 38, 0) X(0x0025, 42, 39, 0) \
    X(0x0015, 43, 40, 0) X(0x0009, 44, 41, 0) X(0x0005, 45, 42, 0) \
    X(0x0001, 45, 43, 0) X(0x5601, 46, 46, 0)

#define MQ_QE(qe, nm, nl, sw) qe,
#define MQ_NMPS(qe, nm, nl, sw) nm,
#define MQ_NLPS(qe, nm, nl, sw) nl,
#define MQ_SWITCH(qe, nm, nl, sw) sw,
static const uint16_t qe_tab[47] = {MQ_TABLE(MQ_QE)};
static const uint8_t nmps_tab[47] = {MQ_TABLE(MQ_NMPS)};
static const uint8_t nlps_tab[47] = {MQ_TABLE(MQ_NLPS)};
static const uint8_t switch_tab[47] = {MQ_TABLE(MQ_SWITCH)};

/* The decoder's view, by state byte (index << 1 | MPS): both MPS senses of
 * a row (mq.h) */
#define MQ_DEC_STATE(qe, nm, nl, sw, mps)                                   \
    ((uint32_t)(qe) << 16 | (uint32_t)((nm) << 1 | (mps)) << 8 |            \
     (uint32_t)((nl) << 1 | ((mps) ^ (sw)))),
#define MQ_DEC(qe, nm, nl, sw)                                              \
    MQ_DEC_STATE(qe, nm, nl, sw, 0) MQ_DEC_STATE(qe, nm, nl, sw, 1)
const uint32_t sci_mq_dec_tab[94] = {MQ_TABLE(MQ_DEC)};

unsigned sci_mq_qe(unsigned index) {
    return index < 47 ? qe_tab[index] : 0;
}

static void set_contexts(uint8_t *cx, unsigned *nctx_out, unsigned nctx,
                         const uint8_t *init) {
    if (nctx > SCI_MQ_MAX_CONTEXTS)
        nctx = SCI_MQ_MAX_CONTEXTS;
    *nctx_out = nctx;
    if (init)
        memcpy(cx, init, nctx);
    else
        memset(cx, 0, nctx);
}

/* ---- encoder ---- */

void sci_mq_enc_restart(sci_mq_enc *e, size_t start) {
    e->a = 0x8000;
    e->c = 0;
    /* The byte before the segment is a dummy 0 that is never written: a
     * segment must decode on its own, so it may not depend on (or stuff
     * after) the previous segment's last byte.  C < 2^27 at the first
     * BYTEOUT, so no carry reaches the dummy. */
    e->ct = 12;
    e->b = 0;
    e->bp = (long)start - 1;
    e->first = (long)start;
}

void sci_mq_enc_init(sci_mq_enc *e, uint8_t *buf, size_t cap, unsigned nctx,
                     const uint8_t *init) {
    e->buf = buf;
    e->cap = cap;
    e->overflow = 0;
    e->symbols = 0;
    set_contexts(e->cx, &e->nctx, nctx, init);
    sci_mq_enc_restart(e, 0);
}

/* Closes byte b (writes it) and opens the next one with value v. */
static inline void next_byte(sci_mq_enc *e, unsigned v) {
    if (e->bp >= e->first) {
        if ((size_t)e->bp < e->cap)
            e->buf[e->bp] = (uint8_t)e->b;
        else
            e->overflow = 1;
    }
    e->bp++;
    e->b = v & 0xFF;
}

/* BYTEOUT (Figure C.9): after a 0xFF only 7 bits go out, the eighth (the
 * byte's MSB) is a stuffed 0 that can absorb a later carry. */
static void byteout(sci_mq_enc *e) {
    if (e->b != 0xFF && e->c >= 0x8000000u) {
        e->b++;               /* carry into the open byte */
        e->c &= 0x7FFFFFFu;
    }
    if (e->b == 0xFF) {
        next_byte(e, e->c >> 20);
        e->c &= 0xFFFFFu;
        e->ct = 7;
    } else {
        next_byte(e, e->c >> 19);
        e->c &= 0x7FFFFu;
        e->ct = 8;
    }
}

static inline void renorme(sci_mq_enc *e) {
    do {
        e->a <<= 1;
        e->c <<= 1;
        if (--e->ct == 0)
            byteout(e);
    } while (!(e->a & 0x8000));
}

void sci_mq_enc_encode(sci_mq_enc *e, unsigned cx, unsigned d) {
    uint8_t *s = &e->cx[cx];
    unsigned i = *s >> 1, mps = *s & 1;
    uint32_t qe = qe_tab[i];
    e->symbols++;
    e->a -= qe;
    if ((d & 1) == mps) {
        /* CODEMPS (C.2.4): the MPS takes the upper sub-interval, unless it
         * is the smaller one (conditional exchange). */
        if (e->a & 0x8000) {
            e->c += qe;
            return;
        }
        if (e->a < qe)
            e->a = qe;
        else
            e->c += qe;
        *s = sci_mq_state(nmps_tab[i], mps);
    } else {
        /* CODELPS (C.2.5) */
        if (e->a < qe)
            e->c += qe;
        else
            e->a = qe;
        *s = sci_mq_state(nlps_tab[i], switch_tab[i] ? !mps : mps);
    }
    renorme(e);
}

/* FLUSH (C.2.9) on e: SETBITS puts as many 1-bits as the interval allows at
 * the bottom of C (the decoder supplies ones beyond the end), then two
 * BYTEOUTs push out the rest. */
static size_t flush(sci_mq_enc *e) {
    uint32_t top = e->c + e->a;
    e->c |= 0xFFFF;
    if (e->c >= top)
        e->c -= 0x8000;
    e->c <<= e->ct;
    byteout(e);
    e->c <<= e->ct;
    byteout(e);
    /* the open byte goes out unless it is 0xFF: ones either way */
    if (e->b != 0xFF)
        next_byte(e, 0);
    return (size_t)e->bp;
}

size_t sci_mq_enc_flush(sci_mq_enc *e) {
    return flush(e);
}

size_t sci_mq_enc_pterm(sci_mq_enc *e) {
    /* D.4.2: no SETBITS; C is shifted out byte by byte until k = 12 - CT
     * more bits have gone out, then the open byte is closed (with a last
     * carry) unless it is 0xFF. */
    int k = 12 - (int)e->ct;
    while (k > 0) {
        e->c <<= e->ct;
        e->ct = 0;
        byteout(e);
        k -= (int)e->ct;
    }
    if (e->b != 0xFF)
        byteout(e);
    return (size_t)e->bp;
}

size_t sci_mq_enc_flush_len(const sci_mq_enc *e) {
    sci_mq_enc t = *e;
    t.buf = NULL;   /* nothing is written: bp >= first writes check cap */
    t.cap = 0;
    return flush(&t);
}

size_t sci_mq_enc_trunc_len(const sci_mq_enc *e) {
    /* The next byte to go out holds C's bits 26-CT down to 19-CT (or
     * 20-CT after a 0xFF); the interval's end C + A must be a multiple of
     * the weight of the cut's lowest bit, so the cut must reach down to
     * bit t = ctz(C + A). */
    uint32_t top = e->c + e->a;
    int t = 0;
    while (t < 31 && !(top >> t & 1))
        t++;
    int need = 27 - (int)e->ct - t;
    size_t len = (size_t)(e->bp + 1);
    /* Every other further byte may follow a 0xFF (a byte after 0xFF is at
     * most 0x80, so never two in a row) and carry only 7 bits. */
    unsigned k = 0;
    while ((int)(8 * k - (k + 1) / 2) < need)
        k++;
    return len + k;
}

void sci_mq_enc_mark(const sci_mq_enc *e, sci_mq_mark *m) {
    m->c = e->c;
    m->a = e->a;
    m->ct = e->ct;
    m->b = e->b;
    m->bp = e->bp;
    m->first = e->first;
}

size_t sci_mq_cut_len(const sci_mq_mark *m, const uint8_t *buf, size_t len) {
    /* Weights relative to the register at the mark, scaled by 2^S so that
     * the bytes below C's bit 0 stay integers: the open byte's LSB weighs
     * 2^(27-CT); each further byte 8 bits less, 7 after a 0xFF (its MSB
     * lines up with the 0xFF's LSB).  The bytes before the open one are
     * final already and common to both sides of the comparison. */
    enum { S = 20 };
    int w = 27 - (int)m->ct;
    uint64_t low = ((uint64_t)m->b << (w + S)) + ((uint64_t)m->c << S);
    uint64_t lim = low + ((uint64_t)m->a << S);
    long i = m->bp;
    unsigned byte = i >= m->first && (size_t)i < len ? buf[i] : 0;
    uint64_t acc = (uint64_t)byte << (w + S);
    size_t cut = len;
    /* at most four bytes past the open one (sci_mq_enc_trunc_len) */
    for (;;) {
        size_t l = (size_t)(i + 1);
        if (l >= len)
            break;
        /* the cut followed by ones, a value just below acc + 2^w, must
         * lie in [C, C + A): above C fails only where the cut ends in a
         * 0xFF whose successor carries into it (a set MSB) */
        uint64_t v = acc + ((uint64_t)1 << (w + S));
        if (v > low && v <= lim) {
            cut = l;
            break;
        }
        if (i >= m->bp + 4)
            break;
        w -= byte == 0xFF ? 7 : 8;
        i++;
        byte = buf[i];
        acc += (uint64_t)byte << (w + S);
    }
    if (cut > (size_t)m->first && buf[cut - 1] == 0xFF)
        cut--;
    return cut;
}

/* ---- raw (bypass) segments ---- */

void sci_raw_enc_init(sci_raw_enc *r, uint8_t *buf, size_t cap, size_t start) {
    r->buf = buf;
    r->cap = cap;
    r->bp = (long)start;
    r->c = 0;
    r->ct = r->full = 8;
    r->overflow = 0;
    r->symbols = 0;
}

static void raw_close(sci_raw_enc *r) {
    if ((size_t)r->bp < r->cap)
        r->buf[r->bp] = (uint8_t)r->c;
    else
        r->overflow = 1;
    r->bp++;
    r->full = r->ct = r->c == 0xFF ? 7 : 8;
    r->c = 0;
}

void sci_raw_enc_put(sci_raw_enc *r, unsigned d) {
    r->symbols++;
    r->c |= (d & 1u) << --r->ct;
    if (r->ct == 0)
        raw_close(r);
}

size_t sci_raw_enc_len(const sci_raw_enc *r) {
    return (size_t)r->bp + (r->ct < r->full);
}

size_t sci_raw_enc_flush(sci_raw_enc *r, int pterm) {
    if (r->ct < r->full) {
        for (unsigned bit = 0; r->ct; bit ^= 1)
            r->c |= bit << --r->ct;
        raw_close(r);
    } else if (r->full == 7) {
        /* the last byte is a 0xFF */
        if (pterm) {
            r->c = 0x2A;
            raw_close(r);
        } else {
            r->bp--;
        }
    }
    r->ct = r->full = 8;
    r->c = 0;
    return (size_t)r->bp;
}

void sci_raw_dec_init(sci_raw_dec *r, const uint8_t *buf, size_t len) {
    r->buf = buf;
    r->len = len;
    r->bp = 0;
    r->c = 0;
    r->ct = 0;
}

unsigned sci_raw_dec_get(sci_raw_dec *r) {
    if (r->ct == 0) {
        r->ct = r->c == 0xFF ? 7 : 8;
        r->c = r->bp < r->len ? r->buf[r->bp] : 0xFF;
        r->bp++;
    }
    return r->c >> --r->ct & 1;
}

/* ---- decoder ---- */

static inline unsigned byte_at(const sci_mq_dec *d, size_t i) {
    return i < d->len ? d->buf[i] : 0xFF;
}

/* BYTEIN (Figure C.19): a 0xFF followed by a byte above 0x8F is a marker
 * (or the end): the decoder then feeds 1-bits and stays put. */
void sci_mq_dec_bytein(sci_mq_dec *d) {
    if (d->b == 0xFF) {
        unsigned b1 = byte_at(d, d->bp + 1);
        if (b1 > 0x8F) {
            d->c += 0xFF00;
            d->ct = 8;
        } else {
            d->bp++;
            d->b = b1;
            d->c += b1 << 9;
            d->ct = 7;
        }
    } else {
        d->bp++;
        d->b = byte_at(d, d->bp);
        d->c += d->b << 8;
        d->ct = 8;
    }
}

void sci_mq_dec_restart(sci_mq_dec *d, const uint8_t *buf, size_t len) {
    d->buf = buf;
    d->len = len;
    d->bp = 0;
    d->b = byte_at(d, 0);
    d->c = d->b << 16;
    sci_mq_dec_bytein(d);
    d->c <<= 7;
    d->ct -= 7;
    d->a = 0x8000;
}

void sci_mq_dec_init(sci_mq_dec *d, const uint8_t *buf, size_t len,
                     unsigned nctx, const uint8_t *init) {
    set_contexts(d->cx, &d->nctx, nctx, init);
    sci_mq_dec_restart(d, buf, len);
}
