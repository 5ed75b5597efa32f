/*
 * The SPP reference (codec/spp/spp.c) against what the method says, worked out
 * here independently: the angle against arccos in long double on random
 * spectra; alpha and the output on cubes whose answer is known in closed
 * form (one odd pixel among equal ones: at the centre, at a corner, at an
 * edge; two-pixel cubes with zero vectors); properties that must hold
 * exactly (a constant cube and a 1 x 1 cube come back unchanged, a pixel
 * whose window is uniform does not move, every moved pixel moves toward
 * the centroid); no NaN anywhere; bad arguments refused.
 *
 * Cubes: random ones of every input format and awkward sizes (1 x N, N x 1,
 * windows larger than the cube); synthetic mixtures (smooth spectra mixed
 * by spatially coherent abundances); and the simulated Indian Pines cube
 * of ../shared/data/hyperspectral (PROVENANCE.md; skipped where absent).
 *
 *   test-codec-spp [--seed S] [--data DIR]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/spp/spp.h"
#include "tests/common/testutil.h"

#define PI 3.14159265358979323846

static double urand(void) {
    return (double)(rng() >> 11) * (1.0 / 9007199254740992.0);
}

/* arccos of the clamped cosine, in long double: the method's definition */
static double angle_acos(const double *a, const double *b, size_t bands) {
    long double ab = 0, aa = 0, bb = 0;
    for (size_t i = 0; i < bands; i++) {
        ab += (long double)a[i] * b[i];
        aa += (long double)a[i] * a[i];
        bb += (long double)b[i] * b[i];
    }
    long double c = ab / (sqrtl(aa) * sqrtl(bb));
    if (c > 1)
        c = 1;
    if (c < -1)
        c = -1;
    return (double)acosl(c);
}

static void test_angle(void) {
    unsigned bad = 0;
    for (unsigned t = 0; t < 2000; t++) {
        size_t bands = 1 + rng() % 300;
        double *a = malloc(bands * 8), *b = malloc(bands * 8);
        double *u = malloc(bands * 8), *v = malloc(bands * 8), na, nb;
        /* nearly parallel pairs too (t odd): a small step from a */
        for (size_t i = 0; i < bands; i++) {
            a[i] = urand() * 2 - (t % 3 ? 0.0 : 1.0);
            b[i] = t & 1 ? a[i] * (1 + 1e-3 * (urand() - 0.5)) : urand();
        }
        double sa = 0, sb = 0;
        for (size_t i = 0; i < bands; i++) {
            sa += a[i] * a[i];
            sb += b[i] * b[i];
        }
        na = sqrt(sa);
        nb = sqrt(sb);
        for (size_t i = 0; i < bands; i++) {
            u[i] = a[i] / na;
            v[i] = b[i] / nb;
        }
        double g = sci_spp_angle(u, na, v, nb, bands);
        double want = angle_acos(a, b, bands);
        /* arccos loses digits near 0: allow for its own error there */
        double tol = 1e-12 + 1e-7 * (want < 1e-3 ? 1.0 : 0.0);
        if (!(fabs(g - want) <= tol + 1e-12 * want) || g < 0 || g > PI)
            bad++;
        free(a);
        free(b);
        free(u);
        free(v);
    }
    check(bad == 0, "angle: 2 atan2(|u-v|, |u+v|) equals arccos of the "
                    "cosine (long double) on 2000 random pairs, 1-300 bands");
    double z[3] = {0, 0, 0}, w[3] = {0.6, 0.8, 0};
    check(sci_spp_angle(z, 0, z, 0, 3) == 0.0 &&
              sci_spp_angle(z, 0, w, 1, 3) == PI / 2 &&
              sci_spp_angle(w, 1, z, 0, 3) == PI / 2 &&
              sci_spp_angle(w, 1, w, 1, 3) == 0.0,
          "angle: zero vectors (0 between two, pi/2 against another); "
          "identical spectra exactly 0");
}

