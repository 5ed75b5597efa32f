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
 * coefficient plane (as in ht_dec.cuh); the flags (significance, sign,
 * refinement, visited, the neighbours' significance and signs, and the
 * lowest decoded plane) live in a (w + 2) x (h + 2) array of words in
 * device scratch, one a block.  The zero coding labels and the pass rules
 * come from codec/j2k/t1_rules.h, shared with the C coders and
 * cuda/j2k/t1.cu.
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
#define SCI_T1D_NOINLINE __device__ __forceinline__
#define SCI_T1D_TABLE __constant__
#else
#define SCI_T1D inline
#define SCI_T1D_NOINLINE
#define SCI_T1D_TABLE static const
#endif

namespace sci_t1d {

/* Table C.2: Qe << 16 | NMPS << 8 | NLPS << 1 | SWITCH */
#define SCI_T1D_Q(qe, nm, nl, sw) ((uint32_t)(qe) << 16 | (nm) << 8 | (nl) << 1 | (sw))
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
    uint32_t a, c;
    unsigned ct, b;
    size_t bp, len;
    const uint8_t *buf;
    uint8_t *cx;    /* the context states: in shared memory on the device,
                     * so that the rest of the state stays in registers */
};

SCI_T1D unsigned byte_at(const mq_dec *d, size_t i) {
    return i < d->len ? d->buf[i] : 0xFF;
}

