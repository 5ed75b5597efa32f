/*
 * The CUDA SPP filter (cuda/spp/spp.h) against the C reference (codec/spp/spp.c),
 * in the manner of dav1d's checkasm: every input format, cubes of awkward
 * sizes (1 x 1, single lines and columns, odd sizes, windows larger than
 * the cube, a 350 x 350 x 188 cube), contents from random to constant,
 * zero vectors and extremes, synthetic mixtures, the simulated Indian
 * Pines cube when the data is there; every window 3..15.  Each output
 * value must be within 1e-5 of the reference's, relative to it (the
 * GPU's sums are the reference's, in double, in its order, except the
 * centroid's split over blocks and the device's atan2: the largest error
 * seen is printed).  Input from host and device memory, output to both;
 * NaN input and bad arguments refused as the reference refuses them.  The
 * kernels planned for 64 KiB of shared memory a block (Turing) give the
 * very same output.
 *
 *   parity-spp [--seed N] [--quick] [--data DIR]
 *
 * --quick: small cubes only (the emulated run in CI).  Exit 0 when all
 * pass, 1 on a failure, 77 when there is no CUDA device.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "codec/spp/spp.h"
#include "cuda/spp/spp.h"
#include "tests/common/cudacheck.h"
#include "tests/common/testutil.h"

#define TOLERANCE 1e-5

enum { RANDOM, CONSTANT, ZEROS, EXTREMES, MIXTURE };

static double max_err;

static double urand(void) {
    return (double)(rng() >> 11) * (1.0 / 9007199254740992.0);
}

static void fill(void *cube, sci_spp_format f, size_t L, size_t S, size_t B,
                 int content) {
    double hi = f == SCI_SPP_U8 ? 255 : f == SCI_SPP_U16 ? 65535
              : f == SCI_SPP_S16 ? 32767 : 1e4;
    double lo = f == SCI_SPP_S16 ? -32768 : f == SCI_SPP_F32 ? -1e4 : 0;
    for (size_t p = 0; p < L * S; p++)
        for (size_t b = 0; b < B; b++) {
            double v;
            size_t i = p / S, j = p % S;
            switch (content) {
            case CONSTANT: v = (double)(b % 5) + 1; break;
            case ZEROS: v = (p % 3 == 0) ? 0 : floor(hi * urand()); break;
            case EXTREMES: v = rng() & 1 ? hi : lo; break;
            case MIXTURE: {
                /* two smooth spectra blended across the cube's middle */
                double w = j < S / 2 ? 0 : j > S / 2 + 2 ? 1
                         : (double)(j - S / 2) / 3;
                w = i % 7 == 0 ? 1 - w : w;
                double e0 = 0.3 + 0.1 * sin(0.07 * (double)b);
                double e1 = 0.5 + 0.2 * cos(0.05 * (double)b + 1);
                v = (hi > 0 ? hi : 1) * 0.5 * ((1 - w) * e0 + w * e1);
                break;
            }
            default: v = floor(lo + (hi - lo) * urand()); break;
            }
            size_t k = p * B + b;
            switch (f) {
            case SCI_SPP_U8: ((uint8_t *)cube)[k] = (uint8_t)v; break;
            case SCI_SPP_S16: ((int16_t *)cube)[k] = (int16_t)v; break;
            case SCI_SPP_U16: ((uint16_t *)cube)[k] = (uint16_t)v; break;
            case SCI_SPP_F32:
                ((float *)cube)[k] = (float)(content == RANDOM ? v * 1e-2 : v);
                break;
            }
        }
}

static int compare(const float *got, const float *want, size_t n) {
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)got[i] - want[i]);
        double rel = want[i] ? e / fabs((double)want[i]) : e;
        if (rel > max_err)
            max_err = rel;
        if (!(rel <= TOLERANCE) || !isfinite(got[i]))
            return 0;
    }
    return 1;
}

/* The cube from host and device memory, to host and device memory. */
static int run_cube(sci_cuda_spp *g, const void *cube, sci_spp_format f,
                    size_t L, size_t S, size_t B, unsigned window,
                    const char *what) {
    size_t n = L * S * B, vb = sci_spp_value_bytes(f);
    float *want = malloc(n * 4), *got = malloc(n * 4);
    void *din, *dout;
    CK(cudaMalloc(&din, n * vb));
    CK(cudaMalloc(&dout, n * 4));
    CK(cudaMemcpy(din, cube, n * vb, cudaMemcpyHostToDevice));
    int ok = sci_spp_filter(test_pool(), cube, f, L, S, B, window, want) == 0;
    for (int mode = 0; mode < 2 && ok; mode++) {
        memset(got, 0xff, n * 4);
        if (mode == 0) {
            ok = sci_cuda_spp_filter(g, cube, 0, f, L, S, B, window, got, 0,
                                     NULL) == 0;
        } else {
            ok = sci_cuda_spp_filter(g, din, 1, f, L, S, B, window, dout, 1,
                                     NULL) == 0;
            CK(cudaMemcpy(got, dout, n * 4, cudaMemcpyDeviceToHost));
        }
        ok = ok && compare(got, want, n);
    }
    if (!ok)
        printf("FAIL %s: %zux%zux%zu format %d window %u\n", what, L, S, B,
               (int)f, window);
    check(ok, what);
    cudaFree(din);
    cudaFree(dout);
    free(want);
    free(got);
    return ok;
}

static int run_case(sci_cuda_spp *g, sci_spp_format f, size_t L, size_t S,
                    size_t B, unsigned window, int content) {
    size_t n = L * S * B;
    void *cube = malloc(n * sci_spp_value_bytes(f) + 1);
    fill(cube, f, L, S, B, content);
    int ok = run_cube(g, cube, f, L, S, B, window, "GPU output within 1e-5 "
                                                    "of the reference");
    free(cube);
    return ok;
}

