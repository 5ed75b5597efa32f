/*
 * The GPU JPEG 2000 decoder (cuda/j2k/j2kdec.h) against the C reference
 * (codec/j2k/j2k_dec.h): every output sample must be equal, for 5/3 and
 * 9/7 alike, and the path each frame takes must be the one the API
 * promises.
 *
 *   - our encoder's codestreams of random images of awkward sizes (1x1,
 *     1xN, Nx1, odd, larger), HT and Part 1 code-blocks, several block
 *     sizes, every Part 1 code-block style, layers, 5/3 and 9/7, grey,
 *     RGB with RCT/ICT, 4:2:0 and 4:2:2, four components, 8..16 bits;
 *   - the same codestreams with bytes of their packets changed (the
 *     damage handling of the HT kernel must match the C decoder's);
 *   - the conformance codestreams of tests/j2k/data (HT ones with SigProp
 *     and MagRef passes, tiles, origins, more components: the host paths);
 *   - the tiled codestreams of tests/j2k/data/tiled (made by OpenJPEG,
 *     Grok and OpenJPH: edge tiles, image and grid origins, layers,
 *     precincts, SOP/EPH), on the device path or, where a tile's origin
 *     does not allow it (the name says -host), the host path; at full and
 *     half resolution, packed where RGB, and damaged;
 *   - Part 1 streams also on the host-blocks path (sci_cuda_j2kdec_tune);
 *   - packed output (RGB, pixel stride 3) and row strides beyond the width;
 *   - frames in flight: two frames submitted before the first is finished.
 *
 *   parity-j2k-dec [--data DIR] [--quick] [--seed N] [--verbose]
 *
 * --quick: the small images only (the emulated run in CI).
 * Exit 0 when all pass, 1 on a failure, 77 when there is no CUDA device.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "codec/j2k/htj2k.h"
#include "codec/j2k/j2k_dec.h"
#include "codec/j2k/t1.h"
#include "codec/j2k/wavelet_frame.h"
#include "cuda/j2k/j2kdec.h"
#include "tests/common/cudacheck.h"
#include "tests/common/readfile.h"

static int verbose, quick;
static unsigned checks, failures;
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

static void check(int ok, const char *what) {
    checks++;
    if (!ok) {
        failures++;
        printf("FAIL: %s\n", what);
    } else if (verbose) {
        printf("ok: %s\n", what);
    }
}

/* ---- one codestream through both decoders ---------------------------------- */

typedef struct {
    int expect_path;     /* -1: any */
    int packed;          /* 3 components of 1 byte into one RGB plane */
    int pad;             /* bytes added to each row stride */
    unsigned reduce, layers; /* sci_j2k_decode_params of both decoders (a
                              * reduce beyond the levels: the levels, as
                              * j2kdec and the GPU decoder take it) */
    int parts;           /* on the device, in 1 or 2 parts
                          * (sci_cuda_j2kdec_tune_split); 0: either */
} run_opts;

static unsigned path_count[3], two_parts;
static unsigned long ht_refined; /* HT blocks with SigProp/MagRef decoded */

/* Counts HT code-blocks with refinement passes in a codestream's tile 0. */
static void count_refined(const uint8_t *cs, size_t len) {
    sci_j2k_dec *d = sci_j2k_dec_new();
    sci_j2k_info info;
    if (d && !sci_j2k_dec_parse(d, cs, len, &info)) {
        sci_j2k_decode_params p = {0, 0};
        sci_j2k_tile_blocks tb;
        if (!sci_j2k_dec_tile_blocks(d, 0, &p, &tb))
            for (size_t i = 0; i < tb.nblocks; i++)
                if (tb.blocks[i].ht && tb.blocks[i].passes > 1)
                    ht_refined++;
    }
    sci_j2k_dec_free(d);
}

/* The byte offsets of the C reference's warnings (the first 100). */
typedef struct {
    size_t at[128];
    unsigned n;
} warned_at;

static void note_warning(void *user, size_t offset, const char *msg) {
    warned_at *w = user;
    (void)msg;
    if (w->n < 128)
        w->at[w->n++] = offset;
}

