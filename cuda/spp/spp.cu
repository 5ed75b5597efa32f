/*
 * SPP on the GPU (see spp.h).  The rules that must agree with the C
 * reference come from codec/spp/spp_core.h; a pair's sum runs over the bands
 * in order and a pixel's over its neighbours in raster order, as in the
 * reference.
 *
 *   1. centroid: a block per run of pixels sums every band of its run
 *      (threads over bands, reads coalesced), then a block per band adds
 *      the runs (a fixed tree); float input that is NaN or infinite is
 *      flagged;
 *   2. unit: a warp per pixel, its norm and unit vector;
 *   3. angles: a block per 16 x 16 tile of pixels, a thread per pixel;
 *      the tile's unit vectors with the window's halo go through shared
 *      memory a chunk of bands at a time (band-major, so a warp's reads
 *      are consecutive words), and each thread adds |u - v|^2 for a
 *      group of 30 of its forward neighbours at a time and turns them
 *      into angles; then alpha and rho: a thread per pixel adds its
 *      neighbours' angles weighted, in raster order;
 *   4. displace: a thread per value.
 *
 * Built with SCI_SPP_EMU, the kernels become host loops over the same
 * device functions, a block's threads one after another between its
 * barriers (tests/spp/spp_emu.cpp: parity without a GPU).
 */
#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>

#include "spp.h"
#include "codec/spp/spp_core.h"
#include "cuda/common/devbuf.cuh"

#ifdef __CUDACC__
#define UNROLL _Pragma("unroll")
#else
#define UNROLL
#endif

#ifdef SCI_SPP_EMU
#define DK static inline
#else
#define DK __device__ __forceinline__
#endif

#define TILE 16                  /* pixels a side of a tile */
#define TILE_THREADS (TILE * TILE)
#define GROUP 30                 /* neighbours a pass */
#define RUN 128                  /* pixels a centroid block sums */
#define SUM_THREADS 128
#define ITEM_THREADS 256
/* shared memory for a tile's chunk of bands: this, or less on GPUs that
 * give a block less (Turing: 64 KiB); the chunks only split the bands'
 * sums, which run in band order all the same */
#define TILE_BYTES (96 * 1024)

struct spp_params {
    const void *in;
    sci_spp_format f;
    size_t lines, samples, bands, npix;
    int d;           /* window half-width */
    unsigned ws, nn; /* window, neighbours (ws^2 - 1) */
    unsigned tw, kb; /* tile width with halo, bands a chunk */
    unsigned runs;   /* centroid blocks */
    double *part;    /* runs x bands partial sums */
    double *c, *u, *norm, *rho;
    double *gam;     /* npix x nn / 2: the angles to the forward neighbours */
    float *out;
    int *bad;        /* a NaN or infinite input value */
};

/* 1. */
DK void centroid_run(const spp_params &p, unsigned run, unsigned tid,
                     unsigned nt) {
    size_t q0 = (size_t)run * RUN;
    size_t q1 = q0 + RUN < p.npix ? q0 + RUN : p.npix;
    for (size_t b = tid; b < p.bands; b += nt) {
        double s = 0.0;
        int bad = 0;
        for (size_t q = q0; q < q1; q++) {
            double v = sci_spp_value_at(p.in, p.f, q * p.bands + b);
            bad |= !isfinite(v);
            s += v;
        }
        p.part[(size_t)run * p.bands + b] = s;
        if (bad)
            *p.bad = 1;
    }
}

/* Band b's runs added by the nt threads of a block (one when emulated),
 * thread t taking runs t, t + nt, ..., then a tree over the threads: a
 * fixed order, so the centroid is the same on every call. */
DK void centroid_band(const spp_params &p, size_t b, double *part,
                      unsigned tid, unsigned nt) {
    double s = 0.0;
    for (unsigned r = tid; r < p.runs; r += nt)
        s += p.part[(size_t)r * p.bands + b];
    part[tid] = s;
}

