/*
 * The seismic codec (codec/seismic/seismic.h) and its transform, the float 5/3
 * DWT of codec/j2k/dwt.h:
 *
 *  1. sci_dwt53f_forward/inverse against a naive float 5/3 lifting written
 *     here (one 1-D signal at a time, explicit whole-sample symmetric
 *     extension, levels in the Mallat layout, vertical then horizontal each
 *     level, the inverse horizontal then vertical), bit-exact, on random
 *     planes of awkward sizes and strides; inverse(forward(x)) ~ x within
 *     a rounding bound derived below.
 *  2. Round trips of random and smooth synthetic gathers of awkward sizes,
 *     bits 2..16, levels 0..8: the decoder's indices equal indices computed
 *     here from the reference transform and the quantization grid of
 *     docs/seismic-format.md; its floats equal this test's dequantisation
 *     followed by sci_dwt53f_inverse, bit for bit; the error is within
 *     the bound derived below; frames fit sci_seis_frame_bound.
 *  3. Edges: one trace, one sample, 1x1, zeros, constants, huge values,
 *     values that overflow the transform or whose grid would overflow the
 *     decoder's (E_VALUE, never an infinity back), NaN and infinities, parameters
 *     out of range, output buffers too small.
 *  4. Damage: every single-byte change and every truncation of a frame,
 *     bad headers, and frames whose CRCs were recomputed after their
 *     packages or code table were changed (E_DATA, never a crash).
 *  5. Real data (../shared/data/seismic, skipped where absent): the F3
 *     gather in its four encodings (int16 BE and LE, IBM and IEEE float)
 *     gives the same samples and the same frames; SNR, Pearson r and
 *     compression ratio at bits 8..16 and levels 1..4 against regression
 *     floors; the shot-gather and small files round trip.
 *
 *   test-codec-seismic [--seed S] [--data DIR]
 *
 * DIR (else $SCI_TEST_DATA_DIR, else ../shared/data; meson passes it)
 * holds seismic/f3.sgy and the other SEG-Y files, read by tests/segy/segyread.c.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "codec/seismic/table.h"
#include "codec/seismic/table_core.h"

#include "codec/common/crc32.h"
#include "codec/j2k/dwt.h"
#include "codec/seismic/huffman.h"
#include "codec/seismic/seismic.h"
#include "codec/seismic/seismic_core.h"
#include "tests/segy/segyread.h"
#include "tests/common/testutil.h"

#define U_ROUND 0x1p-24 /* float's unit roundoff */

/* ---------------------------------------------------------------------- */
/* Random numbers */

static double urand(void) {
    return (double)(rng() >> 11) * 0x1p-53; /* [0, 1) */
}

static double grand(void) {
    double a = urand(), b = urand();
    return sqrt(-2.0 * log(a + 0x1p-60)) * cos(6.283185307179586 * b);
}

static uint32_t f2u(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* ---------------------------------------------------------------------- */
/* The reference float 5/3 DWT: deliberately naive.
 *
 * A 1-D signal of n >= 2 samples is copied into a buffer extended by EXT
 * samples on each side by whole-sample symmetric extension (JPEG 2000's
 * PSE: period 2(n-1), x[-k] = x[k], x[n-1+k] = x[n-1-k]), and the two
 * lifting steps run over the extended buffer, each as the float operations
 *     s = a + b;  t = c * s;  x = x + t
 * in that order (a, b the two neighbours): forward c = -0.5 on the odd
 * samples, then c = 0.25 on the even ones; inverse (on the interleaved
 * low/high samples, extended likewise) c = -0.25 on the even samples, then
 * c = 0.5 on the odd ones.  Lifting keeps a symmetric signal symmetric, and
 * a + b = b + a in floats, so the extended samples hold exactly what a
 * mirrored neighbour would.  A signal of one sample passes unchanged.
 * Level l works on the top-left low-pass block of ceil(w / 2^l) x
 * ceil(h / 2^l) samples: every column (when it has >= 2 rows) and then
 * every row (when it has >= 2 columns), low-pass samples first (Mallat);
 * the inverse goes up the levels, rows first, then columns. */

#define EXT 4

static long pse(long k, long n) {
    long m = 2 * (n - 1);
    k %= m;
    if (k < 0)
        k += m;
    return k < n ? k : m - k;
}

static float ref_maxabs; /* the largest magnitude the reference has written */

static void ref_step(float *e, long n, long parity, float c, long from,
                     long to) {
    for (long k = from; k < to; k++) {
        if ((k % 2 + 2) % 2 != parity)
            continue;
        float s = e[EXT + k - 1] + e[EXT + k + 1];
        float t = c * s;
        e[EXT + k] = e[EXT + k] + t;
        if (k >= 0 && k < n && fabsf(e[EXT + k]) > ref_maxabs)
            ref_maxabs = fabsf(e[EXT + k]);
    }
}

/* x[0..n-1] -> low[0..ceil(n/2)-1], high[0..floor(n/2)-1]; e: n + 2 EXT */
static void ref_fwd1d(const float *x, long n, float *low, float *high,
                      float *e) {
    if (n == 1) {
        low[0] = x[0];
        return;
    }
    for (long k = -EXT; k < n + EXT; k++)
        e[EXT + k] = x[pse(k, n)];
    ref_step(e, n, 1, -0.5f, -EXT + 1, n + EXT - 1);
    ref_step(e, n, 0, 0.25f, 0, n);
    for (long i = 0; 2 * i < n; i++)
        low[i] = e[EXT + 2 * i];
    for (long i = 0; 2 * i + 1 < n; i++)
        high[i] = e[EXT + 2 * i + 1];
}

static void ref_inv1d(const float *low, const float *high, long n, float *x,
                      float *e) {
    if (n == 1) {
        x[0] = low[0];
        return;
    }
    float *y = e + EXT;
    for (long i = 0; 2 * i < n; i++)
        y[2 * i] = low[i];
    for (long i = 0; 2 * i + 1 < n; i++)
        y[2 * i + 1] = high[i];
    for (long k = -EXT; k < 0; k++)
        y[k] = y[pse(k, n)];
    for (long k = n; k < n + EXT; k++)
        y[k] = y[pse(k, n)];
    ref_step(e, n, 0, -0.25f, -EXT + 1, n + EXT - 1);
    ref_step(e, n, 1, 0.5f, 0, n);
    for (long k = 0; k < n; k++)
        x[k] = y[k];
}

static uint32_t ref_low_len(uint32_t n, unsigned l) {
    for (unsigned k = 0; k < l; k++)
        n = (n + 1) / 2;
    return n;
}

/* Levels that change anything: until the low-pass block is 1 x 1. */
static unsigned used_levels(uint32_t w, uint32_t h, unsigned levels) {
    unsigned l = 0;
    while (l < levels && (ref_low_len(w, l) > 1 || ref_low_len(h, l) > 1))
        l++;
    return l;
}

/* One pass of 1-D transforms over the lw x lh block: vertical (every
 * column) or horizontal (every row), forward or inverse. */
static void ref_pass(float *p, size_t stride, uint32_t lw, uint32_t lh,
                     int vertical, int inverse) {
    long n = vertical ? lh : lw, lines = vertical ? lw : lh;
    long nl = (n + 1) / 2;
    float *x = malloc(n * sizeof *x), *o = malloc(n * sizeof *o);
    float *e = malloc((n + 2 * EXT) * sizeof *e);
    for (long j = 0; j < lines; j++) {
        for (long i = 0; i < n; i++)
            x[i] = vertical ? p[i * stride + j] : p[j * stride + i];
        if (inverse)
            ref_inv1d(x, x + nl, n, o, e);
        else
            ref_fwd1d(x, n, o, o + nl, e);
        for (long i = 0; i < n; i++) {
            if (vertical)
                p[i * stride + j] = o[i];
            else
                p[j * stride + i] = o[i];
        }
    }
    free(x);
    free(o);
    free(e);
}

static void ref_forward(float *p, uint32_t w, uint32_t h, size_t stride,
                        unsigned levels) {
    for (unsigned l = 0; l < levels; l++) {
        uint32_t lw = ref_low_len(w, l), lh = ref_low_len(h, l);
        if (lh >= 2)
            ref_pass(p, stride, lw, lh, 1, 0);
        if (lw >= 2)
            ref_pass(p, stride, lw, lh, 0, 0);
    }
}

static void ref_inverse(float *p, uint32_t w, uint32_t h, size_t stride,
                        unsigned levels) {
    for (unsigned l = levels; l-- > 0;) {
        uint32_t lw = ref_low_len(w, l), lh = ref_low_len(h, l);
        if (lw >= 2)
            ref_pass(p, stride, lw, lh, 0, 1);
        if (lh >= 2)
            ref_pass(p, stride, lw, lh, 1, 1);
    }
}

/* The forward transform of x (traces x samples, packed) into a new
 * buffer, and the largest magnitude of every value it passed through. */
static float *ref_coefficients(const float *x, uint32_t traces,
                               uint32_t samples, unsigned levels,
                               double *maxabs) {
    size_t n = (size_t)traces * samples;
    float *c = malloc(n * sizeof *c);
    memcpy(c, x, n * sizeof *c);
    ref_maxabs = 0;
    for (size_t i = 0; i < n; i++)
        ref_maxabs = fabsf(x[i]) > ref_maxabs ? fabsf(x[i]) : ref_maxabs;
    ref_forward(c, samples, traces, samples, levels);
    *maxabs = ref_maxabs;
    return c;
}

/* ---------------------------------------------------------------------- */
/* Error bounds.
 *
 * L-infinity gain of the inverse.  One 1-D inverse level makes each output
 * sample from the low-pass (s) and high-pass (d) coefficients as
 *     even: x = s_k - (d_(k-1) + d_k) / 4
 *     odd:  x = (s_k + s_(k+1)) / 2 + 3/4 d_k - (d_(k-1) + d_(k+1)) / 8
 * (at the ends the mirrored neighbours merge, which only lowers the sums),
 * so the sums of |weights| are 1 on s and at most 1 on d: an output error
 * is at most e_s + e_d.  A 2-D level: rows of LL|HL give at most
 * e_LL + E, rows of LH|HH at most 2E, then the columns at most
 * e_LL + 3E, where E bounds the error of every detail coefficient.  From
 * the top LL band (error E) down L levels: (1 + 3L) E.
 *
 * Quantization.  q = floor(c / step + 1/2) + z (zero grid) or
 * floor((c - min) / step + 1/2) in double leaves |c - level(q)| <= step / 2
 * (the clamps at 0 and 2^bits - 1 cost at most (max - min) 2^-24 < step / 2,
 * since step is max - min over at most 65535 rounded to float and the
 * lowest level is at most min), and the level's product or fmaf rounds
 * once more: E_q = step / 2 (1 + 2^-20) + 2u max(|min|, |max|), u = 2^-24.
 *
 * Rounding of the transforms.  Every lifting step rounds its result once
 * (at most u times the largest magnitude M any intermediate value takes,
 * which the reference records); an inverse step fed the forward step's
 * output gives back its input within 2uM; a level has 4 steps whose
 * errors pass through at most 2 x 2 more steps of the same level (gain <=
 * 4) and then the levels below (gain <= 1 + 3L): at most 32 u M L (1 + 3L)
 * over L levels.  The same term is the slack of the round-trip bound. */
static double rounding_slack(unsigned L, double M) {
    return 32.0 * U_ROUND * M * L * (1.0 + 3.0 * L);
}

static double codec_bound(unsigned L, float lo, float hi, float step,
                          double M) {
    double mm = fabs((double)lo) > fabs((double)hi) ? fabs((double)lo)
                                                    : fabs((double)hi);
    double eq = (double)step / 2 * (1 + 0x1p-20) + 2 * U_ROUND * mm;
    double gain = 1.0 + 3.0 * L;
    return gain * eq + rounding_slack(L, M + gain * eq);
}

/* ---------------------------------------------------------------------- */
/* 1. The transform against the reference */

static void random_plane(float *p, size_t n) {
    unsigned kind = (unsigned)(rng() % 4);
    double scale = pow(10.0, (double)(rng() % 10) - 3.0);
    for (size_t i = 0; i < n; i++) {
        switch (kind) {
        case 0: p[i] = (float)((2 * urand() - 1) * scale); break;
        case 1: p[i] = (float)(grand() * scale); break;
        case 2: p[i] = (float)((int)(rng() % 65536) - 32768); break;
        default: /* wild magnitudes */
            p[i] = (float)(grand() * pow(2.0, (double)(rng() % 40) - 20));
            break;
        }
    }
}

static void test_dwt(void) {
    static const uint32_t sizes[][2] = { /* traces (h) x samples (w) */
        {1, 1},   {1, 2},   {1, 3},    {1, 7},    {1, 64},  {1, 1025},
        {2, 1},   {3, 1},   {7, 1},    {64, 1},   {1025, 1}, {2, 2},
        {3, 5},   {5, 3},   {17, 33},  {33, 17},  {96, 3584}, {1000, 3},
        {3, 1000}, {2, 9}, {9, 2}};
    static const unsigned levels_list[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
                                           13, 32};
    unsigned cases = 0, fwd_bad = 0, inv_bad = 0, pad_bad = 0, rt_bad = 0;
    double worst = 0; /* round-trip error / (u M L (1 + 3L)) */
    char what[300];
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        uint32_t h = sizes[s][0], w = sizes[s][1];
        for (size_t li = 0; li < sizeof levels_list / sizeof *levels_list;
             li++) {
            unsigned levels = levels_list[li];
            size_t stride = w + (rng() % 3 == 0 ? 5 : 0);
            size_t total = stride * h;
            float *x = malloc(total * sizeof *x);
            float *a = malloc(total * sizeof *a);
            float *b = malloc(total * sizeof *b);
            random_plane(x, total);
            memcpy(a, x, total * sizeof *a);
            memcpy(b, x, total * sizeof *b);
            int rc = sci_dwt53f_forward(test_pool(), a, w, h, stride, levels);
            ref_maxabs = 0;
            for (size_t y = 0; y < h; y++)
                for (size_t i = 0; i < w; i++)
                    if (fabsf(x[y * stride + i]) > ref_maxabs)
                        ref_maxabs = fabsf(x[y * stride + i]);
            ref_forward(b, w, h, stride, levels);
            double M = ref_maxabs;
            cases++;
            int fbad = rc != 0, pbad = 0;
            for (size_t y = 0; y < h; y++) {
                if (memcmp(a + y * stride, b + y * stride, w * sizeof *a))
                    fbad = 1;
                for (size_t i = w; i < stride; i++)
                    if (f2u(a[y * stride + i]) != f2u(x[y * stride + i]))
                        pbad = 1;
            }
            if (fbad && fwd_bad++ < 3) {
                snprintf(what, sizeof what,
                         "dwt53f forward %ux%u (w x h) stride %zu levels %u "
                         "differs from the reference", w, h, stride, levels);
                check(0, what);
            }
            /* inverse of the same coefficients, both ways */
            rc = sci_dwt53f_inverse(test_pool(), a, w, h, stride, levels);
            ref_inverse(b, w, h, stride, levels);
            int ibad = rc != 0;
            for (size_t y = 0; y < h; y++) {
                if (memcmp(a + y * stride, b + y * stride, w * sizeof *a))
                    ibad = 1;
                for (size_t i = w; i < stride; i++)
                    if (f2u(a[y * stride + i]) != f2u(x[y * stride + i]))
                        pbad = 1;
            }
            if (ibad && inv_bad++ < 3) {
                snprintf(what, sizeof what,
                         "dwt53f inverse %ux%u (w x h) stride %zu levels %u "
                         "differs from the reference", w, h, stride, levels);
                check(0, what);
            }
            pad_bad += pbad;
            unsigned L = used_levels(w, h, levels);
            double err = 0;
            for (size_t y = 0; y < h; y++)
                for (size_t i = 0; i < w; i++) {
                    double d = fabs((double)a[y * stride + i] -
                                    (double)x[y * stride + i]);
                    err = d > err ? d : err;
                }
            double tol = rounding_slack(L, M);
            if (L == 0 ? err != 0 : err > tol) {
                if (rt_bad++ < 3) {
                    snprintf(what, sizeof what,
                             "dwt53f round trip %ux%u levels %u: error %g > "
                             "%g", w, h, levels, err, tol);
                    check(0, what);
                }
            }
            if (L && M > 0) {
                double r = err / (U_ROUND * M * L * (1.0 + 3.0 * L));
                worst = r > worst ? r : worst;
            }
            free(x);
            free(a);
            free(b);
        }
    }
    snprintf(what, sizeof what,
             "dwt53f forward and inverse bit-exact with the naive reference "
             "(%u planes of %zu sizes, levels 0..10, 13, 32, strides with "
             "padding)", cases, sizeof sizes / sizeof *sizes);
    check(fwd_bad == 0 && inv_bad == 0, what);
    check(pad_bad == 0, "dwt53f leaves the samples past w in a row alone");
    snprintf(what, sizeof what,
             "dwt53f inverse(forward(x)) within 32 u M L (1 + 3L) of x "
             "(worst seen: %.3f u M L (1 + 3L)); exact at 0 levels", worst);
    check(rt_bad == 0, what);
    printf("dwt53f round trip: worst error %.3f x u M L (1 + 3L) "
           "(tolerance 32)\n", worst);
}

