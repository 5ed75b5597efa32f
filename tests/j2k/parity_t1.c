/*
 * CUDA Tier-1 of JPEG 2000 Part 1 (cuda/j2k/t1.h) against sci_t1_encode, in the
 * manner of dav1d's checkasm.  Every block must come out exactly as the C
 * coder makes it from the same quantized samples: passes and zero planes,
 * codeword length and bytes, pass lengths, pass distortions (bit for bit),
 * segment ends, raw passes, decision counts.
 *
 *   - block tables: every shape (4x4 .. 64x64, rectangular, 1024x4 and
 *     4x1024, 5x819 (the widest state), partial blocks down to 1x1), every
 *     orientation, depths 1..30, every one of the 64 style combinations,
 *     noise, smooth, sparse, geometric, propagation-chain, checkerboard,
 *     full-magnitude, single-sample and all-zero data, 5/3 (int32) and 9/7
 *     (float, quantized with a step) coefficients at random places and
 *     strides; each handle codes a second frame (negated), and tables
 *     split into several batches; the tables' frames take the MQ
 *     kernel's layouts in turn (the default, one block a warp, heavy
 *     warps then 2, 3 or 5 blocks a warp, 32 a warp);
 *   - real frames: sci_wt_forward of random images of awkward sizes, both
 *     filters, 0..5 levels, several block sizes and styles, through
 *     sci_cuda_t1_create: each block against sci_htj2k_block_quantize +
 *     sci_t1_encode, and the whole codestream of sci_cuda_t1_encode
 *     against sci_htj2k_encode's (every other frame with PLT);
 *   - a 5/3 coefficient beyond its band's range: SCI_CUDA_T1_ERR_BLOCK,
 *     and the handle still works;
 *   - codeword slots capped so that blocks fall back to the host coder;
 *   - frames in flight: two handles taking turns, each frame submitted
 *     before the one before it is finished and written.
 *
 *   parity-t1 [--seed N] [--quick] [--small] [--verbose]
 *   parity-t1 --bench [--pgm FILE] [--size W H] [--lanes N] [--heavy N]
 *             [--runs N]
 *
 * --quick: small blocks and frames (the emulated run in CI,
 * compute-sanitizer).  --small: every shape once and the small frames
 * (compute-sanitizer's racecheck).  --bench: Tier-1 of a W x H (4096 x 2160) 8-bit grey
 * image (a PGM, tiled by mirroring, or a synthetic natural-looking one),
 * 3-level 5/3, 64x64 blocks, style 0; prints stage medians.
 * Exit 0 when all pass, 1 on a failure, 77 when there is no CUDA device.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "codec/j2k/htj2k.h"
#include "codec/j2k/t1.h"
#include "codec/j2k/wavelet_frame.h"
#include "cuda/j2k/dwt.h"
#include "cuda/j2k/t1.h"
#include "tests/common/cudacheck.h"
#include "tests/common/testutil.h"

static int verbose;

/* ---- comparing one block --------------------------------------------------- */

typedef struct {
    unsigned blocks, passes, fallbacks;
    unsigned long long symbols;
    unsigned bad_struct, bad_bytes, bad_plen, bad_dist, bad_seg, bad_sym;
    unsigned reported;
} stats;

static void compare_block(stats *st, const char *where, size_t i,
                          const sci_t1_result *a, const uint8_t *ab,
                          const sci_t1_result *b, const uint8_t *bb) {
    int s = a->passes != b->passes || a->zero_planes != b->zero_planes;
    int by = a->len != b->len || (a->len && memcmp(ab, bb, a->len));
    int pl = 0, di = 0, sg = a->segments != b->segments, sy = a->symbols != b->symbols;
    unsigned first = ~0u;
    for (unsigned n = 0; !s && n < a->passes; n++) {
        int e = 0;
        if (a->pass_len[n] != b->pass_len[n])
            pl = e = 1;
        if (memcmp(&a->pass_dist[n], &b->pass_dist[n], sizeof(double)))
            di = e = 1;
        if (a->pass_term[n] != b->pass_term[n] || a->pass_raw[n] != b->pass_raw[n])
            sg = e = 1;
        if (a->pass_symbols[n] != b->pass_symbols[n])
            sy = e = 1;
        if (e && first == ~0u)
            first = n;
    }
    st->blocks++;
    st->passes += a->passes;
    st->symbols += a->symbols;
    st->bad_struct += s;
    st->bad_bytes += by;
    st->bad_plen += pl;
    st->bad_dist += di;
    st->bad_seg += sg;
    st->bad_sym += sy;
    if ((s || by || pl || di || sg || sy) && st->reported++ < 8) {
        size_t k = 0;
        while (k < a->len && k < b->len && ab[k] == bb[k])
            k++;
        printf("  %s block %zu: C %u passes %u zero %zu bytes, CUDA %u passes %u zero "
               "%zu bytes, first byte difference at %zu", where, i, a->passes,
               a->zero_planes, a->len, b->passes, b->zero_planes, b->len, k);
        if (first != ~0u)
            printf("; pass %u: len %zu/%zu dist %.17g/%.17g term %u/%u raw %u/%u "
                   "symbols %lu/%lu", first, a->pass_len[first], b->pass_len[first],
                   a->pass_dist[first], b->pass_dist[first], a->pass_term[first],
                   b->pass_term[first], a->pass_raw[first], b->pass_raw[first],
                   a->pass_symbols[first], b->pass_symbols[first]);
        printf("\n");
    }
}

