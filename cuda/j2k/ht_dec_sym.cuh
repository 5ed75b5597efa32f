/*
 * The symbols of an HT cleanup pass (MEL, CxtVLC and U-VLC), a code-block
 * a thread (cuda/j2k/j2kdec.cu's first HT kernel), ahead of the warp that
 * decodes the magnitudes (ht_dec_warp.cuh).
 *
 * Why a thread a block: the symbols are sequential within a block.  Lane 0
 * of the block's warp decoded them at first, and so issued nine in ten of
 * the kernel's instructions with one lane of 32 at work (ncu, H200, a 4K
 * 4:4:4 lossless frame: 1.06e9 warp instructions, 4.1 threads active a
 * warp, issue-bound).  A thread a block puts 32 blocks' symbols in one
 * warp's instructions; the price is that the 32 threads take different
 * paths, and that a few hundred warps cannot hide latency, so the code
 * here is short and mostly free of branches: the readers fill 32 bits at
 * a time, the U-VLC codes of a quad pair come from one 24-bit window.
 *
 * The readers load ahead of need, so they note where the real bytes ended
 * (as bits loaded) and a stream runs out when its consumed bits pass that
 * mark: the same points as codec/j2k/ht_dec.c, whose readers load a byte
 * when a bit is wanted.
 *
 * Records: a word a quad (rho bits 0-3, u_off 4, e_k 5-8, e_1 9-12, u from
 * 13), written where the quad's top-left sample goes in the coefficient
 * plane; the warp reads it there before it writes the quad's samples.
 * Nothing in a record depends on the magnitudes: a quad's context needs
 * only the significance of the line above, which the thread keeps as a bit
 * mask (bit x + 1: the bottom line of the line-pair above at column x).
 *
 * Built for the host too (SCI_J2KDEC_EMU).
 */
#ifndef SCI_CUDA_HT_DEC_SYM_CUH
#define SCI_CUDA_HT_DEC_SYM_CUH

#include "ht_dec.cuh"