/* ---------------------------------------------------------------------- */
/* 2. Round trips against the formula of seismic.h */

typedef struct {
    unsigned cases, enc_bad, hdr_bad, q_bad, out_bad, partial_bad, err_bad,
        bound_bad;
    double worst0, worst; /* error / bound at 0 levels, and at >= 1 */
} rt_stats;

/* The grid of docs/seismic-format.md, computed independently: zero is a
 * level when the coefficients straddle it (step = range / (2^bits - 2),
 * zero index ceil(-min / step)), else the levels start at min (step =
 * range / (2^bits - 1)); a step below FLT_MIN becomes FLT_MIN. */
typedef struct {
    int zero_grid;
    float step, lo;
    int32_t z;
} test_grid;

static test_grid make_grid(float lo, float hi, unsigned bits) {
    test_grid g = {0, 0.0f, lo, 0};
    double range = (double)hi - (double)lo;
    if (range == 0)
        return g;
    g.zero_grid = lo <= 0 && hi >= 0;
    g.step = (float)(range / (double)((1u << bits) - (g.zero_grid ? 2 : 1)));
    if (g.step < FLT_MIN)
        g.step = FLT_MIN;
    if (g.zero_grid)
        g.z = (int32_t)ceil(-(double)lo / (double)g.step);
    return g;
}

/* The index of seismic.h, computed independently. */
static uint32_t test_quantize(float c, const test_grid *g, uint32_t qmax) {
    if (g->step == 0.0f)
        return 0;
    double t = g->zero_grid
                   ? floor((double)c / (double)g->step + 0.5) + g->z
                   : floor(((double)c - (double)g->lo) / (double)g->step + 0.5);
    if (t < 0)
        return 0;
    return t > qmax ? qmax : (uint32_t)t;
}

static float test_dequantize(uint32_t q, const test_grid *g) {
    return g->zero_grid ? (float)((int32_t)q - g->z) * g->step
                        : fmaf((float)q, g->step, g->lo);
}

static void report_first(unsigned *counter, const char *fmt, uint32_t traces,
                         uint32_t samples, unsigned bits, unsigned levels,
                         const char *extra) {
    if ((*counter)++ < 3) {
        char what[300];
        snprintf(what, sizeof what, fmt, traces, samples, bits, levels,
                 extra ? extra : "");
        check(0, what);
    }
}

/* Encodes x at (bits, levels) and checks everything against coef (the
 * reference transform of x at `levels`, M its largest intermediate).
 * The decoded gather into y when not NULL; returns the frame length (0 on
 * failure). */
static size_t codec_case(const float *x, uint32_t traces, uint32_t samples,
                         unsigned bits, unsigned levels, const float *coef,
                         double M, rt_stats *st, float *y_out) {
    const size_t n = (size_t)traces * samples;
    sci_seis_params p = {traces, samples, 2000, bits, levels, 0};
    uint8_t meta[16];
    size_t meta_len = (bits * 7 + levels) % 17;
    for (size_t i = 0; i < meta_len; i++)
        meta[i] = (uint8_t)(i * 37 + bits);
    size_t bound = sci_seis_frame_bound(&p, meta_len);
    uint8_t *buf = malloc(bound);
    size_t len = 0, bad = 12345;
    int rc = sci_seis_encode(test_pool(), &p, x, meta, meta_len, buf, bound, &len, &bad);
    st->cases++;
    if (rc != 0) {
        report_first(&st->enc_bad, "encode %ux%u bits %u levels %u: %s",
                     traces, samples, bits, levels, sci_seis_error_string(rc));
        free(buf);
        return 0;
    }
    if (len > bound)
        report_first(&st->bound_bad,
                     "%ux%u bits %u levels %u: frame over the bound%s",
                     traces, samples, bits, levels, NULL);

    sci_seis_info info;
    rc = sci_seis_parse(buf, len, &info);
    /* the independent quantization */
    const uint32_t qmax = (1u << bits) - 1;
    float lo = coef[0], hi = coef[0];
    for (size_t i = 1; i < n; i++) {
        lo = coef[i] < lo ? coef[i] : lo;
        hi = coef[i] > hi ? coef[i] : hi;
    }
    const test_grid tg = make_grid(lo + 0.0f, hi + 0.0f, bits);
    const float step = tg.step;
    if (rc != 0 || info.p.traces != traces || info.p.samples != samples ||
        info.p.bits != bits || info.p.levels != levels ||
        info.p.sample_interval_us != 2000 || info.frame_len != len ||
        info.meta_len != meta_len || info.pkg_off % 8 ||
        (meta_len && memcmp(buf + info.meta_off, meta, meta_len)) ||
        info.grid.zero_anchored != tg.zero_grid ||
        f2u(info.grid.step) != f2u(tg.step) ||
        (tg.zero_grid ? info.grid.zero != tg.z
                      : f2u(info.grid.min) != f2u(tg.lo)) ||
        sci_seis_frame_length(buf) != (long long)len) {
        report_first(&st->hdr_bad,
                     "%ux%u bits %u levels %u: header, metadata or grid "
                     "not as computed%s", traces, samples, bits, levels, NULL);
        free(buf);
        return 0;
    }
    uint16_t *qref = malloc(n * sizeof *qref), *q = malloc(n * sizeof *q);
    uint16_t *q2 = malloc(n * sizeof *q2);
    float *y = malloc(n * sizeof *y), *y2 = malloc(n * sizeof *y2);
    float *deq = malloc(n * sizeof *deq);
    for (size_t i = 0; i < n; i++) {
        qref[i] = (uint16_t)test_quantize(coef[i], &tg, qmax);
        deq[i] = test_dequantize(qref[i], &tg);
    }
    sci_dwt53f_inverse(test_pool(), deq, samples, traces, samples, levels);
    rc = sci_seis_decode(test_pool(), buf, &info, q, y);
    if (rc != 0 || memcmp(q, qref, n * sizeof *q)) {
        report_first(&st->q_bad,
                     "%ux%u bits %u levels %u: decoded indices differ from "
                     "the formula's%s", traces, samples, bits, levels, NULL);
    } else if (memcmp(y, deq, n * sizeof *y)) {
        report_first(&st->out_bad,
                     "%ux%u bits %u levels %u: decoded floats differ from "
                     "the grid's levels + sci_dwt53f_inverse%s", traces,
                     samples, bits, levels, NULL);
    } else {
        /* indices alone and floats alone: the same */
        int r1 = sci_seis_decode(test_pool(), buf, &info, q2, NULL);
        int r2 = sci_seis_decode(test_pool(), buf, &info, NULL, y2);
        if (r1 || r2 || memcmp(q2, q, n * sizeof *q) ||
            memcmp(y2, y, n * sizeof *y))
            report_first(&st->partial_bad,
                         "%ux%u bits %u levels %u: decoding only q or only "
                         "the gather differs%s", traces, samples, bits, levels,
                         NULL);
        unsigned L = used_levels(samples, traces, levels);
        double b = codec_bound(L, lo, hi, step, M), err = 0;
        for (size_t i = 0; i < n; i++) {
            double d = fabs((double)y[i] - (double)x[i]);
            err = d > err ? d : err;
        }
        if (!(err <= b)) {
            char extra[80];
            snprintf(extra, sizeof extra, " (%g > %g)", err, b);
            report_first(&st->err_bad,
                         "%ux%u bits %u levels %u: error over the bound%s",
                         traces, samples, bits, levels, extra);
        }
        double *w = L ? &st->worst : &st->worst0;
        if (b > 0 && err / b > *w)
            *w = err / b;
        if (y_out)
            memcpy(y_out, y, n * sizeof *y);
    }
    free(qref);
    free(q);
    free(q2);
    free(y);
    free(y2);
    free(deq);
    free(buf);
    return len;
}

/* A gather of noise (kind 0) or a smooth one (kind 1): a few dipping
 * events of a Ricker-like wavelet and slow sinusoids. */
static void synth_gather(float *g, uint32_t traces, uint32_t samples,
                         int kind) {
    size_t n = (size_t)traces * samples;
    double scale = pow(10.0, (double)(rng() % 9) - 3.0);
    if (kind == 0) {
        for (size_t i = 0; i < n; i++)
            g[i] = (float)((2 * urand() - 1) * scale);
        return;
    }
    double f1 = 0.5 + 3 * urand(), f2 = 0.5 + 3 * urand(), ph = 6 * urand();
    double t0[3], dip[3], amp[3];
    for (int k = 0; k < 3; k++) {
        t0[k] = urand() * samples;
        dip[k] = (urand() - 0.5) * 2;
        amp[k] = grand();
    }
    for (uint32_t t = 0; t < traces; t++)
        for (uint32_t s = 0; s < samples; s++) {
            double v = 0.3 * sin(6.283 * f1 * s / samples + ph) *
                       cos(6.283 * f2 * t / traces);
            for (int k = 0; k < 3; k++) {
                double a = (s - t0[k] - dip[k] * t) / 6.0;
                v += amp[k] * (1 - 2 * a * a) * exp(-a * a);
            }
            g[(size_t)t * samples + s] = (float)(v * scale);
        }
}

static void rt_summary(const rt_stats *st, const char *name) {
    char what[300];
    printf("%s: %u frames, worst error / bound %.3f at 0 levels, %.3f at 1..8"
           "\n", name, st->cases, st->worst0, st->worst);
    snprintf(what, sizeof what, "%s: %u frames encode and parse (header, "
             "metadata, min and step as computed here)", name, st->cases);
    check(st->enc_bad == 0 && st->hdr_bad == 0, what);
    snprintf(what, sizeof what, "%s: decoded indices equal the formula's, "
             "decoded floats equal fmaf(q, step, min) + inverse DWT, bit for "
             "bit", name);
    check(st->q_bad == 0 && st->out_bad == 0 && st->partial_bad == 0, what);
    snprintf(what, sizeof what, "%s: error within (1 + 3L) E_q + rounding "
             "(worst %.3f / %.3f of the bound at 0 / >= 1 levels)", name,
             st->worst0, st->worst);
    check(st->err_bad == 0, what);
    snprintf(what, sizeof what, "%s: frames within sci_seis_frame_bound", name);
    check(st->bound_bad == 0, what);
}

static void test_roundtrips(void) {
    static const uint32_t sizes[][2] = {{1, 1},   {1, 7},     {7, 1},
                                        {2, 2},   {13, 17},   {300, 75},
                                        {96, 3584}};
    rt_stats st = {0};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        uint32_t traces = sizes[s][0], samples = sizes[s][1];
        size_t n = (size_t)traces * samples;
        for (int kind = 0; kind < 2; kind++) {
            float *x = malloc(n * sizeof *x);
            synth_gather(x, traces, samples, kind);
            for (unsigned levels = 0; levels <= SCI_SEIS_MAX_LEVELS;
                 levels++) {
                double M;
                float *coef =
                    ref_coefficients(x, traces, samples, levels, &M);
                for (unsigned bits = SCI_SEIS_MIN_BITS;
                     bits <= SCI_SEIS_MAX_BITS; bits++)
                    codec_case(x, traces, samples, bits, levels, coef, M, &st,
                               NULL);
                free(coef);
            }
            free(x);
        }
    }
    rt_summary(&st, "synthetic gathers");
}

/* ---------------------------------------------------------------------- */
/* 3. Edges */

/* Encodes and decodes; 0 or the first error.  y may be NULL. */
static int encode_decode(const float *x, const sci_seis_params *p, float *y,
                         size_t *len_out, size_t *bad) {
    size_t bound = sci_seis_frame_bound(p, 0), len = 0;
    uint8_t *buf = malloc(bound);
    int rc = sci_seis_encode(test_pool(), p, x, NULL, 0, buf, bound, &len, bad);
    sci_seis_info info;
    if (rc == 0)
        rc = sci_seis_parse(buf, len, &info);
    if (rc == 0 && y)
        rc = sci_seis_decode(test_pool(), buf, &info, NULL, y);
    if (len_out)
        *len_out = len;
    free(buf);
    return rc;
}

