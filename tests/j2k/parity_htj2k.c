/*
 * CUDA HT block coding (cuda/j2k/htj2k.h) against the C encoder, in the manner
 * of dav1d's checkasm: wavelet coefficients of random frames (sci_wt_forward
 * on noise, natural-looking and sparse images) of awkward sizes, 1, 3 and 4
 * components, subsampling, levels 0..6, code-blocks from 4x4 to 64x64 and
 * rectangular, both filters, bitrate targets on and off, PLT segments in
 * every other case (their offsets shift every packet body), coded by
 * sci_htj2k_encode and by sci_cuda_ht_encode (coefficients uploaded with
 * cudaMemcpy); the codestreams must be identical.  Each handle codes a
 * second frame (the coefficients negated), so reuse is covered too.  On a
 * difference the first differing byte is printed, and the first differing
 * code-block (against codec/j2k/ht_block.c on the same quantization).
 *
 *   parity-htj2k [--seed N] [--quick] [--verbose]
 *
 * --quick: small frames only (the emulated run in CI, compute-sanitizer).
 * Exit 0 when all pass, 1 on a failure, 77 when there is no CUDA device.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "codec/j2k/ht_block.h"
#include "codec/j2k/htj2k.h"
#include "codec/j2k/wavelet_frame.h"
#include "cuda/j2k/dwt.h"
#include "tests/common/cudacheck.h"
#include "cuda/j2k/htj2k.h"
#include "tests/common/testutil.h"

enum { NOISE, NATURAL, SPARSE };

typedef struct {
    uint32_t w, h;
    unsigned comps, depth, sub; /* sub: 444, 422, 420 */
    sci_dwt_filter filter;
    sci_colour_transform ct;
    unsigned levels, cbw, cbh; /* log2 block sides */
    double qstep, bitrate;
    int content;
    int quick;
} tcase;

#define F53 SCI_DWT_53
#define F97 SCI_DWT_97
#define CTN SCI_CT_NONE
#define RCT SCI_CT_RCT
#define ICT SCI_CT_ICT

