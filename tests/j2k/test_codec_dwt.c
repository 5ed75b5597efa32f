/*
 * The C reference wavelet stage (codec/) against hand-computed answers and
 * against a second, deliberately naive transcription of ISO/IEC 15444-1
 * Annex F: signals extended by periodic symmetric extension (PSE) first,
 * then lifted over the extended ranges, floor divisions done by division
 * rather than by shifts.  The two must agree to the bit for both filters.
 *
 *   test-codec-dwt [--seed N]
 *
 * Prints one line per failure and ends with "N passed, M failed".
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/j2k/colour.h"
#include "codec/j2k/dwt.h"
#include "codec/j2k/wavelet_frame.h"
#include "tests/common/testutil.h"

static int32_t rnd_range(int32_t lo, int32_t hi) {
    return lo + (int32_t)(rng() % (uint64_t)(hi - lo + 1));
}

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

/* ---- the naive transcription of Annex F -------------------------------- */

#define EXT 5 /* samples of extension each side; 9/7 needs 4 */

static long floordiv(long a, long d) {
    long q = a / d;
    return q * d > a ? q - 1 : q;
}

/* F.3.7 PSE: index i of the extended signal in terms of [0, n). */
static size_t pse(long i, size_t n) {
    if (n == 1)
        return 0;
    long period = 2 * ((long)n - 1);
    long m = ((i % period) + period) % period;
    return (size_t)(m < (long)n ? m : period - m);
}

/* 1D_SD on n samples (i0 = 0, i1 = n), result deinterleaved into out. */
static void naive_sd53(const int32_t *x, size_t n, int32_t *out) {
    if (n == 1) {
        out[0] = x[0];
        return;
    }
    long e[65535 + 2 * EXT], *X = e + EXT;
    for (long i = -EXT; i < (long)n + EXT; i++)
        X[i] = x[pse(i, n)];
    long Y[65535 + 2 * EXT], *y = Y + EXT;
    /* (F-9): odd outputs for -1 <= 2k+1 < n+1, (F-10): even for 0..n-1 */
    for (long i = -1; i < (long)n + 1; i++)
        if (i & 1)
            y[i] = X[i] - floordiv(X[i - 1] + X[i + 1], 2);
    for (long i = 0; i < (long)n; i += 2)
        y[i] = X[i] + floordiv(y[i - 1] + y[i + 1] + 2, 4);
    size_t nl = (n + 1) / 2;
    for (size_t i = 0; i < n; i++)
        out[i & 1 ? nl + i / 2 : i / 2] = (int32_t)y[i];
}

/* 1D_SR, input deinterleaved. */
static void naive_sr53(const int32_t *in, size_t n, int32_t *out) {
    if (n == 1) {
        out[0] = in[0];
        return;
    }
    size_t nl = (n + 1) / 2;
    long e[65535 + 2 * EXT], *Y = e + EXT;
    for (long i = -EXT; i < (long)n + EXT; i++) {
        size_t j = pse(i, n);
        Y[i] = in[j & 1 ? nl + j / 2 : j / 2];
    }
    long x[65535 + 2 * EXT], *X = x + EXT;
    /* (F-5): even for -1 <= 2k < n+1, (F-6): odd for 0 <= 2k+1 < n */
    for (long i = -2; i < (long)n + 2; i++)
        if (!(i & 1))
            X[i] = Y[i] - floordiv(Y[i - 1] + Y[i + 1] + 2, 4);
    for (long i = 1; i < (long)n; i += 2)
        X[i] = Y[i] + floordiv(X[i - 1] + X[i + 1], 2);
    for (size_t i = 0; i < n; i += 2)
        out[i] = (int32_t)X[i];
    for (size_t i = 1; i < n; i += 2)
        out[i] = (int32_t)X[i];
}

static const float coef97[4] = {SCI_DWT97_ALPHA, SCI_DWT97_BETA,
                                SCI_DWT97_GAMMA, SCI_DWT97_DELTA};

/* (F-11): step s lifts parity (s + 1) & 1 over a range one sample narrower
 * each side than the last, starting 4 samples out. */