static void report(const stats *st, const char *name) {
    char what[240];
    snprintf(what, sizeof what, "%s: %u blocks, %u passes, %llu decisions: passes and "
             "zero planes", name, st->blocks, st->passes, st->symbols);
    check(st->bad_struct == 0 && st->blocks > 0, what);
    if (!st->bad_struct && st->blocks)
        printf("ok   %s\n", what);
    snprintf(what, sizeof what, "%s: codeword length and bytes", name);
    check(st->bad_bytes == 0, what);
    snprintf(what, sizeof what, "%s: pass lengths", name);
    check(st->bad_plen == 0, what);
    snprintf(what, sizeof what, "%s: pass distortions, bit for bit", name);
    check(st->bad_dist == 0, what);
    snprintf(what, sizeof what, "%s: segment ends, raw passes, segments", name);
    check(st->bad_seg == 0, what);
    snprintf(what, sizeof what, "%s: decision counts", name);
    check(st->bad_sym == 0, what);
}

/* ---- block tables ------------------------------------------------------------ */

enum { NOISE, SMOOTH, SPARSE, GEOM, CHAIN, CHECKER, FULL, SINGLE, ZERO, NKINDS };
static const char *kind_name[] = {"noise", "smooth", "sparse", "geometric", "chain",
                                  "checker", "full", "single", "zero"};

typedef struct {
    unsigned w, h, band, nbp, style, kind;
} bspec;

/* Magnitudes of one block (below 2^nbp; 9/7 adds clamped ones). */
static void gen_block(const bspec *b, uint32_t *mag, uint8_t *neg) {
    unsigned n = b->w * b->h;
    uint32_t full = (uint32_t)((1ull << b->nbp) - 1);
    double ph = (double)(rng() % 1000) / 100;
    unsigned seed = (unsigned)(rng() % n);
    for (unsigned i = 0; i < n; i++) {
        unsigned x = i % b->w, y = i / b->w;
        uint32_t m = (uint32_t)rng() & full;
        unsigned sh = (unsigned)(rng() % b->nbp);
        switch (b->kind) {
        case NOISE:
            break;
        case SMOOTH: {
            double v = (sin(x * 0.21 + ph) + cos(y * 0.17 - ph) + 2) / 4;
            m = (uint32_t)(v * (full >> (b->nbp > 4 ? 2 : 0)));
            break;
        }
        case SPARSE:
            m = rng() % 16 ? 0 : m >> sh;
            break;
        case GEOM:
            m >>= sh;
            break;
        case CHAIN:
            /* lower bits mostly 1: significance spreads through the SPP */
            m = i == seed ? full : (full >> 1) & ~(uint32_t)(rng() & rng() & full);
            break;
        case CHECKER:
            m = (x + y) & 1 ? full >> (sh / 2) : 0;
            break;
        case FULL:
            m = full;
            break;
        case SINGLE:
            m = i == seed ? (rng() & 1 ? full : (m | 1)) : 0;
            break;
        default:
            m = 0;
        }
        mag[i] = m & full;
        neg[i] = (uint8_t)(rng() & 1);
    }
}

static unsigned pick_style(void) {
    return (unsigned)(rng() % 64);
}

/* Codes a table of blocks on the GPU and with sci_t1_encode, twice (the
 * second time negated), and compares.  irrev: float coefficients with a
 * quantization step.  batch: forces batches of about that many pair bytes
 * (0: default).  slot: caps the codeword slots (0: none). */
