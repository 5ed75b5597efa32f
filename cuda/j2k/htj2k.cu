/*
 * HT block coding on the GPU (cuda/j2k/htj2k.h).
 *
 * Kernels, one frame:
 *   ht_code     a warp a code-block (cuda/j2k/ht_warp.cuh): quantization (the
 *               reference's float operations, -fmad=false) fused with
 *               reading the coefficient buffer, an all-zero test, then the
 *               HT cleanup encoder of codec/j2k/ht_block.c with a quad a lane.
 *               It writes into the block's own slot of a device arena:
 *                   [MagSgn ->        |MEL ->          <- VLC]
 *               the tail (MEL + VLC) sized by a bound on their bytes (at
 *               most 4079), then moves MEL and VLC down behind MagSgn, so
 *               the segment ends up contiguous at the slot's start; its
 *               length goes to len[] (0: all zero, -1: cannot be coded).
 *   ht_scan     exclusive scan of the lengths (one CTA), and their sum.
 *   ht_compact  one warp a block: its bytes to the scan's offset in one
 *               contiguous buffer, which alone crosses to the host.
 * The lengths cross to the host right after ht_code; while the GPU
 * compacts, codec/j2k/htj2k.c's tier-2 (sci_htj2k_write_frame) writes the
 * markers and packet headers into `out`, leaving a gap for each packet's
 * body, which is one contiguous run of the compacted buffer (blocks of a
 * packet are consecutive in index order).  When `out` is pinned the bodies
 * are copied from the device into their gaps directly (one copy a packet);
 * when it is pageable the compacted buffer crosses once into pinned memory
 * (started before the headers are written) and the host copies each body
 * into its gap.
 * With a bitrate target, sci_htj2k_search_rate calls ht_code once a trial
 * step, reading only the lengths back.
 *
 * Built with SCI_HT_EMU, the kernels become host loops over the same
 * device functions, for checking them against the C reference without a
 * GPU (tests/j2k/htj2k_emu.cpp).
 */
#include <cuda_runtime.h>

#ifdef SCI_HT_EMU
#include "cuda/common/warp_emu.h"
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda/common/devbuf.cuh"
#include "htj2k.h"
#include "codec/j2k/ht_tables.h"

#if defined(__CUDACC__) && !defined(SCI_HT_EMU)
#define HT_D __device__ __forceinline__
#define HT_LDG(p) __ldg(p)
#define HT_CLZ(x) __clz(x)
#else
#define HT_D static inline
#define HT_LDG(p) (*(p))
#define HT_CLZ(x) __builtin_clz(x)
#endif

#define HT_SIGN 0x80000000u
#define HT_MAX_SCUP 4079u

/* ---- device data ---------------------------------------------------------- */

typedef struct {
    unsigned long long base; /* first coefficient, in samples */
    unsigned long long slot; /* arena offset */
    uint32_t stride;         /* component width */
    uint32_t w, h;
    uint32_t ms_cap;         /* MagSgn part of the slot */
    uint32_t tail;           /* MEL + VLC part of the slot */
    uint32_t pad;
} ht_blk;

typedef struct {
    float inv_step; /* 9/7 */
    uint32_t limit; /* 2^mb - 1 */
} ht_qp;

typedef struct {
    const ht_blk *blk;
    const ht_qp *qp;
    const uint16_t *lut; /* sci_ht_enc_tables.vlc, [2][2048] */
    const void *coeffs;
    uint8_t *arena;
    int *len;
    unsigned nblocks;
} ht_params;

/* ---- writers (codec/j2k/ht_block.c, state in registers) ------------------------ */

typedef struct {
    uint8_t *buf;
    uint32_t pos, cap, tmp, used, room;
    int overflow;
} ms_w;

HT_D void ms_finish(ms_w &w) {
    if (w.used) {
        w.tmp |= (0xFFu >> (8 - (w.room - w.used))) << w.used;
        if (w.tmp != 0xFF) {
            if (w.pos < w.cap)
                w.buf[w.pos] = (uint8_t)w.tmp;
            else
                w.overflow = 1;
            w.pos++;
        }
    } else if (w.room == 7) {
        w.pos--;
    }
}

