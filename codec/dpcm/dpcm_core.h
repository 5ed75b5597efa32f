/*
 * The per-pixel and per-symbol definitions of the online-DPCM format
 * (docs/dpcm-format.md) as inline functions that the C reference
 * (codec/dpcm/dpcm.c) and the CUDA kernels (cuda/dpcm/dpcm.cu) both compile, so the
 * two backends share one text of every rule that must agree to the bit:
 * the least-squares solve, the predictor's dot product and rounding, the
 * residual contexts and classes, the adaptive class models and the range
 * coder.  Keep it free of anything a device cannot run (no libc beyond
 * <math.h>'s fabs/floor, no allocation).
 */
#ifndef SCI_CODEC_DPCM_CORE_H
#define SCI_CODEC_DPCM_CORE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "dpcm.h"

#if defined(__CUDACC__)
#define SCI_DPCM_HD __host__ __device__
#else
#define SCI_DPCM_HD
#endif

/* ------------------------------------------------------------------ */
/* Prediction */

/* Weights of pixel (x, y), y >= 1, x >= 2: every sample to the left, up
 * to N. */
static inline SCI_DPCM_HD unsigned sci_dpcm_order_at(unsigned order_n,
                                                     unsigned x) {
    return x < order_n ? x : order_n;
}

/* First equation position of column x's window (its last is x). */
static inline SCI_DPCM_HD unsigned sci_dpcm_window_lo(unsigned order_n,
                                                      unsigned eq_m,
                                                      unsigned x) {
    unsigned a = sci_dpcm_order_at(order_n, x);
    unsigned b = x + 1 >= eq_m ? x + 1 - eq_m : 0;
    return a > b ? a : b;
}

/* Packed upper-triangular index of (i, j), i <= j, in an n x n matrix. */
static inline SCI_DPCM_HD unsigned sci_dpcm_packed(unsigned n, unsigned i,
                                                   unsigned j) {
    return i * n - i * (i - 1) / 2 + (j - i);
}

/* Adds row r's window sums of column x (docs/dpcm-format.md: the outer
 * products v_j v_j^T and v_j s(j, r) over the window's positions j, with
 * v_j = (s(j-1, r), ..., s(j-N, r)) and 0 left of the row) to the packed
 * sums of order N (entry t at sums[t * stride]).  row[i] holds column
 * base + i: a caller may pass only columns x - N - M + 1 .. x. */
static inline SCI_DPCM_HD void sci_dpcm_add_window_at(
    unsigned order_n, unsigned eq_m, const uint16_t *row, unsigned base,
    unsigned x, int64_t *sums, size_t stride) {
    const unsigned pn = order_n * (order_n + 1) / 2;
    for (unsigned j = sci_dpcm_window_lo(order_n, eq_m, x); j <= x; j++) {
        uint32_t v[32];
        for (unsigned k = 0; k < order_n; k++)
            v[k] = j >= k + 1 ? row[j - 1 - k - base] : 0;
        unsigned t = 0;
        for (unsigned i = 0; i < order_n; i++)
            for (unsigned k = i; k < order_n; k++)
                sums[(size_t)(t++) * stride] += (int64_t)((uint64_t)v[i] * v[k]);
        for (unsigned i = 0; i < order_n; i++)
            sums[(size_t)(pn + i) * stride] +=
                (int64_t)((uint64_t)v[i] * row[j - base]);
    }
}

static inline SCI_DPCM_HD void sci_dpcm_add_window(unsigned order_n,
                                                   unsigned eq_m,
                                                   const uint16_t *row,
                                                   unsigned x, int64_t *sums,
                                                   size_t stride) {
    sci_dpcm_add_window_at(order_n, eq_m, row, 0, x, sums, stride);
}

/* One elimination step of a row: rr[k] = rr[k] - f * rc[k] for k = from
 * .. to (entry k at k * stride), four entries' loads before their stores:
 * a compiler cannot tell that rows r and c never overlap, and a device
 * thread would otherwise wait out every load. */
