/*
 * cuSZp (github.com/szcompressor/cuSZp, 3.x, BSD-3) on the seismic codec's
 * gathers: the independent GPU anchor of issue 24.  cuSZp is built from its
 * public source outside our tree and used through its public API only
 * (cuSZp.h's cuSZp_compress / cuSZp_decompress); not built by meson: see
 * build-cuszp.sh.
 *
 *   cuszp-seis [--csv FILE] [--reps N] [SEGY...]
 *
 * Codecs: cuSZp's three encodings (fixed: fixed-length codes of the
 * quantized values, a length a block; plain: of their deltas; outlier:
 * deltas, the block's first one, its start value, stored apart so that it
 * does not set the block's length), each processing the gather as 1-D
 * (traces one after another) and as 2-D (8 x 8 blocks, samples the fast
 * axis): six names, cuszp-MODE-1d / -2d.  All six quantize alike (x to
 * round(x / 2e), e the absolute bound), so at one bound they give the same
 * gather and differ only in size.  cuSZp's bound is absolute; a REL bound
 * r here is e = r (max - min) over the gather, as cuSZp's own command
 * line does.  cuSZp gets the values padded with copies of the edge values
 * (1-D to a multiple of 32768 values, 2-D to multiples of 8 traces and 8
 * samples; see `field`), and its CR still counts only the real values.
 *
 * 1. Rate against distortion: the gathers are the synthetic shot of
 * bench-seismic ("shot": bench/seismic/synthshot.h, 96 x 3584 at 2 ms, the
 * seed bench_seismic.c's run_gather uses, 0) and each SEG-Y file named
 * (tests/segy/segyread.c; a file is one gather, named after the file
 * without its extension: f3.sgy is bench-seismic's "f3").  For REL bounds
 * 10^(-1 - k/6), k = 0..30 (1e-1 .. 1e-6, about 3.3 dB apart: from about
 * 5 to 80 dB on the synthetic shot), every codec
 * compresses on the device and decompresses: CR = 4 x values / compressed
 * bytes, SNR = 10 log10(sum x^2 / sum (x - y)^2) as bench_seismic.c
 * measures it, and the largest error, which must stay within the bound
 * (plus float rounding of the quantization and reconstruction); and the
 * size cuSZp reports must hold what its decoder reads (the bytes past it
 * are spoilt and the field decoded again).  Rows that fail either are
 * marked and left out of the CSV.  cuSZp's compressed bytes carry no
 * header: the decoder must be told the value count, shape, mode and bound,
 * which the CR leaves out.
 *
 * 2. Decode throughput: the 64 shots that bench-seismic and
 * bench-seismic-gpu decode (seeds 1..64) as one 64 x 96 x 3584 float array
 * (2-D: 64 slices), at the REL bounds that give 25, 35 and 58 dB, the
 * mean of the shots' SNRs (our bits 8, 12, 16 there; bisected, one bound
 * for all codecs since they quantize alike), each codec's data compressed
 * once, then decoded
 * (a) the call alone: CUDA events around the cuSZp_decompress call (which
 * allocates, clears and frees its own scratch, so the events span the
 * whole call), repeated over output that a first decode left correct;
 * (b) from compressed bytes in device memory: the clear of the output and
 * the call (cuSZp writes nothing for a block of zeros, so a decode into a
 * buffer that held anything else needs the clear, as cuSZp's own example
 * program does); (c) from compressed bytes in page-locked host memory:
 * the copy of the bytes cuSZp reported (over device memory spoilt first)
 * to the device, the clear and the call.  Every decode that is measured
 * for SNR clears the output first.
 * Median of --reps runs (default 31, at least 20) after 3 warm-ups; GB/s
 * of float32 output (10^9 bytes); the timed runs' output is checked again.
 *
 * Prints markdown tables; --csv FILE writes bench-seismic's --csv columns
 * (gather, codec, bits, levels, cr, snr_db) with the REL bound where bits
 * go and levels 0, for scripts/seismic-vs-cuszp.py.  Exit status 1 when
 * a CUDA call failed, 77 without a CUDA device.
 */
