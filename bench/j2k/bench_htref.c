/*
 * HT refinement passes (sci_htj2k_params refinement) on real and 4K-like
 * pictures, CPU: for each picture and bitrate target, the encoder with
 * refinement none, sigprop and all; the size reached (bits per pixel, its
 * distance from the target) and the PSNR of our decoder's output against
 * the source (peak 2^depth - 1), and the coding time.  Then, at fixed
 * steps (the one rate control found for none), bytes and PSNR of the
 * three.
 *
 *   bench-htref [--data DIR] [--no-4k] [--rates a,b,...]
 *
 * Pictures: TREx blueline and near-infrared auroral frames (frame 0 of
 * DIR/aurora, 16-bit), the TRACE 171 A solar frame (DIR/frames16, FITS,
 * 1024 x 1024, 12 significant bits), and bench-htj2k's 3840 x 2160 12-bit
 * 4:4:4 picture with ICT; 9/7, 5 levels, 64 x 64 code-blocks.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/j2k/htj2k_picture.h"
#include "codec/common/parallel.h"
#include "codec/j2k/htj2k.h"
#include "codec/j2k/j2k_dec.h"
#include "codec/j2k/wavelet_frame.h"
#include "tests/common/readfile.h"

#ifndef BENCH_DATA_DIR
#define BENCH_DATA_DIR "../shared/data"
#endif

typedef struct {
    const char *name;
    uint32_t w, h;
    unsigned nc, depth;
    uint16_t *pl[3];
} picture;

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static unsigned depth_of(const uint16_t *p, size_t n) {
    uint16_t m = 0;
    for (size_t i = 0; i < n; i++)
        m = p[i] > m ? p[i] : m;
    unsigned d = 1;
    while ((1u << d) <= m)
        d++;
    return d;
}

/* Frame 0 of an ENVI BSQ uint16 little-endian cube. */
static int load_bsq(picture *p, const char *path, uint32_t w, uint32_t h) {
    size_t n;
    uint8_t *d = test_read_file(path, &n);
    if (!d || n < (size_t)w * h * 2) {
        free(d);
        return -1;
    }
    p->w = w, p->h = h, p->nc = 1;
    p->pl[0] = malloc((size_t)w * h * 2);
    for (size_t i = 0; i < (size_t)w * h; i++)
        p->pl[0][i] = (uint16_t)(d[2 * i] | d[2 * i + 1] << 8);
    p->depth = depth_of(p->pl[0], (size_t)w * h);
    free(d);
    return 0;
}

/* A FITS primary image of BITPIX 16 (big-endian int16, no BZERO), its
 * values all >= 0. */
static int load_fits16(picture *p, const char *path) {
    size_t n, pos = 0;
    uint8_t *d = test_read_file(path, &n);
    long naxis1 = 0, naxis2 = 0, bitpix = 0;
    int end = 0;
    if (!d)
        return -1;
    for (; pos + 80 <= n && !end; pos += 80) {
        const char *c = (const char *)d + pos;
        if (!strncmp(c, "BITPIX  =", 9))
            bitpix = strtol(c + 10, NULL, 10);
        else if (!strncmp(c, "NAXIS1  =", 9))
            naxis1 = strtol(c + 10, NULL, 10);
        else if (!strncmp(c, "NAXIS2  =", 9))
            naxis2 = strtol(c + 10, NULL, 10);
        else if (!strncmp(c, "END     ", 8))
            end = 1;
    }
    pos = (pos + 2879) / 2880 * 2880;
    if (!end || bitpix != 16 || naxis1 <= 0 || naxis2 <= 0 ||
        pos + (size_t)naxis1 * naxis2 * 2 > n) {
        free(d);
        return -1;
    }
    p->w = (uint32_t)naxis1, p->h = (uint32_t)naxis2, p->nc = 1;
    p->pl[0] = malloc((size_t)p->w * p->h * 2);
    for (size_t i = 0; i < (size_t)p->w * p->h; i++) {
        int16_t v = (int16_t)(d[pos + 2 * i] << 8 | d[pos + 2 * i + 1]);
        p->pl[0][i] = (uint16_t)(v < 0 ? 0 : v);
    }
    p->depth = depth_of(p->pl[0], (size_t)p->w * p->h);
    free(d);
    return 0;
}