/* Decodes cs with both; returns 0 when equal (or both refuse it). */
static int compare(sci_cuda_j2kdec *g, const uint8_t *cs, size_t len,
                   const char *label, const run_opts *o) {
    char what[512];
    sci_j2k_dec *ref = sci_j2k_dec_new();
    warned_at wa = {{0}, 0};
    sci_j2k_dec_set_warning_func(ref, note_warning, &wa);
    sci_j2k_info info;
    int rr = sci_j2k_dec_parse(ref, cs, len, &info);
    sci_j2k_info ginfo;
    sci_j2k_comp_info ci[16];
    sci_cuda_j2kdec_set_decode(g, o->reduce, o->layers);
    int gr = sci_cuda_j2kdec_parse(g, cs, len, &ginfo, ci, 16);
    sci_cuda_j2kdec_set_decode(g, 0, 0);
    if (rr) {
        snprintf(what, sizeof what, "%s: both refuse it (C: %s; GPU: %s)",
                 label, sci_j2k_dec_error(ref), sci_cuda_j2kdec_error(g));
        check(gr != 0, what);
        sci_j2k_dec_free(ref);
        return gr != 0 ? 0 : -1;
    }
    snprintf(what, sizeof what, "%s: the GPU decoder parses it", label);
    check(gr == 0, what);
    if (gr || info.components > 16) {
        sci_j2k_dec_free(ref);
        return -1;
    }
    unsigned nc = info.components;
    sci_j2k_plane hp[16];
    sci_cuda_j2kdec_plane dp[16];
    uint8_t *host[16], *back[16];
    size_t rowb[16], drow[16];
    void *dbuf = NULL;
    size_t dtotal = 0, doff[16];
    int packed = o->packed && nc == 3;
    for (unsigned c = 0; c < nc; c++) {
        unsigned bytes = ci[c].depth > 8 ? 2 : 1;
        if (packed && (bytes != 1 || ci[c].w != ci[0].w || ci[c].h != ci[0].h))
            packed = 0;
    }
    for (unsigned c = 0; c < nc; c++) {
        unsigned bytes = ci[c].depth > 8 ? 2 : 1;
        rowb[c] = (size_t)ci[c].w * bytes;
        host[c] = malloc(rowb[c] * ci[c].h + 1);
        back[c] = malloc(rowb[c] * ci[c].h + 1);
        hp[c].data = host[c];
        hp[c].stride = ci[c].w;
        hp[c].bytes = bytes;
        dp[c].bytes = bytes;
        if (packed) {
            drow[c] = (size_t)ci[0].w * 3 + o->pad;
            dp[c].pixel_stride = 3;
            doff[c] = c;
            if (c == 0)
                dtotal = drow[0] * ci[0].h + 3;
        } else {
            drow[c] = rowb[c] + o->pad;
            dp[c].pixel_stride = bytes;
            doff[c] = dtotal;
            dtotal += drow[c] * ci[c].h + 16;
        }
        dp[c].row_stride = (ptrdiff_t)drow[c];
    }
    CK(cudaMalloc(&dbuf, dtotal + 1));
    CK(cudaMemset(dbuf, 0xa5, dtotal + 1));
    for (unsigned c = 0; c < nc; c++)
        dp[c].data = (uint8_t *)dbuf + doff[c];
    sci_j2k_decode_params p = {o->reduce < info.levels ? o->reduce : info.levels,
                               o->layers};
    rr = sci_j2k_dec_decode(ref, &p, hp);
    unsigned ticket = 0;
    gr = sci_cuda_j2kdec_submit(g, dp, NULL, &ticket);
    if (!gr)
        gr = sci_cuda_j2kdec_finish(g, ticket);
    int path = sci_cuda_j2kdec_path(g);
    int bad = 0;
    if (rr || gr) {
        snprintf(what, sizeof what, "%s: both decode or both fail (C %d %s; "
                 "GPU %d %s)", label, rr, sci_j2k_dec_error(ref), gr,
                 gr ? sci_cuda_j2kdec_error(g) : "");
        check((rr != 0) == (gr != 0), what);
        bad = (rr != 0) != (gr != 0);
    } else {
        path_count[path]++;
        unsigned parts = sci_cuda_j2kdec_phases(g);
        two_parts += parts == 2;
        if (o->parts && path == SCI_CUDA_J2KDEC_DEVICE) {
            snprintf(what, sizeof what, "%s: in %u parts (expected %d)",
                     label, parts, o->parts);
            check((int)parts == o->parts, what);
            bad |= (int)parts != o->parts;
        }
        if (o->expect_path >= 0) {
            snprintf(what, sizeof what, "%s: path %d (expected %d)", label,
                     path, o->expect_path);
            check(path == o->expect_path, what);
            bad |= path != o->expect_path;
        }
        for (unsigned c = 0; c < nc; c++) {
            unsigned bytes = hp[c].bytes;
            if (packed) {
                uint8_t *tmp = malloc(drow[0] * ci[0].h);
                CK(cudaMemcpy(tmp, dbuf, drow[0] * ci[0].h, cudaMemcpyDeviceToHost));
                for (size_t y = 0; y < ci[c].h; y++)
                    for (size_t x = 0; x < ci[c].w; x++)
                        back[c][y * ci[c].w + x] = tmp[y * drow[0] + 3 * x + c];
                free(tmp);
            } else {
                for (size_t y = 0; y < ci[c].h; y++)
                    CK(cudaMemcpy(back[c] + y * rowb[c],
                                  (uint8_t *)dp[c].data + y * drow[c], rowb[c],
                                  cudaMemcpyDeviceToHost));
            }
            size_t n = (size_t)ci[c].w * ci[c].h, diff = 0, first = 0;
            for (size_t i = 0; i < n; i++) {
                int a = bytes == 1 ? host[c][i] : ((uint16_t *)host[c])[i];
                int b = bytes == 1 ? back[c][i] : ((uint16_t *)back[c])[i];
                if (a != b && !diff++)
                    first = i;
            }
            snprintf(what, sizeof what, "%s: component %u (%ux%u, %u bits) "
                     "equal on path %d (%zu differ, first at %zu)", label, c,
                     ci[c].w, ci[c].h, ci[c].depth, path, diff, first);
            check(diff == 0, what);
            bad |= diff != 0;
        }
        snprintf(what, sizeof what, "%s: warned alike (C %u, GPU %u)", label,
                 sci_j2k_dec_warnings(ref), sci_cuda_j2kdec_warnings(g));
        check((sci_j2k_dec_warnings(ref) != 0) == (sci_cuda_j2kdec_warnings(g) != 0),
              what);
        /* as the C reference's, the warning names where in the codestream */
        if (sci_cuda_j2kdec_warnings(g)) {
            snprintf(what, sizeof what, "%s: the warning names a byte offset "
                     "(\"%s\")", label, sci_cuda_j2kdec_warning(g));
            const char *at = strstr(sci_cuda_j2kdec_warning(g), "(at byte ");
            check(at != NULL, what);
            /* a block the kernels found damaged is one the C reference
             * warned about, at the same byte */
            if (at && strstr(sci_cuda_j2kdec_warning(g), "segmentation symbol)") &&
                wa.n < 100) {
                size_t off = (size_t)strtoull(at + 9, NULL, 10);
                unsigned k = 0;
                while (k < wa.n && wa.at[k] != off)
                    k++;
                snprintf(what, sizeof what, "%s: the C reference warned at "
                         "byte %zu too", label, off);
                check(k < wa.n, what);
            }
        }
    }
    CK(cudaFree(dbuf));
    for (unsigned c = 0; c < nc; c++) {
        free(host[c]);
        free(back[c]);
    }
    sci_j2k_dec_free(ref);
    return bad ? -1 : 0;
}

