/*
 * The seismic decoder on the GPU (cuda/seismic/seismic.h).
 *
 * Host, per batch: each frame's code lengths become its canonical tables
 * (codec/seismic/huffman.c), and the index of each package's first symbol is the
 * running sum of the counts in the packages' top bits, summed while the
 * packages are copied into page-locked staging; a frame whose counts do not
 * add up to its gather is refused there.  One copy then takes descriptors,
 * tables, first indices and packages to the device.
 *
 * Device: a thread decodes a package (table-driven, the lookup table in
 * shared memory) and writes its coefficients dequantized; then each level
 * of the inverse DWT is two launches over the whole batch, rows then
 * columns, a thread per output pair computing what the reference's lifting
 * steps compute for it (an even sample, then the odd one from its two
 * even neighbours), so no launch reads what it writes: coefficients (C) ->
 * rows done (H) -> columns done (the output, T), the next level's low band
 * read from T.
 *
 * Built with SCI_SEIS_EMU, the kernels become host loops over the same
 * per-thread functions, for the emulated parity test (tests/seismic/seismic_emu.cpp).
 */
#include <cuda_runtime.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "seismic.h"
#include "codec/j2k/dwt.h"
#include "codec/seismic/huffman.h"
#include "codec/common/parallel.h"
#include "codec/seismic/seismic_core.h"
#include "cuda/common/devbuf.cuh"

#ifdef SCI_SEIS_EMU
#define DK static inline
#define DM inline /* member functions */
#else
#define DK __device__ __forceinline__
#define DM __device__ __forceinline__
#endif

#define LUT_ENTRIES (1u << SCI_HUFF_LOOKUP_BITS)
#define LIMITS (SCI_HUFF_MAX_LEN + 2)
/* per frame: lookup, first_code, first_index, then the sorted symbols */
#define TABLE_HEAD (LUT_ENTRIES + 2 * LIMITS)
#define DEC_THREADS 256
#define PKG_PER_THREAD 4
#define PKG_PER_BLOCK (DEC_THREADS * PKG_PER_THREAD)
#define DWT_THREADS 256
#define RED_THREADS 256

struct seis_frame {
    const uint32_t *table;
    const uint64_t *pkg;
    const uint32_t *start; /* first symbol of each package, then n */
    uint32_t npkg;
    uint32_t w, h, levels; /* levels: those that change anything */
    sci_seis_grid grid;
    unsigned max_len;
    unsigned version; /* from 3, run packages */
    unsigned nsym;
    float *coef; /* dequantized coefficients (the output when levels = 0) */
    float *tmp;  /* rows inverted, columns not yet */
    float *out;
    uint16_t *q;
};

struct block_job {
    uint32_t frame, pkg0;
};

struct sci_cuda_seis {
    dbuf stage_host; /* pinned */
    dbuf stage_dev;
    dbuf coef, tmp;
    dbuf status;
    /* encoder: descriptors and statistics, transform scratch, indices */
    dbuf enc_dev, enc_host, enc_coef, enc_tmp, enc_q, enc_q_host;
    int timing;
    cudaEvent_t ev[4];
    sci_cuda_seis_times times;
    sci_pool *pool; /* the host's work on a batch, a frame a call */
};

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

extern "C" int sci_cuda_seis_set_timing(sci_cuda_seis *s, int on) {
    if (on && !s->timing) {
        int e = events_create(s->ev, 4);
        if (e)
            return e;
    } else if (!on && s->timing) {
        events_destroy(s->ev, 4);
    }
    s->timing = on != 0;
    return 0;
}

extern "C" void sci_cuda_seis_get_times(const sci_cuda_seis *s,
                                        sci_cuda_seis_times *t) {
    *t = s->times;
}

extern "C" void sci_cuda_seis_set_pool(sci_cuda_seis *s, sci_pool *pool) {
    s->pool = pool;
}

/* ---- package decoding ---------------------------------------------------- */

/* sci_huff_unpack on one package, writing the symbols' coefficients (and
 * indices) from index `first`; false when the package is not one an
 * encoder writes or holds a count other than `count`. */