static void geometry(const picture *p, sci_wt_geometry *g) {
    memset(g, 0, sizeof *g);
    g->width = p->w, g->height = p->h;
    g->components = p->nc, g->depth = p->depth;
    for (unsigned c = 0; c < p->nc; c++)
        g->dx[c] = g->dy[c] = 1;
    g->filter = SCI_DWT_97;
    g->levels = 5;
    g->ct = p->nc == 3 ? SCI_CT_ICT : SCI_CT_NONE;
}

/* PSNR of our decoder's output of cs against p; NAN when it fails. */
static double psnr(const picture *p, const uint8_t *cs, size_t len) {
    sci_j2k_dec *d = sci_j2k_dec_new();
    sci_j2k_info info;
    double se = 0, r = NAN;
    size_t n = (size_t)p->w * p->h;
    uint16_t *out[3] = {NULL, NULL, NULL};
    sci_j2k_plane pl[3];
    if (sci_j2k_dec_parse(d, cs, len, &info) == 0 && info.components == p->nc) {
        for (unsigned c = 0; c < p->nc; c++) {
            out[c] = malloc(n * 2);
            pl[c].data = out[c];
            pl[c].stride = p->w;
            pl[c].bytes = 2;
        }
        sci_j2k_decode_params dp = {0, 0};
        if (sci_j2k_dec_decode(d, &dp, pl) == 0) {
            for (unsigned c = 0; c < p->nc; c++)
                for (size_t i = 0; i < n; i++) {
                    double e = (double)out[c][i] - p->pl[c][i];
                    se += e * e;
                }
            double peak = pow(2.0, p->depth) - 1;
            r = 10 * log10(peak * peak / (se / ((double)n * p->nc)));
        }
    }
    for (unsigned c = 0; c < 3; c++)
        free(out[c]);
    sci_j2k_dec_free(d);
    return r;
}

static const char *mode_name[3] = {"none", "sigprop", "all"};

/* Codes p's coefficients; returns the bytes (0: failed), *ms the time. */
static size_t code(const picture *p, const void *coeffs, sci_pool *pool,
                   int ref, double bitrate, double qstep, uint8_t **out,
                   double *ms, double *q_used) {
    sci_wt_geometry g;
    geometry(p, &g);
    sci_htj2k_params prm;
    sci_htj2k_params_default(&prm);
    prm.refinement = (sci_htj2k_refinement)ref;
    prm.bitrate = bitrate;
    if (qstep > 0)
        prm.qstep = qstep;
    sci_htj2k_enc *e = sci_htj2k_enc_new(&g, &prm, pool);
    if (!e)
        return 0;
    size_t cap = sci_htj2k_max_bytes(e);
    *out = malloc(cap);
    double t0 = now_s();
    size_t n = sci_htj2k_encode(e, coeffs, *out, cap);
    *ms = 1e3 * (now_s() - t0);
    *q_used = sci_htj2k_last_qstep(e);
    sci_htj2k_enc_free(e);
    return n;
}

