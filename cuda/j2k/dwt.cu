/*
 * The wavelet stage on the GPU (cuda/j2k/dwt.h); the tile bodies are in
 * dwt_tile.cuh.
 *
 * One launch per decomposition level covers every component still being
 * decomposed at that level (components are groups of a 1-D grid of tiles,
 * or of warps for the forward, which streams down strips of columns:
 * dwt_strip.cuh).  The forward level 1 reads video samples with the DC
 * shift and colour transform fused, and each level writes its three detail
 * bands straight into the coefficient buffer and its low band into device
 * scratch, except the last level, which writes it into the buffer too.
 * The inverse mirrors this, reading the coefficient buffer only, and its
 * level 1 writes video samples.  Low bands alternate between two scratch
 * buffers (odd and even levels), so no launch reads what another block of
 * it writes.
 *
 * Built with SCI_DWT_EMU, the kernels become host loops over the same tile
 * code (one "thread" walking every strided loop), for checking the kernel
 * logic against the C reference on machines without a GPU.
 */
#include <cuda_runtime.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#ifdef SCI_DWT_EMU
#include <vector>
#include <functional>
#include <ucontext.h>
#endif

#include "dwt.h"
#include "htj2k.h"
#include "cuda/common/launch.cuh"
#include "dwt_tile.cuh"
#include "dwt_strip.cuh"
#include "dwt_tune.h"

using namespace sci_wt;

struct sci_cuda_wt {
    sci_wt_geometry g;
    unsigned leff[SCI_WT_MAX_COMPONENTS]; /* levels that change anything */
    unsigned max_leff;
    size_t coef_off[SCI_WT_MAX_COMPONENTS];
    /* low bands of odd levels in scratch[0], of even levels in scratch[1] */
    void *scratch[2];
    size_t scr_off[2][SCI_WT_MAX_COMPONENTS];
    int sm_count;
    int max_rows;     /* tallest tile tried */
    int max_rows_joint[2]; /* the same for blocks of three components,
                            * forward and inverse */
    int min_blocks;   /* shorter tiles while a level has fewer blocks */
    bool pdl;         /* programmatic dependent launches (sm_90+) */
    int strip_rows;   /* a forward warp's rows at most */
    int min_warps;    /* fewer rows while a level has fewer warps */
};

/* Levels after which a component is 1x1: the rest are identity, since a
 * one-sample signal passes unchanged. */
static unsigned effective_levels(uint32_t w, uint32_t h, unsigned levels) {
    for (unsigned l = 0; l < levels; l++)
        if (sci_dwt_low_len(w, l) == 1 && sci_dwt_low_len(h, l) == 1)
            return l;
    return levels;
}

/* ---- kernels ------------------------------------------------------------ */

#ifndef SCI_DWT_EMU
/* Levels are launched so that a grid may start while the one before it
 * finishes (programmatic dependent launch, sm_90 and newer:
 * cuda/common/launch.cuh); every kernel waits here for it before touching
 * memory. */
__device__ __forceinline__ void wait_previous() {
#if __CUDA_ARCH__ >= 900
    cudaGridDependencySynchronize();
#endif
}

template <int F, int TH, bool FIRST>
__global__ void __launch_bounds__(NT) fwd_kernel(const __grid_constant__ params p) {
    extern __shared__ __align__(16) unsigned char smem[];
    wait_previous();
    fwd_tile<F, TH, FIRST>(p, blockIdx.x, threadIdx.x, NT,
                           (typename filt<F>::T *)smem);
}

template <int F, int TH, bool LAST>
__global__ void __launch_bounds__(NT) inv_kernel(const __grid_constant__ params p) {
    extern __shared__ __align__(16) unsigned char smem[];
    wait_previous();
    inv_tile<F, TH, LAST>(p, blockIdx.x, threadIdx.x, NT,
                          (typename filt<F>::T *)smem);
}

