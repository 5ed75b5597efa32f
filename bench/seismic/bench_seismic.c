/*
 * The seismic codec (codec/seismic/seismic.h: float 5/3 DWT, uniform quantization
 * to n bits, Huffman in 64-bit packages) against ZFP at equal compression
 * ratio, CPU, same data and same run.  Prints markdown tables.
 *
 *   bench-seismic [--quick] [--csv FILE] [--reps N] [SEGY...]
 *
 * SEGY: gathers in SEG-Y files, each named after its file (f3.sgy: "f3"),
 * read by tests/segy/segyread.c; default the F3 gather (414 traces x 75
 * samples, int16), ../shared/data/seismic/f3.sgy next to the source tree
 * (meson passes its path).  The Volve lines there are the other real
 * gathers of issue 24's comparison with cuSZp (bench/anchors/cuszp_seis.cu).
 *
 * Gathers:
 *   f3     (each SEGY) the real F3 gather as it is (North Sea, cropped; 4 ms);
 *   shot   a synthetic 96 x 3584 marine shot gather at 2 ms (model below);
 *   f3x    the first SEGY gather ("x" after its name) mirror-tiled to
 *          828 x 1500 (copies, every other one mirrored so the copies meet
 *          smoothly): a gather big enough for the codec's parallel paths
 *          (>= 65536 values); its CR and SNR say little about real data of
 *          that size.  Not with --quick.
 *
 * For each gather, our codec at bits 2..16 and levels 1..4 (--quick: bits
 * 8, 12, 16 and levels 1, 3): frame bytes, CR = 4 x values / bytes (the
 * frame has its 48-byte header, the zstd'd code table and the CRC), SNR =
 * 10 log10(sum x^2 / sum (x - y)^2), Pearson r, and encode and decode
 * speed in MB/s of float32 gather (10^6 bytes; decode includes
 * sci_seis_parse, i.e. the CRC), the median of several runs after a warm-up,
 * on the codec's thread pool (a thread a CPU, or SCI_BENCH_THREADS; the
 * codec parallelises only from 65536 values: f3 runs on one thread).  Then
 * ZFP (libzfp, 2-D float, nx = samples, ny = traces, no header) at the
 * same CR, two ways:
 *   fixed rate   rate = 32 / CR bits a value (ZFP rounds it to 1/16 bit
 *                and pads partial 4x4 blocks: its actual CR is printed);
 *   fixed accuracy  the tolerance bisected until the size brackets ours.
 *                ZFP uses only floor(log2(tolerance)) (zfp_stream_set_
 *                accuracy sets minexp = that), so the size is a step
 *                function of the tolerance, with steps of roughly one bit a
 *                value: bisection over the exponent finds the two
 *                neighbouring tolerances 2^e, 2^(e+1) whose sizes bracket
 *                ours, and where neither is within 1% of ours the SNR at
 *                our size is interpolated linearly in log(size) between
 *                them (column "SNR @ our CR"; "~" marks interpolated ones).
 * The differences "ours - ZFP" are in dB at equal size.
 *
 * Decode throughput: 64 synthetic shots (seeds 1..64 of the model) coded
 * at bits 8, 12, 16, levels 3; time per shot and GB/s of float output to
 * decode batches of 1, 8 and 64 shots (parse + decode), (a) OpenMP over
 * the shots (one shot a thread, the decoder serially inside) and (b) one
 * shot after another, each on the codec's thread pool; and ZFP fixed-rate
 * at the same CR, OpenMP over the shots (ZFP decompresses serially), as
 * the anchor.  Threads: omp_get_max_threads (OMP_NUM_THREADS) for the
 * loops over shots, the pool's for the codec, both printed.
 *
 * --csv FILE writes one row per point: gather, codec (ours, zfp-rate,
 * zfp-accuracy), bits, levels, CR, SNR dB; scripts/plot-bench-seismic.py
 * plots it.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench/common/benchutil.h"
#include "synthshot.h"
#include "codec/seismic/seismic.h"
#include "tests/segy/segyread.h"

#if HAVE_ZFP
#include <zfp.h>
#endif

#ifndef BENCH_SEISMIC_FILE
#define BENCH_SEISMIC_FILE "../shared/data/seismic/f3.sgy"
#endif

static int threads(void) {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* ---------------------------------------------------------------------- */
/* The synthetic shot: bench/seismic/synthshot.h's model, 96 x 3584 at 2 ms. */

