/*
 * JPEG 2000 decoding on the GPU (cuda/j2k/j2kdec.h).
 *
 * Host: sci_j2k_dec parses and runs tier-2 in refs mode (it says where each
 * code-block's byte pieces lie in the codestream instead of copying them);
 * the codestream goes through pinned memory to the device while tier-2
 * runs, then the block and piece tables.  Device: a gather kernel lays each
 * block's pieces end to end in an arena (a block of a layered stream has one
 * piece a layer), the block kernels decode a block a warp into the
 * coefficient planes and dequantize it there (HT: ht_dec_warp.cuh, the
 * cleanup pass 32 wide; EBCOT: t1_dec.cuh, the MQ decoding on one lane),
 * heaviest blocks first, and sci_cuda_wt_inverse_dec runs the inverse DWT,
 * whose last level writes the samples with the colour transform, the DC
 * shift and the clamp.
 *
 * Built with SCI_J2KDEC_EMU, the kernels become host loops over the same
 * device functions, a warp's lanes the coroutines of cuda/common/warp_emu.h
 * (tests/j2k/j2kdec_emu.cpp).
 */
#include <cuda_runtime.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "j2kdec.h"
#include "j2kdec_lane.h"
#include "dwt.h"
#include "ht_dec_warp.cuh"
#include "t1_dec.cuh"
#include "codec/common/grow.h"
#include "codec/common/parallel.h"
#include "codec/j2k/ht_dec.h"
#include "codec/j2k/wavelet_frame.h"

#define SYM_NT 32       /* threads a CUDA block of the HT symbols kernel:
                         * a frame's few thousand blocks spread over
                         * every SM */
#define BLK_NT 128      /* threads a CUDA block of the HT block kernel */
#define HT_LUT_WORDS 1024 /* the two VLC tables, 2 x 1024 uint16 */
static_assert(sizeof(sci_ht_dec_tables) == HT_LUT_WORDS * 4, "VLC tables");
#define T1_NT 64        /* and of the EBCOT one: two warps, whose shared
                         * memory stays under the default 48 KB for any
                         * block shape */
#define T1_MIN_CTAS 12  /* 24 warps an SM: as many as the registers allow
                         * without spills (more, with spills, measured
                         * slower) */
#define SORT_BUCKETS 4096
#define GATHER_NT 128

/* A code-block for the block kernels, checked on the host. */
struct jd_block {
    uint64_t coef;      /* its first coefficient, in words from the buffer */
    uint64_t data;      /* HT: its cleanup segment in the arena; EBCOT: its
                         * first byte */
    uint32_t stride;    /* words between rows */
    uint32_t lcup, lref; /* HT: segment lengths; EBCOT: bytes, and where
                         * its pass ends are in the pass table */
    uint16_t w, h;
    uint8_t mb, zbp, passes, style;
    uint8_t roi, rev, band, pad;
    double step;
};

/* A piece of a block's bytes: codestream [src, src + len) -> arena dst. */
struct jd_ref {
    uint64_t src, dst;
    uint64_t len;
};

/* ---- kernels ------------------------------------------------------------- */

#ifdef SCI_J2KDEC_EMU
static void gather_one(const uint8_t *cs, const jd_ref &r,
                              uint8_t *arena, unsigned tid, unsigned nt) {
    for (uint64_t k = tid; k < r.len; k += nt)
        arena[r.dst + k] = cs[r.src + k];
}
#endif

#if defined(__CUDACC__) && !defined(SCI_J2KDEC_EMU)
__global__ void __launch_bounds__(GATHER_NT)
gather_kernel(const uint8_t *cs, const jd_ref *refs, size_t n, uint8_t *arena) {
    for (size_t i = blockIdx.x; i < n; i += gridDim.x) {
        jd_ref r = refs[i];
        for (uint64_t k = threadIdx.x; k < r.len; k += blockDim.x)
            arena[r.dst + k] = __ldg(cs + r.src + k);
    }
}
#endif

/* A damaged block: counted, and the first one's index kept. */
SCI_HTW void note_damage(int *status, unsigned i) {
#if defined(__CUDA_ARCH__)
    atomicAdd(&status[0], 1);
    atomicMin(&status[1], (int)i);
#else
    status[0]++;
    if ((int)i < status[1])
        status[1] = (int)i;
#endif
}

/* One HT block's symbols by one thread (ht_dec_sym.cuh); ma, mb: its
 * two masks, their words ms apart. */
SCI_HTW uint32_t ht_symbols(const jd_block &b, const uint8_t *arena,
                            const uint16_t *lut, uint32_t *coef, uint32_t *ma,
                            uint32_t *mb, unsigned ms) {
    return sci_hts::symbols(lut, arena + b.data, b.lcup, b.w, b.h,
                            coef + b.coef, b.stride, ma, mb, ms);
}

/* One HT block by one warp, after its symbols (sym: their result): the
 * cleanup pass 32 wide (ht_dec_warp.cuh), the refinement passes on lane
 * 0, the dequantization 32 wide. */
SCI_HTW void ht_warp(const jd_block &b, const uint8_t *arena, uint32_t sym,
                     uint32_t *coef, int *status, unsigned i, uint32_t *sm,
                     unsigned qwmax, unsigned lane) {
    uint32_t *out = coef + b.coef;
    const uint8_t *cup = arena + b.data;
    unsigned p = b.mb - 1u - b.zbp;
    int r = sci_htw::cleanup(cup, b.lcup, sym, b.w, b.h, p, b.mb - p, out,
                             b.stride, sm, qwmax, lane);
    if (r == SCI_HT_DEC_OK && b.passes >= 2) {
        if (lane == 0)
            sci_htd::refinement_passes(cup + b.lcup, b.lref, b.w, b.h, p,
                                       b.passes,
                                       (b.style & SCI_HT_STYLE_VCAUSAL) != 0,
                                       out, b.stride);
        sci_dw::w_sync();
    }
    if (r != SCI_HT_DEC_OK && lane == 0)
        note_damage(status, i);
    sci_htd::dequantize(out, b.stride, b.w, b.h, p, b.passes, b.roi, b.rev,
                        b.step, lane, 32);
}

/* A warp's shared memory for the HT blocks of a frame, in words: the
 * cleanup pass's, and the symbols' two masks after it when lane 0
 * decodes them. */
SCI_HTD size_t ht_warp_words(unsigned qwmax, int sym_in_warp) {
    return sci_htw::smem_words(qwmax) +
           (sym_in_warp ? 2 * sci_hts::mask_words(qwmax) : 0);
}

/* Block i by one warp, in sm (ht_warp_words words): with sym_in_warp,
 * lane 0 decodes its symbols first, else ht_sym_kernel did (sym[i]); it
 * is block first + i of the frame's table (the damage it notes).  The
 * device kernel and the emulated launch both run this. */
SCI_HTW void ht_block(const jd_block &b, unsigned i, unsigned first,
                      const uint8_t *arena, const uint16_t *lut,
                      int sym_in_warp, const uint32_t *sym, uint32_t *coef,
                      int *status, uint32_t *sm, unsigned qwmax,
                      unsigned lane) {
    uint32_t st = 0;
    if (sym_in_warp) {
        uint32_t *ma = sm + sci_htw::smem_words(qwmax);
        if (lane == 0)
            st = ht_symbols(b, arena, lut, coef, ma,
                            ma + sci_hts::mask_words(qwmax), 1);
        st = sci_dw::w_shfl(st, 0);
    } else {
        st = sym[i];
    }
    ht_warp(b, arena, st, coef, status, first + i, sm, qwmax, lane);
}

/* A warp's shared memory for the EBCOT blocks of a frame, in words: the
 * three visit maps of mw words, the MQ context states, the context tables
 * (512 and 256 bytes) and fn flag words (sci_t1d::decode_block), mw and fn
 * the most that a block of the frame needs. */
#define T1_CX_WORDS SCI_T1_NCTX
#define T1_TABLE_WORDS 192
SCI_T1D_HD size_t t1_smem_words(unsigned mw, unsigned fn) {
    return 3 * (size_t)mw + T1_CX_WORDS + T1_TABLE_WORDS + fn;
}

/* One EBCOT block by one warp: MQ decoding is sequential, so lane 0
 * decodes, and the warp clears its flags, builds its tables and the
 * passes' visit maps, and dequantizes. */