template <int F, int TH, bool INV>
__global__ void __launch_bounds__(NT) copy_kernel(const __grid_constant__ params p) {
    wait_previous();
    copy_tile<F, TH, INV>(p, blockIdx.x, threadIdx.x, NT);
}
#endif

constexpr int STRIP_THREADS = 128;

/* Warp `item` of a forward level; groups of three components (a colour
 * transform) only come at level 1, and on warps only under 5/3 (see
 * launch_strips). */
template <int F, bool FIRST>
SCI_HD void fwd_strip_item(const params &p, int item, int lane) {
    const group &g = find_group(p, item);
    if constexpr (FIRST && F == SCI_DWT_53) {
        if (g.nc == 3) {
            fwd_strip<F, 3, true>(p, g, item, lane);
            return;
        }
    }
    fwd_strip<F, 1, FIRST>(p, g, item, lane);
}

#ifndef SCI_DWT_EMU
/* Level 1's three components would take 110 registers a thread; held to
 * 96 (a few bytes spilled) five blocks fit a multiprocessor, not four. */
template <int F, bool FIRST>
__global__ void __launch_bounds__(STRIP_THREADS, FIRST ? 5 : 8)
    strip_kernel(const __grid_constant__ params p, int items) {
    wait_previous();
    const int item = blockIdx.x * (STRIP_THREADS / 32) + threadIdx.x / 32;
    if (item < items)
        fwd_strip_item<F, FIRST>(p, item, threadIdx.x & 31);
}
#endif

enum pass { PASS_FWD, PASS_INV, PASS_COPY_FWD, PASS_COPY_INV };

#ifdef SCI_DWT_EMU
/* A block as nt <= NT coroutines on this thread: each runs until its next
 * barrier, and the round starts over once all have arrived.  A forward
 * warp is such a block of 32, its lane exchanges going through
 * sci_wt_emu_lanes. */
static ucontext_t emu_main, emu_ctx[NT];
static bool emu_done[NT];
static int emu_cur;
static std::function<void(int)> emu_body;
uint32_t sci_wt_emu_lanes[32];

void sci_wt_emu_sync(void) {
    swapcontext(&emu_ctx[emu_cur], &emu_main);
}

static void emu_entry(int tid) {
    emu_body(tid);
    emu_done[tid] = true;
    swapcontext(&emu_ctx[tid], &emu_main);
}

static void emu_block(const std::function<void(int)> &body, int nt = NT) {
    static std::vector<char> stacks((size_t)NT * 65536);
    emu_body = body;
    for (int t = 0; t < nt; t++) {
        getcontext(&emu_ctx[t]);
        emu_ctx[t].uc_stack.ss_sp = &stacks[(size_t)t * 65536];
        emu_ctx[t].uc_stack.ss_size = 65536;
        emu_ctx[t].uc_link = NULL;
        makecontext(&emu_ctx[t], (void (*)())emu_entry, 1, t);
        emu_done[t] = false;
    }
    /* alternate the order, so that a missing barrier shows */
    for (int round = 0;; round++) {
        int running = 0;
        for (int i = 0; i < nt; i++) {
            int t = round & 1 ? nt - 1 - i : i;
            if (!emu_done[t]) {
                emu_cur = t;
                swapcontext(&emu_main, &emu_ctx[t]);
                running++;
            }
        }
        if (!running)
            break;
    }
}
#endif


