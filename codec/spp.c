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

void sci_spp_unit(const void *cube, sci_spp_format f, size_t npix,
                  size_t bands, double *u, double *norm) {
#pragma omp parallel for schedule(static)
    for (size_t p = 0; p < npix; p++) {
        double *up = u + p * bands, s = 0.0;
        for (size_t b = 0; b < bands; b++) {
            up[b] = sci_spp_value(cube, f, p * bands + b);
            s += up[b] * up[b];
        }
        norm[p] = sqrt(s);
        double inv = norm[p] > 0.0 ? 1.0 / norm[p] : 0.0;
        for (size_t b = 0; b < bands; b++)
            up[b] *= inv;
    }
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

int sci_spp_alpha(const double *u, const double *norm, size_t lines,
                  size_t samples, size_t bands, unsigned window,
                  double *alpha) {
    const unsigned nn = window * window - 1, half = nn / 2;
    /* the angle is symmetric to the bit ((a - b)^2 = (b - a)^2): each
     * pixel's forward neighbours' angles once, then every pixel's sum */
    double *gam = malloc(lines * samples * half * sizeof *gam);
    if (!gam)
        return SCI_SPP_E_NOMEM;
#pragma omp parallel for schedule(dynamic, 1)
    for (size_t i = 0; i < lines; i++)
        for (size_t j = 0; j < samples; j++) {
            const size_t p = i * samples + j;
            for (unsigned k = half; k < nn; k++) {
                int a, b;
                sci_spp_neighbour(window, k, &a, &b);
                long r = (long)i + a, s = (long)j + b;
                if (r >= (long)lines || s < 0 || s >= (long)samples)
                    continue;
                const size_t q = (size_t)r * samples + (size_t)s;
                gam[p * half + (k - half)] = sci_spp_angle(
                    u + p * bands, norm[p], u + q * bands, norm[q], bands);
            }
        }
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < lines; i++)
        for (size_t j = 0; j < samples; j++) {
            const size_t p = i * samples + j;
            double num = 0.0, den = 0.0;
            for (unsigned k = 0; k < nn; k++) {
                int a, b;
                sci_spp_neighbour(window, k, &a, &b);
                long r = (long)i + a, s = (long)j + b;
                if (r < 0 || r >= (long)lines || s < 0 || s >= (long)samples)
                    continue;
                const size_t q = (size_t)r * samples + (size_t)s;
                double w = sci_spp_beta(a, b);
                num += w * (k >= half ? gam[p * half + (k - half)]
                                      : gam[q * half + (nn - 1 - k - half)]);
                den += w;
            }
            alpha[p] = den > 0.0 ? num / den : 0.0;
        }
    free(gam);
    return 0;
}

int sci_spp_filter(const void *in, sci_spp_format f, size_t lines,
                   size_t samples, size_t bands, unsigned window,
                   float *out) {
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
    sci_spp_unit(in, f, npix, bands, u, norm);
    if ((err = sci_spp_alpha(u, norm, lines, samples, bands, window,
                             alpha)))
        goto done;
#pragma omp parallel for schedule(static)
    for (size_t p = 0; p < npix; p++) {
        double root = sqrt(alpha[p]), rho = (1.0 + root) * (1.0 + root);
        for (size_t b = 0; b < bands; b++)
            out[p * bands + b] = (float)(
                (sci_spp_value(in, f, p * bands + b) - c[b]) / rho + c[b]);
    }
done:
    free(c);
    free(u);
    free(norm);
    free(alpha);
    return err;
}
