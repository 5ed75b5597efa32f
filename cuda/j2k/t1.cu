/*
 * Tier-1 of JPEG 2000 Part 1 on the GPU (cuda/j2k/t1.h; docs/ebcot.md, "GPU
 * Tier-1").
 *
 * Kernels, per batch of code-blocks (one batch unless the frame's pair
 * buffers would pass T1_BATCH_BYTES):
 *   t1_model  a warp a code-block: quantization from the coefficient
 *             buffer into the block's samples (stripe-column order, four
 *             words a column), then the bit-parallel context modeller of
 *             codec/j2k/t1_par.c, pass by pass, writing the (CX, D) pairs of
 *             every pass in the standard's coding order (one byte each:
 *             cx << 1 | d, or PB_RAW | d in a raw pass, and PB_END after
 *             each pass) and each pass's exact distortion decrease.
 *   t1_plan   one CTA: the blocks sorted by decision count, largest first
 *             (the MQ kernel's critical path is its longest block).
 *   t1_mq     a thread a code-block (the longest blocks one a warp, the
 *             rest four a warp): the MQ and raw coders of codec/j2k/mq.c over
 *             that byte stream, 16 bytes a round, each decision's context
 *             loaded before the one before it is stored (forwarded when
 *             they are the same), with the segment rules of t1_ctx.h's
 *             t1_out at each PB_END, then the pass lengths (sci_mq_cut_len
 *             on the final bytes).
 *   t1_scan   exclusive scan of the codeword lengths (one CTA).
 *   t1_pack   a warp a block: its codeword to its packed place, which alone
 *             crosses to the host.
 *
 * The modeller.  State per stripe column (4 rows) is one word in shared
 * memory, the block surrounded by a border of zero words so that every
 * column has its 8 neighbours:
 *   bits 0-3 SIG (rho != 0), 4-7 REF (rho == 2), 8-11 VIS (tau == 1,
 *   coded by this plane's significance pass), 12-15 NEG (sign), 16-19 NU
 *   (became significant in the pass being modelled, not yet committed).
 * A lane reads the 3 x 3 words around its column, whose rows -1..4 give
 * every neighbour of its four samples.  As codec/j2k/t1_par.c proves, a
 * neighbour's new significance counts for a sample iff the neighbour comes
 * earlier in the stripe scan: the left column, the rows above in the own
 * column and the stripe above do, the right column, the rows below and the
 * stripe below do not.  Those are positions, not times, so a column's pairs
 * depend only on the words (with NU) and its magnitudes.  Each pass then
 * is one sweep over the block in scan order, 32 stripe columns a step: the
 * lanes form their columns' pairs (at most 10), an exclusive warp scan of
 * the counts places them, and each lane commits its column (NU into SIG,
 * VIS and REF as the pass says) once every lane has read its neighbours.
 * Columns of earlier steps are committed, later ones are not: with the
 * position rule both read the same.
 *
 * NU comes first.  Cleanup: a visited sample becomes significant iff its
 * bit is 1 (t1_par.c), one step.  Significance propagation: the chain of
 * t1_par.c's column transfer functions, stripe by stripe.  Column x's new
 * significance bits are f_x(L), L those of column x - 1: row k becomes
 * significant iff it is a candidate (insignificant, bit 1) and has a
 * significant neighbour that is fixed already (SIG anywhere, or NU of the
 * stripe above), or one of rows k-1..k+1 of L, or row k-1 of its own
 * output.  Such an f has the form f(L)_k = A_k | (L & T_k != 0): A is 4
 * bits, T a 4 x 4 boolean matrix, 20 bits in one word (t1_par.c tabulates
 * it as 16 entries); the form is closed under composition (a boolean
 * matrix product), so a warp scan of 5 shuffles composes the prefix
 * F_x = f_x o ... o f_0 and F_x(carry) is column x's NU.
 *
 * Exactness: the pairs are those of sci_t1_encode (test parity-t1); the
 * distortion terms are t1_ctx.h's int64s, summed per lane and across the
 * warp in 128 bits (exact, so the order of the sum does not matter) and
 * rounded once to double; the MQ kernel is codec/j2k/mq.c's arithmetic.
 *
 * A block's codeword goes to a device slot sized by a bound that real
 * data stays far below (2 bits a possible decision); a block that
 * outgrows it (never seen; tests force it) is coded again on the host with
 * sci_t1_encode, from its coefficients.
 *
 * Built with SCI_T1_EMU, the kernels become host loops over the same
 * device functions (the modeller's warp as 32 coroutines), for checking
 * them without a GPU (tests/j2k/t1_emu.cpp).
 */
#include <cuda_runtime.h>

#ifdef SCI_T1_EMU
#include "cuda/common/warp_emu.h"
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codec/j2k/t1_rules.h"
#include "cuda/common/devbuf.cuh"
#include "t1.h"

#if defined(__CUDACC__) && !defined(SCI_T1_EMU)
#define T1_D __device__ __forceinline__
#define T1_HD __host__ __device__ __forceinline__
#define T1_CLZ(x) __clz(x)
#define T1_CLZLL(x) __clzll(x)
#define T1_POPC(x) __popc(x)
#define T1_FFS(x) __ffs(x)
#else
#define T1_D static inline
#define T1_HD static inline
#define T1_CLZ(x) __builtin_clz(x)
#define T1_CLZLL(x) __builtin_clzll(x)
#define T1_POPC(x) __builtin_popcount(x)
#define T1_FFS(x) __builtin_ffs(x)
#endif

#define T1_SIGN 0x80000000u
/* Pair buffers of one batch at most: this or a sixteenth of the device's
 * memory, whichever is more (a frame whose blocks need more is coded in
 * several batches, one after the other; each batch's MQ kernel then has
 * its own tail of long chains). */
#define T1_BATCH_BYTES ((size_t)768 << 20)
#define MODEL_WARPS 4   /* code-blocks a CTA of the modeller */
#define MQ_NT 128
#define SCAN_NT 1024
#define PACK_NT 256

enum { K_SPP = 0, K_MRP = 1, K_CUP = 2 };

/* The pair stream: a byte a decision, cx << 1 | d in an MQ pass,
 * PB_RAW | d in a raw one, and PB_END after each pass. */
#define PB_RAW 0x80u
#define PB_END 0xFEu

/* ---- device data ----------------------------------------------------------- */

typedef struct {
    unsigned long long base;  /* first coefficient, in samples */
    unsigned long long smp;   /* its samples in the batch's sample buffer */
    unsigned long long pairs; /* its pairs in the batch's pair buffer */
    unsigned long long slot;  /* its codeword slot in the batch's slots */
    uint32_t stride;
    uint32_t slot_cap;
    uint16_t w, h;
    uint8_t band, nbp, style, pad;
    float inv_step;
} t1_blk;

typedef struct {
    uint32_t len;       /* codeword bytes */
    uint8_t passes;
    uint8_t zero_planes;
    uint8_t status;     /* 0 ok, 1 magnitude out of range, 2 slot too small */
    uint8_t pad;
} t1_bres;

#define ST_RANGE 1
#define ST_SLOT 2

typedef struct {
    const t1_blk *blk;
    const void *coeffs;
    uint32_t *smp;           /* batch: samples */
    uint8_t *pairs;          /* batch: (CX, D) pairs */
    uint8_t *slots;          /* batch: codewords */
    uint4 *marks;            /* batch: MQ state at the end of each pass */
    t1_bres *bres;           /* frame: per block */
    double *dist;            /* frame: per block and pass (stride apart) */
    unsigned long long *plen;
    uint8_t *term;
    uint32_t *sym;           /* cumulative pairs; bit 31: raw pass */
    const uint32_t *order;   /* batch: blocks in MQ lane order */
    unsigned first, count;   /* the batch: blocks first..first+count-1 */
    unsigned stride;         /* entries per block in the per-pass arrays */
    unsigned words;          /* state words per warp */
    unsigned heavy;          /* MQ: warps of one block, the longest */
    unsigned lanes;          /* MQ: blocks a warp after those */
} t1_kp;

/* ---- warp operations ------------------------------------------------------- */

#if defined(__CUDACC__) && !defined(SCI_T1_EMU)
#define T1_FULL 0xffffffffu
T1_D uint32_t w_up(uint32_t v, unsigned d) { return __shfl_up_sync(T1_FULL, v, d); }
T1_D uint32_t w_idx(uint32_t v, int src) { return __shfl_sync(T1_FULL, v, src); }
T1_D uint32_t w_xor(uint32_t v, int m) { return __shfl_xor_sync(T1_FULL, v, m); }
T1_D unsigned long long w_xor64(unsigned long long v, int m) {
    return __shfl_xor_sync(T1_FULL, v, m);
}
T1_D uint32_t w_ballot(int p) { return __ballot_sync(T1_FULL, p); }
T1_D void w_sync(void) { __syncwarp(); }
#else
/* The lanes are coroutines (cuda/common/warp_emu.h). */
static uint32_t w_up(uint32_t v, unsigned d) {
    unsigned l = warp_emu_lane();
    return (uint32_t)warp_emu_xchg(v, l >= d ? l - d : l);
}
static uint32_t w_idx(uint32_t v, int src) { return (uint32_t)warp_emu_xchg(v, (unsigned)src); }
static uint32_t w_xor(uint32_t v, int m) {
    return (uint32_t)warp_emu_xchg(v, warp_emu_lane() ^ (unsigned)m);
}
static unsigned long long w_xor64(unsigned long long v, int m) {
    return warp_emu_xchg(v, warp_emu_lane() ^ (unsigned)m);
}
static uint32_t w_ballot(int p) { return warp_emu_ballot(p); }
static void w_sync(void) { warp_emu_sync(); }
#endif

/* Inclusive warp prefix sum. */
T1_D uint32_t w_scan(uint32_t v, unsigned lane) {
    for (unsigned d = 1; d < 32; d <<= 1) {
        uint32_t t = w_up(v, d);
        if (lane >= d)
            v += t;
    }
    return v;
}

T1_D uint32_t w_or_all(uint32_t v) {
    for (int m = 16; m; m >>= 1)
        v |= w_xor(v, m);
    return v;
}

__extension__ typedef __int128 t1_i128;
__extension__ typedef unsigned __int128 t1_u128;

/* The warp's sum of 128-bit integers (exact: any order gives it). */
T1_D t1_i128 w_sum128(t1_i128 v) {
    for (int m = 16; m; m >>= 1) {
        t1_u128 u = (t1_u128)v;
        unsigned long long lo = w_xor64((unsigned long long)u, m);
        unsigned long long hi = w_xor64((unsigned long long)(u >> 64), m);
        v += (t1_i128)(((t1_u128)hi << 64) | lo);
    }
    return v;
}

/* A 128-bit integer rounded to the nearest double, ties to even, as the
 * host's (double) of an __int128 does: the magnitude's top 64 bits, with
 * the bits below them ORed into the lowest as a sticky bit (it lies below
 * the rounding position, bit 11, so the rounding does not change), then
 * an exact scaling. */
T1_D double i128_to_double(t1_i128 v) {
    int neg = v < 0;
    t1_u128 u = neg ? (t1_u128)0 - (t1_u128)v : (t1_u128)v;
    unsigned long long hi = (unsigned long long)(u >> 64);
    double d;
    if (!hi) {
        d = (double)(unsigned long long)u;
    } else {
        int sh = 64 - T1_CLZLL(hi);
        unsigned long long m = (unsigned long long)(u >> sh);
        m |= (u & (((t1_u128)1 << sh) - 1)) != 0;
        d = ldexp((double)m, sh);
    }
    return neg ? -d : d;
}

