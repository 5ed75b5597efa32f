/*
 * Online-DPCM on the GPU (see dpcm.h).  Every rule that must agree with the
 * C reference to the bit comes from codec/dpcm_core.h; this file only
 * decides who computes what, where.
 *
 * Encoder, per frame:
 *   1. blocksum: the rows are cut into nb blocks; a thread per (block,
 *      sum entry, column) adds that entry of every row's window sums in its
 *      block (sums[blk][t][x], coalesced over x);
 *   2. scan: a thread per (entry, column) turns the block sums into sums
 *      over the rows before each block;
 *   3. predict: a thread per (block, column) walks its block's rows from
 *      those sums, solving each pixel's system and writing the residual;
 *   4. thresholds from a histogram (shared-memory bins near 0, global
 *      ones beyond), read back by the segment coder on the device;
 *   5. a thread per segment codes it into a slot of its bound;
 *   6. a scan of the lengths and a copy close the slots up, and only the
 *      coded bytes go to the host.
 * Decoder, per batch: a thread per segment of every frame decodes the
 * residuals; then a block per frame rebuilds its rows (all threads update
 * and solve the row's systems, then thread 0 runs the row, reading the row
 * from shared memory when it fits).
 *
 * Built with SCI_DPCM_EMU, each kernel becomes a host call of the same
 * function with one block of one thread (the strided loops then cover
 * everything and barriers are no-ops): tests/dpcm_emu.cpp checks the
 * kernels' logic against the C reference without a GPU.
 */
#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>

#include "dpcm.h"
#include "../codec/dpcm_core.h"

#ifdef SCI_DPCM_EMU
#define DK static inline
#define SYNC() ((void)0)
#else
#define DK __device__ __forceinline__
#define SYNC() __syncthreads()
#endif

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

/* A thread's room for one system: A (N (N+1) doubles) and the running
 * sums S (e int64), either interleaved with the block's other threads in
 * shared memory (step = threads) or in local memory (step 1). */
struct scratch {
    double *A;
    int64_t *S;
    size_t step;
};

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
    int64_t *sums;                 /* nb * e * w */
    int32_t *res;
    uint32_t *hist;                /* 2 maxval + 1 bins (T > 0) */
    int *info;
    uint8_t *slots, *packed;
    uint32_t *seg_len, *seg_off;
};

/* 1. Entry t of block blk's window sums of column x. */
DK void blocksum_item(const enc_params &p, size_t i) {
    unsigned x = (unsigned)(i % p.w);
    size_t q = i / p.w;
    unsigned t = (unsigned)(q % p.e), blk = (unsigned)(q / p.e);
    int64_t acc = 0;
    if (x >= 2) {
        /* entry t: (i0, k0) of the packed matrix, or b's entry i0 */
        unsigned pn = p.n * (p.n + 1) / 2, i0 = 0, k0;
        int rhs = t >= pn;
        if (rhs) {
            i0 = t - pn;
            k0 = 0;
        } else {
            unsigned r = t;
            while (r >= p.n - i0) {
                r -= p.n - i0;
                i0++;
            }
            k0 = i0 + r;
        }
        unsigned lo = sci_dpcm_window_lo(p.n, p.m, x);
        unsigned y0 = blk * p.blk_rows;
        unsigned y1 = y0 + p.blk_rows < p.h ? y0 + p.blk_rows : p.h;
        for (unsigned y = y0; y < y1; y++) {
            const uint16_t *row = p.samples + (size_t)y * p.stride;
            for (unsigned j = lo; j <= x; j++) {
                uint32_t a = j >= i0 + 1 ? row[j - 1 - i0] : 0;
                uint32_t b = rhs ? row[j] : (j >= k0 + 1 ? row[j - 1 - k0] : 0);
                acc += (int64_t)((uint64_t)a * b);
            }
        }
    }
    p.sums[((size_t)blk * p.e + t) * p.w + x] = acc;
}

/* 2. Exclusive prefix over blocks of entry (t, x). */
DK void scan_item(const enc_params &p, size_t i) {
    int64_t run = 0;
    size_t step = (size_t)p.e * p.w;
    int64_t *s = p.sums + i;
    for (unsigned blk = 0; blk < p.nb; blk++, s += step) {
        int64_t v = *s;
        *s = run;
        run += v;
    }
}