static void test_edges(void) {
    char what[300];
    rt_stats st = {0};

    /* one trace, one sample: through the full checks */
    {
        static const uint32_t shapes[][2] = {{1, 500}, {500, 1}, {1, 2},
                                             {2, 1}, {1, 65535}};
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
            uint32_t traces = shapes[s][0], samples = shapes[s][1];
            size_t n = (size_t)traces * samples;
            float *x = malloc(n * sizeof *x);
            for (int kind = 0; kind < 2; kind++) {
                synth_gather(x, traces, samples, kind);
                for (unsigned levels = 0; levels <= 8; levels += 4) {
                    double M;
                    float *c = ref_coefficients(x, traces, samples, levels, &M);
                    for (unsigned bits = 2; bits <= 16; bits += 7)
                        codec_case(x, traces, samples, bits, levels, c, M, &st,
                                   NULL);
                    free(c);
                }
            }
            free(x);
        }
        rt_summary(&st, "one trace / one sample");
    }

    /* 1x1: the value itself comes back (as a float; -0 may come back +0:
     * fmaf(0, 0, -0) is +0) */
    {
        static const float vals[] = {0.0f, -0.0f, 1.5f, -3e-20f, 1e37f,
                                     -1e37f, FLT_MAX, -FLT_MAX, 1e-45f,
                                     12345.678f};
        unsigned bad = 0, runs = 0;
        for (size_t v = 0; v < sizeof vals / sizeof *vals; v++)
            for (unsigned bits = 2; bits <= 16; bits++)
                for (unsigned levels = 0; levels <= 8; levels++) {
                    sci_seis_params p = {1, 1, 0, bits, levels, 0};
                    float y = -1;
                    runs++;
                    if (encode_decode(&vals[v], &p, &y, NULL, NULL) ||
                        !(y == vals[v]))
                        bad++;
                }
        snprintf(what, sizeof what, "1x1 gathers come back exactly (%u runs: "
                 "0, -0, tiny, huge, FLT_MAX, denormal; bits 2..16, levels "
                 "0..8)", runs);
        check(bad == 0, what);
    }

    /* zeros and constants */
    {
        static const uint32_t shapes[][2] = {{1, 1}, {3, 5}, {13, 17},
                                             {300, 75}, {96, 3584}};
        static const float consts[] = {1234.5f, -7e-3f, 3e30f, -1.0f,
                                       -2.5e-30f};
        unsigned zbad = 0, cbad = 0, runs = 0;
        double worst = 0;
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
            uint32_t traces = shapes[s][0], samples = shapes[s][1];
            size_t n = (size_t)traces * samples;
            int big = n > 100000;
            float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
            for (unsigned bits = 2; bits <= 16; bits += big ? 7 : 1)
                for (unsigned levels = 0; levels <= 8; levels += big ? 4 : 1) {
                    sci_seis_params p = {traces, samples, 0, bits, levels, 0};
                    memset(x, 0, n * sizeof *x);
                    int rc = encode_decode(x, &p, y, NULL, NULL);
                    for (size_t i = 0; i < n && !rc; i++)
                        if (f2u(y[i]) != 0)
                            rc = 1;
                    zbad += rc != 0;
                    for (size_t c = 0; c < sizeof consts / sizeof *consts;
                         c++) {
                        for (size_t i = 0; i < n; i++)
                            x[i] = consts[c];
                        rc = encode_decode(x, &p, y, NULL, NULL);
                        runs++;
                        double e = 0;
                        for (size_t i = 0; i < n && !rc; i++) {
                            double d = fabs((double)y[i] - consts[c]) /
                                       fabs((double)consts[c]);
                            e = d > e ? d : e;
                        }
                        if (rc || !(e <= 1e-6))
                            cbad++;
                        if (!rc && e > worst)
                            worst = e;
                    }
                }
            free(x);
            free(y);
        }
        check(zbad == 0, "all-zero gathers come back as exact (+0) zeros");
        snprintf(what, sizeof what, "constant gathers come back within 1e-6 "
                 "relative (%u runs, worst %.3g)", runs, worst);
        check(cbad == 0, what);
    }

    /* huge values: random +-1e35 round trips within the bound */
    {
        rt_stats hs = {0};
        static const uint32_t shapes[][2] = {{13, 17}, {300, 75}};
        for (size_t s = 0; s < 2; s++) {
            uint32_t traces = shapes[s][0], samples = shapes[s][1];
            size_t n = (size_t)traces * samples;
            float *x = malloc(n * sizeof *x);
            for (size_t i = 0; i < n; i++)
                x[i] = (float)((2 * urand() - 1) * 1e35);
            x[n / 2] = 1e35f;
            for (unsigned levels = 0; levels <= 8; levels++) {
                double M;
                float *c = ref_coefficients(x, traces, samples, levels, &M);
                for (unsigned bits = 2; bits <= 16; bits += 2)
                    codec_case(x, traces, samples, bits, levels, c, M, &hs,
                               NULL);
                free(c);
            }
            free(x);
        }
        rt_summary(&hs, "random values of magnitude up to 1e35 (larger ones: "
                          "the FLT_MAX cases below)");
    }

    /* values that overflow the transform: E_VALUE, bad_index n (seismic.c
     * reports no single sample then) */
    {
        unsigned bad = 0;
        const uint32_t traces = 13, samples = 17;
        const size_t n = (size_t)traces * samples;
        float x[13 * 17];
        for (int pattern = 0; pattern < 3; pattern++) {
            for (size_t i = 0; i < n; i++)
                x[i] = pattern == 0   ? FLT_MAX
                       : pattern == 1 ? (i % 2 ? -FLT_MAX : FLT_MAX)
                                      : (float)(i % 2) * 2e38f;
            for (unsigned levels = 1; levels <= 8; levels++) {
                sci_seis_params p = {traces, samples, 0, 8, levels, 0};
                size_t bi = 0;
                int rc = encode_decode(x, &p, NULL, NULL, &bi);
                if (rc != SCI_SEIS_E_VALUE || bi != n)
                    bad++;
            }
        }
        check(bad == 0, "FLT_MAX gathers that overflow the transform: "
                        "E_VALUE with bad_index = traces x samples");
        /* gathers near FLT_MAX: refused with E_VALUE (bad_index = traces
         * x samples) when the grid's extreme levels could overflow through
         * the inverse transform (sci_seis_grid_fits), else decoded to
         * finite values; never an infinity from finite samples */
        unsigned fbad = 0, fenc = 0;
        for (unsigned bits = 2; bits <= 16; bits++)
            for (int scale = 0; scale < 2; scale++) {
                const double top = scale ? FLT_MAX : 1e37;
                for (size_t i = 0; i < n; i++)
                    x[i] = (float)((2 * urand() - 1) * top);
                x[0] = (float)top;
                x[1] = (float)-top;
                sci_seis_params p = {traces, samples, 0, bits, 0, 0};
                float y[13 * 17];
                size_t bi = 0;
                int rc = encode_decode(x, &p, y, NULL, &bi);
                if (rc == SCI_SEIS_E_VALUE && bi == n)
                    continue;
                fenc += rc == 0;
                for (size_t i = 0; i < n && !rc; i++)
                    if (!isfinite(y[i]))
                        rc = 1;
                if (rc && fbad++ == 0)
                    printf("note: +-%g at 0 levels, %u bits: rc %d, y[0] %g "
                           "y[1] %g\n", top, bits, rc, y[0], y[1]);
            }
        /* and gathers of +-1e38 and +-1e36 at 1..8 levels */
        unsigned lbad = 0, lenc = 0;
        for (unsigned levels = 1; levels <= 8; levels++)
            for (unsigned bits = 2; bits <= 16; bits += 2)
                for (int scale = 0; scale < 2; scale++) {
                    for (size_t i = 0; i < n; i++)
                        x[i] = (float)((2 * urand() - 1) *
                                       (scale ? 1e38 : 1e36));
                    sci_seis_params p = {traces, samples, 0, bits, levels, 0};
                    float y[13 * 17];
                    size_t bi = 0;
                    int rc = encode_decode(x, &p, y, NULL, &bi);
                    if (rc == SCI_SEIS_E_VALUE && bi == n)
                        continue;
                    lenc += rc == 0;
                    for (size_t i = 0; i < n && !rc; i++)
                        if (!isfinite(y[i]))
                            rc = 1;
                    lbad += rc != 0;
                }
        check(fbad == 0 && lbad == 0 && fenc > 0 && lenc > 0,
              "gathers near FLT_MAX: E_VALUE, or finite values back (some "
              "of each kind encode)");
    }

    /* NaN and infinities at the first, a middle and the last position */
    {
        static const uint32_t shapes[][2] = {{1, 1}, {13, 17}, {96, 3584}};
        const float nan_neg = -NAN;
        const float bads[] = {NAN, nan_neg, INFINITY, -INFINITY};
        unsigned bad = 0, runs = 0;
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
            uint32_t traces = shapes[s][0], samples = shapes[s][1];
            size_t n = (size_t)traces * samples;
            float *x = malloc(n * sizeof *x);
            synth_gather(x, traces, samples, 1);
            size_t pos[] = {0, n / 2 + 3 < n ? n / 2 + 3 : n - 1, n - 1};
            for (size_t k = 0; k < 3; k++)
                for (size_t b = 0; b < 4; b++) {
                    float keep = x[pos[k]];
                    x[pos[k]] = bads[b];
                    sci_seis_params p = {traces, samples, 0, 10, 3, 0};
                    size_t bi = 777;
                    int rc = encode_decode(x, &p, NULL, NULL, &bi);
                    runs++;
                    if (rc != SCI_SEIS_E_VALUE || bi != pos[k])
                        bad++;
                    /* and a second bad value later: the first is named */
                    if (pos[k] + 1 < n) {
                        float keep2 = x[n - 1];
                        x[n - 1] = NAN;
                        bi = 777;
                        rc = encode_decode(x, &p, NULL, NULL, &bi);
                        if (rc != SCI_SEIS_E_VALUE || bi != pos[k])
                            bad++;
                        x[n - 1] = keep2;
                    }
                    x[pos[k]] = keep;
                }
            free(x);
        }
        snprintf(what, sizeof what, "NaN, -NaN, +Inf, -Inf first/middle/last "
                 "(1x1, 13x17, 96x3584): E_VALUE and the first bad index "
                 "(%u cases)", runs);
        check(bad == 0, what);
        /* NULL bad_index is allowed */
        float one = NAN;
        sci_seis_params p = {1, 1, 0, 8, 0, 0};
        uint8_t buf[256];
        size_t len;
        check(sci_seis_encode(test_pool(), &p, &one, NULL, 0, buf, sizeof buf, &len,
                              NULL) == SCI_SEIS_E_VALUE,
              "E_VALUE without a bad_index pointer");
    }

    /* parameters out of range: refused before anything is read or
     * allocated (the gather and output here are a few bytes) */
    {
        static const struct {
            uint32_t traces, samples;
            unsigned bits, levels;
            int ok;
        } ps[] = {
            {10, 10, 1, 2, 0},          {10, 10, 17, 2, 0},
            {10, 10, 0, 2, 0},          {10, 10, 255, 2, 0},
            {10, 10, 8, 9, 0},          {10, 10, 8, 100, 0},
            {0, 10, 8, 2, 0},           {10, 0, 8, 2, 0},
            {10, 65536, 8, 2, 0},       {(1u << 24) + 1, 1, 8, 2, 0},
            {1u << 24, 17, 8, 2, 0},    {1u << 20, 257, 8, 2, 0},
            {65535, 65535, 8, 2, 0},    {1u << 24, 16, 8, 2, 1},
            {1, 65535, 2, 8, 1},        {1u << 24, 1, 16, 0, 1},
            {10, 10, 2, 0, 1},          {10, 10, 16, 8, 1},
        };
        unsigned bad = 0;
        float tiny[4] = {0};
        uint8_t out[64];
        for (size_t i = 0; i < sizeof ps / sizeof *ps; i++) {
            sci_seis_params p = {ps[i].traces, ps[i].samples, 0, ps[i].bits,
                                 ps[i].levels, 0};
            const char *why = sci_seis_params_check(&p);
            if ((why == NULL) != ps[i].ok) {
                bad++;
                printf("params %ux%u bits %u levels %u: check says %s\n",
                       p.traces, p.samples, p.bits, p.levels,
                       why ? why : "valid");
            }
            if (!ps[i].ok) {
                size_t len = 99;
                if (sci_seis_encode(test_pool(), &p, tiny, NULL, 0, out, sizeof out, &len,
                                    NULL) != SCI_SEIS_E_ARG || len != 99)
                    bad++;
            }
        }
        check(bad == 0, "parameters out of range (bits 0/1/17/255, levels "
                        "9/100, traces 0 or > 2^24, samples 0 or 65536, "
                        "traces x samples > 2^28) refused with E_ARG without "
                        "reading the gather; the extremes accepted");
        check(sci_seis_params_check(NULL) != NULL, "NULL parameters refused");
        /* other arguments */
        sci_seis_params p = {2, 2, 0, 8, 1, 0};
        size_t len;
        uint8_t m = 1;
        int e1 = sci_seis_encode(test_pool(), &p, NULL, NULL, 0, out, sizeof out, &len, NULL);
        int e2 = sci_seis_encode(test_pool(), &p, tiny, NULL, 0, NULL, sizeof out, &len, NULL);
        int e3 = sci_seis_encode(test_pool(), &p, tiny, NULL, 0, out, sizeof out, NULL, NULL);
        int e4 = sci_seis_encode(test_pool(), &p, tiny, NULL, 3, out, sizeof out, &len, NULL);
        int e5 = sci_seis_encode(test_pool(), &p, tiny, &m, (size_t)SCI_SEIS_MAX_META + 1,
                                 out, sizeof out, &len, NULL);
        int e6 = sci_seis_encode(test_pool(), NULL, tiny, NULL, 0, out, sizeof out, &len,
                                 NULL);
        check(e1 == SCI_SEIS_E_ARG && e2 == SCI_SEIS_E_ARG &&
                  e3 == SCI_SEIS_E_ARG && e4 == SCI_SEIS_E_ARG &&
                  e5 == SCI_SEIS_E_ARG && e6 == SCI_SEIS_E_ARG,
              "NULL gather, output, length or parameters, metadata NULL with "
              "a length, metadata over SCI_SEIS_MAX_META: E_ARG");
    }

    /* output too small: E_ROOM at every capacity below the frame, nothing
     * written past the capacity; exactly the frame's length suffices */
    {
        static const uint32_t shapes[][2] = {{1, 1}, {13, 17}, {40, 75}};
        unsigned bad = 0, over = 0, runs = 0;
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
            uint32_t traces = shapes[s][0], samples = shapes[s][1];
            size_t n = (size_t)traces * samples;
            float *x = malloc(n * sizeof *x);
            synth_gather(x, traces, samples, 1);
            for (unsigned bits = 4; bits <= 16; bits += 6) {
                sci_seis_params p = {traces, samples, 0, bits, 2, 0};
                uint8_t meta[5] = {1, 2, 3, 4, 5};
                size_t bound = sci_seis_frame_bound(&p, 5), len = 0;
                uint8_t *ref = malloc(bound);
                if (sci_seis_encode(test_pool(), &p, x, meta, 5, ref, bound, &len, NULL)) {
                    bad++;
                    free(ref);
                    continue;
                }
                uint8_t *buf = malloc(len + 64);
                for (size_t cap = 0; cap <= len; cap++) {
                    memset(buf, 0xA5, len + 64);
                    size_t got = 0;
                    int rc = sci_seis_encode(test_pool(), &p, x, meta, 5, buf, cap, &got,
                                             NULL);
                    runs++;
                    if (cap < len ? rc != SCI_SEIS_E_ROOM
                                  : rc != 0 || got != len ||
                                        memcmp(buf, ref, len))
                        bad++;
                    for (size_t i = cap; i < len + 64; i++)
                        if (buf[i] != 0xA5) {
                            over++;
                            break;
                        }
                }
                free(buf);
                free(ref);
            }
            free(x);
        }
        snprintf(what, sizeof what, "every capacity below the frame's length "
                 "gives E_ROOM, the exact length the same frame (%u "
                 "encodes)", runs);
        check(bad == 0, what);
        check(over == 0, "the encoder writes nothing past the capacity");
    }
}