/* ---- samples --------------------------------------------------------------- */

/* Sign-magnitude index of one coefficient, as sci_htj2k_block_quantize
 * makes it (the same float operations; -fmad=false); *bad set when a 5/3
 * magnitude passes limit. */
template <bool IRREV>
T1_HD uint32_t t1_quant(const void *coeffs, size_t at, float inv_step,
                        uint32_t limit, int &bad) {
    if (IRREV) {
        float v = ((const float *)coeffs)[at];
        float a = fabsf(v) * inv_step;
        uint32_t q = a >= (float)limit ? limit : (uint32_t)a;
        return q ? q | (v < 0 ? T1_SIGN : 0) : 0;
    }
    int32_t v = ((const int32_t *)coeffs)[at];
    uint32_t a = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
    if (a > limit)
        bad = 1;
    return a ? a | (v < 0 ? T1_SIGN : 0) : 0;
}

/* The distortion terms of t1_ctx.h (t1_sig_gain, t1_ref_gain). */
T1_D long long sig_gain(uint32_t m, unsigned p) {
    long long rec = p ? 3ll << (p - 1) : 1;
    long long e = (long long)m - rec;
    return (long long)m * m - e * e;
}

T1_D long long ref_gain(uint32_t m, unsigned p) {
    long long before = (long long)(m >> (p + 1) << (p + 1)) + (1ll << p);
    long long after = p ? (long long)(m >> p << p) + (1ll << (p - 1)) : (long long)m;
    long long eb = (long long)m - before, ea = (long long)m - after;
    return eb * eb - ea * ea;
}

/* ---- context formation (Tables D.1 to D.3) ------------------------------- */

/* The neighbourhood of a stripe column as its samples see it when they are
 * coded: 6-bit columns, bit 0 the row above the stripe, bits 1-4 the
 * stripe's rows, bit 5 the row below. */
typedef struct {
    uint32_t l, r;    /* left and right columns */
    uint32_t cu, cd;  /* own column, for rows above / below a sample */
    uint32_t nl, nr, nc; /* signs (valid where significant) */
} t1_view;

T1_D uint32_t seen(uint32_t w) {
    return (w | w >> 16) & 0xF;  /* SIG or NU */
}

/* C the column's word, the others its neighbours'.  New significance (NU)
 * counts where the neighbour is earlier in the scan. */
T1_D t1_view make_view(uint32_t C, uint32_t L, uint32_t R, uint32_t U,
                       uint32_t UL, uint32_t UR, uint32_t D, uint32_t DL,
                       uint32_t DR) {
    t1_view v;
    v.l = seen(UL) >> 3 | seen(L) << 1 | (DL & 1) << 5;
    v.r = seen(UR) >> 3 | (R & 0xF) << 1 | (DR & 1) << 5;
    v.cu = seen(U) >> 3 | seen(C) << 1;
    v.cd = (C & 0xF) << 1 | (D & 1) << 5;
    v.nl = (L >> 12 & 0xF) << 1;
    v.nr = (R >> 12 & 0xF) << 1;
    v.nc = (U >> 15 & 1) | (C >> 12 & 0xF) << 1 | (D >> 12 & 1) << 5;
    return v;
}

/* Counts for sample row k; below = 0 leaves out the row below (VCAUSAL,
 * last row of the stripe). */
T1_D void counts(const t1_view &v, unsigned k, unsigned below, unsigned &h,
                 unsigned &vv, unsigned &d) {
    unsigned j = k + 1, dm = below ? 5u : 1u;
    h = (v.l >> j & 1) + (v.r >> j & 1);
    vv = (v.cu >> (j - 1) & 1) + (below ? v.cd >> (j + 1) & 1 : 0u);
    d = T1_POPC(v.l >> (j - 1) & dm) + T1_POPC(v.r >> (j - 1) & dm);
}

T1_D int contrib(uint32_t s, uint32_t n, unsigned j) {
    return (s >> j & 1) ? ((n >> j & 1) ? -1 : 1) : 0;
}

T1_D int clamp1(int x) {
    return x > 1 ? 1 : x < -1 ? -1 : x;
}

/* Table D.3: sign coding context of row k; *xr the bit the sign is XORed
 * with. */
T1_D unsigned sc_ctx(const t1_view &v, unsigned k, unsigned below, unsigned &xr) {
    unsigned j = k + 1;
    int h = clamp1(contrib(v.l, v.nl, j) + contrib(v.r, v.nr, j));
    int vc = contrib(v.cu, v.nc, j - 1) + (below ? contrib(v.cd, v.nc, j + 1) : 0);
    vc = clamp1(vc);
    xr = 0;
    if (h < 0 || (h == 0 && vc < 0)) {
        h = -h;
        vc = -vc;
        xr = 1;
    }
    return (unsigned)(SCI_T1_CX_SC + (h ? 3 : 0) + vc);
}

/* Up to 10 pair bytes of one column (a run-length column: RL, two UNI and
 * a sign, then three times ZC and sign). */
typedef struct {
    unsigned long long q;
    uint32_t q2;
    unsigned n;
} t1_queue;

T1_D void put(t1_queue &q, unsigned cx, unsigned d) {
    unsigned b = cx << 1 | d;
    if (q.n < 8)
        q.q |= (unsigned long long)b << (8 * q.n);
    else
        q.q2 |= b << (8 * (q.n - 8));
    q.n++;
}

T1_D unsigned qbyte(const t1_queue &q, unsigned t) {
    return t < 8 ? (unsigned)(q.q >> (8 * t)) & 0xFF : q.q2 >> (8 * (t - 8)) & 0xFF;
}

T1_D uint32_t plane_bits(const uint4 &m, unsigned p) {
    return (m.x >> p & 1) | (m.y >> p & 1) << 1 | (m.z >> p & 1) << 2 |
           (m.w >> p & 1) << 3;
}

T1_D uint32_t mag_of(const uint4 &m, unsigned k) {
    uint32_t v = k == 0 ? m.x : k == 1 ? m.y : k == 2 ? m.z : m.w;
    return v & ~T1_SIGN;
}

/* A sample of row k becoming significant: its sign and its term. */
T1_D void code_sign(t1_queue &q, const t1_view &v, unsigned k, unsigned below,
                    unsigned raw, const uint4 &m, unsigned p, t1_i128 &dist) {
    unsigned xr;
    unsigned cx = sc_ctx(v, k, below, xr);
    /* a raw (bypass) pass stores the sign itself (D.6) */
    put(q, cx, (v.nc >> (k + 1) & 1) ^ (raw ? 0u : xr));
    dist += sig_gain(mag_of(m, k), p);
}

/* The pairs of one stripe column in a pass; returns the column's word
 * with the pass committed.  rows: the stripe's rows (4 but in a last,
 * partial stripe). */
T1_D uint32_t emit_column(unsigned kind, unsigned raw, unsigned p,
                          unsigned band, unsigned vcausal, unsigned rows,
                          uint32_t C, const t1_view &v, const uint4 &m,
                          t1_queue &q, t1_i128 &dist) {
    uint32_t sig = C & 0xF, ref = C >> 4 & 0xF, vis = C >> 8 & 0xF;
    uint32_t nu = C >> 16 & 0xF, bits = plane_bits(m, p);
    uint32_t valid = (1u << rows) - 1;
    if (kind == K_MRP) {
        uint32_t mem = sig & ~vis & valid;
        for (unsigned k = 0; k < rows; k++) {
            if (!(mem >> k & 1))
                continue;
            unsigned below = !(vcausal && k == 3), h, vv, d;
            unsigned cx = SCI_T1_CX_MR + 2;
            if (!(ref >> k & 1)) {
                counts(v, k, below, h, vv, d);
                cx = SCI_T1_CX_MR + (h + vv + d ? 1 : 0);
            }
            put(q, cx, bits >> k & 1);
            dist += ref_gain(mag_of(m, k), p);
        }
        return C | mem << 4;
    }
    if (kind == K_SPP) {
        uint32_t mem = 0;
        for (unsigned k = 0; k < rows; k++) {
            if (sig >> k & 1)
                continue;
            unsigned below = !(vcausal && k == 3), h, vv, d;
            counts(v, k, below, h, vv, d);
            unsigned lab = t1_zc_label(band, h, vv, d);
            if (!lab)
                continue; /* no significant neighbour: the cleanup's */
            mem |= 1u << k;
            put(q, SCI_T1_CX_ZC + lab, bits >> k & 1);
            if (bits >> k & 1)
                code_sign(q, v, k, below, raw, m, p, dist);
        }
        return ((C | nu | mem << 8) & ~(0xFu << 16));
    }
    /* cleanup */
    uint32_t todo = ~(sig | vis) & valid;
    unsigned k = 0;
    if (rows == 4 && todo == 0xF && !((v.l | v.r) & (vcausal ? 0x1Fu : 0x3Fu)) &&
        !(v.cu & 1) && (vcausal || !(v.cd & 0x20))) {
        /* run-length mode (D.3.4): a quiet column of four */
        unsigned r = (unsigned)T1_FFS(nu | 0x10) - 1;
        put(q, SCI_T1_CX_RL, r < 4);
        if (r < 4) {
            put(q, SCI_T1_CX_UNI, r >> 1);
            put(q, SCI_T1_CX_UNI, r & 1);
            code_sign(q, v, r, !(vcausal && r == 3), 0, m, p, dist);
        }
        k = r + 1;
    }
    for (; k < rows; k++) {
        if (!(todo >> k & 1))
            continue;
        unsigned below = !(vcausal && k == 3), h, vv, d;
        counts(v, k, below, h, vv, d);
        put(q, SCI_T1_CX_ZC + t1_zc_label(band, h, vv, d), bits >> k & 1);
        if (bits >> k & 1)
            code_sign(q, v, k, below, 0, m, p, dist);
    }
    return (C | nu) & ~(0xFu << 16) & ~(0xFu << 8);
}

/* ---- significance propagation: the column functions ----------------------- */

/* f(L)_k = A_k | (L & T_k != 0): A in bits 0-3, T_k in bits 4 + 4k.. */

/* The OR of each 4-bit group of x, gathered into bits 0-3. */
T1_D uint32_t any4(uint32_t x) {
    x |= x >> 1;
    x |= x >> 2;
    x &= 0x1111;
    return (x | x >> 3 | x >> 6 | x >> 9) & 0xF;
}

/* g o f (f first). */
T1_D uint32_t compose(uint32_t g, uint32_t f) {
    uint32_t gt = g >> 4 & 0xFFFF, ft = f >> 4 & 0xFFFF, fa = f & 0xF;
    uint32_t a = (g & 0xF) | any4(gt & (fa * 0x1111u));
    uint32_t t = 0;
    for (unsigned m = 0; m < 4; m++) {
        uint32_t rows = (gt >> m & 0x1111u) * 0xFu;     /* rows k using m */
        t |= rows & ((ft >> (4 * m) & 0xFu) * 0x1111u); /* ... get f.T_m */
    }
    return a | t << 4;
}

T1_D uint32_t apply(uint32_t f, uint32_t L) {
    return (f & 0xF) | any4((f >> 4 & 0xFFFF) & (L * 0x1111u));
}