DK bool decode_package(const seis_frame &f, const uint32_t *lut,
                       uint64_t pkg, uint32_t first, uint32_t count) {
    if (sci_seis_package_is_run(pkg, f.version)) {
        /* count came from this package (stage_frames' sums, which
         * refuse a frame with a count of 0) */
        const uint32_t v = sci_seis_run_symbol(pkg);
        if (v >= f.nsym)
            return false;
        const float c = sci_seis_dequantize_one(v, &f.grid);
        for (uint32_t k = 0; k < count; k++) {
            f.coef[first + k] = c;
            if (f.q)
                f.q[first + k] = (uint16_t)v;
        }
        return true;
    }
    const unsigned n = (unsigned)(pkg >> SCI_HUFF_PACKAGE_BITS);
    const uint64_t bits = pkg & ((1ull << SCI_HUFF_PACKAGE_BITS) - 1);
    const uint32_t *first_code = f.table + LUT_ENTRIES;
    const uint32_t *first_index = first_code + LIMITS;
    const uint32_t *sorted = f.table + TABLE_HEAD;
    const unsigned lb = SCI_HUFF_LOOKUP_BITS;
    unsigned pos = SCI_HUFF_PACKAGE_BITS;
    if (n != count || n == 0)
        return false;
    for (unsigned k = 0; k < n; k++) {
        uint32_t v = (uint32_t)(pos >= lb ? bits >> (pos - lb)
                                          : bits << (lb - pos)) &
                     (LUT_ENTRIES - 1);
        uint32_t e = lut[v], sym;
        unsigned l = e & 31;
        if (l) {
            if (l > pos)
                return false;
            sym = e >> 5;
        } else {
            for (l = lb + 1;; l++) {
                if (l > f.max_len || l > pos)
                    return false;
                uint32_t code = (uint32_t)(bits >> (pos - l)) & ((1u << l) - 1);
                uint32_t off = code - first_code[l];
                if (code >= first_code[l] &&
                    off < first_index[l + 1] - first_index[l]) {
                    sym = sorted[first_index[l] + off];
                    break;
                }
            }
        }
        pos -= l;
        f.coef[first + k] = sci_seis_dequantize_one(sym, &f.grid);
        if (f.q)
            f.q[first + k] = (uint16_t)sym;
    }
    return !(pos && (bits & ((1ull << pos) - 1)));
}

DK void decode_item(const seis_frame &f, const uint32_t *lut, uint32_t i,
                    int *status) {
    if (!decode_package(f, lut, f.pkg[i], f.start[i],
                        f.start[i + 1] - f.start[i]))
        *status = SCI_SEIS_E_DATA;
}

/* ---- inverse lifting, a pair of outputs a thread -------------------------- */

/* One 1-D inverse float 5/3 of n samples whose low band s (nl = (n+1)/2
 * values) and high band d are read through get(k) and get(nl + k), as
 * sci_dwt53f_inverse does it: even x[2k] = s[k] + -1/4 (d_left + d_right),
 * then odd x[2k+1] = d[k] + 1/2 (x[2k] + x[2k+2]), neighbours mirrored at
 * the ends.  A signal of one sample passes unchanged. */
template <typename G>
DK float even_out(const G &get, uint32_t n, uint32_t nl, uint32_t k) {
    if (n == 1)
        return get(0);
    float dl = get(nl + (k > 0 ? k - 1 : 0));
    float dr = get(nl + (2 * k + 1 < n ? k : k - 1));
    return get(k) + -0.25f * (dl + dr);
}

template <typename G>
DK float odd_out(const G &get, uint32_t n, uint32_t nl, uint32_t k,
                 float e) {
    float er = 2 * k + 2 < n ? even_out(get, n, nl, k + 1) : e;
    return get(nl + k) + 0.5f * (e + er);
}

/* sci_dwt_low_len, for the device too. */
DK uint32_t low_len(uint32_t n, unsigned levels) {
    return (uint32_t)(((uint64_t)n + ((1ull << levels) - 1)) >> levels);
}

/* The region of level l (1-based): low_len(w, l-1) x low_len(h, l-1). */
DK bool level_region(const seis_frame &f, unsigned l, uint32_t *lw,
                     uint32_t *lh) {
    if (l > f.levels)
        return false;
    *lw = low_len(f.w, l - 1);
    *lh = low_len(f.h, l - 1);
    return true;
}

/* Rows of level l: item i is the pair k of row r; the low band of the
 * region's top rows is the level above's output (T), except at the top
 * level, where it is the decoded coefficients (C). */
struct row_src {
    const float *c, *t;
    uint32_t w, r, nlw, nlh;
    bool top;
    DM float operator()(uint32_t x) const {
        const float *p = !top && r < nlh && x < nlw ? t : c;
        return p[(size_t)r * w + x];
    }
};

DK void rows_item(const seis_frame &f, unsigned l, size_t i) {
    uint32_t lw, lh;
    if (!level_region(f, l, &lw, &lh))
        return;
    const uint32_t nl = (lw + 1) / 2;
    if (i >= (size_t)lh * nl)
        return;
    const uint32_t r = (uint32_t)(i / nl), k = (uint32_t)(i % nl);
    row_src g = {f.coef, f.out, f.w, r, nl, (lh + 1) / 2, l == f.levels};
    float *row = f.tmp + (size_t)r * f.w;
    float e = even_out(g, lw, nl, k);
    row[2 * k] = e;
    if (2 * k + 1 < lw)
        row[2 * k + 1] = odd_out(g, lw, nl, k, e);
}

struct col_src {
    const float *p;
    uint32_t w, c;
    DM float operator()(uint32_t y) const { return p[(size_t)y * w + c]; }
};

DK void cols_item(const seis_frame &f, unsigned l, size_t i) {
    uint32_t lw, lh;
    if (!level_region(f, l, &lw, &lh))
        return;
    const uint32_t nl = (lh + 1) / 2;
    if (i >= (size_t)nl * lw)
        return;
    const uint32_t k = (uint32_t)(i / lw), c = (uint32_t)(i % lw);
    col_src g = {f.tmp, f.w, c};
    float e = even_out(g, lh, nl, k);
    f.out[(size_t)(2 * k) * f.w + c] = e;
    if (2 * k + 1 < lh)
        f.out[(size_t)(2 * k + 1) * f.w + c] = odd_out(g, lh, nl, k, e);
}