/* 3. The residuals of column x in block blk. */
DK void predict_item(const enc_params &p, scratch sc, size_t i) {
    unsigned x = (unsigned)(i % p.w), blk = (unsigned)(i / p.w);
    const uint32_t maxval = (1u << p.depth) - 1;
    unsigned y0 = blk * p.blk_rows;
    unsigned y1 = y0 + p.blk_rows < p.h ? y0 + p.blk_rows : p.h;
    const int lsq = x >= 2 && p.w >= 3 && p.h >= 2;
    int64_t *S = sc.S;
    if (lsq)
        for (unsigned t = 0; t < p.e; t++)
            S[t * sc.step] = p.sums[((size_t)blk * p.e + t) * p.w + x];
    for (unsigned y = y0; y < y1; y++) {
        const uint16_t *row = p.samples + (size_t)y * p.stride;
        uint32_t pred;
        if (y == 0)
            pred = x ? row[x - 1] : 0;
        else if (x == 0)
            pred = row[(ptrdiff_t)0 - (ptrdiff_t)p.stride];
        else if (!lsq)
            pred = row[x - 1];
        else {
            double a[SCI_DPCM_MAX_ORDER];
            unsigned n = sci_dpcm_order_at(p.n, x);
            sci_dpcm_load_system(p.n, n, S, sc.step, sc.A, sc.step);
            if (sci_dpcm_solve_core(n, sc.A, sc.step, a))
                pred = sci_dpcm_round(sci_dpcm_dot(n, a, row + x), maxval);
            else
                pred = row[x - 1];
        }
        p.res[(size_t)y * p.w + x] = (int32_t)row[x] - (int32_t)pred;
        if (lsq)
            sci_dpcm_add_window(p.n, p.m, row, x, S, sc.step);
    }
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

/* 5. Segment s into its slot. */
DK void code_item(const enc_params &p, unsigned s) {
    unsigned y0 = s * p.seg_rows;
    unsigned rows = sci_dpcm_segment_height(p.h, p.seg_rows, s);
    sci_dpcm_models m;
    sci_rc_enc e;
    uint32_t esc = 0;
    sci_rc_enc_init(&e, p.slots + (size_t)s * p.slot_bytes, p.slot_bytes);
    sci_dpcm_code_segment(p.res + (size_t)y0 * p.w, p.w, rows, p.depth,
                          p.info[INFO_T_LO], p.info[INFO_T_HI], &m, &e, &esc);
    p.seg_len[s] = (uint32_t)sci_rc_enc_finish(&e);
    if (esc)
        add_u32((uint32_t *)&p.info[INFO_ESC], esc);
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
    size_t wt_off;     /* w * n weights */
    size_t ok_off;     /* w flags: the column's system was solved */
    uint16_t *out;     /* device */
    size_t stride;
    unsigned first_seg; /* in the batch's segment list */
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
    int64_t *sums;
    double *wt;
    uint8_t *ok;
    int *status;       /* per frame: 0, or the code */
    int *bad_seg;      /* per frame: the first failing segment */
    int *seg_status;   /* per segment */
    uint32_t *escapes; /* per frame */
};

DK void decode_seg_item(const dec_params &p, unsigned k) {
    const dec_segment sg = p.segs[k];
    const dec_frame &f = p.frames[sg.frame];
    unsigned y0 = sg.index * f.seg_rows;
    unsigned rows = sci_dpcm_segment_height(f.h, f.seg_rows, sg.index);
    sci_dpcm_models m;
    uint32_t esc = 0;
    int st = sci_dpcm_decode_segment(p.in + sg.off, sg.len, f.w, rows,
                                     f.depth, f.t_lo, f.t_hi, &m,
                                     p.res + f.res_off + (size_t)y0 * f.w,
                                     &esc);
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

/* Frame fi's rows, by a block of nt threads; row: shared memory for the
 * row being rebuilt (NULL: work in the output). */
DK void rebuild_block(const dec_params &p, unsigned fi, unsigned tid,
                      unsigned nt, scratch sc, uint16_t *rowbuf, int *flag) {
    const dec_frame &f = p.frames[fi];
    if (p.status[fi])
        return; /* checked on the host already */
    int st = frame_status(p, fi);
    if (st) {
        if (tid == 0)
            p.status[fi] = st;
        return;
    }
    const int32_t maxval = (int32_t)((1u << f.depth) - 1);
    const int32_t *res = p.res + f.res_off;
    int64_t *sums = p.sums + f.sums_off;
    double *wt = p.wt + f.wt_off;
    uint8_t *ok = p.ok + f.ok_off;
    const int lsq = f.w >= 3 && f.h >= 2;
    if (lsq)
        for (size_t k = tid; k < (size_t)f.e * f.w; k += nt)
            sums[k] = 0;
    if (tid == 0)
        *flag = 0;
    for (unsigned y = 0; y < f.h; y++) {
        uint16_t *out = f.out + (size_t)y * f.stride;
        const uint16_t *up = y ? out - f.stride : NULL;
        if (y && lsq) {
            for (unsigned x = 2 + tid; x < f.w; x += nt) {
                /* the column's sums in the thread's scratch while the
                 * window's products go in: one pass over L2 */
                int64_t *S = sc.S;
                unsigned n = sci_dpcm_order_at(f.n, x);
                for (unsigned t = 0; t < f.e; t++)
                    S[t * sc.step] = sums[(size_t)t * f.w + x];
                sci_dpcm_add_window(f.n, f.m, up, x, S, sc.step);
                for (unsigned t = 0; t < f.e; t++)
                    sums[(size_t)t * f.w + x] = S[t * sc.step];
                sci_dpcm_load_system(f.n, n, S, sc.step, sc.A, sc.step);
                ok[x] = (uint8_t)sci_dpcm_solve_core(n, sc.A, sc.step,
                                                     wt + (size_t)x * f.n);
            }
        }
        SYNC();
        if (tid == 0) {
            uint16_t *row = rowbuf ? rowbuf : out;
            const int32_t *r = res + (size_t)y * f.w;
            for (unsigned x = 0; x < f.w; x++) {
                int32_t pred;
                if (y == 0)
                    pred = x ? row[x - 1] : 0;
                else if (x == 0)
                    pred = up[0];
                else if (x == 1 || !lsq || !ok[x])
                    pred = row[x - 1];
                else
                    pred = (int32_t)sci_dpcm_round(
                        sci_dpcm_dot(sci_dpcm_order_at(f.n, x),
                                     wt + (size_t)x * f.n, row + x),
                        (uint32_t)maxval);
                int32_t v = pred + r[x];
                if (v < 0 || v > maxval) {
                    *flag = SCI_DPCM_E_SAMPLE;
                    break;
                }
                row[x] = (uint16_t)v;
            }
        }
        SYNC();
        if (*flag) {
            if (tid == 0)
                p.status[fi] = *flag;
            return;
        }
        if (rowbuf) {
            for (unsigned x = tid; x < f.w; x += nt)
                out[x] = rowbuf[x];
            SYNC();
        }
    }
}

/* ------------------------------------------------------------------ */
/* Launches */

#define ENC_THREADS 128
#define HIST_THREADS 256
#define OFF_THREADS 256
#define REBUILD_THREADS 256
#define ROWBUF_MAX 16384 /* widest row kept in shared memory */

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

/* The threads' scratch: in dynamic shared memory when the launch gave
 * room for it (shared = 1), else in local memory. */
#define MAXA (SCI_DPCM_MAX_ORDER * (SCI_DPCM_MAX_ORDER + 1))
#define MAXE (SCI_DPCM_MAX_ORDER * (SCI_DPCM_MAX_ORDER + 1) / 2 + SCI_DPCM_MAX_ORDER)

__global__ void predict_kernel(enc_params p, size_t n, int shared) {
    extern __shared__ double smem[];
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    if (shared) {
        scratch sc = {smem + threadIdx.x,
                      (int64_t *)(smem + (size_t)blockDim.x * p.n * (p.n + 1)) +
                          threadIdx.x,
                      blockDim.x};
        predict_item(p, sc, i);
    } else {
        double A[MAXA];
        int64_t S[MAXE];
        scratch sc = {A, S, 1};
        predict_item(p, sc, i);
    }
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

__global__ void code_kernel(enc_params p) {
    unsigned s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s < p.segs)
        code_item(p, s);
}

__global__ void __launch_bounds__(OFF_THREADS) offsets_kernel(enc_params p) {
    __shared__ uint32_t part[OFF_THREADS];
    offsets_block(p, threadIdx.x, blockDim.x, part);
}

__global__ void pack_kernel(enc_params p) {
    for (unsigned s = blockIdx.x; s < p.segs; s += gridDim.x)
        pack_item(p, s, threadIdx.x, blockDim.x);
}

__global__ void decode_seg_kernel(dec_params p) {
    unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < p.nsegs)
        decode_seg_item(p, k);
}

/* Dynamic shared memory: the threads' scratch (when shared), then the row
 * being rebuilt (when rowbuf). */
__global__ void rebuild_kernel(dec_params p, unsigned order_n, int shared,
                               int use_rowbuf) {
    extern __shared__ double smem[];
    __shared__ int flag;
    size_t room = shared ? (size_t)blockDim.x *
                               (order_n * (order_n + 1) +
                                order_n * (order_n + 1) / 2 + order_n)
                         : 0;
    uint16_t *rowbuf = use_rowbuf ? (uint16_t *)(smem + room) : NULL;
    if (shared) {
        scratch sc = {smem + threadIdx.x,
                      (int64_t *)(smem + (size_t)blockDim.x * order_n *
                                             (order_n + 1)) +
                          threadIdx.x,
                      blockDim.x};
        rebuild_block(p, blockIdx.x, threadIdx.x, blockDim.x, sc, rowbuf,
                      &flag);
    } else {
        double A[MAXA];
        int64_t S[MAXE];
        scratch sc = {A, S, 1};
        rebuild_block(p, blockIdx.x, threadIdx.x, blockDim.x, sc, rowbuf,
                      &flag);
    }
}
#endif

/* ------------------------------------------------------------------ */
/* Host side */

struct dbuf {
    void *p;
    size_t cap;
};

struct sci_cuda_dpcm {
    dbuf samples, sums, res, hist, info, slots, packed, seg_len, seg_off;
    dbuf in, frames, segs, dres, dsums, wt, ok, status, bad, seg_status,
        escapes, out;
    /* pinned host staging */
    void *h_stage;
    size_t h_cap;
    int timing;
    sci_cuda_dpcm_times times;
    cudaEvent_t ev[6];
};

static int grow(dbuf *b, size_t bytes) {
    if (b->cap >= bytes)
        return 0;
    cudaFree(b->p);
    b->p = NULL;
    b->cap = 0;
    size_t want = bytes + bytes / 4;
    cudaError_t e = cudaMalloc(&b->p, want ? want : 1);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return (int)e;
    }
    b->cap = want;
    return 0;
}