typedef struct {
    uint8_t *buf; /* the tail's start */
    uint32_t pos, cap;
    uint32_t tmp, free_bits, run, k, threshold;
    int overflow;
} mel_w;

/* Run-length exponent of MEL state k: 0 0 0 1 1 1 2 2 2 3 3 4 5. */
HT_D unsigned mel_exp(unsigned k) {
    return k < 9 ? k / 3 : k < 11 ? 3 : k - 7;
}

HT_D void mel_bit(mel_w &m, unsigned b) {
    m.tmp = (m.tmp << 1) | b;
    if (--m.free_bits == 0) {
        if (m.pos < m.cap)
            m.buf[m.pos++] = (uint8_t)m.tmp;
        else
            m.overflow = 1;
        m.free_bits = m.tmp == 0xFF ? 7 : 8;
        m.tmp = 0;
    }
}

HT_D void mel_event(mel_w &m, int one) {
    if (!one) {
        if (++m.run >= m.threshold) {
            mel_bit(m, 1);
            m.run = 0;
            if (m.k < 12)
                m.k++;
            m.threshold = 1u << mel_exp(m.k);
        }
        return;
    }
    mel_bit(m, 0);
    for (unsigned e = mel_exp(m.k); e > 0; e--)
        mel_bit(m, (m.run >> (e - 1)) & 1);
    m.run = 0;
    if (m.k > 0)
        m.k--;
    m.threshold = 1u << mel_exp(m.k);
}

typedef struct {
    uint8_t *end; /* one past the slot: byte i written is end[-1 - i] */
    uint32_t pos, cap, tmp, used;
    int after_8f;
    int overflow;
} vlc_w;

HT_D void vlc_put_byte(vlc_w &v, unsigned byte) {
    if (v.pos < v.cap)
        v.end[-1 - (int)v.pos] = (uint8_t)byte;
    else
        v.overflow = 1;
    v.pos++;
}

HT_D void mel_vlc_finish(mel_w &m, vlc_w &v) {
    if (m.run > 0)
        mel_bit(m, 1);
    unsigned mel_byte = (m.tmp << m.free_bits) & 0xFF;
    unsigned mel_mask = (0xFFu << m.free_bits) & 0xFF;
    unsigned vlc_mask = 0xFFu >> (8 - v.used);
    if ((mel_mask | vlc_mask) == 0)
        return;
    unsigned fused = mel_byte | v.tmp;
    if ((((fused ^ mel_byte) & mel_mask) | ((fused ^ v.tmp) & vlc_mask)) == 0 &&
        fused != 0xFF && v.pos > 1) {
        if (m.pos < m.cap)
            m.buf[m.pos++] = (uint8_t)fused;
        else
            m.overflow = 1;
    } else {
        if (m.pos < m.cap)
            m.buf[m.pos++] = (uint8_t)mel_byte;
        else
            m.overflow = 1;
        vlc_put_byte(v, v.tmp);
    }
}

/* ---- samples --------------------------------------------------------------- */

/* Sign-magnitude index of one coefficient, as code_blocks() in
 * codec/j2k/htj2k.c makes it; *bad set when a 5/3 magnitude exceeds limit. */
template <bool IRREV>
HT_D uint32_t sample(const void *coeffs, size_t at, const ht_qp &q, int &bad) {
    if (IRREV) {
        float v = HT_LDG((const float *)coeffs + at);
        float a = fabsf(v) * q.inv_step;
        uint32_t m = a >= (float)q.limit ? q.limit : (uint32_t)a;
        return m ? m | (v < 0 ? HT_SIGN : 0) : 0;
    }
    int32_t v = HT_LDG((const int32_t *)coeffs + at);
    uint32_t a = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
    if (a > q.limit)
        bad = 1;
    return a ? a | (v < 0 ? HT_SIGN : 0) : 0;
}

