/*
 * Unit tests of the online-DPCM codec (codec/dpcm.h, codec/range_coder.h):
 * the CRC, the range coder, the solve, bit-exact round trips of the real
 * GMOS-N frames (bits per pixel against a left-neighbour baseline) and of
 * synthetic frames at every corner of sizes, depths and parameters, and
 * the rejection of every corrupted and truncated stream.
 *
 *   test-codec-dpcm [--seed S] [--data DIR] [--bench]
 *
 * DIR (else $SCI_TEST_DATA_DIR, else ../shared/data; meson passes it)
 * holds spectral16/gmos-n-multi.fits.  Without the file the real-data part
 * says SKIP and the synthetic and corruption parts still run.  --bench times
 * a 1024 x 1024 16-bit frame tiled from the real ones (encode, decode).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "codec/dpcm.h"
#include "codec/range_coder.h"
#include "fitsread.h"
#include "testutil.h"

/* ---------------------------------------------------------------------- */

static void test_crc(void) {
    check(sci_crc32(0, (const uint8_t *)"123456789", 9) == 0xCBF43926u,
          "CRC-32 check value");
    uint32_t c = sci_crc32(0, (const uint8_t *)"1234", 4);
    check(sci_crc32(c, (const uint8_t *)"56789", 5) == 0xCBF43926u,
          "CRC-32 in pieces");
}

static void test_range_coder(void) {
    static const uint32_t sizes[] = {1, 2, 3, 17, 256, 4097, 131072, 262144};
    static uint8_t buf[1 << 20];
    static uint32_t syms[100000];
    unsigned bad = 0;
    for (unsigned t = 0; t < sizeof sizes / sizeof *sizes; t++) {
        uint32_t n = sizes[t];
        for (int skew = 0; skew < 3; skew++) {
            size_t count = skew == 2 ? 0 : 100000;
            for (size_t i = 0; i < count; i++) {
                uint64_t r = rng();
                /* skew 1: mostly near 0, some anywhere */
                syms[i] = skew == 1 && (r & 7) ? (uint32_t)((r >> 8) % (n < 8 ? n : 8))
                                               : (uint32_t)((r >> 8) % n);
            }
            sci_rc_model m;
            sci_rc_enc e;
            if (sci_rc_model_init(&m, n)) {
                bad++;
                continue;
            }
            sci_rc_enc_init(&e, buf, sizeof buf);
            for (size_t i = 0; i < count; i++)
                sci_rc_encode(&e, &m, syms[i]);
            size_t len = sci_rc_enc_finish(&e);
            sci_rc_model_free(&m);
            if (len > sizeof buf || len > 6 + 3 * count) {
                bad++;
                continue;
            }
            sci_rc_dec d;
            sci_rc_model_init(&m, n);
            int err = sci_rc_dec_init(&d, buf, len);
            for (size_t i = 0; i < count && !err; i++)
                if (sci_rc_decode(&d, &m) != syms[i] || d.error)
                    err = 1;
            if (err || d.pos != len)
                bad++;
            sci_rc_model_free(&m);
        }
    }
    check(bad == 0, "range coder: random messages over 1..2^18 symbols decode back, within bound");
    sci_rc_model m;
    check(sci_rc_model_init(&m, 0) != 0 && sci_rc_model_init(&m, SCI_RC_MAX_SYMBOLS + 1) != 0,
          "range coder: model sizes 0 and 2^18 + 1 refused");
}