/* A cube of format f from doubles (the test keeps the doubles). */
static void *make_cube(sci_spp_format f, const double *v, size_t n) {
    void *c = malloc(n * sci_spp_value_bytes(f) + 1);
    for (size_t i = 0; i < n; i++)
        switch (f) {
        case SCI_SPP_U8: ((uint8_t *)c)[i] = (uint8_t)v[i]; break;
        case SCI_SPP_S16: ((int16_t *)c)[i] = (int16_t)v[i]; break;
        case SCI_SPP_U16: ((uint16_t *)c)[i] = (uint16_t)v[i]; break;
        case SCI_SPP_F32: ((float *)c)[i] = (float)v[i]; break;
        }
    return c;
}

static int all_finite(const float *o, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(o[i]))
            return 0;
    return 1;
}

/* The output of pixel p from alpha, as the method defines it. */
static double expect(double y, double c, double alpha) {
    double rho = (1 + sqrt(alpha)) * (1 + sqrt(alpha));
    return (y - c) / rho + c;
}

static void test_known(void) {
    /* 3 x 3 pixels of spectrum A, the centre B: at the centre every
     * neighbour is at angle theta; at a corner only the diagonal one,
     * weight 1/2 of (1 + 1 + 1/2); at an edge's middle the centre is a
     * side neighbour, weight 1 of (1 + 1 + 1 + 1/2 + 1/2) */
    const double A[2] = {1.0, 0.0}, B[2] = {0.6, 0.8};
    const double theta = acos(0.6);
    double v[18];
    for (int p = 0; p < 9; p++) {
        v[2 * p] = p == 4 ? B[0] : A[0];
        v[2 * p + 1] = p == 4 ? B[1] : A[1];
    }
    float out[18];
    void *cube = make_cube(SCI_SPP_F32, v, 18);
    int ok = sci_spp_filter(test_pool(), cube, SCI_SPP_F32, 3, 3, 2, 3, out) == 0;
    double c[2] = {(8 * A[0] + B[0]) / 9, (8 * A[1] + B[1]) / 9};
    double a_centre = theta, a_corner = theta * 0.5 / 2.5,
           a_edge = theta * 1.0 / 4.0;
    for (int b = 0; b < 2; b++) {
        ok &= fabs(out[8 + b] - expect(B[b], c[b], a_centre)) < 1e-6;
        ok &= fabs(out[0 + b] - expect(A[b], c[b], a_corner)) < 1e-6;
        ok &= fabs(out[2 + b] - expect(A[b], c[b], a_edge)) < 1e-6;
    }
    check(ok, "known cube: an odd centre pixel, corner and edge neighbours "
              "(border weights renormalised) give the closed-form output");

    /* the same with a window of 15 on the 3 x 3 cube: every pixel sees all
     * others; pixel (0,0) sees the centre at offset (1,1) among weights
     * 1/(a^2+b^2) of offsets (0,1),(0,2),(1,0),(1,1),(1,2),(2,0),(2,1),(2,2) */
    ok = sci_spp_filter(test_pool(), cube, SCI_SPP_F32, 3, 3, 2, 15, out) == 0;
    free(cube);
    double den = 1 + 0.25 + 1 + 0.5 + 0.2 + 0.25 + 0.2 + 0.125;
    for (int b = 0; b < 2; b++)
        ok &= fabs(out[b] - expect(A[b], c[b], theta * 0.5 / den)) < 1e-6;
    check(ok, "known cube, window 15 on 3 x 3: neighbours outside left out, "
              "the rest weighted 1/(a^2+b^2)");

    /* 1 x 2 cubes: a zero vector beside a spectrum is at pi/2 from it */
    double zv[4] = {0, 0, 3, 4};
    cube = make_cube(SCI_SPP_F32, zv, 4);
    ok = sci_spp_filter(test_pool(), cube, SCI_SPP_F32, 1, 2, 2, 3, out) == 0;
    free(cube);
    double cz[2] = {1.5, 2};
    for (int p = 0; p < 2; p++)
        for (int b = 0; b < 2; b++)
            ok &= fabs(out[2 * p + b] -
                       expect(zv[2 * p + b], cz[b], PI / 2)) < 1e-6;
    double zz[4] = {0, 0, 0, 0};
    cube = make_cube(SCI_SPP_F32, zz, 4);
    ok &= sci_spp_filter(test_pool(), cube, SCI_SPP_F32, 2, 1, 2, 5, out) == 0 &&
          out[0] == 0 && out[1] == 0 && out[2] == 0 && out[3] == 0;
    free(cube);
    check(ok, "zero vectors: pi/2 from a spectrum, 0 from each other; all-"
              "zero cube stays zero");
}

