/*
 * HT block decoder.  The cleanup segment holds three byte streams: MagSgn
 * from the front forwards, MEL after it forwards, VLC from the back
 * backwards (its last 12 bits are Scup, the length of MEL plus VLC).  The
 * refinement segment holds SigProp bits forwards and MagRef bits
 * backwards.  Each stream has its own bit-stuffing rule, mirrored from the
 * writers in codec/j2k/ht_block.c:
 *   MagSgn, SigProp  LSB first; after a 0xFF byte the next byte's top bit
 *                    is stuffed (7 bits);
 *   MEL              MSB first, the same rule;
 *   VLC, MagRef      LSB first, read backwards; after a byte above 0x8F a
 *                    byte whose low 7 bits are all ones carries only those.
 */
#include "ht_dec.h"

#include <string.h>

#include "ht_tables.h"

/* Every codeword of a context, extended to all 7-bit patterns that start
 * with it (bits are read least significant first). */
static int build(uint16_t *lut, const sci_ht_vlc_row *rows, unsigned n) {
    memset(lut, 0, 1024 * sizeof *lut);
    for (unsigned j = 0; j < n; j++) {
        const sci_ht_vlc_row *r = &rows[j];
        if (r->cq > 7 || r->len < 1 || r->len > 7 || r->rho > 15 ||
            r->u_off > 1 || r->e_k > 15 || r->e_1 > 15)
            return -1;
        uint16_t e = (uint16_t)(r->rho | r->u_off << 4 | r->e_k << 5 |
                                r->e_1 << 9 | r->len << 13);
        unsigned mask = (1u << r->len) - 1;
        for (unsigned b = 0; b < 128; b++) {
            if ((b & mask) != r->cwd)
                continue;
            if (lut[r->cq << 7 | b])
                return -1; /* two rows claim one pattern: not prefix-free */
            lut[r->cq << 7 | b] = e;
        }
    }
    for (unsigned i = 0; i < 1024; i++)
        if (!lut[i])
            return -1;
    return 0;
}

int sci_ht_dec_tables_init(sci_ht_dec_tables *t) {
    if (build(t->vlc[0], sci_ht_vlc_table0, sci_ht_vlc_table0_rows) < 0)
        return -1;
    return build(t->vlc[1], sci_ht_vlc_table1, sci_ht_vlc_table1_rows);
}

const char *sci_ht_dec_strerror(int code) {
    switch (code) {
    case SCI_HT_DEC_OK: return "ok";
    case SCI_HT_DEC_EARG: return "invalid block size, M_b, missing MSBs or passes";
    case SCI_HT_DEC_ESCUP: return "cleanup segment length or Scup out of range";
    case SCI_HT_DEC_EVLC: return "VLC stream ran past its start";
    case SCI_HT_DEC_EMAGSGN: return "MagSgn stream ran past its end";
    case SCI_HT_DEC_EMEL: return "MEL stream ran past the segment";
    case SCI_HT_DEC_EMAG: return "magnitude above the subband's bit-planes";
    default: return "unknown error";
    }
}

#define NO_LIMIT UINT64_MAX

/* MagSgn: bytes [0, Pcup), then 0xFF for ever.  A valid segment may leave
 * out one trailing 0xFF, so consuming bits of a second fill byte means the
 * segment is damaged: `limit` is the count of bits before that byte. */
typedef struct {
    const uint8_t *d;
    size_t pos, end;
    uint64_t acc;
    unsigned bits;
    int last_ff;
    uint64_t in, out, limit;
} ms_reader;

static void ms_fill(ms_reader *r) {
    while (r->bits <= 56) {
        unsigned b = 0xFF;
        if (r->pos < r->end)
            b = r->d[r->pos];
        else if (r->pos == r->end + 1 && r->limit == NO_LIMIT)
            r->limit = r->in;
        if (r->pos <= r->end + 1)
            r->pos++;
        unsigned n = r->last_ff ? 7 : 8;
        r->acc |= (uint64_t)(b & ((1u << n) - 1)) << r->bits;
        r->bits += n;
        r->in += n;
        r->last_ff = b == 0xFF;
    }
}

/* n <= 32 bits */
static inline uint32_t ms_get(ms_reader *r, unsigned n) {
    if (r->bits < n)
        ms_fill(r);
    uint32_t v = (uint32_t)(r->acc & ((UINT64_C(1) << n) - 1));
    r->acc >>= n;
    r->bits -= n;
    r->out += n;
    return v;
}

/* The segment as the standard's decoder sees it: the byte holding Scup's
 * high bits reads as 0xFF and the low nibble of the one before as ones. */