static void naive_sd97(const float *x, size_t n, float *out) {
    if (n == 1) {
        out[0] = x[0];
        return;
    }
    float e[65535 + 2 * EXT], *X = e + EXT;
    for (long i = -EXT; i < (long)n + EXT; i++)
        X[i] = x[pse(i, n)];
    for (int s = 0; s < 4; s++) {
        long lo = -4 + s, hi = (long)n + 4 - s;
        for (long i = lo; i < hi; i++)
            if ((i & 1) == !(s & 1))
                X[i] = X[i] + coef97[s] * (X[i - 1] + X[i + 1]);
    }
    size_t nl = (n + 1) / 2;
    for (size_t i = 0; i < n; i++)
        out[i & 1 ? nl + i / 2 : i / 2] =
            i & 1 ? X[i] * SCI_DWT97_K : X[i] * SCI_DWT97_INV_K;
}

/* F.3.8.2: scale, then delta, gamma, beta, alpha subtracted. */
static void naive_sr97(const float *in, size_t n, float *out) {
    if (n == 1) {
        out[0] = in[0];
        return;
    }
    size_t nl = (n + 1) / 2;
    float e[65535 + 2 * EXT], *X = e + EXT;
    for (long i = -EXT; i < (long)n + EXT; i++) {
        size_t j = pse(i, n);
        float v = in[j & 1 ? nl + j / 2 : j / 2];
        X[i] = j & 1 ? v * SCI_DWT97_INV_K : v * SCI_DWT97_K;
    }
    for (int s = 3; s >= 0; s--) {
        long lo = -s - 1, hi = (long)n + s + 1;
        for (long i = lo; i < hi; i++)
            if ((i & 1) == !(s & 1))
                X[i] = X[i] - coef97[s] * (X[i - 1] + X[i + 1]);
    }
    for (size_t i = 0; i < n; i++)
        out[i] = X[i];
}

/* 2D_SD / 2D_SR over `levels`, on a w x h plane of pitch w; 4-byte samples,
 * is97 picks the type. */
static void naive_2d(void *plane, size_t w, size_t h, unsigned levels,
                     int is97, int inverse) {
    size_t n = w > h ? w : h;
    uint32_t *line = xmalloc(n * 4), *res = xmalloc(n * 4), *p = plane;
    for (unsigned k = 0; k < levels; k++) {
        unsigned l = inverse ? levels - 1 - k : k;
        size_t lw = sci_dwt_low_len(w, l), lh = sci_dwt_low_len(h, l);
        for (int pass = 0; pass < 2; pass++) {
            /* forward: columns then rows; inverse: rows then columns */
            int vertical = inverse ? pass == 1 : pass == 0;
            size_t count = vertical ? lw : lh, len = vertical ? lh : lw;
            for (size_t a = 0; a < count; a++) {
                for (size_t i = 0; i < len; i++)
                    line[i] = vertical ? p[i * w + a] : p[a * w + i];
                if (is97 && inverse)
                    naive_sr97((float *)line, len, (float *)res);
                else if (is97)
                    naive_sd97((float *)line, len, (float *)res);
                else if (inverse)
                    naive_sr53((int32_t *)line, len, (int32_t *)res);
                else
                    naive_sd53((int32_t *)line, len, (int32_t *)res);
                for (size_t i = 0; i < len; i++)
                    *(vertical ? &p[i * w + a] : &p[a * w + i]) = res[i];
            }
        }
    }
    free(line);
    free(res);
}

/* ---- known answers ----------------------------------------------------- */