static void run_table(stats *st, const char *name, const bspec *bs, size_t nb,
                      int irrev, size_t batch, size_t slot) {
    sci_cuda_t1_block *tb = calloc(nb, sizeof(*tb));
    size_t total = 0;
    for (size_t i = 0; i < nb; i++) {
        unsigned pad = (unsigned)(rng() % 4);
        tb[i].base = total + rng() % 3;
        tb[i].stride = bs[i].w + pad;
        tb[i].inv_step = irrev ? (float)(0.25 + (double)(rng() % 1000) / 100) : 1.0f;
        tb[i].p.w = bs[i].w;
        tb[i].p.h = bs[i].h;
        tb[i].p.band = bs[i].band;
        tb[i].p.nbp = bs[i].nbp;
        tb[i].p.style = bs[i].style;
        total = tb[i].base + (size_t)tb[i].stride * bs[i].h + 3;
    }
    uint32_t *cf = calloc(total, 4);
    static uint32_t mag[4096], sm[4096];
    static uint8_t neg[4096];
    for (size_t i = 0; i < nb; i++) {
        gen_block(&bs[i], mag, neg);
        for (unsigned y = 0; y < bs[i].h; y++)
            for (unsigned x = 0; x < bs[i].w; x++) {
                size_t at = tb[i].base + (size_t)y * tb[i].stride + x;
                uint32_t m = mag[y * bs[i].w + x];
                int ng = neg[y * bs[i].w + x];
                if (irrev) {
                    /* a value inside [m, m + 1) steps, now and then one
                     * far beyond the range (clamped) */
                    double v = (m + (double)(rng() % 1000) / 1000) / tb[i].inv_step;
                    if (rng() % 64 == 0)
                        v *= 4;
                    float f = (float)(ng ? -v : v);
                    memcpy(&cf[at], &f, 4);
                } else {
                    int32_t v = ng ? -(int32_t)m : (int32_t)m;
                    memcpy(&cf[at], &v, 4);
                }
            }
    }
    sci_cuda_t1_test_batch_bytes(batch);
    sci_cuda_t1 *h = NULL;
    int err = sci_cuda_t1_create_blocks(&h, tb, nb, irrev);
    sci_cuda_t1_test_batch_bytes(0);
    if (err) {
        printf("FAIL %s: sci_cuda_t1_create_blocks: %s\n", name, sci_cuda_error_string(err));
        check_failed++;
        free(tb);
        free(cf);
        return;
    }
    if (slot)
        sci_cuda_t1_set_slot_limit(h, slot);
    sci_cuda_t1_set_timing(h, 1);
    void *d = NULL;
    CK(cudaMalloc(&d, total * 4));
    static uint8_t ref[1 << 20];
    sci_t1_coder *coder = malloc(sizeof(*coder));
    /* the MQ kernel's layouts in turn (a table's two frames take two):
     * the default, then fixed ones; the codewords must not depend on it */
    static const int layouts[][2] = {{-1, -1}, {0, 1}, {2, 2}, {0, 32}, {7, 5}, {1, 3}};
    static unsigned layout_turn;
    for (int frame = 0; frame < 2; frame++) {
        const int *lay = layouts[layout_turn++ % (sizeof layouts / sizeof layouts[0])];
        if (lay[0] >= 0) {
            sci_cuda_t1_set_mq_heavy(h, (unsigned)lay[0]);
            sci_cuda_t1_set_mq_lanes(h, (unsigned)lay[1]);
        }
        if (frame == 1)
            for (size_t k = 0; k < total; k++) {
                if (irrev) {
                    float f;
                    memcpy(&f, &cf[k], 4);
                    f = -f;
                    memcpy(&cf[k], &f, 4);
                } else {
                    cf[k] = 0u - cf[k];
                }
            }
        CK(cudaMemcpy(d, cf, total * 4, cudaMemcpyHostToDevice));
        err = sci_cuda_t1_code(h, d, NULL);
        if (err) {
            printf("FAIL %s: sci_cuda_t1_code: %s\n", name, sci_cuda_error_string(err));
            check_failed++;
            break;
        }
        sci_cuda_t1_times tm;
        sci_cuda_t1_get_times(h, &tm);
        st->fallbacks += tm.fallbacks;
        const uint8_t *bytes;
        const size_t *off;
        sci_cuda_t1_bytes(h, &bytes, &off);
        const sci_j2k_block_passes *bp = sci_cuda_t1_passes(h);
        for (size_t i = 0; i < nb; i++) {
            unsigned w = bs[i].w, hh = bs[i].h;
            uint32_t limit = (1u << bs[i].nbp) - 1;
            for (unsigned y = 0; y < hh; y++)
                for (unsigned x = 0; x < w; x++) {
                    size_t at = tb[i].base + (size_t)y * tb[i].stride + x;
                    uint32_t q;
                    int ng;
                    if (irrev) {
                        float v, a;
                        memcpy(&v, &cf[at], 4);
                        a = fabsf(v) * tb[i].inv_step;
                        q = a >= (float)limit ? limit : (uint32_t)a;
                        ng = v < 0;
                    } else {
                        int32_t v;
                        memcpy(&v, &cf[at], 4);
                        q = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
                        ng = v < 0;
                    }
                    sm[y * w + x] = q ? q | (ng ? SCI_T1_SIGN : 0) : 0;
                }
            sci_t1_result a, b;
            size_t cap = sci_t1_max_bytes(w, hh, bs[i].nbp);
            if (cap > sizeof ref)
                cap = sizeof ref;
            if (sci_t1_encode(coder, &tb[i].p, sm, w, ref, cap, &a)) {
                printf("FAIL %s: sci_t1_encode refused block %zu\n", name, i);
                check_failed++;
                continue;
            }
            sci_cuda_t1_result(h, i, &b);
            /* the passes view agrees with the result */
            if (bp[i].passes != b.passes || bp[i].zero_planes != b.zero_planes ||
                (b.passes && (bp[i].pass_len[b.passes - 1] != b.len ||
                              bp[i].pass_dist != &bp[i].pass_dist[0])))
                st->bad_struct++;
            char where[160];
            snprintf(where, sizeof where,
                     "%s frame %d (%ux%u band %u nbp %u style 0x%02x %s; MQ layout %d,%d)",
                     name, frame, w, hh, bs[i].band, bs[i].nbp, bs[i].style,
                     kind_name[bs[i].kind], lay[0], lay[1]);
            compare_block(st, where, i, &a, ref, &b, bytes + off[i]);
        }
    }
    free(coder);
    CK(cudaFree(d));
    sci_cuda_t1_destroy(h);
    free(tb);
    free(cf);
}

static const unsigned shapes[][2] = {
    {4, 4}, {8, 8}, {16, 16}, {32, 32}, {64, 64}, {64, 32}, {32, 64}, {16, 256},
    {256, 16}, {1024, 4}, {4, 1024}, {5, 819}, {128, 32}, {33, 65},
    {1, 1}, {3, 5}, {5, 3}, {63, 17}, {1, 64}, {64, 1}, {7, 1}, {2, 9}, {1, 1024},
    {1024, 1}, {17, 9},
};
#define NSHAPES (sizeof(shapes) / sizeof(shapes[0]))

/* A few blocks of every shape (compute-sanitizer runs). */
static void test_small(void) {
    bspec bs[NSHAPES];
    for (unsigned s = 0; s < NSHAPES; s++) {
        bs[s].w = shapes[s][0];
        bs[s].h = shapes[s][1];
        bs[s].band = s & 3;
        bs[s].nbp = 1 + (unsigned)(rng() % 12);
        bs[s].kind = s % NKINDS;
        bs[s].style = pick_style();
    }
    stats st = {0};
    run_table(&st, "every shape once", bs, NSHAPES, (int)(rng() & 1), 0, 0);
    report(&st, "every shape once");
}

