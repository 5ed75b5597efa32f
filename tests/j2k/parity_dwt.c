/*
 * CUDA wavelet stage against the C reference, in the manner of dav1d's
 * checkasm: random frames of awkward sizes and layouts through
 * sci_wt_forward and sci_cuda_wt_forward (as planned, and with every level
 * on warps, then on tiles), coefficients compared (5/3 exactly, 9/7 within
 * 1e-6 of each component's largest magnitude); then the
 * reference coefficients through both inverses, samples compared (5/3
 * exactly and equal to the input, 9/7 within one step), the padding between
 * samples left alone and the coefficients left unchanged on the device.
 *
 *   parity-dwt [--seed N] [--quick] [--verbose]
 *
 * --quick: small frames only (for compute-sanitizer and the emulated run).
 * Timing is bench/j2k/bench_dwt.c's job.
 * Exit 0 when all pass, 1 on a failure, 77 when there is no CUDA device.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "codec/j2k/wavelet_frame.h"
#include "cuda/j2k/dwt.h"
#include "cuda/j2k/dwt_tune.h"
#include "tests/common/cudacheck.h"
#include "tests/common/testutil.h"

#define TOL_97 1e-6

enum { PLANAR, PACKED };

typedef struct {
    unsigned comps, depth, sub; /* sub: 444, 422 or 420 */
    sci_dwt_filter filter;
    sci_colour_transform ct;
    int layout;
    int misalign; /* planes at odd addresses and odd row strides */
} config;

static const config configs[] = {
    {1, 8, 444, SCI_DWT_53, SCI_CT_NONE, PLANAR, 0},
    {1, 16, 444, SCI_DWT_97, SCI_CT_NONE, PLANAR, 1},
    {1, 12, 444, SCI_DWT_53, SCI_CT_NONE, PLANAR, 1},
    {1, 10, 444, SCI_DWT_97, SCI_CT_NONE, PLANAR, 0},
    {3, 10, 444, SCI_DWT_53, SCI_CT_RCT, PLANAR, 0},
    {3, 12, 444, SCI_DWT_97, SCI_CT_ICT, PLANAR, 0},
    {3, 8, 444, SCI_DWT_53, SCI_CT_RCT, PACKED, 0},
    {3, 16, 444, SCI_DWT_97, SCI_CT_ICT, PACKED, 0},
    {3, 12, 444, SCI_DWT_53, SCI_CT_RCT, PACKED, 1},
    {3, 8, 444, SCI_DWT_97, SCI_CT_ICT, PACKED, 0},
    {3, 10, 420, SCI_DWT_53, SCI_CT_NONE, PLANAR, 0},
    {3, 12, 422, SCI_DWT_97, SCI_CT_NONE, PLANAR, 0},
    {3, 8, 420, SCI_DWT_97, SCI_CT_NONE, PLANAR, 1},
    {3, 16, 422, SCI_DWT_53, SCI_CT_NONE, PLANAR, 0},
    {4, 8, 444, SCI_DWT_53, SCI_CT_RCT, PACKED, 0},
    {4, 16, 444, SCI_DWT_97, SCI_CT_ICT, PLANAR, 0},
    {3, 16, 444, SCI_DWT_53, SCI_CT_RCT, PLANAR, 0},
    {3, 16, 444, SCI_DWT_53, SCI_CT_NONE, PACKED, 0},
};
#define NCONFIGS (sizeof(configs) / sizeof(configs[0]))

/* A frame in one allocation, planes at offsets, mirrored on the device. */
typedef struct {
    size_t bytes;
    size_t off[SCI_WT_MAX_COMPONENTS];
    ptrdiff_t row[SCI_WT_MAX_COMPONENTS];
    unsigned px[SCI_WT_MAX_COMPONENTS];
} layout;

static void make_geometry(const config *cf, uint32_t w, uint32_t h,
                          unsigned levels, sci_wt_geometry *g) {
    memset(g, 0, sizeof(*g));
    g->width = w;
    g->height = h;
    g->components = cf->comps;
    g->depth = cf->depth;
    for (unsigned c = 0; c < cf->comps; c++) {
        int chroma = c == 1 || c == 2;
        g->dx[c] = chroma && cf->sub != 444 ? 2 : 1;
        g->dy[c] = chroma && cf->sub == 420 ? 2 : 1;
    }
    g->filter = cf->filter;
    g->levels = levels;
    g->ct = cf->ct;
}