static void test_known_answers(void) {
    /* 1-D 5/3, worked by hand from (F-9) and (F-10) */
    int32_t a[4] = {1, 2, 3, 4}, a_ok[4] = {1, 3, 0, 1};
    sci_dwt53_forward(test_pool(), a, 4, 1, 4, 1);
    check(!memcmp(a, a_ok, sizeof(a)), "5/3 [1 2 3 4]");

    int32_t b[5] = {-5, 3, 7, -2, 0}, b_ok[5] = {-4, 6, -2, 2, -5};
    sci_dwt53_forward(test_pool(), b, 5, 1, 5, 1);
    check(!memcmp(b, b_ok, sizeof(b)), "5/3 [-5 3 7 -2 0] (floor of negatives)");
    sci_dwt53_inverse(test_pool(), b, 5, 1, 5, 1);
    int32_t b_in[5] = {-5, 3, 7, -2, 0};
    check(!memcmp(b, b_in, sizeof(b)), "5/3 inverse [-5 3 7 -2 0]");

    /* the same signal as a column: vertical pass, same answer */
    int32_t c[5] = {-5, 3, 7, -2, 0};
    sci_dwt53_forward(test_pool(), c, 1, 5, 1, 1);
    check(!memcmp(c, b_ok, sizeof(c)), "5/3 column [-5 3 7 -2 0]");

    /* 2x2, one level: LL HL / LH HH = 3 1 / 2 0 */
    int32_t d[4] = {1, 2, 3, 4}, d_ok[4] = {3, 1, 2, 0};
    sci_dwt53_forward(test_pool(), d, 2, 2, 2, 1);
    check(!memcmp(d, d_ok, sizeof(d)), "5/3 2x2");

    /* 3x2 in a plane of stride 4: the padding column is left alone.
     * Columns [1 4] [2 5] [3 6] -> (low, high) (3, 3) (4, 3) (5, 3);
     * rows [3 4 5] -> 3 5 | 0 and [3 3 3] -> 3 3 | 0. */
    int32_t e[8] = {1, 2, 3, 99, 4, 5, 6, 99};
    int32_t e_ok[8] = {3, 5, 0, 99, 3, 3, 0, 99};
    sci_dwt53_forward(test_pool(), e, 3, 2, 4, 1);
    check(!memcmp(e, e_ok, sizeof(e)), "5/3 3x2 stride 4");

    /* a single sample passes unchanged at any depth of decomposition */
    int32_t f = -1234;
    sci_dwt53_forward(test_pool(), &f, 1, 1, 1, 32);
    check(f == -1234, "5/3 1x1, 32 levels");
    float g = 3.5f;
    sci_dwt97_forward(test_pool(), &g, 1, 1, 1, 32);
    check(g == 3.5f, "9/7 1x1, 32 levels");

    /* 9/7 normalisation: DC gain 1 low-pass, Nyquist gain 2 high-pass */
    float dc[64], ny[64];
    for (int i = 0; i < 64; i++) {
        dc[i] = 100.0f;
        ny[i] = i & 1 ? -1.0f : 1.0f;
    }
    sci_dwt97_forward(test_pool(), dc, 64, 1, 64, 1);
    sci_dwt97_forward(test_pool(), ny, 64, 1, 64, 1);
    double dc_err = 0, ny_err = 0;
    for (int i = 0; i < 32; i++) {
        dc_err = fmax(dc_err, fabs(dc[i] - 100.0) + fabs(dc[32 + i]));
        ny_err = fmax(ny_err, fabs(ny[i]) + fabs(fabs(ny[32 + i]) - 2.0));
    }
    check(dc_err < 1e-3, "9/7 DC: low band = input, high band = 0");
    check(ny_err < 1e-5, "9/7 Nyquist: low band = 0, high band = +-2");

    /* constant 5/3 plane, 3 levels: LL_3 keeps the value, all else 0 */
    int32_t k[23 * 19];
    for (int i = 0; i < 23 * 19; i++)
        k[i] = -7;
    sci_dwt53_forward(test_pool(), k, 23, 19, 23, 3);
    int ok = 1;
    uint32_t lw = sci_dwt_low_len(23, 3), lh = sci_dwt_low_len(19, 3);
    for (uint32_t y = 0; y < 19; y++)
        for (uint32_t x = 0; x < 23; x++)
            ok &= k[y * 23 + x] == (x < lw && y < lh ? -7 : 0);
    check(ok && lw == 3 && lh == 3, "5/3 constant 23x19: Mallat layout");

    check(sci_dwt_low_len(65535, 16) == 1 && sci_dwt_low_len(65535, 15) == 2
              && sci_dwt_low_len(5, 1) == 3 && sci_dwt_low_len(0, 3) == 0
              && sci_dwt_low_len(7, 32) == 1,
          "sci_dwt_low_len");

    /* RCT (G-1) by hand, including floor of a negative sum */
    int32_t r[3] = {10, 1, -3}, gg[3] = {20, 0, -1}, bb[3] = {30, 0, 0};
    sci_rct_forward(test_pool(), r, gg, bb, 3);
    check(r[0] == 20 && gg[0] == 10 && bb[0] == -10 && r[1] == 0
              && gg[1] == 0 && bb[1] == 1 && r[2] == -2 && gg[2] == 1
              && bb[2] == -2,
          "RCT forward");
    sci_rct_inverse(test_pool(), r, gg, bb, 3);
    check(r[0] == 10 && gg[0] == 20 && bb[0] == 30 && r[2] == -3
              && gg[2] == -1 && bb[2] == 0,
          "RCT inverse");

    /* ICT: grey stays grey (Cb's coefficients sum to -1e-5, not 0); pure
     * red gets the first column of the matrix */
    float ir[2] = {64, 1}, ig[2] = {64, 0}, ib[2] = {64, 0};
    sci_ict_forward(test_pool(), ir, ig, ib, 2);
    check(fabsf(ir[0] - 64) < 1e-4f && fabsf(ig[0]) < 1e-3f
              && fabsf(ib[0]) < 1e-4f && ir[1] == 0.299f
              && ig[1] == -0.16875f && ib[1] == 0.5f,
          "ICT forward");
    sci_ict_inverse(test_pool(), ir, ig, ib, 2);
    check(fabsf(ir[1] - 1) < 1e-3f && fabsf(ig[1]) < 1e-3f
              && fabsf(ib[1]) < 1e-3f,
          "ICT inverse");
}