static void test_tables(int quick) {
    size_t cap = 4096, nb;
    bspec *bs = malloc(cap * sizeof(*bs));

    /* every shape x orientation x kind, random depth and style */
    for (int irrev = 0; irrev < 2; irrev++) {
        stats st = {0};
        nb = 0;
        for (unsigned s = 0; s < NSHAPES; s++) {
            unsigned w = shapes[s][0], h = shapes[s][1];
            for (unsigned band = 0; band < 4; band++)
                for (unsigned k = 0; k < NKINDS; k++) {
                    if (quick && w * h > 1024 && (k + band + s) % 3)
                        continue;
                    bspec *b = &bs[nb++];
                    b->w = w;
                    b->h = h;
                    b->band = band;
                    b->kind = k;
                    b->nbp = rng() & 1 ? 1 + (unsigned)(rng() % 12) : 1 + (unsigned)(rng() % 30);
                    if (quick && w * h > 256 && b->nbp > 12)
                        b->nbp = 12;
                    b->style = pick_style();
                }
        }
        char name[64];
        snprintf(name, sizeof name, "shapes %s", irrev ? "9/7" : "5/3");
        run_table(&st, name, bs, nb, irrev, 0, 0);
        report(&st, name);
    }

    /* every depth 1..30 (the top plane used), every style combination */
    {
        stats st = {0};
        nb = 0;
        static const unsigned ds[][2] = {{8, 8}, {3, 5}, {16, 4}, {64, 64}, {1, 1}};
        for (unsigned nbp = 1; nbp <= 30; nbp++)
            for (unsigned s = 0; s < 5; s++) {
                bspec *b = &bs[nb++];
                b->w = ds[s][0];
                b->h = ds[s][1];
                b->band = (nbp + s) & 3;
                b->nbp = nbp;
                b->kind = s == 4 ? SINGLE : (nbp + s) % 2 ? FULL : NOISE;
                b->style = (nbp * 5 + s) % 64;
            }
        for (unsigned style = 0; style < 64; style++) {
            bspec *b = &bs[nb++];
            b->w = quick ? 32 : 64;
            b->h = quick ? 32 : 64;
            b->band = style & 3;
            b->nbp = 16;
            b->kind = style % 3 == 0 ? NOISE : style % 3 == 1 ? GEOM : CHAIN;
            b->style = style;
        }
        run_table(&st, "depths 1..30 and the 64 styles", bs, nb, 0, 0, 0);
        report(&st, "depths 1..30 and the 64 styles");
    }

    /* several batches, and slots capped (the host fallback) */
    {
        stats st = {0};
        nb = 0;
        for (unsigned k = 0; k < (quick ? 24u : 96u); k++) {
            bspec *b = &bs[nb++];
            unsigned s = k % NSHAPES;
            b->w = shapes[s][0];
            b->h = shapes[s][1];
            if (quick && b->w * b->h > 1024) {
                b->w = 32;
                b->h = 16;
            }
            b->band = k & 3;
            b->nbp = 1 + (unsigned)(rng() % 14);
            b->kind = k % NKINDS;
            b->style = pick_style();
        }
        run_table(&st, "batches", bs, nb, 1, 20000, 0);
        report(&st, "batches of ~20 kB of pairs");
        stats sf = {0};
        run_table(&sf, "fallback", bs, nb, 0, 0, 24);
        report(&sf, "slots capped at 24 bytes");
        char what[100];
        snprintf(what, sizeof what, "slots capped: %u blocks coded by the host fallback",
                 sf.fallbacks);
        check(sf.fallbacks > 0, what);
    }
    free(bs);
}

/* ---- bad input --------------------------------------------------------------- */

static void test_bad(void) {
    sci_cuda_t1_block tb[2];
    memset(tb, 0, sizeof tb);
    for (int i = 0; i < 2; i++) {
        tb[i].base = (size_t)i * 64;
        tb[i].stride = 8;
        tb[i].p.w = 8;
        tb[i].p.h = 8;
        tb[i].p.nbp = 5;
    }
    int32_t cf[128];
    for (int k = 0; k < 128; k++)
        cf[k] = (k * 7) % 31 - 15;
    cf[64 + 9] = -32; /* |q| = 32 > 2^5 - 1 */
    sci_cuda_t1 *h = NULL;
    CKW(sci_cuda_t1_create_blocks(&h, tb, 2, 0));
    void *d;
    CK(cudaMalloc(&d, sizeof cf));
    CK(cudaMemcpy(d, cf, sizeof cf, cudaMemcpyHostToDevice));
    int err = sci_cuda_t1_code(h, d, NULL);
    check(err == SCI_CUDA_T1_ERR_BLOCK, "5/3 magnitude beyond the range: SCI_CUDA_T1_ERR_BLOCK");
    cf[64 + 9] = -31;
    CK(cudaMemcpy(d, cf, sizeof cf, cudaMemcpyHostToDevice));
    err = sci_cuda_t1_code(h, d, NULL);
    check(err == 0, "the handle codes the next frame");
    sci_t1_params bad = {8, 8, 0, 31, 0, NULL, NULL};
    tb[1].p = bad;
    sci_cuda_t1 *h2 = NULL;
    err = sci_cuda_t1_create_blocks(&h2, tb, 2, 0);
    check(err == cudaErrorInvalidValue && !h2, "31 bit-planes refused");
    CK(cudaFree(d));
    sci_cuda_t1_destroy(h);
}

/* ---- real frames ------------------------------------------------------------- */

enum { F_NOISE, F_NATURAL, F_SPARSE };

typedef struct {
    uint32_t w, h;
    unsigned comps, depth;
    sci_dwt_filter filter;
    unsigned levels, cbw, cbh, style, layers;
    int content, quick;
} fcase;