static int grow_host(sci_cuda_dpcm *c, size_t bytes) {
    if (c->h_cap >= bytes)
        return 0;
    cudaFreeHost(c->h_stage);
    c->h_stage = NULL;
    c->h_cap = 0;
    size_t want = bytes + bytes / 4;
    cudaError_t e = cudaMallocHost(&c->h_stage, want);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return (int)e;
    }
    c->h_cap = want;
    return 0;
}

extern "C" int sci_cuda_dpcm_create(sci_cuda_dpcm **out) {
    sci_cuda_dpcm *c = (sci_cuda_dpcm *)calloc(1, sizeof *c);
    if (!c)
        return SCI_DPCM_E_NOMEM;
    for (int i = 0; i < 6; i++) {
        cudaError_t e = cudaEventCreate(&c->ev[i]);
        if (e != cudaSuccess) {
            cudaGetLastError();
            for (int k = 0; k < i; k++)
                cudaEventDestroy(c->ev[k]);
            free(c);
            return (int)e;
        }
    }
    *out = c;
    return 0;
}

extern "C" void sci_cuda_dpcm_destroy(sci_cuda_dpcm *c) {
    if (!c)
        return;
    dbuf *all[] = {&c->samples, &c->sums, &c->res, &c->hist, &c->info,
                   &c->slots, &c->packed, &c->seg_len, &c->seg_off, &c->in,
                   &c->frames, &c->segs, &c->dres, &c->dsums, &c->wt, &c->ok,
                   &c->status, &c->bad, &c->seg_status, &c->escapes, &c->out};
    for (dbuf *b : all)
        cudaFree(b->p);
    cudaFreeHost(c->h_stage);
    for (int i = 0; i < 6; i++)
        cudaEventDestroy(c->ev[i]);
    free(c);
}

