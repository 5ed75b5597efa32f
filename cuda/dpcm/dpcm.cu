/*
 * Online-DPCM on the GPU (see dpcm.h).  Every rule that must agree with the
 * C reference to the bit comes from codec/dpcm/dpcm_core.h (or, where the work
 * is spread over threads, follows its operations in its order: solve_coop,
 * solve_rows, window_entry, add_diagonal, the warp segment coders); this
 * file only decides who computes what, where.
 *
 * Encoder, per frame:
 *   1. blocksum: the rows are cut into nb blocks; a thread per (block,
 *      sum entry, column) adds that entry of each row's equation at the
 *      column over its block (cols[blk][t][x], coalesced over x);
 *   2. scan: a thread per (entry, column) sums its window's equations and
 *      turns the block sums into sums over the rows before each block;
 *   3. predict: a group of 16 threads per (block, column) walks its
 *      block's rows from those sums: the lanes hold the system's rows
 *      (solve_rows, N = 11) or share it in shared memory (solve_coop, any
 *      other N), slide the window sums along the matrix's diagonals
 *      (add_diagonal), and write the residuals;
 *   4. thresholds from a histogram (shared-memory bins near 0, global
 *      ones beyond), read back by the segment coder on the device;
 *   5. a warp per segment codes it into a slot of its bound: the lanes
 *      find 32 symbols' frequencies at once, then the coder runs through
 *      them;
 *   6. a scan of the lengths and a copy close the slots up, and only the
 *      coded bytes go to the host.
 * Decoder, per batch: a warp per segment of every frame decodes the
 * residuals (cumulative class frequencies in shared memory); then the
 * frames are rebuilt in strips of 4 to 32 columns (a frame alone in narrow
 * ones, so that its strips fill the SMs; large batches in strips of 8), a
 * block per strip, the strips of a frame a row apart (rebuild_strip: one
 * kernel for narrow strips in large blocks, one for the others).
 *
 * Built with SCI_DPCM_EMU, each kernel becomes a host loop over the same
 * device functions: the kernels of warps (predict's groups, the segment
 * coders) run a warp at a time with its 32 lanes as coroutines
 * (cuda/common/warp_emu.h), so their shuffles, ballots and reductions run as on
 * the device; the others run with one thread (barriers no-ops, strips one
 * after another).  tests/dpcm/dpcm_emu.cpp checks the kernels against the C
 * reference without a GPU, once with each way of reducing over a warp
 * (w_sum below).
 *
 * Turing (sm_75) has no warp reduction instructions (__reduce_*_sync,
 * sm_80): there, or with SCI_DPCM_SHFL_REDUCE, sums, maxima and minima
 * over a warp are shuffle butterflies.  They are integer operations, so
 * both give the same values, and the same bytes.
 */
#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>

#include "dpcm.h"
#include "codec/dpcm/dpcm_core.h"
#include "cuda/common/devbuf.cuh"

#ifdef __CUDACC__
#define UNROLL _Pragma("unroll")
#else
#define UNROLL
#endif

#ifdef SCI_DPCM_EMU
#define DK static inline
#define SYNC() ((void)0)
#define WARP_SYNC() w_sync()
#define GROUP_SYNC() w_sync()
#define FENCE() ((void)0)
#define LDCG(p) (*(p))
#else
#define DK __device__ __forceinline__
#define SYNC() __syncthreads()
#define WARP_SYNC() __syncwarp()
/* a barrier among the lanes of a group (solve_coop's); groups never span
 * warps */
#define GROUP_SYNC() __syncwarp()
#define FENCE() __threadfence()
/* samples another block wrote after this one may have cached the line */
#define LDCG(p) __ldcg(p)
#endif

#ifdef SCI_DPCM_EMU
#include "cuda/common/warp_emu.h"
#endif

/* ------------------------------------------------------------------ */
/* Warp operations: the intrinsics on the device; emulated, the lanes of
 * cuda/common/warp_emu.h while a warp kernel runs (emu_warp), else the one
 * thread of a warp of one. */

#define FULL_MASK 0xFFFFFFFFu

#if defined(SCI_DPCM_SHFL_REDUCE) || \
    (defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800)
#define DPCM_REDUX 0
#else
#define DPCM_REDUX 1 /* __reduce_*_sync (emulated: over the gathered lanes) */
#endif

#ifdef SCI_DPCM_EMU
static int emu_warp;

/* f(lane) on the 32 lanes of one warp. */
template <typename F> static void emu_warp_run(const F &f) {
    emu_warp = 1;
    warp_emu_run([&](unsigned lane) { f(lane); });
    emu_warp = 0;
}

static inline unsigned w_lane(void) {
    return emu_warp ? warp_emu_lane() : 0u;
}
static inline void w_sync(void) {
    if (emu_warp)
        warp_emu_sync();
}
static inline uint32_t w_ballot(int p) {
    return emu_warp ? warp_emu_ballot(p) : (uint32_t)(p != 0);
}
static inline int w_any(int p) {
    return w_ballot(p) != 0;
}
/* The value lane src offers, src within this lane's `width` lanes. */
template <typename T>
static inline T w_shfl(T v, unsigned src, unsigned width = 32) {
    static_assert(sizeof(T) <= 8, "a shuffle moves 64 bits at most");
    if (!emu_warp)
        return v;
    unsigned long long u = 0;
    memcpy(&u, &v, sizeof v);
    const unsigned l = warp_emu_lane();
    u = warp_emu_xchg(u, (l & ~(width - 1)) | (src & (width - 1)));
    T r;
    memcpy(&r, &u, sizeof r);
    return r;
}
static inline uint32_t w_shfl_up(uint32_t v, unsigned d) {
    if (!emu_warp)
        return v;
    const unsigned l = warp_emu_lane();
    return (uint32_t)warp_emu_xchg(v, l >= d ? l - d : l);
}
static inline uint32_t w_shfl_xor(uint32_t v, unsigned m) {
    if (!emu_warp)
        return v;
    return (uint32_t)warp_emu_xchg(v, warp_emu_lane() ^ m);
}
/* The lanes that offer the same v as this one. */
static inline uint32_t w_match(uint32_t v) {
    if (!emu_warp)
        return 1;
    unsigned long long all[32];
    warp_emu_gather(v, all);
    uint32_t same = 0;
    for (unsigned l = 0; l < 32; l++)
        same |= (uint32_t)(all[l] == v) << l;
    return same;
}
static inline int w_popc(uint32_t v) {
    return __builtin_popcount(v);
}
static inline int w_ffs(uint32_t v) {
    return __builtin_ffs((int)v);
}
static inline double bits_double(uint64_t u) {
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}
static inline uint64_t double_bits(double d) {
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}
#if DPCM_REDUX
/* What __reduce_{add,max,min}_sync give: op over all 32 lanes. */
enum { RED_ADD, RED_MAX, RED_MIN };
static inline uint32_t w_redux(uint32_t v, int op) {
    if (!emu_warp)
        return v;
    unsigned long long all[32];
    warp_emu_gather(v, all);
    uint32_t r = (uint32_t)all[0];
    for (unsigned l = 1; l < 32; l++) {
        uint32_t a = (uint32_t)all[l];
        r = op == RED_ADD ? r + a : op == RED_MAX ? (a > r ? a : r)
                                                  : (a < r ? a : r);
    }
    return r;
}
#endif
#else
DK unsigned w_lane(void) {
    return threadIdx.x & 31u;
}
DK void w_sync(void) {
    __syncwarp();
}
DK uint32_t w_ballot(int p) {
    return __ballot_sync(FULL_MASK, p);
}
DK int w_any(int p) {
    return __any_sync(FULL_MASK, p);
}
template <typename T> DK T w_shfl(T v, unsigned src, unsigned width = 32) {
    return __shfl_sync(FULL_MASK, v, src, width);
}
DK uint32_t w_shfl_up(uint32_t v, unsigned d) {
    return __shfl_up_sync(FULL_MASK, v, d);
}
DK uint32_t w_shfl_xor(uint32_t v, unsigned m) {
    return __shfl_xor_sync(FULL_MASK, v, m);
}
DK uint32_t w_match(uint32_t v) {
    return __match_any_sync(FULL_MASK, v);
}
DK int w_popc(uint32_t v) {
    return __popc(v);
}
DK int w_ffs(uint32_t v) {
    return __ffs((int)v);
}
DK double bits_double(uint64_t u) {
    return __longlong_as_double((long long)u);
}
DK uint64_t double_bits(double d) {
    return (uint64_t)__double_as_longlong(d);
}
#endif

#define LANE() w_lane()

/* The sum over the warp (modulo 2^32: any order gives the same). */
DK uint32_t w_sum(uint32_t v) {
#if DPCM_REDUX && defined(SCI_DPCM_EMU)
    return w_redux(v, RED_ADD);
#elif DPCM_REDUX
    return __reduce_add_sync(FULL_MASK, v);
#else
UNROLL
    for (unsigned m = 16; m; m >>= 1)
        v += w_shfl_xor(v, m);
    return v;
#endif
}

/* ------------------------------------------------------------------ */
/* Device helpers that differ on the host */

DK void add_u32(uint32_t *p, uint32_t v) {
#ifdef SCI_DPCM_EMU
    *p += v;
#else
    atomicAdd(p, v);
#endif
}

DK void min_i32(int *p, int v) {
#ifdef SCI_DPCM_EMU
    if (v < *p)
        *p = v;
#else
    atomicMin(p, v);
#endif
}

DK void max_i32(int *p, int v) {
#ifdef SCI_DPCM_EMU
    if (v > *p)
        *p = v;
#else
    atomicMax(p, v);
#endif
}

/* *p = v unless an error is there already. */
DK void first_error(int *p, int v) {
#ifdef SCI_DPCM_EMU
    if (!*p)
        *p = v;
#else
    atomicCAS(p, 0, v);
#endif
}

/* A strip's finished rows, published to the strips of other blocks. */
DK unsigned load_acquire(const unsigned *p) {
#ifdef SCI_DPCM_EMU
    return *p;
#else
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];"
                 : "=r"(v)
                 : "l"(p)
                 : "memory");
    return v;
#endif
}

DK void store_release(unsigned *p, unsigned v) {
#ifdef SCI_DPCM_EMU
    *p = v;
#else
    asm volatile("st.release.gpu.global.u32 [%0], %1;"
                 :
                 : "l"(p), "r"(v)
                 : "memory");
#endif
}

/* sci_dpcm_solve_core's operations in its order, spread over the G lanes
 * of a group: lane r eliminates row r, lane k swaps column k, every lane
 * reads the pivot column alike.  Entry (r, k) at A[k N + r] (lanes read
 * consecutive words), N the frame's order: NC when it is known at compile
 * time (the loops over columns unroll and the pivot row sits in
 * registers), else n_rt.  All lanes of a warp call it with the same N, so
 * that their barriers line up; n = 0 does nothing and returns 0. */
template <unsigned NC>
DK int solve_coop_n(unsigned n, unsigned n_rt, double *A, unsigned lane,
                    unsigned G, double *a) {
    const unsigned N = NC ? NC : n_rt;
#define AC(r, k) A[(size_t)(k) * N + (r)]
    double scale = 0.0;
    for (unsigned i = 0; i < n; i++)
        if (AC(i, i) > scale)
            scale = AC(i, i);
    int ok = scale > 0.0;
    double thr = scale * SCI_DPCM_PIVOT_EPS;
UNROLL
    for (unsigned c = 0; c < N; c++) {
        const int live = ok && c < n;
        unsigned p = c;
        if (live) {
            double best = fabs(AC(c, c));
            for (unsigned r = c + 1; r < N; r++)
                if (r < n && fabs(AC(r, c)) > best) {
                    best = fabs(AC(r, c));
                    p = r;
                }
            if (!(best > thr))
                ok = 0;
        }
        GROUP_SYNC();
        if (live && ok && p != c)
            for (unsigned k = c + lane; k <= n; k += G) {
                double t = AC(c, k);
                AC(c, k) = AC(p, k);
                AC(p, k) = t;
            }
        GROUP_SYNC();
        if (live && ok) {
            double inv = 1.0 / AC(c, c);
            if (NC) {
                double pv[NC ? NC + 1 : 1] = {0};
UNROLL
                for (unsigned k = 0; k <= NC; k++)
                    if (k > c && k <= n)
                        pv[k] = AC(c, k);
                for (unsigned r = lane; r < n; r += G) {
                    if (r == c)
                        continue;
                    double f = AC(r, c) * inv;
UNROLL
                    for (unsigned k = 0; k <= NC; k++)
                        if (k > c && k <= n)
                            AC(r, k) = AC(r, k) - f * pv[k];
                }
            } else {
                for (unsigned r = lane; r < n; r += G)
                    if (r != c)
                        sci_dpcm_eliminate(&AC(r, 0), &AC(c, 0), N, c + 1, n,
                                           AC(r, c) * inv);
            }
        }
        GROUP_SYNC();
    }
    if (ok)
        for (unsigned i = lane; i < n; i += G)
            a[i] = AC(i, n) / AC(i, i);
#undef AC
    return ok;
}

/* The default order N = 11 unrolled, any other at run time. */
DK int solve_coop(unsigned n, unsigned order_n, double *A, unsigned lane,
                  unsigned G, double *a) {
    if (order_n == SCI_DPCM_DEFAULT_ORDER)
        return solve_coop_n<SCI_DPCM_DEFAULT_ORDER>(n, order_n, A, lane, G, a);
    return solve_coop_n<0>(n, order_n, A, lane, G, a);
}