SCI_HTW void t1_warp(const jd_block &b, const uint8_t *arena,
                     const uint32_t *plen, uint32_t *coef, int *status,
                     unsigned i, uint32_t *sm, unsigned mw, unsigned lane) {
    uint32_t *out = coef + b.coef;
    uint32_t *bm = sm;
    uint32_t *cx = sm + 3 * mw;
    uint8_t *zl = (uint8_t *)(sm + 3 * mw + T1_CX_WORDS), *sl = zl + 512;
    uint32_t *fl = sm + 3 * mw + T1_CX_WORDS + T1_TABLE_WORDS;
    unsigned CW = b.w + 2u;
    for (unsigned k = lane; k < sci_t1d::flag_words(b.w, b.h); k += 32)
        fl[k] = 0;
    for (unsigned k = lane; k < 512; k += 32)
        zl[k] = (uint8_t)sci_t1d::zc_entry(b.band, k);
    for (unsigned k = lane; k < 256; k += 32)
        sl[k] = (uint8_t)sci_t1d::sc_entry(k);
    sci_dw::w_sync();
    unsigned low_ref;
    if (sci_t1d::decode_block(arena + b.data, b.lcup, plen + b.lref, b.w, b.h,
                              b.mb, b.zbp, b.passes, b.style, fl, out,
                              b.stride, cx, zl, sl, bm, mw, &low_ref, lane) &&
        lane == 0)
        note_damage(status, i);
    sci_dw::w_sync();
    /* a sample's lowest decoded plane: where it became significant (its
     * top bit), or the last MagRef pass's plane if that is lower */
    for (unsigned y = 0; y < b.h; y++)
        for (unsigned x = lane; x < b.w; x += 32) {
            uint32_t c = fl[(y / 4 + 1) * CW + x + 1];
            uint32_t *a = &out[(size_t)y * b.stride + x];
            if (!(c & SCI_T1D_SIG(y & 3))) {
                *a = 0;
                continue;
            }
            unsigned top = 31 - sci_t1d::clz32(*a);
            *a = sci_htd::dequant_word(*a, (c & SCI_T1D_CHI(y & 3)) != 0,
                                       top < low_ref ? top : low_ref, b.roi,
                                       b.rev, b.step);
        }
}

#if defined(__CUDACC__) && !defined(SCI_J2KDEC_EMU)
/* A code-block's symbols a thread, SYM_NT a CUDA block: the VLC table
 * and the threads' masks (their words SYM_NT apart: no bank conflicts) in
 * shared memory. */
__global__ void __launch_bounds__(SYM_NT)
ht_sym_kernel(const jd_block *blk, size_t n, unsigned qwmax,
              const uint8_t *arena, const uint16_t *lut, uint32_t *coef,
              uint32_t *sym) {
    extern __shared__ uint32_t sym_smem[];
    uint16_t *lut_s = (uint16_t *)sym_smem;
    for (unsigned k = threadIdx.x; k < HT_LUT_WORDS; k += SYM_NT)
        sym_smem[k] = ((const uint32_t *)lut)[k];
    __syncthreads();
    size_t i = (size_t)blockIdx.x * SYM_NT + threadIdx.x;
    uint32_t *ma = sym_smem + HT_LUT_WORDS + threadIdx.x;
    uint32_t *mb = ma + sci_hts::mask_words(qwmax) * SYM_NT;
    if (i < n)
        sym[i] = ht_symbols(blk[i], arena, lut_s, coef, ma, mb, SYM_NT);
}

/* A code-block a warp, BLK_NT / 32 a CUDA block. */
__global__ void __launch_bounds__(BLK_NT)
ht_kernel(const jd_block *blk, size_t n, unsigned qwmax, const uint8_t *arena,
          const uint16_t *lut, int sym_in_warp, const uint32_t *sym,
          uint32_t *coef, int *status, unsigned first) {
    extern __shared__ uint32_t ht_smem[];
    size_t i = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (i < n)
        ht_block(blk[i], (unsigned)i, first, arena, lut, sym_in_warp, sym,
                 coef, status,
                 ht_smem + (threadIdx.x >> 5) * ht_warp_words(qwmax, sym_in_warp),
                 qwmax, threadIdx.x & 31);
}

__global__ void __launch_bounds__(T1_NT, T1_MIN_CTAS)
t1_kernel(const jd_block *blk, size_t n, unsigned mw, unsigned fn,
          const uint8_t *arena, const uint32_t *plen, uint32_t *coef,
          int *status, unsigned first) {
    extern __shared__ uint32_t t1_sm[];
    size_t i = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (i < n)
        t1_warp(blk[i], arena, plen, coef, status, first + (unsigned)i,
                t1_sm + (threadIdx.x >> 5) * t1_smem_words(mw, fn), mw,
                threadIdx.x & 31);
}
#endif

#ifndef SCI_J2KDEC_EMU
static unsigned block_grid(size_t n, unsigned nt) {
    return (unsigned)((n * 32 + nt - 1) / nt);
}
#endif

/* mw, fn: the most map and flag words of any of the blocks; first: the
 * index of blk[0] in the frame's table (a damaged block's, in status) */
static cudaError_t launch_t1(const jd_block *blk, size_t n, unsigned mw,
                             unsigned fn, const uint8_t *arena,
                             const uint32_t *plen, void *coef, int *status,
                             unsigned first, cudaStream_t s) {
    if (!n)
        return cudaSuccess;
    size_t words = t1_smem_words(mw, fn);
#ifdef SCI_J2KDEC_EMU
    (void)s;
    uint32_t *sm = (uint32_t *)malloc(words * 4);
    if (!sm)
        return cudaErrorMemoryAllocation;
    for (size_t i = 0; i < n; i++) {
        /* garbage in, so that a read of a word no lane wrote shows */
        memset(sm, 0x5a, words * 4);
        warp_emu_run([&](unsigned lane) {
            t1_warp(blk[i], arena, plen, (uint32_t *)coef, status,
                    first + (unsigned)i, sm, mw, lane);
        });
    }
    free(sm);
    return cudaSuccess;
#else
    t1_kernel<<<block_grid(n, T1_NT), T1_NT, T1_NT / 32 * words * 4, s>>>(
        blk, n, mw, fn, arena, plen, (uint32_t *)coef, status, first);
    return cudaGetLastError();
#endif
}

static cudaError_t launch_gather(const uint8_t *cs, const jd_ref *refs,
                                 size_t n, uint8_t *arena, cudaStream_t s) {
    if (!n)
        return cudaSuccess;
#ifdef SCI_J2KDEC_EMU
    (void)s;
    for (size_t i = 0; i < n; i++)
        gather_one(cs, refs[i], arena, 0, 1);
    return cudaSuccess;
#else
    size_t grid = n < 65535 ? n : 65535;
    gather_kernel<<<(unsigned)grid, GATHER_NT, 0, s>>>(cs, refs, n, arena);
    return cudaGetLastError();
#endif
}

/* Where the symbols of a frame's n HT blocks (arena_bytes of code) are
 * decoded.  A block a thread (ht_sym_kernel) issues a 32nd of the
 * instructions that lane 0 of each block's warp does, but its few hundred
 * warps wait on their own latency for the length of the longest block:
 * about 0.85 ms for a 4K 4:4:4 frame (6208 blocks of 64x64) at 1 bpp and
 * lossless alike.  On lane 0 the time grows with the work: 0.49 ms at
 * 1 bpp (167 bytes a block), 1.25 ms lossless (1.6 KB a block); and with
 * fewer blocks than one wave of ht_kernel (about 3700 warps on an H100)
 * each warp has its SM's issue slots more to itself.  (H100, 2026-11-28,
 * HT blocks stage of bench-j2kdec.)  With other frames in flight the
 * device is shared, and what counts is the issue slots a frame takes, not
 * its latency: a block a thread then, at any rate (4K 1 bpp with 8 frames
 * in flight: 2516 frames/s against 2099 on lane 0; H200, 2026-11-28). */
#define HT_SYM_THREAD_MIN_BLOCKS 4096
#define HT_SYM_THREAD_MIN_BYTES 768
static int ht_symbols_in_warp(int mode, size_t n, size_t arena_bytes,
                              int others_in_flight) {
    if (mode != SCI_CUDA_J2KDEC_SYM_AUTO)
        return mode == SCI_CUDA_J2KDEC_SYM_WARP;
    return !others_in_flight && (n < HT_SYM_THREAD_MIN_BLOCKS ||
                                 arena_bytes < HT_SYM_THREAD_MIN_BYTES * n);
}

/* qwmax: the most quads a row of any of the blocks (their shared memory);
 * sym: a word a block, the symbols' results; first: the index of blk[0]
 * in the frame's table */
static cudaError_t launch_ht(const jd_block *blk, size_t n, unsigned qwmax,
                             const uint8_t *arena, size_t arena_bytes,
                             const jd_tuning *tu, const uint16_t *lut, void *coef,
                             uint32_t *sym, int *status, unsigned first,
                             cudaStream_t s) {
    if (!n)
        return cudaSuccess;
    int in_warp = ht_symbols_in_warp(tu->ht_sym, n, arena_bytes, tu->others);
    size_t words = ht_warp_words(qwmax, in_warp);
    unsigned mw = sci_hts::mask_words(qwmax);
#ifdef SCI_J2KDEC_EMU
    (void)s;
    uint32_t *sm = (uint32_t *)malloc((words > 2 * mw ? words : 2 * mw) * 4);
    if (!sm)
        return cudaErrorMemoryAllocation;
    for (size_t i = 0; !in_warp && i < n; i++) {
        /* garbage in, so that a read of a word no one wrote shows */
        memset(sm, 0x5a, 2 * mw * 4);
        sym[i] = ht_symbols(blk[i], arena, lut, (uint32_t *)coef, sm, sm + mw, 1);
    }
    for (size_t i = 0; i < n; i++) {
        memset(sm, 0x5a, words * 4);
        warp_emu_run([&](unsigned lane) {
            ht_block(blk[i], (unsigned)i, first, arena, lut, in_warp, sym,
                     (uint32_t *)coef, status, sm, qwmax, lane);
        });
    }
    free(sm);
    return cudaSuccess;
#else
    if (!in_warp) {
        size_t sym_bytes = (HT_LUT_WORDS + 2 * (size_t)mw * SYM_NT) * 4;
        ht_sym_kernel<<<(unsigned)((n + SYM_NT - 1) / SYM_NT), SYM_NT, sym_bytes, s>>>(
            blk, n, qwmax, arena, lut, (uint32_t *)coef, sym);
        cudaError_t e = cudaGetLastError();
        if (e)
            return e;
    }
    ht_kernel<<<block_grid(n, BLK_NT), BLK_NT, BLK_NT / 32 * words * 4, s>>>(
        blk, n, qwmax, arena, lut, in_warp, sym, (uint32_t *)coef, status,
        first);
    return cudaGetLastError();
#endif
}