/* The function of one column from its words and plane bits. */
T1_D uint32_t column_fn(uint32_t C, uint32_t L, uint32_t R, uint32_t U,
                        uint32_t UL, uint32_t UR, uint32_t D, uint32_t DL,
                        uint32_t DR, uint32_t bits, unsigned vcausal) {
    /* what is fixed: SIG everywhere, NU of the stripe above */
    uint32_t l = seen(UL) >> 3 | (L & 0xF) << 1 | (DL & 1) << 5;
    uint32_t r = seen(UR) >> 3 | (R & 0xF) << 1 | (DR & 1) << 5;
    uint32_t cu = seen(U) >> 3 | (C & 0xF) << 1;
    uint32_t cd = (C & 0xF) << 1 | (D & 1) << 5;
    uint32_t cand = ~C & bits & 0xF;
    uint32_t A = 0, T = 0, pa = 0, pt = 0;
    for (unsigned k = 0; k < 4; k++) {
        unsigned below = !(vcausal && k == 3);
        uint32_t st = ((l | r) >> k & (below ? 7u : 3u)) | (cu >> k & 1) |
                      (below ? cd >> (k + 2) & 1 : 0u);
        if (cand >> k & 1) {
            pa = (st != 0) | pa;
            /* rows k-1..k+1 of L; none matter once the row is on anyway
             * (fewer functions that need the scan) */
            pt = pa ? 0u : ((7u << k >> 1) & 0xF) | pt;
        } else {
            pa = pt = 0;
        }
        A |= pa << k;
        T |= pt << (4 * k);
    }
    return A | T << 4;
}

/* ---- the modeller: a warp a code-block ----------------------------------- */

template <bool IRREV>
T1_D void model_block(const t1_kp &kp, unsigned i, unsigned lane, uint32_t *sw) {
    const t1_blk b = kp.blk[i];
    const unsigned w = b.w, h = b.h, S = (h + 3) >> 2, W2 = w + 2;
    const unsigned ncol = S * w, nbp = b.nbp, style = b.style, band = b.band;
    const unsigned vcausal = (style & SCI_T1_VCAUSAL) != 0;
    uint32_t *smp = kp.smp + b.smp;
    const uint4 *mags = (const uint4 *)smp;
    const size_t pi = (size_t)i * kp.stride;

    /* samples, four words a stripe column (a partial stripe padded) */
    uint32_t any = 0;
    int bad = 0;
    const uint32_t limit = (1u << nbp) - 1;
    for (unsigned e = lane; e < w * h; e += 32) {
        unsigned y = e / w, x = e - y * w;
        uint32_t v = t1_quant<IRREV>(kp.coeffs, b.base + (size_t)y * b.stride + x,
                                     b.inv_step, limit, bad);
        smp[((y >> 2) * w + x) * 4 + (y & 3)] = v;
        any |= v & ~T1_SIGN;
    }
    if (h & 3)
        for (unsigned x = lane; x < w; x += 32)
            for (unsigned r = h & 3; r < 4; r++)
                smp[((S - 1) * w + x) * 4 + r] = 0;
    any = w_or_all(any);
    bad = w_ballot(bad) != 0;
    t1_bres *br = &kp.bres[i];
    if (bad || (any >> nbp)) {
        if (!lane) {
            br->len = 0;
            br->passes = 0;
            br->zero_planes = (uint8_t)nbp;
            br->status = ST_RANGE;
        }
        return;
    }
    if (!any) {
        /* all zero: no passes, the block is never included */
        if (!lane) {
            br->len = 0;
            br->passes = 0;
            br->zero_planes = (uint8_t)nbp;
            br->status = 0;
        }
        return;
    }
    const unsigned top = 31u - (unsigned)T1_CLZ(any);

    for (unsigned e = lane; e < (S + 2) * W2; e += 32)
        sw[e] = 0;
    w_sync(); /* the samples and the zeroed words */
    for (unsigned c = lane; c < ncol; c += 32) {
        uint4 m = mags[c];
        unsigned s = c / w, x = c - s * w;
        sw[(s + 1) * W2 + x + 1] = (m.x >> 31 | (m.y >> 31) << 1 |
                                    (m.z >> 31) << 2 | (m.w >> 31) << 3) << 12;
    }
    w_sync();

    uint8_t *pairs = kp.pairs + b.pairs;
    uint32_t np = 0;
    unsigned n = 0;
    for (int p = (int)top; p >= 0; p--) {
        for (unsigned kind = p == (int)top ? K_CUP : K_SPP; kind <= K_CUP; kind++, n++) {
            const unsigned raw = (style & SCI_T1_BYPASS) && n >= 10 && kind != K_CUP;
            if (kind == K_SPP) {
                /* NU, stripe by stripe: the prefix of the column functions,
                 * from the empty left border (carry) */
                for (unsigned s = 0; s < S; s++) {
                    uint32_t carry = 0;
                    for (unsigned x0 = 0; x0 < w; x0 += 32) {
                        unsigned x = x0 + lane, at = (s + 1) * W2 + x + 1;
                        uint32_t f = 0;
                        if (x < w) {
                            /* a column without candidates is the zero
                             * function: its neighbours are not needed */
                            uint32_t C = sw[at];
                            uint32_t bits = plane_bits(mags[s * w + x], (unsigned)p);
                            if (~C & bits & 0xF)
                                f = column_fn(C, sw[at - 1], sw[at + 1], sw[at - W2],
                                              sw[at - W2 - 1], sw[at - W2 + 1], sw[at + W2],
                                              sw[at + W2 - 1], sw[at + W2 + 1], bits, vcausal);
                        }
                        /* no column depends on its left neighbour: no scan */
                        if (w_ballot(x < w && (f >> 4)) != 0) {
                            for (unsigned d = 1; d < 32; d <<= 1) {
                                uint32_t g = w_up(f, d);
                                if (lane >= d)
                                    f = compose(f, g);
                            }
                        }
                        uint32_t out = apply(f, carry);
                        carry = w_idx(out, 31);
                        w_sync(); /* every lane has read its neighbours */
                        if (x < w && out)
                            sw[at] |= out << 16;
                        w_sync();
                    }
                }
            } else if (kind == K_CUP) {
                /* every sample the cleanup visits becomes significant iff
                 * its bit is 1 */
                for (unsigned c = lane; c < ncol; c += 32) {
                    unsigned s = c / w, x = c - s * w, at = (s + 1) * W2 + x + 1;
                    uint32_t C = sw[at];
                    uint32_t nu = ~(C | C >> 8) & plane_bits(mags[c], (unsigned)p) & 0xF;
                    sw[at] = C | nu << 16;
                }
                w_sync();
            }

            /* the pairs, 32 stripe columns a step, in scan order */
            t1_i128 dist = 0;
            for (unsigned c0 = 0; c0 < ncol; c0 += 32) {
                unsigned c = c0 + lane, at = 0;
                t1_queue q = {0, 0, 0};
                uint32_t nw = 0;
                if (c < ncol) {
                    unsigned s = c / w, x = c - s * w;
                    unsigned rows = s + 1 < S ? 4 : h - 4 * s;
                    at = (s + 1) * W2 + x + 1;
                    uint32_t C = sw[at], valid = (1u << rows) - 1;
                    uint32_t sig = C & 0xF, vis = C >> 8 & 0xF;
                    /* columns with nothing to code in this pass need no
                     * neighbours: all significant (SPP), none to refine
                     * (MRP), all coded already (CUP, which ends the
                     * plane: VIS goes) */
                    if (kind == K_SPP ? sig == valid
                                      : kind == K_MRP ? !(sig & ~vis & valid)
                                                      : !(~(sig | vis) & valid)) {
                        nw = kind == K_CUP ? C & ~(0xFu << 8) : C;
                    } else {
                        t1_view v = make_view(C, sw[at - 1], sw[at + 1], sw[at - W2],
                                              sw[at - W2 - 1], sw[at - W2 + 1], sw[at + W2],
                                              sw[at + W2 - 1], sw[at + W2 + 1]);
                        nw = emit_column(kind, raw, (unsigned)p, band, vcausal, rows,
                                         C, v, mags[c], q, dist);
                    }
                }
                uint32_t incl = w_scan(q.n, lane);
                uint32_t total = w_idx(incl, 31);
                uint8_t *dst = pairs + np + incl - q.n;
                for (unsigned t = 0; t < q.n; t++) {
                    unsigned v = qbyte(q, t);
                    dst[t] = (uint8_t)(raw ? PB_RAW | (v & 1) : v);
                }
                np += total;
                w_sync(); /* every lane has read its neighbours */
                if (c < ncol)
                    sw[at] = nw;
                w_sync();
            }
            if (kind == K_CUP && (style & SCI_T1_SEGSYM)) {
                /* D.5: 1010 in the uniform context ends every cleanup */
                if (lane < 4)
                    pairs[np + lane] = (uint8_t)(SCI_T1_CX_UNI << 1 | (~lane & 1));
                np += 4;
            }
            dist = w_sum128(dist);
            if (!lane) {
                kp.dist[pi + n] = i128_to_double(dist);
                /* decisions so far: the bytes less the n markers before */
                kp.sym[pi + n] = (np - n) | (uint32_t)raw << 31;
                pairs[np] = PB_END;
            }
            np++;
        }
    }
    if (!lane) {
        br->len = 0;
        br->passes = (uint8_t)n;
        br->zero_planes = (uint8_t)(nbp - 1 - top);
        br->status = 0;
    }
}

/* ---- the MQ coder: a lane a code-block ------------------------------------- */

/* Table C.2, one word an index: Qe in bits 0-15, the next index after an
 * MPS in bits 17-22, after an LPS in 23-28, and whether an LPS switches
 * the MPS in bit 29. */
#define MQW(qe, nm, nl, sw) ((qe) | (nm) << 17 | (nl) << 23 | (sw) << 29)
#define T1_MQ_TAB                                                                 \
    {MQW(0x5601, 1, 1, 1u), MQW(0x3401, 2, 6, 0u), MQW(0x1801, 3, 9, 0u),         \
     MQW(0x0AC1, 4, 12, 0u), MQW(0x0521, 5, 29, 0u), MQW(0x0221, 38, 33, 0u),     \
     MQW(0x5601, 7, 6, 1u), MQW(0x5401, 8, 14, 0u), MQW(0x4801, 9, 14, 0u),       \
     MQW(0x3801, 10, 14, 0u), MQW(0x3001, 11, 17, 0u), MQW(0x2401, 12, 18, 0u),   \
     MQW(0x1C01, 13, 20, 0u), MQW(0x1601, 29, 21, 0u), MQW(0x5601, 15, 14, 1u),   \
     MQW(0x5401, 16, 14, 0u), MQW(0x5101, 17, 15, 0u), MQW(0x4801, 18, 16, 0u),   \
     MQW(0x3801, 19, 17, 0u), MQW(0x3401, 20, 18, 0u), MQW(0x3001, 21, 19, 0u),   \
     MQW(0x2801, 22, 19, 0u), MQW(0x2401, 23, 20, 0u), MQW(0x2201, 24, 21, 0u),   \
     MQW(0x1C01, 25, 22, 0u), MQW(0x1801, 26, 23, 0u), MQW(0x1601, 27, 24, 0u),   \
     MQW(0x1401, 28, 25, 0u), MQW(0x1201, 29, 26, 0u), MQW(0x1101, 30, 27, 0u),   \
     MQW(0x0AC1, 31, 28, 0u), MQW(0x09C1, 32, 29, 0u), MQW(0x08A1, 33, 30, 0u),   \
     MQW(0x0521, 34, 31, 0u), MQW(0x0441, 35, 32, 0u), MQW(0x02A1, 36, 33, 0u),   \
     MQW(0x0221, 37, 34, 0u), MQW(0x0141, 38, 35, 0u), MQW(0x0111, 39, 36, 0u),   \
     MQW(0x0085, 40, 37, 0u), MQW(0x0049, 41, 38, 0u), MQW(0x0025, 42, 39, 0u),   \
     MQW(0x0015, 43, 40, 0u), MQW(0x0009, 44, 41, 0u), MQW(0x0005, 45, 42, 0u),   \
     MQW(0x0001, 45, 43, 0u), MQW(0x5601, 46, 46, 0u)}
