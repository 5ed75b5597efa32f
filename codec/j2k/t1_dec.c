/*
 * Tier-1 decoder of ISO/IEC 15444-1 Annex D, the mirror of t1.c: the same
 * scan, passes and contexts, with decisions read from the MQ decoder.  It
 * tests the encoder (and the parallel modeller through it), and it is the
 * C reference decoder's block decoder.
 */
#include "t1.h"

#include <string.h>

#include "t1_ctx.h"

/* Besides t1_ctx.h's flags, a sample's flags say which of its eight
 * neighbours are significant, so that a zero coding context is one table
 * lookup and an insignificant neighbourhood one test (these bits are set
 * when a neighbour becomes significant, in the border cells too). */
#define NB_NW (1u << 4)
#define NB_N (1u << 5)
#define NB_NE (1u << 6)
#define NB_W (1u << 7)
#define NB_E (1u << 8)
#define NB_SW (1u << 9)
#define NB_S (1u << 10)
#define NB_SE (1u << 11)
#define NB_ALL (0xFFu << 4)
#define NB_BELOW (NB_SW | NB_S | NB_SE)

typedef struct {
    sci_mq_dec mq;
    sci_raw_dec raw;
    int israw;       /* the current pass is raw (bypass) */
    const sci_t1_params *p;
    sci_t1_trace_fn trace;  /* p->trace, read once */
    uint16_t *f;
    uint32_t *mag;   /* decoded magnitude bits */
    uint8_t *low;    /* lowest plane decoded, per significant sample */
    size_t W;
    uint8_t zc[256]; /* the band's zero coding labels by neighbour bits */
} dec;

/* the neighbour bits that row y sees: not the next stripe's in the
 * vertically causal mode */
static inline unsigned nb_seen(unsigned style, unsigned y) {
    return t1_below(style, y) ? NB_ALL : NB_ALL & ~NB_BELOW;
}

static inline unsigned zc_ctx(const dec *d, unsigned f, unsigned seen) {
    return SCI_T1_CX_ZC + d->zc[(f & seen) >> 4];
}

static void zc_table(dec *d, unsigned band) {
    for (unsigned m = 0; m < 256; m++) {
        unsigned nb = m << 4;
        unsigned h = !!(nb & NB_W) + !!(nb & NB_E);
        unsigned v = !!(nb & NB_N) + !!(nb & NB_S);
        unsigned dg = !!(nb & NB_NW) + !!(nb & NB_NE) + !!(nb & NB_SW) +
                      !!(nb & NB_SE);
        d->zc[m] = (uint8_t)t1_zc_label(band, h, v, dg);
    }
}

/* inlined into every pass: a decision is the decoder's inner loop */
static inline __attribute__((always_inline)) unsigned get(dec *d,
                                                          unsigned cx) {
    unsigned bit;
    if (d->israw) {
        bit = sci_raw_dec_get(&d->raw);
        cx = SCI_T1_NCTX;
    } else {
        bit = sci_mq_dec_decode(&d->mq, cx);
    }
    if (d->trace)
        d->trace(d->p->trace_user, cx, bit);
    return bit;
}

static void get_sign(dec *d, uint16_t *f, unsigned y, unsigned i,
                     unsigned p) {
    unsigned xr;
    size_t W = d->W;
    unsigned cx = t1_sc_ctx(f, W, t1_below(d->p->style, y), &xr);
    if (get(d, cx) ^ (d->israw ? 0u : xr))
        *f |= T1_NEG;
    *f |= T1_SIG;
    uint16_t *up = f - W, *down = f + W;
    up[-1] |= NB_SE;
    up[0] |= NB_S;
    up[1] |= NB_SW;
    f[-1] |= NB_E;
    f[1] |= NB_W;
    down[-1] |= NB_NE;
    down[0] |= NB_N;
    down[1] |= NB_NW;
    d->mag[i] |= 1u << p;
    d->low[i] = (uint8_t)p;
}

/* the flags of a stripe column's n samples, or-ed */
static inline unsigned col_or(const uint16_t *f, size_t W, unsigned n) {
    unsigned v = f[0];
    for (unsigned k = 1; k < n; k++)
        v |= f[k * W];
    return v;
}