#define SHOT_TRACES 96
#define SHOT_SAMPLES 3584
#define SHOT_DT 0.002

static float *make_shot(uint64_t seed) {
    float *g = bench_xmalloc((size_t)SHOT_TRACES * SHOT_SAMPLES * sizeof *g);
    synthshot(g, SHOT_TRACES, SHOT_SAMPLES, SHOT_DT, seed);
    return g;
}

/* ---------------------------------------------------------------------- */
/* Measures */

typedef struct {
    double snr, r;
} quality;

static quality measure(const float *x, const float *y, size_t n) {
    double sx = 0, sy = 0;
    for (size_t i = 0; i < n; i++) {
        sx += x[i];
        sy += y[i];
    }
    double mx = sx / n, my = sy / n, sxx = 0, syy = 0, sxy = 0, s2 = 0,
           e2 = 0;
    for (size_t i = 0; i < n; i++) {
        double a = x[i] - mx, b = y[i] - my, d = (double)x[i] - y[i];
        sxx += a * a;
        syy += b * b;
        sxy += a * b;
        s2 += (double)x[i] * x[i];
        e2 += d * d;
    }
    quality q = {e2 > 0 ? 10 * log10(s2 / e2) : INFINITY,
                 sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 1.0};
    return q;
}

/* ---------------------------------------------------------------------- */
/* ZFP */

#if HAVE_ZFP
/* Compresses x (traces x samples) at fixed rate (mode 0, param = bits a
 * value) or fixed accuracy (mode 1, param = tolerance) and decompresses
 * into y (when not NULL); the compressed bytes. */
static size_t zfp_run(const float *x, uint32_t traces, uint32_t samples,
                      int mode, double param, float *y, double *actual) {
    zfp_field *f = zfp_field_2d((void *)x, zfp_type_float, samples, traces);
    zfp_stream *z = zfp_stream_open(NULL);
    double a = mode == 0
                   ? zfp_stream_set_rate(z, param, zfp_type_float, 2, zfp_false)
                   : zfp_stream_set_accuracy(z, param);
    if (actual)
        *actual = a;
    size_t cap = zfp_stream_maximum_size(z, f);
    void *buf = bench_xmalloc(cap);
    bitstream *bs = stream_open(buf, cap);
    zfp_stream_set_bit_stream(z, bs);
    zfp_stream_rewind(z);
    size_t bytes = zfp_compress(z, f);
    if (y && bytes) {
        zfp_field *o = zfp_field_2d(y, zfp_type_float, samples, traces);
        zfp_stream_rewind(z);
        if (!zfp_decompress(z, o))
            bytes = 0;
        zfp_field_free(o);
    }
    zfp_field_free(f);
    zfp_stream_close(z);
    stream_close(bs);
    free(buf);
    return bytes;
}
#endif

/* ---------------------------------------------------------------------- */
/* One gather */

typedef struct {
    int quick, reps;
    FILE *csv;
} options;

/* How many timed runs: about 0.3 s of them, 3..31 (--reps overrides). */
static int reps_for(double ms, const options *o) {
    if (o->reps)
        return o->reps;
    int r = (int)(300.0 / (ms > 0.01 ? ms : 0.01));
    r = r < 3 ? 3 : r > 31 ? 31 : r;
    return o->quick && r > 5 ? 5 : r;
}