/* ---- the decoder --------------------------------------------------------- */

/* Where a block of the device's table comes from, for the warning that
 * names a damaged one. */
struct blk_origin {
    uint64_t src;       /* its first byte in the codestream */
    uint32_t tile;
    uint32_t comp;
};

/* The inverse DWT's device scratch for one tile shape. */
struct wt_entry {
    sci_wt_geometry g;
    sci_cuda_wt *wt;
};

/* A tile on the device path: its shape and the slot's inverse DWT for
 * it, its coefficient planes' first word in the slot's buffer, and where
 * its samples start in each output plane (bytes). */
struct tile_run {
    sci_wt_geometry g;
    sci_cuda_wt *wt;
    uint64_t coef;
    ptrdiff_t out[SCI_WT_MAX_COMPONENTS];
};

/* A lane's frame on the device: its stream, buffers and events. */
struct slot {
    sci_cuda_j2kdec_path_t path;
    uint8_t *h_cs;          /* pinned: the codestream */
    size_t cs_cap;
    /* pinned: blocks, pieces, pass ends; of the frame's two parts
     * (sci_cuda_j2kdec_tune_split) */
    uint8_t *h_up[2];
    size_t up_cap[2];
    int *h_status;          /* pinned: damaged HT blocks, first one */
    cudaEvent_t done;
    unsigned warnings;      /* the host's, at submit */
    char warning[256];
    size_t nht;             /* blocks on the device */
    cudaEvent_t ev[6];      /* stage marks (sci_cuda_j2kdec_profile) */
    int profiled;           /* its last frame recorded them */
    /* A lane's frame runs on the lane's own stream and buffers, so the
     * frames in flight overlap on the device too: one frame's longest
     * EBCOT blocks leave SMs idle that the next frame's blocks fill. */
    cudaStream_t st;
    cudaEvent_t start;      /* the caller's stream (jd_lane_after) */
    /* a frame's second part: its stream, which starts once the first
     * part has cleared the planes and status, and joins before the DWT */
    cudaStream_t st2;
    cudaEvent_t p1_ready, p2_done;
    uint8_t *d_cs, *d_up[2], *d_arena;
    size_t d_cs_cap, d_up_cap[2], arena_cap;
    void *d_coef;
    size_t coef_cap;
    /* one a tile shape seen (a grid has at most nine: inner, edge and
     * corner tiles), so that tiled frames allocate nothing once warm */
    wt_entry *wts;
    unsigned nwt;
    blk_origin *org;        /* of its blocks, in the table's order */
    size_t org_cap;
};

/* A frame's decoder (j2kdec_lane.h): the C reference that parses it and
 * runs its tier-2, the tables built from it, and its slot. */
struct jd_lane {
    sci_j2k_dec *dec;
    sci_pool *pool;         /* the decoder's, shared by its lanes */
    unsigned nthreads;
    sci_j2k_block_scratch **scratch;
    slot s;
    const uint8_t *data;
    size_t len;
    sci_j2k_info info;
    const uint16_t *d_lut;  /* the decoder's (jd_vlc_table_new) */
    sci_j2k_decode_params fprm; /* reduce and layers of the parsed frame */
    int profile;
    jd_lane_report rep;
    /* the frame's tables, tile by tile as tier-2 finds them, before they
     * go to the pinned buffer: EBCOT and HT blocks, their byte pieces, the
     * EBCOT blocks' pass ends, the tiles */
    jd_block *hblk[2];
    size_t hblk_cap[2];
    blk_origin *horg[2];    /* theirs, beside them */
    size_t horg_cap[2];
    jd_ref *href;
    size_t href_cap;
    uint32_t *hplen;
    size_t hplen_cap;
    tile_run *runs;
    size_t runs_cap;
    size_t sort_at[SORT_BUCKETS];
    int *d_status;          /* damaged HT blocks, first one */
    /* host-side buffers of the host paths (pinned, one at a time) */
    void *h_coef;
    size_t h_coef_cap;
    uint8_t *h_planes;
    size_t h_planes_cap;
    cudaEvent_t host_up;    /* their last upload */
    int host_up_pending;
};

static int fail(jd_lane *d, int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->rep.err, sizeof d->rep.err, fmt, ap);
    va_end(ap);
    return code;
}

static int dec_fail(jd_lane *d, int r) {
    if (r == SCI_J2K_ENOMEM)
        return fail(d, cudaErrorMemoryAllocation, "out of host memory");
    return fail(d, SCI_CUDA_J2KDEC_ERR_DECODE, "%s", sci_j2k_dec_error(d->dec));
}

static cudaError_t grow_pinned(void **p, size_t *cap, size_t need) {
    if (need <= *cap)
        return cudaSuccess;
    size_t n = *cap ? *cap : 1 << 16;
    while (n < need)
        n *= 2;
    cudaFreeHost(*p);
    *p = NULL;
    *cap = 0;
    cudaError_t e = cudaMallocHost(p, n);
    if (e == cudaSuccess)
        *cap = n;
    return e;
}

static cudaError_t grow_device(void **p, size_t *cap, size_t need) {
    if (need <= *cap)
        return cudaSuccess;
    size_t n = need + need / 4;
    cudaFree(*p);
    *p = NULL;
    *cap = 0;
    cudaError_t e = cudaMalloc(p, n);
    if (e == cudaSuccess)
        *cap = n;
    return e;
}

int jd_vlc_table_new(uint16_t **out) {
    *out = NULL;
    sci_ht_dec_tables *t = (sci_ht_dec_tables *)malloc(sizeof *t);
    int err = t && !sci_ht_dec_tables_init(t) ? cudaSuccess
                                              : cudaErrorMemoryAllocation;
    if (!err)
        err = cudaMalloc((void **)out, sizeof t->vlc);
    if (!err)
        err = cudaMemcpy(*out, t->vlc, sizeof t->vlc, cudaMemcpyHostToDevice);
    free(t);
    return err;
}

int jd_lane_create(jd_lane **out, sci_pool *pool, const uint16_t *lut) {
    *out = NULL;
    jd_lane *d = (jd_lane *)calloc(1, sizeof *d);
    if (!d)
        return cudaErrorMemoryAllocation;
    for (int k = 0; k < 5; k++)
        d->rep.stage_ms[k] = -1;
    for (int k = 0; k < 4; k++)
        d->rep.host_ms[k] = -1;
    d->dec = sci_j2k_dec_new();
    d->pool = pool;
    /* tier-2 where PLT allows, and the host path, on the lanes' shared
     * pool (on the lane's own thread while another lane holds it) */
    if (d->dec)
        sci_j2k_dec_set_pool(d->dec, pool);
    d->nthreads = sci_pool_threads(pool);
    d->scratch = (sci_j2k_block_scratch **)calloc(d->nthreads, sizeof *d->scratch);
    int err = d->dec && d->scratch ? cudaSuccess : cudaErrorMemoryAllocation;
    for (unsigned i = 0; !err && i < d->nthreads; i++)
        if (!(d->scratch[i] = sci_j2k_block_scratch_new()))
            err = cudaErrorMemoryAllocation;
    d->d_lut = lut;
    if (!err)
        err = cudaMalloc((void **)&d->d_status, 2 * sizeof(int));
    slot *s = &d->s;
    cudaEvent_t *evs[] = {&d->host_up, &s->done, &s->start, &s->p1_ready,
                          &s->p2_done};
    for (size_t k = 0; k < sizeof evs / sizeof evs[0]; k++)
        if (!err)
            err = cudaEventCreateWithFlags(evs[k], cudaEventDisableTiming);
    cudaStream_t *sts[] = {&s->st, &s->st2};
    for (size_t k = 0; k < 2; k++)
        if (!err)
            err = cudaStreamCreateWithFlags(sts[k], cudaStreamNonBlocking);
    if (!err)
        err = cudaMallocHost((void **)&s->h_status, 2 * sizeof(int));
    if (err) {
        jd_lane_destroy(d);
        return err;
    }
    *out = d;
    return cudaSuccess;
}

/* Waits for what the event marks, then destroys it (NULL: nothing). */
static void event_drop(cudaEvent_t e) {
    if (e) {
        cudaEventSynchronize(e);
        cudaEventDestroy(e);
    }
}