static void test_solve(void) {
    /* G = X^T X, b = X^T y for y = X a with a = (2, -1, 0.5) */
    int64_t x[6][3] = {{1, 2, 3}, {4, 5, 7}, {7, 8, 10}, {2, 9, 4}, {6, 1, 8}, {3, 3, 1}};
    const double a_true[3] = {2, -1, 0.5};
    int64_t g[6] = {0}, b[3] = {0};
    for (int r = 0; r < 6; r++) {
        double yv = 0;
        for (int k = 0; k < 3; k++)
            yv += a_true[k] * (double)x[r][k];
        int64_t y2 = (int64_t)(2 * yv); /* scale by 2: integers */
        int t = 0;
        for (int i = 0; i < 3; i++) {
            for (int j = i; j < 3; j++)
                g[t++] += 2 * x[r][i] * x[r][j];
            b[i] += x[r][i] * y2;
        }
    }
    double a[3];
    int ok = sci_dpcm_solve(3, g, b, a);
    check(ok && a[0] > 1.999999 && a[0] < 2.000001 && a[1] > -1.000001 &&
              a[1] < -0.999999 && a[2] > 0.499999 && a[2] < 0.500001,
          "solve: 3x3 least squares");
    int64_t gs[3] = {4, 4, 4}, bs[2] = {2, 2}; /* [[4,4],[4,4]]: rank 1 */
    check(!sci_dpcm_solve(2, gs, bs, a), "solve: rank-deficient system is singular");
    int64_t gz[1] = {0}, bz[1] = {0};
    check(!sci_dpcm_solve(1, gz, bz, a), "solve: zero system is singular");
    check(sci_dpcm_round_prediction(2.5, 10) == 3 && sci_dpcm_round_prediction(-0.5, 10) == 0 &&
              sci_dpcm_round_prediction(-0.6, 10) == 0 && sci_dpcm_round_prediction(9.49, 10) == 9 &&
              sci_dpcm_round_prediction(1e300, 10) == 10 && sci_dpcm_round_prediction(0.0 / 0.0, 10) == 0,
          "rounding: floor(p + 0.5), clamped, NaN to 0");
}

/* ---------------------------------------------------------------------- */

static size_t roundtrip_bytes;

/* Encodes and decodes, checking every step.  Returns the frame's bytes (0
 * on failure, after reporting). */
static size_t roundtrip(const uint16_t *px, size_t stride, unsigned w, unsigned h,
                        unsigned depth, const sci_dpcm_params *p, const char *name) {
    char what[256];
    size_t cap = sci_dpcm_max_bytes(w, h, depth);
    uint8_t *buf = malloc(cap);
    size_t dstride = w + 3;
    size_t cap_s = (size_t)(h - 1) * dstride + w;
    uint16_t *dec = malloc((cap_s + 3) * sizeof *dec);
    for (size_t i = 0; i < cap_s + 3; i++)
        dec[i] = 0xA5A5;
    size_t n = sci_dpcm_encode(px, stride, w, h, depth, p, buf, cap);
    int ok = n > 0 && n <= cap;
    sci_dpcm_info info;
    int st = ok ? sci_dpcm_decode(buf, n, dec, dstride, cap_s, &info) : SCI_DPCM_E_ARG;
    ok = ok && st == SCI_DPCM_OK;
    ok = ok && info.width == w && info.height == h && info.depth == depth &&
         info.params.order_n == p->order_n && info.params.equations_m == p->equations_m &&
         info.params.threshold == p->threshold && info.frame_bytes == n;
    for (unsigned y = 0; ok && y < h; y++) {
        if (memcmp(dec + y * dstride, px + y * stride, w * sizeof *dec))
            ok = 0;
        if (y + 1 < h)
            for (unsigned x = w; x < dstride; x++)
                if (dec[y * dstride + x] != 0xA5A5)
                    ok = 0;
    }
    /* the stages alone give the same samples */
    if (ok) {
        int32_t *res = malloc((size_t)w * h * sizeof *res);
        uint16_t *pred = malloc((size_t)w * h * sizeof *pred);
        uint16_t *back = malloc((size_t)w * h * sizeof *back);
        int s1 = sci_dpcm_predict_residuals(px, stride, w, h, depth, p->order_n,
                                            p->equations_m, res, pred);
        int s2 = sci_dpcm_reconstruct(res, w, h, depth, p->order_n, p->equations_m, back, w);
        for (unsigned y = 0; y < h; y++)
            for (unsigned x = 0; x < w; x++) {
                size_t i = (size_t)y * w + x;
                if (back[i] != px[y * stride + x] ||
                    res[i] != (int32_t)px[y * stride + x] - pred[i])
                    s1 = -1;
            }
        ok = s1 == 0 && s2 == 0;
        free(res);
        free(pred);
        free(back);
    }
    snprintf(what, sizeof what, "%s: %ux%u depth %u N=%u M=%u T=%u round trip (%s, %zu bytes)",
             name, w, h, depth, p->order_n, p->equations_m, p->threshold,
             sci_dpcm_error_string(st), n);
    check(ok, what);
    roundtrip_bytes = n;
    free(buf);
    free(dec);
    return ok ? n : 0;
}