/* Exponent of a magnitude, the bit length of 2 mu - 1; 0 for mu = 0. */
HT_D unsigned exponent(uint32_t s) {
    uint32_t mu = s & ~HT_SIGN;
    return mu ? 32u - (unsigned)HT_CLZ(2 * mu - 1) : 0u;
}

#include "ht_warp.cuh"

/* ---- kernels ------------------------------------------------------------------ */

#define CODE_NT 128 /* four warps, a code-block each */
#define SCAN_NT 1024
#define COMPACT_NT 256

#ifndef SCI_HT_EMU
template <bool IRREV>
__global__ void __launch_bounds__(CODE_NT) ht_code(const __grid_constant__ ht_params p) {
    __shared__ htw_smem sm[CODE_NT / 32];
    unsigned w = threadIdx.x >> 5, lane = threadIdx.x & 31;
    unsigned i = blockIdx.x * (CODE_NT / 32) + w;
    if (i >= p.nblocks)
        return; /* the whole warp */
    int len = w_code_block<IRREV>(p, i, lane, &sm[w]);
    if (lane == 0)
        p.len[i] = len;
}

/* Exclusive scan of len (negative counts as 0) into off, the sum in *total. */
__global__ void __launch_bounds__(SCAN_NT) ht_scan(const int *len,
        unsigned long long *off, unsigned long long *total, unsigned n) {
    __shared__ unsigned long long part[SCAN_NT];
    unsigned t = threadIdx.x, per = (n + SCAN_NT - 1) / SCAN_NT;
    unsigned a = t * per, e = a + per < n ? a + per : n;
    unsigned long long s = 0;
    for (unsigned i = a; i < e; i++)
        s += len[i] > 0 ? (unsigned)len[i] : 0u;
    part[t] = s;
    __syncthreads();
    for (unsigned d = 1; d < SCAN_NT; d <<= 1) {
        unsigned long long v = t >= d ? part[t - d] : 0;
        __syncthreads();
        part[t] += v;
        __syncthreads();
    }
    s = part[t] - s; /* exclusive */
    for (unsigned i = a; i < e; i++) {
        off[i] = s;
        s += len[i] > 0 ? (unsigned)len[i] : 0u;
    }
    if (t == SCAN_NT - 1)
        *total = part[t];
}

/* A warp a block: its bytes from its slot to their packed place. */
__global__ void __launch_bounds__(COMPACT_NT) ht_compact(const ht_blk *blk,
        const int *len, const unsigned long long *off, const uint8_t *arena,
        uint8_t *dst, unsigned n) {
    unsigned lane = threadIdx.x & 31;
    unsigned warps = gridDim.x * (COMPACT_NT / 32);
    for (unsigned i = (blockIdx.x * COMPACT_NT + threadIdx.x) >> 5; i < n;
         i += warps) {
        int l = len[i];
        if (l <= 0)
            continue;
        const uint8_t *s = arena + blk[i].slot;
        uint8_t *d = dst + off[i];
        for (int k = (int)lane; k < l; k += 32)
            d[k] = s[k];
    }
}
#endif

/* ---- host side ------------------------------------------------------------------ */

struct sci_cuda_ht {
    sci_htj2k_enc *enc;
    int irrev;
    int rate;
    unsigned nblocks;
    /* device */
    ht_blk *d_blk;
    ht_qp *d_qp;
    uint16_t *d_lut;
    uint8_t *d_arena;
    uint8_t *d_packed;
    int *d_len;
    unsigned long long *d_off;
    unsigned long long *d_total;
    size_t arena_size;
    size_t dev_bytes;
    /* pinned host */
    ht_qp *h_qp;
    int *h_len;
    unsigned long long *h_total;
    uint8_t *h_packed;
    /* host */
    long *len;
    size_t *off;             /* scan of len: block i's place in d_packed */
    size_t total;            /* bytes of all blocks, the last frame */
    sci_htj2k_span *spans;   /* where each packet's body goes in out */
    size_t max_spans;
    double qp_qstep; /* the step h_qp / d_qp hold (9/7) */
    int qp_valid;
    /* timing */
    int timing;
    cudaEvent_t ev[3];
    cudaEvent_t ev_len;      /* the lengths are on the host */
    sci_cuda_ht_times times;
    /* rate-control callback state */
    const void *cur_coeffs;
    cudaStream_t cur_stream;
    int cur_err;
};

