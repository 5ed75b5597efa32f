/*
 * Tile bodies of the wavelet kernels (cuda/j2k/dwt.cu launches them).
 *
 * A block owns an output tile of TW x TH samples of one level.  It reads
 * the tile plus a halo of H samples on every side (H = number of lifting
 * steps), through whole-sample symmetric extension at the band edges, and
 * lifts everything unconditionally: lifting keeps a symmetrically extended
 * signal symmetric, so the values computed at mirrored positions are the
 * ones the C reference gets by mirroring step by step (float addition being
 * commutative, even bit for bit).  A step only uses neighbours one sample
 * further out, so after H steps the tile proper is exact; recomputing the
 * halo is the price of having no inter-block communication.
 *
 * Lifting runs in registers on segments of SEG outputs plus their halo, one
 * segment a thread: columns (consecutive threads, consecutive columns, so
 * global loads and stores coalesce) and rows (consecutive threads,
 * consecutive rows of a shared tile with an odd pitch, so no bank
 * conflicts).  Shared memory only turns columns into rows: the forward goes
 * memory -> column lifting -> shared -> row lifting -> shared -> subbands;
 * the inverse subbands -> shared -> row lifting -> shared -> column lifting
 * -> memory.  Where a pass writes back in place, its work is split into
 * rounds of whole lines with a barrier between reading and writing.
 *
 * SCI_DWT_EMU builds run the same code on the host, a block as NT
 * coroutines meeting at each barrier.
 */
#ifndef SCI_CUDA_DWT_TILE_CUH
#define SCI_CUDA_DWT_TILE_CUH

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "codec/j2k/wavelet_frame.h"

#if defined(__CUDACC__)
#define SCI_HD __host__ __device__ __forceinline__
#else
#define SCI_HD inline
#endif

#if defined(__CUDA_ARCH__)
#define SCI_UNROLL _Pragma("unroll")
#else
#define SCI_UNROLL
#endif

/* Components of a group live in registers: loop over a constant bound so
 * that arrays indexed by q stay out of local memory. */
#define SCI_FOR_COMP(q, n) \
    SCI_UNROLL for (int q = 0; q < 3; q++) if (q < (n))

#if defined(__CUDA_ARCH__)
#define SCI_SYNC() __syncthreads()
#elif defined(SCI_DWT_EMU)
void sci_wt_emu_sync(void);
#define SCI_SYNC() sci_wt_emu_sync()
#else
#define SCI_SYNC() ((void)0)
#endif