void jd_lane_destroy(jd_lane *d) {
    if (!d)
        return;
    slot *s = &d->s;
    event_drop(s->done);
    cudaFreeHost(s->h_cs);
    cudaFreeHost(s->h_up[0]);
    cudaFreeHost(s->h_up[1]);
    cudaFreeHost(s->h_status);
    for (int k = 0; k < 6; k++)
        if (s->ev[k])
            cudaEventDestroy(s->ev[k]);
    if (s->start)
        cudaEventDestroy(s->start);
    if (s->st)
        cudaStreamDestroy(s->st);
    if (s->st2)
        cudaStreamDestroy(s->st2);
    if (s->p1_ready)
        cudaEventDestroy(s->p1_ready);
    if (s->p2_done)
        cudaEventDestroy(s->p2_done);
    for (unsigned k = 0; k < s->nwt; k++)
        sci_cuda_wt_destroy(s->wts[k].wt);
    free(s->wts);
    free(s->org);
    cudaFree(s->d_cs);
    cudaFree(s->d_up[0]);
    cudaFree(s->d_up[1]);
    cudaFree(s->d_arena);
    cudaFree(s->d_coef);
    event_drop(d->host_up);
    cudaFreeHost(d->h_coef);
    cudaFreeHost(d->h_planes);
    cudaFree(d->d_status);
    if (d->scratch)
        for (unsigned i = 0; i < d->nthreads; i++)
            sci_j2k_block_scratch_free(d->scratch[i]);
    free(d->scratch);
    free(d->hblk[0]);
    free(d->hblk[1]);
    free(d->horg[0]);
    free(d->horg[1]);
    free(d->href);
    free(d->hplen);
    free(d->runs);
    sci_j2k_dec_free(d->dec);
    free(d);
}

int jd_lane_parse(jd_lane *d, const uint8_t *data, size_t len,
                  const sci_j2k_decode_params *prm, sci_j2k_info *info,
                  sci_j2k_comp_info *comp, unsigned ncomp) {
    d->rep.err[0] = 0;
    int r = sci_j2k_dec_parse(d->dec, data, len, &d->info);
    if (r)
        return dec_fail(d, r);
    d->data = data;
    d->len = len;
    /* as j2kdec does: reduce beyond the levels gives the smallest
     * resolution there is */
    d->fprm = *prm;
    if (d->fprm.reduce > d->info.levels)
        d->fprm.reduce = d->info.levels;
    if (info)
        *info = d->info;
    for (unsigned c = 0; comp && c < ncomp && c < d->info.components; c++)
        sci_j2k_dec_comp_info(d->dec, c, d->fprm.reduce, &comp[c]);
    return 0;
}

/* The output rules of component c (put_samples in codec/j2k/j2k_dec.c). */
static sci_cuda_wt_out out_rule(const sci_j2k_comp_info &ci, unsigned bytes) {
    sci_cuda_wt_out o;
    if (ci.is_signed) {
        o.lo = -(int32_t)(1u << (ci.depth - 1));
        o.hi = (int32_t)(1u << (ci.depth - 1)) - 1;
        o.shift = 0;
    } else {
        o.lo = 0;
        o.hi = (int32_t)((1u << ci.depth) - 1);
        o.shift = (int32_t)(1u << (ci.depth - 1));
    }
    o.bytes = bytes;
    return o;
}

/* Whether a tile-component's origin coordinate, at the kept resolution,
 * is a multiple of 2^levels: then every level splits it as it splits an
 * image at 0, and its wavelet planes are those of an image of its size at
 * the origin (the inverse DWT's kernels know no other parity). */
static int origin_aligned(uint32_t v, unsigned levels) {
    uint32_t m = levels >= 32 ? 0xFFFFFFFFu : (1u << levels) - 1;
    return !(v & m);
}

/* ceil(a / 2^r) */
static uint32_t ceil_shift(uint32_t a, unsigned r) {
    return (uint32_t)(((uint64_t)a + (1ull << r) - 1) >> r);
}

/* Before tier-2: whether every tile of the grid can be aligned, by the
 * main header's levels (a tile's own COD may still say otherwise, which
 * tile_geometry then finds). */
static int grid_aligned(const jd_lane *d, const sci_j2k_comp_info *ci) {
    const sci_j2k_info *in = &d->info;
    unsigned r = d->fprm.reduce, top = in->levels - r;
    uint64_t nt = (uint64_t)in->tiles_x * in->tiles_y;
    if (nt < 1 || nt > SCI_CUDA_J2KDEC_MAX_DEVICE_TILES ||
        in->components > SCI_WT_MAX_COMPONENTS)
        return 0;
    for (int axis = 0; axis < 2; axis++) {
        uint32_t n = axis ? in->tiles_y : in->tiles_x;
        uint32_t t0 = axis ? in->tile_y0 : in->tile_x0;
        uint32_t ts = axis ? in->tile_h : in->tile_w;
        uint32_t o = axis ? in->y0 : in->x0;
        for (uint32_t i = 0; i < n; i++) {
            uint64_t a = (uint64_t)t0 + (uint64_t)i * ts;
            uint32_t x = a > o ? (uint32_t)a : o;
            for (unsigned c = 0; c < in->components; c++) {
                unsigned s = axis ? ci[c].dy : ci[c].dx;
                uint32_t k = ceil_shift((x + s - 1) / s, r);
                if (!origin_aligned(k, top))
                    return 0;
            }
        }
    }
    return 1;
}

/* Whether tile tb fits the device layout: fills its run (geometry and
 * output offsets in the caller's planes). */
static int tile_geometry(const jd_lane *d, const sci_j2k_tile_blocks *tb,
                         const sci_j2k_comp_info *ci,
                         const sci_cuda_j2kdec_plane *planes, tile_run *run) {
    unsigned nc = tb->ncomp;
    if (nc < 1 || nc > SCI_WT_MAX_COMPONENTS)
        return 0;
    /* the subbands of the kept resolution */
    if (d->fprm.reduce > tb->comps[0].levels)
        return 0;
    sci_wt_geometry *g = &run->g;
    memset(g, 0, sizeof *g);
    g->components = nc;
    g->depth = 1;
    g->levels = tb->comps[0].top;
    g->filter = tb->comps[0].reversible ? SCI_DWT_53 : SCI_DWT_97;
    /* the grid the components' sizes come from: the smallest width that
     * ceil(width / dx) maps to every component's width */
    for (unsigned c = 0; c < nc; c++) {
        const sci_j2k_tcomp_info *t = &tb->comps[c];
        if (ci[c].depth > 16 || t->top != g->levels ||
            t->levels != tb->comps[0].levels ||
            t->reversible != tb->comps[0].reversible || !t->w || !t->h ||
            !origin_aligned(t->x0, g->levels) ||
            !origin_aligned(t->y0, g->levels) ||
            ci[c].dx > 4 || ci[c].dy > 4)
            return 0;
        g->dx[c] = ci[c].dx;
        g->dy[c] = ci[c].dy;
        uint32_t w = (t->w - 1) * ci[c].dx + 1, h = (t->h - 1) * ci[c].dy + 1;
        if (w > g->width)
            g->width = w;
        if (h > g->height)
            g->height = h;
        if (ci[c].depth > g->depth)
            g->depth = ci[c].depth;
    }
    g->ct = !tb->mct ? SCI_CT_NONE : g->filter == SCI_DWT_53 ? SCI_CT_RCT : SCI_CT_ICT;
    if (sci_wt_geometry_check(g))
        return 0;
    for (unsigned c = 0; c < nc; c++) {
        const sci_j2k_tcomp_info *t = &tb->comps[c];
        if (t->w != sci_wt_comp_width(g, c) || t->h != sci_wt_comp_height(g, c) ||
            t->x0 < ci[c].x0 || t->y0 < ci[c].y0 ||
            t->x0 - ci[c].x0 + t->w > ci[c].w || t->y0 - ci[c].y0 + t->h > ci[c].h)
            return 0;
        run->out[c] = (ptrdiff_t)(t->y0 - ci[c].y0) * planes[c].row_stride +
                      (ptrdiff_t)(t->x0 - ci[c].x0) * planes[c].pixel_stride;
    }
    return 1;
}

/* The slot's inverse DWT for a tile shape, made on first sight. */
static cudaError_t slot_wt(slot *s, const sci_wt_geometry *g, sci_cuda_wt **wt) {
    for (unsigned k = 0; k < s->nwt; k++)
        if (!memcmp(&s->wts[k].g, g, sizeof *g)) {
            *wt = s->wts[k].wt;
            return cudaSuccess;
        }
    wt_entry *n = (wt_entry *)realloc(s->wts, (s->nwt + 1) * sizeof *n);
    if (!n)
        return cudaErrorMemoryAllocation;
    s->wts = n;
    cudaError_t e = (cudaError_t)sci_cuda_wt_create(wt, g);
    if (e)
        return e;
    s->wts[s->nwt].g = *g;
    s->wts[s->nwt].wt = *wt;
    s->nwt++;
    return cudaSuccess;
}