template <int F, int TH>
static cudaError_t launch_th(int pass, bool edge, const params &p, int nblocks,
                             cudaStream_t s, bool pdl) {
    typedef typename filt<F>::T T;
    int nc = 1;
    for (int i = 0; i < p.ngroups; i++)
        nc = p.g[i].nc > nc ? p.g[i].nc : nc;
    size_t smem = pass == PASS_FWD
        ? (nc > 1 ? nc * tile<F, TH>::INV_WORDS : tile<F, TH>::FWD_WORDS) * sizeof(T)
        : pass == PASS_INV ? nc * tile<F, TH>::INV_WORDS * sizeof(T) : 0;
#ifdef SCI_DWT_EMU
    std::vector<T> sm(smem / sizeof(T) + 1);
    for (int b = 0; b < nblocks; b++) {
        /* garbage in, so that a read of a word no pass wrote shows */
        memset(sm.data(), 0x7f, sm.size() * sizeof(T));
        T *m = sm.data();
        emu_block([&](int tid) {
            if (pass == PASS_FWD && edge)
                fwd_tile<F, TH, true>(p, b, tid, NT, m);
            else if (pass == PASS_FWD)
                fwd_tile<F, TH, false>(p, b, tid, NT, m);
            else if (pass == PASS_INV && edge)
                inv_tile<F, TH, true>(p, b, tid, NT, m);
            else if (pass == PASS_INV)
                inv_tile<F, TH, false>(p, b, tid, NT, m);
            else if (pass == PASS_COPY_FWD)
                copy_tile<F, TH, false>(p, b, tid, NT);
            else
                copy_tile<F, TH, true>(p, b, tid, NT);
        });
    }
    (void)s;
    (void)pdl;
    return cudaSuccess;
#else
    void (*k)(params);
    if (pass == PASS_FWD && edge)
        k = fwd_kernel<F, TH, true>;
    else if (pass == PASS_FWD)
        k = fwd_kernel<F, TH, false>;
    else if (pass == PASS_INV && edge)
        k = inv_kernel<F, TH, true>;
    else if (pass == PASS_INV)
        k = inv_kernel<F, TH, false>;
    else if (pass == PASS_COPY_FWD)
        k = copy_kernel<F, TH, false>;
    else
        k = copy_kernel<F, TH, true>;
    return launch_pdl(k, nblocks, NT, smem, s, pdl, p);
#endif
}

/* Cuts each group's signal into pieces of w columns and rows rows (tiles,
 * or a warp's strip and chunk), numbered across the groups; returns how
 * many. */
static int cut_groups(params &p, int w, int rows) {
    int n = 0;
    for (int i = 0; i < p.ngroups; i++) {
        group &g = p.g[i];
        g.tiles_x = (g.w + w - 1) / w;
        g.block_begin = n;
        n += g.tiles_x * ((g.h + rows - 1) / rows);
        g.block_end = n;
    }
    return n;
}

/* Tile rows: tall tiles waste less on the vertical halo, short ones give
 * the small deep levels enough blocks to fill the machine.  Blocks holding
 * three components (colour transform, level 1) stay within 48 KB of shared
 * memory at 32 rows. */
static int tile_rows(const sci_cuda_wt *wt, int pass, params &p, int *nblocks) {
    int rows = wt->max_rows;
    int joint = pass == PASS_FWD ? wt->max_rows_joint[0] : wt->max_rows_joint[1];
    for (int i = 0; i < p.ngroups; i++)
        if (p.g[i].nc > 1 && pass < PASS_COPY_FWD && rows > joint)
            rows = joint;
    for (;;) {
        int n = cut_groups(p, TW, rows);
        if (rows == 16 || n >= wt->min_blocks) {
            *nblocks = n;
            return rows;
        }
        rows /= 2;
    }
}

static cudaError_t launch(const sci_cuda_wt *wt, int pass, bool edge,
                          params &p, cudaStream_t s) {
    if (p.ngroups == 0)
        return cudaSuccess;
    int nblocks;
    int rows = tile_rows(wt, pass, p, &nblocks);
    const bool pdl = wt->pdl;
    if (wt->g.filter == SCI_DWT_53) {
        if (rows == 64)
            return launch_th<SCI_DWT_53, 64>(pass, edge, p, nblocks, s, pdl);
        if (rows == 32)
            return launch_th<SCI_DWT_53, 32>(pass, edge, p, nblocks, s, pdl);
        return launch_th<SCI_DWT_53, 16>(pass, edge, p, nblocks, s, pdl);
    }
    if (rows == 64)
        return launch_th<SCI_DWT_97, 64>(pass, edge, p, nblocks, s, pdl);
    if (rows == 32)
        return launch_th<SCI_DWT_97, 32>(pass, edge, p, nblocks, s, pdl);
    return launch_th<SCI_DWT_97, 16>(pass, edge, p, nblocks, s, pdl);
}

