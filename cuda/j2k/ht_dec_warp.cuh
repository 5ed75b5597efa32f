/*
 * The HT cleanup pass of one code-block decoded by one warp
 * (cuda/j2k/j2kdec.cu), equal sample for sample to codec/j2k/ht_dec.c,
 * damage included.
 *
 * A line-pair of quads is decoded in two steps:
 *   - lane 0 decodes its MEL, CxtVLC and U-VLC symbols, quad pair after
 *     quad pair, into a record a quad (rho, u_off, e_k, e_1, u) in shared
 *     memory.  Nothing there depends on the magnitudes: the context of a
 *     quad needs only the significance of the line above, which the
 *     records of that line-pair give;
 *   - then 32 quads at a time, a quad a lane: the exponent predictor
 *     kappa (from the exponents of the line above, kept in shared memory),
 *     U = u + kappa and the quad's MagSgn bit count; a warp prefix sum
 *     places each quad's bits in the MagSgn stream, which the warp
 *     unstuffs 32 bytes a round into a window of shared memory (a byte
 *     after 0xFF holds 7 bits), and every lane reads its samples from there.
 * Serial work per quad is the symbol decoding only; the magnitudes, the
 * stuffing and the exponents go 32 wide.
 *
 * Damage: the C decoder stops at the quad pair where a stream ran out or a
 * magnitude went past M_b and zeroes the block from that line-pair down;
 * which pair it was within the line-pair changes nothing, so the warp
 * checks once a line-pair, with the same limits (the MagSgn stream's end
 * plus its fill byte, the VLC stream's start, the MEL segment's end).
 *
 * Built for the host too (SCI_J2KDEC_EMU: the lanes are the coroutines of
 * cuda/common/warp_emu.h).
 */
#ifndef SCI_CUDA_HT_DEC_WARP_CUH
#define SCI_CUDA_HT_DEC_WARP_CUH

#include "dec_warp.cuh"
#include "ht_dec.cuh"