/* ---- against the naive transcription ----------------------------------- */

static void test_against_naive(void) {
    static const uint32_t sizes[][2] = {
        {1, 2}, {2, 1}, {2, 2}, {3, 1}, {1, 3}, {3, 3}, {4, 5}, {5, 4},
        {7, 9}, {8, 8}, {9, 2}, {2, 9}, {16, 1}, {1, 17}, {31, 33},
        {64, 64}, {65, 63}, {100, 37}, {129, 131}, {257, 3}, {3, 257},
    };
    static const unsigned levels[] = {1, 2, 3, 5, 32};
    char what[128];
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        for (size_t li = 0; li < sizeof(levels) / sizeof(levels[0]); li++) {
            uint32_t w = sizes[s][0], h = sizes[s][1];
            unsigned l = levels[li];
            size_t n = (size_t)w * h;
            int32_t *ia = xmalloc(n * 4), *ib = xmalloc(n * 4);
            float *fa = xmalloc(n * 4), *fb = xmalloc(n * 4);
            for (size_t i = 0; i < n; i++) {
                ia[i] = ib[i] = rnd_range(-65536, 65535);
                fa[i] = fb[i] = (float)rnd_range(-32768, 32767);
            }
            sci_dwt53_forward(test_pool(), ia, w, h, w, l);
            naive_2d(ib, w, h, l, 0, 0);
            snprintf(what, sizeof(what), "5/3 forward %ux%u L%u = naive", w, h, l);
            check(!memcmp(ia, ib, n * 4), what);
            sci_dwt97_forward(test_pool(), fa, w, h, w, l);
            naive_2d(fb, w, h, l, 1, 0);
            snprintf(what, sizeof(what), "9/7 forward %ux%u L%u = naive (bits)", w, h, l);
            check(!memcmp(fa, fb, n * 4), what);

            /* inverses on arbitrary coefficients */
            for (size_t i = 0; i < n; i++) {
                ia[i] = ib[i] = rnd_range(-100000, 100000);
                fa[i] = fb[i] = (float)rnd_range(-100000, 100000) / 7.0f;
            }
            sci_dwt53_inverse(test_pool(), ia, w, h, w, l);
            naive_2d(ib, w, h, l, 0, 1);
            snprintf(what, sizeof(what), "5/3 inverse %ux%u L%u = naive", w, h, l);
            check(!memcmp(ia, ib, n * 4), what);
            sci_dwt97_inverse(test_pool(), fa, w, h, w, l);
            naive_2d(fb, w, h, l, 1, 1);
            snprintf(what, sizeof(what), "9/7 inverse %ux%u L%u = naive (bits)", w, h, l);
            check(!memcmp(fa, fb, n * 4), what);
            free(ia);
            free(ib);
            free(fa);
            free(fb);
        }
    }
}

/* ---- reconstruction ---------------------------------------------------- */