/* Warps of a forward level: chunks of strip_rows rows, halved while the
 * level has fewer than min_warps of them (down to 4 rows).  A warp's rows
 * are a chain of dependent reads, so a level too small to fill the
 * machine even then (the deep ones) runs faster on tiles: 0 for those. */
static int strip_plan(const sci_cuda_wt *wt, params &p) {
    for (int rows = wt->strip_rows;; rows /= 2) {
        int n = cut_groups(p, STRIP_W, rows);
        if (n >= wt->min_warps) {
            p.strip_rows = rows;
            return n;
        }
        if (rows <= 4)
            return 0;
    }
}

template <int F>
static cudaError_t launch_strips_f(bool first, const params &p, int items,
                                   cudaStream_t s, bool pdl) {
#ifdef SCI_DWT_EMU
    /* last warp first: a warp writing into its right neighbour's columns
     * (the wider halo) then leaves wrong values behind */
    for (int it = items - 1; it >= 0; it--)
        emu_block([&](int lane) {
            if (first)
                fwd_strip_item<F, true>(p, it, lane);
            else
                fwd_strip_item<F, false>(p, it, lane);
        }, 32);
    (void)s;
    (void)pdl;
    return cudaSuccess;
#else
    const int wpb = STRIP_THREADS / 32, blocks = (items + wpb - 1) / wpb;
    return launch_pdl(first ? strip_kernel<F, true> : strip_kernel<F, false>,
                      blocks, STRIP_THREADS, 0, s, pdl, p, items);
#endif
}

static cudaError_t launch_strips(const sci_cuda_wt *wt, bool first, params &p,
                                 cudaStream_t s) {
    if (p.ngroups == 0)
        return cudaSuccess;
    /* 9/7 under the ICT at level 1 needs 128 registers a thread on warps,
     * too few warps to hide the reads: 107 us against the tiles' 100 for
     * the 4K 4:4:4 frame (H200, docs/benchmarks.md) */
    const bool ict = first && wt->g.ct == SCI_CT_ICT;
    int items = ict || !wt->strip_rows ? 0 : strip_plan(wt, p);
    if (!items)
        return launch(wt, PASS_FWD, first, p, s);
    if (wt->g.filter == SCI_DWT_53)
        return launch_strips_f<SCI_DWT_53>(first, p, items, s, wt->pdl);
    return launch_strips_f<SCI_DWT_97>(first, p, items, s, wt->pdl);
}

/* ---- planning ----------------------------------------------------------- */

static params base_params(const sci_wt_geometry *g) {
    params p;
    memset(&p, 0, sizeof(p));
    p.bytes = (int)sci_wt_sample_bytes(g);
    p.shift = (int32_t)1 << (g->depth - 1);
    p.maxv = (int32_t)(((uint32_t)1 << g->depth) - 1);
    p.mask = p.maxv;
    p.ct = (int)g->ct;
    return p;
}

/* Components c.. of one group: three when a colour transform ties 0..2 at
 * the sample side (`samples`), else one. */
static int group_size(const sci_wt_geometry *g, unsigned c, bool samples) {
    return samples && g->ct != SCI_CT_NONE && c == 0 ? 3 : 1;
}