struct host_blocks_ctx {
    jd_lane *d;
    const sci_j2k_tile_blocks *tb;
    const tile_run *run;
    int damaged[SCI_POOL_MAX_THREADS];
    int nomem;
};

static void host_blocks_fn(void *vctx, size_t begin, size_t end, unsigned worker) {
    host_blocks_ctx *x = (host_blocks_ctx *)vctx;
    const sci_j2k_tile_blocks *tb = x->tb;
    for (size_t i = begin; i < end; i++) {
        unsigned c = tb->bands[tb->blocks[i].band].comp;
        if (tb->bands[tb->blocks[i].band].res > tb->comps[c].top)
            continue;   /* above the kept resolution */
        const sci_wt_geometry *g = &x->run->g;
        void *plane = (uint32_t *)x->d->h_coef + x->run->coef +
                      sci_wt_comp_offset(g, c);
        int r = sci_j2k_block_decode(tb, i, x->d->scratch[worker], plane,
                                     sci_wt_comp_width(g, c), NULL);
        if (r < 0)
            x->nomem = 1;
        else if (r)
            x->damaged[worker]++;
    }
}

static void note_host_warnings(jd_lane *d, slot *s) {
    s->warnings = sci_j2k_dec_warnings(d->dec);
    snprintf(s->warning, sizeof s->warning, "%s", sci_j2k_dec_warning(d->dec));
}

static void host_up_wait(jd_lane *d) {
    if (d->host_up_pending) {
        cudaEventSynchronize(d->host_up);
        d->host_up_pending = 0;
    }
}

/* The whole frame by the C reference, its planes uploaded. */
static int submit_host(jd_lane *d, slot *s,
                       const sci_cuda_j2kdec_plane *planes,
                       const sci_j2k_comp_info *ci, cudaStream_t st) {
    unsigned nc = d->info.components;
    size_t total = 0;
    for (unsigned c = 0; c < nc; c++) {
        if (planes[c].pixel_stride != planes[c].bytes)
            return fail(d, SCI_CUDA_J2KDEC_ERR_UNSUPPORTED, "plane %u: packed "
                        "output (pixel stride %u, %u-byte samples) on the host "
                        "path", c, planes[c].pixel_stride, planes[c].bytes);
        total += (size_t)ci[c].w * ci[c].h * planes[c].bytes;
    }
    host_up_wait(d);
    cudaError_t e = grow_pinned((void **)&d->h_planes, &d->h_planes_cap, total + 1);
    if (e)
        return e;
    sci_j2k_plane *hp = (sci_j2k_plane *)calloc(nc, sizeof *hp);
    if (!hp)
        return cudaErrorMemoryAllocation;
    size_t at = 0;
    for (unsigned c = 0; c < nc; c++) {
        hp[c].data = d->h_planes + at;
        hp[c].stride = ci[c].w ? ci[c].w : 1;
        hp[c].bytes = planes[c].bytes;
        at += (size_t)ci[c].w * ci[c].h * planes[c].bytes;
    }
    int r = sci_j2k_dec_decode(d->dec, &d->fprm, hp);
    free(hp);
    if (r)
        return dec_fail(d, r);
    note_host_warnings(d, s);
    at = 0;
    for (unsigned c = 0; c < nc; c++) {
        size_t row = (size_t)ci[c].w * planes[c].bytes;
        if (row && ci[c].h) {
            e = cudaMemcpy2DAsync(planes[c].data, planes[c].row_stride,
                                  d->h_planes + at, row, row, ci[c].h,
                                  cudaMemcpyHostToDevice, st);
            if (e)
                return e;
        }
        at += row * ci[c].h;
    }
    e = cudaEventRecord(d->host_up, st);
    d->host_up_pending = 1;
    return e;
}

/* The device tables of a frame, tile after tile: blocks (HT and EBCOT
 * apart), their byte pieces and the EBCOT blocks' pass ends, with the
 * checks and warnings of sci_j2k_block_decode for blocks left zero. */
struct tables {
    jd_block *ht, *eb;
    blk_origin *ht_org, *eb_org;
    jd_ref *ref;
    uint32_t *plen;
    size_t nht, neb, nref, nplen;
    unsigned qwmax;          /* the most quads a row of the HT blocks */
    unsigned mw, fn;         /* the most map and flag words of the EBCOT
                              * blocks */
    /* where the planes (words) and bytes of the tile being added start;
     * once every tile is in, all tiles' words and bytes */
    uint64_t coef, arena;
};

static int grow_host(void **p, size_t *cap, size_t need, size_t elem) {
    return sci_grow(p, cap, need, elem, 256);
}

/* Room in the decoder's arrays for the tables of tile tb. */
static int tables_room(jd_lane *d, const sci_j2k_tile_blocks *tb,
                       tables *t) {
    size_t nplen = 0;
    for (size_t i = 0; i < tb->nblocks; i++)
        if (!tb->blocks[i].ht)
            nplen += tb->blocks[i].passes;
    if (grow_host((void **)&d->hblk[1], &d->hblk_cap[1], t->nht + tb->nblocks,
                  sizeof(jd_block)) ||
        grow_host((void **)&d->hblk[0], &d->hblk_cap[0], t->neb + tb->nblocks,
                  sizeof(jd_block)) ||
        grow_host((void **)&d->horg[1], &d->horg_cap[1], t->nht + tb->nblocks,
                  sizeof(blk_origin)) ||
        grow_host((void **)&d->horg[0], &d->horg_cap[0], t->neb + tb->nblocks,
                  sizeof(blk_origin)) ||
        grow_host((void **)&d->href, &d->href_cap,
                  t->nref + tb->ref_first[tb->nblocks], sizeof(jd_ref)) ||
        grow_host((void **)&d->hplen, &d->hplen_cap, t->nplen + nplen + 1,
                  sizeof(uint32_t)))
        return -1;
    t->ht = d->hblk[1];
    t->eb = d->hblk[0];
    t->ht_org = d->horg[1];
    t->eb_org = d->horg[0];
    t->ref = d->href;
    t->plen = d->hplen;
    return 0;
}

static void add_block(jd_lane *d, const sci_j2k_tile_blocks *tb,
                      const sci_wt_geometry *g, size_t i, tables *t) {
    sci_j2k_status *st = sci_j2k_dec_status(d->dec);
    const sci_j2k_block *b = &tb->blocks[i];
    const sci_j2k_band_info *band = &tb->bands[b->band];
    unsigned w = b->x1 - b->x0, h = b->y1 - b->y0;
    if (!w || !h || band->res > tb->comps[band->comp].top)
        return;
    unsigned nbp = band->mb + band->roi, zbp = b->zbp;
    if (nbp == 0 || zbp >= nbp) {
        if (zbp > nbp)
            sci_j2k_warn(st, b->src, "tile %u: a code-block of component %u with "
                         "%u zero bit-planes out of %u: left zero", tb->tile,
                         band->comp, zbp, nbp);
        return;
    }
    if (nbp > 30) {
        unsigned k = nbp - 30;
        if (zbp < k) {
            sci_j2k_warn(st, b->src, "tile %u: a code-block of component %u "
                         "codes %u bit-planes (at most 30 are supported): "
                         "left zero", tb->tile, band->comp, nbp - zbp);
            return;
        }
        nbp -= k;
        zbp -= k;
    }
    unsigned top_plane = nbp - 1 - zbp;
    unsigned passes = b->passes;
    if (!passes)
        return;
    jd_block o;
    memset(&o, 0, sizeof o);
    if (b->ht) {
        if (top_plane == 0 && passes > 1)
            passes = 1;
        if (w > 1024 || h > 1024 || w * h > 4096 || passes < 1 || passes > 3) {
            sci_j2k_warn(st, b->src, "tile %u: an HT code-block of component "
                         "%u could not be decoded: left zero", tb->tile,
                         band->comp);
            return;
        }
        o.data = t->arena + b->off + b->cup;
        if ((w + 1) / 2 > t->qwmax)
            t->qwmax = (w + 1) / 2;
        o.lcup = b->lcup;
        o.lref = b->lref;
    } else {
        sci_t1_params prm;
        memset(&prm, 0, sizeof prm);
        prm.w = w;
        prm.h = h;
        prm.band = band->orient;
        prm.nbp = nbp;
        prm.style = b->style & SCI_T1_STYLES;
        if (sci_t1_check(&prm)) {
            sci_j2k_warn(st, b->src, "tile %u: a code-block of component %u "
                         "could not be decoded: left zero", tb->tile,
                         band->comp);
            return;
        }
        /* cumulative bytes after each pass, from the segments */
        uint32_t *pl = t->plen + t->nplen;
        unsigned k = 0, all = passes;
        if (passes > 3 * top_plane + 1)
            passes = 3 * top_plane + 1;
        for (unsigned sg = 0; sg < b->nseg; sg++) {
            unsigned pe = tb->seg_pass[b->first_seg + sg];
            if (pe > all)
                pe = all;
            for (; k < pe && k < passes; k++)
                pl[k] = tb->seg_end[b->first_seg + sg];
        }
        for (; k < passes; k++)
            pl[k] = (uint32_t)b->len;
        o.data = t->arena + b->off;
        o.lcup = (uint32_t)b->len;
        o.lref = (uint32_t)t->nplen;
        t->nplen += passes;
        o.band = (uint8_t)band->orient;
        if (sci_t1d::map_words(w, h) > t->mw)
            t->mw = sci_t1d::map_words(w, h);
        if (sci_t1d::flag_words(w, h) > t->fn)
            t->fn = sci_t1d::flag_words(w, h);
    }
    o.coef = t->coef + sci_wt_comp_offset(g, band->comp) +
             (uint64_t)b->py * sci_wt_comp_width(g, band->comp) + b->px;
    o.stride = sci_wt_comp_width(g, band->comp);
    o.w = (uint16_t)w;
    o.h = (uint16_t)h;
    o.mb = (uint8_t)nbp;
    o.zbp = (uint8_t)zbp;
    o.passes = (uint8_t)passes;
    o.style = b->style & (b->ht ? 0xFF : SCI_T1_STYLES);
    o.roi = (uint8_t)band->roi;
    o.rev = (uint8_t)band->reversible;
    o.step = band->step;
    blk_origin og = {b->src, tb->tile, band->comp};
    if (b->ht) {
        t->ht_org[t->nht] = og;
        t->ht[t->nht++] = o;
    } else {
        t->eb_org[t->neb] = og;
        t->eb[t->neb++] = o;
    }
    uint64_t at = t->arena + b->off;
    for (uint32_t k = tb->ref_first[i]; k < tb->ref_first[i + 1]; k++) {
        t->ref[t->nref].src = tb->refs[k].src;
        t->ref[t->nref].dst = at;
        t->ref[t->nref].len = tb->refs[k].len;
        at += tb->refs[k].len;
        t->nref++;
    }
}