/* 5/3 forward + inverse is the identity; 9/7 within float rounding: the
 * error bound is relative to the largest input magnitude, generous against
 * the ~1e-6 single precision gives per level. */
static void test_reconstruction(void) {
    static const uint32_t sizes[][2] = {
        {1, 1}, {1, 2}, {2, 1}, {3, 3}, {1, 65535}, {65535, 1}, {2, 65535},
        {65535, 2}, {17, 33}, {1920, 1080}, {1023, 511},
    };
    static const unsigned levels[] = {0, 1, 2, 5, 32};
    char what[128];
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        for (size_t li = 0; li < sizeof(levels) / sizeof(levels[0]); li++) {
            uint32_t w = sizes[s][0], h = sizes[s][1];
            unsigned l = levels[li];
            /* a padded plane: the padding must survive */
            size_t stride = w + 3, n = stride * h;
            int32_t *in = xmalloc(n * 4), *p = xmalloc(n * 4);
            float *f = xmalloc(n * 4);
            for (size_t i = 0; i < n; i++) {
                in[i] = p[i] = rnd_range(-65536, 65535);
                f[i] = (float)in[i];
            }
            int rc = sci_dwt53_forward(test_pool(), p, w, h, stride, l);
            rc |= sci_dwt53_inverse(test_pool(), p, w, h, stride, l);
            snprintf(what, sizeof(what), "5/3 %ux%u L%u reconstructs", w, h, l);
            check(!rc && !memcmp(in, p, n * 4), what);

            rc = sci_dwt97_forward(test_pool(), f, w, h, stride, l);
            rc |= sci_dwt97_inverse(test_pool(), f, w, h, stride, l);
            double err = 0;
            for (size_t i = 0; i < n; i++)
                err = fmax(err, fabs((double)f[i] - in[i]));
            snprintf(what, sizeof(what), "9/7 %ux%u L%u reconstructs (err %.3g)",
                     w, h, l, err);
            check(!rc && err <= 65536 * 2e-5, what);
            free(in);
            free(p);
            free(f);
        }
    }
    int32_t x = 0;
    check(sci_dwt53_forward(test_pool(), &x, 1, 1, 1, 33) == -1, "33 levels refused");
    check(sci_dwt53_forward(test_pool(), &x, 0, 5, 1, 3) == 0, "empty plane is a no-op");
}

/* ---- whole frames ------------------------------------------------------ */

typedef struct {
    const char *name;
    unsigned comps, depth, packed;
    unsigned dx[4], dy[4];
} frame_format;

static const frame_format formats[] = {
    {"GRAY8", 1, 8, 0, {1}, {1}},
    {"GRAY16", 1, 16, 0, {1}, {1}},
    {"I420", 3, 8, 0, {1, 2, 2}, {1, 2, 2}},
    {"I420_10", 3, 10, 0, {1, 2, 2}, {1, 2, 2}},
    {"Y42B", 3, 8, 0, {1, 2, 2}, {1, 1, 1}},
    {"Y444_12", 3, 12, 0, {1, 1, 1}, {1, 1, 1}},
    {"RGB", 3, 8, 1, {1, 1, 1}, {1, 1, 1}},
    {"RGBA", 4, 8, 1, {1, 1, 1, 1}, {1, 1, 1, 1}},
    {"GBR_16", 3, 16, 0, {1, 1, 1}, {1, 1, 1}},
    {"A420", 4, 8, 0, {1, 2, 2, 1}, {1, 2, 2, 1}},
    {"YUV9", 3, 8, 0, {1, 4, 4}, {1, 4, 4}},
    {"depth 1", 1, 1, 0, {1}, {1}},
};

typedef struct {
    uint8_t *mem;
    size_t size;
    sci_wt_plane pl[4];
} frame;

/* Planes with padding at the end of each row; packed formats interleave
 * the components with a pixel stride of `comps` samples. */