DK void centroid_final(const spp_params &p, size_t b, const double *part) {
    p.c[b] = part[0] / (double)p.npix;
}

/* 2. Pixel q's norm and unit vector by the nl lanes of a warp (one when
 * emulated): lane l takes bands l, l + nl, ... */
DK void unit_item(const spp_params &p, size_t q, unsigned lane,
                  unsigned nl) {
    double *u = p.u + q * p.bands, s = 0.0;
    for (size_t b = lane; b < p.bands; b += nl) {
        u[b] = sci_spp_value_at(p.in, p.f, q * p.bands + b);
        s += u[b] * u[b];
    }
#ifndef SCI_SPP_EMU
    for (unsigned o = 16; o; o >>= 1)
        s += __shfl_xor_sync(0xFFFFFFFFu, s, o);
#endif
    double n = sqrt(s), inv = n > 0.0 ? 1.0 / n : 0.0;
    if (lane == 0)
        p.norm[q] = n;
    for (size_t b = lane; b < p.bands; b += nl)
        u[b] *= inv;
}

/* 3. A thread's |u - v|^2 for its group of neighbours.  |u + v|^2 is
 * 4 - |u - v|^2 for unit vectors (to a few ulps, far inside the parity
 * bound): one sum a pair instead of the reference's two.  The angle is
 * symmetric to the bit ((a - b)^2 = (b - a)^2), so only the forward half
 * of the window (the neighbours after the centre in raster order) is
 * computed; a pixel's backward neighbours' angles are those neighbours'
 * forward ones. */
struct pair_sums {
    double d2[GROUP];
};


/* Bands k0 .. k0 + kc - 1 of the tile's pixels (with halo; 0 outside the
 * cube) into tile[k][pixel], by threads tid, tid + nt, ... */
DK void tile_load(const spp_params &p, double *tile, unsigned bx,
                  unsigned by, size_t k0, unsigned kc, unsigned tid,
                  unsigned nt) {
    const unsigned tp = p.tw * p.tw;
    /* element i = pix kc + k (bands fastest: coalesced reads); stepping i
     * by nt steps (k, pix, and pix's line and column) without a division
     * an element, which would cost more than the sums themselves */
    const unsigned dk = nt % kc, dp = nt / kc;
    const unsigned dly = dp / p.tw, dlx = dp % p.tw;
    unsigned k = tid % kc, pix = tid / kc;
    unsigned ly = pix / p.tw, lx = pix % p.tw;
    const long y0 = (long)by * TILE - p.d, x0 = (long)bx * TILE - p.d;
    while (pix < tp) {
        long y = y0 + ly, x = x0 + lx;
        double v = 0.0;
        if (y >= 0 && x >= 0 && y < (long)p.lines && x < (long)p.samples)
            v = p.u[((size_t)y * p.samples + (size_t)x) * p.bands + k0 + k];
        tile[(size_t)k * tp + pix] = v;
        k += dk;
        pix += dp;
        lx += dlx;
        ly += dly;
        if (k >= kc) {
            k -= kc;
            pix++;
            lx++;
        }
        if (lx >= p.tw) {
            lx -= p.tw;
            ly++;
        }
    }
}

DK void tile_sums(const spp_params &p, const double *tile, pair_sums &ps,
                  unsigned g0, unsigned kc, unsigned tx, unsigned ty) {
    const unsigned tp = p.tw * p.tw;
    const unsigned centre = (ty + p.d) * p.tw + tx + p.d;
    int off[GROUP];
UNROLL
    for (unsigned g = 0; g < GROUP; g++) {
        int a = 0, b = 0;
        if (g0 + g < p.nn)
            sci_spp_neighbour(p.ws, g0 + g, &a, &b);
        off[g] = a * (int)p.tw + b;
    }
    for (unsigned k = 0; k < kc; k++) {
        const double *row = tile + (size_t)k * tp + centre;
        const double up = row[0];
UNROLL
        for (unsigned g = 0; g < GROUP; g++) {
            double dd = up - row[off[g]];
            ps.d2[g] += dd * dd;
        }
    }
}

