/*
 * Wavelet stage benchmark: a 3840x2160 4:4:4 12-bit frame (uint16 planes),
 * 5 levels, 5/3 + RCT and 9/7 + ICT, forward and inverse, input and output
 * in device memory, against a device-to-device copy of the same bytes and
 * the CPU backend (codec/, OpenMP) in the same run.
 *
 *   bench-dwt [--runs N] [--cpu-runs N] [--no-cpu] [--sweep] [--once]
 *
 * Bytes: "min" is the compulsory traffic, samples read once and
 * coefficients written once (or the reverse); "kern" adds what the kernels
 * move by design: each intermediate low band written to scratch and read
 * back by the next level (halo re-reads are not counted: they mostly hit
 * L2).  GB/s and the copy fraction use "min"; the copy moves "min" bytes
 * (reads plus writes) too.
 * --sweep times every tile and warp policy (cuda/j2k/dwt_tune.h) too; --once
 * runs each transform once after one warm-up (for profilers); --tiles runs
 * the forward on the tile kernels instead of the warps that stream down
 * column strips.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "codec/j2k/wavelet_frame.h"
#include "cuda/j2k/dwt.h"
#include "bench/common/benchutil.h"
#include "tests/common/cudacheck.h"
#include "cuda/j2k/dwt_tune.h"

#define W 3840
#define H 2160
#define DEPTH 12
#define LEVELS 5

typedef struct {
    double median, min;
} timing;

static timing summarise(double *t, int n) {
    timing r;
    r.median = bench_median(t, n); /* sorts t */
    r.min = t[0];
    return r;
}

typedef struct {
    const sci_wt_geometry *g;
    sci_cuda_wt *wt;
    sci_wt_plane *src, *dst;
    void *coef;
    cudaStream_t st;
    int dir;
} job;

static void run_once(const job *j) {
    if (j->dir)
        CKW(sci_cuda_wt_inverse(j->wt, j->coef, j->dst, j->st));
    else
        CKW(sci_cuda_wt_forward(j->wt, j->src, j->coef, j->st));
}

static timing time_gpu(const job *j, int runs) {
    cudaEvent_t e0, e1;
    double *t = malloc(sizeof(double) * runs);
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int i = 0; i < 20; i++)
        run_once(j);
    for (int i = 0; i < runs; i++) {
        float ms;
        CK(cudaEventRecord(e0, j->st));
        run_once(j);
        CK(cudaEventRecord(e1, j->st));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms, e0, e1));
        t[i] = ms;
    }
    CK(cudaGetLastError());
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    timing r = summarise(t, runs);
    free(t);
    return r;
}

static timing time_copy(void *dst, const void *src, size_t bytes,
                        cudaStream_t st, int runs) {
    cudaEvent_t e0, e1;
    double *t = malloc(sizeof(double) * runs);
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int i = -20; i < runs; i++) {
        float ms;
        CK(cudaEventRecord(e0, st));
        CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, st));
        CK(cudaEventRecord(e1, st));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (i >= 0)
            t[i] = ms;
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    timing r = summarise(t, runs);
    free(t);
    return r;
}

/* Low bands of levels 1..L-1 go to scratch and come back. */
static double kernel_bytes(const sci_wt_geometry *g, double min_bytes) {
    double b = min_bytes;
    for (unsigned c = 0; c < g->components; c++)
        for (unsigned l = 1; l < g->levels; l++)
            b += 8.0 * sci_dwt_low_len(sci_wt_comp_width(g, c), l)
                * sci_dwt_low_len(sci_wt_comp_height(g, c), l);
    return b;
}