/* The codestream into the pinned buffer on the decoder's threads: one
 * thread copies at memory speed well below the device link's. */
struct copy_ctx {
    uint8_t *dst;
    const uint8_t *src;
    size_t len;
};

#define COPY_CHUNK ((size_t)1 << 20)

static void copy_fn(void *v, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    copy_ctx *c = (copy_ctx *)v;
    for (size_t i = begin; i < end; i++) {
        size_t at = i * COPY_CHUNK;
        size_t n = c->len - at < COPY_CHUNK ? c->len - at : COPY_CHUNK;
        memcpy(c->dst + at, c->src + at, n);
    }
}

/* The codestream into the lane's pinned buffer (on the pool's threads
 * when it is large) and its upload queued on st. */
static cudaError_t upload_codestream(jd_lane *d, slot *s, cudaStream_t st) {
    cudaError_t e = grow_pinned((void **)&s->h_cs, &s->cs_cap, d->len + 1);
    if (!e)
        e = grow_device((void **)&s->d_cs, &s->d_cs_cap, d->len + 1);
    if (e)
        return e;
    copy_ctx cc = {s->h_cs, d->data, d->len};
    sci_pool_for(sci_pool_if(d->pool, d->len > 4 * COPY_CHUNK),
                 (d->len + COPY_CHUNK - 1) / COPY_CHUNK, 1, copy_fn, &cc);
    return cudaMemcpyAsync(s->d_cs, s->h_cs, d->len, cudaMemcpyHostToDevice, st);
}

/* Heaviest blocks first, so that the long ones do not start last: a
 * counting sort on their bytes (16-byte steps, at most SORT_BUCKETS - 1 of
 * them), stable, in linear time (a comparison sort of a 4K frame's 6000
 * blocks took half a millisecond of the host's time a frame). */

static unsigned weight_bucket(const jd_block &b, int ht) {
    uint64_t w = ht ? (uint64_t)b.lcup + b.lref : (uint64_t)b.lcup;
    w >>= 4;
    return w >= SORT_BUCKETS ? 0 : SORT_BUCKETS - 1 - (unsigned)w;
}

/* src[0..n) into dst, heaviest first, and their origins alike */
static void sort_heavier(jd_lane *d, const jd_block *src,
                         const blk_origin *org, size_t n, int ht,
                         jd_block *dst, blk_origin *org_dst) {
    size_t *at = d->sort_at;
    memset(at, 0, SORT_BUCKETS * sizeof *at);
    for (size_t i = 0; i < n; i++)
        at[weight_bucket(src[i], ht)]++;
    size_t sum = 0;
    for (unsigned k = 0; k < SORT_BUCKETS; k++) {
        size_t c = at[k];
        at[k] = sum;
        sum += c;
    }
    for (size_t i = 0; i < n; i++) {
        size_t k = at[weight_bucket(src[i], ht)]++;
        dst[k] = src[i];
        org_dst[k] = org[i];
    }
}