/* Left-neighbour DPCM (column 0 from above) through the same entropy
 * stage and frame overheads: the baseline for the predictor's gain. */
static size_t baseline_bytes(const uint16_t *px, unsigned w, unsigned h, unsigned depth,
                             unsigned threshold) {
    size_t count = (size_t)w * h;
    int32_t *res = malloc(count * sizeof *res);
    for (unsigned y = 0; y < h; y++)
        for (unsigned x = 0; x < w; x++) {
            int32_t p = x ? px[y * w + x - 1] : y ? px[(y - 1) * w] : 0;
            res[(size_t)y * w + x] = (int32_t)px[y * w + x] - p;
        }
    int32_t lo, hi;
    sci_dpcm_thresholds(res, count, depth, threshold, &lo, &hi);
    size_t cap = 6 + 3 * count + count * 3;
    uint8_t *rc = malloc(cap), *raw = malloc(count * 3);
    size_t rcb = 0, rawb = 0;
    uint32_t esc;
    int st = sci_dpcm_code_residuals(res, count, depth, lo, hi, rc, cap, &rcb, raw,
                                     count * 3, &rawb, &esc);
    free(res);
    free(rc);
    free(raw);
    return st ? 0 : SCI_DPCM_HEADER_BYTES + SCI_DPCM_TRAILER_BYTES + rcb + rawb;
}

static unsigned test_real(const char *dir) {
    char path[1024];
    snprintf(path, sizeof path, "%s/spectral16/gmos-n-multi.fits", dir);
    fits_frame fr[8];
    unsigned n = fits_read_u16(path, fr, 8);
    if (n == 0) {
        printf("SKIP real frames: cannot read %s\n", path);
        return 0;
    }
    check(n == 3, "FITS: 3 image extensions");
    sci_dpcm_params p;
    sci_dpcm_params_default(&p);
    printf("real frames (bits per pixel; raw 16):\n");
    printf("  %-5s %-9s %10s %10s %10s %10s %10s\n", "ext", "size", "N11M7T13",
           "N11M7T0", "N4M4T13", "N16M8T13", "left T13");
    double sum_ours = 0, sum_base = 0;
    size_t pixels = 0;
    for (unsigned i = 0; i < n; i++) {
        unsigned w = fr[i].w, h = fr[i].h;
        double px = (double)w * h;
        size_t a = roundtrip(fr[i].px, w, w, h, 16, &p, "real");
        sci_dpcm_params q = p;
        q.threshold = 0;
        size_t b = roundtrip(fr[i].px, w, w, h, 16, &q, "real");
        q = p;
        q.order_n = 4, q.equations_m = 4;
        size_t c = roundtrip(fr[i].px, w, w, h, 16, &q, "real");
        q = p;
        q.order_n = 16, q.equations_m = 8;
        size_t d = roundtrip(fr[i].px, w, w, h, 16, &q, "real");
        size_t base = baseline_bytes(fr[i].px, w, h, 16, 13);
        printf("  %-5u %3ux%-5u %10.3f %10.3f %10.3f %10.3f %10.3f\n", i + 1, w, h,
               8.0 * a / px, 8.0 * b / px, 8.0 * c / px, 8.0 * d / px, 8.0 * base / px);
        sum_ours += a;
        sum_base += base;
        pixels += (size_t)w * h;
        /* depth 8: the top byte of each sample */
        uint16_t *hi = malloc((size_t)w * h * sizeof *hi);
        for (size_t k = 0; k < (size_t)w * h; k++)
            hi[k] = fr[i].px[k] >> 8;
        roundtrip(hi, w, w, h, 8, &p, "real top byte");
        free(hi);
    }
    printf("  all   %-9s %10.3f %43s %10.3f  (gain %.3f bpp)\n", "", 8.0 * sum_ours / pixels,
           "", 8.0 * sum_base / pixels, 8.0 * (sum_base - sum_ours) / pixels);
    check(sum_ours < sum_base, "real frames: the LS predictor beats left-neighbour DPCM");
    for (unsigned i = 0; i < n; i++)
        free(fr[i].px);
    return n;
}

typedef enum { CONSTANT, NOISE, RAMP_X, RAMP_Y, RAMP_XY, SMOOTH, OUTLIERS, SATURATED } pattern;

