/*
 * The parts of the HT block decoder of codec/j2k/ht_dec.c that run on one
 * lane, as device code (ht_dec_sym.cuh decodes the cleanup pass's symbols
 * and ht_dec_warp.cuh its magnitudes): the SigProp and MagRef passes, and
 * the dequantization of sci_j2k_block_decode
 * (codec/j2k/j2k_dec.c), fused: the block's words are decoded straight into
 * its place in the coefficient plane, as sign-magnitude, and turned into
 * int32 (5/3) or float (9/7) coefficients there.  Same streams, same reads
 * past the ends, same damage checks and the same partial output as the C
 * reference, so the planes are equal bit for bit
 * (tests/j2k/parity_j2k_dec.c).
 *
 * The refinement passes keep no significance array: the SigProp pass marks
 * the samples it makes significant with bit 30 of their word (magnitudes
 * have at most 30 bits, 0..29); the mark is cleared after the MagRef pass.
 *
 * Built for the host too (SCI_J2KDEC_EMU: tests/j2k/j2kdec_emu.cpp).
 */
#ifndef SCI_CUDA_HT_DEC_CUH
#define SCI_CUDA_HT_DEC_CUH

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "codec/j2k/ht_dec.h"

#if defined(__CUDACC__)
#define SCI_HTD __host__ __device__ __forceinline__
#define SCI_HTD_NOINLINE __host__ __device__ __noinline__
#else
#define SCI_HTD inline
#define SCI_HTD_NOINLINE
#endif