#define T1_MQ_NSTATES 47
/* The derived tables have 64 entries, so that any 6-bit index is inside. */
#define T1_MQ_TAB_N 64

/* A context's word: the MPS in bit 0, SWITCH in bit 1, the state index
 * times 8 in bits 3-8 (the byte offset of its successors in the st_succ
 * table, so the successors' address is one AND away from the word), the
 * shifts that renormalize an A of Qe in bits 9-12, and Qe in bits 16-31;
 * here with MPS 0.  A decision without renormalization needs nothing
 * else. */
T1_HD uint32_t st_word(const uint32_t *raw, unsigned j) {
    uint32_t r = raw[j], qe = r & 0xFFFF, qs = 0;
    while (qe << qs < 0x8000)
        qs++;
    return qe << 16 | qs << 9 | j << 3 | (r >> 29 & 1) << 1;
}

/* The words (MPS 0) of the states after an MPS and after an LPS in state
 * i: a context's successors come with one 64-bit load. */
T1_HD uint2 st_succ(const uint32_t *raw, unsigned i) {
    uint32_t r = raw[i];
    return make_uint2(st_word(raw, r >> 17 & 63), st_word(raw, r >> 23 & 63));
}

/* MQ and raw coder state of one lane (codec/j2k/mq.c's, positions relative to
 * the block's slot). */
typedef struct {
    uint32_t a, c, b;
    int ct, bp, first;
    uint8_t *buf;
    int cap;
    int ovf;
    /* raw segment */
    uint32_t rc;
    int rct, rfull, rbp;
} t1_enc;

T1_D void mq_next_byte(t1_enc &e, uint32_t v) {
    if (e.bp >= e.first) {
        if (e.bp < e.cap)
            e.buf[e.bp] = (uint8_t)e.b;
        else
            e.ovf = 1;
    }
    e.bp++;
    e.b = v & 0xFF;
}

/* BYTEOUT (C.9) */
T1_D void mq_byteout(t1_enc &e) {
    if (e.b != 0xFF && e.c >= 0x8000000u) {
        e.b++;
        e.c &= 0x7FFFFFFu;
    }
    if (e.b == 0xFF) {
        mq_next_byte(e, e.c >> 20);
        e.c &= 0xFFFFFu;
        e.ct = 7;
    } else {
        mq_next_byte(e, e.c >> 19);
        e.c &= 0x7FFFFu;
        e.ct = 8;
    }
}

T1_D void mq_restart(t1_enc &e, int start) {
    e.a = 0x8000;
    e.c = 0;
    e.ct = 12;
    e.b = 0;
    e.bp = start - 1;
    e.first = start;
}

/* ENCODE (C.2.2) with the context word w; returns the context's new word
 * (w when it does not change).  su holds the words of w's successors
 * (st_succ), loaded beforehand.  Branch-free but for BYTEOUT:
 *   - renormalization is needed after an LPS, or an MPS that leaves A
 *     below 0x8000 (need); then the conditional exchange (C.2.4, C.2.5)
 *     sets A to Qe exactly when lps differs from A < Qe, and C grows by Qe
 *     otherwise; without renormalization C grows by Qe and A stays;
 *   - the shift count: none without renormalization; when A becomes Qe,
 *     the state's (from the word); else A - Qe, which lies between
 *     0x8000 - 0x5601 and 0x7FFF (A >= 0x8000 before, Qe <= 0x5601),
 *     needs one shift, or two below 0x4000.  A shifts at once and C up to
 *     each BYTEOUT in turn, which is the bit-by-bit loop of C.2.6 exactly.
 *     (Instead of a leading-zero count, whose latency was on the chain
 *     from one decision to the next.)  (BYTEOUT
 *     cannot wait for a later decision: after a 0xFF byte the carry goes
 *     to the next byte's top bit, which a wider C register would not do.) */
T1_D uint32_t mq_encode(t1_enc &e, uint32_t w, uint2 su, unsigned d) {
    uint32_t qe = w >> 16, mps = w & 1, lps = (d ^ w) & 1;
    uint32_t a = e.a - qe;
    uint32_t need = lps | (uint32_t)(a < 0x8000u);
    uint32_t seta = need & (lps ^ (uint32_t)(a < qe));
    e.c += seta ? 0u : qe;
    int s = seta ? (int)(w >> 9 & 15) : need ? 1 + (int)(a < 0x4000u) : 0;
    a = seta ? qe : a;
    uint32_t nw = need ? (lps ? su.y : su.x) | (mps ^ (lps & w >> 1)) : w;
    e.a = a << s;
    if (s < e.ct) {
        e.c <<= s;
        e.ct -= s;
    } else {
        do {
            e.c <<= e.ct;
            s -= e.ct;
            mq_byteout(e);
        } while (s >= e.ct);
        e.c <<= s;
        e.ct -= s;
    }
    return nw;
}

/* FLUSH (C.2.9) */
T1_D int mq_flush(t1_enc &e) {
    uint32_t top = e.c + e.a;
    e.c |= 0xFFFF;
    if (e.c >= top)
        e.c -= 0x8000;
    e.c <<= e.ct;
    mq_byteout(e);
    e.c <<= e.ct;
    mq_byteout(e);
    if (e.b != 0xFF)
        mq_next_byte(e, 0);
    return e.bp;
}

/* predictable termination (D.4.2) */
T1_D int mq_pterm(t1_enc &e) {
    int k = 12 - e.ct;
    while (k > 0) {
        e.c <<= e.ct;
        e.ct = 0;
        mq_byteout(e);
        k -= e.ct;
    }
    if (e.b != 0xFF)
        mq_byteout(e);
    return e.bp;
}

T1_D void raw_init(t1_enc &e, int start) {
    e.rbp = start;
    e.rc = 0;
    e.rct = e.rfull = 8;
}

T1_D void raw_close(t1_enc &e) {
    if (e.rbp < e.cap)
        e.buf[e.rbp] = (uint8_t)e.rc;
    else
        e.ovf = 1;
    e.rbp++;
    e.rfull = e.rct = e.rc == 0xFF ? 7 : 8;
    e.rc = 0;
}

T1_D void raw_put(t1_enc &e, unsigned d) {
    e.rc |= (d & 1u) << --e.rct;
    if (e.rct == 0)
        raw_close(e);
}

T1_D int raw_flush(t1_enc &e, int pterm) {
    if (e.rct < e.rfull) {
        for (unsigned bit = 0; e.rct; bit ^= 1)
            e.rc |= bit << --e.rct;
        raw_close(e);
    } else if (e.rfull == 7) {
        if (pterm) {
            e.rc = 0x2A;
            raw_close(e);
        } else {
            e.rbp--;
        }
    }
    e.rct = e.rfull = 8;
    e.rc = 0;
    return e.rbp;
}

/* sci_mq_cut_len of a mark (c, a | ct << 16 | b << 20, bp, first) against
 * the segment's final bytes buf[0..len). */
T1_D int cut_len(uint4 mk, const uint8_t *buf, int len) {
    const int S = 20;
    uint32_t c = mk.x, a = mk.y & 0xFFFF, ct = mk.y >> 16 & 15, b = mk.y >> 20;
    int bp = (int)mk.z, first = (int)mk.w;
    int w = 27 - (int)ct;
    unsigned long long low = ((unsigned long long)b << (w + S)) +
                             ((unsigned long long)c << S);
    unsigned long long lim = low + ((unsigned long long)a << S);
    int i = bp;
    unsigned byte = i >= first && i < len ? buf[i] : 0;
    unsigned long long acc = (unsigned long long)byte << (w + S);
    int cut = len;
    for (;;) {
        int l = i + 1;
        if (l >= len)
            break;
        unsigned long long v = acc + (1ull << (w + S));
        if (v > low && v <= lim) {
            cut = l;
            break;
        }
        if (i >= bp + 4)
            break;
        w -= byte == 0xFF ? 7 : 8;
        i++;
        byte = buf[i];
        acc += (unsigned long long)byte << (w + S);
    }
    if (cut > first && buf[cut - 1] == 0xFF)
        cut--;
    return cut;
}

/* Table D.7; stw holds the words of the states (st_word). */
T1_D void init_contexts(uint32_t *cx, unsigned cs, const uint32_t *stw) {
    for (unsigned k = 0; k < SCI_T1_NCTX; k++)
        cx[k * cs] = stw[0];
    cx[SCI_T1_CX_ZC * cs] = stw[4];
    cx[SCI_T1_CX_RL * cs] = stw[3];
    cx[SCI_T1_CX_UNI * cs] = stw[46];
}

/* Reads a block's pair bytes 16 at a time, the next 16 already on their
 * way. */
typedef struct {
    const uint4 *p;
    uint4 cur, nxt;
} t1_rd;

T1_D void rd_init(t1_rd &r, const uint8_t *pairs) {
    r.p = (const uint4 *)pairs;
    r.cur = r.p[0];
    r.nxt = r.p[1];
    r.p += 2;
}

/* the current 16 bytes, the reader moved on to the next */
T1_D uint4 rd_chunk(t1_rd &r) {
    uint4 v = r.cur;
    r.cur = r.nxt;
    r.nxt = *r.p++;
    return v;
}

/* The successor words of a context word, loaded whether the decision
 * needs them or not: the compiler would otherwise move the load into the
 * renormalization branch, and the lanes of a warp coding different
 * blocks would part there at half their decisions. */
T1_D uint2 succ_of(const uint2 *succ, uint32_t w) {
#if defined(__CUDA_ARCH__) && !defined(SCI_T1_EMU)
    uint2 v;
    asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];"
                 : "=r"(v.x), "=r"(v.y)
                 : "r"((unsigned)__cvta_generic_to_shared(succ) + (w & 0x1F8u)));
    return v;
#else
    return succ[w >> 3 & 63];
#endif
}

/* The context of pair byte pb (bits 1-6); context 0 for a raw decision or
 * a pass end, so that a look-ahead load stays inside the table. */
T1_D uint32_t *ctx_of(uint32_t *cx, unsigned cs, unsigned pb) {
    return cx + (pb & PB_RAW ? 0u : (pb >> 1 & 63)) * cs;
}

/* One MQ decision from its pair byte, its context loaded and stored back
 * (the byte-by-byte path). */
T1_D void mq_one(t1_enc &e, uint32_t *cx, unsigned cs, const uint2 *succ, unsigned pb) {
    uint32_t *c = cx + (pb >> 1 & 63) * cs;
    uint32_t w = *c;
    *c = mq_encode(e, w, succ_of(succ, w), pb & 1);
}

/* A word of four ordinary decisions, the common case.  w is the first
 * decision's context word, already at hand; each decision loads the next
 * one's context word before storing its own, and takes its own new word
 * instead when both are the same context, so the shared-memory round trip
 * is off the chain from decision to decision (which is the MQ kernel's
 * critical path: docs/ebcot.md).  The same instructions for every decision:
 * a warp's lanes coding different blocks part only at BYTEOUT.  Returns
 * the context word of the first byte of nx, the next word of pairs (which
 * the caller codes this way only if it is ordinary, too). */