#include <cuSZp.h>
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/common/benchutil.h"
#include "bench/seismic/synthshot.h"
#include "tests/common/cudacheck.h"
extern "C" {
#include "tests/segy/segyread.h"
}

#ifndef CUSZP_REV
#define CUSZP_REV "unknown"
#endif

#define SHOT_TRACES 96
#define SHOT_SAMPLES 3584
#define SHOT_DT 0.002
#define BATCH 64
#define NREL 31

static const struct codec {
    const char *name;
    cuszp_mode_t mode;
    cuszp_dim_t dim;
} codecs[] = {
    {"cuszp-fixed-1d", CUSZP_MODE_FIXED, CUSZP_DIM_1D},
    {"cuszp-plain-1d", CUSZP_MODE_PLAIN, CUSZP_DIM_1D},
    {"cuszp-outlier-1d", CUSZP_MODE_OUTLIER, CUSZP_DIM_1D},
    {"cuszp-fixed-2d", CUSZP_MODE_FIXED, CUSZP_DIM_2D},
    {"cuszp-plain-2d", CUSZP_MODE_PLAIN, CUSZP_DIM_2D},
    {"cuszp-outlier-2d", CUSZP_MODE_OUTLIER, CUSZP_DIM_2D},
};
#define NCODECS (sizeof codecs / sizeof *codecs)

/* A gather (or the batch of shots) on host and device: shots x traces x
 * samples real values.  cuSZp gets them padded with copies of the edge
 * values, which its CR does not count, because this version mishandles
 * what does not fill its blocks (seen on the GPU host: a 1-D field of
 * fewer than 32768 values is reported as 1,024 bytes whatever its content,
 * and the 2-D modes break the bound where a side is not a multiple of 8):
 *   1-D: n1 values, n rounded up to a multiple of 32768, in d_x1;
 *   2-D: shots slices of tpad traces of pitch samples (traces and samples
 *        rounded up to multiples of 8), in d_x2. */
typedef struct {
    char name[64];
    uint32_t traces, shots, samples, pitch, tpad;
    size_t n, n1, n2; /* real values, 1-D values, 2-D values */
    float *x;         /* host, shots x traces x samples */
    float *y;         /* host, a decoded field, max(n1, n2) values */
    float *d_x1, *d_x2, *d_y;
    unsigned char *d_cmp;
    size_t cap;       /* bytes of d_cmp */
    double range, peak;
} field;