static void fill(uint16_t *px, unsigned w, unsigned h, size_t stride, unsigned depth,
                 pattern pat) {
    uint32_t maxv = (1u << depth) - 1;
    uint32_t c = (uint32_t)(rng() % (maxv + 1));
    for (unsigned y = 0; y < h; y++)
        for (unsigned x = 0; x < w; x++) {
            uint32_t v = 0;
            switch (pat) {
            case CONSTANT: v = c; break;
            case NOISE: v = (uint32_t)(rng() % (maxv + 1)); break;
            case RAMP_X: v = (c + 3 * x) % (maxv + 1); break;
            case RAMP_Y: v = (c + 5 * y) % (maxv + 1); break;
            case RAMP_XY: v = (c + x + 2 * y) % (maxv + 1); break;
            case SMOOTH: {
                double t = 0.5 + 0.4 * ((x * 7 + y * 3) % 97) / 97.0;
                v = (uint32_t)(t * maxv) + (uint32_t)(rng() % 3);
                if (v > maxv)
                    v = maxv;
                break;
            }
            case OUTLIERS:
                v = (uint32_t)(maxv / 16) + (uint32_t)(rng() % 4);
                if (rng() % 50 == 0)
                    v = maxv - (uint32_t)(rng() % 3);
                if (v > maxv)
                    v = maxv;
                break;
            case SATURATED: v = (rng() & 1) ? maxv : 0; break;
            }
            px[(size_t)y * stride + x] = (uint16_t)v;
        }
}

static void test_synthetic(void) {
    static const unsigned dims[][2] = {{1, 1},  {1, 7},   {7, 1},  {2, 2},   {3, 3},
                                       {1, 40}, {40, 1},  {2, 50}, {5, 40},  {17, 20},
                                       {18, 3}, {30, 30}, {64, 9}, {100, 64}};
    static const unsigned depths[] = {16, 8, 1, 12};
    static const char *names[] = {"constant", "noise", "ramp x", "ramp y",
                                  "ramp xy", "smooth", "outliers", "saturated"};
    static const sci_dpcm_params params[] = {
        {11, 7, 13}, {1, 1, 13}, {1, 7, 0}, {11, 1, 0}, {11, 7, 1},
        {11, 7, 1000000}, {16, 8, 13}, {32, 64, 2}, {3, 2, 0}};
    unsigned before = check_failed, runs = 0;
    for (unsigned d = 0; d < sizeof dims / sizeof *dims; d++)
        for (unsigned b = 0; b < sizeof depths / sizeof *depths; b++)
            for (unsigned pat = 0; pat <= SATURATED; pat++) {
                unsigned w = dims[d][0], h = dims[d][1];
                size_t stride = w + (unsigned)(rng() % 3);
                uint16_t *px = malloc(((size_t)h * stride + 1) * sizeof *px);
                fill(px, w, h, stride, depths[b], (pattern)pat);
                for (unsigned q = 0; q < sizeof params / sizeof *params; q++) {
                    /* frames above 1000 pixels: every parameter set at
                     * depth 16, the defaults and N=32 (on two patterns)
                     * elsewhere, to keep the test short */
                    if (w * h > 1000 && depths[b] != 16 && q != 0 &&
                        !(q == 7 && (pat == NOISE || pat == SMOOTH)))
                        continue;
                    roundtrip(px, stride, w, h, depths[b], &params[q], names[pat]);
                    runs++;
                }
                free(px);
            }
    printf("synthetic: %u size x depth x pattern x parameter round trips, %u failed\n", runs,
           check_failed - before);

    /* compression sanity: a constant frame costs almost nothing, a ramp too */
    sci_dpcm_params p;
    sci_dpcm_params_default(&p);
    uint16_t *px = malloc(256 * 256 * sizeof *px);
    fill(px, 256, 256, 256, 16, CONSTANT);
    size_t n = roundtrip(px, 256, 256, 256, 16, &p, "constant 256");
    check(n > 0 && n < 200, "constant 256x256 codes to < 200 bytes");
    fill(px, 256, 256, 256, 16, RAMP_XY);
    n = roundtrip(px, 256, 256, 256, 16, &p, "ramp 256");
    check(n > 0 && n < 2000, "ramp 256x256 codes to < 2000 bytes");
    fill(px, 256, 256, 256, 16, NOISE);
    n = roundtrip(px, 256, 256, 256, 16, &p, "noise 256");
    check(n > 0 && 8.0 * n / 65536 < 18.2, "16-bit noise stays below 18.2 bits per pixel");
    free(px);

    /* samples above the depth are refused */
    uint16_t bad[4] = {1, 2, 256, 3};
    uint8_t out[256];
    check(sci_dpcm_encode(bad, 2, 2, 2, 8, &p, out, sizeof out) == 0,
          "encode refuses a sample above 2^depth - 1");
    check(sci_dpcm_encode(bad, 2, 2, 2, 9, &p, out, 10) == 0, "encode refuses a tiny buffer");
    sci_dpcm_params z = {0, 7, 13};
    check(sci_dpcm_check(4, 4, 16, &z) != NULL && sci_dpcm_check(0, 4, 16, &p) != NULL &&
              sci_dpcm_check(65536, 1, 16, &p) != NULL && sci_dpcm_check(4, 4, 17, &p) != NULL &&
              sci_dpcm_check(16384, 16385, 16, &p) != NULL &&
              sci_dpcm_check(65535, 4096, 16, &p) == NULL,
          "parameter and size checks");

#ifdef _OPENMP
    /* the same bytes whatever the thread count */
    uint16_t *img = malloc(300 * 40 * sizeof *img);
    fill(img, 300, 40, 300, 16, SMOOTH);
    size_t cap = sci_dpcm_max_bytes(300, 40, 16);
    uint8_t *a = malloc(cap), *b2 = malloc(cap);
    int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    size_t na = sci_dpcm_encode(img, 300, 300, 40, 16, &p, a, cap);
    omp_set_num_threads(threads > 1 ? threads : 2);
    size_t nb = sci_dpcm_encode(img, 300, 300, 40, 16, &p, b2, cap);
    omp_set_num_threads(threads);
    check(na && na == nb && !memcmp(a, b2, na), "encoding independent of the thread count");
    free(img);
    free(a);
    free(b2);
#endif
}