static void make_layout(const config *cf, const sci_wt_geometry *g, layout *l) {
    unsigned sb = sci_wt_sample_bytes(g);
    size_t at = cf->misalign ? 1 : 0;
    memset(l, 0, sizeof(*l));
    if (cf->layout == PACKED) {
        unsigned px = sb * g->components;
        ptrdiff_t row = (ptrdiff_t)g->width * px + (rng() % 9) * 2
            + (cf->misalign ? 1 : 0);
        for (unsigned c = 0; c < g->components; c++) {
            l->off[c] = at + c * sb;
            l->row[c] = row;
            l->px[c] = px;
        }
        l->bytes = at + (size_t)row * g->height + 8;
        return;
    }
    for (unsigned c = 0; c < g->components; c++) {
        uint32_t cw = sci_wt_comp_width(g, c), ch = sci_wt_comp_height(g, c);
        ptrdiff_t row = (ptrdiff_t)cw * sb + (rng() % 20) * 2
            + (cf->misalign ? 1 : 0);
        l->off[c] = at;
        l->row[c] = row;
        l->px[c] = sb;
        at += (size_t)row * ch + 3;
    }
    l->bytes = at + 8;
}

static void planes(const layout *l, unsigned n, void *base, sci_wt_plane *p) {
    for (unsigned c = 0; c < n; c++) {
        p[c].data = (uint8_t *)base + l->off[c];
        p[c].row_stride = l->row[c];
        p[c].pixel_stride = l->px[c];
    }
}

static size_t sample_at(const sci_wt_geometry *g, const layout *l, unsigned c,
                        uint32_t x, uint32_t y) {
    return l->off[c] + (size_t)y * l->row[c] + (size_t)x * l->px[c];
}

static uint32_t get_sample(const sci_wt_geometry *g, const uint8_t *buf,
                           size_t at) {
    return sci_wt_sample_bytes(g) == 1 ? buf[at]
        : (uint32_t)(buf[at] | buf[at + 1] << 8);
}

/* Random samples; ramps and extremes now and then, as real video has
 * both and flat random noise alone would miss saturation. */
static void fill_samples(const sci_wt_geometry *g, const layout *l,
                         uint8_t *buf) {
    uint32_t maxv = (1u << g->depth) - 1;
    int mode = (int)(rng() % 4);
    for (unsigned c = 0; c < g->components; c++) {
        uint32_t cw = sci_wt_comp_width(g, c), ch = sci_wt_comp_height(g, c);
        for (uint32_t y = 0; y < ch; y++)
            for (uint32_t x = 0; x < cw; x++) {
                uint32_t v = (uint32_t)rng() & maxv;
                if (mode == 1 && (rng() & 3) == 0)
                    v = (rng() & 1) ? maxv : 0;
                else if (mode == 2)
                    v = (uint32_t)(((uint64_t)(x * 7 + y * 3 + c) * maxv)
                                   / (cw * 7 + ch * 3 + 4)) ^ (uint32_t)(rng() & 3);
                v &= maxv;
                size_t at = sample_at(g, l, c, x, y);
                buf[at] = (uint8_t)v;
                if (sci_wt_sample_bytes(g) == 2)
                    buf[at + 1] = (uint8_t)(v >> 8);
            }
    }
}

typedef struct {
    int cases, failed;
    double max_rel;       /* 9/7 forward */
    unsigned max_lsb;     /* 9/7 inverse */
    size_t off_by_one;    /* 9/7 inverse samples not identical */
} tally;

static int verbose;

static void describe(const sci_wt_geometry *g, const config *cf, char *s,
                     size_t n) {
    snprintf(s, n, "%ux%u c%u d%u %u %s %s L%u %s%s", g->width, g->height,
             g->components, g->depth, cf->sub,
             g->filter == SCI_DWT_53 ? "5/3" : "9/7",
             g->ct == SCI_CT_RCT ? "RCT" : g->ct == SCI_CT_ICT ? "ICT" : "-",
             g->levels, cf->layout == PACKED ? "packed" : "planar",
             cf->misalign ? " odd" : "");
}