static inline unsigned cup_byte(const uint8_t *d, size_t lcup, size_t pos) {
    if (pos + 1 == lcup)
        return 0xFF;
    if (pos + 2 == lcup)
        return d[pos] | 0x0Fu;
    return d[pos];
}

/* Run-length exponent of each of the 13 MEL states (clause 7.3.3). */
static const uint8_t mel_exp[13] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 4, 5};

/* MEL: from Pcup forwards; past the segment 0xFF (and `over` set, since a
 * valid segment's MEL bits all lie before its last byte). */
typedef struct {
    const uint8_t *d;
    size_t pos, lcup;
    unsigned tmp, bits;
    int last_ff;
    unsigned k, run;
    int one, over;
} mel_reader;

static inline unsigned mel_bit(mel_reader *m) {
    if (!m->bits) {
        unsigned b = 0xFF;
        if (m->pos < m->lcup)
            b = cup_byte(m->d, m->lcup, m->pos++);
        else
            m->over = 1;
        m->bits = m->last_ff ? 7 : 8;
        m->last_ff = b == 0xFF;
        m->tmp = b;
    }
    m->bits--;
    return (m->tmp >> m->bits) & 1;
}

/* The next MEL symbol: 1 for a significant quad (or, in the first
 * line-pair, for "both exponent offsets exceed 2"), 0 otherwise.  A 1 bit
 * is a full run of 2^E zeros; a 0 bit is followed by E bits of a shorter
 * run, which a one ends. */
static unsigned mel_get(mel_reader *m) {
    if (m->run == 0 && !m->one) {
        unsigned e = mel_exp[m->k];
        if (mel_bit(m)) {
            m->run = 1u << e;
            if (m->k < 12)
                m->k++;
        } else {
            unsigned r = 0;
            while (e--)
                r = r << 1 | mel_bit(m);
            m->run = r;
            m->one = 1;
            if (m->k > 0)
                m->k--;
        }
    }
    if (m->run > 0) {
        m->run--;
        return 0;
    }
    m->one = 0;
    return 1;
}

/* VLC: backwards from byte Lcup - 2 (its high nibble) down to Pcup; below
 * that zeros, and consuming them means damage (`limit` as for MagSgn). */
typedef struct {
    const uint8_t *d;
    ptrdiff_t pos, start;
    uint64_t acc;
    unsigned bits, last;
    uint64_t in, out, limit;
} vlc_reader;

static void vlc_init(vlc_reader *v, const uint8_t *d, size_t lcup, size_t pcup) {
    unsigned b = d[lcup - 2] | 0x0Fu;
    v->d = d;
    v->acc = b >> 4;
    v->bits = 4;
    /* The Scup nibble counts as a byte above 0x8F: if the three bits above
     * it are ones, the top bit is stuffed. */
    if ((v->acc & 7) == 7) {
        v->acc &= 7;
        v->bits = 3;
    }
    v->last = b;
    v->pos = (ptrdiff_t)lcup - 3;
    v->start = (ptrdiff_t)pcup;
    v->in = v->bits;
    v->out = 0;
    v->limit = NO_LIMIT;
}

static void vlc_fill(vlc_reader *v) {
    while (v->bits <= 56) {
        unsigned b = 0;
        if (v->pos >= v->start)
            b = v->d[v->pos--];
        else if (v->limit == NO_LIMIT)
            v->limit = v->in;
        unsigned n = v->last > 0x8F && (b & 0x7F) == 0x7F ? 7 : 8;
        v->acc |= (uint64_t)(b & ((1u << n) - 1)) << v->bits;
        v->bits += n;
        v->in += n;
        v->last = b;
    }
}

static inline unsigned vlc_peek(vlc_reader *v, unsigned n) {
    if (v->bits < n)
        vlc_fill(v);
    return (unsigned)(v->acc & ((1u << n) - 1));
}

static inline void vlc_skip(vlc_reader *v, unsigned n) {
    v->acc >>= n;
    v->bits -= n;
    v->out += n;
}

static inline unsigned vlc_get(vlc_reader *v, unsigned n) {
    unsigned x = vlc_peek(v, n);
    vlc_skip(v, n);
    return x;
}

/* U-VLC prefix: 1 -> 1, 01 -> 2, 001 -> 3, 000 -> 5 (bits in reading
 * order); the value is the prefix plus the suffix plus 4 x extension. */
