/*
 * Sequential Tier-1 encoder of ISO/IEC 15444-1 Annex D.  The block is
 * scanned in stripes of four rows, column by column within a stripe (D.1);
 * each plane is coded by up to three passes that visit every sample once
 * between them: significance propagation for insignificant samples with a
 * significant neighbour, magnitude refinement for samples significant since
 * an earlier plane, cleanup for the rest, with run-length coding of whole
 * stripe columns that are quiet.
 */
#include "t1.h"

#include <string.h>

#include "t1_ctx.h"

const char *sci_t1_check(const sci_t1_params *p) {
    if (p->w < 1 || p->h < 1 || p->w > SCI_T1_MAX_SIDE ||
        p->h > SCI_T1_MAX_SIDE || p->w * p->h > SCI_T1_MAX_SAMPLES)
        return "block size must be 1..1024 a side and at most 4096 samples";
    if (p->band > SCI_T1_HH)
        return "unknown subband orientation";
    if (p->nbp < 1 || p->nbp > SCI_T1_MAX_PLANES)
        return "magnitude bit-planes must be 1..30";
    if (p->style & ~(unsigned)SCI_T1_STYLES)
        return "unknown code-block style bits";
    return NULL;
}

size_t sci_t1_max_bytes(unsigned w, unsigned h, unsigned nbp) {
    /* A plane codes at most 2.5 decisions a sample (a run-length column of
     * four: RL, two uniform, a sign, three times ZC and sign) and four
     * segmentation symbols; a decision renormalizes by at most 15 bits
     * (A >= 1 after it); at least 7 bits go into a byte.  Each pass may
     * be flushed (TERMALL): 27 bits and two bytes more a pass (a raw
     * pass's bits take fewer bytes, its padding less). */
    size_t n = (size_t)w * h;
    size_t sym = (n * 5 / 2 + 4) * nbp;
    size_t passes = 3 * (size_t)nbp;
    return (sym * 15 + passes * 27) / 7 + passes * 2 + 8;
}

void t1_out_init(t1_out *o, unsigned style, unsigned passes, uint8_t *buf,
                 size_t cap) {
    uint8_t init[SCI_T1_NCTX];
    t1_init_states(init);
    o->style = style;
    o->passes = passes;
    o->n = 0;
    o->israw = t1_pass_raw(style, 0);
    o->overflow = 0;
    o->buf = buf;
    o->cap = cap;
    o->symbols = 0;
    sci_mq_enc_init(&o->mq, buf, cap, SCI_T1_NCTX, init);
}

void t1_out_end_pass(t1_out *o) {
    unsigned n = o->n, style = o->style;
    if (t1_pass_term(style, n, o->passes)) {
        int pterm = (style & SCI_T1_PTERM) != 0;
        if (o->israw) {
            o->end[n] = sci_raw_enc_flush(&o->raw, pterm);
            o->overflow |= o->raw.overflow;
        } else {
            o->end[n] = pterm ? sci_mq_enc_pterm(&o->mq)
                              : sci_mq_enc_flush(&o->mq);
        }
        if (n + 1 < o->passes) {
            /* the next segment starts where this one's bytes end */
            if (t1_pass_raw(style, n + 1))
                sci_raw_enc_init(&o->raw, o->buf, o->cap, o->end[n]);
            else
                sci_mq_enc_restart(&o->mq, o->end[n]);
        }
    } else if (o->israw) {
        o->end[n] = sci_raw_enc_len(&o->raw);
    } else {
        sci_mq_enc_mark(&o->mq, &o->mark[n]);
    }
    if (style & SCI_T1_RESET)
        t1_init_states(o->mq.cx);
    o->n = n + 1;
    o->israw = t1_pass_raw(style, n + 1);
}