/* The angles to forward neighbours g0 .. g0 + GROUP - 1 (those inside the
 * cube) into gam. */
DK void tile_angles(const spp_params &p, const pair_sums &ps, unsigned g0,
                    unsigned bx, unsigned by, unsigned tx, unsigned ty) {
    const size_t y = (size_t)by * TILE + ty, x = (size_t)bx * TILE + tx;
    if (y >= p.lines || x >= p.samples)
        return;
    const size_t q = y * p.samples + x, half = p.nn / 2;
UNROLL
    for (unsigned g = 0; g < GROUP; g++) {
        if (g0 + g >= p.nn)
            break;
        int a, b;
        sci_spp_neighbour(p.ws, g0 + g, &a, &b);
        long r = (long)y + a, s = (long)x + b;
        if (r < 0 || s < 0 || r >= (long)p.lines || s >= (long)p.samples)
            continue;
        double s2 = 4.0 - ps.d2[g];
        p.gam[q * half + (g0 + g - half)] = sci_spp_angle_sums(
            ps.d2[g], s2 > 0.0 ? s2 : 0.0, p.norm[q],
            p.norm[(size_t)r * p.samples + s]);
    }
}

/* rho of pixel q from its alpha: its neighbours' weighted angles in
 * raster order, as sci_spp_alpha adds them. */
DK void alpha_item(const spp_params &p, size_t q) {
    const size_t y = q / p.samples, x = q % p.samples, half = p.nn / 2;
    double num = 0.0, den = 0.0;
    for (unsigned k = 0; k < p.nn; k++) {
        int a, b;
        sci_spp_neighbour(p.ws, k, &a, &b);
        long r = (long)y + a, s = (long)x + b;
        if (r < 0 || s < 0 || r >= (long)p.lines || s >= (long)p.samples)
            continue;
        size_t o = (size_t)r * p.samples + (size_t)s;
        double g = k >= half ? p.gam[q * half + (k - half)]
                             : p.gam[o * half + (p.nn - 1 - k - half)];
        double w = sci_spp_beta(a, b);
        num += w * g;
        den += w;
    }
    double alpha = den > 0.0 ? num / den : 0.0, root = sqrt(alpha);
    p.rho[q] = (1.0 + root) * (1.0 + root);
}

DK void clear_sums(pair_sums &ps) {
UNROLL
    for (unsigned g = 0; g < GROUP; g++)
        ps.d2[g] = 0.0;
}

/* 4. sci_spp_filter's last step for value i */
DK void displace_item(const spp_params &p, size_t i) {
    size_t q = i / p.bands, b = i % p.bands;
    p.out[i] = (float)((sci_spp_value_at(p.in, p.f, i) - p.c[b]) / p.rho[q] +
                       p.c[b]);
}

#ifndef SCI_SPP_EMU
__global__ void __launch_bounds__(SUM_THREADS) centroid_run_kernel(
    spp_params p) {
    centroid_run(p, blockIdx.x, threadIdx.x, blockDim.x);
}

__global__ void __launch_bounds__(SUM_THREADS) centroid_kernel(
    spp_params p) {
    __shared__ double part[SUM_THREADS];
    for (size_t b = blockIdx.x; b < p.bands; b += gridDim.x) {
        centroid_band(p, b, part, threadIdx.x, SUM_THREADS);
        __syncthreads();
        for (unsigned h = SUM_THREADS / 2; h; h >>= 1) {
            if (threadIdx.x < h)
                part[threadIdx.x] += part[threadIdx.x + h];
            __syncthreads();
        }
        if (threadIdx.x == 0)
            centroid_final(p, b, part);
        __syncthreads();
    }
}