static void frame_alloc(frame *f, const sci_wt_geometry *g, unsigned packed) {
    unsigned sb = sci_wt_sample_bytes(g);
    size_t total = 0, off[4];
    ptrdiff_t row[4];
    for (unsigned c = 0; c < g->components; c++) {
        if (packed && c > 0) {
            off[c] = off[0] + c * sb;
            row[c] = row[0];
            continue;
        }
        size_t w = sci_wt_comp_width(g, c) * (packed ? g->components : 1);
        row[c] = (ptrdiff_t)(w * sb + 5);
        off[c] = total;
        total += (size_t)row[c] * sci_wt_comp_height(g, c);
    }
    f->mem = xmalloc(total);
    f->size = total;
    for (size_t i = 0; i < total; i++)
        f->mem[i] = (uint8_t)rng();
    for (unsigned c = 0; c < g->components; c++) {
        f->pl[c].data = f->mem + off[c];
        f->pl[c].row_stride = row[c];
        f->pl[c].pixel_stride = sb * (packed ? g->components : 1);
    }
}

static uint32_t frame_get(const frame *f, const sci_wt_geometry *g,
                          unsigned c, uint32_t x, uint32_t y) {
    const uint8_t *a = (const uint8_t *)f->pl[c].data + y * f->pl[c].row_stride
        + x * f->pl[c].pixel_stride;
    uint32_t v = sci_wt_sample_bytes(g) == 2 ? a[0] | a[1] << 8 : a[0];
    return v & ((1u << g->depth) - 1);
}

/* Random samples, some frames at the extremes of the range. */
static void frame_fill(frame *f, const sci_wt_geometry *g, int kind) {
    uint32_t maxv = (1u << g->depth) - 1;
    for (unsigned c = 0; c < g->components; c++)
        for (uint32_t y = 0; y < sci_wt_comp_height(g, c); y++)
            for (uint32_t x = 0; x < sci_wt_comp_width(g, c); x++) {
                uint32_t v = kind == 0 ? (uint32_t)rng() & maxv
                    : kind == 1 ? ((x ^ y) & 1) * maxv : maxv;
                uint8_t *a = (uint8_t *)f->pl[c].data + y * f->pl[c].row_stride
                    + x * f->pl[c].pixel_stride;
                a[0] = (uint8_t)v;
                if (sci_wt_sample_bytes(g) == 2)
                    a[1] = (uint8_t)(v >> 8);
            }
}

/* Forward: the coefficient buffer must equal the naive transform of the
 * DC-shifted, colour-transformed samples (small frames).  Inverse: 5/3
 * gives the samples back exactly, 9/7 within one step, and neither touches
 * a byte between samples. */