/* ---------------------------------------------------------------------- */

static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> 8 * i);
}

static void fix_crc(uint8_t *s, size_t n) {
    put32(s + n - 4, sci_crc32(0, s, n - 4));
}

/* Decoding the stream must fail with `want` (any error if want is 1). */
static void expect(const uint8_t *s, size_t n, int want, const char *what) {
    static uint16_t out[1 << 16];
    int st = sci_dpcm_decode(s, n, out, 64, sizeof out / sizeof *out, NULL);
    char msg[200];
    snprintf(msg, sizeof msg, "%s: %s", what, sci_dpcm_error_string(st));
    check(want == 1 ? st < 0 : st == want, msg);
}

static void test_corruption(void) {
    /* a small frame with escapes and coded residuals */
    enum { W = 24, H = 20 };
    uint16_t px[W * H];
    fill(px, W, H, W, 16, OUTLIERS);
    sci_dpcm_params p;
    sci_dpcm_params_default(&p);
    p.threshold = 3;
    uint8_t s[8192], t[8192];
    size_t n = sci_dpcm_encode(px, W, W, H, 16, &p, s, sizeof s);
    sci_dpcm_info info;
    check(n > 0 && sci_dpcm_peek(s, n, &info) == SCI_DPCM_OK && info.escapes > 0,
          "corruption: the test frame has escapes");
    static uint16_t out[W * H];
    unsigned flips = 0, flip_bad = 0, trunc_bad = 0;
    for (size_t i = 0; i < n; i++)
        for (unsigned m = 0; m < 9; m++) {
            memcpy(t, s, n);
            t[i] ^= m < 8 ? (uint8_t)(1u << m) : 0xFF;
            flips++;
            if (sci_dpcm_decode(t, n, out, W, W * H, NULL) >= 0)
                flip_bad++;
        }
    char what[160];
    snprintf(what, sizeof what,
             "corruption: all %u single-bit and byte flips of a %zu-byte frame rejected", flips, n);
    check(flip_bad == 0, what);
    for (size_t len = 0; len < n; len++) {
        memcpy(t, s, len);
        if (sci_dpcm_decode(t, len, out, W, W * H, NULL) >= 0)
            trunc_bad++;
    }
    snprintf(what, sizeof what, "corruption: all %zu truncations rejected", n);
    check(trunc_bad == 0, what);
    memcpy(t, s, n);
    t[n] = 0;
    expect(t, n + 1, SCI_DPCM_E_TRAILING, "a byte appended");
    check(sci_dpcm_decode(s, n, out, W, W * H - 1, NULL) == SCI_DPCM_E_BUFFER,
          "corruption: too small an output buffer refused");
    check(sci_dpcm_decode(s, n, out, W, W * H, NULL) == SCI_DPCM_OK, "corruption: original decodes");

    /* each header check, with a valid CRC so that the check itself fires */
    struct { size_t off; uint32_t val; int bytes, want; const char *what; } cases[] = {
        {0, 'X', 1, SCI_DPCM_E_MAGIC, "bad magic"},
        {4, 3, 1, SCI_DPCM_E_VERSION, "version 3"},
        {4, 0, 1, SCI_DPCM_E_VERSION, "version 0"},
        {5, 0, 1, SCI_DPCM_E_DEPTH, "depth 0"},
        {5, 17, 1, SCI_DPCM_E_DEPTH, "depth 17"},
        {6, 0, 1, SCI_DPCM_E_PARAMS, "N 0"},
        {6, 33, 1, SCI_DPCM_E_PARAMS, "N 33"},
        {7, 65, 1, SCI_DPCM_E_PARAMS, "M 65"},
        {8, 0, 4, SCI_DPCM_E_DIMENSIONS, "width 0"},
        {12, 70000, 4, SCI_DPCM_E_DIMENSIONS, "height 70000"},
        {8, 40000, 4, SCI_DPCM_E_DIMENSIONS, "width x height above 2^28"},
        {16, (1u << 28) + 1, 4, SCI_DPCM_E_PARAMS, "T above 2^28"},
        {20, (uint32_t)-70000, 4, SCI_DPCM_E_THRESHOLDS, "T- below -(2^16-1)"},
        {24, 70000, 4, SCI_DPCM_E_THRESHOLDS, "T+ above 2^16-1"},
        {40, 1, 4, SCI_DPCM_E_RESERVED, "reserved bits"},
        {28, 0xFFFFFFFFu, 4, SCI_DPCM_E_LENGTHS, "escape count above the pixels"},
        {32, 0, 4, SCI_DPCM_E_LENGTHS, "raw length inconsistent"},
        {36, 3, 4, SCI_DPCM_E_LENGTHS, "coded length below 6"},
    };
    for (unsigned c = 0; c < sizeof cases / sizeof *cases; c++) {
        memcpy(t, s, n);
        if (cases[c].bytes == 1)
            t[cases[c].off] = (uint8_t)cases[c].val;
        else
            put32(t + cases[c].off, cases[c].val);
        fix_crc(t, n);
        if (c == 10) { /* width 40000 x height 20 is fine: make it 40000 x 40000 */
            put32(t + 12, 40000);
            fix_crc(t, n);
        }
        expect(t, n, cases[c].want, cases[c].what);
    }
    memcpy(t, s, n);
    t[n - 1] ^= 1;
    expect(t, n, SCI_DPCM_E_CRC, "CRC flipped");
    /* one escape fewer than the coded section uses */
    memcpy(t, s, n);
    {
        uint32_t esc = info.escapes - 1, raw = (uint32_t)((esc * 17 + 7) / 8);
        size_t rc_off = SCI_DPCM_HEADER_BYTES + info.raw_bytes;
        uint8_t *u = malloc(n);
        memcpy(u, t, SCI_DPCM_HEADER_BYTES + raw);
        memcpy(u + SCI_DPCM_HEADER_BYTES + raw, t + rc_off, info.rc_bytes);
        put32(u + 28, esc);
        put32(u + 32, raw);
        size_t m = SCI_DPCM_HEADER_BYTES + raw + info.rc_bytes + 4;
        fix_crc(u, m);
        expect(u, m, SCI_DPCM_E_ESCAPES, "escape count one short");
        free(u);
    }
    /* coded data changed under a valid CRC: an error or, at worst, other
     * samples, never a crash (the fuzz test goes further) */
    unsigned decoded = 0, errors = 0;
    for (size_t i = SCI_DPCM_HEADER_BYTES; i < n - 4; i++) {
        memcpy(t, s, n);
        t[i] ^= 0x10;
        fix_crc(t, n);
        if (sci_dpcm_decode(t, n, out, W, W * H, NULL) < 0)
            errors++;
        else
            decoded++;
    }
    printf("payload byte changes under a valid CRC: %u errors, %u decoded to other samples\n",
           errors, decoded);
}