__global__ void unit_kernel(spp_params p) {
    const size_t warps = (size_t)gridDim.x * (blockDim.x / 32);
    for (size_t q = blockIdx.x * (size_t)(blockDim.x / 32) + threadIdx.x / 32;
         q < p.npix; q += warps)
        unit_item(p, q, threadIdx.x % 32, 32);
}

__global__ void __launch_bounds__(TILE_THREADS) angles_kernel(spp_params p) {
    extern __shared__ double tile[];
    const unsigned tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
    pair_sums ps;
    for (unsigned g0 = p.nn / 2; g0 < p.nn; g0 += GROUP) {
        clear_sums(ps);
        for (size_t k0 = 0; k0 < p.bands; k0 += p.kb) {
            unsigned kc = (unsigned)(p.bands - k0 < p.kb ? p.bands - k0
                                                         : p.kb);
            tile_load(p, tile, blockIdx.x, blockIdx.y, k0, kc, threadIdx.x,
                      TILE_THREADS);
            __syncthreads();
            tile_sums(p, tile, ps, g0, kc, tx, ty);
            __syncthreads();
        }
        tile_angles(p, ps, g0, blockIdx.x, blockIdx.y, tx, ty);
    }
}

__global__ void alpha_kernel(spp_params p) {
    for (size_t q = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
         q < p.npix; q += (size_t)gridDim.x * blockDim.x)
        alpha_item(p, q);
}

__global__ void displace_kernel(spp_params p, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        displace_item(p, i);
}

static unsigned grid_for(size_t n, unsigned threads) {
    size_t g = (n + threads - 1) / threads;
    return (unsigned)(g < 1 ? 1 : g > 65535u * 16 ? 65535u * 16 : g);
}
#endif

/* ------------------------------------------------------------------ */
/* Host side */

struct sci_cuda_spp {
    dbuf in, part, c, u, norm, rho, gam, out, bad;
    int timing;
    size_t smem_limit; /* sci_cuda_spp_limit_shared's; 0: none */
    sci_cuda_spp_times times;
    cudaEvent_t ev[7];
};

static void mark(sci_cuda_spp *c, int i, cudaStream_t s) {
    events_mark(c->timing, c->ev, i, s);
}

static float span(sci_cuda_spp *c, int a, int b) {
    return events_span(c->timing, c->ev, a, b);
}

extern "C" int sci_cuda_spp_create(sci_cuda_spp **out) {
    sci_cuda_spp *c = (sci_cuda_spp *)calloc(1, sizeof *c);
    if (!c)
        return SCI_SPP_E_NOMEM;
    int e = events_create(c->ev, 7);
    if (e) {
        free(c);
        return e;
    }
    *out = c;
    return 0;
}

extern "C" void sci_cuda_spp_destroy(sci_cuda_spp *c) {
    if (!c)
        return;
    dbuf *all[] = {&c->in,    &c->part, &c->c,   &c->u,  &c->norm,
                   &c->rho,   &c->gam,  &c->out, &c->bad};
    for (dbuf *b : all)
        cudaFree(b->p);
    events_destroy(c->ev, 7);
    free(c);
}

extern "C" size_t sci_cuda_spp_device_bytes(const sci_cuda_spp *c) {
    return c->in.cap + c->part.cap + c->c.cap + c->u.cap + c->norm.cap +
           c->rho.cap + c->gam.cap + c->out.cap + c->bad.cap;
}

extern "C" void sci_cuda_spp_limit_shared(sci_cuda_spp *c, size_t bytes) {
    c->smem_limit = bytes;
}

extern "C" void sci_cuda_spp_set_timing(sci_cuda_spp *c, int on) {
    c->timing = on;
}

extern "C" void sci_cuda_spp_get_times(const sci_cuda_spp *c,
                                       sci_cuda_spp_times *t) {
    *t = c->times;
}

#ifdef SCI_SPP_EMU
#define LAUNCH_ITEMS(fn, n, ...)                                             \
    for (size_t i_ = 0; i_ < (size_t)(n); i_++)                              \
    fn(__VA_ARGS__, i_)