static void test_one_frame(const sci_wt_geometry *g, const frame_format *ff,
                           int kind, char *what, size_t what_len) {
    frame src, dst;
    frame_alloc(&src, g, ff->packed);
    frame_fill(&src, g, kind);
    size_t total = src.size;
    frame_alloc(&dst, g, ff->packed);
    memcpy(dst.mem, src.mem, total);
    frame_fill(&dst, g, 0);

    size_t n = sci_wt_coeff_count(g);
    int32_t *co = xmalloc(n * 4);
    const char *filt = g->filter == SCI_DWT_97 ? "9/7" : "5/3";
    snprintf(what, what_len, "%s %s %ux%u L%u fill %d", ff->name, filt,
             g->width, g->height, g->levels, kind);
    size_t len = strlen(what);

    int rc = sci_wt_forward(test_pool(), g, src.pl, co);
    if (rc) {
        snprintf(what + len, what_len - len, ": forward failed");
        check(0, what);
    } else if ((size_t)g->width * g->height <= 5000) {
        int32_t *ref = xmalloc(n * 4);
        int32_t shift = 1 << (g->depth - 1);
        for (unsigned c = 0; c < g->components; c++) {
            uint32_t cw = sci_wt_comp_width(g, c), ch = sci_wt_comp_height(g, c);
            int32_t *o = ref + sci_wt_comp_offset(g, c);
            for (uint32_t y = 0; y < ch; y++)
                for (uint32_t x = 0; x < cw; x++) {
                    int32_t v = (int32_t)frame_get(&src, g, c, x, y) - shift;
                    if (g->filter == SCI_DWT_97)
                        ((float *)o)[y * cw + x] = (float)v;
                    else
                        o[y * cw + x] = v;
                }
        }
        size_t np = (size_t)g->width * g->height;
        if (g->ct == SCI_CT_RCT)
            sci_rct_forward(test_pool(), ref, ref + np, ref + 2 * np, np);
        else if (g->ct == SCI_CT_ICT)
            sci_ict_forward(test_pool(), (float *)ref, (float *)ref + np,
                            (float *)ref + 2 * np, np);
        for (unsigned c = 0; c < g->components; c++)
            naive_2d(ref + sci_wt_comp_offset(g, c), sci_wt_comp_width(g, c),
                     sci_wt_comp_height(g, c), g->levels,
                     g->filter == SCI_DWT_97, 0);
        snprintf(what + len, what_len - len, ": coefficients = naive");
        check(!memcmp(ref, co, n * 4), what);
        free(ref);
    }

    rc = sci_wt_inverse(test_pool(), g, co, dst.pl);
    uint32_t worst = 0;
    for (unsigned c = 0; c < g->components; c++)
        for (uint32_t y = 0; y < sci_wt_comp_height(g, c); y++)
            for (uint32_t x = 0; x < sci_wt_comp_width(g, c); x++) {
                uint32_t a = frame_get(&src, g, c, x, y);
                uint32_t b = frame_get(&dst, g, c, x, y);
                uint32_t d = a > b ? a - b : b - a;
                worst = d > worst ? d : worst;
            }
    snprintf(what + len, what_len - len, ": reconstructs (worst %u)", worst);
    check(!rc && worst <= (g->filter == SCI_DWT_97 ? 1u : 0u), what);
    /* with the samples put right, everything else must be untouched */
    for (unsigned c = 0; c < g->components; c++)
        for (uint32_t y = 0; y < sci_wt_comp_height(g, c); y++)
            for (uint32_t x = 0; x < sci_wt_comp_width(g, c); x++) {
                size_t at = (size_t)y * src.pl[c].row_stride
                    + (size_t)x * src.pl[c].pixel_stride;
                memcpy((uint8_t *)dst.pl[c].data + at,
                       (uint8_t *)src.pl[c].data + at, sci_wt_sample_bytes(g));
            }
    snprintf(what + len, what_len - len, ": padding untouched");
    check(!memcmp(src.mem, dst.mem, total), what);
    free(co);
    free(src.mem);
    free(dst.mem);
}

static void test_frames(void) {
    static const uint32_t sizes[][2] = {
        {1, 1}, {2, 1}, {1, 7}, {5, 3}, {33, 17}, {131, 97}, {640, 361},
    };
    static const unsigned levels[] = {0, 1, 5, 32};
    char what[160];
    for (size_t fi = 0; fi < sizeof(formats) / sizeof(formats[0]); fi++) {
        const frame_format *ff = &formats[fi];
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
            for (size_t li = 0; li < sizeof(levels) / sizeof(levels[0]); li++) {
                for (int filt = 0; filt < 2; filt++) {
                    sci_wt_geometry g = {
                        .width = sizes[s][0], .height = sizes[s][1],
                        .components = ff->comps, .depth = ff->depth,
                        .filter = filt ? SCI_DWT_97 : SCI_DWT_53,
                        .levels = levels[li],
                    };
                    memcpy(g.dx, ff->dx, sizeof(g.dx));
                    memcpy(g.dy, ff->dy, sizeof(g.dy));
                    if (ff->comps >= 3 && ff->dx[1] == 1 && ff->dy[1] == 1)
                        g.ct = filt ? SCI_CT_ICT : SCI_CT_RCT;
                    check(sci_wt_geometry_check(&g) == NULL, "geometry valid");
                    test_one_frame(&g, ff, (int)(s % 3), what, sizeof(what));
                }
            }
        }
    }
}

/* The inverse fed arbitrary bit patterns (huge integers; NaN, infinities
 * and denormals as floats) must finish and write in-range samples only:
 * what cudaidwt does with a corrupted coefficient buffer.  Built with
 * -fsanitize=undefined this also shows that no arithmetic is undefined. */
