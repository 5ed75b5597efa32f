/*
 * HT cleanup-pass encoder.  Quads are 2x2 samples; a line-pair of quads is
 * coded left to right, two quads at a time, and three byte streams grow
 * side by side:
 *   MagSgn  the low bits of each significant sample's v = 2(mu - 1) + sign,
 *           least significant first, forwards;
 *   MEL     an adaptive run-length code of the quads that have no
 *           significant neighbour (and, in the first line-pair, of whether
 *           both exponent offsets of a quad pair exceed 2), MSB first;
 *   VLC     the context-coded significance/EMB codeword of each quad and the
 *           U-VLC exponent offsets, least significant first, written from
 *           the end of the segment backwards.
 * Each stream stuffs a bit so that no two bytes read as a marker.
 */
#include "ht_block.h"

#include <string.h>

typedef struct {
    uint8_t *buf;
    size_t pos, cap;
    uint32_t tmp;
    unsigned used, room; /* room: 8, or 7 after a 0xFF byte */
    int overflow;
} ms_writer;

static void ms_put(ms_writer *w, uint32_t bits, unsigned n) {
    while (n) {
        unsigned t = w->room - w->used;
        if (t > n)
            t = n;
        w->tmp |= (bits & ((1u << t) - 1)) << w->used;
        w->used += t;
        bits = t < 32 ? bits >> t : 0;
        n -= t;
        if (w->used == w->room) {
            if (w->pos < w->cap)
                w->buf[w->pos] = (uint8_t)w->tmp;
            else
                w->overflow = 1;
            w->pos++;
            w->room = w->tmp == 0xFF ? 7 : 8;
            w->tmp = 0;
            w->used = 0;
        }
    }
}

/* Pads the last byte with ones; a trailing 0xFF is left out, since a
 * decoder reads past the end of MagSgn as ones. */
static void ms_finish(ms_writer *w) {
    if (w->used) {
        w->tmp |= (0xFFu >> (8 - (w->room - w->used))) << w->used;
        if (w->tmp != 0xFF) {
            if (w->pos < w->cap)
                w->buf[w->pos] = (uint8_t)w->tmp;
            else
                w->overflow = 1;
            w->pos++;
        }
    } else if (w->room == 7) {
        w->pos--;
    }
}

#define MEL_CAP 4096
#define VLC_CAP 4096

typedef struct {
    uint8_t buf[MEL_CAP];
    size_t pos;
    unsigned tmp, free_bits; /* free_bits: 8, or 7 after 0xFF */
    unsigned run, k, threshold;
    int overflow;
} mel_writer;

/* Run-length exponent of each of the 13 MEL states (clause 7.3.3). */
static const uint8_t mel_exp[13] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 4, 5};

static void mel_bit(mel_writer *m, unsigned b) {
    m->tmp = (m->tmp << 1) | b;
    if (--m->free_bits == 0) {
        if (m->pos < MEL_CAP)
            m->buf[m->pos++] = (uint8_t)m->tmp;
        else
            m->overflow = 1;
        m->free_bits = m->tmp == 0xFF ? 7 : 8;
        m->tmp = 0;
    }
}

static void mel_event(mel_writer *m, int one) {
    if (!one) {
        if (++m->run >= m->threshold) {
            mel_bit(m, 1);
            m->run = 0;
            if (m->k < 12)
                m->k++;
            m->threshold = 1u << mel_exp[m->k];
        }
        return;
    }
    mel_bit(m, 0);
    for (unsigned e = mel_exp[m->k]; e > 0; e--)
        mel_bit(m, (m->run >> (e - 1)) & 1);
    m->run = 0;
    if (m->k > 0)
        m->k--;
    m->threshold = 1u << mel_exp[m->k];
}

typedef struct {
    uint8_t buf[VLC_CAP]; /* buf[VLC_CAP - 1 - i] is the i-th byte written */
    size_t pos;
    unsigned tmp, used;
    int after_8f; /* the previous byte exceeded 0x8F */
    int overflow;
} vlc_writer;