/* The kernels planned for a GPU with 64 KiB of shared memory a block
 * (Turing), which takes fewer bands a chunk: the very same floats. */
static int run_small_smem(sci_cuda_spp *g, size_t L, size_t S, size_t B,
                          unsigned window) {
    size_t n = L * S * B;
    uint16_t *cube = malloc(n * 2);
    float *a = malloc(n * 4), *b = malloc(n * 4);
    for (size_t i = 0; i < n; i++)
        cube[i] = (uint16_t)(rng() % 4096);
    int ok = sci_cuda_spp_filter(g, cube, 0, SCI_SPP_U16, L, S, B, window, a,
                                 0, NULL) == 0;
    sci_cuda_spp_limit_shared(g, 65536);
    ok = ok && sci_cuda_spp_filter(g, cube, 0, SCI_SPP_U16, L, S, B, window,
                                   b, 0, NULL) == 0;
    sci_cuda_spp_limit_shared(g, 0);
    ok = ok && !memcmp(a, b, n * 4);
    if (!ok)
        printf("FAIL %zux%zux%zu window %u with 64 KiB of shared memory\n", L,
               S, B, window);
    check(ok, "the same output with 64 KiB of shared memory a block");
    free(cube);
    free(a);
    free(b);
    return ok;
}

static int run_real(sci_cuda_spp *g, const char *dir) {
    char path[1024];
    snprintf(path, sizeof path, "%s/hyperspectral/indian_pines_clean.bip",
             dir);
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        printf("note: %s not read; no real cube\n", path);
        return 0;
    }
    const size_t L = 145, S = 145, B = 224, n = L * S * B;
    float *cube = malloc(n * 4);
    int ok = fread(cube, 4, n, fp) == n;
    fclose(fp);
    int runs = 0;
    for (unsigned w = 3; ok && w <= 11; w += 4, runs++)
        ok = run_cube(g, cube, SCI_SPP_F32, L, S, B, w, "real cube");
    free(cube);
    return runs;
}

int main(int argc, char **argv) {
    int quick = 0;
    const char *dir = "../shared/data";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--data") && i + 1 < argc)
            dir = argv[++i];
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            rng_state = strtoull(argv[++i], NULL, 0);
    }
    REQUIRE_CUDA_DEVICE();
    sci_cuda_spp *g;
    CKW(sci_cuda_spp_create(&g));
    static const size_t sizes[][3] = {{1, 1, 1},  {1, 1, 5},   {1, 17, 3},
                                      {17, 1, 3}, {2, 3, 4},   {16, 16, 8},
                                      {17, 33, 7}, {31, 5, 40}, {5, 40, 17}};
    static const sci_spp_format fmts[] = {SCI_SPP_U8, SCI_SPP_S16,
                                          SCI_SPP_U16, SCI_SPP_F32};
    int runs = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (unsigned fi = 0; fi < 4; fi++)
            for (unsigned w = 3; w <= 15; w += 2) {
                int content = (int)((s + fi + w) % 5);
                run_case(g, fmts[fi], sizes[s][0], sizes[s][1], sizes[s][2],
                         w, content);
                runs++;
            }
    /* random sizes */
    for (int i = 0; i < (quick ? 6 : 30); i++) {
        size_t L = 1 + rng() % (quick ? 30 : 120);
        size_t S = 1 + rng() % (quick ? 30 : 120);
        size_t B = 1 + rng() % (quick ? 20 : 260);
        unsigned w = 3 + 2 * (unsigned)(rng() % 7);
        run_case(g, fmts[rng() % 4], L, S, B, w, (int)(rng() % 5));
        runs++;
    }
    run_small_smem(g, 21, 19, 150, 15);
    run_small_smem(g, 18, 23, 200, 9);
    runs += 2;
    if (!quick) {
        run_case(g, SCI_SPP_U16, 350, 350, 188, 11, MIXTURE);
        run_case(g, SCI_SPP_F32, 350, 350, 188, 5, RANDOM);
        runs += 2;
        runs += run_real(g, dir);
    }
    /* refusals as the reference's */
    {
        float v[8] = {1, 2, 3, 4, 5, 6, 7, NAN}, o[8];
        int ok = sci_cuda_spp_filter(g, v, 0, SCI_SPP_F32, 2, 2, 2, 3, o, 0,
                                     NULL) == SCI_SPP_E_VALUE;
        v[7] = INFINITY;
        ok &= sci_cuda_spp_filter(g, v, 0, SCI_SPP_F32, 2, 2, 2, 3, o, 0,
                                  NULL) == SCI_SPP_E_VALUE;
        ok &= sci_cuda_spp_filter(g, v, 0, SCI_SPP_F32, 2, 2, 0, 3, o, 0,
                                  NULL) == SCI_SPP_E_ARG &&
              sci_cuda_spp_filter(g, v, 0, SCI_SPP_F32, 2, 2, 2, 4, o, 0,
                                  NULL) == SCI_SPP_E_ARG;
        check(ok, "NaN and infinite input and bad arguments refused");
    }
    printf("parity-spp: %d cubes, %u checks passed, %u failed; largest "
           "relative error %.3g (bound %.0e); device memory held %zu bytes\n",
           runs, check_passed, check_failed, max_err, TOLERANCE,
           sci_cuda_spp_device_bytes(g));
    sci_cuda_spp_destroy(g);
    return check_failed ? 1 : 0;
}