extern "C" size_t sci_cuda_dpcm_device_bytes(const sci_cuda_dpcm *c) {
    const dbuf *all[] = {&c->samples, &c->sums, &c->res, &c->hist, &c->info,
                         &c->slots, &c->packed, &c->seg_len, &c->seg_off,
                         &c->in, &c->frames, &c->segs, &c->dres, &c->dsums,
                         &c->wt, &c->ok, &c->status, &c->bad, &c->seg_status,
                         &c->escapes, &c->out};
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
    if (c->timing)
        cudaEventRecord(c->ev[i], s);
}

static float span(sci_cuda_dpcm *c, int a, int b) {
    float ms = 0;
    if (c->timing && cudaEventElapsedTime(&ms, c->ev[a], c->ev[b]) != cudaSuccess) {
        cudaGetLastError();
        ms = 0;
    }
    return ms;
}

#ifdef SCI_DPCM_EMU
#define LAUNCH_ITEMS(fn, n, ...)                                             \
    for (size_t i_ = 0; i_ < (size_t)(n); i_++)                              \
        fn(__VA_ARGS__, i_)
#endif

#define MAXA_HOST (SCI_DPCM_MAX_ORDER * (SCI_DPCM_MAX_ORDER + 1))
#define MAXE_HOST (SCI_DPCM_MAX_ORDER * (SCI_DPCM_MAX_ORDER + 1) / 2 + SCI_DPCM_MAX_ORDER)

