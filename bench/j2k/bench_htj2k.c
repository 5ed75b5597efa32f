/*
 * HTJ2K encoder benchmark, GPU against CPU: a 3840x2160 4:4:4 12-bit frame
 * (synthetic but natural-looking: gradients, edges, texture, a little
 * sensor noise; or a PPM), 5 levels, 64x64 code-blocks, three modes:
 *   lossless   5/3 + RCT
 *   lossy      9/7 + ICT at the fixed qstep that gives about --bpp bits
 *              per pixel (found once, before timing, by rate control)
 *   rate       9/7 + ICT with the --bpp target (rate control every frame)
 * Samples are uploaded once; a GPU frame is sci_cuda_wt_forward then
 * sci_cuda_ht_encode up to the codestream in pinned host memory (the coded
 * blocks go from the device straight into it).  Stages come from CUDA
 * events (DWT, block coding with every rate trial, compaction with the
 * lengths' copy) and the host clock (tier-2 markers and packet headers,
 * then the device-to-host copies of the blocks); medians over --runs
 * frames after warm-up.  The CPU encoder (sci_wt_forward + sci_htj2k_encode,
 * on the codec's thread pool) codes the same frame; the outputs are
 * compared byte for byte.
 *
 *   bench-htj2k [--runs N] [--cpu-runs N] [--no-cpu] [--bpp B]
 *               [--write DIR] [image.ppm]
 *
 * --write DIR: each mode's codestream (DIR/<mode>.j2c) and the source image
 * (DIR/source.ppm, 16-bit, 12-bit values) for decoders to check.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "codec/j2k/htj2k.h"
#include "codec/j2k/wavelet_frame.h"
#include "cuda/j2k/dwt.h"
#include "bench/common/benchutil.h"
#include "tests/common/cudacheck.h"
#include "cuda/j2k/htj2k.h"
#include "bench/j2k/htj2k_picture.h"

#define DEPTH 12
#define LEVELS 5

static uint32_t W = 3840, H = 2160;

static int load_ppm(const char *path, uint16_t *pl[3]) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    unsigned w, h, maxv;
    if (fscanf(f, "P6 %u %u %u", &w, &h, &maxv) != 3 || maxv == 0 || maxv > 65535) {
        fclose(f);
        return -1;
    }
    fgetc(f);
    W = w, H = h;
    for (int c = 0; c < 3; c++)
        pl[c] = malloc((size_t)W * H * 2);
    int bytes = maxv > 255 ? 2 : 1;
    for (size_t i = 0; i < (size_t)W * H; i++)
        for (int c = 0; c < 3; c++) {
            unsigned v = (unsigned)fgetc(f);
            if (bytes == 2)
                v = v << 8 | (unsigned)fgetc(f);
            pl[c][i] = (uint16_t)((v * 4095u + maxv / 2) / maxv);
        }
    fclose(f);
    return 0;
}

static void write_file(const char *dir, const char *name, const void *p, size_t n) {
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
    fclose(f);
}

static void write_ppm(const char *dir, uint16_t *pl[3]) {
    size_t n = (size_t)W * H;
    uint8_t *b = malloc(n * 6 + 64);
    int hl = sprintf((char *)b, "P6\n%u %u\n4095\n", W, H);
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < 3; c++) {
            b[hl + i * 6 + c * 2] = (uint8_t)(pl[c][i] >> 8);
            b[hl + i * 6 + c * 2 + 1] = (uint8_t)pl[c][i];
        }
    write_file(dir, "source.ppm", b, (size_t)hl + n * 6);
    free(b);
}

typedef struct {
    const char *name;
    sci_dwt_filter filter;
    double qstep, bitrate;
} mode;

int main(int argc, char **argv) {
    int runs = 50, cpu_runs = 5, no_cpu = 0;
    double bpp = 1.0;
    const char *dir = NULL, *ppm = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cpu-runs") && i + 1 < argc)
            cpu_runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-cpu"))
            no_cpu = 1;
        else if (!strcmp(argv[i], "--bpp") && i + 1 < argc)
            bpp = atof(argv[++i]);
        else if (!strcmp(argv[i], "--write") && i + 1 < argc)
            dir = argv[++i];
        else if (argv[i][0] != '-' && !ppm)
            ppm = argv[i];
        else {
            fprintf(stderr, "usage: %s [--runs N] [--cpu-runs N] [--no-cpu] "
                    "[--bpp B] [--write DIR] [image.ppm]\n", argv[0]);
            return 2;
        }
    }
    if (runs < 1)
        runs = 1;
    if (cpu_runs < 1)
        cpu_runs = 1;
    REQUIRE_CUDA_DEVICE();
    struct cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));

    uint16_t *pl[3];
    if (ppm) {
        if (load_ppm(ppm, pl) < 0) {
            fprintf(stderr, "cannot read %s (binary P6 expected)\n", ppm);
            return 1;
        }
    } else {
        for (int c = 0; c < 3; c++)
            pl[c] = malloc((size_t)W * H * 2);
        htj2k_picture(pl, W, H);
    }
    if (dir)
        write_ppm(dir, pl);
    size_t plane = (size_t)W * H * 2;
    uint8_t *d_smp;
    CK(cudaMalloc((void **)&d_smp, plane * 3));
    sci_wt_plane hp[3], dp[3];
    for (int c = 0; c < 3; c++) {
        CK(cudaMemcpy(d_smp + c * plane, pl[c], plane, cudaMemcpyHostToDevice));
        hp[c].data = pl[c];
        dp[c].data = d_smp + c * plane;
        hp[c].row_stride = dp[c].row_stride = (ptrdiff_t)W * 2;
        hp[c].pixel_stride = dp[c].pixel_stride = 2;
    }
    cudaStream_t st;
    CK(cudaStreamCreate(&st));
    int threads = (int)sci_pool_threads(bench_pool());
    printf("# HTJ2K encode, %ux%u 4:4:4 %d-bit, %d levels, 64x64 blocks, %s\n",
           W, H, DEPTH, LEVELS, ppm ? ppm : "synthetic image");
    printf("GPU: %s; CPU: %d threads; %d GPU runs, %d CPU runs (medians)\n\n",
           prop.name, threads, runs, cpu_runs);

    mode modes[3] = {
        {"lossless", SCI_DWT_53, 0, 0},
        {"lossy", SCI_DWT_97, 0, 0},
        {"rate", SCI_DWT_97, 0, bpp},
    };
    char rows[3][512];
    for (int m = 0; m < 3; m++) {
        sci_wt_geometry g;
        memset(&g, 0, sizeof(g));
        g.width = W;
        g.height = H;
        g.components = 3;
        g.depth = DEPTH;
        for (int c = 0; c < 3; c++)
            g.dx[c] = g.dy[c] = 1;
        g.filter = modes[m].filter;
        g.levels = LEVELS;
        g.ct = g.filter == SCI_DWT_53 ? SCI_CT_RCT : SCI_CT_ICT;
        sci_htj2k_params p;
        sci_htj2k_params_default(&p);
        size_t nco = sci_wt_coeff_count(&g);
        void *h_co = malloc(nco * 4);
        if (sci_wt_forward(bench_pool(), &g, hp, h_co) < 0)
            return 1;
        if (m == 1) {
            /* the fixed step that gives about bpp: one rate-controlled
             * coding before timing */
            p.bitrate = bpp;
            sci_htj2k_enc *e = sci_htj2k_enc_new(&g, &p, bench_pool());
            size_t cap = sci_htj2k_max_bytes(e);
            uint8_t *o = malloc(cap);
            sci_htj2k_encode(e, h_co, o, cap);
            modes[1].qstep = sci_htj2k_last_qstep(e);
            sci_htj2k_enc_free(e);
            free(o);
            p.bitrate = 0;
        }
        if (modes[m].filter == SCI_DWT_97)
            p.qstep = m == 1 ? modes[1].qstep : p.qstep;
        p.bitrate = modes[m].bitrate;

        size_t free0, free1, total;
        CK(cudaDeviceSynchronize());
        CK(cudaMemGetInfo(&free0, &total));
        sci_htj2k_enc *eg = sci_htj2k_enc_new(&g, &p, bench_pool());
        if (!eg)
            return 1;
        sci_cuda_wt *wt;
        sci_cuda_ht *ht;
        void *d_co;
        CKW(sci_cuda_wt_create(&wt, &g));
        CK(cudaMalloc(&d_co, nco * 4));
        CKW(sci_cuda_ht_create(&ht, eg, &g, &p));
        CK(cudaMemGetInfo(&free1, &total));
        sci_cuda_ht_set_timing(ht, 1);
        size_t cap = sci_htj2k_max_bytes(eg), n = 0;
        /* pinned out: the coded blocks go straight from the device into it */
        uint8_t *out, *cout = malloc(cap);
        CK(cudaMallocHost((void **)&out, cap));
        cudaEvent_t e0, e1;
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
        int warm = 3;
        double *tt = malloc(sizeof(double) * (size_t)runs * 7);
        double *t_all = tt, *t_dwt = tt + runs, *t_code = tt + 2 * runs,
               *t_pack = tt + 3 * runs, *t_wr = tt + 4 * runs, *t_tr = tt + 5 * runs,
               *t_d2h = tt + 6 * runs;
        for (int r = -warm; r < runs; r++) {
            double t0 = bench_now_ms();
            CK(cudaEventRecord(e0, st));
            CKW(sci_cuda_wt_forward(wt, dp, d_co, st));
            CK(cudaEventRecord(e1, st));
            CKW(sci_cuda_ht_encode(ht, d_co, out, cap, &n, st));
            double t1 = bench_now_ms();
            if (r < 0)
                continue;
            float dwt;
            CK(cudaEventElapsedTime(&dwt, e0, e1));
            sci_cuda_ht_times tm;
            sci_cuda_ht_get_times(ht, &tm);
            t_all[r] = t1 - t0;
            t_dwt[r] = dwt;
            t_code[r] = tm.code_ms;
            t_pack[r] = tm.compact_ms;
            t_wr[r] = tm.write_ms;
            t_d2h[r] = tm.d2h_ms;
            t_tr[r] = tm.trials;
        }
        double all = bench_median(t_all, runs), dwt = bench_median(t_dwt, runs),
               code = bench_median(t_code, runs), pack = bench_median(t_pack, runs),
               wr = bench_median(t_wr, runs), d2h = bench_median(t_d2h, runs),
               trials = bench_median(t_tr, runs);
        double bits = n * 8.0 / ((double)W * H);
        if (dir) {
            char name[64];
            snprintf(name, sizeof(name), "%s.j2c", modes[m].name);
            write_file(dir, name, out, n);
        }

        double cpu = NAN;
        const char *same = "-";
        if (!no_cpu) {
            sci_htj2k_enc *ec = sci_htj2k_enc_new(&g, &p, bench_pool());
            double *tc = malloc(sizeof(double) * (size_t)cpu_runs);
            size_t nc = 0;
            for (int r = -1; r < cpu_runs; r++) {
                double t0 = bench_now_ms();
                sci_wt_forward(bench_pool(), &g, hp, h_co);
                nc = sci_htj2k_encode(ec, h_co, cout, cap);
                if (r >= 0)
                    tc[r] = bench_now_ms() - t0;
            }
            cpu = bench_median(tc, cpu_runs);
            same = nc == n && !memcmp(cout, out, n) ? "yes" : "NO";
            free(tc);
            sci_htj2k_enc_free(ec);
        }
        snprintf(rows[m], sizeof(rows[m]),
                 "| %s | %.3f | %.1f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.0f | "
                 "%.1f | %.1f | %.1fx | %s |",
                 modes[m].name, bits, 1000.0 / all, all, dwt, code, pack, wr, d2h, trials,
                 (double)(free0 - free1) / (1 << 20), cpu, cpu / all, same);
        printf("%s: qstep %g, %zu bytes, %zu code-blocks, HT handle %.1f MiB of device "
               "memory\n", modes[m].name, m == 0 ? 0.0 : sci_htj2k_last_qstep(eg), n,
               sci_htj2k_block_count(eg),
               (double)sci_cuda_ht_device_bytes(ht) / (1 << 20));
        CK(cudaEventDestroy(e0));
        CK(cudaEventDestroy(e1));
        free(tt);
        CK(cudaFreeHost(out));
        free(cout);
        free(h_co);
        sci_cuda_ht_destroy(ht);
        sci_cuda_wt_destroy(wt);
        CK(cudaFree(d_co));
        sci_htj2k_enc_free(eg);
    }
    printf("\n| mode | bpp | GPU fps | GPU ms | DWT ms | blocks ms | compact ms "
           "| tier-2 host ms | D2H ms | trials | device MiB | CPU ms | GPU/CPU | identical |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int m = 0; m < 3; m++)
        printf("%s\n", rows[m]);
    printf("\nGPU ms: wall time of a frame (samples in device memory to codestream "
           "in pinned host memory); compact ms: lengths to the host, scan and "
           "compaction (events); tier-2 host ms: markers and packet headers on the "
           "host (overlapping the compaction); D2H ms: host wall time from then "
           "until the coded blocks are in place (copies straight into the pinned "
           "output); device MiB: taken by the DWT scratch, the coefficient buffer "
           "and the HT handle (cudaMemGetInfo before/after).\n");
    CK(cudaStreamDestroy(st));
    CK(cudaFree(d_smp));
    for (int c = 0; c < 3; c++)
        free(pl[c]);
    return 0;
}
