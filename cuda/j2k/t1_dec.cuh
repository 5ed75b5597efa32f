/*
 * The EBCOT (Part 1) block decoder of codec/j2k/t1_dec.c and the MQ and raw
 * decoders of codec/j2k/mq.c as device code, a warp a code-block: MQ
 * decoding is sequential within a block, so lane 0 decodes every pass of
 * every code-block style, with the C decoder's segments, fills past the
 * ends and segmentation-symbol check, so that the result is the same bit
 * for bit; before each pass the warp marks, 32 samples a ballot, the
 * samples the pass may visit, so that lane 0 skips the others.
 *
 * State: the magnitude bits go straight into the block's place in the
 * coefficient plane (as in ht_dec.cuh); the flags live in the warp's
 * shared memory, a word a stripe column (below).  The MagRef pass's
 * contexts are fixed before it starts, so the warp prepares them and
 * applies its bits, and lane 0 only decodes.  The zero coding labels and
 * the pass rules come from codec/j2k/t1_rules.h, shared with the C coders
 * and cuda/j2k/t1.cu.
 *
 * Built for the host too (SCI_J2KDEC_EMU: tests/j2k/j2kdec_emu.cpp).
 */
#ifndef SCI_CUDA_T1_DEC_CUH
#define SCI_CUDA_T1_DEC_CUH

#include <stddef.h>
#include <stdint.h>

#include "codec/j2k/t1.h"
#include "codec/j2k/t1_rules.h"
#include "dec_warp.cuh"

#if defined(__CUDACC__)
#define SCI_T1D __device__ __forceinline__
#define SCI_T1D_HD __host__ __device__ inline
#define SCI_T1D_NOINLINE __device__ __forceinline__
#define SCI_T1D_TABLE __constant__
#else
#define SCI_T1D inline
#define SCI_T1D_HD inline
#define SCI_T1D_NOINLINE
#define SCI_T1D_TABLE static const
#endif