static float *upload(const float *h, size_t n) {
    float *d;
    CK(cudaMalloc((void **)&d, n * sizeof(float)));
    CK(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
    return d;
}

static void field_init(field *f, const char *name, float *x, uint32_t traces,
                       uint32_t shots, uint32_t samples) {
    snprintf(f->name, sizeof f->name, "%s", name);
    f->traces = traces;
    f->shots = shots;
    f->samples = samples;
    f->pitch = (samples + 7) / 8 * 8;
    f->tpad = (traces + 7) / 8 * 8;
    f->n = (size_t)traces * shots * samples;
    f->n1 = (f->n + 32767) / 32768 * 32768;
    f->n2 = (size_t)shots * f->tpad * f->pitch;
    f->x = x;
    float lo = x[0], hi = x[0];
    f->peak = 0;
    for (size_t i = 0; i < f->n; i++) {
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
        f->peak = fabs(x[i]) > f->peak ? fabs(x[i]) : f->peak;
    }
    f->range = (double)hi - lo;
    const size_t ny = f->n1 > f->n2 ? f->n1 : f->n2;
    float *p = (float *)bench_xmalloc(ny * sizeof(float));
    for (size_t i = 0; i < f->n1; i++)
        p[i] = x[i < f->n ? i : f->n - 1];
    f->d_x1 = upload(p, f->n1);
    for (uint32_t k = 0; k < shots; k++)
        for (uint32_t t = 0; t < f->tpad; t++)
            for (uint32_t s = 0; s < f->pitch; s++)
                p[((size_t)k * f->tpad + t) * f->pitch + s] =
                    x[((size_t)k * traces + (t < traces ? t : traces - 1)) * samples +
                      (s < samples ? s : samples - 1)];
    f->d_x2 = upload(p, f->n2);
    free(p);
    f->y = (float *)bench_xmalloc(ny * sizeof(float));
    CK(cudaMalloc((void **)&f->d_y, ny * sizeof(float)));
    /* cuSZp takes no output capacity.  Its worst case is a fixed-length
     * code of 32 bits a value plus a rate byte and the signs a block (1-D:
     * 32 values, 2-D: 64), under 1.04 x the input, and its 1-D rate bytes
     * are padded to 1024 a 32768 values: 1/8 more and 64 KiB cover both.
     * The size it reports is checked against this after each call. */
    f->cap = ny * sizeof(float) + ny * sizeof(float) / 8 + 65536;
    CK(cudaMalloc((void **)&f->d_cmp, f->cap));
}

static void field_free(field *f) {
    CK(cudaFree(f->d_x1));
    CK(cudaFree(f->d_x2));
    CK(cudaFree(f->d_y));
    CK(cudaFree(f->d_cmp));
    free(f->y);
}

/* What one codec's call sees of a field: value count, shape, input. */
static size_t values_for(const field *f, const struct codec *c, uint3 *dims,
                         float **in) {
    if (c->dim == CUSZP_DIM_2D) {
        *dims = make_uint3(f->pitch, f->tpad, f->shots);
        *in = f->d_x2;
        return f->n2;
    }
    *dims = make_uint3((unsigned)f->n1, 1, 1);
    *in = f->d_x1;
    return f->n1;
}

typedef struct {
    double eb;       /* absolute bound */
    size_t bytes;
    double cr, snr, maxerr;
    int held;        /* the bound held */
    int sized;       /* the reported size held every byte the decoder read */
} point;

/* cuSZp's calls return nothing: their errors (its own cudaMalloc, the
 * kernel launch, a fault seen by its cudaMemcpy) are left for
 * cudaGetLastError, which CK turns into an exit. */
static size_t compress(const field *f, const struct codec *c, double eb) {
    uint3 dims;
    float *in;
    size_t nv = values_for(f, c, &dims, &in), bytes = 0;
    cuSZp_compress(in, f->d_cmp, nv, &bytes, (float)eb, c->dim, dims,
                   CUSZP_TYPE_FLOAT, c->mode, 0);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    if (bytes == 0 || bytes > f->cap) {
        fprintf(stderr, "%s %s: cuSZp reported %zu compressed bytes (buffer %zu)\n",
                f->name, c->name, bytes, f->cap);
        exit(1);
    }
    return bytes;
}

/* cuSZp writes nothing for a block whose values all quantize to zero: its
 * output must be cleared first (its own example program does so), or such
 * blocks keep whatever the buffer held before, which here was a finer
 * decode and flattered its SNR (issue 24's comparisons before
 * 2026-11-29 12:00 UTC).  clear = 0 only where the timing of the call
 * alone repeats a decode over output already correct. */
static void decompress(const field *f, const struct codec *c, double eb,
                       size_t bytes, int clear) {
    uint3 dims;
    float *in;
    size_t nv = values_for(f, c, &dims, &in);
    if (clear)
        CK(cudaMemsetAsync(f->d_y, 0, nv * sizeof(float), 0));
    cuSZp_decompress(f->d_y, f->d_cmp, nv, bytes, (float)eb, c->dim, dims,
                     CUSZP_TYPE_FLOAT, c->mode, 0);
    CK(cudaGetLastError());
}

/* SNR (of a batch, the mean of its shots' SNRs, as bench-seismic-gpu
 * gives ours) and largest error of the decoded field in d_y against x,
 * and whether the bound held: |x - y| <= e plus float rounding (x / 2e and
 * q 2e are computed in float: a few units in the last place of the largest
 * value). */
static void measure(field *f, const struct codec *c, point *p) {
    const int two = c->dim == CUSZP_DIM_2D;
    const uint32_t stride = two ? f->pitch : f->samples;
    const uint32_t rows = two ? f->tpad : f->traces; /* a shot's */
    CK(cudaMemcpy(f->y, f->d_y, (two ? f->n2 : f->n1) * sizeof(float),
                  cudaMemcpyDeviceToHost));
    double snr = 0, m = 0;
    for (uint32_t k = 0; k < f->shots; k++) {
        double s2 = 0, e2 = 0;
        for (uint32_t t = 0; t < f->traces; t++)
            for (uint32_t s = 0; s < f->samples; s++) {
                double x = f->x[((size_t)k * f->traces + t) * f->samples + s];
                double d = x - f->y[((size_t)k * rows + t) * stride + s];
                s2 += x * x;
                e2 += d * d;
                m = fabs(d) > m ? fabs(d) : m;
            }
        snr += e2 > 0 ? 10 * log10(s2 / e2) : INFINITY;
    }
    p->snr = snr / f->shots;
    p->maxerr = m;
    p->held = m <= p->eb + 4 * FLT_EPSILON * (f->peak + p->eb);
}

/* Codes f at REL bound rel and measures the result.  A size that cuSZp
 * under-reports would flatter its CR while the decoder, reading the same
 * device buffer, still finds the bytes past it: so the bytes past the
 * reported size are spoilt and the field decoded again, which must give
 * the same values. */
static point code(field *f, const struct codec *c, double rel) {
    point p;
    p.eb = rel * f->range;
    p.bytes = compress(f, c, p.eb);
    decompress(f, c, p.eb, p.bytes, 1);
    measure(f, c, &p);
    p.cr = 4.0 * f->n / p.bytes;
    const size_t ny = c->dim == CUSZP_DIM_2D ? f->n2 : f->n1;
    float *first = (float *)bench_xmalloc(ny * sizeof(float));
    memcpy(first, f->y, ny * sizeof(float));
    CK(cudaMemset(f->d_cmp + p.bytes, 0xa5, f->cap - p.bytes));
    decompress(f, c, p.eb, p.bytes, 1);
    CK(cudaMemcpy(f->y, f->d_y, ny * sizeof(float), cudaMemcpyDeviceToHost));
    p.sized = !memcmp(first, f->y, ny * sizeof(float));
    free(first);
    return p;
}

/* Rows where cuSZp broke its bound or under-reported its size are marked
 * and left out of the CSV (counted in *excluded): they are the anchor's
 * faults, not points to compare with. */
static void sweep(field *f, FILE *csv, int *excluded) {
    printf("\n### %s: %u traces x %u samples", f->name, f->traces, f->samples);
    printf(" (cuSZp sees %zu values in 1-D, %u x %u in 2-D)", f->n1, f->tpad,
           f->pitch);
    printf("\n\nrange %.6g, peak %.6g\n\n", f->range, f->peak);
    printf("| codec | REL bound | abs bound | bytes | CR | SNR dB | max err / "
           "bound |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (size_t ci = 0; ci < NCODECS; ci++)
        for (int k = 0; k < NREL; k++) {
            double rel = pow(10.0, -1.0 - k / 6.0);
            point p = code(f, &codecs[ci], rel);
            printf("| %s | %.3g | %.4g | %zu | %.3f | %.2f | %.4f%s%s |\n",
                   codecs[ci].name, rel, p.eb, p.bytes, p.cr, p.snr,
                   p.maxerr / p.eb, p.held ? "" : " **bound not held**",
                   p.sized ? "" : " **size under-reported**");
            if (!p.held || !p.sized)
                (*excluded)++;
            else if (csv)
                fprintf(csv, "%s,%s,%.3g,0,%.5f,%.4f\n", f->name,
                        codecs[ci].name, rel, p.cr, p.snr);
        }
    fflush(stdout);
}

/* The REL bound whose SNR is within 0.2 dB of target (or the closest of
 * 16 bisection steps over log10 of it), found with one codec: all
 * reconstruct alike. */
static double rel_for_snr(field *f, double target) {
    double lo = -7, hi = -0.5, best = hi, best_d = INFINITY;
    for (int it = 0; it < 16; it++) {
        double mid = 0.5 * (lo + hi);
        point p = code(f, &codecs[0], pow(10.0, mid));
        if (fabs(p.snr - target) < best_d) {
            best_d = fabs(p.snr - target);
            best = mid;
        }
        if (best_d < 0.2)
            break;
        if (p.snr > target)
            lo = mid;
        else
            hi = mid;
    }
    return pow(10.0, best);
}

/* Median ms of reps decodes after 3 warm-ups, with the compressed bytes
 * copied from h_cmp first when it is not NULL, and the output cleared
 * first when clear is set. */
static double time_decode(const field *f, const struct codec *c, double eb,
                          size_t bytes, const unsigned char *h_cmp, int clear,
                          int reps) {
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    double *t = (double *)bench_xmalloc(reps * sizeof *t);
    for (int r = -3; r < reps; r++) {
        CK(cudaEventRecord(e0, 0));
        if (h_cmp)
            CK(cudaMemcpyAsync(f->d_cmp, h_cmp, bytes, cudaMemcpyHostToDevice, 0));
        decompress(f, c, eb, bytes, clear);
        CK(cudaEventRecord(e1, 0));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (r >= 0)
            t[r] = ms;
    }
    double med = bench_median(t, reps);
    free(t);
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    return med;
}

static void throughput(int reps, int *excluded) {
    static const double targets[] = {25, 35, 58};
    const size_t per = (size_t)SHOT_TRACES * SHOT_SAMPLES;
    float *x = (float *)bench_xmalloc(BATCH * per * sizeof(float));
    for (int k = 0; k < BATCH; k++)
        synthshot(x + k * per, SHOT_TRACES, SHOT_SAMPLES, SHOT_DT, (uint64_t)k + 1);
    field f;
    field_init(&f, "shots64", x, SHOT_TRACES, BATCH, SHOT_SAMPLES);
    unsigned char *h_cmp;
    CK(cudaMallocHost((void **)&h_cmp, f.cap));
    const double gb = 4.0 * f.n / 1e9;
    printf("\n### Decoding %d shots of %d x %d at once (%.3f GB of float32)\n\n",
           BATCH, SHOT_TRACES, SHOT_SAMPLES, gb);
    printf("median of %d runs after 3 warm-ups; call: compressed bytes in "
           "device memory, the cuSZp_decompress call alone, repeated over "
           "output a first decode left correct; device: the clear of the "
           "output that a decode needs (cuSZp skips blocks of zeros) and the "
           "call; host: compressed bytes in page-locked host memory, their "
           "copy, the clear and the call\n\n", reps);
    printf("| target dB | REL bound | codec | CR | SNR dB | call ms | call GB/s "
           "| device ms | device GB/s | host ms | host GB/s |\n| ---: | ---: | "
           "--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (size_t ti = 0; ti < sizeof targets / sizeof *targets; ti++) {
        double rel = rel_for_snr(&f, targets[ti]);
        for (size_t ci = 0; ci < NCODECS; ci++) {
            const struct codec *c = &codecs[ci];
            point p = code(&f, c, rel);
            CK(cudaMemcpy(h_cmp, f.d_cmp, p.bytes, cudaMemcpyDeviceToHost));
            double call = time_decode(&f, c, p.eb, p.bytes, NULL, 0, reps);
            double dev = time_decode(&f, c, p.eb, p.bytes, NULL, 1, reps);
            /* spoil what the compressor left on the device, so that the
             * check below sees whether the bytes it reported suffice */
            CK(cudaMemset(f.d_cmp, 0xff, f.cap));
            double host = time_decode(&f, c, p.eb, p.bytes, h_cmp, 1, reps);
            point q = p;
            measure(&f, c, &q);
            int ok = p.held && q.held && q.snr == p.snr;
            printf("| %.0f | %.3g | %s | %.3f | %.2f | %.3f | %.1f | %.3f | "
                   "%.1f | %.3f | %.1f |%s\n", targets[ti], rel, c->name, p.cr,
                   p.snr, call, gb / (call * 1e-3), dev, gb / (dev * 1e-3), host,
                   gb / (host * 1e-3),
                   ok ? "" : " **bound not held or timed runs decoded differently**");
            if (!ok)
                (*excluded)++;
            fflush(stdout);
        }
    }
    CK(cudaFreeHost(h_cmp));
    field_free(&f);
    free(x);
}

static int usage(FILE *to, const char *argv0) {
    fprintf(to, "usage: %s [--csv FILE] [--reps N] [SEGY...]\n"
            "  cuSZp (%s) on the synthetic shot and each SEG-Y gather: CR and "
            "SNR\n  over REL bounds 1e-1..1e-6, then 64-shot decode "
            "throughput; --reps N\n  timed decodes (20..256, default 31)\n",
            argv0, CUSZP_REV);
    return to == stdout ? 0 : 2;
}

int main(int argc, char **argv) {
    const char *csv_path = NULL;
    int reps = 31, nsegy = 0;
    const char **segy = (const char **)bench_xmalloc(argc * sizeof *segy);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            free(segy);
            return usage(stdout, argv[0]);
        } else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
            csv_path = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (argv[i][0] != '-')
            segy[nsegy++] = argv[i];
        else {
            free(segy);
            return usage(stderr, argv[0]);
        }
    }
    if (reps < 20 || reps > 256) {
        free(segy);
        return usage(stderr, argv[0]);
    }
    /* read everything before the GPU is touched */
    segy_gather *g = (segy_gather *)bench_xmalloc((nsegy ? nsegy : 1) * sizeof *g);
    for (int i = 0; i < nsegy; i++) {
        char why[256];
        if (segy_read(segy[i], &g[i], why, sizeof why)) {
            fprintf(stderr, "%s\n", why);
            return 1;
        }
    }
    FILE *csv = NULL;
    if (csv_path) {
        csv = fopen(csv_path, "w");
        if (!csv) {
            fprintf(stderr, "cannot write %s\n", csv_path);
            return 1;
        }
        fprintf(csv, "gather,codec,bits,levels,cr,snr_db\n");
    }
    REQUIRE_CUDA_DEVICE();
    struct cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    char date[64];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M", localtime(&now));
    printf("## cuszp-seis %s\n\ncuSZp %s on %s\n", date, CUSZP_REV, prop.name);

    int bad = 0, excluded = 0;
    float *shot = (float *)bench_xmalloc((size_t)SHOT_TRACES * SHOT_SAMPLES * sizeof(float));
    synthshot(shot, SHOT_TRACES, SHOT_SAMPLES, SHOT_DT, 0);
    field f;
    field_init(&f, "shot", shot, SHOT_TRACES, 1, SHOT_SAMPLES);
    sweep(&f, csv, &excluded);
    field_free(&f);
    free(shot);
    for (int i = 0; i < nsegy; i++) {
        /* the file's name without folder and extension */
        const char *base = strrchr(segy[i], '/');
        base = base ? base + 1 : segy[i];
        char name[64];
        snprintf(name, sizeof name, "%s", base);
        char *dot = strrchr(name, '.');
        if (dot && dot != name)
            *dot = 0;
        field_init(&f, name, g[i].data, g[i].traces, 1, g[i].samples);
        sweep(&f, csv, &excluded);
        field_free(&f);
        segy_free(&g[i]);
    }
    free(g);
    free(segy);
    if (csv && fclose(csv)) {
        fprintf(stderr, "cannot write %s\n", csv_path);
        bad = 1;
    }
    throughput(reps, &excluded);
    if (excluded)
        printf("\n%d rows marked above (cuSZp broke its bound, under-reported "
               "its size or decoded differently when timed): left out of the "
               "CSV\n", excluded);
    return bad;
}