int t1_out_finish(t1_out *o, sci_t1_result *r) {
    unsigned n = o->passes;
    if (o->overflow || o->mq.overflow)
        return -2;
    r->passes = n;
    r->len = o->end[n - 1];
    r->symbols = o->symbols;
    r->segments = 0;
    /* A cut that is good after pass j is good after any earlier pass of
     * its segment, so each length is the least of its own and its
     * successors' (a raw pass's own length can pass its segment's end by
     * a dropped 0xFF). */
    size_t seg_end = r->len;
    for (int i = (int)n - 1; i >= 0; i--) {
        r->pass_raw[i] = (uint8_t)t1_pass_raw(o->style, (unsigned)i);
        r->pass_term[i] = (uint8_t)t1_pass_term(o->style, (unsigned)i, n);
        size_t l;
        if (r->pass_term[i]) {
            l = seg_end = o->end[i];
            r->segments++;
        } else {
            l = r->pass_raw[i] ? o->end[i]
                               : sci_mq_cut_len(&o->mark[i], o->buf, seg_end);
        }
        if (i + 1 < (int)n && l > r->pass_len[i + 1])
            l = r->pass_len[i + 1];
        r->pass_len[i] = l;
    }
    return 0;
}

typedef struct {
    t1_out *o;
    const sci_t1_params *p;
    uint16_t *f;     /* flags of sample (0, 0) */
    uint32_t *mag;
    size_t W;        /* flags row pitch: w + 2 */
    t1_dsum dist;    /* this pass's distortion decrease so far, exact */
} enc;

static inline void code(enc *e, unsigned cx, unsigned d) {
    t1_out_code(e->o, e->p, cx, d);
}

/* Codes sample i (flags at f) becoming significant: its sign. */
static void code_sign(enc *e, uint16_t *f, unsigned y, unsigned i,
                      unsigned p) {
    unsigned xr;
    unsigned cx = t1_sc_ctx(f, e->W, t1_below(e->p->style, y), &xr);
    /* a raw (bypass) pass stores the sign itself, not its prediction's
     * XOR (D.6) */
    code(e, cx, ((*f & T1_NEG) ? 1u : 0u) ^ (e->o->israw ? 0u : xr));
    *f |= T1_SIG;
    e->dist += t1_sig_gain(e->mag[i], p);
}

static void sig_pass(enc *e, unsigned p) {
    unsigned w = e->p->w, h = e->p->h, band = e->p->band;
    for (unsigned y0 = 0; y0 < h; y0 += 4) {
        unsigned y1 = y0 + 4 < h ? y0 + 4 : h;
        for (unsigned x = 0; x < w; x++) {
            for (unsigned y = y0; y < y1; y++) {
                uint16_t *f = e->f + y * e->W + x;
                if (*f & T1_SIG)
                    continue;
                int below = t1_below(e->p->style, y);
                unsigned cx = t1_zc_ctx(f, e->W, band, below);
                if (cx == SCI_T1_CX_ZC)
                    continue;   /* no significant neighbour: cleanup's */
                unsigned i = y * w + x;
                unsigned bit = e->mag[i] >> p & 1;
                code(e, cx, bit);
                *f |= T1_VIS;
                if (bit)
                    code_sign(e, f, y, i, p);
            }
        }
    }
}

static void ref_pass(enc *e, unsigned p) {
    unsigned w = e->p->w, h = e->p->h;
    for (unsigned y0 = 0; y0 < h; y0 += 4) {
        unsigned y1 = y0 + 4 < h ? y0 + 4 : h;
        for (unsigned x = 0; x < w; x++) {
            for (unsigned y = y0; y < y1; y++) {
                uint16_t *f = e->f + y * e->W + x;
                if ((*f & (T1_SIG | T1_VIS)) != T1_SIG)
                    continue;
                unsigned i = y * w + x;
                unsigned cx = t1_mr_ctx(f, e->W, t1_below(e->p->style, y));
                code(e, cx, e->mag[i] >> p & 1);
                *f |= T1_REF;
                e->dist += t1_ref_gain(e->mag[i], p);
            }
        }
    }
}

