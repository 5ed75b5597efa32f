/*
 * One forward level by warps that stream down strips of columns (included
 * by cuda/j2k/dwt.cu after dwt_tile.cuh, whose arithmetic it calls).
 *
 * The tile kernels move every value through shared memory four times;
 * here the data stays in registers.  Lane l of a warp holds the four
 * columns xs + 4l .. xs + 4l + 3, xs a multiple of 4, so they are always
 * (even, odd, even, odd).  The warp walks down its chunk of rows two input
 * rows at a time and runs the vertical lifting as a pipeline: each step of
 * the C reference's lifting (fwd_step) is applied to a row as soon as both
 * its neighbours have had the step before, so a step's outputs lag its
 * inputs by a row pair and a column needs only a few rows of state.  Each
 * finished row pair (vertical low, vertical high) is then lifted
 * horizontally with the neighbours' values taken from the adjacent lanes,
 * and written out as four subband rows.
 *
 * The same halo argument as the tiles' holds: columns and rows outside the
 * band are read through whole-sample symmetric extension and lifted like
 * the others, and after H steps only a few columns at the warp's ends
 * (STRIP_W below) and the rows before the chunk are wrong; they are never
 * written.  A warp reads H rows above its chunk.  The arithmetic is
 * dwt_tile.cuh's fwd_step, scale_*_fwd and rct_fwd, applied to the same
 * operands, so the results are the tiles' (and the C reference's) to the
 * bit.
 *
 * SCI_DWT_EMU runs a warp as 32 coroutines (dwt.cu's emu_block); the lane
 * exchange then goes through a table and two barriers.
 */
#ifndef SCI_CUDA_DWT_STRIP_CUH
#define SCI_CUDA_DWT_STRIP_CUH

#include <string.h>

#include "dwt_tile.cuh"

#if defined(SCI_DWT_EMU) && !defined(__CUDA_ARCH__)
extern uint32_t sci_wt_emu_lanes[32];
#endif