#define F53 SCI_DWT_53
#define F97 SCI_DWT_97
static const fcase fcases[] = {
    {1, 1, 1, 8, F53, 0, 6, 6, 0, 1, F_NOISE, 1},
    {1, 1, 1, 8, F97, 0, 2, 2, 0x3F, 1, F_NOISE, 1},
    {3, 5, 1, 10, F53, 1, 2, 2, 0x04, 1, F_NOISE, 1},
    {5, 3, 1, 12, F97, 2, 2, 2, 0x01, 2, F_NATURAL, 1},
    {64, 64, 1, 8, F53, 3, 6, 6, 0, 1, F_NATURAL, 1},
    {64, 64, 3, 8, F97, 3, 5, 5, 0x11, 3, F_NATURAL, 1},
    {67, 41, 1, 12, F53, 2, 4, 4, 0x28, 1, F_NOISE, 1},
    {67, 41, 1, 16, F97, 5, 3, 5, 0x06, 2, F_SPARSE, 1},
    {17, 1031, 1, 8, F53, 3, 4, 6, 0, 1, F_NATURAL, 1},
    {17, 1031, 1, 10, F97, 4, 2, 10, 0x01, 1, F_NOISE, 1},
    {257, 129, 3, 8, F53, 5, 6, 6, 0x02, 2, F_NATURAL, 1},
    {257, 129, 1, 12, F97, 3, 10, 2, 0x3F, 1, F_NATURAL, 1},
    {1021, 769, 1, 8, F53, 3, 6, 6, 0, 1, F_NATURAL, 0},
    {1021, 769, 3, 10, F97, 4, 5, 6, 0x08, 4, F_NATURAL, 0},
};
#define NFCASES (sizeof(fcases) / sizeof(fcases[0]))

static void fill_image(int content, const sci_wt_geometry *g, uint8_t **buf) {
    uint32_t maxv = (1u << g->depth) - 1;
    unsigned sb = sci_wt_sample_bytes(g);
    for (unsigned c = 0; c < g->components; c++) {
        uint32_t cw = sci_wt_comp_width(g, c), ch = sci_wt_comp_height(g, c);
        double ph = (double)(rng() % 1000) / 100;
        for (uint32_t y = 0; y < ch; y++)
            for (uint32_t x = 0; x < cw; x++) {
                double v;
                if (content == F_NOISE) {
                    v = (double)(rng() & maxv);
                } else if (content == F_SPARSE) {
                    v = maxv / 2.0;
                    if ((rng() & 255) == 0)
                        v = (double)(rng() & maxv);
                } else {
                    double fx = (double)x / cw, fy = (double)y / ch;
                    v = 0.25 + 0.4 * fx * fy + 0.1 * sin(6.0 * fx + ph + c);
                    if ((x / 37 + y / 23) % 5 == 0)
                        v += 0.2;
                    v += 0.05 * sin(x * 0.9 + ph) * cos(y * 1.3);
                    v = v * maxv + (double)(rng() % 5) - 2;
                }
                v = v < 0 ? 0 : v > maxv ? maxv : v;
                uint32_t s = (uint32_t)v;
                size_t at = ((size_t)y * cw + x) * sb;
                buf[c][at] = (uint8_t)s;
                if (sb == 2)
                    buf[c][at + 1] = (uint8_t)(s >> 8);
            }
    }
}

static void setup_frame(const fcase *t, sci_wt_geometry *g, sci_htj2k_params *p) {
    memset(g, 0, sizeof(*g));
    g->width = t->w;
    g->height = t->h;
    g->components = t->comps;
    g->depth = t->depth;
    for (unsigned c = 0; c < t->comps; c++)
        g->dx[c] = g->dy[c] = 1;
    g->filter = t->filter;
    g->levels = t->levels;
    g->ct = t->comps == 3 ? (t->filter == F53 ? SCI_CT_RCT : SCI_CT_ICT) : SCI_CT_NONE;
    sci_htj2k_params_default(p);
    p->coder = SCI_J2K_CODER_PART1;
    p->cb_w_log2 = t->cbw;
    p->cb_h_log2 = t->cbh;
    p->cb_style = t->style;
    p->layers = t->layers;
    p->progression = (sci_j2k_progression)(rng() % 5);
}

/* The forward transform of an image, coefficients of sci_wt_coeff_count. */
static void *transform(const sci_wt_geometry *g, uint8_t **smp) {
    unsigned sb = sci_wt_sample_bytes(g);
    sci_wt_plane pl[SCI_WT_MAX_COMPONENTS];
    for (unsigned c = 0; c < g->components; c++) {
        pl[c].data = smp[c];
        pl[c].row_stride = (ptrdiff_t)sci_wt_comp_width(g, c) * sb;
        pl[c].pixel_stride = sb;
    }
    void *coeffs = malloc(sci_wt_coeff_count(g) * 4);
    if (sci_wt_forward(test_pool(), g, pl, coeffs) < 0) {
        free(coeffs);
        return NULL;
    }
    return coeffs;
}