T1_D uint32_t mq_word(t1_enc &e, uint32_t *cx, unsigned cs, const uint2 *succ, uint32_t wd,
                      uint32_t w, uint32_t nx) {
    uint32_t *c0 = cx + (wd >> 1 & 63) * cs, *c1 = cx + (wd >> 9 & 63) * cs,
             *c2 = cx + (wd >> 17 & 63) * cs, *c3 = cx + (wd >> 25 & 63) * cs,
             *c4 = ctx_of(cx, cs, nx);
    /* same context as the decision before (the context bits of two bytes) */
    uint32_t s1 = wd ^ wd >> 8;
    bool f1 = !(s1 & 0x7E), f2 = !(s1 & 0x7E00), f3 = !(s1 & 0x7E0000),
         f4 = c4 == c3;
    uint32_t l = *c1, n;
    n = mq_encode(e, w, succ_of(succ, w), wd & 1);
    *c0 = n;
    w = f1 ? n : l;
    l = *c2;
    n = mq_encode(e, w, succ_of(succ, w), wd >> 8 & 1);
    *c1 = n;
    w = f2 ? n : l;
    l = *c3;
    n = mq_encode(e, w, succ_of(succ, w), wd >> 16 & 1);
    *c2 = n;
    w = f3 ? n : l;
    l = *c4;
    n = mq_encode(e, w, succ_of(succ, w), wd >> 24 & 1);
    *c3 = n;
    return f4 ? n : l;
}

/* t1_out_end_pass after pass n of passes: the segment's termination and
 * the next one's start where Table D.9 ends a segment, else the pass's
 * length so far (a raw pass) or a mark for sci_mq_cut_len (an MQ pass);
 * the contexts reset under RESET. */
T1_D void mq_end_pass(t1_enc &e, unsigned n, unsigned passes, unsigned style,
                      const uint32_t *sym, unsigned long long *plen, uint8_t *term,
                      uint4 *marks, uint32_t *cx, unsigned cs, const uint32_t *stw) {
    const int pterm = (style & SCI_T1_PTERM) != 0;
    int raw = (int)(sym[n] >> 31);
    int tm = t1_pass_term(style, n, passes), endp;
    if (tm) {
        if (raw)
            endp = raw_flush(e, pterm);
        else
            endp = pterm ? mq_pterm(e) : mq_flush(e);
        if (n + 1 < passes) {
            if (t1_pass_raw(style, n + 1))
                raw_init(e, endp);
            else
                mq_restart(e, endp);
        }
    } else if (raw) {
        endp = e.rbp + (e.rct < e.rfull);
    } else {
        endp = 0;
        marks[n] = make_uint4(e.c, e.a | (uint32_t)e.ct << 16 | e.b << 20, (uint32_t)e.bp,
                              (uint32_t)e.first);
    }
    plen[n] = (unsigned long long)endp;
    term[n] = (uint8_t)tm;
    if (style & SCI_T1_RESET)
        init_contexts(cx, cs, stw);
}

T1_D void mq_block(const t1_kp &kp, unsigned i, uint32_t *cx, unsigned cs,
                   const uint32_t *stw, const uint2 *succ) {
    t1_bres br = kp.bres[i];
    if (br.status || !br.passes)
        return;
    const t1_blk b = kp.blk[i];
    const unsigned passes = br.passes, style = b.style;
    const size_t pi = (size_t)i * kp.stride;
    const uint32_t *sym = kp.sym + pi;
    unsigned long long *plen = kp.plen + pi;
    uint8_t *term = kp.term + pi;
    uint4 *marks = kp.marks + (size_t)(i - kp.first) * kp.stride;
    t1_enc e;
    e.buf = kp.slots + b.slot;
    e.cap = (int)b.slot_cap;
    e.ovf = 0;
    mq_restart(e, 0);
    raw_init(e, 0);
    init_contexts(cx, cs, stw);
    t1_rd rd;
    rd_init(rd, kp.pairs + b.pairs);
    /* Sixteen pair bytes a round, so that the lanes of a warp coding
     * different blocks stay in step: sixteen MQ decisions in a row where no
     * byte is special (the common case), else word by word, a word of
     * ordinary decisions the same way and one with a special byte byte by
     * byte, with raw decisions and the pass ends (t1_out_end_pass).  w: the
     * context word of the coming byte. */
    uint32_t w = *ctx_of(cx, cs, rd.cur.x);
    for (unsigned n = 0;;) {
        uint4 q = rd_chunk(rd);
        if (!((q.x | q.y | q.z | q.w) & 0x80808080u)) {
            w = mq_word(e, cx, cs, succ, q.x, w, q.y);
            w = mq_word(e, cx, cs, succ, q.y, w, q.z);
            w = mq_word(e, cx, cs, succ, q.z, w, q.w);
            w = mq_word(e, cx, cs, succ, q.w, w, rd.cur.x);
            continue;
        }
        int done = 0;
        for (unsigned k = 0; k < 4 && !done; k++) {
            uint32_t wd = q.x, nx = k < 3 ? q.y : rd.cur.x;
            q.x = q.y;
            q.y = q.z;
            q.z = q.w;
            if (!(wd & 0x80808080u)) {
                w = mq_word(e, cx, cs, succ, wd, w, nx);
                continue;
            }
            for (unsigned j = 0; j < 4 && !done; j++) {
                unsigned pb = wd >> (8 * j) & 0xFF;
                if (pb < PB_RAW) {
                    mq_one(e, cx, cs, succ, pb);
                } else if (pb != PB_END) {
                    raw_put(e, pb & 1);
                } else {
                    mq_end_pass(e, n, passes, style, sym, plen, term, marks, cx, cs, stw);
                    done = ++n == passes;
                }
            }
            w = *ctx_of(cx, cs, nx);
        }
        if (done)
            break;
    }
    if (e.ovf) {
        kp.bres[i].status = ST_SLOT;
        return;
    }
    /* t1_out_finish: a cut good after pass j is good after any earlier
     * pass of its segment */
    int len = (int)plen[passes - 1], seg_end = len;
    for (int m = (int)passes - 1; m >= 0; m--) {
        int l;
        if (term[m])
            l = seg_end = (int)plen[m];
        else if (sym[m] >> 31)
            l = (int)plen[m];
        else
            l = cut_len(marks[m], e.buf, seg_end);
        if (m + 1 < (int)passes && (unsigned long long)l > plen[m + 1])
            l = (int)plen[m + 1];
        plen[m] = (unsigned long long)l;
    }
    kp.bres[i].len = (uint32_t)len;
}

/* The MQ kernel's order: blocks by decreasing decision count (buckets of
 * 64), so the longest chains start first and, in the single-lane warps,
 * alone on their schedulers; key of block i. */
#define PLAN_B 1024
T1_HD unsigned plan_key(const t1_bres *bres, const uint32_t *sym, unsigned stride,
                        unsigned i) {
    unsigned np = bres[i].passes, dec = 0;
    if (!bres[i].status && np)
        dec = (sym[(size_t)i * stride + np - 1] & 0x7FFFFFFFu) >> 6;
    return PLAN_B - 1 - (dec < PLAN_B - 1 ? dec : PLAN_B - 1);
}

/* ---- kernels ------------------------------------------------------------------ */

#ifndef SCI_T1_EMU
static const __device__ uint32_t t1_mq_tab[T1_MQ_NSTATES] = T1_MQ_TAB;

template <bool IRREV>
__global__ void __launch_bounds__(32 * MODEL_WARPS) t1_model(const __grid_constant__ t1_kp kp) {
    extern __shared__ uint32_t t1_sw[];
    unsigned wi = threadIdx.x >> 5, lane = threadIdx.x & 31;
    unsigned j = blockIdx.x * MODEL_WARPS + wi;
    if (j >= kp.count)
        return; /* the whole warp */
    model_block<IRREV>(kp, kp.first + j, lane, t1_sw + (size_t)wi * kp.words);
}

/* Counting sort of the batch's blocks by plan_key (one CTA). */
__global__ void __launch_bounds__(PLAN_B) t1_plan(const t1_bres *bres, const uint32_t *sym,
        unsigned stride, unsigned first, unsigned count, uint32_t *order) {
    __shared__ unsigned hist[PLAN_B];
    unsigned t = threadIdx.x;
    hist[t] = 0;
    __syncthreads();
    for (unsigned j = t; j < count; j += PLAN_B)
        atomicAdd(&hist[plan_key(bres, sym, stride, first + j)], 1u);
    __syncthreads();
    unsigned v = hist[t];
    for (unsigned d = 1; d < PLAN_B; d <<= 1) {
        unsigned u = t >= d ? hist[t - d] : 0;
        __syncthreads();
        hist[t] += u;
        __syncthreads();
    }
    unsigned excl = hist[t] - v;
    __syncthreads();
    hist[t] = excl;
    __syncthreads();
    for (unsigned j = t; j < count; j += PLAN_B) {
        unsigned pos = atomicAdd(&hist[plan_key(bres, sym, stride, first + j)], 1u);
        order[pos] = first + j;
    }
}

/* Warps 0..heavy-1 code one block each (the longest), the others `lanes`
 * blocks each (the order of t1_plan). */
__global__ void __launch_bounds__(MQ_NT) t1_mq(const __grid_constant__ t1_kp kp) {
    __shared__ uint32_t cx[SCI_T1_NCTX * MQ_NT];
    __shared__ uint32_t stw[T1_MQ_TAB_N];
    __shared__ uint2 succ[T1_MQ_TAB_N];
    if (threadIdx.x < T1_MQ_TAB_N) {
        unsigned k = threadIdx.x < T1_MQ_NSTATES ? threadIdx.x : T1_MQ_NSTATES - 1;
        stw[threadIdx.x] = st_word(t1_mq_tab, k);
        succ[threadIdx.x] = st_succ(t1_mq_tab, k);
    }
    __syncthreads();
    unsigned lane = threadIdx.x & 31;
    unsigned gw = blockIdx.x * (MQ_NT / 32) + (threadIdx.x >> 5);
    unsigned nh = kp.heavy < kp.count ? kp.heavy : kp.count, j;
    if (gw < nh) {
        if (lane)
            return;
        j = gw;
    } else {
        if (lane >= kp.lanes)
            return;
        j = nh + (gw - nh) * kp.lanes + lane;
    }
    if (j >= kp.count)
        return;
    mq_block(kp, kp.order[j], cx + threadIdx.x, MQ_NT, stw, succ);
}

/* Exclusive scan of the batch's codeword lengths (blocks coded on the
 * device only), after the bytes of earlier batches: *total. */
__global__ void __launch_bounds__(SCAN_NT) t1_scan(const t1_bres *bres, unsigned first,
        unsigned count, unsigned long long *off, unsigned long long *total) {
    __shared__ unsigned long long part[SCAN_NT];
    unsigned t = threadIdx.x, per = (count + SCAN_NT - 1) / SCAN_NT;
    unsigned a = t * per, e = a + per < count ? a + per : count;
    unsigned long long s = 0, base = *total;
    for (unsigned i = a; i < e; i++)
        s += bres[first + i].status ? 0u : bres[first + i].len;
    part[t] = s;
    __syncthreads();
    for (unsigned d = 1; d < SCAN_NT; d <<= 1) {
        unsigned long long v = t >= d ? part[t - d] : 0;
        __syncthreads();
        part[t] += v;
        __syncthreads();
    }
    s = base + part[t] - s;
    for (unsigned i = a; i < e; i++) {
        off[first + i] = s;
        s += bres[first + i].status ? 0u : bres[first + i].len;
    }
    if (t == SCAN_NT - 1)
        *total = base + part[t];
}