/* compare with the HT blocks' symbols decoded a block a thread (the
 * frames here are small, and on their own take lane 0 of each block's
 * warp: SCI_CUDA_J2KDEC_SYM_AUTO) in two parts wherever the frame allows
 * (o->parts: expected so); then as the decoder chooses; and in one part
 * where the first made two (sci_cuda_j2kdec_tune_split) */
static void compare_both(sci_cuda_j2kdec *g, const uint8_t *cs, size_t len,
                         const char *label, const run_opts *o) {
    char l2[400];
    run_opts any = *o;
    any.parts = 0;
    /* split always first: the decoder's device copy of the codestream is
     * then still another stream's, so that bytes a part's blocks read
     * before their upload show */
    snprintf(l2, sizeof l2, "%s, symbols a thread a block, split always", label);
    sci_cuda_j2kdec_tune_ht(g, SCI_CUDA_J2KDEC_SYM_THREAD);
    sci_cuda_j2kdec_tune_split(g, SCI_CUDA_J2KDEC_SPLIT_ALWAYS);
    compare(g, cs, len, l2, o);
    int two = sci_cuda_j2kdec_phases(g) == 2;
    sci_cuda_j2kdec_tune_ht(g, SCI_CUDA_J2KDEC_SYM_AUTO);
    sci_cuda_j2kdec_tune_split(g, SCI_CUDA_J2KDEC_SPLIT_AUTO);
    compare(g, cs, len, label, &any);
    if (two) {
        run_opts one = *o;
        one.parts = 1;
        snprintf(l2, sizeof l2, "%s, in one part", label);
        sci_cuda_j2kdec_tune_split(g, SCI_CUDA_J2KDEC_SPLIT_OFF);
        compare(g, cs, len, l2, &one);
        sci_cuda_j2kdec_tune_split(g, SCI_CUDA_J2KDEC_SPLIT_AUTO);
    }
}

/* ---- our encoder ----------------------------------------------------------- */

typedef struct {
    const char *label;
    unsigned nc, depth;
    unsigned dx[4], dy[4];
    sci_dwt_filter filter;
    unsigned levels;
    sci_colour_transform ct;
    sci_j2k_coder coder;
    unsigned cbw, cbh;
    unsigned layers, style;
    double qstep;
    int path;
} enc_case;

/* A random picture: a smooth ramp, texture and noise, so blocks code to
 * many planes and some to none. */