static inline SCI_DPCM_HD void sci_dpcm_eliminate(double *rr, const double *rc,
                                                  size_t stride, unsigned from,
                                                  unsigned to, double f) {
    unsigned k = from;
    for (; k + 4 <= to + 1; k += 4) {
        double p0 = rc[k * stride], p1 = rc[(k + 1) * stride];
        double p2 = rc[(k + 2) * stride], p3 = rc[(k + 3) * stride];
        double q0 = rr[k * stride], q1 = rr[(k + 1) * stride];
        double q2 = rr[(k + 2) * stride], q3 = rr[(k + 3) * stride];
        rr[k * stride] = q0 - f * p0;
        rr[(k + 1) * stride] = q1 - f * p1;
        rr[(k + 2) * stride] = q2 - f * p2;
        rr[(k + 3) * stride] = q3 - f * p3;
    }
    for (; k <= to; k++)
        rr[k * stride] = rr[k * stride] - f * rc[k * stride];
}

/* Gauss-Jordan elimination with partial pivoting in the one order of
 * operations of docs/dpcm-format.md ("Solve").  A is n x (n + 1), entry
 * (i, j) at A[(i (n + 1) + j) * step] (step > 1: interleaved with other
 * threads' systems in shared memory), b in column n; it is destroyed.
 * Writes the n weights and returns 1, or returns 0 when the system is
 * singular. */
static inline SCI_DPCM_HD int sci_dpcm_solve_core(unsigned n, double *A,
                                                  size_t step, double *a) {
    const unsigned s = n + 1;
#define SCI_DPCM_A(i, j) A[(size_t)((i) * s + (j)) * step]
    double scale = 0.0;
    for (unsigned i = 0; i < n; i++)
        if (SCI_DPCM_A(i, i) > scale)
            scale = SCI_DPCM_A(i, i);
    if (!(scale > 0.0))
        return 0;
    double thr = scale * SCI_DPCM_PIVOT_EPS;
    for (unsigned c = 0; c < n; c++) {
        unsigned p = c;
        double best = fabs(SCI_DPCM_A(c, c));
        for (unsigned r = c + 1; r < n; r++)
            if (fabs(SCI_DPCM_A(r, c)) > best) {
                best = fabs(SCI_DPCM_A(r, c));
                p = r;
            }
        if (!(best > thr))
            return 0;
        if (p != c)
            for (unsigned k = c; k <= n; k++) {
                double t = SCI_DPCM_A(c, k);
                SCI_DPCM_A(c, k) = SCI_DPCM_A(p, k);
                SCI_DPCM_A(p, k) = t;
            }
        /* one division a column: the rows scale by its reciprocal */
        double inv = 1.0 / SCI_DPCM_A(c, c);
        for (unsigned r = 0; r < n; r++) {
            if (r == c)
                continue;
            double f = SCI_DPCM_A(r, c) * inv;
            sci_dpcm_eliminate(&SCI_DPCM_A(r, 0), &SCI_DPCM_A(c, 0), step,
                               c + 1, n, f);
        }
    }
    for (unsigned i = 0; i < n; i++)
        a[i] = SCI_DPCM_A(i, n) / SCI_DPCM_A(i, i);
#undef SCI_DPCM_A
    return 1;
}

/* Loads the leading n x n block and n entries of b from sums packed for
 * order big_n (big_n (big_n + 1) / 2 matrix entries, then big_n of b;
 * entry t at sums[t * stride]) into A (laid out as sci_dpcm_solve_core
 * reads it). */
static inline SCI_DPCM_HD void sci_dpcm_load_system(unsigned big_n,
                                                    unsigned n,
                                                    const int64_t *sums,
                                                    size_t stride, double *A,
                                                    size_t step) {
    const unsigned s = n + 1, pn = big_n * (big_n + 1) / 2;
    for (unsigned i = 0; i < n; i++) {
        for (unsigned j = i; j < n; j++) {
            double v = (double)sums[sci_dpcm_packed(big_n, i, j) * stride];
            A[(size_t)(i * s + j) * step] = v;
            A[(size_t)(j * s + i) * step] = v;
        }
        A[(size_t)(i * s + n) * step] = (double)sums[(pn + i) * stride];
    }
}

/* The weighted sum of the n samples left of `cur` (cur[-1] .. cur[-n])
 * with weights a[0..n-1], oldest sample first: the newest one enters last,
 * so a decoder's wait for it is one multiply and one add. */