/* Every format, awkward sizes: constant cubes and 1 x 1 cubes come back
 * exactly; pixels whose whole window is one spectrum do not move; others
 * move toward the centroid; nothing is NaN. */
static void test_properties(void) {
    static const sci_spp_format fmts[] = {SCI_SPP_U8, SCI_SPP_S16,
                                          SCI_SPP_U16, SCI_SPP_F32};
    static const size_t sizes[][3] = {{1, 1, 1},  {1, 1, 7},  {1, 9, 3},
                                      {9, 1, 3},  {2, 3, 5},  {5, 4, 1},
                                      {13, 11, 17}, {1, 40, 2}, {31, 7, 3}};
    unsigned const_bad = 0, nan_bad = 0, one_bad = 0, toward_bad = 0;
    unsigned runs = 0;
    for (unsigned fi = 0; fi < 4; fi++)
        for (unsigned si = 0; si < sizeof sizes / sizeof *sizes; si++)
            for (unsigned window = 3; window <= 15; window += 4) {
                size_t L = sizes[si][0], S = sizes[si][1], B = sizes[si][2];
                size_t n = L * S * B;
                double *v = malloc(n * 8);
                float *o = malloc(n * 4);
                /* constant */
                for (size_t i = 0; i < n; i++)
                    v[i] = fmts[fi] == SCI_SPP_S16 ? -(double)(i % B) - 3
                                                   : (double)(i % B) + 7;
                void *cube = make_cube(fmts[fi], v, n);
                if (sci_spp_filter(test_pool(), cube, fmts[fi], L, S, B, window, o))
                    const_bad++;
                for (size_t i = 0; i < n; i++)
                    if (o[i] != (float)v[i])
                        const_bad++;
                free(cube);
                /* random, extremes included */
                double hi = fmts[fi] == SCI_SPP_U8    ? 255
                            : fmts[fi] == SCI_SPP_U16 ? 65535
                            : fmts[fi] == SCI_SPP_S16 ? 32767
                                                      : 1e30;
                double lo = fmts[fi] == SCI_SPP_S16   ? -32768
                            : fmts[fi] == SCI_SPP_F32 ? -1e30
                                                      : 0;
                for (size_t i = 0; i < n; i++)
                    v[i] = rng() % 7 == 0 ? (rng() & 1 ? hi : lo)
                                          : floor(lo + (hi - lo) * urand());
                cube = make_cube(fmts[fi], v, n);
                if (sci_spp_filter(test_pool(), cube, fmts[fi], L, S, B, window, o) ||
                    !all_finite(o, n))
                    nan_bad++;
                /* toward the centroid: |y' - c| <= |y - c| band by band */
                double *c = malloc(B * 8);
                sci_spp_centroid(cube, fmts[fi], L * S, B, c);
                for (size_t i = 0; i < n; i++) {
                    double y = sci_spp_value(cube, fmts[fi], i);
                    if (fabs(o[i] - c[i % B]) >
                        fabs(y - c[i % B]) * (1 + 1e-6) + 1e-6 * fabs(y))
                        toward_bad++;
                }
                if (L * S == 1)
                    for (size_t i = 0; i < n; i++)
                        if (o[i] != (float)sci_spp_value(cube, fmts[fi], i))
                            one_bad++;
                free(c);
                free(cube);
                free(v);
                free(o);
                runs++;
            }
    char what[200];
    snprintf(what, sizeof what,
             "%u cubes (4 formats, 1x1 to 31x7, windows 3-15): constant "
             "cubes come back exactly", runs);
    check(const_bad == 0, what);
    check(nan_bad == 0, "random cubes with extreme values: no NaN, no Inf");
    check(one_bad == 0, "1 x 1 cubes come back exactly (no neighbours)");
    check(toward_bad == 0, "every output value is no farther from the "
                           "centroid than its input");
}