/* A warp a block: its codeword from its slot to its packed place. */
__global__ void __launch_bounds__(PACK_NT) t1_pack(const t1_blk *blk, const t1_bres *bres,
        const unsigned long long *off, const uint8_t *slots, uint8_t *dst,
        unsigned first, unsigned count) {
    unsigned lane = threadIdx.x & 31;
    unsigned warps = gridDim.x * (PACK_NT / 32);
    for (unsigned j = (blockIdx.x * PACK_NT + threadIdx.x) >> 5; j < count; j += warps) {
        unsigned i = first + j;
        if (bres[i].status)
            continue;
        unsigned l = bres[i].len;
        const uint8_t *s = slots + blk[i].slot;
        uint8_t *d = dst + off[i];
        for (unsigned k = lane; k < l; k += 32)
            d[k] = s[k];
    }
}
#endif

/* ---- host side ------------------------------------------------------------------ */

typedef struct {
    unsigned first, count;
    size_t pairs, smp, slots; /* its buffers' sizes */
} t1_batch;

struct sci_cuda_t1 {
    sci_htj2k_enc *enc;
    int irrev;
    unsigned nb, stride, words, heavy, lanes, nbatch;
    double qstep;             /* the step the blocks' inv_step were made for */
    size_t slot_limit;
    t1_blk *blk;              /* host copy */
    sci_cuda_t1_block *src;   /* the layout, for the host fallback */
    t1_batch *batch;
    /* device */
    t1_blk *d_blk;
    uint32_t *d_order;
    uint32_t *d_smp;
    uint8_t *d_pairs, *d_slots, *d_packed;
    uint4 *d_marks;
    t1_bres *d_bres;
    double *d_dist;
    unsigned long long *d_plen, *d_off, *d_total;
    uint8_t *d_term;
    uint32_t *d_sym;
    size_t packed_cap;
    size_t dev_bytes;
    /* pinned host */
    t1_bres *h_bres;
    double *h_dist;
    unsigned long long *h_plen, *h_total;
    uint8_t *h_term;
    uint32_t *h_sym;
    uint8_t *h_packed;
    /* host */
    sci_j2k_block_passes *passes;
    size_t *off;
    const uint8_t *bytes;     /* h_packed, or spill after a fallback */
    uint8_t *spill;
    size_t spill_cap;
    /* fallback: the C coder */
    sci_t1_coder *coder;
    uint32_t *fb_sm;
    float *fb_coef;
    uint8_t *fb_out;
    size_t fb_cap;
    sci_t1_result fb_res;
    /* the frame in flight (sci_cuda_t1_submit): its coefficients (for the
     * host fallback), the end of its kernels, the stream its results come
     * back on */
    const void *coeffs;
    int pending;
    cudaEvent_t done;
    cudaStream_t copy;
    /* timing */
    int timing;
    cudaEvent_t *ev;          /* 3 per batch, and one at the end */
    sci_cuda_t1_times times;
};

/* the host's pass lengths are the device's 64-bit words */
static_assert(sizeof(size_t) == sizeof(unsigned long long), "size_t must be 64-bit");

static double host_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static cudaError_t launch_model(sci_cuda_t1 *h, const t1_kp &kp, cudaStream_t s) {
#ifdef SCI_T1_EMU
    (void)s;
    static uint32_t sw[MODEL_WARPS * 4096];
    for (unsigned j = 0; j < kp.count; j++) {
        /* garbage, so that a word read before written shows */
        memset(sw, 0x5a, (size_t)kp.words * 4);
        unsigned i = kp.first + j;
        warp_emu_run([&](unsigned lane) {
            if (h->irrev)
                model_block<true>(kp, i, lane, sw);
            else
                model_block<false>(kp, i, lane, sw);
        });
    }
    return cudaSuccess;
#else
    unsigned grid = (kp.count + MODEL_WARPS - 1) / MODEL_WARPS;
    size_t smem = (size_t)MODEL_WARPS * kp.words * 4;
    if (h->irrev)
        t1_model<true><<<grid, 32 * MODEL_WARPS, smem, s>>>(kp);
    else
        t1_model<false><<<grid, 32 * MODEL_WARPS, smem, s>>>(kp);
    return cudaGetLastError();
#endif
}

static cudaError_t launch_mq(sci_cuda_t1 *h, const t1_kp &kp, cudaStream_t s) {
#ifdef SCI_T1_EMU
    (void)h;
    (void)s;
    static const uint32_t raw[T1_MQ_NSTATES] = T1_MQ_TAB;
    uint32_t stw[T1_MQ_TAB_N], cx[SCI_T1_NCTX];
    uint2 succ[T1_MQ_TAB_N];
    for (unsigned k = 0; k < T1_MQ_TAB_N; k++) {
        stw[k] = st_word(raw, k < T1_MQ_NSTATES ? k : T1_MQ_NSTATES - 1);
        succ[k] = st_succ(raw, k < T1_MQ_NSTATES ? k : T1_MQ_NSTATES - 1);
    }
    for (unsigned j = 0; j < kp.count; j++) {
        memset(cx, 0x5a, sizeof cx);
        mq_block(kp, kp.order[j], cx, 1, stw, succ);
    }
    return cudaSuccess;
#else
    (void)h;
    unsigned nh = kp.heavy < kp.count ? kp.heavy : kp.count;
    unsigned warps = nh + (kp.count - nh + kp.lanes - 1) / kp.lanes;
    unsigned grid = (warps + MQ_NT / 32 - 1) / (MQ_NT / 32);
    t1_mq<<<grid, MQ_NT, 0, s>>>(kp);
    return cudaGetLastError();
#endif
}

/* The MQ order of the batch (t1_plan). */
static cudaError_t launch_plan(sci_cuda_t1 *h, const t1_kp &kp, cudaStream_t s) {
#ifdef SCI_T1_EMU
    (void)s;
    unsigned hist[PLAN_B + 1];
    memset(hist, 0, sizeof hist);
    for (unsigned j = 0; j < kp.count; j++)
        hist[plan_key(kp.bres, kp.sym, kp.stride, kp.first + j) + 1]++;
    for (unsigned k = 1; k <= PLAN_B; k++)
        hist[k] += hist[k - 1];
    for (unsigned j = 0; j < kp.count; j++)
        h->d_order[hist[plan_key(kp.bres, kp.sym, kp.stride, kp.first + j)]++] = kp.first + j;
    return cudaSuccess;
#else
    t1_plan<<<1, PLAN_B, 0, s>>>(kp.bres, kp.sym, kp.stride, kp.first, kp.count, h->d_order);
    return cudaGetLastError();
#endif
}

static cudaError_t launch_pack(sci_cuda_t1 *h, const t1_kp &kp, cudaStream_t s) {
#ifdef SCI_T1_EMU
    (void)s;
    unsigned long long o = *h->d_total;
    for (unsigned j = 0; j < kp.count; j++) {
        unsigned i = kp.first + j;
        h->d_off[i] = o;
        if (!h->d_bres[i].status) {
            memcpy(h->d_packed + o, h->d_slots + h->d_blk[i].slot, h->d_bres[i].len);
            o += h->d_bres[i].len;
        }
    }
    *h->d_total = o;
    return cudaSuccess;
#else
    t1_scan<<<1, SCAN_NT, 0, s>>>(h->d_bres, kp.first, kp.count, h->d_off, h->d_total);
    unsigned grid = (kp.count + PACK_NT / 32 - 1) / (PACK_NT / 32);
    if (grid > 4096)
        grid = 4096;
    t1_pack<<<grid, PACK_NT, 0, s>>>(h->d_blk, h->d_bres, h->d_off, h->d_slots,
                                     h->d_packed, kp.first, kp.count);
    return cudaGetLastError();
#endif
}

/* Block i coded again on the host (its codeword outgrew the device slot):
 * the coefficients come back, are quantized as on the device and coded by
 * sci_t1_encode; the bytes go to the spill buffer at *at. */
static int host_fallback(sci_cuda_t1 *h, const void *d_coeffs, unsigned i,
                         size_t *at, cudaStream_t s) {
    const sci_cuda_t1_block *b = &h->src[i];
    unsigned w = b->p.w, hh = b->p.h;
    cudaError_t err = cudaMemcpy2DAsync(h->fb_coef, (size_t)w * 4,
                                        (const float *)d_coeffs + b->base,
                                        (size_t)b->stride * 4, (size_t)w * 4, hh,
                                        cudaMemcpyDeviceToHost, s);
    if (!err)
        err = cudaStreamSynchronize(s);
    if (err)
        return err;
    uint32_t limit = (1u << b->p.nbp) - 1;
    int bad = 0;
    for (size_t k = 0; k < (size_t)w * hh; k++)
        h->fb_sm[k] = h->irrev ? t1_quant<true>(h->fb_coef, k, b->inv_step, limit, bad)
                               : t1_quant<false>(h->fb_coef, k, b->inv_step, limit, bad);
    sci_t1_params p = b->p;
    p.trace = NULL;
    sci_t1_result *r = &h->fb_res;
    if (bad || sci_t1_encode(h->coder, &p, h->fb_sm, w, h->fb_out, h->fb_cap, r))
        return SCI_CUDA_T1_ERR_BLOCK;
    if (*at + r->len > h->spill_cap) {
        size_t cap = 2 * (*at + r->len);
        uint8_t *ns = (uint8_t *)realloc(h->spill, cap);
        if (!ns)
            return cudaErrorMemoryAllocation;
        h->spill = ns;
        h->spill_cap = cap;
    }
    memcpy(h->spill + *at, h->fb_out, r->len);
    h->off[i] = *at;
    *at += r->len;
    size_t pi = (size_t)i * h->stride;
    h->h_bres[i].len = (uint32_t)r->len;
    h->h_bres[i].passes = (uint8_t)r->passes;
    h->h_bres[i].zero_planes = (uint8_t)r->zero_planes;
    for (unsigned n = 0; n < r->passes; n++) {
        h->h_plen[pi + n] = r->pass_len[n];
        h->h_dist[pi + n] = r->pass_dist[n];
        h->h_term[pi + n] = r->pass_term[n];
        h->h_sym[pi + n] = (uint32_t)r->pass_symbols[n] | (uint32_t)r->pass_raw[n] << 31;
    }
    return cudaSuccess;
}

static cudaError_t upload_blocks(sci_cuda_t1 *h) {
    if (h->enc && h->irrev) {
        for (unsigned i = 0; i < h->nb; i++) {
            h->src[i].inv_step = sci_htj2k_block_inv_step(h->enc, i);
            h->blk[i].inv_step = h->src[i].inv_step;
        }
        h->qstep = sci_htj2k_last_qstep(h->enc);
    }
    return cudaMemcpy(h->d_blk, h->blk, h->nb * sizeof(t1_blk), cudaMemcpyHostToDevice);
}