static void sig_pass(dec *d, unsigned p) {
    unsigned w = d->p->w, h = d->p->h, style = d->p->style;
    for (unsigned y0 = 0; y0 < h; y0 += 4) {
        unsigned y1 = y0 + 4 < h ? y0 + 4 : h;
        for (unsigned x = 0; x < w; x++) {
            /* nothing around the column yet: nothing in it to code (a new
             * significance in it needs one around it first) */
            if (!(col_or(d->f + y0 * d->W + x, d->W, y1 - y0) & NB_ALL))
                continue;
            for (unsigned y = y0; y < y1; y++) {
                uint16_t *f = d->f + y * d->W + x;
                unsigned seen = nb_seen(style, y);
                if ((*f & T1_SIG) || !(*f & seen))
                    continue;
                *f |= T1_VIS;
                if (get(d, zc_ctx(d, *f, seen)))
                    get_sign(d, f, y, y * w + x, p);
            }
        }
    }
}

static void ref_pass(dec *d, unsigned p) {
    unsigned w = d->p->w, h = d->p->h, style = d->p->style;
    for (unsigned y0 = 0; y0 < h; y0 += 4) {
        unsigned y1 = y0 + 4 < h ? y0 + 4 : h;
        for (unsigned x = 0; x < w; x++) {
            if (!(col_or(d->f + y0 * d->W + x, d->W, y1 - y0) & T1_SIG))
                continue;
            for (unsigned y = y0; y < y1; y++) {
                uint16_t *f = d->f + y * d->W + x;
                if ((*f & (T1_SIG | T1_VIS)) != T1_SIG)
                    continue;
                unsigned i = y * w + x;
                unsigned cx = *f & T1_REF ? SCI_T1_CX_MR + 2
                              : SCI_T1_CX_MR + !!(*f & nb_seen(style, y));
                d->mag[i] |= get(d, cx) << p;
                d->low[i] = (uint8_t)p;
                *f |= T1_REF;
            }
        }
    }
}