namespace sci_hts {

/* every line-pair decoded; otherwise line-pair << 8 | -code */
#define SCI_HTS_OK 0xFFFFFFFFu
#define SCI_HTS_NO_END 0xFFFFFFFFu

/* Mask words of a block up to 2 qw samples wide: its bits 0 .. 2 qw + 1
 * and the word after the last, which mask4 reads. */
SCI_HTD unsigned mask_words(unsigned qw) { return (2u * qw + 2u) / 32u + 2u; }

/* bits x0 .. x0 + 3 of mask m, whose words are ms apart: the bottom line's
 * significance at columns x0 - 1 .. x0 + 2 */
SCI_HTD unsigned mask4(const uint32_t *m, unsigned ms, unsigned x0) {
    unsigned k = x0 >> 5;
    uint64_t v = ((uint64_t)m[(k + 1) * ms] << 32 | m[k * ms]) >> (x0 & 31);
    return (unsigned)v & 15u;
}

/* The VLC stream, read backwards from the segment's end, LSB first; a byte
 * after one above 0x8F whose low 7 bits are all set gives 7 bits.  Below
 * its first byte (start) it reads zeros. */
struct vlc_rd {
    const uint8_t *d;
    int pos, start;
    uint64_t acc;
    unsigned bits, last;
    uint32_t in, out, end; /* bits loaded, consumed; loaded from real bytes */
};

SCI_HTD void vlc_begin(vlc_rd &v, const uint8_t *d, int lcup, int pcup) {
    unsigned b = d[lcup - 2] | 0x0Fu;
    v.d = d;
    v.acc = b >> 4;
    v.bits = 4;
    if ((v.acc & 7) == 7) {
        v.acc &= 7;
        v.bits = 3;
    }
    v.last = b;
    v.pos = lcup - 3;
    v.start = pcup;
    v.in = v.bits;
    v.out = 0;
    v.end = SCI_HTS_NO_END;
}

/* Four bytes more when 32 bits or fewer are left (bits <= 64 after).  A
 * byte can lose a bit only if its low 7 bits are all set (one in 128), so
 * four real bytes without one go in at once. */
SCI_HTD void vlc_fill(vlc_rd &v) {
    if (v.bits > 32)
        return;
    int p = v.pos;
    unsigned b[4];
    for (int j = 0; j < 4; j++)
        b[j] = p - j >= v.start ? v.d[p - j] : 0u;
    uint32_t x = b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24;
    if (p - 3 >= v.start &&
        !(((x & 0x7F7F7F7Fu) + 0x01010101u) & 0x80808080u)) {
        v.acc |= (uint64_t)x << v.bits;
        v.bits += 32;
        v.in += 32;
        v.last = b[3];
        v.pos = p - 4;
        return;
    }
    for (int j = 0; j < 4; j++) {
        if (p - j < v.start && v.end == SCI_HTS_NO_END)
            v.end = v.in;
        unsigned n = v.last > 0x8F && (b[j] & 0x7F) == 0x7F ? 7 : 8;
        v.acc |= (uint64_t)(b[j] & ((1u << n) - 1)) << v.bits;
        v.bits += n;
        v.in += n;
        v.last = b[j];
    }
    v.pos = p - 4 > v.start - 1 ? p - 4 : v.start - 1;
}

SCI_HTD void vlc_drop(vlc_rd &v, unsigned n) {
    v.acc >>= n;
    v.bits -= n;
    v.out += n;
}

/* The MEL stream, read forwards from the segment's start, MSB first; a
 * byte after 0xFF gives 7 bits; past the segment it reads 0xFF.  The bits
 * wait at the bottom of acc. */
struct mel_rd {
    const uint8_t *d;
    unsigned pos, lcup;
    uint64_t acc;
    unsigned bits;
    int last_ff;
    unsigned k, run;
    int one;
    uint32_t in, out, end;
};

SCI_HTD void mel_fill(mel_rd &m) {
    while (m.bits <= 56) {
        unsigned b = 0xFF;
        if (m.pos < m.lcup)
            b = sci_htd::cup_byte(m.d, m.lcup, m.pos++);
        else if (m.end == SCI_HTS_NO_END)
            m.end = m.in;
        unsigned n = m.last_ff ? 7 : 8;
        m.last_ff = b == 0xFF;
        m.acc = m.acc << n | (b & ((1u << n) - 1));
        m.bits += n;
        m.in += n;
    }
}

/* the next MEL symbol: 0 (a quad pair stays insignificant) or 1 */
SCI_HTD unsigned mel_get(mel_rd &m) {
    if (m.run == 0 && !m.one) {
        if (m.bits < 6)
            mel_fill(m);
        unsigned e = sci_htd::mel_exp(m.k);
        unsigned hit = (unsigned)(m.acc >> (m.bits - 1)) & 1;
        unsigned r = (unsigned)(m.acc >> (m.bits - 1 - e)) & ((1u << e) - 1);
        unsigned used = hit ? 1 : 1 + e;
        m.bits -= used;
        m.out += used;
        m.run = hit ? 1u << e : r;
        m.one = !hit;
        m.k = hit ? (m.k < 12 ? m.k + 1 : 12) : (m.k > 0 ? m.k - 1 : 0);
    }
    if (m.run > 0) {
        m.run--;
        return 0;
    }
    m.one = 0;
    return 1;
}

/* The left quad's part of a quad's context, 3 bits for each rho of the
 * left quad, as codec/j2k/ht_dec.c forms it: on the first line-pair from
 * all four of its samples, below it from its right column only. */
#define SCI_HTS_CQ1(r, rest) \
    ((rest) ? (((r) >> 2 | (r) >> 3) & 1u) << 1 \
            : (((r) | (r) >> 1) & 1u) | ((r) >> 2 & 1u) << 1 | ((r) >> 3 & 1u) << 2)
#define SCI_HTS_CQ4(r, rest) \
    ((uint64_t)SCI_HTS_CQ1(r, rest) | (uint64_t)SCI_HTS_CQ1((r) + 1, rest) << 3 | \
     (uint64_t)SCI_HTS_CQ1((r) + 2, rest) << 6 | (uint64_t)SCI_HTS_CQ1((r) + 3, rest) << 9)
#define SCI_HTS_CQ_LEFT(rest) \
    (SCI_HTS_CQ4(0u, rest) | SCI_HTS_CQ4(4u, rest) << 12 | \
     SCI_HTS_CQ4(8u, rest) << 24 | SCI_HTS_CQ4(12u, rest) << 36)

/* U-VLC prefixes by the next 3 bits: value (bits 0-2), length (3-4) and
 * suffix length (5-7) */
#define SCI_HTS_PFX(b) \
    ((b) & 1 ? 1u | 1u << 3 : (b) & 2 ? 2u | 2u << 3 : (b) & 4 ? 3u | 3u << 3 | 1u << 5 : 5u | 3u << 3 | 5u << 5)
#define SCI_HTS_PFX_TABLE \
    ((uint64_t)SCI_HTS_PFX(0) | (uint64_t)SCI_HTS_PFX(1) << 8 | \
     (uint64_t)SCI_HTS_PFX(2) << 16 | (uint64_t)SCI_HTS_PFX(3) << 24 | \
     (uint64_t)SCI_HTS_PFX(4) << 32 | (uint64_t)SCI_HTS_PFX(5) << 40 | \
     (uint64_t)SCI_HTS_PFX(6) << 48 | (uint64_t)SCI_HTS_PFX(7) << 56)

SCI_HTD unsigned pfx_entry(uint32_t x) {
    return (unsigned)(SCI_HTS_PFX_TABLE >> ((x & 7) * 8)) & 0xFF;
}

/* The U-VLC codes of a quad pair (clause 7.3.6's order: prefixes, then
 * suffixes, then extensions), from one window of at least 24 bits:
 * u0 for the first quad with u_off (or the only one), u1 for the second
 * when both have it.  mel2: the first line-pair's pair whose MEL bit said
 * both u are at least 2.  Returns the bits used. */
SCI_HTD unsigned uvlc_pair(uint32_t x, int both, int first_row, int mel2,
                           unsigned *u0, unsigned *u1) {
    unsigned used = 0;
    unsigned e0 = pfx_entry(x), p0 = e0 & 7, l0 = e0 >> 3 & 3, s0l = e0 >> 5;
    x >>= l0;
    used += l0;
    /* the first line-pair, both u_off, no MEL bit, u0 > 2: u1 is 1 or 2,
     * one bit, and comes before u0's suffix */
    int special = both && first_row && !mel2 && p0 > 2;
    unsigned e1 = both && !special ? pfx_entry(x) : 0;
    unsigned p1 = e1 & 7, l1 = e1 >> 3 & 3, s1l = e1 >> 5;
    unsigned sbit = x & (unsigned)special;
    l1 += (unsigned)special;
    x >>= l1;
    used += l1;
    unsigned s0 = x & ((1u << s0l) - 1);
    x >>= s0l;
    unsigned s1 = x & ((1u << s1l) - 1);
    x >>= s1l;
    used += s0l + s1l;
    unsigned x0l = p0 == 5 && s0 >= 28 ? 4 : 0;
    unsigned x0 = x & ((1u << x0l) - 1);
    x >>= x0l;
    unsigned x1l = p1 == 5 && s1 >= 28 ? 4 : 0;
    unsigned x1 = x & ((1u << x1l) - 1);
    used += x0l + x1l;
    unsigned add = mel2 ? 2 : 0;
    *u0 = add + p0 + s0 + 4 * x0;
    *u1 = special ? 1 + sbit : add + p1 + s1 + 4 * x1;
    return used;
}

/* The cleanup segment's symbols into records in out (rows 0, 2, 4, ...,
 * even columns), using two masks ma, mb of mask_words(qw) words ms apart.
 * A segment whose lengths are wrong gets no records (the warp finds the
 * error itself). */
SCI_HTD uint32_t symbols(const uint16_t *lut2, const uint8_t *cup, size_t lcup,
                         unsigned w, unsigned h, uint32_t *out, size_t stride,
                         uint32_t *ma, uint32_t *mb, unsigned ms) {
    size_t pcup;
    if (sci_ht_dec_split(cup, lcup, &pcup))
        return SCI_HTS_OK;
    mel_rd mel = {cup, (unsigned)pcup, (unsigned)lcup, 0, 0, 0, 0, 0, 0,
                  0, 0, SCI_HTS_NO_END};
    vlc_rd vlc;
    vlc_begin(vlc, cup, (int)lcup, (int)pcup);

    unsigned qw = (w + 1) / 2, qh = (h + 1) / 2;
    for (unsigned qy = 0; qy < qh; qy++) {
        const uint32_t *above = qy & 1 ? mb : ma;
        uint32_t *cur = qy & 1 ? ma : mb;
        uint32_t *rec = out + (size_t)(2 * qy) * stride;
        const uint16_t *lut = lut2 + (qy != 0 ? 1024 : 0);
        int first_row = qy == 0;
        uint64_t cq_left = first_row ? SCI_HTS_CQ_LEFT(0) : SCI_HTS_CQ_LEFT(1);
        unsigned left_rho = 0;
        /* this line-pair's bottom-line significance, words mk and mk + 1 */
        uint64_t sig = 0;
        unsigned mk = 0;
        for (unsigned qx = 0; qx < qw; qx += 2) {
            unsigned e[2] = {0, 0};
            for (unsigned i = 0; i < 2; i++) {
                if (i == 1 && qx + 1 >= qw)
                    break;
                vlc_fill(vlc);
                unsigned x0 = 2 * (qx + i);
                /* the context: the line above's part, then the left
                 * quad's (SCI_HTS_CQ_LEFT), which is on the critical path */
                unsigned s4 = first_row ? 0 : mask4(above, ms, x0);
                unsigned cq = ((s4 | s4 >> 1) & 1) | ((s4 >> 2 | s4 >> 3) & 1) << 2;
                cq |= (unsigned)(cq_left >> (3 * left_rho)) & 7;
                unsigned coded = cq != 0 || mel_get(mel);
                unsigned ent = coded ? lut[cq << 7 | (unsigned)(vlc.acc & 127)] : 0;
                vlc_drop(vlc, ent >> 13);
                e[i] = ent & 0x1FFFu;
                left_rho = ent & 15;
                /* the bottom line, columns x0 and x0 + 1 (none outside) */
                unsigned sb = (left_rho >> 1 & 1) |
                              (x0 + 1 < w ? (left_rho >> 3 & 1) << 1 : 0);
                sig |= (uint64_t)sb << (x0 + 1 - 32 * mk);
            }
            unsigned uo0 = e[0] >> 4 & 1, uo1 = e[1] >> 4 & 1;
            unsigned u0 = 0, u1 = 0;
            if (uo0 | uo1) {
                int both = uo0 & uo1;
                int mel2 = first_row && both && mel_get(mel);
                vlc_fill(vlc);
                unsigned a, b;
                vlc_drop(vlc, uvlc_pair((uint32_t)vlc.acc, both, first_row,
                                        mel2, &a, &b));
                u0 = uo0 ? a : 0;
                u1 = both ? b : uo1 ? a : 0;
            }
            rec[2 * qx] = e[0] | u0 << 13;
            if (qx + 1 < qw)
                rec[2 * qx + 2] = e[1] | u1 << 13;
            if ((qx & 15) == 14) {
                cur[mk * ms] = (uint32_t)sig;
                sig >>= 32;
                mk++;
            }
            if (mel.out > mel.end)
                return qy << 8 | (unsigned)-SCI_HT_DEC_EMEL;
            if (vlc.out > vlc.end)
                return qy << 8 | (unsigned)-SCI_HT_DEC_EVLC;
        }
        cur[mk * ms] = (uint32_t)sig;
        cur[(mk + 1) * ms] = (uint32_t)(sig >> 32);
    }
    return SCI_HTS_OK;
}

} /* namespace sci_hts */

#endif