/* Bytes MEL plus VLC can take for q quads: the VLC at most 7 + 12 bits a
 * quad, MEL at most 6 bits for each of 1.5 q events, 8 bits in 7 after
 * stuffing, plus the Scup byte, the flushes and the fused byte. */
static uint32_t tail_bound(size_t quads) {
    size_t n = (quads * 19 + 6) / 7 + (quads * 9 + 13) / 7 + 8;
    return n > HT_MAX_SCUP ? HT_MAX_SCUP : (uint32_t)n;
}

static void refresh_qp(sci_cuda_ht *h) {
    for (unsigned i = 0; i < h->nblocks; i++) {
        sci_htj2k_block_info info;
        sci_htj2k_block_get(h->enc, i, &info);
        h->h_qp[i].limit = (1u << info.mb) - 1;
        h->h_qp[i].inv_step = h->irrev ? sci_htj2k_block_inv_step(h->enc, i) : 0.0f;
    }
}

/* Uploads the blocks' steps when the encoder's changed since. */
static cudaError_t sync_qp(sci_cuda_ht *h, cudaStream_t s) {
    double q = sci_htj2k_last_qstep(h->enc);
    if (h->qp_valid && (!h->irrev || q == h->qp_qstep))
        return cudaSuccess;
    /* the previous upload from h_qp may still be in flight */
    cudaError_t err = cudaStreamSynchronize(s);
    if (err)
        return err;
    refresh_qp(h);
    err = cudaMemcpyAsync(h->d_qp, h->h_qp, h->nblocks * sizeof(ht_qp),
                          cudaMemcpyHostToDevice, s);
    if (!err) {
        h->qp_valid = 1;
        h->qp_qstep = q;
    }
    return err;
}

static cudaError_t launch_code(sci_cuda_ht *h, const void *coeffs, cudaStream_t s) {
    ht_params p;
    p.blk = h->d_blk;
    p.qp = h->d_qp;
    p.lut = h->d_lut;
    p.coeffs = coeffs;
    p.arena = h->d_arena;
    p.len = h->d_len;
    p.nblocks = h->nblocks;
    h->times.trials++;
#ifdef SCI_HT_EMU
    (void)s;
    static htw_smem sm;
    for (unsigned i = 0; i < h->nblocks; i++) {
        /* garbage in, so that a read of a word no lane wrote shows */
        memset(&sm, 0x5a, sizeof sm);
        warp_emu_run([&](unsigned lane) {
            int l = h->irrev ? w_code_block<true>(p, i, lane, &sm)
                             : w_code_block<false>(p, i, lane, &sm);
            if (lane == 0)
                p.len[i] = l;
        });
    }
    return cudaSuccess;
#else
    unsigned grid = (h->nblocks + CODE_NT / 32 - 1) / (CODE_NT / 32);
    if (h->irrev)
        ht_code<true><<<grid, CODE_NT, 0, s>>>(p);
    else
        ht_code<false><<<grid, CODE_NT, 0, s>>>(p);
    return cudaGetLastError();
#endif
}

static cudaError_t launch_pack(sci_cuda_ht *h, cudaStream_t s) {
#ifdef SCI_HT_EMU
    (void)s;
    unsigned long long o = 0;
    for (unsigned i = 0; i < h->nblocks; i++) {
        h->d_off[i] = o;
        o += h->d_len[i] > 0 ? (unsigned)h->d_len[i] : 0u;
    }
    *h->d_total = o;
    for (unsigned i = 0; i < h->nblocks; i++)
        if (h->d_len[i] > 0)
            memcpy(h->d_packed + h->d_off[i], h->d_arena + h->d_blk[i].slot,
                   (size_t)h->d_len[i]);
    return cudaSuccess;
#else
    ht_scan<<<1, SCAN_NT, 0, s>>>(h->d_len, h->d_off, h->d_total, h->nblocks);
    unsigned grid = (h->nblocks + COMPACT_NT / 32 - 1) / (COMPACT_NT / 32);
    if (grid > 4096)
        grid = 4096;
    ht_compact<<<grid, COMPACT_NT, 0, s>>>(h->d_blk, h->d_len, h->d_off,
                                           h->d_arena, h->d_packed, h->nblocks);
    return cudaGetLastError();
#endif
}