/* Smooth spectra mixed by coherent abundances: a few regions of one pure
 * spectrum each, blended near their borders. */
static void mixture(size_t L, size_t S, size_t B, float *cube) {
    enum { E = 4 };
    double spec[E][512];
    for (int e = 0; e < E; e++)
        for (size_t b = 0; b < B; b++)
            spec[e][b] = 0.2 + 0.15 * e +
                         0.1 * sin(0.05 * (double)b * (e + 1) + e);
    for (size_t i = 0; i < L; i++)
        for (size_t j = 0; j < S; j++) {
            /* quadrants, mixed over a band 3 pixels wide at the borders */
            double x = ((double)j - S / 2.0) / 3.0, y = ((double)i - L / 2.0) / 3.0;
            double wx = x < -1 ? 0 : x > 1 ? 1 : (x + 1) / 2;
            double wy = y < -1 ? 0 : y > 1 ? 1 : (y + 1) / 2;
            double w[E] = {(1 - wx) * (1 - wy), wx * (1 - wy), (1 - wx) * wy,
                           wx * wy};
            for (size_t b = 0; b < B; b++) {
                double v = 0;
                for (int e = 0; e < E; e++)
                    v += w[e] * spec[e][b];
                cube[(i * S + j) * B + b] = (float)v;
            }
        }
}

/* Pixels whose window holds one spectrum only stay exactly; count them and
 * those that moved. */
static void uniform_windows(const float *in, const float *out, size_t L,
                            size_t S, size_t B, unsigned window,
                            unsigned *stayed, unsigned *bad) {
    long d = window / 2;
    for (size_t i = 0; i < L; i++)
        for (size_t j = 0; j < S; j++) {
            int uniform = 1;
            for (long a = -d; a <= d && uniform; a++)
                for (long b = -d; b <= d && uniform; b++) {
                    long r = (long)i + a, s = (long)j + b;
                    if (r < 0 || s < 0 || r >= (long)L || s >= (long)S)
                        continue;
                    if (memcmp(in + (r * S + s) * B, in + (i * S + j) * B,
                               B * 4))
                        uniform = 0;
                }
            if (!uniform)
                continue;
            if (memcmp(in + (i * S + j) * B, out + (i * S + j) * B, B * 4))
                (*bad)++;
            else
                (*stayed)++;
        }
}

static void test_mixture(void) {
    size_t L = 40, S = 33, B = 50;
    float *in = malloc(L * S * B * 4), *out = malloc(L * S * B * 4);
    mixture(L, S, B, in);
    unsigned stayed = 0, bad = 0;
    int err = sci_spp_filter(test_pool(), in, SCI_SPP_F32, L, S, B, 5, out);
    uniform_windows(in, out, L, S, B, 5, &stayed, &bad);
    check(!err && stayed > 100 && bad == 0 && all_finite(out, L * S * B),
          "synthetic mixture 40x33x50: pure pixels in uniform windows stay "
          "exactly, mixed ones move, no NaN");
    free(in);
    free(out);
}