/* The largest and smallest value over the 16-lane half of the warp that
 * `half` (0 or 16) names: with reduction instructions a warp reduction
 * per half, the other half contributing the neutral value; else a
 * butterfly within the half. */
DK unsigned group_max(unsigned v, unsigned half) {
#if DPCM_REDUX
#ifdef SCI_DPCM_EMU
#define REDUCE_MAX(x) w_redux(x, RED_MAX)
#else
#define REDUCE_MAX(x) __reduce_max_sync(FULL_MASK, x)
#endif
    unsigned lo = REDUCE_MAX(half ? 0u : v);
    unsigned hi = REDUCE_MAX(half ? v : 0u);
#undef REDUCE_MAX
    return half ? hi : lo;
#else
    (void)half;
UNROLL
    for (unsigned m = 8; m; m >>= 1) {
        unsigned o = w_shfl_xor(v, m);
        v = o > v ? o : v;
    }
    return v;
#endif
}

DK unsigned group_min(unsigned v, unsigned half) {
#if DPCM_REDUX
#ifdef SCI_DPCM_EMU
#define REDUCE_MIN(x) w_redux(x, RED_MIN)
#else
#define REDUCE_MIN(x) __reduce_min_sync(FULL_MASK, x)
#endif
    unsigned lo = REDUCE_MIN(half ? ~0u : v);
    unsigned hi = REDUCE_MIN(half ? v : ~0u);
#undef REDUCE_MIN
    return half ? hi : lo;
#else
    (void)half;
UNROLL
    for (unsigned m = 8; m; m >>= 1) {
        unsigned o = w_shfl_xor(v, m);
        v = o < v ? o : v;
    }
    return v;
#endif
}

DK uint64_t group_max64(uint64_t v, unsigned half) {
    unsigned top = group_max((unsigned)(v >> 32), half);
    unsigned low = group_max((unsigned)(v >> 32) == top ? (unsigned)v : 0u,
                             half);
    return (uint64_t)top << 32 | low;
}

/* sci_dpcm_solve_core for order NC on a group of 16 lanes (the two halves
 * of a warp, which may hold systems of different n), the system in
 * registers: lane r loads row r of the n x n block of the sums S (packed
 * for order NC, entry t at S[t * step]) and b's entry r.  A row swap only
 * relabels the lanes (`me`: the row a lane holds now); columns left of the
 * pivot, which the reference does not swap, are never read again.  The
 * pivot is the reference's: the first row, in row order, of the largest
 * magnitude (found by warp reductions on the magnitude's bits, which order
 * as the values); a NaN at the diagonal keeps its row and fails, NaN below
 * it never wins.  Every lane of the warp runs every step (the reductions and
 * shuffles need them).  With EARLY, each lane divides by its own
 * candidate while the pivot is sought and the pivot's quotient is taken:
 * the division leaves the steps' chain (the decoder's rows wait on it) for
 * a division a lane and step (the encoder, bound by its instructions, does
 * without).  Writes weight i to a[i] (shared memory) and returns 1, or 0
 * for a singular system. */
template <unsigned NC, bool EARLY>
DK int solve_rows(unsigned n, const int64_t *S, size_t step, unsigned lane,
                  double *a) {
    const unsigned pn = NC * (NC + 1) / 2;
    const unsigned half = LANE() & 16u;
    double A[NC], b = 0.0, diag = 0.0;
UNROLL
    for (unsigned k = 0; k < NC; k++) {
        unsigned lo = lane < k ? lane : k, hi = lane < k ? k : lane;
        A[k] = lane < n && k < n
                   ? (double)S[sci_dpcm_packed(NC, lo, hi) * step]
                   : 0.0;
        if (k == lane)
            diag = A[k];
    }
    if (lane < n)
        b = (double)S[(pn + lane) * step];
    /* the diagonal is >= 0: its bits order as its values */
    const double scale = bits_double(group_max64(double_bits(diag), half));
    int ok = scale > 0.0;
    const double thr = scale * SCI_DPCM_PIVOT_EPS;
    unsigned me = lane;
UNROLL
    for (unsigned c = 0; c < NC; c++) {
        const int live = ok && c < n;
        const double v = fabs(A[c]);
        const double mine = EARLY ? 1.0 / A[c] : 0.0;
        const int nan_here = isnan(v);
        const int cand = me >= c && me < n && (!nan_here || me == c);
        const uint64_t key = !cand ? 0
                           : nan_here ? 0x7FF0000000000000ull /* inf */
                                      : double_bits(v);
        /* mostly one row holds the largest top half of the key: then it
         * is the pivot; else the low halves and the row order decide */
        const unsigned top = group_max((unsigned)(key >> 32), half);
        const int near = cand && (unsigned)(key >> 32) == top;
        unsigned hold = (w_ballot(near) >> half) & 0xFFFFu;
        if (w_any(w_popc(hold) > 1)) {
            const unsigned low = group_max(near ? (unsigned)key : 0u, half);
            const unsigned first =
                group_min(near && (unsigned)key == low ? me : ~0u, half);
            hold = (w_ballot(me == first) >> half) & 0xFFFFu;
        }
        const unsigned src = hold ? w_ffs(hold) - 1 : 0;
        const unsigned at = w_shfl(me, src, 16);
        double pv[NC];
UNROLL
        for (unsigned k = c; k < NC; k++)
            pv[k] = w_shfl(A[k], src, 16);
        const double pb = w_shfl(b, src, 16);
        const double early = EARLY ? w_shfl(mine, src, 16) : 0.0;
        if (live && !(fabs(pv[c]) > thr))
            ok = 0;
        if (!(live && ok))
            continue;
        me = me == c ? at : me == at ? c : me;
        const double inv = EARLY ? early : 1.0 / pv[c];
        if (me != c && me < n) {
            const double f = A[c] * inv;
UNROLL
            for (unsigned k = c + 1; k < NC; k++)
                A[k] = A[k] - f * pv[k];
            b = b - f * pb;
        }
    }
    if (ok && me < n) {
        double d = 0.0;
UNROLL
        for (unsigned k = 0; k < NC; k++)
            if (k == me)
                d = A[k];
        a[me] = b / d;
    }
    return ok;
}

/* The packed sums' entry t of order n as (i, k): i | k << 8, k = 255 for
 * b's entry i; by threads tid, tid + nt, ... */
DK void build_pairs(unsigned n, uint16_t *pairs, unsigned tid, unsigned nt) {
    const unsigned pn = n * (n + 1) / 2, e = pn + n;
    for (unsigned t = tid; t < e; t += nt) {
        unsigned i = 0, k;
        if (t >= pn) {
            i = t - pn;
            k = 255;
        } else {
            unsigned r = t;
            while (r >= n - i) {
                r -= n - i;
                i++;
            }
            k = i + r;
        }
        pairs[t] = (uint16_t)(i | k << 8);
    }
}

/* One entry of sci_dpcm_add_window_at's sums, alone: the threads of a group
 * or block take an entry each.  row[i] holds column base + i. */
DK int64_t window_entry(unsigned order_n, unsigned eq_m, const uint16_t *row,
                        unsigned base, unsigned x, uint16_t pair) {
    unsigned i = pair & 255, k = pair >> 8;
    int64_t acc = 0;
    for (unsigned j = sci_dpcm_window_lo(order_n, eq_m, x); j <= x; j++) {
        uint32_t va = j >= i + 1 ? row[j - 1 - i - base] : 0;
        uint32_t vb = k == 255 ? row[j - base]
                               : (j >= k + 1 ? row[j - 1 - k - base] : 0);
        acc += (int64_t)((uint64_t)va * vb);
    }
    return acc;
}

/* sci_dpcm_add_window_at's sums of column x along one diagonal: the
 * matrix entries (i, i + d), i = 0 .. N - 1 - d, are sums of the products
 * s(z) s(z - d) over windows of one length ending at z = x - 1 - i, and
 * b's entry d - 1 (d >= 1) is the window ending at x; one running sum
 * slides over them all instead of summing each window anew.  s(z) is
 * row[z + off] for z >= -N (zeros left of the row); a product of two
 * samples fits 32 bits. */
DK void add_diagonal(unsigned order_n, unsigned eq_m, const uint16_t *row,
                     int off, unsigned x, unsigned d, int64_t *S) {
    const unsigned pn = order_n * (order_n + 1) / 2;
    const int len = (int)(x - sci_dpcm_window_lo(order_n, eq_m, x)) + 1;
    const int e_lo = (int)x - (int)order_n + (int)d;
    const int dd = (int)d;
#define PRODUCT(z) ((uint32_t)row[off + (z)] * row[off + (z) - dd])
    int64_t win = 0;
    for (int z = e_lo - len + 1; z <= e_lo; z++)
        win += PRODUCT(z);
    /* the matrix entries, i = x - 1 - e from N - 1 - d down to 0 */
    for (int e = e_lo; e < (int)x; e++) {
        unsigned i = x - 1 - (unsigned)e;
        S[sci_dpcm_packed(order_n, i, i + d)] += win;
        win += (int64_t)PRODUCT(e + 1) - (int64_t)PRODUCT(e + 1 - len);
    }
#undef PRODUCT
    if (d)
        S[pn + d - 1] += win;
}

/* Per-frame results the encoder's kernels leave for the host. */
enum {
    INFO_T_LO,   /* T- */
    INFO_T_HI,   /* T+ */
    INFO_LO_BIN, /* smallest bin holding >= T residuals (T > 0) */
    INFO_HI_BIN, /* largest */
    INFO_ESC,    /* escapes */
    INFO_CODED,  /* bytes of all segments */
    INFO_COUNT
};

struct enc_params {
    const uint16_t *samples;
    size_t stride;
    unsigned w, h, depth, n, m, e; /* e: sum entries for order n */
    unsigned blk_rows, nb;         /* predictor blocks */
    unsigned threshold;
    unsigned seg_rows, segs;
    size_t slot_bytes;             /* a full segment's bound */
    int64_t *cols;                 /* nb * e * w: per-equation block sums */
    int64_t *sums;                 /* nb * e * w: window sums before */
    int32_t *res;
    uint32_t *hist;                /* 2 maxval + 1 bins (T > 0) */
    int *info;
    uint8_t *slots, *packed;
    uint32_t *seg_len, *seg_off;
};

/* 1. Entry t of the products of equation j (column j) summed over block
 * blk's rows: each equation's products once, where summing whole windows
 * per column would take each of them M times. */
DK void blocksum_item(const enc_params &p, size_t i) {
    unsigned j = (unsigned)(i % p.w);
    size_t q = i / p.w;
    unsigned t = (unsigned)(q % p.e), blk = (unsigned)(q / p.e);
    /* entry t: (i0, k0) of the packed matrix, or b's entry i0 */
    unsigned pn = p.n * (p.n + 1) / 2, i0 = 0, k0 = 0;
    int rhs = t >= pn;
    if (rhs) {
        i0 = t - pn;
    } else {
        unsigned r = t;
        while (r >= p.n - i0) {
            r -= p.n - i0;
            i0++;
        }
        k0 = i0 + r;
    }
    int64_t acc = 0;
    if (j >= i0 + 1 && (rhs || j >= k0 + 1)) {
        unsigned y0 = blk * p.blk_rows;
        unsigned y1 = y0 + p.blk_rows < p.h ? y0 + p.blk_rows : p.h;
        for (unsigned y = y0; y < y1; y++) {
            const uint16_t *row = p.samples + (size_t)y * p.stride;
            uint32_t a = row[j - 1 - i0];
            uint32_t b = rhs ? row[j] : row[j - 1 - k0];
            acc += (int64_t)((uint64_t)a * b);
        }
    }
    p.cols[((size_t)blk * p.e + t) * p.w + j] = acc;
}

/* 2. Entry t of column x's window sums over the rows before each block:
 * the window's equations summed, then an exclusive prefix over blocks. */
DK void scan_item(const enc_params &p, size_t i) {
    unsigned x = (unsigned)(i % p.w), t = (unsigned)(i / p.w);
    unsigned lo = sci_dpcm_window_lo(p.n, p.m, x);
    int64_t run = 0;
    for (unsigned blk = 0; blk < p.nb; blk++) {
        size_t at = ((size_t)blk * p.e + t) * p.w;
        int64_t v = 0;
        if (x >= 2)
            for (unsigned j = lo; j <= x; j++)
                v += p.cols[at + j];
        p.sums[at + x] = run;
        run += v;
    }
}

/* 3. The residuals of column x in block blk (group i = blk w + x), by a
 * group of G threads: they share the column's running
 * sums, the window products and the elimination (solve_coop), and lane 0
 * predicts.  Every group runs blk_rows rows (valid = 0: none of them real)
 * so that the barriers of a warp's groups line up. */
struct group_room {
    int64_t *S;            /* e running sums */
    double *A;             /* the system, solve_coop's layout */
    double *a;             /* N weights */
    uint16_t *row;         /* N zeros, then the row's samples
                            * x - (N + M - 1) .. x */
};