#ifndef SCI_DPCM_EMU
/* Threads per block whose scratch for order n fits in shared memory next
 * to `other` bytes: at most `most`, a multiple of 32; 1 and *room set when
 * at least 32 fit, else 0 (local memory, `most` threads, no room). */
static int scratch_threads(unsigned n, unsigned most, size_t other,
                           unsigned *threads, size_t *room) {
    int dev = 0, optin = 48 * 1024;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                               dev) != cudaSuccess) {
        cudaGetLastError();
        optin = 48 * 1024;
    }
    size_t per = ((size_t)n * (n + 1) + (size_t)n * (n + 1) / 2 + n) * 8;
    size_t avail = (size_t)optin > other + 1024 ? optin - other - 1024 : 0;
    size_t t = avail / per / 32 * 32;
    if (t > most)
        t = most;
    if (t < 32) {
        *threads = most;
        *room = 0;
        return 0;
    }
    *threads = (unsigned)t;
    *room = t * per;
    return 1;
}

static unsigned grid_for(size_t n, unsigned threads) {
    size_t g = (n + threads - 1) / threads;
    return (unsigned)(g < 1 ? 1 : g > 65535u * 32 ? 65535u * 32 : g);
}
#endif

/* Predictor blocks: enough (block, column) threads to fill the GPU, the
 * block sums within 256 MiB. */
static unsigned pick_blocks(unsigned w, unsigned h, unsigned e) {
    size_t want = (65536 + w - 1) / w;
    size_t cap = ((size_t)256 << 20) / ((size_t)e * 8 * w);
    if (want > cap)
        want = cap;
    if (want < 1)
        want = 1;
    if (want > h)
        want = h;
    return (unsigned)want;
}