namespace sci_wt {

constexpr int TW = 64;          /* tile width; a warp covers a subband row */
constexpr int NT = 288;         /* threads per block: 9 warps */
constexpr int MAX_GROUPS = SCI_WT_MAX_COMPONENTS;

template <int F> struct filt;
template <> struct filt<SCI_DWT_53> {
    typedef int32_t T;
    static constexpr int H = 2;      /* lifting steps = halo */
};
template <> struct filt<SCI_DWT_97> {
    typedef float T;
    static constexpr int H = 4;
};

/* One set of components transformed by the same blocks: a single
 * component, or components c..c+2 when a colour transform ties them
 * together at the sample side (level 1). */
struct group {
    int nc;
    int w, h;          /* signal at this level: forward input, inverse output */
    int lw, lh;        /* its low-pass size */
    int do_h, do_v;    /* 0 when that dimension is one sample: identity */
    int tiles_x;
    int block_begin, block_end;
    /* video samples (forward level 1 input, inverse level 1 output) */
    uint8_t *smp[3];
    ptrdiff_t smp_row[3];
    int smp_px[3];
    int smp_al16;      /* every sample address is 2-byte aligned */
    int smp_vec;       /* planar rows, 4 samples' bytes aligned */
    /* low band in and out; detail bands always in the coefficient plane */
    void *ll_in[3];
    size_t ll_in_pitch;
    void *ll_out[3];
    size_t ll_out_pitch;
    void *coef[3];
    size_t coef_pitch;
    /* inverse output by the JPEG 2000 decoder's rules (params.dec), per
     * component: DC shift, clamp range after it, bytes a sample */
    int32_t out_shift[3], out_lo[3], out_hi[3];
    int out_bytes[3];
    int comp0;         /* its first component (host side only) */
};

struct params {
    group g[MAX_GROUPS];
    int ngroups;
    int bytes;         /* 1 or 2 per sample */
    int32_t shift;     /* 2^(depth-1) */
    int32_t maxv;      /* 2^depth - 1 */
    int32_t mask;
    int ct;
    int dec;           /* inverse output as codec/j2k/j2k_dec.c writes it */
    int strip_rows;    /* rows of a forward warp's chunk (dwt_strip.cuh) */
};

SCI_HD const group &find_group(const params &p, int block) {
    int i = 0;
    while (i + 1 < p.ngroups && block >= p.g[i].block_end)
        i++;
    return p.g[i];
}

/* Whole-sample symmetric extension (Annex F.3.7) of index i in a signal of
 * n >= 1 samples, repeated as often as short signals need. */
SCI_HD int refl(int i, int n) {
    if ((unsigned)i < (unsigned)n)
        return i;
    if (n == 1)
        return 0;
    int period = 2 * (n - 1);
    i %= period;
    if (i < 0)
        i += period;
    return i < n ? i : period - i;
}

SCI_HD int32_t read_sample(const group &g, int q, int bytes, int y, int x) {
    const uint8_t *a = g.smp[q] + (ptrdiff_t)y * g.smp_row[q]
        + (ptrdiff_t)x * g.smp_px[q];
    if (bytes == 1)
        return a[0];
    if (g.smp_al16)
        return *(const uint16_t *)a;
    return a[0] | (a[1] << 8);
}

SCI_HD void write_sample(const group &g, int q, int bytes, int y, int x,
                         int32_t v) {
    uint8_t *a = g.smp[q] + (ptrdiff_t)y * g.smp_row[q]
        + (ptrdiff_t)x * g.smp_px[q];
    if (bytes == 1) {
        a[0] = (uint8_t)v;
    } else if (g.smp_al16) {
        *(uint16_t *)a = (uint16_t)v;
    } else {
        a[0] = (uint8_t)v;
        a[1] = (uint8_t)(v >> 8);
    }
}

SCI_HD void store_sample(uint8_t *a, int bytes, int al16, int32_t v) {
    if (bytes == 1) {
        a[0] = (uint8_t)v;
    } else if (al16) {
        *(uint16_t *)a = (uint16_t)v;
    } else {
        a[0] = (uint8_t)v;
        a[1] = (uint8_t)(v >> 8);
    }
}

/* ---- the arithmetic the C reference does, in its order ---------------- */

/* Lifting step k (1-based) of the forward transform: odd k updates the odd
 * samples from their even neighbours a, b, even k the even ones. */
template <int F> SCI_HD typename filt<F>::T fwd_step(int k, typename filt<F>::T x,
                                                     typename filt<F>::T a,
                                                     typename filt<F>::T b);
template <> SCI_HD int32_t fwd_step<SCI_DWT_53>(int k, int32_t x, int32_t a,
                                                int32_t b) {
    if (k == 1)
        return x - ((a + b) >> 1);
    return x + ((a + b + 2) >> 2);
}
template <> SCI_HD float fwd_step<SCI_DWT_97>(int k, float x, float a, float b) {
    const float c = k == 1 ? SCI_DWT97_ALPHA : k == 2 ? SCI_DWT97_BETA
        : k == 3 ? SCI_DWT97_GAMMA : SCI_DWT97_DELTA;
    return x + c * (a + b);
}

/* Inverse step k: odd k updates the even samples, even k the odd ones. */
template <int F> SCI_HD typename filt<F>::T inv_step(int k, typename filt<F>::T x,
                                                     typename filt<F>::T a,
                                                     typename filt<F>::T b);
template <> SCI_HD int32_t inv_step<SCI_DWT_53>(int k, int32_t x, int32_t a,
                                                int32_t b) {
    if (k == 1)
        return x - ((a + b + 2) >> 2);
    return x + ((a + b) >> 1);
}
template <> SCI_HD float inv_step<SCI_DWT_97>(int k, float x, float a, float b) {
    const float c = k == 1 ? SCI_DWT97_DELTA : k == 2 ? SCI_DWT97_GAMMA
        : k == 3 ? SCI_DWT97_BETA : SCI_DWT97_ALPHA;
    return x - c * (a + b);
}

/* 9/7 normalisation: forward low-pass and inverse high-pass divide by K,
 * the other two multiply. */
SCI_HD float scale_lo_fwd(float v) { return v * SCI_DWT97_INV_K; }
SCI_HD float scale_hi_fwd(float v) { return v * SCI_DWT97_K; }
SCI_HD float scale_lo_inv(float v) { return v * SCI_DWT97_K; }
SCI_HD float scale_hi_inv(float v) { return v * SCI_DWT97_INV_K; }

/* Samples of components 0..2 (already DC shifted) to the transform's input. */
SCI_HD void rct_fwd(int32_t r, int32_t g, int32_t b, int32_t *o) {
    o[0] = (r + 2 * g + b) >> 2;
    o[1] = b - g;
    o[2] = r - g;
}
SCI_HD void rct_inv(const int32_t *i, int32_t *o) {
    int32_t g = i[0] - ((i[1] + i[2]) >> 2);
    o[0] = i[2] + g;
    o[1] = g;
    o[2] = i[1] + g;
}
SCI_HD void ict_fwd(float r, float g, float b, float *o) {
    o[0] = 0.299f * r + 0.587f * g + 0.114f * b;
    o[1] = -0.16875f * r - 0.33126f * g + 0.5f * b;
    o[2] = 0.5f * r - 0.41869f * g - 0.08131f * b;
}
SCI_HD void ict_inv(const float *i, float *o) {
    o[0] = i[0] + 1.402f * i[2];
    o[1] = i[0] - 0.34413f * i[1] - 0.71414f * i[2];
    o[2] = i[0] + 1.772f * i[1];
}

/* Transform input of the nc components at one sample position. */
template <int F>
SCI_HD void fetch_samples(const params &p, const group &g, int y, int x,
                          typename filt<F>::T *v) {
    int32_t s[3];
    SCI_FOR_COMP(q, g.nc)
        s[q] = (read_sample(g, q, p.bytes, y, x) & p.mask) - p.shift;
    if (g.nc == 3) {
        if (F == SCI_DWT_53) {
            int32_t o[3];
            rct_fwd(s[0], s[1], s[2], o);
            for (int q = 0; q < 3; q++)
                v[q] = (typename filt<F>::T)o[q];
        } else {
            float o[3];
            ict_fwd((float)s[0], (float)s[1], (float)s[2], o);
            for (int q = 0; q < 3; q++)
                v[q] = (typename filt<F>::T)o[q];
        }
    } else {
        v[0] = (typename filt<F>::T)s[0];
    }
}

/* The JPEG 2000 decoder's samples (codec/j2k/j2k_dec.c, put_samples):
 * 9/7 values rounded to nearest with ties to even (lrintf), NaN to 0 and
 * magnitudes beyond 1e9 held there; the DC shift and the clamp to the
 * component's range (signed ones unshifted) in 64 bits, so that garbage
 * coefficients cannot overflow. */
SCI_HD int32_t dec_sample(const group &g, int q, int64_t v) {
    v += g.out_shift[q];
    return v < g.out_lo[q] ? g.out_lo[q] : v > g.out_hi[q] ? g.out_hi[q] : (int32_t)v;
}
SCI_HD int64_t dec_round(float v) {
    if (!(v == v))
        return 0;
    if (v > 1e9f)
        return 1000000000;
    if (v < -1e9f)
        return -1000000000;
    return (int64_t)rintf(v);
}

SCI_HD int32_t to_sample(const params &p, const group &g, int q, int32_t v) {
    if (p.dec)
        return dec_sample(g, q, v);
    v += p.shift;
    return v < 0 ? 0 : v > p.maxv ? p.maxv : v;
}
SCI_HD int32_t to_sample(const params &p, const group &g, int q, float v) {
    if (p.dec)
        return dec_sample(g, q, dec_round(v));
    float r = floorf(v + 0.5f);
    /* clamp in float first: out-of-range floats have no int32 value; the
     * comparisons are written so that NaN goes to the low end, as in
     * codec/j2k/wavelet_frame.c */
    float lo = (float)-p.shift, hi = (float)(p.maxv - p.shift);
    r = r >= lo ? r : lo;
    r = r <= hi ? r : hi;
    return (int32_t)r + p.shift;
}

/* Bytes a sample of component q of the group's output. */
SCI_HD int out_bytes(const params &p, const group &g, int q) {
    return p.dec ? g.out_bytes[q] : p.bytes;
}

/* Inverse output of the nc components at one sample position. */
template <int F>
SCI_HD void store_samples(const params &p, const group &g, int y, int x,
                          const typename filt<F>::T *v) {
    typedef typename filt<F>::T T;
    T o[3];
    if (g.nc == 3) {
        if (F == SCI_DWT_53) {
            int32_t i3[3] = {(int32_t)v[0], (int32_t)v[1], (int32_t)v[2]};
            int32_t o3[3];
            rct_inv(i3, o3);
            for (int q = 0; q < 3; q++)
                o[q] = (T)o3[q];
        } else {
            float i3[3] = {(float)v[0], (float)v[1], (float)v[2]};
            float o3[3];
            ict_inv(i3, o3);
            for (int q = 0; q < 3; q++)
                o[q] = (T)o3[q];
        }
    } else {
        o[0] = v[0];
    }
    SCI_FOR_COMP(q, g.nc)
        write_sample(g, q, out_bytes(p, g, q), y, x, to_sample(p, g, q, o[q]));
}

/* ---- tile geometry --------------------------------------------------- */

constexpr int SEG = 16;         /* outputs of one thread's line segment */
constexpr int BATCH = 5;        /* rows of loads a thread issues at once */

template <int F, int TH> struct tile {
    static constexpr int H = filt<F>::H;
    static constexpr int N = SEG + 2 * H;   /* a segment with its halo */
    static constexpr int SW = TW + 2 * H;   /* tile row with its halo */
    static constexpr int SWH = SW / 2;
    /* odd, so that threads walking different rows hit different banks */
    static constexpr int PITCH = SW + 1;
    static constexpr int SH = TH + 2 * H;
    static constexpr int SEGS_X = TW / SEG;
    static constexpr int SEGS_Y = TH / SEG;
    static constexpr int FWD_WORDS = TH * PITCH;
    static constexpr int INV_WORDS = SH * PITCH; /* per component */
};

/* The 1-D lifting of one segment in registers.  Segments start at an even
 * position, so index parity is sample parity; step k only touches samples
 * whose neighbours are still exact, and after H steps v[H .. H+SEG) are. */
template <int F, int N>
SCI_HD void lift_fwd(typename filt<F>::T (&v)[N]) {
    SCI_UNROLL
    for (int k = 1; k <= filt<F>::H; k++) {
        SCI_UNROLL
        for (int i = k; i <= N - 1 - k; i++)
            if ((i & 1) == (k & 1))
                v[i] = fwd_step<F>(k, v[i], v[i - 1], v[i + 1]);
    }
    if (F == SCI_DWT_97) {
        SCI_UNROLL
        for (int i = filt<F>::H; i < N - filt<F>::H; i++)
            v[i] = (i & 1) ? scale_hi_fwd(v[i]) : scale_lo_fwd(v[i]);
    }
}

template <int F, int N>
SCI_HD void lift_inv(typename filt<F>::T (&v)[N]) {
    if (F == SCI_DWT_97) {
        SCI_UNROLL
        for (int i = 0; i < N; i++)
            v[i] = (i & 1) ? scale_hi_inv(v[i]) : scale_lo_inv(v[i]);
    }
    SCI_UNROLL
    for (int k = 1; k <= filt<F>::H; k++) {
        SCI_UNROLL
        for (int i = k; i <= N - 1 - k; i++)
            if ((i & 1) != (k & 1))
                v[i] = inv_step<F>(k, v[i], v[i - 1], v[i + 1]);
    }
}

SCI_HD int32_t load_sample(const uint8_t *a, int bytes, int al16) {
    if (bytes == 1)
        return a[0];
    if (al16)
        return *(const uint16_t *)a;
    return a[0] | (a[1] << 8);
}

/* Mirrored coordinate, or the coordinate itself in blocks whose reads all
 * fall inside the band. */
template <bool EDGE> SCI_HD int at(int i, int n) {
    return EDGE ? refl(i, n) : i;
}

/* ---- forward: one level ----------------------------------------------- */

/* One component.  Columns: a thread loads a column segment with its
 * vertical halo straight from memory (consecutive threads, consecutive
 * columns), lifts it and leaves its exact part in shared memory, rows
 * 0..TH-1.  Then the rows, in place. */
template <int F, int TH, bool FIRST, bool EDGE>
SCI_HD void fwd_one(const params &p, const group &g, int x0, int y0, int tid,
                    int nt, typename filt<F>::T *sm) {
    typedef tile<F, TH> t;
    typedef typename filt<F>::T T;
    const int H = t::H;
    for (int w = tid; w < t::SW * t::SEGS_Y; w += nt) {
        int seg = w / t::SW, c = w - seg * t::SW;
        int x = at<EDGE>(x0 - H + c, g.w);
        int yb = y0 + seg * SEG - H;
        T v[t::N];
        if (FIRST) {
            const uint8_t *col = g.smp[0] + (ptrdiff_t)x * g.smp_px[0];
            SCI_UNROLL
            for (int i = 0; i < t::N; i++) {
                int y = at<EDGE>(yb + i, g.h);
                v[i] = (T)((load_sample(col + (ptrdiff_t)y * g.smp_row[0],
                                        p.bytes, g.smp_al16) & p.mask) - p.shift);
            }
        } else {
            const T *col = (const T *)g.ll_in[0] + x;
            SCI_UNROLL
            for (int i = 0; i < t::N; i++)
                v[i] = col[(size_t)at<EDGE>(yb + i, g.h) * g.ll_in_pitch];
        }
        if (!EDGE || g.do_v)
            lift_fwd<F, t::N>(v);
        T *d = sm + seg * SEG * t::PITCH + c;
        SCI_UNROLL
        for (int i = 0; i < SEG; i++)
            d[i * t::PITCH] = v[H + i];
    }
    SCI_SYNC();
}

/* Components 0..2 under a colour transform, in one block: the samples are
 * read and transformed once into three shared tiles with their vertical
 * halo (rows 0..SH-1), then the columns are lifted in place. */
template <int F, int TH, bool EDGE>
SCI_HD void fwd_three(const params &p, const group &g, int x0, int y0, int tid,
                      int nt, typename filt<F>::T *sm) {
    typedef tile<F, TH> t;
    typedef typename filt<F>::T T;
    const int H = t::H;
    {
        /* a thread keeps one column and walks down the rows, issuing the
         * loads of BATCH rows before using the first */
        constexpr int RSTEP = NT / t::SW;
        constexpr int ITER = (t::SH + RSTEP - 1) / RSTEP;
        const int r0 = tid / t::SW, c = tid - r0 * t::SW;
        if (r0 < RSTEP) {
            int x = at<EDGE>(x0 - H + c, g.w);
            const uint8_t *col[3];
            SCI_FOR_COMP(q, 3)
                col[q] = g.smp[q] + (ptrdiff_t)x * g.smp_px[q];
            SCI_UNROLL
            for (int b0 = 0; b0 < ITER; b0 += BATCH) {
                int32_t s[BATCH][3];
                SCI_UNROLL
                for (int it = b0; it < b0 + BATCH && it < ITER; it++) {
                    int r = r0 + it * RSTEP;
                    if (it == ITER - 1 && r >= t::SH)
                        break;
                    int y = at<EDGE>(y0 - H + r, g.h);
                    SCI_FOR_COMP(q, 3)
                        s[it - b0][q] = load_sample(col[q] + (ptrdiff_t)y
                                                    * g.smp_row[q], p.bytes,
                                                    g.smp_al16);
                }
                SCI_UNROLL
                for (int it = b0; it < b0 + BATCH && it < ITER; it++) {
                    int r = r0 + it * RSTEP;
                    if (it == ITER - 1 && r >= t::SH)
                        break;
                    int32_t u[3];
                    SCI_FOR_COMP(q, 3)
                        u[q] = (s[it - b0][q] & p.mask) - p.shift;
                    T v[3];
                    if (F == SCI_DWT_53) {
                        int32_t o[3];
                        rct_fwd(u[0], u[1], u[2], o);
                        SCI_FOR_COMP(q, 3)
                            v[q] = (T)o[q];
                    } else {
                        float o[3];
                        ict_fwd((float)u[0], (float)u[1], (float)u[2], o);
                        SCI_FOR_COMP(q, 3)
                            v[q] = (T)o[q];
                    }
                    SCI_FOR_COMP(q, 3)
                        sm[q * t::INV_WORDS + r * t::PITCH + c] = v[q];
                }
            }
        }
    }
    SCI_SYNC();

    /* columns in place, in rounds of whole columns: read, barrier, write */
    const int lines = 3 * t::SW;
    const int lpr = nt / t::SEGS_Y;
    const int seg = tid / lpr, line = tid - seg * lpr;
    for (int l0 = 0; l0 < lines; l0 += lpr) {
        int ln = l0 + line;
        bool act = seg < t::SEGS_Y && ln < lines;
        int q = ln / t::SW, c = ln - q * t::SW;
        T *col = sm + q * t::INV_WORDS + seg * SEG * t::PITCH + c;
        T v[t::N];
        if (act) {
            SCI_UNROLL
            for (int i = 0; i < t::N; i++)
                v[i] = col[i * t::PITCH];
            if (!EDGE || g.do_v)
                lift_fwd<F, t::N>(v);
        }
        SCI_SYNC();
        if (act) {
            SCI_UNROLL
            for (int i = 0; i < SEG; i++)
                col[(H + i) * t::PITCH] = v[H + i];
        }
    }
    SCI_SYNC();
}

/* The rows of a forward tile, in place, and the four subbands out.  Tile
 * rows of component q start at sm + q * stride + row0 * PITCH. */
template <int F, int TH, bool EDGE>
SCI_HD void fwd_rows_out(const group &g, int nc, int q0, int x0, int y0,
                         int tid, int nt, typename filt<F>::T *sm, int stride,
                         int row0) {
    typedef tile<F, TH> t;
    typedef typename filt<F>::T T;
    const int H = t::H;
    /* a thread lifts a row segment and writes it back split into its low
     * and high halves; rounds cover whole rows */
    {
        const int lines = nc * TH;
        const int lpr = nt / t::SEGS_X;
        const int seg = tid / lpr, line = tid - seg * lpr;
        for (int l0 = 0; l0 < lines; l0 += lpr) {
            int ln = l0 + line;
            bool act = seg < t::SEGS_X && ln < lines;
            int q = ln / TH, r = ln - q * TH;
            T *row = sm + q * stride + (row0 + r) * t::PITCH;
            T v[t::N];
            if (act) {
                SCI_UNROLL
                for (int i = 0; i < t::N; i++)
                    v[i] = row[seg * SEG + i];
                if (!EDGE || g.do_h)
                    lift_fwd<F, t::N>(v);
            }
            SCI_SYNC();
            if (act) {
                SCI_UNROLL
                for (int i = 0; i < SEG / 2; i++) {
                    row[H + seg * (SEG / 2) + i] = v[H + 2 * i];
                    row[H + TW / 2 + seg * (SEG / 2) + i] = v[H + 2 * i + 1];
                }
            }
        }
        SCI_SYNC();
    }

    /* a warp writes one band row of 32 samples */
    const int hw = g.w >> 1;
    for (int w = tid; w < nc * TH * (TW / 2); w += nt) {
        int u = w / (TW / 2), j = w - u * (TW / 2);
        int q = u / TH, r = u - q * TH;
        int y = y0 + r;
        if (y >= g.h)
            continue;
        int by = y >> 1, bx = (x0 >> 1) + j;
        const T *row = sm + q * stride + (row0 + r) * t::PITCH + H;
        T lo = row[j], hi = row[TW / 2 + j];
        T *coef = (T *)g.coef[q0 + q];
        if (!(r & 1)) {
            if (bx < g.lw)
                ((T *)g.ll_out[q0 + q])[(size_t)by * g.ll_out_pitch + bx] = lo;
            if (bx < hw)
                coef[(size_t)by * g.coef_pitch + g.lw + bx] = hi;
        } else {
            size_t o = (size_t)(g.lh + by) * g.coef_pitch;
            if (bx < g.lw)
                coef[o + bx] = lo;
            if (bx < hw)
                coef[o + g.lw + bx] = hi;
        }
    }
}

template <int F, int TH, bool FIRST, bool EDGE>
SCI_HD void fwd_body(const params &p, const group &g, int x0, int y0, int tid,
                     int nt, typename filt<F>::T *sm) {
    typedef tile<F, TH> t;
    /* three components in a block only come with tiles of <= 32 rows
     * (dwt.cu), whose shared tiles fit in 48 KB */
    if constexpr (FIRST && TH <= 32) {
        if (g.nc == 3) {
            fwd_three<F, TH, EDGE>(p, g, x0, y0, tid, nt, sm);
            fwd_rows_out<F, TH, EDGE>(g, 3, 0, x0, y0, tid, nt, sm,
                                      t::INV_WORDS, t::H);
            return;
        }
    }
    fwd_one<F, TH, FIRST, EDGE>(p, g, x0, y0, tid, nt, sm);
    fwd_rows_out<F, TH, EDGE>(g, 1, 0, x0, y0, tid, nt, sm, 0, 0);
}

template <int F, int TH, bool FIRST>
SCI_HD void fwd_tile(const params &p, int block, int tid, int nt,
                     typename filt<F>::T *sm) {
    const int H = filt<F>::H;
    const group &g = find_group(p, block);
    const int b = block - g.block_begin;
    const int ty = b / g.tiles_x;
    const int x0 = (b - ty * g.tiles_x) * TW, y0 = ty * TH;
    if (x0 >= H && x0 + TW + H <= g.w && y0 >= H && y0 + TH + H <= g.h)
        fwd_body<F, TH, FIRST, false>(p, g, x0, y0, tid, nt, sm);
    else
        fwd_body<F, TH, FIRST, true>(p, g, x0, y0, tid, nt, sm);
}

/* ---- inverse: one level ----------------------------------------------- */

/* A block does all nc components of its tile: three only at level 1 under
 * a colour transform, which needs them together to write samples. */
template <int F, int TH, bool LAST, bool EDGE>
SCI_HD void inv_body(const params &p, const group &g, int x0, int y0, int tid,
                     int nt, typename filt<F>::T *sm) {
    typedef tile<F, TH> t;
    typedef typename filt<F>::T T;
    const int H = t::H;
    const int nc = g.nc;

    /* gather the interleaved signal from the four subbands, a thread per
     * even/odd column pair (one sample of each of two bands, both unit
     * stride), rows split into even and odd halves; the band is chosen by
     * the parity of the mirrored position (equal to the local parity except
     * in a one-sample dimension, which is never lifted) */
    {
        constexpr int RSTEP = NT / t::SWH;
        constexpr int ITER = (t::SH + RSTEP - 1) / RSTEP;
        const int r0 = tid / t::SWH, k = tid - r0 * t::SWH;
        for (int q = 0; q < nc && r0 < RSTEP; q++) {
            const T *ll = (const T *)g.ll_in[q], *coef = (const T *)g.coef[q];
            /* BATCH rows of loads in flight before the first store */
            SCI_UNROLL
            for (int b0 = 0; b0 < ITER; b0 += BATCH) {
                T ev[BATCH], od[BATCH];
                SCI_UNROLL
                for (int it = b0; it < b0 + BATCH && it < ITER; it++) {
                    int r = r0 + it * RSTEP;
                    if (it == ITER - 1 && r >= t::SH)
                        break;
                    int y = at<EDGE>(y0 - H + r, g.h);
                    int yb = y >> 1;
                    const T *even, *odd;
                    if (!(y & 1)) {
                        even = ll + (size_t)yb * g.ll_in_pitch;
                        odd = coef + (size_t)yb * g.coef_pitch + g.lw;
                    } else {
                        even = coef + (size_t)(g.lh + yb) * g.coef_pitch;
                        odd = even + g.lw;
                    }
                    if (EDGE) {
                        int xe = refl(x0 - H + 2 * k, g.w);
                        int xo = refl(x0 - H + 2 * k + 1, g.w);
                        ev[it - b0] = (xe & 1 ? odd : even)[xe >> 1];
                        od[it - b0] = (xo & 1 ? odd : even)[xo >> 1];
                    } else {
                        int xb = ((x0 - H) >> 1) + k;
                        ev[it - b0] = even[xb];
                        od[it - b0] = odd[xb];
                    }
                }
                SCI_UNROLL
                for (int it = b0; it < b0 + BATCH && it < ITER; it++) {
                    int r = r0 + it * RSTEP;
                    if (it == ITER - 1 && r >= t::SH)
                        break;
                    T *d = sm + q * t::INV_WORDS + r * t::PITCH + k;
                    d[0] = ev[it - b0];
                    d[t::SWH] = od[it - b0];
                }
            }
        }
    }
    SCI_SYNC();

    /* rows, all of them (the vertical pass needs the halo rows): lift a
     * segment, then write the exact part back interleaved */
    {
        const int lpr = nt / t::SEGS_X;
        const int seg = tid / lpr, line = tid - seg * lpr;
        for (int l0 = 0; l0 < nc * t::SH; l0 += lpr) {
            int ln = l0 + line;
            bool act = seg < t::SEGS_X && ln < nc * t::SH;
            int q = ln >= t::SH ? (ln >= 2 * t::SH ? 2 : 1) : 0;
            T *row = sm + q * t::INV_WORDS + (ln - q * t::SH) * t::PITCH;
            T v[t::N];
            if (act) {
                SCI_UNROLL
                for (int i = 0; i < t::N; i++)
                    v[i] = row[(i & 1) * t::SWH + seg * (SEG / 2) + (i >> 1)];
                if (!EDGE || g.do_h)
                    lift_inv<F, t::N>(v);
            }
            SCI_SYNC();
            if (act) {
                SCI_UNROLL
                for (int i = 0; i < SEG; i++)
                    row[H + seg * SEG + i] = v[H + i];
            }
        }
        SCI_SYNC();
    }

    /* columns of the tile proper: lift a segment and write it out, each
     * warp a run of one output row */
    if (!LAST || nc == 1) {
        for (int w = tid; w < nc * TW * t::SEGS_Y; w += nt) {
            int c = w % TW, u = w / TW;
            int seg = u % t::SEGS_Y, q = u / t::SEGS_Y;
            const T *s = sm + q * t::INV_WORDS + seg * SEG * t::PITCH + H + c;
            T v[t::N];
            SCI_UNROLL
            for (int i = 0; i < t::N; i++)
                v[i] = s[i * t::PITCH];
            if (!EDGE || g.do_v)
                lift_inv<F, t::N>(v);
            int x = x0 + c, y = y0 + seg * SEG;
            if (x >= g.w)
                continue;
            if (LAST) {
                uint8_t *a = g.smp[q] + (ptrdiff_t)y * g.smp_row[q]
                    + (ptrdiff_t)x * g.smp_px[q];
                const int ob = out_bytes(p, g, q);
                SCI_UNROLL
                for (int i = 0; i < SEG; i++) {
                    if (EDGE && y + i >= g.h)
                        break;
                    store_sample(a, ob, g.smp_al16, to_sample(p, g, q, v[H + i]));
                    a += g.smp_row[q];
                }
            } else {
                T *o = (T *)g.ll_out[q] + (size_t)y * g.ll_out_pitch + x;
                SCI_UNROLL
                for (int i = 0; i < SEG; i++) {
                    if (EDGE && y + i >= g.h)
                        break;
                    o[(size_t)i * g.ll_out_pitch] = v[H + i];
                }
            }
        }
        return;
    }

    /* colour transform: columns back into shared memory first (rounds
     * cover whole columns), then all three components per sample */
    {
        const int lines = nc * TW;
        const int lpr = nt / t::SEGS_Y;
        const int seg = tid / lpr, line = tid - seg * lpr;
        for (int l0 = 0; l0 < lines; l0 += lpr) {
            int ln = l0 + line;
            bool act = seg < t::SEGS_Y && ln < lines;
            int q = ln / TW, c = ln - q * TW;
            T *col = sm + q * t::INV_WORDS + seg * SEG * t::PITCH + H + c;
            T v[t::N];
            if (act) {
                SCI_UNROLL
                for (int i = 0; i < t::N; i++)
                    v[i] = col[i * t::PITCH];
                if (!EDGE || g.do_v)
                    lift_inv<F, t::N>(v);
            }
            SCI_SYNC();
            if (act) {
                SCI_UNROLL
                for (int i = 0; i < SEG; i++)
                    col[(H + i) * t::PITCH] = v[H + i];
            }
        }
        SCI_SYNC();
    }
    for (int w = tid; w < TH * TW; w += nt) {
        int r = w / TW, c = w - r * TW;
        int y = y0 + r, x = x0 + c;
        if (EDGE && (y >= g.h || x >= g.w))
            continue;
        T v[3];
        SCI_FOR_COMP(q, nc)
            v[q] = sm[q * t::INV_WORDS + (H + r) * t::PITCH + H + c];
        store_samples<F>(p, g, y, x, v);
    }
}

template <int F, int TH, bool LAST>
SCI_HD void inv_tile(const params &p, int block, int tid, int nt,
                     typename filt<F>::T *sm) {
    const int H = filt<F>::H;
    const group &g = find_group(p, block);
    const int b = block - g.block_begin;
    const int ty = b / g.tiles_x;
    const int x0 = (b - ty * g.tiles_x) * TW, y0 = ty * TH;
    if (x0 >= H && x0 + TW + H <= g.w && y0 >= H && y0 + TH + H <= g.h)
        inv_body<F, TH, LAST, false>(p, g, x0, y0, tid, nt, sm);
    else
        inv_body<F, TH, LAST, true>(p, g, x0, y0, tid, nt, sm);
}

/* ---- no decomposition at all (levels 0, or a 1x1 component) ----------- */

template <int F, int TH, bool INV>
SCI_HD void copy_tile(const params &p, int block, int tid, int nt) {
    typedef typename filt<F>::T T;
    const group &g = find_group(p, block);
    const int b = block - g.block_begin;
    const int ty = b / g.tiles_x;
    const int x0 = (b - ty * g.tiles_x) * TW, y0 = ty * TH;
    for (int idx = tid; idx < TH * TW; idx += nt) {
        int r = idx / TW, c = idx - r * TW;
        int y = y0 + r, x = x0 + c;
        if (y >= g.h || x >= g.w)
            continue;
        T v[3];
        if (INV) {
            SCI_FOR_COMP(q, g.nc)
                v[q] = ((const T *)g.coef[q])[(size_t)y * g.coef_pitch + x];
            store_samples<F>(p, g, y, x, v);
        } else {
            fetch_samples<F>(p, g, y, x, v);
            SCI_FOR_COMP(q, g.nc)
                ((T *)g.coef[q])[(size_t)y * g.coef_pitch + x] = v[q];
        }
    }
}

} /* namespace sci_wt */

#endif