DK void predict_group(const enc_params &p, group_room gr, size_t i,
                      int valid, unsigned lane, unsigned G) {
    const unsigned x = valid ? (unsigned)(i % p.w) : 0;
    const unsigned blk = valid ? (unsigned)(i / p.w) : 0;
    const uint32_t maxval = (1u << p.depth) - 1;
    const unsigned pn = p.n * (p.n + 1) / 2, reach = p.n + p.m - 1;
    const unsigned base = x > reach ? x - reach : 0;
    const unsigned y0 = blk * p.blk_rows;
    const unsigned y1 = !valid ? y0
                      : y0 + p.blk_rows < p.h ? y0 + p.blk_rows : p.h;
    const int lsq = valid && x >= 2 && p.w >= 3 && p.h >= 2;
    if (lsq)
        for (unsigned t = lane; t < p.e; t += G)
            gr.S[t] = p.sums[((size_t)blk * p.e + t) * p.w + x];
    for (unsigned j = lane; j < p.n; j += G)
        gr.row[j] = 0; /* left of the row */
    GROUP_SYNC(); /* every lane's sums in before any lane loads a system */
    for (unsigned k = 0; k < p.blk_rows; k++) {
        const unsigned y = y0 + k;
        const int live = y < y1;
        const uint16_t *row = p.samples + (size_t)y * p.stride;
        if (live && lsq)
            for (unsigned j = base + lane; j <= x; j += G)
                gr.row[p.n + j - base] = row[j];
        const unsigned n = live && lsq && y ? sci_dpcm_order_at(p.n, x) : 0;
        int ok;
        if (p.n == SCI_DPCM_DEFAULT_ORDER && G == 16) {
            ok = solve_rows<SCI_DPCM_DEFAULT_ORDER, false>(n, gr.S, 1, lane,
                                                          gr.a);
        } else {
            for (unsigned r = lane; r < n; r += G) {
                for (unsigned c = 0; c < n; c++) {
                    unsigned lo = r < c ? r : c, hi = r < c ? c : r;
                    gr.A[(size_t)c * p.n + r] =
                        (double)gr.S[sci_dpcm_packed(p.n, lo, hi)];
                }
                gr.A[(size_t)n * p.n + r] = (double)gr.S[pn + r];
            }
            GROUP_SYNC();
            ok = solve_coop(n, p.n, gr.A, lane, G, gr.a);
        }
        GROUP_SYNC();
        if (live && lane == 0) {
            uint32_t pred;
            if (y == 0)
                pred = x ? row[x - 1] : 0;
            else if (x == 0)
                pred = row[(ptrdiff_t)0 - (ptrdiff_t)p.stride];
            else if (!lsq || !ok)
                pred = row[x - 1];
            else
                pred = sci_dpcm_round(
                    sci_dpcm_dot(n, gr.a, gr.row + p.n + (x - base)), maxval);
            p.res[(size_t)y * p.w + x] = (int32_t)row[x] - (int32_t)pred;
        }
        if (live && lsq)
            for (unsigned d = lane; d <= p.n; d += G)
                add_diagonal(p.n, p.m, gr.row, (int)p.n - (int)base, x, d,
                             gr.S);
        GROUP_SYNC();
    }
}

/* A group's room in predict_kernel's shared memory, in bytes. */
struct group_layout {
    unsigned G;
    size_t s_off, a_off, w_off, r_off, group_bytes, total;
};

static inline void group_plan(unsigned n, unsigned m, unsigned threads,
                              group_layout *gl) {
    size_t e = (size_t)n * (n + 1) / 2 + n;
    gl->G = 1;
    while (gl->G < n)
        gl->G *= 2;
    gl->s_off = 0;
    gl->a_off = e * 8;
    gl->w_off = gl->a_off + (size_t)(n + 1) * n * 8;
    gl->r_off = gl->w_off + (size_t)n * 8;
    gl->group_bytes = (gl->r_off + (size_t)(2 * n + m) * 2 + 7) / 8 * 8;
    gl->total = (size_t)(threads / gl->G) * gl->group_bytes;
}

DK group_room group_at(uint8_t *base, const group_layout &gl, unsigned g) {
    uint8_t *q = base + (size_t)g * gl.group_bytes;
    group_room gr = {(int64_t *)(q + gl.s_off), (double *)(q + gl.a_off),
                     (double *)(q + gl.w_off), (uint16_t *)(q + gl.r_off)};
    return gr;
}

/* 4. Histogram of the residuals (T > 0), or their range (T = 0). */
#define NEAR_BINS 4096 /* residuals in [-2048, 2047] count in shared memory */

DK void range_item(const enc_params &p, size_t i) {
    int v = p.res[i];
    min_i32(&p.info[INFO_T_LO], v);
    max_i32(&p.info[INFO_T_HI], v);
}

DK void hist_item(const enc_params &p, uint32_t *near, size_t i) {
    const int32_t maxval = (int32_t)((1u << p.depth) - 1);
    int32_t v = p.res[i];
    if (v >= -NEAR_BINS / 2 && v < NEAR_BINS / 2)
        add_u32(&near[v + NEAR_BINS / 2], 1);
    else
        add_u32(&p.hist[v + maxval], 1);
}

DK void hist_flush(const enc_params &p, const uint32_t *near, unsigned b) {
    const int32_t maxval = (int32_t)((1u << p.depth) - 1);
    int32_t v = (int32_t)b - NEAR_BINS / 2;
    if (near[b] && v >= -maxval && v <= maxval)
        add_u32(&p.hist[v + maxval], near[b]);
}

DK void bins_item(const enc_params &p, unsigned b) {
    if (p.hist[b] >= p.threshold) {
        min_i32(&p.info[INFO_LO_BIN], (int)b);
        max_i32(&p.info[INFO_HI_BIN], (int)b);
    }
}

DK void thresholds_final(const enc_params &p) {
    const int32_t maxval = (int32_t)((1u << p.depth) - 1);
    if (p.threshold == 0)
        return; /* T_LO, T_HI already are the range */
    if (p.info[INFO_LO_BIN] > p.info[INFO_HI_BIN]) {
        p.info[INFO_T_LO] = 0;
        p.info[INFO_T_HI] = -1;
    } else {
        p.info[INFO_T_LO] = p.info[INFO_LO_BIN] - maxval;
        p.info[INFO_T_HI] = p.info[INFO_HI_BIN] - maxval;
    }
}

/* ------------------------------------------------------------------ */
/* Segments by a warp: every lane runs the same range coder (the same
 * state; only lane 0's encoder writes bytes), the lanes share the class
 * models in shared memory and find a class's cumulative frequency at once
 * instead of one class after another.  The values, and so the bytes, are
 * sci_dpcm_code_segment's and sci_dpcm_decode_segment's. */

/* The sum of the frequencies of the classes below s. */
DK uint32_t warp_cum(const uint32_t *freq, unsigned s) {
    unsigned l = LANE();
    uint32_t a = l < s ? freq[l] : 0;
    if (l + 32 < SCI_DPCM_CLASSES && l + 32 < s)
        a += freq[l + 32];
    return w_sum(a);
}

/* Residual i of a segment w wide: its context and sci_dpcm_symbol's
 * coding; 1 when it is escaped. */
DK unsigned symbol_at(const int32_t *seg, unsigned w, size_t i,
                      unsigned depth, int32_t t_lo, int32_t t_hi,
                      unsigned *c, unsigned *s, uint32_t *raw,
                      unsigned *bits) {
    *c = sci_dpcm_context_at(seg, w, (unsigned)(i % w), (unsigned)(i / w));
    return sci_dpcm_symbol(seg[i], depth, t_lo, t_hi, s, raw, bits);
}

/* One residual into the warp's coder, as sci_dpcm_code_segment codes it. */
DK void code_symbol(sci_dpcm_models *m, sci_rc_enc *e, unsigned c,
                    unsigned s, uint32_t raw, unsigned bits) {
    sci_dpcm_code_symbol(m, e, c, s, warp_cum(m->freq[c], s), raw, bits);
    WARP_SYNC();
    if (LANE() == 0)
        sci_dpcm_models_update(m, c, s);
    WARP_SYNC();
}

/* sci_dpcm_code_segment by a warp; m in shared memory. */
DK void code_segment_warp(const int32_t *seg, unsigned w, unsigned rows,
                          unsigned depth, int32_t t_lo, int32_t t_hi,
                          sci_dpcm_models *m, sci_rc_enc *e,
                          uint32_t *escapes) {
    uint32_t esc = 0;
    if (LANE() == 0)
        sci_dpcm_models_init(m);
    WARP_SYNC();
    const size_t count = (size_t)w * rows;
    /* The lanes take 32 residuals at once: each finds its context and
     * class, and the frequencies its symbol is coded with: the models'
     * at the chunk's start plus the increments of the earlier symbols of
     * its context in the chunk (none of them rescales the model: a chunk
     * where one would goes symbol by symbol).  The coder then only
     * narrows its interval, symbol after symbol: its chain no longer
     * waits for a model. */
    const unsigned l = LANE(), below = (1u << l) - 1;
    for (size_t i0 = 0; i0 < count; i0 += 32) {
        unsigned c = SCI_DPCM_CONTEXTS, s = 0, bits = 0;
        uint32_t raw = 0;
        const int have = i0 + l < count;
        if (have)
            esc += symbol_at(seg, w, i0 + l, depth, t_lo, t_hi, &c, &s, &raw,
                             &bits);
        const unsigned k1 = count - i0 < 32 ? (unsigned)(count - i0) : 32;
        const unsigned live = w_ballot(have);
        const unsigned same_c = w_match(c) & live;
        const unsigned same_cs = w_match(c << 8 | s) & live;
        /* lanes whose class is below this lane's, from the classes' bit
         * planes */
        unsigned less = 0, eq = FULL_MASK;
        for (int b = 5; b >= 0; b--) {
            unsigned plane = w_ballot((s >> b) & 1);
            if ((s >> b) & 1) {
                less |= eq & ~plane;
                eq &= plane;
            } else {
                eq &= ~plane;
            }
        }
        uint32_t f0 = 0, t0 = 0, cum0 = 0;
        if (have) {
            f0 = m->freq[c][s];
            t0 = m->total[c];
            for (unsigned i = 0; i < s; i++)
                cum0 += m->freq[c][i];
        }
        const int last_c = have && (same_c >> l) == 1;
        const uint32_t t1 = t0 + SCI_DPCM_MODEL_INC * w_popc(same_c);
        if (w_ballot(last_c && t1 > SCI_DPCM_MODEL_LIMIT)) {
            for (unsigned k = 0; k < k1; k++)
                code_symbol(m, e, w_shfl(c, k), w_shfl(s, k), w_shfl(raw, k),
                            w_shfl(bits, k));
            continue;
        }
        const uint32_t cum =
            cum0 + SCI_DPCM_MODEL_INC * w_popc(same_c & below & less);
        const uint32_t freq = f0 + SCI_DPCM_MODEL_INC * w_popc(same_cs & below);
        const uint32_t total = t0 + SCI_DPCM_MODEL_INC * w_popc(same_c & below);
        /* cum, freq < 2^16 and total <= 2^16 while no model rescales */
        const uint32_t cf = cum | freq << 16, tb = (total - 1) | bits << 16;
        const uint64_t inv = sci_rc_inv(total);
        /* four symbols' values fetched before the four are coded, so the
         * coder's chain does not wait for a shuffle (a chunk's last ones
         * one by one) */
        unsigned k0 = 0;
        for (; k0 + 4 <= k1; k0 += 4) {
            uint32_t cfk[4], tbk[4], rk[4];
            uint64_t ik[4];
UNROLL
            for (unsigned j = 0; j < 4; j++) {
                cfk[j] = w_shfl(cf, k0 + j);
                tbk[j] = w_shfl(tb, k0 + j);
                rk[j] = w_shfl(raw, k0 + j);
                ik[j] = w_shfl(inv, k0 + j);
            }
UNROLL
            for (unsigned j = 0; j < 4; j++)
                sci_dpcm_code_values(e, cfk[j] & 0xFFFF, cfk[j] >> 16,
                                     (tbk[j] & 0xFFFF) + 1, ik[j], rk[j],
                                     tbk[j] >> 16);
        }
        for (; k0 < k1; k0++) {
            uint32_t cfk = w_shfl(cf, k0);
            uint32_t tbk = w_shfl(tb, k0);
            sci_dpcm_code_values(e, cfk & 0xFFFF, cfk >> 16,
                                 (tbk & 0xFFFF) + 1, w_shfl(inv, k0),
                                 w_shfl(raw, k0), tbk >> 16);
        }
        /* the shuffles above order no memory: every lane's reads of the
         * models before any lane's writes */
        WARP_SYNC();
        if (have && (same_cs >> l) == 1)
            m->freq[c][s] = f0 + SCI_DPCM_MODEL_INC * w_popc(same_cs);
        if (last_c)
            m->total[c] = t1;
        WARP_SYNC();
    }
    esc = w_sum(esc);
    *escapes += esc;
}

/* The decoder's class models: per context the cumulative frequencies,
 * below[c][i] the sum of classes 0..i-1's, below[c][SCI_DPCM_CLASSES] the
 * total, the slots past it never reached.  A class is then found by two
 * ballots instead of a scan of the frequencies; the values are those of
 * sci_dpcm_models (frequency i is below[i + 1] - below[i]). */
#define CUM_SLOTS 64
struct cum_models {
    uint32_t below[SCI_DPCM_CONTEXTS][CUM_SLOTS];
};

/* Lane l's slots: l and l + 32. */
DK void cum_init(cum_models *m) {
    const unsigned l = LANE();
    for (unsigned c = 0; c < SCI_DPCM_CONTEXTS; c++)
        for (unsigned i = l; i < CUM_SLOTS; i += 32)
            m->below[c][i] = i <= SCI_DPCM_CLASSES ? i : ~0u;
}

/* sci_dpcm_models_update on the cumulative form: every slot above s grows
 * by the increment; past the limit the frequencies halve (rounded up) and
 * the sums are taken again, a scan over the lanes' two slots. */