static int compare_coeffs(const sci_wt_geometry *g, const void *ref,
                          const void *got, const char *what, const char *name,
                          double *max_rel) {
    for (unsigned c = 0; c < g->components; c++) {
        uint32_t cw = sci_wt_comp_width(g, c), ch = sci_wt_comp_height(g, c);
        size_t o = sci_wt_comp_offset(g, c), n = (size_t)cw * ch;
        if (g->filter == SCI_DWT_53) {
            const int32_t *a = (const int32_t *)ref + o, *b = (const int32_t *)got + o;
            for (size_t i = 0; i < n; i++)
                if (a[i] != b[i]) {
                    printf("FAIL %s: %s comp %u (%zu,%zu): C %d, CUDA %d\n",
                           name, what, c, i % cw, i / cw, a[i], b[i]);
                    return 1;
                }
        } else {
            const float *a = (const float *)ref + o, *b = (const float *)got + o;
            double mag = 0, err = 0;
            size_t worst = 0;
            for (size_t i = 0; i < n; i++) {
                double d = fabs((double)a[i] - b[i]);
                if (fabs(a[i]) > mag)
                    mag = fabs(a[i]);
                if (!(d <= err)) { /* NaN too */
                    err = d;
                    worst = i;
                }
            }
            double rel = err == 0 ? 0 : mag > 0 ? err / mag : INFINITY;
            if (isnan(err))
                rel = INFINITY;
            if (rel > *max_rel)
                *max_rel = rel;
            if (!(rel <= TOL_97)) {
                printf("FAIL %s: %s comp %u (%zu,%zu): C %.9g, CUDA %.9g, "
                       "relative error %.3g\n", name, what, c, worst % cw,
                       worst / cw, a[worst], b[worst], rel);
                return 1;
            }
        }
    }
    return 0;
}

/* Outputs of the two inverses, byte for byte outside the samples (padding
 * must stay as it was) and sample for sample inside. */
static int compare_samples(const sci_wt_geometry *g, const layout *l,
                           const uint8_t *ref, const uint8_t *got,
                           const uint8_t *orig, const uint8_t *background,
                           const char *name, tally *t) {
    uint8_t *is_sample = calloc(l->bytes, 1);
    unsigned sb = sci_wt_sample_bytes(g);
    int bad = 0;
    for (unsigned c = 0; c < g->components && !bad; c++) {
        uint32_t cw = sci_wt_comp_width(g, c), ch = sci_wt_comp_height(g, c);
        for (uint32_t y = 0; y < ch && !bad; y++)
            for (uint32_t x = 0; x < cw; x++) {
                size_t at = sample_at(g, l, c, x, y);
                memset(is_sample + at, 1, sb);
                uint32_t a = get_sample(g, ref, at), b = get_sample(g, got, at);
                if (g->filter == SCI_DWT_53) {
                    uint32_t o = get_sample(g, orig, at);
                    if (a != b || a != o) {
                        printf("FAIL %s: inverse comp %u (%u,%u): input %u, "
                               "C %u, CUDA %u\n", name, c, x, y, o, a, b);
                        bad = 1;
                        break;
                    }
                } else if (a != b) {
                    unsigned d = a > b ? a - b : b - a;
                    if (d > t->max_lsb)
                        t->max_lsb = d;
                    t->off_by_one++;
                    if (d > 1) {
                        printf("FAIL %s: inverse comp %u (%u,%u): C %u, "
                               "CUDA %u\n", name, c, x, y, a, b);
                        bad = 1;
                        break;
                    }
                }
            }
    }
    for (size_t i = 0; i < l->bytes && !bad; i++)
        if (!is_sample[i] && got[i] != background[i]) {
            printf("FAIL %s: inverse wrote byte %zu outside the samples\n",
                   name, i);
            bad = 1;
        }
    free(is_sample);
    return bad;
}