static void mark(const jd_lane *d, slot *s, int k, cudaStream_t st) {
    if (d->profile)
        cudaEventRecord(s->ev[k], st);
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static size_t align16(size_t n) {
    return (n + 15) & ~(size_t)15;
}

/* Whole words a tile's coefficient planes take in the slot's buffer: a
 * multiple of 64, so that each tile's planes start 256-byte aligned, as
 * the DWT kernels' vector accesses need. */
static size_t tile_words(const sci_wt_geometry *g) {
    return (sci_wt_coeff_count(g) + 63) & ~(size_t)63;
}

/* Blocks of a frame (tables t) onto the device on stream st: the tables
 * sorted heaviest first into pinned memory and uploaded, the pieces
 * gathered into the arena (its bytes from arena0 on are theirs), the
 * blocks decoded into the coefficient planes (ncoef words).  Their indices
 * in the frame's table start at first.  ph 0: the frame's first blocks
 * (all of them, or the first part), so the damage status and the planes
 * are cleared before them and p1_ready recorded after; ph 1: the second
 * part, with the slot's other table buffers. */
static cudaError_t queue_blocks(jd_lane *d, slot *s, const tables &t, int ph,
                                size_t first, uint64_t arena0,
                                const jd_tuning *tu, size_t ncoef,
                                cudaStream_t st, double *pack_ms) {
    double h = now_ms();
    size_t nb = t.nht + t.neb;
    size_t blk_bytes = align16(nb * sizeof(jd_block));
    size_t ref_bytes = align16(t.nref * sizeof(jd_ref));
    size_t total = blk_bytes + ref_bytes + t.nplen * 4;
    /* on the device only, after the upload: the HT symbols' results */
    size_t sym_at = align16(total);
    cudaError_t e = grow_pinned((void **)&s->h_up[ph], &s->up_cap[ph], total);
    if (!e)
        e = grow_device((void **)&s->d_up[ph], &s->d_up_cap[ph],
                        sym_at + t.nht * sizeof(uint32_t));
    if (!e)
        e = grow_device((void **)&s->d_arena, &s->arena_cap, t.arena + 16);
    if (!e && grow_host((void **)&s->org, &s->org_cap, first + nb + 1,
                        sizeof(blk_origin)))
        e = cudaErrorMemoryAllocation;
    if (e)
        return e;
    jd_block *blk = (jd_block *)s->h_up[ph];
    sort_heavier(d, t.ht, t.ht_org, t.nht, 1, blk, s->org + first);
    sort_heavier(d, t.eb, t.eb_org, t.neb, 0, blk + t.nht,
                 s->org + first + t.nht);
    memcpy(s->h_up[ph] + blk_bytes, t.ref, t.nref * sizeof(jd_ref));
    memcpy(s->h_up[ph] + blk_bytes + ref_bytes, t.plen, t.nplen * 4);
    s->nht = first + nb;
    *pack_ms += now_ms() - h;
    e = cudaMemcpyAsync(s->d_up[ph], s->h_up[ph], total,
                        cudaMemcpyHostToDevice, st);
    if (ph == 0) {
        s->h_status[0] = 0;
        s->h_status[1] = 0x7fffffff;
        if (!e)
            e = cudaMemcpyAsync(d->d_status, s->h_status, 2 * sizeof(int),
                                cudaMemcpyHostToDevice, st);
        if (!e)
            e = cudaMemsetAsync(s->d_coef, 0, ncoef * 4, st);
        if (!e)
            e = cudaEventRecord(s->p1_ready, st);
    }
    const uint8_t *d_up = s->d_up[ph];
    const jd_block *dblk = (const jd_block *)d_up;
    mark(d, s, 1, st);
    if (!e)
        e = launch_gather(s->d_cs, (const jd_ref *)(d_up + blk_bytes), t.nref,
                          s->d_arena, st);
    mark(d, s, 2, st);
    if (!e)
        e = launch_ht(dblk, t.nht, t.qwmax, s->d_arena, t.arena - arena0, tu,
                      d->d_lut, s->d_coef, (uint32_t *)(s->d_up[ph] + sym_at),
                      d->d_status, (unsigned)first, st);
    mark(d, s, 3, st);
    if (!e)
        e = launch_t1(dblk + t.nht, t.neb, t.mw, t.fn, s->d_arena,
                      (const uint32_t *)(d_up + blk_bytes + ref_bytes),
                      s->d_coef, d->d_status, (unsigned)(first + t.nht), st);
    mark(d, s, 4, st);
    return e;
}

/* The first part of a split frame (sci_cuda_j2kdec_tune_split), from
 * tier-2 of its one tile: what it needs, and what it leaves for the
 * second part. */
struct split_ctx {
    jd_lane *d;
    const sci_j2k_comp_info *ci;
    const sci_cuda_j2kdec_plane *planes;
    const jd_tuning *tu;
    tables *t;
    int *ebcot;
    double *table_ms;
    int taken;
    cudaError_t err;
    size_t first;           /* the second part's first block */
    uint64_t arena0;        /* and where its bytes start in the arena */
};

/* Tier-2 has read every resolution but the highest (sci_j2k_dec_set_split):
 * their blocks go to the device now, on the lane's stream, where it pays.
 * It does when the highest resolution's blocks are light (under
 * SPLIT_MAX_BYTES a block on average, a low rate): their decode is then
 * short after the host's tier-2, while the lower resolutions' long blocks
 * have run meanwhile.  At high rates (lossless HT) the highest resolution
 * holds most of the work, and its blocks decoded beside the first part's
 * slowed both (HT lossless 4K: 3.2 ms a frame against 2.1 in one part;
 * 1 bpp 1.32 against 1.45; H200, 2026-11-28).  EBCOT frames are bound by
 * their longest block, which the first part holds, and the second part
 * hides under it (Part 1 lossless 12.2 against 12.9 ms). */
#define SPLIT_MAX_BYTES 768
static int split_part(void *user, const sci_j2k_tile_blocks *tb,
                      const sci_j2k_split_rest *rest) {
    split_ctx *x = (split_ctx *)user;
    jd_lane *d = x->d;
    slot *s = &d->s;
    tile_run *run = &d->runs[0];
    /* asked before tier-2 (PLT): EBCOT blocks unless the main header says
     * HT only (a code-block style of HT, not mixed) */
    int ebcot = !tb && !(d->info.ht && (d->info.cb_style & 0xC0) == 0x40);
    for (size_t i = 0; tb && i < tb->nblocks && !ebcot; i++)
        ebcot = !tb->blocks[i].ht;
    if (!ebcot && rest->bytes >= SPLIT_MAX_BYTES * rest->blocks &&
        x->tu->split != SCI_CUDA_J2KDEC_SPLIT_ALWAYS)
        return 0;
    if (!tb)
        return 1;
    if (!tile_geometry(d, tb, x->ci, x->planes, run))
        return 0;
    tables *t = x->t;
    double h = now_ms();
    if (tables_room(d, tb, t)) {
        x->err = cudaErrorMemoryAllocation;
        return 0;
    }
    run->coef = 0;
    for (size_t i = 0; i < tb->nblocks; i++) {
        *x->ebcot |= !tb->blocks[i].ht;
        add_block(d, tb, &run->g, i, t);
    }
    t->arena = align16(tb->arena_len);
    *x->table_ms += now_ms() - h;
    size_t ncoef = tile_words(&run->g);
    cudaError_t e = slot_wt(s, &run->g, &run->wt);
    if (!e)
        e = grow_device(&s->d_coef, &s->coef_cap, ncoef * 4);
    /* room for both parts' bytes, so that the second part never moves
     * the first's: their pieces are disjoint ranges of the codestream,
     * each part's bytes 16-byte aligned */
    if (!e)
        e = grow_device((void **)&s->d_arena, &s->arena_cap, d->len + 64);
    if (!e)
        e = queue_blocks(d, s, *t, 0, 0, 0, x->tu, ncoef, s->st, x->table_ms);
    /* the inverse DWT's levels that need only these blocks */
    if (!e)
        e = (cudaError_t)sci_cuda_wt_inverse_dec_above(run->wt, s->d_coef, 1,
                                                       s->st);
    x->first = s->nht;
    x->arena0 = t->arena;
    memset(t, 0, sizeof *t);
    t->arena = x->arena0;
    x->err = e;
    x->taken = 1;
    return 1;
}

/* Tier-2 of every tile (refs mode), each tile's shape and the device
 * tables.  Returns 0 (t and d->runs[0 .. *ntiles) filled; *ebcot: an
 * EBCOT block is among them), -1 when a tile does not fit the device
 * layout, or an error code. */
static int collect_tiles(jd_lane *d, const sci_j2k_comp_info *ci,
                         const sci_cuda_j2kdec_plane *planes,
                         const jd_tuning *tu, tables *t, split_ctx *sp,
                         size_t *ntiles, int *ebcot, double *table_ms) {
    size_t nt = (size_t)d->info.tiles_x * d->info.tiles_y;
    memset(t, 0, sizeof *t);
    if (grow_host((void **)&d->runs, &d->runs_cap, nt, sizeof(tile_run)))
        return cudaErrorMemoryAllocation;
    sci_j2k_dec_set_refs(d->dec, 1);
    /* a frame alone on the device: the longest blocks, which the lower
     * resolutions hold, start while tier-2 reads the highest one */
    unsigned top = d->info.levels - d->fprm.reduce;
    if (nt == 1 && top > 0 && tu->split != SCI_CUDA_J2KDEC_SPLIT_OFF &&
        !tu->others &&
        !tu->ebcot_host && !d->profile) {
        memset(sp, 0, sizeof *sp);
        sp->d = d;
        sp->ci = ci;
        sp->planes = planes;
        sp->tu = tu;
        sp->t = t;
        sp->ebcot = ebcot;
        sp->table_ms = table_ms;
        sci_j2k_dec_set_split(d->dec, top, split_part, sp);
    }
    for (size_t k = 0; k < nt; k++) {
        sci_j2k_tile_blocks tb;
        int r = sci_j2k_dec_tile_blocks(d->dec, (unsigned)k, &d->fprm, &tb);
        sci_j2k_dec_set_split(d->dec, 0, NULL, NULL);
        if (r)
            return dec_fail(d, r);
        if (sp->taken && sp->err)
            return fail(d, sp->err, "CUDA: %s", cudaGetErrorString(sp->err));
        tile_run *run = &d->runs[k];
        if (!tile_geometry(d, &tb, ci, planes, run))
            return sp->taken ? fail(d, SCI_CUDA_J2KDEC_ERR_DECODE, "tile "
                                    "%zu: its parts differ in shape", k)
                             : -1;
        run->coef = t->coef;
        double h = now_ms();
        if (tables_room(d, &tb, t))
            return cudaErrorMemoryAllocation;
        for (size_t i = 0; i < tb.nblocks; i++) {
            *ebcot |= !tb.blocks[i].ht;
            add_block(d, &tb, &run->g, i, t);
        }
        *table_ms += now_ms() - h;
        t->coef += tile_words(&run->g);
        t->arena += align16(tb.arena_len);
    }
    *ntiles = nt;
    return 0;
}

int jd_lane_after(jd_lane *d, cudaStream_t stream) {
    /* the lane's last frame may still be reading its pinned buffer */
    cudaEventSynchronize(d->s.done);
    cudaError_t e = cudaEventRecord(d->s.start, stream);
    return e ? fail(d, e, "CUDA: %s", cudaGetErrorString(e)) : 0;
}

int jd_lane_submit(jd_lane *d, const sci_cuda_j2kdec_plane *planes,
                   const jd_tuning *tu) {
    double t_in = now_ms();
    d->rep.err[0] = 0;
    for (int k = 0; k < 4; k++)
        d->rep.host_ms[k] = -1;
    d->rep.phases = 0;
    slot *s = &d->s;
    unsigned nc = d->info.components;
    sci_j2k_comp_info *ci = (sci_j2k_comp_info *)calloc(nc, sizeof *ci);
    if (!ci)
        return cudaErrorMemoryAllocation;
    int ret = 0;
    for (unsigned c = 0; c < nc && !ret; c++) {
        sci_j2k_dec_comp_info(d->dec, c, d->fprm.reduce, &ci[c]);
        if (!planes[c].data || (planes[c].bytes != 1 && planes[c].bytes != 2) ||
            (planes[c].bytes == 1 && ci[c].depth > 8) || planes[c].pixel_stride < 1 ||
            planes[c].row_stride < (ptrdiff_t)ci[c].w * (ptrdiff_t)planes[c].pixel_stride)
            ret = fail(d, SCI_CUDA_J2KDEC_ERR_ARG, "plane %u: %u-byte samples, "
                       "pixel stride %u, row stride %td for a %u-bit component "
                       "%u samples wide", c, planes[c].bytes,
                       planes[c].pixel_stride, planes[c].row_stride,
                       ci[c].depth, ci[c].w);
        else if (ci[c].depth > 16)
            ret = fail(d, SCI_CUDA_J2KDEC_ERR_DECODE, "component %u has %u bits: "
                       "at most 16 are supported", c, ci[c].depth);
    }
    if (ret) {
        free(ci);
        return ret;
    }
    /* the frame runs after what the caller queued before it */
    cudaError_t e = cudaStreamWaitEvent(s->st, s->start, 0);
    if (e) {
        free(ci);
        return fail(d, e, "CUDA: %s", cudaGetErrorString(e));
    }
    cudaStream_t st = s->st;
    s->nht = 0;
    int aligned = grid_aligned(d, ci);
    double copy_ms = 0;
    if (aligned) {
        /* a device path: the codestream goes up while tier-2 runs */
        mark(d, s, 0, st);
        double c0 = now_ms();
        e = upload_codestream(d, s, st);
        copy_ms = now_ms() - c0;
        if (e) {
            free(ci);
            return fail(d, e, "CUDA: %s", cudaGetErrorString(e));
        }
    }
    double h0 = now_ms(), table_ms = 0;
    tables t;
    split_ctx sp;
    memset(&sp, 0, sizeof sp);
    size_t ntiles = 0;
    int ebcot = 0;
    int r = aligned ? collect_tiles(d, ci, planes, tu, &t, &sp, &ntiles, &ebcot,
                                    &table_ms)
                    : -1;
    double h1 = now_ms();
    if (r > 0) {
        /* the next frame on the lane waits for the upload */
        cudaEventRecord(s->done, st);
        free(ci);
        return r;
    }
    d->rep.path = r < 0 ? SCI_CUDA_J2KDEC_HOST
              : ebcot && tu->ebcot_host ? SCI_CUDA_J2KDEC_HOST_BLOCKS
                                       : SCI_CUDA_J2KDEC_DEVICE;
    s->path = d->rep.path;
    if (d->rep.path == SCI_CUDA_J2KDEC_HOST) {
        ret = submit_host(d, s, planes, ci, st);
        free(ci);
        if (ret)
            return ret;
        cudaEventRecord(s->done, st);
        s->h_status[0] = 0;
        return 0;
    }

    /* device layout: each tile shape's wavelet scratch and the tiles'
     * coefficient planes (the slot's last frame is done with them) */
    for (size_t k = 0; !e && k < ntiles; k++)
        e = slot_wt(s, &d->runs[k].g, &d->runs[k].wt);
    size_t ncoef = t.coef;
    if (!e)
        e = grow_device(&s->d_coef, &s->coef_cap, ncoef * 4);
    sci_cuda_wt_out out[SCI_WT_MAX_COMPONENTS];
    for (unsigned c = 0; c < nc; c++)
        out[c] = out_rule(ci[c], planes[c].bytes);
    free(ci);
    int *d_status = d->d_status;
    sci_j2k_status *jst = sci_j2k_dec_status(d->dec);
    if (!e && d->rep.path == SCI_CUDA_J2KDEC_DEVICE) {
        d->rep.host_ms[0] = (float)(h1 - h0 - table_ms);
        d->rep.host_ms[2] = (float)copy_ms;
        double pack_ms = 0;
        if (sp.taken && t.nht + t.neb) {
            /* the second part: its own stream, after the first part's
             * clearing, joined back before the DWT */
            e = cudaStreamWaitEvent(s->st2, s->p1_ready, 0);
            if (!e)
                e = queue_blocks(d, s, t, 1, sp.first, sp.arena0, tu, ncoef,
                                 s->st2, &pack_ms);
            if (!e)
                e = cudaEventRecord(s->p2_done, s->st2);
            if (!e)
                e = cudaStreamWaitEvent(st, s->p2_done, 0);
        } else if (!sp.taken) {
            e = queue_blocks(d, s, t, 0, 0, 0, tu, ncoef, st, &pack_ms);
        }
        d->rep.host_ms[1] = (float)(table_ms + pack_ms);
        d->rep.phases = sp.taken ? 2 : 1;
    } else if (!e) {
        /* the blocks by the C reference on the host's threads, tile by
         * tile: tier-2 again, with the bytes */
        host_up_wait(d);
        e = grow_pinned(&d->h_coef, &d->h_coef_cap, ncoef * 4);
        if (!e)
            memset(d->h_coef, 0, ncoef * 4);
        sci_j2k_dec_set_refs(d->dec, 0);
        for (size_t k = 0; !e && k < ntiles; k++) {
            sci_j2k_tile_blocks tb;
            r = sci_j2k_dec_tile_blocks(d->dec, (unsigned)k, &d->fprm, &tb);
            if (r) {
                cudaEventRecord(s->done, st);
                return dec_fail(d, r);
            }
            host_blocks_ctx *x = (host_blocks_ctx *)calloc(1, sizeof *x);
            if (!x) {
                e = cudaErrorMemoryAllocation;
                break;
            }
            x->d = d;
            x->tb = &tb;
            x->run = &d->runs[k];
            /* the frame's longest region: it waits for another lane's */
            sci_pool_for_shared(d->pool, tb.nblocks, 16, host_blocks_fn, x);
            int damaged = 0;
            for (unsigned w = 0; w < d->nthreads; w++)
                damaged += x->damaged[w];
            int nomem = x->nomem;
            free(x);
            if (nomem)
                e = cudaErrorMemoryAllocation;
            else if (damaged)
                sci_j2k_warn(jst, 0, "tile %u: %d code-blocks damaged or not "
                             "decodable: decoded in part or left zero",
                             (unsigned)k, damaged);
        }
        if (!e)
            e = cudaMemcpyAsync(s->d_coef, d->h_coef, ncoef * 4,
                                cudaMemcpyHostToDevice, st);
        if (!e) {
            e = cudaEventRecord(d->host_up, st);
            d->host_up_pending = 1;
        }
        s->h_status[0] = 0;
    }
    if (!e && sci_j2k_dec_truncated(d->dec) && !sci_j2k_dec_warnings(d->dec))
        sci_j2k_warn(jst, d->len, "the codestream is truncated");
    /* each tile's inverse DWT writes its rectangle of the planes */
    for (size_t k = 0; !e && k < ntiles; k++) {
        const tile_run *run = &d->runs[k];
        sci_wt_plane dst[SCI_WT_MAX_COMPONENTS];
        for (unsigned c = 0; c < nc; c++) {
            dst[c].data = (uint8_t *)planes[c].data + run->out[c];
            dst[c].row_stride = planes[c].row_stride;
            dst[c].pixel_stride = planes[c].pixel_stride;
        }
        const uint32_t *coef = (const uint32_t *)s->d_coef + run->coef;
        e = (cudaError_t)(sp.taken
            ? sci_cuda_wt_inverse_dec_rest(run->wt, coef, 1, dst, out, st)
            : sci_cuda_wt_inverse_dec(run->wt, coef, dst, out, st));
    }
    s->profiled = d->profile && d->rep.path == SCI_CUDA_J2KDEC_DEVICE;
    if (s->profiled)
        mark(d, s, 5, st);
    if (!e && d->rep.path == SCI_CUDA_J2KDEC_DEVICE)
        e = cudaMemcpyAsync(s->h_status, d_status, 2 * sizeof(int),
                            cudaMemcpyDeviceToHost, st);
    if (!e)
        e = cudaEventRecord(s->done, st);
    if (e) {
        /* what was queued before the error, the upload at least, is
         * waited for by the lane's next frame */
        cudaEventRecord(s->done, st);
        return fail(d, e, "CUDA: %s", cudaGetErrorString(e));
    }
    note_host_warnings(d, s);
    if (d->rep.path == SCI_CUDA_J2KDEC_DEVICE)
        d->rep.host_ms[3] = (float)(now_ms() - t_in);
    return 0;
}

int jd_lane_finish(jd_lane *d) {
    slot *s = &d->s;
    cudaError_t e = cudaEventSynchronize(s->done);
    if (e)
        return fail(d, e, "CUDA: %s", cudaGetErrorString(e));
    d->rep.warnings = s->warnings;
    snprintf(d->rep.warning, sizeof d->rep.warning, "%s", s->warning);
    for (int k = 0; k < 5; k++) {
        d->rep.stage_ms[k] = -1;
        if (s->profiled)
            cudaEventElapsedTime(&d->rep.stage_ms[k], s->ev[k], s->ev[k + 1]);
    }
    if (s->path == SCI_CUDA_J2KDEC_DEVICE && s->h_status[0] > 0) {
        /* the C reference's words for the one the kernels name (the
         * damaged block first in the table), and how many more there are */
        size_t i = (size_t)s->h_status[1];
        const blk_origin *o = i < s->nht ? &s->org[i] : NULL;
        char more[48] = "";
        if (s->h_status[0] > 1)
            snprintf(more, sizeof more, " and %d more are",
                     s->h_status[0] - 1);
        if (!d->rep.warnings && o)
            snprintf(d->rep.warning, sizeof d->rep.warning, "tile %u: a code-block of "
                     "component %u%s damaged (HT data, or a wrong segmentation "
                     "symbol): decoded in part (at byte %llu)", o->tile,
                     o->comp, s->h_status[0] > 1 ? more : " is",
                     (unsigned long long)o->src);
        d->rep.warnings += (unsigned)s->h_status[0];
    }
    return 0;
}

int jd_lane_profile(jd_lane *d, int on) {
    slot *s = &d->s;
    cudaEventSynchronize(s->done);
    for (int k = 0; on && k < 6; k++)
        if (!s->ev[k]) {
            cudaError_t e = cudaEventCreate(&s->ev[k]);
            if (e)
                return fail(d, e, "CUDA: %s", cudaGetErrorString(e));
        }
    d->profile = on != 0;
    return 0;
}

const jd_lane_report *jd_lane_report_of(const jd_lane *d) {
    return &d->rep;
}