static void run_frame(const fcase *t, int idx) {
    sci_wt_geometry g;
    sci_htj2k_params p;
    setup_frame(t, &g, &p);
    p.plt = idx % 2;
    char name[120];
    snprintf(name, sizeof name, "frame #%d %ux%u c%u d%u %s L%u cb%ux%u style 0x%02x "
             "layers %u%s", idx, t->w, t->h, t->comps, t->depth,
             t->filter == F53 ? "5/3" : "9/7", t->levels, 1u << t->cbw, 1u << t->cbh,
             t->style, t->layers, p.plt ? " plt" : "");
    const char *why = sci_htj2k_check(&g, &p);
    if (why) {
        printf("FAIL %s: not codable: %s\n", name, why);
        check_failed++;
        return;
    }
    uint8_t *smp[SCI_WT_MAX_COMPONENTS];
    unsigned sb = sci_wt_sample_bytes(&g);
    for (unsigned c = 0; c < g.components; c++)
        smp[c] = malloc((size_t)sci_wt_comp_width(&g, c) * sci_wt_comp_height(&g, c) * sb);
    fill_image(t->content, &g, smp);
    void *coeffs = transform(&g, smp);
    sci_htj2k_enc *ec = sci_htj2k_enc_new(&g, &p, test_pool());
    sci_htj2k_enc *eg = sci_htj2k_enc_new(&g, &p, test_pool());
    if (!coeffs || !ec || !eg) {
        printf("FAIL %s: setup\n", name);
        check_failed++;
        return;
    }
    size_t nco = sci_wt_coeff_count(&g), cap = sci_htj2k_max_bytes(ec);
    void *d;
    CK(cudaMalloc(&d, nco * 4));
    CK(cudaMemcpy(d, coeffs, nco * 4, cudaMemcpyHostToDevice));
    sci_cuda_t1 *h = NULL;
    int err = sci_cuda_t1_create(&h, eg, &g, &p);
    uint8_t *oc = malloc(cap), *og = malloc(cap);
    stats st = {0};
    if (!err) {
        size_t ng = 0;
        err = sci_cuda_t1_encode(h, d, og, cap, &ng, NULL);
        if (err) {
            printf("FAIL %s: sci_cuda_t1_encode: %s\n", name, sci_cuda_error_string(err));
            check_failed++;
        } else {
            /* every block against the C coder */
            const uint8_t *bytes;
            const size_t *off;
            sci_cuda_t1_bytes(h, &bytes, &off);
            static uint32_t sm[4096];
            static uint8_t ref[1 << 20];
            sci_t1_coder *coder = malloc(sizeof(*coder));
            size_t nb = sci_htj2k_block_count(ec);
            for (size_t i = 0; i < nb; i++) {
                sci_t1_params tp;
                sci_htj2k_t1_params(ec, i, &tp);
                sci_t1_result a, b;
                size_t bc = sci_t1_max_bytes(tp.w, tp.h, tp.nbp);
                if (bc > sizeof ref)
                    bc = sizeof ref;
                if (sci_htj2k_block_quantize(ec, i, coeffs, sm) < 0 ||
                    sci_t1_encode(coder, &tp, sm, tp.w, ref, bc, &a)) {
                    printf("FAIL %s: the C coder refused block %zu\n", name, i);
                    st.bad_struct++;
                    continue;
                }
                sci_cuda_t1_result(h, i, &b);
                compare_block(&st, name, i, &a, ref, &b, bytes + off[i]);
            }
            free(coder);
            report(&st, name);
            /* the whole codestream */
            size_t nc = sci_htj2k_encode(ec, coeffs, oc, cap);
            int same = nc && nc == ng && !memcmp(oc, og, nc);
            if (!same) {
                size_t k = 0;
                while (k < nc && k < ng && oc[k] == og[k])
                    k++;
                printf("  %s: codestream C %zu bytes, CUDA %zu, first difference at %zu\n",
                       name, nc, ng, k);
            }
            char what[240];
            snprintf(what, sizeof what, "%s: codestream == sci_htj2k_encode's (%zu bytes)",
                     name, ng);
            check(same, what);
            if (same)
                printf("ok   %s\n", what);
        }
    } else {
        printf("FAIL %s: sci_cuda_t1_create: %s\n", name, sci_cuda_error_string(err));
        check_failed++;
    }
    /* a 5/3 coefficient beyond its band's range */
    if (h && t->filter == F53) {
        int32_t big = 1 << 30;
        CK(cudaMemcpy((int32_t *)d + nco / 2, &big, 4, cudaMemcpyHostToDevice));
        err = sci_cuda_t1_code(h, d, NULL);
        char what[240];
        snprintf(what, sizeof what, "%s: a coefficient of 2^30 gives SCI_CUDA_T1_ERR_BLOCK",
                 name);
        check(err == SCI_CUDA_T1_ERR_BLOCK, what);
    }
    sci_cuda_t1_destroy(h);
    CK(cudaFree(d));
    sci_htj2k_enc_free(ec);
    sci_htj2k_enc_free(eg);
    free(oc);
    free(og);
    free(coeffs);
    for (unsigned c = 0; c < g.components; c++)
        free(smp[c]);
}

/* ---- frames in flight ----------------------------------------------------------- */

/* Two handles of one encoder taking turns, as a stream of frames would
 * use them: frame k + 1 is submitted before frame k is finished and
 * written, each frame different, on two streams or on one.  Every
 * codestream must be sci_htj2k_encode's of its own frame; one handle has
 * its slots capped, so that its host fallback reads its coefficients
 * while the other handle's frame is in flight.  Then the API's edges: a
 * finish with nothing submitted is refused, a second submit drops the
 * first frame. */