static uint8_t *encode(const enc_case *k, unsigned w, unsigned h, size_t *len) {
    sci_wt_geometry g;
    memset(&g, 0, sizeof g);
    g.width = w;
    g.height = h;
    g.components = k->nc;
    g.depth = k->depth;
    for (unsigned c = 0; c < k->nc; c++) {
        g.dx[c] = k->dx[c] ? k->dx[c] : 1;
        g.dy[c] = k->dy[c] ? k->dy[c] : 1;
    }
    g.filter = k->filter;
    g.levels = k->levels;
    g.ct = k->ct;
    if (sci_wt_geometry_check(&g))
        return NULL;
    unsigned bps = sci_wt_sample_bytes(&g);
    sci_wt_plane pl[SCI_WT_MAX_COMPONENTS];
    uint8_t *bufs[SCI_WT_MAX_COMPONENTS];
    uint32_t maxv = (1u << k->depth) - 1;
    unsigned noise = rnd() % 4;
    for (unsigned c = 0; c < k->nc; c++) {
        unsigned cw = sci_wt_comp_width(&g, c), ch = sci_wt_comp_height(&g, c);
        bufs[c] = malloc((size_t)cw * ch * bps + 1);
        for (unsigned y = 0; y < ch; y++)
            for (unsigned x = 0; x < cw; x++) {
                double v = (double)(x * 3 + y * 5 + c * 17) / (cw + ch + 1) * maxv / 8;
                v += ((x / 4 + y / 3) & 1) ? maxv / 16.0 : 0;
                if (noise)
                    v += (double)(rnd() % (maxv / (2u << noise) + 1));
                uint32_t u = (uint32_t)v;
                if (rnd() % 97 == 0)
                    u = rnd() & maxv;
                if (u > maxv)
                    u = maxv;
                size_t i = (size_t)y * cw + x;
                if (bps == 1)
                    bufs[c][i] = (uint8_t)u;
                else {
                    bufs[c][2 * i] = (uint8_t)u;
                    bufs[c][2 * i + 1] = (uint8_t)(u >> 8);
                }
            }
        pl[c].data = bufs[c];
        pl[c].row_stride = (ptrdiff_t)cw * bps;
        pl[c].pixel_stride = bps;
    }
    void *coeffs = malloc(sci_wt_coeff_count(&g) * 4);
    uint8_t *out = NULL;
    if (sci_wt_forward(NULL, &g, pl, coeffs) == 0) {
        sci_htj2k_params p;
        sci_htj2k_params_default(&p);
        p.coder = k->coder;
        p.cb_w_log2 = k->cbw ? k->cbw : 6;
        p.cb_h_log2 = k->cbh ? k->cbh : 6;
        p.layers = k->layers ? k->layers : 1;
        p.cb_style = k->style;
        if (k->qstep > 0)
            p.qstep = k->qstep;
        /* half the sizes with PLT: tier-2 then runs precinct by precinct
         * on the decoder's threads, split or not */
        p.plt = (w + h) & 1;
        if (!sci_htj2k_check(&g, &p)) {
            sci_htj2k_enc *e = sci_htj2k_enc_new(&g, &p, NULL);
            if (e) {
                size_t cap = sci_htj2k_max_bytes(e);
                out = malloc(cap);
                *len = sci_htj2k_encode(e, coeffs, out, cap);
                if (!*len) {
                    free(out);
                    out = NULL;
                }
                sci_htj2k_enc_free(e);
            }
        }
    }
    free(coeffs);
    for (unsigned c = 0; c < k->nc; c++)
        free(bufs[c]);
    return out;
}

#define HT SCI_J2K_CODER_HT
#define P1 SCI_J2K_CODER_PART1
#define DEV SCI_CUDA_J2KDEC_DEVICE
#define HB SCI_CUDA_J2KDEC_HOST_BLOCKS
/* Part 1 blocks: on the device, and on the host when asked for */
#define P1DEV 100