extern "C" int sci_cuda_dpcm_encode(sci_cuda_dpcm *c, const uint16_t *samples,
                                    size_t stride, int on_device, unsigned w,
                                    unsigned h, unsigned depth,
                                    const sci_dpcm_params *prm,
                                    const uint8_t *meta, size_t meta_len,
                                    uint8_t *out, size_t cap, size_t *out_len,
                                    void *stream) {
    cudaStream_t st = (cudaStream_t)stream;
    if (!c || sci_dpcm_check(w, h, depth, prm) || !samples || !out ||
        !out_len || stride < w || meta_len > SCI_DPCM_MAX_METADATA ||
        (meta_len && !meta))
        return SCI_DPCM_E_ARG;
    const uint32_t maxval = (1u << depth) - 1;
    enc_params p;
    memset(&p, 0, sizeof p);
    p.w = w;
    p.h = h;
    p.depth = depth;
    p.n = prm->order_n;
    p.m = prm->equations_m;
    p.e = p.n * (p.n + 1) / 2 + p.n;
    p.threshold = prm->threshold;
    p.nb = pick_blocks(w, h, p.e);
    p.blk_rows = (h + p.nb - 1) / p.nb;
    p.nb = (h + p.blk_rows - 1) / p.blk_rows;
    p.seg_rows = sci_dpcm_segment_rows(w, h);
    p.segs = (h + p.seg_rows - 1) / p.seg_rows;
    p.slot_bytes = sci_dpcm_segment_bound((size_t)w * p.seg_rows);
    size_t count = (size_t)w * h;
    size_t pre = SCI_DPCM_HEADER_BYTES + meta_len + 4 * (size_t)p.segs;
    if (cap < pre + SCI_DPCM_TRAILER_BYTES + p.segs * SCI_RC_MIN_BYTES)
        return SCI_DPCM_E_BUFFER;
    int err;
    if ((!on_device && (err = grow(&c->samples, count * 2))) ||
        (err = grow(&c->sums, (size_t)p.nb * p.e * w * 8)) ||
        (err = grow(&c->res, count * 4)) ||
        (err = grow(&c->hist, (2 * (size_t)maxval + 1) * 4)) ||
        (err = grow(&c->info, INFO_COUNT * sizeof(int))) ||
        (err = grow(&c->slots, p.segs * p.slot_bytes)) ||
        (err = grow(&c->packed, p.segs * p.slot_bytes)) ||
        (err = grow(&c->seg_len, p.segs * 4)) ||
        (err = grow(&c->seg_off, p.segs * 4)) ||
        (err = grow_host(c, p.segs * 4 + INFO_COUNT * sizeof(int))))
        return err;
    p.sums = (int64_t *)c->sums.p;
    p.res = (int32_t *)c->res.p;
    p.hist = (uint32_t *)c->hist.p;
    p.info = (int *)c->info.p;
    p.slots = (uint8_t *)c->slots.p;
    p.packed = (uint8_t *)c->packed.p;
    p.seg_len = (uint32_t *)c->seg_len.p;
    p.seg_off = (uint32_t *)c->seg_off.p;
    mark(c, 0, st);
    if (on_device) {
        p.samples = samples;
        p.stride = stride;
    } else {
        cudaMemcpy2DAsync(c->samples.p, (size_t)w * 2, samples, stride * 2,
                          (size_t)w * 2, h, cudaMemcpyHostToDevice, st);
        p.samples = (const uint16_t *)c->samples.p;
        p.stride = w;
    }
    int init[INFO_COUNT] = {0, 0, 0x7fffffff, -1, 0, 0};
    if (p.threshold == 0) {
        init[INFO_T_LO] = 0x7fffffff;
        init[INFO_T_HI] = -0x7fffffff;
    }
    int *h_info = (int *)c->h_stage;
    uint32_t *h_len = (uint32_t *)(h_info + INFO_COUNT);
    memcpy(h_info, init, sizeof init);
    cudaMemcpyAsync(p.info, h_info, sizeof init, cudaMemcpyHostToDevice, st);
    if (p.threshold)
        cudaMemsetAsync(p.hist, 0, (2 * (size_t)maxval + 1) * 4, st);
    mark(c, 1, st);
    size_t nsum = (size_t)p.nb * p.e * w, ncol = (size_t)p.nb * w;
#ifdef SCI_DPCM_EMU
    LAUNCH_ITEMS(blocksum_item, nsum, p);
    LAUNCH_ITEMS(scan_item, (size_t)p.e * w, p);
    {
        double *A = (double *)malloc(MAXA_HOST * sizeof(double));
        int64_t *S = (int64_t *)malloc(MAXE_HOST * sizeof(int64_t));
        if (!A || !S) {
            free(A);
            free(S);
            return SCI_DPCM_E_NOMEM;
        }
        scratch sc = {A, S, 1};
        LAUNCH_ITEMS(predict_item, ncol, p, sc);
        free(A);
        free(S);
    }
#else
    blocksum_kernel<<<grid_for(nsum, ENC_THREADS), ENC_THREADS, 0, st>>>(p, nsum);
    scan_kernel<<<grid_for((size_t)p.e * w, ENC_THREADS), ENC_THREADS, 0, st>>>(
        p, (size_t)p.e * w);
    {
        unsigned th;
        size_t room;
        int sh = scratch_threads(p.n, ENC_THREADS, 0, &th, &room);
        if (sh && (err = (int)cudaFuncSetAttribute(
                       predict_kernel,
                       cudaFuncAttributeMaxDynamicSharedMemorySize,
                       (int)room))) {
            cudaGetLastError();
            return err;
        }
        predict_kernel<<<grid_for(ncol, th), th, room, st>>>(p, ncol, sh);
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
    LAUNCH_ITEMS(code_item, p.segs, p);
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
    code_kernel<<<(p.segs + 31) / 32, 32, 0, st>>>(p);
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
                          p.seg_rows, coded, meta, meta_len, h_len);
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

extern "C" int sci_cuda_dpcm_decode(sci_cuda_dpcm *c, unsigned n,
                                    const uint8_t *const *in,
                                    const size_t *len, uint16_t *const *out,
                                    const size_t *stride, const size_t *cap,
                                    int out_on_device, int *status,
                                    void *stream) {
    cudaStream_t st = (cudaStream_t)stream;
    if (!c || !in || !len || !out || !stride || !cap || !status)
        return SCI_DPCM_E_ARG;
    if (n == 0)
        return 0;
    /* Host checks; the layout of the batch. */
    dec_frame *frames = (dec_frame *)calloc(n, sizeof *frames);
    sci_dpcm_info *info = (sci_dpcm_info *)calloc(n, sizeof *info);
    if (!frames || !info) {
        free(frames);
        free(info);
        return SCI_DPCM_E_NOMEM;
    }
    size_t in_bytes = 0, res_n = 0, sums_n = 0, wt_n = 0, ok_n = 0,
           out_n = 0;
    unsigned nsegs = 0, maxw = 0, maxn = 1;
    for (unsigned i = 0; i < n; i++) {
        status[i] = sci_dpcm_check_frame(in[i], len[i], &info[i]);
        const sci_dpcm_info *f = &info[i];
        if (!status[i] &&
            (!out[i] || stride[i] < f->width ||
             cap[i] < (size_t)(f->height - 1) * stride[i] + f->width))
            status[i] = SCI_DPCM_E_BUFFER;
        if (status[i])
            continue;
        dec_frame *d = &frames[i];
        d->w = f->width;
        d->h = f->height;
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
        d->wt_off = wt_n;
        d->ok_off = ok_n;
        d->first_seg = nsegs;
        in_bytes += f->coded_bytes;
        res_n += (size_t)d->w * d->h;
        sums_n += (size_t)d->w * d->e;
        wt_n += (size_t)d->w * d->n;
        ok_n += d->w;
        nsegs += d->segs;
        if (!out_on_device) {
            d->stride = d->w;
            out_n += (size_t)d->w * d->h;
        } else {
            d->out = out[i];
            d->stride = stride[i];
        }
        if (d->w > maxw)
            maxw = d->w;
        if (d->n > maxn)
            maxn = d->n;
    }
    int err = 0;
    size_t seg_bytes = (size_t)nsegs * sizeof(dec_segment);
    size_t host_need = in_bytes + seg_bytes + n * sizeof(dec_frame) +
                       n * 3 * sizeof(int);
    if ((err = grow(&c->in, in_bytes)) ||
        (err = grow(&c->segs, seg_bytes)) ||
        (err = grow(&c->frames, n * sizeof(dec_frame))) ||
        (err = grow(&c->dres, res_n * 4)) ||
        (err = grow(&c->dsums, sums_n * 8)) ||
        (err = grow(&c->wt, wt_n * 8)) || (err = grow(&c->ok, ok_n)) ||
        (err = grow(&c->status, n * sizeof(int))) ||
        (err = grow(&c->bad, n * sizeof(int))) ||
        (err = grow(&c->escapes, n * sizeof(int))) ||
        (err = grow(&c->seg_status, nsegs * sizeof(int))) ||
        (!out_on_device && (err = grow(&c->out, out_n * 2))) ||
        (err = grow_host(c, host_need))) {
        free(frames);
        free(info);
        return err;
    }
    /* Stage everything in pinned memory: input, segment list, frames,
     * statuses; one copy each. */
    uint8_t *h = (uint8_t *)c->h_stage;
    dec_segment *hseg = (dec_segment *)(h + in_bytes);
    dec_frame *hfr = (dec_frame *)((uint8_t *)hseg + seg_bytes);
    int *hst = (int *)(hfr + n), *hbad = hst + n;
    uint32_t *hesc = (uint32_t *)(hbad + n);
    uint32_t *lens = (uint32_t *)malloc((nsegs ? nsegs : 1) * sizeof *lens);
    if (!lens) {
        free(frames);
        free(info);
        return SCI_DPCM_E_NOMEM;
    }
    size_t out_off = 0;
    unsigned k = 0;
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
        if (!out_on_device) {
            d->out = (uint16_t *)c->out.p + out_off;
            out_off += (size_t)d->w * d->h;
        }
    }
    free(info);
    free(lens);
    memcpy(hfr, frames, n * sizeof(dec_frame));
    dec_params p;
    p.frames = (const dec_frame *)c->frames.p;
    p.segs = (const dec_segment *)c->segs.p;
    p.nsegs = nsegs;
    p.in = (const uint8_t *)c->in.p;
    p.res = (int32_t *)c->dres.p;
    p.sums = (int64_t *)c->dsums.p;
    p.wt = (double *)c->wt.p;
    p.ok = (uint8_t *)c->ok.p;
    p.status = (int *)c->status.p;
    p.bad_seg = (int *)c->bad.p;
    p.seg_status = (int *)c->seg_status.p;
    p.escapes = (uint32_t *)c->escapes.p;
    mark(c, 0, st);
    cudaMemcpyAsync(c->in.p, h, in_bytes, cudaMemcpyHostToDevice, st);
    cudaMemcpyAsync(c->segs.p, hseg, seg_bytes, cudaMemcpyHostToDevice, st);
    cudaMemcpyAsync(c->frames.p, hfr, n * sizeof(dec_frame),
                    cudaMemcpyHostToDevice, st);
    cudaMemcpyAsync(c->status.p, hst, n * sizeof(int),
                    cudaMemcpyHostToDevice, st);
    cudaMemcpyAsync(c->bad.p, hbad, n * sizeof(int), cudaMemcpyHostToDevice,
                    st);
    cudaMemcpyAsync(c->escapes.p, hesc, n * sizeof(int),
                    cudaMemcpyHostToDevice, st);
    mark(c, 1, st);
#ifdef SCI_DPCM_EMU
    (void)maxw;
    (void)maxn;
    for (unsigned s = 0; s < nsegs; s++)
        decode_seg_item(p, s);
    mark(c, 2, st);
    {
        double *A = (double *)malloc(MAXA_HOST * sizeof(double));
        int64_t *S = (int64_t *)malloc(MAXE_HOST * sizeof(int64_t));
        if (!A || !S) {
            free(A);
            free(S);
            free(frames);
            return SCI_DPCM_E_NOMEM;
        }
        scratch sc = {A, S, 1};
        for (unsigned i = 0; i < n; i++) {
            int flag;
            rebuild_block(p, i, 0, 1, sc, NULL, &flag);
        }
        free(A);
        free(S);
    }
#else
    if (nsegs)
        decode_seg_kernel<<<(nsegs + 31) / 32, 32, 0, st>>>(p);
    mark(c, 2, st);
    {
        int use_rowbuf = maxw <= ROWBUF_MAX;
        size_t rowbytes = use_rowbuf ? ((size_t)maxw * 2 + 15) / 16 * 16 : 0;
        unsigned th;
        size_t room;
        int sh = scratch_threads(maxn, REBUILD_THREADS, rowbytes, &th, &room);
        room += rowbytes;
        if (room > 48 * 1024 &&
            (err = (int)cudaFuncSetAttribute(
                 rebuild_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                 (int)room))) {
            cudaGetLastError();
            free(frames);
            return err;
        }
        rebuild_kernel<<<n, th, room, st>>>(p, maxn, sh, use_rowbuf);
    }
#endif
    mark(c, 3, st);
    cudaMemcpyAsync(hst, p.status, n * sizeof(int), cudaMemcpyDeviceToHost,
                    st);
    if (!out_on_device)
        for (unsigned i = 0; i < n; i++)
            if (!status[i])
                cudaMemcpy2DAsync(out[i], stride[i] * 2, frames[i].out,
                                  (size_t)frames[i].w * 2,
                                  (size_t)frames[i].w * 2, frames[i].h,
                                  cudaMemcpyDeviceToHost, st);
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