/* Lengths back to the host (into h->len): a cudaError_t, or
 * SCI_CUDA_HT_ERR_BLOCK when a block failed. */
static int fetch_lengths(sci_cuda_ht *h, cudaStream_t s) {
    cudaError_t err = cudaMemcpyAsync(h->h_len, h->d_len, h->nblocks * sizeof(int),
                                      cudaMemcpyDeviceToHost, s);
    if (!err)
        err = cudaStreamSynchronize(s);
    if (err)
        return err;
    for (unsigned i = 0; i < h->nblocks; i++) {
        if (h->h_len[i] < 0)
            return SCI_CUDA_HT_ERR_BLOCK;
        h->len[i] = h->h_len[i];
    }
    return cudaSuccess;
}

static long rate_trial(void *ctx, long *len) {
    sci_cuda_ht *h = (sci_cuda_ht *)ctx;
    int err = sync_qp(h, h->cur_stream);
    if (!err)
        err = launch_code(h, h->cur_coeffs, h->cur_stream);
    if (!err)
        err = fetch_lengths(h, h->cur_stream);
    if (err) {
        h->cur_err = (int)err;
        return -1;
    }
    for (unsigned i = 0; i < h->nblocks; i++)
        len[i] = h->len[i];
    return 0;
}

static double host_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* Is `p` memory the GPU can copy into directly (pinned, registered or
 * managed)?  Pageable memory makes CUDA stage every copy. */
static int host_is_pinned(const void *p) {
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError(); /* older runtimes fail on pageable memory */
        return 0;
    }
    return a.type == cudaMemoryTypeHost || a.type == cudaMemoryTypeManaged;
}