static void vlc_init(vlc_writer *v) {
    /* The last byte and the low nibble of the one before hold Scup; they
     * start as ones and count as a byte above 0x8F for stuffing. */
    v->buf[VLC_CAP - 1] = 0xFF;
    v->pos = 1;
    v->tmp = 0xF;
    v->used = 4;
    v->after_8f = 1;
    v->overflow = 0;
}

static void vlc_put(vlc_writer *v, unsigned bits, unsigned n) {
    while (n) {
        unsigned room = 8 - (unsigned)v->after_8f - v->used;
        unsigned t = room < n ? room : n;
        v->tmp |= (bits & ((1u << t) - 1)) << v->used;
        v->used += t;
        bits >>= t;
        n -= t;
        if (v->used + (unsigned)v->after_8f == 8) {
            /* After a byte above 0x8F the top bit is stuffed only when the
             * seven below are all ones. */
            if (v->after_8f && v->tmp != 0x7F) {
                v->after_8f = 0;
                continue;
            }
            if (v->pos < VLC_CAP)
                v->buf[VLC_CAP - 1 - v->pos] = (uint8_t)v->tmp;
            else
                v->overflow = 1;
            v->pos++;
            v->after_8f = v->tmp > 0x8F;
            v->tmp = 0;
            v->used = 0;
        }
    }
}

static void vlc_put_byte(vlc_writer *v, unsigned byte) {
    if (v->pos < VLC_CAP)
        v->buf[VLC_CAP - 1 - v->pos] = (uint8_t)byte;
    else
        v->overflow = 1;
    v->pos++;
}

/* Ends MEL and VLC; their last bytes meet in the middle of the segment and
 * share one byte when their bits do not collide. */
static void mel_vlc_finish(mel_writer *m, vlc_writer *v) {
    if (m->run > 0)
        mel_bit(m, 1);
    unsigned mel_byte = (m->tmp << m->free_bits) & 0xFF;
    unsigned mel_mask = (0xFFu << m->free_bits) & 0xFF;
    unsigned vlc_mask = 0xFFu >> (8 - v->used);
    if ((mel_mask | vlc_mask) == 0)
        return;
    unsigned fused = mel_byte | v->tmp;
    if ((((fused ^ mel_byte) & mel_mask) | ((fused ^ v->tmp) & vlc_mask)) == 0 &&
        fused != 0xFF && v->pos > 1) {
        if (m->pos < MEL_CAP)
            m->buf[m->pos++] = (uint8_t)fused;
        else
            m->overflow = 1;
    } else {
        if (m->pos < MEL_CAP)
            m->buf[m->pos++] = (uint8_t)mel_byte;
        else
            m->overflow = 1;
        vlc_put_byte(v, v->tmp);
    }
}

/* Exponent of a magnitude: the bit length of 2 mu - 1 (clause 7.3.6). */
static inline unsigned exponent(uint32_t mu) {
    uint32_t x = 2 * mu - 1;
    unsigned e = 0;
    while (x) {
        e++;
        x >>= 1;
    }
    return e;
}

typedef struct {
    unsigned rho;      /* significance of samples 0..3 */
    unsigned e[4];     /* exponents (0 when insignificant) */
    uint32_t v[4];     /* 2 (mu - 1) + sign */
    unsigned emax;
} quad;

/* Sample n of a quad sits at column 2 qx + (n >> 1), row 2 qy + (n & 1). */
static void load_quad(quad *q, const uint32_t *sm, unsigned w, unsigned h,
                      size_t stride, unsigned qx, unsigned qy) {
    q->rho = 0;
    q->emax = 0;
    for (unsigned n = 0; n < 4; n++) {
        unsigned x = 2 * qx + (n >> 1), y = 2 * qy + (n & 1);
        q->e[n] = 0;
        q->v[n] = 0;
        if (x >= w || y >= h)
            continue;
        uint32_t s = sm[(size_t)y * stride + x];
        uint32_t mu = s & ~SCI_HT_SIGN;
        if (!mu)
            continue;
        q->rho |= 1u << n;
        q->e[n] = exponent(mu);
        q->v[n] = 2 * (mu - 1) + (s >> 31);
        if (q->e[n] > q->emax)
            q->emax = q->e[n];
    }
}

/* Codes a quad's significance and EMB codeword and its MagSgn bits, given
 * its context and exponent predictor kappa; returns u_q. */