static void test_garbage_coefficients(void) {
    for (int filt = 0; filt < 2; filt++) {
        for (int round = 0; round < 20; round++) {
            sci_wt_geometry g = {
                .width = 1 + (uint32_t)(rng() % 97),
                .height = 1 + (uint32_t)(rng() % 61),
                .components = 3, .depth = 1 + (unsigned)(rng() % 16),
                .dx = {1, 1, 1}, .dy = {1, 1, 1},
                .filter = filt ? SCI_DWT_97 : SCI_DWT_53,
                .levels = (unsigned)(rng() % 33),
                .ct = filt ? SCI_CT_ICT : SCI_CT_RCT,
            };
            size_t n = sci_wt_coeff_count(&g);
            uint32_t *co = xmalloc(n * 4);
            for (size_t i = 0; i < n; i++)
                co[i] = (uint32_t)rng();
            frame dst;
            frame_alloc(&dst, &g, 0);
            int rc = sci_wt_inverse(test_pool(), &g, co, dst.pl);
            uint32_t maxv = (1u << g.depth) - 1, worst = 0;
            for (unsigned c = 0; c < 3; c++)
                for (uint32_t y = 0; y < g.height; y++)
                    for (uint32_t x = 0; x < g.width; x++) {
                        const uint8_t *a = (const uint8_t *)dst.pl[c].data
                            + y * dst.pl[c].row_stride
                            + x * dst.pl[c].pixel_stride;
                        uint32_t v = sci_wt_sample_bytes(&g) == 2
                            ? (uint32_t)(a[0] | a[1] << 8) : a[0];
                        worst = v > worst ? v : worst;
                    }
            check(rc == 0 && worst <= maxv,
                  filt ? "9/7+ICT inverse of garbage: samples in range"
                       : "5/3+RCT inverse of garbage: samples in range");
            free(co);
            free(dst.mem);
        }
    }
}

/* The i-th way to make a valid geometry invalid, and its name; NULL past
 * the last. */
static const char *spoil_geometry(sci_wt_geometry *g, int i) {
    switch (i) {
    case 0: g->width = 0; return "width 0";
    case 1: g->height = 65536; return "height 65536";
    case 2: g->components = 5; return "5 components";
    case 3: g->components = 0; return "0 components";
    case 4: g->depth = 0; return "depth 0";
    case 5: g->depth = 17; return "depth 17";
    case 6: g->levels = 33; return "33 levels";
    case 7: g->dx[2] = 0; return "subsampling 0";
    case 8: g->dy[1] = 5; return "subsampling 5";
    case 9: g->filter = SCI_DWT_97; return "RCT with 9/7";
    case 10: g->ct = SCI_CT_ICT; return "ICT with 5/3";
    case 11: g->components = 2; return "RCT with 2 components";
    case 12: g->dx[1] = 2; return "RCT with subsampled chroma";
    case 13: g->filter = (sci_dwt_filter)7; return "unknown filter";
    case 14: g->ct = (sci_colour_transform)9; return "unknown colour transform";
    default: return NULL;
    }
}

static void test_geometry_check(void) {
    const sci_wt_geometry ok = {
        .width = 64, .height = 48, .components = 3, .depth = 8,
        .dx = {1, 1, 1}, .dy = {1, 1, 1}, .filter = SCI_DWT_53,
        .levels = 5, .ct = SCI_CT_RCT,
    };
    check(sci_wt_geometry_check(&ok) == NULL, "valid geometry accepted");
    char what[96];
    const char *name;
    sci_wt_geometry g = ok;
    for (int i = 0; (name = spoil_geometry(&g, i)); i++, g = ok) {
        snprintf(what, sizeof(what), "geometry refused: %s", name);
        check(sci_wt_geometry_check(&g) != NULL, what);
    }
    g.levels = 40;
    int32_t dummy[4];
    sci_wt_plane pl[3] = {{dummy, 4, 1}, {dummy, 4, 1}, {dummy, 4, 1}};
    check(sci_wt_forward(test_pool(), &g, pl, dummy) == -1
              && sci_wt_inverse(test_pool(), &g, dummy, pl) == -1,
          "frame transforms refuse an invalid geometry");
    check(sci_wt_comp_offset(&ok, 2) == 2 * 64 * 48
              && sci_wt_coeff_count(&ok) == 3 * 64 * 48,
          "coefficient layout offsets");
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            rng_state = strtoull(argv[++i], NULL, 0);
    printf("seed %llu\n", (unsigned long long)rng_state);
    test_known_answers();
    test_against_naive();
    test_reconstruction();
    test_frames();
    test_geometry_check();
    test_garbage_coefficients();
    printf("%u passed, %u failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}