static inline SCI_DPCM_HD double sci_dpcm_dot(unsigned n, const double *a,
                                              const uint16_t *cur) {
    double p = 0.0;
    for (unsigned k = n; k-- > 0;)
        p = p + a[k] * (double)cur[-1 - (int)k];
    return p;
}

/* floor(p + 0.5) clamped to [0, maxval]; NaN gives 0. */
static inline SCI_DPCM_HD uint32_t sci_dpcm_round(double p, uint32_t maxval) {
    double q = floor(p + 0.5);
    if (!(q >= 0.0))
        return 0;
    if (q >= (double)maxval)
        return maxval;
    return (uint32_t)q;
}

/* ------------------------------------------------------------------ */
/* Residual classes and contexts */

#define SCI_DPCM_CONTEXTS 8u
#define SCI_DPCM_EXACT 8u                   /* classes 0..7: u itself */
#define SCI_DPCM_ESCAPE 36u                 /* the escape class */
#define SCI_DPCM_CLASSES 37u
#define SCI_DPCM_MODEL_INC 32u
#define SCI_DPCM_MODEL_LIMIT (1u << 16)

static inline SCI_DPCM_HD unsigned sci_dpcm_bitlen(uint32_t v) {
#if defined(__CUDA_ARCH__)
    return 32 - (unsigned)__clz((int)v);
#else
    return v ? 32 - (unsigned)__builtin_clz(v) : 0;
#endif
}

/* Context of a residual from the magnitudes of its coded neighbours
 * (0 where absent): a = 2|left| + 2|up| + |up-left| + |up-right|. */
static inline SCI_DPCM_HD unsigned sci_dpcm_context(uint32_t a) {
    unsigned l = sci_dpcm_bitlen(a + 1) - 1; /* floor(log2(a + 1)) */
    return l < 2 ? 0 : (l - 2 < SCI_DPCM_CONTEXTS - 1 ? l - 2
                                                      : SCI_DPCM_CONTEXTS - 1);
}

/* Class of the folded residual u = 2e (e >= 0) or -2e - 1, and how many
 * low bits of u follow it verbatim. */
static inline SCI_DPCM_HD unsigned sci_dpcm_class(uint32_t u,
                                                  unsigned *raw_bits) {
    if (u < SCI_DPCM_EXACT) {
        *raw_bits = 0;
        return u;
    }
    unsigned b = sci_dpcm_bitlen(u); /* >= 4 */
    *raw_bits = b - 2;
    return SCI_DPCM_EXACT + 2 * (b - 4) + ((u >> (b - 2)) & 1);
}

/* The smallest u of class c (< SCI_DPCM_ESCAPE) and its verbatim bits. */
static inline SCI_DPCM_HD uint32_t sci_dpcm_class_base(unsigned c,
                                                       unsigned *raw_bits) {
    if (c < SCI_DPCM_EXACT) {
        *raw_bits = 0;
        return c;
    }
    unsigned b = (c - SCI_DPCM_EXACT) / 2 + 4;
    *raw_bits = b - 2;
    return (2u | ((c - SCI_DPCM_EXACT) & 1)) << (b - 2);
}

/* Adaptive frequencies of the classes, one set per context. */
typedef struct {
    uint32_t freq[SCI_DPCM_CONTEXTS][SCI_DPCM_CLASSES];
    uint32_t total[SCI_DPCM_CONTEXTS];
} sci_dpcm_models;

static inline SCI_DPCM_HD void sci_dpcm_models_init(sci_dpcm_models *m) {
    for (unsigned c = 0; c < SCI_DPCM_CONTEXTS; c++) {
        for (unsigned s = 0; s < SCI_DPCM_CLASSES; s++)
            m->freq[c][s] = 1;
        m->total[c] = SCI_DPCM_CLASSES;
    }
}