static void cleanup_pass(enc *e, unsigned p) {
    unsigned w = e->p->w, h = e->p->h, band = e->p->band;
    unsigned style = e->p->style;
    size_t W = e->W;
    for (unsigned y0 = 0; y0 < h; y0 += 4) {
        unsigned y1 = y0 + 4 < h ? y0 + 4 : h;
        for (unsigned x = 0; x < w; x++) {
            uint16_t *col = e->f + y0 * W + x;
            unsigned y = y0;
            int run = t1_run_eligible(col, W, style, y0, y1);
            if (run) {
                unsigned r = 0;
                while (r < 4 && !(e->mag[(y0 + r) * w + x] >> p & 1))
                    r++;
                code(e, SCI_T1_CX_RL, r < 4);
                if (r == 4)
                    continue;
                code(e, SCI_T1_CX_UNI, r >> 1);
                code(e, SCI_T1_CX_UNI, r & 1);
                code_sign(e, col + r * W, y0 + r, (y0 + r) * w + x, p);
                y = y0 + r + 1;
            }
            for (; y < y1; y++) {
                uint16_t *f = e->f + y * W + x;
                if (*f & (T1_SIG | T1_VIS))
                    continue;
                unsigned i = y * w + x;
                unsigned bit = e->mag[i] >> p & 1;
                code(e, t1_zc_ctx(f, W, band, t1_below(style, y)), bit);
                if (bit)
                    code_sign(e, f, y, i, p);
            }
        }
    }
    /* pi only lives for one plane */
    for (unsigned y = 0; y < h; y++)
        for (unsigned x = 0; x < w; x++)
            e->f[y * W + x] &= (uint16_t)~T1_VIS;
    if (style & SCI_T1_SEGSYM) {
        /* D.5: 1010 in the uniform context ends every cleanup pass */
        code(e, SCI_T1_CX_UNI, 1);
        code(e, SCI_T1_CX_UNI, 0);
        code(e, SCI_T1_CX_UNI, 1);
        code(e, SCI_T1_CX_UNI, 0);
    }
}

int sci_t1_encode(sci_t1_coder *t, const sci_t1_params *p, const uint32_t *sm,
                  size_t stride, uint8_t *out, size_t cap, sci_t1_result *r) {
    if (sci_t1_check(p))
        return -1;
    unsigned w = p->w, h = p->h;
    enc e;
    e.p = p;
    e.W = w + 2;
    e.mag = t->mag;
    memset(t->flags, 0, (w + 2) * (h + 2) * sizeof t->flags[0]);
    e.f = t->flags + e.W + 1;

    uint32_t any = 0;
    for (unsigned y = 0; y < h; y++) {
        for (unsigned x = 0; x < w; x++) {
            uint32_t v = sm[y * stride + x], m = v & ~SCI_T1_SIGN;
            t->mag[y * w + x] = m;
            if (v & SCI_T1_SIGN)
                e.f[y * e.W + x] = T1_NEG;
            any |= m;
        }
    }
    memset(r, 0, sizeof *r);
    if (any >> p->nbp)
        return -1;
    if (!any) {
        /* Nothing to code: the block is left out of every packet (its
         * inclusion never signalled), so no passes and no bytes. */
        r->zero_planes = p->nbp;
        return 0;
    }
    unsigned top = 31;
    while (!(any >> top))
        top--;
    r->zero_planes = p->nbp - 1 - top;

    t1_out o;
    e.o = &o;
    t1_out_init(&o, p->style, 3 * top + 1, out, cap);
    unsigned n = 0;
    for (int pl = (int)top; pl >= 0; pl--) {
        for (unsigned kind = pl == (int)top ? 2 : 0; kind < 3; kind++) {
            e.dist = 0;
            if (kind == 0)
                sig_pass(&e, (unsigned)pl);
            else if (kind == 1)
                ref_pass(&e, (unsigned)pl);
            else
                cleanup_pass(&e, (unsigned)pl);
            r->pass_dist[n] = t1_dsum_double(e.dist);
            r->pass_symbols[n] = o.symbols;
            t1_out_end_pass(&o);
            n++;
        }
    }
    return t1_out_finish(&o, r);
}
