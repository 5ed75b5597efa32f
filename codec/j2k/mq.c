/*
 * MQ coder, ISO/IEC 15444-1 Annex C, written from the flow charts of C.2
 * (encoder) and C.3 (decoder) with the register conventions of Table C.1:
 * the encoder's C holds 27 bits below the byte that is still open to a
 * carry (b), A is the 16-bit interval, CT the shifts before the next byte.
 */
#include "mq.h"

#include <string.h>

/* Table C.2: Qe, next index after an MPS, after an LPS, and whether an LPS
 * switches the MPS sense. */
static const uint16_t qe_tab[47] = {
    0x5601, 0x3401, 0x1801, 0x0AC1, 0x0521, 0x0221, 0x5601, 0x5401,
    0x4801, 0x3801, 0x3001, 0x2401, 0x1C01, 0x1601, 0x5601, 0x5401,
    0x5101, 0x4801, 0x3801, 0x3401, 0x3001, 0x2801, 0x2401, 0x2201,
    0x1C01, 0x1801, 0x1601, 0x1401, 0x1201, 0x1101, 0x0AC1, 0x09C1,
    0x08A1, 0x0521, 0x0441, 0x02A1, 0x0221, 0x0141, 0x0111, 0x0085,
    0x0049, 0x0025, 0x0015, 0x0009, 0x0005, 0x0001, 0x5601,
};
static const uint8_t nmps_tab[47] = {
    1, 2, 3, 4, 5, 38, 7, 8, 9, 10, 11, 12, 13, 29, 15, 16,
    17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,
    33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 45, 46,
};
static const uint8_t nlps_tab[47] = {
    1, 6, 9, 12, 29, 33, 6, 14, 14, 14, 17, 18, 20, 21, 14, 14,
    15, 16, 17, 18, 19, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
    30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 46,
};
/* SWITCH is 1 only for indices 0, 6 and 14 */
static inline unsigned switch_of(unsigned i) {
    return i == 0 || i == 6 || i == 14;
}

/* The tables above by state byte, for the decoder (mq.h). */
const uint32_t sci_mq_dec_tab[94] = {
    0x56010203, 0x56010302, 0x3401040C, 0x3401050D,
    0x18010612, 0x18010713, 0x0AC10818, 0x0AC10919,
    0x05210A3A, 0x05210B3B, 0x02214C42, 0x02214D43,
    0x56010E0D, 0x56010F0C, 0x5401101C, 0x5401111D,
    0x4801121C, 0x4801131D, 0x3801141C, 0x3801151D,
    0x30011622, 0x30011723, 0x24011824, 0x24011925,
    0x1C011A28, 0x1C011B29, 0x16013A2A, 0x16013B2B,
    0x56011E1D, 0x56011F1C, 0x5401201C, 0x5401211D,
    0x5101221E, 0x5101231F, 0x48012420, 0x48012521,
    0x38012622, 0x38012723, 0x34012824, 0x34012925,
    0x30012A26, 0x30012B27, 0x28012C26, 0x28012D27,
    0x24012E28, 0x24012F29, 0x2201302A, 0x2201312B,
    0x1C01322C, 0x1C01332D, 0x1801342E, 0x1801352F,
    0x16013630, 0x16013731, 0x14013832, 0x14013933,
    0x12013A34, 0x12013B35, 0x11013C36, 0x11013D37,
    0x0AC13E38, 0x0AC13F39, 0x09C1403A, 0x09C1413B,
    0x08A1423C, 0x08A1433D, 0x0521443E, 0x0521453F,
    0x04414640, 0x04414741, 0x02A14842, 0x02A14943,
    0x02214A44, 0x02214B45, 0x01414C46, 0x01414D47,
    0x01114E48, 0x01114F49, 0x0085504A, 0x0085514B,
    0x0049524C, 0x0049534D, 0x0025544E, 0x0025554F,
    0x00155650, 0x00155751, 0x00095852, 0x00095953,
    0x00055A54, 0x00055B55, 0x00015A56, 0x00015B57,
    0x56015C5C, 0x56015D5D,
};

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
        *s = sci_mq_state(nlps_tab[i], switch_of(i) ? !mps : mps);
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