static inline SCI_DPCM_HD void sci_dpcm_models_update(sci_dpcm_models *m,
                                                      unsigned c,
                                                      unsigned s) {
    m->freq[c][s] += SCI_DPCM_MODEL_INC;
    m->total[c] += SCI_DPCM_MODEL_INC;
    if (m->total[c] > SCI_DPCM_MODEL_LIMIT) {
        uint32_t t = 0;
        for (unsigned i = 0; i < SCI_DPCM_CLASSES; i++) {
            m->freq[c][i] = (m->freq[c][i] + 1) >> 1;
            t += m->freq[c][i];
        }
        m->total[c] = t;
    }
}

/* ------------------------------------------------------------------ */
/* Range coder: LZMA's carry-propagating scheme on a 40-bit interval.  A
 * value of frequency f at cumulative frequency c out of a total t
 * (t <= 2^24) narrows the interval to r = floor(range / t);
 * low += r c; range = r f. */

#define SCI_RC_TOP (1ull << 32)
#define SCI_RC_BITS 40
#define SCI_RC_MIN_BYTES 6u /* an empty message */

typedef struct {
    uint8_t *buf;
    size_t cap, pos; /* pos counts every byte, also those past cap */
    uint64_t low, range, cache_size;
    uint8_t cache;
} sci_rc_enc;

typedef struct {
    const uint8_t *buf;
    size_t len, pos;
    uint64_t code, range;
    int error; /* read past the end, or an impossible code */
} sci_rc_dec;

/* floor(a / b) for a < 2^42, b >= 1.  A device divides 64-bit integers in
 * a long subroutine; the double quotient by b's reciprocal is within one
 * of the result, and a step either way makes it exact.  A host divides. */
static inline SCI_DPCM_HD uint64_t sci_rc_div(uint64_t a, uint64_t b) {
#if defined(__CUDA_ARCH__)
    uint64_t q = (uint64_t)((double)a * __drcp_rn((double)b));
    if (q * b > a)
        q--;
    else if ((q + 1) * b <= a)
        q++;
    return q;
#else
    return a / b;
#endif
}

/* floor((2^64 - 1) / b): sci_rc_div_inv's inverse of b, which a coder can
 * take before it needs it (0 on a host, which does not use it). */
static inline SCI_DPCM_HD uint64_t sci_rc_inv(uint64_t b) {
#if defined(__CUDA_ARCH__)
    return ~0ull / b;
#else
    (void)b;
    return 0;
#endif
}

/* floor(a / b) for a < 2^42 by the high half of a * inv (inv =
 * sci_rc_inv(b)): that is the quotient or one less, as inv is at most 2
 * below 2^64 / b. */
static inline SCI_DPCM_HD uint64_t sci_rc_div_inv(uint64_t a, uint64_t b,
                                                  uint64_t inv) {
#if defined(__CUDA_ARCH__)
    uint64_t q = __umul64hi(a, inv);
    return (q + 1) * b <= a ? q + 1 : q;
#else
    (void)inv;
    return a / b;
#endif
}

static inline SCI_DPCM_HD void sci_rc_enc_init(sci_rc_enc *e, uint8_t *buf,
                                               size_t cap) {
    e->buf = buf;
    e->cap = cap;
    e->pos = 0;
    e->low = 0;
    e->range = (1ull << SCI_RC_BITS) - 1;
    e->cache = 0;
    e->cache_size = 1;
}

/* Moves the top byte of low (bits 32..39) into the cache; the cache and
 * the run of 0xFF bytes after it leave once no carry can reach them. */
static inline SCI_DPCM_HD void sci_rc_shift_low(sci_rc_enc *e) {
    if (e->low < (0xFFull << 32) || e->low >= (1ull << SCI_RC_BITS)) {
        uint8_t carry = (uint8_t)(e->low >> SCI_RC_BITS);
        uint8_t b = e->cache;
        do {
            if (e->pos < e->cap)
                e->buf[e->pos] = (uint8_t)(b + carry);
            e->pos++;
            b = 0xFF;
        } while (--e->cache_size);
        e->cache = (uint8_t)(e->low >> 32);
    }
    e->cache_size++;
    e->low = (e->low & 0xFFFFFFFFull) << 8;
}