DK void cum_update(cum_models *m, unsigned c, unsigned s, uint32_t total) {
    const unsigned l = LANE();
    uint32_t *b = m->below[c];
    if (l > s)
        b[l] += SCI_DPCM_MODEL_INC;
    if (l + 32 > s && l + 32 <= SCI_DPCM_CLASSES)
        b[l + 32] += SCI_DPCM_MODEL_INC;
    if (total + SCI_DPCM_MODEL_INC <= SCI_DPCM_MODEL_LIMIT)
        return;
    WARP_SYNC();
    uint32_t run = 0, f[2];
UNROLL
    for (unsigned h = 0; h < 2; h++) {
        const unsigned i = l + 32 * h;
        f[h] = i < SCI_DPCM_CLASSES ? (b[i + 1] - b[i] + 1) >> 1 : 0;
    }
    WARP_SYNC();
UNROLL
    for (unsigned h = 0; h < 2; h++) {
        /* an inclusive scan of the halved frequencies, then the slot
         * above each class */
        uint32_t incl = f[h];
        for (unsigned d = 1; d < 32; d <<= 1) {
            uint32_t t = w_shfl_up(incl, d);
            if (l >= d)
                incl += t;
        }
        const unsigned i = l + 32 * h;
        if (i < SCI_DPCM_CLASSES)
            b[i + 1] = run + incl;
        run += w_shfl(incl, 31);
    }
}

/* sci_dpcm_decode_segment by a warp: every lane runs the same decoder.
 * The row above's part of each context (2|up| + |up-left| + |up-right|)
 * is taken for 32 columns at once, a column a lane, so that the chain
 * from one residual to the next holds only the left neighbour's part;
 * lane j keeps the chunk's residual j and the chunk leaves in one store. */
DK int decode_segment_warp(const uint8_t *in, size_t len, unsigned w,
                           unsigned rows, unsigned depth, int32_t t_lo,
                           int32_t t_hi, cum_models *m, int32_t *seg,
                           uint32_t *escapes) {
    sci_rc_dec d;
    if (sci_rc_dec_init(&d, in, len))
        return SCI_DPCM_E_ENTROPY;
    cum_init(m);
    WARP_SYNC();
    const unsigned l = LANE();
    uint32_t esc = 0;
    for (unsigned yy = 0; yy < rows; yy++) {
        int32_t *row = seg + (size_t)yy * w;
        uint32_t left = 0; /* 2 |left neighbour| */
        for (unsigned x0 = 0; x0 < w; x0 += 32) {
            const unsigned x = x0 + l, k1 = w - x0 < 32 ? w - x0 : 32;
            const uint32_t above =
                yy > 0 && x < w ? sci_dpcm_context_above(row - w, w, x) : 0;
            int32_t mine = 0;
            for (unsigned j = 0; j < k1; j++) {
                const unsigned c = sci_dpcm_context(left + w_shfl(above, j));
                const uint32_t *b = m->below[c];
                const uint32_t total = b[SCI_DPCM_CLASSES];
                uint64_t r;
                const uint32_t v = sci_rc_peek(&d, total, &r);
                if (d.error)
                    return SCI_DPCM_E_ENTROPY;
                const unsigned s = w_popc(w_ballot(b[l] <= v)) +
                                   w_popc(w_ballot(b[l + 32] <= v)) - 1;
                const uint32_t cum = b[s];
                sci_rc_consume(&d, r, cum, b[s + 1] - cum);
                int32_t val;
                int st = sci_dpcm_decode_value(&d, s, depth, t_lo, t_hi, &val,
                                               &esc);
                if (st)
                    return st;
                if (l == j)
                    mine = val;
                left = 2 * sci_dpcm_abs(val);
                WARP_SYNC(); /* every lane's reads before the update */
                cum_update(m, c, s, total);
                WARP_SYNC();
            }
            if (l < k1)
                row[x] = mine;
        }
        WARP_SYNC(); /* the row in before the next reads it */
    }
    if (d.pos != len)
        return SCI_DPCM_E_ENTROPY;
    *escapes += esc;
    return 0;
}

/* 5. Segment s into its slot, by a warp. */
DK void code_item(const enc_params &p, sci_dpcm_models *m, unsigned s) {
    unsigned y0 = s * p.seg_rows;
    unsigned rows = sci_dpcm_segment_height(p.h, p.seg_rows, s);
    sci_rc_enc e;
    uint32_t esc = 0;
    sci_rc_enc_init(&e, p.slots + (size_t)s * p.slot_bytes,
                    LANE() == 0 ? p.slot_bytes : 0);
    code_segment_warp(p.res + (size_t)y0 * p.w, p.w, rows, p.depth,
                      p.info[INFO_T_LO], p.info[INFO_T_HI], m, &e, &esc);
    size_t len = sci_rc_enc_finish(&e);
    if (LANE() == 0) {
        p.seg_len[s] = (uint32_t)len;
        if (esc)
            add_u32((uint32_t *)&p.info[INFO_ESC], esc);
    }
}

/* 6. Offsets of the segments (one block: each thread a run of them). */
DK void offsets_block(const enc_params &p, unsigned tid, unsigned nt,
                      uint32_t *part) {
    unsigned per = (p.segs + nt - 1) / nt;
    unsigned s0 = tid * per, s1 = s0 + per < p.segs ? s0 + per : p.segs;
    uint32_t sum = 0;
    for (unsigned s = s0; s < s1; s++)
        sum += p.seg_len[s];
    part[tid] = sum;
    SYNC();
    if (tid == 0) {
        uint32_t run = 0;
        for (unsigned k = 0; k < nt; k++) {
            uint32_t v = part[k];
            part[k] = run;
            run += v;
        }
        p.info[INFO_CODED] = (int)run;
    }
    SYNC();
    uint32_t off = part[tid];
    for (unsigned s = s0; s < s1; s++) {
        p.seg_off[s] = off;
        off += p.seg_len[s];
    }
}

DK void pack_item(const enc_params &p, unsigned s, unsigned tid,
                  unsigned nt) {
    const uint8_t *src = p.slots + (size_t)s * p.slot_bytes;
    uint8_t *dst = p.packed + p.seg_off[s];
    for (uint32_t k = tid; k < p.seg_len[s]; k += nt)
        dst[k] = src[k];
}

/* ------------------------------------------------------------------ */
/* Decoder */

struct dec_frame {
    unsigned w, h, depth, n, m, e, seg_rows, segs;
    int32_t t_lo, t_hi;
    uint32_t escapes;
    size_t coded_off;  /* its segments in the batch's input */
    size_t res_off;    /* its residuals in the batch's residuals */
    size_t sums_off;   /* w * e int64 */
    size_t prog_off;   /* ceil(w / sw) rows-done counters */
    uint16_t *out;     /* device */
    size_t stride;
    /* 8-bit output or a frame scanned by columns: out holds the coded
     * geometry (w x h), then finish_item writes the frame (iw x ih) here,
     * in device memory, dst_bytes a sample */
    void *dst;
    size_t dst_stride;
    unsigned dst_bytes, iw, ih, transposed;
    unsigned first_seg; /* in the batch's segment list */
};

struct dec_item {
    unsigned frame, strip;
};

struct dec_segment {
    unsigned frame, index;
    size_t off;        /* bytes into the batch's input */
    uint32_t len;
};

struct dec_params {
    const dec_frame *frames;
    const dec_segment *segs;
    unsigned nsegs;
    const uint8_t *in;
    int32_t *res;
    int64_t *sums;     /* where they are not in shared memory */
    const dec_item *items; /* the strips, frame by frame, left to right */
    unsigned nitems;
    unsigned *ticket;  /* the next item to take */
    unsigned *progress;
    int *status;       /* per frame: 0, or the code */
    int *bad_seg;      /* per frame: the first failing segment */
    int *seg_status;   /* per segment */
    uint32_t *escapes; /* per frame */
    unsigned sw;       /* columns a strip, 1..STRIP_MAX */
};

/* Segment k of the batch, by a warp. */
DK void decode_seg_item(const dec_params &p, cum_models *m, unsigned k) {
    const dec_segment sg = p.segs[k];
    const dec_frame &f = p.frames[sg.frame];
    unsigned y0 = sg.index * f.seg_rows;
    unsigned rows = sci_dpcm_segment_height(f.h, f.seg_rows, sg.index);
    uint32_t esc = 0;
    int st = decode_segment_warp(p.in + sg.off, sg.len, f.w, rows, f.depth,
                                 f.t_lo, f.t_hi, m,
                                 p.res + f.res_off + (size_t)y0 * f.w, &esc);
    if (LANE() != 0)
        return;
    p.seg_status[k] = st;
    if (st)
        min_i32(&p.bad_seg[sg.frame], (int)sg.index);
    else if (esc)
        add_u32(&p.escapes[sg.frame], esc);
}

/* The frame's status after its segments: the first failing segment's,
 * else a wrong escape total. */
DK int frame_status(const dec_params &p, unsigned fi) {
    const dec_frame &f = p.frames[fi];
    int bad = p.bad_seg[fi];
    if (bad < (int)f.segs)
        return p.seg_status[f.first_seg + bad];
    if (p.escapes[fi] != f.escapes)
        return SCI_DPCM_E_ESCAPES;
    return 0;
}

/* Frame fi's columns x0 .. x0 + sw - 1 (strip `strip`), all rows, by
 * the nt threads of one block (nt = 1 when emulated).  Per row:
 *   1. the threads add the row above's window products to the strip's
 *      running sums, a thread per (sum entry, column);
 *   2. groups of G threads solve the strip's systems, one system a group,
 *      a row of the elimination a lane (solve_rows in registers for N =
 *      11, else solve_coop);
 *   3. once the strip to the left has finished the row, one warp runs the
 *      row's recursion (recurse_lane), every lane the predictor of its
 *      column;
 *   4. the row goes out and the strip's count of finished rows with it.
 * So the strips of a frame work on successive rows at once, a wavefront;
 * a frame takes about (rows + strips) row steps, each the chain of one
 * block's steps 1-4 (about 11 us for strips of 8 columns on an H200).
 * A strip that fails sets the count to ROWS_ABORT, and strips to its right
 * stop instead of waiting. */
#define STRIP_MAX 32 /* the recursion's warp */
#define ROWS_ABORT 0xFFFFFFFFu

struct strip_room {
    int64_t *S;           /* entry t of column L at S[t s_step + L] */
    size_t s_step;
    double *A;            /* the groups' systems (solve_coop's layout) */
    size_t a_group;       /* doubles a group */
    unsigned G;           /* threads a group */
    double *wt;           /* sw x N weights */
    int *ok;              /* sw flags: the system was solved */
    uint16_t *buf0, *buf1; /* a row's halo and strip, two rows */
    uint16_t *pairs;      /* the sum entries' (i, k): i | k << 8, k = 255: b */
    int *flag;
    unsigned *left;       /* the left strip's count, as the wait saw it */
};

/* Step 3, lane L's part (every lane of the recursion's warp calls it: the
 * shuffles need them all) for column x = x0 + L of a strip of `cols`,
 * predicted by the n weights w (0: by its left neighbour), residual r.
 * The terms of the samples left of the strip, known (cur[halo + t - x0]
 * for t < x0), come first, each lane on its own; then the strip's samples
 * in order, each passed along the warp by a shuffle from the lane that
 * finished it, so that a step's chain is a shuffle, a multiply, an add
 * and the finishing lane's rounding.  The sums are the reference's, in its
 * order (the oldest sample first).  `left` is s(0)'s prediction (x0 = 0).
 * Writes the sample to cur[halo + L]; returns 1 where it left the range. */
DK int recurse_lane(uint16_t *cur, unsigned halo, unsigned x0, unsigned cols,
                    const double *w, unsigned n, int32_t r, int32_t left,
                    int32_t maxval, unsigned L) {
    const unsigned x = x0 + L;
    const int live = L < cols;
    double acc = 0.0;
    int32_t v = 0;
    if (live && n)
        for (unsigned t = x - n; t < x0; t++)
            acc = acc + w[x - t - 1] * (double)cur[halo + t - x0];
    if (live && L == 0)
        v = (x == 0 ? left
                    : n ? (int32_t)sci_dpcm_round(acc, (uint32_t)maxval)
                        : (int32_t)cur[halo - 1]) + r;
    int bad = live && L == 0 && (v < 0 || v > maxval);
    v = (uint16_t)v;
    for (unsigned t = x0; t + 1 < x0 + cols; t++) {
        const unsigned d = x - t;
        const int term = live && x > t && d <= n;
        const double wd = term ? w[d - 1] : 0.0;
        const int32_t st = w_shfl(v, t - x0);
        if (term)
            acc = acc + wd * (double)st;
        if (live && x == t + 1) {
            int32_t s = (n ? (int32_t)sci_dpcm_round(acc, (uint32_t)maxval)
                           : st) + r;
            bad |= s < 0 || s > maxval;
            v = (uint16_t)s;
        }
    }
    if (live)
        cur[halo + L] = (uint16_t)v;
    return bad;
}

/* A lane's residual, loaded ahead: on the device each lane of the warp
 * holds its own; the emulation holds the 32 lanes' in one thread. */
#ifdef SCI_DPCM_EMU
#define REC_SLOT(L) (L)
#define REC_SLOTS STRIP_MAX
#else
#define REC_SLOT(L) 0
#define REC_SLOTS 1
#endif

/* NARROW: strips of fewer than STRIP_MAX columns in blocks of
 * REBUILD_THREADS, so few strips a batch that each row step's latency is
 * the time (not strip_layout's throughput): the solves divide early
 * (solve_rows) and a warp may wait for the left strip (below).  Both keep
 * registers live, and in the wide strips of large batches, bound by the
 * blocks' throughput, the spills they cause cost more than they save
 * (64 registers: 404 bytes spilled against 188). */