static const enc_case cases[] = {
    {"ht-gray8-53", 1, 8, {1}, {1}, SCI_DWT_53, 5, SCI_CT_NONE, HT, 6, 6, 0, 0, 0, DEV},
    {"ht-gray12-53-cb32", 1, 12, {1}, {1}, SCI_DWT_53, 3, SCI_CT_NONE, HT, 5, 5, 0, 0, 0, DEV},
    {"ht-gray16-53-cb16x64", 1, 16, {1}, {1}, SCI_DWT_53, 4, SCI_CT_NONE, HT, 4, 6, 0, 0, 0, DEV},
    {"ht-rgb8-rct", 3, 8, {1, 1, 1}, {1, 1, 1}, SCI_DWT_53, 4, SCI_CT_RCT, HT, 6, 6, 0, 0, 0, DEV},
    {"ht-rgb12-rct", 3, 12, {1, 1, 1}, {1, 1, 1}, SCI_DWT_53, 5, SCI_CT_RCT, HT, 6, 6, 0, 0, 0, DEV},
    {"ht-rgb10-97-ict", 3, 10, {1, 1, 1}, {1, 1, 1}, SCI_DWT_97, 5, SCI_CT_ICT, HT, 6, 6, 0, 0, 0.01, DEV},
    {"ht-rgb12-97-fine", 3, 12, {1, 1, 1}, {1, 1, 1}, SCI_DWT_97, 3, SCI_CT_ICT, HT, 5, 6, 0, 0, 0.0005, DEV},
    {"ht-gray8-97-noct", 1, 8, {1}, {1}, SCI_DWT_97, 2, SCI_CT_NONE, HT, 3, 3, 0, 0, 0.05, DEV},
    {"ht-420-8", 3, 8, {1, 2, 2}, {1, 2, 2}, SCI_DWT_53, 3, SCI_CT_NONE, HT, 6, 6, 0, 0, 0, DEV},
    {"ht-422-10-97", 3, 10, {1, 2, 2}, {1, 1, 1}, SCI_DWT_97, 3, SCI_CT_NONE, HT, 6, 5, 0, 0, 0.02, DEV},
    {"ht-4comp-9", 4, 9, {1, 1, 1, 1}, {1, 1, 1, 1}, SCI_DWT_53, 2, SCI_CT_RCT, HT, 6, 6, 0, 0, 0, DEV},
    {"ht-gray8-0lev", 1, 8, {1}, {1}, SCI_DWT_53, 0, SCI_CT_NONE, HT, 6, 6, 0, 0, 0, DEV},
    {"p1-gray8-53", 1, 8, {1}, {1}, SCI_DWT_53, 5, SCI_CT_NONE, P1, 6, 6, 0, 0, 0, P1DEV},
    {"p1-rgb12-rct-layers", 3, 12, {1, 1, 1}, {1, 1, 1}, SCI_DWT_53, 4, SCI_CT_RCT, P1, 5, 5, 3, 0, 0, P1DEV},
    {"p1-rgb8-97-ict", 3, 8, {1, 1, 1}, {1, 1, 1}, SCI_DWT_97, 3, SCI_CT_ICT, P1, 6, 6, 1, 0, 0.02, P1DEV},
    {"p1-gray10-styles", 1, 10, {1}, {1}, SCI_DWT_53, 3, SCI_CT_NONE, P1, 5, 4, 2, 0x3f, 0, P1DEV},
    {"p1-gray8-termall-pterm", 1, 8, {1}, {1}, SCI_DWT_53, 3, SCI_CT_NONE, P1, 5, 5, 2, 0x14, 0, P1DEV},
    {"p1-gray12-reset-segsym", 1, 12, {1}, {1}, SCI_DWT_53, 4, SCI_CT_NONE, P1, 6, 4, 1, 0x22, 0, P1DEV},
    {"p1-rgb10-97-bypass-termall", 3, 10, {1, 1, 1}, {1, 1, 1}, SCI_DWT_97, 2, SCI_CT_ICT, P1, 4, 5, 3, 0x05, 0.005, P1DEV},
    {"p1-gray16-vcausal", 1, 16, {1}, {1}, SCI_DWT_53, 5, SCI_CT_NONE, P1, 6, 6, 1, 0x08, 0, P1DEV},
    {"p1-420-bypass", 3, 8, {1, 2, 2}, {1, 2, 2}, SCI_DWT_53, 3, SCI_CT_NONE, P1, 4, 4, 1, 0x01 | 0x08, 0, P1DEV},
};

static const unsigned small_sizes[][2] = {
    {1, 1}, {1, 37}, {37, 1}, {2, 3}, {17, 9}, {97, 61}, {130, 67},
};
static const unsigned large_sizes[][2] = {
    {257, 129}, {640, 360}, {1031, 515},
};

/* Changes a few bytes after the main header: damage the decoders must
 * treat alike. */
static void damage(uint8_t *cs, size_t len) {
    if (len < 64)
        return;
    size_t lo = len / 3;
    for (int i = 0; i < 3; i++)
        cs[lo + rnd() % (len - lo - 2)] ^= (uint8_t)(1u << (rnd() % 8));
}

static void test_encoded(sci_cuda_j2kdec *g) {
    unsigned nsizes = sizeof small_sizes / sizeof small_sizes[0];
    unsigned nlarge = quick ? 0 : sizeof large_sizes / sizeof large_sizes[0];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (unsigned s = 0; s < nsizes + nlarge; s++) {
            const enc_case *e = &cases[k];
            unsigned w = s < nsizes ? small_sizes[s][0] : large_sizes[s - nsizes][0];
            unsigned h = s < nsizes ? small_sizes[s][1] : large_sizes[s - nsizes][1];
            size_t len = 0;
            uint8_t *cs = encode(e, w, h, &len);
            char label[160];
            snprintf(label, sizeof label, "%s %ux%u", e->label, w, h);
            if (!cs) {
                /* sizes the encoder refuses (subsampled 1-sample planes) */
                if (verbose)
                    printf("skip: %s (the encoder refuses it)\n", label);
                continue;
            }
            run_opts o = {e->path == P1DEV ? DEV : e->path, 0, (int)(s & 3), 0, 0,
                          0};
            /* our encoder's RPCL: every resolution has packets where each
             * has samples, and the lower ones go first */
            if (e->levels && w >= 1u << e->levels && h >= 1u << e->levels)
                o.parts = 2;
            compare_both(g, cs, len, label, &o);
            o.parts = 0;
            if (e->levels) {
                /* a lower resolution, and fewer layers where there are
                 * several, on the device too */
                run_opts orl = o;
                orl.reduce = 1 + s % (e->levels + 1);
                orl.layers = e->layers > 1 ? 1 + s % (e->layers - 1) : 0;
                snprintf(label, sizeof label, "%s %ux%u reduce %u layers %u",
                         e->label, w, h, orl.reduce, orl.layers);
                compare(g, cs, len, label, &orl);
            }
            if (e->path == P1DEV) {
                /* the same on the host-blocks path */
                sci_cuda_j2kdec_tune(g, 1);
                run_opts oh = {HB, 0, 1, 0, 0, 0};
                snprintf(label, sizeof label, "%s %ux%u host blocks", e->label, w, h);
                compare(g, cs, len, label, &oh);
                sci_cuda_j2kdec_tune(g, 0);
            }
            if (e->nc == 3 && e->depth == 8 && e->dx[1] == 1) {
                run_opts op = {e->path == P1DEV ? DEV : e->path, 1, 5, 0, 0, 0};
                snprintf(label, sizeof label, "%s %ux%u packed", e->label, w, h);
                compare(g, cs, len, label, &op);
            }
            if (w * h >= 64 * 64 / 2) {
                for (int t = 0; t < 3; t++) {
                    uint8_t *bad = malloc(len);
                    memcpy(bad, cs, len);
                    damage(bad, len);
                    snprintf(label, sizeof label, "%s %ux%u damaged #%d",
                             e->label, w, h, t);
                    run_opts od = {-1, 0, 0, 0, 0, 0};
                    compare_both(g, bad, len, label, &od);
                    free(bad);
                }
            }
            free(cs);
        }
}