/* The interval narrowed to r's multiples cum .. cum + freq. */
static inline SCI_DPCM_HD void sci_rc_narrow(sci_rc_enc *e, uint64_t r,
                                             uint32_t cum, uint32_t freq) {
    e->low += r * cum;
    e->range = r * freq;
    while (e->range < SCI_RC_TOP) {
        e->range <<= 8;
        sci_rc_shift_low(e);
    }
}

static inline SCI_DPCM_HD void sci_rc_encode(sci_rc_enc *e, uint32_t cum,
                                             uint32_t freq, uint32_t total) {
    sci_rc_narrow(e, sci_rc_div(e->range, total), cum, freq);
}

/* sci_rc_encode with inv = sci_rc_inv(total) */
static inline SCI_DPCM_HD void sci_rc_encode_inv(sci_rc_enc *e, uint32_t cum,
                                                 uint32_t freq, uint32_t total,
                                                 uint64_t inv) {
    sci_rc_narrow(e, sci_rc_div_inv(e->range, total, inv), cum, freq);
}

/* sci_rc_encode(e, v, 1, 2^bits) without its division: floor(range /
 * 2^bits) is a shift. */
static inline SCI_DPCM_HD void sci_rc_encode_bits(sci_rc_enc *e, uint32_t v,
                                                  unsigned bits) {
    sci_rc_narrow(e, e->range >> bits, v, 1);
}

/* The message's bytes; more than cap when it did not fit (only the first
 * cap were written). */
static inline SCI_DPCM_HD size_t sci_rc_enc_finish(sci_rc_enc *e) {
    for (int i = 0; i < 6; i++)
        sci_rc_shift_low(e);
    return e->pos;
}

static inline SCI_DPCM_HD uint8_t sci_rc_get_byte(sci_rc_dec *d) {
    if (d->pos < d->len)
        return d->buf[d->pos++];
    d->error = 1;
    return 0;
}

/* Nonzero (and the decoder flags an error) when the message does not start
 * as every message of this coder does (a 0 byte). */
static inline SCI_DPCM_HD int sci_rc_dec_init(sci_rc_dec *d,
                                              const uint8_t *buf, size_t len) {
    d->buf = buf;
    d->len = len;
    d->pos = 0;
    d->error = 0;
    d->range = (1ull << SCI_RC_BITS) - 1;
    d->code = 0;
    if (sci_rc_get_byte(d) != 0)
        d->error = 1;
    for (int i = 0; i < 5; i++)
        d->code = (d->code << 8) | sci_rc_get_byte(d);
    return d->error;
}

/* The value v in [0, total) the next symbol was coded at (sets r); total
 * when the code is impossible (then d->error is set). */
static inline SCI_DPCM_HD uint32_t sci_rc_peek(sci_rc_dec *d, uint32_t total,
                                               uint64_t *r) {
    *r = sci_rc_div(d->range, total);
    uint64_t v = sci_rc_div(d->code, *r);
    if (v >= total) {
        d->error = 1;
        return total;
    }
    return (uint32_t)v;
}

/* sci_rc_peek for a total of 2^bits (the verbatim values): the first
 * quotient is a shift, one division less on the decoder's chain. */
static inline SCI_DPCM_HD uint32_t sci_rc_peek_bits(sci_rc_dec *d,
                                                    unsigned bits,
                                                    uint64_t *r) {
    *r = d->range >> bits;
    uint64_t v = sci_rc_div(d->code, *r);
    if (v >> bits) {
        d->error = 1;
        return 1u << bits;
    }
    return (uint32_t)v;
}

static inline SCI_DPCM_HD void sci_rc_consume(sci_rc_dec *d, uint64_t r,
                                              uint32_t cum, uint32_t freq) {
    d->code -= r * cum;
    d->range = r * freq;
    while (d->range < SCI_RC_TOP) {
        d->range <<= 8;
        d->code = (d->code << 8) | sci_rc_get_byte(d);
    }
}

/* ------------------------------------------------------------------ */
/* Segments: the residuals of rows [y0, y0 + rows) of a frame w wide, coded
 * alone (fresh models and coder), so segments code and decode in
 * parallel. */

/* Rows of segment i of a frame h high cut into segments of seg_rows. */
static inline SCI_DPCM_HD unsigned sci_dpcm_segment_height(unsigned h,
                                                           unsigned seg_rows,
                                                           unsigned i) {
    unsigned y0 = i * seg_rows;
    return h - y0 < seg_rows ? h - y0 : seg_rows;
}