static int run_case(const config *cf, uint32_t w, uint32_t h, unsigned levels,
                    cudaStream_t st, tally *t) {
    sci_wt_geometry g;
    layout l;
    char name[160];
    make_geometry(cf, w, h, levels, &g);
    describe(&g, cf, name, sizeof(name));
    t->cases++;
    const char *why = sci_wt_geometry_check(&g);
    if (why) {
        printf("FAIL %s: geometry refused: %s\n", name, why);
        return 1;
    }
    make_layout(cf, &g, &l);
    size_t n = sci_wt_coeff_count(&g);
    uint8_t *in = malloc(l.bytes), *bg = malloc(l.bytes);
    uint8_t *out_c = malloc(l.bytes), *out_g = malloc(l.bytes);
    void *ref = malloc(n * 4), *got = malloc(n * 4), *tmp = malloc(n * 4);
    if (!in || !bg || !out_c || !out_g || !ref || !got || !tmp) {
        printf("FAIL %s: out of host memory\n", name);
        exit(1);
    }
    for (size_t i = 0; i < l.bytes; i++) {
        in[i] = (uint8_t)rng();
        bg[i] = (uint8_t)rng();
    }
    fill_samples(&g, &l, in);

    void *d_in, *d_out, *d_coef;
    CK(cudaMalloc(&d_in, l.bytes));
    CK(cudaMalloc(&d_out, l.bytes));
    CK(cudaMalloc(&d_coef, n * 4));
    CK(cudaMemcpy(d_in, in, l.bytes, cudaMemcpyHostToDevice));
    sci_wt_plane hin[4], hout[4], din[4], dout[4];
    planes(&l, g.components, in, hin);
    planes(&l, g.components, out_c, hout);
    planes(&l, g.components, d_in, din);
    planes(&l, g.components, d_out, dout);

    int bad = 0, err;
    sci_cuda_wt *wt = NULL;
    if ((err = sci_cuda_wt_create(&wt, &g))) {
        printf("FAIL %s: create: %s\n", name, sci_cuda_error_string(err));
        bad = 1;
        goto out;
    }
    if (sci_wt_forward(test_pool(), &g, hin, ref)) {
        printf("FAIL %s: C forward failed\n", name);
        bad = 1;
        goto out;
    }
    /* The forward as the stage plans it (small levels on tiles), then
     * every level on warps in chunks of 4 rows (the most seams), then
     * every level on tiles. */
    static const struct {
        int rows;
        const char *what;
    } plans[] = {{-1, "forward"}, {4, "forward on warps"},
                 {0, "forward on tiles"}};
    for (size_t pi = 0; pi < sizeof(plans) / sizeof(plans[0]); pi++) {
        if (plans[pi].rows >= 0)
            sci_cuda_wt_tune_strips(wt, plans[pi].rows, 0);
        /* all ones: int -1 or float NaN where nothing was written */
        CK(cudaMemset(d_coef, 0xff, n * 4));
        if ((err = sci_cuda_wt_forward(wt, din, d_coef, st))) {
            printf("FAIL %s: %s: %s\n", name, plans[pi].what,
                   sci_cuda_error_string(err));
            bad = 1;
            goto out;
        }
        CK(cudaStreamSynchronize(st));
        CK(cudaGetLastError());
        CK(cudaMemcpy(got, d_coef, n * 4, cudaMemcpyDeviceToHost));
        if ((bad = compare_coeffs(&g, ref, got, plans[pi].what, name,
                                  &t->max_rel)))
            goto out;
    }

    /* inverse, both from the reference coefficients */
    memcpy(tmp, ref, n * 4);
    memcpy(out_c, bg, l.bytes);
    CK(cudaMemcpy(d_out, bg, l.bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_coef, ref, n * 4, cudaMemcpyHostToDevice));
    if (sci_wt_inverse(test_pool(), &g, tmp, hout)) {
        printf("FAIL %s: C inverse failed\n", name);
        bad = 1;
        goto out;
    }
    if ((err = sci_cuda_wt_inverse(wt, d_coef, dout, st))) {
        printf("FAIL %s: inverse: %s\n", name, sci_cuda_error_string(err));
        bad = 1;
        goto out;
    }
    CK(cudaStreamSynchronize(st));
    CK(cudaGetLastError());
    CK(cudaMemcpy(out_g, d_out, l.bytes, cudaMemcpyDeviceToHost));
    if ((bad = compare_samples(&g, &l, out_c, out_g, in, bg, name, t)))
        goto out;
    CK(cudaMemcpy(got, d_coef, n * 4, cudaMemcpyDeviceToHost));
    if (memcmp(got, ref, n * 4)) {
        printf("FAIL %s: inverse changed its coefficients\n", name);
        bad = 1;
        goto out;
    }
    if (verbose)
        printf("ok   %s\n", name);
out:
    sci_cuda_wt_destroy(wt);
    CK(cudaFree(d_in));
    CK(cudaFree(d_out));
    CK(cudaFree(d_coef));
    free(in);
    free(bg);
    free(out_c);
    free(out_g);
    free(ref);
    free(got);
    free(tmp);
    t->failed += bad;
    return bad;
}