static void set_samples(group &gr, const sci_wt_plane *pl, unsigned c,
                        unsigned bytes) {
    gr.smp_al16 = 1;
    gr.smp_vec = 1;
    for (int q = 0; q < gr.nc; q++) {
        const sci_wt_plane &s = pl[c + q];
        gr.smp[q] = (uint8_t *)s.data;
        gr.smp_row[q] = s.row_stride;
        gr.smp_px[q] = (int)s.pixel_stride;
        if (((uintptr_t)s.data | (uintptr_t)s.row_stride | s.pixel_stride) & 1)
            gr.smp_al16 = 0;
        if (s.pixel_stride != bytes ||
            ((uintptr_t)s.data | (uintptr_t)s.row_stride) % (4 * bytes))
            gr.smp_vec = 0;
    }
}

/* Rows of the low bands in scratch start on 16 bytes, so that the
 * forward's warps read them a vector of four at a time. */
static size_t scratch_pitch(uint32_t w) {
    return ((size_t)w + 3) & ~(size_t)3;
}

static void *elem(void *base, size_t off) {
    return (char *)base + off * 4;
}

/* Group for level l (1-based) of components c..c+nc-1: the signal is their
 * low band of level l-1. */
static group level_group(const sci_cuda_wt *wt, unsigned c, int nc, unsigned l,
                         void *coeffs) {
    const sci_wt_geometry *g = &wt->g;
    group gr;
    memset(&gr, 0, sizeof(gr));
    uint32_t cw = sci_wt_comp_width(g, c), ch = sci_wt_comp_height(g, c);
    gr.nc = nc;
    gr.w = (int)sci_dwt_low_len(cw, l - 1);
    gr.h = (int)sci_dwt_low_len(ch, l - 1);
    gr.lw = (int)sci_dwt_low_len(cw, l);
    gr.lh = (int)sci_dwt_low_len(ch, l);
    gr.do_h = gr.w > 1;
    gr.do_v = gr.h > 1;
    gr.coef_pitch = cw;
    for (int q = 0; q < nc; q++)
        gr.coef[q] = elem(coeffs, wt->coef_off[c + q]);
    return gr;
}

/* Where the low band of level l of component c lives (level 0: nowhere,
 * the samples are read instead). */
static void *low_band(const sci_cuda_wt *wt, unsigned c, unsigned l,
                      void *coeffs, size_t *pitch) {
    const sci_wt_geometry *g = &wt->g;
    if (l == wt->leff[c]) {
        *pitch = sci_wt_comp_width(g, c);
        return elem(coeffs, wt->coef_off[c]);
    }
    int b = (l - 1) & 1;
    *pitch = scratch_pitch(sci_dwt_low_len(sci_wt_comp_width(g, c), l));
    return elem(wt->scratch[b], wt->scr_off[b][c]);
}

/* The components with nothing to decompose (a 1x1 plane, or 0 levels):
 * their samples and coefficients are only copied, either way. */
static params copy_params(const sci_cuda_wt *wt, const sci_wt_plane *planes,
                          void *coeffs) {
    const sci_wt_geometry *g = &wt->g;
    params p = base_params(g);
    for (unsigned c = 0; c < g->components;) {
        int nc = group_size(g, c, true);
        if (wt->leff[c] == 0) {
            group &gr = p.g[p.ngroups++];
            gr = level_group(wt, c, nc, 1, coeffs);
            gr.comp0 = (int)c;
            set_samples(gr, planes, c, sci_wt_sample_bytes(g));
        }
        c += nc;
    }
    return p;
}

/* ---- API ---------------------------------------------------------------- */