template <bool NARROW>
DK void rebuild_strip(const dec_params &p, unsigned fi, unsigned strip,
                      unsigned tid, unsigned nt, strip_room rm) {
    const dec_frame &f = p.frames[fi];
    unsigned *prog = p.progress + f.prog_off;
    int st = frame_status(p, fi);
    if (st) {
        if (strip == 0 && tid == 0)
            p.status[fi] = st;
        return;
    }
    const int32_t maxval = (int32_t)((1u << f.depth) - 1);
    const unsigned sw = p.sw;
    const unsigned x0 = strip * sw;
    const unsigned cols = f.w - x0 < sw ? f.w - x0 : sw;
    const unsigned reach = f.n + f.m - 1; /* the window's first sample */
    const unsigned halo = x0 < reach ? x0 : reach;
    const unsigned base = x0 - halo;
    const int lsq = f.w >= 3 && f.h >= 2;
    const unsigned pn = f.n * (f.n + 1) / 2;
    const int32_t *res = p.res + f.res_off;
    const unsigned G = rm.G, groups = nt / G, g = tid / G, lane = tid % G;
    const unsigned wait0 = nt > 32 ? nt - 32 : 0; /* the last warp */
    const int early =
        NARROW && nt >= 64 && (nt / 32 - 1) * (32 / G) >= cols;
    int64_t *S = rm.S;
    size_t s_step = rm.s_step;
    if (!S) {
        S = p.sums + f.sums_off + x0;
        s_step = f.w;
    }
    build_pairs(f.n, rm.pairs, tid, nt);
    if (lsq)
        for (unsigned q = tid; q < f.e * cols; q += nt)
            S[(q / cols) * s_step + q % cols] = 0;
    if (tid == 0)
        *rm.flag = 0;
    SYNC();
    uint16_t *prev = rm.buf0, *cur = rm.buf1;
    int32_t rres[REC_SLOTS];
    for (unsigned y = 0; y < f.h; y++) {
        uint16_t *out = f.out + (size_t)y * f.stride;
        /* the residuals now, so that their loads are not on the
         * recursion's chain */
        if (tid < STRIP_MAX)
            for (unsigned L = tid; L < cols; L += nt)
                rres[REC_SLOT(L)] = res[(size_t)y * f.w + x0 + L];
        if (y && lsq) {
            /* 1. the row above's window products (the frame's fields
             * read once: the compiler cannot keep them across the stores) */
            const unsigned fe = f.e, fn = f.n, fm = f.m;
            for (unsigned q = tid; q < fe * cols; q += nt) {
                unsigned t = q / cols, L = q % cols, x = x0 + L;
                if (x >= 2)
                    S[t * s_step + L] +=
                        window_entry(fn, fm, prev, base, x, rm.pairs[t]);
            }
            SYNC();
            /* 2. the systems, a group each */
            for (unsigned r0 = 0; r0 < cols; r0 += groups) {
                /* a warp whose groups all lie past the strip skips the
                 * round (the last one may have the wait below to do) */
                if (r0 + tid / 32 * (32 / G) >= cols)
                    continue;
                unsigned L = r0 + g, x = x0 + L;
                unsigned n = L < cols && x >= 2 ? sci_dpcm_order_at(f.n, x)
                                                : 0;
                int ok;
                if (f.n == SCI_DPCM_DEFAULT_ORDER && G == 16) {
                    /* every lane of the warp takes the solve's steps */
                    ok = solve_rows<SCI_DPCM_DEFAULT_ORDER, NARROW>(
                        n, S + L, s_step, lane, rm.wt + (size_t)L * f.n);
                    if (lane == 0 && L < cols)
                        rm.ok[L] = ok;
                    continue;
                }
                double *A = rm.A + (size_t)g * rm.a_group;
                for (unsigned r = lane; r < n; r += G) {
                    for (unsigned k = 0; k < n; k++) {
                        unsigned lo = r < k ? r : k, hi = r < k ? k : r;
                        A[(size_t)k * f.n + r] = (double)
                            S[sci_dpcm_packed(f.n, lo, hi) * s_step + L];
                    }
                    A[(size_t)n * f.n + r] = (double)S[(pn + r) * s_step + L];
                }
                GROUP_SYNC();
                ok = solve_coop(n, f.n, A, lane, G, rm.wt + (size_t)L * f.n);
                if (lane == 0 && L < cols)
                    rm.ok[L] = ok;
                GROUP_SYNC(); /* the next round's loads overwrite A */
            }
        }
        /* The strip to the left has finished this row: one lane acquires
         * that strip's count, then the halo is loaded; a barrier orders
         * the block's reads after the acquire.  Where the block's last warp
         * has no system to solve (narrow strips), it does both while the
         * others solve; else lane 0 waits after its solves and every
         * thread loads the halo after the barrier (a spinning lane would
         * take issue slots from the solves of the other blocks). */
        if (strip > 0 && tid == (early ? wait0 : 0)) {
            unsigned v;
            while ((v = load_acquire(&prog[strip - 1])) <= y)
                ;
            *rm.left = v;
        }
        if (strip > 0 && early && tid >= wait0) {
            WARP_SYNC();
            if (*rm.left != ROWS_ABORT)
                for (unsigned i = tid - wait0; i < halo; i += nt - wait0)
                    cur[i] = LDCG(out + base + i);
        }
        SYNC();
        if (strip > 0 && !early) {
            if (*rm.left != ROWS_ABORT)
                for (unsigned i = tid; i < halo; i += nt)
                    cur[i] = LDCG(out + base + i);
            SYNC();
        }
        if (strip > 0 && *rm.left == ROWS_ABORT) {
            if (tid == 0)
                store_release(&prog[strip], ROWS_ABORT);
            return;
        }
        /* 3. the row's recursion, by one warp */
        {
            const int solved = y && lsq;
            const int32_t left = y ? prev[0] : 0;
            auto lane_part = [&](unsigned L) {
                const unsigned x = x0 + L;
                const unsigned n = L < cols && solved && x >= 2 && rm.ok[L]
                                       ? sci_dpcm_order_at(f.n, x)
                                       : 0;
                return recurse_lane(cur, halo, x0, cols,
                                    rm.wt + (size_t)L * f.n, n,
                                    L < cols ? rres[REC_SLOT(L)] : 0, left,
                                    maxval, L);
            };
            int bad = 0;
#ifdef SCI_DPCM_EMU
            emu_warp_run([&](unsigned L) { bad |= lane_part(L); });
#else
            if (tid < STRIP_MAX)
                bad = lane_part(tid);
#endif
            if (bad)
                *rm.flag = SCI_DPCM_E_SAMPLE;
        }
        SYNC();
        if (*rm.flag) {
            if (tid == 0) {
                first_error(&p.status[fi], *rm.flag);
                FENCE();
                store_release(&prog[strip], ROWS_ABORT);
            }
            return;
        }
        /* 4. the row out, then the count: the barrier orders the block's
         * writes before tid 0's release */
        for (unsigned L = tid; L < cols; L += nt)
            out[x0 + L] = cur[halo + L];
        SYNC();
        if (tid == 0)
            store_release(&prog[strip], y + 1);
        uint16_t *t = prev;
        prev = cur;
        cur = t;
    }
}

#ifdef SCI_DPCM_EMU
/* The emulation's transpose: sample i (raster order) of the w x h frame
 * to its place in the h x w transpose. */
static inline void transpose_item(const uint16_t *in, size_t stride,
                                  unsigned w, unsigned h, uint16_t *out,
                                  size_t i) {
    size_t y = i / w, x = i % w;
    out[x * h + y] = in[y * stride + x];
}
#endif

/* Sample i (raster order of the frame) from the coded geometry into dst:
 * transposed back, narrowed to 8 bits, or both. */
DK void finish_item(const dec_params &p, unsigned fi, size_t i) {
    const dec_frame &f = p.frames[fi];
    size_t y = i / f.iw, x = i % f.iw;
    uint16_t v = f.transposed ? f.out[x * f.stride + y] : f.out[y * f.stride + x];
    if (f.dst_bytes == 1)
        ((uint8_t *)f.dst)[y * f.dst_stride + x] = (uint8_t)v;
    else
        ((uint16_t *)f.dst)[y * f.dst_stride + x] = v;
}

/* ------------------------------------------------------------------ */
/* Launches */

#define REBUILD_THREADS 512
#define PREDICT_THREADS 256
#define SEG_WARPS 4 /* segments a block, a warp each */

#define ENC_THREADS 128
#define HIST_THREADS 256
#define OFF_THREADS 256

#ifndef SCI_DPCM_EMU
__global__ void __launch_bounds__(ENC_THREADS) blocksum_kernel(enc_params p,
                                                               size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        blocksum_item(p, i);
}

__global__ void __launch_bounds__(ENC_THREADS) scan_kernel(enc_params p,
                                                           size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        scan_item(p, i);
}

__global__ void __launch_bounds__(PREDICT_THREADS, 4) predict_kernel(
    enc_params p, size_t ngroups, group_layout gl) {
    extern __shared__ double smem[];
    uint8_t *base = (uint8_t *)smem;
    const unsigned G = gl.G, groups = blockDim.x / G;
    size_t i = (size_t)blockIdx.x * groups + threadIdx.x / G;
    predict_group(p, group_at(base, gl, threadIdx.x / G), i, i < ngroups,
                  threadIdx.x % G, G);
}

__global__ void range_kernel(enc_params p, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        range_item(p, i);
}

__global__ void __launch_bounds__(HIST_THREADS) hist_kernel(enc_params p,
                                                            size_t n) {
    __shared__ uint32_t near[NEAR_BINS];
    for (unsigned b = threadIdx.x; b < NEAR_BINS; b += blockDim.x)
        near[b] = 0;
    __syncthreads();
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        hist_item(p, near, i);
    __syncthreads();
    for (unsigned b = threadIdx.x; b < NEAR_BINS; b += blockDim.x)
        hist_flush(p, near, b);
}

__global__ void bins_kernel(enc_params p, unsigned n) {
    for (unsigned b = blockIdx.x * blockDim.x + threadIdx.x; b < n;
         b += gridDim.x * blockDim.x)
        bins_item(p, b);
}

__global__ void thresholds_kernel(enc_params p) {
    thresholds_final(p);
}

__global__ void __launch_bounds__(SEG_WARPS * 32) code_kernel(enc_params p) {
    __shared__ sci_dpcm_models m[SEG_WARPS];
    unsigned s = blockIdx.x * SEG_WARPS + threadIdx.x / 32;
    if (s < p.segs)
        code_item(p, &m[threadIdx.x / 32], s);
}

__global__ void __launch_bounds__(OFF_THREADS) offsets_kernel(enc_params p) {
    __shared__ uint32_t part[OFF_THREADS];
    offsets_block(p, threadIdx.x, blockDim.x, part);
}

__global__ void pack_kernel(enc_params p) {
    for (unsigned s = blockIdx.x; s < p.segs; s += gridDim.x)
        pack_item(p, s, threadIdx.x, blockDim.x);
}

__global__ void __launch_bounds__(SEG_WARPS * 32) decode_seg_kernel(
    dec_params p) {
    __shared__ cum_models m[SEG_WARPS];
    unsigned k = blockIdx.x * SEG_WARPS + threadIdx.x / 32;
    if (k < p.nsegs)
        decode_seg_item(p, &m[threadIdx.x / 32], k);
}

/* The layout of rebuild_kernel's dynamic shared memory for a batch. */
struct strip_layout {
    unsigned maxn, halo, G; /* largest N, largest N + M - 1, group size */
    unsigned threads;       /* a block's: REBUILD_THREADS, or fewer groups
                             * where shared memory holds fewer systems or
                             * (throughput) a strip needs fewer */
    int throughput;         /* strips enough to keep every SM's blocks
                             * busy: blocks as small as a strip allows */
    int s_shared;
    size_t s_bytes, a_bytes, wt_bytes, pair_bytes, buf_bytes, total;
};

/* A strip a block; blocks take strips in ticket order, so every strip a
 * block waits for is held by a block already running (no deadlock however
 * many blocks fit).  Shared memory: the sums (s_shared; else global), the
 * groups' systems, weights, the entries' pairs, two row buffers. */
template <bool NARROW>
__global__ void __launch_bounds__(REBUILD_THREADS, 2) rebuild_kernel(
    dec_params p, strip_layout lay) {
    extern __shared__ double smem[];
    __shared__ int flag;
    __shared__ unsigned left;
    __shared__ int ok[STRIP_MAX];
    __shared__ unsigned item;
    uint8_t *q = (uint8_t *)smem;
    strip_room rm;
    rm.S = lay.s_shared ? (int64_t *)q : NULL;
    rm.s_step = p.sw + 1; /* a group's loads hit distinct banks */
    q += lay.s_bytes;
    rm.A = (double *)q;
    rm.G = lay.G;
    rm.a_group = (size_t)(lay.maxn + 1) * lay.maxn;
    q += lay.a_bytes;
    rm.wt = (double *)q;
    q += lay.wt_bytes;
    rm.pairs = (uint16_t *)q;
    q += lay.pair_bytes;
    rm.buf0 = (uint16_t *)q;
    rm.buf1 = rm.buf0 + lay.buf_bytes / 4;
    rm.ok = ok;
    rm.flag = &flag;
    rm.left = &left;
    for (;;) {
        if (threadIdx.x == 0)
            item = atomicAdd(p.ticket, 1u);
        __syncthreads();
        unsigned it = item;
        __syncthreads();
        if (it >= p.nitems)
            break;
        rebuild_strip<NARROW>(p, p.items[it].frame, p.items[it].strip,
                              threadIdx.x, blockDim.x, rm);
        __syncthreads();
    }
}