static inline SCI_DPCM_HD uint32_t sci_dpcm_abs(int32_t v) {
    return v < 0 ? (uint32_t)(-(int64_t)v) : (uint32_t)v;
}

/* The row above's part of a context, 2|up| + |up-left| + |up-right|, of
 * column x (x < w) of that row: a decoder can take it for many columns
 * before their left neighbours are known. */
static inline SCI_DPCM_HD uint32_t sci_dpcm_context_above(const int32_t *up,
                                                          unsigned w,
                                                          unsigned x) {
    uint32_t a = 2 * sci_dpcm_abs(up[x]);
    if (x > 0)
        a += sci_dpcm_abs(up[x - 1]);
    if (x + 1 < w)
        a += sci_dpcm_abs(up[x + 1]);
    return a;
}

/* Context of residual (x, yy) of a segment (yy: row within it) whose
 * residuals up to (x-1, yy) are in seg (row stride w). */
static inline SCI_DPCM_HD unsigned sci_dpcm_context_at(const int32_t *seg,
                                                       unsigned w, unsigned x,
                                                       unsigned yy) {
    const int32_t *row = seg + (size_t)yy * w;
    uint32_t a = yy > 0 ? sci_dpcm_context_above(row - w, w, x) : 0;
    if (x > 0)
        a += 2 * sci_dpcm_abs(row[x - 1]);
    return sci_dpcm_context(a);
}

/* How residual v is coded: its class *s, then *raw as a value of *bits
 * bits (0: nothing follows).  Returns 1 when it is escaped (outside
 * [t_lo, t_hi]). */
static inline SCI_DPCM_HD unsigned sci_dpcm_symbol(int32_t v, unsigned depth,
                                                   int32_t t_lo, int32_t t_hi,
                                                   unsigned *s, uint32_t *raw,
                                                   unsigned *bits) {
    if (v < t_lo || v > t_hi) {
        *s = SCI_DPCM_ESCAPE;
        *raw = (uint32_t)(v + (int32_t)((1u << depth) - 1));
        *bits = depth + 1;
        return 1;
    }
    uint32_t u = v >= 0 ? 2u * (uint32_t)v : 2u * (uint32_t)(-(int64_t)v) - 1;
    *s = sci_dpcm_class(u, bits);
    *raw = u & ((1u << *bits) - 1);
    return 0;
}

/* Codes class s (cum: the frequencies below it, freq its own, out of
 * total; inv: sci_rc_inv(total)) and the verbatim value; the caller
 * updates the model. */
static inline SCI_DPCM_HD void sci_dpcm_code_values(sci_rc_enc *e,
                                                    uint32_t cum,
                                                    uint32_t freq,
                                                    uint32_t total,
                                                    uint64_t inv, uint32_t raw,
                                                    unsigned bits) {
    sci_rc_encode_inv(e, cum, freq, total, inv);
    /* bits = 0 (raw = 0) leaves the coder as it is: no branch needed */
    sci_rc_encode_bits(e, raw, bits);
}

static inline SCI_DPCM_HD void sci_dpcm_code_symbol(const sci_dpcm_models *m,
                                                    sci_rc_enc *e, unsigned c,
                                                    unsigned s, uint32_t cum,
                                                    uint32_t raw,
                                                    unsigned bits) {
    sci_dpcm_code_values(e, cum, m->freq[c][s], m->total[c],
                         sci_rc_inv(m->total[c]), raw, bits);
}

/* After class s was decoded: its verbatim bits and the residual, checked
 * against what an encoder writes.  0, or SCI_DPCM_E_ENTROPY /
 * SCI_DPCM_E_ESCAPES; *escaped counts an escape. */