static unsigned code_quad(const uint16_t *lut, const quad *q, unsigned cq,
                          unsigned kappa, mel_writer *m, vlc_writer *v,
                          ms_writer *ms) {
    unsigned uq_big = q->emax > kappa ? q->emax : kappa;
    unsigned u = uq_big - kappa;
    unsigned emb = 0;
    if (u > 0)
        for (unsigned n = 0; n < 4; n++)
            emb |= (unsigned)(q->e[n] == q->emax && (q->rho >> n & 1)) << n;
    if (cq == 0)
        mel_event(m, q->rho != 0);
    if (cq != 0 || q->rho != 0) {
        unsigned entry = lut[(cq << 8) | (q->rho << 4) | emb];
        vlc_put(v, entry >> 8, (entry >> 4) & 15);
        for (unsigned n = 0; n < 4; n++)
            if (q->rho >> n & 1) {
                unsigned bits = uq_big - ((entry >> n) & 1);
                ms_put(ms, q->v[n], bits);
            }
    }
    return u;
}

static void put_uvlc_pair(vlc_writer *v, unsigned u0, unsigned u1) {
    sci_ht_uvlc c0 = sci_ht_uvlc_code(u0), c1 = sci_ht_uvlc_code(u1);
    vlc_put(v, c0.pre, c0.pre_len);
    vlc_put(v, c1.pre, c1.pre_len);
    vlc_put(v, c0.suf, c0.suf_len);
    vlc_put(v, c1.suf, c1.suf_len);
    vlc_put(v, c0.ext, c0.ext_len);
    vlc_put(v, c1.ext, c1.ext_len);
}

long sci_ht_encode_block(const sci_ht_enc_tables *t, const uint32_t *sm,
                         unsigned w, unsigned h, size_t stride, uint8_t *out,
                         size_t cap) {
    int any = 0;
    for (unsigned y = 0; y < h && !any; y++)
        for (unsigned x = 0; x < w; x++)
            if (sm[(size_t)y * stride + x] & ~SCI_HT_SIGN) {
                any = 1;
                break;
            }
    if (!any)
        return 0;

    mel_writer mel;
    mel.pos = 0;
    mel.tmp = 0;
    mel.free_bits = 8;
    mel.run = 0;
    mel.k = 0;
    mel.threshold = 1;
    mel.overflow = 0;
    vlc_writer vlc;
    vlc_init(&vlc);
    ms_writer ms = {out, 0, cap, 0, 0, 8, 0};

    /* Exponent and significance of the bottom row of the previous
     * line-pair, with a zero column on each side. */
    uint8_t e_above[1024 + 4], sig_above[1024 + 4];
    memset(e_above, 0, w + 4);
    memset(sig_above, 0, w + 4);
    uint8_t *ea = e_above + 1, *sa = sig_above + 1;

    unsigned qw = (w + 1) / 2, qh = (h + 1) / 2;
    for (unsigned qy = 0; qy < qh; qy++) {
        const uint16_t *lut = t->vlc[qy != 0];
        unsigned left_rho = 0; /* the quad to the left, this line-pair */
        for (unsigned qx = 0; qx < qw; qx += 2) {
            quad q[2];
            unsigned u[2] = {0, 0};
            unsigned nq = qx + 1 < qw ? 2 : 1;
            for (unsigned i = 0; i < nq; i++) {
                unsigned x0 = 2 * (qx + i);
                load_quad(&q[i], sm, w, h, stride, qx + i, qy);
                unsigned cq, kappa = 1;
                if (qy == 0) {
                    cq = ((left_rho & 1) | ((left_rho >> 1) & 1)) |
                         ((left_rho >> 2) & 1) << 1 | ((left_rho >> 3) & 1) << 2;
                } else {
                    cq = (sa[(int)x0 - 1] | sa[x0]) |
                         (((left_rho >> 2) | (left_rho >> 3)) & 1) << 1 |
                         (sa[x0 + 1] | sa[x0 + 2]) << 2;
                    unsigned r = q[i].rho;
                    if (r & (r - 1)) {
                        unsigned e = ea[(int)x0 - 1];
                        for (unsigned d = 0; d < 3; d++)
                            if (ea[x0 + d] > e)
                                e = ea[x0 + d];
                        kappa = e > 2 ? e - 1 : 1;
                    }
                }
                u[i] = code_quad(lut, &q[i], cq, kappa, &mel, &vlc, &ms);
                left_rho = q[i].rho;
            }
            if (qy == 0 && u[0] > 0 && u[1] > 0) {
                /* First line-pair: one MEL event says whether both offsets
                 * exceed 2, which then sends both less 2. */
                int both = u[0] > 2 && u[1] > 2;
                mel_event(&mel, both);
                if (both) {
                    put_uvlc_pair(&vlc, u[0] - 2, u[1] - 2);
                } else if (u[0] > 2) {
                    sci_ht_uvlc c0 = sci_ht_uvlc_code(u[0]);
                    vlc_put(&vlc, c0.pre, c0.pre_len);
                    vlc_put(&vlc, u[1] - 1, 1);
                    vlc_put(&vlc, c0.suf, c0.suf_len);
                    vlc_put(&vlc, c0.ext, c0.ext_len);
                } else {
                    put_uvlc_pair(&vlc, u[0], u[1]);
                }
            } else {
                put_uvlc_pair(&vlc, u[0], u[1]);
            }
        }
        /* This line-pair's bottom row becomes the context of the next. */
        if (qy + 1 < qh) {
            unsigned y = 2 * qy + 1;
            for (unsigned x = 0; x < w; x++) {
                uint32_t mu = y < h ? sm[(size_t)y * stride + x] & ~SCI_HT_SIGN : 0;
                sa[x] = mu != 0;
                ea[x] = (uint8_t)(mu ? exponent(mu) : 0);
            }
        }
    }

    mel_vlc_finish(&mel, &vlc);
    ms_finish(&ms);
    size_t scup = mel.pos + vlc.pos;
    if (ms.overflow || mel.overflow || vlc.overflow || scup > SCI_HT_MAX_SCUP ||
        ms.pos + scup > cap)
        return -1;
    memcpy(out + ms.pos, mel.buf, mel.pos);
    memcpy(out + ms.pos + mel.pos, vlc.buf + VLC_CAP - vlc.pos, vlc.pos);
    size_t len = ms.pos + scup;
    out[len - 1] = (uint8_t)(scup >> 4);
    out[len - 2] = (uint8_t)((out[len - 2] & 0xF0) | (scup & 0xF));
    return (long)len;
}