static unsigned uvlc_prefix(vlc_reader *v) {
    unsigned b = vlc_peek(v, 3);
    if (b & 1) {
        vlc_skip(v, 1);
        return 1;
    }
    if (b & 2) {
        vlc_skip(v, 2);
        return 2;
    }
    vlc_skip(v, 3);
    return b & 4 ? 3 : 5;
}

static inline unsigned uvlc_suffix(vlc_reader *v, unsigned pfx) {
    return pfx == 3 ? vlc_get(v, 1) : pfx == 5 ? vlc_get(v, 5) : 0;
}

static inline unsigned uvlc_ext(vlc_reader *v, unsigned pfx, unsigned sfx) {
    return pfx == 5 && sfx >= 28 ? 4 * vlc_get(v, 4) : 0;
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

static void zero_rows(uint32_t *out, size_t stride, unsigned w, unsigned y0,
                      unsigned h) {
    for (unsigned y = y0; y < h; y++)
        memset(out + (size_t)y * stride, 0, (size_t)w * sizeof *out);
}

/* The cleanup pass at plane p; kb = M_b - p bounds the magnitudes
 * (mu < 2^kb, so exponents <= kb + 1). */
static int cleanup_pass(const sci_ht_dec_tables *t, const uint8_t *cup,
                        size_t lcup, unsigned w, unsigned h, unsigned p,
                        unsigned kb, uint32_t *out, size_t stride) {
    size_t pcup;
    if (sci_ht_dec_split(cup, lcup, &pcup))
        return SCI_HT_DEC_ESCUP;

    ms_reader ms = {cup, 0, pcup, 0, 0, 0, 0, 0, NO_LIMIT};
    mel_reader mel = {cup, pcup, lcup, 0, 0, 0, 0, 0, 0, 0};
    vlc_reader vlc;
    vlc_init(&vlc, cup, lcup, pcup);

    /* Exponents (0: insignificant) of the bottom row of the previous
     * line-pair and of this one, with a zero column on each side. */
    uint8_t e_prev[1024 + 4], e_cur[1024 + 4];
    memset(e_prev, 0, w + 4);
    uint8_t *ea = e_prev + 1, *ec = e_cur + 1;

    unsigned qw = (w + 1) / 2, qh = (h + 1) / 2;
    for (unsigned qy = 0; qy < qh; qy++) {
        const uint16_t *lut = t->vlc[qy != 0];
        unsigned y0 = 2 * qy;
        unsigned left_rho = 0;
        memset(e_cur, 0, w + 4);
        for (unsigned qx = 0; qx < qw; qx += 2) {
            unsigned nq = qx + 1 < qw ? 2 : 1;
            unsigned rho[2] = {0, 0}, uoff[2] = {0, 0}, ek[2] = {0, 0},
                     e1[2] = {0, 0}, u[2] = {0, 0};
            for (unsigned i = 0; i < nq; i++) {
                unsigned x0 = 2 * (qx + i), cq;
                if (qy == 0)
                    cq = ((left_rho | left_rho >> 1) & 1) |
                         (left_rho >> 2 & 1) << 1 | (left_rho >> 3 & 1) << 2;
                else
                    cq = (unsigned)((ea[(int)x0 - 1] | ea[x0]) != 0) |
                         ((left_rho >> 2 | left_rho >> 3) & 1) << 1 |
                         (unsigned)((ea[x0 + 1] | ea[x0 + 2]) != 0) << 2;
                if (cq == 0 && !mel_get(&mel)) {
                    left_rho = 0;
                    continue;
                }
                unsigned e = lut[cq << 7 | vlc_peek(&vlc, 7)];
                vlc_skip(&vlc, e >> 13);
                rho[i] = e & 15;
                uoff[i] = e >> 4 & 1;
                ek[i] = e >> 5 & 15;
                e1[i] = e >> 9 & 15;
                left_rho = rho[i];
            }

            /* Exponent offsets: prefixes, then suffixes, then extensions,
             * the two quads interleaved. */
            if (qy == 0 && uoff[0] && uoff[1] && mel_get(&mel)) {
                /* first line-pair, both offsets above 2: sent less 2 */
                unsigned p0 = uvlc_prefix(&vlc), p1 = uvlc_prefix(&vlc);
                unsigned s0 = uvlc_suffix(&vlc, p0), s1 = uvlc_suffix(&vlc, p1);
                u[0] = 2 + p0 + s0 + uvlc_ext(&vlc, p0, s0);
                u[1] = 2 + p1 + s1 + uvlc_ext(&vlc, p1, s1);
            } else if (uoff[0] && uoff[1]) {
                unsigned p0 = uvlc_prefix(&vlc);
                if (qy == 0 && p0 > 2) {
                    /* first line-pair, u0 > 2 and u1 <= 2: one bit */
                    u[1] = 1 + vlc_get(&vlc, 1);
                    unsigned s0 = uvlc_suffix(&vlc, p0);
                    u[0] = p0 + s0 + uvlc_ext(&vlc, p0, s0);
                } else {
                    unsigned p1 = uvlc_prefix(&vlc);
                    unsigned s0 = uvlc_suffix(&vlc, p0), s1 = uvlc_suffix(&vlc, p1);
                    u[0] = p0 + s0 + uvlc_ext(&vlc, p0, s0);
                    u[1] = p1 + s1 + uvlc_ext(&vlc, p1, s1);
                }
            } else if (uoff[0] || uoff[1]) {
                unsigned i = uoff[1];
                unsigned p0 = uvlc_prefix(&vlc), s0 = uvlc_suffix(&vlc, p0);
                u[i] = p0 + s0 + uvlc_ext(&vlc, p0, s0);
            }

            for (unsigned i = 0; i < nq; i++) {
                unsigned r = rho[i], x0 = 2 * (qx + i);
                if (!r)
                    continue;
                /* Exponent predictor: from the row above when two or more
                 * samples are significant, outside the first line-pair. */
                unsigned kappa = 1;
                if (qy > 0 && (r & (r - 1))) {
                    unsigned e = ea[(int)x0 - 1];
                    for (unsigned d = 0; d < 3; d++)
                        if (ea[x0 + d] > e)
                            e = ea[x0 + d];
                    kappa = e > 2 ? e - 1 : 1;
                }
                unsigned big_u = u[i] + kappa;
                if (big_u > kb + 1) {
                    zero_rows(out, stride, w, y0, h);
                    return SCI_HT_DEC_EMAG;
                }
                for (unsigned n = 0; n < 4; n++) {
                    if (!(r >> n & 1))
                        continue;
                    unsigned m = big_u - (ek[i] >> n & 1);
                    uint32_t v = ms_get(&ms, m) | (uint32_t)(e1[i] >> n & 1) << m;
                    uint32_t mu = (v >> 1) + 1;
                    if (mu >> kb) {
                        zero_rows(out, stride, w, y0, h);
                        return SCI_HT_DEC_EMAG;
                    }
                    unsigned x = x0 + (n >> 1), y = y0 + (n & 1);
                    if (x >= w || y >= h)
                        continue;
                    out[(size_t)y * stride + x] = mu << p | (v & 1) << 31;
                    if (n & 1)
                        ec[x] = (uint8_t)exponent(mu);
                }
            }

            int err = mel.over ? SCI_HT_DEC_EMEL
                      : vlc.out > vlc.limit ? SCI_HT_DEC_EVLC
                      : ms.out > ms.limit ? SCI_HT_DEC_EMAGSGN
                                          : SCI_HT_DEC_OK;
            if (err) {
                zero_rows(out, stride, w, y0, h);
                return err;
            }
        }
        memcpy(e_prev, e_cur, w + 4);
    }
    return SCI_HT_DEC_OK;
}

/* SigProp: forwards, zeros past the end. */
typedef struct {
    const uint8_t *d;
    size_t pos, end;
    unsigned tmp, bits;
    int last_ff;
} sp_reader;

static inline unsigned sp_bit(sp_reader *r) {
    if (!r->bits) {
        unsigned b = r->pos < r->end ? r->d[r->pos++] : 0;
        r->bits = r->last_ff ? 7 : 8;
        r->last_ff = b == 0xFF;
        r->tmp = b;
    }
    unsigned bit = r->tmp & 1;
    r->tmp >>= 1;
    r->bits--;
    return bit;
}

/* MagRef: backwards from the segment's last byte, zeros past its start;
 * the byte "before" the last counts as one above 0x8F. */
typedef struct {
    const uint8_t *d;
    size_t left;
    unsigned tmp, bits, last;
} mr_reader;

static inline unsigned mr_bit(mr_reader *r) {
    if (!r->bits) {
        unsigned b = r->left ? r->d[--r->left] : 0;
        r->bits = r->last > 0x8F && (b & 0x7F) == 0x7F ? 7 : 8;
        r->last = b;
        r->tmp = b;
    }
    unsigned bit = r->tmp & 1;
    r->tmp >>= 1;
    r->bits--;
    return bit;
}

#define SIG_CUP 1u /* significant after the cleanup pass */
#define SIG_NEW 2u /* became significant in this SigProp pass */

/* The refinement passes at plane p - 1 (p >= 1).  Stripes of four rows are
 * scanned column by column, top to bottom.  SigProp visits every sample
 * not yet significant with a significant neighbour: neighbours significant
 * after the cleanup pass (those of the next stripe not, under VCAUSAL) or
 * made significant earlier in this pass.  Per group of four columns of a
 * stripe, the significance bits come first, then the signs of the samples
 * they made significant.  MagRef then gives each cleanup-significant
 * sample its next bit. */
static void refinement_passes(const uint8_t *ref, size_t lref, unsigned w,
                              unsigned h, unsigned p, unsigned passes,
                              int vcausal, uint32_t *out, size_t stride) {
    /* significance with a zero border: (w + 2) x (h + 2) <= 6156 */
    uint8_t sig[6156];
    size_t ss = (size_t)w + 2;
    memset(sig, 0, ss * (h + 2));
    for (unsigned y = 0; y < h; y++)
        for (unsigned x = 0; x < w; x++)
            if (out[(size_t)y * stride + x] & 0x7FFFFFFFu)
                sig[(y + 1) * ss + x + 1] = SIG_CUP;

    uint32_t half = 1u << (p - 1);
    sp_reader sp = {ref, 0, lref, 0, 0, 0};
    for (unsigned y0 = 0; y0 < h; y0 += 4) {
        unsigned rows = h - y0 < 4 ? h - y0 : 4;
        for (unsigned x0 = 0; x0 < w; x0 += 4) {
            unsigned cols = w - x0 < 4 ? w - x0 : 4;
            unsigned newx[16], newy[16], nnew = 0;
            for (unsigned x = x0; x < x0 + cols; x++)
                for (unsigned y = y0; y < y0 + rows; y++) {
                    uint8_t *c = &sig[(y + 1) * ss + x + 1];
                    if (*c)
                        continue;
                    unsigned nb = c[-(ptrdiff_t)ss - 1] | c[-(ptrdiff_t)ss] |
                                  c[-(ptrdiff_t)ss + 1] | c[-1] | c[1];
                    if (!(vcausal && y == y0 + 3))
                        nb |= c[ss - 1] | c[ss] | c[ss + 1];
                    if (!nb || !sp_bit(&sp))
                        continue;
                    *c = SIG_NEW;
                    newx[nnew] = x;
                    newy[nnew++] = y;
                }
            for (unsigned i = 0; i < nnew; i++)
                out[(size_t)newy[i] * stride + newx[i]] =
                    half | (uint32_t)sp_bit(&sp) << 31;
        }
    }
    if (passes < 3)
        return;
    mr_reader mr = {ref, lref, 0, 0, 0xFF};
    for (unsigned y0 = 0; y0 < h; y0 += 4) {
        unsigned rows = h - y0 < 4 ? h - y0 : 4;
        for (unsigned x = 0; x < w; x++)
            for (unsigned y = y0; y < y0 + rows; y++)
                if (sig[(y + 1) * ss + x + 1] == SIG_CUP && mr_bit(&mr))
                    out[(size_t)y * stride + x] |= half;
    }
}

int sci_ht_decode_block(const sci_ht_dec_tables *t, const uint8_t *cup,
                        size_t lcup, const uint8_t *ref, size_t lref,
                        const sci_ht_dec_params *prm, uint32_t *out,
                        size_t stride) {
    if (!t || !prm || !out)
        return SCI_HT_DEC_EARG;
    unsigned w = prm->w, h = prm->h;
    if (w < 1 || h < 1 || w > 1024 || h > 1024 || w * h > 4096 || stride < w ||
        prm->mb < 1 || prm->mb > SCI_HT_DEC_MAX_MB || prm->zbp >= prm->mb ||
        prm->passes > 3)
        return SCI_HT_DEC_EARG;
    unsigned p = prm->mb - 1 - prm->zbp;
    if ((prm->passes >= 2 && p == 0) || (prm->passes && !cup && lcup) ||
        (prm->passes >= 2 && !ref && lref))
        return SCI_HT_DEC_EARG;
    zero_rows(out, stride, w, 0, h);
    if (prm->passes == 0)
        return SCI_HT_DEC_OK;
    int st = cleanup_pass(t, cup, lcup, w, h, p, prm->mb - p, out, stride);
    if (st != SCI_HT_DEC_OK)
        return st;
    if (prm->passes >= 2)
        refinement_passes(ref, lref, w, h, p, prm->passes,
                          (prm->style & SCI_HT_STYLE_VCAUSAL) != 0, out, stride);
    return SCI_HT_DEC_OK;
}