typedef struct {
    uint32_t w, h;
    int quick;          /* in --quick too */
    int big;            /* only a few configurations and levels */
} size_case;

static const size_case sizes[] = {
    {1, 1, 1, 0}, {1, 7, 1, 0}, {9, 1, 1, 0}, {2, 2, 1, 0}, {3, 5, 1, 0},
    {17, 9, 1, 0}, {5, 70, 1, 0}, {67, 33, 1, 0}, {64, 64, 0, 0},
    {130, 67, 1, 0}, {200, 90, 1, 0}, {127, 129, 0, 0}, {300, 280, 0, 0},
    {333, 2, 0, 0}, {1, 300, 0, 0},
    {1920, 1081, 0, 1}, {3840, 2160, 0, 2}, {65535, 3, 0, 1},
    {3, 4099, 0, 1},
};
static const unsigned level_set[] = {0, 1, 2, 5, 20, 32};
static const unsigned level_quick[] = {0, 1, 3, 32};

int main(int argc, char **argv) {
    uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    int quick = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--verbose"))
            verbose = 1;
        else {
            fprintf(stderr, "usage: %s [--seed N] [--quick] [--verbose]\n", argv[0]);
            return 2;
        }
    }
    REQUIRE_CUDA_DEVICE();
    printf("parity-dwt: seed %llu%s\n", (unsigned long long)seed,
           quick ? " (quick)" : "");
    rng_state = seed;
    cudaStream_t st;
    CK(cudaStreamCreate(&st));

    int passed = 0, failed = 0;
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        const size_case *sc = &sizes[s];
        if (quick && !sc->quick)
            continue;
        tally t = {0};
        int has97 = 0;
        for (size_t c = 0; c < NCONFIGS; c++) {
            const config *cf = &configs[c];
            /* big frames: a few configurations, the 4K one as in bench-dwt */
            if (sc->big == 1 && c % 4 != 1 && c != 4 && c != 10)
                continue;
            if (sc->big == 2 && c != 4 && c != 5)
                continue;
            const unsigned *ls = quick ? level_quick : level_set;
            size_t nl = quick ? sizeof(level_quick) / sizeof(*ls)
                              : sizeof(level_set) / sizeof(*ls);
            for (size_t li = 0; li < nl; li++) {
                if (sc->big && ls[li] != 5 && !(sc->big == 1 && ls[li] == 32))
                    continue;
                if (cf->filter == SCI_DWT_97)
                    has97 = 1;
                run_case(cf, sc->w, sc->h, ls[li], st, &t);
            }
        }
        passed += t.cases - t.failed;
        failed += t.failed;
        printf("%-5s %5ux%-5u %4d cases", t.failed ? "FAIL" : "ok", sc->w, sc->h,
               t.cases);
        if (t.failed)
            printf(", %d failed", t.failed);
        if (has97)
            printf("; 9/7: forward max rel err %.2e, inverse %zu samples "
                   "differ (max %u LSB)", t.max_rel, t.off_by_one, t.max_lsb);
        printf("\n");
        fflush(stdout);
    }
    CK(cudaStreamDestroy(st));
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