/* ---------------------------------------------------------------------- */
/* 4. Damage */

static void put_le32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static uint64_t get_le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void fix_header_crc(uint8_t *f) {
    put_le32(f + 44, sci_crc32(0, f, 44));
}

static void fix_crc(uint8_t *f, size_t len) {
    put_le32(f + len - 4, sci_crc32(0, f, len - 4));
}

/* f (parsed into info) with its code table replaced by tab[0..tlen-1] and
 * the header's longest code length set to max_len: both CRCs recomputed.
 * The encoder's layout: header, metadata, table, zeros to a multiple of 8,
 * packages, CRC. */
static uint8_t *rebuild(const uint8_t *f, const sci_seis_info *info,
                        const uint8_t *tab, size_t tlen, unsigned max_len,
                        size_t *out_len) {
    size_t pkg_off = (info->table_off + tlen + 7) & ~(size_t)7;
    size_t tail = info->frame_len - 4 - info->pkg_off; /* packages, firsts */
    size_t total = pkg_off + tail + 4;
    uint8_t *o = calloc(total, 1);
    memcpy(o, f, info->table_off);
    o[7] = (uint8_t)max_len;
    put_le32(o + 28, (uint32_t)tlen);
    fix_header_crc(o);
    memcpy(o + info->table_off, tab, tlen);
    memcpy(o + pkg_off, f + info->pkg_off, tail);
    fix_crc(o, total);
    *out_len = total;
    return o;
}

/* The code bits of code package pk: its codes (their lengths from
 * lens, of nsym symbols) and, from version 6, the zero runs' bits past
 * their codes (nval: the indices). */
static unsigned package_bits(const uint8_t *lens, uint32_t nsym,
                             uint32_t nval, unsigned version, uint64_t pk) {
    sci_huff_code code = {0};
    unsigned pos = SCI_HUFF_PACKAGE_BITS;
    const uint64_t bits = pk & ((1ull << SCI_HUFF_PACKAGE_BITS) - 1);
    if (sci_huff_build_decoder(lens, nsym, &code))
        return 0;
    for (unsigned j = 0; j < (unsigned)(pk >> SCI_HUFF_PACKAGE_BITS); j++) {
        uint32_t sym;
        if (!sci_huff_next(code.lookup, code.first_code, code.first_index,
                           code.sorted, code.max_len, bits, &pos, &sym))
            break;
        if (version >= 6 && sym >= nval)
            pos -= sym - nval + 1;
    }
    sci_huff_free(&code);
    return SCI_HUFF_PACKAGE_BITS - pos;
}

/* Parses and decodes; the first error. */
static int parse_decode(const uint8_t *f, size_t len, uint16_t *q, float *y) {
    sci_seis_info info;
    int rc = sci_seis_parse(f, len, &info);
    return rc ? rc : sci_seis_decode(test_pool(), f, &info, q, y);
}

/* A length table as a frame of `version` stores it: zstd (3), or the
 * segmented bit code of codec/seismic/table.h (4, 5). */
static uint8_t *tpack(unsigned version, const uint8_t *len, size_t n,
                      size_t *zlen) {
    size_t cap = version >= 4 ? sci_seis_table_bound((uint32_t)n, version)
                              : ZSTD_compressBound(n);
    uint8_t *z = malloc(cap);
    *zlen = version >= 4
                ? sci_seis_table_write(len, (uint32_t)n, version, z, cap)
                : ZSTD_compress(z, cap, len, n, 3);
    return z;
}

/* sci_seis_encode writing frame version `version`. */
static int encode_version(const sci_seis_params *p, const float *x,
                          const uint8_t *meta, size_t ml, unsigned version,
                          uint8_t *f, size_t cap, size_t *len) {
    const size_t n = (size_t)p->traces * p->samples;
    uint16_t *q = malloc(n * sizeof *q);
    sci_seis_grid g;
    int rc = q ? sci_seis_quantize(test_pool(), p, x, q, &g, NULL)
               : SCI_SEIS_E_NOMEM;
    if (!rc)
        rc = sci_seis_encode_indices_version(p, q, &g, meta, ml, version, f,
                                             cap, len);
    free(q);
    return rc;
}


/* Run packages (versions 3 and 4): long runs of one index go into runs
 * (fewer packages than Huffman could hold), decode to the indices the
 * quantizer gave, and a run longer than SCI_SEIS_RUN_MAX is split; a
 * version 2 frame (a version 3 frame without runs) still decodes, and a
 * run in a version 2 frame is refused. */
static void test_runs(void) {
    char what[200];
    const uint32_t traces = 37, samples = 301;
    const size_t n = (size_t)traces * samples;
    float *x = calloc(n, sizeof *x), *y = malloc(n * sizeof *y);
    uint16_t *q = malloc(n * 2), *qd = malloc(n * 2);
    /* silence with arrivals on the first traces: the detail bands are
     * mostly zero, the last traces all zero */
    for (uint32_t t = 0; t < 4; t++)
        for (uint32_t k = 0; k < 12; k++)
            x[(size_t)t * samples + 100 + t + k] = (float)(1000.0 * (k % 3) - 700.0);
    x[n - 1] = 3.0f;
    for (unsigned k = 0; k < 6; k++) {
        const unsigned levels = k / 3 * 3, version = 3 + k % 3;
        sci_seis_params p = {traces, samples, 2000, 8, levels, 0};
        size_t bound = sci_seis_frame_bound(&p, 0), len = 0;
        uint8_t *f = malloc(bound);
        int rc = encode_version(&p, x, NULL, 0, version, f, bound, &len);
        sci_seis_info info;
        snprintf(what, sizeof what, "runs: a version %u frame", version);
        check(rc == 0 && sci_seis_parse(f, len, &info) == 0 &&
              info.version == version, what);
        if (rc) {
            free(f);
            continue;
        }
        unsigned runs = 0;
        size_t longest = 0;
        for (uint32_t i = 0; i < info.packages; i++) {
            uint64_t pk = 0;
            for (int b = 7; b >= 0; b--)
                pk = pk << 8 | f[info.pkg_off + 8 * (size_t)i + b];
            if (sci_seis_package_is_run(pk, 3)) {
                runs++;
                if (sci_seis_package_count(pk, 3) > longest)
                    longest = sci_seis_package_count(pk, 3);
            }
        }
        snprintf(what, sizeof what, "runs, version %u, levels %u: %u run "
                 "packages (longest %zu), %u packages for %zu values "
                 "(Huffman alone: >= %zu)", version, levels, runs, longest,
                 info.packages, n, (n + 57) / 58);
        check(runs > 0 && (levels || longest == SCI_SEIS_RUN_MAX) &&
              info.packages < (n + 57) / 58, what);
        /* the indices back as the quantizer gave them */
        sci_seis_grid g;
        rc = sci_seis_quantize(test_pool(), &p, x, q, &g, NULL) ||
             parse_decode(f, len, qd, y);
        check(!rc && !memcmp(q, qd, n * 2), "runs: the indices decode exactly");
        if (version != 3) {
            free(f);
            continue;
        }
        /* relabelled as version 2 (both CRCs fixed) its runs are refused */
        f[4] = 2;
        fix_header_crc(f);
        fix_crc(f, len);
        /* (too few packages for version 2, or a count of 0) */
        rc = parse_decode(f, len, qd, y);
        check(rc == SCI_SEIS_E_HEADER || rc == SCI_SEIS_E_DATA,
              "runs: a run package in a version 2 frame is refused");
        free(f);
    }
    /* a gather without runs codes as version 2 did: relabelled, it decodes
     * to the same samples */
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(urand() * 2000.0 - 1000.0);
    sci_seis_params p = {traces, samples, 2000, 12, 2, 0};
    size_t bound = sci_seis_frame_bound(&p, 0), len = 0;
    uint8_t *f = malloc(bound);
    float *y2 = malloc(n * sizeof *y2);
    int rc = encode_version(&p, x, NULL, 0, 3, f, bound, &len) ||
             parse_decode(f, len, qd, y);
    f[4] = 2;
    fix_header_crc(f);
    fix_crc(f, len);
    rc = rc || parse_decode(f, len, qd, y2);
    check(!rc && !memcmp(y, y2, n * sizeof *y),
          "runs: a frame without runs decodes as version 2 alike");
    for (unsigned v = 4; v <= 5; v++) {
        rc = encode_version(&p, x, NULL, 0, v, f, bound, &len) ||
             parse_decode(f, len, qd, y2);
        snprintf(what, sizeof what, "the same gather as version %u (its own "
                 "code table) decodes alike", v);
        check(!rc && !memcmp(y, y2, n * sizeof *y), what);
    }
    free(f);
    free(y2);
    free(x);
    free(y);
    free(q);
    free(qd);
}