extern "C" int sci_cuda_ht_encode(sci_cuda_ht *h, const void *d_coeffs,
                                  uint8_t *out, size_t cap, size_t *out_len,
                                  void *stream) {
    cudaStream_t s = (cudaStream_t)stream;
    int err = cudaSuccess;
    *out_len = 0;
    h->times.trials = 0;
    h->times.write_ms = h->times.d2h_ms = 0;
    if (h->timing && (err = cudaEventRecord(h->ev[0], s)))
        return err;
    if (h->nblocks) {
        if (h->rate) {
            /* leaves the lengths of the chosen step in h->len */
            h->cur_coeffs = d_coeffs;
            h->cur_stream = s;
            h->cur_err = 0;
            if (sci_htj2k_search_rate(h->enc, rate_trial, h) < 0)
                return h->cur_err ? h->cur_err : SCI_CUDA_HT_ERR_BLOCK;
        } else {
            err = sync_qp(h, s);
            if (!err)
                err = launch_code(h, d_coeffs, s);
            if (err)
                return err;
        }
    }
    if (h->timing && (err = cudaEventRecord(h->ev[1], s)))
        return err;
    if (h->nblocks) {
        /* lengths first (the rate search has them already), then the
         * compaction runs while the host writes the headers */
        if (!h->rate) {
            err = cudaMemcpyAsync(h->h_len, h->d_len, h->nblocks * sizeof(int),
                                  cudaMemcpyDeviceToHost, s);
            if (!err)
                err = cudaEventRecord(h->ev_len, s);
        }
        if (!err)
            err = launch_pack(h, s);
        if (!err)
            err = cudaMemcpyAsync(h->h_total, h->d_total, sizeof(*h->h_total),
                                  cudaMemcpyDeviceToHost, s);
        if (err)
            return err;
    }
    if (h->timing && (err = cudaEventRecord(h->ev[2], s)))
        return err;
    if (h->nblocks && !h->rate) {
        if ((err = cudaEventSynchronize(h->ev_len)))
            return err;
        for (unsigned i = 0; i < h->nblocks; i++) {
            if (h->h_len[i] < 0) {
                cudaStreamSynchronize(s);
                return SCI_CUDA_HT_ERR_BLOCK;
            }
            h->len[i] = h->h_len[i];
        }
    }
    size_t o = 0;
    for (unsigned i = 0; i < h->nblocks; i++) {
        h->off[i] = o;
        o += (size_t)h->len[i];
    }
    h->total = o;
    int direct = host_is_pinned(out);
    if (!direct && o)
        err = cudaMemcpyAsync(h->h_packed, h->d_packed, o, cudaMemcpyDeviceToHost, s);
    if (err)
        return err;

    double t0 = host_ms();
    size_t ns = 0;
    size_t n = sci_htj2k_write_frame(h->enc, h->len, out, cap, h->spans, &ns);
    double t1 = host_ms();
    for (size_t k = 0; k < ns && direct && !err; k++)
        err = cudaMemcpyAsync(out + h->spans[k].dst, h->d_packed + h->off[h->spans[k].first],
                              h->spans[k].bytes, cudaMemcpyDeviceToHost, s);
    cudaError_t serr = cudaStreamSynchronize(s);
    if (err || serr)
        return err ? err : serr;
    for (size_t k = 0; k < ns && !direct; k++)
        memcpy(out + h->spans[k].dst, h->h_packed + h->off[h->spans[k].first],
               h->spans[k].bytes);
    if (h->timing) {
        h->times.write_ms = (float)(t1 - t0);
        h->times.d2h_ms = (float)(host_ms() - t1);
        cudaEventElapsedTime(&h->times.code_ms, h->ev[0], h->ev[1]);
        cudaEventElapsedTime(&h->times.compact_ms, h->ev[1], h->ev[2]);
    }
    if (h->nblocks && *h->h_total != (unsigned long long)o)
        return SCI_CUDA_HT_ERR_BLOCK; /* the device scan disagrees */
    if (!n)
        return SCI_CUDA_HT_ERR_CAP;
    *out_len = n;
    return cudaSuccess;
}

extern "C" void sci_cuda_ht_destroy(sci_cuda_ht *h) {
    if (!h)
        return;
    cudaFree(h->d_blk);
    cudaFree(h->d_qp);
    cudaFree(h->d_lut);
    cudaFree(h->d_arena);
    cudaFree(h->d_packed);
    cudaFree(h->d_len);
    cudaFree(h->d_off);
    cudaFree(h->d_total);
    cudaFreeHost(h->h_qp);
    cudaFreeHost(h->h_len);
    cudaFreeHost(h->h_total);
    cudaFreeHost(h->h_packed);
    for (int k = 0; k < 3; k++)
        if (h->ev[k])
            cudaEventDestroy(h->ev[k]);
    if (h->ev_len)
        cudaEventDestroy(h->ev_len);
    free(h->len);
    free(h->off);
    free(h->spans);
    free(h);
}