__global__ void finish_kernel(dec_params p, unsigned n) {
    for (unsigned fi = 0; fi < n; fi++) {
        const dec_frame &f = p.frames[fi];
        if (!f.dst || p.status[fi])
            continue;
        size_t count = (size_t)f.iw * f.ih;
        for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
             i < count; i += (size_t)gridDim.x * blockDim.x)
            finish_item(p, fi, i);
    }
}

/* A frame scanned by columns, transposed for the encoder through a tile in
 * shared memory (reads and writes both along rows). */
__global__ void transpose_kernel(const uint16_t *in, size_t stride, unsigned w,
                                 unsigned h, uint16_t *out) {
    __shared__ uint16_t tile[32][33];
    unsigned x0 = blockIdx.x * 32, y0 = blockIdx.y * 32;
    for (unsigned r = threadIdx.y; r < 32; r += blockDim.y) {
        unsigned x = x0 + threadIdx.x, y = y0 + r;
        if (x < w && y < h)
            tile[r][threadIdx.x] = in[(size_t)y * stride + x];
    }
    __syncthreads();
    for (unsigned r = threadIdx.y; r < 32; r += blockDim.y) {
        unsigned y = y0 + threadIdx.x, x = x0 + r;
        if (x < w && y < h)
            out[(size_t)x * h + y] = tile[threadIdx.x][r];
    }
}

/* scan=auto: the sums of |s(x, y) - s(x - 1, y)| and |s(x, y) - s(x, y -
 * 1)| over the frame (sci_dpcm_choose_scan's), into sums[0] and sums[1]
 * (zero before): a thread's share, then its warp's, added atomically.
 * Integer sums, so the choice is the C reference's whatever the order. */
__global__ void scan_sums_kernel(const void *in, size_t stride,
                                 unsigned sample_bytes, unsigned w, unsigned h,
                                 unsigned long long *sums) {
    size_t count = (size_t)w * h;
    unsigned long long r = 0, c = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned x = (unsigned)(i % w), y = (unsigned)(i / w);
        size_t k = (size_t)y * stride + x;
        int v, l, u;
        if (sample_bytes == 1) {
            const uint8_t *s8 = (const uint8_t *)in;
            v = s8[k];
            l = x ? s8[k - 1] : v;
            u = y ? s8[k - stride] : v;
        } else {
            const uint16_t *s16 = (const uint16_t *)in;
            v = s16[k];
            l = x ? s16[k - 1] : v;
            u = y ? s16[k - stride] : v;
        }
        r += (unsigned)abs(v - l);
        c += (unsigned)abs(v - u);
    }
    for (int d = 16; d > 0; d >>= 1) {
        r += __shfl_down_sync(0xffffffffu, r, d);
        c += __shfl_down_sync(0xffffffffu, c, d);
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(&sums[0], r);
        atomicAdd(&sums[1], c);
    }
}

/* 8-bit input widened for the encoder. */
__global__ void widen_kernel(const uint8_t *in, size_t stride, unsigned w,
                             unsigned h, uint16_t *out) {
    size_t count = (size_t)w * h;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[(i / w) * stride + i % w];
}
#endif

/* ------------------------------------------------------------------ */
/* Host side */

struct sci_cuda_dpcm {
    dbuf samples, in8, tsamples, cols, sums, res, hist, info, slots, packed, seg_len, seg_off;
    /* decoder: in holds the input, the segment and the strip lists; frames
     * the frames and three int per frame (status, first bad segment,
     * escapes): one copy each */
    dbuf in, frames, dres, dsums, prog, seg_status, out, fin;
    dbuf stage; /* page-locked host staging */
    dbuf scan_sums, scan_stage; /* scan=auto's two sums, device and host */
    int timing;
    size_t smem_limit; /* sci_cuda_dpcm_limit_shared's; 0: none */
    unsigned strip_w;  /* sci_cuda_dpcm_tune_strip's; 0: choose */
    sci_cuda_dpcm_times times;
    cudaEvent_t ev[6];
};

/* b holds at least `bytes` (a quarter more when it grows): device
 * memory, or page-locked host memory when pinned. */

extern "C" int sci_cuda_dpcm_create(sci_cuda_dpcm **out) {
    sci_cuda_dpcm *c = (sci_cuda_dpcm *)calloc(1, sizeof *c);
    if (!c)
        return SCI_DPCM_E_NOMEM;
    int e = events_create(c->ev, 6);
    if (e) {
        free(c);
        return e;
    }
    *out = c;
    return 0;
}

extern "C" void sci_cuda_dpcm_destroy(sci_cuda_dpcm *c) {
    if (!c)
        return;
    dbuf *all[] = {&c->samples, &c->in8, &c->tsamples, &c->cols, &c->sums, &c->res, &c->hist,
                   &c->info, &c->slots, &c->packed, &c->seg_len, &c->seg_off,
                   &c->in, &c->frames, &c->dres, &c->dsums, &c->prog,
                   &c->seg_status, &c->out, &c->fin};
    for (dbuf *b : all)
        cudaFree(b->p);
    cudaFreeHost(c->stage.p);
    cudaFree(c->scan_sums.p);
    cudaFreeHost(c->scan_stage.p);
    events_destroy(c->ev, 6);
    free(c);
}

extern "C" void sci_cuda_dpcm_limit_shared(sci_cuda_dpcm *c, size_t bytes) {
    c->smem_limit = bytes;
}

extern "C" void sci_cuda_dpcm_tune_strip(sci_cuda_dpcm *c, unsigned columns) {
    c->strip_w = columns > STRIP_MAX ? STRIP_MAX : columns;
}

extern "C" size_t sci_cuda_dpcm_device_bytes(const sci_cuda_dpcm *c) {
    const dbuf *all[] = {&c->samples, &c->in8, &c->tsamples, &c->cols, &c->sums, &c->res,
                         &c->hist, &c->info, &c->slots, &c->packed,
                         &c->seg_len, &c->seg_off, &c->in, &c->frames,
                         &c->dres, &c->dsums, &c->prog, &c->seg_status,
                         &c->out, &c->fin};
    size_t n = 0;
    for (const dbuf *b : all)
        n += b->cap;
    return n;
}

extern "C" void sci_cuda_dpcm_set_timing(sci_cuda_dpcm *c, int on) {
    c->timing = on;
}

extern "C" void sci_cuda_dpcm_get_times(const sci_cuda_dpcm *c,
                                        sci_cuda_dpcm_times *t) {
    *t = c->times;
}

static void mark(sci_cuda_dpcm *c, int i, cudaStream_t s) {
    events_mark(c->timing, c->ev, i, s);
}

static float span(sci_cuda_dpcm *c, int a, int b) {
    return events_span(c->timing, c->ev, a, b);
}

#ifdef SCI_DPCM_EMU
#define LAUNCH_ITEMS(fn, n, ...)                                             \
    for (size_t i_ = 0; i_ < (size_t)(n); i_++)                              \
        fn(__VA_ARGS__, i_)
#endif

#ifndef SCI_DPCM_EMU
static unsigned grid_for(size_t n, unsigned threads) {
    size_t g = (n + threads - 1) / threads;
    return (unsigned)(g < 1 ? 1 : g > 65535u * 32 ? 65535u * 32 : g);
}
#endif

/* Predictor blocks: enough (block, column) groups to fill the GPU, the
 * two arrays of block sums within 128 MiB each. */
static unsigned pick_blocks(unsigned w, unsigned h, unsigned e) {
    size_t want = (65536 + w - 1) / w;
    size_t cap = ((size_t)128 << 20) / ((size_t)e * 8 * w);
    if (want > cap)
        want = cap;
    if (want < 1)
        want = 1;
    if (want > h)
        want = h;
    return (unsigned)want;
}

/* scan=auto's choice for the frame (sci_dpcm_choose_scan's rule), summed
 * on the device: in place for this device's memory or a peer's; a host
 * frame is first copied into the buffer the encoder would upload it to,
 * and *samples, *stride and *on_device then name that copy, so that the
 * frame crosses the bus once. */
static int choose_scan(sci_cuda_dpcm *c, const void **samples, size_t *stride,
                       unsigned sample_bytes, int *on_device, unsigned w,
                       unsigned h, unsigned *scan, cudaStream_t st) {
#ifdef SCI_DPCM_EMU
    /* device memory is host memory here */
    (void)c;
    (void)st;
    (void)on_device;
    *scan = sci_dpcm_choose_scan(*samples, *stride, sample_bytes, w, h);
    return 0;
#else
    cudaPointerAttributes a;
    int in_device = 0, err;
    if (cudaPointerGetAttributes(&a, *samples) != cudaSuccess)
        cudaGetLastError(); /* older runtimes fail on pageable memory */
    else
        in_device = a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
    size_t count = (size_t)w * h;
    dbuf *copy = sample_bytes == 1 ? &c->in8 : &c->samples;
    if ((err = grow(&c->scan_sums, 2 * sizeof(unsigned long long))) ||
        (err = grow_mem(&c->scan_stage, 2 * sizeof(unsigned long long), 1)) ||
        (!in_device && (err = grow(copy, count * sample_bytes))))
        return err;
    if (!in_device) {
        size_t row = (size_t)w * sample_bytes;
        if ((err = (int)cudaMemcpy2DAsync(copy->p, row, *samples,
                                          *stride * sample_bytes, row, h,
                                          cudaMemcpyDefault, st)))
            return err;
        *samples = copy->p;
        *stride = w;
        *on_device = 1;
    }
    unsigned long long *d = (unsigned long long *)c->scan_sums.p;
    unsigned long long *hs = (unsigned long long *)c->scan_stage.p;
    unsigned grid = grid_for(count, 256) < 1024 ? grid_for(count, 256) : 1024;
    cudaMemsetAsync(d, 0, 2 * sizeof *d, st);
    scan_sums_kernel<<<grid, 256, 0, st>>>(*samples, *stride, sample_bytes,
                                            w, h, d);
    cudaMemcpyAsync(hs, d, 2 * sizeof *d, cudaMemcpyDeviceToHost, st);
    if ((err = (int)cudaStreamSynchronize(st)))
        return err;
    *scan = sci_dpcm_scan_of_sums(hs[0], hs[1]);
    return 0;
#endif
}