static void test_in_flight(const fcase *t, int one_stream, int quick) {
    enum { NFR = 6 };
    sci_wt_geometry g;
    sci_htj2k_params p;
    setup_frame(t, &g, &p);
    char name[120];
    snprintf(name, sizeof name, "in flight %ux%u c%u %s, %s", t->w, t->h, t->comps,
             t->filter == F53 ? "5/3" : "9/7", one_stream ? "one stream" : "two streams");
    unsigned sb = sci_wt_sample_bytes(&g);
    size_t nco = sci_wt_coeff_count(&g);
    void *co[NFR];
    for (int k = 0; k < NFR; k++) {
        uint8_t *smp[SCI_WT_MAX_COMPONENTS];
        for (unsigned c = 0; c < g.components; c++)
            smp[c] = malloc((size_t)sci_wt_comp_width(&g, c) * sci_wt_comp_height(&g, c) * sb);
        fill_image(k % 3 == 2 ? F_NOISE : F_NATURAL, &g, smp);
        co[k] = transform(&g, smp);
        for (unsigned c = 0; c < g.components; c++)
            free(smp[c]);
    }
    sci_htj2k_enc *ec = sci_htj2k_enc_new(&g, &p, test_pool());
    sci_htj2k_enc *eg = sci_htj2k_enc_new(&g, &p, test_pool());
    size_t cap = sci_htj2k_max_bytes(ec);
    uint8_t *oc = malloc(cap), *og = malloc(cap);
    sci_cuda_t1 *h[2];
    void *d[2];
    cudaStream_t s[2];
    for (int j = 0; j < 2; j++) {
        CKW(sci_cuda_t1_create(&h[j], eg, &g, &p));
        CK(cudaMalloc(&d[j], nco * 4));
        CK(cudaStreamCreate(&s[j]));
    }
    sci_cuda_t1_set_slot_limit(h[1], 24);
    sci_cuda_t1_set_timing(h[1], 1);
    int frames = quick ? 4 : NFR, same = 0;
    unsigned fallbacks = 0;
    for (int k = 0; k <= frames; k++) {
        if (k < frames) {
            int j = k & 1;
            CK(cudaMemcpyAsync(d[j], co[k], nco * 4, cudaMemcpyHostToDevice, s[j]));
            CKW(sci_cuda_t1_submit(h[j], d[j], s[one_stream ? 0 : j]));
        }
        if (k == 0)
            continue;
        int j = (k - 1) & 1;
        size_t ng = 0, nc;
        int err = sci_cuda_t1_finish(h[j]);
        if (!err)
            err = sci_cuda_t1_write(h[j], og, cap, &ng);
        if (err) {
            printf("FAIL %s: frame %d: %s\n", name, k - 1, sci_cuda_error_string(err));
            break;
        }
        if (j) {
            sci_cuda_t1_times tm;
            sci_cuda_t1_get_times(h[j], &tm);
            fallbacks += tm.fallbacks;
        }
        nc = sci_htj2k_encode(ec, co[k - 1], oc, cap);
        same += nc && nc == ng && !memcmp(oc, og, nc);
    }
    char what[240];
    snprintf(what, sizeof what, "%s: %d of %d codestreams == sci_htj2k_encode's, "
             "%u blocks through the fallback", name, same, frames, fallbacks);
    check(same == frames && fallbacks > 0, what);
    if (same == frames && fallbacks > 0)
        printf("ok   %s\n", what);

    int err = sci_cuda_t1_finish(h[0]);
    check(err == cudaErrorInvalidValue, "finish with no frame submitted is refused");
    size_t ng = 0, nc = sci_htj2k_encode(ec, co[1], oc, cap);
    CK(cudaMemcpy(d[0], co[0], nco * 4, cudaMemcpyHostToDevice));
    CKW(sci_cuda_t1_submit(h[0], d[0], s[0]));
    CK(cudaMemcpy(d[1], co[1], nco * 4, cudaMemcpyHostToDevice));
    CKW(sci_cuda_t1_submit(h[0], d[1], s[0]));
    err = sci_cuda_t1_finish(h[0]);
    if (!err)
        err = sci_cuda_t1_write(h[0], og, cap, &ng);
    snprintf(what, sizeof what, "%s: a second submit drops the first frame", name);
    check(!err && nc == ng && !memcmp(oc, og, nc), what);
    for (int j = 0; j < 2; j++) {
        sci_cuda_t1_destroy(h[j]);
        CK(cudaFree(d[j]));
        CK(cudaStreamDestroy(s[j]));
    }
    sci_htj2k_enc_free(ec);
    sci_htj2k_enc_free(eg);
    free(oc);
    free(og);
    for (int k = 0; k < NFR; k++)
        free(co[k]);
}

/* ---- benchmark ------------------------------------------------------------------ */

/* An 8-bit PGM (P5), or NULL. */
static uint8_t *read_pgm(const char *path, unsigned *w, unsigned *h) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned maxv = 0;
    uint8_t *img = NULL;
    if (fscanf(f, "P5 %u %u %u", w, h, &maxv) == 3 && maxv < 256 && fgetc(f) != EOF) {
        img = malloc((size_t)*w * *h);
        if (img && fread(img, 1, (size_t)*w * *h, f) != (size_t)*w * *h) {
            free(img);
            img = NULL;
        }
    }
    fclose(f);
    return img;
}

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