namespace sci_t1d {

/* Table C.2: Qe << 16 | NMPS << 8 | NLPS << 2 | SWITCH << 1.  A context's
 * state is its index's entry with the MPS in bit 0, so that a decision
 * reads Qe from the state itself, not through a second lookup. */
#define SCI_T1D_Q(qe, nm, nl, sw) \
    ((uint32_t)(qe) << 16 | (nm) << 8 | (nl) << 2 | (sw) << 1)
SCI_T1D_TABLE uint32_t mq_tab[47] = {
    SCI_T1D_Q(0x5601, 1, 1, 1), SCI_T1D_Q(0x3401, 2, 6, 0),
    SCI_T1D_Q(0x1801, 3, 9, 0), SCI_T1D_Q(0x0AC1, 4, 12, 0),
    SCI_T1D_Q(0x0521, 5, 29, 0), SCI_T1D_Q(0x0221, 38, 33, 0),
    SCI_T1D_Q(0x5601, 7, 6, 1), SCI_T1D_Q(0x5401, 8, 14, 0),
    SCI_T1D_Q(0x4801, 9, 14, 0), SCI_T1D_Q(0x3801, 10, 14, 0),
    SCI_T1D_Q(0x3001, 11, 17, 0), SCI_T1D_Q(0x2401, 12, 18, 0),
    SCI_T1D_Q(0x1C01, 13, 20, 0), SCI_T1D_Q(0x1601, 29, 21, 0),
    SCI_T1D_Q(0x5601, 15, 14, 1), SCI_T1D_Q(0x5401, 16, 14, 0),
    SCI_T1D_Q(0x5101, 17, 15, 0), SCI_T1D_Q(0x4801, 18, 16, 0),
    SCI_T1D_Q(0x3801, 19, 17, 0), SCI_T1D_Q(0x3401, 20, 18, 0),
    SCI_T1D_Q(0x3001, 21, 19, 0), SCI_T1D_Q(0x2801, 22, 19, 0),
    SCI_T1D_Q(0x2401, 23, 20, 0), SCI_T1D_Q(0x2201, 24, 21, 0),
    SCI_T1D_Q(0x1C01, 25, 22, 0), SCI_T1D_Q(0x1801, 26, 23, 0),
    SCI_T1D_Q(0x1601, 27, 24, 0), SCI_T1D_Q(0x1401, 28, 25, 0),
    SCI_T1D_Q(0x1201, 29, 26, 0), SCI_T1D_Q(0x1101, 30, 27, 0),
    SCI_T1D_Q(0x0AC1, 31, 28, 0), SCI_T1D_Q(0x09C1, 32, 29, 0),
    SCI_T1D_Q(0x08A1, 33, 30, 0), SCI_T1D_Q(0x0521, 34, 31, 0),
    SCI_T1D_Q(0x0441, 35, 32, 0), SCI_T1D_Q(0x02A1, 36, 33, 0),
    SCI_T1D_Q(0x0221, 37, 34, 0), SCI_T1D_Q(0x0141, 38, 35, 0),
    SCI_T1D_Q(0x0111, 39, 36, 0), SCI_T1D_Q(0x0085, 40, 37, 0),
    SCI_T1D_Q(0x0049, 41, 38, 0), SCI_T1D_Q(0x0025, 42, 39, 0),
    SCI_T1D_Q(0x0015, 43, 40, 0), SCI_T1D_Q(0x0009, 44, 41, 0),
    SCI_T1D_Q(0x0005, 45, 42, 0), SCI_T1D_Q(0x0001, 45, 43, 0),
    SCI_T1D_Q(0x5601, 46, 46, 0),
};

struct mq_dec {
    uint32_t a;       /* A << 16: Qe << 16 is its state's top half, and the
                       * renormalisation test a sign */
    uint32_t c;
    unsigned ct, b;
    unsigned nx;      /* the byte after b, loaded ahead: its load's latency
                       * is off the decisions' chain */
    uint32_t bp, len; /* a segment is at most a block's bytes: 32 bits */
    const uint8_t *buf;
    uint32_t *cx;   /* the context states: in shared memory on the device,
                     * so that the rest of the state stays in registers */
};

SCI_T1D unsigned byte_at(const mq_dec *d, uint32_t i) {
    return i < d->len ? d->buf[i] : 0xFF;
}

SCI_T1D void bytein(mq_dec *d) {
    if (d->b == 0xFF) {
        unsigned b1 = d->nx;
        if (b1 > 0x8F) {
            d->c += 0xFF00;
            d->ct = 8;
        } else {
            d->bp++;
            d->b = b1;
            d->nx = byte_at(d, d->bp + 1);
            d->c += b1 << 9;
            d->ct = 7;
        }
    } else {
        d->bp++;
        d->b = d->nx;
        d->nx = byte_at(d, d->bp + 1);
        d->c += d->b << 8;
        d->ct = 8;
    }
}

SCI_T1D void mq_restart(mq_dec *d, const uint8_t *buf, size_t len) {
    d->buf = buf;
    d->len = (uint32_t)len;
    d->bp = 0;
    d->b = byte_at(d, 0);
    d->nx = byte_at(d, 1);
    d->c = d->b << 16;
    bytein(d);
    d->c <<= 7;
    d->ct -= 7;
    d->a = 0x80000000u;
}

/* Table D.7's initial states, MPS 0 */
SCI_T1D void init_states(uint32_t *s) {
    for (unsigned i = 0; i < SCI_T1_NCTX; i++)
        s[i] = mq_tab[0];
    s[SCI_T1_CX_ZC] = mq_tab[4];
    s[SCI_T1_CX_RL] = mq_tab[3];
    s[SCI_T1_CX_UNI] = mq_tab[46];
}

SCI_T1D unsigned clz32(uint32_t v) {
#if defined(__CUDA_ARCH__)
    return (unsigned)__clz((int)v);
#else
    return (unsigned)__builtin_clz(v);
#endif
}

/* a > 0 here.  The n shifts that the standard makes one at a time, with a
 * new byte before any shift that finds ct at 0, done as runs of shifts
 * between the new bytes. */
SCI_T1D void renormd(mq_dec *d) {
    unsigned n = clz32(d->a);
    while (n > d->ct) {
        d->a <<= d->ct;
        d->c <<= d->ct;
        n -= d->ct;
        d->ct = 0;
        bytein(d);
    }
    d->a <<= n;
    d->c <<= n;
    d->ct -= n;
}

SCI_T1D unsigned mq_decode(mq_dec *d, unsigned cx) {
    uint32_t *s = &d->cx[cx];
    uint32_t t = *s;
    uint32_t qe = t & 0xFFFF0000u;  /* Qe << 16, as a and c hold it */
    unsigned mps = t & 1, bit;
    d->a -= qe;
    if (d->c < qe) {
        if (d->a < qe) {
            bit = mps;
            *s = mq_tab[t >> 8 & 0xFF] | mps;
        } else {
            bit = !mps;
            *s = mq_tab[t >> 2 & 0x3F] | (mps ^ (t >> 1 & 1));
        }
        d->a = qe;
        renormd(d);
        return bit;
    }
    d->c -= qe;
    if ((int32_t)d->a < 0)
        return mps;
    if (d->a < qe) {
        bit = !mps;
        *s = mq_tab[t >> 2 & 0x3F] | (mps ^ (t >> 1 & 1));
    } else {
        bit = mps;
        *s = mq_tab[t >> 8 & 0xFF] | mps;
    }
    renormd(d);
    return bit;
}

struct raw_dec {
    const uint8_t *buf;
    uint32_t len, bp;
    unsigned c, ct;
};

SCI_T1D void raw_init(raw_dec *r, const uint8_t *buf, size_t len) {
    r->buf = buf;
    r->len = (uint32_t)len;
    r->bp = 0;
    r->c = 0;
    r->ct = 0;
}

SCI_T1D unsigned raw_get(raw_dec *r) {
    if (r->ct == 0) {
        r->ct = r->c == 0xFF ? 7 : 8;
        r->c = r->bp < r->len ? r->buf[r->bp] : 0xFF;
        r->bp++;
    }
    return r->c >> --r->ct & 1;
}

/* The flags, a 32-bit word a stripe column (four samples of a column in
 * one stripe), in the warp's shared memory: the significance of the 3 x 6
 * samples around the column (rows -1..4 of columns x - 1, x, x + 1), so
 * that a sample's context is a shift of one word and a table lookup, and
 * a column that may start a run is one test; the signs of the column's
 * rows -1..4; the column's visited marks.  A new significance sets bits in
 * three words (six on a stripe's first or last row); the column's marks
 * of samples refined before, which the MagRef pass's contexts need, so
 * that the warp finds them without reading the magnitudes.  A sample's
 * lowest decoded plane is its top bit, or the last MagRef pass's plane if
 * lower (decode_block). */
#define SCI_T1D_SIGMA(i, c) (1u << (3 * (i) + (c))) /* row i - 1, column c - 1 */
#define SCI_T1D_SIG(r) SCI_T1D_SIGMA((r) + 1, 1)     /* sample r's own */
#define SCI_T1D_CHI(r) (1u << (19 + (r)))            /* sign of row r, -1..4 */
#define SCI_T1D_PI(r) (1u << (24 + (r)))             /* visited, r 0..3 */
#define SCI_T1D_PI_ALL (0xFu << 24)
#define SCI_T1D_REF_SHIFT 28                         /* refined before, r 0..3 */
#define SCI_T1D_SIGMA_ALL 0x3FFFFu
#define SCI_T1D_ROW4 (7u << 15)                      /* row 4's three bits */

/* The zero coding labels of a band by a sample's 3 x 3 window (bits: row
 * above NW N NE, own row W (self) E, row below SW S SE, from 0; the
 * sample's own bit is ignored), and the sign contexts by the window's
 * N, W, E and S bits (1, 3, 5, 7) with those neighbours' signs in the bit
 * below each: (context - SCI_T1_CX_SC) | xor bit << 4.  Built by a warp
 * in its shared memory. */
SCI_T1D unsigned zc_entry(unsigned band, unsigned m) {
    unsigned h = (m >> 3 & 1) + (m >> 5 & 1), v = (m >> 1 & 1) + (m >> 7 & 1);
    unsigned dg = (m & 1) + (m >> 2 & 1) + (m >> 6 & 1) + (m >> 8 & 1);
    return t1_zc_label(band, h, v, dg);
}
SCI_T1D unsigned sc_entry(unsigned k) {
    int c[4];   /* N W E S: 0 insignificant, 1 positive, -1 negative */
    for (unsigned i = 0; i < 4; i++)
        c[i] = !(k >> (2 * i + 1) & 1) ? 0 : (k >> (2 * i) & 1) ? -1 : 1;
    int h = c[1] + c[2], v = c[0] + c[3];
    h = h > 1 ? 1 : h < -1 ? -1 : h;
    v = v > 1 ? 1 : v < -1 ? -1 : v;
    unsigned xr = 0;
    if (h < 0 || (h == 0 && v < 0)) {
        h = -h;
        v = -v;
        xr = 1;
    }
    return (unsigned)((h ? 3 : 0) + v) | xr << 4;
}

struct dec {
    mq_dec mq;
    raw_dec raw;
    int israw;
    unsigned w, h, style;
    uint32_t vis;     /* window's */
    uint32_t *cw;     /* the word of stripe 0, column 0; stripes CW apart */
    unsigned CW;      /* w + 2 <= 1026 */
    uint32_t *mag;    /* the coefficient plane at the block */
    unsigned stride;  /* a component's width: y stride fits 32 bits */
    const uint8_t *zl, *sl; /* the tables above */
    /* the samples a pass visits, a bit each in scan order: stripe s in
     * words [s sw, (s + 1) sw), column x's four at bits 4 x .. 4 x + 3;
     * three maps, mw words apart (build_map) */
    uint32_t *bm;
    unsigned sw, mw;
};

/* the words of a w x h block's visit map and of its flags */
SCI_T1D_HD unsigned map_words(unsigned w, unsigned h) {
    return ((h + 3) / 4) * ((w + 7) / 8);
}
SCI_T1D_HD unsigned flag_words(unsigned w, unsigned h) {
    return (w + 2) * ((h + 3) / 4 + 2);
}

SCI_T1D unsigned lowest_bit(uint32_t v) {
#if defined(__CUDA_ARCH__)
    return (unsigned)__ffs((int)v) - 1;
#else
    return (unsigned)__builtin_ctz(v);
#endif
}

/* a decision of a pass known to be raw (bypass) or not, so that the
 * passes are compiled twice rather than test it every decision */
template <bool RAW> SCI_T1D unsigned get(dec *d, unsigned cx) {
    return RAW ? raw_get(&d->raw) : mq_decode(&d->mq, cx);
}

/* Row r's window in its column word c: its 3 x 3 significance.  vis is
 * the block's visible part of a word (decode_block): without the next
 * stripe's row in the vertically causal mode, which only row 3 sees. */
SCI_T1D unsigned window(uint32_t c, unsigned r, uint32_t vis) {
    return (c & vis) >> (3 * r) & 0x1FF;
}

/* its neighbours' significance, without its own */
SCI_T1D unsigned neighbours(unsigned win) {
    return win & ~0x10u;
}

SCI_T1D unsigned zc_ctx(const dec *d, unsigned win) {
    return SCI_T1_CX_ZC + d->zl[win];
}

/* the sign context of row r of column word c (left l, right e), win its
 * window: the window's N W E S bits, and the signs beside them */
SCI_T1D unsigned sc_ctx(const dec *d, unsigned win, uint32_t c, uint32_t l,
                        uint32_t e, unsigned r, unsigned *xr) {
    unsigned t = c >> (18 + r);   /* the signs of rows r - 1 and r + 1 */
    unsigned neg = (t & 1) | (l >> (19 + r) & 1) << 2 |
                   (e >> (19 + r) & 1) << 4 | (t & 4) << 4;
    unsigned v = d->sl[(win & 0xAA) | (neg & win >> 1)];
    *xr = v >> 4;
    return SCI_T1_CX_SC + (v & 15);
}

/* A flag word gains bits: on the device one shared-memory atomic, which
 * waits for no load (only lane 0 writes the flags during a pass). */
SCI_T1D void set_bits(uint32_t *w, uint32_t bits) {
#if defined(__CUDA_ARCH__)
    atomicOr(w, bits);
#else
    *w |= bits;
#endif
}

/* Row r of the column word at c became significant, negative if neg: the
 * words that see it learn it. */
SCI_T1D void tell_neighbours(uint32_t *c, unsigned CW, unsigned r, unsigned neg) {
    unsigned i = r + 1;
    set_bits(c - 1, SCI_T1D_SIGMA(i, 2));
    set_bits(c, SCI_T1D_SIGMA(i, 1) | (neg ? SCI_T1D_CHI(r) : 0u));
    set_bits(c + 1, SCI_T1D_SIGMA(i, 0));
    if (r == 0) {
        uint32_t *u = c - CW;   /* the stripe above: its row 4 */
        set_bits(u - 1, SCI_T1D_SIGMA(5, 2));
        set_bits(u, SCI_T1D_SIGMA(5, 1) | (neg ? SCI_T1D_CHI(4) : 0u));
        set_bits(u + 1, SCI_T1D_SIGMA(5, 0));
    } else if (r == 3) {
        uint32_t *b = c + CW;   /* the stripe below: its row -1 */
        set_bits(b - 1, SCI_T1D_SIGMA(0, 2));
        set_bits(b, SCI_T1D_SIGMA(0, 1) | (neg ? SCI_T1D_CHI(-1) : 0u));
        set_bits(b + 1, SCI_T1D_SIGMA(0, 0));
    }
}

/* The sign of row r of the column word at c (window win), sample (x, y),
 * significant at plane p: its magnitude was zero, so the plane's bit is
 * stored, not or-ed. */
template <bool RAW>
SCI_T1D void get_sign(dec *d, uint32_t *c, unsigned win, unsigned r,
                      unsigned x, unsigned y, unsigned p) {
    unsigned xr;
    unsigned cx = sc_ctx(d, win, *c, c[-1], c[1], r, &xr);
    unsigned neg = get<RAW>(d, cx) ^ (RAW ? 0u : xr);
    tell_neighbours(c, d->CW, r, neg);
    d->mag[y * d->stride + x] = 1u << p;
}

/* The passes run on lane 0 over the samples of the visit map that the
 * warp built before (build_map): a superset of those the pass codes,
 * each checked again when visited.  In SigProp a new significance makes
 * its insignificant neighbours after it in scan order candidates (its
 * window, and its word's next-stripe bits, tell which are significant):
 * those in the word being scanned join it in a register, the others go
 * into the map. */
template <bool RAW> SCI_T1D_NOINLINE void sig_pass(dec *d, unsigned p) {
    unsigned h = d->h, w = d->w;
    for (unsigned y0 = 0, s = 0; y0 < h; y0 += 4, s++) {
        uint32_t *row = d->bm + s * d->sw;
        uint32_t *cws = d->cw + s * d->CW;
        /* the stripe's rows in the block, as a column's four bits */
        unsigned rows = h - y0 >= 4 ? 0xFu : (1u << (h - y0)) - 1;
        for (unsigned j = 0; j < d->sw; j++) {
            uint32_t word = row[j];
            while (word) {
                unsigned b = lowest_bit(word);
                word &= word - 1;
                unsigned x = j * 8 + (b >> 2), r = b & 3, y = y0 + r;
                uint32_t *c = cws + x;
                uint32_t cv = *c;
                unsigned win = window(cv, r, d->vis);
                /* insignificant with a significant neighbour */
                if ((cv & SCI_T1D_SIG(r)) || !neighbours(win))
                    continue;
                *c = cv | SCI_T1D_PI(r);
                if (!get<RAW>(d, zc_ctx(d, win)))
                    continue;
                get_sign<RAW>(d, c, win, r, x, y, p);
                /* below in this column, then the column on the right */
                if (r < 3 && !(win & 0x80))
                    word |= (1u << (b + 1)) & (rows << (b & ~3u));
                if (x + 1 < w) {
                    unsigned sr = (win >> 2 & 1) | (win >> 4 & 2) | (win >> 6 & 4);
                    unsigned nb = ((~sr & 7u) << r >> 1) & rows;
                    if ((b >> 2) < 7)
                        word |= nb << ((b & ~3u) + 4);
                    else
                        row[j + 1] |= nb;
                }
                /* the next stripe's first row: columns x - 1 .. x + 1 */
                if (r == 3 && y + 1 < h) {
                    uint32_t *next = row + d->sw;
                    unsigned x0 = x ? x - 1 : 0, x1 = x + 1 < w ? x + 1 : x;
                    for (unsigned k = x0; k <= x1; k++)
                        if (!(cv >> (15 + k + 1 - x) & 1))
                            next[k >> 3] |= 1u << ((k & 7) * 4);
                }
            }
        }
    }
}

/* The contexts of the MagRef pass do not change during it (significance
 * does not), so the warp gave them as two maps beside the visit map
 * (build_map): lane 0 only decodes, and leaves the bits in the second map
 * for the warp to apply (apply_ref). */
template <bool RAW> SCI_T1D_NOINLINE void ref_pass(dec *d) {
    unsigned n = ((d->h + 3) >> 2) * d->sw;
    uint32_t *hi = d->bm + d->mw, *lo = hi + d->mw;
    for (unsigned k = 0; k < n; k++) {
        uint32_t word = d->bm[k], h2 = hi[k], h1 = lo[k], bits = 0;
        for (; word; word &= word - 1) {
            unsigned b = lowest_bit(word);
            unsigned cx = SCI_T1_CX_MR + (h2 >> b & 1) * 2 + (h1 >> b & 1);
            bits |= get<RAW>(d, cx) << b;
        }
        hi[k] = bits;
    }
}

/* The columns with a sample neither significant nor visited, in order;
 * the others have nothing to code.  The visited marks are cleared by the
 * warp before the next plane's SigProp pass.  Cleanup passes are never
 * raw. */
SCI_T1D_NOINLINE int cleanup_pass(dec *d, unsigned p) {
    unsigned h = d->h;
    uint32_t run_mask = (SCI_T1D_PI_ALL | SCI_T1D_SIGMA_ALL) & d->vis;
    for (unsigned y0 = 0, s = 0; y0 < h; y0 += 4, s++) {
        unsigned nr = y0 + 4 < h ? 4 : h - y0;
        const uint32_t *row = d->bm + s * d->sw;
        uint32_t *cws = d->cw + s * d->CW;
        for (unsigned j = 0; j < d->sw; j++) {
            for (uint32_t word = row[j]; word;) {
                unsigned b = lowest_bit(word) & ~3u;
                word &= ~(0xFu << b);
                unsigned x = (j * 32 + b) >> 2;
                uint32_t *c = cws + x;
                unsigned r = 0;
                if (nr == 4 && !(*c & run_mask)) {
                    if (!get<false>(d, SCI_T1_CX_RL))
                        continue;
                    r = get<false>(d, SCI_T1_CX_UNI) << 1;
                    r |= get<false>(d, SCI_T1_CX_UNI);
                    get_sign<false>(d, c, window(*c, r, d->vis), r, x, y0 + r, p);
                    r++;
                }
                /* of the column's word, the rows below need only its
                 * samples' significance, which is kept here */
                for (uint32_t cv = *c; r < nr; r++) {
                    if (cv & (SCI_T1D_SIG(r) | SCI_T1D_PI(r)))
                        continue;
                    unsigned win = window(cv, r, d->vis);
                    if (get<false>(d, zc_ctx(d, win))) {
                        get_sign<false>(d, c, win, r, x, y0 + r, p);
                        cv |= SCI_T1D_SIG(r);
                    }
                }
            }
        }
    }
    if (d->style & SCI_T1_SEGSYM) {
        unsigned v = get<false>(d, SCI_T1_CX_UNI) << 3;
        v |= get<false>(d, SCI_T1_CX_UNI) << 2;
        v |= get<false>(d, SCI_T1_CX_UNI) << 1;
        v |= get<false>(d, SCI_T1_CX_UNI);
        return v != 0xA;
    }
    return 0;
}

/* A column word's four rows as a nibble: significant, and with a
 * significant neighbour (in the block's visible part vis). */
SCI_T1D uint32_t sig_rows(uint32_t c) {
    return (c >> 4 & 1) | (c >> 6 & 2) | (c >> 8 & 4) | (c >> 10 & 8);
}
SCI_T1D uint32_t nb_rows(uint32_t c, uint32_t vis) {
    uint32_t v = c & vis, nb = 0;
    for (unsigned r = 0; r < 4; r++)
        nb |= (uint32_t)(neighbours(v >> (3 * r) & 0x1FF) != 0) << r;
    return nb;
}

/* Eight lanes' nibbles (lane & 7 the column in its map word) as the word,
 * on every lane of the eight. */
SCI_T1D uint32_t gather_word(uint32_t nib, unsigned lane) {
    uint32_t v = nib << ((lane & 7) * 4);
    v |= sci_dw::w_xor(v, 1);
    v |= sci_dw::w_xor(v, 2);
    return v | sci_dw::w_xor(v, 4);
}

/* The warp, a column of a stripe a lane: the visit map of a pass of kind
 * 0 (SigProp: insignificant with a significant neighbour), 1 (MagRef:
 * significant, not visited) or 2 (cleanup: neither); for the MagRef pass
 * also the samples refined before (context MR + 2) and the others with a
 * significant neighbour (MR + 1) in the two maps after it.  A lane owns
 * its column's word here, so it also keeps the flags that change between
 * passes: the visited marks of the plane before go before its SigProp
 * pass, and the MagRef pass's samples are marked refined. */
SCI_T1D void build_map(dec *d, unsigned kind, unsigned lane) {
    for (unsigned y0 = 0, s = 0; y0 < d->h; y0 += 4, s++) {
        uint32_t rows = d->h - y0 >= 4 ? 0xFu : (1u << (d->h - y0)) - 1;
        for (unsigned x0 = 0; x0 < d->w; x0 += 32) {
            unsigned x = x0 + lane;
            uint32_t in = 0, r2 = 0, r1 = 0;
            if (x < d->w) {
                uint32_t *cp = d->cw + s * d->CW + x;
                uint32_t c = *cp, sig = sig_rows(c);
                uint32_t vis = c >> 24 & 0xF;
                if (kind == 0) {
                    in = ~sig & nb_rows(c, d->vis) & rows;
                    *cp = c & ~SCI_T1D_PI_ALL;
                } else if (kind == 1) {
                    in = sig & ~vis & rows;
                    r2 = in & c >> SCI_T1D_REF_SHIFT;
                    r1 = in & ~r2 & nb_rows(c, d->vis);
                    *cp = c | in << SCI_T1D_REF_SHIFT;
                } else {
                    in = ~(sig | vis) & rows;
                }
            }
            unsigned k = s * d->sw + (x0 >> 3) + (lane >> 3);
            int writer = (lane & 7) == 0 && (x0 >> 3) + (lane >> 3) < d->sw;
            uint32_t word = gather_word(in, lane);
            if (kind == 1) {
                uint32_t w2 = gather_word(r2, lane), w1 = gather_word(r1, lane);
                if (writer) {
                    d->bm[d->mw + k] = w2;
                    d->bm[2 * d->mw + k] = w1;
                }
            }
            if (writer)
                d->bm[k] = word;
        }
    }
}

/* The warp, a column a lane: the MagRef pass's bits, from its second map,
 * into the magnitudes (only its ones need a write). */
SCI_T1D void apply_ref(dec *d, unsigned p, unsigned lane) {
    for (unsigned y0 = 0, s = 0; y0 < d->h; y0 += 4, s++)
        for (unsigned x = lane; x < d->w; x += 32) {
            uint32_t ones = d->bm[d->mw + s * d->sw + (x >> 3)] >> ((x & 7) * 4);
            uint32_t *m = d->mag + (size_t)y0 * d->stride + x;
            for (unsigned r = 0; r < 4; r++)
                if (ones >> r & 1)
                    m[(size_t)r * d->stride] |= 1u << p;
        }
}

SCI_T1D size_t seg_end(unsigned style, unsigned all, unsigned passes,
                       unsigned n, size_t s, const uint32_t *pass_len,
                       size_t len) {
    if (!(style & (SCI_T1_TERMALL | SCI_T1_BYPASS)))
        return len;
    unsigned m = n;
    while (m + 1 < passes && !t1_pass_term(style, m, all))
        m++;
    size_t e = pass_len[m] < len ? pass_len[m] : len;
    return e > s ? e : s;
}

/* Decodes the first `passes` passes (1..3 top + 1, checked on the host as
 * sci_t1_decode_raw does) of a block of nbp planes, zbp of them zero, from
 * in[0..len) with pass_len the cumulative ends: the magnitude bits into
 * mag (rows `stride` words apart, zero before: the caller clears the whole
 * plane), the flags into fl[flag_words (w, h)] (stripes w + 2 words apart,
 * with a border column and stripe on each side), zero before, with the
 * context states in cx, the band's tables in zl[512] (zc_entry) and
 * sl[256] (sc_entry) and the visit maps in bm[3 mw] (mw >= map_words (w,
 * h)), all in the warp's shared memory; its lanes all call it: lane 0
 * decodes, the warp builds the visit maps (and keeps the flags that
 * change between passes) and applies the MagRef bits.  Returns 0, or 1 when a segmentation symbol
 * was wrong, on every lane, and in *low_ref the plane of the last MagRef
 * pass decoded (32 if none), on every lane. */
SCI_T1D int decode_block(const uint8_t *in, size_t len, const uint32_t *pass_len,
                         unsigned w, unsigned h, unsigned nbp,
                         unsigned zbp, unsigned passes, unsigned style,
                         uint32_t *fl, uint32_t *mag, size_t stride,
                         uint32_t cx[SCI_T1_NCTX], const uint8_t *zl,
                         const uint8_t *sl, uint32_t *bm, unsigned mw,
                         unsigned *low_ref, unsigned lane) {
    unsigned top = nbp - 1 - zbp;
    dec d;
    d.w = w;
    d.h = h;
    d.style = style;
    d.vis = style & SCI_T1_VCAUSAL ? ~SCI_T1D_ROW4 : ~0u;
    d.CW = w + 2;
    d.mag = mag;
    d.stride = (unsigned)stride;
    d.cw = fl + d.CW + 1;
    d.zl = zl;
    d.sl = sl;
    d.bm = bm;
    d.sw = (w + 7) / 8;
    d.mw = mw;
    d.mq.cx = cx;
    unsigned all = 3 * top + 1;
    d.israw = 0;
    *low_ref = 32;
    if (lane == 0) {
        init_states(d.mq.cx);
        mq_restart(&d.mq, in, seg_end(style, all, passes, 0, 0, pass_len, len));
    }
    int bad = 0;
    unsigned n = 0;
    for (int pl = (int)top; pl >= 0 && n < passes; pl--) {
        for (unsigned kind = pl == (int)top ? 2 : 0; kind < 3 && n < passes;
             kind++) {
            build_map(&d, kind, lane);
            sci_dw::w_sync();
            if (lane == 0) {
                if (kind == 0) {
                    if (d.israw)
                        sig_pass<true>(&d, (unsigned)pl);
                    else
                        sig_pass<false>(&d, (unsigned)pl);
                } else if (kind == 1) {
                    if (d.israw)
                        ref_pass<true>(&d);
                    else
                        ref_pass<false>(&d);
                } else
                    bad |= cleanup_pass(&d, (unsigned)pl);
                if (t1_pass_term(style, n, all) && n + 1 < passes) {
                    size_t s = pass_len[n] < len ? pass_len[n] : len;
                    size_t e = seg_end(style, all, passes, n + 1, s, pass_len, len);
                    d.israw = t1_pass_raw(style, n + 1);
                    if (d.israw)
                        raw_init(&d.raw, in + s, e - s);
                    else
                        mq_restart(&d.mq, in + s, e - s);
                }
                if (style & SCI_T1_RESET)
                    init_states(d.mq.cx);
            }
            sci_dw::w_sync();
            if (kind == 1) {
                apply_ref(&d, (unsigned)pl, lane);
                *low_ref = (unsigned)pl;
                sci_dw::w_sync();
            }
            n++;
        }
    }
    return (int)sci_dw::w_shfl((uint32_t)bad, 0);
}

} /* namespace sci_t1d */

#endif