/* Two frames submitted before the first is finished, on two slots (each
 * slot's host work on a thread of its own); a frame whose planes the
 * slot's thread refuses fails at its finish, and the slot goes on. */
static void test_in_flight(void) {
    sci_cuda_j2kdec *g;
    CKW(sci_cuda_j2kdec_create(&g, 2, 2));
    size_t la = 0, lb = 0;
    uint8_t *a = encode(&cases[4], 130, 67, &la);
    uint8_t *b = encode(&cases[5], 97, 61, &lb);
    sci_j2k_comp_info ca[3], cb[3];
    sci_j2k_info ia, ib;
    sci_cuda_j2kdec_plane pa[3], pb[3];
    void *da, *db;
    CK(cudaMalloc(&da, (size_t)130 * 67 * 2 * 3));
    CK(cudaMalloc(&db, (size_t)97 * 61 * 2 * 3));
    unsigned ta, tb;
    CKW(sci_cuda_j2kdec_parse(g, a, la, &ia, ca, 3));
    for (unsigned c = 0; c < 3; c++) {
        pa[c].data = (uint8_t *)da + (size_t)c * 130 * 67 * 2;
        pa[c].row_stride = 130 * 2;
        pa[c].pixel_stride = 2;
        pa[c].bytes = 2;
    }
    CKW(sci_cuda_j2kdec_submit(g, pa, NULL, &ta));
    CKW(sci_cuda_j2kdec_parse(g, b, lb, &ib, cb, 3));
    for (unsigned c = 0; c < 3; c++) {
        pb[c].data = (uint8_t *)db + (size_t)c * 97 * 61 * 2;
        pb[c].row_stride = 97 * 2;
        pb[c].pixel_stride = 2;
        pb[c].bytes = 2;
    }
    CKW(sci_cuda_j2kdec_submit(g, pb, NULL, &tb));
    unsigned tc;
    check(sci_cuda_j2kdec_parse(g, b, lb, NULL, NULL, 0) == SCI_CUDA_J2KDEC_ERR_ARG,
          "in flight: a third frame on two slots is refused");
    CKW(sci_cuda_j2kdec_finish(g, ta));
    CKW(sci_cuda_j2kdec_finish(g, tb));
    check(sci_cuda_j2kdec_finish(g, tb) == SCI_CUDA_J2KDEC_ERR_ARG,
          "in flight: a ticket finishes once");
    /* 3-byte samples: queued, refused by the slot's thread, told at the
     * finish; the slot then decodes the next frame on it */
    sci_cuda_j2kdec_plane bad[3];
    memcpy(bad, pa, sizeof bad);
    bad[1].bytes = 3;
    CKW(sci_cuda_j2kdec_parse(g, a, la, NULL, NULL, 0));
    CKW(sci_cuda_j2kdec_submit(g, bad, NULL, &tc));
    check(sci_cuda_j2kdec_finish(g, tc) == SCI_CUDA_J2KDEC_ERR_ARG &&
          strstr(sci_cuda_j2kdec_error(g), "plane 1") != NULL,
          "in flight: planes refused on the slot's thread fail at the finish");
    for (int k = 0; k < 2; k++) {
        CKW(sci_cuda_j2kdec_parse(g, a, la, NULL, NULL, 0));
        CKW(sci_cuda_j2kdec_submit(g, pa, NULL, &tc));
        CKW(sci_cuda_j2kdec_finish(g, tc));
    }
    /* both against the C reference */
    const uint8_t *cs[2] = {a, b};
    size_t lens[2] = {la, lb};
    void *dev[2] = {da, db};
    unsigned ws[2] = {130, 97}, hs[2] = {67, 61};
    for (int f = 0; f < 2; f++) {
        size_t n = (size_t)ws[f] * hs[f];
        uint16_t *got = malloc(n * 2 * 3), *want = malloc(n * 2 * 3);
        CK(cudaMemcpy(got, dev[f], n * 2 * 3, cudaMemcpyDeviceToHost));
        sci_j2k_dec *ref = sci_j2k_dec_new();
        sci_j2k_plane hp[3];
        for (unsigned c = 0; c < 3; c++) {
            hp[c].data = want + c * n;
            hp[c].stride = ws[f];
            hp[c].bytes = 2;
        }
        sci_j2k_decode_params p = {0, 0};
        sci_j2k_info info;
        int ok = !sci_j2k_dec_parse(ref, cs[f], lens[f], &info) &&
                 !sci_j2k_dec_decode(ref, &p, hp) && !memcmp(want, got, n * 2 * 3);
        check(ok, f ? "in flight: the second frame equals the C reference"
                    : "in flight: the first frame equals the C reference");
        sci_j2k_dec_free(ref);
        free(got);
        free(want);
    }
    free(a);
    free(b);
    CK(cudaFree(da));
    CK(cudaFree(db));
    sci_cuda_j2kdec_destroy(g);
}