namespace sci_htd {

#define SCI_HTD_NO_LIMIT UINT64_MAX

SCI_HTD unsigned cup_byte(const uint8_t *d, size_t lcup, size_t pos) {
    if (pos + 1 == lcup)
        return 0xFF;
    if (pos + 2 == lcup)
        return d[pos] | 0x0Fu;
    return d[pos];
}

/* clause 7.3.3's exponents of the 13 MEL states, packed 3 bits each */
SCI_HTD unsigned mel_exp(unsigned k) {
    const uint64_t e = 0ull | 0ull << 3 | 0ull << 6 | 1ull << 9 | 1ull << 12 |
                       1ull << 15 | 2ull << 18 | 2ull << 21 | 2ull << 24 |
                       3ull << 27 | 3ull << 30 | 4ull << 33 | 5ull << 36;
    return (unsigned)(e >> (3 * k)) & 7;
}

/* bit length of 2 mu - 1; 0 for mu = 0 (an insignificant sample) */
SCI_HTD unsigned exponent(uint32_t mu) {
    if (!mu)
        return 0;
    uint32_t x = 2 * mu - 1;
#if defined(__CUDA_ARCH__)
    return 32u - (unsigned)__clz(x);
#else
    unsigned e = 0;
    while (x) {
        e++;
        x >>= 1;
    }
    return e;
#endif
}

struct sp_reader {
    const uint8_t *d;
    size_t pos, end;
    unsigned tmp, bits;
    int last_ff;
};

SCI_HTD unsigned sp_bit(sp_reader *r) {
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

struct mr_reader {
    const uint8_t *d;
    size_t left;
    unsigned tmp, bits, last;
};

SCI_HTD unsigned mr_bit(mr_reader *r) {
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

#define SCI_HTD_NEW 0x40000000u  /* made significant by this SigProp pass */
#define SCI_HTD_MAG 0x7FFFFFFFu

/* significant (after the cleanup pass, or marked new) at (x, y); 0 outside */
SCI_HTD uint32_t sig_at(const uint32_t *out, size_t stride, unsigned w,
                        unsigned h, int x, int y) {
    if (x < 0 || y < 0 || x >= (int)w || y >= (int)h)
        return 0;
    return out[(size_t)y * stride + x] & SCI_HTD_MAG;
}

SCI_HTD_NOINLINE void refinement_passes(const uint8_t *ref, size_t lref,
                                        unsigned w, unsigned h, unsigned p,
                                        unsigned passes, int vcausal,
                                        uint32_t *out, size_t stride) {
    uint32_t half = 1u << (p - 1);
    sp_reader sp = {ref, 0, lref, 0, 0, 0};
    for (unsigned y0 = 0; y0 < h; y0 += 4) {
        unsigned rows = h - y0 < 4 ? h - y0 : 4;
        for (unsigned x0 = 0; x0 < w; x0 += 4) {
            unsigned cols = w - x0 < 4 ? w - x0 : 4;
            /* the samples made significant, in scan order: 4 bits a
             * position (x - x0) * 4 + (y - y0) */
            uint32_t newmask = 0;
            for (unsigned x = x0; x < x0 + cols; x++)
                for (unsigned y = y0; y < y0 + rows; y++) {
                    uint32_t *c = &out[(size_t)y * stride + x];
                    if (*c & SCI_HTD_MAG)
                        continue;
                    int xi = (int)x, yi = (int)y;
                    uint32_t nb = sig_at(out, stride, w, h, xi - 1, yi - 1) |
                                  sig_at(out, stride, w, h, xi, yi - 1) |
                                  sig_at(out, stride, w, h, xi + 1, yi - 1) |
                                  sig_at(out, stride, w, h, xi - 1, yi) |
                                  sig_at(out, stride, w, h, xi + 1, yi);
                    if (!(vcausal && y == y0 + 3))
                        nb |= sig_at(out, stride, w, h, xi - 1, yi + 1) |
                              sig_at(out, stride, w, h, xi, yi + 1) |
                              sig_at(out, stride, w, h, xi + 1, yi + 1);
                    if (!nb || !sp_bit(&sp))
                        continue;
                    *c = SCI_HTD_NEW | half;
                    newmask |= 1u << ((x - x0) * 4 + (y - y0));
                }
            while (newmask) {
                unsigned k = 0;
                while (!(newmask >> k & 1))
                    k++;
                newmask &= newmask - 1;
                unsigned x = x0 + k / 4, y = y0 + k % 4;
                out[(size_t)y * stride + x] |= (uint32_t)sp_bit(&sp) << 31;
            }
        }
    }
    if (passes >= 3) {
        mr_reader mr = {ref, lref, 0, 0, 0xFF};
        for (unsigned y0 = 0; y0 < h; y0 += 4) {
            unsigned rows = h - y0 < 4 ? h - y0 : 4;
            for (unsigned x = 0; x < w; x++)
                for (unsigned y = y0; y < y0 + rows; y++) {
                    uint32_t *c = &out[(size_t)y * stride + x];
                    if ((*c & SCI_HTD_MAG) && !(*c & SCI_HTD_NEW) && mr_bit(&mr))
                        *c |= half;
                }
        }
    }
    for (unsigned y = 0; y < h; y++)
        for (unsigned x = 0; x < w; x++)
            out[(size_t)y * stride + x] &= ~SCI_HTD_NEW;
}

/* sci_j2k_block_decode's reconstruction of the decoded words in place:
 * the lowest plane each sample is known to, the ROI shift (H.1), the
 * half-interval offset, then int32 (reversible) or float (Delta_b, in
 * double as the C code computes it). */
/* One nonzero magnitude m known down to plane lo, negative or not, as the
 * int32 or float coefficient's bits. */
SCI_HTD uint32_t dequant_word(uint32_t m, int neg, unsigned lo, unsigned roi,
                              int rev, double step) {
    if (roi && roi < 32 && m >= (1u << roi)) {
        m >>= roi;
        lo = lo > roi ? lo - roi : 0;
    }
    if (rev) {
        if (lo)
            m += 1u << (lo - 1);
        int32_t q = neg ? -(int32_t)m : (int32_t)m;
        return (uint32_t)q;
    }
    double d = ((double)m + ldexp(0.5, (int)lo)) * step;
    float f = (float)(neg ? -d : d);
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* columns x0, x0 + dx, ... of every row (a lane's share of the block) */
SCI_HTD void dequantize(uint32_t *out, size_t stride, unsigned w, unsigned h,
                        unsigned p, unsigned passes, unsigned roi, int rev,
                        double step, unsigned x0, unsigned dx) {
    for (unsigned y = 0; y < h; y++)
        for (unsigned x = x0; x < w; x += dx) {
            uint32_t *a = &out[(size_t)y * stride + x];
            uint32_t v = *a;
            uint32_t m = v & SCI_HTD_MAG;
            if (!m) {
                *a = 0;
                continue;
            }
            unsigned lo = p;
            if (passes == 3 || (passes == 2 && p && m == 1u << (p - 1)))
                lo = p - 1;
            *a = dequant_word(m, (v & 0x80000000u) != 0, lo, roi, rev, step);
        }
}

} /* namespace sci_htd */

#endif