extern "C" int sci_cuda_wt_create(sci_cuda_wt **out, const sci_wt_geometry *g) {
    *out = NULL;
    if (sci_wt_geometry_check(g))
        return cudaErrorInvalidValue;
    sci_cuda_wt *wt = (sci_cuda_wt *)calloc(1, sizeof(*wt));
    if (!wt)
        return cudaErrorMemoryAllocation;
    wt->g = *g;
    size_t need[2] = {0, 0};
    for (unsigned c = 0; c < g->components; c++) {
        uint32_t cw = sci_wt_comp_width(g, c), ch = sci_wt_comp_height(g, c);
        wt->leff[c] = effective_levels(cw, ch, g->levels);
        if (wt->leff[c] > wt->max_leff)
            wt->max_leff = wt->leff[c];
        wt->coef_off[c] = sci_wt_comp_offset(g, c);
        /* LL_1 (odd levels) and LL_2 (even levels) bound the others */
        for (unsigned b = 0; b < 2; b++) {
            wt->scr_off[b][c] = need[b];
            if (wt->leff[c] > b + 1)
                need[b] += scratch_pitch(sci_dwt_low_len(cw, b + 1))
                    * sci_dwt_low_len(ch, b + 1);
        }
    }
    int dev = 0, sms = 0, major = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor,
                                     dev);
    for (unsigned b = 0; b < 2 && err == cudaSuccess; b++)
        if (need[b])
            err = cudaMalloc(&wt->scratch[b], need[b] * 4);
    if (err != cudaSuccess) {
        sci_cuda_wt_destroy(wt);
        return err;
    }
    wt->sm_count = sms > 0 ? sms : 1;
    wt->pdl = launch_pdl_supported(major);
    wt->max_rows = 64;
    wt->max_rows_joint[0] = 32;
    wt->max_rows_joint[1] = 32;
    /* about one wave */
    wt->min_blocks = wt->sm_count * 8;
    wt->strip_rows = 8;
    wt->min_warps = wt->sm_count * 16;
    *out = wt;
    return cudaSuccess;
}

extern "C" void sci_cuda_wt_destroy(sci_cuda_wt *wt) {
    if (!wt)
        return;
    cudaFree(wt->scratch[0]);
    cudaFree(wt->scratch[1]);
    free(wt);
}

extern "C" void sci_cuda_wt_tune(sci_cuda_wt *wt, int max_rows,
                                 int joint_fwd, int joint_inv, int min_blocks) {
    if (max_rows == 16 || max_rows == 32 || max_rows == 64)
        wt->max_rows = max_rows;
    if (joint_fwd == 16 || joint_fwd == 32)
        wt->max_rows_joint[0] = joint_fwd;
    if (joint_inv == 16 || joint_inv == 32)
        wt->max_rows_joint[1] = joint_inv;
    if (min_blocks >= 0)
        wt->min_blocks = min_blocks;
}

extern "C" void sci_cuda_wt_tune_strips(sci_cuda_wt *wt, int max_rows,
                                        int min_warps) {
    if (max_rows == 0 || max_rows == 4 || max_rows == 8 || max_rows == 16 ||
        max_rows == 32 || max_rows == 64)
        wt->strip_rows = max_rows;
    if (min_warps >= 0)
        wt->min_warps = min_warps;
}

extern "C" int sci_cuda_wt_forward(sci_cuda_wt *wt, const sci_wt_plane src[],
                                   void *coeffs, void *stream) {
    const sci_wt_geometry *g = &wt->g;
    cudaStream_t s = (cudaStream_t)stream;
    cudaError_t err;

    params p = copy_params(wt, src, coeffs);
    if ((err = launch(wt, PASS_COPY_FWD, false, p, s)) != cudaSuccess)
        return err;

    for (unsigned l = 1; l <= wt->max_leff; l++) {
        p = base_params(g);
        for (unsigned c = 0; c < g->components;) {
            int nc = group_size(g, c, l == 1);
            if (wt->leff[c] >= l) {
                group &gr = p.g[p.ngroups++];
                gr = level_group(wt, c, nc, l, coeffs);
                for (int q = 0; q < nc; q++) {
                    if (l > 1)
                        gr.ll_in[q] = low_band(wt, c + q, l - 1, coeffs,
                                               &gr.ll_in_pitch);
                    gr.ll_out[q] = low_band(wt, c + q, l, coeffs,
                                            &gr.ll_out_pitch);
                }
                if (l == 1)
                    set_samples(gr, src, c, sci_wt_sample_bytes(g));
            }
            c += nc;
        }
        if ((err = launch_strips(wt, l == 1, p, s)) != cudaSuccess)
            return err;
    }
    return cudaSuccess;
}