/* angles_kernel's blocks one after another, each block's threads one after
 * another between its barriers. */
static int emu_angles(const spp_params &p, unsigned gx, unsigned gy) {
    double *tile = (double *)malloc((size_t)p.tw * p.tw * p.kb * 8);
    pair_sums *ps = (pair_sums *)malloc(TILE_THREADS * sizeof *ps);
    if (!tile || !ps) {
        free(tile);
        free(ps);
        return SCI_SPP_E_NOMEM;
    }
    for (unsigned by = 0; by < gy; by++)
        for (unsigned bx = 0; bx < gx; bx++) {
            for (unsigned g0 = p.nn / 2; g0 < p.nn; g0 += GROUP) {
                for (unsigned t = 0; t < TILE_THREADS; t++)
                    clear_sums(ps[t]);
                for (size_t k0 = 0; k0 < p.bands; k0 += p.kb) {
                    unsigned kc = (unsigned)(p.bands - k0 < p.kb
                                                 ? p.bands - k0
                                                 : p.kb);
                    for (unsigned t = 0; t < TILE_THREADS; t++)
                        tile_load(p, tile, bx, by, k0, kc, t, TILE_THREADS);
                    for (unsigned t = 0; t < TILE_THREADS; t++)
                        tile_sums(p, tile, ps[t], g0, kc, t % TILE,
                                  t / TILE);
                }
                for (unsigned t = 0; t < TILE_THREADS; t++)
                    tile_angles(p, ps[t], g0, bx, by, t % TILE, t / TILE);
            }
        }
    free(tile);
    free(ps);
    return 0;
}
#endif