extern "C" int sci_cuda_dpcm_encode(sci_cuda_dpcm *c, const void *samples,
                                    size_t stride, unsigned sample_bytes,
                                    int on_device, unsigned w, unsigned h,
                                    unsigned depth,
                                    const sci_dpcm_params *prm,
                                    const uint8_t *meta, size_t meta_len,
                                    uint8_t *out, size_t cap, size_t *out_len,
                                    void *stream) {
    cudaStream_t st = (cudaStream_t)stream;
    if (!c || sci_dpcm_check(w, h, depth, prm) || !samples || !out ||
        !out_len || stride < w || meta_len > SCI_DPCM_MAX_METADATA ||
        (meta_len && !meta) || (sample_bytes != 1 && sample_bytes != 2) ||
        (sample_bytes == 1 && depth > 8))
        return SCI_DPCM_E_ARG;
    if (prm->scan == SCI_DPCM_SCAN_AUTO) {
        sci_dpcm_params chosen = *prm;
        int err = choose_scan(c, &samples, &stride, sample_bytes, &on_device,
                              w, h, &chosen.scan, st);
        if (err)
            return err;
        return sci_cuda_dpcm_encode(c, samples, stride, sample_bytes,
                                    on_device, w, h, depth, &chosen, meta,
                                    meta_len, out, cap, out_len, stream);
    }
    const int widen = sample_bytes == 1;
    const int by_columns = prm->scan == SCI_DPCM_SCAN_COLUMNS;
    const uint32_t maxval = (1u << depth) - 1;
    enc_params p;
    memset(&p, 0, sizeof p);
    /* the coded geometry: the frame, or its transpose */
    p.w = by_columns ? h : w;
    p.h = by_columns ? w : h;
    p.depth = depth;
    p.n = prm->order_n;
    p.m = prm->equations_m;
    p.e = p.n * (p.n + 1) / 2 + p.n;
    p.threshold = prm->threshold;
    p.nb = pick_blocks(p.w, p.h, p.e);
    p.blk_rows = (p.h + p.nb - 1) / p.nb;
    p.nb = (p.h + p.blk_rows - 1) / p.blk_rows;
    p.seg_rows = sci_dpcm_segment_rows(p.w, p.h);
    p.segs = (p.h + p.seg_rows - 1) / p.seg_rows;
    p.slot_bytes = sci_dpcm_segment_bound((size_t)p.w * p.seg_rows);
    size_t count = (size_t)w * h;
    /* the metadata section first (compressed on the host, as the C
     * reference does): the segments go after it */
    if (cap < SCI_DPCM_HEADER_BYTES + meta_len)
        return SCI_DPCM_E_BUFFER;
    int meta_z = 0;
    size_t section = sci_dpcm_write_metadata(out,
                                             cap - SCI_DPCM_HEADER_BYTES,
                                             meta, meta_len, &meta_z);
    if (meta_len && !section)
        return SCI_DPCM_E_ARG;
    size_t pre = SCI_DPCM_HEADER_BYTES + section + 4 * (size_t)p.segs;
    if (cap < pre + SCI_DPCM_TRAILER_BYTES + p.segs * SCI_RC_MIN_BYTES)
        return SCI_DPCM_E_BUFFER;
    int err;
    if (((!on_device || widen) && (err = grow(&c->samples, count * 2))) ||
        (widen && !on_device && (err = grow(&c->in8, count))) ||
        (by_columns && (err = grow(&c->tsamples, count * 2))) ||
        (err = grow(&c->cols, (size_t)p.nb * p.e * p.w * 8)) ||
        (err = grow(&c->sums, (size_t)p.nb * p.e * p.w * 8)) ||
        (err = grow(&c->res, count * 4)) ||
        (err = grow(&c->hist, (2 * (size_t)maxval + 1) * 4)) ||
        (err = grow(&c->info, INFO_COUNT * sizeof(int))) ||
        (err = grow(&c->slots, p.segs * p.slot_bytes)) ||
        (err = grow(&c->packed, p.segs * p.slot_bytes)) ||
        (err = grow(&c->seg_len, p.segs * 4)) ||
        (err = grow(&c->seg_off, p.segs * 4)) ||
        (err = grow_mem(&c->stage, p.segs * 4 + INFO_COUNT * sizeof(int),
                        1)))
        return err;
    p.cols = (int64_t *)c->cols.p;
    p.sums = (int64_t *)c->sums.p;
    p.res = (int32_t *)c->res.p;
    p.hist = (uint32_t *)c->hist.p;
    p.info = (int *)c->info.p;
    p.slots = (uint8_t *)c->slots.p;
    p.packed = (uint8_t *)c->packed.p;
    p.seg_len = (uint32_t *)c->seg_len.p;
    p.seg_off = (uint32_t *)c->seg_off.p;
    mark(c, 0, st);
    if (widen) {
        const uint8_t *src = (const uint8_t *)samples;
        size_t src_stride = stride;
        if (!on_device) {
            /* Default: the caller's frame may be another device's */
            cudaMemcpy2DAsync(c->in8.p, w, samples, stride, w, h,
                              cudaMemcpyDefault, st);
            src = (const uint8_t *)c->in8.p;
            src_stride = w;
        }
#ifdef SCI_DPCM_EMU
        for (size_t i = 0; i < count; i++)
            ((uint16_t *)c->samples.p)[i] = src[(i / w) * src_stride + i % w];
#else
        widen_kernel<<<grid_for(count, 256) < 1024 ? grid_for(count, 256)
                                                    : 1024,
                       256, 0, st>>>(src, src_stride, w, h,
                                     (uint16_t *)c->samples.p);
#endif
        p.samples = (const uint16_t *)c->samples.p;
        p.stride = w;
    } else if (on_device) {
        p.samples = (const uint16_t *)samples;
        p.stride = stride;
    } else {
        cudaMemcpy2DAsync(c->samples.p, (size_t)w * 2, samples, stride * 2,
                          (size_t)w * 2, h, cudaMemcpyDefault, st);
        p.samples = (const uint16_t *)c->samples.p;
        p.stride = w;
    }
    if (by_columns) {
#ifdef SCI_DPCM_EMU
        for (size_t i = 0; i < count; i++)
            transpose_item(p.samples, p.stride, w, h,
                           (uint16_t *)c->tsamples.p, i);
#else
        dim3 tgrid((w + 31) / 32, (h + 31) / 32);
        transpose_kernel<<<tgrid, dim3(32, 8), 0, st>>>(
            p.samples, p.stride, w, h, (uint16_t *)c->tsamples.p);
#endif
        p.samples = (const uint16_t *)c->tsamples.p;
        p.stride = h;
    }
    int init[INFO_COUNT] = {0, 0, 0x7fffffff, -1, 0, 0};
    if (p.threshold == 0) {
        init[INFO_T_LO] = 0x7fffffff;
        init[INFO_T_HI] = -0x7fffffff;
    }
    int *h_info = (int *)c->stage.p;
    uint32_t *h_len = (uint32_t *)(h_info + INFO_COUNT);
    memcpy(h_info, init, sizeof init);
    cudaMemcpyAsync(p.info, h_info, sizeof init, cudaMemcpyHostToDevice, st);
    if (p.threshold)
        cudaMemsetAsync(p.hist, 0, (2 * (size_t)maxval + 1) * 4, st);
    mark(c, 1, st);
    size_t nsum = (size_t)p.nb * p.e * p.w, ncol = (size_t)p.nb * p.w;
#ifdef SCI_DPCM_EMU
    LAUNCH_ITEMS(blocksum_item, nsum, p);
    LAUNCH_ITEMS(scan_item, (size_t)p.e * p.w, p);
    {
        /* a warp at a time: its groups, as predict_kernel's */
        group_layout gl;
        group_plan(p.n, p.m, 32, &gl);
        const unsigned G = gl.G, groups = 32 / G;
        uint8_t *room = (uint8_t *)malloc(gl.total);
        if (!room)
            return SCI_DPCM_E_NOMEM;
        for (size_t i0 = 0; i0 < ncol; i0 += groups)
            emu_warp_run([&](unsigned lane) {
                size_t i = i0 + lane / G;
                predict_group(p, group_at(room, gl, lane / G), i, i < ncol,
                              lane % G, G);
            });
        free(room);
    }
#else
    blocksum_kernel<<<grid_for(nsum, ENC_THREADS), ENC_THREADS, 0, st>>>(p, nsum);
    scan_kernel<<<grid_for((size_t)p.e * p.w, ENC_THREADS), ENC_THREADS, 0,
                  st>>>(p, (size_t)p.e * p.w);
    {
        group_layout gl;
        group_plan(p.n, p.m, PREDICT_THREADS, &gl);
        /* fewer groups a block, whole warps of them, where shared memory
         * holds fewer (large N on Turing, sm_86 and sm_89): the same
         * systems, the same bytes */
        unsigned groups = PREDICT_THREADS / gl.G;
        const unsigned warp_groups = gl.G < 32 ? 32 / gl.G : 1;
        size_t fit = smem_optin(c->smem_limit) / gl.group_bytes;
        if (fit < groups) {
            fit -= fit % warp_groups;
            groups = fit ? (unsigned)fit : warp_groups;
            gl.total = groups * gl.group_bytes;
        }
        if (gl.total > 48 * 1024 &&
            (err = (int)cudaFuncSetAttribute(
                 predict_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                 (int)gl.total))) {
            cudaGetLastError();
            return err;
        }
        predict_kernel<<<(unsigned)((ncol + groups - 1) / groups),
                         groups * gl.G, gl.total, st>>>(p, ncol, gl);
    }
#endif
    mark(c, 2, st);
#ifdef SCI_DPCM_EMU
    if (p.threshold == 0) {
        LAUNCH_ITEMS(range_item, count, p);
    } else {
        uint32_t *near = (uint32_t *)calloc(NEAR_BINS, 4);
        if (!near)
            return SCI_DPCM_E_NOMEM;
        LAUNCH_ITEMS(hist_item, count, p, near);
        for (unsigned b = 0; b < NEAR_BINS; b++)
            hist_flush(p, near, b);
        free(near);
        LAUNCH_ITEMS(bins_item, 2 * (size_t)maxval + 1, p);
    }
    thresholds_final(p);
    {
        sci_dpcm_models m;
        for (unsigned s = 0; s < p.segs; s++)
            emu_warp_run([&](unsigned) { code_item(p, &m, s); });
    }
    {
        uint32_t *part = (uint32_t *)malloc(sizeof(uint32_t));
        if (!part)
            return SCI_DPCM_E_NOMEM;
        offsets_block(p, 0, 1, part);
        free(part);
    }
    for (unsigned s = 0; s < p.segs; s++)
        pack_item(p, s, 0, 1);
#else
    unsigned rgrid = grid_for(count, 256) < 1024 ? grid_for(count, 256) : 1024;
    if (p.threshold == 0)
        range_kernel<<<rgrid, 256, 0, st>>>(p, count);
    else {
        hist_kernel<<<rgrid, HIST_THREADS, 0, st>>>(p, count);
        bins_kernel<<<grid_for(2 * (size_t)maxval + 1, 256), 256, 0, st>>>(
            p, 2 * maxval + 1);
    }
    thresholds_kernel<<<1, 1, 0, st>>>(p);
    code_kernel<<<(p.segs + SEG_WARPS - 1) / SEG_WARPS, SEG_WARPS * 32, 0,
                  st>>>(p);
    offsets_kernel<<<1, OFF_THREADS, 0, st>>>(p);
    pack_kernel<<<p.segs < 4096 ? p.segs : 4096, 128, 0, st>>>(p);
#endif
    mark(c, 3, st);
    cudaMemcpyAsync(h_info, p.info, INFO_COUNT * sizeof(int),
                    cudaMemcpyDeviceToHost, st);
    cudaMemcpyAsync(h_len, p.seg_len, p.segs * 4, cudaMemcpyDeviceToHost, st);
    cudaError_t e = cudaStreamSynchronize(st);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return (int)e;
    }
    size_t coded = (uint32_t)h_info[INFO_CODED];
    if (pre + coded + SCI_DPCM_TRAILER_BYTES > cap)
        return SCI_DPCM_E_BUFFER;
    cudaMemcpyAsync(out + pre, p.packed, coded, cudaMemcpyDeviceToHost, st);
    mark(c, 4, st);
    sci_dpcm_write_header(out, w, h, depth, prm, h_info[INFO_T_LO],
                          h_info[INFO_T_HI], (uint32_t)h_info[INFO_ESC],
                          p.seg_rows, coded, section, meta_z, h_len);
    e = cudaStreamSynchronize(st);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return (int)e;
    }
    *out_len = sci_dpcm_finish_frame(out, pre + coded);
    if (c->timing) {
        c->times.upload_ms = span(c, 0, 1);
        c->times.predict_ms = span(c, 1, 2);
        c->times.entropy_ms = span(c, 2, 3);
        c->times.rebuild_ms = 0;
        c->times.download_ms = span(c, 3, 4);
    }
    return 0;
}

/* Columns a strip for a batch of `columns` coded columns in all.  A
 * strip's rows are one block's chain, so a batch of fewer strips than the
 * device has SMs leaves SMs idle: a 1024-wide frame alone is 32 strips of
 * 32 columns.  Narrower strips give a row's work to more blocks, each
 * with less to do a row, for the price of more strips to the wavefront's
 * end and a recursion that starts N samples left of its strip.  A batch
 * of four strips of 8 an SM or more runs strips of 8 in blocks of their
 * size (strip_plan's throughput), which on an H200 decoded 132 frames of
 * 1024 x 1024 at 337 frames/s against 329 with 16 columns, 316 with 4
 * and 300 with 32 in blocks of REBUILD_THREADS; four such frames went
 * fastest in strips of 4 (210 frames/s against 200 in strips of 16 in
 * blocks of REBUILD_THREADS), and one alone in strips of 4 (13.5 against
 * 13.8 ms in strips of 8, in five calls). */
static unsigned strip_width(size_t columns, int sms) {
    if (columns / 8 >= 4 * (size_t)sms)
        return 8;
    if (columns / 4 >= 4 * (size_t)sms)
        return 4;
    unsigned sw = STRIP_MAX;
    while (sw > 4 && columns / sw < (size_t)sms)
        sw /= 2;
    return sw;
}

/* The current device's SMs (132, an H100's, where it cannot be asked or
 * in the emulation). */
static int sm_count(void) {
    int sms = 132;
#ifndef SCI_DPCM_EMU
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) !=
            cudaSuccess) {
        cudaGetLastError();
        sms = 132;
    }
#endif
    return sms;
}

#ifndef SCI_DPCM_EMU
/* rebuild_kernel's shared memory for the batch's largest N and N + M:
 * the sums there too when they fit.  Where the groups' systems do not all
 * fit (large N on Turing, sm_86 and sm_89), fewer groups, whole warps of
 * them: a block's threads go down with them.  With `throughput` (many
 * strips a batch) a block has no more groups than its strip has columns,
 * so that more blocks share an SM: a narrow strip in a block of
 * REBUILD_THREADS shortens a row's latency with threads that idle in the
 * solves, which a batch pays for in blocks an SM. */
static void strip_plan(unsigned maxn, unsigned halo, unsigned sw,
                       int throughput, size_t limit, strip_layout *lay) {
    const size_t optin = smem_optin(limit);
    size_t e = (size_t)maxn * (maxn + 1) / 2 + maxn;
    memset(lay, 0, sizeof *lay);
    lay->maxn = maxn;
    lay->halo = halo;
    lay->G = 1;
    while (lay->G < maxn)
        lay->G *= 2;
    lay->wt_bytes = (size_t)sw * maxn * 8;
    lay->pair_bytes = (e * 2 + 15) / 16 * 16;
    lay->buf_bytes = ((size_t)(halo + sw) * 2 + 15) / 16 * 16 * 2;
    const size_t system = (size_t)(maxn + 1) * maxn * 8;
    const size_t rest = lay->wt_bytes + lay->pair_bytes + lay->buf_bytes +
                        1024; /* + static */
    const size_t warp_groups = 32 / lay->G;
    size_t groups = REBUILD_THREADS / lay->G;
    lay->throughput = throughput;
    if (throughput && groups > sw)
        groups = (sw + warp_groups - 1) / warp_groups * warp_groups;
    if (rest + groups * system > optin) {
        groups = optin > rest ? (optin - rest) / system : 0;
        groups -= groups % warp_groups;
        if (groups < warp_groups)
            groups = warp_groups; /* the launch reports what cannot fit */
    }
    lay->threads = (unsigned)(groups * lay->G);
    lay->a_bytes = groups * system;
    size_t fixed = lay->a_bytes + rest;
    size_t sb = (size_t)(sw + 1) * e * 8;
    lay->s_shared = fixed + sb <= optin;
    lay->s_bytes = lay->s_shared ? sb : 0;
    lay->total = lay->s_bytes + lay->a_bytes + lay->wt_bytes +
                 lay->pair_bytes + lay->buf_bytes;
}