namespace sci_htw {

using namespace sci_dw;
#define SCI_HTW SCI_DW

/* Words of unstuffed MagSgn bits: a chunk of 32 quads needs up to
 * 32 x 4 x 31 bits, a loading round overshoots by up to 255, and the
 * window starts at the word holding the chunk's first bit. */
#define SCI_HTW_WIN 160u

/* Shared memory a warp needs for blocks up to 2 qw samples wide. */
SCI_HTD size_t smem_words(unsigned qw) {
    return SCI_HTW_WIN + 2u * qw + (2u * (2u * qw + 4u) + 3u) / 4u;
}

/* The MagSgn stream, unstuffed into win: bit k of win is bit base + k of
 * the stream (LSB first, as the C decoder's accumulator takes them); the
 * bits from `fill` on are zero.  Past the segment the stream is 0xFF
 * bytes, of which the first ends it: `limit`, once loaded. */
struct ms_window {
    uint32_t *win;
    const uint8_t *d;
    size_t end, pos;
    uint32_t prev;     /* the byte before pos */
    uint64_t base, fill, limit;
};

SCI_HTW void win_round(ms_window &m, unsigned lane) {
    size_t j = m.pos + lane;
    uint32_t b = j < m.end ? m.d[j] : 0xFFu;
    uint32_t before = w_up(b, 1);
    if (lane == 0)
        before = m.prev;
    uint32_t n = before == 0xFFu ? 7u : 8u;
    uint32_t incl = w_scan(n, lane);
    uint64_t at = m.fill + incl - n;
    uint32_t k = (uint32_t)(at - m.base), wd = k >> 5, s = k & 31;
    uint32_t v = b & ((1u << n) - 1u);
    w_or(&m.win[wd], v << s);
    if (s + n > 32)
        w_or(&m.win[wd + 1], v >> (32 - s));
    if (m.end >= m.pos && m.end - m.pos < 32) {
        /* the fill byte is in this round */
        uint32_t lo = w_shfl((uint32_t)(at + n), (int)(m.end - m.pos));
        uint32_t hi = w_shfl((uint32_t)((at + n) >> 32), (int)(m.end - m.pos));
        m.limit = (uint64_t)hi << 32 | lo;
    }
    m.fill += w_shfl(incl, 31);
    m.prev = w_shfl(b, 31);
    m.pos += 32;
    w_sync();
}

/* Moves the window so that its first word holds bit `from`. */
SCI_HTW void win_rebase(ms_window &m, uint64_t from, unsigned lane) {
    uint64_t nb = from & ~(uint64_t)31;
    uint32_t sh = (uint32_t)((nb - m.base) >> 5);
    if (!sh)
        return;
    uint32_t v[SCI_HTW_WIN / 32];
    for (unsigned i = 0; i < SCI_HTW_WIN / 32; i++) {
        unsigned k = lane + 32 * i;
        v[i] = k + sh < SCI_HTW_WIN ? m.win[k + sh] : 0;
    }
    w_sync();
    for (unsigned i = 0; i < SCI_HTW_WIN / 32; i++)
        m.win[lane + 32 * i] = v[i];
    w_sync();
    m.base = nb;
}

/* n <= 31 bits at window bit k */
SCI_HTW uint32_t win_get(const uint32_t *win, uint32_t k, unsigned n) {
    uint32_t wd = k >> 5, s = k & 31;
    uint64_t v = ((uint64_t)win[wd + 1] << 32 | win[wd]) >> s;
    return (uint32_t)v & ((1u << n) - 1u);
}

/* significance of the sample of the line above at column x, from the
 * records of the line-pair above (0 outside the block) */
SCI_HTW unsigned sig_above(const uint32_t *rp, unsigned w, int x) {
    if (x < 0 || x >= (int)w)
        return 0;
    return rp[x >> 1] >> (((x & 1) << 1) + 1) & 1;
}

/* Lane 0: the symbols of line-pair qy into records rc (rho bits 0-3,
 * u_off 4, e_k 5-8, e_1 9-12, u from 13), rp being the line-pair
 * above's.  Returns the C decoder's code for a stream that ran out. */
SCI_HTW int vlc_row(const uint16_t *lut2, sci_htd::mel_reader *mel,
                    sci_htd::vlc_reader *vlc, unsigned qy, unsigned qw,
                    unsigned w, const uint32_t *rp, uint32_t *rc) {
    using namespace sci_htd;
    const uint16_t *lut = lut2 + (qy != 0 ? 1024 : 0);
    unsigned left_rho = 0;
    for (unsigned qx = 0; qx < qw; qx += 2) {
        unsigned nq = qx + 1 < qw ? 2 : 1;
        unsigned uoff[2] = {0, 0}, u[2] = {0, 0};
        for (unsigned i = 0; i < nq; i++) {
            int x0 = 2 * (int)(qx + i);
            unsigned cq;
            if (qy == 0)
                cq = ((left_rho | left_rho >> 1) & 1) |
                     (left_rho >> 2 & 1) << 1 | (left_rho >> 3 & 1) << 2;
            else
                cq = (sig_above(rp, w, x0 - 1) | sig_above(rp, w, x0)) |
                     ((left_rho >> 2 | left_rho >> 3) & 1) << 1 |
                     (sig_above(rp, w, x0 + 1) | sig_above(rp, w, x0 + 2)) << 2;
            if (cq == 0 && !mel_get(mel)) {
                rc[qx + i] = 0;
                left_rho = 0;
                continue;
            }
            unsigned e = lut[cq << 7 | vlc_peek(vlc, 7)];
            vlc_skip(vlc, e >> 13);
            rc[qx + i] = e & 0x1FFFu;
            uoff[i] = e >> 4 & 1;
            left_rho = e & 15;
        }

        if (qy == 0 && uoff[0] && uoff[1] && mel_get(mel)) {
            unsigned p0 = uvlc_prefix(vlc), p1 = uvlc_prefix(vlc);
            unsigned s0 = uvlc_suffix(vlc, p0), s1 = uvlc_suffix(vlc, p1);
            u[0] = 2 + p0 + s0 + uvlc_ext(vlc, p0, s0);
            u[1] = 2 + p1 + s1 + uvlc_ext(vlc, p1, s1);
        } else if (uoff[0] && uoff[1]) {
            unsigned p0 = uvlc_prefix(vlc);
            if (qy == 0 && p0 > 2) {
                u[1] = 1 + vlc_get(vlc, 1);
                unsigned s0 = uvlc_suffix(vlc, p0);
                u[0] = p0 + s0 + uvlc_ext(vlc, p0, s0);
            } else {
                unsigned p1 = uvlc_prefix(vlc);
                unsigned s0 = uvlc_suffix(vlc, p0), s1 = uvlc_suffix(vlc, p1);
                u[0] = p0 + s0 + uvlc_ext(vlc, p0, s0);
                u[1] = p1 + s1 + uvlc_ext(vlc, p1, s1);
            }
        } else if (uoff[0] || uoff[1]) {
            unsigned i = uoff[1];
            unsigned p0 = uvlc_prefix(vlc), s0 = uvlc_suffix(vlc, p0);
            u[i] = p0 + s0 + uvlc_ext(vlc, p0, s0);
        }
        rc[qx] |= u[0] << 13;
        if (nq > 1)
            rc[qx + 1] |= u[1] << 13;
        if (mel->over)
            return SCI_HT_DEC_EMEL;
        if (vlc->out > vlc->limit)
            return SCI_HT_DEC_EVLC;
    }
    return SCI_HT_DEC_OK;
}

SCI_HTW void zero_rows(uint32_t *out, size_t stride, unsigned w, unsigned y0,
                       unsigned y1, unsigned lane) {
    for (unsigned y = y0; y < y1; y++)
        for (unsigned x = lane; x < w; x += 32)
            out[(size_t)y * stride + x] = 0;
}

/* The cleanup pass of sci_htd's decoder (p: the plane of its LSBs, kb:
 * the magnitude bound) into out, zero before, with smem_words(qwmax)
 * words of shared memory sm (qwmax >= the block's quads a row).  All
 * lanes call it and get the same result. */
SCI_HTW int cleanup(const uint16_t *lut2, const uint8_t *cup, size_t lcup,
                    unsigned w, unsigned h, unsigned p, unsigned kb,
                    uint32_t *out, size_t stride, uint32_t *sm,
                    unsigned qwmax, unsigned lane) {
    using namespace sci_htd;
    if (lcup < 2)
        return SCI_HT_DEC_ESCUP;
    size_t scup = (size_t)cup[lcup - 1] << 4 | (cup[lcup - 2] & 15u);
    if (scup < 2 || scup > lcup || scup > SCI_HT_DEC_MAX_SCUP)
        return SCI_HT_DEC_ESCUP;
    size_t pcup = lcup - scup;

    unsigned qw = (w + 1) / 2, qh = (h + 1) / 2, eaw = 2 * qwmax + 4;
    uint32_t *rec = sm + SCI_HTW_WIN;
    uint8_t *ea = (uint8_t *)(rec + 2 * qwmax);
    ms_window m = {sm, cup, pcup, 0, 0, 0, 0, SCI_HTD_NO_LIMIT};
    for (unsigned k = lane; k < SCI_HTW_WIN; k += 32)
        sm[k] = 0;
    for (unsigned k = lane; k < 2 * eaw; k += 32)
        ea[k] = 0;
    mel_reader mel = {cup, pcup, lcup, 0, 0, 0, 0, 0, 0, 0};
    vlc_reader vlc;
    vlc_init(&vlc, cup, lcup, pcup);
    w_sync();

    uint64_t at = 0; /* MagSgn bits consumed */
    for (unsigned qy = 0; qy < qh; qy++) {
        unsigned y0 = 2 * qy, y1 = y0 + 2 < h ? y0 + 2 : h;
        uint32_t *rc = rec + (qy & 1) * qwmax;
        const uint32_t *rp = rec + (~qy & 1) * qwmax;
        const uint8_t *eap = ea + (~qy & 1) * eaw;
        uint8_t *eac = ea + (qy & 1) * eaw;
        int err = 0;
        if (lane == 0)
            err = vlc_row(lut2, &mel, &vlc, qy, qw, w, rp, rc);
        err = (int)w_shfl((uint32_t)err, 0);
        w_sync();
        int bad = 0;
        for (unsigned c0 = 0; c0 < qw && !err && !bad; c0 += 32) {
            unsigned q = c0 + lane;
            uint32_t r = q < qw ? rc[q] : 0;
            unsigned rho = r & 15, ek = r >> 5 & 15, e1 = r >> 9 & 15;
            unsigned big_u = 0, nbits = 0;
            int qbad = 0;
            int x0 = 2 * (int)q;
            if (rho) {
                unsigned kappa = 1;
                if (qy > 0 && (rho & (rho - 1))) {
                    const uint8_t *e4 = eap + x0; /* columns x0 - 1 .. x0 + 2 */
                    unsigned e = e4[0];
                    for (int d = 1; d < 4; d++)
                        if (e4[d] > e)
                            e = e4[d];
                    kappa = e > 2 ? e - 1 : 1;
                }
                big_u = (r >> 13) + kappa;
                if (big_u > kb + 1)
                    qbad = 1;
                else
                    nbits = w_popc(rho) * big_u - w_popc(rho & ek);
            }
            uint32_t incl = w_scan(nbits, lane);
            uint64_t need = at + w_shfl(incl, 31);
            win_rebase(m, at, lane);
            while (m.fill < need && m.limit == SCI_HTD_NO_LIMIT)
                win_round(m, lane);
            if (need > m.limit) {
                bad = SCI_HT_DEC_EMAGSGN;
                break;
            }
            uint32_t k = (uint32_t)(at + incl - nbits - m.base);
            unsigned eb[2] = {0, 0};
            if (rho && !qbad)
                for (unsigned n = 0; n < 4; n++) {
                    if (!(rho >> n & 1))
                        continue;
                    unsigned mn = big_u - (ek >> n & 1);
                    uint32_t v = win_get(m.win, k, mn) | (uint32_t)(e1 >> n & 1) << mn;
                    k += mn;
                    uint32_t mu = (v >> 1) + 1;
                    if (mu >> kb) {
                        qbad = 1;
                        break;
                    }
                    unsigned x = (unsigned)x0 + (n >> 1), y = y0 + (n & 1);
                    if (x >= w || y >= h)
                        continue;
                    out[(size_t)y * stride + x] = mu << p | (v & 1) << 31;
                    if (n & 1)
                        eb[n >> 1] = exponent(mu);
                }
            if (q < qw) {
                eac[x0 + 1] = (uint8_t)eb[0];
                eac[x0 + 2] = (uint8_t)eb[1];
            }
            if (w_ballot(qbad))
                bad = SCI_HT_DEC_EMAG;
            at = need;
        }
        w_sync();
        if (err || bad) {
            zero_rows(out, stride, w, y0, y1, lane);
            w_sync();
            return err ? err : bad;
        }
    }
    return SCI_HT_DEC_OK;
}

} /* namespace sci_htw */

#endif