static inline SCI_DPCM_HD int sci_dpcm_decode_value(sci_rc_dec *d, unsigned s,
                                                    unsigned depth,
                                                    int32_t t_lo, int32_t t_hi,
                                                    int32_t *val,
                                                    uint32_t *escaped) {
    const int32_t maxval = (int32_t)((1u << depth) - 1);
    uint64_t r;
    if (s == SCI_DPCM_ESCAPE) {
        uint32_t raw = sci_rc_peek_bits(d, depth + 1, &r);
        if (d->error)
            return SCI_DPCM_E_ENTROPY;
        sci_rc_consume(d, r, raw, 1);
        *val = (int32_t)raw - maxval;
        if (*val > maxval || (*val >= t_lo && *val <= t_hi))
            return SCI_DPCM_E_ESCAPES;
        ++*escaped;
    } else {
        unsigned nraw;
        uint32_t u = sci_dpcm_class_base(s, &nraw);
        if (nraw) {
            uint32_t raw = sci_rc_peek_bits(d, nraw, &r);
            if (d->error)
                return SCI_DPCM_E_ENTROPY;
            sci_rc_consume(d, r, raw, 1);
            u |= raw;
        }
        *val = (u & 1) ? -(int32_t)((u + 1) >> 1) : (int32_t)(u >> 1);
        if (*val < t_lo || *val > t_hi)
            return SCI_DPCM_E_ENTROPY;
    }
    return d->error ? SCI_DPCM_E_ENTROPY : 0;
}

/* Codes one segment into e (its bytes: sci_rc_enc_finish's value); m is
 * scratch.  Counts the escaped residuals into *escapes.  The residuals must
 * lie in [-maxval, maxval]. */
static inline SCI_DPCM_HD void sci_dpcm_code_segment(
    const int32_t *seg, unsigned w, unsigned rows, unsigned depth,
    int32_t t_lo, int32_t t_hi, sci_dpcm_models *m, sci_rc_enc *e,
    uint32_t *escapes) {
    uint32_t esc = 0;
    sci_dpcm_models_init(m);
    for (unsigned yy = 0; yy < rows; yy++)
        for (unsigned x = 0; x < w; x++) {
            unsigned c = sci_dpcm_context_at(seg, w, x, yy), s, bits;
            uint32_t raw;
            esc += sci_dpcm_symbol(seg[(size_t)yy * w + x], depth, t_lo, t_hi,
                                   &s, &raw, &bits);
            uint32_t cum = 0;
            for (unsigned i = 0; i < s; i++)
                cum += m->freq[c][i];
            sci_dpcm_code_symbol(m, e, c, s, cum, raw, bits);
            sci_dpcm_models_update(m, c, s);
        }
    *escapes += esc;
}

/* Decodes one segment of exactly len bytes into seg; 0, or
 * SCI_DPCM_E_ENTROPY / SCI_DPCM_E_ESCAPES at the first residual
 * that no encoder writes.  Counts escapes into *escapes. */
static inline SCI_DPCM_HD int sci_dpcm_decode_segment(
    const uint8_t *in, size_t len, unsigned w, unsigned rows, unsigned depth,
    int32_t t_lo, int32_t t_hi, sci_dpcm_models *m, int32_t *seg,
    uint32_t *escapes) {
    sci_rc_dec d;
    if (sci_rc_dec_init(&d, in, len))
        return SCI_DPCM_E_ENTROPY;
    sci_dpcm_models_init(m);
    uint32_t esc = 0;
    for (unsigned yy = 0; yy < rows; yy++)
        for (unsigned x = 0; x < w; x++) {
            unsigned c = sci_dpcm_context_at(seg, w, x, yy);
            uint64_t r;
            uint32_t v = sci_rc_peek(&d, m->total[c], &r);
            if (d.error)
                return SCI_DPCM_E_ENTROPY;
            unsigned s = 0;
            uint32_t cum = 0;
            while (cum + m->freq[c][s] <= v) /* v < total: stops by 36 */
                cum += m->freq[c][s++];
            sci_rc_consume(&d, r, cum, m->freq[c][s]);
            int32_t val;
            int st = sci_dpcm_decode_value(&d, s, depth, t_lo, t_hi, &val, &esc);
            if (st)
                return st;
            seg[(size_t)yy * w + x] = val;
            sci_dpcm_models_update(m, c, s);
        }
    if (d.pos != len)
        return SCI_DPCM_E_ENTROPY;
    *escapes += esc;
    return 0;
}

#endif