/* ---------------------------------------------------------------------- */
/* The metadata section (version 2 frames) */

static void test_metadata(void) {
    enum { W = 33, H = 17 };
    uint16_t px[W * H], out[W * H];
    fill(px, W, H, W, 16, OUTLIERS);
    sci_dpcm_params p;
    sci_dpcm_params_default(&p);
    size_t cap = sci_dpcm_max_bytes(W, H, 16);
    uint8_t *plain = malloc(cap);
    size_t n0 = sci_dpcm_encode(px, W, W, H, 16, &p, plain, cap);
    check(n0 > 0 && plain[4] == 1, "metadata: a frame without it is version 1");
    size_t n0b = sci_dpcm_encode_meta(px, W, W, H, 16, &p, NULL, 0, plain, cap);
    check(n0b == n0, "metadata: encode_meta with none gives encode's frame");
    const uint8_t *m;
    size_t ml;
    check(sci_dpcm_metadata(plain, n0, &m, &ml) == SCI_DPCM_OK && !m && ml == 0,
          "metadata: none in a version-1 frame");

    /* lengths from 1 byte to many FITS blocks, bytes with NULs */
    static const size_t lens[] = {1, 2, 7, 80, 2880, 100000};
    for (unsigned i = 0; i < sizeof lens / sizeof *lens; i++) {
        size_t len = lens[i];
        uint8_t *meta = malloc(len);
        for (size_t k = 0; k < len; k++)
            meta[k] = (uint8_t)(k * 31 + i);
        size_t fcap = cap + len;
        uint8_t *f = malloc(fcap);
        size_t r = sci_dpcm_encode_meta(px, W, W, H, 16, &p, meta, len, f, n0 + len - 1);
        check(r == 0, "metadata: a buffer one byte short refused");
        size_t n = sci_dpcm_encode_meta(px, W, W, H, 16, &p, meta, len, f, fcap);
        sci_dpcm_info info;
        char what[120];
        snprintf(what, sizeof what, "metadata: %zu bytes round trip", len);
        int ok = n == n0 + len && f[4] == 2 &&
                 sci_dpcm_decode(f, n, out, W, W * H, &info) == SCI_DPCM_OK &&
                 info.version == 2 && info.meta_bytes == len &&
                 memcmp(out, px, sizeof px) == 0 &&
                 sci_dpcm_metadata(f, n, &m, &ml) == SCI_DPCM_OK && ml == len &&
                 m == f + SCI_DPCM_HEADER_BYTES && memcmp(m, meta, len) == 0 &&
                 /* the sections after the metadata are the plain frame's */
                 memcmp(f + SCI_DPCM_HEADER_BYTES + len, plain + SCI_DPCM_HEADER_BYTES,
                        n0 - SCI_DPCM_HEADER_BYTES - 4) == 0;
        check(ok, what);
        if (len == 80) {
            uint8_t *t = malloc(n + 8);
            /* the length field changed, CRC fixed: the frame no longer adds up */
            memcpy(t, f, n);
            put32(t + 40, 81);
            fix_crc(t, n);
            expect(t, n, SCI_DPCM_E_TRUNCATED, "metadata length one too large");
            check(sci_dpcm_metadata(t, n, &m, &ml) == SCI_DPCM_E_TRUNCATED && !m,
                  "metadata: too large a length refused by sci_dpcm_metadata");
            memcpy(t, f, n);
            put32(t + 40, 79);
            fix_crc(t, n);
            expect(t, n, SCI_DPCM_E_TRAILING, "metadata length one too small");
            memcpy(t, f, n);
            put32(t + 40, SCI_DPCM_MAX_METADATA + 1);
            fix_crc(t, n);
            expect(t, n, SCI_DPCM_E_LENGTHS, "metadata length above the limit");
            memcpy(t, f, n);
            put32(t + 40, 0xFFFFFFFFu);
            fix_crc(t, n);
            expect(t, n, SCI_DPCM_E_LENGTHS, "metadata length 2^32-1");
            /* without the CRC fixed, every change of the metadata is caught */
            unsigned bad = 0;
            for (size_t k = 0; k < len + 4; k++) {
                memcpy(t, f, n);
                t[SCI_DPCM_HEADER_BYTES - 4 + k] ^= 0x01;
                if (sci_dpcm_decode(t, n, out, W, W * H, NULL) >= 0 ||
                    sci_dpcm_metadata(t, n, &m, &ml) >= 0)
                    bad++;
            }
            check(bad == 0, "metadata: every flipped bit of it or its length rejected");
            /* version 1 with the length set is a reserved-field error */
            memcpy(t, f, n);
            t[4] = 1;
            fix_crc(t, n);
            expect(t, n, SCI_DPCM_E_RESERVED, "metadata length in a version-1 frame");
            for (size_t k = 0; k < n; k++)
                if (sci_dpcm_decode(f, k, out, W, W * H, NULL) >= 0 ||
                    sci_dpcm_metadata(f, k, &m, &ml) >= 0)
                    bad++;
            check(bad == 0, "metadata: every truncation rejected");
            free(t);
        }
        free(f);
        free(meta);
    }
    check(sci_dpcm_encode_meta(px, W, W, H, 16, &p, NULL, 5, plain, cap) == 0,
          "metadata: NULL with a length refused");
    uint8_t one = 0;
    check(sci_dpcm_encode_meta(px, W, W, H, 16, &p, &one,
                               (size_t)SCI_DPCM_MAX_METADATA + 1, plain, cap) == 0,
          "metadata: above the limit refused");
    /* a version-2 frame with an empty section decodes too */
    {
        uint8_t *t = malloc(n0);
        memcpy(t, plain, n0);
        t[4] = 2;
        fix_crc(t, n0);
        check(sci_dpcm_decode(t, n0, out, W, W * H, NULL) == SCI_DPCM_OK &&
                  memcmp(out, px, sizeof px) == 0,
              "metadata: version 2 with no metadata decodes");
        free(t);
    }
    free(plain);
}

