/*
 * SPP (issue 5): the table of Delgado et al. on one machine in one run.
 * A 350 x 350 x 188 int16 cube (the AVIRIS Cuprite subset's size; a
 * synthetic mixture, since ../shared/data holds no real scene yet: four
 * smooth spectra mixed by spatially coherent abundances, plus noise) and
 * one 4x larger (700 x 700 x 188), windows 3, 5, 7, 9, 11: GPU ms (wall
 * per call, cube and output in device memory; and from/to host memory),
 * CPU ms (the C reference, on a thread a core), their ratio.  Every GPU
 * output is checked against the CPU's (relative error <= 1e-5).
 *
 *   bench-spp [--reps N]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "bench/common/benchutil.h"
#include "codec/spp/spp.h"
#include "cuda/spp/spp.h"
#include "tests/common/cudacheck.h"


static int reps = 5;

static uint64_t state = 88172645463325252ull;
static double noise(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (double)(state >> 11) * (1.0 / 9007199254740992.0) - 0.5;
}

static int16_t *mixture(size_t L, size_t S, size_t B) {
    enum { E = 4 };
    int16_t *cube = malloc(L * S * B * 2);
    for (size_t i = 0; i < L; i++)
        for (size_t j = 0; j < S; j++) {
            /* abundances: smooth blobs, normalised to sum 1 */
            double w[E], sum = 0;
            for (int e = 0; e < E; e++) {
                double cx = 0.25 + 0.5 * (e & 1), cy = 0.25 + 0.5 * (e >> 1);
                double dx = (double)j / S - cx, dy = (double)i / L - cy;
                w[e] = exp(-(dx * dx + dy * dy) * 18.0) + 1e-3;
                sum += w[e];
            }
            for (size_t b = 0; b < B; b++) {
                double v = 0;
                for (int e = 0; e < E; e++)
                    v += w[e] / sum *
                         (2000 + 1500 * e + 800 * sin(0.04 * b * (e + 1)));
                cube[(i * S + j) * B + b] = (int16_t)lround(v + 20 * noise());
            }
        }
    return cube;
}

static int check_out(const float *got, const float *want, size_t n) {
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)got[i] - want[i]);
        if (!(e <= 1e-5 * fabs((double)want[i])))
            return 0;
    }
    return 1;
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
    if (reps < 1)
        reps = 1;
    REQUIRE_CUDA_DEVICE();
    struct cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    int threads = (int)sci_pool_threads(bench_pool());
    printf("device: %s, %d SMs; CPU: the C reference on %d threads; "
           "median of %d after a warm-up\n\n",
           prop.name, prop.multiProcessorCount, threads, reps);
    sci_cuda_spp *g;
    CKW(sci_cuda_spp_create(&g));
    static const size_t sides[] = {350, 700};
    const size_t B = 188;
    printf("| cube | window | GPU ms (device) | GPU ms (host) | alpha ms | "
           "CPU ms | CPU / GPU |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- |\n");
    for (unsigned s = 0; s < 2; s++) {
        size_t L = sides[s], S = sides[s], n = L * S * B;
        int16_t *cube = mixture(L, S, B);
        float *cpu = malloc(n * 4), *gpu = malloc(n * 4);
        void *din, *dout;
        CK(cudaMalloc(&din, n * 2));
        CK(cudaMalloc(&dout, n * 4));
        CK(cudaMemcpy(din, cube, n * 2, cudaMemcpyHostToDevice));
        for (unsigned w = 3; w <= 11; w += 2) {
            double t_dev, t_host, t_cpu;
            BENCH_TIME_MEDIAN(t_dev, reps,
                        CKW(sci_cuda_spp_filter(g, din, 1, SCI_SPP_S16, L, S,
                                                B, w, dout, 1, NULL)));
            BENCH_TIME_MEDIAN(t_host, reps,
                        CKW(sci_cuda_spp_filter(g, cube, 0, SCI_SPP_S16, L,
                                                S, B, w, gpu, 0, NULL)));
            sci_cuda_spp_times tm;
            sci_cuda_spp_set_timing(g, 1);
            CKW(sci_cuda_spp_filter(g, din, 1, SCI_SPP_S16, L, S, B, w, dout,
                                    1, NULL));
            sci_cuda_spp_get_times(g, &tm);
            sci_cuda_spp_set_timing(g, 0);
            BENCH_TIME_MEDIAN(t_cpu, reps < 3 ? reps : 3,
                        CKW(sci_spp_filter(bench_pool(), cube, SCI_SPP_S16, L, S, B, w,
                                           cpu)));
            if (!check_out(gpu, cpu, n)) {
                fprintf(stderr, "bench-spp: GPU output differs from the "
                                "CPU's (%zux%zu, window %u)\n", L, S, w);
                return 1;
            }
            printf("| %zux%zux%zu | %u | %.3f | %.3f | %.3f | %.1f | %.0fx "
                   "|\n", L, S, B, w, t_dev, t_host, tm.alpha_ms, t_cpu,
                   t_cpu / t_dev);
            if (w == 11)
                printf("|   stages | centroid %.3f, unit %.3f, alpha %.3f, "
                       "displace %.3f (device memory) | | | | | |\n",
                       tm.centroid_ms, tm.unit_ms, tm.alpha_ms,
                       tm.displace_ms);
            fflush(stdout);
        }
        cudaFree(din);
        cudaFree(dout);
        free(cube);
        free(cpu);
        free(gpu);
    }
    printf("\ndevice memory held: %.1f MiB\n",
           sci_cuda_spp_device_bytes(g) / 1048576.0);
    sci_cuda_spp_destroy(g);
    return 0;
}
