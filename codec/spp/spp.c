/*
 * SPP reference (see spp.h).
 */
#include "spp.h"

#include <math.h>
#include <stdlib.h>

#include "spp_core.h"

size_t sci_spp_value_bytes(sci_spp_format f) {
    switch (f) {
    case SCI_SPP_U8:
        return 1;
    case SCI_SPP_S16:
    case SCI_SPP_U16:
        return 2;
    case SCI_SPP_F32:
        return 4;
    }
    return 0;
}

int sci_spp_check(size_t lines, size_t samples, size_t bands,
                  unsigned window) {
    if (!lines || !samples || !bands || bands > SCI_SPP_BANDS_MAX ||
        window < SCI_SPP_WINDOW_MIN || window > SCI_SPP_WINDOW_MAX ||
        !(window & 1))
        return SCI_SPP_E_ARG;
    /* values and the double copies must be countable in size_t */
    if (lines > SIZE_MAX / samples || lines * samples > SIZE_MAX / 8 / bands)
        return SCI_SPP_E_ARG;
    return 0;
}

double sci_spp_value(const void *cube, sci_spp_format f, size_t i) {
    return sci_spp_value_at(cube, f, i);
}

void sci_spp_centroid(const void *cube, sci_spp_format f, size_t npix,
                      size_t bands, double *c) {
    for (size_t b = 0; b < bands; b++)
        c[b] = 0.0;
    for (size_t p = 0; p < npix; p++)
        for (size_t b = 0; b < bands; b++)
            c[b] += sci_spp_value(cube, f, p * bands + b);
    for (size_t b = 0; b < bands; b++)
        c[b] /= (double)npix;
}

typedef struct {
    const void *cube;
    sci_spp_format f;
    size_t lines, samples, bands;
    unsigned window;
    const double *c, *u_in, *norm_in, *alpha_in;
    double *u, *norm, *gam, *alpha;
    float *out;
} spp_args;

static void unit_pixels(void *arg, size_t p0, size_t p1, unsigned wk) {
    const spp_args *a = arg;
    const size_t bands = a->bands;
    for (size_t p = p0; p < p1; p++) {
        double *up = a->u + p * bands, s = 0.0;
        for (size_t b = 0; b < bands; b++) {
            up[b] = sci_spp_value(a->cube, a->f, p * bands + b);
            s += up[b] * up[b];
        }
        a->norm[p] = sqrt(s);
        double inv = a->norm[p] > 0.0 ? 1.0 / a->norm[p] : 0.0;
        for (size_t b = 0; b < bands; b++)
            up[b] *= inv;
    }
}

void sci_spp_unit(sci_pool *pool, const void *cube, sci_spp_format f,
                  size_t npix, size_t bands, double *u, double *norm) {
    spp_args a = {.cube = cube, .f = f, .bands = bands, .u = u, .norm = norm};
    sci_pool_for(pool, npix, 0, unit_pixels, &a);
}

double sci_spp_angle(const double *u, double nu, const double *v, double nv,
                     size_t bands) {
    double d2 = 0.0, s2 = 0.0;
    if (nu > 0.0 && nv > 0.0)
        for (size_t b = 0; b < bands; b++) {
            double d = u[b] - v[b], s = u[b] + v[b];
            d2 += d * d;
            s2 += s * s;
        }
    return sci_spp_angle_sums(d2, s2, nu, nv);
}

/* Each pixel's angles to its forward neighbours (the second half of the
 * window), lines [i0, i1). */
static void forward_angles(void *arg, size_t i0, size_t i1, unsigned wk) {
    const spp_args *a = arg;
    const size_t lines = a->lines, samples = a->samples, bands = a->bands;
    const unsigned window = a->window, nn = window * window - 1,
                   half = nn / 2;
    for (size_t i = i0; i < i1; i++)
        for (size_t j = 0; j < samples; j++) {
            const size_t p = i * samples + j;
            for (unsigned k = half; k < nn; k++) {
                int da, db;
                sci_spp_neighbour(window, k, &da, &db);
                long r = (long)i + da, s = (long)j + db;
                if (r >= (long)lines || s < 0 || s >= (long)samples)
                    continue;
                const size_t q = (size_t)r * samples + (size_t)s;
                a->gam[p * half + (k - half)] = sci_spp_angle(
                    a->u_in + p * bands, a->norm_in[p], a->u_in + q * bands,
                    a->norm_in[q], bands);
            }
        }
}