namespace sci_wt {

/* A warp holds 128 columns, four a lane, starting 4 left of the 120 it
 * writes: after the H <= 4 lifting steps the wrong values reach at most 3
 * columns in from the left and 4 from the right, so lanes 1..30 write all
 * of theirs, and every lane's first column is a multiple of 4 (whole
 * vectors when the rows are aligned). */
constexpr int STRIP_W = 120, STRIP_LEFT = 4;

#if defined(__CUDA_ARCH__)
template <typename T> __device__ __forceinline__ T from_right(T v, int) {
    return __shfl_down_sync(0xFFFFFFFFu, v, 1);
}
template <typename T> __device__ __forceinline__ T from_left(T v, int) {
    return __shfl_up_sync(0xFFFFFFFFu, v, 1);
}
#else
/* The device's shuffles; lanes at the warp's ends get their own value, as
 * the shuffles give them.  The host build of nvcc never runs it. */
template <typename T> inline T lane_exchange(T v, int lane, int from) {
#ifdef SCI_DWT_EMU
    uint32_t u;
    memcpy(&u, &v, sizeof(u));
    sci_wt_emu_lanes[lane] = u;
    SCI_SYNC();
    u = sci_wt_emu_lanes[from >= 0 && from < 32 ? from : lane];
    SCI_SYNC();
    memcpy(&v, &u, sizeof(u));
#else
    (void)lane;
    (void)from;
#endif
    return v;
}
template <typename T> inline T from_right(T v, int lane) {
    return lane_exchange(v, lane, lane + 1);
}
template <typename T> inline T from_left(T v, int lane) {
    return lane_exchange(v, lane, lane - 1);
}
#endif

/* Horizontal lifting of one row, the lane's columns (even, odd, even,
 * odd) in v: one exchange a step, with the neighbour lane's nearest
 * column. */
template <int F>
SCI_HD void lift_row(typename filt<F>::T (&v)[4], int lane) {
    SCI_UNROLL
    for (int k = 1; k <= filt<F>::H; k += 2) {
        const typename filt<F>::T r = from_right(v[0], lane);
        v[1] = fwd_step<F>(k, v[1], v[0], v[2]);
        v[3] = fwd_step<F>(k, v[3], v[2], r);
        const typename filt<F>::T l = from_left(v[3], lane);
        v[0] = fwd_step<F>(k + 1, v[0], l, v[1]);
        v[2] = fwd_step<F>(k + 1, v[2], v[1], v[3]);
    }
    if constexpr (F == SCI_DWT_97) {
        SCI_UNROLL
        for (int j = 0; j < 4; j += 2) {
            v[j] = scale_lo_fwd(v[j]);
            v[j + 1] = scale_hi_fwd(v[j + 1]);
        }
    }
}

/* Where a lane reads: its first column x0 and, when x0 .. x0 + 3 are all
 * inside the band, vec (one vector a row where the group's rows allow it);
 * else each column mirrored into the band. */
struct strip_cols {
    int x0, cx[4];
    bool vec;
};

/* One input row of the lane's four columns as read: level 1's samples
 * (at most 16 bits) two to a word, so that rows in flight hold half the
 * registers; deeper levels' low band as it is. */
template <int F, int NC, bool FIRST> struct strip_raw {
    uint32_t w[NC][2];
};
template <int F, int NC> struct strip_raw<F, NC, false> {
    typename filt<F>::T v[NC][4];
};

/* A vector at an address aligned to its size. */
template <typename V> SCI_HD V load_aligned(const void *a) {
#if defined(__CUDA_ARCH__)
    return *(const V *)a;
#else
    V v;
    memcpy(&v, a, sizeof(v));
    return v;
#endif
}

/* Reads row y (absolute, any: it is mirrored into the band). */
template <int F, int NC, bool FIRST>
SCI_HD void strip_fetch(const params &p, const group &g, int y,
                        const strip_cols &sc, strip_raw<F, NC, FIRST> &r) {
    typedef typename filt<F>::T T;
    y = refl(y, g.h);
    SCI_UNROLL
    for (int q = 0; q < NC; q++) {
        if constexpr (FIRST) {
            const uint8_t *row = g.smp[q] + (ptrdiff_t)y * g.smp_row[q];
            if (sc.vec && g.smp_vec && p.bytes == 2) {
                const uint2 u = load_aligned<uint2>(row + (ptrdiff_t)sc.x0 * 2);
                r.w[q][0] = u.x;
                r.w[q][1] = u.y;
            } else if (sc.vec && g.smp_vec) {
                const uint32_t u = load_aligned<uint32_t>(row + sc.x0);
                r.w[q][0] = (u & 0xFF) | (u & 0xFF00) << 8;
                r.w[q][1] = (u >> 16 & 0xFF) | (u >> 24) << 16;
            } else {
                uint32_t s[4];
                SCI_UNROLL
                for (int j = 0; j < 4; j++)
                    s[j] = (uint32_t)load_sample(
                        row + (ptrdiff_t)sc.cx[j] * g.smp_px[q], p.bytes,
                        g.smp_al16);
                r.w[q][0] = s[0] | s[1] << 16;
                r.w[q][1] = s[2] | s[3] << 16;
            }
        } else {
            /* a deeper level reads scratch, whose rows start on 16 bytes
             * (dwt.cu's scratch_pitch) */
            const T *row = (const T *)g.ll_in[q] + (size_t)y * g.ll_in_pitch;
            if (sc.vec) {
                /* int4 and float4 alike: the bits are moved, not converted */
                const int4 u = load_aligned<int4>(row + sc.x0);
                memcpy(&r.v[q][0], &u.x, sizeof(T));
                memcpy(&r.v[q][1], &u.y, sizeof(T));
                memcpy(&r.v[q][2], &u.z, sizeof(T));
                memcpy(&r.v[q][3], &u.w, sizeof(T));
            } else {
                SCI_UNROLL
                for (int j = 0; j < 4; j++)
                    r.v[q][j] = row[sc.cx[j]];
            }
        }
    }
}

/* A row as read to the transform's input: level 1's DC shift and colour
 * transform. */
template <int F, int NC, bool FIRST>
SCI_HD void strip_input(const params &p, const strip_raw<F, NC, FIRST> &r,
                        typename filt<F>::T (&v)[NC][4]) {
    typedef typename filt<F>::T T;
    if constexpr (FIRST) {
        SCI_UNROLL
        for (int j = 0; j < 4; j++) {
            int32_t s[NC];
            SCI_UNROLL
            for (int q = 0; q < NC; q++)
                s[q] = (int32_t)((r.w[q][j >> 1] >> (16 * (j & 1)) &
                                  (uint32_t)p.mask)) - p.shift;
            if constexpr (NC == 3) {
                /* the RCT: dwt.cu keeps the ICT's level on tiles */
                static_assert(F == SCI_DWT_53, "three components: 5/3 only");
                int32_t o[3];
                rct_fwd(s[0], s[1], s[2], o);
                SCI_UNROLL
                for (int q = 0; q < NC; q++)
                    v[q][j] = (T)o[q];
            } else {
                v[0][j] = (T)s[0];
            }
        }
    } else {
        (void)p;
        SCI_UNROLL
        for (int q = 0; q < NC; q++)
            SCI_UNROLL
            for (int j = 0; j < 4; j++)
                v[q][j] = r.v[q][j];
    }
}

/* Band columns x and x + 1 (x even) of a band row: one 8-byte store where
 * the row allows it (the lanes then cover whole sectors), else one each
 * inside the band's n columns. */
template <typename T>
SCI_HD void store_pair(T *row, int x, int n, T a, T b) {
    if (x + 1 < n && !((uintptr_t)(row + x) & 7)) {
        uint2 u;
        memcpy(&u.x, &a, 4);
        memcpy(&u.y, &b, 4);
#if defined(__CUDA_ARCH__)
        *(uint2 *)(row + x) = u;
#else
        memcpy(row + x, &u, sizeof(u));
#endif
        return;
    }
    if (x < n)
        row[x] = a;
    if (x + 1 < n)
        row[x + 1] = b;
}

/* A finished row pair of component q's vertical pass, lifted horizontally
 * and written: lo the vertical low-pass row y (even), hi row y + 1.  The
 * lane's columns are band columns bx and bx + 1 of each band. */
template <int F>
SCI_HD void strip_emit(const group &g, int q, int y, int bx, bool mine,
                       int lane, typename filt<F>::T (&lo)[4],
                       typename filt<F>::T (&hi)[4]) {
    typedef typename filt<F>::T T;
    const int by = y >> 1, hw = g.w >> 1;
    if (g.do_h) {
        lift_row<F>(lo, lane);
        lift_row<F>(hi, lane);
    }
    if (!mine)
        return;
    T *coef = (T *)g.coef[q];
    store_pair((T *)g.ll_out[q] + (size_t)by * g.ll_out_pitch, bx, g.lw, lo[0],
               lo[2]);
    store_pair(coef + (size_t)by * g.coef_pitch + g.lw, bx, hw, lo[1], lo[3]);
    if (y + 1 < g.h) {
        T *lh = coef + (size_t)(g.lh + by) * g.coef_pitch;
        store_pair(lh, bx, g.lw, hi[0], hi[2]);
        store_pair(lh + g.lw, bx, hw, hi[1], hi[3]);
    }
}

/* Warp `item` of a forward level: the column strip and chunk of rows it
 * owns (group.tiles_x strips, chunks of p.strip_rows rows, items
 * block_begin .. block_end - 1 of the group), lane `lane`. */
template <int F, int NC, bool FIRST>
SCI_HD void fwd_strip(const params &p, const group &g, int item, int lane) {
    typedef typename filt<F>::T T;
    typedef strip_raw<F, NC, FIRST> raw;
    constexpr int H = filt<F>::H;
    const int b = item - g.block_begin;
    const int cy = b / g.tiles_x, sx = b - cy * g.tiles_x;
    const int y0 = cy * p.strip_rows;
    const int y1 = y0 + p.strip_rows < g.h ? y0 + p.strip_rows : g.h;
    strip_cols sc;
    sc.x0 = sx * STRIP_W - STRIP_LEFT + 4 * lane;
    SCI_UNROLL
    for (int j = 0; j < 4; j++)
        sc.cx[j] = refl(sc.x0 + j, g.w);
    sc.vec = sc.x0 >= 0 && sc.x0 + 3 < g.w;
    const int bx = sc.x0 >> 1;
    const bool mine = lane >= 1 && lane <= 30;

    raw r0;
    T x[NC][4];
    if (!g.do_v) {
        /* one row: no vertical lifting, and no high-pass row */
        strip_fetch<F, NC, FIRST>(p, g, 0, sc, r0);
        strip_input<F, NC, FIRST>(p, r0, x);
        T none[4] = {};
        SCI_UNROLL
        for (int q = 0; q < NC; q++)
            strip_emit<F>(g, q, 0, bx, mine, lane, x[q], none);
        return;
    }

    /* Pipeline state per component and column: x the raw even row 2m; s1
     * (5/3: d) or s1, s2, s3 (9/7: o1, e2, o3) the rows of the steps that
     * still wait for a neighbour.  It starts H rows above the chunk, where
     * every value is wrong; the first rows that come out right are y0's. */
    T s1[NC][4], s2[NC][4], s3[NC][4];
    const int lag = H / 2; /* row pairs from a pair's input to its output */
    int m = y0 / 2 - lag;
    strip_fetch<F, NC, FIRST>(p, g, 2 * m, sc, r0);
    strip_input<F, NC, FIRST>(p, r0, x);
    SCI_UNROLL
    for (int q = 0; q < NC; q++)
        SCI_UNROLL
        for (int j = 0; j < 4; j++)
            s1[q][j] = s2[q][j] = s3[q][j] = 0;
    /* rows 2m+1, 2m+2 (ra, rb) and the next pair's (na, nb) are read before
     * this pair's lifting, and the pair after those at its start */
    raw ra, rb, na, nb;
    strip_fetch<F, NC, FIRST>(p, g, 2 * m + 1, sc, ra);
    strip_fetch<F, NC, FIRST>(p, g, 2 * m + 2, sc, rb);
    strip_fetch<F, NC, FIRST>(p, g, 2 * m + 3, sc, na);
    strip_fetch<F, NC, FIRST>(p, g, 2 * m + 4, sc, nb);
    for (;; m++) {
        const int yo = 2 * (m - lag + 1); /* the pair this one finishes */
        const bool last = yo + 2 >= y1;
        raw fa, fb;
        if (yo + 4 < y1) {
            strip_fetch<F, NC, FIRST>(p, g, 2 * m + 5, sc, fa);
            strip_fetch<F, NC, FIRST>(p, g, 2 * m + 6, sc, fb);
        }
        T a[NC][4], b2[NC][4];
        strip_input<F, NC, FIRST>(p, ra, a);
        strip_input<F, NC, FIRST>(p, rb, b2);
        SCI_UNROLL
        for (int q = 0; q < NC; q++) {
            T lo[4], hi[4];
            SCI_UNROLL
            for (int j = 0; j < 4; j++) {
                if constexpr (F == SCI_DWT_53) {
                    /* d(2m+1), then the even row 2m */
                    T d = fwd_step<F>(1, a[q][j], x[q][j], b2[q][j]);
                    lo[j] = fwd_step<F>(2, x[q][j], s1[q][j], d);
                    hi[j] = d;
                    s1[q][j] = d;
                } else {
                    T o1 = fwd_step<F>(1, a[q][j], x[q][j], b2[q][j]);
                    T e2 = fwd_step<F>(2, x[q][j], s1[q][j], o1);
                    T o3 = fwd_step<F>(3, s1[q][j], s2[q][j], e2);
                    T e4 = fwd_step<F>(4, s2[q][j], s3[q][j], o3);
                    lo[j] = scale_lo_fwd(e4);
                    hi[j] = scale_hi_fwd(o3);
                    s1[q][j] = o1;
                    s2[q][j] = e2;
                    s3[q][j] = o3;
                }
                x[q][j] = b2[q][j];
            }
            if (yo >= y0)
                strip_emit<F>(g, q, yo, bx, mine, lane, lo, hi);
        }
        if (last)
            break;
        ra = na;
        rb = nb;
        na = fa;
        nb = fb;
    }
}

} /* namespace sci_wt */

#endif