/* The JPEG 2000 decoder's output rules on the components of a group. */
static void set_out(params &p, group &gr, unsigned c, const sci_cuda_wt_out *out) {
    if (!out)
        return;
    p.dec = 1;
    for (int q = 0; q < gr.nc; q++) {
        gr.out_shift[q] = out[c + q].shift;
        gr.out_lo[q] = out[c + q].lo;
        gr.out_hi[q] = out[c + q].hi;
        gr.out_bytes[q] = (int)out[c + q].bytes;
    }
}

/* Levels hi down to lo (lo >= 1) of the inverse; with lo 1, the samples
 * of the components with nothing to decompose too. */
static int inverse(sci_cuda_wt *wt, const void *coeffs_in,
                   const sci_wt_plane dst[], const sci_cuda_wt_out *out,
                   unsigned hi, unsigned lo, void *stream) {
    const sci_wt_geometry *g = &wt->g;
    cudaStream_t s = (cudaStream_t)stream;
    /* read only; the groups just have no const variant */
    void *coeffs = (void *)coeffs_in;
    cudaError_t err;

    if (hi > wt->max_leff)
        hi = wt->max_leff;
    for (unsigned l = hi; l >= lo; l--) {
        params p = base_params(g);
        for (unsigned c = 0; c < g->components;) {
            int nc = group_size(g, c, l == 1);
            if (wt->leff[c] >= l) {
                group &gr = p.g[p.ngroups++];
                gr = level_group(wt, c, nc, l, coeffs);
                for (int q = 0; q < nc; q++) {
                    gr.ll_in[q] = low_band(wt, c + q, l, coeffs, &gr.ll_in_pitch);
                    if (l > 1)
                        gr.ll_out[q] = low_band(wt, c + q, l - 1, coeffs,
                                                &gr.ll_out_pitch);
                }
                if (l == 1) {
                    set_samples(gr, dst, c, sci_wt_sample_bytes(g));
                    set_out(p, gr, c, out);
                }
            }
            c += nc;
        }
        if ((err = launch(wt, PASS_INV, l == 1, p, s)) != cudaSuccess)
            return err;
    }
    if (lo > 1)
        return cudaSuccess;

    params p = copy_params(wt, dst, coeffs);
    for (int i = 0; i < p.ngroups; i++)
        set_out(p, p.g[i], p.g[i].comp0, out);
    return launch(wt, PASS_COPY_INV, false, p, s);
}

extern "C" int sci_cuda_wt_inverse(sci_cuda_wt *wt, const void *coeffs,
                                   const sci_wt_plane dst[], void *stream) {
    return inverse(wt, coeffs, dst, NULL, UINT_MAX, 1, stream);
}

extern "C" int sci_cuda_wt_inverse_dec(sci_cuda_wt *wt, const void *coeffs,
                                       const sci_wt_plane dst[],
                                       const sci_cuda_wt_out out[],
                                       void *stream) {
    return inverse(wt, coeffs, dst, out, UINT_MAX, 1, stream);
}

extern "C" int sci_cuda_wt_inverse_dec_above(sci_cuda_wt *wt,
                                             const void *coeffs,
                                             unsigned level, void *stream) {
    return inverse(wt, coeffs, NULL, NULL, UINT_MAX, level + 1, stream);
}

extern "C" int sci_cuda_wt_inverse_dec_rest(sci_cuda_wt *wt, const void *coeffs,
                                            unsigned level,
                                            const sci_wt_plane dst[],
                                            const sci_cuda_wt_out out[],
                                            void *stream) {
    return inverse(wt, coeffs, dst, out, level, 1, stream);
}