/* SigProp bits: forwards, least significant first; after a 0xFF byte the
 * next carries 7 bits under a stuffed 0. */
typedef struct {
    uint8_t *buf;
    size_t pos, cap;
    unsigned tmp, used, room;
    int overflow;
} sp_writer;

static void sp_emit(sp_writer *w, unsigned byte) {
    if (w->pos < w->cap)
        w->buf[w->pos] = (uint8_t)byte;
    else
        w->overflow = 1;
    w->pos++;
}

static void sp_put(sp_writer *w, unsigned bit) {
    w->tmp |= bit << w->used;
    if (++w->used == w->room) {
        sp_emit(w, w->tmp);
        w->room = w->tmp == 0xFF ? 7 : 8;
        w->tmp = 0;
        w->used = 0;
    }
}

/* The padding bits are zeros, so a partial last byte is never 0xFF; after
 * a full 0xFF one more byte keeps what follows (MagRef bytes, or the next
 * code-block's) from reading as a marker. */
static void sp_finish(sp_writer *w) {
    if (w->used)
        sp_emit(w, w->tmp);
    else if (w->room == 7)
        sp_emit(w, 0);
}

/* MagRef bits: least significant first into bytes that end up in reverse
 * order at the end of the segment; after a byte above 0x8F, seven ones
 * close the byte under a stuffed 0 (the VLC rule). */
#define MR_CAP (4096 / 7 + 2)

typedef struct {
    uint8_t buf[MR_CAP];
    size_t pos;
    unsigned tmp, used, last;
} mr_writer;

static void mr_put(mr_writer *m, unsigned bit) {
    m->tmp |= bit << m->used;
    m->used++;
    if (m->used == 7 && m->last > 0x8F && m->tmp == 0x7F)
        m->used = 8;
    if (m->used == 8) {
        m->buf[m->pos++] = (uint8_t)m->tmp;
        m->last = m->tmp;
        m->tmp = 0;
        m->used = 0;
    }
}