SCI_T1D void bytein(mq_dec *d) {
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

SCI_T1D void mq_restart(mq_dec *d, const uint8_t *buf, size_t len) {
    d->buf = buf;
    d->len = len;
    d->bp = 0;
    d->b = byte_at(d, 0);
    d->c = d->b << 16;
    bytein(d);
    d->c <<= 7;
    d->ct -= 7;
    d->a = 0x8000;
}

/* Table D.7's initial states, (index << 1) | MPS */
SCI_T1D void init_states(uint8_t *s) {
    for (unsigned i = 0; i < SCI_T1_NCTX; i++)
        s[i] = 0;
    s[SCI_T1_CX_ZC] = 4 << 1;
    s[SCI_T1_CX_RL] = 3 << 1;
    s[SCI_T1_CX_UNI] = 46 << 1;
}

SCI_T1D void renormd(mq_dec *d) {
    do {
        if (d->ct == 0)
            bytein(d);
        d->a <<= 1;
        d->c <<= 1;
        d->ct--;
    } while (!(d->a & 0x8000));
}

SCI_T1D unsigned mq_decode(mq_dec *d, unsigned cx) {
    uint8_t *s = &d->cx[cx];
    unsigned i = *s >> 1, mps = *s & 1, bit;
    uint32_t t = mq_tab[i];
    uint32_t qe = t >> 16;
    unsigned nmps = t >> 8 & 0xFF, nlps = t >> 1 & 0x7F, sw = t & 1;
    d->a -= qe;
    if ((d->c >> 16) < qe) {
        if (d->a < qe) {
            bit = mps;
            *s = (uint8_t)(nmps << 1 | mps);
        } else {
            bit = !mps;
            *s = (uint8_t)(nlps << 1 | (sw ? !mps : mps));
        }
        d->a = qe;
        renormd(d);
        return bit;
    }
    d->c -= qe << 16;
    if (d->a & 0x8000)
        return mps;
    if (d->a < qe) {
        bit = !mps;
        *s = (uint8_t)(nlps << 1 | (sw ? !mps : mps));
    } else {
        bit = mps;
        *s = (uint8_t)(nmps << 1 | mps);
    }
    renormd(d);
    return bit;
}

struct raw_dec {
    const uint8_t *buf;
    size_t len, bp;
    unsigned c, ct;
};

SCI_T1D void raw_init(raw_dec *r, const uint8_t *buf, size_t len) {
    r->buf = buf;
    r->len = len;
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

/* A sample's flags: its own state, as in codec/j2k/t1_ctx.h, the
 * significance of its eight neighbours and the signs of the four that the
 * sign context reads (set when a neighbour becomes significant, so that a
 * context is a table lookup on one word, not eight loads), and the lowest
 * decoded plane. */
#define SCI_T1D_SIG 1u
#define SCI_T1D_REF 2u
#define SCI_T1D_VIS 4u
#define SCI_T1D_NEG 8u
#define SCI_T1D_NB_SHIFT 4     /* NW N NE W E SW S SE: bits 4..11 */
#define SCI_T1D_NW (1u << 4)
#define SCI_T1D_N (1u << 5)
#define SCI_T1D_NE (1u << 6)
#define SCI_T1D_W (1u << 7)
#define SCI_T1D_E (1u << 8)
#define SCI_T1D_SW (1u << 9)
#define SCI_T1D_S (1u << 10)
#define SCI_T1D_SE (1u << 11)
#define SCI_T1D_NEG_SHIFT 12   /* negative N W E S: bits 12..15 */
#define SCI_T1D_LOW_SHIFT 16

/* The zero coding labels of a band by neighbour mask (bits NW N NE W E SW
 * S SE from 0), and the sign contexts by sig4 | neg4 << 4 (N W E S from 0
 * in each): (context - SCI_T1_CX_SC) | xor bit << 4.  Built by a warp in
 * its shared memory. */
SCI_T1D unsigned zc_entry(unsigned band, unsigned m) {
    unsigned h = (m >> 3 & 1) + (m >> 4 & 1), v = (m >> 1 & 1) + (m >> 6 & 1);
    unsigned dg = (m & 1) + (m >> 2 & 1) + (m >> 5 & 1) + (m >> 7 & 1);
    return t1_zc_label(band, h, v, dg);
}

SCI_T1D unsigned sc_entry(unsigned k) {
    int c[4];
    for (unsigned i = 0; i < 4; i++)
        c[i] = !(k >> i & 1) ? 0 : (k >> (4 + i) & 1) ? -1 : 1;
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
    unsigned w, h, band, style;
    uint32_t *f;      /* flag of sample (0, 0); rows W apart */
    size_t W;
    uint32_t *mag;    /* the coefficient plane at the block */
    size_t stride;
    const uint8_t *zl, *sl; /* the tables above */
    /* the samples a pass visits, a bit each in scan order: stripe s in
     * words [s sw, (s + 1) sw), column x's four at bits 4 x .. 4 x + 3 */
    uint32_t *bm;
    unsigned sw;
    int mark_new;     /* the SigProp pass: new significance adds visits */
};

/* The most words of a block's visit map: 4 w h / 32 with a stripe's
 * words rounded up (w, h <= 1024 and w h <= 4096: 256 stripes of one
 * word when h = 1024). */
#define SCI_T1D_MAP_WORDS 256

SCI_T1D unsigned lowest_bit(uint32_t v) {
#if defined(__CUDA_ARCH__)
    return (unsigned)__ffs((int)v) - 1;
#else
    return (unsigned)__builtin_ctz(v);
#endif
}

/* (x, y), if in the block, will be visited by this pass. */
SCI_T1D void mark_visit(dec *d, int x, int y) {
    if (x < 0 || y < 0 || x >= (int)d->w || y >= (int)d->h)
        return;
    unsigned pos = (unsigned)x * 4 + ((unsigned)y & 3);
    d->bm[((unsigned)y >> 2) * d->sw + (pos >> 5)] |= 1u << (pos & 31);
}

SCI_T1D unsigned get(dec *d, unsigned cx) {
    return d->israw ? raw_get(&d->raw) : mq_decode(&d->mq, cx);
}

SCI_T1D int below_row(unsigned style, unsigned y) {
    return !(style & SCI_T1_VCAUSAL) || (y & 3) != 3;
}

/* the neighbours a sample's contexts see (the row below only if below) */
SCI_T1D unsigned nb_mask(uint32_t f, int below) {
    return f >> SCI_T1D_NB_SHIFT & (below ? 0xFFu : 0x1Fu);
}

SCI_T1D unsigned zc_ctx(const dec *d, uint32_t f, int below) {
    return SCI_T1_CX_ZC + d->zl[nb_mask(f, below)];
}

SCI_T1D unsigned sc_ctx(const dec *d, uint32_t f, int below, unsigned *xr) {
    unsigned sig4 = (f >> 5 & 1) | (f >> 7 & 3) << 1 | (f >> 10 & 1) << 3;
    unsigned neg4 = f >> SCI_T1D_NEG_SHIFT & 15;
    if (!below) {
        sig4 &= 7;
        neg4 &= 7;
    }
    unsigned e = d->sl[sig4 | neg4 << 4];
    *xr = e >> 4;
    return SCI_T1_CX_SC + (e & 15);
}

SCI_T1D unsigned mr_ctx(uint32_t f, int below) {
    if (f & SCI_T1D_REF)
        return SCI_T1_CX_MR + 2;
    return SCI_T1_CX_MR + (nb_mask(f, below) ? 1 : 0);
}

SCI_T1D int run_eligible(const uint32_t *col, size_t W, unsigned style,
                         unsigned y0, unsigned y1) {
    if (y1 - y0 != 4)
        return 0;
    for (unsigned k = 0; k < 4; k++) {
        uint32_t f = col[k * W];
        if ((f & (SCI_T1D_SIG | SCI_T1D_VIS)) ||
            nb_mask(f, below_row(style, y0 + k)))
            return 0;
    }
    return 1;
}

SCI_T1D void set_low(uint32_t *f, unsigned p) {
    *f = (*f & ((1u << SCI_T1D_LOW_SHIFT) - 1)) | p << SCI_T1D_LOW_SHIFT;
}

/* The sample at f became significant: its neighbours learn it. */
SCI_T1D void tell_neighbours(uint32_t *f, size_t W, unsigned neg) {
    f[-(ptrdiff_t)W - 1] |= SCI_T1D_SE;
    f[-(ptrdiff_t)W] |= SCI_T1D_S | neg << (SCI_T1D_NEG_SHIFT + 3);
    f[-(ptrdiff_t)W + 1] |= SCI_T1D_SW;
    f[-1] |= SCI_T1D_E | neg << (SCI_T1D_NEG_SHIFT + 2);
    f[1] |= SCI_T1D_W | neg << (SCI_T1D_NEG_SHIFT + 1);
    f[W - 1] |= SCI_T1D_NE;
    f[W] |= SCI_T1D_N | neg << SCI_T1D_NEG_SHIFT;
    f[W + 1] |= SCI_T1D_NW;
}

SCI_T1D void get_sign(dec *d, uint32_t *f, unsigned x, unsigned y, unsigned p) {
    unsigned xr;
    unsigned cx = sc_ctx(d, *f, below_row(d->style, y), &xr);
    unsigned neg = get(d, cx) ^ (d->israw ? 0u : xr);
    *f |= SCI_T1D_SIG | (neg ? SCI_T1D_NEG : 0u);
    tell_neighbours(f, d->W, neg);
    if (d->mark_new) {
        /* the neighbours after it in scan order may now be visited */
        int xi = (int)x, yi = (int)y;
        mark_visit(d, xi, yi + 1);
        mark_visit(d, xi - 1, yi + 1);
        mark_visit(d, xi + 1, yi - 1);
        mark_visit(d, xi + 1, yi);
        mark_visit(d, xi + 1, yi + 1);
    }
    d->mag[(size_t)y * d->stride + x] |= 1u << p;
    set_low(f, p);
}

/* The passes run on lane 0 over the samples of the visit map that the
 * warp built before (build_map): a superset of those the pass codes,
 * each checked again when visited. */
SCI_T1D_NOINLINE void sig_pass(dec *d, unsigned p) {
    unsigned h = d->h;
    d->mark_new = 1;
    for (unsigned y0 = 0; y0 < h; y0 += 4) {
        uint32_t *row = d->bm + (y0 >> 2) * d->sw;
        for (unsigned j = 0; j < d->sw; j++) {
            uint32_t word = row[j];
            while (word) {
                unsigned b = lowest_bit(word);
                unsigned pos = j * 32 + b, x = pos >> 2, y = y0 + (pos & 3);
                uint32_t *f = d->f + y * d->W + x;
                int below = below_row(d->style, y);
                /* insignificant with a significant neighbour */
                if (!(*f & SCI_T1D_SIG) && nb_mask(*f, below)) {
                    *f |= SCI_T1D_VIS;
                    if (get(d, zc_ctx(d, *f, below)))
                        get_sign(d, f, x, y, p);
                }
                /* a new significance may have marked more of this word */
                word = b == 31 ? 0 : row[j] & (~0u << (b + 1));
            }
        }
    }
    d->mark_new = 0;
}

SCI_T1D_NOINLINE void ref_pass(dec *d, unsigned p) {
    unsigned h = d->h;
    for (unsigned y0 = 0; y0 < h; y0 += 4) {
        const uint32_t *row = d->bm + (y0 >> 2) * d->sw;
        for (unsigned j = 0; j < d->sw; j++)
            for (uint32_t word = row[j]; word; word &= word - 1) {
                unsigned pos = j * 32 + lowest_bit(word);
                unsigned x = pos >> 2, y = y0 + (pos & 3);
                uint32_t *f = d->f + y * d->W + x;
                unsigned cx = mr_ctx(*f, below_row(d->style, y));
                d->mag[(size_t)y * d->stride + x] |= get(d, cx) << p;
                set_low(f, p);
                *f |= SCI_T1D_REF;
            }
    }
}

/* The columns with a sample neither significant nor visited, in order;
 * the others have nothing to code.  The visited marks are cleared by the
 * warp afterwards. */
SCI_T1D_NOINLINE int cleanup_pass(dec *d, unsigned p) {
    unsigned h = d->h, style = d->style;
    size_t W = d->W;
    for (unsigned y0 = 0; y0 < h; y0 += 4) {
        unsigned y1 = y0 + 4 < h ? y0 + 4 : h;
        const uint32_t *row = d->bm + (y0 >> 2) * d->sw;
        for (unsigned j = 0; j < d->sw; j++) {
            for (uint32_t word = row[j]; word;) {
                unsigned b = lowest_bit(word) & ~3u;
                word &= ~(0xFu << b);
                unsigned x = (j * 32 + b) >> 2;
                uint32_t *col = d->f + y0 * W + x;
                unsigned y = y0;
                if (run_eligible(col, W, style, y0, y1)) {
                    if (!get(d, SCI_T1_CX_RL))
                        continue;
                    unsigned r = get(d, SCI_T1_CX_UNI) << 1;
                    r |= get(d, SCI_T1_CX_UNI);
                    get_sign(d, col + r * W, x, y0 + r, p);
                    y = y0 + r + 1;
                }
                for (; y < y1; y++) {
                    uint32_t *f = d->f + y * W + x;
                    if (*f & (SCI_T1D_SIG | SCI_T1D_VIS))
                        continue;
                    if (get(d, zc_ctx(d, *f, below_row(style, y))))
                        get_sign(d, f, x, y, p);
                }
            }
        }
    }
    if (style & SCI_T1_SEGSYM) {
        unsigned s = get(d, SCI_T1_CX_UNI) << 3;
        s |= get(d, SCI_T1_CX_UNI) << 2;
        s |= get(d, SCI_T1_CX_UNI) << 1;
        s |= get(d, SCI_T1_CX_UNI);
        return s != 0xA;
    }
    return 0;
}

/* The warp: the visit map of a pass of kind 0 (SigProp: insignificant
 * with a significant neighbour), 1 (MagRef: significant, not visited) or
 * 2 (cleanup: neither), 32 samples a ballot. */
SCI_T1D void build_map(dec *d, unsigned kind, unsigned lane) {
    for (unsigned y0 = 0; y0 < d->h; y0 += 4)
        for (unsigned j = 0; j < d->sw; j++) {
            unsigned pos = j * 32 + lane, x = pos >> 2, y = y0 + (pos & 3);
            int in = 0;
            if (x < d->w && y < d->h) {
                uint32_t f = d->f[y * d->W + x];
                in = kind == 0 ? !(f & SCI_T1D_SIG) &&
                                 nb_mask(f, below_row(d->style, y)) != 0
                   : kind == 1 ? (f & (SCI_T1D_SIG | SCI_T1D_VIS)) == SCI_T1D_SIG
                               : !(f & (SCI_T1D_SIG | SCI_T1D_VIS));
            }
            uint32_t word = sci_dw::w_ballot(in);
            if (lane == 0)
                d->bm[(y0 >> 2) * d->sw + j] = word;
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
 * plane), the flags (sign, significance, lowest plane) into
 * fl[(w + 2) x (h + 2)], zero before, with the context states in cx, the
 * band's tables in zl[256] (zc_entry) and sl[256] (sc_entry) and the visit
 * map in bm[SCI_T1D_MAP_WORDS], all three shared by the warp, whose lanes
 * all call it: lane 0 decodes, the warp builds the visit maps and clears
 * the visited marks.  Returns 0, or 1 when a segmentation symbol was
 * wrong, on every lane. */
SCI_T1D int decode_block(const uint8_t *in, size_t len, const uint32_t *pass_len,
                         unsigned w, unsigned h, unsigned band, unsigned nbp,
                         unsigned zbp, unsigned passes, unsigned style,
                         uint32_t *fl, uint32_t *mag, size_t stride,
                         uint8_t cx[SCI_T1_NCTX], const uint8_t *zl,
                         const uint8_t *sl, uint32_t *bm, unsigned lane) {
    unsigned top = nbp - 1 - zbp;
    dec d;
    d.w = w;
    d.h = h;
    d.band = band;
    d.style = style;
    d.W = w + 2;
    d.mag = mag;
    d.stride = stride;
    d.f = fl + d.W + 1;
    d.zl = zl;
    d.sl = sl;
    d.bm = bm;
    d.sw = (w + 7) / 8;
    d.mark_new = 0;
    d.mq.cx = cx;
    unsigned all = 3 * top + 1;
    d.israw = 0;
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
                if (kind == 0)
                    sig_pass(&d, (unsigned)pl);
                else if (kind == 1)
                    ref_pass(&d, (unsigned)pl);
                else
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
            if (kind == 2) {
                for (unsigned y = 0; y < h; y++)
                    for (unsigned x = lane; x < w; x += 32)
                        d.f[y * d.W + x] &= ~SCI_T1D_VIS;
                sci_dw::w_sync();
            }
            n++;
        }
    }
    return (int)sci_dw::w_shfl((uint32_t)bad, 0);
}

} /* namespace sci_t1d */

#endif
