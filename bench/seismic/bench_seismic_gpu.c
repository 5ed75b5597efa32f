/*
 * The seismic decoder on the GPU against the CPU decoder (issue 6): decode
 * time per 96 x 3584 shot and GB/s of float32 output for batches of 1 to
 * 1024 shots, from frames in host memory (as a file gives them) to gathers
 * in device memory, with the time split into host preparation, upload,
 * package decoding and inverse DWT; the CPU decoder on all cores (OpenMP
 * over the shots of a batch) in the same run; and the encoder, GPU (gathers
 * in device memory, transform and quantization there, codes and packages on
 * the host) against the CPU encoder over the shots on all cores, every GPU
 * frame checked against the CPU's bytes first.
 *
 * The shots are synthetic (bench/seismic/synthshot.h: hyperbolic reflections,
 * direct wave, spherical divergence, noise; 2 ms sampling), 64 different
 * ones cycled through larger batches.  Every GPU gather of a batch is
 * checked against the CPU decoder's, bit for bit, before it is timed.
 *
 * --version V writes the frames in version V (3 to 7; 0, the default: the
 * newest), to compare versions in one run.
 *
 *   bench-seismic-gpu [--reps N] [--bits B] [--version V] [--quick]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench/common/benchutil.h"
#include "synthshot.h"
#include "codec/seismic/seismic.h"
#include "cuda/seismic/seismic.h"
#include "tests/common/cudacheck.h"

#define TRACES 96
#define SAMPLES 3584
#define DISTINCT 64

typedef struct {
    uint8_t *frame;
    size_t len;
    sci_seis_info info;
} shot;

static int threads(void) {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

static void decode_cpu(shot *sh, unsigned batch, float *out) {
    const size_t n = (size_t)TRACES * SAMPLES;
    int bad = 0;
#pragma omp parallel for schedule(dynamic) reduction(| : bad)
    for (unsigned i = 0; i < batch; i++) {
        shot *s = &sh[i % DISTINCT];
        bad |= sci_seis_decode(NULL, s->frame, &s->info, NULL, out + i * n) != 0;
    }
    if (bad) {
        fprintf(stderr, "CPU decode failed\n");
        exit(1);
    }
}

static void encode_cpu(const sci_seis_params *p, const float *g,
                       unsigned batch, uint8_t **out, const size_t *cap,
                       size_t *len) {
    const size_t n = (size_t)TRACES * SAMPLES;
    int bad = 0;
#pragma omp parallel for schedule(dynamic) reduction(| : bad)
    for (unsigned i = 0; i < batch; i++)
        bad |= sci_seis_encode(NULL, &p[i], g + (size_t)(i % DISTINCT) * n, NULL, 0,
                               out[i], cap[i], &len[i], NULL) != 0;
    if (bad) {
        fprintf(stderr, "CPU encode failed\n");
        exit(1);
    }
}

int main(int argc, char **argv) {
    int reps = 9, quick = 0;
    unsigned bits = 12, version = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--bits") && i + 1 < argc)
            bits = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--version") && i + 1 < argc)
            version = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quick"))
            quick = 1;
    }
    /* --bits and --version as the codec takes them */
    const sci_seis_params asked = {TRACES, SAMPLES, 2000, bits, 4, version};
    const char *why = sci_seis_params_check(&asked);
    if (why) {
        fprintf(stderr, "bench-seismic-gpu: %s\n", why);
        return 2;
    }
    REQUIRE_CUDA_DEVICE();
    struct cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("bench-seismic-gpu: %s, %d CPU threads, %u x %u shots, "
           "%u bits, frame version %u\n\n",
           prop.name, threads(), TRACES, SAMPLES, bits,
           version ? version : SCI_SEIS_VERSION);

    const size_t n = (size_t)TRACES * SAMPLES;
    float *g = malloc(n * 4);
    static const unsigned levels_list[] = {1, 4};
    static const unsigned batches[] = {1, 8, 64, 256, 1024};
    const unsigned nbatch = quick ? 3 : 5;
    const unsigned max_batch = batches[nbatch - 1];
    float *cpu_out = malloc((size_t)max_batch * n * 4);
    float *host_check = malloc((size_t)64 * n * 4);
    float *dev_out;
    CK(cudaMalloc((void **)&dev_out, (size_t)max_batch * n * 4));
    sci_cuda_seis *cs;
    CKW(sci_cuda_seis_create(&cs));
    CKW(sci_cuda_seis_set_timing(cs, 1));
    /* the host's share of a batch on the codec's threads */
    sci_cuda_seis_set_pool(cs, bench_pool());

    for (unsigned li = 0; li < 2; li++) {
        const unsigned levels = levels_list[li];
        shot sh[DISTINCT];
        double enc_ms = 0, cr = 0, snr = 0;
        for (unsigned i = 0; i < DISTINCT; i++) {
            synthshot(g, TRACES, SAMPLES, 0.002, i + 1);
            sci_seis_params p = {TRACES, SAMPLES, 2000, bits, levels,
                                 version};
            size_t cap = sci_seis_frame_bound(&p, 0);
            sh[i].frame = malloc(cap);
            double t0 = bench_now_ms();
            int e = sci_seis_encode(bench_pool(), &p, g, NULL, 0, sh[i].frame, cap,
                                    &sh[i].len, NULL);
            enc_ms += bench_now_ms() - t0;
            if (e || sci_seis_parse(sh[i].frame, sh[i].len, &sh[i].info)) {
                fprintf(stderr, "encode failed\n");
                return 1;
            }
            cr += (double)n * 4 / sh[i].len;
            float *y = cpu_out;
            sci_seis_decode(bench_pool(), sh[i].frame, &sh[i].info, NULL, y);
            double s2 = 0, e2 = 0;
            for (size_t k = 0; k < n; k++) {
                s2 += (double)g[k] * g[k];
                e2 += ((double)g[k] - y[k]) * ((double)g[k] - y[k]);
            }
            snr += 10 * log10(s2 / e2);
        }
        printf("levels %u: mean CR %.2f, mean SNR %.2f dB; CPU encode "
               "%.2f ms a shot (all threads inside one shot)\n\n",
               levels, cr / DISTINCT, snr / DISTINCT, enc_ms / DISTINCT);

        printf("| levels | shots | GPU ms | GPU ms/shot | GPU GB/s | host | "
               "upload | decode | dwt | CPU ms/shot | CPU GB/s | GPU/CPU |\n");
        printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- "
               "| --- | --- |\n");
        for (unsigned bi = 0; bi < nbatch; bi++) {
            const unsigned b = batches[bi];
            const uint8_t **frames = malloc(b * sizeof *frames);
            sci_seis_info *info = malloc(b * sizeof *info);
            float **outs = malloc(b * sizeof *outs);
            int *status = malloc(b * sizeof *status);
            for (unsigned i = 0; i < b; i++) {
                frames[i] = sh[i % DISTINCT].frame;
                info[i] = sh[i % DISTINCT].info;
                outs[i] = dev_out + (size_t)i * n;
            }
            /* check first: every gather of the batch equals the CPU's */
            CKW(sci_cuda_seis_decode(cs, b, frames, info, outs, NULL, status,
                                     NULL));
            decode_cpu(sh, b < DISTINCT ? b : DISTINCT, cpu_out);
            unsigned nchk = b < DISTINCT ? b : DISTINCT;
            CK(cudaMemcpy(host_check, dev_out, (size_t)nchk * n * 4,
                          cudaMemcpyDeviceToHost));
            if (memcmp(host_check, cpu_out, (size_t)nchk * n * 4)) {
                fprintf(stderr, "GPU output differs from the CPU's\n");
                return 1;
            }
            double gpu_ms;
            sci_cuda_seis_times tm = {0, 0, 0, 0}, acc = {0, 0, 0, 0};
            BENCH_TIME_MEDIAN(gpu_ms, reps, {
                CKW(sci_cuda_seis_decode(cs, b, frames, info, outs, NULL,
                                         status, NULL));
                sci_cuda_seis_get_times(cs, &tm);
                acc.host += tm.host;
                acc.upload += tm.upload;
                acc.decode += tm.decode;
                acc.dwt += tm.dwt;
            });
            double cpu_ms;
            int creps = b >= 256 ? 3 : reps;
            BENCH_TIME_MEDIAN(cpu_ms, creps, decode_cpu(sh, b, cpu_out));
            double gb = (double)b * n * 4 / 1e9;
            int runs = reps + 1;
            printf("| %u | %u | %.2f | %.3f | %.1f | %.2f | %.2f | %.2f | "
                   "%.2f | %.2f | %.2f | %.0fx |\n",
                   levels, b, gpu_ms, gpu_ms / b, gb / (gpu_ms * 1e-3),
                   acc.host / runs, acc.upload / runs, acc.decode / runs,
                   acc.dwt / runs, cpu_ms / b, gb / (cpu_ms * 1e-3),
                   cpu_ms / gpu_ms);
            free(frames);
            free(info);
            free(outs);
            free(status);
        }
        printf("\n");

        /* the encoder: gathers in device memory to frames in host memory,
         * against the CPU encoder over the shots on all cores */
        printf("| levels | shots | GPU encode ms/shot | GPU GB/s in | CPU "
               "encode ms/shot | CPU GB/s in | GPU/CPU |\n");
        printf("| --- | --- | --- | --- | --- | --- | --- |\n");
        for (unsigned bi = 0; bi < nbatch && batches[bi] <= 256; bi++) {
            const unsigned b = batches[bi];
            sci_seis_params *pp = malloc(b * sizeof *pp);
            const float **gs = malloc(b * sizeof *gs);
            uint8_t **fo = malloc(b * sizeof *fo);
            size_t *caps = malloc(b * sizeof *caps);
            size_t *lens = malloc(b * sizeof *lens);
            for (unsigned i = 0; i < b; i++) {
                pp[i] = (sci_seis_params){TRACES, SAMPLES, 2000, bits, levels,
                                          version};
                caps[i] = sci_seis_frame_bound(&pp[i], 0);
                fo[i] = malloc(caps[i]);
                gs[i] = dev_out + (size_t)(i % DISTINCT) * n;
            }
            /* the inputs: the first shots, decoded above, are on the device
             * in dev_out; re-encode them */
            for (unsigned i = 0; i < DISTINCT && i < b; i++) {
                synthshot(g, TRACES, SAMPLES, 0.002, i + 1);
                CK(cudaMemcpy(dev_out + (size_t)i * n, g, n * 4,
                              cudaMemcpyHostToDevice));
            }
            CKW(sci_cuda_seis_encode(cs, b, pp, gs, NULL, NULL, fo, caps,
                                     lens, NULL, NULL, NULL));
            for (unsigned i = 0; i < b && i < DISTINCT; i++)
                if (lens[i] != sh[i].len ||
                    memcmp(fo[i], sh[i].frame, lens[i])) {
                    fprintf(stderr, "GPU frame differs from the CPU's\n");
                    return 1;
                }
            double gpu_ms, cpu_ms;
            BENCH_TIME_MEDIAN(gpu_ms, reps,
                              CKW(sci_cuda_seis_encode(cs, b, pp, gs, NULL,
                                                       NULL, fo, caps, lens,
                                                       NULL, NULL, NULL)));
            float *hg = malloc((size_t)(b < DISTINCT ? b : DISTINCT) * n * 4);
            for (unsigned i = 0; i < DISTINCT && i < b; i++)
                synthshot(hg + (size_t)i * n, TRACES, SAMPLES, 0.002, i + 1);
            BENCH_TIME_MEDIAN(cpu_ms, b >= 64 ? 3 : reps,
                              encode_cpu(pp, hg, b, fo, caps, lens));
            double gb = (double)b * n * 4 / 1e9;
            printf("| %u | %u | %.3f | %.1f | %.3f | %.2f | %.1fx |\n", levels,
                   b, gpu_ms / b, gb / (gpu_ms * 1e-3), cpu_ms / b,
                   gb / (cpu_ms * 1e-3), cpu_ms / gpu_ms);
            for (unsigned i = 0; i < b; i++)
                free(fo[i]);
            free(pp);
            free(gs);
            free(fo);
            free(caps);
            free(lens);
            free(hg);
        }
        printf("\n");
        for (unsigned i = 0; i < DISTINCT; i++)
            free(sh[i].frame);
    }
    printf("GPU ms: the whole call (host preparation, upload, kernels, "
           "status read back), median of %d; host/upload/decode/dwt: mean "
           "ms of each part; GB/s: float32 output.\n",
           reps);
    sci_cuda_seis_destroy(cs);
    CK(cudaFree(dev_out));
    free(g);
    free(cpu_out);
    free(host_check);
    return 0;
}
