/*
 * The HT cleanup pass of one code-block decoded by one warp
 * (cuda/j2k/j2kdec.cu), equal sample for sample to codec/j2k/ht_dec.c,
 * damage included.
 *
 * The symbols (MEL, CxtVLC, U-VLC) come first (ht_dec_sym.cuh: a block
 * a thread, or lane 0 of this warp), as a record a quad in the
 * coefficient plane.  Then a line-pair at a time, 32 quads at a time, a
 * quad a lane: the exponent predictor kappa (from the exponents of the
 * line above, kept in shared memory), U = u + kappa and the quad's MagSgn
 * bit count; a warp prefix sum places each quad's bits in the MagSgn
 * stream, which the warp unstuffs 32 bytes a round into a window of shared
 * memory (a byte after 0xFF holds 7 bits), and every lane reads its
 * samples from there and writes the quad's four words over its record.
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
#include "ht_dec_sym.cuh"

namespace sci_htw {

using namespace sci_dw;
#define SCI_HTW SCI_DW

/* Words of unstuffed MagSgn bits: a chunk of 32 quads needs up to
 * 32 x 4 x 31 bits, a loading round overshoots by up to 255, and the
 * window starts at the word holding the chunk's first bit. */
#define SCI_HTW_WIN 160u

/* Shared memory a warp needs for blocks up to 2 qw samples wide. */
SCI_HTD size_t smem_words(unsigned qw) {
    return SCI_HTW_WIN + (2u * (2u * qw + 4u) + 3u) / 4u;
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

SCI_HTW void zero_rows(uint32_t *out, size_t stride, unsigned w, unsigned y0,
                       unsigned y1, unsigned lane) {
    for (unsigned y = y0; y < y1; y++)
        for (unsigned x = lane; x < w; x += 32)
            out[(size_t)y * stride + x] = 0;
}

/* The cleanup pass of sci_htd's decoder (p: the plane of its LSBs, kb:
 * the magnitude bound) into out, which holds the records of
 * sci_hts::symbols and its result sym, with smem_words(qwmax) words of
 * shared memory sm (qwmax >= the block's quads a row).  Every sample is
 * written.  All lanes call it and get the same result. */
SCI_HTW int cleanup(const uint8_t *cup, size_t lcup, uint32_t sym,
                    unsigned w, unsigned h, unsigned p, unsigned kb,
                    uint32_t *out, size_t stride, uint32_t *sm,
                    unsigned qwmax, unsigned lane) {
    using namespace sci_htd;
    size_t pcup;
    if (sci_ht_dec_split(cup, lcup, &pcup))
        return SCI_HT_DEC_ESCUP;

    unsigned qw = (w + 1) / 2, qh = (h + 1) / 2, eaw = 2 * qwmax + 4;
    uint8_t *ea = (uint8_t *)(sm + SCI_HTW_WIN);
    ms_window m = {sm, cup, pcup, 0, 0, 0, 0, SCI_HTD_NO_LIMIT};
    for (unsigned k = lane; k < SCI_HTW_WIN; k += 32)
        sm[k] = 0;
    for (unsigned k = lane; k < 2 * eaw; k += 32)
        ea[k] = 0;
    w_sync();

    uint64_t at = 0; /* MagSgn bits consumed */
    for (unsigned qy = 0; qy < qh; qy++) {
        unsigned y0 = 2 * qy;
        uint32_t *row = out + (size_t)y0 * stride;
        const uint8_t *eap = ea + (~qy & 1) * eaw;
        uint8_t *eac = ea + (qy & 1) * eaw;
        int err = sym != SCI_HTS_OK && sym >> 8 == qy ? -(int)(sym & 255) : 0;
        int bad = 0;
        for (unsigned c0 = 0; c0 < qw && !err && !bad; c0 += 32) {
            unsigned q = c0 + lane;
            uint32_t r = q < qw ? row[2 * q] : 0;
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
            uint32_t smp[4] = {0, 0, 0, 0};
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
                    smp[n] = mu << p | (v & 1) << 31;
                    if (n & 1)
                        eb[n >> 1] = exponent(mu);
                }
            if (q < qw) {
                /* the quad's words replace its record */
                for (unsigned n = 0; n < 4; n++) {
                    unsigned x = (unsigned)x0 + (n >> 1), y = y0 + (n & 1);
                    if (x < w && y < h)
                        out[(size_t)y * stride + x] = smp[n];
                }
                eac[x0 + 1] = (uint8_t)eb[0];
                eac[x0 + 2] = (uint8_t)eb[1];
            }
            if (w_ballot(qbad))
                bad = SCI_HT_DEC_EMAG;
            at = need;
        }
        w_sync();
        if (err || bad) {
            /* the rows below hold records */
            zero_rows(out, stride, w, y0, h, lane);
            w_sync();
            return err ? err : bad;
        }
    }
    return SCI_HT_DEC_OK;
}

} /* namespace sci_htw */

#endif