/* Returns 0, or 1 when the segmentation symbol is not 1010. */
static int cleanup_pass(dec *d, unsigned p) {
    unsigned w = d->p->w, h = d->p->h;
    unsigned style = d->p->style;
    size_t W = d->W;
    /* a full stripe column with nothing significant around it codes a
     * run: its last row sees the next stripe only if not causal */
    unsigned busy = T1_SIG | T1_VIS | NB_ALL;
    unsigned busy3 = T1_SIG | T1_VIS | nb_seen(style, 3);
    for (unsigned y0 = 0; y0 < h; y0 += 4) {
        unsigned y1 = y0 + 4 < h ? y0 + 4 : h;
        for (unsigned x = 0; x < w; x++) {
            uint16_t *col = d->f + y0 * W + x;
            unsigned y = y0;
            if (y1 - y0 == 4 && !((col[0] | col[W] | col[2 * W]) & busy) &&
                !(col[3 * W] & busy3)) {
                if (!get(d, SCI_T1_CX_RL))
                    continue;
                unsigned r = get(d, SCI_T1_CX_UNI) << 1;
                r |= get(d, SCI_T1_CX_UNI);
                get_sign(d, col + r * W, y0 + r, (y0 + r) * w + x, p);
                y = y0 + r + 1;
            }
            for (; y < y1; y++) {
                uint16_t *f = d->f + y * W + x;
                if (*f & (T1_SIG | T1_VIS))
                    continue;
                if (get(d, zc_ctx(d, *f, nb_seen(style, y))))
                    get_sign(d, f, y, y * w + x, p);
            }
            /* the plane's visited marks go once the column is coded (a
             * run's column had none); no context reads another's */
            for (unsigned k = 0; k < y1 - y0; k++)
                col[k * W] &= (uint16_t)~T1_VIS;
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

/* The end (clipped to len, at least s) of the segment whose first pass is
 * n, s its start: its last pass's pass_len, or the last decoded pass's; the
 * whole length when there is only one segment. */
static size_t seg_end(unsigned style, unsigned all, unsigned passes,
                      unsigned n, size_t s, const size_t *pass_len,
                      size_t len) {
    if (!(style & (SCI_T1_TERMALL | SCI_T1_BYPASS)))
        return len;
    unsigned m = n;
    while (m + 1 < passes && !t1_pass_term(style, m, all))
        m++;
    size_t e = pass_len[m] < len ? pass_len[m] : len;
    return e > s ? e : s;
}

/* Decodes into t: flags (significance and sign) at t->flags + w + 3,
 * rows w + 2 apart, magnitude bits in t->mag and the lowest decoded plane
 * of each significant sample in t->low.  Returns as sci_t1_decode; *coded
 * is 0 when nothing was decoded (every sample zero). */
static int decode_core(sci_t1_coder *t, const sci_t1_params *p,
                       const uint8_t *in, size_t len, unsigned zero_planes,
                       unsigned passes, const size_t *pass_len, int *coded) {
    *coded = 0;
    if (sci_t1_check(p) || zero_planes > p->nbp ||
        ((p->style & (SCI_T1_TERMALL | SCI_T1_BYPASS)) && passes &&
         !pass_len))
        return -1;
    unsigned w = p->w, h = p->h;
    if (zero_planes == p->nbp || passes == 0)
        return 0;
    unsigned top = p->nbp - 1 - zero_planes;
    if (passes > 3 * top + 1)
        passes = 3 * top + 1;

    dec d;
    d.p = p;
    d.trace = p->trace;
    d.W = w + 2;
    d.mag = t->mag;
    d.low = t->low;
    memset(t->flags, 0, (w + 2) * (h + 2) * sizeof t->flags[0]);
    memset(t->mag, 0, (size_t)w * h * sizeof t->mag[0]);
    d.f = t->flags + d.W + 1;
    zc_table(&d, p->band);

    uint8_t init[SCI_T1_NCTX];
    t1_init_states(init);
    unsigned all = 3 * top + 1;
    d.israw = 0;
    sci_mq_dec_init(&d.mq, in, seg_end(p->style, all, passes, 0, 0, pass_len, len),
                    SCI_T1_NCTX, init);

    int bad = 0;
    unsigned n = 0;
    for (int pl = (int)top; pl >= 0 && n < passes; pl--) {
        for (unsigned kind = pl == (int)top ? 2 : 0; kind < 3 && n < passes;
             kind++) {
            if (kind == 0)
                sig_pass(&d, (unsigned)pl);
            else if (kind == 1)
                ref_pass(&d, (unsigned)pl);
            else
                bad |= cleanup_pass(&d, (unsigned)pl);
            if (t1_pass_term(p->style, n, all) && n + 1 < passes) {
                /* the next segment: from this pass's end to the end of
                 * its last pass (or of the last pass decoded) */
                size_t s = pass_len[n] < len ? pass_len[n] : len;
                size_t e = seg_end(p->style, all, passes, n + 1, s, pass_len, len);
                d.israw = t1_pass_raw(p->style, n + 1);
                if (d.israw)
                    sci_raw_dec_init(&d.raw, in + s, e - s);
                else
                    sci_mq_dec_restart(&d.mq, in + s, e - s);
            }
            if (p->style & SCI_T1_RESET)
                t1_init_states(d.mq.cx);
            n++;
        }
    }
    *coded = 1;
    return bad;
}

int sci_t1_decode(sci_t1_coder *t, const sci_t1_params *p, const uint8_t *in,
                  size_t len, unsigned zero_planes, unsigned passes,
                  const size_t *pass_len, uint32_t *sm, size_t stride) {
    int coded;
    int bad = decode_core(t, p, in, len, zero_planes, passes, pass_len, &coded);
    if (bad < 0)
        return bad;
    unsigned w = p->w, h = p->h;
    for (unsigned y = 0; y < h; y++)
        memset(sm + y * stride, 0, w * sizeof *sm);
    if (!coded)
        return 0;
    const uint16_t *fl = t->flags + (w + 2) + 1;
    for (unsigned y = 0; y < h; y++) {
        for (unsigned x = 0; x < w; x++) {
            uint16_t f = fl[y * (w + 2) + x];
            unsigned i = y * w + x;
            if (!(f & T1_SIG))
                continue;
            uint32_t m = t->mag[i];
            if (t->low[i])
                m |= 1u << (t->low[i] - 1);
            sm[y * stride + x] = m | (f & T1_NEG ? SCI_T1_SIGN : 0);
        }
    }
    return bad;
}

int sci_t1_decode_raw(sci_t1_coder *t, const sci_t1_params *p,
                      const uint8_t *in, size_t len, unsigned zero_planes,
                      unsigned passes, const size_t *pass_len, uint32_t *sm,
                      size_t stride, uint8_t *low, size_t low_stride) {
    int coded;
    int bad = decode_core(t, p, in, len, zero_planes, passes, pass_len, &coded);
    if (bad < 0)
        return bad;
    unsigned w = p->w, h = p->h;
    for (unsigned y = 0; y < h; y++)
        memset(sm + y * stride, 0, w * sizeof *sm);
    if (!coded)
        return 0;
    const uint16_t *fl = t->flags + (w + 2) + 1;
    for (unsigned y = 0; y < h; y++) {
        for (unsigned x = 0; x < w; x++) {
            uint16_t f = fl[y * (w + 2) + x];
            unsigned i = y * w + x;
            if (!(f & T1_SIG))
                continue;
            sm[y * stride + x] = t->mag[i] | (f & T1_NEG ? SCI_T1_SIGN : 0);
            low[y * low_stride + x] = t->low[i];
        }
    }
    return bad;
}