/* ---- encoder: forward lifting, extremes, quantization ---------------------- */

struct enc_stat {
    unsigned min_key, max_key; /* ordered keys of the extremes */
    unsigned long long bad;    /* first non-finite sample, n if none */
    int overflow;              /* a coefficient is not finite */
    sci_seis_grid grid;
};

struct enc_frame {
    const float *in;
    float *coef; /* the transform (the input itself when levels = 0) */
    float *tmp;  /* columns done, rows not yet */
    uint16_t *q;
    uint32_t w, h, levels, bits; /* levels: those that change anything */
    enc_stat *st;
};

/* Float to an unsigned key of the same order (-0 below +0), and back. */
DK unsigned float_key(float f) {
    unsigned u;
    memcpy(&u, &f, 4);
    return u & 0x80000000u ? ~u : u | 0x80000000u;
}

DK float key_float(unsigned k) {
    unsigned u = k & 0x80000000u ? k & 0x7FFFFFFFu : ~k;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* One 1-D forward float 5/3 of n samples read through get(i), as
 * sci_dwt53f_forward does it: odd x[2k+1] += -1/2 (x[2k] + x[2k+2]), then
 * even x[2k] += 1/4 (d_left + d_right), neighbours mirrored. */
template <typename G>
DK float high_out(const G &get, uint32_t n, uint32_t k) {
    uint32_t i = 2 * k + 1;
    float b = get(i + 1 < n ? i + 1 : n - 2);
    return get(i) + -0.5f * (get(i - 1) + b);
}

template <typename G>
DK float low_out(const G &get, uint32_t n, uint32_t k) {
    if (n == 1)
        return get(0);
    uint32_t i = 2 * k;
    /* the odd neighbours, mirrored: x[-1] = x[1], x[n] = x[n-2] */
    float dl = high_out(get, n, k > 0 ? k - 1 : 0);
    float dr = high_out(get, n, i + 1 < n ? k : k - 1);
    return get(i) + 0.25f * (dl + dr);
}

struct plane_src {
    const float *p;
    uint32_t w, fixed;
    bool by_col; /* get(y) reads column `fixed`, else row `fixed` */
    DM float operator()(uint32_t v) const {
        return by_col ? p[(size_t)v * w + fixed] : p[(size_t)fixed * w + v];
    }
};

/* The region of forward level l: low_len(w, l-1) x low_len(h, l-1). */
DK bool enc_region(const enc_frame &f, unsigned l, uint32_t *lw,
                   uint32_t *lh) {
    if (l > f.levels)
        return false;
    *lw = low_len(f.w, l - 1);
    *lh = low_len(f.h, l - 1);
    return true;
}

/* Columns of level l: item i is the pair k of column c; level 1 reads
 * the input, deeper levels the low band in coef; writes tmp. */
DK void fwd_cols_item(const enc_frame &f, unsigned l, size_t i) {
    uint32_t lw, lh;
    if (!enc_region(f, l, &lw, &lh))
        return;
    const uint32_t nl = (lh + 1) / 2;
    if (i >= (size_t)nl * lw)
        return;
    const uint32_t k = (uint32_t)(i / lw), c = (uint32_t)(i % lw);
    plane_src g = {l == 1 ? f.in : f.coef, f.w, c, true};
    f.tmp[(size_t)k * f.w + c] = low_out(g, lh, k);
    if (2 * k + 1 < lh)
        f.tmp[(size_t)(nl + k) * f.w + c] = high_out(g, lh, k);
}

DK void fwd_rows_item(const enc_frame &f, unsigned l, size_t i) {
    uint32_t lw, lh;
    if (!enc_region(f, l, &lw, &lh))
        return;
    const uint32_t nl = (lw + 1) / 2;
    if (i >= (size_t)lh * nl)
        return;
    const uint32_t r = (uint32_t)(i / nl), k = (uint32_t)(i % nl);
    plane_src g = {f.tmp, f.w, r, false};
    float *row = f.coef + (size_t)r * f.w;
    row[k] = low_out(g, lw, k);
    if (2 * k + 1 < lw)
        row[nl + k] = high_out(g, lw, k);
}

DK void grid_item(const enc_frame &f) {
    enc_stat *st = f.st;
    /* +0.0f: a zero extreme is +0, as the reference makes it */
    st->grid = sci_seis_grid_of(key_float(st->min_key) + 0.0f,
                                key_float(st->max_key) + 0.0f, f.bits);
}

DK void quant_item(const enc_frame &f, size_t i) {
    if (i < (size_t)f.w * f.h)
        f.q[i] = (uint16_t)sci_seis_quantize_one(f.coef[i], &f.st->grid,
                                                 (1u << f.bits) - 1);
}

/* ---- kernels ----------------------------------------------------------------- */

#ifndef SCI_SEIS_EMU
__global__ void __launch_bounds__(DEC_THREADS)
    decode_kernel(const seis_frame *frames, const block_job *jobs,
                  int *status) {
    __shared__ uint32_t lut[LUT_ENTRIES];
    const block_job job = jobs[blockIdx.x];
    const seis_frame f = frames[job.frame];
    for (unsigned j = threadIdx.x; j < LUT_ENTRIES; j += DEC_THREADS)
        lut[j] = f.table[j];
    __syncthreads();
    for (unsigned j = 0; j < PKG_PER_THREAD; j++) {
        uint32_t i = job.pkg0 + j * DEC_THREADS + threadIdx.x;
        if (i < f.npkg)
            decode_item(f, lut, i, &status[job.frame]);
    }
}

__global__ void __launch_bounds__(DWT_THREADS)
    rows_kernel(const seis_frame *frames, unsigned l) {
    rows_item(frames[blockIdx.y], l,
              (size_t)blockIdx.x * DWT_THREADS + threadIdx.x);
}

__global__ void __launch_bounds__(DWT_THREADS)
    cols_kernel(const seis_frame *frames, unsigned l) {
    cols_item(frames[blockIdx.y], l,
              (size_t)blockIdx.x * DWT_THREADS + threadIdx.x);
}


__global__ void __launch_bounds__(RED_THREADS)
    check_kernel(const enc_frame *frames) {
    const enc_frame f = frames[blockIdx.y];
    size_t i = (size_t)blockIdx.x * RED_THREADS + threadIdx.x;
    if (i < (size_t)f.w * f.h && !isfinite(f.in[i]))
        atomicMin(&f.st->bad, (unsigned long long)i);
}

__global__ void __launch_bounds__(DWT_THREADS)
    fwd_cols_kernel(const enc_frame *frames, unsigned l) {
    fwd_cols_item(frames[blockIdx.y], l,
                  (size_t)blockIdx.x * DWT_THREADS + threadIdx.x);
}

__global__ void __launch_bounds__(DWT_THREADS)
    fwd_rows_kernel(const enc_frame *frames, unsigned l) {
    fwd_rows_item(frames[blockIdx.y], l,
                  (size_t)blockIdx.x * DWT_THREADS + threadIdx.x);
}

/* Extremes of each frame's coefficients: a block's, then atomics. */
__global__ void __launch_bounds__(RED_THREADS)
    minmax_kernel(const enc_frame *frames) {
    __shared__ unsigned lo[RED_THREADS], hi[RED_THREADS];
    __shared__ int bad;
    const enc_frame f = frames[blockIdx.y];
    const size_t n = (size_t)f.w * f.h;
    unsigned mn = 0xFFFFFFFFu, mx = 0;
    int ovf = 0;
    if (threadIdx.x == 0)
        bad = 0;
    for (size_t i = (size_t)blockIdx.x * RED_THREADS + threadIdx.x; i < n;
         i += (size_t)gridDim.x * RED_THREADS) {
        float c = f.coef[i];
        unsigned k = float_key(c);
        mn = k < mn ? k : mn;
        mx = k > mx ? k : mx;
        ovf |= !isfinite(c);
    }
    lo[threadIdx.x] = mn;
    hi[threadIdx.x] = mx;
    __syncthreads();
    if (ovf)
        bad = 1;
    for (unsigned w = RED_THREADS / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w) {
            lo[threadIdx.x] = min(lo[threadIdx.x], lo[threadIdx.x + w]);
            hi[threadIdx.x] = max(hi[threadIdx.x], hi[threadIdx.x + w]);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        atomicMin(&f.st->min_key, lo[0]);
        atomicMax(&f.st->max_key, hi[0]);
        if (bad)
            f.st->overflow = 1;
    }
}

__global__ void grid_kernel(const enc_frame *frames, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        grid_item(frames[i]);
}

__global__ void __launch_bounds__(RED_THREADS)
    quant_kernel(const enc_frame *frames) {
    quant_item(frames[blockIdx.y],
               (size_t)blockIdx.x * RED_THREADS + threadIdx.x);
}
#endif

/* ---- host ---------------------------------------------------------------------- */

extern "C" int sci_cuda_seis_create(sci_cuda_seis **out) {
    sci_cuda_seis *s = (sci_cuda_seis *)calloc(1, sizeof *s);
    if (!s)
        return SCI_SEIS_E_NOMEM;
    *out = s;
    return 0;
}

extern "C" void sci_cuda_seis_destroy(sci_cuda_seis *s) {
    if (!s)
        return;
    sci_cuda_seis_set_timing(s, 0);
    cudaFreeHost(s->stage_host.p);
    cudaFree(s->stage_dev.p);
    cudaFree(s->coef.p);
    cudaFree(s->tmp.p);
    cudaFree(s->status.p);
    cudaFree(s->enc_dev.p);
    cudaFreeHost(s->enc_host.p);
    cudaFree(s->enc_coef.p);
    cudaFree(s->enc_tmp.p);
    cudaFree(s->enc_q.p);
    cudaFreeHost(s->enc_q_host.p);
    free(s);
}

static size_t align_up(size_t v, size_t a) {
    return (v + a - 1) / a * a;
}


/* What the host learns of one frame before staging it. */
struct frame_plan {
    sci_huff_code code;
    int err;
    size_t table_at, start_at, pkg_at; /* offsets in the staging area */
    size_t coef_at;                    /* in floats, in C and H */
};

static int cuda_err(cudaError_t e) {
    return e == cudaSuccess ? 0 : (int)e;
}

/* The host's share of a batch decode, a frame a call. */
struct decode_args {
    const uint8_t *const *frames;
    const sci_seis_info *info;
    frame_plan *plan;
    uint8_t *hb; /* the staging area */
};

/* Frames [b, e)'s code tables. */
static void build_tables(void *arg, size_t b, size_t e, unsigned) {
    const decode_args *a = (const decode_args *)arg;
    for (size_t i = b; i < e; i++) {
        const sci_seis_info *in = &a->info[i];
        frame_plan *pl = &a->plan[i];
        uint8_t *len = (uint8_t *)malloc((size_t)1 << in->p.bits);
        int err = len ? sci_seis_code_lengths(a->frames[i], in, len)
                      : SCI_SEIS_E_NOMEM;
        if (!err && sci_huff_build(len, 1u << in->p.bits, &pl->code))
            err = SCI_SEIS_E_DATA;
        pl->err = err;
        free(len);
    }
}

/* Frames [b, e)'s tables, first indices and packages into the staging
 * area. */
static void stage_frames(void *arg, size_t b, size_t e, unsigned) {
    const decode_args *a = (const decode_args *)arg;
    uint8_t *hb = a->hb;
    for (size_t i = b; i < e; i++) {
        frame_plan *pl = &a->plan[i];
        const sci_seis_info *in = &a->info[i];
        if (pl->err)
            continue;
        const sci_huff_code *c = &pl->code;
        uint32_t *t = (uint32_t *)(hb + pl->table_at);
        memcpy(t, c->lookup, LUT_ENTRIES * 4);
        memcpy(t + LUT_ENTRIES, c->first_code, LIMITS * 4);
        memcpy(t + LUT_ENTRIES + LIMITS, c->first_index, LIMITS * 4);
        memcpy(t + TABLE_HEAD, c->sorted,
               (size_t)c->first_index[SCI_HUFF_MAX_LEN + 1] * 4);
        const uint8_t *src = a->frames[i] + in->pkg_off;
        uint32_t *start = (uint32_t *)(hb + pl->start_at);
        uint64_t sum = 0;
        int zero_count = 0;
        for (uint32_t p = 0; p < in->packages; p++) {
            uint64_t pk;
            memcpy(&pk, src + 8 * (size_t)p, 8); /* little-endian, as CUDA hosts */
            uint32_t c = sci_seis_package_count(pk, in->version);
            zero_count |= c == 0;
            start[p] = (uint32_t)sum;
            sum += c;
        }
        start[in->packages] = (uint32_t)sum;
        /* the frame is little-endian, and so is every CUDA host */
        memcpy(hb + pl->pkg_at, src, (size_t)in->packages * 8);
        if (zero_count || sum != (uint64_t)in->p.traces * in->p.samples)
            pl->err = SCI_SEIS_E_DATA;
    }
}

extern "C" int sci_cuda_seis_decode(sci_cuda_seis *s, unsigned n,
                                    const uint8_t *const frames[],
                                    const sci_seis_info info[],
                                    float *const out[],
                                    uint16_t *const q[], int status[],
                                    void *stream) {
    cudaStream_t st = (cudaStream_t)stream;
    if (!s || !frames || !info || !out)
        return SCI_SEIS_E_ARG;
    if (n == 0)
        return 0;
    frame_plan *plan = (frame_plan *)calloc(n, sizeof *plan);
    int *stat = (int *)calloc(n, sizeof *stat);
    if (!plan || !stat) {
        free(plan);
        free(stat);
        return SCI_SEIS_E_NOMEM;
    }
    int err = 0;
    const double t0 = now_ms();
    memset(&s->times, 0, sizeof s->times);

    /* tables, and the staging layout */
    size_t at = align_up(n * sizeof(seis_frame), 16), coefs = 0, jobs = 0;
    decode_args da = {frames, info, plan, NULL};
    sci_pool_for(s->pool, n, 1, build_tables, &da);
    for (unsigned i = 0; i < n; i++) {
        if (plan[i].err)
            continue;
        jobs += (info[i].packages + PKG_PER_BLOCK - 1) / PKG_PER_BLOCK;
    }
    size_t jobs_at = at;
    at = align_up(at + jobs * sizeof(block_job), 16);
    for (unsigned i = 0; i < n; i++) {
        if (plan[i].err)
            continue;
        unsigned used = 0;
        for (unsigned v = 0; v < plan[i].code.nsym; v++)
            used += plan[i].code.len[v] != 0;
        plan[i].table_at = at;
        at = align_up(at + (TABLE_HEAD + used) * 4, 16);
        plan[i].start_at = at;
        at = align_up(at + ((size_t)info[i].packages + 1) * 4, 16);
        plan[i].pkg_at = at;
        at = align_up(at + (size_t)info[i].packages * 8, 16);
        plan[i].coef_at = coefs;
        coefs += align_up((size_t)info[i].p.traces * info[i].p.samples, 64);
    }
    const size_t stage_bytes = at;
    if ((err = grow_mem(&s->stage_host, stage_bytes, 1)) ||
        (err = grow(&s->stage_dev, stage_bytes)) ||
        (err = grow(&s->coef, coefs * 4 + 4)) ||
        (err = grow(&s->tmp, coefs * 4 + 4)) ||
        (err = grow(&s->status, n * sizeof(int))))
        goto out;

    {
        uint8_t *hb = (uint8_t *)s->stage_host.p;
        uint8_t *db = (uint8_t *)s->stage_dev.p;
        seis_frame *desc = (seis_frame *)hb;
        block_job *job = (block_job *)(hb + jobs_at);
        unsigned max_levels = 0;
        size_t job_n = 0;
        uint32_t max_items[2] = {0, 0}; /* rows, columns launches */
        for (unsigned i = 0; i < n; i++) {
            const sci_seis_info *in = &info[i];
            seis_frame *f = &desc[i];
            memset(f, 0, sizeof *f);
            if (plan[i].err)
                continue;
            f->w = in->p.samples;
            f->h = in->p.traces;
            f->levels = sci_dwt_used_levels(f->w, f->h, in->p.levels);
            f->npkg = in->packages;
            f->grid = in->grid;
            f->max_len = plan[i].code.max_len;
            f->version = in->version;
            f->nsym = 1u << in->p.bits;
            f->table = (const uint32_t *)(db + plan[i].table_at);
            f->start = (const uint32_t *)(db + plan[i].start_at);
            f->pkg = (const uint64_t *)(db + plan[i].pkg_at);
            f->out = out[i];
            f->coef = f->levels ? (float *)s->coef.p + plan[i].coef_at
                                : out[i];
            f->tmp = (float *)s->tmp.p + plan[i].coef_at;
            f->q = q ? q[i] : NULL;
            if (f->levels > max_levels)
                max_levels = f->levels;
            for (uint32_t p0 = 0; p0 < in->packages; p0 += PKG_PER_BLOCK)
                job[job_n++] = {i, p0};
            /* the widest launch a level needs: level 1's */
            uint32_t nlw = (f->w + 1) / 2, nlh = (f->h + 1) / 2;
            uint64_t rows = (uint64_t)f->h * nlw, cols = (uint64_t)nlh * f->w;
            if (f->levels && rows > max_items[0])
                max_items[0] = (uint32_t)rows;
            if (f->levels && cols > max_items[1])
                max_items[1] = (uint32_t)cols;
        }
        /* tables, first indices and packages, a frame a call */
        da.hb = hb;
        sci_pool_for(s->pool, n, 1, stage_frames, &da);
        /* a frame refused just now: its blocks find npkg = 0 */
        for (unsigned i = 0; i < n; i++)
            if (plan[i].err)
                desc[i].npkg = 0;

        s->times.host = s->timing ? (float)(now_ms() - t0) : 0;
        events_mark(s->timing, s->ev, 0, st);
        if ((err = cuda_err(cudaMemcpyAsync(db, hb, stage_bytes,
                                            cudaMemcpyHostToDevice, st))) ||
            (err = cuda_err(cudaMemsetAsync(s->status.p, 0, n * sizeof(int),
                                            st))))
            goto out;
        const seis_frame *dframes = (const seis_frame *)db;
        const block_job *djobs = (const block_job *)(db + jobs_at);
        int *dstatus = (int *)s->status.p;
        events_mark(s->timing, s->ev, 1, st);
#ifdef SCI_SEIS_EMU
        for (size_t b = 0; b < job_n; b++) {
            const seis_frame &f = dframes[djobs[b].frame];
            for (uint32_t j = 0; j < PKG_PER_BLOCK; j++) {
                uint32_t i = djobs[b].pkg0 + j;
                if (i < f.npkg)
                    decode_item(f, f.table, i, &dstatus[djobs[b].frame]);
            }
        }
        events_mark(s->timing, s->ev, 2, st);
        for (unsigned l = max_levels; l >= 1; l--) {
            for (unsigned i = 0; i < n; i++)
                for (size_t k = 0; k < max_items[0]; k++)
                    rows_item(dframes[i], l, k);
            for (unsigned i = 0; i < n; i++)
                for (size_t k = 0; k < max_items[1]; k++)
                    cols_item(dframes[i], l, k);
        }
#else
        if (job_n) {
            if (job_n > 0x7FFFFFFFu) {
                err = SCI_SEIS_E_ARG;
                goto out;
            }
            decode_kernel<<<(unsigned)job_n, DEC_THREADS, 0, st>>>(
                dframes, djobs, dstatus);
        }
        events_mark(s->timing, s->ev, 2, st);
        if (n > 65535u && max_levels) {
            err = SCI_SEIS_E_ARG;
            goto out;
        }
        for (unsigned l = max_levels; l >= 1; l--) {
            /* level l's regions are at most level 1's */
            dim3 gr((max_items[0] + DWT_THREADS - 1) / DWT_THREADS, n);
            dim3 gc((max_items[1] + DWT_THREADS - 1) / DWT_THREADS, n);
            rows_kernel<<<gr, DWT_THREADS, 0, st>>>(dframes, l);
            cols_kernel<<<gc, DWT_THREADS, 0, st>>>(dframes, l);
        }
        if ((err = cuda_err(cudaGetLastError())))
            goto out;
#endif
        events_mark(s->timing, s->ev, 3, st);
        if ((err = cuda_err(cudaMemcpyAsync(stat, dstatus, n * sizeof(int),
                                            cudaMemcpyDeviceToHost, st))) ||
            (err = cuda_err(cudaStreamSynchronize(st))))
            goto out;
        s->times.upload = events_span(s->timing, s->ev, 0, 1);
        s->times.decode = events_span(s->timing, s->ev, 1, 2);
        s->times.dwt = events_span(s->timing, s->ev, 2, 3);
    }
    for (unsigned i = 0; i < n; i++) {
        int e = plan[i].err ? plan[i].err : stat[i];
        if (status)
            status[i] = e;
        if (e && !err)
            err = e;
    }
out:
    for (unsigned i = 0; i < n; i++)
        sci_huff_free(&plan[i].code);
    free(plan);
    free(stat);
    return err;
}

/* ---- encoder, host side ------------------------------------------------------ */

/* The host's share of a batch encode, a gather a call. */
struct encode_args {
    const sci_seis_params *p;
    const enc_stat *stat;
    const uint16_t *q; /* the indices of every gather, gather i at at[i] */
    const size_t *at;
    const uint8_t *const *meta;
    const size_t *meta_len;
    uint8_t *const *out;
    const size_t *cap;
    size_t *out_len;
    int *status;
    size_t *bad_index;
};

/* Gathers [b, e): refused, or coded and packed. */
static void code_gathers(void *arg, size_t b, size_t e, unsigned) {
    const encode_args *a = (const encode_args *)arg;
    for (size_t i = b; i < e; i++) {
        const sci_seis_params *p = &a->p[i];
        const enc_stat *st = &a->stat[i];
        const size_t v = (size_t)p->traces * p->samples;
        int err;
        if (st->bad < v || st->overflow ||
            !sci_seis_grid_fits(&st->grid, p)) {
            if (a->bad_index)
                a->bad_index[i] = st->bad < v ? (size_t)st->bad : v;
            err = SCI_SEIS_E_VALUE;
        } else {
            err = sci_seis_encode_indices(
                p, a->q + a->at[i], &st->grid, a->meta ? a->meta[i] : NULL,
                a->meta && a->meta_len ? a->meta_len[i] : 0, a->out[i],
                a->cap[i], &a->out_len[i]);
        }
        a->status[i] = err;
    }
}

extern "C" int sci_cuda_seis_encode(sci_cuda_seis *s, unsigned n,
                                    const sci_seis_params p[],
                                    const float *const gathers[],
                                    const uint8_t *const meta[],
                                    const size_t meta_len[],
                                    uint8_t *const out[], const size_t cap[],
                                    size_t out_len[], int status[],
                                    size_t bad_index[], void *stream) {
    cudaStream_t st = (cudaStream_t)stream;
    if (!s || !p || !gathers || !out || !cap || !out_len)
        return SCI_SEIS_E_ARG;
    if (n == 0)
        return 0;
    for (unsigned i = 0; i < n; i++)
        if (sci_seis_params_check(&p[i]) || !gathers[i] || !out[i] ||
            (meta && meta_len && meta_len[i] && !meta[i]))
            return SCI_SEIS_E_ARG;
    if (n > 65535u)
        return SCI_SEIS_E_ARG;
    /* offsets of each gather's values in the scratch planes */
    size_t *at = (size_t *)malloc(n * sizeof *at);
    if (!at)
        return SCI_SEIS_E_NOMEM;
    size_t total = 0, max_n = 0;
    unsigned max_levels = 0;
    uint32_t max_items[2] = {0, 0}; /* columns, rows launches */
    for (unsigned i = 0; i < n; i++) {
        size_t v = (size_t)p[i].traces * p[i].samples;
        at[i] = total;
        total += align_up(v, 64);
        max_n = v > max_n ? v : max_n;
        unsigned lev = sci_dwt_used_levels(p[i].samples, p[i].traces,
                                        p[i].levels);
        max_levels = lev > max_levels ? lev : max_levels;
        uint64_t cols = (uint64_t)((p[i].traces + 1) / 2) * p[i].samples;
        uint64_t rows = (uint64_t)p[i].traces * ((p[i].samples + 1) / 2);
        if (lev && cols > max_items[0])
            max_items[0] = (uint32_t)cols;
        if (lev && rows > max_items[1])
            max_items[1] = (uint32_t)rows;
    }
    const size_t desc_bytes = align_up(n * sizeof(enc_frame), 16);
    const size_t stat_bytes = n * sizeof(enc_stat);
    int err;
    if ((err = grow(&s->enc_dev, desc_bytes + stat_bytes)) ||
        (err = grow_mem(&s->enc_host, desc_bytes + stat_bytes, 1)) ||
        (err = grow(&s->enc_coef, total * 4 + 4)) ||
        (err = grow(&s->enc_tmp, total * 4 + 4)) ||
        (err = grow(&s->enc_q, total * 2 + 2)) ||
        (err = grow_mem(&s->enc_q_host, total * 2 + 2, 1))) {
        free(at);
        return err;
    }
    uint8_t *hb = (uint8_t *)s->enc_host.p, *db = (uint8_t *)s->enc_dev.p;
    enc_frame *desc = (enc_frame *)hb;
    enc_stat *stat = (enc_stat *)(hb + desc_bytes);
    enc_stat *dstat = (enc_stat *)(db + desc_bytes);
    for (unsigned i = 0; i < n; i++) {
        enc_frame *f = &desc[i];
        f->in = gathers[i];
        f->w = p[i].samples;
        f->h = p[i].traces;
        f->bits = p[i].bits;
        f->levels = sci_dwt_used_levels(f->w, f->h, p[i].levels);
        f->coef = f->levels ? (float *)s->enc_coef.p + at[i]
                            : (float *)gathers[i];
        f->tmp = (float *)s->enc_tmp.p + at[i];
        f->q = (uint16_t *)s->enc_q.p + at[i];
        f->st = &dstat[i];
        memset(&stat[i], 0, sizeof stat[i]);
        stat[i].min_key = 0xFFFFFFFFu;
        stat[i].bad = (unsigned long long)f->w * f->h;
    }
    const enc_frame *dframes = (const enc_frame *)db;
    if ((err = cuda_err(cudaMemcpyAsync(db, hb, desc_bytes + stat_bytes,
                                        cudaMemcpyHostToDevice, st))))
        goto out;
#ifdef SCI_SEIS_EMU
    for (unsigned i = 0; i < n; i++)
        for (size_t k = 0; k < (size_t)desc[i].w * desc[i].h; k++)
            if (!isfinite(desc[i].in[k]) && k < dstat[i].bad)
                dstat[i].bad = k;
    for (unsigned l = 1; l <= max_levels; l++) {
        for (unsigned i = 0; i < n; i++)
            for (size_t k = 0; k < max_items[0]; k++)
                fwd_cols_item(dframes[i], l, k);
        for (unsigned i = 0; i < n; i++)
            for (size_t k = 0; k < max_items[1]; k++)
                fwd_rows_item(dframes[i], l, k);
    }
    for (unsigned i = 0; i < n; i++) {
        for (size_t k = 0; k < (size_t)desc[i].w * desc[i].h; k++) {
            float c = dframes[i].coef[k];
            unsigned key = float_key(c);
            dstat[i].min_key = key < dstat[i].min_key ? key : dstat[i].min_key;
            dstat[i].max_key = key > dstat[i].max_key ? key : dstat[i].max_key;
            dstat[i].overflow |= !isfinite(c);
        }
        grid_item(dframes[i]);
        for (size_t k = 0; k < (size_t)desc[i].w * desc[i].h; k++)
            quant_item(dframes[i], k);
    }
#else
    {
        const unsigned red_blocks =
            (unsigned)((max_n + RED_THREADS - 1) / RED_THREADS);
        check_kernel<<<dim3(red_blocks, n), RED_THREADS, 0, st>>>(dframes);
        for (unsigned l = 1; l <= max_levels; l++) {
            dim3 gc((max_items[0] + DWT_THREADS - 1) / DWT_THREADS, n);
            dim3 gr((max_items[1] + DWT_THREADS - 1) / DWT_THREADS, n);
            fwd_cols_kernel<<<gc, DWT_THREADS, 0, st>>>(dframes, l);
            fwd_rows_kernel<<<gr, DWT_THREADS, 0, st>>>(dframes, l);
        }
        /* enough blocks to fill the GPU, each striding over its frame */
        unsigned mm_blocks = red_blocks < 64 ? red_blocks : 64;
        minmax_kernel<<<dim3(mm_blocks, n), RED_THREADS, 0, st>>>(dframes);
        grid_kernel<<<(n + 127) / 128, 128, 0, st>>>(dframes, n);
        quant_kernel<<<dim3(red_blocks, n), RED_THREADS, 0, st>>>(dframes);
        if ((err = cuda_err(cudaGetLastError())))
            goto out;
    }
#endif
    if ((err = cuda_err(cudaMemcpyAsync(stat, dstat, stat_bytes,
                                        cudaMemcpyDeviceToHost, st))) ||
        (err = cuda_err(cudaMemcpyAsync(s->enc_q_host.p, s->enc_q.p,
                                        total * 2, cudaMemcpyDeviceToHost,
                                        st))) ||
        (err = cuda_err(cudaStreamSynchronize(st))))
        goto out;
    /* the code and the packages on the host, a gather a call */
    {
        int *st = (int *)malloc(n * sizeof *st);
        if (!st) {
            err = SCI_SEIS_E_NOMEM;
            goto out;
        }
        encode_args ea = {p, stat, (const uint16_t *)s->enc_q_host.p, at,
                          meta, meta_len, out, cap, out_len, st, bad_index};
        sci_pool_for(s->pool, n, 1, code_gathers, &ea);
        /* the first gather's error, whichever thread met it first */
        for (unsigned i = 0; i < n; i++) {
            if (status)
                status[i] = st[i];
            if (st[i] && !err)
                err = st[i];
        }
        free(st);
    }
out:
    free(at);
    return err;
}