static void test_damage(unsigned version) {
    char what[300];
    const uint32_t traces = 13, samples = 17;
    float x[13 * 17], y[13 * 17];
    uint16_t q[13 * 17];
    synth_gather(x, traces, samples, 1);
    /* a frame with metadata and some zero padding before the packages */
    sci_seis_params p = {traces, samples, 4000, 6, 2, 0};
    uint8_t meta[8] = {9, 8, 7, 6, 5, 4, 3, 2};
    size_t bound = sci_seis_frame_bound(&p, sizeof meta), len = 0;
    uint8_t *f = malloc(bound);
    sci_seis_info info;
    size_t ml = 0;
    for (ml = 0; ml < 8; ml++) {
        int rc = encode_version(&p, x, meta, ml, version, f, bound, &len);
        if (rc == 0 && sci_seis_parse(f, len, &info) == 0 &&
            info.version == version &&
            info.pkg_off > info.table_off + info.table_len)
            break;
    }
    snprintf(what, sizeof what, "version %u: a frame with padding before its "
             "packages (some metadata length of 0..7)", version);
    check(ml < 8, what);
    if (ml == 8) {
        free(f);
        return;
    }
    check(parse_decode(f, len, q, y) == 0, "the damage tests' frame decodes");
    uint8_t *c = malloc(len);

    /* every single-byte change */
    {
        unsigned bad = 0, runs = 0;
        for (size_t pos = 0; pos < len; pos++)
            for (unsigned d = 1; d < 256; d++) {
                memcpy(c, f, len);
                c[pos] ^= (uint8_t)d;
                sci_seis_info ci;
                int rc = sci_seis_parse(c, len, &ci);
                /* another version the decoder reads fails the header CRC */
                int readable = c[4] >= SCI_SEIS_VERSION_OLDEST &&
                               c[4] <= SCI_SEIS_VERSION;
                int want = pos < 4                       ? SCI_SEIS_E_MAGIC
                           : pos == 4 && !readable       ? SCI_SEIS_E_VERSION
                           : pos == 4                    ? SCI_SEIS_E_HEADER
                           : pos < SCI_SEIS_HEADER_BYTES ? SCI_SEIS_E_HEADER
                                                         : SCI_SEIS_E_CRC;
                runs++;
                if (rc != want && bad++ < 3) {
                    snprintf(what, sizeof what, "byte %zu ^ 0x%02x: parse "
                             "gives %d, not %d", pos, d, rc, want);
                    check(0, what);
                }
            }
        snprintf(what, sizeof what, "all %u single-byte changes of a %zu-byte "
                 "frame refused by sci_seis_parse (magic, version, header "
                 "CRC, frame CRC)", runs, len);
        check(bad == 0, what);
    }

    /* every truncation, in a buffer of exactly that size */
    {
        unsigned bad = 0;
        for (size_t l = 0; l < len; l++) {
            uint8_t *t = malloc(l ? l : 1);
            memcpy(t, f, l);
            sci_seis_info ti;
            if (sci_seis_parse(t, l, &ti) != SCI_SEIS_E_TRUNCATED)
                bad++;
            free(t);
        }
        /* and trailing bytes are allowed */
        uint8_t *t = malloc(len + 10);
        memcpy(t, f, len);
        memset(t + len, 0x5a, 10);
        sci_seis_info ti;
        int rc = sci_seis_parse(t, len + 10, &ti);
        free(t);
        check(bad == 0 && rc == 0 && ti.frame_len == len,
              "every truncation gives E_TRUNCATED; bytes after the frame are "
              "ignored");
    }

    /* sci_seis_frame_length on bad headers (header CRC recomputed where
     * the point is a field's value) */
    {
        struct {
            int at, width; /* byte offset, 1 or 4 (4: little-endian u32) */
            uint32_t v;
            int want;
        } muts[] = {
            {0, 1, 'X', SCI_SEIS_E_MAGIC},   {3, 1, 's', SCI_SEIS_E_MAGIC},
            {4, 1, 0, SCI_SEIS_E_VERSION},
            {4, 1, SCI_SEIS_VERSION + 1, SCI_SEIS_E_VERSION},
            {5, 1, 1, SCI_SEIS_E_HEADER},    {5, 1, 17, SCI_SEIS_E_HEADER},
            {6, 1, 9, SCI_SEIS_E_HEADER},    {7, 1, 0, SCI_SEIS_E_HEADER},
            {7, 1, 25, SCI_SEIS_E_HEADER},   {8, 4, 0, SCI_SEIS_E_HEADER},
            {8, 4, (1u << 24) + 1, SCI_SEIS_E_HEADER},
            {12, 4, 0, SCI_SEIS_E_HEADER},   {12, 4, 65536, SCI_SEIS_E_HEADER},
            {8, 4, 1u << 22, SCI_SEIS_E_HEADER}, /* x 17 samples > 2^28 */
            {20, 4, 0x7fc00000u, SCI_SEIS_E_HEADER}, /* min NaN */
            {20, 4, 0x7f800000u, SCI_SEIS_E_HEADER}, /* min inf */
            {24, 4, 0xbf800000u, SCI_SEIS_E_HEADER}, /* step -1 */
            {24, 4, 0x7fc00000u, SCI_SEIS_E_HEADER}, /* step NaN */
            {24, 4, 0x7f800000u, SCI_SEIS_E_HEADER}, /* step inf */
            {28, 4, 0, SCI_SEIS_E_HEADER},   /* no table */
            {28, 4, 1u << 20, SCI_SEIS_E_HEADER}, /* table > bound */
            {32, 4, 0, SCI_SEIS_E_HEADER},   /* < ceil(221 / 4096) packages */
            {32, 4, 222, SCI_SEIS_E_HEADER}, /* > one a value */
            {36, 4, SCI_SEIS_MAX_META + 1, SCI_SEIS_E_HEADER},
            {40, 4, 4, SCI_SEIS_E_HEADER},   /* reserved flag */
            {-1, 0, 0, SCI_SEIS_E_HEADER},   /* header CRC itself */
        };
        unsigned bad = 0;
        uint8_t h[SCI_SEIS_HEADER_BYTES];
        for (size_t m = 0; m < sizeof muts / sizeof *muts; m++) {
            memcpy(h, f, sizeof h);
            if (muts[m].at < 0) {
                h[44] ^= 1;
            } else {
                if (muts[m].width == 1)
                    h[muts[m].at] = (uint8_t)muts[m].v;
                else
                    put_le32(h + muts[m].at, muts[m].v);
                fix_header_crc(h);
            }
            long long r = sci_seis_frame_length(h);
            if (r != muts[m].want) {
                bad++;
                printf("header mutation %zu (byte %d = 0x%x): frame_length "
                       "%lld, want %d\n", m, muts[m].at, muts[m].v, r,
                       muts[m].want);
            }
        }
        memcpy(h, f, sizeof h);
        check(sci_seis_frame_length(h) == (long long)len,
              "sci_seis_frame_length of a good header is the frame's length");
        snprintf(what, sizeof what, "sci_seis_frame_length refuses %zu bad "
                 "headers with the right code", sizeof muts / sizeof *muts);
        check(bad == 0, what);
    }

    /* package counts changed, CRC recomputed: E_DATA (version 7's code
     * words have none: test_slices) */
    if (version <= 6) {
        unsigned bad = 0, runs = 0;
        size_t np = info.packages;
        size_t which[] = {0, np / 2, np - 1};
        for (int w = 0; w < 3; w++) {
            size_t at = info.pkg_off + 8 * which[w] + 7;
            unsigned count = f[at] >> 2;
            unsigned news[] = {count + 1, count - 1, 0, 59, 63};
            for (int k = 0; k < 5; k++) {
                if (news[k] == count || news[k] > 63)
                    continue;
                memcpy(c, f, len);
                c[at] = (uint8_t)(news[k] << 2 | (c[at] & 3));
                fix_crc(c, len);
                runs++;
                if (parse_decode(c, len, q, y) != SCI_SEIS_E_DATA)
                    bad++;
            }
        }
        snprintf(what, sizeof what, "%u package-count changes (+-1, 0, 59, "
                 "63; first, middle, last package) with the CRC recomputed: "
                 "E_DATA", runs);
        check(bad == 0, what);
    }

    /* padding: before the packages, and a package's unused low bits
     * (version 7's slices: test_slices) */
    {
        memcpy(c, f, len);
        c[info.pkg_off - 1] = 1;
        fix_crc(c, len);
        sci_seis_info ci;
        check(sci_seis_parse(c, len, &ci) == SCI_SEIS_E_DATA,
              "nonzero padding before the packages: E_DATA from parse");
    }
    if (version <= 6) {
        static uint8_t lens[SCI_HUFF_MAX_SYMBOLS];
        int rc = sci_seis_code_lengths(f, &info, lens);
        unsigned flipped = 0, bad = rc != 0;
        for (size_t i = 0; i < info.packages && !rc; i++) {
            const uint64_t pk = get_le64(f + info.pkg_off + 8 * i);
            if (sci_seis_package_is_run(pk, version))
                continue;
            unsigned used = package_bits(lens, info.nsym, 1u << p.bits,
                                         version, pk);
            if (used < SCI_HUFF_PACKAGE_BITS) {
                memcpy(c, f, len);
                c[info.pkg_off + 8 * i] ^= 1; /* bit 0: padding */
                fix_crc(c, len);
                flipped++;
                if (parse_decode(c, len, q + 0, y) != SCI_SEIS_E_DATA)
                    bad++;
                /* the decode above may have overwritten q: decode again */
                parse_decode(f, len, q, y);
            }
        }
        snprintf(what, sizeof what, "a set padding bit in each of %u packages "
                 "with unused bits: E_DATA", flipped);
        check(bad == 0 && flipped > 0, what);
    }

    /* the code table replaced, CRCs recomputed */
    {
        const size_t nsym = info.nsym;
        static uint8_t lens[SCI_HUFF_MAX_SYMBOLS],
            mod[SCI_HUFF_MAX_SYMBOLS + 1];
        sci_seis_code_lengths(f, &info, lens);
        unsigned longest = info.max_len, bad = 0, runs = 0;
        struct {
            const char *what;
            int kind;
        } cases[] = {
            {"one length short of 2^bits", 0}, {"one length too many", 1},
            {"a used length 1 shorter (Kraft sum > 1)", 2},
            {"the longest code 1 longer (Kraft sum < 1)", 3},
            {"a length of 25", 4}, {"no codes at all", 5},
            {"header max_len 1 more than the table's", 6},
            {"random bytes", 7}, {"the table cut short by 3 bytes", 8},
            {"lengths past max_len", 9},
        };
        for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
            size_t tn = nsym, zl = 0;
            unsigned hdr_ml = longest;
            memcpy(mod, lens, nsym);
            uint8_t *z = NULL;
            switch (cases[k].kind) {
            case 0: tn = nsym - 1; break;
            case 1: tn = nsym + 1; mod[nsym] = 0; break;
            case 2:
                for (size_t s2 = 0; s2 < nsym; s2++)
                    if (mod[s2] > 1 && mod[s2] < longest) {
                        mod[s2]--;
                        break;
                    }
                break;
            case 3:
                for (size_t s2 = 0; s2 < nsym; s2++)
                    if (mod[s2] == longest) {
                        mod[s2]++;
                        break;
                    }
                hdr_ml = longest + 1;
                break;
            case 4:
                for (size_t s2 = 0; s2 < nsym; s2++)
                    if (mod[s2] == longest) {
                        mod[s2] = 25;
                        break;
                    }
                break;
            case 5: memset(mod, 0, nsym); break;
            case 6: hdr_ml = longest + 1; break;
            case 9:
                for (size_t s2 = 0; s2 < nsym; s2++)
                    if (mod[s2] == longest) {
                        mod[s2] = (uint8_t)(longest + 1);
                        break;
                    }
                break;
            default: break;
            }
            if (cases[k].kind == 7) {
                z = malloc(16);
                for (int i = 0; i < 16; i++)
                    z[i] = (uint8_t)rng();
                zl = 16;
            } else {
                z = tpack(version, mod, tn, &zl);
                if (cases[k].kind == 8)
                    zl -= 3;
            }
            size_t nl = 0;
            uint8_t *g = rebuild(f, &info, z, zl, hdr_ml, &nl);
            int rc = parse_decode(g, nl, q, y);
            runs++;
            if (rc != SCI_SEIS_E_DATA) {
                bad++;
                printf("version %u table case '%s': rc %d\n", version,
                       cases[k].what, rc);
            }
            free(g);
            free(z);
        }
        snprintf(what, sizeof what, "version %u: %u bad code tables (sizes, "
                 "Kraft sums, lengths > 24, max_len mismatch, random bytes, "
                 "cut short) with CRCs recomputed: E_DATA", version, runs);
        check(bad == 0, what);
        /* a good table of another code: decodes to something or E_DATA */
        memset(mod, (int)p.bits, nsym);
        size_t zl, nl;
        uint8_t *z = tpack(version, mod, nsym, &zl);
        uint8_t *g = rebuild(f, &info, z, zl, p.bits, &nl);
        int rc = parse_decode(g, nl, q, y);
        check(rc == 0 || rc == SCI_SEIS_E_DATA,
              "a valid table of another (fixed-length) code: 0 or E_DATA");
        /* and the original table rebuilt the same way is the same frame */
        free(z);
        free(g);
        g = rebuild(f, &info, f + info.table_off, info.table_len, longest,
                    &nl);
        check(nl == len && !memcmp(g, f, len),
              "rebuilding the frame from its parts gives the same bytes "
              "(so the cases above differ only where intended)");
        free(g);
    }

    /* random damage to packages, table and header fields, CRCs
     * recomputed: parse or decode refuse it or it decodes; never a crash
     * (run under ASan) */
    {
        unsigned odd = 0, runs = 0, decoded = 0;
        for (int it = 0; it < 20000; it++) {
            memcpy(c, f, len);
            int region = it % 3;
            int nb = 1 + (int)(rng() % 4);
            for (int b = 0; b < nb; b++) {
                size_t at;
                if (region == 0)
                    at = info.pkg_off + rng() % (8 * info.packages);
                else if (region == 1)
                    at = info.table_off + rng() % info.table_len;
                else
                    at = 5 + rng() % 39; /* header fields */
                c[at] = (uint8_t)rng();
            }
            fix_header_crc(c);
            /* where the header now announces another length, put the CRC
             * where it says */
            long long fl = sci_seis_frame_length(c);
            size_t use = len;
            if (fl > 0 && (size_t)fl <= len && fl >= 52) {
                use = (size_t)fl;
                fix_crc(c, use);
            } else {
                fix_crc(c, len);
            }
            sci_seis_info ci;
            int rc = sci_seis_parse(c, use, &ci);
            runs++;
            if (rc == 0) {
                float *yy = malloc((size_t)ci.p.traces * ci.p.samples *
                                   sizeof *yy);
                uint16_t *qq = malloc((size_t)ci.p.traces * ci.p.samples *
                                      sizeof *qq);
                rc = sci_seis_decode(test_pool(), c, &ci, qq, yy);
                decoded += rc == 0;
                if (rc != 0 && rc != SCI_SEIS_E_DATA)
                    odd++;
                free(yy);
                free(qq);
            } else if (rc != SCI_SEIS_E_HEADER && rc != SCI_SEIS_E_TRUNCATED &&
                       rc != SCI_SEIS_E_CRC && rc != SCI_SEIS_E_DATA) {
                odd++;
            }
        }
        snprintf(what, sizeof what, "%u randomly damaged frames with CRCs "
                 "recomputed: refused with E_HEADER/E_TRUNCATED/E_CRC/E_DATA "
                 "or decoded (%u), no crash", runs, decoded);
        check(odd == 0, what);
    }
    free(c);
    free(f);
}

/* ---------------------------------------------------------------------- */
/* 5. Real data */

typedef struct {
    double snr, r, cr, maxerr;
} quality;

static quality measure(const float *x, const float *y, size_t n,
                       size_t frame_len) {
    double sx = 0, sy = 0;
    for (size_t i = 0; i < n; i++) {
        sx += x[i];
        sy += y[i];
    }
    double mx = sx / n, my = sy / n, sxx = 0, syy = 0, sxy = 0, s2 = 0,
           e2 = 0, me = 0;
    for (size_t i = 0; i < n; i++) {
        double a = x[i] - mx, b = y[i] - my, d = (double)x[i] - y[i];
        sxx += a * a;
        syy += b * b;
        sxy += a * b;
        s2 += (double)x[i] * x[i];
        e2 += d * d;
        me = fabs(d) > me ? fabs(d) : me;
    }
    quality qy;
    qy.snr = e2 > 0 ? 10 * log10(s2 / e2) : INFINITY;
    qy.r = sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 1.0;
    qy.cr = 4.0 * n / frame_len;
    qy.maxerr = me;
    return qy;
}

/* Regression floors for F3 (414 x 75), from the values this test measured
 * (bits x levels table it prints; frame version 2, deterministic): SNR
 * 1 dB under the measurement rounded down to 0.5 dB, CR 3% under it
 * rounded down to 0.01, and r with 1 - r at most about twice the measured
 * worst of its row, rounded up (all >= 0.999).  A change of the codec that
 * loses quality or compression fails here; one that gains should raise
 * them.  Rows: bits 8, 10, 12, 14, 16; columns: levels 1..4.  The CR row
 * of 16 bits is version 5's (1.83 / 1.85 / 1.84 / 1.84): its code table,
 * which a GPU reads, is 1.26x zstd's there, and this small gather's table
 * a sixth of its frame (docs/seismic-format.md, "Version 5"). */
static const double f3_snr_floor[5][4] = {
    {38.5, 36.5, 35.5, 35.0},
    {50.5, 48.5, 47.5, 47.0},
    {62.5, 60.5, 60.0, 59.0},
    {74.5, 73.0, 72.0, 71.5},
    {86.5, 85.0, 84.0, 83.0}};
static const double f3_cr_floor[5][4] = {
    {4.30, 4.40, 4.40, 4.40},
    {3.27, 3.32, 3.31, 3.32},
    {2.60, 2.63, 2.62, 2.62},
    {2.10, 2.13, 2.12, 2.12},
    {1.77, 1.79, 1.78, 1.78}};
static const double f3_r_floor[5] = {0.9997, 0.99998, 0.999999, 0.9999999,
                                     0.99999999};