static void run_gather(const char *name, const float *x, uint32_t traces,
                       uint32_t samples, const options *o) {
    const size_t n = (size_t)traces * samples;
    double s2 = 0, peak = 0;
    float lo = x[0], hi = x[0];
    for (size_t i = 0; i < n; i++) {
        s2 += (double)x[i] * x[i];
        peak = fabs(x[i]) > peak ? fabs(x[i]) : peak;
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    double rms = sqrt(s2 / n);
    printf("\n### %s: %u traces x %u samples\n\n", name, traces, samples);
    printf("values %g .. %g, RMS %.4g, peak / RMS %.1f (%.1f dB)\n\n", lo, hi,
           rms, peak / rms, 20 * log10(peak / rms));
    printf("| bits | levels | bytes | CR | SNR dB | r | enc MB/s | dec MB/s "
           "| ZFP-FR rate | ZFP-FR CR | ZFP-FR SNR | ours - FR dB | ZFP-FA "
           "tol | ZFP-FA CR | ZFP-FA SNR | SNR @ our CR | ours - FA dB |\n");
    printf("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
           "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    static const unsigned quick_bits[] = {8, 12, 16};
    static const unsigned quick_levels[] = {1, 3};
    unsigned nb = o->quick ? 3 : 15, nl = o->quick ? 2 : 4;
    float *y = bench_xmalloc(n * sizeof *y);
    for (unsigned bi = 0; bi < nb; bi++) {
        unsigned bits = o->quick ? quick_bits[bi] : 2 + bi;
        for (unsigned li = 0; li < nl; li++) {
            unsigned levels = o->quick ? quick_levels[li] : 1 + li;
            sci_seis_params p = {traces, samples, 0, bits, levels, 0};
            size_t bound = sci_seis_frame_bound(&p, 0), len = 0;
            uint8_t *f = bench_xmalloc(bound);
            double t0 = bench_now_ms();
            int rc = sci_seis_encode(bench_pool(), &p, x, NULL, 0, f, bound, &len, NULL);
            double first = bench_now_ms() - t0;
            if (rc) {
                printf("| %u | %u | encode failed: %s |\n", bits, levels,
                       sci_seis_error_string(rc));
                free(f);
                continue;
            }
            int reps = reps_for(first, o);
            double enc_ms, dec_ms;
            BENCH_TIME_MEDIAN(enc_ms, reps,
                              sci_seis_encode(bench_pool(), &p, x, NULL, 0, f, bound, &len,
                                              NULL));
            sci_seis_info info;
            int drc = 0;
            BENCH_TIME_MEDIAN(dec_ms, reps, {
                drc |= sci_seis_parse(f, len, &info);
                drc |= sci_seis_decode(bench_pool(), f, &info, NULL, y);
            });
            if (drc) {
                printf("| %u | %u | decode failed |\n", bits, levels);
                free(f);
                continue;
            }
            quality q = measure(x, y, n);
            double cr = 4.0 * n / len;
            printf("| %u | %u | %zu | %.2f | %.2f | %.6f | %.0f | %.0f ", bits,
                   levels, len, cr, q.snr, q.r, 4e-3 * n / enc_ms,
                   4e-3 * n / dec_ms);
            if (o->csv)
                fprintf(o->csv, "%s,ours,%u,%u,%.5f,%.4f\n", name, bits,
                        levels, cr, q.snr);
#if HAVE_ZFP
            /* fixed rate */
            double rate = 32.0 / cr, actual = 0;
            size_t zb = zfp_run(x, traces, samples, 0, rate, y, &actual);
            quality zq = measure(x, y, n);
            double zcr = 4.0 * n / zb;
            printf("| %.3f | %.2f | %.2f | %+.2f ", actual, zcr, zq.snr,
                   q.snr - zq.snr);
            if (o->csv)
                fprintf(o->csv, "%s,zfp-rate,%u,%u,%.5f,%.4f\n", name, bits,
                        levels, zcr, zq.snr);
            /* fixed accuracy: bisection over the tolerance's exponent */
            int ehi = (int)ceil(log2(peak > 0 ? peak : 1)) + 2, elo = ehi - 64;
            size_t s_lo = zfp_run(x, traces, samples, 1, ldexp(1, elo), NULL,
                                  NULL);
            size_t s_hi = zfp_run(x, traces, samples, 1, ldexp(1, ehi), NULL,
                                  NULL);
            if (s_lo <= len || s_hi > len) {
                printf("| n/a (sizes %zu..%zu do not bracket ours) | | | | "
                       "|\n", s_hi, s_lo);
            } else {
                /* size(2^elo) > len >= size(2^ehi) */
                while (ehi - elo > 1) {
                    int mid = (elo + ehi) / 2;
                    size_t s = zfp_run(x, traces, samples, 1, ldexp(1, mid),
                                       NULL, NULL);
                    if (s <= len) {
                        ehi = mid;
                        s_hi = s;
                    } else {
                        elo = mid;
                        s_lo = s;
                    }
                }
                float *y2 = bench_xmalloc(n * sizeof *y2);
                zfp_run(x, traces, samples, 1, ldexp(1, elo), y, NULL);
                zfp_run(x, traces, samples, 1, ldexp(1, ehi), y2, NULL);
                double snr_lo = measure(x, y, n).snr; /* bigger, better */
                double snr_hi = measure(x, y2, n).snr;
                free(y2);
                double d_lo = fabs((double)s_lo / len - 1),
                       d_hi = fabs((double)s_hi / len - 1);
                int use_lo = d_lo < d_hi;
                int e = use_lo ? elo : ehi;
                size_t s = use_lo ? s_lo : s_hi;
                double snr = use_lo ? snr_lo : snr_hi;
                int interp = (use_lo ? d_lo : d_hi) > 0.01;
                char snr_s[32], at_s[32], diff_s[32];
                if (isinf(snr))
                    snprintf(snr_s, sizeof snr_s, "lossless");
                else
                    snprintf(snr_s, sizeof snr_s, "%.2f", snr);
                if (!interp) {
                    snprintf(at_s, sizeof at_s, "%s", snr_s);
                    snprintf(diff_s, sizeof diff_s, "%+.2f", q.snr - snr);
                } else if (isinf(snr_lo)) {
                    /* between snr_hi and lossless: no interpolation */
                    snprintf(at_s, sizeof at_s, "> %.2f", snr_hi);
                    snprintf(diff_s, sizeof diff_s, "< %+.2f",
                             q.snr - snr_hi);
                } else {
                    double at = snr_hi + (snr_lo - snr_hi) *
                                             (log((double)len) -
                                              log((double)s_hi)) /
                                             (log((double)s_lo) -
                                              log((double)s_hi));
                    snprintf(at_s, sizeof at_s, "~%.2f", at);
                    snprintf(diff_s, sizeof diff_s, "%+.2f", q.snr - at);
                }
                printf("| 2^%d | %.2f | %s | %s | %s |\n", e, 4.0 * n / s,
                       snr_s, at_s, diff_s);
                if (o->csv) {
                    fprintf(o->csv, "%s,zfp-accuracy,%u,%u,%.5f,%.4f\n", name,
                            bits, levels, 4.0 * n / s_lo, snr_lo);
                    fprintf(o->csv, "%s,zfp-accuracy,%u,%u,%.5f,%.4f\n", name,
                            bits, levels, 4.0 * n / s_hi, snr_hi);
                }
            }
#else
            printf("| n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a "
                   "|\n");
#endif
            free(f);
        }
    }
    free(y);
    fflush(stdout);
}

/* ---------------------------------------------------------------------- */
/* Decode throughput over shots */

/* The shots of a batch, their frames, and ZFP's. */
typedef struct {
    float **out;
    uint8_t **frames;
    size_t *lens;
    uint8_t **zbuf;
    size_t zcap;
    double rate;
} batch_ctx;

/* Decodes shots 0..batch-1, OpenMP over the shots, each decoded on its
 * thread alone; nonzero on failure. */
static int decode_over(const batch_ctx *c, int batch) {
    int bad = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(| : bad)
    for (int k = 0; k < batch; k++) {
        sci_seis_info info;
        bad |= sci_seis_parse(c->frames[k], c->lens[k], &info) ||
               sci_seis_decode(NULL, c->frames[k], &info, NULL, c->out[k]);
    }
    return bad;
}

/* The same one shot after another, on the codec's thread pool. */
static int decode_inside(const batch_ctx *c, int batch) {
    int bad = 0;
    for (int k = 0; k < batch; k++) {
        sci_seis_info info;
        bad |= sci_seis_parse(c->frames[k], c->lens[k], &info) ||
               sci_seis_decode(bench_pool(), c->frames[k], &info, NULL, c->out[k]);
    }
    return bad;
}

#if HAVE_ZFP
static void zfp_over(const batch_ctx *c, int batch) {
#pragma omp parallel for schedule(dynamic, 1)
    for (int k = 0; k < batch; k++) {
        zfp_field *f = zfp_field_2d(c->out[k], zfp_type_float, SHOT_SAMPLES,
                                    SHOT_TRACES);
        zfp_stream *z = zfp_stream_open(NULL);
        zfp_stream_set_rate(z, c->rate, zfp_type_float, 2, zfp_false);
        bitstream *bs = stream_open(c->zbuf[k], c->zcap);
        zfp_stream_set_bit_stream(z, bs);
        zfp_stream_rewind(z);
        zfp_decompress(z, f);
        zfp_field_free(f);
        zfp_stream_close(z);
        stream_close(bs);
    }
}
#endif

static void run_batches(const options *o) {
    const size_t n = (size_t)SHOT_TRACES * SHOT_SAMPLES;
    const int nshots = 64;
    static const unsigned bits_list[] = {8, 12, 16};
    static const int batches[] = {1, 8, 64};
    float **shots = bench_xmalloc(nshots * sizeof *shots);
    float **out = bench_xmalloc(nshots * sizeof *out);
    uint8_t **frames = bench_xmalloc(nshots * sizeof *frames);
    size_t *lens = bench_xmalloc(nshots * sizeof *lens);
    for (int k = 0; k < nshots; k++) {
        shots[k] = make_shot((uint64_t)k + 1);
        out[k] = bench_xmalloc(n * sizeof(float));
    }
    printf("\n### Decoding batches of %d x %d shots (levels 3)\n\n",
           SHOT_TRACES, SHOT_SAMPLES);
    printf("%d OpenMP threads over shots, %u pool threads inside a shot; GB/s "
           "of float32 output (10^9 bytes); median of the runs after a "
           "warm-up\n\n", threads(), sci_pool_threads(bench_pool()));
    printf("| bits | mean CR | batch | decoder | ms / shot | GB/s | vs ZFP "
           "|\n");
    printf("| ---: | ---: | ---: | --- | ---: | ---: | ---: |\n");
    for (size_t b = 0; b < sizeof bits_list / sizeof *bits_list; b++) {
        unsigned bits = bits_list[b];
        sci_seis_params p = {SHOT_TRACES, SHOT_SAMPLES, 2000, bits, 3, 0};
        size_t bound = sci_seis_frame_bound(&p, 0), total = 0;
        for (int k = 0; k < nshots; k++) {
            frames[k] = bench_xmalloc(bound);
            if (sci_seis_encode(bench_pool(), &p, shots[k], NULL, 0, frames[k], bound,
                                &lens[k], NULL)) {
                fprintf(stderr, "encode failed\n");
                exit(1);
            }
            total += lens[k];
        }
        double cr = 4.0 * n * nshots / total;
#if HAVE_ZFP
        /* the anchor: ZFP fixed rate at the same mean CR */
        double rate = 32.0 / cr;
        zfp_stream *zs = zfp_stream_open(NULL);
        zfp_field *zf0 = zfp_field_2d(shots[0], zfp_type_float, SHOT_SAMPLES,
                                      SHOT_TRACES);
        zfp_stream_set_rate(zs, rate, zfp_type_float, 2, zfp_false);
        size_t zcap = zfp_stream_maximum_size(zs, zf0);
        zfp_field_free(zf0);
        zfp_stream_close(zs);
        uint8_t **zbuf = bench_xmalloc(nshots * sizeof *zbuf);
        for (int k = 0; k < nshots; k++) {
            zbuf[k] = bench_xmalloc(zcap);
            zfp_field *f = zfp_field_2d(shots[k], zfp_type_float,
                                        SHOT_SAMPLES, SHOT_TRACES);
            zfp_stream *z = zfp_stream_open(NULL);
            zfp_stream_set_rate(z, rate, zfp_type_float, 2, zfp_false);
            bitstream *bs = stream_open(zbuf[k], zcap);
            zfp_stream_set_bit_stream(z, bs);
            zfp_stream_rewind(z);
            zfp_compress(z, f);
            zfp_field_free(f);
            zfp_stream_close(z);
            stream_close(bs);
        }
#endif
        for (size_t bt = 0; bt < sizeof batches / sizeof *batches; bt++) {
            int batch = batches[bt];
            int reps = o->reps ? o->reps : o->quick ? 3 : batch >= 64 ? 5 : 11;
            double t_over, t_inside, t_zfp = NAN;
            int bad = 0;
            batch_ctx c = {out, frames, lens, NULL, 0, 0};
#if HAVE_ZFP
            c.zbuf = zbuf;
            c.zcap = zcap;
            c.rate = rate;
#endif
            BENCH_TIME_MEDIAN(t_over, reps, bad |= decode_over(&c, batch));
            BENCH_TIME_MEDIAN(t_inside, reps,
                              bad |= decode_inside(&c, batch));
#if HAVE_ZFP
            BENCH_TIME_MEDIAN(t_zfp, reps, zfp_over(&c, batch));
#endif
            if (bad)
                printf("| %u | decode failed |\n", bits);
            const double gb = 4.0 * n * batch / 1e9;
            printf("| %u | %.2f | %d | ours, OpenMP over shots | %.2f | %.2f "
                   "| %.2fx |\n", bits, cr, batch, t_over / batch,
                   gb / (t_over * 1e-3), t_zfp / t_over);
            printf("| %u | %.2f | %d | ours, codec's thread pool | %.2f | "
                   "%.2f | %.2fx |\n", bits, cr, batch, t_inside / batch,
                   gb / (t_inside * 1e-3), t_zfp / t_inside);
#if HAVE_ZFP
            printf("| %u | %.2f | %d | ZFP fixed rate %.3f, OpenMP over shots "
                   "| %.2f | %.2f | 1 |\n", bits, cr, batch, rate,
                   t_zfp / batch, gb / (t_zfp * 1e-3));
#endif
        }
#if HAVE_ZFP
        for (int k = 0; k < nshots; k++)
            free(zbuf[k]);
        free(zbuf);
#endif
        for (int k = 0; k < nshots; k++)
            free(frames[k]);
    }
    for (int k = 0; k < nshots; k++) {
        free(shots[k]);
        free(out[k]);
    }
    free(shots);
    free(out);
    free(frames);
    free(lens);
}

/* ---------------------------------------------------------------------- */

/* A gather's name in the tables and the CSV: its file's name without the
 * folder and the extension (f3.sgy: "f3"), then `suffix`. */
static const char *gather_name(const char *path, const char *suffix, char *buf,
                               size_t cap) {
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    const char *dot = strrchr(b, '.');
    int n = dot ? (int)(dot - b) : (int)strlen(b);
    snprintf(buf, cap, "%.*s%s", n, b, suffix);
    return buf;
}

static float *tile_f3(const float *f3, uint32_t tr, uint32_t ns, uint32_t T,
                      uint32_t S) {
    float *g = bench_xmalloc((size_t)T * S * sizeof *g);
    for (uint32_t t = 0; t < T; t++) {
        uint32_t bt = t / tr, it = t % tr;
        uint32_t st = bt % 2 ? tr - 1 - it : it;
        for (uint32_t s = 0; s < S; s++) {
            uint32_t bs = s / ns, is = s % ns;
            uint32_t ss = bs % 2 ? ns - 1 - is : is;
            g[(size_t)t * S + s] = f3[(size_t)st * ns + ss];
        }
    }
    return g;
}

int main(int argc, char **argv) {
    options o = {0, 0, NULL};
    const char *def = BENCH_SEISMIC_FILE, *csv = NULL, **paths = &def;
    int npaths = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            o.quick = 1;
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
            csv = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            o.reps = atoi(argv[++i]);
        else if (argv[i][0] != '-') {
            paths = (const char **)&argv[i];
            for (npaths = 0; i < argc && argv[i][0] != '-'; i++)
                npaths++;
            i--;
        } else {
            fprintf(stderr, "usage: %s [--quick] [--csv FILE] [--reps N] "
                    "[SEGY...]\n", argv[0]);
            return 2;
        }
    }
    if (o.reps < 0 || o.reps > 256) {
        fprintf(stderr, "--reps: 1..256\n");
        return 2;
    }
    segy_gather *seg = bench_xmalloc(npaths * sizeof *seg);
    char why[256];
    for (int i = 0; i < npaths; i++)
        if (segy_read(paths[i], &seg[i], why, sizeof why)) {
            fprintf(stderr, "%s\n", why);
            return 1;
        }
    if (csv) {
        o.csv = fopen(csv, "w");
        if (!o.csv) {
            fprintf(stderr, "cannot write %s\n", csv);
            return 1;
        }
        fprintf(o.csv, "gather,codec,bits,levels,cr,snr_db\n");
    }
    char date[64];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M", localtime(&now));
    printf("## bench-seismic %s\n\n", date);
    for (int i = 0; i < npaths; i++)
        printf("data: %s (%u x %u, format %d)\n", paths[i], seg[i].traces,
               seg[i].samples, seg[i].format);
    printf("codec pool threads: %u (CPUs: %u)\n",
           sci_pool_threads(bench_pool()), sci_pool_cpus());
#ifdef _OPENMP
    printf("OpenMP threads for the loops over shots: %d\n", threads());
#else
    printf("OpenMP: not built in (loops over shots on 1 thread)\n");
#endif
#if HAVE_ZFP
    printf("ZFP: %s\n", zfp_version_string);
#else
    printf("ZFP: not found at build time (n/a)\n");
#endif
    double l[3];
    if (getloadavg(l, 3) == 3)
        printf("load average at start: %.2f %.2f %.2f\n", l[0], l[1], l[2]);

    char name[256];
    for (int i = 0; i < npaths; i++)
        run_gather(gather_name(paths[i], "", name, sizeof name), seg[i].data,
                   seg[i].traces, seg[i].samples, &o);
    float *shot = make_shot(0);
    run_gather("shot", shot, SHOT_TRACES, SHOT_SAMPLES, &o);
    free(shot);
    if (!o.quick) {
        float *t = tile_f3(seg[0].data, seg[0].traces, seg[0].samples, 828, 1500);
        run_gather(gather_name(paths[0], "x", name, sizeof name), t, 828, 1500, &o);
        free(t);
    }
    run_batches(&o);
    if (getloadavg(l, 3) == 3)
        printf("\nload average at end: %.2f %.2f %.2f\n", l[0], l[1], l[2]);
    if (o.csv)
        fclose(o.csv);
    for (int i = 0; i < npaths; i++)
        segy_free(&seg[i]);
    free(seg);
    return 0;
}