/* As many blocks as fit at once (more would only wait for a ticket). */
static int launch_rebuild(const dec_params &p, const strip_layout &lay,
                          unsigned nitems, int sms, cudaStream_t st) {
    void (*kernel)(dec_params, strip_layout) =
        p.sw < STRIP_MAX && !lay.throughput ? rebuild_kernel<true>
                                            : rebuild_kernel<false>;
    int per = 1;
    cudaError_t e;
    if ((e = cudaFuncSetAttribute(kernel,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  (int)lay.total)) != cudaSuccess ||
        (e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
             &per, kernel, lay.threads, lay.total)) !=
            cudaSuccess) {
        cudaGetLastError();
        return (int)e;
    }
    size_t grid = (size_t)(per > 0 ? per : 1) * sms;
    if (grid > nitems)
        grid = nitems;
    kernel<<<(unsigned)grid, lay.threads, lay.total, st>>>(p, lay);
    return 0;
}
#endif

extern "C" int sci_cuda_dpcm_decode(sci_cuda_dpcm *c, unsigned n,
                                    const uint8_t *const *in,
                                    const size_t *len, void *const *out,
                                    const size_t *stride, const size_t *cap,
                                    unsigned sample_bytes, int out_on_device,
                                    int *status, void *stream) {
    cudaStream_t st = (cudaStream_t)stream;
    if (!c || !in || !len || !out || !stride || !cap || !status ||
        (sample_bytes != 1 && sample_bytes != 2))
        return SCI_DPCM_E_ARG;
    if (n == 0)
        return 0;
    const int narrow = sample_bytes == 1;
    /* Host checks; the layout of the batch. */
    dec_frame *frames = (dec_frame *)calloc(n, sizeof *frames);
    sci_dpcm_info *info = (sci_dpcm_info *)calloc(n, sizeof *info);
    if (!frames || !info) {
        free(frames);
        free(info);
        return SCI_DPCM_E_NOMEM;
    }
    size_t in_bytes = 0, res_n = 0, sums_n = 0, prog_n = 0, out_n = 0,
           fin_n = 0;
    unsigned nsegs = 0, nitems = 0, maxn = 1, halo = 0, finishing = 0;
    size_t columns = 0;
    for (unsigned i = 0; i < n; i++) {
        status[i] = sci_dpcm_check_frame(in[i], len[i], &info[i]);
        const sci_dpcm_info *f = &info[i];
        if (!status[i] &&
            (!out[i] || stride[i] < f->width ||
             cap[i] < (size_t)(f->height - 1) * stride[i] + f->width ||
             (narrow && f->depth > 8)))
            status[i] = SCI_DPCM_E_BUFFER;
        if (status[i])
            continue;
        dec_frame *d = &frames[i];
        d->w = f->coded_width;
        d->h = f->coded_height;
        d->iw = f->width;
        d->ih = f->height;
        d->transposed = f->params.scan == SCI_DPCM_SCAN_COLUMNS;
        d->depth = f->depth;
        d->n = f->params.order_n;
        d->m = f->params.equations_m;
        d->e = d->n * (d->n + 1) / 2 + d->n;
        d->seg_rows = f->seg_rows;
        d->segs = f->segments;
        d->t_lo = f->t_lo;
        d->t_hi = f->t_hi;
        d->escapes = f->escapes;
        d->coded_off = in_bytes;
        d->res_off = res_n;
        d->sums_off = sums_n;
        d->first_seg = nsegs;
        in_bytes += f->coded_bytes;
        res_n += (size_t)d->w * d->h;
        sums_n += (size_t)d->w * d->e;
        columns += d->w;
        nsegs += d->segs;
        /* the rebuild writes the caller's device memory unless the frame
         * needs finishing or goes to the host */
        const int finish = narrow || d->transposed;
        finishing += finish;
        if (!out_on_device || finish) {
            d->stride = d->w;
            out_n += (size_t)d->w * d->h;
        } else {
            d->out = (uint16_t *)out[i];
            d->stride = stride[i];
        }
        if (finish) {
            d->dst_bytes = sample_bytes;
            if (!out_on_device)
                fin_n += (size_t)d->w * d->h * sample_bytes;
        }
        if (d->n > maxn)
            maxn = d->n;
        if (d->n + d->m - 1 > halo)
            halo = d->n + d->m - 1;
    }
    const int sms = sm_count();
    const unsigned sw = c->strip_w ? c->strip_w : strip_width(columns, sms);
    for (unsigned i = 0; i < n; i++)
        if (!status[i]) {
            unsigned strips = (frames[i].w + sw - 1) / sw;
            frames[i].prog_off = prog_n;
            prog_n += strips;
            nitems += strips;
        }
    int err = 0;
    int sums_global = 1;
#ifndef SCI_DPCM_EMU
    strip_layout lay;
    /* four strips an SM or more: blocks as small as a strip allows */
    strip_plan(maxn, halo, sw, nitems >= 4u * (unsigned)sms, c->smem_limit,
               &lay);
    sums_global = !lay.s_shared;
#endif
    size_t in_pad = (in_bytes + 15) / 16 * 16;
    size_t seg_bytes = (size_t)nsegs * sizeof(dec_segment);
    size_t item_bytes = (size_t)nitems * sizeof(dec_item);
    size_t list_bytes = in_pad + seg_bytes + item_bytes;
    size_t frame_bytes = n * sizeof(dec_frame) + n * 3 * sizeof(int);
    if ((err = grow(&c->in, list_bytes)) ||
        (err = grow(&c->frames, frame_bytes)) ||
        (err = grow(&c->dres, res_n * 4)) ||
        (sums_global && (err = grow(&c->dsums, sums_n * 8))) ||
        (err = grow(&c->prog, (prog_n + 1) * sizeof(unsigned))) ||
        (err = grow(&c->seg_status, nsegs * sizeof(int))) ||
        (err = grow(&c->out, out_n * 2)) ||
        (err = grow(&c->fin, fin_n)) ||
        (err = grow_mem(&c->stage, list_bytes + frame_bytes, 1))) {
        free(frames);
        free(info);
        return err;
    }
    /* Stage everything in pinned memory: input, segment and strip lists,
     * frames, statuses; one copy each. */
    uint8_t *h = (uint8_t *)c->stage.p;
    dec_segment *hseg = (dec_segment *)(h + in_pad);
    dec_item *hitem = (dec_item *)((uint8_t *)hseg + seg_bytes);
    dec_frame *hfr = (dec_frame *)(h + list_bytes);
    int *hst = (int *)(hfr + n), *hbad = hst + n;
    uint32_t *hesc = (uint32_t *)(hbad + n);
    uint32_t *lens = (uint32_t *)malloc((nsegs ? nsegs : 1) * sizeof *lens);
    if (!lens) {
        free(frames);
        free(info);
        return SCI_DPCM_E_NOMEM;
    }
    size_t out_off = 0, fin_off = 0;
    unsigned k = 0, it = 0;
    for (unsigned i = 0; i < n; i++) {
        hst[i] = status[i];
        hbad[i] = 0x7fffffff;
        hesc[i] = 0;
        if (status[i])
            continue;
        dec_frame *d = &frames[i];
        const sci_dpcm_info *fi = &info[i];
        memcpy(h + d->coded_off, in[i] + fi->coded_offset, fi->coded_bytes);
        sci_dpcm_segment_table(in[i], fi, lens + k);
        size_t off = d->coded_off;
        for (unsigned s = 0; s < d->segs; s++, k++) {
            hseg[k].frame = i;
            hseg[k].index = s;
            hseg[k].off = off;
            hseg[k].len = lens[k];
            off += lens[k];
        }
        for (unsigned s = 0; s * sw < d->w; s++, it++) {
            hitem[it].frame = i;
            hitem[it].strip = s;
        }
        if (!out_on_device || d->dst_bytes) {
            d->out = (uint16_t *)c->out.p + out_off;
            out_off += (size_t)d->w * d->h;
        }
        if (d->dst_bytes) {
            if (out_on_device) {
                d->dst = out[i];
                d->dst_stride = stride[i];
            } else {
                d->dst = (uint8_t *)c->fin.p + fin_off;
                d->dst_stride = d->iw;
                fin_off += (size_t)d->iw * d->ih * d->dst_bytes;
            }
        }
    }
    free(info);
    free(lens);
    memcpy(hfr, frames, n * sizeof(dec_frame));
    dec_params p;
    p.frames = (const dec_frame *)c->frames.p;
    p.segs = (const dec_segment *)((uint8_t *)c->in.p + in_pad);
    p.nsegs = nsegs;
    p.in = (const uint8_t *)c->in.p;
    p.res = (int32_t *)c->dres.p;
    p.sums = (int64_t *)c->dsums.p;
    p.items = (const dec_item *)((uint8_t *)c->in.p + in_pad + seg_bytes);
    p.nitems = nitems;
    p.progress = (unsigned *)c->prog.p;
    p.ticket = p.progress + prog_n;
    p.status = (int *)((dec_frame *)c->frames.p + n);
    p.bad_seg = p.status + n;
    p.seg_status = (int *)c->seg_status.p;
    p.escapes = (uint32_t *)(p.bad_seg + n);
    p.sw = sw;
    mark(c, 0, st);
    cudaMemcpyAsync(c->in.p, h, list_bytes, cudaMemcpyHostToDevice, st);
    cudaMemcpyAsync(c->frames.p, hfr, frame_bytes, cudaMemcpyHostToDevice, st);
    cudaMemsetAsync(c->prog.p, 0, (prog_n + 1) * sizeof(unsigned), st);
    mark(c, 1, st);
#ifdef SCI_DPCM_EMU
    {
        cum_models m;
        for (unsigned s = 0; s < nsegs; s++)
            emu_warp_run([&](unsigned) { decode_seg_item(p, &m, s); });
    }
    mark(c, 2, st);
    {
        size_t e_max = (size_t)maxn * (maxn + 1) / 2 + maxn;
        double *A = (double *)malloc((size_t)(maxn + 1) * maxn * sizeof(double));
        double *wt = (double *)malloc((size_t)sw * maxn * sizeof(double));
        int *ok = (int *)malloc(sw * sizeof(int));
        uint16_t *buf = (uint16_t *)malloc(2 * ((size_t)halo + sw) * 2);
        uint16_t *pairs = (uint16_t *)malloc(e_max * 2);
        if (!A || !wt || !ok || !buf || !pairs) {
            free(A);
            free(wt);
            free(ok);
            free(buf);
            free(pairs);
            free(frames);
            return SCI_DPCM_E_NOMEM;
        }
        int flag;
        unsigned left;
        strip_room rm = {NULL, 0, A, 0, 1, wt, ok, buf, buf + halo + sw,
                         pairs, &flag, &left};
        for (unsigned i = 0; i < nitems; i++)
            rebuild_strip<true>(p, hitem[i].frame, hitem[i].strip, 0, 1,
                                rm);
        for (unsigned i = 0; i < n; i++)
            if (!status[i] && !p.status[i] && frames[i].dst)
                for (size_t q = 0; q < (size_t)frames[i].iw * frames[i].ih;
                     q++)
                    finish_item(p, i, q);
        free(A);
        free(wt);
        free(ok);
        free(buf);
        free(pairs);
    }
#else
    if (nsegs)
        decode_seg_kernel<<<(nsegs + SEG_WARPS - 1) / SEG_WARPS,
                            SEG_WARPS * 32, 0, st>>>(p);
    mark(c, 2, st);
    if (nitems) {
        err = launch_rebuild(p, lay, nitems, sms, st);
        if (err) {
            free(frames);
            return err;
        }
    }
    if (finishing)
        finish_kernel<<<1024, 256, 0, st>>>(p, n);
#endif
    mark(c, 3, st);
    cudaMemcpyAsync(hst, p.status, n * sizeof(int), cudaMemcpyDeviceToHost,
                    st);
    if (!out_on_device)
        for (unsigned i = 0; i < n; i++)
            if (!status[i]) {
                const dec_frame &f = frames[i];
                if (f.dst)
                    cudaMemcpy2DAsync(out[i], stride[i] * f.dst_bytes, f.dst,
                                      (size_t)f.iw * f.dst_bytes,
                                      (size_t)f.iw * f.dst_bytes, f.ih,
                                      cudaMemcpyDeviceToHost, st);
                else
                    cudaMemcpy2DAsync(out[i], stride[i] * 2, frames[i].out,
                                      (size_t)frames[i].w * 2,
                                      (size_t)frames[i].w * 2, frames[i].h,
                                      cudaMemcpyDeviceToHost, st);
            }
    mark(c, 4, st);
    cudaError_t e = cudaStreamSynchronize(st);
    free(frames);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return (int)e;
    }
    int first = 0;
    for (unsigned i = 0; i < n; i++) {
        status[i] = hst[i];
        if (status[i] && !first)
            first = status[i];
    }
    if (c->timing) {
        c->times.upload_ms = span(c, 0, 1);
        c->times.predict_ms = 0;
        c->times.entropy_ms = span(c, 1, 2);
        c->times.rebuild_ms = span(c, 2, 3);
        c->times.download_ms = span(c, 3, 4);
    }
    return first;
}