/* A frame of the pipeline: its codestream, device planes and ticket. */
typedef struct {
    uint8_t *cs;
    size_t len;
    const char *name;
    void *dev;
    size_t bytes[16], off[16];
    unsigned nc, w[16], h[16], ticket;
} piped;

/* Frame p's planes against the C reference's; frees them. */
static void piped_check(piped *p) {
    char what[160];
    sci_j2k_dec *ref = sci_j2k_dec_new();
    sci_j2k_info info;
    sci_j2k_plane hp[16];
    size_t total = p->off[p->nc - 1] + (size_t)p->w[p->nc - 1] * p->h[p->nc - 1] *
                                        p->bytes[p->nc - 1];
    uint8_t *want = malloc(total), *got = malloc(total);
    for (unsigned c = 0; c < p->nc; c++) {
        hp[c].data = want + p->off[c];
        hp[c].stride = p->w[c];
        hp[c].bytes = (unsigned)p->bytes[c];
    }
    sci_j2k_decode_params prm = {0, 0};
    CK(cudaMemcpy(got, p->dev, total, cudaMemcpyDeviceToHost));
    int ok = !sci_j2k_dec_parse(ref, p->cs, p->len, &info) &&
             !sci_j2k_dec_decode(ref, &prm, hp) && !memcmp(want, got, total);
    snprintf(what, sizeof what, "pipelined %s: equals the C reference", p->name);
    check(ok, what);
    sci_j2k_dec_free(ref);
    free(want);
    free(got);
    free(p->cs);
    CK(cudaFree(p->dev));
}

/* Every encoded case at odd sizes, three frames in flight on three slots:
 * each frame's host work on a slot's thread while the others decode. */
static void test_pipelined(void) {
    enum { DEPTH = 3 };
    sci_cuda_j2kdec *g;
    CKW(sci_cuda_j2kdec_create(&g, DEPTH, 3));
    size_t n = sizeof cases / sizeof cases[0];
    piped q[DEPTH];
    memset(q, 0, sizeof q);
    for (size_t i = 0; i < n + DEPTH - 1; i++) {
        if (i >= DEPTH - 1) {
            piped *p = &q[(i - (DEPTH - 1)) % DEPTH];
            if (p->cs) {
                char what[160];
                snprintf(what, sizeof what, "pipelined %s: finished", p->name);
                int r = sci_cuda_j2kdec_finish(g, p->ticket);
                check(r == 0, what);
                if (r) {
                    free(p->cs);
                    CK(cudaFree(p->dev));
                } else {
                    piped_check(p);
                }
                p->cs = NULL;
            }
        }
        if (i >= n)
            continue;
        piped *p = &q[i % DEPTH];
        p->name = cases[i].label;
        p->cs = encode(&cases[i], 41 + (unsigned)(i * 13) % 50,
                       23 + (unsigned)(i * 7) % 40, &p->len);
        sci_j2k_info info;
        sci_j2k_comp_info ci[16];
        if (!p->cs)
            continue;   /* sizes the encoder refuses */
        if (sci_cuda_j2kdec_parse(g, p->cs, p->len, &info, ci, 16) ||
            info.components > 16) {
            check(0, "pipelined: parsed");
            free(p->cs);
            p->cs = NULL;
            continue;
        }
        sci_cuda_j2kdec_plane dp[16];
        size_t total = 0;
        p->nc = info.components;
        for (unsigned c = 0; c < p->nc; c++) {
            p->w[c] = ci[c].w;
            p->h[c] = ci[c].h;
            p->bytes[c] = ci[c].depth > 8 ? 2 : 1;
            p->off[c] = total;
            total += (size_t)ci[c].w * ci[c].h * p->bytes[c];
        }
        CK(cudaMalloc(&p->dev, total + 1));
        for (unsigned c = 0; c < p->nc; c++) {
            dp[c].data = (uint8_t *)p->dev + p->off[c];
            dp[c].row_stride = (ptrdiff_t)(p->w[c] * p->bytes[c]);
            dp[c].pixel_stride = (unsigned)p->bytes[c];
            dp[c].bytes = (unsigned)p->bytes[c];
        }
        CKW(sci_cuda_j2kdec_submit(g, dp, NULL, &p->ticket));
    }
    sci_cuda_j2kdec_destroy(g);
}

/* ---- conformance codestreams ----------------------------------------------- */