extern "C" int sci_cuda_ht_create(sci_cuda_ht **out, sci_htj2k_enc *enc,
                                  const sci_wt_geometry *g,
                                  const sci_htj2k_params *par) {
    *out = NULL;
    size_t nb = sci_htj2k_block_count(enc);
    if (nb > 0x7FFFFFFFu)
        return cudaErrorInvalidValue;
    sci_cuda_ht *h = (sci_cuda_ht *)calloc(1, sizeof(*h));
    if (!h)
        return cudaErrorMemoryAllocation;
    h->enc = enc;
    h->irrev = g->filter == SCI_DWT_97;
    h->rate = h->irrev && par->bitrate > 0;
    h->nblocks = (unsigned)nb;
    h->len = (long *)calloc(nb ? nb : 1, sizeof(long));
    h->off = (size_t *)calloc(nb ? nb : 1, sizeof(size_t));
    h->max_spans = sci_htj2k_packet_count(enc);
    h->spans = (sci_htj2k_span *)calloc(h->max_spans ? h->max_spans : 1,
                                        sizeof(sci_htj2k_span));
    ht_blk *blk = (ht_blk *)calloc(nb ? nb : 1, sizeof(ht_blk));
    cudaError_t err = cudaSuccess;
    if (!h->len || !h->off || !h->spans || !blk)
        err = cudaErrorMemoryAllocation;

    /* slots: MagSgn sized for the most bit-planes a band can get (30 for
     * 9/7, whose steps rate control changes), then the MEL + VLC tail */
    size_t arena = 0;
    for (size_t i = 0; !err && i < nb; i++) {
        sci_htj2k_block_info info;
        sci_htj2k_block_get(enc, i, &info);
        size_t n = (size_t)info.w * info.h;
        unsigned mb = h->irrev ? 30 : info.mb;
        blk[i].base = sci_htj2k_comp_offset(enc, info.comp) +
                      (size_t)info.y0 * sci_wt_comp_width(g, info.comp) + info.x0;
        blk[i].stride = sci_wt_comp_width(g, info.comp);
        blk[i].w = info.w;
        blk[i].h = info.h;
        blk[i].ms_cap = (uint32_t)((n * (mb + 1) + 6) / 7 + 2);
        blk[i].tail = tail_bound((size_t)((info.w + 1) / 2) * ((info.h + 1) / 2));
        blk[i].slot = arena;
        arena += blk[i].ms_cap + blk[i].tail;
    }
    h->arena_size = arena;
    if (!err)
        err = dev_alloc(&h->dev_bytes, &h->d_blk, nb);
    if (!err)
        err = dev_alloc(&h->dev_bytes, &h->d_qp, nb);
    if (!err)
        err = dev_alloc(&h->dev_bytes, &h->d_lut, 4096);
    if (!err)
        err = dev_alloc(&h->dev_bytes, &h->d_arena, arena);
    if (!err)
        err = dev_alloc(&h->dev_bytes, &h->d_packed, arena);
    if (!err)
        err = dev_alloc(&h->dev_bytes, &h->d_len, nb);
    if (!err)
        err = dev_alloc(&h->dev_bytes, &h->d_off, nb);
    if (!err)
        err = dev_alloc(&h->dev_bytes, &h->d_total, 1);
    if (!err)
        err = host_alloc(&h->h_qp, nb);
    if (!err)
        err = host_alloc(&h->h_len, nb);
    if (!err)
        err = host_alloc(&h->h_total, 1);
    if (!err)
        err = host_alloc(&h->h_packed, arena);
    for (int k = 0; k < 3 && !err; k++)
        err = cudaEventCreate(&h->ev[k]);
    if (!err)
        err = cudaEventCreateWithFlags(&h->ev_len, cudaEventDisableTiming);
    if (!err)
        err = cudaMemcpy(h->d_blk, blk, nb * sizeof(ht_blk), cudaMemcpyHostToDevice);
    if (!err)
        err = cudaMemcpy(h->d_lut, sci_htj2k_tables(enc)->vlc, 4096 * sizeof(uint16_t),
                         cudaMemcpyHostToDevice);
    free(blk);
    if (err) {
        sci_cuda_ht_destroy(h);
        return err;
    }
    *out = h;
    return cudaSuccess;
}

extern "C" size_t sci_cuda_ht_device_bytes(const sci_cuda_ht *h) {
    return h->dev_bytes;
}

extern "C" void sci_cuda_ht_set_timing(sci_cuda_ht *h, int on) {
    h->timing = on;
}

extern "C" void sci_cuda_ht_get_times(const sci_cuda_ht *h, sci_cuda_ht_times *t) {
    *t = h->times;
}

extern "C" void sci_cuda_ht_last_blocks(const sci_cuda_ht *h, const long **len,
                                        const uint8_t **bytes, const size_t **off) {
    /* the bodies went to out: fetch the compacted blocks again */
    if (h->total)
        cudaMemcpy(h->h_packed, h->d_packed, h->total, cudaMemcpyDeviceToHost);
    *len = h->len;
    *bytes = h->h_packed;
    *off = h->off;
}