/* ---------------------------------------------------------------------- */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void bench(const char *dir) {
    char path[1024];
    snprintf(path, sizeof path, "%s/spectral16/gmos-n-multi.fits", dir);
    fits_frame fr[3];
    unsigned nf = fits_read_u16(path, fr, 3);
    enum { S = 1024 };
    uint16_t *img = malloc((size_t)S * S * sizeof *img);
    /* tiles of the real frames, mirrored so that edges stay smooth */
    for (unsigned y = 0; y < S; y++)
        for (unsigned x = 0; x < S; x++) {
            if (!nf) {
                img[y * S + x] = (uint16_t)(1000 + (x * 7 + y * 3) % 500 + rng() % 8);
                continue;
            }
            img[y * S + x] = fits_mosaic_sample(fr, nf, x, y);
        }
    sci_dpcm_params p;
    sci_dpcm_params_default(&p);
    size_t cap = sci_dpcm_max_bytes(S, S, 16);
    uint8_t *buf = malloc(cap);
    uint16_t *dec = malloc((size_t)S * S * sizeof *dec);
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    for (int rep = 0; rep < 2; rep++) {
        double t0 = now();
        size_t n = sci_dpcm_encode(img, S, S, S, 16, &p, buf, cap);
        double t1 = now();
        int st = sci_dpcm_decode(buf, n, dec, S, (size_t)S * S, NULL);
        double t2 = now();
        printf("bench 1024x1024x16 (%d threads): %.3f bpp, encode %.3f s, decode %.3f s, %s\n",
               threads, 8.0 * n / (S * S), t1 - t0, t2 - t1,
               st == 0 && !memcmp(img, dec, (size_t)S * S * 2) ? "exact" : "MISMATCH");
    }
    free(img);
    free(buf);
    free(dec);
    for (unsigned i = 0; i < nf; i++)
        free(fr[i].px);
}

int main(int argc, char **argv) {
    const char *dir = getenv("SCI_TEST_DATA_DIR");
    if (!dir)
        dir = "../shared/data";
    int do_bench = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            rng_state = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--data") && i + 1 < argc)
            dir = argv[++i];
        else if (!strcmp(argv[i], "--bench"))
            do_bench = 1;
    }
    if (do_bench) {
        bench(dir);
        return 0;
    }
    test_crc();
    test_range_coder();
    test_solve();
    test_real(dir);
    test_synthetic();
    test_corruption();
    test_metadata();
    printf("%u passed, %u failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}