static int bench(const char *pgm, unsigned W, unsigned H, unsigned lanes, int heavy,
                 int runs) {
    sci_wt_geometry g;
    sci_htj2k_params p;
    fcase t = {W, H, 1, 8, F53, 3, 6, 6, 0, 1, F_NATURAL, 0};
    setup_frame(&t, &g, &p);
    uint8_t *img = malloc((size_t)W * H);
    unsigned pw = 0, ph = 0;
    uint8_t *src = pgm ? read_pgm(pgm, &pw, &ph) : NULL;
    if (pgm && !src) {
        printf("cannot read %s\n", pgm);
        return 1;
    }
    if (src) {
        /* tiled by mirroring */
        for (unsigned y = 0; y < H; y++)
            for (unsigned x = 0; x < W; x++) {
                unsigned sx = x % (2 * pw), sy = y % (2 * ph);
                sx = sx < pw ? sx : 2 * pw - 1 - sx;
                sy = sy < ph ? sy : 2 * ph - 1 - sy;
                img[(size_t)y * W + x] = src[(size_t)sy * pw + sx];
            }
        free(src);
    } else {
        fill_image(F_NATURAL, &g, &img);
    }
    void *coeffs = transform(&g, &img);
    sci_htj2k_enc *eg = sci_htj2k_enc_new(&g, &p, test_pool());
    size_t nco = sci_wt_coeff_count(&g);
    void *d;
    CK(cudaMalloc(&d, nco * 4));
    CK(cudaMemcpy(d, coeffs, nco * 4, cudaMemcpyHostToDevice));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    sci_cuda_t1 *h;
    CKW(sci_cuda_t1_create(&h, eg, &g, &p));
    if (lanes)
        sci_cuda_t1_set_mq_lanes(h, lanes);
    if (heavy >= 0)
        sci_cuda_t1_set_mq_heavy(h, (unsigned)heavy);
    sci_cuda_t1_set_timing(h, 1);
    float *tm = malloc(6 * (size_t)runs * sizeof(float));
    sci_cuda_t1_times tt = {0};
    for (int r = -2; r < runs; r++) {
        CKW(sci_cuda_t1_code(h, d, s));
        if (r < 0)
            continue;
        sci_cuda_t1_get_times(h, &tt);
        tm[0 * runs + r] = tt.model_ms;
        tm[1 * runs + r] = tt.mq_ms;
        tm[2 * runs + r] = tt.pack_ms;
        tm[3 * runs + r] = tt.model_ms + tt.mq_ms + tt.pack_ms;
        tm[4 * runs + r] = tt.d2h_ms;
    }
    for (int k = 0; k < 5; k++)
        qsort(tm + k * runs, (size_t)runs, sizeof(float), cmp_float);
    const uint8_t *bytes;
    const size_t *off;
    sci_cuda_t1_bytes(h, &bytes, &off);
    size_t nb = sci_htj2k_block_count(eg), total = 0;
    for (size_t i = 0; i < nb; i++) {
        sci_t1_result r;
        sci_cuda_t1_result(h, i, &r);
        total += r.len;
    }
    printf("bench %ux%u %s, 3-level 5/3, 64x64, style 0, %zu blocks, %llu decisions "
           "(%u in the largest block), %zu codeword bytes (%.2f bpp), MQ heavy warps %d "
           "lanes %u, device %.1f MiB\n", W, H, pgm ? pgm : "synthetic", nb, tt.symbols,
           tt.max_symbols, total, total * 8.0 / W / H, heavy, lanes,
           sci_cuda_t1_device_bytes(h) / 1048576.0);
    printf("  median of %d: model %.3f ms, mq %.3f ms, pack %.3f ms, kernels %.3f ms, "
           "results to host %.3f ms\n", runs, tm[runs / 2], tm[runs + runs / 2],
           tm[2 * runs + runs / 2], tm[3 * runs + runs / 2], tm[4 * runs + runs / 2]);
    /* the same as the C coder? */
    sci_htj2k_enc *ec = sci_htj2k_enc_new(&g, &p, test_pool());
    size_t cap = sci_htj2k_max_bytes(ec), ng = 0;
    uint8_t *oc = malloc(cap), *og = malloc(cap);
    double t0 = (double)clock();
    size_t nc = sci_htj2k_encode(ec, coeffs, oc, cap);
    double cpu_s = ((double)clock() - t0) / CLOCKS_PER_SEC;
    CKW(sci_cuda_t1_encode(h, d, og, cap, &ng, s));
    sci_cuda_t1_get_times(h, &tt);
    printf("  codestream %zu bytes, %s the C encoder's (C encode %.2f s CPU time); "
           "host write %.3f ms\n", ng, nc == ng && !memcmp(oc, og, nc) ? "equal to" :
           "DIFFERENT from", cpu_s, tt.write_ms);
    int ok = nc == ng && !memcmp(oc, og, nc);
    sci_cuda_t1_destroy(h);
    sci_htj2k_enc_free(eg);
    sci_htj2k_enc_free(ec);
    CK(cudaFree(d));
    CK(cudaStreamDestroy(s));
    free(oc);
    free(og);
    free(tm);
    free(coeffs);
    free(img);
    return ok ? 0 : 1;
}

int main(int argc, char **argv) {
    int quick = 0, do_bench = 0, runs = 20, small = 0;
    unsigned W = 4096, H = 2160, lanes = 0;
    int heavy = -1;
    const char *pgm = NULL;
    uint64_t seed = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--small"))
            small = 1;
        else if (!strcmp(argv[i], "--verbose"))
            verbose = 1;
        else if (!strcmp(argv[i], "--bench"))
            do_bench = 1;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--pgm") && i + 1 < argc)
            pgm = argv[++i];
        else if (!strcmp(argv[i], "--lanes") && i + 1 < argc)
            lanes = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--heavy") && i + 1 < argc)
            heavy = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--size") && i + 2 < argc) {
            W = (unsigned)atoi(argv[++i]);
            H = (unsigned)atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: %s [--seed N] [--quick] [--small] [--verbose] | --bench "
                    "[--pgm FILE] [--size W H] [--lanes N] [--heavy N] [--runs N]\n", argv[0]);
            return 2;
        }
    }
    REQUIRE_CUDA_DEVICE();
    rng_state = seed;
    if (do_bench)
        return bench(pgm, W, H, lanes, heavy, runs < 1 ? 1 : runs);
    printf("seed %llu\n", (unsigned long long)seed);
    test_bad();
    if (small)
        test_small();
    else
        test_tables(quick);
    for (size_t i = 0; i < (small ? 8 : NFCASES); i++)
        if (!quick || fcases[i].quick)
            run_frame(&fcases[i], (int)i);
    /* 257x129 4:4:4 5/3 with RESET; 67x41 9/7 in two layers */
    test_in_flight(&fcases[10], 0, quick || small);
    test_in_flight(&fcases[7], 1, quick || small);
    printf("%u passed, %u failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}