long sci_ht_encode_block_ref(const sci_ht_enc_tables *t, const uint32_t *sm,
                             unsigned w, unsigned h, size_t stride, unsigned p,
                             unsigned style, uint8_t *out, size_t cap,
                             sci_ht_ref_lengths *len) {
    if (!w || !h || w > 1024 || h > 1024 || w * h > 4096 || stride < w ||
        p < 1 || p > 29 || !len)
        return -1;
    /* The cleanup pass's view: magnitudes above plane p. */
    uint32_t cup[4096];
    for (unsigned y = 0; y < h; y++)
        for (unsigned x = 0; x < w; x++) {
            uint32_t s = sm[(size_t)y * stride + x];
            uint32_t mu = (s & ~SCI_HT_SIGN) >> p;
            cup[y * w + x] = mu ? mu | (s & SCI_HT_SIGN) : 0;
        }
    long lc = sci_ht_encode_block(t, cup, w, h, w, out, cap);
    if (lc <= 0)
        return lc;

    /* Significance after the cleanup pass (1) and found by SigProp (2),
     * with a zero border. */
    uint8_t sig[6156];
    size_t ss = (size_t)w + 2;
    memset(sig, 0, ss * (h + 2));
    for (unsigned y = 0; y < h; y++)
        for (unsigned x = 0; x < w; x++)
            if (cup[y * w + x])
                sig[(y + 1) * ss + x + 1] = 1;

    int vcausal = (style & SCI_HT_STYLE_VCAUSAL) != 0;
    sp_writer sp = {out + lc, 0, cap - (size_t)lc, 0, 0, 8, 0};
    for (unsigned y0 = 0; y0 < h; y0 += 4) {
        unsigned rows = h - y0 < 4 ? h - y0 : 4;
        for (unsigned x0 = 0; x0 < w; x0 += 4) {
            unsigned cols = w - x0 < 4 ? w - x0 : 4;
            uint32_t signs[16];
            unsigned nnew = 0;
            for (unsigned x = x0; x < x0 + cols; x++)
                for (unsigned y = y0; y < y0 + rows; y++) {
                    uint8_t *c = &sig[(y + 1) * ss + x + 1];
                    if (*c)
                        continue;
                    unsigned nb = c[-(ptrdiff_t)ss - 1] | c[-(ptrdiff_t)ss] |
                                  c[-(ptrdiff_t)ss + 1] | c[-1] | c[1];
                    if (!(vcausal && y == y0 + 3))
                        nb |= c[ss - 1] | c[ss] | c[ss + 1];
                    if (!nb)
                        continue;
                    uint32_t s = sm[(size_t)y * stride + x];
                    unsigned bit = (s & ~SCI_HT_SIGN) >> (p - 1) & 1;
                    sp_put(&sp, bit);
                    if (bit) {
                        *c = 2;
                        signs[nnew++] = s >> 31;
                    }
                }
            for (unsigned i = 0; i < nnew; i++)
                sp_put(&sp, signs[i]);
        }
    }
    sp_finish(&sp);

    mr_writer mr;
    mr.pos = 0, mr.tmp = 0, mr.used = 0, mr.last = 0xFF;
    for (unsigned y0 = 0; y0 < h; y0 += 4) {
        unsigned rows = h - y0 < 4 ? h - y0 : 4;
        for (unsigned x = 0; x < w; x++)
            for (unsigned y = y0; y < y0 + rows; y++)
                if (sig[(y + 1) * ss + x + 1] == 1)
                    mr_put(&mr, sm[(size_t)y * stride + x] >> (p - 1) & 1);
    }
    if (mr.used)
        mr.buf[mr.pos++] = (uint8_t)mr.tmp;

    size_t total = (size_t)lc + sp.pos + mr.pos;
    if (sp.overflow || total > cap)
        return -1;
    for (size_t i = 0; i < mr.pos; i++)
        out[total - 1 - i] = mr.buf[i];
    len->cup = (size_t)lc;
    len->ref_sp = sp.pos;
    len->ref = sp.pos + mr.pos;
    return (long)total;
}