extern "C" int sci_cuda_t1_submit(sci_cuda_t1 *h, const void *d_coeffs, void *stream) {
    cudaStream_t s = (cudaStream_t)stream;
    cudaError_t err = cudaSuccess;
    /* a frame submitted and never finished is dropped */
    if (h->pending && (err = cudaEventSynchronize(h->done)))
        return err;
    memset(&h->times, 0, sizeof h->times);
    h->bytes = h->h_packed;
    h->coeffs = d_coeffs;
    h->pending = 0;
    if (!h->nb) {
        h->pending = 1;
        return cudaSuccess;
    }
    if (h->enc && h->irrev && sci_htj2k_last_qstep(h->enc) != h->qstep &&
        (err = upload_blocks(h)))
        return err;
    t1_kp kp;
    memset(&kp, 0, sizeof kp);
    kp.blk = h->d_blk;
    kp.coeffs = d_coeffs;
    kp.smp = h->d_smp;
    kp.pairs = h->d_pairs;
    kp.slots = h->d_slots;
    kp.marks = h->d_marks;
    kp.bres = h->d_bres;
    kp.dist = h->d_dist;
    kp.plen = h->d_plen;
    kp.term = h->d_term;
    kp.sym = h->d_sym;
    kp.stride = h->stride;
    kp.words = h->words;
    kp.heavy = h->heavy;
    kp.lanes = h->lanes;
    kp.order = h->d_order;
    err = cudaMemsetAsync(h->d_total, 0, sizeof(*h->d_total), s);
    for (unsigned t = 0; t < h->nbatch && !err; t++) {
        kp.first = h->batch[t].first;
        kp.count = h->batch[t].count;
        if (h->timing)
            err = cudaEventRecord(h->ev[3 * t], s);
        if (!err)
            err = launch_model(h, kp, s);
        if (!err && h->timing)
            err = cudaEventRecord(h->ev[3 * t + 1], s);
        if (!err)
            err = launch_plan(h, kp, s);
        if (!err)
            err = launch_mq(h, kp, s);
        if (!err && h->timing)
            err = cudaEventRecord(h->ev[3 * t + 2], s);
        if (!err)
            err = launch_pack(h, kp, s);
    }
    if (!err && h->timing)
        err = cudaEventRecord(h->ev[3 * h->nbatch], s);
    if (!err)
        err = cudaEventRecord(h->done, s);
    if (err)
        return err;
    h->pending = 1;
    return cudaSuccess;
}

/* The results of the frame queued by sci_cuda_t1_submit to the host, on
 * the handle's copy stream: the stream the kernels ran on may already
 * hold the next frame's work, which these copies need not wait for. */
extern "C" int sci_cuda_t1_finish(sci_cuda_t1 *h) {
    cudaStream_t s = h->copy;
    const void *d_coeffs = h->coeffs;
    cudaError_t err;
    if (!h->pending)
        return cudaErrorInvalidValue;
    h->pending = 0;
    if (!h->nb)
        return cudaSuccess;
    if ((err = cudaEventSynchronize(h->done)))
        return err;
    double t0 = host_ms();
    size_t np = (size_t)h->nb * h->stride;
    err = cudaMemcpyAsync(h->h_bres, h->d_bres, h->nb * sizeof(t1_bres),
                          cudaMemcpyDeviceToHost, s);
    if (!err)
        err = cudaMemcpyAsync(h->h_dist, h->d_dist, np * sizeof(double),
                              cudaMemcpyDeviceToHost, s);
    if (!err)
        err = cudaMemcpyAsync(h->h_plen, h->d_plen, np * sizeof(unsigned long long),
                              cudaMemcpyDeviceToHost, s);
    if (!err)
        err = cudaMemcpyAsync(h->h_term, h->d_term, np, cudaMemcpyDeviceToHost, s);
    if (!err)
        err = cudaMemcpyAsync(h->h_sym, h->d_sym, np * sizeof(uint32_t),
                              cudaMemcpyDeviceToHost, s);
    if (!err)
        err = cudaMemcpyAsync(h->h_total, h->d_total, sizeof(*h->h_total),
                              cudaMemcpyDeviceToHost, s);
    if (!err)
        err = cudaStreamSynchronize(s);
    if (err)
        return err;
    size_t o = 0;
    int range = 0, spill = 0;
    for (unsigned i = 0; i < h->nb; i++) {
        h->off[i] = o;
        if (h->h_bres[i].status == ST_RANGE)
            range = 1;
        else if (h->h_bres[i].status == ST_SLOT)
            spill = 1;
        else
            o += h->h_bres[i].len;
    }
    if (range)
        return SCI_CUDA_T1_ERR_BLOCK;
    if (o != *h->h_total || o > h->packed_cap)
        return cudaErrorUnknown; /* the device scan disagrees */
    if (o && (err = cudaMemcpyAsync(h->h_packed, h->d_packed, o,
                                    cudaMemcpyDeviceToHost, s)))
        return err;
    if ((err = cudaStreamSynchronize(s)))
        return err;
    if (spill) {
        /* rare: blocks too big for their slots, coded on the host; all
         * bytes then live in the spill buffer */
        if (o > h->spill_cap) {
            uint8_t *ns = (uint8_t *)realloc(h->spill, 2 * o);
            if (!ns)
                return cudaErrorMemoryAllocation;
            h->spill = ns;
            h->spill_cap = 2 * o;
        }
        if (o)
            memcpy(h->spill, h->h_packed, o);
        for (unsigned i = 0; i < h->nb; i++) {
            if (h->h_bres[i].status != ST_SLOT)
                continue;
            int e2 = host_fallback(h, d_coeffs, i, &o, s);
            if (e2)
                return e2;
            h->times.fallbacks++;
        }
        h->bytes = h->spill;
    }
    unsigned long long sym = 0;
    unsigned most = 0;
    for (unsigned i = 0; i < h->nb; i++) {
        size_t pi = (size_t)i * h->stride;
        sci_j2k_block_passes *bp = &h->passes[i];
        bp->passes = h->h_bres[i].passes;
        bp->zero_planes = h->h_bres[i].zero_planes;
        bp->pass_len = (const size_t *)(h->h_plen + pi);
        bp->pass_dist = h->h_dist + pi;
        bp->pass_term = h->h_term + pi;
        if (bp->passes) {
            unsigned v = h->h_sym[pi + bp->passes - 1] & 0x7FFFFFFFu;
            sym += v;
            most = v > most ? v : most;
        }
    }
    if (h->timing) {
        h->times.d2h_ms = (float)(host_ms() - t0);
        h->times.symbols = sym;
        h->times.max_symbols = most;
        for (unsigned t = 0; t < h->nbatch; t++) {
            float a, b, c;
            cudaEventElapsedTime(&a, h->ev[3 * t], h->ev[3 * t + 1]);
            cudaEventElapsedTime(&b, h->ev[3 * t + 1], h->ev[3 * t + 2]);
            cudaEventElapsedTime(&c, h->ev[3 * t + 2],
                                 t + 1 < h->nbatch ? h->ev[3 * t + 3] : h->ev[3 * h->nbatch]);
            h->times.model_ms += a;
            h->times.mq_ms += b;
            h->times.pack_ms += c;
        }
    }
    return cudaSuccess;
}

extern "C" const sci_j2k_block_passes *sci_cuda_t1_passes(const sci_cuda_t1 *h) {
    return h->passes;
}

extern "C" void sci_cuda_t1_bytes(const sci_cuda_t1 *h, const uint8_t **bytes,
                                  const size_t **off) {
    *bytes = h->bytes;
    *off = h->off;
}

extern "C" void sci_cuda_t1_result(const sci_cuda_t1 *h, size_t i, sci_t1_result *r) {
    memset(r, 0, sizeof *r);
    size_t pi = i * h->stride;
    r->passes = h->h_bres[i].passes;
    r->zero_planes = h->h_bres[i].zero_planes;
    r->len = r->passes ? h->h_bres[i].len : 0;
    for (unsigned n = 0; n < r->passes; n++) {
        r->pass_len[n] = (size_t)h->h_plen[pi + n];
        r->pass_dist[n] = h->h_dist[pi + n];
        r->pass_term[n] = h->h_term[pi + n];
        r->pass_raw[n] = (uint8_t)(h->h_sym[pi + n] >> 31);
        r->pass_symbols[n] = h->h_sym[pi + n] & 0x7FFFFFFFu;
        r->segments += r->pass_term[n];
    }
    if (r->passes)
        r->symbols = r->pass_symbols[r->passes - 1];
}

extern "C" int sci_cuda_t1_code(sci_cuda_t1 *h, const void *d_coeffs, void *stream) {
    int err = sci_cuda_t1_submit(h, d_coeffs, stream);
    return err ? err : sci_cuda_t1_finish(h);
}

extern "C" int sci_cuda_t1_write(sci_cuda_t1 *h, uint8_t *out, size_t cap, size_t *out_len) {
    *out_len = 0;
    if (!h->enc)
        return cudaErrorInvalidValue;
    double t0 = host_ms();
    size_t n = sci_j2k_part1_write(h->enc, h->passes, h->bytes, h->off, out, cap);
    if (h->timing)
        h->times.write_ms = (float)(host_ms() - t0);
    if (!n)
        return SCI_CUDA_T1_ERR_CAP;
    *out_len = n;
    return cudaSuccess;
}

extern "C" int sci_cuda_t1_encode(sci_cuda_t1 *h, const void *d_coeffs, uint8_t *out,
                                  size_t cap, size_t *out_len, void *stream) {
    *out_len = 0;
    if (!h->enc)
        return cudaErrorInvalidValue;
    int err = sci_cuda_t1_code(h, d_coeffs, stream);
    return err ? err : sci_cuda_t1_write(h, out, cap, out_len);
}

extern "C" void sci_cuda_t1_destroy(sci_cuda_t1 *h) {
    if (!h)
        return;
    cudaFree(h->d_blk);
    cudaFree(h->d_order);
    cudaFree(h->d_smp);
    cudaFree(h->d_pairs);
    cudaFree(h->d_slots);
    cudaFree(h->d_packed);
    cudaFree(h->d_marks);
    cudaFree(h->d_bres);
    cudaFree(h->d_dist);
    cudaFree(h->d_plen);
    cudaFree(h->d_off);
    cudaFree(h->d_total);
    cudaFree(h->d_term);
    cudaFree(h->d_sym);
    cudaFreeHost(h->h_bres);
    cudaFreeHost(h->h_dist);
    cudaFreeHost(h->h_plen);
    cudaFreeHost(h->h_total);
    cudaFreeHost(h->h_term);
    cudaFreeHost(h->h_sym);
    cudaFreeHost(h->h_packed);
    if (h->ev)
        for (unsigned k = 0; k <= 3 * h->nbatch; k++)
            if (h->ev[k])
                cudaEventDestroy(h->ev[k]);
    free(h->ev);
    if (h->done)
        cudaEventDestroy(h->done);
    if (h->copy)
        cudaStreamDestroy(h->copy);
    free(h->blk);
    free(h->src);
    free(h->batch);
    free(h->passes);
    free(h->off);
    free(h->spill);
    free(h->coder);
    free(h->fb_sm);
    free(h->fb_coef);
    free(h->fb_out);
    free(h);
}

static size_t batch_bytes; /* sci_cuda_t1_test_batch_bytes */

extern "C" void sci_cuda_t1_test_batch_bytes(size_t bytes) {
    batch_bytes = bytes;
}

static size_t round16(size_t n) {
    return (n + 15) & ~(size_t)15;
}