/* alpha of the pixels of lines [i0, i1), their neighbours weighted in
 * raster order. */
static void alpha_lines(void *arg, size_t i0, size_t i1, unsigned wk) {
    const spp_args *a = arg;
    const size_t lines = a->lines, samples = a->samples;
    const unsigned window = a->window, nn = window * window - 1,
                   half = nn / 2;
    const double *gam = a->gam;
    for (size_t i = i0; i < i1; i++)
        for (size_t j = 0; j < samples; j++) {
            const size_t p = i * samples + j;
            double num = 0.0, den = 0.0;
            for (unsigned k = 0; k < nn; k++) {
                int da, db;
                sci_spp_neighbour(window, k, &da, &db);
                long r = (long)i + da, s = (long)j + db;
                if (r < 0 || r >= (long)lines || s < 0 || s >= (long)samples)
                    continue;
                const size_t q = (size_t)r * samples + (size_t)s;
                double w = sci_spp_beta(da, db);
                num += w * (k >= half ? gam[p * half + (k - half)]
                                      : gam[q * half + (nn - 1 - k - half)]);
                den += w;
            }
            a->alpha[p] = den > 0.0 ? num / den : 0.0;
        }
}

int sci_spp_alpha(sci_pool *pool, const double *u, const double *norm,
                  size_t lines, size_t samples, size_t bands,
                  unsigned window, double *alpha) {
    const unsigned nn = window * window - 1, half = nn / 2;
    /* the angle is symmetric to the bit ((a - b)^2 = (b - a)^2): each
     * pixel's forward neighbours' angles once, then every pixel's sum */
    double *gam = malloc(lines * samples * half * sizeof *gam);
    if (!gam)
        return SCI_SPP_E_NOMEM;
    spp_args a = {.lines = lines, .samples = samples, .bands = bands,
                  .window = window, .u_in = u, .norm_in = norm, .gam = gam,
                  .alpha = alpha};
    /* a line at a time: the bottom lines have fewer neighbours */
    sci_pool_for(pool, lines, 1, forward_angles, &a);
    sci_pool_for(pool, lines, 0, alpha_lines, &a);
    free(gam);
    return 0;
}

/* y' of pixels [p0, p1). */
static void displace_pixels(void *arg, size_t p0, size_t p1, unsigned wk) {
    const spp_args *a = arg;
    const size_t bands = a->bands;
    for (size_t p = p0; p < p1; p++) {
        double root = sqrt(a->alpha_in[p]), rho = (1.0 + root) * (1.0 + root);
        for (size_t b = 0; b < bands; b++)
            a->out[p * bands + b] = (float)(
                (sci_spp_value(a->cube, a->f, p * bands + b) - a->c[b]) / rho +
                a->c[b]);
    }
}

int sci_spp_filter(sci_pool *pool, const void *in, sci_spp_format f,
                   size_t lines, size_t samples, size_t bands,
                   unsigned window, float *out) {
    if (!in || !out || !sci_spp_value_bytes(f) ||
        sci_spp_check(lines, samples, bands, window))
        return SCI_SPP_E_ARG;
    const size_t npix = lines * samples;
    if (f == SCI_SPP_F32)
        for (size_t i = 0; i < npix * bands; i++)
            if (!isfinite(((const float *)in)[i]))
                return SCI_SPP_E_VALUE;
    double *c = malloc(bands * sizeof *c);
    double *u = malloc(npix * bands * sizeof *u);
    double *norm = malloc(npix * sizeof *norm);
    double *alpha = malloc(npix * sizeof *alpha);
    int err = 0;
    if (!c || !u || !norm || !alpha) {
        err = SCI_SPP_E_NOMEM;
        goto done;
    }
    sci_spp_centroid(in, f, npix, bands, c);
    sci_spp_unit(pool, in, f, npix, bands, u, norm);
    if ((err = sci_spp_alpha(pool, u, norm, lines, samples, bands, window,
                             alpha)))
        goto done;
    spp_args a = {.cube = in, .f = f, .bands = bands, .c = c,
                  .alpha_in = alpha, .out = out};
    sci_pool_for(pool, npix, 0, displace_pixels, &a);
done:
    free(c);
    free(u);
    free(norm);
    free(alpha);
    return err;
}