static int cmpstr(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files of dir in name order (at most max); returns how many. */
static unsigned list_dir(const char *dir, char **names, unsigned max) {
    DIR *dp = opendir(dir);
    if (!dp)
        return 0;
    unsigned n = 0;
    struct dirent *de;
    while ((de = readdir(dp)) && n < max)
        if (de->d_name[0] != '.')
            names[n++] = strdup(de->d_name);
    closedir(dp);
    qsort(names, n, sizeof *names, cmpstr);
    return n;
}

typedef void (*file_fn)(sci_cuda_j2kdec *g, const char *name, uint8_t *cs,
                        size_t len, void *ctx);

/* Each file of data/sub (at most 256), in name order, read whole, to fn;
 * checks that there is one and that each reads. */
static void each_file(sci_cuda_j2kdec *g, const char *data, const char *sub,
                      file_fn fn, void *ctx) {
    char dir[1024], *names[256], what[1100];
    snprintf(dir, sizeof dir, "%s/%s", data, sub);
    unsigned n = list_dir(dir, names, 256);
    snprintf(what, sizeof what, "%s has codestreams", dir);
    check(n > 0, what);
    for (unsigned i = 0; i < n; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        size_t len;
        uint8_t *cs = test_read_file(path, &len);
        check(cs != NULL, names[i]);
        if (cs)
            fn(g, names[i], cs, len, ctx);
        free(cs);
        free(names[i]);
    }
}

/* a conformance stream; ctx counts those on the device path */
static void conformance_one(sci_cuda_j2kdec *g, const char *name, uint8_t *cs,
                            size_t len, void *ctx) {
    unsigned before = path_count[DEV];
    run_opts o = {-1, 0, 2, 0, 0, 0};
    compare_both(g, cs, len, name, &o);
    if (path_count[DEV] > before) {
        ++*(unsigned *)ctx;
        count_refined(cs, len);
    }
    if (verbose)
        printf("%s: path %d\n", name, sci_cuda_j2kdec_path(g));
}

static void test_conformance(sci_cuda_j2kdec *g, const char *data) {
    unsigned dev = 0;
    each_file(g, data, "streams", conformance_one, &dev);
    char what[160];
    snprintf(what, sizeof what, "conformance: some streams take the device "
             "path (%u), with HT refinement passes (%lu blocks)", dev, ht_refined);
    check(dev > 0 && ht_refined > 0, what);
}

/* a tiled stream: its name says the path it must take */
static void tiled_one(sci_cuda_j2kdec *g, const char *name, uint8_t *cs,
                      size_t len, void *ctx) {
    (void)ctx;
    char label[300];
    int path_want = strstr(name, "-host.") ? SCI_CUDA_J2KDEC_HOST : DEV;
    for (unsigned r = 0; r < 2; r++) {
        run_opts o = {path_want, 0, (int)(3 * r), r, 0, 0};
        snprintf(label, sizeof label, "tiled %s reduce %u", name, r);
        compare(g, cs, len, label, &o);
    }
    run_opts op = {path_want == DEV ? DEV : -1, 1, 1, 0, 0, 0};
    snprintf(label, sizeof label, "tiled %s packed", name);
    compare(g, cs, len, label, &op);
    if (path_want == DEV && strstr(name, "-p1-")) {
        sci_cuda_j2kdec_tune(g, 1);
        run_opts oh = {HB, 0, 1, 1, 0, 0};
        snprintf(label, sizeof label, "tiled %s host blocks reduce 1", name);
        compare(g, cs, len, label, &oh);
        sci_cuda_j2kdec_tune(g, 0);
    }
    for (int t = 0; t < 3; t++) {
        damage(cs, len);
        run_opts od = {-1, 0, 0, 0, 0, 0};
        snprintf(label, sizeof label, "tiled %s damaged #%d", name, t);
        compare_both(g, cs, len, label, &od);
    }
}

static void test_tiled(sci_cuda_j2kdec *g, const char *data) {
    each_file(g, data, "tiled", tiled_one, NULL);
}

int main(int argc, char **argv) {
    const char *data = NULL;
    /* lines in order with stderr (sanitizers' reports) */
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--verbose"))
            verbose = 1;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            rng = strtoull(argv[++i], NULL, 0) | 1;
        else if (!strcmp(argv[i], "--data") && i + 1 < argc)
            data = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--data DIR] [--quick] [--seed N] "
                    "[--verbose]\n", argv[0]);
            return 2;
        }
    }
    REQUIRE_CUDA_DEVICE();
    sci_cuda_j2kdec *g;
    CKW(sci_cuda_j2kdec_create(&g, 1, 0));
    test_encoded(g);
    if (data) {
        test_conformance(g, data);
        test_tiled(g, data);
    }
    sci_cuda_j2kdec_destroy(g);
    test_in_flight();
    test_pipelined();
    printf("%u checks, %u failed; frames: %u device (%u in two parts), %u "
           "host blocks, %u host\n", checks, failures, path_count[0], two_parts,
           path_count[1], path_count[2]);
    return failures ? 1 : 0;
}