static void run_picture(const picture *p, const double *rates, size_t nrates,
                        sci_pool *pool) {
    sci_wt_geometry g;
    geometry(p, &g);
    sci_wt_plane pl[3];
    for (unsigned c = 0; c < p->nc; c++) {
        pl[c].data = p->pl[c];
        pl[c].row_stride = (ptrdiff_t)p->w * 2;
        pl[c].pixel_stride = 2;
    }
    void *coeffs = malloc(sci_wt_coeff_count(&g) * 4);
    if (g.depth <= 8 || sci_wt_forward(pool, &g, pl, coeffs)) {
        printf("%s: cannot transform\n", p->name);
        free(coeffs);
        return;
    }
    double px = (double)p->w * p->h;
    printf("\n%s: %ux%u, %u component%s, %u bits\n\n", p->name, p->w, p->h,
           p->nc, p->nc > 1 ? "s" : "", p->depth);
    printf("| target bpp | refinement | bpp | off target | PSNR dB | ms |\n");
    printf("|---|---|---|---|---|---|\n");
    double q_none[16] = {0};
    for (size_t r = 0; r < nrates; r++)
        for (int m = 0; m < 3; m++) {
            uint8_t *cs = NULL;
            double ms, q;
            size_t n = code(p, coeffs, pool, m, rates[r], 0, &cs, &ms, &q);
            if (!n) {
                printf("| %.2f | %s | failed | | | |\n", rates[r], mode_name[m]);
                free(cs);
                continue;
            }
            if (m == 0 && r < 16)
                q_none[r] = q;
            double bpp = 8.0 * n / px, target = rates[r] * px / 8;
            printf("| %.2f | %s | %.4f | %+.2f %% | %.3f | %.0f |\n", rates[r],
                   mode_name[m], bpp, 100 * ((double)n / target - 1),
                   psnr(p, cs, n), ms);
            free(cs);
        }
    printf("\nat fixed steps (the step rate control chose for none):\n\n");
    printf("| qstep | refinement | bpp | PSNR dB |\n|---|---|---|---|\n");
    for (size_t r = 0; r < nrates && r < 16; r++)
        for (int m = 0; m < 3; m++) {
            uint8_t *cs = NULL;
            double ms, q;
            size_t n = code(p, coeffs, pool, m, 0, q_none[r], &cs, &ms, &q);
            if (n)
                printf("| %.4g | %s | %.4f | %.3f |\n", q_none[r], mode_name[m],
                       8.0 * n / px, psnr(p, cs, n));
            free(cs);
        }
    free(coeffs);
}

int main(int argc, char **argv) {
    const char *dir = BENCH_DATA_DIR;
    int no4k = 0;
    double rates[16] = {0.5, 1, 2, 4};
    size_t nrates = 4;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--data") && i + 1 < argc) {
            dir = argv[++i];
        } else if (!strcmp(argv[i], "--no-4k")) {
            no4k = 1;
        } else if (!strcmp(argv[i], "--rates") && i + 1 < argc) {
            char *s = argv[++i];
            nrates = 0;
            while (*s && nrates < 16) {
                rates[nrates++] = strtod(s, &s);
                if (*s == ',')
                    s++;
            }
        } else {
            fprintf(stderr, "usage: %s [--data DIR] [--no-4k] [--rates a,b,...]\n",
                    argv[0]);
            return 2;
        }
    }
    sci_pool *pool = sci_pool_new(0);
    char path[4096];
    /* the real frames: ENVI band-sequential (w x h given) or FITS (w 0) */
    static const struct {
        const char *name, *file;
        uint32_t w, h;
    } real[] = {
        {"TREx blueline frame 0", "aurora/trex_blueline_gill_20220308_0600-first20.bsq", 320, 270},
        {"TREx near-infrared frame 0", "aurora/trex_nir_gill_20220307_0600-first20.bsq", 256, 256},
        {"TRACE 171 A", "frames16/trace_171_19980519T222143_1024.fits", 0, 0},
    };
    picture p;
    for (size_t i = 0; i < sizeof real / sizeof real[0]; i++) {
        memset(&p, 0, sizeof p);
        p.name = real[i].name;
        snprintf(path, sizeof path, "%s/%s", dir, real[i].file);
        if ((real[i].w ? load_bsq(&p, path, real[i].w, real[i].h)
                       : load_fits16(&p, path)) == 0)
            run_picture(&p, rates, nrates, pool);
        else
            printf("%s: not found (%s)\n", p.name, path);
        free(p.pl[0]);
    }
    if (!no4k) {
        memset(&p, 0, sizeof p);
        p.name = "bench-htj2k picture";
        p.w = 3840, p.h = 2160, p.nc = 3, p.depth = 12;
        for (int c = 0; c < 3; c++)
            p.pl[c] = malloc((size_t)p.w * p.h * 2);
        htj2k_picture(p.pl, p.w, p.h);
        run_picture(&p, rates, nrates, pool);
        for (int c = 0; c < 3; c++)
            free(p.pl[c]);
    }
    sci_pool_free(pool);
    return 0;
}