extern "C" int sci_cuda_t1_create_blocks(sci_cuda_t1 **out, const sci_cuda_t1_block *src,
                                         size_t nb, int irreversible) {
    *out = NULL;
    if (nb > 0x7FFFFFFFu)
        return cudaErrorInvalidValue;
    for (size_t i = 0; i < nb; i++)
        if (sci_t1_check(&src[i].p))
            return cudaErrorInvalidValue;
    sci_cuda_t1 *h = (sci_cuda_t1 *)calloc(1, sizeof(*h));
    if (!h)
        return cudaErrorMemoryAllocation;
    h->irrev = irreversible != 0;
    h->nb = (unsigned)nb;
    /* The MQ kernel's layout: the longest blocks (as many as the device
     * has warp schedulers, 4 an SM) one a warp, so that each has a
     * scheduler's issue slots mostly to itself (their chains are the
     * kernel's critical path), the rest four a warp, longest first
     * (t1_plan), so that a warp's lanes code blocks of about the same
     * length and stay in step (t1_mq reads their pairs 16 bytes a round
     * alike).  Measured on an H100 (docs/ebcot.md, MQ ms, 4096x2160 4:4:4
     * 12-bit lossless, 6712 blocks, 95 M decisions): 528 single warps then
     * 1 / 2 / 4 / 8 blocks a warp 7.06 / 6.58 / 5.64 / 6.29; no single
     * warps and 3 to 6 a warp 8.5 to 10.0. */
    int dev = 0, sms = 0;
    if (cudaGetDevice(&dev) || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev))
        sms = 0;
    h->heavy = 4 * (unsigned)sms;
    h->lanes = 4;
    cudaError_t err = cudaSuccess;
    size_t n1 = nb ? nb : 1;
    h->blk = (t1_blk *)calloc(n1, sizeof(t1_blk));
    h->src = (sci_cuda_t1_block *)calloc(n1, sizeof(sci_cuda_t1_block));
    h->batch = (t1_batch *)calloc(n1, sizeof(t1_batch));
    h->passes = (sci_j2k_block_passes *)calloc(n1, sizeof(sci_j2k_block_passes));
    h->off = (size_t *)calloc(n1, sizeof(size_t));
    h->coder = (sci_t1_coder *)malloc(sizeof(sci_t1_coder));
    h->fb_sm = (uint32_t *)malloc(SCI_T1_MAX_SAMPLES * sizeof(uint32_t));
    h->fb_coef = (float *)malloc(SCI_T1_MAX_SAMPLES * sizeof(float));
    if (!h->blk || !h->src || !h->batch || !h->passes || !h->off ||
        !h->coder || !h->fb_sm || !h->fb_coef)
        err = cudaErrorMemoryAllocation;

    /* per block: pair buffer for every plane (a plane codes at most 2.5
     * decisions a sample, 4 segmentation symbols and 3 pass-end markers),
     * codeword slot of 2 bits a possible decision and 5 bytes a pass for
     * terminations */
    unsigned maxnbp = 1, words = 0;
    size_t packed = 0, fb_cap = 0;
    t1_batch *bt = h->batch;
    unsigned nbatch = 0;
    size_t limit = batch_bytes ? batch_bytes : T1_BATCH_BYTES;
#ifndef SCI_T1_EMU
    size_t dev_free, dev_total;
    if (!batch_bytes && cudaMemGetInfo(&dev_free, &dev_total) == cudaSuccess &&
        dev_total / 16 > limit)
        limit = dev_total / 16;
#endif
    for (size_t i = 0; !err && i < nb; i++) {
        const sci_t1_params *p = &src[i].p;
        size_t n = (size_t)p->w * p->h;
        unsigned S = (p->h + 3) / 4;
        size_t pairs = round16((n * 5 / 2 + 4 + 3) * p->nbp);
        size_t slot = round16(pairs / 4 + 15 * (size_t)p->nbp + 16);
        size_t smp = (size_t)S * p->w * 4;
        if (nbatch == 0 || bt[nbatch - 1].pairs + pairs > limit) {
            bt[nbatch].first = (unsigned)i;
            nbatch++;
        }
        t1_batch *b = &bt[nbatch - 1];
        t1_blk *k = &h->blk[i];
        h->src[i] = src[i];
        k->base = src[i].base;
        k->stride = src[i].stride;
        k->w = (uint16_t)p->w;
        k->h = (uint16_t)p->h;
        k->band = (uint8_t)p->band;
        k->nbp = (uint8_t)p->nbp;
        k->style = (uint8_t)p->style;
        k->inv_step = src[i].inv_step;
        k->pairs = b->pairs;
        k->smp = b->smp;
        k->slot = b->slots;
        k->slot_cap = (uint32_t)slot;
        b->count++;
        b->pairs += pairs;
        b->smp += smp;
        b->slots += slot;
        packed += slot;
        if (p->nbp > maxnbp)
            maxnbp = p->nbp;
        if ((S + 2) * (p->w + 2) > words)
            words = (S + 2) * (p->w + 2);
        size_t mb = sci_t1_max_bytes(p->w, p->h, p->nbp);
        if (mb > fb_cap)
            fb_cap = mb;
    }
    h->nbatch = nbatch;
    h->stride = 3 * maxnbp - 2;
    h->words = words;
    h->packed_cap = packed;
    h->fb_cap = fb_cap;
    if (!err && !(h->fb_out = (uint8_t *)malloc(fb_cap ? fb_cap : 1)))
        err = cudaErrorMemoryAllocation;
    size_t max_pairs = 0, max_smp = 0, max_slots = 0, max_count = 0;
    for (unsigned t = 0; !err && t < nbatch; t++) {
        t1_batch *b = &bt[t];
        if (b->pairs > max_pairs)
            max_pairs = b->pairs;
        if (b->smp > max_smp)
            max_smp = b->smp;
        if (b->slots > max_slots)
            max_slots = b->slots;
        if (b->count > max_count)
            max_count = b->count;
    }
    size_t np = (size_t)n1 * h->stride;
    /* the pair reader runs 32 bytes ahead of the last pair */
    if (!err)
        err = dev_alloc(&h->dev_bytes, &h->d_blk, n1);
    if (!err)
        err = dev_alloc(&h->dev_bytes, &h->d_order, max_count ? max_count : 1);
    if (!err)
        err = dev_alloc(&h->dev_bytes, &h->d_smp, max_smp + 4);
    if (!err)
        err = dev_alloc(&h->dev_bytes, &h->d_pairs, max_pairs + 64);
    if (!err)
        err = dev_alloc(&h->dev_bytes, &h->d_slots, max_slots + 16);
    if (!err)
        err = dev_alloc(&h->dev_bytes, &h->d_packed, packed + 16);
    if (!err)
        err = dev_alloc(&h->dev_bytes, &h->d_marks, (max_count ? max_count : 1) * h->stride);
    if (!err)
        err = dev_alloc(&h->dev_bytes, &h->d_bres, n1);
    if (!err)
        err = dev_alloc(&h->dev_bytes, &h->d_dist, np);
    if (!err)
        err = dev_alloc(&h->dev_bytes, &h->d_plen, np);
    if (!err)
        err = dev_alloc(&h->dev_bytes, &h->d_off, n1);
    if (!err)
        err = dev_alloc(&h->dev_bytes, &h->d_total, 1);
    if (!err)
        err = dev_alloc(&h->dev_bytes, &h->d_term, np);
    if (!err)
        err = dev_alloc(&h->dev_bytes, &h->d_sym, np);
    if (!err)
        err = host_alloc(&h->h_bres, n1);
    if (!err)
        err = host_alloc(&h->h_dist, np);
    if (!err)
        err = host_alloc(&h->h_plen, np);
    if (!err)
        err = host_alloc(&h->h_total, 1);
    if (!err)
        err = host_alloc(&h->h_term, np);
    if (!err)
        err = host_alloc(&h->h_sym, np);
    if (!err)
        err = host_alloc(&h->h_packed, packed + 16);
    if (!err && !(h->ev = (cudaEvent_t *)calloc(3 * nbatch + 1, sizeof(cudaEvent_t))))
        err = cudaErrorMemoryAllocation;
    for (unsigned k = 0; !err && k <= 3 * nbatch; k++)
        err = cudaEventCreate(&h->ev[k]);
    if (!err)
        err = cudaEventCreateWithFlags(&h->done, cudaEventDisableTiming);
    if (!err)
        err = cudaStreamCreateWithFlags(&h->copy, cudaStreamNonBlocking);
    if (!err)
        err = cudaMemcpy(h->d_blk, h->blk, n1 * sizeof(t1_blk), cudaMemcpyHostToDevice);
#ifndef SCI_T1_EMU
    /* the widest blocks (5 x 819) need more than the default 48 KiB */
    size_t smem = (size_t)MODEL_WARPS * words * 4;
    if (!err)
        err = cudaFuncSetAttribute(t1_model<true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int)smem);
    if (!err)
        err = cudaFuncSetAttribute(t1_model<false>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int)smem);
#endif
    if (err) {
        sci_cuda_t1_destroy(h);
        return err;
    }
    h->bytes = h->h_packed;
    *out = h;
    return cudaSuccess;
}

extern "C" int sci_cuda_t1_create(sci_cuda_t1 **out, sci_htj2k_enc *enc,
                                  const sci_wt_geometry *g, const sci_htj2k_params *p) {
    *out = NULL;
    if (p->coder != SCI_J2K_CODER_PART1)
        return cudaErrorInvalidValue;
    size_t nb = sci_htj2k_block_count(enc);
    sci_cuda_t1_block *b = (sci_cuda_t1_block *)calloc(nb ? nb : 1, sizeof(*b));
    if (!b)
        return cudaErrorMemoryAllocation;
    for (size_t i = 0; i < nb; i++) {
        sci_htj2k_block_info info;
        sci_htj2k_block_get(enc, i, &info);
        b[i].base = sci_htj2k_comp_offset(enc, info.comp) +
                    (size_t)info.y0 * sci_wt_comp_width(g, info.comp) + info.x0;
        b[i].stride = sci_wt_comp_width(g, info.comp);
        b[i].inv_step = g->filter == SCI_DWT_97 ? sci_htj2k_block_inv_step(enc, i) : 1.0f;
        sci_htj2k_t1_params(enc, i, &b[i].p);
    }
    sci_cuda_t1 *h = NULL;
    int err = sci_cuda_t1_create_blocks(&h, b, nb, g->filter == SCI_DWT_97);
    free(b);
    if (err)
        return err;
    h->enc = enc;
    h->qstep = sci_htj2k_last_qstep(enc);
    *out = h;
    return cudaSuccess;
}

extern "C" size_t sci_cuda_t1_device_bytes(const sci_cuda_t1 *h) {
    return h->dev_bytes;
}

extern "C" void sci_cuda_t1_set_timing(sci_cuda_t1 *h, int on) {
    h->timing = on;
}

extern "C" void sci_cuda_t1_get_times(const sci_cuda_t1 *h, sci_cuda_t1_times *t) {
    *t = h->times;
}

extern "C" void sci_cuda_t1_set_slot_limit(sci_cuda_t1 *h, size_t bytes) {
    h->slot_limit = bytes;
    for (unsigned i = 0; i < h->nb; i++) {
        const sci_t1_params *p = &h->src[i].p;
        size_t pairs = round16(((size_t)p->w * p->h * 5 / 2 + 4 + 3) * p->nbp);
        size_t slot = round16(pairs / 4 + 15 * (size_t)p->nbp + 16);
        if (bytes && bytes < slot)
            slot = bytes;
        h->blk[i].slot_cap = (uint32_t)slot;
    }
    cudaMemcpy(h->d_blk, h->blk, h->nb * sizeof(t1_blk), cudaMemcpyHostToDevice);
}

extern "C" void sci_cuda_t1_set_mq_lanes(sci_cuda_t1 *h, unsigned lanes) {
    h->lanes = lanes < 1 ? 1 : lanes > 32 ? 32 : lanes;
}

extern "C" void sci_cuda_t1_set_mq_heavy(sci_cuda_t1 *h, unsigned warps) {
    h->heavy = warps;
}