extern "C" int sci_cuda_spp_filter(sci_cuda_spp *c, const void *in,
                                   int in_on_device, sci_spp_format f,
                                   size_t lines, size_t samples, size_t bands,
                                   unsigned window, float *out,
                                   int out_on_device, void *stream) {
    cudaStream_t st = (cudaStream_t)stream;
    const size_t vb = sci_spp_value_bytes(f);
    if (!c || !in || !out || !vb ||
        sci_spp_check(lines, samples, bands, window))
        return SCI_SPP_E_ARG;
    spp_params p;
    memset(&p, 0, sizeof p);
    p.f = f;
    p.lines = lines;
    p.samples = samples;
    p.bands = bands;
    p.npix = lines * samples;
    p.ws = window;
    p.d = (int)window / 2;
    p.nn = window * window - 1;
    p.tw = TILE + 2 * (unsigned)p.d;
    size_t per_band = (size_t)p.tw * p.tw * 8;
    size_t tile_bytes = TILE_BYTES;
#ifndef SCI_SPP_EMU
    tile_bytes = smem_optin(c->smem_limit);
    if (tile_bytes > TILE_BYTES)
        tile_bytes = TILE_BYTES;
#endif
    p.kb = (unsigned)(tile_bytes / per_band < bands ? tile_bytes / per_band
                                                    : bands);
    p.runs = (unsigned)((p.npix + RUN - 1) / RUN);
    const size_t count = p.npix * bands;
    /* grid limits: tiles a side within 65535 */
    if ((samples + TILE - 1) / TILE > 0x7FFFFFFFu ||
        (lines + TILE - 1) / TILE > 65535u)
        return SCI_SPP_E_ARG;
    int err;
    if ((!in_on_device && (err = grow(&c->in, count * vb))) ||
        (err = grow(&c->part, (size_t)p.runs * bands * 8)) ||
        (err = grow(&c->c, bands * 8)) || (err = grow(&c->u, count * 8)) ||
        (err = grow(&c->norm, p.npix * 8)) ||
        (err = grow(&c->rho, p.npix * 8)) ||
        (err = grow(&c->gam, p.npix * (p.nn / 2) * 8)) ||
        (!out_on_device && (err = grow(&c->out, count * 4))) ||
        (err = grow(&c->bad, sizeof(int))))
        return err;
    mark(c, 0, st);
    if (!in_on_device) {
        cudaMemcpyAsync(c->in.p, in, count * vb, cudaMemcpyHostToDevice, st);
        p.in = c->in.p;
    } else {
        p.in = in;
    }
    p.part = (double *)c->part.p;
    p.c = (double *)c->c.p;
    p.u = (double *)c->u.p;
    p.norm = (double *)c->norm.p;
    p.rho = (double *)c->rho.p;
    p.gam = (double *)c->gam.p;
    p.out = out_on_device ? out : (float *)c->out.p;
    p.bad = (int *)c->bad.p;
    cudaMemsetAsync(p.bad, 0, sizeof(int), st);
    mark(c, 1, st);
    const unsigned gx = (unsigned)((samples + TILE - 1) / TILE);
    const unsigned gy = (unsigned)((lines + TILE - 1) / TILE);
#ifdef SCI_SPP_EMU
    for (unsigned r = 0; r < p.runs; r++)
        centroid_run(p, r, 0, 1);
    for (size_t b = 0; b < bands; b++) {
        double part;
        centroid_band(p, b, &part, 0, 1);
        centroid_final(p, b, &part);
    }
#else
    centroid_run_kernel<<<p.runs, SUM_THREADS, 0, st>>>(p);
    centroid_kernel<<<bands < 4096 ? (unsigned)bands : 4096, SUM_THREADS, 0,
                      st>>>(p);
#endif
    mark(c, 2, st);
#ifdef SCI_SPP_EMU
    for (size_t q = 0; q < p.npix; q++)
        unit_item(p, q, 0, 1);
#else
    unit_kernel<<<grid_for(p.npix * 32, ITEM_THREADS), ITEM_THREADS, 0,
                  st>>>(p);
#endif
    mark(c, 3, st);
#ifdef SCI_SPP_EMU
    if ((err = emu_angles(p, gx, gy)))
        return err;
    LAUNCH_ITEMS(alpha_item, p.npix, p);
#else
    {
        size_t smem = per_band * p.kb;
        if (smem > 48 * 1024 &&
            (err = (int)cudaFuncSetAttribute(
                 angles_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                 (int)smem))) {
            cudaGetLastError();
            return err;
        }
        angles_kernel<<<dim3(gx, gy), TILE_THREADS, smem, st>>>(p);
        alpha_kernel<<<grid_for(p.npix, ITEM_THREADS), ITEM_THREADS, 0,
                       st>>>(p);
    }
#endif
    mark(c, 4, st);
#ifdef SCI_SPP_EMU
    LAUNCH_ITEMS(displace_item, count, p);
#else
    displace_kernel<<<grid_for(count, ITEM_THREADS), ITEM_THREADS, 0, st>>>(
        p, count);
#endif
    mark(c, 5, st);
    if (!out_on_device)
        cudaMemcpyAsync(out, p.out, count * 4, cudaMemcpyDeviceToHost, st);
    mark(c, 6, st);
    /* a NaN or Inf seen by the centroid: known only now, the output is
     * garbage then */
    int bad = 0;
    cudaMemcpyAsync(&bad, p.bad, sizeof bad, cudaMemcpyDeviceToHost, st);
    cudaError_t e = cudaStreamSynchronize(st);
    if (e == cudaSuccess)
        e = cudaGetLastError();
    if (e != cudaSuccess) {
        cudaGetLastError();
        return (int)e;
    }
    if (bad)
        return SCI_SPP_E_VALUE;
    if (c->timing) {
        c->times.upload_ms = span(c, 0, 1);
        c->times.centroid_ms = span(c, 1, 2);
        c->times.unit_ms = span(c, 2, 3);
        c->times.alpha_ms = span(c, 3, 4);
        c->times.displace_ms = span(c, 4, 5);
        c->times.download_ms = span(c, 5, 6);
    }
    return 0;
}