static void test_real(const char *dir) {
    static const char *f3_files[] = {"f3.sgy", "f3-lsb.sgy", "Format1msb.sgy",
                                     "Format5msb.sgy"};
    static const int f3_formats[] = {3, 3, 1, 5};
    char path[1024], why[256], what[300];
    segy_gather g[4];
    for (int k = 0; k < 4; k++) {
        snprintf(path, sizeof path, "%s/seismic/%s", dir, f3_files[k]);
        if (segy_read(path, &g[k], why, sizeof why)) {
            printf("SKIP real data: %s\n", why);
            for (int j = 0; j < k; j++)
                segy_free(&g[j]);
            return;
        }
    }
    int same = 1, shape = 1;
    for (int k = 0; k < 4; k++) {
        shape &= g[k].traces == 414 && g[k].samples == 75 &&
                 g[k].interval_us == 4000 && g[k].format == f3_formats[k] &&
                 g[k].little_endian == (k == 1);
        if (k && shape)
            same &= !memcmp(g[k].data, g[0].data, 414 * 75 * sizeof(float));
    }
    check(shape, "the four F3 files read as 414 x 75 at 4000 us (int16 BE, "
                 "int16 LE detected by its format code, IBM, IEEE)");
    check(same, "the four F3 files hold the same samples");
    if (!shape || !same) {
        for (int k = 0; k < 4; k++)
            segy_free(&g[k]);
        return;
    }
    const float *x = g[0].data;
    const size_t n = 414 * 75;
    float lo = x[0], hi = x[0];
    for (size_t i = 0; i < n; i++) {
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    check(lo == -10239 && hi == 10827,
          "F3 spans -10239 .. 10827 (PROVENANCE.md)");

    printf("\nF3 (414 x 75, the same frames from all four files):\n\n");
    printf("| bits | levels | bytes | of which code table | CR | SNR dB | r | "
           "1 - r | max err |\n");
    printf("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
           "|\n");
    rt_stats st = {0};
    unsigned frames_differ = 0, floor_bad = 0;
    float *y = malloc(n * sizeof *y);
    for (unsigned bi = 0; bi < 5; bi++) {
        unsigned bits = 8 + 2 * bi;
        for (unsigned levels = 1; levels <= 4; levels++) {
            double M;
            float *coef = ref_coefficients(x, 414, 75, levels, &M);
            size_t len = codec_case(x, 414, 75, bits, levels, coef, M, &st, y);
            free(coef);
            /* the other files' samples give the very same frame */
            sci_seis_params p = {414, 75, 4000, bits, levels, 0};
            size_t bound = sci_seis_frame_bound(&p, 0), l0 = 0;
            uint8_t *f0 = malloc(bound), *fk = malloc(bound);
            sci_seis_encode(test_pool(), &p, g[0].data, NULL, 0, f0, bound, &l0, NULL);
            sci_seis_info i0;
            size_t table_len =
                sci_seis_parse(f0, l0, &i0) == 0 ? i0.table_len : 0;
            for (int k = 1; k < 4; k++) {
                size_t lk = 0;
                if (sci_seis_encode(test_pool(), &p, g[k].data, NULL, 0, fk, bound, &lk,
                                    NULL) || lk != l0 || memcmp(fk, f0, l0))
                    frames_differ++;
            }
            free(f0);
            free(fk);
            if (!len)
                continue;
            /* sizes of the frame without the metadata codec_case adds */
            quality qy = measure(x, y, n, l0);
            len = l0;
            printf("| %u | %u | %zu | %zu | %.2f | %.2f | %.6f | %.2e | %.2f "
                   "|\n", bits, levels, len, table_len, qy.cr, qy.snr, qy.r,
                   1 - qy.r, qy.maxerr);
            if (!(qy.snr >= f3_snr_floor[bi][levels - 1]) ||
                !(qy.cr >= f3_cr_floor[bi][levels - 1]) ||
                !(qy.r >= f3_r_floor[bi])) {
                floor_bad++;
                printf("  ^ under the floors (SNR %.1f, CR %.2f, r %.4f)\n",
                       f3_snr_floor[bi][levels - 1],
                       f3_cr_floor[bi][levels - 1],
                       f3_r_floor[bi]);
            }
        }
    }
    printf("\n");
    rt_summary(&st, "F3");
    check(frames_differ == 0, "the four F3 files give identical frames at "
                              "every bits and levels");
    snprintf(what, sizeof what, "F3: SNR, r and CR at or above the "
             "regression floors (20 points)");
    check(floor_bad == 0, what);
    free(y);
    for (int k = 0; k < 4; k++)
        segy_free(&g[k]);

    /* the synthetic IBM files */
    static const char *others[] = {"shot-gather.sgy", "small.sgy"};
    static const uint32_t shapes[][3] = {{61, 25, 1000}, {25, 50, 4000}};
    static const double snr_floor[] = {49.0, 50.5};
    for (int k = 0; k < 2; k++) {
        segy_gather o;
        snprintf(path, sizeof path, "%s/seismic/%s", dir, others[k]);
        if (segy_read(path, &o, why, sizeof why)) {
            snprintf(what, sizeof what, "read %s: %s", others[k], why);
            check(0, what);
            continue;
        }
        snprintf(what, sizeof what, "%s reads as %u x %u IBM floats at %u us",
                 others[k], shapes[k][0], shapes[k][1], shapes[k][2]);
        check(o.traces == shapes[k][0] && o.samples == shapes[k][1] &&
                  o.interval_us == shapes[k][2] && o.format == 1,
              what);
        size_t on = (size_t)o.traces * o.samples;
        float *oy = malloc(on * sizeof *oy);
        rt_stats os = {0};
        printf("%s (%u x %u):", others[k], o.traces, o.samples);
        double worst_snr = INFINITY;
        for (unsigned bits = 8; bits <= 16; bits += 4)
            for (unsigned levels = 0; levels <= 4; levels += 2) {
                double M;
                float *coef = ref_coefficients(o.data, o.traces, o.samples,
                                               levels, &M);
                size_t len = codec_case(o.data, o.traces, o.samples, bits,
                                        levels, coef, M, &os, oy);
                free(coef);
                if (len) {
                    quality qy = measure(o.data, oy, on, len);
                    printf(" b%u/L%u %.1f dB CR %.2f;", bits, levels, qy.snr,
                           qy.cr);
                    if (qy.snr < worst_snr)
                        worst_snr = qy.snr;
                }
            }
        printf("\n");
        rt_summary(&os, others[k]);
        /* regression floor: 1 dB under the worst measured point (50.3 dB
         * for shot-gather.sgy at 8 bits 2 levels, 51.5 dB for small.sgy at
         * 8 bits 4 levels) */
        snprintf(what, sizeof what, "%s: SNR >= %.1f dB at bits 8..16, "
                 "levels 0..4 (worst %.1f dB)", others[k], snr_floor[k],
                 worst_snr);
        check(worst_snr >= snr_floor[k], what);
        free(oy);
        segy_free(&o);
    }
}

/* ---------------------------------------------------------------------- */
/* 6. Versions 4 and 5's code table (codec/seismic/table.h) */

/* The version's table of len[0..n-1] read back: 0 when it gives len
 * exactly and fits its bound. */
static int table_round_trip(const uint8_t *len, uint32_t n, unsigned v) {
    size_t cap = sci_seis_table_bound(n, v), z;
    uint8_t *t = malloc(cap), *back = malloc(n ? n : 1);
    z = sci_seis_table_write(len, n, v, t, cap);
    int bad = !z || z > cap || sci_seis_table_read(t, z, n, v, back) ||
              memcmp(len, back, n) ||
              /* one byte less cannot hold it; a byte more is not a table */
              sci_seis_table_write(len, n, v, t, z - 1) != 0;
    if (!bad) {
        /* written again with room to spare: the bound leaves a zero byte
         * after the table */
        sci_seis_table_write(len, n, v, t, cap);
        bad = !sci_seis_table_read(t, z - 1, n, v, back) ||
              !sci_seis_table_read(t, z + 1, n, v, back);
    }
    free(t);
    free(back);
    return bad;
}

/* A hand-made one-segment table of the given bits (a string of '0' and
 * '1'), read as n lengths (n <= 256: one segment in both versions) by
 * version v's reader: 0 or -1. */
static int table_of_bits(const char *bits, uint32_t n, unsigned v,
                         uint8_t *len) {
    uint8_t t[64] = {0};
    size_t k = 0;
    for (; bits[k]; k++)
        if (bits[k] == '1')
            t[k >> 3] |= (uint8_t)(0x80u >> (k & 7));
    return sci_seis_table_read(t, (k + 7) / 8, n, v, len);
}

static void test_table_code(void) {
    char what[200];
    static uint8_t len[(1 << 16) + 9], back[1 << 16];
    /* random tables: runs of unused symbols, small steps, jumps, every
     * length 1..24, across segment boundaries */
    const uint32_t sizes[] = {1,    2,    3,    64,   255,  256,  257,
                              511,  4095, 4096, 4097, 8197, 65536};
    unsigned bad = 0, runs = 0;
    for (unsigned i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (unsigned trial = 0; trial < 12; trial++) {
            const unsigned v = 4 + trial % 2;
            const uint32_t n = sizes[i];
            unsigned l = 1 + (unsigned)(rng() % 24);
            for (uint32_t s = 0; s < n; s++) {
                const unsigned r = (unsigned)(rng() % 16);
                if (trial < 2)
                    l = 1 + s % 24;
                else if (r < 5)
                    l = 0;
                else if (r < 8 && l > 1)
                    l--;
                else if (r < 11 && l && l < 24)
                    l++;
                else if (r < 12 || !l)
                    l = 1 + (unsigned)(rng() % 24);
                len[s] = (uint8_t)(trial / 2 == 1 ? 0 : l);
            }
            runs++;
            if (table_round_trip(len, n, v)) {
                bad++;
                printf("version %u table of %u symbols, trial %u: no exact "
                       "round trip\n", v, n, trial);
            }
        }
    snprintf(what, sizeof what, "version 4 and 5 code tables: %u random "
             "tables of 1..65536 symbols read back exactly, within their "
             "bound, and refused one byte short or long", runs);
    check(bad == 0, what);
    /* tokens an encoder does not write */
    static const struct {
        const char *bits, *what;
        uint32_t n;
        int ok;
    } cases[] = {
        {"00000101" "1" "010" "011" "0", "literal 5, again, +1, -1", 4, 1},
        {"001" "00100", "a run of 4 (gamma 00100)", 4, 1},
        {"1", "a repeat with no length before it", 1, 0},
        {"011" "00000", "one less than no length", 1, 0},
        {"00000000", "a literal 0", 1, 0},
        {"00011001", "a literal 25", 1, 0},
        {"000110000" "10", "24 + 1", 2, 0},
        {"00101000", "a run of 2 in a table of 1", 1, 0},
        {"001" "0000000000000" "1", "a gamma prefix of 13 zeros", 1, 0},
        {"00000101" "1000000", "a set bit after the last token", 1, 0},
        {"001" "00001", "the stream ends inside a token", 16, 0},
    };
    bad = 0;
    for (unsigned k = 0; k < sizeof cases / sizeof *cases; k++)
        for (unsigned v = 4; v <= 5; v++) {
            int rc = table_of_bits(cases[k].bits, cases[k].n, v, back);
            if ((rc == 0) != cases[k].ok) {
                bad++;
                printf("version %u table bits %s (%s): %d\n", v,
                       cases[k].bits, cases[k].what, rc);
            }
        }
    check(bad == 0, "version 4 and 5 code tables: hand-made tokens read or "
                    "refused as the format says");
    /* two segments in each version: the field that says where the second
     * starts (4: its offset; 5: the first's length) one bit off either
     * way */
    memset(len, 0, 8192);
    len[3] = 2;
    len[4100] = 3;
    int ok = 1;
    for (unsigned v = 4; v <= 5; v++) {
        size_t cap = sci_seis_table_bound(8192, v);
        uint8_t *t = malloc(cap);
        size_t z = sci_seis_table_write(len, 8192, v, t, cap);
        ok = ok && z && !sci_seis_table_read(t, z, 8192, v, back) &&
             !memcmp(back, len, 8192);
        t[0]++;
        ok = ok && sci_seis_table_read(t, z, 8192, v, back);
        t[0] -= 2;
        ok = ok && sci_seis_table_read(t, z, 8192, v, back);
        free(t);
    }
    check(ok, "version 4 and 5 code tables: a field one bit off (the "
              "second segment's start) is refused");
}

/* Version 5's segments read from a copy of part of the table (the GPU's
 * lengths launch copies a block's part to shared memory) against the
 * table itself, segment by segment, on sound and damaged tables: the
 * same verdict always, the same lengths when sound.  The copies are
 * sci_seis_table_window's for groups of `group` segments, as the GPU
 * takes them, and random wider ones. */
static unsigned table_window_mismatches(const uint8_t *t, size_t z,
                                        uint32_t n, uint32_t group) {
    const uint32_t segs = sci_seis_table_segments(n, 5);
    const size_t head = sci_seis_table_head(n, 5);
    if (z <= head)
        return 0;
    static uint8_t a[256], b[256];
    unsigned bad = 0;
    size_t before = 0;
    for (uint32_t g0 = 0; g0 < segs; g0 += group) {
        size_t bits = 0;
        for (uint32_t g = g0; g < g0 + group && g + 1 < segs; g++)
            bits += sci_seis_table_field(t, g, 5);
        size_t from, to;
        sci_seis_table_window(head, z, before, bits, g0 + group >= segs,
                              &from, &to);
        if (from % 4 || to < from || to > z) {
            bad++;
            continue;
        }
        for (uint32_t g = g0; g < g0 + group && g < segs; g++) {
            const size_t f = g + 1 < segs ? sci_seis_table_field(t, g, 5) : 0;
            for (unsigned w = 0; w < 2; w++) {
                size_t f0 = from, t0 = to;
                if (w) {
                    f0 = (size_t)(rng() % (from + 1)) & ~(size_t)3;
                    t0 = to + (size_t)(rng() % (z - to + 1));
                }
                memset(a, 0, sizeof a);
                memset(b, 0, sizeof b);
                const int ra = sci_seis_table_read_segment(
                    t, z, 5, g, n, before, before + f, a, 1);
                const int rb = sci_seis_table_read_segment_in(
                    t + f0, f0, t0 - f0, z, 5, g, n, before, before + f, b, 1);
                if (ra != rb || (!ra && memcmp(a, b, sizeof a)))
                    bad++;
            }
            before += f;
        }
    }
    return bad;
}

/* sci_seis_table_segment's walk as the format states it, a branch a
 * token kind: the reference for the walk of table_core.h, whose tokens
 * all take the same steps. */
static int table_segment_ref(const uint8_t *bytes, size_t z, uint32_t n,
                             size_t *pos, uint8_t *len, int zeroed) {
    const size_t end = 8 * z;
    sci_seis_table_bits r;
    sci_seis_table_bits_at(&r, bytes, z, *pos);
    unsigned last = 0;
    for (uint32_t s = 0; s < n;) {
        if (r.pos >= end)
            return -1;
        sci_seis_table_fill(&r);
        const unsigned t = (unsigned)(r.w >> 61);
        unsigned l;
        if (t >= 4) {
            l = last;
            sci_seis_table_skip(&r, 1);
        } else if (t >= 2) {
            l = t & 1 ? last - 1 : last + 1;
            sci_seis_table_skip(&r, 3);
        } else if (t == 1) {
            const unsigned k = sci_seis_table_clz64(r.w << 3);
            if (k > 12)
                return -1;
            const uint32_t run = (uint32_t)((r.w << (3 + k)) >> (63 - k));
            sci_seis_table_skip(&r, 4 + 2 * k);
            if (run > n - s)
                return -1;
            for (uint32_t j = 0; !zeroed && j < run; j++)
                len[s + j] = 0;
            s += run;
            continue;
        } else {
            l = (unsigned)(r.w >> 56) & 31;
            sci_seis_table_skip(&r, 8);
        }
        if (l < 1 || l > SCI_HUFF_MAX_LEN)
            return -1;
        len[s++] = (uint8_t)l;
        last = l;
    }
    if (r.pos > end)
        return -1;
    *pos = r.pos;
    return 0;
}

/* The walk against the reference on one segment of n symbols: streams of
 * random tokens (repeats, steps, literals 0..31, runs of 1 to 2^14 - 1:
 * gamma prefixes of 0 to 13 zeros, one more than the format allows), some
 * with bits flipped, read from any bit, n near the symbols written,
 * zeroed or not: the same verdict, lengths and end always. */
static void test_table_walk(void) {
    unsigned bad = 0, sound = 0;
    const unsigned trials = 200000;
    for (unsigned trial = 0; trial < trials; trial++) {
        uint8_t t[40] = {0};
        unsigned bit = (unsigned)(rng() % 8), syms = 0;
        const unsigned from = bit;
        while (bit + 40 <= 8 * sizeof t && rng() % 32) {
            const unsigned r = (unsigned)(rng() % 16);
            uint64_t v;
            unsigned k;
            uint32_t add = 1;
            if (r < 7) { /* a repeat */
                v = 1, k = 1;
            } else if (r < 11) { /* a step */
                v = 2 | rng() % 2, k = 3;
            } else if (r < 14) { /* a literal */
                v = rng() % 32, k = 8;
            } else { /* a run, gamma-coded: 001 0^g 1 b (g bits) */
                const unsigned g = (unsigned)(rng() % (r == 14 ? 3 : 14));
                add = (1u << g) + (uint32_t)(rng() % (1u << g));
                v = (uint64_t)1 << (2 * g + 1) | add, k = 4 + 2 * g;
            }
            if (syms + add > 60000)
                break;
            for (unsigned i = k; i-- > 0; bit++)
                if (v >> i & 1)
                    t[bit >> 3] |= (uint8_t)(0x80u >> (bit & 7));
            syms += add;
        }
        if (trial % 3 == 0)
            t[rng() % sizeof t] ^= (uint8_t)(1u << (rng() % 8));
        const size_t z = trial % 5 ? sizeof t : (bit + 7) / 8;
        const int d = trial % 2 ? 0 : (int)(rng() % 7) - 3;
        const uint32_t n = (int)syms + d >= 1 ? (uint32_t)((int)syms + d) : 1;
        const int zeroed = trial % 4 == 1;
        static uint8_t a[1 << 16], b[1 << 16];
        memset(a, zeroed ? 0 : 0xee, n);
        memset(b, zeroed ? 0 : 0xee, n);
        size_t pa = from, pb = from;
        const int ra = table_segment_ref(t, z, n, &pa, a, zeroed);
        const int rb = sci_seis_table_segment(t, z, 0, n, &pb, b, zeroed);
        sound += !ra;
        if (ra != rb || (!ra && (pa != pb || memcmp(a, b, n))))
            bad++;
    }
    char what[200];
    snprintf(what, sizeof what, "code tables: %u random segments (%u of them "
             "sound) walked as the reference walks them", trials, sound);
    check(bad == 0 && sound > trials / 20, what);
}

static void test_table_window(void) {
    static uint8_t len[1 << 16];
    unsigned bad = 0, tables = 0;
    for (unsigned trial = 0; trial < 24; trial++) {
        const uint32_t n = trial < 4 ? 1 + (uint32_t)(rng() % 700) : 1u << 16;
        /* a peak of short codes in the middle, long ones around, unused
         * symbols at the ends, as a quantizer's indices give */
        for (uint32_t s = 0; s < n; s++) {
            const double d = fabs((double)s - n / 2.0) / (n / 16.0 + 1);
            len[s] = d > 6 && rng() % 4 ? 0
                                        : (uint8_t)(2 + (unsigned)(3 * d) +
                                                    (unsigned)(rng() % 3));
            if (len[s] > SCI_HUFF_MAX_LEN)
                len[s] = SCI_HUFF_MAX_LEN;
        }
        const size_t cap = sci_seis_table_bound(n, 5);
        uint8_t *t = malloc(cap + 64);
        const size_t z = sci_seis_table_write(len, n, 5, t, cap);
        if (!z) {
            bad++;
            free(t);
            continue;
        }
        /* trial % 4: sound, bits flipped, a field changed, cut or
         * lengthened */
        size_t zz = z;
        const size_t head = sci_seis_table_head(n, 5);
        if (trial % 4 == 1)
            for (unsigned k = 0; k < 1 + trial % 5; k++)
                t[rng() % z] ^= (uint8_t)(1u << (rng() % 8));
        else if (trial % 4 == 2 && head)
            t[rng() % head] = (uint8_t)rng();
        else if (trial % 4 == 3) {
            zz = z - 1 - (size_t)(rng() % (z < 8 ? z : 8));
            if (trial & 4) {
                zz = z + 1 + (size_t)(rng() % 60);
                memset(t + z, trial & 8 ? 0 : 0xa5, zz - z);
            }
        }
        tables++;
        bad += table_window_mismatches(t, zz, n, 64);
        bad += table_window_mismatches(t, zz, n, 1 + (uint32_t)(rng() % 70));
        free(t);
    }
    char what[200];
    snprintf(what, sizeof what, "version 5 code tables: %u tables (sound, "
             "damaged, cut), each segment read from the GPU's copies of "
             "parts of the table as from the table", tables);
    check(bad == 0, what);
}

/* ---------------------------------------------------------------------- */
/* Version 6: zero runs in the code */

/* Indices with runs of the run level of every length around the classes'
 * bounds and the package and run limits, single levels, runs of other
 * indices long enough for run packages, and random indices between. */
static size_t zr_indices(uint16_t *q, size_t cap, unsigned bits,
                         uint32_t level) {
    static const uint32_t runs[] = {1,    2,    3,    4,    7,    8,
                                    63,   64,   65,   2047, 2048, 4095,
                                    4096, 4097, 8190, 8191, 9000};
    const uint32_t nval = 1u << bits;
    size_t n = 0;
    for (unsigned k = 0; k < sizeof runs / sizeof *runs; k++) {
        for (uint32_t j = 0; j < runs[k] && n < cap; j++)
            q[n++] = (uint16_t)level;
        /* other indices between: a few random ones, sometimes a run */
        const uint32_t other = (level + 1 + (uint32_t)(rng() % (nval - 1))) %
                               nval;
        const uint32_t len = k % 4 == 3 ? 64 + 4100 * (k % 8 == 7) : 1 + k % 3;
        for (uint32_t j = 0; j < len && n < cap; j++)
            q[n++] = (uint16_t)(len >= 64 ? other
                                          : (level + 1 +
                                             (uint32_t)(rng() % (nval - 1))) %
                                                nval);
    }
    return n;
}

static void test_zero_runs(void) {
    char what[200];
    static uint16_t q[60000], back[60000];
    unsigned bad = 0, runs = 0, frames = 0;
    for (unsigned bits = 2; bits <= 16; bits += 7)
        for (int anchored = 0; anchored < 2; anchored++) {
            sci_seis_grid g = {0};
            g.step = 0.5f;
            g.zero_anchored = anchored;
            g.zero = anchored ? (int32_t)(1u << (bits - 1)) : 0;
            g.min = anchored ? 0.0f : 1.0f;
            const size_t n = zr_indices(q, 60000, bits,
                                        sci_seis_run_level(&g));
            sci_seis_params p = {1, (uint32_t)n, 1000, bits, 0, 0};
            /* as many traces as fit, for a gather of n values */
            for (uint32_t t = 2; t < 64; t++)
                if (n % t == 0 && n / t <= SCI_SEIS_MAX_SAMPLES) {
                    p.traces = t;
                    p.samples = (uint32_t)(n / t);
                }
            if ((size_t)p.traces * p.samples != n ||
                p.samples > SCI_SEIS_MAX_SAMPLES) {
                p.traces = 1;
                p.samples = (uint32_t)(n < 65535 ? n : 65535);
            }
            const size_t v = (size_t)p.traces * p.samples;
            size_t cap = sci_seis_frame_bound(&p, 0), len = 0;
            uint8_t *f = malloc(cap);
            sci_seis_info info;
            for (unsigned ver = 6; ver <= 7; ver++) {
                frames++;
                if (sci_seis_encode_indices_version(&p, q, &g, NULL, 0, ver,
                                                    f, cap, &len) ||
                    sci_seis_parse(f, len, &info) || info.version != ver ||
                    !info.zero_runs ||
                    sci_seis_decode(test_pool(), f, &info, back, NULL) ||
                    memcmp(q, back, v * sizeof *q)) {
                    bad++;
                    printf("zero runs, version %u, %u bits, %s grid: not "
                           "decoded back\n", ver, bits,
                           anchored ? "zero" : "min");
                }
                for (uint32_t i = 0; ver == 6 && i < info.packages; i++)
                    runs += sci_seis_package_is_run(
                        get_le64(f + info.pkg_off + 8 * (size_t)i), 6);
            }
            free(f);
        }
    snprintf(what, sizeof what, "versions 6 and 7: %u frames of zero runs "
             "of 1 to 9000 (classes' and version 6's packages' bounds), "
             "version 6's run packages, single levels, zero and min grids, "
             "decode to their indices", frames);
    check(bad == 0 && runs > 0, what);

    /* sparse indices: version 6 well below version 5, dense ones about
     * the same */
    {
        const uint32_t n = 40000;
        sci_seis_params p = {200, 200, 1000, 10, 0, 0};
        sci_seis_grid g = {0.25f, 0.0f, 512, 1};
        for (int dense = 0; dense < 2; dense++) {
            for (uint32_t i = 0; i < n; i++)
                q[i] = (uint16_t)(dense || rng() % 50 == 0
                                      ? 512 + (int)(rng() % 9) - 4
                                      : 512);
            size_t cap = sci_seis_frame_bound(&p, 0), l5 = 0, l6 = 0;
            uint8_t *f = malloc(cap);
            sci_seis_encode_indices_version(&p, q, &g, NULL, 0, 5, f, cap,
                                            &l5);
            sci_seis_encode_indices_version(&p, q, &g, NULL, 0, 6, f, cap,
                                            &l6);
            free(f);
            snprintf(what, sizeof what, "version 6 of %s indices: %zu bytes "
                     "against version 5's %zu", dense ? "dense" : "98%-zero",
                     l6, l5);
            check(dense ? l6 < l5 * 1.02 : l6 * 2 < l5, what);
        }
    }

    /* packages by hand: the value limit, a run's bits past the package */
    {
        const uint32_t nval = 4, nsym = nval + SCI_SEIS_ZRUN_CLASSES;
        uint64_t freq[4 + SCI_SEIS_ZRUN_CLASSES];
        uint8_t len[4 + SCI_SEIS_ZRUN_CLASSES];
        for (uint32_t k = 0; k < nsym; k++)
            freq[k] = 1 + k;
        sci_huff_code c = {0};
        sci_huff_lengths(freq, nsym, SCI_SEIS_CODE_LIMIT, len);
        sci_huff_build(len, nsym, &c);
        const sci_seis_codebook cb = {c.lookup, c.first_code, c.first_index,
                                      c.sorted, c.max_len, NULL};
        /* tokens: an index v < 4, or a run r of 2..4095 */
        struct {
            uint32_t tok[3];
            unsigned nt;
            int pad;       /* a padding bit set */
            uint32_t want; /* values, 0: refused */
        } cases[] = {
            {{0x10000u | 4095, 1}, 2, 0, 4096},
            {{1, 0x10000u | 4095}, 2, 0, 4096},
            {{0x10000u | 4095, 0x10000u | 2}, 2, 0, 0},
            {{0x10000u | 2048, 0x10000u | 2048}, 2, 0, 4096},
            {{0x10000u | 2048, 0x10000u | 2049}, 2, 0, 0},
            {{0x10000u | 2048, 0x10000u | 2047, 3}, 3, 0, 4096},
            {{2, 0x10000u | 2}, 2, 1, 0},
        };
        unsigned wrong = 0;
        for (unsigned k = 0; k < sizeof cases / sizeof *cases; k++) {
            uint64_t acc = 0;
            unsigned used = 0;
            for (unsigned j = 0; j < cases[k].nt; j++) {
                const uint32_t t = cases[k].tok[j];
                uint32_t sym = t, extra = 0, kb = 0;
                if (t & 0x10000u) {
                    const uint32_t r = t & 0xFFFFu;
                    while ((2u << kb) <= r)
                        kb++;
                    sym = nval + kb - 1;
                    extra = r - (1u << kb);
                }
                acc = acc << c.len[sym] | c.code[sym];
                acc = acc << kb | extra;
                used += c.len[sym] + kb;
            }
            uint64_t pk = (uint64_t)cases[k].nt << SCI_HUFF_PACKAGE_BITS |
                          acc << (SCI_HUFF_PACKAGE_BITS - used);
            if (cases[k].pad)
                pk |= 1;
            uint32_t tok[SCI_HUFF_PACKAGE_BITS];
            unsigned nt = 0;
            const uint32_t got = sci_seis_unpack_tokens(&cb, nval, pk, tok,
                                                        &nt);
            if (got != cases[k].want) {
                wrong++;
                printf("hand-made package %u: %u values, want %u\n", k, got,
                       cases[k].want);
            }
        }
        /* a run of 4095 whose bits end past the package: index 3 codes
         * before it, as many as leave its code whole */
        {
            const uint32_t run = nval + SCI_SEIS_ZRUN_CLASSES - 1;
            unsigned m = 0, used = 0;
            while ((m + 1) * c.len[3] + c.len[run] <= SCI_HUFF_PACKAGE_BITS &&
                   m * c.len[3] + c.len[run] + 11 <= SCI_HUFF_PACKAGE_BITS)
                m++;
            uint64_t acc = 0;
            for (unsigned j = 0; j < m; j++)
                acc = acc << c.len[3] | c.code[3];
            acc = acc << c.len[run] | c.code[run];
            used = m * c.len[3] + c.len[run];
            const unsigned room = SCI_HUFF_PACKAGE_BITS - used;
            acc = acc << room | (2047u >> (11 - room));
            uint64_t pk = (uint64_t)(m + 1) << SCI_HUFF_PACKAGE_BITS | acc;
            uint32_t tok[SCI_HUFF_PACKAGE_BITS];
            unsigned nt = 0;
            if (room >= 11 ||
                sci_seis_unpack_tokens(&cb, nval, pk, tok, &nt) != 0) {
                wrong++;
                printf("a run's bits cut at the package's end: not "
                       "refused\n");
            }
        }
        /* a count of 0 or past 58 */
        uint32_t tok[SCI_HUFF_PACKAGE_BITS];
        unsigned nt = 0;
        wrong += sci_seis_unpack_tokens(&cb, nval, 0, tok, &nt) != 0;
        wrong += sci_seis_unpack_tokens(&cb, nval, 59ull << 58, tok, &nt) != 0;
        sci_huff_free(&c);
        check(wrong == 0, "version 6 packages: at most 4096 values (a run "
                          "of 4095 and one index, 2048 + 2048; not 4095 + 2 "
                          "or 2048 + 2049), a run's bits within the "
                          "package, zero padding, counts 1..58");
    }

    /* the zero-run flag: set by the encoder exactly when a run class has
     * a code; cleared on a frame with runs, E_DATA; set on a version 5
     * frame, E_HEADER; set on one without runs, still decodes */
    {
        const uint32_t n = 40000;
        sci_seis_params p = {200, 200, 1000, 10, 0, 0};
        sci_seis_grid g = {0.25f, 0.0f, 512, 1};
        size_t cap = sci_seis_frame_bound(&p, 0), len = 0;
        uint8_t *f = malloc(cap);
        sci_seis_info info;
        unsigned bad = 0;
        for (int sparse = 0; sparse < 2; sparse++) {
            for (uint32_t i = 0; i < n; i++)
                q[i] = (uint16_t)(!sparse || rng() % 50 == 0
                                      ? 512 + (int)(rng() % 9) - 4
                                      : 512);
            for (unsigned v = 5; v <= 7; v++) {
                if (sci_seis_encode_indices_version(&p, q, &g, NULL, 0, v, f,
                                                    cap, &len) ||
                    sci_seis_parse(f, len, &info)) {
                    bad++;
                    continue;
                }
                const uint32_t flags = get_le32(f + 40);
                /* sparse indices code runs, dense ones do not */
                bad += v >= 6 && !(flags & SCI_SEIS_FLAG_ZRUNS) != !sparse;
                put_le32(f + 40, flags ^ SCI_SEIS_FLAG_ZRUNS);
                fix_header_crc(f);
                fix_crc(f, len);
                const int want = v == 5 ? SCI_SEIS_E_HEADER
                                 : sparse ? SCI_SEIS_E_DATA
                                          : 0;
                if (parse_decode(f, len, back, NULL) != want) {
                    bad++;
                    printf("zero-run flag flipped, version %u, %s: not %d\n",
                           v, sparse ? "sparse" : "dense", want);
                }
            }
        }
        check(bad == 0, "versions 6 and 7's zero-run flag: set exactly for "
                        "a code with runs; cleared on one, E_DATA; set on a "
                        "frame without, decodes; in version 5, E_HEADER");
        free(f);
    }

    /* the block firsts moved, CRC recomputed: E_DATA */
    {
        const uint32_t n = 30000;
        sci_seis_params p = {100, 300, 1000, 14, 0, 0};
        sci_seis_grid g = {0.25f, 0.0f, 8192, 1};
        for (uint32_t i = 0; i < n; i++)
            q[i] = (uint16_t)(rng() % 16384);
        size_t cap = sci_seis_frame_bound(&p, 0), len = 0;
        uint8_t *f = malloc(cap), *c = malloc(cap);
        sci_seis_info info;
        unsigned tried = 0, missed = 0;
        for (unsigned ver = 6; ver <= 7; ver++) {
            if (sci_seis_encode_indices_version(&p, q, &g, NULL, 0, ver, f,
                                                cap, &len) == 0 &&
                sci_seis_parse(f, len, &info) == 0 && info.blocks >= 3) {
                for (uint32_t b = 0; b + 1 < info.blocks; b++) {
                    const uint32_t v0 =
                        get_le32(f + info.firsts_off + 4 * (size_t)b);
                    const uint32_t to[] = {v0 + 1, v0 - 1, 0, n, n + 1,
                                           0xFFFFFFFFu};
                    for (unsigned k = 0; k < sizeof to / sizeof *to; k++) {
                        memcpy(c, f, len);
                        put_le32(c + info.firsts_off + 4 * (size_t)b, to[k]);
                        fix_crc(c, len);
                        tried++;
                        missed += parse_decode(c, len, back, NULL) !=
                                  SCI_SEIS_E_DATA;
                    }
                }
            }
        }
        snprintf(what, sizeof what, "versions 6 and 7: %u block (slice) "
                 "firsts moved (+-1, 0, n, past n) with the CRC recomputed: "
                 "E_DATA", tried);
        check(tried > 0 && missed == 0, what);
        free(f);
        free(c);
    }
}

/* Version 7's slices (docs/seismic-format.md, "Slices"): where a
 * run-free frame's tokens go, worked out from its code lengths (a token a
 * value, moved to the next slice where it would cross into it); the
 * words, slices and firsts are those; a set bit after a slice's tokens,
 * CRC recomputed, is E_DATA; and the frame is smaller than version 6's
 * packages of the same indices. */
static void test_slices(void) {
    char what[240];
    const uint32_t n = 30000;
    static uint16_t q[30000], back[30000];
    static uint8_t lens[SCI_HUFF_MAX_SYMBOLS];
    sci_seis_params p = {100, 300, 1000, 14, 0, 0};
    sci_seis_grid g = {0.25f, 0.0f, 8192, 1};
    for (uint32_t i = 0; i < n; i++)
        q[i] = (uint16_t)(8192 + (int)(rng() % 2001) - 1000);
    size_t cap = sci_seis_frame_bound(&p, 0), len = 0, l6 = 0;
    uint8_t *f = malloc(cap), *c = malloc(cap);
    sci_seis_info info;
    if (sci_seis_encode_indices_version(&p, q, &g, NULL, 0, 6, f, cap, &l6) ||
        sci_seis_encode_indices(&p, q, &g, NULL, 0, f, cap, &len) ||
        sci_seis_parse(f, len, &info) || info.version != 7 ||
        info.zero_runs || sci_seis_code_lengths(f, &info, lens)) {
        check(0, "version 7: a frame of 30000 dense 14-bit indices");
        free(f);
        free(c);
        return;
    }
    /* each slice's first value and the end of its tokens */
    const uint32_t nslices = info.blocks;
    uint32_t *first = calloc(nslices + 1, sizeof *first);
    uint64_t *end = calloc(nslices + 1, sizeof *end);
    uint64_t bits = 0;
    int layout = 1;
    for (uint32_t i = 0; i < n && layout; i++) {
        const unsigned l = lens[q[i]];
        if (bits % SCI_SEIS_SLICE_BITS + l > SCI_SEIS_SLICE_BITS)
            bits += SCI_SEIS_SLICE_BITS - bits % SCI_SEIS_SLICE_BITS;
        const uint64_t sl = bits / SCI_SEIS_SLICE_BITS;
        if (sl >= nslices) {
            layout = 0;
            break;
        }
        if (bits % SCI_SEIS_SLICE_BITS == 0)
            first[sl] = i;
        bits += l;
        end[sl] = bits;
    }
    layout &= info.packages == (bits + 63) / 64;
    for (uint32_t sl = 1; sl < nslices && layout; sl++)
        layout &= get_le32(f + info.firsts_off + 4 * (size_t)(sl - 1)) ==
                  first[sl];
    snprintf(what, sizeof what, "version 7: %u code words in %u slices, "
             "each slice's tokens and first value where a token a value "
             "puts them", info.packages, nslices);
    check(layout, what);
    unsigned flipped = 0, missed = 0;
    for (uint32_t sl = 0; sl < nslices && layout; sl++) {
        uint64_t stop = (uint64_t)(sl + 1) * SCI_SEIS_SLICE_BITS;
        if (stop > 64ull * info.packages)
            stop = 64ull * info.packages;
        if (end[sl] >= stop)
            continue;
        /* the slice's last bit: bit 0 of its last word */
        memcpy(c, f, len);
        c[info.pkg_off + 8 * (size_t)(stop / 64 - 1)] ^= 1;
        fix_crc(c, len);
        flipped++;
        missed += parse_decode(c, len, back, NULL) != SCI_SEIS_E_DATA;
    }
    snprintf(what, sizeof what, "version 7: a set bit after the tokens of "
             "each of %u slices, CRC recomputed: E_DATA", flipped);
    check(flipped > 0 && missed == 0, what);
    /* slice 0 cut after its token k, the rest of its bits cleared: whole
     * when token k starts in the slice's last SCI_SEIS_LAST_TOKEN_BITS
     * bits, else refused */
    if (layout && nslices > 1) {
        sci_huff_code code = {0};
        int rc = sci_huff_build_decoder(lens, info.nsym, &code);
        const sci_seis_codebook cb = {code.lookup, code.first_code,
                                      code.first_index, code.sorted,
                                      code.max_len, NULL};
        const uint32_t nval = 1u << p.bits;
        unsigned wrong = 0, cut = 0;
        uint64_t at = 0;
        for (uint32_t k = 0; !rc && k < first[1]; k++) {
            const uint64_t start = at;
            at += lens[q[k]];
            if (k + 1 != first[1] && k % 7 && start + 200 < SCI_SEIS_SLICE_BITS)
                continue;
            memcpy(c, f, len);
            uint8_t *w = c + info.pkg_off;
            for (uint64_t b = at; b < SCI_SEIS_SLICE_BITS; b++)
                w[8 * (b / 64) + 7 - (b % 64) / 8] &= (uint8_t)~(1u << (7 - b % 8));
            const int whole = start + SCI_SEIS_LAST_TOKEN_BITS >=
                              SCI_SEIS_SLICE_BITS;
            cut++;
            wrong += sci_seis_decode_slice(&cb, nval, &g, w, info.packages,
                                           0, 0, k + 1, NULL, back) !=
                     whole;
        }
        sci_huff_free(&code);
        snprintf(what, sizeof what, "version 7: slice 0 cut after %u of its "
                 "tokens: decoded exactly when the last starts in its last "
                 "%u bits", cut, SCI_SEIS_LAST_TOKEN_BITS);
        check(!rc && cut > 10 && wrong == 0, what);
    }
    check(parse_decode(f, len, back, NULL) == 0 &&
              !memcmp(q, back, sizeof q),
          "version 7: the frame decodes to its indices");
    snprintf(what, sizeof what, "version 7 of dense 14-bit indices: %zu "
             "bytes against version 6's %zu", len, l6);
    check(len < l6 * 0.92, what);
    /* the version a caller asks for in the parameters */
    {
        int ok = 1;
        for (unsigned v = 0; v <= SCI_SEIS_VERSION + 1; v++) {
            sci_seis_params pv = p;
            size_t lv = 0;
            pv.version = v;
            const int want_ok = v == 0 || v >= 3;
            const int rc =
                sci_seis_encode_indices(&pv, q, &g, NULL, 0, c, cap, &lv);
            if (v > SCI_SEIS_VERSION || !want_ok)
                ok &= rc == SCI_SEIS_E_ARG && sci_seis_params_check(&pv);
            else
                ok &= rc == 0 && c[4] == (v ? v : SCI_SEIS_VERSION);
        }
        check(ok, "the parameters' version: 0 writes the newest, 3..7 "
                  "those, 1, 2 and 8 are refused (E_ARG)");
    }
    free(first);
    free(end);
    free(f);
    free(c);
}

/* Version 7's walks with the pair table against the walks without it
 * (the code's definition): from any bit of each slice (a token's start or
 * not), to any stop, with any room for values, on whole and damaged
 * slices of frames of 8 to 16 bits, with zero runs and without: the same
 * verdict, stops, marks and values. */
static void test_pairs(void) {
    static uint16_t q[40000];
    static uint8_t lens[SCI_HUFF_MAX_SYMBOLS];
    static uint64_t pairs[1u << SCI_HUFF_LOOKUP_BITS];
    static float c0[40000], c1[40000];
    static uint16_t q0[40000], q1[40000];
    const uint32_t n = 40000;
    unsigned walks = 0, differ = 0, long_walks = 0, frames = 0;
    for (unsigned t = 0; t < 12; t++) {
        const unsigned bits = 8 + t % 9;
        sci_seis_params p = {100, 400, 1000, bits, 0, 0};
        const uint32_t mid = 1u << (bits - 1);
        sci_seis_grid g = {0.25f, 0.0f, (int32_t)mid, 1};
        const int spread = 1 + (int)(rng() % (t % 2 ? 40 : 3000));
        for (uint32_t i = 0; i < n; i++) {
            int v = (int)mid + (int)(rng() % (2 * spread + 1)) - spread;
            if (t % 3 == 0 && rng() % 4) /* sparse: runs of the zero */
                v = (int)mid;
            q[i] = (uint16_t)(v < 0                ? 0
                              : v >= (1 << bits) ? (1 << bits) - 1
                                                 : v);
        }
        size_t cap = sci_seis_frame_bound(&p, 0), len = 0;
        uint8_t *f = malloc(cap);
        sci_seis_info info;
        sci_huff_code code = {0};
        if (!f || sci_seis_encode_indices(&p, q, &g, NULL, 0, f, cap, &len) ||
            sci_seis_parse(f, len, &info) || info.version != 7 ||
            sci_seis_code_lengths(f, &info, lens) ||
            sci_huff_build_decoder(lens, info.nsym, &code)) {
            differ++;
            free(f);
            continue;
        }
        frames++;
        const uint32_t nval = 1u << bits;
        sci_seis_pair_entries(code.lookup, nval, pairs, 0, 1);
        const sci_seis_codebook plain = {code.lookup, code.first_code,
                                         code.first_index, code.sorted,
                                         code.max_len, NULL};
        sci_seis_codebook paired = plain;
        paired.pairs = pairs;
        uint8_t *w0 = f + info.pkg_off;
        for (uint32_t sl = 0; sl < info.blocks; sl++) {
            uint8_t *ws = w0 + 8 * (size_t)sl * SCI_SEIS_SLICE_WORDS;
            const uint32_t sb =
                sci_seis_slice_bits((uint32_t)info.packages, sl);
            for (unsigned k = 0; k < 6; k++) {
                if (k == 3) /* damaged from here on */
                    ws[rng() % (sb / 8)] ^= (uint8_t)(1u << rng() % 8);
                const uint32_t from = (uint32_t)(rng() % sb);
                const uint32_t before =
                    from + (uint32_t)(rng() % (sb - from + 1));
                const uint32_t at = (uint32_t)(rng() % 100);
                const uint32_t end =
                    at + 1 + (uint32_t)(rng() % (k % 2 ? 50 : n - at - 1));
                uint32_t mp0[4], ma0[4], mp1[4], ma1[4];
                memset(mp0, 0xEE, sizeof mp0);
                memset(ma0, 0xEE, sizeof ma0);
                memcpy(mp1, mp0, sizeof mp1);
                memcpy(ma1, ma0, sizeof ma1);
                memset(c0, 0, sizeof c0);
                memset(c1, 0, sizeof c1);
                memset(q0, 0, sizeof q0);
                memset(q1, 0, sizeof q1);
                const int runs = (int)(rng() % 2);
                sci_seis_walk a, b;
                const int r0 = sci_seis_slice_tokens_marked(
                    &plain, nval, &g, ws, sb, from, before, at, end, c0, q0,
                    runs, &a, 4, mp0, ma0);
                const int r1 = sci_seis_slice_tokens_marked(
                    &paired, nval, &g, ws, sb, from, before, at, end, c1, q1,
                    runs, &b, 4, mp1, ma1);
                walks++;
                long_walks += b.at - at >= 8;
                if (r0 != r1 || a.pos != b.pos || a.last != b.last ||
                    a.at != b.at || memcmp(mp0, mp1, sizeof mp0) ||
                    memcmp(ma0, ma1, sizeof ma0) ||
                    memcmp(c0, c1, sizeof c0) || memcmp(q0, q1, sizeof q0))
                    differ++;
            }
        }
        sci_huff_free(&code);
        free(f);
    }
    char what[200];
    snprintf(what, sizeof what,
             "version 7: %u walks (%u of 8 values or more) over the slices "
             "of %u frames (8 to 16 bits), whole and damaged, with the pair "
             "table as without it",
             walks, long_walks, frames);
    check(frames == 12 && long_walks > 1000 && differ == 0, what);
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
    test_dwt();
    test_roundtrips();
    test_edges();
    test_damage(SCI_SEIS_VERSION);
    test_zero_runs();
    test_slices();
    test_pairs();
    test_damage(6);
    test_damage(5);
    test_damage(4);
    test_damage(3);
    test_runs();
    test_table_code();
    test_table_window();
    test_table_walk();
    test_real(dir);
    printf("%u passed, %u failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}