static const tcase cases[] = {
    {1, 1, 1, 8, 444, F53, CTN, 0, 6, 6, 0, 0, NOISE, 1},
    {1, 1, 1, 8, 444, F97, CTN, 0, 2, 2, 1.0 / 256, 0, NOISE, 1},
    {1, 33, 1, 10, 444, F53, CTN, 3, 2, 2, 0, 0, NOISE, 1},
    {33, 1, 1, 12, 444, F97, CTN, 3, 2, 2, 1.0 / 512, 0, NATURAL, 1},
    {1, 33, 3, 8, 444, F97, ICT, 2, 4, 4, 1.0 / 128, 0, NOISE, 1},
    {67, 41, 1, 8, 444, F53, CTN, 2, 4, 4, 0, 0, NOISE, 1},
    {67, 41, 1, 12, 444, F97, CTN, 2, 5, 3, 1.0 / 1024, 0, NATURAL, 1},
    {67, 41, 3, 10, 420, F53, CTN, 1, 3, 5, 0, 0, SPARSE, 1},
    {67, 41, 3, 16, 444, F97, ICT, 4, 6, 6, 1e-6, 0, NOISE, 1},
    {67, 41, 1, 16, 444, F53, CTN, 6, 2, 2, 0, 0, NOISE, 1},
    {257, 129, 3, 8, 420, F53, CTN, 5, 6, 6, 0, 0, NATURAL, 1},
    {257, 129, 3, 12, 422, F97, CTN, 5, 5, 5, 1.0 / 256, 2.0, NATURAL, 1},
    {257, 129, 3, 10, 444, F53, RCT, 6, 2, 2, 0, 0, NOISE, 1},
    {257, 129, 3, 8, 444, F97, ICT, 3, 10, 2, 1.0 / 256, 0, NATURAL, 1},
    {257, 129, 3, 12, 444, F97, ICT, 4, 4, 8, 1.0 / 4096, 0, SPARSE, 1},
    {257, 129, 1, 16, 444, F53, CTN, 0, 6, 6, 0, 0, NOISE, 1},
    {257, 129, 4, 12, 444, F53, RCT, 3, 4, 6, 0, 0, SPARSE, 1},
    {257, 129, 1, 8, 444, F97, CTN, 5, 6, 6, 2.0, 0, NATURAL, 1},
    {257, 129, 1, 10, 444, F97, CTN, 5, 6, 6, 1.0 / 256, 0.3, NATURAL, 1},
    {129, 257, 3, 8, 420, F97, CTN, 6, 6, 6, 1.0 / 256, 4.0, NOISE, 1},
    {1920, 1081, 3, 10, 422, F97, CTN, 5, 6, 6, 1.0 / 256, 1.0, NATURAL, 0},
    {1920, 1081, 3, 8, 444, F53, RCT, 5, 6, 6, 0, 0, NATURAL, 0},
    {1920, 1081, 1, 12, 444, F97, CTN, 6, 6, 5, 1.0 / 2048, 0, NOISE, 0},
    {3840, 2160, 3, 12, 444, F53, RCT, 5, 6, 6, 0, 0, NATURAL, 0},
    {3840, 2160, 3, 12, 444, F97, ICT, 5, 6, 6, 1.0 / 256, 1.0, NATURAL, 0},
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static int verbose;

/* Smooth gradients, a few edges and some texture, or noise, or flat with
 * sparse spots (most blocks all zero). */
static void fill(const tcase *t, const sci_wt_geometry *g, uint8_t **buf) {
    uint32_t maxv = (1u << g->depth) - 1;
    unsigned sb = sci_wt_sample_bytes(g);
    for (unsigned c = 0; c < g->components; c++) {
        uint32_t cw = sci_wt_comp_width(g, c), ch = sci_wt_comp_height(g, c);
        double ph = (double)(rng() % 1000) / 100;
        for (uint32_t y = 0; y < ch; y++)
            for (uint32_t x = 0; x < cw; x++) {
                double v;
                if (t->content == NOISE) {
                    v = (double)(rng() & maxv);
                } else if (t->content == SPARSE) {
                    v = maxv / 2.0;
                    if ((rng() & 255) == 0)
                        v = (double)(rng() & maxv);
                } else {
                    double fx = (double)x / cw, fy = (double)y / ch;
                    v = 0.25 + 0.4 * fx * fy + 0.1 * sin(6.0 * fx + ph + c);
                    if ((x / 37 + y / 23) % 5 == 0)
                        v += 0.2; /* edges */
                    v += 0.05 * sin(x * 0.9 + ph) * cos(y * 1.3); /* texture */
                    v = v * maxv + (double)(rng() % 5) - 2;
                }
                if (v < 0)
                    v = 0;
                if (v > maxv)
                    v = maxv;
                uint32_t s = (uint32_t)v;
                size_t at = ((size_t)y * cw + x) * sb;
                buf[c][at] = (uint8_t)s;
                if (sb == 2)
                    buf[c][at + 1] = (uint8_t)(s >> 8);
            }
    }
}

/* Block i as the C encoder codes it (quantization of code_blocks()). */
static long ref_block(const sci_htj2k_enc *e, const sci_wt_geometry *g,
                      const void *coeffs, size_t i, uint8_t *out, size_t cap) {
    static uint32_t sm[4096];
    sci_htj2k_block_info b;
    sci_htj2k_block_get(e, i, &b);
    uint32_t cw = sci_wt_comp_width(g, b.comp), limit = (1u << b.mb) - 1;
    float inv = sci_htj2k_block_inv_step(e, i);
    size_t base = sci_htj2k_comp_offset(e, b.comp) + (size_t)b.y0 * cw + b.x0;
    for (uint32_t y = 0; y < b.h; y++)
        for (uint32_t x = 0; x < b.w; x++) {
            size_t at = base + (size_t)y * cw + x;
            uint32_t q;
            int neg;
            if (g->filter == SCI_DWT_97) {
                float v = ((const float *)coeffs)[at], a = fabsf(v) * inv;
                q = a >= (float)limit ? limit : (uint32_t)a;
                neg = v < 0;
            } else {
                int32_t v = ((const int32_t *)coeffs)[at];
                q = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
                neg = v < 0;
            }
            sm[y * b.w + x] = q ? q | (neg ? SCI_HT_SIGN : 0) : 0;
        }
    return sci_ht_encode_block(sci_htj2k_tables(e), sm, b.w, b.h, b.w, out, cap);
}

static void diagnose(const sci_htj2k_enc *e, const sci_wt_geometry *g,
                     const void *coeffs, const sci_cuda_ht *h) {
    const long *len;
    const uint8_t *bytes;
    const size_t *off;
    sci_cuda_ht_last_blocks(h, &len, &bytes, &off);
    size_t n = sci_htj2k_block_count(e);
    static uint8_t ref[70000];
    for (size_t i = 0; i < n; i++) {
        long l = ref_block(e, g, coeffs, i, ref, sizeof(ref));
        int same = l == len[i] && (l <= 0 || !memcmp(ref, bytes + off[i], (size_t)l));
        if (same)
            continue;
        sci_htj2k_block_info b;
        sci_htj2k_block_get(e, i, &b);
        long k = 0;
        while (k < l && k < len[i] && ref[k] == bytes[off[i] + k])
            k++;
        printf("  first differing block %zu: comp %u at (%u,%u) %ux%u mb %u: "
               "C %ld bytes, CUDA %ld, first difference at byte %ld\n",
               i, b.comp, b.x0, b.y0, b.w, b.h, b.mb, l, len[i], k);
        return;
    }
    printf("  every block equal: the difference is in tier-2\n");
}

static int compare(const uint8_t *a, size_t na, const uint8_t *b, size_t nb,
                   const char *name, const char *what) {
    if (na == nb && !memcmp(a, b, na))
        return 1;
    size_t k = 0;
    while (k < na && k < nb && a[k] == b[k])
        k++;
    printf("FAIL %s %s: C %zu bytes, CUDA %zu, first difference at %zu\n",
           name, what, na, nb, k);
    return 0;
}

static int run_case(const tcase *t, int idx) {
    sci_wt_geometry g;
    memset(&g, 0, sizeof(g));
    g.width = t->w;
    g.height = t->h;
    g.components = t->comps;
    g.depth = t->depth;
    for (unsigned c = 0; c < t->comps; c++) {
        int chroma = c == 1 || c == 2;
        g.dx[c] = chroma && t->sub != 444 ? 2 : 1;
        g.dy[c] = chroma && t->sub == 420 ? 2 : 1;
    }
    g.filter = t->filter;
    g.levels = t->levels;
    g.ct = t->ct;
    sci_htj2k_params p;
    sci_htj2k_params_default(&p);
    p.cb_w_log2 = t->cbw;
    p.cb_h_log2 = t->cbh;
    if (t->filter == F97)
        p.qstep = t->qstep;
    p.bitrate = t->bitrate;
    p.progression = (sci_j2k_progression)(rng() % 5);
    p.jph = (int)(rng() & 1);
    p.plt = idx % 2;

    char name[160];
    snprintf(name, sizeof(name), "#%d %ux%u c%u d%u %u %s %s L%u cb%ux%u%s%s%s",
             idx, t->w, t->h, t->comps, t->depth, t->sub,
             t->filter == F53 ? "5/3" : "9/7",
             t->ct == RCT ? "RCT" : t->ct == ICT ? "ICT" : "-", t->levels,
             1u << t->cbw, 1u << t->cbh, t->bitrate > 0 ? " rate" : "",
             t->content == NOISE ? " noise" : t->content == SPARSE ? " sparse" : "",
             p.plt ? " plt" : "");
    const char *why = sci_htj2k_check(&g, &p);
    if (why) {
        printf("FAIL %s: not codable: %s\n", name, why);
        return 0;
    }

    unsigned sb = sci_wt_sample_bytes(&g);
    uint8_t *smp[SCI_WT_MAX_COMPONENTS];
    sci_wt_plane pl[SCI_WT_MAX_COMPONENTS];
    for (unsigned c = 0; c < g.components; c++) {
        uint32_t cw = sci_wt_comp_width(&g, c), ch = sci_wt_comp_height(&g, c);
        smp[c] = malloc((size_t)cw * ch * sb);
        pl[c].data = smp[c];
        pl[c].row_stride = (ptrdiff_t)cw * sb;
        pl[c].pixel_stride = sb;
    }
    fill(t, &g, smp);
    size_t nco = sci_wt_coeff_count(&g);
    void *coeffs = malloc(nco * 4);
    if (sci_wt_forward(test_pool(), &g, pl, coeffs) < 0) {
        printf("FAIL %s: sci_wt_forward\n", name);
        return 0;
    }
    sci_htj2k_enc *ec = sci_htj2k_enc_new(&g, &p, test_pool());
    sci_htj2k_enc *eg = sci_htj2k_enc_new(&g, &p, test_pool());
    if (!ec || !eg) {
        printf("FAIL %s: sci_htj2k_enc_new\n", name);
        return 0;
    }
    size_t cap = sci_htj2k_max_bytes(ec);
    /* frame 0 into pageable memory, frame 1 into pinned memory: the two
     * ways the coded blocks reach out (staged, or straight from the device) */
    uint8_t *oc = malloc(cap), *op = malloc(cap), *og = op, *pinned = NULL;
    CK(cudaMallocHost((void **)&pinned, cap));
    void *d = NULL;
    CK(cudaMalloc(&d, nco * 4));
    sci_cuda_ht *h = NULL;
    int err = sci_cuda_ht_create(&h, eg, &g, &p);
    int ok = 1;
    if (err) {
        printf("FAIL %s: sci_cuda_ht_create: %s\n", name, sci_cuda_error_string(err));
        ok = 0;
    }
    for (int frame = 0; frame < 2 && ok; frame++) {
        if (frame == 1) {
            /* a second frame through the same handles */
            for (size_t i = 0; i < nco; i++) {
                if (g.filter == F97)
                    ((float *)coeffs)[i] = -((float *)coeffs)[i];
                else
                    ((int32_t *)coeffs)[i] = -((int32_t *)coeffs)[i];
            }
        }
        CK(cudaMemcpy(d, coeffs, nco * 4, cudaMemcpyHostToDevice));
        size_t nc = sci_htj2k_encode(ec, coeffs, oc, cap), ng = 0;
        og = frame == 1 ? pinned : op;
        memset(og, 0xa5, cap);
        err = sci_cuda_ht_encode(h, d, og, cap, &ng, NULL);
        if (!nc) {
            printf("FAIL %s: sci_htj2k_encode failed\n", name);
            ok = 0;
            break;
        }
        if (err) {
            printf("FAIL %s frame %d: sci_cuda_ht_encode: %s\n", name, frame,
                   sci_cuda_error_string(err));
            ok = 0;
            break;
        }
        char what[32];
        snprintf(what, sizeof(what), "frame %d", frame);
        if (!compare(oc, nc, og, ng, name, what)) {
            ok = 0;
            if (sci_htj2k_last_qstep(ec) != sci_htj2k_last_qstep(eg))
                printf("  qstep C %g, CUDA %g\n", sci_htj2k_last_qstep(ec),
                       sci_htj2k_last_qstep(eg));
            else
                diagnose(ec, &g, coeffs, h);
            break;
        }
        if (verbose || frame == 0) {
            sci_cuda_ht_times tm;
            sci_cuda_ht_get_times(h, &tm);
            printf("ok   %s: %zu bytes, %.3f bpp, qstep %g, %zu blocks, %d trials\n",
                   name, nc, nc * 8.0 / ((double)t->w * t->h),
                   sci_htj2k_last_qstep(ec), sci_htj2k_block_count(ec), tm.trials);
        }
    }
    sci_cuda_ht_destroy(h);
    CK(cudaFree(d));
    sci_htj2k_enc_free(ec);
    sci_htj2k_enc_free(eg);
    free(oc);
    free(op);
    CK(cudaFreeHost(pinned));
    free(coeffs);
    for (unsigned c = 0; c < g.components; c++)
        free(smp[c]);
    return ok;
}

int main(int argc, char **argv) {
    int quick = 0;
    uint64_t seed = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--verbose"))
            verbose = 1;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else {
            fprintf(stderr, "usage: %s [--seed N] [--quick] [--verbose]\n", argv[0]);
            return 2;
        }
    }
    REQUIRE_CUDA_DEVICE();
    rng_state = seed;
    printf("seed %llu\n", (unsigned long long)seed);
    for (size_t i = 0; i < NCASES; i++) {
        if (quick && !cases[i].quick)
            continue;
        check(run_case(&cases[i], (int)i), "case");
    }
    printf("%u passed, %u failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}