static void test_real(const char *dir) {
    char path[1024];
    snprintf(path, sizeof path, "%s/hyperspectral/indian_pines_clean.hdr",
             dir);
    FILE *h = fopen(path, "r");
    if (!h) {
        printf("SKIP real cube: %s not found\n", path);
        return;
    }
    size_t L = 0, S = 0, B = 0;
    char line[512];
    while (fgets(line, sizeof line, h)) {
        sscanf(line, "samples = %zu", &S);
        sscanf(line, "lines = %zu", &L);
        sscanf(line, "bands = %zu", &B);
    }
    fclose(h);
    snprintf(path, sizeof path, "%s/hyperspectral/indian_pines_clean.bip",
             dir);
    FILE *f = fopen(path, "rb");
    size_t n = L * S * B;
    float *in = n ? malloc(n * 4) : NULL, *out = n ? malloc(n * 4) : NULL;
    int ok = f && in && out && fread(in, 4, n, f) == n;
    if (f)
        fclose(f);
    if (!ok) {
        check(0, "real cube: header and data file read");
        free(in);
        free(out);
        return;
    }
    unsigned stayed = 0, bad = 0;
    int err = sci_spp_filter(test_pool(), in, SCI_SPP_F32, L, S, B, 5, out);
    uniform_windows(in, out, L, S, B, 5, &stayed, &bad);
    size_t moved = 0;
    for (size_t p = 0; p < L * S; p++)
        moved += memcmp(in + p * B, out + p * B, B * 4) != 0;
    char what[200];
    snprintf(what, sizeof what,
             "real cube %zux%zux%zu, window 5: %u pixels in uniform windows "
             "stay exactly, %zu at region borders move, no NaN",
             L, S, B, stayed, moved);
    printf("%s\n", what);
    check(!err && bad == 0 && stayed > 1000 && moved > 100 &&
              all_finite(out, n), what);
    free(in);
    free(out);
}

static void test_bad(void) {
    float v[8] = {1, 2, 3, 4, 5, 6, 7, 8}, o[8];
    int ok = sci_spp_filter(test_pool(), v, SCI_SPP_F32, 2, 2, 0, 5, o) == SCI_SPP_E_ARG &&
             sci_spp_filter(test_pool(), v, SCI_SPP_F32, 0, 2, 2, 5, o) == SCI_SPP_E_ARG &&
             sci_spp_filter(test_pool(), v, SCI_SPP_F32, 2, 2, 2, 4, o) == SCI_SPP_E_ARG &&
             sci_spp_filter(test_pool(), v, SCI_SPP_F32, 2, 2, 2, 1, o) == SCI_SPP_E_ARG &&
             sci_spp_filter(test_pool(), v, SCI_SPP_F32, 2, 2, 2, 17, o) == SCI_SPP_E_ARG &&
             sci_spp_filter(test_pool(), v, (sci_spp_format)9, 2, 2, 2, 5, o) ==
                 SCI_SPP_E_ARG &&
             sci_spp_check((size_t)1 << 40, (size_t)1 << 40, 3, 5) ==
                 SCI_SPP_E_ARG;
    check(ok, "bad arguments (no bands, no lines, even or out-of-range "
              "window, unknown format, overflowing sizes) are refused");
    v[5] = NAN;
    ok = sci_spp_filter(test_pool(), v, SCI_SPP_F32, 2, 2, 2, 3, o) == SCI_SPP_E_VALUE;
    v[5] = INFINITY;
    ok &= sci_spp_filter(test_pool(), v, SCI_SPP_F32, 2, 2, 2, 3, o) == SCI_SPP_E_VALUE;
    check(ok, "NaN or infinite input values are refused");
}

int main(int argc, char **argv) {
    const char *dir = getenv("SCI_TEST_DATA_DIR");
    if (!dir)
        dir = "../shared/data";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            rng_state = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--data") && i + 1 < argc)
            dir = argv[++i];
    }
    test_angle();
    test_known();
    test_properties();
    test_mixture();
    test_real(dir);
    test_bad();
    printf("%u passed, %u failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}