int main(int argc, char **argv) {
    int runs = 200, cpu_runs = 3, no_cpu = 0, sweep = 0, once = 0, tiles = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cpu-runs") && i + 1 < argc)
            cpu_runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-cpu"))
            no_cpu = 1;
        else if (!strcmp(argv[i], "--sweep"))
            sweep = 1;
        else if (!strcmp(argv[i], "--once"))
            once = 1;
        else if (!strcmp(argv[i], "--tiles"))
            tiles = 1;
        else {
            fprintf(stderr, "usage: %s [--runs N] [--cpu-runs N] [--no-cpu] "
                    "[--sweep] [--once] [--tiles]\n", argv[0]);
            return 2;
        }
    }
    if (runs < 1)
        runs = 1;
    if (cpu_runs < 1)
        no_cpu = 1;

    REQUIRE_CUDA_DEVICE();
    struct cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));

    const size_t plane_bytes = (size_t)W * H * 2;
    const size_t sample_bytes = 3 * plane_bytes;
    const size_t coef_bytes = (size_t)W * H * 3 * 4;
    uint16_t *h_in = malloc(sample_bytes), *h_out = malloc(sample_bytes);
    void *h_coef = malloc(coef_bytes);
    uint64_t s = 0x2545f4914f6cdd1dull;
    for (size_t i = 0; i < (size_t)W * H * 3; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        h_in[i] = (uint16_t)(s & ((1u << DEPTH) - 1));
    }
    void *d_in, *d_out, *d_coef, *d_copy;
    CK(cudaMalloc(&d_in, sample_bytes));
    CK(cudaMalloc(&d_out, sample_bytes));
    CK(cudaMalloc(&d_coef, coef_bytes));
    CK(cudaMalloc(&d_copy, coef_bytes));
    CK(cudaMemcpy(d_in, h_in, sample_bytes, cudaMemcpyHostToDevice));
    cudaStream_t st;
    CK(cudaStreamCreate(&st));

    sci_wt_plane hsrc[3], hdst[3], dsrc[3], ddst[3];
    for (int c = 0; c < 3; c++) {
        hsrc[c] = (sci_wt_plane){(uint8_t *)h_in + c * plane_bytes, W * 2, 2};
        hdst[c] = (sci_wt_plane){(uint8_t *)h_out + c * plane_bytes, W * 2, 2};
        dsrc[c] = (sci_wt_plane){(uint8_t *)d_in + c * plane_bytes, W * 2, 2};
        ddst[c] = (sci_wt_plane){(uint8_t *)d_out + c * plane_bytes, W * 2, 2};
    }

    const double min_bytes = (double)sample_bytes + coef_bytes;
    timing copy = time_copy(d_copy, d_coef, (size_t)(min_bytes / 2), st,
                            once ? 1 : runs);
    double copy_gbs = min_bytes / (copy.median * 1e6);
    printf("device: %s, %d SMs, L2 %d MB\n", prop.name,
           prop.multiProcessorCount, prop.l2CacheSize >> 20);
    printf("frame %dx%d 4:4:4 %d-bit in uint16, %d levels; GPU %d runs, CPU %d "
           "runs (OpenMP)\n", W, H, DEPTH, LEVELS, runs, no_cpu ? 0 : cpu_runs);
    printf("copy D2D %.1f MB (reads+writes %.1f MB): median %.4f ms, min %.4f "
           "ms, %.0f GB/s\n\n", min_bytes / 2e6, min_bytes / 1e6, copy.median,
           copy.min, copy_gbs);

    static const struct {
        const char *name;
        sci_dwt_filter f;
        sci_colour_transform ct;
    } cases[] = {
        {"5/3+RCT", SCI_DWT_53, SCI_CT_RCT},
        {"9/7+ICT", SCI_DWT_97, SCI_CT_ICT},
    };
    char table[4096];
    int tl = 0;
    tl += snprintf(table + tl, sizeof(table) - tl,
                   "%-8s %-4s %9s %9s %8s %8s %7s %6s %8s %9s %8s\n", "case",
                   "dir", "median ms", "min ms", "min MB", "kern MB", "GB/s",
                   "copy%", "frames/s", "CPU ms", "GPU/CPU");
    for (int k = 0; k < 2; k++) {
        sci_wt_geometry g;
        memset(&g, 0, sizeof(g));
        g.width = W;
        g.height = H;
        g.components = 3;
        g.depth = DEPTH;
        for (int c = 0; c < 3; c++)
            g.dx[c] = g.dy[c] = 1;
        g.filter = cases[k].f;
        g.levels = LEVELS;
        g.ct = cases[k].ct;
        sci_cuda_wt *wt;
        CKW(sci_cuda_wt_create(&wt, &g));
        if (tiles)
            sci_cuda_wt_tune_strips(wt, 0, -1);
        CKW(sci_cuda_wt_forward(wt, dsrc, d_coef, st));
        CK(cudaStreamSynchronize(st));
        for (int dir = 0; dir < 2; dir++) {
            job j = {&g, wt, dsrc, ddst, d_coef, st, dir};
            if (once) {
                run_once(&j);
                run_once(&j);
                CK(cudaStreamSynchronize(st));
                continue;
            }
            if (sweep && dir == 0) {
                /* rows 0: the tile kernels */
                static const int srows[] = {0, 8, 16, 32, 64};
                static const int per_sm[] = {0, 16, 32, 64};
                for (int r = 0; r < 5; r++)
                    for (int m = 0; m < (srows[r] ? 4 : 1); m++) {
                        sci_cuda_wt_tune_strips(wt, srows[r], per_sm[m] *
                                                prop.multiProcessorCount);
                        timing t = time_gpu(&j, runs / 4 > 10 ? runs / 4 : 10);
                        printf("sweep %s fwd strip rows %2d min_warps %5d: "
                               "median %.4f ms, min %.4f ms\n", cases[k].name,
                               srows[r], per_sm[m] * prop.multiProcessorCount,
                               t.median, t.min);
                    }
                sci_cuda_wt_destroy(wt);
                CKW(sci_cuda_wt_create(&wt, &g));
                if (tiles)
                    sci_cuda_wt_tune_strips(wt, 0, -1);
                j.wt = wt;
            } else if (sweep) {
                static const int rows[] = {64, 32};
                static const int joint[] = {32, 16};
                static const int minb[] = {0, 1056, 2112};
                for (int r = 0; r < 2; r++)
                    for (int jr = 0; jr < 2; jr++)
                        for (int m = 0; m < 3; m++) {
                            sci_cuda_wt_tune(wt, rows[r], joint[jr], joint[jr],
                                             minb[m]);
                            timing t = time_gpu(&j, runs / 4 > 10 ? runs / 4 : 10);
                            printf("sweep %s %s rows %2d joint %2d min_blocks "
                                   "%4d: median %.4f ms, min %.4f ms\n",
                                   cases[k].name, dir ? "inv" : "fwd", rows[r],
                                   joint[jr], minb[m], t.median, t.min);
                        }
                /* back to the defaults */
                sci_cuda_wt_destroy(wt);
                CKW(sci_cuda_wt_create(&wt, &g));
                j.wt = wt;
            }
            timing t = time_gpu(&j, runs);
            double cpu = 0;
            if (!no_cpu) {
                double *ct = malloc(sizeof(double) * cpu_runs);
                for (int i = 0; i < cpu_runs; i++) {
                    if (dir)
                        CK(cudaMemcpy(h_coef, d_coef, coef_bytes,
                                      cudaMemcpyDeviceToHost));
                    double t0 = bench_now_ms();
                    int e = dir ? sci_wt_inverse(bench_pool(), &g, h_coef, hdst)
                                : sci_wt_forward(bench_pool(), &g, hsrc, h_coef);
                    ct[i] = bench_now_ms() - t0;
                    if (e) {
                        fprintf(stderr, "CPU backend failed\n");
                        return 1;
                    }
                }
                cpu = summarise(ct, cpu_runs).median;
                free(ct);
            }
            double kb = kernel_bytes(&g, min_bytes);
            double gbs = min_bytes / (t.median * 1e6);
            char cpus[32] = "-", ratio[32] = "-";
            if (!no_cpu) {
                snprintf(cpus, sizeof(cpus), "%.1f", cpu);
                snprintf(ratio, sizeof(ratio), "%.0fx", cpu / t.median);
            }
            tl += snprintf(table + tl, sizeof(table) - tl,
                           "%-8s %-4s %9.4f %9.4f %8.1f %8.1f %7.0f %5.0f%% "
                           "%8.0f %9s %8s\n", cases[k].name,
                           dir ? "inv" : "fwd", t.median, t.min, min_bytes / 1e6,
                           kb / 1e6, gbs, 100 * gbs / copy_gbs, 1e3 / t.median,
                           cpus, ratio);
        }
        sci_cuda_wt_destroy(wt);
    }
    if (!once)
        fputs(table, stdout);
    CK(cudaStreamDestroy(st));
    CK(cudaFree(d_in));
    CK(cudaFree(d_out));
    CK(cudaFree(d_coef));
    CK(cudaFree(d_copy));
    free(h_in);
    free(h_out);
    free(h_coef);
    return 0;
}
